/* Graph-builder ops of quantized, mobile and upsampling models (issue 18):
 * HSwish, HSigmoid, Mish, Gelu, Swish, Erf, Log, Floor, Power, PRelu, Pad,
 * Slice, FakeQuantize and Interpolate, each built with the graph builder,
 * compiled on the software NPU and compared with a reference written here from
 * OpenVINO's operation specifications (not from the sim's code); the IR text
 * they write; and their argument errors, which undo the op and its Constants. */
#include <math.h>

#include "tests/l0_test_util.h"

static npu_graph *new_graph(void)
{
    npu_graph *g = NULL;
    tu_ok(npu_graph_create(&tu_arena, tu_ctx, NULL, &g), "graph");
    return g;
}

static npu_shape shape4(int64_t a, int64_t b, int64_t c, int64_t d)
{
    npu_shape s;
    memset(&s, 0, sizeof s);
    s.rank = 4;
    s.dims[0] = a;
    s.dims[1] = b;
    s.dims[2] = c;
    s.dims[3] = d;
    return s;
}

/* Compiles g (one f32 input, one f32 output), runs it on x and copies the
 * output (n_out values) into y. */
static void run(npu_graph *g, const float *x, size_t n_in, float *y, size_t n_out)
{
    npu_model *m = NULL;
    npu_request *r = NULL;
    size_t mark = tu_arena.used;
    if (npu_graph_status(g) != NPU_OK) fail_msg("graph: %s", npu_graph_first_error(g));
    tu_ok(npu_model_compile_graph(tu_dev, &tu_arena, g, NULL, &m), "compile");
    assert_int_equal(npu_model_input(m, 0)->bytes, n_in * sizeof(float));
    assert_int_equal(npu_model_output(m, 0)->bytes, n_out * sizeof(float));
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    memcpy(npu_request_input(r, 0), x, n_in * sizeof(float));
    tu_ok(npu_request_infer(r), "infer");
    memcpy(y, npu_request_output(r, 0), n_out * sizeof(float));
    npu_request_destroy(r);
    npu_model_destroy(m);
    npu_arena_rewind(&tu_arena, mark);
}

static void expect_close(const float *y, const double *ref, size_t n, double tol, const char *what)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!(fabs((double)y[i] - ref[i]) <= tol * (1.0 + fabs(ref[i]))))
            fail_msg("%s: element %zu is %.9g, expected %.9g", what, i, (double)y[i], ref[i]);
}

/* ---- activations ---- */

enum { ACT_HSWISH, ACT_HSIGMOID, ACT_MISH, ACT_GELU_ERF, ACT_GELU_TANH, ACT_SWISH1, ACT_SWISH_HALF, ACT_ERF,
       ACT_LOG, ACT_FLOOR, ACT_COUNT };

/* The formulas of OpenVINO's specifications (HSwish-4, HSigmoid-5, Mish-4,
 * Gelu-7, Swish-4, Erf-1, Log-1, Floor-1). */
static double act_ref(int k, double x)
{
    const double pi = 3.14159265358979323846;
    double r6 = fmin(fmax(x + 3.0, 0.0), 6.0);
    switch (k) {
    case ACT_HSWISH: return x * r6 / 6.0;
    case ACT_HSIGMOID: return r6 / 6.0;
    case ACT_MISH: return x * tanh(log(exp(x) + 1.0));
    case ACT_GELU_ERF: return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
    case ACT_GELU_TANH: return 0.5 * x * (1.0 + tanh(sqrt(2.0 / pi) * (x + 0.044715 * x * x * x)));
    case ACT_SWISH1: return x / (1.0 + exp(-x));
    case ACT_SWISH_HALF: return x / (1.0 + exp(-0.5 * x));
    case ACT_ERF: return erf(x);
    case ACT_LOG: return log(x);
    default: return floor(x);
    }
}

static npu_node *act_node(npu_graph *g, int k, npu_node *x)
{
    switch (k) {
    case ACT_HSWISH: return npu_graph_hswish(g, x, NULL);
    case ACT_HSIGMOID: return npu_graph_hsigmoid(g, x, NULL);
    case ACT_MISH: return npu_graph_mish(g, x, NULL);
    case ACT_GELU_ERF: return npu_graph_gelu(g, x, 0, NULL);
    case ACT_GELU_TANH: return npu_graph_gelu(g, x, 1, NULL);
    case ACT_SWISH1: return npu_graph_swish(g, x, 1.0, NULL);
    case ACT_SWISH_HALF: return npu_graph_swish(g, x, 0.5, NULL);
    case ACT_ERF: return npu_graph_erf(g, x, NULL);
    case ACT_LOG: return npu_graph_log(g, x, NULL);
    default: return npu_graph_floor(g, x, NULL);
    }
}

