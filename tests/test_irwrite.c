/* IR writer: every XML the writer emits is parsed with libxml2 and its
 * structure checked against OpenVINO's IR v11 form; payload layouts A and B are
 * parsed back byte by byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "npu.h"

static _Alignas(16) unsigned char mem[1 << 20];
static _Alignas(16) unsigned char ctx_mem[8192];
static const float weights[4 * 3 * 3 * 3] = {1.0f, 2.0f, 3.0f};

static npu_arena arena, ctx_arena;
static npu_context *ctx;
static npu_graph *g;
static unsigned char *buf;      /* the last XML/payload written (freed in teardown) */
static size_t buf_size;
static xmlDocPtr doc;

#define CV NPU_COMPILER_VERSION(7, 21)

static int setup(void **state)
{
    (void)state;
    assert_int_equal(npu_arena_init(&ctx_arena, ctx_mem, sizeof ctx_mem), NPU_OK);
    assert_int_equal(npu_context_create(&ctx_arena, NULL, &ctx), NPU_OK);
    assert_int_equal(npu_arena_init(&arena, mem, sizeof mem), NPU_OK);
    assert_int_equal(npu_graph_create(&arena, ctx, NULL, &g), NPU_OK);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(buf);
    buf = NULL;
    if (doc) xmlFreeDoc(doc);
    doc = NULL;
    return 0;
}

static xmlDocPtr parse(const void *text, size_t size)
{
    xmlDocPtr d = xmlReadMemory((const char *)text, (int)size, "ir.xml", NULL, XML_PARSE_NONET);
    if (d == NULL) fail_msg("libxml2 rejects the XML:\n%.*s", (int)size, (const char *)text);
    return d;
}

/* Writes the XML (size query first, then exactly that size) and parses it. */
static xmlDocPtr write_xml(const npu_payload_options *o)
{
    size_t need = 0, got = 0;
    assert_int_equal(npu_graph_write_xml(g, o, NULL, 0, &need), NPU_OK);
    free(buf);
    buf = malloc(need + 1);
    assert_non_null(buf);
    assert_int_equal(npu_graph_write_xml(g, o, buf, need, &got), NPU_OK);
    assert_int_equal(got, need);
    buf[need] = '\0';
    buf_size = need;
    if (doc) xmlFreeDoc(doc);
    doc = parse(buf, need);
    return doc;
}

static const npu_payload_options *layout_b(uint64_t threshold)
{
    static npu_payload_options o;
    memset(&o, 0, sizeof o);
    o.layout = NPU_PAYLOAD_NO_WEIGHTS_COPY;
    o.weights_threshold_bytes = threshold;
    o.compiler_version = CV;
    return &o;
}

static const npu_payload_options *layout_a(void)
{
    static npu_payload_options o;
    memset(&o, 0, sizeof o);
    o.layout = NPU_PAYLOAD_WEIGHTS_COPY;
    o.compiler_version = CV;
    return &o;
}

static xmlNodePtr child(xmlNodePtr n, const char *name)
{
    xmlNodePtr c;
    for (c = n ? n->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0) return c;
    return NULL;
}

static xmlNodePtr nth_child(xmlNodePtr n, const char *name, int index)
{
    xmlNodePtr c;
    for (c = n ? n->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0 && index-- == 0)
            return c;
    return NULL;
}

static int count_children(xmlNodePtr n, const char *name)
{
    int k = 0;
    while (nth_child(n, name, k)) k++;
    return k;
}

/* The attribute's value, or "<absent>" (a static copy; 16 stay valid). */
static const char *attr(xmlNodePtr n, const char *name)
{
    static char values[16][512];
    static unsigned next;
    char *value = values[next++ % 16];
    xmlChar *v = n ? xmlGetProp(n, (const xmlChar *)name) : NULL;
    if (v == NULL) return "<absent>";
    snprintf(value, 512, "%s", (const char *)v);
    xmlFree(v);
    return value;
}

static long long attr_ll(xmlNodePtr n, const char *name) { return strtoll(attr(n, name), NULL, 10); }

static xmlNodePtr layers(void) { return child(xmlDocGetRootElement(doc), "layers"); }

static xmlNodePtr layer(const char *name)
{
    xmlNodePtr l;
    for (l = child(layers(), "layer"); l; l = l->next) {
        xmlChar *v;
        int same;
        if (l->type != XML_ELEMENT_NODE) continue;
        v = xmlGetProp(l, (const xmlChar *)"name");
        same = v != NULL && strcmp((const char *)v, name) == 0;
        xmlFree(v);
        if (same) return l;
    }
    fail_msg("no layer '%s'", name);
    return NULL;
}

