/* test_batch_layout.c - batching never changes a model's numbers (issue 12):
 * the batch axis comes only from a layout naming N. A model without one is
 * compiled as it is in AUTO (softmax / normalisation / attention over axis 0
 * give the numbers of a plain compile), explicit PLUGIN without a layout is an
 * error that names the fix, a layout the caller did not give is reported as "",
 * and the batch decision (and why) is in npu_model_get_info and in the cache key. */
#include "l0_test_util.h"

#include <dirent.h>
#include <math.h>

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

enum { ROWS = 4, COLS = 3 };

static void fill(float *x, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++) x[i] = (float)((int)((i * 37u + seed * 11u) % 23u) - 11) * 0.25f;
}

static void expect_error(const char *what)
{
    if (strstr(npu_context_last_error(tu_ctx), what) == NULL)
        fail_msg("error lacks \"%s\": %s", what, npu_context_last_error(tu_ctx));
}

static void expect_reason(const npu_model_info *info, const char *what)
{
    if (strstr(info->batch_reason, what) == NULL) fail_msg("batch_reason lacks \"%s\": %s", what, info->batch_reason);
}

/* The three models that work across axis 0 of x [4,3] (no layout unless
 * given): softmax over axis 0; x - mean(x, axis 0); attention over the rows
 * softmax(x x^T, axis 1) x. Every output is [4,3], like the input. */
enum { M_SOFTMAX, M_NORM, M_ATTENTION, M_COUNT };
static const char *const model_names[M_COUNT] = {"softmax axis 0", "x - reduce_mean axis 0", "matmul attention"};

static npu_graph *graph_axis0(int which, int64_t rows, const char *in_layout, const char *out_layout)
{
    static const int64_t axis0[1] = {0};
    npu_graph *g = NULL;
    npu_shape s = {2, {rows, COLS}};
    npu_node *x, *y = NULL;
    assert_int_equal(npu_graph_create(&tu_arena, tu_ctx, NULL, &g), NPU_OK);
    x = npu_graph_parameter(g, "x", NPU_F32, &s, in_layout);
    if (which == M_SOFTMAX) {
        y = npu_graph_softmax(g, x, 0, "sm");
    } else if (which == M_NORM) {
        y = npu_graph_subtract(g, x, npu_graph_reduce_mean(g, x, axis0, 1, 1, "mean"), "centre");
    } else {
        npu_node *scores = npu_graph_matmul(g, x, x, 0, 1, "scores");
        y = npu_graph_matmul(g, npu_graph_softmax(g, scores, 1, "attn"), x, 0, 0, "ctx");
    }
    y = npu_graph_result(g, y, "y");
    if (out_layout != NULL) tu_ok(npu_graph_set_layout(y, out_layout), "result layout");
    if (npu_graph_status(g) != NPU_OK) fail_msg("graph: %s", npu_graph_first_error(g));
    return g;
}

/* The model's numbers on the CPU (double accumulation, then f32). */
static void reference(int which, const float *x, float *y)
{
    int r, c, k;
    if (which == M_SOFTMAX) {
        for (c = 0; c < COLS; c++) {
            double mx = x[c], sum = 0;
            for (r = 1; r < ROWS; r++) mx = x[r * COLS + c] > mx ? x[r * COLS + c] : mx;
            for (r = 0; r < ROWS; r++) sum += exp(x[r * COLS + c] - mx);
            for (r = 0; r < ROWS; r++) y[r * COLS + c] = (float)(exp(x[r * COLS + c] - mx) / sum);
        }
    } else if (which == M_NORM) {
        for (c = 0; c < COLS; c++) {
            double mean = 0;
            for (r = 0; r < ROWS; r++) mean += x[r * COLS + c];
            mean /= ROWS;
            for (r = 0; r < ROWS; r++) y[r * COLS + c] = (float)(x[r * COLS + c] - mean);
        }
    } else {
        double s[ROWS][ROWS];
        for (r = 0; r < ROWS; r++) {
            double mx = -1e300, sum = 0;
            for (k = 0; k < ROWS; k++) {
                s[r][k] = 0;
                for (c = 0; c < COLS; c++) s[r][k] += (double)x[r * COLS + c] * x[k * COLS + c];
                mx = s[r][k] > mx ? s[r][k] : mx;
            }
            for (k = 0; k < ROWS; k++) sum += (s[r][k] = exp(s[r][k] - mx));
            for (c = 0; c < COLS; c++) {
                double v = 0;
                for (k = 0; k < ROWS; k++) v += s[r][k] / sum * x[k * COLS + c];
                y[r * COLS + c] = (float)v;
            }
        }
    }
}

