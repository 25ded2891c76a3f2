/* What compile options send to the driver's compiler (the build flags, seen in
 * the NPU_LOG_DEBUG compile message), at each compiler-version prefix (VPUX_
 * before 4.0, VPU_ before 5.0, NPU_ after; inputs by name before 5.9, by
 * index from 5.9, in child processes with NPU_SIM_COMPILER_VERSION); option
 * values out of range; NULL and odd arguments of the model API; file errors of
 * import and export naming the file. */
#include <fcntl.h>
#include <sys/stat.h>

#include "tests/l0_test_util.h"

static npu_device *dev;
static npu_graph *graph;

/* Compiles the affine graph with `o`; returns the model (its flags are in the log). */
static npu_model *compile_logged(const npu_compile_options *o)
{
    npu_model *m = NULL;
    tu_log_clear();
    tu_ok(npu_model_compile_graph(dev, &tu_arena, graph, o, &m), "compile");
    return m;
}

static void expect_flags(const npu_compile_options *o, const char *want)
{
    npu_model *m = compile_logged(o);
    tu_expect_log(want);
    npu_model_destroy(m);
}

static void test_each_option_becomes_its_build_flag(void **state)
{
    npu_compile_options o;
    npu_type u8 = NPU_U8, undef = NPU_TYPE_UNDEFINED, f16 = NPU_F16;
    npu_device_properties p;
    const char *pre;
    char want[128];
    (void)state;
    tu_ok(npu_device_get_properties(dev, &p), "properties");
    pre = p.compiler_version < 0x40000u ? "VPUX_" : p.compiler_version < 0x50000u ? "VPU_" : "NPU_";
    /* Defaults: precisions and layouts of every input and output; --config
     * carries only the serializer key of layout B (none for layout A). */
    memset(&o, 0, sizeof o);
    {
        npu_model *m = compile_logged(&o);
        const char *c = strstr(tu_log_text, "--config");
        tu_expect_log(p.compiler_version >= 0x50009u ? "--inputs_precisions=\"0:FP32\"" : "--inputs_precisions=\"x:FP32\"");
        tu_expect_log("_layouts=\"");
        tu_expect_log("--outputs_precisions=");
        static const char k26[] = "--config NPU_MODEL_SERIALIZER_VERSION=\"NO_WEIGHTS_COPY\"\n";
        static const char k25[] = "--config NPU_USE_BASE_MODEL_SERIALIZER=\"NO\"\n";
        if (c != NULL && strncmp(c, k26, sizeof k26 - 1) != 0 && strncmp(c, k25, sizeof k25 - 1) != 0)
            fail_msg("defaults sent more than the serializer key in --config: %s", tu_log_text);
        npu_model_destroy(m);
    }
    o.hint = NPU_HINT_LATENCY;
    expect_flags(&o, " PERFORMANCE_HINT=\"LATENCY\"");
    o.hint = NPU_HINT_THROUGHPUT;
    expect_flags(&o, "PERFORMANCE_HINT=\"THROUGHPUT\"");
    memset(&o, 0, sizeof o);
    o.tiles = 2;
    snprintf(want, sizeof want, " %sTILES=\"2\"", pre);
    expect_flags(&o, want);
    o.tiles = 0;
    o.optimization_level = 3;
    snprintf(want, sizeof want, "%sCOMPILATION_MODE_PARAMS=\"optimization-level=2\"", pre);
    expect_flags(&o, want);
    o.optimization_level = 0;
    o.extra_config = "NPU_DMA_ENGINES=\"1\"";
    expect_flags(&o, " NPU_DMA_ENGINES=\"1\"");
    o.extra_config = "";   /* empty: nothing */
    {
        npu_model *m = compile_logged(&o);
        assert_null(strstr(tu_log_text, "DMA_ENGINES"));
        npu_model_destroy(m);
    }
    memset(&o, 0, sizeof o);
    o.turbo = 1;
    if (p.compiler_version >= 0x70015u) {   /* NPU_TURBO needs compiler 7.21 */
        snprintf(want, sizeof want, " %sTURBO=\"YES\"", pre);
        expect_flags(&o, want);
    }
    /* Type overrides: the compiled buffer has that type; UNDEFINED keeps it.
     * The flags name the new type, and the payload carries the Convert (the IR
     * v11 compiler ignores --inputs_precisions; issue 11). */
    memset(&o, 0, sizeof o);
    o.input_types = &u8;
    o.n_input_types = 1;
    o.output_types = &undef;
    o.n_output_types = 1;
    {
        npu_model *m = compile_logged(&o);
        tu_expect_log(":U8\"");
        assert_int_equal(npu_model_input(m, 0)->type, NPU_U8);
        assert_int_equal(npu_model_output(m, 0)->type, NPU_F32);
        npu_model_destroy(m);
    }
    o.output_types = &f16;
    {
        npu_model *m = compile_logged(&o);
        tu_expect_log(":FP16\"");
        assert_int_equal(npu_model_output(m, 0)->type, NPU_F16);
        assert_int_equal(npu_model_output(m, 0)->bytes, 8);
        npu_model_destroy(m);
    }
}

