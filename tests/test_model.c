/* Model: compile (graph builder, IR files, raw payloads, layouts A and B, build
 * options), exact arena sizes, compile errors with the build log, export and
 * import (memory, file, OVNPU tail variants, debatching from the tail's batch
 * size), and the whole flow at graph-extension versions 1.4 ... 1.18 in child
 * processes. */
#include <fcntl.h>
#include <sys/stat.h>
#include <dirent.h>

#include "tests/l0_test_util.h"

static npu_device *dev;
static tu_live base;

static int setup(void **state)
{
    (void)state;
    tu_init_context();
    dev = tu_open();
    base = tu_live_now();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    npu_device_close(dev);
    dev = NULL;
    return 0;
}

/* Runs the affine model (any batch of rows) once and checks the reference. */
static void run_affine(npu_model *m, uint32_t rows, npu_arena *a)
{
    npu_request *r = NULL;
    float x[64], ref[64];
    const float *y;
    uint32_t i;
    assert_true(rows * 4 <= 64);
    tu_ok(npu_request_create(m, a, NULL, &r), "request");
    for (i = 0; i < rows * 4; i++) x[i] = (float)i * 0.75f - 3.0f;
    memcpy(npu_request_input(r, 0), x, rows * 4 * sizeof(float));
    tu_ok(npu_request_infer(r), "infer");
    tu_affine_ref(x, ref, rows);
    y = (const float *)npu_request_output(r, 0);
    for (i = 0; i < rows * 4; i++) assert_float_equal(y[i], ref[i], 1e-6);
    npu_request_destroy(r);
}

static void test_compile_graph_descs(void **state)
{
    npu_graph *g;
    npu_model *m = NULL;
    const npu_tensor_desc *in, *out;
    (void)state;
    g = tu_graph_affine(&tu_arena, 1);
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, NULL, &m), "compile");
    assert_int_equal(npu_model_input_count(m), 1);
    assert_int_equal(npu_model_output_count(m), 1);
    assert_int_equal(npu_model_state_count(m), 0);
    assert_int_equal(npu_model_batch(m), 1);
    in = npu_model_input(m, 0);
    out = npu_model_output(m, 0);
    assert_string_equal(in->name, "x");
    assert_string_equal(out->name, "y");
    assert_int_equal(in->type, NPU_F32);
    assert_int_equal(in->shape.rank, 2);
    assert_int_equal(in->shape.dims[0], 1);
    assert_int_equal(in->shape.dims[1], 4);
    assert_int_equal(in->bytes, 16);
    assert_string_equal(in->layout, "NC");
    assert_null(npu_model_input(m, 1));
    assert_null(npu_model_output(m, 1));
    run_affine(m, 1, &tu_arena);
    npu_model_destroy(m);
    tu_live_expect(&base);
}

static void test_compile_exact_size(void **state)
{
    npu_graph *g;
    npu_model *m = NULL;
    size_t need = 0, mark;
    npu_arena a;
    (void)state;
    g = tu_graph_affine(&tu_arena, 1);
    tu_ok(npu_model_compile_graph_size(dev, g, NULL, &need), "size query");
    assert_true(need >= npu_model_size(2));
    mark = npu_arena_used(&tu_arena);
    /* An arena that starts where the main one is free and holds exactly need. */
    assert_int_equal(npu_arena_init(&a, tu_mem + mark, need), NPU_OK);
    tu_ok(npu_model_compile_graph(dev, &a, g, NULL, &m), "compile in exact arena");
    /* The model keeps less than npu_model_size: its set-up scratch (the
     * driver's argument tables) went back to the arena. */
    assert_int_equal(npu_model_arena_bytes(m), npu_arena_used(&a));
    assert_true(npu_arena_used(&a) < npu_model_size(2));
    assert_true(a.peak >= npu_model_size(2));
    npu_model_destroy(m);
    assert_int_equal(npu_arena_init(&a, tu_mem + mark, need - NPU_ARENA_ALIGN), NPU_OK);
    assert_int_equal(npu_model_compile_graph(dev, &a, g, NULL, &m), NPU_ERR_ARENA_TOO_SMALL);
    assert_null(m);
    assert_int_equal(npu_arena_used(&a), 0);
    tu_live_expect(&base);
    /* A model that is too big for what is left after the payload is rewound. */
    assert_int_equal(npu_arena_init(&a, tu_mem + mark, npu_model_size(2) - NPU_ARENA_ALIGN), NPU_OK);
    assert_int_equal(npu_model_compile_graph(dev, &a, g, NULL, &m), NPU_ERR_ARENA_TOO_SMALL);
    assert_int_equal(npu_arena_used(&a), 0);
    tu_live_expect(&base);
}