/* One inference of a one-input, one-output model; returns the submitted lists. */
static uint64_t run(npu_model *m, const float *x, float *y, size_t n)
{
    npu_request *r = NULL;
    uint64_t lists;
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    memcpy(npu_request_input(r, 0), x, n * sizeof(float));
    tu_sim()->pfnResetCounters();
    tu_ok(npu_request_infer(r), "infer");
    lists = tu_sim()->pfnGetSubmittedListCount();
    memcpy(y, npu_request_output(r, 0), n * sizeof(float));
    npu_request_destroy(r);
    return lists;
}

static npu_compile_options mode_opts(npu_batch_mode m)
{
    npu_compile_options o;
    memset(&o, 0, sizeof o);
    o.batch_mode = m;
    return o;
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

static npu_model *compile_src(const npu_graph *g, const npu_ir *ir, npu_batch_mode mode)
{
    npu_compile_options o = mode_opts(mode);
    npu_model *m = NULL;
    if (ir != NULL)
        tu_ok(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), "compile IR");
    else
        tu_ok(npu_model_compile_graph(dev, &tu_arena, g, &o, &m), "compile graph");
    return m;
}

/* ---- no layout: AUTO compiles the model as it is ---- */

static void test_axis0_models_without_layout_match_plain_compile(void **state)
{
    float x[ROWS * COLS], ref[ROWS * COLS], plain[ROWS * COLS], y[ROWS * COLS];
    int which, src, i;
    (void)state;
    fill(x, ROWS * COLS, 1);
    for (which = 0; which < M_COUNT; which++) {
        npu_graph *g = graph_axis0(which, ROWS, NULL, NULL);
        npu_ir *ir = ir_from_graph(g);
        reference(which, x, ref);
        for (src = 0; src < 2; src++) {
            npu_model *m;
            npu_model_info info;
            size_t used = npu_arena_used(&tu_arena);
            m = compile_src(g, src ? ir : NULL, NPU_BATCH_COMPILER);
            assert_int_equal(run(m, x, plain, ROWS * COLS), 1);
            npu_model_destroy(m);
            npu_arena_rewind(&tu_arena, used);
            for (i = 0; i < ROWS * COLS; i++)
                if (fabsf(plain[i] - ref[i]) > 1e-5f)
                    fail_msg("%s (%s), plain compile: y[%d] = %g, expected %g", model_names[which],
                             src ? "IR" : "graph", i, (double)plain[i], (double)ref[i]);

            tu_log_clear();
            m = compile_src(g, src ? ir : NULL, NPU_BATCH_AUTO);
            assert_int_equal(npu_model_batch(m), 1);
            tu_ok(npu_model_get_info(m, &info), "info");
            assert_int_equal(info.batch_mode, NPU_BATCH_AUTO);
            assert_int_equal(info.requested_mode, NPU_BATCH_AUTO);
            assert_int_equal(info.original_batch, 1);
            expect_reason(&info, "no input has a layout naming N");
            tu_expect_log("[2] batch mode AUTO: no input has a layout naming N");
            assert_string_equal(npu_model_input(m, 0)->layout, "");
            assert_string_equal(npu_model_output(m, 0)->layout, "");
            assert_int_equal(npu_model_input(m, 0)->shape.dims[0], ROWS);
            /* One command list over the whole [4,3] tensor, the same bits. */
            assert_int_equal(run(m, x, y, ROWS * COLS), 1);
            if (memcmp(y, plain, sizeof y) != 0)
                fail_msg("%s (%s): AUTO y[0] = %g, plain %g", model_names[which], src ? "IR" : "graph", (double)y[0],
                         (double)plain[0]);
            npu_model_destroy(m);
            npu_arena_rewind(&tu_arena, used);
        }
    }
}

