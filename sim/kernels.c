/* kernels.c - the software NPU's CPU kernels (see kernels.h for the contract).
 *
 * Sections, in the order the compiler's plans use them:
 *   shapes        element counts and dim collapsing shared by the kernels below
 *   conversions   f16 / bf16 / integer <-> f32 at the graph's edges, Convert op
 *   elementwise   binary (numpy broadcast), unary, clamp, softmax
 *   matmul        a packed, cache-blocked GEMM; batched MatMul on top of it
 *   convolution   im2col tiles fed to the same GEMM (1x1 reads x; depthwise direct)
 *   pooling       MaxPool / AvgPool, direct loops
 *   data movement reduce, transpose, strided slice, concat
 *   resampling    Interpolate (nearest, linear, linear_onnx)
 *
 * Everything is plain C: the inner loops run over contiguous memory so that the
 * compiler vectorizes them at -O2. Scratch memory comes from malloc; when it is
 * not available the kernels fall back to unblocked loops rather than fail.
 */
#include "sim/kernels.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- shapes --------------------------------------------------------------- */

size_t sim_shape_numel(const sim_shape *s)
{
    size_t n = 1;
    for (int i = 0; i < s->rank; i++)
        n *= (size_t)s->d[i];
    return n;
}

static size_t prod_range(const int64_t *d, int from, int to)
{
    size_t n = 1;
    for (int i = from; i < to; i++)
        n *= (size_t)d[i];
    return n;
}

/* ---- conversions ---------------------------------------------------------- */
/* Bit-exact conversions: f16/bf16 round to nearest even (subnormals included),
 * NaN payloads survive a round trip, float -> int truncates and saturates. */

enum {
    PREC_FP32 = 0x01, PREC_FP16 = 0x02, PREC_UINT16 = 0x03, PREC_UINT8 = 0x04,
    PREC_INT32 = 0x05, PREC_INT16 = 0x06, PREC_INT8 = 0x07, PREC_BF16 = 0x09,
    PREC_UINT32 = 0x0A, PREC_BOOLEAN = 0x0E, PREC_FP64 = 0x0F, PREC_UINT64 = 0x10,
    PREC_INT64 = 0x11
};

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

float sim_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0x1f)                                  /* inf / NaN, payload kept */
        return bits_f32(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {                                   /* zero / subnormal: mant * 2^-24 */
        float v = (float)mant * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    return bits_f32(sign | ((exp + 112u) << 23) | (mant << 13));
}

/* Rounds v >> shift to nearest even (shift >= 1). */
static uint32_t shift_rne(uint32_t v, unsigned shift)
{
    uint32_t r = v >> shift;
    uint32_t rem = v & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u)))
        r++;
    return r;
}

