/* npu-run - load a model, run it many times, report latency and throughput
 * (in the spirit of OpenVINO's benchmark_app).
 *
 *   npu-run -m model.xml|model.blob [options]
 *
 * See usage() below for the options. The model is an OpenVINO IR pair (by the
 * .xml extension or a leading '<') or a compiled blob (anything else: a native
 * blob, optionally with the OVNPU metadata tail of an export, as npu-compile
 * writes; or an entry of npu's model cache, <cache_dir>/<key>.npucache, whose
 * exported blob starts after its 4096-byte header).
 *
 * Exit status: 0 ran; 1 the model could not be loaded or run (a missing file,
 * a directory or FIFO given as the model, an IR or blob the library refuses);
 * 2 usage error. A FIFO is refused before it is opened, so it never blocks.
 *
 * Timings: "load" is the compile (IR) or import (blob) call; "first inference"
 * is the first synchronous inference after it. Their sum is FEIL (first-ever
 * inference latency: compiled) or FIL (first inference latency: imported).
 * Afterwards -r requests are kept in flight from one thread (start all, then
 * wait/restart them round-robin); a latency is the time from a request's start
 * to the return of its wait. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "npu.h"

#define MAX_INPUT_FILES 64

typedef struct options {
    const char *model, *weights, *inputs[MAX_INPUT_FILES];
    int n_inputs;
    long iterations;       /* 0: use seconds */
    double seconds;
    int requests;          /* 0: the device's optimum for the hint */
    long batch;            /* 0: as the model says */
    const char *batch_mode, *cache_dir;
    const char *layout;    /* --layout as given (benchmark_app's -layout) */
    npu_performance_hint hint;
    int json, quiet;
    unsigned long seed;
} options;

static void usage(FILE *f, const char *argv0)
{
    fprintf(f,
            "usage: %s -m model.xml|model.blob [options]\n"
            "  -m, --model PATH        OpenVINO IR (.xml), compiled blob, or .npucache entry\n"
            "  -w, --weights PATH      IR weights (default: the .xml's .bin)\n"
            "  -i, --input PATH        raw input bytes, one file per input, in input order\n"
            "                          (repeat -i); default: random values (see --seed)\n"
            "  -n, --iterations N      run N inferences (default 100 unless -t)\n"
            "  -t, --time SECONDS      run for this long instead\n"
            "  -r, --requests N        requests in flight (default: optimal for the hint)\n"
            "  -b, --batch N           IR only: set the batch of every input to N\n"
            "      --batch-mode auto|plugin|compiler   who handles the batch\n"
            "      --layout SPEC       IR only: layouts of inputs/outputs, benchmark_app style:\n"
            "                          name[N,C,H,W] or name[NCHW], comma-separated\n"
            "                          (in1[NCHW],in2[NC]); [N,C] alone: every input and output.\n"
            "                          npu debatches only where every input and output\n"
            "                          has a layout naming N\n"
            "      --cache-dir DIR     import from / store into this model cache\n"
            "      --hint latency|throughput           performance hint\n"
            "      --seed N            seed of the random inputs (default 1)\n"
            "      --json              print the results as one JSON object\n"
            "  -q, --quiet             no progress and no step messages\n"
            "  -h, --help\n",
            argv0);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* An IR by extension, else by a leading '<' (XML); everything else is a blob. */
static int is_ir(const char *path)
{
    if (ends_with(path, ".xml")) return 1;
    if (ends_with(path, ".blob")) return 0;
    FILE *f = fopen(path, "rb");
    int c = f ? fgetc(f) : EOF;
    while (c == ' ' || c == '\n' || c == '\r' || c == '\t') c = fgetc(f);
    if (f) fclose(f);
    return c == '<';
}

/* The model path must name a regular file: opening a FIFO would block, a
 * directory is an easy slip. One line on stderr; 0 if fine. */
static int check_model_file(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "npu-run: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(sb.st_mode)) {
        fprintf(stderr, "npu-run: %s: %s\n", path, S_ISDIR(sb.st_mode) ? "is a directory, not a model" : "not a regular file");
        return -1;
    }
    return 0;
}

