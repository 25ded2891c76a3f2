/* test_ops_quant.c - the sim compiler's quantization, conversion, reduction,
 * comparison and broadcasting ops (issue 18): each op compiled from IR v11 (one
 * op fed by a Parameter and constants, sim/tests/ir_build.h) and run, against
 * host loops written from OpenVINO's operation specs (fake-quantize-1.rst,
 * convert-1.rst, reduce-*.rst, select-1.rst, broadcast-3.rst, tile-1.rst,
 * log-softmax-5.rst, the comparison ops) in the precision OpenVINO's reference
 * uses; refusals name the layer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/kernels.h"
#include "sim/profile.h"
#include "sim/sim_plan.h"

#include "sim/tests/ir_build.h"

static uint32_t g_seed = 12345u;
static float frand(float lo, float hi) { return frand_next(&g_seed, lo, hi); }

/* ---- FakeQuantize ------------------------------------------------------------------ */

/* Round half to even, written out (the reference's std::nearbyint in the default mode). */
static float half_even(float q)
{
    float f = floorf(q), r = q - f;
    if (r > 0.5f)
        return f + 1.0f;
    if (r < 0.5f)
        return f;
    return fmodf(f, 2.0f) == 0.0f ? f : f + 1.0f;
}

/* fake-quantize-1.rst, in float as the reference evaluates f32. */
static float spec_fq(float x, float il, float ih, float ol, float oh, int levels)
{
    float lo = il < ih ? il : ih, hi = il > ih ? il : ih, L = (float)(levels - 1);
    if (x <= lo)
        return ol;
    if (x > hi)
        return oh;
    float q = (x - il) / (ih - il) * L;
    return half_even(q) / L * (oh - ol) + ol;
}

/* X [2,3,2,2] with limits of shape `ls` ("" scalar, "1,3,1,1" per channel, ...). */
static void fq_case(const char *data, const char *ls, int n_lim, const float *lim[4], int levels,
                    const float *x)
{
    one_op o = {"FakeQuantize", "opset1", data, {"f32", "FP32", "2,3,2,2", NULL, 0}, {{0}}, 4};
    for (int k = 0; k < 4; k++) {
        o.more[k].et = "f32";
        o.more[k].prec = "FP32";
        o.more[k].shape = ls;
        o.more[k].data = lim[k];
        o.more[k].size = (size_t)n_lim * 4;
    }
    float y[24];
    void *args[2] = {(void *)(uintptr_t)x, y};
    const uint64_t d[4] = {2, 3, 2, 2};
    one_op_run(&o, args, 4, d);
    for (int i = 0; i < 24; i++) {
        int ch = (i / 4) % 3, k = n_lim == 3 ? ch : 0;
        float want = spec_fq(x[i], lim[0][k], lim[1][k], lim[2][k], lim[3][k], levels);
        if (memcmp(&want, &y[i], 4) != 0)
            fail_msg("FakeQuantize levels %d, x %.9g (channel %d): got %.9g, expected %.9g", levels,
                     (double)x[i], ch, (double)y[i], (double)want);
    }
}

