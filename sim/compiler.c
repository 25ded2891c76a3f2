/* compiler.c - the software NPU's compiler: NGRAPH_LITE payload -> plan.
 *
 * Data flow, one section each, top to bottom:
 *   payload   split the buffer (layout A or B, ze-graph-ext.md §3), check the version
 *   xml       libxml2 tree -> layers, ports, edges; topological order; no cycles
 *   values    compile-time tensors: constants (raw bytes until needed), arena buffers
 *   ops       one handler per OpenVINO op: infers shapes, emits plan steps; steps
 *             whose inputs are all constant are folded at compile time
 *   flags     pBuildFlags (--inputs_precisions ... --config ...)
 *   finish    arguments, dead-step removal, arena packing, tensor compaction, native blob
 * Shapes are always inferred here; the IR's <dim>s are only checked on Parameter
 * and Const (the corpus has IRs whose declared dims are wrong).
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

#include "sim/plan_internal.h"
#include "sim/profile.h"

#define MAX_XML_BYTES ((size_t)256 << 20)
#define MAX_LAYERS 200000
#define MAX_PORTS 1024
#define MAX_FOLD_FLOATS ((uint64_t)1 << 26)
#define NO_TENSOR UINT32_MAX

/* ==== payload ================================================================ */

typedef struct payload {
    const char *xml;
    size_t xml_size;
    const uint8_t *consts;  /* layout A: the weights section; B: the constants blob */
    size_t consts_size;
    int layout_b;
} payload;

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

static int range_ok(uint64_t off, uint64_t size, uint64_t total)
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
        if (cd_size < 4 || !range_ok(cd_off, cd_size, n) || !range_ok(c_off, c_size, n) ||
            !range_ok(m_off, m_size, n) || m_size == 0) {
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

/* ==== element types ========================================================== */

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

static uint32_t prec_from_name(const char *s)
{
    if (!s)
        return 0;
    for (size_t i = 0; i < sizeof et_names / sizeof et_names[0]; i++)
        if (strcasecmp(s, et_names[i].name) == 0)
            return et_names[i].prec;
    return 0;
}

/* ==== compile context ======================================================== */

typedef struct port {
    long id;
    uint32_t prec;      /* from the precision attribute; 0 when absent/unknown */
    int rank;
    int64_t d[SIM_MAX_RANK]; /* -1 = dynamic */
    char *names;        /* "names" attribute or NULL */
    int uses;           /* output ports: number of edges leaving it */
} port;

/* The compile-time value of one output port. */
typedef struct cval {
    int set;
    uint32_t tensor;        /* NO_TENSOR: a constant still in raw form */
    uint32_t et;            /* IR element type (precision code) */
    int rank;
    int64_t d[SIM_MAX_RANK];
    const uint8_t *raw;     /* constant bytes in raw_et, possibly unaligned */
    uint32_t raw_et;
} cval;

typedef struct layer {
    long id;
    int doc;                /* position in the document */
    xmlNodePtr node, data;
    char *name, *type, *version;
    int n_in, n_out;
    port *in, *out;
    int *src, *src_port;    /* per input: producer layer index and its output index */
    cval *val;              /* per output */
} layer;

typedef struct variable {
    char id[SIM_NAME_MAX];
    int doc;                /* first document position of its ReadValue/Assign */
    uint32_t et;
    int rank;
    int64_t d[SIM_MAX_RANK];
    uint32_t in_tensor, out_tensor;
    const char *read_name, *assign_name;
} variable;

typedef struct cc {
    sim_log *log;
    const sim_profile *prof;   /* the release whose compiler is emulated */
    payload pl;
    xmlNodePtr net;            /* the <net> element */
    int ir_version;            /* 10 or 11 */
    layer *layers;
    int n_layers;
    int *by_id;             /* layer indices sorted by id */
    variable *vars;
    int n_vars, cap_vars;
    /* the plan under construction */
    sim_tensor *tensors;
    uint32_t n_tensors, cap_tensors;
    sim_step *steps;
    uint32_t n_steps, cap_steps;
    uint32_t *step_inputs;
    uint32_t n_step_inputs, cap_step_inputs;
    float *pool;
    uint64_t pool_n, pool_cap;
    uint64_t *buf_size;     /* arena buffers; an ARENA tensor's offset is its buffer id here */
    uint32_t n_bufs, cap_bufs;
    int nomem;
} cc;

static int grow(void *pp, uint32_t *cap, uint32_t need, size_t elem)
{
    void **p = pp;
    if (need <= *cap)
        return 1;
    if (need > (1u << 24))
        return 0;
    uint32_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, (size_t)nc * elem);
    if (!q)
        return 0;
    *p = q;
    *cap = nc;
    return 1;
}

/* dst = a + b, truncated to cap (snprintf would warn about the truncation). */
static void join_str(char *dst, size_t cap, const char *a, const char *b)
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

