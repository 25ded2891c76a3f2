/* npu-run - load a model, run it many times, report latency and throughput
 * (OpenVINO's benchmark_app for one NPU).
 *
 *   npu-run -m model.xml|model.blob|entry.npucache [options]
 *
 * See usage() below for the options; benchmark_app's spellings work
 * (-niter, -nireq, -hint, -shape, -data_shape, -layout, -ip, -op, -iop,
 * -latency_percentile, -json, -d NPU). The model is an OpenVINO IR pair (by the
 * .xml extension or a leading '<') or a compiled blob (anything else: a native
 * blob, optionally with the OVNPU metadata tail of an export, as npu-compile
 * writes; or an entry of npu's model cache, <cache_dir>/<key>.npucache, whose
 * exported blob starts after its 4096-byte header).
 *
 * Order of work: the arguments, the model, weights and input files (stat, open,
 * .npy headers), the output directory, and for an IR the IR itself with the
 * layouts, shapes and precisions asked for and the input data checked against
 * the inputs they predict are all checked before the NPU is opened, so a bad
 * file never waits for a compile. After the compile or import the input data
 * is checked again against the model's real inputs.
 *
 * Exit status: 0 ran; 1 the model could not be loaded, compiled or run as
 * asked (no NPU, the driver or compiler refused it, a foreign blob, a reshape
 * or precision npu cannot apply to this model, an inference or an output write
 * failed); 2 usage error or an input that cannot be used, found before the NPU
 * runs anything (a missing, unreadable, directory or FIFO model, weights or
 * input file, not an IR, a .bin too short for its constants, a corrupt cache
 * entry, a malformed .npy, input data whose size, type or shape does not fit,
 * a name the model does not have). A FIFO is refused before it is opened, so
 * it never blocks. Errors are one line on stderr; with --json also one JSON
 * object on stdout ("ok": false, "error", "exit_code").
 *
 * Timings: "load" is the compile (IR) or import (blob) call; "first inference"
 * is the first synchronous inference after it. Their sum is FEIL (first-ever
 * inference latency: compiled) or FIL (first inference latency: imported).
 * Afterwards -r requests are kept in flight from one thread (start all, then
 * wait/restart them round-robin); a latency is the time from a request's start
 * to the return of its wait. Percentiles are nearest-rank. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "npu.h"
#include "ir_edits.h"

#define MAX_INPUT_FILES 64
#define MAX_SHAPES 64
#define NPY_MAX_HEADER (1u << 20)

/* One -i argument: PATH, or NAME:PATH when PATH alone is not a file. */
typedef struct input_file {
    const char *arg, *path, *name;   /* name: NULL for a positional file */
    size_t name_len;
    uint64_t size;                   /* file bytes */
    int npy;                         /* an .npy file (by its magic) */
    npu_type npy_type;               /* NPU_TYPE_UNDEFINED: a dtype npu has no type for */
    char npy_descr[16];
    npu_shape npy_shape;
    uint64_t data_offset, data_bytes;
} input_file;

typedef tool_shape shape_spec;   /* one entry of -shape / -data_shape (ir_edits.h) */

typedef struct options {
    const char *model, *weights;
    input_file inputs[MAX_INPUT_FILES];
    int n_inputs;
    long iterations;       /* 0: use seconds */
    double seconds;
    int requests;          /* 0: the device's optimum for the hint */
    long batch;            /* 0: as the model says */
    const char *batch_mode, *cache_dir, *device;
    const char *layout;    /* --layout as given (benchmark_app's -layout) */
    const char *shape_arg, *data_shape_arg, *ip, *op, *iop, *dump_dir;
    shape_spec shapes[MAX_SHAPES], data_shapes[MAX_SHAPES];
    int n_shapes, n_data_shapes;
    int percentile;        /* -latency_percentile, 1..100 */
    npu_performance_hint hint;
    int json, quiet;
    int pc;                /* -pc: per-layer performance counts */
    unsigned long seed;
} options;

/* One model input or output as the run sees it. */
typedef struct port {
    npu_tensor_desc d;         /* type and shape (dynamic dims as NPU_DIM_DYNAMIC) */
    const npu_ir_io *io;       /* the IR port (layer and tensor names), or NULL: d.name */
    int file;                  /* inputs: index into options.inputs, -1 for random data */
    npu_shape data;            /* the data: d.shape with dynamic dims set to the data batch */
    uint64_t data_bytes;
    char written[4096];        /* outputs: the file written by --dump-output */
} port;

static const char *argv0 = "npu-run";
static int json_mode;
static const char *json_model;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s -m model.xml|model.blob [options]\n"
            "Runs a model on the NPU many times and reports the first-inference latency,\n"
            "latency statistics and throughput (OpenVINO's benchmark_app for one NPU;\n"
            "its single-dash spellings work too).\n"
            "  -m, --model PATH        OpenVINO IR (.xml), compiled blob, or .npucache entry\n"
            "  -w, --weights PATH      IR weights (default: the .xml's .bin)\n"
            "  -i, --input PATH|NAME:PATH   input data, one file per input (repeat -i):\n"
            "                          an .npy file (dtype and shape must match the input)\n"
            "                          or raw bytes (exactly the input's size); in input\n"
            "                          order, or NAME:PATH by input name. Default: random\n"
            "                          values (see --seed)\n"
            "  -o, --dump-output DIR   write each output of the first inference to\n"
            "                          DIR/<output name>.npy (DIR is created if missing)\n"
            "  -n, -niter N            run N inferences (default 100 unless -t)\n"
            "  -t, --time SECONDS      run for this long instead\n"
            "  -r, -nireq N            requests in flight (default: optimal for the hint)\n"
            "  -b, --batch N           IR only: set the batch of every input to N\n"
            "  -shape SPEC             IR: the input shapes, name[1,3,224,224],other[1,10]\n"
            "                          or [1,3,224,224] for every input: the batch axis (the\n"
            "                          layout's N, else axis 0; one batch for all inputs) and\n"
            "                          any other axis (npu_ir_set_input_shape: a dynamic model\n"
            "                          made static); a blob's shapes must match as they are\n"
            "  -data_shape SPEC        the shape of the input data, same syntax: for a\n"
            "                          dynamic-batch model it sets the batch each inference\n"
            "                          computes (default: the .npy files' batch, else 1)\n"
            "  -layout SPEC            IR only: layouts of inputs/outputs, benchmark_app style:\n"
            "                          name[N,C,H,W] or name[NCHW], comma-separated\n"
            "                          (in1[NCHW],in2[NC]); [N,C] alone: every input and output.\n"
            "                          npu debatches only where every input and output\n"
            "                          has a layout naming N\n"
            "  -ip TYPE, -op TYPE      precision of every input / output: u8 i8 f16 f32 bf16\n"
            "                          i32 i64 boolean (also U8, FP16, FP32, ...)\n"
            "  -iop SPEC               per-name precisions: name:f16,other:u8\n"
            "                          an IR: a Convert between your tensor and the model\n"
            "                          (npu_ir_set_preprocess/_postprocess, as benchmark_app's\n"
            "                          PrePostProcessor); a blob: must match its compiled ones\n"
            "      --batch-mode auto|plugin|compiler   who handles the batch\n"
            "      --cache-dir DIR     import from / store into this model cache\n"
            "  -hint latency|throughput                performance hint\n"
            "  -latency_percentile N   the latency percentile reported (1..100; default 50)\n"
            "  -d NPU[.PLATFORM]       the device (only NPU; a platform must be the opened one)\n"
            "      --seed N            seed of the random inputs (default 1)\n"
            "  -pc, --pc               per-layer performance counts of each request's last\n"
            "                          inference, as benchmark_app -pc prints them (IR only:\n"
            "                          the model is compiled with profiling; at most 64\n"
            "                          requests); with --json in \"performance_counts\"\n"
            "  -json, --json           print the results as one JSON object (also on failure)\n"
            "  -q, --quiet             no progress and no step messages\n"
            "  -h, --help              this text;  --version: npu's version\n"
            "Results go to stdout; progress, warnings and errors (one line each) to stderr.\n"
            "Exit status: 0 ran; 1 the model could not be loaded, compiled or run as asked\n"
            "(no NPU, a compile error, a foreign blob, a reshape or precision npu cannot\n"
            "apply, an output write); 2 usage error or an input that cannot be used, found\n"
            "before the NPU runs (a missing, directory or FIFO file, not an IR, a truncated\n"
            ".bin, a malformed .npy, input data that does not fit the input).\n",
            argv0);
}

