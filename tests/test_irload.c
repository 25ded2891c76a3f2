/* IR loader: OpenVINO IR files (tests/data/irl_*.xml, written the way
 * ov::serialize writes them) loaded from files and from memory, described, and
 * turned into NGRAPH_LITE payloads in both layouts, parsed back byte by byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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

#define ARENA_BYTES (1u << 20)
static _Alignas(16) unsigned char ctx_mem[8192];
static _Alignas(16) unsigned char arena_mem[ARENA_BYTES];
static npu_context *ctx;
static npu_arena arena;

#define CV NPU_COMPILER_VERSION(7, 4)

/* name, bin size: the files of tests/data */
static const struct { const char *xml; size_t bin; } files[] = {
    {"irl_cnn_v11.xml", 10704},
    {"irl_dynamic_batch_v11.xml", 256},
    {"irl_state_v11.xml", 16},
    {"irl_mlp_v10.xml", 288},
    {"irl_ti_body_v11.xml", 12},
};

static int setup(void **state)
{
    npu_arena ca;
    (void)state;
    assert_int_equal(npu_arena_init(&ca, ctx_mem, sizeof ctx_mem), NPU_OK);
    assert_int_equal(npu_context_create(&ca, NULL, &ctx), NPU_OK);
    assert_int_equal(npu_arena_init(&arena, arena_mem, sizeof arena_mem), NPU_OK);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    irl_tmp_cleanup();
    return 0;
}

/* Opens tests/data/<xml> with a fresh deterministic .bin of `bin` bytes. */
static npu_ir *open_ir(const char *xml, size_t bin)
{
    char xp[512], bp[512], bn[128];
    npu_ir *ir = NULL;
    snprintf(bn, sizeof bn, "%s.bin", xml);
    irl_write_bin(bn, bin, bp, sizeof bp);
    npu_arena_rewind(&arena, 0);
    if (npu_ir_open(&arena, ctx, irl_data(xml, xp, sizeof xp), bp, &ir) != NPU_OK)
        fail_msg("open %s: %s", xml, npu_context_last_error(ctx));
    return ir;
}

static unsigned char *payload(const npu_ir *ir, npu_payload_layout layout, uint64_t threshold, size_t *size)
{
    npu_payload_options o;
    unsigned char *buf;
    size_t n = 0, m = 0;
    memset(&o, 0, sizeof o);
    o.layout = layout;
    o.weights_threshold_bytes = threshold;
    o.compiler_version = CV;
    assert_int_equal(npu_ir_write_payload(ir, &o, NULL, 0, &n), NPU_OK);
    buf = (unsigned char *)malloc(n + 1);
    assert_non_null(buf);
    if (n > 0) {  /* one byte short fails cleanly, the exact size works */
        assert_int_equal(npu_ir_write_payload(ir, &o, buf, n - 1, &m), NPU_ERR_BUFFER_TOO_SMALL);
        assert_non_null(strstr(npu_context_last_error(ctx), "too small"));
    }
    assert_int_equal(npu_ir_write_payload(ir, &o, buf, n, &m), NPU_OK);
    assert_int_equal(m, n);
    *size = n;
    return buf;
}

/* Layout B: checks the header; returns the XML (parsed by libxml2) and the blob. */
static xmlDoc *parse_b(const unsigned char *p, size_t n, const unsigned char **blob, size_t *blob_size)
{
    xmlDoc *doc;
    assert_true(n >= 52);
    assert_int_equal(irl_le(p + 0, 8), 48);
    assert_int_equal(irl_le(p + 8, 8), 4);
    assert_int_equal(irl_le(p + 48, 2), CV >> 16);
    assert_int_equal(irl_le(p + 50, 2), CV & 0xffff);
    assert_int_equal(irl_le(p + 16, 8), 52);
    *blob = p + 52;
    *blob_size = (size_t)irl_le(p + 24, 8);
    assert_int_equal(irl_le(p + 32, 8), 52 + *blob_size);
    assert_int_equal(irl_le(p + 32, 8) + irl_le(p + 40, 8), n);
    doc = xmlReadMemory((const char *)p + 52 + *blob_size, (int)irl_le(p + 40, 8), "payload.xml", NULL,
                        XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_NOERROR);
    assert_non_null(doc);
    return doc;
}

