/* test_real_driver.c - what npu sends to Intel's real driver and compiler
 * (issue 11 and issue 13 item 4), checked against the software NPU's release
 * profiles (NPU_SIM_PROFILE=2024|2025|2026, see sim/profile.c). One test per
 * rule of docs/driver-compat.md; a test that needs another profile re-runs
 * this binary with that profile in its environment ("--child NAME").
 *
 * The build flags are read from npu's NPU_LOG_DEBUG line
 * "compile: payload N bytes, layout X, flags: ...". */
#include "l0_test_util.h"

#include <ctype.h>

static int child_mode;

/* Payloads and blobs of these tests (small models). */
static _Alignas(4096) unsigned char scratch[1 << 20];

static int has(const char *buf, size_t size, const char *what)
{
    return memmem(buf, size, what, strlen(what)) != NULL;
}

static void *scratch_buf(size_t size)
{
    if (size > sizeof scratch) fail_msg("scratch buffer: %zu bytes needed", size);
    return scratch;
}

static void setup_logged(void) { tu_init_context_logged(NPU_LOG_DEBUG); }

/* Runs `name` in a child whose sim uses release profile `profile`; extra env
 * may be NULL. */
static void run_child(const char *name, const char *profile, const char *extra)
{
    static char pe[64], flag[128];
    const char *env[3] = {pe, extra, NULL};
    int rc;
    snprintf(pe, sizeof pe, "NPU_SIM_PROFILE=%s", profile);
    snprintf(flag, sizeof flag, "--child=%s", name);
    rc = tu_rerun(flag, env);
    if (rc != 0) fail_msg("child %s (profile %s%s%s) failed: %d", name, profile, extra ? ", " : "", extra ? extra : "", rc);
}

static npu_model *compile_graph(npu_device *d, npu_graph *g, const npu_compile_options *o)
{
    npu_model *m = NULL;
    tu_ok(npu_model_compile_graph(d, &tu_arena, g, o, &m), "compile");
    return m;
}

/* One inference of tu_graph_affine's model, compared with the reference. */
static void check_affine(npu_model *m, const float *w)
{
    npu_request *r = NULL;
    float x[4] = {1.0f, 2.0f, -3.0f, 0.5f}, y[4];
    int i;
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    memcpy(npu_request_input(r, 0), x, sizeof x);
    tu_ok(npu_request_infer(r), "infer");
    memcpy(y, npu_request_output(r, 0), sizeof y);
    for (i = 0; i < 4; i++) {
        float v = x[i] * w[i] + tu_b[i];
        if (v < 0.0f) v = 0.0f;
        if (y[i] != v) fail_msg("output %d: %g, expected %g", i, (double)y[i], (double)v);
    }
    npu_request_destroy(r);
}

/* ---- row 1: layout B carries the serializer key ---- */

static void serializer_key_child(void)
{
    npu_device *d = tu_open();
    npu_device_properties info;
    npu_model *m;
    const char *p = getenv("NPU_SIM_PROFILE");
    tu_log_clear();
    m = compile_graph(d, tu_graph_affine(&tu_arena, 1), NULL);
    check_affine(m, tu_w);
    tu_ok(npu_device_get_properties(d, &info), "info");
    if (strcmp(p, "2026") == 0) {
        tu_expect_log("layout B, flags:");
        tu_expect_log("--config NPU_MODEL_SERIALIZER_VERSION=\"NO_WEIGHTS_COPY\"");
        assert_int_equal(info.no_weights_copy, 1);
    } else if (strcmp(p, "2025") == 0) {
        tu_expect_log("layout B, flags:");
        tu_expect_log("--config NPU_USE_BASE_MODEL_SERIALIZER=\"NO\"");
        assert_int_equal(info.no_weights_copy, 1);
    } else {
        /* No serializer option: layout A, the reason logged, no key sent. */
        tu_expect_log("layout A, flags:");
        tu_expect_log("payload layout A (weights copied): the driver's compiler offers neither");
        assert_null(strstr(tu_log_text, "SERIALIZER_VERSION="));
        assert_null(strstr(tu_log_text, "SERIALIZER="));
        assert_int_equal(info.no_weights_copy, 0);
    }
    npu_model_destroy(m);
}

