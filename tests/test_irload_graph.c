/* Round trip: a model built with the graph builder and written by the IR
 * writer (model.xml + model.bin, section 7), loaded back by the IR loader
 * (section 8), gives the same NGRAPH_LITE payload as the writer's own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "npu.h"
#include "irload_util.h"

static _Alignas(16) unsigned char ctx_mem[8192];
static _Alignas(16) unsigned char graph_mem[1u << 18];
static _Alignas(16) unsigned char ir_mem[1u << 18];
static float w1[16 * 8], b1[8], w2[8 * 4];

static unsigned char *gwrite(npu_status (*fn)(const npu_graph *, const npu_payload_options *, void *, size_t, size_t *),
                            const npu_graph *g, const npu_payload_options *o, size_t *n)
{
    unsigned char *p;
    assert_int_equal(fn(g, o, NULL, 0, n), NPU_OK);
    p = (unsigned char *)malloc(*n + 1);
    assert_int_equal(fn(g, o, p, *n, n), NPU_OK);
    return p;
}

static unsigned char *ir_payload(const npu_ir *ir, const npu_payload_options *o, size_t *n)
{
    unsigned char *p;
    assert_int_equal(npu_ir_write_payload(ir, o, NULL, 0, n), NPU_OK);
    p = (unsigned char *)malloc(*n + 1);
    assert_int_equal(npu_ir_write_payload(ir, o, p, *n, n), NPU_OK);
    return p;
}

static void test_builder_model_written_and_loaded_gives_the_same_payload(void **state)
{
    npu_arena ca, ga, ia;
    npu_context *ctx;
    npu_graph *g;
    npu_ir *ir;
    npu_node *x, *h;
    npu_shape sx = {2, {1, 16}}, sw1 = {2, {16, 8}}, sb1 = {2, {1, 8}}, sw2 = {2, {8, 4}};
    npu_payload_options a = {.layout = NPU_PAYLOAD_WEIGHTS_COPY, .weights_threshold_bytes = 0, .compiler_version = NPU_COMPILER_VERSION(7, 4)};
    npu_payload_options b_all = {.layout = NPU_PAYLOAD_NO_WEIGHTS_COPY, .weights_threshold_bytes = UINT64_MAX, .compiler_version = NPU_COMPILER_VERSION(7, 4)};
    npu_payload_options b_ptr = {.layout = NPU_PAYLOAD_NO_WEIGHTS_COPY, .weights_threshold_bytes = 0, .compiler_version = NPU_COMPILER_VERSION(7, 4)};
    size_t nx, nb, n1, n2, i;
    unsigned char *xml, *bin, *p1, *p2;
    (void)state;
    for (i = 0; i < 16 * 8; i++) w1[i] = (float)i * 0.25f;
    for (i = 0; i < 8; i++) b1[i] = (float)i - 3.0f;
    for (i = 0; i < 8 * 4; i++) w2[i] = 1.0f / (float)(i + 1);
    assert_int_equal(npu_arena_init(&ca, ctx_mem, sizeof ctx_mem), NPU_OK);
    assert_int_equal(npu_context_create(&ca, NULL, &ctx), NPU_OK);
    assert_int_equal(npu_arena_init(&ga, graph_mem, sizeof graph_mem), NPU_OK);
    assert_int_equal(npu_graph_create(&ga, ctx, NULL, &g), NPU_OK);
    x = npu_graph_parameter(g, "x", NPU_F32, &sx, "NC");
    h = npu_graph_matmul(g, x, npu_graph_constant(g, "w1", NPU_F32, &sw1, w1, sizeof w1), 0, 0, "fc1");
    h = npu_graph_relu(g, npu_graph_add(g, h, npu_graph_constant(g, "b1", NPU_F32, &sb1, b1, sizeof b1), "bias"), "act");
    h = npu_graph_matmul(g, h, npu_graph_constant(g, "w2", NPU_F32, &sw2, w2, sizeof w2), 0, 0, "fc2");
    npu_graph_result(g, npu_graph_softmax(g, h, 1, "prob"), "y");
    if (npu_graph_status(g) != NPU_OK) fail_msg("builder: %s", npu_context_last_error(ctx));

    /* model.xml + model.bin as OpenVINO would read them */
    xml = gwrite(npu_graph_write_xml, g, &a, &nx);
    assert_int_equal(npu_graph_write_bin(g, NULL, 0, &nb), NPU_OK);
    bin = (unsigned char *)malloc(nb);
    assert_int_equal(npu_graph_write_bin(g, bin, nb, &nb), NPU_OK);
    assert_int_equal(npu_arena_init(&ia, ir_mem, sizeof ir_mem), NPU_OK);
    if (npu_ir_load_memory(&ia, ctx, (const char *)xml, nx, bin, nb, &ir) != NPU_OK)
        fail_msg("loader: %s", npu_context_last_error(ctx));
    assert_int_equal(npu_ir_input_count(ir), 1);
    assert_string_equal(npu_ir_input(ir, 0)->desc.name, "x");
    assert_string_equal(npu_ir_input(ir, 0)->desc.layout, "NC");
    assert_int_equal(npu_ir_output_count(ir), 1);
    assert_int_equal(npu_ir_const_count(ir), 3);
    assert_memory_equal(npu_ir_const_at(ir, 0)->data, w1, sizeof w1);

    /* layout A, and layout B with every constant copied: byte for byte */
    p1 = gwrite(npu_graph_write_payload, g, &a, &n1);
    p2 = ir_payload(ir, &a, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(p1, p2, n1);
    free(p1);
    free(p2);
    p1 = gwrite(npu_graph_write_payload, g, &b_all, &n1);
    p2 = ir_payload(ir, &b_all, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(p1, p2, n1);
    free(p1);
    free(p2);

    /* layout B by pointer: same constants and sizes; each pointer holds the same bytes */
    p1 = gwrite(npu_graph_write_payload, g, &b_ptr, &n1);
    p2 = ir_payload(ir, &b_ptr, &n2);
    {
        xmlDoc *d1 = xmlReadMemory((const char *)p1 + irl_le(p1 + 32, 8), (int)irl_le(p1 + 40, 8), "g.xml", NULL, 0);
        xmlDoc *d2 = xmlReadMemory((const char *)p2 + irl_le(p2 + 32, 8), (int)irl_le(p2 + 40, 8), "i.xml", NULL, 0);
        xmlNode *c1[8], *c2[8];
        int k1, k2, j;
        assert_non_null(d1);
        assert_non_null(d2);
        k1 = irl_collect_consts(xmlDocGetRootElement(d1), c1, 8, 0);
        k2 = irl_collect_consts(xmlDocGetRootElement(d2), c2, 8, 0);
        assert_int_equal(k1, 3);
        assert_int_equal(k2, 3);
        for (j = 0; j < 3; j++) {
            xmlNode *a1 = irl_child(irl_child(c1[j], "rt_info"), "attribute");
            xmlNode *a2 = irl_child(irl_child(c2[j], "rt_info"), "attribute");
            uint64_t ms = irl_attr_u64(a1, "ms");
            assert_true(irl_attr_is(a1, "name", "WeightsPointerAttribute"));
            assert_true(irl_attr_is(a2, "name", "WeightsPointerAttribute"));
            assert_int_equal(ms, irl_attr_u64(a2, "ms"));
            assert_int_equal(irl_attr_u64(irl_child(c1[j], "data"), "offset"), 0);
            assert_int_equal(irl_attr_u64(irl_child(c2[j], "data"), "offset"), 0);
            assert_memory_equal((const void *)(uintptr_t)irl_attr_u64(a1, "mp"),
                                (const void *)(uintptr_t)irl_attr_u64(a2, "mp"), ms);
        }
        xmlFreeDoc(d1);
        xmlFreeDoc(d2);
    }
    free(p1);
    free(p2);
    free(xml);
    free(bin);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builder_model_written_and_loaded_gives_the_same_payload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