uint16_t sim_f32_to_f16(float f)
{
    uint32_t u = f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t x = u & 0x7fffffffu;
    uint32_t fexp = x >> 23;
    uint32_t mant = x & 0x7fffffu;
    if (fexp == 0xff) {
        if (mant == 0)
            return (uint16_t)(sign | 0x7c00u);
        uint32_t m = mant >> 13;
        return (uint16_t)(sign | 0x7c00u | (m ? m : 0x200u));  /* NaN stays NaN */
    }
    int exp = (int)fexp - 127 + 15;
    if (exp >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (exp <= 0) {                                   /* f16 subnormal or zero */
        unsigned shift = (unsigned)(14 - exp);
        if (shift > 24)
            return (uint16_t)sign;
        return (uint16_t)(sign | shift_rne(mant | 0x800000u, shift)); /* may carry to normal */
    }
    /* a carry out of the mantissa bumps the exponent, up to inf: still correct */
    return (uint16_t)(sign | shift_rne(((uint32_t)exp << 23) | mant, 13));
}

float sim_bf16_to_f32(uint16_t h)
{
    return bits_f32((uint32_t)h << 16);
}

uint16_t sim_f32_to_bf16(float f)
{
    uint32_t u = f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {            /* NaN: keep payload, stay NaN */
        uint32_t h = u >> 16;
        return (uint16_t)((h & 0x7fu) ? h : (h | 0x40u));
    }
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* Truncate toward zero, saturate, NaN -> 0. The bounds are powers of two (exact
 * in float); `hi_excl` is the first value that no longer fits. */
static int64_t f2i_sat(float f, float lo, float hi_excl, int64_t lo_i, int64_t hi_i)
{
    if (f != f)
        return 0;
    if (f >= hi_excl)
        return hi_i;
    if (f <= lo)
        return lo_i;
    return (int64_t)f;
}

static uint64_t f2u64_sat(float f)
{
    if (f != f || f <= 0.0f)
        return 0;
    if (f >= 18446744073709551616.0f)
        return UINT64_MAX;
    return (uint64_t)f;
}

void sim_cvt_to_f32(uint32_t prec, const void *src, float *dst, size_t n)
{
    size_t i;
    switch (prec) {
    case PREC_FP32: memmove(dst, src, n * sizeof(float)); break;
    case PREC_FP16: {
        const uint16_t *s = src;
        for (i = 0; i < n; i++) dst[i] = sim_f16_to_f32(s[i]);
        break;
    }
    case PREC_BF16: {
        const uint16_t *s = src;
        for (i = 0; i < n; i++) dst[i] = sim_bf16_to_f32(s[i]);
        break;
    }
    case PREC_UINT8: {
        const uint8_t *s = src;
        for (i = 0; i < n; i++) dst[i] = (float)s[i];
        break;
    }
    case PREC_INT8: {
        const int8_t *s = src;
        for (i = 0; i < n; i++) dst[i] = (float)s[i];
        break;
    }
    case PREC_UINT16: {
        const uint16_t *s = src;
        for (i = 0; i < n; i++) dst[i] = (float)s[i];
        break;
    }
    case PREC_INT16: {
        const int16_t *s = src;
        for (i = 0; i < n; i++) dst[i] = (float)s[i];
        break;
    }
    case PREC_INT32: {
        const int32_t *s = src;
        for (i = 0; i < n; i++) dst[i] = (float)s[i];
        break;
    }
    case PREC_UINT32: {
        const uint32_t *s = src;
        for (i = 0; i < n; i++) dst[i] = (float)s[i];
        break;
    }
    case PREC_INT64: {
        const int64_t *s = src;
        for (i = 0; i < n; i++) dst[i] = (float)s[i];
        break;
    }
    case PREC_UINT64: {
        const uint64_t *s = src;
        for (i = 0; i < n; i++) dst[i] = (float)s[i];
        break;
    }
    case PREC_FP64: {
        const double *s = src;
        for (i = 0; i < n; i++) dst[i] = (float)s[i];
        break;
    }
    case PREC_BOOLEAN: {
        const uint8_t *s = src;
        for (i = 0; i < n; i++) dst[i] = s[i] ? 1.0f : 0.0f;
        break;
    }
    default:
        for (i = 0; i < n; i++) dst[i] = 0.0f;
        break;
    }
}

void sim_cvt_from_f32(uint32_t prec, const float *src, void *dst, size_t n)
{
    size_t i;
    switch (prec) {
    case PREC_FP32: memmove(dst, src, n * sizeof(float)); break;
    case PREC_FP16: {
        uint16_t *d = dst;
        for (i = 0; i < n; i++) d[i] = sim_f32_to_f16(src[i]);
        break;
    }
    case PREC_BF16: {
        uint16_t *d = dst;
        for (i = 0; i < n; i++) d[i] = sim_f32_to_bf16(src[i]);
        break;
    }
    case PREC_UINT8: {
        uint8_t *d = dst;
        for (i = 0; i < n; i++) d[i] = (uint8_t)f2i_sat(src[i], 0.0f, 256.0f, 0, UINT8_MAX);
        break;
    }
    case PREC_INT8: {
        int8_t *d = dst;
        for (i = 0; i < n; i++)
            d[i] = (int8_t)f2i_sat(src[i], -128.0f, 128.0f, INT8_MIN, INT8_MAX);
        break;
    }
    case PREC_UINT16: {
        uint16_t *d = dst;
        for (i = 0; i < n; i++) d[i] = (uint16_t)f2i_sat(src[i], 0.0f, 65536.0f, 0, UINT16_MAX);
        break;
    }
    case PREC_INT16: {
        int16_t *d = dst;
        for (i = 0; i < n; i++)
            d[i] = (int16_t)f2i_sat(src[i], -32768.0f, 32768.0f, INT16_MIN, INT16_MAX);
        break;
    }
    case PREC_INT32: {
        int32_t *d = dst;
        for (i = 0; i < n; i++)
            d[i] = (int32_t)f2i_sat(src[i], -2147483648.0f, 2147483648.0f, INT32_MIN, INT32_MAX);
        break;
    }
    case PREC_UINT32: {
        uint32_t *d = dst;
        for (i = 0; i < n; i++)
            d[i] = (uint32_t)f2i_sat(src[i], 0.0f, 4294967296.0f, 0, UINT32_MAX);
        break;
    }
    case PREC_INT64: {
        int64_t *d = dst;
        for (i = 0; i < n; i++)
            d[i] = f2i_sat(src[i], -9223372036854775808.0f, 9223372036854775808.0f,
                           INT64_MIN, INT64_MAX);
        break;
    }
    case PREC_UINT64: {
        uint64_t *d = dst;
        for (i = 0; i < n; i++) d[i] = f2u64_sat(src[i]);
        break;
    }
    case PREC_FP64: {
        double *d = dst;
        for (i = 0; i < n; i++) d[i] = (double)src[i];
        break;
    }
    case PREC_BOOLEAN: {   /* C's (bool)x: NaN is non-zero, hence true */
        uint8_t *d = dst;
        for (i = 0; i < n; i++) d[i] = src[i] != 0.0f;
        break;
    }
    default:
        break;
    }
}

void sim_k_convert_wrap(const float *x, float *y, size_t n, uint32_t prec)
{
    int bits;
    int is_signed;
    switch (prec) {
    case PREC_UINT8: bits = 8; is_signed = 0; break;
    case PREC_INT8: bits = 8; is_signed = 1; break;
    case PREC_UINT16: bits = 16; is_signed = 0; break;
    case PREC_INT16: bits = 16; is_signed = 1; break;
    case PREC_UINT32: bits = 32; is_signed = 0; break;
    case PREC_INT32: bits = 32; is_signed = 1; break;
    default:
        sim_k_convert(x, y, n, prec);
        return;
    }
    uint64_t mask = (UINT64_C(1) << bits) - 1, half = UINT64_C(1) << (bits - 1);
    for (size_t i = 0; i < n; i++) {
        float f = x[i];
        /* integral values; the sim's integers stay well inside int64 */
        int64_t v = f == f && f > -9.2e18f && f < 9.2e18f ? (int64_t)f : 0;
        uint64_t u = (uint64_t)v & mask;
        y[i] = is_signed && u >= half ? (float)((int64_t)u - (int64_t)(mask + 1)) : (float)u;
    }
}

void sim_k_convert(const float *x, float *y, size_t n, uint32_t prec)
{
    size_t i;
    switch (prec) {
    case PREC_FP32:
    case PREC_FP64:
        if (y != x) memmove(y, x, n * sizeof(float));
        break;
    case PREC_FP16:
        for (i = 0; i < n; i++) y[i] = sim_f16_to_f32(sim_f32_to_f16(x[i]));
        break;
    case PREC_BF16:
        for (i = 0; i < n; i++) y[i] = sim_bf16_to_f32(sim_f32_to_bf16(x[i]));
        break;
    case PREC_BOOLEAN:
        for (i = 0; i < n; i++) y[i] = x[i] != 0.0f ? 1.0f : 0.0f;
        break;
    case PREC_UINT8: case PREC_INT8: case PREC_UINT16: case PREC_INT16:
    case PREC_INT32: case PREC_UINT32: case PREC_INT64: case PREC_UINT64: {
        /* through a small stack buffer of the integer type, so the saturation
         * rules live in one place (sim_cvt_from_f32) */
        uint64_t buf[256];
        for (i = 0; i < n; i += 256) {
            size_t c = n - i < 256 ? n - i : 256;
            sim_cvt_from_f32(prec, x + i, buf, c);
            sim_cvt_to_f32(prec, buf, y + i, c);
        }
        break;
    }
    default:
        if (y != x) memmove(y, x, n * sizeof(float));
        break;
    }
}

/* ---- elementwise ---------------------------------------------------------- */
/* Binary ops collapse the broadcast into runs: adjacent dims whose broadcast
 * pattern (a broadcast? b broadcast?) matches merge into one, so the innermost
 * loop covers the longest contiguous run with a and b each stepping 1 or 0. */

/* Elementwise loops run in fixed chunks of 8 through a local buffer: the
 * constant trip count lets gcc vectorize at -O2, and because every chunk is
 * read before it is written, y may alias an input. VAL is an expression of the
 * element index `k_`. */
#define EW_CHUNK 8
#define EW_LOOP(n, VAL)                                                            \
    do {                                                                           \
        size_t i_ = 0;                                                             \
        for (; i_ + EW_CHUNK <= (n); i_ += EW_CHUNK) {                             \
            float t_[EW_CHUNK];                                                    \
            for (size_t j_ = 0; j_ < EW_CHUNK; j_++) {                             \
                size_t k_ = i_ + j_;                                               \
                t_[j_] = (VAL);                                                    \
            }                                                                      \
            memcpy(y + i_, t_, sizeof t_);                                         \
        }                                                                          \
        for (; i_ < (n); i_++) {                                                   \
            size_t k_ = i_;                                                        \
            y[k_] = (VAL);                                                         \
        }                                                                          \
    } while (0)

static inline float op_add(float p, float q) { return p + q; }
static inline float op_sub(float p, float q) { return p - q; }
static inline float op_mul(float p, float q) { return p * q; }
static inline float op_div(float p, float q) { return p / q; }
static inline float op_max(float p, float q) { return p > q ? p : q; }
static inline float op_min(float p, float q) { return p < q ? p : q; }
static inline float op_eq(float p, float q) { return p == q ? 1.0f : 0.0f; }
static inline float op_ne(float p, float q) { return p != q ? 1.0f : 0.0f; }
static inline float op_lt(float p, float q) { return p < q ? 1.0f : 0.0f; }
static inline float op_le(float p, float q) { return p <= q ? 1.0f : 0.0f; }
static inline float op_gt(float p, float q) { return p > q ? 1.0f : 0.0f; }
static inline float op_ge(float p, float q) { return p >= q ? 1.0f : 0.0f; }
/* Swish-4 as OpenVINO's reference: -x * beta and exp in float, the division in
 * double (1.0 + exp promotes), rounded once. */
static inline float k_swish(float p, float q)
{
    return (float)((double)p / (1.0 + (double)expf(-p * q)));
}
static inline float op_pow(float p, float q) { return powf(p, q); }
static inline float k_prelu(float p, float q) { return p < 0.0f ? p * q : p; }

#define BIN_LOOP(F)                                                                \
    do {                                                                           \
        if (sa && sb) EW_LOOP(n, F(a[k_], b[k_]));                                 \
        else if (sa) { float q_ = b[0]; EW_LOOP(n, F(a[k_], q_)); }                \
        else if (sb) { float p_ = a[0]; EW_LOOP(n, F(p_, b[k_])); }                \
        else { float v_ = F(a[0], b[0]); for (size_t i_ = 0; i_ < n; i_++) y[i_] = v_; } \
    } while (0)

static void bin_run(sim_binop op, const float *a, int sa, const float *b, int sb,
                    float *y, size_t n)
{
    switch (op) {
    case SIM_BIN_ADD: BIN_LOOP(op_add); break;
    case SIM_BIN_SUB: BIN_LOOP(op_sub); break;
    case SIM_BIN_MUL: BIN_LOOP(op_mul); break;
    case SIM_BIN_DIV: BIN_LOOP(op_div); break;
    case SIM_BIN_MAX: BIN_LOOP(op_max); break;
    case SIM_BIN_MIN: BIN_LOOP(op_min); break;
    case SIM_BIN_SWISH: BIN_LOOP(k_swish); break;
    case SIM_BIN_POW: BIN_LOOP(op_pow); break;
    case SIM_BIN_PRELU: BIN_LOOP(k_prelu); break;
    case SIM_BIN_EQ: BIN_LOOP(op_eq); break;
    case SIM_BIN_NE: BIN_LOOP(op_ne); break;
    case SIM_BIN_LT: BIN_LOOP(op_lt); break;
    case SIM_BIN_LE: BIN_LOOP(op_le); break;
    case SIM_BIN_GT: BIN_LOOP(op_gt); break;
    case SIM_BIN_GE: BIN_LOOP(op_ge); break;
    }
}

void sim_k_binary(sim_binop op, const float *a, const sim_shape *as, const float *b,
                  const sim_shape *bs, float *y, const sim_shape *ys)
{
    int r = ys->rank;
    size_t total = sim_shape_numel(ys);
    if (total == 0)
        return;
    /* per output dim: size, and whether a / b step along it (else broadcast) */
    int64_t dim[SIM_K_MAX_RANK];
    int stepa[SIM_K_MAX_RANK], stepb[SIM_K_MAX_RANK];
    int m = 0;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - as->rank), ib = i - (r - bs->rank);
        int64_t da = ia >= 0 ? as->d[ia] : 1, db = ib >= 0 ? bs->d[ib] : 1;
        int64_t dy = ys->d[i];
        if (dy == 1)
            continue;                 /* size-1 dims never matter */
        int pa = da != 1, pb = db != 1;
        if (m > 0 && stepa[m - 1] == pa && stepb[m - 1] == pb) {
            dim[m - 1] *= dy;
        } else {
            dim[m] = dy;
            stepa[m] = pa;
            stepb[m] = pb;
            m++;
        }
    }
    if (m == 0) {                     /* a single element */
        bin_run(op, a, 0, b, 0, y, 1);
        return;
    }
    /* element strides of a and b for each collapsed dim */
    size_t stra[SIM_K_MAX_RANK], strb[SIM_K_MAX_RANK];
    size_t acc_a = 1, acc_b = 1;
    for (int i = m - 1; i >= 0; i--) {
        stra[i] = stepa[i] ? acc_a : 0;
        strb[i] = stepb[i] ? acc_b : 0;
        if (stepa[i]) acc_a *= (size_t)dim[i];
        if (stepb[i]) acc_b *= (size_t)dim[i];
    }
    size_t inner = (size_t)dim[m - 1];
    int64_t idx[SIM_K_MAX_RANK] = {0};
    size_t offa = 0, offb = 0;
    for (size_t o = 0; o < total; o += inner) {
        bin_run(op, a + offa, stepa[m - 1], b + offb, stepb[m - 1], y + o, inner);
        for (int i = m - 2; i >= 0; i--) {        /* odometer over outer dims */
            offa += stra[i];
            offb += strb[i];
            if (++idx[i] < dim[i])
                break;
            offa -= stra[i] * (size_t)dim[i];
            offb -= strb[i] * (size_t)dim[i];
            idx[i] = 0;
        }
    }
}

