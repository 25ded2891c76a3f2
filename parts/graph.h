/* parts/graph.h: section of npu.h (merged into npu.h before release). */

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
 * or without 'N'. Inference carries the dynamic dim through the graph.
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
 * values live in the graph's arena; the caller's array is not kept).
 * The simplest exact recipe: build the graph once in a big arena, read
 * npu_graph_bytes_used(); the same calls always take the same bytes.
 *
 * Threads: a graph and its nodes are used by one thread at a time. Constant data
 * is never copied: the caller keeps it alive and unchanged while the graph is
 * written and until the compile call that consumes the payload returns. */

typedef struct npu_graph npu_graph;
typedef struct npu_node npu_node;

/* Longest node, graph or variable name, including the NUL (the driver's
 * argument-name field has this size). */
#define NPU_NAME_MAX 256
/* Spatial axes of convolution and pooling attributes (input rank - 2). */
#define NPU_MAX_SPATIAL (NPU_MAX_RANK - 2)

typedef struct npu_graph_options {
    const char *name;      /* model name (<net name=...>); NULL: "npu_graph" */
    uint32_t max_nodes;    /* 0: no limit; otherwise adding more nodes gives
                              NPU_ERR_LIMIT (implicit constants count too) */
} npu_graph_options;

/* Bytes npu_graph_create takes from an arena with these options (NULL:
 * defaults). 0 if the name is too long. Thread-safe. */
size_t npu_graph_size(const npu_graph_options *options);
/* Bytes each node takes before its name (see "Memory" above). Thread-safe. */
size_t npu_graph_node_size(void);

/* Creates an empty graph in `arena`; nodes are carved from the same arena as
 * they are added, so the arena must outlive the graph and must not be rewound
 * below the graph's allocations while the graph is in use. ctx (may be NULL)
 * receives the messages. options may be NULL.
 * Errors: NPU_ERR_INVALID_ARGUMENT (arena or out NULL), NPU_ERR_LIMIT (name too
 * long), NPU_ERR_ARENA_TOO_SMALL. */
npu_status npu_graph_create(npu_arena *arena, npu_context *ctx, const npu_graph_options *options,
                            npu_graph **out);

/* Bytes the graph and all its nodes have taken from the arena so far. */
size_t npu_graph_bytes_used(const npu_graph *g);
/* The first failure of any builder op (NPU_OK if none; NPU_ERR_INVALID_ARGUMENT
 * for a NULL graph) and its message ("" if none; valid as long as the graph). */
npu_status npu_graph_status(const npu_graph *g);
const char *npu_graph_first_error(const npu_graph *g);
/* Forgets the sticky failure (for callers that handled it, e.g. retried the op
 * in a bigger arena). */
void npu_graph_clear_status(npu_graph *g);
/* The model name, the number of nodes (implicit constants included). */
const char *npu_graph_name(const npu_graph *g);
uint32_t npu_graph_node_count(const npu_graph *g);

/* Node facts. NULL node: "" / NPU_TYPE_UNDEFINED / NPU_ERR_INVALID_ARGUMENT. */
const char *npu_node_name(const npu_node *node);
npu_type npu_node_type(const npu_node *node);
npu_status npu_node_shape(const npu_node *node, npu_shape *out);

/* ---- Sources and sinks ---- */

/* A model input. layout (may be NULL) as in npu_graph_set_layout. shape is
 * copied. Dynamic dims: see above. */
npu_node *npu_graph_parameter(npu_graph *g, const char *name, npu_type type, const npu_shape *shape,
                              const char *layout);
/* A constant. `data` (never NULL) holds `bytes` bytes, which must equal
 * npu_type_size(type) x elements of the static shape (at least one element).
 * The pointer is kept, not the bytes: see the lifetime rule above. */
npu_node *npu_graph_constant(npu_graph *g, const char *name, npu_type type, const npu_shape *shape,
                             const void *data, size_t bytes);