static void test_activations(void **state)
{
    static const char *const names[ACT_COUNT] = {"HSwish", "HSigmoid", "Mish", "Gelu erf", "Gelu tanh",
                                                 "Swish", "Swish beta 0.5", "Erf", "Log", "Floor"};
    float x[24], y[24];
    double ref[24];
    int k, i;
    (void)state;
    for (k = 0; k < ACT_COUNT; k++) {
        npu_graph *g = new_graph();
        npu_shape s = shape4(1, 2, 3, 4);
        npu_node *p = npu_graph_parameter(g, "x", NPU_F32, &s, NULL);
        npu_graph_result(g, act_node(g, k, p), "y");
        for (i = 0; i < 24; i++) {
            /* -5.5 .. 5.9, crossing the corners of HSwish/HSigmoid at -3 and 3;
             * Log gets positive values */
            x[i] = k == ACT_LOG ? 0.05f + (float)i * 0.4f : -5.5f + (float)i * 0.49f;
            ref[i] = act_ref(k, (double)x[i]);
        }
        run(g, x, 24, y, 24);
        expect_close(y, ref, 24, 2e-6, names[k]);
    }
}

static void test_power_and_prelu(void **state)
{
    static const float a[6] = {1.5f, 2.0f, 0.5f, 3.0f, 1.0f, 4.0f};
    static const float b[3] = {2.0f, 0.5f, -1.0f};
    static const float slope[3] = {0.1f, -0.5f, 2.0f};
    float x[12], y[12];
    double ref[12];
    npu_graph *g;
    npu_node *p, *c;
    npu_shape s;
    int i;
    (void)state;
    /* Power: [2,3] ^ [3], numpy broadcasting */
    g = new_graph();
    memset(&s, 0, sizeof s);
    s.rank = 2;
    s.dims[0] = 2;
    s.dims[1] = 3;
    p = npu_graph_parameter(g, "a", NPU_F32, &s, NULL);
    s.rank = 1;
    s.dims[0] = 3;
    c = npu_graph_constant(g, "b", NPU_F32, &s, b, sizeof b);
    npu_graph_result(g, npu_graph_power(g, p, c, NULL), "y");
    for (i = 0; i < 6; i++) ref[i] = pow((double)a[i], (double)b[i % 3]);
    run(g, a, 6, y, 6);
    expect_close(y, ref, 6, 1e-6, "Power");

    /* PRelu: a per-channel slope on [1,3,2,2] */
    g = new_graph();
    s = shape4(1, 3, 2, 2);
    p = npu_graph_parameter(g, "x", NPU_F32, &s, NULL);
    memset(&s, 0, sizeof s);
    s.rank = 1;
    s.dims[0] = 3;
    c = npu_graph_constant(g, "slope", NPU_F32, &s, slope, sizeof slope);
    npu_graph_result(g, npu_graph_prelu(g, p, c, NULL), "y");
    for (i = 0; i < 12; i++) {
        x[i] = (float)(i % 4) - 1.5f + (float)i * 0.1f;
        ref[i] = x[i] >= 0.0f ? (double)x[i] : (double)slope[i / 4] * (double)x[i];
    }
    run(g, x, 12, y, 12);
    expect_close(y, ref, 12, 1e-6, "PRelu");
}

/* ---- Pad ---- */

/* The input index an output index maps to along one axis (Pad-12 spec), or
 * -1 for the pad value. */
static int64_t pad_src(npu_pad_mode mode, int64_t o, int64_t begin, int64_t d)
{
    int64_t i = o - begin;
    if (i >= 0 && i < d) return i;
    switch (mode) {
    case NPU_PAD_MODE_CONSTANT: return -1;
    case NPU_PAD_MODE_EDGE: return i < 0 ? 0 : d - 1;
    case NPU_PAD_MODE_REFLECT: return i < 0 ? -i : 2 * (d - 1) - i;
    default: return i < 0 ? -i - 1 : 2 * d - 1 - i;
    }
}

