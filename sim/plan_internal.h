/* plan_internal.h - the inside of a sim_plan, shared by the compiler (builds it:
 * payload.c, ops.c, planner.c, see compiler_internal.h), elf.c (serializes and
 * imports it) and exec.c (runs it). Not for the driver.
 *
 * A plan is a list of tensors, a list of steps over them, and the graph
 * arguments. Every record is plain fixed-width data with explicit padding, so
 * the native blob stores the arrays as they are and import re-validates every
 * field (plan_validate) before anything runs.
 *
 * Tensors live either in the constant pool (f32, read-only, inside the native
 * blob's weights section) or in the per-run arena (f32, malloc'd by each run).
 * Reshape-like ops create a new tensor record over the same storage (alias).
 */
#ifndef SIM_PLAN_INTERNAL_H
#define SIM_PLAN_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/kernels.h"
#include "sim/sim_plan.h"

/* Precision codes (ze-graph-ext.md §2) the sim supports at its edges. */
#define SIM_P_FP32 0x01u
#define SIM_P_FP16 0x02u
#define SIM_P_U8 0x04u
#define SIM_P_I32 0x05u
#define SIM_P_I8 0x07u
#define SIM_P_BF16 0x09u
#define SIM_P_BOOL 0x0Eu
#define SIM_P_I64 0x11u

/* Bumped whenever any record below changes. */
#define SIM_PLAN_FORMAT_VERSION 2u
#define SIM_PLAN_MAGIC "SIMPLAN"

enum { SIM_T_ARENA = 1, SIM_T_CONST = 2 };

typedef struct sim_tensor {
    uint32_t where;     /* SIM_T_ARENA or SIM_T_CONST */
    uint32_t et;        /* precision code of the IR element type (informational) */
    uint64_t offset;    /* in floats, into the arena or the constant pool */
    int32_t rank;
    int32_t pad_;
    int64_t d[SIM_MAX_RANK];
} sim_tensor;

typedef enum sim_step_op {
    SIM_S_CONVERT = 1, SIM_S_BINARY, SIM_S_UNARY, SIM_S_CLAMP, SIM_S_SOFTMAX, SIM_S_MATMUL,
    SIM_S_CONV, SIM_S_MAXPOOL, SIM_S_AVGPOOL, SIM_S_REDUCE, SIM_S_TRANSPOSE, SIM_S_CONCAT,
    SIM_S_SLICE, SIM_S_GATHER, SIM_S_INTERPOLATE, SIM_S_SLICE_STEP, SIM_S_FAKE_QUANT, SIM_S_SELECT,
    SIM_S_BROADCAST, SIM_S_TOPK, SIM_S_DECONV, SIM_S_OP_END
} sim_step_op;

/* FAKE_QUANT: inputs x, input_low, input_high, output_low, output_high, the four
 * limits broadcasting onto x (y has x's shape); `groups` holds levels (>= 2).
 * SELECT: inputs cond, then, else, numpy-broadcast to y. BROADCAST: one input
 * repeated onto y numpy-style. SOFTMAX: sub 1 = LogSoftmax. REDUCE: sub is a
 * SIM_RED_* kind. CONVERT: sub 1 = the source is an integer type, so an integer
 * destination wraps modulo 2^bits as C++'s integral conversion does. */

/* TOPK: one output of TopK (the op emits a step per output it has): sub packs
 * SIM_TOPK_SUB; k is y->d[axis]. DECONV: the transposed convolution
 * (sim_k_deconv): inputs x and w viewed as [C_in, C_out/groups, k...]; groups,
 * spatial, kernel, strides, dilations, pads_begin and pads_end as for CONV. */
#define SIM_TOPK_SUB(largest, sort, indices) \
    ((uint32_t)(largest) | (uint32_t)(sort) << 1 | (uint32_t)(indices) << 3)

/* SLICE: y->d[axis] consecutive indices from `start` along `axis`.
 * SLICE_STEP: y->d[axis] indices start, start + step, ... along `axis`, the step
 * in strides[0] (negative reverses, 0 repeats one index); every index lies
 * inside x (sim_step_check). Both copy and never round. */

/* Interpolate: inputs are the (already padded) data and the scales of its axes
 * ([n_axes] f32, in the order of perm); its three modes are packed in `sub`
 * (kernels.h SIM_INTERP_*). */
#define SIM_INTERP_SUB(mode, coord, nearest) \
    ((uint32_t)(mode) | (uint32_t)(coord) << 8 | (uint32_t)(nearest) << 16)
