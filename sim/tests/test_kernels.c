/* test_kernels.c - the software NPU's CPU kernels against straightforward
 * reference loops written here (double accumulation), on random shapes and
 * values from a seeded PRNG. Set KERNELS_SEED=<n> to replay a failure; every
 * failure message prints the seed in use.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/kernels.h"

/* ---- test support: PRNG, shapes, comparisons -------------------------------- */

static uint64_t g_seed = 0x5eed1234abcdull;
static uint64_t g_state;

static uint64_t rnd_u64(void)
{
    /* xorshift64* */
    g_state ^= g_state >> 12;
    g_state ^= g_state << 25;
    g_state ^= g_state >> 27;
    return g_state * 0x2545F4914F6CDD1Dull;
}

static int rnd_int(int lo, int hi)   /* inclusive */
{
    return lo + (int)(rnd_u64() % (uint64_t)(hi - lo + 1));
}

static float rnd_float(float lo, float hi)
{
    return lo + (hi - lo) * (float)((double)(rnd_u64() >> 11) / 9007199254740992.0);
}

static float *rnd_buf(size_t n, float lo, float hi)
{
    float *p = malloc((n ? n : 1) * sizeof(float));
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = rnd_float(lo, hi);
    return p;
}

static float *alloc_f(size_t n)
{
    float *p = malloc((n ? n : 1) * sizeof(float));
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = NAN;          /* unwritten outputs show up as mismatches */
    return p;
}

static int reseed(void **state)
{
    (void)state;
    g_state = g_seed;
    return 0;
}

static sim_shape shp(int rank, ...)
{
    sim_shape s;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    va_list ap;
    va_start(ap, rank);
    for (int i = 0; i < rank; i++)
        s.d[i] = va_arg(ap, int);
    va_end(ap);
    return s;
}

static void shape_str(const sim_shape *s, char *buf, size_t cap)
{
    size_t o = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < s->rank && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, i ? ",%lld" : "%lld", (long long)s->d[i]);
    if (o < cap)
        snprintf(buf + o, cap - o, "]");
}

#define FAIL(...)                                                             \
    do {                                                                      \
        print_error(__VA_ARGS__);                                             \
        print_error(" (KERNELS_SEED=%llu)\n", (unsigned long long)g_seed);    \
        fail();                                                               \
    } while (0)

/* |got - want| <= tol[i] for every element (tol NULL: exact, bitwise for NaN-free data). */
static void check_close(const char *what, const float *got, const double *want,
                        const double *tol, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double g = got[i], w = want[i];
        int ok;
        if (isnan(w))
            ok = isnan(g);
        else if (tol)
            ok = fabs(g - w) <= tol[i] || g == w;
        else
            ok = g == w;
        if (!ok)
            FAIL("%s: element %zu: got %.9g, want %.9g (tol %.3g)", what, i, g, w,
                 tol ? tol[i] : 0.0);
    }
}

static double *alloc_d(size_t n)
{
    double *p = calloc(n ? n : 1, sizeof(double));
    assert_non_null(p);
    return p;
}

/* Tolerance for a float sum of terms whose absolute values add up to `mag`. */
static double sum_tol(double mag, size_t terms)
{
    return 4.0 * FLT_EPSILON * mag * (1.0 + sqrt((double)terms)) + 1e-30;
}

/* ---- conversions -------------------------------------------------------------- */

static int f16_is_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu); }

static void test_f16_every_value_roundtrips_bit_exactly(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = sim_f16_to_f32((uint16_t)h);
        /* value check against the format definition */
        int sign = (h >> 15) & 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
        if (e == 0x1f) {
            if (m) assert_true(isnan(f));
            else assert_true(isinf(f) && (signbit(f) != 0) == sign);
        } else {
            double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
            if (sign) v = -v;
            if ((double)f != v || (signbit(f) != 0) != sign)
                FAIL("f16 0x%04x -> %.9g, want %.9g", h, (double)f, v);
        }
        uint16_t back = sim_f32_to_f16(f);
        if (back != h)
            FAIL("f16 0x%04x -> f32 -> 0x%04x", h, back);
    }
}

/* Reference f32 -> f16 via double arithmetic: scale to units of the f16 ulp of
 * the value's binade and round half to even with rint(). */
static double f16_ref_round(float f)
{
    double a = fabs((double)f);
    if (a >= 65520.0)
        return copysign(INFINITY, f);
    int e;
    frexp(a, &e);                 /* a in [2^(e-1), 2^e) */
    int binade = e - 1 < -14 ? -14 : e - 1;
    double ulp = ldexp(1.0, binade - 10);
    double r = rint(a / ulp) * ulp;
    return copysign(r, f);
}

static void test_f16_rounds_to_nearest_even_with_subnormals_and_overflow(void **state)
{
    (void)state;
    /* random finite floats across the f16 range and beyond */
    for (int i = 0; i < 200000; i++) {
        float f = ldexpf(rnd_float(1.0f, 2.0f), rnd_int(-30, 17));
        if (rnd_u64() & 1) f = -f;
        double want = f16_ref_round(f);
        float got = sim_f16_to_f32(sim_f32_to_f16(f));
        if ((double)got != want || !signbit(got) != !signbit(want))
            FAIL("f16(%a) = %a, want %a", (double)f, (double)got, want);
    }
    /* exact midpoints between neighbours go to the even one, subnormals included */
    for (uint32_t h = 0; h < 0x7bff; h++) {
        double lo = sim_f16_to_f32((uint16_t)h), hi = sim_f16_to_f32((uint16_t)(h + 1));
        float mid = (float)((lo + hi) / 2);        /* exact: f16 has 11 bits */
        assert_true((double)mid == (lo + hi) / 2);
        uint16_t want = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
        uint16_t got = sim_f32_to_f16(mid);
        if (got != want)
            FAIL("midpoint of 0x%04x/0x%04x -> 0x%04x", h, h + 1, got);
        if (sim_f32_to_f16(-mid) != (want | 0x8000u))
            FAIL("negative midpoint of 0x%04x", h);
    }
    assert_int_equal(sim_f32_to_f16(65504.0f), 0x7bff);
    assert_int_equal(sim_f32_to_f16(65519.99f), 0x7bff);
    assert_int_equal(sim_f32_to_f16(65520.0f), 0x7c00);          /* half-ulp above max: inf */
    assert_int_equal(sim_f32_to_f16(1e10f), 0x7c00);
    assert_int_equal(sim_f32_to_f16(-1e10f), 0xfc00);
    assert_int_equal(sim_f32_to_f16(INFINITY), 0x7c00);
    assert_int_equal(sim_f32_to_f16(-INFINITY), 0xfc00);
    assert_int_equal(sim_f32_to_f16(ldexpf(1.0f, -25)), 0x0000); /* tie to even: 0 */
    assert_int_equal(sim_f32_to_f16(nextafterf(ldexpf(1.0f, -25), 1.0f)), 0x0001);
    assert_int_equal(sim_f32_to_f16(ldexpf(3.0f, -25)), 0x0002); /* 1.5 ulps: tie to 2 */
    assert_int_equal(sim_f32_to_f16(ldexpf(1.0f, -14)), 0x0400); /* smallest normal */
    assert_int_equal(sim_f32_to_f16(nextafterf(ldexpf(1.0f, -14), 0.0f)), 0x0400); /* carry */
    assert_int_equal(sim_f32_to_f16(FLT_MIN), 0x0000);           /* f32 normal, f16 zero */
    assert_int_equal(sim_f32_to_f16(-0.0f), 0x8000);
    assert_int_equal(sim_f32_to_f16(1e-45f), 0x0000);            /* f32 subnormal */
    /* NaNs stay NaN, whatever the payload, and keep their sign */
    uint32_t nan_bits[] = {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7fbfffffu, 0xffc00123u};
    for (size_t i = 0; i < sizeof nan_bits / sizeof nan_bits[0]; i++) {
        float f;
        memcpy(&f, &nan_bits[i], 4);
        uint16_t h = sim_f32_to_f16(f);
        assert_true(f16_is_nan(h));
        assert_int_equal(h >> 15, nan_bits[i] >> 31);
    }
}

static void test_bf16_every_value_roundtrips_and_rounds_to_nearest_even(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = sim_bf16_to_f32((uint16_t)h);
        uint32_t bits;
        memcpy(&bits, &f, 4);
        assert_int_equal(bits, h << 16);
        if (sim_f32_to_bf16(f) != h)
            FAIL("bf16 0x%04x does not round-trip", h);
    }
    /* random f32 bit patterns against nearest-of-two-neighbours in double */
    for (int i = 0; i < 200000; i++) {
        uint32_t u = (uint32_t)rnd_u64();
        if (i < 1000) u = (u & 0xffff0000u) | 0x8000u;           /* exact ties */
        float f;
        memcpy(&f, &u, 4);
        uint16_t got = sim_f32_to_bf16(f);
        if (isnan(f)) {
            assert_true((got & 0x7f80u) == 0x7f80u && (got & 0x7fu));
            continue;
        }
        uint32_t lo = u & 0xffff0000u, hi = lo + 0x10000u;       /* magnitudes around f */
        float flo, fhi;
        memcpy(&flo, &lo, 4);
        double dlo = flo, dhi, df = f;
        if ((hi & 0x7fffffffu) == 0x7f800000u) dhi = copysign(ldexp(1.0, 128), f);
        else { memcpy(&fhi, &hi, 4); dhi = fhi; }
        double elo = fabs(df - dlo), ehi = fabs(dhi - df);
        uint16_t want = (uint16_t)((elo < ehi || (elo == ehi && !((lo >> 16) & 1))) ? lo >> 16 : hi >> 16);
        if (got != want)
            FAIL("bf16(0x%08x) = 0x%04x, want 0x%04x", u, got, want);
    }
    assert_int_equal(sim_f32_to_bf16(FLT_MAX), 0x7f80);          /* rounds up to inf */
    assert_int_equal(sim_f32_to_bf16(-INFINITY), 0xff80);
    float qnan_low;
    uint32_t b = 0x7f800001u;
    memcpy(&qnan_low, &b, 4);
    uint16_t h = sim_f32_to_bf16(qnan_low);                     /* payload below bf16 bits */
    assert_true((h & 0x7f80u) == 0x7f80u && (h & 0x7fu));
}

