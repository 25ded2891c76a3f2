/* Upsampling decoder end to end: an IR v11 as converters write the decoder of a
 * segmentation net (U-Net / FCN style), loaded with npu_ir_load_memory,
 * compiled with npu_model_compile_ir onto the software NPU and run, against a
 * host reference written from OpenVINO's operation specs:
 *   x [1,4,4,4] -> ConvolutionBackpropData (filter [4,2,4,4], strides 2, pads 1:
 *     (4 - 1) * 2 + 4 - 2 = 8) -> Add bias [1,2,1,1] -> Relu
 *   -> ConvolutionBackpropData (filter [2,1,3,3], strides 2, pads 1, output_padding
 *     1, the output_shape input [16,16]) -> Sigmoid -> y [1,1,16,16].
 * The transposed convolution is convolution-backprop-data-1.rst's sum, written
 * here as a gather over output positions (the sim scatters). */
#include "tests/l0_test_util.h"

#include <math.h>

typedef struct dec_bin {
    float w1[4 * 2 * 4 * 4];  /* offset 0, 512 bytes */
    float bias[2];            /* 512 */
    float w2[2 * 1 * 3 * 3];  /* 520, 72 bytes */
    int64_t out_shape[2];     /* 592 */
} dec_bin;

#define DIMS4(a, b, c, d) "<dim>" #a "</dim><dim>" #b "</dim><dim>" #c "</dim><dim>" #d "</dim>"

