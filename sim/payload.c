/* payload.c - the compiler's payload reader (see compiler_internal.h): what the
 * library sends with an NGRAPH_LITE graph, read the way the profile's compiler
 * reads it.
 *
 * Owns, one section each:
 *   payload      the buffer, layout A or B (ze-graph-ext.md §3), the stamped version
 *   elements     IR element type and flag precision names
 *   diagnostics  the build-log messages every stage uses (sim_lerr, sim_nomem)
 *   xml          libxml2 tree -> layers, ports, edges; topological order; no cycles
 *   flags        pBuildFlags (--inputs_precisions ... --config ...), the net's
 *                rt_info, the legacy I/O preprocessing of the arguments
 *   reading      the XML parser, the net element, freeing the compile context
 *   options      pfnCompilerIsOptionSupported / pfnCompilerGetSupportedOptions
 * Calls exec.c (the log, precision sizes) and profile.c; never ops.c or planner.c.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "sim/compiler_internal.h"

#define MAX_XML_BYTES ((size_t)256 << 20)
#define MAX_LAYERS 200000

/* ==== payload ============================================================= */

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint16_t rd16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

int sim_range_ok(uint64_t off, uint64_t size, uint64_t total)
{
    return off <= total && size <= total - off;
}

/* Which layout a buffer is read as is decided by the build flags alone (the
 * serializer key in --config, see parse_config), exactly as Intel's compiler
 * does: it never looks at the buffer to choose. A buffer of the other layout
 * then fails the first header check, e.g. a layout-B buffer read as A has 48.0
 * where the version belongs ("Unsupported IR API version! Val: 48.0").
 *
 * Layout A checks follow the real base deserializer: version, element count
 * below 10 (the count itself is not required to be 2), XML size non-zero,
 * weights inside the buffer. The sim also keeps every read inside the buffer,
 * where the real one trusts the sizes. Layout B: the real optimized
 * deserializer checks only the version in the custom data; the sim adds bounds
 * checks on the six header fields. */
static int payload_parse(const void *buf, size_t n, uint32_t want_version, int layout_b, payload *pl,
                         sim_log *log)
{
    const uint8_t *b = buf;
    memset(pl, 0, sizeof *pl);
    if (!b || n < (layout_b ? 48u : 16u)) {
        sim_log_add(log, "payload: %zu bytes is too small for an NGRAPH_LITE header (layout %c)",
                    b ? n : 0, layout_b ? 'B' : 'A');
        return SIM_ERR_INVALID_IR;
    }
    uint32_t version;
    if (!layout_b) {
        version = ((uint32_t)rd16(b) << 16) | rd16(b + 2);
        if (version != want_version) {
            sim_log_add(log, "Unsupported IR API version! Val: %u.%u (this compiler is %u.%u)",
                        version >> 16, version & 0xFFFF, want_version >> 16, want_version & 0xFFFF);
            return SIM_ERR_INVALID_IR;
        }
        if (rd32(b + 4) >= 10) {
            sim_log_add(log, "Bad elements number in IR! (%u)", rd32(b + 4));
            return SIM_ERR_INVALID_IR;
        }
        uint64_t xml_size = rd64(b + 8);
        if (xml_size == 0) {
            sim_log_add(log, "Bad buffer size in IR! (empty XML section)");
            return SIM_ERR_INVALID_IR;
        }
        if (xml_size > n - 16 || n - 16 - xml_size < 8) {
            sim_log_add(log, "The IR content and size mismatch! (XML size %" PRIu64
                             " exceeds the %zu-byte payload)", xml_size, n);
            return SIM_ERR_INVALID_IR;
        }
        uint64_t weights_size = rd64(b + 16 + xml_size);
        if (weights_size > n - 24 - xml_size) {
            sim_log_add(log, "The IR content and size mismatch! (weights size %" PRIu64
                             " exceeds the %zu-byte payload)", weights_size, n);
            return SIM_ERR_INVALID_IR;
        }
        pl->xml = (const char *)b + 16;
        pl->xml_size = (size_t)xml_size;
        pl->consts = b + 24 + xml_size;
        pl->consts_size = (size_t)weights_size;
    } else {
        uint64_t cd_off = rd64(b), cd_size = rd64(b + 8), c_off = rd64(b + 16),
                 c_size = rd64(b + 24), m_off = rd64(b + 32), m_size = rd64(b + 40);
        if (cd_size < 4 || !sim_range_ok(cd_off, cd_size, n) || !sim_range_ok(c_off, c_size, n) ||
            !sim_range_ok(m_off, m_size, n) || m_size == 0) {
            sim_log_add(log,
                        "payload: layout B header out of bounds (custom data %" PRIu64 "+%" PRIu64
                        ", constants %" PRIu64 "+%" PRIu64 ", model %" PRIu64 "+%" PRIu64
                        ", payload %zu bytes)",
                        cd_off, cd_size, c_off, c_size, m_off, m_size, n);
            return SIM_ERR_INVALID_IR;
        }
        version = ((uint32_t)rd16(b + cd_off) << 16) | rd16(b + cd_off + 2);
        if (version != want_version) {
            sim_log_add(log, "The API version found in the serialized model is not supported. "
                             "Found: %u.%u. Expected: %u.%u",
                        version >> 16, version & 0xFFFF, want_version >> 16, want_version & 0xFFFF);
            return SIM_ERR_INVALID_IR;
        }
        pl->xml = (const char *)b + m_off;
        pl->xml_size = (size_t)m_size;
        pl->consts = b + c_off;
        pl->consts_size = (size_t)c_size;
        pl->layout_b = 1;
    }
    if (pl->xml_size > MAX_XML_BYTES) {
        sim_log_add(log, "payload: XML of %zu bytes exceeds the sim's %zu-byte limit", pl->xml_size,
                    MAX_XML_BYTES);
        return SIM_ERR_INVALID_IR;
    }
    return SIM_OK;
}

/* ==== element types ======================================================= */

typedef struct et_name {
    const char *name;
    uint32_t prec;
} et_name;