static void test_fake_quantize_follows_the_spec_per_tensor_and_per_channel(void **state)
{
    (void)state;
    float x[24];
    for (int i = 0; i < 24; i++)
        x[i] = frand(-3.0f, 3.0f);
    x[0] = -10.0f;  /* below the range */
    x[1] = 10.0f;   /* above it */
    x[2] = 0.0f;
    /* NNCF's u8 activation pattern: [0, 2.55] onto 0..255 steps */
    const float u_il = 0.0f, u_ih = 2.55f, u_ol = 0.0f, u_oh = 2.55f;
    const float *u[4] = {&u_il, &u_ih, &u_ol, &u_oh};
    fq_case("levels=\"256\" auto_broadcast=\"numpy\"", "", 1, u, 256, x);
    /* its i8 (symmetric) pattern, with 1-element limits of rank 4 */
    const float s_il = -1.28f, s_ih = 1.27f, s_ol = -1.28f, s_oh = 1.27f;
    const float *sy[4] = {&s_il, &s_ih, &s_ol, &s_oh};
    fq_case("levels=\"256\"", "1,1,1,1", 1, sy, 256, x);
    /* levels 255 onto an integer grid -127..127 (weights) */
    const float w_il = -2.0f, w_ih = 2.0f, w_ol = -127.0f, w_oh = 127.0f;
    const float *w[4] = {&w_il, &w_ih, &w_ol, &w_oh};
    fq_case("levels=\"255\"", "", 1, w, 255, x);
    /* per channel [1,3,1,1], one inverted range (input_low > input_high) */
    const float il[3] = {-1.0f, 0.0f, 1.5f}, ih[3] = {1.0f, 2.0f, -1.5f};
    const float ol[3] = {-1.0f, 0.0f, 3.0f}, oh[3] = {1.0f, 4.0f, -3.0f};
    const float *pc[4] = {il, ih, ol, oh};
    fq_case("levels=\"16\"", "1,3,1,1", 3, pc, 16, x);
    fq_case("levels=\"2\"", "3,1,1", 3, pc, 2, x);   /* binarization, limits of rank 3 */
    /* exact ties: levels 5 over [0, 4] makes q = x; x = 0.5, 1.5, 2.5 round to even */
    float t[24];
    for (int i = 0; i < 24; i++)
        t[i] = (float)(i % 9) * 0.5f;
    const float a0 = 0.0f, a4 = 4.0f;
    const float *tie[4] = {&a0, &a4, &a0, &a4};
    fq_case("levels=\"5\"", "", 1, tie, 5, t);
    assert_true(spec_fq(2.5f, 0.0f, 4.0f, 0.0f, 4.0f, 5) == 2.0f);
    assert_true(spec_fq(1.5f, 0.0f, 4.0f, 0.0f, 4.0f, 5) == 2.0f);
}

static void test_fake_quantize_limits_computed_and_refusals(void **state)
{
    (void)state;
    /* limits as Parameters (computed at run time), auto_broadcast none */
    one_op o = {"FakeQuantize", "opset1", "levels=\"256\" auto_broadcast=\"none\"",
                {"f32", "FP32", "4", NULL, 0},
                {{"f32", "FP32", "4", NULL, 0}, {"f32", "FP32", "4", NULL, 0},
                 {"f32", "FP32", "4", NULL, 0}, {"f32", "FP32", "4", NULL, 0}}, 4};
    float x[4] = {0.3f, -0.7f, 5.0f, 0.51f}, il[4] = {0, -1, 0, 0}, ih[4] = {1, 1, 1, 1},
          ol[4] = {0, -2, 0, 0}, oh[4] = {1, 2, 255, 1}, y[4];
    void *args[6] = {x, il, ih, ol, oh, y};
    const uint64_t d[1] = {4};
    one_op_run(&o, args, 1, d);
    for (int i = 0; i < 4; i++)
        assert_true(y[i] == spec_fq(x[i], il[i], ih[i], ol[i], oh[i], 256));
    /* f16 data and limits: the f32 result rounded to f16 at the edge */
    uint16_t xh[4], lh[4][4], yh[4];
    for (int i = 0; i < 4; i++) {
        xh[i] = sim_f32_to_f16(x[i]);
        lh[0][i] = sim_f32_to_f16(il[i]);
        lh[1][i] = sim_f32_to_f16(ih[i]);
        lh[2][i] = sim_f32_to_f16(ol[i]);
        lh[3][i] = sim_f32_to_f16(oh[i]);
    }
    one_op h = {"FakeQuantize", "opset1", "levels=\"256\"", {"f16", "FP16", "4", NULL, 0},
                {{"f16", "FP16", "4", lh[0], 8}, {"f16", "FP16", "4", lh[1], 8},
                 {"f16", "FP16", "4", lh[2], 8}, {"f16", "FP16", "4", lh[3], 8}}, 4};
    void *argh[2] = {xh, yh};
    one_op_run(&h, argh, 1, d);
    for (int i = 0; i < 4; i++) {
        float w = spec_fq(sim_f16_to_f32(xh[i]), sim_f16_to_f32(lh[0][i]), sim_f16_to_f32(lh[1][i]),
                          sim_f16_to_f32(lh[2][i]), sim_f16_to_f32(lh[3][i]), 256);
        assert_int_equal(yh[i], sim_f32_to_f16(w));
    }
    /* refusals, each naming the layer */
    const float one = 1.0f, two[2] = {0, 1};
    one_op bad = {"FakeQuantize", "opset1", "levels=\"1\"", {"f32", "FP32", "2,3", NULL, 0},
                  {{"f32", "FP32", "", &one, 4}, {"f32", "FP32", "", &one, 4},
                   {"f32", "FP32", "", &one, 4}, {"f32", "FP32", "", &one, 4}}, 4};
    one_op_fail(&bad, "levels=1 is not supported");
    bad.data = NULL;
    one_op_fail(&bad, "levels=-1");
    bad.data = "levels=\"256\"";
    bad.more[2].shape = "2";
    bad.more[2].data = two;
    bad.more[2].size = 8;
    one_op_fail(&bad, "output_low [2] does not broadcast onto X [2,3]");
    bad.more[2] = bad.more[1];
    bad.data = "levels=\"256\" auto_broadcast=\"pdpd\"";
    one_op_fail(&bad, "unsupported auto_broadcast=\"pdpd\"");
    const int32_t xi = 1;
    bad.data = "levels=\"256\"";
    bad.more[0].et = "i32";
    bad.more[0].prec = "I32";
    bad.more[0].data = &xi;
    one_op_fail(&bad, "input 1 (input_low) of element type I32 is not supported");
}

