/* Graph builder: shape/type inference per op, errors that name op, node, input
 * and shapes, sticky failures, names, exact arena sizes, batch re-inference and
 * introspection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "npu.h"

static _Alignas(16) unsigned char mem[1 << 20];
static _Alignas(16) unsigned char ctx_mem[8192];
static const float weights[4 * 3 * 3 * 3] = {0};
static const float small[64] = {0};

typedef struct fixture {
    npu_arena arena, ctx_arena;
    npu_context *ctx;
    npu_graph *g;
} fixture;

static fixture fx;

static int setup(void **state)
{
    (void)state;
    assert_int_equal(npu_arena_init(&fx.ctx_arena, ctx_mem, sizeof ctx_mem), NPU_OK);
    assert_int_equal(npu_context_create(&fx.ctx_arena, NULL, &fx.ctx), NPU_OK);
    assert_int_equal(npu_arena_init(&fx.arena, mem, sizeof mem), NPU_OK);
    assert_int_equal(npu_graph_create(&fx.arena, fx.ctx, NULL, &fx.g), NPU_OK);
    return 0;
}

static npu_shape shp(uint32_t rank, ...)
{
    npu_shape s;
    va_list ap;
    uint32_t i;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    va_start(ap, rank);
    for (i = 0; i < rank; i++) s.dims[i] = va_arg(ap, int64_t);
    va_end(ap);
    return s;
}
#define S(...) shp(__VA_ARGS__)
#define D(x) ((int64_t)(x))

/* Asserts a node's shape equals the given dims. */
static void check_shape(const npu_node *n, uint32_t rank, ...)
{
    npu_shape s;
    va_list ap;
    uint32_t i;
    assert_non_null(n);
    assert_int_equal(npu_node_shape(n, &s), NPU_OK);
    if (s.rank != rank) fail_msg("node '%s' has rank %u, expected %u", npu_node_name(n), s.rank, rank);
    va_start(ap, rank);
    for (i = 0; i < rank; i++) {
        int64_t d = va_arg(ap, int64_t);
        if (s.dims[i] != d)
            fail_msg("node '%s' dim %u is %lld, expected %lld", npu_node_name(n), i,
                     (long long)s.dims[i], (long long)d);
    }
    va_end(ap);
}

static void check_error_has(const char *needle)
{
    const char *msg = npu_context_last_error(fx.ctx);
    if (strstr(msg, needle) == NULL) fail_msg("message \"%s\" lacks \"%s\"", msg, needle);
}

static npu_node *param(const char *name, npu_shape s)
{
    return npu_graph_parameter(fx.g, name, NPU_F32, &s, NULL);
}

static void test_graph_size_query_is_exact(void **state)
{
    npu_arena a;
    npu_graph *g = NULL;
    npu_graph_options o = {.name = "my_model", .max_nodes = 0};
    size_t need = npu_graph_size(&o), cap;
    (void)state;
    assert_true(need > 0 && need % NPU_ARENA_ALIGN == 0);
    for (cap = 0; cap < need; cap += 16) {
        assert_int_equal(npu_arena_init(&a, mem, cap), NPU_OK);
        assert_int_equal(npu_graph_create(&a, fx.ctx, &o, &g), NPU_ERR_ARENA_TOO_SMALL);
        assert_null(g);
        assert_int_equal(npu_arena_used(&a), 0);
    }
    assert_int_equal(npu_arena_init(&a, mem, need), NPU_OK);
    assert_int_equal(npu_graph_create(&a, fx.ctx, &o, &g), NPU_OK);
    assert_int_equal(npu_arena_used(&a), need);
    assert_int_equal(npu_graph_bytes_used(g), need);
    assert_string_equal(npu_graph_name(g), "my_model");
    assert_int_equal(npu_graph_size(NULL), npu_graph_size(&(npu_graph_options){.name = "npu_graph", .max_nodes = 0}));
}

static void test_graph_create_rejects_bad_arguments(void **state)
{
    npu_graph *g;
    char long_name[NPU_NAME_MAX + 1];
    npu_graph_options o;
    (void)state;
    assert_int_equal(npu_graph_create(NULL, fx.ctx, NULL, &g), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_graph_create(&fx.arena, fx.ctx, NULL, NULL), NPU_ERR_INVALID_ARGUMENT);
    memset(long_name, 'a', NPU_NAME_MAX);
    long_name[NPU_NAME_MAX] = '\0';
    memset(&o, 0, sizeof o);
    o.name = long_name;
    o.max_nodes = 0;
    assert_int_equal(npu_graph_create(&fx.arena, fx.ctx, &o, &g), NPU_ERR_LIMIT);
    assert_int_equal(npu_graph_size(&o), 0);
    /* A reserved word set (a field of a newer npu.h): refused, named. */
    o.name = "g";
    o.reserved[NPU_RESERVED_WORDS - 1] = 7;
    assert_int_equal(npu_graph_create(&fx.arena, fx.ctx, &o, &g), NPU_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(npu_context_last_error(fx.ctx), "graph options: reserved[7] is 7"));
    assert_int_equal(npu_graph_size(&o), 0);
}

