/* Per-layer profiling (npu_compile_options.profiled_requests,
 * npu_request_profile) and the runtime controls (workload type, turbo, the
 * context's idle-memory switch) on the software NPU: what the table holds,
 * its exact size, misuse, and what the sim's driver received (its test
 * extension counts turbo and background queues and idle-optimized contexts).
 * Drivers without an extension run in child processes (NPU_SIM_HIDE_EXT, an
 * older release profile): the loader's first zeInit is permanent. */
#include "tests/l0_test_util.h"

#include <time.h>

static int setup(void **state)
{
    (void)state;
    tu_init_context();
    return 0;
}

/* y = relu(x * w + b), each op named: three layers the sim runs as steps. */
static const char *const layer_names[3] = {"scale", "shift", "act"};

static npu_graph *named_affine(void)
{
    npu_graph *g = NULL;
    npu_shape xs = {2, {1, 4}}, ws = {1, {4}};
    npu_node *x, *w, *b, *y;
    assert_int_equal(npu_graph_create(&tu_arena, tu_ctx, NULL, &g), NPU_OK);
    x = npu_graph_parameter(g, "x", NPU_F32, &xs, NULL);
    w = npu_graph_constant(g, "w", NPU_F32, &ws, tu_w, sizeof tu_w);
    b = npu_graph_constant(g, "b", NPU_F32, &ws, tu_b, sizeof tu_b);
    y = npu_graph_relu(g, npu_graph_add(g, npu_graph_multiply(g, x, w, "scale"), b, "shift"), "act");
    npu_graph_result(g, y, "y");
    if (npu_graph_status(g) != NPU_OK) fail_msg("graph: %s", npu_graph_first_error(g));
    return g;
}

