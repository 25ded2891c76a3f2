/* Device: open/close against the software NPU, properties, property strings,
 * exact arena size, handle hygiene, platforms and the NO_DEVICE path (both in
 * child processes, since the loader's first zeInit is permanent). */
#include "tests/l0_test_util.h"

static int setup(void **state)
{
    (void)state;
    tu_init_context();
    return 0;
}

static void test_open_properties(void **state)
{
    npu_device *d;
    npu_device_properties p;
    (void)state;
    d = tu_open();
    tu_ok(npu_device_get_properties(d, &p), "properties");
    assert_true(p.is_simulated);              /* the sim does not pose as Intel's driver */
    assert_string_equal(p.platform, "3720");  /* sim default platform: deviceId 0x7D1D */
    assert_int_equal(p.device_id, 0x7D1D);
    assert_int_equal(p.vendor_id, 0x8086);
    assert_true(strstr(p.name, "npu-sim") != NULL);
    /* The sim's default release profile: driver 1.32.1, graph extension 1.16,
     * compiler 7.28 (sim/profile.c). */
    assert_int_equal(p.graph_ext_version, (1u << 16) | 16u);
    assert_int_equal(p.compiler_version, (7u << 16) | 28u);
    assert_true(p.max_opset >= 11);   /* the profile's compiler (sim/profile.c) */
    assert_true(p.memory_total > 0);
    assert_true(p.no_weights_copy);
    assert_true(p.host_memory_import);
    assert_int_equal(p.optimal_requests_latency, 1);
    assert_int_equal(p.optimal_requests_throughput, 4);
    assert_int_equal(npu_device_optimal_requests(d, NPU_HINT_DEFAULT), 1);
    assert_int_equal(npu_device_optimal_requests(d, NPU_HINT_THROUGHPUT), 4);
    assert_memory_equal(p.driver_uuid, "npu-sim-driver01", 16);
    npu_device_close(d);
}

static void test_handles_return_to_baseline(void **state)
{
    npu_device *d;
    tu_live base;
    (void)state;
    d = tu_open(); /* zeInit done: the extension is reachable */
    npu_device_close(d);
    npu_arena_rewind(&tu_arena, 0);
    base = tu_live_now();
    d = tu_open();
    {
        tu_live now = tu_live_now();
        assert_int_equal(now.n[NPU_SIM_HANDLE_CONTEXT], base.n[NPU_SIM_HANDLE_CONTEXT] + 1);
        assert_int_equal(now.n[NPU_SIM_HANDLE_COMMAND_QUEUE], base.n[NPU_SIM_HANDLE_COMMAND_QUEUE] + 1);
    }
    npu_device_close(d);
    tu_live_expect(&base);
}

static void test_exact_arena(void **state)
{
    static _Alignas(16) unsigned char small[32768];
    npu_arena a;
    npu_device *d = NULL;
    size_t need = npu_device_size();
    tu_live base;
    (void)state;
    npu_device_close(tu_open());
    base = tu_live_now();
    assert_true(need > 0 && need <= sizeof small);
    assert_int_equal(npu_arena_init(&a, small, need), NPU_OK);
    tu_ok(npu_device_open(&a, tu_ctx, NULL, &d), "exact arena");
    /* All of it was needed while the device opened (the driver's extension
     * list is arena scratch, not stack); the scratch is handed back. */
    assert_int_equal(a.peak, need);
    assert_true(npu_arena_used(&a) > 0 && npu_arena_used(&a) < need);
    npu_device_close(d);
    assert_int_equal(npu_arena_init(&a, small, need - NPU_ARENA_ALIGN), NPU_OK);
    assert_int_equal(npu_device_open(&a, tu_ctx, NULL, &d), NPU_ERR_ARENA_TOO_SMALL);
    assert_null(d);
    assert_int_equal(npu_arena_used(&a), 0);
    assert_true(strstr(npu_context_last_error(tu_ctx), "device") != NULL);
    tu_live_expect(&base);
}