static void test_layouts_a_and_b(void **state)
{
    npu_graph *g;
    npu_model *ma = NULL, *mb = NULL;
    npu_compile_options o;
    (void)state;
    g = tu_graph_affine(&tu_arena, 1);
    memset(&o, 0, sizeof o);
    o.payload_layout = NPU_PAYLOAD_WEIGHTS_COPY;
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, &o, &ma), "layout A");
    o.payload_layout = NPU_PAYLOAD_NO_WEIGHTS_COPY;
    o.weights_threshold_bytes = 8;
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, &o, &mb), "layout B");
    run_affine(ma, 1, &tu_arena);
    run_affine(mb, 1, &tu_arena);
    npu_model_destroy(ma);
    npu_model_destroy(mb);
    tu_live_expect(&base);
}

static void test_compile_options(void **state)
{
    npu_graph *g;
    npu_model *m = NULL;
    npu_compile_options o;
    (void)state;
    g = tu_graph_affine(&tu_arena, 1);
    memset(&o, 0, sizeof o);
    o.hint = NPU_HINT_THROUGHPUT;
    o.priority = NPU_PRIORITY_HIGH;   /* the model gets its own high-priority queue */
    o.turbo = 1;
    o.tiles = 2;
    o.optimization_level = 2;
    o.extra_config = "NPU_DMA_ENGINES=\"1\"";
    o.disable_driver_cache = 1;
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, &o, &m), "compile with options");
    {
        tu_live now = tu_live_now();
        assert_int_equal(now.n[NPU_SIM_HANDLE_COMMAND_QUEUE], base.n[NPU_SIM_HANDLE_COMMAND_QUEUE] + 1);
    }
    run_affine(m, 1, &tu_arena);
    npu_model_destroy(m);
    tu_live_expect(&base);
    o.hint = (npu_performance_hint)7;
    assert_int_equal(npu_model_compile_graph(dev, &tu_arena, g, &o, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_string_equal(npu_context_last_error(tu_ctx), "compile options: hint is 7 (0 to 2)");
    o.hint = NPU_HINT_DEFAULT;
    o.optimization_level = -1;
    assert_int_equal(npu_model_compile_graph(dev, &tu_arena, g, &o, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_string_equal(npu_context_last_error(tu_ctx), "compile options: optimization_level is -1 (0 to 3)");
}

static void test_type_override(void **state)
{
    npu_graph *g;
    npu_model *m = NULL;
    npu_request *r = NULL;
    npu_compile_options o;
    const npu_type out_types[1] = {NPU_F16};
    uint16_t *y;
    (void)state;
    g = tu_graph_affine(&tu_arena, 1);
    memset(&o, 0, sizeof o);
    o.output_types = out_types;
    o.n_output_types = 1;
    /* The payload converts (a Convert before the Result; the IR v11 compiler
     * would ignore --outputs_precisions). */
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, &o, &m), "compile with f16 output");
    assert_int_equal(npu_model_output(m, 0)->type, NPU_F16);
    assert_int_equal(npu_model_output(m, 0)->bytes, 8);
    assert_int_equal(npu_model_input(m, 0)->type, NPU_F32);
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    {
        float x[4] = {1.0f, 0.0f, 2.0f, 1.0f}; /* relu(x*w+b) = 1.25, 1, 0, 3 */
        memcpy(npu_request_input(r, 0), x, sizeof x);
    }
    tu_ok(npu_request_infer(r), "infer");
    y = (uint16_t *)npu_request_output(r, 0);
    assert_int_equal(y[0], 0x3d00); /* 1.25 in binary16 */
    assert_int_equal(y[1], 0x3c00);
    assert_int_equal(y[2], 0x0000);
    assert_int_equal(y[3], 0x4200);
    npu_request_destroy(r);
    npu_model_destroy(m);
    tu_live_expect(&base);
}

static void test_compile_payload_and_error_log(void **state)
{
    npu_graph *g;
    npu_model *m = NULL;
    npu_payload_options po;
    npu_device_properties p;
    static _Alignas(16) unsigned char payload[1 << 16];
    size_t size = 0;
    (void)state;
    tu_ok(npu_device_get_properties(dev, &p), "props");
    g = tu_graph_affine(&tu_arena, 1);
    memset(&po, 0, sizeof po);
    po.layout = NPU_PAYLOAD_WEIGHTS_COPY;
    po.compiler_version = p.compiler_version;
    tu_ok(npu_graph_write_payload(g, &po, payload, sizeof payload, &size), "payload");
    tu_ok(npu_model_compile_payload(dev, &tu_arena, payload, size, NULL, &m), "compile payload");
    run_affine(m, 1, &tu_arena);
    npu_model_destroy(m);
    /* Wrong compiler version stamp: the compiler refuses, the log says why. */
    po.compiler_version = NPU_COMPILER_VERSION(1, 1);
    tu_ok(npu_graph_write_payload(g, &po, payload, sizeof payload, &size), "payload");
    assert_int_equal(npu_model_compile_payload(dev, &tu_arena, payload, size, NULL, &m), NPU_ERR_COMPILE);
    assert_null(m);
    assert_true(strstr(npu_context_last_error(tu_ctx), "build log") != NULL);
    assert_true(strstr(npu_context_last_error(tu_ctx), "version") != NULL);
    /* Garbage. */
    memset(payload, 0x5a, 256);
    assert_int_equal(npu_model_compile_payload(dev, &tu_arena, payload, 256, NULL, &m), NPU_ERR_COMPILE);
    /* The compiler's own words (the version check of its deserializer). */
    assert_true(strstr(npu_context_last_error(tu_ctx), "compile: ") != NULL);
    tu_live_expect(&base);
}

static void test_compile_bad_op_log(void **state)
{
    static const char xml[] =
        "<?xml version=\"1.0\"?>\n<net name=\"bad\" version=\"11\"><layers>"
        "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data shape=\"1,4\" element_type=\"f32\"/>"
        "<output><port id=\"0\" precision=\"FP32\" names=\"x\"><dim>1</dim><dim>4</dim></port></output></layer>"
        "<layer id=\"1\" name=\"weird\" type=\"FrobnicateXYZ\" version=\"opset1\"><input><port id=\"0\">"
        "<dim>1</dim><dim>4</dim></port></input><output><port id=\"1\" precision=\"FP32\"><dim>1</dim><dim>4</dim>"
        "</port></output></layer>"
        "<layer id=\"2\" name=\"y\" type=\"Result\" version=\"opset1\"><input><port id=\"0\"><dim>1</dim><dim>4</dim>"
        "</port></input></layer></layers><edges><edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/>"
        "<edge from-layer=\"1\" from-port=\"1\" to-layer=\"2\" to-port=\"0\"/></edges>"
        /* as OpenVINO writes it: without these the 2024 compiler matches the
         * build flags' I/O by name */
        "<rt_info><is_new_api value=\"YES\"/><use_indices_for_io_metadata value=\"YES\"/></rt_info></net>\n";
    npu_device_properties p;
    static _Alignas(16) unsigned char payload[8192];
    size_t n = strlen(xml);
    npu_model *m = NULL;
    (void)state;
    tu_ok(npu_device_get_properties(dev, &p), "props");
    /* Layout A by hand: version, 2 sections, xml size, xml, weights size 0. */
    payload[0] = (unsigned char)(p.compiler_version >> 16);
    payload[1] = 0;
    payload[2] = (unsigned char)(p.compiler_version & 0xff);
    payload[3] = 0;
    payload[4] = 2;
    memset(payload + 5, 0, 3);
    memcpy(payload + 8, &(uint64_t){n}, 8);
    memcpy(payload + 16, xml, n);
    memset(payload + 16 + n, 0, 8);
    assert_int_equal(npu_model_compile_payload(dev, &tu_arena, payload, 24 + n, NULL, &m), NPU_ERR_COMPILE);
    assert_true(strstr(npu_context_last_error(tu_ctx), "FrobnicateXYZ") != NULL);
    tu_live_expect(&base);
}

static void test_source_layout_kept(void **state)
{
    npu_graph *g = NULL;
    npu_model *m = NULL;
    npu_shape s = {4, {1, 2, 2, 3}};
    (void)state;
    assert_int_equal(npu_graph_create(&tu_arena, tu_ctx, NULL, &g), NPU_OK);
    npu_graph_result(g, npu_graph_relu(g, npu_graph_parameter(g, "img", NPU_F32, &s, "NHWC"), NULL), "out");
    tu_ok(npu_graph_status(g), "graph");
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, NULL, &m), "compile");
    /* The compiler is told NCHW by rank (as OpenVINO does); the caller sees the
     * layout the model declares. */
    assert_string_equal(npu_model_input(m, 0)->layout, "NHWC");
    assert_int_equal(npu_model_input(m, 0)->bytes, 48);
    npu_model_destroy(m);
    tu_live_expect(&base);
}

