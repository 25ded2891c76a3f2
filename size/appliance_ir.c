/* appliance_ir.c - an appliance that ships an OpenVINO IR and compiles it on
 * first boot into npu's model cache; later boots import the cached blob. Built
 * by `make size` with -DNPU_NO_GRAPH (and once more with -DNPU_NO_MESSAGES) to
 * measure what npu adds to such a program.
 *
 *   appliance_ir model.xml cache_dir
 *
 * Input 0 is filled with 0.5, output 0's first value is printed. */
#include <stdio.h>
#include "npu.h"

static _Alignas(NPU_ARENA_ALIGN) unsigned char memory[4 << 20];

int main(int argc, char **argv)
{
    npu_arena arena;
    npu_context *ctx = NULL;
    npu_device *dev = NULL;
    npu_ir *ir = NULL;
    npu_model *model = NULL;
    npu_request *req = NULL;
    npu_compile_options opts = {0};
    npu_status st;
    if (argc != 3) {
        fprintf(stderr, "usage: %s model.xml cache_dir\n", argv[0]);
        return 2;
    }
    opts.cache_dir = argv[2];
    st = npu_arena_init(&arena, memory, sizeof memory);
    if (st == NPU_OK) st = npu_context_create(&arena, NULL, &ctx);
    if (st == NPU_OK) st = npu_device_open(&arena, ctx, NULL, &dev);
    if (st == NPU_OK) st = npu_ir_open(&arena, ctx, argv[1], NULL, &ir);
    if (st == NPU_OK) st = npu_model_compile_ir(dev, &arena, ir, &opts, &model);
    if (st == NPU_OK) st = npu_request_create(model, &arena, NULL, &req);
    if (st == NPU_OK) {
        const npu_tensor_desc *in = npu_model_input(model, 0);
        float *x = (float *)npu_request_input(req, 0);
        uint64_t i;
        for (i = 0; in != NULL && in->type == NPU_F32 && i < in->bytes / sizeof *x; i++) x[i] = 0.5f;
        st = npu_request_infer(req);
    }
    if (st == NPU_OK) printf("y[0] = %g\n", (double)*(const float *)npu_request_output(req, 0));
    else fprintf(stderr, "appliance_ir: %s\n", ctx != NULL ? npu_context_last_error(ctx) : "no context");
    npu_request_destroy(req);
    npu_model_destroy(model);
    npu_ir_close(ir);
    npu_device_close(dev);
    return st == NPU_OK ? 0 : 1;
}