static float sigmoid1(float x)
{
    if (x >= 0.0f)
        return 1.0f / (1.0f + expf(-x));
    float e = expf(x);                /* no overflow for very negative x */
    return e / (1.0f + e);
}

static inline float op_relu(float v) { return v > 0.0f ? v : 0.0f; }

/* min(max(x + 3, 0), 6) with std::max / std::min's comparisons, so NaN stays NaN. */
static inline float relu6_shift(float v)
{
    float t = v + 3.0f;
    t = t < 0.0f ? 0.0f : t;
    return 6.0f < t ? 6.0f : t;
}

static inline float op_hswish(float v) { return v * relu6_shift(v) / 6.0f; }
static inline float op_hsigmoid(float v) { return relu6_shift(v) / 6.0f; }

static float mish1(float v)
{
    return v * tanhf(logf(expf(v) + 1.0f));
}

static float gelu_erf1(float v)
{
    double x = v;
    return (float)(0.5 * x * (1.0 + erf(x / sqrt(2.0))));
}

static float gelu_tanh1(float v, double sqpi)
{
    double x = v;
    return (float)(0.5 * x * (1.0 + tanh(sqpi * (x + 0.044715 * pow(x, 3.0)))));
}

void sim_k_unary(sim_unop op, const float *x, float *y, size_t n)
{
    const double sqpi = sqrt(2.0 / (atan(1.0) * 4.0));   /* Gelu tanh: sqrt(2 / pi) */
    size_t i;
    switch (op) {
    case SIM_UN_RELU:    EW_LOOP(n, op_relu(x[k_])); break;
    case SIM_UN_SIGMOID: for (i = 0; i < n; i++) y[i] = sigmoid1(x[i]); break;
    case SIM_UN_TANH:    for (i = 0; i < n; i++) y[i] = tanhf(x[i]); break;
    case SIM_UN_EXP:     for (i = 0; i < n; i++) y[i] = expf(x[i]); break;
    case SIM_UN_SQRT:    for (i = 0; i < n; i++) y[i] = sqrtf(x[i]); break;
    case SIM_UN_ABS:     EW_LOOP(n, fabsf(x[k_])); break;
    case SIM_UN_NEG:     EW_LOOP(n, -x[k_]); break;
    case SIM_UN_HSWISH:  EW_LOOP(n, op_hswish(x[k_])); break;
    case SIM_UN_HSIGMOID: EW_LOOP(n, op_hsigmoid(x[k_])); break;
    case SIM_UN_MISH:    for (i = 0; i < n; i++) y[i] = mish1(x[i]); break;
    case SIM_UN_GELU_ERF: for (i = 0; i < n; i++) y[i] = gelu_erf1(x[i]); break;
    case SIM_UN_GELU_TANH: for (i = 0; i < n; i++) y[i] = gelu_tanh1(x[i], sqpi); break;
    case SIM_UN_ERF:     for (i = 0; i < n; i++) y[i] = erff(x[i]); break;
    case SIM_UN_LOG:     for (i = 0; i < n; i++) y[i] = logf(x[i]); break;
    case SIM_UN_FLOOR:   EW_LOOP(n, floorf(x[k_])); break;
    }
}

void sim_k_unary_int(sim_unop op, const float *x, float *y, size_t n)
{
    size_t i;
    switch (op) {
    case SIM_UN_ERF:     for (i = 0; i < n; i++) y[i] = (float)round(erf((double)x[i])); break;
    case SIM_UN_LOG:     for (i = 0; i < n; i++) y[i] = (float)trunc(log((double)x[i])); break;
    default:             sim_k_unary(op, x, y, n); break;
    }
}

static inline float clamp1(float v, float lo, float hi)
{
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
}

void sim_k_clamp(const float *x, float *y, size_t n, float lo, float hi)
{
    EW_LOOP(n, clamp1(x[k_], lo, hi));
}

/* Softmax over the middle dim of [outer, len, inner]. For inner > 1 the work goes
 * in column chunks so every pass over `len` reads contiguous rows. */
void sim_k_softmax(const float *x, float *y, const sim_shape *s, int axis)
{
    size_t outer = prod_range(s->d, 0, axis);
    size_t len = (size_t)s->d[axis];
    size_t inner = prod_range(s->d, axis + 1, s->rank);
    if (len == 0)
        return;
    enum { CH = 64 };
    for (size_t o = 0; o < outer; o++) {
        const float *xo = x + o * len * inner;
        float *yo = y + o * len * inner;
        for (size_t j0 = 0; j0 < inner; j0 += CH) {
            size_t c = inner - j0 < CH ? inner - j0 : CH;
            float mx[CH], sum[CH];
            for (size_t j = 0; j < c; j++) {
                mx[j] = xo[j0 + j];
                sum[j] = 0.0f;
            }
            for (size_t l = 1; l < len; l++) {
                const float *row = xo + l * inner + j0;
                for (size_t j = 0; j < c; j++)
                    mx[j] = row[j] > mx[j] ? row[j] : mx[j];
            }
            for (size_t l = 0; l < len; l++) {
                const float *row = xo + l * inner + j0;
                float *out = yo + l * inner + j0;
                for (size_t j = 0; j < c; j++) {
                    out[j] = expf(row[j] - mx[j]);
                    sum[j] += out[j];
                }
            }
            for (size_t j = 0; j < c; j++)
                sum[j] = 1.0f / sum[j];
            for (size_t l = 0; l < len; l++) {
                float *out = yo + l * inner + j0;
                for (size_t j = 0; j < c; j++)
                    out[j] *= sum[j];
            }
        }
    }
}

void sim_k_log_softmax(const float *x, float *y, const sim_shape *s, int axis)
{
    size_t outer = prod_range(s->d, 0, axis);
    size_t len = (size_t)s->d[axis];
    size_t inner = prod_range(s->d, axis + 1, s->rank);
    for (size_t o = 0; o < outer; o++)
        for (size_t j = 0; j < inner; j++) {
            const float *xo = x + o * len * inner + j;
            float *yo = y + o * len * inner + j;
            float mx = -FLT_MAX, sum = 0.0f;
            for (size_t l = 0; l < len; l++)
                mx = mx < xo[l * inner] ? xo[l * inner] : mx;
            for (size_t l = 0; l < len; l++)
                sum += expf(xo[l * inner] - mx);
            float lg = logf(sum);
            for (size_t l = 0; l < len; l++)
                yo[l * inner] = (xo[l * inner] - mx) - lg;
        }
}

/* ---- matmul ---------------------------------------------------------------- */
/* gemm(): C[M,N] = A[M,K] * B[K,N] (row-major, leading dims given), A and/or B
 * possibly stored transposed. Classic packed blocking: a KB x NB block of B is
 * packed into NR-column panels and an MB x KB block of A into MR-row panels,
 * each panel contiguous in k. The micro-kernel keeps an MR x NR tile of C in a
 * local array (registers) for a whole k block. Its loops have constant trip
 * counts, so gcc vectorizes them even at -O2 (very-cheap cost model). Edge
 * panels are zero-padded, and only the valid part of a tile is written. */

enum { GEMM_MR = 4, GEMM_NR = 16, GEMM_KB = 256, GEMM_NB = 512, GEMM_MB = 128 };

typedef struct gemm_op {
    const float *a; size_t lda; int ta;   /* ta: a holds A^T, i.e. element (i,k) at a[k*lda+i] */
    const float *b; size_t ldb; int tb;   /* tb: b holds B^T, i.e. element (k,j) at b[j*ldb+k] */
    float *c; size_t ldc;
} gemm_op;

/* B rows k0.., cols j0..: bp[panel][k][NR] */
static void pack_b(const gemm_op *g, size_t k0, size_t kc, size_t j0, size_t nc, float *bp)
{
    for (size_t jp = 0; jp < nc; jp += GEMM_NR, bp += kc * GEMM_NR) {
        size_t w = nc - jp < GEMM_NR ? nc - jp : GEMM_NR;
        for (size_t k = 0; k < kc; k++) {
            float *dst = bp + k * GEMM_NR;
            size_t j = 0;
            if (!g->tb) {
                const float *src = g->b + (k0 + k) * g->ldb + j0 + jp;
                for (; j < w; j++) dst[j] = src[j];
            } else {
                const float *src = g->b + (j0 + jp) * g->ldb + k0 + k;
                for (; j < w; j++) dst[j] = src[j * g->ldb];
            }
            for (; j < GEMM_NR; j++) dst[j] = 0.0f;
        }
    }
}

/* A rows i0.., cols k0..: ap[panel][k][MR] */
static void pack_a(const gemm_op *g, size_t i0, size_t mc, size_t k0, size_t kc, float *ap)
{
    for (size_t ip = 0; ip < mc; ip += GEMM_MR, ap += kc * GEMM_MR) {
        size_t h = mc - ip < GEMM_MR ? mc - ip : GEMM_MR;
        for (size_t k = 0; k < kc; k++) {
            float *dst = ap + k * GEMM_MR;
            size_t i = 0;
            if (!g->ta) {
                const float *src = g->a + (i0 + ip) * g->lda + k0 + k;
                for (; i < h; i++) dst[i] = src[i * g->lda];
            } else {
                const float *src = g->a + (k0 + k) * g->lda + i0 + ip;
                for (; i < h; i++) dst[i] = src[i];
            }
            for (; i < GEMM_MR; i++) dst[i] = 0.0f;
        }
    }
}

