/* test_preprocess.c - preprocessing in the model (npu_ir_set_preprocess,
 * npu_ir_set_postprocess): the caller's u8 interleaved frame goes in as it is
 * and the inserted operations (Convert, Gather, Convolution, Interpolate,
 * Subtract, Divide, Transpose: OpenVINO's PrePostProcessor) turn it into what
 * the model wants, on the (software) NPU.
 *
 * The model under test passes its input through (y = x * 1), so the output is
 * the preprocessed tensor. Every step is checked against a host loop written
 * from the op specification: bit-exact where the arithmetic is exact or a
 * single rounding in the same order (Convert u8 -> f32, Transpose, Gather,
 * Subtract then Divide in f32, nearest Interpolate); Interpolate linear and
 * the gray convolution within 1e-5 relative (the order of the sums is the
 * kernel's). */
#include "l0_test_util.h"

#include <math.h>

static npu_device *dev;
static size_t base_mark;

static int setup_all(void **state)
{
    (void)state;
    tu_init_context();
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
    npu_context_clear_error(tu_ctx);
    return 0;
}

static void expect_error(const char *what)
{
    if (strstr(npu_context_last_error(tu_ctx), what) == NULL)
        fail_msg("error lacks \"%s\": %s", what, npu_context_last_error(tu_ctx));
}

/* ---- the pass-through model as an IR (written by the graph writer, layout A) ---- */

static char ir_xml[1 << 15];
static unsigned char ir_bin[64];
static const float one = 1.0f;

static npu_ir *pass_ir(int64_t n, int64_t c, int64_t h, int64_t w)
{
    static _Alignas(16) unsigned char gmem[1 << 15];
    npu_arena ga;
    npu_graph *g = NULL;
    npu_shape xs = {4, {n, c, h, w}}, ks = {1, {1}};
    npu_payload_options a;
    size_t xml_size = 0, bin_size = 0;
    npu_ir *ir = NULL;
    memset(&a, 0, sizeof a);
    a.layout = NPU_PAYLOAD_WEIGHTS_COPY;
    assert_int_equal(npu_arena_init(&ga, gmem, sizeof gmem), NPU_OK);
    assert_int_equal(npu_graph_create(&ga, NULL, NULL, &g), NPU_OK);
    npu_node *x = npu_graph_parameter(g, "x", NPU_F32, &xs, "NCHW");
    npu_node *k = npu_graph_constant(g, "one", NPU_F32, &ks, &one, sizeof one);
    npu_node *r = npu_graph_result(g, npu_graph_multiply(g, x, k, "mul"), "y");
    assert_non_null(r);
    assert_int_equal(npu_graph_set_layout(r, "NCHW"), NPU_OK);
    assert_int_equal(npu_graph_write_xml(g, &a, ir_xml, sizeof ir_xml, &xml_size), NPU_OK);
    assert_int_equal(npu_graph_write_bin(g, ir_bin, sizeof ir_bin, &bin_size), NPU_OK);
    tu_ok(npu_ir_load_memory(&tu_arena, tu_ctx, ir_xml, xml_size, ir_bin, bin_size, &ir), "npu_ir_load_memory");
    return ir;
}

static npu_model *compile(npu_ir *ir, npu_payload_layout layout, npu_batch_mode mode)
{
    npu_compile_options o;
    npu_model *m = NULL;
    memset(&o, 0, sizeof o);
    o.payload_layout = layout;
    o.batch_mode = mode;
    tu_ok(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), "npu_model_compile_ir");
    return m;
}

/* Runs the model on `in` (bytes of the caller's tensor); returns the output. */
static const void *run(npu_model *m, const void *in, size_t bytes, npu_request **rq)
{
    npu_request *req = NULL;
    tu_ok(npu_request_create(m, &tu_arena, NULL, &req), "npu_request_create");
    assert_int_equal(npu_model_input(m, 0)->bytes, bytes);
    memcpy(npu_request_input(req, 0), in, bytes);
    tu_ok(npu_request_infer(req), "npu_request_infer");
    *rq = req;
    return npu_request_output(req, 0);
}

static void frame_fill(unsigned char *f, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++) f[i] = (unsigned char)((i * 97u + seed * 31u + (i >> 3) * 13u) & 0xffu);
}

static npu_preprocess pre_u8(const char *layout)
{
    npu_preprocess p;
    memset(&p, 0, sizeof p);
    p.type = NPU_U8;
    p.layout = layout;
    return p;
}

/* ---- host references, from the specifications ---- */

/* Interpolate-11, one axis, half_pixel: the source coordinate of output i. */
static double src_coord(int64_t i, int64_t in, int64_t out)
{
    double scale = (double)out / (double)in;
    return ((double)i + 0.5) / scale - 0.5;
}

/* nearest_mode round_prefer_floor: the nearest index, a tie goes down; clamped. */
static int64_t nearest_index(double x, int64_t in)
{
    double f = floor(x);
    int64_t k = (int64_t)(x - f == 0.5 ? f : floor(x + 0.5));
    return k < 0 ? 0 : k >= in ? in - 1 : k;
}

/* mode linear without antialias: triangle weights max(0, 1 - |x - k|) over the
 * indices in range, normalised by their sum. */
static void linear_weights(double x, int64_t in, int64_t *k0, double *w)
{
    int64_t base = (int64_t)floor(x);
    double sum = 0;
    int j;
    for (j = 0; j < 2; j++) {
        int64_t k = base + j;
        w[j] = (k < 0 || k >= in) ? 0.0 : fmax(0.0, 1.0 - fabs(x - (double)k));
        sum += w[j];
    }
    for (j = 0; j < 2; j++) w[j] /= sum;
    *k0 = base;
}

/* Resizes plane in[H0][W0] to out[H][W] (double, the reference). */
static void resize_ref(const double *in, int64_t h0, int64_t w0, double *out, int64_t h, int64_t w, int nearest)
{
    int64_t y, x;
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) {
            double sy = src_coord(y, h0, h), sx = src_coord(x, w0, w);
            if (nearest) {
                out[y * w + x] = in[nearest_index(sy, h0) * w0 + nearest_index(sx, w0)];
            } else {
                int64_t ky, kx;
                double wy[2], wx[2], v = 0;
                int a, b;
                linear_weights(sy, h0, &ky, wy);
                linear_weights(sx, w0, &kx, wx);
                for (a = 0; a < 2; a++)
                    for (b = 0; b < 2; b++)
                        if (wy[a] > 0 && wx[b] > 0) v += wy[a] * wx[b] * in[(ky + a) * w0 + kx + b];
                out[y * w + x] = v;
            }
        }
}

static void expect_close(const float *got, const double *want, size_t n, double rel)
{
    size_t i;
    for (i = 0; i < n; i++) {
        double tol = rel * fmax(1.0, fabs(want[i]));
        if (fabs((double)got[i] - want[i]) > tol) fail_msg("element %zu: %.9g, expected %.9g", i, (double)got[i], want[i]);
    }
}

/* ---- each step ---- */

static void test_convert_u8_to_f32_is_exact_and_the_input_reports_the_frame(void **state)
{
    static unsigned char f[3 * 4 * 5];
    npu_ir *ir = pass_ir(1, 3, 4, 5);
    npu_preprocess p = pre_u8(NULL);
    npu_request *rq;
    size_t i, before = npu_arena_used(&tu_arena);
    (void)state;
    tu_ok(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), "npu_ir_set_preprocess");
    assert_int_equal(npu_arena_used(&tu_arena) - before, NPU_PREPROCESS_BYTES);
    assert_int_equal(npu_ir_input(ir, 0)->desc.type, NPU_U8);
    assert_string_equal(npu_ir_input(ir, 0)->element_type, "u8");
    npu_model *m = compile(ir, NPU_PAYLOAD_DEFAULT, NPU_BATCH_AUTO);
    const npu_tensor_desc *d = npu_model_input(m, 0);
    assert_int_equal(d->type, NPU_U8);
    assert_int_equal(d->shape.rank, 4);
    assert_int_equal(d->shape.dims[1], 3);
    assert_int_equal(d->bytes, sizeof f);
    assert_int_equal(npu_model_output(m, 0)->type, NPU_F32);
    for (i = 0; i < sizeof f; i++) f[i] = (unsigned char)(i * 17u % 256u);
    f[0] = 255;
    const float *y = run(m, f, sizeof f, &rq);
    for (i = 0; i < sizeof f; i++) assert_true(y[i] == (float)f[i]);
    npu_request_destroy(rq);
    npu_model_destroy(m);
}

