/* test_compiler.c - the software NPU's compiler, executor and native blob.
 *
 * Each test builds an NGRAPH_LITE payload by hand (IR v11 text written the way
 * ov::serialize writes it, weights built here), compiles it with sim_plan_compile
 * and checks the arguments and the results of sim_plan_run against
 * straightforward reference loops in this file. The corpus test compiles every
 * real IR under $NPU_SHARED_DATA/ovir (skipped when the variable is unset).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/kernels.h"
#include "sim/profile.h"
#include "sim/sim_plan.h"

#include "sim/tests/ir_build.h"

/* ---- reference computations ---------------------------------------------------- */

static float det(int i, float scale)   /* small deterministic values */
{
    return scale * (float)((i * 37 + 11) % 23 - 11) / 11.0f;
}

static void ref_conv(const float *x, int c, int h, int w, const float *k, int co, int kh, int kw,
                     int pad, int stride, float *y, int oh, int ow)
{
    for (int o = 0; o < co; o++)
        for (int i = 0; i < oh; i++)
            for (int j = 0; j < ow; j++) {
                double s = 0;
                for (int ci = 0; ci < c; ci++)
                    for (int a = 0; a < kh; a++)
                        for (int b = 0; b < kw; b++) {
                            int yy = i * stride - pad + a, xx = j * stride - pad + b;
                            if (yy < 0 || yy >= h || xx < 0 || xx >= w)
                                continue;
                            s += (double)x[(ci * h + yy) * w + xx] * k[((o * c + ci) * kh + a) * kw + b];
                        }
                y[(o * oh + i) * ow + j] = (float)s;
            }
}

/* ---- the small CNN ---------------------------------------------------------------
 * input [1,2,6,6] -> Convolution 3x2x3x3 pad 1 -> ReLU -> MaxPool 2x2/2 -> Reshape
 * [1,27] -> MatMul with [4,27] (transpose_b) -> Add bias [4] -> SoftMax(axis 1). */

typedef struct cnn {
    float conv_w[3 * 2 * 3 * 3], fc_w[4 * 27], bias[4];
    int64_t target[2];
} cnn;

static void cnn_init(cnn *n)
{
    for (int i = 0; i < 54; i++)
        n->conv_w[i] = det(i, 0.5f);
    for (int i = 0; i < 108; i++)
        n->fc_w[i] = det(i + 5, 0.3f);
    for (int i = 0; i < 4; i++)
        n->bias[i] = 0.1f * (float)i;
    n->target[0] = 1;
    n->target[1] = 27;
}

static void cnn_reference(const cnn *n, const float *x, float *out)
{
    float conv[3 * 36], pool[27], logits[4];
    ref_conv(x, 2, 6, 6, n->conv_w, 3, 3, 3, 1, 1, conv, 6, 6);
    for (int i = 0; i < 108; i++)
        conv[i] = conv[i] > 0 ? conv[i] : 0;
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                float m = -INFINITY;
                for (int a = 0; a < 2; a++)
                    for (int b = 0; b < 2; b++) {
                        float v = conv[(c * 6 + 2 * i + a) * 6 + 2 * j + b];
                        m = v > m ? v : m;
                    }
                pool[(c * 3 + i) * 3 + j] = m;
            }
    double mx = -INFINITY, sum = 0;
    for (int o = 0; o < 4; o++) {
        double s = n->bias[o];
        for (int k = 0; k < 27; k++)
            s += (double)pool[k] * n->fc_w[o * 27 + k];
        logits[o] = (float)s;
        mx = s > mx ? s : mx;
    }
    for (int o = 0; o < 4; o++)
        sum += exp(logits[o] - mx);
    for (int o = 0; o < 4; o++)
        out[o] = (float)(exp(logits[o] - mx) / sum);
}

/* The CNN's IR. `extra_conv`/`extra_fc` are inserted into the Const layers
 * (rt_info for layout B); offsets come from the caller. */
static char *cnn_xml(size_t off_conv, size_t off_target, size_t off_fc, size_t off_bias,
                     const char *extra_fc)
{
    ir m = {0};
    param(&m, 0, "input", "f32", "FP32", "1,2,6,6");
    constant(&m, 1, "conv_w", "f32", "FP32", "3,2,3,3", off_conv, 216);
    layer(&m, 2, "conv", "Convolution", "opset1",
          "strides=\"1, 1\" dilations=\"1, 1\" pads_begin=\"1, 1\" pads_end=\"1, 1\" auto_pad=\"explicit\"",
          "FP32:1,2,6,6;FP32:3,2,3,3", "FP32:1,3,6,6");
    layer(&m, 3, "relu", "ReLU", "opset1", NULL, "FP32:1,3,6,6", "FP32:1,3,6,6");
    layer(&m, 4, "pool", "MaxPool", "opset8",
          "strides=\"2, 2\" dilations=\"1, 1\" pads_begin=\"0, 0\" pads_end=\"0, 0\" kernel=\"2, 2\" "
          "rounding_type=\"floor\" auto_pad=\"explicit\" index_element_type=\"i64\" axis=\"0\"",
          "FP32:1,3,6,6", "FP32:1,3,3,3;I64:1,3,3,3");
    constant(&m, 5, "target", "i64", "I64", "2", off_target, 16);
    layer(&m, 6, "flatten", "Reshape", "opset1", "special_zero=\"true\"", "FP32:1,3,3,3;I64:2",
          "FP32:1,27");
    {
        char data[256];
        snprintf(data, sizeof data, "element_type=\"f32\" shape=\"4, 27\" offset=\"%zu\" size=\"432\"",
                 off_fc);
        layer_x(&m, 7, "fc_w", "Const", "opset1", data, NULL, "FP32:4,27", extra_fc);
    }
    layer(&m, 8, "fc", "MatMul", "opset1", "transpose_a=\"false\" transpose_b=\"true\"",
          "FP32:1,27;FP32:4,27", "FP32:1,4");
    constant(&m, 9, "bias", "f32", "FP32", "4", off_bias, 16);
    layer(&m, 10, "add", "Add", "opset1", "auto_broadcast=\"numpy\"", "FP32:1,4;FP32:4", "FP32:1,4");
    layer(&m, 11, "prob", "SoftMax", "opset8", "axis=\"-1\"", "FP32:1,4", "FP32:1,4");
    result(&m, 12, "prob/sink_port_0", "FP32:1,4");
    edge(&m, 0, 0, 2, 0);
    edge(&m, 1, 0, 2, 1);
    edge(&m, 2, 2, 3, 0);
    edge(&m, 3, 1, 4, 0);
    edge(&m, 4, 1, 6, 0);
    edge(&m, 5, 0, 6, 1);
    edge(&m, 6, 2, 8, 0);
    edge(&m, 7, 0, 8, 1);
    edge(&m, 8, 2, 10, 0);
    edge(&m, 9, 0, 10, 1);
    edge(&m, 10, 2, 11, 0);
    edge(&m, 11, 1, 12, 0);
    return ir_xml(&m, "cnn");
}

static sim_plan *cnn_compile_a(const cnn *n)
{
    buf w = {0};
    size_t oc = wput(&w, n->conv_w, sizeof n->conv_w), ot = wput(&w, n->target, sizeof n->target);
    size_t of = wput(&w, n->fc_w, sizeof n->fc_w), ob = wput(&w, n->bias, sizeof n->bias);
    char *xml = cnn_xml(oc, ot, of, ob, NULL);
    sim_plan *p = compile_xml(xml, &w, NULL);
    free(xml);
    free(w.s);
    return p;
}

static void test_layout_a_cnn_matches_reference(void **state)
{
    (void)state;
    cnn n;
    cnn_init(&n);
    sim_plan *p = cnn_compile_a(&n);
    assert_int_equal(sim_plan_arg_count(p), 2);
    const sim_arg *in = arg(p, 0), *out = arg(p, 1);
    assert_string_equal(in->name, "input");
    assert_string_equal(in->friendly_name, "input");
    assert_int_equal(in->tensor_name_count, 1);
    assert_string_equal(in->tensor_names[0], "input");
    assert_int_equal(in->is_output, 0);
    assert_int_equal(in->precision, P_FP32);
    assert_int_equal(in->meta_type, 5);
    assert_int_equal(in->layout, 1); /* NCHW by rank */
    assert_int_equal(in->bytes, 72 * 4);
    assert_string_equal(out->name, "prob");
    assert_string_equal(out->friendly_name, "prob/sink_port_0");
    assert_string_equal(out->tensor_names[0], "prob");
    assert_int_equal(out->is_output, 1);
    assert_int_equal(out->layout, 0xC1); /* NC */
    assert_dims(out, 2, (const uint64_t[]){1, 4});
    assert_int_equal(out->ir_rank, 2);
    assert_int_equal(out->ir_shape[1], 4);

    float x[72], y[4], want[4];
    for (int i = 0; i < 72; i++)
        x[i] = det(i * 3, 1.0f);
    float *ins[] = {x}, *outs[] = {y};
    run_f32(p, ins, outs);
    cnn_reference(&n, x, want);
    assert_close(y, want, 4, 1e-5f);
    /* skip_math leaves outputs untouched */
    float sentinel[4] = {7, 7, 7, 7};
    void *args[] = {x, sentinel};
    assert_int_equal(sim_plan_run(p, args, 1), SIM_OK);
    assert_true(sentinel[0] == 7 && sentinel[3] == 7);
    sim_plan_destroy(p);
}

static void test_layout_b_pointer_attribute_and_consts_blob(void **state)
{
    (void)state;
    cnn n;
    cnn_init(&n);
    /* fc weights by pointer (in this process), the rest in the constants blob */
    buf c = {0};
    size_t oc = wput(&c, n.conv_w, sizeof n.conv_w), ot = wput(&c, n.target, sizeof n.target);
    size_t ob = wput(&c, n.bias, sizeof n.bias);
    char extra[256];
    snprintf(extra, sizeof extra,
             "\t\t\t<rt_info>\n\t\t\t\t<attribute name=\"WeightsPointerAttribute\" version=\"0\" "
             "mp=\"%llu\" ms=\"432\" />\n\t\t\t</rt_info>\n",
             (unsigned long long)(uintptr_t)n.fc_w);
    char *xml = cnn_xml(oc, ot, 0, ob, extra);
    size_t size;
    uint8_t *pl = payload_b(xml, c.s, c.len, VER, &size);
    sim_plan *p = compile_ok(pl, size, FLAGS_B);
    float x[72], y[4], want[4];
    for (int i = 0; i < 72; i++)
        x[i] = det(i + 1, 2.0f);
    float *ins[] = {x}, *outs[] = {y};
    run_f32(p, ins, outs);
    cnn_reference(&n, x, want);
    assert_close(y, want, 4, 1e-5f);
    sim_plan_destroy(p);
    free(pl);

    /* numbers are decimal (OpenVINO's get_uint64_attr): a hex address is refused;
     * ms must match the Const's byte size */
    snprintf(extra, sizeof extra,
             "<rt_info><attribute name=\"WeightsPointerAttribute\" version=\"0\" mp=\"0x%llx\" "
             "ms=\"432\"/></rt_info>\n", (unsigned long long)(uintptr_t)n.fc_w);
    xml = (free(xml), cnn_xml(oc, ot, 0, ob, extra));
    pl = payload_b(xml, c.s, c.len, VER, &size);
    expect_fail(pl, size, FLAGS_B, SIM_ERR_COMPILE, "which is not an unsigned 64 bit integer");
    free(pl);
    snprintf(extra, sizeof extra,
             "<rt_info><attribute name=\"WeightsPointerAttribute\" version=\"0\" mp=\"%llu\" "
             "ms=\"400\"/></rt_info>\n", (unsigned long long)(uintptr_t)n.fc_w);
    xml = (free(xml), cnn_xml(oc, ot, 0, ob, extra));
    pl = payload_b(xml, c.s, c.len, VER, &size);
    expect_fail(pl, size, FLAGS_B, SIM_ERR_COMPILE, "layer 'fc_w' (id 7): Const size mismatch");
    free(pl);
    /* a Const without pointer whose bytes lie outside the constants blob */
    xml = (free(xml), cnn_xml(oc, ot, c.len, ob, NULL));
    pl = payload_b(xml, c.s, c.len, VER, &size);
    expect_fail(pl, size, FLAGS_B, SIM_ERR_COMPILE, "layer 'fc_w' (id 7): Const bytes");
    free(pl);
    /* wrong version stamped in the custom data */
    pl = payload_b(xml, c.s, c.len, (1u << 16) | 2u, &size);
    expect_fail(pl, size, FLAGS_B, SIM_ERR_INVALID_IR, "Found: 1.2. Expected: 7.6");
    free(pl);
    free(xml);
    free(c.s);
}

/* ---- states ---------------------------------------------------------------------- */

static void test_read_value_assign_carries_state_across_runs(void **state)
{
    (void)state;
    buf w = {0};
    float zeros[4] = {0};
    size_t oz = wput(&w, zeros, sizeof zeros);
    ir m = {0};
    param(&m, 0, "x", "f32", "FP32", "1,4");
    constant(&m, 1, "init", "f32", "FP32", "1,4", oz, 16);
    layer(&m, 2, "read", "ReadValue", "opset3", "variable_id=\"acc\"", "FP32:1,4", "FP32:1,4");
    layer(&m, 3, "sum", "Add", "opset1", NULL, "FP32:1,4;FP32:1,4", "FP32:1,4");
    layer(&m, 4, "write", "Assign", "opset3", "variable_id=\"acc\"", "FP32:1,4", "FP32:1,4");
    result(&m, 5, "out", "FP32:1,4");
    /* a second variable, v6 without init and without Assign */
    layer(&m, 6, "peek", "ReadValue", "opset6",
          "variable_id=\"keep\" variable_type=\"f32\" variable_shape=\"2\"", NULL, "FP32:2");
    result(&m, 7, "peek_out", "FP32:2");
    edge(&m, 0, 0, 3, 0);
    edge(&m, 1, 0, 2, 0);
    edge(&m, 2, 1, 3, 1);
    edge(&m, 3, 2, 4, 0);
    edge(&m, 3, 2, 5, 0);
    edge(&m, 6, 0, 7, 0);
    char *xml = ir_xml(&m, "state");
    sim_plan *p = compile_xml(xml, &w, NULL);
    free(xml);
    free(w.s);
    assert_int_equal(sim_plan_arg_count(p), 7);
    assert_string_equal(arg(p, 0)->name, "x");
    assert_string_equal(arg(p, 1)->name, SIM_READ_VALUE_PREFIX "acc");
    assert_string_equal(arg(p, 2)->name, SIM_READ_VALUE_PREFIX "keep");
    assert_string_equal(arg(p, 3)->name, "sum");
    assert_string_equal(arg(p, 3)->friendly_name, "out");
    assert_string_equal(arg(p, 4)->name, "peek");
    assert_string_equal(arg(p, 5)->name, SIM_ASSIGN_PREFIX "acc");
    assert_string_equal(arg(p, 6)->name, SIM_ASSIGN_PREFIX "keep");
    assert_int_equal(arg(p, 1)->is_output, 0);
    assert_int_equal(arg(p, 5)->is_output, 1);
    assert_dims(arg(p, 2), 1, (const uint64_t[]){2});

    float x[4], acc[4] = {0}, keep[2] = {5, -6}, out[4], peek[2], acc_out[4], keep_out[2];
    void *args[] = {x, acc, keep, out, peek, acc_out, keep_out};
    float expect[4] = {0};
    for (int run = 0; run < 3; run++) {
        for (int i = 0; i < 4; i++) {
            x[i] = (float)(run + 1) * (float)(i - 1);
            expect[i] += x[i];
        }
        assert_int_equal(sim_plan_run(p, args, 0), SIM_OK);
        assert_close(out, expect, 4, 0);
        assert_close(acc_out, expect, 4, 0);
        assert_close(peek, keep, 2, 0);
        assert_close(keep_out, keep, 2, 0);
        memcpy(acc, acc_out, sizeof acc); /* the host carries assign -> read_value */
        memcpy(keep, keep_out, sizeof keep);
    }
    sim_plan_destroy(p);
}

/* ---- every op: shape inference and a value check ---------------------------------- */

typedef struct op_case {
    const char *type, *version, *data;
    const char *in_shape;          /* the Parameter */
    const char *in_shape2;         /* second Parameter, or NULL */
    const char *const_et, *const_shape; /* optional constant second input (ints) */
    int64_t const_vals[8];
    int n_const;
    int n_out;                     /* outputs to connect (Split) */
    uint32_t out_rank;
    uint64_t out_dims[8];
} op_case;

static const op_case op_cases[] = {
    {"Relu", "opset1", NULL, "2,3", NULL, NULL, NULL, {0}, 0, 1, 2, {2, 3}},
    {"Sigmoid", "opset1", NULL, "2,3", NULL, NULL, NULL, {0}, 0, 1, 2, {2, 3}},
    {"Tanh", "opset1", NULL, "6", NULL, NULL, NULL, {0}, 0, 1, 1, {6}},
    {"Exp", "opset1", NULL, "6", NULL, NULL, NULL, {0}, 0, 1, 1, {6}},
    {"Sqrt", "opset1", NULL, "6", NULL, NULL, NULL, {0}, 0, 1, 1, {6}},
    {"Abs", "opset1", NULL, "6", NULL, NULL, NULL, {0}, 0, 1, 1, {6}},
    {"Negative", "opset1", NULL, "6", NULL, NULL, NULL, {0}, 0, 1, 1, {6}},
    {"Clamp", "opset1", "min=\"-0.5\" max=\"0.5\"", "6", NULL, NULL, NULL, {0}, 0, 1, 1, {6}},
    {"Convert", "opset1", "destination_type=\"f16\"", "6", NULL, NULL, NULL, {0}, 0, 1, 1, {6}},
    {"SoftMax", "opset1", "axis=\"1\"", "2,3", NULL, NULL, NULL, {0}, 0, 1, 2, {2, 3}},
    {"Softmax", "opset8", "axis=\"-2\"", "2,3", NULL, NULL, NULL, {0}, 0, 1, 2, {2, 3}},
    {"Add", "opset1", NULL, "2,1,3", "4,1", NULL, NULL, {0}, 0, 1, 3, {2, 4, 3}},
    {"Subtract", "opset1", "auto_broadcast=\"numpy\"", "3", "2,3", NULL, NULL, {0}, 0, 1, 2, {2, 3}},
    {"Multiply", "opset1", "auto_broadcast=\"none\"", "2,3", "2,3", NULL, NULL, {0}, 0, 1, 2, {2, 3}},
    {"Divide", "opset1", NULL, "2,3", "1", NULL, NULL, {0}, 0, 1, 2, {2, 3}},
    {"Maximum", "opset1", NULL, "2,3", "2,1", NULL, NULL, {0}, 0, 1, 2, {2, 3}},
    {"Minimum", "opset1", NULL, "1,3", "2,1", NULL, NULL, {0}, 0, 1, 2, {2, 3}},
    {"MatMul", "opset1", "transpose_a=\"true\" transpose_b=\"false\"", "2,3,4", "3,5", NULL, NULL,
     {0}, 0, 1, 3, {2, 4, 5}},
    {"MatMul", "opset1", NULL, "4", "3,4,2", NULL, NULL, {0}, 0, 1, 2, {3, 2}},
    {"MatMul", "opset1", "transpose_b=\"true\"", "2,4", "4", NULL, NULL, {0}, 0, 1, 1, {2}},
    {"Convolution", "opset1",
     "strides=\"2, 2\" dilations=\"1, 1\" pads_begin=\"0, 0\" pads_end=\"0, 0\" auto_pad=\"same_upper\"",
     "1,2,5,5", "3,2,3,3", NULL, NULL, {0}, 0, 1, 4, {1, 3, 3, 3}},
    {"Convolution", "opset1",
     "strides=\"1\" dilations=\"2\" pads_begin=\"0\" pads_end=\"0\" auto_pad=\"VALID\"", "1,2,9",
     "4,2,3", NULL, NULL, {0}, 0, 1, 3, {1, 4, 5}},
    {"GroupConvolution", "opset1",
     "strides=\"1, 1\" dilations=\"1, 1\" pads_begin=\"1, 1\" pads_end=\"1, 1\" auto_pad=\"explicit\"",
     "1,4,5,5", "2,3,2,3,3", NULL, NULL, {0}, 0, 1, 4, {1, 6, 5, 5}},
    {"MaxPool", "opset1",
     "strides=\"2, 2\" pads_begin=\"0, 0\" pads_end=\"0, 0\" kernel=\"3, 3\" rounding_type=\"ceil\" "
     "auto_pad=\"explicit\"", "1,2,8,8", NULL, NULL, NULL, {0}, 0, 1, 4, {1, 2, 4, 4}},
    {"MaxPool", "opset8",
     "strides=\"1, 1\" dilations=\"2, 2\" pads_begin=\"0, 0\" pads_end=\"0, 0\" kernel=\"2, 2\" "
     "rounding_type=\"floor\" auto_pad=\"same_lower\" index_element_type=\"i64\" axis=\"0\"",
     "1,1,4,4", NULL, NULL, NULL, {0}, 0, 1, 4, {1, 1, 4, 4}},
    {"AvgPool", "opset1",
     "kernel=\"3,3\" pads_begin=\"1,1\" pads_end=\"1,1\" strides=\"2,2\" exclude-pad=\"true\" "
     "rounding_type=\"ceil\"", "1,3,22,22", NULL, NULL, NULL, {0}, 0, 1, 4, {1, 3, 12, 12}},
    {"ReduceMean", "opset1", "keep_dims=\"true\"", "2,3,4", NULL, "i64", "2", {-1, 0}, 2, 1, 3,
     {1, 3, 1}},
    {"ReduceSum", "opset1", "keep_dims=\"false\"", "2,3,4", NULL, "i32", "1", {1}, 1, 1, 2, {2, 4}},
    {"Reshape", "opset1", "special_zero=\"true\"", "2,3,4", NULL, "i64", "3", {0, -1, 2}, 3, 1, 3,
     {2, 6, 2}},
    {"Squeeze", "opset1", NULL, "1,3,1,2", NULL, "i64", "1", {-2}, 1, 1, 3, {1, 3, 2}},
    {"Squeeze", "opset1", NULL, "1,3,1,2", NULL, NULL, NULL, {0}, 0, 1, 2, {3, 2}},
    {"Unsqueeze", "opset1", NULL, "3,2", NULL, "i64", "2", {0, -1}, 2, 1, 4, {1, 3, 2, 1}},
    {"Transpose", "opset1", NULL, "2,3,4", NULL, "i64", "3", {2, 0, 1}, 3, 1, 3, {4, 2, 3}},
    {"Concat", "opset1", "axis=\"-1\"", "2,3", "2,2", NULL, NULL, {0}, 0, 1, 2, {2, 5}},
    {"Split", "opset1", "num_splits=\"3\"", "2,6", NULL, "i64", "", {1}, 1, 3, 2, {2, 2}},
    {"VariadicSplit", "opset1", NULL, "4,3", NULL, NULL, NULL, {0}, 0, 2, 2, {1, 3}},
    {"Gather", "opset8", "batch_dims=\"0\"", "2,3", NULL, "i64", "2", {2, -3}, 2, 1, 2, {2, 2}},
    {"ShapeOf", "opset3", "output_type=\"i64\"", "2,3,4", NULL, NULL, NULL, {0}, 0, 1, 1, {3}},
};