static void test_integer_conversions_truncate_and_saturate(void **state)
{
    (void)state;
    const float src[] = {1.7f, -1.7f, 300.0f, -300.0f, NAN, INFINITY, -INFINITY, 0.0f,
                         2147483648.0f, -2147483648.0f, 1e19f, -1e19f, 1099511627776.0f,
                         127.9f, -128.9f, 255.5f, -0.9f};
    enum { N = sizeof src / sizeof src[0] };
    uint8_t u8[N];
    int8_t i8[N];
    int32_t i32[N];
    int64_t i64[N];
    uint8_t bl[N];
    sim_cvt_from_f32(0x04, src, u8, N);
    sim_cvt_from_f32(0x07, src, i8, N);
    sim_cvt_from_f32(0x05, src, i32, N);
    sim_cvt_from_f32(0x11, src, i64, N);
    sim_cvt_from_f32(0x0E, src, bl, N);
    const uint8_t want_u8[N] = {1, 0, 255, 0, 0, 255, 0, 0, 255, 0, 255, 0, 255, 127, 0, 255, 0};
    const int8_t want_i8[N] = {1, -1, 127, -128, 0, 127, -128, 0, 127, -128, 127, -128, 127,
                               127, -128, 127, 0};
    const int32_t want_i32[N] = {1, -1, 300, -300, 0, INT32_MAX, INT32_MIN, 0, INT32_MAX,
                                 INT32_MIN, INT32_MAX, INT32_MIN, INT32_MAX, 127, -128, 255, 0};
    const int64_t want_i64[N] = {1, -1, 300, -300, 0, INT64_MAX, INT64_MIN, 0, 2147483648LL,
                                 -2147483648LL, INT64_MAX, INT64_MIN, 1099511627776LL, 127,
                                 -128, 255, 0};
    const uint8_t want_bl[N] = {1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    for (int i = 0; i < N; i++) {
        if (u8[i] != want_u8[i] || i8[i] != want_i8[i] || i32[i] != want_i32[i] ||
            i64[i] != want_i64[i] || bl[i] != want_bl[i])
            FAIL("conversion of %g (index %d): u8 %d i8 %d i32 %d i64 %lld bool %d", (double)src[i],
                 i, u8[i], i8[i], i32[i], (long long)i64[i], bl[i]);
    }
    /* and back to f32 */
    float f[4];
    const uint8_t u8s[4] = {0, 1, 200, 255};
    sim_cvt_to_f32(0x04, u8s, f, 4);
    assert_true(f[0] == 0.0f && f[1] == 1.0f && f[2] == 200.0f && f[3] == 255.0f);
    const int8_t i8s[4] = {-128, -1, 0, 127};
    sim_cvt_to_f32(0x07, i8s, f, 4);
    assert_true(f[0] == -128.0f && f[1] == -1.0f && f[2] == 0.0f && f[3] == 127.0f);
    const int32_t i32s[4] = {INT32_MIN, -5, 16777217, INT32_MAX};
    sim_cvt_to_f32(0x05, i32s, f, 4);
    assert_true(f[0] == -2147483648.0f && f[1] == -5.0f && f[2] == 16777216.0f &&
                f[3] == 2147483648.0f);
    const int64_t i64s[4] = {INT64_MIN, -3, (1LL << 40) + 1, 9007199254740993LL};
    sim_cvt_to_f32(0x11, i64s, f, 4);
    assert_true(f[0] == -9223372036854775808.0f && f[1] == -3.0f &&
                f[2] == 1099511627776.0f && f[3] == 9007199254740992.0f);
    const uint8_t bools[4] = {0, 1, 2, 255};
    sim_cvt_to_f32(0x0E, bools, f, 4);
    assert_true(f[0] == 0.0f && f[1] == 1.0f && f[2] == 1.0f && f[3] == 1.0f);
    const uint16_t halfs[3] = {0x3c00, 0xc000, 0x0001};
    sim_cvt_to_f32(0x02, halfs, f, 3);
    assert_true(f[0] == 1.0f && f[1] == -2.0f && f[2] == ldexpf(1.0f, -24));
    uint16_t hb[3];
    sim_cvt_from_f32(0x09, f, hb, 3);
    assert_true(hb[0] == 0x3f80 && hb[1] == 0xc000);
    float same[3];
    sim_cvt_to_f32(0x01, f, same, 3);
    assert_memory_equal(same, f, sizeof same);
}

static void test_convert_op_rounds_through_the_target_type_in_place(void **state)
{
    (void)state;
    float x[] = {1.7f, -1.7f, 300.0f, -3.0f, NAN, 0.1f, 70000.0f, 1.00048828125f};
    enum { N = sizeof x / sizeof x[0] };
    float y[N];
    sim_k_convert(x, y, N, 0x05);
    const float want_i32[N] = {1, -1, 300, -3, 0, 0, 70000, 1};
    assert_memory_equal(y, want_i32, sizeof y);
    sim_k_convert(x, y, N, 0x04);
    const float want_u8[N] = {1, 0, 255, 0, 0, 0, 255, 1};
    assert_memory_equal(y, want_u8, sizeof y);
    sim_k_convert(x, y, N, 0x0E);
    const float want_b[N] = {1, 1, 1, 1, 1, 1, 1, 1};
    assert_memory_equal(y, want_b, sizeof y);
    memcpy(y, x, sizeof y);
    sim_k_convert(y, y, N, 0x02);            /* in place */
    assert_true(y[0] == sim_f16_to_f32(sim_f32_to_f16(1.7f)) && y[0] != 1.7f);
    assert_true(isnan(y[4]) && isinf(y[6]) && y[7] == 1.0f);   /* 1 + 2^-11: tie to even */
    memcpy(y, x, sizeof y);
    sim_k_convert(y, y, N, 0x09);
    assert_true(y[5] == sim_bf16_to_f32(sim_f32_to_bf16(0.1f)) && y[5] != 0.1f);
    sim_k_convert(x, y, N, 0x01);
    assert_true(y[0] == 1.7f && y[6] == 70000.0f);
    /* long input crosses the internal chunking */
    float *big = rnd_buf(1000, -50.0f, 50.0f), *out = alloc_f(1000);
    sim_k_convert(big, out, 1000, 0x07);
    for (int i = 0; i < 1000; i++)
        assert_true(out[i] == truncf(big[i]));
    free(big);
    free(out);
}

/* ---- elementwise ---------------------------------------------------------------- */

static double ref_bin(sim_binop op, float p, float q)
{
    switch (op) {
    case SIM_BIN_ADD: return p + q;
    case SIM_BIN_SUB: return p - q;
    case SIM_BIN_MUL: return p * q;
    case SIM_BIN_DIV: return p / q;
    case SIM_BIN_MAX: return p > q ? p : q;
    case SIM_BIN_MIN: return p < q ? p : q;
    default: break;          /* the activations have their own tests */
    }
    return 0;
}

/* Offset of output index `idx` (over ys) in an input of shape s broadcast to ys. */
static size_t bcast_offset(const sim_shape *s, const sim_shape *ys, const int64_t *idx)
{
    size_t off = 0;
    for (int i = 0; i < s->rank; i++) {
        int yi = i + ys->rank - s->rank;
        off = off * (size_t)s->d[i] + (s->d[i] == 1 ? 0 : (size_t)idx[yi]);
    }
    return off;
}

static void unravel(size_t flat, const sim_shape *s, int64_t *idx)
{
    for (int i = s->rank - 1; i >= 0; i--) {
        idx[i] = (int64_t)(flat % (size_t)s->d[i]);
        flat /= (size_t)s->d[i];
    }
}

static void check_binary(const sim_shape *as, const sim_shape *bs, const sim_shape *ys)
{
    size_t na = sim_shape_numel(as), nb = sim_shape_numel(bs), ny = sim_shape_numel(ys);
    float *a = rnd_buf(na, -4.0f, 4.0f), *b = rnd_buf(nb, 0.5f, 3.0f), *y = alloc_f(ny);
    double *want = alloc_d(ny);
    for (int op = SIM_BIN_ADD; op <= SIM_BIN_MIN; op++) {
        for (size_t i = 0; i < ny; i++) y[i] = NAN;
        sim_k_binary((sim_binop)op, a, as, b, bs, y, ys);
        for (size_t i = 0; i < ny; i++) {
            int64_t idx[SIM_K_MAX_RANK];
            unravel(i, ys, idx);
            want[i] = (float)ref_bin((sim_binop)op, a[bcast_offset(as, ys, idx)],
                                     b[bcast_offset(bs, ys, idx)]);
        }
        char sa[96], sb[96], what[240];
        shape_str(as, sa, sizeof sa);
        shape_str(bs, sb, sizeof sb);
        snprintf(what, sizeof what, "binary op %d %s x %s", op, sa, sb);
        check_close(what, y, want, NULL, ny);
    }
    free(a);
    free(b);
    free(y);
    free(want);
}

static void test_binary_broadcasts_numpy_style(void **state)
{
    (void)state;
    sim_shape s0 = shp(0), s1 = shp(1, 7), s23 = shp(2, 2, 3), s13 = shp(2, 1, 3),
              s21 = shp(2, 2, 1), s3 = shp(1, 3), s11 = shp(1, 1);
    sim_shape big = shp(4, 3, 4, 5, 67), big_t = shp(1, 67), big_c = shp(4, 1, 4, 1, 1);
    sim_shape big_m = shp(4, 3, 1, 5, 1), s457 = shp(3, 4, 5, 7), s1_57 = shp(3, 1, 5, 7);
    check_binary(&s0, &s0, &s0);
    check_binary(&s1, &s1, &s1);
    check_binary(&s1, &s0, &s1);             /* scalar right */
    check_binary(&s0, &s1, &s1);             /* scalar left */
    check_binary(&s11, &s1, &s1);
    check_binary(&s23, &s3, &s23);           /* trailing broadcast */
    check_binary(&s3, &s23, &s23);
    check_binary(&s13, &s21, &s23);          /* both sides broadcast */
    check_binary(&s21, &s13, &s23);
    check_binary(&big, &big_t, &big);
    check_binary(&big_c, &big, &big);        /* per-channel */
    check_binary(&big, &big_m, &big);
    check_binary(&big_m, &big_c, &big);
    check_binary(&s457, &s1_57, &s457);
    sim_shape e = shp(2, 0, 3);
    check_binary(&e, &s3, &e);               /* empty output */
    /* random shapes */
    for (int t = 0; t < 300; t++) {
        sim_shape ys = shp(0), as, bs;
        ys.rank = rnd_int(0, 6);
        for (int i = 0; i < ys.rank; i++)
            ys.d[i] = rnd_int(1, 5);
        as = ys;
        bs = ys;
        as.rank = rnd_int(0, ys.rank);
        bs.rank = rnd_int(0, ys.rank);
        if (rnd_int(0, 1)) as.rank = ys.rank; else bs.rank = ys.rank;
        for (int i = 0; i < as.rank; i++) {
            as.d[i] = ys.d[i + ys.rank - as.rank];
            if (rnd_int(0, 2) == 0) as.d[i] = 1;
        }
        for (int i = 0; i < bs.rank; i++) {
            bs.d[i] = ys.d[i + ys.rank - bs.rank];
            if (rnd_int(0, 2) == 0) bs.d[i] = 1;
        }
        /* the output dims must be the broadcast of the inputs */
        for (int i = 0; i < ys.rank; i++) {
            int ia = i - (ys.rank - as.rank), ib = i - (ys.rank - bs.rank);
            int64_t da = ia >= 0 ? as.d[ia] : 1, db = ib >= 0 ? bs.d[ib] : 1;
            ys.d[i] = da > db ? da : db;
        }
        check_binary(&as, &bs, &ys);
    }
}

static void test_unary_ops_match_libm_and_alias(void **state)
{
    (void)state;
    enum { N = 2000 };
    float *x = rnd_buf(N, -20.0f, 20.0f), *y = alloc_f(N);
    x[0] = -1000.0f; x[1] = 1000.0f; x[2] = -88.8f; x[3] = 88.8f; x[4] = -104.0f;
    x[5] = 0.0f; x[6] = -0.0f; x[7] = 1e-30f;
    for (int op = SIM_UN_RELU; op <= SIM_UN_NEG; op++) {
        sim_k_unary((sim_unop)op, x, y, N);
        for (int i = 0; i < N; i++) {
            double v = x[i], w = 0;
            switch ((sim_unop)op) {
            case SIM_UN_RELU: w = v > 0 ? v : 0; break;
            case SIM_UN_SIGMOID: w = 1.0 / (1.0 + exp(-v)); break;
            case SIM_UN_TANH: w = tanh(v); break;
            case SIM_UN_EXP: w = exp(v); break;
            case SIM_UN_SQRT: w = sqrt(v); break;
            case SIM_UN_ABS: w = fabs(v); break;
            case SIM_UN_NEG: w = -v; break;
            default: break;  /* the activations have their own tests */
            }
            if (op == SIM_UN_EXP && w > FLT_MAX) w = INFINITY;
            double tol = 4 * FLT_EPSILON * fabs(w) + 1e-45;
            if (op == SIM_UN_SIGMOID) tol = 4 * FLT_EPSILON * fabs(w) + 1e-44;
            int ok = isnan(w) ? isnan(y[i]) : (fabs(y[i] - w) <= tol || y[i] == w);
            if (!ok)
                FAIL("unary %d of %.9g: got %.9g want %.9g", op, v, (double)y[i], w);
        }
    }
    /* sigmoid saturates cleanly far out */
    sim_k_unary(SIM_UN_SIGMOID, x, y, 8);
    assert_true(y[0] == 0.0f && y[1] == 1.0f && y[5] == 0.5f);
    assert_true(y[2] > 0.0f && y[2] < 1e-38f);
    for (int i = 0; i < 8; i++)
        assert_false(isnan(y[i]));
    /* in place */
    float z[4] = {-2.0f, 4.0f, -0.5f, 9.0f};
    sim_k_unary(SIM_UN_ABS, z, z, 4);
    sim_k_unary(SIM_UN_SQRT, z, z, 4);
    assert_true(z[0] == sqrtf(2.0f) && z[1] == 2.0f && z[3] == 3.0f);
    sim_k_unary(SIM_UN_NEG, z, z, 4);
    sim_k_unary(SIM_UN_RELU, z, z, 4);
    assert_true(z[0] == 0.0f && z[1] == 0.0f);
    free(x);
    free(y);
}

/* ---- activations -------------------------------------------------------------- */
/* References from the formulas of the op specifications (hswish-4, hsigmoid-5,
 * mish-4, gelu-2/7, swish-4, erf-1, log-1, floor-1), in double. The sim computes
 * what OpenVINO's reference computes (float for HSwish, HSigmoid, Mish, Erf, Log;
 * double for Gelu), so the tolerances are a few float roundings of each formula. */

static double relu6_d(double v)
{
    double t = v + 3.0;
    return t < 0.0 ? 0.0 : t > 6.0 ? 6.0 : t;
}

static double ref_act(sim_unop op, double x, double *tol)
{
    double w = 0, e = FLT_EPSILON;
    switch (op) {
    case SIM_UN_HSWISH: w = x * relu6_d(x) / 6.0; *tol = 3 * e * fabs(w); break;
    case SIM_UN_HSIGMOID: w = relu6_d(x) / 6.0; *tol = 3 * e * fabs(w); break;
    /* exp(x) + 1 is rounded to float: an absolute error of |x| * eps after the tanh */
    case SIM_UN_MISH: w = x * tanh(log(exp(x) + 1.0)); *tol = 4 * e * (fabs(w) + fabs(x)); break;
    case SIM_UN_GELU_ERF: w = x * 0.5 * (1.0 + erf(x / sqrt(2.0))); *tol = e * fabs(w); break;
    case SIM_UN_GELU_TANH: {
        const double pi = 3.14159265358979323846;
        w = 0.5 * x * (1.0 + tanh(sqrt(2.0 / pi) * (x + 0.044715 * x * x * x)));
        *tol = e * fabs(w);
        break;
    }
    case SIM_UN_ERF: w = erf(x); *tol = 2 * e * fabs(w); break;
    case SIM_UN_LOG: w = x == 0 ? -INFINITY : log(x); *tol = 2 * e * fabs(w); break;
    case SIM_UN_FLOOR: w = floor(x); *tol = 0; break;
    default: break;
    }
    *tol += 1e-44;
    if (fabs(w) > FLT_MAX)
        w = w > 0 ? INFINITY : -INFINITY;
    return w;
}

static void test_activations_follow_the_spec_formulas(void **state)
{
    (void)state;
    enum { N = 3000 };
    float *x = rnd_buf(N, -12.0f, 12.0f), *y = alloc_f(N);
    const float special[] = {-3.0f, 3.0f, 0.0f, -0.0f, -2.9999998f, 2.9999998f, 1e-30f, -1e-30f,
                             -100.0f, 100.0f, -88.0f, 88.0f, 0.5f, -0.5f, 1e7f, -1e7f, INFINITY,
                             -INFINITY, NAN};
    memcpy(x, special, sizeof special);
    for (int op = SIM_UN_HSWISH; op <= SIM_UN_LAST; op++) {
        sim_k_unary((sim_unop)op, x, y, N);
        for (int i = 0; i < N; i++) {
            double v = x[i], tol;
            if (op == SIM_UN_LOG && i >= (int)(sizeof special / sizeof special[0]))
                v = fabs(v);                           /* mostly inside the domain */
            if (v != x[i]) {
                float xi = (float)v;
                sim_k_unary((sim_unop)op, &xi, &y[i], 1);
            }
            double w = ref_act((sim_unop)op, v, &tol);
            int ok = isnan(w) ? isnan(y[i]) : (fabs(y[i] - w) <= tol || y[i] == w);
            if (!ok)
                FAIL("activation %d of %.9g: got %.9g want %.9g (tol %.3g)", op, v, (double)y[i], w, tol);
        }
    }
    /* the points the formulas pin down exactly */
    float p[6] = {-3.0f, 3.0f, 0.0f, -1.0f, NAN, 6.0f}, q[6];
    sim_k_unary(SIM_UN_HSWISH, p, q, 6);
    assert_true(q[0] == 0.0f && q[1] == 3.0f && q[2] == 0.0f && q[5] == 6.0f && isnan(q[4]));
    assert_true(fabsf(q[3] - (-1.0f / 3.0f)) <= FLT_EPSILON);
    sim_k_unary(SIM_UN_HSIGMOID, p, q, 6);
    assert_true(q[0] == 0.0f && q[1] == 1.0f && q[2] == 0.5f && isnan(q[4]));
    sim_k_unary(SIM_UN_GELU_ERF, p, q, 6);
    assert_true(q[2] == 0.0f && isnan(q[4]));
    sim_k_unary(SIM_UN_LOG, p, q, 6);
    assert_true(isinf(q[2]) && q[2] < 0 && isnan(q[3]));
    float big[2] = {50.0f, -50.0f};
    sim_k_unary(SIM_UN_GELU_TANH, big, q, 2);   /* tanh saturates: x and 0 */
    assert_true(q[0] == 50.0f && q[1] == 0.0f);
    /* in place */
    float z[3] = {-4.0f, -1.5f, 2.0f};
    sim_k_unary(SIM_UN_FLOOR, z, z, 3);
    assert_true(z[0] == -4.0f && z[1] == -2.0f && z[2] == 2.0f);
    free(x);
    free(y);
}

static void test_activations_on_integers_round_as_the_reference(void **state)
{
    (void)state;
    /* OpenVINO's reference for integral T: Erf = round(erf(x)), Log = log(x) in
     * double, truncated by the cast (442413 is just below e^13) */
    const float x[] = {0, 1, -1, 2, -3, 3, 7, 442413, 2981, 22026};
    float y[10];
    sim_k_unary_int(SIM_UN_ERF, x, y, 6);
    const float erf_want[] = {0, 1, -1, 1, -1, 1};
    for (int i = 0; i < 6; i++)
        assert_true(y[i] == erf_want[i]);
    sim_k_unary_int(SIM_UN_LOG, x + 1, y, 9);   /* 1, -1, 2, -3, 3, 7, 442413, 2981, 22026 */
    assert_true(y[0] == 0.0f && isnan(y[1]) && y[2] == 0.0f && isnan(y[3]) && y[4] == 1.0f &&
                y[5] == 1.0f && y[6] == 12.0f && y[7] == 8.0f && y[8] == 9.0f);
    float zero = 0.0f;
    sim_k_unary_int(SIM_UN_LOG, &zero, y, 1);
    assert_true(isinf(y[0]) && y[0] < 0);
    sim_k_unary_int(SIM_UN_FLOOR, x, y, 10);    /* integers are their own floor */
    for (int i = 0; i < 10; i++)
        assert_true(y[i] == x[i]);
    sim_k_unary_int(SIM_UN_RELU, x, y, 3);
    assert_true(y[0] == 0 && y[1] == 1 && y[2] == 0);
}

static void test_swish_beta_broadcasts_as_a_scalar(void **state)
{
    (void)state;
    enum { N = 2000 };
    float *x = rnd_buf(N, -30.0f, 30.0f), *y = alloc_f(N);
    const float betas[] = {1.0f, 0.5f, 2.0f, -1.0f, 0.0f, 10.0f};
    sim_shape xs = shp(3, 10, 20, 10), bs = shp(0);
    x[0] = 0.0f;
    x[1] = NAN;
    x[2] = INFINITY;          /* inf for beta > 0; NaN for beta 0 (inf * 0) and beta < 0 */
    for (size_t k = 0; k < sizeof betas / sizeof betas[0]; k++) {
        sim_k_binary(SIM_BIN_SWISH, x, &xs, &betas[k], &bs, y, &xs);
        for (int i = 0; i < N; i++) {
            double v = x[i], b = betas[k], w = v / (1.0 + exp(-v * b));
            /* exp's argument is rounded to float: relative error |v b| eps; exp
             * overflows float past 88.7 (the result is then 0 instead of v / e^|vb|) */
            double tol = 4 * FLT_EPSILON * fabs(w) * (1.0 + fabs(v * b)) + 2 * fabs(v) / FLT_MAX;
            int ok = isnan(w) ? isnan(y[i]) : (fabs(y[i] - w) <= tol || y[i] == w);
            if (!ok)
                FAIL("swish(%.9g, beta %g): got %.9g want %.9g", v, b, (double)y[i], w);
        }
    }
    /* beta 0 halves: x / 2 exactly */
    const float zero = 0.0f;
    sim_k_binary(SIM_BIN_SWISH, x, &xs, &zero, &bs, y, &xs);
    for (int i = 3; i < N; i++)
        assert_true(y[i] == x[i] * 0.5f);
    free(x);
    free(y);
}

/* Power-1 o = a^b and PRelu-1 max(0, x) + slope * min(0, x) (power-1.rst,
 * prelu-1.rst), numpy broadcasting, in double. */
static void check_pow_prelu(const sim_shape *as, const sim_shape *bs, const sim_shape *ys)
{
    size_t na = sim_shape_numel(as), nb = sim_shape_numel(bs), ny = sim_shape_numel(ys);
    float *a = rnd_buf(na, -3.0f, 3.0f), *b = rnd_buf(nb, -3.0f, 3.0f), *y = alloc_f(ny);
    double *want = alloc_d(ny), *tol = alloc_d(ny);
    for (size_t i = 0; i < nb; i++)      /* integral exponents too: defined for negative bases */
        if (i % 3 == 0)
            b[i] = roundf(b[i]);
    if (na > 2) {
        a[0] = 0.0f;
        a[1] = -0.0f;
    }
    for (int op = SIM_BIN_POW; op <= SIM_BIN_PRELU; op++) {
        sim_k_binary((sim_binop)op, a, as, b, bs, y, ys);
        for (size_t i = 0; i < ny; i++) {
            int64_t idx[SIM_K_MAX_RANK];
            unravel(i, ys, idx);
            double p = a[bcast_offset(as, ys, idx)], q = b[bcast_offset(bs, ys, idx)];
            if (op == SIM_BIN_POW) {
                want[i] = pow(p, q);
                if (fabs(want[i]) > FLT_MAX)
                    want[i] = want[i] > 0 ? INFINITY : -INFINITY;
                tol[i] = 2 * FLT_EPSILON * fabs(want[i]) + 1e-44;
            } else {
                want[i] = (float)((p > 0 ? p : 0) + q * (p < 0 ? p : 0));
                tol[i] = 0;
            }
        }
        char sa[96], sb[96], what[240];
        shape_str(as, sa, sizeof sa);
        shape_str(bs, sb, sizeof sb);
        snprintf(what, sizeof what, "%s %s x %s", op == SIM_BIN_POW ? "power" : "prelu", sa, sb);
        check_close(what, y, want, op == SIM_BIN_POW ? tol : NULL, ny);
    }
    free(a);
    free(b);
    free(y);
    free(want);
    free(tol);
}

static void test_power_and_prelu_broadcast_numpy_style(void **state)
{
    (void)state;
    sim_shape s8161 = shp(4, 8, 1, 6, 1), s715 = shp(3, 7, 1, 5), s8765 = shp(4, 8, 7, 6, 5);
    sim_shape s0 = shp(0), s23 = shp(2, 2, 3), s13 = shp(2, 1, 3), c = shp(4, 1, 3, 1, 1),
              x4 = shp(4, 2, 3, 4, 5);
    check_pow_prelu(&s8161, &s715, &s8765);  /* the numpy example of power-1.rst */
    check_pow_prelu(&s23, &s0, &s23);
    check_pow_prelu(&s0, &s23, &s23);
    check_pow_prelu(&s23, &s13, &s23);
    check_pow_prelu(&x4, &c, &x4);           /* a per-channel slope as the compiler shapes it */
    /* the values the formulas pin down */
    float a[4] = {2.0f, -2.0f, 0.0f, 4.0f}, b[4] = {10.0f, 3.0f, 0.0f, 0.5f}, y[4];
    sim_shape s4 = shp(1, 4);
    sim_k_binary(SIM_BIN_POW, a, &s4, b, &s4, y, &s4);
    assert_true(y[0] == 1024.0f && y[1] == -8.0f && y[2] == 1.0f && y[3] == 2.0f);
    sim_k_binary(SIM_BIN_PRELU, a, &s4, b, &s4, y, &s4);
    assert_true(y[0] == 2.0f && y[1] == -6.0f && y[2] == 0.0f && y[3] == 4.0f);
}

static void test_clamp_bounds_both_sides_in_place(void **state)
{
    (void)state;
    float x[] = {-5.0f, -1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 7.0f, -INFINITY, INFINITY};
    float y[9];
    sim_k_clamp(x, y, 9, -1.0f, 0.75f);
    const float want[9] = {-1.0f, -1.0f, -0.5f, 0.0f, 0.5f, 0.75f, 0.75f, -1.0f, 0.75f};
    assert_memory_equal(y, want, sizeof y);
    sim_k_clamp(x, x, 9, 0.0f, 6.0f);        /* ReLU6 in place */
    const float want6[9] = {0, 0, 0, 0, 0.5f, 1.0f, 6.0f, 0, 6.0f};
    assert_memory_equal(x, want6, sizeof x);
}

static void check_softmax(const sim_shape *s, int axis, float lo, float hi)
{
    size_t n = sim_shape_numel(s);
    float *x = rnd_buf(n, lo, hi), *y = alloc_f(n);
    double *want = alloc_d(n), *tol = alloc_d(n);
    sim_k_softmax(x, y, s, axis);
    size_t len = (size_t)s->d[axis], inner = 1, outer = 1;
    for (int i = axis + 1; i < s->rank; i++) inner *= (size_t)s->d[i];
    for (int i = 0; i < axis; i++) outer *= (size_t)s->d[i];
    for (size_t o = 0; o < outer; o++)
        for (size_t j = 0; j < inner; j++) {
            double mx = -INFINITY, sum = 0;
            for (size_t l = 0; l < len; l++)
                mx = fmax(mx, x[(o * len + l) * inner + j]);
            for (size_t l = 0; l < len; l++)
                sum += exp(x[(o * len + l) * inner + j] - mx);
            double ysum = 0;
            for (size_t l = 0; l < len; l++) {
                size_t k = (o * len + l) * inner + j;
                want[k] = exp(x[k] - mx) / sum;
                /* expf's argument x - max carries a rounding error of
                 * |x - max| * eps/2, which becomes a relative error of the result */
                tol[k] = (8 + fabs(x[k] - mx)) * FLT_EPSILON * want[k] + 1e-7 * FLT_EPSILON;
                ysum += y[k];
            }
            if (fabs(ysum - 1.0) > 1e-5)
                FAIL("softmax slice sums to %.9g", ysum);
        }
    char ss[96], what[160];
    shape_str(s, ss, sizeof ss);
    snprintf(what, sizeof what, "softmax %s axis %d", ss, axis);
    check_close(what, y, want, tol, n);
    free(x); free(y); free(want); free(tol);
}

static void test_softmax_any_axis_is_stable_for_large_logits(void **state)
{
    (void)state;
    sim_shape s1 = shp(1, 10), s11 = shp(1, 1), s = shp(3, 2, 150, 3), w = shp(2, 3, 200);
    check_softmax(&s1, 0, -5, 5);
    check_softmax(&s11, 0, -5, 5);           /* a single element gives 1 */
    check_softmax(&s, 0, -5, 5);
    check_softmax(&s, 1, -5, 5);
    check_softmax(&s, 2, -5, 5);
    check_softmax(&w, 0, 1000, 1010);        /* exp() would overflow without the max */
    check_softmax(&w, 1, -1010, -1000);      /* ... or underflow to 0/0 */
    for (int t = 0; t < 40; t++) {
        sim_shape r = shp(0);
        r.rank = rnd_int(1, 4);
        for (int i = 0; i < r.rank; i++) r.d[i] = rnd_int(1, 9);
        if (rnd_int(0, 3) == 0) r.d[r.rank - 1] = rnd_int(60, 140); /* crosses column chunks */
        check_softmax(&r, rnd_int(0, r.rank - 1), -30, 30);
    }
}

/* ---- matmul ----------------------------------------------------------------------- */

static void check_matmul(const sim_shape *as, int ta, const sim_shape *bs, int tb)
{
    int ra = as->rank, rb = bs->rank;
    int64_t M = ta ? as->d[ra - 1] : as->d[ra - 2], K = ta ? as->d[ra - 2] : as->d[ra - 1];
    int64_t N = tb ? bs->d[rb - 2] : bs->d[rb - 1];
    assert_int_equal(K, tb ? bs->d[rb - 1] : bs->d[rb - 2]);
    sim_shape ys = shp(0);
    ys.rank = (ra > rb ? ra : rb);
    int nb = ys.rank - 2;
    for (int i = 0; i < nb; i++) {
        int ia = i - (nb - (ra - 2)), ib = i - (nb - (rb - 2));
        int64_t da = ia >= 0 ? as->d[ia] : 1, db = ib >= 0 ? bs->d[ib] : 1;
        ys.d[i] = da > db ? da : db;
    }
    ys.d[nb] = M;
    ys.d[nb + 1] = N;
    size_t na = sim_shape_numel(as), nbn = sim_shape_numel(bs), ny = sim_shape_numel(&ys);
    float *a = rnd_buf(na, -1, 1), *b = rnd_buf(nbn, -1, 1), *y = alloc_f(ny);
    double *want = alloc_d(ny), *tol = alloc_d(ny);
    sim_k_matmul(a, as, ta, b, bs, tb, y, &ys);
    sim_shape bat = ys;
    bat.rank = nb;
    size_t batches = sim_shape_numel(&bat);
    for (size_t t = 0; t < batches; t++) {
        int64_t idx[SIM_K_MAX_RANK];
        unravel(t, &bat, idx);
        size_t oa = 0, ob = 0;
        for (int i = 0; i < ra - 2; i++)
            oa = oa * (size_t)as->d[i] + (as->d[i] == 1 ? 0 : (size_t)idx[i + nb - (ra - 2)]);
        for (int i = 0; i < rb - 2; i++)
            ob = ob * (size_t)bs->d[i] + (bs->d[i] == 1 ? 0 : (size_t)idx[i + nb - (rb - 2)]);
        const float *am = a + oa * (size_t)(M * K), *bm = b + ob * (size_t)(K * N);
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double s = 0, mag = 0;
                for (int64_t k = 0; k < K; k++) {
                    double av = ta ? am[k * M + i] : am[i * K + k];
                    double bv = tb ? bm[j * K + k] : bm[k * N + j];
                    s += av * bv;
                    mag += fabs(av * bv);
                }
                size_t o = t * (size_t)(M * N) + (size_t)(i * N + j);
                want[o] = s;
                tol[o] = sum_tol(mag, (size_t)K);
            }
    }
    char sa[96], sb[96], what[240];
    shape_str(as, sa, sizeof sa);
    shape_str(bs, sb, sizeof sb);
    snprintf(what, sizeof what, "matmul %s%s x %s%s", sa, ta ? "^T" : "", sb, tb ? "^T" : "");
    check_close(what, y, want, tol, ny);
    free(a); free(b); free(y); free(want); free(tol);
}