static int lerr(cc *c, const layer *L, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int lerr(cc *c, const layer *L, const char *fmt, ...)
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

/* lerr with an explicit result code. */
static int lerr_rc(cc *c, const layer *L, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int lerr_rc(cc *c, const layer *L, int rc, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lerr(c, L, "%s", msg);
    return rc;
}

static int nomem(cc *c)
{
    c->nomem = 1;
    sim_log_add(c->log, "out of memory while compiling");
    return SIM_ERR_NOMEM;
}

static void fmt_dims(char *buf, size_t cap, int rank, const int64_t *d)
{
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < rank && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, i ? ",%" PRId64 : "%" PRId64, d[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}

/* ==== xml ==================================================================== */

static int is_elem(xmlNodePtr n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, (const xmlChar *)name) == 0;
}

static xmlNodePtr first_child(xmlNodePtr n, const char *name)
{
    for (xmlNodePtr k = n ? n->children : NULL; k; k = k->next)
        if (is_elem(k, name))
            return k;
    return NULL;
}

static xmlNodePtr next_sibling(xmlNodePtr n, const char *name)
{
    for (xmlNodePtr k = n ? n->next : NULL; k; k = k->next)
        if (is_elem(k, name))
            return k;
    return NULL;
}

static char *get_attr(xmlNodePtr n, const char *name)
{
    return n ? (char *)xmlGetProp(n, (const xmlChar *)name) : NULL;
}

static char *dup_attr(xmlNodePtr n, const char *name, const char *fallback)
{
    char *v = get_attr(n, name);
    char *r = strdup(v ? v : fallback);
    xmlFree(v);
    return r;
}

static const char *skip_ws(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

/* Strict integer: optional sign, digits, optional surrounding spaces. */
static int parse_i64(const char *s, int64_t *out)
{
    s = skip_ws(s);
    if (!*s)
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *skip_ws(end))
        return 0;
    *out = v;
    return 1;
}

/* A shape attribute: "1,3,224,224", "4, 32, 1, 3", "" (scalar), "?" / "-1" /
 * "1..32" (dynamic dims), "..." (dynamic rank -> *dyn_rank). */
static int parse_shape(const char *s, int *rank, int64_t *d, int *dyn, int *dyn_rank)
{
    *rank = 0;
    *dyn = 0;
    *dyn_rank = 0;
    s = skip_ws(s);
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
        const char *t = skip_ws(tok);
        char *te = tok + len;
        while (te > t && isspace((unsigned char)te[-1]))
            *--te = '\0';
        int64_t v;
        if (strcmp(t, "?") == 0 || strstr(t, "..")) {
            d[(*rank)++] = -1;
            *dyn = 1;
        } else if (parse_i64(t, &v) && v >= -1) {
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
    char *id = get_attr(pn, "id");
    int64_t v;
    int ok = id && parse_i64(id, &v) && v >= 0 && v <= INT_MAX;
    xmlFree(id);
    if (!ok)
        return lerr(c, L, "a port has a missing or malformed id");
    p->id = (long)v;
    char *prec = get_attr(pn, "precision");
    p->prec = prec_from_name(prec);
    xmlFree(prec);
    char *names = get_attr(pn, "names");
    if (names) {
        p->names = strdup(names);
        xmlFree(names);
        if (!p->names)
            return nomem(c);
    }
    for (xmlNodePtr dn = first_child(pn, "dim"); dn; dn = next_sibling(dn, "dim")) {
        if (p->rank >= SIM_MAX_RANK)
            return lerr(c, L, "port %ld has more than %d dims", p->id, SIM_MAX_RANK);
        char *txt = (char *)xmlNodeGetContent(dn);
        int64_t dv;
        int r, dy, dr;
        int64_t tmp[SIM_MAX_RANK];
        if (txt && parse_i64(txt, &dv) && dv >= -1) {
            p->d[p->rank++] = dv;
        } else if (txt && parse_shape(txt, &r, tmp, &dy, &dr) && r == 1 && dy) {
            p->d[p->rank++] = -1;
        } else {
            xmlFree(txt);
            return lerr(c, L, "port %ld has a malformed <dim>", p->id);
        }
        xmlFree(txt);
    }
    return SIM_OK;
}

static int parse_ports(cc *c, layer *L, xmlNodePtr group, port **out, int *count)
{
    int n = 0;
    for (xmlNodePtr pn = first_child(group, "port"); pn; pn = next_sibling(pn, "port"))
        n++;
    if (n > MAX_PORTS)
        return lerr(c, L, "too many ports (%d)", n);
    *count = n;
    *out = calloc((size_t)n + 1, sizeof(port));
    if (!*out)
        return nomem(c);
    int i = 0;
    for (xmlNodePtr pn = first_child(group, "port"); pn; pn = next_sibling(pn, "port")) {
        int rc = parse_port(c, L, pn, &(*out)[i++]);
        if (rc)
            return rc;
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if ((*out)[a].id == (*out)[b].id)
                return lerr(c, L, "port id %ld appears twice", (*out)[a].id);
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
    xmlNodePtr layers = first_child(net, "layers");
    if (!layers)
        return lerr(c, NULL, "IR: no <layers> element");
    int n = 0;
    for (xmlNodePtr ln = first_child(layers, "layer"); ln; ln = next_sibling(ln, "layer"))
        if (++n > MAX_LAYERS)
            return lerr(c, NULL, "IR: more than %d layers", MAX_LAYERS);
    if (n == 0)
        return lerr(c, NULL, "IR: no layers");
    c->layers = calloc((size_t)n, sizeof(layer));
    c->by_id = calloc((size_t)n, sizeof(int));
    if (!c->layers || !c->by_id)
        return nomem(c);
    c->n_layers = n;
    int i = 0;
    for (xmlNodePtr ln = first_child(layers, "layer"); ln; ln = next_sibling(ln, "layer"), i++) {
        layer *L = &c->layers[i];
        L->doc = i;
        L->node = ln;
        L->data = first_child(ln, "data");
        L->name = dup_attr(ln, "name", "");
        L->type = dup_attr(ln, "type", "");
        L->version = dup_attr(ln, "version", "opset1");
        if (!L->name || !L->type || !L->version)
            return nomem(c);
        char *id = get_attr(ln, "id");
        int64_t v;
        int ok = id && parse_i64(id, &v) && v >= 0 && v <= INT_MAX;
        xmlFree(id);
        if (!ok)
            return lerr(c, L, "missing or malformed layer id");
        L->id = (long)v;
        int rc = parse_ports(c, L, first_child(ln, "input"), &L->in, &L->n_in);
        if (!rc)
            rc = parse_ports(c, L, first_child(ln, "output"), &L->out, &L->n_out);
        if (rc)
            return rc;
        L->src = calloc((size_t)L->n_in + 1, sizeof(int));
        L->src_port = calloc((size_t)L->n_in + 1, sizeof(int));
        L->val = calloc((size_t)L->n_out + 1, sizeof(cval));
        if (!L->src || !L->src_port || !L->val)
            return nomem(c);
        for (int k = 0; k < L->n_in; k++)
            L->src[k] = -1;
        c->by_id[i] = i;
    }
    qsort_r(c->by_id, (size_t)n, sizeof(int), cmp_layer_id, c->layers);
    for (i = 1; i < n; i++)
        if (c->layers[c->by_id[i]].id == c->layers[c->by_id[i - 1]].id)
            return lerr(c, &c->layers[c->by_id[i]], "layer id is used twice");
    return SIM_OK;
}

static int edge_attr(xmlNodePtr e, const char *name, long *out)
{
    char *s = get_attr(e, name);
    int64_t v;
    int ok = s && parse_i64(s, &v) && v >= 0 && v <= INT_MAX;
    xmlFree(s);
    *out = ok ? (long)v : -1;
    return ok;
}

static int parse_edges(cc *c, xmlNodePtr net)
{
    xmlNodePtr edges = first_child(net, "edges");
    int k = 0;
    for (xmlNodePtr e = edges ? first_child(edges, "edge") : NULL; e; e = next_sibling(e, "edge"), k++) {
        long fl, fp, tl, tp;
        if (!edge_attr(e, "from-layer", &fl) || !edge_attr(e, "from-port", &fp) ||
            !edge_attr(e, "to-layer", &tl) || !edge_attr(e, "to-port", &tp))
            return lerr(c, NULL, "IR: edge %d has a missing or malformed attribute", k);
        layer *from = layer_by_id(c, fl), *to = layer_by_id(c, tl);
        if (!from || !to)
            return lerr(c, NULL, "IR: edge %d refers to layer id %ld, which does not exist", k,
                        from ? tl : fl);
        int op = port_index(from->out, from->n_out, fp);
        if (op < 0)
            return lerr(c, from, "edge %d leaves port %ld, which is not an output port", k, fp);
        int ip = port_index(to->in, to->n_in, tp);
        if (ip < 0)
            return lerr(c, to, "edge %d enters port %ld, which is not an input port", k, tp);
        if (to->src[ip] >= 0)
            return lerr(c, to, "input port %ld has more than one incoming edge", tp);
        to->src[ip] = (int)(from - c->layers);
        to->src_port[ip] = op;
        from->out[op].uses++;
    }
    for (int i = 0; i < c->n_layers; i++) {
        layer *L = &c->layers[i];
        for (int p = 0; p < L->n_in; p++)
            if (L->src[p] < 0)
                return lerr(c, L, "input port %ld is not connected (missing edge)", L->in[p].id);
    }
    return SIM_OK;
}

/* Kahn's algorithm in document order; fails on a cycle. */
static int topo_order(cc *c, int *order)
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
        rc = nomem(c);
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
                rc = lerr(c, &c->layers[i], "the edges form a cycle through this layer");
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

/* ==== values: tensors, constants, arena buffers ============================== */

static uint32_t add_tensor(cc *c, uint32_t where, uint64_t offset, uint32_t et, int rank,
                           const int64_t *d)
{
    if (!grow(&c->tensors, &c->cap_tensors, c->n_tensors + 1, sizeof(sim_tensor))) {
        c->nomem = 1;
        return NO_TENSOR;
    }
    sim_tensor *t = &c->tensors[c->n_tensors];
    memset(t, 0, sizeof *t);
    t->where = where;
    t->et = et;
    t->offset = offset;
    t->rank = rank;
    for (int i = 0; i < rank; i++)
        t->d[i] = d[i];
    return c->n_tensors++;
}

static int numel_of(int rank, const int64_t *d, uint64_t *n)
{
    sim_tensor t;
    memset(&t, 0, sizeof t);
    t.rank = rank;
    for (int i = 0; i < rank; i++)
        t.d[i] = d[i];
    int ok;
    *n = sim_tensor_numel(&t, &ok);
    return ok;
}

/* A new arena buffer of the given shape; returns its tensor. */
static uint32_t add_arena(cc *c, uint32_t et, int rank, const int64_t *d)
{
    uint64_t n;
    if (!numel_of(rank, d, &n) || !grow(&c->buf_size, &c->cap_bufs, c->n_bufs + 1, sizeof(uint64_t))) {
        c->nomem = 1;
        return NO_TENSOR;
    }
    c->buf_size[c->n_bufs] = n;
    return add_tensor(c, SIM_T_ARENA, c->n_bufs++, et, rank, d);
}

static int pool_alloc(cc *c, uint64_t n, uint64_t *off)
{
    n = (n + 15) & ~(uint64_t)15;  /* every constant starts 64-byte aligned */
    if (c->pool_n + n > c->pool_cap) {
        uint64_t cap = c->pool_cap ? c->pool_cap : 4096;
        while (cap < c->pool_n + n)
            cap *= 2;
        if (cap > ((uint64_t)1 << 34))
            return 0;
        float *q = realloc(c->pool, (size_t)cap * sizeof(float));
        if (!q)
            return 0;
        c->pool = q;
        c->pool_cap = cap;
    }
    /* Zero the whole slot, padding included: the pool goes into the native blob,
     * which must be a deterministic function of the model. */
    memset(c->pool + c->pool_n, 0, (size_t)n * sizeof(float));
    *off = c->pool_n;
    c->pool_n += n;
    return 1;
}

/* Makes sure a value has a tensor (copies a raw constant into the pool as f32). */
static int materialize(cc *c, cval *v)
{
    if (v->tensor != NO_TENSOR)
        return SIM_OK;
    uint64_t n, off;
    uint32_t esz = sim_prec_size(v->raw_et);
    if (!numel_of(v->rank, v->d, &n) || !pool_alloc(c, n, &off))
        return nomem(c);
    uint8_t tmp[4096];
    uint64_t chunk = sizeof tmp / esz;
    for (uint64_t i = 0; i < n; i += chunk) {
        uint64_t m = n - i < chunk ? n - i : chunk;
        memcpy(tmp, v->raw + i * esz, (size_t)(m * esz)); /* raw may be unaligned */
        sim_cvt_to_f32(v->raw_et, tmp, c->pool + off + i, (size_t)m);
    }
    v->tensor = add_tensor(c, SIM_T_CONST, off, v->et, v->rank, v->d);
    return v->tensor == NO_TENSOR ? nomem(c) : SIM_OK;
}

static int is_const(const cc *c, const cval *v)
{
    return v->tensor == NO_TENSOR || c->tensors[v->tensor].where == SIM_T_CONST;
}

/* The same storage under another shape (Reshape, Squeeze, ...). */
static int alias(cc *c, const cval *src, uint32_t et, int rank, const int64_t *d, cval *out)
{
    *out = *src;
    out->et = et;
    out->rank = rank;
    for (int i = 0; i < rank; i++)
        out->d[i] = d[i];
    if (src->tensor == NO_TENSOR)
        return SIM_OK;
    const sim_tensor *t = &c->tensors[src->tensor];
    out->tensor = add_tensor(c, t->where, t->offset, et, rank, d);
    return out->tensor == NO_TENSOR ? nomem(c) : SIM_OK;
}

static cval *input(cc *c, layer *L, int i)
{
    return &c->layers[L->src[i]].val[L->src_port[i]];
}

/* Integer contents of a constant input (shapes, axes, permutations). */
static int const_ints(cc *c, layer *L, int i, int64_t *out, int max, int *count, const char *what)
{
    cval *v = input(c, L, i);
    if (!is_const(c, v))
        return lerr(c, L, "input %d (%s) must be a constant", i, what);
    uint64_t n;
    if (!numel_of(v->rank, v->d, &n) || v->rank > 1 || n > (uint64_t)max)
        return lerr(c, L, "input %d (%s) must be a scalar or 1-D with at most %d values", i, what, max);
    for (uint64_t k = 0; k < n; k++) {
        if (v->tensor == NO_TENSOR) {
            const uint8_t *p = v->raw;
            switch (v->raw_et) {
            case SIM_P_I64: { int64_t x; memcpy(&x, p + k * 8, 8); out[k] = x; break; }
            case SIM_P_I32: { int32_t x; memcpy(&x, p + k * 4, 4); out[k] = x; break; }
            case SIM_P_I8: out[k] = (int8_t)p[k]; break;
            case SIM_P_U8: out[k] = p[k]; break;
            default:
                return lerr(c, L, "input %d (%s) must have an integer element type", i, what);
            }
        } else {
            float f = c->pool[c->tensors[v->tensor].offset + k];
            if (f != (float)(int64_t)f)
                return lerr(c, L, "input %d (%s) holds a non-integer value", i, what);
            out[k] = (int64_t)f;
        }
    }
    *count = (int)n;
    return SIM_OK;
}

/* Appends a step reading `ins` and writing a new tensor of the given shape. Steps
 * whose inputs are all constants run right here and their result joins the pool. */
static int emit(cc *c, layer *L, sim_step *s, cval **ins, int n_in, uint32_t et, int rank,
                const int64_t *d, cval *out)
{
    for (int i = 0; i < n_in; i++) {
        int rc = materialize(c, ins[i]);
        if (rc)
            return rc;
    }
    int all_const = 1;
    for (int i = 0; i < n_in; i++)
        all_const &= c->tensors[ins[i]->tensor].where == SIM_T_CONST;
    uint64_t n;
    if (!numel_of(rank, d, &n))
        return lerr(c, L, "output is too large");
    if (!grow(&c->step_inputs, &c->cap_step_inputs, c->n_step_inputs + (uint32_t)n_in,
              sizeof(uint32_t)) ||
        !grow(&c->steps, &c->cap_steps, c->n_steps + 1, sizeof(sim_step)))
        return nomem(c);
    s->in_first = c->n_step_inputs;
    s->in_count = (uint32_t)n_in;
    for (int i = 0; i < n_in; i++)
        c->step_inputs[c->n_step_inputs + (uint32_t)i] = ins[i]->tensor;
    if (sim_prec_is_integer(et) && s->op != SIM_S_CONVERT && s->op != SIM_S_SLICE &&
        s->op != SIM_S_GATHER && s->op != SIM_S_TRANSPOSE && s->op != SIM_S_CONCAT)
        s->round_prec = et;
    int fold = all_const && n <= MAX_FOLD_FLOATS;
    uint64_t off = 0;
    if (fold && !pool_alloc(c, n, &off))
        return nomem(c);
    s->out = fold ? add_tensor(c, SIM_T_ARENA, off, et, rank, d) : add_arena(c, et, rank, d);
    if (s->out == NO_TENSOR)
        return nomem(c);
    sim_plan view;
    memset(&view, 0, sizeof view);
    view.tensors = c->tensors;
    view.n_tensors = c->n_tensors;
    view.step_inputs = c->step_inputs;
    view.n_step_inputs = c->n_step_inputs + (uint32_t)n_in;
    view.consts = c->pool;
    if (!sim_step_check(&view, s))
        return lerr(c, L, "internal error: inconsistent step (op %u)", s->op);
    memset(out, 0, sizeof *out);
    out->set = 1;
    out->et = et;
    out->rank = rank;
    for (int i = 0; i < rank; i++)
        out->d[i] = d[i];
    out->tensor = s->out;
    c->n_step_inputs += (uint32_t)n_in;
    if (fold) {
        int rc = sim_step_run(&view, c->pool, s);
        if (rc)
            return nomem(c);
        c->tensors[s->out].where = SIM_T_CONST;
        return SIM_OK;
    }
    c->steps[c->n_steps++] = *s;
    return SIM_OK;
}

/* ==== ops: attributes ======================================================== */

static int has_attr(layer *L, const char *name)
{
    char *v = get_attr(L->data, name);
    xmlFree(v);
    return v != NULL;
}

/* Copies attribute `name` into buf (truncated); returns 0 when absent. */
static int attr_str(layer *L, const char *name, char *buf, size_t cap)
{
    char *v = get_attr(L->data, name);
    if (!v)
        return 0;
    snprintf(buf, cap, "%s", v);
    xmlFree(v);
    return 1;
}

static int attr_int(cc *c, layer *L, const char *name, int64_t dflt, int64_t *out)
{
    char buf[64];
    if (!attr_str(L, name, buf, sizeof buf)) {
        *out = dflt;
        return SIM_OK;
    }
    if (!parse_i64(buf, out))
        return lerr(c, L, "attribute %s=\"%s\" is not an integer", name, buf);
    return SIM_OK;
}

static int attr_bool(cc *c, layer *L, const char *name, int dflt, int *out)
{
    char buf[16];
    if (!attr_str(L, name, buf, sizeof buf)) {
        *out = dflt;
        return SIM_OK;
    }
    if (!strcasecmp(buf, "true") || !strcmp(buf, "1"))
        *out = 1;
    else if (!strcasecmp(buf, "false") || !strcmp(buf, "0"))
        *out = 0;
    else
        return lerr(c, L, "attribute %s=\"%s\" is not a boolean", name, buf);
    return SIM_OK;
}

static int attr_float(cc *c, layer *L, const char *name, double *out)
{
    char buf[64];
    if (!attr_str(L, name, buf, sizeof buf))
        return lerr(c, L, "attribute %s is missing", name);
    char *end;
    errno = 0;
    *out = strtod(buf, &end);
    if (end == buf || *skip_ws(end))
        return lerr(c, L, "attribute %s=\"%s\" is not a number", name, buf);
    return SIM_OK;
}

/* A list attribute with exactly `want` values ("1, 1"); absent -> dflt each. */
static int attr_list(cc *c, layer *L, const char *name, int want, int64_t dflt, int64_t *out)
{
    char buf[256];
    if (!attr_str(L, name, buf, sizeof buf)) {
        for (int i = 0; i < want; i++)
            out[i] = dflt;
        return SIM_OK;
    }
    int rank, dyn, dyn_rank;
    int64_t d[SIM_MAX_RANK];
    if (!parse_shape(buf, &rank, d, &dyn, &dyn_rank) || dyn || rank != want)
        return lerr(c, L, "attribute %s=\"%s\" needs %d non-negative integers", name, buf, want);
    for (int i = 0; i < want; i++)
        out[i] = d[i];
    return SIM_OK;
}

static int need_ports(cc *c, layer *L, int min_in, int max_in, int min_out)
{
    if (L->n_in < min_in || L->n_in > max_in)
        return lerr(c, L, "%s expects %d..%d inputs, has %d", L->type, min_in, max_in, L->n_in);
    if (L->n_out < min_out)
        return lerr(c, L, "%s expects %d output(s), has %d", L->type, min_out, L->n_out);
    return SIM_OK;
}

static int norm_axis(cc *c, layer *L, int64_t axis, int rank, int allow_negative, int *out)
{
    if (axis < 0 && allow_negative)
        axis += rank;
    if (axis < 0 || axis >= rank)
        return lerr(c, L, "axis %" PRId64 " is out of range for rank %d", axis, rank);
    *out = (int)axis;
    return SIM_OK;
}

/* Parses element-type attribute `name`; unsupported or missing -> error. */
static int attr_et(cc *c, layer *L, const char *name, uint32_t *out)
{
    char buf[64];
    if (!attr_str(L, name, buf, sizeof buf))
        return lerr(c, L, "attribute %s is missing", name);
    *out = prec_from_name(buf);
    if (!*out)
        return lerr(c, L, "unsupported element type %s", buf);
    return SIM_OK;
}

/* ==== ops: handlers ========================================================== */

typedef int (*op_fn)(cc *c, layer *L, int opset, int sub);

static int check_declared(cc *c, layer *L, int rank, const int64_t *d)
{
    const port *p = &L->out[0];
    int ok = p->rank == rank;
    for (int i = 0; ok && i < rank; i++)
        ok = p->d[i] == d[i];
    if (!ok) {
        char a[160], b[160];
        fmt_dims(a, sizeof a, p->rank, p->d);
        fmt_dims(b, sizeof b, rank, d);
        return lerr(c, L, "declared output dims %s do not match shape %s", a, b);
    }
    return SIM_OK;
}

static int op_parameter(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 0, 0, 1);
    if (rc)
        return rc;
    uint32_t et = 0;
    char buf[512];
    if (has_attr(L, "element_type")) {
        if ((rc = attr_et(c, L, "element_type", &et)))
            return rc;
    } else if (!(et = L->out[0].prec)) {
        return lerr(c, L, "no supported element type");
    }
    int rank, dyn, dyn_rank;
    int64_t d[SIM_MAX_RANK];
    if (attr_str(L, "shape", buf, sizeof buf)) {
        if (!parse_shape(buf, &rank, d, &dyn, &dyn_rank))
            return lerr(c, L, "malformed shape \"%s\"", buf);
    } else {
        rank = L->out[0].rank;
        memcpy(d, L->out[0].d, sizeof d);
        dyn = 0;
        for (int i = 0; i < rank; i++)
            dyn |= d[i] < 0;
    }
    if (dyn)
        return lerr(c, L, "dynamic shape on input '%s' not supported by the sim compiler; "
                          "reshape to static first", L->name);
    if ((rc = check_declared(c, L, rank, d)))
        return rc;
    cval *v = &L->val[0];
    v->set = 1;
    v->et = et;
    v->rank = rank;
    memcpy(v->d, d, sizeof d);
    v->tensor = add_arena(c, et, rank, d);
    return v->tensor == NO_TENSOR ? nomem(c) : SIM_OK;
}

/* OpenVINO's get_uint64_attr: std::stoll in base 10 (leading blanks and a sign
 * allowed), the whole text consumed, not negative. So no hex, and nothing above
 * INT64_MAX. */
static int parse_u64_attr(const char *s, uint64_t *out)
{
    if (!s)
        return 0;
    const char *t = s;
    while (isspace((unsigned char)*t))
        t++;
    if (!*t)
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(t, &end, 10);
    if (errno || end == t || *end || v < 0)
        return 0;
    *out = (uint64_t)v;
    return 1;
}

/* Layout B: <rt_info><attribute name="WeightsPointerAttribute" mp=".." ms=".."/>. */
static xmlNodePtr weights_pointer(layer *L)
{
    xmlNodePtr rt = first_child(L->node, "rt_info");
    for (xmlNodePtr a = first_child(rt, "attribute"); a; a = next_sibling(a, "attribute")) {
        char *name = get_attr(a, "name");
        int hit = name && strcmp(name, "WeightsPointerAttribute") == 0;
        xmlFree(name);
        if (hit)
            return a;
    }
    return NULL;
}

static int op_const(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    static const uint8_t empty[8];
    int rc = need_ports(c, L, 0, 0, 1);
    if (rc)
        return rc;
    uint32_t et;
    if ((rc = attr_et(c, L, "element_type", &et)))
        return rc;
    char buf[512];
    int rank, dyn, dyn_rank;
    int64_t d[SIM_MAX_RANK];
    if (!attr_str(L, "shape", buf, sizeof buf) || !parse_shape(buf, &rank, d, &dyn, &dyn_rank) || dyn)
        return lerr(c, L, "missing, malformed or dynamic shape");
    if ((rc = check_declared(c, L, rank, d)))
        return rc;
    uint64_t n;
    if (!numel_of(rank, d, &n))
        return lerr(c, L, "constant is too large");
    uint64_t need = n * sim_prec_size(et);
    const uint8_t *raw = NULL;
    xmlNodePtr wp = c->pl.layout_b ? weights_pointer(L) : NULL;
    if (wp) {
        /* The key names are those of the OpenVINO the compiler was built with. */
        const char *kp = c->prof->wpa_ptr_key ? c->prof->wpa_ptr_key : "mp";
        const char *ks = c->prof->wpa_size_key ? c->prof->wpa_size_key : "ms";
        uint64_t addr = 0, size = 0;
        for (int k = 0; k < 2; k++) {
            const char *key = k ? ks : kp;
            char *txt = get_attr(wp, key);
            int ok = txt && parse_u64_attr(txt, k ? &size : &addr);
            if (!txt)
                rc = lerr_rc(c, L, SIM_ERR_READ_MODEL,
                             "node <attribute> (WeightsPointerAttribute) is missing mandatory "
                             "attribute: %s", key);
            else if (!ok)
                rc = lerr_rc(c, L, SIM_ERR_READ_MODEL,
                             "node <attribute> (WeightsPointerAttribute) has attribute \"%s\" = "
                             "\"%s\" which is not an unsigned 64 bit integer", key, txt);
            xmlFree(txt);
            if (rc)
                return rc;
        }
        if (size != need)
            return lerr(c, L, "Const size mismatch: WeightsPointerAttribute %s=%" PRIu64
                              " but %" PRIu64 " x %s needs %" PRIu64 " bytes",
                        ks, size, n, sim_prec_name(et), need);
        if (need && !addr)
            return lerr(c, L, "WeightsPointerAttribute has a null address");
        /* The address is in this process: the driver's caller serialized it (trusted
         * by design, as for the real driver's in-process compiler). A fuzz target
         * cannot trust it, so it maps addresses into its own buffer instead
         * (tests/fuzz/sim_fuzz.h defines SIM_FUZZ_WEIGHTS_POINTER). */
#ifdef SIM_FUZZ_WEIGHTS_POINTER
        raw = need ? SIM_FUZZ_WEIGHTS_POINTER(addr, need) : empty;
        if (!raw)
            return lerr(c, L, "WeightsPointerAttribute outside the fuzz weights");
#else
        raw = need ? (const uint8_t *)(uintptr_t)addr : empty;
#endif
    } else {
        int64_t off, size;
        if ((rc = attr_int(c, L, "offset", -1, &off)) || (rc = attr_int(c, L, "size", -1, &size)))
            return rc;
        if (off < 0 || size < 0)
            return lerr(c, L, "Const without valid offset/size");
        if ((uint64_t)size != need)
            return lerr(c, L, "Const size mismatch: size=%" PRId64 " but %" PRIu64 " x %s needs %"
                              PRIu64 " bytes", size, n, sim_prec_name(et), need);
        if (!range_ok((uint64_t)off, (uint64_t)size, c->pl.consts_size))
            return lerr(c, L, "Const bytes %" PRId64 "+%" PRId64 " lie outside the %zu-byte %s",
                        off, size, c->pl.consts_size, c->pl.layout_b ? "constants blob" : "weights");
        raw = need ? c->pl.consts + off : empty;
    }
    cval *v = &L->val[0];
    v->set = 1;
    v->et = et;
    v->raw_et = et;
    v->raw = raw;
    v->rank = rank;
    memcpy(v->d, d, sizeof d);
    v->tensor = NO_TENSOR;
    return SIM_OK;
}

static int op_result(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 1, 1, 0);
    if (rc)
        return rc;
    return materialize(c, input(c, L, 0));
}

static int op_convert(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 1, 1, 1);
    uint32_t to;
    if (rc || (rc = attr_et(c, L, "destination_type", &to)))
        return rc;
    cval *x = input(c, L, 0);
    /* Values are f32 inside, so converting to f32 (or to the same type) changes nothing. */
    if (to == SIM_P_FP32 || to == x->et)
        return alias(c, x, to, x->rank, x->d, &L->val[0]);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_CONVERT;
    s.prec = to;
    return emit(c, L, &s, &x, 1, to, x->rank, x->d, &L->val[0]);
}

static int op_unary(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    int rc = need_ports(c, L, 1, 1, 1);
    if (rc)
        return rc;
    cval *x = input(c, L, 0);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_UNARY;
    s.sub = (uint32_t)sub;
    return emit(c, L, &s, &x, 1, x->et, x->rank, x->d, &L->val[0]);
}

static int op_clamp(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 1, 1, 1);
    double lo, hi;
    if (rc || (rc = attr_float(c, L, "min", &lo)) || (rc = attr_float(c, L, "max", &hi)))
        return rc;
    if (lo > hi)
        return lerr(c, L, "Clamp min %g > max %g", lo, hi);
    cval *x = input(c, L, 0);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_CLAMP;
    s.lo = (float)lo;
    s.hi = (float)hi;
    return emit(c, L, &s, &x, 1, x->et, x->rank, x->d, &L->val[0]);
}