static void test_property_strings(void **state)
{
    npu_device *d;
    npu_device_properties p;
    const char *const *names = npu_device_supported_properties();
    char buf[512];
    size_t size = 0, i, n = 0;
    (void)state;
    d = tu_open();
    tu_ok(npu_device_get_properties(d, &p), "properties");
    tu_ok(npu_device_get_property(d, "FULL_DEVICE_NAME", NULL, 0, &size), "size query");
    assert_int_equal(size, strlen(p.name) + 1);
    tu_ok(npu_device_get_property(d, "FULL_DEVICE_NAME", buf, size, &size), "name");
    assert_string_equal(buf, p.name);
    assert_int_equal(npu_device_get_property(d, "FULL_DEVICE_NAME", buf, size - 1, &size),
                     NPU_ERR_BUFFER_TOO_SMALL);
    tu_ok(npu_device_get_property(d, "DEVICE_ARCHITECTURE", buf, sizeof buf, &size), "arch");
    assert_string_equal(buf, "3720");
    tu_ok(npu_device_get_property(d, "OPTIMAL_NUMBER_OF_INFER_REQUESTS", buf, sizeof buf, &size), "nireq");
    assert_string_equal(buf, "1");
    tu_ok(npu_device_get_property(d, "DEVICE_TYPE", buf, sizeof buf, &size), "type");
    assert_string_equal(buf, "INTEGRATED");
    tu_ok(npu_device_get_property(d, "NPU_IS_SIMULATED", buf, sizeof buf, &size), "sim");
    assert_string_equal(buf, "YES");
    {
        /* Numbers, the "major.minor" version and the UUID as hex text. */
        char want[64];
        ze_device_properties_t zp;
        ze_driver_handle_t drv;
        ze_device_handle_t zd;
        uint32_t one = 1, k;
        tu_ok(npu_device_get_property(d, "NPU_GRAPH_EXTENSION_VERSION", buf, sizeof buf, &size), "ext");
        snprintf(want, sizeof want, "%u.%u", p.graph_ext_version >> 16, p.graph_ext_version & 0xffffu);
        assert_string_equal(buf, want);
        assert_int_equal(size, strlen(want) + 1);
        tu_ok(npu_device_get_property(d, "NPU_DRIVER_VERSION", buf, sizeof buf, &size), "driver version");
        snprintf(want, sizeof want, "%u", p.driver_version);
        assert_string_equal(buf, want);
        tu_ok(npu_device_get_property(d, "NPU_MAX_OPSET", buf, sizeof buf, &size), "opset");
        snprintf(want, sizeof want, "%u", p.max_opset);
        assert_string_equal(buf, want);
        tu_ok(npu_device_get_property(d, "DEVICE_UUID", buf, sizeof buf, &size), "uuid");
        assert_int_equal(zeDriverGet(&one, &drv), ZE_RESULT_SUCCESS);
        one = 1;
        assert_int_equal(zeDeviceGet(drv, &one, &zd), ZE_RESULT_SUCCESS);
        memset(&zp, 0, sizeof zp);
        zp.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
        assert_int_equal(zeDeviceGetProperties(zd, &zp), ZE_RESULT_SUCCESS);
        for (k = 0; k < 16; k++) snprintf(want + 2 * k, 3, "%02x", (unsigned)zp.uuid.id[k]);
        assert_string_equal(buf, want);
    }
    assert_int_equal(npu_device_get_property(d, "NO_SUCH_PROPERTY", buf, sizeof buf, &size), NPU_ERR_NOT_FOUND);
    assert_true(strstr(npu_context_last_error(tu_ctx), "NO_SUCH_PROPERTY") != NULL);
    for (i = 0; names[i] != NULL; i++, n++)
        tu_ok(npu_device_get_property(d, names[i], buf, sizeof buf, &size), names[i]);
    assert_true(n >= 10);
    npu_device_close(d);
}