/* IR element_type names and port/flag precision names of the supported types. */
static const et_name et_names[] = {
    {"f32", SIM_P_FP32}, {"f16", SIM_P_FP16}, {"bf16", SIM_P_BF16}, {"i8", SIM_P_I8},
    {"u8", SIM_P_U8}, {"i32", SIM_P_I32}, {"i64", SIM_P_I64}, {"boolean", SIM_P_BOOL},
    {"FP32", SIM_P_FP32}, {"FP16", SIM_P_FP16}, {"BF16", SIM_P_BF16}, {"I8", SIM_P_I8},
    {"U8", SIM_P_U8}, {"I32", SIM_P_I32}, {"I64", SIM_P_I64}, {"BOOL", SIM_P_BOOL},
    {"BOOLEAN", SIM_P_BOOL},
};

uint32_t sim_prec_from_name(const char *s)
{
    if (!s)
        return 0;
    for (size_t i = 0; i < sizeof et_names / sizeof et_names[0]; i++)
        if (strcasecmp(s, et_names[i].name) == 0)
            return et_names[i].prec;
    return 0;
}

/* ==== diagnostics and strings shared by the three files =================== */

/* dst = a + b, truncated to cap (snprintf would warn about the truncation). */
void sim_join_str(char *dst, size_t cap, const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > cap - 1)
        la = cap - 1;
    if (lb > cap - 1 - la)
        lb = cap - 1 - la;
    memcpy(dst, a, la);
    memcpy(dst + la, b, lb);
    dst[la + lb] = '\0';
}

int sim_lerr(cc *c, const layer *L, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (L)
        sim_log_add(c->log, "layer '%s' (id %ld): %s", L->name, L->id, msg);
    else
        sim_log_add(c->log, "%s", msg);
    return SIM_ERR_COMPILE;
}

/* sim_lerr with an explicit result code. */
int sim_lerr_rc(cc *c, const layer *L, int rc, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sim_lerr(c, L, "%s", msg);
    return rc;
}

int sim_nomem(cc *c)
{
    c->nomem = 1;
    sim_log_add(c->log, "out of memory while compiling");
    return SIM_ERR_NOMEM;
}

/* ==== xml ================================================================= */

static int is_elem(xmlNodePtr n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, (const xmlChar *)name) == 0;
}

xmlNodePtr sim_first_child(xmlNodePtr n, const char *name)
{
    for (xmlNodePtr k = n ? n->children : NULL; k; k = k->next)
        if (is_elem(k, name))
            return k;
    return NULL;
}

xmlNodePtr sim_next_sibling(xmlNodePtr n, const char *name)
{
    for (xmlNodePtr k = n ? n->next : NULL; k; k = k->next)
        if (is_elem(k, name))
            return k;
    return NULL;
}

char *sim_get_attr(xmlNodePtr n, const char *name)
{
    return n ? (char *)xmlGetProp(n, (const xmlChar *)name) : NULL;
}

static char *dup_attr(xmlNodePtr n, const char *name, const char *fallback)
{
    char *v = sim_get_attr(n, name);
    char *r = strdup(v ? v : fallback);
    xmlFree(v);
    return r;
}

const char *sim_skip_ws(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

/* Strict integer: optional sign, digits, optional surrounding spaces. */
int sim_parse_i64(const char *s, int64_t *out)
{
    s = sim_skip_ws(s);
    if (!*s)
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *sim_skip_ws(end))
        return 0;
    *out = v;
    return 1;
}

/* A shape attribute: "1,3,224,224", "4, 32, 1, 3", "" (scalar), "?" / "-1" /
 * "1..32" (dynamic dims), "..." (dynamic rank -> *dyn_rank). */
int sim_parse_shape(const char *s, int *rank, int64_t *d, int *dyn, int *dyn_rank)
{
    *rank = 0;
    *dyn = 0;
    *dyn_rank = 0;
    s = sim_skip_ws(s);
    if (!*s)
        return 1;
    if (strcmp(s, "...") == 0) {
        *dyn_rank = *dyn = 1;
        return 1;
    }
    while (*s) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        char tok[64];
        if (len >= sizeof tok || *rank >= SIM_MAX_RANK)
            return 0;
        memcpy(tok, s, len);
        tok[len] = '\0';
        const char *t = sim_skip_ws(tok);
        char *te = tok + len;
        while (te > t && isspace((unsigned char)te[-1]))
            *--te = '\0';
        int64_t v;
        if (strcmp(t, "?") == 0 || strstr(t, "..")) {
            d[(*rank)++] = -1;
            *dyn = 1;
        } else if (sim_parse_i64(t, &v) && v >= -1) {
            d[(*rank)++] = v;
            if (v < 0)
                *dyn = 1;
        } else {
            return 0;
        }
        if (!e)
            break;
        s = e + 1;
    }
    return 1;
}

static int parse_port(cc *c, layer *L, xmlNodePtr pn, port *p)
{
    memset(p, 0, sizeof *p);
    char *id = sim_get_attr(pn, "id");
    int64_t v;
    int ok = id && sim_parse_i64(id, &v) && v >= 0 && v <= INT_MAX;
    xmlFree(id);
    if (!ok)
        return sim_lerr(c, L, "a port has a missing or malformed id");
    p->id = (long)v;
    char *prec = sim_get_attr(pn, "precision");
    p->prec = sim_prec_from_name(prec);
    xmlFree(prec);
    char *names = sim_get_attr(pn, "names");
    if (names) {
        p->names = strdup(names);
        xmlFree(names);
        if (!p->names)
            return sim_nomem(c);
    }
    for (xmlNodePtr dn = sim_first_child(pn, "dim"); dn; dn = sim_next_sibling(dn, "dim")) {
        if (p->rank >= SIM_MAX_RANK)
            return sim_lerr(c, L, "port %ld has more than %d dims", p->id, SIM_MAX_RANK);
        char *txt = (char *)xmlNodeGetContent(dn);
        int64_t dv;
        int r, dy, dr;
        int64_t tmp[SIM_MAX_RANK];
        if (txt && sim_parse_i64(txt, &dv) && dv >= -1) {
            p->d[p->rank++] = dv;
        } else if (txt && sim_parse_shape(txt, &r, tmp, &dy, &dr) && r == 1 && dy) {
            p->d[p->rank++] = -1;
        } else {
            xmlFree(txt);
            return sim_lerr(c, L, "port %ld has a malformed <dim>", p->id);
        }
        xmlFree(txt);
    }
    return SIM_OK;
}

