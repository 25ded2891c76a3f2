/* Arena exhaustion over every object: context, graph and each op kind, IR
 * (memory and file), device, model (compile graph, compile IR, import) and
 * request (plain, with states, debatched, dynamic batch). For each, the size
 * query gives the need N; an arena of exactly N works and uses N; every
 * smaller capacity (each NPU_ARENA_ALIGN step; for big needs every step in the
 * last 16 KiB and 256 evenly spread below) fails with NPU_ERR_ARENA_TOO_SMALL,
 * leaves npu_arena_used where it was (the arena already holds an object, so a
 * rewind to 0 would be caught) and leaks no driver handle. */
#include <stdlib.h>

#include "tests/l0_test_util.h"

static npu_device *dev;
static unsigned char *sweep_mem;
#define SWEEP_BYTES ((size_t)32 << 20)

/* Creates the object in `a`; on success releases its driver resources. */
typedef npu_status (*try_fn)(npu_arena *a, void *arg);

/* Every step up to 16 KiB below the need; below that, 256 steps spread evenly. */
static size_t next_cap(size_t cap, size_t need)
{
    const size_t dense = 16384;
    size_t dense_from, step, next;
    if (need <= dense) return cap + NPU_ARENA_ALIGN;
    dense_from = need - dense;
    if (cap >= dense_from) return cap + NPU_ARENA_ALIGN;
    step = NPU_ARENA_ROUND(dense_from / 256);
    next = cap + (step > 0 ? step : NPU_ARENA_ALIGN);
    return next > dense_from ? dense_from : next;
}

/* The sweep: `pre` bytes are taken first (a context), then the object. */
static void sweep(const char *what, size_t need, try_fn fn, void *arg, int on_device)
{
    npu_arena a;
    npu_context *c;
    size_t pre = npu_context_size(), cap;
    unsigned tries = 0;
    npu_status st;
    tu_live base;
    memset(&base, 0, sizeof base);
    if (on_device) base = tu_live_now();
    assert_true(need % NPU_ARENA_ALIGN == 0);
    assert_true(pre + need <= SWEEP_BYTES);
    for (cap = 0; cap < need; cap = next_cap(cap, need)) {
        assert_int_equal(npu_arena_init(&a, sweep_mem, pre + cap), NPU_OK);
        assert_int_equal(npu_context_create(&a, NULL, &c), NPU_OK);
        npu_context_clear_error(tu_ctx);
        st = fn(&a, arg);
        if (st != NPU_ERR_ARENA_TOO_SMALL)
            fail_msg("%s: capacity %zu of %zu: %s (want NPU_ERR_ARENA_TOO_SMALL): %s", what, cap, need,
                     npu_status_string(st), npu_context_last_error(tu_ctx));
        if (npu_arena_used(&a) != pre)
            fail_msg("%s: capacity %zu of %zu: arena used %zu, was %zu", what, cap, need, npu_arena_used(&a), pre);
        if (on_device) tu_live_expect(&base);
        tries++;
    }
    assert_int_equal(npu_arena_init(&a, sweep_mem, pre + need), NPU_OK);
    assert_int_equal(npu_context_create(&a, NULL, &c), NPU_OK);
    st = fn(&a, arg);
    if (st != NPU_OK)
        fail_msg("%s: exact capacity %zu: %s: %s", what, need, npu_status_string(st), npu_context_last_error(tu_ctx));
    /* all of it was needed at one point (scratch may have been handed back) */
    assert_int_equal(a.peak, pre + need);
    if (on_device) tu_live_expect(&base);
    assert_true(tries >= (need < 16384 ? need / NPU_ARENA_ALIGN : 256));
}

/* ---- context ---- */

static npu_status try_context(npu_arena *a, void *arg)
{
    npu_context *c = NULL;
    npu_status st = npu_context_create(a, NULL, &c);
    (void)arg;
    if (st != NPU_OK) assert_null(c);
    return st;
}

static void test_context(void **state)
{
    (void)state;
    sweep("context", npu_context_size(), try_context, NULL, 0);
}

/* ---- graph and every op kind ---- */