static void test_null_arguments(void **state)
{
    npu_device *d = NULL;
    npu_device_options bad;
    (void)state;
    assert_int_equal(npu_device_open(NULL, tu_ctx, NULL, &d), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_device_open(&tu_arena, tu_ctx, NULL, NULL), NPU_ERR_INVALID_ARGUMENT);
    memset(&bad, 0, sizeof bad);
    bad.priority = (npu_priority)9;
    assert_int_equal(npu_device_open(&tu_arena, tu_ctx, &bad, &d), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_device_get_properties(NULL, NULL), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_device_optimal_requests(NULL, NPU_HINT_LATENCY), 0);
    npu_device_close(NULL);
}

static void test_priority_and_turbo_queue(void **state)
{
    npu_device_options o;
    npu_device *d = NULL;
    (void)state;
    memset(&o, 0, sizeof o);
    o.priority = NPU_PRIORITY_HIGH;
    o.turbo = 1;
    tu_ok(npu_device_open(&tu_arena, tu_ctx, &o, &d), "high priority turbo device");
    npu_device_close(d);
}

/* ---- child processes ---- */

static int child_no_device(void)
{
    npu_device *d = (npu_device *)1;
    npu_status st;
    tu_init_context();
    st = npu_device_open(&tu_arena, tu_ctx, NULL, &d);
    if (st != NPU_ERR_NO_DEVICE || d != NULL) {
        fprintf(stderr, "expected NPU_ERR_NO_DEVICE, got %s\n", npu_status_string(st));
        return 1;
    }
    if (strstr(npu_context_last_error(tu_ctx), "ZE_ENABLE_ALT_DRIVERS=/abs/path/build/libze_npu_sim.so") == NULL) {
        fprintf(stderr, "message without the hint: %s\n", npu_context_last_error(tu_ctx));
        return 2;
    }
    if (npu_arena_used(&tu_arena) != 0) return 3;
    return 0;
}

static int child_platform(const char *want, uint32_t nireq)
{
    npu_device *d;
    npu_device_properties p;
    char buf[64];
    size_t size;
    tu_init_context();
    d = tu_open();
    if (npu_device_get_properties(d, &p) != NPU_OK) return 1;
    if (strcmp(p.platform, want) != 0) {
        fprintf(stderr, "platform %s, want %s\n", p.platform, want);
        return 2;
    }
    if (p.optimal_requests_throughput != nireq || p.optimal_requests_latency != 1) return 3;
    if (npu_device_get_property(d, "DEVICE_ARCHITECTURE", buf, sizeof buf, &size) != NPU_OK ||
        strcmp(buf, want) != 0)
        return 4;
    npu_device_close(d);
    return 0;
}

static void test_no_device_child(void **state)
{
    static const char *const env[] = {"ZE_ENABLE_ALT_DRIVERS=/nonexistent.so", NULL};
    (void)state;
    assert_int_equal(tu_rerun("--child-no-device", env), 0);
}

static void test_platform_children(void **state)
{
    static const char *const e4000[] = {"NPU_SIM_PLATFORM=4000", NULL};
    static const char *const e5010[] = {"NPU_SIM_PLATFORM=5010", NULL};
    (void)state;
    assert_int_equal(tu_rerun("--child-4000", e4000), 0);
    assert_int_equal(tu_rerun("--child-5010", e5010), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_open_properties, setup),
        cmocka_unit_test_setup(test_handles_return_to_baseline, setup),
        cmocka_unit_test_setup(test_exact_arena, setup),
        cmocka_unit_test_setup(test_property_strings, setup),
        cmocka_unit_test_setup(test_null_arguments, setup),
        cmocka_unit_test_setup(test_priority_and_turbo_queue, setup),
        cmocka_unit_test_setup(test_no_device_child, setup),
        cmocka_unit_test_setup(test_platform_children, setup),
    };
    if (argc > 1 && strcmp(argv[1], "--child-no-device") == 0) return child_no_device();
    if (argc > 1 && strcmp(argv[1], "--child-4000") == 0) return child_platform("4000", 8);
    if (argc > 1 && strcmp(argv[1], "--child-5010") == 0) return child_platform("50xx", 8);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