static void test_layout_b_sends_the_serializer_key(void **state)
{
    (void)state;
    run_child("serializer_key", "2026", NULL);
    run_child("serializer_key", "2025", NULL);
    run_child("serializer_key", "2024", NULL);
}

/* An explicit layout-B request on a compiler without the option falls back to
 * A (logged); a caller-made layout-B payload is refused there. */
static void explicit_b_child(void)
{
    npu_device *d = tu_open();
    npu_compile_options o;
    npu_payload_options po;
    npu_model *m = NULL;
    npu_graph *g = tu_graph_affine(&tu_arena, 1);
    npu_device_properties info;
    size_t size = 0;
    void *buf;
    memset(&o, 0, sizeof o);
    o.payload_layout = NPU_PAYLOAD_NO_WEIGHTS_COPY;
    tu_log_clear();
    m = compile_graph(d, g, &o);
    tu_expect_log("layout A, flags:");
    check_affine(m, tu_w);
    npu_model_destroy(m);
    tu_ok(npu_device_get_properties(d, &info), "info");
    memset(&po, 0, sizeof po);
    po.layout = NPU_PAYLOAD_NO_WEIGHTS_COPY;
    po.compiler_version = info.compiler_version;
    tu_ok(npu_graph_write_payload(g, &po, NULL, 0, &size), "payload size");
    buf = scratch_buf(size);
    assert_non_null(buf);
    tu_ok(npu_graph_write_payload(g, &po, buf, size, &size), "payload");
    assert_int_equal(npu_model_compile_payload(d, &tu_arena, buf, size, NULL, &m), NPU_ERR_UNSUPPORTED);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "layout B"));
}

static void test_explicit_layout_b_without_the_option(void **state)
{
    (void)state;
    run_child("explicit_b", "2024", NULL);
}

/* ---- row 2: rank 0 is **SCALAR** ---- */

static void test_rank0_layout_is_star_scalar(void **state)
{
    npu_device *d;
    npu_graph *g = NULL;
    npu_shape s0 = {0, {0}};
    npu_model *m;
    (void)state;
    setup_logged();
    d = tu_open();
    assert_int_equal(npu_graph_create(&tu_arena, tu_ctx, NULL, &g), NPU_OK);
    npu_graph_result(g, npu_graph_relu(g, npu_graph_parameter(g, "s", NPU_F32, &s0, NULL), "r"), "out");
    tu_log_clear();
    m = compile_graph(d, g, NULL);
    tu_expect_log("--inputs_layouts=\"0:**SCALAR**\"");
    tu_expect_log("--outputs_layouts=\"0:**SCALAR**\"");
    npu_model_destroy(m);
}

/* ---- row 3: IR v10: rt_info, layout A ---- */

static void test_ir_v10_gets_rt_info_and_layout_a(void **state)
{
    char path[4096];
    const char *dir = getenv("NPU_TEST_DATA");
    npu_device *d;
    npu_device_properties info;
    npu_ir *ir = NULL;
    npu_model *m = NULL;
    npu_payload_options po;
    size_t size = 0;
    char *buf;
    (void)state;
    setup_logged();
    d = tu_open();
    char bin[64];
    FILE *f;
    snprintf(path, sizeof path, "%s/irl_mlp_v10.xml", dir ? dir : "tests/data");
    snprintf(bin, sizeof bin, "/tmp/npu_real_driver_%d.bin", (int)getpid());
    f = fopen(bin, "wb");
    assert_non_null(f);
    for (int i = 0; i < 288; i++) fputc(i % 7, f);
    fclose(f);
    tu_ok(npu_ir_open(&tu_arena, tu_ctx, path, bin, &ir), "load");
    assert_int_equal(npu_ir_version(ir), 10);
    tu_log_clear();
    tu_ok(npu_model_compile_ir(d, &tu_arena, ir, NULL, &m), "compile IR v10");
    tu_ok(npu_device_get_properties(d, &info), "info");
    if (info.no_weights_copy) tu_expect_log("the model is IR v10");   /* else: no serializer option */
    tu_expect_log("layout A, flags:");
    npu_model_destroy(m);
    /* The payload's XML carries both net rt_info entries, as YES. */
    memset(&po, 0, sizeof po);
    po.layout = NPU_PAYLOAD_WEIGHTS_COPY;
    po.compiler_version = info.compiler_version;
    tu_ok(npu_ir_write_payload(ir, &po, NULL, 0, &size), "payload size");
    buf = (char *)scratch_buf(size + 1);
    assert_non_null(buf);
    tu_ok(npu_ir_write_payload(ir, &po, buf, size, &size), "payload");
    buf[size] = '\0';
    assert_true(has(buf, size, "<is_new_api value=\"YES\"/>"));
    assert_true(has(buf, size, "<use_indices_for_io_metadata value=\"YES\"/>"));
    npu_ir_close(ir);
    remove(bin);
}

