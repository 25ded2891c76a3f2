/* ir_write: payload build time and size, layout B (constants by pointer) vs
 * layout A (weights copied), for a model with 1 GiB of constants: 64 MatMul
 * layers with 2048x2048 f32 weights (16 MiB each).
 *
 * The weights come from calloc, so their pages are never touched by layout B
 * (the kernel maps them on first access); layout A has to read every byte. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npu.h"

#define LAYERS 64
#define DIM 2048

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int check(npu_status st, const char *what, npu_context *ctx)
{
    if (st == NPU_OK) return 0;
    fprintf(stderr, "ir_write: %s: %s (%s)\n", what, npu_status_string(st), npu_context_last_error(ctx));
    return 1;
}

int main(void)
{
    static _Alignas(16) unsigned char ctx_mem[8192];
    size_t arena_bytes = 1 << 20;
    unsigned char *arena_mem = aligned_alloc(16, arena_bytes);
    size_t layer_bytes = (size_t)DIM * DIM * sizeof(float);
    unsigned char *weights = calloc(LAYERS, layer_bytes);
    npu_arena arena, ctx_arena;
    npu_context *ctx;
    npu_graph *g;
    npu_node *x;
    npu_payload_options b, a;
    size_t size_b = 0, size_a = 0, got = 0;
    unsigned char *out_b, *out_a;
    double t0, t_b, t_b_query, t_a_first, t_a, t_build;
    int i, iters = 200;

    if (arena_mem == NULL || weights == NULL) {
        fprintf(stderr, "ir_write: cannot allocate 1 GiB of weights\n");
        return 1;
    }
    npu_arena_init(&ctx_arena, ctx_mem, sizeof ctx_mem);
    if (check(npu_context_create(&ctx_arena, NULL, &ctx), "context", NULL)) return 1;
    npu_arena_init(&arena, arena_mem, arena_bytes);

    t0 = now_s();
    if (check(npu_graph_create(&arena, ctx, &(npu_graph_options){.name = "mlp_1gib", .max_nodes = 0}, &g), "graph", ctx)) return 1;
    x = npu_graph_parameter(g, "x", NPU_F32, &(npu_shape){2, {1, DIM}}, "NC");
    for (i = 0; i < LAYERS; i++) {
        npu_node *w = npu_graph_constant(g, NULL, NPU_F32, &(npu_shape){2, {DIM, DIM}},
                                         weights + (size_t)i * layer_bytes, layer_bytes);
        x = npu_graph_matmul(g, x, w, 0, 0, NULL);
    }
    npu_graph_result(g, x, "y");
    t_build = now_s() - t0;
    if (check(npu_graph_status(g), "build", ctx)) return 1;

    memset(&b, 0, sizeof b);
    b.layout = NPU_PAYLOAD_NO_WEIGHTS_COPY;
    b.compiler_version = NPU_COMPILER_VERSION(7, 21);
    a = b;
    a.layout = NPU_PAYLOAD_WEIGHTS_COPY;

    /* layout B: size query + write, averaged */
    t0 = now_s();
    for (i = 0; i < iters; i++)
        if (check(npu_graph_write_payload(g, &b, NULL, 0, &size_b), "B size", ctx)) return 1;
    t_b_query = (now_s() - t0) / iters;
    out_b = malloc(size_b);
    t0 = now_s();
    for (i = 0; i < iters; i++)
        if (check(npu_graph_write_payload(g, &b, out_b, size_b, &got), "B write", ctx)) return 1;
    t_b = (now_s() - t0) / iters;

    /* layout A: one cold write (pages of the weights and the buffer faulted in), one warm */
    if (check(npu_graph_write_payload(g, &a, NULL, 0, &size_a), "A size", ctx)) return 1;
    out_a = malloc(size_a);
    if (out_a == NULL) {
        fprintf(stderr, "ir_write: cannot allocate %zu bytes for layout A\n", size_a);
        return 1;
    }
    t0 = now_s();
    if (check(npu_graph_write_payload(g, &a, out_a, size_a, &got), "A write", ctx)) return 1;
    t_a_first = now_s() - t0;
    t0 = now_s();
    if (check(npu_graph_write_payload(g, &a, out_a, size_a, &got), "A write", ctx)) return 1;
    t_a = now_s() - t0;

    printf("ir_write: %d MatMul layers, %d x %d f32 weights each, %.0f MiB of constants, %u nodes\n",
           LAYERS, DIM, DIM, (double)LAYERS * (double)layer_bytes / (1 << 20), npu_graph_node_count(g));
    printf("  graph build           %10.1f us   arena %zu bytes\n", t_build * 1e6, npu_graph_bytes_used(g));
    printf("  layout B size query   %10.1f us\n", t_b_query * 1e6);
    printf("  layout B write        %10.1f us   %zu bytes   (goal: < 1000 us, < 1 MiB)\n", t_b * 1e6, size_b);
    printf("  layout A write, cold  %10.1f us   %zu bytes\n", t_a_first * 1e6, size_a);
    printf("  layout A write, warm  %10.1f us\n", t_a * 1e6);
    printf("  A/B ratio: time %.0fx (warm), bytes %.0fx\n", t_a / t_b, (double)size_a / (double)size_b);
    printf("  goal %s\n", t_b < 1e-3 && size_b < (1u << 20) ? "met" : "MISSED");
    free(out_a);
    free(out_b);
    free(weights);
    free(arena_mem);
    return 0;
}
