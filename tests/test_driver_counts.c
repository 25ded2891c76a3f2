/* The counts a driver writes back through Level Zero's two-call enumerations
 * (zeDriverGet, zeDeviceGet, zeDriverGetExtensionProperties) are hostile
 * input like every other table the driver reports: npu_device_open must read
 * no handle it did not ask for and was not given, whatever count comes back
 * from the call that fills the array.
 *
 * This executable links libnpu.a statically, so the three functions are
 * interposed here: each forwards to the loader (dlsym RTLD_NEXT) and then,
 * while a lie is armed, rewrites the count of the filling call (the one with
 * an array). The software NPU is the only driver; its one device is a VPU. */
#include <dlfcn.h>

#include "tests/l0_test_util.h"

enum { LIE_NONE, LIE_MORE, LIE_ZERO };
static struct {
    int drivers, devices, extensions;   /* LIE_ for each enumeration's filling call */
    unsigned filled;                     /* filling calls that were given a lie */
} lie;

static ze_result_t (*real_zeDriverGet)(uint32_t *, ze_driver_handle_t *);
static ze_result_t (*real_zeDeviceGet)(ze_driver_handle_t, uint32_t *, ze_device_handle_t *);
static ze_result_t (*real_zeDriverGetExtensionProperties)(ze_driver_handle_t, uint32_t *,
                                                          ze_driver_extension_properties_t *);

static void resolve(void)
{
    *(void **)&real_zeDriverGet = dlsym(RTLD_NEXT, "zeDriverGet");
    *(void **)&real_zeDeviceGet = dlsym(RTLD_NEXT, "zeDeviceGet");
    *(void **)&real_zeDriverGetExtensionProperties = dlsym(RTLD_NEXT, "zeDriverGetExtensionProperties");
    assert_non_null(real_zeDriverGet);
    assert_non_null(real_zeDeviceGet);
    assert_non_null(real_zeDriverGetExtensionProperties);
}

/* After a filling call: the count as the armed lie says. */
static void tell(int how, uint32_t *count, const void *array)
{
    if (array == NULL || how == LIE_NONE) return;
    *count = how == LIE_MORE ? 100000u : 0u;
    lie.filled++;
}

ze_result_t zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers)
{
    ze_result_t r = real_zeDriverGet(pCount, phDrivers);
    if (r == ZE_RESULT_SUCCESS) tell(lie.drivers, pCount, phDrivers);
    return r;
}

ze_result_t zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount, ze_device_handle_t *phDevices)
{
    ze_result_t r = real_zeDeviceGet(hDriver, pCount, phDevices);
    if (r == ZE_RESULT_SUCCESS) tell(lie.devices, pCount, phDevices);
    return r;
}

ze_result_t zeDriverGetExtensionProperties(ze_driver_handle_t hDriver, uint32_t *pCount,
                                           ze_driver_extension_properties_t *pExtensionProperties)
{
    ze_result_t r = real_zeDriverGetExtensionProperties(hDriver, pCount, pExtensionProperties);
    if (r == ZE_RESULT_SUCCESS) tell(lie.extensions, pCount, pExtensionProperties);
    return r;
}

static tu_live baseline;

static int setup(void **state)
{
    npu_device *d = NULL;
    (void)state;
    memset(&lie, 0, sizeof lie);
    tu_init_context();
    /* one honest open first: zeInit done, the sim's test table found */
    assert_int_equal(npu_device_open(&tu_arena, tu_ctx, NULL, &d), NPU_OK);
    npu_device_close(d);
    baseline = tu_live_now();
    return 0;
}

/* Opens the device under the armed lies; returns its status, the device
 * closed again, and checks that no driver object is left behind and that a
 * device that opened is the software NPU (the only driver there is). */
static npu_status open_lied_to(void)
{
    npu_device_properties info;
    npu_device *d = NULL;
    npu_status st;
    size_t mark = tu_arena.used;
    st = npu_device_open(&tu_arena, tu_ctx, NULL, &d);
    lie.drivers = lie.devices = lie.extensions = LIE_NONE;
    assert_true(lie.filled > 0);   /* the lie was told */
    if (st == NPU_OK) {
        assert_non_null(d);
        assert_int_equal(npu_device_get_properties(d, &info), NPU_OK);
        assert_int_equal(info.is_simulated, 1);
        npu_device_close(d);
    } else {
        assert_null(d);
    }
    npu_arena_rewind(&tu_arena, mark);
    tu_live_expect(&baseline);
    return st;
}

/* One lie each: the enumeration lied about (its field of `lie`), what the
 * filling call claims, and what device open must then give (the message
 * part for a refusal). Claiming more than was asked: only what was asked for
 * is used, and the device opens. Taking back what the counting call
 * announced: no device, said as such (the message says what was searched),
 * nothing read. */
typedef struct lie_case {
    const char *name;
    int *which;
    int how;
    npu_status want;
    const char *message;
} lie_case;

static const lie_case cases[] = {
    {"more_drivers_than_asked", &lie.drivers, LIE_MORE, NPU_OK, NULL},
    {"more_devices_than_asked", &lie.devices, LIE_MORE, NPU_OK, NULL},
    {"more_extensions_than_asked", &lie.extensions, LIE_MORE, NPU_OK, NULL},
    {"drivers_withdrawn", &lie.drivers, LIE_ZERO, NPU_ERR_NO_DEVICE, "0 Level Zero driver(s) found"},
    {"devices_withdrawn", &lie.devices, LIE_ZERO, NPU_ERR_NO_DEVICE, "no NPU"},
    {"extensions_withdrawn", &lie.extensions, LIE_ZERO, NPU_ERR_NO_DEVICE, "ZE_extension_graph"},
};

static void test_lie(void **state)
{
    const lie_case *c = (const lie_case *)*state;
    *c->which = c->how;
    assert_int_equal(open_lied_to(), c->want);
    if (c->message != NULL) assert_non_null(strstr(npu_context_last_error(tu_ctx), c->message));
}

int main(void)
{
    struct CMUnitTest tests[sizeof cases / sizeof cases[0]];
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&tests[i], 0, sizeof tests[i]);
        tests[i].name = cases[i].name;
        tests[i].test_func = test_lie;
        tests[i].setup_func = setup;
        tests[i].initial_state = (void *)(uintptr_t)&cases[i];
    }
    resolve();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