static void test_convolution_and_pooling_infer_spatial_dims(void **state)
{
    npu_shape ws = S(4, D(4), D(3), D(3), D(3));
    npu_node *x = param("x", S(4, D(1), D(3), D(8), D(8)));
    npu_node *w = npu_graph_constant(fx.g, "w", NPU_F32, &ws, weights, sizeof weights);
    npu_conv_params p;
    npu_pool_params pp;
    (void)state;
    memset(&p, 0, sizeof p);
    p.pads_begin[0] = p.pads_begin[1] = p.pads_end[0] = p.pads_end[1] = 1;
    check_shape(npu_graph_convolution(fx.g, x, w, &p, "pad1"), 4, D(1), D(4), D(8), D(8));
    check_shape(npu_graph_convolution(fx.g, x, w, NULL, "nopad"), 4, D(1), D(4), D(6), D(6));
    memset(&p, 0, sizeof p);
    p.strides[0] = p.strides[1] = 2;
    check_shape(npu_graph_convolution(fx.g, x, w, &p, "s2"), 4, D(1), D(4), D(3), D(3));
    p.auto_pad = NPU_PAD_SAME_UPPER;
    check_shape(npu_graph_convolution(fx.g, x, w, &p, "same"), 4, D(1), D(4), D(4), D(4));
    memset(&p, 0, sizeof p);
    p.dilations[0] = p.dilations[1] = 2;
    p.auto_pad = NPU_PAD_VALID;
    p.pads_begin[0] = 5; /* ignored with valid */
    check_shape(npu_graph_convolution(fx.g, x, w, &p, "dil"), 4, D(1), D(4), D(4), D(4));

    {   /* depthwise-style group conv: 4 groups of 1 input channel, 2 outputs each */
        npu_shape gs = S(5, D(4), D(2), D(1), D(3), D(3));
        npu_shape xs = S(4, D(1), D(4), D(8), D(8));
        npu_node *x4 = npu_graph_parameter(fx.g, "x4", NPU_F32, &xs, NULL);
        npu_node *gw = npu_graph_constant(fx.g, "gw", NPU_F32, &gs, small, 0);
        assert_null(gw); /* size mismatch: 0 bytes given */
        npu_graph_clear_status(fx.g);
        gw = npu_graph_constant(fx.g, "gw", NPU_F32, &gs, weights, 72 * 4);
        assert_non_null(gw);
        check_shape(npu_graph_group_convolution(fx.g, x4, gw, NULL, "gconv"), 4, D(1), D(8), D(6), D(6));
    }

    memset(&pp, 0, sizeof pp);
    pp.kernel[0] = pp.kernel[1] = 2;
    pp.strides[0] = pp.strides[1] = 2;
    check_shape(npu_graph_max_pool(fx.g, x, &pp, "mp"), 4, D(1), D(3), D(4), D(4));
    pp.kernel[0] = pp.kernel[1] = 3;
    check_shape(npu_graph_avg_pool(fx.g, x, &pp, "ap_floor"), 4, D(1), D(3), D(3), D(3));
    pp.rounding_type = NPU_ROUND_CEIL;
    check_shape(npu_graph_avg_pool(fx.g, x, &pp, "ap_ceil"), 4, D(1), D(3), D(4), D(4));
    pp.rounding_type = NPU_ROUND_FLOOR;
    pp.auto_pad = NPU_PAD_SAME_LOWER;
    check_shape(npu_graph_max_pool(fx.g, x, &pp, "mp_same"), 4, D(1), D(3), D(4), D(4));
    assert_int_equal(npu_graph_status(fx.g), NPU_OK);
}

static void test_matmul_follows_openvino_rank_rules(void **state)
{
    npu_node *a23 = param("a23", S(2, D(2), D(3)));
    npu_node *b34 = param("b34", S(2, D(3), D(4)));
    npu_node *b43 = param("b43", S(2, D(4), D(3)));
    npu_node *v3 = param("v3", S(1, D(3)));
    npu_node *batched = param("batched", S(4, D(5), D(1), D(2), D(3)));
    npu_node *rhs = param("rhs", S(3, D(4), D(3), D(6)));
    (void)state;
    check_shape(npu_graph_matmul(fx.g, a23, b34, 0, 0, NULL), 2, D(2), D(4));
    check_shape(npu_graph_matmul(fx.g, a23, b43, 0, 1, NULL), 2, D(2), D(4));
    check_shape(npu_graph_matmul(fx.g, b34, a23, 1, 1, NULL), 2, D(4), D(2));
    check_shape(npu_graph_matmul(fx.g, v3, b34, 0, 0, NULL), 1, D(4));
    check_shape(npu_graph_matmul(fx.g, a23, v3, 0, 0, NULL), 1, D(2));
    check_shape(npu_graph_matmul(fx.g, v3, v3, 1, 1, NULL), 0);
    check_shape(npu_graph_matmul(fx.g, batched, rhs, 0, 0, NULL), 4, D(5), D(4), D(2), D(6));
    assert_null(npu_graph_matmul(fx.g, a23, b43, 0, 0, "mm_bad"));
    assert_int_equal(npu_context_last_status(fx.ctx), NPU_ERR_SHAPE);
    check_error_has("MatMul 'mm_bad': input 1 has shape [4,3], input 0 has shape [2,3]");
}

