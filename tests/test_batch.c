/* test_batch.c - batch modes (AUTO / PLUGIN / COMPILER), static debatching,
 * dynamic batch, and the batch in exported blobs, on the software NPU. */
#include "l0_test_util.h"

static npu_device *dev;
static size_t base_mark;

static int setup_all(void **state)
{
    (void)state;
    tu_init_context_logged(NPU_LOG_INFO);
    dev = tu_open();
    base_mark = npu_arena_used(&tu_arena);
    return 0;
}

static int teardown_all(void **state)
{
    (void)state;
    npu_device_close(dev);
    return 0;
}

static int setup_each(void **state)
{
    (void)state;
    npu_arena_rewind(&tu_arena, base_mark);
    tu_log_clear();
    npu_context_clear_error(tu_ctx);
    return 0;
}

static void fill(float *x, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++) x[i] = (float)((int)((i * 37u + seed * 11u) % 23u) - 11) * 0.25f;
}

static npu_compile_options mode_opts(npu_batch_mode m)
{
    npu_compile_options o;
    memset(&o, 0, sizeof o);
    o.batch_mode = m;
    return o;
}

static npu_model *compile_ok(const npu_graph *g, npu_batch_mode m)
{
    npu_compile_options o = mode_opts(m);
    npu_model *model = NULL;
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, &o, &model), "compile");
    return model;
}

/* Runs one inference of a one-input / one-output model on x (rows x 4 floats)
 * and copies the output into y. Counts the sim's submissions. */
static void run_rows(npu_model *m, const npu_request_options *ro, uint32_t n, const float *x, float *y,
                     size_t rows, uint64_t *submits, uint64_t *lists, uint64_t *execs)
{
    npu_request *r = NULL;
    npu_sim_test_ext_t *t = tu_sim();
    tu_ok(npu_request_create(m, &tu_arena, ro, &r), "request");
    if (n > 0) tu_ok(npu_request_set_batch(r, n), "set_batch");
    memcpy(npu_request_input(r, 0), x, rows * 4 * sizeof(float));
    t->pfnResetCounters();
    tu_ok(npu_request_infer(r), "infer");
    if (submits) *submits = t->pfnGetSubmitCount();
    if (lists) *lists = t->pfnGetSubmittedListCount();
    if (execs) *execs = t->pfnGetGraphExecuteCount();
    memcpy(y, npu_request_output(r, 0), rows * 4 * sizeof(float));
    npu_request_destroy(r);
}


static void expect_error(const char *what)
{
    if (strstr(npu_context_last_error(tu_ctx), what) == NULL)
        fail_msg("error lacks \"%s\": %s", what, npu_context_last_error(tu_ctx));
}

/* ---- static batch ---- */

