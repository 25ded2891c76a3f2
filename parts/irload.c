/* parts/irload.c: section of npu.c (merged into npu.c before release). */

/* ==== 8. IR loader ======================================================= */
/* Owns: an allocation-free XML scanner (8a), the IR walker that counts, fills,
 * checks edges and streams the payload (8b), loading from memory and files (8c),
 * and the payload writer (8d). Calls: sections 1-5 (arena, errors, sinks,
 * payload containers). Every number read from the text is range-checked; the
 * only pointers formed are weights base + a checked offset. */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- 8a. XML scanner ----------------------------------------------------- */
/* A pull scanner over [s, s+n): start tags (with attributes validated once),
 * end tags (matched against the open element), text (and CDATA content).
 * Comments, processing instructions and the XML declaration are validated and
 * skipped. Positions are byte offsets; line/column are computed only for errors. */

enum { NPU__X_EOF = 0, NPU__X_START, NPU__X_END, NPU__X_TEXT };

typedef struct npu__xtok {
    int kind;
    size_t begin, end;          /* the whole token */
    size_t name, name_len;      /* START/END: element name */
    size_t attrs, attrs_end;    /* START: attribute region */
    int self_closing;           /* START: <x/> */
    size_t text, text_end;      /* TEXT: raw content (entities not decoded) */
} npu__xtok;

typedef struct npu__xml {
    const char *s;
    size_t n, pos;
    size_t start;               /* 3 after a UTF-8 byte order mark, else 0 */
    unsigned depth;
    int root_closed;
    size_t stack_name[NPU_IR_MAX_DEPTH];
    size_t stack_len[NPU_IR_MAX_DEPTH];
    npu_context *ctx;
    const char *label;          /* file name for messages */
    char where[200];            /* " in layer '...' (id N, type T)" or "" */
} npu__xml;

static void npu__xml_linecol(const npu__xml *x, size_t pos, unsigned long *line, unsigned long *col)
{
    size_t i, last = 0;
    unsigned long l = 1;
    if (pos > x->n) pos = x->n;
    for (i = 0; i < pos; i++) {
        if (x->s[i] == '\n') {
            l++;
            last = i + 1;
        }
    }
    *line = l;
    *col = (unsigned long)(pos - last) + 1;
}

NPU__PRINTF(4, 5)
static npu_status npu__xml_fail(const npu__xml *x, size_t pos, npu_status status, const char *fmt, ...)
{
    char msg[600];
    unsigned long line, col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    npu__xml_linecol(x, pos, &line, &col);
    return npu__fail(x->ctx, status, "%s line %lu, column %lu: %s%s", x->label, line, col, msg,
                     x->where);
}

static int npu__xml_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Narrows [*b, *e) of s to its text without surrounding whitespace. */
static void npu__xml_trim(const char *s, size_t *b, size_t *e)
{
    while (*b < *e && npu__xml_space(s[*b])) (*b)++;
    while (*e > *b && npu__xml_space(s[*e - 1])) (*e)--;
}

static int npu__xml_starts(const npu__xml *x, size_t p, const char *lit)
{
    size_t k = strlen(lit);
    return p <= x->n && x->n - p >= k && memcmp(x->s + p, lit, k) == 0;
}

/* Length of the UTF-8 sequence at s[i] (1..4), 0 if invalid. */
static size_t npu__utf8_len(const char *str, size_t i, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    unsigned c = s[i];
    size_t len, k;
    uint32_t cp;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1Fu; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0Fu; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07u; }
    else return 0;
    if (n - i < len) return 0;
    for (k = 1; k < len; k++) {
        if ((s[i + k] & 0xC0u) != 0x80u) return 0;
        cp = (cp << 6) | (s[i + k] & 0x3Fu);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0xFFFD)) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

/* Parses an entity at s[p] == '&'. Returns its length (through ';') and the
 * code point, or 0 if invalid. */
static size_t npu__xml_entity(const char *s, size_t p, size_t n, uint32_t *cp)
{
    static const struct { const char *name; char c; } named[] = {
        {"lt;", '<'}, {"gt;", '>'}, {"amp;", '&'}, {"quot;", '"'}, {"apos;", '\''},
    };
    size_t i, q = p + 1;
    if (q < n && s[q] == '#') {
        uint32_t v = 0;
        int hex = 0, digits = 0;
        q++;
        if (q < n && s[q] == 'x') {
            hex = 1;
            q++;
        }
        for (; q < n && s[q] != ';'; q++) {
            int d;
            char c = s[q];
            if (c >= '0' && c <= '9') d = c - '0';
            else if (hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
            else if (hex && c >= 'A' && c <= 'F') d = c - 'A' + 10;
            else return 0;
            if (v > 0x10FFFFu) return 0;
            v = v * (hex ? 16u : 10u) + (uint32_t)d;
            if (++digits > 8) return 0;
        }
        if (q >= n || digits == 0) return 0;
        if (!(v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v <= 0xD7FF) ||
              (v >= 0xE000 && v <= 0xFFFD) || (v >= 0x10000 && v <= 0x10FFFF)))
            return 0;
        *cp = v;
        return q + 1 - p;
    }
    for (i = 0; i < NPU__COUNT_OF(named); i++) {
        size_t k = strlen(named[i].name);
        if (n - q >= k && memcmp(s + q, named[i].name, k) == 0) {
            *cp = (uint32_t)(unsigned char)named[i].c;
            return k + 1;
        }
    }
    return 0;
}

/* Checks character data in [b, e): valid UTF-8, no control characters, valid
 * entities; in attribute values also no '<'; in text no "]]>". */
static npu_status npu__xml_check_chars(const npu__xml *x, size_t b, size_t e, int in_attr,
                                       int allow_amp_raw)
{
    size_t i = b;
    while (i < e) {
        unsigned char c = (unsigned char)x->s[i];
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            return npu__xml_fail(x, i, NPU_ERR_PARSE, "control character 0x%02x is not allowed", c);
        if (c == '<' && in_attr)
            return npu__xml_fail(x, i, NPU_ERR_PARSE, "'<' inside an attribute value");
        if (c == '&' && !allow_amp_raw) {
            uint32_t cp;
            size_t k = npu__xml_entity(x->s, i, e, &cp);
            if (k == 0)
                return npu__xml_fail(x, i, NPU_ERR_PARSE,
                                     "invalid entity (only &lt; &gt; &amp; &quot; &apos; and &#...; are allowed)");
            i += k;
            continue;
        }
        if (c == ']' && !in_attr && !allow_amp_raw && e - i >= 3 && x->s[i + 1] == ']' && x->s[i + 2] == '>')
            return npu__xml_fail(x, i, NPU_ERR_PARSE, "']]>' outside a CDATA section");
        if (c >= 0x80) {
            size_t k = npu__utf8_len(x->s, i, e);
            if (k == 0) return npu__xml_fail(x, i, NPU_ERR_PARSE, "invalid UTF-8 byte 0x%02x", c);
            i += k;
            continue;
        }
        i++;
    }
    return NPU_OK;
}

static int npu__xml_name_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80;
}