static xmlNodePtr layer_by_id(long long id)
{
    xmlNodePtr l;
    for (l = child(layers(), "layer"); l; l = l->next)
        if (l->type == XML_ELEMENT_NODE && attr_ll(l, "id") == id) return l;
    fail_msg("no layer id %lld", id);
    return NULL;
}

static xmlNodePtr port(xmlNodePtr l, const char *dir, int index) { return nth_child(child(l, dir), "port", index); }

static void check_data(const char *layer_name, const char *name, const char *value)
{
    const char *v = attr(child(layer(layer_name), "data"), name);
    if (strcmp(v, value) != 0) fail_msg("layer '%s' data %s=\"%s\", expected \"%s\"", layer_name, name, v, value);
}

/* "1,3,8,8" from a port's <dim>s. */
static const char *dims(xmlNodePtr p)
{
    static char out[128];
    xmlNodePtr d;
    size_t len = 0;
    out[0] = '\0';
    for (d = child(p, "dim"); d; d = d->next) {
        xmlChar *t;
        if (d->type != XML_ELEMENT_NODE || strcmp((const char *)d->name, "dim") != 0) continue;
        t = xmlNodeGetContent(d);
        len += (size_t)snprintf(out + len, sizeof out - len, "%s%s", len ? "," : "", (const char *)t);
        xmlFree(t);
    }
    return out;
}

/* The i64 values a Const layer points at (layout B) via mp/ms. */
static const int64_t *const_pointer(const char *layer_name, long long *bytes)
{
    xmlNodePtr a = child(child(layer(layer_name), "rt_info"), "attribute");
    assert_non_null(a);
    assert_string_equal(attr(a, "name"), "WeightsPointerAttribute");
    assert_string_equal(attr(a, "version"), "0");
    *bytes = attr_ll(a, "ms");
    return (const int64_t *)(uintptr_t)strtoull(attr(a, "mp"), NULL, 10);
}

static npu_node *param(const char *name, npu_type t, npu_shape s, const char *layout)
{
    return npu_graph_parameter(g, name, t, &s, layout);
}

/* Every input port has exactly one edge, from the producer's output port. */
static void check_edges(void)
{
    xmlNodePtr edges = child(xmlDocGetRootElement(doc), "edges"), l, e;
    int n_edges = count_children(edges, "edge"), n_inputs = 0;
    for (l = child(layers(), "layer"); l; l = l->next) {
        int p;
        if (l->type != XML_ELEMENT_NODE) continue;
        for (p = 0; port(l, "input", p); p++) {
            int found = 0;
            n_inputs++;
            for (e = child(edges, "edge"); e; e = e->next) {
                if (e->type != XML_ELEMENT_NODE) continue;
                if (attr_ll(e, "to-layer") == attr_ll(l, "id") &&
                    attr_ll(e, "to-port") == attr_ll(port(l, "input", p), "id")) {
                    xmlNodePtr src = layer_by_id(attr_ll(e, "from-layer"));
                    assert_int_equal(attr_ll(e, "from-port"), attr_ll(port(src, "output", 0), "id"));
                    /* the producer's output dims are the consumer's input dims */
                    assert_string_equal(dims(port(src, "output", 0)), dims(port(l, "input", p)));
                    found++;
                }
            }
            if (found != 1) fail_msg("layer '%s' input %d has %d edges", attr(l, "name"), p, found);
        }
    }
    assert_int_equal(n_edges, n_inputs);
}

static void build_cnn(void)
{
    npu_shape ws = {4, {4, 3, 3, 3}};
    npu_node *x = param("x", NPU_F32, (npu_shape){4, {1, 3, 8, 8}}, "NCHW");
    npu_node *w = npu_graph_constant(g, "w", NPU_F32, &ws, weights, sizeof weights);
    npu_conv_params cp;
    npu_pool_params pp;
    const int64_t flat[] = {0, -1};
    npu_node *y, *out;
    memset(&cp, 0, sizeof cp);
    memset(&pp, 0, sizeof pp);
    cp.pads_begin[0] = cp.pads_begin[1] = cp.pads_end[0] = cp.pads_end[1] = 1;
    pp.kernel[0] = pp.kernel[1] = pp.strides[0] = pp.strides[1] = 2;
    y = npu_graph_convolution(g, x, w, &cp, "conv");
    y = npu_graph_relu(g, y, "relu");
    y = npu_graph_max_pool(g, y, &pp, "pool");
    y = npu_graph_reshape(g, y, flat, 2, 1, "flat");
    out = npu_graph_result(g, y, "out");
    assert_int_equal(npu_graph_set_layout(out, "NC"), NPU_OK);
    assert_int_equal(npu_graph_status(g), NPU_OK);
}

