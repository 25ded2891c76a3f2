/* test_driver.c - the software NPU as a Level Zero driver, seen by a client of
 * the real loader (-lze_loader, ZE_ENABLE_ALT_DRIVERS=<libze_npu_sim.so>).
 *
 * The main run covers the core API, the graph extension at 1.18 and the test
 * hooks. Configurations that are fixed at zeInit (graph extension version,
 * platform, loader intercept, validation layer, a failed zeInit) run in child
 * processes: the binary re-executes itself with "--child <group>" and the
 * environment of that configuration.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ze_api.h>

#include "sim/npu_sim_ext.h"
#include "sim/profile.h"
#include "sim/sim_plan.h"
#include "sim/ze_graph_types.h"

extern char **environ;

#define ZE_OK(call) assert_int_equal((call), ZE_RESULT_SUCCESS)

/* ---- the client's view: one driver, one device, one context -------------------- */
static struct {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    ze_context_handle_t ctx;
    const ze_graph_dditable_ext_t *g;
    const npu_sim_test_ext_t *t;
    uint32_t ext_minor;          /* configured graph extension minor version */
    uint32_t compiler_version;   /* (major << 16) | minor, from the device */
    const sim_profile *prof;     /* the release profile this process runs (NPU_SIM_PROFILE) */
    uint64_t base[NPU_SIM_HANDLE_KIND_COUNT];
} E;

/* The profile the sim picks from NPU_SIM_PROFILE (the test links the same
 * profile table as libze_npu_sim.so, so expectations come from one place). */
static const sim_profile *env_profile(void)
{
    const char *v = getenv("NPU_SIM_PROFILE");
    const sim_profile *p = v != NULL && *v ? sim_profile_find(v) : NULL;
    return p != NULL ? p : sim_profile_current();
}

static int profile_is(const char *name)
{
    return strcmp(E.prof->name, name) == 0;
}

static uint32_t env_ext_minor(void)
{
    const char *v = getenv("NPU_SIM_GRAPH_EXT_VERSION");
    unsigned major = 1, minor = ZE_MINOR_VERSION(env_profile()->graph_ext_version);
    if (v != NULL && sscanf(v, "%u.%u", &major, &minor) == 2)
        return minor;
    return minor;
}

static int setup_env(void **state)
{
    (void)state;
    memset(&E, 0, sizeof(E));
    if (zeInit(ZE_INIT_FLAG_VPU_ONLY) != ZE_RESULT_SUCCESS)
        return -1;
    uint32_t n = 1;
    if (zeDriverGet(&n, &E.drv) != ZE_RESULT_SUCCESS || n != 1)
        return -1;
    n = 1;
    if (zeDeviceGet(E.drv, &n, &E.dev) != ZE_RESULT_SUCCESS || n != 1)
        return -1;
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    if (zeContextCreate(E.drv, &cd, &E.ctx) != ZE_RESULT_SUCCESS)
        return -1;
    if (zeDriverGetExtensionFunctionAddress(E.drv, NPU_SIM_TEST_EXT_NAME, (void **)&E.t) != ZE_RESULT_SUCCESS)
        return -1;
    if (zeDriverGetExtensionFunctionAddress(E.drv, ZE_GRAPH_EXT_NAME, (void **)&E.g) != ZE_RESULT_SUCCESS)
        return -1;
    E.ext_minor = env_ext_minor();
    E.prof = env_profile();
    ze_device_graph_properties_t gp = {ZE_STRUCTURE_TYPE_DEVICE_GRAPH_PROPERTIES, NULL, 0, {0, 0}, 0, 0};
    if (E.g->pfnDeviceGetGraphProperties(E.dev, &gp) != ZE_RESULT_SUCCESS)
        return -1;
    E.compiler_version = ((uint32_t)gp.compilerVersion.major << 16) | gp.compilerVersion.minor;
    for (int k = 0; k < NPU_SIM_HANDLE_KIND_COUNT; k++)
        E.base[k] = E.t->pfnGetLiveHandles((npu_sim_handle_kind)k);
    return 0;
}

static int teardown_env(void **state)
{
    (void)state;
    if (zeContextDestroy(E.ctx) != ZE_RESULT_SUCCESS)
        return -1;
    for (int k = 0; k < NPU_SIM_HANDLE_KIND_COUNT; k++) {
        if (E.t->pfnGetLiveHandles((npu_sim_handle_kind)k) != 0) {
            fprintf(stderr, "handle kind %d still has %llu live handles\n", k,
                    (unsigned long long)E.t->pfnGetLiveHandles((npu_sim_handle_kind)k));
            return -1;
        }
    }
    return 0;
}

/* Every test ends with the live-handle counts back where the suite began. */
static int check_no_leaks(void **state)
{
    (void)state;
    for (int k = 0; k < NPU_SIM_HANDLE_KIND_COUNT; k++) {
        uint64_t now = E.t->pfnGetLiveHandles((npu_sim_handle_kind)k);
        if (now != E.base[k]) {
            fprintf(stderr, "leak: handle kind %d: %llu live, %llu at start\n", k, (unsigned long long)now,
                    (unsigned long long)E.base[k]);
            return -1;
        }
    }
    return 0;
}

static void *host_alloc(size_t size)
{
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *p = NULL;
    ZE_OK(zeMemAllocHost(E.ctx, &hd, size, 4096, &p));
    return p;
}

typedef struct exec_env {
    ze_command_queue_handle_t q;
    ze_command_list_handle_t l;
    ze_fence_handle_t f;
} exec_env;

static void exec_open(exec_env *x)
{
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ZE_OK(zeCommandQueueCreate(E.ctx, E.dev, &qd, &x->q));
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ZE_OK(zeCommandListCreate(E.ctx, E.dev, &ld, &x->l));
    ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
    ZE_OK(zeFenceCreate(x->q, &fd, &x->f));
}

static void exec_run(exec_env *x)
{
    ZE_OK(zeCommandListClose(x->l));
    ZE_OK(zeCommandQueueExecuteCommandLists(x->q, 1, &x->l, x->f));
    ZE_OK(zeFenceHostSynchronize(x->f, UINT64_MAX));
}

static void exec_close(exec_env *x)
{
    ZE_OK(zeFenceDestroy(x->f));
    ZE_OK(zeCommandListDestroy(x->l));
    ZE_OK(zeCommandQueueDestroy(x->q));
}

/* ---- NGRAPH_LITE payloads (layout A of ze-graph-ext.md §3) ------------------------- */
/* y = a * b + c, all f32 [1,4]; c comes from the weights. */
static const char model_xml_fmt[] =
    "<?xml version=\"1.0\"?>\n"
    "<net name=\"muladd\" version=\"11\">\n"
    " <layers>\n"
    "  <layer id=\"0\" name=\"a\" type=\"Parameter\" version=\"opset1\">\n"
    "   <data shape=\"%s,4\" element_type=\"f32\"/>\n"
    "   <output><port id=\"0\" precision=\"FP32\" names=\"a\"><dim>%s</dim><dim>4</dim></port></output>\n"
    "  </layer>\n"
    "  <layer id=\"1\" name=\"b\" type=\"Parameter\" version=\"opset1\">\n"
    "   <data shape=\"1,4\" element_type=\"f32\"/>\n"
    "   <output><port id=\"0\" precision=\"FP32\" names=\"b\"><dim>1</dim><dim>4</dim></port></output>\n"
    "  </layer>\n"
    "  <layer id=\"2\" name=\"mul\" type=\"%s\" version=\"opset1\">\n"
    "   <data auto_broadcast=\"numpy\"/>\n"
    "   <input><port id=\"0\" precision=\"FP32\"><dim>%s</dim><dim>4</dim></port>"
    "<port id=\"1\" precision=\"FP32\"><dim>1</dim><dim>4</dim></port></input>\n"
    "   <output><port id=\"2\" precision=\"FP32\"><dim>%s</dim><dim>4</dim></port></output>\n"
    "  </layer>\n"
    "  <layer id=\"3\" name=\"c\" type=\"Const\" version=\"opset1\">\n"
    "   <data element_type=\"f32\" shape=\"1,4\" offset=\"0\" size=\"16\"/>\n"
    "   <output><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>4</dim></port></output>\n"
    "  </layer>\n"
    "  <layer id=\"4\" name=\"sum\" type=\"Add\" version=\"opset1\">\n"
    "   <data auto_broadcast=\"numpy\"/>\n"
    "   <input><port id=\"0\" precision=\"FP32\"><dim>%s</dim><dim>4</dim></port>"
    "<port id=\"1\" precision=\"FP32\"><dim>1</dim><dim>4</dim></port></input>\n"
    "   <output><port id=\"2\" precision=\"FP32\" names=\"y\"><dim>%s</dim><dim>4</dim></port></output>\n"
    "  </layer>\n"
    "  <layer id=\"5\" name=\"y/sink_port_0\" type=\"Result\" version=\"opset1\">\n"
    "   <input><port id=\"0\" precision=\"FP32\"><dim>%s</dim><dim>4</dim></port></input>\n"
    "  </layer>\n"
    " </layers>\n"
    " <edges>\n"
    "  <edge from-layer=\"0\" from-port=\"0\" to-layer=\"2\" to-port=\"0\"/>\n"
    "  <edge from-layer=\"1\" from-port=\"0\" to-layer=\"2\" to-port=\"1\"/>\n"
    "  <edge from-layer=\"2\" from-port=\"2\" to-layer=\"4\" to-port=\"0\"/>\n"
    "  <edge from-layer=\"3\" from-port=\"0\" to-layer=\"4\" to-port=\"1\"/>\n"
    "  <edge from-layer=\"4\" from-port=\"2\" to-layer=\"5\" to-port=\"0\"/>\n"
    " </edges>\n"
    "</net>\n";

static const float model_c[4] = {0.5f, -1.0f, 2.25f, 100.0f};

typedef struct payload {
    uint8_t *data;
    size_t size;
} payload;

/* op: "Multiply" for the good model; batch: "1" or "-1" (dynamic). */
static payload make_payload_ex(const char *op, const char *batch, uint32_t version)
{
    char xml[8192];
    /* the <data shape> of "a" uses "?" for a dynamic dimension, the ports -1 */
    const char *shape = strcmp(batch, "-1") == 0 ? "?" : batch;
    int xml_len = snprintf(xml, sizeof(xml), model_xml_fmt, shape, batch, op, batch, batch, batch, batch, batch);
    assert_true(xml_len > 0 && (size_t)xml_len < sizeof(xml));
    payload p;
    uint64_t xml_size = (uint64_t)xml_len, w_size = sizeof(model_c);
    p.size = 24 + (size_t)xml_size + (size_t)w_size;
    p.data = malloc(p.size);
    assert_non_null(p.data);
    uint16_t major = (uint16_t)(version >> 16), minor = (uint16_t)(version & 0xffff);
    uint32_t sections = 2;
    memcpy(p.data + 0, &major, 2);
    memcpy(p.data + 2, &minor, 2);
    memcpy(p.data + 4, &sections, 4);
    memcpy(p.data + 8, &xml_size, 8);
    memcpy(p.data + 16, xml, (size_t)xml_size);
    memcpy(p.data + 16 + xml_size, &w_size, 8);
    memcpy(p.data + 24 + xml_size, model_c, sizeof(model_c));
    return p;
}

static payload make_payload(void)
{
    return make_payload_ex("Multiply", "1", E.compiler_version);
}

/* The I/O flags by tensor name: the 2024 compiler refuses a build without
 * them ("Mandatory ioInfo options are missing!"); later ones accept both. */
#define IO_FLAGS                                                                          \
    "--inputs_precisions=\"a:FP32 b:FP32\" --inputs_layouts=\"a:NC b:NC\" "             \
    "--outputs_precisions=\"sum:FP32\" --outputs_layouts=\"sum:NC\""

/* Creates a graph with the newest create the configured version offers. */
static ze_result_t create_graph(ze_graph_format_t format, const void *data, size_t size, uint32_t flags,
                                ze_graph_handle_t *g)
{
    if (E.ext_minor >= 5) {
        ze_graph_desc_2_t d = {ZE_STRUCTURE_TYPE_GRAPH_DESC_2, NULL, format, size, data, IO_FLAGS, flags};
        return E.g->pfnCreate2(E.ctx, E.dev, &d, g);
    }
    ze_graph_desc_t d = {ZE_STRUCTURE_TYPE_GRAPH_DESC, NULL, format, size, data, IO_FLAGS};
    return E.g->pfnCreate(E.ctx, E.dev, &d, g);
}

static ze_graph_handle_t compile_model(void)
{
    payload p = make_payload();
    ze_graph_handle_t g = NULL;
    /* the compiler itself, not the driver's disk cache (tested on its own) */
    ze_result_t rc = create_graph(ZE_GRAPH_FORMAT_NGRAPH_LITE, p.data, p.size, ZE_GRAPH_FLAG_DISABLE_CACHING, &g);
    if (rc != ZE_RESULT_SUCCESS) {
        char log[4096] = "";
        uint32_t n = sizeof(log);
        if (E.ext_minor >= 4)
            E.g->pfnBuildLogGetString(NULL, &n, log);
        fprintf(stderr, "compile failed 0x%x: %s\n", (unsigned)rc, log);
    }
    free(p.data);
    ZE_OK(rc);
    assert_non_null(g);
    return g;
}

static void fill_inputs(float *a, float *b, float scale)
{
    for (int i = 0; i < 4; i++) {
        a[i] = scale * (float)(i + 1);
        b[i] = (float)(3 - i) - 0.5f;
    }
}

static void check_output(const float *a, const float *b, const float *y)
{
    for (int i = 0; i < 4; i++)
        assert_float_equal(y[i], a[i] * b[i] + model_c[i], 1e-5);
}

/* Runs graph g once on fresh host buffers and checks y = a * b + c. */
static void run_model_once(ze_graph_handle_t g, float scale)
{
    float *a = host_alloc(16), *b = host_alloc(16), *y = host_alloc(16);
    fill_inputs(a, b, scale);
    memset(y, 0xff, 16);
    ZE_OK(E.g->pfnSetArgumentValue(g, 0, a));
    ZE_OK(E.g->pfnSetArgumentValue(g, 1, b));
    ZE_OK(E.g->pfnSetArgumentValue(g, 2, y));
    exec_env x;
    exec_open(&x);
    if (E.ext_minor < 8)
        ZE_OK(E.g->pfnAppendGraphInitialize(x.l, g, NULL, 0, NULL));
    else
        ZE_OK(E.g->pfnGraphInitialize(g));
    ZE_OK(E.g->pfnAppendGraphExecute(x.l, g, NULL, NULL, 0, NULL));
    exec_run(&x);
    check_output(a, b, y);
    exec_close(&x);
    ZE_OK(zeMemFree(E.ctx, a));
    ZE_OK(zeMemFree(E.ctx, b));
    ZE_OK(zeMemFree(E.ctx, y));
}

/* ====================================================================================
 * Driver and device
 * ==================================================================================== */
static void test_driver_reports_its_own_uuid_and_profile_versions(void **state)
{
    (void)state;
    ze_driver_properties_t p = {ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES, NULL, {{0}}, 0};
    ZE_OK(zeDriverGetProperties(E.drv, &p));
    static const uint8_t intel_npu[16] = {0x01, 0x7d, 0xe9, 0x31, 0x6b, 0x4d, 0x4f, 0xd4,
                                          0xaa, 0x9b, 0x5b, 0xed, 0x77, 0xfc, 0x8e, 0x89};
    assert_memory_not_equal(p.uuid.id, intel_npu, 16);
    assert_memory_equal(p.uuid.id, "npu-sim-driver01", 16);
    assert_int_equal(p.driverVersion, E.prof->driver_version);
    ze_api_version_t v = 0;
    ZE_OK(zeDriverGetApiVersion(E.drv, &v));
    assert_int_equal(v, E.prof->api_version);
    assert_string_equal(E.t->pfnGetProfileName(), E.prof->name);
    ze_driver_ipc_properties_t ipc = {ZE_STRUCTURE_TYPE_DRIVER_IPC_PROPERTIES, NULL, 0xff};
    ZE_OK(zeDriverGetIpcProperties(E.drv, &ipc));
    assert_int_equal(ipc.flags, 0);
    uint32_t n = 0;
    ZE_OK(zeDriverGet(&n, NULL));
    assert_int_equal(n, 1);
}

static int find_ext(const ze_driver_extension_properties_t *e, uint32_t n, const char *name, uint32_t *version)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(e[i].name, name) == 0) {
            *version = e[i].version;
            return 1;
        }
    return 0;
}