/* The WeightsPointerAttribute of a Const layer, or NULL. */
static xmlNode *wpa(xmlNode *layer, int *count)
{
    xmlNode *rt = irl_child(layer, "rt_info"), *a, *found = NULL;
    *count = 0;
    for (a = rt ? rt->children : NULL; a; a = a->next)
        if (a->type == XML_ELEMENT_NODE && irl_attr_is(a, "name", "WeightsPointerAttribute")) {
            found = a;
            (*count)++;
        }
    return found;
}

static void test_cnn_describes_inputs_outputs_and_consts(void **state)
{
    npu_ir *ir = open_ir("irl_cnn_v11.xml", 10704);
    const npu_ir_io *in, *out;
    const npu_ir_const *k;
    uint64_t wsize;
    const unsigned char *base = (const unsigned char *)npu_ir_weights(ir, &wsize);
    (void)state;
    assert_int_equal(npu_ir_version(ir), 11);
    assert_int_equal(wsize, 10704);
    assert_int_equal(npu_ir_input_count(ir), 1);
    assert_int_equal(npu_ir_output_count(ir), 1);
    in = npu_ir_input(ir, 0);
    assert_string_equal(in->desc.name, "input");
    assert_string_equal(in->tensor_names, "input");
    assert_string_equal(in->element_type, "f32");
    assert_int_equal(in->desc.type, NPU_F32);
    assert_int_equal(in->desc.shape.rank, 4);
    assert_int_equal(in->desc.shape.dims[1], 3);
    assert_int_equal(in->desc.shape.dims[3], 8);
    assert_string_equal(in->desc.layout, "NCHW");   /* from rt_info layout="[N,C,H,W]" */
    assert_int_equal(in->batch_axis, 0);
    assert_int_equal(in->desc.bytes, 1 * 3 * 8 * 8 * 4);
    out = npu_ir_output(ir, 0);
    assert_string_equal(out->desc.name, "prob/sink_port_0");
    assert_string_equal(out->tensor_names, "prob,prob:0");  /* names of the producing port */
    assert_int_equal(out->desc.shape.rank, 2);
    assert_int_equal(out->desc.shape.dims[1], 10);
    assert_int_equal(out->desc.bytes, 40);
    assert_null(npu_ir_input(ir, 1));
    assert_null(npu_ir_output(ir, 1));
    assert_int_equal(npu_ir_state_count(ir), 0);
    assert_int_equal(npu_ir_const_count(ir), 4);
    {
        static const struct { const char *name; uint32_t id; uint64_t off, size; } want[] = {
            {"conv_w", 1, 0, 432}, {"bias", 3, 432, 16}, {"flat_shape", 6, 448, 16}, {"fc_w", 8, 464, 10240}};
        uint32_t i;
        for (i = 0; i < 4; i++) {
            k = npu_ir_const_at(ir, i);
            assert_string_equal(k->name, want[i].name);
            assert_int_equal(k->layer_id, want[i].id);
            assert_int_equal(k->graph, 0);
            assert_int_equal(k->offset, want[i].off);
            assert_int_equal(k->size, want[i].size);
            assert_ptr_equal(k->data, base + want[i].off);   /* in the mapping, not copied */
            assert_int_equal(((const unsigned char *)k->data)[0], irl_byte(want[i].off));
        }
        assert_string_equal(npu_ir_const_at(ir, 2)->element_type, "i64");
        assert_null(npu_ir_const_at(ir, 4));
    }
    npu_ir_close(ir);
}