/* C tile (h x w valid of MR x NR) += A panel * B panel over kc. */
static void gemm_micro(size_t kc, const float *restrict ap, const float *restrict bp,
                       float *restrict c, size_t ldc, size_t h, size_t w)
{
    float acc[GEMM_MR][GEMM_NR];
    for (int r = 0; r < GEMM_MR; r++)
        for (int j = 0; j < GEMM_NR; j++)
            acc[r][j] = 0.0f;
    for (size_t k = 0; k < kc; k++) {
        const float *a = ap + k * GEMM_MR, *b = bp + k * GEMM_NR;
        float a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
        for (int j = 0; j < GEMM_NR; j++) {
            float bj = b[j];
            acc[0][j] += a0 * bj;
            acc[1][j] += a1 * bj;
            acc[2][j] += a2 * bj;
            acc[3][j] += a3 * bj;
        }
    }
    if (h == GEMM_MR && w == GEMM_NR) {
        for (int r = 0; r < GEMM_MR; r++)
            for (int j = 0; j < GEMM_NR; j++)
                c[(size_t)r * ldc + (size_t)j] += acc[r][j];
    } else {
        for (size_t r = 0; r < h; r++)
            for (size_t j = 0; j < w; j++)
                c[r * ldc + j] += acc[r][j];
    }
}

static void gemm_naive(size_t M, size_t N, size_t K, const gemm_op *g)
{
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            float s = 0.0f;
            for (size_t k = 0; k < K; k++) {
                float av = g->ta ? g->a[k * g->lda + i] : g->a[i * g->lda + k];
                float bv = g->tb ? g->b[j * g->ldb + k] : g->b[k * g->ldb + j];
                s += av * bv;
            }
            g->c[i * g->ldc + j] = s;
        }
}

static size_t round_up(size_t v, size_t m)
{
    return (v + m - 1) / m * m;
}

static void gemm(size_t M, size_t N, size_t K, const gemm_op *g)
{
    for (size_t i = 0; i < M; i++)
        memset(g->c + i * g->ldc, 0, N * sizeof(float));
    if (M == 0 || N == 0 || K == 0)
        return;
    size_t kb = K < GEMM_KB ? K : GEMM_KB;
    size_t nb = round_up(N < GEMM_NB ? N : GEMM_NB, GEMM_NR);
    size_t mb = round_up(M < GEMM_MB ? M : GEMM_MB, GEMM_MR);
    float *bp = malloc(kb * nb * sizeof(float));
    float *ap = malloc(mb * kb * sizeof(float));
    if (!bp || !ap) {
        free(bp);
        free(ap);
        gemm_naive(M, N, K, g);
        return;
    }
    for (size_t j0 = 0; j0 < N; j0 += GEMM_NB) {
        size_t nc = N - j0 < GEMM_NB ? N - j0 : GEMM_NB;
        for (size_t k0 = 0; k0 < K; k0 += GEMM_KB) {
            size_t kc = K - k0 < GEMM_KB ? K - k0 : GEMM_KB;
            pack_b(g, k0, kc, j0, nc, bp);
            for (size_t i0 = 0; i0 < M; i0 += GEMM_MB) {
                size_t mc = M - i0 < GEMM_MB ? M - i0 : GEMM_MB;
                pack_a(g, i0, mc, k0, kc, ap);
                for (size_t jp = 0; jp < nc; jp += GEMM_NR) {
                    size_t w = nc - jp < GEMM_NR ? nc - jp : GEMM_NR;
                    const float *bpanel = bp + jp * kc;
                    for (size_t ip = 0; ip < mc; ip += GEMM_MR) {
                        size_t h = mc - ip < GEMM_MR ? mc - ip : GEMM_MR;
                        gemm_micro(kc, ap + ip * kc, bpanel,
                                   g->c + (i0 + ip) * g->ldc + j0 + jp, g->ldc, h, w);
                    }
                }
            }
        }
    }
    free(bp);
    free(ap);
}

void sim_k_matmul(const float *a, const sim_shape *as, int transpose_a,
                  const float *b, const sim_shape *bs, int transpose_b,
                  float *y, const sim_shape *ys)
{
    int ra = as->rank, rb = bs->rank, ry = ys->rank;
    size_t M = (size_t)ys->d[ry - 2], N = (size_t)ys->d[ry - 1];
    size_t K = (size_t)(transpose_a ? as->d[ra - 2] : as->d[ra - 1]);
    size_t a_mat = (size_t)as->d[ra - 2] * (size_t)as->d[ra - 1];
    size_t b_mat = (size_t)bs->d[rb - 2] * (size_t)bs->d[rb - 1];
    int nbatch = ry - 2;
    size_t batches = prod_range(ys->d, 0, nbatch);
    /* strides (in matrices) of a and b per output batch dim; 0 where broadcast */
    size_t sa[SIM_K_MAX_RANK], sb[SIM_K_MAX_RANK];
    size_t acc_a = 1, acc_b = 1;
    for (int i = nbatch - 1; i >= 0; i--) {
        int ia = i - (nbatch - (ra - 2)), ib = i - (nbatch - (rb - 2));
        int64_t da = ia >= 0 ? as->d[ia] : 1, db = ib >= 0 ? bs->d[ib] : 1;
        sa[i] = da != 1 ? acc_a : 0;
        sb[i] = db != 1 ? acc_b : 0;
        acc_a *= (size_t)da;
        acc_b *= (size_t)db;
    }
    gemm_op g;
    g.lda = (size_t)as->d[ra - 1];
    g.ta = transpose_a;
    g.ldb = (size_t)bs->d[rb - 1];
    g.tb = transpose_b;
    g.ldc = N;
    int64_t idx[SIM_K_MAX_RANK] = {0};
    size_t offa = 0, offb = 0;
    for (size_t t = 0; t < batches; t++) {
        g.a = a + offa * a_mat;
        g.b = b + offb * b_mat;
        g.c = y + t * M * N;
        gemm(M, N, K, &g);
        for (int i = nbatch - 1; i >= 0; i--) {
            offa += sa[i];
            offb += sb[i];
            if (++idx[i] < ys->d[i])
                break;
            offa -= sa[i] * (size_t)ys->d[i];
            offb -= sb[i] * (size_t)ys->d[i];
            idx[i] = 0;
        }
    }
}

/* ---- convolution ------------------------------------------------------------ */
/* Per image and group, Y_g[Cout_g, P] = W_g[Cout_g, Cin_g*KK] * col[Cin_g*KK, P]
 * where P runs over output positions. col is built for a tile of whole output
 * rows at a time (bounded scratch); a 1x1, stride-1, unpadded conv uses x as col,
 * and depthwise convs (one input and one output channel per group) run direct.
 * 1-D and 2-D convs run as 3-D ones with unit leading dims. */

typedef struct geom3 {
    int64_t in[3], out[3], k[3], s[3], dil[3], pb[3];
} geom3;

static void geom_from(geom3 *g, int spatial, const sim_shape *xs, const sim_shape *ys,
                      const int64_t *kernel, const int64_t *strides, const int64_t *dil,
                      const int64_t *pads_begin)
{
    int lead = 3 - spatial;
    for (int i = 0; i < 3; i++) {
        if (i < lead) {
            g->in[i] = g->out[i] = g->k[i] = g->s[i] = g->dil[i] = 1;
            g->pb[i] = 0;
        } else {
            int j = i - lead;
            g->in[i] = xs->d[2 + j];
            g->out[i] = ys->d[2 + j];
            g->k[i] = kernel[j];
            g->s[i] = strides[j];
            g->dil[i] = dil[j];
            g->pb[i] = pads_begin[j];
        }
    }
}

/* The ow range [lo, hi) whose input column ow * stride + offw lies inside the input. */
static void valid_range(const geom3 *g, int64_t offw, int64_t *lo, int64_t *hi)
{
    int64_t l = 0, h = g->out[2];
    while (l < h && l * g->s[2] + offw < 0) l++;
    while (h > l && (h - 1) * g->s[2] + offw >= g->in[2]) h--;
    *lo = l;
    *hi = h;
}

/* Depthwise (one input channel per output channel): direct loops over one
 * plane, each tap adding w * (input row) into the output row. A GEMM with M = 1
 * would waste most of its register tile. */
