/* IR loader against hostile input: truncated, non-XML, oversized, deeply
 * nested, misnumbered and inconsistent files are refused with the right status
 * and a message naming line and column, and the arena is left as it was. */
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

static _Alignas(16) unsigned char ctx_mem[8192];
static _Alignas(16) unsigned char arena_mem[1u << 18];
static npu_context *ctx;
static unsigned char weights[16];

static const char base[] =
    "<?xml version=\"1.0\"?>\n"
    "<net name=\"m\" version=\"11\">\n"
    "<layers>\n"
    "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data shape=\"1,4\" element_type=\"f32\"/>"
    "<output><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>4</dim></port></output></layer>\n"
    "<layer id=\"1\" name=\"c\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"1,4\" offset=\"0\" size=\"16\"/>"
    "<output><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>4</dim></port></output></layer>\n"
    "<layer id=\"2\" name=\"add\" type=\"Add\" version=\"opset1\"><input><port id=\"0\"><dim>1</dim><dim>4</dim></port>"
    "<port id=\"1\"><dim>1</dim><dim>4</dim></port></input><output><port id=\"2\" precision=\"FP32\"><dim>1</dim>"
    "<dim>4</dim></port></output></layer>\n"
    "<layer id=\"3\" name=\"r\" type=\"Result\" version=\"opset1\"><input><port id=\"0\"><dim>1</dim><dim>4</dim></port></input></layer>\n"
    "</layers>\n"
    "<edges>\n"
    "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"2\" to-port=\"0\"/>\n"
    "<edge from-layer=\"1\" from-port=\"0\" to-layer=\"2\" to-port=\"1\"/>\n"
    "<edge from-layer=\"2\" from-port=\"2\" to-layer=\"3\" to-port=\"0\"/>\n"
    "</edges>\n"
    "</net>\n";

static int setup(void **state)
{
    npu_arena ca;
    (void)state;
    assert_int_equal(npu_arena_init(&ca, ctx_mem, sizeof ctx_mem), NPU_OK);
    assert_int_equal(npu_context_create(&ca, NULL, &ctx), NPU_OK);
    return 0;
}

/* base with the first `from` replaced by `to` (malloc). */
static char *subst(const char *text, const char *from, const char *to)
{
    const char *hit = strstr(text, from);
    size_t a, b = strlen(from), c = strlen(to), n = strlen(text);
    char *out;
    if (hit == NULL) fail_msg("'%s' not in the base text", from);
    a = (size_t)(hit - text);
    out = (char *)malloc(n - b + c + 1);
    memcpy(out, text, a);
    memcpy(out + a, to, c);
    memcpy(out + a + c, hit + b, n - a - b + 1);
    return out;
}

/* Loads xml (with `bin` bytes of weights); returns the status; checks the arena
 * is untouched on failure. */
static npu_status load(const char *xml, size_t len, size_t bin)
{
    npu_arena a;
    npu_ir *ir = (npu_ir *)&a;
    npu_status st;
    assert_int_equal(npu_arena_init(&a, arena_mem, sizeof arena_mem), NPU_OK);
    npu_context_clear_error(ctx);
    st = npu_ir_load_memory(&a, ctx, xml, len, weights, bin, &ir);
    if (st != NPU_OK) {
        assert_null(ir);
        assert_int_equal(npu_arena_used(&a), 0);
        assert_int_equal(npu_context_last_status(ctx), st);
    }
    return st;
}

