/* async.c - one compiled model shared by several threads; each thread creates
 * its own requests and keeps two inferences in flight (start, start, wait,
 * wait), checking every output against a CPU reference.
 *
 * Rules shown here (npu.h section 9): a device and a model may be used by many
 * threads at once; a request and an arena by one thread at a time. Each thread
 * therefore carves its requests from its own arena.
 *
 * Run on the software NPU: ZE_ENABLE_ALT_DRIVERS=$PWD/build/libze_npu_sim.so */
/* POSIX 2008 (clock_gettime, mkstemp, posix_memalign, ...) under -std=c11. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include "npu.h"

#define THREADS 4
#define IN_FLIGHT 2       /* requests per thread */
#define ROUNDS 25
#define K 64
#define N 32

static float W[K * N];
static npu_model *model;   /* shared, read-only after compile */

typedef struct worker {
    int id;
    _Alignas(NPU_ARENA_ALIGN) unsigned char memory[16 * 1024];  /* request objects */
    int inferences, mismatches;
    const char *error;
} worker;

static float input_value(int thread, int round, int slot, int i)
{
    return (float)((thread * 31 + round * 7 + slot * 3 + i) % 17) / 8.0f - 1.0f;
}

static void *work(void *arg)
{
    worker *w = arg;
    npu_arena arena;
    npu_request *req[IN_FLIGHT] = {0};
    if (npu_arena_init(&arena, w->memory, sizeof w->memory) != NPU_OK) { w->error = "npu_arena_init"; return NULL; }
    for (int s = 0; s < IN_FLIGHT; s++)
        if (npu_request_create(model, &arena, NULL, &req[s]) != NPU_OK) { w->error = "npu_request_create"; goto out; }

    for (int round = 0; round < ROUNDS; round++) {
        for (int s = 0; s < IN_FLIGHT; s++) {
            float *x = npu_request_input(req[s], 0);
            for (int i = 0; i < K; i++) x[i] = input_value(w->id, round, s, i);
            if (npu_request_start(req[s]) != NPU_OK) { w->error = "npu_request_start"; goto out; }
        }
        for (int s = 0; s < IN_FLIGHT; s++) {
            if (npu_request_wait(req[s], UINT64_MAX) != NPU_OK) { w->error = "npu_request_wait"; goto out; }
            const float *y = npu_request_output(req[s], 0);
            for (int j = 0; j < N; j++) {
                float ref = 0;
                for (int i = 0; i < K; i++) ref += input_value(w->id, round, s, i) * W[i * N + j];
                ref = tanhf(ref);
                if (fabsf(y[j] - ref) > 1e-3f) { w->mismatches++; break; }
            }
            w->inferences++;
        }
    }
out:
    for (int s = 0; s < IN_FLIGHT; s++) npu_request_destroy(req[s]);
    return NULL;
}

int main(void)
{
    static _Alignas(NPU_ARENA_ALIGN) unsigned char memory[256 * 1024];
    static worker workers[THREADS];
    npu_arena arena;
    npu_context *ctx;
    npu_device *dev = NULL;
    npu_graph *g = NULL;
    npu_status st = npu_arena_init(&arena, memory, sizeof memory);
    if (st == NPU_OK) st = npu_context_create(&arena, NULL, &ctx);
    if (st != NPU_OK) {   /* no context yet to hold a message: the status says it */
        fprintf(stderr, "async: creating the context failed: %s\n", npu_status_string(st));
        return 1;
    }
    for (int i = 0; i < K * N; i++) W[i] = (float)((i * 13) % 29 - 14) / 40.0f;

    if (npu_device_open(&arena, ctx, NULL, &dev) != NPU_OK) {
        fprintf(stderr, "async: npu_device_open failed: %s\n", npu_context_last_error(ctx));
        return 1;
    }
    if (npu_graph_create(&arena, ctx, NULL, &g) != NPU_OK) {
        fprintf(stderr, "async: npu_graph_create failed: %s\n", npu_context_last_error(ctx));
        npu_device_close(dev);
        return 1;
    }
    npu_shape xs = {2, {1, K}}, ws = {2, {K, N}};
    npu_node *x = npu_graph_parameter(g, "x", NPU_F32, &xs, "NC");
    npu_node *y = npu_graph_matmul(g, x, npu_graph_constant(g, "W", NPU_F32, &ws, W, sizeof W), 0, 0, NULL);
    npu_graph_result(g, npu_graph_tanh(g, y, NULL), "y");
    if (npu_graph_status(g) != NPU_OK || npu_model_compile_graph(dev, &arena, g, NULL, &model) != NPU_OK) {
        fprintf(stderr, "async: compile failed: %s\n", npu_context_last_error(ctx));
        npu_device_close(dev);
        return 1;
    }
    printf("async: model compiled; %d threads x %d requests in flight x %d rounds\n", THREADS, IN_FLIGHT, ROUNDS);

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_t threads[THREADS];
    int started = 0;
    for (int t = 0; t < THREADS; t++, started++) {
        workers[t].id = t;
        if (pthread_create(&threads[t], NULL, work, &workers[t]) != 0) {
            fprintf(stderr, "async: pthread_create failed\n");
            break;
        }
    }
    int total = 0, bad = started != THREADS;
    for (int t = 0; t < started; t++) {
        pthread_join(threads[t], NULL);
        printf("async: thread %d: %d inferences, %d mismatches%s%s\n", t, workers[t].inferences,
               workers[t].mismatches, workers[t].error ? ", error in " : "",
               workers[t].error ? workers[t].error : "");
        total += workers[t].inferences;
        bad |= workers[t].mismatches || workers[t].error || workers[t].inferences != IN_FLIGHT * ROUNDS;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("async: %d inferences in %.3f s (%.0f/s)\n", total, s, total / s);
    if (bad) fprintf(stderr, "async: last error: %s\n", npu_context_last_error(ctx));

    npu_model_destroy(model);
    npu_device_close(dev);
    puts(bad ? "async: FAILED" : "async: OK");
    return bad;
}
