/* IR loader against the real OpenVINO IR corpus ($NPU_SHARED_DATA/ovir, see its
 * INDEX.md): every file loads with a zero-filled .bin of the size INDEX.md gives
 * (or its real .bin), and both payload layouts are well-formed; the two
 * deliberately malformed files are refused. Skips when the corpus is absent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <dirent.h>
#include <cmocka.h>

#include "npu.h"
#include "irload_util.h"

/* npu_ir_size's scratch (NPU_IR_SIZE_SCRATCH: the XML walker's state). */
static npu_arena *ir_size_scratch(void)
{
    static _Alignas(16) unsigned char mem[NPU_IR_SIZE_SCRATCH];
    static npu_arena a;
    npu_arena_init(&a, mem, sizeof mem);
    return &a;
}

static _Alignas(16) unsigned char ctx_mem[8192];
static _Alignas(16) unsigned char arena_mem[1u << 20];
static npu_context *ctx;
static char dir[512];

static int setup(void **state)
{
    npu_arena ca;
    const char *shared = getenv("NPU_SHARED_DATA");
    (void)state;
    assert_int_equal(npu_arena_init(&ca, ctx_mem, sizeof ctx_mem), NPU_OK);
    assert_int_equal(npu_context_create(&ca, NULL, &ctx), NPU_OK);
    if (shared) snprintf(dir, sizeof dir, "%s/ovir", shared);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    irl_tmp_cleanup();
    return 0;
}