static void expect(const char *xml, npu_status want, const char *needle)
{
    npu_status st = load(xml, strlen(xml), sizeof weights);
    const char *msg = npu_context_last_error(ctx);
    if (st != want) fail_msg("status %d, want %d (%s) for:\n%.300s", st, want, msg, xml);
    if (strstr(msg, "line ") == NULL || strstr(msg, ", column ") == NULL)
        fail_msg("message without line/column: %s", msg);
    if (needle && strstr(msg, needle) == NULL) fail_msg("message '%s' lacks '%s'", msg, needle);
    if (want != NPU_ERR_FORMAT) {  /* the size query (no weights) sees the same, */
        size_t need;                /* except graph checks that need the tables */
        npu_status q = npu_ir_size(ir_size_scratch(), ctx, xml, strlen(xml), &need);
        int graph = strstr(needle ? needle : "", "edge") || strstr(needle ? needle : "", "duplicate layer");
        if (!(q == want || (graph && q == NPU_OK))) fail_msg("size query: status %d, want %d (%s)", q, want, needle);
    }
}

static void test_the_base_model_loads(void **state)
{
    (void)state;
    assert_int_equal(load(base, strlen(base), 16), NPU_OK);
}

static const struct {
    const char *from, *to;
    npu_status status;
    const char *needle;
} cases[] = {
    {"version=\"11\"", "version=\"7\"", NPU_ERR_UNSUPPORTED, "IR version \"7\" is not supported"},
    {" version=\"11\"", "", NPU_ERR_PARSE, "no version"},
    {"size=\"16\"", "size=\"12\"", NPU_ERR_PARSE, "size 12 does not match its shape [1,4] of f32 (16 bytes)"},
    {"offset=\"0\"", "offset=\"1\"", NPU_ERR_FORMAT, "beyond the end of the weights (16 bytes)"},
    {"offset=\"0\"", "offset=\"18446744073709551615\"", NPU_ERR_FORMAT, "layer 'c'"},
    {"offset=\"0\"", "offset=\"99999999999999999999\"", NPU_ERR_PARSE, "numeric offset"},
    {"size=\"16\"", "", NPU_ERR_PARSE, "numeric size"},
    {"to-layer=\"3\"", "to-layer=\"9\"", NPU_ERR_PARSE, "edge to-layer 9: no layer with that id"},
    {"from-layer=\"0\"", "from-layer=\"77\"", NPU_ERR_PARSE, "edge from-layer 77"},
    {"from-port=\"2\"", "from-port=\"5\"", NPU_ERR_PARSE, "edge from-layer 2 from-port 5: layer 'add' has no output port 5"},
    {" to-port=\"1\"", "", NPU_ERR_PARSE, "to-port"},
    {"<edge from-layer=\"2\" from-port=\"2\" to-layer=\"3\" to-port=\"0\"/>", "", NPU_ERR_PARSE, "incoming edge"},
    {"id=\"1\" name=\"c\"", "id=\"0\" name=\"c\"", NPU_ERR_PARSE, "duplicate layer id 0"},
    {"<layer id=\"0\"", "<layer id=\"-3\"", NPU_ERR_PARSE, "layer id"},
    {"<layer id=\"0\"", "<layer", NPU_ERR_PARSE, "without an id"},
    {"<dim>1</dim>", "<dim>x1</dim>", NPU_ERR_PARSE, "<dim>x1</dim>"},
    {"<dim>1</dim>", "<dim>99999999999999</dim>", NPU_ERR_PARSE, "<dim>"},
    {"<dim>1</dim>", "<dim></dim>", NPU_ERR_PARSE, "empty <dim>"},
    {"<dim>1</dim>", "<dim>1<x/>2</dim>", NPU_ERR_PARSE, "more than one value"},
    {"shape=\"1,4\" element_type", "shape=\"1,,4\" element_type", NPU_ERR_PARSE, "invalid dimension"},
    {"shape=\"1,4\" element_type", "shape=\"1..?x,4\" element_type", NPU_ERR_PARSE, "invalid dimension"},
    {"shape=\"1,4\" element_type", "shape=\"1..-1x,4\" element_type", NPU_ERR_PARSE, "invalid dimension"},
    {"shape=\"1,4\" element_type", "shape=\"1,1,1,1,1,1,1,1,4\" element_type", NPU_ERR_LIMIT, "NPU_MAX_RANK"},
    {"shape=\"1,4\" element_type", "shape=\"...\" element_type", NPU_ERR_UNSUPPORTED, "dynamic rank"},
    {"element_type=\"f32\" shape=\"1,4\" offset", "element_type=\"string\" shape=\"1,4\" offset", NPU_ERR_UNSUPPORTED, "string constants"},
    {"element_type=\"f32\" shape=\"1,4\" offset", "element_type=\"q7\" shape=\"1,4\" offset", NPU_ERR_UNSUPPORTED, "unknown element_type \"q7\""},
    {"element_type=\"f32\" shape=\"1,4\" offset", "element_type=\"f32\" shape=\"?,4\" offset", NPU_ERR_PARSE, "dynamic shape"},
    {"name=\"x\"", "name=\"a&foo;b\"", NPU_ERR_PARSE, "invalid entity"},
    {"name=\"x\"", "name=\"a&#0;b\"", NPU_ERR_PARSE, "invalid entity"},
    {"name=\"x\"", "name=\"a&#6@;b\"", NPU_ERR_PARSE, "invalid entity"},   /* '@' | 0x20 is 'a' - 1 */
    {"name=\"x\"", "name=\"a&#@;b\"", NPU_ERR_PARSE, "invalid entity"},
    {"name=\"x\"", "name=\"a&#x4`;b\"", NPU_ERR_PARSE, "invalid entity"},
    {"name=\"x\"", "name=\"a&#xg;b\"", NPU_ERR_PARSE, "invalid entity"},
    {"name=\"x\"", "name=\"a&#a;b\"", NPU_ERR_PARSE, "invalid entity"},
    {"name=\"x\"", "name=\"a<b\"", NPU_ERR_PARSE, "'<' inside an attribute value"},
    {"name=\"x\"", "name=\"\x01\"", NPU_ERR_PARSE, "control character 0x01"},
    {"name=\"x\"", "name=\"\xff\"", NPU_ERR_PARSE, "invalid UTF-8"},
    {"name=\"m\"", "name=\"m\" name=\"n\"", NPU_ERR_PARSE, "duplicate attribute 'name'"},
    {"name=\"m\"", "name=m", NPU_ERR_PARSE, "not quoted"},
    {"name=\"m\"", "name", NPU_ERR_PARSE, "has no '='"},
    {"name=\"m\"", "name=\"m\"version=\"3\"", NPU_ERR_PARSE, "missing whitespace"},
    {"<layers>", "<!DOCTYPE net [<!ENTITY a \"b\">]><layers>", NPU_ERR_PARSE, "DOCTYPE"},
    {"</layers>", "</layer>", NPU_ERR_PARSE, "end tag </layer> does not match <layers>"},
    {"<layers>", "<layers><!-- a -- b -->", NPU_ERR_PARSE, "'--' inside a comment"},
    {"<layers>", "<layers><!-- never closed", NPU_ERR_PARSE, "unterminated comment"},
    {"<layers>", "<layers><![CDATA[ never closed", NPU_ERR_PARSE, "unterminated CDATA"},
    {"<layers>", "<layers><?pi never closed", NPU_ERR_PARSE, "unterminated processing instruction"},
    {"<layers>", "<layers>]]>", NPU_ERR_PARSE, "']]>'"},
    {"<layers>", "<layers><1a/>", NPU_ERR_PARSE, "element name"},
    {"<layers>", "<layers></x>", NPU_ERR_PARSE, "does not match"},
    {"<net name=\"m\" version=\"11\">", "<model version=\"11\">", NPU_ERR_PARSE, "expected <net>"},
    {"</net>", "</net><net/>", NPU_ERR_PARSE, "second root"},
    {"</net>", "</net>tail", NPU_ERR_PARSE, "text outside the root element"},
    {"<?xml version=\"1.0\"?>", " <?xml version=\"1.0\"?>", NPU_ERR_PARSE, "very start"},
    {"<layer id=\"3\" name=\"r\" type=\"Result\" version=\"opset1\"><input>", "<layer id=\"3\" name=\"r\" type=\"Result\" version=\"opset1\"><output>", NPU_ERR_PARSE, "does not match"},
};