static npu_status try_graph(npu_arena *a, void *arg)
{
    npu_graph *g = NULL;
    npu_status st = npu_graph_create(a, tu_ctx, (const npu_graph_options *)arg, &g);
    if (st != NPU_OK) assert_null(g);
    return st;
}

static void test_graph_object(void **state)
{
    npu_graph_options o = {.name = "a_graph_with_a_longer_name", .max_nodes = 10};
    (void)state;
    sweep("graph (default options)", npu_graph_size(NULL), try_graph, NULL, 0);
    sweep("graph (named)", npu_graph_size(&o), try_graph, &o, 0);
}

typedef struct prefix {
    npu_node *x, *w, *gw, *a, *b, *rv;
} prefix;

static const float conv_w[6] = {1, 2, 3, 4, 5, 6}, group_w[2] = {1, -1}, const_data[16] = {0};

static void build_prefix(npu_graph *g, prefix *p)
{
    npu_shape xs = {4, {1, 2, 4, 4}}, ws = {4, {3, 2, 1, 1}}, gs = {5, {2, 1, 1, 1, 1}}, ms = {2, {4, 4}};
    p->x = npu_graph_parameter(g, "x", NPU_F32, &xs, "NCHW");
    p->w = npu_graph_constant(g, "w", NPU_F32, &ws, conv_w, sizeof conv_w);
    p->gw = npu_graph_constant(g, "gw", NPU_F32, &gs, group_w, sizeof group_w);
    p->a = npu_graph_parameter(g, "a", NPU_F32, &ms, NULL);
    p->b = npu_graph_parameter(g, "b", NPU_F32, &ms, NULL);
    p->rv = npu_graph_read_value(g, NULL, "acc", NPU_F32, &ms, "rv");
}

typedef struct op_case {
    const char *name;
    npu_node *(*add)(npu_graph *g, const prefix *p);
    size_t extra;       /* bytes beyond node + name: concat's input array, variable id */
    size_t const_vals;  /* > 0: the op adds an implicit i64 Constant of this many values */
} op_case;

