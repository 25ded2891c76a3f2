/* ir_file.c - load an OpenVINO IR (model.xml + model.bin), compile it on the NPU
 * and run it once, with every arena sized exactly by the size queries.
 *
 *   ir_file model.xml [model.bin]   run that IR on deterministic inputs
 *   ir_file                         write a small IR pair into a temporary
 *                                   directory with the graph writer, run it and
 *                                   check the result against a CPU reference
 *
 * Run on the software NPU: ZE_ENABLE_ALT_DRIVERS=$PWD/build/libze_npu_sim.so */
/* POSIX 2008 (clock_gettime, mkstemp, posix_memalign, ...) under -std=c11. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "npu.h"

#define IN 8
#define HID 16
#define OUT 4

static float w1[IN * HID], b1[HID], w2[HID * OUT];

static npu_context *ctx;

static int fail(const char *what)
{
    fprintf(stderr, "ir_file: %s failed: %s\n", what, npu_context_last_error(ctx));
    return 1;
}

/* An arena over fresh heap memory of exactly `bytes` (the library never
 * allocates; the caller decides where memory comes from). NULL, with a
 * message, if there is no memory. */
static void *arena_alloc(npu_arena *arena, size_t bytes)
{
    void *mem = NULL;
    if (posix_memalign(&mem, 4096, bytes ? bytes : 1) != 0) {
        fprintf(stderr, "ir_file: no memory for an arena of %zu bytes\n", bytes);
        return NULL;
    }
    npu_status s = npu_arena_init(arena, mem, bytes);
    if (s != NPU_OK) {
        fprintf(stderr, "ir_file: npu_arena_init failed: %s\n", npu_status_string(s));
        free(mem);
        return NULL;
    }
    return mem;
}

static int write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = 0;
    return ok ? 0 : -1;
}

/* Writes model.xml + model.bin (layout A: offsets into the .bin, the pair
 * OpenVINO reads) of y = softmax(relu(x . W1 + b1) . W2) into dir. */
static int write_ir_pair(const char *dir, char *xml_path, char *bin_path, size_t cap)
{
    for (int i = 0; i < IN * HID; i++) w1[i] = sinf((float)i * 0.37f) * 0.5f;
    for (int i = 0; i < HID; i++) b1[i] = 0.05f * (float)(i % 5) - 0.1f;
    for (int i = 0; i < HID * OUT; i++) w2[i] = cosf((float)i * 0.53f) * 0.5f;

    static _Alignas(NPU_ARENA_ALIGN) unsigned char graph_mem[64 * 1024];
    npu_arena a;
    npu_graph *g;
    if (npu_arena_init(&a, graph_mem, sizeof graph_mem) != NPU_OK) return fail("npu_arena_init");
    npu_graph_options go = {.name = "ir_file_mlp", .max_nodes = 0};
    if (npu_graph_create(&a, ctx, &go, &g) != NPU_OK) return fail("npu_graph_create");
    npu_shape xs = {2, {1, IN}}, w1s = {2, {IN, HID}}, b1s = {1, {HID}}, w2s = {2, {HID, OUT}};
    npu_node *x = npu_graph_parameter(g, "x", NPU_F32, &xs, "NC");
    npu_node *h = npu_graph_matmul(g, x, npu_graph_constant(g, "W1", NPU_F32, &w1s, w1, sizeof w1), 0, 0, NULL);
    h = npu_graph_relu(g, npu_graph_add(g, h, npu_graph_constant(g, "b1", NPU_F32, &b1s, b1, sizeof b1), NULL), NULL);
    npu_node *y = npu_graph_matmul(g, h, npu_graph_constant(g, "W2", NPU_F32, &w2s, w2, sizeof w2), 0, 0, NULL);
    npu_graph_result(g, npu_graph_softmax(g, y, 1, NULL), "probabilities");
    if (npu_graph_status(g) != NPU_OK) return fail("building the graph");

    npu_payload_options layout_a = {.layout = NPU_PAYLOAD_WEIGHTS_COPY, .weights_threshold_bytes = 0, .compiler_version = 0};
    size_t xml_size, bin_size;
    if (npu_graph_write_xml(g, &layout_a, NULL, 0, &xml_size) != NPU_OK) return fail("npu_graph_write_xml");
    if (npu_graph_write_bin(g, NULL, 0, &bin_size) != NPU_OK) return fail("npu_graph_write_bin");
    char *xml = malloc(xml_size), *bin = malloc(bin_size);
    int rc = xml == NULL || bin == NULL ||
             npu_graph_write_xml(g, &layout_a, xml, xml_size, &xml_size) != NPU_OK ||
             npu_graph_write_bin(g, bin, bin_size, &bin_size) != NPU_OK;
    snprintf(xml_path, cap, "%s/model.xml", dir);
    snprintf(bin_path, cap, "%s/model.bin", dir);
    if (!rc) rc = write_file(xml_path, xml, xml_size) || write_file(bin_path, bin, bin_size);
    free(xml);
    free(bin);
    if (rc) return fail("writing the IR pair");
    printf("ir_file: wrote %s (%zu bytes) and %s (%zu bytes)\n", xml_path, xml_size, bin_path, bin_size);
    return 0;
}

