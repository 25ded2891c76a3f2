/* ir_build.h - building IR v11 payloads by hand and compiling them with the
 * software NPU's compiler, for the sim's white-box suites (test_compiler.c,
 * test_ops_quant.c). Include after <cmocka.h>, "sim/kernels.h", "sim/profile.h"
 * and "sim/sim_plan.h". Every helper is static inline, so a suite that uses a
 * part of them builds without unused-function warnings.
 */
#ifndef SIM_TESTS_IR_BUILD_H
#define SIM_TESTS_IR_BUILD_H

#define VER SIM_COMPILER_VERSION_DEFAULT
/* Build flags that make the 2026 compiler (the default profile) read layout B. */
#define FLAGS_B "--config NPU_MODEL_SERIALIZER_VERSION=\"NO_WEIGHTS_COPY\""
#define P_FP32 0x01u
#define P_FP16 0x02u
#define P_U8 0x04u
#define P_I32 0x05u
#define P_I64 0x11u

/* ---- text and byte builders --------------------------------------------------- */

typedef struct buf {
    char *s;
    size_t len, cap;
} buf;

static inline void bput(buf *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        assert_non_null(b->s);
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static inline void bprintf(buf *b, const char *fmt, ...)
{
    char tmp[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof tmp);
    bput(b, tmp, (size_t)n);
}

/* Appends data to the weights and returns its offset. */
static inline size_t wput(buf *w, const void *p, size_t n)
{
    size_t off = w->len;
    if (n)
        bput(w, p, n);
    return off;
}

/* An IR under construction: layers and edges are written separately, then joined. */
typedef struct ir {
    buf layers, edges;
} ir;

/* ports: ';'-separated "PREC:d0,d1,..." ("PREC:" = scalar). Input ports get ids
 * 0..n-1, output ports n.. (as ov::serialize numbers them). */
static inline int write_ports(buf *b, const char *tag, const char *spec, int first_id, const char *names)
{
    if (!spec || !*spec)
        return 0;
    bprintf(b, "\t\t\t<%s>\n", tag);
    int id = first_id;
    const char *s = spec;
    while (*s) {
        const char *e = strchr(s, ';');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        char port[256];
        memcpy(port, s, len);
        port[len] = '\0';
        char *colon = strchr(port, ':');
        assert_non_null(colon);
        *colon = '\0';
        if (names && id == first_id)
            bprintf(b, "\t\t\t\t<port id=\"%d\" precision=\"%s\" names=\"%s\"", id, port, names);
        else
            bprintf(b, "\t\t\t\t<port id=\"%d\" precision=\"%s\"", id, port);
        if (!colon[1]) {
            bprintf(b, " />\n");
        } else {
            bprintf(b, ">\n");
            char *d = colon + 1;
            while (*d) {
                char *c = strchr(d, ',');
                if (c)
                    *c = '\0';
                bprintf(b, "\t\t\t\t\t<dim>%s</dim>\n", d);
                if (!c)
                    break;
                d = c + 1;
            }
            bprintf(b, "\t\t\t\t</port>\n");
        }
        id++;
        if (!e)
            break;
        s = e + 1;
    }
    bprintf(b, "\t\t\t</%s>\n", tag);
    return id - first_id;
}

static inline void layer_x(ir *m, int id, const char *name, const char *type, const char *ver,
                    const char *data, const char *ins, const char *outs, const char *extra)
{
    buf *b = &m->layers;
    bprintf(b, "\t\t<layer id=\"%d\" name=\"%s\" type=\"%s\" version=\"%s\">\n", id, name, type, ver);
    if (data)
        bprintf(b, "\t\t\t<data %s />\n", data);
    int n_in = write_ports(b, "input", ins, 0, NULL);
    write_ports(b, "output", outs, n_in, name);
    if (extra)
        bprintf(b, "%s", extra);
    bprintf(b, "\t\t</layer>\n");
}

static inline void layer(ir *m, int id, const char *name, const char *type, const char *ver,
                  const char *data, const char *ins, const char *outs)
{
    layer_x(m, id, name, type, ver, data, ins, outs, NULL);
}

static inline void param(ir *m, int id, const char *name, const char *et, const char *prec, const char *shape)
{
    char data[256], outs[256];
    snprintf(data, sizeof data, "shape=\"%s\" element_type=\"%s\"", shape, et);
    snprintf(outs, sizeof outs, "%s:%s", prec, shape);
    layer(m, id, name, "Parameter", "opset1", data, NULL, outs);
}

static inline void constant(ir *m, int id, const char *name, const char *et, const char *prec,
                     const char *shape, size_t offset, size_t size)
{
    char data[256], outs[256];
    snprintf(data, sizeof data, "element_type=\"%s\" shape=\"%s\" offset=\"%zu\" size=\"%zu\"", et,
             shape, offset, size);
    snprintf(outs, sizeof outs, "%s:%s", prec, shape);
    layer(m, id, name, "Const", "opset1", data, NULL, outs);
}

static inline void result(ir *m, int id, const char *name, const char *ins)
{
    layer(m, id, name, "Result", "opset1", NULL, ins, NULL);
}

static inline void edge(ir *m, int fl, int fp, int tl, int tp)
{
    bprintf(&m->edges, "\t\t<edge from-layer=\"%d\" from-port=\"%d\" to-layer=\"%d\" to-port=\"%d\" />\n",
            fl, fp, tl, tp);
}

/* Joins the IR into one XML text (caller frees). */
static inline char *ir_xml(ir *m, const char *name)
{
    buf x = {0};
    bprintf(&x, "<?xml version=\"1.0\"?>\n<net name=\"%s\" version=\"11\">\n\t<layers>\n", name);
    if (m->layers.len)
        bput(&x, m->layers.s, m->layers.len);
    bprintf(&x, "\t</layers>\n\t<edges>\n");
    if (m->edges.len)
        bput(&x, m->edges.s, m->edges.len);
    bprintf(&x, "\t</edges>\n\t<rt_info />\n</net>\n");
    free(m->layers.s);
    free(m->edges.s);
    memset(m, 0, sizeof *m);
    return x.s;
}

/* Layout A: [u16 major][u16 minor][u32 2][u64 xml][xml][u64 weights][weights]. */
static inline uint8_t *payload_a(const char *xml, const void *w, size_t wsize, uint32_t version, size_t *size)
{
    uint64_t xs = strlen(xml), ws = wsize;
    *size = 24 + xs + ws;
    uint8_t *p = malloc(*size);
    assert_non_null(p);
    uint16_t major = (uint16_t)(version >> 16), minor = (uint16_t)version;
    uint32_t sections = 2;
    memcpy(p, &major, 2);
    memcpy(p + 2, &minor, 2);
    memcpy(p + 4, &sections, 4);
    memcpy(p + 8, &xs, 8);
    memcpy(p + 16, xml, xs);
    memcpy(p + 16 + xs, &ws, 8);
    if (ws)
        memcpy(p + 24 + xs, w, ws);
    return p;
}

/* Layout B: six u64 header -> 4-byte version -> constants -> XML. */
static inline uint8_t *payload_b(const char *xml, const void *consts, size_t csize, uint32_t version,
                          size_t *size)
{
    uint64_t xs = strlen(xml);
    uint64_t h[6] = {48, 4, 52, csize, 52 + csize, xs};
    *size = 52 + csize + xs;
    uint8_t *p = malloc(*size);
    assert_non_null(p);
    memcpy(p, h, 48);
    uint16_t major = (uint16_t)(version >> 16), minor = (uint16_t)version;
    memcpy(p + 48, &major, 2);
    memcpy(p + 50, &minor, 2);
    if (csize)
        memcpy(p + 52, consts, csize);
    memcpy(p + 52 + csize, xml, xs);
    return p;
}

static char g_log[8192];

static inline sim_plan *compile_ok(const uint8_t *p, size_t n, const char *flags)
{
    sim_plan *plan = NULL;
    int rc = sim_plan_compile(p, n, VER, flags, &plan, g_log, sizeof g_log);
    if (rc != SIM_OK)
        fail_msg("compile failed (%d): %s", rc, g_log);
    assert_non_null(plan);
    return plan;
}

/* Compiles an XML with weights in layout A. */
static inline sim_plan *compile_xml(const char *xml, const buf *w, const char *flags)
{
    size_t n;
    uint8_t *p = payload_a(xml, w ? w->s : NULL, w ? w->len : 0, VER, &n);
    sim_plan *plan = compile_ok(p, n, flags);
    free(p);
    return plan;
}

static inline void expect_fail(const uint8_t *p, size_t n, const char *flags, int want_rc, const char *needle)
{
    sim_plan *plan = (sim_plan *)(uintptr_t)1;
    memset(g_log, 0, sizeof g_log);
    int rc = sim_plan_compile(p, n, VER, flags, &plan, g_log, sizeof g_log);
    if (rc != want_rc)
        fail_msg("expected rc %d, got %d; log: %s", want_rc, rc, g_log);
    assert_null(plan);
    if (!strstr(g_log, needle))
        fail_msg("log does not mention '%s': %s", needle, g_log);
}

static inline void expect_xml_fail(const char *xml, const buf *w, int want_rc, const char *needle)
{
    size_t n;
    uint8_t *p = payload_a(xml, w ? w->s : NULL, w ? w->len : 0, VER, &n);
    expect_fail(p, n, NULL, want_rc, needle);
    free(p);
}

static inline const sim_arg *arg(const sim_plan *p, uint32_t i)
{
    const sim_arg *a = sim_plan_arg(p, i);
    assert_non_null(a);
    return a;
}

static inline void assert_dims(const sim_arg *a, uint32_t rank, const uint64_t *dims)
{
    if (a->rank != rank)
        fail_msg("arg %s: rank %u, expected %u", a->name, a->rank, rank);
    for (uint32_t i = 0; i < rank; i++)
        if (a->dims[i] != dims[i])
            fail_msg("arg %s: dim %u is %llu, expected %llu", a->name, i,
                     (unsigned long long)a->dims[i], (unsigned long long)dims[i]);
}

static inline void assert_close(const float *got, const float *want, size_t n, float tol)
{
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(got[i] - want[i]) <= tol * (1.0f + fabsf(want[i]))))
            fail_msg("element %zu: got %.7g, expected %.7g", i, (double)got[i], (double)want[i]);
}