static void test_xml_has_the_openvino_v11_form(void **state)
{
    xmlNodePtr root, l, p, rt;
    long long id = 0;
    long long bytes;
    const int64_t *target;
    (void)state;
    build_cnn();
    write_xml(layout_b(0));
    assert_true(strncmp((const char *)buf,
                        "<?xml version=\"1.0\"?>\n<net name=\"npu_graph\" version=\"11\">\n\t<layers>\n"
                        "\t\t<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\">\n"
                        "\t\t\t<data shape=\"1,3,8,8\" element_type=\"f32\" />\n\t\t\t<output>\n"
                        "\t\t\t\t<port id=\"0\" precision=\"FP32\" names=\"x\">\n\t\t\t\t\t<dim>1</dim>\n",
                        180) == 0);
    root = xmlDocGetRootElement(doc);
    assert_string_equal((const char *)root->name, "net");
    assert_string_equal(attr(root, "version"), "11");
    /* ids follow document order: Parameter first, Result last */
    for (l = child(layers(), "layer"); l; l = l->next) {
        if (l->type != XML_ELEMENT_NODE) continue;
        assert_int_equal(attr_ll(l, "id"), id++);
    }
    assert_int_equal(id, 8); /* x, w, conv, relu, pool, Constant (target), flat, out */
    assert_string_equal(attr(layer_by_id(0), "type"), "Parameter");
    assert_string_equal(attr(layer_by_id(7), "type"), "Result");
    /* Parameter port: layout rt_info */
    p = port(layer("x"), "output", 0);
    assert_string_equal(dims(p), "1,3,8,8");
    rt = child(child(p, "rt_info"), "attribute");
    assert_string_equal(attr(rt, "name"), "layout");
    assert_string_equal(attr(rt, "layout"), "[N,C,H,W]");
    /* Convolution: attributes, ports numbered inputs first */
    l = layer("conv");
    assert_string_equal(attr(l, "type"), "Convolution");
    assert_string_equal(attr(l, "version"), "opset1");
    check_data("conv", "strides", "1, 1");
    check_data("conv", "dilations", "1, 1");
    check_data("conv", "pads_begin", "1, 1");
    check_data("conv", "pads_end", "1, 1");
    check_data("conv", "auto_pad", "explicit");
    assert_string_equal(attr(port(l, "input", 0), "id"), "0");
    assert_string_equal(attr(port(l, "input", 1), "id"), "1");
    assert_string_equal(dims(port(l, "input", 1)), "4,3,3,3");
    assert_string_equal(attr(port(l, "output", 0), "id"), "2");
    assert_string_equal(attr(port(l, "output", 0), "precision"), "FP32");
    assert_string_equal(dims(port(l, "output", 0)), "1,4,8,8");
    assert_null(child(l, "rt_info"));
    assert_string_equal(attr(layer("relu"), "type"), "ReLU");
    assert_null(child(layer("relu"), "data"));
    /* the user's constant, by pointer */
    check_data("w", "element_type", "f32");
    check_data("w", "shape", "4, 3, 3, 3");
    check_data("w", "offset", "0");
    check_data("w", "size", "432");
    assert_ptr_equal(const_pointer("w", &bytes), (const void *)weights);
    assert_int_equal(bytes, sizeof weights);
    /* Reshape: special_zero, and its target as an i64 Const input */
    check_data("flat", "special_zero", "true");
    l = layer_by_id(5);
    assert_string_equal(attr(l, "type"), "Const");
    check_data(attr(l, "name"), "element_type", "i64");
    check_data(attr(layer_by_id(5), "name"), "shape", "2");
    target = const_pointer(attr(layer_by_id(5), "name"), &bytes);
    assert_int_equal(bytes, 16);
    assert_int_equal(target[0], 0);
    assert_int_equal(target[1], -1);
    assert_string_equal(attr(port(layer("flat"), "input", 1), "precision"), "I64");
    /* the output tensor is named after the Result; Result layout on its input */
    assert_string_equal(attr(port(layer("flat"), "output", 0), "names"), "out");
    assert_string_equal(dims(port(layer("flat"), "output", 0)), "1,64");
    assert_null(child(layer("out"), "output"));
    rt = child(child(port(layer("out"), "input", 0), "rt_info"), "attribute");
    assert_string_equal(attr(rt, "layout"), "[N,C]");
    check_edges();
    /* model rt_info: booleans as ov::Any writes them, YES/NO (issue 11; this
     * test expected "true") */
    rt = child(root, "rt_info");
    assert_string_equal(attr(child(rt, "is_new_api"), "value"), "YES");
    assert_string_equal(attr(child(rt, "use_indices_for_io_metadata"), "value"), "YES");
    assert_non_null(strstr((const char *)buf, "\t<rt_info>\n\t\t<is_new_api value=\"YES\" />\n"
                                              "\t\t<use_indices_for_io_metadata value=\"YES\" />\n\t</rt_info>\n</net>\n"));
}

