/* INT8 end to end: an IR v11 as NNCF writes a quantized CNN block, loaded with
 * npu_ir_load_memory, compiled with npu_model_compile_ir onto the software NPU
 * and run, against a host reference written from OpenVINO's operation specs:
 *   x [1,3,8,8] -> FakeQuantize (levels 256, signed range, per tensor)
 *   weights i8 [4,3,3,3] -> Convert f32 -> Subtract (zero point i8 [4,1,1,1] ->
 *     Convert f32) -> Multiply (scale f32 [4,1,1,1])    (weight decompression)
 *   -> Convolution (pads 1) -> Add bias -> Relu
 *   -> FakeQuantize (levels 256, unsigned range, limits per channel [1,4,1,1]).
 * FakeQuantize is fake-quantize-1.rst's formula in float (round half to even,
 * as the reference's nearbyint); Convert, Subtract, Multiply in f32 as the
 * reference evaluates them. */
#include "tests/l0_test_util.h"

#include <math.h>

/* ---- the weights (.bin) ---- */
typedef struct q_bin {
    int8_t w[4 * 3 * 3 * 3];      /* offset 0, 108 bytes */
    int8_t zp[4];                 /* 108 */
    float scale[4];               /* 112 */
    float bias[4];                /* 128 */
    float fq1[4];                 /* 144: il, ih, ol, oh (per tensor) */
    float fq2[4][4];              /* 160: il[4], ih[4], ol[4], oh[4] (per channel) */
} q_bin;

static float half_even(float q)
{
    float f = floorf(q), r = q - f;
    if (r != 0.5f)
        return r > 0.5f ? f + 1.0f : f;
    return fmodf(f, 2.0f) == 0.0f ? f : f + 1.0f;
}

/* fake-quantize-1.rst in float; *edge = distance of the scaled value from a
 * rounding boundary (x.5), so the comparison can allow one step there. */
static float fq(float x, float il, float ih, float ol, float oh, float *edge)
{
    float L = 255.0f;
    *edge = 1.0f;
    if (x <= fminf(il, ih))
        return ol;
    if (x > fmaxf(il, ih))
        return oh;
    float q = (x - il) / (ih - il) * L;
    *edge = fabsf(q - floorf(q) - 0.5f);
    return half_even(q) / L * (oh - ol) + ol;
}