static void test_elementwise_ops_broadcast_like_numpy(void **state)
{
    npu_node *a = param("a", S(3, D(2), D(1), D(4)));
    npu_node *b = param("b", S(2, D(3), D(1)));
    npu_node *c = param("c", S(2, D(4), D(3)));
    npu_shape is = S(1, D(2));
    npu_node *ints = npu_graph_parameter(fx.g, "ints", NPU_I32, &is, NULL);
    npu_node *(*const ops[])(npu_graph *, npu_node *, npu_node *, const char *) = {
        npu_graph_add, npu_graph_subtract, npu_graph_multiply,
        npu_graph_divide, npu_graph_maximum, npu_graph_minimum};
    npu_node *(*const unary[])(npu_graph *, npu_node *, const char *) = {
        npu_graph_relu, npu_graph_sigmoid, npu_graph_tanh, npu_graph_exp, npu_graph_sqrt};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++)
        check_shape(ops[i](fx.g, a, b, NULL), 3, D(2), D(3), D(4));
    for (i = 0; i < sizeof unary / sizeof unary[0]; i++)
        check_shape(unary[i](fx.g, a, NULL), 3, D(2), D(1), D(4));
    check_shape(npu_graph_clamp(fx.g, a, 0.0, 6.0, NULL), 3, D(2), D(1), D(4));
    check_shape(npu_graph_softmax(fx.g, a, -1, NULL), 3, D(2), D(1), D(4));
    {
        npu_node *cv = npu_graph_convert(fx.g, a, NPU_F16, NULL);
        check_shape(cv, 3, D(2), D(1), D(4));
        assert_int_equal(npu_node_type(cv), NPU_F16);
    }
    assert_int_equal(npu_graph_status(fx.g), NPU_OK);

    assert_null(npu_graph_add(fx.g, a, c, "sum"));
    assert_int_equal(npu_context_last_status(fx.ctx), NPU_ERR_SHAPE);
    check_error_has("Add 'sum': input 1 has shape [4,3], input 0 has shape [2,1,4]");
    assert_null(npu_graph_multiply(fx.g, a, ints, "mixed"));
    assert_int_equal(npu_context_last_status(fx.ctx), NPU_ERR_TYPE);
    check_error_has("Multiply 'mixed': input 1 has type i32, input 0 has type f32");
    assert_null(npu_graph_clamp(fx.g, a, 2.0, 1.0, "clamp_bad"));
    check_error_has("Clamp 'clamp_bad'");
    assert_null(npu_graph_softmax(fx.g, a, 3, "sm_bad"));
    check_error_has("Softmax 'sm_bad': axis 3 is out of range for input 0 of shape [2,1,4]");
    assert_null(npu_graph_softmax(fx.g, ints, 0, "sm_int"));
    assert_int_equal(npu_context_last_status(fx.ctx), NPU_ERR_TYPE);
    assert_null(npu_graph_convert(fx.g, a, (npu_type)99, "cv_bad"));
    check_error_has("Convert 'cv_bad': unknown destination type 99");
    /* the first failure is the one the graph keeps */
    assert_int_equal(npu_graph_status(fx.g), NPU_ERR_SHAPE);
    assert_non_null(strstr(npu_graph_first_error(fx.g), "Add 'sum'"));
}

static void test_shape_ops_infer_and_store_their_arrays(void **state)
{
    npu_node *x = param("x", S(4, D(1), D(3), D(8), D(8)));
    npu_node *y = param("y", S(4, D(1), D(3), D(1), D(4)));
    const int64_t axes_mean[] = {-1, 1}, flat[] = {0, -1}, rows[] = {-1, 64};
    const int64_t sq0[] = {0}, unsq[] = {0, -1}, nhwc[] = {0, 2, 3, 1};
    npu_node *two[2];
    npu_node *six[6];
    int i;
    (void)state;
    check_shape(npu_graph_reduce_mean(fx.g, x, axes_mean, 2, 1, NULL), 4, D(1), D(1), D(8), D(1));
    check_shape(npu_graph_reduce_sum(fx.g, x, axes_mean, 2, 0, NULL), 2, D(1), D(8));
    check_shape(npu_graph_reduce_sum(fx.g, x, NULL, 0, 0, NULL), 4, D(1), D(3), D(8), D(8));
    check_shape(npu_graph_reshape(fx.g, x, flat, 2, 1, NULL), 2, D(1), D(192));
    check_shape(npu_graph_reshape(fx.g, x, rows, 2, 0, NULL), 2, D(3), D(64));
    check_shape(npu_graph_squeeze(fx.g, y, sq0, 1, NULL), 3, D(3), D(1), D(4));
    check_shape(npu_graph_squeeze(fx.g, y, NULL, 0, NULL), 2, D(3), D(4));
    check_shape(npu_graph_unsqueeze(fx.g, npu_graph_squeeze(fx.g, y, NULL, 0, NULL), unsq, 2, NULL), 4,
                D(1), D(3), D(4), D(1));
    check_shape(npu_graph_transpose(fx.g, x, nhwc, 4, NULL), 4, D(1), D(8), D(8), D(3));
    check_shape(npu_graph_transpose(fx.g, y, NULL, 0, NULL), 4, D(4), D(1), D(3), D(1));
    two[0] = x;
    two[1] = y;
    assert_null(npu_graph_concat(fx.g, two, 2, 1, "cat_bad"));
    check_error_has("Concat 'cat_bad': input 1 has shape [1,3,1,4], input 0 has shape [1,3,8,8]");
    npu_graph_clear_status(fx.g);
    for (i = 0; i < 6; i++) six[i] = y;
    check_shape(npu_graph_concat(fx.g, six, 6, -1, "cat6"), 4, D(1), D(3), D(1), D(24));
    check_shape(npu_graph_concat(fx.g, six, 2, 0, NULL), 4, D(2), D(3), D(1), D(4));
    assert_int_equal(npu_graph_status(fx.g), NPU_OK);

    assert_null(npu_graph_reshape(fx.g, x, rows + 1, 1, 0, "rs_bad"));
    check_error_has("Reshape 'rs_bad': input 0 has shape [1,3,8,8] (192 elements), target [64] has 64");
    assert_null(npu_graph_transpose(fx.g, x, sq0, 1, "tr_bad"));
    check_error_has("Transpose 'tr_bad': perm has 1 values, input 0 has shape [1,3,8,8]");
    assert_null(npu_graph_squeeze(fx.g, x, unsq + 1, 1, "sq_bad"));
    check_error_has("Squeeze 'sq_bad': input 0 has shape [1,3,8,8]: axis 3 is not of size 1");
    assert_null(npu_graph_reduce_mean(fx.g, x, axes_mean, 9, 0, "too_many"));
    assert_int_equal(npu_context_last_status(fx.ctx), NPU_ERR_LIMIT);
}

