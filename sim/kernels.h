/* kernels.h - the software NPU's CPU kernels, all on f32 tensors in row-major
 * (C) order. The compiler (ops.c) resolves shapes and attributes; kernels
 * only compute. Semantics follow the OpenVINO opset of the same name.
 *
 * Shapes are passed as sim_shape; every output shape is computed by the caller.
 * Inputs and outputs never alias unless a function says so.
 */
#ifndef SIM_KERNELS_H
#define SIM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#define SIM_K_MAX_RANK 8
#define SIM_K_MAX_SPATIAL 3

typedef struct sim_shape {
    int rank;                      /* 0 = scalar (1 element) */
    int64_t d[SIM_K_MAX_RANK];
} sim_shape;

size_t sim_shape_numel(const sim_shape *s);

/* ---- element conversion at the edges ----------------------------------- */
/* `prec` is a graph-extension precision code (FP32 0x01, FP16 0x02, UINT8 0x04,
 * INT32 0x05, INT8 0x07, BF16 0x09, BOOLEAN 0x0E, INT64 0x11). Float to integer
 * rounds toward zero and saturates to the type's range (NaN -> 0); BOOLEAN is 0/1. */
void sim_cvt_to_f32(uint32_t prec, const void *src, float *dst, size_t n);
void sim_cvt_from_f32(uint32_t prec, const float *src, void *dst, size_t n);
float sim_f16_to_f32(uint16_t h);
uint16_t sim_f32_to_f16(float f);       /* round to nearest even, overflow -> inf */
float sim_bf16_to_f32(uint16_t h);
uint16_t sim_f32_to_bf16(float f);      /* round to nearest even */
/* Convert op: y = value of x after conversion to `prec` and back to f32. */
void sim_k_convert(const float *x, float *y, size_t n, uint32_t prec);
/* The same for integral x (an integer source type): integer destinations take the
 * value modulo 2^bits as C++'s static_cast between integral types (u8 200 -> i8
 * -56); float and boolean destinations as sim_k_convert. */
void sim_k_convert_wrap(const float *x, float *y, size_t n, uint32_t prec);

/* ---- elementwise -------------------------------------------------------- */
typedef enum sim_binop {
    SIM_BIN_ADD, SIM_BIN_SUB, SIM_BIN_MUL, SIM_BIN_DIV, SIM_BIN_MAX, SIM_BIN_MIN,
    SIM_BIN_SWISH,  /* Swish-4, b = beta: a / (1 + exp(-a * b)), exp in float, the rest in double */
    SIM_BIN_POW,    /* Power-1: powf(a, b) */
    SIM_BIN_PRELU,  /* PRelu-1, b = slope: a < 0 ? a * b : a */
    /* Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual: 1 or 0 (NaN compares
     * as C's operators do) */
    SIM_BIN_EQ, SIM_BIN_NE, SIM_BIN_LT, SIM_BIN_LE, SIM_BIN_GT, SIM_BIN_GE
} sim_binop;
#define SIM_BIN_LAST SIM_BIN_GE

/* numpy broadcasting: shapes are right-aligned, each dim equal or 1.
 * `ys` is the broadcast shape. */
void sim_k_binary(sim_binop op, const float *a, const sim_shape *as, const float *b,
                  const sim_shape *bs, float *y, const sim_shape *ys);

/* The activations compute what OpenVINO's reference computes for f32 (the
 * reference evaluates f16/bf16 through f32), in the same precision:
 * HSwish x * min(max(x + 3, 0), 6) / 6 and HSigmoid min(max(x + 3, 0), 6) / 6 in
 * float; Mish x * tanh(log(exp(x) + 1)) in float; Gelu erf 0.5 * x * (1 + erf(x /
 * sqrt 2)) and tanh 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))) in
 * double, rounded once; Erf, Log and Floor with the float functions. */
typedef enum sim_unop {
    SIM_UN_RELU, SIM_UN_SIGMOID, SIM_UN_TANH, SIM_UN_EXP, SIM_UN_SQRT, SIM_UN_ABS, SIM_UN_NEG,
    SIM_UN_HSWISH, SIM_UN_HSIGMOID, SIM_UN_MISH, SIM_UN_GELU_ERF, SIM_UN_GELU_TANH, SIM_UN_ERF,
    SIM_UN_LOG, SIM_UN_FLOOR
} sim_unop;
#define SIM_UN_LAST SIM_UN_FLOOR

/* y may alias x. */
void sim_k_unary(sim_unop op, const float *x, float *y, size_t n);
/* The same for tensors of an integer element type, whose values are integral:
 * OpenVINO's reference computes Erf as round(erf(x)) and Log as log(x) in double,
 * truncated by the cast, for them; here both are integral before the caller
 * converts the result to the type. Others as sim_k_unary. */
void sim_k_unary_int(sim_unop op, const float *x, float *y, size_t n);
void sim_k_clamp(const float *x, float *y, size_t n, float lo, float hi); /* y may alias x */