static void test_priority_and_turbo_give_the_model_its_own_queue(void **state)
{
    static const npu_priority prios[] = {NPU_PRIORITY_LOW, NPU_PRIORITY_MEDIUM, NPU_PRIORITY_HIGH};
    static const char *const names[] = {"LOW", "MEDIUM", "HIGH"};
    npu_compile_options o;
    tu_live base = tu_live_now();
    size_t k;
    (void)state;
    for (k = 0; k < 3; k++) {
        npu_model *m;
        npu_request *r = NULL;
        char want[64];
        tu_live now;
        memset(&o, 0, sizeof o);
        o.priority = prios[k];
        snprintf(want, sizeof want, "MODEL_PRIORITY=\"%s\"", names[k]);
        m = compile_logged(&o);
        /* Sent where the compiler supports the key; otherwise left out (the
         * 2026 compiler does not: it is a runtime option). */
        if (strstr(tu_log_text, "does not support MODEL_PRIORITY; not sent") == NULL) tu_expect_log(want);
        now = tu_live_now();
        /* MEDIUM is the device queue's priority: no queue of its own. */
        assert_int_equal(now.n[NPU_SIM_HANDLE_COMMAND_QUEUE],
                         base.n[NPU_SIM_HANDLE_COMMAND_QUEUE] + (prios[k] == NPU_PRIORITY_MEDIUM ? 0 : 1));
        tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
        tu_ok(npu_request_infer(r), "infer on the model's queue");
        npu_request_destroy(r);
        npu_model_destroy(m);
        tu_live_expect(&base);
    }
}

static void test_options_out_of_range_are_refused(void **state)
{
    npu_compile_options o;
    npu_model *m = (npu_model *)&o;
    npu_type bad = (npu_type)99;
    (void)state;
    memset(&o, 0, sizeof o);
    o.hint = (npu_performance_hint)3;
    assert_int_equal(npu_model_compile_graph(dev, &tu_arena, graph, &o, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_null(m);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "hint is 3 (0 to 2)"));
    memset(&o, 0, sizeof o);
    o.priority = (npu_priority)-1;
    assert_int_equal(npu_model_compile_graph(dev, &tu_arena, graph, &o, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "priority is -1"));
    memset(&o, 0, sizeof o);
    o.optimization_level = 4;
    assert_int_equal(npu_model_compile_graph(dev, &tu_arena, graph, &o, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "optimization_level"));
    memset(&o, 0, sizeof o);
    o.n_input_types = 1;
    assert_int_equal(npu_model_compile_graph(dev, &tu_arena, graph, &o, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "without array"));
    memset(&o, 0, sizeof o);
    o.n_output_types = 1;
    assert_int_equal(npu_model_compile_graph(dev, &tu_arena, graph, &o, &m), NPU_ERR_INVALID_ARGUMENT);
    memset(&o, 0, sizeof o);
    o.input_types = &bad;
    o.n_input_types = 1;
    assert_int_equal(npu_model_compile_graph(dev, &tu_arena, graph, &o, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "input 0 type 99 is invalid"));
    memset(&o, 0, sizeof o);
    o.output_types = &bad;
    o.n_output_types = 1;
    assert_int_equal(npu_model_compile_graph(dev, &tu_arena, graph, &o, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "output 0 type 99 is invalid"));
}

