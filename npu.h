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
 *   9. Device, model, request           (Level Zero; batching and the cache)
 *  10. Inspecting a blob                (the metadata tail of exported blobs)
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
 * - Stack: every function declared here uses at most NPU_STACK_BUDGET bytes of
 *   the calling thread's stack, and no function in npu.c has a frame over 1 KiB. This
 *   counts everything npu.c runs, not the Level Zero loader and driver, libc,
 *   or the caller's callbacks (logger, sinks). Large transient structures (the
 *   driver's argument tables, the IR walker, the cache writer, file paths) are
 *   arena scratch, counted by the size queries and handed back before the call
 *   returns. `make check-stack` computes every public function's worst case
 *   from gcc's call graph (-fcallgraph-info, at -O2 and -Os) and fails above
 *   these bounds.
 *
 * Building: C11. npu.c needs only this header, libc (POSIX for files and
 * clocks) and, unless NPU_NO_LEVEL_ZERO, the Level Zero loader headers
 * (pkg-config level-zero). Leave out what a program does not use by defining,
 * for npu.c and for every file that includes this header alike:
 *   NPU_NO_LEVEL_ZERO  only the graph and IR parts (sections 1-8), without the
 *                      Level Zero loader; section 9 answers NPU_ERR_NO_LEVEL_ZERO.
 *   NPU_NO_GRAPH       no graph builder or IR writer: sections 6 and 7 and
 *                      npu_model_compile_graph(_size) are not declared.
 *   NPU_NO_IR          no IR loader: section 8 and npu_model_compile_ir(_size)
 *                      are not declared. With both NO_GRAPH and NO_IR a
 *                      program imports blobs (or compiles its own payloads).
 *   NPU_NO_CACHE       no model cache: a compile with a cache_dir fails with
 *                      NPU_ERR_UNSUPPORTED (declarations are unchanged, so
 *                      every build has the same structs).
 *   NPU_NO_MESSAGES    no message text and no formatting: every status stays
 *                      exact, and the context's message (and the logger's
 *                      error line) is the failing site, "npu.c:<line>"; the
 *                      logger gets errors only; npu_model_info's batch_reason
 *                      and cache_note hold a site too. NPU_ERROR_MAX is 32.
 * With -ffunction-sections -fdata-sections -Wl,--gc-sections a program also
 * links only the functions it calls: one that compiles only graphs does not
 * link the IR loader, and the other way round. `make size` measures what npu
 * adds to three small programs (blob import, IR + cache, graph) built so.
 */
#ifndef NPU_H
#define NPU_H

#include <stddef.h>
#include <stdint.h>

/* Linkage of every function declared here. Default: external. To use npu as
 * a single file (one translation unit that #includes npu.c, nothing exported),
 * define NPU_STATIC before the #include: NPU_API is then `static` (marked
 * maybe-unused where the compiler knows how, so -Wunused-function stays
 * quiet). Or define NPU_API yourself (a visibility attribute for a shared
 * library). ABI policy: see "ABI" at the end of this header. */
#ifndef NPU_API
#if defined(NPU_STATIC) && (defined(__GNUC__) || defined(__clang__))
#define NPU_API static __attribute__((unused))
#elif defined(NPU_STATIC)
#define NPU_API static
#else
#define NPU_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ==== 1. Versions ======================================================== */

/* Words at the end of every option and info struct, zero today: later
 * versions put new fields there without changing the struct's size. */
#define NPU_RESERVED_WORDS 8

/* Stack bounds (see "Stack" above): bytes of the caller's thread stack. */
#define NPU_STACK_BUDGET 4096
/* Arena scratch npu_ir_size() and npu_ir_size_file() need (the XML walker's
 * state; an upper bound on every platform, checked at compile time). */
#define NPU_IR_SIZE_SCRATCH 12288

#define NPU_VERSION_MAJOR 0
#define NPU_VERSION_MINOR 1
#define NPU_VERSION_PATCH 0
#define NPU_VERSION_STRING "0.1.0"
/* The version as one comparable number: (major << 16) | (minor << 8) | patch. */
#define NPU_VERSION ((NPU_VERSION_MAJOR << 16) | (NPU_VERSION_MINOR << 8) | NPU_VERSION_PATCH)

/* The version of the compiled library, NPU_VERSION's encoding. Compare it with
 * NPU_VERSION to detect a header/library mismatch. Thread-safe. */
NPU_API uint32_t npu_version(void);
/* The same as a static string, e.g. "0.1.0". Thread-safe. */
NPU_API const char *npu_version_string(void);

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
NPU_API const char *npu_status_string(npu_status status);

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
NPU_API npu_status npu_arena_init(npu_arena *arena, void *memory, size_t capacity);

/* Bytes in use; bytes still free. NULL arena gives 0. */
NPU_API size_t npu_arena_used(const npu_arena *arena);
NPU_API size_t npu_arena_remaining(const npu_arena *arena);

/* Rewinds the arena to an earlier npu_arena_used() value. Objects carved after
 * that point are gone: the caller must not use them again (and must have
 * destroyed any that hold driver resources). A mark beyond `used` is ignored. */
NPU_API void npu_arena_rewind(npu_arena *arena, size_t mark);

/* ==== 4. Contexts ======================================================== */
/* A context keeps the last error message and the optional logger. Objects
 * remember the context they were created with and report into it.
 * Several threads may report into one context: status codes are always exact,
 * and the message is always one writer's whole message (a lock inside the
 * context; no global state), the last one's. Read it with
 * npu_context_copy_error when other threads may be writing; give each thread
 * its own context when each needs its own message. */
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
    uint32_t reserved[NPU_RESERVED_WORDS];   /* zero: room for later options (see "ABI") */
} npu_context_options;

/* Bytes npu_context_create takes from an arena (at NPU_ARENA_ALIGN). */
NPU_API size_t npu_context_size(void);

/* Creates a context in `arena`. options may be NULL (silent). The context lives
 * as long as the arena memory; it holds no resources.
 * Errors: NPU_ERR_INVALID_ARGUMENT, NPU_ERR_ARENA_TOO_SMALL (there is no context
 * to hold a message then: the status says it). */
NPU_API npu_status npu_context_create(npu_arena *arena, const npu_context_options *options,
                              npu_context **out);

/* The last error message ("" if none) and its status. The message is at most
 * NPU_ERROR_MAX - 1 bytes; longer ones (build logs) are cut. The pointer stays
 * valid for the context's life; the text changes with the next error. With
 * NPU_NO_MESSAGES the message is the failing site, "npu.c:<line>", and the
 * context's buffer is 32 bytes. NPU_ERROR_MAX may be defined (the same for
 * npu.c and its users) to size the buffer: messages are cut to fit. */
#ifndef NPU_ERROR_MAX
#ifdef NPU_NO_MESSAGES
#define NPU_ERROR_MAX 32
#else
#define NPU_ERROR_MAX 4096
#endif
#endif
NPU_API const char *npu_context_last_error(const npu_context *ctx);
NPU_API npu_status npu_context_last_status(const npu_context *ctx);
NPU_API void npu_context_clear_error(npu_context *ctx);

/* Copies the last error message (cut to cap - 1 bytes, NUL-terminated) into
 * dst and returns its status, both from the same error even while other
 * threads report into ctx (npu_context_last_error's text may change while it
 * is being read). dst may be NULL (cap 0): the status only.
 * NPU_ERR_INVALID_ARGUMENT (and "" in dst) for a NULL ctx. Thread-safe. */
NPU_API npu_status npu_context_copy_error(const npu_context *ctx, char *dst, size_t cap);

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
NPU_API size_t npu_type_size(npu_type type);
/* OpenVINO's element type name: "f32", "f16", "bf16", "i8", "u8", "i32", "i64",
 * "boolean"; "undefined" for anything else. Thread-safe. */
NPU_API const char *npu_type_name(npu_type type);

#define NPU_MAX_RANK 8
/* A dimension whose value is known only at run time (IR "?" or -1). Only the
 * batch axis may be dynamic. */
#define NPU_DIM_DYNAMIC (-1)

typedef struct npu_shape {
    uint32_t rank;                   /* 0 = scalar */
    int64_t dims[NPU_MAX_RANK];      /* dims[i] >= 0, or NPU_DIM_DYNAMIC */
} npu_shape;

/* Number of elements, or 0 when a dim is dynamic or the count overflows. */
NPU_API uint64_t npu_shape_elements(const npu_shape *shape);

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
    uint32_t reserved[NPU_RESERVED_WORDS];   /* zero: room for later options (see "ABI") */
} npu_payload_options;

/* Longest node, graph or variable name, including the NUL (the driver's
 * argument-name field has this size). */
#define NPU_NAME_MAX 256

/* ==== Shared by sections 6 and 8: preprocessing in the model ============= */
/* What a caller feeds an input (npu_preprocess) or wants from an output
 * (npu_postprocess) when it differs from what the model declares. The
 * library inserts the operations OpenVINO's PrePostProcessor inserts into
 * the model before it is compiled, so the NPU does the work and the caller's
 * buffer (e.g. a camera frame, u8 interleaved HWC, of its own size) goes in
 * as it is, with no host-side copy. See npu_ir_set_preprocess and
 * docs/guide.md, "Preprocessing". */
typedef enum npu_resize_algorithm {
    NPU_RESIZE_NONE = 0,      /* the frame has the model's height and width */
    NPU_RESIZE_NEAREST = 1,   /* Interpolate-11 mode "nearest" */
    NPU_RESIZE_LINEAR = 2     /* Interpolate-11 mode "linear" */
} npu_resize_algorithm;

typedef enum npu_color_conversion {
    NPU_COLOR_AS_MODEL = 0,     /* the frame's channels are in the model's order */
    NPU_COLOR_REVERSED = 1,     /* BGR <-> RGB: the channel axis is reversed */
    NPU_COLOR_RGB_TO_GRAY = 2,  /* the frame has 3 channels R,G,B; the model 1 */
    NPU_COLOR_BGR_TO_GRAY = 3   /* the frame has 3 channels B,G,R; the model 1 */
} npu_color_conversion;

/* Most channels a mean or scale list gives. */
#define NPU_PREPROCESS_MAX_CHANNELS 4

typedef struct npu_preprocess {
    npu_type type;           /* element type of the caller's buffer; UNDEFINED: the model's */
    const char *layout;      /* the buffer's layout, one letter per axis ("NHWC"), the same
                                letters as the model input's layout; NULL or "": the model's.
                                Copied. */
    uint32_t height, width;  /* the buffer's H and W; 0: the model's */
    npu_resize_algorithm resize;  /* needed when height/width differ from the model's */
    npu_color_conversion color;
    /* mean (subtracted) and scale (divided by), applied in that order after
     * the colour conversion and the resize: 0 values = none, 1 value = every
     * channel, or one value per channel of the model (in the model's channel
     * order). A scale of 0 is refused. */
    uint32_t n_mean;
    float mean[NPU_PREPROCESS_MAX_CHANNELS];
    uint32_t n_scale;
    float scale[NPU_PREPROCESS_MAX_CHANNELS];
    uint32_t reserved[NPU_RESERVED_WORDS];   /* zero (see "ABI") */
} npu_preprocess;

typedef struct npu_postprocess {
    npu_type type;           /* element type the caller reads; UNDEFINED: the model's */
    const char *layout;      /* layout the caller reads (a permutation of the model
                                output's layout letters); NULL or "": the model's. Copied. */
    uint32_t reserved[NPU_RESERVED_WORDS];   /* zero (see "ABI") */
} npu_postprocess;

/* Bytes each npu_*_set_preprocess / _set_postprocess call takes from the
 * arena it is given (exactly this, NPU_ARENA_ALIGN aligned). */
#define NPU_PREPROCESS_BYTES 4096