/* Reference for a few ops whose value is easy to state independently. */
static void check_values(const op_case *c, const float *x, const float *x2, const float *y, size_t n)
{
    float want[64];
    if (!strcmp(c->type, "Transpose")) {   /* [2,3,4] perm (2,0,1) -> [4,2,3] */
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 2; b++)
                for (int d = 0; d < 3; d++)
                    want[(a * 2 + b) * 3 + d] = x[(b * 3 + d) * 4 + a];
    } else if (!strcmp(c->type, "Concat")) {
        for (int r = 0; r < 2; r++)
            for (int k = 0; k < 5; k++)
                want[r * 5 + k] = k < 3 ? x[r * 3 + k] : x2[r * 2 + k - 3];
    } else if (!strcmp(c->type, "ReduceSum")) {
        for (int a = 0; a < 2; a++)
            for (int d = 0; d < 4; d++)
                want[a * 4 + d] = x[(a * 3 + 0) * 4 + d] + x[(a * 3 + 1) * 4 + d] + x[(a * 3 + 2) * 4 + d];
    } else if (!strcmp(c->type, "ReduceMean")) {
        for (int b = 0; b < 3; b++) {
            double s = 0;
            for (int a = 0; a < 2; a++)
                for (int d = 0; d < 4; d++)
                    s += x[(a * 3 + b) * 4 + d];
            want[b] = (float)(s / 8);
        }
    } else if (!strcmp(c->type, "Gather")) {
        for (int r = 0; r < 2; r++) {
            want[r * 2] = x[r * 3 + 2];
            want[r * 2 + 1] = x[r * 3];
        }
    } else if (!strcmp(c->type, "ShapeOf")) {
        int64_t got[3];
        memcpy(got, y, sizeof got);
        assert_true(got[0] == 2 && got[1] == 3 && got[2] == 4 && n == 3);
        return;
    } else if (!strcmp(c->type, "Split")) {  /* first part: columns 0..1 */
        for (int r = 0; r < 2; r++)
            for (int k = 0; k < 2; k++)
                want[r * 2 + k] = x[r * 6 + k];
    } else if (!strcmp(c->type, "Reshape") || !strcmp(c->type, "Squeeze") ||
               !strcmp(c->type, "Unsqueeze")) {
        memcpy(want, x, n * sizeof(float));
    } else if (!strcmp(c->type, "Clamp")) {
        for (size_t i = 0; i < n; i++)
            want[i] = x[i] < -0.5f ? -0.5f : x[i] > 0.5f ? 0.5f : x[i];
    } else if (!strcmp(c->type, "Subtract")) {
        for (int r = 0; r < 2; r++)
            for (int k = 0; k < 3; k++)
                want[r * 3 + k] = x[k] - x2[r * 3 + k];
    } else if (!strcmp(c->type, "Negative")) {
        for (size_t i = 0; i < n; i++)
            want[i] = -x[i];
    } else {
        return;
    }
    assert_close(y, want, n, 1e-6f);
}

static void test_every_op_infers_shape_and_runs(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof op_cases / sizeof op_cases[0]; k++) {
        const op_case *c = &op_cases[k];
        ir m = {0};
        buf w = {0};
        char ins[256], outs[512] = "";
        param(&m, 0, "x", "f32", "FP32", c->in_shape);
        snprintf(ins, sizeof ins, "FP32:%s", c->in_shape);
        int next = 1, n_in = 1;
        if (c->in_shape2) {
            param(&m, next, "x2", "f32", "FP32", c->in_shape2);
            snprintf(ins + strlen(ins), sizeof ins - strlen(ins), ";FP32:%s", c->in_shape2);
            edge(&m, next++, 0, 10, n_in++);
        }
        if (c->const_et) {
            size_t esz = strcmp(c->const_et, "i64") ? 4 : 8, off = 0;
            for (int i = 0; i < c->n_const; i++) {
                int64_t v64 = c->const_vals[i];
                int32_t v32 = (int32_t)v64;
                size_t o = wput(&w, esz == 8 ? (const void *)&v64 : (const void *)&v32, esz);
                if (i == 0)
                    off = o;
            }
            const char *prec = esz == 8 ? "I64" : "I32";
            constant(&m, next, "c", c->const_et, prec, c->const_shape, off, esz * (size_t)c->n_const);
            snprintf(ins + strlen(ins), sizeof ins - strlen(ins), ";%s:%s", prec, c->const_shape);
            edge(&m, next++, 0, 10, n_in++);
        }
        if (!strcmp(c->type, "Gather")) { /* axis 1 */
            int64_t axis = 1;
            constant(&m, next, "axis", "i64", "I64", "", wput(&w, &axis, 8), 8);
            edge(&m, next++, 0, 10, n_in++);
            snprintf(ins + strlen(ins), sizeof ins - strlen(ins), ";I64:");
        }
        if (!strcmp(c->type, "VariadicSplit")) { /* axis 0 scalar, lengths [1,-1] */
            int64_t axis = 0, lens[2] = {1, -1};
            size_t oa = wput(&w, &axis, 8), ol = wput(&w, lens, 16);
            constant(&m, next, "axis", "i64", "I64", "", oa, 8);
            edge(&m, next++, 0, 10, n_in++);
            constant(&m, next, "lens", "i64", "I64", "2", ol, 16);
            edge(&m, next++, 0, 10, n_in++);
            snprintf(ins + strlen(ins), sizeof ins - strlen(ins), ";I64:;I64:2");
        }
        for (int o = 0; o < c->n_out; o++)
            snprintf(outs + strlen(outs), sizeof outs - strlen(outs), "%sFP32:9", o ? ";" : "");
        /* declared output dims are deliberately wrong ("9"): the compiler must infer */
        layer(&m, 10, "op", c->type, c->version, c->data, ins, outs);
        edge(&m, 0, 0, 10, 0);
        for (int o = 0; o < c->n_out; o++) {
            char rn[32];
            snprintf(rn, sizeof rn, "out%d", o);
            result(&m, 20 + o, rn, "FP32:9");
            edge(&m, 10, n_in + o, 20 + o, 0);
        }
        char *xml = ir_xml(&m, c->type);
        size_t n;
        uint8_t *pl = payload_a(xml, w.s, w.len, VER, &n);
        sim_plan *p = NULL;
        int rc = sim_plan_compile(pl, n, VER, NULL, &p, g_log, sizeof g_log);
        if (rc != SIM_OK)
            fail_msg("case %zu (%s): compile failed: %s", k, c->type, g_log);
        uint32_t n_args = sim_plan_arg_count(p), n_inputs = c->in_shape2 ? 2 : 1;
        assert_int_equal(n_args, n_inputs + (uint32_t)c->n_out);
        const sim_arg *out = arg(p, n_inputs);
        assert_int_equal(out->is_output, 1);
        assert_dims(out, c->out_rank, c->out_dims);

        float x[2048], x2[2048], y[3][2048];
        for (int i = 0; i < 2048; i++) {
            x[i] = det(i, 1.5f) + (strcmp(c->type, "Sqrt") ? 0.0f : 2.0f);
            x2[i] = det(i + 7, 1.0f) + (strcmp(c->type, "Divide") ? 0.0f : 3.0f);
        }
        void *args[5] = {x, c->in_shape2 ? (void *)x2 : (void *)y[0], y[1], y[2], NULL};
        if (c->in_shape2) {
            args[2] = y[0];
            args[3] = y[1];
            args[4] = y[2];
        } else {
            args[1] = y[0];
            args[2] = y[1];
            args[3] = y[2];
        }
        assert_int_equal(sim_plan_run(p, args, 0), SIM_OK);
        size_t numel = 1;
        for (uint32_t i = 0; i < out->rank; i++)
            numel *= out->dims[i];
        check_values(c, x, x2, y[0], numel);
        sim_plan_destroy(p);
        free(pl);
        free(xml);
        free(w.s);
    }
}

/* Long-lived values and fan-out: the arena packer must not reuse a buffer that
 * is still needed. a = relu(x); b = sigmoid(a); c = exp(b); d = abs(c - 2);
 * e = d + a; f = e * b; outputs f, c and a Parameter passed straight through. */
static void test_branches_keep_values_alive(void **state)
{
    (void)state;
    ir m = {0};
    param(&m, 0, "x", "f32", "FP32", "3,5");
    layer(&m, 1, "a", "ReLU", "opset1", NULL, "FP32:3,5", "FP32:3,5");
    layer(&m, 2, "b", "Sigmoid", "opset1", NULL, "FP32:3,5", "FP32:3,5");
    layer(&m, 3, "c", "Exp", "opset1", NULL, "FP32:3,5", "FP32:3,5");
    param(&m, 4, "two", "f32", "FP32", "1");
    layer(&m, 5, "cm2", "Subtract", "opset1", NULL, "FP32:3,5;FP32:1", "FP32:3,5");
    layer(&m, 6, "d", "Abs", "opset1", NULL, "FP32:3,5", "FP32:3,5");
    layer(&m, 7, "e", "Add", "opset1", NULL, "FP32:3,5;FP32:3,5", "FP32:3,5");
    layer(&m, 8, "f", "Multiply", "opset1", NULL, "FP32:3,5;FP32:3,5", "FP32:3,5");
    result(&m, 9, "f_out", "FP32:3,5");
    result(&m, 10, "c_out", "FP32:3,5");
    result(&m, 11, "two_out", "FP32:1");
    edge(&m, 0, 0, 1, 0);
    edge(&m, 1, 1, 2, 0);
    edge(&m, 2, 1, 3, 0);
    edge(&m, 3, 1, 5, 0);
    edge(&m, 4, 0, 5, 1);
    edge(&m, 5, 2, 6, 0);
    edge(&m, 6, 1, 7, 0);
    edge(&m, 1, 1, 7, 1);
    edge(&m, 7, 2, 8, 0);
    edge(&m, 2, 1, 8, 1);
    edge(&m, 8, 2, 9, 0);
    edge(&m, 3, 1, 10, 0);
    edge(&m, 4, 0, 11, 0);
    char *xml = ir_xml(&m, "branches");
    sim_plan *p = compile_xml(xml, NULL, NULL);
    free(xml);
    assert_int_equal(sim_plan_arg_count(p), 5);
    assert_string_equal(arg(p, 2)->name, "f");
    assert_string_equal(arg(p, 3)->name, "c");
    assert_string_equal(arg(p, 4)->name, "two");
    float x[15], two = 2.0f, f[15], c[15], two_out = 0, wf[15], wc[15];
    for (int i = 0; i < 15; i++) {
        x[i] = det(i, 2.0f);
        float a = x[i] > 0 ? x[i] : 0, b = 1.0f / (1.0f + expf(-a));
        wc[i] = expf(b);
        wf[i] = (fabsf(wc[i] - 2.0f) + a) * b;
    }
    void *args[] = {x, &two, f, c, &two_out};
    assert_int_equal(sim_plan_run(p, args, 0), SIM_OK);
    assert_close(f, wf, 15, 1e-5f);
    assert_close(c, wc, 15, 1e-5f);
    assert_true(two_out == 2.0f);
    sim_plan_destroy(p);
}

/* ---- build flags ------------------------------------------------------------------- */

static char *add_xml(void)
{
    ir m = {0};
    param(&m, 0, "a", "f32", "FP32", "1,4");
    param(&m, 1, "b", "f32", "FP32", "1,4");
    layer(&m, 2, "sum", "Add", "opset1", NULL, "FP32:1,4;FP32:1,4", "FP32:1,4");
    result(&m, 3, "sum_out", "FP32:1,4");
    edge(&m, 0, 0, 2, 0);
    edge(&m, 1, 0, 2, 1);
    edge(&m, 2, 2, 3, 0);
    return ir_xml(&m, "add");
}

/* The I/O flags with every precision set to P (keys 0 and 1 for inputs, 0 for the output). */
#define FLAGS_IO(P)                                                                          \
    "--inputs_precisions=\"0:" P " 1:" P "\" --inputs_layouts=\"0:NC 1:NC\" "            \
    "--outputs_precisions=\"0:" P "\" --outputs_layouts=\"0:NC\""
#define IDX_RT "<rt_info><is_new_api value=\"YES\" /><use_indices_for_io_metadata value=\"YES\" /></rt_info>"

/* A copy of xml with the net's IR version and its (empty) model rt_info replaced. */
static char *with_net(const char *xml, const char *version, const char *rt_info)
{
    buf b = {0};
    const char *v = strstr(xml, "version=\"11\"");
    const char *r = strstr(xml, "<rt_info />\n</net>");
    assert_non_null(v);
    assert_non_null(r);
    bput(&b, xml, (size_t)(v - xml));
    bprintf(&b, "version=\"%s\"", version);
    bput(&b, v + 12, (size_t)(r - (v + 12)));
    bprintf(&b, "%s\n</net>\n", rt_info);
    return b.s;
}


static void test_build_flags_change_io_precisions(void **state)
{
    (void)state;
    char *xml = add_xml();
    /* IR v10 with use_indices_for_io_metadata: the flags convert by index */
    char *v10 = with_net(xml, "10", IDX_RT);
    sim_plan *p = compile_xml(v10, NULL,
                              "--inputs_precisions=\"0:FP16 1:U8\" --inputs_layouts=\"0:NC 1:NC\" "
                              "--outputs_precisions=\"0:FP16\" --outputs_layouts=\"0:NC\" "
                              "--config NPU_PLATFORM=\"3720\" PERF_COUNT=\"YES\"");
    const sim_arg *a = arg(p, 0), *b = arg(p, 1), *y = arg(p, 2);
    assert_int_equal(a->precision, P_FP16);
    assert_int_equal(a->network_precision, P_FP32);
    assert_int_equal(a->bytes, 8);
    assert_int_equal(b->precision, P_U8);
    assert_int_equal(b->bytes, 4);
    assert_int_equal(y->precision, P_FP16);
    assert_int_equal(y->meta_type, 5);
    assert_int_equal(y->layout, 0xC1);
    uint16_t ah[4], yh[4];
    uint8_t bu[4] = {0, 1, 200, 255};
    float af[4] = {0.5f, -1.25f, 3.0f, 1000.0f};
    for (int i = 0; i < 4; i++)
        ah[i] = sim_f32_to_f16(af[i]);
    void *args[] = {ah, bu, yh};
    assert_int_equal(sim_plan_run(p, args, 0), SIM_OK);
    for (int i = 0; i < 4; i++)
        assert_true(sim_f16_to_f32(yh[i]) == af[i] + (float)bu[i]);
    sim_plan_destroy(p);
    free(v10);

    /* v10 without use_indices: matched by name (a Result by the layer feeding it);
     * precision names are case-insensitive */
    v10 = with_net(xml, "10", "");
    p = compile_xml(v10, NULL,
                    "--inputs_precisions=\"a:fp32 b:i32\" --inputs_layouts=\"a:NC b:NC\" "
                    "--outputs_precisions=\"sum:FP32\" --outputs_layouts=\"sum:NC\"");
    assert_int_equal(arg(p, 1)->precision, P_I32);
    assert_int_equal(arg(p, 1)->bytes, 16);
    sim_plan_destroy(p);
    size_t n;
    uint8_t *pl = payload_a(v10, NULL, 0, VER, &n);
    expect_fail(pl, n, FLAGS_IO("FP16"), SIM_ERR_COMPILE, "has no entry for name 'a'");
    /* precisions the real compiler knows but the sim cannot run */
    free(pl);
    free(v10);
    v10 = with_net(xml, "10", IDX_RT);
    pl = payload_a(v10, NULL, 0, VER, &n);
    expect_fail(pl, n, FLAGS_IO("FP64"), SIM_ERR_COMPILE, "precision FP64 for input '0'");
    /* a layout that needs a transpose is refused rather than run on the wrong axes */
    expect_fail(pl, n, "--inputs_precisions=\"0:FP32 1:FP32\" --inputs_layouts=\"0:C 1:NC\" "
                       "--outputs_precisions=\"0:FP32\" --outputs_layouts=\"0:NC\"",
                SIM_ERR_COMPILE, "layout C for input '0' differs from the model layout NC");
    free(pl);
    free(v10);

    /* errors in the flags themselves: INVALID_ARGUMENT in the real driver */
    pl = payload_a(xml, NULL, 0, VER, &n);
    expect_fail(pl, n, FLAGS_IO("WHAT"), SIM_ERR_OPTIONS, "Failed to find WHAT for 0");
    expect_fail(pl, n, "--inputs_precisions=\"0FP16\" --inputs_layouts=\"0:NC\" "
                       "--outputs_precisions=\"0:FP16\" --outputs_layouts=\"0:NC\"",
                SIM_ERR_OPTIONS, "Failed to find delim in option! Value: 0FP16");
    expect_fail(pl, n, "--inputs_precisions=\"0:FP16", SIM_ERR_OPTIONS, "unterminated");
    expect_fail(pl, n, "--bogus=\"1\"", SIM_ERR_OPTIONS, "Invalid key in option");
    expect_fail(pl, n, "--config NOVALUE", SIM_ERR_OPTIONS, "is in bad format");
    free(pl);
    free(xml);
}

