/* test_ops_norm.c - the sim compiler's normalizations, TopK, ReduceL1 and
 * transposed convolutions (issue 18): each op compiled from IR v11 (one op fed by
 * a Parameter and constants, sim/tests/ir_build.h) and run, against host loops
 * written from OpenVINO's operation specs (mvn-1.rst, mvn-6.rst,
 * normalize-l2-1.rst, top-k-3.rst, top-k-11.rst, reduce-l1-4.rst,
 * convolution-backprop-data-1.rst, group-convolution-backprop-data-1.rst), the
 * sums in double; the edge attributes included; refusals name the layer.
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

static uint32_t g_seed = 4242u;
static float frand(float lo, float hi) { return frand_next(&g_seed, lo, hi); }

/* Row-major index of coordinate c in dims d (rank r). */
static size_t at(const int64_t *c, const int64_t *d, int r)
{
    size_t k = 0;
    for (int i = 0; i < r; i++)
        k = k * (size_t)d[i] + (size_t)c[i];
    return k;
}

/* Advances coordinate c over dims d; 0 after the last one. */
static int next_coord(int64_t *c, const int64_t *d, int r)
{
    for (int i = r - 1; i >= 0; i--) {
        if (++c[i] < d[i])
            return 1;
        c[i] = 0;
    }
    return 0;
}

/* mean over the axes in mask of the values f(x) in the group of coordinate c */
static double group_mean(const float *x, const int64_t *d, int r, uint32_t mask, const int64_t *c, double sub,
                         int square, int *count)
{
    int64_t q[8] = {0};
    double s = 0;
    int n = 0;
    do {
        int same = 1;
        for (int i = 0; i < r; i++)
            if (!(mask & (1u << i)) && q[i] != c[i])
                same = 0;
        if (!same)
            continue;
        double v = (double)x[at(q, d, r)] - sub;
        s += square ? v * v : v;
        n++;
    } while (next_coord(q, d, r));
    *count = n;
    return s;
}

/* ---- MVN ------------------------------------------------------------------------- */

/* mvn-6.rst: y = (x - mean) / sqrt(var + eps) (inside_sqrt) or / (sqrt(var) + eps)
 * (outside_sqrt), var = mean((x - mean)^2) over the axes; only x - mean when
 * normalize_variance is false. */
static void spec_mvn(const float *x, const int64_t *d, int r, uint32_t mask, int nv, double eps, int inside,
                     float *y)
{
    int64_t c[8] = {0};
    do {
        int n;
        double mean = group_mean(x, d, r, mask, c, 0.0, 0, &n) / n;
        double v = (double)x[at(c, d, r)] - mean;
        if (nv) {
            double var = group_mean(x, d, r, mask, c, mean, 1, &n) / n;
            v /= inside ? sqrt(var + eps) : sqrt(var) + eps;
        }
        y[at(c, d, r)] = (float)v;
    } while (next_coord(c, d, r));
}

static void mvn6_case(const char *data, const int64_t *axes, int n_axes, uint32_t mask, int nv, double eps,
                      int inside, const float *x, float *want)
{
    const int64_t d[4] = {2, 3, 4, 5};
    one_op o = {"MVN", "opset6", data, {"f32", "FP32", "2,3,4,5", NULL, 0},
                {{"i64", "I64", "", axes, 8}}, 1};
    char shape[8];
    snprintf(shape, sizeof shape, "%d", n_axes);
    o.more[0].shape = shape;
    o.more[0].size = (size_t)n_axes * 8;
    float y[120];
    void *args[2] = {(void *)(uintptr_t)x, y};
    const uint64_t od[4] = {2, 3, 4, 5};
    one_op_run(&o, args, 4, od);
    spec_mvn(x, d, 4, mask, nv, eps, inside, want);
    assert_close(y, want, 120, 2e-5f);
}

static void test_mvn6_follows_the_spec_axes_and_eps_modes(void **state)
{
    (void)state;
    float x[120], a[120], b[120];
    for (int i = 0; i < 120; i++)
        x[i] = frand(-2.0f, 3.0f) + (float)(i % 7) * 0.1f;
    const int64_t hw[2] = {2, 3}, chw[3] = {1, 2, 3}, last[1] = {-1}, neg[2] = {-3, 0};
    mvn6_case("normalize_variance=\"true\" eps=\"1e-9\" eps_mode=\"inside_sqrt\"", hw, 2, 0xCu, 1, 1e-9, 1, x, a);
    /* a large eps tells the two modes apart */
    mvn6_case("normalize_variance=\"true\" eps=\"0.5\" eps_mode=\"inside_sqrt\"", chw, 3, 0xEu, 1, 0.5, 1, x, a);
    mvn6_case("normalize_variance=\"true\" eps=\"0.5\" eps_mode=\"OUTSIDE_SQRT\"", chw, 3, 0xEu, 1, 0.5, 0, x, b);
    int differ = 0;
    for (int i = 0; i < 120; i++)
        differ += fabsf(a[i] - b[i]) > 1e-3f * (1.0f + fabsf(a[i]));
    assert_true(differ > 60);
    /* one negative axis as a 1-element list; mean only */
    mvn6_case("normalize_variance=\"false\" eps=\"1e-5\" eps_mode=\"inside_sqrt\"", last, 1, 0x8u, 0, 1e-5, 1, x, a);
    mvn6_case("normalize_variance=\"true\" eps=\"1e-5\" eps_mode=\"outside_sqrt\"", neg, 2, 0x3u, 1, 1e-5, 0, x, a);

    /* i32 axes, a scalar axis, f16 data */
    const int32_t ax32 = 1;
    uint16_t xh[12], yh[12];
    float xf[12], wf[12];
    for (int i = 0; i < 12; i++) {
        xh[i] = sim_f32_to_f16(frand(-1.0f, 1.0f));
        xf[i] = sim_f16_to_f32(xh[i]);
    }
    one_op h = {"MVN", "opset6", "normalize_variance=\"true\" eps=\"1e-6\" eps_mode=\"inside_sqrt\"",
                {"f16", "FP16", "3,4", NULL, 0}, {{"i32", "I32", "", &ax32, 4}}, 1};
    void *args[2] = {xh, yh};
    const uint64_t d34[2] = {3, 4};
    one_op_run(&h, args, 2, d34);
    const int64_t dd[2] = {3, 4};
    spec_mvn(xf, dd, 2, 0x2u, 1, 1e-6, 1, wf);
    for (int i = 0; i < 12; i++)
        assert_true(fabsf(sim_f16_to_f32(yh[i]) - wf[i]) <= 2e-3f * (1.0f + fabsf(wf[i])));
}

