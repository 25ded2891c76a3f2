/* npu.c - allocation-free C runtime for Intel NPUs. See npu.h for the API.
 *
 * One file in sections, in data-flow order. Each section opens with what it
 * owns and which sections it calls.
 *
 *   1. Platform and internal interfaces   feature macros, includes, shared helpers
 *   2. Arena                               bump allocation over caller memory
 *   3. Status, context, logging            messages, the logger callback
 *   4. Types and shapes                    element type tables, shape helpers
 *   5. Output sinks and byte order         counting writers used by 7, 8, 11
 *   6. Graph builder                       nodes, shape/type inference
 *   7. IR writer                           graph -> IR v11 XML -> payload A/B
 *   8. IR loader                           XML scanner, model.xml/.bin -> payload
 *   9. Level Zero binding                  loader, driver, graph extension table
 *  10. Device, model, request              compile/import/export, inference, states
 *  11. Batching and cache                  debatching, blob metadata, cache dir
 *
 * Rules: no heap allocation (every object comes from an npu_arena); no global
 * mutable state; every count, offset and size read from a file is checked at
 * run time with overflow-safe arithmetic.
 */

/* ==== 1. Platform and internal interfaces ================================ */
/* POSIX is needed for mmap, open/fsync/rename and clock_gettime. */
#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200809L
#undef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "npu.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define NPU__UNUSED(x) ((void)(x))
#define NPU__COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* The context is private: callers see it only through npu_context_*. */
struct npu_context {
    npu_status last_status;
    npu_log_fn log;
    void *log_user_data;
    npu_log_level log_level;
    char last_error[NPU_ERROR_MAX];
};

typedef struct npu__sink npu__sink;  /* section 5 */
static npu_status npu__fail(npu_context *ctx, npu_status status, const char *fmt, ...);
static void npu__log(npu_context *ctx, npu_log_level level, const char *fmt, ...);
static void *npu__alloc(npu_arena *arena, npu_context *ctx, size_t size, const char *what);

/* ---- Blob metadata (OVNPU tail): written by section 11, used by section 10 ----
 * File layout: [native blob][zero padding][fields][u64 blobDataSize]["OVNPU"],
 * ze-graph-ext.md section 4. */
#define NPU__META_MAX_LAYOUTS 64
typedef struct npu__blob_meta {
    uint32_t version;             /* (major << 16) | minor; 0: the data has no OVNPU tail */
    uint16_t ov_version[3];       /* 2.0+: OpenVINO major, minor, patch of the writer */
    int64_t batch_size;           /* 2.2+: 0 none; N > 1: debatched by the runtime (PLUGIN);
                                     -1: dynamic batch (npu's own use of the field) */
    uint32_t n_input_layouts;     /* 2.3+ */
    uint32_t n_output_layouts;
    char layouts[NPU__META_MAX_LAYOUTS][NPU_LAYOUT_MAX]; /* inputs first, then outputs */
    uint32_t compiler_version;    /* 2.4+: 0 none */
    uint8_t blob_type;            /* 2.7+: 0 ELF */
    uint64_t blob_size;           /* bytes before the fields (blob + padding); the
                                     whole input when there is no tail */
} npu__blob_meta;

/* Parses the tail of data[0..size). No tail ("OVNPU" absent): NPU_OK with
 * version 0 and blob_size = size. A tail that is present but malformed or of an
 * unknown major version: NPU_ERR_FORMAT naming the field. */
static npu_status npu__meta_read(npu_context *ctx, const unsigned char *data, size_t size,
                                 npu__blob_meta *out);
/* Appends zero padding (so that the blob part is a multiple of 4096 bytes) and
 * the tail for `meta` (version 2.7 if meta->version is 0) to a sink that holds
 * exactly the native blob so far. */
static void npu__meta_write(npu__sink *s, const npu__blob_meta *meta);

#if defined(__GNUC__) || defined(__clang__)
#define NPU__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define NPU__PRINTF(f, a)
#endif