static void test_every_op_writes_openvino_attributes(void **state)
{
    npu_node *a = param("a", NPU_F32, (npu_shape){2, {2, 3}}, NULL);
    npu_node *b = param("b", NPU_F32, (npu_shape){2, {4, 3}}, NULL);
    npu_node *img = param("img", NPU_F32, (npu_shape){4, {1, 4, 8, 8}}, NULL);
    npu_node *dyn = param("dyn", NPU_F32, (npu_shape){2, {-1, 3}}, NULL);
    npu_shape gs = {5, {2, 2, 2, 3, 3}};
    npu_node *gw = npu_graph_constant(g, "gw", NPU_F32, &gs, weights, 72 * 4);
    npu_conv_params cp;
    npu_pool_params pp;
    const int64_t axes[] = {-1}, unsq[] = {0}, perm[] = {1, 0};
    npu_node *cat[2], *rv, *nodes[40];
    int k = 0, i;
    (void)state;
    memset(&cp, 0, sizeof cp);
    memset(&pp, 0, sizeof pp);
    nodes[k++] = npu_graph_matmul(g, a, b, 0, 1, "matmul");
    nodes[k++] = npu_graph_add(g, a, a, "add");
    nodes[k++] = npu_graph_subtract(g, a, a, "sub");
    nodes[k++] = npu_graph_multiply(g, a, a, "mul");
    nodes[k++] = npu_graph_divide(g, a, a, "div");
    nodes[k++] = npu_graph_maximum(g, a, a, "max");
    nodes[k++] = npu_graph_minimum(g, a, a, "min");
    nodes[k++] = npu_graph_sigmoid(g, a, "sigmoid");
    nodes[k++] = npu_graph_tanh(g, a, "tanh");
    nodes[k++] = npu_graph_exp(g, a, "exp");
    nodes[k++] = npu_graph_sqrt(g, a, "sqrt");
    nodes[k++] = npu_graph_clamp(g, a, 0.0, 6.0, "clamp");
    nodes[k++] = npu_graph_clamp(g, a, -0.5, 0.25, "clamp_frac");
    nodes[k++] = npu_graph_softmax(g, a, -1, "softmax");
    nodes[k++] = npu_graph_convert(g, a, NPU_F16, "convert");
    cp.strides[0] = cp.strides[1] = 2;
    cp.pads_begin[0] = 3; /* written as 0 with same_upper */
    cp.auto_pad = NPU_PAD_SAME_UPPER;
    nodes[k++] = npu_graph_group_convolution(g, img, gw, &cp, "gconv");
    pp.kernel[0] = pp.kernel[1] = 2;
    pp.strides[0] = pp.strides[1] = 2;
    nodes[k++] = npu_graph_max_pool(g, img, &pp, "maxpool");
    pp.kernel[0] = pp.kernel[1] = 3;
    pp.rounding_type = NPU_ROUND_CEIL;
    pp.exclude_pad = 1;
    pp.pads_begin[0] = pp.pads_begin[1] = 1;
    nodes[k++] = npu_graph_avg_pool(g, img, &pp, "avgpool");
    nodes[k++] = npu_graph_reduce_mean(g, a, axes, 1, 1, "rmean");
    nodes[k++] = npu_graph_reduce_sum(g, a, axes, 1, 0, "rsum");
    nodes[k++] = npu_graph_squeeze(g, npu_graph_unsqueeze(g, a, unsq, 1, "unsq"), unsq, 1, "sq");
    nodes[k++] = npu_graph_squeeze(g, img, NULL, 0, "sq_all");
    nodes[k++] = npu_graph_transpose(g, a, perm, 2, "tr");
    cat[0] = a;
    cat[1] = b;
    nodes[k++] = npu_graph_concat(g, cat, 2, 0, "concat");
    rv = npu_graph_read_value(g, a, "var1", NPU_F32, &(npu_shape){2, {2, 3}}, "rv");
    nodes[k++] = rv;
    nodes[k++] = npu_graph_relu(g, dyn, "relu_dyn");
    assert_non_null(npu_graph_assign(g, npu_graph_add(g, rv, a, "upd"), "var1", "assign"));
    for (i = 0; i < k; i++) {
        assert_non_null(nodes[i]);
        assert_non_null(npu_graph_result(g, nodes[i], NULL));
    }
    assert_int_equal(npu_graph_status(g), NPU_OK);
    write_xml(layout_b(0));
    check_edges();

    check_data("matmul", "transpose_a", "false");
    check_data("matmul", "transpose_b", "true");
    assert_string_equal(dims(port(layer("matmul"), "output", 0)), "2,4");
    {
        static const char *const bin[][2] = {{"add", "Add"}, {"sub", "Subtract"}, {"mul", "Multiply"},
                                             {"div", "Divide"}, {"max", "Maximum"}, {"min", "Minimum"}};
        for (i = 0; i < 6; i++) {
            assert_string_equal(attr(layer(bin[i][0]), "type"), bin[i][1]);
            assert_string_equal(attr(layer(bin[i][0]), "version"), "opset1");
            check_data(bin[i][0], "auto_broadcast", "numpy");
        }
    }
    assert_string_equal(attr(layer("sigmoid"), "type"), "Sigmoid");
    assert_string_equal(attr(layer("tanh"), "type"), "Tanh");
    assert_string_equal(attr(layer("exp"), "type"), "Exp");
    assert_string_equal(attr(layer("sqrt"), "type"), "Sqrt");
    assert_null(child(layer("sqrt"), "data"));
    check_data("clamp", "min", "0");
    check_data("clamp", "max", "6");
    check_data("clamp_frac", "min", "-0.5");
    check_data("clamp_frac", "max", "0.25");
    assert_string_equal(attr(layer("softmax"), "type"), "SoftMax");
    assert_string_equal(attr(layer("softmax"), "version"), "opset8");
    check_data("softmax", "axis", "1");
    check_data("convert", "destination_type", "f16");
    assert_string_equal(attr(port(layer("convert"), "output", 0), "precision"), "FP16");
    assert_non_null(strstr((const char *)buf, "<data strides=\"2, 2\" dilations=\"1, 1\" pads_begin=\"0, 0\" "
                                              "pads_end=\"0, 0\" auto_pad=\"same_upper\" />"));
    assert_string_equal(attr(layer("gconv"), "type"), "GroupConvolution");
    assert_string_equal(dims(port(layer("gconv"), "output", 0)), "1,4,4,4");
    assert_non_null(strstr((const char *)buf, "<data strides=\"2, 2\" pads_begin=\"0, 0\" pads_end=\"0, 0\" "
                                              "kernel=\"2, 2\" rounding_type=\"floor\" auto_pad=\"explicit\" />"));
    assert_non_null(strstr((const char *)buf, "<data kernel=\"3, 3\" strides=\"2, 2\" pads_begin=\"1, 1\" "
                                              "pads_end=\"0, 0\" exclude-pad=\"true\" auto_pad=\"explicit\" "
                                              "rounding_type=\"ceil\" />"));
    assert_string_equal(dims(port(layer("avgpool"), "output", 0)), "1,4,4,4");
    check_data("rmean", "keep_dims", "true");
    check_data("rsum", "keep_dims", "false");
    assert_string_equal(dims(port(layer("rmean"), "output", 0)), "2,1");
    assert_string_equal(dims(port(layer("rsum"), "output", 0)), "2");
    {   /* axes / perm constants: i64, values as given */
        long long bytes;
        xmlNodePtr e;
        const char *names[] = {"rmean", "tr", "unsq", "sq"};
        const int64_t want[] = {-1, 1, 0, 0};
        for (i = 0; i < 4; i++) {
            xmlNodePtr l = layer(names[i]);
            long long src = -1;
            for (e = child(child(xmlDocGetRootElement(doc), "edges"), "edge"); e; e = e->next)
                if (e->type == XML_ELEMENT_NODE && attr_ll(e, "to-layer") == attr_ll(l, "id") &&
                    attr_ll(e, "to-port") == 1)
                    src = attr_ll(e, "from-layer");
            assert_true(src >= 0);
            assert_string_equal(attr(layer_by_id(src), "type"), "Const");
            assert_string_equal(attr(child(layer_by_id(src), "data"), "element_type"), "i64");
            assert_int_equal(const_pointer(attr(layer_by_id(src), "name"), &bytes)[0], want[i]);
        }
    }
    assert_null(child(layer("sq"), "data"));
    assert_int_equal(count_children(child(layer("sq_all"), "input"), "port"), 1);
    assert_string_equal(dims(port(layer("sq_all"), "output", 0)), "4,8,8");
    assert_string_equal(attr(layer("tr"), "type"), "Transpose");
    assert_string_equal(dims(port(layer("tr"), "output", 0)), "3,2");
    check_data("concat", "axis", "0");
    assert_string_equal(dims(port(layer("concat"), "output", 0)), "6,3");
    assert_string_equal(attr(layer("rv"), "version"), "opset6");
    check_data("rv", "variable_id", "var1");
    check_data("rv", "variable_type", "f32");
    check_data("rv", "variable_shape", "2,3");
    assert_string_equal(attr(layer("assign"), "type"), "Assign");
    assert_string_equal(attr(layer("assign"), "version"), "opset6");
    check_data("assign", "variable_id", "var1");
    /* Assign is a sink: after the other ops, before the Results */
    assert_string_equal(attr(layer_by_id(attr_ll(layer("assign"), "id") + 1), "type"), "Result");
    assert_string_equal(attr(layer_by_id(attr_ll(layer("assign"), "id") - 1), "name"), "upd");
    /* dynamic batch: "?" in the shape attribute, -1 in dims */
    check_data("dyn", "shape", "?,3");
    assert_string_equal(dims(port(layer("dyn"), "output", 0)), "-1,3");
    assert_string_equal(dims(port(layer("relu_dyn"), "output", 0)), "-1,3");
}