/* IR >= 11 skips the preprocessing: the flags are checked, then change nothing. */
static void test_v11_ignores_io_precisions(void **state)
{
    (void)state;
    char *xml = add_xml();
    sim_plan *p = compile_xml(xml, NULL,
                              "--inputs_precisions=\"0:FP16 1:U8\" --inputs_layouts=\"0:NC 1:NC\" "
                              "--outputs_precisions=\"0:FP64\" --outputs_layouts=\"0:NC\"");
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(arg(p, i)->precision, P_FP32);
        assert_int_equal(arg(p, i)->bytes, 16);
    }
    sim_plan_destroy(p);
    free(xml);
}

/* v10 flags keyed by index need use_indices_for_io_metadata, else they are names. */
static void test_v10_index_keys_need_use_indices(void **state)
{
    (void)state;
    char *xml = add_xml(), *v10 = with_net(xml, "10", "<rt_info><is_new_api value=\"YES\" /></rt_info>");
    size_t n;
    uint8_t *pl = payload_a(v10, NULL, 0, VER, &n);
    expect_fail(pl, n, FLAGS_IO("FP32"), SIM_ERR_COMPILE,
                "--inputs_precisions has no entry for name 'a' (input 0, \"a\"); available: 0, 1");
    free(pl);
    free(v10);
    v10 = with_net(xml, "10", IDX_RT);
    pl = payload_a(v10, NULL, 0, VER, &n);
    sim_plan_destroy(compile_ok(pl, n, FLAGS_IO("FP32")));
    free(pl);
    free(v10);
    free(xml);
}

static void test_layouts_in_flags_are_the_real_set(void **state)
{
    (void)state;
    char *xml = add_xml();
    size_t n;
    uint8_t *pl = payload_a(xml, NULL, 0, VER, &n);
    const char *ok[] = {"NCHW", "NHWC", "NCDHW", "NDHWC", "CHW", "HWC", "NC", "C", "**SCALAR**", "N?", "N..."};
    const char *bad[] = {"SCALAR", "nc", "CN", "ANY", "BLOCKED", "OIHW", "HW"};
    char flags[512];
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        snprintf(flags, sizeof flags, "--inputs_precisions=\"0:FP32 1:FP32\" --inputs_layouts=\"0:%s 1:NC\" "
                 "--outputs_precisions=\"0:FP32\" --outputs_layouts=\"0:NC\"", ok[i]);
        sim_plan_destroy(compile_ok(pl, n, flags));
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(flags, sizeof flags, "--inputs_precisions=\"0:FP32 1:FP32\" --inputs_layouts=\"0:NC 1:NC\" "
                 "--outputs_precisions=\"0:FP32\" --outputs_layouts=\"0:%s\"", bad[i]);
        char want[64];
        snprintf(want, sizeof want, "Failed to find %s for 0", bad[i]);
        expect_fail(pl, n, flags, SIM_ERR_OPTIONS, want);
    }
    free(pl);
    free(xml);
}

static void use_profile(const char *name)
{
    const sim_profile *p = sim_profile_find(name);
    assert_non_null(p);
    sim_profile_select(p);
}

/* The serializer is chosen by --config only; the buffer is never sniffed. */
static void test_serializer_key_selects_the_layout(void **state)
{
    (void)state;
    char *raw = add_xml(), *xml = with_net(raw, "11", IDX_RT);
    free(raw);
    size_t na, nb;
    uint8_t *a = payload_a(xml, NULL, 0, VER, &na), *b = payload_b(xml, NULL, 0, VER, &nb);
    /* 2026: NPU_MODEL_SERIALIZER_VERSION */
    use_profile("2026");
    sim_plan_destroy(compile_ok(a, na, NULL));
    sim_plan_destroy(compile_ok(b, nb, FLAGS_B));
    expect_fail(b, nb, NULL, SIM_ERR_INVALID_IR, "Unsupported IR API version! Val: 48.0");
    expect_fail(b, nb, "--config NPU_MODEL_SERIALIZER_VERSION=\"ALL_WEIGHTS_COPY\"", SIM_ERR_INVALID_IR,
                "Val: 48.0");
    expect_fail(a, na, FLAGS_B, SIM_ERR_INVALID_IR, "layout B header out of bounds");
    expect_fail(b, nb, "--config NPU_MODEL_SERIALIZER_VERSION=\"AUTO\"", SIM_ERR_OPTIONS, "Received: AUTO");
    expect_fail(b, nb, "--config NPU_USE_BASE_MODEL_SERIALIZER=\"NO\"", SIM_ERR_OPTIONS,
                "Option 'NPU_USE_BASE_MODEL_SERIALIZER' is not supported");
    /* 2025: NPU_USE_BASE_MODEL_SERIALIZER, default YES = layout A */
    use_profile("2025");
    sim_plan_destroy(compile_ok(a, na, NULL));
    sim_plan_destroy(compile_ok(b, nb, "--config NPU_USE_BASE_MODEL_SERIALIZER=\"NO\""));
    expect_fail(b, nb, NULL, SIM_ERR_INVALID_IR, "Unsupported IR API version! Val: 48.0");
    expect_fail(b, nb, FLAGS_B, SIM_ERR_OPTIONS, "Option 'NPU_MODEL_SERIALIZER_VERSION' is not supported");
    expect_fail(b, nb, "--config NPU_USE_BASE_MODEL_SERIALIZER=\"maybe\"", SIM_ERR_OPTIONS,
                "is not a valid BOOL option");
    /* 2024: only layout A exists */
    use_profile("2024");
    const char *io = FLAGS_IO("FP32");
    sim_plan_destroy(compile_ok(a, na, io));
    expect_fail(b, nb, io, SIM_ERR_INVALID_IR, "Unsupported IR API version! Val: 48.0");
    char flags[512];
    snprintf(flags, sizeof flags, "%s --config NPU_USE_BASE_MODEL_SERIALIZER=\"NO\"", io);
    expect_fail(b, nb, flags, SIM_ERR_OPTIONS, "Option 'NPU_USE_BASE_MODEL_SERIALIZER' is not supported");
    use_profile("2026");
    free(a);
    free(b);
    free(xml);
}

static void test_config_keys_per_compiler(void **state)
{
    (void)state;
    char *raw = add_xml(), *xml = with_net(raw, "11", IDX_RT);
    free(raw);
    size_t n;
    uint8_t *pl = payload_a(xml, NULL, 0, VER, &n);
    const char *io = FLAGS_IO("FP32");
    char flags[512];
#define WITH(cfg) (snprintf(flags, sizeof flags, "%s --config %s", io, cfg), flags)
    use_profile("2026");
    expect_fail(pl, n, WITH("NPU_FROBNICATE=\"1\""), SIM_ERR_OPTIONS,
                "[ NOT_FOUND ] Option 'NPU_FROBNICATE' is not supported for current configuration");
    sim_plan_destroy(compile_ok(pl, n, WITH("MODEL_PRIORITY=\"HIGH\" CACHE_DIR=\"/tmp/x\"")));
    sim_plan_destroy(compile_ok(pl, n, WITH("VPUX_TURBO=\"YES\" NPU_DPU_GROUPS=\"2\" PERF_COUNT=\"YES\"")));
    expect_fail(pl, n, WITH("NPU_PLATFORM=\"9999\""), SIM_ERR_OPTIONS, "Unknown value for platform: 9999");
    assert_int_equal(sim_compiler_option_supported("NPU_MODEL_SERIALIZER_VERSION", "NO_WEIGHTS_COPY"), 1);
    assert_int_equal(sim_compiler_option_supported("NPU_USE_BASE_MODEL_SERIALIZER", "NO"), 0);
    assert_int_equal(sim_compiler_option_supported("MODEL_PRIORITY", NULL), 0);
    assert_int_equal(sim_compiler_option_supported("NPU_TURBO", "YES"), 1);
    assert_int_equal(sim_compiler_option_supported("NPU_TURBO", "maybe"), 0);
    assert_int_equal(sim_compiler_option_supported("NPU_DPU_GROUPS", "2"), 1);
    char list[1024];
    size_t need = sim_compiler_supported_options(NULL, 0);
    assert_true(need > 1 && need <= sizeof list);
    assert_int_equal(sim_compiler_supported_options(list, sizeof list), need);
    assert_int_equal(strlen(list) + 1, need);
    assert_non_null(strstr(list, "NPU_MODEL_SERIALIZER_VERSION"));
    assert_null(strstr(list, "NPU_USE_BASE_MODEL_SERIALIZER"));
    use_profile("2025");
    sim_plan_destroy(compile_ok(pl, n, WITH("NPU_TURBO=\"NO\" MODEL_PRIORITY=\"LOW\"")));
    assert_int_equal(sim_compiler_option_supported("NPU_USE_BASE_MODEL_SERIALIZER", "NO"), 1);
    assert_int_equal(sim_compiler_option_supported("NPU_MODEL_SERIALIZER_VERSION", NULL), 0);
    use_profile("2024");
    expect_fail(pl, n, WITH("NPU_TURBO=\"NO\""), SIM_ERR_OPTIONS, "Option 'NPU_TURBO' is not supported");
    sim_plan_destroy(compile_ok(pl, n, WITH("MODEL_PRIORITY=\"LOW\" NPU_DPU_GROUPS=\"2\"")));
    assert_int_equal(sim_compiler_option_supported("NPU_TURBO", NULL), 0);
    /* the 2024 compiler needs all four I/O options */
    expect_fail(pl, n, NULL, SIM_ERR_OPTIONS, "Mandatory ioInfo options are missing");
    use_profile("2026");
#undef WITH
    free(pl);
    free(xml);
}

/* rt_info booleans: YES/NO; "true" only where the compiler's OpenVINO reads it. */
static void test_rt_info_booleans_per_compiler(void **state)
{
    (void)state;
    char *xml = add_xml();
    char *t = with_net(xml, "11", "<rt_info><is_new_api value=\"true\" />"
                                  "<use_indices_for_io_metadata value=\"true\" /></rt_info>");
    char *y = with_net(xml, "11", "<rt_info><is_new_api value=\"YES\" />"
                                  "<use_indices_for_io_metadata value=\"YES\" /></rt_info>");
    size_t nt, ny;
    uint8_t *pt = payload_a(t, NULL, 0, VER, &nt), *py = payload_a(y, NULL, 0, VER, &ny);
    const char *io = FLAGS_IO("FP32");
    use_profile("2024");
    expect_fail(pt, nt, io, SIM_ERR_COMPILE, "Could not convert to bool from string true");
    sim_plan_destroy(compile_ok(py, ny, io));
    use_profile("2026");
    sim_plan_destroy(compile_ok(pt, nt, io));
    sim_plan_destroy(compile_ok(py, ny, io));
    free(pt);
    free(py);
    free(t);
    free(y);
    free(xml);
}

static void test_read_value_without_input_per_compiler(void **state)
{
    (void)state;
    ir m = {0};
    layer(&m, 0, "rv", "ReadValue", "opset6",
          "variable_id=\"v\" variable_type=\"f32\" variable_shape=\"1,2\"", NULL, "FP32:1,2");
    result(&m, 1, "y", "FP32:1,2");
    edge(&m, 0, 0, 1, 0);
    char *xml = ir_xml(&m, "rv");
    size_t n;
    uint8_t *pl = payload_a(xml, NULL, 0, VER, &n);
    const char *io = "--inputs_precisions=\"\" --inputs_layouts=\"\" --outputs_precisions=\"0:FP32\" "
                     "--outputs_layouts=\"0:NC\"";
    use_profile("2024");
    expect_fail(pl, n, io, SIM_ERR_COMPILE, "nGraph ReadValue node 'rv' has unsupported number of inputs '0'");
    use_profile("2025");
    sim_plan_destroy(compile_ok(pl, n, io));
    use_profile("2026");
    sim_plan_destroy(compile_ok(pl, n, io));
    free(pl);
    free(xml);
}

/* The WeightsPointerAttribute key names are those of the compiler's OpenVINO. */
static void test_weights_pointer_key_names(void **state)
{
    (void)state;
    static const float w[4] = {1, 2, 3, 4};
    const char *keys[][2] = {{"mp", "ms"}, {"np", "ns"}, {"ptr", "ms"}, {"mpZ", "msZ"}};
    for (size_t k = 0; k < 2 * (sizeof keys / sizeof keys[0]); k++) {
        /* first on the 2026 compiler (NPU_MODEL_SERIALIZER_VERSION), then on 2025 */
        int on_2025 = k >= sizeof keys / sizeof keys[0];
        use_profile(on_2025 ? "2025" : "2026");
        const char *flags_b = on_2025 ? "--config NPU_USE_BASE_MODEL_SERIALIZER=\"NO\"" : FLAGS_B;
        const char *const *key = keys[k % (sizeof keys / sizeof keys[0])];
        ir m = {0};
        param(&m, 0, "x", "f32", "FP32", "1,4");
        char extra[256];
        snprintf(extra, sizeof extra,
                 "\t\t\t<rt_info><attribute name=\"WeightsPointerAttribute\" version=\"0\" %s=\"%llu\" "
                 "%s=\"16\" /></rt_info>\n", key[0], (unsigned long long)(uintptr_t)w, key[1]);
        layer_x(&m, 1, "w", "Const", "opset1", "element_type=\"f32\" shape=\"1,4\" offset=\"0\" size=\"16\"",
                NULL, "FP32:1,4", extra);
        layer(&m, 2, "sum", "Add", "opset1", NULL, "FP32:1,4;FP32:1,4", "FP32:1,4");
        result(&m, 3, "out", "FP32:1,4");
        edge(&m, 0, 0, 2, 0);
        edge(&m, 1, 0, 2, 1);
        edge(&m, 2, 2, 3, 0);
        char *xml = ir_xml(&m, "wpa");
        size_t n;
        uint8_t *pl = payload_b(xml, NULL, 0, VER, &n);
        const sim_profile *prof = sim_profile_current();
        if (!strcmp(key[0], prof->wpa_ptr_key) && !strcmp(key[1], prof->wpa_size_key)) {
            sim_plan *p = compile_ok(pl, n, flags_b);
            float x[4] = {1, 1, 1, 1}, y[4];
            float *ins[] = {x}, *outs[] = {y};
            run_f32(p, ins, outs);
            assert_true(y[3] == 5.0f);
            sim_plan_destroy(p);
        } else {
            /* 2025: OpenVINO's read error is UNKNOWN; 2026: INVALID_ARGUMENT */
            expect_fail(pl, n, flags_b, on_2025 ? SIM_ERR_READ_MODEL : SIM_ERR_COMPILE,
                        "is missing mandatory attribute");
        }
        free(pl);
        free(xml);
    }
    use_profile("2026");
}

/* ---- malformed payloads ------------------------------------------------------------- */