static void test_nhwc_frame_is_transposed_to_nchw_exactly(void **state)
{
    enum { C = 3, H = 4, W = 5 };
    static unsigned char f[H * W * C];
    npu_ir *ir = pass_ir(1, C, H, W);
    npu_preprocess p = pre_u8("NHWC");
    npu_request *rq;
    int c, y, x;
    (void)state;
    tu_ok(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), "npu_ir_set_preprocess");
    assert_string_equal(npu_ir_input(ir, 0)->desc.layout, "NHWC");
    npu_model *m = compile(ir, NPU_PAYLOAD_DEFAULT, NPU_BATCH_AUTO);
    const npu_tensor_desc *d = npu_model_input(m, 0);
    assert_true(d->shape.dims[1] == H && d->shape.dims[2] == W && d->shape.dims[3] == C);
    frame_fill(f, sizeof f, 1);
    const float *out = run(m, f, sizeof f, &rq);
    for (c = 0; c < C; c++)
        for (y = 0; y < H; y++)
            for (x = 0; x < W; x++) assert_true(out[(c * H + y) * W + x] == (float)f[(y * W + x) * C + c]);
    npu_request_destroy(rq);
    npu_model_destroy(m);
}

static void test_mean_and_scale_per_channel_are_exact(void **state)
{
    enum { C = 3, H = 2, W = 3 };
    static unsigned char f[H * W * C];
    static const float mean[C] = {123.675f, 116.28f, 103.53f}, scale[C] = {58.395f, 57.12f, 57.375f};
    npu_ir *ir = pass_ir(1, C, H, W);
    npu_preprocess p = pre_u8("NHWC");
    npu_request *rq;
    int c, k;
    (void)state;
    p.n_mean = C;
    p.n_scale = C;
    memcpy(p.mean, mean, sizeof mean);
    memcpy(p.scale, scale, sizeof scale);
    tu_ok(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), "npu_ir_set_preprocess");
    npu_model *m = compile(ir, NPU_PAYLOAD_DEFAULT, NPU_BATCH_AUTO);
    frame_fill(f, sizeof f, 2);
    const float *out = run(m, f, sizeof f, &rq);
    for (c = 0; c < C; c++)
        for (k = 0; k < H * W; k++) {
            volatile float t = (float)f[k * C + c] - mean[c];   /* Subtract, then Divide: f32 each */
            float want = t / scale[c];
            if (out[c * H * W + k] != want) fail_msg("c %d k %d: %.9g, expected %.9g", c, k, (double)out[c * H * W + k], (double)want);
        }
    npu_request_destroy(rq);
    npu_model_destroy(m);
}

static void test_reversed_colour_swaps_bgr_and_rgb(void **state)
{
    enum { C = 3, H = 3, W = 2 };
    static unsigned char f[H * W * C];
    npu_ir *ir = pass_ir(1, C, H, W);
    npu_preprocess p = pre_u8("NHWC");
    npu_request *rq;
    int c, k;
    (void)state;
    p.color = NPU_COLOR_REVERSED;
    tu_ok(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), "npu_ir_set_preprocess");
    npu_model *m = compile(ir, NPU_PAYLOAD_DEFAULT, NPU_BATCH_AUTO);
    frame_fill(f, sizeof f, 3);
    const float *out = run(m, f, sizeof f, &rq);
    for (c = 0; c < C; c++)
        for (k = 0; k < H * W; k++) assert_true(out[c * H * W + k] == (float)f[k * C + (C - 1 - c)]);
    npu_request_destroy(rq);
    npu_model_destroy(m);
}

static void resize_case(int64_t h0, int64_t w0, int64_t h, int64_t w, npu_resize_algorithm alg)
{
    static unsigned char f[64 * 64];
    static double in[64 * 64], want[64 * 64];
    npu_ir *ir = pass_ir(1, 1, h, w);
    npu_preprocess p = pre_u8("NHWC");
    npu_request *rq;
    int64_t i;
    p.height = (uint32_t)h0;
    p.width = (uint32_t)w0;
    p.resize = alg;
    tu_ok(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), "npu_ir_set_preprocess");
    npu_model *m = compile(ir, NPU_PAYLOAD_DEFAULT, NPU_BATCH_AUTO);
    frame_fill(f, (size_t)(h0 * w0), (unsigned)(h0 + w0));
    for (i = 0; i < h0 * w0; i++) in[i] = f[i];
    resize_ref(in, h0, w0, want, h, w, alg == NPU_RESIZE_NEAREST);
    const float *out = run(m, f, (size_t)(h0 * w0), &rq);
    expect_close(out, want, (size_t)(h * w), alg == NPU_RESIZE_NEAREST ? 0.0 : 1e-5);
    npu_request_destroy(rq);
    npu_model_destroy(m);
    npu_arena_rewind(&tu_arena, base_mark);
}

static void test_resize_nearest_matches_the_interpolate_spec(void **state)
{
    (void)state;
    resize_case(13, 11, 8, 8, NPU_RESIZE_NEAREST);   /* down, uneven */
    resize_case(5, 6, 8, 9, NPU_RESIZE_NEAREST);     /* up */
    resize_case(16, 16, 8, 8, NPU_RESIZE_NEAREST);   /* ties: round_prefer_floor */
}

static void test_resize_linear_matches_the_interpolate_spec(void **state)
{
    (void)state;
    resize_case(13, 11, 8, 8, NPU_RESIZE_LINEAR);
    resize_case(5, 6, 8, 9, NPU_RESIZE_LINEAR);
    resize_case(32, 24, 7, 5, NPU_RESIZE_LINEAR);
}

static void test_gray_from_rgb_and_bgr_weights_the_channels(void **state)
{
    enum { H = 3, W = 4 };
    static unsigned char f[H * W * 3];
    static double want[H * W];
    int k, bgr;
    (void)state;
    for (bgr = 0; bgr < 2; bgr++) {
        npu_ir *ir = pass_ir(1, 1, H, W);
        npu_preprocess p = pre_u8("NHWC");
        npu_request *rq;
        p.color = bgr ? NPU_COLOR_BGR_TO_GRAY : NPU_COLOR_RGB_TO_GRAY;
        tu_ok(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), "npu_ir_set_preprocess");
        assert_int_equal(npu_ir_input(ir, 0)->desc.shape.dims[3], 3);
        npu_model *m = compile(ir, NPU_PAYLOAD_DEFAULT, NPU_BATCH_AUTO);
        frame_fill(f, sizeof f, 4);
        for (k = 0; k < H * W; k++) {
            const unsigned char *px = &f[k * 3];
            double r = bgr ? px[2] : px[0], g = px[1], b = bgr ? px[0] : px[2];
            want[k] = 0.299f * r + 0.587f * g + 0.114f * b;
        }
        const float *out = run(m, f, sizeof f, &rq);
        expect_close(out, want, H * W, 1e-5);
        npu_request_destroy(rq);
        npu_model_destroy(m);
        npu_arena_rewind(&tu_arena, base_mark);
    }
}

/* ---- the whole chain, both payload layouts, a batch debatched by npu ---- */

