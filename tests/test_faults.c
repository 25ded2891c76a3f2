/* Fault injection through the sim's test extension: the N-th driver call fails
 * (N = 1, 2, ... until the operation succeeds) for device open, compile,
 * import, request create and inference. Every failure must return an error with
 * a message, and the sim's live handles must be back at their baseline. The
 * compile/import loops run again at graph extension 1.4 and 1.8 (command-list
 * initialization, pfnCreate v1, GetNativeBinary v1) in child processes. */
#include <sys/mman.h>

#include "tests/l0_test_util.h"

static npu_device *dev;
static npu_graph *graph;
static unsigned char *blob;
static size_t blob_size;

typedef npu_status (*op_fn)(void *arg);
typedef void (*undo_fn)(void *arg);

/* Returns how many injected faults made the operation fail. */
static int fault_loop(const char *what, op_fn op, undo_fn undo, void *arg)
{
    npu_sim_test_ext_t *sim = tu_sim();
    int n, failures = 0;
    for (n = 1; n < 400; n++) {
        tu_live base = tu_live_now();
        size_t mark = npu_arena_used(&tu_arena);
        npu_status st;
        npu_context_clear_error(tu_ctx);
        sim->pfnSetFault((uint64_t)n, ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
        st = op(arg);
        sim->pfnSetFault(0, ZE_RESULT_SUCCESS);
        if (st == NPU_OK) {
            undo(arg);
            tu_live_expect(&base);
            npu_arena_rewind(&tu_arena, mark);
            return failures;
        }
        failures++;
        if (npu_context_last_error(tu_ctx)[0] == '\0')
            fail_msg("%s: fault at call %d: %s without a message", what, n, npu_status_string(st));
        tu_live_expect(&base);
        if (npu_arena_used(&tu_arena) != mark) fail_msg("%s: fault at call %d left the arena used", what, n);
    }
    fail_msg("%s never succeeded", what);
    return -1;
}

/* ---- operations ---- */

static npu_device *opened;
static npu_status op_open(void *arg)
{
    (void)arg;
    return npu_device_open(&tu_arena, tu_ctx, NULL, &opened);
}
static void undo_open(void *arg)
{
    (void)arg;
    npu_device_close(opened);
}

static npu_model *model;
static npu_status op_compile(void *arg)
{
    return npu_model_compile_graph(dev, &tu_arena, graph, (const npu_compile_options *)arg, &model);
}
static npu_status op_import(void *arg)
{
    (void)arg;
    return npu_model_import(dev, &tu_arena, blob, blob_size, NULL, &model);
}
static void undo_model(void *arg)
{
    (void)arg;
    npu_model_destroy(model);
}

static npu_request *request;
static npu_status op_request(void *arg)
{
    return npu_request_create((npu_model *)arg, &tu_arena, NULL, &request);
}
static void undo_request(void *arg)
{
    (void)arg;
    npu_request_destroy(request);
}

static npu_status op_export(void *arg)
{
    size_t size = 0;
    unsigned char *buf;
    npu_status st = npu_model_export((npu_model *)arg, NULL, 0, &size);
    if (st != NPU_OK) return st;
    buf = (unsigned char *)malloc(size);
    st = npu_model_export((npu_model *)arg, buf, size, &size);
    free(buf);
    return st;
}
static void undo_nothing(void *arg) { (void)arg; }

static npu_status op_infer(void *arg)
{
    npu_request *r = (npu_request *)arg;
    npu_status st = npu_request_infer(r);
    if (st != NPU_OK) {
        /* A failed wait leaves the inference running: drain it. */
        npu_status w = npu_request_wait(r, UINT64_MAX);
        if (w != NPU_OK) fail_msg("drain after a failed inference: %s", npu_status_string(w));
    }
    return st;
}

static void check_affine_request(npu_request *r)
{
    float x[4] = {1, -1, 2, 0.5f}, ref[4];
    int i;
    memcpy(npu_request_input(r, 0), x, sizeof x);
    tu_ok(npu_request_infer(r), "clean inference");
    tu_affine_ref(x, ref, 1);
    for (i = 0; i < 4; i++) assert_float_equal(((float *)npu_request_output(r, 0))[i], ref[i], 1e-6);
}

static void setup_common(void)
{
    size_t size = 0;
    npu_model *m = NULL;
    tu_init_context();
    dev = tu_open();
    graph = tu_graph_affine(&tu_arena, 1);
    tu_ok(npu_model_compile_graph(dev, &tu_arena, graph, NULL, &m), "compile");
    tu_ok(npu_model_export(m, NULL, 0, &size), "export size");
    blob = (unsigned char *)malloc(size);
    tu_ok(npu_model_export(m, blob, size, &blob_size), "export");
    npu_model_destroy(m);
}

static int group_setup(void **state)
{
    (void)state;
    setup_common();
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    npu_device_close(dev);
    free(blob);
    return 0;
}

static void test_open(void **state)
{
    (void)state;
    assert_true(fault_loop("device open", op_open, undo_open, NULL) >= 8);
}

static void test_compile(void **state)
{
    npu_compile_options o;
    (void)state;
    assert_true(fault_loop("compile", op_compile, undo_model, NULL) >= 5);
    memset(&o, 0, sizeof o);
    o.priority = NPU_PRIORITY_HIGH; /* plus its own queue */
    assert_true(fault_loop("compile (own queue)", op_compile, undo_model, &o) >= 6);
}

static void test_import(void **state)
{
    (void)state;
    assert_true(fault_loop("import", op_import, undo_model, NULL) >= 5);
}

static void test_export(void **state)
{
    npu_model *m = NULL;
    (void)state;
    tu_ok(npu_model_import(dev, &tu_arena, blob, blob_size, NULL, &m), "import");
    assert_true(fault_loop("export", op_export, undo_nothing, m) >= 1);
    npu_model_destroy(m);
}

static void test_request_create(void **state)
{
    npu_model *m = NULL;
    (void)state;
    tu_ok(npu_model_compile_graph(dev, &tu_arena, graph, NULL, &m), "compile");
    /* 2 allocations + fence + list + 2 set-argument + append + close */
    assert_true(fault_loop("request create", op_request, undo_request, m) >= 8);
    npu_model_destroy(m);
}

static void test_infer(void **state)
{
    npu_model *m = NULL;
    npu_request *r = NULL;
    int fails;
    (void)state;
    tu_ok(npu_model_compile_graph(dev, &tu_arena, graph, NULL, &m), "compile");
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    fails = fault_loop("infer", op_infer, undo_nothing, r);
    assert_int_equal(fails, 3); /* execute, fence wait, fence reset */
    check_affine_request(r);    /* still usable */
    npu_request_destroy(r);
    npu_model_destroy(m);
}

static void test_caller_buffer_import(void **state)
{
    npu_model *m = NULL;
    npu_request *r = NULL;
    npu_sim_test_ext_t *sim = tu_sim();
    float *buf = (float *)aligned_alloc(4096, 4096);
    int n;
    (void)state;
    tu_ok(npu_model_compile_graph(dev, &tu_arena, graph, NULL, &m), "compile");
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    for (n = 1; n < 50; n++) {
        tu_live base = tu_live_now();
        npu_status st;
        sim->pfnSetFault((uint64_t)n, ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
        st = npu_request_set_input_buffer(r, 0, buf, 4096);
        sim->pfnSetFault(0, ZE_RESULT_SUCCESS);
        /* Either imported, or copied after a failed import, or a clean error
         * with the request back on its own buffer: it always still works. */
        if (st == NPU_OK) {
            float x[4] = {1, 2, 3, 4};
            memcpy(npu_request_input(r, 0), x, sizeof x);
            tu_ok(npu_request_infer(r), "infer with caller buffer");
            tu_ok(npu_request_set_input_buffer(r, 0, NULL, 0), "detach");
            tu_live_expect(&base);
            if (npu_request_input(r, 0) != (void *)buf && n > 12) break;
        } else {
            tu_live_expect(&base);
            check_affine_request(r);
        }
    }
    npu_request_destroy(r);
    npu_model_destroy(m);
    free(buf);
}

/* An fd import: every driver call of npu_request_set_input_fd / _output_fd
 * failing in turn (the capability query, the import, its range query, the
 * re-recording) either fails cleanly with the request on its previous
 * buffers and no import left behind, or succeeds; after success, detaching
 * gives every handle back. */
static void test_fd_import(void **state)
{
    npu_model *m = NULL;
    npu_request *r = NULL;
    npu_sim_test_ext_t *sim = tu_sim();
    int fd = memfd_create("npu-fault-frame", MFD_CLOEXEC), n, output, failures = 0;
    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 4096), 0);
    tu_ok(npu_model_compile_graph(dev, &tu_arena, graph, NULL, &m), "compile");
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    for (output = 0; output < 2; output++) {
        for (n = 1; n < 50; n++) {
            tu_live base = tu_live_now();
            npu_status st;
            npu_context_clear_error(tu_ctx);
            sim->pfnSetFault((uint64_t)n, ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
            st = output ? npu_request_set_output_fd(r, 0, fd, 0, 4096) : npu_request_set_input_fd(r, 0, fd, 0, 4096);
            sim->pfnSetFault(0, ZE_RESULT_SUCCESS);
            if (st == NPU_OK) {
                float x[4] = {1, 2, 3, 4};
                memcpy(npu_request_input(r, 0), x, sizeof x);
                tu_ok(npu_request_infer(r), "infer with the fd attached");
                tu_ok(output ? npu_request_set_output_buffer(r, 0, NULL, 0) : npu_request_set_input_buffer(r, 0, NULL, 0),
                      "detach");
                tu_live_expect(&base);
                check_affine_request(r);
                break;
            }
            failures++;
            if (npu_context_last_error(tu_ctx)[0] == '\0')
                fail_msg("fd import: fault at call %d: %s without a message", n, npu_status_string(st));
            tu_live_expect(&base);
            check_affine_request(r);
        }
        if (n == 50) fail_msg("fd import never succeeded");
    }
    /* per direction: the query, the import, the range and 5 re-record calls at least */
    assert_true(failures >= 2 * 4);
    npu_request_destroy(r);
    npu_model_destroy(m);
    close(fd);
}

static int child_versions(void)
{
    npu_compile_options o;
    setup_common();
    memset(&o, 0, sizeof o);
    if (fault_loop("compile", op_compile, undo_model, NULL) < 5) return 1;
    if (fault_loop("import", op_import, undo_model, NULL) < 5) return 2;
    {
        npu_model *m = NULL;
        tu_ok(npu_model_import(dev, &tu_arena, blob, blob_size, NULL, &m), "import");
        if (fault_loop("export", op_export, undo_nothing, m) < 1) return 3;
        if (fault_loop("request", op_request, undo_request, m) < 8) return 4;
        npu_model_destroy(m);
    }
    npu_device_close(dev);
    free(blob);
    return 0;
}

static void test_old_versions_children(void **state)
{
    static const char *const e14[] = {"NPU_SIM_GRAPH_EXT_VERSION=1.4", NULL};
    static const char *const e18[] = {"NPU_SIM_GRAPH_EXT_VERSION=1.8", NULL};
    static const char *const e12[] = {"NPU_SIM_GRAPH_EXT_VERSION=1.12", NULL};
    (void)state;
    assert_int_equal(tu_rerun("--child-versions", e14), 0);
    assert_int_equal(tu_rerun("--child-versions", e18), 0);
    assert_int_equal(tu_rerun("--child-versions", e12), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open),
        cmocka_unit_test(test_compile),
        cmocka_unit_test(test_import),
        cmocka_unit_test(test_export),
        cmocka_unit_test(test_request_create),
        cmocka_unit_test(test_infer),
        cmocka_unit_test(test_caller_buffer_import),
        cmocka_unit_test(test_fd_import),
        cmocka_unit_test(test_old_versions_children),
    };
    if (argc > 1 && strcmp(argv[1], "--child-versions") == 0) return child_versions();
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
