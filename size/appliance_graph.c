/* appliance_graph.c - an appliance that builds its model in C (a small MLP
 * with a convolution in front), compiles it and runs one inference. Built by
 * `make size` with -DNPU_NO_IR -DNPU_NO_CACHE (and once more with
 * -DNPU_NO_MESSAGES) to measure what npu adds to such a program.
 *
 *   appliance_graph
 *
 * Prints output 0's first value. */
#include <stdio.h>
#include "npu.h"

static _Alignas(NPU_ARENA_ALIGN) unsigned char memory[4 << 20];
static float conv_w[4 * 1 * 3 * 3], fc_w[4 * 8 * 8 * 10], fc_b[10];

int main(void)
{
    npu_arena arena;
    npu_context *ctx = NULL;
    npu_device *dev = NULL;
    npu_graph *g = NULL;
    npu_model *model = NULL;
    npu_request *req = NULL;
    npu_status st;
    size_t i;
    for (i = 0; i < sizeof conv_w / sizeof *conv_w; i++) conv_w[i] = (float)(i % 5) * 0.1f - 0.2f;
    for (i = 0; i < sizeof fc_w / sizeof *fc_w; i++) fc_w[i] = (float)(i % 7) * 0.01f - 0.03f;
    for (i = 0; i < sizeof fc_b / sizeof *fc_b; i++) fc_b[i] = 0.1f;
    st = npu_arena_init(&arena, memory, sizeof memory);
    if (st == NPU_OK) st = npu_context_create(&arena, NULL, &ctx);
    if (st == NPU_OK) st = npu_device_open(&arena, ctx, NULL, &dev);
    if (st == NPU_OK) st = npu_graph_create(&arena, ctx, NULL, &g);
    if (st == NPU_OK) {
        /* x [1,1,8,8] -> conv 3x3 (4 channels, same) -> relu -> reshape [1,256]
         * -> matmul [256,10] + b -> softmax */
        npu_shape xs = {4, {1, 1, 8, 8}}, cs = {4, {4, 1, 3, 3}}, ws = {2, {256, 10}}, bs = {1, {10}};
        npu_conv_params same = {{0}, {0}, {0}, {0}, NPU_PAD_SAME_UPPER};
        const int64_t flat[2] = {1, 256};
        npu_node *x = npu_graph_parameter(g, "x", NPU_F32, &xs, "NCHW");
        npu_node *c = npu_graph_convolution(g, x, npu_graph_constant(g, "cw", NPU_F32, &cs, conv_w, sizeof conv_w),
                                            &same, NULL);
        npu_node *h = npu_graph_reshape(g, npu_graph_relu(g, c, NULL), flat, 2, 0, NULL);
        npu_node *y = npu_graph_matmul(g, h, npu_graph_constant(g, "w", NPU_F32, &ws, fc_w, sizeof fc_w), 0, 0, NULL);
        y = npu_graph_add(g, y, npu_graph_constant(g, "b", NPU_F32, &bs, fc_b, sizeof fc_b), NULL);
        npu_graph_result(g, npu_graph_softmax(g, y, 1, NULL), "y");
        st = npu_graph_status(g);
    }
    if (st == NPU_OK) st = npu_model_compile_graph(dev, &arena, g, NULL, &model);
    if (st == NPU_OK) st = npu_request_create(model, &arena, NULL, &req);
    if (st == NPU_OK) {
        float *x = (float *)npu_request_input(req, 0);
        for (i = 0; i < 64; i++) x[i] = (float)(i % 9) * 0.1f;
        st = npu_request_infer(req);
    }
    if (st == NPU_OK) printf("y[0] = %g\n", (double)*(const float *)npu_request_output(req, 0));
    else fprintf(stderr, "appliance_graph: %s\n", ctx != NULL ? npu_context_last_error(ctx) : "no context");
    npu_request_destroy(req);
    npu_model_destroy(model);
    npu_device_close(dev);
    return st == NPU_OK ? 0 : 1;
}