static int parse_ports(cc *c, layer *L, xmlNodePtr group, port **out, int *count)
{
    int n = 0;
    for (xmlNodePtr pn = sim_first_child(group, "port"); pn; pn = sim_next_sibling(pn, "port"))
        n++;
    if (n > MAX_PORTS)
        return sim_lerr(c, L, "too many ports (%d)", n);
    *count = n;
    *out = calloc((size_t)n + 1, sizeof(port));
    if (!*out)
        return sim_nomem(c);
    int i = 0;
    for (xmlNodePtr pn = sim_first_child(group, "port"); pn; pn = sim_next_sibling(pn, "port")) {
        int rc = parse_port(c, L, pn, &(*out)[i++]);
        if (rc)
            return rc;
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if ((*out)[a].id == (*out)[b].id)
                return sim_lerr(c, L, "port id %ld appears twice", (*out)[a].id);
    return SIM_OK;
}

static int cmp_layer_id(const void *a, const void *b, void *ctx)
{
    const layer *ls = ctx;
    long x = ls[*(const int *)a].id, y = ls[*(const int *)b].id;
    return x < y ? -1 : x > y;
}

static layer *layer_by_id(cc *c, long id)
{
    int lo = 0, hi = c->n_layers - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        layer *L = &c->layers[c->by_id[mid]];
        if (L->id == id)
            return L;
        if (L->id < id)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

static int port_index(const port *ps, int n, long id)
{
    for (int i = 0; i < n; i++)
        if (ps[i].id == id)
            return i;
    return -1;
}

static int parse_layers(cc *c, xmlNodePtr net)
{
    xmlNodePtr layers = sim_first_child(net, "layers");
    if (!layers)
        return sim_lerr(c, NULL, "IR: no <layers> element");
    int n = 0;
    for (xmlNodePtr ln = sim_first_child(layers, "layer"); ln; ln = sim_next_sibling(ln, "layer"))
        if (++n > MAX_LAYERS)
            return sim_lerr(c, NULL, "IR: more than %d layers", MAX_LAYERS);
    if (n == 0)
        return sim_lerr(c, NULL, "IR: no layers");
    c->layers = calloc((size_t)n, sizeof(layer));
    c->by_id = calloc((size_t)n, sizeof(int));
    if (!c->layers || !c->by_id)
        return sim_nomem(c);
    c->n_layers = n;
    int i = 0;
    for (xmlNodePtr ln = sim_first_child(layers, "layer"); ln; ln = sim_next_sibling(ln, "layer"), i++) {
        layer *L = &c->layers[i];
        L->doc = i;
        L->node = ln;
        L->data = sim_first_child(ln, "data");
        L->name = dup_attr(ln, "name", "");
        L->type = dup_attr(ln, "type", "");
        L->version = dup_attr(ln, "version", "opset1");
        if (!L->name || !L->type || !L->version)
            return sim_nomem(c);
        char *id = sim_get_attr(ln, "id");
        int64_t v;
        int ok = id && sim_parse_i64(id, &v) && v >= 0 && v <= INT_MAX;
        xmlFree(id);
        if (!ok)
            return sim_lerr(c, L, "missing or malformed layer id");
        L->id = (long)v;
        int rc = parse_ports(c, L, sim_first_child(ln, "input"), &L->in, &L->n_in);
        if (!rc)
            rc = parse_ports(c, L, sim_first_child(ln, "output"), &L->out, &L->n_out);
        if (rc)
            return rc;
        L->src = calloc((size_t)L->n_in + 1, sizeof(int));
        L->src_port = calloc((size_t)L->n_in + 1, sizeof(int));
        L->val = calloc((size_t)L->n_out + 1, sizeof(cval));
        if (!L->src || !L->src_port || !L->val)
            return sim_nomem(c);
        for (int k = 0; k < L->n_in; k++)
            L->src[k] = -1;
        c->by_id[i] = i;
    }
    qsort_r(c->by_id, (size_t)n, sizeof(int), cmp_layer_id, c->layers);
    for (i = 1; i < n; i++)
        if (c->layers[c->by_id[i]].id == c->layers[c->by_id[i - 1]].id)
            return sim_lerr(c, &c->layers[c->by_id[i]], "layer id is used twice");
    return SIM_OK;
}

static int edge_attr(xmlNodePtr e, const char *name, long *out)
{
    char *s = sim_get_attr(e, name);
    int64_t v;
    int ok = s && sim_parse_i64(s, &v) && v >= 0 && v <= INT_MAX;
    xmlFree(s);
    *out = ok ? (long)v : -1;
    return ok;
}

static int parse_edges(cc *c, xmlNodePtr net)
{
    xmlNodePtr edges = sim_first_child(net, "edges");
    int k = 0;
    for (xmlNodePtr e = edges ? sim_first_child(edges, "edge") : NULL; e;
         e = sim_next_sibling(e, "edge"), k++) {
        long fl, fp, tl, tp;
        if (!edge_attr(e, "from-layer", &fl) || !edge_attr(e, "from-port", &fp) ||
            !edge_attr(e, "to-layer", &tl) || !edge_attr(e, "to-port", &tp))
            return sim_lerr(c, NULL, "IR: edge %d has a missing or malformed attribute", k);
        layer *from = layer_by_id(c, fl), *to = layer_by_id(c, tl);
        if (!from || !to)
            return sim_lerr(c, NULL, "IR: edge %d refers to layer id %ld, which does not exist", k,
                            from ? tl : fl);
        int op = port_index(from->out, from->n_out, fp);
        if (op < 0)
            return sim_lerr(c, from, "edge %d leaves port %ld, which is not an output port", k, fp);
        int ip = port_index(to->in, to->n_in, tp);
        if (ip < 0)
            return sim_lerr(c, to, "edge %d enters port %ld, which is not an input port", k, tp);
        if (to->src[ip] >= 0)
            return sim_lerr(c, to, "input port %ld has more than one incoming edge", tp);
        to->src[ip] = (int)(from - c->layers);
        to->src_port[ip] = op;
        from->out[op].uses++;
    }
    for (int i = 0; i < c->n_layers; i++) {
        layer *L = &c->layers[i];
        for (int p = 0; p < L->n_in; p++)
            if (L->src[p] < 0)
                return sim_lerr(c, L, "input port %ld is not connected (missing edge)", L->in[p].id);
    }
    return SIM_OK;
}

/* Kahn's algorithm in document order; fails on a cycle. */
int sim_topo_order(cc *c, int *order)
{
    int n = c->n_layers, done = 0;
    int *indeg = calloc((size_t)n, sizeof(int));
    int *cons_start = calloc((size_t)n + 1, sizeof(int));
    int total = 0;
    for (int i = 0; i < n; i++)
        total += c->layers[i].n_in;
    int *cons = calloc((size_t)total + 1, sizeof(int));
    int *fill = calloc((size_t)n, sizeof(int));
    int rc = SIM_OK;
    if (!indeg || !cons_start || !cons || !fill) {
        rc = sim_nomem(c);
        goto out;
    }
    for (int i = 0; i < n; i++) {
        indeg[i] = c->layers[i].n_in;
        for (int p = 0; p < c->layers[i].n_in; p++)
            cons_start[c->layers[i].src[p] + 1]++;
    }
    for (int i = 0; i < n; i++)
        cons_start[i + 1] += cons_start[i];
    for (int i = 0; i < n; i++)
        for (int p = 0; p < c->layers[i].n_in; p++) {
            int s = c->layers[i].src[p];
            cons[cons_start[s] + fill[s]++] = i;
        }
    for (int i = 0; i < n; i++)
        if (indeg[i] == 0)
            order[done++] = i;
    for (int head = 0; head < done; head++) {
        int s = order[head];
        for (int k = cons_start[s]; k < cons_start[s + 1]; k++)
            if (--indeg[cons[k]] == 0)
                order[done++] = cons[k];
    }
    if (done < n) {
        for (int i = 0; i < n; i++)
            if (indeg[i] > 0) {
                rc = sim_lerr(c, &c->layers[i], "the edges form a cycle through this layer");
                break;
            }
    }
out:
    free(indeg);
    free(cons_start);
    free(cons);
    free(fill);
    return rc;
}

/* ==== flags =============================================================== */

int sim_compiler_generation(const sim_profile *p)
{
    switch (p->serializer_key) {
    case SIM_SERIALIZER_NONE: return GEN_2024;
    case SIM_SERIALIZER_USE_BASE: return GEN_2025;
    default: return GEN_2026;
    }
}

static const char *const flag_names[4] = {"--inputs_precisions", "--inputs_layouts",
                                          "--outputs_precisions", "--outputs_layouts"};

/* Precision names the compiler's I/O flag parser knows, upper case (it upper-cases
 * the value before looking it up). sim: the sim's code, 0 = known to the real
 * compiler but not runnable by the sim; gens: bit per generation. */
static const struct { const char *name; uint32_t sim; unsigned gens; } io_precisions[] = {
    {"UNSPECIFIED", 0, 1u << GEN_2024}, {"DYNAMIC", 0, 7u}, {"BOOL", SIM_P_BOOL, 7u},
    {"BF16", SIM_P_BF16, 7u}, {"FP16", SIM_P_FP16, 7u}, {"FP32", SIM_P_FP32, 7u}, {"FP64", 0, 7u},
    {"I4", 0, 7u}, {"I8", SIM_P_I8, 7u}, {"I16", 0, 7u}, {"I32", SIM_P_I32, 7u},
    {"I64", SIM_P_I64, 7u}, {"BIN", 0, 7u}, {"U4", 0, 7u}, {"U8", SIM_P_U8, 7u}, {"U16", 0, 7u},
    {"U32", 0, 7u}, {"U64", 0, 7u}, {"U2", 0, 6u}, {"NF4", 0, 6u}, {"FP8_E4M3", 0, 6u},
    {"FP8_E5M2", 0, 6u}, {"FP8_E8M0", 0, 6u},
};

/* SUPPORTED_LAYOUTS of the compiler's I/O flag parser (case-sensitive), with the
 * graph-extension layout code the sim reports (0 = by rank). */
static const struct { const char *name; uint32_t code; } io_layouts[] = {
    {"NCDHW", 3}, {"NDHWC", 4}, {"NCHW", 1}, {"NHWC", 2}, {"CHW", 0x80}, {"HWC", 0},
    {"NC", 0xC1}, {"C", 0x60}, {"**SCALAR**", 0},
};

/* --config keys each generation registers (after VPUX_/VPU_ -> NPU_). 2024: the
 * common + compiler + run-time option sets of its OpenVINO; 2025/2026: the
 * compiler-in-driver's own list (see docs/driver-compat.md). */
static const char *const keys_2024[] = {
    "PERFORMANCE_HINT", "PERFORMANCE_HINT_NUM_REQUESTS", "INFERENCE_PRECISION_HINT", "PERF_COUNT",
    "LOG_LEVEL", "NPU_PLATFORM", "DEVICE_ID", "CACHE_DIR", "LOADED_FROM_CACHE", "NPU_BATCH_MODE",
    "NPU_COMPILER_TYPE", "NPU_COMPILATION_MODE", "NPU_COMPILATION_MODE_PARAMS",
    "NPU_BACKEND_COMPILATION_PARAMS", "COMPILATION_NUM_THREADS", "NPU_DPU_GROUPS", "NPU_TILES",
    "NPU_STEPPING", "NPU_MAX_TILES", "NPU_DMA_ENGINES", "NPU_USE_ELF_COMPILER_BACKEND",
    "NPU_DYNAMIC_SHAPE_TO_STATIC", "EXCLUSIVE_ASYNC_REQUESTS", "NPU_PROFILING_TYPE",
    "MODEL_PRIORITY", "NPU_CREATE_EXECUTOR", "NUM_STREAMS", "ENABLE_CPU_PINNING", NULL};
static const char *const keys_2025[] = {
    "PERFORMANCE_HINT", "PERFORMANCE_HINT_NUM_REQUESTS", "INFERENCE_PRECISION_HINT", "PERF_COUNT",
    "LOG_LEVEL", "NPU_PLATFORM", "NPU_COMPILER_TYPE", "DEVICE_ID", "NPU_BATCH_MODE",
    "NPU_COMPILATION_MODE", "NPU_COMPILATION_MODE_PARAMS", "NPU_BACKEND_COMPILATION_PARAMS",
    "COMPILATION_NUM_THREADS", "NPU_TILES", "NPU_STEPPING", "NPU_MAX_TILES", "NPU_DMA_ENGINES",
    "NPU_DYNAMIC_SHAPE_TO_STATIC", "EXECUTION_MODE_HINT", "NPU_COMPILER_DYNAMIC_QUANTIZATION",
    "NPU_BATCH_COMPILER_MODE_SETTINGS", "NPU_QDQ_OPTIMIZATION_AGGRESSIVE", "NPU_QDQ_OPTIMIZATION",
    "NPU_TURBO", "NPU_USE_BASE_MODEL_SERIALIZER", NULL};
static const char *const keys_2026[] = {
    "PERFORMANCE_HINT", "PERFORMANCE_HINT_NUM_REQUESTS", "INFERENCE_PRECISION_HINT", "PERF_COUNT",
    "LOG_LEVEL", "NPU_PLATFORM", "NPU_COMPILER_TYPE", "DEVICE_ID", "NPU_BATCH_MODE",
    "NPU_COMPILATION_MODE", "NPU_COMPILATION_MODE_PARAMS", "NPU_BACKEND_COMPILATION_PARAMS",
    "COMPILATION_NUM_THREADS", "NPU_TILES", "NPU_STEPPING", "NPU_MAX_TILES", "NPU_DMA_ENGINES",
    "NPU_DYNAMIC_SHAPE_TO_STATIC", "EXECUTION_MODE_HINT", "NPU_COMPILER_DYNAMIC_QUANTIZATION",
    "NPU_BATCH_COMPILER_MODE_SETTINGS", "NPU_QDQ_OPTIMIZATION_AGGRESSIVE", "NPU_QDQ_OPTIMIZATION",
    "NPU_TURBO", "NPU_MODEL_SERIALIZER_VERSION", NULL};

static const char *const *config_keys(int gen)
{
    return gen == GEN_2024 ? keys_2024 : gen == GEN_2025 ? keys_2025 : keys_2026;
}

static int key_known(int gen, const char *key)
{
    for (const char *const *k = config_keys(gen); *k; k++)
        if (!strcmp(*k, key))
            return 1;
    return 0;
}

/* OptionParser<bool>: YES/NO; profiles whose parser also takes true/false/1/0/on/off
 * (any case) say so with bool_reads_true. Returns 1/0, or -1 when not a boolean. */
static int parse_option_bool(const sim_profile *prof, const char *v)
{
    if (!strcmp(v, "YES"))
        return 1;
    if (!strcmp(v, "NO"))
        return 0;
    if (prof->bool_reads_true) {
        if (!strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "on"))
            return 1;
        if (!strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "off"))
            return 0;
    }
    return -1;
}