/* ---- Convert -------------------------------------------------------------------------- */

static void test_convert_truncates_and_wraps_between_integers(void **state)
{
    (void)state;
    const uint64_t d[1] = {8};
    /* f32 -> i8: static_cast truncates toward zero */
    float xf[8] = {1.7f, -1.7f, 0.5f, -0.5f, 126.9f, -127.9f, 2.0f, -0.0f};
    int8_t yi8[8];
    one_op c1 = {"Convert", "opset1", "destination_type=\"i8\"", {"f32", "FP32", "8", NULL, 0}, {{0}}, 0};
    void *a1[2] = {xf, yi8};
    one_op_run(&c1, a1, 1, d);
    for (int i = 0; i < 8; i++)
        assert_int_equal(yi8[i], (int8_t)truncf(xf[i]));
    /* f32 -> u8 */
    float xu[8] = {0.0f, 0.99f, 1.0f, 254.5f, 255.0f, 37.2f, 128.6f, 3.999f};
    uint8_t yu8[8];
    one_op c2 = {"Convert", "opset1", "destination_type=\"u8\"", {"f32", "FP32", "8", NULL, 0}, {{0}}, 0};
    void *a2[2] = {xu, yu8};
    one_op_run(&c2, a2, 1, d);
    for (int i = 0; i < 8; i++)
        assert_int_equal(yu8[i], (uint8_t)truncf(xu[i]));
    /* integer -> integer: C++'s static_cast keeps the value modulo 2^bits */
    const int32_t xi[8] = {200, -56, 255, 256, -1, -129, 127, 70000};
    int8_t wi8[8];
    uint8_t wu8[8];
    one_op c3 = {"Convert", "opset1", "destination_type=\"i8\"", {"i32", "I32", "8", NULL, 0}, {{0}}, 0};
    void *a3[2] = {(void *)(uintptr_t)xi, wi8};
    one_op_run(&c3, a3, 1, d);
    one_op c4 = {"Convert", "opset1", "destination_type=\"u8\"", {"i32", "I32", "8", NULL, 0}, {{0}}, 0};
    void *a4[2] = {(void *)(uintptr_t)xi, wu8};
    one_op_run(&c4, a4, 1, d);
    for (int i = 0; i < 8; i++) {
        uint32_t m = (uint32_t)xi[i] & 0xffu;
        assert_int_equal(wu8[i], m);
        assert_int_equal(wi8[i], m >= 128 ? (int)m - 256 : (int)m);
    }
    /* u8 -> i8: 200 -> -56 */
    const uint8_t cu[8] = {0, 1, 127, 128, 200, 255, 64, 129};
    int8_t ci[8];
    one_op c6 = {"Convert", "opset1", "destination_type=\"i8\"", {"u8", "U8", "8", NULL, 0}, {{0}}, 0};
    void *a6[2] = {(void *)(uintptr_t)cu, ci};
    one_op_run(&c6, a6, 1, d);
    for (int i = 0; i < 8; i++)
        assert_int_equal(ci[i], cu[i] >= 128 ? (int)cu[i] - 256 : (int)cu[i]);
    /* -> boolean: static_cast<bool>, non-zero (NaN included) is true */
    float xb[8] = {0.0f, -0.0f, 0.1f, -3.0f, NAN, 1.0f, 0.0f, INFINITY};
    uint8_t yb[8];
    one_op c7 = {"Convert", "opset1", "destination_type=\"boolean\"", {"f32", "FP32", "8", NULL, 0},
                 {{0}}, 0};
    void *a7[2] = {xb, yb};
    one_op_run(&c7, a7, 1, d);
    const uint8_t wb[8] = {0, 0, 1, 1, 1, 1, 0, 1};
    assert_memory_equal(yb, wb, 8);
    /* f32 -> f16 rounds to nearest even, overflows to inf */
    float xh[8] = {1.0f + 1.0f / 2048.0f, 1.0f + 3.0f / 2048.0f, 65504.0f, 1e-8f, -2.5f, 70000.0f, 0.1f,
                   -0.0f};
    uint16_t yh16[8];
    one_op c8 = {"Convert", "opset1", "destination_type=\"f16\"", {"f32", "FP32", "8", NULL, 0}, {{0}}, 0};
    void *a8[2] = {xh, yh16};
    one_op_run(&c8, a8, 1, d);
    assert_int_equal(yh16[0], 0x3c00);   /* tie: to even (1.0) */
    assert_int_equal(yh16[1], 0x3c02);   /* tie: to even (1 + 2/1024) */
    assert_int_equal(yh16[2], 0x7bff);
    assert_int_equal(yh16[5], 0x7c00);   /* overflow: inf */
    assert_int_equal(yh16[7], 0x8000);
}