static void test_convolution_errors_name_the_input_and_shapes(void **state)
{
    npu_shape ws = S(4, D(4), D(2), D(3), D(3));
    npu_node *x = param("x", S(4, D(1), D(3), D(8), D(8)));
    npu_node *w = npu_graph_constant(fx.g, "w", NPU_F32, &ws, weights, 4 * 2 * 9 * 4);
    npu_node *tiny = param("tiny", S(4, D(1), D(2), D(2), D(2)));
    npu_pool_params pp;
    (void)state;
    assert_null(npu_graph_convolution(fx.g, x, w, NULL, "conv"));
    assert_int_equal(npu_context_last_status(fx.ctx), NPU_ERR_SHAPE);
    check_error_has("Convolution 'conv': input 1 has shape [4,2,3,3], input 0 has shape [1,3,8,8]");
    assert_null(npu_graph_convolution(fx.g, tiny, w, NULL, "conv_small"));
    check_error_has("kernel exceeds the padded input");
    memset(&pp, 0, sizeof pp);
    assert_null(npu_graph_max_pool(fx.g, x, &pp, "no_kernel"));
    check_error_has("MaxPool 'no_kernel'");
    assert_null(npu_graph_max_pool(fx.g, x, NULL, "null_params"));
    assert_int_equal(npu_context_last_status(fx.ctx), NPU_ERR_INVALID_ARGUMENT);
}

static void test_errors_are_sticky_and_later_ops_point_at_the_first(void **state)
{
    npu_node *x = param("x", S(2, D(2), D(3)));
    npu_node *bad, *next;
    uint32_t count;
    (void)state;
    bad = npu_graph_add(fx.g, x, param("y", S(2, D(5), D(7))), "sum");
    assert_null(bad);
    count = npu_graph_node_count(fx.g);
    next = npu_graph_relu(fx.g, bad, "act");
    assert_null(next);
    check_error_has("Relu 'act': input 0 is NULL; the first failure in this graph was: Add 'sum'");
    assert_int_equal(npu_graph_status(fx.g), NPU_ERR_SHAPE);
    assert_int_equal(npu_graph_node_count(fx.g), count);
    /* ops with good inputs still work; the status stays */
    assert_non_null(npu_graph_relu(fx.g, x, NULL));
    assert_int_equal(npu_graph_status(fx.g), NPU_ERR_SHAPE);
    npu_graph_clear_status(fx.g);
    assert_int_equal(npu_graph_status(fx.g), NPU_OK);
    assert_null(npu_graph_relu(NULL, x, NULL));
}