static const char *const bool_options[] = {"PERF_COUNT", "NPU_TURBO", "NPU_USE_BASE_MODEL_SERIALIZER",
                                           "NPU_DYNAMIC_SHAPE_TO_STATIC", "NPU_QDQ_OPTIMIZATION",
                                           "NPU_QDQ_OPTIMIZATION_AGGRESSIVE", NULL};

/* Checks the value of an option the sim understands; 0 = fine, else logs. */
static int check_option_value(cc *c, int gen, const char *key, const char *val, flags *f)
{
    for (const char *const *k = bool_options; *k; k++) {
        if (strcmp(*k, key))
            continue;
        int b = parse_option_bool(c->prof, val);
        if (b < 0)
            return sim_lerr_rc(c, NULL, SIM_ERR_OPTIONS, "Value '%s' is not a valid BOOL option (%s)", val,
                               key);
        if (!strcmp(key, "NPU_USE_BASE_MODEL_SERIALIZER") && gen == GEN_2025)
            f->layout_b = !b;
        if (!strcmp(key, "PERF_COUNT"))
            f->perf_count = b;
        return SIM_OK;
    }
    if (!strcmp(key, "NPU_MODEL_SERIALIZER_VERSION")) {
        if (!strcmp(val, "ALL_WEIGHTS_COPY") || !strcmp(val, "NO_WEIGHTS_COPY")) {
            f->layout_b = val[0] == 'N';
            return SIM_OK;
        }
        if (!strcmp(val, "AUTO"))
            return sim_lerr_rc(c, NULL, SIM_ERR_OPTIONS,
                               "The driver-compiler adapter received an unsupported value for the "
                               "\"ov::intel_npu::model_serializer_version\" config option. Received: AUTO. "
                               "Supported values: ALL_WEIGHTS_COPY, NO_WEIGHTS_COPY.");
        return sim_lerr_rc(c, NULL, SIM_ERR_OPTIONS,
                           "Value '%s' is not a valid MODEL_SERIALIZER_VERSION option", val);
    }
    if (!strcmp(key, "NPU_PLATFORM")) {
        const char *v = strncmp(val, "NPU", 3) ? val : val + 3;
        static const char *const plats[3][5] = {{"3720", "4000", "AUTO_DETECT", NULL, NULL},
                                                {"3720", "4000", "5000", "5010", "AUTO_DETECT"},
                                                {"3720", "4000", "5010", "5020", "AUTO_DETECT"}};
        for (int i = 0; i < 5 && plats[gen][i]; i++)
            if (!strcmp(v, plats[gen][i]))
                return SIM_OK;
        return sim_lerr_rc(c, NULL, SIM_ERR_OPTIONS, "Unknown value for platform: %s", val);
    }
    return SIM_OK;
}

