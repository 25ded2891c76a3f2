/* npu-compile - compile an OpenVINO IR into a blob, like OpenVINO's
 * `compile_tool -m model.xml -d NPU -o model.blob`.
 *
 *   npu-compile -m model.xml [-o model.blob] [options]
 *
 * The blob is the driver's native blob followed by the OVNPU metadata tail
 * (npu_model_export_file): `npu-run -m model.blob` and OpenVINO's import_model
 * read it. It is written atomically: a temporary file next to the output is
 * filled, synced and renamed, so on any failure the output is either the old
 * file or absent, never partial.
 *
 * Exit status: 0 the blob was written; 1 the compile or the write failed (no
 * device, compiler error, I/O error); 2 usage error or an input that is not a
 * readable IR (missing file, directory, FIFO, malformed XML, weights that do
 * not fit the .bin).
 *
 * Target platform: npu compiles through the Level Zero driver, whose compiler
 * targets the device it opened (the graph extension has no target field), and
 * npu.h has no off-device option. -d NPU.<platform> therefore only checks that
 * the opened device is that platform. See --help and docs/guide.md ("Tools"). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include "npu.h"
#include "ir_edits.h"

#define MAX_IO 256
#define MAX_CONFIG 8192

typedef struct options {
    const char *model, *weights, *output, *device, *layout, *il, *ol, *ip, *op, *iop;
    npu_batch_mode batch_mode;
    int64_t batch;
    npu_payload_layout payload;
    uint64_t threshold;
    npu_performance_hint hint;
    int json, quiet;
    char config[MAX_CONFIG];   /* KEY="VALUE" KEY2="VALUE2" */
    tool_shape shapes[MAX_IO];  /* -shape */
    int n_shapes;
} options;

static const char *argv0 = "npu-compile";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s -m model.xml [-o model.blob] [options]\n"
            "Compiles an OpenVINO IR (model.xml + model.bin) for the NPU and writes the\n"
            "blob with its OVNPU metadata tail (what npu-run -m and OpenVINO's\n"
            "import_model read).\n"
            "  -m, --model PATH        IR XML (required)\n"
            "  -w, --weights PATH      IR weights (default: the .xml's .bin)\n"
            "  -o, --output PATH       blob to write (default: the model's name with .blob)\n"
            "  -d, --device NPU[.P]    NPU, or NPU.3720 / NPU.4000 / NPU.50xx: then the opened\n"
            "                          device must be that platform. npu compiles through the\n"
            "                          Level Zero driver, which compiles for the device it\n"
            "                          opened; npu.h has no off-device target, so a blob for\n"
            "                          another platform must be compiled on that platform (the\n"
            "                          software NPU pretends one with NPU_SIM_PLATFORM=4000)\n"
            "      --batch-mode MODE   auto|plugin|compiler (npu.h's NPU_BATCH_*; no NONE)\n"
            "  -b, --batch N           set the batch of every input to N before compiling\n"
            "      -shape SPEC         input shapes, name[1,3,224,224],other[1,10] or\n"
            "                          [1,3,224,224] for every input: the batch axis (one\n"
            "                          batch for all inputs, as -b) and any other axis (a\n"
            "                          dynamic model made static, as compile_tool's reshape)\n"
            "      -layout SPEC        layouts, benchmark_app syntax: name[NCHW],other[NC],\n"
            "                          or [NCHW] for every input; names match inputs, then\n"
            "                          outputs (layer or tensor names)\n"
            "      -il LAYOUT          layout of every input;  -ol LAYOUT: of every output\n"
            "      -ip TYPE            precision of every input (FP32 FP16 BF16 I8 U8 I32 I64 BOOL)\n"
            "      -op TYPE            precision of every output\n"
            "      -iop SPEC           per-name precisions: name:FP16,other:U8\n"
            "  -c, --config KEY=VALUE  a compiler config key (repeatable); or a file of\n"
            "                          'KEY VALUE' lines, as compile_tool's -c\n"
            "      --hint latency|throughput           PERFORMANCE_HINT\n"
            "      --weights-copy yes|no|auto          payload layout: A (weights copied),\n"
            "                          B (weights by pointer), or what the driver advertises\n"
            "      --weights-threshold BYTES           layout B: copy constants smaller than this\n"
            "      --json              print the result as one JSON object (also on failure)\n"
            "  -q, --quiet             no progress on stderr\n"
            "  -h, --help              this text;  --version: npu's version\n"
            "Exit status: 0 written; 1 compile or write failed (no device, compiler error,\n"
            "I/O); 2 usage error or an input that is not a readable IR.\n",
            argv0);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* One error: a line on stderr, or the JSON object on stdout. */