/* The IR, one literal per layer or edge list (C11 caps literal lengths). */
static const char *const ir_parts[] = {
    "<?xml version=\"1.0\"?>\n<net name=\"int8_block\" version=\"11\">\n<layers>\n",
    "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data shape=\"1,3,8,8\" element_type=\"f32\"/>"
    "<output><port id=\"0\" precision=\"FP32\" names=\"x\"><dim>1</dim><dim>3</dim><dim>8</dim><dim>8</dim></port></output></layer>\n",
    "<layer id=\"1\" name=\"fq1_il\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"\" offset=\"144\" size=\"4\"/><output><port id=\"0\" precision=\"FP32\"/></output></layer>\n",
    "<layer id=\"2\" name=\"fq1_ih\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"\" offset=\"148\" size=\"4\"/><output><port id=\"0\" precision=\"FP32\"/></output></layer>\n",
    "<layer id=\"3\" name=\"fq1_ol\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"\" offset=\"152\" size=\"4\"/><output><port id=\"0\" precision=\"FP32\"/></output></layer>\n",
    "<layer id=\"4\" name=\"fq1_oh\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"\" offset=\"156\" size=\"4\"/><output><port id=\"0\" precision=\"FP32\"/></output></layer>\n",
    "<layer id=\"5\" name=\"x/fq_input_0\" type=\"FakeQuantize\" version=\"opset1\"><data levels=\"256\" auto_broadcast=\"numpy\"/>"
    "<input><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>3</dim><dim>8</dim><dim>8</dim></port><port id=\"1\" precision=\"FP32\"/><port id=\"2\" precision=\"FP32\"/><port id=\"3\" precision=\"FP32\"/><port id=\"4\" precision=\"FP32\"/></input>"
    "<output><port id=\"5\" precision=\"FP32\"><dim>1</dim><dim>3</dim><dim>8</dim><dim>8</dim></port></output></layer>\n",
    "<layer id=\"6\" name=\"conv.weight\" type=\"Const\" version=\"opset1\"><data element_type=\"i8\" shape=\"4,3,3,3\" offset=\"0\" size=\"108\"/>"
    "<output><port id=\"0\" precision=\"I8\"><dim>4</dim><dim>3</dim><dim>3</dim><dim>3</dim></port></output></layer>\n",
    "<layer id=\"7\" name=\"conv.weight/convert\" type=\"Convert\" version=\"opset1\"><data destination_type=\"f32\"/>"
    "<input><port id=\"0\" precision=\"I8\"><dim>4</dim><dim>3</dim><dim>3</dim><dim>3</dim></port></input>"
    "<output><port id=\"1\" precision=\"FP32\"><dim>4</dim><dim>3</dim><dim>3</dim><dim>3</dim></port></output></layer>\n",
    "<layer id=\"8\" name=\"conv.weight/zero_point\" type=\"Const\" version=\"opset1\"><data element_type=\"i8\" shape=\"4,1,1,1\" offset=\"108\" size=\"4\"/>"
    "<output><port id=\"0\" precision=\"I8\"><dim>4</dim><dim>1</dim><dim>1</dim><dim>1</dim></port></output></layer>\n",
    "<layer id=\"9\" name=\"conv.weight/zero_point/convert\" type=\"Convert\" version=\"opset1\"><data destination_type=\"f32\"/>"
    "<input><port id=\"0\" precision=\"I8\"><dim>4</dim><dim>1</dim><dim>1</dim><dim>1</dim></port></input>"
    "<output><port id=\"1\" precision=\"FP32\"><dim>4</dim><dim>1</dim><dim>1</dim><dim>1</dim></port></output></layer>\n",
    "<layer id=\"10\" name=\"conv.weight/zero_point/subtract\" type=\"Subtract\" version=\"opset1\"><data auto_broadcast=\"numpy\"/>"
    "<input><port id=\"0\" precision=\"FP32\"><dim>4</dim><dim>3</dim><dim>3</dim><dim>3</dim></port><port id=\"1\" precision=\"FP32\"><dim>4</dim><dim>1</dim><dim>1</dim><dim>1</dim></port></input>"
    "<output><port id=\"2\" precision=\"FP32\"><dim>4</dim><dim>3</dim><dim>3</dim><dim>3</dim></port></output></layer>\n",
    "<layer id=\"11\" name=\"conv.weight/scale\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"4,1,1,1\" offset=\"112\" size=\"16\"/>"
    "<output><port id=\"0\" precision=\"FP32\"><dim>4</dim><dim>1</dim><dim>1</dim><dim>1</dim></port></output></layer>\n",
    "<layer id=\"12\" name=\"conv.weight/fq_weights_1\" type=\"Multiply\" version=\"opset1\"><data auto_broadcast=\"numpy\"/>"
    "<input><port id=\"0\" precision=\"FP32\"><dim>4</dim><dim>3</dim><dim>3</dim><dim>3</dim></port><port id=\"1\" precision=\"FP32\"><dim>4</dim><dim>1</dim><dim>1</dim><dim>1</dim></port></input>"
    "<output><port id=\"2\" precision=\"FP32\"><dim>4</dim><dim>3</dim><dim>3</dim><dim>3</dim></port></output></layer>\n",
    "<layer id=\"13\" name=\"conv\" type=\"Convolution\" version=\"opset1\"><data strides=\"1, 1\" dilations=\"1, 1\" pads_begin=\"1, 1\" pads_end=\"1, 1\" auto_pad=\"explicit\"/>"
    "<input><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>3</dim><dim>8</dim><dim>8</dim></port><port id=\"1\" precision=\"FP32\"><dim>4</dim><dim>3</dim><dim>3</dim><dim>3</dim></port></input>"
    "<output><port id=\"2\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>8</dim><dim>8</dim></port></output></layer>\n",
    "<layer id=\"14\" name=\"conv.bias\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"1,4,1,1\" offset=\"128\" size=\"16\"/>"
    "<output><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>1</dim><dim>1</dim></port></output></layer>\n",
    "<layer id=\"15\" name=\"conv/add\" type=\"Add\" version=\"opset1\"><data auto_broadcast=\"numpy\"/>"
    "<input><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>8</dim><dim>8</dim></port><port id=\"1\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>1</dim><dim>1</dim></port></input>"
    "<output><port id=\"2\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>8</dim><dim>8</dim></port></output></layer>\n",
    "<layer id=\"16\" name=\"relu\" type=\"Relu\" version=\"opset1\">"
    "<input><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>8</dim><dim>8</dim></port></input>"
    "<output><port id=\"1\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>8</dim><dim>8</dim></port></output></layer>\n",
    "<layer id=\"17\" name=\"fq2_il\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"1,4,1,1\" offset=\"160\" size=\"16\"/><output><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>1</dim><dim>1</dim></port></output></layer>\n",
    "<layer id=\"18\" name=\"fq2_ih\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"1,4,1,1\" offset=\"176\" size=\"16\"/><output><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>1</dim><dim>1</dim></port></output></layer>\n",
    "<layer id=\"19\" name=\"fq2_ol\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"1,4,1,1\" offset=\"192\" size=\"16\"/><output><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>1</dim><dim>1</dim></port></output></layer>\n",
    "<layer id=\"20\" name=\"fq2_oh\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"1,4,1,1\" offset=\"208\" size=\"16\"/><output><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>1</dim><dim>1</dim></port></output></layer>\n",
    "<layer id=\"21\" name=\"relu/fq_output_0\" type=\"FakeQuantize\" version=\"opset1\"><data levels=\"256\" auto_broadcast=\"numpy\"/>"
    "<input><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>8</dim><dim>8</dim></port>"
    "<port id=\"1\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>1</dim><dim>1</dim></port><port id=\"2\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>1</dim><dim>1</dim></port>"
    "<port id=\"3\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>1</dim><dim>1</dim></port><port id=\"4\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>1</dim><dim>1</dim></port></input>"
    "<output><port id=\"5\" precision=\"FP32\" names=\"y\"><dim>1</dim><dim>4</dim><dim>8</dim><dim>8</dim></port></output></layer>\n",
    "<layer id=\"22\" name=\"y/sink_port_0\" type=\"Result\" version=\"opset1\">"
    "<input><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>4</dim><dim>8</dim><dim>8</dim></port></input></layer>\n",
    "</layers>\n<edges>\n",
    "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"5\" to-port=\"0\"/>\n",
    "<edge from-layer=\"1\" from-port=\"0\" to-layer=\"5\" to-port=\"1\"/>\n",
    "<edge from-layer=\"2\" from-port=\"0\" to-layer=\"5\" to-port=\"2\"/>\n",
    "<edge from-layer=\"3\" from-port=\"0\" to-layer=\"5\" to-port=\"3\"/>\n",
    "<edge from-layer=\"4\" from-port=\"0\" to-layer=\"5\" to-port=\"4\"/>\n",
    "<edge from-layer=\"6\" from-port=\"0\" to-layer=\"7\" to-port=\"0\"/>\n",
    "<edge from-layer=\"8\" from-port=\"0\" to-layer=\"9\" to-port=\"0\"/>\n",
    "<edge from-layer=\"7\" from-port=\"1\" to-layer=\"10\" to-port=\"0\"/>\n",
    "<edge from-layer=\"9\" from-port=\"1\" to-layer=\"10\" to-port=\"1\"/>\n",
    "<edge from-layer=\"10\" from-port=\"2\" to-layer=\"12\" to-port=\"0\"/>\n",
    "<edge from-layer=\"11\" from-port=\"0\" to-layer=\"12\" to-port=\"1\"/>\n",
    "<edge from-layer=\"5\" from-port=\"5\" to-layer=\"13\" to-port=\"0\"/>\n",
    "<edge from-layer=\"12\" from-port=\"2\" to-layer=\"13\" to-port=\"1\"/>\n",
    "<edge from-layer=\"13\" from-port=\"2\" to-layer=\"15\" to-port=\"0\"/>\n",
    "<edge from-layer=\"14\" from-port=\"0\" to-layer=\"15\" to-port=\"1\"/>\n",
    "<edge from-layer=\"15\" from-port=\"2\" to-layer=\"16\" to-port=\"0\"/>\n",
    "<edge from-layer=\"16\" from-port=\"1\" to-layer=\"21\" to-port=\"0\"/>\n",
    "<edge from-layer=\"17\" from-port=\"0\" to-layer=\"21\" to-port=\"1\"/>\n",
    "<edge from-layer=\"18\" from-port=\"0\" to-layer=\"21\" to-port=\"2\"/>\n",
    "<edge from-layer=\"19\" from-port=\"0\" to-layer=\"21\" to-port=\"3\"/>\n",
    "<edge from-layer=\"20\" from-port=\"0\" to-layer=\"21\" to-port=\"4\"/>\n",
    "<edge from-layer=\"21\" from-port=\"5\" to-layer=\"22\" to-port=\"0\"/>\n",
    "</edges>\n<rt_info/>\n</net>\n",
};