static int broadcast(const cval *a, const cval *b, int64_t *d, int *rank)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < r; i++) {
        int64_t x = i < r - a->rank ? 1 : a->d[i - (r - a->rank)];
        int64_t y = i < r - b->rank ? 1 : b->d[i - (r - b->rank)];
        if (x != y && x != 1 && y != 1)
            return 0;
        d[i] = x == 1 ? y : x;
    }
    *rank = r;
    return 1;
}

static int op_binary(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    int rc = need_ports(c, L, 2, 2, 1);
    if (rc)
        return rc;
    cval *in[2] = {input(c, L, 0), input(c, L, 1)};
    char mode[32] = "numpy";
    attr_str(L, "auto_broadcast", mode, sizeof mode);
    int64_t d[SIM_MAX_RANK];
    int rank;
    char a[160], b[160];
    fmt_dims(a, sizeof a, in[0]->rank, in[0]->d);
    fmt_dims(b, sizeof b, in[1]->rank, in[1]->d);
    if (!strcasecmp(mode, "none")) {
        int same = in[0]->rank == in[1]->rank;
        for (int i = 0; same && i < in[0]->rank; i++)
            same = in[0]->d[i] == in[1]->d[i];
        if (!same)
            return lerr(c, L, "auto_broadcast=none needs equal shapes, got %s and %s", a, b);
    } else if (strcasecmp(mode, "numpy") != 0) {
        return lerr(c, L, "unsupported auto_broadcast=\"%s\" (numpy or none)", mode);
    }
    if (!broadcast(in[0], in[1], d, &rank))
        return lerr(c, L, "shapes %s and %s do not broadcast", a, b);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_BINARY;
    s.sub = (uint32_t)sub;
    return emit(c, L, &s, in, 2, in[0]->et, rank, d, &L->val[0]);
}