static int fail_json;
static int report_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int report_error(int code, const char *fmt, ...)
{
    char msg[NPU_ERROR_MAX + 512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t n = strlen(msg);   /* one line: build logs end in, and may hold, newlines */
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == ' ')) msg[--n] = '\0';
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    fprintf(stderr, "%s: %s\n", argv0, msg);
    if (fail_json) {
        printf("{\"ok\": false, \"exit_code\": %d, \"error\": ", code);
        json_string(stdout, msg);
        printf("}\n");
    }
    return code;
}

/* An input file must be a regular file: opening a FIFO would block. */
static int check_regular(const char *path, const char *what)
{
    struct stat sb;
    if (stat(path, &sb) != 0) return report_error(2, "%s %s: %s", what, path, strerror(errno));
    if (S_ISDIR(sb.st_mode)) return report_error(2, "%s %s: is a directory", what, path);
    if (!S_ISREG(sb.st_mode)) return report_error(2, "%s %s: not a regular file", what, path);
    return 0;
}

static npu_type parse_type(const char *s)
{
    static const struct { const char *name; npu_type t; } names[] = {
        {"FP32", NPU_F32}, {"F32", NPU_F32}, {"FP16", NPU_F16}, {"F16", NPU_F16}, {"BF16", NPU_BF16},
        {"I8", NPU_I8},    {"U8", NPU_U8},   {"I32", NPU_I32},  {"I64", NPU_I64}, {"BOOL", NPU_BOOL},
        {"BOOLEAN", NPU_BOOL}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(s, names[i].name) == 0) return names[i].t;
    return NPU_TYPE_UNDEFINED;
}

/* Appends KEY="VALUE" to the config string. */
static int add_config(options *o, const char *key, size_t klen, const char *val)
{
    size_t used = strlen(o->config);
    while (klen && (key[klen - 1] == ' ' || key[klen - 1] == '\t')) klen--;
    while (*val == ' ' || *val == '\t') val++;
    size_t vlen = strlen(val);
    while (vlen && (val[vlen - 1] == ' ' || val[vlen - 1] == '\t' || val[vlen - 1] == '\n' || val[vlen - 1] == '\r'))
        vlen--;
    if (klen == 0) return report_error(2, "config: empty key");
    if (memchr(val, '"', vlen) || memchr(key, '"', klen) || memchr(key, ' ', klen))
        return report_error(2, "config %.*s: keys must not hold spaces or quotes, values no quotes", (int)klen, key);
    int n = snprintf(o->config + used, sizeof o->config - used, "%s%.*s=\"%.*s\"", used ? " " : "", (int)klen, key,
                     (int)vlen, val);
    if (n < 0 || (size_t)n >= sizeof o->config - used) return report_error(2, "config: too many keys");
    return 0;
}

/* -c KEY=VALUE, or -c FILE holding "KEY VALUE" lines (# comments). */
static int parse_config(options *o, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (eq) return add_config(o, arg, (size_t)(eq - arg), eq + 1);
    if (check_regular(arg, "config file")) return 2;
    FILE *f = fopen(arg, "r");
    if (f == NULL) return report_error(2, "config file %s: %s", arg, strerror(errno));
    char line[1024];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0') continue;
        size_t k = strcspn(p, " \t=\n\r");
        if (p[k] != ' ' && p[k] != '\t' && p[k] != '=') {
            rc = report_error(2, "config file %s: line without a value: %s", arg, p);
            break;
        }
        rc = add_config(o, p, k, p + k + 1);
    }
    fclose(f);
    return rc;
}

