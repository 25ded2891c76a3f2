/* compile_rss.c - peak resident memory of compiling a model with large constants,
 * IR payload layout B (constants by pointer) vs layout A (constants copied into
 * the payload). Each layout is measured in its own child process, since a
 * process's peak RSS never goes down. Prints figures; not a pass/fail test.
 *
 * Model: 16 MatMul layers of 2048 x 2048 f32 weights (256 MiB of constants).
 * The software NPU's compiler keeps its own copy of the weights in the plan, as
 * a real compiler keeps the compiled weights, so both layouts pay that copy; the
 * difference is the payload the runtime builds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "npu.h"

#define LAYERS 16
#define DIM 2048

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Compiles the model in `layout` and writes "<ms> <peak before KiB> <peak after KiB>" to fd. */
static int run_child(npu_payload_layout layout, int fd)
{
    static _Alignas(NPU_ARENA_ALIGN) unsigned char mem[1 << 20];
    npu_arena arena;
    npu_context *ctx;
    npu_device *dev;
    npu_graph *g;
    npu_model *model;
    npu_compile_options opts;
    float *weights[LAYERS];
    char line[128];
    size_t payload_arena;

    npu_arena_init(&arena, mem, sizeof mem);
    if (npu_context_create(&arena, NULL, &ctx) != NPU_OK) return 1;
    if (npu_device_open(&arena, ctx, NULL, &dev) != NPU_OK) {
        fprintf(stderr, "compile_rss: %s\n", npu_context_last_error(ctx));
        return 1;
    }
    npu_graph_create(&arena, ctx, NULL, &g);
    npu_shape xs = {2, {1, DIM}}, ws = {2, {DIM, DIM}};
    npu_node *x = npu_graph_parameter(g, "x", NPU_F32, &xs, "NC");
    for (int i = 0; i < LAYERS; i++) {
        /* Small deterministic values; every page touched so RSS counts them. */
        weights[i] = malloc((size_t)DIM * DIM * sizeof(float));
        if (weights[i] == NULL) return 1;
        for (size_t k = 0; k < (size_t)DIM * DIM; k++) weights[i][k] = (float)((k + (size_t)i) % 7) * 1e-4f;
        npu_node *w = npu_graph_constant(g, NULL, NPU_F32, &ws, weights[i], (size_t)DIM * DIM * sizeof(float));
        x = npu_graph_matmul(g, x, w, 0, 0, NULL);
    }
    npu_graph_result(g, x, "y");
    if (npu_graph_status(g) != NPU_OK) return 1;

    memset(&opts, 0, sizeof opts);
    opts.payload_layout = layout;
    opts.disable_driver_cache = 1;
    /* Layout A's payload is carved from the arena, so it needs an arena as big
     * as the payload: give this child one from the heap, sized by the query. */
    if (npu_model_compile_graph_size(dev, g, &opts, &payload_arena) != NPU_OK) {
        fprintf(stderr, "compile_rss: %s\n", npu_context_last_error(ctx));
        return 1;
    }
    void *big = aligned_alloc(NPU_ARENA_ALIGN, (payload_arena + 4095) & ~(size_t)4095);
    npu_arena big_arena;
    if (big == NULL || npu_arena_init(&big_arena, big, payload_arena) != NPU_OK) return 1;

    long before = peak_rss_kib();
    double t0 = now_ms();
    if (npu_model_compile_graph(dev, &big_arena, g, &opts, &model) != NPU_OK) {
        fprintf(stderr, "compile_rss: %s\n", npu_context_last_error(ctx));
        return 1;
    }
    double t1 = now_ms();
    long after = peak_rss_kib();
    snprintf(line, sizeof line, "%.1f %ld %ld %zu\n", t1 - t0, before, after, payload_arena);
    if (write(fd, line, strlen(line)) < 0) return 1;
    npu_model_destroy(model);
    npu_device_close(dev);
    return 0;
}

static int measure(npu_payload_layout layout, double *ms, long *growth_kib, size_t *arena)
{
    int fds[2];
    char buf[128] = {0};
    long before = 0, after = 0;
    int status = 0;
    if (pipe(fds) != 0) return 1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        _exit(run_child(layout, fds[1]));
    }
    close(fds[1]);
    ssize_t n = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    waitpid(pid, &status, 0);
    if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
    if (sscanf(buf, "%lf %ld %ld %zu", ms, &before, &after, arena) != 4) return 1;
    *growth_kib = after - before;
    return 0;
}

int main(void)
{
    double ms_b, ms_a;
    long kib_b, kib_a;
    size_t arena_b, arena_a;
    printf("compile_rss: %d MatMul layers of %dx%d f32 (%d MiB of constants), one child per layout\n",
           LAYERS, DIM, DIM, LAYERS * DIM * DIM * 4 / (1 << 20));
    if (measure(NPU_PAYLOAD_NO_WEIGHTS_COPY, &ms_b, &kib_b, &arena_b) != 0 ||
        measure(NPU_PAYLOAD_WEIGHTS_COPY, &ms_a, &kib_a, &arena_a) != 0) {
        printf("compile_rss: could not compile (is the software NPU or an NPU available?)\n");
        return 1;
    }
    printf("  layout B (by pointer): compile %8.1f ms, peak RSS growth %7.1f MiB, runtime arena %10zu bytes\n",
           ms_b, (double)kib_b / 1024.0, arena_b);
    printf("  layout A (copied):     compile %8.1f ms, peak RSS growth %7.1f MiB, runtime arena %10zu bytes\n",
           ms_a, (double)kib_a / 1024.0, arena_a);
    printf("  A / B: peak RSS growth %.2fx, runtime memory for the payload %.0fx\n",
           kib_b > 0 ? (double)kib_a / (double)kib_b : 0.0,
           arena_b > 0 ? (double)arena_a / (double)arena_b : 0.0);
    return 0;
}
