/* Differential libFuzzer target: npu's IR scanner (section 8 of npu.c) against
 * libxml2, the reader of the sim's compiler and of the real one.
 *
 *   make fuzz FUZZ_SECONDS=60            (all targets, seeds in tests/fuzz/corpus/)
 *   build/fuzz/fuzz_ir_diff -max_total_time=300 dir/ tests/fuzz/corpus/fuzz_ir_diff
 *
 * Input: the IR XML; its first byte picks the .bin length (x16, as fuzz_irload).
 * For every IR npu accepts, payloads A and B (all constants by pointer, and
 * small ones copied) are written and their XML parsed with libxml2 the way the
 * compiler parses it. Then, for what libxml2 sees:
 *   - every <attribute name="WeightsPointerAttribute"> anywhere is one npu
 *     wrote: mp/ms lie inside the .bin npu was handed (no address from the file);
 *   - every Const layer (net/layers/layer, nested bodies too) was seen by npu
 *     (no more Consts than npu counted), and its bytes lie inside the payload's
 *     constants or, by pointer, inside the .bin.
 * A violation aborts. */
#include "../../npu.c"

#include <stdlib.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

/* npu_ir_size's scratch (NPU_IR_SIZE_SCRATCH: the XML walker's state). */
static npu_arena *ir_size_scratch(void)
{
    static _Alignas(16) unsigned char mem[NPU_IR_SIZE_SCRATCH];
    static npu_arena a;
    npu_arena_init(&a, mem, sizeof mem);
    return &a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static _Alignas(16) unsigned char fz_arena[1u << 20];
static _Alignas(16) unsigned char fz_ctx[8192];
static unsigned char fz_out[1u << 20];

static void fz_silent(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    xmlInitParser();
    xmlSetGenericErrorFunc(NULL, fz_silent);
    return 0;
}

typedef struct fz_check {
    const unsigned char *bin;
    size_t bin_size;
    const unsigned char *consts; /* the payload's constants section */
    size_t consts_size;
    int layout_b;
    uint32_t consts_seen;
} fz_check;

static int fz_is(const xmlNode *n, const char *name)
{
    return n != NULL && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static int fz_prop_is(xmlNode *n, const char *name, const char *value)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    int r = v != NULL && strcmp((const char *)v, value) == 0;
    xmlFree(v);
    return r;
}

/* A decimal attribute as the sim reads it; 0 when absent or malformed. */
static int fz_prop_u64(xmlNode *n, const char *name, uint64_t *out)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    char *end = NULL;
    int ok = 0;
    if (v != NULL && v[0] >= '0' && v[0] <= '9') {
        unsigned long long x;
        errno = 0;
        x = strtoull((const char *)v, &end, 0);
        ok = errno == 0 && end != NULL && *end == '\0';
        *out = (uint64_t)x;
    }
    xmlFree(v);
    return ok;
}

/* Every WeightsPointerAttribute, wherever it is: npu's own, inside the .bin. */
static void fz_check_wpa(const fz_check *c, xmlNode *n)
{
    for (; n != NULL; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        if (fz_is(n, "attribute") && fz_prop_is(n, "name", "WeightsPointerAttribute")) {
            uint64_t mp = 0, ms = 0, base = (uint64_t)(uintptr_t)c->bin;
            xmlAttr *a;
            if (!c->layout_b) abort();                      /* layout A has no pointers */
            if (!fz_prop_u64(n, "mp", &mp) || !fz_prop_u64(n, "ms", &ms)) abort();
            if (ms > 0 && (c->bin == NULL || mp < base || mp - base > c->bin_size || ms > c->bin_size - (mp - base)))
                abort();
            for (a = n->properties; a != NULL; a = a->next)  /* nothing but npu's keys */
                if (strcmp((const char *)a->name, "name") != 0 && strcmp((const char *)a->name, "version") != 0 &&
                    strcmp((const char *)a->name, "mp") != 0 && strcmp((const char *)a->name, "ms") != 0)
                    abort();
        }
        fz_check_wpa(c, n->children);
    }
}

static xmlNode *fz_child(xmlNode *n, const char *name)
{
    for (n = n != NULL ? n->children : NULL; n != NULL; n = n->next)
        if (fz_is(n, name)) return n;
    return NULL;
}