/* One token: up to whitespace, with "..." kept together (quotes removed). */
static const char *next_token(const char *s, char *tok, size_t cap, int *bad)
{
    size_t n = 0;
    int quoted = 0;
    *bad = 0;
    while (*s && (quoted || !isspace((unsigned char)*s))) {
        if (*s == '"') {
            quoted = !quoted;
            s++;
            continue;
        }
        if (n + 1 >= cap) {
            *bad = 1;
            return s;
        }
        tok[n++] = *s++;
    }
    tok[n] = '\0';
    if (quoted)
        *bad = 1;
    return s;
}

/* One --config KEY="VALUE" entry, as Config::update would take it. */
static int parse_config_entry(cc *c, char *entry, flags *f)
{
    int gen = sim_compiler_generation(c->prof);
    char *eq = strchr(entry, '=');
    if (!eq || eq == entry)
        return sim_lerr_rc(c, NULL, SIM_ERR_OPTIONS, "Failed to parse config options: %s is in bad format!",
                           entry);
    *eq = '\0';
    const char *val = eq + 1;
    char key[256];
    if (!strncmp(entry, "VPUX_", 5))
        sim_join_str(key, sizeof key, "NPU_", entry + 5);
    else if (!strncmp(entry, "VPU_", 4))
        sim_join_str(key, sizeof key, "NPU_", entry + 4);
    else
        sim_join_str(key, sizeof key, "", entry);
    if (gen != GEN_2024 && !strcmp(key, "NPU_DPU_GROUPS"))
        sim_join_str(key, sizeof key, "", "NPU_TILES");
    /* Since 2025 the compiler drops two run-time options older plugins sent. */
    if (gen != GEN_2024 && (!strcmp(key, "MODEL_PRIORITY") || !strcmp(key, "CACHE_DIR")))
        return SIM_OK;
    if (!key_known(gen, key))
        return sim_lerr_rc(c, NULL, SIM_ERR_OPTIONS,
                           "%s[ NOT_FOUND ] Option '%s' is not supported for current configuration",
                           gen == GEN_2025 ? "Failed to update default config: " : "", key);
    return check_option_value(c, gen, key, val, f);
}