static void test_bad_builder_input_gives_clear_errors(void **state)
{
    npu_shape s9 = S(2, D(1), D(2)), neg = S(2, D(2), D(-3)), dyn1 = S(2, D(2), D(-1));
    npu_shape ok = S(2, D(1), D(2));
    char long_name[NPU_NAME_MAX + 8];
    npu_graph *other;
    npu_node *foreign, *x;
    (void)state;
    s9.rank = NPU_MAX_RANK + 1;
    assert_null(npu_graph_parameter(fx.g, "r9", NPU_F32, &s9, NULL));
    assert_int_equal(npu_context_last_status(fx.ctx), NPU_ERR_LIMIT);
    check_error_has("Parameter 'r9': rank 9; at most 8");
    assert_null(npu_graph_parameter(fx.g, "t", (npu_type)77, &ok, NULL));
    assert_int_equal(npu_context_last_status(fx.ctx), NPU_ERR_TYPE);
    check_error_has("Parameter 't': unknown element type 77");
    assert_null(npu_graph_parameter(fx.g, "neg", NPU_F32, &neg, NULL));
    check_error_has("Parameter 'neg': dim 1 is -3");
    assert_null(npu_graph_parameter(fx.g, "dyn", NPU_F32, &dyn1, NULL));
    check_error_has("Parameter 'dyn': shape [2,?] is dynamic on axis 1; only the batch axis (0)");
    /* with a layout naming N on axis 1 the same shape is fine */
    assert_non_null(npu_graph_parameter(fx.g, "dyn_cn", NPU_F32, &dyn1, "CN"));
    assert_null(npu_graph_parameter(fx.g, "bad_layout", NPU_F32, &ok, "NCHW"));
    check_error_has("layout \"NCHW\" has not one letter per axis");
    assert_null(npu_graph_parameter(fx.g, NULL, NPU_F32, NULL, NULL));
    check_error_has("shape is NULL");
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    assert_null(npu_graph_parameter(fx.g, long_name, NPU_F32, &ok, NULL));
    assert_int_equal(npu_context_last_status(fx.ctx), NPU_ERR_LIMIT);
    check_error_has("name of 263 bytes");
    assert_null(npu_graph_constant(fx.g, "nodata", NPU_F32, &ok, NULL, 8));
    check_error_has("Constant 'nodata': data is NULL");
    assert_null(npu_graph_constant(fx.g, "short", NPU_F32, &ok, small, 4));
    check_error_has("Constant 'short': 4 bytes given; shape [1,2] of f32 needs 8");
    assert_null(npu_graph_constant(fx.g, "cdyn", NPU_F32, &dyn1, small, 8));
    check_error_has("a constant cannot be dynamic");

    x = param("x", ok);
    assert_non_null(x);
    assert_null(param("x", ok));
    check_error_has("Parameter 'x': the name is already used by another node");

    assert_int_equal(npu_graph_create(&fx.arena, fx.ctx, NULL, &other), NPU_OK);
    foreign = npu_graph_parameter(other, "f", NPU_F32, &ok, NULL);
    assert_non_null(foreign);
    assert_null(npu_graph_add(fx.g, x, foreign, "mix"));
    check_error_has("Add 'mix': input 1 ('f') belongs to another graph");
    assert_null(npu_graph_result(fx.g, NULL, "out"));
    check_error_has("Result 'out': input 0 is NULL");
    assert_int_equal(npu_graph_set_layout(x, "NCHW"), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_graph_set_layout(npu_graph_relu(fx.g, x, NULL), "NC"), NPU_ERR_INVALID_ARGUMENT);
    check_error_has("a layout can be set only on a Parameter or a Result");
    assert_int_equal(npu_graph_set_layout(x, "NN"), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_graph_set_layout(x, "NC"), NPU_OK);
    assert_int_equal(npu_graph_set_layout(NULL, "NC"), NPU_ERR_INVALID_ARGUMENT);
}

static void test_automatic_names_are_unique(void **state)
{
    npu_node *x = param(NULL, S(1, D(4)));
    npu_node *user, *a;
    (void)state;
    assert_string_equal(npu_node_name(x), "Parameter_0");
    user = npu_graph_relu(fx.g, x, "Add_2");  /* takes the name the next Add would get */
    assert_non_null(user);
    a = npu_graph_add(fx.g, x, x, NULL);
    assert_string_equal(npu_node_name(a), "Add_2_1");
    assert_string_equal(npu_node_name(npu_graph_sigmoid(fx.g, a, NULL)), "Sigmoid_3");
    {
        const int64_t t[] = {2, 2};
        npu_node *r = npu_graph_reshape(fx.g, x, t, 2, 0, NULL);  /* Constant_4 + Reshape_5 */
        assert_string_equal(npu_node_name(r), "Reshape_5");
        assert_int_equal(npu_graph_node_count(fx.g), 6);
    }
    assert_null(npu_graph_relu(fx.g, x, ""));
    check_error_has("empty name");
}

/* A sample model touching every allocation kind; returns the nodes made. */
static int build_sample(npu_graph *g)
{
    npu_shape xs = S(4, D(1), D(3), D(4), D(4)), vs = S(2, D(1), D(8));
    const int64_t flat[] = {0, -1};
    npu_node *x, *r, *c, *parts[5];
    int made = 0, i;
    if ((x = npu_graph_parameter(g, "input_with_a_longer_name", NPU_F32, &xs, "NCHW")) == NULL) return made;
    made++;
    if ((r = npu_graph_relu(g, x, NULL)) == NULL) return made;
    made++;
    if ((r = npu_graph_reshape(g, r, flat, 2, 1, "flat")) == NULL) return made;
    made++;
    for (i = 0; i < 5; i++) parts[i] = r;
    if ((c = npu_graph_concat(g, parts, 5, 1, NULL)) == NULL) return made;
    made++;
    if ((r = npu_graph_read_value(g, NULL, "state_var", NPU_F32, &vs, NULL)) == NULL) return made;
    made++;
    if (npu_graph_assign(g, r, "state_var", NULL) == NULL) return made;
    made++;
    if (npu_graph_result(g, c, "out") == NULL) return made;
    made++;
    return made;
}

