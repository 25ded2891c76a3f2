/* infer_overhead: host time per inference of npu_request_infer versus a
 * hand-written minimal Level Zero sequence (execute, fence wait, fence reset)
 * on the same graph, with the sim's arithmetic switched off so that only the
 * host path and the driver's queue hand-off are measured. Goal: ratio <= 1.05.
 *
 * Runs on the software NPU (the sim's test extension switches the math off);
 * on other drivers it still runs, with the math on. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ze_api.h>

#include "npu.h"
#include "sim/npu_sim_ext.h"
#include "sim/ze_graph_types.h"

#define ITER 20000
#define ROUNDS 5

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int die(const char *what, npu_context *ctx)
{
    fprintf(stderr, "infer_overhead: %s: %s\n", what, ctx ? npu_context_last_error(ctx) : "");
    exit(1);
}

#define ZE_OK(call)                                                                        \
    do {                                                                                   \
        ze_result_t r_ = (call);                                                           \
        if (r_ != ZE_RESULT_SUCCESS) {                                                     \
            fprintf(stderr, "infer_overhead: %s failed: 0x%08x\n", #call, (unsigned)r_);   \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* The hand-written path: what a minimal C program does with the driver. */
typedef struct raw {
    ze_context_handle_t ctx;
    ze_command_queue_handle_t q;
    ze_command_list_handle_t cl;
    ze_fence_handle_t f;
    ze_graph_handle_t g;
    const ze_graph_dditable_ext_t *t;
    void *buf[2];
} raw;

static void raw_setup(raw *r, const unsigned char *blob, size_t size)
{
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    uint32_t n = 1, i;
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_DEFAULT, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
    ze_graph_desc_2_t gd;
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    ZE_OK(zeDriverGet(&n, &drv));
    n = 1;
    ZE_OK(zeDeviceGet(drv, &n, &dev));
    ZE_OK(zeDriverGetExtensionFunctionAddress(drv, ZE_GRAPH_EXT_NAME, (void **)(void *)&r->t));
    ZE_OK(zeContextCreate(drv, &cd, &r->ctx));
    ZE_OK(zeCommandQueueCreate(r->ctx, dev, &qd, &r->q));
    memset(&gd, 0, sizeof gd);
    gd.stype = ZE_STRUCTURE_TYPE_GRAPH_DESC_2;
    gd.format = ZE_GRAPH_FORMAT_NATIVE;
    gd.inputSize = size;
    gd.pInput = blob;
    ZE_OK(r->t->pfnCreate2(r->ctx, dev, &gd, &r->g));
    ZE_OK(r->t->pfnGraphInitialize(r->g));
    for (i = 0; i < 2; i++) {
        ZE_OK(zeMemAllocHost(r->ctx, &hd, 4096, 4096, &r->buf[i]));
        ZE_OK(r->t->pfnSetArgumentValue(r->g, i, r->buf[i]));
    }
    ZE_OK(zeCommandListCreate(r->ctx, dev, &ld, &r->cl));
    ZE_OK(r->t->pfnAppendGraphExecute(r->cl, r->g, NULL, NULL, 0, NULL));
    ZE_OK(zeCommandListClose(r->cl));
    ZE_OK(zeFenceCreate(r->q, &fd, &r->f));
}

static double raw_run(raw *r, int iter)
{
    double t0 = now_ns();
    int k;
    for (k = 0; k < iter; k++) {
        if (zeCommandQueueExecuteCommandLists(r->q, 1, &r->cl, r->f) != ZE_RESULT_SUCCESS ||
            zeFenceHostSynchronize(r->f, UINT64_MAX) != ZE_RESULT_SUCCESS ||
            zeFenceReset(r->f) != ZE_RESULT_SUCCESS)
            die("raw inference", NULL);
    }
    return (now_ns() - t0) / iter;
}

static void raw_teardown(raw *r)
{
    zeFenceDestroy(r->f);
    zeCommandListDestroy(r->cl);
    zeMemFree(r->ctx, r->buf[0]);
    zeMemFree(r->ctx, r->buf[1]);
    r->t->pfnDestroy(r->g);
    zeCommandQueueDestroy(r->q);
    zeContextDestroy(r->ctx);
}