static void test_malformed_payloads_are_refused_with_a_log(void **state)
{
    (void)state;
    char *xml = add_xml();
    size_t n;
    uint8_t *pl = payload_a(xml, NULL, 0, VER, &n);
    expect_fail(pl, 10, NULL, SIM_ERR_INVALID_IR, "too small");
    expect_fail(pl, n - 1, NULL, SIM_ERR_INVALID_IR, "exceeds");   /* weights size field cut */
    expect_fail(pl, n - 9, NULL, SIM_ERR_INVALID_IR, "exceeds");   /* XML cut */
    uint64_t big = UINT64_MAX - 3;
    memcpy(pl + 8, &big, 8);
    expect_fail(pl, n, NULL, SIM_ERR_INVALID_IR, "XML size");
    uint64_t zero = 0;
    memcpy(pl + 8, &zero, 8);
    expect_fail(pl, n, NULL, SIM_ERR_INVALID_IR, "Bad buffer size in IR!");
    free(pl);
    pl = payload_a(xml, NULL, 0, VER, &n);
    uint64_t ws = 1;
    memcpy(pl + 16 + strlen(xml), &ws, 8);
    expect_fail(pl, n, NULL, SIM_ERR_INVALID_IR, "The IR content and size mismatch!");
    uint32_t ten = 10;
    memcpy(pl + 4, &ten, 4);
    expect_fail(pl, n, NULL, SIM_ERR_INVALID_IR, "Bad elements number in IR!");
    free(pl);
    pl = payload_a(xml, NULL, 0, (6u << 16) | 9u, &n);
    expect_fail(pl, n, NULL, SIM_ERR_INVALID_IR, "Unsupported IR API version! Val: 6.9");
    free(pl);
    pl = payload_b(xml, NULL, 0, VER, &n);
    sim_plan_destroy(compile_ok(pl, n, FLAGS_B));
    uint64_t bad_model_size = n;
    memcpy(pl + 40, &bad_model_size, 8);
    expect_fail(pl, n, FLAGS_B, SIM_ERR_INVALID_IR, "layout B header out of bounds");
    free(pl);
    expect_fail(NULL, 0, NULL, SIM_ERR_INVALID_IR, "too small");

    /* XML damage */
    char *cut = strdup(xml);
    cut[strlen(cut) / 2] = '\0';
    expect_xml_fail(cut, NULL, SIM_ERR_COMPILE, "IR XML is malformed");
    use_profile("2025");
    expect_xml_fail(cut, NULL, SIM_ERR_READ_MODEL, "IR XML is malformed");
    use_profile("2026");
    free(cut);
    expect_xml_fail("<net name=\"x\" version=\"7\"><layers/></net>", NULL, SIM_ERR_COMPILE,
                    "version \"7\" is not supported");
    expect_xml_fail("<model/>", NULL, SIM_ERR_COMPILE, "root element");

    char *t = strdup(xml);
    char *e = strstr(t, "<edge from-layer=\"1\"");   /* drop b -> sum */
    memcpy(e, "<ed_e", 5);
    expect_xml_fail(t, NULL, SIM_ERR_COMPILE, "layer 'sum' (id 2): input port 1 is not connected");
    free(t);
    t = strdup(xml);
    e = strstr(t, "to-layer=\"2\" to-port=\"1\"");
    memcpy(e, "to-layer=\"7\"", 12);
    expect_xml_fail(t, NULL, SIM_ERR_COMPILE, "refers to layer id 7");
    free(t);
    t = strdup(xml);
    e = strstr(t, "to-layer=\"2\" to-port=\"1\"");
    memcpy(e, "to-layer=\"2\" to-port=\"0\"", 24);
    expect_xml_fail(t, NULL, SIM_ERR_COMPILE, "more than one incoming edge");
    free(t);
    t = strdup(xml);
    e = strstr(t, "from-layer=\"2\" from-port=\"2\"");
    memcpy(e, "from-layer=\"2\" from-port=\"0\"", 28);
    expect_xml_fail(t, NULL, SIM_ERR_COMPILE, "not an output port");
    free(t);
    t = strdup(xml);
    e = strstr(t, "layer id=\"1\"");
    memcpy(e, "layer id=\"0\"", 12);
    expect_xml_fail(t, NULL, SIM_ERR_COMPILE, "layer id is used twice");
    free(t);
    free(xml);

    /* a cycle: relu1 -> relu2 -> relu1 */
    ir m = {0};
    param(&m, 0, "x", "f32", "FP32", "4");
    layer(&m, 1, "mix", "Add", "opset1", NULL, "FP32:4;FP32:4", "FP32:4");
    layer(&m, 2, "r1", "ReLU", "opset1", NULL, "FP32:4", "FP32:4");
    layer(&m, 3, "r2", "ReLU", "opset1", NULL, "FP32:4", "FP32:4");
    result(&m, 4, "y", "FP32:4");
    edge(&m, 0, 0, 1, 0);
    edge(&m, 3, 1, 1, 1);
    edge(&m, 1, 2, 2, 0);
    edge(&m, 2, 1, 3, 0);
    edge(&m, 2, 1, 4, 0);
    xml = ir_xml(&m, "cycle");
    expect_xml_fail(xml, NULL, SIM_ERR_COMPILE, "cycle");
    free(xml);

    /* Const size mismatch and out-of-bounds weights */
    buf w = {0};
    int64_t perm[4] = {0, 2, 3, 1};
    wput(&w, perm, sizeof perm);
    for (int variant = 0; variant < 3; variant++) {
        m = (ir){0};
        param(&m, 0, "x", "f32", "FP32", "1,2,3,4");
        constant(&m, 1, "perm", "i64", "I64", "4", variant == 2 ? 8 : 0, variant == 1 ? 16 : 32);
        layer(&m, 2, "t", "Transpose", "opset1", NULL, "FP32:1,2,3,4;I64:4", "FP32:1,3,4,2");
        result(&m, 3, "y", "FP32:1,3,4,2");
        edge(&m, 0, 0, 2, 0);
        edge(&m, 1, 0, 2, 1);
        edge(&m, 2, 2, 3, 0);
        xml = ir_xml(&m, "t");
        if (variant == 0) {
            sim_plan *p = compile_xml(xml, &w, NULL);
            assert_dims(arg(p, 1), 4, (const uint64_t[]){1, 3, 4, 2});
            sim_plan_destroy(p);
        } else if (variant == 1) {
            expect_xml_fail(xml, &w, SIM_ERR_COMPILE, "layer 'perm' (id 1): Const size mismatch");
        } else {
            expect_xml_fail(xml, &w, SIM_ERR_COMPILE, "layer 'perm' (id 1): Const bytes 8+32 lie outside");
        }
        free(xml);
    }
    free(w.s);

    /* unsupported op, unsupported type, dynamic input */
    m = (ir){0};
    param(&m, 0, "x", "f32", "FP32", "4");
    layer(&m, 12, "loop", "Loop", "opset5", NULL, "FP32:4", "FP32:4");
    result(&m, 2, "y", "FP32:4");
    edge(&m, 0, 0, 12, 0);
    edge(&m, 12, 1, 2, 0);
    xml = ir_xml(&m, "loop");
    expect_xml_fail(xml, NULL, SIM_ERR_COMPILE, "layer 'loop' (id 12): unsupported op Loop-opset5");
    free(xml);
    m = (ir){0};
    param(&m, 0, "bits", "u1", "BIN", "4");
    result(&m, 1, "y", "BIN:4");
    edge(&m, 0, 0, 1, 0);
    xml = ir_xml(&m, "u1");
    expect_xml_fail(xml, NULL, SIM_ERR_COMPILE, "layer 'bits' (id 0): unsupported element type u1");
    free(xml);
    m = (ir){0};
    param(&m, 0, "x", "f32", "FP32", "?,4");
    result(&m, 1, "y", "FP32:-1,4");
    edge(&m, 0, 0, 1, 0);
    xml = ir_xml(&m, "dyn");
    expect_xml_fail(xml, NULL, SIM_ERR_COMPILE,
                    "dynamic shape on input 'x' not supported by the sim compiler; reshape to static first");
    free(xml);
    m = (ir){0};
    param(&m, 0, "x", "f32", "FP32", "3,4");
    layer(&m, 1, "mm", "MatMul", "opset1", NULL, "FP32:3,4;FP32:3,4", "FP32:3,3");
    result(&m, 2, "y", "FP32:3,3");
    edge(&m, 0, 0, 1, 0);
    edge(&m, 0, 0, 1, 1);
    edge(&m, 1, 2, 2, 0);
    xml = ir_xml(&m, "mm");
    expect_xml_fail(xml, NULL, SIM_ERR_COMPILE, "layer 'mm' (id 1): MatMul inner dims differ");
    free(xml);

    /* MaxPool-8 with its indices output connected */
    m = (ir){0};
    param(&m, 0, "x", "f32", "FP32", "1,1,4,4");
    layer(&m, 1, "mp", "MaxPool", "opset8",
          "strides=\"2, 2\" dilations=\"1, 1\" pads_begin=\"0, 0\" pads_end=\"0, 0\" kernel=\"2, 2\" "
          "rounding_type=\"floor\" auto_pad=\"explicit\" index_element_type=\"i64\" axis=\"0\"",
          "FP32:1,1,4,4", "FP32:1,1,2,2;I64:1,1,2,2");
    result(&m, 2, "v", "FP32:1,1,2,2");
    result(&m, 3, "i", "I64:1,1,2,2");
    edge(&m, 0, 0, 1, 0);
    edge(&m, 1, 1, 2, 0);
    edge(&m, 1, 2, 3, 0);
    xml = ir_xml(&m, "mp");
    expect_xml_fail(xml, NULL, SIM_ERR_COMPILE, "layer 'mp' (id 1): MaxPool-8 indices output (port 2)");
    free(xml);
    /* SoftMax-1 does not take a negative axis; SoftMax-8 does (tested above) */
    m = (ir){0};
    param(&m, 0, "x", "f32", "FP32", "2,3");
    layer(&m, 1, "sm", "SoftMax", "opset1", "axis=\"-1\"", "FP32:2,3", "FP32:2,3");
    result(&m, 2, "y", "FP32:2,3");
    edge(&m, 0, 0, 1, 0);
    edge(&m, 1, 1, 2, 0);
    xml = ir_xml(&m, "sm");
    expect_xml_fail(xml, NULL, SIM_ERR_COMPILE, "layer 'sm' (id 1): axis -1 is out of range");
    free(xml);
    /* ReadValue-6 without init needs a static shape */
    m = (ir){0};
    layer(&m, 0, "rv", "ReadValue", "opset6",
          "variable_id=\"v\" variable_type=\"f32\" variable_shape=\"?,2\"", NULL, "FP32:-1,2");
    result(&m, 1, "y", "FP32:-1,2");
    edge(&m, 0, 0, 1, 0);
    xml = ir_xml(&m, "rv");
    expect_xml_fail(xml, NULL, SIM_ERR_COMPILE, "layer 'rv' (id 0): ReadValue without init needs a static");
    free(xml);
}

/* ---- native blob --------------------------------------------------------------------- */

static void test_elf_round_trip_and_corrupted_blobs(void **state)
{
    (void)state;
    cnn n;
    cnn_init(&n);
    sim_plan *p = cnn_compile_a(&n);
    size_t size;
    const uint8_t *blob = sim_plan_native(p, &size);
    assert_non_null(blob);
    assert_true(size > 64);
    assert_memory_equal(blob, "\177ELF", 4);
    assert_int_equal(blob[4], 2); /* ELFCLASS64 */
    assert_int_equal(blob[5], 1); /* little endian */
    uint16_t type;
    memcpy(&type, blob + 16, 2);
    assert_int_equal(type, 1);    /* ET_REL */
    assert_non_null(memmem(blob, size, ".sim.plan", 9));
    assert_non_null(memmem(blob, size, ".shstrtab", 9));

    sim_plan *q = NULL;
    assert_int_equal(sim_plan_import(blob, size, &q, g_log, sizeof g_log), SIM_OK);
    assert_int_equal(sim_plan_arg_count(q), sim_plan_arg_count(p));
    for (uint32_t i = 0; i < sim_plan_arg_count(p); i++)
        assert_memory_equal(arg(p, i), arg(q, i), sizeof(sim_arg));
    size_t size2;
    const uint8_t *blob2 = sim_plan_native(q, &size2);
    assert_int_equal(size2, size);
    assert_memory_equal(blob2, blob, size);
    float x[72], y1[4], y2[4];
    for (int i = 0; i < 72; i++)
        x[i] = det(i * 5 + 2, 1.0f);
    float *ins[] = {x}, *o1[] = {y1}, *o2[] = {y2};
    run_f32(p, ins, o1);
    run_f32(q, ins, o2);
    assert_memory_equal(y1, y2, sizeof y1);
    sim_plan_destroy(q);

    /* not ELF */
    q = (sim_plan *)(uintptr_t)1;
    assert_int_equal(sim_plan_import("hello world", 11, &q, g_log, sizeof g_log), SIM_ERR_NOT_ELF);
    assert_null(q);
    assert_int_equal(sim_plan_import(blob, 3, &q, g_log, sizeof g_log), SIM_ERR_NOT_ELF);
    /* truncated, and damaged in places */
    uint8_t *copy = malloc(size);
    assert_non_null(copy);
    assert_int_equal(sim_plan_import(blob, size - 1, &q, g_log, sizeof g_log), SIM_ERR_BAD_BLOB);
    assert_non_null(strstr(g_log, "native blob rejected"));
    assert_int_equal(sim_plan_import(blob, 40, &q, g_log, sizeof g_log), SIM_ERR_BAD_BLOB);
    memcpy(copy, blob, size);
    copy[4] = 1; /* ELFCLASS32 */
    assert_int_equal(sim_plan_import(copy, size, &q, g_log, sizeof g_log), SIM_ERR_BAD_BLOB);
    memcpy(copy, blob, size);
    copy[64 + 8] ^= 0xFF; /* plan format version */
    assert_int_equal(sim_plan_import(copy, size, &q, g_log, sizeof g_log), SIM_ERR_BAD_BLOB);
    memcpy(copy, blob, size);
    copy[size / 2] ^= 0x40; /* somewhere in the records or weights */
    assert_int_equal(sim_plan_import(copy, size, &q, g_log, sizeof g_log), SIM_ERR_BAD_BLOB);
    /* every single-byte corruption is refused or yields a runnable plan: never a crash */
    for (size_t i = 0; i < size; i += 7) {
        memcpy(copy, blob, size);
        copy[i] ^= (uint8_t)(0x5A + i);
        q = NULL;
        int rc = sim_plan_import(copy, size, &q, g_log, sizeof g_log);
        if (rc == SIM_OK) {
            run_f32(q, ins, o2);
            sim_plan_destroy(q);
        } else {
            assert_true(rc == SIM_ERR_BAD_BLOB || rc == SIM_ERR_NOT_ELF);
            assert_null(q);
        }
    }
    free(copy);
    sim_plan_destroy(p);
}

/* ---- query ----------------------------------------------------------------------------- */

static void test_query_lists_supported_layers(void **state)
{
    (void)state;
    ir m = {0};
    param(&m, 0, "x", "f32", "FP32", "1,4");
    layer(&m, 1, "ein", "Einsum", "opset7", "equation=\"ij->ij\"", "FP32:1,4", "FP32:1,4");
    layer(&m, 2, "act", "Relu", "opset1", NULL, "FP32:1,4", "FP32:1,4");
    layer(&m, 3, "custom", "Template", "custom_opset", NULL, "FP32:1,4", "FP32:1,4");
    result(&m, 4, "y", "FP32:1,4");
    edge(&m, 0, 0, 1, 0);
    edge(&m, 0, 0, 2, 0);
    edge(&m, 2, 1, 3, 0);
    edge(&m, 3, 1, 4, 0);
    char *xml = ir_xml(&m, "q");
    size_t n;
    uint8_t *pl = payload_a(xml, NULL, 0, VER, &n);
    size_t needed = 0;
    char out[256];
    assert_int_equal(sim_plan_query_layers(pl, n, VER, out, sizeof out, &needed, g_log, sizeof g_log),
                     SIM_OK);
    assert_string_equal(out, "x;act;y");
    assert_int_equal(needed, 8);
    assert_int_equal(sim_plan_query_layers(pl, n, VER, NULL, 0, &needed, g_log, sizeof g_log), SIM_OK);
    assert_int_equal(needed, 8);
    /* compile names every unsupported layer */
    expect_fail(pl, n, NULL, SIM_ERR_COMPILE, "layer 'ein' (id 1): unsupported op Einsum-opset7");
    assert_non_null(strstr(g_log, "layer 'custom' (id 3): unsupported op Template-custom_opset"));
    assert_int_equal(sim_plan_query_layers(pl, n, VER + 1, out, sizeof out, &needed, g_log, sizeof g_log),
                     SIM_ERR_VERSION);
    free(pl);
    free(xml);
}

/* ---- Interpolate ------------------------------------------------------------------------ */
/* Interpolate-4 and -11 as OpenVINO writes them. Expected values are worked out
 * by hand from the formulas of the op specification (interpolate-4.rst /
 * interpolate-11.rst); each case says how. */

typedef struct interp_ir {
    const char *ver;                   /* "opset4" (data, sizes, scales[, axes]) or "opset11" */
    const char *data;                  /* the <data> attributes */
    const char *et, *prec, *shape;     /* the data Parameter */
    const int64_t *sizes;              /* i64 Const, or NULL */
    int n_sizes;
    const float *scales;               /* f32 Const, or NULL */
    int n_scales;
    const int64_t *axes;               /* i64 Const, or NULL: no axes input */
    int n_axes;
    int sizes_from_param;              /* sizes are a Parameter instead */
    int scales_as_i64;                 /* the scales Const holds i64 (wrong type) */
} interp_ir;

/* Parameter x (id 0) -> Interpolate "interp" (id 10) -> Result y (id 11). */
static char *interp_xml(const interp_ir *c, buf *w)
{
    ir m = {0};
    char ins[512], outs[64], dims[32];
    int v11 = !strcmp(c->ver, "opset11"), port = 1;
    param(&m, 0, "x", c->et, c->prec, c->shape);
    snprintf(ins, sizeof ins, "%s:%s", c->prec, c->shape);
    edge(&m, 0, 0, 10, 0);
    if (c->sizes && (!v11 || !c->scales)) {
        snprintf(dims, sizeof dims, "%d", c->n_sizes);
        if (c->sizes_from_param)
            param(&m, 1, "sizes", "i64", "I64", dims);
        else
            constant(&m, 1, "sizes", "i64", "I64", dims, wput(w, c->sizes, 8 * (size_t)c->n_sizes),
                     8 * (size_t)c->n_sizes);
        snprintf(ins + strlen(ins), sizeof ins - strlen(ins), ";I64:%s", dims);
        edge(&m, 1, 0, 10, port++);
    }
    if (c->scales) {
        snprintf(dims, sizeof dims, "%d", c->n_scales);
        if (c->scales_as_i64) {
            int64_t v[8];
            for (int i = 0; i < c->n_scales; i++)
                v[i] = (int64_t)c->scales[i];
            constant(&m, 2, "scales", "i64", "I64", dims, wput(w, v, 8 * (size_t)c->n_scales),
                     8 * (size_t)c->n_scales);
            snprintf(ins + strlen(ins), sizeof ins - strlen(ins), ";I64:%s", dims);
        } else {
            constant(&m, 2, "scales", "f32", "FP32", dims, wput(w, c->scales, 4 * (size_t)c->n_scales),
                     4 * (size_t)c->n_scales);
            snprintf(ins + strlen(ins), sizeof ins - strlen(ins), ";FP32:%s", dims);
        }
        edge(&m, 2, 0, 10, port++);
    }
    if (c->axes) {
        snprintf(dims, sizeof dims, "%d", c->n_axes);
        constant(&m, 3, "axes", "i64", "I64", dims, wput(w, c->axes, 8 * (size_t)c->n_axes),
                 8 * (size_t)c->n_axes);
        snprintf(ins + strlen(ins), sizeof ins - strlen(ins), ";I64:%s", dims);
        edge(&m, 3, 0, 10, port++);
    }
    /* declared output dims are deliberately wrong: the compiler infers them */
    snprintf(outs, sizeof outs, "%s:9", c->prec);
    layer(&m, 10, "interp", "Interpolate", c->ver, c->data, ins, outs);
    result(&m, 11, "y", outs);
    edge(&m, 10, port, 11, 0);
    return ir_xml(&m, "interp");
}

/* Compiles, checks the output dims, runs x -> y (buffers in the arguments' types). */
static void interp_run(const interp_ir *c, const void *x, void *y, uint32_t rank, const uint64_t *dims)
{
    buf w = {0};
    char *xml = interp_xml(c, &w);
    sim_plan *p = compile_xml(xml, &w, NULL);
    assert_int_equal(sim_plan_arg_count(p), c->sizes_from_param ? 3 : 2);
    const sim_arg *out = arg(p, sim_plan_arg_count(p) - 1);
    assert_int_equal(out->is_output, 1);
    assert_dims(out, rank, dims);
    void *args[3] = {(void *)(uintptr_t)x, y, NULL};
    assert_int_equal(sim_plan_run(p, args, 0), SIM_OK);
    plan_reimports(p);   /* the native blob carries the step and imports again */
    sim_plan_destroy(p);
    free(xml);
    free(w.s);
}

static void interp_fail(const interp_ir *c, const char *needle)
{
    buf w = {0};
    char *xml = interp_xml(c, &w);
    expect_xml_fail(xml, &w, SIM_ERR_COMPILE, needle);
    if (!strstr(g_log, "layer 'interp' (id 10)"))
        fail_msg("the log does not name the layer: %s", g_log);
    free(xml);
    free(w.s);
}

static void test_interpolate_v11_and_v4_compile_and_run(void **state)
{
    (void)state;
    /* v11 linear_onnx, sizes [4, 4] on axes [2, 3], half_pixel: [[1,2],[3,4]] -> each
     * axis reads -0.25, 0.25, 0.75, 1.25, clamped to the input: weights (1,0),
     * (.75,.25), (.25,.75), (0,1). */
    const float x22[4] = {1, 2, 3, 4};
    const float want44[16] = {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f,
                              2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4};
    const int64_t s44[2] = {4, 4}, ax23[2] = {2, 3}, s1144[4] = {1, 1, 4, 4};
    const uint64_t d1144[4] = {1, 1, 4, 4};
    float y[64];
    interp_ir a = {"opset11",
                   "mode=\"linear_onnx\" shape_calculation_mode=\"sizes\" "
                   "coordinate_transformation_mode=\"half_pixel\" nearest_mode=\"round_prefer_floor\" "
                   "antialias=\"false\" pads_begin=\"0, 0, 0, 0\" pads_end=\"0, 0, 0, 0\" "
                   "cube_coeff=\"-0.75\"",
                   "f32", "FP32", "1,1,2,2", s44, 2, NULL, 0, ax23, 2, 0, 0};
    interp_run(&a, x22, y, 4, d1144);
    assert_close(y, want44, 16, 0.0f);
    /* without the axes input every axis is listed; N and C keep their length */
    a.sizes = s1144;
    a.n_sizes = 4;
    a.axes = NULL;
    memset(y, 0, sizeof y);
    interp_run(&a, x22, y, 4, d1144);
    assert_close(y, want44, 16, 0.0f);

    /* v4 nearest, asymmetric, floor on x = 10..50. scales mode with scale 0.7:
     * length floor(5 * 0.700001) = 3, sources o / 0.7 = 0, 1.43, 2.86 -> 0, 1, 2;
     * the sizes input (99) is not read. sizes mode with size 3: the scale is
     * 3 / 5 = 0.6, sources 0, 1.67, 3.33 -> 0, 1, 3. */
    const float x5[5] = {10, 20, 30, 40, 50};
    const int64_t s99[1] = {99}, s3[1] = {3}, ax3[1] = {3};
    const float sc07[1] = {0.7f};
    const uint64_t d1113[4] = {1, 1, 1, 3};
    interp_ir b = {"opset4",
                   "mode=\"nearest\" shape_calculation_mode=\"scales\" "
                   "coordinate_transformation_mode=\"asymmetric\" nearest_mode=\"floor\" "
                   "antialias=\"false\" pads_begin=\"0,0,0,0\" pads_end=\"0,0,0,0\" cube_coeff=\"-0.75\"",
                   "f32", "FP32", "1,1,1,5", s99, 1, sc07, 1, ax3, 1, 0, 0};
    interp_run(&b, x5, y, 4, d1113);
    const float by_scale[3] = {10, 20, 30}, by_size[3] = {10, 20, 40};
    assert_close(y, by_scale, 3, 0.0f);
    b.data = "mode=\"nearest\" shape_calculation_mode=\"sizes\" "
             "coordinate_transformation_mode=\"asymmetric\" nearest_mode=\"floor\"";
    b.sizes = s3;
    interp_run(&b, x5, y, 4, d1113);
    assert_close(y, by_size, 3, 0.0f);

    /* f16 data: [1, 2] to 4 with linear, half_pixel: 1, 1.25, 1.75, 2 (exact in f16) */
    const int64_t s4[1] = {4};
    const uint64_t d1114[4] = {1, 1, 1, 4};
    uint16_t xh[2] = {sim_f32_to_f16(1.0f), sim_f32_to_f16(2.0f)}, yh[4];
    interp_ir f = {"opset11", "mode=\"linear\" shape_calculation_mode=\"sizes\"", "f16", "FP16",
                   "1,1,1,2", s4, 1, NULL, 0, ax3, 1, 0, 0};
    interp_run(&f, xh, yh, 4, d1114);
    const float fh[4] = {1, 1.25f, 1.75f, 2};
    for (int i = 0; i < 4; i++)
        assert_int_equal(yh[i], sim_f32_to_f16(fh[i]));
}