static void test_arena_exhaustion_leaves_the_graph_unchanged(void **state)
{
    npu_arena a;
    npu_graph *g;
    size_t need, cap, graph_bytes = npu_graph_size(NULL);
    size_t after[8];
    int made;
    (void)state;
    /* reference build, recording the bytes after each op */
    assert_int_equal(npu_arena_init(&a, mem, sizeof mem), NPU_OK);
    assert_int_equal(npu_graph_create(&a, fx.ctx, NULL, &g), NPU_OK);
    assert_int_equal(build_sample(g), 7);
    need = npu_arena_used(&a);
    assert_int_equal(npu_graph_bytes_used(g), need);
    /* the documented formula, for the first two ops */
    assert_int_equal(npu_graph_node_size() % NPU_ARENA_ALIGN, 0);
    {
        size_t p0 = graph_bytes + npu_graph_node_size() + NPU_ARENA_ROUND(strlen("input_with_a_longer_name") + 1);
        size_t p1 = p0 + npu_graph_node_size() + NPU_ARENA_ROUND(strlen("Relu_1") + 1);
        /* reshape: its Constant (name, 2 values) + the node */
        size_t p2 = p1 + 2 * npu_graph_node_size() + NPU_ARENA_ROUND(strlen("Constant_2") + 1) +
                    NPU_ARENA_ROUND(16) + NPU_ARENA_ROUND(strlen("flat") + 1);
        /* concat of 5: node, name "Concat_4", input array */
        size_t p3 = p2 + npu_graph_node_size() + NPU_ARENA_ROUND(strlen("Concat_4") + 1) +
                    NPU_ARENA_ROUND(5 * sizeof(void *));
        after[0] = p0;
        after[1] = p1;
        after[2] = p2;
        after[3] = p3;
    }
    /* every capacity below the need fails cleanly at the op that does not fit */
    for (cap = graph_bytes; cap < need; cap += 16) {
        npu_shape before;
        uint32_t nodes;
        assert_int_equal(npu_arena_init(&a, mem, cap), NPU_OK);
        assert_int_equal(npu_graph_create(&a, fx.ctx, NULL, &g), NPU_OK);
        made = build_sample(g);
        assert_true(made < 7);
        assert_int_equal(npu_graph_status(g), NPU_ERR_ARENA_TOO_SMALL);
        assert_int_equal(npu_context_last_status(fx.ctx), NPU_ERR_ARENA_TOO_SMALL);
        check_error_has("arena too small");
        /* nothing of the failed op remains */
        assert_int_equal(npu_arena_used(&a), npu_graph_bytes_used(g));
        if (made >= 1 && made <= 4) assert_int_equal(npu_graph_bytes_used(g), after[made - 1]);
        if (made < 4) assert_true(cap < after[made]);
        nodes = npu_graph_node_count(g);
        assert_int_equal(npu_graph_input_count(g), made >= 1 ? 1 : 0);
        /* and the graph is usable: introspection works, later ops fail cleanly */
        if (made >= 1) {
            npu_tensor_desc d;
            assert_int_equal(npu_graph_input(g, 0, &d), NPU_OK);
            assert_string_equal(d.name, "input_with_a_longer_name");
            assert_int_equal(npu_node_shape(npu_graph_relu(g, NULL, NULL), &before), NPU_ERR_INVALID_ARGUMENT);
            assert_int_equal(npu_graph_node_count(g), nodes);
        }
    }
    assert_int_equal(npu_arena_init(&a, mem, need), NPU_OK);
    assert_int_equal(npu_graph_create(&a, fx.ctx, NULL, &g), NPU_OK);
    assert_int_equal(build_sample(g), 7);
    assert_int_equal(npu_graph_status(g), NPU_OK);
    assert_int_equal(npu_arena_used(&a), need);
}

static void test_max_nodes_is_a_limit(void **state)
{
    npu_arena a;
    npu_graph *g;
    npu_graph_options o = {.name = NULL, .max_nodes = 3};
    const int64_t t[] = {4};
    npu_shape s = S(1, D(4));
    npu_node *x;
    (void)state;
    assert_int_equal(npu_arena_init(&a, mem, sizeof mem), NPU_OK);
    assert_int_equal(npu_graph_create(&a, fx.ctx, &o, &g), NPU_OK);
    x = npu_graph_parameter(g, "x", NPU_F32, &s, NULL);
    assert_non_null(npu_graph_relu(g, x, NULL));
    assert_null(npu_graph_reshape(g, x, t, 1, 0, NULL)); /* needs 2 more nodes */
    assert_int_equal(npu_graph_status(g), NPU_ERR_LIMIT);
    assert_non_null(strstr(npu_graph_first_error(g), "max_nodes 3"));
}

static void test_set_batch_reinfers_and_restores_on_failure(void **state)
{
    npu_shape ws = S(4, D(4), D(3), D(3), D(3));
    npu_node *x = npu_graph_parameter(fx.g, "x", NPU_F32, &(npu_shape){4, {1, 3, 8, 8}}, "NCHW");
    npu_node *w = npu_graph_constant(fx.g, "w", NPU_F32, &ws, weights, sizeof weights);
    npu_node *conv = npu_graph_convolution(fx.g, x, w, NULL, "conv");
    const int64_t flat[] = {0, -1}, fixed[] = {1, 144};
    npu_node *r = npu_graph_reshape(fx.g, conv, flat, 2, 1, "flat");
    npu_node *out = npu_graph_result(fx.g, r, "out");
    npu_tensor_desc d;
    (void)state;
    assert_non_null(out);
    assert_int_equal(npu_graph_batch(fx.g), 1);
    assert_int_equal(npu_graph_set_batch(fx.g, 4), NPU_OK);
    assert_int_equal(npu_graph_batch(fx.g), 4);
    check_shape(conv, 4, D(4), D(4), D(6), D(6));
    check_shape(out, 2, D(4), D(144));
    assert_int_equal(npu_graph_output(fx.g, 0, &d), NPU_OK);
    assert_int_equal(d.bytes, 4 * 144 * 4);
    assert_int_equal(npu_graph_set_batch(fx.g, NPU_DIM_DYNAMIC), NPU_OK);
    assert_int_equal(npu_graph_batch(fx.g), NPU_DIM_DYNAMIC);
    check_shape(out, 2, D(-1), D(144));
    assert_int_equal(npu_graph_output(fx.g, 0, &d), NPU_OK);
    assert_int_equal(d.bytes, 144 * 4); /* dynamic counts as 1 */
    assert_int_equal(npu_graph_set_batch(fx.g, 1), NPU_OK);
    check_shape(out, 2, D(1), D(144));

    /* a fixed reshape target cannot follow the batch: error, shapes kept */
    assert_non_null(npu_graph_result(fx.g, npu_graph_reshape(fx.g, conv, fixed, 2, 0, "fixed"), "out2"));
    assert_int_equal(npu_graph_set_batch(fx.g, 2), NPU_ERR_SHAPE);
    check_error_has("set_batch(2): Reshape 'fixed': input 0 has shape [2,4,6,6]");
    assert_int_equal(npu_graph_batch(fx.g), 1);
    check_shape(conv, 4, D(1), D(4), D(6), D(6));
    check_shape(out, 2, D(1), D(144));
    assert_int_equal(npu_graph_set_batch(fx.g, 0), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_graph_status(fx.g), NPU_OK); /* not sticky */
}