static const char *const ir_parts[] = {
    "<?xml version=\"1.0\"?>\n<net name=\"decoder\" version=\"11\">\n<layers>\n",
    "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data shape=\"1,4,4,4\" element_type=\"f32\"/>"
    "<output><port id=\"0\" precision=\"FP32\" names=\"x\">" DIMS4(1, 4, 4, 4) "</port></output></layer>\n",
    "<layer id=\"1\" name=\"up1.weight\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"4,2,4,4\" "
    "offset=\"0\" size=\"512\"/><output><port id=\"0\" precision=\"FP32\">" DIMS4(4, 2, 4, 4) "</port></output></layer>\n",
    "<layer id=\"2\" name=\"up1\" type=\"ConvolutionBackpropData\" version=\"opset1\"><data strides=\"2, 2\" "
    "dilations=\"1, 1\" pads_begin=\"1, 1\" pads_end=\"1, 1\" auto_pad=\"explicit\" output_padding=\"0, 0\"/>"
    "<input><port id=\"0\" precision=\"FP32\">" DIMS4(1, 4, 4, 4) "</port><port id=\"1\" precision=\"FP32\">"
    DIMS4(4, 2, 4, 4) "</port></input><output><port id=\"2\" precision=\"FP32\">" DIMS4(1, 2, 8, 8)
    "</port></output></layer>\n",
    "<layer id=\"3\" name=\"up1.bias\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"1,2,1,1\" "
    "offset=\"512\" size=\"8\"/><output><port id=\"0\" precision=\"FP32\">" DIMS4(1, 2, 1, 1) "</port></output></layer>\n",
    "<layer id=\"4\" name=\"up1/add\" type=\"Add\" version=\"opset1\"><data auto_broadcast=\"numpy\"/>"
    "<input><port id=\"0\" precision=\"FP32\">" DIMS4(1, 2, 8, 8) "</port><port id=\"1\" precision=\"FP32\">"
    DIMS4(1, 2, 1, 1) "</port></input><output><port id=\"2\" precision=\"FP32\">" DIMS4(1, 2, 8, 8)
    "</port></output></layer>\n",
    "<layer id=\"5\" name=\"up1/relu\" type=\"Relu\" version=\"opset1\"><input><port id=\"0\" precision=\"FP32\">"
    DIMS4(1, 2, 8, 8) "</port></input><output><port id=\"1\" precision=\"FP32\">" DIMS4(1, 2, 8, 8)
    "</port></output></layer>\n",
    "<layer id=\"6\" name=\"up2.weight\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"2,1,3,3\" "
    "offset=\"520\" size=\"72\"/><output><port id=\"0\" precision=\"FP32\">" DIMS4(2, 1, 3, 3) "</port></output></layer>\n",
    "<layer id=\"7\" name=\"up2.output_shape\" type=\"Const\" version=\"opset1\"><data element_type=\"i64\" shape=\"2\" "
    "offset=\"592\" size=\"16\"/><output><port id=\"0\" precision=\"I64\"><dim>2</dim></port></output></layer>\n",
    "<layer id=\"8\" name=\"up2\" type=\"ConvolutionBackpropData\" version=\"opset1\"><data strides=\"2, 2\" "
    "dilations=\"1, 1\" pads_begin=\"1, 1\" pads_end=\"1, 1\" auto_pad=\"explicit\" output_padding=\"1, 1\"/>"
    "<input><port id=\"0\" precision=\"FP32\">" DIMS4(1, 2, 8, 8) "</port><port id=\"1\" precision=\"FP32\">"
    DIMS4(2, 1, 3, 3) "</port><port id=\"2\" precision=\"I64\"><dim>2</dim></port></input>"
    "<output><port id=\"3\" precision=\"FP32\">" DIMS4(1, 1, 16, 16) "</port></output></layer>\n",
    "<layer id=\"9\" name=\"mask\" type=\"Sigmoid\" version=\"opset1\"><input><port id=\"0\" precision=\"FP32\">"
    DIMS4(1, 1, 16, 16) "</port></input><output><port id=\"1\" precision=\"FP32\" names=\"y\">" DIMS4(1, 1, 16, 16)
    "</port></output></layer>\n",
    "<layer id=\"10\" name=\"y/sink_port_0\" type=\"Result\" version=\"opset1\"><input><port id=\"0\" "
    "precision=\"FP32\">" DIMS4(1, 1, 16, 16) "</port></input></layer>\n",
    "</layers>\n<edges>\n",
    "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"2\" to-port=\"0\"/>\n",
    "<edge from-layer=\"1\" from-port=\"0\" to-layer=\"2\" to-port=\"1\"/>\n",
    "<edge from-layer=\"2\" from-port=\"2\" to-layer=\"4\" to-port=\"0\"/>\n",
    "<edge from-layer=\"3\" from-port=\"0\" to-layer=\"4\" to-port=\"1\"/>\n",
    "<edge from-layer=\"4\" from-port=\"2\" to-layer=\"5\" to-port=\"0\"/>\n",
    "<edge from-layer=\"5\" from-port=\"1\" to-layer=\"8\" to-port=\"0\"/>\n",
    "<edge from-layer=\"6\" from-port=\"0\" to-layer=\"8\" to-port=\"1\"/>\n",
    "<edge from-layer=\"7\" from-port=\"0\" to-layer=\"8\" to-port=\"2\"/>\n",
    "<edge from-layer=\"8\" from-port=\"3\" to-layer=\"9\" to-port=\"0\"/>\n",
    "<edge from-layer=\"9\" from-port=\"1\" to-layer=\"10\" to-port=\"0\"/>\n",
    "</edges>\n<rt_info/>\n</net>\n",
};

/* convolution-backprop-data-1.rst, 2-D, one image: y[co, oy, ox] sums
 * x[ci, iy, ix] * w[ci, co, ky, kx] over iy * s + ky = oy + pb (the same in x). */