static double npu_run(npu_request *req, int iter, npu_context *ctx)
{
    double t0 = now_ns();
    int k;
    for (k = 0; k < iter; k++)
        if (npu_request_infer(req) != NPU_OK) die("npu_request_infer", ctx);
    return (now_ns() - t0) / iter;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    static _Alignas(16) unsigned char ctx_mem[8192];
    static _Alignas(16) unsigned char mem[1 << 20];
    static const float w[4] = {1, 2, 3, 4};
    npu_arena arena, ctx_arena;
    npu_context *ctx;
    npu_device *dev;
    npu_graph *g;
    npu_model *m;
    npu_request *req;
    npu_sim_test_ext_t *sim = NULL;
    npu_shape s = {2, {1, 4}}, ws = {1, {4}};
    unsigned char *blob;
    size_t size = 0;
    double tn[ROUNDS], tr[ROUNDS];
    raw r;
    int i;
    ze_driver_handle_t drv;
    uint32_t n = 1;

    npu_arena_init(&ctx_arena, ctx_mem, sizeof ctx_mem);
    npu_context_create(&ctx_arena, NULL, &ctx);
    npu_arena_init(&arena, mem, sizeof mem);
    if (npu_device_open(&arena, ctx, NULL, &dev) != NPU_OK) die("device", ctx);
    npu_graph_create(&arena, ctx, NULL, &g);
    npu_graph_result(g, npu_graph_add(g, npu_graph_parameter(g, "x", NPU_F32, &s, NULL),
                                      npu_graph_constant(g, "w", NPU_F32, &ws, w, sizeof w), NULL), "y");
    if (npu_model_compile_graph(dev, &arena, g, NULL, &m) != NPU_OK) die("compile", ctx);
    if (npu_request_create(m, &arena, NULL, &req) != NPU_OK) die("request", ctx);
    npu_model_export(m, NULL, 0, &size);
    blob = malloc(size);
    npu_model_export(m, blob, size, &size);

    if (zeDriverGet(&n, &drv) == ZE_RESULT_SUCCESS &&
        zeDriverGetExtensionFunctionAddress(drv, NPU_SIM_TEST_EXT_NAME, (void **)(void *)&sim) == ZE_RESULT_SUCCESS &&
        sim != NULL)
        sim->pfnSetSkipMath(1);
    else
        sim = NULL;
    raw_setup(&r, blob, size);

    /* Warm-up, then interleaved rounds; the median of each is reported. */
    npu_run(req, 2000, ctx);
    raw_run(&r, 2000);
    for (i = 0; i < ROUNDS; i++) {
        tn[i] = npu_run(req, ITER, ctx);
        tr[i] = raw_run(&r, ITER);
    }
    qsort(tn, ROUNDS, sizeof(double), cmp);
    qsort(tr, ROUNDS, sizeof(double), cmp);
    printf("infer_overhead (%s, %d x %d inferences, median of rounds)\n",
           sim ? "software NPU, math off" : "driver as found", ROUNDS, ITER);
    printf("  raw Level Zero (execute + fence wait + reset): %8.0f ns/inference\n", tr[ROUNDS / 2]);
    printf("  npu_request_infer:                              %8.0f ns/inference\n", tn[ROUNDS / 2]);
    printf("  ratio npu / raw:                                %8.3f (goal <= 1.05)\n", tn[ROUNDS / 2] / tr[ROUNDS / 2]);
    printf("  best rounds: raw %.0f ns, npu %.0f ns (ratio %.3f)\n", tr[0], tn[0], tn[0] / tr[0]);

    /* States: an accumulator (state += x) carries its variable by alternating
     * two recorded list sets, so it should cost the same as a stateless model. */
    {
        npu_graph *ga;
        npu_model *ma;
        npu_request *ra;
        npu_node *rv, *sum;
        double ts[ROUNDS];
        npu_graph_create(&arena, ctx, NULL, &ga);
        rv = npu_graph_read_value(ga, NULL, "acc", NPU_F32, &s, NULL);
        sum = npu_graph_add(ga, rv, npu_graph_parameter(ga, "x", NPU_F32, &s, NULL), NULL);
        npu_graph_assign(ga, sum, "acc", NULL);
        npu_graph_result(ga, sum, "y");
        if (npu_model_compile_graph(dev, &arena, ga, NULL, &ma) != NPU_OK) die("compile stateful", ctx);
        if (npu_request_create(ma, &arena, NULL, &ra) != NPU_OK) die("request stateful", ctx);
        npu_run(ra, 2000, ctx);
        for (i = 0; i < ROUNDS; i++) ts[i] = npu_run(ra, ITER, ctx);
        qsort(ts, ROUNDS, sizeof(double), cmp);
        printf("  npu_request_infer, stateful model (1 state):   %8.0f ns/inference (%.3f x stateless)\n",
               ts[ROUNDS / 2], ts[ROUNDS / 2] / tn[ROUNDS / 2]);
        npu_request_destroy(ra);
        npu_model_destroy(ma);
    }

    if (sim) sim->pfnSetSkipMath(0);
    raw_teardown(&r);
    npu_request_destroy(req);
    npu_model_destroy(m);
    npu_device_close(dev);
    free(blob);
    return 0;
}