static void test_every_malformed_case_is_refused_with_line_and_column(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *xml = subst(base, cases[i].from, cases[i].to);
        expect(xml, cases[i].status, cases[i].needle);
        free(xml);
    }
}

static void test_messages_point_at_the_offending_line(void **state)
{
    char *xml = subst(base, "size=\"16\"", "size=\"4\"");
    (void)state;
    expect(xml, NPU_ERR_PARSE, "line 5, column ");
    assert_non_null(strstr(npu_context_last_error(ctx), "(layer 'c', id 1)"));
    free(xml);
    xml = subst(base, "to-layer=\"3\"", "to-layer=\"30\"");
    expect(xml, NPU_ERR_PARSE, "line 12, column 1: edge to-layer 30");
    free(xml);
}

static void test_every_truncation_is_a_parse_error(void **state)
{
    size_t n, end = (size_t)(strstr(base, "</net>") - base) + 6;
    (void)state;
    for (n = 0; n < end; n++) {
        npu_status st = load(base, n, 16);
        if (st != NPU_ERR_PARSE) fail_msg("prefix %zu: status %d (%s)", n, st, npu_context_last_error(ctx));
        assert_non_null(strstr(npu_context_last_error(ctx), "line "));
    }
    assert_int_equal(load(base, end, 16), NPU_OK);
}