/* ---- IR ---- */

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void test_compile_ir_from_builder_files(void **state)
{
    static char xml[1 << 16];
    static unsigned char bin[4096];
    char dir[] = "/tmp/npu3_irXXXXXX", xp[256], bp[256];
    npu_payload_options po;
    npu_graph *g;
    npu_ir *ir = NULL;
    npu_model *m = NULL;
    size_t need = 0, xn = 0, bn = 0, mark;
    npu_arena a;
    (void)state;
    g = tu_graph_affine(&tu_arena, 1);
    memset(&po, 0, sizeof po);
    po.layout = NPU_PAYLOAD_WEIGHTS_COPY;
    tu_ok(npu_graph_write_xml(g, &po, xml, sizeof xml, &xn), "xml");
    tu_ok(npu_graph_write_bin(g, bin, sizeof bin, &bn), "bin");
    assert_non_null(mkdtemp(dir));
    snprintf(xp, sizeof xp, "%s/model.xml", dir);
    snprintf(bp, sizeof bp, "%s/model.bin", dir);
    write_file(xp, xml, xn);
    write_file(bp, bin, bn);
    tu_ok(npu_ir_open(&tu_arena, tu_ctx, xp, NULL, &ir), "ir open");
    tu_ok(npu_model_compile_ir_size(dev, ir, NULL, &need), "ir size");
    /* An exact arena at the end of the test memory (requests use the front). */
    mark = TU_ARENA_BYTES - need;
    assert_int_equal(npu_arena_init(&a, tu_mem + mark, need), NPU_OK);
    tu_ok(npu_model_compile_ir(dev, &a, ir, NULL, &m), "compile ir (exact arena)");
    npu_ir_close(ir);
    assert_string_equal(npu_model_input(m, 0)->name, "x");
    run_affine(m, 1, &tu_arena);
    npu_model_destroy(m);
    unlink(xp);
    unlink(bp);
    rmdir(dir);
    tu_live_expect(&base);
}

