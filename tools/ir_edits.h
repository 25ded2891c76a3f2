/* ir_edits.h - what npu-run and npu-compile change in an IR before compiling
 * it: -ip / -op / -iop (precisions) and -shape (batch and reshape). Each tool
 * includes it once; everything here is static. Failures return the tool's
 * exit code (1: npu cannot do it, 2: usage) with the message in `why`.
 *
 * Precisions:
 * OpenVINO's benchmark_app and compile_tool give a precision to a model's
 * tensor through the PrePostProcessor (tensor().set_element_type()), which
 * puts a Convert between the caller's tensor and the model for IR v10 and v11
 * alike; the compiler converts on its own only for IR v10. npu's
 * npu_ir_set_preprocess / npu_ir_set_postprocess with only the element type
 * set insert the same Convert, so the tools use them for every IR. */
#ifndef NPU_TOOLS_IR_EDITS_H
#define NPU_TOOLS_IR_EDITS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "npu.h"

/* *mem: a block for n plans of NPU_PREPROCESS_BYTES (npu_ir_set_preprocess,
 * _set_postprocess, _set_input_shape), *arena over it. 0, or -1 (no memory,
 * *mem NULL). The caller frees *mem after closing the IR. */
static int tool_plan_block(uint32_t n, void **mem, npu_arena *arena)
{
    if (posix_memalign(mem, NPU_ARENA_ALIGN, (size_t)n * NPU_PREPROCESS_BYTES) != 0) {
        *mem = NULL;
        return -1;
    }
    npu_arena_init(arena, *mem, (size_t)n * NPU_PREPROCESS_BYTES);
    return 0;
}

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
    if (tool_plan_block(n, mem, &arena) != 0) {
        snprintf(why, why_cap, "out of memory");
        return -1;
    }
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

/* ---- -shape ----------------------------------------------------------------- */

/* One entry of -shape / -data_shape: name[d0,d1,...] or [d0,...] (every input). */
typedef struct tool_shape {
    const char *name;                /* NULL: every input */
    size_t name_len;
    npu_shape shape;                 /* NPU_DIM_DYNAMIC for '?' or -1 */
} tool_shape;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int tool_why(char *why, size_t cap, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return code;
}

/* "[1,?,224,224]" */
static void tool_shape_str(const npu_shape *s, char *buf, size_t cap)
{
    size_t used = 0;
    used += (size_t)snprintf(buf + used, cap - used, "[");
    for (uint32_t k = 0; k < s->rank && used < cap; k++) {
        if (s->dims[k] == NPU_DIM_DYNAMIC) used += (size_t)snprintf(buf + used, cap - used, "%s?", k ? "," : "");
        else used += (size_t)snprintf(buf + used, cap - used, "%s%lld", k ? "," : "", (long long)s->dims[k]);
    }
    if (used < cap) snprintf(buf + used, cap - used, "]");
}

/* "name[1,3,224,224],other[1,10]" or "[1,3,224,224]" into out[0 .. max). A
 * dim is a number, or '?' / -1 for a dynamic one; ranges (1..8) are refused.
 * 0, or 2 (usage). */
static int tool_parse_shapes(const char *opt, const char *spec, tool_shape *out, int max, int *n_out, char *why,
                             size_t cap)
{
    const char *p = spec;
    *n_out = 0;
    if (*p == '\0') return tool_why(why, cap, 2, "%s: empty (expected name[d0,d1,...] or [d0,d1,...])", opt);
    while (*p) {
        const char *open = strchr(p, '['), *close = open ? strchr(open, ']') : NULL;
        if (open == NULL || close == NULL)
            return tool_why(why, cap, 2, "%s '%s': expected name[d0,d1,...] or [d0,d1,...]", opt, spec);
        if (*n_out == max) return tool_why(why, cap, 2, "%s: more than %d shapes", opt, max);
        tool_shape *s = &out[(*n_out)++];
        memset(s, 0, sizeof *s);
        s->name = open > p ? p : NULL;
        s->name_len = (size_t)(open - p);
        const char *c = open + 1;
        while (c < close) {
            while (c < close && *c == ' ') c++;
            if (s->shape.rank == NPU_MAX_RANK)
                return tool_why(why, cap, 2, "%s '%s': more than %d dims", opt, spec, NPU_MAX_RANK);
            const char *end = c;
            while (end < close && *end != ',') end++;
            size_t len = (size_t)(end - c);
            while (len && c[len - 1] == ' ') len--;
            if ((len == 1 && *c == '?') || (len == 2 && strncmp(c, "-1", 2) == 0)) {
                s->shape.dims[s->shape.rank++] = NPU_DIM_DYNAMIC;
            } else {
                int64_t v = 0;
                if (len == 0) return tool_why(why, cap, 2, "%s '%s': an empty dim", opt, spec);
                for (size_t k = 0; k < len; k++) {
                    if (c[k] == '.' && k + 1 < len && c[k + 1] == '.')
                        return tool_why(why, cap, 2, "%s '%s': dim ranges (%.*s) are not supported: npu runs one shape",
                                        opt, spec, (int)len, c);
                    if (c[k] < '0' || c[k] > '9')
                        return tool_why(why, cap, 2, "%s '%s': '%.*s' is not a dim (a number, ? or -1)", opt, spec,
                                        (int)len, c);
                    v = v * 10 + (c[k] - '0');
                    if (v > NPU_IR_MAX_DIM_VALUE)
                        return tool_why(why, cap, 2, "%s '%s': dim %.*s is too large", opt, spec, (int)len, c);
                }
                s->shape.dims[s->shape.rank++] = v;
            }
            c = end < close ? end + 1 : end;
        }
        p = close + 1;
        if (*p == ',') p++;
        else if (*p != '\0') return tool_why(why, cap, 2, "%s '%s': expected ',' after ']'", opt, spec);
    }
    return 0;
}