static void test_non_xml_is_a_parse_error(void **state)
{
    static const char *const junk[] = {"hello world", "<", "<<<>>>", "{\"net\": 1}", "<net", "<?xml", "\x89PNG\r\n"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        assert_int_equal(load(junk[i], strlen(junk[i]), 0), NPU_ERR_PARSE);
        assert_non_null(strstr(npu_context_last_error(ctx), "line 1, column"));
    }
    assert_int_equal(load("\0\0\0", 3, 0), NPU_ERR_PARSE);
    assert_int_equal(load("", 0, 0), NPU_ERR_PARSE);
}

static void test_huge_attribute_and_deep_nesting_hit_the_limits(void **state)
{
    size_t big = NPU_IR_MAX_ATTR_VALUE + 10, i;
    char *value = (char *)malloc(big + 16), *xml, *nest;
    (void)state;
    memcpy(value, "name=\"", 6);
    memset(value + 6, 'A', big);
    strcpy(value + 6 + big, "\"");
    xml = subst(base, "name=\"x\"", value);
    expect(xml, NPU_ERR_PARSE, "NPU_IR_MAX_ATTR_VALUE");
    free(xml);
    /* one byte under the limit is fine */
    value[6 + NPU_IR_MAX_ATTR_VALUE] = '"';
    value[7 + NPU_IR_MAX_ATTR_VALUE] = '\0';
    xml = subst(base, "name=\"x\"", value);
    assert_int_equal(load(xml, strlen(xml), 16), NPU_OK);
    free(xml);
    free(value);
    nest = (char *)malloc(200 * 8 + 16);
    strcpy(nest, "<layers>");
    for (i = 0; i < 200; i++) strcat(nest, "<a>");
    for (i = 0; i < 200; i++) strcat(nest, "</a>");
    xml = subst(base, "<layers>", nest);
    expect(xml, NPU_ERR_PARSE, "NPU_IR_MAX_DEPTH");
    free(xml);
    free(nest);
    {   /* a long element name */
        char name[400];
        memset(name, 'n', sizeof name);
        memcpy(name, "<layers><", 9);
        strcpy(name + 380, "/>");
        xml = subst(base, "<layers>", name);
        expect(xml, NPU_ERR_PARSE, "NPU_IR_MAX_NAME");
        free(xml);
    }
}