static int op_softmax(cc *c, layer *L, int opset, int sub)
{
    (void)sub;
    int rc = need_ports(c, L, 1, 1, 1);
    int64_t axis;
    if (rc || (rc = attr_int(c, L, "axis", 1, &axis)))
        return rc;
    cval *x = input(c, L, 0);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_SOFTMAX;
    if ((rc = norm_axis(c, L, axis, x->rank, opset >= 8, &s.axis)))
        return rc;
    return emit(c, L, &s, &x, 1, x->et, x->rank, x->d, &L->val[0]);
}

static int op_matmul(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 2, 2, 1);
    int ta, tb;
    if (rc || (rc = attr_bool(c, L, "transpose_a", 0, &ta)) || (rc = attr_bool(c, L, "transpose_b", 0, &tb)))
        return rc;
    cval a = *input(c, L, 0), b = *input(c, L, 1);
    if (a.rank < 1 || b.rank < 1)
        return lerr(c, L, "MatMul operands must have rank >= 1");
    /* 1-D operands become [1,K] / [K,1]; the added dim is dropped from the result. */
    int drop_m = a.rank == 1, drop_n = b.rank == 1;
    cval a2, b2;
    int64_t d[SIM_MAX_RANK];
    if (drop_m) {
        d[0] = 1;
        d[1] = a.d[0];
        ta = 0;
        if ((rc = alias(c, input(c, L, 0), a.et, 2, d, &a2)))
            return rc;
    } else {
        a2 = a;
    }
    if (drop_n) {
        d[0] = b.d[0];
        d[1] = 1;
        tb = 0;
        if ((rc = alias(c, input(c, L, 1), b.et, 2, d, &b2)))
            return rc;
    } else {
        b2 = b;
    }
    int64_t m = ta ? a2.d[a2.rank - 1] : a2.d[a2.rank - 2];
    int64_t ka = ta ? a2.d[a2.rank - 2] : a2.d[a2.rank - 1];
    int64_t kb = tb ? b2.d[b2.rank - 1] : b2.d[b2.rank - 2];
    int64_t n = tb ? b2.d[b2.rank - 2] : b2.d[b2.rank - 1];
    char sa[160], sb[160];
    fmt_dims(sa, sizeof sa, a.rank, a.d);
    fmt_dims(sb, sizeof sb, b.rank, b.d);
    if (ka != kb)
        return lerr(c, L, "MatMul inner dims differ: %s x %s (transpose_a=%d transpose_b=%d)", sa, sb,
                    ta, tb);
    cval ba = a2, bb = b2;
    ba.rank -= 2;
    bb.rank -= 2;
    int rank;
    if (!broadcast(&ba, &bb, d, &rank) || rank + 2 > SIM_MAX_RANK)
        return lerr(c, L, "MatMul batch dims of %s and %s do not broadcast", sa, sb);
    d[rank] = m;
    d[rank + 1] = n;
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_MATMUL;
    s.transpose_a = ta;
    s.transpose_b = tb;
    cval *ins[2] = {&a2, &b2};
    cval y;
    if ((rc = emit(c, L, &s, ins, 2, a.et, rank + 2, d, &y)))
        return rc;
    /* keep the materialized constants of the originals for other consumers */
    if (!drop_m)
        input(c, L, 0)->tensor = a2.tensor;
    if (!drop_n)
        input(c, L, 1)->tensor = b2.tensor;
    int fr = 0;
    int64_t fd[SIM_MAX_RANK];
    for (int i = 0; i < rank; i++)
        fd[fr++] = d[i];
    if (!drop_m)
        fd[fr++] = m;
    if (!drop_n)
        fd[fr++] = n;
    if (drop_m || drop_n)
        return alias(c, &y, a.et, fr, fd, &L->val[0]);
    L->val[0] = y;
    return SIM_OK;
}

/* Resolves auto_pad into explicit pads for one spatial dim. */
static void same_pads(int64_t in, int64_t k, int64_t st, int64_t dl, int upper, int64_t *pb, int64_t *pe)
{
    int64_t out = (in + st - 1) / st;
    int64_t span = (k - 1) * dl + 1;
    int64_t total = (out - 1) * st + span - in;
    if (total < 0)
        total = 0;
    *pb = upper ? total / 2 : total - total / 2;
    *pe = total - *pb;
}

/* Reads strides/dilations/pads/auto_pad (and kernel for pools) into s; computes
 * output spatial dims into od. `kernel` holds the kernel dims for convolutions. */
static int window_attrs(cc *c, layer *L, sim_step *s, const cval *x, int pool, int with_dil,
                        int64_t *od)
{
    int sp = x->rank - 2, rc;
    if (sp < 1 || sp > SIM_K_MAX_SPATIAL)
        return lerr(c, L, "input rank %d is not supported (3..5 = N, C and 1..3 spatial dims)", x->rank);
    s->spatial = sp;
    if (pool && (rc = attr_list(c, L, "kernel", sp, -1, s->kernel)))
        return rc;
    if ((rc = attr_list(c, L, "strides", sp, 1, s->strides)) ||
        (rc = attr_list(c, L, "pads_begin", sp, 0, s->pads_begin)) ||
        (rc = attr_list(c, L, "pads_end", sp, 0, s->pads_end)))
        return rc;
    if (with_dil) {
        if ((rc = attr_list(c, L, "dilations", sp, 1, s->dilations)))
            return rc;
    } else {
        for (int i = 0; i < sp; i++)
            s->dilations[i] = 1;
    }
    char pad[32] = "explicit", round[32] = "floor";
    attr_str(L, "auto_pad", pad, sizeof pad);
    attr_str(L, "rounding_type", round, sizeof round);
    int ceil_mode = 0;
    if (pool) {
        if (!strcasecmp(round, "ceil") || !strcasecmp(round, "ceil_torch"))
            ceil_mode = 1;
        else if (strcasecmp(round, "floor") != 0)
            return lerr(c, L, "unsupported rounding_type=\"%s\"", round);
    }
    int mode; /* 0 explicit, 1 valid, 2 same_upper, 3 same_lower */
    if (!strcasecmp(pad, "explicit") || !strcasecmp(pad, "notset") || !pad[0])
        mode = 0;
    else if (!strcasecmp(pad, "valid"))
        mode = 1;
    else if (!strcasecmp(pad, "same_upper"))
        mode = 2;
    else if (!strcasecmp(pad, "same_lower"))
        mode = 3;
    else
        return lerr(c, L, "unsupported auto_pad=\"%s\"", pad);
    for (int i = 0; i < sp; i++) {
        int64_t in = x->d[2 + i], k = s->kernel[i], st = s->strides[i], dl = s->dilations[i];
        if (k < 1 || st < 1 || dl < 1 || k > (1 << 30) || st > (1 << 30) || dl > (1 << 30) ||
            s->pads_begin[i] < 0 || s->pads_end[i] < 0 || s->pads_begin[i] > (1 << 30) ||
            s->pads_end[i] > (1 << 30))
            return lerr(c, L, "kernel, strides, dilations and pads must be positive (dim %d)", i);
        if (mode == 1)
            s->pads_begin[i] = s->pads_end[i] = 0;
        else if (mode >= 2)
            same_pads(in, k, st, dl, mode == 2, &s->pads_begin[i], &s->pads_end[i]);
        int64_t span = (k - 1) * dl + 1, room = in + s->pads_begin[i] + s->pads_end[i] - span;
        if (room < 0)
            return lerr(c, L, "window %" PRId64 " is larger than the padded input %" PRId64
                              " (spatial dim %d)", span, in + s->pads_begin[i] + s->pads_end[i], i);
        int64_t o = room / st + 1;
        if (ceil_mode && room % st) {
            o++;
            if ((o - 1) * st >= in + s->pads_begin[i]) /* last window must start inside */
                o--;
        }
        od[i] = o;
    }
    return SIM_OK;
}

static int op_conv(cc *c, layer *L, int opset, int group)
{
    (void)opset;
    int rc = need_ports(c, L, 2, 2, 1);
    if (rc)
        return rc;
    cval *x = input(c, L, 0), *w = input(c, L, 1);
    cval w2 = *w;
    int64_t groups = 1;
    char sx[160], sw[160];
    fmt_dims(sx, sizeof sx, x->rank, x->d);
    fmt_dims(sw, sizeof sw, w->rank, w->d);
    if (group) {
        if (w->rank != x->rank + 1 || x->rank < 3)
            return lerr(c, L, "GroupConvolution weights %s do not fit input %s", sw, sx);
        int64_t d[SIM_MAX_RANK];
        groups = w->d[0];
        d[0] = w->d[0] * w->d[1];
        for (int i = 2; i < w->rank; i++)
            d[i - 1] = w->d[i];
        if ((rc = alias(c, w, w->et, w->rank - 1, d, &w2)))
            return rc;
    }
    if (w2.rank != x->rank || x->rank < 3 || groups < 1 || x->d[1] != groups * w2.d[1] ||
        w2.d[0] % groups)
        return lerr(c, L, "weights %s do not fit input %s (groups %" PRId64 ")", sw, sx, groups);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_CONV;
    s.groups = groups;
    for (int i = 0; i + 2 < w2.rank && i < SIM_K_MAX_SPATIAL; i++)
        s.kernel[i] = w2.d[2 + i];
    int64_t d[SIM_MAX_RANK];
    if ((rc = window_attrs(c, L, &s, x, 0, 1, d + 2)))
        return rc;
    d[0] = x->d[0];
    d[1] = w2.d[0];
    cval *ins[2] = {x, &w2};
    if ((rc = emit(c, L, &s, ins, 2, x->et, x->rank, d, &L->val[0])))
        return rc;
    if (!group)
        w->tensor = w2.tensor;
    return SIM_OK;
}

static int op_pool(cc *c, layer *L, int opset, int avg)
{
    int rc = need_ports(c, L, 1, 1, 1);
    if (rc)
        return rc;
    if (!avg && L->n_out > 1) {
        for (int i = 1; i < L->n_out; i++)
            if (L->out[i].uses)
                return lerr(c, L, "MaxPool-8 indices output (port %ld) is connected; only "
                                  "the values output is supported", L->out[i].id);
    }
    cval *x = input(c, L, 0);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = avg ? SIM_S_AVGPOOL : SIM_S_MAXPOOL;
    if (avg && (rc = attr_bool(c, L, "exclude-pad", 0, &s.exclude_pad)))
        return rc;
    int64_t d[SIM_MAX_RANK];
    if ((rc = window_attrs(c, L, &s, x, 1, !avg && opset >= 8, d + 2)))
        return rc;
    d[0] = x->d[0];
    d[1] = x->d[1];
    return emit(c, L, &s, &x, 1, x->et, x->rank, d, &L->val[0]);
}