/* Overflow-checked arithmetic: return 1 on overflow (and leave *out unchanged). */
static int npu__add_size(size_t a, size_t b, size_t *out)
{
    if (a > SIZE_MAX - b) return 1;
    *out = a + b;
    return 0;
}

static int npu__mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) return 1;
    *out = a * b;
    return 0;
}

static int npu__add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a > UINT64_MAX - b) return 1;
    *out = a + b;
    return 0;
}

static int npu__mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > UINT64_MAX / a) return 1;
    *out = a * b;
    return 0;
}

/* Copies at most cap-1 bytes and always terminates (cap > 0). Returns the
 * length of src, so truncation is visible as a result >= cap. */
static size_t npu__strlcpy(char *dst, const char *src, size_t cap)
{
    size_t n = strlen(src);
    if (cap > 0) {
        size_t k = n < cap - 1 ? n : cap - 1;
        memcpy(dst, src, k);
        dst[k] = '\0';
    }
    return n;
}

/* ==== 2. Arena =========================================================== */
/* Owns: npu_arena bookkeeping. Calls: section 3 for the "too small" message. */

uint32_t npu_version(void) { return (uint32_t)NPU_VERSION; }
const char *npu_version_string(void) { return NPU_VERSION_STRING; }

npu_status npu_arena_init(npu_arena *arena, void *memory, size_t capacity)
{
    if (arena == NULL) return NPU_ERR_INVALID_ARGUMENT;
    arena->base = NULL;
    arena->capacity = 0;
    arena->used = 0;
    arena->peak = 0;
    if (memory == NULL && capacity > 0) return NPU_ERR_INVALID_ARGUMENT;
    if (((uintptr_t)memory % NPU_ARENA_ALIGN) != 0) return NPU_ERR_ALIGNMENT;
    arena->base = (unsigned char *)memory;
    arena->capacity = capacity;
    return NPU_OK;
}

size_t npu_arena_used(const npu_arena *arena) { return arena ? arena->used : 0; }

size_t npu_arena_remaining(const npu_arena *arena)
{
    return arena && arena->capacity > arena->used ? arena->capacity - arena->used : 0;
}

void npu_arena_rewind(npu_arena *arena, size_t mark)
{
    if (arena != NULL && mark <= arena->used) arena->used = mark;
}

/* Carves `size` bytes (rounded up to NPU_ARENA_ALIGN), zero-filled. On failure
 * records NPU_ERR_ARENA_TOO_SMALL in ctx naming `what` and the total bytes the
 * arena would have needed, and returns NULL. */
static void *npu__alloc(npu_arena *arena, npu_context *ctx, size_t size, const char *what)
{
    size_t rounded, end;
    void *p;
    if (arena == NULL) {
        npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "%s: arena is NULL", what);
        return NULL;
    }
    if (size > SIZE_MAX - (NPU_ARENA_ALIGN - 1) ||
        npu__add_size(arena->used, NPU_ARENA_ROUND(size), &end)) {
        npu__fail(ctx, NPU_ERR_OVERFLOW, "%s: size %zu overflows the arena", what, size);
        return NULL;
    }
    rounded = NPU_ARENA_ROUND(size);
    if (end > arena->capacity) {
        npu__fail(ctx, NPU_ERR_ARENA_TOO_SMALL,
                  "arena too small for %s: needs %zu bytes in total (%zu in use + %zu), has %zu",
                  what, end, arena->used, rounded, arena->capacity);
        return NULL;
    }
    p = arena->base + arena->used;
    memset(p, 0, rounded);
    arena->used = end;
    if (end > arena->peak) arena->peak = end;
    return p;
}

/* ==== 3. Status, context, logging ======================================== */
/* Owns: status strings, the context object, error recording and logging. */