static void conv_dw_plane(const float *xp, const float *wk, const geom3 *g, float *yp)
{
    size_t ow_n = (size_t)g->out[2];
    size_t in_hw = (size_t)(g->in[1] * g->in[2]);
    memset(yp, 0, (size_t)(g->out[0] * g->out[1]) * ow_n * sizeof(float));
    for (int64_t kd = 0; kd < g->k[0]; kd++)
        for (int64_t kh = 0; kh < g->k[1]; kh++)
            for (int64_t kw = 0; kw < g->k[2]; kw++) {
                float wv = *wk++;
                int64_t offw = kw * g->dil[2] - g->pb[2], lo, hi;
                valid_range(g, offw, &lo, &hi);
                for (int64_t od = 0; od < g->out[0]; od++) {
                    int64_t id = od * g->s[0] + kd * g->dil[0] - g->pb[0];
                    if (id < 0 || id >= g->in[0])
                        continue;
                    for (int64_t oh = 0; oh < g->out[1]; oh++) {
                        int64_t ih = oh * g->s[1] + kh * g->dil[1] - g->pb[1];
                        if (ih < 0 || ih >= g->in[1])
                            continue;
                        const float *restrict src = xp + (size_t)id * in_hw +
                                                    (size_t)ih * (size_t)g->in[2];
                        float *restrict dst = yp + ((size_t)od * (size_t)g->out[1] + (size_t)oh) * ow_n;
                        int64_t ow = lo;
                        if (g->s[2] == 1) {
                            for (; ow + EW_CHUNK <= hi; ow += EW_CHUNK)
                                for (int j = 0; j < EW_CHUNK; j++)
                                    dst[ow + j] += wv * src[ow + j + offw];
                        }
                        for (; ow < hi; ow++)
                            dst[ow] += wv * src[ow * g->s[2] + offw];
                    }
                }
            }
}

/* Fills col[r][p] for rows r = (c, kd, kh, kw) and the output rows
 * (od, oh) = row0 .. row0 + nrows - 1 (flattened over D*H), p over those rows' W. */
static void im2col_tile(const float *x, size_t cin, const geom3 *g, size_t row0, size_t nrows,
                        float *col)
{
    size_t ow_n = (size_t)g->out[2];
    size_t tp = nrows * ow_n;
    size_t in_hw = (size_t)(g->in[1] * g->in[2]);
    size_t in_dhw = in_hw * (size_t)g->in[0];
    size_t r = 0;
    for (size_t c = 0; c < cin; c++)
        for (int64_t kd = 0; kd < g->k[0]; kd++)
            for (int64_t kh = 0; kh < g->k[1]; kh++)
                for (int64_t kw = 0; kw < g->k[2]; kw++, r++) {
                    float *dst = col + r * tp;
                    int64_t offw = kw * g->dil[2] - g->pb[2];
                    int64_t lo, hi;
                    valid_range(g, offw, &lo, &hi);
                    for (size_t t = 0; t < nrows; t++, dst += ow_n) {
                        size_t orow = row0 + t;
                        int64_t od = (int64_t)(orow / (size_t)g->out[1]);
                        int64_t oh = (int64_t)(orow % (size_t)g->out[1]);
                        int64_t id = od * g->s[0] + kd * g->dil[0] - g->pb[0];
                        int64_t ih = oh * g->s[1] + kh * g->dil[1] - g->pb[1];
                        if (id < 0 || id >= g->in[0] || ih < 0 || ih >= g->in[1]) {
                            memset(dst, 0, ow_n * sizeof(float));
                            continue;
                        }
                        const float *src = x + c * in_dhw + (size_t)id * in_hw +
                                           (size_t)ih * (size_t)g->in[2];
                        for (int64_t ow = 0; ow < lo; ow++) dst[ow] = 0.0f;
                        if (g->s[2] == 1) {
                            if (hi > lo)
                                memcpy(dst + lo, src + lo + offw, (size_t)(hi - lo) * sizeof(float));
                        } else {
                            int64_t sw = g->s[2];
                            for (int64_t ow = lo; ow < hi; ow++)
                                dst[ow] = src[ow * sw + offw];
                        }
                        for (int64_t ow = hi; ow < (int64_t)ow_n; ow++) dst[ow] = 0.0f;
                    }
                }
}

/* Scratch budget for one col tile, in floats (1 MiB). */
enum { CONV_COL_FLOATS = 1 << 18 };

void sim_k_conv(const float *x, const sim_shape *xs, const float *w, const sim_shape *ws,
                const sim_conv_params *p, float *y, const sim_shape *ys)
{
    geom3 g;
    int64_t kernel[SIM_K_MAX_SPATIAL];
    for (int i = 0; i < p->spatial; i++)
        kernel[i] = ws->d[2 + i];
    geom_from(&g, p->spatial, xs, ys, kernel, p->strides, p->dilations, p->pads_begin);
    size_t n_img = (size_t)xs->d[0];
    size_t groups = (size_t)(p->groups > 0 ? p->groups : 1);
    size_t cin_g = (size_t)ws->d[1];
    size_t cout_g = (size_t)ys->d[1] / groups;
    size_t kk = (size_t)(g.k[0] * g.k[1] * g.k[2]);
    size_t rows = cin_g * kk;                           /* GEMM K */
    size_t in_sp = (size_t)(g.in[0] * g.in[1] * g.in[2]);
    size_t out_rows = (size_t)(g.out[0] * g.out[1]);
    size_t ow_n = (size_t)g.out[2];
    size_t out_sp = out_rows * ow_n;
    size_t cin = (size_t)xs->d[1];
    if (out_sp == 0 || cout_g == 0)
        return;
    if (cin_g == 1 && cout_g == 1) {
        for (size_t n = 0; n < n_img; n++)
            for (size_t c = 0; c < groups; c++)
                conv_dw_plane(x + (n * cin + c) * in_sp, w + c * kk, &g,
                              y + (n * (size_t)ys->d[1] + c) * out_sp);
        return;
    }
    int direct = kk == 1 && g.s[0] == 1 && g.s[1] == 1 && g.s[2] == 1 &&
                 g.pb[0] == 0 && g.pb[1] == 0 && g.pb[2] == 0 &&
                 g.out[0] == g.in[0] && g.out[1] == g.in[1] && g.out[2] == g.in[2];
    size_t tile_rows = out_rows;
    float *col = NULL;
    if (!direct) {
        size_t per_row = rows * ow_n;
        tile_rows = per_row ? CONV_COL_FLOATS / per_row : out_rows;
        if (tile_rows == 0) tile_rows = 1;
        if (tile_rows > out_rows) tile_rows = out_rows;
        col = malloc(rows * tile_rows * ow_n * sizeof(float) + 1);
        if (!col) {   /* fall back to one output row at a time */
            tile_rows = 1;
            col = malloc(rows * ow_n * sizeof(float) + 1);
            if (!col) {
                memset(y, 0, n_img * (size_t)ys->d[1] * out_sp * sizeof(float));
                return;
            }
        }
    }
    for (size_t n = 0; n < n_img; n++)
        for (size_t gi = 0; gi < groups; gi++) {
            const float *xg = x + (n * cin + gi * cin_g) * in_sp;
            const float *wg = w + gi * cout_g * rows;
            float *yg = y + (n * (size_t)ys->d[1] + gi * cout_g) * out_sp;
            gemm_op op = { .a = wg, .lda = rows, .ta = 0, .ldc = out_sp, .tb = 0 };
            if (direct) {
                op.b = xg;
                op.ldb = in_sp;
                op.c = yg;
                gemm(cout_g, out_sp, rows, &op);
                continue;
            }
            for (size_t r0 = 0; r0 < out_rows; r0 += tile_rows) {
                size_t nr = out_rows - r0 < tile_rows ? out_rows - r0 : tile_rows;
                im2col_tile(xg, cin_g, &g, r0, nr, col);
                op.b = col;
                op.ldb = nr * ow_n;
                op.c = yg + r0 * ow_n;
                gemm(cout_g, nr * ow_n, rows, &op);
            }
        }
    free(col);
}

/* ---- pooling ------------------------------------------------------------------ */
/* Direct loops over [N*C] planes; the window of each output cell is clipped to
 * the input once per dim. */

/* For output index o in one dim: first and count of kernel taps inside the input,
 * and (for AvgPool without exclude_pad) the count inside input + pads. */
static void window(int64_t o, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe,
                   int64_t in, int64_t *first, int64_t *cnt, int64_t *cnt_padded)
{
    int64_t start = o * s - pb;
    int64_t f = -1, c = 0, cp = 0;
    for (int64_t t = 0; t < k; t++) {
        int64_t pos = start + t * d;
        if (pos >= 0 && pos < in) {
            if (f < 0) f = t;
            c++;
        }
        if (pos >= -pb && pos < in + pe)
            cp++;
    }
    *first = f < 0 ? 0 : f;
    *cnt = c;
    *cnt_padded = cp;
}

