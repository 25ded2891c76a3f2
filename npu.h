/* npu.h - allocation-free C runtime for Intel NPUs (Meteor Lake, Lunar Lake,
 * Panther Lake "AI Boost") over the Level Zero loader and the NPU driver's graph
 * extension.
 *
 * The library is two files: this header and npu.c. It never calls malloc/free:
 * every object lives in memory the caller hands over (npu_arena). Every object
 * can tell how many bytes it needs before it is created, and every create call
 * reports what it used.
 *
 * Contents of this header (the manual):
 *   1. Versions
 *   2. Status codes
 *   3. Arenas (caller memory)
 *   4. Contexts: last error, logging
 *   5. Element types, shapes, tensor descriptions
 *   6. Graph builder                    (build a model in C)
 *   7. IR payload writer                (graph -> NGRAPH_LITE buffer)
 *   8. OpenVINO IR loader               (model.xml + model.bin -> payload)
 *   9. Device, model, request           (Level Zero; absent with NPU_NO_LEVEL_ZERO)
 *  10. Batching and the model cache
 *
 * General rules, valid for every function unless its comment says otherwise:
 * - Functions return npu_status. On failure the context named by the call (or
 *   the one the object was created with) keeps a message naming the object and
 *   the reason: npu_context_last_error().
 * - A NULL pointer where an object is required gives NPU_ERR_INVALID_ARGUMENT;
 *   it never crashes.
 * - Option structs: a zero-initialized struct (or a NULL pointer) means defaults.
 * - Pointers returned by the library (names, descriptions) point into the
 *   object's arena and live as long as the object.
 * - Threads: the library starts no threads and keeps no global mutable state.
 *   Distinct objects may be used from distinct threads. Objects documented as
 *   shareable (a compiled model) may be used by several threads at once; all
 *   other objects by one thread at a time.
 *
 * Building: C11. Define NPU_NO_LEVEL_ZERO to build only the graph and IR parts
 * (sections 1-8), without the Level Zero loader. npu.c needs only this header,
 * libc (POSIX for files and clocks) and, unless NPU_NO_LEVEL_ZERO, the Level Zero
 * loader headers (pkg-config level-zero).
 */
#ifndef NPU_H
#define NPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ==== 1. Versions ======================================================== */

#define NPU_VERSION_MAJOR 0
#define NPU_VERSION_MINOR 1
#define NPU_VERSION_PATCH 0
#define NPU_VERSION_STRING "0.1.0"
/* The version as one comparable number: (major << 16) | (minor << 8) | patch. */
#define NPU_VERSION ((NPU_VERSION_MAJOR << 16) | (NPU_VERSION_MINOR << 8) | NPU_VERSION_PATCH)

/* The version of the compiled library, NPU_VERSION's encoding. Compare it with
 * NPU_VERSION to detect a header/library mismatch. Thread-safe. */
uint32_t npu_version(void);
/* The same as a static string, e.g. "0.1.0". Thread-safe. */
const char *npu_version_string(void);

/* ==== 2. Status codes ==================================================== */

typedef enum npu_status {
    NPU_OK = 0,
    NPU_NOT_READY,              /* not an error: an async request has not finished
                                   (poll, or a wait that timed out) */
    NPU_ERR_INVALID_ARGUMENT,   /* NULL where an object is needed, a value out of range */
    NPU_ERR_ARENA_TOO_SMALL,    /* the arena cannot hold the object; the message says
                                   how many bytes in total were needed */
    NPU_ERR_ALIGNMENT,          /* memory handed over is not aligned as documented */
    NPU_ERR_BUFFER_TOO_SMALL,   /* an output buffer is too small; query the size first */
    NPU_ERR_SHAPE,              /* shapes do not fit the op (names op, input, shapes) */
    NPU_ERR_TYPE,               /* element types do not fit the op */
    NPU_ERR_LIMIT,              /* a fixed maximum was exceeded (rank, count, name length) */
    NPU_ERR_OVERFLOW,           /* a size computation overflowed */
    NPU_ERR_UNSUPPORTED,        /* valid, but not supported here (op, feature, version) */
    NPU_ERR_PARSE,              /* malformed IR XML (message names line and column) */
    NPU_ERR_FORMAT,             /* malformed blob, metadata tail or cache entry */
    NPU_ERR_IO,                 /* a file operation failed (message names the file) */
    NPU_ERR_NOT_FOUND,          /* no input/output/state of that name or index */
    NPU_ERR_STATE,              /* call not allowed in the object's current state */
    NPU_ERR_NO_DEVICE,          /* no NPU driver or device found; the message says what
                                   was searched and how to use the software NPU */
    NPU_ERR_DRIVER,             /* a Level Zero call failed; the message names it and
                                   gives its ze_result_t */
    NPU_ERR_COMPILE,            /* the driver's compiler rejected the model; the message
                                   holds the build log */
    NPU_ERR_NO_LEVEL_ZERO,      /* library built with NPU_NO_LEVEL_ZERO */
    NPU_STATUS_COUNT
} npu_status;