static void test_size_query_is_exact_for_every_file(void **state)
{
    size_t f;
    (void)state;
    for (f = 0; f < sizeof files / sizeof files[0]; f++) {
        char xp[512];
        size_t need = 0, need_mem = 0, len, cap;
        char *xml = irl_read(irl_data(files[f].xml, xp, sizeof xp), &len);
        unsigned char *bin = (unsigned char *)malloc(files[f].bin);
        npu_ir *ir = NULL;
        assert_non_null(xml);
        for (cap = 0; cap < files[f].bin; cap++) bin[cap] = irl_byte(cap);
        assert_int_equal(npu_ir_size_file(ir_size_scratch(), ctx, xp, &need), NPU_OK);
        assert_int_equal(npu_ir_size(ir_size_scratch(), ctx, xml, len, &need_mem), NPU_OK);
        assert_int_equal(need, need_mem);
        assert_true(need % NPU_ARENA_ALIGN == 0);
        {
            /* The query's scratch is handed back; an arena that holds the load
             * serves as scratch; one too small for the walker is refused. */
            npu_arena a;
            size_t again = 0;
            assert_int_equal(npu_arena_init(&a, arena_mem, need), NPU_OK);
            assert_int_equal(npu_ir_size(&a, ctx, xml, len, &again), NPU_OK);
            assert_int_equal(again, need);
            assert_int_equal(npu_arena_used(&a), 0);
            assert_int_equal(npu_arena_init(&a, arena_mem, 64), NPU_OK);
            assert_int_equal(npu_ir_size(&a, ctx, xml, len, &again), NPU_ERR_ARENA_TOO_SMALL);
            assert_int_equal(npu_arena_used(&a), 0);
        }
        for (cap = 0; cap < need; cap += 16) {
            npu_arena a;
            assert_int_equal(npu_arena_init(&a, arena_mem, cap), NPU_OK);
            assert_int_equal(npu_ir_load_memory(&a, ctx, xml, len, bin, files[f].bin, &ir), NPU_ERR_ARENA_TOO_SMALL);
            assert_null(ir);
            assert_int_equal(npu_arena_used(&a), 0);
        }
        {
            npu_arena a;
            char want[64];
            snprintf(want, sizeof want, "needs %zu bytes", need);
            assert_non_null(strstr(npu_context_last_error(ctx), want));
            assert_int_equal(npu_arena_init(&a, arena_mem, need), NPU_OK);
            assert_int_equal(npu_ir_load_memory(&a, ctx, xml, len, bin, files[f].bin, &ir), NPU_OK);
            /* the loading tables are handed back */
            assert_int_equal(npu_arena_used(&a), npu_ir_arena_bytes(ir));
            assert_true(npu_ir_arena_bytes(ir) <= need);
            assert_true(a.peak == need);
        }
        free(xml);
        free(bin);
    }
}

static void test_payload_a_is_the_file_and_the_weights(void **state)
{
    size_t f;
    (void)state;
    for (f = 0; f < sizeof files / sizeof files[0]; f++) {
        char xp[512];
        size_t len, n;
        char *xml = irl_read(irl_data(files[f].xml, xp, sizeof xp), &len);
        npu_ir *ir = open_ir(files[f].xml, files[f].bin);
        unsigned char *p = payload(ir, NPU_PAYLOAD_WEIGHTS_COPY, 0, &n);
        size_t i, elen;
        char *want = irl_with_net_rt(xml, len, &elen);
        free(xml);
        xml = want;
        len = elen;
        assert_int_equal(n, 24 + len + files[f].bin);
        assert_int_equal(irl_le(p, 2), CV >> 16);
        assert_int_equal(irl_le(p + 2, 2), CV & 0xffff);
        assert_int_equal(irl_le(p + 4, 4), 2);
        assert_int_equal(irl_le(p + 8, 8), len);
        assert_memory_equal(p + 16, xml, len);          /* XML unchanged but for the net rt_info */
        assert_int_equal(irl_le(p + 16 + len, 8), files[f].bin);
        for (i = 0; i < files[f].bin; i++) assert_int_equal(p[24 + len + i], irl_byte(i));
        free(p);
        free(xml);
        npu_ir_close(ir);
    }
}

/* Every Const: offset 0 and a pointer into the mapping, or (below the threshold)
 * a copy in the constants blob. Returns how many were copied. */