static void pool(int is_max, const float *x, const sim_shape *xs, const sim_pool_params *p,
                 float *y, const sim_shape *ys)
{
    geom3 g;
    geom_from(&g, p->spatial, xs, ys, p->kernel, p->strides, p->dilations, p->pads_begin);
    int64_t pe[3] = {0, 0, 0};
    for (int i = 0; i < p->spatial; i++)
        pe[3 - p->spatial + i] = p->pads_end[i];
    size_t planes = (size_t)xs->d[0] * (size_t)xs->d[1];
    size_t in_sp = (size_t)(g.in[0] * g.in[1] * g.in[2]);
    size_t out_sp = (size_t)(g.out[0] * g.out[1] * g.out[2]);
    size_t in_hw = (size_t)(g.in[1] * g.in[2]);
    size_t in_w = (size_t)g.in[2];
    for (size_t pl = 0; pl < planes; pl++) {
        const float *xp = x + pl * in_sp;
        float *yp = y + pl * out_sp;
        for (int64_t od = 0; od < g.out[0]; od++) {
            int64_t fd, cd, pd;
            window(od, g.k[0], g.s[0], g.dil[0], g.pb[0], pe[0], g.in[0], &fd, &cd, &pd);
            int64_t d0 = od * g.s[0] - g.pb[0] + fd * g.dil[0];
            for (int64_t oh = 0; oh < g.out[1]; oh++) {
                int64_t fh, ch, ph;
                window(oh, g.k[1], g.s[1], g.dil[1], g.pb[1], pe[1], g.in[1], &fh, &ch, &ph);
                int64_t h0 = oh * g.s[1] - g.pb[1] + fh * g.dil[1];
                for (int64_t ow = 0; ow < g.out[2]; ow++, yp++) {
                    int64_t fw, cw, pw;
                    window(ow, g.k[2], g.s[2], g.dil[2], g.pb[2], pe[2], g.in[2], &fw, &cw, &pw);
                    int64_t w0 = ow * g.s[2] - g.pb[2] + fw * g.dil[2];
                    int64_t cells = cd * ch * cw;
                    if (cells == 0) {
                        /* window wholly in padding: OpenVINO's reference gives the
                         * lowest float for max and 0 for an average */
                        *yp = is_max ? -FLT_MAX : 0.0f;
                        continue;
                    }
                    const float *base = xp + (size_t)d0 * in_hw + (size_t)h0 * in_w + (size_t)w0;
                    size_t sd = (size_t)g.dil[0] * in_hw, sh = (size_t)g.dil[1] * in_w;
                    size_t sw = (size_t)g.dil[2];
                    if (is_max) {
                        float m = base[0];
                        for (int64_t td = 0; td < cd; td++)
                            for (int64_t th = 0; th < ch; th++) {
                                const float *rowp = base + (size_t)td * sd + (size_t)th * sh;
                                for (int64_t tw = 0; tw < cw; tw++) {
                                    float v = rowp[(size_t)tw * sw];
                                    m = v > m ? v : m;
                                }
                            }
                        *yp = m;
                    } else {
                        float sum = 0.0f;
                        for (int64_t td = 0; td < cd; td++)
                            for (int64_t th = 0; th < ch; th++) {
                                const float *rowp = base + (size_t)td * sd + (size_t)th * sh;
                                for (int64_t tw = 0; tw < cw; tw++)
                                    sum += rowp[(size_t)tw * sw];
                            }
                        int64_t div = p->exclude_pad ? cells : pd * ph * pw;
                        *yp = sum / (float)div;
                    }
                }
            }
        }
    }
}

void sim_k_maxpool(const float *x, const sim_shape *xs, const sim_pool_params *p,
                   float *y, const sim_shape *ys)
{
    pool(1, x, xs, p, y, ys);
}

void sim_k_avgpool(const float *x, const sim_shape *xs, const sim_pool_params *p,
                   float *y, const sim_shape *ys)
{
    pool(0, x, xs, p, y, ys);
}

/* ---- data movement --------------------------------------------------------------- */

/* Reduce: adjacent dims with the same reduced/kept role merge, then a recursive
 * walk adds whole contiguous runs: a reduced innermost run is summed to one
 * value, a kept one is added elementwise into y. */
typedef struct red_plan {
    int m;
    int64_t dim[SIM_K_MAX_RANK];
    int red[SIM_K_MAX_RANK];
    size_t xstride[SIM_K_MAX_RANK], ystride[SIM_K_MAX_RANK];
} red_plan;

static void red_walk(const red_plan *rp, int level, const float *x, float *y)
{
    size_t n = (size_t)rp->dim[level];
    if (level == rp->m - 1) {
        if (rp->red[level]) {
            double s = 0.0;
            for (size_t i = 0; i < n; i++)
                s += x[i];
            *y += (float)s;
        } else {
            for (size_t i = 0; i < n; i++)
                y[i] += x[i];
        }
        return;
    }
    for (size_t i = 0; i < n; i++)
        red_walk(rp, level + 1, x + i * rp->xstride[level], y + i * rp->ystride[level]);
}

void sim_k_reduce(int mean, const float *x, const sim_shape *xs, uint32_t axes_mask, float *y)
{
    red_plan rp;
    rp.m = 0;
    size_t count = 1, out_n = 1;
    for (int i = 0; i < xs->rank; i++) {
        int r = (axes_mask >> i) & 1u;
        if (r) count *= (size_t)xs->d[i];
        else out_n *= (size_t)xs->d[i];
        if (xs->d[i] == 1)
            continue;
        if (rp.m > 0 && rp.red[rp.m - 1] == r) {
            rp.dim[rp.m - 1] *= xs->d[i];
        } else {
            rp.dim[rp.m] = xs->d[i];
            rp.red[rp.m] = r;
            rp.m++;
        }
    }
    memset(y, 0, out_n * sizeof(float));
    if (out_n == 0)
        return;
    if (rp.m == 0) {
        y[0] = x[0];
    } else if (count > 0) {
        size_t xa = 1, ya = 1;
        for (int i = rp.m - 1; i >= 0; i--) {
            rp.xstride[i] = xa;
            rp.ystride[i] = rp.red[i] ? 0 : ya;
            xa *= (size_t)rp.dim[i];
            if (!rp.red[i]) ya *= (size_t)rp.dim[i];
        }
        red_walk(&rp, 0, x, y);
    }
    if (mean) {   /* mean of nothing: 0/0, NaN, as in the reference */
        float inv = 1.0f / (float)count;
        for (size_t i = 0; i < out_n; i++)
            y[i] = count ? y[i] * inv : NAN;
    }
}

/* Transpose: merge input dims that stay adjacent and in order under perm, drop
 * size-1 dims, then walk the output in order. A contiguous innermost run becomes
 * memcpy; otherwise the last two output dims go in 32x32 tiles so both reads and
 * writes stay within a few cache lines. */
void sim_k_transpose(const float *x, const sim_shape *xs, const int *perm, float *y)
{
    int r = xs->rank;
    size_t total = sim_shape_numel(xs);
    if (total == 0)
        return;
    size_t in_stride[SIM_K_MAX_RANK];
    size_t acc = 1;
    for (int i = r - 1; i >= 0; i--) {
        in_stride[i] = acc;
        acc *= (size_t)xs->d[i];
    }
    /* output dims in order: size and input stride, merged */
    int m = 0;
    int64_t dim[SIM_K_MAX_RANK];
    size_t st[SIM_K_MAX_RANK];
    for (int i = 0; i < r; i++) {
        int64_t d = xs->d[perm[i]];
        size_t s = in_stride[perm[i]];
        if (d == 1)
            continue;
        if (m > 0 && st[m - 1] == s * (size_t)d) {
            dim[m - 1] *= d;
            st[m - 1] = s;
        } else {
            dim[m] = d;
            st[m] = s;
            m++;
        }
    }
    if (m == 0 || (m == 1 && st[0] == 1)) {
        memcpy(y, x, total * sizeof(float));
        return;
    }
    int64_t idx[SIM_K_MAX_RANK] = {0};
    size_t off = 0;
    if (st[m - 1] == 1) {   /* contiguous innermost runs */
        size_t run = (size_t)dim[m - 1];
        for (size_t o = 0; o < total; o += run) {
            memcpy(y + o, x + off, run * sizeof(float));
            for (int i = m - 2; i >= 0; i--) {
                off += st[i];
                if (++idx[i] < dim[i])
                    break;
                off -= st[i] * (size_t)dim[i];
                idx[i] = 0;
            }
        }
        return;
    }
    /* tiled: the last two output dims form a (rows x cols) plane per outer index */
    enum { TT = 32 };
    size_t rows = m >= 2 ? (size_t)dim[m - 2] : 1, cols = (size_t)dim[m - 1];
    size_t srow = m >= 2 ? st[m - 2] : 0, scol = st[m - 1];
    size_t plane = rows * cols;
    int outer_m = m >= 2 ? m - 2 : 0;
    for (size_t o = 0; o < total; o += plane) {
        float *yp = y + o;
        const float *xp = x + off;
        for (size_t i0 = 0; i0 < rows; i0 += TT) {
            size_t i1 = rows - i0 < TT ? rows : i0 + TT;
            for (size_t j0 = 0; j0 < cols; j0 += TT) {
                size_t j1 = cols - j0 < TT ? cols : j0 + TT;
                for (size_t i = i0; i < i1; i++)
                    for (size_t j = j0; j < j1; j++)
                        yp[i * cols + j] = xp[i * srow + j * scol];
            }
        }
        for (int i = outer_m - 1; i >= 0; i--) {
            off += st[i];
            if (++idx[i] < dim[i])
                break;
            off -= st[i] * (size_t)dim[i];
            idx[i] = 0;
        }
    }
}

void sim_k_slice_axis(const float *x, const sim_shape *xs, int axis, int64_t start, int64_t step,
                      float *y, int64_t count)
{
    size_t outer = prod_range(xs->d, 0, axis), inner = prod_range(xs->d, axis + 1, xs->rank);
    size_t dim = (size_t)xs->d[axis], n = (size_t)count;
    if (!inner || !n)
        return;
    for (size_t o = 0; o < outer; o++) {
        const float *xo = x + o * dim * inner;
        float *yo = y + o * n * inner;
        int64_t j = start;
        if (inner == 1) {
            for (size_t k = 0; k < n; k++, j += step)
                yo[k] = xo[j];
        } else {
            for (size_t k = 0; k < n; k++, j += step)
                memcpy(yo + k * inner, xo + (size_t)j * inner, inner * sizeof(float));
        }
    }
}