static void test_compile_ir_shared_data(void **state)
{
    const char *root = getenv("NPU_SHARED_DATA");
    char path[1024];
    npu_ir *ir = NULL;
    npu_model *m = NULL;
    npu_request *r = NULL;
    uint32_t ia, ib, ic, iy;
    (void)state;
    if (root == NULL) root = "../shared/data";
    snprintf(path, sizeof path, "%s/ovir/add_abc.xml", root);
    if (access(path, R_OK) != 0) {
        print_message("skipped: %s not found: the shared IR corpus (../shared/data in CI, or NPU_SHARED_DATA)\n", path);
        skip();
        return;
    }
    tu_ok(npu_ir_open(&tu_arena, tu_ctx, path, NULL, &ir), "ir open");
    tu_ok(npu_model_compile_ir(dev, &tu_arena, ir, NULL, &m), "compile add_abc");
    npu_ir_close(ir);
    assert_int_equal(npu_model_input_count(m), 3);
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    tu_ok(npu_request_find_input(r, "A", &ia), "A");
    tu_ok(npu_request_find_input(r, "B", &ib), "B");
    tu_ok(npu_request_find_input(r, "C", &ic), "C");
    tu_ok(npu_request_find_output(r, "Y", &iy), "Y");
    *(float *)npu_request_input(r, ia) = 1.5f;
    *(float *)npu_request_input(r, ib) = 2.25f;
    *(float *)npu_request_input(r, ic) = -0.5f;
    tu_ok(npu_request_infer(r), "infer");
    assert_float_equal(*(float *)npu_request_output(r, iy), 3.25f, 1e-6);
    npu_request_destroy(r);
    npu_model_destroy(m);
    tu_live_expect(&base);
}

/* ---- export / import ---- */

static size_t export_blob(npu_model *m, unsigned char **out)
{
    size_t size = 0, size2 = 0;
    tu_ok(npu_model_export(m, NULL, 0, &size), "export size");
    *out = (unsigned char *)aligned_alloc(4096, (size + 4095) / 4096 * 4096 + 4096);
    assert_non_null(*out);
    assert_int_equal(npu_model_export(m, *out, size - 1, &size2), NPU_ERR_BUFFER_TOO_SMALL);
    tu_ok(npu_model_export(m, *out, size, &size2), "export");
    assert_int_equal(size, size2);
    return size;
}