static void json_string(const char *s)
{
    putchar('"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

/* One error: a line on stderr, and with --json the JSON object on stdout.
 * Returns `code` (the exit status). */
static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int code, const char *fmt, ...)
{
    char msg[NPU_ERROR_MAX + 1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t n = strlen(msg);   /* one line: compiler logs end in, and may hold, newlines */
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == ' ')) msg[--n] = '\0';
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    fprintf(stderr, "%s: %s\n", argv0, msg);
    if (json_mode) {
        printf("{\"ok\": false, \"exit_code\": %d, \"model\": ", code);
        if (json_model) json_string(json_model);
        else printf("null");
        printf(", \"error\": ");
        json_string(msg);
        printf("}\n");
    }
    return code;
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

/* An IR by extension, else by a leading '<' (XML); everything else is a blob.
 * The path is a regular file (checked before). */
static int is_ir(const char *path)
{
    if (ends_with(path, ".xml")) return 1;
    if (ends_with(path, ".blob") || ends_with(path, ".npucache")) return 0;
    FILE *f = fopen(path, "rb");
    int c = f ? fgetc(f) : EOF;
    while (f && (c == ' ' || c == '\n' || c == '\r' || c == '\t')) c = fgetc(f);
    if (f) fclose(f);
    return c == '<';
}

/* A file the tool reads must be a regular, readable file: opening a FIFO would
 * block, a directory is an easy slip. Returns 0, or 2 after the message. */
static int check_regular(const char *path, const char *what, struct stat *sb_out)
{
    struct stat sb;
    if (stat(path, &sb) != 0) return fail(2, "%s %s: %s", what, path, strerror(errno));
    if (S_ISDIR(sb.st_mode)) return fail(2, "%s %s: is a directory, not a file", what, path);
    if (!S_ISREG(sb.st_mode)) return fail(2, "%s %s: not a regular file", what, path);
    if (access(path, R_OK) != 0) return fail(2, "%s %s: %s", what, path, strerror(errno));
    if (sb_out) *sb_out = sb;
    return 0;
}

static npu_type parse_type(const char *s, size_t len)
{
    static const struct { const char *name; npu_type t; } names[] = {
        {"f32", NPU_F32}, {"fp32", NPU_F32}, {"f16", NPU_F16}, {"fp16", NPU_F16}, {"bf16", NPU_BF16},
        {"i8", NPU_I8},   {"u8", NPU_U8},    {"i32", NPU_I32}, {"i64", NPU_I64},  {"boolean", NPU_BOOL},
        {"bool", NPU_BOOL}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == len && strncasecmp(s, names[i].name, len) == 0) return names[i].t;
    return NPU_TYPE_UNDEFINED;
}

/* ---- -shape / -data_shape ------------------------------------------------- */

/* "name[1,3,224,224],other[1,10]" or "[1,3,224,224]". A dim is a number, or
 * '?' / -1 for a dynamic one; ranges (1..8) are refused. 0, or 2 after a message. */
static int parse_shapes(const char *opt, const char *spec, shape_spec *out, int *n_out)
{
    char why[1024];
    return tool_parse_shapes(opt, spec, out, MAX_SHAPES, n_out, why, sizeof why) != 0 ? fail(2, "%s", why) : 0;
}

/* Does `name` name this port: the model's name for it, or (IR) its layer name
 * or one of its tensor names? */
static int port_named(const port *p, const char *name, size_t len)
{
    if (strlen(p->d.name) == len && strncmp(p->d.name, name, len) == 0) return 1;
    return p->io != NULL && tool_ir_io_named(p->io, name, len);
}

/* ---- .npy files ------------------------------------------------------------- */

static const struct { const char *descr; npu_type t; } npy_types[] = {
    {"<f4", NPU_F32}, {"<f2", NPU_F16}, {"<u2", NPU_BF16}, {"<V2", NPU_BF16}, {"|V2", NPU_BF16},
    {"|i1", NPU_I8},  {"<i1", NPU_I8},  {"|u1", NPU_U8},   {"<u1", NPU_U8},   {"<i4", NPU_I32},
    {"<i8", NPU_I64}, {"|b1", NPU_BOOL}, {"<b1", NPU_BOOL}};

/* The descr npu writes for a type (bf16: its bits as little-endian uint16). */
static const char *npy_descr_of(npu_type t)
{
    switch (t) {
    case NPU_F32: return "<f4";
    case NPU_F16: return "<f2";
    case NPU_BF16: return "<u2";
    case NPU_I8: return "|i1";
    case NPU_U8: return "|u1";
    case NPU_I32: return "<i4";
    case NPU_I64: return "<i8";
    case NPU_BOOL: return "|b1";
    default: return NULL;
    }
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

/* A Python string literal ('...' or "...") without escapes, into dst. */
static const char *npy_str(const char *p, char *dst, size_t cap)
{
    char q = *p;
    if (q != '\'' && q != '"') return NULL;
    const char *end = strchr(p + 1, q);
    if (end == NULL || (size_t)(end - p - 1) >= cap || memchr(p + 1, '\\', (size_t)(end - p - 1))) return NULL;
    memcpy(dst, p + 1, (size_t)(end - p - 1));
    dst[end - p - 1] = '\0';
    return end + 1;
}

/* Parses the header dict of an .npy file (the file is treated as hostile:
 * every length is checked, unknown keys and structured dtypes are refused).
 * 0, or 2 after a message naming the file. */
static int npy_parse(input_file *in, FILE *f)
{
    unsigned char pre[12];
    const char *path = in->path;
    if (in->size < 10 || fread(pre, 1, 10, f) != 10) return fail(2, "input %s: too short for an .npy header", path);
    unsigned major = pre[6], minor = pre[7];
    uint64_t hlen, start;
    if (major == 1) {
        hlen = (uint64_t)pre[8] | (uint64_t)pre[9] << 8;
        start = 10;
    } else if (major == 2 || major == 3) {
        if (in->size < 12 || fread(pre + 10, 1, 2, f) != 2) return fail(2, "input %s: too short for an .npy header", path);
        hlen = (uint64_t)pre[8] | (uint64_t)pre[9] << 8 | (uint64_t)pre[10] << 16 | (uint64_t)pre[11] << 24;
        start = 12;
    } else {
        return fail(2, "input %s: .npy format version %u.%u is not supported (1.0, 2.0, 3.0 are)", path, major, minor);
    }
    if (hlen > NPY_MAX_HEADER)
        return fail(2, "input %s: .npy header of %llu bytes (at most %u)", path, (unsigned long long)hlen, NPY_MAX_HEADER);
    if (start + hlen > in->size)
        return fail(2, "input %s: the .npy header (%llu bytes) runs past the end of the file (%llu bytes)", path,
                    (unsigned long long)hlen, (unsigned long long)in->size);
    char *h = malloc((size_t)hlen + 1);
    if (h == NULL) return fail(2, "input %s: out of memory", path);
    if (fread(h, 1, (size_t)hlen, f) != hlen) {
        free(h);
        return fail(2, "input %s: read error", path);
    }
    h[hlen] = '\0';
    int rc = 0, have_descr = 0, have_order = 0, have_shape = 0, fortran = 0;
    const char *p = skip_ws(h), *why = NULL;
    if (strlen(h) != hlen) { why = "a NUL byte in the header"; goto bad; }
    if (*p++ != '{') { why = "the header is not a dict"; goto bad; }
    for (;;) {
        char key[32];
        p = skip_ws(p);
        if (*p == '}') break;
        if ((p = npy_str(p, key, sizeof key)) == NULL) { why = "expected a quoted key"; goto bad; }
        p = skip_ws(p);
        if (*p++ != ':') { why = "expected ':' after a key"; goto bad; }
        p = skip_ws(p);
        if (strcmp(key, "descr") == 0 && !have_descr) {
            if (*p == '[') { why = "a structured dtype (npu takes one element type)"; goto bad; }
            if ((p = npy_str(p, in->npy_descr, sizeof in->npy_descr)) == NULL) {
                why = "descr is not a dtype string";
                goto bad;
            }
            have_descr = 1;
        } else if (strcmp(key, "fortran_order") == 0 && !have_order) {
            if (strncmp(p, "True", 4) == 0) fortran = 1, p += 4;
            else if (strncmp(p, "False", 5) == 0) p += 5;
            else { why = "fortran_order is not True or False"; goto bad; }
            have_order = 1;
        } else if (strcmp(key, "shape") == 0 && !have_shape) {
            if (*p++ != '(') { why = "shape is not a tuple"; goto bad; }
            for (;;) {
                p = skip_ws(p);
                if (*p == ')') { p++; break; }
                if (*p < '0' || *p > '9') { why = "a shape entry is not a non-negative integer"; goto bad; }
                if (in->npy_shape.rank == NPU_MAX_RANK) { why = "more dims than npu's 8"; goto bad; }
                int64_t v = 0;
                while (*p >= '0' && *p <= '9') {
                    v = v * 10 + (*p++ - '0');
                    if (v > NPU_IR_MAX_DIM_VALUE) { why = "a dim too large"; goto bad; }
                }
                in->npy_shape.dims[in->npy_shape.rank++] = v;
                p = skip_ws(p);
                if (*p == ',') p++;
                else if (*p != ')') { why = "expected ',' or ')' in shape"; goto bad; }
            }
            have_shape = 1;
        } else {
            why = "an unknown or repeated key";
            goto bad;
        }
        p = skip_ws(p);
        if (*p == ',') p++;
        else if (*p != '}') { why = "expected ',' or '}'"; goto bad; }
    }
    p = skip_ws(p + 1);
    if (*p) { why = "bytes after the dict"; goto bad; }
    if (!have_descr || !have_order || !have_shape) { why = "descr, fortran_order or shape is missing"; goto bad; }
    if (in->npy_descr[0] == '>') {
        why = "big-endian data (save it little-endian: arr.astype(arr.dtype.newbyteorder('<')))";
        goto bad;
    }
    in->npy_type = NPU_TYPE_UNDEFINED;
    for (size_t k = 0; k < sizeof npy_types / sizeof npy_types[0]; k++)
        if (strcmp(in->npy_descr, npy_types[k].descr) == 0) in->npy_type = npy_types[k].t;
    if (in->npy_type == NPU_TYPE_UNDEFINED) {
        free(h);
        return fail(2, "input %s: .npy dtype '%s' has no npu type (f4 f2 i1 u1 i4 i8 b1, and u2 for bf16 bits)", path,
                    in->npy_descr);
    }
    int big = 0;
    for (uint32_t k = 0; k < in->npy_shape.rank; k++) big += in->npy_shape.dims[k] > 1;
    if (fortran && big > 1) { why = "fortran_order data (save it C-ordered: np.ascontiguousarray)"; goto bad; }
    uint64_t elems = 1, item = npu_type_size(in->npy_type);
    for (uint32_t k = 0; k < in->npy_shape.rank; k++) {
        uint64_t dim = (uint64_t)in->npy_shape.dims[k];
        if (dim && elems > UINT64_MAX / dim) { why = "a shape whose size overflows"; goto bad; }
        elems *= dim;
    }
    if (elems > UINT64_MAX / item) { why = "a shape whose size overflows"; goto bad; }
    in->data_offset = start + hlen;
    in->data_bytes = elems * item;
    if (in->data_bytes != in->size - in->data_offset) {
        char s[128];
        tool_shape_str(&in->npy_shape, s, sizeof s);
        free(h);
        return fail(2, "input %s: the .npy header says %s %s (%llu bytes of data), the file holds %llu", path, in->npy_descr,
                    s, (unsigned long long)in->data_bytes, (unsigned long long)(in->size - in->data_offset));
    }
    free(h);
    return 0;
bad:
    rc = fail(2, "input %s: malformed .npy header: %s", path, why);
    free(h);
    return rc;
}

/* Checks an -i file before anything else: a readable regular file; an .npy
 * header (by its magic) is parsed. 0, or 2 after a message. */
static int open_input(input_file *in)
{
    struct stat sb;
    in->path = in->arg;
    in->name = NULL;
    const char *colon = strchr(in->arg, ':');
    if (stat(in->arg, &sb) != 0 && colon != NULL && colon > in->arg) {   /* NAME:PATH */
        in->name = in->arg;
        in->name_len = (size_t)(colon - in->arg);
        in->path = colon + 1;
    }
    if (check_regular(in->path, "input", &sb)) return 2;
    in->size = (uint64_t)sb.st_size;
    FILE *f = fopen(in->path, "rb");
    if (f == NULL) return fail(2, "input %s: %s", in->path, strerror(errno));
    unsigned char magic[6];
    size_t got = fread(magic, 1, sizeof magic, f);
    int rc = 0;
    in->npy = got == 6 && memcmp(magic, "\x93NUMPY", 6) == 0;
    if (in->npy) {
        rewind(f);
        rc = npy_parse(in, f);
    } else if (ends_with(in->path, ".npy")) {
        rc = fail(2, "input %s: not an .npy file (no \\x93NUMPY magic)", in->path);
    }
    fclose(f);
    return rc;
}

/* Binds the -i files to the ports (NAME:PATH first, then the rest in input
 * order), sets the data batch (-data_shape, else the .npy files' batch on a
 * dynamic axis, else 1), each port's data shape and bytes, and checks every
 * file against its port. 0, or 2 after a message. */
static int bind_inputs(const options *o, port *ports, uint32_t n, int64_t *data_batch)
{
    for (uint32_t i = 0; i < n; i++) ports[i].file = -1;
    if (o->n_inputs) {
        int positional = 0;
        for (int k = 0; k < o->n_inputs; k++) {
            const input_file *in = &o->inputs[k];
            if (in->name == NULL) { positional++; continue; }
            uint32_t i = 0;
            while (i < n && !port_named(&ports[i], in->name, in->name_len)) i++;
            if (i == n) return fail(2, "-i %s: the model has no input '%.*s'", in->arg, (int)in->name_len, in->name);
            if (ports[i].file >= 0) return fail(2, "-i %s: input '%s' has a file already", in->arg, ports[i].d.name);
            ports[i].file = k;
        }
        uint32_t unbound = 0;
        for (uint32_t i = 0; i < n; i++) unbound += ports[i].file < 0;
        if ((uint32_t)positional != unbound)
            return fail(2, "the model has %u input%s, %d -i file%s given (one per input, or none for random data)", n,
                        n == 1 ? "" : "s", o->n_inputs, o->n_inputs == 1 ? "" : "s");
        int k = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (ports[i].file >= 0) continue;
            while (o->inputs[k].name) k++;
            ports[i].file = k++;
        }
    }

    /* The data batch: the value a data shape gives a dynamic dim. */
    int64_t db = 0;
    char want[128], have[128];
    for (int s = 0; s < o->n_data_shapes; s++) {
        const shape_spec *sp = &o->data_shapes[s];
        int found = 0;
        tool_shape_str(&sp->shape, want, sizeof want);
        for (uint32_t i = 0; i < n; i++) {
            const npu_tensor_desc *d = &ports[i].d;
            if (sp->name && !port_named(&ports[i], sp->name, sp->name_len)) continue;
            found = 1;
            tool_shape_str(&d->shape, have, sizeof have);
            int fits = sp->shape.rank == d->shape.rank;
            for (uint32_t a = 0; fits && a < sp->shape.rank; a++) {
                int64_t w = sp->shape.dims[a], h = d->shape.dims[a];
                if (w == NPU_DIM_DYNAMIC || w < 1) fits = 0;
                else if (h == NPU_DIM_DYNAMIC) {
                    if (db && db != w)
                        return fail(2, "-data_shape: batches %lld and %lld: one data batch for every input", (long long)db,
                                    (long long)w);
                    db = w;
                } else if (w != h) fits = 0;
            }
            if (!fits)
                return fail(2, "-data_shape %s does not fit input '%s' %s (static dims must be equal; use -shape to "
                            "re-batch an IR)", want, d->name, have);
        }
        if (!found) return fail(2, "-data_shape: the model has no input '%.*s'", (int)sp->name_len, sp->name);
    }
    if (o->n_data_shapes == 0)
        for (uint32_t i = 0; i < n; i++) {
            const npu_tensor_desc *d = &ports[i].d;
            if (ports[i].file < 0 || !o->inputs[ports[i].file].npy) continue;
            const npu_shape *ns = &o->inputs[ports[i].file].npy_shape;
            for (uint32_t a = 0; a < d->shape.rank && ns->rank == d->shape.rank; a++)
                if (d->shape.dims[a] == NPU_DIM_DYNAMIC && ns->dims[a] >= 1) {
                    if (db && db != ns->dims[a])
                        return fail(2, "%s: batch %lld, another input's file has %lld: one data batch for every input",
                                    o->inputs[ports[i].file].path, (long long)ns->dims[a], (long long)db);
                    db = ns->dims[a];
                }
        }
    if (db == 0) db = 1;
    *data_batch = db;

    for (uint32_t i = 0; i < n; i++) {
        port *p = &ports[i];
        int dyn = 0;
        p->data = p->d.shape;
        for (uint32_t a = 0; a < p->data.rank; a++)
            if (p->data.dims[a] == NPU_DIM_DYNAMIC) p->data.dims[a] = db, dyn = 1;
        p->data_bytes = dyn ? p->d.bytes * (uint64_t)db : p->d.bytes;
        if (p->file < 0) continue;
        const input_file *in = &o->inputs[p->file];
        tool_shape_str(&p->data, have, sizeof have);
        if (in->npy) {
            int same = in->npy_shape.rank == p->data.rank;
            for (uint32_t a = 0; same && a < p->data.rank; a++) same = in->npy_shape.dims[a] == p->data.dims[a];
            tool_shape_str(&in->npy_shape, want, sizeof want);
            if (in->npy_type != p->d.type || !same)
                return fail(2, "input %s: input '%s' takes %s %s (.npy '%s'), the file holds '%s' %s", in->path,
                            p->d.name, npu_type_name(p->d.type), have,
                            npy_descr_of(p->d.type) ? npy_descr_of(p->d.type) : "?", in->npy_descr, want);
        } else if (in->size != p->data_bytes) {
            return fail(2, "input %s: input '%s' needs exactly %llu bytes (%s %s), the file has %llu", in->path,
                        p->d.name, (unsigned long long)p->data_bytes, npu_type_name(p->d.type), have,
                        (unsigned long long)in->size);
        }
    }
    return 0;
}

static int read_input(const input_file *in, void *dst, uint64_t bytes)
{
    FILE *f = fopen(in->path, "rb");
    if (f == NULL) return fail(2, "input %s: %s", in->path, strerror(errno));
    int ok = fseek(f, (long)in->data_offset, SEEK_SET) == 0 && fread(dst, 1, (size_t)bytes, f) == bytes;
    fclose(f);
    if (!ok) return fail(2, "input %s: read error (the file changed?)", in->path);
    return 0;
}

/* ---- outputs -------------------------------------------------------------- */

/* A file name from an output name: [A-Za-z0-9._-] kept, the rest '_', no
 * leading '.', "output<i>" when empty; unique among the first `i` outputs. */
static void output_file_name(const port *ports, uint32_t i, char *buf, size_t cap)
{
    const char *name = ports[i].d.name;
    size_t k = 0;
    for (; *name && k + 1 < cap && k < 200; name++) {
        char c = *name;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
                 (c == '.' && k > 0);
        buf[k++] = ok ? c : '_';
    }
    buf[k] = '\0';
    if (k == 0) snprintf(buf, cap, "output%u", i);
    for (uint32_t j = 0; j < i; j++) {
        const char *w = strrchr(ports[j].written, '/');
        if (w && strncmp(w + 1, buf, strlen(buf)) == 0 && strcmp(w + 1 + strlen(buf), ".npy") == 0) {
            snprintf(buf + strlen(buf), cap - strlen(buf), "_%u", i);
            break;
        }
    }
}

/* Writes `bytes` of data as DIR/<name>.npy (a temporary file renamed, so a
 * FIFO or a half-written file is never left). 0, or 1 after a message. */
static int write_npy(const char *dir, port *ports, uint32_t i, const void *data)
{
    port *p = &ports[i];
    char name[256], tmp[4200], header[256], shape[160];
    const char *descr = npy_descr_of(p->d.type);
    if (descr == NULL) return fail(1, "--dump-output: output '%s' has type %s, which .npy cannot hold", p->d.name,
                                   npu_type_name(p->d.type));
    output_file_name(ports, i, name, sizeof name);
    size_t dl = strlen(dir);
    while (dl > 0 && dir[dl - 1] == '/') dl--;   /* "/" -> "" + "/name.npy" */
    snprintf(p->written, sizeof p->written, "%.*s/%s.npy", (int)dl, dir, name);
    size_t used = (size_t)snprintf(shape, sizeof shape, "(");
    for (uint32_t a = 0; a < p->data.rank; a++)
        used += (size_t)snprintf(shape + used, sizeof shape - used, "%lld%s", (long long)p->data.dims[a],
                                 p->data.rank == 1 || a + 1 < p->data.rank ? ", " : "");
    snprintf(shape + used, sizeof shape - used, ")");
    int h = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape);
    while ((10 + h + 1) % 64) header[h++] = ' ';   /* pad: data 64-byte aligned, then '\n' */
    header[h++] = '\n';
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(h & 0xff), (unsigned char)(h >> 8)};
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", p->written, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (f == NULL) return fail(1, "--dump-output %s: %s", tmp, strerror(errno));
    int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, (size_t)h, f) == (size_t)h &&
             fwrite(data, 1, (size_t)p->data_bytes, f) == p->data_bytes;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, p->written) != 0) {
        int e = errno;
        unlink(tmp);
        return fail(1, "--dump-output %s: %s", p->written, strerror(e));
    }
    return 0;
}