/* Softmax along `axis` (0 <= axis < s->rank), numerically stable (max subtracted). */
void sim_k_softmax(const float *x, float *y, const sim_shape *s, int axis);

/* LogSoftmax-5 along `axis`: (x - max) - log(sum(exp(x - max))), in float. */
void sim_k_log_softmax(const float *x, float *y, const sim_shape *s, int axis);

/* ---- linear algebra ----------------------------------------------------- */
/* Batched MatMul with OpenVINO semantics for rank >= 2 operands (the compiler
 * turns 1-D operands into 2-D before calling): a is [..., M, K] (or [..., K, M]
 * when transpose_a), b is [..., K, N] (or [..., N, K] when transpose_b); batch
 * dims broadcast numpy-style; ys = [...broadcast batch..., M, N]. Blocked loops. */
void sim_k_matmul(const float *a, const sim_shape *as, int transpose_a,
                  const float *b, const sim_shape *bs, int transpose_b,
                  float *y, const sim_shape *ys);

/* Convolution / GroupConvolution, NC + 1..3 spatial dims.
 * x: [N, C_in, spatial...]; w: [C_out, C_in / groups, kernel...] (the compiler
 * reshapes GroupConvolution's [G, C_out/G, C_in/G, k...] weights to this);
 * y: [N, C_out, out spatial...] (computed by the caller). Pads are explicit here:
 * the compiler resolves auto_pad. Blocked loops. */
typedef struct sim_conv_params {
    int spatial;                              /* 1..3 */
    int64_t groups;                           /* 1 for Convolution */
    int64_t strides[SIM_K_MAX_SPATIAL];
    int64_t dilations[SIM_K_MAX_SPATIAL];
    int64_t pads_begin[SIM_K_MAX_SPATIAL];
    int64_t pads_end[SIM_K_MAX_SPATIAL];
} sim_conv_params;

void sim_k_conv(const float *x, const sim_shape *xs, const float *w, const sim_shape *ws,
                const sim_conv_params *p, float *y, const sim_shape *ys);

/* MaxPool / AvgPool over the spatial dims of [N, C, spatial...]. Padded cells
 * never win a max. AvgPool divides by the count of cells inside the input when
 * exclude_pad, else by the count inside input + pads (OpenVINO AvgPool-1). */
typedef struct sim_pool_params {
    int spatial;
    int64_t kernel[SIM_K_MAX_SPATIAL];
    int64_t strides[SIM_K_MAX_SPATIAL];
    int64_t dilations[SIM_K_MAX_SPATIAL];     /* MaxPool-8; 1 otherwise */
    int64_t pads_begin[SIM_K_MAX_SPATIAL];
    int64_t pads_end[SIM_K_MAX_SPATIAL];
    int exclude_pad;
} sim_pool_params;

void sim_k_maxpool(const float *x, const sim_shape *xs, const sim_pool_params *p,
                   float *y, const sim_shape *ys);
void sim_k_avgpool(const float *x, const sim_shape *xs, const sim_pool_params *p,
                   float *y, const sim_shape *ys);

/* ReduceSum / ReduceMean over the axes whose bit is set in axes_mask (bit i =
 * axis i). ys is the kept-dims shape or the squeezed one: only its element count
 * matters, the layout is the same. */
void sim_k_reduce(int mean, const float *x, const sim_shape *xs, uint32_t axes_mask, float *y);

/* Reductions by kind: SUM and MEAN as sim_k_reduce; the others as OpenVINO's
 * reference loops them over the input in order: MAX starts from -FLT_MAX and
 * keeps std::max(out, x) (a NaN input never wins), MIN from FLT_MAX with
 * std::min(out, x), PROD from 1, L2 sqrt of the sum of squares (in float), L1
 * the sum of |x| from 0 (in float). */
enum { SIM_RED_SUM, SIM_RED_MEAN, SIM_RED_MAX, SIM_RED_MIN, SIM_RED_PROD, SIM_RED_L2, SIM_RED_L1 };
#define SIM_RED_LAST SIM_RED_L1
void sim_k_reduce_op(int kind, const float *x, const sim_shape *xs, uint32_t axes_mask, float *y);

/* y = transpose(x, perm); ys[i] = xs[perm[i]]. */
void sim_k_transpose(const float *x, const sim_shape *xs, const int *perm, float *y);

/* Strided slice along one axis: y has xs's shape with `count` at `axis`, and
 * y[..., k, ...] = x[..., start + k * step, ...]. step may be negative (reversed)
 * or 0 (one index repeated); the caller guarantees every index is inside x. */
void sim_k_slice_axis(const float *x, const sim_shape *xs, int axis, int64_t start, int64_t step,
                      float *y, int64_t count);

/* Concatenates n inputs along `axis`; all other dims equal. */
void sim_k_concat(const float *const *xs, const sim_shape *shapes, int n, int axis,
                  float *y);

