/* blob.c - compile once, export the compiled blob to a file, import it back
 * and check that both models give the same outputs. This is how an appliance
 * ships: compile offline (or on first boot), import at every start.
 *
 *   blob [path]    path of the blob file (default: a temporary file, removed)
 *
 * Run on the software NPU: ZE_ENABLE_ALT_DRIVERS=$PWD/build/libze_npu_sim.so */
/* POSIX 2008 (clock_gettime, mkstemp, posix_memalign, ...) under -std=c11. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "npu.h"

static _Alignas(NPU_ARENA_ALIGN) unsigned char memory[1 << 20];
static float weights[8 * 3 * 3 * 3], bias[8];   /* conv 3->8 channels, 3x3 */
static npu_context *ctx;

static int fail(const char *what)
{
    fprintf(stderr, "blob: %s failed: %s\n", what, npu_context_last_error(ctx));
    return 1;
}

/* y = relu(conv3x3(x) + bias), x [1,3,16,16] -> y [1,8,16,16] */
static npu_graph *build(npu_arena *arena)
{
    for (size_t i = 0; i < sizeof weights / sizeof *weights; i++)
        weights[i] = (float)((int)(i * 7 % 11) - 5) / 10.0f;
    for (int i = 0; i < 8; i++) bias[i] = 0.1f * (float)(i - 4);
    npu_graph *g = NULL;
    if (npu_graph_create(arena, ctx, NULL, &g) != NPU_OK) return NULL;
    npu_shape xs = {4, {1, 3, 16, 16}}, ws = {4, {8, 3, 3, 3}}, bs = {4, {1, 8, 1, 1}};
    npu_conv_params same = {.auto_pad = NPU_PAD_SAME_UPPER};
    npu_node *x = npu_graph_parameter(g, "image", NPU_F32, &xs, "NCHW");
    npu_node *c = npu_graph_convolution(g, x, npu_graph_constant(g, "w", NPU_F32, &ws, weights, sizeof weights),
                                        &same, "conv");
    c = npu_graph_add(g, c, npu_graph_constant(g, "bias", NPU_F32, &bs, bias, sizeof bias), NULL);
    npu_graph_result(g, npu_graph_relu(g, c, NULL), "features");
    return g;
}

static int run(npu_model *model, npu_arena *arena, float *out, size_t out_bytes)
{
    npu_request *req;
    if (npu_request_create(model, arena, NULL, &req) != NPU_OK) return fail("npu_request_create");
    float *in = npu_request_input(req, 0);
    for (int i = 0; i < 3 * 16 * 16; i++) in[i] = (float)(i % 13) / 13.0f - 0.4f;
    npu_status st = npu_request_infer(req);
    if (st == NPU_OK) memcpy(out, npu_request_output(req, 0), out_bytes);
    npu_request_destroy(req);
    return st == NPU_OK ? 0 : fail("npu_request_infer");
}

int main(int argc, char **argv)
{
    char tmp[] = "/tmp/npu-blob-XXXXXX";
    const char *path = argc > 1 ? argv[1] : tmp;
    static float out_compiled[8 * 16 * 16], out_imported[8 * 16 * 16];
    npu_arena arena;
    npu_status s = npu_arena_init(&arena, memory, sizeof memory);
    if (s == NPU_OK) s = npu_context_create(&arena, NULL, &ctx);
    if (s != NPU_OK) {   /* no context yet to hold a message: the status says it */
        fprintf(stderr, "blob: creating the context failed: %s\n", npu_status_string(s));
        return 1;
    }
    if (argc == 1) {
        int fd = mkstemp(tmp);
        if (fd < 0) { perror("mkstemp"); return 1; }
        close(fd);
    }

    npu_device *dev = NULL;
    npu_model *compiled = NULL, *imported = NULL;
    int rc = 1;
    if (npu_device_open(&arena, ctx, NULL, &dev) != NPU_OK) { fail("npu_device_open"); goto out; }
    size_t mark = npu_arena_used(&arena);
    npu_graph *g = build(&arena);
    if (g == NULL) { fail("npu_graph_create"); goto out; }
    if (npu_graph_status(g) != NPU_OK) { fail("building the graph"); goto out; }
    if (npu_model_compile_graph(dev, &arena, g, NULL, &compiled) != NPU_OK) { fail("compile"); goto out; }
    if (run(compiled, &arena, out_compiled, sizeof out_compiled)) goto out;

    size_t blob_size;
    if (npu_model_export(compiled, NULL, 0, &blob_size) != NPU_OK) { fail("npu_model_export (size)"); goto out; }
    if (npu_model_export_file(compiled, path) != NPU_OK) { fail("npu_model_export_file"); goto out; }
    printf("blob: compiled and exported %zu bytes to %s\n", blob_size, path);
    npu_model_destroy(compiled);
    compiled = NULL;
    npu_arena_rewind(&arena, mark);    /* graph, model and request memory is free again */

    /* What the file says about itself, before importing it. */
    static unsigned char file[1 << 20];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(file, 1, sizeof file, f) : 0;
    if (f) fclose(f);
    npu_blob_info_t info;
    if (npu_blob_info(ctx, file, n, &info) != NPU_OK) { fail("npu_blob_info"); goto out; }
    printf("blob: metadata %u.%u, native blob %llu bytes, compiler %u.%u, importable %d\n",
           info.metadata_version >> 16, info.metadata_version & 0xffff,
           (unsigned long long)info.blob_size, info.compiler_version >> 16,
           info.compiler_version & 0xffff, info.importable);

    if (npu_model_import_file(dev, &arena, path, NULL, &imported) != NPU_OK) { fail("npu_model_import_file"); goto out; }
    const npu_tensor_desc *o = npu_model_output(imported, 0);
    printf("blob: imported; output '%s' has %llu bytes\n", o->name, (unsigned long long)o->bytes);
    if (run(imported, &arena, out_imported, sizeof out_imported)) goto out;

    rc = memcmp(out_compiled, out_imported, sizeof out_compiled) != 0;
    printf("blob: outputs of the compiled and the imported model are %s\n", rc ? "DIFFERENT" : "identical");
    puts(rc ? "blob: FAILED" : "blob: OK");
out:
    npu_model_destroy(imported);
    npu_model_destroy(compiled);
    npu_device_close(dev);
    if (argc == 1) unlink(tmp);
    return rc;
}
