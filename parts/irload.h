/* parts/irload.h: section of npu.h (merged into npu.h before release). */

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

/* Exact arena capacity npu_ir_load_memory() needs for this XML (one scan, no
 * memory taken). ctx may be NULL. Errors: those of loading that the XML alone
 * shows (NPU_ERR_PARSE, NPU_ERR_UNSUPPORTED, NPU_ERR_LIMIT), INVALID_ARGUMENT. */
npu_status npu_ir_size(npu_context *ctx, const char *xml, size_t xml_len, size_t *bytes);

/* The same for a file: maps xml_path for the scan and unmaps it. NPU_ERR_IO when
 * the file cannot be opened or mapped. The answer is exact for npu_ir_open of the
 * same (unchanged) file. */
npu_status npu_ir_size_file(npu_context *ctx, const char *xml_path, size_t *bytes);

/* Loads an IR from caller memory. xml/xml_len: the XML text (no terminator
 * needed). weights/weights_size: the .bin contents (NULL/0 for none). Nothing is
 * copied: both must outlive the npu_ir (see the top of this section). On failure
 * the arena is left as it was and *out is NULL. ctx may be NULL (no message); the
 * object reports later errors into it. */
npu_status npu_ir_load_memory(npu_arena *arena, npu_context *ctx, const char *xml,
                              size_t xml_len, const void *weights, uint64_t weights_size,
                              npu_ir **out);

/* Loads xml_path and maps bin_path read-only. bin_path NULL: xml_path with its
 * ".xml" suffix replaced by ".bin" (or ".bin" appended); a missing .bin then
 * means "no weights" (any Const with bytes fails with NPU_ERR_FORMAT naming the
 * path). An explicit bin_path that cannot be opened is NPU_ERR_IO. Call
 * npu_ir_close() to unmap. On failure nothing stays mapped and the arena is left
 * as it was. */
npu_status npu_ir_open(npu_arena *arena, npu_context *ctx, const char *xml_path,
                       const char *bin_path, npu_ir **out);

/* Releases the mappings of npu_ir_open (no-op for npu_ir_load_memory and NULL).
 * The object and every pointer it returned (names, const data) must not be used
 * afterwards; its arena memory is the caller's to reuse. Payloads written in
 * layout B point into the mapping: close only after compiling them. */
void npu_ir_close(npu_ir *ir);

/* Bytes the loaded object keeps in its arena. */
size_t npu_ir_arena_bytes(const npu_ir *ir);

/* IR version (10 or 11). */
uint32_t npu_ir_version(const npu_ir *ir);
/* The weights the IR was loaded with (mapping base or caller pointer; NULL if none). */
const void *npu_ir_weights(const npu_ir *ir, uint64_t *size);

/* Counts and entries. Out-of-range indices (and NULL ir) give NULL. Entries live
 * as long as the npu_ir. */
uint32_t npu_ir_input_count(const npu_ir *ir);
const npu_ir_io *npu_ir_input(const npu_ir *ir, uint32_t index);
uint32_t npu_ir_output_count(const npu_ir *ir);
const npu_ir_io *npu_ir_output(const npu_ir *ir, uint32_t index);
uint32_t npu_ir_const_count(const npu_ir *ir);
const npu_ir_const *npu_ir_const_at(const npu_ir *ir, uint32_t index);
uint32_t npu_ir_state_count(const npu_ir *ir);
const npu_ir_state *npu_ir_state_at(const npu_ir *ir, uint32_t index);

/* Sets the layout of input (is_output 0) or output (is_output 1) `index`, e.g.
 * "NCHW", "NC", "N...C", "?C" (letters, '?', at most one "..."; without "..."
 * exactly one character per dim). "" clears it. Moves the batch axis to the N,
 * or to 0 when there is none. Errors: NPU_ERR_NOT_FOUND (index),
 * NPU_ERR_INVALID_ARGUMENT (syntax, or rank mismatch: message names the input). */
npu_status npu_ir_set_layout(npu_ir *ir, int is_output, uint32_t index, const char *layout);

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
npu_status npu_ir_set_batch(npu_ir *ir, int64_t batch, int64_t *original_batch);

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
npu_status npu_ir_write_payload(const npu_ir *ir, const npu_payload_options *opts, void *dst,
                                size_t cap, size_t *size);