/* One I/O option value: "key:VALUE key2:VALUE2". */
static int parse_io_list(cc *c, int which, const char *value, flags *f)
{
    io_list *l = &f->lists[which];
    int gen = sim_compiler_generation(c->prof);
    const char *s = value;
    while (*(s = sim_skip_ws(s))) {
        char item[SIM_NAME_MAX + 32];
        size_t n = 0;
        while (*s && !isspace((unsigned char)*s) && n + 1 < sizeof item)
            item[n++] = *s++;
        item[n] = '\0';
        char *colon = strrchr(item, ':');
        if (!colon)
            return sim_lerr_rc(c, NULL, SIM_ERR_OPTIONS, "Failed to find delim in option! Value: %s", item);
        *colon = '\0';
        const char *val = colon + 1;
        uint32_t code = 0;
        int found = 0;
        if (which % 2 == 0) {
            for (size_t i = 0; !found && i < sizeof io_precisions / sizeof io_precisions[0]; i++)
                if (!strcasecmp(val, io_precisions[i].name) && (io_precisions[i].gens >> gen & 1u)) {
                    code = io_precisions[i].sim;
                    found = 1;
                }
        } else if (strchr(val, '?') || strchr(val, '.')) {
            found = 1; /* a partial layout is taken as it is */
        } else {
            for (size_t i = 0; !found && i < sizeof io_layouts / sizeof io_layouts[0]; i++)
                if (!strcmp(val, io_layouts[i].name)) {
                    code = io_layouts[i].code;
                    found = 1;
                }
        }
        if (!found)
            return sim_lerr_rc(c, NULL, SIM_ERR_OPTIONS, "Failed to find %s for %s (in %s)", val, item,
                               flag_names[which]);
        io_setting *q = realloc(l->items, (size_t)(l->n + 1) * sizeof *q);
        if (!q)
            return sim_nomem(c);
        l->items = q;
        memset(&q[l->n], 0, sizeof q[l->n]);
        sim_join_str(q[l->n].key, sizeof q[l->n].key, "", item);
        sim_join_str(q[l->n].text, sizeof q[l->n].text, "", val);
        q[l->n++].value = code;
    }
    return SIM_OK;
}

/* pBuildFlags: --inputs_precisions="..." --inputs_layouts="..." --outputs_precisions="..."
 * --outputs_layouts="..." --config KEY="VALUE" ... The config is applied first, then
 * the four I/O options, in the real compiler's order. */
int sim_parse_flags(cc *c, const char *text, flags *f)
{
    memset(f, 0, sizeof *f);
    int gen = sim_compiler_generation(c->prof);
    const char *io_text[4] = {NULL, NULL, NULL, NULL};
    char *tok[4] = {NULL, NULL, NULL, NULL};
    const char *s = text ? text : "";
    int in_config = 0, rc = SIM_OK;
    char buf[4096];
    while (!rc && *(s = sim_skip_ws(s))) {
        int bad;
        s = next_token(s, buf, sizeof buf, &bad);
        if (bad) {
            rc = sim_lerr_rc(c, NULL, SIM_ERR_OPTIONS, "build flags: unterminated quote or overlong token");
            break;
        }
        if (!strncmp(buf, "--", 2)) {
            in_config = 0;
            if (!strcmp(buf, "--config")) {
                in_config = 1;
                continue;
            }
            char *eq = strchr(buf, '=');
            int which = -1;
            for (int i = 0; i < 4; i++)
                if (eq && (size_t)(eq - buf) == strlen(flag_names[i]) &&
                    !strncmp(buf, flag_names[i], (size_t)(eq - buf)))
                    which = i;
            if (which < 0) {
                rc = sim_lerr_rc(c, NULL, SIM_ERR_OPTIONS, "Invalid key in option! Option: %s", buf);
                break;
            }
            free(tok[which]);
            tok[which] = strdup(eq + 1);
            if (!tok[which])
                rc = sim_nomem(c);
            io_text[which] = tok[which];
        } else if (in_config) {
            rc = parse_config_entry(c, buf, f);
        } else {
            rc = sim_lerr_rc(c, NULL, SIM_ERR_OPTIONS, "build flags: unexpected token '%s'", buf);
        }
    }
    f->io_present = io_text[0] && io_text[1] && io_text[2] && io_text[3];
    if (!rc && !f->io_present) {
        /* Later compilers only log a warning (not part of the build log) and go on. */
        if (gen == GEN_2024)
            rc = sim_lerr_rc(c, NULL, SIM_ERR_OPTIONS,
                             "Mandatory ioInfo options are missing! DescOptions: %s", text ? text : "");
    }
    for (int i = 0; !rc && f->io_present && i < 4; i++)
        rc = parse_io_list(c, i, io_text[i], f);
    for (int i = 0; i < 4; i++)
        free(tok[i]);
    return rc;
}