/* The advertised list, in the order of the profile's real driver:
 * v1.10.0 / v1.19.0 api/ze_driver.cpp supportedExts, v1.32.1
 * source/driver_handle.cpp getSupportedExtensions. */
static void check_extension_order(const ze_driver_extension_properties_t *ext, uint32_t n, uint32_t minor)
{
    struct {
        const char *name;
        uint32_t version;
    } want[16];
    uint32_t w = 0;
    want[w].name = "ZE_extension_graph", want[w++].version = ZE_MAKE_VERSION(1, minor);
    want[w].name = "ZE_extension_profiling_data", want[w++].version = ZE_MAKE_VERSION(1, 0);
    if (profile_is("2024"))
        want[w].name = "ZE_experimental_mutable_command_list", want[w++].version = ZE_MAKE_VERSION(1, 0);
    else
        want[w].name = "ZE_experimental_mutable_command_list", want[w++].version = ZE_MAKE_VERSION(1, 1);
    want[w].name = "ZE_extension_command_queue_npu";
    want[w++].version = profile_is("2026") ? ZE_MAKE_VERSION(1, 1) : ZE_MAKE_VERSION(1, 0);
    if (profile_is("2026")) {
        want[w].name = "ZE_extension_context_npu", want[w++].version = ZE_MAKE_VERSION(1, 0);
        want[w].name = "ZE_extension_external_memmap_sysmem", want[w++].version = ZE_MAKE_VERSION(1, 0);
    }
    uint32_t legacy = 0;
    for (uint32_t m = 2; m <= 8 && m <= minor; m++, legacy++)
        ;
    assert_int_equal(n, w + legacy + 1);
    for (uint32_t i = 0; i < w; i++) {
        assert_string_equal(ext[i].name, want[i].name);
        assert_int_equal(ext[i].version, want[i].version);
    }
    for (uint32_t i = 0; i < legacy; i++) {
        char name[64];
        snprintf(name, sizeof(name), "ZE_extension_graph_1_%u", i + 2);
        assert_string_equal(ext[w + i].name, name);
        assert_int_equal(ext[w + i].version, ZE_MAKE_VERSION(1, (i + 2)));
    }
    assert_string_equal(ext[n - 1].name, NPU_SIM_TEST_EXT_NAME);
}