#ifndef NPU_NO_GRAPH
/* ==== 6. Graph builder =================================================== */
/* Build a model in C, op by op, with OpenVINO opset semantics; then write it as
 * an OpenVINO IR v11 (section 7) for the driver's compiler.
 *
 *   npu_graph *g;
 *   npu_graph_create(&arena, ctx, NULL, &g);
 *   npu_shape s = {4, {1, 3, 224, 224}};
 *   npu_node *x = npu_graph_parameter(g, "x", NPU_F32, &s, "NCHW");
 *   npu_node *w = npu_graph_constant(g, "w", NPU_F32, &ws, weights, sizeof weights);
 *   npu_node *y = npu_graph_relu(g, npu_graph_convolution(g, x, w, NULL, "conv"), NULL);
 *   npu_graph_result(g, y, "y");
 *   if (npu_graph_status(g) != NPU_OK) puts(npu_context_last_error(ctx));
 *
 * Errors are sticky. Every op returns its node, or NULL on failure; the graph
 * keeps the first failure (npu_graph_status) and the context gets a message
 * naming the op, the node, the input and the shapes ("Add 'sum': input 1 has
 * shape [2,3], input 0 has shape [4,3]"). A later op given that NULL fails too,
 * with a message that quotes the first failure, so a whole block of builder
 * calls can be checked once at the end. The writers (section 7) refuse a graph
 * whose status is not NPU_OK.
 *
 * A failed op leaves the graph exactly as it was: no node is added, the arena
 * is rewound, and the graph stays usable.
 *
 * Type and shape inference runs when an op is added; every node has its output
 * element type and shape from then on (npu_node_type, npu_node_shape). Each
 * node has one output.
 *
 * Names: every node has a unique name. Pass NULL for an automatic one ("Add_3":
 * the op and the node's index, with a "_1", "_2" suffix on a clash). A name you
 * pass must be unique in the graph and shorter than NPU_NAME_MAX bytes. A
 * Parameter's name is also its input tensor name; a Result's name is its output
 * name (written as the tensor name of the port that feeds it).
 *
 * Dynamic shapes: only the batch axis of a Parameter (or ReadValue variable) may
 * be NPU_DIM_DYNAMIC: the axis the layout names 'N', or axis 0 without a layout
 * or without 'N'. Inference carries the dynamic dim through the graph. Only a
 * dynamic dim on an axis a layout names 'N' is debatched by npu; without one the
 * compiler gets the dynamic model as it is (see "Batching").
 *
 * Memory (exact): the graph object takes npu_graph_size(options) bytes. Every
 * op then takes, from the same arena,
 *     NPU_ARENA_ROUND(npu_graph_node_size())          the node
 *   + NPU_ARENA_ROUND(strlen(node name) + 1)          its name (given or automatic)
 *   + NPU_ARENA_ROUND(n_inputs * sizeof(void *))      Concat with more than 4 inputs
 *   + NPU_ARENA_ROUND(strlen(variable_id) + 1)        ReadValue
 * and ops whose attribute becomes a constant input in the IR (Reshape target,
 * Squeeze/Unsqueeze/Reduce* axes, Transpose perm) add one Constant node with an
 * automatic name and NPU_ARENA_ROUND(8 * count) bytes for its i64 values (those
 * values live in the graph's arena; the caller's array is not kept). Pad,
 * Slice, Interpolate and Swish (beta != 1) add one such Constant per array or
 * scalar they take, each NPU_ARENA_ROUND(count x element size) bytes (i64
 * pads, bounds, sizes and axes; f32 scales; x's type for a pad value or beta),
 * and npu_graph_set_preprocess / _set_postprocess add the nodes of their plan.
 * The simplest exact recipe: build the graph once in a big arena, read
 * npu_graph_bytes_used(); the same calls always take the same bytes.
 *
 * Threads: a graph and its nodes are used by one thread at a time. Constant data
 * is never copied: the caller keeps it alive and unchanged while the graph is
 * written and until the compile call that consumes the payload returns. */

typedef struct npu_graph npu_graph;
typedef struct npu_node npu_node;

/* Spatial axes of convolution and pooling attributes (input rank - 2). */
#define NPU_MAX_SPATIAL (NPU_MAX_RANK - 2)

typedef struct npu_graph_options {
    const char *name;      /* model name (<net name=...>); NULL: "npu_graph" */
    uint32_t max_nodes;    /* 0: no limit; otherwise adding more nodes gives
                              NPU_ERR_LIMIT (implicit constants count too) */
    uint32_t reserved[NPU_RESERVED_WORDS];   /* zero: room for later options (see "ABI") */
} npu_graph_options;

/* Bytes npu_graph_create takes from an arena with these options (NULL:
 * defaults). 0 if the name is too long. Thread-safe. */
NPU_API size_t npu_graph_size(const npu_graph_options *options);
/* Bytes each node takes before its name (see "Memory" above). Thread-safe. */
NPU_API size_t npu_graph_node_size(void);

/* Creates an empty graph in `arena`; nodes are carved from the same arena as
 * they are added, so the arena must outlive the graph and must not be rewound
 * below the graph's allocations while the graph is in use. ctx (may be NULL)
 * receives the messages. options may be NULL.
 * Errors: NPU_ERR_INVALID_ARGUMENT (arena or out NULL), NPU_ERR_LIMIT (name too
 * long), NPU_ERR_ARENA_TOO_SMALL. */
NPU_API npu_status npu_graph_create(npu_arena *arena, npu_context *ctx, const npu_graph_options *options,
                            npu_graph **out);

/* Bytes the graph and all its nodes have taken from the arena so far. */
NPU_API size_t npu_graph_bytes_used(const npu_graph *g);
/* The first failure of any builder op (NPU_OK if none; NPU_ERR_INVALID_ARGUMENT
 * for a NULL graph) and its message ("" if none; valid as long as the graph). */
NPU_API npu_status npu_graph_status(const npu_graph *g);
NPU_API const char *npu_graph_first_error(const npu_graph *g);
/* Forgets the sticky failure (for callers that handled it, e.g. retried the op
 * in a bigger arena). */
NPU_API void npu_graph_clear_status(npu_graph *g);
/* The model name, the number of nodes (implicit constants included). */
NPU_API const char *npu_graph_name(const npu_graph *g);
NPU_API uint32_t npu_graph_node_count(const npu_graph *g);

/* Node facts. NULL node: "" / NPU_TYPE_UNDEFINED / NPU_ERR_INVALID_ARGUMENT. */
NPU_API const char *npu_node_name(const npu_node *node);
NPU_API npu_type npu_node_type(const npu_node *node);
NPU_API npu_status npu_node_shape(const npu_node *node, npu_shape *out);

/* ---- Sources and sinks ---- */

/* A model input. layout (may be NULL) as in npu_graph_set_layout. shape is
 * copied. Dynamic dims: see above. */
NPU_API npu_node *npu_graph_parameter(npu_graph *g, const char *name, npu_type type, const npu_shape *shape,
                              const char *layout);
/* A constant. `data` (never NULL) holds `bytes` bytes, which must equal
 * npu_type_size(type) x elements of the static shape (at least one element).
 * The pointer is kept, not the bytes: see the lifetime rule above. */
NPU_API npu_node *npu_graph_constant(npu_graph *g, const char *name, npu_type type, const npu_shape *shape,
                             const void *data, size_t bytes);
/* A model output; outputs are numbered in the order Results are added. */
NPU_API npu_node *npu_graph_result(npu_graph *g, npu_node *value, const char *name);

/* Sets the layout of a Parameter or Result: one letter A-Z or '?' per axis
 * ("NCHW", "NC", "N?C"), each letter once; NULL or "" clears it. 'N' names the
 * batch axis. Written to the IR as the port's layout rt_info ("[N,C,H,W]"); for a
 * Result on its input port. Errors: NPU_ERR_INVALID_ARGUMENT (not a Parameter or
 * Result, bad letters, length != rank, a Parameter's dynamic dim not on the
 * new batch axis); the node is unchanged then. Not sticky. */
NPU_API npu_status npu_graph_set_layout(npu_node *node, const char *layout);

/* Pre- and postprocessing of a graph's input / output: the same operations,
 * rules and errors as npu_ir_set_preprocess / npu_ir_set_postprocess (section
 * 8, which documents each step), inserted as nodes between the Parameter and
 * what reads it (or between the Result and what it reads). The Parameter (or
 * Result) then describes the caller's tensor: npu_graph_input/_output, and
 * after compiling npu_model_input/_output. The graph may be compiled any
 * number of times after, and npu_graph_set_batch rewrites the new input's
 * batch (the 'N' of pp->layout).
 * Memory: NPU_PREPROCESS_BYTES from `arena` for the plan (it may be the
 * graph's arena), plus the inserted nodes from the graph's arena; pp is
 * copied. Errors (the graph, its arena and `arena` are then as they were, and
 * the graph's status stays NPU_OK): NPU_ERR_INVALID_ARGUMENT (NULL argument,
 * reserved words, the plan's refusals as in section 8, naming the input),
 * NPU_ERR_NOT_FOUND (no such input/output), NPU_ERR_STATE (already set for it,
 * or the graph's status is an error), NPU_ERR_ARENA_TOO_SMALL.
 * Threads: not with other calls on the same graph. Stack: within
 * NPU_STACK_BUDGET. */
NPU_API npu_status npu_graph_set_preprocess(npu_graph *g, npu_arena *arena, uint32_t input, const npu_preprocess *pp);
NPU_API npu_status npu_graph_set_postprocess(npu_graph *g, npu_arena *arena, uint32_t output,
                                             const npu_postprocess *pp);

/* ---- Element-wise and activation ops (opset1; Softmax opset8) ---- */

/* destination_type `to`; same shape. */
NPU_API npu_node *npu_graph_convert(npu_graph *g, npu_node *x, npu_type to, const char *name);
/* Binary ops with numpy broadcasting; both inputs must have the same type. */
NPU_API npu_node *npu_graph_add(npu_graph *g, npu_node *a, npu_node *b, const char *name);
NPU_API npu_node *npu_graph_subtract(npu_graph *g, npu_node *a, npu_node *b, const char *name);
NPU_API npu_node *npu_graph_multiply(npu_graph *g, npu_node *a, npu_node *b, const char *name);
NPU_API npu_node *npu_graph_divide(npu_graph *g, npu_node *a, npu_node *b, const char *name);
NPU_API npu_node *npu_graph_maximum(npu_graph *g, npu_node *a, npu_node *b, const char *name);
NPU_API npu_node *npu_graph_minimum(npu_graph *g, npu_node *a, npu_node *b, const char *name);
NPU_API npu_node *npu_graph_relu(npu_graph *g, npu_node *x, const char *name);
NPU_API npu_node *npu_graph_sigmoid(npu_graph *g, npu_node *x, const char *name);
NPU_API npu_node *npu_graph_tanh(npu_graph *g, npu_node *x, const char *name);
NPU_API npu_node *npu_graph_exp(npu_graph *g, npu_node *x, const char *name);
NPU_API npu_node *npu_graph_sqrt(npu_graph *g, npu_node *x, const char *name);
/* min <= max. */
NPU_API npu_node *npu_graph_clamp(npu_graph *g, npu_node *x, double min, double max, const char *name);
/* axis in [-rank, rank-1]; floating-point types only. */
NPU_API npu_node *npu_graph_softmax(npu_graph *g, npu_node *x, int64_t axis, const char *name);

/* MatMul with OpenVINO's rules: a 1-D input is a row (a) or column (b) vector
 * and its axis is removed from the output (transpose is ignored for it);
 * transpose_a/b swap the last two axes; batch axes broadcast (numpy). */
NPU_API npu_node *npu_graph_matmul(npu_graph *g, npu_node *a, npu_node *b, int transpose_a,
                           int transpose_b, const char *name);

/* ---- Convolution and pooling (opset1) ---- */

typedef enum npu_auto_pad {
    NPU_PAD_EXPLICIT = 0,    /* pads_begin / pads_end as given */
    NPU_PAD_VALID = 1,       /* no padding */
    NPU_PAD_SAME_UPPER = 2,  /* output = ceil(input / stride); extra pad at the end */
    NPU_PAD_SAME_LOWER = 3   /* the same, extra pad at the beginning */
} npu_auto_pad;

/* Arrays hold one value per spatial axis (input rank - 2); a zero-initialized
 * struct (or NULL) means strides 1, dilations 1, no padding. A stride or
 * dilation of 0 means 1. With auto_pad other than EXPLICIT the pads are
 * ignored (and written as 0, as OpenVINO does). */
typedef struct npu_conv_params {
    int64_t strides[NPU_MAX_SPATIAL];
    int64_t dilations[NPU_MAX_SPATIAL];
    int64_t pads_begin[NPU_MAX_SPATIAL];
    int64_t pads_end[NPU_MAX_SPATIAL];
    npu_auto_pad auto_pad;
} npu_conv_params;

/* x [N, C, spatial...], weights [C_out, C, kernel...]. */
NPU_API npu_node *npu_graph_convolution(npu_graph *g, npu_node *x, npu_node *weights,
                                const npu_conv_params *params, const char *name);
/* x [N, G*C_in, spatial...], weights [G, C_out, C_in, kernel...]; output
 * channels G*C_out. */
NPU_API npu_node *npu_graph_group_convolution(npu_graph *g, npu_node *x, npu_node *weights,
                                      const npu_conv_params *params, const char *name);

typedef enum npu_rounding {
    NPU_ROUND_FLOOR = 0,
    NPU_ROUND_CEIL = 1
} npu_rounding;

/* kernel is required (every entry >= 1); strides 0 mean 1. */
typedef struct npu_pool_params {
    int64_t kernel[NPU_MAX_SPATIAL];
    int64_t strides[NPU_MAX_SPATIAL];
    int64_t pads_begin[NPU_MAX_SPATIAL];
    int64_t pads_end[NPU_MAX_SPATIAL];
    npu_rounding rounding_type;
    int exclude_pad;             /* AvgPool only: padding not counted */
    npu_auto_pad auto_pad;
} npu_pool_params;

NPU_API npu_node *npu_graph_max_pool(npu_graph *g, npu_node *x, const npu_pool_params *params,
                             const char *name);
NPU_API npu_node *npu_graph_avg_pool(npu_graph *g, npu_node *x, const npu_pool_params *params,
                             const char *name);

/* ---- Shape ops; their arrays become i64 Constant inputs in the IR ---- */

/* axes in [-rank, rank-1], each once; n_axes 0 reduces nothing. */
NPU_API npu_node *npu_graph_reduce_mean(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                                int keep_dims, const char *name);
NPU_API npu_node *npu_graph_reduce_sum(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                               int keep_dims, const char *name);
/* target: rank values; -1 (at most once) is inferred; with special_zero a 0
 * copies the input dim at that index. */
NPU_API npu_node *npu_graph_reshape(npu_graph *g, npu_node *x, const int64_t *target, size_t rank,
                            int special_zero, const char *name);
/* Removes the given axes (each of size 1); n_axes 0 removes every static 1
 * (then no axes input is written). */
NPU_API npu_node *npu_graph_squeeze(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                            const char *name);
/* Inserts size-1 axes; axes index the output (in [-out_rank, out_rank-1]). */
NPU_API npu_node *npu_graph_unsqueeze(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                              const char *name);
/* perm: a permutation of 0..rank-1; n 0 reverses the axes. */
NPU_API npu_node *npu_graph_transpose(npu_graph *g, npu_node *x, const int64_t *perm, size_t n,
                              const char *name);
