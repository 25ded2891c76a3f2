/* Benchmark: loading an IR with 1 GiB of weights and building its NGRAPH_LITE
 * payload, layout B (constants by pointer) vs layout A (weights copied).
 * Prints figures; no pass/fail. The goal for layout B: independent of the .bin
 * size (under 5 ms, RSS growth under 2 MiB).
 *
 *   cc -std=c11 -D_GNU_SOURCE -O2 -I. bench/ir_load.c build/libnpu.a -lze_loader -o build/bench_ir_load
 *
 * The model: 64 Consts of 16 MiB (f32 [4194304]) added one after the other to a
 * Parameter; the .bin is a sparse 1 GiB file made with ftruncate in /tmp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "npu.h"

#define N_CONSTS 64
#define ELEMS 4194304ull
#define CONST_BYTES (ELEMS * 4)

static _Alignas(16) unsigned char arena_mem[1 << 20];
static _Alignas(16) unsigned char ctx_mem[8192];

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* kB from /proc/self/status ("VmHWM:" peak, "VmRSS:" current) */
static long status_kb(const char *key)
{
    char line[256];
    long v = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL) return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, strlen(key)) == 0) v = strtol(line + strlen(key), NULL, 10);
    fclose(f);
    return v;
}

static void port(FILE *f, int id, const char *dir_open)
{
    fprintf(f, "\t\t\t<%s>\n\t\t\t\t<port id=\"%d\" precision=\"FP32\">\n\t\t\t\t\t<dim>%llu</dim>\n\t\t\t\t</port>\n",
            dir_open, id, ELEMS);
}

static void write_model(const char *xml_path)
{
    FILE *f = fopen(xml_path, "w");
    int i, id = 1, prev = 0;
    fprintf(f, "<?xml version=\"1.0\"?>\n<net name=\"bench\" version=\"11\">\n\t<layers>\n");
    fprintf(f, "\t\t<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\">\n"
               "\t\t\t<data shape=\"%llu\" element_type=\"f32\" />\n", ELEMS);
    port(f, 0, "output");
    fprintf(f, "\t\t\t</output>\n\t\t</layer>\n");
    for (i = 0; i < N_CONSTS; i++) {
        fprintf(f, "\t\t<layer id=\"%d\" name=\"w%d\" type=\"Const\" version=\"opset1\">\n"
                   "\t\t\t<data element_type=\"f32\" shape=\"%llu\" offset=\"%llu\" size=\"%llu\" />\n",
                id, i, ELEMS, (unsigned long long)i * CONST_BYTES, CONST_BYTES);
        port(f, 0, "output");
        fprintf(f, "\t\t\t</output>\n\t\t</layer>\n");
        fprintf(f, "\t\t<layer id=\"%d\" name=\"add%d\" type=\"Add\" version=\"opset1\">\n"
                   "\t\t\t<data auto_broadcast=\"numpy\" />\n", id + 1, i);
        port(f, 0, "input");
        fprintf(f, "\t\t\t\t<port id=\"1\" precision=\"FP32\">\n\t\t\t\t\t<dim>%llu</dim>\n\t\t\t\t</port>\n"
                   "\t\t\t</input>\n", ELEMS);
        port(f, 2, "output");
        fprintf(f, "\t\t\t</output>\n\t\t</layer>\n");
        id += 2;
    }
    fprintf(f, "\t\t<layer id=\"%d\" name=\"y\" type=\"Result\" version=\"opset1\">\n", id);
    port(f, 0, "input");
    fprintf(f, "\t\t\t</input>\n\t\t</layer>\n\t</layers>\n\t<edges>\n");
    for (i = 0; i < N_CONSTS; i++) {
        int c = 1 + 2 * i, add = c + 1;
        fprintf(f, "\t\t<edge from-layer=\"%d\" from-port=\"%d\" to-layer=\"%d\" to-port=\"0\" />\n", prev,
                prev == 0 ? 0 : 2, add);
        fprintf(f, "\t\t<edge from-layer=\"%d\" from-port=\"0\" to-layer=\"%d\" to-port=\"1\" />\n", c, add);
        prev = add;
    }
    fprintf(f, "\t\t<edge from-layer=\"%d\" from-port=\"2\" to-layer=\"%d\" to-port=\"0\" />\n", prev, id);
    fprintf(f, "\t</edges>\n</net>\n");
    fclose(f);
}