static void test_batch_follows_the_layout_and_reports_disagreement(void **state)
{
    npu_node *a = npu_graph_parameter(fx.g, "a", NPU_F32, &(npu_shape){2, {3, -1}}, "CN");
    npu_node *b;
    (void)state;
    assert_non_null(a);
    assert_int_equal(npu_graph_batch(fx.g), NPU_DIM_DYNAMIC);
    assert_int_equal(npu_graph_set_batch(fx.g, 5), NPU_OK);
    check_shape(a, 2, D(3), D(5));
    b = npu_graph_parameter(fx.g, "b", NPU_F32, &(npu_shape){1, {2}}, NULL);
    assert_non_null(b);
    assert_int_equal(npu_graph_batch(fx.g), 0);
    /* the dynamic dim must stay on the batch axis when the layout changes */
    assert_int_equal(npu_graph_set_batch(fx.g, NPU_DIM_DYNAMIC), NPU_OK);
    assert_int_equal(npu_graph_set_layout(a, "NC"), NPU_ERR_INVALID_ARGUMENT);
    check_error_has("is dynamic on axis 1");
}

static void test_introspection_lists_inputs_outputs_and_states(void **state)
{
    npu_shape xs = S(2, D(1), D(8)), ss = S(2, D(1), D(8));
    npu_node *x = npu_graph_parameter(fx.g, "x", NPU_F16, &xs, "NC");
    npu_node *y = npu_graph_parameter(fx.g, "y", NPU_F16, &xs, NULL);
    npu_node *rv = npu_graph_read_value(fx.g, NULL, "kv", NPU_F16, &ss, "read");
    npu_node *sum = npu_graph_add(fx.g, npu_graph_add(fx.g, x, y, NULL), rv, NULL);
    npu_node *o1, *o2;
    npu_tensor_desc d;
    (void)state;
    assert_non_null(npu_graph_assign(fx.g, sum, "kv", NULL));
    o1 = npu_graph_result(fx.g, sum, "sum_out");
    o2 = npu_graph_result(fx.g, x, "x_out");
    assert_int_equal(npu_graph_set_layout(o2, "NC"), NPU_OK);
    assert_non_null(o1);
    assert_int_equal(npu_graph_input_count(fx.g), 2);
    assert_int_equal(npu_graph_output_count(fx.g), 2);
    assert_int_equal(npu_graph_state_count(fx.g), 1);
    assert_int_equal(npu_graph_input(fx.g, 1, &d), NPU_OK);
    assert_string_equal(d.name, "y");
    assert_int_equal(d.type, NPU_F16);
    assert_int_equal(d.bytes, 16);
    assert_string_equal(d.layout, "");
    assert_int_equal(npu_graph_input(fx.g, 0, &d), NPU_OK);
    assert_string_equal(d.layout, "NC");
    assert_int_equal(npu_graph_output(fx.g, 1, &d), NPU_OK);
    assert_string_equal(d.name, "x_out");
    assert_string_equal(d.layout, "NC");
    assert_int_equal(npu_graph_state(fx.g, 0, &d), NPU_OK);
    assert_string_equal(d.name, "kv");
    assert_int_equal(d.shape.rank, 2);
    assert_int_equal(d.shape.dims[1], 8);
    assert_int_equal(npu_graph_output(fx.g, 2, &d), NPU_ERR_NOT_FOUND);
    check_error_has("no output 2 (it has 2)");
    assert_int_equal(npu_graph_state(fx.g, 1, &d), NPU_ERR_NOT_FOUND);
    assert_int_equal(npu_graph_input(NULL, 0, &d), NPU_ERR_INVALID_ARGUMENT);
}

static void test_state_variables_are_checked(void **state)
{
    npu_shape vs = S(2, D(1), D(4)), other = S(2, D(1), D(5));
    npu_node *init = npu_graph_parameter(fx.g, "init", NPU_F32, &other, NULL);
    npu_node *rv;
    (void)state;
    assert_null(npu_graph_read_value(fx.g, init, "v", NPU_F32, &vs, "rv_bad"));
    check_error_has("ReadValue 'rv_bad': input 0 has shape [1,5], variable 'v' has shape [1,4]");
    rv = npu_graph_read_value(fx.g, NULL, "v", NPU_F32, &vs, "rv");
    assert_non_null(rv);
    assert_null(npu_graph_read_value(fx.g, NULL, "v", NPU_F32, &vs, "rv2"));
    check_error_has("variable 'v' is already declared");
    assert_null(npu_graph_assign(fx.g, rv, "w", "as0"));
    assert_int_equal(npu_context_last_status(fx.ctx), NPU_ERR_NOT_FOUND);
    assert_null(npu_graph_assign(fx.g, init, "v", "as1"));
    check_error_has("Assign 'as1': input 0 has shape [1,5], variable 'v' has shape [1,4]");
    assert_non_null(npu_graph_assign(fx.g, rv, "v", "as2"));
    assert_null(npu_graph_assign(fx.g, rv, "v", "as3"));
    check_error_has("already has an Assign");
    assert_null(npu_graph_read_value(fx.g, NULL, "", NPU_F32, &vs, "empty_id"));
}