#define NAME "op"
static npu_node *op_convert(npu_graph *g, const prefix *p) { return npu_graph_convert(g, p->a, NPU_F16, NAME); }
static npu_node *op_add(npu_graph *g, const prefix *p) { return npu_graph_add(g, p->a, p->b, NAME); }
static npu_node *op_sub(npu_graph *g, const prefix *p) { return npu_graph_subtract(g, p->a, p->b, NAME); }
static npu_node *op_mul(npu_graph *g, const prefix *p) { return npu_graph_multiply(g, p->a, p->b, NAME); }
static npu_node *op_div(npu_graph *g, const prefix *p) { return npu_graph_divide(g, p->a, p->b, NAME); }
static npu_node *op_max(npu_graph *g, const prefix *p) { return npu_graph_maximum(g, p->a, p->b, NAME); }
static npu_node *op_min(npu_graph *g, const prefix *p) { return npu_graph_minimum(g, p->a, p->b, NAME); }
static npu_node *op_relu(npu_graph *g, const prefix *p) { return npu_graph_relu(g, p->a, NAME); }
static npu_node *op_sigmoid(npu_graph *g, const prefix *p) { return npu_graph_sigmoid(g, p->a, NAME); }
static npu_node *op_tanh(npu_graph *g, const prefix *p) { return npu_graph_tanh(g, p->a, NAME); }
static npu_node *op_exp(npu_graph *g, const prefix *p) { return npu_graph_exp(g, p->a, NAME); }
static npu_node *op_sqrt(npu_graph *g, const prefix *p) { return npu_graph_sqrt(g, p->a, NAME); }
static npu_node *op_clamp(npu_graph *g, const prefix *p) { return npu_graph_clamp(g, p->a, 0.0, 1.0, NAME); }
static npu_node *op_softmax(npu_graph *g, const prefix *p) { return npu_graph_softmax(g, p->a, 1, NAME); }
static npu_node *op_matmul(npu_graph *g, const prefix *p) { return npu_graph_matmul(g, p->a, p->b, 0, 1, NAME); }
static npu_node *op_conv(npu_graph *g, const prefix *p)
{
    npu_conv_params c = {{1, 1}, {1, 1}, {0, 0}, {0, 0}, NPU_PAD_EXPLICIT};
    return npu_graph_convolution(g, p->x, p->w, &c, NAME);
}
static npu_node *op_gconv(npu_graph *g, const prefix *p)
{
    npu_conv_params c = {{1, 1}, {1, 1}, {0, 0}, {0, 0}, NPU_PAD_EXPLICIT};
    return npu_graph_group_convolution(g, p->x, p->gw, &c, NAME);
}
static npu_node *op_maxpool(npu_graph *g, const prefix *p)
{
    npu_pool_params q = {{2, 2}, {2, 2}, {0, 0}, {0, 0}, NPU_ROUND_FLOOR, 0, NPU_PAD_EXPLICIT};
    return npu_graph_max_pool(g, p->x, &q, NAME);
}
static npu_node *op_avgpool(npu_graph *g, const prefix *p)
{
    npu_pool_params q = {{2, 2}, {2, 2}, {0, 0}, {0, 0}, NPU_ROUND_FLOOR, 1, NPU_PAD_EXPLICIT};
    return npu_graph_avg_pool(g, p->x, &q, NAME);
}
static const int64_t axis1[1] = {1}, axis0[1] = {0}, flat[1] = {16}, perm[2] = {1, 0};
static npu_node *op_rmean(npu_graph *g, const prefix *p) { return npu_graph_reduce_mean(g, p->a, axis1, 1, 1, NAME); }
static npu_node *op_rsum(npu_graph *g, const prefix *p) { return npu_graph_reduce_sum(g, p->a, axis1, 1, 0, NAME); }
static npu_node *op_reshape(npu_graph *g, const prefix *p) { return npu_graph_reshape(g, p->a, flat, 1, 0, NAME); }
static npu_node *op_squeeze(npu_graph *g, const prefix *p) { return npu_graph_squeeze(g, p->x, axis0, 1, NAME); }
static npu_node *op_unsqueeze(npu_graph *g, const prefix *p) { return npu_graph_unsqueeze(g, p->a, axis0, 1, NAME); }
static npu_node *op_transpose(npu_graph *g, const prefix *p) { return npu_graph_transpose(g, p->a, perm, 2, NAME); }
static npu_node *op_concat4(npu_graph *g, const prefix *p)
{
    npu_node *in[4] = {p->a, p->b, p->a, p->b};
    return npu_graph_concat(g, in, 4, 0, NAME);
}
static npu_node *op_concat6(npu_graph *g, const prefix *p)
{
    npu_node *in[6] = {p->a, p->b, p->a, p->b, p->a, p->b};
    return npu_graph_concat(g, in, 6, 0, NAME);
}
static npu_node *op_read_value(npu_graph *g, const prefix *p)
{
    npu_shape ms = {2, {4, 4}};
    (void)p;
    return npu_graph_read_value(g, NULL, "variable_2", NPU_F32, &ms, NAME);
}
static npu_node *op_read_value_init(npu_graph *g, const prefix *p)
{
    npu_shape ms = {2, {4, 4}};
    return npu_graph_read_value(g, p->a, "variable_3", NPU_F32, &ms, NAME);
}
static npu_node *op_assign(npu_graph *g, const prefix *p) { return npu_graph_assign(g, p->rv, "acc", NAME); }
static npu_node *op_result(npu_graph *g, const prefix *p) { return npu_graph_result(g, p->a, NAME); }
static npu_node *op_parameter(npu_graph *g, const prefix *p)
{
    npu_shape s = {1, {NPU_DIM_DYNAMIC}};
    (void)p;
    return npu_graph_parameter(g, NAME, NPU_I32, &s, "N");
}
static npu_node *op_constant(npu_graph *g, const prefix *p)
{
    npu_shape s = {2, {4, 4}};
    (void)p;
    return npu_graph_constant(g, NAME, NPU_F32, &s, const_data, sizeof const_data);
}
static npu_node *op_auto_name(npu_graph *g, const prefix *p) { return npu_graph_relu(g, p->a, NULL); }