static int check_b(npu_ir *ir, uint64_t threshold)
{
    size_t n, blob_size, expect_blob = 0;
    unsigned char *p = payload(ir, NPU_PAYLOAD_NO_WEIGHTS_COPY, threshold, &n);
    const unsigned char *blob;
    xmlDoc *doc = parse_b(p, n, &blob, &blob_size);
    xmlNode *layers[64];
    int k = irl_collect_consts(xmlDocGetRootElement(doc), layers, 64, 0), i, copied = 0;
    uint64_t wsize;
    const unsigned char *base = (const unsigned char *)npu_ir_weights(ir, &wsize);
    assert_int_equal(k, (int)npu_ir_const_count(ir));
    for (i = 0; i < k; i++) {
        const npu_ir_const *c = npu_ir_const_at(ir, (uint32_t)i);
        xmlNode *data = irl_child(layers[i], "data");
        int count;
        xmlNode *a = wpa(layers[i], &count);
        assert_int_equal(irl_attr_u64(data, "size"), c->size);
        assert_true(irl_count_children(layers[i], "rt_info") <= 1);
        if (c->size < threshold) {
            uint64_t off = irl_attr_u64(data, "offset");
            assert_null(a);
            assert_int_equal(off, expect_blob);     /* in Const order, unpadded */
            assert_memory_equal(blob + off, base + c->offset, c->size);
            expect_blob += c->size;
            copied++;
        } else {
            assert_int_equal(count, 1);
            assert_int_equal(irl_attr_u64(data, "offset"), 0);
            assert_true(irl_attr_is(a, "version", "0"));
            assert_int_equal(irl_attr_u64(a, "mp"), (uint64_t)(uintptr_t)(base + c->offset));
            assert_int_equal(irl_attr_u64(a, "ms"), c->size);
        }
    }
    assert_int_equal(blob_size, expect_blob);
    xmlFreeDoc(doc);
    free(p);
    return copied;
}

static void test_payload_b_passes_every_const_by_pointer(void **state)
{
    size_t f;
    (void)state;
    for (f = 0; f < sizeof files / sizeof files[0]; f++) {
        npu_ir *ir = open_ir(files[f].xml, files[f].bin);
        assert_int_equal(check_b(ir, 0), 0);
        assert_int_equal(check_b(ir, UINT64_MAX), (int)npu_ir_const_count(ir));
        npu_ir_close(ir);
    }
}

static void test_payload_b_keeps_existing_rt_info(void **state)
{
    npu_ir *ir = open_ir("irl_cnn_v11.xml", 10704);
    size_t n, bs;
    unsigned char *p = payload(ir, NPU_PAYLOAD_DEFAULT, 0, &n);
    const unsigned char *blob;
    xmlDoc *doc = parse_b(p, n, &blob, &bs);
    xmlNode *layers[8], *rt, *a;
    int k = irl_collect_consts(xmlDocGetRootElement(doc), layers, 8, 0), names = 0;
    (void)state;
    assert_int_equal(k, 4);
    /* conv_w had <rt_info> with fused_names: both attributes now in it */
    rt = irl_child(layers[0], "rt_info");
    for (a = rt->children; a; a = a->next)
        if (a->type == XML_ELEMENT_NODE)
            names += irl_attr_is(a, "name", "fused_names") ? 1 : irl_attr_is(a, "name", "WeightsPointerAttribute") ? 10 : 100;
    assert_int_equal(names, 11);
    /* bias had <rt_info />: one rt_info now, holding the pointer */
    assert_int_equal(irl_count_children(layers[1], "rt_info"), 1);
    assert_int_equal(irl_count_children(irl_child(layers[1], "rt_info"), "attribute"), 1);
    xmlFreeDoc(doc);
    free(p);
    npu_ir_close(ir);
}

static void test_threshold_boundaries(void **state)
{
    npu_ir *ir = open_ir("irl_cnn_v11.xml", 10704);
    (void)state;
    /* sizes 432, 16, 16, 10240: "smaller than the threshold" is copied */
    assert_int_equal(check_b(ir, 16), 0);
    assert_int_equal(check_b(ir, 17), 2);
    assert_int_equal(check_b(ir, 432), 2);
    assert_int_equal(check_b(ir, 433), 3);
    assert_int_equal(check_b(ir, 10240), 3);
    assert_int_equal(check_b(ir, 10241), 4);
    npu_ir_close(ir);
}