/* An npu cache entry (npu.c section 13d): "NPUCACHE", u32 format version at 8,
 * u32 header size at 12, u64 payload size at 48; the payload (an exported
 * blob) follows the header. Maps it; 1 with blob and size set when the file is an
 * entry, 0 when it is not, -1 (after a message) when it is a broken one. */
static int map_cache_entry(const char *path, void **map, size_t *map_size, const void **blob, size_t *size)
{
    unsigned char head[64];
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0;   /* the import reports it */
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    if (got < sizeof head || memcmp(head, "NPUCACHE", 8) != 0) return 0;
    uint32_t header;
    uint64_t payload;
    memcpy(&header, head + 12, 4);
    memcpy(&payload, head + 48, 8);
    struct stat sb;
    if (stat(path, &sb) != 0 || header < 272 || payload == 0 || (uint64_t)sb.st_size < header ||
        payload > (uint64_t)sb.st_size - header) {
        fprintf(stderr, "npu-run: %s: a truncated or corrupt npu cache entry\n", path);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    void *p = fd < 0 ? MAP_FAILED : mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (fd >= 0) close(fd);
    if (p == MAP_FAILED) {
        fprintf(stderr, "npu-run: %s: %s\n", path, strerror(errno));
        return -1;
    }
    *map = p;
    *map_size = (size_t)sb.st_size;
    *blob = (const unsigned char *)p + header;
    *size = (size_t)payload;
    return 1;
}

static void *aligned_block(size_t bytes, npu_arena *arena)
{
    void *mem = NULL;
    if (posix_memalign(&mem, 4096, bytes ? bytes : 1) != 0) return NULL;
    npu_arena_init(arena, mem, bytes);
    return mem;
}

static uint64_t rng_state;
static uint64_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static uint16_t f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, mant = x & 0x7fffffu;
    if (exp < 103) return (uint16_t)sign;                 /* too small: +-0 */
    if (exp < 113) return (uint16_t)(sign | ((mant | 0x800000u) >> (126 - exp)));  /* subnormal */
    if (exp > 142) return (uint16_t)(sign | 0x7c00u);     /* too large: inf */
    return (uint16_t)(sign | ((exp - 112) << 10) | (mant >> 13));
}

/* Random values in [-1, 1) for floats, 0..9 for integers, 0/1 for booleans. */
static void fill_random(void *dst, const npu_tensor_desc *d)
{
    size_t size = npu_type_size(d->type) ? npu_type_size(d->type) : 1;
    size_t n = (size_t)d->bytes / size;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng_next();
        float f = (float)(r >> 40) / (float)(1 << 23) - 1.0f;
        uint32_t fb;
        memcpy(&fb, &f, 4);
        switch (d->type) {
        case NPU_F32: ((float *)dst)[i] = f; break;
        case NPU_F16: ((uint16_t *)dst)[i] = f32_to_f16(f); break;
        case NPU_BF16: ((uint16_t *)dst)[i] = (uint16_t)(fb >> 16); break;
        case NPU_I32: ((int32_t *)dst)[i] = (int32_t)(r % 10); break;
        case NPU_I64: ((int64_t *)dst)[i] = (int64_t)(r % 10); break;
        case NPU_BOOL: ((uint8_t *)dst)[i] = (uint8_t)(r & 1); break;
        default: ((uint8_t *)dst)[i] = (uint8_t)(r % 10); break;
        }
    }
}

static int read_input_file(const char *path, void *dst, uint64_t bytes, const npu_tensor_desc *d)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "npu-run: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t got = fread(dst, 1, (size_t)bytes, f);
    int extra = fgetc(f) != EOF;
    fclose(f);
    if (got != bytes || extra) {
        fprintf(stderr, "npu-run: %s: input '%s' needs exactly %llu bytes (%s), the file has %s%zu\n", path,
                d->name, (unsigned long long)bytes, npu_type_name(d->type), extra ? "more than " : "", got);
        return -1;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values. */
static double percentile(const double *v, size_t n, double p)
{
    size_t rank = (size_t)ceil(p / 100.0 * (double)n);
    return v[rank ? rank - 1 : 0];
}

static void log_to_stderr(void *user, npu_log_level level, const char *message)
{
    (void)user;
    if (level == NPU_LOG_ERROR) return;   /* failures are reported with their call below */
    fprintf(stderr, "npu-run: [%s] %s\n", level == NPU_LOG_ERROR ? "error" : level == NPU_LOG_WARN ? "warn" : "info",
            message);
}

static void shape_str(const npu_shape *s, char *buf, size_t cap)
{
    size_t used = 0;
    used += (size_t)snprintf(buf + used, cap - used, "[");
    for (uint32_t k = 0; k < s->rank && used < cap; k++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%lld", k ? "," : "", (long long)s->dims[k]);
    if (used < cap) snprintf(buf + used, cap - used, "]");
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20) printf("\\u%04x", *s);
        else putchar(*s);
    }
    putchar('"');
}

