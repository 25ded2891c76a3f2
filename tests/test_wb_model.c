/* White-box: sections 9-11 against a fake graph-extension table (no driver).
 * What a blob makes the driver report is hostile: argument dims whose byte
 * size overflows, a batch that overflows a buffer, and tables with missing
 * entries must give clean errors or a lower extension version, never a wrong
 * size or a call through NULL. */
#include "../npu.c"

#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

static _Alignas(16) unsigned char ctx_mem[8192];
static npu_context *ctx;

/* ---- a fake driver: one graph whose argument 0 has fake_dims ---- */
static uint32_t fake_dims[5];
static uint32_t fake_rank;

static ze_result_t fake_arg_props(npu__ze_graph_handle_t g, uint32_t index, npu__ze_graph_argument_properties_3 *p)
{
    uint32_t k;
    (void)g;
    (void)index;
    npu__strlcpy(p->name, "x", sizeof p->name);
    p->type = 0;
    p->devicePrecision = 0x01; /* FP32 */
    p->dims_count = fake_rank;
    for (k = 0; k < 5; k++) p->dims[k] = k < fake_rank ? fake_dims[k] : 1;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_any(void) { return ZE_RESULT_SUCCESS; }

/* Every entry present (the signatures do not matter for npu__ext_usable). */
static void fake_full_table(npu__ze_graph_ddi *g)
{
    void (*const f)(void) = (void (*)(void))fake_any;
    memset(g, 0, sizeof *g);
#define SET(slot) memcpy(&g->slot, &f, sizeof f)
    SET(pfnCreate); SET(pfnDestroy); SET(pfnGetProperties); SET(pfnGetArgumentProperties);
    SET(pfnSetArgumentValue); SET(pfnAppendGraphInitialize); SET(pfnAppendGraphExecute);
    SET(pfnGetNativeBinary); SET(pfnDeviceGetGraphProperties); SET(pfnGraphGetArgumentMetadata);
    SET(pfnGetArgumentProperties2); SET(pfnGetArgumentProperties3); SET(pfnBuildLogGetString);
    SET(pfnCreate2); SET(pfnQueryContextMemory); SET(pfnGetNativeBinary2); SET(pfnGetProperties2);
    SET(pfnGraphInitialize); SET(pfnCompilerIsOptionSupported); SET(pfnCreate3);
#undef SET
}

static int setup(void **state)
{
    npu_arena a;
    (void)state;
    assert_int_equal(npu_arena_init(&a, ctx_mem, sizeof ctx_mem), NPU_OK);
    assert_int_equal(npu_context_create(&a, NULL, &ctx), NPU_OK);
    return 0;
}

static npu_status read_arg_with_dims(const uint32_t *dims, uint32_t rank, npu__arg *a)
{
    npu__ze_graph_ddi g;
    npu_device d;
    npu_model m;
    static npu__arg_scratch read_arg_scratch;
    memset(&g, 0, sizeof g);
    g.pfnGetArgumentProperties3 = fake_arg_props;
    memset(&d, 0, sizeof d);
    d.g = &g;
    d.ext_version = NPU__ZE_VERSION(1, 2); /* v3 properties, no metadata call */
    npu__caps_init(&d);
    memset(&m, 0, sizeof m);
    m.dev = &d;
    m.ctx = ctx;
    memcpy(fake_dims, dims, rank * sizeof *dims);
    fake_rank = rank;
    memset(a, 0, sizeof *a);
    npu_context_clear_error(ctx);
    return npu__model_read_arg(&m, 0, a, &read_arg_scratch);
}

static void test_argument_dims_whose_bytes_overflow_are_refused(void **state)
{
    static const uint32_t huge[5] = {65536, 65536, 65536, 65536, 2};
    static const uint32_t big[4] = {65536, 65536, 65536, 8192};
    static const uint32_t fine[4] = {2, 3, 4, 5};
    npu__arg a;
    (void)state;
    assert_int_equal(read_arg_with_dims(fine, 4, &a), NPU_OK);
    assert_int_equal(a.desc.bytes, 2 * 3 * 4 * 5 * 4);
    /* 2^65 elements: the product wraps (npu_shape_elements gives 0). */
    assert_int_equal(read_arg_with_dims(huge, 5, &a), NPU_ERR_LIMIT);
    assert_non_null(strstr(npu_context_last_error(ctx), "argument 'x' is too large"));
    /* 2^61 elements of 4 bytes: 2^63 bytes fit a uint64_t, but no buffer. */
    assert_int_equal(read_arg_with_dims(big, 4, &a), NPU_ERR_LIMIT);
}

/* A created model with one F32 input 'x' of rank 2 (batch_lists 1), for
 * npu__model_debatch: the test sets its dims and sizes. */
static void one_input_model(npu_model *m, npu__arg *arg, uint32_t *order)
{
    memset(m, 0, sizeof *m);
    memset(arg, 0, sizeof *arg);
    m->ctx = ctx;
    m->n_args = 1;
    m->n_inputs = 1;
    m->args = arg;
    m->order = order;
    m->batch_lists = 1;
    npu__strlcpy(arg->name, "x", sizeof arg->name);
    arg->desc.name = arg->name;
    arg->kind = NPU__ARG_INPUT;
    arg->desc.type = NPU_F32;
    arg->desc.shape.rank = 2;
}

static void test_a_batch_that_overflows_the_buffer_is_refused(void **state)
{
    npu_model m;
    npu__arg arg;
    uint32_t order = 0;
    (void)state;
    one_input_model(&m, &arg, &order);
    arg.desc.shape.dims[0] = 1;
    arg.desc.shape.dims[1] = (int64_t)1 << 40;
    arg.desc.bytes = arg.slice_bytes = (uint64_t)1 << 42;
    assert_int_equal(npu__model_debatch(&m, 4), NPU_OK);
    assert_int_equal(arg.desc.bytes, (uint64_t)1 << 44);
    m.batch_lists = 1;
    arg.desc.shape.dims[0] = 1;
    arg.desc.bytes = arg.slice_bytes = (uint64_t)1 << 62;
    assert_int_equal(npu__model_debatch(&m, 4096), NPU_ERR_LIMIT);
    assert_int_equal(m.batch_lists, 1); /* unchanged */
    assert_int_equal(arg.desc.bytes, (uint64_t)1 << 62);
    assert_non_null(strstr(npu_context_last_error(ctx), "'x'"));
}

/* Debatching slices every argument along its batch axis: the compiled graph
 * must have 1 there and on every axis before it. A refusal gives the batch
 * axis's own compiled size first (the fact a user compares with the batch),
 * then the first axis before it that is not 1. */
static void test_a_debatch_refusal_names_the_compiled_batch_first(void **state)
{
    npu_model m;
    npu__arg arg;
    uint32_t order = 0;
    (void)state;
    one_input_model(&m, &arg, &order);
    arg.batch_axis = 1;   /* layout "CN" */
    npu__strlcpy(arg.desc.layout, "CN", sizeof arg.desc.layout);
    arg.desc.bytes = arg.slice_bytes = 2 * 3 * 4;
    /* both the batch axis (3) and the axis before it (2) are wrong: the batch axis is named */
    arg.desc.shape.dims[0] = 2;
    arg.desc.shape.dims[1] = 3;
    assert_int_equal(npu__model_debatch(&m, 4), NPU_ERR_SHAPE);
    assert_non_null(strstr(npu_context_last_error(ctx), "axis 1 has 3 in the compiled graph"));
    assert_int_equal(m.batch_lists, 1);
    /* the batch axis is 1, the axis before it is not */
    arg.desc.shape.dims[1] = 1;
    assert_int_equal(npu__model_debatch(&m, 4), NPU_ERR_SHAPE);
    assert_non_null(strstr(npu_context_last_error(ctx), "axis 0 has 2 in the compiled graph"));
    /* 1 on both: sliceable */
    arg.desc.shape.dims[0] = 1;
    arg.desc.bytes = arg.slice_bytes = 4;
    assert_int_equal(npu__model_debatch(&m, 4), NPU_OK);
    assert_int_equal(m.batch_lists, 4);
    assert_int_equal(arg.desc.shape.dims[1], 4);
    assert_int_equal(arg.desc.bytes, 16);
}

static void test_missing_table_entries_lower_the_extension_version(void **state)
{
    npu__ze_graph_ddi g;
    (void)state;
    fake_full_table(&g);
    assert_int_equal(npu__ext_usable(&g, NPU__ZE_VERSION(1, 18)), NPU__ZE_VERSION(1, 18));
    assert_int_equal(npu__ext_usable(&g, NPU__ZE_VERSION(1, 6)), NPU__ZE_VERSION(1, 6));
    g.pfnGraphInitialize = NULL; /* a 1.8 entry */
    assert_int_equal(npu__ext_usable(&g, NPU__ZE_VERSION(1, 18)), NPU__ZE_VERSION(1, 7));
    assert_int_equal(npu__ext_usable(&g, NPU__ZE_VERSION(1, 7)), NPU__ZE_VERSION(1, 7));
    g.pfnGetArgumentProperties3 = NULL; /* 1.2 */
    assert_int_equal(npu__ext_usable(&g, NPU__ZE_VERSION(1, 18)), NPU__ZE_VERSION(1, 1));
    g.pfnDestroy = NULL; /* 1.0: unusable */
    assert_int_equal(npu__ext_usable(&g, NPU__ZE_VERSION(1, 18)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_argument_dims_whose_bytes_overflow_are_refused, setup),
        cmocka_unit_test_setup(test_a_batch_that_overflows_the_buffer_is_refused, setup),
        cmocka_unit_test_setup(test_a_debatch_refusal_names_the_compiled_batch_first, setup),
        cmocka_unit_test_setup(test_missing_table_entries_lower_the_extension_version, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