/* ---- reductions ------------------------------------------------------------------------ */

static void red_ref(const char *type, const float *x, const int *dims, uint32_t mask, float *y)
{
    int od[3];
    for (int i = 0; i < 3; i++)
        od[i] = (mask >> i) & 1u ? 1 : dims[i];
    int n = od[0] * od[1] * od[2];
    for (int o = 0; o < n; o++)
        y[o] = !strcmp(type, "ReduceMax") ? -FLT_MAX : !strcmp(type, "ReduceMin") ? FLT_MAX
               : !strcmp(type, "ReduceProd") ? 1.0f : 0.0f;
    for (int a = 0; a < dims[0]; a++)
        for (int b = 0; b < dims[1]; b++)
            for (int c = 0; c < dims[2]; c++) {
                float v = x[(a * dims[1] + b) * dims[2] + c];
                int oa = od[0] == 1 ? 0 : a, ob = od[1] == 1 ? 0 : b, oc = od[2] == 1 ? 0 : c;
                float *t = &y[(oa * od[1] + ob) * od[2] + oc];
                if (!strcmp(type, "ReduceMax"))
                    *t = v > *t ? v : *t;
                else if (!strcmp(type, "ReduceMin"))
                    *t = v < *t ? v : *t;
                else if (!strcmp(type, "ReduceProd"))
                    *t *= v;
                else
                    *t += v * v;
            }
    if (!strcmp(type, "ReduceL2"))
        for (int o = 0; o < n; o++)
            y[o] = sqrtf(y[o]);
}