static const char *const npu__status_names[NPU_STATUS_COUNT] = {
    "NPU_OK: success",
    "NPU_NOT_READY: not finished yet",
    "NPU_ERR_INVALID_ARGUMENT: invalid argument",
    "NPU_ERR_ARENA_TOO_SMALL: arena too small",
    "NPU_ERR_ALIGNMENT: misaligned memory",
    "NPU_ERR_BUFFER_TOO_SMALL: output buffer too small",
    "NPU_ERR_SHAPE: shape mismatch",
    "NPU_ERR_TYPE: element type mismatch",
    "NPU_ERR_LIMIT: fixed limit exceeded",
    "NPU_ERR_OVERFLOW: size overflow",
    "NPU_ERR_UNSUPPORTED: not supported",
    "NPU_ERR_PARSE: malformed IR",
    "NPU_ERR_FORMAT: malformed binary data",
    "NPU_ERR_IO: file error",
    "NPU_ERR_NOT_FOUND: not found",
    "NPU_ERR_STATE: wrong object state",
    "NPU_ERR_NO_DEVICE: no NPU device",
    "NPU_ERR_DRIVER: driver call failed",
    "NPU_ERR_COMPILE: model compilation failed",
    "NPU_ERR_NO_LEVEL_ZERO: built without Level Zero",
};

const char *npu_status_string(npu_status status)
{
    if ((unsigned)status >= (unsigned)NPU_STATUS_COUNT) return "unknown status";
    return npu__status_names[status];
}

size_t npu_context_size(void) { return NPU_ARENA_ROUND(sizeof(struct npu_context)); }