static void test_pad_modes(void **state)
{
    /* [1,1,3,4]: H padded (2, 1), W padded (1, 3); constant mode also crops */
    static const int64_t begin[4] = {0, 0, 2, 1}, end[4] = {0, 0, 1, 3};
    static const int64_t cbegin[4] = {0, 0, -1, 2}, cend[4] = {0, 0, 1, -2};
    float x[12], y[64];
    double ref[64];
    int mode, i;
    (void)state;
    for (i = 0; i < 12; i++) x[i] = (float)(i + 1) * 1.25f;
    for (mode = 0; mode <= 4; mode++) {
        int crop = mode == 4;
        npu_pad_mode pm = crop ? NPU_PAD_MODE_CONSTANT : (npu_pad_mode)mode;
        const int64_t *b = crop ? cbegin : begin, *e = crop ? cend : end;
        npu_graph *g = new_graph();
        npu_shape s = shape4(1, 1, 3, 4), os;
        npu_node *p = npu_graph_parameter(g, "x", NPU_F32, &s, NULL);
        npu_node *q = npu_graph_pad(g, p, b, e, 4, pm, pm == NPU_PAD_MODE_CONSTANT ? 2.5 : 0.0, NULL);
        int64_t oh = 3 + b[2] + e[2], ow = 4 + b[3] + e[3], h, w;
        assert_non_null(q);
        tu_ok(npu_node_shape(q, &os), "shape");
        assert_int_equal(os.dims[2], oh);
        assert_int_equal(os.dims[3], ow);
        npu_graph_result(g, q, "y");
        for (h = 0; h < oh; h++)
            for (w = 0; w < ow; w++) {
                int64_t sh = pad_src(pm, h, b[2], 3), sw = pad_src(pm, w, b[3], 4);
                ref[h * ow + w] = sh < 0 || sw < 0 ? 2.5 : (double)x[sh * 4 + sw];
            }
        run(g, x, 12, y, (size_t)(oh * ow));
        expect_close(y, ref, (size_t)(oh * ow), 0.0, crop ? "Pad constant (crop)" : "Pad");
    }
}

/* ---- Slice ---- */

/* Python's slice.indices for a step that needs no OpenVINO-specific clamp
 * (the cases below): the indices taken along one axis. */
static int slice_idx(int64_t d, int64_t start, int64_t stop, int64_t step, int64_t *out)
{
    int n = 0;
    int64_t i;
    if (start < 0) start += d;
    if (stop < 0) stop += d;
    if (step > 0) {
        if (start < 0) start = 0;
        if (stop > d) stop = d;
        for (i = start; i < stop; i += step) out[n++] = i;
    } else {
        if (start > d - 1) start = d - 1;
        if (stop < -1) stop = -1;
        for (i = start; i > stop; i += step) out[n++] = i;
    }
    return n;
}

static void test_slice(void **state)
{
    /* x [2,5,6]; axis 2: [-1:0:-2] (backwards), axis 0: [0:9:1] (stop past the
     * end clamps), axis 1 untouched: axes given out of order */
    static const int64_t start[2] = {-1, 0}, stop[2] = {0, 9}, step[2] = {-2, 1}, axes[2] = {2, 0};
    float x[60], y[60];
    double ref[60];
    int64_t i0[8], i2[8];
    int n0, n2, a, b, c, k = 0;
    npu_graph *g = new_graph();
    npu_shape s;
    npu_node *p, *q;
    (void)state;
    memset(&s, 0, sizeof s);
    s.rank = 3;
    s.dims[0] = 2;
    s.dims[1] = 5;
    s.dims[2] = 6;
    p = npu_graph_parameter(g, "x", NPU_F32, &s, NULL);
    q = npu_graph_slice(g, p, start, stop, step, axes, 2, NULL);
    assert_non_null(q);
    npu_graph_result(g, q, "y");
    for (a = 0; a < 60; a++) x[a] = (float)a;
    n2 = slice_idx(6, -1, 0, -2, i2);
    n0 = slice_idx(2, 0, 9, 1, i0);
    assert_int_equal(n2, 3);
    for (a = 0; a < n0; a++)
        for (b = 0; b < 5; b++)
            for (c = 0; c < n2; c++) ref[k++] = (double)x[i0[a] * 30 + b * 6 + i2[c]];
    run(g, x, 60, y, (size_t)k);
    expect_close(y, ref, (size_t)k, 0.0, "Slice");
}

/* ---- Interpolate ---- */