static sim_shape mat_shape(int nbatch, const int64_t *batch, int64_t rows, int64_t cols)
{
    sim_shape s = shp(0);
    s.rank = nbatch + 2;
    for (int i = 0; i < nbatch; i++) s.d[i] = batch[i];
    s.d[nbatch] = rows;
    s.d[nbatch + 1] = cols;
    return s;
}

static void test_matmul_batched_broadcast_and_transposes(void **state)
{
    (void)state;
    /* blocks are 256 (K) x 512 (N) x 128 (M), tiles 4 x 16: cross every edge */
    const int64_t sizes[][3] = {{1, 1, 1}, {1, 7, 1}, {5, 1, 9}, {3, 300, 2}, {13, 129, 270},
                                {260, 17, 5}, {33, 257, 31}, {3, 5, 530}, {9, 520, 17}, {4, 0, 3}};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        int64_t M = sizes[c][0], K = sizes[c][1], N = sizes[c][2];
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                sim_shape as = mat_shape(0, NULL, ta ? K : M, ta ? M : K);
                sim_shape bs = mat_shape(0, NULL, tb ? N : K, tb ? K : N);
                check_matmul(&as, ta, &bs, tb);
            }
    }
    /* batch broadcasting of either side, different ranks */
    const int64_t b1[] = {3}, b21[] = {2, 1}, b13[] = {1, 3}, b231[] = {2, 3, 1};
    sim_shape a1 = mat_shape(1, b1, 4, 6), b0 = mat_shape(0, NULL, 6, 5);
    check_matmul(&a1, 0, &b0, 0);
    check_matmul(&b0, 1, &a1, 1);
    sim_shape a21 = mat_shape(2, b21, 4, 6), b13s = mat_shape(2, b13, 6, 5);
    check_matmul(&a21, 0, &b13s, 0);
    check_matmul(&b13s, 1, &a21, 1);
    sim_shape a231 = mat_shape(3, b231, 6, 4), bb = mat_shape(1, b1, 6, 2);
    check_matmul(&a231, 1, &bb, 0);
    for (int t = 0; t < 60; t++) {
        int nb = rnd_int(0, 3);
        int64_t batch[3], ba[3], bbt[3];
        for (int i = 0; i < nb; i++) {
            batch[i] = rnd_int(1, 3);
            ba[i] = rnd_int(0, 2) ? batch[i] : 1;
            bbt[i] = rnd_int(0, 2) ? batch[i] : 1;
        }
        int drop_a = rnd_int(0, nb), drop_b = rnd_int(0, 1) ? 0 : rnd_int(0, nb);
        int64_t M = rnd_int(1, 40), K = rnd_int(1, 150), N = rnd_int(1, 40);
        int ta = rnd_int(0, 1), tb = rnd_int(0, 1);
        sim_shape as = mat_shape(nb - drop_a, ba + drop_a, ta ? K : M, ta ? M : K);
        sim_shape bs = mat_shape(nb - drop_b, bbt + drop_b, tb ? N : K, tb ? K : N);
        check_matmul(&as, ta, &bs, tb);
    }
}