/* n >= 1 inputs of one type and rank, equal but for `axis`. */
NPU_API npu_node *npu_graph_concat(npu_graph *g, npu_node *const *inputs, size_t n, int64_t axis,
                           const char *name);

/* ---- Activations of mobile and detection networks, quantization, padding,
 * slicing and resampling (the ops of quantized and upsampling models) ----
 *
 * Each is written to the IR as OpenVINO's serializer writes the op of the
 * opset named; the arrays and scalars they take become Constant inputs whose
 * bytes are copied into the graph's arena (unlike npu_graph_constant, nothing
 * is kept of the caller's pointers). On any error the op and those Constants
 * are undone (the arena rewound) and the error is recorded as for every op. */

/* Float activations (f32, f16, bf16 inputs; same shape): HSwish-4
 * x*min(max(x+3,0),6)/6, HSigmoid-5 min(max(x+3,0),6)/6, Mish-4
 * x*tanh(softplus(x)). Gelu-7: approximation_mode ERF (tanh_approximation 0)
 * or TANH. Swish-4: x*sigmoid(beta*x); beta 1 writes no beta input, any other
 * value a scalar Constant of x's type. */
NPU_API npu_node *npu_graph_hswish(npu_graph *g, npu_node *x, const char *name);
NPU_API npu_node *npu_graph_hsigmoid(npu_graph *g, npu_node *x, const char *name);
NPU_API npu_node *npu_graph_mish(npu_graph *g, npu_node *x, const char *name);
NPU_API npu_node *npu_graph_gelu(npu_graph *g, npu_node *x, int tanh_approximation, const char *name);
NPU_API npu_node *npu_graph_swish(npu_graph *g, npu_node *x, double beta, const char *name);
/* Erf-1, Log-1, Floor-1: element-wise on any numeric type. */
NPU_API npu_node *npu_graph_erf(npu_graph *g, npu_node *x, const char *name);
NPU_API npu_node *npu_graph_log(npu_graph *g, npu_node *x, const char *name);
NPU_API npu_node *npu_graph_floor(npu_graph *g, npu_node *x, const char *name);
/* Power-1: a^b with numpy broadcasting; both inputs of one type. */
NPU_API npu_node *npu_graph_power(npu_graph *g, npu_node *a, npu_node *b, const char *name);
/* PRelu-1: x where x >= 0, else slope*x. slope has x's (float) type and is
 * either 1-D of the channel dim's length (axis 1; axis 0 for 1-D x), applied
 * per channel, or broadcasts onto x (numpy) without growing it. */
NPU_API npu_node *npu_graph_prelu(npu_graph *g, npu_node *x, npu_node *slope, const char *name);

typedef enum npu_pad_mode {
    NPU_PAD_MODE_CONSTANT = 0,    /* the value */
    NPU_PAD_MODE_EDGE = 1,        /* repeats the edge element */
    NPU_PAD_MODE_REFLECT = 2,     /* mirrors without the edge: pads < the axis length */
    NPU_PAD_MODE_SYMMETRIC = 3    /* mirrors with the edge: pads <= the axis length */
} npu_pad_mode;

/* Pad-12: rank values each in pads_begin and pads_end (rank = x's rank);
 * a negative pad crops. Output axis i: dim + begin[i] + end[i], which must not
 * be negative. value (constant mode only) must be representable in x's type
 * (an integer type takes an integral value in range); it is written as a
 * scalar Constant, unless it is 0. */
NPU_API npu_node *npu_graph_pad(npu_graph *g, npu_node *x, const int64_t *pads_begin, const int64_t *pads_end,
                                size_t rank, npu_pad_mode mode, double value, const char *name);
/* Slice-8: for each of n axes (axes NULL: 0..n-1; negative axes count from
 * the end, each axis once) x[start:stop:step] as OpenVINO computes it:
 * negative start/stop count from the end, both are clamped to the axis, step
 * != 0 (negative: backwards). n <= x's rank. */
NPU_API npu_node *npu_graph_slice(npu_graph *g, npu_node *x, const int64_t *start, const int64_t *stop,
                                  const int64_t *step, const int64_t *axes, size_t n, const char *name);
/* FakeQuantize-1 (auto_broadcast numpy): x, and the four range inputs of x's
 * float type, each broadcastable onto x (a scalar or per-channel [1,C,1,1]
 * Constant, as NNCF writes them); levels >= 2 (256 for 8 bits). */
NPU_API npu_node *npu_graph_fake_quantize(npu_graph *g, npu_node *x, npu_node *input_low, npu_node *input_high,
                                          npu_node *output_low, npu_node *output_high, uint32_t levels,
                                          const char *name);

typedef enum npu_interpolate_mode {
    NPU_INTERPOLATE_NEAREST = 0,
    NPU_INTERPOLATE_LINEAR = 1,
    NPU_INTERPOLATE_LINEAR_ONNX = 2
} npu_interpolate_mode;

typedef enum npu_interpolate_coord {   /* coordinate_transformation_mode */
    NPU_COORD_HALF_PIXEL = 0,
    NPU_COORD_PYTORCH_HALF_PIXEL = 1,
    NPU_COORD_ASYMMETRIC = 2,
    NPU_COORD_TF_HALF_PIXEL_FOR_NN = 3,
    NPU_COORD_ALIGN_CORNERS = 4
} npu_interpolate_coord;

typedef enum npu_interpolate_nearest {   /* nearest_mode (mode NEAREST only) */
    NPU_NEAREST_ROUND_PREFER_FLOOR = 0,
    NPU_NEAREST_ROUND_PREFER_CEIL = 1,
    NPU_NEAREST_FLOOR = 2,
    NPU_NEAREST_CEIL = 3,
    NPU_NEAREST_SIMPLE = 4
} npu_interpolate_nearest;

/* Interpolate-11 on n_axes axes of x (axes: each in [-rank, rank-1], once).
 * Exactly one of sizes (n_axes output lengths >= 1, shape_calculation_mode
 * sizes) and scales (n_axes factors > 0, mode scales: output length
 * floor(length * (scale + 1e-6)) as OpenVINO computes it, which must be >= 1)
 * is non-NULL. The arrays are copied. No padding, antialias false. */
typedef struct npu_interpolate_params {
    npu_interpolate_mode mode;
    npu_interpolate_coord coord;
    npu_interpolate_nearest nearest;
    const int64_t *axes;
    size_t n_axes;
    const int64_t *sizes;
    const float *scales;
    uint32_t reserved[NPU_RESERVED_WORDS];   /* zero: room for later options (see "ABI") */
} npu_interpolate_params;

NPU_API npu_node *npu_graph_interpolate(npu_graph *g, npu_node *x, const npu_interpolate_params *params,
                                        const char *name);

/* ---- State (opset6 ReadValue / Assign) ---- */

/* Declares state variable `variable_id` (unique, < NPU_NAME_MAX bytes) of this
 * type and shape and reads it. init (may be NULL) gives the initial value and
 * must have that type and shape. Each ReadValue is one state of the model. */
NPU_API npu_node *npu_graph_read_value(npu_graph *g, npu_node *init, const char *variable_id,
                               npu_type type, const npu_shape *shape, const char *name);
/* Writes `value` to the variable a ReadValue declared (once per variable); value
 * must have the variable's type and shape. */
NPU_API npu_node *npu_graph_assign(npu_graph *g, npu_node *value, const char *variable_id,
                           const char *name);

/* ---- Introspection (used by the device section) ---- */

/* Inputs (Parameters) and outputs (Results) in the order they were added, and
 * state variables (ReadValues) in order. The desc's name points into the graph.
 * For a state, name is the variable id. bytes counts a dynamic dim as 1.
 * Errors: NPU_ERR_INVALID_ARGUMENT, NPU_ERR_NOT_FOUND (index out of range). */
NPU_API uint32_t npu_graph_input_count(const npu_graph *g);
NPU_API npu_status npu_graph_input(const npu_graph *g, uint32_t index, npu_tensor_desc *out);
NPU_API uint32_t npu_graph_output_count(const npu_graph *g);
NPU_API npu_status npu_graph_output(const npu_graph *g, uint32_t index, npu_tensor_desc *out);
NPU_API uint32_t npu_graph_state_count(const npu_graph *g);
NPU_API npu_status npu_graph_state(const npu_graph *g, uint32_t index, npu_tensor_desc *out);

/* ---- Batch ---- */

/* Sets the batch axis (see "Dynamic shapes") of every Parameter of rank >= 1 to
 * `batch` (>= 1, or NPU_DIM_DYNAMIC) and re-infers every node in order. On
 * failure (e.g. a Reshape whose fixed target no longer fits) the graph keeps its
 * previous shapes and the message names the node. Not sticky. */
NPU_API npu_status npu_graph_set_batch(npu_graph *g, int64_t batch);
/* The batch of the Parameters: their common batch dim, NPU_DIM_DYNAMIC if it
 * is dynamic in all, 0 if they disagree or there is no Parameter. */
NPU_API int64_t npu_graph_batch(const npu_graph *g);

/* ==== 7. IR payload writer =============================================== */
/* Writes the graph as OpenVINO IR v11, the way OpenVINO's serializer does
 * (layers in the order Parameters, other ops, Assigns, Results; ids in that
 * order; ports numbered inputs first; model rt_info is_new_api and
 * use_indices_for_io_metadata = true).
 *
 * Constants (npu_payload_options):
 *  - layout B (NO_WEIGHTS_COPY, the default): a Constant of at least
 *    weights_threshold_bytes bytes is written with offset="0" and a
 *    WeightsPointerAttribute rt_info carrying its address (mp) and byte size
 *    (ms), in decimal; smaller ones are packed, in layer order and without
 *    padding, into the payload's constants blob, their offset and size
 *    pointing there. Time and size of the payload depend on the number of nodes
 *    and on the small constants only, never on the pointed-at weights.
 *  - layout A (WEIGHTS_COPY): every Constant is packed in layer order, without
 *    padding, into the weights section, and the XML has offsets into it.
 *
 * All writers follow the size-query convention: dst NULL gives the exact size
 * in *size; a too-small buffer gives NPU_ERR_BUFFER_TOO_SMALL and the size.
 * They only read the graph: distinct threads may write one graph at once.
 * Errors: NPU_ERR_INVALID_ARGUMENT, NPU_ERR_STATE (the graph has a sticky
 * error, or no Result), NPU_ERR_BUFFER_TOO_SMALL, NPU_ERR_OVERFLOW. */

/* The NGRAPH_LITE payload for the driver's compiler. opts must give a
 * compiler_version (0: NPU_ERR_INVALID_ARGUMENT). */
NPU_API npu_status npu_graph_write_payload(const npu_graph *g, const npu_payload_options *opts, void *dst,
                                   size_t cap, size_t *size);
/* Just the IR XML that the payload with these options carries (opts may be
 * NULL: layout B, threshold 0). With layout A it pairs with npu_graph_write_bin
 * as a model.xml / model.bin that OpenVINO reads. */
NPU_API npu_status npu_graph_write_xml(const npu_graph *g, const npu_payload_options *opts, void *dst,
                               size_t cap, size_t *size);
/* Every constant packed in layer order (the layout-A weights, i.e. model.bin). */
NPU_API npu_status npu_graph_write_bin(const npu_graph *g, void *dst, size_t cap, size_t *size);
#endif /* NPU_NO_GRAPH */

#ifndef NPU_NO_IR
/* ==== 8. OpenVINO IR loader ============================================== */
/* Loads an OpenVINO IR (model.xml + model.bin, IR version 10 or 11, as written by
 * ov::serialize / ovc / mo) and turns it into the NGRAPH_LITE payload the driver's
 * compiler takes, without copying weights in layout B.
 *
 * Where the bytes live:
 *  - npu_ir_open(): both files are mapped read-only with mmap (the .xml too: it is
 *    re-read when a payload is written, and mapping keeps the arena independent of
 *    the file sizes). The mappings are released only by npu_ir_close(). Changing
 *    or truncating the files while they are mapped is undefined (SIGBUS).
 *  - npu_ir_load_memory(): the caller's XML text and weights are used in place;
 *    nothing is copied. Both must stay alive and unchanged while the npu_ir is used
 *    (and, for layout B, until the compile call that consumes a payload returns).
 *  - The npu_ir object, its tables and its strings live in the caller's arena.
 *
 * Arena use: npu_ir_size()/npu_ir_size_file() give the exact capacity a load
 * needs. Loading also takes temporary tables (layers and ports, for the edge
 * checks) from the end of that space and hands them back before returning, so
 * afterwards the arena keeps npu_ir_arena_bytes(ir) <= the queried size.
 *
 * What is checked (every file is treated as hostile): XML well-formedness with
 * our own scanner (elements, both quote kinds, the five named entities and
 * numeric character references, comments, CDATA, processing instructions,
 * self-closing tags; DOCTYPE is refused); the limits below; IR version 10 or 11;
 * every layer id unique in its graph; every edge naming existing layers and an
 * existing output port of its from-layer; every Const's element type, shape,
 * byte size (element count x element size, sub-byte types packed:
 * ceil(count x bits / 8)) and offset + size within the .bin (overflow-safe).
 * Nested graphs (<body> of Loop / TensorIterator / If) are scanned the same way;
 * their Consts are listed and rewritten too. An edge to a missing *input* port of
 * an existing layer is only logged (NPU_LOG_WARN): real IRs written by OpenVINO's
 * own tests contain one (loop_2d_add.xml) and the compiler judges the graph.
 * Errors: NPU_ERR_PARSE for malformed XML or IR structure, NPU_ERR_FORMAT when a
 * Const does not fit the .bin, NPU_ERR_UNSUPPORTED for IR versions other than 10/11,
 * unknown element types, string Consts and dynamic-rank inputs/outputs,
 * NPU_ERR_LIMIT for inputs/outputs of rank > NPU_MAX_RANK. Every message names the
 * file (or "IR XML"), line and column, and the layer when there is one.
 *
 * Element types not in npu_type (u1, u4, i4, f64, string, ...) are loaded: the
 * input/output description then has type NPU_TYPE_UNDEFINED and element_type
 * names the IR type ("string"), so the caller (and the compile path) can refuse
 * it with a clear message. string_parameter.xml therefore loads.
 *
 * Threads: an npu_ir is used by one thread at a time while it is being changed
 * (npu_ir_set_*); npu_ir_write_payload and the accessors only read it and may run
 * on several threads at once (error messages then go to the shared context). */