static void test_auto_debatches_and_matches_batch1_bitwise(void **state)
{
    enum { N = 4 };
    float x[N * 4], y[N * 4], y1[N * 4], ref[N * 4];
    npu_graph *g = tu_graph_affine(&tu_arena, N);
    npu_graph *g1 = tu_graph_affine(&tu_arena, 1);
    npu_model *m, *m1;
    npu_model_info info;
    const npu_tensor_desc *d;
    uint64_t submits = 0, lists = 0, execs = 0;
    int i;
    (void)state;
    m = compile_ok(g, NPU_BATCH_AUTO);
    assert_int_equal(npu_graph_batch(g), N); /* the caller's graph is as it was */
    assert_int_equal(npu_model_batch(m), N);
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.batch_mode, NPU_BATCH_PLUGIN);
    assert_int_equal(info.original_batch, N);
    assert_int_equal(info.from_cache, 0);
    assert_true(info.compile_ns > 0);
    assert_int_equal(info.import_ns, 0);
    d = npu_model_input(m, 0);
    assert_int_equal(d->shape.dims[0], N);
    assert_int_equal(d->bytes, N * 4 * sizeof(float));
    assert_string_equal(d->layout, "NC");
    tu_expect_log("debatched into 4 command lists (PLUGIN)");

    fill(x, N * 4, 1);
    run_rows(m, NULL, 0, x, y, N, &submits, &lists, &execs);
    /* One submission carrying N lists; N graph executions. */
    assert_int_equal(submits, 1);
    assert_int_equal(lists, N);
    assert_int_equal(execs, N);
    tu_affine_ref(x, ref, N);
    assert_memory_equal(y, ref, sizeof y);

    /* The same as N batch-1 inferences, bitwise. */
    m1 = compile_ok(g1, NPU_BATCH_AUTO);
    assert_int_equal(npu_model_batch(m1), 1);
    tu_ok(npu_model_get_info(m1, &info), "info");
    assert_int_equal(info.batch_mode, NPU_BATCH_AUTO);
    assert_int_equal(info.original_batch, 1);
    for (i = 0; i < N; i++) run_rows(m1, NULL, 0, x + 4 * i, y1 + 4 * i, 1, NULL, NULL, NULL);
    assert_memory_equal(y, y1, sizeof y);
    npu_model_destroy(m1);
    npu_model_destroy(m);
}

static void test_plugin_and_compiler_modes(void **state)
{
    enum { N = 3 };
    float x[N * 4], y[N * 4], ref[N * 4];
    npu_graph *g = tu_graph_affine(&tu_arena, N);
    npu_model *m;
    npu_model_info info;
    uint64_t submits = 0, lists = 0;
    (void)state;
    fill(x, N * 4, 2);
    tu_affine_ref(x, ref, N);

    m = compile_ok(g, NPU_BATCH_PLUGIN);
    assert_int_equal(npu_model_batch(m), N);
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.batch_mode, NPU_BATCH_PLUGIN);
    run_rows(m, NULL, 0, x, y, N, &submits, &lists, NULL);
    assert_int_equal(submits, 1);
    assert_int_equal(lists, N);
    assert_memory_equal(y, ref, sizeof y);
    npu_model_destroy(m);

    m = compile_ok(g, NPU_BATCH_COMPILER);
    assert_int_equal(npu_model_batch(m), 1);
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.batch_mode, NPU_BATCH_COMPILER);
    assert_int_equal(info.original_batch, N);
    assert_int_equal(npu_model_input(m, 0)->shape.dims[0], N);
    run_rows(m, NULL, 0, x, y, N, &submits, &lists, NULL);
    assert_int_equal(submits, 1);
    assert_int_equal(lists, 1);
    assert_memory_equal(y, ref, sizeof y);
    npu_model_destroy(m);
}

/* Two inputs with batches 4 and 2, each with its own output. */
static npu_graph *graph_mismatched(void)
{
    npu_graph *g = NULL;
    npu_shape sa = {2, {4, 3}}, sb = {2, {2, 3}};
    npu_node *a, *b;
    assert_int_equal(npu_graph_create(&tu_arena, tu_ctx, NULL, &g), NPU_OK);
    a = npu_graph_parameter(g, "a", NPU_F32, &sa, "NC");
    b = npu_graph_parameter(g, "b", NPU_F32, &sb, "NC");
    tu_ok(npu_graph_set_layout(npu_graph_result(g, npu_graph_relu(g, a, "ra"), "ya"), "NC"), "layout");
    tu_ok(npu_graph_set_layout(npu_graph_result(g, npu_graph_relu(g, b, "rb"), "yb"), "NC"), "layout");
    if (npu_graph_status(g) != NPU_OK) fail_msg("graph: %s", npu_graph_first_error(g));
    return g;
}