/* A model output; outputs are numbered in the order Results are added. */
npu_node *npu_graph_result(npu_graph *g, npu_node *value, const char *name);

/* Sets the layout of a Parameter or Result: one letter A-Z or '?' per axis
 * ("NCHW", "NC", "N?C"), each letter once; NULL or "" clears it. 'N' names the
 * batch axis. Written to the IR as the port's layout rt_info ("[N,C,H,W]"); for a
 * Result on its input port. Errors: NPU_ERR_INVALID_ARGUMENT (not a Parameter or
 * Result, bad letters, length != rank, a Parameter's dynamic dim not on the
 * new batch axis); the node is unchanged then. Not sticky. */
npu_status npu_graph_set_layout(npu_node *node, const char *layout);

/* ---- Element-wise and activation ops (opset1; Softmax opset8) ---- */

/* destination_type `to`; same shape. */
npu_node *npu_graph_convert(npu_graph *g, npu_node *x, npu_type to, const char *name);
/* Binary ops with numpy broadcasting; both inputs must have the same type. */
npu_node *npu_graph_add(npu_graph *g, npu_node *a, npu_node *b, const char *name);
npu_node *npu_graph_subtract(npu_graph *g, npu_node *a, npu_node *b, const char *name);
npu_node *npu_graph_multiply(npu_graph *g, npu_node *a, npu_node *b, const char *name);
npu_node *npu_graph_divide(npu_graph *g, npu_node *a, npu_node *b, const char *name);
npu_node *npu_graph_maximum(npu_graph *g, npu_node *a, npu_node *b, const char *name);
npu_node *npu_graph_minimum(npu_graph *g, npu_node *a, npu_node *b, const char *name);
npu_node *npu_graph_relu(npu_graph *g, npu_node *x, const char *name);
npu_node *npu_graph_sigmoid(npu_graph *g, npu_node *x, const char *name);
npu_node *npu_graph_tanh(npu_graph *g, npu_node *x, const char *name);
npu_node *npu_graph_exp(npu_graph *g, npu_node *x, const char *name);
npu_node *npu_graph_sqrt(npu_graph *g, npu_node *x, const char *name);
/* min <= max. */
npu_node *npu_graph_clamp(npu_graph *g, npu_node *x, double min, double max, const char *name);
/* axis in [-rank, rank-1]; floating-point types only. */
npu_node *npu_graph_softmax(npu_graph *g, npu_node *x, int64_t axis, const char *name);

/* MatMul with OpenVINO's rules: a 1-D input is a row (a) or column (b) vector
 * and its axis is removed from the output (transpose is ignored for it);
 * transpose_a/b swap the last two axes; batch axes broadcast (numpy). */