static int npu__xml_name_char(unsigned char c)
{
    return npu__xml_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/* Reads a name at x->s[p]; returns its length (0: error recorded). */
static size_t npu__xml_name(const npu__xml *x, size_t p, const char *what, npu_status *st)
{
    size_t q = p;
    if (q >= x->n || !npu__xml_name_start((unsigned char)x->s[q])) {
        *st = q >= x->n ? npu__xml_fail(x, q, NPU_ERR_PARSE, "unexpected end of file in %s", what)
                        : npu__xml_fail(x, q, NPU_ERR_PARSE, "invalid character '%c' where %s was expected",
                                        x->s[q], what);
        return 0;
    }
    while (q < x->n && npu__xml_name_char((unsigned char)x->s[q])) {
        if ((unsigned char)x->s[q] >= 0x80) {
            size_t k = npu__utf8_len(x->s, q, x->n);
            if (k == 0) {
                *st = npu__xml_fail(x, q, NPU_ERR_PARSE, "invalid UTF-8 in %s", what);
                return 0;
            }
            q += k;
        } else {
            q++;
        }
        if (q - p > NPU_IR_MAX_NAME) {
            *st = npu__xml_fail(x, p, NPU_ERR_PARSE, "%s longer than NPU_IR_MAX_NAME (%d bytes)", what,
                                NPU_IR_MAX_NAME);
            return 0;
        }
    }
    *st = NPU_OK;
    return q - p;
}

/* Attribute iteration over a validated start tag. */
typedef struct npu__xattr {
    size_t name, name_len, value, value_len;
} npu__xattr;

static int npu__xml_attr_next(const npu__xml *x, size_t *it, size_t end, npu__xattr *a)
{
    size_t p = *it;
    const char *s = x->s;
    while (p < end && npu__xml_space(s[p])) p++;
    if (p >= end || s[p] == '/' || s[p] == '>') return 0;
    a->name = p;
    while (p < end && !npu__xml_space(s[p]) && s[p] != '=') p++;
    a->name_len = p - a->name;
    while (p < end && s[p] != '"' && s[p] != '\'') p++;
    if (p >= end) return 0;
    {
        char q = s[p++];
        a->value = p;
        while (p < end && s[p] != q) p++;
        a->value_len = p - a->value;
    }
    *it = p + 1;
    return 1;
}

static int npu__xml_eq(const npu__xml *x, size_t p, size_t len, const char *lit)
{
    size_t k = strlen(lit);
    return len == k && memcmp(x->s + p, lit, k) == 0;
}

static int npu__xml_attr(const npu__xml *x, const npu__xtok *t, const char *name, npu__xattr *out)
{
    size_t it = t->attrs;
    while (npu__xml_attr_next(x, &it, t->attrs_end, out))
        if (npu__xml_eq(x, out->name, out->name_len, name)) return 1;
    return 0;
}

/* Validates the attributes of start tag t, which begin at t->attrs. On success
 * t->attrs_end is the position of '>' or "/>" and t->end the position after it. */
static npu_status npu__xml_scan_attrs(npu__xml *x, npu__xtok *t)
{
    const char *s = x->s;
    unsigned count = 0;
    size_t p = t->attrs, first = p;
    npu_status st;
    for (;;) {
        size_t ws = p, name, nlen, v;
        char q;
        while (p < x->n && npu__xml_space(s[p])) p++;
        if (p >= x->n) return npu__xml_fail(x, p, NPU_ERR_PARSE, "unexpected end of file inside a tag");
        if (s[p] == '>' || (s[p] == '/' && p + 1 < x->n && s[p + 1] == '>')) {
            t->self_closing = s[p] == '/';
            t->attrs_end = p;
            t->end = p + (t->self_closing ? 2u : 1u);
            return NPU_OK;
        }
        if (s[p] == '/') {
            return npu__xml_fail(x, p, NPU_ERR_PARSE, "'/' not followed by '>' in a tag");
        }
        if (ws == p) return npu__xml_fail(x, p, NPU_ERR_PARSE, "missing whitespace before an attribute");
        name = p;
        nlen = npu__xml_name(x, p, "an attribute name", &st);
        if (nlen == 0) return st;
        p += nlen;
        while (p < x->n && npu__xml_space(s[p])) p++;
        if (p >= x->n || s[p] != '=')
            return npu__xml_fail(x, p, NPU_ERR_PARSE, "attribute '%.*s' has no '=' and value",
                                 (int)nlen, s + name);
        p++;
        while (p < x->n && npu__xml_space(s[p])) p++;
        if (p >= x->n || (s[p] != '"' && s[p] != '\''))
            return npu__xml_fail(x, p, NPU_ERR_PARSE, "attribute '%.*s': value is not quoted",
                                 (int)nlen, s + name);
        q = s[p++];
        v = p;
        {
            const char *close = (const char *)memchr(s + p, q, x->n - p);
            if (close == NULL)
                return npu__xml_fail(x, v - 1, NPU_ERR_PARSE,
                                     "attribute '%.*s': unterminated value (end of file)", (int)nlen, s + name);
            p = (size_t)(close - s);
        }
        if (p - v > NPU_IR_MAX_ATTR_VALUE)
            return npu__xml_fail(x, v, NPU_ERR_PARSE,
                                 "attribute '%.*s': value of %zu bytes exceeds NPU_IR_MAX_ATTR_VALUE (%d)",
                                 (int)nlen, s + name, p - v, NPU_IR_MAX_ATTR_VALUE);
        st = npu__xml_check_chars(x, v, p, 1, 0);
        if (st != NPU_OK) return st;
        p++;
        if (++count > NPU_IR_MAX_ATTRS)
            return npu__xml_fail(x, name, NPU_ERR_PARSE, "more than NPU_IR_MAX_ATTRS (%d) attributes",
                                 NPU_IR_MAX_ATTRS);
        {   /* unique names */
            size_t it = first;
            npu__xattr a;
            while (npu__xml_attr_next(x, &it, name, &a))
                if (a.name_len == nlen && memcmp(s + a.name, s + name, nlen) == 0)
                    return npu__xml_fail(x, name, NPU_ERR_PARSE, "duplicate attribute '%.*s'",
                                         (int)nlen, s + name);
        }
    }
}

/* Finds `lit` from p; returns its position or SIZE_MAX. */
static size_t npu__xml_find(const npu__xml *x, size_t p, const char *lit)
{
    size_t k = strlen(lit);
    while (p < x->n && x->n - p >= k) {
        const char *hit = (const char *)memchr(x->s + p, lit[0], x->n - p - k + 1);
        if (hit == NULL) return SIZE_MAX;
        p = (size_t)(hit - x->s);
        if (memcmp(x->s + p, lit, k) == 0) return p;
        p++;
    }
    return SIZE_MAX;
}

static npu_status npu__xml_next(npu__xml *x, npu__xtok *t)
{
    const char *s = x->s;
    npu_status st;
    for (;;) {
        size_t p = x->pos;
        memset(t, 0, sizeof *t);
        if (p >= x->n) {
            if (x->depth > 0)
                return npu__xml_fail(x, p, NPU_ERR_PARSE, "unexpected end of file: <%.*s> is not closed",
                                     (int)x->stack_len[x->depth - 1], s + x->stack_name[x->depth - 1]);
            if (!x->root_closed) return npu__xml_fail(x, p, NPU_ERR_PARSE, "no root element");
            t->kind = NPU__X_EOF;
            t->begin = t->end = p;
            return NPU_OK;
        }
        if (s[p] != '<') {
            const char *lt = (const char *)memchr(s + p, '<', x->n - p);
            size_t e = lt ? (size_t)(lt - s) : x->n;
            if (x->depth == 0) {
                size_t i;
                for (i = p; i < e; i++)
                    if (!npu__xml_space(s[i]))
                        return npu__xml_fail(x, i, NPU_ERR_PARSE, "text outside the root element");
                x->pos = e;
                continue;
            }
            st = npu__xml_check_chars(x, p, e, 0, 0);
            if (st != NPU_OK) return st;
            x->pos = e;
            t->kind = NPU__X_TEXT;
            t->begin = t->text = p;
            t->end = t->text_end = e;
            return NPU_OK;
        }
        if (npu__xml_starts(x, p, "<!--")) {
            size_t q = npu__xml_find(x, p + 4, "--");
            if (q == SIZE_MAX) return npu__xml_fail(x, p, NPU_ERR_PARSE, "unterminated comment");
            if (q + 2 >= x->n || s[q + 2] != '>')
                return npu__xml_fail(x, q, NPU_ERR_PARSE, "'--' inside a comment");
            st = npu__xml_check_chars(x, p + 4, q, 0, 1);
            if (st != NPU_OK) return st;
            x->pos = q + 3;
            continue;
        }
        if (npu__xml_starts(x, p, "<![CDATA[")) {
            size_t q;
            if (x->depth == 0) return npu__xml_fail(x, p, NPU_ERR_PARSE, "CDATA outside the root element");
            q = npu__xml_find(x, p + 9, "]]>");
            if (q == SIZE_MAX) return npu__xml_fail(x, p, NPU_ERR_PARSE, "unterminated CDATA section");
            st = npu__xml_check_chars(x, p + 9, q, 0, 1);
            if (st != NPU_OK) return st;
            x->pos = q + 3;
            t->kind = NPU__X_TEXT;
            t->begin = p;
            t->end = q + 3;
            t->text = p + 9;
            t->text_end = q;
            return NPU_OK;
        }
        if (npu__xml_starts(x, p, "<!"))
            return npu__xml_fail(x, p, NPU_ERR_PARSE, "<!DOCTYPE> and other declarations are not allowed in an IR");
        if (npu__xml_starts(x, p, "<?")) {
            size_t nlen, q;
            nlen = npu__xml_name(x, p + 2, "a processing instruction target", &st);
            if (nlen == 0) return st;
            if (nlen == 3 && (s[p + 2] | 0x20) == 'x' && (s[p + 3] | 0x20) == 'm' && (s[p + 4] | 0x20) == 'l' &&
                p != x->start)
                return npu__xml_fail(x, p, NPU_ERR_PARSE, "the XML declaration must be at the very start");
            q = npu__xml_find(x, p + 2 + nlen, "?>");
            if (q == SIZE_MAX) return npu__xml_fail(x, p, NPU_ERR_PARSE, "unterminated processing instruction");
            if (q > p + 2 + nlen && !npu__xml_space(s[p + 2 + nlen]))
                return npu__xml_fail(x, p + 2 + nlen, NPU_ERR_PARSE, "malformed processing instruction");
            st = npu__xml_check_chars(x, p + 2 + nlen, q, 0, 1);
            if (st != NPU_OK) return st;
            x->pos = q + 2;
            continue;
        }
        if (npu__xml_starts(x, p, "</")) {
            size_t nlen, q;
            nlen = npu__xml_name(x, p + 2, "an element name", &st);
            if (nlen == 0) return st;
            if (x->depth == 0)
                return npu__xml_fail(x, p, NPU_ERR_PARSE, "end tag </%.*s> without a start tag", (int)nlen,
                                     s + p + 2);
            if (nlen != x->stack_len[x->depth - 1] ||
                memcmp(s + p + 2, s + x->stack_name[x->depth - 1], nlen) != 0)
                return npu__xml_fail(x, p, NPU_ERR_PARSE, "end tag </%.*s> does not match <%.*s>", (int)nlen,
                                     s + p + 2, (int)x->stack_len[x->depth - 1],
                                     s + x->stack_name[x->depth - 1]);
            q = p + 2 + nlen;
            while (q < x->n && npu__xml_space(s[q])) q++;
            if (q >= x->n || s[q] != '>')
                return npu__xml_fail(x, q, NPU_ERR_PARSE, "malformed end tag </%.*s>", (int)nlen, s + p + 2);
            x->depth--;
            if (x->depth == 0) x->root_closed = 1;
            x->pos = q + 1;
            t->kind = NPU__X_END;
            t->begin = p;
            t->end = q + 1;
            t->name = p + 1 + 1;
            t->name_len = nlen;
            return NPU_OK;
        }
        {   /* start tag */
            size_t nlen = npu__xml_name(x, p + 1, "an element name", &st);
            if (nlen == 0) return st;
            if (x->depth == 0 && x->root_closed)
                return npu__xml_fail(x, p, NPU_ERR_PARSE, "a second root element <%.*s>", (int)nlen, s + p + 1);
            if (x->depth >= NPU_IR_MAX_DEPTH)
                return npu__xml_fail(x, p, NPU_ERR_PARSE, "elements nested deeper than NPU_IR_MAX_DEPTH (%d)",
                                     NPU_IR_MAX_DEPTH);
            t->kind = NPU__X_START;
            t->begin = p;
            t->name = p + 1;
            t->name_len = nlen;
            t->attrs = p + 1 + nlen;
            st = npu__xml_scan_attrs(x, t);
            if (st != NPU_OK) return st;
            x->pos = t->end;
            if (t->self_closing) {
                if (x->depth == 0) x->root_closed = 1;
            } else {
                x->stack_name[x->depth] = t->name;
                x->stack_len[x->depth] = nlen;
                x->depth++;
            }
            return NPU_OK;
        }
    }
}

/* Decodes entities of raw text [p, p+n) into out (NULL: count only); returns
 * the decoded length. The text was validated by the scanner. */
static size_t npu__xml_decode(const char *s, size_t n, char *out)
{
    size_t i = 0, len = 0;
    while (i < n) {
        uint32_t cp;
        size_t k;
        if (s[i] != '&' || (k = npu__xml_entity(s, i, n, &cp)) == 0) {
            if (out) out[len] = s[i];
            len++;
            i++;
            continue;
        }
        i += k;
        if (cp < 0x80) {
            if (out) out[len] = (char)cp;
            len += 1;
        } else if (cp < 0x800) {
            if (out) {
                out[len] = (char)(0xC0 | (cp >> 6));
                out[len + 1] = (char)(0x80 | (cp & 0x3F));
            }
            len += 2;
        } else if (cp < 0x10000) {
            if (out) {
                out[len] = (char)(0xE0 | (cp >> 12));
                out[len + 1] = (char)(0x80 | ((cp >> 6) & 0x3F));
                out[len + 2] = (char)(0x80 | (cp & 0x3F));
            }
            len += 3;
        } else {
            if (out) {
                out[len] = (char)(0xF0 | (cp >> 18));
                out[len + 1] = (char)(0x80 | ((cp >> 12) & 0x3F));
                out[len + 2] = (char)(0x80 | ((cp >> 6) & 0x3F));
                out[len + 3] = (char)(0x80 | (cp & 0x3F));
            }
            len += 4;
        }
    }
    return len;
}

/* ---- 8b. The IR walker ---------------------------------------------------- */
/* One walk over the XML per job: COUNT (sizes for the arena, all checks that
 * need no tables), FILL (tables), EDGES (edge checks against the sorted layer
 * and port tables, outputs' producers) and WRITE (stream the payload XML). */

/* IR element types: name in <data element_type>, port precision, bits. */
typedef struct npu__ir_elem {
    const char *name;
    const char *precision;
    uint8_t bits;
    npu_type type;
} npu__ir_elem;

static const npu__ir_elem npu__ir_elems[] = {
    {"undefined", "UNSPECIFIED", 0, NPU_TYPE_UNDEFINED},
    {"f32", "FP32", 32, NPU_F32},       {"f16", "FP16", 16, NPU_F16},
    {"bf16", "BF16", 16, NPU_BF16},     {"f64", "FP64", 64, NPU_TYPE_UNDEFINED},
    {"i4", "I4", 4, NPU_TYPE_UNDEFINED}, {"i8", "I8", 8, NPU_I8},
    {"i16", "I16", 16, NPU_TYPE_UNDEFINED}, {"i32", "I32", 32, NPU_I32},
    {"i64", "I64", 64, NPU_I64},        {"u1", "BIN", 1, NPU_TYPE_UNDEFINED},
    {"u2", "U2", 2, NPU_TYPE_UNDEFINED}, {"u4", "U4", 4, NPU_TYPE_UNDEFINED},
    {"u8", "U8", 8, NPU_U8},            {"u16", "U16", 16, NPU_TYPE_UNDEFINED},
    {"u32", "U32", 32, NPU_TYPE_UNDEFINED}, {"u64", "U64", 64, NPU_TYPE_UNDEFINED},
    {"boolean", "BOOL", 8, NPU_BOOL},   {"nf4", "NF4", 4, NPU_TYPE_UNDEFINED},
    {"f4e2m1", "F4E2M1", 4, NPU_TYPE_UNDEFINED}, {"f8e4m3", "FP8_E4M3", 8, NPU_TYPE_UNDEFINED},
    {"f8e5m2", "FP8_E5M2", 8, NPU_TYPE_UNDEFINED}, {"f8e8m0", "FP8_E8M0", 8, NPU_TYPE_UNDEFINED},
    {"string", "STRING", 0, NPU_TYPE_UNDEFINED}, {"dynamic", "DYNAMIC", 0, NPU_TYPE_UNDEFINED},
};
#define NPU__IR_ELEM_STRING 23u

/* Index into npu__ir_elems, or -1. by_precision: match the port precision. */
static int npu__ir_elem_find(const char *s, size_t n, int by_precision)
{
    size_t i;
    for (i = 0; i < NPU__COUNT_OF(npu__ir_elems); i++) {
        const char *name = by_precision ? npu__ir_elems[i].precision : npu__ir_elems[i].name;
        if (strlen(name) == n && memcmp(name, s, n) == 0) return (int)i;
    }
    if (by_precision && n == 7 && memcmp(s, "BOOLEAN", 7) == 0) return 17;
    if (by_precision && n == 2 && memcmp(s, "U1", 2) == 0) return 10;
    return -1;
}

enum { NPU__K_OTHER = 0, NPU__K_PARAM, NPU__K_CONST, NPU__K_RESULT, NPU__K_READ, NPU__K_ASSIGN };

enum {
    NPU__R_OTHER = 0, NPU__R_NET, NPU__R_LAYERS, NPU__R_LAYER, NPU__R_DATA, NPU__R_LRT, NPU__R_IN,
    NPU__R_OUT, NPU__R_PORT, NPU__R_DIM, NPU__R_PRT, NPU__R_PRT_ATTR, NPU__R_BODY, NPU__R_EDGES,
    NPU__R_EDGE
};

enum { NPU__W_COUNT = 0, NPU__W_FILL, NPU__W_EDGES, NPU__W_WRITE };

/* Private parts of the loaded object. */
typedef struct npu__ir_const {
    npu_ir_const pub;
    uint32_t has_rt_info;        /* the layer has its own <rt_info> child */
} npu__ir_const;

typedef struct npu__ir_layer_rec {  /* temporary: for the edge checks */
    uint32_t scope, id, kind, io;
    uint32_t edges_in;
    uint32_t name_len;
    size_t pos, name;
} npu__ir_layer_rec;

typedef struct npu__ir_port_rec {   /* temporary */
    uint32_t scope, layer, id;
    uint32_t dir;                   /* 0 input, 1 output */
    uint32_t elem;                  /* precision (npu__ir_elems index, 0 unknown) */
    uint32_t names;                 /* pool offset + 1 of the decoded names; 0 none */
} npu__ir_port_rec;

struct npu_ir {
    npu_context *ctx;
    const char *xml;
    size_t xml_len;
    const unsigned char *bin;
    uint64_t bin_size;
    void *xml_map, *bin_map;
    size_t xml_map_len, bin_map_len;
    char label[80];
    uint32_t version;
    uint32_t n_inputs, n_outputs, n_consts, n_states, n_var_layers;
    npu_ir_io *inputs, *outputs;
    npu__ir_const *consts;
    npu_ir_state *states;
    char *pool;
    size_t pool_cap, pool_used;
    int64_t batch;
    size_t arena_bytes;
    /* temporary tables (valid during loading only) */
    npu__ir_layer_rec *layers;
    npu__ir_port_rec *ports;
    uint32_t n_layers, n_ports;
};

typedef struct npu__ir_counts {
    uint32_t layers, ports, consts, inputs, outputs, var_layers, scopes;
    size_t pool;
    uint32_t version;
} npu__ir_counts;

#define NPU__IR_MAX_LAYER_NEST (NPU_IR_MAX_DEPTH / 3 + 1)
#define NPU__IR_MAX_VAR_LAYERS 16384u

typedef struct npu__irl {           /* an open <layer> */
    size_t pos, name, name_len;
    uint32_t id, scope, kind, index;
    int has_data, has_rt, rt_done, data_done;
    int elem;                       /* from <data element_type>, -1 none */
    int shape_given, shape_dynrank;
    uint32_t shape_rank;
    npu_shape shape;                /* first NPU_MAX_RANK dims */
    uint64_t elems;                 /* element count (dynamic dims: invalid for Const) */
    int elems_dynamic, elems_overflow;
    int has_offset, has_size;
    uint64_t offset, size;
    size_t data_pos;
    uint32_t n_in, n_out;           /* ports seen */
    /* the I/O port: Parameter's first output, Result's first input */
    int io_port_seen;
    uint32_t io_rank;
    npu_shape io_shape;
    int io_elem;
    char layout[NPU_LAYOUT_MAX];
    int layout_bad;
    uint32_t io_names;              /* pool offset + 1 */
    /* WRITE */
    int copy_to_blob;
    uint64_t blob_offset;
} npu__irl;

typedef struct npu__irw {
    npu__xml x;
    int mode;
    npu_ir *ir;                     /* FILL, EDGES, WRITE */
    int have_bin;                   /* bin size known (not a size query) */
    npu__ir_counts c;               /* running counts */
    unsigned char role[NPU_IR_MAX_DEPTH + 1];
    uint32_t scope_stack[NPU__IR_MAX_LAYER_NEST + 1];
    unsigned scope_depth;
    npu__irl lstack[NPU__IR_MAX_LAYER_NEST];
    unsigned ldepth;
    /* the open port */
    uint32_t port_dir, port_id, port_rank;
    int port_elem, port_is_io, port_dims_bad;
    int64_t port_dims[NPU_MAX_RANK];
    int dim_has_text;
    /* WRITE */
    npu__sink *sink;
    size_t copied;
    int layout_b;
    uint64_t threshold, blob_running;
    int64_t batch;
} npu__irw;

static void npu__irw_set_where(npu__irw *w)
{
    if (w->ldepth == 0) {
        w->x.where[0] = '\0';
    } else {
        const npu__irl *l = &w->lstack[w->ldepth - 1];
        size_t nl = l->name_len > 80 ? 80 : l->name_len;
        snprintf(w->x.where, sizeof w->x.where, " (layer '%.*s', id %lu%s)", (int)nl, w->x.s + l->name,
                 (unsigned long)l->id, l->scope ? ", in a <body>" : "");
    }
}

/* Parses an unsigned decimal in raw text [p, p+n) (surrounding spaces allowed). */
static int npu__ir_u64(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    size_t i = 0, e = n;
    uint64_t v = 0;
    npu__xml_trim(s, &i, &e);
    if (i == e) return 0;
    for (; i < e; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        if (v > (max - (uint64_t)(s[i] - '0')) / 10) return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 1;
}

/* "?" or "-1": a dynamic dimension. */
static int npu__ir_dim_dynamic(const char *s, size_t n)
{
    return (n == 1 && s[0] == '?') || (n == 2 && s[0] == '-' && s[1] == '1');
}

/* One dimension token: N, -1, ?, or a bounded A..B (dynamic; either bound may
 * be empty, B may be ? or -1). Returns 1 ok (value or NPU_DIM_DYNAMIC), 2 for
 * "..." (dynamic rank), 0 invalid. */
static int npu__ir_dim(const char *s, size_t n, int64_t *out)
{
    const uint64_t max = (uint64_t)NPU_IR_MAX_DIM_VALUE;
    size_t i = 0, e = n, k;
    uint64_t v;
    npu__xml_trim(s, &i, &e);
    s += i;
    n = e - i;
    if (n == 3 && memcmp(s, "...", 3) == 0) return 2;
    *out = NPU_DIM_DYNAMIC;
    if (npu__ir_dim_dynamic(s, n)) return 1;
    for (k = 0; k + 1 < n; k++) {
        if (s[k] == '.' && s[k + 1] == '.') {
            const char *hi = s + k + 2;
            size_t hi_len = n - k - 2;
            if (k > 0 && !npu__ir_u64(s, k, max, &v)) return 0;
            return hi_len == 0 || npu__ir_dim_dynamic(hi, hi_len) || npu__ir_u64(hi, hi_len, max, &v);
        }
    }
    if (!npu__ir_u64(s, n, max, &v)) return 0;
    *out = (int64_t)v;
    return 1;
}

/* Parses a shape attribute ("1,3,224,224", "?,16", "1..32,64", "" scalar). */
static npu_status npu__irw_shape_attr(npu__irw *w, const npu__xattr *a, npu__irl *l)
{
    const char *s = w->x.s + a->value;
    size_t n = a->value_len, i = 0, start = 0, e = n;
    l->shape_given = 1;
    l->shape_rank = 0;
    l->shape.rank = 0;
    l->elems = 1;
    npu__xml_trim(s, &i, &e);
    if (i == e) return NPU_OK;   /* "": a scalar */
    for (i = 0; i <= n; i++) {
        int64_t d;
        int r;
        if (i < n && s[i] != ',') continue;
        r = npu__ir_dim(s + start, i - start, &d);
        if (r == 2) {
            l->shape_dynrank = 1;
            l->elems_dynamic = 1;
        } else if (r == 0) {
            return npu__xml_fail(&w->x, a->value + start, NPU_ERR_PARSE,
                                 "shape \"%.*s\": invalid dimension (expected N <= 2^40, ?, -1 or A..B)",
                                 (int)(n > 100 ? 100 : n), s);
        } else {
            if (l->shape_rank >= NPU_IR_MAX_DIMS)
                return npu__xml_fail(&w->x, a->value, NPU_ERR_PARSE,
                                     "shape has more than NPU_IR_MAX_DIMS (%d) dims", NPU_IR_MAX_DIMS);
            if (l->shape_rank < NPU_MAX_RANK) l->shape.dims[l->shape_rank] = d;
            l->shape_rank++;
            if (d < 0) l->elems_dynamic = 1;
            else if (npu__mul_u64(l->elems, (uint64_t)d, &l->elems)) l->elems_overflow = 1;
        }
        start = i + 1;
    }
    l->shape.rank = l->shape_rank < NPU_MAX_RANK ? l->shape_rank : NPU_MAX_RANK;
    return NPU_OK;
}

static int npu__ir_layout_char(char c)
{
    return c == '?' || c == '.' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* "[N,C,H,W]" (rt_info) or "NCHW" -> "NCHW". Returns 0, with out "", when the
 * layout cannot be represented (a token other than a letter, '?' or "...", or
 * NPU_LAYOUT_MAX bytes or more); out is always terminated. */
static int npu__ir_layout_convert(const char *s, size_t n, char out[NPU_LAYOUT_MAX])
{
    size_t i = 0, e = n, len = 0;
    int ok = 1;
    npu__xml_trim(s, &i, &e);
    if (e - i >= 2 && s[i] == '[' && s[e - 1] == ']') {
        size_t start;
        e--;                          /* tokens between the brackets; "[]" is a scalar */
        for (start = ++i; ok && i < e && start <= e; start++) {
            size_t b = start, t;
            while (start < e && s[start] != ',') start++;
            t = start;
            npu__xml_trim(s, &b, &t);
            ok = ((t - b == 3 && memcmp(s + b, "...", 3) == 0) ||
                  (t - b == 1 && s[b] != '.' && npu__ir_layout_char(s[b]))) &&
                 len + (t - b) < NPU_LAYOUT_MAX;
            if (ok) memcpy(out + len, s + b, t - b);
            len += t - b;
        }
    } else {
        for (; ok && i < e; i++) {
            ok = npu__ir_layout_char(s[i]) && len + 1 < NPU_LAYOUT_MAX;
            out[len] = s[i];
            len += ok ? 1u : 0u;
        }
    }
    out[ok ? len : 0] = '\0';
    return ok;
}

/* Checks a layout against a rank; returns the batch axis (N, else 0; -1 for
 * scalars) or -2 when the layout does not fit. */
static int npu__ir_layout_axis(const char *layout, uint32_t rank)
{
    size_t n = strlen(layout), i;
    int ell = -1, nidx = -1;
    uint32_t letters = 0, before_n = 0, after_n = 0;
    for (i = 0; i < n; i++) {
        if (layout[i] == '.') {
            if (ell >= 0 || n - i < 3 || layout[i + 1] != '.' || layout[i + 2] != '.') return -2;
            ell = (int)letters;
            i += 2;
            continue;
        }
        if (layout[i] == 'N') {
            if (nidx >= 0) return -2;
            nidx = (int)letters;
        }
        letters++;
    }
    if (n > 0) {
        if (ell < 0 && letters != rank) return -2;
        if (ell >= 0 && letters > rank) return -2;
    }
    if (rank == 0) return -1;
    if (nidx < 0) return 0;
    before_n = (uint32_t)nidx;
    after_n = letters - before_n - 1;
    if (ell >= 0 && ell <= nidx) return (int)(rank - after_n - 1);
    return (int)before_n;
}

/* The counting pass and a later pass saw different text (caller memory or a
 * mapped file changed underneath). */
static npu_status npu__ir_changed(npu_context *ctx, const char *label)
{
    return npu__fail(ctx, NPU_ERR_STATE, "%s: the XML changed while it was being loaded", label);
}

static npu_status npu__irw_pool_string(npu__irw *w, size_t p, size_t n, uint32_t *off_plus1,
                                       const char **str)
{
    size_t len = npu__xml_decode(w->x.s + p, n, NULL);
    if (npu__add_size(w->c.pool, len + 1, &w->c.pool))
        return npu__xml_fail(&w->x, p, NPU_ERR_OVERFLOW, "string pool overflows");
    if (w->mode == NPU__W_FILL) {
        npu_ir *ir = w->ir;
        if (ir->pool_used + len + 1 > ir->pool_cap || ir->pool_used >= UINT32_MAX)
            return npu__ir_changed(w->x.ctx, w->x.label);
        npu__xml_decode(w->x.s + p, n, ir->pool + ir->pool_used);
        ir->pool[ir->pool_used + len] = '\0';
        if (off_plus1) *off_plus1 = (uint32_t)(ir->pool_used + 1);
        if (str) *str = ir->pool + ir->pool_used;
        ir->pool_used += len + 1;
    }
    return NPU_OK;
}

static void npu__irw_emit_upto(npu__irw *w, size_t pos)
{
    if (pos > w->copied) {
        npu__sink_put(w->sink, w->x.s + w->copied, pos - w->copied);
        w->copied = pos;
    }
}

static void npu__irw_emit_wpa(npu__irw *w, const npu__irl *l)
{
    const npu_ir *ir = w->ir;
    uint64_t mp = 0;
    if (ir->bin != NULL) mp = (uint64_t)(uintptr_t)(ir->bin + l->offset);
    npu__sink_str(w->sink, "<attribute name=\"WeightsPointerAttribute\" version=\"0\" mp=\"");
    npu__sink_u64_dec(w->sink, mp);
    npu__sink_str(w->sink, "\" ms=\"");
    npu__sink_u64_dec(w->sink, l->size);
    npu__sink_str(w->sink, "\"/>");
}

static int npu__irw_by_pointer(const npu__irw *w, const npu__irl *l)
{
    return w->mode == NPU__W_WRITE && w->layout_b && l->kind == NPU__K_CONST && !l->copy_to_blob;
}

static npu_status npu__irw_layer_start(npu__irw *w, const npu__xtok *t)
{
    npu__xattr a;
    npu__irl *l;
    uint64_t v;
    const char *name = "";
    int is_io;
    if (w->ldepth >= NPU__IR_MAX_LAYER_NEST)
        return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "layers nested too deeply");
    l = &w->lstack[w->ldepth];
    memset(l, 0, sizeof *l);
    l->pos = t->begin;
    l->elem = -1;
    l->io_elem = -1;
    l->scope = w->scope_stack[w->scope_depth];
    if (npu__xml_attr(&w->x, t, "name", &a)) {
        l->name = a.value;
        l->name_len = a.value_len;
    }
    w->ldepth++;
    npu__irw_set_where(w);
    if (!npu__xml_attr(&w->x, t, "id", &a))
        return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "<layer> without an id attribute");
    if (!npu__ir_u64(w->x.s + a.value, a.value_len, UINT32_MAX - 1u, &v))
        return npu__xml_fail(&w->x, a.value, NPU_ERR_PARSE, "layer id \"%.*s\" is not a number below 2^32",
                             (int)(a.value_len > 40 ? 40 : a.value_len), w->x.s + a.value);
    l->id = (uint32_t)v;
    npu__irw_set_where(w);
    if (!npu__xml_attr(&w->x, t, "type", &a))
        return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "<layer> without a type attribute");
    if (npu__xml_eq(&w->x, a.value, a.value_len, "Parameter")) l->kind = NPU__K_PARAM;
    else if (npu__xml_eq(&w->x, a.value, a.value_len, "Const")) l->kind = NPU__K_CONST;
    else if (npu__xml_eq(&w->x, a.value, a.value_len, "Result")) l->kind = NPU__K_RESULT;
    else if (npu__xml_eq(&w->x, a.value, a.value_len, "ReadValue")) l->kind = NPU__K_READ;
    else if (npu__xml_eq(&w->x, a.value, a.value_len, "Assign")) l->kind = NPU__K_ASSIGN;
    if (w->c.layers >= NPU_IR_MAX_LAYERS)
        return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "more than NPU_IR_MAX_LAYERS (%u) layers",
                             (unsigned)NPU_IR_MAX_LAYERS);
    if (w->mode == NPU__W_FILL) {
        npu_ir *ir = w->ir;
        npu__ir_layer_rec *r;
        if (w->c.layers >= ir->n_layers)
            return npu__ir_changed(w->x.ctx, w->x.label);
        r = &ir->layers[w->c.layers];
        r->scope = l->scope;
        r->id = l->id;
        r->kind = l->kind;
        r->io = UINT32_MAX;
        r->pos = l->pos;
        r->name = l->name;
        r->name_len = (uint32_t)l->name_len;
    }
    w->c.layers++;
    is_io = (l->kind == NPU__K_PARAM || l->kind == NPU__K_RESULT) && l->scope == 0;
    if (l->kind == NPU__K_CONST || is_io) {   /* listed: an index, and the name in the pool */
        uint32_t *count = l->kind == NPU__K_CONST ? &w->c.consts : l->kind == NPU__K_PARAM ? &w->c.inputs
                                                                                          : &w->c.outputs;
        l->index = (*count)++;
        if (w->mode != NPU__W_COUNT &&
            l->index >= (l->kind == NPU__K_CONST   ? w->ir->n_consts
                         : l->kind == NPU__K_PARAM ? w->ir->n_inputs
                                                   : w->ir->n_outputs))
            return npu__ir_changed(w->x.ctx, w->x.label);
        if (w->mode == NPU__W_COUNT || w->mode == NPU__W_FILL) {
            npu_status st = npu__irw_pool_string(w, l->name, l->name_len, NULL, &name);
            if (st != NPU_OK) return st;
        }
    }
    if (w->mode == NPU__W_FILL && l->kind == NPU__K_CONST) {
        npu_ir_const *k = &w->ir->consts[l->index].pub;
        k->layer_id = l->id;
        k->graph = l->scope;
        k->name = name;
    } else if (w->mode == NPU__W_FILL && is_io) {
        npu_ir_io *io = l->kind == NPU__K_PARAM ? &w->ir->inputs[l->index] : &w->ir->outputs[l->index];
        io->layer_id = l->id;
        io->desc.name = name;
        io->tensor_names = "";
        w->ir->layers[w->c.layers - 1].io = l->index;
    } else if (w->mode == NPU__W_WRITE && l->kind == NPU__K_CONST) {
        const npu__ir_const *k = &w->ir->consts[l->index];
        l->offset = k->pub.offset;
        l->size = k->pub.size;
        l->has_rt = (int)k->has_rt_info;
        l->copy_to_blob = w->layout_b && k->pub.size < w->threshold;
        if (l->copy_to_blob) {
            l->blob_offset = w->blob_running;
            w->blob_running += k->pub.size;
        }
    } else if (l->kind == NPU__K_READ || l->kind == NPU__K_ASSIGN) {
        if (++w->c.var_layers > NPU__IR_MAX_VAR_LAYERS)
            return npu__xml_fail(&w->x, t->begin, NPU_ERR_LIMIT,
                                 "more than %u ReadValue/Assign layers", NPU__IR_MAX_VAR_LAYERS);
    }
    return NPU_OK;
}