static void test_mvn1_across_channels_reduction_axes_and_defaults(void **state)
{
    (void)state;
    float x[120], y[120], want[120];
    for (int i = 0; i < 120; i++)
        x[i] = frand(-1.0f, 4.0f);
    const int64_t d[4] = {2, 3, 4, 5};
    const uint64_t od[4] = {2, 3, 4, 5};
    void *args[2] = {x, y};
    struct {
        const char *data;
        uint32_t mask;
        int nv;
        double eps;
    } cases[] = {
        {"across_channels=\"false\" normalize_variance=\"true\" eps=\"1e-9\"", 0xCu, 1, 1e-9},
        {"across_channels=\"true\" normalize_variance=\"true\" eps=\"0.25\"", 0xEu, 1, 0.25},
        {"eps=\"1e-9\"", 0xCu, 0, 1e-9},   /* both booleans default to false */
        {"reduction_axes=\"1,3\" across_channels=\"false\" normalize_variance=\"true\" eps=\"1e-4\"", 0xAu, 1, 1e-4},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        one_op o = {"MVN", "opset2", cases[k].data, {"f32", "FP32", "2,3,4,5", NULL, 0}, {{0}}, 0};
        one_op_run(&o, args, 4, od);
        spec_mvn(x, d, 4, cases[k].mask, cases[k].nv, cases[k].eps, 1, want);
        assert_close(y, want, 120, 2e-5f);
    }
}

static void test_mvn_refusals_name_the_layer(void **state)
{
    (void)state;
    const int64_t ax[2] = {1, 1}, big = 4;
    one_op o = {"MVN", "opset6", "normalize_variance=\"true\" eps=\"1e-9\"", {"f32", "FP32", "2,3,4", NULL, 0},
                {{"i64", "I64", "1", &big, 8}}, 1};
    one_op_fail(&o, "MVN-6 needs the attributes normalize_variance, eps and eps_mode");
    o.data = "normalize_variance=\"true\" eps=\"1e-9\" eps_mode=\"both\"";
    one_op_fail(&o, "attribute eps_mode=\"both\" is not one of inside_sqrt, outside_sqrt");
    o.data = "normalize_variance=\"true\" eps=\"1e-9\" eps_mode=\"inside_sqrt\"";
    one_op_fail(&o, "axis 4 is out of range for rank 3");
    o.more[0].shape = "2";
    o.more[0].data = ax;
    o.more[0].size = 16;
    one_op_fail(&o, "MVN axes repeat axis 1");
    one_op oi = {"MVN", "opset6", o.data, {"i32", "I32", "2,3", NULL, 0}, {{"i64", "I64", "1", &big, 8}}, 1};
    one_op_fail(&oi, "MVN of element type I32 is not supported");
    one_op o1 = {"MVN", "opset1", "normalize_variance=\"true\"", {"f32", "FP32", "2,3,4", NULL, 0}, {{0}}, 0};
    one_op_fail(&o1, "attribute eps is missing");
    o1.data = "eps=\"1e-9\" reduction_axes=\"1,1\"";
    one_op_fail(&o1, "MVN reduction_axes=\"1,1\" must list distinct axes of rank 3");
    one_op o2 = {"MVN", "opset1", "eps=\"1e-9\"", {"f32", "FP32", "2,3", NULL, 0}, {{0}}, 0};
    one_op_fail(&o2, "across_channels=false needs rank 3 or more");
}

/* ---- NormalizeL2 ------------------------------------------------------------------ */

/* normalize-l2-1.rst: x / sqrt(sum(x^2) + eps) (add) or / sqrt(max(sum, eps)) (max). */
static void spec_l2(const float *x, const int64_t *d, int r, uint32_t mask, double eps, int max_mode, float *y)
{
    int64_t c[8] = {0};
    do {
        int n;
        double s = group_mean(x, d, r, mask, c, 0.0, 1, &n);
        double a = max_mode ? (s > eps ? s : eps) : s + eps;
        y[at(c, d, r)] = (float)((double)x[at(c, d, r)] / sqrt(a));
    } while (next_coord(c, d, r));
}