static void test_interpolate_u8_rounding_nhwc_axes_and_pads(void **state)
{
    (void)state;
    /* u8 [0, 10] to 4, half_pixel: 0, 2.5, 7.5, 10. linear rounds half away from
     * zero (OpenVINO's reference rounds integral results of linear): 0, 3, 8, 10;
     * linear_onnx converts without rounding: 0, 2, 7, 10. */
    const uint8_t xu[2] = {0, 10};
    uint8_t yu[4];
    const int64_t s4[1] = {4}, ax3[1] = {3};
    const uint64_t d1114[4] = {1, 1, 1, 4};
    interp_ir u = {"opset11", "mode=\"linear\" shape_calculation_mode=\"sizes\"", "u8", "U8",
                   "1,1,1,2", s4, 1, NULL, 0, ax3, 1, 0, 0};
    interp_run(&u, xu, yu, 4, d1114);
    assert_int_equal(yu[0], 0);
    assert_int_equal(yu[1], 3);
    assert_int_equal(yu[2], 8);
    assert_int_equal(yu[3], 10);
    u.data = "mode=\"linear_onnx\" shape_calculation_mode=\"sizes\"";
    interp_run(&u, xu, yu, 4, d1114);
    assert_int_equal(yu[0], 0);
    assert_int_equal(yu[1], 2);
    assert_int_equal(yu[2], 7);
    assert_int_equal(yu[3], 10);

    /* NHWC [1,2,2,3], axes [1, 2], sizes [4, 4], the attributes OpenVINO's
     * PrePostProcessor resize gives (linear, half_pixel, pads 0,0): per channel,
     * rows and columns take the weights (1,0), (.75,.25), (.25,.75), (0,1). */
    float x[12], y[48], want[48];
    for (int i = 0; i < 12; i++)
        x[i] = (float)(i * 17 % 29);
    const float wt[4][2] = {{1, 0}, {0.75f, 0.25f}, {0.25f, 0.75f}, {0, 1}};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            for (int ch = 0; ch < 3; ch++) {
                float v = 0;
                for (int a = 0; a < 2; a++)
                    for (int b = 0; b < 2; b++)
                        v += wt[i][a] * wt[j][b] * x[(a * 2 + b) * 3 + ch];
                want[(i * 4 + j) * 3 + ch] = v;
            }
    const int64_t s44[2] = {4, 4}, ax12[2] = {1, 2};
    const uint64_t d1443[4] = {1, 4, 4, 3};
    interp_ir n = {"opset11",
                   "mode=\"linear\" shape_calculation_mode=\"sizes\" pads_begin=\"0, 0\" "
                   "pads_end=\"0, 0\"",
                   "f32", "FP32", "1,2,2,3", s44, 2, NULL, 0, ax12, 2, 0, 0};
    interp_run(&n, x, y, 4, d1443);
    assert_close(y, want, 48, 1e-6f);

    /* pads add zeros before interpolating: [5, 6] padded by one on each side of W is
     * [0, 5, 6, 0]; size 4 is that (equal lengths map 1:1). */
    const float x56[2] = {5, 6};
    const float padded[4] = {0, 5, 6, 0};
    interp_ir pd = {"opset11",
                    "mode=\"nearest\" shape_calculation_mode=\"sizes\" pads_begin=\"0,0,0,1\" "
                    "pads_end=\"0,0,0,1\"",
                    "f32", "FP32", "1,1,1,2", s4, 1, NULL, 0, ax3, 1, 0, 0};
    interp_run(&pd, x56, y, 4, d1114);
    assert_close(y, padded, 4, 0.0f);
    /* scales 0.5 apply to the padded length: floor(4 * 0.500001) = 2; asymmetric,
     * floor: sources 0 and 2 -> 0, 6 */
    const float sc05[1] = {0.5f};
    const uint64_t d1112[4] = {1, 1, 1, 2};
    pd.data = "mode=\"nearest\" shape_calculation_mode=\"scales\" pads_begin=\"0,0,0,1\" "
              "pads_end=\"0,0,0,1\" coordinate_transformation_mode=\"asymmetric\" "
              "nearest_mode=\"floor\"";
    pd.sizes = NULL;
    pd.scales = sc05;
    pd.n_scales = 1;
    interp_run(&pd, x56, y, 4, d1112);
    const float halved[2] = {0, 6};
    assert_close(y, halved, 2, 0.0f);
    /* a short pads list is filled with zeros: "0,1" pads C (not an interpolated
     * axis), so C is 2 and channel 0 is all zeros */
    const int64_t s2[1] = {2};
    const uint64_t d1212[4] = {1, 2, 1, 2};
    interp_ir pc = {"opset11", "mode=\"nearest\" shape_calculation_mode=\"sizes\" pads_begin=\"0,1\"",
                    "f32", "FP32", "1,1,1,2", s2, 1, NULL, 0, ax3, 1, 0, 0};
    interp_run(&pc, x56, y, 4, d1212);
    const float pad_c[4] = {0, 0, 5, 6};
    assert_close(y, pad_c, 4, 0.0f);
}

static void test_interpolate_refusals_name_the_layer_and_attribute(void **state)
{
    (void)state;
    const int64_t s22[2] = {2, 2}, s4[1] = {4}, ax23[2] = {2, 3}, ax4[1] = {4}, ax22[2] = {2, 2};
    const float sc[2] = {0.5f, 0.5f};
    interp_ir c = {"opset4", "mode=\"cubic\" shape_calculation_mode=\"sizes\"", "f32", "FP32",
                   "1,1,4,4", s22, 2, sc, 2, ax23, 2, 0, 0};
    interp_fail(&c, "Interpolate mode=\"cubic\" is not supported by the sim compiler");
    c.data = "mode=\"bicubic_pillow\" shape_calculation_mode=\"sizes\"";
    interp_fail(&c, "Unsupported interpolation mode used with version 4 of the Interpolate op: "
                    "bicubic_pillow");
    c.ver = "opset11";
    c.scales = NULL;
    c.data = "mode=\"bilinear_pillow\" shape_calculation_mode=\"sizes\"";
    interp_fail(&c, "Interpolate mode=\"bilinear_pillow\" is not supported");
    c.data = "mode=\"bicubic_pillow\" shape_calculation_mode=\"sizes\"";
    interp_fail(&c, "Interpolate mode=\"bicubic_pillow\" is not supported");
    /* antialias changes linear when it shrinks: refused; elsewhere it is ignored */
    c.data = "mode=\"linear\" shape_calculation_mode=\"sizes\" antialias=\"true\"";
    interp_fail(&c, "antialias=true (mode=linear, downscaling) is not supported");
    c.data = "mode=\"nearest\" shape_calculation_mode=\"sizes\" antialias=\"true\"";
    float x[16] = {0}, y[4];
    const uint64_t d1122[4] = {1, 1, 2, 2};
    interp_run(&c, x, y, 4, d1122);
    c.data = "mode=\"nearest\" shape_calculation_mode=\"sizes\" nearest_mode=\"round_half_even\"";
    interp_fail(&c, "attribute nearest_mode=\"round_half_even\" is not one of round_prefer_floor");
    c.data = "mode=\"linear\" shape_calculation_mode=\"sizes\" coordinate_transformation_mode=\"corner\"";
    interp_fail(&c, "attribute coordinate_transformation_mode=\"corner\" is not one of half_pixel");
    c.data = "mode=\"area\" shape_calculation_mode=\"sizes\"";
    interp_fail(&c, "attribute mode=\"area\" is not one of nearest, linear, linear_onnx");
    c.data = "mode=\"nearest\" shape_calculation_mode=\"sizes\" pads_begin=\"0,0,-1,0\"";
    interp_fail(&c, "attribute pads_begin=\"0,0,-1,0\" needs non-negative integers");
    c.data = "mode=\"nearest\" shape_calculation_mode=\"sizes\"";
    c.axes = ax4;
    c.n_axes = 1;
    interp_fail(&c, "axis 4 is outside 0..3");
    c.axes = ax22;
    c.n_axes = 2;
    interp_fail(&c, "axis 2 repeats in the axes input");
    c.axes = ax23;
    c.sizes = s4;
    c.n_sizes = 1;
    interp_fail(&c, "The number of elements in the 'sizes' input does not match the number of axes 2");
    c.sizes = s22;
    c.n_sizes = 2;
    c.sizes_from_param = 1;
    interp_fail(&c, "input 1 (sizes) must be a constant");
    c.sizes_from_param = 0;
    c.data = "mode=\"nearest\" shape_calculation_mode=\"scales\"";
    c.sizes = NULL;
    c.scales = sc;
    c.n_scales = 2;
    c.scales_as_i64 = 1;
    interp_fail(&c, "Scales element type must be f32, f16 or bf16 (got I64)");
    /* Interpolate-1 (opset1..3) is another op */
    c.ver = "opset3";
    c.scales_as_i64 = 0;
    interp_fail(&c, "unsupported op Interpolate-opset3");
}


/* ---- activations ---------------------------------------------------------------------------- */

static double spec_act(const char *type, const char *mode, double x, double beta)
{
    const double pi = 3.14159265358979323846;
    double r6 = x + 3 < 0 ? 0 : x + 3 > 6 ? 6 : x + 3;
    if (!strcmp(type, "HSwish"))
        return x * r6 / 6;
    if (!strcmp(type, "HSigmoid"))
        return r6 / 6;
    if (!strcmp(type, "Mish"))
        return x * tanh(log(1 + exp(x)));
    if (!strcmp(type, "Gelu") && !strcmp(mode, "tanh"))
        return 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x * x * x)));
    if (!strcmp(type, "Gelu"))
        return 0.5 * x * (1 + erf(x / sqrt(2)));
    if (!strcmp(type, "Swish"))
        return x / (1 + exp(-x * beta));
    if (!strcmp(type, "Erf"))
        return erf(x);
    if (!strcmp(type, "Log"))
        return log(x);
    if (!strcmp(type, "Floor"))
        return floor(x);
    fail_msg("no formula for %s", type);
    return 0;
}

static void test_activations_compile_and_run_as_specified(void **state)
{
    (void)state;
    static const struct {
        const char *type, *ver, *data, *mode;
    } cases[] = {
        {"HSwish", "opset4", NULL, ""},
        {"HSigmoid", "opset5", NULL, ""},
        {"Mish", "opset4", NULL, ""},
        {"Gelu", "opset2", NULL, "erf"},
        {"Gelu", "opset2", "approximation_mode=\"tanh\"", "erf"},  /* Gelu-2 has no attribute */
        {"Gelu", "opset7", NULL, "erf"},                           /* the default */
        {"Gelu", "opset7", "approximation_mode=\"erf\"", "erf"},
        {"Gelu", "opset7", "approximation_mode=\"tanh\"", "tanh"},
        {"Gelu", "opset7", "approximation_mode=\"TANH\"", "tanh"}, /* enum names in any case */
        {"Gelu", "opset13", "approximation_mode=\"tanh\"", "tanh"},
        {"Swish", "opset4", NULL, ""},
        {"Erf", "opset1", NULL, ""},
        {"Log", "opset1", NULL, ""},
        {"Floor", "opset1", NULL, ""},
    };
    float x[24], y[24];
    for (int i = 0; i < 24; i++)
        x[i] = (float)(i - 12) * 0.43f + 0.01f;
    const uint64_t d234[3] = {2, 3, 4};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        one_op o = {cases[k].type, cases[k].ver, cases[k].data, {"f32", "FP32", "2,3,4", NULL, 0},
                    {{0}}, 0};
        float xin_[24];
        for (int i = 0; i < 24; i++)   /* Log takes positive values */
            xin_[i] = strcmp(cases[k].type, "Log") ? x[i] : fabsf(x[i]) + 0.25f;
        void *args[2] = {xin_, y};
        memset(y, 0, sizeof y);
        one_op_run(&o, args, 3, d234);
        for (int i = 0; i < 24; i++) {
            double w = spec_act(cases[k].type, cases[k].mode, xin_[i], 1.0);
            if (!(fabs(y[i] - w) <= 4 * FLT_EPSILON * (fabs(w) + fabs(xin_[i])) + 1e-30))
                fail_msg("%s-%s (%s) of %.7g: got %.9g, expected %.9g", cases[k].type, cases[k].ver,
                         cases[k].data ? cases[k].data : "", (double)xin_[i], (double)y[i], w);
        }
    }
    /* Swish with beta: a constant, and a Parameter (a scalar of x's type) */
    const float beta = 0.75f;
    one_op sw = {"Swish", "opset4", NULL, {"f32", "FP32", "2,3,4", NULL, 0},
                 {{"f32", "FP32", "", &beta, 4}}, 1};
    void *args[3] = {x, y, NULL};
    one_op_run(&sw, args, 3, d234);
    for (int i = 0; i < 24; i++)
        assert_true(fabs(y[i] - spec_act("Swish", "", x[i], 0.75)) <= 1e-6);
    float beta_in = -2.0f;
    sw.more[0].data = NULL;
    void *args3[3] = {x, &beta_in, y};
    one_op_run(&sw, args3, 3, d234);
    for (int i = 0; i < 24; i++)
        assert_true(fabs(y[i] - spec_act("Swish", "", x[i], -2.0)) <= 1e-5 * (1 + fabs(y[i])));

    /* f16 in and out: the result is the f32 value rounded to f16 at the edge */
    uint16_t xh[4], yh[4];
    const float xv[4] = {-3.5f, -1.0f, 0.5f, 4.0f};
    for (int i = 0; i < 4; i++)
        xh[i] = sim_f32_to_f16(xv[i]);
    one_op hf = {"HSwish", "opset4", NULL, {"f16", "FP16", "4", NULL, 0}, {{0}}, 0};
    void *argh[2] = {xh, yh};
    const uint64_t d4[1] = {4};
    one_op_run(&hf, argh, 1, d4);
    /* -3.5 * 0 / 6 is -0 in the reference as here */
    const float hs[4] = {-0.0f, -1.0f / 3.0f, 0.5f * 3.5f / 6.0f, 4.0f};
    for (int i = 0; i < 4; i++)
        assert_int_equal(yh[i], sim_f32_to_f16(hs[i]));
}

static void test_activations_on_integer_tensors(void **state)
{
    (void)state;
    /* Erf, Log and Floor take integer tensors; OpenVINO's reference rounds Erf
     * (round(erf(x))) and truncates Log (a cast of log(x)) */
    const int32_t xi[6] = {0, 1, -1, 3, 7, 442413};
    int32_t yi[6];
    const uint64_t d6[1] = {6};
    one_op e = {"Erf", "opset1", NULL, {"i32", "I32", "6", NULL, 0}, {{0}}, 0};
    void *args[2] = {(void *)(uintptr_t)xi, yi};
    one_op_run(&e, args, 1, d6);
    const int32_t erf_want[6] = {0, 1, -1, 1, 1, 1};
    for (int i = 0; i < 6; i++)
        assert_int_equal(yi[i], erf_want[i]);
    const int32_t xl[6] = {1, 2, 3, 7, 2981, 442413};
    const int32_t log_want[6] = {0, 0, 1, 1, 8, 12};   /* e^8 = 2980.96, e^13 = 442413.39 */
    args[0] = (void *)(uintptr_t)xl;
    e.type = "Log";
    one_op_run(&e, args, 1, d6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(yi[i], log_want[i]);
    e.type = "Floor";
    one_op_run(&e, args, 1, d6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(yi[i], xl[i]);
}

static void test_activation_refusals_name_the_layer(void **state)
{
    (void)state;
    one_op o = {"Gelu", "opset7", NULL, {"i32", "I32", "4", NULL, 0}, {{0}}, 0};
    one_op_fail(&o, "Gelu of element type I32 is not supported: the input must be f32, f16 or bf16");
    o.type = "Mish";
    o.ver = "opset4";
    o.x = (xin){"i8", "I8", "4", NULL, 0};
    one_op_fail(&o, "Mish of element type I8 is not supported");
    o.type = "HSigmoid";
    o.ver = "opset5";
    one_op_fail(&o, "HSigmoid of element type I8 is not supported");
    o.type = "Erf";
    o.ver = "opset1";
    o.x = (xin){"boolean", "BOOL", "4", NULL, 0};
    one_op_fail(&o, "Erf: arguments cannot have boolean element type");
    o.x = (xin){"f32", "FP32", "4", NULL, 0};
    o.type = "Gelu";
    o.ver = "opset7";
    o.data = "approximation_mode=\"fast\"";
    one_op_fail(&o, "attribute approximation_mode=\"fast\" is not one of erf, tanh");
    /* ops newer than the layer's opset are other ops */
    o.data = NULL;
    o.type = "HSwish";
    o.ver = "opset3";
    one_op_fail(&o, "unsupported op HSwish-opset3");
    o.type = "Gelu";
    o.ver = "opset1";
    one_op_fail(&o, "unsupported op Gelu-opset1");
    /* Swish: beta is a scalar of x's type */
    const float b1[1] = {1.0f};
    one_op sw = {"Swish", "opset4", NULL, {"f32", "FP32", "4", NULL, 0},
                 {{"f32", "FP32", "1", b1, 4}}, 1};
    one_op_fail(&sw, "Swish input with beta must be scalar but it has rank: 1");
    uint16_t bh = sim_f32_to_f16(1.0f);
    sw.more[0] = (xin){"f16", "FP16", "", &bh, 2};
    one_op_fail(&sw, "Swish inputs must have the same type but they are: FP32 and FP16");
    sw.x = (xin){"i32", "I32", "4", NULL, 0};
    sw.n_more = 0;
    one_op_fail(&sw, "Swish input tensor must be floating point type(I32).");
}

/* ---- Power and PRelu ------------------------------------------------------------------------ */

static void test_power_broadcasts_numpy_style_and_truncates_integers(void **state)
{
    (void)state;
    /* power-1.rst example 2: [8,1,6,1] ^ [7,1,5] -> [8,7,6,5] */
    float x[48], e[35], y[8 * 7 * 6 * 5];
    for (int i = 0; i < 48; i++)
        x[i] = 0.25f + 0.05f * (float)i;
    for (int i = 0; i < 35; i++)
        e[i] = -2.0f + 0.125f * (float)i;
    one_op o = {"Power", "opset1", NULL, {"f32", "FP32", "8,1,6,1", NULL, 0},
                {{"f32", "FP32", "7,1,5", e, sizeof e}}, 1};
    void *args[2] = {x, y};
    const uint64_t d8765[4] = {8, 7, 6, 5};
    one_op_run(&o, args, 4, d8765);
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 7; b++)
            for (int c = 0; c < 6; c++)
                for (int d = 0; d < 5; d++) {
                    double w = pow(x[a * 6 + c], e[b * 5 + d]);
                    float g = y[((a * 7 + b) * 6 + c) * 5 + d];
                    if (!(fabs(g - w) <= 2 * FLT_EPSILON * fabs(w)))
                        fail_msg("power [%d,%d,%d,%d]: got %.9g, expected %.9g", a, b, c, d, (double)g, w);
                }
    /* the exponent as a Parameter, auto_broadcast none with equal shapes */
    float b2[48];
    for (int i = 0; i < 48; i++)
        b2[i] = (float)(i % 4);
    one_op n = {"Power", "opset1", "auto_broadcast=\"none\"", {"f32", "FP32", "8,1,6,1", NULL, 0},
                {{"f32", "FP32", "8,1,6,1", NULL, 0}}, 1};
    void *args2[3] = {x, b2, y};
    const uint64_t d8161[4] = {8, 1, 6, 1};
    one_op_run(&n, args2, 4, d8161);
    for (int i = 0; i < 48; i++)
        assert_true(fabs(y[i] - pow(x[i], b2[i])) <= 2 * FLT_EPSILON * pow(x[i], b2[i]));
    n.more[0].shape = "8,1,6";
    one_op_fail(&n, "auto_broadcast=none needs equal shapes, got [8,1,6,1] and [8,1,6]");
    /* i32: std::pow in double, then the cast truncates: 2^-1 = 0, (-2)^3 = -8 */
    const int32_t xi[5] = {2, 3, -2, 2, 0}, ei[5] = {10, 2, 3, -1, 0};
    int32_t yi[5];
    one_op pi = {"Power", "opset1", NULL, {"i32", "I32", "5", NULL, 0},
                 {{"i32", "I32", "5", ei, sizeof ei}}, 1};
    void *argi[2] = {(void *)(uintptr_t)xi, yi};
    const uint64_t d5[1] = {5};
    one_op_run(&pi, argi, 1, d5);
    const int32_t want_i[5] = {1024, 9, -8, 0, 1};
    for (int i = 0; i < 5; i++)
        assert_int_equal(yi[i], want_i[i]);
}

/* PRelu(x) = x if x >= 0 else slope * x (prelu-1.rst), slope picked per element by
 * the index function. */
static float spec_prelu(float x, float slope)
{
    return x >= 0 ? x : slope * x;
}

static void test_prelu_slope_is_per_channel_or_numpy(void **state)
{
    (void)state;
    float x[2 * 3 * 3], y[2 * 3 * 3];
    for (int i = 0; i < 18; i++)
        x[i] = (float)(i % 5) - 2.5f + 0.125f * (float)i;
    /* data [2,3,3], slope [3]: the channel rule (axis 1) wins over numpy (last axis) */
    const float sl[3] = {0.1f, 0.2f, 0.3f};
    one_op o = {"PRelu", "opset1", NULL, {"f32", "FP32", "2,3,3", NULL, 0},
                {{"f32", "FP32", "3", sl, sizeof sl}}, 1};
    void *args[2] = {x, y};
    const uint64_t d233[3] = {2, 3, 3};
    one_op_run(&o, args, 3, d233);
    for (int n = 0; n < 2; n++)
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++) {
                int i = (n * 3 + c) * 3 + k;
                assert_true(y[i] == spec_prelu(x[i], sl[c]));
            }
    /* slope [1,3] is numpy: it runs along the last axis */
    o.more[0].shape = "1,3";
    one_op_run(&o, args, 3, d233);
    for (int i = 0; i < 18; i++)
        assert_true(y[i] == spec_prelu(x[i], sl[i % 3]));
    /* 1-D data: the channel is axis 0; a one-element slope broadcasts */
    o.x.shape = "3";
    o.more[0].shape = "3";
    const uint64_t d3[1] = {3};
    one_op_run(&o, args, 1, d3);
    for (int i = 0; i < 3; i++)
        assert_true(y[i] == spec_prelu(x[i], sl[i]));
    o.x.shape = "2,3,3";
    o.more[0].shape = "1";
    o.more[0].size = 4;
    one_op_run(&o, args, 3, d233);
    for (int i = 0; i < 18; i++)
        assert_true(y[i] == spec_prelu(x[i], sl[0]));
    /* NCHW with a Parameter slope [C] */
    float x4[1 * 3 * 2 * 2], y4[12], s4[3] = {-1.0f, 0.0f, 2.0f};
    for (int i = 0; i < 12; i++)
        x4[i] = (float)i - 6.0f;
    one_op p = {"PRelu", "opset1", NULL, {"f32", "FP32", "1,3,2,2", NULL, 0},
                {{"f32", "FP32", "3", NULL, 0}}, 1};
    void *args4[3] = {x4, s4, y4};
    const uint64_t d1322[4] = {1, 3, 2, 2};
    one_op_run(&p, args4, 4, d1322);
    for (int i = 0; i < 12; i++)
        assert_true(y4[i] == spec_prelu(x4[i], s4[i / 4]));
    /* refusals */
    const float sl4[4] = {0};
    o.more[0] = (xin){"f32", "FP32", "4", sl4, sizeof sl4};
    one_op_fail(&o, "PRelu slope [4] does not broadcast onto the data [2,3,3]");
    const float big[6] = {0};
    o.more[0] = (xin){"f32", "FP32", "2,1,3,1", big, sizeof big};
    one_op_fail(&o, "PRelu slope [2,1,3,1] does not broadcast onto the data [2,3,3]");
    one_op pi = {"PRelu", "opset1", NULL, {"i32", "I32", "3", NULL, 0},
                 {{"i32", "I32", "3", sl4, 12}}, 1};
    one_op_fail(&pi, "PRelu of element type I32 is not supported");
}

