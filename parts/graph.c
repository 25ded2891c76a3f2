/* parts/graph.c: section of npu.c (merged into npu.c before release). */

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

typedef enum npu__op {
    NPU__OP_PARAMETER,
    NPU__OP_CONSTANT,
    NPU__OP_RESULT,
    NPU__OP_CONVERT,
    NPU__OP_MATMUL,
    NPU__OP_ADD,
    NPU__OP_SUBTRACT,
    NPU__OP_MULTIPLY,
    NPU__OP_DIVIDE,
    NPU__OP_MAXIMUM,
    NPU__OP_MINIMUM,
    NPU__OP_RELU,
    NPU__OP_SIGMOID,
    NPU__OP_TANH,
    NPU__OP_EXP,
    NPU__OP_SQRT,
    NPU__OP_CLAMP,
    NPU__OP_SOFTMAX,
    NPU__OP_CONVOLUTION,
    NPU__OP_GROUP_CONVOLUTION,
    NPU__OP_MAX_POOL,
    NPU__OP_AVG_POOL,
    NPU__OP_REDUCE_MEAN,
    NPU__OP_REDUCE_SUM,
    NPU__OP_RESHAPE,
    NPU__OP_SQUEEZE,
    NPU__OP_UNSQUEEZE,
    NPU__OP_TRANSPOSE,
    NPU__OP_CONCAT,
    NPU__OP_READ_VALUE,
    NPU__OP_ASSIGN,
    NPU__OP_COUNT
} npu__op;

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
    const char *ir_type;     /* layer type= */
    const char *version;     /* layer version= */
    const char *op_name;     /* OpenVINO class name: messages and automatic names */
    uint8_t cat;
    npu__infer_fn infer;     /* NULL: sources, shape set at creation */
    npu__attrs_fn attrs;     /* writes the <data> attributes; NULL: no <data> */
} npu__op_info;

static const npu__op_info npu__ops[NPU__OP_COUNT];

static const char *npu__op_name(const npu_node *n) { return npu__ops[n->op].op_name; }

/* "Op 'name': detail" into m. */
static void npu__vmsg(npu__msg *m, const npu_node *n, const char *fmt, va_list ap)
{
    char detail[320];
    vsnprintf(detail, sizeof detail, fmt, ap);
    snprintf(m->text, sizeof m->text, "%s '%s': %s", npu__op_name(n), n->name, detail);
}

NPU__PRINTF(4, 5)
static npu_status npu__ierr(npu__msg *m, const npu_node *n, npu_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    npu__vmsg(m, n, fmt, ap);
    va_end(ap);
    return status;
}

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

static const char *npu__sh(const npu_shape *s, char *buf) { return npu__shape_str(s, buf, 96); }

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
    return npu__ierr(m, n, NPU_ERR_TYPE, "input %u has type %s, input 0 has type %s", i, npu_type_name(ti),
                     npu_type_name(t0));
}

/* Input 0 is numeric (arithmetic is not defined on boolean). */
static npu_status npu__numeric(npu__msg *m, const npu_node *n)
{
    if (n->inputs[0]->type != NPU_BOOL) return NPU_OK;
    return npu__ierr(m, n, NPU_ERR_TYPE, "input 0 has type boolean; a numeric type is needed");
}

/* Normalizes an axis of input 0. */
static npu_status npu__input_axis(npu__msg *m, const npu_node *n, int64_t axis, uint32_t *out)
{
    const npu_shape *x = &n->inputs[0]->shape;
    char s0[96];
    if (npu__norm_axis(axis, x->rank, out)) return NPU_OK;
    return npu__ierr(m, n, NPU_ERR_SHAPE, "axis %lld is out of range for input 0 of shape %s", (long long)axis,
                     npu__sh(x, s0));
}

/* `value` has the type and a compatible shape of variable node `var`. */
static npu_status npu__variable_fits(npu__msg *m, const npu_node *n, const npu_node *value, const npu_node *var)
{
    char s0[96], s1[96];
    if (value->type != var->type)
        return npu__ierr(m, n, NPU_ERR_TYPE, "input 0 has type %s, variable '%s' has type %s",
                         npu_type_name(value->type), var->a.var.variable_id, npu_type_name(var->type));
    if (!npu__shapes_match(&value->shape, &var->shape))
        return npu__ierr(m, n, NPU_ERR_SHAPE, "input 0 has shape %s, variable '%s' has shape %s",
                         npu__sh(&value->shape, s0), var->a.var.variable_id, npu__sh(&var->shape, s1));
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
    char s0[96], s1[96];
    npu_status st = npu__same_type(m, n, 1);
    if (st == NPU_OK) st = npu__numeric(m, n);
    if (st != NPU_OK) return st;
    npu__shape_set(&n->shape, 0);
    if (!npu__bcast(a->shape.dims, a->shape.rank, b->shape.dims, b->shape.rank, n->shape.dims,
                    &n->shape.rank))
        return npu__ierr(m, n, NPU_ERR_SHAPE,
                         "input 1 has shape %s, input 0 has shape %s (not broadcastable)",
                         npu__sh(&b->shape, s1), npu__sh(&a->shape, s0));
    n->type = a->type;
    return NPU_OK;
}

static npu_status npu__infer_clamp(npu_node *n, npu__msg *m)
{
    if (!(n->a.clamp.min <= n->a.clamp.max))
        return npu__ierr(m, n, NPU_ERR_INVALID_ARGUMENT, "min %g is not <= max %g", n->a.clamp.min,
                         n->a.clamp.max);
    return npu__infer_unary_arith(n, m);
}