/* Three u8 constants of T-1, T and T+1 bytes around a threshold T. */
static unsigned char c63[63], c64[64], c65[65];

static void build_threshold_model(void)
{
    npu_node *cs[3], *x, *cat;
    int i;
    for (i = 0; i < 63; i++) c63[i] = (unsigned char)(i + 1);
    for (i = 0; i < 64; i++) c64[i] = (unsigned char)(100 + i);
    for (i = 0; i < 65; i++) c65[i] = (unsigned char)(200 - i);
    cs[0] = npu_graph_constant(g, "c63", NPU_U8, &(npu_shape){1, {63}}, c63, 63);
    cs[1] = npu_graph_constant(g, "c64", NPU_U8, &(npu_shape){1, {64}}, c64, 64);
    cs[2] = npu_graph_constant(g, "c65", NPU_U8, &(npu_shape){1, {65}}, c65, 65);
    x = param("x", NPU_U8, (npu_shape){1, {192}}, NULL);
    cat = npu_graph_concat(g, cs, 3, 0, "cat");
    assert_non_null(npu_graph_result(g, npu_graph_add(g, x, cat, "sum"), "y"));
    assert_int_equal(npu_graph_status(g), NPU_OK);
}

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    int i;
    for (i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void write_payload(const npu_payload_options *o)
{
    size_t need = 0, got = 0;
    assert_int_equal(npu_graph_write_payload(g, o, NULL, 0, &need), NPU_OK);
    free(buf);
    buf = malloc(need);
    assert_non_null(buf);
    /* one byte short fails and says how much is needed */
    assert_int_equal(npu_graph_write_payload(g, o, buf, need - 1, &got), NPU_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(got, need);
    assert_int_equal(npu_graph_write_payload(g, o, buf, need, &got), NPU_OK);
    assert_int_equal(got, need);
    buf_size = need;
}

static void test_payload_b_parses_back_byte_by_byte(void **state)
{
    uint64_t custom_off, custom_size, consts_off, consts_size, model_off, model_size;
    long long bytes;
    (void)state;
    build_threshold_model();
    write_payload(layout_b(64));
    custom_off = le(buf, 8);
    custom_size = le(buf + 8, 8);
    consts_off = le(buf + 16, 8);
    consts_size = le(buf + 24, 8);
    model_off = le(buf + 32, 8);
    model_size = le(buf + 40, 8);
    assert_int_equal(custom_off, 48);
    assert_int_equal(custom_size, 4);
    assert_int_equal(le(buf + 48, 2), 7);   /* compiler major */
    assert_int_equal(le(buf + 50, 2), 21);  /* compiler minor */
    assert_int_equal(consts_off, 52);
    assert_int_equal(consts_size, 63);      /* only the constant below the threshold */
    assert_memory_equal(buf + consts_off, c63, 63);
    assert_int_equal(model_off, consts_off + consts_size);
    assert_int_equal(model_off + model_size, buf_size);
    doc = parse(buf + model_off, model_size);
    /* T-1: copied, offset into the blob, no pointer */
    check_data("c63", "offset", "0");
    check_data("c63", "size", "63");
    assert_null(child(layer("c63"), "rt_info"));
    /* T and T+1: by pointer */
    check_data("c64", "offset", "0");
    assert_ptr_equal(const_pointer("c64", &bytes), (const void *)c64);
    assert_int_equal(bytes, 64);
    assert_ptr_equal(const_pointer("c65", &bytes), (const void *)c65);
    assert_int_equal(bytes, 65);
    check_edges();
    /* the XML alone is the same text */
    {
        size_t n = 0;
        unsigned char *x = malloc(model_size);
        assert_int_equal(npu_graph_write_xml(g, layout_b(64), x, model_size, &n), NPU_OK);
        assert_int_equal(n, model_size);
        assert_memory_equal(x, buf + model_off, model_size);
        free(x);
    }
    /* threshold T+2: all three copied, packed in layer order */
    xmlFreeDoc(doc);
    doc = NULL;
    write_payload(layout_b(66));
    assert_int_equal(le(buf + 24, 8), 63 + 64 + 65);
    assert_memory_equal(buf + 52, c63, 63);
    assert_memory_equal(buf + 52 + 63, c64, 64);
    assert_memory_equal(buf + 52 + 127, c65, 65);
    doc = parse(buf + le(buf + 32, 8), le(buf + 40, 8));
    check_data("c64", "offset", "63");
    check_data("c65", "offset", "127");
    check_data("c65", "size", "65");
    assert_null(child(layer("c65"), "rt_info"));
    /* threshold 0 (default): every constant by pointer, empty blob */
    xmlFreeDoc(doc);
    doc = NULL;
    write_payload(layout_b(0));
    assert_int_equal(le(buf + 24, 8), 0);
    doc = parse(buf + le(buf + 32, 8), le(buf + 40, 8));
    assert_ptr_equal(const_pointer("c63", &bytes), (const void *)c63);
}

static void test_payload_a_parses_back_byte_by_byte(void **state)
{
    uint64_t xml_size, w_size;
    size_t n = 0;
    unsigned char bin[192];
    (void)state;
    build_threshold_model();
    write_payload(layout_a());
    assert_int_equal(le(buf, 2), 7);
    assert_int_equal(le(buf + 2, 2), 21);
    assert_int_equal(le(buf + 4, 4), 2);
    xml_size = le(buf + 8, 8);
    w_size = le(buf + 16 + xml_size, 8);
    assert_int_equal(w_size, 192);
    assert_int_equal(24 + xml_size + w_size, buf_size);
    assert_memory_equal(buf + 24 + xml_size, c63, 63);
    assert_memory_equal(buf + 24 + xml_size + 63, c64, 64);
    assert_memory_equal(buf + 24 + xml_size + 127, c65, 65);
    doc = parse(buf + 16, xml_size);
    check_data("c63", "offset", "0");
    check_data("c64", "offset", "63");
    check_data("c65", "offset", "127");
    assert_null(child(layer("c65"), "rt_info"));
    check_edges();
    /* write_bin is the weights section */
    assert_int_equal(npu_graph_write_bin(g, NULL, 0, &n), NPU_OK);
    assert_int_equal(n, 192);
    assert_int_equal(npu_graph_write_bin(g, bin, 191, &n), NPU_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(npu_graph_write_bin(g, bin, sizeof bin, &n), NPU_OK);
    assert_memory_equal(bin, buf + 24 + xml_size, 192);
}

static void test_every_buffer_below_the_size_fails_cleanly(void **state)
{
    size_t need = 0, cap, got;
    unsigned char *out;
    (void)state;
    build_threshold_model();
    assert_int_equal(npu_graph_write_payload(g, layout_a(), NULL, 0, &need), NPU_OK);
    out = malloc(need);
    for (cap = 0; cap < need; cap++) {
        got = 0;
        assert_int_equal(npu_graph_write_payload(g, layout_a(), out, cap, &got), NPU_ERR_BUFFER_TOO_SMALL);
        assert_int_equal(got, need);
    }
    assert_int_equal(npu_graph_write_payload(g, layout_a(), out, need, &got), NPU_OK);
    free(out);
    assert_non_null(strstr(npu_context_last_error(ctx), "bytes needed"));
}

static void test_writer_refuses_bad_options_and_bad_graphs(void **state)
{
    size_t n;
    npu_payload_options o;
    npu_node *x;
    (void)state;
    x = param("x", NPU_F32, (npu_shape){1, {4}}, NULL);
    assert_int_equal(npu_graph_write_xml(g, NULL, NULL, 0, &n), NPU_ERR_STATE);  /* no Result */
    assert_non_null(strstr(npu_context_last_error(ctx), "has no Result"));
    assert_non_null(npu_graph_result(g, x, "y"));
    memset(&o, 0, sizeof o);
    assert_int_equal(npu_graph_write_payload(g, &o, NULL, 0, &n), NPU_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(npu_context_last_error(ctx), "compiler_version is 0"));
    assert_int_equal(npu_graph_write_payload(g, NULL, NULL, 0, &n), NPU_ERR_INVALID_ARGUMENT);
    o.compiler_version = CV;
    o.layout = (npu_payload_layout)7;
    assert_int_equal(npu_graph_write_payload(g, &o, NULL, 0, &n), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_graph_write_xml(g, NULL, NULL, 0, NULL), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_graph_write_xml(NULL, NULL, NULL, 0, &n), NPU_ERR_INVALID_ARGUMENT);
    /* a sticky builder error blocks writing */
    assert_null(npu_graph_add(g, x, param("z", NPU_F32, (npu_shape){1, {3}}, NULL), "bad"));
    assert_int_equal(npu_graph_write_payload(g, layout_b(0), NULL, 0, &n), NPU_ERR_STATE);
    assert_non_null(strstr(npu_context_last_error(ctx), "has an earlier error: Add 'bad'"));
    npu_graph_clear_status(g);
    assert_int_equal(npu_graph_write_payload(g, layout_b(0), NULL, 0, &n), NPU_OK);
}

static void test_layout_b_size_does_not_grow_with_weights(void **state)
{
    static float big[1 << 18]; /* 1 MiB */
    size_t nb = 0, na = 0, nb_small = 0;
    npu_node *x = param("x", NPU_F32, (npu_shape){2, {1, 512}}, NULL);
    npu_node *w = npu_graph_constant(g, "w", NPU_F32, &(npu_shape){2, {512, 512}}, big, sizeof big);
    (void)state;
    assert_non_null(npu_graph_result(g, npu_graph_matmul(g, x, w, 0, 0, "mm"), "y"));
    assert_int_equal(npu_graph_write_payload(g, layout_b(0), NULL, 0, &nb), NPU_OK);
    assert_int_equal(npu_graph_write_payload(g, layout_a(), NULL, 0, &na), NPU_OK);
    assert_true(nb < 4096);
    assert_true(na > sizeof big);
    /* the same model with a 16-byte constant: B differs only in the numbers' digits */
    assert_int_equal(npu_arena_init(&arena, mem, sizeof mem), NPU_OK);
    assert_int_equal(npu_graph_create(&arena, ctx, NULL, &g), NPU_OK);
    x = param("x", NPU_F32, (npu_shape){2, {1, 2}}, NULL);
    w = npu_graph_constant(g, "w", NPU_F32, &(npu_shape){2, {2, 2}}, big, 16);
    assert_non_null(npu_graph_result(g, npu_graph_matmul(g, x, w, 0, 0, "mm"), "y"));
    assert_int_equal(npu_graph_write_payload(g, layout_b(0), NULL, 0, &nb_small), NPU_OK);
    assert_true(nb - nb_small < 64);
}

static void test_names_are_escaped(void **state)
{
    npu_node *x = param("in<&\"'>", NPU_F32, (npu_shape){1, {4}}, NULL);
    (void)state;
    assert_non_null(npu_graph_result(g, npu_graph_relu(g, x, "r"), "out,1"));
    write_xml(NULL);
    assert_string_equal(attr(layer("in<&\"'>"), "type"), "Parameter");
    assert_string_equal(attr(port(layer("in<&\"'>"), "output", 0), "names"), "in<&\"'>");
    assert_string_equal(attr(port(layer("r"), "output", 0), "names"), "out\\,1");
    assert_string_equal(attr(layer("out,1"), "type"), "Result");
}

static void test_xml_follows_set_batch(void **state)
{
    (void)state;
    build_cnn();
    assert_int_equal(npu_graph_set_batch(g, 3), NPU_OK);
    write_xml(NULL);
    check_data("x", "shape", "3,3,8,8");
    assert_string_equal(dims(port(layer("conv"), "output", 0)), "3,4,8,8");
    assert_string_equal(dims(port(layer("out"), "input", 0)), "3,64");
    check_edges();
    assert_int_equal(npu_graph_set_batch(g, NPU_DIM_DYNAMIC), NPU_OK);
    write_xml(NULL);
    check_data("x", "shape", "?,3,8,8");
    assert_string_equal(dims(port(layer("pool"), "output", 0)), "-1,4,4,4");
    assert_string_equal(dims(port(layer("out"), "input", 0)), "-1,64");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_xml_has_the_openvino_v11_form, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_op_writes_openvino_attributes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_payload_b_parses_back_byte_by_byte, setup, teardown),
        cmocka_unit_test_setup_teardown(test_payload_a_parses_back_byte_by_byte, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_buffer_below_the_size_fails_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(test_writer_refuses_bad_options_and_bad_graphs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_layout_b_size_does_not_grow_with_weights, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names_are_escaped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_xml_follows_set_batch, setup, teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    xmlCleanupParser();
    return rc;
}