/* Runs a plan whose args are all f32: ins[i] for inputs, outs[i] for outputs. */
static inline void run_f32(const sim_plan *p, float *const *ins, float *const *outs)
{
    uint32_t n = sim_plan_arg_count(p), ni = 0, no = 0;
    void *args[32];
    assert_true(n <= 32);
    for (uint32_t i = 0; i < n; i++)
        args[i] = arg(p, i)->is_output ? (void *)outs[no++] : (void *)ins[ni++];
    assert_int_equal(sim_plan_run(p, args, 0), SIM_OK);
}

/* ---- one op from the spec ----------------------------------------------------------------- */
/* IR v11 with one op under test: Parameter "x" (id 0) and the extra inputs (ids
 * 1..: constants, or Parameters when they carry no bytes) feed layer "op" (id
 * 10), whose output feeds Result "y" (id 11). The op's declared output dims are
 * deliberately wrong ("9"): the compiler infers them. References in the tests
 * below are host loops written from the op specifications' formulas. */

typedef struct xin {
    const char *et, *prec, *shape;   /* "f32", "FP32", "2,3" ("" = scalar) */
    const void *data;                /* constant bytes, or NULL: a Parameter */
    size_t size;
} xin;

typedef struct one_op {
    const char *type, *ver, *data;   /* data: the <data> attributes or NULL */
    xin x;                           /* input 0, always a Parameter */
    xin more[5];
    int n_more;
} one_op;