static void test_payload_b_size_does_not_depend_on_the_bin(void **state)
{
    size_t n1, n2;
    npu_ir *ir = open_ir("irl_dynamic_batch_v11.xml", 256);
    npu_payload_options o;
    char xp[512], bp[512];
    (void)state;
    memset(&o, 0, sizeof o);
    o.compiler_version = CV;
    assert_int_equal(npu_ir_write_payload(ir, &o, NULL, 0, &n1), NPU_OK);
    npu_ir_close(ir);
    /* the same XML with a .bin 4 MiB longer */
    irl_write_bin("big.bin", 256 + (4u << 20), bp, sizeof bp);
    npu_arena_rewind(&arena, 0);
    assert_int_equal(npu_ir_open(&arena, ctx, irl_data("irl_dynamic_batch_v11.xml", xp, sizeof xp), bp, &ir), NPU_OK);
    assert_int_equal(npu_ir_write_payload(ir, &o, NULL, 0, &n2), NPU_OK);
    /* 4 MiB more weights add nothing; only the decimal digits of the mapped
     * addresses (mp) may differ between the two mappings: at most 20 per Const. */
    assert_true(n1 < n2 + 20 * npu_ir_const_count(ir) + 1 && n2 < n1 + 20 * npu_ir_const_count(ir) + 1);
    o.compiler_version = 0;
    assert_int_equal(npu_ir_write_payload(ir, &o, NULL, 0, &n2), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_ir_write_payload(ir, NULL, NULL, 0, &n2), NPU_ERR_INVALID_ARGUMENT);
    npu_ir_close(ir);
}

/* The XML part of a layout A payload, NUL-terminated (malloc). */
static char *xml_a(npu_ir *ir)
{
    size_t n, len;
    unsigned char *p = payload(ir, NPU_PAYLOAD_WEIGHTS_COPY, 0, &n);
    char *x;
    len = (size_t)irl_le(p + 8, 8);
    x = (char *)malloc(len + 1);
    memcpy(x, p + 16, len);
    x[len] = '\0';
    free(p);
    return x;
}

static void test_batch_rewrite_of_a_dynamic_batch(void **state)
{
    npu_ir *ir = open_ir("irl_dynamic_batch_v11.xml", 256);
    int64_t orig = 0;
    char *x;
    const npu_ir_io *in = npu_ir_input(ir, 0);
    (void)state;
    assert_int_equal(in->desc.shape.dims[0], NPU_DIM_DYNAMIC);
    assert_int_equal(in->desc.bytes, 16 * 4);  /* dynamic counts as 1 */
    assert_int_equal(npu_ir_set_batch(ir, 1, &orig), NPU_OK);
    assert_int_equal(orig, NPU_DIM_DYNAMIC);
    x = xml_a(ir);
    /* the Parameter: shape attribute and port dim rewritten */
    assert_non_null(strstr(x, "<data shape=\"1,16\" element_type=\"f32\" />"));
    assert_non_null(strstr(x, "names=\"x\">\n\t\t\t\t\t<dim>1</dim>\n\t\t\t\t\t<dim>16</dim>"));
    /* other layers keep -1: the compiler re-infers them */
    assert_non_null(strstr(x, "names=\"mm\">\n\t\t\t\t\t<dim>-1</dim>"));
    free(x);
    /* layout B sees the same rewrite; 0 turns it off */
    {
        size_t n, bs;
        unsigned char *p = payload(ir, NPU_PAYLOAD_NO_WEIGHTS_COPY, 0, &n);
        const unsigned char *blob;
        xmlDoc *doc = parse_b(p, n, &blob, &bs);
        xmlNode *layer = irl_child(irl_child(xmlDocGetRootElement(doc), "layers"), "layer");
        assert_true(irl_attr_is(irl_child(layer, "data"), "shape", "1,16"));
        xmlFreeDoc(doc);
        free(p);
    }
    assert_int_equal(npu_ir_set_batch(ir, 0, NULL), NPU_OK);
    x = xml_a(ir);
    assert_non_null(strstr(x, "<data shape=\"?,16\""));
    free(x);
    assert_int_equal(npu_ir_set_batch(ir, -3, NULL), NPU_ERR_INVALID_ARGUMENT);
    npu_ir_close(ir);
}

