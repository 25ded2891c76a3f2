/* demo.c - the `make demo` program: a small CNN built in C, compiled for the NPU
 * (IR layout B: weights passed by pointer), stored in a model cache, started a
 * second time from that cache, run on a batch of 4 images, and checked against
 * the same network computed on the CPU with plain loops.
 *
 *   demo [--cache-dir DIR]     (default build/demo-cache)
 *
 * Network: image [4,1,12,12] -> Convolution 3x3 (8 channels, same padding) + bias
 * -> ReLU -> MaxPool 2x2 -> Reshape [N, 288] -> MatMul [288, 10] + bias -> SoftMax.
 *
 * Prints the top class and probabilities per image, FEIL (first start: compile
 * and first inference), FIL (second start, from the cache: load and first
 * inference) and the median latency of 50 inferences. Exit status 1 when the NPU's
 * outputs differ from the CPU reference by more than the tolerance. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "npu.h"

#define BATCH 4
#define H 12
#define C1 8
#define P (H / 2)
#define FLAT (C1 * P * P)
#define CLASSES 10
#define LATENCY_RUNS 50
#define TOLERANCE 0.02f   /* absolute, on probabilities: the NPU computes in fp16 */

static float conv_w[C1 * 3 * 3], conv_b[C1], fc_w[FLAT * CLASSES], fc_b[CLASSES];
static float image[BATCH * H * H];
static _Alignas(NPU_ARENA_ALIGN) unsigned char memory[1 << 20];
static npu_context *ctx;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int fail(const char *what)
{
    fprintf(stderr, "demo: %s failed: %s\n", what, npu_context_last_error(ctx));
    return 1;
}

/* Deterministic weights and four different images (a bar, a cross, a ring, a
 * diagonal), so that the images land in different classes. */
static void make_data(void)
{
    for (int i = 0; i < C1 * 9; i++) conv_w[i] = sinf((float)i * 1.7f) * 0.6f;
    for (int i = 0; i < C1; i++) conv_b[i] = 0.05f * (float)(i % 3) - 0.05f;
    for (int i = 0; i < FLAT * CLASSES; i++) fc_w[i] = sinf((float)i * 0.91f + 0.3f) * 0.15f;
    for (int i = 0; i < CLASSES; i++) fc_b[i] = 0.01f * (float)i;
    for (int b = 0; b < BATCH; b++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < H; x++) {
                float dy = (float)y - 5.5f, dx = (float)x - 5.5f, v;
                switch (b) {
                case 0: v = x >= 5 && x <= 6; break;
                case 1: v = x == y || x == H - 1 - y; break;
                case 2: v = fabsf(sqrtf(dx * dx + dy * dy) - 4.0f) < 1.0f; break;
                default: v = y == H / 3 || x == H / 3; break;
                }
                image[(b * H + y) * H + x] = v;
            }
}

static npu_graph *build(npu_arena *arena)
{
    npu_graph *g = NULL;
    npu_graph_options go = {"demo_cnn", 0};
    npu_graph_create(arena, ctx, &go, &g);
    npu_shape xs = {4, {BATCH, 1, H, H}}, cws = {4, {C1, 1, 3, 3}}, cbs = {4, {1, C1, 1, 1}};
    npu_shape fws = {2, {FLAT, CLASSES}}, fbs = {1, {CLASSES}};
    npu_conv_params same = {.auto_pad = NPU_PAD_SAME_UPPER};
    npu_pool_params pool = {.kernel = {2, 2}, .strides = {2, 2}};
    const int64_t flat[2] = {0, -1};   /* 0: keep the batch (special_zero) */

    npu_node *x = npu_graph_parameter(g, "image", NPU_F32, &xs, "NCHW");
    npu_node *c = npu_graph_convolution(g, x, npu_graph_constant(g, "conv_w", NPU_F32, &cws, conv_w, sizeof conv_w),
                                        &same, "conv");
    c = npu_graph_add(g, c, npu_graph_constant(g, "conv_b", NPU_F32, &cbs, conv_b, sizeof conv_b), NULL);
    c = npu_graph_max_pool(g, npu_graph_relu(g, c, NULL), &pool, "pool");
    c = npu_graph_reshape(g, c, flat, 2, 1, "flatten");
    c = npu_graph_matmul(g, c, npu_graph_constant(g, "fc_w", NPU_F32, &fws, fc_w, sizeof fc_w), 0, 0, "fc");
    c = npu_graph_add(g, c, npu_graph_constant(g, "fc_b", NPU_F32, &fbs, fc_b, sizeof fc_b), NULL);
    npu_node *probs = npu_graph_softmax(g, c, 1, "softmax");
    npu_graph_set_layout(npu_graph_result(g, probs, "probabilities"), "NC");
    return g;
}