void sim_k_concat(const float *const *xs, const sim_shape *shapes, int n, int axis, float *y)
{
    if (n <= 0)
        return;
    size_t outer = prod_range(shapes[0].d, 0, axis);
    size_t inner = prod_range(shapes[0].d, axis + 1, shapes[0].rank);
    size_t row = 0;
    for (int i = 0; i < n; i++)
        row += (size_t)shapes[i].d[axis] * inner;
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        size_t chunk = (size_t)shapes[i].d[axis] * inner;
        for (size_t o = 0; o < outer; o++)
            memcpy(y + o * row + off, xs[i] + o * chunk, chunk * sizeof(float));
        off += chunk;
    }
}

/* ---- resampling ----------------------------------------------------------- */
/* Interpolate as OpenVINO's reference computes it (docs/driver-compat.md names
 * the files): the source coordinate, the nearest pixel and the tap weights are
 * float arithmetic in the same order, and the taps are summed in the reference's
 * order (linear: the listed axes, first outermost; linear_onnx: the axes by
 * dimension, the lower input neighbour first), so f32 results match bit for bit.
 * Taps are computed per axis when that axis' output coordinate changes; no
 * scratch memory. */

typedef struct interp_taps {
    int n;
    int64_t idx[2];
    float w[2];
} interp_taps;

static float clamp_nan_low(float v, float lo, float hi)
{
    return v >= lo ? (v <= hi ? v : hi) : lo;   /* NaN -> lo */
}

/* coordinate_transformation_mode: output coordinate -> source coordinate. */
static float interp_source(int coord, int64_t o, float scale, int64_t out_len, int64_t in_len)
{
    float x = (float)o, lr = (float)out_len, li = (float)in_len;
    if (scale == 1.0f || lr == li)
        return x;
    switch (coord) {
    case SIM_INTERP_PYTORCH_HALF_PIXEL:
        return lr > 1.0f ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case SIM_INTERP_ASYMMETRIC:
        return x / scale;
    case SIM_INTERP_TF_HALF_PIXEL_FOR_NN:
        return (x + 0.5f) / scale;
    case SIM_INTERP_ALIGN_CORNERS:
        return lr == 1.0f ? 0.0f : x * (li - 1.0f) / (lr - 1.0f);
    default: /* half_pixel */
        return (x + 0.5f) / scale - 0.5f;
    }
}

/* nearest_mode on a source coordinate already clamped to [-1, length]. */
static int64_t interp_nearest(int mode, float v, int downsample)
{
    switch (mode) {
    case SIM_INTERP_ROUND_PREFER_CEIL:
        return (int64_t)roundf(v);
    case SIM_INTERP_FLOOR:
        return (int64_t)floorf(v);
    case SIM_INTERP_CEIL:
        return (int64_t)ceilf(v);
    case SIM_INTERP_SIMPLE:
        return downsample ? (int64_t)ceilf(v) : (int64_t)v;
    default: /* round_prefer_floor: a half goes down, anything else to the nearest */
        return v == (float)(int64_t)v + 0.5f ? (int64_t)floorf(v) : (int64_t)roundf(v);
    }
}

static void interp_axis(const sim_interp_params *p, float scale, int64_t o, int64_t in_len,
                        int64_t out_len, interp_taps *t)
{
    float v = interp_source(p->coord, o, scale, out_len, in_len);
    float top = (float)(in_len - 1);
    if (p->mode == SIM_INTERP_NEAREST) {
        /* Every nearest_mode maps [-1, length] monotonically and the index is clamped
         * to the input afterwards, so clamping first changes no result and keeps
         * the integer conversion defined. */
        int64_t i = interp_nearest(p->nearest, clamp_nan_low(v, -1.0f, top + 1.0f), scale < 1.0f);
        t->n = 1;
        t->idx[0] = i < 0 ? 0 : i > in_len - 1 ? in_len - 1 : i;
        t->w[0] = 1.0f;
    } else if (p->mode == SIM_INTERP_LINEAR_ONNX) {
        v = clamp_nan_low(v, 0.0f, top);
        int64_t i1 = (int64_t)v;
        if (i1 > in_len - 1)
            i1 = in_len - 1;
        int64_t i2 = i1 + 1 < in_len ? i1 + 1 : in_len - 1;
        float d1 = fabsf(v - (float)i1), d2 = fabsf(v - (float)i2);
        if (i1 == i2)
            d1 = d2 = 0.5f;
        t->n = 2;
        t->idx[0] = i1;     /* weighted by the distance to the other neighbour */
        t->w[0] = d2;
        t->idx[1] = i2;
        t->w[1] = d1;
    } else {
        /* linear: the window round(v) - 2 .. round(v) + 2 inside the input, weight
         * max(0, 1 - |v - i|); only the (at most two) non-zero weights add anything.
         * Beyond [-1, length] every weight is 0, so the clamp changes nothing. */
        v = clamp_nan_low(v, -2.0f, top + 2.0f);
        int64_t r = (int64_t)roundf(v);
        t->n = 0;
        for (int64_t i = r - 2; i <= r + 2; i++) {
            if (i < 0 || i >= in_len)
                continue;
            float w = 1.0f - fabsf(v - (float)i);
            if (w > 0.0f && t->n < 2) {
                t->idx[t->n] = i;
                t->w[t->n++] = w;
            }
        }
    }
}

void sim_k_interpolate(const float *x, const sim_shape *xs, const sim_interp_params *p, float *y,
                       const sim_shape *ys)
{
    int r = ys->rank, k = p->n_axes;
    size_t total = sim_shape_numel(ys);
    if (total == 0 || k < 1 || k > r)
        return;
    size_t st[SIM_K_MAX_RANK];
    size_t acc = 1;
    for (int i = r - 1; i >= 0; i--) {
        st[i] = acc;
        acc *= (size_t)xs->d[i];
    }
    /* the axes in the order their taps combine */
    int ax[SIM_K_MAX_RANK], slot[SIM_K_MAX_RANK];
    float sc[SIM_K_MAX_RANK];
    for (int j = 0; j < k; j++) {
        ax[j] = p->axes[j];
        sc[j] = p->scales[j];
    }
    if (p->mode == SIM_INTERP_LINEAR_ONNX) {
        for (int j = 1; j < k; j++)
            for (int q = j; q > 0 && ax[q - 1] > ax[q]; q--) {
                int ta = ax[q];
                float ts = sc[q];
                ax[q] = ax[q - 1];
                sc[q] = sc[q - 1];
                ax[q - 1] = ta;
                sc[q - 1] = ts;
            }
    }
    for (int i = 0; i < r; i++)
        slot[i] = -1;
    for (int j = 0; j < k; j++)
        slot[ax[j]] = j;
    int64_t o[SIM_K_MAX_RANK] = {0};
    interp_taps taps[SIM_K_MAX_RANK];
    for (int j = 0; j < k; j++)
        interp_axis(p, sc[j], 0, xs->d[ax[j]], ys->d[ax[j]], &taps[j]);
    for (size_t e = 0; e < total; e++) {
        size_t base = 0;
        for (int i = 0; i < r; i++)
            if (slot[i] < 0)
                base += (size_t)o[i] * st[i];
        if (p->mode == SIM_INTERP_NEAREST) {
            size_t off = base;
            for (int j = 0; j < k; j++)
                off += (size_t)taps[j].idx[0] * st[ax[j]];
            y[e] = x[off];
        } else {
            /* every combination of the axes' taps, the first axis outermost */
            int digit[SIM_K_MAX_RANK] = {0};
            float sum = 0.0f, wsum = 0.0f;
            int any = 1;
            for (int j = 0; j < k; j++)
                any &= taps[j].n > 0;
            while (any) {
                float w = 1.0f;
                size_t off = base;
                for (int j = 0; j < k; j++) {
                    w *= taps[j].w[digit[j]];
                    off += (size_t)taps[j].idx[digit[j]] * st[ax[j]];
                }
                wsum += w;
                sum += w * x[off];
                int j = k - 1;
                while (j >= 0 && ++digit[j] == taps[j].n)
                    digit[j--] = 0;
                any = j >= 0;
            }
            if (p->mode == SIM_INTERP_LINEAR_ONNX) {
                y[e] = sum;
            } else {
                float v = wsum == 0.0f ? 0.0f : sum / wsum;
                y[e] = p->round_to_int ? roundf(v) : v;
            }
        }
        for (int i = r - 1; i >= 0; i--) {
            int done = ++o[i] < ys->d[i];
            if (!done)
                o[i] = 0;
            if (slot[i] >= 0)
                interp_axis(p, sc[slot[i]], o[i], xs->d[i], ys->d[i], &taps[slot[i]]);
            if (done)
                break;
        }
    }
}

/* ---- broadcasting ops: FakeQuantize, Select, Broadcast, reductions ---------- */
/* A walk over an output shape with up to 5 inputs broadcast numpy-style onto it
 * (right-aligned, each input dim equal to the output's or 1): off[k] is input
 * k's element for the current output element. */
typedef struct kbc_walk {
    int r, n;
    int64_t d[SIM_K_MAX_RANK], idx[SIM_K_MAX_RANK];
    size_t st[5][SIM_K_MAX_RANK];
    size_t off[5];
} kbc_walk;

static void kbc_init(kbc_walk *w, const sim_shape *ys, const sim_shape *const *ins, int n)
{
    memset(w, 0, sizeof *w);
    w->r = ys->rank;
    w->n = n;
    for (int i = 0; i < w->r; i++)
        w->d[i] = ys->d[i];
    for (int k = 0; k < n; k++) {
        size_t acc = 1;
        for (int i = w->r - 1; i >= 0; i--) {
            int j = i - (w->r - ins[k]->rank);
            int64_t dj = j >= 0 ? ins[k]->d[j] : 1;
            w->st[k][i] = dj != 1 ? acc : 0;
            acc *= (size_t)dj;
        }
    }
}

