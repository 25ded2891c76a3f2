/* parts/l0.h: section of npu.h (merged into npu.h before release). */

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

typedef enum npu_performance_hint {
    NPU_HINT_DEFAULT = 0,        /* nothing sent to the compiler */
    NPU_HINT_LATENCY = 1,
    NPU_HINT_THROUGHPUT = 2
} npu_performance_hint;

/* ---- Device ---- */

typedef struct npu_device_options {
    npu_priority priority;   /* priority of the device's command queue */
    int turbo;               /* nonzero: ask for turbo on the device's queue (needs the
                                driver's ZE_extension_command_queue_npu; ignored
                                without it, with an NPU_LOG_INFO message) */
} npu_device_options;

/* Bytes npu_device_open takes from an arena (exact). Thread-safe. */
size_t npu_device_size(void);

/* Initializes the Level Zero loader (zeInit with ZE_INIT_FLAG_VPU_ONLY, then
 * 0), picks the NPU driver (Intel's NPU driver UUID first; otherwise any driver
 * with a VPU-type device that offers an extension named "ZE_extension_graph*"),
 * negotiates the graph extension (the highest 1.x offered, at most 1.18), and
 * creates one context and one command queue. The device keeps `ctx` (may be
 * NULL) for its messages and for everything created from it.
 * Errors: NPU_ERR_INVALID_ARGUMENT; NPU_ERR_ARENA_TOO_SMALL; NPU_ERR_NO_DEVICE
 * (no loader driver, no NPU device or no graph extension; the message says what
 * was searched and how to run on the software NPU:
 * ZE_ENABLE_ALT_DRIVERS=/abs/path/build/libze_npu_sim.so); NPU_ERR_DRIVER. */
npu_status npu_device_open(npu_arena *arena, npu_context *ctx, const npu_device_options *options,
                           npu_device **out);

/* Releases the queue and the context. Every model and request of the device must
 * have been destroyed first. NULL is a no-op. Not thread-safe with other uses of
 * the device. */
void npu_device_close(npu_device *dev);

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
    int no_weights_copy;          /* the compiler takes IR layout B (NO_WEIGHTS_COPY) */
    int host_memory_import;       /* caller buffers can be imported (zero copy) */
    int is_simulated;             /* the driver is not Intel's NPU driver (e.g. the
                                     software NPU of sim/) */
    uint8_t driver_uuid[16];
} npu_device_properties;

/* Fills `out` (memory figures are read now). Errors: NPU_ERR_INVALID_ARGUMENT,
 * NPU_ERR_DRIVER. Thread-safe. */
npu_status npu_device_get_properties(npu_device *dev, npu_device_properties *out);

/* OpenVINO's OPTIMAL_NUMBER_OF_INFER_REQUESTS for a hint (DEFAULT = LATENCY).
 * 0 for a NULL device. */
uint32_t npu_device_optimal_requests(const npu_device *dev, npu_performance_hint hint);

/* The OpenVINO property names npu_device_get_property understands, NULL-
 * terminated, static: "FULL_DEVICE_NAME", "DEVICE_ARCHITECTURE",
 * "NPU_DRIVER_VERSION", "NPU_COMPILER_VERSION", "NPU_DEVICE_TOTAL_MEM_SIZE",
 * "NPU_DEVICE_ALLOC_MEM_SIZE", "OPTIMAL_NUMBER_OF_INFER_REQUESTS", ... */
const char *const *npu_device_supported_properties(void);

/* One property as text (what ov_core_get_property prints), size-query
 * convention: dst NULL gives the bytes needed (with the NUL) in *size.
 * Errors: NPU_ERR_NOT_FOUND (unknown name), NPU_ERR_BUFFER_TOO_SMALL,
 * NPU_ERR_DRIVER. */
npu_status npu_device_get_property(npu_device *dev, const char *name, char *dst, size_t cap,
                                   size_t *size);

/* ---- Model: compile, import, export ---- */

/* Bytes a model object takes (exact) for a compiled graph with n_args driver
 * arguments = inputs + outputs + 2 x state variables. */
size_t npu_model_size(uint32_t n_args);

/* Who handles a batched model (OpenVINO's NPU_BATCH_MODE). See "Batching" below
 * npu_compile_options. */