/* The layers a compiler walks: <layers>/<layer> of the net and of every body. */
static void fz_check_layers(fz_check *c, xmlNode *parent)
{
    xmlNode *ls, *l;
    for (ls = parent->children; ls != NULL; ls = ls->next) {
        if (!fz_is(ls, "layers")) continue;
        for (l = ls->children; l != NULL; l = l->next) {
            xmlNode *b;
            if (!fz_is(l, "layer")) continue;
            if (fz_prop_is(l, "type", "Const")) {
                xmlNode *d = fz_child(l, "data"), *rt = fz_child(l, "rt_info");
                int by_pointer = 0;
                xmlNode *a;
                c->consts_seen++;
                for (a = rt != NULL ? rt->children : NULL; a != NULL; a = a->next)
                    if (fz_is(a, "attribute") && fz_prop_is(a, "name", "WeightsPointerAttribute")) by_pointer = 1;
                if (!by_pointer && d != NULL) {
                    uint64_t off = 0, sz = 0;
                    if (fz_prop_u64(d, "offset", &off) && fz_prop_u64(d, "size", &sz) &&
                        (off > c->consts_size || sz > c->consts_size - off))
                        abort();
                }
            }
            for (b = l->children; b != NULL; b = b->next)
                if (fz_is(b, "body")) fz_check_layers(c, b);
        }
    }
}

static uint64_t fz_le(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void fz_check_payload(const npu_ir *ir, const unsigned char *bin, size_t bin_size,
                             const unsigned char *p, size_t n)
{
    fz_check c;
    const char *xml;
    size_t xml_size;
    xmlDocPtr doc;
    xmlNode *root;
    memset(&c, 0, sizeof c);
    c.bin = bin;
    c.bin_size = bin_size;
    if (n >= 16 && fz_le(p + 4, 4) == 2) {   /* layout A */
        xml_size = (size_t)fz_le(p + 8, 8);
        if (xml_size > n - 24) abort();
        xml = (const char *)p + 16;
        c.consts_size = (size_t)fz_le(p + 16 + xml_size, 8);
        c.consts = p + 24 + xml_size;
        if (c.consts_size > n - 24 - xml_size) abort();
    } else if (n >= 48 && fz_le(p, 8) == 48) {
        uint64_t c_off = fz_le(p + 16, 8), c_size = fz_le(p + 24, 8), m_off = fz_le(p + 32, 8), m_size = fz_le(p + 40, 8);
        if (c_off > n || c_size > n - c_off || m_off > n || m_size > n - m_off) abort();
        xml = (const char *)p + m_off;
        xml_size = (size_t)m_size;
        c.consts = p + c_off;
        c.consts_size = (size_t)c_size;
        c.layout_b = 1;
    } else {
        abort();
    }
    if (xml_size > INT_MAX) return;
    doc = xmlReadMemory(xml, (int)xml_size, "model.xml", NULL,
                        XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (doc == NULL) return;   /* the compiler refuses it */
    root = xmlDocGetRootElement(doc);
    if (root != NULL) {
        fz_check_wpa(&c, root);
        if (fz_is(root, "net")) fz_check_layers(&c, root);
        if (c.consts_seen > npu_ir_const_count(ir)) abort();
    }
    xmlFreeDoc(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    npu_arena a, ca;
    npu_context *ctx;
    npu_ir *ir = NULL;
    size_t need = 0, bin_size, n;
    unsigned char *bin;
    char *xml;
    int pass;
    bin_size = size > 0 ? (size_t)data[0] * 16 : 0;
    xml = (char *)malloc(size ? size : 1);
    bin = (unsigned char *)malloc(bin_size ? bin_size : 1);
    if (xml == NULL || bin == NULL) abort();
    if (size) memcpy(xml, data, size);
    for (n = 0; n < bin_size; n++) bin[n] = (unsigned char)(n * 7 + 1);
    npu_arena_init(&ca, fz_ctx, sizeof fz_ctx);
    npu_context_create(&ca, NULL, &ctx);
    if (npu_ir_size(ir_size_scratch(), ctx, xml, size, &need) == NPU_OK && need <= sizeof fz_arena) {
        npu_arena_init(&a, fz_arena, need);
        if (npu_ir_load_memory(&a, ctx, xml, size, bin, bin_size, &ir) == NPU_OK) {
            for (pass = 0; pass < 3; pass++) {
                npu_payload_options o;
                memset(&o, 0, sizeof o);
                o.layout = pass == 0 ? NPU_PAYLOAD_WEIGHTS_COPY : NPU_PAYLOAD_NO_WEIGHTS_COPY;
                o.weights_threshold_bytes = pass == 2 ? 64 : 0;
                o.compiler_version = 0x70004;
                if (npu_ir_write_payload(ir, &o, fz_out, sizeof fz_out, &n) == NPU_OK)
                    fz_check_payload(ir, bin, bin_size, fz_out, n);
            }
            npu_ir_close(ir);
        }
    }
    free(bin);
    free(xml);
    return 0;
}