/* ---- StridedSlice and Slice ------------------------------------------------------------------ */
/* The references walk the slicing loop of the specs (strided-slice-1.rst,
 * slice-8.rst: python's data[start:stop:step]) index by index, after the
 * negative-value adjustment and the clamping rules the specs give. Where the
 * specs' text and examples disagree with OpenVINO's code, the code is followed
 * and the case says so (docs/driver-compat.md lists them). */

enum { SS_MAXM = 12 };

typedef struct ss_case {
    int rank;
    int64_t d[8];
    int m;                             /* entries of begin/end/stride and of every mask */
    int64_t begin[SS_MAXM], end[SS_MAXM], stride[SS_MAXM];
    int bm[SS_MAXM], em[SS_MAXM], nm[SS_MAXM], sm[SS_MAXM], el[SS_MAXM];
} ss_case;

/* Per input axis the indices taken (idx[a][0..len[a])), and the output dims. */
static void ref_strided_slice(const ss_case *k, int64_t idx[8][64], int *len, int64_t *od, int *orank)
{
    int newsum = 0, j = 0;
    for (int i = 0; i < k->m; i++)
        newsum += k->nm[i];
    for (int a = 0; a < k->rank; a++) {
        len[a] = (int)k->d[a];
        for (int v = 0; v < len[a]; v++)
            idx[a][v] = v;
    }
    *orank = 0;
    for (int i = 0; i < k->m; i++) {
        if (k->el[i]) {
            int hidden = k->rank - (k->m - newsum - 1);
            for (int h = 0; h < hidden; h++, j++)
                od[(*orank)++] = k->d[j];
        } else if (k->nm[i]) {
            od[(*orank)++] = 1;
        } else if (k->sm[i]) {
            int64_t b = k->begin[i];
            idx[j][0] = b < 0 ? b + k->d[j] : b;
            len[j++] = 1;
        } else {
            int64_t dim = k->d[j], st = k->stride[i], b, e;
            if (k->bm[i])
                b = st > 0 ? 0 : dim - 1;
            else
                b = k->begin[i] < 0 ? k->begin[i] + dim : k->begin[i];
            if (k->em[i])
                e = st > 0 ? dim : -1;   /* the spec says 0 for a reverse stride; the code -1 */
            else
                e = k->end[i] < 0 ? k->end[i] + dim : k->end[i];
            if (st > 0) {
                b = b < 0 ? 0 : b > dim ? dim : b;
                e = e < 0 ? 0 : e > dim ? dim : e;
            } else {
                b = b < 0 ? 0 : b >= dim ? dim - 1 : b;
                e = e < 0 ? -1 : e > dim ? dim : e;
            }
            int n = 0;
            for (int64_t v = b; st > 0 ? v < e : v > e; v += st)
                idx[j][n++] = v;
            len[j++] = n;
            od[(*orank)++] = n;
        }
    }
    for (; j < k->rank; j++)
        od[(*orank)++] = k->d[j];
}

static void mask_text(char *out, size_t cap, const int *mask, int m)
{
    out[0] = '\0';
    for (int i = 0; i < m; i++)
        snprintf(out + strlen(out), cap - strlen(out), i ? ",%d" : "%d", mask[i]);
}

static void dims_text(char *out, size_t cap, const int64_t *d, int rank)
{
    out[0] = '\0';
    for (int i = 0; i < rank; i++)
        snprintf(out + strlen(out), cap - strlen(out), i ? ",%lld" : "%lld", (long long)d[i]);
}

/* The IR of one StridedSlice case (begin/end/stride as i64 constants). */
static void ss_op(const ss_case *k, one_op *o, char *data, size_t cap, char *xshape, char *mshape)
{
    char b[64], e[64], n[64], s[64], l[64];
    mask_text(b, sizeof b, k->bm, k->m);
    mask_text(e, sizeof e, k->em, k->m);
    mask_text(n, sizeof n, k->nm, k->m);
    mask_text(s, sizeof s, k->sm, k->m);
    mask_text(l, sizeof l, k->el, k->m);
    snprintf(data, cap, "begin_mask=\"%s\" end_mask=\"%s\" new_axis_mask=\"%s\" shrink_axis_mask=\"%s\" "
             "ellipsis_mask=\"%s\"", b, e, n, s, l);
    dims_text(xshape, 64, k->d, k->rank);
    snprintf(mshape, 16, "%d", k->m);
    one_op t = {"StridedSlice", "opset1", data, {"f32", "FP32", xshape, NULL, 0},
                {{"i64", "I64", mshape, k->begin, 8 * (size_t)k->m},
                 {"i64", "I64", mshape, k->end, 8 * (size_t)k->m},
                 {"i64", "I64", mshape, k->stride, 8 * (size_t)k->m}}, 3};
    *o = t;
}

/* Compiles and runs one case on x = 0, 1, 2, ... and compares with the reference. */
static void ss_check(const ss_case *k, const char *what)
{
    static int64_t idx[8][64];
    int len[8], orank;
    int64_t od[16];
    ref_strided_slice(k, idx, len, od, &orank);
    size_t nx = 1, ny = 1;
    for (int a = 0; a < k->rank; a++) {
        nx *= (size_t)k->d[a];
        ny *= (size_t)len[a];
    }
    float *x = malloc((nx ? nx : 1) * sizeof(float)), *y = malloc((ny ? ny : 1) * sizeof(float));
    assert_true(x && y);
    for (size_t i = 0; i < nx; i++)
        x[i] = (float)i;
    one_op o;
    char data[512], xshape[64], mshape[16];
    ss_op(k, &o, data, sizeof data, xshape, mshape);
    uint64_t odu[16];
    for (int i = 0; i < orank; i++)
        odu[i] = (uint64_t)od[i];
    void *args[2] = {x, y};
    one_op_run(&o, args, (uint32_t)orank, odu);
    /* walk the taken indices in row-major order */
    int cur[8] = {0};
    for (size_t i = 0; i < ny; i++) {
        size_t off = 0;
        for (int a = 0; a < k->rank; a++)
            off = off * (size_t)k->d[a] + (size_t)idx[a][cur[a]];
        if (y[i] != x[off])
            fail_msg("%s: element %zu is %g, expected x[%zu]", what, i, (double)y[i], off);
        for (int a = k->rank - 1; a >= 0; a--) {
            if (++cur[a] < len[a])
                break;
            cur[a] = 0;
        }
    }
    free(x);
    free(y);
}

static void test_strided_slice_spec_examples(void **state)
{
    (void)state;
    /* array[0:4, 1:4, 0:4:2, 1:4:2, 3:0:-1, 3:0:-2] on 4^6: 4,3,2,2,3,2 (the spec's
     * listing says 4 for 3:0:-1, but its end is exclusive: 3, 2, 1) */
    ss_case a = {6, {4, 4, 4, 4, 4, 4}, 6, {0, 1, 0, 1, 3, 3}, {4, 4, 4, 4, 0, 0},
                 {1, 1, 2, 2, -1, -2}, {0}, {0}, {0}, {0}, {0}};
    ss_check(&a, "6-D strides");
    /* clamping, array[2:3, 2:1:-1] on [2,2] after clamping: both empty (the spec's
     * comment keeps index 2, which a length-2 axis does not have) */
    ss_case b = {2, {2, 2}, 2, {1234, 2}, {1234, 4321}, {1, -1}, {0}, {0}, {0}, {0}, {0}};
    ss_check(&b, "clamping");
    /* array[0:2, 0:2, 0:-1] on [2,3,4] */
    ss_case c = {3, {2, 3, 4}, 3, {0, 0, 0}, {2, 2, -1}, {1, 1, 1}, {0}, {0}, {0}, {0}, {0}};
    ss_check(&c, "negative end");
    /* array[1:, :, ::-1] on [2,3,4] with begin_mask 0,1,1 end_mask 1,1,1: OpenVINO's
     * code reverses the whole last axis (4; the spec's text stops before index 0) */
    ss_case d = {3, {2, 3, 4}, 3, {1, 1, 123}, {0, 0, 2}, {1, 1, -1}, {0, 1, 1}, {1, 1, 1}, {0},
                 {0}, {0}};
    ss_check(&d, "begin and end masks");
    /* array[np.newaxis, 0:2, np.newaxis, 0:4] on [2,4]: new axes ignore their values */
    ss_case e = {2, {2, 4}, 4, {1234, 0, -1, 0}, {1234, 2, 9876, 4}, {132, 1, 241, 1}, {0}, {0},
                 {1, 0, 1, 0}, {0}, {0}};
    ss_check(&e, "new axes");
    /* array[0:1, 0, 0:3, 0:4, 0:2] on [1,2,3,4,2]: the shrunk axis goes */
    ss_case f = {5, {1, 2, 3, 4, 2}, 5, {0, 1, 0, 0, 0}, {1, 0, 3, 4, 2}, {1, 1, 1, 1, 1}, {0}, {0},
                 {0}, {0, 1, 0, 0, 0}, {0}};
    ss_check(&f, "shrink");
    /* array[0:2, ..., 0:5] on [3,2,2,2,6]: the ellipsis covers 3 axes, its values unused */
    ss_case g = {5, {3, 2, 2, 2, 6}, 3, {0, 0, 0}, {2, 0, 5}, {1, -1, 1}, {0}, {0}, {0}, {0},
                 {0, 1, 0}};
    ss_check(&g, "ellipsis");
    /* array[2:, ..., np.newaxis, :10] on [6,2,2,2,12] with masks of unequal length
     * in the spec (here padded): 4,2,2,2,1,5 */
    ss_case h = {5, {6, 2, 2, 2, 12}, 4, {2, 1, 10, 10}, {123, 1, 10, 5}, {1, -1, 1, 1},
                 {0, 0, 1, 1}, {1, 1, 0, 0}, {0, 0, 1, 0}, {0}, {0, 1, 0, 0}};
    ss_check(&h, "ellipsis and new axis");
    /* fewer indices than axes: an implicit ellipsis at the end; reverse with step 3 */
    ss_case i = {3, {5, 2, 3}, 1, {-1}, {-7}, {-3}, {0}, {0}, {0}, {0}, {0}};
    ss_check(&i, "implicit ellipsis");
    /* shrink with a negative begin, on every axis: a scalar */
    ss_case j = {2, {3, 4}, 2, {-1, -4}, {0, 0}, {1, 1}, {0}, {0}, {0}, {1, 1}, {0}};
    ss_check(&j, "to a scalar");
}

static void test_strided_slice_random_cases_follow_the_spec(void **state)
{
    (void)state;
    uint32_t r = 12345;
#define RND(n) ((int)((r = r * 1103515245u + 12345u) >> 16) % (n))
    for (int t = 0; t < 250; t++) {
        ss_case k;
        memset(&k, 0, sizeof k);
        k.rank = 1 + RND(4);
        for (int a = 0; a < k.rank; a++)
            k.d[a] = 1 + RND(5);
        /* kinds: 0 plain, 1 new axis, 2 shrink, 3 ellipsis (once) */
        int kinds[SS_MAXM], real = 0, ell = -1;
        k.m = RND(k.rank + 3);
        for (int i = 0; i < k.m; i++) {
            int kd = RND(10);
            kinds[i] = kd < 6 ? 0 : kd < 8 ? 1 : kd < 9 ? 2 : 3;
            if (kinds[i] == 3 && ell >= 0)
                kinds[i] = 1;
            if ((kinds[i] == 0 || kinds[i] == 2) && real == k.rank)
                kinds[i] = 1;
            if (kinds[i] == 3)
                ell = i;
            real += kinds[i] == 0 || kinds[i] == 2;
        }
        /* the input axis each index lands on */
        int j = 0;
        for (int i = 0; i < k.m; i++) {
            int64_t dim = j < k.rank ? k.d[j] : 1;
            k.begin[i] = RND(4 * (int)dim + 3) - 2 * dim - 1;
            k.end[i] = RND(4 * (int)dim + 3) - 2 * dim - 1;
            k.stride[i] = RND(2) ? 1 + RND(3) : -1 - RND(3);
            k.bm[i] = RND(4) == 0;
            k.em[i] = RND(4) == 0;
            if (kinds[i] == 1) {
                k.nm[i] = 1;
            } else if (kinds[i] == 2) {
                k.sm[i] = 1;
                k.begin[i] = RND(2 * (int)dim) - dim;   /* inside [-dim, dim) */
                j++;
            } else if (kinds[i] == 3) {
                k.el[i] = 1;
                j += k.rank - real;
            } else {
                j++;
            }
        }
        char what[32];
        snprintf(what, sizeof what, "random case %d", t);
        ss_check(&k, what);
    }
#undef RND
}

static void test_strided_slice_refusals_name_the_layer(void **state)
{
    (void)state;
    ss_case k = {2, {3, 4}, 2, {0, 0}, {2, 2}, {1, 1}, {0}, {0}, {0}, {0}, {0}};
    one_op o;
    char data[512], xs[64], ms[16];
    ss_op(&k, &o, data, sizeof data, xs, ms);
    o.data = "begin_mask=\"0,2\"";
    one_op_fail(&o, "All masks of StridedSlice must have be 0 or 1 (begin_mask)");
    o.data = "begin_mask=\"0,1\" end_mask=\"1\"";
    one_op_fail(&o, "All masks of StridedSlice must have the same size");
    o.data = "ellipsis_mask=\"1,1\"";
    one_op_fail(&o, "At most one ellipsis is allowed.");
    o.data = "ellipsis_mask=\"1,0\" new_axis_mask=\"1,0\"";
    one_op_fail(&o, "StridedSlice index 0 sets ellipsis_mask together with new_axis_mask");
    o.data = "begin_mask=\"x,1\"";
    one_op_fail(&o, "attribute begin_mask=\"x,1\" is not a list of integers");
    o.data = "shrink_axis_mask=\"0,1\"";
    k.begin[1] = 4;
    ss_op(&k, &o, data, sizeof data, xs, ms);
    o.data = "shrink_axis_mask=\"0,1\"";
    one_op_fail(&o, "shrink_axis_mask at index 1: begin 4 is outside [-4, 4) of input axis 1");
    k.begin[1] = 0;
    k.stride[0] = 0;
    ss_op(&k, &o, data, sizeof data, xs, ms);
    one_op_fail(&o, "Stride must be non-zero (index 0)");
    ss_case many = {1, {3}, 3, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, {0}, {0}, {0, 1, 0}, {0}, {0}};
    ss_op(&many, &o, data, sizeof data, xs, ms);
    one_op_fail(&o, "Input rank plus number of new axis has to be at least the size of Lower and "
                    "Upper bounds vector.");
    /* begin and end lengths; types; constants */
    k.stride[0] = 1;
    ss_op(&k, &o, data, sizeof data, xs, ms);
    o.more[1].shape = "1";
    o.more[1].size = 8;
    one_op_fail(&o, "Begin and end need to have same number of values.");
    ss_op(&k, &o, data, sizeof data, xs, ms);
    o.more[2].shape = "1";
    o.more[2].size = 8;
    one_op_fail(&o, "Stride needs to have same number of values as begin and end.");
    const float fb[2] = {0, 0};
    ss_op(&k, &o, data, sizeof data, xs, ms);
    o.more[0] = (xin){"f32", "FP32", "2", fb, sizeof fb};
    one_op_fail(&o, "Begin input type must be integer, but is: FP32");
    ss_op(&k, &o, data, sizeof data, xs, ms);
    o.more[0].data = NULL;
    one_op_fail(&o, "input 1 (Begin) must be a constant");
}