static void test_normalize_l2_follows_the_spec_and_eps_modes(void **state)
{
    (void)state;
    float x[24], y[24], want[24];
    for (int i = 0; i < 24; i++)
        x[i] = frand(-2.0f, 2.0f);
    for (int i = 0; i < 4; i++)   /* a slice of tiny values: max mode clamps its sum to eps */
        x[4 + i] = 1e-3f * (float)(i + 1);
    const int64_t d[3] = {2, 3, 4};
    const uint64_t od[3] = {2, 3, 4};
    void *args[2] = {x, y};
    const int64_t a1[1] = {1}, a12[2] = {1, 2}, a2n[1] = {-1};
    struct {
        const char *data;
        const int64_t *axes;
        int n;
        uint32_t mask;
        double eps;
        int max_mode;
    } cases[] = {
        {"eps=\"1e-6\" eps_mode=\"add\"", a1, 1, 0x2u, 1e-6, 0},
        {"eps=\"0.01\" eps_mode=\"max\"", a2n, 1, 0x4u, 0.01, 1},
        {"eps=\"0.01\" eps_mode=\"add\"", a2n, 1, 0x4u, 0.01, 0},
        {"eps=\"0.5\" eps_mode=\"max\"", a12, 2, 0x6u, 0.5, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char shape[4];
        snprintf(shape, sizeof shape, "%d", cases[k].n);
        one_op o = {"NormalizeL2", "opset1", cases[k].data, {"f32", "FP32", "2,3,4", NULL, 0},
                    {{"i64", "I64", shape, cases[k].axes, (size_t)cases[k].n * 8}}, 1};
        one_op_run(&o, args, 3, od);
        spec_l2(x, d, 3, cases[k].mask, cases[k].eps, cases[k].max_mode, want);
        assert_close(y, want, 24, 1e-5f);
    }
    /* the tiny slice: max divides by sqrt(eps), add by sqrt(sum + eps) */
    spec_l2(x, d, 3, 0x4u, 0.01, 1, want);
    assert_true(fabsf(want[4] - 1e-3f / 0.1f) < 1e-6f);
    /* empty axes: each element by itself (0 stays 0, others 1) */
    x[3] = 0.0f;
    x[9] = -0.0f;
    one_op e = {"NormalizeL2", "opset1", "eps=\"1e-6\" eps_mode=\"add\"", {"f32", "FP32", "2,3,4", NULL, 0},
                {{"i64", "I64", "0", a1, 0}}, 1};
    one_op_run(&e, args, 3, od);
    for (int i = 0; i < 24; i++)
        assert_true(y[i] == (x[i] == 0.0f ? 0.0f : 1.0f));
    /* refusals */
    one_op bad = {"NormalizeL2", "opset1", "eps=\"1e-6\"", {"f32", "FP32", "2,3,4", NULL, 0},
                  {{"i64", "I64", "1", a1, 8}}, 1};
    one_op_fail(&bad, "NormalizeL2 needs the attributes eps and eps_mode");
    bad.data = "eps=\"1e-6\" eps_mode=\"mul\"";
    one_op_fail(&bad, "attribute eps_mode=\"mul\" is not one of add, max");
    bad.data = "eps_mode=\"add\"";
    one_op_fail(&bad, "attribute eps is missing");
    one_op bi = {"NormalizeL2", "opset1", "eps=\"1e-6\" eps_mode=\"add\"", {"i32", "I32", "2,3", NULL, 0},
                 {{"i64", "I64", "1", a1, 8}}, 1};
    one_op_fail(&bi, "NormalizeL2 of element type I32 is not supported");
}

/* ---- ReduceL1 --------------------------------------------------------------------- */

static void test_reduce_l1_follows_the_spec(void **state)
{
    (void)state;
    float x[24], y[24];
    for (int i = 0; i < 24; i++)
        x[i] = frand(-3.0f, 3.0f);
    const int64_t d[3] = {2, 3, 4};
    const int64_t axes[2] = {0, -1};
    void *args[2] = {x, y};
    one_op o = {"ReduceL1", "opset4", "keep_dims=\"true\"", {"f32", "FP32", "2,3,4", NULL, 0},
                {{"i64", "I64", "2", axes, 16}}, 1};
    const uint64_t kd[3] = {1, 3, 1};
    one_op_run(&o, args, 3, kd);
    for (int j = 0; j < 3; j++) {
        double s = 0;
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 4; b++)
                s += fabs((double)x[(a * 3 + j) * 4 + b]);
        assert_true(fabs(y[j] - s) <= 1e-5 * (1 + s));
    }
    o.data = "keep_dims=\"false\"";
    o.more[0].shape = "1";
    o.more[0].size = 8;
    o.more[0].data = &axes[1];
    const uint64_t sd[2] = {2, 3};
    one_op_run(&o, args, 2, sd);
    for (int i = 0; i < 6; i++) {
        double s = 0;
        for (int b = 0; b < 4; b++)
            s += fabs((double)x[i * 4 + b]);
        assert_true(fabs(y[i] - s) <= 1e-5 * (1 + s));
    }
    (void)d;
    /* integer data: the sum of |x| */
    int32_t xi[6] = {-3, 4, -5, 6, 0, -7}, yi[2];
    const int64_t ax1 = 1;
    one_op oi = {"ReduceL1", "opset4", NULL, {"i32", "I32", "2,3", NULL, 0}, {{"i64", "I64", "", &ax1, 8}}, 1};
    void *argi[2] = {xi, yi};
    const uint64_t d2[1] = {2};
    one_op_run(&oi, argi, 1, d2);
    assert_int_equal(yi[0], 12);
    assert_int_equal(yi[1], 13);
    one_op old = {"ReduceL1", "opset3", NULL, {"f32", "FP32", "2,3", NULL, 0}, {{"i64", "I64", "", &ax1, 8}}, 1};
    one_op_fail(&old, "unsupported op ReduceL1-opset3");
}