#define SIM_INTERP_MODE(sub) ((int)((sub) & 0xffu))
#define SIM_INTERP_COORD(sub) ((int)(((sub) >> 8) & 0xffu))
#define SIM_INTERP_NEAREST_MODE(sub) ((int)((sub) >> 16))

/* A layer of a profiling plan (compiled with PERF_COUNT=YES): the IR layer
 * whose steps run under this entry of the layer-level profile. */
#define SIM_PROF_TYPE_MAX 56
typedef struct sim_prof_layer {
    char name[SIM_NAME_MAX];
    char type[SIM_PROF_TYPE_MAX];
} sim_prof_layer;

typedef struct sim_step {
    uint32_t op;          /* sim_step_op */
    uint32_t sub;         /* sim_binop / sim_unop / SIM_RED_* / SIM_INTERP_SUB / see above */
    uint32_t out;         /* tensor index */
    uint32_t in_first;    /* into plan->step_inputs */
    uint32_t in_count;
    uint32_t prec;        /* Convert: target precision */
    uint32_t round_prec;  /* non-zero: round the result to this integer precision */
    uint32_t axes_mask;   /* Reduce, Interpolate (its axes) */
    int32_t axis;         /* Softmax, Concat, Slice, Gather */
    int32_t transpose_a, transpose_b;
    int32_t spatial;      /* Conv, pools */
    int32_t exclude_pad;
    int32_t perm[SIM_MAX_RANK]; /* Transpose; Interpolate: its axes in input order */
    int32_t layer;        /* profiling plans: index into plan->layers; else -1 */
    float lo, hi;         /* Clamp */
    int64_t start;        /* Slice: first index along axis */
    int64_t groups;
    int64_t kernel[SIM_K_MAX_SPATIAL];
    int64_t strides[SIM_K_MAX_SPATIAL];
    int64_t dilations[SIM_K_MAX_SPATIAL];
    int64_t pads_begin[SIM_K_MAX_SPATIAL];
    int64_t pads_end[SIM_K_MAX_SPATIAL];
} sim_step;

struct sim_plan {
    uint32_t n_args, n_tensors, n_steps, n_step_inputs;
    sim_arg *args;
    uint32_t *arg_tensor;       /* tensor each argument reads from / writes to */
    sim_tensor *tensors;
    sim_step *steps;
    uint32_t *step_inputs;
    uint64_t arena_floats;
    uint64_t const_floats;
    const float *consts;        /* points into native (weights section) */
    uint32_t profiling;         /* compiled with PERF_COUNT=YES */
    uint32_t n_layers;          /* profiling plans: entries of `layers` */
    sim_prof_layer *layers;     /* the layers that own steps, in order of their first step */
    uint8_t *native;            /* the ELF native blob, owned unless borrowed */
    size_t native_size;
    int native_borrowed;        /* native is the importer's blob (in-place import) */
};

/* ---- build log -------------------------------------------------------------- */
typedef struct sim_log {
    char *buf;
    size_t cap, len;
} sim_log;

void sim_log_init(sim_log *l, char *buf, size_t cap);
void sim_log_add(sim_log *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- helpers shared by the three parts -------------------------------------- */
uint32_t sim_prec_size(uint32_t prec);        /* 0 when unsupported */
const char *sim_prec_name(uint32_t prec);     /* "FP32", ...; "?" when unknown */
uint32_t sim_prec_meta(uint32_t prec);        /* ze_graph_metadata_type */
int sim_prec_is_integer(uint32_t prec);       /* I8/U8/I32/I64/BOOL */
/* Element count of a tensor record; 0 with *ok = 0 on overflow or bad rank. */
uint64_t sim_tensor_numel(const sim_tensor *t, int *ok);
sim_shape sim_tensor_shape(const sim_tensor *t);

/* Checks every cross-reference and shape of a plan (compile asserts it, import
 * relies on it). Returns 0 when consistent, else logs why. */
int sim_plan_validate(const sim_plan *p, sim_log *log);

/* Checks one step against its tensors' shapes (not their storage bounds). */
int sim_step_check(const sim_plan *p, const sim_step *s);
/* Runs one step: CONST tensors are read from p->consts, ARENA ones from `arena`.
 * The compiler folds constant steps with both pointing at its pool. */
int sim_step_run(const sim_plan *p, float *arena, const sim_step *s);

/* elf.c: builds p->native from the plan and p's constant pool `pool`, then points
 * p->consts into it. Returns SIM_OK or SIM_ERR_NOMEM. */
int sim_plan_build_native(sim_plan *p, const float *pool);

/* exec.c */
void sim_plan_free(sim_plan *p);

#endif /* SIM_PLAN_INTERNAL_H */