/* Counts ReadValue/Assign layers per variable. The id is decoded into the pool
 * for every layer (as the counting pass sized it); a repeated id's copy stays
 * unused. */
static npu_status npu__irw_add_variable(npu__irw *w, const npu__irl *l, const npu__xattr *a)
{
    npu_ir *ir = w->ir;
    const char *id = NULL;
    uint32_t i;
    npu_status st = npu__irw_pool_string(w, a->value, a->value_len, NULL, &id);
    if (st != NPU_OK || w->mode != NPU__W_FILL) return st;
    for (i = 0; i < ir->n_states && strcmp(ir->states[i].variable_id, id) != 0; i++) continue;
    if (i == ir->n_states) {
        if (ir->n_states >= ir->n_var_layers) return npu__ir_changed(w->x.ctx, w->x.label);
        ir->states[ir->n_states++].variable_id = id;
    }
    if (l->kind == NPU__K_READ) ir->states[i].read_values++;
    else ir->states[i].assigns++;
    return NPU_OK;
}

static npu_status npu__irw_data(npu__irw *w, const npu__xtok *t, npu__irl *l)
{
    npu__xattr a;
    npu_status st;
    if (l->has_data) return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "a second <data> element");
    l->has_data = 1;
    l->data_pos = t->begin;
    if (l->kind == NPU__K_PARAM || l->kind == NPU__K_CONST) {
        if (npu__xml_attr(&w->x, t, "element_type", &a)) {
            l->elem = npu__ir_elem_find(w->x.s + a.value, a.value_len, 0);
            if (l->elem < 0)
                return npu__xml_fail(&w->x, a.value, NPU_ERR_UNSUPPORTED, "unknown element_type \"%.*s\"",
                                     (int)(a.value_len > 40 ? 40 : a.value_len), w->x.s + a.value);
        }
        if (npu__xml_attr(&w->x, t, "shape", &a)) {
            st = npu__irw_shape_attr(w, &a, l);
            if (st != NPU_OK) return st;
            if (w->mode == NPU__W_WRITE && l->kind == NPU__K_PARAM && l->scope == 0 && w->batch > 0) {
                /* batch rewrite of the shape attribute */
                int axis = w->ir->inputs[l->index].batch_axis;
                size_t i, start = a.value, k = 0;
                for (i = a.value; axis >= 0 && i <= a.value + a.value_len; i++) {
                    if (i < a.value + a.value_len && w->x.s[i] != ',') continue;
                    if (k == (size_t)axis) {
                        size_t b = start, e = i;
                        npu__xml_trim(w->x.s, &b, &e);
                        npu__irw_emit_upto(w, b);
                        npu__sink_i64_dec(w->sink, w->batch);
                        w->copied = e;
                        break;
                    }
                    k++;
                    start = i + 1;
                }
            }
        }
    }
    if (l->kind == NPU__K_CONST) {
        npu__xattr off;
        if (l->elem < 0) return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "Const without element_type");
        if ((unsigned)l->elem == NPU__IR_ELEM_STRING)
            return npu__xml_fail(&w->x, t->begin, NPU_ERR_UNSUPPORTED, "string constants are not supported");
        if (!npu__xml_attr(&w->x, t, "offset", &off) ||
            !npu__ir_u64(w->x.s + off.value, off.value_len, UINT64_MAX, &l->offset))
            return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "Const without a numeric offset attribute");
        if (!npu__xml_attr(&w->x, t, "size", &a) ||
            !npu__ir_u64(w->x.s + a.value, a.value_len, UINT64_MAX, &l->size))
            return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "Const without a numeric size attribute");
        l->has_offset = l->has_size = 1;
        if (w->mode == NPU__W_WRITE && w->layout_b) {
            npu__irw_emit_upto(w, off.value);
            npu__sink_u64_dec(w->sink, l->copy_to_blob ? l->blob_offset : 0);
            w->copied = off.value + off.value_len;
        }
    }
    if (l->kind == NPU__K_READ || l->kind == NPU__K_ASSIGN) {
        if (!npu__xml_attr(&w->x, t, "variable_id", &a))
            return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "%s without a variable_id",
                                 l->kind == NPU__K_READ ? "ReadValue" : "Assign");
        if (w->mode == NPU__W_COUNT || w->mode == NPU__W_FILL) {
            st = npu__irw_add_variable(w, l, &a);
            if (st != NPU_OK) return st;
        }
    }
    return NPU_OK;
}