static void test_interpolate(void **state)
{
    /* [1,1,2,3] -> [1,1,4,6]: nearest (asymmetric, floor) by sizes, and
     * linear_onnx (align_corners) by scales 2, 2 */
    static const int64_t axes[2] = {2, 3}, sizes[2] = {4, 6};
    static const float scales[2] = {2.0f, 2.0f};
    float x[6], y[24];
    double ref[24];
    int v, h, w;
    (void)state;
    for (h = 0; h < 6; h++) x[h] = (float)(h * h) * 0.5f - 1.0f;
    for (v = 0; v < 2; v++) {
        npu_interpolate_params ip;
        npu_graph *g = new_graph();
        npu_shape s = shape4(1, 1, 2, 3);
        npu_node *p = npu_graph_parameter(g, "x", NPU_F32, &s, NULL);
        memset(&ip, 0, sizeof ip);
        ip.axes = axes;
        ip.n_axes = 2;
        if (v == 0) {
            ip.mode = NPU_INTERPOLATE_NEAREST;
            ip.coord = NPU_COORD_ASYMMETRIC;
            ip.nearest = NPU_NEAREST_FLOOR;
            ip.sizes = sizes;
        } else {
            ip.mode = NPU_INTERPOLATE_LINEAR_ONNX;
            ip.coord = NPU_COORD_ALIGN_CORNERS;
            ip.scales = scales;
        }
        npu_graph_result(g, npu_graph_interpolate(g, p, &ip, NULL), "y");
        for (h = 0; h < 4; h++)
            for (w = 0; w < 6; w++) {
                if (v == 0) {   /* in = floor(out / scale), scale = out_len / in_len */
                    int sh = (int)floor(h / 2.0), sw = (int)floor(w / 2.0);
                    ref[h * 6 + w] = (double)x[sh * 3 + sw];
                } else {        /* in = out * (in_len - 1) / (out_len - 1), bilinear */
                    double fh = h * 1.0 / 3.0, fw = w * 2.0 / 5.0;
                    int h0 = (int)floor(fh), w0 = (int)floor(fw);
                    int h1 = h0 + 1 < 2 ? h0 + 1 : 1, w1 = w0 + 1 < 3 ? w0 + 1 : 2;
                    double dh = fh - h0, dw = fw - w0;
                    ref[h * 6 + w] = (1 - dh) * ((1 - dw) * x[h0 * 3 + w0] + dw * x[h0 * 3 + w1]) +
                                     dh * ((1 - dw) * x[h1 * 3 + w0] + dw * x[h1 * 3 + w1]);
                }
            }
        run(g, x, 6, y, 24);
        expect_close(y, ref, 24, v == 0 ? 0.0 : 1e-6, v == 0 ? "Interpolate nearest" : "Interpolate linear_onnx");
    }
}

/* ---- FakeQuantize ---- */

/* FakeQuantize-1 spec: x <= min(il, ih) -> ol; x > max(il, ih) -> oh; else
 * round((x - il) / (ih - il) * (levels - 1)) / (levels - 1) * (oh - ol) + ol,
 * round to nearest, ties to even. */
static double fq_ref(double x, double il, double ih, double ol, double oh, unsigned levels)
{
    if (x <= fmin(il, ih)) return ol;
    if (x > fmax(il, ih)) return oh;
    return nearbyint((x - il) / (ih - il) * (levels - 1)) / (levels - 1) * (oh - ol) + ol;
}

static void test_fake_quantize(void **state)
{
    /* per-channel input range [1,2,1,1], per-tensor output range (scalars),
     * 256 levels: what NNCF writes on activations */
    static const float il[2] = {-1.0f, 0.0f}, ih[2] = {1.0f, 4.0f}, ol = -2.0f, oh = 2.0f;
    float x[16], y[16];
    double ref[16];
    npu_graph *g = new_graph();
    npu_shape s = shape4(1, 2, 2, 4), cs = shape4(1, 2, 1, 1), sc;
    npu_node *p, *q;
    int i;
    (void)state;
    memset(&sc, 0, sizeof sc);
    p = npu_graph_parameter(g, "x", NPU_F32, &s, NULL);
    q = npu_graph_fake_quantize(g, p, npu_graph_constant(g, "il", NPU_F32, &cs, il, sizeof il),
                                npu_graph_constant(g, "ih", NPU_F32, &cs, ih, sizeof ih),
                                npu_graph_constant(g, "ol", NPU_F32, &sc, &ol, sizeof ol),
                                npu_graph_constant(g, "oh", NPU_F32, &sc, &oh, sizeof oh), 256, NULL);
    npu_graph_result(g, q, "y");
    for (i = 0; i < 16; i++) {
        x[i] = -1.7f + (float)i * 0.41f;
        ref[i] = fq_ref((double)x[i], il[i / 8], ih[i / 8], ol, oh, 256);
    }
    run(g, x, 16, y, 16);
    expect_close(y, ref, 16, 1e-6, "FakeQuantize");
}