static void check_fallback(const npu_graph *g, const char *reason)
{
    npu_compile_options o = mode_opts(NPU_BATCH_PLUGIN);
    npu_model *m = NULL;
    npu_model_info info;
    size_t used = npu_arena_used(&tu_arena);
    /* AUTO: COMPILER, and the log (INFO) and the info say why, with the batch. */
    tu_log_clear();
    m = compile_ok(g, NPU_BATCH_AUTO);
    assert_int_equal(npu_model_batch(m), 1);
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.batch_mode, NPU_BATCH_COMPILER);
    assert_int_equal(info.requested_mode, NPU_BATCH_AUTO);
    if (strstr(info.batch_reason, reason) == NULL) fail_msg("batch_reason lacks \"%s\": %s", reason, info.batch_reason);
    tu_expect_log("[2] batch mode AUTO: the batch-");
    tu_expect_log("the compiler handles the batch (COMPILER)");
    tu_expect_log(reason);
    npu_model_destroy(m);
    npu_arena_rewind(&tu_arena, used);
    /* PLUGIN: a clear error, the arena as it was. */
    assert_int_equal(npu_model_compile_graph(dev, &tu_arena, g, &o, &m), NPU_ERR_UNSUPPORTED);
    assert_null(m);
    assert_int_equal(npu_arena_used(&tu_arena), used);
    expect_error("batch mode PLUGIN");
    expect_error(reason);
    /* COMPILER: fine. */
    m = compile_ok(g, NPU_BATCH_COMPILER);
    npu_model_destroy(m);
    npu_arena_rewind(&tu_arena, used);
}

static void test_mismatched_batches_fall_back(void **state)
{
    npu_graph *g = graph_mismatched();
    npu_model *m;
    npu_request *r = NULL;
    float a[12], b[6];
    int i;
    (void)state;
    check_fallback(g, "inputs 'a' (batch 4) and 'b' (batch 2) differ");
    /* The COMPILER model computes both. */
    m = compile_ok(g, NPU_BATCH_AUTO);
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    for (i = 0; i < 12; i++) a[i] = (float)(i - 6);
    for (i = 0; i < 6; i++) b[i] = (float)(3 - i);
    memcpy(npu_request_input(r, 0), a, sizeof a);
    memcpy(npu_request_input(r, 1), b, sizeof b);
    tu_ok(npu_request_infer(r), "infer");
    for (i = 0; i < 12; i++) assert_true(((float *)npu_request_output(r, 0))[i] == (a[i] > 0 ? a[i] : 0));
    for (i = 0; i < 6; i++) assert_true(((float *)npu_request_output(r, 1))[i] == (b[i] > 0 ? b[i] : 0));
    npu_request_destroy(r);
    npu_model_destroy(m);
}

static void test_batch_axis_not_outermost_falls_back(void **state)
{
    npu_graph *g = NULL;
    npu_shape s = {2, {3, 4}}; /* "CN": batch 4 on axis 1 */
    npu_node *x, *y;
    (void)state;
    assert_int_equal(npu_graph_create(&tu_arena, tu_ctx, NULL, &g), NPU_OK);
    x = npu_graph_parameter(g, "x", NPU_F32, &s, "CN");
    y = npu_graph_result(g, npu_graph_relu(g, x, "r"), "y");
    tu_ok(npu_graph_set_layout(y, "CN"), "layout");
    assert_int_equal(npu_graph_batch(g), 4);
    check_fallback(g, "input 'x' has its batch on axis 1 (layout CN); debatching needs the outermost axis");
    tu_expect_log("batch-4 model");
}

static npu_graph *graph_state_batch(int64_t batch) { return tu_graph_accumulator_batch(&tu_arena, batch, "NC"); }

static void test_states_with_batch_fall_back(void **state)
{
    npu_graph *g = graph_state_batch(4);
    (void)state;
    check_fallback(g, "the model has 1 state variable(s)");
}