/* Huge dims, pads, strides and dilations are the caller's input: inference
 * must refuse sizes that overflow int64 with a clear error, never wrap. */
static void test_dims_that_overflow_int64_are_refused(void **state)
{
    const int64_t big = INT64_MAX / 2 + 1;
    npu_node *h = param("h", S(2, D(1), big));
    npu_node *x = param("x", S(4, D(1), D(2), D(8), big));
    npu_node *dw = param("dw", S(5, big, D(2), D(1), D(1), D(1)));
    npu_node *kx = param("kx", S(4, D(1), D(2), D(8), D(8)));
    npu_node *kw = param("kw", S(4, D(2), D(2), D(3), D(0)));
    npu_node *inputs[2];
    npu_conv_params p;
    npu_pool_params pp;
    (void)state;
    inputs[0] = inputs[1] = h;
    assert_null(npu_graph_concat(fx.g, inputs, 2, 1, "cat"));
    assert_int_equal(npu_context_last_status(fx.ctx), NPU_ERR_OVERFLOW);
    check_error_has("Concat 'cat'");
    memset(&pp, 0, sizeof pp);
    pp.kernel[0] = pp.kernel[1] = 1;
    pp.pads_end[1] = big;
    assert_null(npu_graph_max_pool(fx.g, x, &pp, "mp"));
    assert_int_equal(npu_context_last_status(fx.ctx), NPU_ERR_OVERFLOW);
    check_error_has("MaxPool 'mp'");
    pp.pads_end[1] = 0;
    pp.strides[1] = INT64_MAX;
    pp.auto_pad = NPU_PAD_SAME_UPPER;
    check_shape(npu_graph_max_pool(fx.g, x, &pp, "same"), 4, D(1), D(2), D(8), D(1));
    memset(&p, 0, sizeof p);
    p.dilations[0] = INT64_MAX;
    assert_null(npu_graph_convolution(fx.g, kx, npu_graph_constant(fx.g, "w3", NPU_F32, &(npu_shape){4, {2, 2, 3, 3}},
                                                                    weights, 2 * 2 * 3 * 3 * 4), &p, "dil"));
    assert_int_equal(npu_context_last_status(fx.ctx), NPU_ERR_OVERFLOW);
    check_error_has("Convolution 'dil'");
    assert_null(npu_graph_group_convolution(fx.g, x, dw, NULL, "gconv"));
    check_error_has("GroupConvolution 'gconv'");
    assert_null(npu_graph_convolution(fx.g, kx, kw, NULL, "k0"));
    check_error_has("Convolution 'k0': input 1 has shape [2,2,3,0]");
    /* set_batch hits the same checks and keeps the old shapes */
    npu_graph_clear_status(fx.g);
    inputs[0] = inputs[1] = kx;
    assert_non_null(npu_graph_result(fx.g, npu_graph_concat(fx.g, inputs, 2, 0, "cat0"), "out"));
    assert_int_equal(npu_graph_set_batch(fx.g, big), NPU_ERR_OVERFLOW);
    check_error_has("Concat 'cat0'");
    check_shape(kx, 4, D(1), D(2), D(8), D(8));
    check_shape(dw, 5, big, D(2), D(1), D(1), D(1));
    assert_int_equal(npu_graph_status(fx.g), NPU_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_graph_size_query_is_exact, setup),
        cmocka_unit_test_setup(test_graph_create_rejects_bad_arguments, setup),
        cmocka_unit_test_setup(test_convolution_and_pooling_infer_spatial_dims, setup),
        cmocka_unit_test_setup(test_matmul_follows_openvino_rank_rules, setup),
        cmocka_unit_test_setup(test_elementwise_ops_broadcast_like_numpy, setup),
        cmocka_unit_test_setup(test_shape_ops_infer_and_store_their_arrays, setup),
        cmocka_unit_test_setup(test_convolution_errors_name_the_input_and_shapes, setup),
        cmocka_unit_test_setup(test_errors_are_sticky_and_later_ops_point_at_the_first, setup),
        cmocka_unit_test_setup(test_bad_builder_input_gives_clear_errors, setup),
        cmocka_unit_test_setup(test_automatic_names_are_unique, setup),
        cmocka_unit_test_setup(test_arena_exhaustion_leaves_the_graph_unchanged, setup),
        cmocka_unit_test_setup(test_max_nodes_is_a_limit, setup),
        cmocka_unit_test_setup(test_set_batch_reinfers_and_restores_on_failure, setup),
        cmocka_unit_test_setup(test_batch_follows_the_layout_and_reports_disagreement, setup),
        cmocka_unit_test_setup(test_introspection_lists_inputs_outputs_and_states, setup),
        cmocka_unit_test_setup(test_state_variables_are_checked, setup),
        cmocka_unit_test_setup(test_dims_that_overflow_int64_are_refused, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