/* A static, human-readable name for a status ("NPU_ERR_ARENA_TOO_SMALL: arena too
 * small"). Unknown values give "unknown status". Thread-safe. */
const char *npu_status_string(npu_status status);

/* ==== 3. Arenas ========================================================== */
/* An arena is a bump allocator over memory the caller owns. The library carves
 * every object from an arena and never frees: objects die when the caller
 * reuses or frees the memory (after destroying objects that hold driver
 * resources, see section 9).
 *
 * Alignment: the memory passed to npu_arena_init must be aligned to
 * NPU_ARENA_ALIGN bytes (16); every object carved from it is aligned to
 * NPU_ARENA_ALIGN too, so a size query's answer is exact when the arena's
 * current use is a multiple of NPU_ARENA_ALIGN (always true for arenas used only
 * by this library). Misaligned memory gives NPU_ERR_ALIGNMENT.
 *
 * The struct is public so that it can live on the stack; treat its fields as
 * read-only. One arena is used by one thread at a time. */
#define NPU_ARENA_ALIGN 16

typedef struct npu_arena {
    unsigned char *base;   /* caller memory */
    size_t capacity;       /* bytes at base */
    size_t used;           /* bytes handed out so far (multiple of NPU_ARENA_ALIGN) */
    size_t peak;           /* highest `used` ever seen (survives rewinds) */
} npu_arena;

/* Rounds n up to a multiple of NPU_ARENA_ALIGN (for summing object sizes). */
#define NPU_ARENA_ROUND(n) (((n) + (size_t)(NPU_ARENA_ALIGN - 1)) & ~(size_t)(NPU_ARENA_ALIGN - 1))

/* Sets up an arena over [memory, memory + capacity). memory may be NULL only
 * with capacity 0 (an arena that fails every request but still counts).
 * Errors: NPU_ERR_INVALID_ARGUMENT (arena NULL, or NULL memory with capacity > 0),
 * NPU_ERR_ALIGNMENT (memory not NPU_ARENA_ALIGN-aligned). */
npu_status npu_arena_init(npu_arena *arena, void *memory, size_t capacity);

/* Bytes in use; bytes still free. NULL arena gives 0. */
size_t npu_arena_used(const npu_arena *arena);
size_t npu_arena_remaining(const npu_arena *arena);

/* Rewinds the arena to an earlier npu_arena_used() value. Objects carved after
 * that point are gone: the caller must not use them again (and must have
 * destroyed any that hold driver resources). A mark beyond `used` is ignored. */
void npu_arena_rewind(npu_arena *arena, size_t mark);

/* ==== 4. Contexts ======================================================== */
/* A context keeps the last error message and the optional logger. Objects
 * remember the context they were created with and report into it.
 * Several threads may report into one context: status codes are always exact,
 * but the message is the last writer's. Give each thread its own context when
 * messages matter. */
typedef struct npu_context npu_context;

typedef enum npu_log_level {
    NPU_LOG_ERROR = 0,
    NPU_LOG_WARN = 1,
    NPU_LOG_INFO = 2,
    NPU_LOG_DEBUG = 3
} npu_log_level;

/* Logger callback: `message` is valid only during the call. It may be called
 * from any thread that calls into the library with this context. */
typedef void (*npu_log_fn)(void *user_data, npu_log_level level, const char *message);

typedef struct npu_context_options {
    npu_log_fn log;              /* NULL: silent (default) */
    void *log_user_data;
    npu_log_level log_level;     /* messages at or below this level are passed
                                    (default NPU_LOG_ERROR, i.e. errors only) */
} npu_context_options;

/* Bytes npu_context_create takes from an arena (at NPU_ARENA_ALIGN). */
size_t npu_context_size(void);

/* Creates a context in `arena`. options may be NULL (silent). The context lives
 * as long as the arena memory; it holds no resources.
 * Errors: NPU_ERR_INVALID_ARGUMENT, NPU_ERR_ARENA_TOO_SMALL (there is no context
 * to hold a message then: the status says it). */
npu_status npu_context_create(npu_arena *arena, const npu_context_options *options,
                              npu_context **out);