/* ---- TopK ------------------------------------------------------------------------- */

/* TopK with its two outputs (values "vals", indices "idx") on Results 11 and 12. */
static char *topk_xml(const char *ver, const char *data, const char *xshape, const char *iprec, const void *k,
                      const char *ket, const char *kprec, size_t ksize, const char *oshape, buf *w)
{
    ir m = {0};
    param(&m, 0, "x", "f32", "FP32", xshape);
    constant(&m, 1, "k", ket, kprec, "", wput(w, k, ksize), ksize);
    buf *b = &m.layers;
    bprintf(b, "\t\t<layer id=\"10\" name=\"op\" type=\"TopK\" version=\"%s\">\n", ver);
    if (data)
        bprintf(b, "\t\t\t<data %s />\n", data);
    char ins[64], dims[64];
    snprintf(ins, sizeof ins, "FP32:%s;%s:", xshape, kprec);
    write_ports(b, "input", ins, 0, NULL);
    bprintf(b, "\t\t\t<output>\n\t\t\t\t<port id=\"2\" precision=\"FP32\" names=\"vals\">");
    snprintf(dims, sizeof dims, "%s", oshape);
    for (char *t = strtok(dims, ","); t; t = strtok(NULL, ","))
        bprintf(b, "<dim>%s</dim>", t);
    bprintf(b, "</port>\n\t\t\t\t<port id=\"3\" precision=\"%s\" names=\"idx\">", iprec);
    snprintf(dims, sizeof dims, "%s", oshape);
    for (char *t = strtok(dims, ","); t; t = strtok(NULL, ","))
        bprintf(b, "<dim>%s</dim>", t);
    bprintf(b, "</port>\n\t\t\t</output>\n\t\t</layer>\n");
    char rin[64];
    snprintf(rin, sizeof rin, "FP32:%s", oshape);
    result(&m, 11, "vals_r", rin);
    snprintf(rin, sizeof rin, "%s:%s", iprec, oshape);
    result(&m, 12, "idx_r", rin);
    edge(&m, 0, 0, 10, 0);
    edge(&m, 1, 0, 10, 1);
    edge(&m, 10, 2, 11, 0);
    edge(&m, 10, 3, 12, 0);
    return ir_xml(&m, "topk");
}

/* top-k-11.rst with OpenVINO's reference order: the k best of each slice (larger
 * for max; equal values by lower index), listed best first (sort value) or by
 * ascending index (sort index). */
static void spec_topk(const float *x, const int64_t *d, int r, int axis, int k, int is_max, int by_index,
                      float *vals, int64_t *idx)
{
    int64_t od[8], c[8] = {0};
    memcpy(od, d, (size_t)r * 8);
    od[axis] = 1;
    do {   /* c walks the slices (axis dim 1) */
        int64_t q[8];
        memcpy(q, c, sizeof q);
        int taken[64] = {0}, pick[64];
        for (int j = 0; j < k; j++) {
            int best = -1;
            for (int i = 0; i < d[axis]; i++) {
                if (taken[i])
                    continue;
                q[axis] = i;
                float v = x[at(q, d, r)];
                if (best < 0) {
                    best = i;
                    continue;
                }
                q[axis] = best;
                float bv = x[at(q, d, r)];
                if (is_max ? v > bv : v < bv)
                    best = i;
            }
            taken[best] = 1;
            pick[j] = best;
        }
        if (by_index)
            for (int a = 0; a < k; a++)
                for (int b2 = a + 1; b2 < k; b2++)
                    if (pick[b2] < pick[a]) {
                        int t = pick[a];
                        pick[a] = pick[b2];
                        pick[b2] = t;
                    }
        int64_t kd[8];
        memcpy(kd, d, (size_t)r * 8);
        kd[axis] = k;
        for (int j = 0; j < k; j++) {
            int64_t o[8];
            memcpy(o, c, sizeof o);
            o[axis] = j;
            q[axis] = pick[j];
            vals[at(o, kd, r)] = x[at(q, d, r)];
            idx[at(o, kd, r)] = pick[j];
        }
    } while (next_coord(c, od, r));
}