static void test_states_with_batch1_work_in_every_mode(void **state)
{
    npu_batch_mode modes[3] = {NPU_BATCH_AUTO, NPU_BATCH_PLUGIN, NPU_BATCH_COMPILER};
    npu_graph *g = graph_state_batch(1);
    int k, i, run;
    (void)state;
    for (k = 0; k < 3; k++) {
        size_t used = npu_arena_used(&tu_arena);
        npu_model *m = compile_ok(g, modes[k]);
        npu_request *r = NULL;
        npu_model_info info;
        tu_ok(npu_model_get_info(m, &info), "info");
        assert_int_equal(info.batch_mode, NPU_BATCH_AUTO);
        assert_int_equal(info.original_batch, 1);
        assert_int_equal(npu_model_batch(m), 1);
        assert_int_equal(npu_model_state_count(m), 1);
        tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
        for (run = 1; run <= 3; run++) {
            float *x = npu_request_input(r, 0);
            for (i = 0; i < 4; i++) x[i] = (float)(i + 1);
            tu_ok(npu_request_infer(r), "infer");
            for (i = 0; i < 4; i++) assert_true(((float *)npu_request_output(r, 0))[i] == (float)(run * (i + 1)));
        }
        npu_request_destroy(r);
        npu_model_destroy(m);
        npu_arena_rewind(&tu_arena, used);
    }
}

/* x [4,4] -> Reshape to the fixed [4,4]: fine at batch 4, impossible at 1. */
static npu_graph *graph_fixed_reshape(void)
{
    static const int64_t target[2] = {4, 4};
    npu_graph *g = NULL;
    npu_shape s = {2, {4, 4}};
    npu_node *x, *y;
    assert_int_equal(npu_graph_create(&tu_arena, tu_ctx, NULL, &g), NPU_OK);
    x = npu_graph_parameter(g, "x", NPU_F32, &s, "NC");
    y = npu_graph_result(g, npu_graph_relu(g, npu_graph_reshape(g, x, target, 2, 0, "rs"), "r"), "y");
    tu_ok(npu_graph_set_layout(y, "NC"), "layout");
    if (npu_graph_status(g) != NPU_OK) fail_msg("graph: %s", npu_graph_first_error(g));
    return g;
}

static void test_graph_that_cannot_take_batch1_falls_back(void **state)
{
    npu_graph *g = graph_fixed_reshape();
    npu_tensor_desc d;
    (void)state;
    check_fallback(g, "setting batch 1 failed");
    /* The graph is as it was. */
    assert_int_equal(npu_graph_batch(g), 4);
    tu_ok(npu_graph_output(g, 0, &d), "output");
    assert_int_equal(d.shape.dims[0], 4);
    assert_int_equal(npu_graph_status(g), NPU_OK);
}

/* An IR (written from a graph) in memory. */
static char ir_xml[1 << 16];
static unsigned char ir_bin[1 << 12];

static npu_ir *ir_from_graph(const npu_graph *g)
{
    npu_payload_options a;
    size_t xn = 0, bn = 0;
    npu_ir *ir = NULL;
    memset(&a, 0, sizeof a);
    a.layout = NPU_PAYLOAD_WEIGHTS_COPY;
    tu_ok(npu_graph_write_xml(g, &a, ir_xml, sizeof ir_xml, &xn), "write xml");
    tu_ok(npu_graph_write_bin(g, ir_bin, sizeof ir_bin, &bn), "write bin");
    tu_ok(npu_ir_load_memory(&tu_arena, tu_ctx, ir_xml, xn, ir_bin, bn, &ir), "load IR");
    return ir;
}