/* "NPU" or "NPU.<platform>" against the opened device ("50xx" matches 5010). */
static int device_matches(const char *want, const char *have)
{
    if (strncasecmp(want, "NPU", 3) != 0) return -1;
    if (want[3] == '\0') return 1;
    if (want[3] != '.') return -1;
    want += 4;
    if (strcmp(want, have) == 0) return 1;
    size_t n = strlen(have);
    if (n == 4 && strcmp(have + 2, "xx") == 0 && strlen(want) == 4 && strncmp(want, have, 2) == 0) return 1;
    return 0;
}

static int parse_args(int argc, char **argv, options *o)
{
    enum { OPT_BATCH_MODE = 256, OPT_HINT, OPT_WCOPY, OPT_WTHRESH, OPT_JSON, OPT_VERSION,
           OPT_LAYOUT, OPT_IL, OPT_OL, OPT_IP, OPT_OP, OPT_IOP, OPT_SHAPE };
    /* compile_tool's single-dash long options: getopt_long_only accepts both. */
    static const struct option longs[] = {
        {"model", required_argument, NULL, 'm'},       {"weights", required_argument, NULL, 'w'},
        {"output", required_argument, NULL, 'o'},      {"device", required_argument, NULL, 'd'},
        {"batch", required_argument, NULL, 'b'},       {"config", required_argument, NULL, 'c'},
        {"batch-mode", required_argument, NULL, OPT_BATCH_MODE},
        {"hint", required_argument, NULL, OPT_HINT},   {"weights-copy", required_argument, NULL, OPT_WCOPY},
        {"weights-threshold", required_argument, NULL, OPT_WTHRESH},
        {"layout", required_argument, NULL, OPT_LAYOUT}, {"il", required_argument, NULL, OPT_IL},
        {"ol", required_argument, NULL, OPT_OL},       {"ip", required_argument, NULL, OPT_IP},
        {"op", required_argument, NULL, OPT_OP},       {"iop", required_argument, NULL, OPT_IOP},
        {"shape", required_argument, NULL, OPT_SHAPE},
        {"json", no_argument, NULL, OPT_JSON},         {"version", no_argument, NULL, OPT_VERSION},
        {"quiet", no_argument, NULL, 'q'},             {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++)   /* --json first, so that usage errors are JSON too */
        if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "-json") == 0) fail_json = 1;
    opterr = 0;
    int c;
    char *end;
    while ((c = getopt_long_only(argc, argv, ":m:w:o:d:b:c:qh", longs, NULL)) != -1) {
        errno = 0;
        switch (c) {
        case 'm': o->model = optarg; break;
        case 'w': o->weights = optarg; break;
        case 'o': o->output = optarg; break;
        case 'd': o->device = optarg; break;
        case 'b':
            o->batch = strtoll(optarg, &end, 10);
            if (*end || errno || o->batch < 1) return report_error(2, "bad value '%s' for -b (a batch >= 1)", optarg);
            break;
        case 'c': if (parse_config(o, optarg)) return 2; break;
        case OPT_BATCH_MODE:
            if (strcasecmp(optarg, "auto") == 0) o->batch_mode = NPU_BATCH_AUTO;
            else if (strcasecmp(optarg, "plugin") == 0) o->batch_mode = NPU_BATCH_PLUGIN;
            else if (strcasecmp(optarg, "compiler") == 0) o->batch_mode = NPU_BATCH_COMPILER;
            else return report_error(2, "bad value '%s' for --batch-mode (auto, plugin or compiler)", optarg);
            break;
        case OPT_HINT:
            if (strcasecmp(optarg, "latency") == 0) o->hint = NPU_HINT_LATENCY;
            else if (strcasecmp(optarg, "throughput") == 0) o->hint = NPU_HINT_THROUGHPUT;
            else return report_error(2, "bad value '%s' for --hint (latency or throughput)", optarg);
            break;
        case OPT_WCOPY:
            if (strcasecmp(optarg, "yes") == 0) o->payload = NPU_PAYLOAD_WEIGHTS_COPY;
            else if (strcasecmp(optarg, "no") == 0) o->payload = NPU_PAYLOAD_NO_WEIGHTS_COPY;
            else if (strcasecmp(optarg, "auto") == 0) o->payload = NPU_PAYLOAD_DEFAULT;
            else return report_error(2, "bad value '%s' for --weights-copy (yes, no or auto)", optarg);
            break;
        case OPT_WTHRESH:
            o->threshold = strtoull(optarg, &end, 10);
            if (*end || errno || optarg[0] == '-')
                return report_error(2, "bad value '%s' for --weights-threshold (bytes)", optarg);
            break;
        case OPT_LAYOUT: o->layout = optarg; break;
        case OPT_IL: o->il = optarg; break;
        case OPT_OL: o->ol = optarg; break;
        case OPT_IP: o->ip = optarg; break;
        case OPT_OP: o->op = optarg; break;
        case OPT_IOP: o->iop = optarg; break;
        case OPT_SHAPE: {
            char why[1024];
            if (tool_parse_shapes("-shape", optarg, o->shapes, MAX_IO, &o->n_shapes, why, sizeof why) != 0)
                return report_error(2, "%s", why);
            break;
        }
        case OPT_JSON: o->json = 1; break;
        case OPT_VERSION: printf("npu-compile (npu) %s\n", npu_version_string()); exit(0);
        case 'q': o->quiet = 1; break;
        case 'h': usage(stdout); exit(0);
        case ':': return report_error(2, "option %s needs a value (see --help)", argv[optind - 1]);
        default: return report_error(2, "unknown option %s (see --help)", argv[optind - 1]);
        }
    }
    if (optind != argc) return report_error(2, "unexpected argument '%s' (see --help)", argv[optind]);
    if (o->model == NULL) {
        if (!fail_json) usage(stderr);
        return report_error(2, "-m model.xml is required");
    }
    if (o->device && device_matches(o->device, "") < 0)
        return report_error(2, "-d %s: only NPU or NPU.<platform> (e.g. NPU.3720) is known", o->device);
    if (o->ip && parse_type(o->ip) == NPU_TYPE_UNDEFINED) return report_error(2, "unknown precision '%s' for -ip", o->ip);
    if (o->op && parse_type(o->op) == NPU_TYPE_UNDEFINED) return report_error(2, "unknown precision '%s' for -op", o->op);
    return 0;
}