static void test_whole_chain_in_both_payload_layouts_and_plugin_batches(void **state)
{
    enum { N = 3, C = 3, H0 = 10, W0 = 7, H = 6, W = 5 };
    static unsigned char f[N * H0 * W0 * C];
    static double plane[H0 * W0], rs[H * W], want[N * C * H * W];
    static const float mean[C] = {10.5f, 20.25f, 30.0f}, scale[C] = {2.0f, 4.0f, 0.5f};
    int layout, n, c, k;
    (void)state;
    frame_fill(f, sizeof f, 5);
    for (n = 0; n < N; n++)
        for (c = 0; c < C; c++) {   /* model channel c is frame channel C-1-c (BGR -> RGB) */
            for (k = 0; k < H0 * W0; k++) plane[k] = f[(n * H0 * W0 + k) * C + (C - 1 - c)];
            resize_ref(plane, H0, W0, rs, H, W, 0);
            for (k = 0; k < H * W; k++) want[((n * C + c) * H * W) + k] = (rs[k] - mean[c]) / scale[c];
        }
    for (layout = NPU_PAYLOAD_NO_WEIGHTS_COPY; layout <= NPU_PAYLOAD_WEIGHTS_COPY; layout++) {
        npu_ir *ir = pass_ir(N, C, H, W);
        npu_preprocess p = pre_u8("NHWC");
        npu_model_info info;
        npu_request *rq;
        p.height = H0;
        p.width = W0;
        p.resize = NPU_RESIZE_LINEAR;
        p.color = NPU_COLOR_REVERSED;
        p.n_mean = p.n_scale = C;
        memcpy(p.mean, mean, sizeof mean);
        memcpy(p.scale, scale, sizeof scale);
        tu_ok(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), "npu_ir_set_preprocess");
        npu_model *m = compile(ir, (npu_payload_layout)layout, NPU_BATCH_PLUGIN);
        tu_ok(npu_model_get_info(m, &info), "npu_model_get_info");
        assert_int_equal(info.batch_mode, NPU_BATCH_PLUGIN);
        assert_int_equal(npu_model_input(m, 0)->shape.dims[0], N);
        assert_int_equal(npu_model_input(m, 0)->shape.dims[1], H0);
        const float *out = run(m, f, sizeof f, &rq);
        for (k = 0; k < N * C * H * W; k++) {   /* 1e-5 of the resized value (0..255), through the mean and scale */
            double tol = 1e-5 * 256.0 / scale[(k / (H * W)) % C];
            if (fabs((double)out[k] - want[k]) > tol) fail_msg("element %d: %.9g, expected %.9g", k, (double)out[k], want[k]);
        }
        npu_request_destroy(rq);
        npu_model_destroy(m);
        npu_arena_rewind(&tu_arena, base_mark);
    }
}

/* ---- postprocessing ---- */

static void test_postprocess_converts_and_transposes_the_output(void **state)
{
    enum { C = 2, H = 3, W = 4 };
    static unsigned char f[C * H * W];
    npu_ir *ir = pass_ir(1, C, H, W);
    npu_preprocess p = pre_u8(NULL);
    npu_postprocess q;
    npu_request *rq;
    int c, y, x;
    (void)state;
    memset(&q, 0, sizeof q);
    q.type = NPU_I32;
    q.layout = "NHWC";
    tu_ok(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), "npu_ir_set_preprocess");
    tu_ok(npu_ir_set_postprocess(ir, &tu_arena, 0, &q), "npu_ir_set_postprocess");
    assert_int_equal(npu_ir_output(ir, 0)->desc.type, NPU_I32);
    npu_model *m = compile(ir, NPU_PAYLOAD_WEIGHTS_COPY, NPU_BATCH_AUTO);
    const npu_tensor_desc *d = npu_model_output(m, 0);
    assert_int_equal(d->type, NPU_I32);
    assert_true(d->shape.dims[1] == H && d->shape.dims[2] == W && d->shape.dims[3] == C);
    frame_fill(f, sizeof f, 6);
    const int32_t *out = run(m, f, sizeof f, &rq);
    for (c = 0; c < C; c++)
        for (y = 0; y < H; y++)
            for (x = 0; x < W; x++) assert_int_equal(out[(y * W + x) * C + c], f[(c * H + y) * W + x]);
    npu_request_destroy(rq);
    npu_model_destroy(m);
}

/* ---- names: an output keeps its tensor names through postprocessing ---- */

/* OpenVINO's PrePostProcessor (preprocess_impls.cpp, OutputInfoImpl::build)
 * moves the output's tensor names to the end of the inserted chain, gives the
 * chain's end the producer's name (".<output index>" for a producer with
 * several outputs) and resets a one-output producer's name. The Result is
 * named as OpenVINO's tools name it ("<tensor>/sink_port_0"), so that the
 * output's name (its first tensor name) differs from the Result's. */

static char named_xml[1 << 15];

static size_t count_of(const char *hay, size_t n, const char *needle)
{
    size_t k = strlen(needle), c = 0, i;
    for (i = 0; i + k <= n; i++)
        if (memcmp(hay + i, needle, k) == 0) c++;
    return c;
}

/* The pass-through model with its Result renamed "y/sink_port_0". */
static npu_ir *named_ir(void)
{
    static const char from[] = "name=\"y\" type=\"Result\"", to[] = "name=\"y/sink_port_0\" type=\"Result\"";
    npu_ir *ir = pass_ir(1, 2, 3, 4);   /* writes ir_xml and ir_bin */
    size_t n = strlen(ir_xml);
    const char *at = strstr(ir_xml, from);
    npu_ir *out = NULL;
    assert_non_null(at);
    assert_true(n + sizeof to < sizeof named_xml);
    npu_ir_close(ir);
    memcpy(named_xml, ir_xml, (size_t)(at - ir_xml));
    memcpy(named_xml + (at - ir_xml), to, sizeof to - 1);
    strcpy(named_xml + (at - ir_xml) + sizeof to - 1, at + sizeof from - 1);
    tu_ok(npu_ir_load_memory(&tu_arena, tu_ctx, named_xml, strlen(named_xml), ir_bin, sizeof(float), &out),
          "npu_ir_load_memory");
    return out;
}

/* The XML of ir's layout-A payload (in buf, NUL-terminated after it). */
static const char *payload_xml(npu_ir *ir, char *buf, size_t cap)
{
    npu_payload_options o;
    size_t size = 0, i;
    memset(&o, 0, sizeof o);
    o.layout = NPU_PAYLOAD_WEIGHTS_COPY;
    o.compiler_version = (7u << 16) | 28u;
    tu_ok(npu_ir_write_payload(ir, &o, buf, cap - 1, &size), "npu_ir_write_payload");
    buf[size] = '\0';
    for (i = 0; i + 5 <= size; i++)
        if (memcmp(buf + i, "<?xml", 5) == 0) return buf + i;
    fail_msg("the payload has no XML");
    return NULL;
}

static double f16_value(uint16_t h)
{
    int e = (h >> 10) & 0x1f;
    double m = e == 0 ? (h & 0x3ff) / 1024.0 * pow(2, -14) : (1.0 + (h & 0x3ff) / 1024.0) * pow(2, e - 15);
    return (h & 0x8000) ? -m : m;
}

static void test_postprocess_keeps_the_output_names(void **state)
{
    static char xml[1 << 16];
    enum { N = 2 * 3 * 4 };
    float x[N];
    npu_postprocess q;
    npu_request *rq;
    npu_ir *ir;
    npu_model *m;
    int i;
    (void)state;
    for (i = 0; i < N; i++) x[i] = (float)(i - 7) * 0.5f;   /* exact in f16 */
    /* without postprocessing: the output is named by its tensor, "y" */
    ir = named_ir();
    m = compile(ir, NPU_PAYLOAD_WEIGHTS_COPY, NPU_BATCH_AUTO);
    assert_string_equal(npu_model_output(m, 0)->name, "y");
    npu_model_destroy(m);
    npu_ir_close(ir);
    /* with it: the same name, the f16 values */
    ir = named_ir();
    memset(&q, 0, sizeof q);
    q.type = NPU_F16;
    tu_ok(npu_ir_set_postprocess(ir, &tu_arena, 0, &q), "npu_ir_set_postprocess");
    const char *t = payload_xml(ir, xml, sizeof xml);
    size_t n = strlen(t);
    assert_int_equal(count_of(t, n, "names=\"y\""), 1);   /* moved, not copied */
    assert_int_equal(count_of(t, n, "name=\"mul\" type=\"Convert\""), 1);
    assert_int_equal(count_of(t, n, "name=\"Multiply_"), 1);   /* the producer's name reset */
    assert_int_equal(count_of(t, n, "name=\"y/sink_port_0\" type=\"Result\""), 1);
    m = compile(ir, NPU_PAYLOAD_WEIGHTS_COPY, NPU_BATCH_AUTO);
    assert_string_equal(npu_model_output(m, 0)->name, "y");
    assert_int_equal(npu_model_output(m, 0)->type, NPU_F16);
    const uint16_t *y = run(m, x, sizeof x, &rq);
    for (i = 0; i < N; i++)
        if (f16_value(y[i]) != (double)x[i]) fail_msg("y[%d] = %g, expected %g", i, f16_value(y[i]), (double)x[i]);
    npu_request_destroy(rq);
    npu_model_destroy(m);
    npu_ir_close(ir);
}