static void test_export_import_memory(void **state)
{
    npu_graph *g;
    npu_model *m = NULL, *m2 = NULL;
    npu_import_options io;
    unsigned char *blob = NULL;
    size_t size;
    (void)state;
    g = tu_graph_affine(&tu_arena, 1);
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, NULL, &m), "compile");
    size = export_blob(m, &blob);
    assert_memory_equal(blob + size - 5, "OVNPU", 5);
    npu_model_destroy(m);
    tu_ok(npu_model_import(dev, &tu_arena, blob, size, NULL, &m2), "import");
    assert_string_equal(npu_model_input(m2, 0)->name, "x");
    assert_string_equal(npu_model_input(m2, 0)->layout, "NC");
    run_affine(m2, 1, &tu_arena);
    npu_model_destroy(m2);
    /* Persistent import (caller keeps the page-aligned blob alive). */
    memset(&io, 0, sizeof io);
    io.blob_persistent = 1;
    io.priority = NPU_PRIORITY_LOW;
    tu_ok(npu_model_import(dev, &tu_arena, blob, size, &io, &m2), "persistent import");
    run_affine(m2, 1, &tu_arena);
    npu_model_destroy(m2);
    free(blob);
    tu_live_expect(&base);
}

static int count_tmp_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".tmp.") != NULL) n++;
    closedir(d);
    return n;
}

static void test_export_import_file(void **state)
{
    char dir[] = "/tmp/npu3_expXXXXXX", path[256], bad[256];
    npu_graph *g;
    npu_model *m = NULL, *m2 = NULL;
    unsigned char *blob = NULL, *file = NULL;
    size_t size;
    FILE *f;
    long fsz;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/model.blob", dir);
    g = tu_graph_affine(&tu_arena, 1);
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, NULL, &m), "compile");
    write_file(path, "old", 3);
    tu_ok(npu_model_export_file(m, path), "export file");
    size = export_blob(m, &blob);
    f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    fsz = ftell(f);
    fseek(f, 0, SEEK_SET);
    assert_int_equal((size_t)fsz, size);
    file = (unsigned char *)malloc(size);
    assert_int_equal(fread(file, 1, size, f), size);
    fclose(f);
    assert_memory_equal(file, blob, size);
    assert_int_equal(count_tmp_files(dir), 0);
    /* A path in a missing directory: NPU_ERR_IO naming it, nothing left behind. */
    snprintf(bad, sizeof bad, "%s/missing/model.blob", dir);
    assert_int_equal(npu_model_export_file(m, bad), NPU_ERR_IO);
    assert_true(strstr(npu_context_last_error(tu_ctx), "missing") != NULL);
    assert_int_equal(count_tmp_files(dir), 0);
    npu_model_destroy(m);
    tu_ok(npu_model_import_file(dev, &tu_arena, path, NULL, &m2), "import file");
    run_affine(m2, 1, &tu_arena);
    npu_model_destroy(m2);
    assert_int_equal(npu_model_import_file(dev, &tu_arena, bad, NULL, &m2), NPU_ERR_IO);
    assert_true(strstr(npu_context_last_error(tu_ctx), bad) != NULL);
    unlink(path);
    rmdir(dir);
    free(blob);
    free(file);
    tu_live_expect(&base);
}

/* Hand-written OVNPU tails (ze-graph-ext.md section 4). */
typedef struct tail_spec {
    uint32_t minor;
    int pad_before;   /* pad the blob to 4096 before the fields */
    int pad_after;    /* <= 2.3 style: zeros after the fields to a 4096 multiple */
    int64_t batch;
    const char *in_layout, *out_layout;
} tail_spec;

static size_t put(unsigned char *p, size_t at, uint64_t v, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++) p[at + i] = (unsigned char)(v >> (8 * i));
    return at + n;
}

static size_t make_tail(unsigned char *dst, const unsigned char *blob, size_t bsize, const tail_spec *t)
{
    size_t at = bsize, data, fields_start;
    memcpy(dst, blob, bsize);
    if (t->pad_before)
        while (at % 4096) dst[at++] = 0;
    data = at;
    fields_start = at;
    at = put(dst, at, (2u << 16) | t->minor, 4);
    at = put(dst, at, 2025, 2);
    at = put(dst, at, 1, 2);
    at = put(dst, at, 0, 2);
    if (t->minor >= 1) at = put(dst, at, 0, 8);
    if (t->minor >= 2) at = put(dst, at, (uint64_t)t->batch, 8);
    if (t->minor >= 3) {
        at = put(dst, at, 1, 8);
        at = put(dst, at, 1, 8);
        at = put(dst, at, strlen(t->in_layout), 2);
        memcpy(dst + at, t->in_layout, strlen(t->in_layout));
        at += strlen(t->in_layout);
        at = put(dst, at, strlen(t->out_layout), 2);
        memcpy(dst + at, t->out_layout, strlen(t->out_layout));
        at += strlen(t->out_layout);
    }
    if (t->minor >= 4) at = put(dst, at, (7u << 16) | 6u, 4);
    if (t->minor >= 5) at = put(dst, at, 0, 1);
    if (t->minor >= 6) at = put(dst, at, 0, 8);
    if (t->minor >= 7) at = put(dst, at, 0, 1);
    if (t->pad_after)
        while ((at - fields_start + 13) % 4096) dst[at++] = 0;
    at = put(dst, at, data, 8);
    memcpy(dst + at, "OVNPU", 5);
    return at + 5;
}