static void test_batch_rewrite_static_batch_and_layout_axis(void **state)
{
    npu_ir *ir = open_ir("irl_mlp_v10.xml", 288);
    int64_t orig = 0;
    char *x, xp[512];
    size_t len;
    char *file = irl_read(irl_data("irl_mlp_v10.xml", xp, sizeof xp), &len);
    {
        size_t elen;
        char *want = irl_with_net_rt(file, len, &elen);
        free(file);
        file = want;
        len = elen;
    }
    (void)state;
    assert_int_equal(npu_ir_version(ir), 10);
    assert_string_equal(npu_ir_input(ir, 0)->desc.layout, "");
    assert_int_equal(npu_ir_set_batch(ir, 1, &orig), NPU_OK);
    assert_int_equal(orig, 2);
    x = xml_a(ir);
    assert_non_null(strstr(x, "<data element_type=\"f32\" shape=\"1,8\"/>"));
    assert_int_equal(strlen(x), len);                     /* "2" -> "1" twice */
    {
        size_t i, diff = 0;
        for (i = 0; i < len; i++) diff += x[i] != file[i];
        assert_int_equal(diff, 2);
    }
    free(x);
    /* a layout naming N elsewhere moves the axis */
    assert_int_equal(npu_ir_set_layout(ir, 0, 0, "CN"), NPU_OK);
    assert_int_equal(npu_ir_input(ir, 0)->batch_axis, 1);
    assert_int_equal(npu_ir_set_batch(ir, 4, &orig), NPU_OK);
    assert_int_equal(orig, 8);
    x = xml_a(ir);
    assert_non_null(strstr(x, "shape=\"2,4\""));
    assert_non_null(strstr(x, "<dim>2</dim>\n\t\t\t\t\t<dim>4</dim>"));
    free(x);
    assert_int_equal(npu_ir_set_layout(ir, 0, 0, "NCHW"), NPU_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(npu_context_last_error(ctx), "data"));
    assert_int_equal(npu_ir_set_layout(ir, 0, 0, "N..."), NPU_OK);
    assert_int_equal(npu_ir_set_layout(ir, 0, 0, "...N"), NPU_OK);
    assert_int_equal(npu_ir_input(ir, 0)->batch_axis, 1);
    assert_int_equal(npu_ir_set_layout(ir, 0, 0, "N.C"), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_ir_set_layout(ir, 0, 3, "NC"), NPU_ERR_NOT_FOUND);
    assert_int_equal(npu_ir_set_layout(ir, 1, 0, "NC"), NPU_OK);
    assert_string_equal(npu_ir_output(ir, 0)->desc.layout, "NC");
    free(file);
    npu_ir_close(ir);
}

static void test_states_are_listed_by_variable(void **state)
{
    npu_ir *ir = open_ir("irl_state_v11.xml", 16);
    const npu_ir_state *s;
    (void)state;
    assert_int_equal(npu_ir_state_count(ir), 1);
    s = npu_ir_state_at(ir, 0);
    assert_string_equal(s->variable_id, "cache");
    assert_int_equal(s->read_values, 1);
    assert_int_equal(s->assigns, 1);
    assert_null(npu_ir_state_at(ir, 1));
    assert_int_equal(npu_ir_output_count(ir), 1);   /* Assign is not an output */
    assert_string_equal(npu_ir_output(ir, 0)->tensor_names, "sum");
    npu_ir_close(ir);
}

static void test_consts_in_a_nested_body_are_listed_and_rewritten(void **state)
{
    npu_ir *ir = open_ir("irl_ti_body_v11.xml", 12);
    (void)state;
    assert_int_equal(npu_ir_const_count(ir), 2);
    assert_string_equal(npu_ir_const_at(ir, 0)->name, "step_bias");
    assert_int_equal(npu_ir_const_at(ir, 0)->graph, 1);
    assert_string_equal(npu_ir_const_at(ir, 1)->name, "scale");
    assert_int_equal(npu_ir_const_at(ir, 1)->graph, 0);
    assert_int_equal(npu_ir_const_at(ir, 1)->size, 4);
    /* body Parameters and Results are not model inputs/outputs */
    assert_int_equal(npu_ir_input_count(ir), 1);
    assert_int_equal(npu_ir_output_count(ir), 1);
    assert_int_equal(check_b(ir, 0), 0);
    npu_ir_close(ir);
}

