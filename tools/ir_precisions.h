/* ir_precisions.h - -ip / -op / -iop on an IR, shared by npu-run and
 * npu-compile (each includes it once; everything here is static).
 *
 * OpenVINO's benchmark_app and compile_tool give a precision to a model's
 * tensor through the PrePostProcessor (tensor().set_element_type()), which
 * puts a Convert between the caller's tensor and the model for IR v10 and v11
 * alike; the compiler converts on its own only for IR v10. npu's
 * npu_ir_set_preprocess / npu_ir_set_postprocess with only the element type
 * set insert the same Convert, so the tools use them for every IR. */
#ifndef NPU_TOOLS_IR_PRECISIONS_H
#define NPU_TOOLS_IR_PRECISIONS_H

#include <stdio.h>
#include <stdlib.h>
#include "npu.h"

/* Asks for type in[i] on input i and out[i] on output i (NPU_TYPE_UNDEFINED,
 * or the model's own type: nothing to do). The plans take NPU_PREPROCESS_BYTES
 * each from a block allocated here into *mem (NULL when none is needed), which
 * the caller frees after closing the IR. Returns 0, or -1 with the reason in
 * why (out of memory, or the library's message naming the tensor). */
static int ir_set_precisions(npu_ir *ir, npu_context *ctx, const npu_type *in, uint32_t n_in, const npu_type *out,
                             uint32_t n_out, void **mem, char *why, size_t why_cap)
{
    uint32_t n = 0, k;
    npu_arena arena;
    *mem = NULL;
    for (k = 0; k < n_in + n_out; k++) {
        npu_type t = k < n_in ? in[k] : out[k - n_in];
        const npu_ir_io *io = k < n_in ? npu_ir_input(ir, k) : npu_ir_output(ir, k - n_in);
        if (t != NPU_TYPE_UNDEFINED && io != NULL && t != io->desc.type) n++;
    }
    if (n == 0) return 0;
    if (posix_memalign(mem, NPU_ARENA_ALIGN, (size_t)n * NPU_PREPROCESS_BYTES) != 0) {
        *mem = NULL;
        snprintf(why, why_cap, "out of memory");
        return -1;
    }
    npu_arena_init(&arena, *mem, (size_t)n * NPU_PREPROCESS_BYTES);
    for (k = 0; k < n_in + n_out; k++) {
        npu_type t = k < n_in ? in[k] : out[k - n_in];
        const npu_ir_io *io = k < n_in ? npu_ir_input(ir, k) : npu_ir_output(ir, k - n_in);
        npu_status st;
        if (t == NPU_TYPE_UNDEFINED || io == NULL || t == io->desc.type) continue;
        if (k < n_in) {
            npu_preprocess pp = {0};
            pp.type = t;
            st = npu_ir_set_preprocess(ir, &arena, k, &pp);
        } else {
            npu_postprocess pp = {0};
            pp.type = t;
            st = npu_ir_set_postprocess(ir, &arena, k - n_in, &pp);
        }
        if (st != NPU_OK) {
            snprintf(why, why_cap, "%s '%s' as %s: %s", k < n_in ? "input" : "output", io->desc.name,
                     npu_type_name(t), npu_context_last_error(ctx));
            return -1;
        }
    }
    return 0;
}

#endif