/* After the <data> element of a Const: add the pointer attribute when the
 * layer has no <rt_info> of its own. */
static void npu__irw_data_end(npu__irw *w, size_t end, npu__irl *l)
{
    l->data_done = 1;
    if (npu__irw_by_pointer(w, l) && !l->has_rt) {
        npu__irw_emit_upto(w, end);
        npu__sink_str(w->sink, "<rt_info>");
        npu__irw_emit_wpa(w, l);
        npu__sink_str(w->sink, "</rt_info>");
    }
}

static npu_status npu__irw_const_check(npu__irw *w, npu__irl *l)
{
    uint64_t bits, bytes, end;
    const npu__ir_elem *e;
    char shape[64];
    if (!l->has_data) return npu__xml_fail(&w->x, l->pos, NPU_ERR_PARSE, "Const without a <data> element");
    e = &npu__ir_elems[l->elem];
    if (!l->shape_given) {
        /* no shape attribute: the output port's dims */
        l->shape_rank = l->io_rank;
        l->shape = l->io_shape;
        l->elems = npu_shape_elements(&l->io_shape);
        if (l->io_rank > NPU_MAX_RANK) l->elems_overflow = 1;
        if (l->elems == 0 && l->io_rank <= NPU_MAX_RANK) {
            uint32_t i;
            for (i = 0; i < l->io_shape.rank; i++)
                if (l->io_shape.dims[i] < 0) l->elems_dynamic = 1;
        }
    }
    if (l->elems_dynamic || l->shape_dynrank)
        return npu__xml_fail(&w->x, l->data_pos, NPU_ERR_PARSE, "Const with a dynamic shape");
    if (l->elems_overflow || npu__mul_u64(l->elems, e->bits, &bits))
        return npu__xml_fail(&w->x, l->data_pos, NPU_ERR_PARSE, "Const shape: element count overflows");
    bytes = bits / 8 + (bits % 8 != 0);
    if (bytes != l->size)
        return npu__xml_fail(&w->x, l->data_pos, NPU_ERR_PARSE,
                             "Const size %llu does not match its shape %s%s of %s (%llu bytes)",
                             (unsigned long long)l->size, npu__shape_str(&l->shape, shape, sizeof shape),
                             l->shape_rank > NPU_MAX_RANK ? "..." : "", e->name, (unsigned long long)bytes);
    if (npu__add_u64(l->offset, l->size, &end) || (w->have_bin && end > w->ir->bin_size))
        return npu__xml_fail(&w->x, l->data_pos, NPU_ERR_FORMAT,
                             "Const bytes [%llu, %llu + %llu) lie beyond the end of the weights (%llu bytes%s)",
                             (unsigned long long)l->offset, (unsigned long long)l->offset,
                             (unsigned long long)l->size,
                             (unsigned long long)(w->have_bin ? w->ir->bin_size : 0),
                             w->have_bin && w->ir->bin == NULL ? "; no .bin" : "");
    if (w->mode == NPU__W_FILL) {
        npu__ir_const *k = &w->ir->consts[l->index];
        k->pub.element_type = e->name;
        k->pub.offset = l->offset;
        k->pub.size = l->size;
        k->pub.data = w->ir->bin != NULL ? (const void *)(w->ir->bin + l->offset) : NULL;
        k->has_rt_info = (uint32_t)l->has_rt;
    }
    return NPU_OK;
}