static void test_strided_slice_keeps_integer_types_and_runs_from_constants(void **state)
{
    (void)state;
    /* i64 data, no strides input (default 1), reversed by a negative begin */
    const int64_t xi[6] = {10, 20, 30, 40, 50, INT64_C(1) << 20}, b[1] = {-2}, e[1] = {6};
    int64_t yi[2];
    one_op o = {"StridedSlice", "opset1", "begin_mask=\"0\" end_mask=\"0\"", {"i64", "I64", "6", NULL, 0},
                {{"i64", "I64", "1", b, 8}, {"i64", "I64", "1", e, 8}}, 2};
    void *args[2] = {(void *)(uintptr_t)xi, yi};
    const uint64_t d2[1] = {2};
    one_op_run(&o, args, 1, d2);
    assert_true(yi[0] == 50 && yi[1] == (INT64_C(1) << 20));
    /* i32 index constants and u8 data with a stride of 2 */
    const uint8_t xu[5] = {1, 2, 3, 250, 5};
    const int32_t b32[1] = {4}, e32[1] = {-6}, s32[1] = {-2};
    uint8_t yu[3];
    one_op u = {"StridedSlice", "opset1", NULL, {"u8", "U8", "5", NULL, 0},
                {{"i32", "I32", "1", b32, 4}, {"i32", "I32", "1", e32, 4}, {"i32", "I32", "1", s32, 4}}, 3};
    void *argu[2] = {(void *)(uintptr_t)xu, yu};
    const uint64_t d3[1] = {3};
    one_op_run(&u, argu, 1, d3);
    assert_true(yu[0] == 5 && yu[1] == 3 && yu[2] == 1);
}

/* Slice-8 as python's data[start:stop:step] (slice.indices: negative values count
 * from the end, then clamp to [0, dim] forward or [-1, dim - 1] backward). */
static void ref_slice(const int64_t *d, int rank, const int64_t *start, const int64_t *stop,
                      const int64_t *step, const int64_t *axes, int n, int64_t idx[8][64], int *len)
{
    /* One difference from python, where OpenVINO's code (shape inference and
     * reference alike) differs: going backwards, a start before the first element
     * clamps to index 0, not to "before the start" (python's -1, an empty slice). */
    for (int a = 0; a < rank; a++) {
        len[a] = (int)d[a];
        for (int v = 0; v < len[a]; v++)
            idx[a][v] = v;
    }
    for (int i = 0; i < n; i++) {
        int a = (int)(axes ? (axes[i] < 0 ? axes[i] + rank : axes[i]) : i);
        int64_t dim = d[a], st = step[i], lo = st > 0 ? 0 : -1, hi = st > 0 ? dim : dim - 1;
        int64_t b = start[i] < 0 ? start[i] + dim : start[i];
        int64_t e = stop[i] < 0 ? stop[i] + dim : stop[i];
        b = b < 0 ? 0 : b > hi ? hi : b;   /* python: b < lo ? lo (-1 backwards) */
        e = e < lo ? lo : e > hi ? hi : e;
        int m = 0;
        for (int64_t v = b; st > 0 ? v < e : v > e; v += st)
            idx[a][m++] = v;
        len[a] = m;
    }
}

static void slice_check(const int64_t *d, int rank, const int64_t *start, const int64_t *stop,
                        const int64_t *step, const int64_t *axes, int n, const char *what)
{
    static int64_t idx[8][64];
    int len[8];
    ref_slice(d, rank, start, stop, step, axes, n, idx, len);
    size_t nx = 1, ny = 1;
    uint64_t od[8];
    for (int a = 0; a < rank; a++) {
        nx *= (size_t)d[a];
        ny *= (size_t)len[a];
        od[a] = (uint64_t)len[a];
    }
    float *x = malloc(nx * sizeof(float)), *y = malloc((ny ? ny : 1) * sizeof(float));
    assert_true(x && y);
    for (size_t i = 0; i < nx; i++)
        x[i] = (float)i;
    char xs[64], ns[16];
    dims_text(xs, sizeof xs, d, rank);
    snprintf(ns, sizeof ns, "%d", n);
    one_op o = {"Slice", "opset8", NULL, {"f32", "FP32", xs, NULL, 0},
                {{"i64", "I64", ns, start, 8 * (size_t)n},
                 {"i64", "I64", ns, stop, 8 * (size_t)n},
                 {"i64", "I64", ns, step, 8 * (size_t)n},
                 {"i64", "I64", ns, axes, 8 * (size_t)n}}, axes ? 4 : 3};
    void *args[2] = {x, y};
    one_op_run(&o, args, (uint32_t)rank, od);
    int cur[8] = {0};
    for (size_t i = 0; i < ny; i++) {
        size_t off = 0;
        for (int a = 0; a < rank; a++)
            off = off * (size_t)d[a] + (size_t)idx[a][cur[a]];
        if (y[i] != x[off])
            fail_msg("%s: element %zu is %g, expected x[%zu]", what, i, (double)y[i], off);
        for (int a = rank - 1; a >= 0; a--) {
            if (++cur[a] < len[a])
                break;
            cur[a] = 0;
        }
    }
    free(x);
    free(y);
}

static void test_slice_spec_examples_and_negative_steps(void **state)
{
    (void)state;
    const int64_t d10[1] = {10}, ax0[1] = {0};
    /* slice-8.rst examples 1-9 on [0..9]: [1:8], axes default, [1:8:2], [-100:100],
     * [9:-11:-1] (all, reversed), [9:0:-1], [9:-10:-1], [9:-11:-2], [100:-100:-1] */
    static const int64_t ex[9][3] = {{1, 8, 1}, {1, 8, 1}, {1, 8, 2}, {-100, 100, 1}, {9, -11, -1},
                                     {9, 0, -1}, {9, -10, -1}, {9, -11, -2}, {100, -100, -1}};
    static const int want_len[9] = {7, 7, 4, 10, 10, 9, 9, 5, 10};
    for (int k = 0; k < 9; k++) {
        char what[32];
        snprintf(what, sizeof what, "slice-8.rst example %d", k + 1);
        int64_t idx_[8][64];
        int len[8];
        ref_slice(d10, 1, &ex[k][0], &ex[k][1], &ex[k][2], ax0, 1, idx_, len);
        assert_int_equal(len[0], want_len[k]);
        slice_check(d10, 1, &ex[k][0], &ex[k][1], &ex[k][2], k == 1 ? NULL : ax0, 1, what);
    }
    /* example 10: [[0..4],[5..9]][0:2, 1:4:2] = [1, 3, 6, 8] */
    const int64_t d25[2] = {2, 5}, s10[2] = {0, 1}, e10[2] = {2, 4}, st10[2] = {1, 2}, a10[2] = {0, 1};
    slice_check(d25, 2, s10, e10, st10, a10, 2, "example 10");
    /* examples 11 and 12 (shapes 4,10,5), scaled to [6,4,3] */
    const int64_t d3[3] = {6, 4, 3}, s0[3] = {0, 0, 0}, e11[3] = {4, 10, 5}, one[3] = {1, 1, 1},
                  a11[3] = {0, 1, 2};
    slice_check(d3, 3, s0, e11, one, a11, 3, "example 11");
    slice_check(d3, 3, s0, e11, one, a11, 2, "example 12");
    /* negative axes in any order, negative steps, INT64 ends "to the end" */
    const int64_t sa[2] = {-1, 1}, ea[2] = {INT64_MIN, INT64_MAX}, sta[2] = {-2, 2}, aa[2] = {-1, -3};
    slice_check(d3, 3, sa, ea, sta, aa, 2, "negative axes");
    const int64_t sb[1] = {INT64_MAX}, eb[1] = {INT64_MIN}, stb[1] = {-1}, ab[1] = {1};
    slice_check(d3, 3, sb, eb, stb, ab, 1, "reverse with int64 limits");
    /* backwards from before the first element: OpenVINO clamps the start to index 0
     * and takes it (python would give nothing) */
    const int64_t sf[1] = {-20}, ef[1] = {-30}, stf[1] = {-1};
    int64_t idx_[8][64];
    int len[8];
    ref_slice(d10, 1, sf, ef, stf, ax0, 1, idx_, len);
    assert_true(len[0] == 1 && idx_[0][0] == 0);
    slice_check(d10, 1, sf, ef, stf, ax0, 1, "start before the first element, backwards");
    /* an empty result: start past stop going forward */
    const int64_t sc[1] = {3}, ec[1] = {1}, stc[1] = {1};
    slice_check(d3, 3, sc, ec, stc, ab, 1, "empty");
    /* steps larger than the axis */
    const int64_t sd[2] = {0, 5}, ed[2] = {6, -7}, std_[2] = {100, -100}, ad[2] = {0, 2};
    slice_check(d3, 3, sd, ed, std_, ad, 2, "big steps");
}

static void test_slice_random_cases_follow_python_slicing(void **state)
{
    (void)state;
    uint32_t r = 777;
#define RND(n) ((int)((r = r * 1103515245u + 12345u) >> 16) % (n))
    for (int t = 0; t < 200; t++) {
        int64_t d[4], start[4], stop[4], step[4], axes[4];
        int rank = 1 + RND(4), n = 1 + RND(rank);
        for (int a = 0; a < rank; a++)
            d[a] = 1 + RND(6);
        int used[4] = {0};
        for (int i = 0; i < n; i++) {
            int a;
            do
                a = RND(rank);
            while (used[a]);
            used[a] = 1;
            axes[i] = RND(2) ? a : a - rank;
            start[i] = RND(4 * (int)d[a] + 3) - 2 * d[a] - 1;
            stop[i] = RND(4 * (int)d[a] + 3) - 2 * d[a] - 1;
            step[i] = RND(2) ? 1 + RND(4) : -1 - RND(4);
        }
        char what[32];
        snprintf(what, sizeof what, "random slice %d", t);
        slice_check(d, rank, start, stop, step, axes, n, what);
    }
#undef RND
}

static void test_slice_refusals_name_the_layer(void **state)
{
    (void)state;
    const int64_t z2[2] = {0, 0}, e2[2] = {2, 2}, one2[2] = {1, 1}, ax2[2] = {0, 1}, rep[2] = {1, -1},
                  far[2] = {0, 2}, z3[3] = {0, 0, 0}, zero_step[2] = {1, 0};
    one_op o = {"Slice", "opset8", NULL, {"f32", "FP32", "3,4", NULL, 0},
                {{"i64", "I64", "2", z2, 16}, {"i64", "I64", "2", e2, 16}, {"i64", "I64", "2", one2, 16},
                 {"i64", "I64", "2", ax2, 16}}, 4};
    o.more[2].data = zero_step;
    one_op_fail(&o, "Step must be non-zero");
    o.more[2].data = one2;
    o.more[3].data = rep;
    one_op_fail(&o, "Slice values in `axes` input must be unique.");
    o.more[3].data = far;
    one_op_fail(&o, "Axis 2 out of the tensor rank range [-2, 1].");
    o.more[3].data = ax2;
    o.more[0] = (xin){"i64", "I64", "3", z3, 24};
    one_op_fail(&o, "Slice `start` input dim size can't be bigger than `data` rank.");
    o.more[0] = (xin){"i64", "I64", "1", z2, 8};
    one_op_fail(&o, "Slice `start`, `stop`, `step` inputs must have compatible shapes.");
    o.more[0] = (xin){"i64", "I64", "2", z2, 16};
    o.more[3] = (xin){"i64", "I64", "1", ax2, 8};
    one_op_fail(&o, "Slice `axes` input must have compatible shape with `start`, `stop`, `step` inputs.");
    const float fz[2] = {0, 0};
    o.more[3] = (xin){"f32", "FP32", "2", fz, 8};
    one_op_fail(&o, "Slice `axes` input type must be integer, but is: FP32");
    o.more[3] = (xin){"i64", "I64", "2", NULL, 0};
    one_op_fail(&o, "input 4 (Slice `axes`) must be a constant");
    o.x.shape = "";
    o.n_more = 3;
    one_op_fail(&o, "Slice `data` input can't be a scalar.");
    o.x.shape = "3,4";
    o.ver = "opset7";
    one_op_fail(&o, "unsupported op Slice-opset7");
}

/* ---- Pad -------------------------------------------------------------------------------------- */
/* The reference maps each output coordinate j of an axis to the input as pad-12.rst
 * describes the modes: c = j - pads_begin; inside [0, d) it is c; outside,
 * constant takes the pad value, edge the nearest edge, reflect mirrors without
 * repeating the edge (-c, 2(d-1) - c), symmetric mirrors repeating it (-c - 1,
 * 2d - 1 - c). */

static int64_t pad_source(int mode, int64_t c, int64_t d)
{
    if (c >= 0 && c < d)
        return c;
    switch (mode) {
    case 1: return c < 0 ? 0 : d - 1;                       /* edge */
    case 2: return c < 0 ? -c : 2 * (d - 1) - c;            /* reflect */
    case 3: return c < 0 ? -c - 1 : 2 * d - 1 - c;          /* symmetric */
    default: return -1;                                     /* constant */
    }
}

static const char *const pad_mode_names[4] = {"constant", "edge", "reflect", "symmetric"};

typedef struct pad_case {
    const char *ver;
    int mode, rank;
    int64_t d[6], pb[6], pe[6];
    float value;
    int with_value;                    /* a pad_value input (constant) */
} pad_case;

static void pad_run(const pad_case *k, const float *x, float *y, const uint64_t *od)
{
    char data[64], xs[64], ps[16];
    snprintf(data, sizeof data, "pad_mode=\"%s\"", pad_mode_names[k->mode]);
    dims_text(xs, sizeof xs, k->d, k->rank);
    snprintf(ps, sizeof ps, "%d", k->rank);
    one_op o = {"Pad", k->ver, data, {"f32", "FP32", xs, NULL, 0},
                {{"i64", "I64", ps, k->pb, 8 * (size_t)k->rank},
                 {"i64", "I64", ps, k->pe, 8 * (size_t)k->rank},
                 {"f32", "FP32", "", &k->value, 4}}, k->with_value ? 3 : 2};
    void *args[2] = {(void *)(uintptr_t)x, y};
    one_op_run(&o, args, (uint32_t)k->rank, od);
}

/* Runs a case on x = 1, 2, 3, ... and compares with the reference. */
static void pad_check(const pad_case *k, const char *what)
{
    size_t nx = 1, ny = 1;
    uint64_t od[6];
    for (int a = 0; a < k->rank; a++) {
        int64_t o = k->d[a] + k->pb[a] + k->pe[a];
        od[a] = o > 0 ? (uint64_t)o : 0;
        nx *= (size_t)k->d[a];
        ny *= (size_t)od[a];
    }
    float *x = malloc((nx ? nx : 1) * sizeof(float)), *y = malloc((ny ? ny : 1) * sizeof(float));
    assert_true(x && y);
    for (size_t i = 0; i < nx; i++)
        x[i] = (float)(i + 1);
    pad_run(k, x, y, od);
    for (size_t i = 0; i < ny; i++) {
        size_t rest = i, off = 0;
        int inside = 1;
        int64_t src[6];
        for (int a = k->rank - 1; a >= 0; a--) {
            int64_t j = (int64_t)(rest % od[a]);
            rest /= od[a];
            src[a] = pad_source(k->mode, j - k->pb[a], k->d[a]);
            inside &= src[a] >= 0;
        }
        for (int a = 0; a < k->rank; a++)
            off = off * (size_t)k->d[a] + (size_t)(inside ? src[a] : 0);
        float want = inside ? x[off] : k->with_value ? k->value : 0.0f;
        if (memcmp(&y[i], &want, sizeof want))
            fail_msg("%s: element %zu is %g, expected %g", what, i, (double)y[i], (double)want);
    }
    free(x);
    free(y);
}