static void test_compile_payload_arguments_and_overrides(void **state)
{
    npu_payload_options po;
    npu_device_properties p;
    npu_compile_options o;
    npu_type u8 = NPU_U8;
    npu_model *m = NULL;
    size_t size = 0, mark = npu_arena_used(&tu_arena);
    void *payload;
    (void)state;
    tu_ok(npu_device_get_properties(dev, &p), "properties");
    memset(&po, 0, sizeof po);
    po.layout = NPU_PAYLOAD_WEIGHTS_COPY;
    po.compiler_version = p.compiler_version;
    tu_ok(npu_graph_write_payload(graph, &po, NULL, 0, &size), "payload size");
    payload = malloc(size);
    tu_ok(npu_graph_write_payload(graph, &po, payload, size, &size), "payload");
    assert_int_equal(npu_model_compile_payload(NULL, &tu_arena, payload, size, NULL, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_model_compile_payload(dev, NULL, payload, size, NULL, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_model_compile_payload(dev, &tu_arena, NULL, size, NULL, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_model_compile_payload(dev, &tu_arena, payload, 0, NULL, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "empty payload"));
    assert_int_equal(npu_model_compile_payload(dev, &tu_arena, payload, size, NULL, NULL), NPU_ERR_INVALID_ARGUMENT);
    memset(&o, 0, sizeof o);
    o.hint = (npu_performance_hint)7;
    assert_int_equal(npu_model_compile_payload(dev, &tu_arena, payload, size, &o, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_arena_used(&tu_arena), mark);
    /* A payload has no descriptions; its XML is IR v11, whose types the
     * compiler does not convert: an override is refused. */
    memset(&o, 0, sizeof o);
    o.input_types = &u8;
    o.n_input_types = 1;
    tu_log_clear();
    assert_int_equal(npu_model_compile_payload(dev, &tu_arena, payload, size, &o, &m), NPU_ERR_UNSUPPORTED);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "not IR v10"));
    tu_ok(npu_model_compile_payload(dev, &tu_arena, payload, size, NULL, &m), "compile payload");
    npu_model_destroy(m);
    free(payload);
    npu_arena_rewind(&tu_arena, mark);
}

static void test_null_arguments_of_the_model_api(void **state)
{
    npu_model_info info;
    npu_model *m = NULL;
    size_t size = 0;
    char blob[16] = {0};
    npu_import_options io;
    (void)state;
    assert_int_equal(npu_model_arena_bytes(NULL), 0);
    assert_int_equal(npu_model_input_count(NULL), 0);
    assert_int_equal(npu_model_output_count(NULL), 0);
    assert_int_equal(npu_model_state_count(NULL), 0);
    assert_int_equal(npu_model_batch(NULL), 0);
    assert_null(npu_model_input(NULL, 0));
    assert_null(npu_model_output(NULL, 0));
    assert_null(npu_model_state(NULL, 0));
    assert_int_equal(npu_model_get_info(NULL, &info), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_model_export(NULL, NULL, 0, &size), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_model_export_file(NULL, "/tmp/x"), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_model_import(NULL, &tu_arena, blob, sizeof blob, NULL, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_model_import(dev, &tu_arena, blob, 0, NULL, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "empty blob"));
    assert_int_equal(npu_model_import(dev, &tu_arena, blob, sizeof blob, NULL, NULL), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_model_import_file(NULL, &tu_arena, "/tmp/x", NULL, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_model_import_file(dev, &tu_arena, NULL, NULL, &m), NPU_ERR_INVALID_ARGUMENT);
    memset(&io, 0, sizeof io);
    io.priority = (npu_priority)4;
    assert_int_equal(npu_model_import(dev, &tu_arena, blob, sizeof blob, &io, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_null(m);
    npu_model_destroy(NULL);
    /* With a model: the one NULL it cannot take. */
    m = compile_logged(NULL);
    assert_int_equal(npu_model_get_info(m, NULL), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_model_export(m, NULL, 0, NULL), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_model_export_file(m, NULL), NPU_ERR_INVALID_ARGUMENT);
    assert_null(npu_model_state(m, 0));
    npu_model_destroy(m);
}

static void test_file_errors_name_the_file(void **state)
{
    char dir[64], path[4200];
    npu_model *m = compile_logged(NULL), *imp = (npu_model *)dir;
    unsigned char small[8];
    size_t size = 0;
    int fd;
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/npu-options-XXXXXX");
    assert_non_null(mkdtemp(dir));
    /* A path that leaves no room for the temporary name. */
    memset(path, 'p', sizeof path);
    path[0] = '/';
    path[4090] = '\0';
    assert_int_equal(npu_model_export_file(m, path), NPU_ERR_IO);
    /* the reason is not pushed out of the message by the path */
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "path too long (4090 bytes)"));
    /* A directory that does not exist. */
    snprintf(path, sizeof path, "%s/no/such/dir/model.blob", dir);
    assert_int_equal(npu_model_export_file(m, path), NPU_ERR_IO);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), path));
    /* A buffer that is too small: the size is still reported. */
    assert_int_equal(npu_model_export(m, small, sizeof small, &size), NPU_ERR_BUFFER_TOO_SMALL);
    assert_true(size > sizeof small);
    /* Import: missing file, empty file, a directory. */
    snprintf(path, sizeof path, "%s/missing.blob", dir);
    assert_int_equal(npu_model_import_file(dev, &tu_arena, path, NULL, &imp), NPU_ERR_IO);
    assert_null(imp);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), path));
    snprintf(path, sizeof path, "%s/empty.blob", dir);
    fd = open(path, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(npu_model_import_file(dev, &tu_arena, path, NULL, &imp), NPU_ERR_FORMAT);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "empty file"));
    unlink(path);
    assert_int_equal(npu_model_import_file(dev, &tu_arena, dir, NULL, &imp), NPU_ERR_IO);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "not a regular file"));
    /* An exported file imports and runs. */
    snprintf(path, sizeof path, "%s/model.blob", dir);
    tu_ok(npu_model_export_file(m, path), "export");
    tu_ok(npu_model_import_file(dev, &tu_arena, path, NULL, &imp), "import file");
    assert_int_equal(npu_model_input(imp, 0)->bytes, 16);
    npu_model_destroy(imp);
    unlink(path);
    rmdir(dir);
    npu_model_destroy(m);
}