static npu_model *compile_profiled(npu_device *d, uint32_t profiled)
{
    npu_compile_options o;
    npu_model *m = NULL;
    memset(&o, 0, sizeof o);
    o.profiled_requests = profiled;
    tu_ok(npu_model_compile_graph(d, &tu_arena, named_affine(), &o, &m), "compile with profiling");
    return m;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void run_once(npu_request *r, uint64_t *wall_ns)
{
    static const float xin[4] = {1.0f, 2.0f, -3.0f, 0.5f};
    float want[4];
    const float *y;
    uint64_t t0;
    int i;
    memcpy(npu_request_input(r, 0), xin, sizeof xin);
    t0 = now_ns();
    tu_ok(npu_request_infer(r), "infer");
    if (wall_ns != NULL) *wall_ns = now_ns() - t0;
    tu_affine_ref(xin, want, 1);
    y = (const float *)npu_request_output(r, 0);
    for (i = 0; i < 4; i++) assert_float_equal(y[i], want[i], 1e-6);   /* profiling leaves the math alone */
}

static _Alignas(NPU_ARENA_ALIGN) unsigned char table_mem[64 * 1024];

static void test_table_names_types_and_times(void **state)
{
    npu_device *d;
    npu_model *m;
    npu_request *r;
    npu_arena a;
    npu_layer_profile *t = NULL;
    uint32_t n = 0, i, k;
    uint64_t wall = 0, sum = 0;
    size_t size = 0;
    tu_live base;
    (void)state;
    d = tu_open();
    base = tu_live_now();
    m = compile_profiled(d, 1);
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    run_once(r, &wall);
    tu_ok(npu_request_profile_size(r, &size), "profile size");
    assert_int_equal(size, 3 * sizeof(npu_layer_profile));
    tu_ok(npu_arena_init(&a, table_mem, sizeof table_mem), "arena");
    tu_ok(npu_request_profile(r, &a, &t, &n), "profile");
    assert_int_equal(npu_arena_used(&a), size);
    assert_int_equal(n, 3);
    assert_non_null(t);
    /* The layers of the model, once each, in execution order. */
    for (i = 0; i < n; i++) {
        assert_string_equal(t[i].name, layer_names[i]);
        assert_int_equal(t[i].status, NPU_LAYER_EXECUTED);
        assert_int_equal(t[i].real_time_us, t[i].real_time_ns / 1000u);
        assert_int_equal(t[i].cpu_time_us, t[i].cpu_time_ns / 1000u);
        /* one kernel per layer: its compute time is its wall time */
        assert_int_equal(t[i].cpu_time_ns, t[i].real_time_ns);
        assert_string_equal(t[i].exec_type, t[i].cpu_time_ns > 0 ? "Shave" : "DMA");
        if (i > 0) assert_true(t[i].start_ns >= t[i - 1].start_ns + t[i - 1].real_time_ns);
        sum += t[i].real_time_ns;
        for (k = 0; k < i; k++) assert_string_not_equal(t[i].name, t[k].name);
    }
    assert_string_equal(t[0].type, "Multiply");
    assert_string_equal(t[1].type, "Add");
    assert_string_equal(t[2].type, "ReLU");
    assert_true(sum <= wall);   /* the layers run inside the inference */
    /* A second inference gives a new record of the same layers. */
    run_once(r, NULL);
    npu_arena_rewind(&a, 0);
    tu_ok(npu_request_profile(r, &a, &t, &n), "profile again");
    assert_int_equal(n, 3);
    assert_string_equal(t[2].name, "act");
    npu_request_destroy(r);
    npu_model_destroy(m);
    tu_live_expect(&base);   /* query and pool are gone */
    npu_device_close(d);
}

static void test_exact_size_and_smaller_arenas(void **state)
{
    npu_device *d;
    npu_model *m;
    npu_request *r;
    npu_layer_profile *t = (npu_layer_profile *)1;
    uint32_t n = 99;
    size_t size = 0, cap;
    (void)state;
    d = tu_open();
    m = compile_profiled(d, 1);
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    run_once(r, NULL);
    tu_ok(npu_request_profile_size(r, &size), "size");
    assert_true(size > 0 && size <= sizeof table_mem);
    for (cap = 0; cap < size; cap += 16) {
        npu_arena a;
        tu_ok(npu_arena_init(&a, table_mem, cap), "arena");
        assert_int_equal(npu_request_profile(r, &a, &t, &n), NPU_ERR_ARENA_TOO_SMALL);
        assert_null(t);
        assert_int_equal(n, 0);
        assert_int_equal(npu_arena_used(&a), 0);
    }
    {
        npu_arena a;
        tu_ok(npu_arena_init(&a, table_mem, size), "arena");
        tu_ok(npu_request_profile(r, &a, &t, &n), "exact arena");
        assert_int_equal(n, 3);
        assert_string_equal(t[0].name, "scale");
    }
    npu_request_destroy(r);
    npu_model_destroy(m);
    npu_device_close(d);
}

static void test_misuse(void **state)
{
    npu_device *d;
    npu_model *m, *plain = NULL;
    npu_request *r, *r2 = NULL, *r3 = NULL, *rp = NULL;
    npu_arena a;
    npu_layer_profile *t = NULL;
    npu_compile_options o;
    uint32_t n = 0;
    size_t size = 0;
    tu_live base;
    (void)state;
    d = tu_open();
    base = tu_live_now();
    tu_ok(npu_arena_init(&a, table_mem, sizeof table_mem), "arena");
    m = compile_profiled(d, 2);
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request 1");
    /* nothing ran yet: the driver cannot decode; its log is in the message */
    assert_int_equal(npu_request_profile(r, &a, &t, &n), NPU_ERR_DRIVER);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "did an inference run?"));
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "profiling buffer holds no execution"));
    assert_int_equal(npu_arena_used(&a), 0);
    /* two slots: a third request is refused until one is destroyed */
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r2), "request 2");
    assert_int_equal(npu_request_create(m, &tu_arena, NULL, &r3), NPU_ERR_LIMIT);
    assert_null(r3);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "all 2 profiled request(s)"));
    npu_request_destroy(r2);
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r3), "request 3 in the freed slot");
    /* running: refused */
    tu_ok(npu_request_start(r), "start");
    assert_int_equal(npu_request_profile(r, &a, &t, &n), NPU_ERR_STATE);
    assert_int_equal(npu_request_profile_size(r, &size), NPU_ERR_STATE);
    tu_ok(npu_request_wait(r, UINT64_MAX), "wait");
    tu_ok(npu_request_profile(r, &a, &t, &n), "after the wait");
    assert_int_equal(n, 3);
    /* NULL arguments */
    assert_int_equal(npu_request_profile(NULL, &a, &t, &n), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_request_profile(r, NULL, &t, &n), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_request_profile(r, &a, NULL, &n), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_request_profile(r, &a, &t, NULL), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_request_profile_size(r, NULL), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_request_profile_size(NULL, &size), NPU_ERR_INVALID_ARGUMENT);
    /* a model compiled without profiling */
    tu_ok(npu_model_compile_graph(d, &tu_arena, named_affine(), NULL, &plain), "plain compile");
    tu_ok(npu_request_create(plain, &tu_arena, NULL, &rp), "plain request");
    run_once(rp, NULL);
    assert_int_equal(npu_request_profile(rp, &a, &t, &n), NPU_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "profiled_requests"));
    npu_request_destroy(rp);
    npu_model_destroy(plain);
    plain = NULL;
    /* out-of-range options */
    memset(&o, 0, sizeof o);
    o.profiled_requests = NPU_MAX_PROFILED_REQUESTS + 1;
    assert_int_equal(npu_model_compile_graph(d, &tu_arena, named_affine(), &o, &plain), NPU_ERR_INVALID_ARGUMENT);
    memset(&o, 0, sizeof o);
    o.workload_type = (npu_workload_type)2;
    assert_int_equal(npu_model_compile_graph(d, &tu_arena, named_affine(), &o, &plain), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_model_set_workload_type(m, (npu_workload_type)2), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_model_set_workload_type(NULL, NPU_WORKLOAD_DEFAULT), NPU_ERR_INVALID_ARGUMENT);
    assert_null(plain);
    npu_request_destroy(r3);
    npu_request_destroy(r);
    npu_model_destroy(m);
    tu_live_expect(&base);
    npu_device_close(d);
}