static size_t native_blob(npu_model *m, unsigned char **out)
{
    size_t size = export_blob(m, out), bsize;
    uint64_t data = 0;
    unsigned i;
    for (i = 0; i < 8; i++) data |= (uint64_t)(*out)[size - 13 + i] << (8 * i);
    bsize = (size_t)data;
    /* The ELF without padding: the sim's blob; trailing zeros are harmless. */
    return bsize;
}

static void test_import_tail_variants(void **state)
{
    static const tail_spec specs[] = {
        {0, 0, 0, 0, "", ""},   {0, 1, 1, 0, "", ""},   {3, 1, 1, 0, "NC", "NC"},
        {3, 0, 0, 0, "NC", "NC"}, {7, 1, 0, 0, "NC", "NC"}, {7, 0, 0, 1, "NC", "NC"},
    };
    npu_graph *g;
    npu_model *m = NULL, *m2 = NULL;
    unsigned char *blob = NULL, *buf;
    size_t bsize, n, i;
    (void)state;
    g = tu_graph_affine(&tu_arena, 1);
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, NULL, &m), "compile");
    bsize = native_blob(m, &blob);
    npu_model_destroy(m);
    buf = (unsigned char *)calloc(1, bsize + 3 * 4096);
    /* Raw blob, no tail. */
    tu_ok(npu_model_import(dev, &tu_arena, blob, bsize, NULL, &m2), "raw blob");
    run_affine(m2, 1, &tu_arena);
    npu_model_destroy(m2);
    for (i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        n = make_tail(buf, blob, bsize, &specs[i]);
        if (npu_model_import(dev, &tu_arena, buf, n, NULL, &m2) != NPU_OK)
            fail_msg("tail variant %zu (2.%u): %s", i, specs[i].minor, npu_context_last_error(tu_ctx));
        assert_int_equal(npu_model_batch(m2), 1);
        run_affine(m2, 1, &tu_arena);
        npu_model_destroy(m2);
    }
    /* Corrupt: unknown major version. */
    n = make_tail(buf, blob, bsize, &specs[4]);
    buf[bsize + (4096 - bsize % 4096) % 4096 + 2] = 9;
    assert_int_equal(npu_model_import(dev, &tu_arena, buf, n, NULL, &m2), NPU_ERR_FORMAT);
    /* Corrupt: blobDataSize beyond the data. */
    n = make_tail(buf, blob, bsize, &specs[4]);
    put(buf, n - 13, (uint64_t)n * 2, 8);
    assert_int_equal(npu_model_import(dev, &tu_arena, buf, n, NULL, &m2), NPU_ERR_FORMAT);
    /* Not an ELF at all. */
    memset(buf, 0x11, 4096);
    assert_int_equal(npu_model_import(dev, &tu_arena, buf, 4096, NULL, &m2), NPU_ERR_FORMAT);
    assert_null(m2);
    free(buf);
    free(blob);
    tu_live_expect(&base);
}

/* A batch-1 blob whose metadata says batch 4: the runtime debatches into four
 * command lists submitted together; the user buffers hold four rows. */
static void test_import_debatched(void **state)
{
    static const tail_spec spec = {3, 1, 0, 4, "NC", "NC"};
    npu_graph *g;
    npu_model *m = NULL, *m2 = NULL;
    unsigned char *blob = NULL, *buf, *again = NULL;
    size_t bsize, n, n2;
    npu_sim_test_ext_t *sim = tu_sim();
    (void)state;
    g = tu_graph_affine(&tu_arena, 1);
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, NULL, &m), "compile");
    bsize = native_blob(m, &blob);
    npu_model_destroy(m);
    buf = (unsigned char *)calloc(1, bsize + 3 * 4096);
    n = make_tail(buf, blob, bsize, &spec);
    tu_ok(npu_model_import(dev, &tu_arena, buf, n, NULL, &m2), "import batch 4");
    assert_int_equal(npu_model_batch(m2), 4);
    assert_int_equal(npu_model_input(m2, 0)->shape.dims[0], 4);
    assert_int_equal(npu_model_input(m2, 0)->bytes, 64);
    assert_int_equal(npu_model_output(m2, 0)->shape.dims[0], 4);
    sim->pfnResetCounters();
    run_affine(m2, 4, &tu_arena);
    assert_int_equal(sim->pfnGetSubmitCount(), 1);
    assert_int_equal(sim->pfnGetSubmittedListCount(), 4);
    assert_int_equal(sim->pfnGetGraphExecuteCount(), 4);
    /* Export keeps the batch in the metadata: a round trip debatches again. */
    n2 = export_blob(m2, &again);
    npu_model_destroy(m2);
    tu_ok(npu_model_import(dev, &tu_arena, again, n2, NULL, &m2), "re-import");
    assert_int_equal(npu_model_batch(m2), 4);
    run_affine(m2, 4, &tu_arena);
    npu_model_destroy(m2);
    free(again);
    free(buf);
    free(blob);
    tu_live_expect(&base);
}