/* Limits (exceeding one gives NPU_ERR_PARSE naming the limit, unless noted). */
#define NPU_IR_MAX_DEPTH 64             /* element nesting depth */
#define NPU_IR_MAX_NAME 256             /* bytes of an element or attribute name */
#define NPU_IR_MAX_ATTR_VALUE 65536     /* raw bytes of one attribute value */
#define NPU_IR_MAX_ATTRS 64             /* attributes on one element */
#define NPU_IR_MAX_DIMS 32              /* dims of one port or shape attribute */
#define NPU_IR_MAX_DIM_VALUE ((int64_t)1 << 40) /* largest dimension value */
#define NPU_IR_MAX_LAYERS (1u << 22)    /* layers, all graphs together */
#define NPU_IR_MAX_XML_BYTES ((size_t)1 << 30) /* XML text size */

typedef struct npu_ir npu_ir;

/* A model input (top-level Parameter, document order) or output (top-level
 * Result, document order), as the IR describes it. */
typedef struct npu_ir_io {
    npu_tensor_desc desc;       /* desc.name: the layer name. desc.type:
                                   NPU_TYPE_UNDEFINED when the IR type has no npu_type.
                                   desc.shape: NPU_DIM_DYNAMIC for "?", "-1" and bounded
                                   "1..32" dims. desc.layout: from the port's
                                   rt_info layout="[N,C,H,W]" ("NCHW"), or set by
                                   npu_ir_set_layout; "" when unknown. desc.bytes:
                                   dynamic dims count as 1, sub-byte types packed. */
    const char *tensor_names;   /* the port's names="a,b" attribute, decoded ("" if
                                   none). Outputs: the names of the port feeding the
                                   Result. */
    const char *element_type;   /* the IR type name: "f32", "u1", "string", ... */
    uint32_t layer_id;
    int32_t batch_axis;         /* axis npu_ir_set_batch rewrites: where the layout
                                   has N, else 0; -1 for scalars */
} npu_ir_io;

/* A Const layer (document order, nested bodies included). */
typedef struct npu_ir_const {
    const char *name;           /* layer name */
    const char *element_type;   /* IR type name */
    uint32_t layer_id;          /* id within its graph */
    uint32_t graph;             /* 0: the top-level graph; n: the n-th <body> */
    uint64_t offset;            /* as in the IR (bytes into the .bin) */
    uint64_t size;              /* bytes */
    const void *data;           /* weights base + offset; NULL when there are no
                                   weights (then size is 0) */
} npu_ir_const;

/* A variable of ReadValue/Assign layers (first appearance order). */
typedef struct npu_ir_state {
    const char *variable_id;
    uint32_t read_values;       /* ReadValue layers naming it */
    uint32_t assigns;           /* Assign layers naming it */
} npu_ir_state;

/* Exact arena capacity npu_ir_load_memory() needs for this XML (one scan).
 * The scan's state (the XML walker, about 9 KB) is scratch in `scratch`'s
 * free space, handed back before the call returns: the arena is left as it
 * was. It needs NPU_IR_SIZE_SCRATCH bytes at most, and never more than the
 * load itself, so the arena the IR will be loaded into always serves.
 * ctx may be NULL. Errors: those of loading that the XML alone shows
 * (NPU_ERR_PARSE, NPU_ERR_UNSUPPORTED, NPU_ERR_LIMIT), INVALID_ARGUMENT,
 * NPU_ERR_ARENA_TOO_SMALL (scratch too small). Thread-safe for distinct
 * scratch arenas. */
NPU_API npu_status npu_ir_size(npu_arena *scratch, npu_context *ctx, const char *xml, size_t xml_len,
                               size_t *bytes);

/* The same for a file: maps xml_path for the scan and unmaps it. NPU_ERR_IO when
 * the file cannot be opened or mapped. The answer is exact for npu_ir_open of the
 * same (unchanged) file. */
NPU_API npu_status npu_ir_size_file(npu_arena *scratch, npu_context *ctx, const char *xml_path, size_t *bytes);

/* Loads an IR from caller memory. xml/xml_len: the XML text (no terminator
 * needed). weights/weights_size: the .bin contents (NULL/0 for none). Nothing is
 * copied: both must outlive the npu_ir (see the top of this section). On failure
 * the arena is left as it was and *out is NULL. ctx may be NULL (no message); the
 * object reports later errors into it. */
NPU_API npu_status npu_ir_load_memory(npu_arena *arena, npu_context *ctx, const char *xml,
                              size_t xml_len, const void *weights, uint64_t weights_size,
                              npu_ir **out);

/* Loads xml_path and maps bin_path read-only. bin_path NULL: xml_path with its
 * ".xml" suffix replaced by ".bin" (or ".bin" appended); a missing .bin then
 * means "no weights" (any Const with bytes fails with NPU_ERR_FORMAT naming the
 * path). An explicit bin_path that cannot be opened is NPU_ERR_IO. Call
 * npu_ir_close() to unmap. On failure nothing stays mapped and the arena is left
 * as it was. */
NPU_API npu_status npu_ir_open(npu_arena *arena, npu_context *ctx, const char *xml_path,
                       const char *bin_path, npu_ir **out);

/* Releases the mappings of npu_ir_open (no-op for npu_ir_load_memory and NULL).
 * The object and every pointer it returned (names, const data) must not be used
 * afterwards; its arena memory is the caller's to reuse. Payloads written in
 * layout B point into the mapping: close only after compiling them. */
NPU_API void npu_ir_close(npu_ir *ir);

/* Bytes the loaded object keeps in its arena. */
NPU_API size_t npu_ir_arena_bytes(const npu_ir *ir);

/* IR version (10 or 11). */
NPU_API uint32_t npu_ir_version(const npu_ir *ir);
/* The weights the IR was loaded with (mapping base or caller pointer; NULL if none). */
NPU_API const void *npu_ir_weights(const npu_ir *ir, uint64_t *size);

/* Counts and entries. Out-of-range indices (and NULL ir) give NULL. Entries live
 * as long as the npu_ir. */
NPU_API uint32_t npu_ir_input_count(const npu_ir *ir);
NPU_API const npu_ir_io *npu_ir_input(const npu_ir *ir, uint32_t index);
NPU_API uint32_t npu_ir_output_count(const npu_ir *ir);
NPU_API const npu_ir_io *npu_ir_output(const npu_ir *ir, uint32_t index);
NPU_API uint32_t npu_ir_const_count(const npu_ir *ir);
NPU_API const npu_ir_const *npu_ir_const_at(const npu_ir *ir, uint32_t index);
NPU_API uint32_t npu_ir_state_count(const npu_ir *ir);
NPU_API const npu_ir_state *npu_ir_state_at(const npu_ir *ir, uint32_t index);

/* Sets the layout of input (is_output 0) or output (is_output 1) `index`, e.g.
 * "NCHW", "NC", "N...C", "?C" (letters, '?', at most one "..."; without "..."
 * exactly one character per dim). "" clears it. Moves the batch axis to the N,
 * or to 0 when there is none. Errors: NPU_ERR_NOT_FOUND (index),
 * NPU_ERR_INVALID_ARGUMENT (syntax, or rank mismatch: message names the input). */
NPU_API npu_status npu_ir_set_layout(npu_ir *ir, int is_output, uint32_t index, const char *layout);

/* Debatching support: from now on every payload written rewrites the batch dim
 * of every top-level Parameter (its <data shape> entry and its output port's
 * <dim>, at npu_ir_io.batch_axis) to `batch` (>= 1); 0 turns the rewrite off.
 * Only Parameter layers are rewritten: the compiler re-infers every other shape.
 * Constants holding the batch (e.g. a Reshape target [8,-1]) are NOT rewritten:
 * such a model cannot be debatched this way and the compiler will reject it or
 * give wrong shapes. Scalar inputs are left alone.
 * *original_batch (may be NULL) gets the batch the IR declares: N when every
 * input with a batch axis has the same static N, NPU_DIM_DYNAMIC when one of them
 * is dynamic. Errors: NPU_ERR_SHAPE (two inputs declare different static
 * batches; the message names both), NPU_ERR_NOT_FOUND (no input has a batch
 * axis), NPU_ERR_INVALID_ARGUMENT (batch < 0). On error the setting is unchanged. */
NPU_API npu_status npu_ir_set_batch(npu_ir *ir, int64_t batch, int64_t *original_batch);

/* Reshape one input, as OpenVINO's ov::Model::reshape does for benchmark_app's
 * -shape: from now on every payload of this IR declares input `input` with
 * `shape` (its Parameter written anew, as preprocessing writes it), and the
 * compiler re-infers every other shape. This is how a model with dynamic
 * dims (e.g. [1,3,?,?]) gets the static shapes the NPU needs. `shape` must
 * have the input's rank and static dims from 1 to NPU_IR_MAX_DIM_VALUE, but
 * on the batch axis (npu_ir_io.batch_axis), which keeps the IR's dim (static
 * or NPU_DIM_DYNAMIC): the batch is npu_ir_set_batch's. A static dim may
 * change too (whether the model allows it is the compiler's to say). npu_ir_input() then reports the new shape. npu_ir_set_batch and
 * PLUGIN debatching still rewrite the batch axis; npu_ir_set_preprocess may
 * follow on the same input (its model tensor is then the new shape).
 * Memory: exactly NPU_PREPROCESS_BYTES from `arena`, which must outlive every
 * use of the IR. Errors (the IR and the arena then as they were):
 * NPU_ERR_INVALID_ARGUMENT (NULL, another rank, a dim out of range),
 * NPU_ERR_NOT_FOUND (no input `input`), NPU_ERR_STATE (a shape or
 * preprocessing already set for that input, the IR already compiled, or
 * closed), NPU_ERR_UNSUPPORTED (an input whose element type npu does not
 * know), NPU_ERR_ARENA_TOO_SMALL. Threads: like npu_ir_set_layout (changes
 * the IR). Stack: within NPU_STACK_BUDGET. */
NPU_API npu_status npu_ir_set_input_shape(npu_ir *ir, npu_arena *arena, uint32_t input, const npu_shape *shape);

/* Preprocessing (see "Shared by sections 6 and 8: preprocessing"): from now
 * on every payload of this IR feeds input `input` from a tensor of pp's
 * type, layout and height/width, and inserts, as OpenVINO's PrePostProcessor
 * does (src/core/src/preprocess/preprocess_steps_impl.cpp), in this order:
 *   1. Convert-1 to the model input's element type (when pp->type differs);
 *   2. colour: REVERSED: Gather-8 on the channel axis with the indices
 *      C-1..0 (the constant PrePostProcessor's Range folds to); *_TO_GRAY:
 *      Convolution-1 with the 1x1 weights [0.299, 0.587, 0.114] (RGB) or
 *      [0.114, 0.587, 0.299] (BGR), between two Transposes when the
 *      channels are the last axis (rank 4 only);
 *   3. resize: Interpolate-11 (sizes = the model's H and W, axes = the
 *      buffer's H and W axes; shape_calculation_mode "sizes",
 *      coordinate_transformation_mode "half_pixel", nearest_mode
 *      "round_prefer_floor", no antialias, pads 0);
 *   4. mean: Subtract-1; 5. scale: Divide-1 (f32 constants of shape [1] or
 *      1 x .. C .. x 1 in the buffer's layout);
 *   6. the buffer's layout -> the model's: Transpose-1.
 * The input then reports the caller's tensor: npu_ir_input() (type,
 * element_type, shape, layout, bytes), and after compiling,
 * npu_model_input(). Its batch axis is the 'N' of pp->layout; the inserted
 * operations hold for any batch, so npu_ir_set_batch and PLUGIN debatching
 * rewrite the new input's batch as before. The constants are passed by
 * pointer in payload layout B (whatever the threshold) and appended after the
 * .bin's bytes in layout A.
 * Needs: the model input has a static shape (but for its batch) and, unless
 * only the element type changes, a layout with one letter per axis naming C
 * (colour, mean, scale), H and W (height, width, resize). The mean, scale,
 * colour conversion and linear resize need an f32 model input.
 * Memory: exactly NPU_PREPROCESS_BYTES from `arena`, which must outlive every
 * use of the IR (it may be the IR's own arena). pp is copied.
 * Errors (the IR is then unchanged, the arena as it was):
 * NPU_ERR_INVALID_ARGUMENT (NULL argument, reserved words, a layout that does
 * not fit the rank or the model's letters, a mean/scale count, a zero scale,
 * a size that differs without a resize, a colour conversion the channels do
 * not allow; the message names the input), NPU_ERR_NOT_FOUND (no input
 * `input`), NPU_ERR_STATE (preprocessing already set for that input, the IR
 * already written as a payload or compiled, or closed), NPU_ERR_UNSUPPORTED
 * (a dynamic or unknown model input), NPU_ERR_ARENA_TOO_SMALL.
 * Threads: like npu_ir_set_layout (changes the IR). Stack: within
 * NPU_STACK_BUDGET. */