static void make_bin(q_bin *b)
{
    for (int i = 0; i < 108; i++)
        b->w[i] = (int8_t)((i * 53 + 7) % 255 - 127);
    const int8_t zp[4] = {0, 3, -5, 1};
    const float sc[4] = {0.011f, 0.0073f, 0.0152f, 0.0094f}, bias[4] = {0.1f, -0.2f, 0.05f, 0.3f};
    for (int c = 0; c < 4; c++) {
        b->zp[c] = zp[c];
        b->scale[c] = sc[c];
        b->bias[c] = bias[c];
        b->fq2[0][c] = 0.0f;                 /* unsigned activations after ReLU */
        b->fq2[1][c] = 1.5f + 0.5f * (float)c;
        b->fq2[2][c] = 0.0f;
        b->fq2[3][c] = b->fq2[1][c];
    }
    b->fq1[0] = -2.0f;                       /* signed: [-2, 2 * 127 / 128] */
    b->fq1[1] = 2.0f * 127.0f / 128.0f;
    b->fq1[2] = b->fq1[0];
    b->fq1[3] = b->fq1[1];
}

static void reference(const q_bin *b, const float *x, float *y, float *edge)
{
    float xq[3 * 64], w[108], e;
    for (int i = 0; i < 192; i++)
        xq[i] = fq(x[i], b->fq1[0], b->fq1[1], b->fq1[2], b->fq1[3], &e);
    for (int i = 0; i < 108; i++) {
        int c = i / 27;
        w[i] = ((float)b->w[i] - (float)b->zp[c]) * b->scale[c];   /* Convert, Subtract, Multiply in f32 */
    }
    for (int o = 0; o < 4; o++)
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++) {
                double s = 0;
                for (int c = 0; c < 3; c++)
                    for (int a = 0; a < 3; a++)
                        for (int bb = 0; bb < 3; bb++) {
                            int yy = i - 1 + a, xx = j - 1 + bb;
                            if (yy >= 0 && yy < 8 && xx >= 0 && xx < 8)
                                s += (double)xq[(c * 8 + yy) * 8 + xx] * w[((o * 3 + c) * 3 + a) * 3 + bb];
                        }
                float v = (float)s + b->bias[o];
                v = v > 0.0f ? v : 0.0f;
                int k = (o * 8 + i) * 8 + j;
                y[k] = fq(v, b->fq2[0][o], b->fq2[1][o], b->fq2[2][o], b->fq2[3][o], &edge[k]);
            }
}

