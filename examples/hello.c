/* hello.c - the smallest complete npu program: y = relu(x . W + b) on the NPU.
 * Run on the software NPU: ZE_ENABLE_ALT_DRIVERS=$PWD/build/libze_npu_sim.so */
/* POSIX 2008 (clock_gettime, mkstemp, posix_memalign, ...) under -std=c11. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include "npu.h"

static _Alignas(NPU_ARENA_ALIGN) unsigned char memory[256 * 1024];  /* every object */
static const float W[4 * 3] = {1, -1, 0.5f, 2, 0, -1, -0.5f, 1, 1, 0, 2, -2};
static const float b[3] = {0.5f, -0.25f, 0};

static int fail(npu_context *ctx, const char *what)
{
    fprintf(stderr, "hello: %s failed: %s\n", what, npu_context_last_error(ctx));
    return 1;
}

int main(void)
{
    npu_arena arena;
    npu_context *ctx;
    npu_status s = npu_arena_init(&arena, memory, sizeof memory);
    if (s == NPU_OK) s = npu_context_create(&arena, NULL, &ctx);
    if (s != NPU_OK) {   /* no context yet to hold a message: the status says it */
        fprintf(stderr, "hello: creating the context failed: %s\n", npu_status_string(s));
        return 1;
    }

    npu_device *dev;
    if (npu_device_open(&arena, ctx, NULL, &dev) != NPU_OK) return fail(ctx, "npu_device_open");

    /* The graph: weights are passed by pointer, never copied. */
    npu_graph *g;
    if (npu_graph_create(&arena, ctx, NULL, &g) != NPU_OK) return fail(ctx, "npu_graph_create");
    npu_shape xs = {2, {1, 4}}, ws = {2, {4, 3}}, bs = {1, {3}};
    npu_node *x = npu_graph_parameter(g, "x", NPU_F32, &xs, "NC");
    npu_node *w = npu_graph_constant(g, "W", NPU_F32, &ws, W, sizeof W);
    npu_node *bias = npu_graph_constant(g, "b", NPU_F32, &bs, b, sizeof b);
    npu_node *y = npu_graph_relu(g, npu_graph_add(g, npu_graph_matmul(g, x, w, 0, 0, NULL), bias, NULL), NULL);
    npu_graph_result(g, y, "y");
    /* The builder calls keep the first error; npu_graph_status reports it. */
    if (npu_graph_status(g) != NPU_OK) return fail(ctx, "building the graph");

    npu_model *model;
    if (npu_model_compile_graph(dev, &arena, g, NULL, &model) != NPU_OK) return fail(ctx, "compile");
    npu_request *req;
    if (npu_request_create(model, &arena, NULL, &req) != NPU_OK) return fail(ctx, "npu_request_create");

    float *in = npu_request_input(req, 0);            /* write the input in place */
    for (int i = 0; i < 4; i++) in[i] = (float)(i + 1);
    if (npu_request_infer(req) != NPU_OK) return fail(ctx, "npu_request_infer");
    const float *out = npu_request_output(req, 0);

    int bad = 0;
    printf("hello: x = [1, 2, 3, 4]\nhello: y = relu(x . W + b) = [");
    for (int j = 0; j < 3; j++) {
        float ref = b[j];
        for (int i = 0; i < 4; i++) ref += (float)(i + 1) * W[i * 3 + j];
        ref = ref > 0 ? ref : 0;
        bad |= fabsf(out[j] - ref) > 1e-3f * (1 + fabsf(ref));
        printf("%s%g", j ? ", " : "", (double)out[j]);
    }
    printf("]\nhello: arena used %zu of %zu bytes\n", npu_arena_used(&arena), sizeof memory);

    npu_request_destroy(req);
    npu_model_destroy(model);
    npu_device_close(dev);
    puts(bad ? "hello: MISMATCH with the CPU reference" : "hello: OK");
    return bad;
}
