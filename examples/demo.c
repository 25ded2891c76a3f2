/* demo.c - the `make demo` program: a trained handwritten-digit classifier
 * (OpenVINO IR, data/digits/digits.xml + .bin, written by scripts/train_digits.py)
 * compiled for the NPU and checked against the held-out test split it was never
 * trained on.
 *
 *   demo [--data DIR] [--cache-dir DIR]       the whole run below
 *   demo [--data DIR] --classify FILE.pgm...  classify 8x8 PGM images
 *
 * DIR defaults to data/digits, the cache to build/demo-cache. The run:
 *  1. start 1 (FEIL): load the IR, give it batch 8, compile with PLUGIN
 *     debatching (npu compiles batch 1 and runs 8 command lists per inference)
 *     into the model cache, first inference;
 *  2. start 2 (FIL): the same calls again: now the model comes from the cache;
 *  3. classify the test split in batches of 8: accuracy, confusion matrix,
 *     agreement with the predictions the training script computed, latency;
 *  4. export the compiled blob, close everything, and boot again from the blob
 *     alone (as an appliance would: no IR, no compiler), classify the split again
 *     and count the predictions identical to step 3.
 * Exit status 0 when the accuracy is at least 95%, the second start came from the
 * cache and the blob gives the same answers. */
/* POSIX 2008 (clock_gettime, mkstemp, posix_memalign, ...) under -std=c11. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "npu.h"

#define BATCH 8              /* images per inference (PLUGIN: 8 command lists) */
#define PIXELS 64            /* 8x8 */
#define CLASSES 10
#define MAX_IMAGES 2048
#define PASSES 5             /* passes over the split for the latency figures */
#define GOAL 0.95

static _Alignas(NPU_ARENA_ALIGN) unsigned char memory[2 << 20];
static npu_context *ctx;
static unsigned char pixels[MAX_IMAGES][PIXELS], labels[MAX_IMAGES], reference[MAX_IMAGES];
static int predicted[MAX_IMAGES], booted[MAX_IMAGES];

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

/* Reads exactly `size` bytes (the file must have that size); returns 0 on success. */
static int read_file(const char *path, void *dst, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "demo: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t n = fread(dst, 1, size, f);
    int extra = fgetc(f) != EOF;
    fclose(f);
    if (n != size || extra) {
        fprintf(stderr, "demo: %s: expected %zu bytes\n", path, size);
        return -1;
    }
    return 0;
}

/* The test split: test_split.u8 (64 bytes per image, 0..16), test_labels.u8 and
 * test_predictions.u8 (one byte per image). Returns the image count, -1 on error. */
static int load_split(const char *dir)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/test_split.u8", dir);
    if (stat(path, &st) != 0 || st.st_size <= 0 || st.st_size % PIXELS || st.st_size / PIXELS > MAX_IMAGES) {
        fprintf(stderr, "demo: %s: missing, or not a whole number of 8x8 images\n", path);
        return -1;
    }
    int n = (int)(st.st_size / PIXELS);
    if (read_file(path, pixels, (size_t)n * PIXELS) != 0) return -1;
    snprintf(path, sizeof path, "%s/test_labels.u8", dir);
    if (read_file(path, labels, (size_t)n) != 0) return -1;
    snprintf(path, sizeof path, "%s/test_predictions.u8", dir);
    if (read_file(path, reference, (size_t)n) != 0) return -1;
    return n;
}

/* A binary PGM (P5) of 8x8 pixels, any maxval below 256; pixel values become
 * 0..16 as in the training data. Returns 0 on success. */
static int read_pgm(const char *path, unsigned char out[PIXELS])
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "demo: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    int w = 0, h = 0, maxval = 0, ok = fscanf(f, "P5 %d %d %d", &w, &h, &maxval) == 3 && fgetc(f) != EOF;
    unsigned char raw[PIXELS];
    ok = ok && w == 8 && h == 8 && maxval > 0 && maxval < 256 && fread(raw, 1, PIXELS, f) == PIXELS;
    fclose(f);
    if (!ok) {
        fprintf(stderr, "demo: %s: not an 8x8 binary PGM (P5)\n", path);
        return -1;
    }
    for (int i = 0; i < PIXELS; i++) out[i] = (unsigned char)((raw[i] * 16 + maxval / 2) / maxval);
    return 0;
}