/* Does `name` name this IR port: its layer name or one of its tensor names? */
static int port_named(const npu_ir_io *io, const char *name, size_t len)
{
    if (strlen(io->desc.name) == len && strncmp(io->desc.name, name, len) == 0) return 1;
    for (const char *t = io->tensor_names; *t;) {
        size_t n = strcspn(t, ",");
        if (n == len && strncmp(t, name, len) == 0) return 1;
        t += n;
        if (*t == ',') t++;
    }
    return 0;
}

/* --layout, benchmark_app's -layout syntax: entries name[LAYOUT] separated by
 * commas, or a lone [LAYOUT] for every input and output. LAYOUT is "NCHW" or
 * "N,C,H,W" (one-letter names) or anything npu_ir_set_layout takes ("N...C").
 * ir NULL: only checks the syntax. Returns 0, or -1 after a message. */
static int apply_layouts(npu_ir *ir, const char *spec)
{
    const char *p = spec;
    if (*p == '\0') return -1;
    while (*p) {
        const char *open = strchr(p, '['), *close = open ? strchr(open, ']') : NULL;
        char layout[64];
        size_t k = 0, name_len;
        if (open == NULL || close == NULL) {
            fprintf(stderr, "npu-run: --layout '%s': expected name[LAYOUT] or [LAYOUT]\n", spec);
            return -1;
        }
        name_len = (size_t)(open - p);
        for (const char *c = open + 1; c < close; c++) {
            if (*c == ',' || *c == ' ') continue;
            if (k + 1 >= sizeof layout) {
                fprintf(stderr, "npu-run: --layout '%s': layout too long\n", spec);
                return -1;
            }
            layout[k++] = *c;
        }
        layout[k] = '\0';
        if (ir != NULL) {
            int found = 0;
            for (int out = 0; out < 2; out++) {
                uint32_t n = out ? npu_ir_output_count(ir) : npu_ir_input_count(ir);
                for (uint32_t i = 0; i < n; i++) {
                    const npu_ir_io *io = out ? npu_ir_output(ir, (uint32_t)i) : npu_ir_input(ir, (uint32_t)i);
                    if (name_len > 0 && !port_named(io, p, name_len)) continue;
                    found = 1;
                    if (npu_ir_set_layout(ir, out, i, layout) != NPU_OK) return -1;  /* message: the context */
                }
            }
            if (!found) {
                fprintf(stderr, "npu-run: --layout: the model has no input or output '%.*s'\n", (int)name_len, p);
                return -1;
            }
        }
        p = close + 1;
        if (*p == ',') p++;
        else if (*p != '\0') {
            fprintf(stderr, "npu-run: --layout '%s': expected ',' after ']'\n", spec);
            return -1;
        }
    }
    return 0;
}

static const char *mode_name(npu_batch_mode m)
{
    return m == NPU_BATCH_PLUGIN ? "PLUGIN" : m == NPU_BATCH_COMPILER ? "COMPILER" : "AUTO";
}