NPU_API npu_status npu_ir_set_preprocess(npu_ir *ir, npu_arena *arena, uint32_t input, const npu_preprocess *pp);
/* Postprocessing of output `output`: Convert-1 to pp->type, then Transpose-1
 * from the model's layout to pp->layout, in front of the Result (OpenVINO's
 * implicit post-processing steps, same order). npu_ir_output() and
 * npu_model_output() then report the caller's tensor. As OpenVINO does, the
 * output's tensor names move to the chain's last layer, which takes the
 * producing layer's name ("<name>.<output index>" for a producer with several
 * outputs), and a one-output producer is renamed "<type>_<id>": the compiled
 * output keeps its name. A producer that is a Parameter or also feeds another
 * output keeps its name and names; the chain's last layer gets copies. A
 * postprocess without a step (the output's own type and layout) changes
 * nothing.
 * Memory, errors and
 * threads as npu_ir_set_preprocess (NPU_ERR_NOT_FOUND: no output `output`). */
NPU_API npu_status npu_ir_set_postprocess(npu_ir *ir, npu_arena *arena, uint32_t output, const npu_postprocess *pp);

/* Writes the NGRAPH_LITE payload (section "Shared by sections 7 and 8"):
 *  - layout B (NPU_PAYLOAD_NO_WEIGHTS_COPY, the default): header, compiler
 *    version, constants blob, XML. In the XML every Const of at least
 *    opts->weights_threshold_bytes bytes gets offset="0" and
 *    <rt_info><attribute name="WeightsPointerAttribute" version="0" mp="ADDR"
 *    ms="BYTES"/></rt_info> (mp = weights base + offset as a decimal number; put
 *    into the Const's existing <rt_info> if it has one); smaller Consts are copied
 *    into the constants blob (in Const order, unpadded) and their offset points
 *    into it. Time and size depend on the XML only, never on the .bin size.
 *  - layout A (NPU_PAYLOAD_WEIGHTS_COPY): the XML unchanged and all weights.
 * The XML is streamed: no DOM, no memory taken. The batch rewrite of
 * npu_ir_set_batch applies to both layouts. opts->compiler_version must be
 * nonzero. dst NULL: *size gets the exact byte count. The payload in layout B
 * holds addresses into the weights: they must stay mapped (npu_ir_close not
 * called) until the compile call that consumes it returns.
 * Errors: NPU_ERR_INVALID_ARGUMENT (ir, size or compiler version), NPU_ERR_BUFFER_TOO_SMALL. */
NPU_API npu_status npu_ir_write_payload(const npu_ir *ir, const npu_payload_options *opts, void *dst,
                                size_t cap, size_t *size);
#endif /* NPU_NO_IR */

/* ==== 9. Device, model, request ========================================== */
/* Runs models on the NPU through the Level Zero loader and the driver's graph
 * extension. The flow follows OpenVINO's C API:
 *
 *   OpenVINO                          npu
 *   ov_core_create                    npu_device_open
 *   ov_core_compile_model             npu_model_compile_graph / _ir / _payload
 *   ov_core_import_model              npu_model_import / npu_model_import_file
 *   ov_compiled_model_export_model    npu_model_export / npu_model_export_file
 *   ov_compiled_model_create_infer_request   npu_request_create
 *   ov_infer_request_get_tensor       npu_request_input / npu_request_output
 *   ov_infer_request_set_tensor       npu_request_set_input_buffer / _output_buffer
 *   ov_infer_request_infer            npu_request_infer
 *   ov_infer_request_start_async      npu_request_start
 *   ov_infer_request_wait_for         npu_request_wait
 *   query_state / reset               npu_request_state_* (section "States")
 *
 *   npu_device *dev;
 *   npu_device_open(&arena, ctx, NULL, &dev);
 *   npu_model *m;
 *   npu_model_compile_graph(dev, &arena, graph, NULL, &m);
 *   npu_request *r;
 *   npu_request_create(m, &arena, NULL, &r);
 *   float *x = npu_request_input(r, 0);     // write the input in place
 *   npu_request_infer(r);
 *   const float *y = npu_request_output(r, 0);
 *   npu_request_destroy(r); npu_model_destroy(m); npu_device_close(dev);
 *
 * Objects and their resources. Each object lives in the caller's arena (exact
 * size queries below) and holds driver objects: destroy in reverse order
 * (requests, then models, then the device) before reusing the arena memory.
 * Every failing call releases every driver object it created and leaves its
 * arena as it was.
 *
 * Errors: a failing Level Zero call gives NPU_ERR_DRIVER whose message names the
 * function and its ze_result_t in hex ("zeCommandListCreate failed:
 * ze_result_t 0x70000002"). No driver: NPU_ERR_NO_DEVICE (see npu_device_open).
 *
 * Threads: a device and a model are shareable: several threads may create
 * requests and run them at once. A request is used by one thread at a time.
 * Recording command lists (npu_request_create, npu_request_set_*_buffer) sets
 * arguments on the model's shared driver graph; the library serializes those
 * recordings per model with a spin lock, and inference itself touches only the
 * request's own command lists and fence plus the (thread-safe) command queue.
 * So, unless a function says otherwise: every npu_device_* and npu_model_*
 * call (compiles, imports, exports, property and info getters) is thread-safe
 * on a shared object; every npu_request_* call must not run at the same time
 * as another call on the same request; npu_*_destroy / npu_device_close must
 * not run at the same time as any other use of that object. Messages of
 * concurrent failures share the context (section 4).
 *
 * Built with NPU_NO_LEVEL_ZERO every function of this section still exists:
 * those returning npu_status return NPU_ERR_NO_LEVEL_ZERO, pointer getters NULL,
 * counts 0, size queries 0. */

typedef struct npu_device npu_device;
typedef struct npu_model npu_model;
typedef struct npu_request npu_request;

/* Most arguments (inputs + outputs + 2 x states) a model may have. */
#define NPU_MAX_ARGS 1024

typedef enum npu_priority {
    NPU_PRIORITY_DEFAULT = 0,    /* the device's (MEDIUM unless the device options say) */
    NPU_PRIORITY_LOW = 1,        /* ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_LOW */
    NPU_PRIORITY_MEDIUM = 2,     /* ZE_COMMAND_QUEUE_PRIORITY_NORMAL */
    NPU_PRIORITY_HIGH = 3        /* ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH */
} npu_priority;

/* Workload type of the queue a model's requests run on (the driver's
 * ZE_extension_command_queue_npu pfnSetWorkloadType): BACKGROUND lowers the
 * queue's scheduling priority, DEFAULT restores it. */
typedef enum npu_workload_type {
    NPU_WORKLOAD_DEFAULT = 0,
    NPU_WORKLOAD_BACKGROUND = 1
} npu_workload_type;

typedef enum npu_performance_hint {
    NPU_HINT_DEFAULT = 0,        /* nothing sent to the compiler */
    NPU_HINT_LATENCY = 1,
    NPU_HINT_THROUGHPUT = 2
} npu_performance_hint;

/* ---- Device ---- */

typedef struct npu_device_options {
    npu_priority priority;   /* priority of the device's command queue */
    int turbo;               /* nonzero: ask for turbo on the device's queue (needs the
                                driver's ZE_extension_command_queue_npu; without it
                                npu_device_open fails with NPU_ERR_UNSUPPORTED) */
    /* OpenVINO version (major, minor, patch) that npu_model_export writes into
     * the OVNPU tail. OpenVINO 2025 imports only a blob whose version equals its
     * own (unless NPU_DISABLE_VERSION_CHECK); OpenVINO 2026 does not compare it.
     * All zero: NPU_EXPORT_OPENVINO_MAJOR.MINOR.PATCH (2025.4.0). */
    uint16_t export_openvino_version[3];
    uint32_t reserved[NPU_RESERVED_WORDS];   /* zero: room for later options (see "ABI") */
} npu_device_options;

#define NPU_EXPORT_OPENVINO_MAJOR 2025
#define NPU_EXPORT_OPENVINO_MINOR 4
#define NPU_EXPORT_OPENVINO_PATCH 0

/* Bytes npu_device_open needs in an arena (exact). The device keeps a few
 * hundred of them; the rest is scratch for the driver's extension list while
 * the call runs (about 25 KB, so that opening a device fits a small thread
 * stack), handed back before it returns. Thread-safe. */
NPU_API size_t npu_device_size(void);

/* Initializes the Level Zero loader (zeInit with ZE_INIT_FLAG_VPU_ONLY, then
 * 0), picks the NPU driver (Intel's NPU driver UUID first; otherwise any driver
 * with a VPU-type device that offers an extension named "ZE_extension_graph*"),
 * negotiates the graph extension (the highest 1.x offered, at most 1.18, and
 * no higher than the device reports or than the driver's function table
 * implements: a version whose entries are missing from the table is not used),
 * and creates one context and one command queue. The device keeps `ctx` (may be
 * NULL) for its messages and for everything created from it.
 * Errors: NPU_ERR_INVALID_ARGUMENT; NPU_ERR_ARENA_TOO_SMALL; NPU_ERR_NO_DEVICE
 * (no loader driver, no NPU device or no graph extension; the message says what
 * was searched and how to run on the software NPU:
 * ZE_ENABLE_ALT_DRIVERS=/abs/path/build/libze_npu_sim.so); NPU_ERR_DRIVER. */
NPU_API npu_status npu_device_open(npu_arena *arena, npu_context *ctx, const npu_device_options *options,
                           npu_device **out);

/* Releases the queue and the context. Every model and request of the device must
 * have been destroyed first. NULL is a no-op. Not thread-safe with other uses of
 * the device. */
NPU_API void npu_device_close(npu_device *dev);

/* Turns the driver's idle-memory optimizations of the device's context on or
 * off (ZE_extension_context_npu pfnSetProperties, option IDLE_OPTIMIZATIONS):
 * with them on, the driver frees and evicts memory once the NPU goes idle, so
 * the next inference after a pause may start slower; latency-sensitive
 * programs turn them off. The driver ignores "on" below NPU 4000 (it returns
 * success). Thread-safe with inferences; not with npu_device_close.
 * Errors: NPU_ERR_INVALID_ARGUMENT (dev NULL), NPU_ERR_UNSUPPORTED (the driver
 * has no ZE_extension_context_npu: Linux driver 1.32 and later have it; the
 * message says so), NPU_ERR_DRIVER. Stack: under 1 KiB. */
NPU_API npu_status npu_device_set_idle_optimizations(npu_device *dev, int enable);

typedef struct npu_device_properties {
    char name[256];               /* "Intel(R) AI Boost" */
    char platform[16];            /* "3720", "4000", "50xx" or "unknown" (from device_id) */
    uint32_t device_id;           /* PCI device id */
    uint32_t vendor_id;
    uint32_t driver_version;      /* ze_driver_properties_t.driverVersion */
    uint32_t api_version;         /* zeDriverGetApiVersion, (major << 16) | minor */
    uint32_t graph_ext_version;   /* negotiated graph extension, (major << 16) | minor */
    uint32_t compiler_version;    /* the driver's compiler, (major << 16) | minor; 0 none */
    uint32_t max_opset;           /* highest OpenVINO opset the compiler takes */
    uint64_t memory_total;        /* NPU memory (pfnQueryContextMemory DDR, ext >= 1.5;
                                     0 when unknown) */
    uint64_t memory_allocated;    /* ... of it allocated now */
    uint32_t optimal_requests_latency;     /* OPTIMAL_NUMBER_OF_INFER_REQUESTS, LATENCY: 1 */
    uint32_t optimal_requests_throughput;  /* THROUGHPUT: 3720 4, 4000 and later 8 */
    int no_weights_copy;          /* the compiler takes IR layout B: it has the
                                     serializer option that selects it
                                     (NPU_MODEL_SERIALIZER_VERSION, 2026, or
                                     NPU_USE_BASE_MODEL_SERIALIZER, 2025) */
    int host_memory_import;       /* caller buffers can be imported (zero copy): the
                                     driver offers ZE_extension_external_memmap_sysmem */
    int is_simulated;             /* the driver is not Intel's NPU driver (e.g. the
                                     software NPU of sim/) */
    uint8_t driver_uuid[16];
    uint32_t reserved[NPU_RESERVED_WORDS];   /* zero: room for later fields (see "ABI") */
} npu_device_properties;

/* Fills `out` (memory figures are read now). Errors: NPU_ERR_INVALID_ARGUMENT,
 * NPU_ERR_DRIVER. Thread-safe. */
NPU_API npu_status npu_device_get_properties(npu_device *dev, npu_device_properties *out);

/* OpenVINO's OPTIMAL_NUMBER_OF_INFER_REQUESTS for a hint (DEFAULT = LATENCY).
 * 0 for a NULL device. */
NPU_API uint32_t npu_device_optimal_requests(const npu_device *dev, npu_performance_hint hint);

/* The OpenVINO property names npu_device_get_property understands, NULL-
 * terminated, static: "FULL_DEVICE_NAME", "DEVICE_ARCHITECTURE",
 * "NPU_DRIVER_VERSION", "NPU_COMPILER_VERSION", "NPU_DEVICE_TOTAL_MEM_SIZE",
 * "NPU_DEVICE_ALLOC_MEM_SIZE", "OPTIMAL_NUMBER_OF_INFER_REQUESTS", ... */