static void run(const char *xml_path, const char *bin_path, npu_payload_layout layout, const char *label)
{
    npu_arena arena, ca;
    npu_context *ctx;
    npu_ir *ir = NULL;
    npu_payload_options o = {.layout = layout, .weights_threshold_bytes = 0, .compiler_version = NPU_COMPILER_VERSION(7, 4)};
    size_t need = 0, size = 0;
    unsigned char *buf;
    double t0, t1, t2;
    long hwm0, hwm1;
    npu_arena_init(&ca, ctx_mem, sizeof ctx_mem);
    npu_context_create(&ca, NULL, &ctx);
    npu_arena_init(&arena, arena_mem, sizeof arena_mem);
    hwm0 = status_kb("VmHWM:");
    t0 = now_ms();
    if (npu_ir_open(&arena, ctx, xml_path, bin_path, &ir) != NPU_OK) {
        printf("%s: open failed: %s\n", label, npu_context_last_error(ctx));
        return;
    }
    t1 = now_ms();
    npu_ir_write_payload(ir, &o, NULL, 0, &need);
    buf = (unsigned char *)malloc(need);
    if (buf == NULL || npu_ir_write_payload(ir, &o, buf, need, &size) != NPU_OK) {
        printf("%s: payload failed: %s\n", label, npu_context_last_error(ctx));
        return;
    }
    t2 = now_ms();
    hwm1 = status_kb("VmHWM:");
    printf("%-28s load %8.3f ms  payload %9.3f ms  total %9.3f ms  payload %12zu bytes  "
           "peak RSS growth %8.1f MiB  arena %zu bytes\n",
           label, t1 - t0, t2 - t1, t2 - t0, size, (double)(hwm1 - hwm0) / 1024.0, npu_ir_arena_bytes(ir));
    free(buf);
    npu_ir_close(ir);
}

int main(void)
{
    char xml_path[] = "/tmp/npu_bench_ir_XXXXXX";
    char path[64], bin_path[64], small_bin[64];
    FILE *f;
    int fd = mkstemp(xml_path), i;
    if (fd < 0) return 1;
    close(fd);
    snprintf(path, sizeof path, "%s.xml", xml_path);
    snprintf(bin_path, sizeof bin_path, "%s.bin", xml_path);
    snprintf(small_bin, sizeof small_bin, "%s.4g.bin", xml_path);
    unlink(xml_path);
    write_model(path);
    f = fopen(bin_path, "w");
    if (f == NULL || ftruncate(fileno(f), (off_t)(N_CONSTS * CONST_BYTES)) != 0) return 1;
    fclose(f);
    /* the same XML with a 4 GiB .bin: layout B must not care */
    f = fopen(small_bin, "w");
    if (f == NULL || ftruncate(fileno(f), (off_t)(4 * N_CONSTS * CONST_BYTES)) != 0) return 1;
    fclose(f);
    printf("model: %d Consts x %llu MiB, .bin %llu MiB (sparse), XML %s\n", N_CONSTS, CONST_BYTES >> 20,
           (N_CONSTS * CONST_BYTES) >> 20, path);
    for (i = 0; i < 3; i++) run(path, bin_path, NPU_PAYLOAD_NO_WEIGHTS_COPY, "B (by pointer), 1 GiB bin");
    run(path, small_bin, NPU_PAYLOAD_NO_WEIGHTS_COPY, "B (by pointer), 4 GiB bin");
    run(path, bin_path, NPU_PAYLOAD_WEIGHTS_COPY, "A (weights copied), 1 GiB");
    unlink(path);
    unlink(bin_path);
    unlink(small_bin);
    return 0;
}