typedef enum npu_batch_mode {
    NPU_BATCH_AUTO = 0,      /* default: PLUGIN when possible, else COMPILER (logged) */
    NPU_BATCH_PLUGIN = 1,    /* npu debatches: compile at batch 1, run N command lists */
    NPU_BATCH_COMPILER = 2   /* the compiler gets the batched model */
} npu_batch_mode;

typedef struct npu_compile_options {
    npu_payload_layout payload_layout;   /* DEFAULT: B if the compiler advertises the
                                            no-weights-copy serializer, else A */
    uint64_t weights_threshold_bytes;    /* layout B: see npu_payload_options */
    /* Element type overrides of the compiled inputs / outputs, by index (the
     * buffers then have that type; the compiler converts). NPU_TYPE_UNDEFINED
     * entries keep the model's type. Arrays may be NULL. */
    const npu_type *input_types;
    uint32_t n_input_types;
    const npu_type *output_types;
    uint32_t n_output_types;
    npu_performance_hint hint;           /* --config PERFORMANCE_HINT */
    npu_priority priority;               /* MODEL_PRIORITY, and the queue this model's
                                            requests use (its own queue if it differs
                                            from the device's) */
    int turbo;                           /* NPU_TURBO="YES" and a turbo queue */
    uint32_t tiles;                      /* NPU_TILES; 0: the compiler's choice */
    int optimization_level;              /* 0: default; 1, 2, 3: optimization-level=0,1,2
                                            (NPU_COMPILATION_MODE_PARAMS) */
    const char *extra_config;            /* appended after --config: KEY="VAL" ... */
    int disable_driver_cache;            /* ZE_GRAPH_FLAG_DISABLE_CACHING (always set
                                            while cache_dir is in use) */
    npu_batch_mode batch_mode;           /* graph / IR compiles; see "Batching" */
    const char *cache_dir;               /* graph / IR compiles: the model cache
                                            directory (see "Model cache"); NULL: none */
} npu_compile_options;

/* Batching (graph and IR compiles; npu_model_compile_payload sends the payload
 * as it is). The batch axis of an input or output is the 'N' of its layout
 * (npu_graph_set_layout, npu_ir_set_layout, an IR layout rt_info), else axis 0.
 * A model is batched when an input's batch is not 1 (static N > 1, or dynamic:
 * NPU_DIM_DYNAMIC / IR "?"); an IR's batch set with npu_ir_set_batch counts.
 *  - PLUGIN: the model is compiled at batch 1 (a graph through
 *    npu_graph_set_batch(g, 1), an IR through npu_ir_set_batch(ir, 1); both are
 *    set back to what they were before the call returns, so the graph or IR is
 *    modified DURING the call: do not use it from another thread meanwhile).
 *    Requests then run N command lists per inference, list i bound to slice i
 *    of every input and output buffer (base + i x bytes / N), all N submitted
 *    in one zeCommandQueueExecuteCommandLists call with one fence; no copies.
 *    Needs: every input and output has its batch on the outermost axis (axis 0)
 *    with the same N, and no state variables. A dynamic batch compiles at batch
 *    1 and each request runs 1..max_batch lists (npu_request_options.max_batch,
 *    npu_request_set_batch).
 *  - COMPILER: the batched model goes to the compiler as it is.
 *  - AUTO: PLUGIN when the model is batched and can be debatched, otherwise
 *    COMPILER; falling back is logged (NPU_LOG_WARN, with the batch and the
 *    reason): inputs with different batches, a batch axis that is not the
 *    outermost, a scalar input or output, state variables, npu_graph_set_batch
 *    failing, the compiler rejecting the batch-1 model, or a compiled argument
 *    without batch 1 on its batch axis.
 * An explicit PLUGIN never falls back: those cases fail with
 * NPU_ERR_UNSUPPORTED (or the compiler's NPU_ERR_COMPILE), message naming the
 * reason. An unbatched model (batch 1) compiles as it is in every mode, states
 * or not. The original batch (N, or -1 for a dynamic one) and the layouts go
 * into the metadata of an exported blob (OVNPU batchSize, layouts), so an
 * imported blob debatches the same way.
 *
 * Model cache (cache_dir != NULL). A compile first computes a key: a 128-bit
 * hash over the model structure (a graph: its IR XML with weight offsets; an
 * IR: its XML text), the bytes of every constant (never their addresses), the
 * build flags and options that change the blob (payload layout, layouts, batch
 * mode, original and compiled batch), the compiler version, the device platform
 * and npu's version. The entry <cache_dir>/<key>.npucache, if present and
 * intact, is imported (mapped, used in place by the driver when it can);
 * otherwise the model is compiled and exported into a new entry (written to a
 * temporary file, synced and renamed: a reader never sees a torn entry; two
 * processes storing the same entry at once each rename a complete file).
 * An entry that is truncated, corrupt, foreign, of another format version or
 * of another model is discarded, logged (NPU_LOG_WARN), recompiled and
 * replaced. The cache never fails a compile: a missing directory is created
 * (one level); an unreadable, read-only or full directory logs a warning and
 * the model is compiled and used without storing. While a cache directory is
 * used, the driver's own cache is bypassed (ZE_GRAPH_FLAG_DISABLE_CACHING), as
 * OpenVINO does. npu_model_get_info tells whether the model came from the
 * cache. The cache never deletes entries (remove the directory to clear it). */