static void topk_run(const char *ver, const char *data, const char *xshape, const int64_t *d, int r, int axis,
                     int64_t k, int kout, int is_max, int sort, int i64, const float *x)
{
    buf w = {0};
    char oshape[64] = "";
    uint64_t od[8];
    for (int i = 0; i < r; i++) {
        od[i] = (uint64_t)(i == axis ? kout : d[i]);
        snprintf(oshape + strlen(oshape), sizeof oshape - strlen(oshape), "%s%llu", i ? "," : "",
                 (unsigned long long)od[i]);
    }
    char *xml = topk_xml(ver, data, xshape, i64 ? "I64" : "I32", &k, "i64", "I64", 8, oshape, &w);
    sim_plan *p = compile_xml(xml, &w, NULL);
    assert_int_equal(sim_plan_arg_count(p), 3);
    assert_int_equal(arg(p, 1)->is_output, 1);   /* the Results in id order: values, indices */
    assert_dims(arg(p, 1), (uint32_t)r, od);
    assert_dims(arg(p, 2), (uint32_t)r, od);
    size_t n = 1;
    for (int i = 0; i < r; i++)
        n *= od[i];
    float vals[256], want_v[256];
    int64_t want_i[256], got_i[256];
    int32_t idx32[256];
    int64_t idx64[256];
    void *args[3] = {(void *)(uintptr_t)x, vals, i64 ? (void *)idx64 : (void *)idx32};
    assert_int_equal(sim_plan_run(p, args, 0), SIM_OK);
    for (size_t i = 0; i < n; i++)
        got_i[i] = i64 ? idx64[i] : idx32[i];
    spec_topk(x, d, r, axis, kout, is_max, sort == 1, want_v, want_i);
    if (sort == 2) {   /* none: the same elements, in an order the spec leaves open */
        int64_t kd[8], c[8] = {0};
        memcpy(kd, d, (size_t)r * 8);
        kd[axis] = 1;
        do {
            int64_t kk[8];
            memcpy(kk, d, (size_t)r * 8);
            kk[axis] = kout;
            for (int a = 0; a < kout; a++) {
                int64_t o[8];
                memcpy(o, c, sizeof o);
                o[axis] = a;
                size_t gi = at(o, kk, r);
                int found = 0;
                for (int b = 0; b < kout; b++) {
                    o[axis] = b;
                    size_t wi = at(o, kk, r);
                    found |= want_i[wi] == got_i[gi] && want_v[wi] == vals[gi];
                }
                if (!found)
                    fail_msg("TopK sort none: element %zu (index %lld) is not among the top %d", gi,
                             (long long)got_i[gi], kout);
            }
        } while (next_coord(c, kd, r));
    } else {
        for (size_t i = 0; i < n; i++)
            if (vals[i] != want_v[i] || got_i[i] != want_i[i])
                fail_msg("TopK %s %s axis %d k %d: output %zu is (%g, %lld), expected (%g, %lld)",
                         is_max ? "max" : "min", sort ? "index" : "value", axis, kout, i, (double)vals[i],
                         (long long)got_i[i], (double)want_v[i], (long long)want_i[i]);
    }
    sim_plan_destroy(p);
    free(xml);
    free(w.s);
}