/* The same network with plain loops. */
static void cpu_reference(float out[BATCH][CLASSES])
{
    static float conv[C1][H][H], pooled[FLAT];
    for (int b = 0; b < BATCH; b++) {
        const float *img = image + b * H * H;
        for (int c = 0; c < C1; c++)
            for (int y = 0; y < H; y++)
                for (int x = 0; x < H; x++) {
                    float acc = conv_b[c];
                    for (int ky = 0; ky < 3; ky++)
                        for (int kx = 0; kx < 3; kx++) {
                            int iy = y + ky - 1, ix = x + kx - 1;
                            if (iy >= 0 && iy < H && ix >= 0 && ix < H) acc += img[iy * H + ix] * conv_w[c * 9 + ky * 3 + kx];
                        }
                    conv[c][y][x] = acc > 0 ? acc : 0;
                }
        for (int c = 0; c < C1; c++)
            for (int y = 0; y < P; y++)
                for (int x = 0; x < P; x++) {
                    float m = conv[c][2 * y][2 * x];
                    m = fmaxf(m, conv[c][2 * y][2 * x + 1]);
                    m = fmaxf(m, conv[c][2 * y + 1][2 * x]);
                    pooled[(c * P + y) * P + x] = fmaxf(m, conv[c][2 * y + 1][2 * x + 1]);
                }
        float maxv = -INFINITY, sum = 0;
        for (int k = 0; k < CLASSES; k++) {
            float acc = fc_b[k];
            for (int i = 0; i < FLAT; i++) acc += pooled[i] * fc_w[i * CLASSES + k];
            out[b][k] = acc;
            maxv = fmaxf(maxv, acc);
        }
        for (int k = 0; k < CLASSES; k++) sum += (out[b][k] = expf(out[b][k] - maxv));
        for (int k = 0; k < CLASSES; k++) out[b][k] /= sum;
    }
}