/* ---- the net's rt_info and the legacy preprocessing ---- */

/* <net><rt_info><KEY value="..."/></rt_info>: the value text, or NULL when absent. */
static char *net_rt_value(cc *c, const char *key)
{
    xmlNodePtr rt = sim_first_child(c->net, "rt_info");
    for (xmlNodePtr n = rt ? rt->children : NULL; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, key)) {
            char *v = sim_get_attr(n, "value");
            if (!v)
                v = (char *)xmlStrdup((const xmlChar *)"");
            return v;
        }
    return NULL;
}

/* ov::Any::as<bool> of the rt_info string: *out = value, or *out = dflt when absent.
 * Older OpenVINO cores read only YES/NO; profiles with bool_reads_true also take
 * 1/0, true/false, on/off, yes/no in any case. */
static int net_rt_bool(cc *c, const char *key, int dflt, int *out)
{
    char *v = net_rt_value(c, key);
    *out = dflt;
    if (!v)
        return SIM_OK;
    const char *t = sim_skip_ws(v);
    int ok = 1;
    if (!strcmp(t, "YES"))
        *out = 1;
    else if (!strcmp(t, "NO"))
        *out = 0;
    else if (c->prof->bool_reads_true && (!strcasecmp(t, "true") || !strcmp(t, "1") ||
                                          !strcasecmp(t, "on") || !strcasecmp(t, "yes")))
        *out = 1;
    else if (c->prof->bool_reads_true && (!strcasecmp(t, "false") || !strcmp(t, "0") ||
                                          !strcasecmp(t, "off") || !strcasecmp(t, "no")))
        *out = 0;
    else
        ok = 0;
    int rc = ok ? SIM_OK
                : sim_lerr(c, NULL, "Failed to process model: Could not convert to bool from string %s "
                                "(net rt_info %s)", t, key);
    xmlFree(v);
    return rc;
}

static const io_setting *find_setting(const io_list *l, const char *key)
{
    for (int i = l->n - 1; i >= 0; i--) /* a later entry for the same key wins */
        if (!strcmp(l->items[i].key, key))
            return &l->items[i];
    return NULL;
}

static void list_keys(const io_list *l, char *out, size_t cap)
{
    out[0] = '\0';
    for (int i = 0; i < l->n; i++) {
        size_t n = strlen(out);
        snprintf(out + n, cap - n, "%s%s", i ? ", " : "", l->items[i].key);
    }
}

static int apply_setting(cc *c, sim_arg *a, const flags *f, int out, const char *id, uint32_t index)
{
    const io_list *pl = &f->lists[out ? 2 : 0], *ll = &f->lists[out ? 3 : 1];
    const io_setting *ps = find_setting(pl, id), *ls = find_setting(ll, id);
    if (!ps || !ls) {
        char avail[512];
        list_keys(ps ? ll : pl, avail, sizeof avail);
        return sim_lerr(c, NULL, "Failed to process model: %s has no entry for %s '%s' (%s %u, "
                             "\"%s\"); available: %s",
                        flag_names[ps ? (out ? 3 : 1) : (out ? 2 : 0)],
                        isdigit((unsigned char)id[0]) ? "index" : "name", id, out ? "output" : "input",
                        index, a->friendly_name, avail[0] ? avail : "(none)");
    }
    if (ps->value)
        a->precision = ps->value;
    else if (strcasecmp(ps->text, "DYNAMIC") && strcasecmp(ps->text, "UNSPECIFIED"))
        return sim_lerr(c, NULL, "precision %s for %s '%s' is not supported by the sim compiler", ps->text,
                        out ? "output" : "input", id);
    /* The real compiler adds a transpose when the flags' layout differs from the
     * model's (by rank: C, NC, CHW, NCHW, NCDHW); the sim does not transpose, so it
     * refuses that instead of computing on the wrong axes. */
    static const char *const by_rank[] = {"", "C", "NC", "CHW", "NCHW", "NCDHW"};
    if (!strchr(ls->text, '?') && !strchr(ls->text, '.') && strcmp(ls->text, "**SCALAR**") &&
        (a->rank >= 6 || strcmp(ls->text, by_rank[a->rank])))
        return sim_lerr(c, NULL, "layout %s for %s '%s' differs from the model layout %s: the real compiler "
                             "would transpose, the sim compiler does not",
                        ls->text, out ? "output" : "input", id, a->rank < 6 ? by_rank[a->rank] : "BLOCKED");
    if (ls->value)
        a->layout = ls->value;
    return SIM_OK;
}

/* The legacy I/O preprocessing (OpenVINO's PrePostProcessor in the real compiler):
 * only for IR v10 (2024 also when the net's rt_info lacks is_new_api), it gives
 * each Parameter/Result the precision and layout of the I/O flags, matched by
 * index when the rt_info has use_indices_for_io_metadata, else by name. For IR
 * v11 the flags change nothing. The sim records the layout; it does not transpose. */