static npu_status npu__irw_io_end(npu__irw *w, npu__irl *l)
{
    npu_ir_io *io;
    int elem;
    if (l->kind == NPU__K_PARAM) {
        if (!l->shape_given) {
            if (!l->io_port_seen)
                return npu__xml_fail(&w->x, l->pos, NPU_ERR_PARSE, "Parameter without a shape or an output port");
            l->shape_rank = l->io_rank;
            l->shape = l->io_shape;
        }
        elem = l->elem >= 0 ? l->elem : l->io_elem;
        if (elem < 0)
            return npu__xml_fail(&w->x, l->pos, NPU_ERR_PARSE, "Parameter without an element_type");
    } else {
        if (!l->io_port_seen)
            return npu__xml_fail(&w->x, l->pos, NPU_ERR_PARSE, "Result without an input port");
        l->shape_rank = l->io_rank;
        l->shape = l->io_shape;
        elem = l->io_elem;   /* may be -1: taken from the producer after the edges */
    }
    if (l->shape_dynrank)
        return npu__xml_fail(&w->x, l->pos, NPU_ERR_UNSUPPORTED, "%s with a dynamic rank (\"...\")",
                             l->kind == NPU__K_PARAM ? "Parameter" : "Result");
    if (l->shape_rank > NPU_MAX_RANK)
        return npu__xml_fail(&w->x, l->pos, NPU_ERR_LIMIT, "%s of rank %lu: more than NPU_MAX_RANK (%d)",
                             l->kind == NPU__K_PARAM ? "Parameter" : "Result", (unsigned long)l->shape_rank,
                             NPU_MAX_RANK);
    if (l->layout[0] != '\0' && npu__ir_layout_axis(l->layout, l->shape_rank) == -2) {
        if (w->mode == NPU__W_FILL)
            npu__log(w->x.ctx, NPU_LOG_WARN, "%s: layer '%.*s': layout \"%s\" does not fit rank %lu; ignored",
                 w->x.label, (int)(l->name_len > 80 ? 80 : l->name_len), w->x.s + l->name, l->layout,
                 (unsigned long)l->shape_rank);
        l->layout[0] = '\0';
    }
    if (w->mode != NPU__W_FILL) return NPU_OK;
    io = l->kind == NPU__K_PARAM ? &w->ir->inputs[l->index] : &w->ir->outputs[l->index];
    io->desc.shape = l->shape;
    io->desc.shape.rank = l->shape_rank;
    io->element_type = npu__ir_elems[elem < 0 ? 0 : elem].name;
    io->desc.type = npu__ir_elems[elem < 0 ? 0 : elem].type;
    npu__strlcpy(io->desc.layout, l->layout, sizeof io->desc.layout);
    io->batch_axis = npu__ir_layout_axis(io->desc.layout, l->shape_rank);
    if (l->io_names) io->tensor_names = w->ir->pool + l->io_names - 1;
    return NPU_OK;
}

static npu_status npu__irw_port_start(npu__irw *w, const npu__xtok *t, npu__irl *l, uint32_t dir)
{
    npu__xattr a;
    uint64_t v;
    uint32_t names = 0;
    npu_status st;
    if (!npu__xml_attr(&w->x, t, "id", &a) || !npu__ir_u64(w->x.s + a.value, a.value_len, UINT32_MAX - 1u, &v))
        return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "<port> without a numeric id");
    w->port_dir = dir;
    w->port_id = (uint32_t)v;
    w->port_rank = 0;
    w->port_elem = 0;
    w->port_dims_bad = 0;
    if (npu__xml_attr(&w->x, t, "precision", &a)) {
        int e = npu__ir_elem_find(w->x.s + a.value, a.value_len, 1);
        w->port_elem = e < 0 ? 0 : e;
    }
    w->port_is_io = 0;
    if ((l->kind == NPU__K_PARAM && dir == 1 && l->n_out == 0) ||
        (l->kind == NPU__K_RESULT && dir == 0 && l->n_in == 0) ||
        (l->kind == NPU__K_CONST && dir == 1 && l->n_out == 0))
        w->port_is_io = 1;
    if (dir == 1 && l->scope == 0 && npu__xml_attr(&w->x, t, "names", &a) &&
        (w->mode == NPU__W_COUNT || w->mode == NPU__W_FILL)) {
        st = npu__irw_pool_string(w, a.value, a.value_len, &names, NULL);
        if (st != NPU_OK) return st;
    }
    if (w->port_is_io) l->io_names = names;
    if (dir == 1) l->n_out++;
    else l->n_in++;
    if (w->mode == NPU__W_FILL) {
        npu__ir_port_rec *p;
        if (w->c.ports >= w->ir->n_ports)
            return npu__ir_changed(w->x.ctx, w->x.label);
        p = &w->ir->ports[w->c.ports];
        p->scope = l->scope;
        p->layer = l->id;
        p->id = w->port_id;
        p->dir = dir;
        p->elem = (uint32_t)w->port_elem;
        p->names = names;
    }
    w->c.ports++;
    return NPU_OK;
}

static npu_status npu__irw_dim_text(npu__irw *w, const npu__xtok *t, npu__irl *l)
{
    int64_t d;
    const char *s = w->x.s + t->text;
    size_t n = t->text_end - t->text, i = 0, e = n;
    npu__xml_trim(s, &i, &e);
    if (i == e) return NPU_OK;   /* whitespace around the value */
    if (w->dim_has_text)
        return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "<dim> holds more than one value");
    w->dim_has_text = 1;
    if (npu__ir_dim(s, n, &d) != 1)
        return npu__xml_fail(&w->x, t->text, NPU_ERR_PARSE,
                             "<dim>%.*s</dim>: expected a number <= 2^40, -1 or ?", (int)(n > 40 ? 40 : n), s);
    if (w->port_is_io && w->port_rank < NPU_MAX_RANK) l->io_shape.dims[w->port_rank] = d;
    if (w->mode == NPU__W_WRITE && w->batch > 0 && w->port_is_io && l->kind == NPU__K_PARAM && l->scope == 0 &&
        w->ir->inputs[l->index].batch_axis == (int32_t)w->port_rank) {
        npu__irw_emit_upto(w, t->text);
        npu__sink_i64_dec(w->sink, w->batch);
        w->copied = t->text_end;
    }
    return NPU_OK;
}

static void npu__irw_port_end(npu__irw *w, npu__irl *l)
{
    if (!w->port_is_io) return;
    l->io_port_seen = 1;
    l->io_rank = w->port_rank;
    l->io_shape.rank = w->port_rank < NPU_MAX_RANK ? w->port_rank : NPU_MAX_RANK;
    l->io_elem = w->port_elem > 0 ? w->port_elem : -1;
}

static unsigned char npu__irw_role(const npu__irw *w, unsigned parent, const npu__xtok *t)
{
    const npu__xml *x = &w->x;
#define NPU__IS(lit) npu__xml_eq(x, t->name, t->name_len, lit)
    switch (parent) {
    case NPU__R_NET:
    case NPU__R_BODY:
        if (NPU__IS("layers")) return NPU__R_LAYERS;
        if (NPU__IS("edges")) return NPU__R_EDGES;
        return NPU__R_OTHER;
    case NPU__R_LAYERS: return NPU__IS("layer") ? NPU__R_LAYER : NPU__R_OTHER;
    case NPU__R_LAYER:
        if (NPU__IS("data")) return NPU__R_DATA;
        if (NPU__IS("rt_info")) return NPU__R_LRT;
        if (NPU__IS("input")) return NPU__R_IN;
        if (NPU__IS("output")) return NPU__R_OUT;
        if (NPU__IS("body")) return NPU__R_BODY;
        return NPU__R_OTHER;
    case NPU__R_IN:
    case NPU__R_OUT: return NPU__IS("port") ? NPU__R_PORT : NPU__R_OTHER;
    case NPU__R_PORT:
        if (NPU__IS("dim")) return NPU__R_DIM;
        if (NPU__IS("rt_info")) return NPU__R_PRT;
        return NPU__R_OTHER;
    case NPU__R_PRT: return NPU__IS("attribute") ? NPU__R_PRT_ATTR : NPU__R_OTHER;
    case NPU__R_EDGES: return NPU__IS("edge") ? NPU__R_EDGE : NPU__R_OTHER;
    default: return NPU__R_OTHER;
    }
#undef NPU__IS
}