static void test_short_weights_are_a_format_error(void **state)
{
    (void)state;
    assert_int_equal(load(base, strlen(base), 15), NPU_ERR_FORMAT);
    assert_non_null(strstr(npu_context_last_error(ctx), "line 5"));
    assert_non_null(strstr(npu_context_last_error(ctx), "(15 bytes)"));
}

static void test_valid_xml_features_are_accepted(void **state)
{
    char *a = subst(base, "name=\"x\"", "name = 'a&amp;b&#65;&#x42;&#x4a;&#x4A;&#x6F;&lt;&gt;&quot;&apos;\xc3\xa9'");
    char *b = subst(a, "<layers>", "<layers><!-- a comment --><?pi some data?>\n<unknown><![CDATA[<x>]]></unknown>");
    char *c = subst(b, "<dim>4</dim>", "<dim><![CDATA[4]]></dim>");
    char *d = (char *)malloc(strlen(c) + 4);
    npu_arena ar;
    npu_ir *ir;
    (void)state;
    memcpy(d, "\xEF\xBB\xBF", 3);   /* byte order mark */
    strcpy(d + 3, c);
    assert_int_equal(npu_arena_init(&ar, arena_mem, sizeof arena_mem), NPU_OK);
    if (npu_ir_load_memory(&ar, ctx, d, strlen(d), weights, 16, &ir) != NPU_OK) fail_msg("%s", npu_context_last_error(ctx));
    assert_string_equal(npu_ir_input(ir, 0)->desc.name, "a&bABJJo<>\"'\xc3\xa9");
    assert_int_equal(npu_ir_input(ir, 0)->desc.shape.dims[1], 4);
    {   /* layout A reproduces the text exactly */
        npu_payload_options o = {.layout = NPU_PAYLOAD_WEIGHTS_COPY, .weights_threshold_bytes = 0, .compiler_version = 1};
        size_t n;
        unsigned char *p;
        assert_int_equal(npu_ir_write_payload(ir, &o, NULL, 0, &n), NPU_OK);
        p = (unsigned char *)malloc(n);
        assert_int_equal(npu_ir_write_payload(ir, &o, p, n, &n), NPU_OK);
        {
            size_t elen;
            char *want = irl_with_net_rt(d, strlen(d), &elen);
            assert_memory_equal(p + 16, want, elen);   /* but for the net rt_info */
            free(want);
        }
        free(p);
    }
    free(a);
    free(b);
    free(c);
    free(d);
}

static void test_sub_byte_consts_are_packed(void **state)
{
    char *a;
    (void)state;
    a = subst(base, "element_type=\"f32\" shape=\"1,4\" offset=\"0\" size=\"16\"",
              "element_type=\"u1\" shape=\"2,5\" offset=\"0\" size=\"2\"");
    assert_int_equal(load(a, strlen(a), 16), NPU_OK);
    free(a);
    a = subst(base, "element_type=\"f32\" shape=\"1,4\" offset=\"0\" size=\"16\"",
              "element_type=\"u1\" shape=\"2,5\" offset=\"0\" size=\"1\"");
    expect(a, NPU_ERR_PARSE, "(2 bytes)");
    free(a);
    a = subst(base, "element_type=\"f32\" shape=\"1,4\" offset=\"0\" size=\"16\"",
              "element_type=\"i4\" shape=\"3\" offset=\"0\" size=\"2\"");
    assert_int_equal(load(a, strlen(a), 16), NPU_OK);
    free(a);
    a = subst(base, "element_type=\"f32\" shape=\"1,4\" offset=\"0\" size=\"16\"",
              "element_type=\"u4\" shape=\"1099511627776,1099511627776\" offset=\"0\" size=\"2\"");
    expect(a, NPU_ERR_PARSE, "overflows");
    free(a);
    {   /* no shape attribute: the output port's dims count, and overflow the same */
        char *b = subst(base, "element_type=\"f32\" shape=\"1,4\" offset=\"0\" size=\"16\"",
                        "element_type=\"f32\" offset=\"0\" size=\"0\"");
        a = subst(b, "<dim>1</dim><dim>4</dim></port></output></layer>\n<layer id=\"2\"",
                  "<dim>1099511627776</dim><dim>1099511627776</dim><dim>1099511627776</dim></port></output>"
                  "</layer>\n<layer id=\"2\"");
        expect(a, NPU_ERR_PARSE, "overflows");
        free(a);
        a = subst(b, "<dim>1</dim><dim>4</dim></port></output></layer>\n<layer id=\"2\"",
                  "<dim>1</dim><dim>0</dim></port></output></layer>\n<layer id=\"2\"");
        assert_int_equal(load(a, strlen(a), 16), NPU_OK);   /* an empty Const is fine */
        free(a);
        free(b);
    }
}