/* ---- the whole flow at one graph-extension version (child process) ---- */

static int child_flow(void)
{
    npu_graph *g, *ga;
    npu_model *m = NULL, *m2 = NULL, *ms = NULL;
    npu_request *r = NULL;
    npu_device_properties p;
    unsigned char *blob = NULL;
    size_t size = 0;
    float x[4] = {1, 2, 3, 4}, acc[4] = {0, 0, 0, 0};
    int k, i;
    tu_init_context();
    dev = tu_open();
    base = tu_live_now();
    tu_ok(npu_device_get_properties(dev, &p), "props");
    fprintf(stderr, "child: graph ext %u.%u, layout %s\n", p.graph_ext_version >> 16, p.graph_ext_version & 0xffff,
            p.no_weights_copy ? "B" : "A");
    g = tu_graph_affine(&tu_arena, 1);
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, NULL, &m), "compile");
    run_affine(m, 1, &tu_arena);
    tu_ok(npu_model_export(m, NULL, 0, &size), "export size");
    blob = (unsigned char *)malloc(size);
    tu_ok(npu_model_export(m, blob, size, &size), "export");
    npu_model_destroy(m);
    tu_ok(npu_model_import(dev, &tu_arena, blob, size, NULL, &m2), "import");
    run_affine(m2, 1, &tu_arena);
    npu_model_destroy(m2);
    free(blob);
    /* States. */
    ga = tu_graph_accumulator(&tu_arena);
    tu_ok(npu_model_compile_graph(dev, &tu_arena, ga, NULL, &ms), "compile accumulator");
    tu_ok(npu_request_create(ms, &tu_arena, NULL, &r), "request");
    for (k = 0; k < 3; k++) {
        memcpy(npu_request_input(r, 0), x, sizeof x);
        tu_ok(npu_request_infer(r), "infer");
        for (i = 0; i < 4; i++) {
            acc[i] += x[i];
            if (((float *)npu_request_output(r, 0))[i] != acc[i]) fail_msg("state carry at step %d", k);
        }
    }
    npu_request_destroy(r);
    npu_model_destroy(ms);
    tu_live_expect(&base);
    npu_device_close(dev);
    return 0;
}

/* npu_model_import_size is the exact capacity an import needs: the import
 * succeeds in exactly that, fails cleanly in one alignment unit less, and the
 * query itself takes no arena and leaves no driver object. For a plain blob,
 * a debatched one (metadata batch 4) and one with a state (4 arguments). */
static void import_size_case(const unsigned char *blob, size_t size, uint32_t n_args, const char *what)
{
    tu_live live0 = tu_live_now();
    size_t need = 0, fneed = 0, mark = npu_arena_used(&tu_arena);
    npu_model *m = NULL;
    npu_arena a;
    char path[64];
    FILE *f;
    tu_ok(npu_model_import_size(dev, blob, size, NULL, &need), what);
    assert_int_equal(npu_arena_used(&tu_arena), mark);
    tu_live_expect(&live0);
    assert_int_equal(need, npu_model_size(n_args));
    assert_int_equal(npu_arena_init(&a, tu_mem + mark, need), NPU_OK);
    tu_ok(npu_model_import(dev, &a, blob, size, NULL, &m), what);
    assert_int_equal(a.peak, need);
    assert_int_equal(npu_model_arena_bytes(m), npu_arena_used(&a));
    npu_model_destroy(m);
    m = NULL;
    assert_int_equal(npu_arena_init(&a, tu_mem + mark, need - NPU_ARENA_ALIGN), NPU_OK);
    assert_int_equal(npu_model_import(dev, &a, blob, size, NULL, &m), NPU_ERR_ARENA_TOO_SMALL);
    assert_null(m);
    assert_int_equal(npu_arena_used(&a), 0);
    tu_live_expect(&live0);
    /* the file variant agrees */
    snprintf(path, sizeof path, "/tmp/npu-import-size-%ld.blob", (long)getpid());
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(blob, 1, size, f), size);
    fclose(f);
    tu_ok(npu_model_import_file_size(dev, path, NULL, &fneed), what);
    assert_int_equal(fneed, need);
    unlink(path);
    tu_live_expect(&live0);
}