static void check_extension_list(uint32_t minor)
{
    uint32_t n = 0;
    ZE_OK(zeDriverGetExtensionProperties(E.drv, &n, NULL));
    assert_true(n >= 3);
    ze_driver_extension_properties_t ext[32];
    assert_true(n <= 32);
    ZE_OK(zeDriverGetExtensionProperties(E.drv, &n, ext));
    uint32_t v = 0;
    assert_true(find_ext(ext, n, "ZE_extension_graph", &v));
    assert_int_equal(v, ZE_MAKE_VERSION(1, minor));
    assert_string_equal(ext[0].name, "ZE_extension_graph");
    for (uint32_t m = 2; m <= 9; m++) {
        char name[64];
        snprintf(name, sizeof(name), "ZE_extension_graph_1_%u", m);
        int want = m <= 8 && m <= minor;
        assert_int_equal(find_ext(ext, n, name, &v), want);
        if (want)
            assert_int_equal(v, ZE_MAKE_VERSION(1, m));
    }
    assert_true(find_ext(ext, n, NPU_SIM_TEST_EXT_NAME, &v));
    check_extension_order(ext, n, minor);
    /* a short buffer gets the first entries only */
    uint32_t two = 2;
    ZE_OK(zeDriverGetExtensionProperties(E.drv, &two, ext));
    assert_int_equal(two, 2);
    /* as the real driver: the count is clamped, then the NULL array refused */
    uint32_t many = 100;
    assert_int_equal(zeDriverGetExtensionProperties(E.drv, &many, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    assert_int_equal(many, n);
}

static void test_extension_list_and_function_addresses(void **state)
{
    (void)state;
    check_extension_list(E.ext_minor);
    void *t1 = NULL, *t2 = NULL, *t3 = NULL;
    ZE_OK(zeDriverGetExtensionFunctionAddress(E.drv, "ZE_extension_graph", &t1));
    ZE_OK(zeDriverGetExtensionFunctionAddress(E.drv, "ZE_extension_graph_1_5", &t2));
    ZE_OK(zeDriverGetExtensionFunctionAddress(E.drv, "my_ZE_extension_graph_x", &t3));
    assert_ptr_equal(t1, t2);
    assert_ptr_equal(t1, t3);
    void *none = (void *)1;
    /* v1.10.0 ends an unknown name with UNKNOWN, later releases with INVALID_ARGUMENT */
    assert_int_equal(zeDriverGetExtensionFunctionAddress(E.drv, "ZE_extension_nope", &none),
                     profile_is("2024") ? ZE_RESULT_ERROR_UNKNOWN : ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert_null(none);
    /* the profiling and context-NPU tables (their behaviour: test_profiling_*,
     * test_queue_and_context_controls) */
    struct {
        ze_result_t (*pool_create)(ze_graph_handle_t, uint32_t, void **);
    } *prof = NULL;
    ZE_OK(zeDriverGetExtensionFunctionAddress(E.drv, "ZE_extension_profiling_data", (void **)&prof));
    assert_non_null(prof);
    void *pool = NULL;
    assert_int_equal(prof->pool_create(NULL, 1, &pool), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    struct {
        ze_result_t (*set_properties)(ze_context_handle_t, void *);
        ze_result_t (*release_memory)(ze_context_handle_t);
    } *ctx_tbl = NULL;
    ze_result_t ctx_rc = zeDriverGetExtensionFunctionAddress(E.drv, "ZE_extension_context_npu", (void **)&ctx_tbl);
    if (profile_is("2026")) {
        ZE_OK(ctx_rc);
        ZE_OK(ctx_tbl->release_memory(E.ctx));
    } else {
        assert_int_not_equal(ctx_rc, ZE_RESULT_SUCCESS);
    }
    ze_command_queue_npu_dditable_ext_t *cq = NULL;
    ZE_OK(zeDriverGetExtensionFunctionAddress(E.drv, "ZE_extension_command_queue_npu", (void **)&cq));
    exec_env x;
    exec_open(&x);
    ZE_OK(cq->pfnSetWorkloadType(x.q, ZE_WORKLOAD_TYPE_BACKGROUND));
    ZE_OK(cq->pfnSetWorkloadType(x.q, ZE_WORKLOAD_TYPE_DEFAULT));
    assert_int_equal(cq->pfnSetWorkloadType(x.q, (ze_command_queue_workload_type_t)7),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
    exec_close(&x);
}

static uint32_t expected_device_id(void)
{
    const char *p = getenv("NPU_SIM_PLATFORM");
    if (p != NULL && strcmp(p, "4000") == 0)
        return 0x643E;
    if (p != NULL && strcmp(p, "5010") == 0)
        return 0xB03E;
    return 0x7D1D;
}

static void test_device_properties_model_the_npu(void **state)
{
    (void)state;
    ze_device_ip_version_ext_t ip = {ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT, NULL, 0xdeadbeef};
    ze_device_properties_t p;
    memset(&p, 0xab, sizeof(p));
    p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    p.pNext = &ip;
    ZE_OK(zeDeviceGetProperties(E.dev, &p));
    assert_int_equal(p.stype, ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
    assert_ptr_equal(p.pNext, &ip);
    assert_int_equal(p.type, ZE_DEVICE_TYPE_VPU);
    assert_int_equal(p.vendorId, 0x8086);
    assert_int_equal(p.deviceId, expected_device_id());
    assert_non_null(strstr(p.name, "npu-sim"));
    assert_int_equal(p.flags, ZE_DEVICE_PROPERTY_FLAG_INTEGRATED);
    assert_int_equal(p.maxHardwareContexts, 1);
    assert_int_equal(p.timestampValidBits, 64);
    assert_int_equal(p.timerResolution, 1);
    assert_true(p.maxMemAllocSize > (64u << 20));
    assert_int_equal(ip.ipVersion, 0);
    assert_int_equal(ip.stype, ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT);

    p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2;
    p.pNext = NULL;
    ZE_OK(zeDeviceGetProperties(E.dev, &p));
    assert_int_equal(p.timerResolution, 1000000000ull);

    uint32_t n = 0;
    ZE_OK(zeDeviceGetSubDevices(E.dev, &n, NULL));
    assert_int_equal(n, 0);
    ze_device_compute_properties_t cp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    ZE_OK(zeDeviceGetComputeProperties(E.dev, &cp));
    assert_int_equal(cp.maxTotalGroupSize, 1);

    n = 0;
    ZE_OK(zeDeviceGetCommandQueueGroupProperties(E.dev, &n, NULL));
    assert_int_equal(n, 1);
    ze_command_queue_group_properties_t qg = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    ZE_OK(zeDeviceGetCommandQueueGroupProperties(E.dev, &n, &qg));
    assert_int_equal(qg.flags, ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY);
    assert_int_equal(qg.numQueues, 1);

    n = 0;
    ZE_OK(zeDeviceGetMemoryProperties(E.dev, &n, NULL));
    assert_int_equal(n, 1);
    ze_device_memory_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    ZE_OK(zeDeviceGetMemoryProperties(E.dev, &n, &mp));
    assert_true(mp.totalSize > 0);
    ze_device_memory_access_properties_t ma = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES};
    ZE_OK(zeDeviceGetMemoryAccessProperties(E.dev, &ma));
    assert_true(ma.hostAllocCapabilities & ZE_MEMORY_ACCESS_CAP_FLAG_RW);
    n = 5;
    ZE_OK(zeDeviceGetCacheProperties(E.dev, &n, NULL));
    assert_int_equal(n, 0);
    ze_device_external_memory_properties_t em = {.stype = ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES};
    ZE_OK(zeDeviceGetExternalMemoryProperties(E.dev, &em));
    /* Device::getGetExternalMemoryProperties: dma-buf both ways; STANDARD_ALLOCATION
     * import only where the driver imports caller pages (v1.32) */
    assert_int_equal(em.memoryAllocationImportTypes,
                     ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF |
                         (profile_is("2026") ? ZE_EXTERNAL_MEMORY_TYPE_FLAG_STANDARD_ALLOCATION : 0));
    assert_int_equal(em.memoryAllocationExportTypes, ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF);
    ze_bool_t peer = 0;
    ZE_OK(zeDeviceCanAccessPeer(E.dev, E.dev, &peer));
    assert_true(peer);
    ZE_OK(zeDeviceGetStatus(E.dev));
    uint64_t h1, d1, h2, d2;
    ZE_OK(zeDeviceGetGlobalTimestamps(E.dev, &h1, &d1));
    ZE_OK(zeDeviceGetGlobalTimestamps(E.dev, &h2, &d2));
    assert_true(d2 >= d1 && h2 >= h1);
    ZE_OK(zeContextGetStatus(E.ctx));
}

static void test_device_graph_properties(void **state)
{
    (void)state;
    ze_device_graph_properties_t p = {ZE_STRUCTURE_TYPE_DEVICE_GRAPH_PROPERTIES, NULL, 0, {0, 0}, 0, 0};
    ZE_OK(E.g->pfnDeviceGetGraphProperties(E.dev, &p));
    assert_int_equal(p.graphExtensionVersion, ZE_MAKE_VERSION(1, E.ext_minor));
    assert_int_equal(p.graphFormatsSupported, ZE_GRAPH_FORMAT_NGRAPH_LITE);
    assert_int_equal(p.maxOVOpsetVersionSupported, E.prof->max_opset);
    const char *cv = getenv("NPU_SIM_COMPILER_VERSION");
    if (cv == NULL) {
        assert_int_equal(p.compilerVersion.major, E.prof->compiler_version >> 16);
        assert_int_equal(p.compilerVersion.minor, E.prof->compiler_version & 0xffff);
    }
    if (E.ext_minor >= 6) {
        uint32_t stypes[2] = {ZE_STRUCTURE_TYPE_DEVICE_GRAPH_PROPERTIES, ZE_STRUCTURE_TYPE_DEVICE_GRAPH_PROPERTIES_2};
        for (int i = 0; i < 2; i++) {
            ze_device_graph_properties_2_t p2;
            memset(&p2, 0, sizeof(p2));
            p2.stype = (ze_structure_type_graph_ext_t)stypes[i];
            ZE_OK(E.g->pfnDeviceGetGraphProperties2(E.dev, &p2));
            assert_int_equal(p2.stype, stypes[i]);
            assert_int_equal(p2.compilerVersion.minor, p.compilerVersion.minor);
            assert_int_equal(p2.elfVersion.major, 1);
            assert_int_equal(p2.runtimeVersion.major, 1);
        }
    }
    p.stype = ZE_STRUCTURE_TYPE_GRAPH_PROPERTIES;
    assert_int_equal(E.g->pfnDeviceGetGraphProperties(E.dev, &p), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

/* ====================================================================================
 * Memory
 * ==================================================================================== */
static void test_memory_alloc_free_and_properties(void **state)
{
    (void)state;
    uint64_t live = E.t->pfnGetLiveHandles(NPU_SIM_HANDLE_MEMORY);
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *h = NULL, *h64k = NULL, *d = NULL, *s = NULL;
    ZE_OK(zeMemAllocHost(E.ctx, &hd, 100, 0, &h));
    assert_int_equal((uintptr_t)h % 4096, 0);
    ZE_OK(zeMemAllocHost(E.ctx, &hd, 100, 65536, &h64k));
    assert_int_equal((uintptr_t)h64k % 65536, 0);
    ZE_OK(zeMemAllocDevice(E.ctx, &dd, 4096, 64, E.dev, &d));
    ZE_OK(zeMemAllocShared(E.ctx, &dd, &hd, 8192, 0, E.dev, &s));
    assert_int_equal(E.t->pfnGetLiveHandles(NPU_SIM_HANDLE_MEMORY), live + 4);
    memset(h, 1, 100);
    memset(d, 2, 4096);
    memset(s, 3, 8192);

    void *p = (void *)1;
    assert_int_equal(zeMemAllocHost(E.ctx, &hd, 100, 3, &p), ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    assert_int_equal(zeMemAllocHost(E.ctx, &hd, 0, 0, &p), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);

    ze_memory_allocation_properties_t ap = {ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES, NULL, 0, 0, 0};
    ze_device_handle_t dev = NULL;
    ZE_OK(zeMemGetAllocProperties(E.ctx, (char *)h + 50, &ap, &dev));
    assert_int_equal(ap.type, ZE_MEMORY_TYPE_HOST);
    assert_ptr_equal(dev, E.dev);
    uint64_t id_h = ap.id;
    ZE_OK(zeMemGetAllocProperties(E.ctx, d, &ap, NULL));
    assert_int_equal(ap.type, ZE_MEMORY_TYPE_DEVICE);
    assert_int_not_equal(ap.id, id_h);
    ZE_OK(zeMemGetAllocProperties(E.ctx, s, &ap, NULL));
    assert_int_equal(ap.type, ZE_MEMORY_TYPE_SHARED);
    int local = 0;
    ZE_OK(zeMemGetAllocProperties(E.ctx, &local, &ap, &dev));
    assert_int_equal(ap.type, ZE_MEMORY_TYPE_UNKNOWN);
    assert_null(dev);

    void *base = NULL;
    size_t size = 0;
    ZE_OK(zeMemGetAddressRange(E.ctx, (char *)s + 8000, &base, &size));
    assert_ptr_equal(base, s);
    assert_int_equal(size, 8192);
    assert_int_equal(zeMemGetAddressRange(E.ctx, (char *)s + 8192 + 4096 * 64, &base, &size) == ZE_RESULT_SUCCESS &&
                         base == s,
                     0);
    assert_int_equal(zeMemGetAddressRange(E.ctx, &local, &base, &size), ZE_RESULT_ERROR_INVALID_ARGUMENT);

    ZE_OK(zeContextMakeMemoryResident(E.ctx, E.dev, d, 4096));
    ZE_OK(zeContextEvictMemory(E.ctx, E.dev, d, 4096));

    ZE_OK(zeMemFree(E.ctx, h));
    ZE_OK(zeMemFree(E.ctx, h64k));
    ZE_OK(zeMemFree(E.ctx, d));
    ZE_OK(zeMemFree(E.ctx, s));
    assert_int_equal(zeMemFree(E.ctx, h), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(E.t->pfnGetLiveHandles(NPU_SIM_HANDLE_MEMORY), live);
}

/* zeMemAllocHost imports caller pages only for the profile's stype, read from
 * the FIRST pNext struct (api/ze_memory.cpp @v1.32.1: 0x00020037
 * EXTERNAL_MEMMAP_SYSMEM_EXT_DESC; v1.10.0 / v1.19.0 have no such case). Any
 * other struct gets a fresh allocation: zero copy silently does not happen. */
typedef struct memmap_desc {
    uint32_t stype;
    const void *pNext;
    const void *pSystemMemory;
    uint64_t size;
} memmap_desc;

static void test_memory_import_of_caller_pages(void **state)
{
    (void)state;
    uint8_t *mine = aligned_alloc(4096, 3 * 4096);
    assert_non_null(mine);
    memset(mine, 0x5c, 3 * 4096);
    uint64_t imports = E.t->pfnGetImportCount();
    memmap_desc imp = {0x00020037u, NULL, mine, 2 * 4096};
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, &imp, 0};
    void *p = NULL;
    ZE_OK(zeMemAllocHost(E.ctx, &hd, 2 * 4096, 4096, &p));
    if (!profile_is("2026")) {
        /* no import in this release: a fresh, zeroed allocation */
        assert_ptr_not_equal(p, mine);
        assert_int_equal(((uint8_t *)p)[0], 0);
        assert_int_equal(E.t->pfnGetImportCount(), imports);
        ZE_OK(zeMemFree(E.ctx, p));
        free(mine);
        return;
    }
    assert_ptr_equal(p, mine);
    assert_int_equal(E.t->pfnGetImportCount(), imports + 1);
    ze_memory_allocation_properties_t ap = {ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES, NULL, 0, 0, 0};
    ZE_OK(zeMemGetAllocProperties(E.ctx, (char *)mine + 4096, &ap, NULL));
    assert_int_equal(ap.type, ZE_MEMORY_TYPE_HOST);
    ZE_OK(zeMemGetAllocProperties(E.ctx, (char *)mine + 2 * 4096, &ap, NULL));
    assert_int_equal(ap.type, ZE_MEMORY_TYPE_UNKNOWN);
    /* an already imported pointer is refused (Context::importUserPtr) */
    void *q = NULL;
    assert_int_equal(zeMemAllocHost(E.ctx, &hd, 2 * 4096, 4096, &q), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    imp.pSystemMemory = (char *)mine + 4096;
    assert_int_equal(zeMemAllocHost(E.ctx, &hd, 2 * 4096, 4096, &q), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* size 0 and NULL as importUserPtr checks them */
    imp.pSystemMemory = (char *)mine + 2 * 4096;
    imp.size = 0;
    assert_int_equal(zeMemAllocHost(E.ctx, &hd, 4096, 4096, &q), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    imp.pSystemMemory = NULL;
    imp.size = 4096;
    assert_int_equal(zeMemAllocHost(E.ctx, &hd, 4096, 4096, &q), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    assert_int_equal(E.t->pfnGetImportCount(), imports + 1);

    /* the old stype 0x24, or the right struct second in the chain: fresh memory */
    ze_external_memory_import_system_memory_t old = {(ze_structure_type_t)0x24, NULL, mine + 2 * 4096, 4096};
    ze_host_mem_alloc_desc_t hd_old = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, &old, 0};
    void *r = NULL;
    ZE_OK(zeMemAllocHost(E.ctx, &hd_old, 4096, 4096, &r));
    assert_ptr_not_equal(r, mine + 2 * 4096);
    ZE_OK(zeMemFree(E.ctx, r));
    memmap_desc second = {0x00020037u, NULL, mine + 2 * 4096, 4096};
    ze_external_memory_import_system_memory_t first = {(ze_structure_type_t)0x24, &second, mine + 2 * 4096, 4096};
    ze_host_mem_alloc_desc_t hd_chain = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, &first, 0};
    ZE_OK(zeMemAllocHost(E.ctx, &hd_chain, 4096, 4096, &r));
    assert_ptr_not_equal(r, mine + 2 * 4096);
    ZE_OK(zeMemFree(E.ctx, r));
    assert_int_equal(E.t->pfnGetImportCount(), imports + 1);

    ZE_OK(zeMemFree(E.ctx, p));
    memset(mine, 7, 3 * 4096); /* still the caller's memory */
    free(mine);
}

/* A memfd of `size` bytes holding byte i = (i * 7 + salt) & 0xff. */
static int patterned_memfd(size_t size, unsigned salt)
{
    int fd = memfd_create("sim-test-dmabuf", MFD_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)size), 0);
    uint8_t *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    assert_true(m != MAP_FAILED);
    for (size_t i = 0; i < size; i++)
        m[i] = (uint8_t)((i * 7 + salt) & 0xffu);
    munmap(m, size);
    return fd;
}

/* ze_external_memory_import_fd_t (api/ze_memory.cpp): the first struct of the
 * chain, flags exactly DMA_BUF; the whole buffer is imported whatever size and
 * alignment say; the fd stays the caller's. */
static void test_memory_import_of_a_dma_buf_fd(void **state)
{
    (void)state;
    const size_t size = 3 * 4096 + 100;
    int fd = patterned_memfd(size, 3);
    uint64_t imports = E.t->pfnGetImportCount();
    ze_external_memory_import_fd_t imp = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_FD, NULL,
                                          ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF, fd};
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, &imp, 0};
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &imp, 0, 0};
    ze_host_mem_alloc_desc_t hd_plain = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *h = NULL, *d = NULL, *sh = NULL;
    ZE_OK(zeMemAllocHost(E.ctx, &hd, 1, 0, &h)); /* size and alignment are not looked at */
    ZE_OK(zeMemAllocDevice(E.ctx, &dd, 4096, 4096, E.dev, &d));
    /* zeMemAllocShared reads the device descriptor's chain, not the host one's */
    ZE_OK(zeMemAllocShared(E.ctx, &dd, &hd_plain, 4096, 4096, E.dev, &sh));
    assert_int_equal(E.t->pfnGetImportCount(), imports + 3);
    close(fd); /* the imports keep the buffer */
    void *base = NULL;
    size_t got = 0;
    ZE_OK(zeMemGetAddressRange(E.ctx, (uint8_t *)h + 5000, &base, &got));
    assert_ptr_equal(base, h);
    assert_int_equal(got, size);
    ze_memory_allocation_properties_t ap = {ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES, NULL, 0, 0, 0};
    ZE_OK(zeMemGetAllocProperties(E.ctx, d, &ap, NULL));
    assert_int_equal(ap.type, ZE_MEMORY_TYPE_DEVICE);
    ZE_OK(zeMemGetAllocProperties(E.ctx, sh, &ap, NULL));
    assert_int_equal(ap.type, ZE_MEMORY_TYPE_SHARED);
    for (size_t i = 0; i < size; i += 997)
        assert_int_equal(((uint8_t *)h)[i], (uint8_t)((i * 7 + 3) & 0xffu));
    /* one buffer: a write through one import is seen through the others */
    ((uint8_t *)d)[4097] = 0xab;
    assert_int_equal(((uint8_t *)h)[4097], 0xab);
    assert_int_equal(((uint8_t *)sh)[4097], 0xab);
    /* only the base pointer frees */
    assert_int_equal(zeMemFree(E.ctx, (uint8_t *)h + 64), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZE_OK(zeMemFree(E.ctx, h));
    ZE_OK(zeMemFree(E.ctx, d));
    ZE_OK(zeMemFree(E.ctx, sh));

    /* flags other than exactly DMA_BUF */
    int fd2 = patterned_memfd(4096, 0);
    imp.fd = fd2;
    imp.flags = ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF | ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD;
    assert_int_equal(zeMemAllocHost(E.ctx, &hd, 4096, 0, &h), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    imp.flags = ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD;
    assert_int_equal(zeMemAllocDevice(E.ctx, &dd, 4096, 0, E.dev, &d), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    imp.flags = ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF;
    /* an fd that is not a buffer: closed, empty, read-only, a pipe, a socket
     * (the PRIME ioctl fails: OUT_OF_DEVICE_MEMORY) */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    int empty = memfd_create("sim-test-empty", MFD_CLOEXEC);
    assert_true(empty >= 0);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd2);
    int ro = open(path, O_RDONLY);
    assert_true(ro >= 0);
    const int bad[] = {-1, 1000000, fds[0], sv[0], empty, ro};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        imp.fd = bad[i];
        h = NULL;
        assert_int_equal(zeMemAllocHost(E.ctx, &hd, 4096, 0, &h), ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
        assert_null(h);
    }
    close(fds[0]);
    close(fds[1]);
    close(sv[0]);
    close(sv[1]);
    close(empty);
    close(ro);
    /* behind another struct it is not seen: a plain, zeroed allocation */
    imp.fd = fd2;
    ze_relaxed_allocation_limits_exp_desc_t first = {ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC, &imp, 0};
    ze_device_mem_alloc_desc_t dd_chain = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &first, 0, 0};
    void *plain = NULL;
    ZE_OK(zeMemAllocDevice(E.ctx, &dd_chain, 4096, 4096, E.dev, &plain));
    assert_int_equal(((uint8_t *)plain)[1], 0);
    ZE_OK(zeMemFree(E.ctx, plain));
    assert_int_equal(E.t->pfnGetImportCount(), imports + 3);
    close(fd2);
}

/* NPU_SIM_DMA_BUF=0: a driver that offers no dma-buf; =noprime: Intel's
 * driver on a kernel without PRIME import (still advertised). */
static void test_child_dma_buf_unavailable(void **state)
{
    (void)state;
    const char *v = getenv("NPU_SIM_DMA_BUF");
    int off = v != NULL && strcmp(v, "0") == 0;
    ze_device_external_memory_properties_t ep = {ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES, NULL, 0, 0, 0, 0};
    ZE_OK(zeDeviceGetExternalMemoryProperties(E.dev, &ep));
    assert_int_equal((ep.memoryAllocationImportTypes & ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF) != 0, !off);
    int fd = patterned_memfd(4096, 1);
    ze_external_memory_import_fd_t imp = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_FD, NULL,
                                          ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF, fd};
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, &imp, 0};
    void *h = NULL;
    assert_int_equal(zeMemAllocHost(E.ctx, &hd, 4096, 0, &h), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    assert_null(h);
    close(fd);
}

/* ====================================================================================
 * Command lists, queues, fences, events
 * ==================================================================================== */
static void test_copy_fill_barrier_timestamp_run_in_order(void **state)
{
    (void)state;
    uint8_t *src = host_alloc(256), *dst = host_alloc(256);
    uint64_t *ts = host_alloc(2 * sizeof(uint64_t));
    memset(src, 0, 256);
    memset(dst, 0, 256);
    exec_env x;
    exec_open(&x);
    uint32_t pattern = 0x11223344;
    ZE_OK(zeCommandListAppendWriteGlobalTimestamp(x.l, &ts[0], NULL, 0, NULL));
    ZE_OK(zeCommandListAppendMemoryFill(x.l, src, &pattern, sizeof(pattern), 128, NULL, 0, NULL));
    uint8_t byte = 0x5a;
    ZE_OK(zeCommandListAppendMemoryFill(x.l, src + 128, &byte, 1, 128, NULL, 0, NULL));
    ZE_OK(zeCommandListAppendBarrier(x.l, NULL, 0, NULL));
    size_t range_size = 256;
    const void *range = src;
    ZE_OK(zeCommandListAppendMemoryRangesBarrier(x.l, 1, &range_size, &range, NULL, 0, NULL));
    ZE_OK(zeCommandListAppendMemoryCopy(x.l, dst, src, 256, NULL, 0, NULL));
    ZE_OK(zeCommandListAppendWriteGlobalTimestamp(x.l, &ts[1], NULL, 0, NULL));
    assert_int_equal(zeCommandListAppendMemoryFill(x.l, src, &pattern, 3, 4, NULL, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_SIZE);
    /* not closed yet: CommandQueue::executeCommandLists says UNINITIALIZED */
    assert_int_equal(zeCommandQueueExecuteCommandLists(x.q, 1, &x.l, NULL), ZE_RESULT_ERROR_UNINITIALIZED);
    E.t->pfnResetCounters();
    exec_run(&x);
    assert_int_equal(E.t->pfnGetSubmitCount(), 1);
    assert_int_equal(E.t->pfnGetSubmittedListCount(), 1);
    for (int i = 0; i < 128; i += 4) {
        uint32_t v;
        memcpy(&v, dst + i, 4);
        assert_int_equal(v, pattern);
    }
    for (int i = 128; i < 256; i++)
        assert_int_equal(dst[i], 0x5a);
    assert_true(ts[1] >= ts[0] && ts[0] > 0);
    /* appending to a closed list is refused; reset reopens it */
    assert_int_equal(zeCommandListAppendBarrier(x.l, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZE_OK(zeCommandListReset(x.l));
    ZE_OK(zeFenceReset(x.f));
    assert_int_equal(zeFenceQueryStatus(x.f), ZE_RESULT_NOT_READY);
    ZE_OK(zeCommandListAppendMemoryFill(x.l, dst, &byte, 1, 16, NULL, 0, NULL));
    exec_run(&x);
    ZE_OK(zeFenceQueryStatus(x.f));
    ZE_OK(zeCommandQueueSynchronize(x.q, UINT64_MAX));
    ZE_OK(zeCommandQueueSynchronize(x.q, 0));
    exec_close(&x);
    ZE_OK(zeMemFree(E.ctx, src));
    ZE_OK(zeMemFree(E.ctx, dst));
    ZE_OK(zeMemFree(E.ctx, ts));
}

static void test_events_block_the_queue_until_signalled(void **state)
{
    (void)state;
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 4};
    ze_event_pool_handle_t pool;
    ZE_OK(zeEventPoolCreate(E.ctx, &pd, 1, &E.dev, &pool));
    ze_event_handle_t go, done, reset_me;
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    ZE_OK(zeEventCreate(pool, &ed, &go));
    ed.index = 1;
    ZE_OK(zeEventCreate(pool, &ed, &done));
    ed.index = 2;
    ZE_OK(zeEventCreate(pool, &ed, &reset_me));
    ed.index = 4;
    ze_event_handle_t bad;
    assert_int_equal(zeEventCreate(pool, &ed, &bad), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZE_OK(zeEventHostSignal(reset_me));
    ZE_OK(zeEventQueryStatus(reset_me));

    uint32_t *buf = host_alloc(64);
    buf[0] = 0;
    exec_env x;
    exec_open(&x);
    uint32_t v = 42;
    ZE_OK(zeCommandListAppendWaitOnEvents(x.l, 1, &go));
    ZE_OK(zeCommandListAppendMemoryFill(x.l, buf, &v, 4, 4, done, 0, NULL));
    ZE_OK(zeCommandListAppendEventReset(x.l, reset_me));
    ZE_OK(zeCommandListAppendSignalEvent(x.l, done));
    ZE_OK(zeCommandListClose(x.l));
    ZE_OK(zeCommandQueueExecuteCommandLists(x.q, 1, &x.l, x.f));

    assert_int_equal(zeFenceQueryStatus(x.f), ZE_RESULT_NOT_READY);
    assert_int_equal(zeFenceHostSynchronize(x.f, 0), ZE_RESULT_NOT_READY);
    assert_int_equal(zeFenceHostSynchronize(x.f, 2000000), ZE_RESULT_NOT_READY);
    assert_int_equal(zeEventHostSynchronize(done, 1000000), ZE_RESULT_NOT_READY);
    assert_int_equal(zeCommandQueueSynchronize(x.q, 1000000), ZE_RESULT_NOT_READY);
    assert_int_equal(buf[0], 0);

    ZE_OK(zeEventHostSignal(go));
    ZE_OK(zeFenceHostSynchronize(x.f, UINT64_MAX));
    ZE_OK(zeEventHostSynchronize(done, 0));
    assert_int_equal(buf[0], 42);
    assert_int_equal(zeEventQueryStatus(reset_me), ZE_RESULT_NOT_READY);
    ZE_OK(zeEventHostReset(done));
    assert_int_equal(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);

    exec_close(&x);
    ZE_OK(zeEventDestroy(go));
    ZE_OK(zeEventDestroy(done));
    ZE_OK(zeEventDestroy(reset_me));
    ZE_OK(zeEventPoolDestroy(pool));
    ZE_OK(zeMemFree(E.ctx, buf));
}

static void test_fence_created_signalled_and_queue_destroy_with_blocked_work(void **state)
{
    (void)state;
    exec_env x;
    exec_open(&x);
    ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, ZE_FENCE_FLAG_SIGNALED};
    ze_fence_handle_t f2;
    ZE_OK(zeFenceCreate(x.q, &fd, &f2));
    ZE_OK(zeFenceQueryStatus(f2));
    ZE_OK(zeFenceHostSynchronize(f2, 0));
    ZE_OK(zeFenceReset(f2));
    assert_int_equal(zeFenceHostSynchronize(f2, 0), ZE_RESULT_NOT_READY);
    ZE_OK(zeFenceDestroy(f2));

    /* A queue whose worker waits on an event that never comes can still be
     * destroyed: the worker gives up and is joined. */
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, 0, 1};
    ze_event_pool_handle_t pool;
    ZE_OK(zeEventPoolCreate(E.ctx, &pd, 0, NULL, &pool));
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, 0};
    ze_event_handle_t never;
    ZE_OK(zeEventCreate(pool, &ed, &never));
    ZE_OK(zeCommandListAppendBarrier(x.l, NULL, 1, &never));
    ZE_OK(zeCommandListClose(x.l));
    ZE_OK(zeCommandQueueExecuteCommandLists(x.q, 1, &x.l, x.f));
    assert_int_equal(zeFenceHostSynchronize(x.f, 1000000), ZE_RESULT_NOT_READY);
    ZE_OK(zeCommandQueueDestroy(x.q));
    ZE_OK(zeFenceDestroy(x.f));
    ZE_OK(zeCommandListDestroy(x.l));
    ZE_OK(zeEventDestroy(never));
    ZE_OK(zeEventPoolDestroy(pool));
}

static void test_immediate_command_list_runs_at_append(void **state)
{
    (void)state;
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t il;
    ZE_OK(zeCommandListCreateImmediate(E.ctx, E.dev, &qd, &il));
    uint8_t *a = host_alloc(64), *b = host_alloc(64);
    memset(a, 9, 64);
    memset(b, 0, 64);
    ZE_OK(zeCommandListAppendMemoryCopy(il, b, a, 64, NULL, 0, NULL));
    assert_int_equal(b[63], 9); /* synchronous: done when append returns */
    ZE_OK(zeCommandListDestroy(il));

    qd.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
    ZE_OK(zeCommandListCreateImmediate(E.ctx, E.dev, &qd, &il));
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    ze_event_pool_handle_t pool;
    ZE_OK(zeEventPoolCreate(E.ctx, &pd, 1, &E.dev, &pool));
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, 0};
    ze_event_handle_t ev;
    ZE_OK(zeEventCreate(pool, &ed, &ev));
    uint8_t seven = 7;
    ZE_OK(zeCommandListAppendMemoryFill(il, b, &seven, 1, 64, ev, 0, NULL));
    ZE_OK(zeEventHostSynchronize(ev, UINT64_MAX));
    assert_int_equal(b[10], 7);
    /* immediate lists cannot be submitted to a queue */
    exec_env x;
    exec_open(&x);
    assert_int_equal(zeCommandQueueExecuteCommandLists(x.q, 1, &il, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    exec_close(&x);
    ZE_OK(zeCommandListDestroy(il));
    ZE_OK(zeEventDestroy(ev));
    ZE_OK(zeEventPoolDestroy(pool));
    ZE_OK(zeMemFree(E.ctx, a));
    ZE_OK(zeMemFree(E.ctx, b));
}

/* ====================================================================================
 * Graph extension
 * ==================================================================================== */
static void test_graph_compiles_and_computes(void **state)
{
    (void)state;
    ze_graph_handle_t g = compile_model();
    assert_int_equal(E.t->pfnGetLiveHandles(NPU_SIM_HANDLE_GRAPH), E.base[NPU_SIM_HANDLE_GRAPH] + 1);
    ze_graph_properties_t gp = {ZE_STRUCTURE_TYPE_GRAPH_PROPERTIES, NULL, 0};
    ZE_OK(E.g->pfnGetProperties(g, &gp));
    assert_int_equal(gp.numGraphArgs, 3);
    E.t->pfnResetCounters();
    run_model_once(g, 1.0f);
    run_model_once(g, -2.5f);
    assert_int_equal(E.t->pfnGetGraphExecuteCount(), 2);
    ZE_OK(E.g->pfnDestroy(g));
    assert_int_equal(E.g->pfnDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

static void test_graph_properties_2_and_3_accept_old_and_new_stypes(void **state)
{
    (void)state;
    ze_graph_handle_t g = compile_model();
    uint32_t st2[2] = {0x3, 0x10}, st3[2] = {0x3, 0x11};
    for (int i = 0; i < 2; i++) {
        ze_graph_properties_2_t p2 = {(ze_structure_type_graph_ext_t)st2[i], NULL, 0, 0};
        ZE_OK(E.g->pfnGetProperties2(g, &p2));
        assert_int_equal(p2.stype, st2[i]);
        assert_int_equal(p2.numGraphArgs, 3);
        assert_int_equal(p2.initStageRequired, ZE_GRAPH_STAGE_INITIALIZE);
        ze_graph_properties_3_t p3 = {(ze_structure_type_graph_ext_t)st3[i], NULL, 0, 0, 0};
        ZE_OK(E.g->pfnGetProperties3(g, &p3));
        assert_int_equal(p3.numGraphArgs, 3);
        assert_int_equal(p3.initStageRequired, ZE_GRAPH_STAGE_INITIALIZE);
        assert_int_equal(p3.flags, ZE_GRAPH_PROPERTIES_FLAG_COMPILED);
    }
    ze_graph_properties_2_t bad = {(ze_structure_type_graph_ext_t)0x6, NULL, 0, 0};
    assert_int_equal(E.g->pfnGetProperties2(g, &bad), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZE_OK(E.g->pfnDestroy(g));
}

static void check_arg_common(const ze_graph_argument_properties_3_t *p, uint32_t index)
{
    static const char *names[3] = {"a", "b", "sum"};
    assert_string_equal(p->name, names[index]);
    assert_int_equal(p->type, index < 2 ? ZE_GRAPH_ARGUMENT_TYPE_INPUT : ZE_GRAPH_ARGUMENT_TYPE_OUTPUT);
    assert_int_equal(p->dims[0], 1);
    assert_int_equal(p->dims[1], 4);
    assert_int_equal(p->dims[2], 1); /* padded with 1 */
    assert_int_equal(p->dims[4], 1);
    assert_int_equal(p->networkPrecision, ZE_GRAPH_ARGUMENT_PRECISION_FP32);
    assert_int_equal(p->devicePrecision, ZE_GRAPH_ARGUMENT_PRECISION_FP32);
}

static void test_argument_properties_inputs_first_fields_filled_in_place(void **state)
{
    (void)state;
    ze_graph_handle_t g = compile_model();
    ze_graph_argument_property_strides_t strides = {ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTY_STRIDES, NULL, 0};
    for (uint32_t i = 0; i < 3; i++) {
        ze_graph_argument_properties_3_t p;
        memset(&p, 0, sizeof(p));
        p.stype = ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES;
        ZE_OK(E.g->pfnGetArgumentProperties(g, i, (ze_graph_argument_properties_t *)&p));
        check_arg_common(&p, i);
        assert_int_equal(p.dims_count, 0); /* v1 struct: nothing past deviceLayout written */

        for (int variant = 0; variant < 2; variant++) {
            memset(&p, 0, sizeof(p));
            p.stype = variant ? ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES_2 : ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES;
            ZE_OK(E.g->pfnGetArgumentProperties2(g, i, (ze_graph_argument_properties_2_t *)&p));
            check_arg_common(&p, i);
            assert_float_equal(p.quantReverseScale, i < 2 ? 1.0f : 0.0f, 0);

            memset(&p, 0, sizeof(p));
            p.stype = variant ? ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES_3 : ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES;
            p.pNext = &strides;
            strides.supportsDynamicStrides = 0;
            ZE_OK(E.g->pfnGetArgumentProperties3(g, i, &p));
            assert_int_equal(p.stype, variant ? ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES_3
                                              : ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES);
            assert_ptr_equal(p.pNext, &strides);
            assert_true(strides.supportsDynamicStrides);
            check_arg_common(&p, i);
            assert_int_equal(p.dims_count, 2);
            assert_string_equal(p.debug_friendly_name, i == 0 ? "a" : i == 1 ? "b" : "y/sink_port_0");
            assert_int_equal(p.associated_tensor_names_count, 1);
            assert_string_equal(p.associated_tensor_names[0], i == 0 ? "a" : i == 1 ? "b" : "y");
        }
    }
    ze_graph_argument_properties_3_t p;
    memset(&p, 0, sizeof(p));
    p.stype = ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES_3;
    assert_int_equal(E.g->pfnGetArgumentProperties3(g, 3, &p), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    p.stype = ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_METADATA;
    assert_int_equal(E.g->pfnGetArgumentProperties3(g, 0, &p), ZE_RESULT_ERROR_INVALID_ARGUMENT);

    ze_graph_argument_metadata_t m;
    memset(&m, 0, sizeof(m));
    m.stype = ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_METADATA;
    ZE_OK(E.g->pfnGraphGetArgumentMetadata(g, 2, &m));
    assert_int_equal(m.type, ZE_GRAPH_ARGUMENT_TYPE_OUTPUT);
    assert_string_equal(m.friendly_name, "y/sink_port_0");
    assert_string_equal(m.input_name, "sum");
    assert_int_equal(m.data_type, ZE_GRAPH_METADATA_TYPE_F32);
    assert_int_equal(m.shape_size, 2);
    assert_int_equal(m.shape[0], 1);
    assert_int_equal(m.shape[1], 4);
    assert_int_equal(m.tensor_names_count, 1);
    assert_string_equal(m.tensor_names[0], "y");
    ZE_OK(E.g->pfnDestroy(g));
}

/* The sim's compiler takes static shapes only (docs/sim.md): a dynamic batch is
 * refused with a build log naming the input and saying what to do (the runtime
 * compiles such models at batch 1), and no graph handle is left behind. */
static void test_dynamic_batch_is_refused_with_a_hint(void **state)
{
    (void)state;
    payload p = make_payload_ex("Multiply", "-1", E.compiler_version);
    ze_graph_handle_t g = NULL;
    ze_result_t rc = create_graph(ZE_GRAPH_FORMAT_NGRAPH_LITE, p.data, p.size, 0, &g);
    free(p.data);
    assert_int_not_equal(rc, ZE_RESULT_SUCCESS);
    assert_null(g);
    char log[1024] = "";
    uint32_t n = sizeof(log);
    ZE_OK(E.g->pfnBuildLogGetString(NULL, &n, log));
    assert_non_null(strstr(log, "dynamic shape on input"));
    assert_non_null(strstr(log, "reshape to static first"));
}

/* Each appended execute keeps the pointers that were set when it was appended. */
static void test_execute_captures_arguments_at_append_time(void **state)
{
    (void)state;
    ze_graph_handle_t g = compile_model();
    float *a1 = host_alloc(16), *b1 = host_alloc(16), *y1 = host_alloc(16);
    float *buf2 = host_alloc(3 * 64); /* interior pointers into one allocation */
    float *a2 = buf2, *b2 = buf2 + 16, *y2 = buf2 + 32;
    fill_inputs(a1, b1, 1.0f);
    fill_inputs(a2, b2, 7.0f);
    exec_env x;
    exec_open(&x);
    ZE_OK(E.g->pfnSetArgumentValue(g, 0, a1));
    ZE_OK(E.g->pfnSetArgumentValue(g, 1, b1));
    ZE_OK(E.g->pfnSetArgumentValue(g, 2, y1));
    ZE_OK(E.g->pfnAppendGraphExecute(x.l, g, NULL, NULL, 0, NULL));
    ZE_OK(E.g->pfnSetArgumentValue(g, 0, a2));
    ZE_OK(E.g->pfnSetArgumentValue(g, 1, b2));
    ZE_OK(E.g->pfnSetArgumentValue(g, 2, y2));
    ZE_OK(E.g->pfnAppendGraphExecute(x.l, g, NULL, NULL, 0, NULL));
    E.t->pfnResetCounters();
    exec_run(&x);
    assert_int_equal(E.t->pfnGetGraphExecuteCount(), 2);
    check_output(a1, b1, y1);
    check_output(a2, b2, y2);

    /* the graph handle may go before the list: the recorded work still runs */
    ZE_OK(E.g->pfnDestroy(g));
    memset(y1, 0, 16);
    ZE_OK(zeFenceReset(x.f));
    ZE_OK(zeCommandQueueExecuteCommandLists(x.q, 1, &x.l, x.f));
    ZE_OK(zeFenceHostSynchronize(x.f, UINT64_MAX));
    check_output(a1, b1, y1);
    exec_close(&x);
    ZE_OK(zeMemFree(E.ctx, a1));
    ZE_OK(zeMemFree(E.ctx, b1));
    ZE_OK(zeMemFree(E.ctx, y1));
    ZE_OK(zeMemFree(E.ctx, buf2));
}

static void test_execute_refuses_pointers_outside_driver_allocations(void **state)
{
    (void)state;
    ze_graph_handle_t g = compile_model();
    exec_env x;
    exec_open(&x);
    /* nothing set yet */
    assert_int_equal(E.g->pfnAppendGraphExecute(x.l, g, NULL, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    float *a = host_alloc(16), *b = host_alloc(16), *y = host_alloc(64);
    float stack_buf[4] = {0};
    ZE_OK(E.g->pfnSetArgumentValue(g, 0, a));
    ZE_OK(E.g->pfnSetArgumentValue(g, 1, b));
    ZE_OK(E.g->pfnSetArgumentValue(g, 2, stack_buf)); /* recorded, refused at append */
    assert_int_equal(E.g->pfnAppendGraphExecute(x.l, g, NULL, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZE_OK(E.g->pfnSetArgumentValue(g, 2, y + 14)); /* 8 bytes left, 16 needed */
    assert_int_equal(E.g->pfnAppendGraphExecute(x.l, g, NULL, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZE_OK(E.g->pfnSetArgumentValue(g, 2, y + 12)); /* exactly 16 bytes left */
    ZE_OK(E.g->pfnAppendGraphExecute(x.l, g, NULL, NULL, 0, NULL));
    /* memory of another context does not count */
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t other;
    ZE_OK(zeContextCreateEx(E.drv, &cd, 1, &E.dev, &other));
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *foreign = NULL;
    ZE_OK(zeMemAllocHost(other, &hd, 4096, 0, &foreign));
    ZE_OK(E.g->pfnSetArgumentValue(g, 0, foreign));
    assert_int_equal(E.g->pfnAppendGraphExecute(x.l, g, NULL, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZE_OK(zeMemFree(other, foreign));
    ZE_OK(zeContextDestroy(other));
    assert_int_equal(E.g->pfnSetArgumentValue(g, 3, a), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(E.g->pfnSetArgumentValue(g, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZE_OK(E.g->pfnSetArgumentValue(g, 0, a));
    fill_inputs(a, b, 2.0f);
    exec_run(&x);
    check_output(a, b, y + 12);
    exec_close(&x);
    ZE_OK(E.g->pfnDestroy(g));
    ZE_OK(zeMemFree(E.ctx, a));
    ZE_OK(zeMemFree(E.ctx, b));
    ZE_OK(zeMemFree(E.ctx, y));
}

static void test_set_argument_value_2_tensor_and_dense_strides(void **state)
{
    (void)state;
    ze_graph_handle_t g = compile_model();
    float *a = host_alloc(16), *b = host_alloc(16), *y = host_alloc(16);
    fill_inputs(a, b, 3.0f);
    ze_graph_argument_value_strides_t st = {ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_STRIDES, NULL, {1, 4, 0, 0, 0}};
    ze_graph_argument_value_tensor_t tv = {ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_TENSOR, &st, a};
    ZE_OK(E.g->pfnSetArgumentValue2(g, 0, &tv));
    tv.pTensor = b;
    tv.pNext = NULL;
    ZE_OK(E.g->pfnSetArgumentValue2(g, 1, &tv));
    tv.pTensor = y;
    ZE_OK(E.g->pfnSetArgumentValue2(g, 2, &tv));
    ze_graph_argument_value_strides_t sparse = {ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_STRIDES, NULL, {1, 8, 0, 0, 0}};
    assert_int_equal(E.g->pfnSetArgumentValue2(g, 0, &sparse), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_graph_argument_value_tensor_t odd = {(ze_structure_type_graph_ext_t)0x6, NULL, a};
    assert_int_equal(E.g->pfnSetArgumentValue2(g, 0, &odd), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    exec_env x;
    exec_open(&x);
    ZE_OK(E.g->pfnAppendGraphExecute(x.l, g, NULL, NULL, 0, NULL));
    exec_run(&x);
    check_output(a, b, y);
    exec_close(&x);
    ZE_OK(E.g->pfnDestroy(g));
    ZE_OK(zeMemFree(E.ctx, a));
    ZE_OK(zeMemFree(E.ctx, b));
    ZE_OK(zeMemFree(E.ctx, y));
}

static void test_native_blob_export_and_reimport(void **state)
{
    (void)state;
    ze_graph_handle_t g = compile_model();
    size_t size = 0;
    ZE_OK(E.g->pfnGetNativeBinary(g, &size, NULL));
    assert_true(size > 64);
    uint8_t *blob = malloc(size);
    assert_non_null(blob);
    size_t small = size - 1;
    assert_int_equal(E.g->pfnGetNativeBinary(g, &small, blob), ZE_RESULT_ERROR_INVALID_SIZE);
    ZE_OK(E.g->pfnGetNativeBinary(g, &size, blob));
    assert_memory_equal(blob, "\x7f" "ELF", 4);
    const uint8_t *owned = NULL;
    size_t size2 = 0;
    ZE_OK(E.g->pfnGetNativeBinary2(g, &size2, &owned));
    assert_int_equal(size2, size);
    assert_memory_equal(owned, blob, size);
    ZE_OK(E.g->pfnDestroy(g));

    ze_graph_handle_t imported = NULL;
    /* without the flag every release copies */
    ZE_OK(create_graph(ZE_GRAPH_FORMAT_NATIVE, blob, size, 0, &imported));
    ZE_OK(E.g->pfnGetNativeBinary2(imported, &size2, &owned));
    assert_ptr_not_equal(owned, blob);
    ZE_OK(E.g->pfnDestroy(imported));
    ZE_OK(create_graph(ZE_GRAPH_FORMAT_NATIVE, blob, size, ZE_GRAPH_FLAG_INPUT_GRAPH_PERSISTENT, &imported));
    /* PERSISTENT: v1.22.0 on use the caller's blob where it is
     * (Graph::getBlobContainerNative); v1.10.0 and v1.19.0 copy it. */
    ZE_OK(E.g->pfnGetNativeBinary2(imported, &size2, &owned));
    assert_int_equal(size2, size);
    if (profile_is("2026")) {
        assert_ptr_equal(owned, blob);
    } else {
        assert_ptr_not_equal(owned, blob);
        memset(blob, 0, size); /* the driver keeps its own copy */
    }
    ze_graph_properties_3_t p3 = {ZE_STRUCTURE_TYPE_GRAPH_PROPERTIES_3, NULL, 0, 0, 0};
    ZE_OK(E.g->pfnGetProperties3(imported, &p3));
    assert_int_equal(p3.flags, ZE_GRAPH_PROPERTIES_FLAG_PRE_COMPILED);
    run_model_once(imported, 0.25f);
    ZE_OK(E.g->pfnDestroy(imported));
    free(blob);

    /* not an ELF, and a broken ELF */
    static const uint8_t junk[64] = {'n', 'o', 't', ' ', 'e', 'l', 'f'};
    ze_graph_handle_t bad = NULL;
    assert_int_equal(create_graph(ZE_GRAPH_FORMAT_NATIVE, junk, sizeof(junk), 0, &bad),
                     ZE_RESULT_ERROR_INVALID_NATIVE_BINARY);
    uint8_t broken[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    assert_int_equal(create_graph(ZE_GRAPH_FORMAT_NATIVE, broken, sizeof(broken), 0, &bad),
                     ZE_RESULT_ERROR_INVALID_NATIVE_BINARY);
    assert_null(bad);
}

static char thread_log[256];
static void *read_log_on_other_thread(void *arg)
{
    (void)arg;
    uint32_t n = sizeof(thread_log);
    thread_log[0] = 'x';
    E.g->pfnBuildLogGetString(NULL, &n, thread_log);
    return NULL;
}

/* What the profile's driver returns for a compile the compiler refuses: v1.10.0
 * throws UNKNOWN for every failure (ext/source/graph/graph.cpp); v1.19.0 and
 * v1.32.1 map the compiler's result (vclToL0Err, source/ext/compiler.cpp). */
static ze_result_t want_compile_error(ze_result_t mapped)
{
    return profile_is("2024") ? ZE_RESULT_ERROR_UNKNOWN : mapped;
}

static void test_compile_failure_keeps_a_build_log(void **state)
{
    (void)state;
    payload p = make_payload_ex("Bogus", "1", E.compiler_version);
    ze_graph_handle_t g = NULL;
    /* an op the compiler does not know: VCL_RESULT_ERROR_INVALID_ARGUMENT */
    assert_int_equal(create_graph(ZE_GRAPH_FORMAT_NGRAPH_LITE, p.data, p.size, ZE_GRAPH_FLAG_DISABLE_CACHING, &g),
                     want_compile_error(ZE_RESULT_ERROR_INVALID_ARGUMENT));
    assert_null(g);
    uint32_t n = 0;
    ZE_OK(E.g->pfnBuildLogGetString(NULL, &n, NULL));
    assert_true(n > 1);
    char *log = malloc(n);
    ZE_OK(E.g->pfnBuildLogGetString(NULL, &n, log));
    assert_non_null(strstr(log, "mul")); /* names the failing layer */
    free(log);
    /* the log is per thread */
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, read_log_on_other_thread, NULL), 0);
    pthread_join(th, NULL);
    assert_string_equal(thread_log, "");

    /* a short buffer gets exactly *pSize bytes and no terminating NUL, as the
     * real driver's memcpy of min(*pSize, size) */
    char shortbuf[8];
    memset(shortbuf, '#', sizeof(shortbuf));
    n = 3;
    ZE_OK(E.g->pfnBuildLogGetString(NULL, &n, shortbuf));
    assert_int_equal(n, 3);
    assert_int_not_equal(shortbuf[2], '\0');
    assert_int_equal(shortbuf[3], '#');
    if (E.ext_minor < 12) {
        free(p.data);
        return;
    }

    /* Create3 hands out a log handle, on failure and on success */
    ze_graph_desc_2_t d = {ZE_STRUCTURE_TYPE_GRAPH_DESC, NULL, ZE_GRAPH_FORMAT_NGRAPH_LITE, p.size, p.data, IO_FLAGS,
                           0};
    ze_graph_build_log_handle_t bl = NULL;
    assert_int_equal(E.g->pfnCreate3(E.ctx, E.dev, &d, &g, &bl), want_compile_error(ZE_RESULT_ERROR_INVALID_ARGUMENT));
    assert_non_null(bl);
    assert_int_equal(E.t->pfnGetLiveHandles(NPU_SIM_HANDLE_BUILD_LOG), E.base[NPU_SIM_HANDLE_BUILD_LOG] + 1);
    char text[4096];
    n = sizeof(text);
    ZE_OK(E.g->pfnBuildLogGetString2(bl, &n, text));
    assert_non_null(strstr(text, "mul"));
    ZE_OK(E.g->pfnBuildLogDestroy(bl));
    free(p.data);

    /* a payload stamped with another compiler version: VCL_RESULT_ERROR_INVALID_IR */
    p = make_payload_ex("Multiply", "1", ZE_MAKE_VERSION(1, 0));
    assert_int_equal(create_graph(ZE_GRAPH_FORMAT_NGRAPH_LITE, p.data, p.size, ZE_GRAPH_FLAG_DISABLE_CACHING, &g),
                     want_compile_error(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE));
    free(p.data);

    p = make_payload();
    d.pInput = p.data;
    d.inputSize = p.size;
    d.flags = ZE_GRAPH_FLAG_DISABLE_CACHING;
    ZE_OK(E.g->pfnCreate3(E.ctx, E.dev, &d, &g, &bl));
    assert_non_null(bl);
    ZE_OK(E.g->pfnBuildLogDestroy(bl));
    /* with a graph handle the real driver returns SUCCESS and writes nothing */
    n = 12345;
    ZE_OK(E.g->pfnBuildLogGetString(g, &n, NULL));
    assert_int_equal(n, 12345);
    /* v1.19+: every create clears the thread's failure log first (v1.10 keeps it) */
    n = 0;
    ZE_OK(E.g->pfnBuildLogGetString(NULL, &n, NULL));
    if (!profile_is("2024"))
        assert_int_equal(n, 1);
    ZE_OK(E.g->pfnDestroy(g));
    d.flags = 0x80;
    assert_int_equal(E.g->pfnCreate3(E.ctx, E.dev, &d, &g, NULL), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    free(p.data);
}

static void test_query_network_lists_supported_layers(void **state)
{
    (void)state;
    payload p = make_payload();
    ze_graph_desc_2_t d = {ZE_STRUCTURE_TYPE_GRAPH_DESC_2, NULL, ZE_GRAPH_FORMAT_NGRAPH_LITE, p.size, p.data, NULL, 0};
    ze_graph_query_network_handle_t q = NULL;
    ZE_OK(E.g->pfnQueryNetworkCreate2(E.ctx, E.dev, &d, &q));
    size_t n = 0;
    ZE_OK(E.g->pfnQueryNetworkGetSupportedLayers(q, &n, NULL));
    char *layers = malloc(n);
    ZE_OK(E.g->pfnQueryNetworkGetSupportedLayers(q, &n, layers));
    assert_int_equal(strlen(layers) + 1, n);
    assert_non_null(strstr(layers, "mul"));
    assert_non_null(strstr(layers, "sum"));
    free(layers);
    assert_int_equal(E.t->pfnGetLiveHandles(NPU_SIM_HANDLE_QUERY_NETWORK), E.base[NPU_SIM_HANDLE_QUERY_NETWORK] + 1);
    ZE_OK(E.g->pfnQueryNetworkDestroy(q));
    ze_graph_desc_t d1 = {ZE_STRUCTURE_TYPE_GRAPH_DESC, NULL, ZE_GRAPH_FORMAT_NGRAPH_LITE, p.size, p.data, NULL};
    ZE_OK(E.g->pfnQueryNetworkCreate(E.ctx, E.dev, &d1, &q));
    ZE_OK(E.g->pfnQueryNetworkDestroy(q));
    free(p.data);
}

static void test_context_memory_and_compiler_options(void **state)
{
    (void)state;
    ze_graph_memory_query_t before = {0, 0}, after = {0, 0};
    ZE_OK(E.g->pfnQueryContextMemory(E.ctx, ZE_GRAPH_QUERY_MEMORY_DDR, &before));
    void *big = host_alloc(1 << 20);
    ZE_OK(E.g->pfnQueryContextMemory(E.ctx, ZE_GRAPH_QUERY_MEMORY_DDR, &after));
    assert_true(after.total > 0);
    assert_int_equal(after.allocated - before.allocated, 1 << 20);
    ZE_OK(zeMemFree(E.ctx, big));
    assert_int_equal(E.g->pfnQueryContextMemory(E.ctx, (ze_graph_memory_query_type_t)9, &after),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* the cache queries report the disk cache: its bytes and its limit */
    ze_graph_memory_query_t cache = {0, 0};
    if (profile_is("2024")) {
        /* v1.10.0 Context::queryContextMemory knows DDR only */
        assert_int_equal(E.g->pfnQueryContextMemory(E.ctx, ZE_GRAPH_QUERY_MEMORY_DRIVER_CACHE, &cache),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
    } else {
        ZE_OK(E.g->pfnQueryContextMemory(E.ctx, ZE_GRAPH_QUERY_MEMORY_DRIVER_CACHE, &cache));
        assert_int_equal(cache.total, getenv("ZE_INTEL_NPU_CACHE_SIZE") != NULL
                                          ? strtoull(getenv("ZE_INTEL_NPU_CACHE_SIZE"), NULL, 10)
                                          : 4ull << 30);
    }

    if (E.ext_minor < 11)
        return; /* no option queries before graph extension 1.11 */
    size_t n = 0;
    if (profile_is("2024")) {
        /* the 2024 compiler exports no option-query functions */
        assert_int_equal(E.g->pfnCompilerGetSupportedOptions(E.dev, ZE_NPU_COMPILER_OPTIONS, &n, NULL),
                         ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE);
        assert_int_equal(E.g->pfnCompilerIsOptionSupported(E.dev, ZE_NPU_COMPILER_OPTIONS, "NPU_PLATFORM", NULL),
                         ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE);
        assert_int_equal(E.g->pfnCompilerIsOptionSupported(E.dev, ZE_NPU_DRIVER_OPTIONS, "NPU_PLATFORM", NULL),
                         ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
        return;
    }
    ZE_OK(E.g->pfnCompilerGetSupportedOptions(E.dev, ZE_NPU_COMPILER_OPTIONS, &n, NULL));
    assert_true(n > 1);
    char *opts = malloc(n);
    ZE_OK(E.g->pfnCompilerGetSupportedOptions(E.dev, ZE_NPU_COMPILER_OPTIONS, &n, opts));
    assert_non_null(strstr(opts, "NPU_PLATFORM"));
    n = 99;
    ZE_OK(E.g->pfnCompilerGetSupportedOptions(E.dev, ZE_NPU_DRIVER_OPTIONS, &n, NULL));
    assert_int_equal(n, 0);

    /* the serializer key is the one the profile's compiler registers: 2025
     * NPU_USE_BASE_MODEL_SERIALIZER, 2026 NPU_MODEL_SERIALIZER_VERSION */
    const char *wc = getenv("NPU_SIM_NO_WEIGHTS_COPY");
    int hidden = wc != NULL && strcmp(wc, "0") == 0;
    int v2025 = profile_is("2025");
    ze_result_t want_version = !hidden && !v2025 ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    ze_result_t want_base = !hidden && v2025 ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    assert_int_equal(strstr(opts, "NPU_MODEL_SERIALIZER_VERSION") != NULL, want_version == ZE_RESULT_SUCCESS);
    assert_int_equal(strstr(opts, "NPU_USE_BASE_MODEL_SERIALIZER") != NULL, want_base == ZE_RESULT_SUCCESS);
    free(opts);
    assert_int_equal(E.g->pfnCompilerIsOptionSupported(E.dev, ZE_NPU_COMPILER_OPTIONS, "NPU_MODEL_SERIALIZER_VERSION",
                                                       "NO_WEIGHTS_COPY"),
                     want_version);
    assert_int_equal(E.g->pfnCompilerIsOptionSupported(E.dev, ZE_NPU_COMPILER_OPTIONS, "NPU_USE_BASE_MODEL_SERIALIZER",
                                                       "NO"),
                     want_base);
    assert_int_equal(E.g->pfnCompilerIsOptionSupported(E.dev, ZE_NPU_COMPILER_OPTIONS, "NPU_MODEL_SERIALIZER_VERSION",
                                                       "SOMETHING_ELSE"),
                     ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    assert_int_equal(E.g->pfnCompilerIsOptionSupported(E.dev, (ze_npu_options_type_t)7, "NPU_PLATFORM", NULL),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
    ZE_OK(E.g->pfnCompilerIsOptionSupported(E.dev, ZE_NPU_COMPILER_OPTIONS, "NPU_PLATFORM", NULL));
    assert_int_equal(E.g->pfnCompilerIsOptionSupported(E.dev, ZE_NPU_COMPILER_OPTIONS, "NPU_NOT_A_KEY", NULL),
                     ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    assert_int_equal(E.g->pfnCompilerIsOptionSupported(E.dev, ZE_NPU_DRIVER_OPTIONS, "NPU_PLATFORM", NULL),
                     ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
}

static void test_initialize_evict_and_events_around_execute(void **state)
{
    (void)state;
    ze_graph_handle_t g = compile_model();
    ZE_OK(E.g->pfnGraphInitialize(g));
    float *a = host_alloc(16), *b = host_alloc(16), *y = host_alloc(16);
    fill_inputs(a, b, 5.0f);
    ZE_OK(E.g->pfnSetArgumentValue(g, 0, a));
    ZE_OK(E.g->pfnSetArgumentValue(g, 1, b));
    ZE_OK(E.g->pfnSetArgumentValue(g, 2, y));
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 2};
    ze_event_pool_handle_t pool;
    ZE_OK(zeEventPoolCreate(E.ctx, &pd, 1, &E.dev, &pool));
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, 0};
    ze_event_handle_t start, done;
    ZE_OK(zeEventCreate(pool, &ed, &start));
    ed.index = 1;
    ZE_OK(zeEventCreate(pool, &ed, &done));
    exec_env x;
    exec_open(&x);
    ZE_OK(E.g->pfnAppendGraphInitialize(x.l, g, NULL, 0, NULL));
    ZE_OK(E.g->pfnAppendGraphExecute(x.l, g, NULL, done, 1, &start));
    ZE_OK(zeCommandListClose(x.l));
    ZE_OK(zeCommandQueueExecuteCommandLists(x.q, 1, &x.l, x.f));
    assert_int_equal(zeEventHostSynchronize(done, 1000000), ZE_RESULT_NOT_READY);
    ZE_OK(zeEventHostSignal(start));
    ZE_OK(zeEventHostSynchronize(done, UINT64_MAX));
    check_output(a, b, y);
    ZE_OK(zeFenceHostSynchronize(x.f, UINT64_MAX));
    /* skip-math: the execute runs, the output is left alone */
    E.t->pfnSetSkipMath(1);
    E.t->pfnResetCounters();
    memset(y, 0, 16);
    ZE_OK(zeFenceReset(x.f));
    ZE_OK(zeCommandQueueExecuteCommandLists(x.q, 1, &x.l, x.f));
    ZE_OK(zeFenceHostSynchronize(x.f, UINT64_MAX));
    E.t->pfnSetSkipMath(0);
    assert_int_equal(E.t->pfnGetGraphExecuteCount(), 1);
    assert_true(y[0] == 0.0f && y[3] == 0.0f);
    exec_close(&x);
    if (E.ext_minor >= 16)
        ZE_OK(E.g->pfnEvict(g));
    ze_graph_profiling_query_handle_t fake_query = (ze_graph_profiling_query_handle_t)(uintptr_t)16;
    exec_open(&x);
    /* a graph compiled without profiling ignores the query (appendGraphExecute
     * reads it only when the graph has a profiling buffer) */
    ZE_OK(E.g->pfnAppendGraphExecute(x.l, g, fake_query, NULL, 0, NULL));
    exec_close(&x);
    ZE_OK(E.g->pfnDestroy(g));
    ZE_OK(zeEventDestroy(start));
    ZE_OK(zeEventDestroy(done));
    ZE_OK(zeEventPoolDestroy(pool));
    ZE_OK(zeMemFree(E.ctx, a));
    ZE_OK(zeMemFree(E.ctx, b));
    ZE_OK(zeMemFree(E.ctx, y));
}

/* Two threads, each with its own queue, share one graph. */
typedef struct worker_arg {
    ze_graph_handle_t g;
    float scale;
    int ok;
} worker_arg;

static void *inference_thread(void *p)
{
    worker_arg *w = p;
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    float *buf = NULL;
    if (zeMemAllocHost(E.ctx, &hd, 3 * 16, 0, (void **)&buf) != ZE_RESULT_SUCCESS)
        return NULL;
    float *a = buf, *b = buf + 4, *y = buf + 8;
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t q;
    ze_command_list_handle_t l;
    ze_fence_handle_t f;
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
    int ok = zeCommandQueueCreate(E.ctx, E.dev, &qd, &q) == ZE_RESULT_SUCCESS &&
             zeCommandListCreate(E.ctx, E.dev, &ld, &l) == ZE_RESULT_SUCCESS &&
             zeFenceCreate(q, &fd, &f) == ZE_RESULT_SUCCESS;
    /* Set+append is not thread-safe on one graph (the driver's rule, too): the
     * append below is done under a lock the test holds. */
    static pthread_mutex_t graph_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&graph_lock);
    ok = ok && E.g->pfnSetArgumentValue(w->g, 0, a) == ZE_RESULT_SUCCESS &&
         E.g->pfnSetArgumentValue(w->g, 1, b) == ZE_RESULT_SUCCESS &&
         E.g->pfnSetArgumentValue(w->g, 2, y) == ZE_RESULT_SUCCESS &&
         E.g->pfnAppendGraphExecute(l, w->g, NULL, NULL, 0, NULL) == ZE_RESULT_SUCCESS &&
         zeCommandListClose(l) == ZE_RESULT_SUCCESS;
    pthread_mutex_unlock(&graph_lock);
    for (int it = 0; ok && it < 200; it++) {
        for (int i = 0; i < 4; i++) {
            a[i] = w->scale * (float)(it + i);
            b[i] = (float)i;
        }
        ok = zeCommandQueueExecuteCommandLists(q, 1, &l, f) == ZE_RESULT_SUCCESS &&
             zeFenceHostSynchronize(f, UINT64_MAX) == ZE_RESULT_SUCCESS && zeFenceReset(f) == ZE_RESULT_SUCCESS;
        for (int i = 0; ok && i < 4; i++)
            ok = y[i] == a[i] * b[i] + model_c[i];
    }
    zeFenceDestroy(f);
    zeCommandListDestroy(l);
    zeCommandQueueDestroy(q);
    zeMemFree(E.ctx, buf);
    w->ok = ok;
    return NULL;
}

static void test_two_threads_run_one_graph_on_two_queues(void **state)
{
    (void)state;
    ze_graph_handle_t g = compile_model();
    worker_arg w[2] = {{g, 1.0f, 0}, {g, -3.0f, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, inference_thread, &w[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    assert_true(w[0].ok);
    assert_true(w[1].ok);
    ZE_OK(E.g->pfnDestroy(g));
}

/* ====================================================================================
 * Test hooks: fault injection
 * ==================================================================================== */
static void test_fault_by_name_fails_only_that_entry(void **state)
{
    (void)state;
    E.t->pfnSetFaultByName("zeCommandListCreate", 2, ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ze_command_list_handle_t l1 = NULL, l2 = NULL, l3 = NULL;
    ZE_OK(zeCommandListCreate(E.ctx, E.dev, &ld, &l1));
    ZE_OK(zeContextGetStatus(E.ctx));
    assert_int_equal(zeCommandListCreate(E.ctx, E.dev, &ld, &l2), ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    assert_null(l2);
    ZE_OK(zeCommandListCreate(E.ctx, E.dev, &ld, &l3)); /* fired once, disarmed */
    assert_int_equal(E.t->pfnGetLiveHandles(NPU_SIM_HANDLE_COMMAND_LIST), E.base[NPU_SIM_HANDLE_COMMAND_LIST] + 2);
    ZE_OK(zeCommandListDestroy(l1));
    ZE_OK(zeCommandListDestroy(l3));

    payload p = make_payload();
    E.t->pfnSetFaultByName("pfnCreate2", 1, ZE_RESULT_ERROR_DEVICE_LOST);
    ze_graph_handle_t g = NULL;
    if (E.ext_minor >= 5)
        assert_int_equal(create_graph(ZE_GRAPH_FORMAT_NGRAPH_LITE, p.data, p.size, 0, &g), ZE_RESULT_ERROR_DEVICE_LOST);
    E.t->pfnSetFaultByName("pfnCreate2", 0, ZE_RESULT_SUCCESS);
    free(p.data);

    uint64_t before = E.t->pfnGetCallCount();
    ZE_OK(zeContextGetStatus(E.ctx));
    ZE_OK(zeDeviceGetStatus(E.dev));
    assert_int_equal(E.t->pfnGetCallCount(), before + 2);
}

/* A whole inference, with every step checked. Returns the first error. */
static ze_result_t scenario(float *y_out)
{
    ze_result_t rc;
    ze_context_handle_t ctx = NULL;
    void *a = NULL, *b = NULL, *y = NULL;
    ze_graph_handle_t g = NULL;
    ze_command_queue_handle_t q = NULL;
    ze_command_list_handle_t l = NULL;
    ze_fence_handle_t f = NULL;
    ze_event_pool_handle_t pool = NULL;
    ze_event_handle_t ev = NULL;
    payload p = make_payload();
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, 0};
    ze_graph_desc_2_t gd = {ZE_STRUCTURE_TYPE_GRAPH_DESC_2, NULL, ZE_GRAPH_FORMAT_NGRAPH_LITE, p.size, p.data, NULL, 0};
    ze_graph_build_log_handle_t bl = NULL;
#define STEP(call)                              \
    do {                                        \
        if ((rc = (call)) != ZE_RESULT_SUCCESS) \
            goto out;                           \
    } while (0)
    STEP(zeContextCreate(E.drv, &cd, &ctx));
    STEP(zeMemAllocHost(ctx, &hd, 16, 0, &a));
    STEP(zeMemAllocHost(ctx, &hd, 16, 0, &b));
    STEP(zeMemAllocHost(ctx, &hd, 16, 0, &y));
    fill_inputs(a, b, 1.5f);
    STEP(E.g->pfnCreate3(ctx, E.dev, &gd, &g, &bl));
    STEP(E.g->pfnBuildLogDestroy(bl));
    bl = NULL;
    STEP(zeCommandQueueCreate(ctx, E.dev, &qd, &q));
    STEP(zeCommandListCreate(ctx, E.dev, &ld, &l));
    STEP(zeFenceCreate(q, &fd, &f));
    STEP(zeEventPoolCreate(ctx, &pd, 1, &E.dev, &pool));
    STEP(zeEventCreate(pool, &ed, &ev));
    STEP(E.g->pfnSetArgumentValue(g, 0, a));
    STEP(E.g->pfnSetArgumentValue(g, 1, b));
    STEP(E.g->pfnSetArgumentValue(g, 2, y));
    STEP(E.g->pfnGraphInitialize(g));
    STEP(E.g->pfnAppendGraphExecute(l, g, NULL, ev, 0, NULL));
    STEP(zeCommandListClose(l));
    STEP(zeCommandQueueExecuteCommandLists(q, 1, &l, f));
    STEP(zeFenceHostSynchronize(f, UINT64_MAX));
    STEP(zeEventQueryStatus(ev));
    memcpy(y_out, y, 16);
out:
    /* cleanup runs without faults and ignores errors */
    E.t->pfnSetFault(0, ZE_RESULT_SUCCESS);
    if (q)
        zeCommandQueueDestroy(q);
    if (f)
        zeFenceDestroy(f);
    if (l)
        zeCommandListDestroy(l);
    if (ev)
        zeEventDestroy(ev);
    if (pool)
        zeEventPoolDestroy(pool);
    if (bl)
        E.g->pfnBuildLogDestroy(bl);
    if (g)
        E.g->pfnDestroy(g);
    if (a)
        zeMemFree(ctx, a);
    if (b)
        zeMemFree(ctx, b);
    if (y)
        zeMemFree(ctx, y);
    if (ctx)
        zeContextDestroy(ctx);
    free(p.data);
    return rc;
#undef STEP
}

static void test_fault_on_every_call_of_an_inference_leaks_nothing(void **state)
{
    (void)state;
    if (E.ext_minor < 12)
        skip();
    float y[4];
    E.t->pfnResetCounters();
    ZE_OK(scenario(y));
    float a[4], b[4];
    fill_inputs(a, b, 1.5f);
    check_output(a, b, y);
    /* calls up to the last step; cleanup calls follow */
    uint64_t steps = 0;
    ze_result_t errors[2] = {ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, ZE_RESULT_ERROR_DEVICE_LOST};
    for (uint64_t n = 1;; n++) {
        ze_result_t want = errors[n % 2];
        E.t->pfnSetFault(n, want);
        ze_result_t rc = scenario(y);
        E.t->pfnSetFault(0, ZE_RESULT_SUCCESS);
        assert_int_equal(check_no_leaks(NULL), 0);
        if (rc == ZE_RESULT_SUCCESS)
            break;
        assert_int_equal(rc, want);
        steps = n;
        assert_true(n < 100);
    }
    assert_int_equal(steps, 20); /* every step failed once, in order */
}

/* ====================================================================================
 * Version emulation (child processes)
 * ==================================================================================== */
/* Calls entry i with NULL arguments: either UNSUPPORTED_FEATURE (entry newer
 * than the configured version) or an argument error. */
static ze_result_t call_entry_with_nulls(int i)
{
    const ze_graph_dditable_ext_t *t = E.g;
    switch (i) {
    case 0: return t->pfnCreate(NULL, NULL, NULL, NULL);
    case 1: return t->pfnDestroy(NULL);
    case 2: return t->pfnGetProperties(NULL, NULL);
    case 3: return t->pfnGetArgumentProperties(NULL, 0, NULL);
    case 4: return t->pfnSetArgumentValue(NULL, 0, NULL);
    case 5: return t->pfnAppendGraphInitialize(NULL, NULL, NULL, 0, NULL);
    case 6: return t->pfnAppendGraphExecute(NULL, NULL, NULL, NULL, 0, NULL);
    case 7: return t->pfnGetNativeBinary(NULL, NULL, NULL);
    case 8: return t->pfnDeviceGetGraphProperties(NULL, NULL);
    case 9: return t->pfnGraphGetArgumentMetadata(NULL, 0, NULL);
    case 10: return t->pfnGetArgumentProperties2(NULL, 0, NULL);
    case 11: return t->pfnGetArgumentProperties3(NULL, 0, NULL);
    case 12: return t->pfnQueryNetworkCreate(NULL, NULL, NULL, NULL);
    case 13: return t->pfnQueryNetworkDestroy(NULL);
    case 14: return t->pfnQueryNetworkGetSupportedLayers(NULL, NULL, NULL);
    case 15: return t->pfnBuildLogGetString(NULL, NULL, NULL);
    case 16: return t->pfnCreate2(NULL, NULL, NULL, NULL);
    case 17: return t->pfnQueryNetworkCreate2(NULL, NULL, NULL, NULL);
    case 18: return t->pfnQueryContextMemory(NULL, ZE_GRAPH_QUERY_MEMORY_DDR, NULL);
    case 19: return t->pfnDeviceGetGraphProperties2(NULL, NULL);
    case 20: return t->pfnGetNativeBinary2(NULL, NULL, NULL);
    case 21: return t->pfnGetProperties2(NULL, NULL);
    case 22: return t->pfnGraphInitialize(NULL);
    case 23: return t->pfnCompilerGetSupportedOptions(NULL, ZE_NPU_COMPILER_OPTIONS, NULL, NULL);
    case 24: return t->pfnCompilerIsOptionSupported(NULL, ZE_NPU_COMPILER_OPTIONS, NULL, NULL);
    case 25: return t->pfnCreate3(NULL, NULL, NULL, NULL, NULL);
    case 26: return t->pfnGetProperties3(NULL, NULL);
    case 27: return t->pfnBuildLogGetString2(NULL, NULL, NULL);
    case 28: return t->pfnBuildLogDestroy(NULL);
    case 29: return t->pfnSetArgumentValue2(NULL, 0, NULL);
    case 30: return t->pfnEvict(NULL);
    default: return ZE_RESULT_ERROR_UNKNOWN;
    }
}

static const uint32_t entry_minor[31] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 3, 3, 4,
                                         5, 5, 5, 6, 7, 8, 8, 11, 11, 12, 12, 12, 12, 15, 16};

static void test_entries_newer_than_the_version_are_unsupported(void **state)
{
    (void)state;
    for (int i = 0; i < 31; i++) {
        const void *slot = ((const void *const *)(const void *)E.g)[i];
        assert_non_null(slot); /* the table is always full */
        ze_result_t rc = call_entry_with_nulls(i);
        if (entry_minor[i] > E.ext_minor)
            assert_int_equal(rc, ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
        else
            assert_int_not_equal(rc, ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    }
}

static void test_graph_runs_at_the_configured_version(void **state)
{
    (void)state;
    ze_graph_handle_t g = compile_model();
    if (E.ext_minor >= 2) {
        ze_graph_argument_properties_3_t p;
        memset(&p, 0, sizeof(p));
        p.stype = ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES;
        ZE_OK(E.g->pfnGetArgumentProperties3(g, 2, &p));
        check_arg_common(&p, 2);
    } else {
        ze_graph_argument_properties_t p;
        memset(&p, 0, sizeof(p));
        p.stype = ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES;
        ZE_OK(E.g->pfnGetArgumentProperties(g, 2, &p));
        assert_string_equal(p.name, "sum");
    }
    run_model_once(g, 2.0f);
    ZE_OK(E.g->pfnDestroy(g));
}

/* ---- children ---------------------------------------------------------------------------- */
/* CommandQueue::executeCommandLists submits the jobs first and only then finds
 * that the fence belongs to another queue: the work runs, the fence is never
 * attached, and the call returns INVALID_SYNCHRONIZATION_OBJECT. */
static void test_fence_of_another_queue_is_refused_after_submit(void **state)
{
    (void)state;
    exec_env x, y;
    exec_open(&x);
    exec_open(&y);
    uint8_t *buf = host_alloc(64);
    memset(buf, 0, 64);
    uint8_t nine = 9;
    ZE_OK(zeCommandListAppendMemoryFill(y.l, buf, &nine, 1, 64, NULL, 0, NULL));
    ZE_OK(zeCommandListClose(y.l));
    E.t->pfnResetCounters();
    assert_int_equal(zeCommandQueueExecuteCommandLists(y.q, 1, &y.l, x.f),
                     ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
    assert_int_equal(E.t->pfnGetSubmitCount(), 1);
    ZE_OK(zeCommandQueueSynchronize(y.q, UINT64_MAX));
    assert_int_equal(buf[63], 9);
    assert_int_equal(zeFenceQueryStatus(x.f), ZE_RESULT_NOT_READY);
    ZE_OK(zeMemFree(E.ctx, buf));
    exec_close(&y);
    exec_close(&x);
}

/* ---- the driver's disk cache ---------------------------------------------------------- */
/* y = a * b + c with weights c; the weights are part of a layout-A payload. */
static payload make_payload_weights(const float c[4])
{
    payload p = make_payload_ex("Multiply", "1", E.compiler_version);
    memcpy(p.data + p.size - sizeof(model_c), c, sizeof(model_c));
    return p;
}

/* Creates with Create2 (or Create when older), returns the properties-3 flags
 * (0 when the version has no pfnGetProperties3) and y[0] for a = b = 1. */
static uint32_t create_run(const payload *p, const void *pNext, uint32_t flags, const char *build_flags, float *y0,
                           ze_result_t want)
{
    ze_graph_handle_t g = NULL;
    ze_result_t rc;
    if (E.ext_minor >= 5) {
        ze_graph_desc_2_t d = {ZE_STRUCTURE_TYPE_GRAPH_DESC_2, pNext, ZE_GRAPH_FORMAT_NGRAPH_LITE, p->size, p->data,
                               build_flags, flags};
        rc = E.g->pfnCreate2(E.ctx, E.dev, &d, &g);
    } else {
        ze_graph_desc_t d = {ZE_STRUCTURE_TYPE_GRAPH_DESC, pNext, ZE_GRAPH_FORMAT_NGRAPH_LITE, p->size, p->data,
                             build_flags};
        rc = E.g->pfnCreate(E.ctx, E.dev, &d, &g);
    }
    assert_int_equal(rc, want);
    if (rc != ZE_RESULT_SUCCESS)
        return 0;
    uint32_t pf = 0;
    if (E.ext_minor >= 12) {
        ze_graph_properties_3_t p3 = {ZE_STRUCTURE_TYPE_GRAPH_PROPERTIES_3, NULL, 0, 0, 0};
        ZE_OK(E.g->pfnGetProperties3(g, &p3));
        pf = p3.flags;
    }
    float *a = host_alloc(16), *b = host_alloc(16), *y = host_alloc(16);
    for (int i = 0; i < 4; i++)
        a[i] = b[i] = 1.0f;
    ZE_OK(E.g->pfnSetArgumentValue(g, 0, a));
    ZE_OK(E.g->pfnSetArgumentValue(g, 1, b));
    ZE_OK(E.g->pfnSetArgumentValue(g, 2, y));
    exec_env x;
    exec_open(&x);
    ZE_OK(E.g->pfnAppendGraphInitialize(x.l, g, NULL, 0, NULL));
    ZE_OK(E.g->pfnAppendGraphExecute(x.l, g, NULL, NULL, 0, NULL));
    exec_run(&x);
    exec_close(&x);
    *y0 = y[0];
    ZE_OK(E.g->pfnDestroy(g));
    ZE_OK(zeMemFree(E.ctx, a));
    ZE_OK(zeMemFree(E.ctx, b));
    ZE_OK(zeMemFree(E.ctx, y));
    return pf;
}

static void failure_log(char *out, size_t cap)
{
    uint32_t n = (uint32_t)cap;
    ZE_OK(E.g->pfnBuildLogGetString(NULL, &n, out));
    out[cap - 1] = '\0';
}

/* Flips one byte in the middle of every file of the cache directory. */
static int corrupt_cache_files(void)
{
    const char *dir = getenv("ZE_INTEL_NPU_CACHE_DIR");
    assert_non_null(dir);
    char cmd[4096];
    snprintf(cmd, sizeof(cmd),
             "for f in '%s'/*; do [ -f \"$f\" ] || continue; "
             "printf 'Z' | dd of=\"$f\" bs=1 seek=100 conv=notrunc status=none; done",
             dir);
    return system(cmd);
}

static void test_disk_cache_hits_and_goes_stale(void **state)
{
    (void)state;
    static const float w1[4] = {10, 20, 30, 40}, w2[4] = {-1, -2, -3, -4}, w3[4] = {7, 7, 7, 7};
    payload p1 = make_payload_weights(w1), p2 = make_payload_weights(w2);
    int v110 = profile_is("2024");
    float y = 0;
    char log[256];
    E.t->pfnResetCounters();

    /* first create compiles and stores; the same descriptor again is a hit */
    uint32_t pf = create_run(&p1, NULL, 0, IO_FLAGS " --config PERF_COUNT=\"NO\"", &y, ZE_RESULT_SUCCESS);
    assert_float_equal(y, 1 + w1[0], 1e-6);
    if (E.ext_minor >= 12)
        assert_int_equal(pf, ZE_GRAPH_PROPERTIES_FLAG_COMPILED);
    assert_int_equal(E.t->pfnGetCacheStoreCount(), 1);
    if (!v110 && E.ext_minor >= 4) {
        failure_log(log, sizeof(log));
        assert_string_equal(log, "ZE DynamicCaching cache_status_t: cache_status_t::stored\n");
    }
    pf = create_run(&p1, NULL, 0, IO_FLAGS " --config PERF_COUNT=\"NO\"", &y, ZE_RESULT_SUCCESS);
    assert_float_equal(y, 1 + w1[0], 1e-6);
    if (E.ext_minor >= 12)
        assert_int_equal(pf, ZE_GRAPH_PROPERTIES_FLAG_LOADED_FROM_CACHE);
    assert_int_equal(E.t->pfnGetCacheHitCount(), 1);
    if (!v110 && E.ext_minor >= 4) {
        failure_log(log, sizeof(log));
        assert_string_equal(log, "ZE DynamicCaching cache_status_t: cache_status_t::found\n");
    }

    /* other build flags, other weights (layout A: in the input bytes): misses */
    create_run(&p1, NULL, 0, IO_FLAGS " --config PERF_COUNT=\"NO\" PERFORMANCE_HINT=\"LATENCY\"", &y,
               ZE_RESULT_SUCCESS);
    create_run(&p2, NULL, 0, IO_FLAGS " --config PERF_COUNT=\"NO\"", &y, ZE_RESULT_SUCCESS);
    assert_float_equal(y, 1 + w2[0], 1e-6);
    assert_int_equal(E.t->pfnGetCacheHitCount(), 1);

    if (E.ext_minor >= 5) {
        /* DISABLE_CACHING: neither looked up nor stored */
        uint64_t stores = E.t->pfnGetCacheStoreCount();
        pf = create_run(&p1, NULL, ZE_GRAPH_FLAG_DISABLE_CACHING, IO_FLAGS " --config PERF_COUNT=\"NO\"", &y, ZE_RESULT_SUCCESS);
        if (E.ext_minor >= 12)
            assert_int_equal(pf, ZE_GRAPH_PROPERTIES_FLAG_COMPILED);
        assert_int_equal(E.t->pfnGetCacheHitCount(), 1);
        assert_int_equal(E.t->pfnGetCacheStoreCount(), stores);
    }

    /* A client-supplied input hash (first in pNext) replaces the input bytes in
     * the key from v1.32 on: new weights under an old hash get the OLD blob. */
    ze_graph_input_hash_t h = {(ze_structure_type_graph_ext_t)ZE_STRUCTURE_TYPE_GRAPH_INPUT_HASH, NULL, 0x1234abcdu};
    payload p3 = make_payload_weights(w3);
    create_run(&p3, &h, 0, IO_FLAGS, &y, ZE_RESULT_SUCCESS);
    assert_float_equal(y, 1 + w3[0], 1e-6);
    uint64_t hits = E.t->pfnGetCacheHitCount();
    create_run(&p2, &h, 0, IO_FLAGS, &y, ZE_RESULT_SUCCESS);
    if (profile_is("2026")) {
        assert_int_equal(E.t->pfnGetCacheHitCount(), hits + 1);
        assert_float_equal(y, 1 + w3[0], 1e-6); /* stale: the weights of p3 */
        /* a hash over the new weights misses and compiles them */
        h.hash = 0x5678u;
        create_run(&p2, &h, 0, IO_FLAGS, &y, ZE_RESULT_SUCCESS);
        assert_float_equal(y, 1 + w2[0], 1e-6);
    } else {
        /* older drivers ignore the struct: the key has the input bytes */
        assert_int_equal(E.t->pfnGetCacheHitCount(), hits);
        assert_float_equal(y, 1 + w2[0], 1e-6);
    }

    /* a damaged entry: v1.19+ check the digest, remove the file and recompile */
    if (!v110) {
        assert_int_equal(corrupt_cache_files(), 0);
        hits = E.t->pfnGetCacheHitCount();
        pf = create_run(&p1, NULL, 0, IO_FLAGS " --config PERF_COUNT=\"NO\"", &y, ZE_RESULT_SUCCESS);
        assert_float_equal(y, 1 + w1[0], 1e-6);
        assert_int_equal(E.t->pfnGetCacheHitCount(), hits);
        if (E.ext_minor >= 12)
            assert_int_equal(pf, ZE_GRAPH_PROPERTIES_FLAG_COMPILED);
        create_run(&p1, NULL, 0, IO_FLAGS " --config PERF_COUNT=\"NO\"", &y, ZE_RESULT_SUCCESS);
        assert_int_equal(E.t->pfnGetCacheHitCount(), hits + 1);
    }

    if (E.ext_minor >= 5 && !v110) {
        ze_graph_memory_query_t q = {0, 0};
        ZE_OK(E.g->pfnQueryContextMemory(E.ctx, ZE_GRAPH_QUERY_MEMORY_DRIVER_CACHE, &q));
        assert_true(q.allocated > 0);
        assert_true(q.allocated <= q.total);
    }
    free(p1.data);
    free(p2.data);
    free(p3.data);
}

/* Layout B (the "no weights copy" serializer): the payload holds the weights'
 * ADDRESS (WeightsPointerAttribute mp/ms), not the weights. The driver's key
 * covers the payload bytes, so new weights written at the same address hit the
 * blob compiled from the old ones. The client has to disable caching or, from
 * v1.32 on, chain a ze_graph_input_hash_t computed over the weights. */
static payload make_payload_b(const float *weights)
{
    char xml[8192];
    int n = snprintf(xml, sizeof(xml), model_xml_fmt, "1", "1", "Multiply", "1", "1", "1", "1", "1");
    assert_true(n > 0 && (size_t)n < sizeof(xml));
    const char *at = strstr(xml, "<data element_type=\"f32\" shape=\"1,4\" offset=\"0\" size=\"16\"/>\n");
    assert_non_null(at);
    at = strchr(at, '\n') + 1;
    char rt[256];
    snprintf(rt, sizeof(rt),
             "   <rt_info><attribute name=\"WeightsPointerAttribute\" version=\"0\" mp=\"%llu\" ms=\"16\"/></rt_info>\n",
             (unsigned long long)(uintptr_t)weights);
    char full[8704];
    snprintf(full, sizeof(full), "%.*s%s%s", (int)(at - xml), xml, rt, at);
    uint64_t xs = strlen(full);
    uint64_t h[6] = {48, 4, 52, 0, 52, xs};
    payload p;
    p.size = 52 + (size_t)xs;
    p.data = malloc(p.size);
    assert_non_null(p.data);
    memcpy(p.data, h, 48);
    uint16_t major = (uint16_t)(E.compiler_version >> 16), minor = (uint16_t)(E.compiler_version & 0xffff);
    memcpy(p.data + 48, &major, 2);
    memcpy(p.data + 50, &minor, 2);
    memcpy(p.data + 52, full, (size_t)xs);
    return p;
}

static void test_disk_cache_serves_stale_weights_to_layout_b(void **state)
{
    (void)state;
    if (profile_is("2024"))
        return; /* the 2024 compiler reads layout A only */
    const char *flags = profile_is("2025")
                            ? IO_FLAGS " --config NPU_USE_BASE_MODEL_SERIALIZER=\"NO\""
                            : IO_FLAGS " --config NPU_MODEL_SERIALIZER_VERSION=\"NO_WEIGHTS_COPY\"";
    static float w[4];
    for (int i = 0; i < 4; i++)
        w[i] = 100.0f + (float)i;
    payload p = make_payload_b(w);
    float y = 0;
    E.t->pfnResetCounters();
    create_run(&p, NULL, 0, flags, &y, ZE_RESULT_SUCCESS);
    assert_float_equal(y, 1 + 100.0f, 1e-6);

    /* new weights at the same address: the payload bytes are unchanged */
    for (int i = 0; i < 4; i++)
        w[i] = -50.0f;
    uint32_t pf = create_run(&p, NULL, 0, flags, &y, ZE_RESULT_SUCCESS);
    assert_int_equal(E.t->pfnGetCacheHitCount(), 1);
    assert_float_equal(y, 1 + 100.0f, 1e-6); /* stale */
    if (E.ext_minor >= 12)
        assert_int_equal(pf, ZE_GRAPH_PROPERTIES_FLAG_LOADED_FROM_CACHE);

    /* DISABLE_CACHING compiles the current weights */
    create_run(&p, NULL, ZE_GRAPH_FLAG_DISABLE_CACHING, flags, &y, ZE_RESULT_SUCCESS);
    assert_float_equal(y, 1 - 50.0f, 1e-6);

    /* an input hash over the weights: honoured from v1.32 on, ignored before */
    ze_graph_input_hash_t h = {(ze_structure_type_graph_ext_t)ZE_STRUCTURE_TYPE_GRAPH_INPUT_HASH, NULL, 0};
    for (int i = 0; i < 4; i++) {
        uint32_t bits;
        memcpy(&bits, &w[i], 4);
        h.hash = h.hash * 1000003u + bits;
    }
    create_run(&p, &h, 0, flags, &y, ZE_RESULT_SUCCESS);
    if (profile_is("2026"))
        assert_float_equal(y, 1 - 50.0f, 1e-6);
    else
        assert_float_equal(y, 1 + 100.0f, 1e-6); /* still the stale entry */
    free(p.data);
}

/* ZE_INTEL_NPU_CACHE_SIZE=0: from v1.19 on every entry is larger than the
 * limit, so nothing is stored and nothing hits. v1.10's setBlob has no size
 * check: it evicts what it can and stores the entry anyway. */
static void test_child_cache_size_zero(void **state)
{
    (void)state;
    payload p = make_payload();
    float y = 0;
    E.t->pfnResetCounters();
    create_run(&p, NULL, 0, IO_FLAGS, &y, ZE_RESULT_SUCCESS);
    create_run(&p, NULL, 0, IO_FLAGS, &y, ZE_RESULT_SUCCESS);
    if (profile_is("2024")) {
        assert_int_equal(E.t->pfnGetCacheStoreCount(), 1);
        assert_int_equal(E.t->pfnGetCacheHitCount(), 1);
    } else {
        assert_int_equal(E.t->pfnGetCacheStoreCount(), 0);
        assert_int_equal(E.t->pfnGetCacheHitCount(), 0);
        ze_graph_memory_query_t q = {1, 1};
        ZE_OK(E.g->pfnQueryContextMemory(E.ctx, ZE_GRAPH_QUERY_MEMORY_DRIVER_CACHE, &q));
        assert_int_equal(q.total, 0);
    }
    free(p.data);
}

/* An unknown NPU_SIM_PROFILE falls back to the default profile. */
static void test_child_unknown_profile_uses_default(void **state)
{
    (void)state;
    assert_string_equal(E.t->pfnGetProfileName(), sim_profile_current()->name);
}

static int spawn_self(const char *group, const char *const *env_add)
{
    /* environment: ours minus the overridden keys, plus env_add */
    size_t n_env = 0, n_add = 0;
    while (environ[n_env])
        n_env++;
    while (env_add[n_add])
        n_add++;
    char **envp = calloc(n_env + n_add + 1, sizeof(char *));
    size_t k = 0;
    for (size_t i = 0; i < n_env; i++) {
        int overridden = 0;
        for (size_t j = 0; j < n_add; j++) {
            size_t key = strcspn(env_add[j], "=");
            if (strncmp(environ[i], env_add[j], key + 1) == 0)
                overridden = 1;
        }
        /* knobs not set by this child stay at their defaults */
        if (strncmp(environ[i], "NPU_SIM_", 8) == 0 || strncmp(environ[i], "ZE_ENABLE_LOADER_INTERCEPT=", 27) == 0 ||
            strncmp(environ[i], "ZE_ENABLE_VALIDATION_LAYER=", 27) == 0)
            overridden = 1;
        if (!overridden)
            envp[k++] = environ[i];
    }
    for (size_t j = 0; j < n_add; j++)
        envp[k++] = (char *)env_add[j];
    envp[k] = NULL;
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (len <= 0) {
        free(envp);
        return -1;
    }
    self[len] = '\0';
    char *argv[] = {self, (char *)"--child", (char *)group, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, self, NULL, NULL, argv, envp);
    free(envp);
    if (rc != 0)
        return -1;
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void test_versions_1_4_to_1_18_in_child_processes(void **state)
{
    (void)state;
    static const char *versions[] = {"1.4", "1.5", "1.8", "1.13", "1.16", "1.18"};
    for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
        char var[64];
        snprintf(var, sizeof(var), "NPU_SIM_GRAPH_EXT_VERSION=%s", versions[i]);
        const char *env[] = {var, NULL};
        int rc = spawn_self("version", env);
        if (rc != 0)
            fail_msg("child with %s exited with %d", var, rc);
    }
}

static void test_validation_layer_stays_clean(void **state)
{
    (void)state;
    const char *env[] = {"ZE_ENABLE_VALIDATION_LAYER=1", "ZE_ENABLE_PARAMETER_VALIDATION=1", NULL};
    assert_int_equal(spawn_self("layers", env), 0);
}

static void test_loader_intercept_mode(void **state)
{
    (void)state;
    const char *env[] = {"ZE_ENABLE_LOADER_INTERCEPT=1", NULL};
    assert_int_equal(spawn_self("layers", env), 0);
}

static void test_platforms_and_knobs(void **state)
{
    (void)state;
    const char *p4000[] = {"NPU_SIM_PLATFORM=4000", "NPU_SIM_COMPILER_VERSION=7.6", NULL};
    assert_int_equal(spawn_self("platform", p4000), 0);
    const char *p5010[] = {"NPU_SIM_PLATFORM=5010", "NPU_SIM_NO_WEIGHTS_COPY=0", "NPU_SIM_SKIP_MATH=1", NULL};
    assert_int_equal(spawn_self("platform", p5010), 0);
    const char *other_compiler[] = {"NPU_SIM_COMPILER_VERSION=6.1", NULL};
    assert_int_equal(spawn_self("compiler", other_compiler), 0);
    const char *no_dma_buf[] = {"NPU_SIM_DMA_BUF=0", NULL};
    assert_int_equal(spawn_self("dma-buf", no_dma_buf), 0);
    const char *no_prime[] = {"NPU_SIM_DMA_BUF=noprime", NULL};
    assert_int_equal(spawn_self("dma-buf", no_prime), 0);
}

/* Each release profile as a whole, in a child of its own. */
static void test_release_profiles_in_child_processes(void **state)
{
    (void)state;
    static const char *profiles[] = {"NPU_SIM_PROFILE=2024", "NPU_SIM_PROFILE=2025", "NPU_SIM_PROFILE=1.32.1",
                                     "NPU_SIM_PROFILE=1.19.0"};
    for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
        const char *env[] = {profiles[i], NULL};
        int rc = spawn_self("profile", env);
        if (rc != 0)
            fail_msg("child with %s exited with %d", profiles[i], rc);
    }
    /* the 2024 compiler behind a newer extension version: no option queries */
    const char *env2024[] = {"NPU_SIM_PROFILE=2024", "NPU_SIM_GRAPH_EXT_VERSION=1.12", NULL};
    assert_int_equal(spawn_self("profile", env2024), 0);
    const char *bogus[] = {"NPU_SIM_PROFILE=1999", NULL};
    assert_int_equal(spawn_self("unknown-profile", bogus), 0);
    const char *zero[] = {"ZE_INTEL_NPU_CACHE_SIZE=0", NULL};
    assert_int_equal(spawn_self("cache-size-zero", zero), 0);
    const char *zero2024[] = {"ZE_INTEL_NPU_CACHE_SIZE=0", "NPU_SIM_PROFILE=2024", NULL};
    assert_int_equal(spawn_self("cache-size-zero", zero2024), 0);
}

static void test_failed_init_leaves_calls_safe(void **state)
{
    (void)state;
    const char *env[] = {"NPU_SIM_TRACE=0", NULL};
    assert_int_equal(spawn_self("gpu-only", env), 0);
}

/* ---- child groups ------------------------------------------------------------------------- */
static void test_child_platform(void **state)
{
    (void)state;
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZE_OK(zeDeviceGetProperties(E.dev, &p));
    assert_int_equal(p.deviceId, expected_device_id());
    assert_int_equal(p.numEUsPerSubslice, 12288);
    const char *sm = getenv("NPU_SIM_SKIP_MATH");
    if (sm != NULL && strcmp(sm, "1") == 0) {
        /* skip-math from the environment: outputs stay untouched */
        ze_graph_handle_t g = compile_model();
        float *a = host_alloc(16), *b = host_alloc(16), *y = host_alloc(16);
        fill_inputs(a, b, 1.0f);
        memset(y, 0, 16);
        ZE_OK(E.g->pfnSetArgumentValue(g, 0, a));
        ZE_OK(E.g->pfnSetArgumentValue(g, 1, b));
        ZE_OK(E.g->pfnSetArgumentValue(g, 2, y));
        exec_env x;
        exec_open(&x);
        ZE_OK(E.g->pfnAppendGraphExecute(x.l, g, NULL, NULL, 0, NULL));
        exec_run(&x);
        assert_true(y[1] == 0.0f);
        exec_close(&x);
        ZE_OK(E.g->pfnDestroy(g));
        ZE_OK(zeMemFree(E.ctx, a));
        ZE_OK(zeMemFree(E.ctx, b));
        ZE_OK(zeMemFree(E.ctx, y));
    }
}

static void test_child_compiler_version(void **state)
{
    (void)state;
    ze_device_graph_properties_t p = {ZE_STRUCTURE_TYPE_DEVICE_GRAPH_PROPERTIES, NULL, 0, {0, 0}, 0, 0};
    ZE_OK(E.g->pfnDeviceGetGraphProperties(E.dev, &p));
    assert_int_equal(p.compilerVersion.major, 6);
    assert_int_equal(p.compilerVersion.minor, 1);
    /* payloads must carry the reported version */
    ze_graph_handle_t g = compile_model();
    ZE_OK(E.g->pfnDestroy(g));
    payload pl = make_payload_ex("Multiply", "1", E.prof->compiler_version);
    assert_int_equal(create_graph(ZE_GRAPH_FORMAT_NGRAPH_LITE, pl.data, pl.size, 0, &g),
                     want_compile_error(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE));
    free(pl.data);
}

static int child_gpu_only(void)
{
    /* A GPU-only init fails for the NPU; every later call must fail cleanly,
     * not crash (l0-driver-contract.md pitfall 1). */
    ze_result_t rc = zeInit(ZE_INIT_FLAG_GPU_ONLY);
    if (rc == ZE_RESULT_SUCCESS)
        return 1;
    uint32_t n = 0;
    rc = zeDriverGet(&n, NULL);
    if (rc != ZE_RESULT_ERROR_UNINITIALIZED || n != 0)
        return 2;
    if (zeInit(0) == ZE_RESULT_SUCCESS) /* the first result is permanent */
        return 3;
    return 0;
}

static int run_child(const char *group)
{
    if (strcmp(group, "gpu-only") == 0)
        return child_gpu_only();
    if (strcmp(group, "dma-buf") == 0) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_teardown(test_child_dma_buf_unavailable, check_no_leaks),
        };
        return cmocka_run_group_tests_name("child: dma-buf unavailable", tests, setup_env, teardown_env);
    }
    if (strcmp(group, "version") == 0) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_teardown(test_extension_list_and_function_addresses, check_no_leaks),
            cmocka_unit_test_teardown(test_entries_newer_than_the_version_are_unsupported, check_no_leaks),
            cmocka_unit_test_teardown(test_device_graph_properties, check_no_leaks),
            cmocka_unit_test_teardown(test_graph_runs_at_the_configured_version, check_no_leaks),
            cmocka_unit_test_teardown(test_fault_by_name_fails_only_that_entry, check_no_leaks),
        };
        return cmocka_run_group_tests_name("child: graph extension version", tests, setup_env, teardown_env);
    }
    if (strcmp(group, "layers") == 0) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_teardown(test_driver_reports_its_own_uuid_and_profile_versions, check_no_leaks),
            cmocka_unit_test_teardown(test_device_properties_model_the_npu, check_no_leaks),
            cmocka_unit_test_teardown(test_memory_alloc_free_and_properties, check_no_leaks),
            cmocka_unit_test_teardown(test_copy_fill_barrier_timestamp_run_in_order, check_no_leaks),
            cmocka_unit_test_teardown(test_events_block_the_queue_until_signalled, check_no_leaks),
            cmocka_unit_test_teardown(test_immediate_command_list_runs_at_append, check_no_leaks),
            cmocka_unit_test_teardown(test_graph_compiles_and_computes, check_no_leaks),
            cmocka_unit_test_teardown(test_execute_captures_arguments_at_append_time, check_no_leaks),
            cmocka_unit_test_teardown(test_execute_refuses_pointers_outside_driver_allocations, check_no_leaks),
            cmocka_unit_test_teardown(test_initialize_evict_and_events_around_execute, check_no_leaks),
            cmocka_unit_test_teardown(test_context_memory_and_compiler_options, check_no_leaks),
            cmocka_unit_test_teardown(test_fault_on_every_call_of_an_inference_leaks_nothing, check_no_leaks),
        };
        return cmocka_run_group_tests_name("child: loader layers", tests, setup_env, teardown_env);
    }
    if (strcmp(group, "platform") == 0) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_teardown(test_child_platform, check_no_leaks),
            cmocka_unit_test_teardown(test_device_graph_properties, check_no_leaks),
            cmocka_unit_test_teardown(test_context_memory_and_compiler_options, check_no_leaks),
        };
        return cmocka_run_group_tests_name("child: platform", tests, setup_env, teardown_env);
    }
    if (strcmp(group, "profile") == 0) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_teardown(test_driver_reports_its_own_uuid_and_profile_versions, check_no_leaks),
            cmocka_unit_test_teardown(test_extension_list_and_function_addresses, check_no_leaks),
            cmocka_unit_test_teardown(test_device_properties_model_the_npu, check_no_leaks),
            cmocka_unit_test_teardown(test_device_graph_properties, check_no_leaks),
            cmocka_unit_test_teardown(test_memory_import_of_caller_pages, check_no_leaks),
            cmocka_unit_test_teardown(test_copy_fill_barrier_timestamp_run_in_order, check_no_leaks),
            cmocka_unit_test_teardown(test_fence_of_another_queue_is_refused_after_submit, check_no_leaks),
            cmocka_unit_test_teardown(test_graph_compiles_and_computes, check_no_leaks),
            cmocka_unit_test_teardown(test_compile_failure_keeps_a_build_log, check_no_leaks),
            cmocka_unit_test_teardown(test_context_memory_and_compiler_options, check_no_leaks),
            cmocka_unit_test_teardown(test_disk_cache_hits_and_goes_stale, check_no_leaks),
            cmocka_unit_test_teardown(test_disk_cache_serves_stale_weights_to_layout_b, check_no_leaks),
        };
        return cmocka_run_group_tests_name("child: release profile", tests, setup_env, teardown_env);
    }
    if (strcmp(group, "unknown-profile") == 0) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_teardown(test_child_unknown_profile_uses_default, check_no_leaks),
        };
        return cmocka_run_group_tests_name("child: unknown profile", tests, setup_env, teardown_env);
    }
    if (strcmp(group, "cache-size-zero") == 0) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_teardown(test_child_cache_size_zero, check_no_leaks),
        };
        return cmocka_run_group_tests_name("child: cache size 0", tests, setup_env, teardown_env);
    }
    if (strcmp(group, "compiler") == 0) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_teardown(test_child_compiler_version, check_no_leaks),
        };
        return cmocka_run_group_tests_name("child: compiler version", tests, setup_env, teardown_env);
    }
    fprintf(stderr, "unknown child group %s\n", group);
    return 99;
}

/* Each child gets a cache directory of its own under the parent's. */
static char cache_root[256];

static void remove_cache_root(void)
{
    if (cache_root[0] == '\0')
        return;
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cache_root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", cache_root);
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--child") == 0) {
        /* a fresh cache per child: children run the same models */
        char dir[512];
        const char *root = getenv("NPU_TEST_CACHE_ROOT");
        if (root != NULL) {
            snprintf(dir, sizeof(dir), "%s/child-%ld", root, (long)getpid());
            setenv("ZE_INTEL_NPU_CACHE_DIR", dir, 1);
        }
        return run_child(argv[2]);
    }
    /* The driver's disk cache must not carry state between runs of this suite. */
    snprintf(cache_root, sizeof(cache_root), "/tmp/npu-sim-test-driver-XXXXXX");
    if (mkdtemp(cache_root) == NULL)
        return 1;
    atexit(remove_cache_root);
    setenv("NPU_TEST_CACHE_ROOT", cache_root, 1);
    char main_dir[512];
    snprintf(main_dir, sizeof(main_dir), "%s/main", cache_root);
    setenv("ZE_INTEL_NPU_CACHE_DIR", main_dir, 1);
    /* The main run is written for the default (newest) profile; run under an
     * older NPU_SIM_PROFILE, the suite runs that profile's group instead. */
    if (env_profile() != sim_profile_current())
        return run_child("profile");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_driver_reports_its_own_uuid_and_profile_versions, check_no_leaks),
        cmocka_unit_test_teardown(test_extension_list_and_function_addresses, check_no_leaks),
        cmocka_unit_test_teardown(test_device_properties_model_the_npu, check_no_leaks),
        cmocka_unit_test_teardown(test_device_graph_properties, check_no_leaks),
        cmocka_unit_test_teardown(test_memory_alloc_free_and_properties, check_no_leaks),
        cmocka_unit_test_teardown(test_memory_import_of_caller_pages, check_no_leaks),
        cmocka_unit_test_teardown(test_memory_import_of_a_dma_buf_fd, check_no_leaks),
        cmocka_unit_test_teardown(test_copy_fill_barrier_timestamp_run_in_order, check_no_leaks),
        cmocka_unit_test_teardown(test_events_block_the_queue_until_signalled, check_no_leaks),
        cmocka_unit_test_teardown(test_fence_created_signalled_and_queue_destroy_with_blocked_work, check_no_leaks),
        cmocka_unit_test_teardown(test_fence_of_another_queue_is_refused_after_submit, check_no_leaks),
        cmocka_unit_test_teardown(test_immediate_command_list_runs_at_append, check_no_leaks),
        cmocka_unit_test_teardown(test_graph_compiles_and_computes, check_no_leaks),
        cmocka_unit_test_teardown(test_graph_properties_2_and_3_accept_old_and_new_stypes, check_no_leaks),
        cmocka_unit_test_teardown(test_argument_properties_inputs_first_fields_filled_in_place, check_no_leaks),
        cmocka_unit_test_teardown(test_dynamic_batch_is_refused_with_a_hint, check_no_leaks),
        cmocka_unit_test_teardown(test_execute_captures_arguments_at_append_time, check_no_leaks),
        cmocka_unit_test_teardown(test_execute_refuses_pointers_outside_driver_allocations, check_no_leaks),
        cmocka_unit_test_teardown(test_set_argument_value_2_tensor_and_dense_strides, check_no_leaks),
        cmocka_unit_test_teardown(test_native_blob_export_and_reimport, check_no_leaks),
        cmocka_unit_test_teardown(test_compile_failure_keeps_a_build_log, check_no_leaks),
        cmocka_unit_test_teardown(test_query_network_lists_supported_layers, check_no_leaks),
        cmocka_unit_test_teardown(test_context_memory_and_compiler_options, check_no_leaks),
        cmocka_unit_test_teardown(test_initialize_evict_and_events_around_execute, check_no_leaks),
        cmocka_unit_test_teardown(test_two_threads_run_one_graph_on_two_queues, check_no_leaks),
        cmocka_unit_test_teardown(test_fault_by_name_fails_only_that_entry, check_no_leaks),
        cmocka_unit_test_teardown(test_fault_on_every_call_of_an_inference_leaks_nothing, check_no_leaks),
        cmocka_unit_test_teardown(test_disk_cache_hits_and_goes_stale, check_no_leaks),
        cmocka_unit_test_teardown(test_disk_cache_serves_stale_weights_to_layout_b, check_no_leaks),
        cmocka_unit_test(test_versions_1_4_to_1_18_in_child_processes),
        cmocka_unit_test(test_release_profiles_in_child_processes),
        cmocka_unit_test(test_validation_layer_stays_clean),
        cmocka_unit_test(test_loader_intercept_mode),
        cmocka_unit_test(test_platforms_and_knobs),
        cmocka_unit_test(test_failed_init_leaves_calls_safe),
    };
    return cmocka_run_group_tests_name("sim driver", tests, setup_env, teardown_env);
}
