/* Core: versions, status strings, arenas, contexts, types and shapes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "npu.h"

static _Alignas(16) unsigned char mem[16384];

static void test_version_macros_match_the_library(void **state)
{
    (void)state;
    assert_int_equal(npu_version(), NPU_VERSION);
    assert_string_equal(npu_version_string(), NPU_VERSION_STRING);
}

static void test_every_status_has_its_own_name(void **state)
{
    int i, j;
    (void)state;
    for (i = 0; i < NPU_STATUS_COUNT; i++) {
        const char *s = npu_status_string((npu_status)i);
        assert_non_null(s);
        assert_true(strncmp(s, "NPU_", 4) == 0);
        for (j = 0; j < i; j++) assert_string_not_equal(s, npu_status_string((npu_status)j));
    }
    assert_string_equal(npu_status_string((npu_status)9999), "unknown status");
}

static void test_arena_refuses_misaligned_memory(void **state)
{
    npu_arena a;
    (void)state;
    assert_int_equal(npu_arena_init(&a, mem + 1, 100), NPU_ERR_ALIGNMENT);
    assert_int_equal(npu_arena_init(&a, NULL, 10), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_arena_init(NULL, mem, 10), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_arena_init(&a, NULL, 0), NPU_OK);
    assert_int_equal(npu_arena_remaining(&a), 0);
}

static void test_context_size_query_is_exact(void **state)
{
    npu_arena a;
    npu_context *ctx = NULL;
    size_t need = npu_context_size();
    (void)state;
    assert_true(need % NPU_ARENA_ALIGN == 0);
    /* every size below the need fails cleanly, the exact size works */
    for (size_t cap = 0; cap < need; cap += 16) {
        assert_int_equal(npu_arena_init(&a, mem, cap), NPU_OK);
        assert_int_equal(npu_context_create(&a, NULL, &ctx), NPU_ERR_ARENA_TOO_SMALL);
        assert_null(ctx);
        assert_int_equal(npu_arena_used(&a), 0);
    }
    assert_int_equal(npu_arena_init(&a, mem, need), NPU_OK);
    assert_int_equal(npu_context_create(&a, NULL, &ctx), NPU_OK);
    assert_non_null(ctx);
    assert_int_equal(npu_arena_used(&a), need);
    assert_string_equal(npu_context_last_error(ctx), "");
    assert_int_equal(npu_context_last_status(ctx), NPU_OK);
}

static int log_calls;
static char log_text[512];
static void logger(void *ud, npu_log_level level, const char *msg)
{
    (void)ud;
    (void)level;
    log_calls++;
    strncpy(log_text, msg, sizeof log_text - 1);
}

static void test_context_rejects_bad_log_level_and_rewind_reuses_memory(void **state)
{
    npu_arena a;
    npu_context *ctx = NULL;
    npu_context_options o;
    (void)state;
    memset(&o, 0, sizeof o);
    o.log_level = (npu_log_level)42;
    assert_int_equal(npu_arena_init(&a, mem, sizeof mem), NPU_OK);
    assert_int_equal(npu_context_create(&a, &o, &ctx), NPU_ERR_INVALID_ARGUMENT);
    o.log_level = NPU_LOG_DEBUG;
    o.log = logger;
    size_t mark = npu_arena_used(&a);
    assert_int_equal(npu_context_create(&a, &o, &ctx), NPU_OK);
    assert_true(npu_arena_used(&a) > mark);
    npu_arena_rewind(&a, mark);
    assert_int_equal(npu_arena_used(&a), mark);
    assert_true(a.peak >= npu_context_size());
}

static void test_types_have_openvino_names_and_sizes(void **state)
{
    (void)state;
    assert_string_equal(npu_type_name(NPU_F32), "f32");
    assert_string_equal(npu_type_name(NPU_BOOL), "boolean");
    assert_string_equal(npu_type_name((npu_type)77), "undefined");
    assert_int_equal(npu_type_size(NPU_F16), 2);
    assert_int_equal(npu_type_size(NPU_I64), 8);
    assert_int_equal(npu_type_size(NPU_TYPE_UNDEFINED), 0);
}

static void test_shape_elements_refuse_dynamic_and_overflow(void **state)
{
    npu_shape s = {4, {1, 3, 224, 224}};
    npu_shape d = {2, {NPU_DIM_DYNAMIC, 10}};
    npu_shape big = {3, {INT64_MAX, INT64_MAX, 4}};
    npu_shape bad = {NPU_MAX_RANK + 1, {0}};
    (void)state;
    assert_int_equal(npu_shape_elements(&s), 150528);
    assert_int_equal(npu_shape_elements(&d), 0);
    assert_int_equal(npu_shape_elements(&big), 0);
    assert_int_equal(npu_shape_elements(&bad), 0);
    assert_int_equal(npu_shape_elements(NULL), 0);
    npu_shape scalar = {0, {0}};
    assert_int_equal(npu_shape_elements(&scalar), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_macros_match_the_library),
        cmocka_unit_test(test_every_status_has_its_own_name),
        cmocka_unit_test(test_arena_refuses_misaligned_memory),
        cmocka_unit_test(test_context_size_query_is_exact),
        cmocka_unit_test(test_context_rejects_bad_log_level_and_rewind_reuses_memory),
        cmocka_unit_test(test_types_have_openvino_names_and_sizes),
        cmocka_unit_test(test_shape_elements_refuse_dynamic_and_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