/* ---- row 4: type overrides convert or are refused ---- */

static void test_type_overrides_convert_or_are_refused(void **state)
{
    static char xml[1 << 15];
    static unsigned char bin[256];
    npu_device *d;
    npu_compile_options o;
    npu_type in_t[1] = {NPU_U8}, out_t[1] = {NPU_F16};
    npu_model *m = NULL;
    npu_request *r = NULL;
    npu_graph *g;
    npu_ir *ir = NULL;
    npu_payload_options po;
    size_t nx = 0, nb = 0;
    const uint8_t x[4] = {1, 2, 3, 4};
    const uint16_t want[4] = {0x3d00, 0x0000, 0x3800, 0x4a00}; /* relu(x*w+b): 1.25, 0, 0.5, 12 */
    uint16_t y[4];
    (void)state;
    setup_logged();
    d = tu_open();
    memset(&o, 0, sizeof o);
    o.input_types = in_t;
    o.n_input_types = 1;
    o.output_types = out_t;
    o.n_output_types = 1;
    /* A graph: Convert layers in the payload make the compiled I/O u8 / f16
     * (the IR v11 compiler would ignore --inputs_precisions). */
    g = tu_graph_affine(&tu_arena, 1);
    tu_log_clear();
    m = compile_graph(d, g, &o);
    assert_int_equal(npu_model_input(m, 0)->type, NPU_U8);
    assert_int_equal(npu_model_output(m, 0)->type, NPU_F16);
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    {   /* the names stay: the output's moves to the Convert in front of it */
        uint32_t idx = 9;
        tu_ok(npu_request_find_input(r, "x", &idx), "find input x");
        assert_int_equal(idx, 0);
        tu_ok(npu_request_find_output(r, "y", &idx), "find output y");
        assert_int_equal(idx, 0);
    }
    memcpy(npu_request_input(r, 0), x, sizeof x);
    tu_ok(npu_request_infer(r), "infer");
    memcpy(y, npu_request_output(r, 0), sizeof y);
    assert_memory_equal(y, want, sizeof y);
    npu_request_destroy(r);
    npu_model_destroy(m);
    /* The same model as an IR v11 file: the compiler would not convert and
     * npu cannot rewrite the file: refused. */
    memset(&po, 0, sizeof po);
    po.layout = NPU_PAYLOAD_WEIGHTS_COPY;
    tu_ok(npu_graph_write_xml(g, &po, xml, sizeof xml, &nx), "xml");
    tu_ok(npu_graph_write_bin(g, bin, sizeof bin, &nb), "bin");
    tu_ok(npu_ir_load_memory(&tu_arena, tu_ctx, xml, nx, bin, nb, &ir), "ir");
    assert_int_equal(npu_model_compile_ir(d, &tu_arena, ir, &o, &m), NPU_ERR_UNSUPPORTED);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "input 0 type override to U8"));
    /* An override equal to the model's type changes nothing and is accepted. */
    in_t[0] = NPU_F32;
    out_t[0] = NPU_F32;
    tu_ok(npu_model_compile_ir(d, &tu_arena, ir, &o, &m), "compile IR, overrides = model types");
    npu_model_destroy(m);
}

/* ---- row 5: unsupported --config keys ---- */