static int op_reduce(cc *c, layer *L, int opset, int mean)
{
    (void)opset;
    int rc = need_ports(c, L, 2, 2, 1);
    int keep, n;
    int64_t axes[SIM_MAX_RANK * 4];
    if (rc || (rc = attr_bool(c, L, "keep_dims", 0, &keep)) ||
        (rc = const_ints(c, L, 1, axes, SIM_MAX_RANK * 4, &n, "axes")))
        return rc;
    cval *x = input(c, L, 0);
    uint32_t mask = 0;
    for (int i = 0; i < n; i++) {
        int a = 0;
        if ((rc = norm_axis(c, L, axes[i], x->rank, 1, &a)))
            return rc;
        mask |= 1u << a;
    }
    int64_t d[SIM_MAX_RANK];
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (!(mask & (1u << i)))
            d[r++] = x->d[i];
        else if (keep)
            d[r++] = 1;
    }
    if (!mask)
        return alias(c, x, x->et, r, d, &L->val[0]);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_REDUCE;
    s.sub = (uint32_t)mean;
    s.axes_mask = mask;
    return emit(c, L, &s, &x, 1, x->et, r, d, &L->val[0]);
}

static int op_reshape(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 2, 2, 1);
    int special, n;
    int64_t t[SIM_MAX_RANK + 1];
    if (rc || (rc = attr_bool(c, L, "special_zero", 0, &special)) ||
        (rc = const_ints(c, L, 1, t, SIM_MAX_RANK, &n, "target shape")))
        return rc;
    cval *x = input(c, L, 0);
    uint64_t in_n, known = 1;
    numel_of(x->rank, x->d, &in_n);
    int infer = -1;
    for (int i = 0; i < n; i++) {
        if (t[i] == 0 && special) {
            if (i >= x->rank)
                return lerr(c, L, "special_zero copies dim %d, but the input has rank %d", i, x->rank);
            t[i] = x->d[i];
        }
        if (t[i] == -1) {
            if (infer >= 0)
                return lerr(c, L, "target shape has more than one -1");
            infer = i;
            continue;
        }
        if (t[i] < 0)
            return lerr(c, L, "target shape has a negative dim %" PRId64, t[i]);
        known *= (uint64_t)t[i];
        if (known > ((uint64_t)1 << 40))
            return lerr(c, L, "target shape is too large");
    }
    if (infer >= 0) {
        if (known == 0 || in_n % known)
            return lerr(c, L, "cannot infer the -1 dim: %" PRIu64 " elements into %" PRIu64,
                        in_n, known);
        t[infer] = (int64_t)(in_n / known);
        known = in_n;
    }
    if (known != in_n) {
        char a[160], b[160];
        fmt_dims(a, sizeof a, x->rank, x->d);
        fmt_dims(b, sizeof b, n, t);
        return lerr(c, L, "cannot reshape %s into %s", a, b);
    }
    return alias(c, x, x->et, n, t, &L->val[0]);
}

static int op_squeeze(cc *c, layer *L, int opset, int unsq)
{
    (void)opset;
    int rc = need_ports(c, L, unsq ? 2 : 1, 2, 1);
    if (rc)
        return rc;
    cval *x = input(c, L, 0);
    int64_t axes[SIM_MAX_RANK * 2], d[SIM_MAX_RANK];
    int n = 0, r = 0;
    if (L->n_in == 2 && (rc = const_ints(c, L, 1, axes, SIM_MAX_RANK * 2, &n, "axes")))
        return rc;
    if (unsq) {
        int out_rank = x->rank + n, marked[SIM_MAX_RANK] = {0};
        if (out_rank > SIM_MAX_RANK)
            return lerr(c, L, "result rank %d exceeds %d", out_rank, SIM_MAX_RANK);
        for (int i = 0; i < n; i++) {
            int a = 0;
            if ((rc = norm_axis(c, L, axes[i], out_rank, 1, &a)))
                return rc;
            if (marked[a])
                return lerr(c, L, "axis %d repeats", a);
            marked[a] = 1;
        }
        for (int i = 0, k = 0; i < out_rank; i++)
            d[r++] = marked[i] ? 1 : x->d[k++];
    } else {
        uint32_t mask = 0;
        for (int i = 0; i < n; i++) {
            int a = 0;
            if ((rc = norm_axis(c, L, axes[i], x->rank, 1, &a)))
                return rc;
            if (x->d[a] != 1)
                return lerr(c, L, "cannot squeeze axis %d of size %" PRId64, a, x->d[a]);
            mask |= 1u << a;
        }
        for (int i = 0; i < x->rank; i++)
            if (n ? !(mask & (1u << i)) : x->d[i] != 1)
                d[r++] = x->d[i];
    }
    return alias(c, x, x->et, r, d, &L->val[0]);
}

static int op_transpose(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 2, 2, 1);
    int n;
    int64_t perm[SIM_MAX_RANK];
    if (rc || (rc = const_ints(c, L, 1, perm, SIM_MAX_RANK, &n, "permutation")))
        return rc;
    cval *x = input(c, L, 0);
    if (n == 0) {
        n = x->rank;
        for (int i = 0; i < n; i++)
            perm[i] = n - 1 - i;
    }
    if (n != x->rank)
        return lerr(c, L, "permutation has %d entries for rank %d", n, x->rank);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_TRANSPOSE;
    int seen[SIM_MAX_RANK] = {0}, identity = 1;
    int64_t d[SIM_MAX_RANK];
    for (int i = 0; i < n; i++) {
        int a = 0;
        if ((rc = norm_axis(c, L, perm[i], n, 1, &a)))
            return rc;
        if (seen[a])
            return lerr(c, L, "permutation repeats axis %d", a);
        seen[a] = 1;
        s.perm[i] = a;
        d[i] = x->d[a];
        identity &= a == i;
    }
    if (identity)
        return alias(c, x, x->et, n, d, &L->val[0]);
    return emit(c, L, &s, &x, 1, x->et, n, d, &L->val[0]);
}

static int op_concat(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 1, MAX_PORTS, 1);
    int64_t axis;
    if (rc || (rc = attr_int(c, L, "axis", 0, &axis)))
        return rc;
    cval **ins = calloc((size_t)L->n_in, sizeof *ins);
    if (!ins)
        return nomem(c);
    cval *x = input(c, L, 0);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_CONCAT;
    int64_t d[SIM_MAX_RANK];
    if ((rc = norm_axis(c, L, axis, x->rank, 1, &s.axis)))
        goto out;
    memcpy(d, x->d, sizeof d);
    d[s.axis] = 0;
    for (int i = 0; i < L->n_in; i++) {
        ins[i] = input(c, L, i);
        int ok = ins[i]->rank == x->rank;
        for (int k = 0; ok && k < x->rank; k++)
            ok = k == s.axis || ins[i]->d[k] == x->d[k];
        if (!ok) {
            char a[160], b[160];
            fmt_dims(a, sizeof a, x->rank, x->d);
            fmt_dims(b, sizeof b, ins[i]->rank, ins[i]->d);
            rc = lerr(c, L, "input %d shape %s does not match %s outside axis %d", i, b, a, s.axis);
            goto out;
        }
        d[s.axis] += ins[i]->d[s.axis];
    }
    if (L->n_in == 1)
        rc = alias(c, x, x->et, x->rank, x->d, &L->val[0]);
    else
        rc = emit(c, L, &s, ins, L->n_in, x->et, x->rank, d, &L->val[0]);
out:
    free(ins);
    return rc;
}

/* Split (num_splits equal parts) and VariadicSplit (split_lengths). */
static int op_split(cc *c, layer *L, int opset, int variadic)
{
    (void)opset;
    int rc = need_ports(c, L, variadic ? 3 : 2, variadic ? 3 : 2, 1);
    int n_ax;
    int64_t axv[1];
    if (rc || (rc = const_ints(c, L, 1, axv, 1, &n_ax, "axis")))
        return rc;
    cval *x = input(c, L, 0);
    int axis = 0;
    if (n_ax != 1)
        return lerr(c, L, "axis must hold one value");
    if ((rc = norm_axis(c, L, axv[0], x->rank, 1, &axis)))
        return rc;
    int64_t len[MAX_PORTS];
    int parts;
    if (variadic) {
        if ((rc = const_ints(c, L, 2, len, MAX_PORTS, &parts, "split_lengths")))
            return rc;
        int64_t sum = 0;
        int infer = -1;
        for (int i = 0; i < parts; i++) {
            if (len[i] == -1 && infer < 0)
                infer = i;
            else if (len[i] < 0)
                return lerr(c, L, "bad split length %" PRId64, len[i]);
            else
                sum += len[i];
        }
        if (infer >= 0)
            len[infer] = x->d[axis] - sum;
        if (sum > x->d[axis] || (infer < 0 && sum != x->d[axis]))
            return lerr(c, L, "split lengths do not add up to %" PRId64, x->d[axis]);
    } else {
        int64_t ns;
        if ((rc = attr_int(c, L, "num_splits", 0, &ns)))
            return rc;
        if (ns < 1 || ns > MAX_PORTS || x->d[axis] % ns)
            return lerr(c, L, "num_splits=%" PRId64 " does not divide dim %" PRId64, ns, x->d[axis]);
        parts = (int)ns;
        for (int i = 0; i < parts; i++)
            len[i] = x->d[axis] / ns;
    }
    if (parts != L->n_out)
        return lerr(c, L, "%d parts but %d output ports", parts, L->n_out);
    int64_t start = 0;
    for (int i = 0; i < parts; i++) {
        sim_step s;
        memset(&s, 0, sizeof s);
        s.op = SIM_S_SLICE;
        s.axis = axis;
        s.start = start;
        int64_t d[SIM_MAX_RANK];
        memcpy(d, x->d, sizeof d);
        d[axis] = len[i];
        if ((rc = emit(c, L, &s, &x, 1, x->et, x->rank, d, &L->val[i])))
            return rc;
        start += len[i];
    }
    return SIM_OK;
}

/* ShapeOf: shapes are static here, so the result is a constant. */
static int op_shape_of(cc *c, layer *L, int opset, int sub)
{
    (void)sub;
    int rc = need_ports(c, L, 1, 1, 1);
    uint32_t et = SIM_P_I64;
    if (rc || (opset >= 3 && has_attr(L, "output_type") && (rc = attr_et(c, L, "output_type", &et))))
        return rc;
    if (et != SIM_P_I64 && et != SIM_P_I32)
        return lerr(c, L, "ShapeOf output_type must be i64 or i32");
    cval *x = input(c, L, 0);
    uint64_t off;
    if (!pool_alloc(c, (uint64_t)x->rank, &off))
        return nomem(c);
    for (int i = 0; i < x->rank; i++)
        c->pool[off + (uint64_t)i] = (float)x->d[i];
    int64_t d[1] = {x->rank};
    cval *v = &L->val[0];
    memset(v, 0, sizeof *v);
    v->set = 1;
    v->et = et;
    v->rank = 1;
    v->d[0] = x->rank;
    v->tensor = add_tensor(c, SIM_T_CONST, off, et, 1, d);
    return v->tensor == NO_TENSOR ? nomem(c) : SIM_OK;
}

/* Gather-1/7/8 with batch_dims 0; the axis is a constant input. */
static int op_gather(cc *c, layer *L, int opset, int sub)
{
    (void)sub;
    int rc = need_ports(c, L, 3, 3, 1);
    int64_t batch_dims = 0, axv[1];
    int n_ax;
    if (rc || (opset >= 7 && (rc = attr_int(c, L, "batch_dims", 0, &batch_dims))) ||
        (rc = const_ints(c, L, 2, axv, 1, &n_ax, "axis")))
        return rc;
    if (batch_dims != 0)
        return lerr(c, L, "Gather with batch_dims=%" PRId64 " is not supported (only 0)", batch_dims);
    if (n_ax != 1)
        return lerr(c, L, "axis must hold one value");
    cval *x = input(c, L, 0), *idx = input(c, L, 1);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_GATHER;
    if ((rc = norm_axis(c, L, axv[0], x->rank, 1, &s.axis)))
        return rc;
    int rank = x->rank - 1 + idx->rank;
    if (rank > SIM_MAX_RANK)
        return lerr(c, L, "result rank %d exceeds %d", rank, SIM_MAX_RANK);
    int64_t d[SIM_MAX_RANK];
    for (int i = 0; i < rank; i++)
        d[i] = i < s.axis ? x->d[i] : i < s.axis + idx->rank ? idx->d[i - s.axis]
                                                             : x->d[i - idx->rank + 1];
    cval *ins[2] = {x, idx};
    return emit(c, L, &s, ins, 2, x->et, rank, d, &L->val[0]);
}