/* ---- resampling --------------------------------------------------------- */
/* Interpolate-4 / Interpolate-11 (OpenVINO) without antialias: nearest, linear and
 * linear_onnx. Each axis in `axes` maps an output coordinate to a source
 * coordinate (coordinate_transformation_mode with that axis' scale), then to
 * input taps: one (nearest, nearest_mode), the neighbours inside the input with
 * triangle weights renormalised (linear), or the two clamped neighbours
 * (linear_onnx). The output is the sum over the product of the axes' taps.
 * x is the already padded input; ys equals xs outside `axes`. */
enum { SIM_INTERP_NEAREST, SIM_INTERP_LINEAR, SIM_INTERP_LINEAR_ONNX };
enum {
    SIM_INTERP_HALF_PIXEL, SIM_INTERP_PYTORCH_HALF_PIXEL, SIM_INTERP_ASYMMETRIC,
    SIM_INTERP_TF_HALF_PIXEL_FOR_NN, SIM_INTERP_ALIGN_CORNERS
};
enum {
    SIM_INTERP_ROUND_PREFER_FLOOR, SIM_INTERP_ROUND_PREFER_CEIL, SIM_INTERP_FLOOR,
    SIM_INTERP_CEIL, SIM_INTERP_SIMPLE
};

typedef struct sim_interp_params {
    int mode;                        /* SIM_INTERP_NEAREST / _LINEAR / _LINEAR_ONNX */
    int coord;                       /* SIM_INTERP_HALF_PIXEL ... _ALIGN_CORNERS */
    int nearest;                     /* SIM_INTERP_ROUND_PREFER_FLOOR ... _SIMPLE */
    int round_to_int;                /* linear: round half away from zero (integer types) */
    int n_axes;                      /* 1..rank */
    int axes[SIM_K_MAX_RANK];        /* distinct, in the order of the op's axes input */
    float scales[SIM_K_MAX_RANK];    /* scale of axes[i] as the coordinate maps use it */
} sim_interp_params;

/* Any float values in `scales` are safe (no undefined conversion, no access
 * outside x); x must have no empty dim when y has elements. */
void sim_k_interpolate(const float *x, const sim_shape *xs, const sim_interp_params *p, float *y,
                       const sim_shape *ys);

/* ---- broadcasting ops ---------------------------------------------------- */
/* Inputs broadcast numpy-style onto the output shape ys (right-aligned, each dim
 * equal to the output's or 1); the caller checks the shapes. */

/* FakeQuantize-1 as OpenVINO's reference computes it in float: with il, ih, ol,
 * oh the limits lim[0..3] at this element, x <= min(il, ih) gives ol, x > max(il,
 * ih) gives oh, else nearbyint((x - il) / (ih - il) * L) / L * (oh - ol) + ol
 * with L = levels - 1 (ties to even). x has the shape ys. */
void sim_k_fake_quantize(const float *x, const float *const lim[4], const sim_shape *const lims[4],
                         float levels_m1, float *y, const sim_shape *ys);
/* Select-1: y = c != 0 ? a : b. */
void sim_k_select(const float *c, const sim_shape *cs, const float *a, const sim_shape *as,
                  const float *b, const sim_shape *bs, float *y, const sim_shape *ys);
/* y = x repeated onto ys (Broadcast, Tile). */
void sim_k_broadcast(const float *x, const sim_shape *xs, float *y, const sim_shape *ys);

/* ---- TopK, transposed convolution ---------------------------------------- */
/* TopK-3/-11 along `axis`: y has xs's shape with k (1 <= k <= xs->d[axis]) at
 * `axis`. Each slice is ordered as OpenVINO's reference compares (the larger
 * value first for `largest`, else the smaller; equal values by ascending index,
 * which also makes the order stable; NaNs last); the first k are kept in that
 * order (SORT_VALUE, and SORT_NONE, whose order the spec leaves open) or by
 * ascending index (SORT_INDEX). y receives the values, or the indices as floats
 * when `indices`. Returns 0, or -1 when its scratch memory is not available. */
enum { SIM_TOPK_SORT_VALUE, SIM_TOPK_SORT_INDEX, SIM_TOPK_SORT_NONE };
int sim_k_topk(const float *x, const sim_shape *xs, int axis, int64_t k, int largest, int sort,
               int indices, float *y);

/* ConvolutionBackpropData-1 / GroupConvolutionBackpropData-1: x [N, C_in,
 * spatial...], w [C_in, C_out / groups, kernel...] (the group weights [G, C_in/G,
 * C_out/G, k...] viewed so), y [N, C_out, out spatial...] computed by the caller.
 * y[n, g * C_out/G + co, o] is the sum over input channels ci of group g, input
 * positions i and taps t with o = i * stride + t * dilation - pads_begin of
 * x[n, ci, i] * w[ci, co, t] (per spatial dim); positions outside y are dropped.
 * pads_end is not read: y's shape carries it and output_padding. */
void sim_k_deconv(const float *x, const sim_shape *xs, const float *w, const sim_shape *ws,
                  const sim_conv_params *p, float *y, const sim_shape *ys);

#endif /* SIM_KERNELS_H */