static void test_ir_compiler_rejecting_batch1_falls_back(void **state)
{
    npu_graph *g = graph_fixed_reshape();
    npu_ir *ir = ir_from_graph(g);
    npu_compile_options o = mode_opts(NPU_BATCH_AUTO);
    npu_model *m = NULL;
    npu_model_info info;
    float x[16], y[16];
    int i;
    (void)state;
    tu_ok(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), "compile IR AUTO");
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.batch_mode, NPU_BATCH_COMPILER);
    assert_int_equal(npu_model_batch(m), 1);
    tu_expect_log("the batch-1 model");
    tu_expect_log("(COMPILER)");
    for (i = 0; i < 16; i++) x[i] = (float)(i - 8);
    run_rows(m, NULL, 0, x, y, 4, NULL, NULL, NULL);
    for (i = 0; i < 16; i++) assert_true(y[i] == (x[i] > 0 ? x[i] : 0));
    npu_model_destroy(m);
    /* Explicit PLUGIN fails with the compiler's error. */
    o.batch_mode = NPU_BATCH_PLUGIN;
    m = NULL;
    assert_int_equal(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), NPU_ERR_COMPILE);
    assert_null(m);
    expect_error("batch mode PLUGIN: the batch-4 model cannot be debatched: the batch-1 model");
    /* The IR is as it was: COMPILER sees batch 4. */
    o.batch_mode = NPU_BATCH_COMPILER;
    tu_ok(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), "compile IR COMPILER");
    assert_int_equal(npu_model_input(m, 0)->shape.dims[0], 4);
    npu_model_destroy(m);
}

static void test_ir_plugin_and_user_batch(void **state)
{
    npu_graph *g = tu_graph_affine(&tu_arena, 2);
    npu_ir *ir = ir_from_graph(g);
    npu_compile_options o = mode_opts(NPU_BATCH_AUTO);
    npu_model *m = NULL;
    npu_model_info info;
    float x[6 * 4], y[6 * 4], ref[6 * 4];
    uint64_t lists = 0;
    int64_t orig = 0;
    (void)state;
    tu_ok(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), "compile IR");
    assert_int_equal(npu_model_batch(m), 2);
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.batch_mode, NPU_BATCH_PLUGIN);
    fill(x, 8, 3);
    tu_affine_ref(x, ref, 2);
    run_rows(m, NULL, 0, x, y, 2, NULL, &lists, NULL);
    assert_int_equal(lists, 2);
    assert_memory_equal(y, ref, 8 * sizeof(float));
    npu_model_destroy(m);
    /* The caller's own batch rewrite (npu_ir_set_batch(6)) is the batch. */
    tu_ok(npu_ir_set_batch(ir, 6, &orig), "set batch");
    assert_int_equal(orig, 2);
    tu_ok(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), "compile IR batch 6");
    assert_int_equal(npu_model_batch(m), 6);
    fill(x, 24, 4);
    tu_affine_ref(x, ref, 6);
    run_rows(m, NULL, 0, x, y, 6, NULL, &lists, NULL);
    assert_int_equal(lists, 6);
    assert_memory_equal(y, ref, sizeof y);
    npu_model_destroy(m);
    /* ... and still the rewrite after the call: COMPILER compiles batch 6. */
    o.batch_mode = NPU_BATCH_COMPILER;
    tu_ok(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), "compile IR COMPILER");
    assert_int_equal(npu_model_input(m, 0)->shape.dims[0], 6);
    assert_int_equal(npu_model_batch(m), 1);
    npu_model_destroy(m);
}

static void test_size_query_exact_for_plugin(void **state)
{
    static _Alignas(16) unsigned char mem[1 << 16];
    npu_graph *g = tu_graph_affine(&tu_arena, 5);
    npu_compile_options o = mode_opts(NPU_BATCH_PLUGIN);
    npu_arena a;
    npu_model *m = NULL;
    size_t need = 0;
    (void)state;
    tu_ok(npu_model_compile_graph_size(dev, g, &o, &need), "size");
    assert_true(need <= sizeof mem);
    assert_int_equal(npu_arena_init(&a, mem, need), NPU_OK);
    tu_ok(npu_model_compile_graph(dev, &a, g, &o, &m), "compile in an exact arena");
    assert_int_equal(npu_model_batch(m), 5);
    npu_model_destroy(m);
    assert_int_equal(npu_arena_init(&a, mem, need - NPU_ARENA_ALIGN), NPU_OK);
    assert_int_equal(npu_model_compile_graph(dev, &a, g, &o, &m), NPU_ERR_ARENA_TOO_SMALL);
    assert_int_equal(npu_arena_used(&a), 0);
    assert_int_equal(npu_graph_batch(g), 5);
}