static void test_memory_load_copies_nothing_and_matches_the_file(void **state)
{
    char xp[512];
    size_t len, na, nb, i;
    char *xml = irl_read(irl_data("irl_cnn_v11.xml", xp, sizeof xp), &len);
    unsigned char *bin = (unsigned char *)malloc(10704), *pa, *pb;
    npu_ir *ir = NULL;
    (void)state;
    for (i = 0; i < 10704; i++) bin[i] = irl_byte(i);
    npu_arena_rewind(&arena, 0);
    assert_int_equal(npu_ir_load_memory(&arena, ctx, xml, len, bin, 10704, &ir), NPU_OK);
    assert_ptr_equal(npu_ir_const_at(ir, 3)->data, bin + 464);
    pa = payload(ir, NPU_PAYLOAD_WEIGHTS_COPY, 0, &na);
    {
        size_t elen;
        char *want = irl_with_net_rt(xml, len, &elen);
        assert_int_equal(na, 24 + elen + 10704);
        assert_memory_equal(pa + 16, want, elen);
        free(want);
    }
    assert_int_equal(check_b(ir, 0), 0);
    pb = payload(ir, NPU_PAYLOAD_NO_WEIGHTS_COPY, 0, &nb);
    assert_true(nb < na);
    free(pa);
    free(pb);
    npu_ir_close(ir);   /* no-op for memory loads */
    assert_int_equal(npu_ir_load_memory(&arena, ctx, xml, len, NULL, 5, &ir), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_ir_load_memory(NULL, ctx, xml, len, NULL, 0, &ir), NPU_ERR_INVALID_ARGUMENT);
    free(xml);
    free(bin);
}

static void test_open_derives_the_bin_path_and_reports_missing_files(void **state)
{
    char xp[512], bp[512], cmd[1200];
    npu_ir *ir = NULL;
    (void)state;
    /* model.xml + model.bin side by side */
    snprintf(xp, sizeof xp, "%s/side.xml", irl_tmp());
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", irl_data("irl_state_v11.xml", bp, sizeof bp), xp);
    assert_int_equal(system(cmd), 0);
    irl_write_bin("side.bin", 16, bp, sizeof bp);
    npu_arena_rewind(&arena, 0);
    assert_int_equal(npu_ir_open(&arena, ctx, xp, NULL, &ir), NPU_OK);
    assert_int_equal(((const unsigned char *)npu_ir_const_at(ir, 0)->data)[5], irl_byte(5));
    npu_ir_close(ir);
    npu_arena_rewind(&arena, 0);
    /* no .bin next to it: loads "without weights", and the Const does not fit */
    assert_int_equal(unlink(bp), 0);
    assert_int_equal(npu_ir_open(&arena, ctx, xp, NULL, &ir), NPU_ERR_FORMAT);
    assert_non_null(strstr(npu_context_last_error(ctx), "line 14, column 4"));
    assert_non_null(strstr(npu_context_last_error(ctx), "'init'"));
    assert_int_equal(npu_arena_used(&arena), 0);
    /* explicit paths that do not exist */
    assert_int_equal(npu_ir_open(&arena, ctx, xp, "/nonexistent/x.bin", &ir), NPU_ERR_IO);
    assert_non_null(strstr(npu_context_last_error(ctx), "/nonexistent/x.bin"));
    assert_int_equal(npu_ir_open(&arena, ctx, "/nonexistent/m.xml", NULL, &ir), NPU_ERR_IO);
    assert_null(ir);
    {
        size_t need;
        assert_int_equal(npu_ir_size_file(ir_size_scratch(), ctx, "/nonexistent/m.xml", &need), NPU_ERR_IO);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cnn_describes_inputs_outputs_and_consts),
        cmocka_unit_test(test_size_query_is_exact_for_every_file),
        cmocka_unit_test(test_payload_a_is_the_file_and_the_weights),
        cmocka_unit_test(test_payload_b_passes_every_const_by_pointer),
        cmocka_unit_test(test_payload_b_keeps_existing_rt_info),
        cmocka_unit_test(test_threshold_boundaries),
        cmocka_unit_test(test_payload_b_size_does_not_depend_on_the_bin),
        cmocka_unit_test(test_batch_rewrite_of_a_dynamic_batch),
        cmocka_unit_test(test_batch_rewrite_static_batch_and_layout_axis),
        cmocka_unit_test(test_states_are_listed_by_variable),
        cmocka_unit_test(test_consts_in_a_nested_body_are_listed_and_rewritten),
        cmocka_unit_test(test_memory_load_copies_nothing_and_matches_the_file),
        cmocka_unit_test(test_open_derives_the_bin_path_and_reports_missing_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