/* ---- the IR text ---- */

static void test_ir_text(void **state)
{
    static const int64_t begin[4] = {0, 0, 1, 1}, end[4] = {0, 0, 1, 1}, st[1] = {0}, sp[1] = {1}, one[1] = {1};
    static const int64_t axes[2] = {2, 3}, sizes[2] = {6, 6};
    static const float slope[1] = {0.25f};
    npu_interpolate_params ip;
    npu_graph *g = new_graph();
    npu_shape s = shape4(1, 3, 4, 4), s1;
    npu_node *p, *t;
    char *xml;
    size_t n = 0;
    (void)state;
    memset(&s1, 0, sizeof s1);
    s1.rank = 1;
    s1.dims[0] = 1;
    memset(&ip, 0, sizeof ip);
    ip.mode = NPU_INTERPOLATE_LINEAR;
    ip.coord = NPU_COORD_HALF_PIXEL;
    ip.axes = axes;
    ip.n_axes = 2;
    ip.sizes = sizes;
    p = npu_graph_parameter(g, "x", NPU_F32, &s, NULL);
    t = npu_graph_gelu(g, p, 1, NULL);
    t = npu_graph_prelu(g, t, npu_graph_constant(g, "slope", NPU_F32, &s1, slope, sizeof slope), NULL);
    t = npu_graph_pad(g, t, begin, end, 4, NPU_PAD_MODE_REFLECT, 0.0, NULL);
    t = npu_graph_slice(g, t, st, sp, one, NULL, 1, NULL);
    t = npu_graph_swish(g, t, 2.0, NULL);
    t = npu_graph_interpolate(g, t, &ip, "up");
    npu_graph_result(g, t, "y");
    tu_ok(npu_graph_status(g), npu_graph_first_error(g));
    tu_ok(npu_graph_write_xml(g, NULL, NULL, 0, &n), "xml size");
    xml = (char *)malloc(n + 1);
    assert_non_null(xml);
    tu_ok(npu_graph_write_xml(g, NULL, xml, n, &n), "xml");
    xml[n] = '\0';
    assert_non_null(strstr(xml, "type=\"Gelu\" version=\"opset7\""));
    assert_non_null(strstr(xml, "approximation_mode=\"TANH\""));
    assert_non_null(strstr(xml, "type=\"PReLU\" version=\"opset1\""));
    assert_non_null(strstr(xml, "type=\"Pad\" version=\"opset12\""));
    assert_non_null(strstr(xml, "pad_mode=\"reflect\""));
    assert_non_null(strstr(xml, "type=\"Slice\" version=\"opset8\""));
    assert_non_null(strstr(xml, "type=\"Swish\" version=\"opset4\""));
    assert_non_null(strstr(xml, "type=\"Interpolate\" version=\"opset11\""));
    assert_non_null(strstr(xml, "mode=\"linear\" shape_calculation_mode=\"sizes\" "
                                "coordinate_transformation_mode=\"half_pixel\" nearest_mode=\"round_prefer_floor\" "
                                "antialias=\"false\" pads_begin=\"0, 0, 0, 0\" pads_end=\"0, 0, 0, 0\" "
                                "cube_coeff=\"-0.75\""));
    free(xml);
    /* pad 1+1 on 4x4, slice [0:1] of axis 0, resize to 6x6 */
    {
        npu_shape os;
        tu_ok(npu_node_shape(t, &os), "shape");
        assert_int_equal(os.rank, 4);
        assert_int_equal(os.dims[0], 1);
        assert_int_equal(os.dims[1], 3);
        assert_int_equal(os.dims[2], 6);
        assert_int_equal(os.dims[3], 6);
    }
}

/* ---- errors: each names the op and undoes it with its Constants ---- */