static void kbc_next(kbc_walk *w)
{
    for (int i = w->r - 1; i >= 0; i--) {
        for (int k = 0; k < w->n; k++)
            w->off[k] += w->st[k][i];
        if (++w->idx[i] < w->d[i])
            return;
        for (int k = 0; k < w->n; k++)
            w->off[k] -= w->st[k][i] * (size_t)w->d[i];
        w->idx[i] = 0;
    }
}

void sim_k_fake_quantize(const float *x, const float *const lim[4], const sim_shape *const lims[4],
                         float levels_m1, float *y, const sim_shape *ys)
{
    size_t total = sim_shape_numel(ys);
    const sim_shape *all[5] = {ys, lims[0], lims[1], lims[2], lims[3]};
    kbc_walk w;
    kbc_init(&w, ys, all, 5);
    for (size_t o = 0; o < total; o++, kbc_next(&w)) {
        float v = x[o], il = lim[0][w.off[1]], ih = lim[1][w.off[2]];
        float ol = lim[2][w.off[3]], oh = lim[3][w.off[4]];
        float lo = ih < il ? ih : il, hi = il < ih ? ih : il;   /* std::min, std::max */
        if (v <= lo)
            y[o] = ol;
        else if (v > hi)
            y[o] = oh;
        else
            y[o] = nearbyintf((v - il) / (ih - il) * levels_m1) / levels_m1 * (oh - ol) + ol;
    }
}

void sim_k_select(const float *c, const sim_shape *cs, const float *a, const sim_shape *as,
                  const float *b, const sim_shape *bs, float *y, const sim_shape *ys)
{
    size_t total = sim_shape_numel(ys);
    const sim_shape *all[3] = {cs, as, bs};
    kbc_walk w;
    kbc_init(&w, ys, all, 3);
    for (size_t o = 0; o < total; o++, kbc_next(&w))
        y[o] = c[w.off[0]] != 0.0f ? a[w.off[1]] : b[w.off[2]];
}

void sim_k_broadcast(const float *x, const sim_shape *xs, float *y, const sim_shape *ys)
{
    size_t total = sim_shape_numel(ys);
    const sim_shape *all[1] = {xs};
    kbc_walk w;
    kbc_init(&w, ys, all, 1);
    for (size_t o = 0; o < total; o++, kbc_next(&w))
        y[o] = x[w.off[0]];
}

void sim_k_reduce_op(int kind, const float *x, const sim_shape *xs, uint32_t axes_mask, float *y)
{
    if (kind == SIM_RED_SUM || kind == SIM_RED_MEAN) {
        sim_k_reduce(kind == SIM_RED_MEAN, x, xs, axes_mask, y);
        return;
    }
    /* the output as a kept-dims shape; walk the input, the output broadcast onto it */
    sim_shape os = *xs;
    size_t out_n = 1;
    for (int i = 0; i < xs->rank; i++) {
        if ((axes_mask >> i) & 1u)
            os.d[i] = 1;
        out_n *= (size_t)os.d[i];
    }
    float init = kind == SIM_RED_MAX ? -FLT_MAX : kind == SIM_RED_MIN ? FLT_MAX
                 : kind == SIM_RED_PROD ? 1.0f : 0.0f;
    for (size_t i = 0; i < out_n; i++)
        y[i] = init;
    size_t total = sim_shape_numel(xs);
    const sim_shape *all[1] = {&os};
    kbc_walk w;
    kbc_init(&w, xs, all, 1);
    for (size_t i = 0; i < total; i++, kbc_next(&w)) {
        float *t = &y[w.off[0]], v = x[i];
        switch (kind) {
        case SIM_RED_MAX: *t = *t < v ? v : *t; break;       /* std::max(out, in) */
        case SIM_RED_MIN: *t = v < *t ? v : *t; break;       /* std::min(out, in) */
        case SIM_RED_PROD: *t = *t * v; break;
        case SIM_RED_L1: *t = *t + fabsf(v); break;          /* L1: the sum of |x| */
        default: *t = *t + v * v; break;                     /* L2: the sum of squares */
        }
    }
    if (kind == SIM_RED_L2)
        for (size_t i = 0; i < out_n; i++)
            y[i] = sqrtf(y[i]);
}

/* ---- TopK and the transposed convolution ------------------------------------ */

typedef struct topk_entry {
    float v;
    int64_t i;
} topk_entry;

/* OpenVINO's comparator: the better value first, equal values by ascending index.
 * NaNs (which that comparator leaves unordered) go after every number here. */
static int topk_cmp_max(const void *pa, const void *pb)
{
    const topk_entry *a = pa, *b = pb;
    int an = a->v != a->v, bn = b->v != b->v;
    if (an != bn)
        return an - bn;
    if (!an && a->v != b->v)
        return a->v > b->v ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static int topk_cmp_min(const void *pa, const void *pb)
{
    const topk_entry *a = pa, *b = pb;
    int an = a->v != a->v, bn = b->v != b->v;
    if (an != bn)
        return an - bn;
    if (!an && a->v != b->v)
        return a->v < b->v ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static int topk_cmp_index(const void *pa, const void *pb)
{
    const topk_entry *a = pa, *b = pb;
    return (a->i > b->i) - (a->i < b->i);
}

int sim_k_topk(const float *x, const sim_shape *xs, int axis, int64_t k, int largest, int sort,
               int indices, float *y)
{
    size_t dim = (size_t)xs->d[axis], inner = prod_range(xs->d, axis + 1, xs->rank);
    size_t outer = prod_range(xs->d, 0, axis), kk = (size_t)k;
    if (!dim || !kk || !inner || !outer)
        return 0;
    topk_entry *ws = malloc(dim * sizeof *ws);
    if (!ws)
        return -1;
    for (size_t o = 0; o < outer; o++)
        for (size_t in = 0; in < inner; in++) {
            const float *xp = x + o * dim * inner + in;
            for (size_t j = 0; j < dim; j++) {
                ws[j].v = xp[j * inner];
                ws[j].i = (int64_t)j;
            }
            qsort(ws, dim, sizeof *ws, largest ? topk_cmp_max : topk_cmp_min);
            if (sort == SIM_TOPK_SORT_INDEX)
                qsort(ws, kk, sizeof *ws, topk_cmp_index);
            float *yp = y + o * kk * inner + in;
            for (size_t j = 0; j < kk; j++)
                yp[j * inner] = indices ? (float)ws[j].i : ws[j].v;
        }
    free(ws);
    return 0;
}

void sim_k_deconv(const float *x, const sim_shape *xs, const float *w, const sim_shape *ws,
                  const sim_conv_params *p, float *y, const sim_shape *ys)
{
    memset(y, 0, sim_shape_numel(ys) * sizeof(float));
    int64_t kern[SIM_K_MAX_SPATIAL] = {1, 1, 1};
    for (int i = 0; i < p->spatial; i++)
        kern[i] = ws->d[2 + i];
    geom3 g;
    geom_from(&g, p->spatial, xs, ys, kern, p->strides, p->dilations, p->pads_begin);
    size_t n_img = (size_t)xs->d[0], cin = (size_t)xs->d[1], cout_g = (size_t)ws->d[1];
    size_t groups = (size_t)p->groups, cin_g = cin / groups, cout = cout_g * groups;
    size_t in_sp = (size_t)(g.in[0] * g.in[1] * g.in[2]);
    size_t out_sp = (size_t)(g.out[0] * g.out[1] * g.out[2]);
    size_t k_sp = (size_t)(g.k[0] * g.k[1] * g.k[2]);
    for (size_t n = 0; n < n_img; n++)
        for (size_t ci = 0; ci < cin; ci++) {
            size_t grp = ci / cin_g;
            const float *xp = x + (n * cin + ci) * in_sp;
            for (size_t co = 0; co < cout_g; co++) {
                const float *wp = w + (ci * cout_g + co) * k_sp;
                float *yp = y + (n * cout + grp * cout_g + co) * out_sp;
                for (int64_t iz = 0; iz < g.in[0]; iz++)
                    for (int64_t iy = 0; iy < g.in[1]; iy++)
                        for (int64_t ix = 0; ix < g.in[2]; ix++) {
                            float v = xp[(size_t)((iz * g.in[1] + iy) * g.in[2] + ix)];
                            for (int64_t kz = 0; kz < g.k[0]; kz++) {
                                int64_t oz = iz * g.s[0] + kz * g.dil[0] - g.pb[0];
                                if (oz < 0 || oz >= g.out[0])
                                    continue;
                                for (int64_t ky = 0; ky < g.k[1]; ky++) {
                                    int64_t oy = iy * g.s[1] + ky * g.dil[1] - g.pb[1];
                                    if (oy < 0 || oy >= g.out[1])
                                        continue;
                                    for (int64_t kx = 0; kx < g.k[2]; kx++) {
                                        int64_t ox = ix * g.s[2] + kx * g.dil[2] - g.pb[2];
                                        if (ox < 0 || ox >= g.out[2])
                                            continue;
                                        yp[(size_t)((oz * g.out[1] + oy) * g.out[2] + ox)] +=
                                            v * wp[(size_t)((kz * g.k[1] + ky) * g.k[2] + kx)];
                                    }
                                }
                            }
                        }
            }
        }
}