static npu_status npu__irw_edge(npu__irw *w, const npu__xtok *t); /* 8c */

static npu_status npu__irw_start(npu__irw *w, const npu__xtok *t)
{
    npu__xml *x = &w->x;
    unsigned depth = t->self_closing ? x->depth : x->depth - 1;  /* depth of this element */
    unsigned char role;
    npu__irl *l = w->ldepth ? &w->lstack[w->ldepth - 1] : NULL;
    npu_status st = NPU_OK;
    if (depth == 0) {
        npu__xattr a;
        uint64_t v;
        if (!npu__xml_eq(x, t->name, t->name_len, "net"))
            return npu__xml_fail(x, t->begin, NPU_ERR_PARSE, "root element is <%.*s>, expected <net>",
                                 (int)t->name_len, x->s + t->name);
        if (!npu__xml_attr(x, t, "version", &a))
            return npu__xml_fail(x, t->begin, NPU_ERR_PARSE, "<net> has no version attribute");
        if (!npu__ir_u64(x->s + a.value, a.value_len, 1000000, &v) || (v != 10 && v != 11))
            return npu__xml_fail(x, a.value, NPU_ERR_UNSUPPORTED,
                                 "IR version \"%.*s\" is not supported (only 10 and 11)",
                                 (int)(a.value_len > 20 ? 20 : a.value_len), x->s + a.value);
        w->c.version = (uint32_t)v;
        role = NPU__R_NET;
    } else {
        role = npu__irw_role(w, w->role[depth - 1], t);
    }
    w->role[depth] = role;
    switch (role) {
    case NPU__R_LAYER:
        if (w->mode == NPU__W_EDGES) {
            /* only the scope numbering matters */
            if (w->ldepth >= NPU__IR_MAX_LAYER_NEST)
                return npu__xml_fail(x, t->begin, NPU_ERR_PARSE, "layers nested too deeply");
            w->lstack[w->ldepth++].scope = w->scope_stack[w->scope_depth];
            break;
        }
        st = npu__irw_layer_start(w, t);
        break;
    case NPU__R_DATA:
        if (w->mode == NPU__W_EDGES) break;
        st = npu__irw_data(w, t, l);
        if (st == NPU_OK && t->self_closing) npu__irw_data_end(w, t->end, l);
        break;
    case NPU__R_LRT:
        if (w->mode == NPU__W_EDGES || l->rt_done) break;
        l->has_rt = 1;
        l->rt_done = 1;
        if (npu__irw_by_pointer(w, l)) {
            if (t->self_closing) {
                npu__irw_emit_upto(w, t->begin);
                npu__sink_str(w->sink, "<rt_info>");
                npu__irw_emit_wpa(w, l);
                npu__sink_str(w->sink, "</rt_info>");
                w->copied = t->end;
            } else {
                npu__irw_emit_upto(w, t->end);
                npu__irw_emit_wpa(w, l);
            }
        }
        break;
    case NPU__R_PORT:
        if (w->mode == NPU__W_EDGES) break;
        st = npu__irw_port_start(w, t, l, w->role[depth - 1] == NPU__R_OUT ? 1u : 0u);
        if (st == NPU_OK && t->self_closing) npu__irw_port_end(w, l);
        break;
    case NPU__R_DIM:
        if (w->mode == NPU__W_EDGES) break;
        if (t->self_closing) return npu__xml_fail(x, t->begin, NPU_ERR_PARSE, "empty <dim/>");
        w->dim_has_text = 0;
        break;
    case NPU__R_PRT_ATTR:
        if (w->mode == NPU__W_EDGES || !w->port_is_io) break;
        {
            npu__xattr a;
            if (npu__xml_attr(x, t, "name", &a) && npu__xml_eq(x, a.value, a.value_len, "layout") &&
                npu__xml_attr(x, t, "layout", &a)) {
                if (!npu__ir_layout_convert(x->s + a.value, a.value_len, l->layout) && w->mode == NPU__W_FILL)
                    npu__log(x->ctx, NPU_LOG_WARN, "%s: layout \"%.*s\" cannot be represented; ignored", x->label,
                             (int)(a.value_len > 60 ? 60 : a.value_len), x->s + a.value);
            }
        }
        break;
    case NPU__R_BODY:
        if (w->scope_depth >= NPU__IR_MAX_LAYER_NEST)
            return npu__xml_fail(x, t->begin, NPU_ERR_PARSE, "<body> nested too deeply");
        if (w->c.scopes >= UINT32_MAX - 1u)
            return npu__xml_fail(x, t->begin, NPU_ERR_PARSE, "too many <body> elements");
        w->scope_stack[++w->scope_depth] = ++w->c.scopes;
        if (t->self_closing) w->scope_depth--;
        break;
    case NPU__R_EDGE:
        st = npu__irw_edge(w, t);
        break;
    default:
        break;
    }
    return st;
}

static npu_status npu__irw_layer_end(npu__irw *w, size_t end)
{
    npu__irl *l = &w->lstack[w->ldepth - 1];
    npu_status st = NPU_OK;
    (void)end;
    if (w->mode != NPU__W_EDGES) {
        if (l->kind == NPU__K_CONST) st = npu__irw_const_check(w, l);
        else if ((l->kind == NPU__K_PARAM || l->kind == NPU__K_RESULT) && l->scope == 0) st = npu__irw_io_end(w, l);
        else if ((l->kind == NPU__K_READ || l->kind == NPU__K_ASSIGN) && !l->has_data)
            st = npu__xml_fail(&w->x, l->pos, NPU_ERR_PARSE, "%s without <data variable_id=...>",
                               l->kind == NPU__K_READ ? "ReadValue" : "Assign");
    }
    if (st != NPU_OK) return st;
    w->ldepth--;
    npu__irw_set_where(w);
    return NPU_OK;
}

static npu_status npu__irw_end(npu__irw *w, const npu__xtok *t)
{
    unsigned depth = w->x.depth;   /* the scanner already popped the element */
    unsigned char role = w->role[depth];
    npu__irl *l = w->ldepth ? &w->lstack[w->ldepth - 1] : NULL;
    if (w->mode == NPU__W_EDGES) {
        if (role == NPU__R_LAYER) w->ldepth--;
        else if (role == NPU__R_BODY) w->scope_depth--;
        return NPU_OK;
    }
    switch (role) {
    case NPU__R_LAYER: return npu__irw_layer_end(w, t->end);
    case NPU__R_DATA: npu__irw_data_end(w, t->end, l); break;
    case NPU__R_PORT: npu__irw_port_end(w, l); break;
    case NPU__R_DIM:
        if (!w->dim_has_text) return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "empty <dim>");
        if (++w->port_rank > NPU_IR_MAX_DIMS)
            return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "port with more than NPU_IR_MAX_DIMS (%d) dims",
                                 NPU_IR_MAX_DIMS);
        break;
    case NPU__R_BODY: w->scope_depth--; break;
    default: break;
    }
    return NPU_OK;
}

/* Runs one walk over the whole document. */
static npu_status npu__irw_run(npu__irw *w)
{
    npu__xtok t;
    npu_status st;
    for (;;) {
        st = npu__xml_next(&w->x, &t);
        if (st != NPU_OK) return st;
        if (t.kind == NPU__X_EOF) break;
        if (t.kind == NPU__X_START) {
            st = npu__irw_start(w, &t);
            if (st == NPU_OK && t.self_closing) {
                unsigned char role = w->role[w->x.depth];
                if (role == NPU__R_LAYER) {
                    if (w->mode == NPU__W_EDGES) w->ldepth--;
                    else st = npu__irw_layer_end(w, t.end);
                }
            }
        } else if (t.kind == NPU__X_END) {
            st = npu__irw_end(w, &t);
        } else if (t.kind == NPU__X_TEXT && w->x.depth > 0 && w->role[w->x.depth - 1] == NPU__R_DIM &&
                   w->mode != NPU__W_EDGES) {
            st = npu__irw_dim_text(w, &t, &w->lstack[w->ldepth - 1]);
        }
        if (st != NPU_OK) return st;
    }
    if (w->mode == NPU__W_WRITE) npu__irw_emit_upto(w, w->x.n);
    return NPU_OK;
}

/* ---- 8c. Loading ----------------------------------------------------------- */

static int npu__ir_layer_cmp(const void *pa, const void *pb)
{
    const npu__ir_layer_rec *a = (const npu__ir_layer_rec *)pa, *b = (const npu__ir_layer_rec *)pb;
    if (a->scope != b->scope) return a->scope < b->scope ? -1 : 1;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return 0;
}

static int npu__ir_port_cmp(const void *pa, const void *pb)
{
    const npu__ir_port_rec *a = (const npu__ir_port_rec *)pa, *b = (const npu__ir_port_rec *)pb;
    if (a->scope != b->scope) return a->scope < b->scope ? -1 : 1;
    if (a->layer != b->layer) return a->layer < b->layer ? -1 : 1;
    if (a->dir != b->dir) return a->dir < b->dir ? -1 : 1;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return 0;
}

static void npu__swap_bytes(unsigned char *a, unsigned char *b, size_t size)
{
    while (size-- > 0) {
        unsigned char t = *a;
        *a++ = *b;
        *b++ = t;
    }
}

/* Moves element `root` down into the max-heap b[0..n). */
static void npu__sift_down(unsigned char *b, size_t root, size_t n, size_t size,
                           int (*cmp)(const void *, const void *))
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && cmp(b + child * size, b + (child + 1) * size) < 0) child++;
        if (cmp(b + root * size, b + child * size) >= 0) return;
        npu__swap_bytes(b + root * size, b + child * size, size);
        root = child;
    }
}

/* In-place heap sort: libc qsort may allocate. */
static void npu__heapsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    unsigned char *b = (unsigned char *)base;
    size_t i;
    for (i = n / 2; i-- > 0;) npu__sift_down(b, i, n, size, cmp);
    for (i = n; i-- > 1;) {
        npu__swap_bytes(b, b + i * size, size);
        npu__sift_down(b, 0, i, size, cmp);
    }
}

/* Lookups in the sorted tables (libc bsearch: no allocation). */
static npu__ir_layer_rec *npu__ir_find_layer(const npu_ir *ir, uint32_t scope, uint32_t id)
{
    npu__ir_layer_rec key;
    key.scope = scope;
    key.id = id;
    return (npu__ir_layer_rec *)bsearch(&key, ir->layers, ir->n_layers, sizeof key, npu__ir_layer_cmp);
}

static const npu__ir_port_rec *npu__ir_find_port(const npu_ir *ir, uint32_t scope, uint32_t layer, uint32_t id,
                                                 uint32_t dir)
{
    npu__ir_port_rec key;
    key.scope = scope;
    key.layer = layer;
    key.id = id;
    key.dir = dir;
    return (const npu__ir_port_rec *)bsearch(&key, ir->ports, ir->n_ports, sizeof key, npu__ir_port_cmp);
}