/* ---- convolution -------------------------------------------------------------------- */

typedef struct conv_case {
    int spatial, n, cin, cout, groups;
    int in[3], k[3], s[3], d[3], pb[3], pe[3];
} conv_case;

static void check_conv(const conv_case *c)
{
    sim_conv_params p;
    memset(&p, 0, sizeof p);
    p.spatial = c->spatial;
    p.groups = c->groups;
    sim_shape xs = shp(2, c->n, c->cin), ws = shp(2, c->cout, c->cin / c->groups),
              ys = shp(2, c->n, c->cout);
    int out[3];
    for (int i = 0; i < c->spatial; i++) {
        p.strides[i] = c->s[i];
        p.dilations[i] = c->d[i];
        p.pads_begin[i] = c->pb[i];
        p.pads_end[i] = c->pe[i];
        out[i] = (c->in[i] + c->pb[i] + c->pe[i] - c->d[i] * (c->k[i] - 1) - 1) / c->s[i] + 1;
        xs.d[2 + i] = c->in[i];
        ws.d[2 + i] = c->k[i];
        ys.d[2 + i] = out[i];
    }
    xs.rank = ws.rank = ys.rank = 2 + c->spatial;
    size_t nx = sim_shape_numel(&xs), nw = sim_shape_numel(&ws), ny = sim_shape_numel(&ys);
    float *x = rnd_buf(nx, -1, 1), *w = rnd_buf(nw, -1, 1), *y = alloc_f(ny);
    double *want = alloc_d(ny), *tol = alloc_d(ny);
    sim_k_conv(x, &xs, w, &ws, &p, y, &ys);
    /* reference: 3-D loops with unit leading dims */
    int lead = 3 - c->spatial;
    int64_t IN[3], OUT[3], KK[3], S[3], D[3], PB[3];
    for (int i = 0; i < 3; i++) {
        int j = i - lead;
        IN[i] = j >= 0 ? c->in[j] : 1;
        OUT[i] = j >= 0 ? out[j] : 1;
        KK[i] = j >= 0 ? c->k[j] : 1;
        S[i] = j >= 0 ? c->s[j] : 1;
        D[i] = j >= 0 ? c->d[j] : 1;
        PB[i] = j >= 0 ? c->pb[j] : 0;
    }
    int cin_g = c->cin / c->groups, cout_g = c->cout / c->groups;
    size_t yi = 0;
    for (int n = 0; n < c->n; n++)
        for (int oc = 0; oc < c->cout; oc++)
            for (int64_t o0 = 0; o0 < OUT[0]; o0++)
                for (int64_t o1 = 0; o1 < OUT[1]; o1++)
                    for (int64_t o2 = 0; o2 < OUT[2]; o2++, yi++) {
                        double s = 0, mag = 0;
                        int g = oc / cout_g;
                        for (int ic = 0; ic < cin_g; ic++)
                            for (int64_t k0 = 0; k0 < KK[0]; k0++)
                                for (int64_t k1 = 0; k1 < KK[1]; k1++)
                                    for (int64_t k2 = 0; k2 < KK[2]; k2++) {
                                        int64_t i0 = o0 * S[0] - PB[0] + k0 * D[0];
                                        int64_t i1 = o1 * S[1] - PB[1] + k1 * D[1];
                                        int64_t i2 = o2 * S[2] - PB[2] + k2 * D[2];
                                        if (i0 < 0 || i0 >= IN[0] || i1 < 0 || i1 >= IN[1] ||
                                            i2 < 0 || i2 >= IN[2])
                                            continue;
                                        double xv = x[((((size_t)n * (size_t)c->cin +
                                                         (size_t)(g * cin_g + ic)) * (size_t)IN[0] +
                                                        (size_t)i0) * (size_t)IN[1] + (size_t)i1) *
                                                          (size_t)IN[2] + (size_t)i2];
                                        double wv = w[((((size_t)oc * (size_t)cin_g + (size_t)ic) *
                                                        (size_t)KK[0] + (size_t)k0) * (size_t)KK[1] +
                                                       (size_t)k1) * (size_t)KK[2] + (size_t)k2];
                                        s += xv * wv;
                                        mag += fabs(xv * wv);
                                    }
                        want[yi] = s;
                        tol[yi] = sum_tol(mag, (size_t)(cin_g * KK[0] * KK[1] * KK[2]));
                    }
    char what[200];
    snprintf(what, sizeof what,
             "conv %dD n%d cin%d cout%d g%d in %d,%d,%d k %d,%d,%d s %d,%d,%d d %d,%d,%d "
             "pb %d,%d,%d pe %d,%d,%d", c->spatial, c->n, c->cin, c->cout, c->groups,
             c->in[0], c->in[1], c->in[2], c->k[0], c->k[1], c->k[2], c->s[0], c->s[1], c->s[2],
             c->d[0], c->d[1], c->d[2], c->pb[0], c->pb[1], c->pb[2], c->pe[0], c->pe[1], c->pe[2]);
    check_close(what, y, want, tol, ny);
    free(x); free(w); free(y); free(want); free(tol);
}