static void test_topk_modes_sorts_ties_and_index_types(void **state)
{
    (void)state;
    /* [3, 8] with ties (values on a coarse grid) */
    float x[24];
    for (int i = 0; i < 24; i++)
        x[i] = (float)((i * 7 + 3) % 5) - 2.0f;
    const int64_t d[2] = {3, 8};
    static const char *const modes[2] = {"min", "max"}, *const sorts[3] = {"value", "index", "none"};
    for (int mx = 0; mx < 2; mx++)
        for (int so = 0; so < 3; so++)
            for (int i64 = 0; i64 < 2; i64++) {
                char data[160];
                snprintf(data, sizeof data, "axis=\"%d\" mode=\"%s\" sort=\"%s\"%s", i64 ? -1 : 1, modes[mx],
                         sorts[so], i64 ? " index_element_type=\"i64\"" : "");
                topk_run("opset3", data, "3,8", d, 2, 1, 3, 3, mx, so, i64, x);
                snprintf(data, sizeof data, "axis=\"1\" mode=\"%s\" sort=\"%s\" stable=\"true\" "
                         "index_element_type=\"%s\"", modes[mx], sorts[so], i64 ? "i64" : "i32");
                topk_run("opset11", data, "3,8", d, 2, 1, 5, 5, mx, so, i64, x);
            }
    /* an outer axis of a rank-3 tensor, stable false; k beyond the dim takes it whole */
    float z[60];
    for (int i = 0; i < 60; i++)
        z[i] = (float)((i * 11) % 9);
    const int64_t dz[3] = {5, 3, 4};
    topk_run("opset11", "axis=\"0\" mode=\"max\" sort=\"value\" stable=\"false\"", "5,3,4", dz, 3, 0, 2, 2, 1, 0, 0, z);
    topk_run("opset11", "axis=\"-2\" mode=\"min\" sort=\"index\"", "5,3,4", dz, 3, 1, 7, 3, 0, 1, 0, z);
    /* ties among all: equal values keep the input order */
    float t[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    const int64_t dt[1] = {8};
    topk_run("opset3", "axis=\"0\" mode=\"max\" sort=\"value\"", "8", dt, 1, 0, 4, 4, 1, 0, 0, t);
}

static void test_topk_refusals_name_the_layer(void **state)
{
    (void)state;
    const int64_t zero = 0, two = 2;
    buf w = {0};
    char *xml = topk_xml("opset3", "axis=\"1\" mode=\"max\" sort=\"value\"", "2,4", "I32", &zero, "i64", "I64", 8,
                         "2,1", &w);
    expect_xml_fail(xml, &w, SIM_ERR_COMPILE, "TopK k=0 is not supported");
    free(xml);
    free(w.s);
    struct {
        const char *ver, *data, *needle;
    } bad[] = {
        {"opset3", "axis=\"1\" mode=\"max\"", "TopK needs the attributes axis, mode and sort"},
        {"opset3", "axis=\"2\" mode=\"max\" sort=\"value\"", "axis 2 is out of range for rank 2"},
        {"opset3", "axis=\"1\" mode=\"top\" sort=\"value\"", "attribute mode=\"top\" is not one of max, min"},
        {"opset11", "axis=\"1\" mode=\"max\" sort=\"size\"", "attribute sort=\"size\" is not one of value, index, none"},
        {"opset3", "axis=\"1\" mode=\"max\" sort=\"value\" index_element_type=\"f32\"",
         "TopK index_element_type=\"f32\" is not supported (i32 or i64)"},
        {"opset1", "axis=\"1\" mode=\"max\" sort=\"value\"", "unsupported op TopK-opset1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&w, 0, sizeof w);
        xml = topk_xml(bad[i].ver, bad[i].data, "2,4", "I32", &two, "i64", "I64", 8, "2,2", &w);
        expect_xml_fail(xml, &w, SIM_ERR_COMPILE, bad[i].needle);
        if (!strstr(g_log, "'op'"))
            fail_msg("the log does not name the layer: %s", g_log);
        free(xml);
        free(w.s);
    }
}

/* ---- ConvolutionBackpropData / GroupConvolutionBackpropData ------------------------ */

typedef struct dc_case {
    int sp;                       /* spatial dims */
    int64_t n, cin, cout, groups; /* cout: all output channels */
    int64_t in[3], k[3], s[3], dl[3], pb[3], out[3];
} dc_case;

/* convolution-backprop-data-1.rst as a gather: y[n, co, o] sums x[n, ci, i] * w
 * over every tap t with i * s + t * dl = o + pb, i inside the input; w is [C_in,
 * C_out/G, k...] (the group filter [G, C_in/G, C_out/G, k...] has that layout). */
static void spec_deconv(const dc_case *c, const float *x, const float *w, float *y)
{
    int64_t cin_g = c->cin / c->groups, cout_g = c->cout / c->groups;
    int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, pb[3] = {0, 0, 0},
            out[3] = {1, 1, 1};
    for (int i = 0; i < c->sp; i++) {
        int j = 3 - c->sp + i;
        in[j] = c->in[i];
        k[j] = c->k[i];
        s[j] = c->s[i];
        dl[j] = c->dl[i];
        pb[j] = c->pb[i];
        out[j] = c->out[i];
    }
    int64_t in_sp = in[0] * in[1] * in[2], out_sp = out[0] * out[1] * out[2], k_sp = k[0] * k[1] * k[2];
    for (int64_t n = 0; n < c->n; n++)
        for (int64_t co = 0; co < c->cout; co++) {
            int64_t g = co / cout_g, col = co % cout_g;
            for (int64_t o = 0; o < out_sp; o++) {
                int64_t oc[3] = {o / (out[1] * out[2]), (o / out[2]) % out[1], o % out[2]};
                double acc = 0;
                for (int64_t cl = 0; cl < cin_g; cl++) {
                    int64_t ci = g * cin_g + cl;
                    for (int64_t t = 0; t < k_sp; t++) {
                        int64_t tc[3] = {t / (k[1] * k[2]), (t / k[2]) % k[1], t % k[2]}, ic[3];
                        int ok = 1;
                        for (int a = 0; a < 3 && ok; a++) {
                            int64_t num = oc[a] + pb[a] - tc[a] * dl[a];
                            ok = num >= 0 && num % s[a] == 0 && num / s[a] < in[a];
                            ic[a] = ok ? num / s[a] : 0;
                        }
                        if (ok)
                            acc += (double)x[(n * c->cin + ci) * in_sp + (ic[0] * in[1] + ic[1]) * in[2] + ic[2]] *
                                   (double)w[(ci * cout_g + col) * k_sp + t];
                    }
                }
                y[(n * c->cout + co) * out_sp + o] = (float)acc;
            }
        }
}

static void dims_text(char *out, size_t cap, int n, const int64_t *a, const int64_t *b)
{
    out[0] = '\0';
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), cap - strlen(out), "%s%lld", i ? "," : "", (long long)a[i]);
    for (int i = 0; b && i < 3; i++)
        if (b[i] > 0)
            snprintf(out + strlen(out), cap - strlen(out), ",%lld", (long long)b[i]);
}

/* Runs the op with `data` attributes (output_shape input when os != NULL) and
 * compares with the spec loop; c->out and c->pb are what the spec resolves. */