/* Does `name` (len bytes) name this IR input or output: its layer name or
 * one of its tensor names? */
static int tool_ir_io_named(const npu_ir_io *io, const char *name, size_t len)
{
    if (strlen(io->desc.name) == len && strncmp(io->desc.name, name, len) == 0) return 1;
    for (const char *t = io->tensor_names; t && *t;) {
        size_t n = strcspn(t, ",");
        if (n == len && strncmp(t, name, len) == 0) return 1;
        t += n;
        if (*t == ',') t++;
    }
    return 0;
}

/* -shape on an IR: *batch, a new batch for every input's batch axis (0: no
 * change; the caller sets it with npu_ir_set_batch), and target[i] (rank 0:
 * none), the shape input i is to be reshaped to where another axis changes
 * (tool_ir_reshape). 0, 1 or 2. */
static int tool_ir_shape_targets(const npu_ir *ir, const tool_shape *specs, int n_specs, int64_t *batch,
                                 npu_shape *target, char *why, size_t cap)
{
    uint32_t n = npu_ir_input_count(ir);
    char want[128], have[128];
    *batch = 0;
    for (int s = 0; s < n_specs; s++) {
        const tool_shape *sp = &specs[s];
        int found = 0;
        tool_shape_str(&sp->shape, want, sizeof want);
        for (uint32_t i = 0; i < n; i++) {
            const npu_ir_io *io = npu_ir_input(ir, i);
            if (sp->name && !tool_ir_io_named(io, sp->name, sp->name_len)) continue;
            found = 1;
            tool_shape_str(&io->desc.shape, have, sizeof have);
            if (sp->shape.rank != io->desc.shape.rank)
                return tool_why(why, cap, 2, "-shape %s: input '%s' has rank %u (%s)", want, io->desc.name,
                                io->desc.shape.rank, have);
            for (uint32_t a = 0; a < sp->shape.rank; a++) {
                int64_t w = sp->shape.dims[a], h = io->desc.shape.dims[a];
                if (w == h) continue;
                if (w == NPU_DIM_DYNAMIC)
                    return tool_why(why, cap, 1,
                                    "-shape %s: input '%s' axis %u is %lld in the IR: npu cannot make a static dim dynamic",
                                    want, io->desc.name, a, (long long)h);
                if (w < 1) return tool_why(why, cap, 2, "-shape %s: a dim of 0", want);
                if ((int32_t)a != io->batch_axis) {
                    /* another axis: reshape this input, its batch axis as the IR
                     * has it (the batch is npu_ir_set_batch's, *batch) */
                    target[i] = sp->shape;
                    if (io->batch_axis >= 0 && (uint32_t)io->batch_axis < sp->shape.rank)
                        target[i].dims[io->batch_axis] = io->desc.shape.dims[io->batch_axis];
                    continue;
                }
                if (*batch && *batch != w)
                    return tool_why(why, cap, 1, "-shape: batches %lld and %lld: npu sets one batch for every input of an IR",
                                    (long long)*batch, (long long)w);
                *batch = w;
            }
        }
        if (!found) return tool_why(why, cap, 2, "-shape: the model has no input '%.*s'", (int)sp->name_len, sp->name);
    }
    return 0;
}

/* Reshapes input i to target[i] where its rank is not 0, as OpenVINO's
 * Model::reshape does (npu_ir_set_input_shape: a dynamic model made static).
 * The plans take NPU_PREPROCESS_BYTES each from a block allocated here into
 * *mem, which the caller frees after closing the IR. 0 or 1. */
static int tool_ir_reshape(npu_ir *ir, npu_context *ctx, const npu_shape *target, void **mem, char *why, size_t cap)
{
    uint32_t n = npu_ir_input_count(ir), count = 0, i;
    npu_arena arena;
    char want[128];
    *mem = NULL;
    for (i = 0; i < n; i++) count += target[i].rank > 0;
    if (count == 0) return 0;
    if (tool_plan_block(count, mem, &arena) != 0) return tool_why(why, cap, 1, "out of memory");
    for (i = 0; i < n; i++) {
        if (target[i].rank == 0) continue;
        tool_shape_str(&target[i], want, sizeof want);
        if (npu_ir_set_input_shape(ir, &arena, i, &target[i]) != NPU_OK)
            return tool_why(why, cap, 1, "-shape %s: input '%s': %s", want, npu_ir_input(ir, i)->desc.name,
                            npu_context_last_error(ctx));
    }
    return 0;
}

#endif