static void expect_refused(npu_graph *g, npu_node *n, uint32_t nodes, size_t used, const char *needle)
{
    assert_null(n);
    assert_int_not_equal(npu_graph_status(g), NPU_OK);
    if (strstr(npu_graph_first_error(g), needle) == NULL)
        fail_msg("error \"%s\" lacks \"%s\"", npu_graph_first_error(g), needle);
    assert_int_equal(npu_graph_node_count(g), nodes);
    assert_int_equal(npu_graph_bytes_used(g), used);
    npu_graph_clear_status(g);
}

static void test_errors_undo(void **state)
{
    static const int64_t big[4] = {0, 0, 3, 0}, zero[4] = {0, 0, 0, 0}, one[1] = {1}, st0[1] = {0};
    static const int64_t axes[1] = {2}, sizes[1] = {2};
    static const float scales[1] = {2.0f};
    npu_interpolate_params ip;
    npu_graph *g = new_graph();
    npu_shape s = shape4(1, 1, 3, 4), si = shape4(1, 1, 3, 4);
    npu_node *p = npu_graph_parameter(g, "x", NPU_F32, &s, NULL);
    npu_node *pi = npu_graph_parameter(g, "xi", NPU_I32, &si, NULL);
    uint32_t nodes = npu_graph_node_count(g);
    size_t used = npu_graph_bytes_used(g), arena = tu_arena.used;
    (void)state;
    /* reflect by 3 on an axis of 3: the op fails after its two Constants exist */
    expect_refused(g, npu_graph_pad(g, p, big, zero, 4, NPU_PAD_MODE_REFLECT, 0.0, "pr"), nodes, used, "reflect");
    assert_int_equal(tu_arena.used, arena);
    expect_refused(g, npu_graph_pad(g, p, zero, zero, 3, NPU_PAD_MODE_EDGE, 0.0, "p3"), nodes, used, "pads_begin");
    expect_refused(g, npu_graph_pad(g, pi, zero, zero, 4, NPU_PAD_MODE_CONSTANT, 0.5, "pv"), nodes, used,
                   "pad value 0.5");
    expect_refused(g, npu_graph_pad(g, p, zero, zero, 4, (npu_pad_mode)7, 0.0, "pm"), nodes, used, "mode 7");
    expect_refused(g, npu_graph_slice(g, p, st0, one, st0, NULL, 1, "s0"), nodes, used, "step 0 is 0");
    assert_int_equal(tu_arena.used, arena);
    expect_refused(g, npu_graph_slice(g, NULL, st0, one, one, NULL, 1, "sn"), nodes, used, "input 0 is NULL");
    memset(&ip, 0, sizeof ip);
    ip.axes = axes;
    ip.n_axes = 1;
    ip.sizes = sizes;
    ip.scales = scales;
    expect_refused(g, npu_graph_interpolate(g, p, &ip, "i2"), nodes, used, "exactly one of sizes and scales");
    ip.scales = NULL;
    ip.reserved[3] = 1;
    expect_refused(g, npu_graph_interpolate(g, p, &ip, "ir"), nodes, used, "reserved[3]");
    expect_refused(g, npu_graph_hswish(g, pi, "hi"), nodes, used, "f32, f16 or bf16");
    expect_refused(g, npu_graph_swish(g, pi, 2.0, "si"), nodes, used, "f32, f16 or bf16");
    expect_refused(g, npu_graph_fake_quantize(g, p, p, p, p, p, 1, "fq"), nodes, used, "levels 1");
    assert_int_equal(tu_arena.used, arena);
    /* and the graph still builds after the failures */
    assert_non_null(npu_graph_pad(g, p, zero, zero, 4, NPU_PAD_MODE_EDGE, 0.0, "ok"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_activations, tu_dev_setup, tu_dev_teardown),
        cmocka_unit_test_setup_teardown(test_power_and_prelu, tu_dev_setup, tu_dev_teardown),
        cmocka_unit_test_setup_teardown(test_pad_modes, tu_dev_setup, tu_dev_teardown),
        cmocka_unit_test_setup_teardown(test_slice, tu_dev_setup, tu_dev_teardown),
        cmocka_unit_test_setup_teardown(test_interpolate, tu_dev_setup, tu_dev_teardown),
        cmocka_unit_test_setup_teardown(test_fake_quantize, tu_dev_setup, tu_dev_teardown),
        cmocka_unit_test_setup_teardown(test_ir_text, tu_dev_setup, tu_dev_teardown),
        cmocka_unit_test_setup_teardown(test_errors_undo, tu_dev_setup, tu_dev_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