static void test_import_size_is_exact(void **state)
{
    static const tail_spec spec = {3, 1, 0, 4, "NC", "NC"};
    npu_graph *g;
    npu_model *m = NULL;
    unsigned char *blob = NULL, *buf;
    size_t bsize, n, need = 7;
    (void)state;
    g = tu_graph_affine(&tu_arena, 1);
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, NULL, &m), "compile");
    bsize = native_blob(m, &blob);
    npu_model_destroy(m);
    import_size_case(blob, bsize, 2, "plain blob");
    buf = (unsigned char *)calloc(1, bsize + 3 * 4096);
    n = make_tail(buf, blob, bsize, &spec);
    import_size_case(buf, n, 2, "blob with metadata batch 4");
    free(buf);
    free(blob);
    blob = NULL;
    g = tu_graph_accumulator(&tu_arena);
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, NULL, &m), "compile state graph");
    bsize = native_blob(m, &blob);
    npu_model_destroy(m);
    import_size_case(blob, bsize, 4, "blob with a state");
    /* Bad input: the errors of an import, and *bytes is 0. */
    memset(blob, 0x5a, 64);
    assert_int_equal(npu_model_import_size(dev, blob, bsize, NULL, &need), NPU_ERR_FORMAT);
    assert_int_equal(need, 0);
    assert_int_equal(npu_model_import_size(dev, NULL, bsize, NULL, &need), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_model_import_size(dev, blob, 0, NULL, &need), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_model_import_file_size(dev, "/nonexistent/model.blob", NULL, &need), NPU_ERR_IO);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "/nonexistent/model.blob"));
    free(blob);
}

/* Options whose reserved words are not zero are refused before anything is
 * done (npu.h "ABI"): compile, import and request options. */
static void test_reserved_option_words_are_refused(void **state)
{
    npu_compile_options co;
    npu_import_options io;
    npu_graph *g;
    npu_model *m = NULL;
    size_t need = 0;
    unsigned char blob[64] = {0};
    (void)state;
    g = tu_graph_affine(&tu_arena, 1);
    memset(&co, 0, sizeof co);
    co.reserved[0] = 1;
    assert_int_equal(npu_model_compile_graph(dev, &tu_arena, g, &co, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_null(m);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "compile options: reserved[0]"));
    assert_int_equal(npu_model_compile_graph_size(dev, g, &co, &need), NPU_ERR_INVALID_ARGUMENT);
    memset(&io, 0, sizeof io);
    io.reserved[3] = 9;
    assert_int_equal(npu_model_import(dev, &tu_arena, blob, sizeof blob, &io, &m), NPU_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "import options: reserved[3]"));
    assert_int_equal(npu_model_import_size(dev, blob, sizeof blob, &io, &need), NPU_ERR_INVALID_ARGUMENT);
}

static void test_versions_children(void **state)
{
    static const char *const versions[] = {"1.4", "1.5", "1.8", "1.13", "1.16", "1.18"};
    char ev[64];
    size_t i;
    (void)state;
    for (i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        const char *env[3] = {ev, NULL, NULL};
        snprintf(ev, sizeof ev, "NPU_SIM_GRAPH_EXT_VERSION=%s", versions[i]);
        if (tu_rerun("--child-flow", env) != 0) fail_msg("flow failed at graph extension %s", versions[i]);
        env[1] = "NPU_SIM_NO_WEIGHTS_COPY=0";
        if (tu_rerun("--child-flow", env) != 0) fail_msg("flow failed at %s with layout A", versions[i]);
    }
}

static void test_old_compiler_by_name(void **state)
{
    static const char *const env[] = {"NPU_SIM_COMPILER_VERSION=5.8", NULL};
    (void)state;
    assert_int_equal(tu_rerun("--child-flow", env), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_compile_graph_descs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compile_exact_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_layouts_a_and_b, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compile_options, setup, teardown),
        cmocka_unit_test_setup_teardown(test_type_override, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compile_payload_and_error_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compile_bad_op_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_source_layout_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compile_ir_from_builder_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compile_ir_shared_data, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_import_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_import_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import_tail_variants, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import_debatched, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import_size_is_exact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reserved_option_words_are_refused, setup, teardown),
        cmocka_unit_test(test_versions_children),
        cmocka_unit_test(test_old_compiler_by_name),
    };
    if (argc > 1 && strcmp(argv[1], "--child-flow") == 0) return child_flow();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