/* Workload type: the sim counts live queues set to BACKGROUND. */
static void test_workload_type_reaches_the_queue(void **state)
{
    npu_sim_test_ext_t *s = tu_sim();
    npu_device *d;
    npu_model *m = NULL, *shared = NULL;
    npu_compile_options o;
    npu_request *r;
    uint64_t before;
    (void)state;
    d = tu_open();
    before = s->pfnGetBackgroundQueueCount();
    memset(&o, 0, sizeof o);
    o.workload_type = NPU_WORKLOAD_BACKGROUND;
    tu_ok(npu_model_compile_graph(d, &tu_arena, named_affine(), &o, &m), "background model");
    assert_int_equal(s->pfnGetBackgroundQueueCount(), before + 1);
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    run_once(r, NULL);
    tu_ok(npu_model_set_workload_type(m, NPU_WORKLOAD_DEFAULT), "back to default");
    assert_int_equal(s->pfnGetBackgroundQueueCount(), before);
    tu_ok(npu_model_set_workload_type(m, NPU_WORKLOAD_BACKGROUND), "background again");
    assert_int_equal(s->pfnGetBackgroundQueueCount(), before + 1);
    run_once(r, NULL);
    npu_request_destroy(r);
    npu_model_destroy(m);   /* its own queue goes */
    assert_int_equal(s->pfnGetBackgroundQueueCount(), before);
    /* a model on the device's queue sets that queue */
    tu_ok(npu_model_compile_graph(d, &tu_arena, named_affine(), NULL, &shared), "shared-queue model");
    tu_ok(npu_model_set_workload_type(shared, NPU_WORKLOAD_BACKGROUND), "device queue to background");
    assert_int_equal(s->pfnGetBackgroundQueueCount(), before + 1);
    npu_model_destroy(shared);
    npu_device_close(d);   /* the device's queue goes */
    assert_int_equal(s->pfnGetBackgroundQueueCount(), before);
}