/* ---- misc ----------------------------------------------------------------- */

/* An npu cache entry (npu.c section 13d): "NPUCACHE", u32 format version at 8,
 * u32 header size at 12, u64 payload size at 48; the payload (an exported
 * blob) follows the header. 1 when the file is an entry (checked), 0 when it is
 * not, 2 (after a message) when it is a broken one. */
static int check_cache_entry(const char *path, uint64_t file_size)
{
    unsigned char head[64];
    FILE *f = fopen(path, "rb");
    if (f == NULL) return fail(2, "model %s: %s", path, strerror(errno));
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    if (got < 8 || memcmp(head, "NPUCACHE", 8) != 0) return 0;
    uint32_t header = 0;
    uint64_t payload = 0;
    if (got == sizeof head) {
        memcpy(&header, head + 12, 4);
        memcpy(&payload, head + 48, 8);
    }
    if (got < sizeof head || header < 272 || payload == 0 || file_size < header || payload > file_size - header)
        return fail(2, "model %s: a truncated or corrupt npu cache entry", path);
    return 1;
}

static int map_cache_entry(const char *path, void **map, size_t *map_size, const void **blob, size_t *size)
{
    struct stat sb;
    uint32_t header;
    uint64_t payload;
    memset(&sb, 0, sizeof sb);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    void *p = MAP_FAILED;
    if (fd >= 0 && fstat(fd, &sb) == 0 && sb.st_size >= 64)
        p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (fd >= 0) close(fd);
    if (p == MAP_FAILED) return fail(1, "model %s: %s", path, strerror(errno));
    memcpy(&header, (const unsigned char *)p + 12, 4);
    memcpy(&payload, (const unsigned char *)p + 48, 8);
    *map = p;
    *map_size = (size_t)sb.st_size;
    if (header > (uint64_t)sb.st_size || payload > (uint64_t)sb.st_size - header)   /* changed since the check */
        return fail(2, "model %s: a truncated or corrupt npu cache entry", path);
    *blob = (const unsigned char *)p + header;
    *size = (size_t)payload;
    return 0;
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
static void fill_random(void *dst, npu_type type, uint64_t bytes)
{
    size_t size = npu_type_size(type) ? npu_type_size(type) : 1;
    size_t n = (size_t)bytes / size;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng_next();
        float f = (float)(r >> 40) / (float)(1 << 23) - 1.0f;
        uint32_t fb;
        memcpy(&fb, &f, 4);
        switch (type) {
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
    if (level == NPU_LOG_ERROR) return;   /* failures are reported with their call */
    fprintf(stderr, "%s: [%s] %s\n", argv0, level == NPU_LOG_WARN ? "warn" : "info", message);
}

/* --layout, benchmark_app's -layout syntax: entries name[LAYOUT] separated by
 * commas, or a lone [LAYOUT] for every input and output. LAYOUT is "NCHW" or
 * "N,C,H,W" (one-letter names) or anything npu_ir_set_layout takes ("N...C").
 * ir NULL: only checks the syntax. Returns 0, or 2 after a message. */
static int apply_layouts(npu_ir *ir, npu_context *ctx, const char *spec)
{
    const char *p = spec;
    if (*p == '\0') return fail(2, "-layout: empty (expected name[LAYOUT] or [LAYOUT])");
    while (*p) {
        const char *open = strchr(p, '['), *close = open ? strchr(open, ']') : NULL;
        char layout[64];
        size_t k = 0, name_len;
        if (open == NULL || close == NULL) return fail(2, "-layout '%s': expected name[LAYOUT] or [LAYOUT]", spec);
        name_len = (size_t)(open - p);
        for (const char *c = open + 1; c < close; c++) {
            if (*c == ',' || *c == ' ') continue;
            if (k + 1 >= sizeof layout) return fail(2, "-layout '%s': layout too long", spec);
            layout[k++] = *c;
        }
        layout[k] = '\0';
        if (ir != NULL) {
            int found = 0;
            for (int out = 0; out < 2; out++) {
                uint32_t n = out ? npu_ir_output_count(ir) : npu_ir_input_count(ir);
                for (uint32_t i = 0; i < n; i++) {
                    const npu_ir_io *io = out ? npu_ir_output(ir, i) : npu_ir_input(ir, i);
                    if (name_len > 0 && !tool_ir_io_named(io, p, name_len)) continue;
                    found = 1;
                    if (npu_ir_set_layout(ir, out, i, layout) != NPU_OK)
                        return fail(2, "-layout: %s", npu_context_last_error(ctx));
                }
            }
            if (!found) return fail(2, "-layout: the model has no input or output '%.*s'", (int)name_len, p);
        }
        p = close + 1;
        if (*p == ',') p++;
        else if (*p != '\0') return fail(2, "-layout '%s': expected ',' after ']'", spec);
    }
    return 0;
}

/* -ip / -op / -iop into per-index types (NPU_TYPE_UNDEFINED: as the model
 * says). find(ports of inputs, then outputs). 0, or 2 after a message. */
static int resolve_precisions(const options *o, const port *in, uint32_t n_in, const port *out, uint32_t n_out,
                              npu_type *in_types, npu_type *out_types)
{
    npu_type ip = o->ip ? parse_type(o->ip, strlen(o->ip)) : NPU_TYPE_UNDEFINED;
    npu_type op = o->op ? parse_type(o->op, strlen(o->op)) : NPU_TYPE_UNDEFINED;
    for (uint32_t i = 0; i < n_in; i++) in_types[i] = ip;
    for (uint32_t i = 0; i < n_out; i++) out_types[i] = op;
    for (const char *p = o->iop; p && *p;) {
        size_t item = strcspn(p, ",");
        const char *colon = memchr(p, ':', item);
        if (colon == NULL) return fail(2, "-iop '%.*s': expected name:TYPE", (int)item, p);
        size_t nl = (size_t)(colon - p);
        npu_type t = parse_type(colon + 1, item - nl - 1);
        if (t == NPU_TYPE_UNDEFINED) return fail(2, "-iop: unknown precision '%.*s'", (int)(item - nl - 1), colon + 1);
        uint32_t i = 0;
        while (i < n_in && !port_named(&in[i], p, nl)) i++;
        if (i < n_in) in_types[i] = t;
        else {
            i = 0;
            while (i < n_out && !port_named(&out[i], p, nl)) i++;
            if (i == n_out) return fail(2, "-iop: the model has no input or output '%.*s'", (int)nl, p);
            out_types[i] = t;
        }
        p += item + (p[item] == ',');
    }
    return 0;
}

/* "NPU" or "NPU.<platform>" against the opened device ("50xx" matches 5010);
 * -1 when the name is not an NPU at all. */
static int device_matches(const char *want, const char *have)
{
    if (strncasecmp(want, "NPU", 3) != 0) return -1;
    if (want[3] == '\0') return 1;
    if (want[3] != '.' || want[4] == '\0') return -1;
    want += 4;
    if (strcmp(want, have) == 0) return 1;
    size_t n = strlen(have);
    if (n == 4 && strcmp(have + 2, "xx") == 0 && strlen(want) == 4 && strncmp(want, have, 2) == 0) return 1;
    return 0;
}

static const char *mode_name(npu_batch_mode m)
{
    return m == NPU_BATCH_PLUGIN ? "PLUGIN" : m == NPU_BATCH_COMPILER ? "COMPILER" : "AUTO";
}

/* ---- arguments ------------------------------------------------------------ */

static int parse_args(int argc, char **argv, options *o)
{
    enum { OPT_BATCH_MODE = 256, OPT_CACHE_DIR, OPT_HINT, OPT_JSON, OPT_SEED, OPT_LAYOUT, OPT_SHAPE, OPT_DATA_SHAPE,
           OPT_IP, OPT_OP, OPT_IOP, OPT_PERCENTILE, OPT_VERSION, OPT_PC };
    /* benchmark_app's single-dash long options: getopt_long_only takes both. */
    static const struct option longs[] = {
        {"model", required_argument, NULL, 'm'},     {"weights", required_argument, NULL, 'w'},
        {"input", required_argument, NULL, 'i'},     {"iterations", required_argument, NULL, 'n'},
        {"niter", required_argument, NULL, 'n'},     {"time", required_argument, NULL, 't'},
        {"requests", required_argument, NULL, 'r'},  {"nireq", required_argument, NULL, 'r'},
        {"batch", required_argument, NULL, 'b'},     {"batch-mode", required_argument, NULL, OPT_BATCH_MODE},
        {"cache-dir", required_argument, NULL, OPT_CACHE_DIR}, {"hint", required_argument, NULL, OPT_HINT},
        {"json", no_argument, NULL, OPT_JSON},       {"seed", required_argument, NULL, OPT_SEED},
        {"layout", required_argument, NULL, OPT_LAYOUT}, {"shape", required_argument, NULL, OPT_SHAPE},
        {"data_shape", required_argument, NULL, OPT_DATA_SHAPE}, {"ip", required_argument, NULL, OPT_IP},
        {"op", required_argument, NULL, OPT_OP},     {"iop", required_argument, NULL, OPT_IOP},
        {"latency_percentile", required_argument, NULL, OPT_PERCENTILE},
        {"dump-output", required_argument, NULL, 'o'}, {"device", required_argument, NULL, 'd'},
        {"version", no_argument, NULL, OPT_VERSION}, {"pc", no_argument, NULL, OPT_PC},
        {"quiet", no_argument, NULL, 'q'},           {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->percentile = 50;
    for (int i = 1; i < argc; i++)   /* --json first, so that usage errors are JSON too */
        if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "-json") == 0) json_mode = 1;
    opterr = 0;
    int c, idx = -1;
    char *end;
    while ((c = getopt_long_only(argc, argv, ":m:w:i:n:t:r:b:o:d:qh", longs, &idx)) != -1) {
        errno = 0;
        switch (c) {
        case 'm': o->model = optarg; break;
        case 'w': o->weights = optarg; break;
        case 'i':
            if (o->n_inputs == MAX_INPUT_FILES) return fail(2, "more than %d -i files", MAX_INPUT_FILES);
            o->inputs[o->n_inputs++].arg = optarg;
            break;
        case 'n': o->iterations = strtol(optarg, &end, 10); if (*end || o->iterations < 1) goto bad; break;
        case 't': o->seconds = strtod(optarg, &end); if (*end || !(o->seconds > 0) || o->seconds > 1e7) goto bad; break;
        case 'r':
            o->requests = (int)strtol(optarg, &end, 10);
            if (*end || o->requests < 1 || o->requests > 256) goto bad;
            break;
        case 'b': o->batch = strtol(optarg, &end, 10); if (*end || o->batch < 1) goto bad; break;
        case 'o': o->dump_dir = optarg; if (!*optarg) goto bad; break;
        case 'd': o->device = optarg; if (device_matches(optarg, "") < 0) goto bad; break;
        case OPT_BATCH_MODE:
            if (strcmp(optarg, "auto") && strcmp(optarg, "plugin") && strcmp(optarg, "compiler")) goto bad;
            o->batch_mode = optarg;
            break;
        case OPT_CACHE_DIR: o->cache_dir = optarg; break;
        case OPT_LAYOUT:
            if (apply_layouts(NULL, NULL, optarg) != 0) return 2;
            o->layout = optarg;
            break;
        case OPT_SHAPE:
            if (parse_shapes("-shape", optarg, o->shapes, &o->n_shapes)) return 2;
            o->shape_arg = optarg;
            break;
        case OPT_DATA_SHAPE:
            if (parse_shapes("-data_shape", optarg, o->data_shapes, &o->n_data_shapes)) return 2;
            o->data_shape_arg = optarg;
            break;
        case OPT_IP: o->ip = optarg; if (parse_type(optarg, strlen(optarg)) == NPU_TYPE_UNDEFINED) goto bad; break;
        case OPT_OP: o->op = optarg; if (parse_type(optarg, strlen(optarg)) == NPU_TYPE_UNDEFINED) goto bad; break;
        case OPT_IOP: o->iop = optarg; break;
        case OPT_PERCENTILE:
            o->percentile = (int)strtol(optarg, &end, 10);
            if (*end || o->percentile < 1 || o->percentile > 100) goto bad;
            break;
        case OPT_HINT:
            if (strcasecmp(optarg, "latency") == 0) o->hint = NPU_HINT_LATENCY;
            else if (strcasecmp(optarg, "throughput") == 0) o->hint = NPU_HINT_THROUGHPUT;
            else goto bad;
            break;
        case OPT_JSON: o->json = 1; break;
        case OPT_PC: o->pc = 1; break;
        case OPT_SEED: o->seed = strtoul(optarg, &end, 10); if (*end) goto bad; break;
        case OPT_VERSION: printf("npu-run (npu) %s\n", npu_version_string()); exit(0);
        case 'q': o->quiet = 1; break;
        case 'h': usage(stdout); exit(0);
        case ':': return fail(2, "option %s needs a value (see --help)", argv[optind - 1]);
        default: return fail(2, "unknown option %s (see --help)", argv[optind - 1]);
        }
        if (errno) goto bad;
        idx = -1;
        continue;
    bad:
        if (idx >= 0) return fail(2, "bad value '%s' for -%s (see --help)", optarg, longs[idx].name);
        return fail(2, "bad value '%s' for -%c (see --help)", optarg, c);
    }
    if (optind != argc) return fail(2, "unexpected argument '%s' (see --help)", argv[optind]);
    if (o->model == NULL) {
        if (!json_mode) usage(stderr);
        return fail(2, "-m MODEL is required");
    }
    if (o->batch && o->n_shapes) return fail(2, "give -b or -shape, not both");
    if (o->iterations == 0 && o->seconds == 0) o->iterations = 100;
    if (o->pc && o->requests > NPU_MAX_PROFILED_REQUESTS)
        return fail(2, "-pc: at most %d requests (-nireq)", NPU_MAX_PROFILED_REQUESTS);
    return 0;
}

/* -pc: each request's per-layer table, as benchmark_app's
 * printPerformanceCounts prints ov::ProfilingInfo (samples/cpp/common/utils
 * common.hpp: name in 30 columns, cut to 25 + "..."; status in 15; layerType and
 * execType in 30; real and cpu time in ms in 25; then the total of the real
 * times), or as JSON. Returns 0, or 1 with the error reported. */
static int print_pc(npu_context *ctx, npu_request **req, int n_req, int json)
{
    static const char *const status[] = {"?", "NOT_RUN", "OPTIMIZED_OUT", "EXECUTED"};
    if (json) printf(", \"performance_counts\": [");
    for (int r = 0; r < n_req; r++) {
        size_t bytes = 0;
        npu_arena arena;
        npu_layer_profile *t = NULL;
        uint32_t n = 0;
        if (npu_request_profile_size(req[r], &bytes) != NPU_OK)
            return fail(1, "npu_request_profile_size: %s", npu_context_last_error(ctx));
        void *mem = aligned_block(bytes, &arena);
        if (mem == NULL) return fail(1, "out of memory");
        if (npu_request_profile(req[r], &arena, &t, &n) != NPU_OK) {
            free(mem);
            return fail(1, "npu_request_profile: %s", npu_context_last_error(ctx));
        }
        uint64_t total_us = 0;
        if (json) printf("%s{\"request\": %d, \"layers\": [", r ? ", " : "", r);
        else printf("Performance counts for %d-th infer request:\n", r);
        for (uint32_t i = 0; i < n; i++) {
            const char *st = (unsigned)t[i].status < 4 ? status[t[i].status] : "?";
            total_us += t[i].real_time_us;
            if (json) {
                printf("%s{\"name\": ", i ? ", " : "");
                json_string(t[i].name);
                printf(", \"type\": ");
                json_string(t[i].type);
                printf(", \"exec_type\": \"%s\", \"status\": \"%s\", \"real_time_us\": %llu, \"cpu_time_us\": %llu,"
                       " \"real_time_ns\": %llu, \"cpu_time_ns\": %llu}", t[i].exec_type, st,
                       (unsigned long long)t[i].real_time_us, (unsigned long long)t[i].cpu_time_us,
                       (unsigned long long)t[i].real_time_ns, (unsigned long long)t[i].cpu_time_ns);
                continue;
            }
            char name[32], col[96];
            if (strlen(t[i].name) >= 30) snprintf(name, sizeof name, "%.25s...", t[i].name);
            else snprintf(name, sizeof name, "%s", t[i].name);
            printf("%-30s %-15s", name, st[0] == 'E' ? "EXECUTED " : st[0] == 'N' ? "NOT_RUN " : "OPTIMIZED_OUT ");
            snprintf(col, sizeof col, "layerType: %s ", t[i].type);
            printf("%-30s", col);
            snprintf(col, sizeof col, "execType: %s ", t[i].exec_type);
            printf("%-30s", col);
            snprintf(col, sizeof col, "realTime (ms): %f ", (double)t[i].real_time_us / 1000.0);
            printf("%-25s", col);
            snprintf(col, sizeof col, "cpuTime (ms): %f ", (double)t[i].cpu_time_us / 1000.0);
            printf("%-25s\n", col);
        }
        if (json) {
            printf("], \"total_us\": %llu}", (unsigned long long)total_us);
        } else {
            char col[64];
            snprintf(col, sizeof col, "Total time: %f", (double)total_us / 1000.0);
            printf("%-25s milliseconds\n\n", col);
        }
        free(mem);
    }
    if (json) printf("]");
    return 0;
}

/* ---- main ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    static options o;
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc;
    json_model = o.model;
    rng_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)o.seed;
    if (rng_state == 0) rng_state = 1;
    int verbose = !o.quiet && !o.json, progress = !o.quiet;

    /* Everything that can be checked without the NPU, cheapest first. */
    struct stat msb;
    if (check_regular(o.model, "model", &msb)) return 2;
    int from_blob = !is_ir(o.model), is_entry = 0;
    if (o.pc && from_blob)
        return fail(2, "-pc needs an IR: the model is compiled with profiling (a blob is imported as it is)");
    if (!from_blob) {   /* the weights too: given, or the .bin beside the .xml if present */
        char bin[4096];
        struct stat sb;
        size_t n = strlen(o.model);
        if (ends_with(o.model, ".xml")) n -= 4;
        snprintf(bin, sizeof bin, "%.*s.bin", (int)n, o.model);
        if (o.weights ? check_regular(o.weights, "weights", NULL) != 0
                      : stat(bin, &sb) == 0 && check_regular(bin, "weights", NULL) != 0)
            return 2;
    } else {
        if (msb.st_size == 0) return fail(2, "model %s: an empty file, not a blob", o.model);
        if ((is_entry = check_cache_entry(o.model, (uint64_t)msb.st_size)) > 1) return 2;
    }
    for (int k = 0; k < o.n_inputs; k++)
        if (open_input(&o.inputs[k])) return 2;
    if (o.dump_dir) {
        struct stat sb;
        if (stat(o.dump_dir, &sb) != 0) {
            if (errno != ENOENT || mkdir(o.dump_dir, 0777) != 0)
                return fail(2, "--dump-output %s: %s", o.dump_dir, strerror(errno));
        } else if (!S_ISDIR(sb.st_mode)) {
            return fail(2, "--dump-output %s: exists and is not a directory", o.dump_dir);
        } else if (access(o.dump_dir, W_OK | X_OK) != 0) {
            return fail(2, "--dump-output %s: %s", o.dump_dir, strerror(errno));
        }
    }

    static _Alignas(NPU_ARENA_ALIGN) unsigned char dev_memory[64 * 1024];
    npu_arena dev_arena, ir_arena, model_arena, req_arena;
    void *ir_mem = NULL, *pp_mem = NULL, *shape_mem = NULL, *model_mem = NULL, *req_mem = NULL;
    npu_shape *reshape = NULL;   /* -shape: the inputs to reshape (rank 0: none) */
    npu_context *ctx;
    npu_context_options co = {.log = log_to_stderr, .log_user_data = NULL, .log_level = o.quiet ? NPU_LOG_ERROR : NPU_LOG_WARN};
    npu_arena_init(&dev_arena, dev_memory, sizeof dev_memory);
    if (npu_context_create(&dev_arena, &co, &ctx) != NPU_OK) return fail(1, "cannot create a context");

    npu_device *dev = NULL;
    npu_ir *ir = NULL;
    npu_model *model = NULL;
    npu_request **req = NULL;
    double *lat = NULL, *started = NULL;
    port *in_ports = NULL, *out_ports = NULL;
    npu_type *in_types = NULL, *out_types = NULL;
    int n_req = 0;
    void *entry_map = NULL;
    size_t entry_map_size = 0;
    int64_t data_batch = 1;
    rc = 1;

    npu_compile_options copts = {0};
    copts.hint = o.hint;
    if (o.batch_mode)
        copts.batch_mode = strcmp(o.batch_mode, "plugin") == 0     ? NPU_BATCH_PLUGIN
                           : strcmp(o.batch_mode, "compiler") == 0 ? NPU_BATCH_COMPILER
                                                                   : NPU_BATCH_AUTO;
    copts.cache_dir = o.cache_dir;
    if (o.pc) copts.profiled_requests = o.requests ? (uint32_t)o.requests : NPU_MAX_PROFILED_REQUESTS;
    if (!from_blob) {
        /* The IR, with what the options change, and the input data against the
         * inputs it predicts: all before the NPU is opened. */
        static _Alignas(16) unsigned char ir_size_mem[NPU_IR_SIZE_SCRATCH];   /* the size scan's scratch */
        npu_arena ir_size_scratch;
        npu_arena_init(&ir_size_scratch, ir_size_mem, sizeof ir_size_mem);
        size_t bytes;
        if (npu_ir_size_file(&ir_size_scratch, ctx, o.model, &bytes) != NPU_OK) {
            rc = fail(2, "%s: not a readable IR: %s", o.model, npu_context_last_error(ctx));
            goto out;
        }
        ir_mem = aligned_block(bytes, &ir_arena);
        if (ir_mem == NULL) { rc = fail(1, "out of memory"); goto out; }
        if (npu_ir_open(&ir_arena, ctx, o.model, o.weights, &ir) != NPU_OK) {
            rc = fail(2, "%s: not a readable IR: %s", o.model, npu_context_last_error(ctx));
            goto out;
        }
        if (o.layout && (rc = apply_layouts(ir, ctx, o.layout)) != 0) goto out;
        int64_t batch = o.batch;
        reshape = calloc(npu_ir_input_count(ir) + 1, sizeof *reshape);
        if (reshape == NULL) { rc = fail(1, "out of memory"); goto out; }
        char why[NPU_ERROR_MAX + 512];
        if (o.n_shapes && (rc = tool_ir_shape_targets(ir, o.shapes, o.n_shapes, &batch, reshape, why, sizeof why)) != 0) {
            rc = fail(rc, "%s", why);
            goto out;
        }
        rc = 1;
        if (batch) {
            int64_t original;
            if (npu_ir_set_batch(ir, batch, &original) != NPU_OK) {
                rc = fail(1, "%s %lld: %s", o.batch ? "-b" : "-shape batch", (long long)batch, npu_context_last_error(ctx));
                goto out;
            }
            if (verbose) printf("batch: %lld (the IR declares %lld)\n", (long long)batch, (long long)original);
        }
        if ((rc = tool_ir_reshape(ir, ctx, reshape, &shape_mem, why, sizeof why)) != 0) {
            rc = fail(rc, "%s", why);
            goto out;
        }
        rc = 1;
        uint32_t ni = npu_ir_input_count(ir), no = npu_ir_output_count(ir);
        in_ports = calloc(ni ? ni : 1, sizeof *in_ports);
        out_ports = calloc(no ? no : 1, sizeof *out_ports);
        in_types = calloc(ni ? ni : 1, sizeof *in_types);
        out_types = calloc(no ? no : 1, sizeof *out_types);
        if (!in_ports || !out_ports || !in_types || !out_types) { rc = fail(1, "out of memory"); goto out; }
        for (uint32_t k = 0; k < ni + no; k++) {
            port *p = k < ni ? &in_ports[k] : &out_ports[k - ni];
            p->io = k < ni ? npu_ir_input(ir, k) : npu_ir_output(ir, k - ni);
            p->d = p->io->desc;
        }
        if ((rc = resolve_precisions(&o, in_ports, ni, out_ports, no, in_types, out_types)) != 0) goto out;
        if (ir_set_precisions(ir, ctx, in_types, ni, out_types, no, &pp_mem, why, sizeof why) != 0) {
            rc = fail(1, "-ip/-op/-iop: %s", why);
            goto out;
        }
        /* The inputs the compile will give: the batch on the batch axis, the
         * precision asked for. */
        for (uint32_t i = 0; i < ni; i++) {
            npu_tensor_desc *d = &in_ports[i].d;
            if (batch && in_ports[i].io->batch_axis >= 0 && (uint32_t)in_ports[i].io->batch_axis < d->shape.rank)
                d->shape.dims[in_ports[i].io->batch_axis] = batch;
            if (in_types[i] != NPU_TYPE_UNDEFINED) d->type = in_types[i];
            npu_shape s1 = d->shape;
            for (uint32_t a = 0; a < s1.rank; a++)
                if (s1.dims[a] == NPU_DIM_DYNAMIC) s1.dims[a] = 1;
            if (npu_type_size(d->type)) d->bytes = npu_shape_elements(&s1) * npu_type_size(d->type);
        }
        if ((rc = bind_inputs(&o, in_ports, ni, &data_batch)) != 0) goto out;
        rc = 1;
    }

    if (npu_device_open(&dev_arena, ctx, NULL, &dev) != NPU_OK) {
        rc = fail(1, "opening the NPU: %s (npu-info diagnoses why)", npu_context_last_error(ctx));
        goto out;
    }
    npu_device_properties props;
    if (npu_device_get_properties(dev, &props) != NPU_OK) {
        rc = fail(1, "npu_device_get_properties: %s", npu_context_last_error(ctx));
        goto out;
    }
    if (o.device && device_matches(o.device, props.platform) == 0) {
        rc = fail(1, "-d %s: the opened NPU is platform %s", o.device, props.platform);
        goto out;
    }
    if (verbose)
        printf("device: %s (platform %s%s), compiler %u.%u\n", props.name, props.platform,
               props.is_simulated ? ", software NPU" : "", props.compiler_version >> 16,
               props.compiler_version & 0xffff);

    double t_load0 = now_ms(), t_load = 0;
    if (from_blob) {
        if (o.batch && progress) fprintf(stderr, "%s: -b is ignored for a blob (its batch is compiled in)\n", argv0);
        if ((o.batch_mode || o.cache_dir || o.layout) && progress)
            fprintf(stderr, "%s: --batch-mode, --cache-dir and -layout apply to IR models; ignored for a blob\n", argv0);
        npu_import_options io = {0};
        const void *entry = NULL;
        size_t entry_size = 0, need = 0;
        if (is_entry) {
            if ((rc = map_cache_entry(o.model, &entry_map, &entry_map_size, &entry, &entry_size)) != 0) goto out;
            rc = 1;
            if (verbose) printf("model: %s is an npu cache entry: importing its blob\n", o.model);
        }
        /* The exact arena the import needs (npu_model_import_size), not a
         * worst case for NPU_MAX_ARGS arguments. */
        if ((is_entry ? npu_model_import_size(dev, entry, entry_size, &io, &need)
                      : npu_model_import_file_size(dev, o.model, &io, &need)) != NPU_OK) {
            rc = fail(1, "%s: import failed: %s", o.model, npu_context_last_error(ctx));
            goto out;
        }
        model_mem = aligned_block(need, &model_arena);
        if (model_mem == NULL) { rc = fail(1, "out of memory"); goto out; }
        if (verbose) printf("model arena: %zu bytes (npu_model_import_size)\n", need);
        if (progress) fprintf(stderr, "%s: importing %s\n", argv0, o.model);
        t_load0 = now_ms();
        if (is_entry) {
            if (npu_model_import(dev, &model_arena, entry, entry_size, &io, &model) != NPU_OK) {
                rc = fail(1, "%s: import failed: %s", o.model, npu_context_last_error(ctx));
                goto out;
            }
        } else if (npu_model_import_file(dev, &model_arena, o.model, &io, &model) != NPU_OK) {
            rc = fail(1, "%s: import failed: %s", o.model, npu_context_last_error(ctx));
            goto out;
        }
        t_load = now_ms() - t_load0;
    } else {
        size_t bytes;
        if (npu_model_compile_ir_size(dev, ir, &copts, &bytes) != NPU_OK) {
            rc = fail(1, "npu_model_compile_ir_size: %s", npu_context_last_error(ctx));
            goto out;
        }
        model_mem = aligned_block(bytes, &model_arena);
        if (model_mem == NULL) { rc = fail(1, "out of memory"); goto out; }
        if (progress) fprintf(stderr, "%s: compiling %s\n", argv0, o.model);
        t_load0 = now_ms();   /* compile time only: not the IR scan */
        if (npu_model_compile_ir(dev, &model_arena, ir, &copts, &model) != NPU_OK) {
            rc = fail(1, "%s: compile failed: %s", o.model, npu_context_last_error(ctx));
            goto out;
        }
        t_load = now_ms() - t_load0;
    }
    npu_model_info info;
    if (npu_model_get_info(model, &info) != NPU_OK) {
        rc = fail(1, "npu_model_get_info: %s", npu_context_last_error(ctx));
        goto out;
    }
    int fil = from_blob || info.from_cache;   /* FIL: the model was imported, not compiled */

    /* The model's real inputs and outputs: the options and the data again. */
    uint32_t n_in = npu_model_input_count(model), n_out = npu_model_output_count(model);
    free(in_ports);
    free(out_ports);
    free(in_types);
    free(out_types);
    in_ports = calloc(n_in ? n_in : 1, sizeof *in_ports);
    out_ports = calloc(n_out ? n_out : 1, sizeof *out_ports);
    in_types = calloc(n_in ? n_in : 1, sizeof *in_types);
    out_types = calloc(n_out ? n_out : 1, sizeof *out_types);
    if (!in_ports || !out_ports || !in_types || !out_types) { rc = fail(1, "out of memory"); goto out; }
    /* An IR stays open for its port names (layer and tensor names). */
    int ir_names = ir && npu_ir_input_count(ir) == n_in && npu_ir_output_count(ir) == n_out;
    for (uint32_t i = 0; i < n_in; i++) {
        in_ports[i].d = *npu_model_input(model, i);
        in_ports[i].io = ir_names ? npu_ir_input(ir, i) : NULL;
    }
    for (uint32_t i = 0; i < n_out; i++) {
        out_ports[i].d = *npu_model_output(model, i);
        out_ports[i].io = ir_names ? npu_ir_output(ir, i) : NULL;
    }
    if (from_blob) {
        /* A blob's shapes and precisions are compiled in: they can only match. */
        if ((rc = resolve_precisions(&o, in_ports, n_in, out_ports, n_out, in_types, out_types)) != 0) goto out;
        for (uint32_t k = 0; k < n_in + n_out; k++) {
            const port *p = k < n_in ? &in_ports[k] : &out_ports[k - n_in];
            npu_type t = k < n_in ? in_types[k] : out_types[k - n_in];
            if (t != NPU_TYPE_UNDEFINED && t != p->d.type) {
                rc = fail(1, "%s '%s' of the blob is %s, %s asks %s: a blob's precisions are compiled in "
                          "(compile the IR with them: npu-compile -ip/-op)",
                          k < n_in ? "input" : "output", p->d.name, npu_type_name(p->d.type),
                          k < n_in ? "-ip/-iop" : "-op/-iop", npu_type_name(t));
                goto out;
            }
        }
        for (int s = 0; s < o.n_shapes; s++) {
            const shape_spec *sp = &o.shapes[s];
            int found = 0;
            for (uint32_t i = 0; i < n_in; i++) {
                const npu_tensor_desc *d = &in_ports[i].d;
                if (sp->name && !port_named(&in_ports[i], sp->name, sp->name_len)) continue;
                found = 1;
                int same = sp->shape.rank == d->shape.rank;
                for (uint32_t a = 0; same && a < d->shape.rank; a++) same = sp->shape.dims[a] == d->shape.dims[a];
                if (!same) {
                    char want[128], have[128];
                    tool_shape_str(&sp->shape, want, sizeof want);
                    tool_shape_str(&d->shape, have, sizeof have);
                    rc = fail(1, "-shape %s: input '%s' of the blob is %s: a blob's shapes are compiled in "
                              "(reshape the IR, or -data_shape for a dynamic batch)", want, d->name, have);
                    goto out;
                }
            }
            if (!found) { rc = fail(2, "-shape: the model has no input '%.*s'", (int)sp->name_len, sp->name); goto out; }
        }
    }
    if ((rc = bind_inputs(&o, in_ports, n_in, &data_batch)) != 0) goto out;
    rc = 1;
    int dynamic = info.original_batch == NPU_DIM_DYNAMIC;
    if (data_batch > 1 && !dynamic) {
        rc = fail(1, "a data batch of %lld needs a dynamic-batch model; this one is not (%s)", (long long)data_batch,
                  info.batch_reason);
        goto out;
    }
    if (data_batch > 4096) { rc = fail(2, "a data batch of %lld (at most 4096)", (long long)data_batch); goto out; }
    for (uint32_t i = 0; i < n_out; i++) {
        port *p = &out_ports[i];
        int dyn = 0;
        p->data = p->d.shape;
        for (uint32_t a = 0; a < p->data.rank; a++)
            if (p->data.dims[a] == NPU_DIM_DYNAMIC) p->data.dims[a] = data_batch, dyn = 1;
        p->data_bytes = dyn ? p->d.bytes * (uint64_t)data_batch : p->d.bytes;
    }

    if (verbose) {
        printf("model: %s (%s in %.2f ms)\n", o.model,
               from_blob ? "imported" : info.from_cache ? "from the cache" : "compiled", t_load);
        if (info.original_batch != 1)
            printf("batch: %s%lld, %s\n", info.original_batch < 0 ? "dynamic " : "",
                   (long long)(info.original_batch < 0 ? data_batch : info.original_batch),
                   info.batch_mode == NPU_BATCH_PLUGIN ? "debatched by npu (PLUGIN)" : "handled by the compiler (COMPILER)");
        printf("batch mode: %s (asked: %s): %s\n", info.batch_mode == NPU_BATCH_AUTO ? "none" : mode_name(info.batch_mode),
               mode_name(info.requested_mode), info.batch_reason);
        char shape[128];
        for (uint32_t i = 0; i < n_in; i++) {
            const npu_tensor_desc *d = &in_ports[i].d;
            tool_shape_str(&d->shape, shape, sizeof shape);
            printf("  input  %u '%s' %s %s %s\n", i, d->name, npu_type_name(d->type), shape, d->layout);
        }
        for (uint32_t i = 0; i < n_out; i++) {
            const npu_tensor_desc *d = &out_ports[i].d;
            tool_shape_str(&d->shape, shape, sizeof shape);
            printf("  output %u '%s' %s %s %s\n", i, d->name, npu_type_name(d->type), shape, d->layout);
        }
        for (uint32_t i = 0; i < n_in; i++) {
            tool_shape_str(&in_ports[i].data, shape, sizeof shape);
            if (in_ports[i].file >= 0)
                printf("data: input '%s' %s from %s\n", in_ports[i].d.name, shape, o.inputs[in_ports[i].file].path);
        }
        if (o.n_inputs == 0 && n_in) printf("data: random (--seed %lu)\n", o.seed);
    }

    /* Requests: all from one arena, sized exactly. */
    n_req = o.requests ? o.requests : (int)npu_device_optimal_requests(dev, o.hint);
    if (n_req < 1) n_req = 1;
    npu_request_options ropts = {0};
    ropts.max_batch = dynamic ? (uint32_t)data_batch : 0;
    size_t one = NPU_ARENA_ROUND(npu_request_size(model, &ropts));
    req_mem = aligned_block(one * (size_t)n_req, &req_arena);
    req = calloc((size_t)n_req, sizeof *req);
    if (req == NULL || req_mem == NULL) { rc = fail(1, "out of memory"); goto out; }
    for (int r = 0; r < n_req; r++) {
        if (npu_request_create(model, &req_arena, &ropts, &req[r]) != NPU_OK) {
            rc = fail(1, "npu_request_create: %s", npu_context_last_error(ctx));
            goto out;
        }
        for (uint32_t i = 0; i < n_in; i++) {
            const port *p = &in_ports[i];
            void *dst = npu_request_input(req[r], i);
            if (r > 0) memcpy(dst, npu_request_input(req[0], i), (size_t)p->data_bytes);
            else if (p->file >= 0) { if ((rc = read_input(&o.inputs[p->file], dst, p->data_bytes)) != 0) goto out; }
            else fill_random(dst, p->d.type, p->data_bytes);
        }
    }
    /* Frames per inference: the batch the model says it has (a layout naming
     * N), or the data batch of a dynamic one; never axis 0 of a layout-less
     * input (a weights input [490,608,1,1] is not a batch of 490). */
    int64_t frames = dynamic ? data_batch : info.original_batch > 1 ? info.original_batch : 1;

    double t_first0 = now_ms();
    if (npu_request_infer(req[0]) != NPU_OK) {
        rc = fail(1, "the first inference failed: %s", npu_context_last_error(ctx));
        goto out;
    }
    double t_first = now_ms() - t_first0;
    if (o.dump_dir)
        for (uint32_t i = 0; i < n_out; i++) {
            if ((rc = write_npy(o.dump_dir, out_ports, i, npu_request_output(req[0], i))) != 0) goto out;
            rc = 1;
            if (verbose) {
                char shape[128];
                tool_shape_str(&out_ports[i].data, shape, sizeof shape);
                printf("wrote %s: output '%s' %s %s, %llu bytes of data\n", out_ports[i].written, out_ports[i].d.name,
                       npu_type_name(out_ports[i].d.type), shape, (unsigned long long)out_ports[i].data_bytes);
            }
        }
    if (verbose) printf("first inference: %.3f ms\n", t_first);
    if (progress) {
        if (o.iterations) fprintf(stderr, "%s: running %ld inference%s", argv0, o.iterations, o.iterations > 1 ? "s" : "");
        else fprintf(stderr, "%s: running for %g s", argv0, o.seconds);
        fprintf(stderr, " with %d request%s in flight\n", n_req, n_req > 1 ? "s" : "");
    }

    /* The measured loop: round-robin over the requests, one thread. */
    size_t cap = o.iterations ? (size_t)o.iterations : 4096, count = 0;
    lat = malloc(cap * sizeof *lat);
    started = calloc((size_t)n_req, sizeof *started);
    if (lat == NULL || started == NULL) { rc = fail(1, "out of memory"); goto out; }
    long launched = 0;
    double t0 = now_ms(), deadline = t0 + o.seconds * 1e3, next_progress = t0 + 1000.0;
    for (int r = 0; r < n_req && (o.iterations == 0 || launched < o.iterations); r++, launched++) {
        started[r] = now_ms();
        if (npu_request_start(req[r]) != NPU_OK) {
            rc = fail(1, "npu_request_start: %s", npu_context_last_error(ctx));
            goto out;
        }
    }
    long in_flight = launched;
    for (int r = 0; in_flight > 0; r = (r + 1) % n_req) {
        if (started[r] == 0) continue;
        if (npu_request_wait(req[r], UINT64_MAX) != NPU_OK) {
            rc = fail(1, "npu_request_wait: %s", npu_context_last_error(ctx));
            goto out;
        }
        double t = now_ms();
        in_flight--;
        if (count == cap) {
            double *bigger = realloc(lat, 2 * cap * sizeof *lat);
            if (bigger == NULL) { rc = fail(1, "out of memory"); goto out; }
            lat = bigger;
            cap *= 2;
        }
        lat[count++] = t - started[r];
        started[r] = 0;
        if (o.iterations ? launched < o.iterations : t < deadline) {
            started[r] = now_ms();
            if (npu_request_start(req[r]) != NPU_OK) {
            rc = fail(1, "npu_request_start: %s", npu_context_last_error(ctx));
            goto out;
        }
            launched++;
            in_flight++;
        }
        if (progress && t >= next_progress) {
            fprintf(stderr, "%s: %.0f s: %zu inferences\n", argv0, (t - t0) / 1e3, count);
            next_progress += 1000.0;
        }
    }
    double duration = now_ms() - t0;

    double sum = 0;
    for (size_t k = 0; k < count; k++) sum += lat[k];
    qsort(lat, count, sizeof *lat, cmp_double);
    double avg = sum / (double)count, median = percentile(lat, count, 50), p90 = percentile(lat, count, 90);
    double pct = percentile(lat, count, o.percentile);
    double fps = (double)count / (duration / 1e3);
    if (o.json) {
        printf("{\"ok\": true, \"exit_code\": 0, \"npu_version\": \"%s\", \"model\": ", npu_version_string());
        json_string(o.model);
        printf(", \"source\": \"%s\", \"device\": ", from_blob ? "blob" : "ir");
        json_string(props.name);
        printf(", \"platform\": ");
        json_string(props.platform);
        printf(", \"simulated\": %s, \"load_ms\": %.4f, \"first_inference_ms\": %.4f, \"%s_ms\": %.4f,"
               " \"requests\": %d, \"batch\": %lld, \"iterations\": %zu, \"duration_ms\": %.3f,"
               " \"throughput_ips\": %.3f, \"throughput_fps\": %.3f, \"batch_mode\": \"%s\","
               " \"latency_percentile\": %d,"
               " \"latency_ms\": {\"min\": %.4f, \"median\": %.4f, \"p90\": %.4f, \"max\": %.4f, \"avg\": %.4f,"
               " \"percentile\": %.4f}, \"batch_reason\": ",
               props.is_simulated ? "true" : "false", t_load, t_first, fil ? "fil" : "feil", t_load + t_first, n_req,
               (long long)frames, count, duration, fps, fps * (double)frames,
               info.batch_mode == NPU_BATCH_AUTO ? "none" : mode_name(info.batch_mode), o.percentile, lat[0], median,
               p90, lat[count - 1], avg, pct);
        json_string(info.batch_reason);
        char shape[128];
        for (int out = 0; out < 2; out++) {
            uint32_t n = out ? n_out : n_in;
            printf(out ? "], \"outputs\": [" : ", \"inputs\": [");
            for (uint32_t i = 0; i < n; i++) {
                const port *p = out ? &out_ports[i] : &in_ports[i];
                printf("%s{\"name\": ", i ? ", " : "");
                json_string(p->d.name);
                tool_shape_str(&p->data, shape, sizeof shape);
                printf(", \"type\": \"%s\", \"shape\": %s, \"layout\": ", npu_type_name(p->d.type), shape);
                json_string(p->d.layout);
                printf(", \"%s\": ", out ? "file" : "data");
                if (out) {
                    if (p->written[0]) json_string(p->written);
                    else printf("null");
                } else {
                    json_string(p->file >= 0 ? o.inputs[p->file].path : "random");
                }
                printf("}");
            }
        }
        printf("]");
        if (o.pc && print_pc(ctx, req, n_req, 1) != 0) goto out;
        printf("}\n");
    } else {
        printf("%s %s: load %.2f ms + first inference %.3f ms = %.2f ms\n", fil ? "FIL" : "FEIL",
               from_blob ? "(import)" : info.from_cache ? "(cache hit)" : "(compile)", t_load, t_first, t_load + t_first);
        printf("iterations: %zu in %.1f ms, %d request%s, batch %lld\n", count, duration, n_req, n_req > 1 ? "s" : "",
               (long long)frames);
        printf("latency: min %.3f ms, avg %.3f ms, median %.3f ms, p90 %.3f ms, ", lat[0], avg, median, p90);
        if (o.percentile != 50 && o.percentile != 90) printf("p%d %.3f ms, ", o.percentile, pct);
        printf("max %.3f ms\n", lat[count - 1]);
        printf("throughput: %.1f inferences/s", fps);
        if (frames > 1) printf(" (%.1f frames/s)", fps * (double)frames);
        printf("\n");
        if (o.pc) {
            printf("\n");
            if (print_pc(ctx, req, n_req, 0) != 0) goto out;
        }
    }
    rc = 0;
out:
    for (int r = 0; req && r < n_req; r++) npu_request_destroy(req[r]);
    npu_model_destroy(model);
    npu_ir_close(ir);
    npu_device_close(dev);
    if (entry_map) munmap(entry_map, entry_map_size);
    free(started);
    free(req);
    free(lat);
    free(req_mem);
    free(model_mem);
    free(ir_mem);
    free(pp_mem);
    free(shape_mem);
    free(reshape);
    free(in_ports);
    free(out_ports);
    free(in_types);
    free(out_types);
    return rc;
}