static void config_keys_child(void)
{
    npu_device *d = tu_open();
    npu_compile_options o;
    npu_model *m = NULL;
    memset(&o, 0, sizeof o);
    o.turbo = 1;
    o.tiles = 2;
    o.hint = NPU_HINT_LATENCY;
    o.optimization_level = 2;
    tu_log_clear();
    m = compile_graph(d, tu_graph_affine(&tu_arena, 1), &o);
    check_affine(m, tu_w);
    npu_model_destroy(m);
    if (strcmp(getenv("NPU_SIM_PROFILE"), "2024") == 0) {
        /* Compiler 6.1, graph extension 1.9: no query; turbo needs 7.21. */
        tu_expect_log("does not support NPU_TURBO; not sent");
        assert_null(strstr(tu_log_text, "NPU_TURBO=\"YES\""));
    } else {
        tu_expect_log("NPU_TURBO=\"YES\"");
    }
    tu_expect_log("PERFORMANCE_HINT=\"LATENCY\"");
    tu_expect_log("NPU_TILES=\"2\"");
    /* A key the caller names explicitly is checked and refused. */
    o.turbo = 0;
    o.extra_config = "NPU_NO_SUCH_KEY=\"1\"";
    if (strcmp(getenv("NPU_SIM_PROFILE"), "2024") != 0) {
        assert_int_equal(npu_model_compile_graph(d, &tu_arena, tu_graph_affine(&tu_arena, 1), &o, &m),
                         NPU_ERR_UNSUPPORTED);
        assert_non_null(strstr(npu_context_last_error(tu_ctx), "NPU_NO_SUCH_KEY"));
        o.extra_config = "PERFORMANCE_HINT_NUM_REQUESTS=\"2\"";
        m = compile_graph(d, tu_graph_affine(&tu_arena, 1), &o);
        npu_model_destroy(m);
    }
    /* Malformed extra_config (a quote inside a value would let it rewrite
     * other flags) is refused everywhere. */
    o.extra_config = "A=\"1\" B";
    assert_int_equal(npu_model_compile_graph(d, &tu_arena, tu_graph_affine(&tu_arena, 1), &o, &m),
                     NPU_ERR_INVALID_ARGUMENT);
}

static void test_unsupported_config_keys_are_dropped_or_refused(void **state)
{
    (void)state;
    run_child("config_keys", "2026", NULL);
    run_child("config_keys", "2025", NULL);
    run_child("config_keys", "2024", NULL);
}

/* ---- row 6: host memory import ---- */

static void host_import_child(void)
{
    static _Alignas(4096) float in[1024];
    npu_device *d = tu_open();
    npu_model *m = compile_graph(d, tu_graph_affine(&tu_arena, 1), NULL);
    npu_request *r = NULL;
    npu_device_properties info;
    uint64_t before;
    int memmap = strcmp(getenv("NPU_SIM_PROFILE"), "2026") == 0;
    tu_ok(npu_device_get_properties(d, &info), "info");
    assert_int_equal(info.host_memory_import, memmap);
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    before = tu_sim()->pfnGetImportCount();
    tu_log_clear();
    tu_ok(npu_request_set_input_buffer(r, 0, in, sizeof in), "set input");
    if (memmap) {
        assert_true(tu_sim()->pfnGetImportCount() > before);
    } else {
        assert_int_equal(tu_sim()->pfnGetImportCount(), before);
        tu_expect_log("the driver does not offer ZE_extension_external_memmap_sysmem; copying instead");
    }
    in[0] = 1.0f;
    tu_ok(npu_request_infer(r), "infer");
    npu_request_destroy(r);
    npu_model_destroy(m);
}

static void test_host_import_uses_the_memmap_extension(void **state)
{
    (void)state;
    run_child("host_import", "2026", NULL);
    run_child("host_import", "2024", NULL);
}

/* ---- row 7: layout B and the driver's disk cache ---- */

static void driver_cache_child(void)
{
    static float w[4];
    npu_device *d = tu_open();
    npu_graph *g = NULL;
    npu_shape xs = {2, {1, 4}}, ws = {1, {4}};
    npu_node *x, *wn, *b;
    npu_model *m;
    int round;
    assert_int_equal(npu_graph_create(&tu_arena, tu_ctx, NULL, &g), NPU_OK);
    x = npu_graph_parameter(g, "x", NPU_F32, &xs, "NC");
    wn = npu_graph_constant(g, "w", NPU_F32, &ws, w, sizeof w);
    b = npu_graph_constant(g, "b", NPU_F32, &ws, tu_b, sizeof tu_b);
    npu_graph_result(g, npu_graph_relu(g, npu_graph_add(g, npu_graph_multiply(g, x, wn, NULL), b, NULL), "relu"),
                     "y");
    assert_int_equal(npu_graph_status(g), NPU_OK);
    /* Same payload bytes (the weights' address), other weights: a cache keyed
     * on the payload alone would answer the second compile with the first
     * blob. */
    for (round = 0; round < 2; round++) {
        int i;
        for (i = 0; i < 4; i++) w[i] = round == 0 ? tu_w[i] : tu_w[i] + 1.0f;
        tu_log_clear();
        m = compile_graph(d, g, NULL);
        tu_expect_log("layout B");
        check_affine(m, w);
        npu_model_destroy(m);
    }
}

