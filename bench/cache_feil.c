/* cache_feil: start-up with the model cache, through the public API on the sim.
 *  - FEIL: compile (cache miss: compile + store) + request + first inference;
 *  - FIL:  the same call as a cache hit (key + verify + import) + request +
 *          first inference, right after the FEIL that stored the entry;
 *  - the cache-hit start against a plain read() of the exported blob file
 *    followed by npu_model_import of that buffer (goal: hit <= 1.2x). The two
 *    starts alternate (hit, read, hit, read, ...) so that both see the same
 *    machine state; the ratio is the median of the pairs' ratios;
 *  - npu_model_destroy after each (not part of a start: a model that keeps
 *    its entry mapped unmaps it there).
 * Two models: a small one and one with 16 MiB of weights. Medians over rounds;
 * the page cache is warm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "npu.h"
#include "bench_util.h"

#define ROUNDS 15

static _Alignas(4096) unsigned char mem[256u << 20];
static float big_w[1024 * 4096];
static float small_w[64 * 64];

static double now_ms(void) { return bench_now_s() * 1e3; }

static npu_graph *build(npu_arena *a, npu_context *ctx, int64_t k, int64_t n, float *w)
{
    npu_graph *g = NULL;
    npu_shape xs = {2, {1, k}}, ws = {2, {k, n}};
    if (npu_graph_create(a, ctx, NULL, &g) != NPU_OK) return NULL;
    npu_node *x = npu_graph_parameter(g, "x", NPU_F32, &xs, "NC");
    npu_node *wn = npu_graph_constant(g, "w", NPU_F32, &ws, w, (size_t)(k * n) * sizeof(float));
    npu_graph_result(g, npu_graph_relu(g, npu_graph_matmul(g, x, wn, 0, 0, "mm"), "r"), "y");
    return npu_graph_status(g) == NPU_OK ? g : NULL;
}

/* One start: model (compile/hit, or import of buf) + request + first inference. */
static int start(npu_device *dev, npu_arena *a, const npu_graph *g, const char *dir, const void *buf, size_t size,
                 int *from_cache, double *ms, double *model_ms, double *destroy_ms)
{
    npu_compile_options o;
    npu_model *m = NULL;
    npu_request *r = NULL;
    npu_model_info info;
    size_t mark = npu_arena_used(a);
    memset(&o, 0, sizeof o);
    o.cache_dir = dir;
    double t0 = now_ms();
    npu_status st = buf ? npu_model_import(dev, a, buf, size, NULL, &m) : npu_model_compile_graph(dev, a, g, &o, &m);
    if (st != NPU_OK) return 1;
    double t1 = now_ms();
    if (npu_request_create(m, a, NULL, &r) != NPU_OK) return 1;
    memset(npu_request_input(r, 0), 0, npu_model_input(m, 0)->bytes);
    if (npu_request_infer(r) != NPU_OK) return 1;
    *ms = now_ms() - t0;
    *model_ms = t1 - t0;
    npu_model_get_info(m, &info);
    *from_cache = info.from_cache;
    npu_request_destroy(r);
    t0 = now_ms();
    npu_model_destroy(m);
    *destroy_ms = now_ms() - t0;
    npu_arena_rewind(a, mark);
    return 0;
}