static void test_reduce_max_min_prod_l2_follow_the_spec(void **state)
{
    (void)state;
    static const char *const types[4] = {"ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2"};
    static const struct {
        const char *axes_shape;
        int n;
        int64_t axes[3];
        uint32_t mask;
    } ax[] = {
        {"1", 1, {1}, 2u}, {"2", 2, {0, -1}, 5u}, {"3", 3, {2, 0, 1}, 7u}, {"1", 1, {-3}, 1u},
        {"0", 0, {0}, 0u},
    };
    const int dims[3] = {2, 3, 4};
    float x[24];
    for (int i = 0; i < 24; i++)
        x[i] = frand(-2.0f, 2.0f);
    x[5] = NAN;   /* ReduceMax/Min keep std::max(out, x): a NaN never wins */
    for (int t = 0; t < 4; t++)
        for (size_t a = 0; a < sizeof ax / sizeof ax[0]; a++)
            for (int keep = 0; keep < 2; keep++) {
                char data[64];
                snprintf(data, sizeof data, "keep_dims=\"%s\"", keep ? "true" : "false");
                one_op o = {types[t], t == 3 ? "opset4" : "opset1", data, {"f32", "FP32", "2,3,4", NULL, 0},
                            {{"i64", "I64", ax[a].axes_shape, ax[a].axes, (size_t)ax[a].n * 8}}, 1};
                float y[24], want[24];
                uint64_t od[3];
                uint32_t r = 0;
                for (int i = 0; i < 3; i++) {
                    if (!((ax[a].mask >> i) & 1u))
                        od[r++] = (uint64_t)dims[i];
                    else if (keep)
                        od[r++] = 1;
                }
                float xv[24];
                memcpy(xv, x, sizeof x);
                if (t >= 2)
                    xv[5] = 0.5f;   /* NaN propagates through Prod and L2 alike */
                void *args[2] = {xv, y};
                one_op_run(&o, args, r, od);
                red_ref(types[t], xv, dims, ax[a].mask, want);
                int n = 1;
                for (uint32_t i = 0; i < r; i++)
                    n *= (int)od[i];
                for (int i = 0; i < n; i++)
                    if (!(y[i] == want[i] || fabsf(y[i] - want[i]) <= 1e-6f * fabsf(want[i])))
                        fail_msg("%s axes %zu keep %d elem %d: got %.9g, expected %.9g", types[t], a, keep, i,
                                 (double)y[i], (double)want[i]);
            }
    /* integer ReduceMax and ReduceProd; ReduceL2 of integers is refused */
    const int32_t xi[6] = {3, -7, 2, 9, -1, 4};
    int32_t yi[2];
    const int64_t a1 = 1;
    const uint64_t d2[1] = {2};
    one_op m = {"ReduceProd", "opset1", NULL, {"i32", "I32", "2,3", NULL, 0}, {{"i64", "I64", "1", &a1, 8}}, 1};
    void *args[2] = {(void *)(uintptr_t)xi, yi};
    one_op_run(&m, args, 1, d2);
    assert_int_equal(yi[0], -42);
    assert_int_equal(yi[1], -36);
    m.type = "ReduceMax";
    one_op_run(&m, args, 1, d2);
    assert_int_equal(yi[0], 3);
    assert_int_equal(yi[1], 9);
    m.type = "ReduceL2";
    m.ver = "opset4";
    one_op_fail(&m, "ReduceL2 of element type I32 is not supported");
    m.ver = "opset3";
    one_op_fail(&m, "unsupported op ReduceL2-opset3");
}

/* ---- comparisons and Select -------------------------------------------------------------- */