npu_status npu_context_create(npu_arena *arena, const npu_context_options *options,
                              npu_context **out)
{
    npu_context *ctx;
    if (out == NULL) return NPU_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (arena == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (options != NULL && (unsigned)options->log_level > (unsigned)NPU_LOG_DEBUG)
        return NPU_ERR_INVALID_ARGUMENT;
    ctx = (npu_context *)npu__alloc(arena, NULL, sizeof *ctx, "context");
    if (ctx == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    ctx->last_status = NPU_OK;
    ctx->log_level = NPU_LOG_ERROR;
    if (options != NULL) {
        ctx->log = options->log;
        ctx->log_user_data = options->log_user_data;
        ctx->log_level = options->log_level;
    }
    *out = ctx;
    return NPU_OK;
}

const char *npu_context_last_error(const npu_context *ctx)
{
    return ctx ? ctx->last_error : "";
}

npu_status npu_context_last_status(const npu_context *ctx)
{
    return ctx ? ctx->last_status : NPU_ERR_INVALID_ARGUMENT;
}

void npu_context_clear_error(npu_context *ctx)
{
    if (ctx == NULL) return;
    ctx->last_status = NPU_OK;
    ctx->last_error[0] = '\0';
}

static void npu__vlog(npu_context *ctx, npu_log_level level, const char *fmt, va_list ap)
{
    char line[512];
    if (ctx == NULL || ctx->log == NULL || level > ctx->log_level) return;
    vsnprintf(line, sizeof line, fmt, ap);
    ctx->log(ctx->log_user_data, level, line);
}

NPU__PRINTF(3, 4)
static void npu__log(npu_context *ctx, npu_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    npu__vlog(ctx, level, fmt, ap);
    va_end(ap);
}

/* Records an error in ctx (which may be NULL) and returns `status`, so that
 * call sites read `return npu__fail(ctx, NPU_ERR_SHAPE, "...", ...);`. */
NPU__PRINTF(3, 4)
static npu_status npu__fail(npu_context *ctx, npu_status status, const char *fmt, ...)
{
    va_list ap;
    if (ctx == NULL) return status;
    va_start(ap, fmt);
    vsnprintf(ctx->last_error, sizeof ctx->last_error, fmt, ap);
    va_end(ap);
    ctx->last_status = status;
    if (ctx->log != NULL && ctx->log_level >= NPU_LOG_ERROR)
        ctx->log(ctx->log_user_data, NPU_LOG_ERROR, ctx->last_error);
    return status;
}

/* ==== 4. Types and shapes ================================================ */
/* Owns: per-type facts shared by the writer, the loader and the Level Zero
 * sections (OpenVINO names, sizes, graph-extension precision codes). */

typedef struct npu__type_info {
    const char *ov_name;       /* element_type in IR <data> */
    const char *ov_precision;  /* precision attribute of IR ports */
    uint8_t size;
    uint8_t ze_precision;      /* ze_graph_argument_precision_t */
    uint8_t ze_metadata;       /* ze_graph_metadata_type */
} npu__type_info;

static const npu__type_info npu__types[NPU_TYPE_COUNT] = {
    /* UNDEFINED */ {"undefined", "UNSPECIFIED", 0, 0x00, 0},
    /* F32  */ {"f32", "FP32", 4, 0x01, 5},
    /* F16  */ {"f16", "FP16", 2, 0x02, 4},
    /* BF16 */ {"bf16", "BF16", 2, 0x09, 3},
    /* I8   */ {"i8", "I8", 1, 0x07, 8},
    /* U8   */ {"u8", "U8", 1, 0x04, 14},
    /* I32  */ {"i32", "I32", 4, 0x05, 10},
    /* I64  */ {"i64", "I64", 8, 0x11, 11},
    /* BOOL */ {"boolean", "BOOL", 1, 0x0E, 2},
};

static int npu__type_valid(npu_type t)
{
    return (unsigned)t > (unsigned)NPU_TYPE_UNDEFINED && (unsigned)t < (unsigned)NPU_TYPE_COUNT;
}

size_t npu_type_size(npu_type type) { return npu__type_valid(type) ? npu__types[type].size : 0; }

const char *npu_type_name(npu_type type)
{
    return npu__type_valid(type) ? npu__types[type].ov_name : "undefined";
}

uint64_t npu_shape_elements(const npu_shape *shape)
{
    uint64_t n = 1;
    uint32_t i;
    if (shape == NULL || shape->rank > NPU_MAX_RANK) return 0;
    for (i = 0; i < shape->rank; i++) {
        if (shape->dims[i] < 0 || npu__mul_u64(n, (uint64_t)shape->dims[i], &n)) return 0;
    }
    return n;
}

/* Elements with every dynamic dim counted as 1 (the size of a batch-1
 * buffer); 0 when the count overflows. */
static uint64_t npu__shape_elements_dyn1(const npu_shape *shape)
{
    uint64_t n = 1;
    uint32_t i;
    for (i = 0; i < shape->rank && i < NPU_MAX_RANK; i++) {
        int64_t d = shape->dims[i] < 0 ? 1 : shape->dims[i];
        if (npu__mul_u64(n, (uint64_t)d, &n)) return 0;
    }
    return n;
}

/* Formats a shape as "[1,3,?,224]" for messages; always terminated. */
static const char *npu__shape_str(const npu_shape *s, char *buf, size_t cap)
{
    size_t len = 0;
    uint32_t i;
    int n;
    if (cap == 0) return buf;
    buf[0] = '\0';
    n = snprintf(buf, cap, "[");
    if (n > 0) len = (size_t)n;
    for (i = 0; s != NULL && i < s->rank && i < NPU_MAX_RANK && len < cap; i++) {
        if (s->dims[i] < 0)
            n = snprintf(buf + len, cap - len, "%s?", i ? "," : "");
        else
            n = snprintf(buf + len, cap - len, "%s%lld", i ? "," : "", (long long)s->dims[i]);
        if (n < 0) break;
        len += (size_t)n;
    }
    if (len < cap) snprintf(buf + len, cap - len, "]");
    return buf;
}

/* ==== 5. Output sinks and byte order ===================================== */
/* Owns: the counting writer that lets every serializer answer an exact size
 * query with the same code that writes (dst NULL = count only), and
 * little-endian integer access for the binary formats. */

struct npu__sink {
    unsigned char *dst;   /* NULL: count only */
    size_t cap;
    size_t len;           /* bytes produced so far (also past cap) */
    int overflow;         /* len wrapped around SIZE_MAX */
    /* Optional: every byte produced is also fed here (the cache hashes a model by
     * serializing it into a counting sink with a hash as the feed). */
    void (*feed)(void *feed_state, const void *bytes, size_t n);
    void *feed_state;
};

static void npu__sink_init(npu__sink *s, void *dst, size_t cap)
{
    s->dst = (unsigned char *)dst;
    s->cap = dst ? cap : 0;
    s->len = 0;
    s->overflow = 0;
    s->feed = NULL;
    s->feed_state = NULL;
}

static void npu__sink_put(npu__sink *s, const void *src, size_t n)
{
    size_t end;
    if (npu__add_size(s->len, n, &end)) {
        s->overflow = 1;
        return;
    }
    if (s->dst != NULL && end <= s->cap && n > 0) memcpy(s->dst + s->len, src, n);
    if (s->feed != NULL && n > 0) s->feed(s->feed_state, src, n);
    s->len = end;
}

static void npu__sink_str(npu__sink *s, const char *str) { npu__sink_put(s, str, strlen(str)); }

static void npu__sink_u64_dec(npu__sink *s, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + (v % 10));
        v /= 10;
    } while (v != 0);
    npu__sink_put(s, tmp + i, sizeof tmp - i);
}