/* Compiles an NGRAPH_LITE payload the caller built (stamped with the device's
 * compiler version: npu_device_get_properties). Only the overrides the caller
 * gives are sent as build flags (the payload is not parsed). The payload must
 * stay alive until the call returns (layout B: the constants it points at too).
 * The model takes npu_model_size(n_args) bytes of `arena`.
 * Errors: NPU_ERR_COMPILE (message: the driver's build log), NPU_ERR_DRIVER,
 * NPU_ERR_ARENA_TOO_SMALL (the graph is destroyed again), NPU_ERR_UNSUPPORTED (an
 * argument type the runtime does not know), NPU_ERR_LIMIT (> NPU_MAX_ARGS). */
npu_status npu_model_compile_payload(npu_device *dev, npu_arena *arena, const void *payload,
                                     size_t size, const npu_compile_options *opts,
                                     npu_model **out);

/* Writes the graph's payload (layout per opts / the driver, stamped with the
 * device's compiler version) into `arena` transiently, with the build flags
 * (every input and output: precision and layout by rank, by index for compilers
 * >= 5.9, else by name), compiles it and rewinds the payload before the model is
 * carved: peak arena use is max(payload + flags, model). The graph (and its
 * constants) must stay alive until the call returns. */
npu_status npu_model_compile_graph(npu_device *dev, npu_arena *arena, const npu_graph *graph,
                                   const npu_compile_options *opts, npu_model **out);
/* The exact arena capacity (from the arena's current use) that
 * npu_model_compile_graph needs with these options. */
npu_status npu_model_compile_graph_size(npu_device *dev, const npu_graph *graph,
                                        const npu_compile_options *opts, size_t *bytes);

/* The same for a loaded IR (section 8). The IR must stay loaded (mapped) until
 * the call returns. */
npu_status npu_model_compile_ir(npu_device *dev, npu_arena *arena, const npu_ir *ir,
                                const npu_compile_options *opts, npu_model **out);
npu_status npu_model_compile_ir_size(npu_device *dev, const npu_ir *ir,
                                     const npu_compile_options *opts, size_t *bytes);

typedef struct npu_import_options {
    npu_priority priority;   /* as in npu_compile_options */
    int turbo;
    /* npu_model_import only: the caller promises to keep the blob alive and
     * unchanged until npu_model_destroy. Then, when the blob's address and size
     * are 4096-aligned and the extension is >= 1.13, the driver is told it may
     * use it in place (ZE_GRAPH_FLAG_INPUT_GRAPH_PERSISTENT). 0 (default): the
     * blob is needed only during the call. */
    int blob_persistent;
} npu_import_options;

/* Imports a compiled blob: a native blob, optionally followed by the "OVNPU"
 * metadata tail that OpenVINO's export_model and npu_model_export append (the
 * tail gives the batch size and I/O layouts; a debatched blob comes back
 * debatched). Errors: NPU_ERR_FORMAT (malformed tail, or the driver rejects the
 * blob as not native), NPU_ERR_UNSUPPORTED (a tail that marks the blob
 * encrypted, weights-separated or not ELF), NPU_ERR_DRIVER, NPU_ERR_ARENA_TOO_SMALL. */