/* The model's input is pixel / 16 as f32, [batch,1,8,8]. */
static void fill_input(float *in, int first, int count, int total)
{
    for (int b = 0; b < count; b++)
        for (int i = 0; i < PIXELS; i++)
            in[b * PIXELS + i] = first + b < total ? (float)pixels[first + b][i] / 16.0f : 0.0f;
}

static int argmax(const float *p)
{
    int top = 0;
    for (int k = 1; k < CLASSES; k++)
        if (p[k] > p[top]) top = k;
    return top;
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

/* ---- Starting the model from the IR ---------------------------------------
 * The IR declares batch 1 with the layout [N,C,H,W] on its input (rt_info), so
 * npu knows where the batch is. npu_ir_set_batch gives the model batch 8;
 * NPU_BATCH_PLUGIN then compiles it at batch 1 and each inference runs 8 command
 * lists, one per image, on slices of the request's [8,1,8,8] buffer. With a
 * cache_dir the compiled blob is stored on the first start and imported on the
 * next ones; npu_model_get_info says which happened. The IR is needed only until
 * the compile call returns. */
static npu_status start_from_ir(npu_device *dev, npu_arena *arena, const char *xml, const char *cache_dir,
                                int batch, npu_model **model, npu_model_info *info)
{
    npu_ir *ir = NULL;
    int64_t declared = 0;
    npu_status s = npu_ir_open(arena, ctx, xml, NULL, &ir);
    if (s != NPU_OK) return s;
    if (batch > 1) s = npu_ir_set_batch(ir, batch, &declared);
    if (s == NPU_OK) {
        npu_compile_options opts = {0};
        opts.batch_mode = batch > 1 ? NPU_BATCH_PLUGIN : NPU_BATCH_AUTO;
        opts.cache_dir = cache_dir;
        s = npu_model_compile_ir(dev, arena, ir, &opts, model);
    }
    npu_ir_close(ir);
    if (s == NPU_OK) s = npu_model_get_info(*model, info);
    return s;
}

/* The buffers this program writes and reads: f32 [batch,1,8,8] in, f32
 * [batch,10] out (another model in --data would be refused here). */
static int check_io(const npu_model *model, int batch)
{
    const npu_tensor_desc *in = npu_model_input(model, 0), *out = npu_model_output(model, 0);
    if (in && out && in->type == NPU_F32 && out->type == NPU_F32 && in->bytes == (uint64_t)batch * PIXELS * 4 &&
        out->bytes == (uint64_t)batch * CLASSES * 4)
        return 0;
    fprintf(stderr, "demo: the model's input/output is not f32 [%d,1,8,8] / [%d,10]\n", batch, batch);
    return -1;
}

/* Classifies images [0, n) in batches; predictions into pred[], each batch's
 * latency into lat[] (if not NULL). */
static npu_status classify(npu_request *req, int n, int batch, int *pred, double *lat)
{
    for (int first = 0, i = 0; first < n; first += batch, i++) {
        fill_input(npu_request_input(req, 0), first, batch, n);
        double t0 = now_ms();
        npu_status s = npu_request_infer(req);
        if (s != NPU_OK) return s;
        if (lat) lat[i] = now_ms() - t0;
        const float *probs = npu_request_output(req, 0);
        for (int b = 0; b < batch && first + b < n; b++) pred[first + b] = argmax(probs + b * CLASSES);
    }
    return NPU_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(const double *sorted, int n, double q)
{
    int i = (int)(q * (n - 1) + 0.5);
    return sorted[i];
}

/* `demo --classify a.pgm b.pgm ...`: one image per inference, no cache. */
static int classify_files(npu_device *dev, npu_arena *arena, const char *xml, int nfiles, char **files)
{
    npu_model *model = NULL;
    npu_request *req = NULL;
    npu_model_info info;
    int rc = 1;
    if (start_from_ir(dev, arena, xml, NULL, 1, &model, &info) != NPU_OK) return fail("loading and compiling the IR");
    if (check_io(model, 1) != 0) goto out;
    if (npu_request_create(model, arena, NULL, &req) != NPU_OK) {
        fail("npu_request_create");
        goto out;
    }
    for (int f = 0; f < nfiles; f++) {
        if (read_pgm(files[f], pixels[0]) != 0) goto out;
        fill_input(npu_request_input(req, 0), 0, 1, 1);
        if (npu_request_infer(req) != NPU_OK) {
            fail("npu_request_infer");
            goto out;
        }
        const float *probs = npu_request_output(req, 0);
        int top = argmax(probs);
        printf("%s: digit %d (p=%.3f)\n", files[f], top, (double)probs[top]);
    }
    rc = 0;
out:
    npu_request_destroy(req);
    npu_model_destroy(model);
    return rc;
}

int main(int argc, char **argv)
{
    const char *data = "data/digits", *cache_dir = "build/demo-cache";
    int classify_from = 0;
    for (int i = 1; i < argc && !classify_from; i++) {
        if (strcmp(argv[i], "--data") == 0 && i + 1 < argc) data = argv[++i];
        else if (strcmp(argv[i], "--cache-dir") == 0 && i + 1 < argc) cache_dir = argv[++i];
        else if (strcmp(argv[i], "--classify") == 0 && i + 1 < argc) classify_from = i + 1;
        else {
            fprintf(stderr, "usage: %s [--data DIR] [--cache-dir DIR]\n       %s [--data DIR] --classify FILE.pgm...\n",
                    argv[0], argv[0]);
            return 2;
        }
    }
    char xml[1024], blob[1024];
    snprintf(xml, sizeof xml, "%s/digits.xml", data);
    snprintf(blob, sizeof blob, "%s/digits.blob", cache_dir);

    npu_arena arena;
    npu_status s = npu_arena_init(&arena, memory, sizeof memory);
    if (s == NPU_OK) s = npu_context_create(&arena, NULL, &ctx);
    if (s != NPU_OK) {   /* no context yet to hold a message: the status says it */
        fprintf(stderr, "demo: creating the context failed: %s\n", npu_status_string(s));
        return 1;
    }
    npu_device *dev = NULL;
    npu_model *model = NULL;
    npu_request *req = NULL;
    int rc = 1;
    if (npu_device_open(&arena, ctx, NULL, &dev) != NPU_OK) return fail("npu_device_open");
    if (classify_from) {
        rc = classify_files(dev, &arena, xml, argc - classify_from, argv + classify_from);
        npu_device_close(dev);
        return rc;
    }

    int n = load_split(data);
    if (n < 0) goto out;
    if (mkdir_p(cache_dir) != 0) {
        fprintf(stderr, "demo: cannot create %s: %s\n", cache_dir, strerror(errno));
        goto out;
    }
    npu_device_properties props;
    if (npu_device_get_properties(dev, &props) != NPU_OK) {
        fail("npu_device_get_properties");
        goto out;
    }
    printf("demo: device %s (%s, platform %s, compiler %u.%u)\n", props.name,
           props.is_simulated ? "software NPU" : "NPU", props.platform, props.compiler_version >> 16,
           props.compiler_version & 0xffff);
    printf("demo: model %s, %d held-out test images (%s/test_split.u8), cache %s\n", xml, n, data, cache_dir);

    /* 1 and 2: two starts, each "model + request + first inference". */
    size_t mark = npu_arena_used(&arena);
    npu_model_info info[2];
    double start_ms[2];
    for (int run = 0; run < 2; run++) {
        double t0 = now_ms();
        if (start_from_ir(dev, &arena, xml, cache_dir, BATCH, &model, &info[run]) != NPU_OK) {
            fail(run ? "the second start" : "the first start (load and compile the IR)");
            goto out;
        }
        if (check_io(model, BATCH) != 0) goto out;
        if (npu_request_create(model, &arena, NULL, &req) != NPU_OK) {
            fail("npu_request_create");
            goto out;
        }
        if (classify(req, BATCH < n ? BATCH : n, BATCH, predicted, NULL) != NPU_OK) {
            fail("npu_request_infer");
            goto out;
        }
        start_ms[run] = now_ms() - t0;
        if (run == 1) break;
        npu_request_destroy(req);
        npu_model_destroy(model);
        req = NULL;
        model = NULL;
        npu_arena_rewind(&arena, mark);
    }
    printf("demo: batch %d, %s\n", BATCH,
           npu_model_batch(model) == BATCH && info[1].batch_mode == NPU_BATCH_PLUGIN ? "debatched by npu (PLUGIN)"
                                                                                    : "compiled batched");
    printf("demo: FEIL %.2f ms (start 1: %s + first inference)\n", start_ms[0],
           info[0].from_cache ? "loaded from the cache" : "load IR + compile");
    printf("demo: FIL  %.2f ms (start 2: %s + first inference)\n", start_ms[1],
           info[1].from_cache ? "loaded from the cache" : "load IR + compile (cache MISS)");

    /* 3: the whole split, PASSES times (the predictions of the last pass are kept). */
    int batches = (n + BATCH - 1) / BATCH;
    static double lat[PASSES * (MAX_IMAGES / BATCH + 1)];
    for (int pass = 0; pass < PASSES; pass++)
        if (classify(req, n, BATCH, predicted, lat + pass * batches) != NPU_OK) {
            fail("npu_request_infer");
            goto out;
        }
    int correct = 0, agree = 0, confusion[CLASSES][CLASSES] = {{0}};
    for (int i = 0; i < n; i++) {
        correct += predicted[i] == labels[i];
        agree += predicted[i] == reference[i];
        if (labels[i] < CLASSES) confusion[labels[i]][predicted[i]]++;
    }
    double accuracy = (double)correct / n;
    printf("demo: accuracy %d/%d = %.2f%% (goal >= %.0f%%)\n", correct, n, accuracy * 100, GOAL * 100);
    printf("demo: agrees with the training script's predictions on %d/%d images\n", agree, n);
    printf("demo: confusion matrix (rows: true digit, columns: predicted)\n     ");
    for (int k = 0; k < CLASSES; k++) printf("%4d", k);
    printf("\n");
    for (int t = 0; t < CLASSES; t++) {
        printf("  %d: ", t);
        for (int k = 0; k < CLASSES; k++) printf("%4d", confusion[t][k]);
        printf("\n");
    }
    int nl = PASSES * batches;
    double total = 0;
    for (int i = 0; i < nl; i++) total += lat[i];
    qsort(lat, (size_t)nl, sizeof *lat, cmp_double);
    printf("demo: latency per batch of %d over %d inferences: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms; "
           "%.0f images/s\n",
           BATCH, nl, percentile(lat, nl, 0.5), percentile(lat, nl, 0.9), percentile(lat, nl, 0.99), lat[nl - 1],
           (double)PASSES * n / (total / 1e3));

    /* 4: export, shut everything down, boot from the blob alone. */
    if (npu_model_export_file(model, blob) != NPU_OK) {
        fail("npu_model_export_file");
        goto out;
    }
    npu_request_destroy(req);
    npu_model_destroy(model);
    npu_device_close(dev);
    req = NULL;
    model = NULL;
    dev = NULL;
    double t0 = now_ms();
    s = npu_arena_init(&arena, memory, sizeof memory);   /* nothing survives */
    if (s == NPU_OK) s = npu_context_create(&arena, NULL, &ctx);
    if (s != NPU_OK) {
        fprintf(stderr, "demo: creating the context again failed: %s\n", npu_status_string(s));
        return 1;
    }
    if (npu_device_open(&arena, ctx, NULL, &dev) != NPU_OK) return fail("npu_device_open");
    if (npu_model_import_file(dev, &arena, blob, NULL, &model) != NPU_OK) {
        fail("npu_model_import_file");
        goto out;
    }
    if (check_io(model, BATCH) != 0) goto out;
    if (npu_request_create(model, &arena, NULL, &req) != NPU_OK) {
        fail("npu_request_create");
        goto out;
    }
    if (classify(req, BATCH < n ? BATCH : n, BATCH, booted, NULL) != NPU_OK) {
        fail("npu_request_infer");
        goto out;
    }
    double boot_ms = now_ms() - t0;
    if (classify(req, n, BATCH, booted, NULL) != NPU_OK) {
        fail("npu_request_infer");
        goto out;
    }
    int same = 0;
    for (int i = 0; i < n; i++) same += booted[i] == predicted[i];
    struct stat st;
    printf("demo: boot from the blob %s (%lld bytes, batch %u): %.2f ms (device open + import + first inference)\n",
           blob, stat(blob, &st) == 0 ? (long long)st.st_size : -1LL, npu_model_batch(model), boot_ms);
    printf("demo: blob restart: %d/%d predictions identical\n", same, n);

    rc = !(accuracy >= GOAL) || !info[1].from_cache || same != n;
    if (!info[1].from_cache) printf("demo: the second start did not come from the cache\n");
    puts(rc ? "demo: FAILED" : "demo: OK");
out:
    npu_request_destroy(req);
    npu_model_destroy(model);
    npu_device_close(dev);
    return rc;
}