static void test_body_edges_refer_to_body_layers(void **state)
{
    char xp[512];
    size_t len = 0;
    char *ti = irl_read(irl_data("irl_ti_body_v11.xml", xp, sizeof xp), &len), *bad;
    (void)state;
    assert_non_null(ti);
    assert_int_equal(load(ti, len, 12), NPU_OK);
    bad = subst(ti, "<edge from-layer=\"1\" from-port=\"0\" to-layer=\"2\" to-port=\"1\" />",
                "<edge from-layer=\"4\" from-port=\"0\" to-layer=\"2\" to-port=\"1\" />");
    expect(bad, NPU_ERR_PARSE, "edge from-layer 4: no layer with that id in this <body>");
    free(bad);
    bad = subst(ti, "offset=\"0\" size=\"8\"", "offset=\"0\" size=\"9\"");
    expect(bad, NPU_ERR_PARSE, "layer 'step_bias', id 1, in a <body>");
    free(bad);
    free(ti);
}

/* A layout rt_info that npu cannot represent (too long, or not letters) is
 * ignored, whatever its length: the input keeps no layout and no stray bytes. */
static void test_unrepresentable_port_layouts_are_ignored(void **state)
{
    static const char *const layouts[] = {
        "[A,B,C,D,E,F,G,H,I,J,K,L,M,N,O,P]",   /* one letter too many for NPU_LAYOUT_MAX */
        "[A,B,C,D,E,F,G,H,I,J,K,L,M,...]",     /* "..." does not fit either */
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "[N,C1]",
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        char port[200], *xml;
        npu_arena a;
        npu_ir *ir;
        snprintf(port, sizeof port, "<dim>4</dim><rt_info><attribute name=\"layout\" version=\"0\" "
                 "layout=\"%s\"/></rt_info></port></output></layer>", layouts[i]);
        xml = subst(base, "<dim>4</dim></port></output></layer>", port);
        assert_int_equal(npu_arena_init(&a, arena_mem, sizeof arena_mem), NPU_OK);
        if (npu_ir_load_memory(&a, ctx, xml, strlen(xml), weights, 16, &ir) != NPU_OK)
            fail_msg("%s: %s", layouts[i], npu_context_last_error(ctx));
        assert_string_equal(npu_ir_input(ir, 0)->desc.layout, "");
        assert_int_equal(npu_ir_input(ir, 0)->batch_axis, 0);
        free(xml);
    }
}

/* Everything the compiler's reader (libxml2) would classify, npu classifies
 * the same way first: character references are decoded, prefixed names are
 * refused, and a file never passes a weights address of its own. */