/* Finds an input (then output) by name; returns 0 and sets is_output and index. */
static int find_io(const npu_ir *ir, const char *name, size_t len, int *is_output, uint32_t *index)
{
    for (int out = 0; out < 2; out++) {
        uint32_t n = out ? npu_ir_output_count(ir) : npu_ir_input_count(ir);
        for (uint32_t i = 0; i < n; i++)
            if (tool_ir_io_named(out ? npu_ir_output(ir, i) : npu_ir_input(ir, i), name, len)) {
                *is_output = out;
                *index = i;
                return 0;
            }
    }
    return -1;
}

static int set_layout(npu_ir *ir, npu_context *ctx, int is_output, uint32_t index, const char *layout, size_t len)
{
    char buf[NPU_LAYOUT_MAX * 2];
    if (len >= sizeof buf) return report_error(2, "layout '%.*s' is too long", (int)len, layout);
    memcpy(buf, layout, len);
    buf[len] = '\0';
    if (npu_ir_set_layout(ir, is_output, index, buf) != NPU_OK)
        return report_error(2, "layout %s: %s", buf, npu_context_last_error(ctx));
    return 0;
}

/* -layout "name[NCHW],other[NC]" or "[NCHW]" (every input). */
static int apply_layouts(const options *o, npu_ir *ir, npu_context *ctx)
{
    if (o->il)
        for (uint32_t i = 0; i < npu_ir_input_count(ir); i++)
            if (set_layout(ir, ctx, 0, i, o->il, strlen(o->il))) return 2;
    if (o->ol)
        for (uint32_t i = 0; i < npu_ir_output_count(ir); i++)
            if (set_layout(ir, ctx, 1, i, o->ol, strlen(o->ol))) return 2;
    for (const char *p = o->layout; p && *p;) {
        const char *open = strchr(p, '['), *close = open ? strchr(open, ']') : NULL;
        if (open == NULL || close == NULL) return report_error(2, "-layout '%s': expected name[LAYOUT]", p);
        size_t name_len = (size_t)(open - p), lay_len = (size_t)(close - open - 1);
        if (name_len == 0) {
            for (uint32_t i = 0; i < npu_ir_input_count(ir); i++)
                if (set_layout(ir, ctx, 0, i, open + 1, lay_len)) return 2;
        } else {
            int is_output;
            uint32_t index;
            if (find_io(ir, p, name_len, &is_output, &index) != 0)
                return report_error(2, "-layout: the model has no input or output named '%.*s'", (int)name_len, p);
            if (set_layout(ir, ctx, is_output, index, open + 1, lay_len)) return 2;
        }
        p = close + 1;
        if (*p == ',') p++;
        else if (*p) return report_error(2, "-layout: expected ',' after '%.*s'", (int)(close - o->layout + 1), o->layout);
    }
    return 0;
}