static void dc_run(const dc_case *c, int group, const char *data, const int64_t *os)
{
    int64_t xn = c->n * c->cin, wn = c->cin * (c->cout / c->groups), yn = c->n * c->cout;
    for (int i = 0; i < c->sp; i++) {
        xn *= c->in[i];
        wn *= c->k[i];
        yn *= c->out[i];
    }
    float *x = malloc((size_t)xn * 4), *w = malloc((size_t)wn * 4), *y = malloc((size_t)yn * 4),
          *want = malloc((size_t)yn * 4);
    assert_non_null(x);
    assert_non_null(w);
    assert_non_null(y);
    assert_non_null(want);
    for (int64_t i = 0; i < xn; i++)
        x[i] = frand(-1.0f, 1.0f);
    for (int64_t i = 0; i < wn; i++)
        w[i] = frand(-1.0f, 1.0f);
    char xs[64], ws[64], oss[8];
    const int64_t xl[2] = {c->n, c->cin};
    int64_t sp[3] = {0, 0, 0};
    for (int i = 0; i < c->sp; i++)
        sp[i] = c->in[i];
    dims_text(xs, sizeof xs, 2, xl, sp);
    int64_t kk[3] = {0, 0, 0};
    for (int i = 0; i < c->sp; i++)
        kk[i] = c->k[i];
    if (group) {
        const int64_t wl[3] = {c->groups, c->cin / c->groups, c->cout / c->groups};
        dims_text(ws, sizeof ws, 3, wl, kk);
    } else {
        const int64_t wl[2] = {c->cin, c->cout};
        dims_text(ws, sizeof ws, 2, wl, kk);
    }
    snprintf(oss, sizeof oss, "%d", c->sp);
    one_op o = {group ? "GroupConvolutionBackpropData" : "ConvolutionBackpropData", "opset1", data,
                {"f32", "FP32", xs, NULL, 0},
                {{"f32", "FP32", ws, w, (size_t)wn * 4}, {"i64", "I64", oss, os, (size_t)c->sp * 8}},
                os ? 2 : 1};
    uint64_t od[5] = {(uint64_t)c->n, (uint64_t)c->cout};
    for (int i = 0; i < c->sp; i++)
        od[2 + i] = (uint64_t)c->out[i];
    void *args[2] = {x, y};
    one_op_run(&o, args, (uint32_t)(c->sp + 2), od);
    spec_deconv(c, x, w, want);
    assert_close(y, want, (size_t)yn, 1e-5f);
    free(x);
    free(w);
    free(y);
    free(want);
}

static void test_conv_backprop_data_shapes_pads_and_output_padding(void **state)
{
    (void)state;
    /* 2-D, stride 2, pads 1, output_padding 1: (3 - 1) * 2 + 3 - 2 + 1 = 6 */
    dc_case a = {2, 1, 2, 3, 1, {3, 3}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {6, 6}};
    dc_run(&a, 0, "strides=\"2,2\" pads_begin=\"1,1\" pads_end=\"1,1\" dilations=\"1,1\" output_padding=\"1,1\"",
           NULL);
    /* dilations 2, uneven pads and strides, batch 2: (4-1)*1 + (2-1)*2 + 1 - 0 - 1 = 5 and
     * (3-1)*3 + (2-1)*1 + 1 - 2 - 1 = 5 */
    dc_case b = {2, 2, 3, 2, 1, {4, 3}, {2, 2}, {1, 3}, {2, 1}, {0, 2}, {5, 5}};
    dc_run(&b, 0, "strides=\"1,3\" pads_begin=\"0,2\" pads_end=\"1,1\" dilations=\"2,1\" auto_pad=\"explicit\"",
           NULL);
    /* 1-D (the decoder of an audio net): stride 4, kernel 8, pads 2 */
    dc_case c1 = {1, 1, 2, 2, 1, {5}, {8}, {4}, {1}, {2}, {20}};
    dc_run(&c1, 0, "strides=\"4\" pads_begin=\"2\" pads_end=\"2\" dilations=\"1\"", NULL);
    /* 3-D */
    dc_case c3 = {3, 1, 2, 2, 1, {2, 3, 2}, {2, 2, 3}, {2, 1, 2}, {1, 1, 1}, {0, 0, 1}, {4, 4, 4}};
    dc_run(&c3, 0, "strides=\"2,1,2\" pads_begin=\"0,0,1\" pads_end=\"0,0,0\" dilations=\"1,1,1\"", NULL);
    /* valid: pads ignored */
    dc_case v = {2, 1, 1, 2, 1, {3, 3}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {7, 7}};
    dc_run(&v, 0, "strides=\"2,2\" pads_begin=\"1,1\" pads_end=\"1,1\" dilations=\"1,1\" auto_pad=\"valid\"", NULL);
    /* same_upper without output_shape: pads 0 */
    dc_run(&v, 0, "strides=\"2,2\" pads_begin=\"1,1\" pads_end=\"1,1\" dilations=\"1,1\" auto_pad=\"same_upper\"",
           NULL);
}