static variable *find_var(cc *c, const char *id)
{
    for (int i = 0; i < c->n_vars; i++)
        if (strcmp(c->vars[i].id, id) == 0)
            return &c->vars[i];
    return NULL;
}

/* Finds or creates the variable; its shape and type must agree across layers. */
static int get_var(cc *c, layer *L, const char *id, uint32_t et, int rank, const int64_t *d,
                   variable **out)
{
    variable *v = find_var(c, id);
    if (v) {
        int same = v->rank == rank && v->et == et;
        for (int i = 0; same && i < rank; i++)
            same = v->d[i] == d[i];
        if (!same)
            return lerr(c, L, "variable '%s' is used with different shapes or types", id);
        if (L->doc < v->doc)
            v->doc = L->doc;
        *out = v;
        return SIM_OK;
    }
    if (!grow(&c->vars, (uint32_t *)&c->cap_vars, (uint32_t)c->n_vars + 1, sizeof(variable)))
        return nomem(c);
    v = &c->vars[c->n_vars++];
    memset(v, 0, sizeof *v);
    snprintf(v->id, sizeof v->id, "%s", id);
    v->doc = L->doc;
    v->et = et;
    v->rank = rank;
    memcpy(v->d, d, sizeof v->d);
    v->out_tensor = NO_TENSOR;
    v->in_tensor = add_arena(c, et, rank, d);
    if (v->in_tensor == NO_TENSOR)
        return nomem(c);
    *out = v;
    return SIM_OK;
}

static int op_read_value(cc *c, layer *L, int opset, int sub)
{
    (void)sub;
    int rc = need_ports(c, L, opset >= 6 ? 0 : 1, 1, 1);
    char id[SIM_NAME_MAX], buf[512];
    if (rc)
        return rc;
    if (L->n_in == 0 && c->prof->read_value_needs_input)
        return lerr(c, L, "nGraph ReadValue node '%s' has unsupported number of inputs '0' "
                          "(this compiler needs the init value input)", L->name);
    if (!attr_str(L, "variable_id", id, sizeof id) || !id[0])
        return lerr(c, L, "ReadValue without variable_id");
    uint32_t et = 0;
    int rank = -1, dyn = 1, dyn_rank;
    int64_t d[SIM_MAX_RANK] = {0};
    if (opset >= 6 && attr_str(L, "variable_type", buf, sizeof buf) && strcasecmp(buf, "dynamic") &&
        strcasecmp(buf, "undefined")) {
        if (!(et = prec_from_name(buf)))
            return lerr(c, L, "unsupported element type %s", buf);
    }
    if (opset >= 6 && attr_str(L, "variable_shape", buf, sizeof buf) &&
        !parse_shape(buf, &rank, d, &dyn, &dyn_rank))
        return lerr(c, L, "malformed variable_shape \"%s\"", buf);
    if (L->n_in == 1) {
        cval *init = input(c, L, 0);
        if (!et)
            et = init->et;
        if (dyn) {
            rank = init->rank;
            memcpy(d, init->d, sizeof d);
        } else {
            int same = rank == init->rank;
            for (int i = 0; same && i < rank; i++)
                same = d[i] == init->d[i];
            if (!same)
                return lerr(c, L, "variable_shape does not match the init input");
        }
    } else if (dyn || !et) {
        return lerr(c, L, "ReadValue without init needs a static variable_shape and a variable_type");
    }
    variable *v;
    if ((rc = get_var(c, L, id, et, rank, d, &v)))
        return rc;
    if (!v->read_name)
        v->read_name = L->name;
    cval src;
    memset(&src, 0, sizeof src);
    src.tensor = v->in_tensor;
    src.set = 1;
    /* The host carries assign -> read_value, so the init input is not used. */
    return alias(c, &src, et, rank, d, &L->val[0]);
}

static int op_assign(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 1, 1, 0);
    char id[SIM_NAME_MAX];
    if (rc)
        return rc;
    if (!attr_str(L, "variable_id", id, sizeof id) || !id[0])
        return lerr(c, L, "Assign without variable_id");
    cval *x = input(c, L, 0);
    variable *v;
    if ((rc = get_var(c, L, id, x->et, x->rank, x->d, &v)))
        return rc;
    if (v->assign_name)
        return lerr(c, L, "variable '%s' is assigned twice", id);
    if ((rc = materialize(c, x)))
        return rc;
    v->assign_name = L->name;
    v->out_tensor = x->tensor;
    if (L->n_out >= 1)
        return alias(c, x, x->et, x->rank, x->d, &L->val[0]);
    return SIM_OK;
}

/* ==== ops: table ============================================================= */

typedef struct op_def {
    const char *type;   /* matched case-insensitively */
    int since;          /* first opset holding the op */
    op_fn fn;
    int sub;
} op_def;

static const op_def ops[] = {
    {"Parameter", 1, op_parameter, 0},
    {"Const", 1, op_const, 0},
    {"Constant", 1, op_const, 0},
    {"Result", 1, op_result, 0},
    {"Convert", 1, op_convert, 0},
    {"MatMul", 1, op_matmul, 0},
    {"Add", 1, op_binary, SIM_BIN_ADD},
    {"Subtract", 1, op_binary, SIM_BIN_SUB},
    {"Multiply", 1, op_binary, SIM_BIN_MUL},
    {"Divide", 1, op_binary, SIM_BIN_DIV},
    {"Maximum", 1, op_binary, SIM_BIN_MAX},
    {"Minimum", 1, op_binary, SIM_BIN_MIN},
    {"Relu", 1, op_unary, SIM_UN_RELU},
    {"Sigmoid", 1, op_unary, SIM_UN_SIGMOID},
    {"Tanh", 1, op_unary, SIM_UN_TANH},
    {"Exp", 1, op_unary, SIM_UN_EXP},
    {"Sqrt", 1, op_unary, SIM_UN_SQRT},
    {"Abs", 1, op_unary, SIM_UN_ABS},
    {"Negative", 1, op_unary, SIM_UN_NEG},
    {"Clamp", 1, op_clamp, 0},
    {"SoftMax", 1, op_softmax, 0},
    {"Convolution", 1, op_conv, 0},
    {"GroupConvolution", 1, op_conv, 1},
    {"MaxPool", 1, op_pool, 0},
    {"AvgPool", 1, op_pool, 1},
    {"ReduceMean", 1, op_reduce, 1},
    {"ReduceSum", 1, op_reduce, 0},
    {"Reshape", 1, op_reshape, 0},
    {"Squeeze", 1, op_squeeze, 0},
    {"Unsqueeze", 1, op_squeeze, 1},
    {"Transpose", 1, op_transpose, 0},
    {"Concat", 1, op_concat, 0},
    {"Split", 1, op_split, 0},
    {"VariadicSplit", 1, op_split, 1},
    {"ShapeOf", 1, op_shape_of, 0},
    {"Gather", 1, op_gather, 0},
    {"ReadValue", 3, op_read_value, 0},
    {"Assign", 3, op_assign, 0},
};

/* "opsetN" -> N; anything else (custom opsets, "experimental", ...) -> 0. */
static int opset_number(const char *v)
{
    int64_t n;
    if (strncmp(v, "opset", 5) != 0 || !parse_i64(v + 5, &n) || n < 1 || n > 1000)
        return 0;
    return (int)n;
}

static const op_def *find_op(const layer *L, int *opset)
{
    *opset = opset_number(L->version);
    if (*opset < 1 || *opset > SIM_MAX_OPSET)
        return NULL;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcasecmp(ops[i].type, L->type) == 0)
            return *opset >= ops[i].since ? &ops[i] : NULL;
    return NULL;
}

/* ==== flags ================================================================== */

/* Which generation of Intel's compiler the profile ships. The generations differ
 * in the rules below; the serializer key is what tells them apart (sim/profile.h). */
enum { GEN_2024, GEN_2025, GEN_2026 };

static int generation(const sim_profile *p)
{
    switch (p->serializer_key) {
    case SIM_SERIALIZER_NONE: return GEN_2024;
    case SIM_SERIALIZER_USE_BASE: return GEN_2025;
    default: return GEN_2026;
    }
}

typedef struct io_setting {
    char key[SIM_NAME_MAX];
    uint32_t value;     /* precision or layout code; 0 = keep the model's / by rank */
    char text[32];      /* the value as written */
} io_setting;

typedef struct io_list {
    io_setting *items;
    int n;
} io_list;