/* Turbo (device and model options): a turbo queue in 2025 and 2026
 * (ze_command_queue_desc_npu_ext_t / _2_t), none in 2024, whose driver reads
 * no pNext. */
static int child_turbo(void)
{
    npu_sim_test_ext_t *s;
    npu_device_options o;
    npu_compile_options co;
    npu_device *d = NULL;
    npu_model *m = NULL;
    const char *profile = getenv("NPU_SIM_PROFILE");
    uint64_t want = profile != NULL && strcmp(profile, "2024") == 0 ? 0 : 1;
    tu_init_context();
    memset(&o, 0, sizeof o);
    o.turbo = 1;
    if (npu_device_open(&tu_arena, tu_ctx, &o, &d) != NPU_OK) return 1;
    s = tu_sim();
    if (s == NULL || s->pfnGetTurboQueueCount() != want) return 2;
    npu_device_close(d);
    if (s->pfnGetTurboQueueCount() != 0) return 3;
    if (npu_device_open(&tu_arena, tu_ctx, NULL, &d) != NPU_OK) return 4;
    memset(&co, 0, sizeof co);
    co.turbo = 1;
    co.priority = NPU_PRIORITY_HIGH;
    if (npu_model_compile_graph(d, &tu_arena, named_affine(), &co, &m) != NPU_OK) return 5;
    if (s->pfnGetTurboQueueCount() != want) return 6;
    npu_model_destroy(m);
    npu_device_close(d);
    return s->pfnGetTurboQueueCount() == 0 ? 0 : 7;
}

static void test_turbo_per_release(void **state)
{
    static const char *const env24[] = {"NPU_SIM_PROFILE=2024", NULL};
    static const char *const env25[] = {"NPU_SIM_PROFILE=2025", NULL};
    static const char *const env26[] = {"NPU_SIM_PROFILE=2026", NULL};
    (void)state;
    assert_int_equal(tu_rerun("--child-turbo", env24), 0);
    assert_int_equal(tu_rerun("--child-turbo", env25), 0);
    assert_int_equal(tu_rerun("--child-turbo", env26), 0);
}

/* Idle optimizations: a no-op on 3720 (as the driver), counted on 4000. */
static int child_idle(int platform_4000)
{
    npu_sim_test_ext_t *s;
    npu_device *d = NULL;
    tu_init_context();
    if (npu_device_open(&tu_arena, tu_ctx, NULL, &d) != NPU_OK) return 1;
    s = tu_sim();
    if (npu_device_set_idle_optimizations(d, 1) != NPU_OK) return 2;
    if (s->pfnGetIdleOptimizedContextCount() != (platform_4000 ? 1u : 0u)) return 3;
    if (npu_device_set_idle_optimizations(d, 0) != NPU_OK) return 4;
    if (s->pfnGetIdleOptimizedContextCount() != 0) return 5;
    if (npu_device_set_idle_optimizations(d, 1) != NPU_OK) return 6;
    npu_device_close(d);
    return s->pfnGetIdleOptimizedContextCount() == 0 ? 0 : 7;
}

static void test_idle_switch(void **state)
{
    static const char *const env3720[] = {"NPU_SIM_PLATFORM=3720", NULL};
    static const char *const env4000[] = {"NPU_SIM_PLATFORM=4000", NULL};
    (void)state;
    assert_int_equal(tu_rerun("--child-idle-3720", env3720), 0);
    assert_int_equal(tu_rerun("--child-idle-4000", env4000), 0);
    assert_int_equal(npu_device_set_idle_optimizations(NULL, 1), NPU_ERR_INVALID_ARGUMENT);
}