/* -ip/-op/-iop into the per-index type arrays. */
static int apply_precisions(const options *o, const npu_ir *ir, npu_type *in, npu_type *out)
{
    uint32_t ni = npu_ir_input_count(ir), no = npu_ir_output_count(ir);
    if (ni > MAX_IO || no > MAX_IO) {
        if (o->ip || o->op || o->iop) return report_error(2, "precisions: more than %d inputs or outputs", MAX_IO);
        return 0;
    }
    for (uint32_t i = 0; i < ni; i++) in[i] = o->ip ? parse_type(o->ip) : NPU_TYPE_UNDEFINED;
    for (uint32_t i = 0; i < no; i++) out[i] = o->op ? parse_type(o->op) : NPU_TYPE_UNDEFINED;
    for (const char *p = o->iop; p && *p;) {
        size_t item = strcspn(p, ",");
        const char *colon = memchr(p, ':', item);
        if (colon == NULL) return report_error(2, "-iop '%.*s': expected name:TYPE", (int)item, p);
        char type[16];
        size_t tl = item - (size_t)(colon - p) - 1;
        if (tl >= sizeof type) tl = sizeof type - 1;
        memcpy(type, colon + 1, tl);
        type[tl] = '\0';
        npu_type t = parse_type(type);
        if (t == NPU_TYPE_UNDEFINED) return report_error(2, "-iop: unknown precision '%s'", type);
        int is_output;
        uint32_t index;
        if (find_io(ir, p, (size_t)(colon - p), &is_output, &index) != 0)
            return report_error(2, "-iop: the model has no input or output named '%.*s'", (int)(colon - p), p);
        (is_output ? out : in)[index] = t;
        p += item + (p[item] == ',');
    }
    return 0;
}

static void *aligned_block(size_t bytes, npu_arena *arena)
{
    void *mem = NULL;
    if (posix_memalign(&mem, 4096, bytes ? bytes : 1) != 0) return NULL;
    if (npu_arena_init(arena, mem, bytes) != NPU_OK) {
        free(mem);
        return NULL;
    }
    return mem;
}