static void test_layout_b_is_not_served_stale_from_the_driver_cache(void **state)
{
    (void)state;
    run_child("driver_cache", "2026", NULL);   /* ext 1.16: input hash */
    run_child("driver_cache", "2025", NULL);   /* ext 1.12: DISABLE_CACHING */
}

/* ---- row 8: YES/NO booleans in the graph payload ---- */

static void test_graph_rt_info_booleans_are_yes(void **state)
{
    npu_graph *g;
    npu_payload_options po;
    size_t size = 0;
    char *buf;
    (void)state;
    tu_init_context();
    g = tu_graph_affine(&tu_arena, 1);
    memset(&po, 0, sizeof po);
    po.layout = NPU_PAYLOAD_NO_WEIGHTS_COPY;
    po.compiler_version = NPU_COMPILER_VERSION(7, 28);
    tu_ok(npu_graph_write_payload(g, &po, NULL, 0, &size), "size");
    buf = (char *)scratch_buf(size + 1);
    tu_ok(npu_graph_write_payload(g, &po, buf, size, &size), "payload");
    buf[size] = '\0';
    assert_true(has(buf, size, "<is_new_api value=\"YES\" />"));
    assert_true(has(buf, size, "<use_indices_for_io_metadata value=\"YES\" />"));
    assert_false(has(buf, size, "value=\"true\""));
    /* row 11b: the WeightsPointerAttribute key names the compiler reads. */
    assert_true(has(buf, size, "WeightsPointerAttribute\" version=\"0\" mp=\""));
    assert_true(has(buf, size, " ms=\"16\""));
}

/* ---- row 9: a device opens whatever the option queries return ---- */

static void open_child(void)
{
    npu_device *d = tu_open();
    npu_model *m = compile_graph(d, tu_graph_affine(&tu_arena, 1), NULL);
    check_affine(m, tu_w);
    npu_model_destroy(m);
}

static void test_device_opens_in_every_profile(void **state)
{
    (void)state;
    /* Graph extension 1.12 over the 2024 compiler: every option query answers
     * ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE (no query symbols in that
     * compiler), which means "not supported", not a failed open. */
    run_child("open", "2024", "NPU_SIM_GRAPH_EXT_VERSION=1.12");
    run_child("open", "2024", NULL);
    run_child("open", "2025", NULL);
    run_child("open", "2026", NULL);
}

/* ---- row 10: the OVNPU tail OpenVINO imports ---- */

static void test_export_writes_a_tail_openvino_reads(void **state)
{
    npu_device *d = NULL;
    npu_device_options dopt;
    npu_model *m;
    npu_blob_info_t bi;
    size_t size = 0;
    unsigned char *blob;
    (void)state;
    tu_init_context();
    tu_ok(npu_device_open(&tu_arena, tu_ctx, NULL, &d), "open");
    m = compile_graph(d, tu_graph_affine(&tu_arena, 1), NULL);
    tu_ok(npu_model_export(m, NULL, 0, &size), "export size");
    blob = (unsigned char *)scratch_buf(size);
    tu_ok(npu_model_export(m, blob, size, &size), "export");
    tu_ok(npu_blob_info(tu_ctx, blob, size, &bi), "blob info");
    assert_int_equal(bi.metadata_version, 0x00020003);
    assert_int_equal(bi.openvino_version[0], NPU_EXPORT_OPENVINO_MAJOR);
    assert_int_equal(bi.openvino_version[1], NPU_EXPORT_OPENVINO_MINOR);
    assert_int_equal(bi.openvino_version[2], NPU_EXPORT_OPENVINO_PATCH);
    assert_int_equal(bi.batch_size, 0);
    /* <= 2.3 layout: fields + size + magic fill whole 4096-byte pages. */
    assert_int_equal((size - bi.blob_size) % 4096, 0);
    npu_model_destroy(m);
    npu_device_close(d);
    /* The version written is the caller's. */
    memset(&dopt, 0, sizeof dopt);
    dopt.export_openvino_version[0] = 2026;
    dopt.export_openvino_version[1] = 1;
    tu_ok(npu_device_open(&tu_arena, tu_ctx, &dopt, &d), "open");
    m = compile_graph(d, tu_graph_affine(&tu_arena, 1), NULL);
    tu_ok(npu_model_export(m, blob, size, &size), "export");
    tu_ok(npu_blob_info(tu_ctx, blob, size, &bi), "blob info");
    assert_int_equal(bi.openvino_version[0], 2026);
    assert_int_equal(bi.openvino_version[1], 1);
    assert_int_equal(bi.openvino_version[2], 0);
    npu_model_destroy(m);
    npu_device_close(d);
}