static void deconv2d(const float *x, int cin, int ih, int iw, const float *w, int cout, int k, int s, int pb,
                     float *y, int oh, int ow)
{
    for (int co = 0; co < cout; co++)
        for (int oy = 0; oy < oh; oy++)
            for (int ox = 0; ox < ow; ox++) {
                double acc = 0;
                for (int ci = 0; ci < cin; ci++)
                    for (int ky = 0; ky < k; ky++)
                        for (int kx = 0; kx < k; kx++) {
                            int ny = oy + pb - ky, nx = ox + pb - kx;
                            if (ny < 0 || nx < 0 || ny % s || nx % s || ny / s >= ih || nx / s >= iw)
                                continue;
                            acc += (double)x[(ci * ih + ny / s) * iw + nx / s] *
                                   (double)w[((ci * cout + co) * k + ky) * k + kx];
                        }
                y[(co * oh + oy) * ow + ox] = (float)acc;
            }
}

static void reference(const dec_bin *b, const float *x, float *y)
{
    float h[2 * 8 * 8];
    deconv2d(x, 4, 4, 4, b->w1, 2, 4, 2, 1, h, 8, 8);
    for (int i = 0; i < 128; i++) {
        float v = h[i] + b->bias[i / 64];
        h[i] = v > 0.0f ? v : 0.0f;
    }
    deconv2d(h, 2, 8, 8, b->w2, 1, 3, 2, 1, y, 16, 16);
    for (int i = 0; i < 256; i++)
        y[i] = (float)(1.0 / (1.0 + exp(-(double)y[i])));
}

static void test_upsampling_decoder_runs_as_the_spec_computes_it(void **state)
{
    (void)state;
    dec_bin bin;
    memset(&bin, 0, sizeof bin);
    uint32_t seed = 11;
    for (int i = 0; i < 128; i++) {
        seed = seed * 1664525u + 1013904223u;
        bin.w1[i] = (float)((int)(seed >> 16) % 2001 - 1000) / 2000.0f;
    }
    for (int i = 0; i < 18; i++) {
        seed = seed * 1664525u + 1013904223u;
        bin.w2[i] = (float)((int)(seed >> 16) % 2001 - 1000) / 1000.0f;
    }
    bin.bias[0] = 0.05f;
    bin.bias[1] = -0.1f;
    bin.out_shape[0] = bin.out_shape[1] = 16;
    char ir_text[16384];
    size_t len = 0;
    for (size_t i = 0; i < sizeof ir_parts / sizeof ir_parts[0]; i++) {
        size_t n = strlen(ir_parts[i]);
        assert_true(len + n < sizeof ir_text);
        memcpy(ir_text + len, ir_parts[i], n);
        len += n;
    }
    npu_ir *ir = NULL;
    npu_model *m = NULL;
    npu_request *r = NULL;
    tu_ok(npu_ir_load_memory(&tu_arena, tu_ctx, ir_text, len, &bin, sizeof bin, &ir), "load decoder IR");
    tu_ok(npu_model_compile_ir(tu_dev, &tu_arena, ir, NULL, &m), "compile decoder IR");
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    uint32_t ix, iy;
    tu_ok(npu_request_find_input(r, "x", &ix), "input x");
    tu_ok(npu_request_find_output(r, "y", &iy), "output y");
    float x[64], want[256];
    for (int run = 0; run < 3; run++) {
        for (int i = 0; i < 64; i++) {
            seed = seed * 1664525u + 1013904223u;
            x[i] = (float)((int)(seed >> 16) % 4001 - 2000) / 1000.0f;
        }
        memcpy(npu_request_input(r, ix), x, sizeof x);
        tu_ok(npu_request_infer(r), "infer");
        const float *y = (const float *)npu_request_output(r, iy);
        reference(&bin, x, want);
        int varied = 0;
        for (int k = 0; k < 256; k++) {
            if (!(fabsf(y[k] - want[k]) <= 1e-5f))
                fail_msg("run %d, y[%d]: got %.9g, expected %.9g", run, k, (double)y[k], (double)want[k]);
            varied += fabsf(want[k] - 0.5f) > 0.05f;
        }
        assert_true(varied > 64);   /* the decoder does not collapse to sigmoid(0) */
    }
    npu_request_destroy(r);
    npu_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_upsampling_decoder_runs_as_the_spec_computes_it, tu_dev_setup, tu_dev_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