/* A batch set on a layout-less IR (npu_ir_set_batch rewrites axis 0) is the
 * caller's reshape: the model is compiled at that shape, not debatched. */
static void test_ir_set_batch_without_layout_is_a_reshape(void **state)
{
    npu_graph *g = graph_axis0(M_SOFTMAX, 2, NULL, NULL);
    npu_ir *ir = ir_from_graph(g);
    npu_model *m;
    npu_model_info info;
    float x[ROWS * COLS], ref[ROWS * COLS], y[ROWS * COLS];
    int64_t orig = 0;
    int i;
    (void)state;
    tu_ok(npu_ir_set_batch(ir, ROWS, &orig), "set batch");
    assert_int_equal(orig, 2);
    m = compile_src(NULL, ir, NPU_BATCH_AUTO);
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.batch_mode, NPU_BATCH_AUTO);
    assert_int_equal(npu_model_batch(m), 1);
    assert_int_equal(npu_model_input(m, 0)->shape.dims[0], ROWS);
    fill(x, ROWS * COLS, 2);
    reference(M_SOFTMAX, x, ref);
    assert_int_equal(run(m, x, y, ROWS * COLS), 1);
    for (i = 0; i < ROWS * COLS; i++) assert_true(fabsf(y[i] - ref[i]) <= 1e-5f);
    npu_model_destroy(m);
}

/* ---- with a layout: PLUGIN equals N batch-1 runs, bit for bit ---- */

static void test_layout_plugin_equals_batch1_runs(void **state)
{
    float x[ROWS * COLS], y[ROWS * COLS], y1[ROWS * COLS];
    npu_graph *g, *g1;
    npu_model *m, *m1;
    npu_model_info info;
    npu_ir *ir;
    int i, src;
    (void)state;
    fill(x, ROWS * COLS, 3);
    /* Softmax over axis 1 (within a batch element): N and C named. */
    g = npu_graph_create(&tu_arena, tu_ctx, NULL, &g) == NPU_OK ? g : NULL;
    assert_non_null(g);
    {
        npu_shape s = {2, {ROWS, COLS}};
        npu_node *xn = npu_graph_parameter(g, "x", NPU_F32, &s, "NC");
        tu_ok(npu_graph_set_layout(npu_graph_result(g, npu_graph_softmax(g, xn, 1, "sm"), "y"), "NC"), "layout");
    }
    g1 = npu_graph_create(&tu_arena, tu_ctx, NULL, &g1) == NPU_OK ? g1 : NULL;
    assert_non_null(g1);
    {
        npu_shape s = {2, {1, COLS}};
        npu_node *xn = npu_graph_parameter(g1, "x", NPU_F32, &s, "NC");
        npu_graph_result(g1, npu_graph_softmax(g1, xn, 1, "sm"), "y");
    }
    m1 = compile_src(g1, NULL, NPU_BATCH_AUTO);
    for (i = 0; i < ROWS; i++) run(m1, x + i * COLS, y1 + i * COLS, COLS);
    ir = ir_from_graph(g);
    for (src = 0; src < 2; src++) {
        size_t used = npu_arena_used(&tu_arena);
        m = compile_src(g, src ? ir : NULL, NPU_BATCH_AUTO);
        tu_ok(npu_model_get_info(m, &info), "info");
        assert_int_equal(info.batch_mode, NPU_BATCH_PLUGIN);
        assert_int_equal(info.original_batch, ROWS);
        assert_int_equal(npu_model_batch(m), ROWS);
        expect_reason(&info, "debatched");
        assert_string_equal(npu_model_input(m, 0)->layout, "NC");
        assert_string_equal(npu_model_output(m, 0)->layout, "NC");
        assert_int_equal(run(m, x, y, ROWS * COLS), ROWS);
        assert_memory_equal(y, y1, sizeof y);
        npu_model_destroy(m);
        npu_arena_rewind(&tu_arena, used);
    }
    npu_model_destroy(m1);
}