npu_status npu_model_import(npu_device *dev, npu_arena *arena, const void *blob, size_t size,
                            const npu_import_options *opts, npu_model **out);

/* Imports a blob file, mapped read-only. When the blob part is page-aligned in
 * size and the extension is >= 1.13, the mapping is passed as persistent and
 * kept until npu_model_destroy; otherwise it is unmapped before returning.
 * Errors: those of npu_model_import, NPU_ERR_IO (names the file). */
npu_status npu_model_import_file(npu_device *dev, npu_arena *arena, const char *path,
                                 const npu_import_options *opts, npu_model **out);

/* Writes the native blob followed by an OVNPU 2.7 metadata tail (batch size and
 * layouts of the model, the compiler version), the format npu_model_import and
 * OpenVINO's import_model read. Size-query convention: dst NULL gives the exact
 * byte count. The blob is copied straight into dst (no scratch memory).
 * Thread-safe. Errors: NPU_ERR_BUFFER_TOO_SMALL, NPU_ERR_DRIVER. */
npu_status npu_model_export(npu_model *model, void *dst, size_t cap, size_t *size);

/* Writes the export to `path` atomically: a temporary file in the same
 * directory is sized, mapped, filled, synced and renamed over `path`, and the
 * directory is synced. On any error the temporary file is removed: `path` is
 * either the complete old file or the complete new one. Errors: NPU_ERR_IO
 * (names the file and errno text), NPU_ERR_DRIVER. */
npu_status npu_model_export_file(npu_model *model, const char *path);

/* Destroys the driver graph (and releases a file mapping). Requests of the model
 * must have been destroyed. NULL is a no-op. */
void npu_model_destroy(npu_model *model);

/* Bytes the model object took from its arena. */
size_t npu_model_arena_bytes(const npu_model *model);

/* The model's inputs, outputs and state variables as the caller sees them
 * (states and the driver's internal arguments excluded). Shapes and bytes are
 * per request buffer: with debatching (npu_model_batch > 1) the batch axis holds
 * the full batch. Names: the tensor name, else the layer name (states: the
 * variable id). Out-of-range index or NULL model: NULL. Descriptions live as
 * long as the model. */
uint32_t npu_model_input_count(const npu_model *model);
const npu_tensor_desc *npu_model_input(const npu_model *model, uint32_t index);
uint32_t npu_model_output_count(const npu_model *model);
const npu_tensor_desc *npu_model_output(const npu_model *model, uint32_t index);
uint32_t npu_model_state_count(const npu_model *model);
const npu_tensor_desc *npu_model_state(const npu_model *model, uint32_t index);

/* The batch the runtime debatches into separate command lists (1: none, and
 * for a dynamic-batch model, whose requests choose: npu_request_set_batch). */
uint32_t npu_model_batch(const npu_model *model);

/* What happened when the model was created. */
typedef struct npu_model_info {
    int from_cache;               /* 1: imported from cache_dir */
    npu_batch_mode batch_mode;    /* PLUGIN or COMPILER when the model is batched,
                                     else AUTO (imported blobs: PLUGIN when the
                                     metadata records a batch) */
    int64_t original_batch;       /* N (1 if unbatched), or NPU_DIM_DYNAMIC */
    uint64_t compile_ns;          /* time in the driver's compiler (graph creation
                                     and argument queries; 0 if imported) */
    uint64_t import_ns;           /* time importing a blob (0 if compiled) */
} npu_model_info;

/* Fills *out. Thread-safe. Errors: NPU_ERR_INVALID_ARGUMENT (NULL). */
npu_status npu_model_get_info(const npu_model *model, npu_model_info *out);

/* ---- Requests ---- */

typedef struct npu_request_options {
    int cached_inputs;   /* nonzero: input buffers without BIAS_WRITE_COMBINED (use it
                            when the host reads inputs back; WC memory reads slowly) */
    uint32_t max_batch;  /* dynamic-batch models: buffers and command lists for this
                            many batch elements (0: 1; at most 4096). Ignored for
                            other models. */
} npu_request_options;

/* Bytes npu_request_create takes from an arena (exact). 0 for a NULL model. */
size_t npu_request_size(const npu_model *model, const npu_request_options *opts);