int sim_preprocess(cc *c, sim_plan *p, const flags *f, uint32_t n_params, uint32_t n_in)
{
    int gen = sim_compiler_generation(c->prof), use_indices, new_api = 0, rc;
    if ((rc = net_rt_bool(c, "use_indices_for_io_metadata", 0, &use_indices)))
        return rc;
    if (gen == GEN_2024 && (rc = net_rt_bool(c, "is_new_api", 0, &new_api)))
        return rc;
    int needed = gen == GEN_2024 ? (!new_api || c->ir_version < 11) : c->ir_version < 11;
    if (!needed) /* "IR version >= 11. Preprocessing will be skipped." (info level, not in the log) */
        return SIM_OK;
    int complete = f->io_present;
    for (int i = 0; i < 4; i++)
        complete = complete && f->lists[i].n > 0;
    if (!complete) {
        sim_log_add(c->log, "warning: The ioInfo options are missing for IR version < 11! "
                            "Preprocessing will be skipped.");
        return SIM_OK;
    }
    char id[SIM_NAME_MAX + 24];
    for (uint32_t i = 0; i < n_params; i++) {
        sim_arg *a = &p->args[i];
        if (use_indices)
            snprintf(id, sizeof id, "%u", i);
        else
            snprintf(id, sizeof id, "%s", a->friendly_name);
        if ((rc = apply_setting(c, a, f, 0, id, i)))
            return rc;
    }
    /* Results in IR order, as sim_build_args lists them after the inputs. */
    uint32_t k = 0;
    for (int i = 0; i < c->n_layers; i++) {
        layer *L = &c->layers[i];
        if (strcasecmp(L->type, "Result") || L->n_in != 1)
            continue;
        sim_arg *a = &p->args[n_in + k];
        if (use_indices) {
            snprintf(id, sizeof id, "%u", k);
        } else {
            layer *src = &c->layers[L->src[0]];
            snprintf(id, sizeof id, "%s", src->name);
            if (src->n_out != 1 && !find_setting(&f->lists[3], id))
                snprintf(id, sizeof id, "%s.%d", src->name, L->src_port[0]);
        }
        if ((rc = apply_setting(c, a, f, 1, id, k)))
            return rc;
        k++;
    }
    return SIM_OK;
}

/* ==== reading a payload: buffer, XML, net ================================= */

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;
static void xml_init(void)
{
    xmlInitParser();
}

void sim_cc_free(cc *c)
{
    for (int i = 0; i < c->n_layers; i++) {
        layer *L = &c->layers[i];
        free(L->name);
        free(L->type);
        free(L->version);
        for (int k = 0; L->in && k < L->n_in; k++)
            free(L->in[k].names);
        for (int k = 0; L->out && k < L->n_out; k++)
            free(L->out[k].names);
        free(L->in);
        free(L->out);
        free(L->src);
        free(L->src_port);
        free(L->val);
    }
    free(c->layers);
    free(c->by_id);
    free(c->vars);
    free(c->tensors);
    free(c->steps);
    free(c->step_inputs);
    free(c->pool);
    free(c->buf_size);
}

/* Parses the payload and the XML into c (the net, its layers and their ports);
 * the doc stays with the caller. */
int sim_read_net(cc *c, const void *payload_buf, size_t size, uint32_t version, int layout_b,
                 xmlDocPtr *doc_out)
{
    *doc_out = NULL;
    int rc = payload_parse(payload_buf, size, version, layout_b, &c->pl, c->log);
    if (rc)
        return rc;
    pthread_once(&xml_once, xml_init);
    xmlParserCtxtPtr ctx = xmlNewParserCtxt();
    if (!ctx)
        return sim_nomem(c);
    xmlDocPtr doc = xmlCtxtReadMemory(ctx, c->pl.xml, (int)c->pl.xml_size, "model.xml", NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc) {
        xmlErrorPtr e = xmlCtxtGetLastError(ctx);
        char msg[256] = "unknown error";
        if (e && e->message) {
            snprintf(msg, sizeof msg, "%s", e->message);
            size_t n = strlen(msg);
            while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
                msg[--n] = '\0';
        }
        sim_log_add(c->log, "IR XML is malformed (line %d): %s", e ? e->line : 0, msg);
        xmlFreeParserCtxt(ctx);
        return SIM_ERR_READ_MODEL;
    }
    xmlFreeParserCtxt(ctx);
    *doc_out = doc;
    xmlNodePtr net = xmlDocGetRootElement(doc);
    if (!is_elem(net, "net"))
        return sim_lerr_rc(c, NULL, SIM_ERR_READ_MODEL, "IR: the root element is not <net>");
    char *ver = sim_get_attr(net, "version");
    int64_t v = 0;
    int ok = ver && sim_parse_i64(ver, &v) && (v == 10 || v == 11);
    if (!ok) {
        rc = sim_lerr_rc(c, NULL, SIM_ERR_READ_MODEL, "IR: version \"%s\" is not supported (10 or 11)",
                         ver ? ver : "(none)");
        xmlFree(ver);
        return rc;
    }
    xmlFree(ver);
    c->net = net;
    c->ir_version = (int)v;
    return parse_layers(c, net);
}

/* The edges of the net sim_read_net read. */
int sim_read_edges(cc *c)
{
    return parse_edges(c, c->net);
}

/* ==== option queries ====================================================== */
/* pfnCompilerIsOptionSupported and pfnCompilerGetSupportedOptions (sim_plan.h). */

int sim_compiler_option_supported(const char *key, const char *value)
{
    const sim_profile *prof = sim_profile_current();
    int gen = sim_compiler_generation(prof);
    if (key && gen == GEN_2026 && !strcmp(key, "NPU_DPU_GROUPS"))
        return 1; /* answered yes for compatibility: the compiler renames it to NPU_TILES */
    if (!key || !key_known(gen, key))
        return 0;
    if (!value)
        return 1;
    for (const char *const *k = bool_options; *k; k++)
        if (!strcmp(*k, key))
            return parse_option_bool(prof, value) >= 0;
    if (!strcmp(key, "NPU_MODEL_SERIALIZER_VERSION"))
        return !strcmp(value, "ALL_WEIGHTS_COPY") || !strcmp(value, "NO_WEIGHTS_COPY") ||
               !strcmp(value, "AUTO");
    return 1;
}

size_t sim_compiler_supported_options(char *out, size_t cap)
{
    size_t len = 0, written = 0;
    for (const char *const *k = config_keys(sim_compiler_generation(sim_profile_current())); *k; k++) {
        size_t n = strlen(*k) + (len ? 1 : 0);
        if (out && written == len && len + n < cap) {
            if (len)
                out[len] = ' ';
            memcpy(out + len + (len ? 1 : 0), *k, strlen(*k));
            written += n;
        }
        len += n;
    }
    if (out && cap)
        out[written] = '\0';
    return len + 1;
}