/* Pieces of the hand-written IRs below. */
#define XML_RESULT(id, name, dims)                                                                               \
    "<layer id=\"" id "\" name=\"" name "\" type=\"Result\" version=\"opset1\"><input><port id=\"0\" "      \
    "precision=\"FP32\">" dims "</port></input></layer>"
#define XML_EDGE(fl, fp, tl, tp) \
    "<edge from-layer=\"" fl "\" from-port=\"" fp "\" to-layer=\"" tl "\" to-port=\"" tp "\"/>"

/* A producer with two outputs (Split): the chain's end is "<name>.<index>"
 * and the producer keeps its name; the other output is untouched. */
static const char split_xml[] =
    "<?xml version=\"1.0\"?>\n<net name=\"split_pp\" version=\"11\"><layers>"
    "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data shape=\"1,4\" element_type=\"f32\"/>"
    "<output><port id=\"0\" precision=\"FP32\" names=\"x\"><dim>1</dim><dim>4</dim></port></output></layer>"
    "<layer id=\"1\" name=\"axis\" type=\"Const\" version=\"opset1\"><data element_type=\"i64\" shape=\"\" "
    "offset=\"0\" size=\"8\"/><output><port id=\"0\" precision=\"I64\"/></output></layer>"
    "<layer id=\"2\" name=\"split\" type=\"Split\" version=\"opset1\"><data num_splits=\"2\"/><input>"
    "<port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>4</dim></port><port id=\"1\" precision=\"I64\"/></input>"
    "<output><port id=\"2\" precision=\"FP32\" names=\"a\"><dim>1</dim><dim>2</dim></port>"
    "<port id=\"3\" precision=\"FP32\" names=\"b\"><dim>1</dim><dim>2</dim></port></output></layer>"
    XML_RESULT("3", "a/sink_port_0", "<dim>1</dim><dim>2</dim>")
    XML_RESULT("4", "b/sink_port_0", "<dim>1</dim><dim>2</dim>")
    "</layers><edges>"
    XML_EDGE("0", "0", "2", "0")
    XML_EDGE("1", "0", "2", "1")
    XML_EDGE("2", "2", "3", "0")
    XML_EDGE("2", "3", "4", "0")
    "</edges></net>\n";

static void test_postprocess_of_one_output_of_a_split(void **state)
{
    static char xml[1 << 14];
    static const int64_t axis = 1;
    const float x[4] = {1.5f, -2.0f, 3.25f, 0.125f};
    npu_postprocess q;
    npu_request *req = NULL;
    npu_ir *ir = NULL;
    npu_model *m;
    (void)state;
    tu_ok(npu_ir_load_memory(&tu_arena, tu_ctx, split_xml, sizeof split_xml - 1, &axis, sizeof axis, &ir),
          "npu_ir_load_memory");
    memset(&q, 0, sizeof q);
    q.type = NPU_F16;
    tu_ok(npu_ir_set_postprocess(ir, &tu_arena, 1, &q), "npu_ir_set_postprocess");
    const char *t = payload_xml(ir, xml, sizeof xml);
    size_t n = strlen(t);
    assert_int_equal(count_of(t, n, "names=\"a\""), 1);
    assert_int_equal(count_of(t, n, "names=\"b\""), 1);
    assert_int_equal(count_of(t, n, "name=\"split.1\" type=\"Convert\""), 1);
    assert_int_equal(count_of(t, n, "name=\"split\" type=\"Split\""), 1);
    m = compile(ir, NPU_PAYLOAD_WEIGHTS_COPY, NPU_BATCH_AUTO);
    assert_string_equal(npu_model_output(m, 0)->name, "a");
    assert_string_equal(npu_model_output(m, 1)->name, "b");
    assert_int_equal(npu_model_output(m, 0)->type, NPU_F32);
    assert_int_equal(npu_model_output(m, 1)->type, NPU_F16);
    tu_ok(npu_request_create(m, &tu_arena, NULL, &req), "npu_request_create");
    memcpy(npu_request_input(req, 0), x, sizeof x);
    tu_ok(npu_request_infer(req), "npu_request_infer");
    const float *a = npu_request_output(req, 0);
    const uint16_t *b = npu_request_output(req, 1);
    assert_true(a[0] == x[0] && a[1] == x[1]);
    assert_true(f16_value(b[0]) == (double)x[2] && f16_value(b[1]) == (double)x[3]);
    npu_request_destroy(req);
    npu_model_destroy(m);
    npu_ir_close(ir);
}

/* Only the element type: no layout is needed, on an input that has none
 * (an IR or a graph), as benchmark_app's -ip on such a model. */
static void test_type_only_needs_no_layout(void **state)
{
    static _Alignas(16) unsigned char gmem[1 << 15];
    static char xml[1 << 15];
    static unsigned char bin[64], f[2 * 6];
    npu_shape xs = {2, {2, 6}}, ks = {1, {1}};
    npu_payload_options a;
    npu_arena ga;
    npu_graph *g = NULL;
    npu_ir *ir = NULL;
    npu_model *m = NULL;
    npu_request *rq;
    size_t xml_size = 0, bin_size = 0;
    int src, i;
    (void)state;
    frame_fill(f, sizeof f, 4);
    for (src = 0; src < 2; src++) {
        npu_preprocess p = pre_u8(NULL);
        assert_int_equal(npu_arena_init(&ga, gmem, sizeof gmem), NPU_OK);
        assert_int_equal(npu_graph_create(src ? &tu_arena : &ga, tu_ctx, NULL, &g), NPU_OK);
        npu_node *x = npu_graph_parameter(g, "x", NPU_F32, &xs, NULL);
        assert_non_null(npu_graph_result(g, npu_graph_multiply(g, x, npu_graph_constant(g, "one", NPU_F32, &ks, &one,
                                                                                          sizeof one), "mul"), "y"));
        if (src == 0) {   /* as an IR */
            memset(&a, 0, sizeof a);
            a.layout = NPU_PAYLOAD_WEIGHTS_COPY;
            assert_int_equal(npu_graph_write_xml(g, &a, xml, sizeof xml, &xml_size), NPU_OK);
            assert_int_equal(npu_graph_write_bin(g, bin, sizeof bin, &bin_size), NPU_OK);
            tu_ok(npu_ir_load_memory(&tu_arena, tu_ctx, xml, xml_size, bin, bin_size, &ir), "npu_ir_load_memory");
            assert_string_equal(npu_ir_input(ir, 0)->desc.layout, "");
            tu_ok(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), "npu_ir_set_preprocess");
            m = compile(ir, NPU_PAYLOAD_WEIGHTS_COPY, NPU_BATCH_AUTO);
        } else {
            tu_ok(npu_graph_set_preprocess(g, &tu_arena, 0, &p), "npu_graph_set_preprocess");
            tu_ok(npu_model_compile_graph(dev, &tu_arena, g, NULL, &m), "npu_model_compile_graph");
        }
        assert_int_equal(npu_model_input(m, 0)->type, NPU_U8);
        const float *y = run(m, f, sizeof f, &rq);
        for (i = 0; i < 12; i++)
            if (y[i] != (float)f[i]) fail_msg("%s: y[%d] = %g, expected %d", src ? "graph" : "IR", i, (double)y[i], f[i]);
        npu_request_destroy(rq);
        npu_model_destroy(m);
        if (ir != NULL) npu_ir_close(ir);
        ir = NULL;
    }
}

/* Where the names cannot move, they stay and the chain's end gets a copy:
 * a port that also feeds another output, and a Parameter feeding the Result
 * (the input keeps its names). A postprocess without a step changes nothing. */