#define R NPU_ARENA_ROUND
static const op_case op_cases[] = {
    {"Convert", op_convert, 0, 0},      {"Add", op_add, 0, 0},
    {"Subtract", op_sub, 0, 0},         {"Multiply", op_mul, 0, 0},
    {"Divide", op_div, 0, 0},           {"Maximum", op_max, 0, 0},
    {"Minimum", op_min, 0, 0},          {"Relu", op_relu, 0, 0},
    {"Sigmoid", op_sigmoid, 0, 0},      {"Tanh", op_tanh, 0, 0},
    {"Exp", op_exp, 0, 0},              {"Sqrt", op_sqrt, 0, 0},
    {"Clamp", op_clamp, 0, 0},          {"Softmax", op_softmax, 0, 0},
    {"MatMul", op_matmul, 0, 0},        {"Convolution", op_conv, 0, 0},
    {"GroupConvolution", op_gconv, 0, 0}, {"MaxPool", op_maxpool, 0, 0},
    {"AvgPool", op_avgpool, 0, 0},      {"ReduceMean", op_rmean, 0, 1},
    {"ReduceSum", op_rsum, 0, 1},       {"Reshape", op_reshape, 0, 1},
    {"Squeeze", op_squeeze, 0, 1},      {"Unsqueeze", op_unsqueeze, 0, 1},
    {"Transpose", op_transpose, 0, 2},  {"Concat (4 inputs)", op_concat4, 0, 0},
    {"Concat (6 inputs)", op_concat6, R(6 * sizeof(void *)), 0},
    {"ReadValue", op_read_value, R(sizeof "variable_2"), 0},
    {"ReadValue (init)", op_read_value_init, R(sizeof "variable_3"), 0},
    {"Assign", op_assign, 0, 0},
    {"Result", op_result, 0, 0},        {"Parameter", op_parameter, 0, 0},
    {"Constant", op_constant, 0, 0},    {"Relu (automatic name)", op_auto_name, 0, 0},
};

static void test_every_op_kind(void **state)
{
    size_t k;
    (void)state;
    for (k = 0; k < sizeof op_cases / sizeof op_cases[0]; k++) {
        const op_case *oc = &op_cases[k];
        npu_arena a;
        npu_graph *g = NULL;
        prefix p;
        size_t base, need, cap, formula;
        npu_node *n;
        /* The need: measured in a big arena, then checked against npu.h's formula. */
        assert_int_equal(npu_arena_init(&a, sweep_mem, SWEEP_BYTES), NPU_OK);
        tu_ok(npu_graph_create(&a, tu_ctx, NULL, &g), "graph");
        build_prefix(g, &p);
        tu_ok(npu_graph_status(g), "prefix");
        base = npu_arena_used(&a);
        assert_int_equal(npu_graph_bytes_used(g), base);
        n = oc->add(g, &p);
        if (n == NULL) fail_msg("%s: %s", oc->name, npu_graph_first_error(g));
        need = npu_arena_used(&a) - base;
        assert_int_equal(npu_graph_bytes_used(g), base + need);
        formula = R(npu_graph_node_size()) + R(strlen(npu_node_name(n)) + 1) + oc->extra;
        if (oc->const_vals == 0) {
            if (need != formula) fail_msg("%s: takes %zu bytes, npu.h's formula gives %zu", oc->name, need, formula);
        } else {
            /* plus a Constant node with an automatic name and its i64 values */
            size_t rest = need - formula - R(npu_graph_node_size()) - R(8 * oc->const_vals);
            if (need < formula || rest == 0 || rest > R(NPU_NAME_MAX) || rest % NPU_ARENA_ALIGN != 0)
                fail_msg("%s: takes %zu bytes, beyond npu.h's formula (%zu + constant)", oc->name, need, formula);
        }
        /* Every smaller capacity fails cleanly; the exact one works. */
        for (cap = 0; cap <= need; cap += NPU_ARENA_ALIGN) {
            assert_int_equal(npu_arena_init(&a, sweep_mem, base + cap), NPU_OK);
            tu_ok(npu_graph_create(&a, tu_ctx, NULL, &g), "graph");
            build_prefix(g, &p);
            tu_ok(npu_graph_status(g), "prefix");
            n = oc->add(g, &p);
            if (cap < need) {
                if (n != NULL) fail_msg("%s: made in %zu of %zu bytes", oc->name, cap, need);
                assert_int_equal(npu_graph_status(g), NPU_ERR_ARENA_TOO_SMALL);
                if (npu_arena_used(&a) != base)
                    fail_msg("%s: capacity %zu of %zu: arena used %zu, was %zu", oc->name, cap, need,
                             npu_arena_used(&a), base);
                assert_int_equal(npu_graph_bytes_used(g), base);
            } else {
                if (n == NULL) fail_msg("%s: exact capacity: %s", oc->name, npu_graph_first_error(g));
                assert_int_equal(npu_arena_used(&a), base + need);
            }
        }
    }
}