/* "bin bytes" of INDEX.md for `xml`, or -1. */
static long index_bin_bytes(const char *xml)
{
    char path[600], line[4096], key[300];
    FILE *f;
    long r = -1;
    snprintf(path, sizeof path, "%s/INDEX.md", dir);
    snprintf(key, sizeof key, "| %s", xml);
    f = fopen(path, "r");
    if (f == NULL) return -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, strlen(key)) == 0) {
            /* fifth column */
            char *p = line;
            int col;
            for (col = 0; col < 4 && p; col++) p = strchr(p + 1, '|');
            if (p) r = strtol(p + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return r;
}

static const char *bin_for(const char *xml, long size, char *buf, size_t cap)
{
    char real[600], name[300];
    FILE *f;
    snprintf(real, sizeof real, "%s/%.*s.bin", dir, (int)(strlen(xml) - 4), xml);
    f = fopen(real, "rb");
    if (f) {
        fclose(f);
        snprintf(buf, cap, "%s", real);
        return buf;
    }
    snprintf(name, sizeof name, "%s.bin", xml);
    snprintf(buf, cap, "%s/%s", irl_tmp(), name);
    f = fopen(buf, "wb");
    assert_non_null(f);
    if (size > 0) assert_int_equal(ftruncate(fileno(f), size), 0);
    fclose(f);
    return buf;
}

static void check_payloads(npu_ir *ir, const char *xml)
{
    npu_payload_layout layouts[2] = {NPU_PAYLOAD_WEIGHTS_COPY, NPU_PAYLOAD_NO_WEIGHTS_COPY};
    int i;
    for (i = 0; i < 2; i++) {
        npu_payload_options o = {.layout = layouts[i], .weights_threshold_bytes = 0, .compiler_version = NPU_COMPILER_VERSION(7, 4)};
        size_t n = 0, m = 0, xoff, xlen;
        unsigned char *p;
        xmlDoc *doc;
        assert_int_equal(npu_ir_write_payload(ir, &o, NULL, 0, &n), NPU_OK);
        p = (unsigned char *)malloc(n);
        assert_int_equal(npu_ir_write_payload(ir, &o, p, n, &m), NPU_OK);
        assert_int_equal(m, n);
        if (i == 0) {
            xoff = 16;
            xlen = (size_t)irl_le(p + 8, 8);
        } else {
            xoff = (size_t)irl_le(p + 32, 8);
            xlen = (size_t)irl_le(p + 40, 8);
        }
        assert_true(xoff + xlen <= n);
        doc = xmlReadMemory((const char *)p + xoff, (int)xlen, xml, NULL,
                            XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_NOERROR);
        if (doc == NULL) fail_msg("%s: payload %d XML is not well-formed", xml, i);
        if (i == 1) {   /* every Const got exactly one pointer */
            xmlNode *layers[256];
            int k = irl_collect_consts(xmlDocGetRootElement(doc), layers, 256, 0), j;
            assert_int_equal(k, (int)npu_ir_const_count(ir));
            for (j = 0; j < k; j++) {
                xmlNode *rt = irl_child(layers[j], "rt_info"), *a;
                int found = 0;
                for (a = rt ? rt->children : NULL; a; a = a->next)
                    if (a->type == XML_ELEMENT_NODE && irl_attr_is(a, "name", "WeightsPointerAttribute")) {
                        const npu_ir_const *c = npu_ir_const_at(ir, (uint32_t)j);
                        assert_int_equal(irl_attr_u64(a, "ms"), c->size);
                        assert_int_equal(irl_attr_u64(a, "mp"), (uint64_t)(uintptr_t)c->data);
                        found++;
                    }
                assert_int_equal(found, 1);
            }
        }
        xmlFreeDoc(doc);
        free(p);
    }
}

static void test_every_corpus_file_loads_or_is_refused_as_documented(void **state)
{
    DIR *d;
    struct dirent *e;
    int loaded = 0, refused = 0;
    (void)state;
    if (dir[0] == '\0' || (d = opendir(dir)) == NULL) {
        if (dir[0] == '\0') print_message("skipped: NPU_SHARED_DATA is not set: it names the shared IR corpus (../shared/data in CI)\n");
        else print_message("skipped: %s not found: the shared IR corpus (../shared/data in CI, or NPU_SHARED_DATA)\n", dir);
        skip();
        return;
    }
    while ((e = readdir(d)) != NULL) {
        char xp[600], bp[600];
        size_t n = strlen(e->d_name), need = 0;
        long bin;
        npu_arena a;
        npu_ir *ir = NULL;
        npu_status st;
        if (n < 5 || strcmp(e->d_name + n - 4, ".xml") != 0) continue;
        if (snprintf(xp, sizeof xp, "%s/%s", dir, e->d_name) >= (int)sizeof xp) fail_msg("path too long: %s", e->d_name);
        bin = index_bin_bytes(e->d_name);
        if (bin < 0) fail_msg("%s is not in INDEX.md", e->d_name);
        bin_for(e->d_name, bin, bp, sizeof bp);
        assert_int_equal(npu_arena_init(&a, arena_mem, sizeof arena_mem), NPU_OK);
        st = npu_ir_size_file(ir_size_scratch(), ctx, xp, &need);
        if (strcmp(e->d_name, "irfe_transpose_wrong_const_size.xml") == 0) {
            assert_int_equal(st, NPU_ERR_PARSE);
            assert_int_equal(npu_ir_open(&a, ctx, xp, bp, &ir), NPU_ERR_PARSE);
            assert_non_null(strstr(npu_context_last_error(ctx), "line 16"));
            assert_non_null(strstr(npu_context_last_error(ctx), "size 16 does not match its shape [4] of i64 (32 bytes)"));
            refused++;
            continue;
        }
        if (st != NPU_OK) fail_msg("%s: size query: %s", e->d_name, npu_context_last_error(ctx));
        st = npu_ir_open(&a, ctx, xp, bp, &ir);
        if (st != NPU_OK) fail_msg("%s: %s", e->d_name, npu_context_last_error(ctx));
        assert_true(a.peak == need);
        check_payloads(ir, e->d_name);
        npu_ir_close(ir);
        loaded++;
        if (strcmp(e->d_name, "irfe_transpose_underallocated_weights.xml") == 0) {
            /* the upstream negative test: a .bin shorter than the Const */
            char sp[600];
            FILE *f;
            snprintf(sp, sizeof sp, "%s/short.bin", irl_tmp());
            f = fopen(sp, "wb");
            fwrite("0123456789abcdef", 1, 16, f);
            fclose(f);
            assert_int_equal(npu_ir_open(&a, ctx, xp, sp, &ir), NPU_ERR_FORMAT);
            assert_non_null(strstr(npu_context_last_error(ctx), "line "));
            assert_non_null(strstr(npu_context_last_error(ctx), "beyond the end of the weights (16 bytes)"));
            refused++;
        }
    }
    closedir(d);
    assert_int_equal(refused, 2);
    assert_true(loaded >= 30);
}

static void test_corpus_details(void **state)
{
    char xp[600], bp[600];
    npu_arena a;
    npu_ir *ir;
    (void)state;
    snprintf(xp, sizeof xp, "%s/omz_emotions_recognition_retail_0003_fp16.xml", dir);
    if (dir[0] == '\0' || access(xp, R_OK) != 0) {
        if (dir[0] == '\0') print_message("skipped: NPU_SHARED_DATA is not set: it names the shared IR corpus (../shared/data in CI)\n");
        else print_message("skipped: %s not found: the shared IR corpus (../shared/data in CI, or NPU_SHARED_DATA)\n", xp);
        skip();
        return;
    }
    assert_int_equal(npu_arena_init(&a, arena_mem, sizeof arena_mem), NPU_OK);
    assert_int_equal(npu_ir_open(&a, ctx, xp, bin_for("omz_emotions_recognition_retail_0003_fp16.xml", 4965014, bp, sizeof bp), &ir), NPU_OK);
    assert_string_equal(npu_ir_input(ir, 0)->desc.layout, "NCHW");
    assert_int_equal(npu_ir_const_count(ir), 29);
    npu_ir_close(ir);
    /* string element type: loads, marked as not an npu_type */
    snprintf(xp, sizeof xp, "%s/string_parameter.xml", dir);
    assert_int_equal(npu_ir_open(&a, ctx, xp, NULL, &ir), NPU_OK);
    assert_int_equal(npu_ir_input(ir, 0)->desc.type, NPU_TYPE_UNDEFINED);
    assert_string_equal(npu_ir_input(ir, 0)->element_type, "string");
    npu_ir_close(ir);
    /* states, dynamic bounded dims, nested bodies */
    snprintf(xp, sizeof xp, "%s/npu_blob_compat_dummy_model_stateful.xml", dir);
    assert_int_equal(npu_ir_open(&a, ctx, xp, bin_for("npu_blob_compat_dummy_model_stateful.xml", 40, bp, sizeof bp), &ir), NPU_OK);
    assert_int_equal(npu_ir_state_count(ir), 1);
    assert_string_equal(npu_ir_state_at(ir, 0)->variable_id, "v0");
    assert_int_equal(npu_ir_state_at(ir, 0)->assigns, 1);
    npu_ir_close(ir);
    snprintf(xp, sizeof xp, "%s/npu_blob_compat_dummy_model_dynamic_shapes.xml", dir);
    assert_int_equal(npu_ir_open(&a, ctx, xp, bin_for("npu_blob_compat_dummy_model_dynamic_shapes.xml", 128, bp, sizeof bp), &ir), NPU_OK);
    assert_int_equal(npu_ir_input(ir, 0)->desc.shape.dims[0], NPU_DIM_DYNAMIC);
    assert_int_equal(npu_ir_input(ir, 0)->desc.shape.dims[2], 64);
    npu_ir_close(ir);
    snprintf(xp, sizeof xp, "%s/loop_2d_add.xml", dir);
    assert_int_equal(npu_ir_open(&a, ctx, xp, bin_for("loop_2d_add.xml", 29, bp, sizeof bp), &ir), NPU_OK);
    assert_int_equal(npu_ir_const_count(ir), 6);
    assert_int_equal(npu_ir_const_at(ir, 2)->graph, 1);
    npu_ir_close(ir);
}

/* The whole path on the real corpus: load -> payload -> the driver's compiler ->
 * one inference. Every loadable file either compiles and runs, or is refused
 * with an error that names the layer or input the compiler could not take
 * (issue: "where the compiler lacks an op, compiling fails with a build-log
 * error naming the layer and the op"). Zero-filled weights, zero inputs: some
 * files are then refused for their shape constants (a Reshape target or a
 * Transpose permutation of zeros), which the build log names too.
 * NPU_TEST_VERBOSE=1 prints each refusal. */
static void test_every_corpus_file_compiles_and_runs_or_names_what_is_unsupported(void **state)
{
    static _Alignas(16) unsigned char dev_mem[1u << 16];
    static _Alignas(16) unsigned char model_mem[16u << 20];   /* IR v10 compiles as layout A (weights copied) */
    DIR *d;
    struct dirent *e;
    npu_arena da;
    npu_device *dev = NULL;
    int ran = 0, refused = 0;
    (void)state;
    if (dir[0] == '\0' || (d = opendir(dir)) == NULL) {
        if (dir[0] == '\0') print_message("skipped: NPU_SHARED_DATA is not set: it names the shared IR corpus (../shared/data in CI)\n");
        else print_message("skipped: %s not found: the shared IR corpus (../shared/data in CI, or NPU_SHARED_DATA)\n", dir);
        skip();
        return;
    }
    assert_int_equal(npu_arena_init(&da, dev_mem, sizeof dev_mem), NPU_OK);
    if (npu_device_open(&da, ctx, NULL, &dev) != NPU_OK) {
        closedir(d);
        fail_msg("no device: %s", npu_context_last_error(ctx));
    }
    while ((e = readdir(d)) != NULL) {
        char xp[600], bp[600];
        size_t n = strlen(e->d_name);
        npu_arena a, ma;
        npu_ir *ir = NULL;
        npu_model *model = NULL;
        npu_request *req = NULL;
        npu_status st;
        if (n < 5 || strcmp(e->d_name + n - 4, ".xml") != 0) continue;
        if (strcmp(e->d_name, "irfe_transpose_wrong_const_size.xml") == 0) continue; /* refused at load */
        if (snprintf(xp, sizeof xp, "%s/%s", dir, e->d_name) >= (int)sizeof xp) fail_msg("path too long: %s", e->d_name);
        bin_for(e->d_name, index_bin_bytes(e->d_name), bp, sizeof bp);
        assert_int_equal(npu_arena_init(&a, arena_mem, sizeof arena_mem), NPU_OK);
        st = npu_ir_open(&a, ctx, xp, bp, &ir);
        if (st != NPU_OK) fail_msg("%s: %s", e->d_name, npu_context_last_error(ctx));
        assert_int_equal(npu_arena_init(&ma, model_mem, sizeof model_mem), NPU_OK);
        st = npu_model_compile_ir(dev, &ma, ir, NULL, &model);
        if (st == NPU_OK) {
            assert_int_equal(npu_request_create(model, &ma, NULL, &req), NPU_OK);
            if (npu_request_infer(req) != NPU_OK) fail_msg("%s: infer: %s", e->d_name, npu_context_last_error(ctx));
            npu_request_destroy(req);
            npu_model_destroy(model);
            ran++;
        } else {
            const char *msg = npu_context_last_error(ctx);
            if (st != NPU_ERR_COMPILE && st != NPU_ERR_UNSUPPORTED)
                fail_msg("%s: unexpected %s: %s", e->d_name, npu_status_string(st), msg);
            /* names what it could not take: a layer (build log) or an input/output */
            if (strstr(msg, "layer '") == NULL && strstr(msg, "input '") == NULL && strstr(msg, "output '") == NULL)
                fail_msg("%s: the error names no layer or input: %s", e->d_name, msg);
            if (getenv("NPU_TEST_VERBOSE")) print_message("%s: %s\n", e->d_name, msg);
            refused++;
        }
        npu_ir_close(ir);
    }
    closedir(d);
    npu_device_close(dev);
    print_message("corpus: %d compiled and ran, %d refused naming the layer or input\n", ran, refused);
    assert_true(ran >= 15);
    assert_int_equal(ran + refused, 30);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_corpus_file_loads_or_is_refused_as_documented),
        cmocka_unit_test(test_corpus_details),
        cmocka_unit_test(test_every_corpus_file_compiles_and_runs_or_names_what_is_unsupported),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