static void npu__sink_i64_dec(npu__sink *s, int64_t v)
{
    if (v < 0) {
        npu__sink_put(s, "-", 1);
        npu__sink_u64_dec(s, (uint64_t)0 - (uint64_t)v);
    } else {
        npu__sink_u64_dec(s, (uint64_t)v);
    }
}

/* Writes text with the five XML special characters escaped (attribute-safe). */
static void npu__sink_xml_escaped(npu__sink *s, const char *text, size_t n)
{
    size_t i, run = 0;
    for (i = 0; i < n; i++) {
        const char *rep = NULL;
        switch (text[i]) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&apos;"; break;
        default: break;
        }
        if (rep != NULL) {
            npu__sink_put(s, text + run, i - run);
            npu__sink_str(s, rep);
            run = i + 1;
        }
    }
    npu__sink_put(s, text + run, n - run);
}

static void npu__le_put(unsigned char *p, uint64_t v, unsigned bytes)
{
    unsigned i;
    for (i = 0; i < bytes; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t npu__le_get(const unsigned char *p, unsigned bytes)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < bytes; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void npu__sink_le(npu__sink *s, uint64_t v, unsigned bytes)
{
    unsigned char tmp[8];
    npu__le_put(tmp, v, bytes);
    npu__sink_put(s, tmp, bytes);
}

/* Overwrites `bytes` bytes at an offset already produced (headers whose sizes
 * are known only after the body is written). No-op when counting. */
static void npu__sink_patch_le(npu__sink *s, size_t offset, uint64_t v, unsigned bytes)
{
    if (s->dst != NULL && offset + bytes <= s->cap && offset + bytes <= s->len)
        npu__le_put(s->dst + offset, v, bytes);
}

/* Payload containers (ze-graph-ext.md section 3), shared by the IR writer (7)
 * and the IR loader (8). Layout A: [u16 major][u16 minor][u32 2][u64 xml size]
 * [xml][u64 weights size][weights]. Layout B: six u64 (custom data offset/size,
 * constants offset/size, model offset/size), then the 4-byte compiler version as
 * custom data, the constants blob and the XML.
 *
 * Use: begin -> write constants (B only) -> mark -> write XML -> end. */
#define NPU__PAYLOAD_B_HEADER 48u

typedef struct npu__payload {
    npu__sink *sink;
    npu_payload_layout layout;   /* resolved: NO_WEIGHTS_COPY or WEIGHTS_COPY */
    size_t start;                /* sink offset of the payload */
    size_t consts_begin;         /* B: sink offset of the constants blob */
    size_t xml_begin;            /* sink offset of the XML */
} npu__payload;

static npu_payload_layout npu__payload_resolve(npu_payload_layout layout)
{
    return layout == NPU_PAYLOAD_WEIGHTS_COPY ? NPU_PAYLOAD_WEIGHTS_COPY : NPU_PAYLOAD_NO_WEIGHTS_COPY;
}

static void npu__payload_begin(npu__payload *p, npu__sink *sink, npu_payload_layout layout,
                               uint32_t compiler_version)
{
    p->sink = sink;
    p->layout = npu__payload_resolve(layout);
    p->start = sink->len;
    if (p->layout == NPU_PAYLOAD_WEIGHTS_COPY) {
        npu__sink_le(sink, compiler_version >> 16, 2);
        npu__sink_le(sink, compiler_version & 0xffffu, 2);
        npu__sink_le(sink, 2, 4);
        npu__sink_le(sink, 0, 8);  /* xml size, patched in npu__payload_end */
        p->consts_begin = sink->len;
        p->xml_begin = sink->len;
    } else {
        unsigned i;
        for (i = 0; i < 6; i++) npu__sink_le(sink, 0, 8);   /* patched later */
        npu__sink_le(sink, compiler_version >> 16, 2);
        npu__sink_le(sink, compiler_version & 0xffffu, 2);
        p->consts_begin = sink->len;
        p->xml_begin = sink->len;
    }
}

/* Call after the constants blob (B) and before the XML. */
static void npu__payload_mark_xml(npu__payload *p) { p->xml_begin = p->sink->len; }

/* Call after the XML. Layout A: then write the weights with
 * npu__payload_weights(). */
static void npu__payload_end_xml(npu__payload *p)
{
    npu__sink *s = p->sink;
    size_t xml_size = s->len - p->xml_begin;
    if (p->layout == NPU_PAYLOAD_WEIGHTS_COPY) {
        npu__sink_patch_le(s, p->start + 8, xml_size, 8);
    } else {
        size_t base = p->start;
        npu__sink_patch_le(s, base + 0, NPU__PAYLOAD_B_HEADER, 8);           /* custom data offset */
        npu__sink_patch_le(s, base + 8, 4, 8);                               /* custom data size */
        npu__sink_patch_le(s, base + 16, p->consts_begin - base, 8);         /* constants offset */
        npu__sink_patch_le(s, base + 24, p->xml_begin - p->consts_begin, 8); /* constants size */
        npu__sink_patch_le(s, base + 32, p->xml_begin - base, 8);            /* model offset */
        npu__sink_patch_le(s, base + 40, xml_size, 8);                       /* model size */
    }
}

/* Layout A only: the weights section (size, then the bytes). */
static void npu__payload_weights(npu__payload *p, const void *weights, uint64_t size)
{
    npu__sink_le(p->sink, size, 8);
    if (size > SIZE_MAX) {
        p->sink->overflow = 1;
        return;
    }
    npu__sink_put(p->sink, weights, (size_t)size);
}

/* Finishes a serializer call that follows the size-query convention: *size gets
 * the exact byte count; a too-small (non-NULL) dst gives NPU_ERR_BUFFER_TOO_SMALL
 * with the needed size in the message. */
static npu_status npu__sink_finish(npu__sink *s, npu_context *ctx, const char *what,
                                   size_t *size)
{
    if (s->overflow) return npu__fail(ctx, NPU_ERR_OVERFLOW, "%s: size overflows size_t", what);
    if (size != NULL) *size = s->len;
    if (s->dst != NULL && s->len > s->cap)
        return npu__fail(ctx, NPU_ERR_BUFFER_TOO_SMALL,
                         "%s: buffer of %zu bytes is too small, %zu bytes needed", what,
                         s->cap, s->len);
    return NPU_OK;
}

/* ==== 6-7. Graph builder and IR writer =================================== */
#include "parts/graph.c"

/* ==== 8. IR loader ======================================================= */
#include "parts/irload.c"

/* ==== 9-10. Level Zero binding; device, model, request =================== */
#include "parts/l0.c"

/* ==== 11. Batching and cache ============================================= */
#include "parts/cache.c"

/* ==== development scaffold (removed when all sections are merged) ========= */
/* Keeps shared helpers referenced while the sections that use them are being
 * written, so that the strict build stays warning-free. */
void npu__dev_keep_helpers(void);
void npu__dev_keep_helpers(void)
{
    void (*volatile keep[])(void) = {
        (void (*)(void))npu__payload_weights,
        (void (*)(void))npu__le_get,
        (void (*)(void))npu__mul_size,
    };
    (void)keep;
}