/* ---- IR ---- */

typedef struct ir_src {
    char *xml;
    size_t xml_len;
    unsigned char *bin;
    size_t bin_len;
    char xml_path[256], bin_path[256];
} ir_src;

static ir_src irs[2];   /* affine (stateless), accumulator (states) */

static void write_ir(ir_src *s, npu_graph *g, const char *stem)
{
    npu_payload_options po;
    FILE *f;
    memset(&po, 0, sizeof po);
    po.layout = NPU_PAYLOAD_WEIGHTS_COPY;
    tu_ok(npu_graph_write_xml(g, &po, NULL, 0, &s->xml_len), "xml size");
    s->xml = (char *)malloc(s->xml_len);
    tu_ok(npu_graph_write_xml(g, &po, s->xml, s->xml_len, &s->xml_len), "xml");
    tu_ok(npu_graph_write_bin(g, NULL, 0, &s->bin_len), "bin size");
    s->bin = (unsigned char *)malloc(s->bin_len + 1);
    tu_ok(npu_graph_write_bin(g, s->bin, s->bin_len, &s->bin_len), "bin");
    snprintf(s->xml_path, sizeof s->xml_path, "/tmp/npu-arena-%ld-%s.xml", (long)getpid(), stem);
    snprintf(s->bin_path, sizeof s->bin_path, "/tmp/npu-arena-%ld-%s.bin", (long)getpid(), stem);
    f = fopen(s->xml_path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(s->xml, 1, s->xml_len, f), s->xml_len);
    fclose(f);
    f = fopen(s->bin_path, "wb");
    assert_non_null(f);
    if (s->bin_len > 0) assert_int_equal(fwrite(s->bin, 1, s->bin_len, f), s->bin_len);
    fclose(f);
}

static npu_ir *loaded_ir;
static npu_status try_ir_memory(npu_arena *a, void *arg)
{
    ir_src *s = (ir_src *)arg;
    npu_ir *ir = NULL;
    npu_status st = npu_ir_load_memory(a, tu_ctx, s->xml, s->xml_len, s->bin, s->bin_len, &ir);
    if (st != NPU_OK) assert_null(ir);
    loaded_ir = ir;
    return st;
}

static npu_status try_ir_file(npu_arena *a, void *arg)
{
    ir_src *s = (ir_src *)arg;
    npu_ir *ir = NULL;
    npu_status st = npu_ir_open(a, tu_ctx, s->xml_path, s->bin_path, &ir);
    if (st != NPU_OK) assert_null(ir);
    npu_ir_close(ir);
    return st;
}

static void test_ir_memory_and_file(void **state)
{
    int i;
    (void)state;
    for (i = 0; i < 2; i++) {
        size_t need = 0, need_file = 0;
        tu_ok(npu_ir_size(&tu_arena, tu_ctx, irs[i].xml, irs[i].xml_len, &need), "ir size");
        tu_ok(npu_ir_size_file(&tu_arena, tu_ctx, irs[i].xml_path, &need_file), "ir size file");
        assert_int_equal(need, need_file);
        sweep("IR (memory)", need, try_ir_memory, &irs[i], 0);
        /* the loading tables were handed back: the object keeps less */
        assert_true(npu_ir_arena_bytes(loaded_ir) > 0 && npu_ir_arena_bytes(loaded_ir) < need);
        sweep("IR (file)", need, try_ir_file, &irs[i], 0);
    }
}

