/* npu.c - allocation-free C runtime for Intel NPUs. See npu.h for the API.
 *
 * One file in sections, in data-flow order. Each section opens with what it
 * owns and which sections it calls.
 *
 *   1. Platform and internal interfaces   feature macros, includes, shared helpers
 *   2. Status, context, logging            messages, the logger callback
 *   3. Arena                               bump allocation over caller memory;
 *                                          the context object
 *   4. Types and shapes                    element type tables, shape helpers
 *   5. Output sinks and byte order         counting writers used by 7, 8, 12;
 *                                          preprocessing plans
 *   6. Graph builder                       nodes, shape/type inference
 *   7. IR writer                           graph -> IR v11 XML -> payload A/B
 *   8. IR loader                           XML scanner, model.xml/.bin -> payload
 *   9. Blob metadata and hashing           OVNPU tail, NH128 hash, input hash
 *  10. Level Zero binding                  graph-extension ABI, driver calls
 *  11. Device                              driver/device discovery, properties
 *  12. Model                               arguments, build flags, import,
 *                                          export; model sources, batch plans
 *  13. Request                             command lists, inference, states
 *  14. Model cache and compiling           cache keys and directory, the cache
 *                                          in a compile, the compile calls
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
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sched.h>
#include <time.h>
#include <stdatomic.h>
#include <dirent.h>
#include <signal.h>

#define NPU__UNUSED(x) ((void)(x))
/* A shared helper that some combinations of the NPU_NO_* macros leave
 * without a caller (e.g. NPU_NO_IR with NPU_NO_LEVEL_ZERO): no warning. */
#if defined(__GNUC__) || defined(__clang__)
#define NPU__MAYBE_UNUSED __attribute__((unused))
#else
#define NPU__MAYBE_UNUSED
#endif
/* A model source is built in: the graph builder or the IR loader (npu.h,
 * "Building"). Without either, nothing writes or compiles a payload. */
#if !defined(NPU_NO_GRAPH) || !defined(NPU_NO_IR)
#define NPU__SOURCES 1
#elif !defined(NPU_NO_CACHE)
#define NPU_NO_CACHE   /* the cache keys only graph and IR compiles */
#endif
#define NPU__COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* The context is private: callers see it only through npu_context_*. */
struct npu_context {
    npu_status last_status;
    npu_log_fn log;
    void *log_user_data;
    npu_log_level log_level;
    atomic_flag lock;              /* guards last_status and last_error: threads
                                      may share a context (npu__fail) */
    char last_error[NPU_ERROR_MAX];
};

typedef struct npu__sink npu__sink;  /* section 5 */
#ifndef NPU_NO_MESSAGES
/* Failures and logs go through one variadic function (section 2): code says
 * which (NPU__SAY_*) and carries the status or log level. */
static npu_status npu__say(npu_context *ctx, unsigned code, const char *fmt, ...);
enum { NPU__SAY_FAIL = 0, NPU__SAY_LOG = 1 << 8 };
#define npu__fail(ctx, status, ...) npu__say((ctx), NPU__SAY_FAIL | (unsigned)(status), __VA_ARGS__)
#define npu__log(ctx, level, ...) ((void)npu__say((ctx), NPU__SAY_LOG | (unsigned)(level), __VA_ARGS__))
#define NPU__MSG_ONLY(...) __VA_ARGS__
#define NPU__MSG_UNUSED(x)
#else
/* NPU_NO_MESSAGES (npu.h, "Building"): no message text and no formatting.
 * Every function that formats a message is a macro that drops its format and
 * arguments; an error keeps its status and its site, "npu.c:<line>" (section
 * 3), so that a user can still find where it failed. Logging other than
 * errors is gone. */
#define NPU__SITE ((unsigned)__LINE__)
/* A failure site's status (low 5 bits) and line in one number, so that each
 * site loads one immediate (npu__fail_site and npu__fail_begin_site). */
#define NPU__SITE_CODE(status) (NPU__SITE << 5 | (unsigned)(status))
#define NPU__MSG_ONLY(...)               /* a declaration only a message uses */
#define NPU__MSG_UNUSED(x) NPU__UNUSED(x) /* a name only a message uses */
static npu_status npu__fail_site(npu_context *ctx, unsigned code);
static void npu__log_site(const npu_context *ctx, npu_log_level level);
#define npu__fail(ctx, status, ...) npu__fail_site((ctx), NPU__SITE_CODE(status))
#define npu__log(ctx, level, ...) npu__log_site((ctx), (level))
#endif
static void *npu__alloc(npu_arena *arena, npu_context *ctx, size_t size, const char *what);
static npu_status npu__check_reserved_n(npu_context *ctx, const uint32_t *reserved, unsigned n, const char *what);
/* `reserved` is the options struct's array (its length counts). */
#define npu__check_reserved(ctx, reserved, what) \
    npu__check_reserved_n((ctx), (reserved), (unsigned)NPU__COUNT_OF(reserved), (what))

/* ---- Blob metadata (OVNPU tail): section 9, used by sections 12 and 14 ----
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
    /* Inputs first, then outputs: NPU__META_MAX_LAYOUTS rows of the caller's
     * (1 KB: not on the stack of a parse). Parsing with NULL checks the
     * layouts and keeps none. Writing takes layout_of(layout_src, i) when set. */
    char (*layouts)[NPU_LAYOUT_MAX];
    const char *(*layout_of)(const void *layout_src, uint32_t i);
    const void *layout_src;
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

/* ---- Model sources: provided by sections 7 (graph) and 8 (IR), used by the
 * compile path of section 12 and the cache key of section 14 ----
 * The compile, batching and cache code see a model only through this table,
 * so that a program that compiles only graphs does not link the IR loader and
 * one that compiles only IRs does not link the graph builder. `src` is the
 * npu_graph or npu_ir; set_batch changes it during a compile (the caller's
 * object: documented in npu.h, "Batching"). */
typedef void (*npu__bytes_fn)(void *state, const void *data, uint64_t bytes);
typedef struct npu__source {
    const char *kind;          /* "graph", "IR": the cache entry's descriptor */
    int converts;              /* the payload converts the compile's type
                                  overrides itself (a graph's Convert layers) */
    const char *layout_fix;    /* how to give it layouts naming N (messages) */
    const char *(*label)(const void *src);
    uint32_t (*ir_version)(const void *src);     /* 0: a graph (IR v11) */
    uint32_t (*count)(const void *src, int what); /* 0 inputs, 1 outputs, 2 states */
    /* Input / output i (npu__io_list.get); its batch axis from the layout's N. */
    npu_status (*input)(const void *src, uint32_t i, npu_tensor_desc *out);
    npu_status (*output)(const void *src, uint32_t i, npu_tensor_desc *out);
    uint32_t (*batch_axis)(const void *src, int output, uint32_t i, const npu_tensor_desc *d);
    int64_t (*batch)(const void *src);           /* what set_batch restores to */
    npu_status (*set_batch)(const void *src, int64_t batch);
    int64_t (*batch_rewrite)(const void *src);   /* NULL: none (an IR's npu_ir_set_batch) */
    npu_status (*payload)(const void *src, const npu_payload_options *po, const npu_compile_options *o,
                          void *dst, size_t cap, size_t *size);
    /* The model without constant data or addresses, into a sink (cache key). */
    npu_status (*structure)(const void *src, npu__sink *s);
    /* Every constant's bytes in order (cache key, the driver's input hash). */
    void (*constants)(const void *src, npu__bytes_fn take, void *state);
} npu__source;

typedef struct npu__model_src {
    const npu__source *ops;
    const void *src;
} npu__model_src;

/* ---- The model cache: section 14, used by its compile calls (14d) ---- */
/* One way of compiling a source (a batch decision). */
typedef struct npu__form {
    npu_batch_mode mode;   /* as npu_model_info reports it */
    int64_t original;      /* npu_model_info.original_batch */
    int64_t compiled;      /* the batch the payload is written with (PLUGIN: 1); 0: as is */
} npu__form;
#if !defined(NPU_NO_LEVEL_ZERO) && !defined(NPU_NO_CACHE)
/* Compiles one form through o->cache_dir: a hit is imported, a miss compiled
 * and stored (npu_model_info.cache says which). */
static npu_status npu__cache_compile(npu_device *d, npu_arena *arena, const npu__model_src *src,
                                     const npu_compile_options *o, const npu__form *form, npu_model **out);
#endif

#if defined(__GNUC__) || defined(__clang__)
#define NPU__PRINTF(f, a) __attribute__((format(printf, f, a)))
/* Keeps a side branch's frame (cache key, entry lookup) out of its caller's,
 * so that the deepest path (compile -> payload writer) does not carry it. */
#define NPU__NOINLINE __attribute__((noinline))
#else
#define NPU__PRINTF(f, a)
#define NPU__NOINLINE
#endif

/* Overflow-checked arithmetic: return 1 on overflow (and leave *out unchanged). */
static int npu__add_size(size_t a, size_t b, size_t *out)
{
    if (a > SIZE_MAX - b) return 1;
    *out = a + b;
    return 0;
}

#if !defined(NPU_NO_IR)
static int npu__mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) return 1;
    *out = a * b;
    return 0;
}
#endif

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

/* Opens the regular file `path` read-only and gives its size: NULL with *fd
 * open, or why not (the descriptor closed): strerror text with *err the errno,
 * or "not a regular file" / "too large to map" with *err 0. O_NONBLOCK: opening
 * a FIFO (or a device) must not wait for a writer; anything but a regular file
 * is refused right after the fstat. The flag does not matter to mmap or read. */
static const char *npu__open_regular(const char *path, int *fd, size_t *size, int *err)
{
    struct stat sb;
    const char *why = NULL;
    *err = 0;
    *size = 0;
    do {
        *fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    } while (*fd < 0 && errno == EINTR);
    if (*fd < 0 || fstat(*fd, &sb) != 0) {   /* the open's or the fstat's errno */
        *err = errno;
        why = strerror(*err);
    } else if (!S_ISREG(sb.st_mode)) {
        why = "not a regular file";
    } else if ((uint64_t)sb.st_size > (uint64_t)SIZE_MAX) {
        why = "too large to map";
    }
    if (why != NULL) {
        if (*fd >= 0) close(*fd);
        *fd = -1;
        return why;
    }
    *size = (size_t)sb.st_size;
    return NULL;
}

/* Maps the whole regular file `path` read-only and private (the IR loader, blob
 * import, the model cache). *map is NULL for an empty file. Returns NULL, or
 * why it failed (as npu__open_regular, or the mmap's strerror text) with *err
 * the errno (0 for "not a regular file" / "too large to map"). */
static NPU__MAYBE_UNUSED const char *npu__map_file(const char *path, void **map, size_t *len, int *err)
{
    const char *why;
    size_t size;
    int fd;
    *map = NULL;
    *len = 0;
    why = npu__open_regular(path, &fd, &size, err);
    if (why != NULL) return why;
    if (size > 0) {
        void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            *err = errno;
            why = strerror(*err);
        } else {
            *map = p;
            *len = size;
        }
    }
    close(fd);
    return why;
}

#ifndef NPU_NO_LEVEL_ZERO   /* the cache and export_file only */
/* Temp files (the cache's and export's) carry their writer's pid: "<prefix>
 * <pid>-...". Returns 1 when `rest` (the name after the prefix) starts with a
 * pid whose process no longer exists on this machine, so that the file is an
 * orphan of a writer that died mid-write. (A writer in another pid namespace
 * sharing the directory may look dead: its store then fails its rename and
 * it goes on without storing, which the cache allows.) */
static int npu__temp_owner_dead(const char *rest)
{
    long pid = 0;
    int digits = 0;
    while (*rest >= '0' && *rest <= '9' && digits < 10) {
        pid = pid * 10 + (*rest++ - '0');
        digits++;
    }
    if (digits == 0 || *rest != '-' || pid <= 0 || pid > INT_MAX || (pid_t)pid == getpid()) return 0;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Removes the regular files of directory `dir` named <prefix><dead pid>-...
 * (npu__temp_owner_dead). Best effort: returns how many it removed. */
static unsigned npu__remove_orphans_at(int dir_fd, const char *prefix)
{
    int fd = dup(dir_fd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;
    size_t pre = strlen(prefix);
    unsigned count = 0;
    if (d == NULL) {
        if (fd >= 0) close(fd);
        return 0;
    }
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (strncmp(e->d_name, prefix, pre) != 0 || !npu__temp_owner_dead(e->d_name + pre)) continue;
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0) count++;
    }
    closedir(d);
    return count;
}

#endif /* NPU_NO_LEVEL_ZERO */

/* ==== 2. Status, context, logging ======================================== */
/* Owns: status strings, the context's message and logger, error recording
 * and logging. Calls: section 1 only (the context is created in section 3). */

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

NPU_API const char *npu_status_string(npu_status status)
{
    if ((unsigned)status >= (unsigned)NPU_STATUS_COUNT) return "unknown status";
    return npu__status_names[status];
}

/* The message lock: held only for a copy of at most NPU_ERROR_MAX bytes. The
 * context is logically const for readers; the flag is the one mutable part. */
static void npu__ctx_lock(const npu_context *ctx)
{
    npu_context *c = (npu_context *)(uintptr_t)ctx;
    while (atomic_flag_test_and_set_explicit(&c->lock, memory_order_acquire)) sched_yield();
}

static void npu__ctx_unlock(const npu_context *ctx)
{
    npu_context *c = (npu_context *)(uintptr_t)ctx;
    atomic_flag_clear_explicit(&c->lock, memory_order_release);
}

NPU_API const char *npu_context_last_error(const npu_context *ctx)
{
    return ctx ? ctx->last_error : "";
}

NPU_API npu_status npu_context_copy_error(const npu_context *ctx, char *dst, size_t cap)
{
    npu_status st;
    if (ctx == NULL) {
        if (dst != NULL && cap > 0) dst[0] = '\0';
        return NPU_ERR_INVALID_ARGUMENT;
    }
    npu__ctx_lock(ctx);
    st = ctx->last_status;
    if (dst != NULL) npu__strlcpy(dst, ctx->last_error, cap);   /* (nothing for cap 0) */
    npu__ctx_unlock(ctx);
    return st;
}

NPU_API npu_status npu_context_last_status(const npu_context *ctx)
{
    npu_status st;
    if (ctx == NULL) return NPU_ERR_INVALID_ARGUMENT;
    npu__ctx_lock(ctx);
    st = ctx->last_status;
    npu__ctx_unlock(ctx);
    return st;
}

NPU_API void npu_context_clear_error(npu_context *ctx)
{
    if (ctx == NULL) return;
    npu__ctx_lock(ctx);
    ctx->last_status = NPU_OK;
    ctx->last_error[0] = '\0';
    npu__ctx_unlock(ctx);
}

#ifndef NPU_NO_MESSAGES
static void npu__vlog(npu_context *ctx, npu_log_level level, const char *fmt, va_list ap)
{
    char line[512];
    if (ctx == NULL || ctx->log == NULL || level > ctx->log_level) return;
    vsnprintf(line, sizeof line, fmt, ap);
    ctx->log(ctx->log_user_data, level, line);
}

/* Formats into ctx->last_error under the message lock (append: after what is
 * there), so that no message buffer sits on the caller's stack (issue 14): a
 * thread sharing the context still never sees a torn message. */
static void npu__vset_error(npu_context *ctx, npu_status status, int append, const char *fmt, va_list ap)
{
    size_t len = 0;
    npu__ctx_lock(ctx);
    if (append) len = strlen(ctx->last_error);
    else ctx->last_status = status;
    if (len < sizeof ctx->last_error) vsnprintf(ctx->last_error + len, sizeof ctx->last_error - len, fmt, ap);
    npu__ctx_unlock(ctx);
}

#else /* NPU_NO_MESSAGES */

/* "npu.c:<line>" into dst (cut to cap). tmp holds the 6 + at most 10 digits
 * and the NUL. */
static void npu__site_text(char *dst, size_t cap, unsigned line)
{
    char tmp[24];
    size_t i = sizeof tmp;
    tmp[--i] = '\0';
    do {
        tmp[--i] = (char)('0' + line % 10);
        line /= 10;
    } while (line != 0);
    memcpy(tmp + i - 6, "npu.c:", 6);
    if (cap > 0) npu__strlcpy(dst, tmp + i - 6, cap);
}

static NPU__MAYBE_UNUSED void npu__log_site(const npu_context *ctx, npu_log_level level)
{
    NPU__UNUSED(ctx);
    NPU__UNUSED(level);
}

static void npu__set_site(npu_context *ctx, npu_status status, unsigned line)
{
    npu__ctx_lock(ctx);
    ctx->last_status = status;
    npu__site_text(ctx->last_error, sizeof ctx->last_error, line);
    npu__ctx_unlock(ctx);
}
#endif /* NPU_NO_MESSAGES */

/* Hands the recorded message to the logger (a copy cut at 511 bytes: the
 * logger runs outside the lock and may itself call into npu). */
static void npu__log_error(npu_context *ctx)
{
    char line[NPU_ERROR_MAX < 512 ? NPU_ERROR_MAX : 512];
    if (ctx->log == NULL || ctx->log_level < NPU_LOG_ERROR) return;
    npu__ctx_lock(ctx);
    npu__strlcpy(line, ctx->last_error, sizeof line);
    npu__ctx_unlock(ctx);
    ctx->log(ctx->log_user_data, NPU_LOG_ERROR, line);
}

#ifndef NPU_NO_MESSAGES
#if !defined(NPU_NO_LEVEL_ZERO) || !defined(NPU_NO_IR) || !defined(NPU_NO_GRAPH)
/* snprintf for texts that are meant to be cut at cap (reasons, notes, shapes). */
NPU__PRINTF(3, 4)
static void npu__textf(char *dst, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
}
#endif

/* The variadic function of failures and logs (npu__fail and npu__log are
 * macros for it: one va_list prologue in the program instead of two). By code
 * (section 1):
 * - NPU__SAY_FAIL | status: records the error in ctx (which may be NULL), logs
 *   it and returns `status`, so that call sites read
 *   `return npu__fail(ctx, NPU_ERR_SHAPE, "...", ...);`;
 * - NPU__SAY_LOG | level: hands the text to the logger. */
NPU__PRINTF(3, 4)
static npu_status npu__say(npu_context *ctx, unsigned code, const char *fmt, ...)
{
    va_list ap;
    if (ctx == NULL) return (npu_status)(code & 0xffu);
    va_start(ap, fmt);
    if (code >= NPU__SAY_LOG) npu__vlog(ctx, (npu_log_level)(code & 0xffu), fmt, ap);
    else npu__vset_error(ctx, (npu_status)code, 0, fmt, ap);
    va_end(ap);
    if (code < NPU__SAY_LOG) npu__log_error(ctx);
    return (npu_status)(code & 0xffu);
}

/* A message in parts: npu__fail_begin records the first, npu__fail_more
 * appends, npu__fail_end logs the whole and returns the status. Both parts
 * go through npu__fail_part, apart from npu__say: a message's parts are
 * formatted deep in the IR loader's failures, whose stack would otherwise
 * also carry the logger's line buffer (npu__say's callees). A failure's
 * status starts the message, NPU_OK (npu__fail_more) appends to it. */
NPU__PRINTF(3, 4)
static NPU__MAYBE_UNUSED void npu__fail_part(npu_context *ctx, npu_status status, const char *fmt, ...)
{
    va_list ap;
    if (ctx == NULL) return;
    va_start(ap, fmt);
    npu__vset_error(ctx, status, status == NPU_OK, fmt, ap);
    va_end(ap);
}
#define npu__fail_begin(ctx, status, ...) npu__fail_part((ctx), (status), __VA_ARGS__)
#define npu__fail_more(ctx, ...) npu__fail_part((ctx), NPU_OK, __VA_ARGS__)

static NPU__MAYBE_UNUSED void npu__vfail_more(npu_context *ctx, const char *fmt, va_list ap)
{
    if (ctx != NULL) npu__vset_error(ctx, NPU_OK, 1, fmt, ap);
}

#else /* NPU_NO_MESSAGES: the same with the site for the text */

_Static_assert(NPU_STATUS_COUNT <= 32, "a status fits the low 5 bits of a site code (NPU__SITE_CODE)");

/* code: NPU__SITE_CODE(status); returns the status. */
static npu_status npu__fail_site(npu_context *ctx, unsigned code)
{
    npu_status status = (npu_status)(code & 31u);
    if (ctx == NULL) return status;
    npu__set_site(ctx, status, code >> 5);
    npu__log_error(ctx);
    return status;
}

#ifndef NPU_NO_LEVEL_ZERO
static NPU__MAYBE_UNUSED void npu__fail_begin_site(npu_context *ctx, unsigned code)
{
    if (ctx != NULL) npu__set_site(ctx, (npu_status)(code & 31u), code >> 5);
}
#endif

#define npu__fail_begin(ctx, status, ...) npu__fail_begin_site((ctx), NPU__SITE_CODE(status))
#define npu__fail_more(ctx, ...) NPU__UNUSED(ctx)
#define npu__textf(dst, cap, ...) npu__site_text((dst), (cap), NPU__SITE)
#endif /* NPU_NO_MESSAGES */

/* Options structs end in reserved words that must be zero (npu.h, "ABI"):
 * a non-zero one is a field of a newer npu.h this library does not know. */
static npu_status npu__check_reserved_n(npu_context *ctx, const uint32_t *reserved, unsigned n, const char *what)
{
    unsigned i;
    NPU__MSG_UNUSED(what);
    for (i = 0; i < n; i++)
        if (reserved[i] != 0)
            return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "%s: reserved[%u] is %lu, not 0 (a field of a newer "
                             "npu.h than this library, " NPU_VERSION_STRING "?)", what, i,
                             (unsigned long)reserved[i]);
    return NPU_OK;
}


#if !defined(NPU_NO_LEVEL_ZERO) && defined(NPU__SOURCES)
/* Cuts the message being recorded to at most n bytes. */
static void npu__fail_cut(npu_context *ctx, size_t n)
{
    if (ctx == NULL || n >= sizeof ctx->last_error) return;
    npu__ctx_lock(ctx);
    ctx->last_error[n] = '\0';
    npu__ctx_unlock(ctx);
}
#endif

#if !defined(NPU_NO_MESSAGES) || !defined(NPU_NO_LEVEL_ZERO)
static NPU__MAYBE_UNUSED npu_status npu__fail_end(npu_context *ctx, npu_status status)
{
    if (ctx != NULL) npu__log_error(ctx);
    return status;
}
#endif

#ifndef NPU_NO_GRAPH
/* Records a message formatted elsewhere (a graph's sticky error). */
static npu_status npu__fail_str(npu_context *ctx, npu_status status, const char *text)
{
    if (ctx == NULL) return status;
    npu__ctx_lock(ctx);
    ctx->last_status = status;
    npu__strlcpy(ctx->last_error, text, sizeof ctx->last_error);
    npu__ctx_unlock(ctx);
    npu__log_error(ctx);
    return status;
}
#endif

/* ==== 3. Arena =========================================================== */
/* Owns: npu_arena bookkeeping and the context object carved from an arena.
 * Calls: section 2 for the "too small" message. */

NPU_API uint32_t npu_version(void) { return (uint32_t)NPU_VERSION; }
NPU_API const char *npu_version_string(void) { return NPU_VERSION_STRING; }

NPU_API npu_status npu_arena_init(npu_arena *arena, void *memory, size_t capacity)
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

NPU_API size_t npu_arena_used(const npu_arena *arena) { return arena ? arena->used : 0; }

NPU_API size_t npu_arena_remaining(const npu_arena *arena)
{
    return arena && arena->capacity > arena->used ? arena->capacity - arena->used : 0;
}

NPU_API void npu_arena_rewind(npu_arena *arena, size_t mark)
{
    if (arena != NULL && mark <= arena->used) arena->used = mark;
}

/* Carves `size` bytes (rounded up to NPU_ARENA_ALIGN), zero-filled. On failure
 * records NPU_ERR_ARENA_TOO_SMALL in ctx naming `what` and the total bytes the
 * arena would have needed, and returns NULL. */
static void *npu__alloc(npu_arena *arena, npu_context *ctx, size_t size, const char *what)
{
    NPU__MSG_UNUSED(what);
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

NPU_API size_t npu_context_size(void) { return NPU_ARENA_ROUND(sizeof(struct npu_context)); }

NPU_API npu_status npu_context_create(npu_arena *arena, const npu_context_options *options,
                              npu_context **out)
{
    npu_context *ctx;
    if (out == NULL) return NPU_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (arena == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (options != NULL && (unsigned)options->log_level > (unsigned)NPU_LOG_DEBUG)
        return NPU_ERR_INVALID_ARGUMENT;
    if (options != NULL && npu__check_reserved(NULL, options->reserved, "context options") != NPU_OK)
        return NPU_ERR_INVALID_ARGUMENT;   /* no context yet to hold the message */
    /* zero-filled: no status, no message, no logger */
    ctx = (npu_context *)npu__alloc(arena, NULL, sizeof *ctx, "context");
    if (ctx == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    ctx->log_level = NPU_LOG_ERROR;
    atomic_flag_clear(&ctx->lock);
    if (options != NULL) {
        ctx->log = options->log;
        ctx->log_user_data = options->log_user_data;
        ctx->log_level = options->log_level;
    }
    *out = ctx;
    return NPU_OK;
}

/* ==== 4. Types and shapes ================================================ */
/* Owns: the element-type table shared by the writer, the loader and the Level
 * Zero sections (OpenVINO names, bits, graph-extension precision codes). */

/* The element types an IR can name beyond npu_type. They follow the npu_type
 * values in npu__types, so that an npu_type is its own index and an index
 * below NPU_TYPE_COUNT is the npu_type it maps to (npu__elem_type). */
enum {
    NPU__ELEM_F64 = NPU_TYPE_COUNT, NPU__ELEM_I4, NPU__ELEM_I16, NPU__ELEM_U1, NPU__ELEM_U2,
    NPU__ELEM_U4, NPU__ELEM_U16, NPU__ELEM_U32, NPU__ELEM_U64, NPU__ELEM_NF4, NPU__ELEM_F4E2M1,
    NPU__ELEM_F8E4M3, NPU__ELEM_F8E5M2, NPU__ELEM_F8E8M0, NPU__ELEM_STRING, NPU__ELEM_DYNAMIC,
    NPU__ELEM_COUNT
};

typedef struct npu__type_info {
    const char *ov_name;       /* element_type in IR <data> */
    const char *ov_precision;  /* precision attribute of IR ports */
    uint8_t bits;              /* 0: no fixed size (undefined, string, dynamic) */
    uint8_t ze_precision;      /* npu_types: ze_graph_argument_precision_t */
    uint8_t ze_metadata;       /* npu_types: ze_graph_metadata_type */
} npu__type_info;

static const npu__type_info npu__types[] = {
    [NPU_TYPE_UNDEFINED] = {"undefined", "UNSPECIFIED", 0, 0x00, 0},
    [NPU_F32]            = {"f32", "FP32", 32, 0x01, 5},
    [NPU_F16]            = {"f16", "FP16", 16, 0x02, 4},
    [NPU_BF16]           = {"bf16", "BF16", 16, 0x09, 3},
    [NPU_I8]             = {"i8", "I8", 8, 0x07, 8},
    [NPU_U8]             = {"u8", "U8", 8, 0x04, 14},
    [NPU_I32]            = {"i32", "I32", 32, 0x05, 10},
    [NPU_I64]            = {"i64", "I64", 64, 0x11, 11},
    [NPU_BOOL]           = {"boolean", "BOOL", 8, 0x0E, 2},
    [NPU__ELEM_F64]      = {"f64", "FP64", 64, 0, 0},
    [NPU__ELEM_I4]       = {"i4", "I4", 4, 0, 0},
    [NPU__ELEM_I16]      = {"i16", "I16", 16, 0, 0},
    [NPU__ELEM_U1]       = {"u1", "BIN", 1, 0, 0},
    [NPU__ELEM_U2]       = {"u2", "U2", 2, 0, 0},
    [NPU__ELEM_U4]       = {"u4", "U4", 4, 0, 0},
    [NPU__ELEM_U16]      = {"u16", "U16", 16, 0, 0},
    [NPU__ELEM_U32]      = {"u32", "U32", 32, 0, 0},
    [NPU__ELEM_U64]      = {"u64", "U64", 64, 0, 0},
    [NPU__ELEM_NF4]      = {"nf4", "NF4", 4, 0, 0},
    [NPU__ELEM_F4E2M1]   = {"f4e2m1", "F4E2M1", 4, 0, 0},
    [NPU__ELEM_F8E4M3]   = {"f8e4m3", "FP8_E4M3", 8, 0, 0},
    [NPU__ELEM_F8E5M2]   = {"f8e5m2", "FP8_E5M2", 8, 0, 0},
    [NPU__ELEM_F8E8M0]   = {"f8e8m0", "FP8_E8M0", 8, 0, 0},
    [NPU__ELEM_STRING]   = {"string", "STRING", 0, 0, 0},
    [NPU__ELEM_DYNAMIC]  = {"dynamic", "DYNAMIC", 0, 0, 0},
};
_Static_assert(NPU__COUNT_OF(npu__types) == NPU__ELEM_COUNT, "one npu__types row per element type");

#if !defined(NPU_NO_IR)
/* The npu_type of an npu__types index; NPU_TYPE_UNDEFINED for IR-only types. */
static npu_type npu__elem_type(int e)
{
    return e > 0 && e < (int)NPU_TYPE_COUNT ? (npu_type)e : NPU_TYPE_UNDEFINED;
}
#endif

static int npu__type_valid(npu_type t)
{
    return (unsigned)t > (unsigned)NPU_TYPE_UNDEFINED && (unsigned)t < (unsigned)NPU_TYPE_COUNT;
}

NPU_API size_t npu_type_size(npu_type type) { return npu__type_valid(type) ? npu__types[type].bits / 8u : 0; }

NPU_API const char *npu_type_name(npu_type type)
{
    return npu__type_valid(type) ? npu__types[type].ov_name : "undefined";
}

NPU_API uint64_t npu_shape_elements(const npu_shape *shape)
{
    uint64_t n = 1;
    uint32_t i;
    if (shape == NULL || shape->rank > NPU_MAX_RANK) return 0;
    for (i = 0; i < shape->rank; i++) {
        if (shape->dims[i] < 0 || npu__mul_u64(n, (uint64_t)shape->dims[i], &n)) return 0;
    }
    return n;
}

#ifdef NPU__SOURCES
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
#endif

#if !defined(NPU_NO_MESSAGES) && (!defined(NPU_NO_GRAPH) || !defined(NPU_NO_LEVEL_ZERO) || !defined(NPU_NO_IR))
/* Formats a shape as "[1,3,?,224]" for messages; always terminated, cut at
 * cap as snprintf cuts. */
static const char *npu__shape_str(const npu_shape *s, char *buf, size_t cap)
{
    uint32_t i;
    size_t n;
    if (cap == 0) return buf;
    npu__textf(buf, cap, "[");
    for (i = 0; s != NULL && i < s->rank && i < NPU_MAX_RANK; i++) {
        n = strlen(buf);
        if (s->dims[i] < 0) npu__textf(buf + n, cap - n, "%s?", i ? "," : "");
        else npu__textf(buf + n, cap - n, "%s%lld", i ? "," : "", (long long)s->dims[i]);
    }
    n = strlen(buf);
    npu__textf(buf + n, cap - n, "]");
    return buf;
}
#endif

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

/* Out of line: gcc copied its six stores into each of the many callers. */
NPU__NOINLINE static NPU__MAYBE_UNUSED void npu__sink_init(npu__sink *s, void *dst, size_t cap)
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
    if (n == 0) return;   /* nothing to copy or feed (src may be NULL) */
    if (npu__add_size(s->len, n, &end)) {
        s->overflow = 1;
        return;
    }
    if (s->dst != NULL && end <= s->cap) memcpy(s->dst + s->len, src, n);
    if (s->feed != NULL) s->feed(s->feed_state, src, n);
    s->len = end;
}

static NPU__MAYBE_UNUSED void npu__sink_str(npu__sink *s, const char *str) { npu__sink_put(s, str, strlen(str)); }

static NPU__MAYBE_UNUSED void npu__sink_u64_dec(npu__sink *s, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + (v % 10));
        v /= 10;
    } while (v != 0);
    npu__sink_put(s, tmp + i, sizeof tmp - i);
}

#ifndef NPU_NO_LEVEL_ZERO
/* Lower-case hex without leading zeros (printf's %llx). */
static void npu__sink_u64_hex(npu__sink *s, uint64_t v)
{
    char tmp[16];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = "0123456789abcdef"[v & 15u];
        v >>= 4;
    } while (v != 0);
    npu__sink_put(s, tmp + i, sizeof tmp - i);
}

/* Ends the text a sink initialized as npu__sink_init(s, buf, cap - 1) wrote:
 * cut to cap - 1 bytes, NUL-terminated. */
static void npu__text_end(npu__sink *s, char *buf, size_t cap)
{
    buf[s->len < cap - 1 ? s->len : cap - 1] = '\0';
}

/* export_file's temp name into tmp (cut to cap, NUL-terminated): "<base>.tmp-",
 * and with with_id "<pid>-<id in hex>" after it. */
static void npu__temp_name(char *tmp, size_t cap, const char *base, int with_id, uint64_t id)
{
    npu__sink s;
    npu__sink_init(&s, tmp, cap - 1);
    npu__sink_str(&s, base);
    npu__sink_str(&s, ".tmp-");
    if (with_id) {
        npu__sink_u64_dec(&s, (uint64_t)getpid());
        npu__sink_str(&s, "-");
        npu__sink_u64_hex(&s, id);
    }
    npu__text_end(&s, tmp, cap);
}
#endif

#if defined(NPU__SOURCES)
static void npu__sink_i64_dec(npu__sink *s, int64_t v)
{
    if (v < 0) {
        npu__sink_put(s, "-", 1);
        npu__sink_u64_dec(s, (uint64_t)0 - (uint64_t)v);
    } else {
        npu__sink_u64_dec(s, (uint64_t)v);
    }
}
#endif

#ifdef NPU__SOURCES   /* the graph writer; an IR's preprocessing (8e) */
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
#endif

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

#if defined(NPU__SOURCES)
/* Overwrites `bytes` bytes at an offset already produced (headers whose sizes
 * are known only after the body is written). No-op when counting. */
static void npu__sink_patch_le(npu__sink *s, size_t offset, uint64_t v, unsigned bytes)
{
    if (s->dst != NULL && offset + bytes <= s->cap && offset + bytes <= s->len)
        npu__le_put(s->dst + offset, v, bytes);
}
#endif

#ifdef NPU__SOURCES
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
    /* A: [u16 major][u16 minor][u32 2][u64 xml size]; B: six u64, then
     * [u16 major][u16 minor]. The u64 fields are patched in
     * npu__payload_end_xml. */
    unsigned char h[NPU__PAYLOAD_B_HEADER + 4];
    size_t at;
    p->sink = sink;
    p->layout = npu__payload_resolve(layout);
    p->start = sink->len;
    at = p->layout == NPU_PAYLOAD_WEIGHTS_COPY ? 0 : NPU__PAYLOAD_B_HEADER;
    memset(h, 0, sizeof h);
    npu__le_put(h + at, (uint32_t)(compiler_version >> 16 | compiler_version << 16), 4);
    if (at == 0) h[4] = 2;
    npu__sink_put(sink, h, at == 0 ? 16u : sizeof h);
    p->consts_begin = sink->len;
    p->xml_begin = sink->len;
}

/* Call after the constants blob (B) and before the XML. */
static void npu__payload_mark_xml(npu__payload *p) { p->xml_begin = p->sink->len; }

/* Call after the XML. Layout A: then write the weights with
 * npu__payload_weights(). */
static void npu__payload_end_xml(npu__payload *p)
{
    npu__sink *s = p->sink;
    size_t base = p->start, xml_size = s->len - p->xml_begin;
    /* B: custom data offset and size, constants offset and size, model
     * offset and size; A: the xml size alone, at base + 8 (field 1) */
    uint64_t field[6] = {NPU__PAYLOAD_B_HEADER, 4, p->consts_begin - base, p->xml_begin - p->consts_begin,
                         p->xml_begin - base, xml_size};
    unsigned i = 0, n = 6;
    if (p->layout == NPU_PAYLOAD_WEIGHTS_COPY) {
        field[1] = xml_size;
        i = 1;
        n = 2;
    }
    for (; i < n; i++) npu__sink_patch_le(s, base + 8u * i, field[i], 8);
}

#endif
#if !defined(NPU_NO_IR)
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
#endif

/* Finishes a serializer call that follows the size-query convention: *size gets
 * the exact byte count; a too-small (non-NULL) dst gives NPU_ERR_BUFFER_TOO_SMALL
 * with the needed size in the message. */
static NPU__MAYBE_UNUSED npu_status npu__sink_finish(npu__sink *s, npu_context *ctx, const char *what,
                                   size_t *size)
{
    NPU__MSG_UNUSED(what);
    if (s->overflow) return npu__fail(ctx, NPU_ERR_OVERFLOW, "%s: size overflows size_t", what);
    if (size != NULL) *size = s->len;
    if (s->dst != NULL && s->len > s->cap)
        return npu__fail(ctx, NPU_ERR_BUFFER_TOO_SMALL,
                         "%s: buffer of %zu bytes is too small, %zu bytes needed", what,
                         s->cap, s->len);
    return NPU_OK;
}

#ifdef NPU__SOURCES
/* Shared by the graph writer (7) and the IR payload writer (8d). */
#define NPU__VERSION_7_0 (7u << 16)

/* The WeightsPointerAttribute key names the compiler reads: those of the
 * OpenVINO it was built with (ptr; np/ns; mpZ/msZ; mp/ms across OpenVINO
 * versions). Every compiler that has a layout-B serializer option (2025
 * npu_ud_2025_24 and later) is taken to read mp/ms, as the software NPU's
 * release profiles record (sim/profile.c); a compiler without the option never
 * gets layout B from the compile path. */
static void npu__wpa_keys(uint32_t compiler_version, const char **ptr_key, const char **size_key)
{
    (void)compiler_version;
    *ptr_key = "mp";
    *size_key = "ms";
}
#endif

#if !defined(NPU_NO_GRAPH) || !defined(NPU_NO_IR)
/* ---- Preprocessing plans: used by section 6 (npu_graph_set_preprocess) and
 * 8e (npu_ir_set_preprocess) ----
 * What OpenVINO's PrePostProcessor inserts (openvinotoolkit/openvino,
 * src/core/src/preprocess/preprocess_steps_impl.cpp and pre_post_process.cpp),
 * planned as a short chain of layers with their constants: the graph builds
 * the chain as nodes, the IR writes it into every payload. Reached only from
 * the set_preprocess / set_postprocess entry points. */

#define NPU__PP_MAX_LAYERS 24
#define NPU__PP_DATA 512
#define NPU__PP_SRC 255u   /* a chain input: the Parameter (pre) or the Result's producer (post) */

enum { NPU__PPL_CONST = 0, NPU__PPL_CONVERT, NPU__PPL_TRANSPOSE, NPU__PPL_GATHER, NPU__PPL_INTERP,
       NPU__PPL_SUB, NPU__PPL_DIV, NPU__PPL_CONV };

typedef struct npu__pp_layer {
    uint8_t op, n_in, nearest;
    uint8_t in[3];              /* chain indices of the producers, or NPU__PP_SRC */
    npu_type type;              /* output element type */
    int32_t batch_axis;         /* output axis holding the batch; -1 none */
    npu_shape shape;            /* output shape */
    uint32_t off, bytes;        /* Const: its data in npu__pp.data */
} npu__pp_layer;

typedef struct npu__pp {
    struct npu__pp *next;
    uint32_t index;             /* input or output index */
    int output;
    npu_tensor_desc model;      /* the model's tensor (before) */
    int32_t model_batch_axis;
    uint32_t n;                 /* chain layers; the last one is the chain's end */
    npu__pp_layer l[NPU__PP_MAX_LAYERS];
    uint32_t data_used;
    _Alignas(8) unsigned char data[NPU__PP_DATA];
    /* An IR's output plan: the layer port feeding the Result (found by
     * npu__pp_find_source, section 8e; the graph does not use these) */
    int src_found;              /* src_* below are set */
    int src_shared;             /* the port also feeds another output's Result */
    uint32_t src_layer, src_port;       /* layer id, port id */
    uint32_t src_index, src_outputs;    /* the port's index among the layer's outputs; their count */
    size_t src_name, src_name_len;      /* the layer's name="" value in the XML, as written there */
    size_t src_type, src_type_len;      /* its type="" value */
    int reshape;                /* npu_ir_set_input_shape's plan: no step, the input
                                   declared with a new shape; a preprocess replaces it */
    /* write state (under the IR's walk_lock) */
    uint32_t io_id, first_id;
    int io_seen;
} npu__pp;
_Static_assert(NPU_ARENA_ROUND(sizeof(npu__pp)) <= NPU_PREPROCESS_BYTES, "NPU_PREPROCESS_BYTES holds a plan");

/* Index of letter c in a plain layout, or -1. */
static int npu__pp_axis(const char *layout, char c)
{
    const char *p = strchr(layout, c);
    return p != NULL && c != '\0' ? (int)(p - layout) : -1;
}

/* A plain layout: one letter per axis, each A-Z at most once, or '?'. */
static int npu__pp_layout_ok(const char *layout, uint32_t rank)
{
    size_t n = strlen(layout), i, j;
    if (n != rank || n >= NPU_LAYOUT_MAX) return 0;
    for (i = 0; i < n; i++) {
        if (!((layout[i] >= 'A' && layout[i] <= 'Z') || layout[i] == '?')) return 0;
        for (j = 0; j < i; j++)
            if (layout[i] != '?' && layout[j] == layout[i]) return 0;
    }
    return 1;
}

/* Appends a layer; its Const data (bytes of `data`) goes into the plan. */
static npu__pp_layer *npu__pp_add(npu__pp *p, int op, npu_type type, const npu_shape *shape, int32_t batch_axis)
{
    npu__pp_layer *l;
    if (p->n >= NPU__PP_MAX_LAYERS) return NULL;
    l = &p->l[p->n++];
    memset(l, 0, sizeof *l);
    l->op = (uint8_t)op;
    l->type = type;
    l->shape = *shape;
    l->batch_axis = batch_axis;
    return l;
}

/* A Const of `count` values (i64, i32 or f32), shape `shape`; its index. */
static uint32_t npu__pp_const(npu__pp *p, npu_type type, const npu_shape *shape, const void *values, uint32_t count)
{
    uint32_t bytes = count * (uint32_t)npu_type_size(type);
    npu__pp_layer *l;
    if (p->data_used + bytes > NPU__PP_DATA || p->n >= NPU__PP_MAX_LAYERS) return NPU__PP_SRC;
    l = npu__pp_add(p, NPU__PPL_CONST, type, shape, -1);
    l->off = p->data_used;
    l->bytes = bytes;
    memcpy(p->data + p->data_used, values, bytes);
    p->data_used = (p->data_used + bytes + 7u) & ~7u;
    return p->n - 1;
}

/* The op layer after its constants: inputs cur (the data) and k0, k1. */
static int npu__pp_op(npu__pp *p, int op, uint32_t *cur, uint32_t k0, uint32_t k1, npu_type type,
                      const npu_shape *shape, int32_t batch_axis)
{
    npu__pp_layer *l;
    if (k0 == NPU__PP_SRC && op != NPU__PPL_CONVERT) return 0;
    l = npu__pp_add(p, op, type, shape, batch_axis);
    if (l == NULL) return 0;
    l->in[0] = (uint8_t)*cur;
    l->in[1] = (uint8_t)k0;
    l->in[2] = (uint8_t)k1;
    l->n_in = (uint8_t)(op == NPU__PPL_CONVERT ? 1 : op == NPU__PPL_GATHER || op == NPU__PPL_INTERP ? 3 : 2);
    *cur = p->n - 1;
    return 1;
}

/* Transpose so that output axis i is input axis perm[i]: shape, layout and
 * batch axis follow. */
static int npu__pp_transpose(npu__pp *p, uint32_t *cur, npu_shape *shape, char *layout, int32_t *batch_axis,
                             npu_type type, const int64_t *perm)
{
    npu_shape ks, out = *shape;
    char lay[NPU_LAYOUT_MAX];
    uint32_t i, k;
    int32_t b = -1;
    npu__strlcpy(lay, layout, sizeof lay);
    for (i = 0; i < shape->rank; i++) {
        out.dims[i] = shape->dims[perm[i]];
        if (lay[0] != '\0') layout[i] = lay[perm[i]];
        if (*batch_axis >= 0 && perm[i] == *batch_axis) b = (int32_t)i;
    }
    ks.rank = 1;
    ks.dims[0] = shape->rank;
    k = npu__pp_const(p, NPU_I64, &ks, perm, shape->rank);
    *shape = out;
    *batch_axis = b;
    return npu__pp_op(p, NPU__PPL_TRANSPOSE, cur, k, 0, type, shape, b);
}

/* Permutation taking layout `from` to layout `to` (same letters). */
static int npu__pp_perm(const char *from, const char *to, uint32_t rank, int64_t *perm, int *identity)
{
    uint32_t i;
    *identity = 1;
    for (i = 0; i < rank; i++) {
        int a = npu__pp_axis(from, to[i]);
        if (a < 0 || to[i] == '?') return 0;
        perm[i] = a;
        if (a != (int)i) *identity = 0;
    }
    return 1;
}

/* The pre chain: pp (checked) -> plan p; NULL or the reason it cannot be. */
static const char *npu__pp_plan_input(npu__pp *p, const npu_preprocess *pp, npu_type ut, const char *ul,
                                      npu_shape *us, int32_t *ub)
{
    const npu_tensor_desc *m = &p->model;
    const char *ml = m->layout;
    uint32_t rank = m->shape.rank, i, cur = NPU__PP_SRC;
    int hi, wi, ci, need_layout, identity;
    int64_t perm[NPU_MAX_RANK];
    npu_shape sh;
    char lay[NPU_LAYOUT_MAX];
    int32_t b;
    npu_type type = ut;
    need_layout = ul != ml || pp->height || pp->width || pp->resize || pp->color || pp->n_mean || pp->n_scale;
    if (need_layout && !npu__pp_layout_ok(ml, rank))
        return "the model input needs a layout with one letter per axis (npu_ir_set_layout, e.g. \"NCHW\")";
    /* only the element type changes: any layout, or none, will do */
    if (need_layout && !npu__pp_layout_ok(ul, rank))
        return "the caller's layout does not have one letter per axis of the input";
    if (need_layout && !npu__pp_perm(ul, ml, rank, perm, &identity))
        return "the caller's layout does not name the model layout's letters (no '?')";
    for (i = 0; i < rank; i++)
        if (m->shape.dims[i] < 0 && (int32_t)i != p->model_batch_axis) return "the model input has a dynamic shape";
    if ((unsigned)pp->resize > (unsigned)NPU_RESIZE_LINEAR) return "unknown resize algorithm";
    if ((unsigned)pp->color > (unsigned)NPU_COLOR_BGR_TO_GRAY) return "unknown colour conversion";
    if (pp->n_mean > NPU_PREPROCESS_MAX_CHANNELS || pp->n_scale > NPU_PREPROCESS_MAX_CHANNELS)
        return "more than NPU_PREPROCESS_MAX_CHANNELS mean or scale values";
    /* the caller's shape: the model's, permuted, with the caller's H, W, C */
    us->rank = rank;
    for (i = 0; i < rank; i++) {
        int a = need_layout ? npu__pp_axis(ml, ul[i]) : (int)i;
        us->dims[i] = m->shape.dims[a];   /* (ul is read only with a layout: need_layout) */
        if (pp->height && ul[i] == 'H') us->dims[i] = pp->height;
        if (pp->width && ul[i] == 'W') us->dims[i] = pp->width;
        if (pp->color >= NPU_COLOR_RGB_TO_GRAY && ul[i] == 'C') us->dims[i] = 3;
    }
    *ub = rank == 0 ? -1 : npu__pp_axis(ul, 'N') >= 0 ? npu__pp_axis(ul, 'N') : p->model_batch_axis < 0 ? -1 : 0;
    hi = npu__pp_axis(ul, 'H');
    wi = npu__pp_axis(ul, 'W');
    ci = npu__pp_axis(ul, 'C');
    if ((pp->height || pp->width || pp->resize) && (hi < 0 || wi < 0)) return "the layout names no H and W";
    if ((pp->color || pp->n_mean > 1 || pp->n_scale > 1) && ci < 0) return "the layout names no C";
    if (!pp->resize && hi >= 0 && wi >= 0 &&
        (us->dims[hi] != m->shape.dims[npu__pp_axis(ml, 'H')] || us->dims[wi] != m->shape.dims[npu__pp_axis(ml, 'W')]))
        return "the frame's height and width differ from the model's and no resize is set";
    if ((pp->color == NPU_COLOR_REVERSED || pp->color == NPU_COLOR_AS_MODEL) && ci >= 0 && need_layout &&
        us->dims[ci] != m->shape.dims[npu__pp_axis(ml, 'C')])
        return "channel count differs";
    if (pp->color >= NPU_COLOR_RGB_TO_GRAY && (rank != 4 || m->shape.dims[npu__pp_axis(ml, 'C')] != 1 ||
                                               (ci != 1 && ci != 3)))
        return "a conversion to gray needs a rank-4 model input with 1 channel and C on axis 1 or 3";
    if ((pp->color >= NPU_COLOR_RGB_TO_GRAY || pp->n_mean || pp->n_scale || pp->resize == NPU_RESIZE_LINEAR) &&
        m->type != NPU_F32)
        return "mean, scale, gray conversion and linear resize need an f32 model input";
    for (i = 0; i < pp->n_scale; i++)
        if (pp->scale[i] == 0.0f) return "a scale value is 0";
    sh = *us;
    b = *ub;
    npu__strlcpy(lay, ul, sizeof lay);
    /* 1. element type */
    if (type != m->type) {
        if (!npu__pp_op(p, NPU__PPL_CONVERT, &cur, NPU__PP_SRC, 0, m->type, &sh, b)) return "too many steps";
        type = m->type;
    }
    /* 2. colour */
    if (pp->color == NPU_COLOR_REVERSED) {
        int32_t idx[64], axis = ci;
        npu_shape ks;
        uint32_t k0, k1, c = (uint32_t)sh.dims[ci];
        if (c == 0 || c > NPU__COUNT_OF(idx)) return "too many channels to reverse";
        for (i = 0; i < c; i++) idx[i] = (int32_t)(c - 1 - i);
        ks.rank = 1;
        ks.dims[0] = c;
        k0 = npu__pp_const(p, NPU_I32, &ks, idx, c);
        ks.dims[0] = 1;
        k1 = npu__pp_const(p, NPU_I32, &ks, &axis, 1);
        if (k1 == NPU__PP_SRC || !npu__pp_op(p, NPU__PPL_GATHER, &cur, k0, k1, type, &sh, b)) return "too many steps";
    } else if (pp->color >= NPU_COLOR_RGB_TO_GRAY) {
        static const float rgb[3] = {0.299f, 0.587f, 0.114f}, bgr[3] = {0.114f, 0.587f, 0.299f};
        static const int64_t to_nc[4] = {0, 3, 1, 2}, from_nc[4] = {0, 2, 3, 1};
        npu_shape ks = {4, {1, 3, 1, 1}};
        uint32_t k;
        if (ci == 3 && !npu__pp_transpose(p, &cur, &sh, lay, &b, type, to_nc)) return "too many steps";
        k = npu__pp_const(p, NPU_F32, &ks, pp->color == NPU_COLOR_RGB_TO_GRAY ? rgb : bgr, 3);
        sh.dims[1] = 1;
        if (!npu__pp_op(p, NPU__PPL_CONV, &cur, k, 0, type, &sh, b)) return "too many steps";
        if (ci == 3 && !npu__pp_transpose(p, &cur, &sh, lay, &b, type, from_nc)) return "too many steps";
    }
    /* 3. resize */
    if (pp->resize != NPU_RESIZE_NONE) {
        int64_t sizes[2], axes[2];
        npu_shape ks = {1, {2}};
        uint32_t k0, k1;
        sizes[0] = m->shape.dims[npu__pp_axis(ml, 'H')];
        sizes[1] = m->shape.dims[npu__pp_axis(ml, 'W')];
        axes[0] = hi;
        axes[1] = wi;
        k0 = npu__pp_const(p, NPU_I64, &ks, sizes, 2);
        k1 = npu__pp_const(p, NPU_I64, &ks, axes, 2);
        sh.dims[hi] = sizes[0];
        sh.dims[wi] = sizes[1];
        if (k1 == NPU__PP_SRC || !npu__pp_op(p, NPU__PPL_INTERP, &cur, k0, k1, type, &sh, b)) return "too many steps";
        p->l[cur].nearest = pp->resize == NPU_RESIZE_NEAREST;
    }
    /* 4, 5. mean, scale: [1], or 1 x .. C .. x 1 (the channel count after the colour step) */
    for (i = 0; i < 2; i++) {
        uint32_t n = i == 0 ? pp->n_mean : pp->n_scale, k, j;
        npu_shape ks;
        if (n == 0) continue;
        if (n > 1 && sh.dims[ci] != (int64_t)n) return "the mean or scale count is neither 1 nor the channel count";
        ks.rank = n == 1 ? 1 : rank;
        for (j = 0; j < ks.rank; j++) ks.dims[j] = 1;
        if (n > 1) ks.dims[ci] = n;
        k = npu__pp_const(p, NPU_F32, &ks, i == 0 ? pp->mean : pp->scale, n);
        if (!npu__pp_op(p, i == 0 ? NPU__PPL_SUB : NPU__PPL_DIV, &cur, k, 0, type, &sh, b)) return "too many steps";
    }
    /* 6. layout */
    if (need_layout && npu__pp_perm(lay, ml, rank, perm, &identity) && !identity &&
        !npu__pp_transpose(p, &cur, &sh, lay, &b, type, perm))
        return "too many steps";
    for (i = 0; i < rank; i++)
        if (sh.dims[i] != m->shape.dims[i] && (int32_t)i != p->model_batch_axis)
            return "the steps do not end in the model's shape";
    return NULL;
}


/* A plan of NPU_PREPROCESS_BYTES from `arena` for input (or output) `index`. */
static npu_status npu__pp_new(npu_context *ctx, npu_arena *arena, int output, uint32_t index, const char *what,
                              npu__pp **out)
{
    NPU__MSG_UNUSED(what);
    if (NPU_ARENA_ROUND(NPU_PREPROCESS_BYTES) > npu_arena_remaining(arena))
        return npu__fail(ctx, NPU_ERR_ARENA_TOO_SMALL, "%s: arena too small: needs NPU_PREPROCESS_BYTES (%d), %zu free",
                         what, NPU_PREPROCESS_BYTES, npu_arena_remaining(arena));
    *out = (npu__pp *)npu__alloc(arena, ctx, NPU_PREPROCESS_BYTES, "preprocessing");
    if (*out == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    (*out)->output = output;
    (*out)->index = index;
    return NPU_OK;
}

/* The output chain: Convert to ut, then Transpose from the model's layout to
 * ul (ul == the model's layout pointer: none). NULL, or why not. */
static const char *npu__pp_plan_output(npu__pp *p, npu_type ut, const char *ul, npu_shape *sh)
{
    char lay[NPU_LAYOUT_MAX];
    int64_t perm[NPU_MAX_RANK];
    int identity = 1;
    int32_t b = p->model_batch_axis;
    uint32_t cur = NPU__PP_SRC;
    *sh = p->model.shape;
    npu__strlcpy(lay, p->model.layout, sizeof lay);
    if (!npu__type_valid(ut)) return "unknown element type";
    if (ul != p->model.layout && !npu__pp_layout_ok(p->model.layout, sh->rank))
        return "the model output needs a layout with one letter per axis";
    if (ul != p->model.layout && (!npu__pp_layout_ok(ul, sh->rank) || !npu__pp_perm(lay, ul, sh->rank, perm, &identity)))
        return "the caller's layout does not name the model layout's letters, one per axis";
    if (ut != p->model.type && !npu__pp_op(p, NPU__PPL_CONVERT, &cur, NPU__PP_SRC, 0, ut, sh, b))
        return "too many steps";
    if (!identity && !npu__pp_transpose(p, &cur, sh, lay, &b, ut, perm)) return "too many steps";
    return NULL;
}
#endif

#ifndef NPU_NO_GRAPH   /* sections 6 and 7 */
/* ==== 6. Graph builder =================================================== */
/* Owns: npu_graph and npu_node, the op table (IR type, opset, inference, XML
 * attributes), type/shape inference, batch re-inference and introspection.
 * Calls: section 2 (arena), 3 (errors), 4 (types, shapes). Section 7 (below)
 * walks the nodes to write the IR.
 *
 * Nodes are carved one by one from the graph's arena and linked in creation
 * order, which is a topological order (an op's inputs exist before it). An op
 * is built in three steps: npu__op_begin checks the inputs and the names, sizes
 * the whole op and carves it (plus the implicit i64 Constant some ops need);
 * the op fills its attributes; npu__op_finish runs inference and links the
 * nodes, or rewinds the arena and records the sticky error. */

/* Every op, one row each. The op enum here and one const row object per op
 * (npu__op_info_<E>, section 7) are generated from this list, so that neither
 * can miss a row or drift. Columns:
 *   enum suffix (NPU__OP_), IR layer type=, layer version=, OpenVINO class name
 *   (messages and automatic names), IR category (NPU__CAT_), shape inference
 *   (npu__infer_; NULL: a source, its shape is set at creation), <data>
 *   attributes writer (npu__attrs_; NULL: the layer has no <data>).
 * The functions are named only where section 7 expands the table, after their
 * definitions. */
#define NPU__OPS(X) \
    X(PARAMETER,         "Parameter",        "opset1", "Parameter",        PARAMETER, NULL,        parameter) \
    X(CONSTANT,          "Const",            "opset1", "Constant",         OP,        NULL,        none) \
    X(RESULT,            "Result",           "opset1", "Result",           RESULT,    result,      NULL) \
    X(CONVERT,           "Convert",          "opset1", "Convert",          OP,        convert,     convert) \
    X(MATMUL,            "MatMul",           "opset1", "MatMul",           OP,        matmul,      matmul) \
    X(ADD,               "Add",              "opset1", "Add",              OP,        binary,      broadcast) \
    X(SUBTRACT,          "Subtract",         "opset1", "Subtract",         OP,        binary,      broadcast) \
    X(MULTIPLY,          "Multiply",         "opset1", "Multiply",         OP,        binary,      broadcast) \
    X(DIVIDE,            "Divide",           "opset1", "Divide",           OP,        binary,      broadcast) \
    X(MAXIMUM,           "Maximum",          "opset1", "Maximum",          OP,        binary,      broadcast) \
    X(MINIMUM,           "Minimum",          "opset1", "Minimum",          OP,        binary,      broadcast) \
    X(RELU,              "ReLU",             "opset1", "Relu",             OP,        unary_arith, NULL) \
    X(SIGMOID,           "Sigmoid",          "opset1", "Sigmoid",          OP,        unary_arith, NULL) \
    X(TANH,              "Tanh",             "opset1", "Tanh",             OP,        unary_arith, NULL) \
    X(EXP,               "Exp",              "opset1", "Exp",              OP,        unary_arith, NULL) \
    X(SQRT,              "Sqrt",             "opset1", "Sqrt",             OP,        unary_arith, NULL) \
    X(CLAMP,             "Clamp",            "opset1", "Clamp",            OP,        clamp,       clamp) \
    X(SOFTMAX,           "SoftMax",          "opset8", "Softmax",          OP,        softmax,     axis) \
    X(CONVOLUTION,       "Convolution",      "opset1", "Convolution",      OP,        conv,        conv) \
    X(GROUP_CONVOLUTION, "GroupConvolution", "opset1", "GroupConvolution", OP,        conv,        conv) \
    X(MAX_POOL,          "MaxPool",          "opset1", "MaxPool",          OP,        pool,        pool) \
    X(AVG_POOL,          "AvgPool",          "opset1", "AvgPool",          OP,        pool,        pool) \
    X(REDUCE_MEAN,       "ReduceMean",       "opset1", "ReduceMean",       OP,        reduce,      keep_dims) \
    X(REDUCE_SUM,        "ReduceSum",        "opset1", "ReduceSum",        OP,        reduce,      keep_dims) \
    X(RESHAPE,           "Reshape",          "opset1", "Reshape",          OP,        reshape,     special_zero) \
    X(SQUEEZE,           "Squeeze",          "opset1", "Squeeze",          OP,        squeeze,     NULL) \
    X(UNSQUEEZE,         "Unsqueeze",        "opset1", "Unsqueeze",        OP,        unsqueeze,   NULL) \
    X(TRANSPOSE,         "Transpose",        "opset1", "Transpose",        OP,        transpose,   NULL) \
    X(CONCAT,            "Concat",           "opset1", "Concat",           OP,        concat,      axis) \
    X(READ_VALUE,        "ReadValue",        "opset6", "ReadValue",        OP,        read_value,  read_value) \
    X(ASSIGN,            "Assign",           "opset6", "Assign",           ASSIGN,    assign,      assign) \
    X(HSWISH,            "HSwish",           "opset4", "HSwish",           OP,        float_unary, NULL) \
    X(HSIGMOID,          "HSigmoid",         "opset5", "HSigmoid",         OP,        float_unary, NULL) \
    X(MISH,              "Mish",             "opset4", "Mish",             OP,        float_unary, NULL) \
    X(GELU,              "Gelu",             "opset7", "Gelu",             OP,        float_unary, gelu) \
    X(SWISH,             "Swish",            "opset4", "Swish",            OP,        swish,       NULL) \
    X(ERF,               "Erf",              "opset1", "Erf",              OP,        unary_arith, NULL) \
    X(LOG,               "Log",              "opset1", "Log",              OP,        unary_arith, NULL) \
    X(FLOOR,             "Floor",            "opset1", "Floor",            OP,        unary_arith, NULL) \
    X(POWER,             "Power",            "opset1", "Power",            OP,        binary,      broadcast) \
    X(PRELU,             "PReLU",            "opset1", "PRelu",            OP,        prelu,       NULL) \
    X(PAD,               "Pad",              "opset12", "Pad",             OP,        pad,         pad) \
    X(SLICE,             "Slice",            "opset8", "Slice",            OP,        slice,       NULL) \
    X(FAKE_QUANTIZE,     "FakeQuantize",     "opset1", "FakeQuantize",     OP,        fake_quantize, fake_quantize) \
    X(INTERPOLATE,       "Interpolate",      "opset11", "Interpolate",     OP,        interpolate, interpolate) \
    X(GATHER,            "Gather",           "opset8", "Gather",           OP,        gather,      gather)

#define NPU__OP_ENUM(e, type, version, name, cat, infer, attrs) NPU__OP_##e,
typedef enum npu__op { NPU__OPS(NPU__OP_ENUM) NPU__OP_COUNT } npu__op;
#undef NPU__OP_ENUM

/* A row with an empty string cannot compile. */
#define NPU__OP_CHECK(e, type, version, name, cat, infer, attrs) \
    _Static_assert(sizeof(type) > 1 && sizeof(version) > 1 && sizeof(name) > 1, "op " #e ": empty name");
NPU__OPS(NPU__OP_CHECK)
#undef NPU__OP_CHECK
_Static_assert(NPU__OP_COUNT <= UINT8_MAX + 1, "npu_node.op is a uint8_t");

/* Layer order in the IR, as OpenVINO's serializer: Parameters, other ops,
 * sinks (Assign), Results. */
enum { NPU__CAT_PARAMETER, NPU__CAT_OP, NPU__CAT_ASSIGN, NPU__CAT_RESULT, NPU__CAT_COUNT };

#define NPU__INLINE_INPUTS 4u
#define NPU__FIRST_ERROR_MAX 512

struct npu_node {
    npu_graph *graph;          /* owner: ops refuse nodes of another graph */
    npu_node *next;            /* creation order */
    const char *name;
    npu_node **inputs;         /* inline_inputs, or an arena array (Concat) */
    npu_node *inline_inputs[NPU__INLINE_INPUTS];
    npu_node *first_result;    /* Results fed by this node (their names are the
                                  tensor names of this output) */
    npu_node *next_result;     /* in a Result: the next Result of the same source */
    uint32_t n_inputs;
    uint32_t index;            /* creation index */
    uint32_t cat_index;        /* index within its category (IR layer id) */
    uint32_t name_hash;
    uint8_t op;                /* npu__op */
    uint8_t cat;
    const struct npu__op_info *info;   /* the op's row: names, inference, attributes */
    uint8_t pp_set;            /* Parameter / Result: pre- or postprocessing inserted */
    npu_type type;             /* output element type */
    npu_shape shape;           /* output shape */
    char layout[NPU_LAYOUT_MAX];
    union {
        struct { const void *data; uint64_t bytes; } constant;
        struct { int64_t saved_batch; } parameter;
        struct { npu_type to; } convert;
        struct { int transpose_a, transpose_b; } matmul;
        struct { double min, max; } clamp;
        struct { int64_t axis; } axis;           /* Softmax, Concat (normalized) */
        struct { int flag; } flag;               /* keep_dims, special_zero */
        struct {
            int64_t strides[NPU_MAX_SPATIAL], dilations[NPU_MAX_SPATIAL];
            int64_t pads_begin[NPU_MAX_SPATIAL], pads_end[NPU_MAX_SPATIAL];
            npu_auto_pad auto_pad;
        } conv;
        struct {
            int64_t kernel[NPU_MAX_SPATIAL], strides[NPU_MAX_SPATIAL];
            int64_t pads_begin[NPU_MAX_SPATIAL], pads_end[NPU_MAX_SPATIAL];
            npu_rounding rounding_type;
            int exclude_pad;
            npu_auto_pad auto_pad;
        } pool;
        struct { const char *variable_id; npu_node *read_value; int assigned; } var;
        struct { uint32_t levels; } fq;
        struct { uint8_t mode, coord, nearest, by_scales; } interp;
    } a;
};

struct npu_graph {
    npu_arena *arena;
    npu_context *ctx;
    const char *name;
    npu_node *first, *last;
    uint32_t node_count;
    uint32_t max_nodes;
    uint32_t cat_count[NPU__CAT_COUNT];
    uint32_t state_count;
    size_t bytes_used;
    npu_status status;                     /* sticky first failure */
    char first_error[NPU__FIRST_ERROR_MAX];
    /* the op being built (between npu__op_begin and npu__op_finish) */
    size_t pending_mark;
    npu_node *pending_const;
};

/* Inference messages are formatted here first, so that the creation path and
 * set_batch can each frame them. */
typedef struct npu__msg {
    char text[NPU__FIRST_ERROR_MAX];
} npu__msg;

typedef npu_status (*npu__infer_fn)(npu_node *n, npu__msg *m);
typedef void (*npu__attrs_fn)(npu__sink *s, const npu_node *n);

typedef struct npu__op_info {
    uint8_t op;              /* npu__op */
    const char *ir_type;     /* layer type= */
    const char *version;     /* layer version= */
    const char *op_name;     /* OpenVINO class name: messages and automatic names */
    uint8_t cat;
    npu__infer_fn infer;     /* NULL: sources, shape set at creation */
    npu__attrs_fn attrs;     /* writes the <data> attributes; NULL: no <data> */
} npu__op_info;

/* One const object per op (npu__op_info_<E>, defined in section 7 after the
 * functions they name), reached only through the builders that make the op
 * and through the node: a program links the inference and attribute code of
 * the ops it builds, no other (--gc-sections). */
#define NPU__OP_DECL(e, type, version, name, cat, infer, attrs) static const npu__op_info npu__op_info_##e;
NPU__OPS(NPU__OP_DECL)
#undef NPU__OP_DECL

NPU__MSG_ONLY(static const char *npu__op_name(const npu_node *n) { return n->info->op_name; })

#ifndef NPU_NO_MESSAGES
/* "Op 'name': detail" into m. */
NPU__NOINLINE static void npu__vmsg(npu__msg *m, const npu_node *n, const char *fmt, va_list ap)
{
    char detail[320];
    vsnprintf(detail, sizeof detail, fmt, ap);
    snprintf(m->text, sizeof m->text, "%s '%s': %s", npu__op_name(n), n->name, detail);
}

NPU__PRINTF(4, 5)
static npu_status npu__infer_error(npu__msg *m, const npu_node *n, npu_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    npu__vmsg(m, n, fmt, ap);
    va_end(ap);
    return status;
}
#else
static npu_status npu__ierr_site(npu__msg *m, npu_status status, unsigned line)
{
    npu__site_text(m->text, sizeof m->text, line);
    return status;
}
#define npu__infer_error(m, n, status, ...) npu__ierr_site((m), (status), NPU__SITE)
#endif

static uint32_t npu__hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s != '\0'; s++) h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* ---- Shape helpers ---- */

static int npu__dim_dyn(int64_t d) { return d < 0; }

static void npu__shape_set(npu_shape *s, uint32_t rank)
{
    memset(s, 0, sizeof *s);
    s->rank = rank;
}

/* Normalizes an axis in [-rank, rank-1]; 0 (and *out 0) when out of range. */
static int npu__norm_axis(int64_t axis, uint32_t rank, uint32_t *out)
{
    int64_t r = (int64_t)rank;
    *out = 0;
    if (axis < -r || axis >= r) return 0;
    *out = (uint32_t)(axis < 0 ? axis + r : axis);
    return 1;
}

/* One numpy-broadcast dim; 0 if incompatible. */
static int npu__bcast_dim(int64_t a, int64_t b, int64_t *out)
{
    if (a == b) *out = a;
    else if (a == 1) *out = b;
    else if (b == 1) *out = a;
    else if (npu__dim_dyn(a)) *out = b;
    else if (npu__dim_dyn(b)) *out = a;
    else return 0;
    return 1;
}

/* Broadcasts a[0..ra) and b[0..rb) right-aligned into out (rank max). */
static int npu__bcast(const int64_t *a, uint32_t ra, const int64_t *b, uint32_t rb, int64_t *out,
                      uint32_t *rout)
{
    uint32_t r = ra > rb ? ra : rb, i;
    for (i = 0; i < r; i++) {
        int64_t da = i < r - ra ? 1 : a[i - (r - ra)];
        int64_t db = i < r - rb ? 1 : b[i - (r - rb)];
        if (!npu__bcast_dim(da, db, &out[i])) return 0;
    }
    *rout = r;
    return 1;
}

/* Sums and products of non-negative dims; 1 on overflow (as npu__add_size). */
static int npu__dim_add(int64_t a, int64_t b, int64_t *out)
{
    if (a > INT64_MAX - b) return 1;
    *out = a + b;
    return 0;
}

static int npu__dim_mul(int64_t a, int64_t b, int64_t *out)
{
    if (a != 0 && b > INT64_MAX / a) return 1;
    *out = a * b;
    return 0;
}

/* Two dims that must be equal (a dynamic one matches anything). */
static int npu__dims_match(int64_t a, int64_t b) { return a == b || npu__dim_dyn(a) || npu__dim_dyn(b); }

NPU__MSG_ONLY(static const char *npu__shape_text(const npu_shape *s, char *buf) { return npu__shape_str(s, buf, 96); })

/* A compatible shape (dynamic dims match anything). */
static int npu__shapes_match(const npu_shape *a, const npu_shape *b)
{
    uint32_t i;
    if (a->rank != b->rank) return 0;
    for (i = 0; i < a->rank; i++)
        if (!npu__dims_match(a->dims[i], b->dims[i])) return 0;
    return 1;
}

/* ---- Checks shared by the inference functions ---- */

/* Input i has the type of input 0. */
static npu_status npu__same_type(npu__msg *m, const npu_node *n, uint32_t i)
{
    npu_type t0 = n->inputs[0]->type, ti = n->inputs[i]->type;
    if (ti == t0) return NPU_OK;
    return npu__infer_error(m, n, NPU_ERR_TYPE, "input %u has type %s, input 0 has type %s", i, npu_type_name(ti),
                     npu_type_name(t0));
}

/* Input 0 is numeric (arithmetic is not defined on boolean). */
static npu_status npu__numeric(npu__msg *m, const npu_node *n)
{
    if (n->inputs[0]->type != NPU_BOOL) return NPU_OK;
    return npu__infer_error(m, n, NPU_ERR_TYPE, "input 0 has type boolean; a numeric type is needed");
}

/* Normalizes an axis of input 0. */
static npu_status npu__input_axis(npu__msg *m, const npu_node *n, int64_t axis, uint32_t *out)
{
    const npu_shape *x = &n->inputs[0]->shape;
    NPU__MSG_ONLY(char s0[96];)
    if (npu__norm_axis(axis, x->rank, out)) return NPU_OK;
    return npu__infer_error(m, n, NPU_ERR_SHAPE, "axis %lld is out of range for input 0 of shape %s", (long long)axis,
                     npu__shape_text(x, s0));
}

/* `value` has the type and a compatible shape of variable node `var`. */
static npu_status npu__variable_fits(npu__msg *m, const npu_node *n, const npu_node *value, const npu_node *var)
{
    NPU__MSG_UNUSED(n);
    NPU__MSG_ONLY(char s0[96], s1[96];)
    if (value->type != var->type)
        return npu__infer_error(m, n, NPU_ERR_TYPE, "input 0 has type %s, variable '%s' has type %s",
                         npu_type_name(value->type), var->a.var.variable_id, npu_type_name(var->type));
    if (!npu__shapes_match(&value->shape, &var->shape))
        return npu__infer_error(m, n, NPU_ERR_SHAPE, "input 0 has shape %s, variable '%s' has shape %s",
                         npu__shape_text(&value->shape, s0), var->a.var.variable_id, npu__shape_text(&var->shape, s1));
    return NPU_OK;
}

/* ---- Inference, per op ---- */

static npu_status npu__infer_same(npu_node *n, npu__msg *m)
{
    NPU__UNUSED(m);
    n->type = n->inputs[0]->type;
    n->shape = n->inputs[0]->shape;
    return NPU_OK;
}

static int npu__type_is_float(npu_type t) { return t == NPU_F32 || t == NPU_F16 || t == NPU_BF16; }

static npu_status npu__infer_result(npu_node *n, npu__msg *m) { return npu__infer_same(n, m); }

static npu_status npu__infer_convert(npu_node *n, npu__msg *m)
{
    NPU__UNUSED(m);
    n->type = n->a.convert.to;
    n->shape = n->inputs[0]->shape;
    return NPU_OK;
}

static npu_status npu__infer_unary_arith(npu_node *n, npu__msg *m)
{
    npu_status st = npu__numeric(m, n);
    return st != NPU_OK ? st : npu__infer_same(n, m);
}

static npu_status npu__infer_binary(npu_node *n, npu__msg *m)
{
    const npu_node *a = n->inputs[0], *b = n->inputs[1];
    NPU__MSG_ONLY(char s0[96], s1[96];)
    npu_status st = npu__same_type(m, n, 1);
    if (st == NPU_OK) st = npu__numeric(m, n);
    if (st != NPU_OK) return st;
    npu__shape_set(&n->shape, 0);
    if (!npu__bcast(a->shape.dims, a->shape.rank, b->shape.dims, b->shape.rank, n->shape.dims,
                    &n->shape.rank))
        return npu__infer_error(m, n, NPU_ERR_SHAPE,
                         "input 1 has shape %s, input 0 has shape %s (not broadcastable)",
                         npu__shape_text(&b->shape, s1), npu__shape_text(&a->shape, s0));
    n->type = a->type;
    return NPU_OK;
}

static npu_status npu__infer_clamp(npu_node *n, npu__msg *m)
{
    if (!(n->a.clamp.min <= n->a.clamp.max))
        return npu__infer_error(m, n, NPU_ERR_INVALID_ARGUMENT, "min %g is not <= max %g", n->a.clamp.min,
                         n->a.clamp.max);
    return npu__infer_unary_arith(n, m);
}

static npu_status npu__infer_softmax(npu_node *n, npu__msg *m)
{
    const npu_node *x = n->inputs[0];
    uint32_t axis;
    npu_status st;
    if (!npu__type_is_float(x->type))
        return npu__infer_error(m, n, NPU_ERR_TYPE, "input 0 has type %s; f32, f16 or bf16 is needed",
                         npu_type_name(x->type));
    st = npu__input_axis(m, n, n->a.axis.axis, &axis);
    if (st != NPU_OK) return st;
    n->a.axis.axis = axis;
    return npu__infer_same(n, m);
}

static npu_status npu__infer_matmul(npu_node *n, npu__msg *m)
{
    const npu_node *a = n->inputs[0], *b = n->inputs[1];
    int64_t da[NPU_MAX_RANK], db[NPU_MAX_RANK], batch[NPU_MAX_RANK];
    uint32_t ra = a->shape.rank, rb = b->shape.rank, rbatch = 0, i;
    int a_vec = ra == 1, b_vec = rb == 1;
    int64_t ka, kb, rows, cols;
    NPU__MSG_ONLY(char s0[96], s1[96];)
    npu_status st = npu__same_type(m, n, 1);
    if (st != NPU_OK) return st;
    if (ra == 0 || rb == 0)
        return npu__infer_error(m, n, NPU_ERR_SHAPE, "input %d is a scalar (shapes %s and %s)",
                         ra == 0 ? 0 : 1, npu__shape_text(&a->shape, s0), npu__shape_text(&b->shape, s1));
    /* 1-D: a becomes [1,K], b becomes [K,1]; transposes do not apply to them */
    if (a_vec) { da[0] = 1; da[1] = a->shape.dims[0]; ra = 2; }
    else memcpy(da, a->shape.dims, sizeof(int64_t) * ra);
    if (b_vec) { db[0] = b->shape.dims[0]; db[1] = 1; rb = 2; }
    else memcpy(db, b->shape.dims, sizeof(int64_t) * rb);
    if (n->a.matmul.transpose_a && !a_vec) { int64_t t = da[ra - 2]; da[ra - 2] = da[ra - 1]; da[ra - 1] = t; }
    if (n->a.matmul.transpose_b && !b_vec) { int64_t t = db[rb - 2]; db[rb - 2] = db[rb - 1]; db[rb - 1] = t; }
    rows = da[ra - 2]; ka = da[ra - 1];
    kb = db[rb - 2]; cols = db[rb - 1];
    if (!npu__dims_match(ka, kb))
        return npu__infer_error(m, n, NPU_ERR_SHAPE,
                         "input 1 has shape %s, input 0 has shape %s: inner dims %lld and %lld "
                         "differ (transpose_a=%d, transpose_b=%d)",
                         npu__shape_text(&b->shape, s1), npu__shape_text(&a->shape, s0), (long long)ka,
                         (long long)kb, n->a.matmul.transpose_a != 0, n->a.matmul.transpose_b != 0);
    if (!npu__bcast(da, ra - 2, db, rb - 2, batch, &rbatch))
        return npu__infer_error(m, n, NPU_ERR_SHAPE,
                         "input 1 has shape %s, input 0 has shape %s: batch dims not broadcastable",
                         npu__shape_text(&b->shape, s1), npu__shape_text(&a->shape, s0));
    npu__shape_set(&n->shape, 0);
    for (i = 0; i < rbatch; i++) n->shape.dims[n->shape.rank++] = batch[i];
    if (!a_vec) n->shape.dims[n->shape.rank++] = rows;
    if (!b_vec) n->shape.dims[n->shape.rank++] = cols;
    n->type = a->type;
    return NPU_OK;
}

/* One spatial output dim of a convolution or pooling window (in, pads >= 0,
 * k_eff, stride >= 1): NPU_OK, NPU_ERR_SHAPE when the window exceeds the
 * padded input, NPU_ERR_OVERFLOW when the padded input does not fit int64. */
static npu_status npu__window_dim(int64_t in, int64_t k_eff, int64_t stride, int64_t pb, int64_t pe,
                                  npu_auto_pad pad, int ceil_mode, int64_t *out)
{
    int64_t span;
    *out = NPU_DIM_DYNAMIC;
    if (npu__dim_dyn(in)) return NPU_OK;
    if (pad == NPU_PAD_SAME_UPPER || pad == NPU_PAD_SAME_LOWER) {
        *out = in / stride + (in % stride != 0);
        return NPU_OK;
    }
    if (pad == NPU_PAD_VALID) pb = pe = 0;
    if (npu__dim_add(in, pb, &span) || npu__dim_add(span, pe, &span)) return NPU_ERR_OVERFLOW;
    if (span < k_eff) return NPU_ERR_SHAPE;
    span -= k_eff;
    *out = span / stride + (ceil_mode && span % stride != 0) + 1;
    return NPU_OK;
}

static int npu__auto_pad_valid(npu_auto_pad p)
{
    return (unsigned)p <= (unsigned)NPU_PAD_SAME_LOWER;
}

static npu_status npu__infer_conv(npu_node *n, npu__msg *m)
{
    const npu_node *x = n->inputs[0], *w = n->inputs[1];
    int group = n->op == NPU__OP_GROUP_CONVOLUTION;
    uint32_t r = x->shape.rank, sp, i, k0 = group ? 3u : 2u;
    int64_t cin, cout;
    NPU__MSG_ONLY(char s0[96], s1[96];)
    npu_status st = npu__same_type(m, n, 1);
    if (st != NPU_OK) return st;
    if (r < 3)
        return npu__infer_error(m, n, NPU_ERR_SHAPE, "input 0 has shape %s; rank 3 or more is needed",
                         npu__shape_text(&x->shape, s0));
    if (w->shape.rank != r + (group ? 1u : 0u))
        return npu__infer_error(m, n, NPU_ERR_SHAPE,
                         "input 1 has shape %s, input 0 has shape %s: weights need rank %u",
                         npu__shape_text(&w->shape, s1), npu__shape_text(&x->shape, s0), r + (group ? 1u : 0u));
    if (!npu__auto_pad_valid(n->a.conv.auto_pad))
        return npu__infer_error(m, n, NPU_ERR_INVALID_ARGUMENT, "unknown auto_pad %d", (int)n->a.conv.auto_pad);
    sp = r - 2;
    cin = w->shape.dims[group ? 2 : 1];
    cout = w->shape.dims[group ? 1 : 0];
    if (group) {   /* G groups: G * C_in input and G * C_out output channels */
        int64_t groups = w->shape.dims[0];
        if (npu__dim_dyn(groups)) cin = cout = NPU_DIM_DYNAMIC;
        if ((!npu__dim_dyn(cin) && npu__dim_mul(cin, groups, &cin)) ||
            (!npu__dim_dyn(cout) && npu__dim_mul(cout, groups, &cout)))
            return npu__infer_error(m, n, NPU_ERR_OVERFLOW, "input 1 has shape %s: channels overflow",
                             npu__shape_text(&w->shape, s1));
    }
    if (!npu__dims_match(x->shape.dims[1], cin))
        return npu__infer_error(m, n, NPU_ERR_SHAPE,
                         "input 1 has shape %s, input 0 has shape %s: input channels %lld, "
                         "weights expect %lld",
                         npu__shape_text(&w->shape, s1), npu__shape_text(&x->shape, s0),
                         (long long)x->shape.dims[1], (long long)cin);
    npu__shape_set(&n->shape, r);
    n->shape.dims[0] = x->shape.dims[0];
    n->shape.dims[1] = cout;
    for (i = 0; i < sp; i++) {
        int64_t *stride = &n->a.conv.strides[i], *dl = &n->a.conv.dilations[i];
        int64_t k = w->shape.dims[k0 + i], k_eff;
        npu_status st_dim;
        if (*stride == 0) *stride = 1;
        if (*dl == 0) *dl = 1;
        if (*stride < 0 || *dl < 0 || n->a.conv.pads_begin[i] < 0 || n->a.conv.pads_end[i] < 0)
            return npu__infer_error(m, n, NPU_ERR_INVALID_ARGUMENT,
                             "spatial axis %u: negative stride, dilation or pad", i);
        if (k < 1)
            return npu__infer_error(m, n, NPU_ERR_SHAPE, "input 1 has shape %s: kernel dims must be static and >= 1",
                             npu__shape_text(&w->shape, s1));
        if (npu__dim_mul(k - 1, *dl, &k_eff) || npu__dim_add(k_eff, 1, &k_eff))
            st_dim = NPU_ERR_OVERFLOW;
        else
            st_dim = npu__window_dim(x->shape.dims[2 + i], k_eff, *stride, n->a.conv.pads_begin[i],
                                     n->a.conv.pads_end[i], n->a.conv.auto_pad, 0, &n->shape.dims[2 + i]);
        if (st_dim != NPU_OK)
            return npu__infer_error(m, n, st_dim,
                             "input 1 has shape %s, input 0 has shape %s: the dilated kernel %s the "
                             "padded input on spatial axis %u",
                             npu__shape_text(&w->shape, s1), npu__shape_text(&x->shape, s0),
                             st_dim == NPU_ERR_OVERFLOW ? "overflows with" : "exceeds", i);
    }
    for (; i < NPU_MAX_SPATIAL; i++)
        n->a.conv.strides[i] = n->a.conv.dilations[i] = n->a.conv.pads_begin[i] = n->a.conv.pads_end[i] = 0;
    n->type = x->type;
    return NPU_OK;
}

static npu_status npu__infer_pool(npu_node *n, npu__msg *m)
{
    const npu_node *x = n->inputs[0];
    uint32_t r = x->shape.rank, sp, i;
    npu_status st;
    NPU__MSG_ONLY(char s0[96];)
    if (r < 3)
        return npu__infer_error(m, n, NPU_ERR_SHAPE, "input 0 has shape %s; rank 3 or more is needed",
                         npu__shape_text(&x->shape, s0));
    st = npu__numeric(m, n);
    if (st != NPU_OK) return st;
    if (!npu__auto_pad_valid(n->a.pool.auto_pad) ||
        (unsigned)n->a.pool.rounding_type > (unsigned)NPU_ROUND_CEIL)
        return npu__infer_error(m, n, NPU_ERR_INVALID_ARGUMENT, "unknown auto_pad or rounding_type");
    sp = r - 2;
    npu__shape_set(&n->shape, r);
    n->shape.dims[0] = x->shape.dims[0];
    n->shape.dims[1] = x->shape.dims[1];
    for (i = 0; i < sp; i++) {
        int64_t k = n->a.pool.kernel[i];
        if (n->a.pool.strides[i] == 0) n->a.pool.strides[i] = 1;
        if (k < 1 || n->a.pool.strides[i] < 0 || n->a.pool.pads_begin[i] < 0 || n->a.pool.pads_end[i] < 0)
            return npu__infer_error(m, n, NPU_ERR_INVALID_ARGUMENT,
                             "spatial axis %u: kernel %lld (must be >= 1) or a negative stride/pad",
                             i, (long long)k);
        st = npu__window_dim(x->shape.dims[2 + i], k, n->a.pool.strides[i], n->a.pool.pads_begin[i],
                             n->a.pool.pads_end[i], n->a.pool.auto_pad,
                             n->a.pool.rounding_type == NPU_ROUND_CEIL, &n->shape.dims[2 + i]);
        if (st != NPU_OK)
            return npu__infer_error(m, n, st, "input 0 has shape %s: kernel %lld %s the padded input on spatial axis %u",
                             npu__shape_text(&x->shape, s0), (long long)k,
                             st == NPU_ERR_OVERFLOW ? "overflows with" : "exceeds", i);
    }
    for (; i < NPU_MAX_SPATIAL; i++)
        n->a.pool.kernel[i] = n->a.pool.strides[i] = n->a.pool.pads_begin[i] = n->a.pool.pads_end[i] = 0;
    n->type = x->type;
    return NPU_OK;
}

/* The i64 values of an implicit Constant input. */
static const int64_t *npu__const_i64(const npu_node *c, uint32_t *count)
{
    *count = c->shape.rank == 0 ? 1u : (uint32_t)c->shape.dims[0];
    return (const int64_t *)c->a.constant.data;
}

static npu_status npu__infer_reduce(npu_node *n, npu__msg *m)
{
    const npu_node *x = n->inputs[0];
    uint32_t cnt, i, j, r = x->shape.rank, ax;
    const int64_t *axes = npu__const_i64(n->inputs[1], &cnt);
    unsigned char reduce[NPU_MAX_RANK] = {0};
    npu_status st = npu__numeric(m, n);
    for (i = 0; st == NPU_OK && i < cnt; i++) {
        st = npu__input_axis(m, n, axes[i], &ax);
        if (st != NPU_OK) break;
        if (reduce[ax])
            return npu__infer_error(m, n, NPU_ERR_INVALID_ARGUMENT, "axis %lld is given twice",
                             (long long)axes[i]);
        reduce[ax] = 1;
    }
    if (st != NPU_OK) return st;
    npu__shape_set(&n->shape, 0);
    for (j = 0; j < r; j++) {
        if (!reduce[j]) n->shape.dims[n->shape.rank++] = x->shape.dims[j];
        else if (n->a.flag.flag) n->shape.dims[n->shape.rank++] = 1;
    }
    n->type = x->type;
    return NPU_OK;
}

/* Input dims copied by special_zero cancel out of both element counts, so that
 * [?,4,6,6] -> [0,-1] still infers 144. */
static npu_status npu__infer_reshape(npu_node *n, npu__msg *m)
{
    const npu_node *x = n->inputs[0];
    uint32_t cnt, i, infer_at = UINT32_MAX;
    const int64_t *t = npu__const_i64(n->inputs[1], &cnt);
    uint64_t known = 1, total = 1;
    unsigned char copied[NPU_MAX_RANK] = {0};
    int dynamic = 0;
    NPU__MSG_ONLY(char s0[96], s1[96];)
    npu__shape_set(&n->shape, cnt);
    for (i = 0; i < cnt; i++) {
        int64_t d = t[i];
        if (d == -1) {
            if (infer_at != UINT32_MAX)
                return npu__infer_error(m, n, NPU_ERR_SHAPE, "target shape has more than one -1");
            infer_at = i;
            continue;
        }
        if (d < -1) return npu__infer_error(m, n, NPU_ERR_SHAPE, "target dim %u is %lld", i, (long long)d);
        if (d == 0 && n->a.flag.flag) {
            if (i >= x->shape.rank)
                return npu__infer_error(m, n, NPU_ERR_SHAPE,
                                 "target dim %u is 0 (special_zero) but input 0 of shape %s has "
                                 "no axis %u",
                                 i, npu__shape_text(&x->shape, s0), i);
            n->shape.dims[i] = x->shape.dims[i];
            copied[i] = 1;
            continue;
        }
        n->shape.dims[i] = d;
        if (npu__mul_u64(known, (uint64_t)d, &known))
            return npu__infer_error(m, n, NPU_ERR_OVERFLOW, "target shape overflows");
    }
    for (i = 0; i < x->shape.rank; i++) {
        if (i < cnt && copied[i]) continue;
        if (npu__dim_dyn(x->shape.dims[i])) dynamic = 1;
        else if (npu__mul_u64(total, (uint64_t)x->shape.dims[i], &total))
            return npu__infer_error(m, n, NPU_ERR_OVERFLOW, "input 0 shape overflows");
    }
    if (dynamic) {
        if (infer_at != UINT32_MAX) n->shape.dims[infer_at] = NPU_DIM_DYNAMIC;
    } else if (infer_at != UINT32_MAX) {
        if (known == 0 || total % known != 0)
            return npu__infer_error(m, n, NPU_ERR_SHAPE,
                             "input 0 has shape %s, which does not fit target %s", npu__shape_text(&x->shape, s0),
                             npu__shape_text(&n->shape, s1));
        n->shape.dims[infer_at] = (int64_t)(total / known);
    } else if (known != total) {
        return npu__infer_error(m, n, NPU_ERR_SHAPE, "input 0 has shape %s (%llu elements), target %s has %llu",
                         npu__shape_text(&x->shape, s0), (unsigned long long)npu_shape_elements(&x->shape),
                         npu__shape_text(&n->shape, s1), (unsigned long long)npu_shape_elements(&n->shape));
    }
    n->type = x->type;
    return NPU_OK;
}

static npu_status npu__infer_squeeze(npu_node *n, npu__msg *m)
{
    const npu_node *x = n->inputs[0];
    uint32_t i, r = x->shape.rank, ax, cnt = 0;
    unsigned char drop[NPU_MAX_RANK] = {0};
    NPU__MSG_ONLY(char s0[96];)
    if (n->n_inputs > 1) {
        const int64_t *axes = npu__const_i64(n->inputs[1], &cnt);
        for (i = 0; i < cnt; i++) {
            npu_status st = npu__input_axis(m, n, axes[i], &ax);
            if (st != NPU_OK) return st;
            if (x->shape.dims[ax] != 1)
                return npu__infer_error(m, n, NPU_ERR_SHAPE,
                                 "input 0 has shape %s: axis %u is not of size 1", npu__shape_text(&x->shape, s0),
                                 ax);
            drop[ax] = 1;
        }
    } else {
        for (i = 0; i < r; i++) drop[i] = x->shape.dims[i] == 1;
    }
    npu__shape_set(&n->shape, 0);
    for (i = 0; i < r; i++)
        if (!drop[i]) n->shape.dims[n->shape.rank++] = x->shape.dims[i];
    n->type = x->type;
    return NPU_OK;
}

static npu_status npu__infer_unsqueeze(npu_node *n, npu__msg *m)
{
    const npu_node *x = n->inputs[0];
    uint32_t cnt, i, j = 0, ax, out_rank;
    const int64_t *axes = npu__const_i64(n->inputs[1], &cnt);
    unsigned char add[NPU_MAX_RANK] = {0};
    NPU__MSG_ONLY(char s0[96];)
    out_rank = x->shape.rank + cnt;
    if (out_rank > NPU_MAX_RANK)
        return npu__infer_error(m, n, NPU_ERR_LIMIT, "input 0 has shape %s: the output would have rank %u > %d",
                         npu__shape_text(&x->shape, s0), out_rank, NPU_MAX_RANK);
    for (i = 0; i < cnt; i++) {
        if (!npu__norm_axis(axes[i], out_rank, &ax))
            return npu__infer_error(m, n, NPU_ERR_SHAPE, "axis %lld is out of range for output rank %u",
                             (long long)axes[i], out_rank);
        if (add[ax])
            return npu__infer_error(m, n, NPU_ERR_INVALID_ARGUMENT, "axis %lld is given twice",
                             (long long)axes[i]);
        add[ax] = 1;
    }
    npu__shape_set(&n->shape, out_rank);
    for (i = 0; i < out_rank; i++) n->shape.dims[i] = add[i] ? 1 : x->shape.dims[j++];
    n->type = x->type;
    return NPU_OK;
}

static npu_status npu__infer_transpose(npu_node *n, npu__msg *m)
{
    const npu_node *x = n->inputs[0];
    uint32_t cnt, i;
    const int64_t *perm = npu__const_i64(n->inputs[1], &cnt);
    unsigned char seen[NPU_MAX_RANK] = {0};
    NPU__MSG_ONLY(char s0[96];)
    if (cnt != x->shape.rank)
        return npu__infer_error(m, n, NPU_ERR_SHAPE, "perm has %u values, input 0 has shape %s", cnt,
                         npu__shape_text(&x->shape, s0));
    npu__shape_set(&n->shape, cnt);
    for (i = 0; i < cnt; i++) {
        if (perm[i] < 0 || perm[i] >= (int64_t)cnt || seen[perm[i]])
            return npu__infer_error(m, n, NPU_ERR_INVALID_ARGUMENT,
                             "perm is not a permutation of 0..%u (value %lld at %u)", cnt - 1,
                             (long long)perm[i], i);
        seen[perm[i]] = 1;
        n->shape.dims[i] = x->shape.dims[perm[i]];
    }
    n->type = x->type;
    return NPU_OK;
}

/* HSwish, HSigmoid, Mish, Gelu: OpenVINO defines them on floats only. */
static npu_status npu__infer_float_unary(npu_node *n, npu__msg *m)
{
    if (!npu__type_is_float(n->inputs[0]->type))
        return npu__infer_error(m, n, NPU_ERR_TYPE, "input 0 has type %s; f32, f16 or bf16 is needed",
                                npu_type_name(n->inputs[0]->type));
    return npu__infer_same(n, m);
}

/* Swish-4: an optional scalar beta of x's type. */
static npu_status npu__infer_swish(npu_node *n, npu__msg *m)
{
    npu_status st = npu__infer_float_unary(n, m);
    if (st == NPU_OK && n->n_inputs == 2) st = npu__same_type(m, n, 1);
    if (st == NPU_OK && n->n_inputs == 2 && n->inputs[1]->shape.rank != 0)
        return npu__infer_error(m, n, NPU_ERR_SHAPE, "beta must be a scalar");
    return st;
}

/* PRelu-1: a per-channel 1-D slope, or one that broadcasts onto x. */
static npu_status npu__infer_prelu(npu_node *n, npu__msg *m)
{
    const npu_node *x = n->inputs[0], *sl = n->inputs[1];
    int64_t out[NPU_MAX_RANK];
    uint32_t r = 0, i, ch = x->shape.rank > 1 ? 1u : 0u;
    int ok;
    NPU__MSG_ONLY(char s0[96], s1[96];)
    npu_status st = npu__infer_float_unary(n, m);
    if (st == NPU_OK) st = npu__same_type(m, n, 1);
    if (st != NPU_OK) return st;
    ok = sl->shape.rank == 1 && x->shape.rank >= 1 && sl->shape.dims[0] == x->shape.dims[ch];
    if (!ok && npu__bcast(x->shape.dims, x->shape.rank, sl->shape.dims, sl->shape.rank, out, &r) &&
        r == x->shape.rank) {
        ok = 1;
        for (i = 0; i < r; i++) ok &= out[i] == x->shape.dims[i];
    }
    if (!ok)
        return npu__infer_error(m, n, NPU_ERR_SHAPE, "slope of shape %s neither matches the channels of input 0 "
                                "(shape %s) nor broadcasts onto it",
                                npu__shape_text(&sl->shape, s1), npu__shape_text(&x->shape, s0));
    return NPU_OK;
}

/* Pad-12: inputs x, pads_begin, pads_end (i64 Constants), [pad_value]. */
static npu_status npu__infer_pad(npu_node *n, npu__msg *m)
{
    const npu_node *x = n->inputs[0];
    uint32_t cb, ce, i;
    const int64_t *b = npu__const_i64(n->inputs[1], &cb), *e = npu__const_i64(n->inputs[2], &ce);
    const int64_t lim = (int64_t)1 << 40;
    NPU__MSG_ONLY(char s0[96];)
    if (cb != x->shape.rank || ce != x->shape.rank)
        return npu__infer_error(m, n, NPU_ERR_SHAPE, "%u pads_begin and %u pads_end values for input 0 of shape %s "
                                "(one per axis)", cb, ce, npu__shape_text(&x->shape, s0));
    if (x->shape.rank == 0) return npu__infer_error(m, n, NPU_ERR_SHAPE, "input 0 is a scalar");
    n->type = x->type;
    n->shape = x->shape;
    for (i = 0; i < cb; i++) {
        int64_t d = x->shape.dims[i];
        if (b[i] > lim || b[i] < -lim || e[i] > lim || e[i] < -lim)
            return npu__infer_error(m, n, NPU_ERR_LIMIT, "pad of axis %u is too large", i);
        if (d < 0) continue;   /* a dynamic batch stays dynamic */
        if ((n->a.flag.flag == NPU_PAD_MODE_REFLECT && (b[i] >= d || e[i] >= d)) ||
            (n->a.flag.flag == NPU_PAD_MODE_SYMMETRIC && (b[i] > d || e[i] > d)))
            return npu__infer_error(m, n, NPU_ERR_INVALID_ARGUMENT,
                                    "axis %u of length %lld cannot be padded by %lld and %lld in %s mode", i,
                                    (long long)d, (long long)b[i], (long long)e[i],
                                    n->a.flag.flag == NPU_PAD_MODE_REFLECT ? "reflect" : "symmetric");
        if (d + b[i] + e[i] < 0)
            return npu__infer_error(m, n, NPU_ERR_SHAPE, "axis %u of length %lld padded by %lld and %lld is negative",
                                    i, (long long)d, (long long)b[i], (long long)e[i]);
        n->shape.dims[i] = d + b[i] + e[i];
    }
    if (n->n_inputs == 4) return npu__same_type(m, n, 3);
    return NPU_OK;
}

/* Slice-8: the element count per axis as OpenVINO's shape inference computes
 * it for a static dim (normalize, clip, count). */
static npu_status npu__infer_slice(npu_node *n, npu__msg *m)
{
    const npu_node *x = n->inputs[0];
    uint32_t c0, c1, c2, c3 = 0, i, r = x->shape.rank, seen = 0;
    const int64_t *start = npu__const_i64(n->inputs[1], &c0), *stop = npu__const_i64(n->inputs[2], &c1),
                  *step = npu__const_i64(n->inputs[3], &c2), *axes = NULL;
    NPU__MSG_ONLY(char s0[96];)
    if (n->n_inputs == 5) axes = npu__const_i64(n->inputs[4], &c3);
    if (r == 0) return npu__infer_error(m, n, NPU_ERR_SHAPE, "input 0 is a scalar");
    if (c1 != c0 || c2 != c0 || (axes != NULL && c3 != c0) || c0 > r)
        return npu__infer_error(m, n, NPU_ERR_SHAPE, "%u start, %u stop, %u step values for input 0 of shape %s",
                                c0, c1, c2, npu__shape_text(&x->shape, s0));
    n->type = x->type;
    n->shape = x->shape;
    for (i = 0; i < c0; i++) {
        int64_t ax = axes != NULL ? axes[i] : (int64_t)i, d, lb, ub, cnt, lower_max, upper_min;
        uint32_t a;
        int rev = step[i] < 0;
        if (!npu__norm_axis(ax, r, &a))
            return npu__infer_error(m, n, NPU_ERR_SHAPE, "axis %lld is out of range for input 0 of shape %s",
                                    (long long)ax, npu__shape_text(&x->shape, s0));
        if (seen & (1u << a)) return npu__infer_error(m, n, NPU_ERR_INVALID_ARGUMENT, "axis %u is given twice", a);
        seen |= 1u << a;
        if (step[i] == 0) return npu__infer_error(m, n, NPU_ERR_INVALID_ARGUMENT, "step %u is 0", i);
        d = x->shape.dims[a];
        if (d < 0) return npu__infer_error(m, n, NPU_ERR_SHAPE, "axis %u is dynamic", a);
        if (start[i] < -d - ((int64_t)1 << 40) || start[i] > ((int64_t)1 << 62) || stop[i] < -((int64_t)1 << 62) ||
            stop[i] > ((int64_t)1 << 62))
            return npu__infer_error(m, n, NPU_ERR_LIMIT, "start or stop of axis %u is out of range", a);
        lower_max = rev ? d - 1 : d;
        upper_min = rev ? -1 : 0;
        lb = start[i] < 0 ? start[i] + d : start[i];
        ub = stop[i] < 0 ? stop[i] + d : stop[i];
        lb = lb > 0 ? lb : 0;
        lb = lb < lower_max ? lb : lower_max;
        ub = ub > upper_min ? ub : upper_min;
        ub = ub < d ? ub : d;
        cnt = rev ? (ub - lb < 0 ? lb - ub : 0) : (ub - lb > 0 ? ub - lb : 0);
        if (cnt != 0) {
            uint64_t mag = rev ? (uint64_t)0 - (uint64_t)step[i] : (uint64_t)step[i];
            cnt = (int64_t)(((uint64_t)cnt - 1) / mag + 1);
        }
        n->shape.dims[a] = cnt;
    }
    return NPU_OK;
}

/* FakeQuantize-1: five inputs of one float type, the ranges broadcast
 * (numpy) with x; the result has the broadcast shape. */
static npu_status npu__infer_fake_quantize(npu_node *n, npu__msg *m)
{
    uint32_t i, r;
    npu_status st = npu__infer_float_unary(n, m);
    NPU__MSG_ONLY(char s0[96], s1[96];)
    for (i = 1; st == NPU_OK && i < 5; i++) st = npu__same_type(m, n, i);
    if (st != NPU_OK) return st;
    if (n->a.fq.levels < 2) return npu__infer_error(m, n, NPU_ERR_INVALID_ARGUMENT, "levels %u; at least 2", n->a.fq.levels);
    for (i = 1; i < 5; i++) {
        int64_t out[NPU_MAX_RANK];
        if (!npu__bcast(n->shape.dims, n->shape.rank, n->inputs[i]->shape.dims, n->inputs[i]->shape.rank, out, &r))
            return npu__infer_error(m, n, NPU_ERR_SHAPE, "input %u of shape %s does not broadcast with %s", i,
                                    npu__shape_text(&n->inputs[i]->shape, s1), npu__shape_text(&n->shape, s0));
        npu__shape_set(&n->shape, r);
        memcpy(n->shape.dims, out, sizeof(int64_t) * r);
    }
    return NPU_OK;
}

/* Interpolate-11: inputs x, sizes (i64) or scales (f32), axes (i64). */
static npu_status npu__infer_interpolate(npu_node *n, npu__msg *m)
{
    const npu_node *x = n->inputs[0], *v = n->inputs[1];
    uint32_t cnt, na, i, seen = 0, r = x->shape.rank;
    const int64_t *axes = npu__const_i64(n->inputs[2], &na);
    NPU__MSG_ONLY(char s0[96];)
    npu_status st = npu__numeric(m, n);
    if (st != NPU_OK) return st;
    cnt = v->shape.rank == 0 ? 1u : (uint32_t)v->shape.dims[0];
    if (cnt != na)
        return npu__infer_error(m, n, NPU_ERR_SHAPE, "%u %s for %u axes", cnt, n->a.interp.by_scales ? "scales" : "sizes", na);
    n->type = x->type;
    n->shape = x->shape;
    for (i = 0; i < na; i++) {
        uint32_t a;
        int64_t d;
        if (!npu__norm_axis(axes[i], r, &a))
            return npu__infer_error(m, n, NPU_ERR_SHAPE, "axis %lld is out of range for input 0 of shape %s",
                                    (long long)axes[i], npu__shape_text(&x->shape, s0));
        if (seen & (1u << a)) return npu__infer_error(m, n, NPU_ERR_INVALID_ARGUMENT, "axis %u is given twice", a);
        seen |= 1u << a;
        d = x->shape.dims[a];
        if (n->a.interp.by_scales) {
            float sc = ((const float *)v->a.constant.data)[i];
            float len;   /* in float, as OpenVINO: floor(length * (scale + 1e-6)) */
            if (!(sc > 0.0f) || sc > 1.0e6f)
                return npu__infer_error(m, n, NPU_ERR_INVALID_ARGUMENT, "scale %u is %g; a factor > 0 is needed", i, (double)sc);
            if (d < 0) continue;
            len = (float)d * (sc + 1.0e-6f);
            if (!(len >= 1.0f) || len > 1.0e12f)
                return npu__infer_error(m, n, NPU_ERR_SHAPE, "axis %u of length %lld scaled by %g has length %g", a,
                                        (long long)d, (double)sc, (double)len);
            n->shape.dims[a] = (int64_t)len;   /* positive: truncation is floor */
        } else {
            int64_t sz = ((const int64_t *)v->a.constant.data)[i];
            if (sz < 1 || sz > ((int64_t)1 << 40))
                return npu__infer_error(m, n, NPU_ERR_SHAPE, "size %u is %lld; at least 1 is needed", i, (long long)sz);
            n->shape.dims[a] = sz;
        }
    }
    return NPU_OK;
}

/* Gather-8 (batch_dims 0) as preprocessing uses it: i32 indices (1-D), a
 * one-value i32 axis. */
static npu_status npu__infer_gather(npu_node *n, npu__msg *m)
{
    const npu_node *x = n->inputs[0], *ix = n->inputs[1], *ax = n->inputs[2];
    const int32_t *iv = (const int32_t *)ix->a.constant.data;
    uint32_t a, i, cnt;
    int64_t d;
    NPU__MSG_ONLY(char s0[96];)
    if (ix->op != NPU__OP_CONSTANT || ax->op != NPU__OP_CONSTANT || ix->type != NPU_I32 || ax->type != NPU_I32 ||
        ix->shape.rank != 1 || ax->a.constant.bytes != 4)
        return npu__infer_error(m, n, NPU_ERR_INVALID_ARGUMENT, "indices and axis must be i32 Constants");
    if (!npu__norm_axis(*(const int32_t *)ax->a.constant.data, x->shape.rank, &a))
        return npu__infer_error(m, n, NPU_ERR_SHAPE, "axis is out of range for input 0 of shape %s",
                                npu__shape_text(&x->shape, s0));
    d = x->shape.dims[a];
    cnt = (uint32_t)ix->shape.dims[0];
    for (i = 0; i < cnt; i++)
        if (d >= 0 && (iv[i] < -d || iv[i] >= d))
            return npu__infer_error(m, n, NPU_ERR_SHAPE, "index %d is out of range for axis %u of length %lld",
                                    (int)iv[i], a, (long long)d);
    n->type = x->type;
    n->shape = x->shape;
    n->shape.dims[a] = (int64_t)cnt;
    return NPU_OK;
}

static npu_status npu__infer_concat(npu_node *n, npu__msg *m)
{
    const npu_node *x0 = n->inputs[0];
    uint32_t i, j, ax;
    NPU__MSG_ONLY(char s0[96], s1[96];)
    npu_status st = npu__input_axis(m, n, n->a.axis.axis, &ax);
    if (st != NPU_OK) return st;
    n->a.axis.axis = ax;
    n->shape = x0->shape;
    for (i = 1; i < n->n_inputs; i++) {
        const npu_node *xi = n->inputs[i];
        st = npu__same_type(m, n, i);
        if (st != NPU_OK) return st;
        if (xi->shape.rank != x0->shape.rank)
            return npu__infer_error(m, n, NPU_ERR_SHAPE, "input %u has shape %s, input 0 has shape %s", i,
                             npu__shape_text(&xi->shape, s1), npu__shape_text(&x0->shape, s0));
        for (j = 0; j < x0->shape.rank; j++) {
            int64_t a = n->shape.dims[j], b = xi->shape.dims[j];
            if (j == ax) {
                if (npu__dim_dyn(a) || npu__dim_dyn(b)) n->shape.dims[j] = NPU_DIM_DYNAMIC;
                else if (npu__dim_add(a, b, &n->shape.dims[j]))
                    return npu__infer_error(m, n, NPU_ERR_OVERFLOW, "input %u has shape %s: the concat axis %u "
                                     "overflows", i, npu__shape_text(&xi->shape, s1), ax);
            } else if (!npu__dims_match(a, b)) {
                return npu__infer_error(m, n, NPU_ERR_SHAPE,
                                 "input %u has shape %s, input 0 has shape %s (differ on axis %u, "
                                 "concat axis %u)",
                                 i, npu__shape_text(&xi->shape, s1), npu__shape_text(&x0->shape, s0), j, ax);
            } else if (npu__dim_dyn(a)) {
                n->shape.dims[j] = b;
            }
        }
    }
    n->type = x0->type;
    return NPU_OK;
}

static npu_status npu__infer_read_value(npu_node *n, npu__msg *m)
{
    return n->n_inputs == 1 ? npu__variable_fits(m, n, n->inputs[0], n) : NPU_OK;
}

static npu_status npu__infer_assign(npu_node *n, npu__msg *m)
{
    npu_status st = npu__variable_fits(m, n, n->inputs[0], n->a.var.read_value);
    return st != NPU_OK ? st : npu__infer_same(n, m);
}

/* ---- Graph object ---- */

static const char *npu__graph_default_name = "npu_graph";

NPU_API size_t npu_graph_node_size(void) { return NPU_ARENA_ROUND(sizeof(struct npu_node)); }

NPU_API size_t npu_graph_size(const npu_graph_options *options)
{
    const char *name = options && options->name ? options->name : npu__graph_default_name;
    size_t len = strlen(name);
    if (len >= NPU_NAME_MAX || (options != NULL && npu__check_reserved(NULL, options->reserved, "") != NPU_OK))
        return 0;
    return NPU_ARENA_ROUND(sizeof(struct npu_graph)) + NPU_ARENA_ROUND(len + 1);
}

NPU_API npu_status npu_graph_create(npu_arena *arena, npu_context *ctx, const npu_graph_options *options,
                            npu_graph **out)
{
    const char *name = options && options->name ? options->name : npu__graph_default_name;
    size_t mark, len;
    npu_graph *g;
    char *name_copy;
    if (out == NULL) return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_graph_create: out is NULL");
    *out = NULL;
    if (arena == NULL) return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_graph_create: arena is NULL");
    if (options != NULL && npu__check_reserved(ctx, options->reserved, "graph options") != NPU_OK)
        return NPU_ERR_INVALID_ARGUMENT;
    len = strlen(name);
    if (len >= NPU_NAME_MAX)
        return npu__fail(ctx, NPU_ERR_LIMIT, "npu_graph_create: graph name of %zu bytes; at most %d",
                         len, NPU_NAME_MAX - 1);
    mark = arena->used;
    g = (npu_graph *)npu__alloc(arena, ctx, sizeof *g, "graph");
    name_copy = g ? (char *)npu__alloc(arena, ctx, len + 1, "graph name") : NULL;
    if (name_copy == NULL) {
        npu_arena_rewind(arena, mark);
        return NPU_ERR_ARENA_TOO_SMALL;
    }
    memcpy(name_copy, name, len + 1);
    g->arena = arena;
    g->ctx = ctx;
    g->name = name_copy;
    g->max_nodes = options ? options->max_nodes : 0;
    g->status = NPU_OK;
    g->bytes_used = arena->used - mark;
    *out = g;
    return NPU_OK;
}

NPU_API size_t npu_graph_bytes_used(const npu_graph *g) { return g ? g->bytes_used : 0; }
NPU_API npu_status npu_graph_status(const npu_graph *g) { return g ? g->status : NPU_ERR_INVALID_ARGUMENT; }
NPU_API const char *npu_graph_first_error(const npu_graph *g) { return g ? g->first_error : ""; }
NPU_API const char *npu_graph_name(const npu_graph *g) { return g ? g->name : ""; }
NPU_API uint32_t npu_graph_node_count(const npu_graph *g) { return g ? g->node_count : 0; }

NPU_API void npu_graph_clear_status(npu_graph *g)
{
    if (g == NULL) return;
    g->status = NPU_OK;
    g->first_error[0] = '\0';
}

NPU_API const char *npu_node_name(const npu_node *node) { return node ? node->name : ""; }
NPU_API npu_type npu_node_type(const npu_node *node) { return node ? node->type : NPU_TYPE_UNDEFINED; }

NPU_API npu_status npu_node_shape(const npu_node *node, npu_shape *out)
{
    if (node == NULL || out == NULL) return NPU_ERR_INVALID_ARGUMENT;
    *out = node->shape;
    return NPU_OK;
}

/* Records a builder failure: the message goes to the context, and the first
 * one stays in the graph. Returns NULL for the op to return. */
static npu_node *npu__graph_fail(npu_graph *g, npu_status status, const char *msg)
{
    if (g->status == NPU_OK) {
        g->status = status;
        npu__strlcpy(g->first_error, msg, sizeof g->first_error);
    }
    npu__fail_str(g->ctx, status, msg);
    return NULL;
}

#ifndef NPU_NO_MESSAGES
NPU__PRINTF(3, 4)
static npu_node *npu__graph_failf(npu_graph *g, npu_status status, const char *fmt, ...)
{
    npu__msg m;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m.text, sizeof m.text, fmt, ap);
    va_end(ap);
    return npu__graph_fail(g, status, m.text);
}
#else
static npu_node *npu__graph_fail_site(npu_graph *g, npu_status status, unsigned line)
{
    char text[24];
    npu__site_text(text, sizeof text, line);
    return npu__graph_fail(g, status, text);
}
#define npu__graph_failf(g, status, ...) npu__graph_fail_site((g), (status), NPU__SITE)
#endif

static const npu_node *npu__find_name(const npu_graph *g, const char *name, uint32_t hash)
{
    const npu_node *n;
    for (n = g->first; n != NULL; n = n->next)
        if (n->name_hash == hash && strcmp(n->name, name) == 0) return n;
    return NULL;
}

/* "Add_3", or "Add_3_1", ... when a node already has that name. `avoid` is an
 * extra name taken by the op being built (its implicit Constant). */
static void npu__auto_name(const npu_graph *g, const char *prefix, uint32_t index, const char *avoid,
                           char *out, size_t cap)
{
    unsigned k;
    snprintf(out, cap, "%s_%u", prefix, (unsigned)index);
    for (k = 1; npu__find_name(g, out, npu__hash(out)) || (avoid && strcmp(avoid, out) == 0); k++)
        snprintf(out, cap, "%s_%u_%u", prefix, (unsigned)index, k);
}

typedef struct npu__op_request {
    const struct npu__op_info *info;
    const char *name;                /* caller's, or NULL */
    npu_node *const *inputs;         /* data inputs, as the caller gave them */
    uint32_t n_inputs;
    const int64_t *values;           /* implicit i64 Constant (appended as the last input) */
    size_t n_values;
    int has_values;
    const char *variable_id;         /* ReadValue: copied into the arena */
} npu__op_request;

/* Checks the inputs and names, then carves the whole op; NULL on failure (the
 * error is recorded and the arena untouched). */
static npu_node *npu__op_begin(npu_graph *g, const npu__op_request *rq)
{
    const char *op_name = rq->info->op_name;
    char name_buf[NPU_NAME_MAX], const_name[NPU_NAME_MAX];
    const char *name = rq->name;
    uint32_t i, n_total = rq->n_inputs + (rq->has_values ? 1u : 0u);
    uint32_t n_new = rq->has_values ? 2u : 1u;
    size_t need = 0, name_len, var_len = 0, mark;
    npu_node *c = NULL, *n;
    if (g == NULL) return NULL;
    const_name[0] = '\0';
    for (i = 0; i < rq->n_inputs; i++) {
        const npu_node *in = rq->inputs[i];
        if (in == NULL) {
            if (g->status != NPU_OK)
                return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT,
                                        "%s '%s': input %u is NULL; the first failure in this graph "
                                        "was: %s",
                                        op_name, name ? name : "?", i, g->first_error);
            return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT, "%s '%s': input %u is NULL", op_name,
                                    name ? name : "?", i);
        }
        if (in->graph != g)
            return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT,
                                    "%s '%s': input %u ('%s') belongs to another graph", op_name,
                                    name ? name : "?", i, in->name);
    }
    if (rq->has_values && rq->n_values > NPU_MAX_RANK)
        return npu__graph_failf(g, NPU_ERR_LIMIT, "%s '%s': %zu values given; at most %d", op_name,
                                name ? name : "?", rq->n_values, NPU_MAX_RANK);
    if (rq->has_values && rq->n_values > 0 && rq->values == NULL)
        return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT, "%s '%s': the value array is NULL",
                                op_name, name ? name : "?");
    if (g->max_nodes != 0 && g->node_count + n_new > g->max_nodes)
        return npu__graph_failf(g, NPU_ERR_LIMIT, "%s '%s': the graph already has %u nodes (max_nodes %u)",
                                op_name, name ? name : "?", g->node_count, g->max_nodes);
    if (g->node_count > UINT32_MAX - 4)
        return npu__graph_failf(g, NPU_ERR_LIMIT, "%s: too many nodes", op_name);
    if (rq->has_values)
        npu__auto_name(g, npu__op_info_CONSTANT.op_name, g->node_count, NULL, const_name,
                       sizeof const_name);
    if (name != NULL) {
        if (strlen(name) >= NPU_NAME_MAX)
            return npu__graph_failf(g, NPU_ERR_LIMIT, "%s: name of %zu bytes ('%.40s...'); at most %d",
                                    op_name, strlen(name), name, NPU_NAME_MAX - 1);
        if (name[0] == '\0')
            return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT, "%s: empty name (pass NULL for an "
                                    "automatic one)", op_name);
        if (npu__find_name(g, name, npu__hash(name)) || strcmp(name, const_name) == 0)
            return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT,
                                    "%s '%s': the name is already used by another node", op_name, name);
    } else {
        npu__auto_name(g, op_name, g->node_count + n_new - 1, rq->has_values ? const_name : NULL,
                       name_buf, sizeof name_buf);
        name = name_buf;
    }
    if (rq->variable_id != NULL) {
        var_len = strlen(rq->variable_id);
        if (var_len >= NPU_NAME_MAX || var_len == 0)
            return npu__graph_failf(g, var_len ? NPU_ERR_LIMIT : NPU_ERR_INVALID_ARGUMENT,
                                    "%s '%s': variable id of %zu bytes; 1 to %d are allowed", op_name,
                                    name, var_len, NPU_NAME_MAX - 1);
    }
    /* size the whole op first, so that it fails before carving anything */
    name_len = strlen(name);
    need = NPU_ARENA_ROUND(sizeof(struct npu_node)) + NPU_ARENA_ROUND(name_len + 1);
    if (n_total > NPU__INLINE_INPUTS) need += NPU_ARENA_ROUND(sizeof(npu_node *) * (size_t)n_total);
    if (rq->variable_id != NULL) need += NPU_ARENA_ROUND(var_len + 1);
    if (rq->has_values)
        need += NPU_ARENA_ROUND(sizeof(struct npu_node)) + NPU_ARENA_ROUND(strlen(const_name) + 1) +
                NPU_ARENA_ROUND(8 * rq->n_values);
    if (need > npu_arena_remaining(g->arena))
        return npu__graph_failf(g, NPU_ERR_ARENA_TOO_SMALL,
                                "%s '%s': arena too small: the op needs %zu bytes, %zu are free "
                                "(needs %zu bytes in total, has %zu)",
                                op_name, name, need, npu_arena_remaining(g->arena),
                                g->arena->used + need, g->arena->capacity);
    mark = g->arena->used;
    if (rq->has_values) {
        char *cn;
        int64_t *vals;
        c = (npu_node *)npu__alloc(g->arena, NULL, sizeof *c, "node");
        cn = (char *)npu__alloc(g->arena, NULL, strlen(const_name) + 1, "name");
        vals = (int64_t *)npu__alloc(g->arena, NULL, 8 * rq->n_values, "values");
        memcpy(cn, const_name, strlen(const_name) + 1);
        if (rq->n_values > 0) memcpy(vals, rq->values, 8 * rq->n_values);
        c->graph = g;
        c->name = cn;
        c->name_hash = npu__hash(cn);
        c->op = NPU__OP_CONSTANT;
        c->info = &npu__op_info_CONSTANT;
        c->cat = NPU__CAT_OP;
        c->inputs = c->inline_inputs;
        c->type = NPU_I64;
        npu__shape_set(&c->shape, 1);
        c->shape.dims[0] = (int64_t)rq->n_values;
        c->a.constant.data = vals;
        c->a.constant.bytes = 8 * (uint64_t)rq->n_values;
    }
    n = (npu_node *)npu__alloc(g->arena, NULL, sizeof *n, "node");
    {
        char *nm = (char *)npu__alloc(g->arena, NULL, name_len + 1, "name");
        memcpy(nm, name, name_len + 1);
        n->name = nm;
    }
    n->inputs = n_total > NPU__INLINE_INPUTS
                    ? (npu_node **)npu__alloc(g->arena, NULL, sizeof(npu_node *) * (size_t)n_total, "inputs")
                    : n->inline_inputs;
    for (i = 0; i < rq->n_inputs; i++) n->inputs[i] = (npu_node *)rq->inputs[i];
    if (c != NULL) n->inputs[rq->n_inputs] = c;
    n->n_inputs = n_total;
    if (rq->variable_id != NULL) {
        char *v = (char *)npu__alloc(g->arena, NULL, var_len + 1, "variable id");
        memcpy(v, rq->variable_id, var_len + 1);
        n->a.var.variable_id = v;
    }
    n->graph = g;
    n->name_hash = npu__hash(n->name);
    n->op = rq->info->op;
    n->cat = rq->info->cat;
    n->info = rq->info;
    g->pending_mark = mark;
    g->pending_const = c;
    return n;
}

static void npu__link(npu_graph *g, npu_node *n)
{
    n->index = g->node_count++;
    n->cat_index = g->cat_count[n->cat]++;
    if (g->last) g->last->next = n;
    else g->first = n;
    g->last = n;
}

/* Runs inference and links the op, or undoes it. */
static npu_node *npu__op_finish(npu_graph *g, npu_node *n)
{
    npu__msg m;
    npu_status st = NPU_OK;
    m.text[0] = '\0';
    if (n->info->infer != NULL) st = n->info->infer(n, &m);
    if (st != NPU_OK) {
        npu_arena_rewind(g->arena, g->pending_mark);
        return npu__graph_fail(g, st, m.text);
    }
    if (g->pending_const) npu__link(g, g->pending_const);
    npu__link(g, n);
    if (n->op == NPU__OP_RESULT) {
        npu_node *src = n->inputs[0], **p = &src->first_result;
        while (*p) p = &(*p)->next_result;
        *p = n;
    } else if (n->op == NPU__OP_READ_VALUE) {
        g->state_count++;
    } else if (n->op == NPU__OP_ASSIGN) {
        n->a.var.read_value->a.var.assigned = 1;
    }
    g->bytes_used += g->arena->used - g->pending_mark;
    g->pending_const = NULL;
    return n;
}

/* Fails an op between begin and finish (attribute checks that need the name). */
#ifndef NPU_NO_MESSAGES
NPU__PRINTF(4, 5)
static npu_node *npu__op_abort(npu_graph *g, npu_node *n, npu_status status, const char *fmt, ...)
{
    npu__msg m;
    va_list ap;
    va_start(ap, fmt);
    npu__vmsg(&m, n, fmt, ap);
    va_end(ap);
    npu_arena_rewind(g->arena, g->pending_mark);
    return npu__graph_fail(g, status, m.text);
}
#else
static npu_node *npu__op_abort_site(npu_graph *g, npu_status status, unsigned line)
{
    npu_arena_rewind(g->arena, g->pending_mark);
    return npu__graph_fail_site(g, status, line);
}
#define npu__op_abort(g, n, status, ...) npu__op_abort_site((g), (status), NPU__SITE)
#endif

static npu_node *npu__simple(npu_graph *g, const npu__op_info *op, npu_node *const *inputs, uint32_t n_inputs,
                             const char *name)
{
    npu__op_request rq;
    memset(&rq, 0, sizeof rq);
    rq.info = op;
    rq.name = name;
    rq.inputs = inputs;
    rq.n_inputs = n_inputs;
    return npu__op_begin(g, &rq);
}

/* ---- Layouts ---- */

/* Index of 'N' in the layout, else 0. */
static uint32_t npu__batch_axis(const char *layout)
{
    const char *p = strchr(layout, 'N');
    return p ? (uint32_t)(p - layout) : 0u;
}

/* Checks a layout for a shape; NULL on success, else the reason. */
static const char *npu__layout_check(const char *layout, const npu_shape *shape)
{
    size_t len = strlen(layout), i, j;
    if (len >= NPU_LAYOUT_MAX) return "is too long";
    if (len != shape->rank) return "has not one letter per axis";
    for (i = 0; i < len; i++) {
        char ch = layout[i];
        if (!((ch >= 'A' && ch <= 'Z') || ch == '?')) return "has a character other than A-Z and '?'";
        for (j = 0; j < i; j++)
            if (ch != '?' && layout[j] == ch) return "names an axis twice";
    }
    return NULL;
}

/* Only the batch axis may be dynamic in a Parameter or a variable. */
static int npu__dynamic_ok(const npu_shape *s, const char *layout, uint32_t *bad_axis)
{
    uint32_t i, b = npu__batch_axis(layout);
    for (i = 0; i < s->rank; i++) {
        if (s->dims[i] < 0 && (s->dims[i] != NPU_DIM_DYNAMIC || i != b)) {
            *bad_axis = i;
            return 0;
        }
    }
    return 1;
}

NPU_API npu_status npu_graph_set_layout(npu_node *node, const char *layout)
{
    npu_graph *g;
    const char *why;
    uint32_t bad;
    NPU__MSG_ONLY(char s0[96];)
    if (node == NULL) return NPU_ERR_INVALID_ARGUMENT;
    g = node->graph;
    if (layout == NULL) layout = "";
    if (node->op != NPU__OP_PARAMETER && node->op != NPU__OP_RESULT)
        return npu__fail(g->ctx, NPU_ERR_INVALID_ARGUMENT,
                         "%s '%s': a layout can be set only on a Parameter or a Result",
                         npu__op_name(node), node->name);
    if (layout[0] != '\0' && (why = npu__layout_check(layout, &node->shape)) != NULL)
        return npu__fail(g->ctx, NPU_ERR_INVALID_ARGUMENT, "%s '%s': layout \"%.20s\" %s (shape %s)",
                         npu__op_name(node), node->name, layout, why, npu__shape_text(&node->shape, s0));
    if (node->op == NPU__OP_PARAMETER && !npu__dynamic_ok(&node->shape, layout, &bad))
        return npu__fail(g->ctx, NPU_ERR_INVALID_ARGUMENT,
                         "Parameter '%s': shape %s is dynamic on axis %u, but layout \"%s\" puts "
                         "the batch on axis %u",
                         node->name, npu__shape_text(&node->shape, s0), bad, layout, npu__batch_axis(layout));
    npu__strlcpy(node->layout, layout, sizeof node->layout);
    return NPU_OK;
}

/* ---- Builder ops ---- */

/* Checks a caller's type and shape for a source node; 0 (op aborted) if bad. */
static int npu__check_source(npu_graph *g, npu_node *n, npu_type type, const npu_shape *shape)
{
    NPU__MSG_UNUSED(n);
    uint32_t i;
    if (!npu__type_valid(type))
        return npu__op_abort(g, n, NPU_ERR_TYPE, "unknown element type %d", (int)type) != NULL;
    if (shape == NULL) return npu__op_abort(g, n, NPU_ERR_INVALID_ARGUMENT, "shape is NULL") != NULL;
    if (shape->rank > NPU_MAX_RANK)
        return npu__op_abort(g, n, NPU_ERR_LIMIT, "rank %u; at most %d", (unsigned)shape->rank,
                             NPU_MAX_RANK) != NULL;
    for (i = 0; i < shape->rank; i++)
        if (shape->dims[i] < NPU_DIM_DYNAMIC)
            return npu__op_abort(g, n, NPU_ERR_SHAPE, "dim %u is %lld", i,
                                 (long long)shape->dims[i]) != NULL;
    return 1;
}

NPU_API npu_node *npu_graph_parameter(npu_graph *g, const char *name, npu_type type, const npu_shape *shape,
                              const char *layout)
{
    npu_node *n = npu__simple(g, &npu__op_info_PARAMETER, NULL, 0, name);
    const char *why;
    uint32_t bad;
    NPU__MSG_ONLY(char s0[96];)
    if (n == NULL) return NULL;
    if (!npu__check_source(g, n, type, shape)) return NULL;
    if (layout == NULL) layout = "";
    if (layout[0] != '\0' && (why = npu__layout_check(layout, shape)) != NULL)
        return npu__op_abort(g, n, NPU_ERR_INVALID_ARGUMENT, "layout \"%.20s\" %s (shape %s)", layout,
                             why, npu__shape_text(shape, s0));
    if (!npu__dynamic_ok(shape, layout, &bad))
        return npu__op_abort(g, n, NPU_ERR_SHAPE,
                             "shape %s is dynamic on axis %u; only the batch axis (%u) may be dynamic",
                             npu__shape_text(shape, s0), bad, npu__batch_axis(layout));
    n->type = type;
    n->shape = *shape;
    npu__strlcpy(n->layout, layout, sizeof n->layout);
    return npu__op_finish(g, n);
}

NPU_API npu_node *npu_graph_constant(npu_graph *g, const char *name, npu_type type, const npu_shape *shape,
                             const void *data, size_t bytes)
{
    npu_node *n = npu__simple(g, &npu__op_info_CONSTANT, NULL, 0, name);
    uint64_t elements, need = 0;
    uint32_t i;
    NPU__MSG_ONLY(char s0[96];)
    if (n == NULL) return NULL;
    if (!npu__check_source(g, n, type, shape)) return NULL;
    for (i = 0; i < shape->rank; i++)
        if (shape->dims[i] < 0)
            return npu__op_abort(g, n, NPU_ERR_SHAPE, "shape %s: a constant cannot be dynamic",
                                 npu__shape_text(shape, s0));
    if (data == NULL) return npu__op_abort(g, n, NPU_ERR_INVALID_ARGUMENT, "data is NULL");
    elements = npu_shape_elements(shape);
    if (elements == 0)
        return npu__op_abort(g, n, NPU_ERR_SHAPE, "shape %s has no elements (or overflows)",
                             npu__shape_text(shape, s0));
    if (npu__mul_u64(elements, npu_type_size(type), &need) || need != (uint64_t)bytes)
        return npu__op_abort(g, n, NPU_ERR_INVALID_ARGUMENT,
                             "%zu bytes given; shape %s of %s needs %llu", bytes, npu__shape_text(shape, s0),
                             npu_type_name(type), (unsigned long long)need);
    n->type = type;
    n->shape = *shape;
    n->a.constant.data = data;
    n->a.constant.bytes = bytes;
    return npu__op_finish(g, n);
}

NPU_API npu_node *npu_graph_result(npu_graph *g, npu_node *value, const char *name)
{
    npu_node *n = npu__simple(g, &npu__op_info_RESULT, &value, 1, name);
    return n ? npu__op_finish(g, n) : NULL;
}

NPU_API npu_node *npu_graph_convert(npu_graph *g, npu_node *x, npu_type to, const char *name)
{
    npu_node *n = npu__simple(g, &npu__op_info_CONVERT, &x, 1, name);
    if (n == NULL) return NULL;
    if (!npu__type_valid(to))
        return npu__op_abort(g, n, NPU_ERR_TYPE, "unknown destination type %d", (int)to);
    n->a.convert.to = to;
    return npu__op_finish(g, n);
}

static npu_node *npu__binary(npu_graph *g, const npu__op_info *op, npu_node *a, npu_node *b, const char *name)
{
    npu_node *in[2];
    npu_node *n;
    in[0] = a;
    in[1] = b;
    n = npu__simple(g, op, in, 2, name);
    return n ? npu__op_finish(g, n) : NULL;
}

NPU_API npu_node *npu_graph_add(npu_graph *g, npu_node *a, npu_node *b, const char *name)
{ return npu__binary(g, &npu__op_info_ADD, a, b, name); }
NPU_API npu_node *npu_graph_subtract(npu_graph *g, npu_node *a, npu_node *b, const char *name)
{ return npu__binary(g, &npu__op_info_SUBTRACT, a, b, name); }
NPU_API npu_node *npu_graph_multiply(npu_graph *g, npu_node *a, npu_node *b, const char *name)
{ return npu__binary(g, &npu__op_info_MULTIPLY, a, b, name); }
NPU_API npu_node *npu_graph_divide(npu_graph *g, npu_node *a, npu_node *b, const char *name)
{ return npu__binary(g, &npu__op_info_DIVIDE, a, b, name); }
NPU_API npu_node *npu_graph_maximum(npu_graph *g, npu_node *a, npu_node *b, const char *name)
{ return npu__binary(g, &npu__op_info_MAXIMUM, a, b, name); }
NPU_API npu_node *npu_graph_minimum(npu_graph *g, npu_node *a, npu_node *b, const char *name)
{ return npu__binary(g, &npu__op_info_MINIMUM, a, b, name); }

static npu_node *npu__unary(npu_graph *g, const npu__op_info *op, npu_node *x, const char *name)
{
    npu_node *n = npu__simple(g, op, &x, 1, name);
    return n ? npu__op_finish(g, n) : NULL;
}

NPU_API npu_node *npu_graph_relu(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, &npu__op_info_RELU, x, name); }
NPU_API npu_node *npu_graph_sigmoid(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, &npu__op_info_SIGMOID, x, name); }
NPU_API npu_node *npu_graph_tanh(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, &npu__op_info_TANH, x, name); }
NPU_API npu_node *npu_graph_exp(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, &npu__op_info_EXP, x, name); }
NPU_API npu_node *npu_graph_sqrt(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, &npu__op_info_SQRT, x, name); }

NPU_API npu_node *npu_graph_clamp(npu_graph *g, npu_node *x, double min, double max, const char *name)
{
    npu_node *n = npu__simple(g, &npu__op_info_CLAMP, &x, 1, name);
    if (n == NULL) return NULL;
    n->a.clamp.min = min;
    n->a.clamp.max = max;
    return npu__op_finish(g, n);
}

NPU_API npu_node *npu_graph_softmax(npu_graph *g, npu_node *x, int64_t axis, const char *name)
{
    npu_node *n = npu__simple(g, &npu__op_info_SOFTMAX, &x, 1, name);
    if (n == NULL) return NULL;
    n->a.axis.axis = axis;
    return npu__op_finish(g, n);
}

NPU_API npu_node *npu_graph_matmul(npu_graph *g, npu_node *a, npu_node *b, int transpose_a, int transpose_b,
                           const char *name)
{
    npu_node *in[2];
    npu_node *n;
    in[0] = a;
    in[1] = b;
    n = npu__simple(g, &npu__op_info_MATMUL, in, 2, name);
    if (n == NULL) return NULL;
    n->a.matmul.transpose_a = transpose_a != 0;
    n->a.matmul.transpose_b = transpose_b != 0;
    return npu__op_finish(g, n);
}

static npu_node *npu__conv(npu_graph *g, const npu__op_info *op, npu_node *x, npu_node *w,
                           const npu_conv_params *p, const char *name)
{
    npu_node *in[2];
    npu_node *n;
    in[0] = x;
    in[1] = w;
    n = npu__simple(g, op, in, 2, name);
    if (n == NULL) return NULL;
    if (p != NULL) {
        memcpy(n->a.conv.strides, p->strides, sizeof p->strides);
        memcpy(n->a.conv.dilations, p->dilations, sizeof p->dilations);
        memcpy(n->a.conv.pads_begin, p->pads_begin, sizeof p->pads_begin);
        memcpy(n->a.conv.pads_end, p->pads_end, sizeof p->pads_end);
        n->a.conv.auto_pad = p->auto_pad;
    }
    return npu__op_finish(g, n);
}

NPU_API npu_node *npu_graph_convolution(npu_graph *g, npu_node *x, npu_node *weights,
                                const npu_conv_params *params, const char *name)
{ return npu__conv(g, &npu__op_info_CONVOLUTION, x, weights, params, name); }
NPU_API npu_node *npu_graph_group_convolution(npu_graph *g, npu_node *x, npu_node *weights,
                                      const npu_conv_params *params, const char *name)
{ return npu__conv(g, &npu__op_info_GROUP_CONVOLUTION, x, weights, params, name); }

static npu_node *npu__pool(npu_graph *g, const npu__op_info *op, npu_node *x, const npu_pool_params *p,
                           const char *name)
{
    npu_node *n = npu__simple(g, op, &x, 1, name);
    if (n == NULL) return NULL;
    if (p == NULL) return npu__op_abort(g, n, NPU_ERR_INVALID_ARGUMENT, "params is NULL (kernel needed)");
    memcpy(n->a.pool.kernel, p->kernel, sizeof p->kernel);
    memcpy(n->a.pool.strides, p->strides, sizeof p->strides);
    memcpy(n->a.pool.pads_begin, p->pads_begin, sizeof p->pads_begin);
    memcpy(n->a.pool.pads_end, p->pads_end, sizeof p->pads_end);
    n->a.pool.rounding_type = p->rounding_type;
    n->a.pool.exclude_pad = p->exclude_pad != 0;
    n->a.pool.auto_pad = p->auto_pad;
    return npu__op_finish(g, n);
}

NPU_API npu_node *npu_graph_max_pool(npu_graph *g, npu_node *x, const npu_pool_params *params, const char *name)
{ return npu__pool(g, &npu__op_info_MAX_POOL, x, params, name); }
NPU_API npu_node *npu_graph_avg_pool(npu_graph *g, npu_node *x, const npu_pool_params *params, const char *name)
{ return npu__pool(g, &npu__op_info_AVG_POOL, x, params, name); }

/* Ops whose array attribute becomes an implicit i64 Constant input. */
static npu_node *npu__with_values(npu_graph *g, const npu__op_info *op, npu_node *x, const int64_t *values,
                                  size_t n_values, int has_values, int flag, const char *name)
{
    npu__op_request rq;
    npu_node *n;
    memset(&rq, 0, sizeof rq);
    rq.info = op;
    rq.name = name;
    rq.inputs = &x;
    rq.n_inputs = 1;
    rq.values = values;
    rq.n_values = n_values;
    rq.has_values = has_values;
    n = npu__op_begin(g, &rq);
    if (n == NULL) return NULL;
    n->a.flag.flag = flag != 0;
    return npu__op_finish(g, n);
}

NPU_API npu_node *npu_graph_reduce_mean(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                                int keep_dims, const char *name)
{ return npu__with_values(g, &npu__op_info_REDUCE_MEAN, x, axes, n_axes, 1, keep_dims, name); }
NPU_API npu_node *npu_graph_reduce_sum(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                               int keep_dims, const char *name)
{ return npu__with_values(g, &npu__op_info_REDUCE_SUM, x, axes, n_axes, 1, keep_dims, name); }
NPU_API npu_node *npu_graph_reshape(npu_graph *g, npu_node *x, const int64_t *target, size_t rank,
                            int special_zero, const char *name)
{ return npu__with_values(g, &npu__op_info_RESHAPE, x, target, rank, 1, special_zero, name); }
NPU_API npu_node *npu_graph_squeeze(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                            const char *name)
{ return npu__with_values(g, &npu__op_info_SQUEEZE, x, axes, n_axes, n_axes > 0, 0, name); }
NPU_API npu_node *npu_graph_unsqueeze(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                              const char *name)
{ return npu__with_values(g, &npu__op_info_UNSQUEEZE, x, axes, n_axes, 1, 0, name); }

NPU_API npu_node *npu_graph_transpose(npu_graph *g, npu_node *x, const int64_t *perm, size_t n,
                              const char *name)
{
    int64_t reversed[NPU_MAX_RANK];
    if (n == 0 && x != NULL && g != NULL && x->graph == g) {
        uint32_t i;
        for (i = 0; i < x->shape.rank; i++) reversed[i] = (int64_t)(x->shape.rank - 1 - i);
        perm = reversed;
        n = x->shape.rank;
    }
    return npu__with_values(g, &npu__op_info_TRANSPOSE, x, perm, n, 1, 0, name);
}

NPU_API npu_node *npu_graph_concat(npu_graph *g, npu_node *const *inputs, size_t n, int64_t axis,
                           const char *name)
{
    npu_node *node;
    if (g == NULL) return NULL;
    if (inputs == NULL || n == 0)
        return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT, "Concat '%s': no inputs given",
                                name ? name : "?");
    if (n > 1u << 16)
        return npu__graph_failf(g, NPU_ERR_LIMIT, "Concat '%s': %zu inputs; at most 65536",
                                name ? name : "?", n);
    node = npu__simple(g, &npu__op_info_CONCAT, inputs, (uint32_t)n, name);
    if (node == NULL) return NULL;
    node->a.axis.axis = axis;
    return npu__op_finish(g, node);
}

/* ---- Ops with Constant inputs of their own (quantization, padding, slicing,
 * resampling) ---- */

/* Where the graph stood before an op that first adds Constants of its own:
 * npu__graph_undo unlinks them again and rewinds the arena when the op fails. */
typedef struct npu__graph_mark {
    size_t used, bytes_used;
    npu_node *last;
    uint32_t node_count, cat_count[NPU__CAT_COUNT];
} npu__graph_mark;

static void npu__graph_mark_set(const npu_graph *g, npu__graph_mark *k)
{
    k->used = g->arena->used;
    k->bytes_used = g->bytes_used;
    k->last = g->last;
    k->node_count = g->node_count;
    memcpy(k->cat_count, g->cat_count, sizeof k->cat_count);
}

static npu_node *npu__graph_undo(npu_graph *g, const npu__graph_mark *k)
{
    npu_arena_rewind(g->arena, k->used);
    g->bytes_used = k->bytes_used;
    g->last = k->last;
    if (k->last != NULL) k->last->next = NULL;
    else g->first = NULL;
    g->node_count = k->node_count;
    memcpy(g->cat_count, k->cat_count, sizeof g->cat_count);
    return NULL;
}

/* A Constant of type t and static shape sh whose `bytes` bytes are copied
 * into the graph's arena. */
static npu_node *npu__const_shaped(npu_graph *g, npu_type t, const npu_shape *sh, const void *data, size_t bytes)
{
    npu_node *c = npu__simple(g, &npu__op_info_CONSTANT, NULL, 0, NULL);
    void *copy;
    if (c == NULL) return NULL;
    copy = npu__alloc(g->arena, NULL, bytes, "constant values");
    if (copy == NULL)
        return npu__op_abort(g, c, NPU_ERR_ARENA_TOO_SMALL, "arena too small for %zu bytes of values", bytes);
    memcpy(copy, data, bytes);
    c->type = t;
    c->shape = *sh;
    c->a.constant.data = copy;
    c->a.constant.bytes = bytes;
    return npu__op_finish(g, c);
}

/* A Constant of `count` values of type t (a scalar when `scalar`). */
static npu_node *npu__const_copy(npu_graph *g, npu_type t, const void *data, uint32_t count, int scalar)
{
    npu_shape sh;
    npu__shape_set(&sh, scalar ? 0u : 1u);
    if (!scalar) sh.dims[0] = (int64_t)count;
    return npu__const_shaped(g, t, &sh, data, (size_t)count * npu_type_size(t));
}

/* f32 to IEEE binary16, rounding to nearest even. */
static uint16_t npu__f16_bits(float f)
{
    uint32_t x, mant, sign;
    int32_t e;
    memcpy(&x, &f, sizeof x);
    sign = (x >> 16) & 0x8000u;
    mant = x & 0x7fffffu;
    e = (int32_t)((x >> 23) & 0xffu);
    if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0u));
    e = e - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {   /* subnormal or zero */
        uint32_t shift, half, rest, v;
        if (e < -10) return (uint16_t)sign;
        mant |= 0x800000u;
        shift = (uint32_t)(14 - e);
        v = mant >> shift;
        rest = mant & ((1u << shift) - 1u);
        half = 1u << (shift - 1u);
        if (rest > half || (rest == half && (v & 1u))) v++;
        return (uint16_t)(sign | v);
    }
    {
        uint32_t v = ((uint32_t)e << 10) | (mant >> 13), rest = mant & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (v & 1u))) v++;   /* may carry into the exponent: right */
        return (uint16_t)(sign | v);
    }
}

/* v as one element of type t (into out); 0 if t cannot hold it: an integer
 * type needs an integral value in its range. */
static int npu__scalar_of(npu_type t, double v, unsigned char out[8])
{
    if (t == NPU_F32 || t == NPU_F16 || t == NPU_BF16) {
        float f = (float)v;
        uint32_t b;
        uint16_t h;
        if (t == NPU_F32) {
            memcpy(out, &f, 4);
            return 1;
        }
        memcpy(&b, &f, 4);
        if (t == NPU_F16) h = npu__f16_bits(f);
        else if ((b & 0x7fffffffu) > 0x7f800000u) h = (uint16_t)((b >> 16) | 0x40u);   /* NaN stays NaN */
        else h = (uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
        memcpy(out, &h, 2);
        return 1;
    }
    if (!(v == (double)(int64_t)0 || (v > -9.3e18 && v < 9.3e18)) || v != (double)(int64_t)v) return 0;
    switch (t) {
    case NPU_I8:
        if (v < -128.0 || v > 127.0) return 0;
        out[0] = (unsigned char)(int8_t)v;
        return 1;
    case NPU_U8:
        if (v < 0.0 || v > 255.0) return 0;
        out[0] = (unsigned char)v;
        return 1;
    case NPU_I32: {
        int32_t i;
        if (v < -2147483648.0 || v > 2147483647.0) return 0;
        i = (int32_t)v;
        memcpy(out, &i, 4);
        return 1;
    }
    case NPU_I64: {
        int64_t i = (int64_t)v;
        memcpy(out, &i, 8);
        return 1;
    }
    default: return 0;
    }
}

/* x exists and belongs to g; else the standard error is recorded (through
 * npu__simple, which checks inputs first) and 0 returned. */
static int npu__input_ok(npu_graph *g, const npu__op_info *op, npu_node *x, const char *name)
{
    if (x != NULL && x->graph == g) return 1;
    (void)npu__simple(g, op, &x, 1, name);
    return 0;
}

/* Builds op over inputs (the Constants among them made since k), or undoes
 * everything since k. */
static npu_node *npu__op_with_consts(npu_graph *g, const npu__graph_mark *k, const npu__op_info *op, npu_node *const *in,
                                     uint32_t n_in, const char *name, uint32_t flag)
{
    npu_node *n;
    uint32_t i;
    for (i = 0; i < n_in; i++)
        if (in[i] == NULL) return npu__graph_undo(g, k);   /* a Constant failed: recorded */
    n = npu__simple(g, op, in, n_in, name);
    if (n == NULL) return npu__graph_undo(g, k);
    n->a.flag.flag = (int)flag;
    n = npu__op_finish(g, n);
    return n != NULL ? n : npu__graph_undo(g, k);
}

NPU_API npu_node *npu_graph_hswish(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, &npu__op_info_HSWISH, x, name); }
NPU_API npu_node *npu_graph_hsigmoid(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, &npu__op_info_HSIGMOID, x, name); }
NPU_API npu_node *npu_graph_mish(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, &npu__op_info_MISH, x, name); }
NPU_API npu_node *npu_graph_erf(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, &npu__op_info_ERF, x, name); }
NPU_API npu_node *npu_graph_log(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, &npu__op_info_LOG, x, name); }
NPU_API npu_node *npu_graph_floor(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, &npu__op_info_FLOOR, x, name); }
NPU_API npu_node *npu_graph_power(npu_graph *g, npu_node *a, npu_node *b, const char *name)
{ return npu__binary(g, &npu__op_info_POWER, a, b, name); }

NPU_API npu_node *npu_graph_gelu(npu_graph *g, npu_node *x, int tanh_approximation, const char *name)
{
    npu_node *n = npu__simple(g, &npu__op_info_GELU, &x, 1, name);
    if (n == NULL) return NULL;
    n->a.flag.flag = tanh_approximation != 0;
    return npu__op_finish(g, n);
}

NPU_API npu_node *npu_graph_prelu(npu_graph *g, npu_node *x, npu_node *slope, const char *name)
{
    return npu__binary(g, &npu__op_info_PRELU, x, slope, name);
}

NPU_API npu_node *npu_graph_swish(npu_graph *g, npu_node *x, double beta, const char *name)
{
    npu__graph_mark k;
    unsigned char v[8];
    npu_node *in[2];
    if (g == NULL) return NULL;
    /* beta 1 is Swish's default; a bad x or type is reported by the op itself */
    if (beta == 1.0 || x == NULL || x->graph != g || !npu__type_is_float(x->type))
        return npu__unary(g, &npu__op_info_SWISH, x, name);
    (void)npu__scalar_of(x->type, beta, v);
    npu__graph_mark_set(g, &k);
    in[0] = x;
    in[1] = npu__const_copy(g, x->type, v, 1, 1);
    return npu__op_with_consts(g, &k, &npu__op_info_SWISH, in, 2, name, 0);
}

NPU_API npu_node *npu_graph_pad(npu_graph *g, npu_node *x, const int64_t *pads_begin, const int64_t *pads_end,
                                size_t rank, npu_pad_mode mode, double value, const char *name)
{
    npu__graph_mark k;
    unsigned char v[8];
    npu_node *in[4];
    uint32_t n_in = 3;
    if (g == NULL) return NULL;
    if (!npu__input_ok(g, &npu__op_info_PAD, x, name)) return NULL;
    if ((unsigned)mode > (unsigned)NPU_PAD_MODE_SYMMETRIC)
        return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT, "Pad '%s': mode %d is not an npu_pad_mode",
                                name ? name : "?", (int)mode);
    if (rank == 0 || rank > NPU_MAX_RANK || pads_begin == NULL || pads_end == NULL)
        return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT, "Pad '%s': pads_begin and pads_end must hold 1 to %d "
                                "values (given: %zu, %s, %s)", name ? name : "?", NPU_MAX_RANK, rank,
                                pads_begin ? "array" : "NULL", pads_end ? "array" : "NULL");
    if (mode == NPU_PAD_MODE_CONSTANT && value != 0.0 && !npu__scalar_of(x->type, value, v))
        return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT, "Pad '%s': pad value %g is not a value of type %s",
                                name ? name : "?", value, npu_type_name(x->type));
    npu__graph_mark_set(g, &k);
    in[0] = x;
    in[1] = npu__const_copy(g, NPU_I64, pads_begin, (uint32_t)rank, 0);
    in[2] = in[1] ? npu__const_copy(g, NPU_I64, pads_end, (uint32_t)rank, 0) : NULL;
    if (mode == NPU_PAD_MODE_CONSTANT && value != 0.0) in[n_in++] = in[2] ? npu__const_copy(g, x->type, v, 1, 1) : NULL;
    return npu__op_with_consts(g, &k, &npu__op_info_PAD, in, n_in, name, (uint32_t)mode);
}

NPU_API npu_node *npu_graph_slice(npu_graph *g, npu_node *x, const int64_t *start, const int64_t *stop,
                                  const int64_t *step, const int64_t *axes, size_t n, const char *name)
{
    npu__graph_mark k;
    npu_node *in[5];
    if (g == NULL) return NULL;
    if (!npu__input_ok(g, &npu__op_info_SLICE, x, name)) return NULL;
    if (n == 0 || n > NPU_MAX_RANK || start == NULL || stop == NULL || step == NULL)
        return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT, "Slice '%s': start, stop and step must hold 1 to %d "
                                "values each (given: %zu)", name ? name : "?", NPU_MAX_RANK, n);
    npu__graph_mark_set(g, &k);
    in[0] = x;
    in[1] = npu__const_copy(g, NPU_I64, start, (uint32_t)n, 0);
    in[2] = in[1] ? npu__const_copy(g, NPU_I64, stop, (uint32_t)n, 0) : NULL;
    in[3] = in[2] ? npu__const_copy(g, NPU_I64, step, (uint32_t)n, 0) : NULL;
    if (axes != NULL) in[4] = in[3] ? npu__const_copy(g, NPU_I64, axes, (uint32_t)n, 0) : NULL;
    return npu__op_with_consts(g, &k, &npu__op_info_SLICE, in, axes != NULL ? 5u : 4u, name, 0);
}

NPU_API npu_node *npu_graph_fake_quantize(npu_graph *g, npu_node *x, npu_node *input_low, npu_node *input_high,
                                          npu_node *output_low, npu_node *output_high, uint32_t levels,
                                          const char *name)
{
    npu_node *in[5];
    npu_node *n;
    in[0] = x;
    in[1] = input_low;
    in[2] = input_high;
    in[3] = output_low;
    in[4] = output_high;
    n = npu__simple(g, &npu__op_info_FAKE_QUANTIZE, in, 5, name);
    if (n == NULL) return NULL;
    n->a.fq.levels = levels;
    return npu__op_finish(g, n);
}

NPU_API npu_node *npu_graph_interpolate(npu_graph *g, npu_node *x, const npu_interpolate_params *p,
                                        const char *name)
{
    npu__graph_mark k;
    npu_node *in[3];
    npu_node *n;
    uint32_t i;
    if (g == NULL) return NULL;
    if (!npu__input_ok(g, &npu__op_info_INTERPOLATE, x, name)) return NULL;
    if (p == NULL) return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT, "Interpolate '%s': params is NULL", name ? name : "?");
    for (i = 0; i < NPU_RESERVED_WORDS; i++)
        if (p->reserved[i] != 0)
            return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT, "Interpolate '%s': params reserved[%u] is not zero "
                                    "(a field of a newer npu.h?)", name ? name : "?", i);
    if ((unsigned)p->mode > (unsigned)NPU_INTERPOLATE_LINEAR_ONNX || (unsigned)p->coord > (unsigned)NPU_COORD_ALIGN_CORNERS ||
        (unsigned)p->nearest > (unsigned)NPU_NEAREST_SIMPLE)
        return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT, "Interpolate '%s': mode %d, coord %d or nearest %d is "
                                "out of range", name ? name : "?", (int)p->mode, (int)p->coord, (int)p->nearest);
    if (p->n_axes == 0 || p->n_axes > NPU_MAX_RANK || p->axes == NULL || (p->sizes == NULL) == (p->scales == NULL))
        return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT, "Interpolate '%s': give 1 to %d axes and exactly one of "
                                "sizes and scales (given: %zu axes, sizes %s, scales %s)", name ? name : "?",
                                NPU_MAX_RANK, p->n_axes, p->sizes ? "set" : "NULL", p->scales ? "set" : "NULL");
    npu__graph_mark_set(g, &k);
    in[0] = x;
    in[1] = p->sizes != NULL ? npu__const_copy(g, NPU_I64, p->sizes, (uint32_t)p->n_axes, 0)
                             : npu__const_copy(g, NPU_F32, p->scales, (uint32_t)p->n_axes, 0);
    in[2] = in[1] ? npu__const_copy(g, NPU_I64, p->axes, (uint32_t)p->n_axes, 0) : NULL;
    if (in[1] == NULL || in[2] == NULL) return npu__graph_undo(g, &k);
    n = npu__simple(g, &npu__op_info_INTERPOLATE, in, 3, name);
    if (n == NULL) return npu__graph_undo(g, &k);
    n->a.interp.mode = (uint8_t)p->mode;
    n->a.interp.coord = (uint8_t)p->coord;
    n->a.interp.nearest = (uint8_t)p->nearest;
    n->a.interp.by_scales = p->scales != NULL;
    n = npu__op_finish(g, n);
    return n != NULL ? n : npu__graph_undo(g, &k);
}

static npu_node *npu__find_variable(const npu_graph *g, const char *id)
{
    npu_node *n;
    for (n = g->first; n != NULL; n = n->next)
        if (n->op == NPU__OP_READ_VALUE && strcmp(n->a.var.variable_id, id) == 0) return n;
    return NULL;
}

NPU_API npu_node *npu_graph_read_value(npu_graph *g, npu_node *init, const char *variable_id, npu_type type,
                               const npu_shape *shape, const char *name)
{
    npu__op_request rq;
    npu_node *n;
    uint32_t bad;
    NPU__MSG_ONLY(char s0[96];)
    if (g == NULL) return NULL;
    if (variable_id == NULL)
        return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT, "ReadValue '%s': variable_id is NULL",
                                name ? name : "?");
    if (npu__find_variable(g, variable_id) != NULL)
        return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT,
                                "ReadValue '%s': variable '%.64s' is already declared",
                                name ? name : "?", variable_id);
    memset(&rq, 0, sizeof rq);
    rq.info = &npu__op_info_READ_VALUE;
    rq.name = name;
    rq.inputs = &init;
    rq.n_inputs = init != NULL ? 1u : 0u;
    rq.variable_id = variable_id;
    n = npu__op_begin(g, &rq);
    if (n == NULL) return NULL;
    if (!npu__check_source(g, n, type, shape)) return NULL;
    if (!npu__dynamic_ok(shape, "", &bad))
        return npu__op_abort(g, n, NPU_ERR_SHAPE,
                             "variable shape %s is dynamic on axis %u; only axis 0 may be dynamic",
                             npu__shape_text(shape, s0), bad);
    n->type = type;
    n->shape = *shape;
    return npu__op_finish(g, n);
}

NPU_API npu_node *npu_graph_assign(npu_graph *g, npu_node *value, const char *variable_id, const char *name)
{
    npu_node *n, *rv;
    if (g == NULL) return NULL;
    if (variable_id == NULL)
        return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT, "Assign '%s': variable_id is NULL",
                                name ? name : "?");
    rv = npu__find_variable(g, variable_id);
    if (rv == NULL)
        return npu__graph_failf(g, NPU_ERR_NOT_FOUND,
                                "Assign '%s': no ReadValue declares variable '%.64s'",
                                name ? name : "?", variable_id);
    if (rv->a.var.assigned)
        return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT,
                                "Assign '%s': variable '%.64s' already has an Assign",
                                name ? name : "?", variable_id);
    n = npu__simple(g, &npu__op_info_ASSIGN, &value, 1, name);
    if (n == NULL) return NULL;
    n->a.var.variable_id = rv->a.var.variable_id;
    n->a.var.read_value = rv;
    return npu__op_finish(g, n);
}

/* ---- Introspection ---- */

static const npu_node *npu__nth_node_of_op(const npu_graph *g, npu__op op, uint32_t index)
{
    const npu_node *n;
    for (n = g->first; n != NULL; n = n->next)
        if (n->op == op && index-- == 0) return n;
    return NULL;
}

static void npu__desc(const npu_node *n, const char *name, npu_tensor_desc *out)
{
    memset(out, 0, sizeof *out);
    out->name = name;
    out->type = n->type;
    out->shape = n->shape;
    npu__strlcpy(out->layout, n->layout, sizeof out->layout);
    if (npu__mul_u64(npu__shape_elements_dyn1(&n->shape), npu_type_size(n->type), &out->bytes)) out->bytes = 0;
}

static npu_status npu__io(const npu_graph *g, npu__op op, uint32_t index, npu_tensor_desc *out,
                          const char *what)
{
    NPU__MSG_UNUSED(what);
    const npu_node *n;
    if (g == NULL || out == NULL) return NPU_ERR_INVALID_ARGUMENT;
    n = npu__nth_node_of_op(g, op, index);
    if (n == NULL)
        return npu__fail(g->ctx, NPU_ERR_NOT_FOUND, "graph '%s': no %s %u (it has %u)", g->name, what,
                         index,
                         op == NPU__OP_PARAMETER ? g->cat_count[NPU__CAT_PARAMETER]
                         : op == NPU__OP_RESULT  ? g->cat_count[NPU__CAT_RESULT]
                                                 : g->state_count);
    npu__desc(n, op == NPU__OP_READ_VALUE ? n->a.var.variable_id : n->name, out);
    return NPU_OK;
}

NPU_API uint32_t npu_graph_input_count(const npu_graph *g) { return g ? g->cat_count[NPU__CAT_PARAMETER] : 0; }
NPU_API uint32_t npu_graph_output_count(const npu_graph *g) { return g ? g->cat_count[NPU__CAT_RESULT] : 0; }
NPU_API uint32_t npu_graph_state_count(const npu_graph *g) { return g ? g->state_count : 0; }

NPU_API npu_status npu_graph_input(const npu_graph *g, uint32_t index, npu_tensor_desc *out)
{ return npu__io(g, NPU__OP_PARAMETER, index, out, "input"); }
NPU_API npu_status npu_graph_output(const npu_graph *g, uint32_t index, npu_tensor_desc *out)
{ return npu__io(g, NPU__OP_RESULT, index, out, "output"); }
NPU_API npu_status npu_graph_state(const npu_graph *g, uint32_t index, npu_tensor_desc *out)
{ return npu__io(g, NPU__OP_READ_VALUE, index, out, "state"); }

/* ---- Pre- and postprocessing (the plans of section 5's end, built as nodes) ---- */

/* The plan's chain as nodes fed by src; *end is its last node (src when the
 * plan is empty). The graph's sticky error tells what failed. */
static npu_status npu__pp_build(npu_graph *g, const npu__pp *p, npu_node *src, npu_node **end)
{
    npu_node *nodes[NPU__PP_MAX_LAYERS];
    uint32_t i, k;
    *end = src;
    for (i = 0; i < p->n; i++) {
        const npu__pp_layer *l = &p->l[i];
        npu_node *in[3], *n = NULL;
        for (k = 0; k < l->n_in && k < 3; k++) in[k] = l->in[k] == NPU__PP_SRC ? src : nodes[l->in[k]];
        switch (l->op) {
        case NPU__PPL_CONST: n = npu__const_shaped(g, l->type, &l->shape, p->data + l->off, l->bytes); break;
        case NPU__PPL_CONVERT: n = npu_graph_convert(g, in[0], l->type, NULL); break;
        case NPU__PPL_TRANSPOSE:
        case NPU__PPL_GATHER:
        case NPU__PPL_INTERP:
            n = npu__simple(g, l->op == NPU__PPL_TRANSPOSE ? &npu__op_info_TRANSPOSE
                               : l->op == NPU__PPL_GATHER  ? &npu__op_info_GATHER
                                                           : &npu__op_info_INTERPOLATE,
                            in, l->n_in, NULL);
            if (n != NULL && l->op == NPU__PPL_INTERP) {   /* as section 8e writes it */
                n->a.interp.mode = l->nearest ? NPU_INTERPOLATE_NEAREST : NPU_INTERPOLATE_LINEAR;
                n->a.interp.coord = NPU_COORD_HALF_PIXEL;
                n->a.interp.nearest = NPU_NEAREST_ROUND_PREFER_FLOOR;
            }
            if (n != NULL) n = npu__op_finish(g, n);
            break;
        case NPU__PPL_SUB: n = npu_graph_subtract(g, in[0], in[1], NULL); break;
        case NPU__PPL_DIV: n = npu_graph_divide(g, in[0], in[1], NULL); break;
        default: n = npu_graph_convolution(g, in[0], in[1], NULL, NULL); break;
        }
        if (n == NULL) return g->status;
        nodes[i] = n;
        *end = n;
    }
    return NPU_OK;
}

/* Moves the nodes made since k (the chain) to right after `after`, so that
 * creation order stays a topological order for re-inference. */
static void npu__pp_splice(npu_graph *g, const npu__graph_mark *k, npu_node *after)
{
    npu_node *first = k->last->next, *last = g->last;
    if (first == NULL) return;
    k->last->next = NULL;
    g->last = k->last;
    last->next = after->next;
    after->next = first;
    if (g->last == after) g->last = last;
}

/* Common start of the two calls: the plan in `arena`, for the node found. */
static npu_status npu__gpp_begin(npu_graph *g, npu_arena *arena, npu__op op, uint32_t index, const uint32_t *reserved,
                                 const char *what, npu_node **node, npu__pp **out)
{
    npu_node *n;
    NPU__MSG_UNUSED(what);
    *out = NULL;
    if (g == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (arena == NULL || reserved == NULL)
        return npu__fail(g->ctx, NPU_ERR_INVALID_ARGUMENT, "%s: arena or options NULL", what);
    if (npu__check_reserved_n(g->ctx, reserved, NPU_RESERVED_WORDS, what) != NPU_OK) return NPU_ERR_INVALID_ARGUMENT;
    if (g->status != NPU_OK)
        return npu__fail(g->ctx, NPU_ERR_STATE, "%s: the graph has failed: %s", what, g->first_error);
    n = (npu_node *)(uintptr_t)npu__nth_node_of_op(g, op, index);
    if (n == NULL)
        return npu__fail(g->ctx, NPU_ERR_NOT_FOUND, "%s: the graph has no %s %lu", what,
                         op == NPU__OP_RESULT ? "output" : "input", (unsigned long)index);
    if (n->pp_set)
        return npu__fail(g->ctx, NPU_ERR_STATE, "%s: %s '%s' already has %s set", what,
                         op == NPU__OP_RESULT ? "output" : "input", n->name,
                         op == NPU__OP_RESULT ? "postprocessing" : "preprocessing");
    if (npu__pp_new(g->ctx, arena, op == NPU__OP_RESULT, index, what, out) != NPU_OK) return NPU_ERR_ARENA_TOO_SMALL;
    (*out)->model.name = n->name;
    (*out)->model.type = n->type;
    (*out)->model.shape = n->shape;
    npu__strlcpy((*out)->model.layout, n->layout, sizeof (*out)->model.layout);
    (*out)->model_batch_axis = n->layout[0] != '\0' ? npu__pp_axis(n->layout, 'N')
                               : n->shape.rank > 0 && n->shape.dims[0] < 0 ? 0 : -1;
    *node = n;
    return NPU_OK;
}

/* A failed build: the graph, the node and the arena as they were, the
 * message in the context. */
static npu_status npu__gpp_undo(npu_graph *g, const npu__graph_mark *k, npu_arena *arena, size_t amark,
                                npu_node *n, const npu_tensor_desc *saved, const char *what)
{
    npu_status st = g->status;
    NPU__MSG_UNUSED(what);
    (void)npu__fail(g->ctx, st, "%s: %s", what, g->first_error);
    npu__graph_undo(g, k);
    n->type = saved->type;
    n->shape = saved->shape;
    memcpy(n->layout, saved->layout, sizeof n->layout);
    g->status = NPU_OK;
    g->first_error[0] = '\0';
    npu_arena_rewind(arena, amark);   /* below the graph's mark when it is the graph's arena */
    return st;
}

NPU_API npu_status npu_graph_set_preprocess(npu_graph *g, npu_arena *arena, uint32_t input, const npu_preprocess *pp)
{
    static const char what[] = "npu_graph_set_preprocess";
    npu__graph_mark k;
    npu__pp *p;
    npu_node *P = NULL, *end, *n;
    npu_shape us;
    int32_t ub;
    uint32_t i, bad;
    const char *ul, *why;
    npu_type ut;
    size_t amark = arena ? arena->used : 0;
    npu_status st = npu__gpp_begin(g, arena, NPU__OP_PARAMETER, input, pp ? pp->reserved : NULL, what, &P, &p);
    if (st != NPU_OK) return st;
    ut = pp->type == NPU_TYPE_UNDEFINED ? p->model.type : pp->type;
    ul = pp->layout == NULL || pp->layout[0] == '\0' ? p->model.layout : pp->layout;
    if (!npu__type_valid(ut)) why = "unknown element type";
    else why = npu__pp_plan_input(p, pp, ut, ul, &us, &ub);
    if (why == NULL && !npu__dynamic_ok(&us, ul, &bad)) why = "the caller's layout puts the batch on another axis";
    if (why != NULL) {
        npu_arena_rewind(arena, amark);
        return npu__fail(g->ctx, NPU_ERR_INVALID_ARGUMENT, "%s: input %u ('%s'): %s", what, input, P->name, why);
    }
    NPU__UNUSED(ub);
    npu__graph_mark_set(g, &k);
    P->type = ut;
    P->shape = us;
    npu__strlcpy(P->layout, ul, sizeof P->layout);
    st = npu__pp_build(g, p, P, &end);
    if (st != NPU_OK) return npu__gpp_undo(g, &k, arena, amark, P, &p->model, what);
    /* every consumer of the Parameter (but the chain) now reads the chain's end */
    for (n = g->first; n != NULL && end != P; n = n == k.last ? NULL : n->next)
        for (i = 0; i < n->n_inputs; i++)
            if (n->inputs[i] == P) n->inputs[i] = end;
    if (end != P) {
        end->first_result = P->first_result;
        P->first_result = NULL;
    }
    npu__pp_splice(g, &k, P);
    P->pp_set = 1;
    return NPU_OK;
}

NPU_API npu_status npu_graph_set_postprocess(npu_graph *g, npu_arena *arena, uint32_t output, const npu_postprocess *pp)
{
    static const char what[] = "npu_graph_set_postprocess";
    npu__graph_mark k;
    npu__pp *p;
    npu_node *R = NULL, *src, *end, **link;
    npu_shape sh;
    const char *ul, *why;
    npu_type ut;
    size_t amark = arena ? arena->used : 0;
    npu_status st = npu__gpp_begin(g, arena, NPU__OP_RESULT, output, pp ? pp->reserved : NULL, what, &R, &p);
    if (st != NPU_OK) return st;
    ut = pp->type == NPU_TYPE_UNDEFINED ? p->model.type : pp->type;
    ul = pp->layout == NULL || pp->layout[0] == '\0' ? p->model.layout : pp->layout;
    why = npu__pp_plan_output(p, ut, ul, &sh);
    if (why != NULL) {
        npu_arena_rewind(arena, amark);
        return npu__fail(g->ctx, NPU_ERR_INVALID_ARGUMENT, "%s: output %u ('%s'): %s", what, output, R->name, why);
    }
    src = R->inputs[0];
    npu__graph_mark_set(g, &k);
    st = npu__pp_build(g, p, src, &end);
    if (st != NPU_OK) return npu__gpp_undo(g, &k, arena, amark, R, &p->model, what);
    if (end != src) {
        /* the Result leaves its producer's list of Results for the chain end's */
        for (link = &src->first_result; *link != NULL && *link != R; link = &(*link)->next_result) {
        }
        if (*link == R) *link = R->next_result;
        R->next_result = NULL;
        for (link = &end->first_result; *link != NULL; link = &(*link)->next_result) {
        }
        *link = R;
        R->inputs[0] = end;
        R->type = end->type;
        R->shape = end->shape;
    }
    npu__strlcpy(R->layout, ul, sizeof R->layout);
    npu__pp_splice(g, &k, src);
    R->pp_set = 1;
    return NPU_OK;
}

/* ---- Batch ---- */

/* Re-infers every derived node in creation order; on failure m holds why. */
static npu_status npu__reinfer(npu_graph *g, npu__msg *m)
{
    npu_node *n;
    for (n = g->first; n != NULL; n = n->next) {
        npu__infer_fn f = n->info->infer;
        if (f != NULL) {
            npu_status st = f(n, m);
            if (st != NPU_OK) return st;
        }
    }
    return NPU_OK;
}

NPU_API npu_status npu_graph_set_batch(npu_graph *g, int64_t batch)
{
    npu_node *n;
    npu__msg m;
    npu_status st;
    if (g == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (batch < 1 && batch != NPU_DIM_DYNAMIC)
        return npu__fail(g->ctx, NPU_ERR_INVALID_ARGUMENT,
                         "set_batch: batch %lld; must be >= 1 or NPU_DIM_DYNAMIC", (long long)batch);
    for (n = g->first; n != NULL; n = n->next) {
        if (n->op == NPU__OP_PARAMETER && n->shape.rank > 0) {
            uint32_t ax = npu__batch_axis(n->layout);
            n->a.parameter.saved_batch = n->shape.dims[ax];
            n->shape.dims[ax] = batch;
        }
    }
    m.text[0] = '\0';
    st = npu__reinfer(g, &m);
    if (st == NPU_OK) return NPU_OK;
    /* Record the message first: m is then reused by the re-inference at the
     * old shapes (which inferred before, so they do again; inference only
     * writes m, never the context). */
    (void)npu__fail(g->ctx, st, "set_batch(%lld): %s", (long long)batch, m.text);
    for (n = g->first; n != NULL; n = n->next)
        if (n->op == NPU__OP_PARAMETER && n->shape.rank > 0)
            n->shape.dims[npu__batch_axis(n->layout)] = n->a.parameter.saved_batch;
    (void)npu__reinfer(g, &m);
    return st;
}

NPU_API int64_t npu_graph_batch(const npu_graph *g)
{
    const npu_node *n;
    int64_t batch = 0;
    int found = 0;
    if (g == NULL) return 0;
    for (n = g->first; n != NULL; n = n->next) {
        int64_t d;
        if (n->op != NPU__OP_PARAMETER || n->shape.rank == 0) continue;
        d = n->shape.dims[npu__batch_axis(n->layout)];
        if (!found) {
            batch = d;
            found = 1;
        } else if (d != batch) {
            return 0;
        }
    }
    return found ? batch : 0;
}

/* ==== 7. IR writer ======================================================= */
/* Owns: graph -> IR v11 XML text (the layout pugixml gives OpenVINO's
 * serializer: tab indent, `<x a="v" />` for empty elements), the constants
 * blob / weights packing and the NGRAPH_LITE payload around them.
 * Calls: section 5 (sinks, payload containers). Every writer runs twice, once
 * counting (dst NULL) and once writing, through the same code. */


typedef struct npu__writer {
    npu__sink *s;
    const npu_graph *g;
    int pointer_layout;        /* layout B */
    uint64_t threshold;        /* layout B: constants below go to the blob */
    uint64_t offset;           /* next constant's offset in the blob / weights */
    uint32_t cat_base[NPU__CAT_COUNT];
    uint32_t extra_base;       /* first id after the graph's own layers */
    int rv_init;               /* write a zero Const as the init input of every
                                  ReadValue without one (compilers before 7.0) */
    const char *wpa_ptr, *wpa_size; /* WeightsPointerAttribute key names */
    /* Type overrides of the compile options (npu_compile_options input_types /
     * output_types): a Parameter gets the new type and a Convert to the model's
     * type behind it; a Result a Convert from the model's type in front of it
     * (what OpenVINO's PrePostProcessor adds). Convert layer ids: extra_base +
     * input index, extra_base + inputs + output index; the ReadValue inits
     * follow from rv_base. */
    const npu_type *in_over, *out_over;
    uint32_t n_in_over, n_out_over;
    uint32_t rv_base;
} npu__writer;

/* The type a Parameter or Result is overridden to, or NPU_TYPE_UNDEFINED. */
static npu_type npu__w_over(const npu__writer *w, const npu_node *n)
{
    npu_type t = NPU_TYPE_UNDEFINED, model = n->type;
    if (n->op == NPU__OP_PARAMETER && w->in_over != NULL && n->cat_index < w->n_in_over)
        t = w->in_over[n->cat_index];
    else if (n->op == NPU__OP_RESULT && w->out_over != NULL && n->cat_index < w->n_out_over)
        t = w->out_over[n->cat_index];
    if (n->op == NPU__OP_RESULT && n->n_inputs > 0) model = n->inputs[0]->type;
    if (t == NPU_TYPE_UNDEFINED || (unsigned)t >= (unsigned)NPU_TYPE_COUNT || t == model) return NPU_TYPE_UNDEFINED;
    return t;
}

static uint32_t npu__w_conv_id(const npu__writer *w, const npu_node *n)
{
    return w->extra_base + (n->op == NPU__OP_RESULT ? w->g->cat_count[NPU__CAT_PARAMETER] : 0u) + n->cat_index;
}

/* Bytes of the zero init Const written for ReadValue n (0: none written). */
static uint64_t npu__rv_init_bytes(const npu__writer *w, const npu_node *n)
{
    uint64_t b;
    uint32_t i;
    if (!w->rv_init || n->op != NPU__OP_READ_VALUE || n->n_inputs != 0) return 0;
    for (i = 0; i < n->shape.rank; i++)
        if (n->shape.dims[i] < 0) return 0;
    if (npu__mul_u64(npu__shape_elements_dyn1(&n->shape), npu_type_size(n->type), &b)) return 0;
    return b;
}

/* The output port id of n (after its input ports). */
static uint32_t npu__out_port(const npu__writer *w, const npu_node *n)
{
    return n->n_inputs + (npu__rv_init_bytes(w, n) > 0 ? 1u : 0u);
}

static uint32_t npu__layer_id(const npu__writer *w, const npu_node *n)
{
    return w->cat_base[n->cat] + n->cat_index;
}

/* A constant whose data the XML points at (layout B, at/above the threshold). */
static int npu__by_pointer(const npu__writer *w, const npu_node *n)
{
    return w->pointer_layout && n->a.constant.bytes >= w->threshold;
}

static void npu__xml_text(npu__sink *s, const char *t) { npu__sink_str(s, t); }

static void npu__x_tabs(npu__sink *s, unsigned n)
{
    static const char tabs[] = "\t\t\t\t\t\t\t\t";
    npu__sink_put(s, tabs, n < 8 ? n : 8);
}

/* ` name="`: the value and the closing quote follow. */
static void npu__x_attr_open(npu__sink *s, const char *name)
{
    npu__xml_text(s, " ");
    npu__xml_text(s, name);
    npu__xml_text(s, "=\"");
}

static void npu__x_attr_str(npu__sink *s, const char *name, const char *value)
{
    npu__x_attr_open(s, name);
    npu__sink_xml_escaped(s, value, strlen(value));
    npu__xml_text(s, "\"");
}

static void npu__x_attr_i64(npu__sink *s, const char *name, int64_t v)
{
    npu__x_attr_open(s, name);
    npu__sink_i64_dec(s, v);
    npu__xml_text(s, "\"");
}

static void npu__x_attr_u64(npu__sink *s, const char *name, uint64_t v)
{
    npu__x_attr_open(s, name);
    npu__sink_u64_dec(s, v);
    npu__xml_text(s, "\"");
}

static void npu__x_attr_bool(npu__sink *s, const char *name, int v)
{
    npu__x_attr_str(s, name, v ? "true" : "false");
}

/* A list attribute; `sep` ", " for vectors and static shapes (OpenVINO's join),
 * "," for partial shapes, where a dynamic dim is "?". */
static void npu__x_attr_list(npu__sink *s, const char *name, const int64_t *v, uint32_t n,
                             const char *sep)
{
    uint32_t i;
    npu__x_attr_open(s, name);
    for (i = 0; i < n; i++) {
        if (i) npu__xml_text(s, sep);
        if (v[i] < 0 && sep[1] == '\0') npu__xml_text(s, "?");
        else npu__sink_i64_dec(s, v[i]);
    }
    npu__xml_text(s, "\"");
}

/* %.17g as pugixml writes doubles, with '.' whatever the locale. */
static void npu__x_attr_double(npu__sink *s, const char *name, double v)
{
    char buf[40];
    char *p;
    snprintf(buf, sizeof buf, "%.17g", v);
    for (p = buf; *p; p++)
        if (*p == ',') *p = '.';
    npu__x_attr_str(s, name, buf);
}

static const char *npu__auto_pad_name(npu_auto_pad p)
{
    static const char *const names[] = {"explicit", "valid", "same_upper", "same_lower"};
    return names[(unsigned)p <= 3u ? (unsigned)p : 0u];
}

/* Pads as OpenVINO writes them: zero unless auto_pad is explicit. */
static void npu__x_pads(npu__sink *s, const char *name, const int64_t *pads, uint32_t sp,
                        npu_auto_pad ap)
{
    static const int64_t zeros[NPU_MAX_SPATIAL] = {0};
    npu__x_attr_list(s, name, ap == NPU_PAD_EXPLICIT ? pads : zeros, sp, ", ");
}

static uint32_t npu__spatial(const npu_node *n) { return n->inputs[0]->shape.rank - 2; }

static void npu__attrs_parameter(npu__sink *s, const npu_node *n)
{
    npu__x_attr_list(s, "shape", n->shape.dims, n->shape.rank, ",");
    npu__x_attr_str(s, "element_type", npu__types[n->type].ov_name);
}

static void npu__attrs_convert(npu__sink *s, const npu_node *n)
{
    npu__x_attr_str(s, "destination_type", npu__types[n->a.convert.to].ov_name);
}

static void npu__attrs_matmul(npu__sink *s, const npu_node *n)
{
    npu__x_attr_bool(s, "transpose_a", n->a.matmul.transpose_a);
    npu__x_attr_bool(s, "transpose_b", n->a.matmul.transpose_b);
}

static void npu__attrs_broadcast(npu__sink *s, const npu_node *n)
{
    NPU__UNUSED(n);
    npu__x_attr_str(s, "auto_broadcast", "numpy");
}

static void npu__attrs_clamp(npu__sink *s, const npu_node *n)
{
    npu__x_attr_double(s, "min", n->a.clamp.min);
    npu__x_attr_double(s, "max", n->a.clamp.max);
}

static void npu__attrs_axis(npu__sink *s, const npu_node *n)
{
    npu__x_attr_i64(s, "axis", n->a.axis.axis);
}

static void npu__attrs_conv(npu__sink *s, const npu_node *n)
{
    uint32_t sp = npu__spatial(n);
    npu__x_attr_list(s, "strides", n->a.conv.strides, sp, ", ");
    npu__x_attr_list(s, "dilations", n->a.conv.dilations, sp, ", ");
    npu__x_pads(s, "pads_begin", n->a.conv.pads_begin, sp, n->a.conv.auto_pad);
    npu__x_pads(s, "pads_end", n->a.conv.pads_end, sp, n->a.conv.auto_pad);
    npu__x_attr_str(s, "auto_pad", npu__auto_pad_name(n->a.conv.auto_pad));
}

/* MaxPool and AvgPool, each in the attribute order OpenVINO writes. */
static void npu__attrs_pool(npu__sink *s, const npu_node *n)
{
    uint32_t sp = npu__spatial(n);
    int avg = n->op == NPU__OP_AVG_POOL;
    const char *rounding = n->a.pool.rounding_type == NPU_ROUND_CEIL ? "ceil" : "floor";
    if (avg) npu__x_attr_list(s, "kernel", n->a.pool.kernel, sp, ", ");
    npu__x_attr_list(s, "strides", n->a.pool.strides, sp, ", ");
    npu__x_pads(s, "pads_begin", n->a.pool.pads_begin, sp, n->a.pool.auto_pad);
    npu__x_pads(s, "pads_end", n->a.pool.pads_end, sp, n->a.pool.auto_pad);
    if (avg) {
        npu__x_attr_bool(s, "exclude-pad", n->a.pool.exclude_pad);
    } else {
        npu__x_attr_list(s, "kernel", n->a.pool.kernel, sp, ", ");
        npu__x_attr_str(s, "rounding_type", rounding);
    }
    npu__x_attr_str(s, "auto_pad", npu__auto_pad_name(n->a.pool.auto_pad));
    if (avg) npu__x_attr_str(s, "rounding_type", rounding);
}

static void npu__attrs_keep_dims(npu__sink *s, const npu_node *n)
{
    npu__x_attr_bool(s, "keep_dims", n->a.flag.flag);
}

static void npu__attrs_special_zero(npu__sink *s, const npu_node *n)
{
    npu__x_attr_bool(s, "special_zero", n->a.flag.flag);
}

static void npu__attrs_read_value(npu__sink *s, const npu_node *n)
{
    npu__x_attr_str(s, "variable_id", n->a.var.variable_id);
    npu__x_attr_str(s, "variable_type", npu__types[n->type].ov_name);
    npu__x_attr_list(s, "variable_shape", n->shape.dims, n->shape.rank, ",");
}

static void npu__attrs_assign(npu__sink *s, const npu_node *n)
{
    npu__x_attr_str(s, "variable_id", n->a.var.variable_id);
}

static void npu__attrs_gelu(npu__sink *s, const npu_node *n)
{
    npu__x_attr_str(s, "approximation_mode", n->a.flag.flag ? "TANH" : "ERF");
}

static void npu__attrs_pad(npu__sink *s, const npu_node *n)
{
    static const char *const modes[] = {"constant", "edge", "reflect", "symmetric"};
    npu__x_attr_str(s, "pad_mode", modes[(unsigned)n->a.flag.flag & 3u]);
}

static void npu__attrs_fake_quantize(npu__sink *s, const npu_node *n)
{
    npu__x_attr_i64(s, "levels", (int64_t)n->a.fq.levels);
    npu__x_attr_str(s, "auto_broadcast", "numpy");
}

/* Interpolate-11 in the order OpenVINO's InterpolateBase visits them; pads
 * zero, one per axis of the input. */
static void npu__attrs_interpolate(npu__sink *s, const npu_node *n)
{
    static const char *const modes[] = {"nearest", "linear", "linear_onnx"};
    static const char *const coords[] = {"half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn",
                                         "align_corners"};
    static const char *const nearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"};
    static const int64_t zeros[NPU_MAX_RANK] = {0};
    npu__x_attr_str(s, "mode", modes[n->a.interp.mode % 3u]);
    npu__x_attr_str(s, "shape_calculation_mode", n->a.interp.by_scales ? "scales" : "sizes");
    npu__x_attr_str(s, "coordinate_transformation_mode", coords[n->a.interp.coord % 5u]);
    npu__x_attr_str(s, "nearest_mode", nearest[n->a.interp.nearest % 5u]);
    npu__x_attr_bool(s, "antialias", 0);
    npu__x_attr_list(s, "pads_begin", zeros, n->inputs[0]->shape.rank, ", ");
    npu__x_attr_list(s, "pads_end", zeros, n->inputs[0]->shape.rank, ", ");
    npu__x_attr_double(s, "cube_coeff", -0.75);
}

static void npu__attrs_gather(npu__sink *s, const npu_node *n)
{
    NPU__UNUSED(n);
    npu__x_attr_i64(s, "batch_dims", 0);
}

/* Constants are written by the layer writer (their offset depends on it). */
static void npu__attrs_none(npu__sink *s, const npu_node *n)
{
    NPU__UNUSED(s);
    NPU__UNUSED(n);
}

/* Generated from NPU__OPS (section 6); a NULL cell stays NULL. */
#define npu__infer_NULL NULL
#define npu__attrs_NULL NULL
#define NPU__OP_ROW(e, type, version, name, cat, infer, attrs) \
    static const npu__op_info npu__op_info_##e = {NPU__OP_##e, type, version, name, NPU__CAT_##cat, \
                                                  npu__infer_##infer, npu__attrs_##attrs};
NPU__OPS(NPU__OP_ROW)
#undef NPU__OP_ROW
#undef npu__infer_NULL
#undef npu__attrs_NULL

/* Tensor names: OpenVINO escapes ',' as "\," inside the list. */
static void npu__x_tensor_name(npu__sink *s, const char *name)
{
    const char *p = name, *comma;
    while ((comma = strchr(p, ',')) != NULL) {
        npu__sink_xml_escaped(s, p, (size_t)(comma - p));
        npu__xml_text(s, "\\,");
        p = comma + 1;
    }
    npu__sink_xml_escaped(s, p, strlen(p));
}

static void npu__x_layout_rt_info(npu__sink *s, const char *layout)
{
    size_t i;
    npu__x_tabs(s, 5);
    npu__xml_text(s, "<rt_info>\n");
    npu__x_tabs(s, 6);
    npu__xml_text(s, "<attribute name=\"layout\" version=\"0\" layout=\"[");
    for (i = 0; layout[i] != '\0'; i++) {
        if (i) npu__xml_text(s, ",");
        npu__sink_xml_escaped(s, &layout[i], 1);
    }
    npu__xml_text(s, "]\" />\n");
    npu__x_tabs(s, 5);
    npu__xml_text(s, "</rt_info>\n");
}

/* One <port>; `names_of`: the node whose tensor names this output carries
 * (NULL for input ports). */
/* A port of tensor's shape; its precision is `type` (npu__x_port: tensor's).
 * names_of: a Parameter's name and the names of the Results it feeds, or just
 * a Result's name (the Convert in front of an overridden Result carries it);
 * w (may be NULL) leaves out overridden Results. */
static void npu__x_port_t(npu__sink *s, uint32_t id, const npu_node *tensor, npu_type type,
                          const npu_node *names_of, const char *layout, const npu__writer *w)
{
    uint32_t i;
    int has_names = 0;
    npu__x_tabs(s, 4);
    npu__xml_text(s, "<port id=\"");
    npu__sink_u64_dec(s, id);
    npu__xml_text(s, "\" precision=\"");
    npu__xml_text(s, npu__types[type].ov_precision);
    npu__xml_text(s, "\"");
    if (names_of != NULL) {
        const npu_node *r;
        if (names_of->op == NPU__OP_PARAMETER || names_of->op == NPU__OP_RESULT) {
            npu__xml_text(s, " names=\"");
            npu__x_tensor_name(s, names_of->name);
            has_names = 1;
        }
        for (r = names_of->op == NPU__OP_RESULT ? NULL : names_of->first_result; r != NULL; r = r->next_result) {
            if (w != NULL && npu__w_over(w, r) != NPU_TYPE_UNDEFINED) continue;
            npu__xml_text(s, has_names ? "," : " names=\"");
            npu__x_tensor_name(s, r->name);
            has_names = 1;
        }
        if (has_names) npu__xml_text(s, "\"");
    }
    if (tensor->shape.rank == 0 && (layout == NULL || layout[0] == '\0')) {
        npu__xml_text(s, " />\n");
        return;
    }
    npu__xml_text(s, ">\n");
    for (i = 0; i < tensor->shape.rank; i++) {
        npu__x_tabs(s, 5);
        npu__xml_text(s, "<dim>");
        npu__sink_i64_dec(s, tensor->shape.dims[i] < 0 ? -1 : tensor->shape.dims[i]);
        npu__xml_text(s, "</dim>\n");
    }
    if (layout != NULL && layout[0] != '\0') npu__x_layout_rt_info(s, layout);
    npu__x_tabs(s, 4);
    npu__xml_text(s, "</port>\n");
}

static void npu__x_port(npu__sink *s, uint32_t id, const npu_node *tensor, const npu_node *names_of,
                        const char *layout)
{
    npu__x_port_t(s, id, tensor, tensor->type, names_of, layout, NULL);
}

static void npu__x_layer(npu__writer *w, const npu_node *n)
{
    npu__sink *s = w->s;
    const npu__op_info *info = n->info;
    uint32_t i;
    npu__x_tabs(s, 2);
    npu__xml_text(s, "<layer id=\"");
    npu__sink_u64_dec(s, npu__layer_id(w, n));
    npu__xml_text(s, "\"");
    npu__x_attr_str(s, "name", n->name);
    npu__x_attr_str(s, "type", info->ir_type);
    npu__x_attr_str(s, "version", info->version);
    npu__xml_text(s, ">\n");
    if (n->op == NPU__OP_CONSTANT) {
        int by_pointer = npu__by_pointer(w, n);
        npu__x_tabs(s, 3);
        npu__xml_text(s, "<data");
        npu__x_attr_str(s, "element_type", npu__types[n->type].ov_name);
        npu__x_attr_list(s, "shape", n->shape.dims, n->shape.rank, ", ");
        npu__x_attr_u64(s, "offset", by_pointer ? 0 : w->offset);
        npu__x_attr_u64(s, "size", n->a.constant.bytes);
        npu__xml_text(s, " />\n");
        if (by_pointer) {
            npu__x_tabs(s, 3);
            npu__xml_text(s, "<rt_info>\n");
            npu__x_tabs(s, 4);
            npu__xml_text(s, "<attribute name=\"WeightsPointerAttribute\" version=\"0\"");
            npu__x_attr_u64(s, w->wpa_ptr, (uint64_t)(uintptr_t)n->a.constant.data);
            npu__x_attr_u64(s, w->wpa_size, n->a.constant.bytes);
            npu__xml_text(s, " />\n");
            npu__x_tabs(s, 3);
            npu__xml_text(s, "</rt_info>\n");
        } else if (npu__add_u64(w->offset, n->a.constant.bytes, &w->offset)) {
            s->overflow = 1;
        }
    } else if (n->op == NPU__OP_PARAMETER && npu__w_over(w, n) != NPU_TYPE_UNDEFINED) {
        npu__x_tabs(s, 3);
        npu__xml_text(s, "<data");
        npu__x_attr_list(s, "shape", n->shape.dims, n->shape.rank, ",");
        npu__x_attr_str(s, "element_type", npu__types[npu__w_over(w, n)].ov_name);
        npu__xml_text(s, " />\n");
    } else if (info->attrs != NULL) {
        npu__x_tabs(s, 3);
        npu__xml_text(s, "<data");
        info->attrs(s, n);
        npu__xml_text(s, " />\n");
    }
    if (n->n_inputs > 0 || npu__out_port(w, n) > 0) {
        npu__x_tabs(s, 3);
        npu__xml_text(s, "<input>\n");
        for (i = 0; i < n->n_inputs; i++)
            if (n->op == NPU__OP_RESULT && npu__w_over(w, n) != NPU_TYPE_UNDEFINED)
                npu__x_port_t(s, i, n->inputs[i], npu__w_over(w, n), NULL, n->layout, NULL);
            else
                npu__x_port(s, i, n->inputs[i], NULL, n->op == NPU__OP_RESULT ? n->layout : NULL);
        if (n->n_inputs == 0) npu__x_port(s, 0, n, NULL, NULL);   /* the zero init input */
        npu__x_tabs(s, 3);
        npu__xml_text(s, "</input>\n");
    }
    if (n->op != NPU__OP_RESULT) {
        npu__x_tabs(s, 3);
        npu__xml_text(s, "<output>\n");
        npu__x_port_t(s, npu__out_port(w, n), n,
                      npu__w_over(w, n) != NPU_TYPE_UNDEFINED ? npu__w_over(w, n) : n->type, n,
                      n->op == NPU__OP_PARAMETER ? n->layout : NULL, w);
        npu__x_tabs(s, 3);
        npu__xml_text(s, "</output>\n");
    }
    npu__x_tabs(s, 2);
    npu__xml_text(s, "</layer>\n");
}

/* Visits the nodes in IR layer order. */
#define NPU__FOR_EACH_LAYER(g, cat, n)                              \
    for ((cat) = 0; (cat) < NPU__CAT_COUNT; (cat)++)                \
        for ((n) = (g)->first; (n) != NULL; (n) = (n)->next)        \
            if ((n)->cat == (cat))

static void npu__writer_init(npu__writer *w, npu__sink *s, const npu_graph *g,
                             const npu_payload_options *opts)
{
    uint32_t c, base = 0;
    memset(w, 0, sizeof *w);
    w->s = s;
    w->g = g;
    w->pointer_layout = opts == NULL || npu__payload_resolve(opts->layout) == NPU_PAYLOAD_NO_WEIGHTS_COPY;
    w->threshold = opts ? opts->weights_threshold_bytes : 0;
    for (c = 0; c < NPU__CAT_COUNT; c++) {
        w->cat_base[c] = base;
        base += g->cat_count[c];
    }
    w->extra_base = base;
    w->rv_base = base + g->cat_count[NPU__CAT_PARAMETER] + g->cat_count[NPU__CAT_RESULT];
    npu__wpa_keys(opts ? opts->compiler_version : 0, &w->wpa_ptr, &w->wpa_size);
}

/* The Convert layers of the type overrides (npu__writer.in_over/out_over). */
static void npu__x_converts(npu__writer *w)
{
    npu__sink *s = w->s;
    const npu_node *n;
    unsigned cat;
    NPU__FOR_EACH_LAYER(w->g, cat, n) {
        npu_type t = npu__w_over(w, n), from, to;
        const npu_node *tensor = n->op == NPU__OP_RESULT ? n->inputs[0] : n;
        if (t == NPU_TYPE_UNDEFINED) continue;
        from = n->op == NPU__OP_PARAMETER ? t : tensor->type;
        to = n->op == NPU__OP_PARAMETER ? n->type : t;
        npu__x_tabs(s, 2);
        npu__xml_text(s, "<layer id=\"");
        npu__sink_u64_dec(s, npu__w_conv_id(w, n));
        npu__xml_text(s, "\" name=\"");
        npu__sink_xml_escaped(s, n->name, strlen(n->name));
        npu__xml_text(s, "/convert\"");
        npu__x_attr_str(s, "type", npu__op_info_CONVERT.ir_type);
        npu__x_attr_str(s, "version", npu__op_info_CONVERT.version);
        npu__xml_text(s, ">\n");
        npu__x_tabs(s, 3);
        npu__xml_text(s, "<data");
        npu__x_attr_str(s, "destination_type", npu__types[to].ov_name);
        npu__xml_text(s, " />\n");
        npu__x_tabs(s, 3);
        npu__xml_text(s, "<input>\n");
        npu__x_port_t(s, 0, tensor, from, NULL, NULL, NULL);
        npu__x_tabs(s, 3);
        npu__xml_text(s, "</input>\n");
        npu__x_tabs(s, 3);
        npu__xml_text(s, "<output>\n");
        /* The output names move to the Convert, as PrePostProcessor does. */
        npu__x_port_t(s, 1, tensor, to, n->op == NPU__OP_RESULT ? n : NULL, NULL, NULL);
        npu__x_tabs(s, 3);
        npu__xml_text(s, "</output>\n");
        npu__x_tabs(s, 2);
        npu__xml_text(s, "</layer>\n");
    }
}

static void npu__x_edge(npu__sink *s, uint32_t from, uint32_t from_port, uint32_t to, uint32_t to_port)
{
    npu__xml_text(s, "\t\t<edge from-layer=\"");
    npu__sink_u64_dec(s, from);
    npu__xml_text(s, "\" from-port=\"");
    npu__sink_u64_dec(s, from_port);
    npu__xml_text(s, "\" to-layer=\"");
    npu__sink_u64_dec(s, to);
    npu__xml_text(s, "\" to-port=\"");
    npu__sink_u64_dec(s, to_port);
    npu__xml_text(s, "\" />\n");
}

/* Where a consumer of src reads from: src's output, or the Convert behind an
 * overridden Parameter. */
static void npu__w_source(const npu__writer *w, const npu_node *src, uint32_t *layer, uint32_t *port)
{
    if (src->op == NPU__OP_PARAMETER && npu__w_over(w, src) != NPU_TYPE_UNDEFINED) {
        *layer = npu__w_conv_id(w, src);
        *port = 1;
    } else {
        *layer = npu__layer_id(w, src);
        *port = npu__out_port(w, src);
    }
}

/* The zero init Consts (npu__writer.rv_init): layers, after the graph's own. */
static void npu__x_rv_inits(npu__writer *w)
{
    npu__sink *s = w->s;
    const npu_node *n;
    uint32_t k = 0;
    unsigned cat;
    NPU__FOR_EACH_LAYER(w->g, cat, n) {
        uint64_t bytes = npu__rv_init_bytes(w, n);
        if (bytes == 0) continue;
        npu__x_tabs(s, 2);
        npu__xml_text(s, "<layer id=\"");
        npu__sink_u64_dec(s, w->rv_base + k++);
        npu__xml_text(s, "\" name=\"");
        npu__sink_xml_escaped(s, n->name, strlen(n->name));
        npu__xml_text(s, "/init\"");
        npu__x_attr_str(s, "type", npu__op_info_CONSTANT.ir_type);
        npu__x_attr_str(s, "version", npu__op_info_CONSTANT.version);
        npu__xml_text(s, ">\n");
        npu__x_tabs(s, 3);
        npu__xml_text(s, "<data");
        npu__x_attr_str(s, "element_type", npu__types[n->type].ov_name);
        npu__x_attr_list(s, "shape", n->shape.dims, n->shape.rank, ", ");
        npu__x_attr_u64(s, "offset", w->offset);
        npu__x_attr_u64(s, "size", bytes);
        npu__xml_text(s, " />\n");
        npu__x_tabs(s, 3);
        npu__xml_text(s, "<output>\n");
        npu__x_port(s, 0, n, NULL, NULL);
        npu__x_tabs(s, 3);
        npu__xml_text(s, "</output>\n");
        npu__x_tabs(s, 2);
        npu__xml_text(s, "</layer>\n");
        if (npu__add_u64(w->offset, bytes, &w->offset)) s->overflow = 1;
    }
}

static void npu__x_rv_init_edges(npu__writer *w)
{
    npu__sink *s = w->s;
    const npu_node *n;
    uint32_t k = 0;
    unsigned cat;
    NPU__FOR_EACH_LAYER(w->g, cat, n) {
        if (npu__rv_init_bytes(w, n) == 0) continue;
        npu__xml_text(s, "\t\t<edge from-layer=\"");
        npu__sink_u64_dec(s, w->rv_base + k++);
        npu__xml_text(s, "\" from-port=\"0\" to-layer=\"");
        npu__sink_u64_dec(s, npu__layer_id(w, n));
        npu__xml_text(s, "\" to-port=\"0\" />\n");
    }
}

/* Zero bytes of the init Consts, in their order (the end of the weights). */
static uint64_t npu__put_rv_inits(npu__writer *w)
{
    static const unsigned char zeros[256];
    const npu_node *n;
    uint64_t total = 0;
    unsigned cat;
    NPU__FOR_EACH_LAYER(w->g, cat, n) {
        uint64_t bytes = npu__rv_init_bytes(w, n);
        if (npu__add_u64(total, bytes, &total)) w->s->overflow = 1;
        while (bytes > 0) {
            size_t k = bytes < sizeof zeros ? (size_t)bytes : sizeof zeros;
            npu__sink_put(w->s, zeros, k);
            bytes -= k;
        }
    }
    return total;
}

static void npu__x_graph(npu__writer *w)
{
    npu__sink *s = w->s;
    const npu_graph *g = w->g;
    const npu_node *n;
    unsigned cat;
    uint32_t i;
    w->offset = 0;
    npu__xml_text(s, "<?xml version=\"1.0\"?>\n<net");
    npu__x_attr_str(s, "name", g->name);
    npu__xml_text(s, " version=\"11\">\n\t<layers>\n");
    NPU__FOR_EACH_LAYER(g, cat, n) npu__x_layer(w, n);
    npu__x_converts(w);
    npu__x_rv_inits(w);
    npu__xml_text(s, "\t</layers>\n\t<edges>\n");
    NPU__FOR_EACH_LAYER(g, cat, n) {
        int over = npu__w_over(w, n) != NPU_TYPE_UNDEFINED;
        if (over && n->op == NPU__OP_PARAMETER) npu__x_edge(s, npu__layer_id(w, n), 0, npu__w_conv_id(w, n), 0);
        for (i = 0; i < n->n_inputs; i++) {
            uint32_t from, port;
            npu__w_source(w, n->inputs[i], &from, &port);
            if (over && n->op == NPU__OP_RESULT) {
                npu__x_edge(s, from, port, npu__w_conv_id(w, n), 0);
                from = npu__w_conv_id(w, n);
                port = 1;
            }
            npu__x_edge(s, from, port, npu__layer_id(w, n), i);
        }
    }
    npu__x_rv_init_edges(w);
    /* OpenVINO's VCL serializer sets both on every model (bool rt_info, which
     * ov::Any writes as YES/NO; older compilers read only those). */
    npu__xml_text(s, "\t</edges>\n\t<rt_info>\n\t\t<is_new_api value=\"YES\" />\n"
              "\t\t<use_indices_for_io_metadata value=\"YES\" />\n\t</rt_info>\n</net>\n");
}

/* Constants in layer order: all of them (weights), or those below the
 * threshold (layout B's constants blob). */
static void npu__put_constants(npu__writer *w, int only_small)
{
    const npu_node *n;
    for (n = w->g->first; n != NULL; n = n->next) {
        if (n->op != NPU__OP_CONSTANT || (only_small && npu__by_pointer(w, n))) continue;
        if (n->a.constant.bytes > SIZE_MAX) {
            w->s->overflow = 1;
            return;
        }
        npu__sink_put(w->s, n->a.constant.data, (size_t)n->a.constant.bytes);
    }
}

static uint64_t npu__constants_bytes(const npu_graph *g, int *overflow)
{
    const npu_node *n;
    uint64_t total = 0;
    for (n = g->first; n != NULL; n = n->next)
        if (n->op == NPU__OP_CONSTANT && npu__add_u64(total, n->a.constant.bytes, &total)) *overflow = 1;
    return total;
}

static npu_status npu__writer_check(const npu_graph *g, const npu_payload_options *opts, size_t *size,
                                    const char *what)
{
    NPU__MSG_UNUSED(what);
    if (g == NULL || size == NULL) return npu__fail(g ? g->ctx : NULL, NPU_ERR_INVALID_ARGUMENT,
                                                    "%s: graph or size is NULL", what);
    if (opts != NULL && (unsigned)opts->layout > (unsigned)NPU_PAYLOAD_WEIGHTS_COPY)
        return npu__fail(g->ctx, NPU_ERR_INVALID_ARGUMENT, "%s: unknown payload layout %d", what,
                         (int)opts->layout);
    if (g->status != NPU_OK)
        return npu__fail(g->ctx, NPU_ERR_STATE, "%s: graph '%s' has an earlier error: %s", what,
                         g->name, g->first_error);
    if (g->cat_count[NPU__CAT_RESULT] == 0)
        return npu__fail(g->ctx, NPU_ERR_STATE, "%s: graph '%s' has no Result", what, g->name);
    return NPU_OK;
}

NPU_API npu_status npu_graph_write_xml(const npu_graph *g, const npu_payload_options *opts, void *dst,
                               size_t cap, size_t *size)
{
    npu__sink s;
    npu__writer w;
    npu_status st = npu__writer_check(g, opts, size, "npu_graph_write_xml");
    if (st != NPU_OK) return st;
    npu__sink_init(&s, dst, cap);
    npu__writer_init(&w, &s, g, opts);
    npu__x_graph(&w);
    return npu__sink_finish(&s, g->ctx, "npu_graph_write_xml", size);
}

NPU_API npu_status npu_graph_write_bin(const npu_graph *g, void *dst, size_t cap, size_t *size)
{
    npu__sink s;
    npu__writer w;
    npu_payload_options a;
    npu_status st = npu__writer_check(g, NULL, size, "npu_graph_write_bin");
    if (st != NPU_OK) return st;
    memset(&a, 0, sizeof a);
    a.layout = NPU_PAYLOAD_WEIGHTS_COPY;
    npu__sink_init(&s, dst, cap);
    npu__writer_init(&w, &s, g, &a);
    npu__put_constants(&w, 0);
    return npu__sink_finish(&s, g->ctx, "npu_graph_write_bin", size);
}

/* npu_graph_write_payload with the type overrides of a compile (NULL: none). */
static npu_status npu__graph_payload(const npu_graph *g, const npu_payload_options *opts,
                                     const npu_compile_options *co, void *dst, size_t cap, size_t *size)
{
    npu__sink s;
    npu__writer w;
    npu__payload p;
    int overflow = 0;
    npu_status st = npu__writer_check(g, opts, size, "npu_graph_write_payload");
    if (st != NPU_OK) return st;
    if (opts != NULL && npu__check_reserved(g->ctx, opts->reserved, "npu_graph_write_payload: payload options") !=
                            NPU_OK)
        return NPU_ERR_INVALID_ARGUMENT;
    if (opts == NULL || opts->compiler_version == 0)
        return npu__fail(g->ctx, NPU_ERR_INVALID_ARGUMENT,
                         "npu_graph_write_payload: compiler_version is 0; set it to the driver's "
                         "compiler version (NPU_COMPILER_VERSION(major, minor))");
    npu__sink_init(&s, dst, cap);
    npu__writer_init(&w, &s, g, opts);
    if (co != NULL) {
        w.in_over = co->input_types;
        w.n_in_over = co->input_types ? co->n_input_types : 0;
        w.out_over = co->output_types;
        w.n_out_over = co->output_types ? co->n_output_types : 0;
    }
    /* The 2024 compiler (6.x) requires ReadValue's init input; layout A only
     * (no compiler before 7.0 takes layout B). */
    w.rv_init = !w.pointer_layout && opts->compiler_version < NPU__VERSION_7_0;
    npu__payload_begin(&p, &s, opts->layout, opts->compiler_version);
    if (w.pointer_layout) npu__put_constants(&w, 1);
    npu__payload_mark_xml(&p);
    npu__x_graph(&w);
    npu__payload_end_xml(&p);
    if (!w.pointer_layout) {
        uint64_t total = npu__constants_bytes(g, &overflow), inits;
        npu__sink s0;
        npu__writer w0 = w;
        npu__sink_init(&s0, NULL, 0);
        w0.s = &s0;
        inits = npu__put_rv_inits(&w0);
        if (npu__add_u64(total, inits, &total)) overflow = 1;
        npu__sink_le(&s, total, 8);   /* the weights section: size, then the bytes */
        npu__put_constants(&w, 0);
        npu__put_rv_inits(&w);
        if (overflow) s.overflow = 1;
    }
    return npu__sink_finish(&s, g->ctx, "npu_graph_write_payload", size);
}

NPU_API npu_status npu_graph_write_payload(const npu_graph *g, const npu_payload_options *opts, void *dst,
                                   size_t cap, size_t *size)
{
    return npu__graph_payload(g, opts, NULL, dst, cap, size);
}

#ifndef NPU_NO_LEVEL_ZERO
/* ---- The graph as a model source (npu__source, section 1) ---- */

static const char *npu__gsrc_label(const void *src) { return npu_graph_name((const npu_graph *)src); }

static uint32_t npu__gsrc_ir_version(const void *src)
{
    NPU__UNUSED(src);
    return 0;
}

static uint32_t npu__gsrc_count(const void *src, int what)
{
    const npu_graph *g = (const npu_graph *)src;
    return what == 0 ? npu_graph_input_count(g) : what == 1 ? npu_graph_output_count(g) : npu_graph_state_count(g);
}

static npu_status npu__gsrc_input(const void *src, uint32_t i, npu_tensor_desc *out)
{
    return npu_graph_input((const npu_graph *)src, i, out);
}

static npu_status npu__gsrc_output(const void *src, uint32_t i, npu_tensor_desc *out)
{
    return npu_graph_output((const npu_graph *)src, i, out);
}

static uint32_t npu__gsrc_batch_axis(const void *src, int output, uint32_t i, const npu_tensor_desc *d)
{
    NPU__UNUSED(src);
    NPU__UNUSED(output);
    NPU__UNUSED(i);
    return npu__batch_axis(d->layout);
}

static int64_t npu__gsrc_batch(const void *src) { return npu_graph_batch((const npu_graph *)src); }

static npu_status npu__gsrc_set_batch(const void *src, int64_t batch)
{
    return npu_graph_set_batch((npu_graph *)(uintptr_t)src, batch);
}

static npu_status npu__gsrc_payload(const void *src, const npu_payload_options *po, const npu_compile_options *o,
                                    void *dst, size_t cap, size_t *size)
{
    return npu__graph_payload((const npu_graph *)src, po, o, dst, cap, size);
}

/* A string for the walk below: its length (u32), then its bytes. */
static void npu__walk_str(npu__sink *s, const char *t, size_t n)
{
    npu__sink_le(s, (uint64_t)n, 4);
    npu__sink_put(s, t, n);
}

/* The graph's structure for the cache key: a binary walk of its nodes (the
 * model without constant data or addresses). It covers everything the IR XML
 * of layout A (npu__x_graph, no type overrides, no init Consts) is written
 * from, so that two graphs with the same walk write the same XML:
 *   graph name                          <net name=>
 *   per node, in creation order:
 *     category                          layer order and ids, edge ids
 *     op row: IR type, version          <layer type= version=>
 *     name                              <layer name=>, tensor names
 *     output type and shape, raw dims   <port precision=>, <dim>, shape=
 *     layout                            the layout rt_info of a Parameter or Result
 *     input count and creation indices  <edge>s, input ports (which repeat
 *                                       the inputs' type and shape); a
 *                                       Result's names follow its input
 *     a constant's size in bytes        size=, and offset= (their running sum)
 *     the <data> attributes, written by the op's own attribute writer
 *     (the same code the XML uses), ended by a 0 byte (attribute text
 *     holds none)
 * Every variable-length piece has a length or the 0 end, so the stream
 * decodes uniquely. Type and op tables are fixed within one npu version,
 * which the key holds too. No pointer or address is hashed. */
static npu_status npu__gsrc_structure(const void *src, npu__sink *s)
{
    const npu_graph *g = (const npu_graph *)src;
    const npu_node *n;
    unsigned char rec[16 + 8 * NPU_MAX_RANK + 8];
    size_t unused = 0, len;
    uint32_t i, rank;
    npu_status st = npu__writer_check(g, NULL, &unused, "model cache key");
    if (st != NPU_OK) return st;
    npu__walk_str(s, g->name, strlen(g->name));
    npu__sink_le(s, g->node_count, 4);
    for (n = g->first; n != NULL; n = n->next) {
        rank = n->shape.rank <= NPU_MAX_RANK ? n->shape.rank : NPU_MAX_RANK;
        rec[0] = n->op;
        rec[1] = n->cat;
        rec[2] = n->info->attrs != NULL;
        rec[3] = 0;
        npu__le_put(rec + 4, (uint64_t)n->type, 4);
        npu__le_put(rec + 8, (uint64_t)n->n_inputs, 4);
        npu__le_put(rec + 12, rank, 4);
        len = 16;
        for (i = 0; i < rank; i++, len += 8) npu__le_put(rec + len, (uint64_t)n->shape.dims[i], 8);
        if (n->op == NPU__OP_CONSTANT) {
            npu__le_put(rec + len, n->a.constant.bytes, 8);
            len += 8;
        }
        npu__sink_put(s, rec, len);
        for (i = 0; i < n->n_inputs; i++) npu__sink_le(s, n->inputs[i]->index, 4);
        npu__walk_str(s, n->name, strlen(n->name));
        npu__walk_str(s, n->info->ir_type, strlen(n->info->ir_type));
        npu__walk_str(s, n->info->version, strlen(n->info->version));
        npu__walk_str(s, n->layout, strnlen(n->layout, sizeof n->layout));
        if (n->info->attrs != NULL) {
            n->info->attrs(s, n);
            npu__sink_put(s, "", 1);
        }
    }
    return NPU_OK;
}

static void npu__gsrc_constants(const void *src, npu__bytes_fn take, void *state)
{
    const npu_node *n;
    for (n = ((const npu_graph *)src)->first; n != NULL; n = n->next)
        if (n->op == NPU__OP_CONSTANT) take(state, n->a.constant.data, n->a.constant.bytes);
}

static const npu__source npu__graph_source = {
    "graph", 1,
    "give every input and output a layout with N on axis 0 (npu_graph_parameter's layout, npu_graph_set_layout)",
    npu__gsrc_label, npu__gsrc_ir_version, npu__gsrc_count, npu__gsrc_input, npu__gsrc_output,
    npu__gsrc_batch_axis, npu__gsrc_batch, npu__gsrc_set_batch, NULL, npu__gsrc_payload,
    npu__gsrc_structure, npu__gsrc_constants};
#endif /* NPU_NO_LEVEL_ZERO */

#endif /* NPU_NO_GRAPH */

#ifndef NPU_NO_IR   /* section 8 */
/* ==== 8. IR loader ======================================================= */
/* Owns: an allocation-free XML scanner (8a), the IR walker that counts, fills,
 * checks edges and streams the payload (8b), loading from memory and files (8c),
 * and the payload writer (8d). Calls: sections 1-5 (arena, errors, sinks,
 * payload containers). Every number read from the text is range-checked; the
 * only pointers formed are weights base + a checked offset. */


/* ---- 8a. XML scanner ----------------------------------------------------- */
/* A pull scanner over [s, s+n): start tags (with attributes validated once),
 * end tags (matched against the open element), text (and CDATA content).
 * Comments, processing instructions and the XML declaration are validated and
 * skipped. Positions are byte offsets; line/column are computed only for errors. */

enum { NPU__XML_EOF = 0, NPU__XML_START_TAG, NPU__XML_END_TAG, NPU__XML_TEXT };

typedef struct npu__xml_token {
    int kind;
    int self_closing;           /* START: <x/> */
    size_t begin, end;          /* the whole token */
    size_t name, name_len;      /* START/END: element name */
    size_t attrs, attrs_end;    /* START: attribute region */
    size_t text, text_end;      /* TEXT: raw content (entities not decoded) */
} npu__xml_token;

typedef struct npu__xml_cold {    /* the scanner's arrays and message state */
    /* the innermost open layer, which messages name (npu__xml_fail), or NULL:
     * set as layers open and close, formatted only when there is a message */
    const struct npu__ir_open_layer *where;
    size_t lc_pos, lc_last;     /* line counting resumes here (npu__xml_line): */
    unsigned long lc_line;      /* lc_pos is on line lc_line, which starts at lc_last */
    size_t stack_name[NPU_IR_MAX_DEPTH];
    size_t stack_len[NPU_IR_MAX_DEPTH];
} npu__xml_cold;

/* Small, so that it and the walker fields after it (npu__ir_walker) are
 * reached with short offsets; the arrays are in *cold. */
typedef struct npu__xml {
    const char *s;
    size_t n, pos;
    npu_context *ctx;
    unsigned depth;
    int root_closed;
    size_t start;               /* 3 after a UTF-8 byte order mark, else 0 */
    const char *label;          /* file name for messages */
    npu__xml_cold *cold;        /* the walker's (npu__ir_walker.xcold) */
} npu__xml;

#ifndef NPU_NO_MESSAGES   /* line and column are for messages only */
/* The line of pos (clamped to the text) for messages and warnings, which
 * mostly come in document order: counting resumes where the previous call
 * stopped (in *x->cold: lc_pos is on line lc_line, which starts at lc_last),
 * so that a file with one warning per line is not scanned once per warning. */
static unsigned long npu__xml_line(const npu__xml *x, size_t pos)
{
    npu__xml_cold *c = x->cold;
    if (pos > x->n) pos = x->n;
    if (c->lc_line == 0 || pos < c->lc_pos) {
        c->lc_pos = 0;
        c->lc_last = 0;
        c->lc_line = 1;
    }
    while (c->lc_pos < pos) {
        const char *nl = (const char *)memchr(x->s + c->lc_pos, '\n', pos - c->lc_pos);
        if (nl == NULL) break;
        c->lc_pos = (size_t)(nl - x->s) + 1;
        c->lc_line++;
        c->lc_last = c->lc_pos;
    }
    c->lc_pos = pos;
    return c->lc_line;
}

/* "<label> line L, column C: <message>", then the layer part (defined after
 * the walker's layer type, 8b). */
NPU__PRINTF(4, 5)
static npu_status npu__xml_fail(const npu__xml *x, size_t pos, npu_status status, const char *fmt, ...);
#else
#define npu__xml_fail(x, pos, status, ...) npu__fail_site((x)->ctx, NPU__SITE_CODE(status))
#endif

/* A limit of npu.h (a plain number) as text: messages that name a limit carry
 * its value in the format, one argument fewer at each call. */
#define NPU__STR_(x) #x
#define NPU__STR(x) NPU__STR_(x)
/* Two limits are expressions: their messages spell the values. */
_Static_assert(NPU_IR_MAX_LAYERS == 4194304u && NPU_IR_MAX_XML_BYTES == 1073741824u,
               "the NPU_IR_MAX_LAYERS and NPU_IR_MAX_XML_BYTES messages spell their values");

static int npu__xml_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The first position from p (up to end) that is not XML whitespace. */
static size_t npu__xml_skip_space(const char *s, size_t p, size_t end)
{
    while (p < end && npu__xml_space(s[p])) p++;
    return p;
}

/* Narrows [*b, *e) of s to its text without surrounding whitespace. */
static void npu__xml_trim(const char *s, size_t *b, size_t *e)
{
    while (*b < *e && npu__xml_space(s[*b])) (*b)++;
    while (*e > *b && npu__xml_space(s[*e - 1])) (*e)--;
}

static int npu__xml_starts(const npu__xml *x, size_t p, const char *lit)
{
    size_t k = strlen(lit);
    return p + k <= x->n && memcmp(x->s + p, lit, k) == 0;   /* p <= x->n: no overflow */
}

/* A code point the XML 1.0 Char production allows: tab, LF, CR, and from
 * 0x20 up to 0x10FFFF except the surrogates and 0xFFFE/0xFFFF. */
static int npu__xml_char_ok(uint32_t cp)
{
    return (cp >= 0x20 || cp == 0x9 || cp == 0xA || cp == 0xD) && cp - 0xD800u > 0x7FFu && (cp | 1u) != 0xFFFFu &&
           cp <= 0x10FFFFu;
}

/* Length of the UTF-8 sequence at s[i] >= 0x80 (2..4), 0 if invalid (a bad
 * lead or continuation byte, overlong, or not an XML character). */
static size_t npu__utf8_len(const char *str, size_t i, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    unsigned c = s[i];
    size_t len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4, k;
    uint32_t cp;
    if (c - 0xC2u > 0xF4u - 0xC2u || n - i < len) return 0;   /* leads are 0xC2..0xF4 */
    cp = c & (0x7Fu >> len);   /* the lead byte's payload bits */
    for (k = 1; k < len; k++) {
        if ((s[i + k] & 0xC0u) != 0x80u) return 0;
        cp = (cp << 6) | (s[i + k] & 0x3Fu);
    }
    /* the smallest code point of each length: 0x800 (3), 0x10000 (4); a
     * 2-byte lead >= 0xC2 is never overlong */
    return cp >= (1u << (5 * len - 4)) && npu__xml_char_ok(cp) ? len : 0;
}

/* Parses an entity at s[p] == '&'. Returns its length (through ';') and the
 * code point, or 0 if invalid. */
static size_t npu__xml_entity(const char *s, size_t p, size_t n, uint32_t *cp)
{
    static const char named[][7] = {"lt;<", "gt;>", "amp;&", "quot;\"", "apos;'"};  /* name, then the character */
    size_t i, q = p + 1;
    if (q < n && s[q] == '#') {
        uint32_t v = 0, base = 10;
        int digits = 0;
        q++;
        if (q < n && s[q] == 'x') {
            base = 16;
            q++;
        }
        for (; q < n && s[q] != ';'; q++) {
            uint32_t d = (uint32_t)(unsigned char)s[q] - '0';
            if (d > 9) {   /* a hex letter in either case ('A' | 0x20 is 'a'), else 16 */
                d = (uint32_t)((unsigned char)s[q] | 0x20) - 'a';
                d = d < 6 ? d + 10 : 16;
            }
            if (d >= base) return 0;
            /* at most 8 digits: v stays below 2^32 (checked against
             * 0x10FFFF by npu__xml_char_ok below) */
            v = v * base + d;
            if (++digits > 8) return 0;
        }
        if (q >= n || digits == 0) return 0;
        if (!npu__xml_char_ok(v)) return 0;
        *cp = v;
        return q + 1 - p;
    }
    for (i = 0; i < NPU__COUNT_OF(named); i++) {   /* matched through its ';': the character follows */
        size_t k = 0;
        while (q + k < n && s[q + k] == named[i][k])
            if (named[i][k++] == ';') {
                *cp = (uint32_t)(unsigned char)named[i][k];
                return k + 1;
            }
    }
    return 0;
}

/* What npu__xml_check_chars checks: comments, processing instructions and
 * CDATA (raw: '&' and "]]>" allowed), text, or an attribute value. */
enum { NPU__XC_RAW, NPU__XC_TEXT, NPU__XC_ATTR };

/* Checks character data in [b, e): valid UTF-8, no control characters; in
 * text and attribute values valid entities; in attribute values also no '<';
 * in text no "]]>". */
static npu_status npu__xml_check_chars(const npu__xml *x, size_t b, size_t e, int mode)
{
    size_t i = b, k;
    for (; i < e; i += k) {
        unsigned char c = (unsigned char)x->s[i];
        uint32_t cp;
        k = 1;
        /* a control character (a byte from 0x20 up is a character, or a
         * UTF-8 lead checked below): inline, this is the scanner's hot loop */
        if (c < 0x20 && c != 0x9 && c != 0xA && c != 0xD)
            return npu__xml_fail(x, i, NPU_ERR_PARSE, "control character 0x%02x is not allowed", c);
        if (c == '<' && mode == NPU__XC_ATTR)
            return npu__xml_fail(x, i, NPU_ERR_PARSE, "'<' inside an attribute value");
        /* text ends before a '<': "]]>" at i lies within it */
        if (c == ']' && mode == NPU__XC_TEXT && npu__xml_starts(x, i, "]]>"))
            return npu__xml_fail(x, i, NPU_ERR_PARSE, "']]>' outside a CDATA section");
        if (c == '&' && mode != NPU__XC_RAW) {
            k = npu__xml_entity(x->s, i, e, &cp);
            if (k == 0)
                return npu__xml_fail(x, i, NPU_ERR_PARSE,
                                     "invalid entity (only &lt; &gt; &amp; &quot; &apos; and &#...; are allowed)");
        } else if (c >= 0x80) {
            k = npu__utf8_len(x->s, i, e);
            if (k == 0) return npu__xml_fail(x, i, NPU_ERR_PARSE, "invalid UTF-8 byte 0x%02x", c);
        }
    }
    return NPU_OK;
}

static int npu__xml_name_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80;
}

static int npu__xml_name_char(unsigned char c)
{
    return npu__xml_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/* Reads a name at x->s[p]; returns its length (0: error recorded). */
static size_t npu__xml_name(const npu__xml *x, size_t p, const char *what, npu_status *st)
{
    NPU__MSG_UNUSED(what);
    size_t q = p;
    if (q >= x->n || !npu__xml_name_start((unsigned char)x->s[q])) {
        *st = q >= x->n ? npu__xml_fail(x, q, NPU_ERR_PARSE, "unexpected end of file in %s", what)
                        : npu__xml_fail(x, q, NPU_ERR_PARSE, "invalid character '%c' where %s was expected",
                                        x->s[q], what);
        return 0;
    }
    while (q < x->n && npu__xml_name_char((unsigned char)x->s[q])) {
        if (x->s[q] == ':') {
            /* A namespace-aware reader (libxml2, the compiler's) would see the
             * local name (a:type -> type, <a:layer> -> layer): refused, so that
             * both readers classify the same elements and attributes. */
            *st = npu__xml_fail(x, q, NPU_ERR_PARSE, "%s with a namespace prefix ('%.*s'): not allowed in an IR",
                                what, (int)(q - p + 1), x->s + p);
            return 0;
        }
        if ((unsigned char)x->s[q] >= 0x80) {
            size_t k = npu__utf8_len(x->s, q, x->n);
            if (k == 0) {
                *st = npu__xml_fail(x, q, NPU_ERR_PARSE, "invalid UTF-8 in %s", what);
                return 0;
            }
            q += k;
        } else {
            q++;
        }
        if (q - p > NPU_IR_MAX_NAME) {
            *st = npu__xml_fail(x, p, NPU_ERR_PARSE, "%s longer than NPU_IR_MAX_NAME (" NPU__STR(NPU_IR_MAX_NAME)
                                " bytes)", what);
            return 0;
        }
    }
    *st = NPU_OK;
    return q - p;
}

/* Attribute iteration over a validated start tag. */
typedef struct npu__xml_attribute {
    size_t name, name_len, value, value_len;
} npu__xml_attribute;

static int npu__xml_attr_next(const npu__xml *x, size_t *it, size_t end, npu__xml_attribute *a)
{
    size_t p = *it;
    const char *s = x->s;
    p = npu__xml_skip_space(s, p, end);
    if (p >= end || s[p] == '/' || s[p] == '>') return 0;
    a->name = p;
    while (p < end && !npu__xml_space(s[p]) && s[p] != '=') p++;
    a->name_len = p - a->name;
    while (p < end && s[p] != '"' && s[p] != '\'') p++;
    if (p >= end) return 0;
    {
        char q = s[p++];
        a->value = p;
        while (p < end && s[p] != q) p++;
        a->value_len = p - a->value;
    }
    *it = p + 1;
    return 1;
}

/* Whether [p, p+len) is lit. A validated name or value holds no NUL byte, so
 * strncmp compares all len bytes. */
static int npu__xml_eq(const npu__xml *x, size_t p, size_t len, const char *lit)
{
    /* the first byte first: most comparisons are of different names */
    return len > 0 && x->s[p] == lit[0] && strncmp(x->s + p, lit, len) == 0 && lit[len] == '\0';
}

/* Compares an attribute value, with its entities and character references
 * decoded as libxml2 decodes them (type="Con&#115;t" is "Const"), to lit. */
static int npu__xml_val_eq(const npu__xml *x, size_t p, size_t len, const char *lit)
{
    size_t e = p + len, k;
    for (; p < e; p += k, lit++) {
        uint32_t cp = (unsigned char)x->s[p];
        k = cp == '&' ? npu__xml_entity(x->s, p, e, &cp) : 1;
        if (k == 0 || *lit == '\0' || cp != (unsigned char)*lit) return 0;
    }
    return *lit == '\0';
}

static int npu__xml_attr(const npu__xml *x, const npu__xml_token *t, const char *name, npu__xml_attribute *out)
{
    size_t it = t->attrs;
    while (npu__xml_attr_next(x, &it, t->attrs_end, out))
        if (npu__xml_eq(x, out->name, out->name_len, name)) return 1;
    return 0;
}

/* Whether t has attribute `name` with the (decoded) value lit. */
static int npu__xml_attr_is(const npu__xml *x, const npu__xml_token *t, const char *name, const char *lit)
{
    npu__xml_attribute a;
    return npu__xml_attr(x, t, name, &a) && npu__xml_val_eq(x, a.value, a.value_len, lit);
}

/* Validates the attributes of start tag t, which begin at t->attrs. On success
 * t->attrs_end is the position of '>' or "/>" and t->end the position after it. */
static npu_status npu__xml_scan_attrs(npu__xml *x, npu__xml_token *t)
{
    const char *s = x->s;
    unsigned count = 0;
    size_t p = t->attrs, first = p;
    npu_status st;
    for (;;) {
        size_t ws = p, name, nlen, v;
        p = npu__xml_skip_space(s, p, x->n);
        if (p >= x->n) return npu__xml_fail(x, p, NPU_ERR_PARSE, "unexpected end of file inside a tag");
        if (s[p] == '>' || (s[p] == '/' && p + 1 < x->n && s[p + 1] == '>')) {
            t->self_closing = s[p] == '/';
            t->attrs_end = p;
            t->end = p + 1 + (size_t)t->self_closing;   /* after the '>' */
            return NPU_OK;
        }
        if (s[p] == '/') {
            return npu__xml_fail(x, p, NPU_ERR_PARSE, "'/' not followed by '>' in a tag");
        }
        if (ws == p) return npu__xml_fail(x, p, NPU_ERR_PARSE, "missing whitespace before an attribute");
        name = p;
        nlen = npu__xml_name(x, p, "an attribute name", &st);
        if (nlen == 0) return st;
        p += nlen;
        p = npu__xml_skip_space(s, p, x->n);
        {   /* '=', then a quoted value; else why not, at p */
            const char *close = NULL, *why = " has no '=' and value";
            NPU__MSG_UNUSED(why);
            if (p < x->n && s[p] == '=') {
                p = npu__xml_skip_space(s, p + 1, x->n);
                why = ": value is not quoted";
                if (p < x->n && (s[p] == '"' || s[p] == '\'')) {
                    close = (const char *)memchr(s + p + 1, s[p], x->n - p - 1);
                    why = ": unterminated value (end of file)";
                }
            }
            if (close == NULL)
                return npu__xml_fail(x, p, NPU_ERR_PARSE, "attribute '%.*s'%s", (int)nlen, s + name, why);
            v = p + 1;
            p = (size_t)(close - s);
        }
        if (p - v > NPU_IR_MAX_ATTR_VALUE)
            return npu__xml_fail(x, v, NPU_ERR_PARSE,
                                 "attribute '%.*s': value of %zu bytes exceeds NPU_IR_MAX_ATTR_VALUE ("
                                 NPU__STR(NPU_IR_MAX_ATTR_VALUE) ")", (int)nlen, s + name, p - v);
        st = npu__xml_check_chars(x, v, p, NPU__XC_ATTR);
        if (st != NPU_OK) return st;
        p++;
        if (++count > NPU_IR_MAX_ATTRS)
            return npu__xml_fail(x, name, NPU_ERR_PARSE,
                                 "more than NPU_IR_MAX_ATTRS (" NPU__STR(NPU_IR_MAX_ATTRS) ") attributes");
        {   /* unique names */
            size_t it = first;
            npu__xml_attribute a;
            while (npu__xml_attr_next(x, &it, name, &a))
                if (a.name_len == nlen && memcmp(s + a.name, s + name, nlen) == 0)
                    return npu__xml_fail(x, name, NPU_ERR_PARSE, "duplicate attribute '%.*s'",
                                         (int)nlen, s + name);
        }
    }
}

/* Finds `lit` from p; returns its position or SIZE_MAX. */
static size_t npu__xml_find(const npu__xml *x, size_t p, const char *lit)
{
    for (; p < x->n; p++)
        if (x->s[p] == lit[0] && npu__xml_starts(x, p, lit)) return p;
    return SIZE_MAX;
}

NPU__NOINLINE static npu_status npu__xml_next(npu__xml *x, npu__xml_token *t)
{
    const char *s = x->s;
    npu_status st;
    for (;;) {
        /* text, a comment, CDATA or a processing instruction: its characters
         * [cb, ce) are checked (raw: '&' and "]]>" allowed), the scanner
         * resumes at next; text and CDATA are tokens */
        size_t p = x->pos, cb, ce, next;
        int mode = NPU__XC_RAW, text = 0;
        char c1;
        memset(t, 0, sizeof *t);
        t->begin = p;   /* whatever token comes, it begins here */
        if (p >= x->n) {
            if (x->depth > 0)
                return npu__xml_fail(x, p, NPU_ERR_PARSE, "unexpected end of file: <%.*s> is not closed",
                                     (int)x->cold->stack_len[x->depth - 1], s + x->cold->stack_name[x->depth - 1]);
            if (!x->root_closed) return npu__xml_fail(x, p, NPU_ERR_PARSE, "no root element");
            t->kind = NPU__XML_EOF;
            t->end = p;
            return NPU_OK;
        }
        if (s[p] != '<') {
            const char *lt = (const char *)memchr(s + p, '<', x->n - p);
            size_t e = lt ? (size_t)(lt - s) : x->n;
            if (x->depth == 0) {
                size_t i = npu__xml_skip_space(s, p, e);
                if (i < e) return npu__xml_fail(x, i, NPU_ERR_PARSE, "text outside the root element");
                x->pos = e;
                continue;
            }
            cb = p;
            ce = next = e;
            mode = NPU__XC_TEXT;
            text = 1;
        } else if ((c1 = p + 1 < x->n ? s[p + 1] : '\0') != '!' && c1 != '?') {   /* a start or end tag */
            size_t end_tag = c1 == '/', nlen = npu__xml_name(x, p + 1 + end_tag, "an element name", &st);
            if (nlen == 0) return st;
            t->name = p + 1 + end_tag;
            t->name_len = nlen;
            if (end_tag) {
                size_t q, open_len;
                const char *open_name;   /* the open element's */
                if (x->depth == 0)
                    return npu__xml_fail(x, p, NPU_ERR_PARSE, "end tag </%.*s> without a start tag", (int)nlen,
                                         s + p + 2);
                open_name = s + x->cold->stack_name[x->depth - 1];
                open_len = x->cold->stack_len[x->depth - 1];
                if (nlen != open_len || memcmp(s + p + 2, open_name, nlen) != 0)
                    return npu__xml_fail(x, p, NPU_ERR_PARSE, "end tag </%.*s> does not match <%.*s>", (int)nlen,
                                         s + p + 2, (int)open_len, open_name);
                q = npu__xml_skip_space(s, p + 2 + nlen, x->n);
                if (q >= x->n || s[q] != '>')
                    return npu__xml_fail(x, q, NPU_ERR_PARSE, "malformed end tag </%.*s>", (int)nlen, s + p + 2);
                x->depth--;
                if (x->depth == 0) x->root_closed = 1;
                x->pos = t->end = q + 1;
                t->kind = NPU__XML_END_TAG;
                return NPU_OK;
            }
            if (x->depth == 0 && x->root_closed)
                return npu__xml_fail(x, p, NPU_ERR_PARSE, "a second root element <%.*s>", (int)nlen, s + p + 1);
            if (x->depth >= NPU_IR_MAX_DEPTH)
                return npu__xml_fail(x, p, NPU_ERR_PARSE,
                                     "elements nested deeper than NPU_IR_MAX_DEPTH (" NPU__STR(NPU_IR_MAX_DEPTH) ")");
            t->kind = NPU__XML_START_TAG;
            t->attrs = p + 1 + nlen;
            st = npu__xml_scan_attrs(x, t);
            if (st != NPU_OK) return st;
            x->pos = t->end;
            if (!t->self_closing) {
                x->cold->stack_name[x->depth] = t->name;
                x->cold->stack_len[x->depth] = nlen;
                x->depth++;
            }
            if (x->depth == 0) x->root_closed = 1;   /* <root/> */
            return NPU_OK;
        } else if (c1 == '?') {
            size_t nlen, q;
            nlen = npu__xml_name(x, p + 2, "a processing instruction target", &st);
            if (nlen == 0) return st;
            if (nlen == 3 && (s[p + 2] | 0x20) == 'x' && (s[p + 3] | 0x20) == 'm' && (s[p + 4] | 0x20) == 'l' &&
                p != x->start)
                return npu__xml_fail(x, p, NPU_ERR_PARSE, "the XML declaration must be at the very start");
            q = npu__xml_find(x, p + 2 + nlen, "?>");
            if (q == SIZE_MAX) return npu__xml_fail(x, p, NPU_ERR_PARSE, "unterminated processing instruction");
            if (q > p + 2 + nlen && !npu__xml_space(s[p + 2 + nlen]))
                return npu__xml_fail(x, p + 2 + nlen, NPU_ERR_PARSE, "malformed processing instruction");
            cb = p + 2 + nlen;
            ce = q;
            next = q + 2;
        } else {   /* a comment or CDATA: the same but for their delimiters */
            text = npu__xml_starts(x, p, "<![CDATA[");
            if (!text && !npu__xml_starts(x, p, "<!--"))
                return npu__xml_fail(x, p, NPU_ERR_PARSE, "<!DOCTYPE> and other declarations are not allowed in an IR");
            if (text && x->depth == 0) return npu__xml_fail(x, p, NPU_ERR_PARSE, "CDATA outside the root element");
            cb = p + (text ? 9u : 4u);
            ce = npu__xml_find(x, cb, text ? "]]>" : "--");
            if (ce == SIZE_MAX)
                return text ? npu__xml_fail(x, p, NPU_ERR_PARSE, "unterminated CDATA section")
                            : npu__xml_fail(x, p, NPU_ERR_PARSE, "unterminated comment");
            if (!text && (ce + 2 >= x->n || s[ce + 2] != '>'))
                return npu__xml_fail(x, ce, NPU_ERR_PARSE, "'--' inside a comment");
            next = ce + 3;
        }
        st = npu__xml_check_chars(x, cb, ce, mode);
        if (st != NPU_OK) return st;
        x->pos = next;
        if (text) {
            t->kind = NPU__XML_TEXT;
            t->end = next;
            t->text = cb;
            t->text_end = ce;
            return NPU_OK;
        }
    }
}

/* Decodes entities of raw text [p, p+n) into out, at most cap bytes (NULL:
 * count only); returns the decoded length (more than cap: out holds a
 * prefix). The text was validated by the scanner. */
static size_t npu__xml_decode(const char *s, size_t n, char *out, size_t cap)
{
    size_t i = 0, len = 0;
    while (i < n) {
        uint32_t cp;
        size_t k = 1, j;
        char u[4];
        if (s[i] != '&' || (k = npu__xml_entity(s, i, n, &cp)) == 0) {
            u[0] = s[i];                /* a byte as it is */
            k = 1;
            j = 1;
        } else if (cp < 0x80) {
            u[0] = (char)cp;
            j = 1;
        } else {                        /* UTF-8: a lead byte, then 6 bits a byte */
            size_t m = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            for (j = m; --j > 0; cp >>= 6) u[j] = (char)(0x80 | (cp & 0x3F));
            u[0] = (char)((0xFF00u >> m) | cp);
            j = m;
        }
        if (out != NULL && j <= cap - len) memcpy(out + len, u, j);   /* (len <= cap while it fits) */
        len += j;
        if (len > cap) out = NULL;
        i += k;
    }
    return len;
}

/* ---- 8b. The IR walker ---------------------------------------------------- */
/* One walk over the XML per job: COUNT (sizes for the arena, all checks that
 * need no tables), FILL (tables), EDGES (edge checks against the sorted layer
 * and port tables, outputs' producers) and WRITE (stream the payload XML).
 * Every mode runs the same checks (EDGES repeats COUNT's: one code path, at
 * the cost of some time); a mode only adds its own work. */

/* Index into npu__types (section 4) of attribute value a, or -1.
 * by_precision: match the port precision, which also has the spellings
 * BOOLEAN and U1 (alias, after the table's rows). */
static int npu__ir_elem_find(const npu__xml *x, const npu__xml_attribute *a, int by_precision)
{
    static const struct { char name[8]; unsigned char elem; } alias[] = {{"BOOLEAN", NPU_BOOL}, {"U1", NPU__ELEM_U1}};
    const size_t nt = NPU__COUNT_OF(npu__types);
    size_t i;
    for (i = 0; i < nt + (by_precision ? NPU__COUNT_OF(alias) : 0); i++) {
        const char *name = i >= nt ? alias[i - nt].name : by_precision ? npu__types[i].ov_precision : npu__types[i].ov_name;
        if (npu__xml_eq(x, a->value, a->value_len, name)) return i >= nt ? alias[i - nt].elem : (int)i;
    }
    return -1;
}

/* The listed layers' tables (inputs, consts, outputs), by NPU__KIND_ - 1. */
enum { NPU__LI_IN = 0, NPU__LI_CONST, NPU__LI_OUT };
enum { NPU__KIND_OTHER = 0, NPU__KIND_PARAMETER, NPU__KIND_CONSTANT, NPU__KIND_RESULT, NPU__KIND_READ_VALUE, NPU__KIND_ASSIGN,
       NPU__KIND_REPLACED /* WRITE: a layer preprocessing (8e) wrote anew; its text is skipped */ };
_Static_assert(NPU__KIND_PARAMETER - 1 == NPU__LI_IN && NPU__KIND_CONSTANT - 1 == NPU__LI_CONST &&
                   NPU__KIND_RESULT - 1 == NPU__LI_OUT, "a listed layer's table is n_listed[kind - 1]");
enum {
    NPU__ROLE_OTHER = 0, NPU__ROLE_NET, NPU__ROLE_LAYERS, NPU__ROLE_LAYER, NPU__ROLE_DATA, NPU__ROLE_LAYER_RT_INFO, NPU__ROLE_INPUT,
    NPU__ROLE_OUTPUT, NPU__ROLE_PORT, NPU__ROLE_DIM, NPU__ROLE_PORT_RT_INFO, NPU__ROLE_PORT_RT_INFO_ATTR, NPU__ROLE_BODY, NPU__ROLE_EDGES,
    NPU__ROLE_EDGE, NPU__ROLE_NET_RT_INFO, NPU__ROLE_NET_RT_INFO_ITEM
};
/* Where a payload write calls preprocessing (8e, npu_ir.pp_walk): at the start
 * of a top-level <layer>, <port> or <edge> and the end of the top-level
 * <layers> and <edges>, whose event is their role; before and after the walk. */
enum { NPU__PPE_BEGIN = NPU__ROLE_OTHER, NPU__PPE_DONE = NPU__ROLE_NET, NPU__PPE_LAYER = NPU__ROLE_LAYER,
       NPU__PPE_PORT = NPU__ROLE_PORT, NPU__PPE_EDGE = NPU__ROLE_EDGE, NPU__PPE_LAYERS_END = NPU__ROLE_LAYERS,
       NPU__PPE_EDGES_END = NPU__ROLE_EDGES };

enum { NPU__W_COUNT = 0, NPU__W_FILL, NPU__W_EDGES, NPU__W_WRITE };

/* Private parts of the loaded object. */
typedef struct npu__ir_const {
    npu_ir_const pub;
    unsigned char has_rt_info;   /* the layer has its own <rt_info> child */
} npu__ir_const;

typedef struct npu__ir_layer_rec {  /* temporary: for the edge checks */
    uint32_t scope, id, kind, io;
    uint32_t edges_in;
    uint32_t name_len;              /* name_len, pos, name: set and read by messages only */
    size_t pos, name;
} npu__ir_layer_rec;

typedef struct npu__ir_port_rec {   /* temporary */
    uint32_t scope, layer, id;
    uint32_t dir;                   /* 0 input, 1 output */
    uint32_t elem;                  /* precision (npu__types index, 0 unknown) */
    uint32_t names;                 /* pool offset + 1 of the decoded names; 0 none */
} npu__ir_port_rec;

struct npu_ir {
    npu_context *ctx;
    const char *xml;
    size_t xml_len;
    const unsigned char *bin;
    uint64_t bin_size;
    void *xml_map, *bin_map;        /* npu_ir_open's mappings, of xml_len and bin_size bytes */
    char label[80];
    uint32_t version;
    uint32_t n_listed[3];           /* inputs, consts, outputs (NPU__LI_) */
    uint32_t n_states, n_var_layers;
    npu_ir_io *inputs, *outputs;
    npu__ir_const *consts;
    npu_ir_state *states;
    char *pool;
    size_t pool_cap;                /* (FILL fills it up to the walker's count, c.pool) */
    int64_t batch;
    size_t arena_bytes;
    /* temporary tables (valid during loading only) */
    npu__ir_layer_rec *layers;
    npu__ir_port_rec *ports;
    uint32_t n_layers, n_ports;
    /* The XML walker's state (9 KB of element, scope and layer stacks) lives
     * in the IR's arena block, not on the stack of npu_ir_write_payload;
     * walk_lock serialises payload writers of one IR. */
    struct npu__ir_walker *walk;
    atomic_flag walk_lock;
    int payload_written;            /* a payload was written (compiled): preprocessing is fixed */
    /* Preprocessing (8e): NULL unless npu_ir_set_pre/postprocess was called,
     * so that programs without it do not link it. pp_next_id and pp_stage
     * are write state, under walk_lock. */
    struct npu__pp *pp;
    npu_status (*pp_walk)(struct npu__ir_walker *w, int event, const npu__xml_token *t, size_t pos);
    void (*pp_weights)(const npu_ir *ir, npu__sink *s);
    void (*pp_key)(const npu_ir *ir, npu__sink *s);
    void (*pp_consts)(const npu_ir *ir, npu__bytes_fn take, void *state);
    uint32_t pp_next_id;
    int pp_stage;
};

typedef struct npu__ir_counts {
    uint32_t layers, ports;
    uint32_t listed[3];             /* inputs, consts, outputs (NPU__LI_) */
    uint32_t var_layers, scopes;
    size_t pool;
    uint32_t version;
} npu__ir_counts;
_Static_assert(offsetof(npu__ir_counts, scopes) == 6 * sizeof(uint32_t), "the counts a load compares: no padding");

/* Open layers and <body> scopes. A <layer> is a child of <layers>, whose
 * parent is <net> (the root) or a <body>, a child of a <layer>: each nested
 * layer and body is 3 elements deeper than its parent, the first layer at
 * depth 2, the first body at 3 (root 0). The scanner refuses depths of
 * NPU_IR_MAX_DEPTH and more, so there are at most NPU_IR_MAX_DEPTH / 3 of
 * either open, fewer than this; the walker still checks both stack indexes
 * (a bound that rests on the roles' structure stays a runtime check). */
#define NPU__IR_MAX_LAYER_NEST (NPU_IR_MAX_DEPTH / 3 + 1)
#define NPU__IR_MAX_VAR_LAYERS 16384u
/* The <body> count (w->c.scopes, a uint32_t) needs no check either: each
 * <body/> takes 7 bytes of the XML, at most NPU_IR_MAX_XML_BYTES. */
_Static_assert(NPU_IR_MAX_XML_BYTES / 7 < UINT32_MAX - 1u, "the <body> count fits uint32_t");
_Static_assert(NPU_IR_MAX_XML_BYTES < UINT32_MAX, "a string pool offset + 1 fits uint32_t");

typedef struct npu__ir_open_layer {           /* an open <layer>; the arrays last (short offsets) */
    size_t pos, name, name_len;
    uint32_t id, scope, kind, index;
    uint64_t offset, size;
    uint64_t elems;                 /* element count (dynamic dims: invalid for Const) */
    size_t data_pos;                /* (messages only) */
    uint64_t blob_offset;           /* WRITE: in the payload's blob (0 unless copy_to_blob) */
    int elem;                       /* from <data element_type>, -1 none */
    uint32_t shape_rank;
    uint32_t n_in, n_out;           /* ports seen */
    /* the I/O port: Parameter's or Const's first output, Result's first input */
    int io_elem;
    uint32_t io_names;              /* pool offset + 1 */
    uint32_t name_off;              /* FILL, listed layers: the name's pool offset + 1 */
    /* flags (bytes: a store of 1 is shorter) */
    unsigned char has_data, has_rt, rt_done, shape_given, shape_dynrank, elems_dynamic, elems_overflow;
    unsigned char io_port_seen;
    unsigned char copy_to_blob;     /* WRITE */
    npu_shape shape;                /* first NPU_MAX_RANK dims: of the shape attribute, else the I/O port */
    char layout[NPU_LAYOUT_MAX];
} npu__ir_open_layer;

/* The fields used most come first (short offsets: smaller code), the arrays last. */
typedef struct npu__ir_walker {
    npu__xml x;
    npu_ir *ir;                     /* FILL, EDGES, WRITE */
    npu__sink *sink;                /* WRITE */
    size_t copied;                  /* WRITE */
    int mode;
    unsigned ldepth, scope_depth;
    /* the open port */
    uint32_t port_dir, port_id, port_rank;
    int port_elem;
    uint32_t port_names;            /* pool offset + 1 (FILL), else 0 */
    /* flags (bytes: a store of 1 is shorter) */
    unsigned char port_is_io, dim_has_text;
    unsigned char layout_b;         /* WRITE (0 in the other modes) */
    unsigned char net_rt_done;      /* WRITE: the net rt_info entries are written */
    unsigned char net_rt_has;       /* WRITE: bit 0 is_new_api, bit 1 use_indices...
                                       already YES in the file's net rt_info */
    npu__ir_counts c;               /* running counts */
    /* WRITE */
    uint64_t threshold, blob_running;
    int64_t batch;
    uint32_t compiler_version;    /* WRITE: the payload's compiler */
    const char *wpa_ptr, *wpa_size;
    unsigned char role[NPU_IR_MAX_DEPTH + 1];
    uint32_t scope_stack[NPU__IR_MAX_LAYER_NEST + 1];
    npu__ir_open_layer lstack[NPU__IR_MAX_LAYER_NEST];
    npu__xml_cold xcold;
} npu__ir_walker;

#ifndef NPU_NO_MESSAGES
NPU__PRINTF(4, 5)
static npu_status npu__xml_fail(const npu__xml *x, size_t pos, npu_status status, const char *fmt, ...)
{
    unsigned long line = npu__xml_line(x, pos);
    /* the column from the start of its line (lc_pos: pos clamped to the text) */
    unsigned long col = (unsigned long)(x->cold->lc_pos - x->cold->lc_last) + 1;
    const npu__ir_open_layer *l = x->cold->where;
    va_list ap;
    npu__fail_begin(x->ctx, status, "%s line %lu, column %lu: ", x->label, line, col);
    va_start(ap, fmt);
    npu__vfail_more(x->ctx, fmt, ap);
    va_end(ap);
    if (l != NULL)
        npu__fail_more(x->ctx, l->scope ? " (layer '%.*s', id %lu, in a <body>)" : " (layer '%.*s', id %lu)",
                       (int)(l->name_len > 80 ? 80 : l->name_len), x->s + l->name, (unsigned long)l->id);
    return npu__fail_end(x->ctx, status);
}
#endif

/* Parses an unsigned decimal in raw text [p, p+n) (surrounding spaces allowed). */
static int npu__ir_u64(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    size_t i = 0, e = n;
    uint64_t v = 0;
    npu__xml_trim(s, &i, &e);
    if (i == e) return 0;
    for (; i < e; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        if (v > (max - (uint64_t)(s[i] - '0')) / 10) return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 1;
}

/* Attribute `name` of t as an unsigned decimal <= max: 1 (*v its value), 0
 * when t has no such attribute, -1 when it is not such a number (*a the
 * attribute). */
static int npu__ir_attr_num(const npu__xml *x, const npu__xml_token *t, const char *name, uint64_t max, uint64_t *v,
                            npu__xml_attribute *a)
{
    if (!npu__xml_attr(x, t, name, a)) return 0;
    return npu__ir_u64(x->s + a->value, a->value_len, max, v) ? 1 : -1;
}

/* "?" or "-1": a dynamic dimension. */
NPU__NOINLINE static int npu__ir_dim_dynamic(const char *s, size_t n)
{
    return (n == 1 && s[0] == '?') || (n == 2 && s[0] == '-' && s[1] == '1');
}

/* One dimension token: N, -1, ?, or a bounded A..B (dynamic; either bound may
 * be empty, B may be ? or -1). Returns 1 ok (value or NPU_DIM_DYNAMIC), 2 for
 * "..." (dynamic rank), 0 invalid, -1 for nothing but spaces. The token is
 * [*b, *e) of s, trimmed in place. */
static int npu__ir_dim(const char *s, size_t *b, size_t *e, int64_t *out)
{
    const uint64_t max = (uint64_t)NPU_IR_MAX_DIM_VALUE;
    size_t n, k;
    uint64_t v;
    npu__xml_trim(s, b, e);
    s += *b;
    n = *e - *b;
    if (n == 0) return -1;
    *out = NPU_DIM_DYNAMIC;
    if (npu__ir_dim_dynamic(s, n)) return 1;
    for (k = 0; k + 1 < n && !(s[k] == '.' && s[k + 1] == '.'); k++) continue;
    if (k + 1 < n) {   /* "..." or A..B */
        const char *hi = s + k + 2;
        size_t hi_len = n - k - 2;
        if (k == 0 && hi_len == 1 && hi[0] == '.') return 2;
        return (k == 0 || npu__ir_u64(s, k, max, &v)) &&
               (hi_len == 0 || npu__ir_dim_dynamic(hi, hi_len) || npu__ir_u64(hi, hi_len, max, &v));
    }
    if (!npu__ir_u64(s, n, max, &v)) return 0;
    *out = (int64_t)v;
    return 1;
}

static void npu__ir_walk_emit_upto(npu__ir_walker *w, size_t pos)
{
    if (pos > w->copied) {
        npu__sink_put(w->sink, w->x.s + w->copied, pos - w->copied);
        w->copied = pos;
    }
}

/* WRITE: the text up to b, then v in decimal in place of [b, e). */
NPU__NOINLINE static void npu__ir_walk_put_num(npu__ir_walker *w, size_t b, size_t e, uint64_t v)
{
    npu__ir_walk_emit_upto(w, b);
    npu__sink_u64_dec(w->sink, v);
    w->copied = e;
}

/* Multiplies a dim into the layer's element count (a dynamic dim, or an
 * overflow, only flagged). */
NPU__NOINLINE static void npu__ir_count_dim(npu__ir_open_layer *l, int64_t d)
{
    if (d < 0) l->elems_dynamic = 1;
    else if (npu__mul_u64(l->elems, (uint64_t)d, &l->elems)) l->elems_overflow = 1;
}

/* Parses a shape attribute ("1,3,224,224", "?,16", "1..32,64", "" scalar). */
static npu_status npu__ir_walk_shape_attr(npu__ir_walker *w, const npu__xml_attribute *a, npu__ir_open_layer *l,
                                          int batch_axis)
{
    const char *s = w->x.s + a->value;
    size_t n = a->value_len, i = 0, start = 0, e = n;
    l->shape_given = 1;             /* (the I/O port's dims, if it came first, give way) */
    l->shape_rank = 0;
    memset(&l->shape, 0, sizeof l->shape);
    l->elems = 1;
    npu__xml_trim(s, &i, &e);
    if (i == e) return NPU_OK;   /* "": a scalar */
    for (i = 0; i <= n; i++) {
        int64_t d;
        size_t tb = start, te = i;   /* the token, trimmed */
        int r;
        if (i < n && s[i] != ',') continue;
        r = npu__ir_dim(s, &tb, &te, &d);
        if (r == 2) {
            l->shape_dynrank = 1;
            l->elems_dynamic = 1;
        } else if (r <= 0) {
            return npu__xml_fail(&w->x, a->value + start, NPU_ERR_PARSE,
                                 "shape \"%.*s\": invalid dimension (expected N <= 2^40, ?, -1 or A..B)",
                                 (int)(n > 100 ? 100 : n), s);
        } else {
            if (l->shape_rank >= NPU_IR_MAX_DIMS)
                return npu__xml_fail(&w->x, a->value, NPU_ERR_PARSE,
                                     "shape has more than NPU_IR_MAX_DIMS (" NPU__STR(NPU_IR_MAX_DIMS) ") dims");
            if (l->shape_rank < NPU_MAX_RANK) l->shape.dims[l->shape.rank++] = d;   /* (the first NPU_MAX_RANK) */
            if (l->shape_rank == (uint32_t)batch_axis)   /* WRITE: the batch rewrite */
                npu__ir_walk_put_num(w, a->value + tb, a->value + te, (uint64_t)w->batch);
            l->shape_rank++;
            npu__ir_count_dim(l, d);
        }
        start = i + 1;
    }
    return NPU_OK;
}

static int npu__ir_layout_char(char c)
{
    return c == '?' || c == '.' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* "[N,C,H,W]" (rt_info) or "NCHW" -> "NCHW". Returns 0, with out "", when the
 * layout cannot be represented (a token other than a letter, '?' or "...", or
 * NPU_LAYOUT_MAX bytes or more); out is always terminated. */
static int npu__ir_layout_convert(const char *s, size_t n, char out[NPU_LAYOUT_MAX])
{
    size_t i = 0, e = n, len = 0;
    int ok = 1;
    npu__xml_trim(s, &i, &e);
    if (e - i >= 2 && s[i] == '[' && s[e - 1] == ']') {
        size_t start;
        e--;                          /* tokens between the brackets; "[]" is a scalar */
        for (start = ++i; ok && i < e && start <= e; start++) {
            size_t b = start, t;
            while (start < e && s[start] != ',') start++;
            t = start;
            npu__xml_trim(s, &b, &t);
            ok = ((t - b == 3 && memcmp(s + b, "...", 3) == 0) ||
                  (t - b == 1 && s[b] != '.' && npu__ir_layout_char(s[b]))) &&
                 len + (t - b) < NPU_LAYOUT_MAX;
            if (ok) memcpy(out + len, s + b, t - b);
            len += t - b;
        }
    } else {
        for (; ok && i < e; i++) {
            ok = npu__ir_layout_char(s[i]) && len + 1 < NPU_LAYOUT_MAX;
            out[len] = s[i];
            len += ok ? 1u : 0u;
        }
    }
    out[ok ? len : 0] = '\0';
    return ok;
}

/* Checks a layout against a rank; returns the batch axis (N, else 0; -1 for
 * scalars) or -2 when the layout does not fit. */
static int npu__ir_layout_axis(const char *layout, uint32_t rank)
{
    size_t i;
    int ell = -1, nidx = -1;
    uint32_t letters = 0, before_n = 0, after_n = 0;
    for (i = 0; layout[i] != '\0'; i++) {
        if (layout[i] == '.') {   /* (the terminator stops a short "..") */
            if (ell >= 0 || layout[i + 1] != '.' || layout[i + 2] != '.') return -2;
            ell = (int)letters;
            i += 2;
            continue;
        }
        if (layout[i] == 'N') {
            if (nidx >= 0) return -2;
            nidx = (int)letters;
        }
        letters++;
    }
    if (layout[0] != '\0') {
        if (ell < 0 && letters != rank) return -2;
        if (ell >= 0 && letters > rank) return -2;
    }
    if (rank == 0) return -1;
    if (nidx < 0) return 0;
    before_n = (uint32_t)nidx;
    after_n = letters - before_n - 1;
    if (ell >= 0 && ell <= nidx) return (int)(rank - after_n - 1);
    return (int)before_n;
}

/* The counting pass and a later pass saw different text (caller memory or a
 * mapped file changed underneath). */
NPU__NOINLINE static npu_status npu__ir_changed(const npu__xml *x)
{
    return npu__fail(x->ctx, NPU_ERR_STATE, "%s: the XML changed while it was being loaded", x->label);
}

/* COUNT and FILL: adds the decoded text [p, p+n) to the string pool: its
 * size to the count; FILL: the string, at the count so far (*off_plus1: its
 * offset + 1). */
static npu_status npu__ir_walk_pool_string(npu__ir_walker *w, size_t p, size_t n, uint32_t *off_plus1)
{
    size_t at = w->c.pool, len;
    if (w->mode > NPU__W_FILL) return NPU_OK;
    len = npu__xml_decode(w->x.s + p, n, NULL, 0);
    /* No overflow: each string pooled is the value of a different attribute
     * (its closing quote stands for the NUL) or the empty name of a layer
     * without one (its '<' for the NUL), and decoding never lengthens text,
     * so the pool is at most the XML's NPU_IR_MAX_XML_BYTES (2^30). */
    w->c.pool = at + len + 1;
    if (w->mode == NPU__W_FILL) {
        npu_ir *ir = w->ir;
        /* decoded again, at most the counted length: text changed in between
         * (a mapped file written meanwhile) cannot write past it */
        if (w->c.pool > ir->pool_cap || npu__xml_decode(w->x.s + p, n, ir->pool + at, len) != len)
            return npu__ir_changed(&w->x);
        ir->pool[at + len] = '\0';
        *off_plus1 = (uint32_t)(at + 1);
    }
    return NPU_OK;
}

static void npu__ir_walk_emit_wpa(npu__ir_walker *w, const npu__ir_open_layer *l)
{
    const npu_ir *ir = w->ir;
    uint64_t mp = 0;
    if (ir->bin != NULL) mp = (uint64_t)(uintptr_t)(ir->bin + l->offset);
    npu__sink_str(w->sink, "<attribute name=\"WeightsPointerAttribute\" version=\"0\" ");
    npu__sink_str(w->sink, w->wpa_ptr);
    npu__sink_str(w->sink, "=\"");
    npu__sink_u64_dec(w->sink, mp);
    npu__sink_str(w->sink, "\" ");
    npu__sink_str(w->sink, w->wpa_size);
    npu__sink_str(w->sink, "=\"");
    npu__sink_u64_dec(w->sink, l->size);
    npu__sink_str(w->sink, "\"/>");
}

/* Writes the text up to pos, then an <rt_info> holding the pointer attribute. */
static void npu__ir_walk_emit_rt_wpa(npu__ir_walker *w, size_t pos, const npu__ir_open_layer *l)
{
    npu__ir_walk_emit_upto(w, pos);
    npu__sink_str(w->sink, "<rt_info>");
    npu__ir_walk_emit_wpa(w, l);
    npu__sink_str(w->sink, "</rt_info>");
}

NPU__NOINLINE static int npu__ir_walk_by_pointer(const npu__ir_walker *w, const npu__ir_open_layer *l)
{
    return w->mode == NPU__W_WRITE && w->layout_b && l->kind == NPU__KIND_CONSTANT && !l->copy_to_blob;
}

/* The listed and variable layers' types, NPU__KIND_ order (from 1). */
static const char npu__ir_kinds[][10] = {"Parameter", "Const", "Result", "ReadValue", "Assign"};

/* l: the next free entry of w->lstack (its address taken once, by the caller). */
NPU__NOINLINE static npu_status npu__ir_walk_layer_open(npu__ir_walker *w, const npu__xml_token *t, npu__ir_open_layer *l)
{
    npu__xml_attribute a;
    npu_ir *ir = w->ir;
    int mode = w->mode, is_io;
    uint64_t v;
    uint32_t kind;
    memset(l, 0, sizeof *l);
    l->pos = t->begin;
    l->elem = -1;
    l->io_elem = -1;
    l->scope = w->scope_stack[w->scope_depth];
    if (npu__xml_attr(&w->x, t, "name", &a)) {
        l->name = a.value;
        l->name_len = a.value_len;
    }
    w->ldepth++;
    NPU__MSG_ONLY(w->xcold.where = l;)   /* messages name it (a bad id's with id 0) */
    switch (npu__ir_attr_num(&w->x, t, "id", UINT32_MAX - 1u, &v, &a)) {
    case 0: return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "<layer> without an id attribute");
    case -1:
        return npu__xml_fail(&w->x, a.value, NPU_ERR_PARSE, "layer id \"%.*s\" is not a number below 2^32",
                             (int)(a.value_len > 40 ? 40 : a.value_len), w->x.s + a.value);
    default: break;
    }
    l->id = (uint32_t)v;
    if (!npu__xml_attr(&w->x, t, "type", &a))
        return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "<layer> without a type attribute");
    for (kind = NPU__COUNT_OF(npu__ir_kinds);
         kind > 0 && !npu__xml_val_eq(&w->x, a.value, a.value_len, npu__ir_kinds[kind - 1]); kind--)
        continue;
    l->kind = kind;   /* none: NPU__KIND_OTHER (0) */
    if (w->c.layers >= NPU_IR_MAX_LAYERS)
        return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "more than NPU_IR_MAX_LAYERS (4194304) layers");
    is_io = (kind == NPU__KIND_PARAMETER || kind == NPU__KIND_RESULT) && l->scope == 0;
    if (mode == NPU__W_FILL) {
        npu__ir_layer_rec *r;
        if (w->c.layers >= ir->n_layers)
            return npu__ir_changed(&w->x);
        r = &ir->layers[w->c.layers];
        r->scope = l->scope;
        r->id = l->id;
        r->kind = kind;
        r->io = is_io ? w->c.listed[kind - 1] : UINT32_MAX;   /* (its index, below) */
        NPU__MSG_ONLY(r->pos = l->pos; r->name = l->name; r->name_len = (uint32_t)l->name_len;)   /* messages' */
    }
    w->c.layers++;
    if (kind == NPU__KIND_CONSTANT || is_io) {   /* listed: an index, and the name in the pool */
        l->index = w->c.listed[kind - 1]++;   /* NPU__LI_ order is NPU__KIND_ order */
        if (mode != NPU__W_COUNT && l->index >= ir->n_listed[kind - 1])
            return npu__ir_changed(&w->x);
        npu_status st = npu__ir_walk_pool_string(w, l->name, l->name_len, &l->name_off);
        if (st != NPU_OK) return st;
    }
    if (mode == NPU__W_WRITE && kind == NPU__KIND_CONSTANT) {
        const npu__ir_const *k = &ir->consts[l->index];
        l->offset = k->pub.offset;
        l->size = k->pub.size;
        l->has_rt = k->has_rt_info;
        l->copy_to_blob = w->layout_b && k->pub.size < w->threshold;
        if (l->copy_to_blob) {
            l->blob_offset = w->blob_running;
            w->blob_running += k->pub.size;
        }
    } else if (kind == NPU__KIND_READ_VALUE || kind == NPU__KIND_ASSIGN) {
        if (++w->c.var_layers > NPU__IR_MAX_VAR_LAYERS)
            return npu__xml_fail(&w->x, t->begin, NPU_ERR_LIMIT,
                                 "more than %u ReadValue/Assign layers", NPU__IR_MAX_VAR_LAYERS);
    }
    return NPU_OK;
}

/* Counts ReadValue/Assign layers per variable. The id is decoded into the pool
 * for every layer (as the counting pass sized it); a repeated id's copy stays
 * unused. */
static npu_status npu__ir_walk_add_variable(npu__ir_walker *w, const npu__ir_open_layer *l, const npu__xml_attribute *a)
{
    npu_ir *ir = w->ir;
    const char *id;
    uint32_t i, off = 0;
    npu_status st = npu__ir_walk_pool_string(w, a->value, a->value_len, &off);
    if (st != NPU_OK || w->mode != NPU__W_FILL) return st;
    id = ir->pool + off - 1;
    for (i = 0; i < ir->n_states && strcmp(ir->states[i].variable_id, id) != 0; i++) continue;
    if (i == ir->n_states) {
        if (ir->n_states >= ir->n_var_layers) return npu__ir_changed(&w->x);
        ir->states[ir->n_states++].variable_id = id;
    }
    if (l->kind == NPU__KIND_READ_VALUE) ir->states[i].read_values++;
    else ir->states[i].assigns++;
    return NPU_OK;
}

/* WRITE with a new batch: the axis of a top-level Parameter's dims to
 * rewrite; else -1. */
static int npu__ir_walk_batch_axis(const npu__ir_walker *w, const npu__ir_open_layer *l)
{
    return w->mode == NPU__W_WRITE && w->batch > 0 && l->kind == NPU__KIND_PARAMETER && l->scope == 0
               ? w->ir->inputs[l->index].batch_axis
               : -1;
}

static npu_status npu__ir_walk_data(npu__ir_walker *w, const npu__xml_token *t, npu__ir_open_layer *l)
{
    npu__xml_attribute a;
    npu_status st;
    if (l->has_data) return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "a second <data> element");
    l->has_data = 1;
    NPU__MSG_ONLY(l->data_pos = t->begin;)   /* messages' */
    if (l->kind == NPU__KIND_PARAMETER || l->kind == NPU__KIND_CONSTANT) {
        if (npu__xml_attr(&w->x, t, "element_type", &a)) {
            l->elem = npu__ir_elem_find(&w->x, &a, 0);
            if (l->elem < 0)
                return npu__xml_fail(&w->x, a.value, NPU_ERR_UNSUPPORTED, "unknown element_type \"%.*s\"",
                                     (int)(a.value_len > 40 ? 40 : a.value_len), w->x.s + a.value);
        }
        if (npu__xml_attr(&w->x, t, "shape", &a)) {
            /* WRITE rewrites the batch of a Parameter's shape (a loaded
             * Parameter has no "...": its dims are its tokens) */
            st = npu__ir_walk_shape_attr(w, &a, l, npu__ir_walk_batch_axis(w, l));
            if (st != NPU_OK) return st;
        }
    }
    if (l->kind == NPU__KIND_CONSTANT) {
        npu__xml_attribute off;
        const char *missing = NULL;   /* the attribute that is not a number */
        if (l->elem < 0) return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "Const without element_type");
        if (l->elem == NPU__ELEM_STRING)
            return npu__xml_fail(&w->x, t->begin, NPU_ERR_UNSUPPORTED, "string constants are not supported");
        if (npu__ir_attr_num(&w->x, t, "offset", UINT64_MAX, &l->offset, &off) <= 0) missing = "offset";
        else if (npu__ir_attr_num(&w->x, t, "size", UINT64_MAX, &l->size, &a) <= 0) missing = "size";
        if (missing != NULL)
            return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "Const without a numeric %s attribute", missing);
        if (w->layout_b) {
            npu__ir_walk_put_num(w, off.value, off.value + off.value_len, l->blob_offset);
        }
    }
    if (l->kind == NPU__KIND_READ_VALUE || l->kind == NPU__KIND_ASSIGN) {
        if (!npu__xml_attr(&w->x, t, "variable_id", &a))
            return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "%s without a variable_id",
                                 npu__ir_kinds[l->kind - 1]);
        st = npu__ir_walk_add_variable(w, l, &a);
        if (st != NPU_OK) return st;
    }
    return NPU_OK;
}

/* After the <data> element of a Const: add the pointer attribute when the
 * layer has no <rt_info> of its own. */
static void npu__ir_walk_data_end(npu__ir_walker *w, size_t end, const npu__ir_open_layer *l)
{
    if (npu__ir_walk_by_pointer(w, l) && !l->has_rt) npu__ir_walk_emit_rt_wpa(w, end, l);
}

NPU__NOINLINE static npu_status npu__ir_walk_const_check(npu__ir_walker *w, npu__ir_open_layer *l)
{
    uint64_t bits, bytes, end;
    const npu__type_info *e;
    NPU__MSG_ONLY(char shape[64];)
    if (!l->has_data) return npu__xml_fail(&w->x, l->pos, NPU_ERR_PARSE, "Const without a <data> element");
    e = &npu__types[l->elem];
    if (!l->shape_given) {
        /* no shape attribute: the output port's dims (npu__ir_walk_port_end),
         * their product checked as the shape attribute's is (npu_shape_elements
         * would give 0 for an overflow, which a size="0" would match) */
        uint32_t i;
        l->elems = 1;
        if (l->shape_rank > NPU_MAX_RANK) l->elems_overflow = 1;
        else
            for (i = 0; i < l->shape.rank; i++) {
                npu__ir_count_dim(l, l->shape.dims[i]);
            }
    }
    if (l->elems_dynamic || l->shape_dynrank)
        return npu__xml_fail(&w->x, l->data_pos, NPU_ERR_PARSE, "Const with a dynamic shape");
    if (l->elems_overflow || npu__mul_u64(l->elems, e->bits, &bits))
        return npu__xml_fail(&w->x, l->data_pos, NPU_ERR_PARSE, "Const shape: element count overflows");
    bytes = bits / 8 + (bits % 8 != 0);
    if (bytes != l->size)
        return npu__xml_fail(&w->x, l->data_pos, NPU_ERR_PARSE,
                             "Const size %llu does not match its shape %s%s of %s (%llu bytes)",
                             (unsigned long long)l->size, npu__shape_str(&l->shape, shape, sizeof shape),
                             l->shape_rank > NPU_MAX_RANK ? "..." : "", e->ov_name, (unsigned long long)bytes);
    /* (a size query, without w->ir, does not know the weights) */
    if (npu__add_u64(l->offset, l->size, &end) || (w->ir != NULL && end > w->ir->bin_size))
        return npu__xml_fail(&w->x, l->data_pos, NPU_ERR_FORMAT,
                             "Const bytes [%llu, %llu + %llu) lie beyond the end of the weights (%llu bytes%s)",
                             (unsigned long long)l->offset, (unsigned long long)l->offset,
                             (unsigned long long)l->size,
                             (unsigned long long)(w->ir != NULL ? w->ir->bin_size : 0),
                             w->ir != NULL && w->ir->bin == NULL ? "; no .bin" : "");
    if (w->mode == NPU__W_FILL) {
        npu__ir_const *k = &w->ir->consts[l->index];
        k->pub.layer_id = l->id;
        k->pub.graph = l->scope;
        k->pub.name = w->ir->pool + l->name_off - 1;
        k->pub.element_type = e->ov_name;
        k->pub.offset = l->offset;
        k->pub.size = l->size;
        k->pub.data = w->ir->bin != NULL ? (const void *)(w->ir->bin + l->offset) : NULL;
        k->has_rt_info = l->has_rt;
    }
    return NPU_OK;
}

/* An I/O's element type (an npu__types index) and, from it and the shape
 * already set, its batch-1 byte size (0 when unknown or overflowing). */
static void npu__ir_io_set_elem(npu_ir_io *io, int e)
{
    uint64_t bits;
    io->element_type = npu__types[e].ov_name;
    io->desc.type = npu__elem_type(e);
    if (npu__mul_u64(npu__shape_elements_dyn1(&io->desc.shape), npu__types[e].bits, &bits)) bits = 0;
    io->desc.bytes = bits / 8 + (bits % 8 != 0);
}

NPU__NOINLINE static npu_status npu__ir_walk_io_end(npu__ir_walker *w, npu__ir_open_layer *l)
{
    npu_ir_io *io;
    int elem, axis;
    NPU__MSG_ONLY(const char *what = l->kind == NPU__KIND_PARAMETER ? "Parameter" : "Result";)
    /* the shape: of the shape attribute, else of the I/O port (npu__ir_walk_port_end) */
    if (l->kind == NPU__KIND_PARAMETER) {
        if (!l->shape_given && !l->io_port_seen)
            return npu__xml_fail(&w->x, l->pos, NPU_ERR_PARSE, "Parameter without a shape or an output port");
        elem = l->elem >= 0 ? l->elem : l->io_elem;
        if (elem < 0)
            return npu__xml_fail(&w->x, l->pos, NPU_ERR_PARSE, "Parameter without an element_type");
    } else {
        if (!l->io_port_seen)
            return npu__xml_fail(&w->x, l->pos, NPU_ERR_PARSE, "Result without an input port");
        elem = l->io_elem;   /* may be -1: taken from the producer after the edges */
    }
    if (l->shape_dynrank)
        return npu__xml_fail(&w->x, l->pos, NPU_ERR_UNSUPPORTED, "%s with a dynamic rank (\"...\")", what);
    if (l->shape_rank > NPU_MAX_RANK)
        return npu__xml_fail(&w->x, l->pos, NPU_ERR_LIMIT,
                             "%s of rank %lu: more than NPU_MAX_RANK (" NPU__STR(NPU_MAX_RANK) ")", what,
                             (unsigned long)l->shape_rank);
    axis = npu__ir_layout_axis(l->layout, l->shape_rank);
    if (axis == -2) {   /* (never for "") */
        if (w->mode == NPU__W_FILL)
            npu__log(w->x.ctx, NPU_LOG_WARN, "%s: layer '%.*s': layout \"%s\" does not fit rank %lu; ignored",
                 w->x.label, (int)(l->name_len > 80 ? 80 : l->name_len), w->x.s + l->name, l->layout,
                 (unsigned long)l->shape_rank);
        l->layout[0] = '\0';
        axis = l->shape_rank ? 0 : -1;   /* npu__ir_layout_axis("", rank) */
    }
    if (w->mode != NPU__W_FILL) return NPU_OK;
    io = l->kind == NPU__KIND_PARAMETER ? &w->ir->inputs[l->index] : &w->ir->outputs[l->index];
    io->layer_id = l->id;
    io->desc.name = w->ir->pool + l->name_off - 1;
    io->desc.shape = l->shape;   /* (its rank is shape_rank: at most NPU_MAX_RANK here) */
    npu__ir_io_set_elem(io, elem < 0 ? 0 : elem);
    npu__strlcpy(io->desc.layout, l->layout, sizeof io->desc.layout);
    io->batch_axis = axis;
    io->tensor_names = l->io_names ? w->ir->pool + l->io_names - 1 : "";
    return NPU_OK;
}

static npu_status npu__ir_walk_port_start(npu__ir_walker *w, const npu__xml_token *t, npu__ir_open_layer *l, uint32_t dir)
{
    npu__xml_attribute a;
    uint64_t v;
    npu_status st;
    if (npu__ir_attr_num(&w->x, t, "id", UINT32_MAX - 1u, &v, &a) <= 0)
        return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "<port> without a numeric id");
    w->port_dir = dir;
    w->port_id = (uint32_t)v;
    w->port_rank = 0;
    w->port_elem = 0;
    w->port_names = 0;
    if (npu__xml_attr(&w->x, t, "precision", &a)) {
        int e = npu__ir_elem_find(&w->x, &a, 1);
        w->port_elem = e < 0 ? 0 : e;
    }
    /* the first output of a Parameter or a Const, the first input of a Result */
    w->port_is_io =
        (dir == 1 ? l->n_out : l->n_in) == 0 &&
        ((dir == 1 ? 1u << NPU__KIND_PARAMETER | 1u << NPU__KIND_CONSTANT : 1u << NPU__KIND_RESULT) >> l->kind & 1u);
    if (dir == 1 && l->scope == 0 && npu__xml_attr(&w->x, t, "names", &a)) {
        st = npu__ir_walk_pool_string(w, a.value, a.value_len, &w->port_names);
        if (st != NPU_OK) return st;
    }
    if (dir == 1) l->n_out++;
    else l->n_in++;
    if (w->mode == NPU__W_FILL) {
        npu__ir_port_rec *p;
        if (w->c.ports >= w->ir->n_ports)
            return npu__ir_changed(&w->x);
        p = &w->ir->ports[w->c.ports];
        p->scope = l->scope;
        p->layer = l->id;
        p->id = w->port_id;
        p->dir = dir;
        p->elem = (uint32_t)w->port_elem;
        p->names = w->port_names;
    }
    w->c.ports++;
    return NPU_OK;
}

static npu_status npu__ir_walk_dim_text(npu__ir_walker *w, const npu__xml_token *t, npu__ir_open_layer *l)
{
    int64_t d;
    size_t b = t->text, e = t->text_end;
    int r = npu__ir_dim(w->x.s, &b, &e, &d);
    NPU__MSG_ONLY(const char *s = w->x.s + t->text; size_t n = t->text_end - t->text;)
    if (r < 0) return NPU_OK;   /* whitespace around the value */
    if (w->dim_has_text)
        return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "<dim> holds more than one value");
    w->dim_has_text = 1;
    if (r != 1)
        return npu__xml_fail(&w->x, t->text, NPU_ERR_PARSE,
                             "<dim>%.*s</dim>: expected a number <= 2^40, -1 or ?", (int)(n > 40 ? 40 : n), s);
    if (w->port_is_io && !l->shape_given && w->port_rank < NPU_MAX_RANK) l->shape.dims[l->shape.rank++] = d;
    if (w->port_is_io && npu__ir_walk_batch_axis(w, l) == (int)w->port_rank)
        npu__ir_walk_put_num(w, t->text, t->text_end, (uint64_t)w->batch);
    return NPU_OK;
}

NPU__NOINLINE static void npu__ir_walk_port_end(npu__ir_walker *w, npu__ir_open_layer *l)
{
    if (!w->port_is_io) return;
    l->io_port_seen = 1;
    /* no shape attribute (so far): the layer's shape is the port's (its
     * first NPU_MAX_RANK dims are in l->shape already) */
    if (!l->shape_given) l->shape_rank = w->port_rank;
    l->io_names = w->port_names;
    l->io_elem = w->port_elem > 0 ? w->port_elem : -1;
}

static unsigned char npu__ir_walk_role(const npu__ir_walker *w, unsigned parent, const npu__xml_token *t)
{
    /* The elements the walker knows, by their parent's role; any other is
     * NPU__ROLE_OTHER, and every child of the net's <rt_info> an item. */
    static const struct { unsigned char parent, role; char tag[10]; } map[] = {
        {NPU__ROLE_NET, NPU__ROLE_NET_RT_INFO, "rt_info"},
        {NPU__ROLE_NET, NPU__ROLE_LAYERS, "layers"},
        {NPU__ROLE_NET, NPU__ROLE_EDGES, "edges"},
        {NPU__ROLE_BODY, NPU__ROLE_LAYERS, "layers"},
        {NPU__ROLE_BODY, NPU__ROLE_EDGES, "edges"},
        {NPU__ROLE_LAYERS, NPU__ROLE_LAYER, "layer"},
        {NPU__ROLE_LAYER, NPU__ROLE_DATA, "data"},
        {NPU__ROLE_LAYER, NPU__ROLE_LAYER_RT_INFO, "rt_info"},
        {NPU__ROLE_LAYER, NPU__ROLE_INPUT, "input"},
        {NPU__ROLE_LAYER, NPU__ROLE_OUTPUT, "output"},
        {NPU__ROLE_LAYER, NPU__ROLE_BODY, "body"},
        {NPU__ROLE_INPUT, NPU__ROLE_PORT, "port"},
        {NPU__ROLE_OUTPUT, NPU__ROLE_PORT, "port"},
        {NPU__ROLE_PORT, NPU__ROLE_DIM, "dim"},
        {NPU__ROLE_PORT, NPU__ROLE_PORT_RT_INFO, "rt_info"},
        {NPU__ROLE_PORT_RT_INFO, NPU__ROLE_PORT_RT_INFO_ATTR, "attribute"},
        {NPU__ROLE_EDGES, NPU__ROLE_EDGE, "edge"},
    };
    size_t i;
    if (parent == NPU__ROLE_NET_RT_INFO) return NPU__ROLE_NET_RT_INFO_ITEM;
    for (i = 0; i < NPU__COUNT_OF(map); i++)
        if (map[i].parent == parent && npu__xml_eq(&w->x, t->name, t->name_len, map[i].tag)) return map[i].role;
    return NPU__ROLE_OTHER;
}

static npu_status npu__ir_walk_edge(npu__ir_walker *w, const npu__xml_token *t); /* 8c */

/* WRITE, once: the text up to pos, then the net rt_info entries the file lacks
 * (in an <rt_info> element when `element`). Returns whether it wrote. */
NPU__NOINLINE static int npu__ir_walk_emit_net_rt(npu__ir_walker *w, size_t pos, int element)
{
    if (w->mode != NPU__W_WRITE || w->net_rt_done) return 0;
    w->net_rt_done = 1;
    npu__ir_walk_emit_upto(w, pos);
    if (element) npu__sink_str(w->sink, "<rt_info>");
    if (!(w->net_rt_has & 1)) npu__sink_str(w->sink, "<is_new_api value=\"YES\"/>");
    if (!(w->net_rt_has & 2)) npu__sink_str(w->sink, "<use_indices_for_io_metadata value=\"YES\"/>");
    if (element) npu__sink_str(w->sink, "</rt_info>");
    return 1;
}

/* l: the innermost open layer, or NULL; depth: the element's. */
NPU__NOINLINE static npu_status npu__ir_walk_start(npu__ir_walker *w, const npu__xml_token *t, npu__ir_open_layer *l,
                                                   unsigned depth)
{
    npu__xml *x = &w->x;
    unsigned char role;
    npu_status st = NPU_OK;
    if (depth == 0) {
        npu__xml_attribute a;
        uint64_t v;
        if (!npu__xml_eq(x, t->name, t->name_len, "net"))
            return npu__xml_fail(x, t->begin, NPU_ERR_PARSE, "root element is <%.*s>, expected <net>",
                                 (int)t->name_len, x->s + t->name);
        int r = npu__ir_attr_num(x, t, "version", 1000000, &v, &a);
        if (r == 0) return npu__xml_fail(x, t->begin, NPU_ERR_PARSE, "<net> has no version attribute");
        if (r < 0 || (v != 10 && v != 11))
            return npu__xml_fail(x, a.value, NPU_ERR_UNSUPPORTED,
                                 "IR version \"%.*s\" is not supported (only 10 and 11)",
                                 (int)(a.value_len > 20 ? 20 : a.value_len), x->s + a.value);
        w->c.version = (uint32_t)v;
        role = NPU__ROLE_NET;
    } else {
        role = npu__ir_walk_role(w, w->role[depth - 1], t);
    }
    w->role[depth] = role;
    /* EDGES: the edge checks need only the layers (their scopes and ids),
     * bodies and edges; everything else passed FILL already (and is skipped
     * here: a third full walk cost 7% more instructions per load) */
    if (w->mode == NPU__W_EDGES && role != NPU__ROLE_LAYER && role != NPU__ROLE_BODY && role != NPU__ROLE_EDGE)
        return NPU_OK;
    if (npu__xml_eq(x, t->name, t->name_len, "attribute")) {
        /* Constants by pointer: only npu forms the address, from memory it
         * mapped or was handed; a file's own (mp/ms or any other spelling)
         * would have the compiler read wherever it points. */
        if (npu__xml_attr_is(x, t, "name", "WeightsPointerAttribute"))
            return npu__xml_fail(x, t->begin, NPU_ERR_FORMAT, "the file carries a WeightsPointerAttribute "
                                 "(a weights address); an IR file may not give addresses");
    }
    switch (role) {
    case NPU__ROLE_LAYER:
        if (w->ldepth >= NPU__IR_MAX_LAYER_NEST)
            return npu__xml_fail(x, t->begin, NPU_ERR_PARSE, "layers nested too deeply");
        if (w->mode == NPU__W_EDGES) {   /* the edges use the scope stack: the layer only nests */
            w->ldepth++;
            break;
        }
        st = npu__ir_walk_layer_open(w, t, &w->lstack[w->ldepth]);
        break;
    case NPU__ROLE_DATA:
        st = npu__ir_walk_data(w, t, l);
        break;
    case NPU__ROLE_LAYER_RT_INFO:
        if (l->rt_done) break;
        l->has_rt = 1;
        l->rt_done = 1;
        if (npu__ir_walk_by_pointer(w, l)) {
            if (t->self_closing) {
                npu__ir_walk_emit_rt_wpa(w, t->begin, l);
                w->copied = t->end;
            } else {
                npu__ir_walk_emit_upto(w, t->end);
                npu__ir_walk_emit_wpa(w, l);
            }
        }
        break;
    case NPU__ROLE_PORT:
        st = npu__ir_walk_port_start(w, t, l, w->role[depth - 1] == NPU__ROLE_OUTPUT ? 1u : 0u);
        break;
    case NPU__ROLE_DIM:
        if (t->self_closing) return npu__xml_fail(x, t->begin, NPU_ERR_PARSE, "empty <dim/>");
        w->dim_has_text = 0;
        break;
    case NPU__ROLE_PORT_RT_INFO_ATTR:
        if (!w->port_is_io) break;
        {
            npu__xml_attribute a;
            if (npu__xml_attr_is(x, t, "name", "layout") && npu__xml_attr(x, t, "layout", &a)) {
                if (!npu__ir_layout_convert(x->s + a.value, a.value_len, l->layout) && w->mode == NPU__W_FILL)
                    npu__log(x->ctx, NPU_LOG_WARN, "%s: layout \"%.*s\" cannot be represented; ignored", x->label,
                             (int)(a.value_len > 60 ? 60 : a.value_len), x->s + a.value);
            }
        }
        break;
    case NPU__ROLE_BODY:
        /* (the count needs no check: at most NPU_IR_MAX_XML_BYTES / 7, asserted above) */
        if (w->scope_depth >= NPU__IR_MAX_LAYER_NEST)
            return npu__xml_fail(x, t->begin, NPU_ERR_PARSE, "<body> nested too deeply");
        w->scope_stack[++w->scope_depth] = ++w->c.scopes;
        break;
    case NPU__ROLE_EDGE:
        st = npu__ir_walk_edge(w, t);
        break;
    case NPU__ROLE_NET_RT_INFO:
        /* The net rt_info gets is_new_api and use_indices_for_io_metadata
         * (below IR 11 the compiler matches the I/O of the build flags by name
         * unless it finds the latter), as OpenVINO's serializer sets them. */
        if (t->self_closing && npu__ir_walk_emit_net_rt(w, t->begin, 1)) w->copied = t->end;
        break;
    case NPU__ROLE_NET_RT_INFO_ITEM:
        /* A file's own entry stays if it is already YES, else ours replaces
         * it (one value per key); ours are added at </rt_info>. */
        if (w->mode == NPU__W_WRITE && !w->net_rt_done && t->self_closing) {
            unsigned char bit = npu__xml_eq(x, t->name, t->name_len, "is_new_api")                    ? 1
                                : npu__xml_eq(x, t->name, t->name_len, "use_indices_for_io_metadata") ? 2
                                                                                                       : 0;
            npu__xml_attribute a;
            if (bit == 0) break;
            if (npu__xml_attr(x, t, "value", &a) && npu__xml_eq(x, a.value, a.value_len, "YES")) {
                w->net_rt_has |= bit;
            } else {
                npu__ir_walk_emit_upto(w, t->begin);
                w->copied = t->end;
            }
        }
        break;
    default:
        break;
    }
    return st;
}

NPU__NOINLINE static npu_status npu__ir_walk_layer_end(npu__ir_walker *w, size_t end)
{
    npu__ir_open_layer *l = &w->lstack[w->ldepth - 1];
    npu_status st = NPU_OK;
    if (w->mode == NPU__W_EDGES) {   /* its checks ran in FILL (and its <data> was skipped) */
        w->ldepth--;
        return NPU_OK;
    }
    if (l->kind == NPU__KIND_REPLACED) w->copied = end;   /* 8e wrote it anew */
    else if (l->kind == NPU__KIND_CONSTANT) st = npu__ir_walk_const_check(w, l);
    else if ((l->kind == NPU__KIND_PARAMETER || l->kind == NPU__KIND_RESULT) && l->scope == 0)
        st = npu__ir_walk_io_end(w, l);
    else if ((l->kind == NPU__KIND_READ_VALUE || l->kind == NPU__KIND_ASSIGN) && !l->has_data)
        st = npu__xml_fail(&w->x, l->pos, NPU_ERR_PARSE, "%s without <data variable_id=...>",
                           npu__ir_kinds[l->kind - 1]);
    else if (l->kind == NPU__KIND_READ_VALUE && l->n_in == 0 && w->mode == NPU__W_WRITE &&
             w->compiler_version < NPU__VERSION_7_0)
        /* The 2024 compiler (6.x) takes a ReadValue only with its init
         * input (IE.cpp parseNode); the graph writer adds a zero Const, the
         * IR rewrite cannot. */
        st = npu__xml_fail(&w->x, l->pos, NPU_ERR_UNSUPPORTED,
                           "ReadValue without an init input: compiler %u.%u (before 7.0) requires one; give "
                           "it an initial value (e.g. a zero Const)",
                           (unsigned)(w->compiler_version >> 16), (unsigned)(w->compiler_version & 0xffffu));
    if (st != NPU_OK) return st;
    w->ldepth--;
    NPU__MSG_ONLY(w->xcold.where = w->ldepth ? &w->lstack[w->ldepth - 1] : NULL;)   /* the enclosing layer, if any */
    return NPU_OK;
}

/* role: the element's (w->role[w->x.depth]: the scanner already popped it). */
NPU__NOINLINE static npu_status npu__ir_walk_end(npu__ir_walker *w, const npu__xml_token *t, npu__ir_open_layer *l,
                                                 unsigned role)
{
    if (w->mode == NPU__W_EDGES && role != NPU__ROLE_LAYER && role != NPU__ROLE_BODY) return NPU_OK;
    switch (role) {
    case NPU__ROLE_LAYER: return npu__ir_walk_layer_end(w, t->end);
    case NPU__ROLE_DATA: npu__ir_walk_data_end(w, t->end, l); break;
    case NPU__ROLE_PORT: npu__ir_walk_port_end(w, l); break;
    case NPU__ROLE_DIM:
        if (!w->dim_has_text) return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "empty <dim>");
        if (++w->port_rank > NPU_IR_MAX_DIMS)
            return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE,
                                 "port with more than NPU_IR_MAX_DIMS (" NPU__STR(NPU_IR_MAX_DIMS) ") dims");
        break;
    case NPU__ROLE_BODY: w->scope_depth--; break;
    case NPU__ROLE_NET_RT_INFO:
    case NPU__ROLE_NET: npu__ir_walk_emit_net_rt(w, t->begin, role == NPU__ROLE_NET); break;
    default: break;
    }
    return NPU_OK;
}

/* Runs one walk over the whole document. */
static npu_status npu__ir_walk_run(npu__ir_walker *w)
{
    npu__xml_token t;
    npu_status st;
    for (;;) {
        npu__ir_open_layer *l;
        unsigned role = 0, pp = 0;   /* pp: the roles whose tag here is a preprocessing event */
        st = npu__xml_next(&w->x, &t);
        if (st != NPU_OK) return st;
        if (t.kind == NPU__XML_EOF) break;
        l = w->ldepth ? &w->lstack[w->ldepth - 1] : NULL;
        if (t.kind == NPU__XML_START_TAG) {
            unsigned depth = t.self_closing ? w->x.depth : w->x.depth - 1;
            st = npu__ir_walk_start(w, &t, l, depth);
            role = w->role[depth];
            pp = 1u << NPU__ROLE_LAYER | 1u << NPU__ROLE_EDGE | 1u << NPU__ROLE_PORT;
        } else if (t.kind == NPU__XML_END_TAG) {
            role = w->role[w->x.depth];
            st = npu__ir_walk_end(w, &t, l, role);
            pp = 1u << NPU__ROLE_LAYERS | 1u << NPU__ROLE_EDGES;
        } else if (t.kind == NPU__XML_TEXT && w->role[w->x.depth - 1] == NPU__ROLE_DIM &&   /* (text: depth >= 1) */
                   w->mode != NPU__W_EDGES) {
            st = npu__ir_walk_dim_text(w, &t, l);
        }
        /* WRITE: preprocessing (8e) sees every top-level layer, port and
         * edge, and the ends of <layers> and <edges> (called here, not from
         * the handlers: a shallower stack) */
        if (st == NPU_OK && (pp >> role & 1u) && w->mode == NPU__W_WRITE && w->ir->pp_walk != NULL &&
            w->scope_depth == 0)
            st = w->ir->pp_walk(w, (int)role, &t, 0);
        /* <x/>: its end too (but <net/>'s: no net rt_info written before it) */
        if (st == NPU_OK && t.kind == NPU__XML_START_TAG && t.self_closing && role != NPU__ROLE_NET)
            st = npu__ir_walk_end(w, &t, l, role);
        if (st != NPU_OK) return st;
    }
    if (w->mode == NPU__W_WRITE) npu__ir_walk_emit_upto(w, w->x.n);
    return NPU_OK;
}

/* ---- 8c. Loading ----------------------------------------------------------- */

static int npu__ir_layer_cmp(const void *pa, const void *pb)
{
    const npu__ir_layer_rec *a = (const npu__ir_layer_rec *)pa, *b = (const npu__ir_layer_rec *)pb;
    if (a->scope != b->scope) return a->scope < b->scope ? -1 : 1;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return 0;
}

static int npu__ir_port_cmp(const void *pa, const void *pb)
{
    const npu__ir_port_rec *a = (const npu__ir_port_rec *)pa, *b = (const npu__ir_port_rec *)pb;
    if (a->scope != b->scope) return a->scope < b->scope ? -1 : 1;
    if (a->layer != b->layer) return a->layer < b->layer ? -1 : 1;
    if (a->dir != b->dir) return a->dir < b->dir ? -1 : 1;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return 0;
}

NPU__NOINLINE static void npu__swap_bytes(unsigned char *a, unsigned char *b, size_t size)
{
    while (size-- > 0) {
        unsigned char t = *a;
        *a++ = *b;
        *b++ = t;
    }
}

/* In-place heap sort (libc qsort may allocate), as one loop over k from
 * n + n/2 - 1 down to 1: while k >= n it builds the max-heap, sifting element
 * k - n down into b[0..n); then it moves the maximum b[0] to b[k] and sifts
 * the new root down into b[0..k). */
static void npu__heapsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    unsigned char *b = (unsigned char *)base;
    size_t k = n + n / 2;
    while (k-- > 1) {
        size_t root = k - n, end = n, child;
        if (k < n) {
            npu__swap_bytes(b, b + k * size, size);
            root = 0;
            end = k;
        }
        while ((child = 2 * root + 1) < end) {
            if (child + 1 < end && cmp(b + child * size, b + (child + 1) * size) < 0) child++;
            if (cmp(b + root * size, b + child * size) >= 0) break;
            npu__swap_bytes(b + root * size, b + child * size, size);
            root = child;
        }
    }
}

/* Lookups in the sorted tables (libc bsearch: no allocation). */
NPU__NOINLINE static npu__ir_layer_rec *npu__ir_find_layer(const npu_ir *ir, uint32_t scope, uint32_t id)
{
    npu__ir_layer_rec key;
    key.scope = scope;
    key.id = id;
    return (npu__ir_layer_rec *)bsearch(&key, ir->layers, ir->n_layers, sizeof key, npu__ir_layer_cmp);
}

NPU__NOINLINE static const npu__ir_port_rec *npu__ir_find_port(const npu_ir *ir, uint32_t scope, uint32_t layer, uint32_t id,
                                                 uint32_t dir)
{
    npu__ir_port_rec key;
    key.scope = scope;
    key.layer = layer;
    key.id = id;
    key.dir = dir;
    return (const npu__ir_port_rec *)bsearch(&key, ir->ports, ir->n_ports, sizeof key, npu__ir_port_cmp);
}

static npu_status npu__ir_walk_edge(npu__ir_walker *w, const npu__xml_token *t)
{
    static const char *const names[4] = {"from-layer", "from-port", "to-layer", "to-port"};
    uint32_t v[4], scope = w->scope_stack[w->scope_depth];
    NPU__MSG_ONLY(const char *in_body = scope ? " in this <body>" : "";)
    npu__xml_attribute a;
    npu__ir_layer_rec *from, *to;
    const npu__ir_port_rec *fp;
    npu_ir *ir = w->ir;
    unsigned i;
    for (i = 0; i < 4; i++) {
        uint64_t x;
        if (npu__ir_attr_num(&w->x, t, names[i], UINT32_MAX - 1u, &x, &a) <= 0)
            return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "<edge> without a numeric %s attribute", names[i]);
        v[i] = (uint32_t)x;
    }
    if (w->mode != NPU__W_EDGES) return NPU_OK;   /* WRITE: npu__ir_walk_run calls preprocessing */
    from = npu__ir_find_layer(ir, scope, v[0]);
    to = npu__ir_find_layer(ir, scope, v[2]);
    if (from == NULL || to == NULL) {   /* a missing from-layer is named first */
        i = from == NULL ? 0 : 2;
        return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE, "edge %s %lu: no layer with that id%s", names[i],
                             (unsigned long)v[i], in_body);
    }
    fp = npu__ir_find_port(ir, scope, v[0], v[1], 1);
    if (fp == NULL)
        return npu__xml_fail(&w->x, t->begin, NPU_ERR_PARSE,
                             "edge from-layer %lu from-port %lu: layer '%.*s' has no output port %lu%s",
                             (unsigned long)v[0], (unsigned long)v[1], (int)(from->name_len > 80 ? 80 : from->name_len),
                             w->x.s + from->name, (unsigned long)v[1], in_body);
#ifndef NPU_NO_MESSAGES   /* a warning only: NPU_NO_MESSAGES has no warnings to look up for */
    if (npu__ir_find_port(ir, scope, v[2], v[3], 0) == NULL) {
        unsigned long line = npu__xml_line(&w->x, t->begin);
        npu__log(w->x.ctx, NPU_LOG_WARN, "%s line %lu: edge to-layer %lu to-port %lu: layer '%.*s' has no input port %lu",
                 w->x.label, line, (unsigned long)v[2], (unsigned long)v[3],
                 (int)(to->name_len > 80 ? 80 : to->name_len), w->x.s + to->name, (unsigned long)v[3]);
    }
#endif
    to->edges_in++;
    if (to->kind == NPU__KIND_RESULT && scope == 0) {   /* (to->io: an output's index, which FILL checked) */
        npu_ir_io *out = &ir->outputs[to->io];
        if (fp->names) out->tensor_names = ir->pool + fp->names - 1;
        if (out->element_type == npu__types[0].ov_name && fp->elem > 0) npu__ir_io_set_elem(out, (int)fp->elem);
    }
    return NPU_OK;
}

static void npu__ir_walk_init(npu__ir_walker *w, int mode, npu_context *ctx, const char *label, const char *xml, size_t n,
                          npu_ir *ir)
{
    memset(w, 0, sizeof *w);
    w->mode = mode;
    w->ir = ir;
    w->x.s = xml;
    w->x.n = n;
    w->x.ctx = ctx;
    w->x.label = label;
    w->x.cold = &w->xcold;
    if (npu__xml_starts(&w->x, 0, "\xEF\xBB\xBF")) w->x.pos = w->x.start = 3;  /* byte order mark */
}

/* A walker over a loaded IR's own XML (its fill, edge and write passes). */
static void npu__ir_walk_init_ir(npu__ir_walker *w, int mode, npu_ir *ir)
{
    npu__ir_walk_init(w, mode, ir->ctx, ir->label, ir->xml, ir->xml_len, ir);
}

/* The parts of an IR's arena block, in order: the object and its persistent
 * tables (up to NPU__IRP_LAYERS), then the temporary tables. */
enum { NPU__IRP_IR = 0, NPU__IRP_INPUTS, NPU__IRP_OUTPUTS, NPU__IRP_CONSTS, NPU__IRP_STATES, NPU__IRP_POOL,
       NPU__IRP_WALK, NPU__IRP_LAYERS, NPU__IRP_PORTS, NPU__IRP_END };

/* The counting pass and the byte offsets of the parts in the IR's block
 * (off[NPU__IRP_END]: the whole, which fits size_t). */
static npu_status npu__ir_query(npu_context *ctx, const char *label, const char *xml, size_t n, npu__ir_counts *c,
                                size_t off[NPU__IRP_END + 1], npu__ir_walker *w)
{
    static const uint32_t elem_size[NPU__IRP_END] = {
        sizeof(npu_ir), sizeof(npu_ir_io), sizeof(npu_ir_io), sizeof(npu__ir_const), sizeof(npu_ir_state), 1,
        sizeof(npu__ir_walker) /* for payload writes */, sizeof(npu__ir_layer_rec), sizeof(npu__ir_port_rec)};
    size_t elems[NPU__IRP_END];
    unsigned i;
    npu_status st;
    if (n == 0) return npu__fail(ctx, NPU_ERR_PARSE, "%s line 1, column 1: empty XML", label);
    if (n > NPU_IR_MAX_XML_BYTES)
        return npu__fail(ctx, NPU_ERR_LIMIT, "%s: %zu bytes of XML exceed NPU_IR_MAX_XML_BYTES (1073741824)", label,
                         n);
    npu__ir_walk_init(w, NPU__W_COUNT, ctx, label, xml, n, NULL);
    st = npu__ir_walk_run(w);
    if (st != NPU_OK) return st;
    *c = w->c;
    elems[NPU__IRP_IR] = elems[NPU__IRP_WALK] = 1;
    elems[NPU__IRP_INPUTS] = c->listed[NPU__LI_IN];
    elems[NPU__IRP_OUTPUTS] = c->listed[NPU__LI_OUT];
    elems[NPU__IRP_CONSTS] = c->listed[NPU__LI_CONST];
    elems[NPU__IRP_STATES] = c->var_layers;
    elems[NPU__IRP_POOL] = c->pool;
    elems[NPU__IRP_LAYERS] = c->layers;
    elems[NPU__IRP_PORTS] = c->ports;
    off[0] = 0;
    for (i = 0; i < NPU__IRP_END; i++) {
        size_t part;
        if (npu__mul_size(elems[i], elem_size[i], &part) || part > SIZE_MAX - NPU_ARENA_ALIGN ||
            npu__add_size(off[i], NPU_ARENA_ROUND(part), &off[i + 1]))
            return npu__fail(ctx, NPU_ERR_OVERFLOW, "%s: the IR's tables overflow size_t", label);
    }
    return NPU_OK;
}

static npu_status npu__ir_load(npu_arena *arena, npu_context *ctx, const char *label, const char *xml,
                               size_t xml_len, const void *bin, uint64_t bin_size, npu_ir **out)
{
    npu__ir_counts c;
    size_t off[NPU__IRP_END + 1], mark, i;
    unsigned char *mem;
    npu_ir *ir;
    npu__ir_walker *wp;
    npu_status st;
    /* The counting pass walks with arena scratch (the walker is too big for a
     * small thread's stack); the IR block below holds a walker of its own. */
    mark = arena->used;
    wp = (npu__ir_walker *)npu__alloc(arena, ctx, sizeof *wp, "the IR loader's walker");
    if (wp == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    st = npu__ir_query(ctx, label, xml, xml_len, &c, off, wp);
    npu_arena_rewind(arena, mark);
    if (st != NPU_OK) return st;
    /* one block: the object, then the temporary tables, given back at the end */
    mem = (unsigned char *)npu__alloc(arena, ctx, off[NPU__IRP_END], "the IR");
    if (mem == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    ir = (npu_ir *)mem;
    ir->inputs = (npu_ir_io *)(mem + off[NPU__IRP_INPUTS]);
    ir->outputs = (npu_ir_io *)(mem + off[NPU__IRP_OUTPUTS]);
    ir->consts = (npu__ir_const *)(mem + off[NPU__IRP_CONSTS]);
    ir->states = (npu_ir_state *)(mem + off[NPU__IRP_STATES]);
    ir->pool = (char *)(mem + off[NPU__IRP_POOL]);
    ir->walk = (npu__ir_walker *)(mem + off[NPU__IRP_WALK]);
    ir->layers = (npu__ir_layer_rec *)(mem + off[NPU__IRP_LAYERS]);
    ir->ports = (npu__ir_port_rec *)(mem + off[NPU__IRP_PORTS]);
    atomic_flag_clear(&ir->walk_lock);
    ir->pool_cap = c.pool;
    ir->ctx = ctx;
    ir->xml = xml;
    ir->xml_len = xml_len;
    ir->bin = (const unsigned char *)bin;
    ir->bin_size = bin_size;   /* (0 without weights: both callers) */
    npu__strlcpy(ir->label, label, sizeof ir->label);
    ir->version = c.version;
    memcpy(ir->n_listed, c.listed, sizeof ir->n_listed);
    ir->n_var_layers = c.var_layers;
    ir->n_layers = c.layers;
    ir->n_ports = c.ports;
    ir->arena_bytes = off[NPU__IRP_LAYERS];

    wp = ir->walk;
    npu__ir_walk_init_ir(wp, NPU__W_FILL, ir);
    st = npu__ir_walk_run(wp);
    /* the counts before scopes (uint32_t: no padding) as the counting pass found them */
    if (st == NPU_OK && memcmp(&wp->c, &c, offsetof(npu__ir_counts, scopes)) != 0)
        st = npu__ir_changed(&wp->x);
    if (st == NPU_OK) {
        npu__heapsort(ir->layers, ir->n_layers, sizeof *ir->layers, npu__ir_layer_cmp);
        npu__heapsort(ir->ports, ir->n_ports, sizeof *ir->ports, npu__ir_port_cmp);
        for (i = 1; i < ir->n_layers && st == NPU_OK; i++) {
            if (npu__ir_layer_cmp(&ir->layers[i - 1], &ir->layers[i]) == 0) {
                const npu__ir_layer_rec *a = &ir->layers[i - 1], *b = &ir->layers[i];
                NPU__MSG_ONLY(if (a->pos > b->pos) {   /* a: the one first in the text */
                    a = b;
                    b = &ir->layers[i - 1];
                })
                NPU__UNUSED(a);
                NPU__UNUSED(b);
                /* (no layer part: the walk ended outside any layer) */
                st = npu__xml_fail(&wp->x, b->pos, NPU_ERR_PARSE, "duplicate layer id %lu (first used on line %lu)%s",
                                   (unsigned long)b->id, npu__xml_line(&wp->x, a->pos), b->scope ? " in a <body>" : "");
            }
        }
    }
    if (st == NPU_OK) {
        npu__ir_walk_init_ir(wp, NPU__W_EDGES, ir);
        st = npu__ir_walk_run(wp);
    }
    for (i = 0; i < ir->n_layers && st == NPU_OK; i++) {
        const npu__ir_layer_rec *r = &ir->layers[i];
        if (r->kind == NPU__KIND_RESULT && r->scope == 0 && r->edges_in == 0) {
            /* the layer part as npu__xml_fail adds it (the edge walk names no layer) */
            st = npu__xml_fail(&wp->x, r->pos, NPU_ERR_PARSE,
                               "Result layer without an incoming edge (layer '%.*s', id %lu)",
                               (int)(r->name_len > 80 ? 80 : r->name_len), wp->x.s + r->name, (unsigned long)r->id);
        }
    }
    /* kept: the IR and its persistent tables, or nothing */
    npu_arena_rewind(arena, mark + (st == NPU_OK ? off[NPU__IRP_LAYERS] : 0));
    if (st != NPU_OK) return st;
    ir->layers = NULL;
    ir->ports = NULL;
    *out = ir;
    return NPU_OK;
}

_Static_assert(sizeof(npu__ir_walker) <= NPU_IR_SIZE_SCRATCH, "NPU_IR_SIZE_SCRATCH holds the IR walker");

/* The counting pass of a size query, with its walker in `scratch`'s free
 * space (taken and handed back: the arena is left as it was). */
static npu_status npu__ir_size_in(npu_arena *scratch, npu_context *ctx, const char *label, const char *xml,
                                  size_t xml_len, size_t *bytes)
{
    npu__ir_counts c;
    size_t off[NPU__IRP_END + 1], mark;
    npu__ir_walker *w;
    npu_status st;
    mark = scratch->used;
    w = (npu__ir_walker *)npu__alloc(scratch, ctx, sizeof *w, "the IR size query's scratch (the XML walker)");
    if (w == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    st = npu__ir_query(ctx, label, xml, xml_len, &c, off, w);
    npu_arena_rewind(scratch, mark);
    if (st == NPU_OK) *bytes = off[NPU__IRP_END];
    return st;
}

NPU_API npu_status npu_ir_size(npu_arena *scratch, npu_context *ctx, const char *xml, size_t xml_len, size_t *bytes)
{
    if (scratch == NULL || xml == NULL || bytes == NULL)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_ir_size: NULL argument");
    return npu__ir_size_in(scratch, ctx, "IR XML", xml, xml_len, bytes);
}

NPU_API npu_status npu_ir_load_memory(npu_arena *arena, npu_context *ctx, const char *xml, size_t xml_len,
                              const void *weights, uint64_t weights_size, npu_ir **out)
{
    if (out != NULL) *out = NULL;
    if (arena == NULL || xml == NULL || out == NULL || (weights == NULL && weights_size != 0))
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT,
                         "npu_ir_load_memory: NULL arena, xml or out, or NULL weights with a nonzero size");
    return npu__ir_load(arena, ctx, "IR XML", xml, xml_len, weights, weights_size, out);
}

/* Maps a whole file read-only (npu__map_file); *map NULL unless mapped. A
 * zero-length file gives *map NULL; a missing one, when `missing` is not NULL,
 * sets *missing to 1 (else it is an error). */
static npu_status npu__ir_map(npu_context *ctx, const char *path, void **map, size_t *len, int *missing)
{
    int err;
    const char *why = npu__map_file(path, map, len, &err);
    if (why == NULL) return NPU_OK;
    if (missing != NULL && err == ENOENT) {
        *missing = 1;
        return NPU_OK;
    }
    return npu__fail(ctx, NPU_ERR_IO, "cannot read '%s': %s", path, why);
}

/* Unmaps what npu__ir_map mapped (NULL: nothing). */
NPU__NOINLINE static void npu__ir_unmap(void *xml_map, size_t xml_len, void *bin_map, size_t bin_len)
{
    if (xml_map) munmap(xml_map, xml_len);
    if (bin_map) munmap(bin_map, bin_len);
}

static const char *npu__ir_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

NPU_API npu_status npu_ir_size_file(npu_arena *scratch, npu_context *ctx, const char *xml_path, size_t *bytes)
{
    void *map;
    size_t len;
    npu_status st;
    if (scratch == NULL || xml_path == NULL || bytes == NULL)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_ir_size_file: NULL argument");
    st = npu__ir_map(ctx, xml_path, &map, &len, NULL);
    if (st != NPU_OK) return st;
    st = npu__ir_size_in(scratch, ctx, npu__ir_basename(xml_path), (const char *)map, len, bytes);
    npu__ir_unmap(map, len, NULL, 0);
    return st;
}

NPU_API npu_status npu_ir_open(npu_arena *arena, npu_context *ctx, const char *xml_path, const char *bin_path,
                       npu_ir **out)
{
    const char *bin_file = bin_path;   /* or the .bin next to the .xml: arena scratch, given back before loading */
    void *xml_map = NULL, *bin_map = NULL;
    size_t xml_len = 0, bin_len = 0, mark;
    int missing = 0;
    npu_ir *ir;
    npu_status st;
    if (out != NULL) *out = NULL;
    if (arena == NULL || xml_path == NULL || out == NULL)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_ir_open: NULL arena, xml_path or out");
    mark = arena->used;
    if (bin_path == NULL) {
        size_t n = strlen(xml_path);
        char *derived;
        if (n + 5 > 4096) return npu__fail(ctx, NPU_ERR_IO, "path too long: '%s'", xml_path);
        derived = (char *)npu__alloc(arena, ctx, n + 5, "the .bin path");
        if (derived == NULL) return NPU_ERR_ARENA_TOO_SMALL;
        memcpy(derived, xml_path, n + 1);
        if (n >= 4 && strcmp(derived + n - 4, ".xml") == 0) n -= 4;
        memcpy(derived + n, ".bin", 5);
        bin_file = derived;
    }
    st = npu__ir_map(ctx, xml_path, &xml_map, &xml_len, NULL);
    if (st == NPU_OK) st = npu__ir_map(ctx, bin_file, &bin_map, &bin_len, bin_path == NULL ? &missing : NULL);
    npu_arena_rewind(arena, mark);
    if (st == NPU_OK) {
        const char *xml = xml_map ? (const char *)xml_map : "";
        /* a zero-length .bin maps to nothing: use a non-NULL empty base */
        const void *bin = bin_map ? bin_map : (missing ? NULL : (const void *)"");
        st = npu__ir_load(arena, ctx, npu__ir_basename(xml_path), xml, xml_len, bin, bin_len, out);
    }
    if (st != NPU_OK) {   /* what was mapped (a failed map leaves NULL) */
        npu__ir_unmap(xml_map, xml_len, bin_map, bin_len);
        return st;
    }
    ir = *out;
    ir->xml_map = xml_map;
    ir->bin_map = bin_map;
    return NPU_OK;
}

NPU_API void npu_ir_close(npu_ir *ir)
{
    if (ir == NULL) return;
    npu__ir_unmap(ir->xml_map, ir->xml_len, ir->bin_map, (size_t)ir->bin_size);
    ir->xml_map = ir->bin_map = NULL;
    ir->xml = NULL;
    ir->xml_len = 0;
    ir->bin = NULL;
    ir->bin_size = 0;
    memset(ir->n_listed, 0, sizeof ir->n_listed);
    ir->n_states = 0;
}

/* ---- accessors and settings ------------------------------------------------ */

NPU_API size_t npu_ir_arena_bytes(const npu_ir *ir) { return ir ? ir->arena_bytes : 0; }
NPU_API uint32_t npu_ir_version(const npu_ir *ir) { return ir ? ir->version : 0; }

NPU_API const void *npu_ir_weights(const npu_ir *ir, uint64_t *size)
{
    if (size) *size = ir ? ir->bin_size : 0;
    return ir ? ir->bin : NULL;
}

NPU_API uint32_t npu_ir_input_count(const npu_ir *ir) { return ir ? ir->n_listed[NPU__LI_IN] : 0; }
NPU_API uint32_t npu_ir_output_count(const npu_ir *ir) { return ir ? ir->n_listed[NPU__LI_OUT] : 0; }
NPU_API uint32_t npu_ir_const_count(const npu_ir *ir) { return ir ? ir->n_listed[NPU__LI_CONST] : 0; }
NPU_API uint32_t npu_ir_state_count(const npu_ir *ir) { return ir ? ir->n_states : 0; }

/* Input or output `index` of ir, NULL if there is none. */
NPU__NOINLINE static const npu_ir_io *npu__ir_io(const npu_ir *ir, int output, uint32_t index)
{
    if (ir == NULL || index >= ir->n_listed[output ? NPU__LI_OUT : NPU__LI_IN]) return NULL;
    return output ? &ir->outputs[index] : &ir->inputs[index];
}

NPU_API const npu_ir_io *npu_ir_input(const npu_ir *ir, uint32_t index) { return npu__ir_io(ir, 0, index); }
NPU_API const npu_ir_io *npu_ir_output(const npu_ir *ir, uint32_t index) { return npu__ir_io(ir, 1, index); }

NPU_API const npu_ir_const *npu_ir_const_at(const npu_ir *ir, uint32_t index)
{
    return ir && index < ir->n_listed[NPU__LI_CONST] ? &ir->consts[index].pub : NULL;
}

NPU_API const npu_ir_state *npu_ir_state_at(const npu_ir *ir, uint32_t index)
{
    return ir && index < ir->n_states ? &ir->states[index] : NULL;
}

NPU_API npu_status npu_ir_set_layout(npu_ir *ir, int is_output, uint32_t index, const char *layout)
{
    npu_ir_io *io;
    size_t n, i;
    int axis;
    if (ir == NULL || layout == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (index >= (is_output ? ir->n_listed[NPU__LI_OUT] : ir->n_listed[NPU__LI_IN]))
        return npu__fail(ir->ctx, NPU_ERR_NOT_FOUND, "%s: no %s %lu (the IR has %lu)", ir->label,
                         is_output ? "output" : "input", (unsigned long)index,
                         (unsigned long)(is_output ? ir->n_listed[NPU__LI_OUT] : ir->n_listed[NPU__LI_IN]));
    io = is_output ? &ir->outputs[index] : &ir->inputs[index];
    n = strlen(layout);
    for (i = 0; i < n && npu__ir_layout_char(layout[i]); i++) continue;
    axis = (i == n && n < NPU_LAYOUT_MAX) ? npu__ir_layout_axis(layout, io->desc.shape.rank) : -2;
    if (axis == -2)
        return npu__fail(ir->ctx, NPU_ERR_INVALID_ARGUMENT,
                         "%s '%s': layout \"%.20s\" is not valid for rank %lu (letters, '?', one \"...\")",
                         is_output ? "output" : "input", io->desc.name, layout, (unsigned long)io->desc.shape.rank);
    memcpy(io->desc.layout, layout, n + 1);
    io->batch_axis = axis;
    return NPU_OK;
}

NPU_API npu_status npu_ir_set_batch(npu_ir *ir, int64_t batch, int64_t *original_batch)
{
    uint32_t i;
    int dynamic = 0;
    int64_t n = 0;
    const char *first = NULL;
    if (ir == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (batch < 0)
        return npu__fail(ir->ctx, NPU_ERR_INVALID_ARGUMENT, "%s: batch %lld is negative", ir->label, (long long)batch);
    for (i = 0; i < ir->n_listed[NPU__LI_IN]; i++) {
        const npu_ir_io *io = &ir->inputs[i];
        int64_t d;
        if (io->batch_axis < 0 || (uint32_t)io->batch_axis >= io->desc.shape.rank) continue;
        d = io->desc.shape.dims[io->batch_axis];
        if (d < 0) {
            dynamic = 1;
            continue;
        }
        if (first == NULL) {
            first = io->desc.name;
            n = d;
        } else if (d != n) {
            return npu__fail(ir->ctx, NPU_ERR_SHAPE,
                             "%s: inputs declare different batches: '%s' has %lld on axis %ld, '%s' has %lld",
                             ir->label, first, (long long)n, (long)ir->inputs[i].batch_axis, io->desc.name,
                             (long long)d);
        }
    }
    if (first == NULL && !dynamic)   /* no input has a static or a dynamic batch */
        return npu__fail(ir->ctx, NPU_ERR_NOT_FOUND, "%s: no input has a batch axis", ir->label);
    ir->batch = batch;
    if (original_batch) *original_batch = dynamic ? NPU_DIM_DYNAMIC : n;
    return NPU_OK;
}

/* ---- 8d. Payload writer ------------------------------------------------------ */

NPU_API npu_status npu_ir_write_payload(const npu_ir *ir, const npu_payload_options *opts, void *dst, size_t cap,
                                size_t *size)
{
    npu_payload_options o;
    npu__sink sink;
    npu__payload p;
    npu_ir *mir = (npu_ir *)(uintptr_t)ir;   /* the walker and its lock only */
    npu__ir_walker *w;
    npu_status st;
    uint32_t i;
    if (ir == NULL || size == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (opts != NULL) o = *opts;
    else memset(&o, 0, sizeof o);
    if (ir->xml == NULL) return npu__fail(ir->ctx, NPU_ERR_STATE, "%s: the IR was closed", ir->label);
    if (npu__check_reserved(ir->ctx, o.reserved, "npu_ir_write_payload: payload options") != NPU_OK)
        return NPU_ERR_INVALID_ARGUMENT;
    if (o.compiler_version == 0)
        return npu__fail(ir->ctx, NPU_ERR_INVALID_ARGUMENT, "%s: payload options: compiler_version is 0", ir->label);
    if ((unsigned)o.layout > (unsigned)NPU_PAYLOAD_WEIGHTS_COPY)
        return npu__fail(ir->ctx, NPU_ERR_INVALID_ARGUMENT, "%s: payload options: unknown layout %d", ir->label,
                         (int)o.layout);
    npu__sink_init(&sink, dst, cap);
    npu__payload_begin(&p, &sink, o.layout, o.compiler_version);
    if (p.layout == NPU_PAYLOAD_NO_WEIGHTS_COPY) {
        for (i = 0; i < ir->n_listed[NPU__LI_CONST]; i++) {
            const npu_ir_const *k = &ir->consts[i].pub;
            if (k->size < o.weights_threshold_bytes && k->size > 0) npu__sink_put(&sink, k->data, (size_t)k->size);
        }
    }
    npu__payload_mark_xml(&p);
    while (atomic_flag_test_and_set_explicit(&mir->walk_lock, memory_order_acquire)) sched_yield();
    w = mir->walk;
    npu__ir_walk_init_ir(w, NPU__W_WRITE, mir);
    w->sink = &sink;
    w->layout_b = p.layout == NPU_PAYLOAD_NO_WEIGHTS_COPY;
    w->threshold = o.weights_threshold_bytes;
    npu__wpa_keys(o.compiler_version, &w->wpa_ptr, &w->wpa_size);
    w->compiler_version = o.compiler_version;
    w->batch = ir->batch;
    mir->payload_written = 1;
    if (ir->pp_walk == NULL) {
        st = npu__ir_walk_run(w);
    } else {
        st = ir->pp_walk(w, NPU__PPE_BEGIN, NULL, 0);
        if (st == NPU_OK) st = npu__ir_walk_run(w);
        if (st == NPU_OK) st = ir->pp_walk(w, NPU__PPE_DONE, NULL, 0);
    }
    atomic_flag_clear_explicit(&mir->walk_lock, memory_order_release);
    if (st != NPU_OK) return st;
    npu__payload_end_xml(&p);
    if (p.layout == NPU_PAYLOAD_WEIGHTS_COPY && ir->pp_weights != NULL) ir->pp_weights(ir, &sink);
    else if (p.layout == NPU_PAYLOAD_WEIGHTS_COPY) npu__payload_weights(&p, ir->bin, ir->bin_size);
    return npu__sink_finish(&sink, ir->ctx, "IR payload", size);
}

/* ---- 8e. Preprocessing ------------------------------------------------------
 * npu_ir_set_preprocess / _set_postprocess: the operations OpenVINO's
 * PrePostProcessor inserts (openvinotoolkit/openvino,
 * src/core/src/preprocess/preprocess_steps_impl.cpp and pre_post_process.cpp),
 * planned once as a short chain of layers and written into every payload by
 * the walker's hooks (npu_ir.pp_walk): the Parameter (or Result) is written
 * anew with the caller's tensor, the chain's layers follow the model's at
 * </layers>, the edges that left the Parameter (or reached the Result) are
 * rewritten to the chain's end (start) and the chain's edges go before
 * </edges>. Reached only from the two entry points: a program that does not
 * call them links none of it. */

/* reshape: npu_ir_set_input_shape's plan, which only another shape clashes
 * with (a preprocess replaces it, npu__pp_commit). */
static npu_status npu__pp_begin(npu_ir *ir, npu_arena *arena, int output, uint32_t index, const uint32_t *reserved,
                                int reshape, const char *what, npu__pp **out)
{
    const npu__pp *q;
    const npu_ir_io *io;
    NPU__MSG_UNUSED(what);
    *out = NULL;
    if (ir == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (arena == NULL || reserved == NULL)
        return npu__fail(ir->ctx, NPU_ERR_INVALID_ARGUMENT, "%s: arena or options NULL", what);
    if (npu__check_reserved_n(ir->ctx, reserved, NPU_RESERVED_WORDS, what) != NPU_OK) return NPU_ERR_INVALID_ARGUMENT;
    if (ir->xml == NULL) return npu__fail(ir->ctx, NPU_ERR_STATE, "%s: %s was closed", what, ir->label);
    if (index >= (output ? ir->n_listed[NPU__LI_OUT] : ir->n_listed[NPU__LI_IN]))
        return npu__fail(ir->ctx, NPU_ERR_NOT_FOUND, "%s: %s has no %s %lu (it has %lu)", what, ir->label,
                         output ? "output" : "input", (unsigned long)index,
                         (unsigned long)(output ? ir->n_listed[NPU__LI_OUT] : ir->n_listed[NPU__LI_IN]));
    io = output ? &ir->outputs[index] : &ir->inputs[index];
    if (ir->payload_written)
        return npu__fail(ir->ctx, NPU_ERR_STATE,
                         "%s: %s '%s': %s has already been compiled (a payload was written); set pre- and "
                         "postprocessing before the first compile",
                         what, output ? "output" : "input", io->desc.name, ir->label);
    for (q = ir->pp; q != NULL; q = q->next)
        if (q->output == output && q->index == index && (reshape || !q->reshape))
            return npu__fail(ir->ctx, NPU_ERR_STATE, "%s: %s '%s' already has %s set", what,
                             output ? "output" : "input", io->desc.name,
                             output ? "postprocessing" : q->reshape ? "a shape" : "preprocessing");
    if (!npu__type_valid(io->desc.type) || io->desc.shape.rank > NPU_MAX_RANK)
        return npu__fail(ir->ctx, NPU_ERR_UNSUPPORTED, "%s: %s '%s' has element type %s", what,
                         output ? "output" : "input", io->desc.name, io->element_type);
    if (npu__pp_new(ir->ctx, arena, output, index, what, out) != NPU_OK) return NPU_ERR_ARENA_TOO_SMALL;
    (*out)->model = io->desc;
    (*out)->model_batch_axis = io->batch_axis;
    return NPU_OK;
}

static npu_status npu__pp_walk(npu__ir_walker *w, int event, const npu__xml_token *t, size_t pos);
static void npu__pp_weights(const npu_ir *ir, npu__sink *s);
static void npu__pp_key(const npu_ir *ir, npu__sink *s);
static void npu__pp_consts(const npu_ir *ir, npu__bytes_fn take, void *state);

/* Links a finished plan and makes the I/O report the caller's tensor. */
static void npu__pp_commit(npu_ir *ir, npu__pp *p, npu_type type, const npu_shape *shape, const char *layout)
{
    npu_ir_io *io = p->output ? &ir->outputs[p->index] : &ir->inputs[p->index];
    npu__pp **tail = &ir->pp;
    uint64_t elems, size;
    while (*tail != NULL) {   /* a preprocess replaces the input's reshape plan (its model is the new shape) */
        if ((*tail)->reshape && !p->output && (*tail)->index == p->index) *tail = (*tail)->next;
        else tail = &(*tail)->next;
    }
    *tail = p;
    io->desc.type = type;
    io->element_type = npu__types[type].ov_name;
    io->desc.shape = *shape;
    npu__strlcpy(io->desc.layout, layout, sizeof io->desc.layout);
    elems = npu__shape_elements_dyn1(shape);
    size = npu_type_size(type);
    io->desc.bytes = size != 0 && elems > UINT64_MAX / size ? 0 : elems * size;   /* 0: overflows */
    io->batch_axis = shape->rank == 0 ? -1 : npu__ir_layout_axis(layout, shape->rank);
    if (io->batch_axis < 0 && shape->rank > 0) io->batch_axis = 0;
    ir->pp_walk = npu__pp_walk;
    ir->pp_weights = npu__pp_weights;
    ir->pp_key = npu__pp_key;
    ir->pp_consts = npu__pp_consts;
}

static npu_status npu__pp_fail(npu_ir *ir, npu_arena *arena, size_t mark, npu_status st, const char *what,
                               const npu__pp *p, const char *why)
{
    NPU__MSG_UNUSED(what);
    NPU__MSG_UNUSED(why);
    NPU__MSG_UNUSED(p);
    st = npu__fail(ir->ctx, st, "%s: %s '%s': %s", what, p->output ? "output" : "input", p->model.name, why);
    npu_arena_rewind(arena, mark);
    return st;
}

NPU_API npu_status npu_ir_set_input_shape(npu_ir *ir, npu_arena *arena, uint32_t input, const npu_shape *shape)
{
    static const char what[] = "npu_ir_set_input_shape";
    static const uint32_t no_options[NPU_RESERVED_WORDS] = {0};
    char layout[NPU_LAYOUT_MAX];
    npu__pp *p;
    uint32_t i;
    size_t mark = arena ? arena->used : 0;
    npu_status st;
    if (ir == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (shape == NULL) return npu__fail(ir->ctx, NPU_ERR_INVALID_ARGUMENT, "%s: shape is NULL", what);
    st = npu__pp_begin(ir, arena, 0, input, no_options, 1, what, &p);
    if (st != NPU_OK) return st;
    if (shape->rank != p->model.shape.rank)
        return npu__pp_fail(ir, arena, mark, NPU_ERR_INVALID_ARGUMENT, what, p,
                            "the shape's rank differs from the input's (npu reshapes, it does not add axes)");
    for (i = 0; i < shape->rank; i++) {
        if ((int32_t)i == p->model_batch_axis) {
            /* The batch stays the IR's: npu_ir_set_batch and debatching own it,
             * and compare the outputs' batch with the one the IR declares. */
            if (shape->dims[i] != p->model.shape.dims[i])
                return npu__pp_fail(ir, arena, mark, NPU_ERR_INVALID_ARGUMENT, what, p,
                                    "the batch axis must keep the IR's dim (set the batch with npu_ir_set_batch)");
        } else if (shape->dims[i] < 1 || shape->dims[i] > NPU_IR_MAX_DIM_VALUE) {
            return npu__pp_fail(ir, arena, mark, NPU_ERR_INVALID_ARGUMENT, what, p,
                                "every dim but the batch must be static, from 1 to NPU_IR_MAX_DIM_VALUE");
        }
    }
    p->reshape = 1;
    npu__strlcpy(layout, p->model.layout, sizeof layout);
    npu__pp_commit(ir, p, p->model.type, shape, layout);
    return NPU_OK;
}

NPU_API npu_status npu_ir_set_preprocess(npu_ir *ir, npu_arena *arena, uint32_t input, const npu_preprocess *pp)
{
    static const char what[] = "npu_ir_set_preprocess";
    npu__pp *p;
    npu_shape us;
    int32_t ub;
    const char *why, *ul;
    npu_type ut;
    size_t mark = arena ? arena->used : 0;
    npu_status st = npu__pp_begin(ir, arena, 0, input, pp ? pp->reserved : NULL, 0, what, &p);
    if (st != NPU_OK) return st;
    ut = pp->type == NPU_TYPE_UNDEFINED ? p->model.type : pp->type;
    ul = pp->layout == NULL || pp->layout[0] == '\0' ? p->model.layout : pp->layout;
    if (!npu__type_valid(ut)) why = "unknown element type";
    else why = npu__pp_plan_input(p, pp, ut, ul, &us, &ub);
    if (why != NULL) return npu__pp_fail(ir, arena, mark, NPU_ERR_INVALID_ARGUMENT, what, p, why);
    NPU__UNUSED(ub);
    npu__pp_commit(ir, p, ut, &us, ul);
    return NPU_OK;
}

/* OpenVINO's PrePostProcessor (src/core/src/preprocess/preprocess_impls.cpp,
 * OutputInfo::OutputInfoImpl::build) moves an output's tensor names from the
 * tensor feeding the Result to the end of the chain, gives the chain's end the
 * producer's friendly name (".<output index>" appended when the producer has
 * several outputs) and resets the producer's own name when it has one output.
 * This finds that producer for plan p: the top-level <edge> into the Result,
 * then (second scan) the top-level <layer> it leaves, its output ports, and
 * whether the same port feeds another output's Result. The scans use the
 * IR's walker for the scanner's state (under its lock); the text was checked
 * when the IR was loaded. No producer found (an IR whose Result has no edge):
 * src_found stays 0 and the chain is written without names. */
static npu_status npu__pp_find_source(npu_ir *ir, npu__pp *p)
{
    const npu_ir_io *io = &ir->outputs[p->index];
    npu__ir_walker *w;
    npu__xml_token t;
    npu__xml_attribute a;
    uint64_t v[3];
    uint32_t j;
    int pass, in_layer = 0, in_output = 0, parent = 0;
    npu_status st = NPU_OK;
    while (atomic_flag_test_and_set_explicit(&ir->walk_lock, memory_order_acquire)) sched_yield();
    w = ir->walk;
    for (pass = 0; pass < 2 && st == NPU_OK && (pass == 0 || p->src_found); pass++) {
        npu__ir_walk_init(w, NPU__W_COUNT, ir->ctx, ir->label, ir->xml, ir->xml_len, ir);
        for (;;) {
            unsigned depth;
            st = npu__xml_next(&w->x, &t);
            if (st != NPU_OK || t.kind == NPU__XML_EOF) break;
            if (t.kind == NPU__XML_END_TAG) {
                if (w->x.depth == 3) in_output = 0;
                if (w->x.depth == 2) in_layer = 0;   /* a top-level </layer> (or </edge>) */
                continue;
            }
            if (t.kind != NPU__XML_START_TAG) continue;
            depth = t.self_closing ? w->x.depth : w->x.depth - 1;
            if (depth == 1) {   /* 1: <layers>, 2: <edges>, else 0 */
                parent = npu__xml_eq(&w->x, t.name, t.name_len, "layers")  ? 1
                         : npu__xml_eq(&w->x, t.name, t.name_len, "edges") ? 2
                                                                            : 0;
            } else if (depth == 2 && parent == 2 && npu__xml_eq(&w->x, t.name, t.name_len, "edge")) {
                if (npu__ir_attr_num(&w->x, &t, "from-layer", UINT32_MAX, &v[0], &a) != 1 ||
                    npu__ir_attr_num(&w->x, &t, "from-port", UINT32_MAX, &v[1], &a) != 1 ||
                    npu__ir_attr_num(&w->x, &t, "to-layer", UINT32_MAX, &v[2], &a) != 1)
                    continue;
                if (pass == 0 && v[2] == io->layer_id && !p->src_found) {
                    p->src_found = 1;
                    p->src_layer = (uint32_t)v[0];
                    p->src_port = (uint32_t)v[1];
                } else if (pass == 1 && v[0] == p->src_layer && v[1] == p->src_port && v[2] != io->layer_id) {
                    for (j = 0; j < ir->n_listed[NPU__LI_OUT]; j++)
                        if (ir->outputs[j].layer_id == v[2]) p->src_shared = 1;
                }
            } else if (pass == 1 && depth == 2 && parent == 1 && npu__xml_eq(&w->x, t.name, t.name_len, "layer")) {
                in_layer = npu__ir_attr_num(&w->x, &t, "id", UINT32_MAX, &v[0], &a) == 1 && v[0] == p->src_layer &&
                           !t.self_closing;
                if (in_layer && npu__xml_attr(&w->x, &t, "name", &a)) {
                    p->src_name = a.value;
                    p->src_name_len = a.value_len;
                }
                if (in_layer && npu__xml_attr(&w->x, &t, "type", &a)) {
                    p->src_type = a.value;
                    p->src_type_len = a.value_len;
                }
            } else if (in_layer && depth == 3) {
                in_output = !t.self_closing && npu__xml_eq(&w->x, t.name, t.name_len, "output");
            } else if (in_output && depth == 4 && npu__xml_eq(&w->x, t.name, t.name_len, "port")) {
                if (npu__ir_attr_num(&w->x, &t, "id", UINT32_MAX, &v[0], &a) == 1 && v[0] == p->src_port)
                    p->src_index = p->src_outputs;
                p->src_outputs++;
            }
        }
    }
    atomic_flag_clear_explicit(&ir->walk_lock, memory_order_release);
    if (p->src_found && p->src_outputs == 0) p->src_found = 0;   /* the edge names no layer's output */
    return st;
}

NPU_API npu_status npu_ir_set_postprocess(npu_ir *ir, npu_arena *arena, uint32_t output, const npu_postprocess *pp)
{
    static const char what[] = "npu_ir_set_postprocess";
    npu__pp *p;
    npu_shape sh;
    const char *ul, *why;
    npu_type ut;
    size_t mark = arena ? arena->used : 0;
    npu_status st = npu__pp_begin(ir, arena, 1, output, pp ? pp->reserved : NULL, 0, what, &p);
    if (st != NPU_OK) return st;
    ut = pp->type == NPU_TYPE_UNDEFINED ? p->model.type : pp->type;
    ul = pp->layout == NULL || pp->layout[0] == '\0' ? p->model.layout : pp->layout;
    why = npu__pp_plan_output(p, ut, ul, &sh);
    if (why != NULL) return npu__pp_fail(ir, arena, mark, NPU_ERR_INVALID_ARGUMENT, what, p, why);
    st = p->n > 0 ? npu__pp_find_source(ir, p) : NPU_OK;   /* no step: the output stays as it is */
    if (st != NPU_OK) {
        npu_arena_rewind(arena, mark);
        return st;
    }
    npu__pp_commit(ir, p, ut, &sh, ul);
    return NPU_OK;
}

/* ---- writing the chain ---- */

static void npu__pp_dims(npu__sink *s, const npu_shape *sh, int32_t batch_axis, int64_t batch)
{
    uint32_t i;
    for (i = 0; i < sh->rank; i++) {
        int64_t d = batch > 0 && (int32_t)i == batch_axis ? batch : sh->dims[i];
        npu__sink_str(s, "<dim>");
        npu__sink_i64_dec(s, d < 0 ? -1 : d);
        npu__sink_str(s, "</dim>");
    }
}

static void npu__pp_port(npu__sink *s, uint32_t id, npu_type type, const npu_shape *sh, int32_t batch_axis,
                         int64_t batch, const char *names, const char *layout)
{
    npu__sink_str(s, "<port id=\"");
    npu__sink_u64_dec(s, id);
    npu__sink_str(s, "\" precision=\"");
    npu__sink_str(s, npu__types[type].ov_precision);
    npu__sink_str(s, "\"");
    if (names != NULL && names[0] != '\0') {
        npu__sink_str(s, " names=\"");
        npu__sink_xml_escaped(s, names, strlen(names));
        npu__sink_str(s, "\"");
    }
    npu__sink_str(s, ">");
    npu__pp_dims(s, sh, batch_axis, batch);
    if (layout != NULL && layout[0] != '\0') {
        size_t i;
        npu__sink_str(s, "<rt_info><attribute name=\"layout\" version=\"0\" layout=\"[");
        for (i = 0; layout[i] != '\0'; i++) {
            if (i) npu__sink_str(s, ",");
            npu__sink_put(s, &layout[i], 1);
        }
        npu__sink_str(s, "]\"/></rt_info>");
    }
    npu__sink_str(s, "</port>");
}

/* name: n bytes of the file's text (as escaped there), then "."<index>
 * unless index is negative. */
static void npu__pp_layer_head(npu__sink *s, uint32_t id, const char *name, size_t n, int64_t index,
                               const char *type, const char *version)
{
    npu__sink_str(s, "\n\t\t<layer id=\"");
    npu__sink_u64_dec(s, id);
    npu__sink_str(s, "\" name=\"");
    while (n > 0) {   /* the file's value may have been in '...' with a '"' in it */
        size_t k = 0;
        while (k < n && name[k] != '"') k++;
        npu__sink_put(s, name, k);
        if (k < n) {
            npu__sink_str(s, "&quot;");
            k++;
        }
        name += k;
        n -= k;
    }
    if (index >= 0) {
        npu__sink_str(s, ".");
        npu__sink_i64_dec(s, index);
    }
    npu__sink_str(s, "\" type=\"");
    npu__sink_str(s, type);
    npu__sink_str(s, "\" version=\"");
    npu__sink_str(s, version);
    npu__sink_str(s, "\">");
}

/* The Parameter or Result of plan p, anew, for the caller's tensor. */
static void npu__pp_io_layer(npu__ir_walker *w, const npu__pp *p, const npu__ir_open_layer *l)
{
    const npu_ir_io *io = p->output ? &w->ir->outputs[p->index] : &w->ir->inputs[p->index];
    npu__sink *s = w->sink;
    int64_t batch = w->batch;
    uint32_t i;
    npu__pp_layer_head(s, l->id, w->x.s + l->name, l->name_len, -1, p->output ? "Result" : "Parameter", "opset1");
    if (!p->output) {
        npu__sink_str(s, "<data shape=\"");
        for (i = 0; i < io->desc.shape.rank; i++) {
            int64_t d = batch > 0 && (int32_t)i == io->batch_axis ? batch : io->desc.shape.dims[i];
            if (i) npu__sink_str(s, ",");
            if (d < 0) npu__sink_str(s, "?");
            else npu__sink_i64_dec(s, d);
        }
        npu__sink_str(s, "\" element_type=\"");
        npu__sink_str(s, io->element_type);
        npu__sink_str(s, "\"/><output>");
        npu__pp_port(s, 0, io->desc.type, &io->desc.shape, io->batch_axis, batch, io->tensor_names, io->desc.layout);
        npu__sink_str(s, "</output>");
    } else {
        npu__sink_str(s, "<input>");
        npu__pp_port(s, 0, io->desc.type, &io->desc.shape, io->batch_axis, batch, NULL, io->desc.layout);
        npu__sink_str(s, "</input>");
    }
    npu__sink_str(s, "</layer>");
}

static const char *const npu__pp_op_names[][2] = {
    {"Const", "opset1"}, {"Convert", "opset1"}, {"Transpose", "opset1"}, {"Gather", "opset8"},
    {"Interpolate", "opset11"}, {"Subtract", "opset1"}, {"Divide", "opset1"}, {"Convolution", "opset1"}};

/* Weights offset (layout A) of the plan's data: after the .bin and the plans before it. */
static uint64_t npu__pp_base(const npu_ir *ir, const npu__pp *p)
{
    const npu__pp *q;
    uint64_t base = ir->bin_size;
    for (q = ir->pp; q != NULL && q != p; q = q->next) base += q->data_used;
    return base;
}

static void npu__pp_chain_layers(npu__ir_walker *w, const npu__pp *p)
{
    npu__sink *s = w->sink;
    uint32_t k, j;
    /* An output chain's end takes the producer's name, with ".<output
     * index>" when the producer has several outputs, and the output's tensor
     * names (npu__pp_find_source); the other chain layers have none. */
    const int named = p->output && p->src_found;
    for (k = 0; k < p->n; k++) {
        const npu__pp_layer *L = &p->l[k];
        const int end = named && k + 1 == p->n;
        npu__pp_layer_head(s, p->first_id + k, w->x.s + (end ? p->src_name : 0), end ? p->src_name_len : 0,
                           end && p->src_outputs > 1 ? (int64_t)p->src_index : -1, npu__pp_op_names[L->op][0],
                           npu__pp_op_names[L->op][1]);
        switch (L->op) {
        case NPU__PPL_CONST:
            npu__sink_str(s, "<data element_type=\"");
            npu__sink_str(s, npu__types[L->type].ov_name);
            npu__sink_str(s, "\" shape=\"");
            for (j = 0; j < L->shape.rank; j++) {
                if (j) npu__sink_str(s, ",");
                npu__sink_i64_dec(s, L->shape.dims[j]);
            }
            npu__sink_str(s, "\" offset=\"");
            npu__sink_u64_dec(s, w->layout_b ? 0 : npu__pp_base(w->ir, p) + L->off);
            npu__sink_str(s, "\" size=\"");
            npu__sink_u64_dec(s, L->bytes);
            npu__sink_str(s, "\"/>");
            if (w->layout_b) {   /* by pointer, into the plan in the caller's arena */
                npu__sink_str(s, "<rt_info><attribute name=\"WeightsPointerAttribute\" version=\"0\" ");
                npu__sink_str(s, w->wpa_ptr);
                npu__sink_str(s, "=\"");
                npu__sink_u64_dec(s, (uint64_t)(uintptr_t)(p->data + L->off));
                npu__sink_str(s, "\" ");
                npu__sink_str(s, w->wpa_size);
                npu__sink_str(s, "=\"");
                npu__sink_u64_dec(s, L->bytes);
                npu__sink_str(s, "\"/></rt_info>");
            }
            break;
        case NPU__PPL_CONVERT:
            npu__sink_str(s, "<data destination_type=\"");
            npu__sink_str(s, npu__types[L->type].ov_name);
            npu__sink_str(s, "\"/>");
            break;
        case NPU__PPL_GATHER: npu__sink_str(s, "<data batch_dims=\"0\"/>"); break;
        case NPU__PPL_INTERP:
            npu__sink_str(s, "<data mode=\"");
            npu__sink_str(s, L->nearest ? "nearest" : "linear");
            npu__sink_str(s, "\" shape_calculation_mode=\"sizes\" coordinate_transformation_mode=\"half_pixel\" "
                             "nearest_mode=\"round_prefer_floor\" antialias=\"false\" pads_begin=\"0,0\" "
                             "pads_end=\"0,0\" cube_coeff=\"-0.75\"/>");
            break;
        case NPU__PPL_SUB:
        case NPU__PPL_DIV: npu__sink_str(s, "<data auto_broadcast=\"numpy\"/>"); break;
        case NPU__PPL_CONV:
            npu__sink_str(s, "<data strides=\"1,1\" dilations=\"1,1\" pads_begin=\"0,0\" pads_end=\"0,0\" "
                             "auto_pad=\"explicit\"/>");
            break;
        default: break;
        }
        if (L->n_in > 0) {
            npu__sink_str(s, "<input>");
            for (j = 0; j < L->n_in; j++) {
                uint32_t src = L->in[j];
                if (src == NPU__PP_SRC) {
                    const npu_ir_io *io = p->output ? &w->ir->outputs[p->index] : &w->ir->inputs[p->index];
                    if (p->output)
                        npu__pp_port(s, j, p->model.type, &p->model.shape, p->model_batch_axis, w->batch, NULL, NULL);
                    else
                        npu__pp_port(s, j, io->desc.type, &io->desc.shape, io->batch_axis, w->batch, NULL, NULL);
                } else {
                    npu__pp_port(s, j, p->l[src].type, &p->l[src].shape, p->l[src].batch_axis, w->batch, NULL, NULL);
                }
            }
            npu__sink_str(s, "</input>");
        }
        npu__sink_str(s, "<output>");
        npu__pp_port(s, L->n_in, L->type, &L->shape, L->batch_axis, w->batch,
                     end ? w->ir->outputs[p->index].tensor_names : NULL, NULL);
        npu__sink_str(s, "</output></layer>");
    }
}

static void npu__pp_edge(npu__sink *s, uint32_t from, uint32_t from_port, uint32_t to, uint32_t to_port)
{
    npu__sink_str(s, "\n\t\t<edge from-layer=\"");
    npu__sink_u64_dec(s, from);
    npu__sink_str(s, "\" from-port=\"");
    npu__sink_u64_dec(s, from_port);
    npu__sink_str(s, "\" to-layer=\"");
    npu__sink_u64_dec(s, to);
    npu__sink_str(s, "\" to-port=\"");
    npu__sink_u64_dec(s, to_port);
    npu__sink_str(s, "\"/>");
}

/* Rewrites the values of two attributes of an edge (in text order). */
static void npu__pp_rewrite2(npu__ir_walker *w, const npu__xml_attribute *a, uint32_t va, const npu__xml_attribute *b,
                             uint32_t vb)
{
    const npu__xml_attribute *first = a->value < b->value ? a : b, *second = first == a ? b : a;
    npu__ir_walk_emit_upto(w, first->value);
    npu__sink_u64_dec(w->sink, first == a ? va : vb);
    w->copied = first->value + first->value_len;
    npu__ir_walk_emit_upto(w, second->value);
    npu__sink_u64_dec(w->sink, first == a ? vb : va);
    w->copied = second->value + second->value_len;
}

/* Letters, digits, '_', '.' and '-' only (an op type, safe in any attribute).
 * Not npu__xml_name_char: calling it from here changes gcc's inlining of it
 * in the IR loader (+26 bytes in make size's IR program). */
static int npu__pp_plain_word(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '_' || s[i] == '.' || s[i] == '-'))
            return 0;
    return n > 0;
}

static npu_status npu__pp_walk(npu__ir_walker *w, int event, const npu__xml_token *t, size_t pos)
{
    npu_ir *ir = w->ir;
    npu__pp *p;
    NPU__UNUSED(pos);
    switch (event) {
    case NPU__PPE_BEGIN:
        ir->pp_next_id = 0;
        ir->pp_stage = 0;
        for (p = ir->pp; p != NULL; p = p->next) p->io_seen = 0;
        return NPU_OK;
    case NPU__PPE_LAYER: {
        npu__ir_open_layer *l = &w->lstack[w->ldepth - 1];
        if (l->id >= ir->pp_next_id) ir->pp_next_id = l->id + 1;
        if (ir->pp_stage != 0)
            return npu__xml_fail(&w->x, t->begin, NPU_ERR_UNSUPPORTED,
                                 "preprocessing needs every layer before <edges>");
        /* A one-output producer of a postprocessed output gives its name to
         * the chain's end and takes "<type>_<id>" (OpenVINO resets it; its
         * serializer then writes "<type>_<instance>"). Not a Parameter: the
         * build flags of compilers before 5.9 name inputs by their layer; not
         * a producer that also feeds another output, which keeps reading it. */
        for (p = ir->pp; p != NULL && l->kind != NPU__KIND_PARAMETER && l->name_len > 0; p = p->next) {
            if (p->output && p->src_found && !p->src_shared && p->src_outputs == 1 && p->src_layer == l->id &&
                npu__pp_plain_word(w->x.s + p->src_type, p->src_type_len)) {
                npu__ir_walk_emit_upto(w, l->name);
                npu__sink_put(w->sink, w->x.s + p->src_type, p->src_type_len);
                npu__sink_str(w->sink, "_");
                npu__sink_u64_dec(w->sink, l->id);
                w->copied = l->name + l->name_len;
                break;
            }
        }
        if (l->kind != NPU__KIND_PARAMETER && l->kind != NPU__KIND_RESULT) return NPU_OK;
        for (p = ir->pp; p != NULL; p = p->next)
            if (p->output == (l->kind == NPU__KIND_RESULT) && p->index == l->index) break;
        if (p == NULL) return NPU_OK;
        npu__ir_walk_emit_upto(w, l->pos);
        p->io_id = l->id;
        p->io_seen = 1;
        npu__pp_io_layer(w, p, l);
        l->kind = NPU__KIND_REPLACED;
        return NPU_OK;
    }
    case NPU__PPE_LAYERS_END:
        npu__ir_walk_emit_upto(w, t->begin);
        for (p = ir->pp; p != NULL; p = p->next) {
            if (!p->io_seen) return npu__xml_fail(&w->x, t->begin, NPU_ERR_STATE, "preprocessing: the I/O layer is gone");
            if (ir->pp_next_id > UINT32_MAX - 1u - NPU__PP_MAX_LAYERS)
                return npu__xml_fail(&w->x, t->begin, NPU_ERR_LIMIT, "preprocessing: layer ids run out");
            p->first_id = ir->pp_next_id;
            ir->pp_next_id += p->n;
            npu__pp_chain_layers(w, p);
        }
        npu__sink_str(w->sink, "\n\t");
        ir->pp_stage = 1;
        return NPU_OK;
    case NPU__PPE_EDGE: {
        npu__xml_attribute fl, fp, tl, tp;
        uint64_t from = 0, to = 0;
        if (ir->pp_stage != 1)
            return npu__xml_fail(&w->x, t->begin, NPU_ERR_UNSUPPORTED, "preprocessing needs <layers> before <edges>");
        npu__xml_attr(&w->x, t, "from-layer", &fl);
        npu__xml_attr(&w->x, t, "from-port", &fp);
        npu__xml_attr(&w->x, t, "to-layer", &tl);
        npu__xml_attr(&w->x, t, "to-port", &tp);
        npu__ir_u64(w->x.s + fl.value, fl.value_len, UINT32_MAX, &from);
        npu__ir_u64(w->x.s + tl.value, tl.value_len, UINT32_MAX, &to);
        for (p = ir->pp; p != NULL; p = p->next) {
            if (p->n == 0) continue;
            if (!p->output && from == p->io_id)
                npu__pp_rewrite2(w, &fl, p->first_id + p->n - 1, &fp, p->l[p->n - 1].n_in);
            else if (p->output && to == p->io_id)
                npu__pp_rewrite2(w, &tl, p->first_id, &tp, 0);   /* the chain starts with its data op */
        }
        return NPU_OK;
    }
    case NPU__PPE_PORT: {   /* the producer's port gives its tensor names to the chain's end:
                             * moved, but copied from a Parameter (the input keeps its
                             * names) and from a port that also feeds another output */
        const npu__ir_open_layer *l = &w->lstack[w->ldepth - 1];
        npu__xml_attribute a;
        if (w->port_dir != 1 || l->kind == NPU__KIND_REPLACED || l->kind == NPU__KIND_PARAMETER) return NPU_OK;
        for (p = ir->pp; p != NULL; p = p->next) {
            if (p->output && p->src_found && !p->src_shared && p->src_layer == l->id && p->src_port == w->port_id &&
                npu__xml_attr(&w->x, t, "names", &a)) {
                npu__ir_walk_emit_upto(w, a.name);
                w->copied = a.value + a.value_len + 1;   /* through the closing quote */
                break;
            }
        }
        return NPU_OK;
    }
    case NPU__PPE_EDGES_END:
        npu__ir_walk_emit_upto(w, t->begin);
        for (p = ir->pp; p != NULL; p = p->next) {
            uint32_t k, j;
            for (k = 0; k < p->n; k++)
                for (j = 0; j < p->l[k].n_in; j++) {
                    uint32_t src = p->l[k].in[j];
                    if (src != NPU__PP_SRC) npu__pp_edge(w->sink, p->first_id + src, p->l[src].n_in, p->first_id + k, j);
                    else if (!p->output) npu__pp_edge(w->sink, p->io_id, 0, p->first_id + k, j);
                }
            if (p->output && p->n > 0) npu__pp_edge(w->sink, p->first_id + p->n - 1, p->l[p->n - 1].n_in, p->io_id, 0);
        }
        npu__sink_str(w->sink, "\n\t");
        ir->pp_stage = 2;
        return NPU_OK;
    default:
        if (ir->pp_stage != 2)
            return npu__fail(ir->ctx, NPU_ERR_UNSUPPORTED, "%s: preprocessing needs a <layers> and an <edges> element",
                             ir->label);
        return NPU_OK;
    }
}

/* Layout A's weights: the .bin, then every plan's constants. */
static void npu__pp_weights(const npu_ir *ir, npu__sink *s)
{
    const npu__pp *p;
    uint64_t total = ir->bin_size;
    for (p = ir->pp; p != NULL; p = p->next) total += p->data_used;
    npu__sink_le(s, total, 8);
    if (ir->bin_size > SIZE_MAX) s->overflow = 1;
    else if (ir->bin_size > 0) npu__sink_put(s, ir->bin, (size_t)ir->bin_size);
    for (p = ir->pp; p != NULL; p = p->next) npu__sink_put(s, p->data, p->data_used);
}

/* Every plan's constants (the driver's input hash, the cache key). */
static void npu__pp_consts(const npu_ir *ir, npu__bytes_fn take, void *state)
{
    const npu__pp *p;
    for (p = ir->pp; p != NULL; p = p->next) take(state, p->data, p->data_used);
}

/* The cache key's part: every plan as it is written, without addresses. */
static void npu__pp_key(const npu_ir *ir, npu__sink *s)
{
    const npu__pp *p;
    for (p = ir->pp; p != NULL; p = p->next) {
        const npu_ir_io *io = p->output ? &ir->outputs[p->index] : &ir->inputs[p->index];
        uint32_t k;
        npu__sink_str(s, p->output ? "\npost " : "\npre ");
        npu__sink_u64_dec(s, p->index);
        npu__sink_str(s, io->element_type);
        npu__sink_str(s, io->desc.layout);
        npu__pp_dims(s, &io->desc.shape, -1, 0);
        for (k = 0; k < p->n; k++) {
            npu__sink_str(s, npu__pp_op_names[p->l[k].op][0]);
            npu__sink_put(s, p->l[k].in, sizeof p->l[k].in);
            npu__sink_put(s, &p->l[k].nearest, 1);
            npu__sink_str(s, npu__types[p->l[k].type].ov_name);
            npu__pp_dims(s, &p->l[k].shape, -1, 0);
        }
        npu__sink_put(s, p->data, p->data_used);
    }
}

#ifndef NPU_NO_LEVEL_ZERO
/* ---- The IR as a model source (npu__source, section 1) ---- */

static const char *npu__isrc_label(const void *src) { return ((const npu_ir *)src)->label; }

static uint32_t npu__isrc_ir_version(const void *src) { return ((const npu_ir *)src)->version; }

static uint32_t npu__isrc_count(const void *src, int what)
{
    const npu_ir *ir = (const npu_ir *)src;
    return what == 0 ? ir->n_listed[NPU__LI_IN] : what == 1 ? ir->n_listed[NPU__LI_OUT] : ir->n_states;
}

NPU__NOINLINE static npu_status npu__isrc_desc(const void *src, int output, uint32_t i, npu_tensor_desc *out)
{
    const npu_ir_io *io = npu__ir_io((const npu_ir *)src, output, i);
    if (io == NULL) return NPU_ERR_NOT_FOUND;
    *out = io->desc;
    return NPU_OK;
}

static npu_status npu__isrc_input(const void *src, uint32_t i, npu_tensor_desc *out)
{
    return npu__isrc_desc(src, 0, i, out);
}

static npu_status npu__isrc_output(const void *src, uint32_t i, npu_tensor_desc *out)
{
    return npu__isrc_desc(src, 1, i, out);
}

/* The axis npu_ir_set_batch rewrites (npu_ir_io.batch_axis). */
static uint32_t npu__isrc_batch_axis(const void *src, int output, uint32_t i, const npu_tensor_desc *d)
{
    const npu_ir_io *io = npu__ir_io((const npu_ir *)src, output, i);
    NPU__UNUSED(d);
    return io == NULL || io->batch_axis < 0 ? 0u : (uint32_t)io->batch_axis;
}

static int64_t npu__isrc_batch(const void *src) { return ((const npu_ir *)src)->batch; }

static npu_status npu__isrc_set_batch(const void *src, int64_t batch)
{
    return npu_ir_set_batch((npu_ir *)(uintptr_t)src, batch, NULL);
}

static npu_status npu__isrc_payload(const void *src, const npu_payload_options *po, const npu_compile_options *o,
                                    void *dst, size_t cap, size_t *size)
{
    NPU__UNUSED(o);   /* an IR leaves the type overrides to the compiler (IR v10 only) */
    return npu_ir_write_payload((const npu_ir *)src, po, dst, cap, size);
}

/* The XML text as it is. */
static npu_status npu__isrc_structure(const void *src, npu__sink *s)
{
    const npu_ir *ir = (const npu_ir *)src;
    if (ir->xml == NULL) return npu__fail(ir->ctx, NPU_ERR_STATE, "%s: the IR was closed", ir->label);
    npu__sink_put(s, ir->xml, ir->xml_len);
    if (ir->pp_key != NULL) ir->pp_key(ir, s);   /* preprocessing changes the model */
    return NPU_OK;
}

/* The whole .bin, one piece. */
static void npu__isrc_constants(const void *src, npu__bytes_fn take, void *state)
{
    const npu_ir *ir = (const npu_ir *)src;
    take(state, ir->bin, ir->bin_size);
    if (ir->pp_consts != NULL) ir->pp_consts(ir, take, state);
}

static const npu__source npu__ir_source = {
    "IR", 0,
    "give every input and output a layout with N on axis 0 (npu_ir_set_layout, or the IR's layout rt_info; "
    "npu-run --layout)",
    npu__isrc_label, npu__isrc_ir_version, npu__isrc_count, npu__isrc_input, npu__isrc_output,
    npu__isrc_batch_axis, npu__isrc_batch, npu__isrc_set_batch, npu__isrc_batch, npu__isrc_payload,
    npu__isrc_structure, npu__isrc_constants};
#endif /* NPU_NO_LEVEL_ZERO */

#endif /* NPU_NO_IR */

/* ==== 9. Blob metadata and hashing ====================================== */
/* Owns: the OVNPU metadata tail of exported blobs (9a) and the NH128 hash with
 * the driver input hash (9b), used by sections 12 (import, export, compile)
 * and 14 (cache keys and entries). Calls: sections 2-5. */

/* ---- 9a. Blob metadata: the OVNPU tail ---------------------------------
 * Owns: reading and writing the versioned metadata OpenVINO's NPU plugin
 * appends to exported blobs (ze-graph-ext.md section 4), and npu_blob_info().
 * Calls: sections 3 (errors) and 5 (sinks, little-endian access).
 *
 *   [native blob][zero padding][fields][u64 blobDataSize]["OVNPU"]
 *
 * blobDataSize is the offset of the fields (blob plus the padding before them).
 * Writers of versions <= 2.3 pad AFTER the fields instead, so that fields + 13
 * is a multiple of 4096; the 2026 writer pads the blob. The reader therefore
 * parses the fields from blobDataSize and accepts only zero bytes between the
 * last known field and the u64. The input is hostile: every count and length
 * is checked against the bytes that remain before any arithmetic with it. */

#define NPU__META_MAGIC "OVNPU"
#define NPU__META_MAGIC_LEN 5u
#define NPU__META_TRAILER (8u + NPU__META_MAGIC_LEN) /* u64 blobDataSize + magic */
#define NPU__META_MAJOR 2u
#define NPU__META_MINOR_NEWEST 7u
/* npu's record of a dynamic batch where OpenVINO never looks: the first bytes
 * of the zero padding that <= 2.3 tails carry after the last field (batchSize
 * itself is then 0, "none", as OpenVINO never writes a negative batch). */
#define NPU__META_DYN_MARK "npu-dynb"
#define NPU__META_DYN_MARK_LEN 8u
#define NPU__META_ALIGN 4096u

/* Everything a tail can say, including the fields npu cannot act on (init
 * schedules, encryption, non-ELF blobs): npu__meta_read refuses those, while
 * npu_blob_info reports them. */
typedef struct npu__meta_extra {
    uint64_t init_count;        /* 2.1: numberOfInits (weights-separated blobs) */
    uint64_t init_bytes;        /* sum of initSize[] */
    uint8_t encrypted;          /* 2.5 */
    uint64_t compat_size;       /* 2.6: bytes of the compatibility descriptor */
    uint8_t newer_minor;        /* minor > 7: fields after 2.7 were skipped */
} npu__meta_extra;

/* A cursor over the fields: [pos, end) is what remains before the trailer. */
typedef struct npu__meta_cursor {
    npu_context *ctx;
    const unsigned char *data;
    size_t pos;
    size_t end;
    uint32_t version;
    npu_status st;      /* the first field that ran past the end */
} npu__meta_cursor;

/* NPU_ERR_FORMAT, "blob metadata 2.<minor>: <what the format says>", in one
 * npu__fail (fmt is a literal: the prefix is joined to it). Used after the
 * major version check (the version's own read cannot fail: its room is
 * checked first), so the major is NPU__META_MAJOR, 2. */
_Static_assert(NPU__META_MAJOR == 2, "the blob metadata messages say 2.<minor>");
#define npu__meta_fail(c, fmt, ...) \
    npu__fail((c)->ctx, NPU_ERR_FORMAT, "blob metadata 2.%u: " fmt, (unsigned)((c)->version & 0xffffu), __VA_ARGS__)

/* Field j in file order: those of 2.0 (the OpenVINO version), then those of
 * 2.f (j - 2); a number of npu__meta_width[j] bytes (2.3: the layouts). Past
 * them, the numbers inside fields (NPU__META_F_*): a read names its field by
 * index, so that each read passes one number. */
#define NPU__META_FIELDS (NPU__META_MINOR_NEWEST + 3)
enum { NPU__META_F_VERSION = NPU__META_FIELDS, NPU__META_F_N_IN, NPU__META_F_N_OUT, NPU__META_F_LAYOUT_LEN,
       NPU__META_F_INIT_SIZE, NPU__META_F_COUNT };
static const unsigned char npu__meta_width[NPU__META_F_COUNT] = {2, 2, 2, 8, 8, 0, 4, 1, 8, 1, 4, 8, 8, 2, 8};
NPU__MSG_ONLY(static const char *const npu__meta_names[NPU__META_F_COUNT] = {
    "OpenVINO major", "OpenVINO minor", "OpenVINO patch", "numberOfInits", "batchSize", "", "compilerVersion",
    "isEncryptedBlob", "compatibility descriptor length", "blobType", "version", "nInputLayouts",
    "nOutputLayouts", "layout length", "initSize"};)

/* The next value, field `field` (npu__meta_width). One that runs past the end
 * records the error (the first only), reads as 0 and leaves nothing to read
 * after it, so that the parser checks c->st once, at its end, instead of after
 * every field: a 0 passes every later check, and [pos, end) is then empty. */
static uint64_t npu__meta_take(npu__meta_cursor *c, unsigned field)
{
    uint64_t v;
    unsigned bytes = npu__meta_width[field];
    if (c->end - c->pos < bytes) {
        if (c->st == NPU_OK)
            c->st = npu__meta_fail(c, "field '%s' (%u bytes) at offset %zu runs past the end of the metadata "
                                   "(%zu bytes left)", npu__meta_names[field], bytes, c->pos, c->end - c->pos);
        c->pos = c->end;
        return 0;
    }
    v = npu__le_get(c->data + c->pos, bytes);
    c->pos += bytes;
    return v;
}

/* The offset of the first non-zero byte of p[from .. end), or end: a word at
 * a time (zero in any byte order), then the byte that differs. (The zero
 * padding of metadata tails and of cache entry headers: up to 4 KiB.) */
static size_t npu__nonzero_at(const unsigned char *p, size_t from, size_t end)
{
    uint64_t w;
    for (; end - from >= 8; from += 8) {
        memcpy(&w, p + from, sizeof w);
        if (w != 0) break;
    }
    while (from < end && p[from] == 0) from++;
    return from;
}

/* The limits the messages below state as text (no argument to load). */
_Static_assert(NPU__META_MAX_LAYOUTS == 64 && NPU_LAYOUT_MAX == 16 && NPU__META_MINOR_NEWEST == 7,
               "the blob metadata messages say 64 layouts, 15 characters and 2.7");

/* Parses the layouts of 2.3: counts, then u16 length + characters each. */
static npu_status npu__meta_layouts(npu__meta_cursor *c, npu__blob_meta *out)
{
    uint64_t n_in = npu__meta_take(c, NPU__META_F_N_IN), n_out = npu__meta_take(c, NPU__META_F_N_OUT), len;
    uint32_t i, total;
    if (c->st != NPU_OK) return c->st;
    if (n_in > NPU__META_MAX_LAYOUTS || n_out > NPU__META_MAX_LAYOUTS - n_in) {
        return npu__meta_fail(c, "%llu input + %llu output layouts exceed the maximum of 64",
                              (unsigned long long)n_in, (unsigned long long)n_out);
    }
    out->n_input_layouts = (uint32_t)n_in;
    out->n_output_layouts = (uint32_t)n_out;
    total = (uint32_t)(n_in + n_out);
    for (i = 0; i < total; i++) {
        /* what is wrong with layout i, as a format of (kind, index, length) */
        const char *bad;
        len = npu__meta_take(c, NPU__META_F_LAYOUT_LEN);
        bad = len > NPU_LAYOUT_MAX - 1    ? "its length exceeds the maximum of 15"
              : c->end - c->pos < len     ? "its characters run past the end"
              : memchr(c->data + c->pos, 0, (size_t)len) != NULL ? "it contains a NUL character"
                                                                 : NULL;
        if (bad != NULL) {
            return npu__meta_fail(c, "%s layout %u (length %u): %s", i < out->n_input_layouts ? "input" : "output",
                                  (unsigned)(i < out->n_input_layouts ? i : i - out->n_input_layouts),
                                  (unsigned)len, bad);
        }
        if (out->layouts != NULL) {
            memcpy(out->layouts[i], c->data + c->pos, (size_t)len);
            out->layouts[i][len] = '\0';
        }
        c->pos += (size_t)len;
    }
    return NPU_OK;
}

/* Parses every field it knows; refuses nothing that is well-formed. */
static npu_status npu__meta_parse(npu_context *ctx, const unsigned char *data, size_t size,
                                  npu__blob_meta *out, npu__meta_extra *extra)
{
    npu__meta_cursor c;
    uint64_t v = 0, data_size, i;
    uint32_t minor, f, j;
    npu_status st;

    char (*layouts)[NPU_LAYOUT_MAX] = out->layouts;   /* the caller's rows, kept */

    memset(out, 0, sizeof *out);
    out->layouts = layouts;
    memset(extra, 0, sizeof *extra);
    out->blob_size = size;
    if (data == NULL && size > 0)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "blob metadata: data is NULL");
    if (size < NPU__META_TRAILER ||
        memcmp(data + size - NPU__META_MAGIC_LEN, NPU__META_MAGIC, NPU__META_MAGIC_LEN) != 0)
        return NPU_OK; /* a raw blob without metadata */

    c.ctx = ctx;
    c.data = data;
    c.end = size - NPU__META_TRAILER;
    c.version = 0;
    c.st = NPU_OK;
    data_size = npu__le_get(data + c.end, 8);
    if (data_size == 0 || data_size > c.end || c.end - (size_t)data_size < 4)
        return npu__fail(ctx, NPU_ERR_FORMAT,
                         data_size == 0 ? "blob metadata: blobDataSize is 0 (no blob before the metadata)"
                                        : "blob metadata: blobDataSize %llu leaves no room for the version "
                                          "field before the trailer at offset %zu",
                         (unsigned long long)data_size, c.end);
    c.pos = (size_t)data_size;
    c.version = (uint32_t)npu__meta_take(&c, NPU__META_F_VERSION);   /* room checked above */
    if ((c.version >> 16) != NPU__META_MAJOR)
        return npu__fail(ctx, NPU_ERR_FORMAT,
                         "blob metadata %u.%u: the major version is unknown (npu reads 2.0 to 2.7)",
                         (unsigned)(c.version >> 16), (unsigned)(c.version & 0xffffu));
    minor = c.version & 0xffffu;
    out->version = c.version;
    out->blob_size = (uint64_t)data_size;

    for (j = 0; j < NPU__META_FIELDS; j++) {   /* (npu__meta_width) */
        f = j < 3 ? 0 : j - 2;   /* the version's minor */
        if (f > minor) break;
        if (f == 3) {
            st = npu__meta_layouts(&c, out);
            if (st != NPU_OK) return st;
            continue;
        }
        v = npu__meta_take(&c, j);
        if (f == 0) {
            out->ov_version[j] = (uint16_t)v;
        } else if (f == 1) { /* init schedules of a weights-separated blob */
            extra->init_count = v;
            if (extra->init_count > (c.end - c.pos) / 8)
                return npu__meta_fail(&c, "numberOfInits %llu: the sizes run past the end", (unsigned long long)v);
            for (i = 0; i < extra->init_count; i++) {
                v = npu__meta_take(&c, NPU__META_F_INIT_SIZE);
                if (npu__add_u64(extra->init_bytes, v, &extra->init_bytes) ||
                    extra->init_bytes > data_size) {
                    return npu__meta_fail(&c, "initSize[%llu]: the init blobs exceed blobDataSize %llu",
                             (unsigned long long)i, (unsigned long long)data_size);
                }
            }
        } else if (f == 2) {
            out->batch_size = (int64_t)v;
            if (out->batch_size < -1) {
                return npu__meta_fail(&c, "batchSize %lld is negative",
                         (long long)out->batch_size);
            }
        } else if (f == 4) {
            out->compiler_version = (uint32_t)v;
        } else if (f == 5) {
            if (v > 1) return npu__meta_fail(&c, "isEncryptedBlob is %llu, not 0 or 1", (unsigned long long)v);
            extra->encrypted = (uint8_t)v;
        } else if (f == 6) {
            extra->compat_size = v;
            if (extra->compat_size > c.end - c.pos)
                return npu__meta_fail(&c, "compatibility descriptor of %llu bytes runs past the end",
                                      (unsigned long long)v);
            c.pos += (size_t)extra->compat_size;
        } else {
            out->blob_type = (uint8_t)v;
        }
    }
    if (c.st != NPU_OK) return c.st;
    if (minor > NPU__META_MINOR_NEWEST) {
        /* A newer minor only appends fields: what follows is not ours to judge. */
        extra->newer_minor = 1;
        return NPU_OK;
    }
    /* Padding of <= 2.3 writers: zeros only, but for npu's dynamic-batch mark. */
    if (minor >= 2 && minor <= 3 && out->batch_size == 0 && c.end - c.pos >= NPU__META_DYN_MARK_LEN &&
        memcmp(c.data + c.pos, NPU__META_DYN_MARK, NPU__META_DYN_MARK_LEN) == 0) {
        out->batch_size = -1;
        c.pos += NPU__META_DYN_MARK_LEN;
    }
    c.pos = npu__nonzero_at(c.data, c.pos, c.end);
    if (c.pos < c.end) {
        return npu__meta_fail(&c, "non-zero byte 0x%02x at offset %zu after the last field (only zero "
                 "padding may follow)",
                 (unsigned)c.data[c.pos], c.pos);
    }
    return NPU_OK;
}

/* Functions only sections 11-13 (Level Zero) call: a NPU_NO_LEVEL_ZERO build
 * keeps them (npu_blob_info shares their parser) without warnings. */
#if defined(NPU_NO_LEVEL_ZERO) && (defined(__GNUC__) || defined(__clang__))
#define NPU__L0_ONLY __attribute__((unused))
#else
#define NPU__L0_ONLY
#endif

static NPU__L0_ONLY npu_status npu__meta_read(npu_context *ctx, const unsigned char *data, size_t size,
                                              npu__blob_meta *out)
{
    npu__meta_extra extra;
    const char *refused;
    uint64_t value;   /* the refused field's: numberOfInits, else blobType */
    NPU__MSG_ONLY(static const char *const types[] = {"ELF", "LLVM", "BYTECODE", "unknown"};)
    npu_status st = npu__meta_parse(ctx, data, size, out, &extra);
    if (st != NPU_OK) return st;
    /* what npu cannot import, as a format of (value, the blob type's name):
     * one failure for the three (value 0: neither field is set) */
    value = extra.init_count > 0 ? extra.init_count : out->blob_type;
    refused = extra.encrypted ? "blob metadata: isEncryptedBlob is set; npu cannot import encrypted blobs"
              : value == 0    ? NULL
              : extra.init_count > 0 ? "blob metadata: numberOfInits is %llu; npu cannot import "
                                       "weights-separated blobs with init schedules"
                                     : "blob metadata: blobType is %llu (%s); npu imports only ELF blobs (0)";
    if (refused != NULL)
        return npu__fail(ctx, NPU_ERR_UNSUPPORTED, refused, (unsigned long long)value,
                         types[out->blob_type < 3 ? out->blob_type : 3]);
    return NPU_OK;
}

/* Zero bytes up to the next multiple of NPU__META_ALIGN of `used` (none
 * when it is one). */
static NPU__L0_ONLY void npu__sink_pad(npu__sink *s, size_t used)
{
    static const unsigned char zeros[256] = {0};
    size_t n = (NPU__META_ALIGN - used % NPU__META_ALIGN) % NPU__META_ALIGN;
    while (n > 0) {
        size_t k = n < sizeof zeros ? n : sizeof zeros;
        npu__sink_put(s, zeros, k);
        n -= k;
    }
}

/* Writes meta->ov_version as given: npu's export path puts npu's own version
 * there (see cache.h), so that a blob's writer is recognisable. Counts beyond
 * NPU__META_MAX_LAYOUTS and layouts longer than NPU_LAYOUT_MAX - 1 are cut
 * (a void writer cannot fail; npu__blob_meta cannot hold more anyway). The
 * 2.1 init count, 2.5 encryption flag and 2.6 descriptor are always empty. */
static NPU__L0_ONLY void npu__meta_write(npu__sink *s, const npu__blob_meta *meta)
{
    uint32_t version = NPU__META_MAJOR << 16 | NPU__META_MINOR_NEWEST;
    uint32_t minor, n_in, n_out, i, f, j;
    size_t data_size;
    int dyn_mark;
    if (meta->version >> 16 == NPU__META_MAJOR && (meta->version & 0xffffu) <= NPU__META_MINOR_NEWEST)
        version = meta->version;
    minor = version & 0xffffu;
    npu__sink_pad(s, s->len);
    data_size = s->len;
    npu__sink_le(s, version, 4);
    dyn_mark = minor >= 2 && minor <= 3 && meta->batch_size < 0;
    for (j = 0; j < minor + 3; j++) {   /* field j as npu__meta_parse numbers them */
        f = j < 3 ? 0 : j - 2;
        /* 2.0 the OpenVINO version, 2.1 numberOfInits 0, 2.2 batchSize, 2.4
         * compilerVersion, 2.5 isEncryptedBlob 0, 2.6 an empty compatibility
         * descriptor, 2.7 blobType */
        if (f != 3) {
            npu__sink_le(s, f == 0   ? meta->ov_version[j]
                            : f == 2 ? (dyn_mark ? 0u : (uint64_t)meta->batch_size)
                            : f == 4 ? meta->compiler_version
                            : f == 7 ? meta->blob_type
                                     : 0u,
                         npu__meta_width[j]);
            continue;
        }
        n_in = meta->n_input_layouts < NPU__META_MAX_LAYOUTS ? meta->n_input_layouts
                                                              : NPU__META_MAX_LAYOUTS;
        n_out = meta->n_output_layouts < NPU__META_MAX_LAYOUTS - n_in
                    ? meta->n_output_layouts
                    : NPU__META_MAX_LAYOUTS - n_in;
        npu__sink_le(s, n_in, 8);
        npu__sink_le(s, n_out, 8);
        for (i = 0; i < n_in + n_out; i++) {
            const char *l = meta->layout_of != NULL ? meta->layout_of(meta->layout_src, i)
                            : meta->layouts != NULL ? meta->layouts[i] : "";
            size_t len = 0;
            while (len < NPU_LAYOUT_MAX - 1 && l[len] != '\0') len++;
            npu__sink_le(s, len, 2);
            npu__sink_put(s, l, len);
        }
    }
    if (minor <= 3) {
        /* <= 2.3 writers pad so that fields + size + magic fill whole pages. */
        if (dyn_mark) npu__sink_put(s, NPU__META_DYN_MARK, NPU__META_DYN_MARK_LEN);
        npu__sink_pad(s, s->len - data_size + NPU__META_TRAILER);
    }
    npu__sink_le(s, data_size, 8);
    npu__sink_put(s, NPU__META_MAGIC, NPU__META_MAGIC_LEN);
}

NPU_API npu_status npu_blob_info(npu_context *ctx, const void *data, size_t size,
                         npu_blob_info_t *info)
{
    npu__blob_meta meta;
    npu__meta_extra extra;
    npu_status st;
    uint32_t i;
    if (info == NULL) return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_blob_info: info is NULL");
    memset(info, 0, sizeof *info);
    if (data == NULL) return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_blob_info: data is NULL");
    memset(&meta, 0, sizeof meta);
    meta.layouts = info->layouts;   /* NPU_BLOB_MAX_LAYOUTS == NPU__META_MAX_LAYOUTS rows */
    st = npu__meta_parse(ctx, (const unsigned char *)data, size, &meta, &extra);
    if (st != NPU_OK) return st;
    info->has_metadata = meta.version != 0;
    info->metadata_version = meta.version;
    for (i = 0; i < 3; i++) info->openvino_version[i] = meta.ov_version[i];
    info->batch_size = meta.batch_size;
    info->n_input_layouts = meta.n_input_layouts;
    info->n_output_layouts = meta.n_output_layouts;
    info->compiler_version = meta.compiler_version;
    info->blob_size = meta.blob_size;
    info->init_count = extra.init_count;
    info->encrypted = extra.encrypted;
    info->blob_type = meta.blob_type;
    info->compatibility_descriptor_size = extra.compat_size;
    info->importable = !extra.encrypted && extra.init_count == 0 && meta.blob_type == 0;
    return NPU_OK;
}

#if NPU_BLOB_MAX_LAYOUTS != NPU__META_MAX_LAYOUTS
#error "NPU_BLOB_MAX_LAYOUTS must equal NPU__META_MAX_LAYOUTS"
#endif

/* The hash serves the compile path and the cache (sections 12 and 14): it
 * exists only with Level Zero. */
#ifndef NPU_NO_LEVEL_ZERO

/* ---- 9b. Hash: NH128 ---------------------------------------------------
 * A streaming 128-bit non-cryptographic hash used for cache keys and entry
 * checksums. It guards against accidents (bit rot, torn or foreign files, a
 * changed model), not against an attacker who can write the cache directory.
 *
 * Design: four independent 64-bit lanes consume 32-byte stripes, one
 * little-endian word per lane: lane = rotl(lane + word, 31) * P1 (a bijection
 * of the lane for a given word, and of the word for a given lane: a changed
 * word always changes its lane). The lanes are independent chains, so a CPU
 * runs them in parallel: one multiply per 8 input bytes (a 16 KiB model's
 * constants and its 28 KiB entry hash in 0.6 and 1.1 us; with a second
 * multiply per word, word * P0 before the add, they took 1.7 us for the
 * entry). The finalizer absorbs the zero-padded partial
 * stripe (0-31 bytes) with the same round, then folds the four lanes into two
 * 64-bit accumulators through a xorshift-multiply bijection (fmix: shifts 32,
 * 29, 32 with two odd multipliers), one by xor and one by add-rotate, with the
 * total length so that zero padding is unambiguous, and cross-adds them.
 * Every output bit then depends on every input bit (the avalanche test in
 * tests/test_wb_cache.c measures it). The constants are the fractional parts
 * of the square roots of 3, 5, 7 and 11 (nothing up the sleeve), made odd.
 * Streaming in any split gives the same digest as one call. */
#define NPU__H_P1 0xbb67ae8584caa73bull
#define NPU__H_P2 0x3c6ef372fe94f82bull
#define NPU__H_P3 0xa54ff53a5f1d36f1ull
#define NPU__H_P4 0x510e527fade682d1ull

typedef struct npu__digest {
    uint64_t h[2];
} npu__digest;

typedef struct npu__nh128 {
    uint64_t lane[4];
    uint64_t total;            /* bytes fed so far */
    unsigned char stripe[32];  /* partial stripe */
    size_t stripe_len;
} npu__nh128;

static uint64_t npu__rotl64(uint64_t x, unsigned r) { return (x << r) | (x >> (64u - r)); }

/* A little-endian word. On a little-endian target one unaligned load (the
 * compiler's own byte-order macros; others assemble the bytes). */
static inline uint64_t npu__load64(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
#else
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
#endif
}

static uint64_t npu__fmix64(uint64_t x)
{
    x ^= x >> 32;
    x *= NPU__H_P1;
    x ^= x >> 29;
    x *= NPU__H_P3;
    x ^= x >> 32;
    return x;
}

/* `stripes` whole stripes from p. The lanes are copied into locals for the
 * loop: through the pointers, the input (read through unsigned char, which
 * may alias anything) could be the lanes, and the compiler would store and
 * reload them for every stripe (a third of the speed).
 * With y (not NULL): the round on a second lane set in the same pass, `lane`
 * and y (the cache key's two digests, section 14a): eight independent
 * multiply chains in flight, each word loaded once for both digests. From
 * memory that round must prefetch: the hardware prefetcher alone leaves it
 * at 2 GB/s (two 8 KiB passes, the first from memory: 3), 2 KiB ahead it
 * reaches 8. (A prefetch never faults, past the end either.) Optimized for
 * speed, the word loop is unrolled (the same rounds in the same order). */
static void npu__nh128_stripes(uint64_t *lane, uint64_t *y, const unsigned char *p, size_t stripes)
{
    uint64_t x[4], v[4], w;
    unsigned i;
    memcpy(x, lane, sizeof x);
    memcpy(v, y != NULL ? y : lane, sizeof v);   /* (without y: copied, not used) */
    for (; stripes-- > 0; p += 32) {
#if defined(__GNUC__) || defined(__clang__)
        if (y != NULL) __builtin_prefetch(p + 2048);
#endif
#if defined(__GNUC__) && !defined(__OPTIMIZE_SIZE__) && (__GNUC__ >= 8 || defined(__clang__))
#pragma GCC unroll 4
#endif
        for (i = 0; i < 4; i++) {
            w = npu__load64(p + 8 * i);
            x[i] = npu__rotl64(x[i] + w, 31) * NPU__H_P1;
            if (y != NULL) v[i] = npu__rotl64(v[i] + w, 31) * NPU__H_P1;
        }
    }
    memcpy(lane, x, sizeof x);
    if (y != NULL) memcpy(y, v, sizeof v);
}

/* The four lanes of a new state. */
static void npu__nh128_lanes(uint64_t *lane, uint64_t seed)
{
    unsigned i;
    for (i = 0; i < 4; i++) lane[i] = npu__fmix64(seed + (uint64_t)(i + 1) * NPU__H_P4);
}

static void npu__nh128_init(npu__nh128 *h, uint64_t seed)
{
    npu__nh128_lanes(h->lane, seed);
    h->total = 0;
    h->stripe_len = 0;
}

/* Feeds n bytes to h and, with y (not NULL), to the lane set y in the same
 * pass; y shares h's partial stripe and byte count (the cache key's second
 * digest). */
static void npu__nh128_feed(npu__nh128 *h, uint64_t *y, const void *bytes, size_t n)
{
    const unsigned char *p = (const unsigned char *)bytes;
    h->total += (uint64_t)n;
    if (h->stripe_len > 0) {
        size_t k = 32 - h->stripe_len;
        if (k > n) k = n;
        memcpy(h->stripe + h->stripe_len, p, k);
        h->stripe_len += k;
        p += k;
        n -= k;
        if (h->stripe_len < 32) return;
        npu__nh128_stripes(h->lane, y, h->stripe, 1);
        h->stripe_len = 0;
    }
    if (n >= 32) {   /* (a small piece goes straight to the stripe) */
        npu__nh128_stripes(h->lane, y, p, n / 32);
        p += n / 32 * 32;
        n %= 32;
    }
    memcpy(h->stripe, p, n);   /* the rest: a partial stripe, or none */
    h->stripe_len = n;
}

static void npu__nh128_update(npu__nh128 *h, const void *bytes, size_t n)
{
    npu__nh128_feed(h, NULL, bytes, n);
}

/* The digest of h's bytes with the lanes `lanes` (h's own, or a second set
 * fed with them: npu__nh128_feed). Does not modify h: a digest may be taken
 * mid-stream. */
static npu__digest npu__nh128_digest(const npu__nh128 *h, const uint64_t *lanes)
{
    uint64_t lane[4], a, b;
    npu__digest d;
    unsigned i;
    unsigned char last[32] = {0};   /* the partial stripe, zero-padded (if any) */
    memcpy(lane, lanes, sizeof lane);
    memcpy(last, h->stripe, h->stripe_len);
    npu__nh128_stripes(lane, NULL, last, h->stripe_len > 0);
    a = npu__fmix64(h->total ^ NPU__H_P2);
    b = npu__fmix64(h->total + NPU__H_P3);
    for (i = 0; i < 4; i++) {
        a = npu__fmix64(a ^ lane[i]);
        b = npu__fmix64(b + npu__rotl64(lane[i], 27));
    }
    a += b;
    b += a;
    d.h[0] = npu__fmix64(a);
    d.h[1] = npu__fmix64(b);
    return d;
}

static npu__digest npu__nh128_final(const npu__nh128 *h)
{
    return npu__nh128_digest(h, h->lane);
}

/* npu__bytes_fn feeding one constant into the hash. */
static void npu__input_hash_take(void *state, const void *data, uint64_t bytes)
{
    if (data != NULL && bytes <= SIZE_MAX) npu__nh128_update((npu__nh128 *)state, data, (size_t)bytes);
}

static uint64_t npu__input_hash(const void *payload, size_t size, const char *flags,
                                const npu__model_src *src)
{
    npu__nh128 h;
    npu__digest dg;
    npu__nh128_init(&h, 0x6e70752d696e6870ull);   /* "npu-inhp" */
    npu__nh128_update(&h, payload, size);
    if (flags != NULL) npu__nh128_update(&h, flags, strlen(flags) + 1);
    src->ops->constants(src->src, npu__input_hash_take, &h);
    dg = npu__nh128_final(&h);
    return dg.h[0] ^ dg.h[1];
}
#endif /* NPU_NO_LEVEL_ZERO (9b) */

/* ==== 10. Level Zero binding ============================================== */
/* Owns: our own declarations of the Intel NPU graph extension ABI (the Debian
 * loader headers are spec 1.4 and lack it), which table entries each extension
 * version needs, the ze_result_t -> npu_status mapping, the objects of
 * sections 11-13 and their small shared helpers. Sections 11-13 use it;
 * section 12 also calls sections 6-8 (payloads) and 9 (npu__meta_read /
 * npu__meta_write, the blob metadata tail). */

#ifndef NPU_NO_LEVEL_ZERO

/* Debian's ze_api.h (1.x) ends without a newline; clang's -Wpedantic
 * (-Wnewline-eof) reports it when pkg-config's -I makes it a user header. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnewline-eof"
#endif
#include <ze_api.h>
#if defined(__clang__)
#pragma clang diagnostic pop
#endif


/* ---- Graph extension ABI (ze-graph-ext.md sections 1-2; LP64 offsets) ---- */

#define NPU__ZE_GRAPH_EXT_PREFIX "ZE_extension_graph"
#define NPU__ZE_CQ_NPU_EXT_NAME "ZE_extension_command_queue_npu"
#define NPU__ZE_VERSION(ma, mi) ((((uint32_t)(ma)) << 16) | ((uint32_t)(mi) & 0xffffu))
#define NPU__ZE_GRAPH_EXT_MAX NPU__ZE_VERSION(1, 18)

/* stype values (the current header's; drivers accept them, the sim accepts old
 * and new). */
#define NPU__ZE_STYPE_DEVICE_GRAPH_PROPERTIES 0x1u
#define NPU__ZE_STYPE_GRAPH_DESC 0x2u
#define NPU__ZE_STYPE_GRAPH_PROPERTIES 0x3u
#define NPU__ZE_STYPE_GRAPH_ARGUMENT_PROPERTIES 0x4u
#define NPU__ZE_STYPE_GRAPH_ARGUMENT_METADATA 0x6u
#define NPU__ZE_STYPE_GRAPH_ARGUMENT_PROPERTIES_2 0xCu
#define NPU__ZE_STYPE_GRAPH_ARGUMENT_PROPERTIES_3 0xDu
#define NPU__ZE_STYPE_GRAPH_DESC_2 0xEu
#define NPU__ZE_STYPE_GRAPH_PROPERTIES_2 0x10u
/* Host-memory import: ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC of the
 * "ZE_extension_external_memmap_sysmem" extension (loader headers; driver
 * 1.32.1 ze_memory.cpp matches only this stype and otherwise allocates fresh
 * memory). */
#define NPU__ZE_STYPE_IMPORT_SYSTEM_MEMORY 0x00020037u
#define NPU__ZE_MEMMAP_EXT_NAME "ZE_extension_external_memmap_sysmem"
/* ze_graph_input_hash_t (graph extension 1.14), chained in the graph desc's pNext. */
#define NPU__ZE_STYPE_GRAPH_INPUT_HASH 0x8u
#define NPU__ZE_EXTERNAL_MEMORY_STANDARD_ALLOCATION 0x100u

#define NPU__ZE_GRAPH_FORMAT_NATIVE 0x1u
#define NPU__ZE_GRAPH_FORMAT_NGRAPH_LITE 0x2u
#define NPU__ZE_GRAPH_FLAG_DISABLE_CACHING 0x1u
#define NPU__ZE_GRAPH_FLAG_INPUT_GRAPH_PERSISTENT 0x4u
#define NPU__ZE_GRAPH_STAGE_COMMAND_LIST_INITIALIZE 0x1u
#define NPU__ZE_GRAPH_STAGE_INITIALIZE 0x2u
#define NPU__ZE_MEMORY_QUERY_DDR 1u
#define NPU__ZE_NPU_COMPILER_OPTIONS 1u
#define NPU__SER_NONE 0       /* the compiler knows only layout A */
#define NPU__SER_USE_BASE 1   /* NPU_USE_BASE_MODEL_SERIALIZER="NO" selects B (2025) */
#define NPU__SER_VERSION 2    /* NPU_MODEL_SERIALIZER_VERSION="NO_WEIGHTS_COPY" (2026) */
/* The --config keys npu writes itself (npu__cfg_keys), asked once at device open. */
#define NPU__CFG_HINT 0
#define NPU__CFG_PRIORITY 1
#define NPU__CFG_TURBO 2
#define NPU__CFG_TILES 3
#define NPU__CFG_MODE_PARAMS 4

#define NPU__MAX_BATCH 4096u   /* largest batch a model or request debatches into */
/* Largest buffer of one argument (all batch elements): page rounding of it
 * cannot overflow a size_t. */
#define NPU__MAX_ARG_BYTES ((uint64_t)(SIZE_MAX - 4095u) < (UINT64_MAX >> 1) ? (uint64_t)(SIZE_MAX - 4095u) \
                                                                           : (UINT64_MAX >> 1))

#define NPU__READ_VALUE_PREFIX "vpux_ie_read_value_"
#define NPU__ASSIGN_PREFIX "vpux_ie_assign_"

typedef struct npu__ze_graph_s *npu__ze_graph_handle_t;
typedef struct npu__ze_build_log_s *npu__ze_build_log_handle_t;

typedef struct npu__ze_compiler_version {
    uint16_t major;
    uint16_t minor;
} npu__ze_compiler_version;

typedef struct npu__ze_device_graph_properties {
    uint32_t stype;
    void *pNext;
    uint32_t graphExtensionVersion;
    npu__ze_compiler_version compilerVersion;
    uint32_t graphFormatsSupported;
    uint32_t maxOVOpsetVersionSupported;
} npu__ze_device_graph_properties;

typedef struct npu__ze_graph_desc {
    uint32_t stype;
    const void *pNext;
    uint32_t format;
    size_t inputSize;
    const uint8_t *pInput;
    const char *pBuildFlags;
} npu__ze_graph_desc;

typedef struct npu__ze_graph_desc_2 {
    uint32_t stype;
    const void *pNext;
    uint32_t format;
    size_t inputSize;
    const uint8_t *pInput;
    const char *pBuildFlags;
    uint32_t flags;
} npu__ze_graph_desc_2;

typedef struct npu__ze_graph_properties_2 {   /* v1 is the same without the stage */
    uint32_t stype;
    void *pNext;
    uint32_t numGraphArgs;
    uint32_t initStageRequired;
} npu__ze_graph_properties_2;

typedef struct npu__ze_graph_argument_properties_3 {  /* v1/v2 are prefixes */
    uint32_t stype;
    void *pNext;
    char name[256];
    uint32_t type;
    uint32_t dims[5];
    uint32_t networkPrecision;
    uint32_t networkLayout;
    uint32_t devicePrecision;
    uint32_t deviceLayout;
    float quantReverseScale;   /* v2 */
    uint8_t quantZeroPoint;
    uint32_t dims_count;       /* v3 */
    char debug_friendly_name[256];
    char associated_tensor_names[32][256];
    uint32_t associated_tensor_names_count;
} npu__ze_graph_argument_properties_3;

typedef struct npu__ze_graph_argument_metadata {
    uint32_t stype;
    void *pNext;
    uint32_t type;
    char friendly_name[256];
    uint32_t data_type;
    uint64_t shape[8];
    uint32_t shape_size;
    char tensor_names[32][256];
    uint32_t tensor_names_count;
    char input_name[256];
} npu__ze_graph_argument_metadata;

typedef struct npu__ze_graph_memory_query {
    uint64_t total;
    uint64_t allocated;
} npu__ze_graph_memory_query;

typedef struct npu__ze_cq_desc_npu_ext {   /* ZE_extension_command_queue_npu 1.0 */
    uint32_t stype;                        /* 1 */
    const void *pNext;
    ze_bool_t turbo;
} npu__ze_cq_desc_npu_ext;

typedef struct npu__ze_cq_desc_npu_ext_2 { /* 1.1 */
    uint32_t stype;                        /* 2 */
    const void *pNext;
    uint32_t options;                      /* TURBO = 0x1 */
} npu__ze_cq_desc_npu_ext_2;

typedef struct npu__ze_graph_input_hash {   /* ze_graph_input_hash_t, 1.14 */
    uint32_t stype;                         /* 0x8 */
    void *pNext;
    uint64_t hash;
} npu__ze_graph_input_hash;

typedef struct npu__ze_import_system_memory {
    uint32_t stype;
    const void *pNext;
    void *pSystemMemory;
    uint64_t size;
} npu__ze_import_system_memory;

typedef struct npu__ze_graph_ddi {
    ze_result_t (*pfnCreate)(ze_context_handle_t, ze_device_handle_t, const npu__ze_graph_desc *, npu__ze_graph_handle_t *);
    ze_result_t (*pfnDestroy)(npu__ze_graph_handle_t);
    ze_result_t (*pfnGetProperties)(npu__ze_graph_handle_t, npu__ze_graph_properties_2 *);
    ze_result_t (*pfnGetArgumentProperties)(npu__ze_graph_handle_t, uint32_t, npu__ze_graph_argument_properties_3 *);
    ze_result_t (*pfnSetArgumentValue)(npu__ze_graph_handle_t, uint32_t, const void *);
    ze_result_t (*pfnAppendGraphInitialize)(ze_command_list_handle_t, npu__ze_graph_handle_t, ze_event_handle_t, uint32_t,
                                            ze_event_handle_t *);
    ze_result_t (*pfnAppendGraphExecute)(ze_command_list_handle_t, npu__ze_graph_handle_t, void *, ze_event_handle_t, uint32_t,
                                         ze_event_handle_t *);
    ze_result_t (*pfnGetNativeBinary)(npu__ze_graph_handle_t, size_t *, uint8_t *);
    ze_result_t (*pfnDeviceGetGraphProperties)(ze_device_handle_t, npu__ze_device_graph_properties *);
    ze_result_t (*pfnGraphGetArgumentMetadata)(npu__ze_graph_handle_t, uint32_t, npu__ze_graph_argument_metadata *);
    ze_result_t (*pfnGetArgumentProperties2)(npu__ze_graph_handle_t, uint32_t, npu__ze_graph_argument_properties_3 *);
    ze_result_t (*pfnGetArgumentProperties3)(npu__ze_graph_handle_t, uint32_t, npu__ze_graph_argument_properties_3 *);
    void (*pfnQueryNetworkCreate)(void);
    void (*pfnQueryNetworkDestroy)(void);
    void (*pfnQueryNetworkGetSupportedLayers)(void);
    ze_result_t (*pfnBuildLogGetString)(npu__ze_graph_handle_t, uint32_t *, char *);
    ze_result_t (*pfnCreate2)(ze_context_handle_t, ze_device_handle_t, const npu__ze_graph_desc_2 *, npu__ze_graph_handle_t *);
    void (*pfnQueryNetworkCreate2)(void);
    ze_result_t (*pfnQueryContextMemory)(ze_context_handle_t, uint32_t, npu__ze_graph_memory_query *);
    void (*pfnDeviceGetGraphProperties2)(void);
    ze_result_t (*pfnGetNativeBinary2)(npu__ze_graph_handle_t, size_t *, const uint8_t **);
    ze_result_t (*pfnGetProperties2)(npu__ze_graph_handle_t, npu__ze_graph_properties_2 *);
    ze_result_t (*pfnGraphInitialize)(npu__ze_graph_handle_t);
    void (*pfnCompilerGetSupportedOptions)(void);
    ze_result_t (*pfnCompilerIsOptionSupported)(ze_device_handle_t, uint32_t, const char *, const char *);
    ze_result_t (*pfnCreate3)(ze_context_handle_t, ze_device_handle_t, const npu__ze_graph_desc_2 *, npu__ze_graph_handle_t *,
                              npu__ze_build_log_handle_t *);
    void (*pfnGetProperties3)(void);
    ze_result_t (*pfnBuildLogGetString2)(npu__ze_build_log_handle_t, uint32_t *, char *);
    ze_result_t (*pfnBuildLogDestroy)(npu__ze_build_log_handle_t);
    void (*pfnSetArgumentValue2)(void);
    void (*pfnEvict)(void);
} npu__ze_graph_ddi;

/* ZE_extension_profiling_data 1.0 (ze_graph_profiling_ext.h, all releases of
 * the Linux driver): a pool of query slots per graph compiled with
 * ZE_GRAPH_FLAG_ENABLE_PROFILING, a query per execute, decoded by
 * pfnProfilingQueryGetData (size first: *pSize 0 and pData NULL). */
#define NPU__ZE_PROFILING_EXT_NAME "ZE_extension_profiling_data"
#define NPU__ZE_CONTEXT_NPU_EXT_NAME "ZE_extension_context_npu"
#define NPU__ZE_GRAPH_FLAG_ENABLE_PROFILING 0x2u
#define NPU__ZE_PROFILING_LAYER_LEVEL 0x1u
typedef struct npu__ze_profiling_ddi {
    ze_result_t (*pfnProfilingPoolCreate)(npu__ze_graph_handle_t, uint32_t, void **);
    ze_result_t (*pfnProfilingPoolDestroy)(void *);
    ze_result_t (*pfnProfilingQueryCreate)(void *, uint32_t, void **);
    ze_result_t (*pfnProfilingQueryDestroy)(void *);
    ze_result_t (*pfnProfilingQueryGetData)(void *, uint32_t, uint32_t *, uint8_t *);
    ze_result_t (*pfnDeviceGetProfilingDataProperties)(ze_device_handle_t, void *);
    ze_result_t (*pfnProfilingLogGetString)(void *, uint32_t *, char *);
} npu__ze_profiling_ddi;

typedef struct npu__ze_layer_info {   /* ze_profiling_layer_info, 368 bytes */
    char name[256];
    char layer_type[50];
    uint32_t status;                  /* ze_layer_status_t */
    uint64_t start_time_ns;
    uint64_t duration_ns;
    uint32_t layer_id;
    uint64_t fused_layer_id;
    uint64_t dpu_ns, sw_ns, dma_ns;
} npu__ze_layer_info;
_Static_assert(sizeof(npu__ze_layer_info) == 368, "ze_profiling_layer_info is 368 bytes");
/* npu_request_profile converts the driver's records in place, back to front. */
_Static_assert(sizeof(npu_layer_profile) >= sizeof(npu__ze_layer_info) && sizeof(npu_layer_profile) % 16 == 0,
               "an npu_layer_profile covers a ze_profiling_layer_info");

typedef struct npu__ze_cq_npu_ddi {   /* ZE_extension_command_queue_npu 1.0 */
    ze_result_t (*pfnSetWorkloadType)(ze_command_queue_handle_t, uint32_t);
} npu__ze_cq_npu_ddi;

typedef struct npu__ze_context_props {   /* ze_context_properties_npu_ext_t */
    uint32_t stype;                      /* 1 */
    const void *pNext;
    uint32_t options;                    /* IDLE_OPTIMIZATIONS = 0x1 */
} npu__ze_context_props;

typedef struct npu__ze_context_npu_ddi {   /* ZE_extension_context_npu 1.0 */
    ze_result_t (*pfnSetProperties)(ze_context_handle_t, npu__ze_context_props *);
    ze_result_t (*pfnReleaseMemory)(ze_context_handle_t);
} npu__ze_context_npu_ddi;

#if defined(__x86_64__) || defined(__aarch64__)
_Static_assert(sizeof(npu__ze_device_graph_properties) == 32, "ze_device_graph_properties_t");
_Static_assert(sizeof(npu__ze_graph_desc) == 48, "ze_graph_desc_t");
_Static_assert(sizeof(npu__ze_graph_desc_2) == 56, "ze_graph_desc_2_t");
_Static_assert(offsetof(npu__ze_graph_desc_2, flags) == 48, "ze_graph_desc_2_t.flags");
_Static_assert(offsetof(npu__ze_graph_desc_2, pBuildFlags) == offsetof(npu__ze_graph_desc, pBuildFlags),
               "ze_graph_desc_t is the start of ze_graph_desc_2_t");
_Static_assert(sizeof(npu__ze_graph_properties_2) == 24, "ze_graph_properties_2_t");
_Static_assert(offsetof(npu__ze_graph_argument_properties_3, type) == 272, "arg props type");
_Static_assert(offsetof(npu__ze_graph_argument_properties_3, devicePrecision) == 304, "arg props devicePrecision");
_Static_assert(offsetof(npu__ze_graph_argument_properties_3, quantReverseScale) == 312, "arg props 2");
_Static_assert(offsetof(npu__ze_graph_argument_properties_3, dims_count) == 320, "arg props 3 dims_count");
_Static_assert(offsetof(npu__ze_graph_argument_properties_3, associated_tensor_names) == 580, "arg props 3 names");
_Static_assert(sizeof(npu__ze_graph_argument_properties_3) == 8776, "ze_graph_argument_properties_3_t");
_Static_assert(offsetof(npu__ze_graph_argument_metadata, data_type) == 276, "metadata data_type");
_Static_assert(offsetof(npu__ze_graph_argument_metadata, shape) == 280, "metadata shape");
_Static_assert(offsetof(npu__ze_graph_argument_metadata, shape_size) == 344, "metadata shape_size");
_Static_assert(offsetof(npu__ze_graph_argument_metadata, tensor_names_count) == 8540, "metadata count");
_Static_assert(sizeof(npu__ze_graph_argument_metadata) == 8800, "ze_graph_argument_metadata_t");
_Static_assert(sizeof(npu__ze_graph_ddi) == 31 * sizeof(void (*)(void)), "ze_graph_dditable_ext_t");
_Static_assert(sizeof(npu__ze_cq_desc_npu_ext) == 24, "ze_command_queue_desc_npu_ext_t");
#endif

static const uint8_t npu__intel_npu_driver_uuid[16] = {0x01, 0x7d, 0xe9, 0x31, 0x6b, 0x4d, 0x4f, 0xd4,
                                                       0xaa, 0x9b, 0x5b, 0xed, 0x77, 0xfc, 0x8e, 0x89};

NPU__NOINLINE static npu_status npu__ze_fail(npu_context *ctx, const char *what, ze_result_t r)
{
    NPU__MSG_UNUSED(r);
    NPU__MSG_UNUSED(what);
    return npu__fail(ctx, NPU_ERR_DRIVER, "%s failed: ze_result_t 0x%08x", what, (unsigned)r);
}

/* The highest graph extension version <= `version` whose table entries (the
 * ones npu calls) are all present in g; 0 when a 1.0 entry is missing. The
 * rest of the file then asks npu__caps (set from this version), never a
 * pointer. */
static uint32_t npu__ext_usable(const npu__ze_graph_ddi *g, uint32_t version)
{
    /* Each entry and the minor version that adds it (a table, not a branch
     * per entry: check-size). */
#define NPU__ENTRY(f, since) {(uint8_t)offsetof(npu__ze_graph_ddi, f), (since)}
    static const uint8_t entries[][2] = {
        NPU__ENTRY(pfnCreate, 0), NPU__ENTRY(pfnDestroy, 0), NPU__ENTRY(pfnGetProperties, 0),
        NPU__ENTRY(pfnGetArgumentProperties, 0), NPU__ENTRY(pfnSetArgumentValue, 0),
        NPU__ENTRY(pfnAppendGraphInitialize, 0), NPU__ENTRY(pfnAppendGraphExecute, 0),
        NPU__ENTRY(pfnGetNativeBinary, 0), NPU__ENTRY(pfnDeviceGetGraphProperties, 0),
        NPU__ENTRY(pfnGraphGetArgumentMetadata, 1), NPU__ENTRY(pfnGetArgumentProperties2, 1),
        NPU__ENTRY(pfnGetArgumentProperties3, 2), NPU__ENTRY(pfnBuildLogGetString, 4),
        NPU__ENTRY(pfnCreate2, 5), NPU__ENTRY(pfnQueryContextMemory, 5), NPU__ENTRY(pfnGetNativeBinary2, 7),
        NPU__ENTRY(pfnGetProperties2, 8), NPU__ENTRY(pfnGraphInitialize, 8),
        NPU__ENTRY(pfnCompilerIsOptionSupported, 11), NPU__ENTRY(pfnCreate3, 12)};
#undef NPU__ENTRY
    _Static_assert(sizeof(npu__ze_graph_ddi) <= 256, "the entry offsets fit a byte");
    int minor = (int)(version & 0xffffu);
    size_t i;
    for (i = 0; i < NPU__COUNT_OF(entries); i++) {
        void (*f)(void);   /* every entry is a function pointer (one representation: POSIX dlsym) */
        memcpy(&f, (const unsigned char *)g + entries[i][0], sizeof f);
        if (f == NULL && minor >= entries[i][1]) minor = entries[i][1] - 1;
    }
    return minor < 0 ? 0 : NPU__ZE_VERSION(1, minor);
}

#define NPU__ZE(ctx, call, name)                                  \
    do {                                                          \
        ze_result_t npu__r = (call);                              \
        if (npu__r != ZE_RESULT_SUCCESS) return npu__ze_fail((ctx), (name), npu__r); \
    } while (0)

/* ---- Objects ---- */

#define NPU__ARG_INPUT 0
#define NPU__ARG_OUTPUT 1
#define NPU__ARG_STATE_IN 2
#define NPU__ARG_STATE_OUT 3

typedef struct npu__arg {
    npu_tensor_desc desc;         /* as the caller sees it (full batch) */
    char name[NPU_NAME_MAX];      /* desc.name points here (states: past the prefix) */
    char ze_name[NPU_NAME_MAX];   /* the driver's argument name */
    uint32_t kind;                /* NPU__ARG_* */
    uint32_t pair;                /* states: the arg index of the other half */
    uint32_t batch_axis;
    uint32_t ze_precision;
    uint64_t slice_bytes;         /* bytes of one batch element as compiled (states:
                                     desc.bytes); a request's list i binds base +
                                     i x slice_bytes */
} npu__arg;

/* What the driver and its compiler can do, decided once at device open
 * (npu__caps_init) from the negotiated versions; the rest of the file asks
 * these, never a version. Graph extension versions are those in which
 * ze_graph_ext.h (intel/level-zero-npu-extensions) adds the entry, flag or
 * struct; ext_version is already lowered to one whose entries are all present
 * (npu__ext_usable). Command-queue versions are ze_command_queue_npu_ext.h's.
 * The table with sources is /work/shared/docs/ze-graph-ext.md; what npu sends
 * because of them is in docs/driver-compat.md. */
typedef struct npu__caps {
    unsigned char arg_props_2;      /* graph 1.1: pfnGetArgumentProperties2 */
    unsigned char arg_props_3;      /* graph 1.2: pfnGetArgumentProperties3 */
    unsigned char build_log;        /* graph 1.4: pfnBuildLogGetString */
    unsigned char create2;          /* graph 1.5: pfnCreate2 (ze_graph_desc_2_t: flags, pNext) */
    unsigned char memory_query;     /* graph 1.5: pfnQueryContextMemory */
    unsigned char arg_metadata;     /* graph 1.6: pfnGraphGetArgumentMetadata is read (the entry
                                      is 1.1; OpenVINO's zero_graph reads it from 1.6) */
    unsigned char native_binary_2;  /* graph 1.7: pfnGetNativeBinary2 (the driver's own copy) */
    unsigned char graph_init;       /* graph 1.8: pfnGetProperties2 and pfnGraphInitialize */
    unsigned char option_query;     /* graph 1.11: pfnCompilerIsOptionSupported */
    unsigned char create3;          /* graph 1.12: pfnCreate3 */
    unsigned char persistent_input; /* graph 1.13: ZE_GRAPH_FLAG_INPUT_GRAPH_PERSISTENT */
    unsigned char input_hash;       /* graph 1.14: ze_graph_input_hash_t in the desc's pNext */
    unsigned char queue_turbo;      /* command queue 1.0: ze_command_queue_desc_npu_ext_t {turbo} */
    unsigned char queue_options;    /* command queue 1.1: ze_command_queue_desc_npu_ext_2_t {options} */
    unsigned char flags_by_index;   /* compiler 5.9: I/O by index in the build flags, not by name
                                      (OpenVINO's serializeIOInfo) */
    unsigned char legacy_priority;  /* compiler below 5.2 (and known): MODEL_PRIORITY_LOW/MED/HIGH
                                      values (OpenVINO's serializeConfig) */
    unsigned char profiling;        /* ZE_extension_profiling_data 1.x and graph 1.5 (the
                                      ENABLE_PROFILING flag rides in ze_graph_desc_2_t) */
    unsigned char workload_type;    /* command queue 1.0: pfnSetWorkloadType */
    unsigned char context_npu;      /* ZE_extension_context_npu 1.x: pfnSetProperties */
} npu__caps;
/* Not here: whether the driver imports dma-buf fds. npu_request_set_input_fd
 * asks zeDeviceGetExternalMemoryProperties itself (npu__dma_buf_import), so
 * that programs that never import an fd do not link the query (check-size). */

struct npu_device {
    npu_context *ctx;
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t zctx;
    ze_command_queue_handle_t queue;
    const npu__ze_graph_ddi *g;
    uint32_t ext_version;
    npu__caps caps;               /* from the versions, at device open */
    uint32_t queue_ordinal;
    ze_command_queue_priority_t queue_priority;
    int queue_turbo;
    uint32_t cq_ext_version;      /* 0: no command-queue NPU extension */
    uint32_t api_version;
    uint32_t compiler_version;
    uint32_t max_opset;
    uint16_t export_ov[3];        /* OpenVINO version an export writes */
    signed char cfg_query[5];     /* NPU__CFG_*: the compiler's answer for that
                                     --config key at device open (1 yes, 0 no,
                                     -1 cannot ask: graph extension < 1.11) */
    int serializer_key;           /* NPU__SER_*: how the compiler is told layout B
                                     (NONE: no layout B, no_weights_copy 0) */
    int ext_flags;                /* NPU__EXT_*: other extensions the driver lists
                                     (MEMMAP: host memory import) */
    int is_simulated;
    ze_driver_properties_t driver_props;
    ze_device_properties_t props;
    /* npu_device_open only: arena scratch for the driver's extension list
     * (NPU__MAX_EXTENSIONS entries, 25 KB: too large for a small thread's
     * stack); handed back to the arena before npu_device_open returns. */
    ze_driver_extension_properties_t *ext_scratch;
};

#define NPU__EXT_MEMMAP 0x1
#define NPU__EXT_PROFILING 0x2
#define NPU__EXT_CONTEXT_NPU 0x4

/* Sets d->caps from d->ext_version, d->cq_ext_version, d->ext_flags and
 * d->compiler_version. */
static void npu__caps_init(npu_device *d)
{
    /* Each capability that a version implies: its field, which version
     * (0 graph extension, 1 command queue, 2 compiler) and the lowest. */
#define NPU__CAP(f, src, ma, mi) {(uint8_t)offsetof(npu__caps, f), (src), NPU__ZE_VERSION(ma, mi)}
    static const struct { uint8_t field, src; uint32_t min; } by_version[] = {
        NPU__CAP(arg_props_2, 0, 1, 1), NPU__CAP(arg_props_3, 0, 1, 2), NPU__CAP(build_log, 0, 1, 4),
        NPU__CAP(create2, 0, 1, 5), NPU__CAP(memory_query, 0, 1, 5), NPU__CAP(arg_metadata, 0, 1, 6),
        NPU__CAP(native_binary_2, 0, 1, 7), NPU__CAP(graph_init, 0, 1, 8), NPU__CAP(option_query, 0, 1, 11),
        NPU__CAP(create3, 0, 1, 12), NPU__CAP(persistent_input, 0, 1, 13), NPU__CAP(input_hash, 0, 1, 14),
        NPU__CAP(queue_turbo, 1, 0, 1), NPU__CAP(queue_options, 1, 1, 1), NPU__CAP(workload_type, 1, 0, 1),
        NPU__CAP(flags_by_index, 2, 5, 9)};
#undef NPU__CAP
    const uint32_t v[3] = {d->ext_version, d->cq_ext_version, d->compiler_version};
    npu__caps *c = &d->caps;
    size_t i;
    memset(c, 0, sizeof *c);
    for (i = 0; i < NPU__COUNT_OF(by_version); i++)
        ((unsigned char *)c)[by_version[i].field] = v[by_version[i].src] >= by_version[i].min;
    c->legacy_priority = v[2] != 0 && v[2] < NPU__ZE_VERSION(5, 2);
    c->profiling = (d->ext_flags & NPU__EXT_PROFILING) != 0 && c->create2;
    c->context_npu = (d->ext_flags & NPU__EXT_CONTEXT_NPU) != 0;
}

struct npu_model {
    npu_device *dev;
    npu_context *ctx;
    npu__ze_graph_handle_t graph;
    ze_command_queue_handle_t queue;      /* dev->queue or own_queue */
    ze_command_queue_handle_t own_queue;
    uint32_t n_args;
    uint32_t n_inputs, n_outputs, n_states;
    npu__arg *args;                       /* driver order */
    uint32_t *order;                      /* inputs, outputs, then (in, out) per state */
    uint32_t batch_lists;                 /* N command lists per inference (>= 1) */
    int dynamic_batch;                    /* compiled at batch 1 from a dynamic batch:
                                             requests choose 1..max_batch lists */
    npu_model_info info;                  /* npu_model_get_info */
    ze_command_list_handle_t init_list;   /* command-list initialization (< 1.8), */
    ze_fence_handle_t init_fence;         /* kept until destroy: no release can fail
                                             inside a successful create */
    void *map;                            /* import_file mapping kept for the graph */
    size_t map_size;
    size_t arena_bytes;
    atomic_flag record_lock;              /* serializes SetArgumentValue + Append */
    const npu__ze_profiling_ddi *prof;    /* profiled model: the driver's table */
    void *prof_pool;                      /* and its pool of prof_count query slots */
    uint32_t prof_count;
    atomic_uint_fast64_t prof_slots;      /* bit i: slot i taken by a request */
    /* Set with the pool (npu__model_controls): reached only through these, so
     * programs that never profile do not link them. */
    npu_status (*prof_attach)(npu_request *q);
    void (*prof_detach)(npu_request *q);
};

typedef struct npu__req_arg {
    void *own;          /* driver host allocation (full batch, rounded to 4096) */
    void *imported;     /* caller memory imported into the driver (used in place);
                           for an fd import, fd_alloc + the caller's offset */
    void *user;         /* caller memory copied around each inference */
    void *fd_alloc;     /* the allocation of a dma-buf import (what zeMemFree takes) */
} npu__req_arg;

struct npu_request {
    npu_model *model;
    npu_context *ctx;
    ze_command_queue_handle_t queue;
    ze_fence_handle_t fence;
    uint32_t n_lists;                /* per set: model->batch_lists, or max_batch for a
                                        dynamic-batch model */
    uint32_t n_active;               /* lists submitted per inference (<= n_lists) */
    uint32_t n_sets;                 /* 2 with states (alternating buffers), else 1 */
    uint32_t set;                    /* set the next inference submits */
    int running;
    ze_command_list_handle_t *lists; /* n_sets * n_lists */
    npu__req_arg *a;                 /* per driver argument */
    uint32_t *copy_in, *copy_out;    /* args with a caller buffer in copy mode */
    uint32_t n_copy_in, n_copy_out;
    void *prof_query;                /* profiled model: this request's query */
    uint32_t prof_slot;
};

/* ---- Helpers ---- */

static size_t npu__round_page(uint64_t n)
{
    uint64_t r = (n + 4095u) & ~(uint64_t)4095u;
    if (r == 0) r = 4096;
    return (size_t)r;
}

static uint64_t npu__now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A command list on the device's compute group, and a fence on queue q: what
 * a model's command-list initialization and a request's lists share. On
 * failure *out is NULL (nothing to release). */
static ze_result_t npu__list_create(const npu_device *d, ze_command_list_handle_t *out)
{
    ze_command_list_desc_t ld;
    ze_result_t r;
    memset(&ld, 0, sizeof ld);
    ld.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC;
    ld.commandQueueGroupOrdinal = d->queue_ordinal;
    r = zeCommandListCreate(d->zctx, d->device, &ld, out);
    if (r != ZE_RESULT_SUCCESS) *out = NULL;
    return r;
}

static ze_result_t npu__fence_create(ze_command_queue_handle_t q, ze_fence_handle_t *out)
{
    ze_fence_desc_t fd;
    ze_result_t r;
    memset(&fd, 0, sizeof fd);
    fd.stype = ZE_STRUCTURE_TYPE_FENCE_DESC;
    r = zeFenceCreate(q, &fd, out);
    if (r != ZE_RESULT_SUCCESS) *out = NULL;
    return r;
}

static ze_command_queue_priority_t npu__ze_priority(npu_priority p)
{
    static const ze_command_queue_priority_t by_priority[] = {
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL, ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_LOW, ZE_COMMAND_QUEUE_PRIORITY_NORMAL,
        ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH};
    return (unsigned)p < NPU__COUNT_OF(by_priority) ? by_priority[p] : ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
}

static const char *npu__platform_name(uint32_t device_id)
{
    switch (device_id) {
    case 0x7D1D: case 0xAD1D: return "3720";
    case 0x643E: return "4000";
    case 0xB03E: case 0xFD3E: return "50xx";
    default: return "unknown";
    }
}

static npu_type npu__type_from_ze(uint32_t prec)
{
    int t;
    for (t = 1; t < (int)NPU_TYPE_COUNT; t++)
        if (npu__types[t].ze_precision == prec) return (npu_type)t;
    return NPU_TYPE_UNDEFINED;
}

static uint32_t npu__rank_from_layout(uint32_t code, const uint32_t *dims)
{
    uint32_t r;
    switch (code) {
    case 0x1: case 0x2: return 4;
    case 0x3: case 0x4: return 5;
    case 0x60: return 1;
    case 0x80: return 3;
    case 0xC0: case 0xC1: case 0xC2: return 2;
    default: break;
    }
    for (r = 5; r > 1 && dims[r - 1] == 1; r--) {}
    return r;
}

static const char *npu__layout_by_rank(uint32_t rank)
{
    /* Rank 0 is the literal "**SCALAR**", asterisks included (OpenVINO's
     * rankToLegacyLayoutString; the compiler's SUPPORTED_LAYOUTS refuses a
     * plain "SCALAR"). */
    static const char *const by_rank[] = {"**SCALAR**", "C", "NC", "CHW", "NCHW", "NCDHW"};
    return rank < 6 ? by_rank[rank] : "BLOCKED";
}

/* fsync()s the directory that holds `path` (making a rename in it durable).
 * Returns 0 or an errno. */
#define NPU__NAME_MAX 255   /* a file name component (Linux NAME_MAX) */

/* Opens the directory that holds `path` (O_RDONLY: it can be fsync'ed and
 * read) and points *base at the last component. The directory part is
 * resolved in pieces of under 512 bytes, each cut after a '/', so that no
 * path-sized buffer sits on the stack: a path of up to 511 bytes resolves
 * exactly like open(2); a longer one also needs read permission on the
 * directories where a piece ends. Returns 0 or an errno value. */
static int npu__open_dir_of(const char *path, const char **base, int *out)
{
    char part[512];
    const char *slash = strrchr(path, '/'), *p = path, *end;
    int fd = AT_FDCWD;
    *out = -1;
    *base = slash != NULL ? slash + 1 : path;
    if (slash == NULL) {
        p = ".";   /* no directory part: the working directory, as one piece */
        end = p + 1;
    } else {
        end = slash == path ? slash + 1 : slash;   /* the directory part is [path, end) */
    }
    while (p < end) {
        size_t n = (size_t)(end - p);
        int nfd = -1, err = ENAMETOOLONG;
        if (n >= sizeof part) {
            const char *cut = p + sizeof part - 2;
            while (cut > p && *cut != '/') cut--;
            n = cut > p ? (size_t)(cut - p) + 1 : 0;   /* 0: no '/' to cut after */
        }
        if (n > 0) {
            memcpy(part, p, n);
            part[n] = '\0';
            nfd = openat(fd, part, O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NONBLOCK);
            err = errno;
        }
        if (fd != AT_FDCWD) close(fd);
        if (nfd < 0) return err;
        fd = nfd;
        p += n;
    }
    *out = fd;
    return 0;
}

#ifndef NPU_NO_CACHE
static int npu__fsync_dir_of(const char *path)
{
    const char *base;
    int fd, err = npu__open_dir_of(path, &base, &fd);
    if (err != 0) return err;
    if (fsync(fd) != 0 && errno != EINVAL) err = errno;
    close(fd);
    return err;
}
#endif

/* Polite spin lock (record_lock); recordings are short and rare. */
static void npu__model_lock(npu_model *m)
{
    while (atomic_flag_test_and_set_explicit(&m->record_lock, memory_order_acquire)) sched_yield();
}

static void npu__model_unlock(npu_model *m)
{
    atomic_flag_clear_explicit(&m->record_lock, memory_order_release);
}

/* ==== 11. Device ========================================================= */
/* Owns: npu_device_open/close and the device's properties: finding the NPU
 * driver among the loader's drivers, its graph extension (the highest 1.x
 * offered) and command-queue extension, the driver capabilities computed once
 * (npu__caps), the compiler version and its option answers, the context and
 * the default command queue, the "why is there no NPU" diagnosis.
 * Calls: sections 1-3 (errors, arena scratch for the extension list) and 10
 * (the ABI declarations and the result mapping). */

#define NPU__MAX_EXTENSIONS 96
#define NPU__EXT_LIST_BYTES (NPU__MAX_EXTENSIONS * sizeof(ze_driver_extension_properties_t))
/* the list, then the chosen graph extension's name */
#define NPU__EXT_SCRATCH_BYTES (NPU__EXT_LIST_BYTES + ZE_MAX_EXTENSION_NAME)
_Static_assert(16 * sizeof(ze_command_queue_group_properties_t) <= NPU__MAX_EXTENSIONS * sizeof(ze_driver_extension_properties_t),
               "the queue groups fit the extension scratch");

/* The device, and while npu_device_open runs, the scratch for the extension
 * list behind it (handed back before it returns). */
NPU_API size_t npu_device_size(void)
{
    return NPU_ARENA_ROUND(sizeof(struct npu_device)) + NPU_ARENA_ROUND(NPU__EXT_SCRATCH_BYTES);
}

#define NPU__MAX_DRIVERS 16
#define NPU__MAX_DEVICES 16
NPU__MSG_ONLY(static const char npu__no_device_hint[] =
    "To run on the software NPU instead: make sim; then set "
    "ZE_ENABLE_ALT_DRIVERS=/abs/path/build/libze_npu_sim.so (the Level Zero loader then loads it)";)

/* Finds the graph extension of a driver: the highest 1.x version offered under a
 * name starting with "ZE_extension_graph", into d->ext_version (0 if none) and
 * its name. Also notes the command-queue NPU extension (d->cq_ext_version)
 * and the others npu uses (d->ext_flags). */
static npu_status npu__probe_extensions(npu_device *d, ze_driver_handle_t drv, char *name)
{
    npu_context *ctx = d->ctx;
    ze_driver_extension_properties_t *ext = d->ext_scratch;
    uint32_t n = 0, i;
    ze_result_t r;
    d->ext_version = 0;
    d->cq_ext_version = 0;
    d->ext_flags = 0;
    name[0] = '\0';
    r = zeDriverGetExtensionProperties(drv, &n, NULL);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDriverGetExtensionProperties", r);
    if (n > NPU__MAX_EXTENSIONS) n = NPU__MAX_EXTENSIONS;
    memset(ext, 0, NPU__EXT_LIST_BYTES);
    r = zeDriverGetExtensionProperties(drv, &n, ext);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDriverGetExtensionProperties", r);
    for (i = 0; i < n && i < NPU__MAX_EXTENSIONS; i++) {
        ext[i].name[ZE_MAX_EXTENSION_NAME - 1] = '\0';
        if (strcmp(ext[i].name, NPU__ZE_CQ_NPU_EXT_NAME) == 0) {
            d->cq_ext_version = ext[i].version;
        } else if (strcmp(ext[i].name, NPU__ZE_MEMMAP_EXT_NAME) == 0) {
            d->ext_flags |= NPU__EXT_MEMMAP;
        } else if ((ext[i].version >> 16) != 1) {
            continue;   /* the others are used at major version 1 only */
        } else if (strncmp(ext[i].name, NPU__ZE_GRAPH_EXT_PREFIX, sizeof NPU__ZE_GRAPH_EXT_PREFIX - 1) == 0) {
            if (ext[i].version > d->ext_version) {
                d->ext_version = ext[i].version;
                npu__strlcpy(name, ext[i].name, ZE_MAX_EXTENSION_NAME);
            }
        } else {
            if (strcmp(ext[i].name, NPU__ZE_PROFILING_EXT_NAME) == 0) d->ext_flags |= NPU__EXT_PROFILING;
            if (strcmp(ext[i].name, NPU__ZE_CONTEXT_NPU_EXT_NAME) == 0) d->ext_flags |= NPU__EXT_CONTEXT_NPU;
        }
    }
    return NPU_OK;
}

/* The first VPU device of a driver (else its first device when want_vpu is
 * 0), with its properties in *props: the chosen device's are then the
 * device's own (npu_device.props), asked once. */
static npu_status npu__probe_device(npu_context *ctx, ze_driver_handle_t drv, int want_vpu,
                                    ze_device_handle_t *out, ze_device_properties_t *props)
{
    ze_device_handle_t devs[NPU__MAX_DEVICES];
    uint32_t n = 0, i, asked;
    ze_result_t r;
    *out = NULL;
    r = zeDeviceGet(drv, &n, NULL);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDeviceGet", r);
    if (n > NPU__MAX_DEVICES) n = NPU__MAX_DEVICES;
    if (n == 0) return NPU_OK;
    asked = n;
    r = zeDeviceGet(drv, &n, devs);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDeviceGet", r);
    /* The count the driver writes back is hostile too: no more handles than
     * were asked for (and written). */
    if (n > asked) n = asked;
    if (n == 0) return NPU_OK;
    /* Each device in order; step n (no VPU device, want_vpu 0) asks the
     * first one again, for its properties. */
    for (i = 0; i < n + !want_vpu; i++) {
        ze_device_handle_t dev = devs[i < n ? i : 0];
        memset(props, 0, sizeof *props);
        props->stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
        r = zeDeviceGetProperties(dev, props);
        if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDeviceGetProperties", r);
        if (props->type == ZE_DEVICE_TYPE_VPU || i == n) {
            *out = dev;
            return NPU_OK;
        }
    }
    return NPU_OK;
}

NPU__NOINLINE static npu_status npu__select_driver(npu_device *d, char *ext_name)
{
    npu_context *ctx = d->ctx;
    ze_driver_handle_t drivers[NPU__MAX_DRIVERS];
    uint32_t n = 0, k;
    ze_result_t r;
    npu_status st;

    r = zeInit(ZE_INIT_FLAG_VPU_ONLY);
    if (r != ZE_RESULT_SUCCESS) r = zeInit(0);
    if (r != ZE_RESULT_SUCCESS)
        return npu__fail(ctx, NPU_ERR_NO_DEVICE,
                         "no NPU: zeInit failed (ze_result_t 0x%08x): the Level Zero loader found no usable "
                         "driver (searched its default drivers libze_intel_gpu.so.1 and libze_intel_vpu.so.1, "
                         "or the list in ZE_ENABLE_ALT_DRIVERS). %s",
                         (unsigned)r, npu__no_device_hint);
    r = zeDriverGet(&n, NULL);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDriverGet", r);
    if (n > NPU__MAX_DRIVERS) n = NPU__MAX_DRIVERS;
    if (n > 0) {
        uint32_t asked = n;
        r = zeDriverGet(&n, drivers);
        if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDriverGet", r);
        if (n > asked) n = asked;   /* the count written back is hostile too */
    }
    /* Step k < n (pass 0): Intel's NPU driver by UUID, driver k. Step k >= n
     * (pass 1): any driver with a VPU device and the graph extension, driver
     * k - n. */
    for (k = 0; k < 2 * n; k++) {
        /* The candidate's properties go straight to the device (the chosen
         * driver's stay; a failed open discards the device). */
        ze_driver_properties_t *dp = &d->driver_props;
        ze_device_handle_t dev = NULL;
        int pass = k >= n, intel;
        ze_driver_handle_t drv = drivers[pass ? k - n : k];
        memset(dp, 0, sizeof *dp);
        dp->stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
        r = zeDriverGetProperties(drv, dp);
        if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDriverGetProperties", r);
        intel = memcmp(dp->uuid.id, npu__intel_npu_driver_uuid, 16) == 0;
        if (intel == pass) continue;
        st = npu__probe_device(ctx, drv, pass, &dev, &d->props);
        if (st != NPU_OK) return st;
        if (dev == NULL) continue;
        st = npu__probe_extensions(d, drv, ext_name);
        if (st != NPU_OK) return st;
        if (d->ext_version == 0) continue;
        d->driver = drv;
        d->device = dev;
        d->is_simulated = !intel;
        if (d->ext_version > NPU__ZE_GRAPH_EXT_MAX) d->ext_version = NPU__ZE_GRAPH_EXT_MAX;
        return NPU_OK;
    }
    return npu__fail(ctx, NPU_ERR_NO_DEVICE,
                     "no NPU: %u Level Zero driver(s) found, none is Intel's NPU driver (UUID "
                     "017de931-6b4d-4fd4-aa9b-5bed77fc8e89) or has a VPU device offering the "
                     "\"ZE_extension_graph\" extension. %s",
                     (unsigned)n, npu__no_device_hint);
}

static npu_status npu__create_queue(npu_device *d, ze_command_queue_priority_t prio, int turbo,
                                    ze_command_queue_handle_t *out)
{
    ze_command_queue_desc_t qd;
    /* turbo: the 1.1 struct (options) when the driver has it, else the 1.0
     * one (turbo); both are {stype, pNext, one field} */
    union {
        npu__ze_cq_desc_npu_ext t1;
        npu__ze_cq_desc_npu_ext_2 t2;
    } t;
    ze_result_t r;
    memset(&qd, 0, sizeof qd);
    qd.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
    qd.ordinal = d->queue_ordinal;
    qd.mode = ZE_COMMAND_QUEUE_MODE_DEFAULT;
    qd.priority = prio;
    if (turbo) {
        if (!d->caps.queue_options && !d->caps.queue_turbo)
            return npu__fail(d->ctx, NPU_ERR_UNSUPPORTED,
                             "turbo: the driver has no " NPU__ZE_CQ_NPU_EXT_NAME " (the command-queue extension "
                             "that carries it); ask without turbo");
        memset(&t, 0, sizeof t);
        if (d->caps.queue_options) {
            t.t2.stype = 2;
            t.t2.options = 1;
        } else {
            t.t1.stype = 1;
            t.t1.turbo = 1;
        }
        qd.pNext = &t;
    }
    r = zeCommandQueueCreate(d->zctx, d->device, &qd, out);
    if (r != ZE_RESULT_SUCCESS) {
        *out = NULL;
        return npu__ze_fail(d->ctx, "zeCommandQueueCreate", r);
    }
    return NPU_OK;
}

static void npu__device_release(npu_device *d)
{
    if (d->queue != NULL) zeCommandQueueDestroy(d->queue);
    if (d->zctx != NULL) zeContextDestroy(d->zctx);
    d->queue = NULL;
    d->zctx = NULL;
}

/* Whether the driver's compiler takes --config key (with `value`, or any value
 * when NULL). Graph extension >= 1.11 asks the compiler; anything but SUCCESS
 * (UNSUPPORTED_FEATURE, DEPENDENCY_UNAVAILABLE, UNKNOWN, ...) means "not
 * supported", as in OpenVINO's ZeGraphExtWrappers::isOptionSupported. Older
 * extensions cannot ask: -1. */
static int npu__option_query(const npu_device *d, const char *key, const char *value)
{
    if (!d->caps.option_query) return -1;
    return d->g->pfnCompilerIsOptionSupported(d->device, NPU__ZE_NPU_COMPILER_OPTIONS, key, value) ==
           ZE_RESULT_SUCCESS;
}

static int npu__option_supported(const npu_device *d, const char *key, const char *value)
{
    return npu__option_query(d, key, value) == 1;
}

/* The config-key prefix the compiler reads: VPUX_ (compiler < 4.0), VPU_
 * (< 5.0), else NPU_ (OpenVINO's serializeConfig). Used by the option
 * queries here and by the build flags (section 12). */
static const char *npu__cfg_prefix(uint32_t compiler_version)
{
    if (compiler_version != 0 && compiler_version < NPU__ZE_VERSION(4, 0)) return "VPUX_";
    if (compiler_version != 0 && compiler_version < NPU__ZE_VERSION(5, 0)) return "VPU_";
    return "NPU_";
}


/* The --config key NPU__CFG_<which> as this compiler spells it. */
static void npu__cfg_key(const npu_device *d, uint32_t which, char *key, size_t cap)
{
    static const char *const names[] = {"PERFORMANCE_HINT", "MODEL_PRIORITY", "TURBO", "TILES",
                                        "COMPILATION_MODE_PARAMS"};
    const char *pre = which >= NPU__CFG_TURBO ? npu__cfg_prefix(d->compiler_version) : "";
    size_t n = npu__strlcpy(key, pre, cap);
    if (n < cap) npu__strlcpy(key + n, names[which], cap - n);
}

NPU__NOINLINE static npu_status npu__device_init(npu_device *d, const npu_device_options *opts)
{
    npu_context *ctx = d->ctx;
    char *ext_name = (char *)(void *)d->ext_scratch + NPU__EXT_LIST_BYTES;   /* scratch: past the list */
    /* the queue groups: in the extension list's arena scratch, which
     * driver selection is done with by now (no 640 bytes on the stack) */
    ze_command_queue_group_properties_t *groups = (ze_command_queue_group_properties_t *)(void *)d->ext_scratch;
    npu__ze_device_graph_properties gp;
    ze_context_desc_t cd;
    ze_api_version_t api = (ze_api_version_t)0;
    uint32_t n = 0, i, k;
    npu_status st;
    ze_result_t r;

    st = npu__select_driver(d, ext_name);
    if (st != NPU_OK) return st;
    d->props.name[ZE_MAX_DEVICE_NAME - 1] = '\0';   /* (npu__probe_device asked them) */
    NPU__ZE(ctx, zeDriverGetApiVersion(d->driver, &api), "zeDriverGetApiVersion");
    d->api_version = (uint32_t)api;
    r = zeDriverGetExtensionFunctionAddress(d->driver, ext_name, (void **)(void *)&d->g);
    if (r != ZE_RESULT_SUCCESS || d->g == NULL) {
        d->g = NULL;
        return npu__fail(ctx, NPU_ERR_NO_DEVICE,
                         "no NPU: zeDriverGetExtensionFunctionAddress(\"%s\") failed: ze_result_t 0x%08x. %s",
                         ext_name, (unsigned)r, npu__no_device_hint);
    }
    d->ext_version = npu__ext_usable(d->g, d->ext_version);
    if (d->ext_version == 0)
        return npu__fail(ctx, NPU_ERR_NO_DEVICE, "no NPU: the \"%s\" table lacks graph extension 1.0 entries. %s",
                         ext_name, npu__no_device_hint);
    memset(&gp, 0, sizeof gp);
    gp.stype = NPU__ZE_STYPE_DEVICE_GRAPH_PROPERTIES;
    NPU__ZE(ctx, d->g->pfnDeviceGetGraphProperties(d->device, &gp), "pfnDeviceGetGraphProperties");
    /* The device may report a lower version than the extension list. */
    if ((gp.graphExtensionVersion >> 16) == 1 && gp.graphExtensionVersion < d->ext_version)
        d->ext_version = gp.graphExtensionVersion;
    d->compiler_version = NPU__ZE_VERSION(gp.compilerVersion.major, gp.compilerVersion.minor);
    d->max_opset = gp.maxOVOpsetVersionSupported;
    /* Queue ordinal: the group whose flags are exactly COMPUTE, else the first
     * with COMPUTE, else 0. */
    NPU__ZE(ctx, zeDeviceGetCommandQueueGroupProperties(d->device, &n, NULL),
            "zeDeviceGetCommandQueueGroupProperties");
    if (n > 16) n = 16;
    memset(groups, 0, 16 * sizeof *groups);
    for (i = 0; i < n; i++) groups[i].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
    if (n > 0)
        NPU__ZE(ctx, zeDeviceGetCommandQueueGroupProperties(d->device, &n, groups),
                "zeDeviceGetCommandQueueGroupProperties");
    /* (k: the best group's rank so far, 2 exactly COMPUTE, 1 with COMPUTE;
     * the first of a rank wins; the zero-filled device says ordinal 0) */
    for (i = 0, k = 0; i < n && i < 16; i++) {
        uint32_t rank = (groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE ? 1u : 0u) +
                        (groups[i].flags == ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE);
        if (rank > k) {
            k = rank;
            d->queue_ordinal = i;
        }
    }
    memset(&cd, 0, sizeof cd);
    cd.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC;
    r = zeContextCreate(d->driver, &cd, &d->zctx);
    if (r != ZE_RESULT_SUCCESS) {
        d->zctx = NULL;
        return npu__ze_fail(ctx, "zeContextCreate", r);
    }
    npu__caps_init(d);
    d->export_ov[0] = NPU_EXPORT_OPENVINO_MAJOR;
    d->export_ov[1] = NPU_EXPORT_OPENVINO_MINOR;
    d->export_ov[2] = NPU_EXPORT_OPENVINO_PATCH;
    if (opts != NULL && (opts->export_openvino_version[0] | opts->export_openvino_version[1] |
                         opts->export_openvino_version[2]) != 0)
        for (i = 0; i < 3; i++) d->export_ov[i] = opts->export_openvino_version[i];
    d->queue_priority = npu__ze_priority(opts ? opts->priority : NPU_PRIORITY_DEFAULT);
    d->queue_turbo = opts != NULL && opts->turbo;
    st = npu__create_queue(d, d->queue_priority, d->queue_turbo, &d->queue);
    if (st != NPU_OK) return st;
    /* Last: a failing query only means "not supported", so it fails nothing.
     * Layout B needs the compiler to be told so in --config: the 2025 key
     * NPU_USE_BASE_MODEL_SERIALIZER="NO" or the 2026 key
     * NPU_MODEL_SERIALIZER_VERSION="NO_WEIGHTS_COPY" (OpenVINO's
     * driver_compiler_adapter.cpp useBaseModelSerializer checks them in this
     * order). Without either, only layout A exists. */
    if (npu__option_supported(d, "NPU_USE_BASE_MODEL_SERIALIZER", "NO"))
        d->serializer_key = NPU__SER_USE_BASE;
    else if (npu__option_supported(d, "NPU_MODEL_SERIALIZER_VERSION", "NO_WEIGHTS_COPY"))
        d->serializer_key = NPU__SER_VERSION;
    for (i = 0; i < 5; i++) {
        char key[64];
        npu__cfg_key(d, i, key, sizeof key);
        d->cfg_query[i] = (signed char)npu__option_query(d, key, NULL);
    }
    npu__log(ctx, NPU_LOG_INFO, "device: %s (0x%04x), graph extension %u.%u (%s), compiler %u.%u%s",
             d->props.name, (unsigned)d->props.deviceId, (unsigned)(d->ext_version >> 16),
             (unsigned)(d->ext_version & 0xffffu), ext_name, (unsigned)(d->compiler_version >> 16),
             (unsigned)(d->compiler_version & 0xffffu), d->is_simulated ? ", simulated" : "");
    return NPU_OK;
}

/* An options struct's priority (an npu_priority: "<who>: priority %d is not
 * an npu_priority") and reserved words ("<what>: reserved[i] ..."), for
 * npu_device_open and the imports (section 12). */
static npu_status npu__check_opts(npu_context *ctx, npu_priority priority, const uint32_t *reserved, size_t n,
                                  const char *who, const char *what)
{
    NPU__MSG_UNUSED(who);
    if ((unsigned)priority > (unsigned)NPU_PRIORITY_HIGH)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "%s: priority %d is not an npu_priority", who,
                         (int)priority);
    return npu__check_reserved_n(ctx, reserved, (unsigned)n, what);
}

NPU_API npu_status npu_device_open(npu_arena *arena, npu_context *ctx, const npu_device_options *options,
                           npu_device **out)
{
    npu_device *d;
    size_t mark;
    npu_status st;
    if (out == NULL) return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_device_open: out is NULL");
    *out = NULL;
    if (arena == NULL) return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_device_open: arena is NULL");
    if (options != NULL && npu__check_opts(ctx, options->priority, options->reserved, NPU__COUNT_OF(options->reserved),
                                           "npu_device_open", "device options") != NPU_OK)
        return NPU_ERR_INVALID_ARGUMENT;
    mark = arena->used;
    /* the device, then the scratch for the extension list (npu_device_size) */
    d = (npu_device *)npu__alloc(arena, ctx, NPU_ARENA_ROUND(sizeof *d) + NPU__EXT_SCRATCH_BYTES, "device");
    if (d == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    d->ctx = ctx;
    d->ext_scratch = (ze_driver_extension_properties_t *)(void *)((unsigned char *)d + NPU_ARENA_ROUND(sizeof *d));
    st = npu__device_init(d, options);
    d->ext_scratch = NULL;
    npu_arena_rewind(arena, mark + NPU_ARENA_ROUND(sizeof *d));
    if (st != NPU_OK) {
        npu__device_release(d);
        npu_arena_rewind(arena, mark);
        return st;
    }
    *out = d;
    return NPU_OK;
}

NPU_API void npu_device_close(npu_device *dev)
{
    if (dev == NULL) return;
    npu__device_release(dev);
}

/* An extension's function table (zeDriverGetExtensionFunctionAddress), asked
 * only by the entry points that use it; the caller checked npu__caps. */
static npu_status npu__ext_table(npu_device *d, const char *name, const void **out)
{
    void *t = NULL;
    ze_result_t r = zeDriverGetExtensionFunctionAddress(d->driver, name, &t);
    NPU__UNUSED(name);
    if (r == ZE_RESULT_SUCCESS && t == NULL) r = ZE_RESULT_ERROR_UNKNOWN;   /* no table */
    *out = t;
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(d->ctx, "zeDriverGetExtensionFunctionAddress", r);
    return NPU_OK;
}

NPU_API npu_status npu_device_set_idle_optimizations(npu_device *dev, int enable)
{
    const npu__ze_context_npu_ddi *t;
    npu__ze_context_props props;
    npu_status st;
    ze_result_t r;
    if (dev == NULL) return npu__fail(NULL, NPU_ERR_INVALID_ARGUMENT, "npu_device_set_idle_optimizations: NULL device");
    if (!dev->caps.context_npu)
        return npu__fail(dev->ctx, NPU_ERR_UNSUPPORTED, "idle optimizations: the driver does not offer "
                         NPU__ZE_CONTEXT_NPU_EXT_NAME " (Linux NPU driver 1.32 and later do)");
    st = npu__ext_table(dev, NPU__ZE_CONTEXT_NPU_EXT_NAME, (const void **)&t);
    if (st != NPU_OK) return st;
    memset(&props, 0, sizeof props);
    props.stype = 1;
    props.options = enable ? 1u : 0u;
    r = t->pfnSetProperties(dev->zctx, &props);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(dev->ctx, "pfnSetProperties (ZE_extension_context_npu)", r);
    return NPU_OK;
}

NPU_API uint32_t npu_device_optimal_requests(const npu_device *dev, npu_performance_hint hint)
{
    if (dev == NULL) return 0;
    if (hint != NPU_HINT_THROUGHPUT) return 1;
    /* OpenVINO NPU plugin table: 3720 -> 4, 4000 -> 8; later platforms as 4000. */
    switch (dev->props.deviceId) {
    case 0x7D1D: case 0xAD1D: return 4;
    default: return 8;
    }
}

NPU_API npu_status npu_device_get_properties(npu_device *dev, npu_device_properties *out)
{
    if (dev == NULL || out == NULL) return npu__fail(dev ? dev->ctx : NULL, NPU_ERR_INVALID_ARGUMENT,
                                                     "npu_device_get_properties: NULL argument");
    memset(out, 0, sizeof *out);
    npu__strlcpy(out->name, dev->props.name, sizeof out->name);
    npu__strlcpy(out->platform, npu__platform_name(dev->props.deviceId), sizeof out->platform);
    out->device_id = dev->props.deviceId;
    out->vendor_id = dev->props.vendorId;
    out->driver_version = dev->driver_props.driverVersion;
    out->api_version = dev->api_version;
    out->graph_ext_version = dev->ext_version;
    out->compiler_version = dev->compiler_version;
    out->max_opset = dev->max_opset;
    out->optimal_requests_latency = npu_device_optimal_requests(dev, NPU_HINT_LATENCY);
    out->optimal_requests_throughput = npu_device_optimal_requests(dev, NPU_HINT_THROUGHPUT);
    out->no_weights_copy = dev->serializer_key != NPU__SER_NONE;
    out->host_memory_import = (dev->ext_flags & NPU__EXT_MEMMAP) != 0;
    out->is_simulated = dev->is_simulated;
    memcpy(out->driver_uuid, dev->driver_props.uuid.id, 16);
    if (dev->caps.memory_query) {
        npu__ze_graph_memory_query q = {0, 0};
        NPU__ZE(dev->ctx, dev->g->pfnQueryContextMemory(dev->zctx, NPU__ZE_MEMORY_QUERY_DDR, &q),
                "pfnQueryContextMemory");
        out->memory_total = q.total;
        out->memory_allocated = q.allocated;
    }
    return NPU_OK;
}

static const char *const npu__device_property_names[] = {
    "FULL_DEVICE_NAME", "DEVICE_ARCHITECTURE", "DEVICE_TYPE", "DEVICE_UUID", "NPU_BACKEND_NAME",
    "NPU_DRIVER_VERSION", "NPU_COMPILER_VERSION", "NPU_GRAPH_EXTENSION_VERSION", "NPU_MAX_OPSET",
    "NPU_DEVICE_TOTAL_MEM_SIZE", "NPU_DEVICE_ALLOC_MEM_SIZE", "OPTIMAL_NUMBER_OF_INFER_REQUESTS",
    "NPU_IS_SIMULATED", NULL};

NPU_API const char *const *npu_device_supported_properties(void) { return npu__device_property_names; }

NPU_API npu_status npu_device_get_property(npu_device *dev, const char *name, char *dst, size_t cap, size_t *size)
{
    npu_device_properties p;
    const char *text = NULL;   /* the value as text, or a number in `number` */
    uint64_t number = 0;
    npu__sink s;
    npu_status st;
    size_t i;
    if (dev == NULL || name == NULL)
        return npu__fail(dev ? dev->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_device_get_property: NULL argument");
    for (i = 0; npu__device_property_names[i] != NULL; i++)
        if (strcmp(npu__device_property_names[i], name) == 0) break;
    if (npu__device_property_names[i] == NULL)
        return npu__fail(dev->ctx, NPU_ERR_NOT_FOUND, "device property '%s' is not supported", name);
    st = npu_device_get_properties(dev, &p);
    if (st != NPU_OK) return st;
    npu__sink_init(&s, dst, cap);
    switch (i) {
    case 0: text = p.name; break;
    case 1: text = p.platform; break;
    case 2: text = (dev->props.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) ? "INTEGRATED" : "DISCRETE"; break;
    case 3: {
        static const char hex[] = "0123456789abcdef";
        size_t k;
        for (k = 0; k < 32; k++) {
            unsigned byte = dev->props.uuid.id[k / 2];
            npu__sink_put(&s, &hex[k % 2 ? byte & 0xfu : byte >> 4], 1);
        }
        text = "";
        break;
    }
    case 4: text = "LEVEL0"; break;
    case 5: number = p.driver_version; break;
    case 6: number = p.compiler_version; break;
    case 7:
        npu__sink_u64_dec(&s, p.graph_ext_version >> 16);
        npu__sink_str(&s, ".");
        number = p.graph_ext_version & 0xffffu;
        break;
    case 8: number = p.max_opset; break;
    case 9: number = p.memory_total; break;
    case 10: number = p.memory_allocated; break;
    case 11: number = p.optimal_requests_latency; break;
    default: text = p.is_simulated ? "YES" : "NO"; break;
    }
    if (text != NULL)
        npu__sink_str(&s, text);
    else
        npu__sink_u64_dec(&s, number);
    npu__sink_put(&s, "", 1);
    return npu__sink_finish(&s, dev->ctx, name, size);
}

/* ==== 12. Model ========================================================== */
/* Owns: npu_model: creating the driver's graph from a payload or a native
 * blob, reading its arguments (names, types, shapes, states), the build flags
 * (I/O precisions and layouts, config keys, the serializer key), import and
 * export (with the blob metadata of section 9a), the plain compile of a model
 * source and the batch plans (AUTO/PLUGIN/COMPILER) of compiling from a graph
 * or IR through the source tables of sections 7 and 8; the compile calls
 * themselves come last, in 14d, after the cache they go through.
 * Calls: sections 1-5, 7-8 through npu__source only, 9 (metadata, the input
 * hash) and 10-11. */

/* The driver's argument tables (8.7 KB each: 32 tensor names of 256 bytes):
 * arena scratch while a model is set up, never on the caller's stack. */
typedef struct npu__arg_scratch {
    npu__ze_graph_argument_properties_3 props;
    npu__ze_graph_argument_metadata meta;
} npu__arg_scratch;

/* What a model keeps; npu_model_size adds the set-up scratch on top. */
static size_t npu__model_kept(uint32_t n_args)
{
    return NPU_ARENA_ROUND(sizeof(struct npu_model)) + NPU_ARENA_ROUND((size_t)n_args * sizeof(npu__arg)) +
           NPU_ARENA_ROUND((size_t)n_args * sizeof(uint32_t));
}

NPU_API size_t npu_model_size(uint32_t n_args)
{
    if (n_args > NPU_MAX_ARGS) return 0;
    return npu__model_kept(n_args) + NPU_ARENA_ROUND(sizeof(npu__arg_scratch));
}

#ifndef NPU_NO_MESSAGES
/* A batch for messages, as npu__sink_batch writes it: "dynamic" or the number
 * (cap >= 24: exact). */
static void npu__batch_text(int64_t n, char *buf, size_t cap)
{
    if (n == NPU_DIM_DYNAMIC)
        npu__strlcpy(buf, "dynamic", cap);
    else
        snprintf(buf, cap, "%lld", (long long)n);
}
#endif

/* Debatches a model as created (batch_lists 1, not dynamic), for import
 * (metadata batch size) and the compile path (batch modes). batch > 1: the
 * number of command lists a request runs per inference, every non-state
 * argument's user-visible batch axis (compiled as 1) becomes batch (1 or
 * less: nothing to do). NPU_DIM_DYNAMIC: a model compiled at batch 1 from a
 * dynamic batch; the batch axis shows NPU_DIM_DYNAMIC, desc.bytes stays one
 * element's; requests pick the count. Every argument must be sliceable along
 * its batch axis: batch 1 there, and only 1s before it (so that element i
 * starts at i x slice_bytes). On failure the caller releases the model (its
 * arguments may be half changed). */
static npu_status npu__model_debatch(npu_model *m, int64_t batch)
{
    /* the refusals of an argument's batch axis: kind, name and batch, then
     * (with an axis) the batch axis, the layout and the first axis up to it
     * that is not 1, with its size */
    NPU__MSG_ONLY(static const char *const axis_fmt[2] = {
        "model: %s '%s' has no batch axis to debatch batch %s into",
        "model: %s '%s': debatching batch %s needs 1 on its batch axis %u (layout \"%s\") and on every axis "
        "before it (the outermost axis); axis %u has %lld in the compiled graph"};)
    NPU__MSG_ONLY(char what[24];)   /* the batch for the messages ("8", "dynamic") */
    uint32_t i, k, n = batch > 1 ? (uint32_t)batch : 0;   /* 0: dynamic */
    if (batch != NPU_DIM_DYNAMIC && (n == 0 || n == m->batch_lists)) return NPU_OK;
    NPU__MSG_ONLY(npu__batch_text(batch, what, sizeof what);)
    /* (with a state, every argument is one: none is sliced below) */
    if (m->n_states > 0)
        return npu__fail(m->ctx, NPU_ERR_UNSUPPORTED, "model: batch %s with %u state variable(s) cannot be "
                         "debatched", what, (unsigned)m->n_states);
    for (i = 0; i < m->n_args; i++) {
        npu__arg *a = &m->args[i];
        const int64_t *dims = a->desc.shape.dims;
        if (a->kind >= NPU__ARG_STATE_IN) continue;
        /* The batch axis's own size first (the message gives the compiled
         * batch), then the first axis before it that is not 1. (The axis is
         * below the rank unless the rank is 0: npu__model_set_layout; k stays
         * at most the batch axis: inside dims.) */
        k = a->batch_axis;
        if (k < a->desc.shape.rank && dims[k] == 1)
            for (k = 0; k < a->batch_axis && dims[k] == 1; k++) {}
        if (k >= a->desc.shape.rank || dims[k] != 1)
            return npu__fail(m->ctx, NPU_ERR_SHAPE, axis_fmt[a->batch_axis < a->desc.shape.rank],
                             a->kind == NPU__ARG_INPUT ? "input" : "output", a->desc.name, what,
                             (unsigned)a->batch_axis, a->desc.layout, (unsigned)k, (long long)dims[k]);
        if (n > 0 && a->slice_bytes > NPU__MAX_ARG_BYTES / n)
            return npu__fail(m->ctx, NPU_ERR_LIMIT, "model: argument '%s' of %llu bytes is too large for batch %s",
                             a->desc.name, (unsigned long long)a->slice_bytes, what);
        if (n > 0) a->desc.bytes = a->slice_bytes * n;
        a->desc.shape.dims[a->batch_axis] = n > 0 ? (int64_t)n : NPU_DIM_DYNAMIC;
    }
    if (n > 0)
        m->batch_lists = n;
    else
        m->dynamic_batch = 1;
    return NPU_OK;
}

static void npu__model_release(npu_model *m)
{
    if (m->prof_pool != NULL) m->prof->pfnProfilingPoolDestroy(m->prof_pool);
    m->prof_pool = NULL;
    if (m->graph != NULL) m->dev->g->pfnDestroy(m->graph);
    if (m->init_fence != NULL) zeFenceDestroy(m->init_fence);
    if (m->init_list != NULL) zeCommandListDestroy(m->init_list);
    if (m->own_queue != NULL) zeCommandQueueDestroy(m->own_queue);
    if (m->map != NULL) munmap(m->map, m->map_size);
    m->graph = NULL;
    m->init_fence = NULL;
    m->init_list = NULL;
    m->own_queue = NULL;
    m->map = NULL;
}

/* Command-list graph initialization (extension < 1.8, or stage 1 requested). */
static npu_status npu__graph_init_cmdlist(npu_model *m)
{
    /* The list and the fence go straight into the model (zeroed at create):
     * released with it (npu__model_release), whatever step fails. */
    const char *fn = "zeCommandListCreate";
    ze_result_t r = npu__list_create(m->dev, &m->init_list);
    if (r == ZE_RESULT_SUCCESS) {
        fn = "pfnAppendGraphInitialize";
        r = m->dev->g->pfnAppendGraphInitialize(m->init_list, m->graph, NULL, 0, NULL);
    }
    if (r == ZE_RESULT_SUCCESS) {
        fn = "zeCommandListClose";
        r = zeCommandListClose(m->init_list);
    }
    if (r == ZE_RESULT_SUCCESS) {
        fn = "zeFenceCreate";
        r = npu__fence_create(m->queue, &m->init_fence);
    }
    if (r == ZE_RESULT_SUCCESS) {
        fn = "zeCommandQueueExecuteCommandLists";
        r = zeCommandQueueExecuteCommandLists(m->queue, 1, &m->init_list, m->init_fence);
        if (r == ZE_RESULT_SUCCESS) {
            fn = "zeFenceHostSynchronize";
            r = zeFenceHostSynchronize(m->init_fence, UINT64_MAX);
            if (r != ZE_RESULT_SUCCESS) zeCommandQueueSynchronize(m->queue, UINT64_MAX);
        }
    }
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, fn, r);
    return NPU_OK;
}

/* Reads one argument's properties into a (an entry of the zeroed table). */
static npu_status npu__model_read_arg(npu_model *m, uint32_t index, npu__arg *a, npu__arg_scratch *sc)
{
    npu_device *d = m->dev;
    npu__ze_graph_argument_properties_3 *const p = &sc->props;
    npu__ze_graph_argument_metadata *const md = &sc->meta;
    int have_md = 0;
    uint32_t rank, k;
    /* Argument properties: v3 (1.2+), v2 (1.1) or v1; each is a prefix of v3. */
    int pv = 1 + d->caps.arg_props_2 + d->caps.arg_props_3;   /* 3 implies 2 (npu__caps_init) */
    ze_result_t (*get)(npu__ze_graph_handle_t, uint32_t, npu__ze_graph_argument_properties_3 *) =
        d->g->pfnGetArgumentProperties;
    static const uint32_t stypes[3] = {NPU__ZE_STYPE_GRAPH_ARGUMENT_PROPERTIES,
                                       NPU__ZE_STYPE_GRAPH_ARGUMENT_PROPERTIES_2,
                                       NPU__ZE_STYPE_GRAPH_ARGUMENT_PROPERTIES_3};
    static const char *const fns[3] = {"pfnGetArgumentProperties", "pfnGetArgumentProperties2",
                                       "pfnGetArgumentProperties3"};
    static const char *const state_prefix[2] = {NPU__READ_VALUE_PREFIX, NPU__ASSIGN_PREFIX};
    static const uint8_t state_len[2] = {sizeof NPU__READ_VALUE_PREFIX - 1, sizeof NPU__ASSIGN_PREFIX - 1};
    const char *display;
    uint32_t out;
    npu_type t;
    ze_result_t r;

    memset(p, 0, sizeof *p);
    p->stype = stypes[pv - 1];
    if (pv >= 2) get = d->g->pfnGetArgumentProperties2;
    if (pv == 3) get = d->g->pfnGetArgumentProperties3;
    r = get(m->graph, index, p);   /* d->g->pfnGetArgumentProperties{,2,3} */
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, fns[pv - 1], r);
    p->name[sizeof p->name - 1] = '\0';
    npu__strlcpy(a->ze_name, p->name, sizeof a->ze_name);
    /* An input (type 0) named read_value_<id> or an output (type 1) named
     * assign_<id> is a state's half, shown as <id>; any other "vpux_" name is
     * the driver's own. */
    out = p->type == 1;
    a->kind = out ? NPU__ARG_OUTPUT : NPU__ARG_INPUT;
    display = p->name;
    if (p->type <= 1 && strncmp(p->name, state_prefix[out], state_len[out]) == 0) {
        a->kind = NPU__ARG_STATE_IN + out;
        display = p->name + state_len[out];
    } else if (strncmp(p->name, "vpux_", 5) == 0) {
        return npu__fail(m->ctx, NPU_ERR_UNSUPPORTED, "model: argument %u '%s' is a driver-internal "
                         "argument this runtime does not handle", (unsigned)index, p->name);
    }

    /* Metadata (ext >= 1.6, as OpenVINO), not for state arguments. */
    if (d->caps.arg_metadata && a->kind < NPU__ARG_STATE_IN) {
        memset(md, 0, sizeof *md);
        md->stype = NPU__ZE_STYPE_GRAPH_ARGUMENT_METADATA;
        r = d->g->pfnGraphGetArgumentMetadata(m->graph, index, md);
        if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnGraphGetArgumentMetadata", r);
        /* (of the tensor names only the first is read) */
        md->friendly_name[sizeof md->friendly_name - 1] = '\0';
        md->tensor_names[0][255] = '\0';
        have_md = 1;
    }

    a->ze_precision = p->devicePrecision;
    t = npu__type_from_ze(p->devicePrecision);
    if (t == NPU_TYPE_UNDEFINED)
        return npu__fail(m->ctx, NPU_ERR_UNSUPPORTED, "model: argument '%s' has element type 0x%02x "
                         "(ze_graph_argument_precision_t), which npu does not support", p->name,
                         (unsigned)p->devicePrecision);
    if (pv == 3)
        rank = p->dims_count;
    else if (have_md)
        rank = md->shape_size;
    else
        rank = npu__rank_from_layout(p->deviceLayout, p->dims);
    if (rank > 5)
        return npu__fail(m->ctx, NPU_ERR_LIMIT, "model: argument '%s' has rank %u (at most 5)", p->name,
                         (unsigned)rank);
    a->desc.type = t;
    a->desc.shape.rank = rank;
    a->desc.bytes = npu_type_size(t);
    for (k = 0; k < rank; k++) {
        a->desc.shape.dims[k] = (int64_t)p->dims[k];
        /* The dims come from the blob: a product past what one host buffer
         * can hold (SIZE_MAX minus the page rounding) is refused here, so that
         * every later size (batch x bytes, page rounding) is checked once. */
        if (npu__mul_u64(a->desc.bytes, p->dims[k], &a->desc.bytes) || a->desc.bytes > NPU__MAX_ARG_BYTES)
            return npu__fail(m->ctx, NPU_ERR_LIMIT, "model: argument '%s' is too large: its byte size "
                             "overflows at dim %u (%u)", p->name, (unsigned)k, (unsigned)p->dims[k]);
    }
    a->slice_bytes = a->desc.bytes;
    a->pair = UINT32_MAX;   /* states: paired in npu__model_setup */
    /* The driver's deviceLayout only follows the rank (NCHW for 4-D): it is not
     * a layout the model has, so the caller sees "" (and batch axis 0, as the
     * zeroed table has them) until the source or the blob metadata gives one
     * (npu__model_source_layouts, _apply_layouts). */

    /* Caller-facing name: the first tensor name, else the friendly name, else
     * the driver's argument name. States: the variable id (set above). */
    if (a->kind >= NPU__ARG_STATE_IN) {
        /* (display is the variable id already) */
    } else if (pv == 3 && p->associated_tensor_names_count > 0) {
        p->associated_tensor_names[0][255] = '\0';
        display = p->associated_tensor_names[0];
    } else if (have_md && md->tensor_names_count > 0) {
        display = md->tensor_names[0];
    } else if (have_md && md->friendly_name[0] != '\0' && a->kind == NPU__ARG_OUTPUT) {
        display = md->friendly_name;
    }
    npu__strlcpy(a->name, display, sizeof a->name);
    a->desc.name = a->name;
    return NPU_OK;
}

/* The first of args [0, end) of `kind` named `name`; end if none. */
NPU__NOINLINE static uint32_t npu__find_arg(const npu_model *m, uint32_t kind, const char *name, uint32_t end)
{
    uint32_t j;
    for (j = 0; j < end; j++)
        if (m->args[j].kind == kind && strcmp(m->args[j].name, name) == 0) break;
    return j;
}

/* After the graph exists: arguments, I/O tables, states, initialization. */
static npu_status npu__model_setup(npu_model *m, npu_arena *arena)
{
    /* a state's pairing refused (FORMAT, 1 to 3; 0: not refused): the
     * state's name, the other argument and this read_value input */
    NPU__MSG_ONLY(static const char *const bad_fmt[4] = {NULL,
        "model: state '%s' has two read_value inputs (arguments %u and %u)",
        "model: state '%s': assign output %u is paired twice",
        "model: state '%s': read and assign buffers differ (assign output %u, read_value input %u)"};)
    npu_device *d = m->dev;
    npu__ze_graph_properties_2 gp;
    uint32_t i, j, n, k, kind, bad;
    npu_status st;
    ze_result_t r;

    memset(&gp, 0, sizeof gp);
    gp.stype = NPU__ZE_STYPE_GRAPH_PROPERTIES;
    r = d->g->pfnGetProperties(m->graph, &gp);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnGetProperties", r);
    n = gp.numGraphArgs;
    if (n > NPU_MAX_ARGS)
        return npu__fail(m->ctx, NPU_ERR_LIMIT, "model: the graph has %u arguments (at most %u)", (unsigned)n,
                         (unsigned)NPU_MAX_ARGS);
    m->n_args = n;
    {
        /* the arguments, then the order table (as npu__model_kept counts
         * them; none for a graph without arguments) */
        size_t at = NPU_ARENA_ROUND((size_t)n * sizeof(npu__arg));
        m->args = (npu__arg *)npu__alloc(arena, m->ctx, at + (size_t)n * sizeof(uint32_t), "model arguments");
        if (m->args == NULL) return NPU_ERR_ARENA_TOO_SMALL;
        m->order = (uint32_t *)(void *)((unsigned char *)m->args + at);
    }
    {
        /* given back before the model is used: npu_model_size counts it */
        size_t smark = arena->used;
        npu__arg_scratch *sc = (npu__arg_scratch *)npu__alloc(arena, m->ctx, sizeof *sc,
                                                              "model set-up scratch (argument properties)");
        if (sc == NULL) return NPU_ERR_ARENA_TOO_SMALL;
        for (i = 0, st = NPU_OK; i < n && st == NPU_OK; i++) st = npu__model_read_arg(m, i, &m->args[i], sc);
        npu_arena_rewind(arena, smark);
        if (st != NPU_OK) return st;
    }
    /* order: inputs, outputs, then (in, out) per state: one pass per kind.
     * The argument table comes from the blob: names may repeat and counts may
     * not match. Every state input pairs with exactly one assign output of its
     * name, no name is used by two state inputs, and no slot past n is written.
     * (pair is UINT32_MAX from npu__model_read_arg.) */
    k = 0;
    for (kind = NPU__ARG_INPUT; kind <= NPU__ARG_STATE_IN; kind++) {
        for (i = 0; i < n; i++) {
            npu__arg *in = &m->args[i];
            if (in->kind != kind) continue;
            if (kind != NPU__ARG_STATE_IN) {
                m->order[k++] = i;
                continue;
            }
            /* bad: which FORMAT refusal (bad_fmt), j the other argument it names */
            j = npu__find_arg(m, NPU__ARG_STATE_IN, in->name, i);
            bad = j < i;
            if (!bad) {
                j = npu__find_arg(m, NPU__ARG_STATE_OUT, in->name, n);
                if (j == n)
                    return npu__fail(m->ctx, NPU_ERR_UNSUPPORTED,
                                     "model: state '%s' has no assign output (" NPU__ASSIGN_PREFIX "%s)", in->name,
                                     in->name);
                if (m->args[j].pair != UINT32_MAX || k + 2 > n)
                    bad = 2;
                else if (m->args[j].desc.bytes != in->desc.bytes || m->args[j].desc.type != in->desc.type)
                    bad = 3;
            }
            if (bad)
                return npu__fail(m->ctx, NPU_ERR_FORMAT, bad_fmt[bad], in->name, (unsigned)j, (unsigned)i);
            in->pair = j;
            m->args[j].pair = i;
            m->order[k++] = i;
            m->order[k++] = j;
            m->n_states++;
        }
        if (kind == NPU__ARG_INPUT) m->n_inputs = k;
        if (kind == NPU__ARG_OUTPUT) m->n_outputs = k - m->n_inputs;
    }
    if (k != n) {
        for (i = 0; i < n && !(m->args[i].kind == NPU__ARG_STATE_OUT && m->args[i].pair == UINT32_MAX); i++) {}
        return npu__fail(m->ctx, NPU_ERR_UNSUPPORTED, "model: %u assign output(s) without a read_value input "
                         "(first: '%s')", (unsigned)(n - k), i < n ? m->args[i].name : "?");
    }

    /* Initialization: the stages the graph asks for (before graph extension
     * 1.8, through a command list only). */
    gp.initStageRequired = NPU__ZE_GRAPH_STAGE_COMMAND_LIST_INITIALIZE;
    if (d->caps.graph_init) {
        memset(&gp, 0, sizeof gp);
        gp.stype = NPU__ZE_STYPE_GRAPH_PROPERTIES_2;
        r = d->g->pfnGetProperties2(m->graph, &gp);
        if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnGetProperties2", r);
        if (gp.initStageRequired & NPU__ZE_GRAPH_STAGE_INITIALIZE) {
            r = d->g->pfnGraphInitialize(m->graph);
            if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnGraphInitialize", r);
        }
    }
    if (gp.initStageRequired & NPU__ZE_GRAPH_STAGE_COMMAND_LIST_INITIALIZE) return npu__graph_init_cmdlist(m);
    return NPU_OK;
}

typedef struct npu__create_args {
    /* The driver's descriptor: format, inputSize, pInput, pBuildFlags (NULL
     * for NATIVE) and flags; npu__graph_create sets stype and pNext. */
    npu__ze_graph_desc_2 desc;
    npu_priority priority;
    int turbo;
    size_t transient_mark;    /* rewind here after create (payload/flags in arena) */
    int has_hash;             /* chain a ze_graph_input_hash_t (ext >= 1.14) */
    uint64_t hash;
    uint32_t profiled;        /* npu_compile_options.profiled_requests */
    uint32_t workload;        /* npu_compile_options.workload_type */
    /* Compiles with options: npu__model_controls, which does nothing unless
     * they ask for either (only the compile path names it, so an import-only
     * program does not link it). */
    npu_status (*controls)(npu_model *m, const struct npu__create_args *c);
} npu__create_args;

#ifndef NPU_NO_MESSAGES
/* Appends the calling thread's last create-failure log (ext >= 1.4) to the
 * message being recorded, after ": ", or `none` without one (under the
 * message lock, straight into the context: a log of kilobytes never sits on
 * the stack). */
static void npu__fail_more_build_log(npu_device *d, const char *none)
{
    npu_context *ctx = d->ctx;
    uint32_t size = 0;
    size_t len;
    ze_result_t r;
    if (ctx == NULL) return;
    if (d->caps.build_log) r = d->g->pfnBuildLogGetString(NULL, &size, NULL);
    else r = ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    if (r != ZE_RESULT_SUCCESS || size <= 1) {
        npu__fail_more(ctx, "%s", none);
        return;
    }
    npu__fail_more(ctx, ": ");
    npu__ctx_lock(ctx);
    len = strlen(ctx->last_error);
    if (len + 1 < sizeof ctx->last_error) {
        uint32_t cap = (uint32_t)(sizeof ctx->last_error - len);
        if (size > cap) size = cap;
        if (d->g->pfnBuildLogGetString(NULL, &size, ctx->last_error + len) != ZE_RESULT_SUCCESS)
            ctx->last_error[len] = '\0';
        ctx->last_error[sizeof ctx->last_error - 1] = '\0';
    }
    npu__ctx_unlock(ctx);
}
#else
#define npu__fail_more_build_log(d, none) NPU__UNUSED(d)   /* the site alone */
#endif

/* Creates the driver's graph from c (the newest pfnCreate the driver has).
 * On failure: the message (with the build log) recorded, the status returned;
 * no graph is left. */
static npu_status npu__graph_create(npu_device *d, const npu__create_args *c, npu__ze_graph_handle_t *graph)
{
    /* a compile's failure (the build log even when empty), then an import's:
     * the message, and what stands for a missing build log */
    NPU__MSG_ONLY(static const char *const text[2][2] = {
        {"compile: %s failed: ze_result_t 0x%08x; build log", ": (empty)"},
        {"import: %s failed: ze_result_t 0x%08x", ""}};)
    npu_context *ctx = d->ctx;
    npu__ze_graph_desc_2 desc2;
    npu__ze_graph_input_hash ih;
    const char *fn;
    npu_status st;
    ze_result_t r;
    int native;

    *graph = NULL;
    desc2 = c->desc;
    desc2.stype = NPU__ZE_STYPE_GRAPH_DESC_2;
    desc2.pNext = NULL;
    if (c->has_hash) {
        memset(&ih, 0, sizeof ih);
        ih.stype = NPU__ZE_STYPE_GRAPH_INPUT_HASH;
        ih.hash = c->hash;
        desc2.pNext = &ih;
    }
    if (d->caps.create3) {
        /* No build-log handle: a failure's log comes from
         * pfnBuildLogGetString(NULL, ...), and a successful create leaves no
         * handle to release (nothing can leak if that release failed). */
        fn = "pfnCreate3";
        r = d->g->pfnCreate3(d->zctx, d->device, &desc2, graph, NULL);
    } else if (d->caps.create2) {
        fn = "pfnCreate2";
        r = d->g->pfnCreate2(d->zctx, d->device, &desc2, graph);
    } else {
        /* ze_graph_desc_t is ze_graph_desc_2_t without its last field (the
         * layout asserts of section 10): the same fields under the version-1
         * stype (pNext is NULL: the input hash needs graph extension 1.14). */
        desc2.stype = NPU__ZE_STYPE_GRAPH_DESC;
        fn = "pfnCreate";
        r = d->g->pfnCreate(d->zctx, d->device, (const npu__ze_graph_desc *)(const void *)&desc2, graph);
    }
    NPU__MSG_UNUSED(fn);
    if (r == ZE_RESULT_SUCCESS) return NPU_OK;
    *graph = NULL;
    /* an import (a blob): FORMAT or DRIVER; a compile: COMPILE, and the
     * build log even when empty */
    native = c->desc.format == NPU__ZE_GRAPH_FORMAT_NATIVE;
    st = !native ? NPU_ERR_COMPILE : r == ZE_RESULT_ERROR_INVALID_NATIVE_BINARY ? NPU_ERR_FORMAT : NPU_ERR_DRIVER;
    npu__fail_begin(ctx, st, text[native][0], fn, (unsigned)r);
    npu__fail_more_build_log(d, text[native][1]);
    return npu__fail_end(ctx, st);
}

/* The controls a compile asks for: in range, and offered by the driver. */
static npu_status npu__controls_check(npu_device *d, const npu__create_args *c)
{
    /* (the profiling text takes what the driver lacks besides the extension) */
    NPU__MSG_ONLY(static const char *const unoffered_fmt[2] = {
        "workload_type: the driver does not offer " NPU__ZE_CQ_NPU_EXT_NAME,
        "profiled_requests: the driver does not offer " NPU__ZE_PROFILING_EXT_NAME "%s"};)
    int prof;
    if (c->profiled > NPU_MAX_PROFILED_REQUESTS || c->workload > (uint32_t)NPU_WORKLOAD_BACKGROUND)
        return npu__fail(d->ctx, NPU_ERR_INVALID_ARGUMENT, "compile options: profiled_requests %u (0 to %d) or "
                         "workload_type %u (0 or 1)", (unsigned)c->profiled, NPU_MAX_PROFILED_REQUESTS,
                         (unsigned)c->workload);
    /* one not offered: the workload type, or profiling (then the first) */
    prof = c->profiled && !d->caps.profiling;
    if (prof || (c->workload && !d->caps.workload_type))
        return npu__fail(d->ctx, NPU_ERR_UNSUPPORTED, unoffered_fmt[prof],
                         d->caps.create2 ? "" : " with graph extension 1.5 (ZE_GRAPH_FLAG_ENABLE_PROFILING)");
    return NPU_OK;
}

static npu_status npu__set_workload(npu_model *m, uint32_t type)
{
    const npu__ze_cq_npu_ddi *t;
    npu_status st = npu__ext_table(m->dev, NPU__ZE_CQ_NPU_EXT_NAME, (const void **)&t);
    ze_result_t r;
    if (st != NPU_OK) return st;
    r = t->pfnSetWorkloadType(m->queue, type);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnSetWorkloadType", r);
    return NPU_OK;
}

/* A profiled model's request takes a free query slot of the model's pool
 * (before its lists are recorded: every execute names the query). */
static NPU__NOINLINE npu_status npu__req_profiling_attach(npu_request *q)
{
    npu_model *m = q->model;
    uint_fast64_t bit = 1;
    uint32_t i;
    ze_result_t r;
    for (i = 0; i < m->prof_count; i++, bit <<= 1)
        if ((atomic_fetch_or(&m->prof_slots, bit) & bit) == 0) break;
    if (i == m->prof_count)
        return npu__fail(q->ctx, NPU_ERR_LIMIT, "request: all %u profiled request(s) of the model are in use "
                         "(profiled_requests)", (unsigned)m->prof_count);
    r = m->prof->pfnProfilingQueryCreate(m->prof_pool, i, &q->prof_query);
    if (r != ZE_RESULT_SUCCESS) {
        q->prof_query = NULL;
        atomic_fetch_and(&m->prof_slots, ~bit);
        return npu__ze_fail(q->ctx, "pfnProfilingQueryCreate", r);
    }
    q->prof_slot = i;
    return NPU_OK;
}

static NPU__NOINLINE void npu__req_profiling_detach(npu_request *q)
{
    npu_model *m = q->model;
    m->prof->pfnProfilingQueryDestroy(q->prof_query);
    q->prof_query = NULL;
    atomic_fetch_and(&m->prof_slots, ~((uint_fast64_t)1 << q->prof_slot));
}

/* The workload type and the profiling pool, once the model has its queue. */
static NPU__NOINLINE npu_status npu__model_controls(npu_model *m, const npu__create_args *c)
{
    npu_status st = npu__controls_check(m->dev, c);
    ze_result_t r;
    if (st == NPU_OK && c->workload) st = npu__set_workload(m, c->workload);
    if (st != NPU_OK || !c->profiled) return st;
    st = npu__ext_table(m->dev, NPU__ZE_PROFILING_EXT_NAME, (const void **)&m->prof);
    if (st != NPU_OK) return st;
    r = m->prof->pfnProfilingPoolCreate(m->graph, c->profiled, &m->prof_pool);
    if (r != ZE_RESULT_SUCCESS) {
        m->prof_pool = NULL;
        return npu__ze_fail(m->ctx, "pfnProfilingPoolCreate", r);
    }
    m->prof_count = c->profiled;
    atomic_init(&m->prof_slots, 0);
    m->prof_attach = npu__req_profiling_attach;
    m->prof_detach = npu__req_profiling_detach;
    return NPU_OK;
}

static npu_status npu__model_create(npu_device *d, npu_arena *arena, const npu__create_args *c, npu_model **out)
{
    npu_context *ctx = d->ctx;
    npu__ze_graph_handle_t graph;   /* (set by npu__graph_create) */
    ze_command_queue_priority_t prio;
    npu_model *m;
    npu_status st;
    int turbo;

    st = npu__graph_create(d, c, &graph);
    /* The driver has the payload/blob now (or failed): the transient arena
     * space is free. */
    npu_arena_rewind(arena, c->transient_mark);
    if (st != NPU_OK) return st;
    m = (npu_model *)npu__alloc(arena, ctx, sizeof *m, "model");
    if (m == NULL) {
        d->g->pfnDestroy(graph);
        return NPU_ERR_ARENA_TOO_SMALL;
    }
    m->dev = d;
    m->ctx = ctx;
    m->graph = graph;
    m->queue = d->queue;
    m->batch_lists = 1;
    m->info.original_batch = 1;
    atomic_flag_clear(&m->record_lock);
    st = NPU_OK;
    prio = c->priority != NPU_PRIORITY_DEFAULT ? npu__ze_priority(c->priority) : d->queue_priority;
    turbo = c->turbo || d->queue_turbo;   /* 0 or 1, as d->queue_turbo */
    if (prio != d->queue_priority || turbo != d->queue_turbo || c->workload) {
        st = npu__create_queue(d, prio, turbo, &m->own_queue);
        if (st == NPU_OK) m->queue = m->own_queue;
    }
    if (st == NPU_OK && c->controls != NULL) st = c->controls(m, c);
    if (st == NPU_OK) st = npu__model_setup(m, arena);
    if (st != NPU_OK) {
        npu__model_release(m);
        npu_arena_rewind(arena, c->transient_mark);
        return st;
    }
    m->arena_bytes = arena->used - c->transient_mark;
    *out = m;
    return NPU_OK;
}

/* ---- Build flags ---- */

/* One I/O list ("--inputs_precisions=\"0:FP32 1:U8\""). descs may be NULL
 * (payload variant): then only overridden indices are listed. */
typedef struct npu__io_list {
    uint32_t count;
    npu_status (*get)(const void *src, uint32_t i, npu_tensor_desc *out);
    const void *src;
    const npu_type *overrides;   /* NULL only with n_overrides 0 (npu__check_compile_opts) */
    uint32_t n_overrides;
    int layout_b;         /* inputs list only: the payload is layout B (serializer key) */
    uint32_t ir_version;  /* inputs list only: IR version of the XML (0: unknown) */
    int converts;         /* inputs list only: the payload converts the overrides */
} npu__io_list;

/* Why `name` cannot be written into the build flags by name, or NULL. The
 * compiler splits the flags into sections at "--inputs_precisions",
 * "--config" and the like, takes a list between the first and the last '"',
 * splits it at white space and each element at its last ':' (2024
 * vcl_common.cpp parseSingleOption; OpenVINO writes names unescaped). */
static const char *npu__flags_name_problem(const char *name)
{
    const unsigned char *p;
    if (name == NULL || name[0] == '\0') return "it is empty";
    for (p = (const unsigned char *)name; *p != '\0'; p++) {
        if (*p <= 0x20 || *p == 0x7f) return "it contains white space or a control character";
        if (*p == '"') return "it contains a '\"'";
    }
    if (strstr(name, "--") != NULL) return "it contains \"--\" (the compiler splits the flags at \"--<option>\")";
    return NULL;
}

/* extra_config: KEY="VALUE" pairs separated by spaces, as the compiler's
 * config parser reads them; every key must be one the compiler supports
 * (OpenVINO refuses an unsupported option the caller set: "Option ... is not
 * supported for current configuration"). */
static npu_status npu__extra_config_check(const npu_device *d, const char *cfg)
{
    const char *p = cfg;
    int pass = 0;   /* the whole string's syntax first, then the keys */
    for (;;) {
        char key[128];
        size_t n = 0;
        const char *v;
        int q;
        while (*p == ' ') p++;
        if (*p == '\0') {
            if (pass++ == 1) break;
            p = cfg;
            continue;
        }
        while (((p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= '0' && p[n] <= '9') ||
                p[n] == '_' || p[n] == '.') && n < sizeof key - 1)
            n++;
        if (n == 0 || p[n] != '=' || p[n + 1] != '"' || (v = strchr(p + n + 2, '"')) == NULL ||
            (v[1] != ' ' && v[1] != '\0'))
            return npu__fail(d->ctx, NPU_ERR_INVALID_ARGUMENT,
                             "compile options: extra_config \"%.80s\": expected KEY=\"VALUE\" pairs "
                             "separated by spaces (no '\"' inside a value)", cfg);
        if (pass == 0) {
            p = v + 1;
            continue;
        }
        memcpy(key, p, n);
        key[n] = '\0';
        q = npu__option_query(d, key, NULL);
        if (q == 0)
            return npu__fail(d->ctx, NPU_ERR_UNSUPPORTED,
                             "compile options: extra_config key %s is not supported by the driver's compiler "
                             "(%u.%u); an unknown key fails the compile", key,
                             (unsigned)(d->compiler_version >> 16), (unsigned)(d->compiler_version & 0xffffu));
        if (q < 0)
            npu__log(d->ctx, NPU_LOG_DEBUG, "extra_config key %s sent unchecked (graph extension < 1.11)", key);
        p = v + 1;
    }
    return NPU_OK;
}

/* Opens the next --config key (--config itself before the first: *in_config
 * 0; the four I/O lists are always written before it). */
static void npu__cfg_open(npu__sink *s, int *in_config)
{
    if (!*in_config) npu__sink_str(s, " --config");
    npu__sink_str(s, " ");
    *in_config = 1;
}

/* Whether --config key `which` goes to this compiler: asked through
 * pfnCompilerIsOptionSupported (graph extension >= 1.11), else the compiler
 * version that introduced it (0: always). A dropped key is logged once, in the
 * writing pass. This is OpenVINO's rule: unsupported options are removed,
 * never sent (an unknown key fails the whole compile). When it goes, writes
 * its start, KEY="; the caller writes the value and the closing '"'. */
static int npu__cfg_begin(npu__sink *s, const npu_device *d, uint32_t which, int *in_config)
{
    static const uint32_t since[5] = {0, 0, NPU__ZE_VERSION(7, 21), NPU__ZE_VERSION(5, 4), NPU__ZE_VERSION(5, 7)};
    char key[64];
    int q = d->cfg_query[which];
    npu__cfg_key(d, which, key, sizeof key);
    if (q < 0) q = d->compiler_version >= since[which];
    if (!q) {
        if (s->dst != NULL)
            npu__log(d->ctx, NPU_LOG_INFO, "build flags: the compiler (%u.%u) does not support %s; not sent",
                     (unsigned)(d->compiler_version >> 16), (unsigned)(d->compiler_version & 0xffffu), key);
        return 0;
    }
    npu__cfg_open(s, in_config);
    npu__sink_str(s, key);
    npu__sink_str(s, "=\"");
    return 1;
}

/* The build flags into s: the four I/O lists (inputs precisions and layouts,
 * outputs precisions and layouts), the serializer key, then --config with the
 * options and extra_config. check (npu__flags_alloc's counting pass, the
 * cache key): also refuses what the flags cannot carry, in the walk that
 * writes them: type overrides the compiler would ignore, I/O names the flags
 * cannot hold (compilers before 5.9 identify I/O by name), extra_config keys
 * the compiler does not take. */
static npu_status npu__flags_walk(npu__sink *s, const npu_device *d, const npu_compile_options *o,
                                  const npu__io_list *in, const npu__io_list *outl, int check)
{
    /* The --config option values (without their closing quote): hint 1-2,
     * priority 1-3, legacy priority 1-3 (compilers before 5.2 know only
     * these, OpenVINO's serializeConfig), turbo, tiles (a number follows),
     * optimization level (a number follows). */
    static const char *const text[] = {"", "LATENCY", "THROUGHPUT", "", "LOW", "MEDIUM", "HIGH", "",
                                       "MODEL_PRIORITY_LOW", "MODEL_PRIORITY_MED", "MODEL_PRIORITY_HIGH", "YES", "",
                                       "optimization-level="};
    static const uint32_t max[5] = {NPU_HINT_THROUGHPUT, NPU_PRIORITY_HIGH, UINT32_MAX, UINT32_MAX, 3};
    /* The four I/O lists' openings (the first starts the flags). */
    static const char *const list_open[4] = {"--inputs_precisions=\"", " --inputs_layouts=\"",
                                             " --outputs_precisions=\"", " --outputs_layouts=\""};
    int in_config = 0, k;
    for (k = 0; k < 4; k++) {
        const npu__io_list *l = k < 2 ? in : outl;
        NPU__MSG_ONLY(const char *kind = k < 2 ? "input" : "output";)
        int layouts = k & 1;
        /* A caller-made payload has no descriptions: its layout list stays
         * empty and only overridden precisions are listed. The compiler
         * requires all four lists, even empty (vcl_common.cpp
         * prepareBuildFlags: "Mandatory ioInfo options are missing!"). */
        uint32_t i, n = l->get ? l->count : l->n_overrides, written = 0;
        npu__sink_str(s, list_open[k]);
        for (i = 0; i < n; i++) {
            npu_tensor_desc desc;
            npu_type t = i < l->n_overrides ? l->overrides[i] : NPU_TYPE_UNDEFINED;
            const char *why;
            /* description i (zeroed, name "", for a payload's list): one the
             * list cannot give is left out */
            memset(&desc, 0, sizeof desc);
            desc.name = "";
            if (l->get) {
                if (l->get(l->src, i, &desc) != NPU_OK) continue;
                if (!npu__type_valid(t)) t = desc.type;
            }
            if (!layouts && !npu__type_valid(t)) continue;
            /* Type overrides reach the compiler only as these lists, and it
             * converts (preprocessing) only for IR v10; for IR v11 it skips
             * preprocessing and ignores them (npu_compiler
             * model_preprocessor). A graph's payload carries Convert layers
             * instead; for an IR v11 file or payload a silent no-op is
             * refused. (desc.type: the model's, or 0 for a payload.) */
            if (check && !layouts && t != desc.type && in->ir_version != 10 && !in->converts)
                return npu__fail(d->ctx, NPU_ERR_UNSUPPORTED,
                                 "compile options: %s %u type override to %s: the compiler converts types only "
                                 "for IR v10 models; %s",
                                 kind, (unsigned)i, npu__types[t].ov_precision,
                                 l->get == NULL ? "this is a payload that is not IR v10: add a Convert to the model "
                                                  "instead"
                                                : "this model is IR v11: npu_ir_set_preprocess / "
                                                  "npu_ir_set_postprocess with that type insert the Convert");
            if (written++ > 0) npu__sink_str(s, " ");
            if (d->caps.flags_by_index || l->get == NULL) {
                npu__sink_u64_dec(s, i);
            } else {
                if (check && (why = npu__flags_name_problem(desc.name)) != NULL)
                    return npu__fail(d->ctx, NPU_ERR_UNSUPPORTED,
                                     "build flags: %s %u \"%.64s\" cannot be named in the build flags of "
                                     "compiler %u.%u (it identifies inputs and outputs by name): %s",
                                     kind, (unsigned)i, desc.name ? desc.name : "",
                                     (unsigned)(d->compiler_version >> 16),
                                     (unsigned)(d->compiler_version & 0xffffu), why);
                npu__sink_str(s, desc.name);
            }
            npu__sink_str(s, ":");
            npu__sink_str(s, layouts ? npu__layout_by_rank(desc.shape.rank) : npu__types[t].ov_precision);
        }
        npu__sink_str(s, "\"");
    }
    if (in->layout_b && d->serializer_key != NPU__SER_NONE) {
        npu__cfg_open(s, &in_config);
        npu__sink_str(s, d->serializer_key == NPU__SER_USE_BASE ? "NPU_USE_BASE_MODEL_SERIALIZER=\"NO\""
                                                                : "NPU_MODEL_SERIALIZER_VERSION=\"NO_WEIGHTS_COPY\"");
    }
    if (o == NULL) return NPU_OK;
    {
        /* NPU__CFG_HINT, _PRIORITY, _TURBO, _TILES, _MODE_PARAMS: each sent
         * when set (1 to its max; turbo: any nonzero value) */
        const uint32_t v[5] = {(uint32_t)o->hint, (uint32_t)o->priority, (uint32_t)o->turbo, o->tiles,
                               (uint32_t)o->optimization_level};
        /* each one's text (read only when its value is in range; legacy_priority is 0 or 1) */
        const uint32_t at_text[5] = {v[0], 3 + v[1] + 4u * d->caps.legacy_priority, 11, 12, 13};
        for (k = 0; k < 5; k++) {
            if (v[k] == 0 || v[k] > max[k] || !npu__cfg_begin(s, d, (uint32_t)k, &in_config)) continue;
            npu__sink_str(s, text[at_text[k]]);
            if (k >= NPU__CFG_TILES) npu__sink_u64_dec(s, v[k] - (k == NPU__CFG_MODE_PARAMS));
            npu__sink_str(s, "\"");
        }
    }
    if (o->extra_config != NULL && o->extra_config[0] != '\0') {
        if (check) {
            npu_status st = npu__extra_config_check(d, o->extra_config);
            if (st != NPU_OK) return st;
        }
        npu__cfg_open(s, &in_config);
        npu__sink_str(s, o->extra_config);
    }
    return NPU_OK;
}

static void npu__flags_write(npu__sink *s, const npu_device *d, const npu_compile_options *o,
                             const npu__io_list *in, const npu__io_list *outl)
{
    (void)npu__flags_walk(s, d, o, in, outl, 0);
}

static npu_status npu__check_compile_opts(npu_context *ctx, const npu_compile_options *o)
{
    uint32_t i, k;
    if (o == NULL) return NPU_OK;
    if (npu__check_reserved(ctx, o->reserved, "compile options") != NPU_OK) return NPU_ERR_INVALID_ARGUMENT;
    {
        /* Every enum-like field (int-sized: read at its offset) and its
         * largest value (all start at 0). */
#define NPU__RANGE(f, max) {(uint8_t)offsetof(npu_compile_options, f), (uint8_t)(max) NPU__MSG_ONLY(, #f)}
        static const struct { uint8_t at, max; NPU__MSG_ONLY(char name[19];) } range[] = {
            NPU__RANGE(hint, NPU_HINT_THROUGHPUT), NPU__RANGE(priority, NPU_PRIORITY_HIGH),
            NPU__RANGE(optimization_level, 3), NPU__RANGE(payload_layout, NPU_PAYLOAD_WEIGHTS_COPY),
            NPU__RANGE(batch_mode, NPU_BATCH_COMPILER)};
#undef NPU__RANGE
        _Static_assert(sizeof o->hint == sizeof(int) && sizeof o->priority == sizeof(int) &&
                       sizeof o->payload_layout == sizeof(int) && sizeof o->batch_mode == sizeof(int) &&
                       offsetof(npu_compile_options, batch_mode) < 256, "int-sized fields at byte offsets");
        for (i = 0; i < NPU__COUNT_OF(range); i++) {
            int v;
            memcpy(&v, (const unsigned char *)o + range[i].at, sizeof v);
            if (v < 0 || v > range[i].max)
                return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "compile options: %s is %d (0 to %d)",
                                 range[i].name, v, (int)range[i].max);
        }
    }
    if ((o->input_types == NULL && o->n_input_types > 0) || (o->output_types == NULL && o->n_output_types > 0))
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "compile options: type override count without array");
    /* the input overrides, then the output overrides (k) */
    for (k = 0; k < 2; k++) {
        const npu_type *types = k ? o->output_types : o->input_types;
        uint32_t n = k ? o->n_output_types : o->n_input_types;
        for (i = 0; i < n; i++)
            if (types[i] != NPU_TYPE_UNDEFINED && !npu__type_valid(types[i]))
                return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "compile options: %s %u type %d is invalid",
                                 k ? "output" : "input", (unsigned)i, (int)types[i]);
    }
#ifdef NPU_NO_CACHE
    if (o->cache_dir != NULL)
        return npu__fail(ctx, NPU_ERR_UNSUPPORTED, "compile options: cache_dir is set, but npu was built with "
                         "NPU_NO_CACHE (no model cache)");
#endif
    return NPU_OK;
}

/* Writes the flags string (NUL-terminated, never NULL: "" at least) into the
 * arena; *text NULL on failure. */
static npu_status npu__flags_alloc(npu_device *d, npu_arena *arena, const npu_compile_options *o,
                                   const npu__io_list *in, const npu__io_list *outl, const char **text)
{
    npu__sink s;
    char *buf;
    npu_status st;
    *text = NULL;
    npu__sink_init(&s, NULL, 0);
    st = npu__flags_walk(&s, d, o, in, outl, 1);   /* checked and counted */
    if (st != NPU_OK) return st;
    if (s.overflow) return npu__fail(d->ctx, NPU_ERR_OVERFLOW, "build flags: size overflow");
    buf = (char *)npu__alloc(arena, d->ctx, s.len + 1, "build flags");
    if (buf == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    npu__sink_init(&s, buf, s.len + 1);
    npu__flags_write(&s, d, o, in, outl);
    buf[s.len] = '\0';
    *text = buf;
    return NPU_OK;
}

/* NH128 (section 9b) over the payload, the build flags and every weight byte
 * the payload points at: the driver's disk cache key for a layout-B payload. */
static uint64_t npu__input_hash(const void *payload, size_t size, const char *flags,
                                const npu__model_src *src);

/* layout_b: the payload holds weight addresses. The driver's disk cache keys
 * on the payload bytes (driver 1.32.1), so new weights at the same addresses
 * would get a stale blob: chain a ze_graph_input_hash_t over payload + flags +
 * weights (graph extension >= 1.14, src known), else disable the driver's
 * cache for this compile. */
static npu_status npu__compile(npu_device *d, npu_arena *arena, const void *payload, size_t size,
                               const char *flags, const npu_compile_options *o, size_t mark, int layout_b,
                               const npu__model_src *src, npu_model **out)
{
    npu__create_args c;
    int driver_cache = 1;   /* the driver's compile cache may serve this compile */
    memset(&c, 0, sizeof c);
    c.desc.format = NPU__ZE_GRAPH_FORMAT_NGRAPH_LITE;
    c.desc.pInput = (const uint8_t *)payload;
    c.desc.inputSize = size;
    c.desc.pBuildFlags = flags;
    c.transient_mark = mark;
    if (o != NULL) {
        /* Our cache replaces the driver's (OpenVINO does the same with CACHE_DIR). */
        driver_cache = !o->disable_driver_cache && o->cache_dir == NULL;
        c.priority = o->priority;
        c.turbo = o->turbo;
        c.profiled = o->profiled_requests;
        c.workload = (uint32_t)o->workload_type;
        if (c.profiled) c.desc.flags = NPU__ZE_GRAPH_FLAG_ENABLE_PROFILING;
        c.controls = npu__model_controls;   /* (with neither asked for: NPU_OK, nothing done) */
    }
    if (layout_b && driver_cache) {
        if (src != NULL && d->caps.input_hash) {
            c.has_hash = 1;
            c.hash = npu__input_hash(payload, size, flags, src);
        } else {
            driver_cache = 0;
            npu__log(d->ctx, NPU_LOG_DEBUG, "compile: layout B %s: the driver's compile cache is disabled",
                     src == NULL ? "payload of unknown weights" : "before graph extension 1.14");
        }
    }
    if (!driver_cache) c.desc.flags |= NPU__ZE_GRAPH_FLAG_DISABLE_CACHING;
    return npu__model_create(d, arena, &c, out);
}

/* What a caller-made payload is: layout B (its first word is the 48-byte
 * header's custom_data_offset, 48; layout A starts with the compiler version
 * and the section count 2) and the IR version of its XML (0: not found). */
static void npu__payload_probe(const unsigned char *p, size_t size, int *layout_b, uint32_t *ir_version)
{
    uint64_t xo = 0, xn = 0;
    size_t i, end;
    *layout_b = 0;
    *ir_version = 0;
    if (size < 48) return;
    if (npu__le_get(p, 8) == 48u) {
        *layout_b = 1;
        xo = npu__le_get(p + 32, 8);
        xn = npu__le_get(p + 40, 8);
    } else {
        xo = 16;
        xn = npu__le_get(p + 8, 8);
    }
    if (xo >= size || xn > size - xo) return;
    end = (size_t)(xo + (xn < 4096 ? xn : 4096));
    for (i = (size_t)xo; i + 4 < end; i++) {
        if (memcmp(p + i, "<net", 4) != 0) continue;
        for (; i + 10 < end && p[i] != '>'; i++) {
            if (memcmp(p + i, " version=\"", 10) != 0) continue;
            for (i += 10; i < end && p[i] >= '0' && p[i] <= '9' && *ir_version < 1000; i++)
                *ir_version = *ir_version * 10 + (uint32_t)(p[i] - '0');
            return;
        }
        return;
    }
}

NPU_API npu_status npu_model_compile_payload(npu_device *dev, npu_arena *arena, const void *payload, size_t size,
                                     const npu_compile_options *opts, npu_model **out)
{
    npu__io_list in, outl;
    const char *flags = NULL;
    size_t mark;
    npu_status st;
    if (out != NULL) *out = NULL;
    if (dev == NULL || arena == NULL || payload == NULL || size == 0 || out == NULL)
        return npu__fail(dev ? dev->ctx : NULL, NPU_ERR_INVALID_ARGUMENT,
                         "npu_model_compile_payload: NULL argument or empty payload");
    st = npu__check_compile_opts(dev->ctx, opts);
    if (st != NPU_OK) return st;
    memset(&in, 0, sizeof in);
    memset(&outl, 0, sizeof outl);
    if (opts != NULL) {
        in.overrides = opts->input_types;
        in.n_overrides = opts->n_input_types;
        outl.overrides = opts->output_types;
        outl.n_overrides = opts->n_output_types;
    }
    npu__payload_probe((const unsigned char *)payload, size, &in.layout_b, &in.ir_version);
    if (in.layout_b && dev->serializer_key == NPU__SER_NONE)
        return npu__fail(dev->ctx, NPU_ERR_UNSUPPORTED,
                         "npu_model_compile_payload: the payload is layout B (weights by pointer), but the driver's "
                         "compiler has no serializer option to be told so; write it as layout A");
    mark = arena->used;
    st = npu__flags_alloc(dev, arena, opts, &in, &outl, &flags);
    if (st != NPU_OK) return st;
    st = npu__compile(dev, arena, payload, size, flags, opts, mark, in.layout_b, NULL, out);
    if (st == NPU_OK) {
        (*out)->info.requested_mode = opts != NULL ? opts->batch_mode : NPU_BATCH_AUTO;
        npu__textf((*out)->info.batch_reason, sizeof (*out)->info.batch_reason,
                 "a caller-built payload is compiled as it is (npu does not look for a batch in it)");
    }
    return st;
}

#if defined(NPU__SOURCES)
/* The payload layout a compile uses (ir_version 0: a graph, IR v11). Layout B
 * only where the compiler has a serializer option to be told so (checked at
 * device open), and never for IR v10 (OpenVINO's
 * determineModelSerializerVersion forces the copying layout below IR 11);
 * otherwise A, with the reason logged unless quiet. (Not inlined: gcc copied
 * it into each caller, once per o NULL or not.) */
NPU__NOINLINE static npu_payload_layout npu__pick_layout(const npu_device *d, const npu_compile_options *o,
                                                         uint32_t ir_version, int quiet)
{
    npu_payload_layout want = (o != NULL && o->payload_layout != NPU_PAYLOAD_DEFAULT) ? o->payload_layout
                                                                                      : NPU_PAYLOAD_NO_WEIGHTS_COPY;
    const char *why = NULL;
    if (want == NPU_PAYLOAD_WEIGHTS_COPY) return want;
    if (d->serializer_key == NPU__SER_NONE)
        why = "the driver's compiler offers neither NPU_MODEL_SERIALIZER_VERSION nor NPU_USE_BASE_MODEL_SERIALIZER";
    else if (ir_version != 0 && ir_version < 11)
        why = "the model is IR v10 (OpenVINO uses the copying layout below IR 11)";
    if (why == NULL) return NPU_PAYLOAD_NO_WEIGHTS_COPY;
    if (!quiet) npu__log(d->ctx, NPU_LOG_INFO, "compile: payload layout A (weights copied): %s", why);
    return NPU_PAYLOAD_WEIGHTS_COPY;
}
#endif

/* ---- Import / export ---- */

/* A metadata layout as npu keeps it: "NCHW" stays, OpenVINO's
 * ov::Layout::to_string form "[N,C,H,W]" becomes "NCHW" (one-letter names
 * only; anything else gives ""). */
static void npu__layout_plain(const char *l, char out[NPU_LAYOUT_MAX])
{
    size_t n = strlen(l), i, k = 0;
    out[0] = '\0';
    if (n < 2 || l[0] != '[' || l[n - 1] != ']') {
        npu__strlcpy(out, l, NPU_LAYOUT_MAX);
        return;
    }
    for (i = 1; i + 1 < n; i++) {
        int name = l[i] != ',';
        if (name != (int)((i - 1) % 2 == 0) || k + 1 >= NPU_LAYOUT_MAX) {
            out[0] = '\0';
            return;
        }
        if (name) out[k++] = l[i];
    }
    out[k] = '\0';
}

/* Input / output i (inputs first) of the model takes layout l when l has
 * one letter per axis, and its batch axis from the 'N' in it (else 0). */
static void npu__model_set_layout(npu_model *m, uint32_t i, const char *l)
{
    npu__arg *a = &m->args[m->order[i]];
    const char *nax = strchr(l, 'N');
    if (strlen(l) != a->desc.shape.rank) return;
    npu__strlcpy(a->desc.layout, l, sizeof a->desc.layout);
    a->batch_axis = nax ? (uint32_t)(nax - l) : 0;
}

/* (meta as npu__meta_read accepted it: at most NPU__META_MAX_LAYOUTS rows in
 * all) */
static void npu__model_apply_layouts(npu_model *m, const npu__blob_meta *meta)
{
    uint32_t i, n;
    if (meta->n_input_layouts == m->n_inputs && meta->n_output_layouts == m->n_outputs) {
        n = m->n_inputs + m->n_outputs;
        for (i = 0; i < n; i++) {
            char l[NPU_LAYOUT_MAX];
            npu__layout_plain(meta->layouts[i], l);
            npu__model_set_layout(m, i, l);
        }
    }
}

/* What an import and its size query share: the options checked, the blob's
 * metadata tail read (its layouts not kept), the create arguments for the
 * native blob before the tail. */
static npu_status npu__import_prepare(npu_device *d, const void *blob, size_t size, const npu_import_options *opts,
                                      npu__blob_meta *meta, npu__create_args *c)
{
    npu_status st;
    if (opts != NULL && npu__check_opts(d->ctx, opts->priority, opts->reserved, NPU__COUNT_OF(opts->reserved),
                                        "import options", "import options") != NPU_OK)
        return NPU_ERR_INVALID_ARGUMENT;
    memset(meta, 0, sizeof *meta);
    st = npu__meta_read(d->ctx, (const unsigned char *)blob, size, meta);
    if (st != NPU_OK) return st;   /* FORMAT (malformed tail) or UNSUPPORTED (encrypted, ...) */
    /* The parser guarantees 0 < meta->blob_size <= size. */
    memset(c, 0, sizeof *c);
    c->desc.format = NPU__ZE_GRAPH_FORMAT_NATIVE;
    c->desc.pInput = (const uint8_t *)blob;
    c->desc.inputSize = (size_t)meta->blob_size;
    c->priority = opts ? opts->priority : NPU_PRIORITY_DEFAULT;
    c->turbo = opts ? opts->turbo : 0;
    return NPU_OK;
}

static npu_status npu__import(npu_device *d, npu_arena *arena, const void *blob, size_t size,
                              const npu_import_options *opts, int persistent_ok, int *persistent,
                              npu_model **out)
{
    npu__blob_meta meta;
    npu__create_args c;
    npu_status st;
    npu_model *m;   /* (set when npu__model_create succeeds) */
    uint64_t t0 = npu__now_ns();
    /* info.batch_reason: no batch, batch N or a dynamic batch (the batch
     * twice, where the text shows it) */
    NPU__MSG_ONLY(static const char *const why_fmt[3] = {
        "imported: no batch in the blob's metadata; run as it is",
        "imported: the blob's metadata records batch %lld; debatched into %lld command lists (PLUGIN)",
        "imported: the blob's metadata records a dynamic batch; debatched into 1..max_batch command lists "
        "(PLUGIN)"};)
    unsigned why = 0;
    if (out != NULL) *out = NULL;
    if (d == NULL || arena == NULL || blob == NULL || size == 0 || out == NULL)
        return npu__fail(d ? d->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_model_import: NULL argument or empty blob");
    st = npu__import_prepare(d, blob, size, opts, &meta, &c);
    if (st != NPU_OK) return st;
    c.transient_mark = arena->used;
    *persistent = persistent_ok && d->caps.persistent_input && ((uintptr_t)blob % 4096u) == 0 &&
                  (c.desc.inputSize % 4096u) == 0;
    if (*persistent) c.desc.flags = NPU__ZE_GRAPH_FLAG_INPUT_GRAPH_PERSISTENT;   /* (the only flag) */
    st = npu__model_create(d, arena, &c, &m);
    if (st != NPU_OK) return st;
    {
        /* The layouts, read again into scratch above the model (npu_model_size
         * covers it: less than the set-up scratch). */
        size_t lmark = arena->used;
        meta.layouts = (char (*)[NPU_LAYOUT_MAX])npu__alloc(arena, NULL, NPU__META_MAX_LAYOUTS * NPU_LAYOUT_MAX,
                                                            "metadata layouts");
        if (meta.layouts != NULL && npu__meta_read(d->ctx, (const unsigned char *)blob, size, &meta) == NPU_OK)
            npu__model_apply_layouts(m, &meta);
        npu_arena_rewind(arena, lmark);   /* (meta.layouts is not read again) */
    }
    /* a batch N > 1 or dynamic (-1); both sides tested: this is the second
     * read of the metadata, whose status is not checked here (a blob changed
     * in between may leave a refused value in meta) */
    if (meta.batch_size > 1 || meta.batch_size == NPU_DIM_DYNAMIC) {
        if (meta.batch_size > NPU__MAX_BATCH)
            st = npu__fail(d->ctx, NPU_ERR_FORMAT, "import: metadata batch size %lld is out of range (at most %u)",
                           (long long)meta.batch_size, (unsigned)NPU__MAX_BATCH);
        else
            st = npu__model_debatch(m, meta.batch_size);
        if (st != NPU_OK) {
            npu__model_release(m);
            npu_arena_rewind(arena, c.transient_mark);
            return st;
        }
        m->info.batch_mode = NPU_BATCH_PLUGIN;
        m->info.original_batch = meta.batch_size;
        why = 1 + (meta.batch_size == NPU_DIM_DYNAMIC);
    }
    NPU__MSG_UNUSED(why);
    npu__textf(m->info.batch_reason, sizeof m->info.batch_reason, why_fmt[why], (long long)meta.batch_size,
               (long long)meta.batch_size);
    m->info.import_ns = npu__now_ns() - t0;
    *out = m;
    return NPU_OK;
}

NPU_API npu_status npu_model_import(npu_device *dev, npu_arena *arena, const void *blob, size_t size,
                            const npu_import_options *opts, npu_model **out)
{
    int persistent = 0;
    return npu__import(dev, arena, blob, size, opts, opts != NULL && opts->blob_persistent, &persistent, out);
}

NPU_API npu_status npu_model_import_file(npu_device *dev, npu_arena *arena, const char *path,
                                 const npu_import_options *opts, npu_model **out)
{
    void *map;
    size_t size;
    int err, persistent = 0;
    const char *why;
    npu_status st;
    if (out != NULL) *out = NULL;
    if (dev == NULL || path == NULL)
        return npu__fail(dev ? dev->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_model_import_file: NULL argument");
    why = npu__map_file(path, &map, &size, &err);
    if (why != NULL) return npu__fail(dev->ctx, NPU_ERR_IO, "import '%s': %s", path, why);
    if (map == NULL) return npu__fail(dev->ctx, NPU_ERR_FORMAT, "import '%s': empty file", path);
    st = npu__import(dev, arena, map, size, opts, 1, &persistent, out);
    if (st != NPU_OK) {
        munmap(map, size);
        return st;
    }
    if (persistent) {
        /* The driver may use the mapping in place: keep it until destroy. */
        (*out)->map = map;
        (*out)->map_size = size;
        return NPU_OK;
    }
    munmap(map, size);
    return NPU_OK;
}

/* The arena capacity an import of this blob needs: the driver imports it once
 * more to report its argument count (the native blob is the driver's format:
 * only it can count), then the graph is destroyed again. */
static npu_status npu__import_size(npu_device *d, const void *blob, size_t size, const npu_import_options *opts,
                                   size_t *bytes)
{
    npu__blob_meta meta;
    npu__create_args c;
    npu__ze_graph_handle_t graph = NULL;
    npu__ze_graph_properties_2 gp;
    npu_status st;
    ze_result_t r;
    st = npu__import_prepare(d, blob, size, opts, &meta, &c);
    if (st != NPU_OK) return st;
    st = npu__graph_create(d, &c, &graph);
    if (st != NPU_OK) return st;
    memset(&gp, 0, sizeof gp);
    gp.stype = NPU__ZE_STYPE_GRAPH_PROPERTIES;
    r = d->g->pfnGetProperties(graph, &gp);
    d->g->pfnDestroy(graph);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(d->ctx, "pfnGetProperties", r);
    if (gp.numGraphArgs > NPU_MAX_ARGS)
        return npu__fail(d->ctx, NPU_ERR_LIMIT, "model: the graph has %u arguments (at most %u)",
                         (unsigned)gp.numGraphArgs, (unsigned)NPU_MAX_ARGS);
    *bytes = npu_model_size(gp.numGraphArgs);
    return NPU_OK;
}

NPU_API npu_status npu_model_import_size(npu_device *dev, const void *blob, size_t size,
                                         const npu_import_options *opts, size_t *bytes)
{
    if (bytes != NULL) *bytes = 0;
    if (dev == NULL || blob == NULL || size == 0 || bytes == NULL)
        return npu__fail(dev ? dev->ctx : NULL, NPU_ERR_INVALID_ARGUMENT,
                         "npu_model_import_size: NULL argument or empty blob");
    return npu__import_size(dev, blob, size, opts, bytes);
}

NPU_API npu_status npu_model_import_file_size(npu_device *dev, const char *path, const npu_import_options *opts,
                                              size_t *bytes)
{
    void *map;
    size_t size;
    int err;
    const char *why;
    npu_status st;
    if (bytes != NULL) *bytes = 0;
    if (dev == NULL || path == NULL || bytes == NULL)
        return npu__fail(dev ? dev->ctx : NULL, NPU_ERR_INVALID_ARGUMENT,
                         "npu_model_import_file_size: NULL argument");
    why = npu__map_file(path, &map, &size, &err);
    if (why != NULL) return npu__fail(dev->ctx, NPU_ERR_IO, "import '%s': %s", path, why);
    if (map == NULL) return npu__fail(dev->ctx, NPU_ERR_FORMAT, "import '%s': empty file", path);
    st = npu__import_size(dev, map, size, opts, bytes);
    munmap(map, size);
    return st;
}

static npu_status npu__native_blob(npu_model *m, const uint8_t **ptr, size_t *size)
{
    npu_device *d = m->dev;
    ze_result_t r;
    *ptr = NULL;
    *size = 0;
    if (d->caps.native_binary_2) {
        r = d->g->pfnGetNativeBinary2(m->graph, size, ptr);
        if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnGetNativeBinary2", r);
        return NPU_OK;
    }
    r = d->g->pfnGetNativeBinary(m->graph, size, NULL);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnGetNativeBinary", r);
    return NPU_OK;
}

_Static_assert(NPU_BLOB_MAX_LAYOUTS == NPU__META_MAX_LAYOUTS, "npu_blob_info holds every metadata layout");

static const char *npu__model_layout_of(const void *src, uint32_t i)
{
    const npu_model *m = (const npu_model *)src;
    return m->args[m->order[i]].desc.layout;
}

static void npu__model_meta(const npu_model *m, npu__blob_meta *meta)
{
    uint32_t i, n = m->n_inputs + m->n_outputs;
    memset(meta, 0, sizeof *meta);
    /* Version 2.3: the newest every OpenVINO 2025.x that knows layouts and
     * every 2026.x reads (2025's create_metadata refuses a newer minor; 2.7
     * only since 2026-08). The OpenVINO version is the device option's
     * (OpenVINO 2025 imports only a blob of its own version). */
    meta->version = 2u << 16 | 3u;
    for (i = 0; i < 3; i++) meta->ov_version[i] = m->dev->export_ov[i];
    meta->batch_size = m->dynamic_batch ? (int64_t)NPU_DIM_DYNAMIC
                       : m->batch_lists > 1 ? (int64_t)m->batch_lists : 0;
    meta->compiler_version = m->dev->compiler_version;
    meta->blob_type = 0;
    if (n <= NPU__META_MAX_LAYOUTS) {
        meta->n_input_layouts = m->n_inputs;
        meta->n_output_layouts = m->n_outputs;
        meta->layout_of = npu__model_layout_of;
        meta->layout_src = m;
    }
}

NPU_API npu_status npu_model_export(npu_model *model, void *dst, size_t cap, size_t *size)
{
    npu__blob_meta meta;
    const uint8_t *blob = NULL;
    size_t bsize = 0;
    npu__sink s;
    npu_status st;
    if (model == NULL || size == NULL)
        return npu__fail(model ? model->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_model_export: NULL argument");
    st = npu__native_blob(model, &blob, &bsize);
    if (st != NPU_OK) return st;
    npu__model_meta(model, &meta);
    npu__sink_init(&s, dst, cap);
    if (blob != NULL) {
        npu__sink_put(&s, blob, bsize);
    } else {
        /* GetNativeBinary v1: copy straight into dst when it fits. */
        if (dst != NULL && bsize <= cap) {
            size_t got = bsize;
            ze_result_t r = model->dev->g->pfnGetNativeBinary(model->graph, &got, (uint8_t *)dst);
            if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(model->ctx, "pfnGetNativeBinary", r);
        }
        s.len = bsize;
    }
    npu__meta_write(&s, &meta);
    return npu__sink_finish(&s, model->ctx, "model export", size);
}

NPU_API npu_status npu_model_export_file(npu_model *model, const char *path)
{
    char tmp[NPU__NAME_MAX + 48];   /* "<base>.tmp-<pid>-<hex>" in the target's directory */
    const char *base;
    size_t size = 0, n;
    void *map = MAP_FAILED;
    int fd = -1, dir = -1, err = 0;
    npu_status st;
    if (model == NULL || path == NULL)
        return npu__fail(model ? model->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_model_export_file: NULL argument");
    st = npu_model_export(model, NULL, 0, &size);
    if (st != NPU_OK) return st;
    /* A long path is cut in the message, so that it cannot push the reason out. */
    if ((err = npu__open_dir_of(path, &base, &dir)) != 0)
        return npu__fail(model->ctx, NPU_ERR_IO, "export '%.300s%s': cannot open its directory: %s%s", path,
                         strlen(path) > 300 ? "..." : "", strerror(err),
                         err == ENAMETOOLONG ? " (path too long)" : "");
    if (base[0] == '\0' || strlen(base) > NPU__NAME_MAX - 40) {
        close(dir);
        if (base[0] == '\0') return npu__fail(model->ctx, NPU_ERR_IO, "export '%s': names a directory, not a file", path);
        return npu__fail(model->ctx, NPU_ERR_IO, "export '%.200s...': path too long (%zu bytes): its file name has "
                         "%zu bytes, at most %d leave room for the temporary name", path, strlen(path), strlen(base),
                         NPU__NAME_MAX - 40);
    }
    {
        /* The temp file is "<path>.tmp-<pid>-<ns>": an exporter killed
         * mid-write leaves one, which the next export to the same directory
         * removes once its pid is gone. Mode 0666: the kernel applies the
         * umask, as for any file a program creates. */
        struct timespec ts;
        unsigned attempt;
        npu__temp_name(tmp, sizeof tmp, base, 0, 0);
        (void)npu__remove_orphans_at(dir, tmp);
        if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) ts.tv_sec = ts.tv_nsec = 0;
        for (attempt = 0; attempt < 8; attempt++) {
            npu__temp_name(tmp, sizeof tmp, base, 1,
                           (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + attempt);
            do {
                fd = openat(dir, tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            } while (fd < 0 && errno == EINTR);
            if (fd >= 0 || errno != EEXIST) break;
        }
    }
    if (fd < 0) {
        err = errno;
        close(dir);
        return npu__fail(model->ctx, NPU_ERR_IO, "export '%s': cannot create a temporary file: %s", path,
                         strerror(err));
    }
    /* posix_fallocate, not ftruncate: the blocks must exist before the mapping
     * is written, or a full file system raises SIGBUS instead of ENOSPC. */
    if ((err = posix_fallocate(fd, 0, (off_t)size)) != 0) {
        st = npu__fail(model->ctx, NPU_ERR_IO, "export '%s' (temporary '%s'): %s", path, tmp, strerror(err));
        goto fail;
    }
    map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        st = npu__fail(model->ctx, NPU_ERR_IO, "export '%s' (temporary '%s'): mmap: %s", path, tmp, strerror(errno));
        goto fail;
    }
    st = npu_model_export(model, map, size, &n);   /* n: size stays the mapped length */
    if (st != NPU_OK) goto fail;
    if (msync(map, size, MS_SYNC) != 0) {
        st = npu__fail(model->ctx, NPU_ERR_IO, "export '%s' (temporary '%s'): msync: %s", path, tmp, strerror(errno));
        goto fail;
    }
    munmap(map, size);
    map = MAP_FAILED;
    if (fsync(fd) != 0) {
        st = npu__fail(model->ctx, NPU_ERR_IO, "export '%s' (temporary '%s'): fsync: %s", path, tmp, strerror(errno));
        goto fail;
    }
    if (close(fd) != 0) {
        fd = -1;
        st = npu__fail(model->ctx, NPU_ERR_IO, "export '%s' (temporary '%s'): close: %s", path, tmp, strerror(errno));
        goto fail;
    }
    fd = -1;
    if (renameat(dir, tmp, dir, base) != 0) {
        st = npu__fail(model->ctx, NPU_ERR_IO, "export '%s': rename: %s", path, strerror(errno));
        goto fail;
    }
    if (fsync(dir) != 0) { /* best effort: the file is complete under its name */ }
    close(dir);
    return NPU_OK;
fail:
    if (map != MAP_FAILED) munmap(map, size);
    if (fd >= 0) close(fd);
    unlinkat(dir, tmp, 0);
    close(dir);
    return st;
}

NPU_API void npu_model_destroy(npu_model *model)
{
    if (model == NULL) return;
    npu__model_release(model);
}

NPU_API npu_status npu_model_set_workload_type(npu_model *model, npu_workload_type type)
{
    if (model == NULL) return npu__fail(NULL, NPU_ERR_INVALID_ARGUMENT, "npu_model_set_workload_type: NULL model");
    if ((int)type < 0 || (int)type > (int)NPU_WORKLOAD_BACKGROUND)
        return npu__fail(model->ctx, NPU_ERR_INVALID_ARGUMENT, "npu_model_set_workload_type: type %d (0 or 1)",
                         (int)type);
    if (!model->dev->caps.workload_type)
        return npu__fail(model->ctx, NPU_ERR_UNSUPPORTED, "workload type: the driver does not offer %s",
                         NPU__ZE_CQ_NPU_EXT_NAME);
    return npu__set_workload(model, (uint32_t)type);
}

NPU_API size_t npu_model_arena_bytes(const npu_model *model) { return model ? model->arena_bytes : 0; }

NPU_API uint32_t npu_model_input_count(const npu_model *m) { return m ? m->n_inputs : 0; }
NPU_API uint32_t npu_model_output_count(const npu_model *m) { return m ? m->n_outputs : 0; }
NPU_API uint32_t npu_model_state_count(const npu_model *m) { return m ? m->n_states : 0; }
NPU_API uint32_t npu_model_batch(const npu_model *m) { return m ? m->batch_lists : 0; }

NPU_API npu_status npu_model_get_info(const npu_model *model, npu_model_info *out)
{
    if (model == NULL || out == NULL)
        return npu__fail(model ? model->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_model_get_info: NULL argument");
    *out = model->info;
    return NPU_OK;
}

NPU_API const npu_tensor_desc *npu_model_input(const npu_model *m, uint32_t i)
{
    return m && i < m->n_inputs ? &m->args[m->order[i]].desc : NULL;
}

NPU_API const npu_tensor_desc *npu_model_output(const npu_model *m, uint32_t i)
{
    return m && i < m->n_outputs ? &m->args[m->order[m->n_inputs + i]].desc : NULL;
}

NPU_API const npu_tensor_desc *npu_model_state(const npu_model *m, uint32_t i)
{
    return m && i < m->n_states ? &m->args[m->order[m->n_inputs + m->n_outputs + 2 * i]].desc : NULL;
}

#ifdef NPU__SOURCES
/* ---- Compile from a graph or an IR: sources and batch plans ----------------
 * Sees the model only through its npu__source table (section 1; the graph's
 * in section 7, the IR's in section 8), plans the batch mode (npu.h
 * "Batching") and compiles one "form" of the model (npu__form_compile:
 * compiled, then debatched). The compile calls that choose the form and go
 * through the model cache are in 14d. */

/* The layouts the graph / IR declares (e.g. "NHWC") replace the ones derived
 * from the compiled argument (which follow the rank), and give the batch axis. */
static void npu__model_source_layouts(npu_model *m, const npu__io_list *in, const npu__io_list *outl)
{
    uint32_t i;
    for (i = 0; i < m->n_inputs + m->n_outputs; i++) {
        const npu__io_list *l = i < m->n_inputs ? in : outl;
        uint32_t k = i < m->n_inputs ? i : i - m->n_inputs;
        npu_tensor_desc src;
        /* (an empty layout: only for rank 0, where the argument's is "" and
         * its batch axis 0 already) */
        if (k < l->count && l->get(l->src, k, &src) == NPU_OK) npu__model_set_layout(m, i, src.layout);
    }
}

static uint32_t npu__src_ir_version(const npu__model_src *m) { return m->ops->ir_version(m->src); }

/* A graph's payload converts the type overrides of o itself (Convert layers);
 * an IR's leaves them to the compiler (IR v10 only, see npu__flags_walk). */
static npu_status npu__src_payload(const npu__model_src *m, const npu_payload_options *po,
                                   const npu_compile_options *o, void *dst, size_t cap, size_t *size)
{
    return m->ops->payload(m->src, po, o, dst, cap, size);
}

static void npu__src_lists(const npu__model_src *m, const npu_compile_options *o, npu__io_list *in,
                           npu__io_list *outl, uint32_t *n_args)
{
    memset(in, 0, sizeof *in);
    memset(outl, 0, sizeof *outl);
    in->src = outl->src = m->src;
    in->count = m->ops->count(m->src, 0);
    outl->count = m->ops->count(m->src, 1);
    in->get = m->ops->input;
    outl->get = m->ops->output;
    *n_args = in->count + outl->count + 2 * m->ops->count(m->src, 2);
    if (o != NULL) {
        in->overrides = o->input_types;
        in->n_overrides = o->n_input_types;
        outl->overrides = o->output_types;
        outl->n_overrides = o->n_output_types;
    }
    in->ir_version = npu__src_ir_version(m);
    in->converts = m->ops->converts;
}

/* The arena a plain compile needs, from its parts: the payload (psize bytes)
 * and the build flags (flags_len bytes before the NUL) live transiently, then
 * the model of n_args arguments. 0: the sum overflows. (The cache's hit path,
 * section 14c, computes it from the payload size its entry records.) */
static size_t npu__plain_need(uint64_t psize, size_t flags_len, uint32_t n_args)
{
    size_t transient, model = npu_model_size(n_args);
    if (psize > SIZE_MAX - 2 * NPU_ARENA_ALIGN || flags_len > SIZE_MAX - 2 * NPU_ARENA_ALIGN ||
        npu__add_size(NPU_ARENA_ROUND((size_t)psize), NPU_ARENA_ROUND(flags_len + 1), &transient))
        return 0;
    return transient > model ? transient : model;
}

/* One compile of `src` as it is now. arena NULL: only the arena bytes it
 * takes into *bytes, max(payload + build flags, model), for one form of the
 * compile and for the cache (section 14, which stores the payload's size,
 * *payload_bytes if not NULL; npu__pick_layout logs nothing then). Else the
 * compile: payload and build flags transiently in the arena, then the model
 * into *out, its info.compile_ns the time of the driver call. The caller
 * has checked the arguments. */
static npu_status npu__plain(npu_device *d, npu_arena *arena, const npu__model_src *src, const npu_compile_options *o,
                             size_t *bytes, uint64_t *payload_bytes, npu_model **out)
{
    npu_payload_options po;
    npu__io_list in, outl;
    npu__sink s;
    uint32_t n_args;        /* (set by npu__src_lists) */
    size_t psize = 0, mark;
    const char *flags;      /* (set by npu__flags_alloc) */
    void *payload;
    uint64_t t0;
    npu_status st;
    npu__src_lists(src, o, &in, &outl, &n_args);
    memset(&po, 0, sizeof po);
    po.layout = npu__pick_layout(d, o, in.ir_version, arena == NULL);
    po.weights_threshold_bytes = o ? o->weights_threshold_bytes : 0;
    po.compiler_version = d->compiler_version;
    st = npu__src_payload(src, &po, o, NULL, 0, &psize);
    if (st != NPU_OK) return st;
    in.layout_b = po.layout == NPU_PAYLOAD_NO_WEIGHTS_COPY;
    if (arena == NULL) {
        npu__sink_init(&s, NULL, 0);
        npu__flags_write(&s, d, o, &in, &outl);
        if (payload_bytes != NULL) *payload_bytes = psize;
        *bytes = npu__plain_need(psize, s.len, n_args);
        if (*bytes == 0) return npu__fail(d->ctx, NPU_ERR_OVERFLOW, "compile: the payload's size overflows");
        return NPU_OK;
    }
    mark = arena->used;
    payload = npu__alloc(arena, d->ctx, psize, "IR payload (transient)");
    if (payload == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    st = npu__src_payload(src, &po, o, payload, psize, &psize);
    if (st == NPU_OK) st = npu__flags_alloc(d, arena, o, &in, &outl, &flags);
    if (st != NPU_OK) {
        npu_arena_rewind(arena, mark);
        return st;
    }
    /* (layout_b is 0 or 1: layout A or B; flags is set when npu__flags_alloc succeeds) */
    npu__log(d->ctx, NPU_LOG_DEBUG, "compile: payload %zu bytes, layout %c, flags: %s", psize, 'A' + in.layout_b,
             flags);
    t0 = npu__now_ns();
    st = npu__compile(d, arena, payload, psize, flags, o, mark, in.layout_b, src, out);
    if (st != NPU_OK) return st;
    (*out)->info.compile_ns = npu__now_ns() - t0;
    npu__model_source_layouts(*out, &in, &outl);
    return NPU_OK;
}

/* npu__plain's size query (section 14's name for it). */
static npu_status npu__plain_size(npu_device *d, const npu__model_src *src, const npu_compile_options *o,
                                  size_t *bytes, uint64_t *payload_bytes)
{
    return npu__plain(d, NULL, src, o, bytes, payload_bytes, NULL);
}

/* What analysing the model's inputs and outputs found. */
typedef struct npu__batch_plan {
    int batched;        /* an input whose layout names N has a batch other than 1
                           (or such inputs disagree) */
    int64_t n;          /* the original batch: N, NPU_DIM_DYNAMIC, or 1 */
    int no_layout;      /* no input's layout names N: the batch is unknown */
    int plugin_ok;      /* PLUGIN can debatch it (before trying set_batch/compile) */
    char why[224];      /* why PLUGIN cannot ("" when it can); with no_layout: why
                           the batch is unknown */
} npu__batch_plan;

/* Bumped whenever the rule deciding the batch changes, so that a cache entry
 * made under an older decision is never taken for one made under this one.
 * 2: the batch axis only from a layout naming N (no axis-0 default). */
#define NPU__BATCH_RULE 2

#ifndef NPU_NO_CACHE
/* "dynamic" or the number (exact: part of a cache entry's descriptor, 14c). */
static void npu__sink_batch(npu__sink *s, int64_t n)
{
    if (n == NPU_DIM_DYNAMIC)
        npu__sink_str(s, "dynamic");
    else
        npu__sink_i64_dec(s, n);
}
#endif

/* Input / output i of the source with its batch axis: the 'N' of its layout
 * (*has_n 1), else 0 (*has_n 0: the port has no batch axis for batching). */
NPU__NOINLINE static npu_status npu__src_io(const npu__model_src *s, int output, uint32_t i, npu_tensor_desc *d,
                              uint32_t *axis, int *has_n)
{
    npu_status st = output ? s->ops->output(s->src, i, d) : s->ops->input(s->src, i, d);
    if (st != NPU_OK) return st;
    *axis = s->ops->batch_axis(s->src, output, i, d);
    *has_n = strchr(d->layout, 'N') != NULL && *axis < d->shape.rank;
    return NPU_OK;
}

/* Finds the original batch and whether PLUGIN can debatch it. Only a layout
 * naming N gives a batch axis (no axis-0 default: a softmax over axis 0 of a
 * layout-less model must see all of axis 0). The batch of an IR counts its
 * npu_ir_set_batch rewrite; its outputs are compared with the batch the IR
 * text declares. */
static void npu__batch_analyze(const npu__model_src *s, npu__batch_plan *p)
{
    uint32_t n_in, n_out, n_states, i, k, axis;   /* axis, has_n: from npu__src_io */
    int64_t rewrite = 0, n = 1, declared = 1, shown = 1;
    int found = 0, mismatch = 0, has_n;
    NPU__MSG_ONLY(char a[24]; char b[24]; char first_name[64];)   /* message text only */
    /* a port without a layout naming N (kind, name, its layout, "" or shown),
     * then no input with one (the first input's reason, "" or shown, and the
     * dynamic dim's) */
    NPU__MSG_ONLY(static const char *const no_n_fmt[4] = {"%s '%.60s' has no layout naming N%s",
                                                          "%s '%.60s' has no layout naming N (layout %s)",
                                                          "no input has a layout naming N%s%s",
                                                          "no input has a layout naming N (%s)%s"};)
    /* two ports' batches differ: the first input's, then another input's or an output's */
    NPU__MSG_ONLY(static const char *const differ_fmt[2] = {"inputs '%.60s' (batch %s) and '%.60s' (batch %s) differ",
                                                            "input '%.60s' (batch %s) and output '%.60s' (batch %s) "
                                                            "differ"};)
    /* the longest texts: 154, 120, 120 (axis < NPU_MAX_RANK: one digit); the
     * first two as large as p->why, so that an input's and an output's
     * reason are written with one cap */
    char why_axis[sizeof p->why], why_missing[sizeof p->why], why_dynamic[128];
    npu_tensor_desc d;

    why_axis[0] = why_missing[0] = why_dynamic[0] = '\0';   /* (no need to clear the rest) */
    NPU__MSG_ONLY(first_name[0] = '\0';)
    memset(p, 0, sizeof *p);
    p->n = 1;
    n_in = s->ops->count(s->src, 0);
    n_out = s->ops->count(s->src, 1);
    n_states = s->ops->count(s->src, 2);
    if (s->ops->batch_rewrite != NULL) rewrite = s->ops->batch_rewrite(s->src);
    /* The inputs, then the outputs (i >= n_in). An input's reasons are kept
     * apart (the first of each kind); an output's go to p->why, where the
     * first failing output's stays (unless the inputs' batches differ). */
    for (i = 0; i < n_in + n_out; i++) {
        int output = i >= n_in;
        NPU__MSG_ONLY(const char *kind = output ? "output" : "input";)
        char *why_n = output ? p->why : why_missing, *why_ax = output ? p->why : why_axis;
        int64_t v, decl;
        if (npu__src_io(s, output, output ? i - n_in : i, &d, &axis, &has_n) != NPU_OK) continue;
        if (!has_n) {
            if (why_n[0] == '\0')
                npu__textf(why_n, sizeof p->why, no_n_fmt[d.layout[0] != '\0'], kind, d.name, d.layout);
            for (k = 0; !output && k < d.shape.rank && why_dynamic[0] == '\0'; k++)
                if (d.shape.dims[k] == NPU_DIM_DYNAMIC)
                    npu__textf(why_dynamic, sizeof why_dynamic, "; input '%.60s' has a dynamic dim (axis %u) but "
                             "no layout naming N", d.name, (unsigned)k);
            continue;
        }
        if (axis != 0 && why_ax[0] == '\0')
            npu__textf(why_ax, sizeof p->why, "%s '%.60s' has its batch on axis %u (layout %s); debatching needs the "
                     "outermost axis", kind, d.name, (unsigned)axis, d.layout);
        decl = d.shape.dims[axis];
        /* an output's batch is compared with the batch the first input
         * declares, an input's (counting the rewrite) with the first input's:
         * the first difference is the reason (until then p->why is empty:
         * the inputs' other reasons are kept apart), told with the declared
         * batches (inputs differ only without a rewrite) */
        if (output) {
            if (decl == declared || p->why[0] != '\0') continue;
        } else {
            v = rewrite > 0 ? rewrite : decl;
            if (shown == 1 && v != 1) shown = v;
            if (!found) {
                found = 1;
                n = v;
                declared = decl;
                NPU__MSG_ONLY(npu__strlcpy(first_name, d.name, sizeof first_name);)
                continue;
            }
            if (v == n || mismatch) continue;
            mismatch = 1;
        }
        NPU__MSG_ONLY(npu__batch_text(declared, a, sizeof a); npu__batch_text(decl, b, sizeof b);)
        npu__textf(p->why, sizeof p->why, differ_fmt[output], first_name, a, d.name, b);
    }
    if (!found) {
        p->no_layout = 1;
        npu__textf(p->why, sizeof p->why, no_n_fmt[2 + (why_missing[0] != '\0')], why_missing, why_dynamic);
        return;
    }
    p->n = mismatch ? shown : n;
    p->batched = mismatch || n != 1;
    if (!p->batched) {
        p->n = 1;
        p->why[0] = '\0';   /* (an output's reason does not matter) */
        return;
    }
    if (mismatch) return;
    if (n_states > 0) {
        npu__textf(p->why, sizeof p->why, "the model has %u state variable(s)", (unsigned)n_states);
        return;
    }
    if (why_missing[0] != '\0') {
        npu__strlcpy(p->why, why_missing, sizeof p->why);
        return;
    }
    if (why_axis[0] != '\0') {
        npu__strlcpy(p->why, why_axis, sizeof p->why);
        return;
    }
    p->plugin_ok = p->why[0] == '\0';   /* no output's reason */
}

/* Sets the source to batch 1 for PLUGIN (*saved: what to restore). */
static npu_status npu__src_batch_one(const npu__model_src *s, int64_t *saved)
{
    *saved = s->ops->batch(s->src);
    return s->ops->set_batch(s->src, 1);
}

static void npu__src_batch_restore(const npu__model_src *s, npu_context *ctx, int64_t saved)
{
    if (s->ops->set_batch(s->src, saved) != NPU_OK)
        npu__log(ctx, NPU_LOG_ERROR, "batching: restoring the caller's batch %lld failed", (long long)saved);
}

/* Compiles one form of the source (already at the form's batch): the
 * payload, then debatching into the form's command lists. */
static npu_status npu__form_compile(npu_device *d, npu_arena *arena, const npu__model_src *src,
                                    const npu_compile_options *o, const npu__form *form, npu_model **out)
{
    npu_status st;
    npu_model *m;   /* (set when npu__plain succeeds) */
    size_t mark = arena->used;

    *out = NULL;
    st = npu__plain(d, arena, src, o, NULL, NULL, &m);   /* (with info.compile_ns) */
    if (st != NPU_OK) return st;
    if (form->mode == NPU_BATCH_PLUGIN) {
        st = form->original > (int64_t)NPU__MAX_BATCH
                 ? npu__fail(d->ctx, NPU_ERR_LIMIT, "batching: batch %lld exceeds %u", (long long)form->original,
                             (unsigned)NPU__MAX_BATCH)
                 : npu__model_debatch(m, form->original);
        if (st != NPU_OK) {
            npu__model_release(m);
            npu_arena_rewind(arena, mark);
            return st;
        }
    }
    m->info.batch_mode = form->mode;
    m->info.original_batch = form->original;
    *out = m;
    return NPU_OK;
}

#endif /* NPU__SOURCES */

/* ==== 13. Request ======================================================== */
/* Owns: npu_request: host buffers for every argument, command lists recorded
 * once per buffer set (one per batch element when debatched, two sets when
 * the model has states, swapped after each inference), fences, synchronous
 * and asynchronous inference, state reset. Calls: sections 1-3 and 10-12. */

static uint32_t npu__req_sets(const npu_model *m) { return m->n_states > 0 ? 2u : 1u; }

/* Command lists per set: the model's batch, or max_batch (dynamic batch). */
static uint32_t npu__req_lists(const npu_model *m, const npu_request_options *opts)
{
    uint32_t n = opts != NULL ? opts->max_batch : 0;
    if (!m->dynamic_batch) return m->batch_lists;
    if (n < 1) n = 1;
    return n > NPU__MAX_BATCH ? NPU__MAX_BATCH : n;
}

/* Bytes of argument i in this request's buffers: n_lists elements (states and
 * unbatched arguments: desc.bytes). */
static uint64_t npu__req_arg_bytes(const npu_request *q, uint32_t i, uint32_t lists)
{
    const npu__arg *a = &q->model->args[i];
    return a->kind >= NPU__ARG_STATE_IN ? a->desc.bytes : a->slice_bytes * lists;
}

NPU_API size_t npu_request_size(const npu_model *m, const npu_request_options *opts)
{
    if (m == NULL) return 0;
    return NPU_ARENA_ROUND(sizeof(struct npu_request)) +
           NPU_ARENA_ROUND((size_t)npu__req_sets(m) * npu__req_lists(m, opts) * sizeof(ze_command_list_handle_t)) +
           NPU_ARENA_ROUND((size_t)m->n_args * sizeof(npu__req_arg)) +
           NPU_ARENA_ROUND((size_t)2 * m->n_args * sizeof(uint32_t));
}

/* The pointer argument `i` gets in set `set` (before the batch offset). */
static void *npu__req_bound(const npu_request *q, uint32_t i, uint32_t set)
{
    const npu__arg *a = &q->model->args[i];
    if (a->kind >= NPU__ARG_STATE_IN) return set == 0 ? q->a[i].own : q->a[a->pair].own;
    return q->a[i].imported ? q->a[i].imported : q->a[i].own;
}

/* Records every command list: creates it first (reset 0: the request's
 * first recording, its lists still NULL), or resets it (reset 1). Serialized
 * per model. A list whose creation failed stays NULL (npu__list_create). */
static npu_status npu__req_record(npu_request *q, int reset)
{
    npu_model *m = q->model;
    const npu__ze_graph_ddi *g = m->dev->g;
    uint32_t x, i;
    const char *fn = NULL;
    ze_result_t r = ZE_RESULT_SUCCESS;
    npu__model_lock(m);
    /* list x of the n_sets x n_lists: set x / n_lists, batch element x % n_lists */
    for (x = 0; x < q->n_sets * q->n_lists && r == ZE_RESULT_SUCCESS; x++) {
        ze_command_list_handle_t cl;
        uint32_t set = x / q->n_lists, l = x % q->n_lists;
        if (reset) {
            fn = "zeCommandListReset";
            r = zeCommandListReset(q->lists[x]);
        } else {   /* the first recording creates the list */
            fn = "zeCommandListCreate";
            r = npu__list_create(m->dev, &q->lists[x]);
        }
        cl = q->lists[x];
        for (i = 0; i < m->n_args && r == ZE_RESULT_SUCCESS; i++) {
            const npu__arg *a = &m->args[i];
            unsigned char *p = (unsigned char *)npu__req_bound(q, i, set);
            if (a->kind < NPU__ARG_STATE_IN) p += (size_t)a->slice_bytes * l;
            fn = "pfnSetArgumentValue";
            r = g->pfnSetArgumentValue(m->graph, i, p);
        }
        if (r == ZE_RESULT_SUCCESS) {
            fn = "pfnAppendGraphExecute";
            r = g->pfnAppendGraphExecute(cl, m->graph, q->prof_query, NULL, 0, NULL);
        }
        if (r == ZE_RESULT_SUCCESS) {
            fn = "zeCommandListClose";
            r = zeCommandListClose(cl);
        }
    }
    npu__model_unlock(m);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(q->ctx, fn, r);
    return NPU_OK;
}

/* (npu_request_create sets lists and a before anything can fail) */
static void npu__req_release(npu_request *q)
{
    uint32_t i;
    for (i = 0; i < q->n_sets * q->n_lists; i++)
        if (q->lists[i] != NULL) zeCommandListDestroy(q->lists[i]);
    if (q->fence != NULL) zeFenceDestroy(q->fence);
    for (i = 0; i < q->model->n_args; i++) {
        npu__req_arg *ra = &q->a[i];
        if (ra->fd_alloc != NULL) ra->imported = ra->fd_alloc;   /* what zeMemFree takes */
        if (ra->own != NULL) zeMemFree(q->model->dev->zctx, ra->own);
        if (ra->imported != NULL) zeMemFree(q->model->dev->zctx, ra->imported);
        ra->own = ra->imported = NULL;
    }
    q->fence = NULL;
    if (q->prof_query != NULL) q->model->prof_detach(q);
}

static npu_status npu__req_init(npu_request *q, const npu_request_options *opts)
{
    npu_model *m = q->model;
    npu_device *d = m->dev;
    uint32_t i;
    ze_result_t r;
    for (i = 0; i < m->n_args; i++) {
        const npu__arg *a = &m->args[i];
        ze_host_mem_alloc_desc_t hd;
        if (a->slice_bytes > NPU__MAX_ARG_BYTES / q->n_lists)
            return npu__fail(q->ctx, NPU_ERR_LIMIT, "request: %s '%s' of %llu bytes is too large for %u batch "
                             "elements", a->kind == NPU__ARG_OUTPUT ? "output" : "input", a->desc.name,
                             (unsigned long long)a->slice_bytes, (unsigned)q->n_lists);
        memset(&hd, 0, sizeof hd);
        hd.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
        hd.flags = (a->kind == NPU__ARG_INPUT && !(opts && opts->cached_inputs))
                       ? (ze_host_mem_alloc_flags_t)ZE_HOST_MEM_ALLOC_FLAG_BIAS_WRITE_COMBINED
                       : 0;
        r = zeMemAllocHost(d->zctx, &hd, npu__round_page(npu__req_arg_bytes(q, i, q->n_lists)), 4096,
                           &q->a[i].own);
        if (r != ZE_RESULT_SUCCESS) {
            q->a[i].own = NULL;
            return npu__ze_fail(q->ctx, "zeMemAllocHost", r);
        }
        if (a->kind >= NPU__ARG_STATE_IN) memset(q->a[i].own, 0, (size_t)a->desc.bytes);
    }
    r = npu__fence_create(q->queue, &q->fence);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(q->ctx, "zeFenceCreate", r);
    return npu__req_record(q, 0);   /* (creates the lists) */
}

NPU_API npu_status npu_request_create(npu_model *model, npu_arena *arena, const npu_request_options *opts,
                              npu_request **out)
{
    npu_request *q;
    npu_context *ctx = model ? model->ctx : NULL;
    unsigned char *base;
    uint32_t n_lists, n_sets;
    size_t mark, o[3];
    npu_status st;
    if (out != NULL) *out = NULL;
    if (model == NULL || arena == NULL || out == NULL)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_request_create: NULL argument");
    if (opts != NULL && npu__check_reserved(ctx, opts->reserved, "request options") != NPU_OK)
        return NPU_ERR_INVALID_ARGUMENT;
    if (opts != NULL && model->dynamic_batch && opts->max_batch > NPU__MAX_BATCH)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_request_create: max_batch %u exceeds %u",
                         (unsigned)opts->max_batch, (unsigned)NPU__MAX_BATCH);
    mark = arena->used;
    /* One block, laid out as npu_request_size counts it: the request, its
     * command lists (at o[0]), its argument buffers (o[1]), its copy tables
     * (o[2], 2 n_args entries). */
    n_lists = npu__req_lists(model, opts);
    n_sets = npu__req_sets(model);
    o[0] = NPU_ARENA_ROUND(sizeof *q);
    o[1] = o[0] + NPU_ARENA_ROUND((size_t)n_sets * n_lists * sizeof(ze_command_list_handle_t));
    o[2] = o[1] + NPU_ARENA_ROUND((size_t)model->n_args * sizeof(npu__req_arg));
    base = (unsigned char *)npu__alloc(arena, ctx, o[2] + (size_t)2 * model->n_args * sizeof(uint32_t), "request");
    if (base == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    q = (npu_request *)(void *)base;
    q->model = model;
    q->ctx = ctx;
    q->queue = model->queue;
    q->n_lists = n_lists;
    q->n_active = n_lists;
    q->n_sets = n_sets;
    q->lists = (ze_command_list_handle_t *)(void *)(base + o[0]);
    q->a = (npu__req_arg *)(void *)(base + o[1]);
    q->copy_in = (uint32_t *)(void *)(base + o[2]);
    q->copy_out = q->copy_in + model->n_args;
    st = model->prof_attach != NULL ? model->prof_attach(q) : NPU_OK;
    if (st == NPU_OK) st = npu__req_init(q, opts);
    if (st != NPU_OK) {
        npu__req_release(q);
        npu_arena_rewind(arena, mark);
        return st;
    }
    *out = q;
    return NPU_OK;
}

/* The query's layer-level record size in bytes (pfnProfilingQueryGetData with
 * *pSize 0 and no buffer); a failure's message carries the driver's
 * profiling log. */
static npu_status npu__req_profile_bytes(npu_request *q, uint32_t *bytes)
{
    npu_model *m;
    ze_result_t r;
    *bytes = 0;
    if (q == NULL) return npu__fail(NULL, NPU_ERR_INVALID_ARGUMENT, "npu_request_profile: NULL request");
    m = q->model;
    if (q->prof_query == NULL)
        return npu__fail(q->ctx, NPU_ERR_INVALID_ARGUMENT, "npu_request_profile: the model was compiled without "
                         "profiling (npu_compile_options.profiled_requests)");
    if (q->running)
        return npu__fail(q->ctx, NPU_ERR_STATE, "npu_request_profile: an inference is running (npu_request_wait "
                         "first)");
    r = m->prof->pfnProfilingQueryGetData(q->prof_query, NPU__ZE_PROFILING_LAYER_LEVEL, bytes, NULL);
    if (r == ZE_RESULT_SUCCESS && *bytes % sizeof(npu__ze_layer_info) == 0) return NPU_OK;
#ifndef NPU_NO_MESSAGES
    {
        npu_context *ctx = q->ctx;
        uint32_t size = 0;
        npu__fail_begin(ctx, NPU_ERR_DRIVER, "npu_request_profile: pfnProfilingQueryGetData failed: ze_result_t "
                        "0x%08x (size %u); did an inference run? profiling log: ", (unsigned)r, (unsigned)*bytes);
        if (ctx != NULL && m->prof->pfnProfilingLogGetString(q->prof_query, &size, NULL) == ZE_RESULT_SUCCESS &&
            size > 1) {
            size_t len;
            npu__ctx_lock(ctx);
            len = strlen(ctx->last_error);
            if (len + 1 < sizeof ctx->last_error) {
                uint32_t cap = (uint32_t)(sizeof ctx->last_error - len);
                if (size > cap) size = cap;
                if (m->prof->pfnProfilingLogGetString(q->prof_query, &size, ctx->last_error + len) != ZE_RESULT_SUCCESS)
                    ctx->last_error[len] = '\0';
                ctx->last_error[sizeof ctx->last_error - 1] = '\0';
            }
            npu__ctx_unlock(ctx);
        } else {
            npu__fail_more(ctx, "(empty)");
        }
        *bytes = 0;
        return npu__fail_end(ctx, NPU_ERR_DRIVER);
    }
#else
    *bytes = 0;
    return NPU_ERR_DRIVER;
#endif
}

NPU_API npu_status npu_request_profile_size(npu_request *req, size_t *bytes)
{
    uint32_t n = 0;
    npu_status st;
    if (bytes == NULL)
        return npu__fail(req ? req->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_request_profile_size: NULL bytes");
    *bytes = 0;
    st = npu__req_profile_bytes(req, &n);
    if (st == NPU_OK) *bytes = (size_t)(n / sizeof(npu__ze_layer_info)) * sizeof(npu_layer_profile);
    return st;
}

NPU_API npu_status npu_request_profile(npu_request *req, npu_arena *arena, npu_layer_profile **table,
                                       uint32_t *count)
{
    uint32_t bytes = 0, got, n, i;
    size_t mark;
    unsigned char *buf;
    npu_status st;
    ze_result_t r;
    if (table != NULL) *table = NULL;
    if (count != NULL) *count = 0;
    if (arena == NULL || table == NULL || count == NULL)
        return npu__fail(req ? req->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_request_profile: NULL argument");
    st = npu__req_profile_bytes(req, &bytes);
    if (st != NPU_OK) return st;
    n = bytes / (uint32_t)sizeof(npu__ze_layer_info);
    if (n == 0) return NPU_OK;
    mark = arena->used;
    buf = (unsigned char *)npu__alloc(arena, req->ctx, (size_t)n * sizeof(npu_layer_profile), "profile table");
    if (buf == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    got = bytes;
    r = req->model->prof->pfnProfilingQueryGetData(req->prof_query, NPU__ZE_PROFILING_LAYER_LEVEL, &got, buf);
    if (r != ZE_RESULT_SUCCESS || got != bytes) {
        npu_arena_rewind(arena, mark);
        return npu__fail(req->ctx, NPU_ERR_DRIVER, "npu_request_profile: pfnProfilingQueryGetData gave "
                         "ze_result_t 0x%08x, %u of %u bytes", (unsigned)r, (unsigned)got, (unsigned)bytes);
    }
    /* In place, last record first: record i (368 bytes at 368 i) is read
     * whole before entry i (at 384 i >= 368 i) is written over it. */
    for (i = n; i-- > 0;) {
        npu__ze_layer_info z;
        npu_layer_profile *e = (npu_layer_profile *)(void *)(buf + (size_t)i * sizeof(npu_layer_profile));
        memcpy(&z, buf + (size_t)i * sizeof z, sizeof z);
        memset(e, 0, sizeof *e);
        memcpy(e->name, z.name, sizeof z.name);
        e->name[sizeof e->name - 1] = '\0';
        memcpy(e->type, z.layer_type, sizeof z.layer_type);
        e->type[sizeof z.layer_type - 1] = '\0';
        /* OpenVINO's convertLayersToIeProfilingInfo: Shave when there is SW
         * time, else DPU when there is DPU time, else DMA. */
        npu__strlcpy(e->exec_type, z.sw_ns > 0 ? "Shave" : z.dpu_ns > 0 ? "DPU" : "DMA", sizeof e->exec_type);
        e->status = (npu_layer_status)z.status;
        e->real_time_ns = z.duration_ns;
        e->cpu_time_ns = z.dpu_ns + z.sw_ns + z.dma_ns;
        e->real_time_us = z.duration_ns / 1000u;
        e->cpu_time_us = e->cpu_time_ns / 1000u;
        e->start_ns = z.start_time_ns;
    }
    *table = (npu_layer_profile *)(void *)buf;
    *count = n;
    return NPU_OK;
}

NPU_API void npu_request_destroy(npu_request *req)
{
    if (req == NULL) return;
    if (req->running) {
        if (zeFenceHostSynchronize(req->fence, UINT64_MAX) != ZE_RESULT_SUCCESS)
            zeCommandQueueSynchronize(req->queue, UINT64_MAX);
        req->running = 0;
    }
    npu__req_release(req);
}

static uint32_t npu__req_arg_of(const npu_request *q, int output, uint32_t index)
{
    const npu_model *m = q->model;
    if (output) return index < m->n_outputs ? m->order[m->n_inputs + index] : UINT32_MAX;
    return index < m->n_inputs ? m->order[index] : UINT32_MAX;
}

static void *npu__req_data(npu_request *q, int output, uint32_t index)
{
    uint32_t i;
    if (q == NULL) return NULL;
    i = npu__req_arg_of(q, output, index);
    if (i == UINT32_MAX) return NULL;
    if (q->a[i].user != NULL) return q->a[i].user;
    return q->a[i].imported ? q->a[i].imported : q->a[i].own;
}

NPU_API void *npu_request_input(npu_request *req, uint32_t index) { return npu__req_data(req, 0, index); }
NPU_API void *npu_request_output(npu_request *req, uint32_t index) { return npu__req_data(req, 1, index); }

static npu_status npu__req_find(const npu_request *q, int output, const char *name, uint32_t *index)
{
    const npu_model *m;
    uint32_t i, n;
    if (q == NULL || name == NULL || index == NULL)
        return npu__fail(q ? q->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_request_find: NULL argument");
    m = q->model;
    n = output ? m->n_outputs : m->n_inputs;
    for (i = 0; i < n; i++) {
        const npu__arg *a = &m->args[npu__req_arg_of(q, output, i)];
        if (strcmp(a->name, name) == 0 || strcmp(a->ze_name, name) == 0) {
            *index = i;
            return NPU_OK;
        }
    }
    return npu__fail(q->ctx, NPU_ERR_NOT_FOUND, "the model has no %s named '%s'", output ? "output" : "input", name);
}

NPU_API npu_status npu_request_find_input(const npu_request *req, const char *name, uint32_t *index)
{
    return npu__req_find(req, 0, name, index);
}

NPU_API npu_status npu_request_find_output(const npu_request *req, const char *name, uint32_t *index)
{
    return npu__req_find(req, 1, name, index);
}

static void npu__req_copy_tables(npu_request *q)
{
    const npu_model *m = q->model;
    uint32_t i;
    q->n_copy_in = q->n_copy_out = 0;
    for (i = 0; i < m->n_args; i++) {
        if (q->a[i].user == NULL) continue;
        if (m->args[i].kind == NPU__ARG_INPUT)
            q->copy_in[q->n_copy_in++] = i;
        else
            q->copy_out[q->n_copy_out++] = i;
    }
}

static npu_status npu__req_set_buffer(npu_request *q, int output, uint32_t index, void *ptr, size_t size)
{
    npu_model *m;
    npu_device *d;
    npu__req_arg *ra;
    const npu__arg *a;
    void *old_import;
    uint32_t i;
    npu_status st;
    if (q == NULL) return NPU_ERR_INVALID_ARGUMENT;
    m = q->model;
    d = m->dev;
    if (q->running)
        return npu__fail(q->ctx, NPU_ERR_STATE, "request: cannot change a buffer while an inference runs");
    i = npu__req_arg_of(q, output, index);
    if (i == UINT32_MAX)
        return npu__fail(q->ctx, NPU_ERR_NOT_FOUND, "the model has no %s %u (it has %u)", output ? "output" : "input",
                         (unsigned)index, (unsigned)(output ? m->n_outputs : m->n_inputs));
    a = &m->args[i];
    NPU__MSG_UNUSED(a);
    ra = &q->a[i];
    if (ptr != NULL && size < npu__req_arg_bytes(q, i, q->n_lists))
        return npu__fail(q->ctx, NPU_ERR_BUFFER_TOO_SMALL, "%s '%s': buffer of %zu bytes, %llu needed",
                         output ? "output" : "input", a->desc.name, size,
                         (unsigned long long)npu__req_arg_bytes(q, i, q->n_lists));
    old_import = ra->fd_alloc != NULL ? ra->fd_alloc : ra->imported;
    ra->user = NULL;
    ra->imported = ra->fd_alloc = NULL;
    if (ptr != NULL && (d->ext_flags & NPU__EXT_MEMMAP) && ((uintptr_t)ptr % 4096u) == 0 && (size % 4096u) == 0) {
        npu__ze_import_system_memory imp;
        ze_host_mem_alloc_desc_t hd;
        void *p = NULL;
        ze_result_t r;
        memset(&imp, 0, sizeof imp);
        imp.stype = NPU__ZE_STYPE_IMPORT_SYSTEM_MEMORY;
        imp.pSystemMemory = ptr;
        imp.size = size;
        memset(&hd, 0, sizeof hd);
        hd.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
        hd.pNext = &imp;
        r = zeMemAllocHost(d->zctx, &hd, size, 4096, &p);
        if (r == ZE_RESULT_SUCCESS && p == ptr) {
            ra->imported = p;
        } else {
            /* A driver that ignores the import descriptor returns fresh memory:
             * only the caller's own address proves the import happened. */
            if (r == ZE_RESULT_SUCCESS) zeMemFree(d->zctx, p);
            npu__log(q->ctx, NPU_LOG_INFO, "%s '%s': host memory import %s (0x%08x); copying instead",
                     output ? "output" : "input", a->desc.name,
                     r == ZE_RESULT_SUCCESS ? "returned another address" : "failed", (unsigned)r);
            ra->user = ptr;
        }
    } else if (ptr != NULL) {
        npu__log(q->ctx, NPU_LOG_INFO, "%s '%s': %s; copying instead", output ? "output" : "input",
                 a->desc.name,
                 !(d->ext_flags & NPU__EXT_MEMMAP) ? "the driver does not offer " NPU__ZE_MEMMAP_EXT_NAME
                                 : "buffer address or size is not a multiple of 4096");
        ra->user = ptr;
    }
    npu__req_copy_tables(q);
    if (old_import != NULL || ra->imported != NULL) {
        st = npu__req_record(q, 1);
        if (old_import != NULL) zeMemFree(d->zctx, old_import);
        if (st != NPU_OK) {
            /* Lists are in an unknown state: fall back to the own buffer. */
            if (ra->imported != NULL) zeMemFree(d->zctx, ra->imported);
            ra->imported = NULL;
            ra->user = NULL;
            npu__req_copy_tables(q);
            if (npu__req_record(q, 1) != NPU_OK)
                npu__log(q->ctx, NPU_LOG_ERROR, "request: re-recording failed; the request is unusable");
            return st;
        }
    }
    return NPU_OK;
}

NPU_API npu_status npu_request_set_input_buffer(npu_request *req, uint32_t index, void *ptr, size_t size)
{
    return npu__req_set_buffer(req, 0, index, ptr, size);
}

NPU_API npu_status npu_request_set_output_buffer(npu_request *req, uint32_t index, void *ptr, size_t size)
{
    return npu__req_set_buffer(req, 1, index, ptr, size);
}

/* The typed form: the caller says what its buffer holds, and a frame of
 * another type, shape or layout is refused by name instead of being read as
 * the model's tensor. */
static npu_status npu__req_set_tensor(npu_request *q, int output, uint32_t index, const npu_tensor_desc *t, void *ptr)
{
    const npu_tensor_desc *md;
    uint64_t elems = 1, bytes = 0;
    uint32_t i, k;
    int ok;
    NPU__MSG_ONLY(char s0[96], s1[96];)
    if (q == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (t == NULL || ptr == NULL)
        return npu__fail(q->ctx, NPU_ERR_INVALID_ARGUMENT, "request: %s %u: the tensor description or the buffer is NULL",
                         output ? "output" : "input", (unsigned)index);
    k = npu__req_arg_of(q, output, index);
    if (k == UINT32_MAX) return npu__req_set_buffer(q, output, index, ptr, 0);   /* names the missing index */
    md = &q->model->args[k].desc;
    ok = t->type == md->type && t->shape.rank == md->shape.rank && t->shape.rank <= NPU_MAX_RANK &&
         (t->layout[0] == '\0' || md->layout[0] == '\0' || strncmp(t->layout, md->layout, NPU_LAYOUT_MAX) == 0);
    for (i = 0; ok && i < t->shape.rank; i++) {
        ok = t->shape.dims[i] >= 1 && (md->shape.dims[i] < 0 || t->shape.dims[i] == md->shape.dims[i]);
        if (ok && npu__mul_u64(elems, (uint64_t)t->shape.dims[i], &elems)) ok = 0;
    }
    if (ok && npu__mul_u64(elems, npu_type_size(t->type), &bytes)) ok = 0;
    if (!ok)
        return npu__fail(q->ctx, NPU_ERR_INVALID_ARGUMENT,
                         "%s '%s': the buffer holds %s %s%s%s; the model %s %s %s%s%s (npu_ir_set_preprocess / "
                         "npu_graph_set_preprocess declare another input)",
                         output ? "output" : "input", md->name, npu_type_name(t->type), npu__shape_str(&t->shape, s0, 96),
                         t->layout[0] ? " " : "", t->layout, output ? "gives" : "takes", npu_type_name(md->type),
                         npu__shape_str(&md->shape, s1, 96), md->layout[0] ? " " : "", md->layout);
    if (bytes > SIZE_MAX) return npu__fail(q->ctx, NPU_ERR_OVERFLOW, "request: tensor too large");
    return npu__req_set_buffer(q, output, index, ptr, (size_t)bytes);
}

NPU_API npu_status npu_request_set_input_tensor(npu_request *req, uint32_t index, const npu_tensor_desc *tensor,
                                                void *ptr)
{
    return npu__req_set_tensor(req, 0, index, tensor, ptr);
}

NPU_API npu_status npu_request_set_output_tensor(npu_request *req, uint32_t index, const npu_tensor_desc *tensor,
                                                 void *ptr)
{
    return npu__req_set_tensor(req, 1, index, tensor, ptr);
}

/* ---- dma-buf / fd import (npu_request_set_input_fd / _output_fd) ----
 * Reached only from those two entry points. Intel's driver imports a dma-buf
 * through ze_external_memory_import_fd_t {DMA_BUF} as the first struct of the
 * allocation's pNext (api/ze_memory.cpp): the whole buffer, whatever size the
 * call names; npu binds fd_alloc + offset and checks the range itself
 * against the allocation's size (zeMemGetAddressRange). The caller keeps the
 * fd: the import holds its own reference to the buffer. */
/* The driver lists DMA_BUF among its import types. A failed query: no. */
static int npu__dma_buf_import(const npu_device *d)
{
    ze_device_external_memory_properties_t em;
    memset(&em, 0, sizeof em);
    em.stype = ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES;
    return zeDeviceGetExternalMemoryProperties(d->device, &em) == ZE_RESULT_SUCCESS &&
           (em.memoryAllocationImportTypes & ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF) != 0;
}

static npu_status npu__req_import_fd(npu_request *q, const char *kind, const char *name, int fd, size_t offset,
                                     size_t size, void **out)
{
    npu_device *d = q->model->dev;
    ze_external_memory_import_fd_t imp;
    ze_host_mem_alloc_desc_t hd;
    void *p = NULL, *base = NULL;
    size_t bytes = 0, end;
    struct stat sb;
    ze_result_t r;
    NPU__MSG_UNUSED(kind);
    NPU__MSG_UNUSED(name);
    *out = NULL;
    if (fd < 0 || fstat(fd, &sb) != 0)
        return npu__fail(q->ctx, NPU_ERR_INVALID_ARGUMENT, "%s '%s': fd %d is not an open file descriptor", kind,
                         name, fd);
    if (npu__add_size(offset, size, &end))
        return npu__fail(q->ctx, NPU_ERR_INVALID_ARGUMENT, "%s '%s': offset %zu + size %zu overflows", kind, name,
                         offset, size);
    if (!npu__dma_buf_import(d))
        return npu__fail(q->ctx, NPU_ERR_UNSUPPORTED, "%s '%s': the driver does not import dma-buf file "
                         "descriptors (zeDeviceGetExternalMemoryProperties lists no DMA_BUF import)", kind, name);
    memset(&imp, 0, sizeof imp);
    imp.stype = ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_FD;
    imp.flags = ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF;
    imp.fd = fd;
    memset(&hd, 0, sizeof hd);
    hd.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
    hd.pNext = &imp;
    r = zeMemAllocHost(d->zctx, &hd, end, 0, &p);
    if (r == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)
        return npu__fail(q->ctx, NPU_ERR_UNSUPPORTED, "%s '%s': the driver cannot import dma-buf here "
                         "(zeMemAllocHost: UNSUPPORTED_FEATURE; the kernel driver lacks PRIME import)", kind, name);
    if (r != ZE_RESULT_SUCCESS || p == NULL)
        return npu__fail(q->ctx, NPU_ERR_DRIVER, "%s '%s': the driver could not import fd %d (not a dma-buf, or "
                         "refused): zeMemAllocHost returned 0x%08x", kind, name, fd, (unsigned)r);
    r = zeMemGetAddressRange(d->zctx, p, &base, &bytes);
    if (r != ZE_RESULT_SUCCESS || base != p) {
        zeMemFree(d->zctx, p);
        return npu__fail(q->ctx, NPU_ERR_DRIVER, "%s '%s': zeMemGetAddressRange of the imported fd %d failed "
                         "(0x%08x)", kind, name, fd, (unsigned)r);
    }
    if (end > bytes) {
        zeMemFree(d->zctx, p);
        return npu__fail(q->ctx, NPU_ERR_BUFFER_TOO_SMALL, "%s '%s': fd %d holds %zu bytes; offset %zu + size %zu "
                         "go beyond it", kind, name, fd, bytes, offset, size);
    }
    *out = p;
    return NPU_OK;
}

NPU__NOINLINE static npu_status npu__req_set_fd(npu_request *q, int output, uint32_t index, int fd, size_t offset,
                                                size_t size)
{
    npu_model *m;
    npu_device *d;
    npu__req_arg *ra;
    const npu__arg *a;
    const char *kind = output ? "output" : "input";
    void *old_import, *p = NULL;
    uint32_t i;
    npu_status st;
    if (q == NULL) return NPU_ERR_INVALID_ARGUMENT;
    m = q->model;
    d = m->dev;
    if (q->running)
        return npu__fail(q->ctx, NPU_ERR_STATE, "request: cannot change a buffer while an inference runs");
    i = npu__req_arg_of(q, output, index);
    if (i == UINT32_MAX)
        return npu__fail(q->ctx, NPU_ERR_NOT_FOUND, "the model has no %s %u (it has %u)", kind, (unsigned)index,
                         (unsigned)(output ? m->n_outputs : m->n_inputs));
    a = &m->args[i];
    ra = &q->a[i];
    if (size < npu__req_arg_bytes(q, i, q->n_lists))
        return npu__fail(q->ctx, NPU_ERR_BUFFER_TOO_SMALL, "%s '%s': fd range of %zu bytes, %llu needed", kind,
                         a->desc.name, size, (unsigned long long)npu__req_arg_bytes(q, i, q->n_lists));
    st = npu__req_import_fd(q, kind, a->desc.name, fd, offset, size, &p);
    if (st != NPU_OK) return st;
    old_import = ra->fd_alloc != NULL ? ra->fd_alloc : ra->imported;
    ra->user = NULL;
    ra->fd_alloc = p;
    ra->imported = (unsigned char *)p + offset;
    npu__req_copy_tables(q);
    st = npu__req_record(q, 1);
    if (old_import != NULL) zeMemFree(d->zctx, old_import);
    if (st != NPU_OK) {
        /* Lists are in an unknown state: fall back to the own buffer. */
        zeMemFree(d->zctx, p);
        ra->imported = ra->fd_alloc = NULL;
        npu__req_copy_tables(q);
        if (npu__req_record(q, 1) != NPU_OK)
            npu__log(q->ctx, NPU_LOG_ERROR, "request: re-recording failed; the request is unusable");
        return st;
    }
    return NPU_OK;
}

NPU_API npu_status npu_request_set_input_fd(npu_request *req, uint32_t index, int fd, size_t offset, size_t size)
{
    return npu__req_set_fd(req, 0, index, fd, offset, size);
}

NPU_API npu_status npu_request_set_output_fd(npu_request *req, uint32_t index, int fd, size_t offset, size_t size)
{
    return npu__req_set_fd(req, 1, index, fd, offset, size);
}

/* ---- Hot path: no formatting, lookup or allocation unless a call fails ---- */

NPU_API npu_status npu_request_set_batch(npu_request *req, uint32_t n)
{
    if (req == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (req->running) return npu__fail(req->ctx, NPU_ERR_STATE, "request: set_batch while an inference runs");
    if (!req->model->dynamic_batch) {
        if (n != req->n_lists)
            return npu__fail(req->ctx, NPU_ERR_INVALID_ARGUMENT,
                             "request: set_batch(%u): the model has the static batch %u (only dynamic-batch "
                             "models take another count)",
                             (unsigned)n, (unsigned)req->n_lists);
        return NPU_OK;
    }
    if (n < 1 || n > req->n_lists)
        return npu__fail(req->ctx, NPU_ERR_INVALID_ARGUMENT,
                         "request: set_batch(%u): the request was created for 1 to %u (npu_request_options.max_batch)",
                         (unsigned)n, (unsigned)req->n_lists);
    req->n_active = n;
    return NPU_OK;
}

/* Copy mode: the caller's input buffers into the request's (before an
 * inference, out 0), or its outputs back out (after one, out 1). */
NPU__NOINLINE static void npu__req_copy(npu_request *q, int out)
{
    uint32_t k, n = out ? q->n_copy_out : q->n_copy_in;
    const uint32_t *which = out ? q->copy_out : q->copy_in;
    for (k = 0; k < n; k++) {
        const npu__req_arg *a = &q->a[which[k]];
        memcpy(out ? a->user : a->own, out ? a->own : a->user,
               (size_t)npu__req_arg_bytes(q, which[k], q->n_active));
    }
}

NPU_API npu_status npu_request_start(npu_request *q)
{
    ze_result_t r;
    if (q == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (q->running) return npu__fail(q->ctx, NPU_ERR_STATE, "request: an inference is already running");
    if (q->n_copy_in > 0) npu__req_copy(q, 0);   /* (no call at all when nothing is copied) */
    /* All lists of the batch in one submission, one fence. */
    r = zeCommandQueueExecuteCommandLists(q->queue, q->n_active, q->lists + (size_t)q->set * q->n_lists, q->fence);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(q->ctx, "zeCommandQueueExecuteCommandLists", r);
    q->running = 1;
    return NPU_OK;
}

NPU_API npu_status npu_request_wait(npu_request *q, uint64_t timeout_ns)
{
    ze_result_t r;
    const char *fn = "zeFenceHostSynchronize";   /* the call that failed */
    if (q == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (!q->running) return NPU_OK;
    r = zeFenceHostSynchronize(q->fence, timeout_ns);
    if (r == ZE_RESULT_NOT_READY) return NPU_NOT_READY;
    if (r == ZE_RESULT_SUCCESS) {
        fn = "zeFenceReset";
        r = zeFenceReset(q->fence);
    }
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(q->ctx, fn, r);
    q->running = 0;
    if (q->n_copy_out > 0) npu__req_copy(q, 1);
    if (q->n_sets == 2) q->set ^= 1u;
    return NPU_OK;
}

NPU_API npu_status npu_request_poll(npu_request *req) { return npu_request_wait(req, 0); }

NPU_API npu_status npu_request_infer(npu_request *q)
{
    npu_status st = npu_request_start(q);
    if (st != NPU_OK) return st;
    return npu_request_wait(q, UINT64_MAX);
}

/* ---- States ---- */

NPU_API uint32_t npu_request_state_count(const npu_request *req) { return req ? req->model->n_states : 0; }

static uint32_t npu__req_state_arg(const npu_request *q, uint32_t index)
{
    const npu_model *m = q->model;
    return index < m->n_states ? m->order[m->n_inputs + m->n_outputs + 2 * index] : UINT32_MAX;
}

NPU_API npu_status npu_request_state(const npu_request *req, uint32_t index, npu_tensor_desc *desc)
{
    uint32_t i;
    if (req == NULL || desc == NULL) return NPU_ERR_INVALID_ARGUMENT;
    i = npu__req_state_arg(req, index);
    if (i == UINT32_MAX)
        return npu__fail(req->ctx, NPU_ERR_NOT_FOUND, "the model has no state %u (it has %u)", (unsigned)index,
                         (unsigned)req->model->n_states);
    *desc = req->model->args[i].desc;
    return NPU_OK;
}

NPU_API void *npu_request_state_data(npu_request *req, uint32_t index)
{
    uint32_t i;
    if (req == NULL) return NULL;
    i = npu__req_state_arg(req, index);
    if (i == UINT32_MAX) return NULL;
    return npu__req_bound(req, i, req->set);
}

NPU_API npu_status npu_request_state_set(npu_request *req, uint32_t index, const void *data, size_t size)
{
    uint32_t i;
    if (req == NULL || data == NULL) return NPU_ERR_INVALID_ARGUMENT;
    i = npu__req_state_arg(req, index);
    if (i == UINT32_MAX)
        return npu__fail(req->ctx, NPU_ERR_NOT_FOUND, "the model has no state %u", (unsigned)index);
    if (req->running) return npu__fail(req->ctx, NPU_ERR_STATE, "request: state set while an inference runs");
    if (size != req->model->args[i].desc.bytes)
        return npu__fail(req->ctx, NPU_ERR_BUFFER_TOO_SMALL, "state '%s': %zu bytes given, %llu expected",
                         req->model->args[i].desc.name, size, (unsigned long long)req->model->args[i].desc.bytes);
    memcpy(npu__req_bound(req, i, req->set), data, size);
    return NPU_OK;
}

NPU_API npu_status npu_request_state_reset(npu_request *req, uint32_t index)
{
    uint32_t i;
    if (req == NULL) return NPU_ERR_INVALID_ARGUMENT;
    i = npu__req_state_arg(req, index);
    if (i == UINT32_MAX)
        return npu__fail(req->ctx, NPU_ERR_NOT_FOUND, "the model has no state %u", (unsigned)index);
    if (req->running) return npu__fail(req->ctx, NPU_ERR_STATE, "request: state reset while an inference runs");
    memset(npu__req_bound(req, i, req->set), 0, (size_t)req->model->args[i].desc.bytes);
    return NPU_OK;
}

#else /* NPU_NO_LEVEL_ZERO: the section's API exists and says so. */

NPU_API size_t npu_device_size(void) { return 0; }
NPU_API npu_status npu_device_open(npu_arena *arena, npu_context *ctx, const npu_device_options *options,
                           npu_device **out)
{
    NPU__UNUSED(arena);
    NPU__UNUSED(options);
    if (out != NULL) *out = NULL;
    return npu__fail(ctx, NPU_ERR_NO_LEVEL_ZERO, "npu was built with NPU_NO_LEVEL_ZERO: no device support");
}
NPU_API void npu_device_close(npu_device *dev) { NPU__UNUSED(dev); }
NPU_API npu_status npu_device_set_idle_optimizations(npu_device *dev, int enable)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(enable);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_model_set_workload_type(npu_model *model, npu_workload_type type)
{
    NPU__UNUSED(model);
    NPU__UNUSED(type);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_request_profile_size(npu_request *req, size_t *bytes)
{
    NPU__UNUSED(req);
    if (bytes != NULL) *bytes = 0;
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_request_profile(npu_request *req, npu_arena *arena, npu_layer_profile **table,
                                       uint32_t *count)
{
    NPU__UNUSED(req);
    NPU__UNUSED(arena);
    if (table != NULL) *table = NULL;
    if (count != NULL) *count = 0;
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_device_get_properties(npu_device *dev, npu_device_properties *out)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(out);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API uint32_t npu_device_optimal_requests(const npu_device *dev, npu_performance_hint hint)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(hint);
    return 0;
}
NPU_API const char *const *npu_device_supported_properties(void)
{
    static const char *const none[] = {NULL};
    return none;
}
NPU_API npu_status npu_device_get_property(npu_device *dev, const char *name, char *dst, size_t cap, size_t *size)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(name);
    NPU__UNUSED(dst);
    NPU__UNUSED(cap);
    NPU__UNUSED(size);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API size_t npu_model_size(uint32_t n_args)
{
    NPU__UNUSED(n_args);
    return 0;
}
NPU_API npu_status npu_model_compile_payload(npu_device *dev, npu_arena *arena, const void *payload, size_t size,
                                     const npu_compile_options *opts, npu_model **out)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(arena);
    NPU__UNUSED(payload);
    NPU__UNUSED(size);
    NPU__UNUSED(opts);
    if (out != NULL) *out = NULL;
    return NPU_ERR_NO_LEVEL_ZERO;
}
#ifndef NPU_NO_GRAPH
NPU_API npu_status npu_model_compile_graph(npu_device *dev, npu_arena *arena, const npu_graph *graph,
                                   const npu_compile_options *opts, npu_model **out)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(arena);
    NPU__UNUSED(graph);
    NPU__UNUSED(opts);
    if (out != NULL) *out = NULL;
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_model_compile_graph_size(npu_device *dev, const npu_graph *graph, const npu_compile_options *opts,
                                        size_t *bytes)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(graph);
    NPU__UNUSED(opts);
    if (bytes != NULL) *bytes = 0;
    return NPU_ERR_NO_LEVEL_ZERO;
}
#endif
#ifndef NPU_NO_IR
NPU_API npu_status npu_model_compile_ir(npu_device *dev, npu_arena *arena, const npu_ir *ir,
                                const npu_compile_options *opts, npu_model **out)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(arena);
    NPU__UNUSED(ir);
    NPU__UNUSED(opts);
    if (out != NULL) *out = NULL;
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_model_compile_ir_size(npu_device *dev, const npu_ir *ir, const npu_compile_options *opts,
                                     size_t *bytes)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(ir);
    NPU__UNUSED(opts);
    if (bytes != NULL) *bytes = 0;
    return NPU_ERR_NO_LEVEL_ZERO;
}
#endif
NPU_API npu_status npu_model_import(npu_device *dev, npu_arena *arena, const void *blob, size_t size,
                            const npu_import_options *opts, npu_model **out)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(arena);
    NPU__UNUSED(blob);
    NPU__UNUSED(size);
    NPU__UNUSED(opts);
    if (out != NULL) *out = NULL;
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_model_import_file(npu_device *dev, npu_arena *arena, const char *path,
                                 const npu_import_options *opts, npu_model **out)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(arena);
    NPU__UNUSED(path);
    NPU__UNUSED(opts);
    if (out != NULL) *out = NULL;
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_model_import_size(npu_device *dev, const void *blob, size_t size,
                                         const npu_import_options *opts, size_t *bytes)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(blob);
    NPU__UNUSED(size);
    NPU__UNUSED(opts);
    if (bytes != NULL) *bytes = 0;
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_model_import_file_size(npu_device *dev, const char *path, const npu_import_options *opts,
                                              size_t *bytes)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(path);
    NPU__UNUSED(opts);
    if (bytes != NULL) *bytes = 0;
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_model_export(npu_model *model, void *dst, size_t cap, size_t *size)
{
    NPU__UNUSED(model);
    NPU__UNUSED(dst);
    NPU__UNUSED(cap);
    NPU__UNUSED(size);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_model_export_file(npu_model *model, const char *path)
{
    NPU__UNUSED(model);
    NPU__UNUSED(path);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API void npu_model_destroy(npu_model *model) { NPU__UNUSED(model); }
NPU_API size_t npu_model_arena_bytes(const npu_model *model)
{
    NPU__UNUSED(model);
    return 0;
}
NPU_API uint32_t npu_model_input_count(const npu_model *m)
{
    NPU__UNUSED(m);
    return 0;
}
NPU_API const npu_tensor_desc *npu_model_input(const npu_model *m, uint32_t i)
{
    NPU__UNUSED(m);
    NPU__UNUSED(i);
    return NULL;
}
NPU_API uint32_t npu_model_output_count(const npu_model *m)
{
    NPU__UNUSED(m);
    return 0;
}
NPU_API const npu_tensor_desc *npu_model_output(const npu_model *m, uint32_t i)
{
    NPU__UNUSED(m);
    NPU__UNUSED(i);
    return NULL;
}
NPU_API uint32_t npu_model_state_count(const npu_model *m)
{
    NPU__UNUSED(m);
    return 0;
}
NPU_API const npu_tensor_desc *npu_model_state(const npu_model *m, uint32_t i)
{
    NPU__UNUSED(m);
    NPU__UNUSED(i);
    return NULL;
}
NPU_API uint32_t npu_model_batch(const npu_model *m)
{
    NPU__UNUSED(m);
    return 0;
}
NPU_API npu_status npu_model_get_info(const npu_model *model, npu_model_info *out)
{
    NPU__UNUSED(model);
    if (out != NULL) memset(out, 0, sizeof *out);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_request_set_batch(npu_request *req, uint32_t n)
{
    NPU__UNUSED(req);
    NPU__UNUSED(n);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API size_t npu_request_size(const npu_model *model, const npu_request_options *opts)
{
    NPU__UNUSED(model);
    NPU__UNUSED(opts);
    return 0;
}
NPU_API npu_status npu_request_create(npu_model *model, npu_arena *arena, const npu_request_options *opts,
                              npu_request **out)
{
    NPU__UNUSED(model);
    NPU__UNUSED(arena);
    NPU__UNUSED(opts);
    if (out != NULL) *out = NULL;
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API void npu_request_destroy(npu_request *req) { NPU__UNUSED(req); }
NPU_API void *npu_request_input(npu_request *req, uint32_t index)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    return NULL;
}
NPU_API void *npu_request_output(npu_request *req, uint32_t index)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    return NULL;
}
NPU_API npu_status npu_request_find_input(const npu_request *req, const char *name, uint32_t *index)
{
    NPU__UNUSED(req);
    NPU__UNUSED(name);
    NPU__UNUSED(index);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_request_find_output(const npu_request *req, const char *name, uint32_t *index)
{
    NPU__UNUSED(req);
    NPU__UNUSED(name);
    NPU__UNUSED(index);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_request_set_input_buffer(npu_request *req, uint32_t index, void *ptr, size_t size)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    NPU__UNUSED(ptr);
    NPU__UNUSED(size);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_request_set_output_buffer(npu_request *req, uint32_t index, void *ptr, size_t size)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    NPU__UNUSED(ptr);
    NPU__UNUSED(size);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_request_set_input_tensor(npu_request *req, uint32_t index, const npu_tensor_desc *tensor,
                                                void *ptr)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    NPU__UNUSED(tensor);
    NPU__UNUSED(ptr);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_request_set_output_tensor(npu_request *req, uint32_t index, const npu_tensor_desc *tensor,
                                                 void *ptr)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    NPU__UNUSED(tensor);
    NPU__UNUSED(ptr);
    return NPU_ERR_NO_LEVEL_ZERO;
}
static npu_status npu__req_set_fd_stub(npu_request *req, uint32_t index, int fd, size_t offset, size_t size)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    NPU__UNUSED(fd);
    NPU__UNUSED(offset);
    NPU__UNUSED(size);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_request_set_input_fd(npu_request *req, uint32_t index, int fd, size_t offset, size_t size)
{
    return npu__req_set_fd_stub(req, index, fd, offset, size);
}
NPU_API npu_status npu_request_set_output_fd(npu_request *req, uint32_t index, int fd, size_t offset, size_t size)
{
    return npu__req_set_fd_stub(req, index, fd, offset, size);
}
NPU_API npu_status npu_request_infer(npu_request *req)
{
    NPU__UNUSED(req);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_request_start(npu_request *req)
{
    NPU__UNUSED(req);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_request_wait(npu_request *req, uint64_t timeout_ns)
{
    NPU__UNUSED(req);
    NPU__UNUSED(timeout_ns);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_request_poll(npu_request *req)
{
    NPU__UNUSED(req);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API uint32_t npu_request_state_count(const npu_request *req)
{
    NPU__UNUSED(req);
    return 0;
}
NPU_API npu_status npu_request_state(const npu_request *req, uint32_t index, npu_tensor_desc *desc)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    NPU__UNUSED(desc);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API void *npu_request_state_data(npu_request *req, uint32_t index)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    return NULL;
}
NPU_API npu_status npu_request_state_set(npu_request *req, uint32_t index, const void *data, size_t size)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    NPU__UNUSED(data);
    NPU__UNUSED(size);
    return NPU_ERR_NO_LEVEL_ZERO;
}
NPU_API npu_status npu_request_state_reset(npu_request *req, uint32_t index)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    return NPU_ERR_NO_LEVEL_ZERO;
}

#endif /* NPU_NO_LEVEL_ZERO */

/* ==== 14. Model cache and compiling ===================================== */
/* Owns: cache keys (14a), the cache directory and its entries (14b), the
 * cache in a compile (14c) and the compile calls with their batch decision
 * (14d). Calls: sections 1-5, 9 (metadata, hash), 10-12 (the driver, build
 * flags, import, npu__form_compile). */

/* The keys and the cache directory serve the compile path (14c): they exist
 * only with Level Zero. */
#ifndef NPU_NO_LEVEL_ZERO

#ifndef NPU_NO_CACHE   /* 14a-14b */
/* (The white-box tests' comparison: npu__cache_verify compares words.) */
static NPU__MAYBE_UNUSED int npu__digest_equal(const npu__digest *x, const npu__digest *y)
{
    return x->h[0] == y->h[0] && x->h[1] == y->h[1];
}

/* ---- 14a. Cache keys -----------------------------------------------------
 * A cache key is the NH128 digest of the "key material": everything that
 * decides the compiled blob. Each piece is a field [u32 tag][bytes][u64 byte
 * count], so that the concatenation decodes uniquely (from its end) and no two
 * different sets of fields give the same byte stream. The field's byte count
 * comes last so that a field may be streamed (the model structure is
 * serialized through a sink whose feed is npu__cache_key_feed).
 *
 * The key material is hashed twice, with two seeds: `key` names the entry file
 * and `check` is stored in it and compared on load, so an entry is used only if
 * 256 bits of digest match (plus the readable fields: platform, compiler and
 * npu versions, descriptor). A collision of the file name alone never loads
 * the wrong model. */
/* The key's version is in its seeds, so an entry keyed the old way is never
 * found under a new key (it is a plain miss): 03 since the options hold the
 * weights threshold and entries record the compile's payload size (entry
 * format 2); 02 made a graph's structure a binary walk of its nodes (01: its
 * IR XML). */
#define NPU__SEED_KEY 0x4e50554b45593033ull      /* "NPUKEY03" */
#define NPU__SEED_CHECK 0x4e50554348433033ull    /* "NPUCHC03" */
#define NPU__SEED_CHECKSUM 0x4e505553554d3031ull /* "NPUSUM01" */

typedef enum npu__key_tag {
    NPU__KEY_STRUCTURE = 1,  /* the model without constant data or addresses */
    NPU__KEY_CONSTANT = 2,   /* the bytes of one constant (never its address) */
    NPU__KEY_OPTIONS = 3,    /* the compile options string (build flags) */
    NPU__KEY_COMPILER = 4,   /* the compiler version, u32 */
    NPU__KEY_PLATFORM = 5,   /* the device platform string */
    NPU__KEY_NPU_VERSION = 6, /* NPU_VERSION, u32 */
    NPU__KEY_SOURCE = 7       /* the source kind ("graph", "IR"): which
                                 structure format follows (one per kind) */
} npu__key_tag;

/* Both digests see the same bytes, so they share the partial stripe and the
 * byte count: `key` is a whole NH128 state, `check` only its own lanes
 * (fed in the same pass, npu__nh128_feed). */
typedef struct npu__cache_key {
    npu__nh128 key;
    uint64_t check[4];
    uint64_t field_bytes;    /* bytes of the field being streamed */
    int overflow;            /* a constant too large to hash (npu__key_constant) */
} npu__cache_key;

static void npu__cache_key_init(npu__cache_key *k)
{
    memset(k, 0, sizeof *k);   /* no bytes yet, no overflow */
    npu__nh128_lanes(k->key.lane, NPU__SEED_KEY);
    npu__nh128_lanes(k->check, NPU__SEED_CHECK);
}

/* Sink feed: the bytes of the field opened by npu__cache_key_begin. The
 * digests see the same byte stream however it is split. */
static void npu__cache_key_feed(void *state, const void *bytes, size_t n)
{
    npu__cache_key *k = (npu__cache_key *)state;
    k->field_bytes += (uint64_t)n;
    npu__nh128_feed(&k->key, k->check, bytes, n);
}

/* A field's frame: v as `bytes` little-endian bytes (the u32 tag before the
 * field, the u64 byte count after it); the count starts afresh. */
static void npu__cache_key_frame(npu__cache_key *k, uint64_t v, unsigned bytes)
{
    unsigned char t[8];
    npu__le_put(t, v, bytes);
    npu__cache_key_feed(k, t, bytes);
    k->field_bytes = 0;
}

static void npu__cache_key_begin(npu__cache_key *k, npu__key_tag tag)
{
    npu__cache_key_frame(k, (uint64_t)tag, 4);
}

static void npu__cache_key_end(npu__cache_key *k)
{
    npu__cache_key_frame(k, k->field_bytes, 8);
}

static void npu__cache_key_field(npu__cache_key *k, npu__key_tag tag, const void *bytes,
                                 size_t n)
{
    npu__cache_key_begin(k, tag);
    if (n > 0) npu__cache_key_feed(k, bytes, n);
    npu__cache_key_end(k);
}

static void npu__cache_key_u32(npu__cache_key *k, npu__key_tag tag, uint32_t v)
{
    unsigned char t[4];
    npu__le_put(t, v, 4);
    npu__cache_key_field(k, tag, t, 4);
}

/* After the last field: the check digest is the key's state with its lanes. */
static void npu__cache_key_final(const npu__cache_key *k, npu__digest *key, npu__digest *check)
{
    *key = npu__nh128_final(&k->key);
    *check = npu__nh128_digest(&k->key, k->check);
}

/* ---- 14b. Cache directory ------------------------------------------------
 * One entry per compiled model: <dir>/<32 hex digits of the key>.npucache
 *
 *   offset  size  field
 *        0     8  magic "NPUCACHE"
 *        8     4  format version (1)
 *       12     4  header size (4096)
 *       16    16  key digest (h[0] then h[1], little-endian)
 *       32    16  check digest (the key material hashed with a second seed)
 *       48     8  payload size
 *       56     4  compiler version
 *       60     4  npu version (NPU_VERSION)
 *       64    64  platform, NUL-padded (e.g. "3720")
 *      128   128  descriptor, NUL-padded (readable: model name, I/O summary)
 *      256    16  checksum: NH128 (seed "NPUSUM01") over the payload, then
 *                 header bytes [0, 256) and [272, 280)
 *      272     8  compile payload size: the bytes of the payload the compile
 *                 of this form writes (a pure function of the key's inputs),
 *                 so that a hit knows the arena a compile needs without
 *                 writing the payload again; covered by the checksum
 *      280  3816  zero
 *     4096     n  payload: the exported blob (native blob + OVNPU tail)
 *
 * The payload starts at 4096 so that in a mapping it is page-aligned: the
 * driver may use it in place (ZE_GRAPH_FLAG_INPUT_GRAPH_PERSISTENT).
 *
 * Store writes a temp file in the same directory (a unique name: pid, clock
 * ns, the key and the writer's address; O_CREAT|O_EXCL), fsyncs it, renames
 * it over the final name and fsyncs the directory. rename() is atomic, so a
 * reader sees the old entry, the new one, or none, never a torn one; a writer
 * killed mid-write leaves only a temp file, which later stores remove when it
 * is older than NPU__CACHE_TEMP_AGE seconds (npu__cache_clean_temp).
 *
 * The cache never fails a compile. Its functions log a warning (or an info
 * line for a plain miss) through the context's logger with the reason and
 * return a status; they never set the context's last error, except for
 * NPU_ERR_INVALID_ARGUMENT.
 *
 * Intended call sequence in the compile path (14c, 14d):
 *
 *   npu__cache_key k; npu__cache_fields f;
 *   npu__cache_key_init(&k);
 *   npu__cache_key_field(&k, NPU__KEY_SOURCE, kind, strlen(kind));
 *   npu__cache_key_begin(&k, NPU__KEY_STRUCTURE);
 *     the source's structure (no constant data, no addresses) through a
 *     counting sink with feed = npu__cache_key_feed;
 *   npu__cache_key_end(&k);
 *   for each constant: npu__cache_key_field(&k, NPU__KEY_CONSTANT, data, bytes);
 *   npu__cache_key_field(&k, NPU__KEY_OPTIONS, build_flags, strlen(build_flags));
 *   npu__cache_key_u32(&k, NPU__KEY_COMPILER, compiler_version);
 *   npu__cache_key_field(&k, NPU__KEY_PLATFORM, platform, strlen(platform));
 *   npu__cache_key_u32(&k, NPU__KEY_NPU_VERSION, NPU_VERSION);
 *   npu__cache_fields_init(&f, &k, compiler_version, platform, descriptor);
 *   if (npu__cache_open_into(ctx, dir, &f, &map, path, scratch, cap) == NPU_OK) {
 *       import map.payload / map.payload_size (npu__meta_read first): a copy
 *       when map.read_at (read into scratch), else from the mapping; then
 *       npu__cache_close(&map) once the driver no longer needs the bytes;
 *   } else {            // a miss: the reason is logged
 *       compile; export into the entry with npu__cache_writer_begin, a sink
 *       whose feed is npu__cache_writer_feed (native blob bytes straight from
 *       the driver's pointer, then npu__meta_write), npu__cache_writer_finish;
 *       or npu__cache_store(ctx, dir, &f, blob, size) from a buffer. A failed
 *       store is logged and ignored: the compiled model is used anyway.
 *   }
 * Set ZE_GRAPH_FLAG_DISABLE_CACHING when a cache dir is in use (the driver's
 * own cache would duplicate it), as OpenVINO does. */

#define NPU__CACHE_MAGIC "NPUCACHE"
#define NPU__CACHE_FORMAT 2u   /* 2: the compile payload size at 272 */
#define NPU__CACHE_HEADER 4096u
#define NPU__CACHE_OFF_KEY 16u
#define NPU__CACHE_OFF_CHECK 32u
#define NPU__CACHE_OFF_PAYLOAD 48u
#define NPU__CACHE_OFF_COMPILER 56u
#define NPU__CACHE_OFF_NPUVER 60u
#define NPU__CACHE_OFF_PLATFORM 64u
#define NPU__CACHE_PLATFORM_MAX 64u
#define NPU__CACHE_OFF_DESCRIPTOR 128u
#define NPU__CACHE_DESCRIPTOR_MAX 128u
#define NPU__CACHE_OFF_CHECKSUM 256u
#define NPU__CACHE_OFF_COMPILE_PAYLOAD 272u
#define NPU__CACHE_FIELDS_END 280u
#define NPU__CACHE_SUFFIX ".npucache"
#define NPU__CACHE_TEMP_PREFIX ".npucache-"
#define NPU__CACHE_TEMP_SUFFIX ".tmp"
#define NPU__CACHE_TEMP_AGE 60   /* seconds before a temp file counts as abandoned */
#define NPU__CACHE_PATH_MAX 1024u

/* What identifies an entry; compared field by field on load. */
typedef struct npu__cache_fields {
    npu__digest key;
    npu__digest check;
    uint32_t compiler_version;
    uint32_t npu_version;
    uint64_t compile_payload;  /* stored: the compile's payload bytes (set on a miss) */
    size_t flags_len;          /* not stored: the build flags' length, and */
    uint32_t n_args;           /* the argument count (npu__plain_need's inputs) */
    char platform[NPU__CACHE_PLATFORM_MAX];     /* cut to 63 bytes */
    char descriptor[NPU__CACHE_DESCRIPTOR_MAX]; /* cut to 127 bytes */
} npu__cache_fields;

/* (The compile path fills the fields itself, npu__cache_fields_for; this
 * serves the white-box tests.) */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((unused))
#endif
static void npu__cache_fields_init(npu__cache_fields *f, const npu__cache_key *k,
                                   uint32_t compiler_version, const char *platform,
                                   const char *descriptor)
{
    memset(f, 0, sizeof *f);
    npu__cache_key_final(k, &f->key, &f->check);
    f->compiler_version = compiler_version;
    f->npu_version = (uint32_t)NPU_VERSION;
    npu__strlcpy(f->platform, platform ? platform : "", sizeof f->platform);
    npu__strlcpy(f->descriptor, descriptor ? descriptor : "", sizeof f->descriptor);
}

/* "<32 lowercase hex digits>" of a digest (h[0] first, most significant
 * nibble first); hex must hold 33 bytes. */
static void npu__digest_hex(const npu__digest *d, char *hex)
{
    unsigned i;
    for (i = 0; i < 32; i++) hex[i] = "0123456789abcdef"[(d->h[i / 16] >> (60 - 4 * (i % 16))) & 0xfu];
    hex[32] = '\0';
}

/* <dir>/<hex>.npucache into buf. No message: for the cache a path too long
 * is a miss (its caller says so in the note and the log), not an error. */
static npu_status npu__cache_entry_path(const char *dir, const npu__digest *key, char *buf, size_t cap)
{
    char hex[33];
    int n;
    if (dir == NULL || key == NULL || buf == NULL || cap == 0) return NPU_ERR_INVALID_ARGUMENT;
    npu__digest_hex(key, hex);
    n = snprintf(buf, cap, "%s/%s" NPU__CACHE_SUFFIX, dir, hex);
    return n < 0 || (size_t)n >= cap ? NPU_ERR_BUFFER_TOO_SMALL : NPU_OK;
}

/* Logs why the cache did not help, "model cache: <fmt...>", and is `status`
 * (fmt: a string literal). */
#ifndef NPU_NO_MESSAGES
#define npu__cache_warn(ctx, level, status, ...) (npu__log((ctx), (level), "model cache: " __VA_ARGS__), (status))
#else
#define npu__cache_warn(ctx, level, status, ...) (NPU__UNUSED(ctx), (status))
#endif

/* The header's first 64 bytes as eight little-endian words (the table
 * above): the magic, format version | header size << 32, the key, the check
 * digest, the payload size, compiler version | npu version << 32. One layout
 * for the writer (npu__cache_header) and the reader (npu__cache_verify). */
#define NPU__CACHE_WORDS 8u
#define NPU__CACHE_MAGIC_WORD 0x454843414355504eull   /* "NPUCACHE" */
static void npu__cache_words(uint64_t *w, const npu__cache_fields *f, uint64_t payload_size)
{
    w[0] = NPU__CACHE_MAGIC_WORD;
    w[1] = NPU__CACHE_FORMAT | (uint64_t)NPU__CACHE_HEADER << 32;
    w[2] = f->key.h[0];
    w[3] = f->key.h[1];
    w[4] = f->check.h[0];
    w[5] = f->check.h[1];
    w[6] = payload_size;
    w[7] = f->compiler_version | (uint64_t)f->npu_version << 32;
}

static void npu__cache_header(unsigned char *hdr, const npu__cache_fields *f,
                              uint64_t payload_size)
{
    uint64_t w[NPU__CACHE_WORDS];
    unsigned i;
    memset(hdr, 0, NPU__CACHE_HEADER);
    npu__cache_words(w, f, payload_size);
    for (i = 0; i < NPU__CACHE_WORDS; i++) npu__le_put(hdr + 8 * i, w[i], 8);
    memcpy(hdr + NPU__CACHE_OFF_PLATFORM, f->platform, strnlen(f->platform, NPU__CACHE_PLATFORM_MAX - 1));
    memcpy(hdr + NPU__CACHE_OFF_DESCRIPTOR, f->descriptor,
           strnlen(f->descriptor, NPU__CACHE_DESCRIPTOR_MAX - 1));
    npu__le_put(hdr + NPU__CACHE_OFF_COMPILE_PAYLOAD, f->compile_payload, 8);
}

/* Finishes the checksum: feeds the header fields to `sum` (the payload
 * already hashed; its last use) and returns the digest. */
static npu__digest npu__cache_checksum(npu__nh128 *sum, const unsigned char *hdr)
{
    npu__nh128_update(sum, hdr, NPU__CACHE_OFF_CHECKSUM);
    npu__nh128_update(sum, hdr + NPU__CACHE_OFF_COMPILE_PAYLOAD, NPU__CACHE_FIELDS_END - NPU__CACHE_OFF_COMPILE_PAYLOAD);
    return npu__nh128_final(sum);
}

/* write() all of it, through short writes and EINTR (in pieces of at most
 * 1 GiB). Returns 0 or an errno. */
static int npu__write_all(int fd, const void *data, size_t n)
{
    const unsigned char *p = (const unsigned char *)data;
    while (n > 0) {
        ssize_t w = write(fd, p, n > ((size_t)1 << 30) ? ((size_t)1 << 30) : n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (w == 0) return EIO;
        p += (size_t)w;
        n -= (size_t)w;
    }
    return 0;
}

/* ---- removing abandoned temp files ---- */

/* Removes "<dir>/.npucache-*.tmp" files last modified at least max_age_seconds
 * ago (0: all of them; only safe when no other process is storing). *removed
 * (may be NULL) gets the count. Errors: NPU_ERR_IO when the directory cannot
 * be read. No message or log: the store runs it as housekeeping, and another
 * writer's leftovers are no news for the compile that stores. */
static npu_status npu__cache_clean_temp(const char *dir, long max_age_seconds, unsigned *removed)
{
    DIR *d;
    struct dirent *e;
    time_t now = time(NULL);
    unsigned count = 0;
    int fd;
    if (removed != NULL) *removed = 0;
    if (dir == NULL) return NPU_ERR_INVALID_ARGUMENT;
    d = opendir(dir);
    if (d == NULL) return NPU_ERR_IO;
    fd = dirfd(d);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        struct stat st;
        const size_t pre = sizeof NPU__CACHE_TEMP_PREFIX - 1, suf = sizeof NPU__CACHE_TEMP_SUFFIX - 1;
        if (len < pre + suf || memcmp(e->d_name, NPU__CACHE_TEMP_PREFIX, pre) != 0 ||
            memcmp(e->d_name + len - suf, NPU__CACHE_TEMP_SUFFIX, suf) != 0)
            continue;
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        /* <prefix><32 hex>-<pid>-...: a dead writer's file goes at once. */
        if (max_age_seconds > 0 && now - st.st_mtime < (time_t)max_age_seconds &&
            !(len > pre + 33 && e->d_name[pre + 32] == '-' && npu__temp_owner_dead(e->d_name + pre + 33)))
            continue;
        if (unlinkat(fd, e->d_name, 0) == 0) count++;
    }
    closedir(d);
    if (removed != NULL) *removed = count;
    return NPU_OK;
}

/* ---- writing an entry ---- */

_Static_assert(NPU__CACHE_HEADER <= 8192, "the cache header fits the writer's buffer");

typedef struct npu__cache_writer {
    npu_context *ctx;
    int fd;                      /* -1 when not open */
    int error;                   /* errno of the first failed write, 0 if none */
    const npu__cache_fields *fields;   /* the caller's, until _finish */
    npu__nh128 sum;              /* checksum over the payload so far */
    uint64_t payload_size;
    size_t buffered;
    unsigned char buffer[8192];  /* coalesces small feeds (metadata fields) */
    char temp_path[NPU__CACHE_PATH_MAX];
    char final_path[NPU__CACHE_PATH_MAX];   /* <dir>/<32 hex>.npucache */
    char reason[NPU_CACHE_NOTE_MAX];  /* why the entry was not stored */
} npu__cache_writer;

/* Keeps why the writer does not store for npu_model_info.cache_note (under
 * NPU_NO_MESSAGES its site), logs it as a warning, and is `status`. */
static npu_status npu__cache_writer_logged(npu__cache_writer *w, npu_status status)
{
    npu__log(w->ctx, NPU_LOG_WARN, "model cache: %s", w->reason);
    return status;
}
#define npu__cache_writer_warn(w, status, ...) \
    (npu__textf((w)->reason, sizeof (w)->reason, __VA_ARGS__), npu__cache_writer_logged((w), (status)))

/* mkdir -p: creates dir and its missing parents, each with mode 0777 less
 * the umask (as mkdir(1) does). Returns 0 or the errno of the first level
 * that could not be created. */
/* buf: the caller's scratch of cap bytes (the writer's idle buffer). */
static int npu__mkdir_parents(const char *dir, char *buf, size_t cap)
{
    size_t i, n = npu__strlcpy(buf, dir, cap);
    if (n >= cap) return ENAMETOOLONG;
    for (i = 1; i <= n; i++) {
        char c = buf[i];   /* '/' or the NUL at n */
        if (i < n && (c != '/' || buf[i - 1] == '/')) continue;   /* "a//b": once */
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return errno;
        buf[i] = c;
    }
    return 0;
}

static void npu__cache_writer_flush(npu__cache_writer *w)
{
    if (w->buffered > 0 && w->error == 0) w->error = npu__write_all(w->fd, w->buffer, w->buffered);
    w->buffered = 0;
}

/* Sink feed: appends payload bytes. Errors are remembered for _finish. */
static void npu__cache_writer_feed(void *state, const void *bytes, size_t n)
{
    npu__cache_writer *w = (npu__cache_writer *)state;
    if (w->fd < 0 || w->error != 0 || n == 0) return;
    npu__nh128_update(&w->sum, bytes, n);
    w->payload_size += (uint64_t)n;
    if (n > sizeof w->buffer - w->buffered) {
        npu__cache_writer_flush(w);
        if (n >= sizeof w->buffer) {   /* straight from the caller's bytes */
            if (w->error == 0) w->error = npu__write_all(w->fd, bytes, n);
            return;
        }
    }
    /* (after a failed flush the bytes land in the buffer and go nowhere) */
    memcpy(w->buffer + w->buffered, bytes, n);
    w->buffered += n;
}

/* Closes and removes the temp file; the final entry is untouched. */
static void npu__cache_writer_abort(npu__cache_writer *w)
{
    if (w->fd >= 0) {
        close(w->fd);
        w->fd = -1;
        unlink(w->temp_path);
    }
}

/* Opens a temp file for the entry of `fields` in `dir` (created if missing,
 * one level); `fields` must stay valid until _finish. Errors (logged as warnings, ctx error untouched): NPU_ERR_IO
 * (unwritable, missing or not a directory), NPU_ERR_LIMIT (path too long). */
static npu_status npu__cache_writer_begin(npu__cache_writer *w, npu_context *ctx, const char *dir,
                                          const npu__cache_fields *fields)
{
    struct timespec ts;
    char hex[33];
    unsigned attempt;
    int n, err = 0;
    const char *cannot = "cannot create a file in";   /* the step that failed */
    w->ctx = ctx;
    w->fd = -1;
    w->error = 0;
    w->payload_size = 0;
    w->buffered = 0;
    w->reason[0] = '\0';
    if (dir == NULL || fields == NULL)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "model cache: NULL directory or fields");
    w->fields = fields;
    npu__nh128_init(&w->sum, NPU__SEED_CHECKSUM);
    if (npu__cache_entry_path(dir, &fields->key, w->final_path, sizeof w->final_path) != NPU_OK)
        goto too_long;
    npu__cache_clean_temp(dir, NPU__CACHE_TEMP_AGE, NULL);
    npu__digest_hex(&fields->key, hex);
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) ts.tv_sec = ts.tv_nsec = 0;
    for (attempt = 0; attempt < 8; attempt++) {
        unsigned long long ns = (unsigned long long)ts.tv_sec * 1000000000ull +
                                (unsigned long long)ts.tv_nsec + attempt;
        n = snprintf(w->temp_path, sizeof w->temp_path,
                     "%s/" NPU__CACHE_TEMP_PREFIX "%s-%ld-%llx-%lx" NPU__CACHE_TEMP_SUFFIX, dir, hex,
                     (long)getpid(), ns, (unsigned long)((uintptr_t)w >> 4 & 0xfffffu));
        if (n < 0 || (size_t)n >= sizeof w->temp_path) goto too_long;
        /* 0666: the kernel applies the umask. */
        w->fd = open(w->temp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (w->fd >= 0) break;
        err = errno;
        if (err == ENOENT && attempt == 0) {
            /* The directory (or a parent) is missing: create the path, and
             * report why not when that fails (EROFS, EACCES, ...). */
            err = npu__mkdir_parents(dir, (char *)w->buffer, sizeof w->buffer);   /* idle until data comes */
            if (err == 0) continue;
            cannot = "cannot create directory";
            break;
        }
        if (err != EEXIST && err != EINTR) break;
    }
    NPU__MSG_UNUSED(cannot);
    if (w->fd < 0)
        return npu__cache_writer_warn(w, NPU_ERR_IO, "%s '%s': %s; continuing without storing the compiled model",
                                      cannot, dir, strerror(err));
    /* The header is written last (its sizes and checksum come at the end):
     * zeros for now, the first bytes of the buffer (written with the
     * payload's first bytes; not part of its checksum or size). */
    memset(w->buffer, 0, NPU__CACHE_HEADER);
    w->buffered = NPU__CACHE_HEADER;
    return NPU_OK;
too_long:   /* the entry's or the temp file's path (one message for both) */
    return npu__cache_writer_warn(w, NPU_ERR_LIMIT, "directory path '%.64s...' is too long; not storing", dir);
}

/* Completes the entry: header, fsync, rename over the final name, fsync of
 * the directory. On any failure the temp file is removed and NPU_ERR_IO is
 * returned (logged as a warning); a previous entry stays as it was. */
static npu_status npu__cache_writer_finish(npu__cache_writer *w)
{
    unsigned char *hdr = w->buffer;   /* flushed below: free for the header */
    npu__digest sum;
    int err;
    const char *step = "write";
    if (w->fd < 0) return NPU_ERR_IO;
    npu__cache_writer_flush(w);
    err = w->error;
    if (err == 0) {
        npu__cache_header(hdr, w->fields, w->payload_size);
        sum = npu__cache_checksum(&w->sum, hdr);
        npu__le_put(hdr + NPU__CACHE_OFF_CHECKSUM, sum.h[0], 8);
        npu__le_put(hdr + NPU__CACHE_OFF_CHECKSUM + 8, sum.h[1], 8);
        /* over the zeros at the start of the file */
        err = lseek(w->fd, 0, SEEK_SET) != 0 ? errno : npu__write_all(w->fd, hdr, NPU__CACHE_FIELDS_END);
    }
    if (err == 0) {
        int fd = w->fd;
        if (fsync(fd) != 0) {
            step = "fsync";
        } else {
            w->fd = -1;   /* closed, whatever close says */
            step = close(fd) != 0                              ? "close"
                   : rename(w->temp_path, w->final_path) != 0 ? "rename"
                                                               : NULL;
        }
        if (step != NULL) err = errno;   /* of the call that failed */
    }
    if (err != 0) {
        /* the temp file goes (closed first when still open) */
        if (w->fd >= 0) close(w->fd);
        w->fd = -1;
        unlink(w->temp_path);
        return npu__cache_writer_warn(w, NPU_ERR_IO, "cannot store '%s' (%s: %s); continuing without it",
                                      w->final_path, step, strerror(err));
    }
    /* Make the rename durable. Failing here loses at most this entry after a
     * crash; the directory is never torn. */
    if ((err = npu__fsync_dir_of(w->final_path)) != 0)
        npu__log(w->ctx, NPU_LOG_WARN, "model cache: fsync of the directory of '%s': %s", w->final_path,
                 strerror(err));
    npu__log(w->ctx, NPU_LOG_INFO, "model cache: stored '%s' (%llu bytes)", w->final_path,
             (unsigned long long)w->payload_size);
    return NPU_OK;
}

/* Stores blob[0 .. size) as the entry of `fields` in `dir`. Status as
 * npu__cache_writer_begin / _finish; the caller logs nothing more and goes on.
 * (The compile path streams through the writer instead; this one-buffer form
 * serves the white-box tests.) */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((unused))
#endif
static npu_status npu__cache_store(npu_context *ctx, const char *dir,
                                   const npu__cache_fields *fields, const void *blob, size_t size)
{
    npu__cache_writer writer; /* about 11 KiB of stack (paths and write buffer) */
    npu__cache_writer *w = &writer;
    npu_status st;
    if (blob == NULL && size > 0)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "model cache: blob is NULL");
    st = npu__cache_writer_begin(w, ctx, dir, fields);
    if (st != NPU_OK) return st;
    npu__cache_writer_feed(w, blob, size);
    return npu__cache_writer_finish(w);
}

/* ---- loading an entry ---- */

typedef struct npu__cache_mapping {
    void *base;                    /* the mapping (NULL: none) */
    size_t map_size;
    const unsigned char *payload;  /* the entry + 4096: page-aligned when mapped */
    size_t payload_size;
    const unsigned char *read_at;  /* not NULL: the entry was read() into the
                                      caller's scratch here (nothing mapped) */
    uint64_t compile_payload;      /* the entry's compile payload size (a hit) */
    char reason[192];              /* why the entry was not used ("" on a hit) */
} npu__cache_mapping;

/* Entries up to this size are read() into arena scratch when the arena has
 * room, instead of mapped: for a small entry, mmap, its page faults and the
 * munmap (a TLB flush) cost more than copying it. Larger ones are mapped and
 * the driver may use the mapping in place. */
#define NPU__CACHE_READ_MAX ((size_t)256 << 10)

/* Verifies an entry held in memory, p[0 .. size) with size >= 4096, against
 * `expected`. NPU_OK, or NPU_ERR_FORMAT with the reason in reason[0 .. cap). */
static npu_status npu__cache_verify(const unsigned char *p, size_t size,
                                    const npu__cache_fields *expected, char *reason,
                                    size_t reason_cap)
{
    /* The header's words in the order they are checked (the first that
     * differs is the reason): the word, its low 32 bits only or all 64, and
     * the shift of the number the reason prints (got, then expected). */
    static const struct { uint8_t word, low32, shift; NPU__MSG_ONLY(const char *fmt;) } check[] = {
        {0, 0, 0 NPU__MSG_ONLY(, "not a cache entry (bad magic)")},
        {1, 1, 0 NPU__MSG_ONLY(, "format version %llu, this library reads %llu")},
        {1, 0, 32 NPU__MSG_ONLY(, "header size %llu, expected %llu")},
        {6, 0, 0 NPU__MSG_ONLY(, "payload size %llu does not match the file (%llu bytes after the header): "
                                 "truncated or extended")},
        {2, 0, 0 NPU__MSG_ONLY(, "key in the entry differs from its file name")},
        {3, 0, 0 NPU__MSG_ONLY(, "key in the entry differs from its file name")},
        {4, 0, 0 NPU__MSG_ONLY(, "check digest differs: another model with the same key")},
        {5, 0, 0 NPU__MSG_ONLY(, "check digest differs: another model with the same key")},
        {7, 1, 0 NPU__MSG_ONLY(, "compiler version 0x%08llx, expected 0x%08llx")},
        {7, 0, 32 NPU__MSG_ONLY(, "written by npu 0x%06llx, this is 0x%06llx")}};
    uint64_t want[NPU__CACHE_WORDS];
    npu__nh128 sum;
    npu__digest digest;
    size_t i;
    if (size < NPU__CACHE_HEADER) {
        npu__textf(reason, reason_cap, "truncated: %zu bytes, less than the %u-byte header", size,
                 NPU__CACHE_HEADER);
        return NPU_ERR_FORMAT;
    }
    npu__cache_words(want, expected, (uint64_t)size - NPU__CACHE_HEADER);
    for (i = 0; i < NPU__COUNT_OF(check); i++) {
        uint64_t mask = check[i].low32 ? 0xffffffffu : ~(uint64_t)0,
                 got = npu__le_get(p + 8 * check[i].word, 8) & mask, exp = want[check[i].word] & mask;
        if (got != exp) {
            npu__textf(reason, reason_cap, check[i].fmt, (unsigned long long)(got >> check[i].shift),
                       (unsigned long long)(exp >> check[i].shift));
            return NPU_ERR_FORMAT;
        }
    }
    /* the texts: platform, then descriptor (NUL-padded fields) */
    for (i = 0; i < 2; i++) {
        const char *text = i ? expected->descriptor : expected->platform;
        size_t at = i ? NPU__CACHE_OFF_DESCRIPTOR : NPU__CACHE_OFF_PLATFORM,
               max = i ? NPU__CACHE_DESCRIPTOR_MAX : NPU__CACHE_PLATFORM_MAX;
        if (strnlen(text, max) >= max || strncmp((const char *)p + at, text, max) != 0) {
            npu__textf(reason, reason_cap, "%s differs", i ? "descriptor" : "platform");
            return NPU_ERR_FORMAT;
        }
    }
    i = npu__nonzero_at(p, NPU__CACHE_FIELDS_END, NPU__CACHE_HEADER);   /* the zero padding */
    if (i < NPU__CACHE_HEADER) {
        npu__textf(reason, reason_cap, "non-zero byte at header offset %zu", i);
        return NPU_ERR_FORMAT;
    }
    npu__nh128_init(&sum, NPU__SEED_CHECKSUM);
    npu__nh128_update(&sum, p + NPU__CACHE_HEADER, size - NPU__CACHE_HEADER);
    digest = npu__cache_checksum(&sum, p);
    if (digest.h[0] != npu__le_get(p + NPU__CACHE_OFF_CHECKSUM, 8) ||
        digest.h[1] != npu__le_get(p + NPU__CACHE_OFF_CHECKSUM + 8, 8)) {
        npu__textf(reason, reason_cap, "checksum mismatch: corrupt entry");
        return NPU_ERR_FORMAT;
    }
    if (reason_cap > 0) reason[0] = '\0';
    return NPU_OK;
}

/* Opens the entry file: a regular file of at most NPU__CACHE_READ_MAX bytes
 * that fits scratch[0 .. cap) is read() into the top of it (out->read_at),
 * anything else is mapped, from the same descriptor (npu__map_file's checks;
 * an empty file maps to NULL). Returns NULL, or why not with *err the errno
 * (0 for "not a regular file" / "too large to map"). */
static const char *npu__cache_load(const char *path, unsigned char *scratch, size_t cap, npu__cache_mapping *out,
                                   int *err)
{
    const char *why;
    size_t size, got = 0, at;
    ssize_t r;
    int fd;
    *err = 0;
    if (scratch == NULL || cap == 0) return npu__map_file(path, &out->base, &out->map_size, err);
    why = npu__open_regular(path, &fd, &size, err);
    if (why != NULL) return why;
    if ((uint64_t)size > (uint64_t)NPU__CACHE_READ_MAX || size > cap) {
        /* mapped from the same descriptor (no second open) */
        void *p = size > 0 ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
        if (p == MAP_FAILED) {
            *err = errno;
            why = strerror(*err);
        } else {
            out->base = p;
            out->map_size = size;
        }
    } else {
        /* Entries are replaced by rename, never rewritten: the file stays as
         * fstat saw it. A short read is a truncated entry (verify says so). */
        at = (cap - size) & ~(size_t)(NPU_ARENA_ALIGN - 1);
        while (got < size) {
            r = read(fd, scratch + at + got, size - got);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) {
                *err = errno;
                why = strerror(*err);
                break;
            }
            if (r == 0) break;
            got += (size_t)r;
        }
        if (why == NULL) {
            out->read_at = scratch + at;
            out->map_size = got;
        }
    }
    close(fd);
    return why;
}

/* Unmaps a hit; a zeroed or missed mapping is fine. */
static void npu__cache_close(npu__cache_mapping *m)
{
    if (m == NULL) return;
    if (m->base != NULL) munmap(m->base, m->map_size);
    /* base, map_size, payload, payload_size, read_at (the fields before
     * compile_payload): nothing held */
    _Static_assert(offsetof(npu__cache_mapping, read_at) < offsetof(npu__cache_mapping, compile_payload),
                   "the held fields come first");
    memset(m, 0, offsetof(npu__cache_mapping, compile_payload));
}

/* Maps the entry of `expected` in `dir` read-only and verifies it: size,
 * magic, format version, key, check digest, compiler and npu versions,
 * platform, descriptor, zero padding and the checksum over the whole entry.
 * NPU_OK: a hit; out->payload stays valid until npu__cache_close(out).
 * A miss (out->reason says why; logged at INFO for a missing entry, WARN
 * otherwise; nothing is mapped): NPU_ERR_NOT_FOUND (no entry), NPU_ERR_FORMAT
 * (truncated, corrupt, foreign, another format version or another model),
 * NPU_ERR_IO (cannot open or map). The caller recompiles and stores, which
 * replaces a bad entry. The mapping is private: files are replaced by
 * rename, never rewritten in place, so an open mapping stays intact. */
/* path: the caller's scratch of NPU__CACHE_PATH_MAX bytes. scratch[0 .. cap)
 * (may be NULL): where a small entry is read() instead (npu__cache_load);
 * out->payload then points into it, and nothing is mapped. */
NPU__NOINLINE static npu_status npu__cache_open_into(npu_context *ctx, const char *dir,
                                                     const npu__cache_fields *expected, npu__cache_mapping *out,
                                                     char *path, unsigned char *scratch, size_t cap)
{
    const char *why;
    const unsigned char *entry;
    npu_status status;
    int err;
    if (out == NULL || expected == NULL)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "model cache: NULL mapping or fields");
    memset(out, 0, sizeof *out);
    /* A path too long is a miss (and a warning), not the compile's error. */
    status = npu__cache_entry_path(dir, &expected->key, path, NPU__CACHE_PATH_MAX);
    if (status != NPU_OK) {
        npu__textf(out->reason, sizeof out->reason, dir == NULL ? "no directory" : "directory path too long");
        return npu__cache_warn(ctx, NPU_LOG_WARN, status, "miss: %s ('%.64s...')", out->reason,
                               dir == NULL ? "" : dir);
    }
    why = npu__cache_load(path, scratch, cap, out, &err);
    if (why != NULL) {
        npu__strlcpy(out->reason, err == ENOENT ? "no entry" : why, sizeof out->reason);
        status = err == ENOENT ? NPU_ERR_NOT_FOUND : NPU_ERR_IO;
    } else {
        /* An empty file maps to NULL: verify stops at its size. */
        entry = out->read_at != NULL ? out->read_at : (const unsigned char *)out->base;
        status = npu__cache_verify(entry, out->map_size, expected, out->reason, sizeof out->reason);
        if (status == NPU_OK) {
            out->payload = entry + NPU__CACHE_HEADER;
            out->payload_size = out->map_size - NPU__CACHE_HEADER;
            out->compile_payload = npu__le_get(entry + NPU__CACHE_OFF_COMPILE_PAYLOAD, 8);
            npu__log(ctx, NPU_LOG_INFO, "model cache: hit '%s' (%zu bytes, %s)", path, out->payload_size,
                     out->read_at != NULL ? "read" : "mapped");
            return NPU_OK;
        }
        npu__cache_close(out);   /* (payload and payload_size are still 0) */
    }
    /* a plain miss (no entry) is an info line */
    return npu__cache_warn(ctx, status == NPU_ERR_NOT_FOUND ? NPU_LOG_INFO : NPU_LOG_WARN, status,
                           "miss for '%s': %s", path, out->reason);
}

/* npu__cache_open_into without scratch: the entry is always mapped. (The
 * white-box tests' entry point.) */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((unused))
#endif
static npu_status npu__cache_open(npu_context *ctx, const char *dir, const npu__cache_fields *expected,
                                  npu__cache_mapping *out, char *path)
{
    return npu__cache_open_into(ctx, dir, expected, out, path, NULL, 0);
}

#endif /* NPU_NO_CACHE (14a-14b) */
#endif /* NPU_NO_LEVEL_ZERO (14a-14b) */

/* ---- 14c. The cache in the compile path ---------------------------------
 * Owns: the key of one form of a model source (npu__source, section 1) and
 * npu__cache_compile, which the compile calls (14d) use when the options
 * name a cache_dir: a hit is imported, a miss compiled and stored.
 * Calls: sections 5 (sinks), 9 (metadata, hash), 12 (build flags, import,
 * npu__form_compile) and 14a-14b (keys, entries). */
#if !defined(NPU_NO_LEVEL_ZERO) && !defined(NPU_NO_CACHE)

/* A sink that feeds the key (for fields written with the sink helpers), and
 * also writes dst[0 .. cap) when dst is not NULL. */
static void npu__key_sink(npu__sink *s, npu__cache_key *k, void *dst, size_t cap)
{
    npu__sink_init(s, dst, cap);
    s->feed = npu__cache_key_feed;
    s->feed_state = k;
}

/* The bytes of one constant as a key field (npu__bytes_fn; state: the key).
 * A constant larger than memory cannot be hashed: the key's overflow flag. */
static void npu__key_constant(void *state, const void *data, uint64_t bytes)
{
    npu__cache_key *k = (npu__cache_key *)state;
    if (bytes > SIZE_MAX) {
        k->overflow = 1;
        return;
    }
    npu__cache_key_field(k, NPU__KEY_CONSTANT, data, (size_t)bytes);
}

/* Source kind, structure and constants. A graph: a binary walk of its nodes
 * (npu__gsrc_structure, section 7), then every constant's bytes; an IR: its
 * XML text and its .bin. */
/* s: a sink feeding k (npu__key_sink). */
static npu_status npu__key_model(npu__cache_key *k, npu__sink *s, const npu__model_src *src, npu_context *ctx)
{
    npu_status st;
    npu__cache_key_field(k, NPU__KEY_SOURCE, src->ops->kind, strlen(src->ops->kind));
    npu__cache_key_begin(k, NPU__KEY_STRUCTURE);
    st = src->ops->structure(src->src, s);
    if (st != NPU_OK) return st;
    npu__cache_key_end(k);
    src->ops->constants(src->src, npu__key_constant, k);
    if (k->overflow) return npu__fail(ctx, NPU_ERR_OVERFLOW, "model cache key: constant too large");
    return NPU_OK;
}

/* "<platform name>/0x<device id, 4 hex digits at least>" (no printf on a
 * hit; at most 18 bytes) */
static void npu__device_platform(const npu_device *d, npu__sink *s)
{
    uint32_t id = d->props.deviceId;
    char t[11];   /* "/0x" and 4 to 8 digits, from the end */
    size_t i = sizeof t;
    npu__sink_str(s, npu__platform_name(id));
    do {
        t[--i] = "0123456789abcdef"[id & 15u];
        id >>= 4;
    } while (id != 0 || i > sizeof t - 4);
    memcpy(t + i - 3, "/0x", 3);
    npu__sink_put(s, t + i - 3, sizeof t - i + 3);
}

/* Everything that decides the blob, hashed into f. */
NPU__NOINLINE static npu_status npu__cache_fields_for(npu_device *d, const npu__model_src *src,
                                        const npu_compile_options *o, const npu__form *form,
                                        npu__cache_fields *f)
{
    npu__cache_key k;
    npu__sink s;
    npu__io_list in, outl;
    npu_tensor_desc desc;
    uint32_t i, n_in, n_out, n_args = 0;
    npu_payload_layout layout;
    const char *label;
    size_t flags_at;
    npu_status st;
    /* "name=value" numbers after the flags: the key's text, unchanged */
    static const char *const num_names[7] = {"\npayload_layout=", " weights_threshold=", "\nbatch_rule=",
                                             " batch_mode=", " original=", " compiled=", " ir_batch="};
    uint64_t num[7];
    uint32_t n_num;

    npu__cache_key_init(&k);
    npu__key_sink(&s, &k, NULL, 0);
    st = npu__key_model(&k, &s, src, d->ctx);
    if (st != NPU_OK) return st;
    /* The build flags the compile would pass (npu__plain), checked and
     * written straight into the key: no copy in the arena. */
    npu__src_lists(src, o, &in, &outl, &n_args);
    layout = npu__pick_layout(d, o, in.ir_version, 1);
    in.layout_b = layout == NPU_PAYLOAD_NO_WEIGHTS_COPY;
    npu__cache_key_begin(&k, NPU__KEY_OPTIONS);
    npu__sink_str(&s, "flags=");
    flags_at = s.len;
    st = npu__flags_walk(&s, d, o, &in, &outl, 1);
    if (st != NPU_OK) return st;
    flags_at = s.len - flags_at;   /* the flags' length, for npu__plain_need */
    /* With the layout, the threshold decides the payload's size (recorded in
     * the entry for the hit's arena check); ir_batch only for a source that
     * rewrites its batch. */
    num[0] = (uint64_t)layout;
    num[1] = o != NULL ? o->weights_threshold_bytes : 0u;
    num[2] = NPU__BATCH_RULE;
    num[3] = (uint64_t)form->mode;
    num[4] = (uint64_t)form->original;
    num[5] = (uint64_t)form->compiled;
    n_num = src->ops->batch_rewrite != NULL ? 7 : 6;
    if (n_num == 7) num[6] = (uint64_t)src->ops->batch_rewrite(src->src);
    for (i = 0; i < n_num; i++) {   /* the first four unsigned, the rest signed */
        npu__sink_str(&s, num_names[i]);
        if (i < 4) npu__sink_u64_dec(&s, num[i]);
        else npu__sink_i64_dec(&s, (int64_t)num[i]);
    }
    npu__sink_str(&s, "\nlayouts=");
    n_in = in.count;
    n_out = outl.count;
    for (i = 0; i < n_in + n_out; i++) {
        const npu__io_list *l = i < n_in ? &in : &outl;
        if (l->get(l->src, i < n_in ? i : i - n_in, &desc) != NPU_OK) continue;
        npu__sink_str(&s, desc.layout);
        npu__sink_str(&s, ";");
    }
    npu__cache_key_end(&k);
    npu__cache_key_u32(&k, NPU__KEY_COMPILER, d->compiler_version);
    /* The texts go straight into *f (no copies on the stack); the platform
     * into the key at the same time (it fits its field: the same bytes). */
    memset(f, 0, sizeof *f);
    npu__cache_key_begin(&k, NPU__KEY_PLATFORM);
    npu__key_sink(&s, &k, f->platform, sizeof f->platform - 1);
    npu__device_platform(d, &s);
    npu__cache_key_end(&k);
    npu__cache_key_u32(&k, NPU__KEY_NPU_VERSION, (uint32_t)NPU_VERSION);
    npu__cache_key_final(&k, &f->key, &f->check);
    f->compiler_version = d->compiler_version;
    f->npu_version = (uint32_t)NPU_VERSION;
    f->flags_len = flags_at;
    f->n_args = n_args;
    /* "<kind> '<label, 64 bytes at most>' <n> in <n> out batch <b>[ PLUGIN|
     * COMPILER]", written without printf (also under NPU_NO_MESSAGES) */
    npu__sink_init(&s, f->descriptor, sizeof f->descriptor - 1);
    npu__sink_str(&s, src->ops->kind);
    npu__sink_str(&s, " '");
    label = src->ops->label(src->src);
    npu__sink_put(&s, label, strnlen(label, 64));
    npu__sink_str(&s, "' ");
    npu__sink_u64_dec(&s, n_in);
    npu__sink_str(&s, " in ");
    npu__sink_u64_dec(&s, n_out);
    npu__sink_str(&s, " out batch ");
    npu__sink_batch(&s, form->original);
    {
        /* a form's mode: AUTO (the model as it is), PLUGIN or COMPILER */
        static const char *const mode_text[3] = {"", " PLUGIN", " COMPILER"};
        _Static_assert(NPU_BATCH_AUTO == 0 && NPU_BATCH_PLUGIN == 1 && NPU_BATCH_COMPILER == 2, "mode_text order");
        npu__sink_str(&s, mode_text[form->mode]);
    }
    npu__text_end(&s, f->descriptor, sizeof f->descriptor);
    return NPU_OK;
}

/* Exports the model straight into a new entry (blob bytes from the driver's
 * pointer, then the metadata tail). Failures are logged; the model stays. */
/* The writer (an 8 KB coalescing buffer and three paths) is arena scratch
 * above the new model, handed back on return; npu_model_size's argument-table
 * scratch already covers it, so the compile's size query stays exact. */
_Static_assert(sizeof(npu__cache_writer) <= sizeof(npu__arg_scratch), "the cache writer fits the model set-up scratch");
_Static_assert(NPU__META_MAX_LAYOUTS * NPU_LAYOUT_MAX <= sizeof(npu__arg_scratch), "import layouts fit the set-up scratch");

static void npu__cache_store_with(npu_model *m, npu__cache_writer *wp, const char *dir, const npu__cache_fields *f)
{
    npu__blob_meta meta;
    const uint8_t *blob = NULL;
    size_t bsize = 0;
    npu__sink s;
    const char *note;   /* why not stored: into cache_note */
    m->info.cache = NPU_CACHE_NOT_STORED;
    if (wp == NULL) {   /* cannot happen: npu_model_size reserved it */
        note = "no arena room for the cache writer";
    } else if (!m->dev->caps.native_binary_2) {
        note = "the driver has no pfnGetNativeBinary2";
        npu__log(m->ctx, NPU_LOG_INFO, "model cache: %s; not storing", note);
    } else if (m->dev->g->pfnGetNativeBinary2(m->graph, &bsize, &blob) != ZE_RESULT_SUCCESS || blob == NULL) {
        note = "pfnGetNativeBinary2 failed";
        npu__log(m->ctx, NPU_LOG_WARN, "model cache: %s; not storing", note);
    } else if (npu__cache_writer_begin(wp, m->ctx, dir, f) != NPU_OK) {
        note = wp->reason;
    } else {
        npu__sink_init(&s, NULL, 0);
        s.feed = npu__cache_writer_feed;
        s.feed_state = wp;
        npu__sink_put(&s, blob, bsize);
        npu__model_meta(m, &meta);
        npu__meta_write(&s, &meta);
        if (s.overflow) {
            npu__cache_writer_abort(wp);
            note = "the export overflowed";
        } else if (npu__cache_writer_finish(wp) != NPU_OK) {
            note = wp->reason;
        } else {
            m->info.cache = NPU_CACHE_STORED;   /* cache_note keeps why it missed */
            return;
        }
    }
    npu__strlcpy(m->info.cache_note, note, sizeof m->info.cache_note);
}

NPU__NOINLINE static void npu__cache_store_model(npu_model *m, npu_arena *arena, const char *dir, const npu__cache_fields *f)
{
    size_t mark = arena->used;
    npu__cache_store_with(m, (npu__cache_writer *)npu__alloc(arena, NULL, sizeof(npu__cache_writer), "cache writer"),
                          dir, f);
    npu_arena_rewind(arena, mark);
}

/* Imports a hit. The mapping moves into the model when the driver uses it in
 * place; otherwise it is closed here. An entry read into arena scratch is
 * imported as a copy (the driver keeps nothing of it), with the arena's
 * capacity held below the scratch meanwhile so that the model cannot be
 * carved over the bytes being imported. */
NPU__NOINLINE static npu_status npu__cache_import(npu_device *d, npu_arena *arena, const npu_compile_options *o,
                                    npu__cache_mapping *map, npu_model **out)
{
    npu_import_options io;
    int persistent = 0;
    size_t capacity = arena->capacity;
    npu_status st;
    memset(&io, 0, sizeof io);
    io.priority = o->priority;
    io.turbo = o->turbo;
    if (map->read_at != NULL) arena->capacity = (size_t)(map->read_at - arena->base);
    st = npu__import(d, arena, map->payload, map->payload_size, &io, map->read_at == NULL, &persistent, out);
    arena->capacity = capacity;
    if (st == NPU_OK && persistent) {
        (*out)->map = map->base;
        (*out)->map_size = map->map_size;
        map->base = NULL;
    }
    npu__cache_close(map);
    return st;
}

/* Opens the entry of `fields`. A small entry is read into the top of the
 * arena (nothing mapped); once the entry says what a compile needs, a copy
 * that lies inside that need is dropped and the entry mapped instead, so that
 * the import has all of the need below it. *end: where the compile's need
 * ends in the arena, from the payload size the entry records (what
 * npu__plain_size would compute: the key covers every input of it). A need
 * beyond the arena's capacity is a miss, NPU_ERR_ARENA_TOO_SMALL: the miss
 * path checks what a compile needs itself, so an arena too small gets the
 * compile's error, and an entry that claims too much (crafted: the checksum
 * caught anything else) cannot fail a compile that fits; it is replaced. The
 * path is arena scratch, handed back before the return. */
static npu_status npu__cache_lookup(npu_device *d, npu_arena *arena, const char *dir, const npu__cache_fields *fields,
                                    npu__cache_mapping *map, size_t *end)
{
    size_t pmark = arena->used, room, need;
    char *path = (char *)npu__alloc(arena, NULL, NPU__CACHE_PATH_MAX, "cache entry path");
    npu_status st;
    if (path == NULL) {
        memset(map, 0, sizeof *map);
        npu__textf(map->reason, sizeof map->reason, "no arena room for the entry's path");
        return NPU_ERR_ARENA_TOO_SMALL;
    }
    room = arena->used;
    st = npu__cache_open_into(d->ctx, dir, fields, map, path, arena->base + room, arena->capacity - room);
    if (st == NPU_OK) {
        need = npu__plain_need(map->compile_payload, fields->flags_len, fields->n_args);
        if (need == 0 || npu__add_size(pmark, need, end)) {
            npu__textf(map->reason, sizeof map->reason, "the entry's compile payload size %llu is out of range",
                       (unsigned long long)map->compile_payload);
            st = npu__cache_warn(d->ctx, NPU_LOG_WARN, NPU_ERR_FORMAT, "miss: %s", map->reason);
        } else if (*end > arena->capacity) {
            npu__textf(map->reason, sizeof map->reason,
                       "the entry's compile needs %zu bytes of arena, more than is left", need);
            st = NPU_ERR_ARENA_TOO_SMALL;
        }
        /* A miss is closed; a copy in the need's way is mapped instead. */
        if (st != NPU_OK || (map->read_at != NULL && (size_t)(map->read_at - arena->base) < NPU_ARENA_ROUND(*end))) {
            npu__cache_close(map);
            if (st == NPU_OK) st = npu__cache_open_into(d->ctx, dir, fields, map, path, NULL, 0);
        }
    }
    npu_arena_rewind(arena, pmark);
    return st;
}

/* Looks the form up in o->cache_dir: a hit is imported; a miss is compiled
 * (npu__form_compile, section 12) and stored. The source is already at the
 * form's batch. The arena a compile needs must fit, and is recorded in the
 * peak, whether the form is compiled or found, so that
 * npu_model_compile_*_size is exact whatever the cache holds and a program
 * sized on a warm cache does not fail on a cold one. A hit takes that need
 * from its entry; a miss (or an unusable hit) computes it (npu__plain_size). */
NPU__NOINLINE static npu_status npu__cache_compile(npu_device *d, npu_arena *arena, const npu__model_src *src,
                                                   const npu_compile_options *o, const npu__form *form,
                                                   npu_model **out)
{
    npu__cache_fields fields;
    npu__cache_mapping map;
    npu_status st;
    npu_model *m = NULL;
    uint64_t psize = 0;
    size_t mark = arena->used, need = 0, end;

    *out = NULL;
    st = npu__cache_fields_for(d, src, o, form, &fields);
    if (st != NPU_OK) return st;   /* the model itself is unusable (graph error, closed IR) */
    st = npu__cache_lookup(d, arena, o->cache_dir, &fields, &map, &end);
    if (st == NPU_OK) {
        if (end > arena->peak) arena->peak = end;
        st = npu__cache_import(d, arena, o, &map, &m);
        if (st == NPU_OK && m->info.original_batch != (form->mode == NPU_BATCH_PLUGIN ? form->original : 1)) {
            npu__model_release(m);
            npu_arena_rewind(arena, mark);
            st = NPU_ERR_FORMAT;
        }
        if (st == NPU_OK) {
            m->info.from_cache = 1;
            m->info.cache = NPU_CACHE_HIT;
            m->info.batch_mode = form->mode;
            m->info.original_batch = form->original;
            *out = m;
            return NPU_OK;
        }
        if (st == NPU_ERR_ARENA_TOO_SMALL) return st;
        npu__log(d->ctx, NPU_LOG_WARN, "model cache: the entry verified but could not be imported (%s); "
                 "recompiling and replacing it", npu_status_string(st));
        npu__textf(map.reason, sizeof map.reason, "the entry could not be imported (%.120s)", npu_status_string(st));
    }
    st = npu__plain_size(d, src, o, &need, &psize);
    if (st != NPU_OK) return st;
    if (npu__add_size(arena->used, need, &end) || end > arena->capacity)
        return npu__fail(d->ctx, NPU_ERR_ARENA_TOO_SMALL, "arena too small for the compile: needs %zu bytes in "
                         "total (%zu in use + %zu), has %zu", arena->used + need, arena->used, need,
                         arena->capacity);
    if (end > arena->peak) arena->peak = end;
    fields.compile_payload = psize;
    st = npu__form_compile(d, arena, src, o, form, &m);
    if (st != NPU_OK) return st;
    npu__textf(m->info.cache_note, sizeof m->info.cache_note, "miss: %.180s", map.reason);
    npu__cache_store_model(m, arena, o->cache_dir, &fields);
    *out = m;
    return NPU_OK;
}

#endif /* NPU_NO_LEVEL_ZERO, NPU_NO_CACHE */

/* ---- 14d. Compiling a model source ------------------------------------
 * Owns: the top of the compile path: the batch decision (PLUGIN / COMPILER /
 * AUTO, section 12's plan), each form through the cache (14c) or straight to
 * the driver (npu__form_compile, section 12), and the public compile calls
 * and their size queries. Calls: sections 12 and 14c. */
#if !defined(NPU_NO_LEVEL_ZERO) && defined(NPU__SOURCES)

/* One form, through the model cache when the options name a directory. */
static npu_status npu__compile_form(npu_device *d, npu_arena *arena, const npu__model_src *src,
                                    const npu_compile_options *o, const npu__form *form, npu_model **out)
{
#ifndef NPU_NO_CACHE
    if (o != NULL && o->cache_dir != NULL && o->profiled_requests == 0)
        return npu__cache_compile(d, arena, src, o, form, out);
#endif
    return npu__form_compile(d, arena, src, o, form, out);
}

static npu_status npu__compile_check(npu_device *d, const npu__model_src *src, const npu_compile_options *o,
                                     const void *out)
{
    npu_status st;
    if (d == NULL || src->src == NULL || out == NULL)
        return npu__fail(d ? d->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "compile: NULL argument");
    st = npu__check_compile_opts(d->ctx, o);
    if (st != NPU_OK) return st;
    if (d->compiler_version == 0)
        return npu__fail(d->ctx, NPU_ERR_UNSUPPORTED, "compile: the driver has no compiler (compiler version 0); "
                         "import a precompiled blob instead");
    return NPU_OK;
}

/* PLUGIN cannot debatch (status st): the error names the reason, p->why, and,
 * for a missing layout, the fix. When the analysis allowed PLUGIN (plugin_ok),
 * p->why is the step that failed since (the fix does not apply). */
static npu_status npu__plugin_refused(npu_context *ctx, const npu__model_src *s, const npu__batch_plan *p,
                                      npu_status st)
{
    /* the batch ("unknown" without a layout naming N), and the fix with its
     * separator */
    NPU__MSG_ONLY(char b[24]; const char *batch = "unknown", *sep = "; ", *fix = s->ops->layout_fix;)
    NPU__MSG_UNUSED(s);
    if (!p->no_layout) {
        /* the fix only for an analysis refusal naming a missing layout */
        NPU__MSG_ONLY(if (p->plugin_ok || strstr(p->why, "layout naming N") == NULL) sep = fix = "";
                      npu__batch_text(p->n, b, sizeof b); batch = b;)
    }
    return npu__fail(ctx, st, p->no_layout ? "batch mode PLUGIN: the model's batch is %s: %s%s%s"
                                           : "batch mode PLUGIN: the batch-%s model cannot be debatched: %s%s%s",
                     batch, p->why, sep, fix);
}

/* npu__compile_form, then the decision into npu_model_info. */
static npu_status npu__compile_decided(npu_device *d, npu_arena *arena, const npu__model_src *src,
                                       const npu_compile_options *o, const npu__form *form, const char *reason,
                                       npu_model **out)
{
    npu_status st = npu__compile_form(d, arena, src, o, form, out);
    if (st == NPU_OK) {
        (*out)->info.requested_mode = o != NULL ? o->batch_mode : NPU_BATCH_AUTO;
        npu__strlcpy((*out)->info.batch_reason, reason, sizeof (*out)->info.batch_reason);
    }
    return st;
}

#ifndef NPU_NO_MESSAGES
/* why = prefix + the context's last error (cut to fit). */
static void npu__why_with_error(char *why, size_t cap, const char *prefix, const npu_context *ctx)
{
    size_t n = npu__strlcpy(why, prefix, cap);
    if (n < cap) npu_context_copy_error(ctx, why + n, cap - n);
}
#else
#define npu__why_with_error(why, cap, prefix, ctx) NPU__UNUSED(prefix)   /* why: for the messages only */
#endif

static npu_status npu__compile_src(npu_device *d, npu_arena *arena, const npu__model_src *src,
                                   const npu_compile_options *o, npu_model **out)
{
    npu_batch_mode mode = o != NULL ? o->batch_mode : NPU_BATCH_AUTO;
    npu__batch_plan plan;
    npu__form as_is, plugin;
    int64_t saved;   /* (set by npu__src_batch_one) */
    NPU__MSG_ONLY(char b[24];)   /* the batch, for the messages */
    char reason[NPU_BATCH_REASON_MAX];   /* the info's batch_reason */
    NPU__MSG_ONLY(char *why = plan.why;)   /* once PLUGIN is possible, plan.why is free: the failure's text */
    const char *prefix;     /* of why: the step of PLUGIN that failed */
    int level = -1;         /* of the log line before the compile as it is (-1: none) */
    NPU__MSG_ONLY(static const char *const mode_name[3] = {"AUTO", "PLUGIN", "COMPILER"};)
    npu_status st;

    if (out != NULL) *out = NULL;
    st = npu__compile_check(d, src, o, out);
    if (st != NPU_OK) return st;
    if (arena == NULL) return npu__fail(d->ctx, NPU_ERR_INVALID_ARGUMENT, "compile: NULL argument");
    npu__batch_analyze(src, &plan);
    as_is.mode = plan.batched ? NPU_BATCH_COMPILER : NPU_BATCH_AUTO;
    as_is.original = plan.n;
    as_is.compiled = 0;
    NPU__MSG_ONLY(npu__batch_text(plan.n, b, sizeof b);)
    /* Each way but a PLUGIN that succeeds ends in the model as it is (below),
     * with its reason. */
    if (plan.no_layout) {
        /* The batch is unknown: the model as it is, in AUTO and COMPILER. */
        if (mode == NPU_BATCH_PLUGIN) return npu__plugin_refused(d->ctx, src, &plan, NPU_ERR_UNSUPPORTED);
        npu__textf(reason, sizeof reason, "%.200s; compiled as it is (not debatched)", plan.why);
        level = mode == NPU_BATCH_AUTO ? NPU_LOG_INFO : NPU_LOG_DEBUG;
    } else if (!plan.batched || mode == NPU_BATCH_COMPILER) {
        npu__textf(reason, sizeof reason, "batch %s (%s); compiled as it is", b,
                   plan.batched ? "batch mode COMPILER" : "the inputs' layouts name N");
    } else {
        st = NPU_ERR_UNSUPPORTED;   /* the analysis refused PLUGIN: why is plan.why */
        if (plan.plugin_ok) {
            st = npu__src_batch_one(src, &saved);
            if (st != NPU_OK) {
                prefix = "setting batch 1 failed: ";
                st = NPU_ERR_UNSUPPORTED;
            } else {
                /* the command lists it is debatched into, for the messages */
                NPU__MSG_ONLY(const char *lists = plan.n == NPU_DIM_DYNAMIC ? "1..max_batch" : b;)
                plugin.mode = NPU_BATCH_PLUGIN;
                plugin.original = plan.n;
                plugin.compiled = 1;
                npu__textf(reason, sizeof reason, "batch %s compiled at batch 1 (N on axis 0 of every input and "
                         "output), debatched into %s command lists (PLUGIN)", b, lists);
                st = npu__compile_decided(d, arena, src, o, &plugin, reason, out);
                npu__src_batch_restore(src, d->ctx, saved);
                if (st == NPU_OK) {
                    npu__log(d->ctx, NPU_LOG_INFO, "batch mode %s: %s", mode_name[mode], reason);
                    return NPU_OK;
                }
                if (st != NPU_ERR_COMPILE && st != NPU_ERR_SHAPE && st != NPU_ERR_UNSUPPORTED) return st;
                prefix = "the batch-1 model: ";
            }
            npu__why_with_error(why, sizeof plan.why, prefix, d->ctx);
        }
        /* PLUGIN fails with st; AUTO falls back to the model as it is */
        if (mode == NPU_BATCH_PLUGIN) return npu__plugin_refused(d->ctx, src, &plan, st);
        /* one copy of the AUTO fallback for the three reasons (why, last:
         * the part cut when the reason is full) */
        npu__textf(reason, sizeof reason, "the batch-%s model cannot be debatched; the compiler handles the batch "
                   "(COMPILER): %s", b, why);
        level = NPU_LOG_INFO;
    }
    /* the log line says what the reason says */
    if (level >= 0) npu__log(d->ctx, (npu_log_level)level, "batch mode %s: %s", mode_name[mode], reason);
    st = npu__compile_decided(d, arena, src, o, &as_is, reason, out);
    if (st == NPU_ERR_COMPILE && plan.no_layout && strstr(plan.why, "dynamic dim") != NULL) {
        /* the compile's message, cut to 300 bytes, then why npu left the batch */
        npu__fail_cut(d->ctx, 300);
        npu__fail_more(d->ctx, " (npu did not debatch the model: %.150s; %s)", plan.why, src->ops->layout_fix);
        return npu__fail_end(d->ctx, st);
    }
    return st;
}

static npu_status npu__compile_src_size(npu_device *d, const npu__model_src *src, const npu_compile_options *o,
                                        size_t *bytes)
{
    npu_batch_mode mode = o != NULL ? o->batch_mode : NPU_BATCH_AUTO;
    npu__batch_plan plan;
    size_t one = 0, plain = 0;
    int64_t saved = 0;
    npu_status st;
    st = npu__compile_check(d, src, o, bytes);
    if (st != NPU_OK) return st;
    *bytes = 0;
    npu__batch_analyze(src, &plan);
    if (plan.no_layout && mode == NPU_BATCH_PLUGIN) return npu__plugin_refused(d->ctx, src, &plan, NPU_ERR_UNSUPPORTED);
    if (plan.batched && mode != NPU_BATCH_COMPILER) {
        if (!plan.plugin_ok && mode == NPU_BATCH_PLUGIN) return npu__plugin_refused(d->ctx, src, &plan, NPU_ERR_UNSUPPORTED);
        if (plan.plugin_ok && npu__src_batch_one(src, &saved) == NPU_OK) {
            st = npu__plain_size(d, src, o, &one, NULL);
            npu__src_batch_restore(src, d->ctx, saved);
            if (st != NPU_OK) return st;
            if (mode == NPU_BATCH_PLUGIN) {
                *bytes = one;
                return NPU_OK;
            }
        } else if (mode == NPU_BATCH_PLUGIN) {
            return npu__fail(d->ctx, NPU_ERR_UNSUPPORTED, "batch mode PLUGIN: setting batch 1 failed");
        }
    }
    /* Unbatched or batch unknown, COMPILER, or AUTO (which may fall back): the
     * model as it is. */
    st = npu__plain_size(d, src, o, &plain, NULL);
    if (st != NPU_OK) return st;
    *bytes = one > plain ? one : plain;
    return NPU_OK;
}

#ifndef NPU_NO_GRAPH
NPU_API npu_status npu_model_compile_graph(npu_device *dev, npu_arena *arena, const npu_graph *graph,
                                   const npu_compile_options *opts, npu_model **out)
{
    const npu__model_src s = {&npu__graph_source, graph};
    return npu__compile_src(dev, arena, &s, opts, out);
}

NPU_API npu_status npu_model_compile_graph_size(npu_device *dev, const npu_graph *graph, const npu_compile_options *opts,
                                        size_t *bytes)
{
    const npu__model_src s = {&npu__graph_source, graph};
    return npu__compile_src_size(dev, &s, opts, bytes);
}

#endif

#ifndef NPU_NO_IR
NPU_API npu_status npu_model_compile_ir(npu_device *dev, npu_arena *arena, const npu_ir *ir,
                                const npu_compile_options *opts, npu_model **out)
{
    const npu__model_src s = {&npu__ir_source, ir};
    return npu__compile_src(dev, arena, &s, opts, out);
}

NPU_API npu_status npu_model_compile_ir_size(npu_device *dev, const npu_ir *ir, const npu_compile_options *opts,
                                     size_t *bytes)
{
    const npu__model_src s = {&npu__ir_source, ir};
    return npu__compile_src_size(dev, &s, opts, bytes);
}
#endif
#endif /* NPU_NO_LEVEL_ZERO, NPU__SOURCES (14d) */