static int parse_args(int argc, char **argv, options *o)
{
    enum { OPT_BATCH_MODE = 256, OPT_CACHE_DIR, OPT_HINT, OPT_JSON, OPT_SEED, OPT_LAYOUT };
    static const struct option longs[] = {
        {"model", required_argument, NULL, 'm'},     {"weights", required_argument, NULL, 'w'},
        {"input", required_argument, NULL, 'i'},     {"iterations", required_argument, NULL, 'n'},
        {"time", required_argument, NULL, 't'},      {"requests", required_argument, NULL, 'r'},
        {"batch", required_argument, NULL, 'b'},     {"batch-mode", required_argument, NULL, OPT_BATCH_MODE},
        {"cache-dir", required_argument, NULL, OPT_CACHE_DIR}, {"hint", required_argument, NULL, OPT_HINT},
        {"json", no_argument, NULL, OPT_JSON},       {"seed", required_argument, NULL, OPT_SEED},
        {"layout", required_argument, NULL, OPT_LAYOUT},
        {"quiet", no_argument, NULL, 'q'},           {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->seed = 1;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "m:w:i:n:t:r:b:qh", longs, NULL)) != -1) {
        errno = 0;
        switch (c) {
        case 'm': o->model = optarg; break;
        case 'w': o->weights = optarg; break;
        case 'i':
            if (o->n_inputs == MAX_INPUT_FILES) { fprintf(stderr, "npu-run: too many -i\n"); return -1; }
            o->inputs[o->n_inputs++] = optarg;
            break;
        case 'n': o->iterations = strtol(optarg, &end, 10); if (*end || o->iterations < 1) goto bad; break;
        case 't': o->seconds = strtod(optarg, &end); if (*end || !(o->seconds > 0)) goto bad; break;
        case 'r': o->requests = (int)strtol(optarg, &end, 10); if (*end || o->requests < 1 || o->requests > 256) goto bad; break;
        case 'b': o->batch = strtol(optarg, &end, 10); if (*end || o->batch < 1) goto bad; break;
        case OPT_BATCH_MODE:
            if (strcmp(optarg, "auto") && strcmp(optarg, "plugin") && strcmp(optarg, "compiler")) goto bad;
            o->batch_mode = optarg;
            break;
        case OPT_CACHE_DIR: o->cache_dir = optarg; break;
        case OPT_LAYOUT:
            if (apply_layouts(NULL, optarg) != 0) goto bad;
            o->layout = optarg;
            break;
        case OPT_HINT:
            if (strcmp(optarg, "latency") == 0) o->hint = NPU_HINT_LATENCY;
            else if (strcmp(optarg, "throughput") == 0) o->hint = NPU_HINT_THROUGHPUT;
            else goto bad;
            break;
        case OPT_JSON: o->json = 1; break;
        case OPT_SEED: o->seed = strtoul(optarg, &end, 10); if (*end) goto bad; break;
        case 'q': o->quiet = 1; break;
        case 'h': usage(stdout, argv[0]); exit(0);
        default: usage(stderr, argv[0]); return -1;
        }
        if (errno) goto bad;
        continue;
    bad:
        for (const struct option *l = longs; l->name; l++)
            if (l->val == c) fprintf(stderr, "npu-run: bad value '%s' for --%s\n", optarg, l->name);
        return -1;
    }
    if (o->model == NULL || optind != argc) {
        usage(stderr, argv[0]);
        return -1;
    }
    if (o->iterations == 0 && o->seconds == 0) o->iterations = 100;
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    if (parse_args(argc, argv, &o) != 0) return 2;
    rng_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)o.seed;
    if (rng_state == 0) rng_state = 1;
    int verbose = !o.quiet && !o.json;

    static _Alignas(NPU_ARENA_ALIGN) unsigned char dev_memory[64 * 1024];
    npu_arena dev_arena, ir_arena, model_arena, req_arena;
    void *ir_mem = NULL, *model_mem = NULL, *req_mem = NULL;
    npu_context *ctx;
    npu_context_options co = {log_to_stderr, NULL, o.quiet ? NPU_LOG_ERROR : NPU_LOG_WARN};
    npu_arena_init(&dev_arena, dev_memory, sizeof dev_memory);
    if (npu_context_create(&dev_arena, &co, &ctx) != NPU_OK) return 1;

    npu_device *dev = NULL;
    npu_ir *ir = NULL;
    npu_model *model = NULL;
    npu_request **req = NULL;
    double *lat = NULL;
    int rc = 1, n_req = 0, from_blob;
    const char *failed = NULL;
    void *entry_map = NULL;
    size_t entry_map_size = 0;
    if (check_model_file(o.model) != 0) return 1;
    from_blob = !is_ir(o.model);
    if (!from_blob) {   /* the weights too: given, or the .bin beside the .xml if present */
        char bin[4096];
        struct stat sb;
        size_t n = strlen(o.model);
        if (ends_with(o.model, ".xml")) n -= 4;
        snprintf(bin, sizeof bin, "%.*s.bin", (int)n, o.model);
        if (o.weights ? check_model_file(o.weights) != 0 : stat(bin, &sb) == 0 && check_model_file(bin) != 0) return 1;
    }

    if (npu_device_open(&dev_arena, ctx, NULL, &dev) != NPU_OK) { failed = "npu_device_open"; goto out; }
    npu_device_properties props;
    if (npu_device_get_properties(dev, &props) != NPU_OK) { failed = "npu_device_get_properties"; goto out; }
    if (verbose)
        printf("device: %s (platform %s%s), compiler %u.%u\n", props.name, props.platform,
               props.is_simulated ? ", software NPU" : "", props.compiler_version >> 16,
               props.compiler_version & 0xffff);

    double t_load0 = now_ms(), t_load = 0;
    npu_compile_options copts = {0};
    copts.hint = o.hint;
    if (o.batch_mode)
        copts.batch_mode = strcmp(o.batch_mode, "plugin") == 0     ? NPU_BATCH_PLUGIN
                           : strcmp(o.batch_mode, "compiler") == 0 ? NPU_BATCH_COMPILER
                                                                   : NPU_BATCH_AUTO;
    copts.cache_dir = o.cache_dir;
    if (from_blob) {
        if (o.batch && verbose) fprintf(stderr, "npu-run: -b is ignored for a blob (its batch is compiled in)\n");
        if ((o.batch_mode || o.cache_dir || o.layout) && verbose)
            fprintf(stderr, "npu-run: --batch-mode, --cache-dir and --layout apply to IR models; ignored for a blob\n");
        model_mem = aligned_block(npu_model_size(NPU_MAX_ARGS), &model_arena);
        npu_import_options io = {0};
        const void *entry;
        size_t entry_size;
        int is_entry = map_cache_entry(o.model, &entry_map, &entry_map_size, &entry, &entry_size);
        if (is_entry < 0) goto out;
        if (is_entry) {
            if (verbose) printf("model: %s is an npu cache entry: importing its blob\n", o.model);
            if (npu_model_import(dev, &model_arena, entry, entry_size, &io, &model) != NPU_OK) { failed = "import"; goto out; }
        } else if (npu_model_import_file(dev, &model_arena, o.model, &io, &model) != NPU_OK) {
            failed = "import";
            goto out;
        }
        t_load = now_ms() - t_load0;
    } else {
        size_t bytes;
        if (npu_ir_size_file(ctx, o.model, &bytes) != NPU_OK) { failed = "reading the IR"; goto out; }
        ir_mem = aligned_block(bytes, &ir_arena);
        if (npu_ir_open(&ir_arena, ctx, o.model, o.weights, &ir) != NPU_OK) { failed = "npu_ir_open"; goto out; }
        if (o.layout && apply_layouts(ir, o.layout) != 0) { failed = "--layout"; goto out; }
        if (o.batch) {
            int64_t original;
            if (npu_ir_set_batch(ir, o.batch, &original) != NPU_OK) { failed = "setting the batch"; goto out; }
            if (verbose) printf("batch: %ld (the IR declares %lld)\n", o.batch, (long long)original);
        }
        if (npu_model_compile_ir_size(dev, ir, &copts, &bytes) != NPU_OK) { failed = "npu_model_compile_ir_size"; goto out; }
        model_mem = aligned_block(bytes, &model_arena);
        t_load0 = now_ms();   /* compile time only: not the IR scan */
        if (npu_model_compile_ir(dev, &model_arena, ir, &copts, &model) != NPU_OK) { failed = "compile"; goto out; }
        t_load = now_ms() - t_load0;
        npu_ir_close(ir);
        ir = NULL;
    }
    npu_model_info info;
    if (npu_model_get_info(model, &info) != NPU_OK) { failed = "npu_model_get_info"; goto out; }
    int fil = from_blob || info.from_cache;   /* FIL: the model was imported, not compiled */
    if (verbose) {
        printf("model: %s (%s in %.2f ms)\n", o.model,
               from_blob ? "imported" : info.from_cache ? "from the cache" : "compiled", t_load);
        if (info.original_batch != 1)
            printf("batch: %s%lld, %s\n", info.original_batch < 0 ? "dynamic " : "",
                   (long long)(info.original_batch < 0 ? 1 : info.original_batch),
                   info.batch_mode == NPU_BATCH_PLUGIN ? "debatched by npu (PLUGIN)" : "handled by the compiler (COMPILER)");
        printf("batch mode: %s (asked: %s): %s\n", info.batch_mode == NPU_BATCH_AUTO ? "none" : mode_name(info.batch_mode),
               mode_name(info.requested_mode), info.batch_reason);
        char shape[128];
        for (uint32_t i = 0; i < npu_model_input_count(model); i++) {
            const npu_tensor_desc *d = npu_model_input(model, i);
            shape_str(&d->shape, shape, sizeof shape);
            printf("  input  %u '%s' %s %s %s\n", i, d->name, npu_type_name(d->type), shape, d->layout);
        }
        for (uint32_t i = 0; i < npu_model_output_count(model); i++) {
            const npu_tensor_desc *d = npu_model_output(model, i);
            shape_str(&d->shape, shape, sizeof shape);
            printf("  output %u '%s' %s %s %s\n", i, d->name, npu_type_name(d->type), shape, d->layout);
        }
    }

    /* Requests: all from one arena, sized exactly. */
    n_req = o.requests ? o.requests : (int)npu_device_optimal_requests(dev, o.hint);
    if (n_req < 1) n_req = 1;
    size_t one = NPU_ARENA_ROUND(npu_request_size(model, NULL));
    req_mem = aligned_block(one * (size_t)n_req, &req_arena);
    req = calloc((size_t)n_req, sizeof *req);
    if (req == NULL || req_mem == NULL) { fprintf(stderr, "npu-run: out of memory\n"); goto out; }
    uint32_t n_in = npu_model_input_count(model);
    if (o.n_inputs && (uint32_t)o.n_inputs != n_in) {
        fprintf(stderr, "npu-run: the model has %u inputs, %d -i files given\n", n_in, o.n_inputs);
        goto out;
    }
    for (int r = 0; r < n_req; r++) {
        if (npu_request_create(model, &req_arena, NULL, &req[r]) != NPU_OK) { failed = "npu_request_create"; goto out; }
        for (uint32_t i = 0; i < n_in; i++) {
            const npu_tensor_desc *d = npu_model_input(model, i);
            void *dst = npu_request_input(req[r], i);
            if (r > 0) memcpy(dst, npu_request_input(req[0], i), (size_t)d->bytes);
            else if (o.n_inputs) { if (read_input_file(o.inputs[i], dst, d->bytes, d)) goto out; }
            else fill_random(dst, d);
        }
    }
    /* Frames per inference: the batch the model says it has (a layout naming
     * N); never axis 0 of a layout-less input (a weights input [490,608,1,1]
     * is not a batch of 490). */
    int64_t batch = info.original_batch > 1 ? info.original_batch : 1;

    double t_first0 = now_ms();
    if (npu_request_infer(req[0]) != NPU_OK) { failed = "the first inference"; goto out; }
    double t_first = now_ms() - t_first0;
    if (verbose) {
        printf("first inference: %.3f ms\n", t_first);
        if (o.iterations) printf("running %ld inferences", o.iterations);
        else printf("running for %g s", o.seconds);
        printf(" with %d request%s in flight...\n", n_req, n_req > 1 ? "s" : "");
    }

    /* The measured loop: round-robin over the requests, one thread. */
    size_t cap = o.iterations ? (size_t)o.iterations : 4096, count = 0;
    lat = malloc(cap * sizeof *lat);
    double *started = calloc((size_t)n_req, sizeof *started);
    if (lat == NULL || started == NULL) { free(started); fprintf(stderr, "npu-run: out of memory\n"); goto out; }
    long launched = 0;
    double t0 = now_ms(), deadline = t0 + o.seconds * 1e3, next_progress = t0 + 1000.0;
    for (int r = 0; r < n_req && (o.iterations == 0 || launched < o.iterations); r++, launched++) {
        started[r] = now_ms();
        if (npu_request_start(req[r]) != NPU_OK) { free(started); failed = "npu_request_start"; goto out; }
    }
    long in_flight = launched;
    for (int r = 0; in_flight > 0; r = (r + 1) % n_req) {
        if (started[r] == 0) continue;
        if (npu_request_wait(req[r], UINT64_MAX) != NPU_OK) { free(started); failed = "npu_request_wait"; goto out; }
        double t = now_ms();
        in_flight--;
        if (count == cap) {
            double *bigger = realloc(lat, 2 * cap * sizeof *lat);
            if (bigger == NULL) { free(started); fprintf(stderr, "npu-run: out of memory\n"); goto out; }
            lat = bigger;
            cap *= 2;
        }
        lat[count++] = t - started[r];
        started[r] = 0;
        if (o.iterations ? launched < o.iterations : t < deadline) {
            started[r] = now_ms();
            if (npu_request_start(req[r]) != NPU_OK) { free(started); failed = "npu_request_start"; goto out; }
            launched++;
            in_flight++;
        }
        if (!o.quiet && t >= next_progress) {
            fprintf(stderr, "npu-run: %.0f s: %zu inferences\n", (t - t0) / 1e3, count);
            next_progress += 1000.0;
        }
    }
    double duration = now_ms() - t0;
    free(started);

    qsort(lat, count, sizeof *lat, cmp_double);
    double median = percentile(lat, count, 50), p90 = percentile(lat, count, 90);
    double fps = (double)count / (duration / 1e3);
    if (o.json) {
        printf("{\"model\": ");
        json_string(o.model);
        printf(", \"source\": \"%s\", \"device\": ", from_blob ? "blob" : "ir");
        json_string(props.name);
        printf(", \"simulated\": %s, \"load_ms\": %.4f, \"first_inference_ms\": %.4f, \"%s_ms\": %.4f,"
               " \"requests\": %d, \"batch\": %lld, \"iterations\": %zu, \"duration_ms\": %.3f,"
               " \"throughput_ips\": %.3f, \"throughput_fps\": %.3f, \"batch_mode\": \"%s\","
               " \"latency_ms\": {\"min\": %.4f, \"median\": %.4f, \"p90\": %.4f, \"max\": %.4f},"
               " \"batch_reason\": ",
               props.is_simulated ? "true" : "false", t_load, t_first, fil ? "fil" : "feil", t_load + t_first,
               n_req, (long long)batch, count, duration, fps, fps * (double)batch,
               info.batch_mode == NPU_BATCH_AUTO ? "none" : mode_name(info.batch_mode), lat[0], median, p90,
               lat[count - 1]);
        json_string(info.batch_reason);
        printf("}\n");
    } else {
        printf("%s %s: load %.2f ms + first inference %.3f ms = %.2f ms\n", fil ? "FIL" : "FEIL",
               from_blob ? "(import)" : info.from_cache ? "(cache hit)" : "(compile)", t_load, t_first, t_load + t_first);
        printf("iterations: %zu in %.1f ms, %d request%s, batch %lld\n", count, duration, n_req, n_req > 1 ? "s" : "",
               (long long)batch);
        printf("latency: min %.3f ms, median %.3f ms, p90 %.3f ms, max %.3f ms\n", lat[0], median, p90,
               lat[count - 1]);
        printf("throughput: %.1f inferences/s", fps);
        if (batch > 1) printf(" (%.1f frames/s)", fps * (double)batch);
        printf("\n");
    }
    rc = 0;
out:
    if (failed) fprintf(stderr, "npu-run: %s failed: %s\n", failed, npu_context_last_error(ctx));
    for (int r = 0; req && r < n_req; r++) npu_request_destroy(req[r]);
    npu_model_destroy(model);
    npu_ir_close(ir);
    npu_device_close(dev);
    if (entry_map) munmap(entry_map, entry_map_size);
    free(req);
    free(lat);
    free(req_mem);
    free(model_mem);
    free(ir_mem);
    return rc;
}