/* ---- device ---- */

static npu_status try_device(npu_arena *a, void *arg)
{
    npu_device *d = NULL;
    npu_status st = npu_device_open(a, tu_ctx, (const npu_device_options *)arg, &d);
    if (st != NPU_OK) assert_null(d);
    npu_device_close(d);
    return st;
}

static void test_device(void **state)
{
    npu_device_options o = {.priority = NPU_PRIORITY_HIGH, .turbo = 1, .export_openvino_version = {0, 0, 0}};
    (void)state;
    sweep("device", npu_device_size(), try_device, NULL, 1);
    sweep("device (high priority, turbo)", npu_device_size(), try_device, &o, 1);
}

/* ---- models ---- */

typedef struct compile_arg {
    const npu_graph *graph;
    const npu_ir *ir;
    const npu_compile_options *opts;
    const void *blob;
    size_t blob_size;
    uint32_t n_args;
} compile_arg;

static npu_status model_done(npu_status st, npu_model *m, npu_arena *a, const compile_arg *c, size_t start)
{
    if (st != NPU_OK) {
        assert_null(m);
        return st;
    }
    /* The model object stays; any scratch (payload, argument tables) was
     * handed back, and npu_model_size counted that scratch. */
    if (npu_model_arena_bytes(m) != npu_arena_used(a) - start || npu_arena_used(a) - start >= npu_model_size(c->n_args) ||
        a->peak - start < npu_model_size(c->n_args))
        fail_msg("model of %u arguments: npu_model_arena_bytes %zu, arena use %zu, npu_model_size %zu", c->n_args,
                 npu_model_arena_bytes(m), npu_arena_used(a) - start, npu_model_size(c->n_args));
    npu_model_destroy(m);
    /* sweep() checks the exact need was used: report the peak as used. */
    npu_arena_rewind(a, start);
    return st;
}

static npu_status try_compile_graph(npu_arena *a, void *arg)
{
    compile_arg *c = (compile_arg *)arg;
    npu_model *m = NULL;
    size_t start = npu_arena_used(a);
    npu_status st = npu_model_compile_graph(dev, a, c->graph, c->opts, &m);
    return model_done(st, m, a, c, start);
}

static npu_status try_compile_ir(npu_arena *a, void *arg)
{
    compile_arg *c = (compile_arg *)arg;
    npu_model *m = NULL;
    size_t start = npu_arena_used(a);
    npu_status st = npu_model_compile_ir(dev, a, c->ir, c->opts, &m);
    return model_done(st, m, a, c, start);
}

static npu_status try_import(npu_arena *a, void *arg)
{
    compile_arg *c = (compile_arg *)arg;
    npu_model *m = NULL;
    size_t start = npu_arena_used(a);
    npu_status st = npu_model_import(dev, a, c->blob, c->blob_size, NULL, &m);
    return model_done(st, m, a, c, start);
}

/* sweep() wants the arena to end at exactly pre + need; models hand their
 * scratch back, so these sweeps check the peak instead. */
static void sweep_model(const char *what, size_t need, try_fn fn, compile_arg *c)
{
    npu_arena a;
    npu_context *ctx;
    size_t pre = npu_context_size(), cap;
    unsigned tries = 0;
    tu_live base = tu_live_now();
    assert_true(need % NPU_ARENA_ALIGN == 0);
    assert_true(need >= npu_model_size(c->n_args));
    for (cap = 0; cap < need; cap = next_cap(cap, need)) {
        npu_status st;
        assert_int_equal(npu_arena_init(&a, sweep_mem, pre + cap), NPU_OK);
        assert_int_equal(npu_context_create(&a, NULL, &ctx), NPU_OK);
        st = fn(&a, c);
        if (st != NPU_ERR_ARENA_TOO_SMALL)
            fail_msg("%s: capacity %zu of %zu: %s: %s", what, cap, need, npu_status_string(st),
                     npu_context_last_error(tu_ctx));
        if (npu_arena_used(&a) != pre) fail_msg("%s: capacity %zu: arena used %zu", what, cap, npu_arena_used(&a));
        tu_live_expect(&base);
        tries++;
    }
    assert_int_equal(npu_arena_init(&a, sweep_mem, pre + need), NPU_OK);
    assert_int_equal(npu_context_create(&a, NULL, &ctx), NPU_OK);
    tu_ok(fn(&a, c), what);
    assert_int_equal(a.peak, pre + need);
    tu_live_expect(&base);
    assert_true(tries >= (need < 16384 ? need / NPU_ARENA_ALIGN : 256));
}