/* npu_ir_set_layout on a layout-less IR enables debatching. */
static void test_ir_set_layout_enables_plugin(void **state)
{
    npu_graph *g = graph_axis0(M_SOFTMAX, ROWS, NULL, NULL);
    npu_ir *ir = ir_from_graph(g);
    npu_model *m;
    npu_model_info info;
    (void)state;
    tu_ok(npu_ir_set_layout(ir, 0, 0, "NC"), "input layout");
    /* Only the input: the output has none, so AUTO still compiles it as it is. */
    m = compile_src(NULL, ir, NPU_BATCH_AUTO);
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.batch_mode, NPU_BATCH_COMPILER);
    expect_reason(&info, "output 'y' has no layout naming N");
    assert_string_equal(npu_model_input(m, 0)->layout, "NC");
    assert_string_equal(npu_model_output(m, 0)->layout, "");
    npu_model_destroy(m);
    tu_ok(npu_ir_set_layout(ir, 1, 0, "NC"), "output layout");
    m = compile_src(NULL, ir, NPU_BATCH_AUTO);
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.batch_mode, NPU_BATCH_PLUGIN);
    assert_int_equal(npu_model_batch(m), ROWS);
    npu_model_destroy(m);
}

/* ---- explicit PLUGIN without a layout: an error naming the fix ---- */

static void test_plugin_without_layout_fails(void **state)
{
    npu_graph *g = graph_axis0(M_SOFTMAX, ROWS, NULL, NULL);
    npu_graph *gi = graph_axis0(M_SOFTMAX, ROWS, "NC", NULL);
    npu_ir *ir = ir_from_graph(g);
    npu_compile_options o = mode_opts(NPU_BATCH_PLUGIN);
    npu_model *m = NULL;
    size_t used = npu_arena_used(&tu_arena), need = 0;
    (void)state;
    assert_int_equal(npu_model_compile_graph(dev, &tu_arena, g, &o, &m), NPU_ERR_UNSUPPORTED);
    assert_null(m);
    assert_int_equal(npu_arena_used(&tu_arena), used);
    expect_error("batch mode PLUGIN");
    expect_error("no input has a layout naming N");
    expect_error("npu_graph_set_layout");
    assert_int_equal(npu_model_compile_graph_size(dev, g, &o, &need), NPU_ERR_UNSUPPORTED);
    expect_error("no input has a layout naming N");
    assert_int_equal(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), NPU_ERR_UNSUPPORTED);
    expect_error("npu_ir_set_layout");
    /* A layout on the input only: the message names the output. */
    assert_int_equal(npu_model_compile_graph(dev, &tu_arena, gi, &o, &m), NPU_ERR_UNSUPPORTED);
    expect_error("output 'y' has no layout naming N");
}

/* ---- the weight-as-input IR of the shared corpus is not debatched ---- */

static void test_weight_input_ir_not_debatched(void **state)
{
    const char *root = getenv("NPU_SHARED_DATA");
    char path[4096];
    npu_ir *ir = NULL;
    npu_model *m = NULL;
    npu_model_info info;
    npu_compile_options o = mode_opts(NPU_BATCH_AUTO);
    npu_status st;
    uint32_t i;
    (void)state;
    if (root == NULL) {
        print_message("skipped: NPU_SHARED_DATA is not set: it names the shared IR corpus (../shared/data in CI)\n");
        skip();
    }
    snprintf(path, sizeof path, "%s/ovir/conv_with_rt_info.xml", root);
    if (access(path, R_OK) != 0) {
        print_message("skipped: %s not found: the shared IR corpus (../shared/data in CI, or NPU_SHARED_DATA)\n", path);
        skip();
    }
    tu_ok(npu_ir_open(&tu_arena, tu_ctx, path, NULL, &ir), "open conv_with_rt_info.xml");
    assert_int_equal(npu_ir_input(ir, 0)->desc.shape.dims[0], 490);
    st = npu_model_compile_ir(dev, &tu_arena, ir, &o, &m);
    if (st != NPU_OK) fail_msg("compile: %s", npu_context_last_error(tu_ctx));
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.batch_mode, NPU_BATCH_AUTO);
    assert_int_equal(info.original_batch, 1);
    assert_int_equal(npu_model_batch(m), 1);
    expect_reason(&info, "no input has a layout naming N");
    /* The weights input keeps its 490 and nobody claims NCHW for it. */
    for (i = 0; i < npu_model_input_count(m); i++) assert_string_equal(npu_model_input(m, i)->layout, "");
    assert_string_equal(npu_model_output(m, 0)->layout, "");
    assert_int_equal(npu_model_input(m, 0)->shape.dims[0], 490);
    npu_model_destroy(m);
    /* PLUGIN refuses it with the fix. */
    o.batch_mode = NPU_BATCH_PLUGIN;
    assert_int_equal(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), NPU_ERR_UNSUPPORTED);
    expect_error("layout naming N");
    npu_ir_close(ir);
}