static void test_dynamic_batch_is_recorded_where_openvino_does_not_look(void **state)
{
    npu_device *d;
    npu_compile_options o;
    npu_model *m, *m2 = NULL;
    npu_model_info mi;
    npu_blob_info_t bi;
    size_t size = 0, at;
    unsigned char *blob;
    uint64_t data_size;
    int64_t batch;
    (void)state;
    tu_init_context();
    d = tu_open();
    memset(&o, 0, sizeof o);
    o.batch_mode = NPU_BATCH_PLUGIN;
    m = compile_graph(d, tu_graph_affine(&tu_arena, NPU_DIM_DYNAMIC), &o);
    tu_ok(npu_model_export(m, NULL, 0, &size), "export size");
    blob = (unsigned char *)scratch_buf(size);
    tu_ok(npu_model_export(m, blob, size, &size), "export");
    /* The raw batchSize field (after version, 3 x u16 version and the init
     * count) is 0, never negative. */
    memcpy(&data_size, blob + size - 13, 8);
    at = (size_t)data_size + 4 + 6 + 8;
    memcpy(&batch, blob + at, 8);
    assert_int_equal(batch, 0);
    /* npu reads its own mark back as a dynamic batch. */
    tu_ok(npu_blob_info(tu_ctx, blob, size, &bi), "blob info");
    assert_int_equal(bi.batch_size, -1);
    tu_ok(npu_model_import(d, &tu_arena, blob, size, NULL, &m2), "import");
    tu_ok(npu_model_get_info(m2, &mi), "info");
    assert_int_equal(mi.original_batch, -1);
    npu_model_destroy(m2);
    npu_model_destroy(m);
}

/* ---- row 11: ReadValue's init input for 2024 compilers ---- */

static void read_value_child(void)
{
    npu_device *d = tu_open();
    npu_model *m = compile_graph(d, tu_graph_accumulator(&tu_arena), NULL);
    npu_request *r = NULL;
    float x[4] = {1, 2, 3, 4}, *y;
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    memcpy(npu_request_input(r, 0), x, sizeof x);
    tu_ok(npu_request_infer(r), "infer 1");
    tu_ok(npu_request_infer(r), "infer 2");
    y = (float *)npu_request_output(r, 0);
    assert_true(y[0] == 2.0f && y[3] == 8.0f);   /* zero initial state + 2 x */
    npu_request_destroy(r);
    npu_model_destroy(m);
}

static void test_read_value_gets_an_init_input_for_2024(void **state)
{
    npu_graph *g;
    npu_payload_options po;
    size_t size = 0;
    char *buf;
    (void)state;
    run_child("read_value", "2024", NULL);
    run_child("read_value", "2026", NULL);
    tu_init_context();
    g = tu_graph_accumulator(&tu_arena);
    memset(&po, 0, sizeof po);
    po.layout = NPU_PAYLOAD_WEIGHTS_COPY;
    po.compiler_version = NPU_COMPILER_VERSION(6, 1);
    tu_ok(npu_graph_write_payload(g, &po, NULL, 0, &size), "size");
    buf = (char *)scratch_buf(size + 1);
    tu_ok(npu_graph_write_payload(g, &po, buf, size, &size), "payload");
    buf[size] = '\0';
    assert_true(has(buf, size, "name=\"rv/init\" type=\"Const\""));
    po.compiler_version = NPU_COMPILER_VERSION(7, 28);
    tu_ok(npu_graph_write_payload(g, &po, NULL, 0, &size), "size");
    tu_ok(npu_graph_write_payload(g, &po, buf, size, &size), "payload");
    assert_false(has(buf, size, "rv/init"));
}