static int mkdir_p(const char *dir)
{
    char path[1024];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) return -1;
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(path, 0755) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(path, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* ---- BATCH/CACHE API --------------------------------------------------------
 * One compile call does both: the batch-4 model is debatched by npu (compiled at
 * batch 1, four command lists per inference) and the compiled blob goes into the
 * model cache, so the second start imports it. npu_model_get_info says which. */
static npu_status start(npu_device *dev, npu_arena *arena, const npu_graph *g, const npu_compile_options *opts,
                        const char *cache_dir, npu_model **model, int *from_cache)
{
    npu_compile_options o = *opts;
    npu_model_info info;
    o.batch_mode = NPU_BATCH_PLUGIN;
    o.cache_dir = cache_dir;
    npu_status s = npu_model_compile_graph(dev, arena, g, &o, model);
    if (s != NPU_OK) return s;
    s = npu_model_get_info(*model, &info);
    *from_cache = info.from_cache;
    return s;
}
/* ---- end of BATCH/CACHE API ------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *cache_dir = "build/demo-cache";
    if (argc == 3 && strcmp(argv[1], "--cache-dir") == 0) cache_dir = argv[2];
    else if (argc != 1) {
        fprintf(stderr, "usage: %s [--cache-dir DIR]\n", argv[0]);
        return 2;
    }
    if (mkdir_p(cache_dir) != 0) {
        fprintf(stderr, "demo: cannot create %s: %s\n", cache_dir, strerror(errno));
        return 1;
    }
    make_data();

    npu_arena arena;
    npu_arena_init(&arena, memory, sizeof memory);
    if (npu_context_create(&arena, NULL, &ctx) != NPU_OK) return 1;
    npu_device *dev = NULL;
    npu_model *model = NULL;
    npu_request *req = NULL;
    int rc = 1, from_cache[2];
    if (npu_device_open(&arena, ctx, NULL, &dev) != NPU_OK) return fail("npu_device_open");
    npu_device_properties props;
    if (npu_device_get_properties(dev, &props) != NPU_OK) { fail("npu_device_get_properties"); goto out; }
    printf("demo: device %s (%s, platform %s, compiler %u.%u)\n", props.name,
           props.is_simulated ? "software NPU" : "NPU", props.platform, props.compiler_version >> 16,
           props.compiler_version & 0xffff);

    npu_graph *g = build(&arena);
    if (npu_graph_status(g) != NPU_OK) { fail("building the graph"); goto out; }
    npu_compile_options opts = {0};
    opts.payload_layout = props.no_weights_copy ? NPU_PAYLOAD_NO_WEIGHTS_COPY : NPU_PAYLOAD_WEIGHTS_COPY;
    printf("demo: CNN of %u nodes, IR layout %s, cache %s\n", npu_graph_node_count(g),
           props.no_weights_copy ? "B (weights by pointer)" : "A (weights copied; the compiler lacks B)", cache_dir);

    /* Two starts: the first compiles (and stores into the cache), the second
     * loads from the cache. Each: model, request, input, first inference. */
    size_t mark = npu_arena_used(&arena);
    static float first_out[2][BATCH * CLASSES];
    double start_ms[2];
    for (int run = 0; run < 2; run++) {
        double t0 = now_ms();
        if (start(dev, &arena, g, &opts, cache_dir, &model, &from_cache[run]) != NPU_OK) { fail("starting the model"); goto out; }
        if (npu_request_create(model, &arena, NULL, &req) != NPU_OK) { fail("npu_request_create"); goto out; }
        memcpy(npu_request_input(req, 0), image, sizeof image);
        if (npu_request_infer(req) != NPU_OK) { fail("npu_request_infer"); goto out; }
        start_ms[run] = now_ms() - t0;
        memcpy(first_out[run], npu_request_output(req, 0), sizeof first_out[run]);
        if (run == 1) break;
        npu_request_destroy(req);
        npu_model_destroy(model);
        req = NULL;
        model = NULL;
        npu_arena_rewind(&arena, mark);
    }
    printf("demo: batch %d, %s\n", BATCH, npu_model_batch(model) > 1 ? "debatched by npu (PLUGIN)" : "compiled batched");
    printf("demo: FEIL %.2f ms (start 1: %s + first inference)\n", start_ms[0],
           from_cache[0] ? "loaded from the cache" : "compile");
    printf("demo: FIL  %.2f ms (start 2: %s + first inference)\n", start_ms[1],
           from_cache[1] ? "loaded from the cache" : "compile (cache MISS)");

    double lat[LATENCY_RUNS];
    for (int i = 0; i < LATENCY_RUNS; i++) {
        double t0 = now_ms();
        if (npu_request_infer(req) != NPU_OK) { fail("npu_request_infer"); goto out; }
        lat[i] = now_ms() - t0;
    }
    qsort(lat, LATENCY_RUNS, sizeof *lat, cmp_double);
    printf("demo: latency median %.3f ms over %d inferences of the batch (min %.3f, max %.3f)\n",
           lat[LATENCY_RUNS / 2], LATENCY_RUNS, lat[0], lat[LATENCY_RUNS - 1]);

    float ref[BATCH][CLASSES], worst = 0;
    cpu_reference(ref);
    const float *out = npu_request_output(req, 0);
    for (int b = 0; b < BATCH; b++) {
        int top = 0;
        for (int k = 0; k < CLASSES; k++) {
            if (out[b * CLASSES + k] > out[b * CLASSES + top]) top = k;
            worst = fmaxf(worst, fabsf(out[b * CLASSES + k] - ref[b][k]));
            worst = fmaxf(worst, fabsf(first_out[0][b * CLASSES + k] - ref[b][k]));
        }
        printf("demo: image %d: class %d (p=%.3f) [", b, top, (double)out[b * CLASSES + top]);
        for (int k = 0; k < CLASSES; k++) printf("%s%.3f", k ? " " : "", (double)out[b * CLASSES + k]);
        printf("]\n");
    }
    rc = !(worst <= TOLERANCE) || from_cache[1] != 1;
    printf("demo: max difference from the CPU reference %.2g (tolerance %.2g): %s\n", (double)worst,
           (double)TOLERANCE, worst <= TOLERANCE ? "matches the CPU reference" : "MISMATCH");
    if (from_cache[1] != 1) printf("demo: the second start did not come from the cache\n");
    puts(rc ? "demo: FAILED" : "demo: OK");
out:
    npu_request_destroy(req);
    npu_model_destroy(model);
    npu_device_close(dev);
    return rc;
}