/* The last error message ("" if none) and its status. The message is at most
 * NPU_ERROR_MAX - 1 bytes; longer ones (build logs) are cut. The pointer stays
 * valid for the context's life; the text changes with the next error. */
#define NPU_ERROR_MAX 4096
const char *npu_context_last_error(const npu_context *ctx);
npu_status npu_context_last_status(const npu_context *ctx);
void npu_context_clear_error(npu_context *ctx);

/* ==== 5. Element types, shapes, tensor descriptions ====================== */

typedef enum npu_type {
    NPU_TYPE_UNDEFINED = 0,
    NPU_F32,
    NPU_F16,
    NPU_BF16,
    NPU_I8,
    NPU_U8,
    NPU_I32,
    NPU_I64,
    NPU_BOOL,
    NPU_TYPE_COUNT
} npu_type;

/* Bytes per element (0 for an unknown type). Thread-safe. */
size_t npu_type_size(npu_type type);
/* OpenVINO's element type name: "f32", "f16", "bf16", "i8", "u8", "i32", "i64",
 * "boolean"; "undefined" for anything else. Thread-safe. */
const char *npu_type_name(npu_type type);

#define NPU_MAX_RANK 8
/* A dimension whose value is known only at run time (IR "?" or -1). Only the
 * batch axis may be dynamic. */
#define NPU_DIM_DYNAMIC (-1)

typedef struct npu_shape {
    uint32_t rank;                   /* 0 = scalar */
    int64_t dims[NPU_MAX_RANK];      /* dims[i] >= 0, or NPU_DIM_DYNAMIC */
} npu_shape;

/* Number of elements, or 0 when a dim is dynamic or the count overflows. */
uint64_t npu_shape_elements(const npu_shape *shape);

/* Longest layout string kept, including the NUL ("NCHW", "NC", "N...C"). */
#define NPU_LAYOUT_MAX 16

/* Description of a model input or output (or IR port), owned by the object
 * that returned it. */
typedef struct npu_tensor_desc {
    const char *name;                /* never NULL; "" if unnamed */
    npu_type type;
    npu_shape shape;
    char layout[NPU_LAYOUT_MAX];     /* "" when unknown */
    uint64_t bytes;                  /* type size x elements (batch 1 if dynamic) */
} npu_tensor_desc;

/* ==== Shared by sections 7 and 8: the NGRAPH_LITE payload ================ */
/* The buffer the driver's compiler takes with ZE_GRAPH_FORMAT_NGRAPH_LITE comes in
 * two layouts (docs/ir.md):
 *  - NO_WEIGHTS_COPY ("B", the default): a 48-byte header, the compiler version,
 *    a constants blob with only the constants smaller than the threshold, then the
 *    IR XML in which every other Const carries the address and byte size of its
 *    data (WeightsPointerAttribute mp/ms). Size and build time depend on the
 *    number of nodes, not on weight bytes.
 *  - WEIGHTS_COPY ("A"): compiler version, section count 2, XML, then all
 *    weights copied.
 * Lifetime rule for layout B: the constant memory the payload points at must
 * stay alive and unchanged until the compile call that consumes the payload has
 * returned. */
typedef enum npu_payload_layout {
    NPU_PAYLOAD_DEFAULT = 0,           /* NO_WEIGHTS_COPY when writing a payload; when
                                          compiling, whatever the driver advertises */
    NPU_PAYLOAD_NO_WEIGHTS_COPY = 1,   /* layout B */
    NPU_PAYLOAD_WEIGHTS_COPY = 2       /* layout A */
} npu_payload_layout;

/* (major << 16) | minor, as the graph extension's compiler version. */
#define NPU_COMPILER_VERSION(major, minor) ((((uint32_t)(major)) << 16) | ((uint32_t)(minor) & 0xffffu))

typedef struct npu_payload_options {
    npu_payload_layout layout;
    /* Layout B only: constants with fewer bytes than this are copied into the
     * payload's constants blob; the rest are passed by pointer. 0 (default):
     * every constant by pointer. */
    uint64_t weights_threshold_bytes;
    /* Compiler version to stamp into the payload; the driver's compiler refuses a
     * payload whose version differs from its own. 0 is an error when writing a
     * payload by hand; the compile path (section 9) fills it from the device. */
    uint32_t compiler_version;
} npu_payload_options;

#include "parts/graph.h"
#include "parts/irload.h"
#include "parts/l0.h"
#include "parts/cache.h"

#ifdef __cplusplus
}
#endif
#endif /* NPU_H */