typedef struct flags {
    io_list lists[4];   /* inputs_precisions, inputs_layouts, outputs_precisions, outputs_layouts */
    int io_present;     /* all four I/O options were given (else none is used) */
    int layout_b;       /* the serializer the config selects reads layout B */
} flags;

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
            return lerr_rc(c, NULL, SIM_ERR_OPTIONS, "Value '%s' is not a valid BOOL option (%s)", val,
                           key);
        if (!strcmp(key, "NPU_USE_BASE_MODEL_SERIALIZER") && gen == GEN_2025)
            f->layout_b = !b;
        return SIM_OK;
    }
    if (!strcmp(key, "NPU_MODEL_SERIALIZER_VERSION")) {
        if (!strcmp(val, "ALL_WEIGHTS_COPY") || !strcmp(val, "NO_WEIGHTS_COPY")) {
            f->layout_b = val[0] == 'N';
            return SIM_OK;
        }
        if (!strcmp(val, "AUTO"))
            return lerr_rc(c, NULL, SIM_ERR_OPTIONS,
                           "The driver-compiler adapter received an unsupported value for the "
                           "\"ov::intel_npu::model_serializer_version\" config option. Received: AUTO. "
                           "Supported values: ALL_WEIGHTS_COPY, NO_WEIGHTS_COPY.");
        return lerr_rc(c, NULL, SIM_ERR_OPTIONS,
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
        return lerr_rc(c, NULL, SIM_ERR_OPTIONS, "Unknown value for platform: %s", val);
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
    int gen = generation(c->prof);
    char *eq = strchr(entry, '=');
    if (!eq || eq == entry)
        return lerr_rc(c, NULL, SIM_ERR_OPTIONS, "Failed to parse config options: %s is in bad format!",
                       entry);
    *eq = '\0';
    const char *val = eq + 1;
    char key[256];
    if (!strncmp(entry, "VPUX_", 5))
        join_str(key, sizeof key, "NPU_", entry + 5);
    else if (!strncmp(entry, "VPU_", 4))
        join_str(key, sizeof key, "NPU_", entry + 4);
    else
        join_str(key, sizeof key, "", entry);
    if (gen != GEN_2024 && !strcmp(key, "NPU_DPU_GROUPS"))
        join_str(key, sizeof key, "", "NPU_TILES");
    /* Since 2025 the compiler drops two run-time options older plugins sent. */
    if (gen != GEN_2024 && (!strcmp(key, "MODEL_PRIORITY") || !strcmp(key, "CACHE_DIR")))
        return SIM_OK;
    if (!key_known(gen, key))
        return lerr_rc(c, NULL, SIM_ERR_OPTIONS,
                       "%s[ NOT_FOUND ] Option '%s' is not supported for current configuration",
                       gen == GEN_2025 ? "Failed to update default config: " : "", key);
    return check_option_value(c, gen, key, val, f);
}

/* One I/O option value: "key:VALUE key2:VALUE2". */
static int parse_io_list(cc *c, int which, const char *value, flags *f)
{
    io_list *l = &f->lists[which];
    int gen = generation(c->prof);
    const char *s = value;
    while (*(s = skip_ws(s))) {
        char item[SIM_NAME_MAX + 32];
        size_t n = 0;
        while (*s && !isspace((unsigned char)*s) && n + 1 < sizeof item)
            item[n++] = *s++;
        item[n] = '\0';
        char *colon = strrchr(item, ':');
        if (!colon)
            return lerr_rc(c, NULL, SIM_ERR_OPTIONS, "Failed to find delim in option! Value: %s", item);
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
            return lerr_rc(c, NULL, SIM_ERR_OPTIONS, "Failed to find %s for %s (in %s)", val, item,
                           flag_names[which]);
        io_setting *q = realloc(l->items, (size_t)(l->n + 1) * sizeof *q);
        if (!q)
            return nomem(c);
        l->items = q;
        memset(&q[l->n], 0, sizeof q[l->n]);
        join_str(q[l->n].key, sizeof q[l->n].key, "", item);
        join_str(q[l->n].text, sizeof q[l->n].text, "", val);
        q[l->n++].value = code;
    }
    return SIM_OK;
}

/* pBuildFlags: --inputs_precisions="..." --inputs_layouts="..." --outputs_precisions="..."
 * --outputs_layouts="..." --config KEY="VALUE" ... The config is applied first, then
 * the four I/O options, in the real compiler's order. */
static int parse_flags(cc *c, const char *text, flags *f)
{
    memset(f, 0, sizeof *f);
    int gen = generation(c->prof);
    const char *io_text[4] = {NULL, NULL, NULL, NULL};
    char *tok[4] = {NULL, NULL, NULL, NULL};
    const char *s = text ? text : "";
    int in_config = 0, rc = SIM_OK;
    char buf[4096];
    while (!rc && *(s = skip_ws(s))) {
        int bad;
        s = next_token(s, buf, sizeof buf, &bad);
        if (bad) {
            rc = lerr_rc(c, NULL, SIM_ERR_OPTIONS, "build flags: unterminated quote or overlong token");
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
                rc = lerr_rc(c, NULL, SIM_ERR_OPTIONS, "Invalid key in option! Option: %s", buf);
                break;
            }
            free(tok[which]);
            tok[which] = strdup(eq + 1);
            if (!tok[which])
                rc = nomem(c);
            io_text[which] = tok[which];
        } else if (in_config) {
            rc = parse_config_entry(c, buf, f);
        } else {
            rc = lerr_rc(c, NULL, SIM_ERR_OPTIONS, "build flags: unexpected token '%s'", buf);
        }
    }
    f->io_present = io_text[0] && io_text[1] && io_text[2] && io_text[3];
    if (!rc && !f->io_present) {
        /* Later compilers only log a warning (not part of the build log) and go on. */
        if (gen == GEN_2024)
            rc = lerr_rc(c, NULL, SIM_ERR_OPTIONS, "Mandatory ioInfo options are missing! DescOptions: %s",
                         text ? text : "");
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
    xmlNodePtr rt = first_child(c->net, "rt_info");
    for (xmlNodePtr n = rt ? rt->children : NULL; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, key)) {
            char *v = get_attr(n, "value");
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
    const char *t = skip_ws(v);
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
                : lerr(c, NULL, "Failed to process model: Could not convert to bool from string %s "
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
        return lerr(c, NULL, "Failed to process model: %s has no entry for %s '%s' (%s %u, "
                             "\"%s\"); available: %s",
                    flag_names[ps ? (out ? 3 : 1) : (out ? 2 : 0)],
                    isdigit((unsigned char)id[0]) ? "index" : "name", id, out ? "output" : "input",
                    index, a->friendly_name, avail[0] ? avail : "(none)");
    }
    if (ps->value)
        a->precision = ps->value;
    else if (strcasecmp(ps->text, "DYNAMIC") && strcasecmp(ps->text, "UNSPECIFIED"))
        return lerr(c, NULL, "precision %s for %s '%s' is not supported by the sim compiler", ps->text,
                    out ? "output" : "input", id);
    /* The real compiler adds a transpose when the flags' layout differs from the
     * model's (by rank: C, NC, CHW, NCHW, NCDHW); the sim does not transpose, so it
     * refuses that instead of computing on the wrong axes. */
    static const char *const by_rank[] = {"", "C", "NC", "CHW", "NCHW", "NCDHW"};
    if (!strchr(ls->text, '?') && !strchr(ls->text, '.') && strcmp(ls->text, "**SCALAR**") &&
        (a->rank >= 6 || strcmp(ls->text, by_rank[a->rank])))
        return lerr(c, NULL, "layout %s for %s '%s' differs from the model layout %s: the real compiler "
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
static int preprocess(cc *c, sim_plan *p, const flags *f, uint32_t n_params, uint32_t n_in)
{
    int gen = generation(c->prof), use_indices, new_api = 0, rc;
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
    /* Results in IR order, as build_args lists them after the inputs. */
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

/* ==== finish: arguments, liveness, arena, compaction ========================= */

static uint32_t layout_for_rank(uint32_t rank)
{
    static const uint32_t by_rank[] = {0, 0x60, 0xC1, 0x80, 1, 3};
    return rank < 6 ? by_rank[rank] : 0xC8;
}

static void split_names(sim_arg *a, const char *names)
{
    if (!names)
        return;
    const char *s = names;
    while (*s && a->tensor_name_count < SIM_MAX_TENSOR_NAMES) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        while (len && isspace((unsigned char)*s)) {
            s++;
            len--;
        }
        while (len && isspace((unsigned char)s[len - 1]))
            len--;
        if (len) {
            if (len >= SIM_NAME_MAX)
                len = SIM_NAME_MAX - 1;
            memcpy(a->tensor_names[a->tensor_name_count], s, len);
            a->tensor_names[a->tensor_name_count++][len] = '\0';
        }
        if (!e)
            break;
        s = e + 1;
    }
}

static void fill_arg(cc *c, sim_arg *a, int is_output, uint32_t tensor, uint32_t et)
{
    const sim_tensor *t = &c->tensors[tensor];
    a->is_output = is_output;
    a->precision = a->network_precision = et;
    a->meta_type = sim_prec_meta(et);
    a->rank = (uint32_t)t->rank;
    for (int i = 0; i < t->rank; i++)
        a->dims[i] = a->ir_shape[i] = (uint64_t)t->d[i];
    a->ir_rank = a->rank;
    a->layout = layout_for_rank(a->rank);
}

static int cmp_var_doc(const void *a, const void *b)
{
    return ((const variable *)a)->doc - ((const variable *)b)->doc;
}

static int build_args(cc *c, sim_plan *p)
{
    uint32_t n_in = 0, n_out = 0;
    for (int i = 0; i < c->n_layers; i++) {
        int opset;
        const op_def *d = find_op(&c->layers[i], &opset);
        n_in += d && d->fn == op_parameter;
        n_out += d && d->fn == op_result;
    }
    for (int i = 0; i < c->n_vars; i++)
        if (!c->vars[i].read_name)
            return lerr(c, NULL, "variable '%s' is assigned but never read (no ReadValue)",
                        c->vars[i].id);
    if (c->n_vars)
        qsort(c->vars, (size_t)c->n_vars, sizeof(variable), cmp_var_doc);
    p->n_args = n_in + n_out + 2 * (uint32_t)c->n_vars;
    p->args = calloc(p->n_args + 1, sizeof(sim_arg));
    p->arg_tensor = calloc(p->n_args + 1, sizeof(uint32_t));
    if (!p->args || !p->arg_tensor)
        return nomem(c);
    uint32_t k = 0;
    for (int i = 0; i < c->n_layers; i++) {
        layer *L = &c->layers[i];
        int opset;
        const op_def *d = find_op(L, &opset);
        if (!d || d->fn != op_parameter)
            continue;
        sim_arg *a = &p->args[k];
        snprintf(a->name, sizeof a->name, "%s", L->name);
        snprintf(a->friendly_name, sizeof a->friendly_name, "%s", L->name);
        split_names(a, L->out[0].names);
        p->arg_tensor[k++] = L->val[0].tensor;
        fill_arg(c, a, 0, L->val[0].tensor, L->val[0].et);
    }
    for (int i = 0; i < c->n_vars; i++) {
        sim_arg *a = &p->args[k];
        join_str(a->name, sizeof a->name, SIM_READ_VALUE_PREFIX, c->vars[i].id);
        snprintf(a->friendly_name, sizeof a->friendly_name, "%s", c->vars[i].read_name);
        p->arg_tensor[k++] = c->vars[i].in_tensor;
        fill_arg(c, a, 0, c->vars[i].in_tensor, c->vars[i].et);
    }
    for (int i = 0; i < c->n_layers; i++) {
        layer *L = &c->layers[i];
        int opset;
        const op_def *d = find_op(L, &opset);
        if (!d || d->fn != op_result)
            continue;
        layer *src = &c->layers[L->src[0]];
        cval *v = &src->val[L->src_port[0]];
        sim_arg *a = &p->args[k];
        snprintf(a->name, sizeof a->name, "%s", src->name);
        snprintf(a->friendly_name, sizeof a->friendly_name, "%s", L->name);
        split_names(a, src->out[L->src_port[0]].names);
        if (!a->tensor_name_count)
            split_names(a, L->in[0].names);
        p->arg_tensor[k] = v->tensor;
        fill_arg(c, a, 1, v->tensor, v->et);
        /* ir_shape: as declared on the Result's input when the rank agrees */
        if (L->in[0].rank == (int)a->rank)
            for (uint32_t r = 0; r < a->rank; r++)
                a->ir_shape[r] = L->in[0].d[r] < 0 ? UINT64_MAX : (uint64_t)L->in[0].d[r];
        k++;
    }
    for (int i = 0; i < c->n_vars; i++) {
        variable *v = &c->vars[i];
        sim_arg *a = &p->args[k];
        join_str(a->name, sizeof a->name, SIM_ASSIGN_PREFIX, v->id);
        snprintf(a->friendly_name, sizeof a->friendly_name, "%s",
                 v->assign_name ? v->assign_name : v->read_name);
        /* A ReadValue without Assign: the state passes through unchanged. */
        p->arg_tensor[k] = v->out_tensor != NO_TENSOR ? v->out_tensor : v->in_tensor;
        fill_arg(c, a, 1, p->arg_tensor[k], v->et);
        k++;
    }
    return SIM_OK;
}

static void finish_bytes(sim_plan *p)
{
    for (uint32_t i = 0; i < p->n_args; i++) {
        sim_arg *a = &p->args[i];
        uint64_t n = 1;
        for (uint32_t r = 0; r < a->rank; r++)
            n *= a->dims[r];
        a->bytes = (size_t)(n * sim_prec_size(a->precision));
    }
}

typedef struct block {
    uint64_t off, size;
    int64_t last;
} block;

/* Drops steps nobody needs, packs arena buffers by liveness and renumbers tensors. */
static int finish_plan(cc *c, sim_plan *p)
{
    uint32_t nb = c->n_bufs, nt = c->n_tensors;
    uint8_t *live = calloc(nb + 1, 1), *keep = calloc(c->n_steps + 1, 1), *used_t = calloc(nt + 1, 1);
    int64_t *last = calloc(nb + 1, sizeof(int64_t));
    uint64_t *off = calloc(nb + 1, sizeof(uint64_t));
    uint8_t *placed = calloc(nb + 1, 1);
    uint32_t *remap = calloc(nt + 1, sizeof(uint32_t));
    block *act = calloc(nb + 1, sizeof(block));
    uint32_t *ins = malloc(((size_t)c->n_step_inputs + 1) * sizeof(uint32_t));
    int rc = SIM_OK;
    if (!live || !keep || !used_t || !last || !off || !placed || !remap || !act || !ins) {
        rc = nomem(c);
        goto out;
    }
#define BUF(t) ((uint32_t)c->tensors[t].offset)
#define IS_ARENA(t) (c->tensors[t].where == SIM_T_ARENA)
    for (uint32_t b = 0; b < nb; b++)
        last[b] = -1;
    for (uint32_t i = 0; i < p->n_args; i++)
        if (IS_ARENA(p->arg_tensor[i]) && p->args[i].is_output) {
            live[BUF(p->arg_tensor[i])] = 1;
            last[BUF(p->arg_tensor[i])] = INT64_MAX;
        }
    for (uint32_t s = c->n_steps; s-- > 0;) {
        const sim_step *st = &c->steps[s];
        if (!live[BUF(st->out)])
            continue;
        keep[s] = 1;
        for (uint32_t k = 0; k < st->in_count; k++) {
            uint32_t t = c->step_inputs[st->in_first + k];
            if (IS_ARENA(t))
                live[BUF(t)] = 1;
        }
    }
    uint32_t n_steps = 0, n_ins = 0;
    for (uint32_t s = 0; s < c->n_steps; s++) {
        if (!keep[s])
            continue;
        sim_step st = c->steps[s];
        for (uint32_t k = 0; k < st.in_count; k++) {
            uint32_t t = c->step_inputs[st.in_first + k];
            ins[n_ins + k] = t;
            if (IS_ARENA(t) && last[BUF(t)] < (int64_t)n_steps)
                last[BUF(t)] = n_steps;
        }
        st.in_first = n_ins;
        n_ins += st.in_count;
        c->steps[n_steps++] = st;
    }
    /* Arena packing: inputs first (all written before any step), then each step's
     * output first-fit among the blocks still alive. */
    int n_act = 0;
    uint64_t top = 0;
    for (uint32_t pass = 0; pass <= n_steps; pass++) {
        if (pass > 0) {
            int w = 0;
            for (int i = 0; i < n_act; i++)
                if (act[i].last >= (int64_t)pass - 1)
                    act[w++] = act[i];
            n_act = w;
        }
        uint32_t want[1] = {0};
        int n_want = 0;
        if (pass == 0) {
            for (uint32_t i = 0; i < p->n_args; i++) {
                uint32_t b = BUF(p->arg_tensor[i]);
                if (!p->args[i].is_output && !placed[b]) {
                    /* allocate inline (may be many) */
                    uint64_t size = (c->buf_size[b] + 15) & ~(uint64_t)15;
                    off[b] = top;
                    top += size ? size : 16;
                    placed[b] = 1;
                    act[n_act].off = off[b];
                    act[n_act].size = size ? size : 16;
                    act[n_act++].last = last[b];
                }
            }
        } else {
            want[n_want++] = BUF(c->steps[pass - 1].out);
        }
        for (int w = 0; w < n_want; w++) {
            uint32_t b = want[w];
            if (placed[b])
                continue;
            uint64_t size = (c->buf_size[b] + 15) & ~(uint64_t)15;
            if (!size)
                size = 16;
            /* act is sorted by offset: find the first gap */
            uint64_t pos = 0;
            int at = n_act;
            for (int i = 0; i < n_act; i++) {
                if (act[i].off >= pos + size) {
                    at = i;
                    break;
                }
                if (act[i].off + act[i].size > pos)
                    pos = act[i].off + act[i].size;
            }
            memmove(&act[at + 1], &act[at], (size_t)(n_act - at) * sizeof(block));
            act[at].off = pos;
            act[at].size = size;
            act[at].last = last[b] < (int64_t)pass - 1 ? (int64_t)pass - 1 : last[b];
            n_act++;
            off[b] = pos;
            placed[b] = 1;
            if (pos + size > top)
                top = pos + size;
        }
        /* inputs were appended in order of offset already; keep act sorted */
    }
    p->arena_floats = top;
    /* renumber the tensors that are still referenced */
    for (uint32_t i = 0; i < p->n_args; i++)
        used_t[p->arg_tensor[i]] = 1;
    for (uint32_t s = 0; s < n_steps; s++) {
        used_t[c->steps[s].out] = 1;
        for (uint32_t k = 0; k < c->steps[s].in_count; k++)
            used_t[ins[c->steps[s].in_first + k]] = 1;
    }
    uint32_t n = 0;
    p->tensors = calloc(nt + 1, sizeof(sim_tensor));
    p->steps = calloc(n_steps + 1, sizeof(sim_step));
    p->step_inputs = calloc(n_ins + 1, sizeof(uint32_t));
    if (!p->tensors || !p->steps || !p->step_inputs) {
        rc = nomem(c);
        goto out;
    }
    for (uint32_t t = 0; t < nt; t++) {
        if (!used_t[t])
            continue;
        remap[t] = n;
        p->tensors[n] = c->tensors[t];
        if (IS_ARENA(t))
            p->tensors[n].offset = off[BUF(t)];
        n++;
    }
    p->n_tensors = n;
    for (uint32_t s = 0; s < n_steps; s++) {
        p->steps[s] = c->steps[s];
        p->steps[s].out = remap[c->steps[s].out];
    }
    for (uint32_t k = 0; k < n_ins; k++)
        p->step_inputs[k] = remap[ins[k]];
    for (uint32_t i = 0; i < p->n_args; i++)
        p->arg_tensor[i] = remap[p->arg_tensor[i]];
    p->n_steps = n_steps;
    p->n_step_inputs = n_ins;
    p->const_floats = c->pool_n;
#undef BUF
#undef IS_ARENA
out:
    free(live);
    free(keep);
    free(used_t);
    free(last);
    free(off);
    free(placed);
    free(remap);
    free(act);
    free(ins);
    return rc;
}

/* ==== driver of the whole compile ============================================ */

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;
static void xml_init(void)
{
    xmlInitParser();
}

static void cc_free(cc *c)
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

/* Parses the payload and the XML into c (layers, edges); the doc stays with the caller. */
static int load(cc *c, const void *payload_buf, size_t size, uint32_t version, int layout_b,
                int check_ops, xmlDocPtr *doc_out)
{
    *doc_out = NULL;
    int rc = payload_parse(payload_buf, size, version, layout_b, &c->pl, c->log);
    if (rc)
        return rc;
    pthread_once(&xml_once, xml_init);
    xmlParserCtxtPtr ctx = xmlNewParserCtxt();
    if (!ctx)
        return nomem(c);
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
        return lerr_rc(c, NULL, SIM_ERR_READ_MODEL, "IR: the root element is not <net>");
    char *ver = get_attr(net, "version");
    int64_t v = 0;
    int ok = ver && parse_i64(ver, &v) && (v == 10 || v == 11);
    if (!ok) {
        rc = lerr_rc(c, NULL, SIM_ERR_READ_MODEL, "IR: version \"%s\" is not supported (10 or 11)",
                     ver ? ver : "(none)");
        xmlFree(ver);
        return rc;
    }
    xmlFree(ver);
    c->net = net;
    c->ir_version = (int)v;
    if ((rc = parse_layers(c, net)))
        return rc;
    for (int i = 0; check_ops && i < c->n_layers; i++) { /* name every unsupported layer */
        int opset;
        if (!find_op(&c->layers[i], &opset))
            rc = lerr(c, &c->layers[i], "unsupported op %s-%s", c->layers[i].type,
                      c->layers[i].version);
    }
    return rc ? rc : parse_edges(c, net);
}

static int compile_layers(cc *c)
{
    int *order = calloc((size_t)c->n_layers, sizeof(int));
    if (!order)
        return nomem(c);
    int rc = topo_order(c, order);
    for (int i = 0; !rc && i < c->n_layers; i++) {
        layer *L = &c->layers[order[i]];
        int opset;
        const op_def *d = find_op(L, &opset);
        rc = d->fn(c, L, opset, d->sub);
        if (!rc && c->nomem)
            rc = nomem(c);
        for (int k = 0; !rc && k < L->n_out; k++)
            if (L->out[k].uses && !L->val[k].set)
                rc = lerr(c, L, "output port %ld is used but %s does not produce it", L->out[k].id,
                          L->type);
    }
    free(order);
    return rc;
}

int sim_plan_compile(const void *payload_buf, size_t size, uint32_t compiler_version,
                     const char *build_flags, sim_plan **out, char *log_buf, size_t log_cap)
{
    sim_log log;
    sim_log_init(&log, log_buf, log_cap);
    if (out)
        *out = NULL;
    cc c;
    memset(&c, 0, sizeof c);
    c.log = &log;
    c.prof = sim_profile_current();
    xmlDocPtr doc = NULL;
    flags f;
    memset(&f, 0, sizeof f);
    sim_plan *p = calloc(1, sizeof *p);
    int rc = p ? SIM_OK : SIM_ERR_NOMEM;
    if (!rc && !out)
        rc = lerr_rc(&c, NULL, SIM_ERR_OPTIONS, "no output plan pointer");
    if (!rc)
        rc = parse_flags(&c, build_flags, &f);
    if (!rc)
        rc = load(&c, payload_buf, size, compiler_version, f.layout_b, 1, &doc);
    if (!rc)
        rc = compile_layers(&c);
    if (!rc)
        rc = build_args(&c, p);
    if (!rc) {
        uint32_t n_in = 0;
        while (n_in < p->n_args && !p->args[n_in].is_output)
            n_in++;
        rc = preprocess(&c, p, &f, n_in - (uint32_t)c.n_vars, n_in);
        finish_bytes(p);
    }
    if (!rc)
        rc = finish_plan(&c, p);
    if (!rc && sim_plan_validate(p, &log) != 0)
        rc = lerr(&c, NULL, "internal error: the compiled plan failed validation");
    if (!rc && sim_plan_build_native(p, c.pool) != SIM_OK)
        rc = nomem(&c);
    for (int w = 0; w < 4; w++)
        free(f.lists[w].items);
    if (doc)
        xmlFreeDoc(doc);
    /* The 2026 compiler reads the model inside the compile call, where any error
     * other than an invalid-IR one becomes INVALID_ARGUMENT ("Compiler returned
     * msg"); older ones reported a model OpenVINO cannot read as UNKNOWN. */
    if (rc == SIM_ERR_READ_MODEL && generation(c.prof) == GEN_2026)
        rc = SIM_ERR_COMPILE;
    cc_free(&c);
    if (rc) {
        sim_plan_free(p);
        if (rc == SIM_ERR_NOMEM && log.len == 0)
            sim_log_add(&log, "out of memory while compiling");
        return rc;
    }
    *out = p;
    return SIM_OK;
}

int sim_plan_query_network(const void *payload_buf, size_t size, uint32_t compiler_version,
                           const char *build_flags, char *out, size_t cap, size_t *needed,
                           char *log_buf, size_t log_cap)
{
    sim_log log;
    sim_log_init(&log, log_buf, log_cap);
    cc c;
    memset(&c, 0, sizeof c);
    c.log = &log;
    c.prof = sim_profile_current();
    xmlDocPtr doc = NULL;
    flags f;
    int rc = parse_flags(&c, build_flags, &f);
    for (int w = 0; w < 4; w++)
        free(f.lists[w].items);
    if (!rc)
        rc = load(&c, payload_buf, size, compiler_version, f.layout_b, 0, &doc);
    size_t len = 0;
    int fits = out != NULL;
    if (out && cap)
        out[0] = '\0';
    for (int i = 0; !rc && i < c.n_layers; i++) {
        layer *L = &c.layers[i];
        int opset;
        const op_def *d = find_op(L, &opset);
        if (!d)
            continue;
        if (d->fn == op_parameter || d->fn == op_const || d->fn == op_convert) {
            char buf[64];
            const char *attr = d->fn == op_convert ? "destination_type" : "element_type";
            if (attr_str(L, attr, buf, sizeof buf) && !prec_from_name(buf))
                continue;
        }
        size_t n = strlen(L->name);
        if (fits && len + (len ? 1 : 0) + n + 1 > cap)
            fits = 0;
        if (fits) {
            if (len)
                out[len] = ';';
            memcpy(out + len + (len ? 1 : 0), L->name, n + 1);
        }
        len += (len ? 1 : 0) + n;
    }
    if (needed)
        *needed = rc ? 0 : len + 1;
    if (doc)
        xmlFreeDoc(doc);
    cc_free(&c);
    return rc;
}

int sim_plan_query_layers(const void *payload_buf, size_t size, uint32_t compiler_version, char *out,
                          size_t cap, size_t *needed, char *log_buf, size_t log_cap)
{
    return sim_plan_query_network(payload_buf, size, compiler_version, NULL, out, cap, needed, log_buf,
                                  log_cap);
}

int sim_compiler_option_supported(const char *key, const char *value)
{
    const sim_profile *prof = sim_profile_current();
    int gen = generation(prof);
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
    for (const char *const *k = config_keys(generation(sim_profile_current())); *k; k++) {
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

#ifdef SIM_FUZZ_WEIGHTS_POINTER
/* The fuzz targets build the sim's plan sources as one translation unit
 * (tests/fuzz/sim_fuzz.h); the compiler needs the release profiles with it. */
#include "sim/profile.c"
#endif