static void test_comparisons_give_booleans_and_select_broadcasts(void **state)
{
    (void)state;
    static const char *const types[6] = {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"};
    float a[6] = {1.0f, 2.0f, NAN, -1.0f, 3.0f, 0.0f};
    const float b[2] = {2.0f, -0.0f};   /* [2,1] onto [2,3] */
    const uint64_t d23[2] = {2, 3};
    for (int t = 0; t < 6; t++) {
        one_op o = {types[t], "opset1", NULL, {"f32", "FP32", "2,3", NULL, 0}, {{"f32", "FP32", "2,1", b, 8}}, 1};
        uint8_t y[6];
        void *args[2] = {a, y};
        one_op_run(&o, args, 2, d23);
        for (int i = 0; i < 6; i++) {
            float p = a[i], q = b[i / 3];
            int w = t == 0 ? p == q : t == 1 ? p != q : t == 2 ? p < q : t == 3 ? p <= q : t == 4 ? p > q : p >= q;
            if (y[i] != w)
                fail_msg("%s(%g, %g): got %d, expected %d", types[t], (double)p, (double)q, y[i], w);
        }
    }
    one_op mixed = {"Less", "opset1", NULL, {"f32", "FP32", "2,3", NULL, 0},
                    {{"i32", "I32", "2,1", b, 8}}, 1};
    one_op_fail(&mixed, "arguments do not have the same element type");

    /* Select: cond [3] (Parameter), then [2,1] constant, else [2,3] Parameter */
    const float th[2] = {10.0f, 20.0f};
    one_op s = {"Select", "opset1", NULL, {"boolean", "BOOL", "3", NULL, 0},
                {{"f32", "FP32", "2,1", th, 8}, {"f32", "FP32", "2,3", NULL, 0}}, 2};
    uint8_t cnd[3] = {1, 0, 1};
    float el[6] = {-1, -2, -3, -4, -5, -6}, y[6];
    void *args[3] = {cnd, el, y};
    one_op_run(&s, args, 2, d23);
    for (int i = 0; i < 6; i++)
        assert_true(y[i] == (cnd[i % 3] ? th[i / 3] : el[i]));
    s.x.et = "f32";
    s.x.prec = "FP32";
    one_op_fail(&s, "argument 0 must have boolean element type");
}

/* ---- Broadcast, Tile, LogSoftmax ------------------------------------------------------------ */

static void test_broadcast_modes_and_tile(void **state)
{
    (void)state;
    float x[3] = {1.0f, 2.0f, 3.0f}, y[24];
    /* numpy: [3] -> [2,2,3] */
    const int64_t t223[3] = {2, 2, 3};
    one_op b = {"Broadcast", "opset3", NULL, {"f32", "FP32", "3", NULL, 0}, {{"i64", "I64", "3", t223, 24}}, 1};
    void *args[2] = {x, y};
    const uint64_t d223[3] = {2, 2, 3};
    one_op_run(&b, args, 3, d223);
    for (int i = 0; i < 12; i++)
        assert_true(y[i] == x[i % 3]);
    /* explicit: [3] onto axis 1 of [2,3,2] */
    const int64_t t232[3] = {2, 3, 2}, am[1] = {1};
    one_op e = {"Broadcast", "opset1", "mode=\"explicit\"", {"f32", "FP32", "3", NULL, 0},
                {{"i64", "I64", "3", t232, 24}, {"i64", "I64", "1", am, 8}}, 2};
    const uint64_t d232[3] = {2, 3, 2};
    one_op_run(&e, args, 3, d232);
    for (int i = 0; i < 12; i++)
        assert_true(y[i] == x[(i / 2) % 3]);
    /* bidirectional: [3,1] with target [1,4] -> [3,4] (data [3] viewed as given) */
    float xc[3] = {5, 6, 7};
    const int64_t t14[2] = {1, 4};
    one_op bi = {"Broadcast", "opset3", "mode=\"bidirectional\"", {"f32", "FP32", "3,1", NULL, 0},
                 {{"i64", "I64", "2", t14, 16}}, 1};
    void *argb[2] = {xc, y};
    const uint64_t d34[2] = {3, 4};
    one_op_run(&bi, argb, 2, d34);
    for (int i = 0; i < 12; i++)
        assert_true(y[i] == xc[i / 4]);
    /* numpy refuses a target smaller than the data, bidirectional needs opset3 */
    const int64_t t1[1] = {1};
    one_op bad = {"Broadcast", "opset3", NULL, {"f32", "FP32", "3", NULL, 0}, {{"i64", "I64", "1", t1, 8}}, 1};
    one_op_fail(&bad, "Broadcast (numpy) of data [3] to target [1] is not possible");
    bad.data = "mode=\"bidirectional\"";
    bad.ver = "opset1";
    one_op_fail(&bad, "Broadcast mode bidirectional is not supported before opset3");

    /* Tile: [2,3] by repeats [2,1,2] -> [2,2,6]: out[a][b][c] = x[b][c % 3] */
    float xt[6] = {1, 2, 3, 4, 5, 6};
    const int64_t rep[3] = {2, 1, 2};
    one_op t = {"Tile", "opset1", NULL, {"f32", "FP32", "2,3", NULL, 0}, {{"i64", "I64", "3", rep, 24}}, 1};
    void *argt[2] = {xt, y};
    const uint64_t d226[3] = {2, 2, 6};
    one_op_run(&t, argt, 3, d226);
    for (int a = 0; a < 2; a++)
        for (int bb = 0; bb < 2; bb++)
            for (int c = 0; c < 6; c++)
                assert_true(y[(a * 2 + bb) * 6 + c] == xt[bb * 3 + c % 3]);
    /* repeats shorter than the rank: [3] on [2,3] -> [2,9] */
    const int64_t rep3[1] = {3};
    one_op t2 = {"Tile", "opset1", NULL, {"f32", "FP32", "2,3", NULL, 0}, {{"i64", "I64", "1", rep3, 8}}, 1};
    const uint64_t d29[2] = {2, 9};
    one_op_run(&t2, argt, 2, d29);
    for (int i = 0; i < 18; i++)
        assert_true(y[i] == xt[(i / 9) * 3 + (i % 9) % 3]);
}

static void test_log_softmax_follows_the_spec(void **state)
{
    (void)state;
    float x[24], y[24];
    for (int i = 0; i < 24; i++)
        x[i] = frand(-5.0f, 5.0f);
    const uint64_t d[3] = {2, 3, 4};
    for (int axis = -3; axis < 3; axis++) {
        char data[32];
        snprintf(data, sizeof data, "axis=\"%d\"", axis);
        one_op o = {"LogSoftmax", "opset5", data, {"f32", "FP32", "2,3,4", NULL, 0}, {{0}}, 0};
        void *args[2] = {x, y};
        one_op_run(&o, args, 3, d);
        int ax = axis < 0 ? axis + 3 : axis;
        const int dims[3] = {2, 3, 4}, st[3] = {12, 4, 1};
        for (int i = 0; i < 24; i++) {
            int base = i - ((i / st[ax]) % dims[ax]) * st[ax];
            double s = 0;
            for (int k = 0; k < dims[ax]; k++)
                s += exp((double)x[base + k * st[ax]]);
            double want = (double)x[i] - log(s);
            if (fabs(y[i] - want) > 1e-5 * (1 + fabs(want)))
                fail_msg("LogSoftmax axis %d elem %d: got %.9g, expected %.9g", axis, i, (double)y[i], want);
        }
    }
    one_op bad = {"LogSoftmax", "opset5", "axis=\"3\"", {"f32", "FP32", "2,3,4", NULL, 0}, {{0}}, 0};
    one_op_fail(&bad, "axis 3 is out of range for rank 3");
}

/* What the sim does not compile yet is refused with the layer and the op named. */
static void test_unsupported_ops_name_the_layer_and_the_op(void **state)
{
    (void)state;
    one_op nms = {"NonMaxSuppression", "opset9", NULL, {"f32", "FP32", "2,3", NULL, 0}, {{0}}, 0};
    one_op_fail(&nms, "unsupported op NonMaxSuppression-opset9");
    one_op topk = {"TopK", "opset1", NULL, {"f32", "FP32", "2,3", NULL, 0}, {{0}}, 0};
    one_op_fail(&topk, "unsupported op TopK-opset1");
    one_op lsm = {"LogSoftmax", "opset4", NULL, {"f32", "FP32", "2,3", NULL, 0}, {{0}}, 0};
    one_op_fail(&lsm, "unsupported op LogSoftmax-opset4");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_fake_quantize_follows_the_spec_per_tensor_and_per_channel, default_profile),
        cmocka_unit_test_setup(test_fake_quantize_limits_computed_and_refusals, default_profile),
        cmocka_unit_test_setup(test_convert_truncates_and_wraps_between_integers, default_profile),
        cmocka_unit_test_setup(test_reduce_max_min_prod_l2_follow_the_spec, default_profile),
        cmocka_unit_test_setup(test_comparisons_give_booleans_and_select_broadcasts, default_profile),
        cmocka_unit_test_setup(test_broadcast_modes_and_tile, default_profile),
        cmocka_unit_test_setup(test_log_softmax_follows_the_spec, default_profile),
        cmocka_unit_test_setup(test_unsupported_ops_name_the_layer_and_the_op, default_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
