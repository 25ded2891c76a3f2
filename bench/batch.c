/* batch: host cost of debatching. One batch-8 inference debatched by npu
 * (PLUGIN: 8 command lists in one submission) against 8 sequential batch-1
 * inferences, and against the batch-8 model compiled as a whole (COMPILER).
 * Per batch element, median over many inferences; with the sim's arithmetic
 * skipped (pure host + driver overhead: the sim test extension's
 * pfnSetSkipMath, same as NPU_SIM_SKIP_MATH=1) and with the arithmetic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ze_api.h>

#include "npu.h"
#include "bench_util.h"
#include "sim/npu_sim_ext.h"

#define N 8
#define K 256
#define ROUNDS 2000

static _Alignas(4096) unsigned char mem[64u << 20];
static float w[K * K];

static double now_us(void) { return bench_now_s() * 1e6; }

static npu_sim_test_ext_t *sim_ext(void)
{
    ze_driver_handle_t drv[8];
    uint32_t n = 8, i;
    if (zeDriverGet(&n, drv) != ZE_RESULT_SUCCESS) return NULL;
    for (i = 0; i < n && i < 8; i++) {
        void *p = NULL;
        if (zeDriverGetExtensionFunctionAddress(drv[i], NPU_SIM_TEST_EXT_NAME, &p) == ZE_RESULT_SUCCESS && p)
            return (npu_sim_test_ext_t *)p;
    }
    return NULL;
}

/* y = relu(x W), x [batch, K]. */
static npu_graph *build(npu_arena *a, npu_context *ctx, int64_t batch)
{
    npu_graph *g = NULL;
    npu_shape xs = {2, {batch, K}}, ws = {2, {K, K}};
    if (npu_graph_create(a, ctx, NULL, &g) != NPU_OK) return NULL;
    npu_node *x = npu_graph_parameter(g, "x", NPU_F32, &xs, "NC");
    npu_node *wn = npu_graph_constant(g, "w", NPU_F32, &ws, w, sizeof w);
    /* N on the input and the output: PLUGIN needs both (npu.h "Batching"). */
    npu_graph_set_layout(npu_graph_result(g, npu_graph_relu(g, npu_graph_matmul(g, x, wn, 0, 0, "mm"), "r"), "y"), "NC");
    return npu_graph_status(g) == NPU_OK ? g : NULL;
}

/* Median microseconds of `calls` inferences of r, each round. */
static double time_infers(npu_request **r, int calls)
{
    static double t[ROUNDS];
    for (int i = 0; i < 50; i++)
        for (int k = 0; k < calls; k++) npu_request_infer(r[k]);
    for (int i = 0; i < ROUNDS; i++) {
        double t0 = now_us();
        for (int k = 0; k < calls; k++)
            if (npu_request_infer(r[k]) != NPU_OK) return -1;
        t[i] = now_us() - t0;
    }
    return bench_median(t, ROUNDS);
}

int main(void)
{
    npu_arena arena;
    npu_context *ctx = NULL;
    npu_device *dev = NULL;
    npu_model *m8p = NULL, *m8c = NULL, *m1 = NULL;
    npu_request *r8p = NULL, *r8c = NULL, *r1[N] = {0};
    for (int i = 0; i < K * K; i++) w[i] = (float)((i * 7) % 13 - 6) * 0.01f;
    npu_arena_init(&arena, mem, sizeof mem);
    if (npu_context_create(&arena, NULL, &ctx) != NPU_OK || npu_device_open(&arena, ctx, NULL, &dev) != NPU_OK) {
        fprintf(stderr, "batch: no device: %s\n", npu_context_last_error(ctx));
        return 1;
    }
    npu_graph *g8 = build(&arena, ctx, N), *g1 = build(&arena, ctx, 1);
    npu_compile_options o;
    memset(&o, 0, sizeof o);
    o.batch_mode = NPU_BATCH_PLUGIN;
    if (!g8 || !g1 || npu_model_compile_graph(dev, &arena, g8, &o, &m8p) != NPU_OK) goto fail;
    o.batch_mode = NPU_BATCH_COMPILER;
    if (npu_model_compile_graph(dev, &arena, g8, &o, &m8c) != NPU_OK) goto fail;
    if (npu_model_compile_graph(dev, &arena, g1, NULL, &m1) != NPU_OK) goto fail;
    if (npu_request_create(m8p, &arena, NULL, &r8p) != NPU_OK || npu_request_create(m8c, &arena, NULL, &r8c) != NPU_OK)
        goto fail;
    for (int k = 0; k < N; k++)
        if (npu_request_create(m1, &arena, NULL, &r1[k]) != NPU_OK) goto fail;
    for (int k = 0; k < N * K; k++) ((float *)npu_request_input(r8p, 0))[k] = (float)(k % 9) * 0.1f;

    npu_sim_test_ext_t *t = sim_ext();
    printf("batch: y = relu(x W), x [batch,%d], W [%d,%d] f32; median of %d inferences; per batch element\n", K, K,
           K, ROUNDS);
    for (int skip = 1; skip >= 0; skip--) {
        if (t == NULL && skip) continue;
        if (t != NULL) t->pfnSetSkipMath(skip);
        double plugin = time_infers(&r8p, 1), compiler = time_infers(&r8c, 1);
        double seq = time_infers(r1, N);
        printf("  %s:\n", skip ? "sim arithmetic skipped (host + driver overhead)" : "with the arithmetic");
        printf("    batch 8 debatched by npu (PLUGIN, 8 lists, 1 submit): %8.2f us/element (%8.2f us/inference)\n",
               plugin / N, plugin);
        printf("    8 sequential batch-1 inferences:                      %8.2f us/element (%8.2f us for 8)\n",
               seq / N, seq);
        printf("    batch 8 compiled as a whole (COMPILER, 1 list):       %8.2f us/element (%8.2f us/inference)\n",
               compiler / N, compiler);
        printf("    PLUGIN vs sequential: %.2fx faster\n", seq / plugin);
    }
    if (t != NULL) t->pfnSetSkipMath(0);
    for (int k = 0; k < N; k++) npu_request_destroy(r1[k]);
    npu_request_destroy(r8p);
    npu_request_destroy(r8c);
    npu_model_destroy(m1);
    npu_model_destroy(m8c);
    npu_model_destroy(m8p);
    npu_device_close(dev);
    return 0;
fail:
    fprintf(stderr, "batch: %s\n", npu_context_last_error(ctx));
    return 1;
}