/* Drivers without an extension: each control says UNSUPPORTED, naming it. */
static int child_unsupported(void)
{
    const char *hidden = getenv("NPU_SIM_HIDE_EXT");
    npu_device *d = NULL;
    npu_model *m = NULL;
    npu_compile_options o;
    npu_status st;
    size_t used;
    tu_init_context();
    if (npu_device_open(&tu_arena, tu_ctx, NULL, &d) != NPU_OK) return 1;
    memset(&o, 0, sizeof o);
    if (hidden != NULL && strstr(hidden, "profiling") != NULL) {
        o.profiled_requests = 1;
    } else if (hidden != NULL && strstr(hidden, "command_queue") != NULL) {
        npu_device_options dto;
        npu_device *t = NULL;
        memset(&dto, 0, sizeof dto);
        dto.turbo = 1;   /* turbo rides on the same extension */
        if (npu_device_open(&tu_arena, tu_ctx, &dto, &t) != NPU_ERR_UNSUPPORTED || t != NULL) return 9;
        if (strstr(npu_context_last_error(tu_ctx), hidden) == NULL) return 10;
        o.turbo = 1;
        if (npu_model_compile_graph(d, &tu_arena, named_affine(), &o, &m) != NPU_ERR_UNSUPPORTED) return 11;
        o.turbo = 0;
        o.workload_type = NPU_WORKLOAD_BACKGROUND;
    } else {   /* 2025: no context NPU extension */
        st = npu_device_set_idle_optimizations(d, 0);
        if (st != NPU_ERR_UNSUPPORTED) return 2;
        if (strstr(npu_context_last_error(tu_ctx), "ZE_extension_context_npu") == NULL) return 3;
        npu_device_close(d);
        return 0;
    }
    used = npu_arena_used(&tu_arena);
    st = npu_model_compile_graph(d, &tu_arena, named_affine(), &o, &m);
    if (st != NPU_ERR_UNSUPPORTED || m != NULL) return 4;
    if (strstr(npu_context_last_error(tu_ctx), hidden) == NULL) return 5;
    if (tu_sim()->pfnGetLiveHandles(NPU_SIM_HANDLE_GRAPH) != 0) return 6;   /* nothing compiled, nothing left */
    (void)used;
    if (o.workload_type) {
        npu_model *plain = NULL;
        if (npu_model_compile_graph(d, &tu_arena, named_affine(), NULL, &plain) != NPU_OK) return 7;
        if (npu_model_set_workload_type(plain, NPU_WORKLOAD_BACKGROUND) != NPU_ERR_UNSUPPORTED) return 8;
        npu_model_destroy(plain);
    }
    npu_device_close(d);
    return 0;
}

static void test_unsupported_without_the_extension(void **state)
{
    static const char *const no_prof[] = {"NPU_SIM_HIDE_EXT=ZE_extension_profiling_data", NULL};
    static const char *const no_cq[] = {"NPU_SIM_HIDE_EXT=ZE_extension_command_queue_npu", NULL};
    static const char *const old[] = {"NPU_SIM_PROFILE=2025", NULL};
    (void)state;
    assert_int_equal(tu_rerun("--child-unsupported", no_prof), 0);
    assert_int_equal(tu_rerun("--child-unsupported", no_cq), 0);
    assert_int_equal(tu_rerun("--child-unsupported", old), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_table_names_types_and_times, setup),
        cmocka_unit_test_setup(test_exact_size_and_smaller_arenas, setup),
        cmocka_unit_test_setup(test_misuse, setup),
        cmocka_unit_test_setup(test_workload_type_reaches_the_queue, setup),
        cmocka_unit_test_setup(test_turbo_per_release, setup),
        cmocka_unit_test_setup(test_idle_switch, setup),
        cmocka_unit_test_setup(test_unsupported_without_the_extension, setup),
    };
    if (argc > 1 && strcmp(argv[1], "--child-turbo") == 0) return child_turbo();
    if (argc > 1 && strcmp(argv[1], "--child-idle-3720") == 0) return child_idle(0);
    if (argc > 1 && strcmp(argv[1], "--child-idle-4000") == 0) return child_idle(1);
    if (argc > 1 && strcmp(argv[1], "--child-unsupported") == 0) return child_unsupported();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