static void test_pad_spec_examples_every_mode(void **state)
{
    (void)state;
    const float data[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    /* positive pads [0, 1] / [2, 3]: the four outputs of pad-1.rst and pad-12.rst */
    static const float pos[4][40] = {
        {0, 1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 7, 8, 0, 0, 0, 0, 9, 10, 11, 12, 0, 0, 0,
         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {1, 1, 2, 3, 4, 4, 4, 4, 5, 5, 6, 7, 8, 8, 8, 8, 9, 9, 10, 11, 12, 12, 12, 12,
         9, 9, 10, 11, 12, 12, 12, 12, 9, 9, 10, 11, 12, 12, 12, 12},
        {2, 1, 2, 3, 4, 3, 2, 1, 6, 5, 6, 7, 8, 7, 6, 5, 10, 9, 10, 11, 12, 11, 10, 9,
         6, 5, 6, 7, 8, 7, 6, 5, 2, 1, 2, 3, 4, 3, 2, 1},
        {1, 1, 2, 3, 4, 4, 3, 2, 5, 5, 6, 7, 8, 8, 7, 6, 9, 9, 10, 11, 12, 12, 11, 10,
         9, 9, 10, 11, 12, 12, 11, 10, 5, 5, 6, 7, 8, 8, 7, 6}};
    /* mixed pads [2, -1] / [-1, 3] of pad-12.rst */
    static const float mixed[4][24] = {
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 4, 0, 0, 0, 6, 7, 8, 0, 0, 0},
        {2, 3, 4, 4, 4, 4, 2, 3, 4, 4, 4, 4, 2, 3, 4, 4, 4, 4, 6, 7, 8, 8, 8, 8},
        {10, 11, 12, 11, 10, 9, 6, 7, 8, 7, 6, 5, 2, 3, 4, 3, 2, 1, 6, 7, 8, 7, 6, 5},
        {6, 7, 8, 8, 7, 6, 2, 3, 4, 4, 3, 2, 2, 3, 4, 4, 3, 2, 6, 7, 8, 8, 7, 6}};
    float y[40];
    const uint64_t d58[2] = {5, 8}, d12[2] = {1, 2}, d46[2] = {4, 6};
    for (int mode = 0; mode < 4; mode++) {
        for (int v = 0; v < 2; v++) {
            pad_case k = {v ? "opset12" : "opset1", mode, 2, {3, 4}, {0, 1}, {2, 3}, 0.0f, 0};
            pad_run(&k, data, y, d58);
            assert_memory_equal(y, pos[mode], sizeof pos[mode]);
        }
        /* negative pads [-1, -1] / [-1, -1]: [[6, 7]] in every mode */
        pad_case n = {"opset12", mode, 2, {3, 4}, {-1, -1}, {-1, -1}, 0.0f, 0};
        pad_run(&n, data, y, d12);
        assert_true(y[0] == 6.0f && y[1] == 7.0f);
        pad_case m = {"opset12", mode, 2, {3, 4}, {2, -1}, {-1, 3}, 0.0f, 0};
        pad_run(&m, data, y, d46);
        assert_memory_equal(y, mixed[mode], sizeof mixed[mode]);
    }
    /* pad-12.rst's layer examples: [1,3,32,40] padded [0,5,2,1] / [1,0,3,7] with 15.0
     * is [2,8,37,48]; [2,3,32,40] with [0,-2,-8,1] / [-1,4,-6,7] is [1,5,18,48] */
    pad_case l1 = {"opset12", 0, 4, {1, 3, 32, 40}, {0, 5, 2, 1}, {1, 0, 3, 7}, 15.0f, 1};
    pad_check(&l1, "pad-12.rst constant example");
    pad_case l2 = {"opset12", 0, 4, {2, 3, 32, 40}, {0, -2, -8, 1}, {-1, 4, -6, 7}, 15.0f, 1};
    pad_check(&l2, "pad-12.rst positive and negative pads");
    pad_case l3 = {"opset1", 1, 4, {1, 3, 32, 40}, {0, 5, 2, 1}, {1, 0, 3, 7}, 0.0f, 0};
    pad_check(&l3, "pad-1.rst edge example");
}

static void test_pad_random_cases_every_mode(void **state)
{
    (void)state;
    uint32_t r = 4242;
#define RND(n) ((int)((r = r * 1103515245u + 12345u) >> 16) % (n))
    for (int t = 0; t < 240; t++) {
        pad_case k;
        memset(&k, 0, sizeof k);
        k.ver = RND(2) ? "opset12" : "opset1";
        k.mode = t % 4;
        k.rank = 1 + RND(4);
        for (int a = 0; a < k.rank; a++) {
            int64_t d = 1 + RND(5);
            if (k.mode == 2 && d < 2)
                d = 2;
            k.d[a] = d;
            /* constant and edge: any pad, also larger than the axis; reflect up to
             * d - 1, symmetric up to d; negative pads crop (sometimes everything) */
            int64_t hi = k.mode == 2 ? d - 1 : k.mode == 3 ? d : 2 * d + 2;
            k.pb[a] = RND((int)(hi + d + 1)) - d;
            k.pe[a] = RND((int)(hi + d + 1)) - d;
        }
        k.with_value = RND(2);
        k.value = (float)(RND(200) - 100) / 8.0f;
        char what[48];
        snprintf(what, sizeof what, "random pad %d (%s)", t, pad_mode_names[k.mode]);
        pad_check(&k, what);
    }
#undef RND
}

static void test_pad_value_types_and_a_computed_value(void **state)
{
    (void)state;
    /* the pad value as a Parameter: -0 and NaN keep their bits */
    const float x[4] = {1, 2, 3, 4};
    float y[8];
    const int64_t pb[2] = {1, 0}, pe[2] = {0, 1};
    one_op o = {"Pad", "opset12", "pad_mode=\"constant\"", {"f32", "FP32", "2,2", NULL, 0},
                {{"i64", "I64", "2", pb, 16}, {"i64", "I64", "2", pe, 16}, {"f32", "FP32", "", NULL, 0}}, 3};
    const uint64_t d33[2] = {3, 3};
    float vals[2] = {-0.0f, NAN};
    for (int k = 0; k < 2; k++) {
        float yy[9];
        void *args[3] = {(void *)(uintptr_t)x, &vals[k], yy};
        one_op_run(&o, args, 2, d33);
        const int inside[9] = {0, 0, 0, 1, 1, 0, 1, 1, 0};
        for (int i = 0, j = 0; i < 9; i++) {
            if (inside[i])
                assert_true(yy[i] == x[j++]);
            else
                assert_memory_equal(&yy[i], &vals[k], sizeof(float));
        }
    }
    /* i32 data, i32 pads and pad value; u8 data with edge mode ignores a 4th input */
    const int32_t xi[3] = {7, -8, 9}, pbi[1] = {2}, pei[1] = {1}, vi[1] = {-5};
    int32_t yi[6];
    one_op oi = {"Pad", "opset12", "pad_mode=\"constant\"", {"i32", "I32", "3", NULL, 0},
                 {{"i32", "I32", "1", pbi, 4}, {"i32", "I32", "1", pei, 4}, {"i32", "I32", "", vi, 4}}, 3};
    void *argi[2] = {(void *)(uintptr_t)xi, yi};
    const uint64_t d6[1] = {6};
    one_op_run(&oi, argi, 1, d6);
    const int32_t want_i[6] = {-5, -5, 7, -8, 9, -5};
    for (int i = 0; i < 6; i++)
        assert_int_equal(yi[i], want_i[i]);
    const uint8_t xu[3] = {200, 1, 2};
    uint8_t yu[6];
    one_op ou = {"Pad", "opset1", "pad_mode=\"edge\"", {"u8", "U8", "3", NULL, 0},
                 {{"i32", "I32", "1", pbi, 4}, {"i32", "I32", "1", pei, 4}, {"f32", "FP32", "", x, 4}}, 3};
    void *argu[2] = {(void *)(uintptr_t)xu, yu};
    one_op_run(&ou, argu, 1, d6);
    const uint8_t want_u[6] = {200, 200, 200, 1, 2, 2};
    assert_memory_equal(yu, want_u, 6);
    /* no pad_mode attribute: constant, zeros; a fully cropped axis gives an empty output */
    const int64_t crop_b[2] = {0, -3}, crop_e[2] = {0, -3};
    one_op e = {"Pad", "opset12", NULL, {"f32", "FP32", "2,2", NULL, 0},
                {{"i64", "I64", "2", crop_b, 16}, {"i64", "I64", "2", crop_e, 16}}, 2};
    void *arge[2] = {(void *)(uintptr_t)x, y};
    const uint64_t d20[2] = {2, 0};
    one_op_run(&e, arge, 2, d20);
}

static void test_pad_refusals_name_the_layer(void **state)
{
    (void)state;
    const int64_t p2[2] = {0, 2}, z2[2] = {0, 0}, p3[2] = {0, 3}, p1[1] = {1};
    one_op o = {"Pad", "opset12", "pad_mode=\"reflect\"", {"f32", "FP32", "3,2", NULL, 0},
                {{"i64", "I64", "2", p2, 16}, {"i64", "I64", "2", z2, 16}}, 2};
    one_op_fail(&o, "REFLECT padding mode requires that 'pads_begin[D]' and 'pads_end[D]' must be not "
                    "greater than 'data_shape[D] - 1'");
    o.data = "pad_mode=\"symmetric\"";
    o.more[0].data = p3;
    one_op_fail(&o, "SYMMETRIC padding mode requires that 'pads_begin[D]' and 'pads_end[D]' must be "
                    "not greater than 'data_shape[D]'");
    o.data = "pad_mode=\"reflect\"";
    o.x.shape = "3,1";
    o.more[0] = (xin){"i64", "I64", "2", p2, 16};
    one_op_fail(&o, "REFLECT padding mode requires an input of dimension of at least 2");
    o.data = "pad_mode=\"edge\"";
    o.x.shape = "3,0";
    one_op_fail(&o, "EDGE padding mode requires an input of dimension of at least 1");
    o.x.shape = "3,2";
    o.data = "pad_mode=\"wrap\"";
    one_op_fail(&o, "attribute pad_mode=\"wrap\" is not one of constant, edge, reflect, symmetric");
    o.data = NULL;
    o.more[0] = (xin){"i64", "I64", "1", p1, 8};
    one_op_fail(&o, "length of pads_begin mismatches with rank of input, expect 2, but got 1");
    const float fp[2] = {0, 0};
    o.more[0] = (xin){"f32", "FP32", "2", fp, 8};
    one_op_fail(&o, "pads_begin must be an integral number, but is: FP32");
    o.more[0] = (xin){"i64", "I64", "2", NULL, 0};
    one_op_fail(&o, "input 1 (pads_begin) must be a constant");
    o.more[0] = (xin){"i64", "I64", "2", z2, 16};
    o.more[2] = (xin){"f32", "FP32", "1", fp, 4};
    o.n_more = 3;
    one_op_fail(&o, "Argument for padding value is not a scalar.");
    const int64_t v64 = 1;
    o.more[2] = (xin){"i64", "I64", "", &v64, 8};
    one_op_fail(&o, "Argument element types do not match (input arg element type: FP32, arg_pad "
                    "element type: I64).");
}

/* ---- concurrency ------------------------------------------------------------------------ */

#include <pthread.h>

typedef struct runner {
    const sim_plan *p;
    const cnn *n;
    int seed, ok;
} runner;

static void *run_many(void *arg_)
{
    runner *r = arg_;
    r->ok = 1;
    for (int it = 0; it < 50; it++) {
        float x[72], y[4], want[4];
        for (int i = 0; i < 72; i++)
            x[i] = det(i + r->seed * 13 + it, 1.0f);
        void *args[] = {x, y};
        if (sim_plan_run(r->p, args, 0) != SIM_OK)
            r->ok = 0;
        cnn_reference(r->n, x, want);
        for (int i = 0; i < 4; i++)
            if (fabsf(y[i] - want[i]) > 1e-5f)
                r->ok = 0;
    }
    return NULL;
}

static void test_concurrent_runs_on_one_plan(void **state)
{
    (void)state;
    cnn n;
    cnn_init(&n);
    sim_plan *p = cnn_compile_a(&n);
    pthread_t th[4];
    runner r[4];
    for (int i = 0; i < 4; i++) {
        r[i] = (runner){p, &n, i, 0};
        assert_int_equal(pthread_create(&th[i], NULL, run_many, &r[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_true(r[i].ok);
    }
    sim_plan_destroy(p);
}

/* ---- the real IR corpus ------------------------------------------------------------------ */

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    *size = (size_t)n;
    return s;
}

/* "bin bytes" column of INDEX.md for `file` (0 when not listed). */
static size_t index_bin_bytes(const char *index, const char *file)
{
    char key[300];
    snprintf(key, sizeof key, "\n| %s ", file);
    const char *row = strstr(index, key);
    if (!row)
        return 0;
    const char *col = row + 1;
    for (int i = 0; i < 4 && col; i++)
        col = strchr(col + 1, '|');
    return col ? (size_t)strtoull(col + 1, NULL, 10) : 0;
}

typedef struct exact_value {
    const char *file;
    size_t offset;
    int64_t v[4];
    int n, esz; /* esz 8: i64, 4: i32 */
} exact_value;

/* The values INDEX.md says must be exact (shape, permutation and axis constants). */
static const exact_value exact_values[] = {
    {"npu_blob_compat_dummy_model.xml", 0, {1, 32, 1, 32}, 4, 8},
    {"npu_blob_compat_dummy_model.xml", 1568, {1, 116}, 2, 8},
    {"npu_blob_compat_dummy_model_stateful.xml", 32, {3}, 1, 8},
    {"irfe_transpose_underallocated_weights.xml", 0, {0, 2, 3, 1}, 4, 8},
    {"py_test_model_fp16.xml", 65088, {1, 5184}, 2, 8},
    {"notebooks_flower_tf_cnn_fp16.xml", 47172, {0, 2, 3, 1}, 4, 8},
    {"notebooks_flower_tf_cnn_fp16.xml", 47204, {-1}, 1, 8},
    {"notebooks_flower_tf_cnn_fp16.xml", 7977068, {1}, 1, 4},
    {"notebooks_flower_tf_cnn_fp16.xml", 7977072, {0}, 1, 8},
};

/* Files the sim must compile, and what the others must name when they fail. */
static const struct { const char *file, *expect; } corpus_expect[] = {
    {"add_abc.xml", NULL},
    {"add_abc_u1.xml", "unsupported element type u1"},
    {"conv_with_rt_info.xml", NULL},
    {"dynamic_variable.xml", NULL},
    {"shape_of.xml", NULL},
    {"loop_2d_add.xml", "unsupported op Loop-opset5"},
    {"string_parameter.xml", "unsupported element type string"},
    {"npu_blob_compat_dummy_model.xml", NULL},
    {"npu_blob_compat_dummy_model_dynamic_shapes.xml", "dynamic shape on input"},
    {"npu_blob_compat_dummy_model_stateful.xml", NULL},
    {"npu_driver_mul_add.xml", NULL},
    {"js_add_model.xml", NULL},
    {"js_add_model_with_var.xml", NULL},
    {"js_unit_model.xml", NULL},
    {"ti_resnet_lstm.xml", "unsupported op TensorIterator"},
    {"ir_serialization_custom_op.xml", "unsupported op Template-custom_opset"},
    {"conformance_convert_f16.xml", NULL},
    {"conformance_subgraphs_dumper_test.xml", NULL},
    {"py_test_model_fp16.xml", NULL},
    {"ovc_model_int32.xml", NULL},
    {"irfe_transpose_underallocated_weights.xml", NULL},
    {"irfe_transpose_wrong_const_size.xml", "Const size mismatch"},
    {"irfe_without_weights.xml", NULL},
    {"omz_emotions_recognition_retail_0003_fp16.xml", NULL},
    {"gpu_mlir_matmul_64_128_f16.xml", NULL},
    {"gpu_mlir_sdpa_test.xml", "unsupported op ScaledDotProductAttention-opset13"},
    {"notebooks_flower_tf_cnn_fp16.xml", NULL},
    {"extract_ngraph_reader_group_convolution_v10.xml", NULL},
    {"extract_ngraph_reader_avgpool_v10.xml", NULL},
    {"extract_ngraph_reader_sigmoid_v10.xml", NULL},
};

static void test_every_corpus_ir_compiles_or_names_the_problem(void **state)
{
    (void)state;
    const char *root = getenv("NPU_SHARED_DATA");
    char dir[1024], path[1400];
    if (!root) {
        skip();
        return;
    }
    snprintf(dir, sizeof dir, "%s/ovir", root);
    snprintf(path, sizeof path, "%s/INDEX.md", dir);
    size_t index_size;
    char *index = read_file(path, &index_size);
    DIR *d = opendir(dir);
    if (!d || !index) {
        free(index);
        if (d)
            closedir(d);
        skip();
        return;
    }
    int compiled = 0, refused = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".xml"))
            continue;
        size_t xml_size, bin_size = 0;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *xml = read_file(path, &xml_size);
        assert_non_null(xml);
        snprintf(path + strlen(path) - 4, 5, ".bin");
        char *bin = read_file(path, &bin_size);
        if (!bin) {
            bin_size = index_bin_bytes(index, e->d_name);
            bin = calloc(bin_size + 1, 1);
            assert_non_null(bin);
            for (size_t k = 0; k < sizeof exact_values / sizeof exact_values[0]; k++) {
                const exact_value *x = &exact_values[k];
                if (strcmp(x->file, e->d_name) || x->offset + (size_t)(x->esz * x->n) > bin_size)
                    continue;
                for (int i = 0; i < x->n; i++) {
                    int32_t v32 = (int32_t)x->v[i];
                    memcpy(bin + x->offset + (size_t)(i * x->esz),
                           x->esz == 8 ? (const void *)&x->v[i] : (const void *)&v32, (size_t)x->esz);
                }
            }
        }
        size_t n;
        uint8_t *pl = payload_a(xml, bin, bin_size, VER, &n);
        sim_plan *p = NULL;
        memset(g_log, 0, sizeof g_log);
        int rc = sim_plan_compile(pl, n, VER, NULL, &p, g_log, sizeof g_log);
        const char *expect = "?";
        for (size_t k = 0; k < sizeof corpus_expect / sizeof corpus_expect[0]; k++)
            if (!strcmp(corpus_expect[k].file, e->d_name))
                expect = corpus_expect[k].expect;
        if (rc == SIM_OK) {
            if (expect && strcmp(expect, "?"))
                fail_msg("%s compiled, expected a failure naming '%s'", e->d_name, expect);
            /* run once on zeros: must not crash */
            uint32_t na = sim_plan_arg_count(p);
            void **args = calloc(na, sizeof(void *));
            assert_non_null(args);
            for (uint32_t i = 0; i < na; i++) {
                args[i] = calloc(arg(p, i)->bytes + 1, 1);
                assert_non_null(args[i]);
            }
            assert_int_equal(sim_plan_run(p, args, 0), SIM_OK);
            for (uint32_t i = 0; i < na; i++)
                free(args[i]);
            free(args);
            sim_plan_destroy(p);
            compiled++;
        } else {
            if (!expect)
                fail_msg("%s failed to compile (%d): %s", e->d_name, rc, g_log);
            assert_int_equal(rc, SIM_ERR_COMPILE);
            assert_null(p);
            if (strcmp(expect, "?") ? !strstr(g_log, expect) : !strstr(g_log, "layer '"))
                fail_msg("%s: the log does not name the problem: %s", e->d_name, g_log);
            print_message("refused %s: %.*s\n", e->d_name, (int)strcspn(g_log, "\n"), g_log);
            refused++;
        }
        free(pl);
        free(xml);
        free(bin);
    }
    closedir(d);
    free(index);
    print_message("corpus: %d compiled, %d refused with a named layer\n", compiled, refused);
    assert_true(compiled >= 15);
}


/* Found by fuzz_sim_payload: split lengths whose sum overflows int64 (UB)
 * are refused as not adding up, before they are summed. */
static void test_variadic_split_lengths_that_overflow_are_refused(void **state)
{
    (void)state;
    static const int64_t axis = 1, lens[2] = {INT64_MAX - 3, INT64_MAX - 3};
    one_op o = {"VariadicSplit", "opset1", NULL, {"f32", "FP32", "2,4", NULL, 0},
                {{"i64", "I64", "", &axis, 8}, {"i64", "I64", "2", lens, 16}}, 2};
    one_op_fail(&o, "split lengths do not add up to 4");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_layout_a_cnn_matches_reference, default_profile),
        cmocka_unit_test_setup(test_layout_b_pointer_attribute_and_consts_blob, default_profile),
        cmocka_unit_test_setup(test_read_value_assign_carries_state_across_runs, default_profile),
        cmocka_unit_test_setup(test_every_op_infers_shape_and_runs, default_profile),
        cmocka_unit_test_setup(test_branches_keep_values_alive, default_profile),
        cmocka_unit_test_setup(test_build_flags_change_io_precisions, default_profile),
        cmocka_unit_test_setup(test_v11_ignores_io_precisions, default_profile),
        cmocka_unit_test_setup(test_v10_index_keys_need_use_indices, default_profile),
        cmocka_unit_test_setup(test_layouts_in_flags_are_the_real_set, default_profile),
        cmocka_unit_test_setup(test_serializer_key_selects_the_layout, default_profile),
        cmocka_unit_test_setup(test_config_keys_per_compiler, default_profile),
        cmocka_unit_test_setup(test_rt_info_booleans_per_compiler, default_profile),
        cmocka_unit_test_setup(test_read_value_without_input_per_compiler, default_profile),
        cmocka_unit_test_setup(test_weights_pointer_key_names, default_profile),
        cmocka_unit_test_setup(test_malformed_payloads_are_refused_with_a_log, default_profile),
        cmocka_unit_test_setup(test_elf_round_trip_and_corrupted_blobs, default_profile),
        cmocka_unit_test_setup(test_query_lists_supported_layers, default_profile),
        cmocka_unit_test_setup(test_interpolate_v11_and_v4_compile_and_run, default_profile),
        cmocka_unit_test_setup(test_interpolate_u8_rounding_nhwc_axes_and_pads, default_profile),
        cmocka_unit_test_setup(test_variadic_split_lengths_that_overflow_are_refused, default_profile),
        cmocka_unit_test_setup(test_interpolate_refusals_name_the_layer_and_attribute, default_profile),
        cmocka_unit_test_setup(test_activations_compile_and_run_as_specified, default_profile),
        cmocka_unit_test_setup(test_activations_on_integer_tensors, default_profile),
        cmocka_unit_test_setup(test_activation_refusals_name_the_layer, default_profile),
        cmocka_unit_test_setup(test_power_broadcasts_numpy_style_and_truncates_integers, default_profile),
        cmocka_unit_test_setup(test_prelu_slope_is_per_channel_or_numpy, default_profile),
        cmocka_unit_test_setup(test_strided_slice_spec_examples, default_profile),
        cmocka_unit_test_setup(test_strided_slice_random_cases_follow_the_spec, default_profile),
        cmocka_unit_test_setup(test_strided_slice_refusals_name_the_layer, default_profile),
        cmocka_unit_test_setup(test_strided_slice_keeps_integer_types_and_runs_from_constants,
                               default_profile),
        cmocka_unit_test_setup(test_slice_spec_examples_and_negative_steps, default_profile),
        cmocka_unit_test_setup(test_slice_random_cases_follow_python_slicing, default_profile),
        cmocka_unit_test_setup(test_slice_refusals_name_the_layer, default_profile),
        cmocka_unit_test_setup(test_pad_spec_examples_every_mode, default_profile),
        cmocka_unit_test_setup(test_pad_random_cases_every_mode, default_profile),
        cmocka_unit_test_setup(test_pad_value_types_and_a_computed_value, default_profile),
        cmocka_unit_test_setup(test_pad_refusals_name_the_layer, default_profile),
        cmocka_unit_test_setup(test_concurrent_runs_on_one_plan, default_profile),
        cmocka_unit_test_setup(test_every_corpus_ir_compiles_or_names_the_problem, default_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