static void test_conv_strides_dilations_pads_groups_1d_to_3d(void **state)
{
    (void)state;
    const conv_case fixed[] = {
        /* 1x1, stride 1, no pad: reads x in place */
        {2, 2, 8, 5, 1, {6, 7, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}, {0, 0, 0}, {0, 0, 0}},
        /* 1x1 with stride: im2col */
        {2, 1, 4, 3, 1, {7, 7, 0}, {1, 1, 0}, {2, 2, 0}, {1, 1, 0}, {0, 0, 0}, {0, 0, 0}},
        /* 3x3 same-pad */
        {2, 1, 3, 4, 1, {9, 11, 0}, {3, 3, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}},
        /* asymmetric pads, stride 2 (TF "same" style) */
        {2, 2, 3, 2, 1, {8, 9, 0}, {3, 3, 0}, {2, 2, 0}, {1, 1, 0}, {0, 1, 0}, {1, 2, 0}},
        /* depthwise: groups = channels */
        {2, 1, 6, 6, 6, {10, 9, 0}, {3, 3, 0}, {1, 2, 0}, {1, 1, 0}, {1, 1, 0}, {1, 0, 0}},
        /* depthwise with multiplier 2 */
        {2, 1, 4, 8, 4, {7, 7, 0}, {3, 3, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}},
        /* groups, dilation */
        {2, 1, 6, 4, 2, {12, 10, 0}, {3, 2, 0}, {1, 1, 0}, {2, 3, 0}, {2, 0, 0}, {2, 3, 0}},
        /* pads larger than the kernel: border outputs are all zero-padding */
        {2, 1, 2, 2, 1, {4, 4, 0}, {2, 2, 0}, {1, 1, 0}, {1, 1, 0}, {3, 2, 0}, {3, 0, 0}},
        /* kernel as large as the padded input */
        {2, 1, 2, 3, 1, {3, 3, 0}, {5, 5, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}},
        /* 1-D */
        {1, 2, 3, 4, 1, {20, 0, 0}, {5, 0, 0}, {3, 0, 0}, {2, 0, 0}, {4, 0, 0}, {1, 0, 0}},
        {1, 1, 4, 4, 4, {9, 0, 0}, {3, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}},
        /* 3-D */
        {3, 1, 2, 3, 1, {5, 6, 7}, {3, 2, 3}, {1, 2, 1}, {1, 1, 2}, {1, 0, 2}, {1, 1, 0}},
        {3, 2, 4, 4, 2, {4, 4, 4}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}},
        /* big enough that im2col goes in several row tiles */
        {2, 1, 16, 8, 1, {66, 64, 0}, {3, 3, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}},
        /* one output column, wide rows */
        {2, 1, 3, 2, 1, {1, 300, 0}, {1, 3, 0}, {1, 1, 0}, {1, 1, 0}, {0, 1, 0}, {0, 1, 0}},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        check_conv(&fixed[i]);
    for (int t = 0; t < 60; t++) {
        conv_case c;
        memset(&c, 0, sizeof c);
        c.spatial = rnd_int(1, 3);
        c.n = rnd_int(1, 2);
        c.groups = rnd_int(1, 3);
        c.cin = c.groups * rnd_int(1, 3);
        c.cout = c.groups * rnd_int(1, 3);
        if (rnd_int(0, 3) == 0) c.cin = c.cout = c.groups = rnd_int(1, 6); /* depthwise */
        for (int i = 0; i < c.spatial; i++) {
            int maxin = c.spatial == 3 ? 6 : 12;
            c.in[i] = rnd_int(1, maxin);
            c.k[i] = rnd_int(1, 4);
            c.s[i] = rnd_int(1, 3);
            c.d[i] = rnd_int(1, 2);
            c.pb[i] = rnd_int(0, 2);
            c.pe[i] = rnd_int(0, 2);
            while (c.in[i] + c.pb[i] + c.pe[i] < c.d[i] * (c.k[i] - 1) + 1)
                c.pe[i]++;
        }
        check_conv(&c);
    }
}

/* ---- pooling --------------------------------------------------------------------------- */

typedef struct pool_case {
    int spatial, n, c, exclude_pad, ceil_mode;
    int in[3], k[3], s[3], d[3], pb[3], pe[3];
} pool_case;

static void check_pool(const pool_case *pc)
{
    sim_pool_params p;
    memset(&p, 0, sizeof p);
    p.spatial = pc->spatial;
    p.exclude_pad = pc->exclude_pad;
    sim_shape xs = shp(2, pc->n, pc->c), ys = shp(2, pc->n, pc->c);
    int out[3];
    for (int i = 0; i < pc->spatial; i++) {
        p.kernel[i] = pc->k[i];
        p.strides[i] = pc->s[i];
        p.dilations[i] = pc->d[i];
        p.pads_begin[i] = pc->pb[i];
        p.pads_end[i] = pc->pe[i];
        int span = pc->in[i] + pc->pb[i] + pc->pe[i] - (pc->d[i] * (pc->k[i] - 1) + 1);
        out[i] = (pc->ceil_mode ? (span + pc->s[i] - 1) / pc->s[i] : span / pc->s[i]) + 1;
        xs.d[2 + i] = pc->in[i];
        ys.d[2 + i] = out[i];
    }
    xs.rank = ys.rank = 2 + pc->spatial;
    size_t nx = sim_shape_numel(&xs), ny = sim_shape_numel(&ys);
    float *x = rnd_buf(nx, -3, 3), *ymax = alloc_f(ny), *yavg = alloc_f(ny);
    double *wmax = alloc_d(ny), *wavg = alloc_d(ny), *tol = alloc_d(ny);
    sim_k_maxpool(x, &xs, &p, ymax, &ys);
    for (int i = 0; i < pc->spatial; i++)
        p.dilations[i] = 1;                   /* AvgPool has none */
    sim_k_avgpool(x, &xs, &p, yavg, &ys);
    int lead = 3 - pc->spatial;
    int64_t IN[3], OUT[3], KK[3], S[3], D[3], PB[3], PE[3];
    for (int i = 0; i < 3; i++) {
        int j = i - lead;
        IN[i] = j >= 0 ? pc->in[j] : 1;
        OUT[i] = j >= 0 ? out[j] : 1;
        KK[i] = j >= 0 ? pc->k[j] : 1;
        S[i] = j >= 0 ? pc->s[j] : 1;
        D[i] = j >= 0 ? pc->d[j] : 1;
        PB[i] = j >= 0 ? pc->pb[j] : 0;
        PE[i] = j >= 0 ? pc->pe[j] : 0;
    }
    size_t yi = 0;
    for (int pl = 0; pl < pc->n * pc->c; pl++)
        for (int64_t o0 = 0; o0 < OUT[0]; o0++)
            for (int64_t o1 = 0; o1 < OUT[1]; o1++)
                for (int64_t o2 = 0; o2 < OUT[2]; o2++, yi++) {
                    double mx = -INFINITY, sum = 0;
                    int64_t inside = 0, padded = 0, max_cells = 0;
                    const int64_t o[3] = {o0, o1, o2};
                    for (int pass = 0; pass < 2; pass++) {   /* 0: max (dilated), 1: avg */
                        for (int64_t k0 = 0; k0 < KK[0]; k0++)
                            for (int64_t k1 = 0; k1 < KK[1]; k1++)
                                for (int64_t k2 = 0; k2 < KK[2]; k2++) {
                                    const int64_t kk[3] = {k0, k1, k2};
                                    int64_t pos[3];
                                    int in_input = 1, in_padded = 1;
                                    for (int d = 0; d < 3; d++) {
                                        pos[d] = o[d] * S[d] - PB[d] + kk[d] * (pass ? 1 : D[d]);
                                        if (pos[d] < 0 || pos[d] >= IN[d]) in_input = 0;
                                        if (pos[d] < -PB[d] || pos[d] >= IN[d] + PE[d]) in_padded = 0;
                                    }
                                    if (pass == 1) padded += in_padded;
                                    if (!in_input) continue;
                                    double v = x[(((size_t)pl * (size_t)IN[0] + (size_t)pos[0]) *
                                                  (size_t)IN[1] + (size_t)pos[1]) * (size_t)IN[2] +
                                                 (size_t)pos[2]];
                                    if (pass == 0) { mx = fmax(mx, v); max_cells++; }
                                    else { sum += v; inside++; }
                                }
                    }
                    wmax[yi] = max_cells ? mx : -FLT_MAX;
                    int64_t div = pc->exclude_pad ? inside : padded;
                    wavg[yi] = inside ? sum / (double)div : 0.0;
                    tol[yi] = 4 * FLT_EPSILON * (fabs(wavg[yi]) + 3.0) * (double)(inside + 1);
                }
    char what[200];
    snprintf(what, sizeof what,
             "%%s %dD excl %d ceil %d in %d,%d,%d k %d,%d,%d s %d,%d,%d d %d,%d,%d pb %d,%d,%d "
             "pe %d,%d,%d", pc->spatial, pc->exclude_pad, pc->ceil_mode, pc->in[0], pc->in[1],
             pc->in[2], pc->k[0], pc->k[1], pc->k[2], pc->s[0], pc->s[1], pc->s[2], pc->d[0],
             pc->d[1], pc->d[2], pc->pb[0], pc->pb[1], pc->pb[2], pc->pe[0], pc->pe[1], pc->pe[2]);
    char w1[260], w2[260];
    snprintf(w1, sizeof w1, what, "maxpool");
    snprintf(w2, sizeof w2, what, "avgpool");
    check_close(w1, ymax, wmax, NULL, ny);
    check_close(w2, yavg, wavg, tol, ny);
    free(x); free(ymax); free(yavg); free(wmax); free(wavg); free(tol);
}