/* read() of a whole file into buf (the plain-read baseline). */
static size_t read_file(const char *path, unsigned char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY);
    size_t got = 0;
    if (fd < 0) return 0;
    while (got < cap) {
        ssize_t n = read(fd, buf + got, cap - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    return got;
}

static int bench(npu_device *dev, npu_arena *a, npu_context *ctx, const char *name, const npu_graph *g,
                 const char *root, int idx)
{
    char dir[512], blob_path[600], cmd[700];
    double feil[ROUNDS], fil[ROUNDS], tmp;
    double hit_start[ROUNDS], hit_model[ROUNDS], read_start[ROUNDS], read_model[ROUNDS], ratio[ROUNDS],
        model_ratio[ROUNDS], hit_destroy[ROUNDS], read_destroy[ROUNDS];
    int from = 0;
    static _Alignas(4096) unsigned char buf[64u << 20];
    for (int i = 0; i < ROUNDS; i++) {
        snprintf(dir, sizeof dir, "%s/m%d-%d", root, idx, i);
        if (start(dev, a, g, dir, NULL, 0, &from, &feil[i], &tmp, &tmp) || from != 0) return 1;
        if (start(dev, a, g, dir, NULL, 0, &from, &fil[i], &tmp, &tmp) || from != 1) return 1;
    }
    /* The baseline: the same blob exported to a file, read() and imported. */
    {
        npu_model *m = NULL;
        size_t mark = npu_arena_used(a);
        snprintf(blob_path, sizeof blob_path, "%s/m%d.blob", root, idx);
        if (npu_model_compile_graph(dev, a, g, NULL, &m) != NPU_OK || npu_model_export_file(m, blob_path) != NPU_OK)
            return 1;
        npu_model_destroy(m);
        npu_arena_rewind(a, mark);
    }
    /* Pairs after one warm-up pair: a hit from the first round's entry, then
     * read() + import of the exported blob. */
    snprintf(dir, sizeof dir, "%s/m%d-0", root, idx);
    for (int i = -1; i < ROUNDS; i++) {
        double hit_ms, hit_model_ms, ms, model_ms, hit_destroy_ms, destroy_ms;
        if (start(dev, a, g, dir, NULL, 0, &from, &hit_ms, &hit_model_ms, &hit_destroy_ms) || from != 1) return 1;
        double t0 = now_ms();
        size_t n = read_file(blob_path, buf, sizeof buf);
        double t1 = now_ms();
        if (n == 0 || start(dev, a, g, NULL, buf, n, &from, &ms, &model_ms, &destroy_ms)) return 1;
        if (i >= 0) {
            hit_start[i] = hit_ms;
            hit_model[i] = hit_model_ms;
            read_start[i] = ms + (t1 - t0);
            read_model[i] = model_ms + (t1 - t0);
            ratio[i] = hit_start[i] / read_start[i];
            model_ratio[i] = hit_model[i] / read_model[i];
            hit_destroy[i] = hit_destroy_ms;
            read_destroy[i] = destroy_ms;
        }
    }
    double f = bench_median(feil, ROUNDS), h = bench_median(fil, ROUNDS), hm = bench_median(hit_model, ROUNDS);
    double hs = bench_median(hit_start, ROUNDS), rs = bench_median(read_start, ROUNDS);
    double rm = bench_median(read_model, ROUNDS);
    double r = bench_median(ratio, ROUNDS), mr = bench_median(model_ratio, ROUNDS);
    printf("  %s:\n", name);
    printf("    FEIL (compile + store + request + first inference): %9.3f ms\n", f);
    printf("    FIL  (cache hit + request + first inference):       %9.3f ms  (%.1fx faster)\n", h, f / h);
    printf("    model from the cache (key + verify + import):       %9.3f ms\n", hm);
    printf("    model from read() of the blob file + import:        %9.3f ms  (cache / read: %.2fx)\n", rm, mr);
    printf("    cache-hit start / read()+import start:              %9.2fx (goal <= 1.2x; starts %.3f vs %.3f ms)\n",
           r, hs, rs);
    /* Not in the starts: a model that keeps the entry mapped unmaps it here. */
    printf("    npu_model_destroy, after a hit / after read()+import: %9.1f us / %.1f us\n",
           bench_median(hit_destroy, ROUNDS) * 1e3, bench_median(read_destroy, ROUNDS) * 1e3);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'/m%d-* '%s'", root, idx, blob_path);
    (void)ctx;
    return system(cmd) != 0;
}

int main(void)
{
    char root[256], cmd[300];
    const char *tmpdir = getenv("TMPDIR");
    npu_arena arena;
    npu_context *ctx = NULL;
    npu_device *dev = NULL;
    for (size_t i = 0; i < sizeof big_w / sizeof *big_w; i++) big_w[i] = (float)((int)(i % 13) - 6) * 0.01f;
    for (size_t i = 0; i < sizeof small_w / sizeof *small_w; i++) small_w[i] = (float)((int)(i % 7) - 3) * 0.1f;
    snprintf(root, sizeof root, "%s/npu-feil-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (mkdtemp(root) == NULL) return 1;
    npu_arena_init(&arena, mem, sizeof mem);
    if (npu_context_create(&arena, NULL, &ctx) != NPU_OK || npu_device_open(&arena, ctx, NULL, &dev) != NPU_OK) {
        fprintf(stderr, "cache_feil: no device: %s\n", npu_context_last_error(ctx));
        return 1;
    }
    npu_graph *small = build(&arena, ctx, 64, 64, small_w), *big = build(&arena, ctx, 1024, 4096, big_w);
    printf("cache_feil: start-up with cache_dir, median of %d rounds (page cache warm)\n", ROUNDS);
    int rc = !small || !big || bench(dev, &arena, ctx, "small model (16 KiB of weights)", small, root, 0) ||
             bench(dev, &arena, ctx, "large model (16 MiB of weights)", big, root, 1);
    if (rc) fprintf(stderr, "cache_feil: failed: %s\n", npu_context_last_error(ctx));
    npu_device_close(dev);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) rc = 1;
    return rc;
}