NPU_API const char *const *npu_device_supported_properties(void);

/* One property as text (what ov_core_get_property prints), size-query
 * convention: dst NULL gives the bytes needed (with the NUL) in *size.
 * Errors: NPU_ERR_NOT_FOUND (unknown name), NPU_ERR_BUFFER_TOO_SMALL,
 * NPU_ERR_DRIVER. */
NPU_API npu_status npu_device_get_property(npu_device *dev, const char *name, char *dst, size_t cap,
                                   size_t *size);

/* ---- Model: compile, import, export ---- */

/* Arena capacity (exact) that creating a model object needs for a graph with
 * n_args driver arguments = inputs + outputs + 2 x state variables. The model
 * keeps npu_model_arena_bytes() of it; the rest is scratch for the driver's
 * argument tables (about 17 KB, handed back before the call returns, so that
 * they never sit on the caller's stack). 0 when n_args > NPU_MAX_ARGS. */
NPU_API size_t npu_model_size(uint32_t n_args);

/* Who handles a batched model (OpenVINO's NPU_BATCH_MODE). See "Batching" below
 * npu_compile_options. */
typedef enum npu_batch_mode {
    NPU_BATCH_AUTO = 0,      /* default: PLUGIN when possible, else COMPILER (logged) */
    NPU_BATCH_PLUGIN = 1,    /* npu debatches: compile at batch 1, run N command lists */
    NPU_BATCH_COMPILER = 2   /* the compiler gets the batched model */
} npu_batch_mode;

typedef struct npu_compile_options {
    npu_payload_layout payload_layout;   /* DEFAULT or NO_WEIGHTS_COPY: B where the
                                            compiler has a serializer option (the
                                            key then goes into --config:
                                            NPU_MODEL_SERIALIZER_VERSION=
                                            "NO_WEIGHTS_COPY" or
                                            NPU_USE_BASE_MODEL_SERIALIZER="NO"),
                                            A otherwise and for IR v10 (logged at
                                            NPU_LOG_INFO). With B the driver's
                                            compile cache gets a hash over the
                                            payload, flags and weight bytes
                                            (graph extension >= 1.14) or is
                                            disabled for the compile. */
    uint64_t weights_threshold_bytes;    /* layout B: see npu_payload_options */
    /* Element type overrides of the compiled inputs / outputs, by index (the
     * buffers then have that type). A graph's payload gets a Convert layer
     * behind each overridden Parameter and in front of each overridden Result
     * (as OpenVINO's PrePostProcessor adds them), since the compiler skips
     * preprocessing for IR v11. An IR file or a caller payload is converted by
     * the compiler only if it is IR v10; an override that differs from the
     * model's type of an IR v11 file or payload fails with NPU_ERR_UNSUPPORTED.
     * NPU_TYPE_UNDEFINED entries keep the model's type. Arrays may be NULL. */
    const npu_type *input_types;
    uint32_t n_input_types;
    const npu_type *output_types;
    uint32_t n_output_types;
    npu_performance_hint hint;           /* --config PERFORMANCE_HINT */
    npu_priority priority;               /* MODEL_PRIORITY, and the queue this model's
                                            requests use (its own queue if it differs
                                            from the device's) */
    int turbo;                           /* NPU_TURBO="YES" and a turbo queue (a driver
                                            without ZE_extension_command_queue_npu:
                                            NPU_ERR_UNSUPPORTED) */
    uint32_t tiles;                      /* NPU_TILES; 0: the compiler's choice */
    int optimization_level;              /* 0: default; 1, 2, 3: optimization-level=0,1,2
                                            (NPU_COMPILATION_MODE_PARAMS) */
    const char *extra_config;            /* appended after --config: KEY="VAL" pairs
                                            separated by spaces (no '"' inside a
                                            value: NPU_ERR_INVALID_ARGUMENT); each
                                            key the compiler does not support
                                            (pfnCompilerIsOptionSupported, graph
                                            extension >= 1.11) fails the compile
                                            with NPU_ERR_UNSUPPORTED naming it.
                                            hint, priority, turbo, tiles and
                                            optimization_level are instead left
                                            out, logged at NPU_LOG_INFO, when the
                                            compiler does not support them (asked,
                                            or below compiler 7.21 for NPU_TURBO,
                                            5.4 for NPU_TILES, 5.7 for the
                                            optimization level), as OpenVINO does.
                                            Compilers before 5.9 identify I/O by
                                            name: a name the build flags cannot
                                            carry (empty, white space, control
                                            characters, '"', "--") fails with
                                            NPU_ERR_UNSUPPORTED. */
    int disable_driver_cache;            /* ZE_GRAPH_FLAG_DISABLE_CACHING (always set
                                            while cache_dir is in use) */
    npu_batch_mode batch_mode;           /* graph / IR compiles; see "Batching" */
    const char *cache_dir;               /* graph / IR compiles: the model cache
                                            directory (see "Model cache"); NULL: none */
    /* Per-layer profiling (see "Profiling"): 0 off; N > 0 compiles with
     * ZE_GRAPH_FLAG_ENABLE_PROFILING and keeps a pool of N query slots, one per
     * live request (at most NPU_MAX_PROFILED_REQUESTS). Needs the driver's
     * ZE_extension_profiling_data and graph extension >= 1.5, else the compile
     * fails with NPU_ERR_UNSUPPORTED. A profiled model bypasses cache_dir
     * (it is compiled each time). */
    uint32_t profiled_requests;
    /* Workload type of this model's queue, set once the model exists
     * (NPU_WORKLOAD_BACKGROUND gives the model its own queue). Needs the
     * driver's ZE_extension_command_queue_npu, else NPU_ERR_UNSUPPORTED. See
     * npu_model_set_workload_type to change it later. */
    npu_workload_type workload_type;
    uint32_t reserved[NPU_RESERVED_WORDS - 2];   /* zero: room for later options (see "ABI") */
} npu_compile_options;

/* Most profiled requests one model may have (npu_compile_options.profiled_requests). */
#define NPU_MAX_PROFILED_REQUESTS 64

/* Batching (graph and IR compiles; npu_model_compile_payload sends the payload
 * as it is). Batching never changes a model's numbers: the batch axis comes
 * only from a layout that names 'N' (npu_graph_set_layout, npu_ir_set_layout, an
 * IR port's layout rt_info), as OpenVINO's ov::get_batch. Axis 0 of a model
 * without such a layout is never taken for a batch (a softmax, normalisation or
 * attention over axis 0 would break): the model is compiled as it is.
 * A model is batched when an input whose layout names N has a batch other than 1
 * (static N > 1, or dynamic: NPU_DIM_DYNAMIC / IR "?"); an IR's batch set with
 * npu_ir_set_batch counts (on a layout-less IR that is a plain reshape of axis 0).
 *  - PLUGIN: the model is compiled at batch 1 (a graph through
 *    npu_graph_set_batch(g, 1), an IR through npu_ir_set_batch(ir, 1); both are
 *    set back to what they were before the call returns, so the graph or IR is
 *    modified DURING the call: do not use it from another thread meanwhile).
 *    Requests then run N command lists per inference, list i bound to slice i
 *    of every input and output buffer (base + i x bytes / N), all N submitted
 *    in one zeCommandQueueExecuteCommandLists call with one fence; no copies.
 *    Needs: every non-state input and output has a layout naming N, on its
 *    outermost axis (axis 0), all with the same N, and no state variables. A
 *    dynamic batch compiles at batch 1 and each request runs 1..max_batch lists
 *    (npu_request_options.max_batch, npu_request_set_batch).
 *  - COMPILER: the batched model goes to the compiler as it is.
 *  - AUTO: PLUGIN when the model is batched and can be debatched, otherwise the
 *    model as it is (COMPILER when batched). Not debatching is logged
 *    (NPU_LOG_INFO, with the batch and the reason): no input's layout names N,
 *    an input or output without a layout naming N, inputs with different
 *    batches, a batch axis that is not the outermost, state variables,
 *    npu_graph_set_batch failing, the compiler rejecting the batch-1 model, or a
 *    compiled argument without batch 1 on its batch axis.
 * An explicit PLUGIN never falls back: those cases fail with
 * NPU_ERR_UNSUPPORTED (or the compiler's NPU_ERR_COMPILE), message naming the
 * reason and, for a missing layout, the fix. PLUGIN on a model where no input's
 * layout names N fails too (its batch is unknown). A model whose inputs' layouts
 * name N with batch 1 compiles as it is in every mode, states or not.
 * npu_model_get_info reports the decision (batch_mode, requested_mode,
 * batch_reason). The original batch (N, or -1 for a dynamic one) and the
 * layouts go into the metadata of an exported blob (OVNPU batchSize, layouts),
 * so an imported blob debatches the same way.
 *
 * Model cache (cache_dir != NULL). A compile first computes a key: a 128-bit
 * hash over the model structure (a graph: a walk of its nodes, names, types,
 * shapes, layouts, attributes and edges; an IR: its XML text), the bytes of
 * every constant (never their addresses), the build flags and options that
 * change the blob or the payload (payload layout and weights threshold,
 * layouts, the batch decision: mode, original and compiled batch), the
 * compiler version, the device platform and npu's version. The entry
 * <cache_dir>/<key>.npucache, if present and intact, is imported (a small one
 * read into the arena above what the call keeps, a larger one mapped and used
 * in place by the driver when it can);
 * otherwise the model is compiled and exported into a new entry (written to a
 * temporary file, synced and renamed: a reader never sees a torn entry; two
 * processes storing the same entry at once each rename a complete file).
 * An entry that is truncated, corrupt, foreign, of another format version or
 * of another model is discarded, logged (NPU_LOG_WARN), recompiled and
 * replaced. The cache never fails a compile: a missing directory is created
 * with its missing parents (as mkdir -p: mode 0777 less the umask; entries are
 * 0666 less the umask: choose the umask, or create the directory 0700 first,
 * to keep a cache private); an unreadable, read-only or full directory logs a
 * warning and the model is compiled and used without storing
 * (npu_model_info.cache and cache_note say which and why). A temp file left
 * by a writer killed mid-write is removed by the next store once its process
 * is gone (its name carries the pid), or after 60 s. While a cache directory is
 * used, the driver's own cache is bypassed (ZE_GRAPH_FLAG_DISABLE_CACHING), as
 * OpenVINO does. npu_model_get_info tells whether the model came from the
 * cache. The cache never deletes entries (remove the directory to clear it). */

/* Compiles an NGRAPH_LITE payload the caller built (stamped with the device's
 * compiler version: npu_device_get_properties). Only the overrides the caller
 * gives are sent as build flags (the payload is not parsed). The payload must
 * stay alive until the call returns (layout B: the constants it points at too).
 * The model keeps npu_model_arena_bytes() of `arena`.
 * Errors: NPU_ERR_INVALID_ARGUMENT (a NULL argument, or an options field out
 * of range: the message names the field and its value), NPU_ERR_COMPILE
 * (message: the driver's build log), NPU_ERR_DRIVER, NPU_ERR_ARENA_TOO_SMALL
 * (the graph is destroyed again), NPU_ERR_UNSUPPORTED (an argument type the
 * runtime does not know), NPU_ERR_LIMIT (> NPU_MAX_ARGS, or an argument whose
 * byte size, times its batch, overflows what one host buffer can hold). These
 * errors hold for every compile and import below. */
NPU_API npu_status npu_model_compile_payload(npu_device *dev, npu_arena *arena, const void *payload,
                                     size_t size, const npu_compile_options *opts,
                                     npu_model **out);

#ifndef NPU_NO_GRAPH
/* Writes the graph's payload (layout per opts / the driver, stamped with the
 * device's compiler version) into `arena` transiently, with the build flags
 * (every input and output: precision and layout by rank, by index for compilers
 * >= 5.9, else by name), compiles it and rewinds the payload before the model is
 * carved: peak arena use is max(payload + flags, model). The graph (and its
 * constants) must stay alive until the call returns. */
NPU_API npu_status npu_model_compile_graph(npu_device *dev, npu_arena *arena, const npu_graph *graph,
                                   const npu_compile_options *opts, npu_model **out);
/* The exact arena capacity (from the arena's current use) that
 * npu_model_compile_graph needs with these options. With a cache_dir the
 * compile needs (and records in the arena's peak) this capacity whether the
 * entry is present or not: a hit is refused below it too. */
NPU_API npu_status npu_model_compile_graph_size(npu_device *dev, const npu_graph *graph,
                                        const npu_compile_options *opts, size_t *bytes);

#endif

#ifndef NPU_NO_IR
/* The same for a loaded IR (section 8). The IR must stay loaded (mapped) until
 * the call returns. */
NPU_API npu_status npu_model_compile_ir(npu_device *dev, npu_arena *arena, const npu_ir *ir,
                                const npu_compile_options *opts, npu_model **out);
NPU_API npu_status npu_model_compile_ir_size(npu_device *dev, const npu_ir *ir,
                                     const npu_compile_options *opts, size_t *bytes);
#endif

typedef struct npu_import_options {
    npu_priority priority;   /* as in npu_compile_options */
    int turbo;               /* as in npu_compile_options (NPU_ERR_UNSUPPORTED without
                                the command-queue extension) */
    /* npu_model_import only: the caller promises to keep the blob alive and
     * unchanged until npu_model_destroy. Then, when the blob's address and size
     * are 4096-aligned and the extension is >= 1.13, the driver is told it may
     * use it in place (ZE_GRAPH_FLAG_INPUT_GRAPH_PERSISTENT). 0 (default): the
     * blob is needed only during the call. */
    int blob_persistent;
    uint32_t reserved[NPU_RESERVED_WORDS];   /* zero: room for later options (see "ABI") */
} npu_import_options;