static void test_conv_backprop_data_output_shape_and_auto_pad(void **state)
{
    (void)state;
    /* explicit pads with output_shape: the output is the given size, pads_begin
     * shifts it; full = (3-1)*2 + 3 = 7 */
    const int64_t os55[2] = {5, 6};
    dc_case e = {2, 1, 2, 2, 1, {3, 3}, {3, 3}, {2, 2}, {1, 1}, {1, 0}, {5, 6}};
    dc_run(&e, 0, "strides=\"2,2\" pads_begin=\"1,0\" pads_end=\"1,1\" dilations=\"1,1\"", os55);
    /* same_upper with output_shape 6 (total 7 - 6 = 1): the odd unit goes to pads_begin */
    const int64_t os66[2] = {6, 6};
    dc_case su = {2, 1, 2, 2, 1, {3, 3}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {6, 6}};
    dc_run(&su, 0, "strides=\"2,2\" pads_begin=\"0,0\" pads_end=\"0,0\" dilations=\"1,1\" auto_pad=\"same_upper\"",
           os66);
    /* same_lower: pads_begin = total / 2 = 0 */
    dc_case sl = su;
    sl.pb[0] = sl.pb[1] = 0;
    dc_run(&sl, 0, "strides=\"2,2\" dilations=\"1,1\" auto_pad=\"same_lower\"", os66);
    /* same_upper with output_padding 1 and output 4: total = 7 + 1 - 4 = 4, pads_begin 2 */
    const int64_t os44[2] = {4, 4};
    dc_case sp = {2, 1, 2, 2, 1, {3, 3}, {3, 3}, {2, 2}, {1, 1}, {2, 2}, {4, 4}};
    dc_run(&sp, 0, "strides=\"2,2\" dilations=\"1,1\" auto_pad=\"same_upper\" output_padding=\"1,1\"", os44);
    /* the largest output_shape allowed: full + output_padding */
    const int64_t os88[2] = {8, 8};
    dc_case mx = {2, 1, 1, 1, 1, {3, 3}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {8, 8}};
    dc_run(&mx, 0, "strides=\"2,2\" pads_begin=\"0,0\" pads_end=\"0,0\" output_padding=\"1,1\"", os88);
}

static void test_group_conv_backprop_data(void **state)
{
    (void)state;
    /* G 2, C_in 4 (2 per group), C_out 6 (3 per group), stride 2, pads 1, output_padding 1 */
    dc_case g = {2, 2, 4, 6, 2, {3, 4}, {3, 2}, {2, 2}, {1, 1}, {1, 0}, {6, 8}};
    dc_run(&g, 1, "strides=\"2,2\" pads_begin=\"1,0\" pads_end=\"1,0\" dilations=\"1,1\" output_padding=\"1,0\"",
           NULL);
    /* depthwise (one channel per group), output_shape */
    const int64_t os[2] = {7, 7};
    dc_case dw = {2, 1, 3, 3, 3, {4, 4}, {2, 2}, {2, 2}, {1, 1}, {1, 1}, {7, 7}};
    dc_run(&dw, 1, "strides=\"2,2\" pads_begin=\"1,1\" pads_end=\"1,1\" dilations=\"1,1\"", os);
}

static void test_conv_backprop_refusals_name_the_layer(void **state)
{
    (void)state;
    float w[3 * 3 * 9] = {0};
    const int64_t big[2] = {9, 6}, one[1] = {6};
    one_op o = {"ConvolutionBackpropData", "opset1", "strides=\"2,2\"", {"f32", "FP32", "1,2,3,3", NULL, 0},
                {{"f32", "FP32", "2,3,3,3", w, 2 * 3 * 9 * 4}, {"i64", "I64", "2", big, 16}}, 2};
    one_op_fail(&o, "output_shape 9 of spatial dim 0 is outside 1 .. 7");
    o.more[1].shape = "1";
    o.more[1].data = one;
    o.more[1].size = 8;
    one_op_fail(&o, "output_shape holds 1 values for 2 spatial dims");
    o.n_more = 1;
    o.more[0].shape = "3,3,3,3";
    o.more[0].size = sizeof w;
    one_op_fail(&o, "ConvolutionBackpropData filter [3,3,3,3] does not fit data [1,2,3,3]");
    o.more[0].shape = "2,3,3,3";
    o.more[0].size = 2 * 3 * 9 * 4;
    o.data = "strides=\"2,2\" auto_pad=\"full\"";
    one_op_fail(&o, "attribute auto_pad=\"full\" is not one of");
    o.data = "strides=\"0,2\"";
    one_op_fail(&o, "strides and dilations must be 1 .. 2^30");
    o.data = "strides=\"1,1\" pads_begin=\"3,3\" pads_end=\"3,3\"";
    one_op_fail(&o, "pads 3 + 3 leave no output in spatial dim 0");
    one_op g = {"GroupConvolutionBackpropData", "opset1", "strides=\"1,1\"", {"f32", "FP32", "1,2,3,3", NULL, 0},
                {{"f32", "FP32", "2,3,3,3", w, 2 * 3 * 9 * 4}}, 1};
    one_op_fail(&g, "GroupConvolutionBackpropData filter [2,3,3,3] does not fit data [1,2,3,3]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_mvn6_follows_the_spec_axes_and_eps_modes, default_profile),
        cmocka_unit_test_setup(test_mvn1_across_channels_reduction_axes_and_defaults, default_profile),
        cmocka_unit_test_setup(test_mvn_refusals_name_the_layer, default_profile),
        cmocka_unit_test_setup(test_normalize_l2_follows_the_spec_and_eps_modes, default_profile),
        cmocka_unit_test_setup(test_reduce_l1_follows_the_spec, default_profile),
        cmocka_unit_test_setup(test_topk_modes_sorts_ties_and_index_types, default_profile),
        cmocka_unit_test_setup(test_topk_refusals_name_the_layer, default_profile),
        cmocka_unit_test_setup(test_conv_backprop_data_shapes_pads_and_output_padding, default_profile),
        cmocka_unit_test_setup(test_conv_backprop_data_output_shape_and_auto_pad, default_profile),
        cmocka_unit_test_setup(test_group_conv_backprop_data, default_profile),
        cmocka_unit_test_setup(test_conv_backprop_refusals_name_the_layer, default_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