/* model.xml -> model.blob (in the current directory's sense: next to the xml). */
static void default_output(const char *model, char *buf, size_t cap)
{
    size_t n = strlen(model);
    if (n > 4 && strcmp(model + n - 4, ".xml") == 0) n -= 4;
    snprintf(buf, cap, "%.*s.blob", (int)n, model);
}

static void log_to_stderr(void *user, npu_log_level level, const char *message)
{
    (void)user;
    if (level == NPU_LOG_ERROR) return;   /* failures are reported with their call */
    fprintf(stderr, "%s: [%s] %s\n", argv0, level == NPU_LOG_WARN ? "warn" : "info", message);
}

int main(int argc, char **argv)
{
    static options o;
    static _Alignas(NPU_ARENA_ALIGN) unsigned char dev_memory[64 * 1024];
    static npu_type in_types[MAX_IO], out_types[MAX_IO];
    char output[4096];
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc;
    if (o.output == NULL) {
        default_output(o.model, output, sizeof output);
        o.output = output;
    }
    if (check_regular(o.model, "model")) return 2;
    if (o.weights && check_regular(o.weights, "weights")) return 2;
    if (o.weights == NULL) {   /* the implied .bin: absent is fine (no weights), a FIFO is not */
        char bin[4096];
        struct stat sb;
        size_t n = strlen(o.model);
        if (n > 4 && strcmp(o.model + n - 4, ".xml") == 0) n -= 4;
        snprintf(bin, sizeof bin, "%.*s.bin", (int)n, o.model);
        if (stat(bin, &sb) == 0 && !S_ISREG(sb.st_mode))
            return report_error(2, "weights %s: not a regular file", bin);
    }
    struct stat osb;
    if (stat(o.output, &osb) == 0 && !S_ISREG(osb.st_mode))
        return report_error(2, "output %s: exists and is not a regular file", o.output);

    npu_arena dev_arena, ir_arena, model_arena;
    void *ir_mem = NULL, *pp_mem = NULL, *shape_mem = NULL, *model_mem = NULL;
    npu_shape *reshape = NULL;   /* -shape: the inputs to reshape (rank 0: none) */
    npu_context *ctx;
    npu_device *dev = NULL;
    npu_ir *ir = NULL;
    npu_model *model = NULL;
    npu_context_options co = {.log = log_to_stderr, .log_user_data = NULL, .log_level = o.quiet || o.json ? NPU_LOG_ERROR : NPU_LOG_WARN};
    if (npu_arena_init(&dev_arena, dev_memory, sizeof dev_memory) != NPU_OK ||
        npu_context_create(&dev_arena, &co, &ctx) != NPU_OK)
        return report_error(1, "cannot create a context");
    rc = 1;

    /* The IR first: a bad input is a usage-class error (2) and needs no device. */
    static _Alignas(16) unsigned char ir_size_mem[NPU_IR_SIZE_SCRATCH];   /* the size scan's scratch */
    npu_arena ir_size_scratch;
    npu_arena_init(&ir_size_scratch, ir_size_mem, sizeof ir_size_mem);
    size_t bytes;
    if (npu_ir_size_file(&ir_size_scratch, ctx, o.model, &bytes) != NPU_OK) {
        rc = report_error(2, "%s: not a readable IR: %s", o.model, npu_context_last_error(ctx));
        goto out;
    }
    ir_mem = aligned_block(bytes, &ir_arena);
    if (ir_mem == NULL) { rc = report_error(1, "out of memory"); goto out; }
    if (npu_ir_open(&ir_arena, ctx, o.model, o.weights, &ir) != NPU_OK) {
        rc = report_error(2, "%s: not a readable IR: %s", o.model, npu_context_last_error(ctx));
        goto out;
    }
    if ((rc = apply_layouts(&o, ir, ctx)) != 0) goto out;
    rc = 1;
    char why[NPU_ERROR_MAX + 512];
    int64_t batch = o.batch;
    if (o.n_shapes) {   /* -shape: a batch (as -b) and reshapes of other axes */
        int64_t shape_batch = 0;
        reshape = calloc(npu_ir_input_count(ir) + 1, sizeof *reshape);
        if (reshape == NULL) { rc = report_error(1, "out of memory"); goto out; }
        rc = tool_ir_shape_targets(ir, o.shapes, o.n_shapes, &shape_batch, reshape, why, sizeof why);
        if (rc == 0 && shape_batch && batch && shape_batch != batch)
            rc = tool_why(why, sizeof why, 2, "-b %lld and the batch -shape gives (%lld) differ", (long long)batch,
                          (long long)shape_batch);
        if (rc != 0) {
            rc = report_error(rc, "%s", why);
            goto out;
        }
        if (shape_batch) batch = shape_batch;
        rc = 1;
    }
    if (batch) {
        int64_t original;
        if (npu_ir_set_batch(ir, batch, &original) != NPU_OK) {
            rc = report_error(o.batch ? 2 : 1, "%s %lld: %s", o.batch ? "-b" : "-shape batch", (long long)batch,
                              npu_context_last_error(ctx));
            goto out;
        }
    }
    if (reshape != NULL && tool_ir_reshape(ir, ctx, reshape, &shape_mem, why, sizeof why) != 0) {
        rc = report_error(1, "%s", why);
        goto out;
    }
    if ((rc = apply_precisions(&o, ir, in_types, out_types)) != 0) goto out;
    rc = 1;
    if ((o.ip || o.op || o.iop) && /* apply_precisions filled the tables (at most MAX_IO each) */
        ir_set_precisions(ir, ctx, in_types, npu_ir_input_count(ir), out_types, npu_ir_output_count(ir), &pp_mem, why,
                          sizeof why) != 0) {
        rc = report_error(1, "-ip/-op/-iop: %s", why);
        goto out;
    }

    if (!o.quiet && !o.json) fprintf(stderr, "%s: opening the NPU\n", argv0);
    if (npu_device_open(&dev_arena, ctx, NULL, &dev) != NPU_OK) {
        rc = report_error(1, "opening the NPU: %s (npu-info diagnoses why)", npu_context_last_error(ctx));
        goto out;
    }
    npu_device_properties props;
    if (npu_device_get_properties(dev, &props) != NPU_OK) {
        rc = report_error(1, "npu_device_get_properties: %s", npu_context_last_error(ctx));
        goto out;
    }
    if (o.device) {
        int m = device_matches(o.device, props.platform);
        if (m == 0) {
            rc = report_error(1,
                              "-d %s: the opened NPU is platform %s. npu compiles through the Level Zero "
                              "driver, which targets the device it opened (no off-device target in npu.h): "
                              "compile on a machine with that NPU%s",
                              o.device, props.platform,
                              props.is_simulated ? ", or set NPU_SIM_PLATFORM for the software NPU" : "");
            goto out;
        }
    }

    npu_compile_options copts = {0};
    copts.payload_layout = o.payload;
    copts.weights_threshold_bytes = o.threshold;
    copts.hint = o.hint;
    copts.batch_mode = o.batch_mode;
    copts.extra_config = o.config[0] ? o.config : NULL;
    if (npu_model_compile_ir_size(dev, ir, &copts, &bytes) != NPU_OK) {
        rc = report_error(1, "npu_model_compile_ir_size: %s", npu_context_last_error(ctx));
        goto out;
    }
    model_mem = aligned_block(bytes, &model_arena);
    if (model_mem == NULL) { rc = report_error(1, "out of memory"); goto out; }
    if (!o.quiet && !o.json)
        fprintf(stderr, "%s: compiling %s for %s (platform %s, compiler %u.%u)\n", argv0, o.model, props.name,
                props.platform, props.compiler_version >> 16, props.compiler_version & 0xffff);
    double t0 = now_ms();
    if (npu_model_compile_ir(dev, &model_arena, ir, &copts, &model) != NPU_OK) {
        rc = report_error(1, "compile failed: %s", npu_context_last_error(ctx));
        goto out;
    }
    double compile_ms = now_ms() - t0;
    size_t blob_size = 0;
    if (npu_model_export(model, NULL, 0, &blob_size) != NPU_OK) {
        rc = report_error(1, "export: %s", npu_context_last_error(ctx));
        goto out;
    }
    t0 = now_ms();
    if (npu_model_export_file(model, o.output) != NPU_OK) {
        rc = report_error(1, "writing %s: %s", o.output, npu_context_last_error(ctx));
        goto out;
    }
    double write_ms = now_ms() - t0;
    npu_model_info info;
    if (npu_model_get_info(model, &info) != NPU_OK) {
        rc = report_error(1, "npu_model_get_info: %s", npu_context_last_error(ctx));
        goto out;
    }
    const char *mode = info.batch_mode == NPU_BATCH_PLUGIN     ? "plugin"
                       : info.batch_mode == NPU_BATCH_COMPILER ? "compiler"
                                                               : "none";
    if (o.json) {
        printf("{\"ok\": true, \"exit_code\": 0, \"model\": ");
        json_string(stdout, o.model);
        printf(", \"output\": ");
        json_string(stdout, o.output);
        printf(", \"device\": ");
        json_string(stdout, props.name);
        printf(", \"platform\": ");
        json_string(stdout, props.platform);
        printf(", \"simulated\": %s, \"compiler_version\": \"%u.%u\", \"compile_ms\": %.3f, \"write_ms\": %.3f,"
               " \"blob_bytes\": %zu, \"batch\": %lld, \"batch_mode\": \"%s\", \"inputs\": [",
               props.is_simulated ? "true" : "false", props.compiler_version >> 16, props.compiler_version & 0xffff,
               compile_ms, write_ms, blob_size, (long long)info.original_batch, mode);
        for (uint32_t i = 0; i < npu_model_input_count(model); i++) {
            const npu_tensor_desc *d = npu_model_input(model, i);
            printf("%s{\"name\": ", i ? ", " : "");
            json_string(stdout, d->name);
            printf(", \"type\": \"%s\", \"layout\": ", npu_type_name(d->type));
            json_string(stdout, d->layout);
            printf("}");
        }
        printf("], \"outputs\": [");
        for (uint32_t i = 0; i < npu_model_output_count(model); i++) {
            const npu_tensor_desc *d = npu_model_output(model, i);
            printf("%s{\"name\": ", i ? ", " : "");
            json_string(stdout, d->name);
            printf(", \"type\": \"%s\", \"layout\": ", npu_type_name(d->type));
            json_string(stdout, d->layout);
            printf("}");
        }
        printf("]}\n");
    } else {
        printf("compiled %s in %.2f ms (platform %s, compiler %u.%u%s)\n", o.model, compile_ms, props.platform,
               props.compiler_version >> 16, props.compiler_version & 0xffff,
               props.is_simulated ? ", software NPU" : "");
        if (info.original_batch != 1)
            printf("batch: %lld, %s\n", (long long)info.original_batch, mode);
        for (uint32_t i = 0; i < npu_model_input_count(model); i++) {
            const npu_tensor_desc *d = npu_model_input(model, i);
            printf("  input  %u '%s' %s %s\n", i, d->name, npu_type_name(d->type), d->layout);
        }
        for (uint32_t i = 0; i < npu_model_output_count(model); i++) {
            const npu_tensor_desc *d = npu_model_output(model, i);
            printf("  output %u '%s' %s %s\n", i, d->name, npu_type_name(d->type), d->layout);
        }
        printf("wrote %s: %zu bytes (blob with OVNPU metadata) in %.2f ms\n", o.output, blob_size, write_ms);
    }
    rc = 0;
out:
    npu_model_destroy(model);
    npu_ir_close(ir);
    npu_device_close(dev);
    free(model_mem);
    free(ir_mem);
    free(pp_mem);
    free(shape_mem);
    free(reshape);
    return rc;
}