/* ---- children at other compiler versions ---- */

static int child_prefix(const char *pre, int by_index)
{
    npu_compile_options o;
    npu_model *m;
    char want[64];
    tu_init_context_logged(NPU_LOG_DEBUG);
    dev = tu_open();
    graph = tu_graph_affine(&tu_arena, 1);
    npu_device_properties p;
    memset(&o, 0, sizeof o);
    o.turbo = 1;
    o.tiles = 3;
    m = compile_logged(&o);
    tu_ok(npu_device_get_properties(dev, &p), "properties");
    /* Graph extension 1.9 (profile 2024) cannot ask the compiler: the version
     * thresholds decide. NPU_TURBO needs 7.21, NPU_TILES 5.4. */
    snprintf(want, sizeof want, "does not support %sTURBO; not sent", pre);
    if (strstr(tu_log_text, want) == NULL) return 1;
    if (p.compiler_version >= 0x50004u)
        snprintf(want, sizeof want, " %sTILES=\"3\"", pre);
    else
        snprintf(want, sizeof want, "does not support %sTILES; not sent", pre);
    if (strstr(tu_log_text, want) == NULL) return 3;
    if (strstr(tu_log_text, by_index ? "--inputs_precisions=\"0:FP32\"" : "--inputs_precisions=\"x:FP32\"") == NULL)
        return 2;
    npu_model_destroy(m);
    npu_device_close(dev);
    return 0;
}

static void test_flag_prefix_follows_the_compiler_version(void **state)
{
    static const char *const v3[] = {"NPU_SIM_COMPILER_VERSION=3.9", "NPU_SIM_PROFILE=2024", NULL};
    static const char *const v4[] = {"NPU_SIM_COMPILER_VERSION=4.2", "NPU_SIM_PROFILE=2024", NULL};
    static const char *const v5[] = {"NPU_SIM_COMPILER_VERSION=5.8", "NPU_SIM_PROFILE=2024", NULL};
    static const char *const v59[] = {"NPU_SIM_COMPILER_VERSION=5.9", "NPU_SIM_PROFILE=2024", NULL};
    (void)state;
    assert_int_equal(tu_rerun("--child-vpux", v3), 0);
    assert_int_equal(tu_rerun("--child-vpu", v4), 0);
    assert_int_equal(tu_rerun("--child-npu-by-name", v5), 0);
    assert_int_equal(tu_rerun("--child-npu-by-index", v59), 0);
}

static int group_setup(void **state)
{
    (void)state;
    tu_init_context_logged(NPU_LOG_DEBUG);
    dev = tu_open();
    graph = tu_graph_affine(&tu_arena, 1);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    npu_device_close(dev);
    return 0;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_option_becomes_its_build_flag),
        cmocka_unit_test(test_priority_and_turbo_give_the_model_its_own_queue),
        cmocka_unit_test(test_options_out_of_range_are_refused),
        cmocka_unit_test(test_compile_payload_arguments_and_overrides),
        cmocka_unit_test(test_null_arguments_of_the_model_api),
        cmocka_unit_test(test_file_errors_name_the_file),
        cmocka_unit_test(test_flag_prefix_follows_the_compiler_version),
    };
    if (argc > 1 && strcmp(argv[1], "--child-vpux") == 0) return child_prefix("VPUX_", 0);
    if (argc > 1 && strcmp(argv[1], "--child-vpu") == 0) return child_prefix("VPU_", 0);
    if (argc > 1 && strcmp(argv[1], "--child-npu-by-name") == 0) return child_prefix("NPU_", 0);
    if (argc > 1 && strcmp(argv[1], "--child-npu-by-index") == 0) return child_prefix("NPU_", 1);
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