static npu_status npu__irw_edge(npu__irw *w, const npu__xtok *t)
{
    static const char *const names[4] = {"from-layer", "from-port", "to-layer", "to-port"};
    uint32_t v[4], scope = w->scope_stack[w->scope_depth];
    const char *in_body = scope ? " in this <body>" : "";
    npu__xattr a;
    npu__ir_layer_rec *from, *to;
    const npu__ir_port_rec *fp;
    npu_ir *ir = w->ir;
    unsigned i;
    for (i = 0; i < 4; i++) {
        uint64_t x;
        if (!npu__xml_attr(&w->x, t, names[i], &a) || !npu__ir_u64(w->x.s + a.value, a.value_len, UINT32_MAX - 1u, &x))
            return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "<edge> without a numeric %s attribute", names[i]);
        v[i] = (uint32_t)x;
    }
    if (w->mode != NPU__W_EDGES) return NPU_OK;
    from = npu__ir_find_layer(ir, scope, v[0]);
    if (from == NULL)
        return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "edge from-layer %lu: no layer with that id%s",
                             (unsigned long)v[0], in_body);
    to = npu__ir_find_layer(ir, scope, v[2]);
    if (to == NULL)
        return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "edge to-layer %lu: no layer with that id%s",
                             (unsigned long)v[2], in_body);
    fp = npu__ir_find_port(ir, scope, v[0], v[1], 1);
    if (fp == NULL)
        return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE,
                             "edge from-layer %lu from-port %lu: layer '%.*s' has no output port %lu%s",
                             (unsigned long)v[0], (unsigned long)v[1], (int)(from->name_len > 80 ? 80 : from->name_len),
                             w->x.s + from->name, (unsigned long)v[1], in_body);
    if (npu__ir_find_port(ir, scope, v[2], v[3], 0) == NULL) {
        unsigned long line, col;
        npu__xml_linecol(&w->x, t->begin, &line, &col);
        npu__log(w->x.ctx, NPU_LOG_WARN, "%s line %lu: edge to-layer %lu to-port %lu: layer '%.*s' has no input port %lu",
                 w->x.label, line, (unsigned long)v[2], (unsigned long)v[3],
                 (int)(to->name_len > 80 ? 80 : to->name_len), w->x.s + to->name, (unsigned long)v[3]);
    }
    to->edges_in++;
    if (to->kind == NPU__K_RESULT && scope == 0 && to->io < ir->n_outputs) {
        npu_ir_io *out = &ir->outputs[to->io];
        if (fp->names) out->tensor_names = ir->pool + fp->names - 1;
        if (strcmp(out->element_type, "undefined") == 0 && fp->elem > 0) {
            out->element_type = npu__ir_elems[fp->elem].name;
            out->desc.type = npu__ir_elems[fp->elem].type;
        }
    }
    return NPU_OK;
}

static void npu__irw_init(npu__irw *w, int mode, npu_context *ctx, const char *label, const char *xml, size_t n,
                          npu_ir *ir)
{
    memset(w, 0, sizeof *w);
    w->mode = mode;
    w->ir = ir;
    w->x.s = xml;
    w->x.n = n;
    w->x.ctx = ctx;
    w->x.label = label;
    if (n >= 3 && memcmp(xml, "\xEF\xBB\xBF", 3) == 0) w->x.pos = w->x.start = 3;  /* byte order mark */
}

static npu_status npu__ir_count(npu_context *ctx, const char *label, const char *xml, size_t n, npu__ir_counts *c)
{
    npu__irw w;
    npu_status st;
    if (n == 0) return npu__fail(ctx, NPU_ERR_PARSE, "%s line 1, column 1: empty XML", label);
    if (n > NPU_IR_MAX_XML_BYTES)
        return npu__fail(ctx, NPU_ERR_LIMIT, "%s: %zu bytes of XML exceed NPU_IR_MAX_XML_BYTES (%zu)", label, n,
                         NPU_IR_MAX_XML_BYTES);
    npu__irw_init(&w, NPU__W_COUNT, ctx, label, xml, n, NULL);
    st = npu__irw_run(&w);
    if (st != NPU_OK) return st;
    *c = w.c;
    return NPU_OK;
}

/* Arena bytes: the object and its persistent tables; the temporary tables. */
static int npu__ir_sizes(const npu__ir_counts *c, size_t *persist, size_t *temp);

/* The counting pass and the arena bytes it implies (persist + temp fits size_t). */
static npu_status npu__ir_query(npu_context *ctx, const char *label, const char *xml, size_t n, npu__ir_counts *c,
                                size_t *persist, size_t *temp)
{
    size_t total;
    npu_status st;
    *persist = *temp = 0;
    st = npu__ir_count(ctx, label, xml, n, c);
    if (st != NPU_OK) return st;
    if (npu__ir_sizes(c, persist, temp) || npu__add_size(*persist, *temp, &total))
        return npu__fail(ctx, NPU_ERR_OVERFLOW, "%s: the IR's tables overflow size_t", label);
    return NPU_OK;
}

static int npu__ir_sizes(const npu__ir_counts *c, size_t *persist, size_t *temp)
{
    size_t parts[6], p = 0, t = 0, tmp;
    unsigned i;
    if (npu__mul_size(c->inputs, sizeof(npu_ir_io), &parts[0]) ||
        npu__mul_size(c->outputs, sizeof(npu_ir_io), &parts[1]) ||
        npu__mul_size(c->consts, sizeof(npu__ir_const), &parts[2]) ||
        npu__mul_size(c->var_layers, sizeof(npu_ir_state), &parts[3]))
        return 1;
    parts[4] = c->pool;
    parts[5] = sizeof(npu_ir);
    for (i = 0; i < 6; i++) {
        if (parts[i] > SIZE_MAX - NPU_ARENA_ALIGN || npu__add_size(p, NPU_ARENA_ROUND(parts[i]), &p)) return 1;
    }
    if (npu__mul_size(c->layers, sizeof(npu__ir_layer_rec), &tmp) || tmp > SIZE_MAX - NPU_ARENA_ALIGN) return 1;
    t = NPU_ARENA_ROUND(tmp);
    if (npu__mul_size(c->ports, sizeof(npu__ir_port_rec), &tmp) || tmp > SIZE_MAX - NPU_ARENA_ALIGN ||
        npu__add_size(t, NPU_ARENA_ROUND(tmp), &t))
        return 1;
    *persist = p;
    *temp = t;
    return 0;
}

static npu_status npu__ir_load(npu_arena *arena, npu_context *ctx, const char *label, const char *xml,
                               size_t xml_len, const void *bin, uint64_t bin_size, npu_ir **out)
{
    npu__ir_counts c;
    size_t persist, temp, total, mark, i;
    unsigned char *mem;
    npu_ir *ir;
    npu__irw w;
    npu_status st;
    st = npu__ir_query(ctx, label, xml, xml_len, &c, &persist, &temp);
    if (st != NPU_OK) return st;
    /* one block: the object, then the temporary tables, given back at the end */
    mark = arena->used;
    total = persist + temp;
    mem = (unsigned char *)npu__alloc(arena, ctx, total, "the IR");
    if (mem == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    ir = (npu_ir *)mem;
    mem += NPU_ARENA_ROUND(sizeof(npu_ir));
    ir->inputs = (npu_ir_io *)mem;
    mem += NPU_ARENA_ROUND(c.inputs * sizeof(npu_ir_io));
    ir->outputs = (npu_ir_io *)mem;
    mem += NPU_ARENA_ROUND(c.outputs * sizeof(npu_ir_io));
    ir->consts = (npu__ir_const *)mem;
    mem += NPU_ARENA_ROUND(c.consts * sizeof(npu__ir_const));
    ir->states = (npu_ir_state *)mem;
    mem += NPU_ARENA_ROUND(c.var_layers * sizeof(npu_ir_state));
    ir->pool = (char *)mem;
    ir->pool_cap = c.pool;
    ir->ctx = ctx;
    ir->xml = xml;
    ir->xml_len = xml_len;
    ir->bin = (const unsigned char *)bin;
    ir->bin_size = bin != NULL ? bin_size : 0;
    npu__strlcpy(ir->label, label, sizeof ir->label);
    ir->version = c.version;
    ir->n_inputs = c.inputs;
    ir->n_outputs = c.outputs;
    ir->n_consts = c.consts;
    ir->n_var_layers = c.var_layers;
    ir->n_layers = c.layers;
    ir->n_ports = c.ports;
    ir->arena_bytes = persist;
    mem = (unsigned char *)ir + persist;
    ir->layers = (npu__ir_layer_rec *)mem;
    ir->ports = (npu__ir_port_rec *)(mem + NPU_ARENA_ROUND(c.layers * sizeof(npu__ir_layer_rec)));

    npu__irw_init(&w, NPU__W_FILL, ctx, ir->label, xml, xml_len, ir);
    w.have_bin = 1;
    st = npu__irw_run(&w);
    if (st == NPU_OK && (w.c.layers != c.layers || w.c.ports != c.ports || w.c.consts != c.consts ||
                         w.c.inputs != c.inputs || w.c.outputs != c.outputs || w.c.var_layers != c.var_layers))
        st = npu__ir_changed(ctx, label);
    if (st == NPU_OK) {
        npu__heapsort(ir->layers, ir->n_layers, sizeof *ir->layers, npu__ir_layer_cmp);
        npu__heapsort(ir->ports, ir->n_ports, sizeof *ir->ports, npu__ir_port_cmp);
        for (i = 1; i < ir->n_layers && st == NPU_OK; i++) {
            if (npu__ir_layer_cmp(&ir->layers[i - 1], &ir->layers[i]) == 0) {
                const npu__ir_layer_rec *a = &ir->layers[i - 1], *b = &ir->layers[i];
                size_t later = a->pos > b->pos ? a->pos : b->pos, earlier = a->pos > b->pos ? b->pos : a->pos;
                unsigned long l0, c0;
                npu__xml_linecol(&w.x, earlier, &l0, &c0);
                w.x.where[0] = '\0';
                st = npu__xml_fail(&w.x, later, NPU_ERR_PARSE, "duplicate layer id %lu (first used on line %lu)%s",
                                   (unsigned long)b->id, l0, b->scope ? " in a <body>" : "");
            }
        }
    }
    if (st == NPU_OK) {
        npu__irw_init(&w, NPU__W_EDGES, ctx, ir->label, xml, xml_len, ir);
        st = npu__irw_run(&w);
    }
    for (i = 0; i < ir->n_layers && st == NPU_OK; i++) {
        const npu__ir_layer_rec *r = &ir->layers[i];
        if (r->kind == NPU__K_RESULT && r->scope == 0 && r->edges_in == 0) {
            snprintf(w.x.where, sizeof w.x.where, " (layer '%.*s', id %lu)", (int)(r->name_len > 80 ? 80 : r->name_len),
                     xml + r->name, (unsigned long)r->id);
            st = npu__xml_fail(&w.x, r->pos, NPU_ERR_PARSE, "Result layer without an incoming edge");
        }
    }
    if (st != NPU_OK) {
        npu_arena_rewind(arena, mark);
        return st;
    }
    for (i = 0; i < (size_t)ir->n_inputs + ir->n_outputs; i++) {
        npu_ir_io *io = i < ir->n_inputs ? &ir->inputs[i] : &ir->outputs[i - ir->n_inputs];
        int e = npu__ir_elem_find(io->element_type, strlen(io->element_type), 0);
        uint64_t bits;
        if (e < 0 || npu__mul_u64(npu__shape_elements_dyn1(&io->desc.shape), npu__ir_elems[e].bits, &bits)) bits = 0;
        io->desc.bytes = bits / 8 + (bits % 8 != 0);
    }
    ir->layers = NULL;
    ir->ports = NULL;
    npu_arena_rewind(arena, mark + persist);
    *out = ir;
    return NPU_OK;
}

npu_status npu_ir_size(npu_context *ctx, const char *xml, size_t xml_len, size_t *bytes)
{
    npu__ir_counts c;
    size_t persist, temp;
    npu_status st;
    if (xml == NULL || bytes == NULL) return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_ir_size: NULL argument");
    st = npu__ir_query(ctx, "IR XML", xml, xml_len, &c, &persist, &temp);
    if (st == NPU_OK) *bytes = persist + temp;
    return st;
}

npu_status npu_ir_load_memory(npu_arena *arena, npu_context *ctx, const char *xml, size_t xml_len,
                              const void *weights, uint64_t weights_size, npu_ir **out)
{
    if (out != NULL) *out = NULL;
    if (arena == NULL || xml == NULL || out == NULL || (weights == NULL && weights_size != 0))
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT,
                         "npu_ir_load_memory: NULL arena, xml or out, or NULL weights with a nonzero size");
    return npu__ir_load(arena, ctx, "IR XML", xml, xml_len, weights, weights_size, out);
}