static void print_desc(const char *kind, uint32_t i, const npu_tensor_desc *d)
{
    printf("ir_file: %s %u '%s' %s [", kind, i, d->name, npu_type_name(d->type));
    for (uint32_t k = 0; k < d->shape.rank; k++) printf("%s%lld", k ? "," : "", (long long)d->shape.dims[k]);
    printf("] %llu bytes\n", (unsigned long long)d->bytes);
}

/* Deterministic input: f32 x[i] = sin(i)/2 (the self-made model's reference uses
 * it); other types get small repeating values. */
static void fill_input(void *data, const npu_tensor_desc *d)
{
    size_t n = d->bytes / (npu_type_size(d->type) ? npu_type_size(d->type) : 1);
    for (size_t i = 0; i < n; i++) {
        switch (d->type) {
        case NPU_F32: ((float *)data)[i] = sinf((float)i) * 0.5f; break;
        case NPU_F16: case NPU_BF16: ((uint16_t *)data)[i] = d->type == NPU_F16 ? 0x3800 : 0x3f00; break; /* 0.5 */
        case NPU_I32: ((int32_t *)data)[i] = (int32_t)(i % 7); break;
        case NPU_I64: ((int64_t *)data)[i] = (int64_t)(i % 7); break;
        default: ((unsigned char *)data)[i] = (unsigned char)(i % 7); break;
        }
    }
}

static int check_reference(const float *probs)
{
    float h[HID], y[OUT], sum = 0, maxv = -INFINITY;
    for (int j = 0; j < HID; j++) {
        float acc = b1[j];
        for (int i = 0; i < IN; i++) acc += sinf((float)i) * 0.5f * w1[i * HID + j];
        h[j] = acc > 0 ? acc : 0;
    }
    for (int k = 0; k < OUT; k++) {
        y[k] = 0;
        for (int j = 0; j < HID; j++) y[k] += h[j] * w2[j * OUT + k];
        maxv = y[k] > maxv ? y[k] : maxv;
    }
    for (int k = 0; k < OUT; k++) sum += (y[k] = expf(y[k] - maxv));
    int bad = 0;
    for (int k = 0; k < OUT; k++) bad |= fabsf(probs[k] - y[k] / sum) > 1e-2f;
    printf("ir_file: CPU reference %s\n", bad ? "MISMATCH" : "matches");
    return bad;
}