/* ---- layouts nobody gave are "" (compiled, exported, imported) ---- */

static unsigned char blob[1 << 20];

static void test_unknown_layouts_are_empty(void **state)
{
    npu_graph *g = graph_axis0(M_NORM, ROWS, NULL, NULL);
    npu_model *m = compile_src(g, NULL, NPU_BATCH_AUTO), *m2 = NULL;
    npu_blob_info_t bi;
    npu_model_info info;
    size_t size = 0;
    (void)state;
    assert_string_equal(npu_model_input(m, 0)->layout, "");
    assert_string_equal(npu_model_output(m, 0)->layout, "");
    tu_ok(npu_model_export(m, blob, sizeof blob, &size), "export");
    tu_ok(npu_blob_info(tu_ctx, blob, size, &bi), "blob info");
    assert_int_equal(bi.batch_size, 0);
    assert_string_equal(bi.layouts[0], "");
    assert_string_equal(bi.layouts[1], "");
    tu_ok(npu_model_import(dev, &tu_arena, blob, size, NULL, &m2), "import");
    assert_string_equal(npu_model_input(m2, 0)->layout, "");
    assert_string_equal(npu_model_output(m2, 0)->layout, "");
    tu_ok(npu_model_get_info(m2, &info), "info");
    assert_int_equal(info.batch_mode, NPU_BATCH_AUTO);
    expect_reason(&info, "imported");
    npu_model_destroy(m2);
    npu_model_destroy(m);
    /* A raw blob (no metadata) knows no layouts either. */
    m = compile_src(graph_axis0(M_NORM, ROWS, "NC", NULL), NULL, NPU_BATCH_AUTO);
    assert_string_equal(npu_model_input(m, 0)->layout, "NC");
    assert_string_equal(npu_model_output(m, 0)->layout, "");
    tu_ok(npu_blob_info(tu_ctx, blob, size, &bi), "blob info");
    tu_ok(npu_model_import(dev, &tu_arena, blob, (size_t)bi.blob_size, NULL, &m2), "import raw");
    assert_string_equal(npu_model_input(m2, 0)->layout, "");
    assert_string_equal(npu_model_output(m2, 0)->layout, "");
    npu_model_destroy(m2);
    npu_model_destroy(m);
}

/* ---- dynamic batch without a layout: not debatched ---- */

static void test_dynamic_without_layout_not_debatched(void **state)
{
    npu_graph *g = graph_axis0(M_SOFTMAX, NPU_DIM_DYNAMIC, NULL, NULL);
    npu_compile_options o = mode_opts(NPU_BATCH_AUTO);
    npu_model *m = NULL;
    npu_status st;
    (void)state;
    /* The compiler gets the dynamic model as it is (the sim refuses dynamic
     * shapes); the log says why npu did not debatch it. */
    st = npu_model_compile_graph(dev, &tu_arena, g, &o, &m);
    assert_int_equal(st, NPU_ERR_COMPILE);
    assert_null(m);
    tu_expect_log("no input has a layout naming N");
    tu_expect_log("input 'x' has a dynamic dim");
    /* With layouts it debatches (dynamic: 1..max_batch lists). */
    g = graph_axis0(M_SOFTMAX, NPU_DIM_DYNAMIC, "NC", "NC");
    o.batch_mode = NPU_BATCH_AUTO;
    /* softmax over axis 0 with N on axis 0 is the caller's statement that rows
     * are independent; here it only checks the decision. */
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, &o, &m), "compile dynamic with layout");
    {
        npu_model_info info;
        tu_ok(npu_model_get_info(m, &info), "info");
        assert_int_equal(info.batch_mode, NPU_BATCH_PLUGIN);
        assert_int_equal(info.original_batch, NPU_DIM_DYNAMIC);
    }
    npu_model_destroy(m);
}