/* ---- issue 13 item 4: names in the build flags ---- */

static void names_child(void)
{
    npu_device *d = tu_open();
    npu_graph *g = NULL;
    npu_shape s = {2, {1, 4}};
    npu_model *m = NULL;
    const char *bad[] = {"a b", "x\"y", "o:U8 p", "a--config", NULL};
    int i;
    /* A compiler before 5.9 identifies I/O by name. */
    for (i = 0; bad[i] != NULL; i++) {
        assert_int_equal(npu_graph_create(&tu_arena, tu_ctx, NULL, &g), NPU_OK);
        npu_graph_result(g, npu_graph_relu(g, npu_graph_parameter(g, "x", NPU_F32, &s, NULL), "r"), bad[i]);
        assert_int_equal(npu_graph_status(g), NPU_OK);
        assert_int_equal(npu_model_compile_graph(d, &tu_arena, g, NULL, &m), NPU_ERR_UNSUPPORTED);
        assert_non_null(strstr(npu_context_last_error(tu_ctx), "identifies inputs and outputs by name"));
    }
    /* A colon is fine: the compiler splits at the last one. */
    assert_int_equal(npu_graph_create(&tu_arena, tu_ctx, NULL, &g), NPU_OK);
    npu_graph_result(g, npu_graph_relu(g, npu_graph_parameter(g, "x", NPU_F32, &s, NULL), "r"), "ok:name");
    tu_log_clear();
    if (npu_model_compile_graph(d, &tu_arena, g, NULL, &m) == NPU_OK) npu_model_destroy(m);
    tu_expect_log("--inputs_precisions=\"x:FP32\"");
}

static void test_names_the_flags_cannot_carry_are_refused(void **state)
{
    (void)state;
    run_child("names", "2024", "NPU_SIM_COMPILER_VERSION=5.8");
}

static const struct {
    const char *name;
    void (*fn)(void);
} children[] = {
    {"serializer_key", serializer_key_child}, {"explicit_b", explicit_b_child},
    {"config_keys", config_keys_child},       {"host_import", host_import_child},
    {"driver_cache", driver_cache_child},     {"open", open_child},
    {"read_value", read_value_child},         {"names", names_child},
};

static void child_test(void **state)
{
    size_t i;
    const char *name = (const char *)*state;
    setup_logged();
    for (i = 0; i < sizeof children / sizeof children[0]; i++)
        if (strcmp(children[i].name, name) == 0) {
            children[i].fn();
            return;
        }
    fail_msg("no child %s", name);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strncmp(argv[1], "--child=", 8) == 0) {
        static char name[64];
        struct CMUnitTest one[1];
        snprintf(name, sizeof name, "%s", argv[1] + 8);
        memset(one, 0, sizeof one);
        one[0].name = name;
        one[0].test_func = child_test;
        one[0].initial_state = name;
        child_mode = 1;
        return _cmocka_run_group_tests(name, one, 1, NULL, NULL) == 0 ? 0 : 1;
    }
    {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_layout_b_sends_the_serializer_key),
            cmocka_unit_test(test_explicit_layout_b_without_the_option),
            cmocka_unit_test(test_rank0_layout_is_star_scalar),
            cmocka_unit_test(test_ir_v10_gets_rt_info_and_layout_a),
            cmocka_unit_test(test_type_overrides_convert_or_are_refused),
            cmocka_unit_test(test_unsupported_config_keys_are_dropped_or_refused),
            cmocka_unit_test(test_host_import_uses_the_memmap_extension),
            cmocka_unit_test(test_layout_b_is_not_served_stale_from_the_driver_cache),
            cmocka_unit_test(test_graph_rt_info_booleans_are_yes),
            cmocka_unit_test(test_device_opens_in_every_profile),
            cmocka_unit_test(test_export_writes_a_tail_openvino_reads),
            cmocka_unit_test(test_dynamic_batch_is_recorded_where_openvino_does_not_look),
            cmocka_unit_test(test_read_value_gets_an_init_input_for_2024),
            cmocka_unit_test(test_names_the_flags_cannot_carry_are_refused),
        };
        (void)child_mode;
        return cmocka_run_group_tests(tests, NULL, NULL);
    }
}