npu_node *npu_graph_matmul(npu_graph *g, npu_node *a, npu_node *b, int transpose_a,
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
npu_node *npu_graph_convolution(npu_graph *g, npu_node *x, npu_node *weights,
                                const npu_conv_params *params, const char *name);
/* x [N, G*C_in, spatial...], weights [G, C_out, C_in, kernel...]; output
 * channels G*C_out. */
npu_node *npu_graph_group_convolution(npu_graph *g, npu_node *x, npu_node *weights,
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

npu_node *npu_graph_max_pool(npu_graph *g, npu_node *x, const npu_pool_params *params,
                             const char *name);
npu_node *npu_graph_avg_pool(npu_graph *g, npu_node *x, const npu_pool_params *params,
                             const char *name);

/* ---- Shape ops; their arrays become i64 Constant inputs in the IR ---- */

/* axes in [-rank, rank-1], each once; n_axes 0 reduces nothing. */
npu_node *npu_graph_reduce_mean(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                                int keep_dims, const char *name);
npu_node *npu_graph_reduce_sum(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                               int keep_dims, const char *name);
/* target: rank values; -1 (at most once) is inferred; with special_zero a 0
 * copies the input dim at that index. */
npu_node *npu_graph_reshape(npu_graph *g, npu_node *x, const int64_t *target, size_t rank,
                            int special_zero, const char *name);
/* Removes the given axes (each of size 1); n_axes 0 removes every static 1
 * (then no axes input is written). */
npu_node *npu_graph_squeeze(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                            const char *name);
/* Inserts size-1 axes; axes index the output (in [-out_rank, out_rank-1]). */
npu_node *npu_graph_unsqueeze(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                              const char *name);
/* perm: a permutation of 0..rank-1; n 0 reverses the axes. */
npu_node *npu_graph_transpose(npu_graph *g, npu_node *x, const int64_t *perm, size_t n,
                              const char *name);
/* n >= 1 inputs of one type and rank, equal but for `axis`. */
npu_node *npu_graph_concat(npu_graph *g, npu_node *const *inputs, size_t n, int64_t axis,
                           const char *name);

/* ---- State (opset6 ReadValue / Assign) ---- */

/* Declares state variable `variable_id` (unique, < NPU_NAME_MAX bytes) of this
 * type and shape and reads it. init (may be NULL) gives the initial value and
 * must have that type and shape. Each ReadValue is one state of the model. */
npu_node *npu_graph_read_value(npu_graph *g, npu_node *init, const char *variable_id,
                               npu_type type, const npu_shape *shape, const char *name);
/* Writes `value` to the variable a ReadValue declared (once per variable); value
 * must have the variable's type and shape. */
npu_node *npu_graph_assign(npu_graph *g, npu_node *value, const char *variable_id,
                           const char *name);

/* ---- Introspection (used by the device section) ---- */

/* Inputs (Parameters) and outputs (Results) in the order they were added, and
 * state variables (ReadValues) in order. The desc's name points into the graph.
 * For a state, name is the variable id. bytes counts a dynamic dim as 1.
 * Errors: NPU_ERR_INVALID_ARGUMENT, NPU_ERR_NOT_FOUND (index out of range). */
uint32_t npu_graph_input_count(const npu_graph *g);
npu_status npu_graph_input(const npu_graph *g, uint32_t index, npu_tensor_desc *out);
uint32_t npu_graph_output_count(const npu_graph *g);
npu_status npu_graph_output(const npu_graph *g, uint32_t index, npu_tensor_desc *out);
uint32_t npu_graph_state_count(const npu_graph *g);
npu_status npu_graph_state(const npu_graph *g, uint32_t index, npu_tensor_desc *out);

/* ---- Batch ---- */

/* Sets the batch axis (see "Dynamic shapes") of every Parameter of rank >= 1 to
 * `batch` (>= 1, or NPU_DIM_DYNAMIC) and re-infers every node in order. On
 * failure (e.g. a Reshape whose fixed target no longer fits) the graph keeps its
 * previous shapes and the message names the node. Not sticky. */
npu_status npu_graph_set_batch(npu_graph *g, int64_t batch);
/* The batch of the Parameters: their common batch dim, NPU_DIM_DYNAMIC if it
 * is dynamic in all, 0 if they disagree or there is no Parameter. */
int64_t npu_graph_batch(const npu_graph *g);

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
npu_status npu_graph_write_payload(const npu_graph *g, const npu_payload_options *opts, void *dst,
                                   size_t cap, size_t *size);
/* Just the IR XML that the payload with these options carries (opts may be
 * NULL: layout B, threshold 0). With layout A it pairs with npu_graph_write_bin
 * as a model.xml / model.bin that OpenVINO reads. */
npu_status npu_graph_write_xml(const npu_graph *g, const npu_payload_options *opts, void *dst,
                               size_t cap, size_t *size);
/* Every constant packed in layer order (the layout-A weights, i.e. model.bin). */
npu_status npu_graph_write_bin(const npu_graph *g, void *dst, size_t cap, size_t *size);