/* Imports a compiled blob: a native blob, optionally followed by the "OVNPU"
 * metadata tail that OpenVINO's export_model and npu_model_export append (the
 * tail gives the batch size and I/O layouts; a debatched blob comes back
 * debatched). Errors: NPU_ERR_INVALID_ARGUMENT, NPU_ERR_FORMAT (malformed tail,
 * or the driver rejects the blob as not native), NPU_ERR_UNSUPPORTED (a tail
 * that marks the blob encrypted, weights-separated or not ELF), NPU_ERR_LIMIT
 * (an argument too large, as for compiles), NPU_ERR_DRIVER,
 * NPU_ERR_ARENA_TOO_SMALL. */
NPU_API npu_status npu_model_import(npu_device *dev, npu_arena *arena, const void *blob, size_t size,
                            const npu_import_options *opts, npu_model **out);

/* Imports a blob file, mapped read-only. When the blob part is page-aligned in
 * size and the extension is >= 1.13, the mapping is passed as persistent and
 * kept until npu_model_destroy; otherwise it is unmapped before returning.
 * Errors: those of npu_model_import; NPU_ERR_IO (cannot open or map the file,
 * or not a regular file; the message names the file); NPU_ERR_FORMAT (empty
 * file). */
NPU_API npu_status npu_model_import_file(npu_device *dev, npu_arena *arena, const char *path,
                                 const npu_import_options *opts, npu_model **out);

/* Exact arena capacity npu_model_import() of this blob needs (with these
 * options): what the import peaks at, of which the model keeps
 * npu_model_arena_bytes(). The argument count is the driver's to tell (a
 * native blob is the driver's own format): the driver imports the blob once
 * more for it and the graph is destroyed again, so the query costs about one
 * import; an appliance that ships one blob can record the figure instead.
 * Nothing is taken from any arena. The blob is needed only during the call.
 * Errors: those of npu_model_import (a malformed tail, a blob the driver
 * rejects, NPU_ERR_LIMIT), NPU_ERR_INVALID_ARGUMENT. Thread-safe for distinct
 * devices; for one device as npu_model_import. */
NPU_API npu_status npu_model_import_size(npu_device *dev, const void *blob, size_t size,
                                         const npu_import_options *opts, size_t *bytes);
/* The same for a blob file (mapped read-only during the call). Errors: also
 * NPU_ERR_IO (the message names the file) and NPU_ERR_FORMAT (empty file). */
NPU_API npu_status npu_model_import_file_size(npu_device *dev, const char *path, const npu_import_options *opts,
                                              size_t *bytes);

/* Writes the native blob followed by an OVNPU 2.3 metadata tail (batch size and
 * layouts of the model), the format npu_model_import and OpenVINO's
 * import_model read: 2.3 is the newest version both OpenVINO 2025.x (which
 * refuses a newer minor, and a blob of another OpenVINO version: see
 * npu_device_options.export_openvino_version) and 2026.x accept. A dynamic
 * batch is written as batchSize 0 ("none"; OpenVINO never writes a negative
 * batch) plus npu's 8-byte mark "npu-dynb" at the start of the tail's zero
 * padding, which OpenVINO never reads; npu reads it back as batch -1. Size-query convention: dst NULL gives the exact
 * byte count. The blob is copied straight into dst (no scratch memory).
 * Thread-safe. Errors: NPU_ERR_BUFFER_TOO_SMALL, NPU_ERR_DRIVER. */
NPU_API npu_status npu_model_export(npu_model *model, void *dst, size_t cap, size_t *size);

/* Writes the export to `path` atomically: a temporary file in the same
 * directory is sized, mapped, filled, synced and renamed over `path`, and the
 * directory is synced. The file's blocks are allocated before it is written, so
 * a full file system gives NPU_ERR_IO (ENOSPC), not a crash. On any error the
 * temporary file is removed: `path` is either the complete old file or the
 * complete new one. The file is created with mode 0666 less the process's
 * umask (as fopen would). The temporary file is "<path>.tmp-<pid>-<n>": one left
 * by an exporter killed mid-write is removed by the next export to the same
 * path once that process is gone. Errors: NPU_ERR_IO (names the file and errno
 * text), NPU_ERR_DRIVER. */
NPU_API npu_status npu_model_export_file(npu_model *model, const char *path);

/* Destroys the driver graph (and releases a file mapping). Requests of the model
 * must have been destroyed. NULL is a no-op. */
NPU_API void npu_model_destroy(npu_model *model);

/* Bytes the model object kept in its arena (at most the npu_model_size() of
 * its argument count: the set-up scratch is handed back). */
NPU_API size_t npu_model_arena_bytes(const npu_model *model);

/* The model's inputs, outputs and state variables as the caller sees them
 * (states and the driver's internal arguments excluded). Shapes and bytes are
 * per request buffer: with debatching (npu_model_batch > 1) the batch axis holds
 * the full batch. Names: the tensor name, else the layer name (states: the
 * variable id). Layouts: only one the model was given (the graph's, the IR's
 * or the blob metadata's); "" when unknown, never one derived from the rank or
 * the driver's deviceLayout. Out-of-range index or NULL model: NULL.
 * Descriptions live as long as the model. */
NPU_API uint32_t npu_model_input_count(const npu_model *model);
NPU_API const npu_tensor_desc *npu_model_input(const npu_model *model, uint32_t index);
NPU_API uint32_t npu_model_output_count(const npu_model *model);
NPU_API const npu_tensor_desc *npu_model_output(const npu_model *model, uint32_t index);
NPU_API uint32_t npu_model_state_count(const npu_model *model);
NPU_API const npu_tensor_desc *npu_model_state(const npu_model *model, uint32_t index);

/* The batch the runtime debatches into separate command lists (1: none, and
 * for a dynamic-batch model, whose requests choose: npu_request_set_batch). */
NPU_API uint32_t npu_model_batch(const npu_model *model);

/* Longest npu_model_info.batch_reason, including the NUL. */
#define NPU_BATCH_REASON_MAX 256

/* What happened when the model was created. */
/* What the model cache did for a compile (npu_model_info.cache). */
typedef enum npu_cache_outcome {
    NPU_CACHE_NOT_USED = 0,       /* no cache_dir (or an import) */
    NPU_CACHE_HIT,                /* imported from the entry */
    NPU_CACHE_STORED,             /* missed (cache_note says why), compiled, stored */
    NPU_CACHE_NOT_STORED          /* compiled; not stored: cache_note says why (the
                                     directory cannot be created or written, the
                                     path is too long, the disk is full, ...) */
} npu_cache_outcome;

#define NPU_CACHE_NOTE_MAX 192

typedef struct npu_model_info {
    int from_cache;               /* 1: imported from cache_dir */
    npu_batch_mode batch_mode;    /* the mode that ran: PLUGIN (debatched) or
                                     COMPILER (the batched model compiled as it
                                     is) when the model is batched, else AUTO (no
                                     batch known: no input's layout names N, or
                                     N is 1; imported blobs: PLUGIN when the
                                     metadata records a batch) */
    int64_t original_batch;       /* N (1 if unbatched or unknown), or NPU_DIM_DYNAMIC */
    uint64_t compile_ns;          /* time in the driver's compiler (graph creation
                                     and argument queries; 0 if imported) */
    uint64_t import_ns;           /* time importing a blob (0 if compiled) */
    npu_batch_mode requested_mode; /* npu_compile_options.batch_mode of the compile
                                     (AUTO for imports and NULL options) */
    char batch_reason[NPU_BATCH_REASON_MAX]; /* why batch_mode, in words: e.g. "no
                                     input has a layout naming N (input 'x' has
                                     none); compiled as it is (not debatched)",
                                     "output 'y' has no layout naming N; ...",
                                     "batch 4 compiled at batch 1 (...), debatched
                                     into 4 command lists (PLUGIN)". Never empty. */
    npu_cache_outcome cache;      /* graph / IR compiles with a cache_dir */
    char cache_note[NPU_CACHE_NOTE_MAX]; /* NUL-terminated: STORED: why the entry
                                     missed ("miss: no entry", "miss: checksum
                                     mismatch", ...); NOT_STORED: why it was not
                                     stored (the miss reason is in the log) */
    uint32_t reserved[NPU_RESERVED_WORDS];   /* zero: room for later fields (see "ABI") */
} npu_model_info;

/* Fills *out (a copy: no pointers into the model). Thread-safe. Errors:
 * NPU_ERR_INVALID_ARGUMENT (NULL). */
NPU_API npu_status npu_model_get_info(const npu_model *model, npu_model_info *out);

/* ---- Requests ---- */

typedef struct npu_request_options {
    int cached_inputs;   /* nonzero: input buffers without BIAS_WRITE_COMBINED (use it
                            when the host reads inputs back; WC memory reads slowly) */
    uint32_t max_batch;  /* dynamic-batch models: buffers and command lists for this
                            many batch elements (0: 1; at most 4096). Ignored for
                            other models. */
    uint32_t reserved[NPU_RESERVED_WORDS];   /* zero: room for later options (see "ABI") */
} npu_request_options;

/* Bytes npu_request_create takes from an arena (exact). 0 for a NULL model. */
NPU_API size_t npu_request_size(const npu_model *model, const npu_request_options *opts);

/* Creates an inference request: one host buffer per argument (zeMemAllocHost,
 * 4096-aligned, sizes rounded up to 4096), a fence, and the command lists,
 * recorded once here (one list, or npu_model_batch() lists for a debatched model,
 * max_batch lists for a dynamic-batch one;
 * twice that for a model with states, so that state buffers alternate without
 * copies). The request reports into the model's context. Several threads may
 * create requests of one model at once.
 * Errors: NPU_ERR_INVALID_ARGUMENT, NPU_ERR_ARENA_TOO_SMALL, NPU_ERR_DRIVER,
 * NPU_ERR_LIMIT (max_batch x an argument's bytes overflows a host buffer). */
NPU_API npu_status npu_request_create(npu_model *model, npu_arena *arena, const npu_request_options *opts,
                              npu_request **out);

/* Waits for a running inference, then frees every driver object of the request.
 * NULL is a no-op. */
NPU_API void npu_request_destroy(npu_request *req);

/* Data pointers of input / output `index` (the model's numbering): the caller
 * writes inputs and reads outputs in place, zero copy. With a caller buffer
 * attached (below) the caller buffer is returned. Valid until the request is
 * destroyed or the buffer is replaced. NULL for an out-of-range index. */
NPU_API void *npu_request_input(npu_request *req, uint32_t index);
NPU_API void *npu_request_output(npu_request *req, uint32_t index);

/* Looks an input / output up by name (exact match). Do it once at setup, not
 * per inference. Errors: NPU_ERR_NOT_FOUND (names it), NPU_ERR_INVALID_ARGUMENT. */
NPU_API npu_status npu_request_find_input(const npu_request *req, const char *name, uint32_t *index);
NPU_API npu_status npu_request_find_output(const npu_request *req, const char *name, uint32_t *index);

/* Attaches caller memory as input / output `index` (OpenVINO's set_tensor). size
 * must be at least the tensor's bytes (dynamic-batch models: max_batch x
 * desc.bytes). When the driver can import host memory
 * and ptr and size are 4096-aligned, the memory is imported and used in place
 * (zero copy; the command lists are re-recorded once, here). Otherwise each
 * inference copies the tensor's bytes from the buffer before it runs (inputs)
 * or into it after it finished (outputs): one memcpy of that size per
 * inference. ptr NULL detaches (back to the request's own buffer). The memory
 * must stay valid while attached. Not while the request runs (NPU_ERR_STATE).
 * Errors: NPU_ERR_NOT_FOUND, NPU_ERR_BUFFER_TOO_SMALL, NPU_ERR_DRIVER. */
NPU_API npu_status npu_request_set_input_buffer(npu_request *req, uint32_t index, void *ptr, size_t size);
NPU_API npu_status npu_request_set_output_buffer(npu_request *req, uint32_t index, void *ptr, size_t size);
/* The same, with the caller's word for what the buffer holds (a camera frame:
 * u8 [1,480,640,3] "NHWC"): its type, rank and static dims must be the
 * model's (a dynamic model dim takes any value >= 1) and a non-empty layout
 * must equal the model's non-empty one; the buffer's size is then the
 * tensor's bytes. A frame of another type, shape or layout is refused with
 * NPU_ERR_INVALID_ARGUMENT, the message naming both tensors, instead of being
 * read as the model's tensor (npu_ir_set_preprocess / npu_graph_set_preprocess
 * declare what an input takes). tensor is read during the call only; ptr as
 * in npu_request_set_input_buffer. Errors: also NPU_ERR_NOT_FOUND,
 * NPU_ERR_OVERFLOW and those of npu_request_set_input_buffer. Threads and
 * stack: as npu_request_set_input_buffer. */
NPU_API npu_status npu_request_set_input_tensor(npu_request *req, uint32_t index, const npu_tensor_desc *tensor,
                                                void *ptr);
NPU_API npu_status npu_request_set_output_tensor(npu_request *req, uint32_t index, const npu_tensor_desc *tensor,
                                                 void *ptr);