static const char shared_xml[] =
    "<?xml version=\"1.0\"?>\n<net name=\"shared\" version=\"11\"><layers>"
    "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data shape=\"1,4\" element_type=\"f32\"/>"
    "<output><port id=\"0\" precision=\"FP32\" names=\"x\"><dim>1</dim><dim>4</dim></port></output></layer>"
    "<layer id=\"1\" name=\"relu\" type=\"ReLU\" version=\"opset1\"><input><port id=\"0\" precision=\"FP32\">"
    "<dim>1</dim><dim>4</dim></port></input><output><port id=\"1\" precision=\"FP32\" names=\"y\"><dim>1</dim>"
    "<dim>4</dim></port></output></layer>"
    XML_RESULT("2", "y/sink_port_0", "<dim>1</dim><dim>4</dim>")
    XML_RESULT("3", "y/sink_port_1", "<dim>1</dim><dim>4</dim>")
    XML_RESULT("4", "x/sink_port_0", "<dim>1</dim><dim>4</dim>")
    "</layers><edges>"
    XML_EDGE("0", "0", "1", "0")
    XML_EDGE("1", "1", "2", "0")
    XML_EDGE("1", "1", "3", "0")
    XML_EDGE("0", "0", "4", "0")
    "</edges></net>\n";

static void test_postprocess_names_that_cannot_move_are_copied(void **state)
{
    static char xml[1 << 14];
    const float x[4] = {1.5f, -2.0f, 3.25f, -0.125f};
    npu_postprocess q;
    npu_request *req = NULL;
    npu_ir *ir = NULL;
    npu_model *m;
    uint32_t k;
    (void)state;
    /* no step (the model's own type): the payload keeps its names and names */
    ir = named_ir();
    memset(&q, 0, sizeof q);
    q.type = NPU_F32;
    tu_ok(npu_ir_set_postprocess(ir, &tu_arena, 0, &q), "npu_ir_set_postprocess");
    const char *t = payload_xml(ir, xml, sizeof xml);
    assert_int_equal(count_of(t, strlen(t), "name=\"mul\" type=\"Multiply\""), 1);
    assert_int_equal(count_of(t, strlen(t), "names=\"y\""), 1);
    m = compile(ir, NPU_PAYLOAD_WEIGHTS_COPY, NPU_BATCH_AUTO);
    assert_string_equal(npu_model_output(m, 0)->name, "y");
    npu_model_destroy(m);
    npu_ir_close(ir);
    /* shared port (outputs 0 and 1) and a Parameter (output 2): f16 on 0 and 2 */
    tu_ok(npu_ir_load_memory(&tu_arena, tu_ctx, shared_xml, sizeof shared_xml - 1, NULL, 0, &ir), "npu_ir_load_memory");
    q.type = NPU_F16;
    tu_ok(npu_ir_set_postprocess(ir, &tu_arena, 0, &q), "npu_ir_set_postprocess");
    tu_ok(npu_ir_set_postprocess(ir, &tu_arena, 2, &q), "npu_ir_set_postprocess");
    t = payload_xml(ir, xml, sizeof xml);
    assert_int_equal(count_of(t, strlen(t), "name=\"relu\" type=\"ReLU\""), 1);   /* not renamed: output 1 reads it */
    assert_int_equal(count_of(t, strlen(t), "name=\"x\" type=\"Parameter\""), 1);
    m = compile(ir, NPU_PAYLOAD_WEIGHTS_COPY, NPU_BATCH_AUTO);
    assert_string_equal(npu_model_input(m, 0)->name, "x");
    assert_string_equal(npu_model_output(m, 0)->name, "y");
    assert_string_equal(npu_model_output(m, 1)->name, "y");
    assert_string_equal(npu_model_output(m, 2)->name, "x");
    assert_int_equal(npu_model_output(m, 0)->type, NPU_F16);
    assert_int_equal(npu_model_output(m, 1)->type, NPU_F32);
    assert_int_equal(npu_model_output(m, 2)->type, NPU_F16);
    tu_ok(npu_request_create(m, &tu_arena, NULL, &req), "npu_request_create");
    memcpy(npu_request_input(req, 0), x, sizeof x);
    tu_ok(npu_request_infer(req), "npu_request_infer");
    const uint16_t *y0 = npu_request_output(req, 0), *y2 = npu_request_output(req, 2);
    const float *y1 = npu_request_output(req, 1);
    for (k = 0; k < 4; k++) {
        double r = x[k] > 0 ? (double)x[k] : 0.0;
        assert_true(f16_value(y0[k]) == r && (double)y1[k] == r && f16_value(y2[k]) == (double)x[k]);
    }
    npu_request_destroy(req);
    npu_model_destroy(m);
    npu_ir_close(ir);
}

/* ---- reshape (npu_ir_set_input_shape) ---- */

/* y = x * 2 with x [1,2,?,?] (dynamic height and width). */
static const char dyn_xml[] =
    "<?xml version=\"1.0\"?>\n<net name=\"dyn\" version=\"11\"><layers>"
    "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data shape=\"1,2,?,?\" element_type=\"f32\"/>"
    "<output><port id=\"0\" precision=\"FP32\" names=\"x\"><dim>1</dim><dim>2</dim><dim>-1</dim><dim>-1</dim></port>"
    "</output></layer>"
    "<layer id=\"1\" name=\"two\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"1\" offset=\"0\" "
    "size=\"4\"/><output><port id=\"0\" precision=\"FP32\"><dim>1</dim></port></output></layer>"
    "<layer id=\"2\" name=\"mul\" type=\"Multiply\" version=\"opset1\"><data auto_broadcast=\"numpy\"/><input>"
    "<port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>2</dim><dim>-1</dim><dim>-1</dim></port><port id=\"1\" "
    "precision=\"FP32\"><dim>1</dim></port></input><output><port id=\"2\" precision=\"FP32\" names=\"y\"><dim>1</dim>"
    "<dim>2</dim><dim>-1</dim><dim>-1</dim></port></output></layer>"
    XML_RESULT("3", "y/sink_port_0", "<dim>1</dim><dim>2</dim><dim>-1</dim><dim>-1</dim>")
    "</layers><edges>"
    XML_EDGE("0", "0", "2", "0")
    XML_EDGE("1", "0", "2", "1")
    XML_EDGE("2", "2", "3", "0")
    "</edges></net>\n";
static const float two = 2.0f;

static npu_ir *dyn_ir(void)
{
    npu_ir *ir = NULL;
    tu_ok(npu_ir_load_memory(&tu_arena, tu_ctx, dyn_xml, sizeof dyn_xml - 1, &two, sizeof two, &ir),
          "npu_ir_load_memory");
    return ir;
}