/* ---- dynamic batch ---- */

static void test_dynamic_batch(void **state)
{
    enum { MAX = 5 };
    npu_graph *g = tu_graph_affine(&tu_arena, NPU_DIM_DYNAMIC);
    npu_model *m;
    npu_model_info info;
    npu_request_options ro;
    npu_request *r = NULL;
    npu_compile_options o = mode_opts(NPU_BATCH_COMPILER);
    const npu_tensor_desc *d;
    float x[MAX * 4], y[MAX * 4], ref[MAX * 4];
    uint32_t ns[4] = {1, MAX, 3, 2};
    uint64_t lists = 0, submits = 0;
    int k;
    (void)state;
    m = compile_ok(g, NPU_BATCH_AUTO);
    assert_int_equal(npu_graph_batch(g), NPU_DIM_DYNAMIC);
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.batch_mode, NPU_BATCH_PLUGIN);
    assert_int_equal(info.original_batch, NPU_DIM_DYNAMIC);
    assert_int_equal(npu_model_batch(m), 1);
    d = npu_model_input(m, 0);
    assert_int_equal(d->shape.dims[0], NPU_DIM_DYNAMIC);
    assert_int_equal(d->bytes, 4 * sizeof(float));
    tu_expect_log("batch dynamic compiled at batch 1");

    memset(&ro, 0, sizeof ro);
    ro.max_batch = MAX;
    for (k = 0; k < 4; k++) {
        memset(y, 0, sizeof y);
        fill(x, ns[k] * 4, (unsigned)k + 7);
        run_rows(m, &ro, ns[k], x, y, ns[k], &submits, &lists, NULL);
        assert_int_equal(submits, 1);
        assert_int_equal(lists, ns[k]);
        tu_affine_ref(x, ref, ns[k]);
        assert_memory_equal(y, ref, ns[k] * 4 * sizeof(float));
    }
    /* Out of range; a static count for a default request. */
    tu_ok(npu_request_create(m, &tu_arena, &ro, &r), "request");
    assert_int_equal(npu_request_set_batch(r, MAX + 1), NPU_ERR_INVALID_ARGUMENT);
    expect_error("1 to 5");
    assert_int_equal(npu_request_set_batch(r, 0), NPU_ERR_INVALID_ARGUMENT);
    /* A caller buffer must hold max_batch elements. */
    assert_int_equal(npu_request_set_input_buffer(r, 0, x, 4 * sizeof(float) * (MAX - 1)), NPU_ERR_BUFFER_TOO_SMALL);
    npu_request_destroy(r);
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "default request");
    assert_int_equal(npu_request_set_batch(r, 2), NPU_ERR_INVALID_ARGUMENT);
    tu_ok(npu_request_set_batch(r, 1), "n = 1");
    npu_request_destroy(r);
    npu_model_destroy(m);
    /* The compiler gets a dynamic model in COMPILER mode (the sim refuses it). */
    m = NULL;
    assert_int_equal(npu_model_compile_graph(dev, &tu_arena, g, &o, &m), NPU_ERR_COMPILE);
}

static void test_static_request_set_batch(void **state)
{
    npu_graph *g = tu_graph_affine(&tu_arena, 3);
    npu_model *m = compile_ok(g, NPU_BATCH_AUTO);
    npu_request *r = NULL;
    (void)state;
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    tu_ok(npu_request_set_batch(r, 3), "same batch");
    assert_int_equal(npu_request_set_batch(r, 2), NPU_ERR_INVALID_ARGUMENT);
    expect_error("static batch 3");
    npu_request_destroy(r);
    npu_model_destroy(m);
}