/* Maps a whole file read-only. A zero-length file gives *map NULL. */
static npu_status npu__ir_map(npu_context *ctx, const char *path, int missing_ok, void **map, size_t *len,
                              int *missing)
{
    struct stat sb;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    *map = NULL;
    *len = 0;
    if (missing) *missing = 0;
    if (fd < 0) {
        if (missing_ok && errno == ENOENT) {
            *missing = 1;
            return NPU_OK;
        }
        return npu__fail(ctx, NPU_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return npu__fail(ctx, NPU_ERR_IO, "'%s' is not a regular file", path);
    }
    if ((uint64_t)sb.st_size > (uint64_t)SIZE_MAX) {
        close(fd);
        return npu__fail(ctx, NPU_ERR_IO, "'%s' is too large to map", path);
    }
    if (sb.st_size > 0) {
        void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            return npu__fail(ctx, NPU_ERR_IO, "cannot map '%s': %s", path, strerror(e));
        }
        *map = p;
        *len = (size_t)sb.st_size;
    }
    close(fd);
    return NPU_OK;
}

static const char *npu__ir_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

npu_status npu_ir_size_file(npu_context *ctx, const char *xml_path, size_t *bytes)
{
    void *map;
    size_t len, persist, temp;
    npu__ir_counts c;
    npu_status st;
    if (xml_path == NULL || bytes == NULL)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_ir_size_file: NULL argument");
    st = npu__ir_map(ctx, xml_path, 0, &map, &len, NULL);
    if (st != NPU_OK) return st;
    st = npu__ir_query(ctx, npu__ir_basename(xml_path), (const char *)map, len, &c, &persist, &temp);
    if (map != NULL) munmap(map, len);
    if (st == NPU_OK) *bytes = persist + temp;
    return st;
}

npu_status npu_ir_open(npu_arena *arena, npu_context *ctx, const char *xml_path, const char *bin_path,
                       npu_ir **out)
{
    char derived[4096];
    void *xml_map = NULL, *bin_map = NULL;
    size_t xml_len = 0, bin_len = 0;
    int missing = 0;
    npu_status st;
    if (out != NULL) *out = NULL;
    if (arena == NULL || xml_path == NULL || out == NULL)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_ir_open: NULL arena, xml_path or out");
    if (bin_path == NULL) {
        size_t n = strlen(xml_path);
        if (n + 5 > sizeof derived) return npu__fail(ctx, NPU_ERR_IO, "path too long: '%s'", xml_path);
        memcpy(derived, xml_path, n + 1);
        if (n >= 4 && strcmp(derived + n - 4, ".xml") == 0) n -= 4;
        memcpy(derived + n, ".bin", 5);
    }
    st = npu__ir_map(ctx, xml_path, 0, &xml_map, &xml_len, NULL);
    if (st != NPU_OK) return st;
    st = npu__ir_map(ctx, bin_path ? bin_path : derived, bin_path == NULL, &bin_map, &bin_len, &missing);
    if (st == NPU_OK) {
        const char *xml = xml_map ? (const char *)xml_map : "";
        /* a zero-length .bin maps to nothing: use a non-NULL empty base */
        const void *bin = bin_map ? bin_map : (missing ? NULL : (const void *)"");
        st = npu__ir_load(arena, ctx, npu__ir_basename(xml_path), xml, xml_len, bin, bin_len, out);
    }
    if (st != NPU_OK) {
        if (xml_map) munmap(xml_map, xml_len);
        if (bin_map) munmap(bin_map, bin_len);
        return st;
    }
    (*out)->xml_map = xml_map;
    (*out)->xml_map_len = xml_len;
    (*out)->bin_map = bin_map;
    (*out)->bin_map_len = bin_len;
    return NPU_OK;
}

void npu_ir_close(npu_ir *ir)
{
    if (ir == NULL) return;
    if (ir->xml_map) munmap(ir->xml_map, ir->xml_map_len);
    if (ir->bin_map) munmap(ir->bin_map, ir->bin_map_len);
    ir->xml_map = ir->bin_map = NULL;
    ir->xml = NULL;
    ir->xml_len = 0;
    ir->bin = NULL;
    ir->bin_size = 0;
    ir->n_inputs = ir->n_outputs = ir->n_consts = ir->n_states = 0;
}

/* ---- accessors and settings ------------------------------------------------ */

size_t npu_ir_arena_bytes(const npu_ir *ir) { return ir ? ir->arena_bytes : 0; }
uint32_t npu_ir_version(const npu_ir *ir) { return ir ? ir->version : 0; }

const void *npu_ir_weights(const npu_ir *ir, uint64_t *size)
{
    if (size) *size = ir ? ir->bin_size : 0;
    return ir ? ir->bin : NULL;
}

uint32_t npu_ir_input_count(const npu_ir *ir) { return ir ? ir->n_inputs : 0; }
uint32_t npu_ir_output_count(const npu_ir *ir) { return ir ? ir->n_outputs : 0; }
uint32_t npu_ir_const_count(const npu_ir *ir) { return ir ? ir->n_consts : 0; }
uint32_t npu_ir_state_count(const npu_ir *ir) { return ir ? ir->n_states : 0; }

const npu_ir_io *npu_ir_input(const npu_ir *ir, uint32_t index)
{
    return ir && index < ir->n_inputs ? &ir->inputs[index] : NULL;
}

const npu_ir_io *npu_ir_output(const npu_ir *ir, uint32_t index)
{
    return ir && index < ir->n_outputs ? &ir->outputs[index] : NULL;
}

const npu_ir_const *npu_ir_const_at(const npu_ir *ir, uint32_t index)
{
    return ir && index < ir->n_consts ? &ir->consts[index].pub : NULL;
}

const npu_ir_state *npu_ir_state_at(const npu_ir *ir, uint32_t index)
{
    return ir && index < ir->n_states ? &ir->states[index] : NULL;
}

npu_status npu_ir_set_layout(npu_ir *ir, int is_output, uint32_t index, const char *layout)
{
    npu_ir_io *io;
    size_t n, i;
    int axis;
    if (ir == NULL || layout == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (index >= (is_output ? ir->n_outputs : ir->n_inputs))
        return npu__fail(ir->ctx, NPU_ERR_NOT_FOUND, "%s: no %s %lu (the IR has %lu)", ir->label,
                         is_output ? "output" : "input", (unsigned long)index,
                         (unsigned long)(is_output ? ir->n_outputs : ir->n_inputs));
    io = is_output ? &ir->outputs[index] : &ir->inputs[index];
    n = strlen(layout);
    for (i = 0; i < n && npu__ir_layout_char(layout[i]); i++) continue;
    axis = (i == n && n < NPU_LAYOUT_MAX) ? npu__ir_layout_axis(layout, io->desc.shape.rank) : -2;
    if (axis == -2)
        return npu__fail(ir->ctx, NPU_ERR_INVALID_ARGUMENT,
                         "%s '%s': layout \"%.20s\" is not valid for rank %lu (letters, '?', one \"...\")",
                         is_output ? "output" : "input", io->desc.name, layout, (unsigned long)io->desc.shape.rank);
    memcpy(io->desc.layout, layout, n + 1);
    io->batch_axis = axis;
    return NPU_OK;
}

npu_status npu_ir_set_batch(npu_ir *ir, int64_t batch, int64_t *original_batch)
{
    uint32_t i;
    int found = 0, dynamic = 0;
    int64_t n = 0;
    const char *first = NULL;
    if (ir == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (batch < 0)
        return npu__fail(ir->ctx, NPU_ERR_INVALID_ARGUMENT, "%s: batch %lld is negative", ir->label, (long long)batch);
    for (i = 0; i < ir->n_inputs; i++) {
        const npu_ir_io *io = &ir->inputs[i];
        int64_t d;
        if (io->batch_axis < 0 || (uint32_t)io->batch_axis >= io->desc.shape.rank) continue;
        d = io->desc.shape.dims[io->batch_axis];
        found = 1;
        if (d < 0) {
            dynamic = 1;
            continue;
        }
        if (first != NULL && d != n)
            return npu__fail(ir->ctx, NPU_ERR_SHAPE,
                             "%s: inputs declare different batches: '%s' has %lld on axis %ld, '%s' has %lld",
                             ir->label, first, (long long)n, (long)ir->inputs[i].batch_axis, io->desc.name,
                             (long long)d);
        if (first == NULL) {
            first = io->desc.name;
            n = d;
        }
    }
    if (!found) return npu__fail(ir->ctx, NPU_ERR_NOT_FOUND, "%s: no input has a batch axis", ir->label);
    ir->batch = batch;
    if (original_batch) *original_batch = dynamic ? NPU_DIM_DYNAMIC : n;
    return NPU_OK;
}

/* ---- 8d. Payload writer ------------------------------------------------------ */

npu_status npu_ir_write_payload(const npu_ir *ir, const npu_payload_options *opts, void *dst, size_t cap,
                                size_t *size)
{
    npu_payload_options o;
    npu__sink sink;
    npu__payload p;
    npu__irw w;
    npu_status st;
    uint32_t i;
    if (ir == NULL || size == NULL) return NPU_ERR_INVALID_ARGUMENT;
    memset(&o, 0, sizeof o);
    if (opts != NULL) o = *opts;
    if (ir->xml == NULL) return npu__fail(ir->ctx, NPU_ERR_STATE, "%s: the IR was closed", ir->label);
    if (o.compiler_version == 0)
        return npu__fail(ir->ctx, NPU_ERR_INVALID_ARGUMENT, "%s: payload options: compiler_version is 0", ir->label);
    if ((unsigned)o.layout > (unsigned)NPU_PAYLOAD_WEIGHTS_COPY)
        return npu__fail(ir->ctx, NPU_ERR_INVALID_ARGUMENT, "%s: payload options: unknown layout %d", ir->label,
                         (int)o.layout);
    npu__sink_init(&sink, dst, cap);
    npu__payload_begin(&p, &sink, o.layout, o.compiler_version);
    if (p.layout == NPU_PAYLOAD_NO_WEIGHTS_COPY) {
        for (i = 0; i < ir->n_consts; i++) {
            const npu_ir_const *k = &ir->consts[i].pub;
            if (k->size < o.weights_threshold_bytes && k->size > 0) npu__sink_put(&sink, k->data, (size_t)k->size);
        }
    }
    npu__payload_mark_xml(&p);
    npu__irw_init(&w, NPU__W_WRITE, ir->ctx, ir->label, ir->xml, ir->xml_len, (npu_ir *)(uintptr_t)ir);
    w.have_bin = 1;
    w.sink = &sink;
    w.layout_b = p.layout == NPU_PAYLOAD_NO_WEIGHTS_COPY;
    w.threshold = o.weights_threshold_bytes;
    w.batch = ir->batch;
    st = npu__irw_run(&w);
    if (st != NPU_OK) return st;
    npu__payload_end_xml(&p);
    if (p.layout == NPU_PAYLOAD_WEIGHTS_COPY) npu__payload_weights(&p, ir->bin, ir->bin_size);
    return npu__sink_finish(&sink, ir->ctx, "IR payload", size);
}