static void test_reshape_makes_a_dynamic_input_static(void **state)
{
    enum { H = 3, W = 5, N = 2 * H * W };
    static unsigned char f[N];
    npu_shape s = {4, {1, 2, H, W}}, bad;
    npu_compile_options o;
    npu_preprocess p = pre_u8(NULL);
    npu_model *m = NULL;
    npu_request *rq;
    float x[N];
    int i, pre;
    (void)state;
    /* without a shape the compiler refuses the dynamic input */
    npu_ir *ir = dyn_ir();
    memset(&o, 0, sizeof o);
    assert_int_not_equal(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), NPU_OK);
    npu_ir_close(ir);
    for (i = 0; i < N; i++) x[i] = (float)(i * 3 % 17) - 8.0f;
    frame_fill(f, sizeof f, 5);
    for (pre = 0; pre < 2; pre++) {   /* the shape alone, then with a u8 preprocess on top */
        ir = dyn_ir();
        tu_ok(npu_ir_set_input_shape(ir, &tu_arena, 0, &s), "npu_ir_set_input_shape");
        assert_true(npu_ir_input(ir, 0)->desc.shape.dims[2] == H && npu_ir_input(ir, 0)->desc.shape.dims[3] == W);
        assert_int_equal(npu_ir_input(ir, 0)->desc.bytes, N * sizeof(float));
        if (pre) tu_ok(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), "npu_ir_set_preprocess");
        m = compile(ir, NPU_PAYLOAD_WEIGHTS_COPY, NPU_BATCH_AUTO);
        const npu_tensor_desc *d = npu_model_output(m, 0);
        assert_string_equal(d->name, "y");
        assert_true(d->shape.rank == 4 && d->shape.dims[2] == H && d->shape.dims[3] == W);
        assert_int_equal(npu_model_input(m, 0)->type, pre ? NPU_U8 : NPU_F32);
        const float *y = pre ? run(m, f, sizeof f, &rq) : run(m, x, sizeof x, &rq);
        for (i = 0; i < N; i++) {
            float want = 2.0f * (pre ? (float)f[i] : x[i]);
            if (y[i] != want) fail_msg("pre %d: y[%d] = %g, expected %g", pre, i, (double)y[i], (double)want);
        }
        npu_request_destroy(rq);
        npu_model_destroy(m);
        npu_ir_close(ir);
    }
    /* refusals, each leaving the IR as it was */
    ir = dyn_ir();
    bad = s;
    bad.rank = 3;
    assert_int_equal(npu_ir_set_input_shape(ir, &tu_arena, 0, &bad), NPU_ERR_INVALID_ARGUMENT);
    expect_error("rank");
    bad = s;
    bad.dims[3] = 0;
    assert_int_equal(npu_ir_set_input_shape(ir, &tu_arena, 0, &bad), NPU_ERR_INVALID_ARGUMENT);
    expect_error("static");
    assert_int_equal(npu_ir_input(ir, 0)->desc.shape.dims[3], NPU_DIM_DYNAMIC);
    bad = s;
    bad.dims[0] = 4;   /* the batch is npu_ir_set_batch's */
    assert_int_equal(npu_ir_set_input_shape(ir, &tu_arena, 0, &bad), NPU_ERR_INVALID_ARGUMENT);
    expect_error("batch axis");
    assert_int_equal(npu_ir_set_input_shape(ir, &tu_arena, 1, &s), NPU_ERR_NOT_FOUND);
    assert_int_equal(npu_ir_set_input_shape(ir, &tu_arena, 0, NULL), NPU_ERR_INVALID_ARGUMENT);
    tu_ok(npu_ir_set_input_shape(ir, &tu_arena, 0, &s), "npu_ir_set_input_shape");
    assert_int_equal(npu_ir_set_input_shape(ir, &tu_arena, 0, &s), NPU_ERR_STATE);
    expect_error("already has a shape");
    m = compile(ir, NPU_PAYLOAD_WEIGHTS_COPY, NPU_BATCH_AUTO);
    assert_int_equal(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), NPU_ERR_STATE);   /* compiled */
    npu_model_destroy(m);
    npu_ir_close(ir);
    /* reshaped, then batched: PLUGIN debatches it as any batch-1 IR */
    {
        enum { B = 3 };
        static float xb[B * N];
        ir = dyn_ir();
        tu_ok(npu_ir_set_layout(ir, 0, 0, "NCHW"), "npu_ir_set_layout");
        tu_ok(npu_ir_set_layout(ir, 1, 0, "NCHW"), "npu_ir_set_layout");
        tu_ok(npu_ir_set_input_shape(ir, &tu_arena, 0, &s), "npu_ir_set_input_shape");
        tu_ok(npu_ir_set_batch(ir, B, NULL), "npu_ir_set_batch");
        m = compile(ir, NPU_PAYLOAD_WEIGHTS_COPY, NPU_BATCH_PLUGIN);
        assert_int_equal(npu_model_batch(m), B);
        assert_true(npu_model_input(m, 0)->shape.dims[0] == B && npu_model_input(m, 0)->shape.dims[3] == W);
        for (i = 0; i < B * N; i++) xb[i] = (float)(i % 23) - 11.0f;
        const float *yb = run(m, xb, sizeof xb, &rq);
        for (i = 0; i < B * N; i++)
            if (yb[i] != 2.0f * xb[i]) fail_msg("batch: y[%d] = %g, expected %g", i, (double)yb[i], 2.0 * xb[i]);
        npu_request_destroy(rq);
        npu_model_destroy(m);
        npu_ir_close(ir);
    }
}

/* A layer name written in '...' with a '"' in it stays well-formed where
 * the plans write it again (the Parameter anew, the chain's end). */
static void test_quoted_names_stay_well_formed(void **state)
{
    static char xml[1 << 15], buf[1 << 16];
    static const char from_p[] = "name=\"x\" type=\"Parameter\"", to_p[] = "name='x\"q' type=\"Parameter\"";
    static const char from_m[] = "name=\"mul\" type=\"Multiply\"", to_m[] = "name='m\"ul' type=\"Multiply\"";
    static unsigned char f[2 * 3 * 4];
    npu_preprocess p = pre_u8(NULL);
    npu_postprocess q;
    npu_request *rq;
    npu_ir *ir = pass_ir(1, 2, 3, 4), *ir2 = NULL;
    char *at;
    size_t n;
    int i;
    (void)state;
    npu_ir_close(ir);
    strcpy(xml, ir_xml);
    for (i = 0; i < 2; i++) {   /* replace the two names in place */
        const char *from = i ? from_m : from_p, *to = i ? to_m : to_p;
        at = strstr(xml, from);
        assert_non_null(at);
        n = strlen(xml);
        memmove(at + strlen(to), at + strlen(from), n - (size_t)(at - xml) - strlen(from) + 1);
        memcpy(at, to, strlen(to));
    }
    tu_ok(npu_ir_load_memory(&tu_arena, tu_ctx, xml, strlen(xml), ir_bin, sizeof(float), &ir2), "npu_ir_load_memory");
    memset(&q, 0, sizeof q);
    q.type = NPU_F16;
    tu_ok(npu_ir_set_preprocess(ir2, &tu_arena, 0, &p), "npu_ir_set_preprocess");
    tu_ok(npu_ir_set_postprocess(ir2, &tu_arena, 0, &q), "npu_ir_set_postprocess");
    const char *t = payload_xml(ir2, buf, sizeof buf);
    assert_non_null(strstr(t, "name=\"x&quot;q\" type=\"Parameter\""));
    assert_non_null(strstr(t, "name=\"m&quot;ul\" type=\"Convert\""));
    npu_model *m = compile(ir2, NPU_PAYLOAD_WEIGHTS_COPY, NPU_BATCH_AUTO);   /* the compiler parses it */
    frame_fill(f, sizeof f, 2);
    const uint16_t *y = run(m, f, sizeof f, &rq);
    for (i = 0; i < (int)sizeof f; i++)
        if (f16_value(y[i]) != (double)f[i]) fail_msg("y[%d] = %g, expected %d", i, f16_value(y[i]), f[i]);
    npu_request_destroy(rq);
    npu_model_destroy(m);
    npu_ir_close(ir2);
}

/* ---- errors ---- */