static void test_no_pointer_or_hidden_const_from_the_file(void **state)
{
    static const char *const wpa[] = {
        "<attribute name=\"WeightsPointerAttribute\" version=\"0\" mp=\"4096\" ms=\"16\"/>",
        "<attribute name=\"Weights&#80;ointerAttribute\" version=\"0\" mp=\"4096\" ms=\"16\"/>",
        "<attribute name=\"WeightsPointerAttribute\" np=\"4096\" ns=\"16\"></attribute>",
        "<attribute name=\"WeightsPointerAttribute\" ptr=\"4096\"/>",
        "<attribute name=\"WeightsPointerAttribute\" mpZ=\"4096\" msZ=\"16\"/>",
    };
    char buf[512];
    char *x;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof wpa / sizeof wpa[0]; i++) {
        snprintf(buf, sizeof buf, "offset=\"0\" size=\"16\"/><rt_info>%s</rt_info>", wpa[i]);
        x = subst(base, "offset=\"0\" size=\"16\"/>", buf);
        assert_int_equal(load(x, strlen(x), 16), NPU_ERR_FORMAT);
        assert_non_null(strstr(npu_context_last_error(ctx), "WeightsPointerAttribute"));
        free(x);
        /* on another layer, and on a port's rt_info, too */
        snprintf(buf, sizeof buf, "type=\"Add\" version=\"opset1\"><rt_info>%s</rt_info>", wpa[i]);
        x = subst(base, "type=\"Add\" version=\"opset1\">", buf);
        assert_int_equal(load(x, strlen(x), 16), NPU_ERR_FORMAT);
        free(x);
    }
    /* A Const spelled with a character reference is a Const: its bytes are
     * bounds-checked (they lay past the 16-byte .bin and loaded with NPU_OK). */
    x = subst(base, "type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"1,4\" offset=\"0\"",
              "type=\"Con&#115;t\" version=\"opset1\"><data element_type=\"f32\" shape=\"1,4\" offset=\"4096\"");
    assert_int_equal(load(x, strlen(x), 16), NPU_ERR_FORMAT);
    assert_non_null(strstr(npu_context_last_error(ctx), "beyond the end of the weights"));
    free(x);
    x = subst(base, "type=\"Const\"", "type=\"&#x43;onst\"");
    {
        npu_arena a;
        npu_ir *ir = NULL;
        assert_int_equal(npu_arena_init(&a, arena_mem, sizeof arena_mem), NPU_OK);
        assert_int_equal(npu_ir_load_memory(&a, ctx, x, strlen(x), weights, 16, &ir), NPU_OK);
        assert_int_equal(npu_ir_const_count(ir), 1);
        npu_ir_close(ir);
    }
    free(x);
    /* Prefixed attribute and element names (libxml2 sees their local names). */
    x = subst(base, "type=\"Const\"", "a:type=\"Const\" type=\"Foo\" xmlns:a=\"urn:x\"");
    assert_int_equal(load(x, strlen(x), 16), NPU_ERR_PARSE);
    assert_non_null(strstr(npu_context_last_error(ctx), "namespace prefix"));
    free(x);
    x = subst(base, "<layers>", "<n:layers xmlns:n=\"urn:x\"></n:layers><layers>");
    assert_int_equal(load(x, strlen(x), 16), NPU_ERR_PARSE);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_base_model_loads),
        cmocka_unit_test(test_every_malformed_case_is_refused_with_line_and_column),
        cmocka_unit_test(test_messages_point_at_the_offending_line),
        cmocka_unit_test(test_every_truncation_is_a_parse_error),
        cmocka_unit_test(test_non_xml_is_a_parse_error),
        cmocka_unit_test(test_huge_attribute_and_deep_nesting_hit_the_limits),
        cmocka_unit_test(test_short_weights_are_a_format_error),
        cmocka_unit_test(test_valid_xml_features_are_accepted),
        cmocka_unit_test(test_sub_byte_consts_are_packed),
        cmocka_unit_test(test_body_edges_refer_to_body_layers),
        cmocka_unit_test(test_unrepresentable_port_layouts_are_ignored),
        cmocka_unit_test(test_no_pointer_or_hidden_const_from_the_file),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