/* ---- the cache key holds the batch decision ---- */

static void rm_flat_dir(const char *dir)
{
    char path[4096];
    DIR *d = opendir(dir);
    struct dirent *e;
    if (d == NULL) return;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        (void)unlink(path);
    }
    closedir(d);
    (void)rmdir(dir);
}

static void test_cache_entry_not_reused_across_decisions(void **state)
{
    char dir[] = "/tmp/npu_batch_layout_XXXXXX";
    npu_graph *g = graph_axis0(M_NORM, ROWS, NULL, NULL);
    npu_ir *ir = ir_from_graph(g);
    npu_compile_options o = mode_opts(NPU_BATCH_AUTO);
    npu_model *m = NULL;
    npu_model_info info;
    float x[ROWS * COLS], a[ROWS * COLS], b[ROWS * COLS];
    (void)state;
    assert_non_null(mkdtemp(dir));
    o.cache_dir = dir;
    fill(x, ROWS * COLS, 4);
    /* No layout: stored as it is. */
    tu_ok(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), "compile 1");
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.from_cache, 0);
    run(m, x, a, ROWS * COLS);
    npu_model_destroy(m);
    tu_ok(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), "compile 2");
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.from_cache, 1);
    assert_int_equal(info.batch_mode, NPU_BATCH_AUTO);
    expect_reason(&info, "no input has a layout naming N");
    assert_string_equal(npu_model_input(m, 0)->layout, "");
    assert_int_equal(run(m, x, b, ROWS * COLS), 1);
    assert_memory_equal(a, b, sizeof a);
    npu_model_destroy(m);
    /* The same IR with layouts naming N: another decision, another entry. */
    tu_ok(npu_ir_set_layout(ir, 0, 0, "NC"), "layout in");
    tu_ok(npu_ir_set_layout(ir, 1, 0, "NC"), "layout out");
    tu_ok(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), "compile 3");
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.from_cache, 0);
    assert_int_equal(info.batch_mode, NPU_BATCH_PLUGIN);
    npu_model_destroy(m);
    tu_ok(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), "compile 4");
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.from_cache, 1);
    assert_int_equal(info.batch_mode, NPU_BATCH_PLUGIN);
    assert_int_equal(npu_model_batch(m), ROWS);
    npu_model_destroy(m);
    /* COMPILER on the layout IR: yet another entry (not the PLUGIN one). */
    o.batch_mode = NPU_BATCH_COMPILER;
    tu_ok(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), "compile 5");
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.from_cache, 0);
    assert_int_equal(info.batch_mode, NPU_BATCH_COMPILER);
    assert_int_equal(info.requested_mode, NPU_BATCH_COMPILER);
    assert_int_equal(npu_model_batch(m), 1);
    npu_model_destroy(m);
    rm_flat_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_axis0_models_without_layout_match_plain_compile, setup_each),
        cmocka_unit_test_setup(test_ir_set_batch_without_layout_is_a_reshape, setup_each),
        cmocka_unit_test_setup(test_layout_plugin_equals_batch1_runs, setup_each),
        cmocka_unit_test_setup(test_ir_set_layout_enables_plugin, setup_each),
        cmocka_unit_test_setup(test_plugin_without_layout_fails, setup_each),
        cmocka_unit_test_setup(test_weight_input_ir_not_debatched, setup_each),
        cmocka_unit_test_setup(test_unknown_layouts_are_empty, setup_each),
        cmocka_unit_test_setup(test_dynamic_without_layout_not_debatched, setup_each),
        cmocka_unit_test_setup(test_cache_entry_not_reused_across_decisions, setup_each),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