static void test_errors_name_the_input_and_the_reason(void **state)
{
    npu_ir *ir = pass_ir(1, 3, 4, 4);
    npu_preprocess p = pre_u8("NHW");
    npu_postprocess q;
    size_t before;
    (void)state;
    before = npu_arena_used(&tu_arena);
    assert_int_equal(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), NPU_ERR_INVALID_ARGUMENT);
    expect_error("input 'x'");
    expect_error("layout does not have one letter per axis");
    assert_int_equal(npu_arena_used(&tu_arena), before);
    p = pre_u8("NHWC");
    p.type = (npu_type)99;
    assert_int_equal(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), NPU_ERR_INVALID_ARGUMENT);
    expect_error("unknown element type");
    p = pre_u8("NHWC");
    assert_int_equal(npu_ir_set_preprocess(ir, &tu_arena, 1, &p), NPU_ERR_NOT_FOUND);
    expect_error("no input 1 (it has 1)");
    p.height = 5;
    assert_int_equal(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), NPU_ERR_INVALID_ARGUMENT);
    expect_error("no resize is set");
    p = pre_u8("NHWC");
    p.n_scale = 2;
    p.scale[0] = p.scale[1] = 1.0f;
    assert_int_equal(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), NPU_ERR_INVALID_ARGUMENT);
    expect_error("neither 1 nor the channel count");
    p.n_scale = 1;
    p.scale[0] = 0.0f;
    assert_int_equal(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), NPU_ERR_INVALID_ARGUMENT);
    expect_error("scale value is 0");
    p = pre_u8("NHWC");
    p.reserved[3] = 1;
    assert_int_equal(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), NPU_ERR_INVALID_ARGUMENT);
    p = pre_u8("NHWC");
    p.color = NPU_COLOR_RGB_TO_GRAY;   /* the model has 3 channels */
    assert_int_equal(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), NPU_ERR_INVALID_ARGUMENT);
    expect_error("gray");
    assert_int_equal(npu_arena_used(&tu_arena), before);
    {   /* an arena without NPU_PREPROCESS_BYTES: refused, unchanged */
        static _Alignas(16) unsigned char small[NPU_PREPROCESS_BYTES - 16];
        npu_arena sa;
        npu_arena_init(&sa, small, sizeof small);
        p = pre_u8("NHWC");
        assert_int_equal(npu_ir_set_preprocess(ir, &sa, 0, &p), NPU_ERR_ARENA_TOO_SMALL);
        assert_int_equal(npu_arena_used(&sa), 0);
    }
    p = pre_u8("NHWC");
    tu_ok(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), "npu_ir_set_preprocess");
    assert_int_equal(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), NPU_ERR_STATE);
    expect_error("input 'x' already has preprocessing set");
    memset(&q, 0, sizeof q);
    q.layout = "NCW";
    assert_int_equal(npu_ir_set_postprocess(ir, &tu_arena, 0, &q), NPU_ERR_INVALID_ARGUMENT);
    expect_error("output 'y'");
    npu_model *m = compile(ir, NPU_PAYLOAD_DEFAULT, NPU_BATCH_AUTO);
    q.layout = NULL;
    q.type = NPU_F16;
    assert_int_equal(npu_ir_set_postprocess(ir, &tu_arena, 0, &q), NPU_ERR_STATE);
    expect_error("already been compiled");
    {   /* a frame buffer smaller than the u8 frame */
        npu_request *req = NULL;
        static _Alignas(64) unsigned char frame[3 * 4 * 4];
        tu_ok(npu_request_create(m, &tu_arena, NULL, &req), "npu_request_create");
        assert_int_equal(npu_request_set_input_buffer(req, 0, frame, sizeof frame - 1), NPU_ERR_BUFFER_TOO_SMALL);
        expect_error("input 'x': buffer of 47 bytes, 48 needed");
        /* an f32-sized buffer is not what the model reads: the input is u8 */
        assert_int_equal(npu_model_input(m, 0)->type, NPU_U8);
        assert_int_equal(npu_model_input(m, 0)->bytes, sizeof frame);
        tu_ok(npu_request_set_input_buffer(req, 0, frame, sizeof frame), "npu_request_set_input_buffer");
        npu_request_destroy(req);
    }
    npu_model_destroy(m);
}

/* ---- the same on a graph (npu_graph_set_preprocess / _set_postprocess) ---- */

static npu_graph *pass_graph(int64_t n, int64_t c, int64_t h, int64_t w)
{
    npu_graph *g = NULL;
    npu_shape xs = {4, {n, c, h, w}}, ks = {1, {1}};
    npu_node *x, *r;
    tu_ok(npu_graph_create(&tu_arena, tu_ctx, NULL, &g), "npu_graph_create");
    x = npu_graph_parameter(g, "x", NPU_F32, &xs, "NCHW");
    r = npu_graph_result(g, npu_graph_multiply(g, x, npu_graph_constant(g, "one", NPU_F32, &ks, &one, sizeof one),
                                               "mul"), "y");
    assert_non_null(r);
    tu_ok(npu_graph_set_layout(r, "NCHW"), "npu_graph_set_layout");
    return g;
}

static void test_graph_whole_chain_and_plugin_batches(void **state)
{
    enum { N = 3, C = 3, H0 = 10, W0 = 7, H = 6, W = 5 };
    static unsigned char f[N * H0 * W0 * C];
    static double plane[H0 * W0], rs[H * W], want[N * C * H * W];
    static const float mean[C] = {10.5f, 20.25f, 30.0f}, scale[C] = {2.0f, 4.0f, 0.5f};
    npu_graph *g = pass_graph(N, C, H, W);
    npu_preprocess p = pre_u8("NHWC");
    npu_compile_options o;
    npu_tensor_desc d;
    npu_model *m = NULL;
    npu_model_info info;
    npu_request *rq;
    int n, c, k;
    (void)state;
    frame_fill(f, sizeof f, 5);
    for (n = 0; n < N; n++)
        for (c = 0; c < C; c++) {
            for (k = 0; k < H0 * W0; k++) plane[k] = f[(n * H0 * W0 + k) * C + (C - 1 - c)];
            resize_ref(plane, H0, W0, rs, H, W, 0);
            for (k = 0; k < H * W; k++) want[((n * C + c) * H * W) + k] = (rs[k] - mean[c]) / scale[c];
        }
    p.height = H0;
    p.width = W0;
    p.resize = NPU_RESIZE_LINEAR;
    p.color = NPU_COLOR_REVERSED;
    p.n_mean = p.n_scale = C;
    memcpy(p.mean, mean, sizeof mean);
    memcpy(p.scale, scale, sizeof scale);
    tu_ok(npu_graph_set_preprocess(g, &tu_arena, 0, &p), "npu_graph_set_preprocess");
    /* the graph's input is the frame now */
    tu_ok(npu_graph_input(g, 0, &d), "npu_graph_input");
    assert_int_equal(d.type, NPU_U8);
    assert_string_equal(d.layout, "NHWC");
    assert_true(d.shape.dims[0] == N && d.shape.dims[1] == H0 && d.shape.dims[2] == W0 && d.shape.dims[3] == C);
    memset(&o, 0, sizeof o);
    o.batch_mode = NPU_BATCH_PLUGIN;
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, &o, &m), "npu_model_compile_graph");
    tu_ok(npu_model_get_info(m, &info), "npu_model_get_info");
    assert_int_equal(info.batch_mode, NPU_BATCH_PLUGIN);
    const float *out = run(m, f, sizeof f, &rq);
    for (k = 0; k < N * C * H * W; k++) {
        double tol = 1e-5 * 256.0 / scale[(k / (H * W)) % C];
        if (fabs((double)out[k] - want[k]) > tol) fail_msg("element %d: %.9g, expected %.9g", k, (double)out[k], want[k]);
    }
    npu_request_destroy(rq);
    npu_model_destroy(m);
}

static void test_graph_gray_and_postprocess(void **state)
{
    enum { H = 4, W = 5 };
    static unsigned char f[H * W * 3];
    npu_graph *g = pass_graph(1, 1, H, W);
    npu_preprocess p = pre_u8("NHWC");
    npu_postprocess q;
    npu_model *m = NULL;
    npu_request *rq;
    int k;
    (void)state;
    p.color = NPU_COLOR_BGR_TO_GRAY;
    memset(&q, 0, sizeof q);
    q.type = NPU_F16;
    q.layout = "NHWC";
    tu_ok(npu_graph_set_preprocess(g, &tu_arena, 0, &p), "npu_graph_set_preprocess");
    tu_ok(npu_graph_set_postprocess(g, &tu_arena, 0, &q), "npu_graph_set_postprocess");
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, NULL, &m), "npu_model_compile_graph");
    assert_int_equal(npu_model_output(m, 0)->type, NPU_F16);
    assert_string_equal(npu_model_output(m, 0)->layout, "NHWC");
    frame_fill(f, sizeof f, 9);
    const uint16_t *out = run(m, f, sizeof f, &rq);
    for (k = 0; k < H * W; k++) {   /* B, G, R weighted 0.114, 0.587, 0.299, then to f16 */
        double want = 0.114 * f[k * 3] + 0.587 * f[k * 3 + 1] + 0.299 * f[k * 3 + 2];
        uint16_t h = out[k];
        int e = (h >> 10) & 0x1f;
        double got = (e == 0 ? (h & 0x3ff) / 1024.0 * pow(2, -14) : (1.0 + (h & 0x3ff) / 1024.0) * pow(2, e - 15));
        if (fabs(got - want) > want / 1024.0 + 1e-3) fail_msg("pixel %d: %.6g, expected %.6g", k, got, want);
    }
    npu_request_destroy(rq);
    npu_model_destroy(m);
}