/* ---- export / import ---- */

static unsigned char blob[1 << 20];

static void test_export_import_keeps_batch(void **state)
{
    npu_graph *g = tu_graph_affine(&tu_arena, 4);
    npu_graph *gd = tu_graph_affine(&tu_arena, NPU_DIM_DYNAMIC);
    npu_model *m = compile_ok(g, NPU_BATCH_AUTO), *m2 = NULL;
    npu_blob_info_t bi;
    npu_model_info info;
    npu_request_options ro;
    size_t size = 0;
    float x[16], y[16], ref[16];
    (void)state;
    tu_ok(npu_model_export(m, blob, sizeof blob, &size), "export");
    tu_ok(npu_blob_info(tu_ctx, blob, size, &bi), "blob info");
    assert_int_equal(bi.batch_size, 4);
    assert_int_equal(bi.n_input_layouts, 1);
    assert_int_equal(bi.n_output_layouts, 1);
    assert_string_equal(bi.layouts[0], "NC");
    assert_string_equal(bi.layouts[1], "NC");
    /* The OpenVINO version the device options chose (default 2025.4.0), no
     * longer npu's own (issue 11: OpenVINO 2025 refuses another version). */
    assert_int_equal(bi.openvino_version[0], NPU_EXPORT_OPENVINO_MAJOR);
    assert_int_equal(bi.openvino_version[1], NPU_EXPORT_OPENVINO_MINOR);
    tu_ok(npu_model_import(dev, &tu_arena, blob, size, NULL, &m2), "import");
    assert_int_equal(npu_model_batch(m2), 4);
    tu_ok(npu_model_get_info(m2, &info), "info");
    assert_int_equal(info.batch_mode, NPU_BATCH_PLUGIN);
    assert_int_equal(info.original_batch, 4);
    assert_int_equal(info.compile_ns, 0);
    assert_true(info.import_ns > 0);
    assert_string_equal(npu_model_input(m2, 0)->layout, "NC");
    fill(x, 16, 9);
    tu_affine_ref(x, ref, 4);
    run_rows(m2, NULL, 0, x, y, 4, NULL, NULL, NULL);
    assert_memory_equal(y, ref, sizeof y);
    npu_model_destroy(m2);
    npu_model_destroy(m);

    /* COMPILER: no batch recorded (the blob itself is batched). */
    m = compile_ok(g, NPU_BATCH_COMPILER);
    tu_ok(npu_model_export(m, blob, sizeof blob, &size), "export");
    tu_ok(npu_blob_info(tu_ctx, blob, size, &bi), "blob info");
    assert_int_equal(bi.batch_size, 0);
    npu_model_destroy(m);

    /* Dynamic: -1, and the import is dynamic again. */
    m = compile_ok(gd, NPU_BATCH_AUTO);
    tu_ok(npu_model_export(m, blob, sizeof blob, &size), "export");
    tu_ok(npu_blob_info(tu_ctx, blob, size, &bi), "blob info");
    assert_int_equal(bi.batch_size, -1);
    tu_ok(npu_model_import(dev, &tu_arena, blob, size, NULL, &m2), "import dynamic");
    tu_ok(npu_model_get_info(m2, &info), "info");
    assert_int_equal(info.original_batch, NPU_DIM_DYNAMIC);
    assert_int_equal(npu_model_input(m2, 0)->shape.dims[0], NPU_DIM_DYNAMIC);
    memset(&ro, 0, sizeof ro);
    ro.max_batch = 3;
    run_rows(m2, &ro, 3, x, y, 3, NULL, NULL, NULL);
    assert_memory_equal(y, ref, 12 * sizeof(float));
    npu_model_destroy(m2);
    npu_model_destroy(m);
}

static size_t put_le(unsigned char *p, uint64_t v, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
    return n;
}