static void test_pool_pads_never_win_and_avg_divisor_follows_exclude_pad(void **state)
{
    (void)state;
    /* all-negative input: a padded zero must not win the max */
    sim_shape xs = shp(4, 1, 1, 2, 2), ys = shp(4, 1, 1, 3, 3);
    float x[4] = {-1.0f, -2.0f, -3.0f, -4.0f}, y[9];
    sim_pool_params p;
    memset(&p, 0, sizeof p);
    p.spatial = 2;
    p.kernel[0] = p.kernel[1] = 2;
    p.strides[0] = p.strides[1] = 1;
    p.dilations[0] = p.dilations[1] = 1;
    p.pads_begin[0] = p.pads_begin[1] = 1;
    p.pads_end[0] = p.pads_end[1] = 1;
    sim_k_maxpool(x, &xs, &p, y, &ys);
    const float want_max[9] = {-1, -1, -2, -1, -1, -2, -3, -3, -4};
    assert_memory_equal(y, want_max, sizeof y);
    p.exclude_pad = 1;
    sim_k_avgpool(x, &xs, &p, y, &ys);
    const float want_ex[9] = {-1, -1.5f, -2, -2, -2.5f, -3, -3, -3.5f, -4};
    assert_memory_equal(y, want_ex, sizeof y);
    p.exclude_pad = 0;
    sim_k_avgpool(x, &xs, &p, y, &ys);
    const float want_in[9] = {-0.25f, -0.75f, -0.5f, -1, -2.5f, -1.5f, -0.75f, -1.75f, -1};
    assert_memory_equal(y, want_in, sizeof y);
    /* ceil-mode window running past input + pads_end: the part beyond the pads is
     * not counted even without exclude_pad. in 5, k 2, s 2, pads 0: outputs 3. */
    sim_shape xs1 = shp(3, 1, 1, 5), ys1 = shp(3, 1, 1, 3);
    float x1[5] = {1, 2, 3, 4, 10}, y1[3];
    memset(&p, 0, sizeof p);
    p.spatial = 1;
    p.kernel[0] = 2;
    p.strides[0] = 2;
    p.dilations[0] = 1;
    sim_k_avgpool(x1, &xs1, &p, y1, &ys1);
    assert_true(y1[0] == 1.5f && y1[1] == 3.5f && y1[2] == 10.0f);
    sim_k_maxpool(x1, &xs1, &p, y1, &ys1);
    assert_true(y1[0] == 2.0f && y1[1] == 4.0f && y1[2] == 10.0f);
    /* a window wholly in padding averages to 0 with exclude_pad */
    sim_shape ys2 = shp(3, 1, 1, 4);
    float y2[4];
    p.kernel[0] = 1;
    p.strides[0] = 2;
    p.pads_begin[0] = 1;
    p.pads_end[0] = 2;
    p.exclude_pad = 1;
    sim_k_avgpool(x1, &xs1, &p, y2, &ys2);    /* windows at -1, 1, 3, 5 */
    assert_true(y2[0] == 0.0f && y2[1] == 2.0f && y2[2] == 4.0f && y2[3] == 0.0f);

    const pool_case fixed[] = {
        {2, 1, 2, 0, 0, {6, 6, 0}, {3, 3, 0}, {2, 2, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}},
        {2, 1, 2, 1, 1, {7, 5, 0}, {3, 2, 0}, {2, 2, 0}, {2, 1, 0}, {0, 1, 0}, {1, 0, 0}},
        {2, 2, 3, 0, 1, {7, 5, 0}, {3, 3, 0}, {3, 2, 0}, {1, 1, 0}, {1, 2, 0}, {2, 0, 0}},
        {1, 1, 3, 1, 0, {10, 0, 0}, {4, 0, 0}, {3, 0, 0}, {2, 0, 0}, {2, 0, 0}, {2, 0, 0}},
        {3, 1, 2, 0, 1, {4, 5, 6}, {2, 3, 2}, {2, 1, 2}, {1, 2, 1}, {1, 1, 0}, {0, 1, 1}},
        {3, 1, 1, 1, 0, {3, 3, 3}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        check_pool(&fixed[i]);
    for (int t = 0; t < 150; t++) {
        pool_case c;
        memset(&c, 0, sizeof c);
        c.spatial = rnd_int(1, 3);
        c.n = rnd_int(1, 2);
        c.c = rnd_int(1, 3);
        c.exclude_pad = rnd_int(0, 1);
        c.ceil_mode = rnd_int(0, 1);
        for (int i = 0; i < c.spatial; i++) {
            c.in[i] = rnd_int(1, c.spatial == 3 ? 6 : 11);
            c.k[i] = rnd_int(1, 4);
            c.s[i] = rnd_int(1, 3);
            c.d[i] = rnd_int(1, 2);
            c.pb[i] = rnd_int(0, c.k[i] - 1);
            c.pe[i] = rnd_int(0, c.k[i] - 1);
            while (c.in[i] + c.pb[i] + c.pe[i] < c.d[i] * (c.k[i] - 1) + 1)
                c.pe[i]++;
        }
        check_pool(&c);
    }
}

/* ---- data movement ----------------------------------------------------------------------- */

static void check_reduce(const sim_shape *xs, uint32_t mask)
{
    size_t nx = sim_shape_numel(xs), ny = 1, count = 1;
    for (int i = 0; i < xs->rank; i++) {
        if ((mask >> i) & 1) count *= (size_t)xs->d[i];
        else ny *= (size_t)xs->d[i];
    }
    float *x = rnd_buf(nx, -2, 2), *y = alloc_f(ny);
    double *want = alloc_d(ny), *mag = alloc_d(ny), *tol = alloc_d(ny);
    for (size_t i = 0; i < nx; i++) {
        int64_t idx[SIM_K_MAX_RANK];
        unravel(i, xs, idx);
        size_t o = 0;
        for (int d = 0; d < xs->rank; d++)
            if (!((mask >> d) & 1)) o = o * (size_t)xs->d[d] + (size_t)idx[d];
        want[o] += x[i];
        mag[o] += fabs(x[i]);
    }
    char ss[96], what[160];
    shape_str(xs, ss, sizeof ss);
    for (int mean = 0; mean < 2; mean++) {
        for (size_t o = 0; o < ny; o++) {
            double w = mean ? want[o] / (double)count : want[o];
            tol[o] = sum_tol(mean ? mag[o] / (double)count : mag[o], count) + FLT_EPSILON * fabs(w);
        }
        double *wm = alloc_d(ny);
        for (size_t o = 0; o < ny; o++)
            wm[o] = mean ? want[o] / (double)count : want[o];
        sim_k_reduce(mean, x, xs, mask, y);
        snprintf(what, sizeof what, "reduce%s %s mask 0x%x", mean ? "mean" : "sum", ss, mask);
        check_close(what, y, wm, tol, ny);
        free(wm);
    }
    free(x); free(y); free(want); free(mag); free(tol);
}

static void test_reduce_sum_and_mean_over_any_axes(void **state)
{
    (void)state;
    sim_shape s0 = shp(0), s1 = shp(1, 9), s = shp(4, 2, 3, 4, 5), ones = shp(3, 1, 4, 1);
    check_reduce(&s0, 0);
    check_reduce(&s1, 1);
    check_reduce(&s1, 0);                     /* nothing reduced: a copy */
    check_reduce(&ones, 0x5);
    check_reduce(&ones, 0x2);
    for (uint32_t m = 0; m < 16; m++)
        check_reduce(&s, m);
    for (int t = 0; t < 80; t++) {
        sim_shape r = shp(0);
        r.rank = rnd_int(1, 6);
        for (int i = 0; i < r.rank; i++) r.d[i] = rnd_int(1, 6);
        check_reduce(&r, (uint32_t)rnd_int(0, (1 << r.rank) - 1));
    }
    /* a long reduction stays accurate */
    sim_shape lng = shp(2, 3, 100000);
    check_reduce(&lng, 0x2);
    check_reduce(&lng, 0x1);
}

static void check_transpose(const sim_shape *xs, const int *perm)
{
    size_t n = sim_shape_numel(xs);
    float *x = rnd_buf(n, -1, 1), *y = alloc_f(n);
    double *want = alloc_d(n);
    sim_shape ys = *xs;
    for (int i = 0; i < xs->rank; i++) ys.d[i] = xs->d[perm[i]];
    for (size_t o = 0; o < n; o++) {
        int64_t oi[SIM_K_MAX_RANK], ii[SIM_K_MAX_RANK];
        unravel(o, &ys, oi);
        for (int i = 0; i < xs->rank; i++) ii[perm[i]] = oi[i];
        size_t off = 0;
        for (int i = 0; i < xs->rank; i++) off = off * (size_t)xs->d[i] + (size_t)ii[i];
        want[o] = x[off];
    }
    sim_k_transpose(x, xs, perm, y);
    char ss[96], what[200];
    shape_str(xs, ss, sizeof ss);
    int o = snprintf(what, sizeof what, "transpose %s perm", ss);
    for (int i = 0; i < xs->rank && o < (int)sizeof what; i++)
        o += snprintf(what + o, sizeof what - (size_t)o, " %d", perm[i]);
    check_close(what, y, want, NULL, n);
    free(x); free(y); free(want);
}

static void test_transpose_any_permutation(void **state)
{
    (void)state;
    sim_shape s0 = shp(0), s1 = shp(1, 5), m = shp(2, 100, 70), c = shp(4, 1, 3, 45, 37);
    int p0[1] = {0}, p10[2] = {1, 0}, nchw2nhwc[4] = {0, 2, 3, 1}, nhwc2nchw[4] = {0, 3, 1, 2};
    int id4[4] = {0, 1, 2, 3}, swap_last[4] = {0, 1, 3, 2};
    check_transpose(&s0, p0);
    check_transpose(&s1, p0);
    check_transpose(&m, p10);
    check_transpose(&c, nchw2nhwc);
    check_transpose(&c, nhwc2nchw);
    check_transpose(&c, id4);
    check_transpose(&c, swap_last);
    for (int t = 0; t < 200; t++) {
        sim_shape r = shp(0);
        int perm[SIM_K_MAX_RANK];
        r.rank = rnd_int(1, 6);
        for (int i = 0; i < r.rank; i++) {
            r.d[i] = rnd_int(1, 7);
            perm[i] = i;
        }
        for (int i = r.rank - 1; i > 0; i--) {
            int j = rnd_int(0, i), tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
        }
        check_transpose(&r, perm);
    }
}

static void test_slice_axis_any_start_step_and_count(void **state)
{
    (void)state;
    for (int t = 0; t < 400; t++) {
        sim_shape xs = shp(0);
        xs.rank = rnd_int(1, 5);
        for (int i = 0; i < xs.rank; i++)
            xs.d[i] = rnd_int(1, 6);
        int axis = rnd_int(0, xs.rank - 1);
        int64_t dim = xs.d[axis], start = rnd_int(0, (int)dim - 1), step, count;
        switch (t % 4) {
        case 0: step = rnd_int(1, 3); count = (dim - 1 - start) / step + 1; break;
        case 1: step = -rnd_int(1, 3); count = start / -step + 1; break;
        case 2: step = 0; count = rnd_int(0, 7); break;         /* one index repeated */
        default: step = rnd_int(-2, 2); count = 0; break;        /* nothing */
        }
        if (count > 0 && t % 8 < 4)
            count = rnd_int(1, (int)count);                      /* stop early */
        sim_shape ys = xs;
        ys.d[axis] = count;
        size_t nx = sim_shape_numel(&xs), ny = sim_shape_numel(&ys);
        float *x = rnd_buf(nx, -5, 5), *y = alloc_f(ny);
        double *want = alloc_d(ny);
        for (size_t i = 0; i < ny; i++) {
            int64_t idx[SIM_K_MAX_RANK];
            unravel(i, &ys, idx);
            idx[axis] = start + idx[axis] * step;
            size_t off = 0;
            for (int k = 0; k < xs.rank; k++)
                off = off * (size_t)xs.d[k] + (size_t)idx[k];
            want[i] = x[off];
        }
        sim_k_slice_axis(x, &xs, axis, start, step, y, count);
        char sx[96], what[200];
        shape_str(&xs, sx, sizeof sx);
        snprintf(what, sizeof what, "slice %s axis %d start %lld step %lld count %lld", sx, axis,
                 (long long)start, (long long)step, (long long)count);
        check_close(what, y, want, NULL, ny);
        free(x);
        free(y);
        free(want);
    }
}

static void test_concat_along_each_axis(void **state)
{
    (void)state;
    for (int t = 0; t < 100; t++) {
        int rank = rnd_int(1, 4), n = rnd_int(1, 4), axis = rnd_int(0, rank - 1);
        sim_shape shapes[4];
        const float *xs[4];
        float *bufs[4];
        sim_shape ys = shp(0);
        ys.rank = rank;
        for (int i = 0; i < rank; i++) ys.d[i] = rnd_int(1, 5);
        ys.d[axis] = 0;
        for (int k = 0; k < n; k++) {
            shapes[k] = ys;
            shapes[k].d[axis] = rnd_int(0, 4);   /* empty inputs allowed */
            ys.d[axis] += shapes[k].d[axis];
            bufs[k] = rnd_buf(sim_shape_numel(&shapes[k]), -1, 1);
            xs[k] = bufs[k];
        }
        size_t ny = sim_shape_numel(&ys);
        float *y = alloc_f(ny);
        double *want = alloc_d(ny);
        for (size_t o = 0; o < ny; o++) {
            int64_t idx[SIM_K_MAX_RANK];
            unravel(o, &ys, idx);
            int k = 0;
            while (idx[axis] >= shapes[k].d[axis]) idx[axis] -= shapes[k++].d[axis];
            size_t off = 0;
            for (int i = 0; i < rank; i++) off = off * (size_t)shapes[k].d[i] + (size_t)idx[i];
            want[o] = bufs[k][off];
        }
        sim_k_concat(xs, shapes, n, axis, y);
        char ss[96], what[160];
        shape_str(&ys, ss, sizeof ss);
        snprintf(what, sizeof what, "concat of %d into %s axis %d", n, ss, axis);
        check_close(what, y, want, NULL, ny);
        for (int k = 0; k < n; k++) free(bufs[k]);
        free(y);
        free(want);
    }
}

/* ---- throughput report (informational; the results are also checked) ------------------ */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- resampling ------------------------------------------------------------------ */
/* Interpolate-4/11. The oracle: the worked cases below are hand-computed from the
 * formulas of OpenVINO's op specification (interpolate-4.rst, interpolate-11.rst:
 * GetOriginalCoordinate, GetNearestPixel, linear_interpolation and
 * onnx_linear_interpolation), and ref_interpolate is those formulas written out
 * literally (every axis for nearest, the 5-wide window for linear, the 2^k corners
 * for linear_onnx), in float like OpenVINO's reference implementation. */

static sim_interp_params interp_p(int mode, int coord, int nearest, int n_axes, const int *axes,
                                  const float *scales)
{
    sim_interp_params p;
    memset(&p, 0, sizeof p);
    p.mode = mode;
    p.coord = coord;
    p.nearest = nearest;
    p.n_axes = n_axes;
    for (int i = 0; i < n_axes; i++) {
        p.axes[i] = axes[i];
        p.scales[i] = scales[i];
    }
    return p;
}

static float spec_source(int coord, float o, float scale, float out_len, float in_len)
{
    if (scale == 1.0f || out_len == in_len)
        return o;
    switch (coord) {
    case SIM_INTERP_HALF_PIXEL: return (o + 0.5f) / scale - 0.5f;
    case SIM_INTERP_PYTORCH_HALF_PIXEL: return out_len > 1.0f ? (o + 0.5f) / scale - 0.5f : 0.0f;
    case SIM_INTERP_ASYMMETRIC: return o / scale;
    case SIM_INTERP_TF_HALF_PIXEL_FOR_NN: return (o + 0.5f) / scale;
    default: return out_len == 1.0f ? 0.0f : o * (in_len - 1.0f) / (out_len - 1.0f);
    }
}

static long long spec_nearest(int mode, float v, int down)
{
    switch (mode) {
    case SIM_INTERP_ROUND_PREFER_FLOOR:
        return v == (float)(long long)v + 0.5f ? (long long)floorf(v) : (long long)roundf(v);
    case SIM_INTERP_ROUND_PREFER_CEIL: return (long long)roundf(v);
    case SIM_INTERP_FLOOR: return (long long)floorf(v);
    case SIM_INTERP_CEIL: return (long long)ceilf(v);
    default: return down ? (long long)ceilf(v) : (long long)v;
    }
}

static size_t flat(const sim_shape *s, const long long *c)
{
    size_t i = 0;
    for (int d = 0; d < s->rank; d++)
        i = i * (size_t)s->d[d] + (size_t)c[d];
    return i;
}

static int next_coord(const sim_shape *s, long long *c)
{
    for (int d = s->rank - 1; d >= 0; d--) {
        if (++c[d] < s->d[d])
            return 1;
        c[d] = 0;
    }
    return 0;
}

static void ref_interpolate(const float *x, const sim_shape *xs, const sim_interp_params *p,
                            double *want, const sim_shape *ys)
{
    int r = xs->rank, k = p->n_axes;
    float all[SIM_K_MAX_RANK];
    for (int d = 0; d < r; d++)
        all[d] = 1.0f;
    for (int i = 0; i < k; i++)
        all[p->axes[i]] = p->scales[i];
    long long o[SIM_K_MAX_RANK] = {0};
    if (sim_shape_numel(ys) == 0)
        return;
    do {
        long long ic[SIM_K_MAX_RANK];
        memcpy(ic, o, sizeof ic);
        if (p->mode == SIM_INTERP_NEAREST) {
            for (int d = 0; d < r; d++) {
                float v = spec_source(p->coord, (float)o[d], all[d], (float)ys->d[d], (float)xs->d[d]);
                long long n = spec_nearest(p->nearest, v, all[d] < 1.0f);
                ic[d] = n < 0 ? 0 : n > xs->d[d] - 1 ? xs->d[d] - 1 : n;
            }
            want[flat(ys, o)] = x[flat(xs, ic)];
        } else if (p->mode == SIM_INTERP_LINEAR) {
            float icoord[SIM_K_MAX_RANK];
            long long icr[SIM_K_MAX_RANK], idx[SIM_K_MAX_RANK] = {0};
            for (int i = 0; i < k; i++) {
                int a = p->axes[i];
                icoord[i] = spec_source(p->coord, (float)o[a], p->scales[i], (float)ys->d[a],
                                        (float)xs->d[a]);
                icr[i] = (long long)roundf(icoord[i]);
            }
            float summa = 0.0f, wsum = 0.0f;
            for (;;) {   /* indices over [5]^k, the first axis outermost */
                int inside = 1;
                float w = 1.0f;
                for (int i = 0; i < k; i++) {
                    long long at = idx[i] + icr[i] - 2;
                    inside &= at >= 0 && at < xs->d[p->axes[i]];
                    ic[p->axes[i]] = at;
                }
                if (inside) {
                    for (int i = 0; i < k; i++)
                        w *= fmaxf(0.0f, 1.0f - fabsf(icoord[i] - (float)ic[p->axes[i]]));
                    wsum += w;
                    summa += w * x[flat(xs, ic)];
                }
                int i = k - 1;
                while (i >= 0 && ++idx[i] == 5)
                    idx[i--] = 0;
                if (i < 0)
                    break;
            }
            float v = wsum == 0.0f ? 0.0f : summa / wsum;
            want[flat(ys, o)] = p->round_to_int ? roundf(v) : v;
        } else {
            int ax[SIM_K_MAX_RANK], n = 0;   /* the axes by dimension */
            float sc[SIM_K_MAX_RANK];
            for (int d = 0; d < r; d++)
                for (int i = 0; i < k; i++)
                    if (p->axes[i] == d) {
                        ax[n] = d;
                        sc[n++] = p->scales[i];
                    }
            long long in1[SIM_K_MAX_RANK], in2[SIM_K_MAX_RANK];
            float d1[SIM_K_MAX_RANK], d2[SIM_K_MAX_RANK];
            for (int j = 0; j < k; j++) {
                long long len = xs->d[ax[j]];
                float v = spec_source(p->coord, (float)o[ax[j]], sc[j], (float)ys->d[ax[j]], (float)len);
                v = fmaxf(0.0f, fminf(v, (float)(len - 1)));
                in1[j] = (long long)v < len - 1 ? (long long)v : len - 1;
                in2[j] = in1[j] + 1 < len - 1 ? in1[j] + 1 : len - 1;
                d1[j] = fabsf(v - (float)in1[j]);
                d2[j] = fabsf(v - (float)in2[j]);
                if (in1[j] == in2[j])
                    d1[j] = d2[j] = 0.5f;
            }
            float sum = 0.0f;
            for (long long corner = 0; corner < (1LL << k); corner++) {
                float coeff = 1.0f;
                for (int j = 0; j < k; j++) {
                    int bit = (int)((corner >> (k - 1 - j)) & 1);
                    coeff *= bit ? d1[j] : d2[j];
                    ic[ax[j]] = bit ? in2[j] : in1[j];
                }
                sum += coeff * x[flat(xs, ic)];
            }
            want[flat(ys, o)] = sum;
        }
    } while (next_coord(ys, o));
}

/* One axis of a [1,1,1,n] tensor: x = 10, 20, ... ; want = the input indices picked
 * (nearest) or the values (other modes). */
static void check_1d(const char *what, int mode, int coord, int nearest, int n_in, int n_out,
                     float scale, const double *want)
{
    float x[8], y[8];
    for (int i = 0; i < n_in; i++)
        x[i] = 10.0f * (float)(i + 1);
    sim_shape xs = shp(4, 1, 1, 1, n_in), ys = shp(4, 1, 1, 1, n_out);
    int axes[1] = {3};
    sim_interp_params p = interp_p(mode, coord, nearest, 1, axes, &scale);
    sim_k_interpolate(x, &xs, &p, y, &ys);
    double w[8];
    for (int i = 0; i < n_out; i++)
        w[i] = mode == SIM_INTERP_NEAREST ? 10.0 * (want[i] + 1) : want[i];
    check_close(what, y, w, NULL, (size_t)n_out);
}

static void test_interpolate_nearest_every_rounding_and_coordinate_mode(void **state)
{
    (void)state;
    /* half_pixel, 4 -> 2 (scale 0.5): source (o + 0.5) / 0.5 - 0.5 = 0.5, 2.5: exact
     * halves, so the five nearest modes part ways; simple is ceil when downsampling. */
    const double hp_down[5][2] = {{0, 2}, {1, 3}, {0, 2}, {1, 3}, {1, 3}};
    /* half_pixel, 2 -> 4 (scale 2): -0.25, 0.25, 0.75, 1.25; simple truncates. */
    const double hp_up[5][4] = {{0, 0, 1, 1}, {0, 0, 1, 1}, {0, 0, 0, 1}, {0, 1, 1, 1}, {0, 0, 0, 1}};
    static const char *names[5] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"};
    for (int m = 0; m < 5; m++) {
        char what[96];
        snprintf(what, sizeof what, "nearest half_pixel 4->2 %s", names[m]);
        check_1d(what, SIM_INTERP_NEAREST, SIM_INTERP_HALF_PIXEL, m, 4, 2, 0.5f, hp_down[m]);
        snprintf(what, sizeof what, "nearest half_pixel 2->4 %s", names[m]);
        check_1d(what, SIM_INTERP_NEAREST, SIM_INTERP_HALF_PIXEL, m, 2, 4, 2.0f, hp_up[m]);
    }
    /* asymmetric 2 -> 4: o / 2 = 0, 0.5, 1, 1.5 */
    const double asym_floor[4] = {0, 0, 1, 1}, asym_ceil[4] = {0, 1, 1, 1};
    check_1d("nearest asymmetric prefer_floor", SIM_INTERP_NEAREST, SIM_INTERP_ASYMMETRIC,
             SIM_INTERP_ROUND_PREFER_FLOOR, 2, 4, 2.0f, asym_floor);
    check_1d("nearest asymmetric prefer_ceil", SIM_INTERP_NEAREST, SIM_INTERP_ASYMMETRIC,
             SIM_INTERP_ROUND_PREFER_CEIL, 2, 4, 2.0f, asym_ceil);
    /* tf_half_pixel_for_nn 2 -> 4: (o + 0.5) / 2 = 0.25, 0.75, 1.25, 1.75 */
    const double tf[4] = {0, 1, 1, 1};
    check_1d("nearest tf_half_pixel_for_nn", SIM_INTERP_NEAREST, SIM_INTERP_TF_HALF_PIXEL_FOR_NN,
             SIM_INTERP_ROUND_PREFER_FLOOR, 2, 4, 2.0f, tf);
    /* align_corners 3 -> 5: o * 2 / 4 = 0, 0.5, 1, 1.5, 2 (the scale is not used) */
    const double ac_floor[5] = {0, 0, 1, 1, 2}, ac_ceil[5] = {0, 1, 1, 2, 2};
    check_1d("nearest align_corners prefer_floor", SIM_INTERP_NEAREST, SIM_INTERP_ALIGN_CORNERS,
             SIM_INTERP_ROUND_PREFER_FLOOR, 3, 5, 5.0f / 3.0f, ac_floor);
    check_1d("nearest align_corners prefer_ceil", SIM_INTERP_NEAREST, SIM_INTERP_ALIGN_CORNERS,
             SIM_INTERP_ROUND_PREFER_CEIL, 3, 5, 5.0f / 3.0f, ac_ceil);
    /* 3 -> 1 (scale 1/3): pytorch_half_pixel gives 0 for a length-1 output,
     * half_pixel (0.5 * 3) - 0.5 = 1 */
    const double pt[1] = {0}, hp[1] = {1};
    check_1d("nearest pytorch_half_pixel to length 1", SIM_INTERP_NEAREST,
             SIM_INTERP_PYTORCH_HALF_PIXEL, SIM_INTERP_ROUND_PREFER_FLOOR, 3, 1, 1.0f / 3.0f, pt);
    check_1d("nearest half_pixel to length 1", SIM_INTERP_NEAREST, SIM_INTERP_HALF_PIXEL,
             SIM_INTERP_ROUND_PREFER_FLOOR, 3, 1, 1.0f / 3.0f, hp);
    /* equal lengths are the identity whatever the scale says */
    const double same[3] = {0, 1, 2};
    check_1d("nearest equal lengths", SIM_INTERP_NEAREST, SIM_INTERP_ASYMMETRIC, SIM_INTERP_FLOOR,
             3, 3, 0.25f, same);
}

static void test_interpolate_linear_modes_every_coordinate_mode(void **state)
{
    (void)state;
    /* x = 10, 20 upsampled to 4. half_pixel / pytorch_half_pixel: sources -0.25,
     * 0.25, 0.75, 1.25 -> clamped (linear_onnx) or renormalised inside (linear):
     * 10, 0.75*10+0.25*20, 0.25*10+0.75*20, 20 */
    const double hp[4] = {10, 12.5, 17.5, 20};
    /* asymmetric: 0, 0.5, 1, 1.5 -> 10, 15, 20, 20 */
    const double asym[4] = {10, 15, 20, 20};
    /* tf_half_pixel_for_nn: 0.25, 0.75, 1.25, 1.75 -> 12.5, 17.5, 20, 20 */
    const double tf[4] = {12.5, 17.5, 20, 20};
    /* align_corners 2 -> 3: 0, 0.5, 1 */
    const double ac[3] = {10, 15, 20};
    for (int mode = SIM_INTERP_LINEAR; mode <= SIM_INTERP_LINEAR_ONNX; mode++) {
        const char *mn = mode == SIM_INTERP_LINEAR ? "linear" : "linear_onnx";
        char what[96];
        snprintf(what, sizeof what, "%s half_pixel", mn);
        check_1d(what, mode, SIM_INTERP_HALF_PIXEL, 0, 2, 4, 2.0f, hp);
        snprintf(what, sizeof what, "%s pytorch_half_pixel", mn);
        check_1d(what, mode, SIM_INTERP_PYTORCH_HALF_PIXEL, 0, 2, 4, 2.0f, hp);
        snprintf(what, sizeof what, "%s asymmetric", mn);
        check_1d(what, mode, SIM_INTERP_ASYMMETRIC, 0, 2, 4, 2.0f, asym);
        snprintf(what, sizeof what, "%s tf_half_pixel_for_nn", mn);
        check_1d(what, mode, SIM_INTERP_TF_HALF_PIXEL_FOR_NN, 0, 2, 4, 2.0f, tf);
        snprintf(what, sizeof what, "%s align_corners", mn);
        check_1d(what, mode, SIM_INTERP_ALIGN_CORNERS, 0, 2, 3, 1.5f, ac);
        /* 2 -> 1 (scale 0.5): pytorch_half_pixel reads 0, half_pixel 0.5 */
        const double pt1[1] = {10}, hp1[1] = {15};
        snprintf(what, sizeof what, "%s pytorch_half_pixel to length 1", mn);
        check_1d(what, mode, SIM_INTERP_PYTORCH_HALF_PIXEL, 0, 2, 1, 0.5f, pt1);
        snprintf(what, sizeof what, "%s half_pixel to length 1", mn);
        check_1d(what, mode, SIM_INTERP_HALF_PIXEL, 0, 2, 1, 0.5f, hp1);
        /* 4 -> 2 half_pixel: 0.5 and 2.5, halfway between neighbours */
        const double down[2] = {15, 35};
        snprintf(what, sizeof what, "%s half_pixel 4->2", mn);
        check_1d(what, mode, SIM_INTERP_HALF_PIXEL, 0, 4, 2, 0.5f, down);
    }
    /* Where the two differ: a source beyond the input. asymmetric with scale 0.5 from
     * 2 to 4 reads 0, 2, 4, 6: linear has no neighbour with a weight there (0),
     * linear_onnx clamps to the last element. */
    const double lin_out[4] = {10, 0, 0, 0}, onnx_out[4] = {10, 20, 20, 20};
    check_1d("linear source past the end", SIM_INTERP_LINEAR, SIM_INTERP_ASYMMETRIC, 0, 2, 4, 0.5f,
             lin_out);
    check_1d("linear_onnx source past the end", SIM_INTERP_LINEAR_ONNX, SIM_INTERP_ASYMMETRIC, 0, 2,
             4, 0.5f, onnx_out);

    /* 2-D, [[1,2],[3,4]] to 4x4 with half_pixel: rows weigh like the columns. */
    const float x[4] = {1, 2, 3, 4};
    const double want[16] = {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5,
                             2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4};
    sim_shape xs = shp(4, 1, 1, 2, 2), ys = shp(4, 1, 1, 4, 4);
    int axes[2] = {2, 3};
    float sc[2] = {2.0f, 2.0f};
    for (int mode = SIM_INTERP_LINEAR; mode <= SIM_INTERP_LINEAR_ONNX; mode++) {
        float y[16];
        sim_interp_params p = interp_p(mode, SIM_INTERP_HALF_PIXEL, 0, 2, axes, sc);
        sim_k_interpolate(x, &xs, &p, y, &ys);
        check_close(mode == SIM_INTERP_LINEAR ? "linear 2x2->4x4" : "linear_onnx 2x2->4x4", y, want,
                    NULL, 16);
    }
    /* Integer types: linear rounds half away from zero (0, 2.5, 7.5, 10 -> 0, 3, 8, 10);
     * linear_onnx leaves the fraction to the conversion, which truncates. */
    const float xi[2] = {0, 10};
    float yi[4];
    sim_shape xs1 = shp(4, 1, 1, 1, 2), ys1 = shp(4, 1, 1, 1, 4);
    int ax1[1] = {3};
    float s2 = 2.0f;
    sim_interp_params pr = interp_p(SIM_INTERP_LINEAR, SIM_INTERP_HALF_PIXEL, 0, 1, ax1, &s2);
    pr.round_to_int = 1;
    sim_k_interpolate(xi, &xs1, &pr, yi, &ys1);
    const double rounded[4] = {0, 3, 8, 10};
    check_close("linear rounds for integer types", yi, rounded, NULL, 4);
}

static void test_interpolate_nhwc_axes_match_nchw(void **state)
{
    (void)state;
    /* The same image as [1,H,W,C] with axes {1,2} and as [1,C,H,W] with axes {2,3}. */
    int h = 3, w = 5, ch = 3, oh = 7, ow = 2;
    float *nchw = rnd_buf((size_t)(ch * h * w), 0, 255), nhwc[45];
    for (int c = 0; c < ch; c++)
        for (int i = 0; i < h * w; i++)
            nhwc[i * ch + c] = nchw[c * h * w + i];
    sim_shape xa = shp(4, 1, ch, h, w), ya = shp(4, 1, ch, oh, ow);
    sim_shape xb = shp(4, 1, h, w, ch), yb = shp(4, 1, oh, ow, ch);
    int axes_a[2] = {2, 3}, axes_b[2] = {1, 2};
    float sc[2] = {(float)oh / (float)h, (float)ow / (float)w};
    for (int mode = 0; mode < 3; mode++)
        for (int coord = 0; coord < 5; coord++) {
            float ya_v[42], yb_v[42];
            sim_interp_params pa = interp_p(mode, coord, SIM_INTERP_ROUND_PREFER_CEIL, 2, axes_a, sc);
            sim_interp_params pb = interp_p(mode, coord, SIM_INTERP_ROUND_PREFER_CEIL, 2, axes_b, sc);
            sim_k_interpolate(nchw, &xa, &pa, ya_v, &ya);
            sim_k_interpolate(nhwc, &xb, &pb, yb_v, &yb);
            double want[42];
            for (int c = 0; c < ch; c++)
                for (int i = 0; i < oh * ow; i++)
                    want[i * ch + c] = ya_v[c * oh * ow + i];
            char what[64];
            snprintf(what, sizeof what, "NHWC mode %d coord %d", mode, coord);
            check_close(what, yb_v, want, NULL, 42);
        }
    free(nchw);
}

static void test_interpolate_random_cases_follow_the_spec_formulas(void **state)
{
    (void)state;
    for (int t = 0; t < 600; t++) {
        sim_shape xs = shp(0), ys = shp(0);
        xs.rank = ys.rank = rnd_int(1, 4);
        for (int d = 0; d < xs.rank; d++)
            ys.d[d] = xs.d[d] = rnd_int(1, 5);
        int mode = rnd_int(0, 2), coord = rnd_int(0, 4), nearest = rnd_int(0, 4);
        int axes[SIM_K_MAX_RANK], k = 0;
        float sc[SIM_K_MAX_RANK];
        for (int d = 0; d < xs.rank; d++)
            if (rnd_int(0, 2))
                axes[k++] = d;
        if (!k)
            axes[k++] = rnd_int(0, xs.rank - 1);
        for (int i = k - 1; i > 0; i--) {   /* any order */
            int j = rnd_int(0, i), tmp = axes[i];
            axes[i] = axes[j];
            axes[j] = tmp;
        }
        for (int i = 0; i < k; i++) {
            int a = axes[i];
            if (rnd_int(0, 1)) {            /* sizes: the scale is out / in */
                ys.d[a] = rnd_int(1, 9);
                sc[i] = (float)ys.d[a] / (float)xs.d[a];
            } else {                        /* scales: floor(in * (scale + 1e-6)) */
                sc[i] = rnd_float(0.3f, 3.0f);
                ys.d[a] = (int64_t)((float)xs.d[a] * (sc[i] + 1e-6f));
                if (ys.d[a] < 1)
                    ys.d[a] = 1;
            }
        }
        sim_interp_params p = interp_p(mode, coord, nearest, k, axes, sc);
        p.round_to_int = mode == SIM_INTERP_LINEAR && rnd_int(0, 3) == 0;
        size_t nx = sim_shape_numel(&xs), ny = sim_shape_numel(&ys);
        float *x = rnd_buf(nx, -4, 4), *y = alloc_f(ny);
        double *want = alloc_d(ny);
        sim_k_interpolate(x, &xs, &p, y, &ys);
        ref_interpolate(x, &xs, &p, want, &ys);
        char what[256], a[64], b[64];
        shape_str(&xs, a, sizeof a);
        shape_str(&ys, b, sizeof b);
        snprintf(what, sizeof what, "case %d: mode %d coord %d nearest %d %s -> %s", t, mode, coord,
                 nearest, a, b);
        check_close(what, y, want, NULL, ny);
        free(x);
        free(y);
        free(want);
    }
}

static void test_interpolate_survives_any_scale(void **state)
{
    (void)state;
    /* A crafted native blob can carry any scale; indices must stay inside x. */
    const float bad[] = {0.0f, -1.0f, 1e-30f, 1e30f, INFINITY, -INFINITY, NAN};
    float x[6] = {1, 2, 3, 4, 5, 6}, y[12];
    sim_shape xs = shp(2, 2, 3), ys = shp(2, 3, 4);
    int axes[2] = {0, 1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int mode = 0; mode < 3; mode++)
            for (int coord = 0; coord < 5; coord++)
                for (int nearest = 0; nearest < 5; nearest++) {
                    float sc[2] = {bad[i], 2.0f};
                    sim_interp_params p = interp_p(mode, coord, nearest, 2, axes, sc);
                    sim_k_interpolate(x, &xs, &p, y, &ys);
                    for (int e = 0; e < 12; e++)
                        if (!(isnan(y[e]) || (y[e] >= 0.0f && y[e] <= 6.0f)))
                            FAIL("scale %g mode %d: element %d = %g", (double)bad[i], mode, e,
                                 (double)y[e]);
                }
}

static void test_report_matmul_and_conv_throughput(void **state)
{
    (void)state;
    sim_shape s = shp(2, 256, 256);
    float *a = rnd_buf(65536, -1, 1), *b = rnd_buf(65536, -1, 1), *c = alloc_f(65536);
    double best = 1e9;
    for (int r = 0; r < 3; r++) {
        double t = now_s();
        sim_k_matmul(a, &s, 0, b, &s, 0, c, &s);
        t = now_s() - t;
        best = t < best ? t : best;
    }
    /* spot-check a few entries */
    for (int i = 0; i < 256; i += 51) {
        double ref = 0, mag = 0;
        for (int k = 0; k < 256; k++) {
            ref += (double)a[i * 256 + k] * b[k * 256 + (255 - i)];
            mag += fabs((double)a[i * 256 + k] * b[k * 256 + (255 - i)]);
        }
        assert_true(fabs(c[i * 256 + 255 - i] - ref) <= sum_tol(mag, 256));
    }
    double mm = 2.0 * 256 * 256 * 256 / best / 1e9;
    sim_shape xs = shp(4, 1, 32, 56, 56), ws = shp(4, 32, 32, 3, 3);
    float *x = rnd_buf(32 * 56 * 56, -1, 1), *w = rnd_buf(32 * 32 * 9, -1, 1),
          *y = alloc_f(32 * 56 * 56);
    sim_conv_params p = {2, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
    best = 1e9;
    for (int r = 0; r < 3; r++) {
        double t = now_s();
        sim_k_conv(x, &xs, w, &ws, &p, y, &xs);
        t = now_s() - t;
        best = t < best ? t : best;
    }
    double cv = 2.0 * 32 * 32 * 9 * 56 * 56 / best / 1e9;
    printf("[ perf     ] matmul 256x256x256: %.2f GFLOP/s; conv 1x32x56x56 3x3 -> 32: %.2f GFLOP/s\n",
           mm, cv);
    assert_false(isnan(y[0]));
    free(a); free(b); free(c); free(x); free(w); free(y);
}

int main(void)
{
    const char *env = getenv("KERNELS_SEED");
    if (env && *env)
        g_seed = strtoull(env, NULL, 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_f16_every_value_roundtrips_bit_exactly, reseed),
        cmocka_unit_test_setup(test_f16_rounds_to_nearest_even_with_subnormals_and_overflow, reseed),
        cmocka_unit_test_setup(test_bf16_every_value_roundtrips_and_rounds_to_nearest_even, reseed),
        cmocka_unit_test_setup(test_integer_conversions_truncate_and_saturate, reseed),
        cmocka_unit_test_setup(test_convert_op_rounds_through_the_target_type_in_place, reseed),
        cmocka_unit_test_setup(test_binary_broadcasts_numpy_style, reseed),
        cmocka_unit_test_setup(test_unary_ops_match_libm_and_alias, reseed),
        cmocka_unit_test_setup(test_activations_follow_the_spec_formulas, reseed),
        cmocka_unit_test_setup(test_activations_on_integers_round_as_the_reference, reseed),
        cmocka_unit_test_setup(test_swish_beta_broadcasts_as_a_scalar, reseed),
        cmocka_unit_test_setup(test_power_and_prelu_broadcast_numpy_style, reseed),
        cmocka_unit_test_setup(test_clamp_bounds_both_sides_in_place, reseed),
        cmocka_unit_test_setup(test_softmax_any_axis_is_stable_for_large_logits, reseed),
        cmocka_unit_test_setup(test_matmul_batched_broadcast_and_transposes, reseed),
        cmocka_unit_test_setup(test_conv_strides_dilations_pads_groups_1d_to_3d, reseed),
        cmocka_unit_test_setup(test_pool_pads_never_win_and_avg_divisor_follows_exclude_pad, reseed),
        cmocka_unit_test_setup(test_reduce_sum_and_mean_over_any_axes, reseed),
        cmocka_unit_test_setup(test_transpose_any_permutation, reseed),
        cmocka_unit_test_setup(test_slice_axis_any_start_step_and_count, reseed),
        cmocka_unit_test_setup(test_concat_along_each_axis, reseed),
        cmocka_unit_test_setup(test_interpolate_nearest_every_rounding_and_coordinate_mode, reseed),
        cmocka_unit_test_setup(test_interpolate_linear_modes_every_coordinate_mode, reseed),
        cmocka_unit_test_setup(test_interpolate_nhwc_axes_match_nchw, reseed),
        cmocka_unit_test_setup(test_interpolate_random_cases_follow_the_spec_formulas, reseed),
        cmocka_unit_test_setup(test_interpolate_survives_any_scale, reseed),
        cmocka_unit_test_setup(test_report_matmul_and_conv_throughput, reseed),
    };
    return cmocka_run_group_tests_name("sim kernels", tests, NULL, NULL);
}