static void test_graph_errors_leave_the_graph_as_it_was(void **state)
{
    static _Alignas(16) unsigned char small[256];
    npu_graph *g = pass_graph(1, 3, 4, 4);
    npu_preprocess p = pre_u8("NHWC");
    npu_postprocess q;
    npu_arena a;
    uint32_t nodes = npu_graph_node_count(g);
    size_t used = npu_graph_bytes_used(g), mark;
    npu_tensor_desc d;
    (void)state;
    assert_int_equal(npu_graph_set_preprocess(g, &tu_arena, 1, &p), NPU_ERR_NOT_FOUND);
    p.height = 8;   /* a size without a resize */
    mark = npu_arena_used(&tu_arena);
    assert_int_equal(npu_graph_set_preprocess(g, &tu_arena, 0, &p), NPU_ERR_INVALID_ARGUMENT);
    expect_error("input 0 ('x')");
    expect_error("no resize");
    assert_int_equal(npu_arena_used(&tu_arena), mark);
    p.height = 0;
    assert_int_equal(npu_arena_init(&a, small, sizeof small), NPU_OK);
    assert_int_equal(npu_graph_set_preprocess(g, &a, 0, &p), NPU_ERR_ARENA_TOO_SMALL);
    p.reserved[0] = 1;
    assert_int_equal(npu_graph_set_preprocess(g, &tu_arena, 0, &p), NPU_ERR_INVALID_ARGUMENT);
    p.reserved[0] = 0;
    assert_int_equal(npu_graph_node_count(g), nodes);
    assert_int_equal(npu_graph_bytes_used(g), used);
    assert_int_equal(npu_graph_status(g), NPU_OK);
    tu_ok(npu_graph_input(g, 0, &d), "npu_graph_input");
    assert_int_equal(d.type, NPU_F32);
    assert_string_equal(d.layout, "NCHW");
    /* the same arena that holds the graph, too small for the chain: all undone */
    {
        npu_arena *ga = &tu_arena;
        size_t keep = ga->capacity;
        ga->capacity = npu_arena_used(ga) + NPU_ARENA_ROUND(NPU_PREPROCESS_BYTES) + 64;
        assert_int_equal(npu_graph_set_preprocess(g, ga, 0, &p), NPU_ERR_ARENA_TOO_SMALL);
        ga->capacity = keep;
        assert_int_equal(npu_graph_node_count(g), nodes);
        assert_int_equal(npu_graph_status(g), NPU_OK);
        tu_ok(npu_graph_input(g, 0, &d), "npu_graph_input");
        assert_int_equal(d.type, NPU_F32);
    }
    tu_ok(npu_graph_set_preprocess(g, &tu_arena, 0, &p), "npu_graph_set_preprocess");
    assert_int_equal(npu_graph_set_preprocess(g, &tu_arena, 0, &p), NPU_ERR_STATE);
    expect_error("already has preprocessing");
    memset(&q, 0, sizeof q);
    q.layout = "NCWHX";
    assert_int_equal(npu_graph_set_postprocess(g, &tu_arena, 0, &q), NPU_ERR_INVALID_ARGUMENT);
    expect_error("output 0 ('y')");
}

static void test_a_frame_of_another_type_shape_or_layout_is_refused(void **state)
{
    enum { C = 3, H = 4, W = 6 };
    static _Alignas(64) unsigned char f[C * H * W];
    static _Alignas(64) float wrong[C * H * W];
    npu_ir *ir = pass_ir(1, C, H, W);
    npu_preprocess p = pre_u8("NHWC");
    npu_tensor_desc t;
    npu_request *req = NULL;
    const float *out;
    int c, y, x;
    (void)state;
    tu_ok(npu_ir_set_preprocess(ir, &tu_arena, 0, &p), "npu_ir_set_preprocess");
    npu_model *m = compile(ir, NPU_PAYLOAD_NO_WEIGHTS_COPY, NPU_BATCH_AUTO);
    tu_ok(npu_request_create(m, &tu_arena, NULL, &req), "npu_request_create");
    memset(&t, 0, sizeof t);
    t.type = NPU_F32;   /* an f32 frame where the model now takes u8 */
    t.shape.rank = 4;
    t.shape.dims[0] = 1;
    t.shape.dims[1] = H;
    t.shape.dims[2] = W;
    t.shape.dims[3] = C;
    strcpy(t.layout, "NHWC");
    assert_int_equal(npu_request_set_input_tensor(req, 0, &t, wrong), NPU_ERR_INVALID_ARGUMENT);
    expect_error("the buffer holds f32 [1,4,6,3] NHWC; the model takes u8 [1,4,6,3] NHWC");
    t.type = NPU_U8;
    t.shape.dims[1] = H + 1;   /* a taller frame */
    assert_int_equal(npu_request_set_input_tensor(req, 0, &t, f), NPU_ERR_INVALID_ARGUMENT);
    expect_error("u8 [1,5,6,3]");
    t.shape.dims[1] = H;
    strcpy(t.layout, "NCHW");   /* planar where interleaved was declared */
    assert_int_equal(npu_request_set_input_tensor(req, 0, &t, f), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_request_set_input_tensor(req, 1, &t, f), NPU_ERR_NOT_FOUND);
    strcpy(t.layout, "NHWC");
    frame_fill(f, sizeof f, 3);
    tu_ok(npu_request_set_input_tensor(req, 0, &t, f), "npu_request_set_input_tensor");
    tu_ok(npu_request_infer(req), "npu_request_infer");
    out = (const float *)npu_request_output(req, 0);
    for (c = 0; c < C; c++)
        for (y = 0; y < H; y++)
            for (x = 0; x < W; x++) assert_true(out[(c * H + y) * W + x] == (float)f[(y * W + x) * C + c]);
    npu_request_destroy(req);
    npu_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_convert_u8_to_f32_is_exact_and_the_input_reports_the_frame, setup_each),
        cmocka_unit_test_setup(test_nhwc_frame_is_transposed_to_nchw_exactly, setup_each),
        cmocka_unit_test_setup(test_mean_and_scale_per_channel_are_exact, setup_each),
        cmocka_unit_test_setup(test_reversed_colour_swaps_bgr_and_rgb, setup_each),
        cmocka_unit_test_setup(test_resize_nearest_matches_the_interpolate_spec, setup_each),
        cmocka_unit_test_setup(test_resize_linear_matches_the_interpolate_spec, setup_each),
        cmocka_unit_test_setup(test_gray_from_rgb_and_bgr_weights_the_channels, setup_each),
        cmocka_unit_test_setup(test_whole_chain_in_both_payload_layouts_and_plugin_batches, setup_each),
        cmocka_unit_test_setup(test_postprocess_converts_and_transposes_the_output, setup_each),
        cmocka_unit_test_setup(test_postprocess_keeps_the_output_names, setup_each),
        cmocka_unit_test_setup(test_postprocess_of_one_output_of_a_split, setup_each),
        cmocka_unit_test_setup(test_postprocess_names_that_cannot_move_are_copied, setup_each),
        cmocka_unit_test_setup(test_type_only_needs_no_layout, setup_each),
        cmocka_unit_test_setup(test_reshape_makes_a_dynamic_input_static, setup_each),
        cmocka_unit_test_setup(test_quoted_names_stay_well_formed, setup_each),
        cmocka_unit_test_setup(test_errors_name_the_input_and_the_reason, setup_each),
        cmocka_unit_test_setup(test_graph_whole_chain_and_plugin_batches, setup_each),
        cmocka_unit_test_setup(test_graph_gray_and_postprocess, setup_each),
        cmocka_unit_test_setup(test_graph_errors_leave_the_graph_as_it_was, setup_each),
        cmocka_unit_test_setup(test_a_frame_of_another_type_shape_or_layout_is_refused, setup_each),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