int main(int argc, char **argv)
{
    char dir[] = "/tmp/npu-ir-file-XXXXXX", xml_path[512], bin_path[512];
    const char *xml = argc > 1 ? argv[1] : NULL, *bin = argc > 2 ? argv[2] : NULL;
    int self_made = argc < 2, made_dir = 0, rc = 1;
    if (argc > 3 || (xml && xml[0] == '-')) {
        fprintf(stderr, "usage: %s [model.xml [model.bin]]\n", argv[0]);
        return 2;
    }

    /* Context and device: exact sizes from the queries. */
    npu_arena dev_arena, ir_arena, model_arena, req_arena;
    void *dev_mem = arena_alloc(&dev_arena, NPU_ARENA_ROUND(npu_context_size()) + NPU_ARENA_ROUND(npu_device_size()));
    void *ir_mem = NULL, *model_mem = NULL, *req_mem = NULL;
    if (dev_mem == NULL) return 1;
    npu_status s = npu_context_create(&dev_arena, NULL, &ctx);
    if (s != NPU_OK) {   /* no context yet to hold a message: the status says it */
        fprintf(stderr, "ir_file: npu_context_create failed: %s\n", npu_status_string(s));
        free(dev_mem);
        return 1;
    }
    npu_device *dev = NULL;
    npu_ir *ir = NULL;
    npu_model *model = NULL;
    npu_request *req = NULL;
    if (npu_device_open(&dev_arena, ctx, NULL, &dev) != NPU_OK) { fail("npu_device_open"); goto out; }

    if (self_made) {
        if (mkdtemp(dir) == NULL) { perror("mkdtemp"); goto out; }
        made_dir = 1;
        if (write_ir_pair(dir, xml_path, bin_path, sizeof xml_path)) goto out;
        xml = xml_path;
        bin = bin_path;
    }

    /* The IR: its arena holds the tables; the files are mmapped, not read. */
    static _Alignas(16) unsigned char ir_size_mem[NPU_IR_SIZE_SCRATCH];   /* the size scan's scratch */
    npu_arena ir_size_scratch;
    npu_arena_init(&ir_size_scratch, ir_size_mem, sizeof ir_size_mem);
    size_t ir_bytes;
    if (npu_ir_size_file(&ir_size_scratch, ctx, xml, &ir_bytes) != NPU_OK) { fail("npu_ir_size_file"); goto out; }
    if ((ir_mem = arena_alloc(&ir_arena, ir_bytes)) == NULL) goto out;
    if (npu_ir_open(&ir_arena, ctx, xml, bin, &ir) != NPU_OK) { fail("npu_ir_open"); goto out; }
    printf("ir_file: loaded %s: IR v%u, %u inputs, %u outputs, %u constants, arena %zu bytes\n", xml,
           npu_ir_version(ir), npu_ir_input_count(ir), npu_ir_output_count(ir), npu_ir_const_count(ir),
           ir_bytes);

    /* Compile: the arena holds the payload while compiling, then the model. */
    size_t model_bytes;
    if (npu_model_compile_ir_size(dev, ir, NULL, &model_bytes) != NPU_OK) { fail("npu_model_compile_ir_size"); goto out; }
    if ((model_mem = arena_alloc(&model_arena, model_bytes)) == NULL) goto out;
    if (npu_model_compile_ir(dev, &model_arena, ir, NULL, &model) != NPU_OK) { fail("compile"); goto out; }
    npu_ir_close(ir); /* the weights were needed only until the compile call returned */
    ir = NULL;
    printf("ir_file: compiled; model arena %zu bytes\n", model_bytes);

    size_t req_bytes = npu_request_size(model, NULL);
    if ((req_mem = arena_alloc(&req_arena, req_bytes)) == NULL) goto out;
    if (npu_request_create(model, &req_arena, NULL, &req) != NPU_OK) { fail("npu_request_create"); goto out; }
    printf("ir_file: request arena %zu bytes\n", req_bytes);
    for (uint32_t i = 0; i < npu_model_input_count(model); i++) {
        print_desc("input", i, npu_model_input(model, i));
        fill_input(npu_request_input(req, i), npu_model_input(model, i));
    }
    if (npu_request_infer(req) != NPU_OK) { fail("npu_request_infer"); goto out; }
    for (uint32_t i = 0; i < npu_model_output_count(model); i++) {
        const npu_tensor_desc *d = npu_model_output(model, i);
        print_desc("output", i, d);
        if (d->type == NPU_F32) {
            const float *v = npu_request_output(req, i);
            uint64_t n = d->bytes / 4;
            printf("ir_file:   values:");
            for (uint64_t k = 0; k < n && k < 8; k++) printf(" %.5f", (double)v[k]);
            printf("%s\n", n > 8 ? " ..." : "");
        }
    }
    rc = self_made ? check_reference(npu_request_output(req, 0)) : 0;
    puts(rc ? "ir_file: FAILED" : "ir_file: OK");
out:
    npu_request_destroy(req);
    npu_model_destroy(model);
    npu_ir_close(ir);
    npu_device_close(dev);
    if (made_dir) {
        unlink(xml_path);
        unlink(bin_path);
        rmdir(dir);
    }
    free(req_mem);
    free(model_mem);
    free(ir_mem);
    free(dev_mem);
    return rc;
}