static inline char *one_op_xml(const one_op *o, buf *w)
{
    ir m = {0};
    char ins[512], outs[64];
    param(&m, 0, "x", o->x.et, o->x.prec, o->x.shape);
    snprintf(ins, sizeof ins, "%s:%s", o->x.prec, o->x.shape);
    edge(&m, 0, 0, 10, 0);
    for (int i = 0; i < o->n_more; i++) {
        const xin *in = &o->more[i];
        char name[16];
        snprintf(name, sizeof name, "in%d", i + 1);
        if (in->data)
            constant(&m, i + 1, name, in->et, in->prec, in->shape, wput(w, in->data, in->size), in->size);
        else
            param(&m, i + 1, name, in->et, in->prec, in->shape);
        snprintf(ins + strlen(ins), sizeof ins - strlen(ins), ";%s:%s", in->prec, in->shape);
        edge(&m, i + 1, 0, 10, i + 1);
    }
    snprintf(outs, sizeof outs, "%s:9", o->x.prec);
    layer(&m, 10, "op", o->type, o->ver, o->data, ins, outs);
    result(&m, 11, "y", outs);
    edge(&m, 10, 1 + o->n_more, 11, 0);
    return ir_xml(&m, o->type);
}

/* The plan's native blob (the ELF the driver hands out) imports again. */
static inline void plan_reimports(const sim_plan *p)
{
    size_t size;
    const uint8_t *blob = sim_plan_native(p, &size);
    sim_plan *q = NULL;
    assert_int_equal(sim_plan_import(blob, size, &q, g_log, sizeof g_log), SIM_OK);
    sim_plan_destroy(q);
}

/* cmocka setup: every test starts on the default profile, even after one
 * failed midway. */
static inline int default_profile(void **state)
{
    (void)state;
    sim_profile_select(sim_profile_find("2026"));
    return 0;
}

/* A reproducible value in [lo, hi] from the caller's seed (a small LCG). */
static inline float frand_next(uint32_t *seed, float lo, float hi)
{
    *seed = *seed * 1103515245u + 12345u;
    return lo + (hi - lo) * (float)((*seed >> 8) & 0xffffu) / 65535.0f;
}

/* Compiles (layout A), checks the output's rank and dims, runs with `args` (the
 * Parameters in id order, then the output; buffers in the arguments' types),
 * and round-trips the native blob. */
static inline void one_op_run(const one_op *o, void **args, uint32_t rank, const uint64_t *dims)
{
    buf w = {0};
    char *xml = one_op_xml(o, &w);
    sim_plan *p = compile_xml(xml, &w, NULL);
    uint32_t n = sim_plan_arg_count(p);
    const sim_arg *out = arg(p, n - 1);
    assert_int_equal(out->is_output, 1);
    assert_dims(out, rank, dims);
    assert_int_equal(sim_plan_run(p, args, 0), SIM_OK);
    plan_reimports(p);
    sim_plan_destroy(p);
    free(xml);
    free(w.s);
}

static inline void one_op_fail(const one_op *o, const char *needle)
{
    buf w = {0};
    char *xml = one_op_xml(o, &w);
    expect_xml_fail(xml, &w, SIM_ERR_COMPILE, needle);
    if (!strstr(g_log, "layer 'op' (id 10)"))
        fail_msg("the log does not name the layer: %s", g_log);
    free(xml);
    free(w.s);
}

#endif /* SIM_TESTS_IR_BUILD_H */