static void test_models(void **state)
{
    npu_compile_options plugin, layout_a;
    npu_graph *g[3];
    npu_ir *ir;
    uint32_t n_args[3] = {2, 4, 2};
    int i;
    (void)state;
    memset(&plugin, 0, sizeof plugin);
    plugin.batch_mode = NPU_BATCH_PLUGIN;
    memset(&layout_a, 0, sizeof layout_a);
    layout_a.payload_layout = NPU_PAYLOAD_WEIGHTS_COPY;
    g[0] = tu_graph_affine(&tu_arena, 1);
    g[1] = tu_graph_accumulator(&tu_arena);
    g[2] = tu_graph_affine(&tu_arena, 3);
    for (i = 0; i < 3; i++) {
        const npu_compile_options *opts[3] = {NULL, &layout_a, i == 2 ? &plugin : NULL};
        int k;
        for (k = 0; k < 3; k++) {
            compile_arg c;
            size_t need = 0, bsize = 0;
            npu_model *m = NULL;
            unsigned char *blob;
            memset(&c, 0, sizeof c);
            c.graph = g[i];
            c.opts = opts[k];
            c.n_args = n_args[i];
            tu_ok(npu_model_compile_graph_size(dev, g[i], opts[k], &need), "compile size");
            sweep_model("compile graph", need, try_compile_graph, &c);
            if (k > 0) continue;
            /* import of its export */
            tu_ok(npu_model_compile_graph(dev, &tu_arena, g[i], opts[k], &m), "compile");
            tu_ok(npu_model_export(m, NULL, 0, &bsize), "export size");
            blob = (unsigned char *)malloc(bsize);
            tu_ok(npu_model_export(m, blob, bsize, &bsize), "export");
            npu_model_destroy(m);
            c.blob = blob;
            c.blob_size = bsize;
            sweep_model("import", npu_model_size(c.n_args), try_import, &c);
            free(blob);
        }
    }
    /* IR compiles */
    for (i = 0; i < 2; i++) {
        compile_arg c;
        size_t need = 0, irneed = 0, mark = npu_arena_used(&tu_arena);
        tu_ok(npu_ir_size(&tu_arena, tu_ctx, irs[i].xml, irs[i].xml_len, &irneed), "ir size");
        tu_ok(npu_ir_load_memory(&tu_arena, tu_ctx, irs[i].xml, irs[i].xml_len, irs[i].bin, irs[i].bin_len, &ir),
              "ir");
        memset(&c, 0, sizeof c);
        c.ir = ir;
        c.n_args = n_args[i];
        tu_ok(npu_model_compile_ir_size(dev, ir, NULL, &need), "compile ir size");
        sweep_model("compile IR", need, try_compile_ir, &c);
        c.opts = &layout_a;
        tu_ok(npu_model_compile_ir_size(dev, ir, &layout_a, &need), "compile ir size (A)");
        sweep_model("compile IR (layout A)", need, try_compile_ir, &c);
        npu_arena_rewind(&tu_arena, mark);
    }
}

/* ---- requests ---- */

typedef struct request_arg {
    npu_model *model;
    const npu_request_options *opts;
} request_arg;

static npu_status try_request(npu_arena *a, void *arg)
{
    request_arg *r = (request_arg *)arg;
    npu_request *req = NULL;
    npu_status st = npu_request_create(r->model, a, r->opts, &req);
    if (st != NPU_OK) assert_null(req);
    npu_request_destroy(req);
    return st;
}