/* Creates an inference request: one host buffer per argument (zeMemAllocHost,
 * 4096-aligned, sizes rounded up to 4096), a fence, and the command lists,
 * recorded once here (one list, or npu_model_batch() lists for a debatched model,
 * max_batch lists for a dynamic-batch one;
 * twice that for a model with states, so that state buffers alternate without
 * copies). The request reports into the model's context.
 * Errors: NPU_ERR_INVALID_ARGUMENT, NPU_ERR_ARENA_TOO_SMALL, NPU_ERR_DRIVER. */
npu_status npu_request_create(npu_model *model, npu_arena *arena, const npu_request_options *opts,
                              npu_request **out);

/* Waits for a running inference, then frees every driver object of the request.
 * NULL is a no-op. */
void npu_request_destroy(npu_request *req);

/* Data pointers of input / output `index` (the model's numbering): the caller
 * writes inputs and reads outputs in place, zero copy. With a caller buffer
 * attached (below) the caller buffer is returned. Valid until the request is
 * destroyed or the buffer is replaced. NULL for an out-of-range index. */
void *npu_request_input(npu_request *req, uint32_t index);
void *npu_request_output(npu_request *req, uint32_t index);

/* Looks an input / output up by name (exact match). Do it once at setup, not
 * per inference. Errors: NPU_ERR_NOT_FOUND (names it), NPU_ERR_INVALID_ARGUMENT. */
npu_status npu_request_find_input(const npu_request *req, const char *name, uint32_t *index);
npu_status npu_request_find_output(const npu_request *req, const char *name, uint32_t *index);

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
npu_status npu_request_set_input_buffer(npu_request *req, uint32_t index, void *ptr, size_t size);
npu_status npu_request_set_output_buffer(npu_request *req, uint32_t index, void *ptr, size_t size);

/* Dynamic-batch models: the number of batch elements (1 <= n <= max_batch)
 * the next inferences compute: n command lists are submitted, over the first n
 * slices of every input and output buffer (element i at base + i x desc.bytes;
 * a copy-mode caller buffer copies n x desc.bytes). A new request computes
 * max_batch. Other models accept only n == npu_model_batch(). Not while an
 * inference runs. Errors: NPU_ERR_INVALID_ARGUMENT (n out of range, message
 * gives the range), NPU_ERR_STATE (running). */
npu_status npu_request_set_batch(npu_request *req, uint32_t n);

/* Runs one inference and waits for it: submit, fence wait, fence reset. No
 * allocation, formatting or name lookup happens on this path.
 * Errors: NPU_ERR_STATE (an async inference is running), NPU_ERR_DRIVER. If
 * the wait itself fails the request stays running: npu_request_wait again. */
npu_status npu_request_infer(npu_request *req);

/* Submits one inference and returns at once. Errors: NPU_ERR_STATE (already
 * running), NPU_ERR_DRIVER. */
npu_status npu_request_start(npu_request *req);

/* Waits up to timeout_ns (UINT64_MAX: forever; 0: poll) for the started
 * inference. NPU_OK when finished (outputs are ready), NPU_NOT_READY on timeout,
 * NPU_OK at once if nothing runs. */
npu_status npu_request_wait(npu_request *req, uint64_t timeout_ns);

/* npu_request_wait(req, 0). */
npu_status npu_request_poll(npu_request *req);

/* ---- States (ReadValue / Assign variables) ----
 * A stateful model carries each variable from one inference to the next: the
 * value its Assign wrote is what its ReadValue reads next time. The request keeps
 * two buffers per variable and alternates them (two recorded sets of command
 * lists), so carrying a state costs nothing per inference. A new request starts
 * with zeroed states. Not while the request runs (NPU_ERR_STATE). */
uint32_t npu_request_state_count(const npu_request *req);
/* desc->name is the variable id. Errors: NPU_ERR_NOT_FOUND. */
npu_status npu_request_state(const npu_request *req, uint32_t index, npu_tensor_desc *desc);
/* The buffer the next inference reads (the value after the last one); the caller
 * may read or write it in place until the next inference. NULL if out of range. */
void *npu_request_state_data(npu_request *req, uint32_t index);
/* Copies `size` bytes (the state's bytes exactly) into the state. */
npu_status npu_request_state_set(npu_request *req, uint32_t index, const void *data, size_t size);
/* Zero-fills the state. */
npu_status npu_request_state_reset(npu_request *req, uint32_t index);