/* Attaches a range of a file descriptor, typically a dma-buf from a camera
 * (V4L2 VIDIOC_EXPBUF), a video decoder or a GPU, as input / output `index`:
 * bytes [offset, offset + size) of the buffer are the tensor, read (input) or
 * written (output) by the NPU in place at every inference, with no copy. npu
 * imports the fd through Level Zero's external memory import
 * (ze_external_memory_import_fd_t, ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF; the
 * driver imports the whole buffer) and re-records the command lists once,
 * here. size must be at least the tensor's bytes (dynamic-batch models:
 * max_batch x desc.bytes), and offset + size at most the buffer's size. Any
 * offset is accepted; a dma-buf's producer usually gives page-aligned planes.
 * Lifetime: the fd stays the caller's. npu never closes it and does not keep
 * it: the import holds its own reference to the buffer, so the caller may
 * close the fd as soon as this returns, and the buffer lives until the import
 * is released. The import is released when the same input / output is set
 * again (another fd, a caller buffer, or npu_request_set_input_buffer(req,
 * index, NULL, 0) to go back to the request's own buffer), and when the
 * request is destroyed. A failed call leaves the previous binding in place,
 * except when re-recording fails: then the request is back on its own buffer.
 * npu_request_input / _output return the CPU address of [offset, ...) in the
 * import; for a real dma-buf, bracket CPU access with DMA_BUF_IOCTL_SYNC as
 * its producer requires. Synchronize with the producer yourself: an inference
 * reads the buffer as it is when the inference runs. Not while the request
 * runs (NPU_ERR_STATE). Same thread rules as npu_request_set_input_buffer (one
 * thread per request). Stack: well under NPU_STACK_BUDGET.
 * Errors: NPU_ERR_NOT_FOUND (index), NPU_ERR_INVALID_ARGUMENT (fd not open,
 * offset + size overflows), NPU_ERR_BUFFER_TOO_SMALL (size below the tensor's
 * bytes, or the range goes beyond the buffer: the message gives the buffer's
 * size), NPU_ERR_UNSUPPORTED (the driver does not list DMA_BUF in
 * zeDeviceGetExternalMemoryProperties' import types, or refuses the import as
 * unsupported: a kernel driver without PRIME import), NPU_ERR_DRIVER (the
 * driver could not import the fd: not a dma-buf, or out of memory; or
 * re-recording failed), NPU_ERR_STATE, NPU_ERR_NO_LEVEL_ZERO (built without
 * Level Zero). The software NPU imports any mappable fd (a memfd stands in for
 * a dma-buf), see docs/sim.md. */
NPU_API npu_status npu_request_set_input_fd(npu_request *req, uint32_t index, int fd, size_t offset, size_t size);
NPU_API npu_status npu_request_set_output_fd(npu_request *req, uint32_t index, int fd, size_t offset, size_t size);

/* Dynamic-batch models: the number of batch elements (1 <= n <= max_batch)
 * the next inferences compute: n command lists are submitted, over the first n
 * slices of every input and output buffer (element i at base + i x desc.bytes;
 * a copy-mode caller buffer copies n x desc.bytes). A new request computes
 * max_batch. Other models accept only n == npu_model_batch(). Not while an
 * inference runs. Errors: NPU_ERR_INVALID_ARGUMENT (n out of range, message
 * gives the range), NPU_ERR_STATE (running). */
NPU_API npu_status npu_request_set_batch(npu_request *req, uint32_t n);

/* Sets the workload type of the queue this model's requests run on (the
 * driver's pfnSetWorkloadType; takes effect for work submitted afterwards).
 * A model compiled or imported with the device's priority and turbo shares the
 * device's queue with other such models: the type then applies to all of
 * them; give the model its own queue with npu_compile_options.workload_type
 * (or another priority) to keep it to the model. Thread-safe.
 * Errors: NPU_ERR_INVALID_ARGUMENT (model NULL, type out of range),
 * NPU_ERR_UNSUPPORTED (no ZE_extension_command_queue_npu), NPU_ERR_DRIVER. */
NPU_API npu_status npu_model_set_workload_type(npu_model *model, npu_workload_type type);

/* ---- Profiling ----
 * A model compiled with npu_compile_options.profiled_requests = N > 0 runs
 * with the driver's per-layer profiling (ZE_extension_profiling_data): the
 * driver's pool of N query slots belongs to the model, and each request takes
 * one slot at npu_request_create (NPU_ERR_LIMIT when all N are taken; a slot
 * is freed by npu_request_destroy) and names it in every execute it records.
 * After an inference, npu_request_profile returns the layer-level record of
 * the request's last inference (for a debatched model: the last batch
 * element's execute), as OpenVINO's get_profiling_info converts it. */
#define NPU_PROFILE_NAME_MAX 256
#define NPU_PROFILE_TYPE_MAX 64

typedef enum npu_layer_status {    /* ze_layer_status_t's values */
    NPU_LAYER_NOT_RUN = 1,
    NPU_LAYER_OPTIMIZED_OUT = 2,
    NPU_LAYER_EXECUTED = 3
} npu_layer_status;

typedef struct npu_layer_profile {
    char name[NPU_PROFILE_NAME_MAX];   /* the layer's name (the IR layer / graph node) */
    char type[NPU_PROFILE_TYPE_MAX];   /* its type ("Convolution", ...) */
    char exec_type[16];                /* "Shave", "DPU" or "DMA": the unit with time,
                                          in that order (OpenVINO's rule) */
    npu_layer_status status;           /* as the driver reports it */
    uint32_t reserved0;
    uint64_t real_time_us;             /* wall time from the layer's first start to
                                          its last end, µs (truncated) */
    uint64_t cpu_time_us;              /* summed compute time (DPU + SW + DMA), µs */
    uint64_t real_time_ns, cpu_time_ns;   /* the same in ns */
    uint64_t start_ns;                 /* the driver's absolute start time */
} npu_layer_profile;

/* Exact arena bytes npu_request_profile takes for the request's current
 * record (count x sizeof(npu_layer_profile)); 0 layers give 0.
 * Errors: those of npu_request_profile. */
NPU_API npu_status npu_request_profile_size(npu_request *req, size_t *bytes);

/* The per-layer table of the request's last inference, in the driver's layer
 * order: *table points at *count records allocated from `arena` (the caller's:
 * valid until it is rewound or reset; the driver writes its records there and
 * they are converted in place, so no other memory is used). Call it after
 * npu_request_infer, or npu_request_wait returned NPU_OK; the same record can be
 * read any number of times until the next inference. Thread-safe for distinct
 * requests; not while the same request runs. Stack: under 1.5 KiB.
 * Errors: NPU_ERR_INVALID_ARGUMENT (NULL argument, or the model was compiled
 * without profiled_requests), NPU_ERR_STATE (an inference is running),
 * NPU_ERR_ARENA_TOO_SMALL (the arena is as it was), NPU_ERR_DRIVER (the driver
 * could not decode the record, e.g. no inference ran yet; the message carries
 * the driver's profiling log). */
NPU_API npu_status npu_request_profile(npu_request *req, npu_arena *arena, npu_layer_profile **table,
                                       uint32_t *count);

/* Runs one inference and waits for it: submit, fence wait, fence reset. No
 * allocation, formatting or name lookup happens on this path.
 * Errors: NPU_ERR_STATE (an async inference is running), NPU_ERR_DRIVER. If
 * the wait itself fails the request stays running: npu_request_wait again. */
NPU_API npu_status npu_request_infer(npu_request *req);

/* Submits one inference and returns at once. Errors: NPU_ERR_STATE (already
 * running), NPU_ERR_DRIVER. */
NPU_API npu_status npu_request_start(npu_request *req);

/* Waits up to timeout_ns (UINT64_MAX: forever; 0: poll) for the started
 * inference. NPU_OK when finished (outputs are ready), NPU_NOT_READY on timeout,
 * NPU_OK at once if nothing runs. */
NPU_API npu_status npu_request_wait(npu_request *req, uint64_t timeout_ns);

/* npu_request_wait(req, 0). */
NPU_API npu_status npu_request_poll(npu_request *req);

/* ---- States (ReadValue / Assign variables) ----
 * A stateful model carries each variable from one inference to the next: the
 * value its Assign wrote is what its ReadValue reads next time. The request keeps
 * two buffers per variable and alternates them (two recorded sets of command
 * lists), so carrying a state costs nothing per inference. A new request starts
 * with zeroed states. Not while the request runs (NPU_ERR_STATE). */
NPU_API uint32_t npu_request_state_count(const npu_request *req);
/* desc->name is the variable id. Errors: NPU_ERR_NOT_FOUND. */
NPU_API npu_status npu_request_state(const npu_request *req, uint32_t index, npu_tensor_desc *desc);
/* The buffer the next inference reads (the value after the last one); the caller
 * may read or write it in place until the next inference. NULL if out of range. */
NPU_API void *npu_request_state_data(npu_request *req, uint32_t index);
/* Copies `size` bytes (the state's bytes exactly) into the state. */
NPU_API npu_status npu_request_state_set(npu_request *req, uint32_t index, const void *data, size_t size);
/* Zero-fills the state. */
NPU_API npu_status npu_request_state_reset(npu_request *req, uint32_t index);
/* ==== 10. Inspecting a blob before import =============================== */
/* A compiled blob exported by OpenVINO's NPU plugin (`export_model`) or by npu
 * ends with a versioned metadata tail:
 *
 *   [native blob][zero padding][fields][u64 blob data size]["OVNPU"]
 *
 * npu reads metadata versions 2.0 to 2.7 (and the known fields of newer 2.x
 * versions, whose extra fields are skipped); it writes version 2.3 (earlier npu
 * releases wrote 2.7 with batch -1 for a dynamic batch: still read). A blob
 * without the tail (a raw ELF from the driver) is valid too: it has no
 * metadata. In the OpenVINO-version field npu writes
 * npu_device_options.export_openvino_version (default
 * NPU_EXPORT_OPENVINO_MAJOR.MINOR.PATCH): OpenVINO 2025 imports only a blob of
 * its own version unless its version check is disabled. */

/* Most layouts a tail may carry (inputs and outputs together). */
#define NPU_BLOB_MAX_LAYOUTS 64

typedef struct npu_blob_info {
    int has_metadata;               /* 1: an OVNPU tail was found; 0: raw blob (the
                                       fields below are then 0 except blob_size) */
    uint32_t metadata_version;      /* (major << 16) | minor, e.g. 0x00020007 */
    uint16_t openvino_version[3];   /* major, minor, patch of the writer (npu writes
                                       export_openvino_version here) */
    int64_t batch_size;             /* 0: no batch recorded; N > 1: static batch N
                                       debatched at run time; -1: dynamic batch */
    uint32_t n_input_layouts;       /* layouts[0 .. n_input_layouts) are inputs' */
    uint32_t n_output_layouts;      /* then outputs' */
    char layouts[NPU_BLOB_MAX_LAYOUTS][NPU_LAYOUT_MAX]; /* e.g. "[N,C,H,W]", "" unknown */
    uint32_t compiler_version;      /* (major << 16) | minor of the compiler; 0 unknown */
    uint64_t blob_size;             /* bytes of the native blob (with its padding):
                                       what is handed to the driver on import; the
                                       whole input when has_metadata is 0 */
    uint64_t init_count;            /* weights-separated blobs: number of init blobs */
    int encrypted;                  /* the blob is encrypted */
    uint32_t blob_type;             /* 0 ELF, 1 LLVM, 2 BYTECODE */
    uint64_t compatibility_descriptor_size; /* bytes of the 2.6 descriptor (skipped) */
    int importable;                 /* 1 when npu can import it: not encrypted, no
                                       init blobs, ELF */
    uint32_t reserved[NPU_RESERVED_WORDS];   /* zero: room for later fields (see "ABI") */
} npu_blob_info_t;

/* Reads the metadata tail of the blob at data[0 .. size) into *info without
 * importing it. The input is treated as hostile: every count and length is
 * checked. ctx may be NULL. data is only read during the call; info is
 * caller-owned and fully overwritten (zeroed on failure). Thread-safe for
 * distinct info structs.
 * A tail npu cannot import but that is well-formed (encrypted, init blobs, not
 * ELF) is reported with importable = 0, not as an error.
 * Errors: NPU_ERR_INVALID_ARGUMENT (data or info NULL), NPU_ERR_FORMAT (the tail
 * is present but malformed: blob data size past the end, counts or lengths past
 * the end, more than NPU_BLOB_MAX_LAYOUTS layouts or a layout longer than
 * NPU_LAYOUT_MAX - 1, unknown major version, non-zero bytes in the padding; the
 * message names the field). */
NPU_API npu_status npu_blob_info(npu_context *ctx, const void *data, size_t size,
                         npu_blob_info_t *info);

/* ==== ABI ================================================================ *
 * libnpu.so.0 keeps its ABI for as long as its soname stays: within it,
 * functions are only added, never changed or removed; enums only gain values;
 * every public struct keeps its size and field offsets. Option structs
 * (npu_*_options) and info structs (npu_device_properties, npu_model_info,
 * npu_blob_info_t) end in NPU_RESERVED_WORDS reserved words where later fields
 * go, each one's zero meaning "as before". The library refuses options whose
 * reserved words are not zero (NPU_ERR_INVALID_ARGUMENT naming the struct):
 * a program built against a newer npu.h then fails clearly on an older
 * library instead of having its options ignored. Info structs are filled
 * whole, reserved words zeroed. A change outside these rules gets a new
 * soname (libnpu.so.1). Single-file use (NPU_STATIC) has no ABI to keep. */

#ifdef __cplusplus
}
#endif
#endif /* NPU_H */
