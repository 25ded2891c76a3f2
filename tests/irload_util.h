/* Shared helpers of the IR loader suites (test_irload*.c): data paths, a
 * temporary directory, deterministic .bin files, payload parsing. */
#ifndef IRLOAD_UTIL_H
#define IRLOAD_UTIL_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#if defined(__GNUC__)
#define IRL_UNUSED __attribute__((unused))
#else
#define IRL_UNUSED
#endif

static char irl_tmpdir[256];

static IRL_UNUSED const char *irl_tmp(void)
{
    if (irl_tmpdir[0] == '\0') {
        snprintf(irl_tmpdir, sizeof irl_tmpdir, "/tmp/npu_irload_XXXXXX");
        if (mkdtemp(irl_tmpdir) == NULL) abort();
    }
    return irl_tmpdir;
}

static IRL_UNUSED void irl_tmp_cleanup(void)
{
    char cmd[300];
    if (irl_tmpdir[0] == '\0') return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", irl_tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", irl_tmpdir);
}

static IRL_UNUSED const char *irl_data(const char *name, char *buf, size_t cap)
{
    const char *dir = getenv("NPU_TEST_DATA");
    snprintf(buf, cap, "%s/%s", dir ? dir : "tests/data", name);
    return buf;
}

/* Reads a whole file into malloc'ed memory (NUL-terminated). */
static IRL_UNUSED char *irl_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p;
    long n;
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    p = (char *)malloc((size_t)n + 1);
    if (p == NULL || fread(p, 1, (size_t)n, f) != (size_t)n) abort();
    p[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* The deterministic weight byte at offset i. */
static IRL_UNUSED unsigned char irl_byte(uint64_t i) { return (unsigned char)((i * 131u + 17u) ^ (i >> 8)); }

/* Writes `size` deterministic bytes to <tmp>/<name>; returns the path. */
static IRL_UNUSED const char *irl_write_bin(const char *name, size_t size, char *buf, size_t cap)
{
    FILE *f;
    size_t i;
    snprintf(buf, cap, "%s/%s", irl_tmp(), name);
    f = fopen(buf, "wb");
    if (f == NULL) abort();
    for (i = 0; i < size; i++) fputc(irl_byte(i), f);
    fclose(f);
    return buf;
}

static IRL_UNUSED uint64_t irl_le(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Attribute of an element as an unsigned number (UINT64_MAX if absent). */
static IRL_UNUSED uint64_t irl_attr_u64(xmlNode *n, const char *name)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    uint64_t r = UINT64_MAX;
    if (v) {
        r = strtoull((const char *)v, NULL, 10);
        xmlFree(v);
    }
    return r;
}

static IRL_UNUSED int irl_attr_is(xmlNode *n, const char *name, const char *value)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    int r = v != NULL && strcmp((const char *)v, value) == 0;
    if (v) xmlFree(v);
    return r;
}

static IRL_UNUSED xmlNode *irl_child(xmlNode *n, const char *name)
{
    for (n = n ? n->children : NULL; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0) return n;
    return NULL;
}

static IRL_UNUSED int irl_count_children(xmlNode *n, const char *name)
{
    int k = 0;
    for (n = n ? n->children : NULL; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0) k++;
    return k;
}

/* Collects every <layer type="Const"> of the document, nested bodies included,
 * in document order. */
static IRL_UNUSED int irl_collect_consts(xmlNode *n, xmlNode **out, int max, int k)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        if (strcmp((const char *)n->name, "layer") == 0 && irl_attr_is(n, "type", "Const") && k < max) out[k++] = n;
        k = irl_collect_consts(n->children, out, max, k);
    }
    return k;
}

/* The XML an IR payload carries for a source XML of `len` bytes: the source
 * with npu's net rt_info entries (is_new_api and use_indices_for_io_metadata,
 * YES, as OpenVINO's serializer sets them; issue 11) in the net-level
 * <rt_info> (a one-tab-indented "<rt_info />" or "<rt_info>" in these files),
 * or a new <rt_info> before </net>. malloc'd, NUL-terminated; *out_len its
 * length. */
static IRL_UNUSED char *irl_with_net_rt(const char *xml, size_t len, size_t *out_len)
{
    static const char items[] = "<is_new_api value=\"YES\"/><use_indices_for_io_metadata value=\"YES\"/>";
    char *src = (char *)malloc(len + 1), *out, *at;
    size_t cut, skip = 0;
    const char *ins;
    char buf[256];
    memcpy(src, xml, len);
    src[len] = '\0';
    if ((at = strstr(src, "\n\t<rt_info />")) != NULL) {
        cut = (size_t)(at - src) + 2;
        skip = strlen("<rt_info />");
        snprintf(buf, sizeof buf, "<rt_info>%s</rt_info>", items);
        ins = buf;
    } else if ((at = strstr(src, "\n\t</rt_info>")) != NULL) {
        cut = (size_t)(at - src) + 2;
        ins = items;
    } else {
        at = strstr(src, "</net>");
        while (at != NULL && strstr(at + 1, "</net>") != NULL) at = strstr(at + 1, "</net>");
        if (at == NULL) abort();
        cut = (size_t)(at - src);
        snprintf(buf, sizeof buf, "<rt_info>%s</rt_info>", items);
        ins = buf;
    }
    *out_len = len - skip + strlen(ins);
    out = (char *)malloc(*out_len + 1);
    memcpy(out, src, cut);
    memcpy(out + cut, ins, strlen(ins));
    memcpy(out + cut + strlen(ins), src + cut + skip, len - cut - skip);
    out[*out_len] = '\0';
    free(src);
    return out;
}

#endif