static void test_nncf_int8_block_runs_as_the_spec_computes_it(void **state)
{
    (void)state;
    q_bin bin;
    memset(&bin, 0, sizeof bin);
    make_bin(&bin);
    npu_ir *ir = NULL;
    npu_model *m = NULL;
    npu_request *r = NULL;
    char ir_text[16384];
    size_t len = 0;
    for (size_t i = 0; i < sizeof ir_parts / sizeof ir_parts[0]; i++) {
        size_t n = strlen(ir_parts[i]);
        assert_true(len + n < sizeof ir_text);
        memcpy(ir_text + len, ir_parts[i], n);
        len += n;
    }
    tu_ok(npu_ir_load_memory(&tu_arena, tu_ctx, ir_text, len, &bin, sizeof bin, &ir), "load int8 IR");
    tu_ok(npu_model_compile_ir(tu_dev, &tu_arena, ir, NULL, &m), "compile int8 IR");
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    uint32_t ix, iy;
    tu_ok(npu_request_find_input(r, "x", &ix), "input x");
    tu_ok(npu_request_find_output(r, "y", &iy), "output y");
    float x[192], want[256], edge[256];
    uint32_t seed = 7;
    for (int run = 0; run < 3; run++) {
        for (int i = 0; i < 192; i++) {
            seed = seed * 1664525u + 1013904223u;
            x[i] = (float)((int)(seed >> 16) % 5000 - 2500) / 1000.0f;   /* beyond the range too */
        }
        memcpy(npu_request_input(r, ix), x, sizeof x);
        tu_ok(npu_request_infer(r), "infer");
        const float *y = (const float *)npu_request_output(r, iy);
        reference(&bin, x, want, edge);
        int exact = 0;
        for (int k = 0; k < 256; k++) {
            int o = k / 64;
            float step = bin.fq2[1][o] / 255.0f;
            if (y[k] == want[k]) {
                exact++;
                continue;
            }
            /* the convolution sums in another order: only a value that lands on
             * a rounding boundary may move by one quantization step */
            if (!(edge[k] < 1e-3f && fabsf(y[k] - want[k]) <= step * 1.001f))
                fail_msg("run %d, y[%d]: got %.9g, expected %.9g (boundary distance %g)", run, k, (double)y[k],
                         (double)want[k], (double)edge[k]);
        }
        assert_true(exact >= 250);
    }
    npu_request_destroy(r);
    npu_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_nncf_int8_block_runs_as_the_spec_computes_it, tu_dev_setup, tu_dev_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