static void test_requests(void **state)
{
    npu_compile_options plugin;
    npu_request_options ro = {.cached_inputs = 1, .max_batch = 0}, dyn = {.cached_inputs = 0, .max_batch = 5};
    npu_graph *g[4];
    int i;
    (void)state;
    memset(&plugin, 0, sizeof plugin);
    plugin.batch_mode = NPU_BATCH_PLUGIN;
    g[0] = tu_graph_affine(&tu_arena, 1);
    g[1] = tu_graph_accumulator(&tu_arena);
    g[2] = tu_graph_affine(&tu_arena, 3);
    g[3] = tu_graph_affine(&tu_arena, NPU_DIM_DYNAMIC);
    for (i = 0; i < 4; i++) {
        request_arg r;
        npu_model *m = NULL;
        size_t mark = npu_arena_used(&tu_arena);
        tu_ok(npu_model_compile_graph(dev, &tu_arena, g[i], i >= 2 ? &plugin : NULL, &m), "compile");
        r.model = m;
        r.opts = NULL;
        sweep("request", npu_request_size(m, NULL), try_request, &r, 1);
        r.opts = i == 3 ? &dyn : &ro;
        sweep(i == 3 ? "request (max_batch 5)" : "request (cached inputs)", npu_request_size(m, r.opts), try_request,
              &r, 1);
        if (i == 3) assert_true(npu_request_size(m, &dyn) > npu_request_size(m, NULL));
        npu_model_destroy(m);
        npu_arena_rewind(&tu_arena, mark);
    }
}

static int group_setup(void **state)
{
    npu_graph *g;
    (void)state;
    tu_init_context();
    dev = tu_open();
    sweep_mem = (unsigned char *)aligned_alloc(4096, SWEEP_BYTES);
    assert_non_null(sweep_mem);
    g = tu_graph_affine(&tu_arena, 1);
    write_ir(&irs[0], g, "affine");
    g = tu_graph_accumulator(&tu_arena);
    write_ir(&irs[1], g, "acc");
    return 0;
}

static int group_teardown(void **state)
{
    int i;
    (void)state;
    for (i = 0; i < 2; i++) {
        unlink(irs[i].xml_path);
        unlink(irs[i].bin_path);
        free(irs[i].xml);
        free(irs[i].bin);
    }
    free(sweep_mem);
    npu_device_close(dev);
    return 0;
}

/* With a cache directory, cold (compiles and stores) and warm (imports the
 * entry): the size query is exact both ways (warm, it was larger than what
 * the call took, by what the compile path needs for the payload). */
static void test_cached_compiles(void **state)
{
    char dir[64], cmd[128];
    npu_compile_options o;
    npu_graph *g[2];
    int i, pass;
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/npu-arena-cache-XXXXXX");
    assert_non_null(mkdtemp(dir));
    memset(&o, 0, sizeof o);
    o.cache_dir = dir;
    g[0] = tu_graph_affine(&tu_arena, 1);
    g[1] = tu_graph_accumulator(&tu_arena);
    for (i = 0; i < 2; i++) {
        for (pass = 0; pass < 2; pass++) {   /* cold, then warm */
            compile_arg c;
            size_t need = 0;
            memset(&c, 0, sizeof c);
            c.graph = g[i];
            c.opts = &o;
            c.n_args = i == 0 ? 2 : 4;
            tu_ok(npu_model_compile_graph_size(dev, g[i], &o, &need), "compile size");
            sweep_model(pass == 0 ? "compile graph (cache, cold)" : "compile graph (cache, warm)", need,
                        try_compile_graph, &c);
        }
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_context),
        cmocka_unit_test(test_graph_object),
        cmocka_unit_test(test_every_op_kind),
        cmocka_unit_test(test_ir_memory_and_file),
        cmocka_unit_test(test_device),
        cmocka_unit_test(test_models),
        cmocka_unit_test(test_cached_compiles),
        cmocka_unit_test(test_requests),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
