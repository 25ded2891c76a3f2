/* test_fuzz_regressions.c - what the fuzz targets (tests/fuzz/fuzz_sim_*.c) and
 * the sanitizer/valgrind runs (make check-asan, check-valgrind) found wrong in
 * the software NPU, rebuilt by hand so each stays fixed.
 *
 * The native-blob cases edit a compiled plan through plan_internal.h and let
 * sim_plan_build_native write a blob with a valid checksum around the edit: that
 * is what a crafted blob looks like to sim_plan_import.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ze_api.h>

#include "sim/plan_internal.h"

#define VER SIM_COMPILER_VERSION_DEFAULT

static char g_log[4096];

/* Layout A: [u16 major][u16 minor][u32 2][u64 xml][xml][u64 weights][weights]. */
static uint8_t *payload_a(const char *xml, size_t *size)
{
    uint64_t xs = strlen(xml), ws = 0;
    uint16_t v[2] = {(uint16_t)(VER >> 16), (uint16_t)VER};
    uint32_t sections = 2;
    *size = 24 + xs;
    uint8_t *p = malloc(*size);
    assert_non_null(p);
    memcpy(p, v, 4);
    memcpy(p + 4, &sections, 4);
    memcpy(p + 8, &xs, 8);
    memcpy(p + 16, xml, xs);
    memcpy(p + 16 + xs, &ws, 8);
    return p;
}

#define PORT(id, d1) "<port id=\"" #id "\" precision=\"FP32\"><dim>1</dim><dim>" #d1 "</dim></port>"

/* a[1,4] ++ b[1,4] along axis 1 -> [1,8] */
static const char concat_xml[] =
    "<?xml version=\"1.0\"?>\n<net name=\"cat\" version=\"11\"><layers>"
    "<layer id=\"0\" name=\"a\" type=\"Parameter\" version=\"opset1\">"
    "<data shape=\"1,4\" element_type=\"f32\" /><output>" PORT(0, 4) "</output></layer>"
    "<layer id=\"1\" name=\"b\" type=\"Parameter\" version=\"opset1\">"
    "<data shape=\"1,4\" element_type=\"f32\" /><output>" PORT(0, 4) "</output></layer>"
    "<layer id=\"2\" name=\"cat\" type=\"Concat\" version=\"opset1\"><data axis=\"1\" />"
    "<input>" PORT(0, 4) PORT(1, 4) "</input><output>" PORT(2, 8) "</output></layer>"
    "<layer id=\"3\" name=\"out\" type=\"Result\" version=\"opset1\">"
    "<input>" PORT(0, 8) "</input></layer>"
    "</layers><edges>"
    "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"2\" to-port=\"0\" />"
    "<edge from-layer=\"1\" from-port=\"0\" to-layer=\"2\" to-port=\"1\" />"
    "<edge from-layer=\"2\" from-port=\"2\" to-layer=\"3\" to-port=\"0\" />"
    "</edges></net>\n";

static sim_plan *compile_concat(void)
{
    size_t n;
    uint8_t *payload = payload_a(concat_xml, &n);
    sim_plan *p = NULL;
    if (sim_plan_compile(payload, n, VER, NULL, &p, g_log, sizeof g_log) != SIM_OK)
        fail_msg("compile failed: %s", g_log);
    free(payload);
    assert_int_equal(p->n_steps, 1);
    assert_int_equal(p->steps[0].op, SIM_S_CONCAT);
    return p;
}

/* The untouched blob imports and concatenates: the control for the case below. */
static void test_concat_blob_imports_and_runs(void **state)
{
    (void)state;
    sim_plan *p = compile_concat();
    size_t n;
    const uint8_t *blob = sim_plan_native(p, &n);
    sim_plan *q = NULL;
    assert_int_equal(sim_plan_import(blob, n, &q, g_log, sizeof g_log), SIM_OK);
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, y[8] = {0};
    void *args[3] = {a, b, y};
    assert_int_equal(sim_plan_run(q, args, 0), SIM_OK);
    for (int i = 0; i < 8; i++)
        assert_true(y[i] == (float)(i + 1));
    sim_plan_destroy(q);
    sim_plan_destroy(p);
}

/* fuzz_sim_blob, crash-5499b8ff: a blob whose Concat output was placed over its
 * first input passed validation, and the run's memcpy read and wrote the same
 * bytes (ASan memcpy-param-overlap). Import must refuse such a blob. */
static void test_blob_whose_step_writes_over_its_input_is_refused(void **state)
{
    (void)state;
    sim_plan *p = compile_concat();
    sim_tensor *out = &p->tensors[p->steps[0].out];
    const sim_tensor *in = &p->tensors[p->step_inputs[p->steps[0].in_first]];
    assert_int_equal(out->where, SIM_T_ARENA);
    assert_int_equal(in->where, SIM_T_ARENA);
    out->offset = in->offset + 2; /* still inside the arena, overlapping input 0 */
    assert_true(out->offset + 8 <= p->arena_floats);
    assert_int_equal(sim_plan_build_native(p, p->consts), SIM_OK);
    size_t n;
    const uint8_t *blob = sim_plan_native(p, &n);
    sim_plan *q = (sim_plan *)(uintptr_t)1;
    assert_int_equal(sim_plan_import(blob, n, &q, g_log, sizeof g_log), SIM_ERR_BAD_BLOB);
    assert_null(q);
    if (!strstr(g_log, "writes over one of its inputs"))
        fail_msg("log: %s", g_log);
    sim_plan_destroy(p);
}

/* make check-valgrind: requests that run before the caller writes an input read
 * the sim's fresh allocations, which were uninitialized heap memory. The real
 * driver hands out fresh (zeroed) kernel pages; so does the sim now, even when the
 * heap gives back a block it used before. Runs through the loader
 * (ZE_ENABLE_ALT_DRIVERS, as make check sets it); skipped without a driver. */
static void test_fresh_allocations_read_as_zeros(void **state)
{
    (void)state;
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    ze_context_handle_t ctx;
    uint32_t n = 1;
    if (zeInit(ZE_INIT_FLAG_VPU_ONLY) != ZE_RESULT_SUCCESS ||
        zeDriverGet(&n, &drv) != ZE_RESULT_SUCCESS || n != 1) {
        skip();
        return;
    }
    assert_int_equal(zeDeviceGet(drv, &n, &dev), ZE_RESULT_SUCCESS);
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    assert_int_equal(zeContextCreate(drv, &cd, &ctx), ZE_RESULT_SUCCESS);
    const size_t size = 3 * 4096 + 100;
    for (int round = 0; round < 4; round++) {
        ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
        ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
        void *p = NULL;
        ze_result_t rc = round % 2 ? zeMemAllocDevice(ctx, &dd, size, 0, dev, &p)
                                   : zeMemAllocHost(ctx, &hd, size, 0, &p);
        assert_int_equal(rc, ZE_RESULT_SUCCESS);
        const unsigned char *b = p;
        for (size_t i = 0; i < size; i++)
            if (b[i] != 0)
                fail_msg("round %d: byte %zu of a fresh allocation is 0x%02x", round, i, b[i]);
        memset(p, 0xAB, size); /* dirty it: the next round likely gets the same block */
        assert_int_equal(zeMemFree(ctx, p), ZE_RESULT_SUCCESS);
    }
    assert_int_equal(zeContextDestroy(ctx), ZE_RESULT_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concat_blob_imports_and_runs),
        cmocka_unit_test(test_blob_whose_step_writes_over_its_input_is_refused),
        cmocka_unit_test(test_fresh_allocations_read_as_zeros),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