static npu_status npu__infer_softmax(npu_node *n, npu__msg *m)
{
    const npu_node *x = n->inputs[0];
    uint32_t axis;
    npu_status st;
    if (!npu__type_is_float(x->type))
        return npu__ierr(m, n, NPU_ERR_TYPE, "input 0 has type %s; f32, f16 or bf16 is needed",
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
    char s0[96], s1[96];
    npu_status st = npu__same_type(m, n, 1);
    if (st != NPU_OK) return st;
    if (ra == 0 || rb == 0)
        return npu__ierr(m, n, NPU_ERR_SHAPE, "input %d is a scalar (shapes %s and %s)",
                         ra == 0 ? 0 : 1, npu__sh(&a->shape, s0), npu__sh(&b->shape, s1));
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
        return npu__ierr(m, n, NPU_ERR_SHAPE,
                         "input 1 has shape %s, input 0 has shape %s: inner dims %lld and %lld "
                         "differ (transpose_a=%d, transpose_b=%d)",
                         npu__sh(&b->shape, s1), npu__sh(&a->shape, s0), (long long)ka,
                         (long long)kb, n->a.matmul.transpose_a != 0, n->a.matmul.transpose_b != 0);
    if (!npu__bcast(da, ra - 2, db, rb - 2, batch, &rbatch))
        return npu__ierr(m, n, NPU_ERR_SHAPE,
                         "input 1 has shape %s, input 0 has shape %s: batch dims not broadcastable",
                         npu__sh(&b->shape, s1), npu__sh(&a->shape, s0));
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
    char s0[96], s1[96];
    npu_status st = npu__same_type(m, n, 1);
    if (st != NPU_OK) return st;
    if (r < 3)
        return npu__ierr(m, n, NPU_ERR_SHAPE, "input 0 has shape %s; rank 3 or more is needed",
                         npu__sh(&x->shape, s0));
    if (w->shape.rank != r + (group ? 1u : 0u))
        return npu__ierr(m, n, NPU_ERR_SHAPE,
                         "input 1 has shape %s, input 0 has shape %s: weights need rank %u",
                         npu__sh(&w->shape, s1), npu__sh(&x->shape, s0), r + (group ? 1u : 0u));
    if (!npu__auto_pad_valid(n->a.conv.auto_pad))
        return npu__ierr(m, n, NPU_ERR_INVALID_ARGUMENT, "unknown auto_pad %d", (int)n->a.conv.auto_pad);
    sp = r - 2;
    cin = w->shape.dims[group ? 2 : 1];
    cout = w->shape.dims[group ? 1 : 0];
    if (group) {   /* G groups: G * C_in input and G * C_out output channels */
        int64_t groups = w->shape.dims[0];
        if (npu__dim_dyn(groups)) cin = cout = NPU_DIM_DYNAMIC;
        if ((!npu__dim_dyn(cin) && npu__dim_mul(cin, groups, &cin)) ||
            (!npu__dim_dyn(cout) && npu__dim_mul(cout, groups, &cout)))
            return npu__ierr(m, n, NPU_ERR_OVERFLOW, "input 1 has shape %s: channels overflow",
                             npu__sh(&w->shape, s1));
    }
    if (!npu__dims_match(x->shape.dims[1], cin))
        return npu__ierr(m, n, NPU_ERR_SHAPE,
                         "input 1 has shape %s, input 0 has shape %s: input channels %lld, "
                         "weights expect %lld",
                         npu__sh(&w->shape, s1), npu__sh(&x->shape, s0),
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
            return npu__ierr(m, n, NPU_ERR_INVALID_ARGUMENT,
                             "spatial axis %u: negative stride, dilation or pad", i);
        if (k < 1)
            return npu__ierr(m, n, NPU_ERR_SHAPE, "input 1 has shape %s: kernel dims must be static and >= 1",
                             npu__sh(&w->shape, s1));
        if (npu__dim_mul(k - 1, *dl, &k_eff) || npu__dim_add(k_eff, 1, &k_eff))
            st_dim = NPU_ERR_OVERFLOW;
        else
            st_dim = npu__window_dim(x->shape.dims[2 + i], k_eff, *stride, n->a.conv.pads_begin[i],
                                     n->a.conv.pads_end[i], n->a.conv.auto_pad, 0, &n->shape.dims[2 + i]);
        if (st_dim != NPU_OK)
            return npu__ierr(m, n, st_dim,
                             "input 1 has shape %s, input 0 has shape %s: the dilated kernel %s the "
                             "padded input on spatial axis %u",
                             npu__sh(&w->shape, s1), npu__sh(&x->shape, s0),
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
    char s0[96];
    if (r < 3)
        return npu__ierr(m, n, NPU_ERR_SHAPE, "input 0 has shape %s; rank 3 or more is needed",
                         npu__sh(&x->shape, s0));
    st = npu__numeric(m, n);
    if (st != NPU_OK) return st;
    if (!npu__auto_pad_valid(n->a.pool.auto_pad) ||
        (unsigned)n->a.pool.rounding_type > (unsigned)NPU_ROUND_CEIL)
        return npu__ierr(m, n, NPU_ERR_INVALID_ARGUMENT, "unknown auto_pad or rounding_type");
    sp = r - 2;
    npu__shape_set(&n->shape, r);
    n->shape.dims[0] = x->shape.dims[0];
    n->shape.dims[1] = x->shape.dims[1];
    for (i = 0; i < sp; i++) {
        int64_t k = n->a.pool.kernel[i];
        if (n->a.pool.strides[i] == 0) n->a.pool.strides[i] = 1;
        if (k < 1 || n->a.pool.strides[i] < 0 || n->a.pool.pads_begin[i] < 0 || n->a.pool.pads_end[i] < 0)
            return npu__ierr(m, n, NPU_ERR_INVALID_ARGUMENT,
                             "spatial axis %u: kernel %lld (must be >= 1) or a negative stride/pad",
                             i, (long long)k);
        st = npu__window_dim(x->shape.dims[2 + i], k, n->a.pool.strides[i], n->a.pool.pads_begin[i],
                             n->a.pool.pads_end[i], n->a.pool.auto_pad,
                             n->a.pool.rounding_type == NPU_ROUND_CEIL, &n->shape.dims[2 + i]);
        if (st != NPU_OK)
            return npu__ierr(m, n, st, "input 0 has shape %s: kernel %lld %s the padded input on spatial axis %u",
                             npu__sh(&x->shape, s0), (long long)k,
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
            return npu__ierr(m, n, NPU_ERR_INVALID_ARGUMENT, "axis %lld is given twice",
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
    char s0[96], s1[96];
    npu__shape_set(&n->shape, cnt);
    for (i = 0; i < cnt; i++) {
        int64_t d = t[i];
        if (d == -1) {
            if (infer_at != UINT32_MAX)
                return npu__ierr(m, n, NPU_ERR_SHAPE, "target shape has more than one -1");
            infer_at = i;
            continue;
        }
        if (d < -1) return npu__ierr(m, n, NPU_ERR_SHAPE, "target dim %u is %lld", i, (long long)d);
        if (d == 0 && n->a.flag.flag) {
            if (i >= x->shape.rank)
                return npu__ierr(m, n, NPU_ERR_SHAPE,
                                 "target dim %u is 0 (special_zero) but input 0 of shape %s has "
                                 "no axis %u",
                                 i, npu__sh(&x->shape, s0), i);
            n->shape.dims[i] = x->shape.dims[i];
            copied[i] = 1;
            continue;
        }
        n->shape.dims[i] = d;
        if (npu__mul_u64(known, (uint64_t)d, &known))
            return npu__ierr(m, n, NPU_ERR_OVERFLOW, "target shape overflows");
    }
    for (i = 0; i < x->shape.rank; i++) {
        if (i < cnt && copied[i]) continue;
        if (npu__dim_dyn(x->shape.dims[i])) dynamic = 1;
        else if (npu__mul_u64(total, (uint64_t)x->shape.dims[i], &total))
            return npu__ierr(m, n, NPU_ERR_OVERFLOW, "input 0 shape overflows");
    }
    if (dynamic) {
        if (infer_at != UINT32_MAX) n->shape.dims[infer_at] = NPU_DIM_DYNAMIC;
    } else if (infer_at != UINT32_MAX) {
        if (known == 0 || total % known != 0)
            return npu__ierr(m, n, NPU_ERR_SHAPE,
                             "input 0 has shape %s, which does not fit target %s", npu__sh(&x->shape, s0),
                             npu__sh(&n->shape, s1));
        n->shape.dims[infer_at] = (int64_t)(total / known);
    } else if (known != total) {
        return npu__ierr(m, n, NPU_ERR_SHAPE, "input 0 has shape %s (%llu elements), target %s has %llu",
                         npu__sh(&x->shape, s0), (unsigned long long)npu_shape_elements(&x->shape),
                         npu__sh(&n->shape, s1), (unsigned long long)npu_shape_elements(&n->shape));
    }
    n->type = x->type;
    return NPU_OK;
}

static npu_status npu__infer_squeeze(npu_node *n, npu__msg *m)
{
    const npu_node *x = n->inputs[0];
    uint32_t i, r = x->shape.rank, ax, cnt = 0;
    unsigned char drop[NPU_MAX_RANK] = {0};
    char s0[96];
    if (n->n_inputs > 1) {
        const int64_t *axes = npu__const_i64(n->inputs[1], &cnt);
        for (i = 0; i < cnt; i++) {
            npu_status st = npu__input_axis(m, n, axes[i], &ax);
            if (st != NPU_OK) return st;
            if (x->shape.dims[ax] != 1)
                return npu__ierr(m, n, NPU_ERR_SHAPE,
                                 "input 0 has shape %s: axis %u is not of size 1", npu__sh(&x->shape, s0),
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
    char s0[96];
    out_rank = x->shape.rank + cnt;
    if (out_rank > NPU_MAX_RANK)
        return npu__ierr(m, n, NPU_ERR_LIMIT, "input 0 has shape %s: the output would have rank %u > %d",
                         npu__sh(&x->shape, s0), out_rank, NPU_MAX_RANK);
    for (i = 0; i < cnt; i++) {
        if (!npu__norm_axis(axes[i], out_rank, &ax))
            return npu__ierr(m, n, NPU_ERR_SHAPE, "axis %lld is out of range for output rank %u",
                             (long long)axes[i], out_rank);
        if (add[ax])
            return npu__ierr(m, n, NPU_ERR_INVALID_ARGUMENT, "axis %lld is given twice",
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
    char s0[96];
    if (cnt != x->shape.rank)
        return npu__ierr(m, n, NPU_ERR_SHAPE, "perm has %u values, input 0 has shape %s", cnt,
                         npu__sh(&x->shape, s0));
    npu__shape_set(&n->shape, cnt);
    for (i = 0; i < cnt; i++) {
        if (perm[i] < 0 || perm[i] >= (int64_t)cnt || seen[perm[i]])
            return npu__ierr(m, n, NPU_ERR_INVALID_ARGUMENT,
                             "perm is not a permutation of 0..%u (value %lld at %u)", cnt - 1,
                             (long long)perm[i], i);
        seen[perm[i]] = 1;
        n->shape.dims[i] = x->shape.dims[perm[i]];
    }
    n->type = x->type;
    return NPU_OK;
}

static npu_status npu__infer_concat(npu_node *n, npu__msg *m)
{
    const npu_node *x0 = n->inputs[0];
    uint32_t i, j, ax;
    char s0[96], s1[96];
    npu_status st = npu__input_axis(m, n, n->a.axis.axis, &ax);
    if (st != NPU_OK) return st;
    n->a.axis.axis = ax;
    n->shape = x0->shape;
    for (i = 1; i < n->n_inputs; i++) {
        const npu_node *xi = n->inputs[i];
        st = npu__same_type(m, n, i);
        if (st != NPU_OK) return st;
        if (xi->shape.rank != x0->shape.rank)
            return npu__ierr(m, n, NPU_ERR_SHAPE, "input %u has shape %s, input 0 has shape %s", i,
                             npu__sh(&xi->shape, s1), npu__sh(&x0->shape, s0));
        for (j = 0; j < x0->shape.rank; j++) {
            int64_t a = n->shape.dims[j], b = xi->shape.dims[j];
            if (j == ax) {
                if (npu__dim_dyn(a) || npu__dim_dyn(b)) n->shape.dims[j] = NPU_DIM_DYNAMIC;
                else if (npu__dim_add(a, b, &n->shape.dims[j]))
                    return npu__ierr(m, n, NPU_ERR_OVERFLOW, "input %u has shape %s: the concat axis %u "
                                     "overflows", i, npu__sh(&xi->shape, s1), ax);
            } else if (!npu__dims_match(a, b)) {
                return npu__ierr(m, n, NPU_ERR_SHAPE,
                                 "input %u has shape %s, input 0 has shape %s (differ on axis %u, "
                                 "concat axis %u)",
                                 i, npu__sh(&xi->shape, s1), npu__sh(&x0->shape, s0), j, ax);
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

size_t npu_graph_node_size(void) { return NPU_ARENA_ROUND(sizeof(struct npu_node)); }

size_t npu_graph_size(const npu_graph_options *options)
{
    const char *name = options && options->name ? options->name : npu__graph_default_name;
    size_t len = strlen(name);
    if (len >= NPU_NAME_MAX) return 0;
    return NPU_ARENA_ROUND(sizeof(struct npu_graph)) + NPU_ARENA_ROUND(len + 1);
}

npu_status npu_graph_create(npu_arena *arena, npu_context *ctx, const npu_graph_options *options,
                            npu_graph **out)
{
    const char *name = options && options->name ? options->name : npu__graph_default_name;
    size_t mark, len;
    npu_graph *g;
    char *name_copy;
    if (out == NULL) return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_graph_create: out is NULL");
    *out = NULL;
    if (arena == NULL) return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_graph_create: arena is NULL");
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

size_t npu_graph_bytes_used(const npu_graph *g) { return g ? g->bytes_used : 0; }
npu_status npu_graph_status(const npu_graph *g) { return g ? g->status : NPU_ERR_INVALID_ARGUMENT; }
const char *npu_graph_first_error(const npu_graph *g) { return g ? g->first_error : ""; }
const char *npu_graph_name(const npu_graph *g) { return g ? g->name : ""; }
uint32_t npu_graph_node_count(const npu_graph *g) { return g ? g->node_count : 0; }

void npu_graph_clear_status(npu_graph *g)
{
    if (g == NULL) return;
    g->status = NPU_OK;
    g->first_error[0] = '\0';
}

const char *npu_node_name(const npu_node *node) { return node ? node->name : ""; }
npu_type npu_node_type(const npu_node *node) { return node ? node->type : NPU_TYPE_UNDEFINED; }

npu_status npu_node_shape(const npu_node *node, npu_shape *out)
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
    npu__fail(g->ctx, status, "%s", msg);
    return NULL;
}

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
    npu__op op;
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
    const char *op_name = npu__ops[rq->op].op_name;
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
        npu__auto_name(g, npu__ops[NPU__OP_CONSTANT].op_name, g->node_count, NULL, const_name,
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
    n->op = (uint8_t)rq->op;
    n->cat = npu__ops[rq->op].cat;
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
    if (npu__ops[n->op].infer != NULL) st = npu__ops[n->op].infer(n, &m);
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

static npu_node *npu__simple(npu_graph *g, npu__op op, npu_node *const *inputs, uint32_t n_inputs,
                             const char *name)
{
    npu__op_request rq;
    memset(&rq, 0, sizeof rq);
    rq.op = op;
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

npu_status npu_graph_set_layout(npu_node *node, const char *layout)
{
    npu_graph *g;
    const char *why;
    uint32_t bad;
    char s0[96];
    if (node == NULL) return NPU_ERR_INVALID_ARGUMENT;
    g = node->graph;
    if (layout == NULL) layout = "";
    if (node->op != NPU__OP_PARAMETER && node->op != NPU__OP_RESULT)
        return npu__fail(g->ctx, NPU_ERR_INVALID_ARGUMENT,
                         "%s '%s': a layout can be set only on a Parameter or a Result",
                         npu__op_name(node), node->name);
    if (layout[0] != '\0' && (why = npu__layout_check(layout, &node->shape)) != NULL)
        return npu__fail(g->ctx, NPU_ERR_INVALID_ARGUMENT, "%s '%s': layout \"%.20s\" %s (shape %s)",
                         npu__op_name(node), node->name, layout, why, npu__sh(&node->shape, s0));
    if (node->op == NPU__OP_PARAMETER && !npu__dynamic_ok(&node->shape, layout, &bad))
        return npu__fail(g->ctx, NPU_ERR_INVALID_ARGUMENT,
                         "Parameter '%s': shape %s is dynamic on axis %u, but layout \"%s\" puts "
                         "the batch on axis %u",
                         node->name, npu__sh(&node->shape, s0), bad, layout, npu__batch_axis(layout));
    npu__strlcpy(node->layout, layout, sizeof node->layout);
    return NPU_OK;
}

/* ---- Builder ops ---- */

/* Checks a caller's type and shape for a source node; 0 (op aborted) if bad. */
static int npu__check_source(npu_graph *g, npu_node *n, npu_type type, const npu_shape *shape)
{
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

npu_node *npu_graph_parameter(npu_graph *g, const char *name, npu_type type, const npu_shape *shape,
                              const char *layout)
{
    npu_node *n = npu__simple(g, NPU__OP_PARAMETER, NULL, 0, name);
    const char *why;
    uint32_t bad;
    char s0[96];
    if (n == NULL) return NULL;
    if (!npu__check_source(g, n, type, shape)) return NULL;
    if (layout == NULL) layout = "";
    if (layout[0] != '\0' && (why = npu__layout_check(layout, shape)) != NULL)
        return npu__op_abort(g, n, NPU_ERR_INVALID_ARGUMENT, "layout \"%.20s\" %s (shape %s)", layout,
                             why, npu__sh(shape, s0));
    if (!npu__dynamic_ok(shape, layout, &bad))
        return npu__op_abort(g, n, NPU_ERR_SHAPE,
                             "shape %s is dynamic on axis %u; only the batch axis (%u) may be dynamic",
                             npu__sh(shape, s0), bad, npu__batch_axis(layout));
    n->type = type;
    n->shape = *shape;
    npu__strlcpy(n->layout, layout, sizeof n->layout);
    return npu__op_finish(g, n);
}

npu_node *npu_graph_constant(npu_graph *g, const char *name, npu_type type, const npu_shape *shape,
                             const void *data, size_t bytes)
{
    npu_node *n = npu__simple(g, NPU__OP_CONSTANT, NULL, 0, name);
    uint64_t elements, need = 0;
    uint32_t i;
    char s0[96];
    if (n == NULL) return NULL;
    if (!npu__check_source(g, n, type, shape)) return NULL;
    for (i = 0; i < shape->rank; i++)
        if (shape->dims[i] < 0)
            return npu__op_abort(g, n, NPU_ERR_SHAPE, "shape %s: a constant cannot be dynamic",
                                 npu__sh(shape, s0));
    if (data == NULL) return npu__op_abort(g, n, NPU_ERR_INVALID_ARGUMENT, "data is NULL");
    elements = npu_shape_elements(shape);
    if (elements == 0)
        return npu__op_abort(g, n, NPU_ERR_SHAPE, "shape %s has no elements (or overflows)",
                             npu__sh(shape, s0));
    if (npu__mul_u64(elements, npu_type_size(type), &need) || need != (uint64_t)bytes)
        return npu__op_abort(g, n, NPU_ERR_INVALID_ARGUMENT,
                             "%zu bytes given; shape %s of %s needs %llu", bytes, npu__sh(shape, s0),
                             npu_type_name(type), (unsigned long long)need);
    n->type = type;
    n->shape = *shape;
    n->a.constant.data = data;
    n->a.constant.bytes = bytes;
    return npu__op_finish(g, n);
}

npu_node *npu_graph_result(npu_graph *g, npu_node *value, const char *name)
{
    npu_node *n = npu__simple(g, NPU__OP_RESULT, &value, 1, name);
    return n ? npu__op_finish(g, n) : NULL;
}

npu_node *npu_graph_convert(npu_graph *g, npu_node *x, npu_type to, const char *name)
{
    npu_node *n = npu__simple(g, NPU__OP_CONVERT, &x, 1, name);
    if (n == NULL) return NULL;
    if (!npu__type_valid(to))
        return npu__op_abort(g, n, NPU_ERR_TYPE, "unknown destination type %d", (int)to);
    n->a.convert.to = to;
    return npu__op_finish(g, n);
}

static npu_node *npu__binary(npu_graph *g, npu__op op, npu_node *a, npu_node *b, const char *name)
{
    npu_node *in[2];
    npu_node *n;
    in[0] = a;
    in[1] = b;
    n = npu__simple(g, op, in, 2, name);
    return n ? npu__op_finish(g, n) : NULL;
}

npu_node *npu_graph_add(npu_graph *g, npu_node *a, npu_node *b, const char *name)
{ return npu__binary(g, NPU__OP_ADD, a, b, name); }
npu_node *npu_graph_subtract(npu_graph *g, npu_node *a, npu_node *b, const char *name)
{ return npu__binary(g, NPU__OP_SUBTRACT, a, b, name); }
npu_node *npu_graph_multiply(npu_graph *g, npu_node *a, npu_node *b, const char *name)
{ return npu__binary(g, NPU__OP_MULTIPLY, a, b, name); }
npu_node *npu_graph_divide(npu_graph *g, npu_node *a, npu_node *b, const char *name)
{ return npu__binary(g, NPU__OP_DIVIDE, a, b, name); }
npu_node *npu_graph_maximum(npu_graph *g, npu_node *a, npu_node *b, const char *name)
{ return npu__binary(g, NPU__OP_MAXIMUM, a, b, name); }
npu_node *npu_graph_minimum(npu_graph *g, npu_node *a, npu_node *b, const char *name)
{ return npu__binary(g, NPU__OP_MINIMUM, a, b, name); }

static npu_node *npu__unary(npu_graph *g, npu__op op, npu_node *x, const char *name)
{
    npu_node *n = npu__simple(g, op, &x, 1, name);
    return n ? npu__op_finish(g, n) : NULL;
}

npu_node *npu_graph_relu(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, NPU__OP_RELU, x, name); }
npu_node *npu_graph_sigmoid(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, NPU__OP_SIGMOID, x, name); }
npu_node *npu_graph_tanh(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, NPU__OP_TANH, x, name); }
npu_node *npu_graph_exp(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, NPU__OP_EXP, x, name); }
npu_node *npu_graph_sqrt(npu_graph *g, npu_node *x, const char *name)
{ return npu__unary(g, NPU__OP_SQRT, x, name); }

npu_node *npu_graph_clamp(npu_graph *g, npu_node *x, double min, double max, const char *name)
{
    npu_node *n = npu__simple(g, NPU__OP_CLAMP, &x, 1, name);
    if (n == NULL) return NULL;
    n->a.clamp.min = min;
    n->a.clamp.max = max;
    return npu__op_finish(g, n);
}

npu_node *npu_graph_softmax(npu_graph *g, npu_node *x, int64_t axis, const char *name)
{
    npu_node *n = npu__simple(g, NPU__OP_SOFTMAX, &x, 1, name);
    if (n == NULL) return NULL;
    n->a.axis.axis = axis;
    return npu__op_finish(g, n);
}

npu_node *npu_graph_matmul(npu_graph *g, npu_node *a, npu_node *b, int transpose_a, int transpose_b,
                           const char *name)
{
    npu_node *in[2];
    npu_node *n;
    in[0] = a;
    in[1] = b;
    n = npu__simple(g, NPU__OP_MATMUL, in, 2, name);
    if (n == NULL) return NULL;
    n->a.matmul.transpose_a = transpose_a != 0;
    n->a.matmul.transpose_b = transpose_b != 0;
    return npu__op_finish(g, n);
}

static npu_node *npu__conv(npu_graph *g, npu__op op, npu_node *x, npu_node *w,
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

npu_node *npu_graph_convolution(npu_graph *g, npu_node *x, npu_node *weights,
                                const npu_conv_params *params, const char *name)
{ return npu__conv(g, NPU__OP_CONVOLUTION, x, weights, params, name); }
npu_node *npu_graph_group_convolution(npu_graph *g, npu_node *x, npu_node *weights,
                                      const npu_conv_params *params, const char *name)
{ return npu__conv(g, NPU__OP_GROUP_CONVOLUTION, x, weights, params, name); }

static npu_node *npu__pool(npu_graph *g, npu__op op, npu_node *x, const npu_pool_params *p,
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

npu_node *npu_graph_max_pool(npu_graph *g, npu_node *x, const npu_pool_params *params, const char *name)
{ return npu__pool(g, NPU__OP_MAX_POOL, x, params, name); }
npu_node *npu_graph_avg_pool(npu_graph *g, npu_node *x, const npu_pool_params *params, const char *name)
{ return npu__pool(g, NPU__OP_AVG_POOL, x, params, name); }

/* Ops whose array attribute becomes an implicit i64 Constant input. */
static npu_node *npu__with_values(npu_graph *g, npu__op op, npu_node *x, const int64_t *values,
                                  size_t n_values, int has_values, int flag, const char *name)
{
    npu__op_request rq;
    npu_node *n;
    memset(&rq, 0, sizeof rq);
    rq.op = op;
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

npu_node *npu_graph_reduce_mean(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                                int keep_dims, const char *name)
{ return npu__with_values(g, NPU__OP_REDUCE_MEAN, x, axes, n_axes, 1, keep_dims, name); }
npu_node *npu_graph_reduce_sum(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                               int keep_dims, const char *name)
{ return npu__with_values(g, NPU__OP_REDUCE_SUM, x, axes, n_axes, 1, keep_dims, name); }
npu_node *npu_graph_reshape(npu_graph *g, npu_node *x, const int64_t *target, size_t rank,
                            int special_zero, const char *name)
{ return npu__with_values(g, NPU__OP_RESHAPE, x, target, rank, 1, special_zero, name); }
npu_node *npu_graph_squeeze(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                            const char *name)
{ return npu__with_values(g, NPU__OP_SQUEEZE, x, axes, n_axes, n_axes > 0, 0, name); }
npu_node *npu_graph_unsqueeze(npu_graph *g, npu_node *x, const int64_t *axes, size_t n_axes,
                              const char *name)
{ return npu__with_values(g, NPU__OP_UNSQUEEZE, x, axes, n_axes, 1, 0, name); }

npu_node *npu_graph_transpose(npu_graph *g, npu_node *x, const int64_t *perm, size_t n,
                              const char *name)
{
    int64_t reversed[NPU_MAX_RANK];
    if (n == 0 && x != NULL && g != NULL && x->graph == g) {
        uint32_t i;
        for (i = 0; i < x->shape.rank; i++) reversed[i] = (int64_t)(x->shape.rank - 1 - i);
        perm = reversed;
        n = x->shape.rank;
    }
    return npu__with_values(g, NPU__OP_TRANSPOSE, x, perm, n, 1, 0, name);
}

npu_node *npu_graph_concat(npu_graph *g, npu_node *const *inputs, size_t n, int64_t axis,
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
    node = npu__simple(g, NPU__OP_CONCAT, inputs, (uint32_t)n, name);
    if (node == NULL) return NULL;
    node->a.axis.axis = axis;
    return npu__op_finish(g, node);
}

static npu_node *npu__find_variable(const npu_graph *g, const char *id)
{
    npu_node *n;
    for (n = g->first; n != NULL; n = n->next)
        if (n->op == NPU__OP_READ_VALUE && strcmp(n->a.var.variable_id, id) == 0) return n;
    return NULL;
}

npu_node *npu_graph_read_value(npu_graph *g, npu_node *init, const char *variable_id, npu_type type,
                               const npu_shape *shape, const char *name)
{
    npu__op_request rq;
    npu_node *n;
    uint32_t bad;
    char s0[96];
    if (g == NULL) return NULL;
    if (variable_id == NULL)
        return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT, "ReadValue '%s': variable_id is NULL",
                                name ? name : "?");
    if (npu__find_variable(g, variable_id) != NULL)
        return npu__graph_failf(g, NPU_ERR_INVALID_ARGUMENT,
                                "ReadValue '%s': variable '%.64s' is already declared",
                                name ? name : "?", variable_id);
    memset(&rq, 0, sizeof rq);
    rq.op = NPU__OP_READ_VALUE;
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
                             npu__sh(shape, s0), bad);
    n->type = type;
    n->shape = *shape;
    return npu__op_finish(g, n);
}

npu_node *npu_graph_assign(npu_graph *g, npu_node *value, const char *variable_id, const char *name)
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
    n = npu__simple(g, NPU__OP_ASSIGN, &value, 1, name);
    if (n == NULL) return NULL;
    n->a.var.variable_id = rv->a.var.variable_id;
    n->a.var.read_value = rv;
    return npu__op_finish(g, n);
}

/* ---- Introspection ---- */

static const npu_node *npu__nth(const npu_graph *g, npu__op op, uint32_t index)
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
    const npu_node *n;
    if (g == NULL || out == NULL) return NPU_ERR_INVALID_ARGUMENT;
    n = npu__nth(g, op, index);
    if (n == NULL)
        return npu__fail(g->ctx, NPU_ERR_NOT_FOUND, "graph '%s': no %s %u (it has %u)", g->name, what,
                         index,
                         op == NPU__OP_PARAMETER ? g->cat_count[NPU__CAT_PARAMETER]
                         : op == NPU__OP_RESULT  ? g->cat_count[NPU__CAT_RESULT]
                                                 : g->state_count);
    npu__desc(n, op == NPU__OP_READ_VALUE ? n->a.var.variable_id : n->name, out);
    return NPU_OK;
}

uint32_t npu_graph_input_count(const npu_graph *g) { return g ? g->cat_count[NPU__CAT_PARAMETER] : 0; }
uint32_t npu_graph_output_count(const npu_graph *g) { return g ? g->cat_count[NPU__CAT_RESULT] : 0; }
uint32_t npu_graph_state_count(const npu_graph *g) { return g ? g->state_count : 0; }

npu_status npu_graph_input(const npu_graph *g, uint32_t index, npu_tensor_desc *out)
{ return npu__io(g, NPU__OP_PARAMETER, index, out, "input"); }
npu_status npu_graph_output(const npu_graph *g, uint32_t index, npu_tensor_desc *out)
{ return npu__io(g, NPU__OP_RESULT, index, out, "output"); }
npu_status npu_graph_state(const npu_graph *g, uint32_t index, npu_tensor_desc *out)
{ return npu__io(g, NPU__OP_READ_VALUE, index, out, "state"); }

/* ---- Batch ---- */

/* Re-infers every derived node in creation order; on failure m holds why. */
static npu_status npu__reinfer(npu_graph *g, npu__msg *m)
{
    npu_node *n;
    for (n = g->first; n != NULL; n = n->next) {
        npu__infer_fn f = npu__ops[n->op].infer;
        if (f != NULL) {
            npu_status st = f(n, m);
            if (st != NPU_OK) return st;
        }
    }
    return NPU_OK;
}

npu_status npu_graph_set_batch(npu_graph *g, int64_t batch)
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
    for (n = g->first; n != NULL; n = n->next)
        if (n->op == NPU__OP_PARAMETER && n->shape.rank > 0)
            n->shape.dims[npu__batch_axis(n->layout)] = n->a.parameter.saved_batch;
    {
        npu__msg again;
        (void)npu__reinfer(g, &again);  /* the old shapes inferred before, so they do again */
    }
    return npu__fail(g->ctx, st, "set_batch(%lld): %s", (long long)batch, m.text);
}

int64_t npu_graph_batch(const npu_graph *g)
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
} npu__writer;

static uint32_t npu__layer_id(const npu__writer *w, const npu_node *n)
{
    return w->cat_base[n->cat] + n->cat_index;
}

/* A constant whose data the XML points at (layout B, at/above the threshold). */
static int npu__by_pointer(const npu__writer *w, const npu_node *n)
{
    return w->pointer_layout && n->a.constant.bytes >= w->threshold;
}

static void npu__x(npu__sink *s, const char *t) { npu__sink_str(s, t); }

static void npu__x_tabs(npu__sink *s, unsigned n)
{
    static const char tabs[] = "\t\t\t\t\t\t\t\t";
    npu__sink_put(s, tabs, n < 8 ? n : 8);
}

/* ` name="`: the value and the closing quote follow. */
static void npu__x_attr_open(npu__sink *s, const char *name)
{
    npu__x(s, " ");
    npu__x(s, name);
    npu__x(s, "=\"");
}

static void npu__x_attr_str(npu__sink *s, const char *name, const char *value)
{
    npu__x_attr_open(s, name);
    npu__sink_xml_escaped(s, value, strlen(value));
    npu__x(s, "\"");
}

static void npu__x_attr_i64(npu__sink *s, const char *name, int64_t v)
{
    npu__x_attr_open(s, name);
    npu__sink_i64_dec(s, v);
    npu__x(s, "\"");
}

static void npu__x_attr_u64(npu__sink *s, const char *name, uint64_t v)
{
    npu__x_attr_open(s, name);
    npu__sink_u64_dec(s, v);
    npu__x(s, "\"");
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
        if (i) npu__x(s, sep);
        if (v[i] < 0 && sep[1] == '\0') npu__x(s, "?");
        else npu__sink_i64_dec(s, v[i]);
    }
    npu__x(s, "\"");
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

/* Constants are written by the layer writer (their offset depends on it). */
static void npu__attrs_none(npu__sink *s, const npu_node *n)
{
    NPU__UNUSED(s);
    NPU__UNUSED(n);
}

static const npu__op_info npu__ops[NPU__OP_COUNT] = {
    /* PARAMETER */ {"Parameter", "opset1", "Parameter", NPU__CAT_PARAMETER, NULL, npu__attrs_parameter},
    /* CONSTANT  */ {"Const", "opset1", "Constant", NPU__CAT_OP, NULL, npu__attrs_none},
    /* RESULT    */ {"Result", "opset1", "Result", NPU__CAT_RESULT, npu__infer_result, NULL},
    /* CONVERT   */ {"Convert", "opset1", "Convert", NPU__CAT_OP, npu__infer_convert, npu__attrs_convert},
    /* MATMUL    */ {"MatMul", "opset1", "MatMul", NPU__CAT_OP, npu__infer_matmul, npu__attrs_matmul},
    /* ADD       */ {"Add", "opset1", "Add", NPU__CAT_OP, npu__infer_binary, npu__attrs_broadcast},
    /* SUBTRACT  */ {"Subtract", "opset1", "Subtract", NPU__CAT_OP, npu__infer_binary, npu__attrs_broadcast},
    /* MULTIPLY  */ {"Multiply", "opset1", "Multiply", NPU__CAT_OP, npu__infer_binary, npu__attrs_broadcast},
    /* DIVIDE    */ {"Divide", "opset1", "Divide", NPU__CAT_OP, npu__infer_binary, npu__attrs_broadcast},
    /* MAXIMUM   */ {"Maximum", "opset1", "Maximum", NPU__CAT_OP, npu__infer_binary, npu__attrs_broadcast},
    /* MINIMUM   */ {"Minimum", "opset1", "Minimum", NPU__CAT_OP, npu__infer_binary, npu__attrs_broadcast},
    /* RELU      */ {"ReLU", "opset1", "Relu", NPU__CAT_OP, npu__infer_unary_arith, NULL},
    /* SIGMOID   */ {"Sigmoid", "opset1", "Sigmoid", NPU__CAT_OP, npu__infer_unary_arith, NULL},
    /* TANH      */ {"Tanh", "opset1", "Tanh", NPU__CAT_OP, npu__infer_unary_arith, NULL},
    /* EXP       */ {"Exp", "opset1", "Exp", NPU__CAT_OP, npu__infer_unary_arith, NULL},
    /* SQRT      */ {"Sqrt", "opset1", "Sqrt", NPU__CAT_OP, npu__infer_unary_arith, NULL},
    /* CLAMP     */ {"Clamp", "opset1", "Clamp", NPU__CAT_OP, npu__infer_clamp, npu__attrs_clamp},
    /* SOFTMAX   */ {"SoftMax", "opset8", "Softmax", NPU__CAT_OP, npu__infer_softmax, npu__attrs_axis},
    /* CONV      */ {"Convolution", "opset1", "Convolution", NPU__CAT_OP, npu__infer_conv, npu__attrs_conv},
    /* GROUPCONV */ {"GroupConvolution", "opset1", "GroupConvolution", NPU__CAT_OP, npu__infer_conv,
                     npu__attrs_conv},
    /* MAXPOOL   */ {"MaxPool", "opset1", "MaxPool", NPU__CAT_OP, npu__infer_pool, npu__attrs_pool},
    /* AVGPOOL   */ {"AvgPool", "opset1", "AvgPool", NPU__CAT_OP, npu__infer_pool, npu__attrs_pool},
    /* REDMEAN   */ {"ReduceMean", "opset1", "ReduceMean", NPU__CAT_OP, npu__infer_reduce,
                     npu__attrs_keep_dims},
    /* REDSUM    */ {"ReduceSum", "opset1", "ReduceSum", NPU__CAT_OP, npu__infer_reduce, npu__attrs_keep_dims},
    /* RESHAPE   */ {"Reshape", "opset1", "Reshape", NPU__CAT_OP, npu__infer_reshape, npu__attrs_special_zero},
    /* SQUEEZE   */ {"Squeeze", "opset1", "Squeeze", NPU__CAT_OP, npu__infer_squeeze, NULL},
    /* UNSQUEEZE */ {"Unsqueeze", "opset1", "Unsqueeze", NPU__CAT_OP, npu__infer_unsqueeze, NULL},
    /* TRANSPOSE */ {"Transpose", "opset1", "Transpose", NPU__CAT_OP, npu__infer_transpose, NULL},
    /* CONCAT    */ {"Concat", "opset1", "Concat", NPU__CAT_OP, npu__infer_concat, npu__attrs_axis},
    /* READVALUE */ {"ReadValue", "opset6", "ReadValue", NPU__CAT_OP, npu__infer_read_value,
                     npu__attrs_read_value},
    /* ASSIGN    */ {"Assign", "opset6", "Assign", NPU__CAT_ASSIGN, npu__infer_assign, npu__attrs_assign},
};

/* Tensor names: OpenVINO escapes ',' as "\," inside the list. */
static void npu__x_tensor_name(npu__sink *s, const char *name)
{
    const char *p = name, *comma;
    while ((comma = strchr(p, ',')) != NULL) {
        npu__sink_xml_escaped(s, p, (size_t)(comma - p));
        npu__x(s, "\\,");
        p = comma + 1;
    }
    npu__sink_xml_escaped(s, p, strlen(p));
}

static void npu__x_layout_rt_info(npu__sink *s, const char *layout)
{
    size_t i;
    npu__x_tabs(s, 5);
    npu__x(s, "<rt_info>\n");
    npu__x_tabs(s, 6);
    npu__x(s, "<attribute name=\"layout\" version=\"0\" layout=\"[");
    for (i = 0; layout[i] != '\0'; i++) {
        if (i) npu__x(s, ",");
        npu__sink_xml_escaped(s, &layout[i], 1);
    }
    npu__x(s, "]\" />\n");
    npu__x_tabs(s, 5);
    npu__x(s, "</rt_info>\n");
}

/* One <port>; `names_of`: the node whose tensor names this output carries
 * (NULL for input ports). */
static void npu__x_port(npu__sink *s, uint32_t id, const npu_node *tensor, const npu_node *names_of,
                        const char *layout)
{
    uint32_t i;
    int has_names = 0;
    npu__x_tabs(s, 4);
    npu__x(s, "<port id=\"");
    npu__sink_u64_dec(s, id);
    npu__x(s, "\" precision=\"");
    npu__x(s, npu__types[tensor->type].ov_precision);
    npu__x(s, "\"");
    if (names_of != NULL) {
        const npu_node *r;
        if (names_of->op == NPU__OP_PARAMETER) {
            npu__x(s, " names=\"");
            npu__x_tensor_name(s, names_of->name);
            has_names = 1;
        }
        for (r = names_of->first_result; r != NULL; r = r->next_result) {
            npu__x(s, has_names ? "," : " names=\"");
            npu__x_tensor_name(s, r->name);
            has_names = 1;
        }
        if (has_names) npu__x(s, "\"");
    }
    if (tensor->shape.rank == 0 && (layout == NULL || layout[0] == '\0')) {
        npu__x(s, " />\n");
        return;
    }
    npu__x(s, ">\n");
    for (i = 0; i < tensor->shape.rank; i++) {
        npu__x_tabs(s, 5);
        npu__x(s, "<dim>");
        npu__sink_i64_dec(s, tensor->shape.dims[i] < 0 ? -1 : tensor->shape.dims[i]);
        npu__x(s, "</dim>\n");
    }
    if (layout != NULL && layout[0] != '\0') npu__x_layout_rt_info(s, layout);
    npu__x_tabs(s, 4);
    npu__x(s, "</port>\n");
}

static void npu__x_layer(npu__writer *w, const npu_node *n)
{
    npu__sink *s = w->s;
    const npu__op_info *info = &npu__ops[n->op];
    uint32_t i;
    npu__x_tabs(s, 2);
    npu__x(s, "<layer id=\"");
    npu__sink_u64_dec(s, npu__layer_id(w, n));
    npu__x(s, "\"");
    npu__x_attr_str(s, "name", n->name);
    npu__x_attr_str(s, "type", info->ir_type);
    npu__x_attr_str(s, "version", info->version);
    npu__x(s, ">\n");
    if (n->op == NPU__OP_CONSTANT) {
        int by_pointer = npu__by_pointer(w, n);
        npu__x_tabs(s, 3);
        npu__x(s, "<data");
        npu__x_attr_str(s, "element_type", npu__types[n->type].ov_name);
        npu__x_attr_list(s, "shape", n->shape.dims, n->shape.rank, ", ");
        npu__x_attr_u64(s, "offset", by_pointer ? 0 : w->offset);
        npu__x_attr_u64(s, "size", n->a.constant.bytes);
        npu__x(s, " />\n");
        if (by_pointer) {
            npu__x_tabs(s, 3);
            npu__x(s, "<rt_info>\n");
            npu__x_tabs(s, 4);
            npu__x(s, "<attribute name=\"WeightsPointerAttribute\" version=\"0\"");
            npu__x_attr_u64(s, "mp", (uint64_t)(uintptr_t)n->a.constant.data);
            npu__x_attr_u64(s, "ms", n->a.constant.bytes);
            npu__x(s, " />\n");
            npu__x_tabs(s, 3);
            npu__x(s, "</rt_info>\n");
        } else if (npu__add_u64(w->offset, n->a.constant.bytes, &w->offset)) {
            s->overflow = 1;
        }
    } else if (info->attrs != NULL) {
        npu__x_tabs(s, 3);
        npu__x(s, "<data");
        info->attrs(s, n);
        npu__x(s, " />\n");
    }
    if (n->n_inputs > 0) {
        npu__x_tabs(s, 3);
        npu__x(s, "<input>\n");
        for (i = 0; i < n->n_inputs; i++)
            npu__x_port(s, i, n->inputs[i], NULL, n->op == NPU__OP_RESULT ? n->layout : NULL);
        npu__x_tabs(s, 3);
        npu__x(s, "</input>\n");
    }
    if (n->op != NPU__OP_RESULT) {
        npu__x_tabs(s, 3);
        npu__x(s, "<output>\n");
        npu__x_port(s, n->n_inputs, n, n, n->op == NPU__OP_PARAMETER ? n->layout : NULL);
        npu__x_tabs(s, 3);
        npu__x(s, "</output>\n");
    }
    npu__x_tabs(s, 2);
    npu__x(s, "</layer>\n");
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
}

static void npu__x_graph(npu__writer *w)
{
    npu__sink *s = w->s;
    const npu_graph *g = w->g;
    const npu_node *n;
    unsigned cat;
    uint32_t i;
    w->offset = 0;
    npu__x(s, "<?xml version=\"1.0\"?>\n<net");
    npu__x_attr_str(s, "name", g->name);
    npu__x(s, " version=\"11\">\n\t<layers>\n");
    NPU__FOR_EACH_LAYER(g, cat, n) npu__x_layer(w, n);
    npu__x(s, "\t</layers>\n\t<edges>\n");
    NPU__FOR_EACH_LAYER(g, cat, n) {
        for (i = 0; i < n->n_inputs; i++) {
            const npu_node *src = n->inputs[i];
            npu__x(s, "\t\t<edge from-layer=\"");
            npu__sink_u64_dec(s, npu__layer_id(w, src));
            npu__x(s, "\" from-port=\"");
            npu__sink_u64_dec(s, src->n_inputs);
            npu__x(s, "\" to-layer=\"");
            npu__sink_u64_dec(s, npu__layer_id(w, n));
            npu__x(s, "\" to-port=\"");
            npu__sink_u64_dec(s, i);
            npu__x(s, "\" />\n");
        }
    }
    npu__x(s, "\t</edges>\n\t<rt_info>\n\t\t<is_new_api value=\"true\" />\n"
              "\t\t<use_indices_for_io_metadata value=\"true\" />\n\t</rt_info>\n</net>\n");
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

npu_status npu_graph_write_xml(const npu_graph *g, const npu_payload_options *opts, void *dst,
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

npu_status npu_graph_write_bin(const npu_graph *g, void *dst, size_t cap, size_t *size)
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

npu_status npu_graph_write_payload(const npu_graph *g, const npu_payload_options *opts, void *dst,
                                   size_t cap, size_t *size)
{
    npu__sink s;
    npu__writer w;
    npu__payload p;
    int overflow = 0;
    npu_status st = npu__writer_check(g, opts, size, "npu_graph_write_payload");
    if (st != NPU_OK) return st;
    if (opts == NULL || opts->compiler_version == 0)
        return npu__fail(g->ctx, NPU_ERR_INVALID_ARGUMENT,
                         "npu_graph_write_payload: compiler_version is 0; set it to the driver's "
                         "compiler version (NPU_COMPILER_VERSION(major, minor))");
    npu__sink_init(&s, dst, cap);
    npu__writer_init(&w, &s, g, opts);
    npu__payload_begin(&p, &s, opts->layout, opts->compiler_version);
    if (w.pointer_layout) npu__put_constants(&w, 1);
    npu__payload_mark_xml(&p);
    npu__x_graph(&w);
    npu__payload_end_xml(&p);
    if (!w.pointer_layout) {
        uint64_t total = npu__constants_bytes(g, &overflow);
        npu__sink_le(&s, total, 8);   /* the weights section: size, then the bytes */
        npu__put_constants(&w, 0);
        if (overflow) s.overflow = 1;
    }
    return npu__sink_finish(&s, g->ctx, "npu_graph_write_payload", size);
}