/* A batch-1 blob with a tail as OpenVINO 2025 writes it (2.3: batchSize 4,
 * layouts "[N,C]") debatches on import. */
static void test_openvino_tail_debatches(void **state)
{
    npu_graph *g1 = tu_graph_affine(&tu_arena, 1);
    npu_model *m = compile_ok(g1, NPU_BATCH_AUTO), *m2 = NULL;
    npu_blob_info_t bi;
    size_t size = 0, p, i;
    float x[16], y[16], ref[16];
    (void)state;
    tu_ok(npu_model_export(m, blob, sizeof blob, &size), "export");
    tu_ok(npu_blob_info(tu_ctx, blob, size, &bi), "info");
    npu_model_destroy(m);
    p = (size_t)bi.blob_size;
    put_le(blob + p, 0x00020003u, 4);
    p += 4;
    p += put_le(blob + p, 2025, 2);
    p += put_le(blob + p, 0, 2);
    p += put_le(blob + p, 0, 2);
    p += put_le(blob + p, 0, 8);  /* numberOfInits */
    p += put_le(blob + p, 4, 8);  /* batchSize */
    p += put_le(blob + p, 1, 8);
    p += put_le(blob + p, 1, 8);
    for (i = 0; i < 2; i++) {
        p += put_le(blob + p, 5, 2);
        memcpy(blob + p, "[N,C]", 5);
        p += 5;
    }
    p += put_le(blob + p, bi.blob_size, 8);
    memcpy(blob + p, "OVNPU", 5);
    p += 5;
    tu_ok(npu_model_import(dev, &tu_arena, blob, p, NULL, &m2), "import OpenVINO-style blob");
    assert_int_equal(npu_model_batch(m2), 4);
    assert_string_equal(npu_model_input(m2, 0)->layout, "NC");
    fill(x, 16, 5);
    tu_affine_ref(x, ref, 4);
    run_rows(m2, NULL, 0, x, y, 4, NULL, NULL, NULL);
    assert_memory_equal(y, ref, sizeof y);
    npu_model_destroy(m2);
}

static void test_bad_batch_mode_is_invalid(void **state)
{
    npu_graph *g = tu_graph_affine(&tu_arena, 2);
    npu_compile_options o = mode_opts((npu_batch_mode)7);
    npu_model *m = NULL;
    (void)state;
    assert_int_equal(npu_model_compile_graph(dev, &tu_arena, g, &o, &m), NPU_ERR_INVALID_ARGUMENT);
    expect_error("compile options: batch_mode is 7 (0 to 2)"); /* names the field and value */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_auto_debatches_and_matches_batch1_bitwise, setup_each),
        cmocka_unit_test_setup(test_plugin_and_compiler_modes, setup_each),
        cmocka_unit_test_setup(test_mismatched_batches_fall_back, setup_each),
        cmocka_unit_test_setup(test_batch_axis_not_outermost_falls_back, setup_each),
        cmocka_unit_test_setup(test_states_with_batch_fall_back, setup_each),
        cmocka_unit_test_setup(test_states_with_batch1_work_in_every_mode, setup_each),
        cmocka_unit_test_setup(test_graph_that_cannot_take_batch1_falls_back, setup_each),
        cmocka_unit_test_setup(test_ir_compiler_rejecting_batch1_falls_back, setup_each),
        cmocka_unit_test_setup(test_ir_plugin_and_user_batch, setup_each),
        cmocka_unit_test_setup(test_size_query_exact_for_plugin, setup_each),
        cmocka_unit_test_setup(test_dynamic_batch, setup_each),
        cmocka_unit_test_setup(test_static_request_set_batch, setup_each),
        cmocka_unit_test_setup(test_export_import_keeps_batch, setup_each),
        cmocka_unit_test_setup(test_openvino_tail_debatches, setup_each),
        cmocka_unit_test_setup(test_bad_batch_mode_is_invalid, setup_each),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
