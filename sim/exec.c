/* exec.c - runs a plan, and the checks that make running it safe.
 *
 * Sections: shared helpers (precisions, log), plan validation (used by the
 * compiler as a self-check and by import as the gate for untrusted blobs),
 * execution (one malloc'd f32 arena per run; kernels.h does the arithmetic),
 * and the small public accessors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/plan_internal.h"

/* ---- shared helpers ------------------------------------------------------- */

void sim_log_init(sim_log *l, char *buf, size_t cap)
{
    l->buf = cap ? buf : NULL;
    l->cap = cap;
    l->len = 0;
    if (l->buf)
        l->buf[0] = '\0';
}

void sim_log_add(sim_log *l, const char *fmt, ...)
{
    if (!l || !l->buf || l->len + 1 >= l->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(l->buf + l->len, l->cap - l->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    l->len += (size_t)n;
    if (l->len + 1 >= l->cap) {
        l->len = l->cap - 1;
        l->buf[l->len] = '\0';
        return;
    }
    l->buf[l->len++] = '\n';
    l->buf[l->len] = '\0';
}

uint32_t sim_prec_size(uint32_t prec)
{
    switch (prec) {
    case SIM_P_FP32: case SIM_P_I32: return 4;
    case SIM_P_FP16: case SIM_P_BF16: return 2;
    case SIM_P_U8: case SIM_P_I8: case SIM_P_BOOL: return 1;
    case SIM_P_I64: return 8;
    default: return 0;
    }
}

const char *sim_prec_name(uint32_t prec)
{
    switch (prec) {
    case SIM_P_FP32: return "FP32";
    case SIM_P_FP16: return "FP16";
    case SIM_P_BF16: return "BF16";
    case SIM_P_U8: return "U8";
    case SIM_P_I8: return "I8";
    case SIM_P_I32: return "I32";
    case SIM_P_I64: return "I64";
    case SIM_P_BOOL: return "BOOL";
    default: return "?";
    }
}

uint32_t sim_prec_meta(uint32_t prec)
{
    switch (prec) {
    case SIM_P_FP32: return 5;
    case SIM_P_FP16: return 4;
    case SIM_P_BF16: return 3;
    case SIM_P_U8: return 14;
    case SIM_P_I8: return 8;
    case SIM_P_I32: return 10;
    case SIM_P_I64: return 11;
    case SIM_P_BOOL: return 2;
    default: return 0;
    }
}

int sim_prec_is_integer(uint32_t prec)
{
    return prec == SIM_P_U8 || prec == SIM_P_I8 || prec == SIM_P_I32 || prec == SIM_P_I64 ||
           prec == SIM_P_BOOL;
}

/* Largest element count of one tensor: keeps every byte count far from overflow. */
#define SIM_MAX_NUMEL (UINT64_C(1) << 40)

uint64_t sim_tensor_numel(const sim_tensor *t, int *ok)
{
    *ok = 0;
    if (t->rank < 0 || t->rank > SIM_MAX_RANK)
        return 0;
    uint64_t n = 1;
    for (int i = 0; i < t->rank; i++) {
        if (t->d[i] < 0 || (uint64_t)t->d[i] > SIM_MAX_NUMEL)
            return 0;
        n *= (uint64_t)t->d[i];
        if (n > SIM_MAX_NUMEL)
            return 0;
    }
    *ok = 1;
    return n;
}

sim_shape sim_tensor_shape(const sim_tensor *t)
{
    sim_shape s;
    memset(&s, 0, sizeof s);
    s.rank = t->rank;
    for (int i = 0; i < t->rank && i < SIM_K_MAX_RANK; i++)
        s.d[i] = t->d[i];
    return s;
}

/* ---- validation ------------------------------------------------------------ */

static int same_dims(const sim_tensor *a, const sim_tensor *b)
{
    if (a->rank != b->rank)
        return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->d[i] != b->d[i])
            return 0;
    return 1;
}

static uint64_t numel_of(const sim_tensor *t)
{
    int ok;
    return sim_tensor_numel(t, &ok);
}

/* numpy broadcast of a[0..ra) and b[0..rb) into out; 0 when incompatible. */
static int broadcast_dims(const int64_t *a, int ra, const int64_t *b, int rb, int64_t *out, int *ro)
{
    int r = ra > rb ? ra : rb;
    for (int i = 0; i < r; i++) {
        int64_t x = i < r - ra ? 1 : a[i - (r - ra)];
        int64_t y = i < r - rb ? 1 : b[i - (r - rb)];
        if (x != y && x != 1 && y != 1)
            return 0;
        out[i] = x == 1 ? y : x;
    }
    *ro = r;
    return 1;
}

/* t repeats numpy-style onto y: rank at most y's, each dim y's or 1. */
static int broadcasts_onto(const sim_tensor *t, const sim_tensor *y)
{
    if (t->rank > y->rank)
        return 0;
    for (int i = 0; i < t->rank; i++) {
        int64_t a = t->d[i], b = y->d[i + y->rank - t->rank];
        if (a != b && a != 1)
            return 0;
    }
    return 1;
}

static int check_matmul(const sim_tensor *a, const sim_tensor *b, int ta, int tb, const sim_tensor *y)
{
    if (a->rank < 2 || b->rank < 2 || y->rank < 2)
        return 0;
    int64_t m = ta ? a->d[a->rank - 1] : a->d[a->rank - 2];
    int64_t ka = ta ? a->d[a->rank - 2] : a->d[a->rank - 1];
    int64_t kb = tb ? b->d[b->rank - 1] : b->d[b->rank - 2];
    int64_t n = tb ? b->d[b->rank - 2] : b->d[b->rank - 1];
    if (ka != kb)
        return 0;
    int64_t batch[SIM_MAX_RANK];
    int rb;
    if (!broadcast_dims(a->d, a->rank - 2, b->d, b->rank - 2, batch, &rb) || rb + 2 != y->rank)
        return 0;
    for (int i = 0; i < rb; i++)
        if (batch[i] != y->d[i])
            return 0;
    return y->d[rb] == m && y->d[rb + 1] == n;
}

static int check_window(const sim_step *s, const sim_tensor *x, const sim_tensor *y, int pool)
{
    if (s->spatial < 1 || s->spatial > SIM_K_MAX_SPATIAL || x->rank != s->spatial + 2 ||
        y->rank != x->rank || y->d[0] != x->d[0])
        return 0;
    if (pool && y->d[1] != x->d[1])
        return 0;
    for (int i = 0; i < s->spatial; i++) {
        int64_t k = s->kernel[i], st = s->strides[i], dl = s->dilations[i];
        int64_t pb = s->pads_begin[i], pe = s->pads_end[i], in = x->d[2 + i], o = y->d[2 + i];
        if (k < 1 || st < 1 || dl < 1 || pb < 0 || pe < 0 || k > (INT64_C(1) << 30) ||
            st > (INT64_C(1) << 30) ||
            dl > (INT64_C(1) << 30) || pb > (INT64_C(1) << 30) || pe > (INT64_C(1) << 30))
            return 0;
        int64_t span = (k - 1) * dl + 1;
        if (in + pb + pe < span || o < 1)
            return 0;
        int64_t floor_o = (in + pb + pe - span) / st + 1;
        if (o != floor_o && !(pool && o == floor_o + 1 && (o - 1) * st < in + pb))
            return 0;
    }
    return 1;
}

/* x [N, C_in, sp...], w [C_in, C_out/groups, k...], y [N, C_out, out...]; the
 * window attributes bounded (the kernel drops taps outside y, so any y fits). */
static int check_deconv(const sim_step *s, const sim_tensor *x, const sim_tensor *w, const sim_tensor *y)
{
    if (s->spatial < 1 || s->spatial > SIM_K_MAX_SPATIAL || x->rank != s->spatial + 2 ||
        w->rank != x->rank || y->rank != x->rank || s->groups < 1 || w->d[0] != x->d[1] ||
        x->d[1] % s->groups || y->d[0] != x->d[0] || w->d[1] > INT64_MAX / s->groups ||
        y->d[1] != s->groups * w->d[1])
        return 0;
    for (int i = 0; i < s->spatial; i++) {
        int64_t lim = INT64_C(1) << 30;
        if (w->d[2 + i] != s->kernel[i] || s->strides[i] < 1 || s->strides[i] > lim ||
            s->dilations[i] < 1 || s->dilations[i] > lim || s->pads_begin[i] < 0 ||
            s->pads_begin[i] > lim || s->pads_end[i] < 0 || s->pads_end[i] > lim ||
            x->d[2 + i] > lim || s->kernel[i] > lim)
            return 0;
    }
    return 1;
}

int sim_step_check(const sim_plan *p, const sim_step *s)
{
    if (s->op < SIM_S_CONVERT || s->op >= SIM_S_OP_END || s->out >= p->n_tensors ||
        s->in_first > p->n_step_inputs || s->in_count > p->n_step_inputs - s->in_first ||
        s->in_count == 0)
        return 0;
    if (s->round_prec && !sim_prec_is_integer(s->round_prec))
        return 0;
    const sim_tensor *y = &p->tensors[s->out];
    if (y->where != SIM_T_ARENA)
        return 0;
    const sim_tensor *in[3] = {NULL, NULL, NULL};
    for (uint32_t i = 0; i < s->in_count; i++) {
        uint32_t t = p->step_inputs[s->in_first + i];
        if (t >= p->n_tensors)
            return 0;
        if (i < 3)
            in[i] = &p->tensors[t];
    }
    const sim_tensor *x = in[0];
    switch ((sim_step_op)s->op) {
    case SIM_S_CONVERT:
        return s->in_count == 1 && s->sub <= 1 && sim_prec_size(s->prec) && numel_of(x) == numel_of(y);
    case SIM_S_UNARY:
        return s->in_count == 1 && s->sub <= SIM_UN_LAST && numel_of(x) == numel_of(y);
    case SIM_S_CLAMP:
        return s->in_count == 1 && numel_of(x) == numel_of(y);
    case SIM_S_SOFTMAX:
        return s->in_count == 1 && s->sub <= 1 && same_dims(x, y) && s->axis >= 0 && s->axis < x->rank;
    case SIM_S_BINARY: {
        int64_t d[SIM_MAX_RANK];
        int r;
        if (s->in_count != 2 || s->sub > SIM_BIN_LAST ||
            !broadcast_dims(x->d, x->rank, in[1]->d, in[1]->rank, d, &r) || r != y->rank)
            return 0;
        for (int i = 0; i < r; i++)
            if (d[i] != y->d[i])
                return 0;
        return 1;
    }
    case SIM_S_MATMUL:
        return s->in_count == 2 && check_matmul(x, in[1], s->transpose_a, s->transpose_b, y);
    case SIM_S_CONV: {
        const sim_tensor *w = in[1];
        if (s->in_count != 2 || s->groups < 1 || w->rank != x->rank || x->rank < 3)
            return 0;
        if (w->d[0] % s->groups || x->d[1] != s->groups * w->d[1] || y->d[1] != w->d[0])
            return 0;
        for (int i = 0; i < s->spatial && i + 2 < w->rank; i++)
            if (w->d[2 + i] != s->kernel[i])
                return 0;
        return check_window(s, x, y, 0);
    }
    case SIM_S_MAXPOOL:
    case SIM_S_AVGPOOL:
        return s->in_count == 1 && check_window(s, x, y, 1);
    case SIM_S_REDUCE: {
        if (s->in_count != 1 || s->sub > SIM_RED_LAST || x->rank > 32 ||
            (x->rank < 32 && (s->axes_mask >> x->rank)))
            return 0;
        uint64_t n = 1;
        for (int i = 0; i < x->rank; i++)
            if (!(s->axes_mask & (1u << i)))
                n *= (uint64_t)x->d[i];
        return n == numel_of(y);
    }
    case SIM_S_TRANSPOSE: {
        if (s->in_count != 1 || x->rank != y->rank)
            return 0;
        int seen[SIM_MAX_RANK] = {0};
        for (int i = 0; i < x->rank; i++) {
            int q = s->perm[i];
            if (q < 0 || q >= x->rank || seen[q] || y->d[i] != x->d[q])
                return 0;
            seen[q] = 1;
        }
        return 1;
    }
    case SIM_S_CONCAT: {
        if (s->axis < 0 || s->axis >= y->rank)
            return 0;
        int64_t sum = 0;
        for (uint32_t k = 0; k < s->in_count; k++) {
            const sim_tensor *t = &p->tensors[p->step_inputs[s->in_first + k]];
            if (t->rank != y->rank)
                return 0;
            for (int i = 0; i < y->rank; i++)
                if (i != s->axis && t->d[i] != y->d[i])
                    return 0;
            sum += t->d[s->axis];
            if (sum > (int64_t)SIM_MAX_NUMEL)
                return 0;
        }
        return sum == y->d[s->axis];
    }
    case SIM_S_SLICE: {
        if (s->in_count != 1 || x->rank != y->rank || s->axis < 0 || s->axis >= x->rank ||
            s->start < 0 || s->start > x->d[s->axis] || y->d[s->axis] > x->d[s->axis] - s->start)
            return 0;
        for (int i = 0; i < x->rank; i++)
            if (i != s->axis && x->d[i] != y->d[i])
                return 0;
        return 1;
    }
    case SIM_S_SLICE_STEP: {
        if (s->in_count != 1 || x->rank != y->rank || s->axis < 0 || s->axis >= x->rank)
            return 0;
        for (int i = 0; i < x->rank; i++)
            if (i != s->axis && x->d[i] != y->d[i])
                return 0;
        if (numel_of(y) == 0)     /* nothing is read */
            return 1;
        int64_t dim = x->d[s->axis], cnt = y->d[s->axis], first = s->start, step = s->strides[0];
        if (first < 0 || first >= dim)
            return 0;
        /* the last index first + (cnt - 1) * step stays inside, without overflow */
        uint64_t more = (uint64_t)(cnt - 1);
        if (step > 0)
            return more <= (uint64_t)(dim - 1 - first) / (uint64_t)step;
        if (step < 0)
            return step >= -dim && more <= (uint64_t)first / (uint64_t)(-step);
        return 1;
    }
    case SIM_S_GATHER: {
        const sim_tensor *ix = in[1];
        if (s->in_count != 2 || s->axis < 0 || s->axis >= x->rank ||
            y->rank != x->rank - 1 + ix->rank)
            return 0;
        for (int i = 0; i < y->rank; i++) {
            int64_t want = i < s->axis ? x->d[i]
                           : i < s->axis + ix->rank ? ix->d[i - s->axis]
                           : x->d[i - ix->rank + 1];
            if (y->d[i] != want)
                return 0;
        }
        return 1;
    }
    case SIM_S_INTERPOLATE: {
        const sim_tensor *sc = in[1];
        if (s->in_count != 2 || SIM_INTERP_MODE(s->sub) > SIM_INTERP_LINEAR_ONNX ||
            SIM_INTERP_COORD(s->sub) > SIM_INTERP_ALIGN_CORNERS ||
            SIM_INTERP_NEAREST_MODE(s->sub) > SIM_INTERP_SIMPLE || x->rank != y->rank ||
            x->rank < 1 || (s->axes_mask >> x->rank) != 0 || sc->rank != 1)
            return 0;
        int k = 0;
        for (int i = 0; i < x->rank; i++)
            k += (int)((s->axes_mask >> i) & 1u);
        if (k < 1 || sc->d[0] != k)
            return 0;
        uint32_t seen = 0;
        for (int j = 0; j < k; j++) {
            int a = s->perm[j];
            if (a < 0 || a >= x->rank || !((s->axes_mask >> a) & 1u) || ((seen >> a) & 1u))
                return 0;
            seen |= 1u << a;
        }
        for (int i = 0; i < x->rank; i++)
            if ((!((s->axes_mask >> i) & 1u) && y->d[i] != x->d[i]) ||
                (numel_of(y) > 0 && x->d[i] < 1))
                return 0;
        return 1;
    }
    case SIM_S_FAKE_QUANT: {
        if (s->in_count != 5 || s->groups < 2 || !same_dims(x, y))
            return 0;
        for (uint32_t k = 1; k < 5; k++) {
            const sim_tensor *t = &p->tensors[p->step_inputs[s->in_first + k]];
            if (!broadcasts_onto(t, y))
                return 0;
        }
        return 1;
    }
    case SIM_S_SELECT:
        return s->in_count == 3 && broadcasts_onto(x, y) && broadcasts_onto(in[1], y) &&
               broadcasts_onto(in[2], y) && (numel_of(y) == 0 || (numel_of(x) && numel_of(in[1]) &&
                                                                 numel_of(in[2])));
    case SIM_S_BROADCAST:
        return s->in_count == 1 && broadcasts_onto(x, y) && (numel_of(y) == 0 || numel_of(x));
    case SIM_S_TOPK: {
        if (s->in_count != 1 || s->sub > 15 || ((s->sub >> 1) & 3u) > SIM_TOPK_SORT_NONE ||
            x->rank != y->rank || s->axis < 0 || s->axis >= x->rank || y->d[s->axis] > x->d[s->axis])
            return 0;
        for (int i = 0; i < x->rank; i++)
            if (i != s->axis && x->d[i] != y->d[i])
                return 0;
        return 1;
    }
    case SIM_S_DECONV:
        return s->in_count == 2 && check_deconv(s, x, in[1], y);
    case SIM_S_OP_END:
        break;
    }
    return 0;
}

/* Kernels read their inputs while they write the output (memcpy in Concat, Slice,
 * Gather), so an arena output must not share storage with an arena input. The
 * compiler's packing never does this; a crafted blob could. */
static int output_overlaps_input(const sim_plan *p, const sim_step *s)
{
    const sim_tensor *y = &p->tensors[s->out];
    uint64_t ny = numel_of(y);
    for (uint32_t i = 0; i < s->in_count; i++) {
        const sim_tensor *x = &p->tensors[p->step_inputs[s->in_first + i]];
        uint64_t nx = numel_of(x);
        if (x->where == SIM_T_ARENA && nx && ny && x->offset < y->offset + ny &&
            y->offset < x->offset + nx)
            return 1;
    }
    return 0;
}

static int name_ok(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

int sim_plan_validate(const sim_plan *p, sim_log *log)
{
    for (uint32_t i = 0; i < p->n_tensors; i++) {
        const sim_tensor *t = &p->tensors[i];
        int ok;
        uint64_t n = sim_tensor_numel(t, &ok);
        uint64_t limit = t->where == SIM_T_ARENA ? p->arena_floats
                         : t->where == SIM_T_CONST ? p->const_floats : 0;
        if (!ok || (t->where != SIM_T_ARENA && t->where != SIM_T_CONST) || t->offset > limit ||
            n > limit - t->offset) {
            sim_log_add(log, "plan: tensor %u is out of bounds or malformed", i);
            return -1;
        }
    }
    for (uint32_t i = 0; i < p->n_steps; i++) {
        if (!sim_step_check(p, &p->steps[i])) {
            sim_log_add(log, "plan: step %u (op %u) is inconsistent with its tensors", i,
                        p->steps[i].op);
            return -1;
        }
        if (output_overlaps_input(p, &p->steps[i])) {
            sim_log_add(log, "plan: step %u (op %u) writes over one of its inputs", i,
                        p->steps[i].op);
            return -1;
        }
        int32_t l = p->steps[i].layer;
        if (p->profiling ? (l < 0 || (uint32_t)l >= p->n_layers) : l != -1) {
            sim_log_add(log, "plan: step %u has a bad profiling layer index", i);
            return -1;
        }
    }
    if (p->profiling > 1 || (!p->profiling && p->n_layers)) {
        sim_log_add(log, "plan: bad profiling table");
        return -1;
    }
    for (uint32_t i = 0; i < p->n_layers; i++)
        if (!name_ok(p->layers[i].name, sizeof p->layers[i].name) ||
            !name_ok(p->layers[i].type, sizeof p->layers[i].type)) {
            sim_log_add(log, "plan: profiling layer %u has an unterminated name", i);
            return -1;
        }
    int seen_output = 0;
    for (uint32_t i = 0; i < p->n_args; i++) {
        const sim_arg *a = &p->args[i];
        if (p->arg_tensor[i] >= p->n_tensors) {
            sim_log_add(log, "plan: argument %u has no tensor", i);
            return -1;
        }
        const sim_tensor *t = &p->tensors[p->arg_tensor[i]];
        int ok = (a->is_output == 0 || a->is_output == 1) && name_ok(a->name, sizeof a->name) &&
                 name_ok(a->friendly_name, sizeof a->friendly_name) &&
                 a->tensor_name_count <= SIM_MAX_TENSOR_NAMES && a->rank <= SIM_MAX_RANK &&
                 a->ir_rank <= SIM_MAX_RANK && sim_prec_size(a->precision) &&
                 sim_prec_size(a->network_precision) && (int)a->rank == t->rank &&
                 !(seen_output && !a->is_output) && (a->is_output || t->where == SIM_T_ARENA);
        for (uint32_t k = 0; ok && k < a->tensor_name_count; k++)
            ok = name_ok(a->tensor_names[k], sizeof a->tensor_names[k]);
        for (uint32_t k = 0; ok && k < a->rank; k++)
            ok = a->dims[k] == (uint64_t)t->d[k];
        if (ok)
            ok = a->bytes == numel_of(t) * sim_prec_size(a->precision);
        if (!ok) {
            sim_log_add(log, "plan: argument %u is malformed", i);
            return -1;
        }
        seen_output |= a->is_output;
    }
    return 0;
}

/* ---- execution ------------------------------------------------------------ */

static const float *tensor_ptr(const sim_plan *p, float *arena, uint32_t t)
{
    const sim_tensor *x = &p->tensors[t];
    return x->where == SIM_T_CONST ? p->consts + x->offset : arena + x->offset;
}

/* Rounds y to an integer precision in place (Convert does not allow aliasing). */
static void round_in_place(float *y, size_t n, uint32_t prec)
{
    float tmp[256];
    for (size_t i = 0; i < n; i += 256) {
        size_t m = n - i < 256 ? n - i : 256;
        sim_k_convert(y + i, tmp, m, prec);
        memcpy(y + i, tmp, m * sizeof(float));
    }
}

static void run_slice(const sim_tensor *xt, const float *x, const sim_step *s, const sim_tensor *yt,
                      float *y)
{
    size_t outer = 1, inner = 1;
    for (int i = 0; i < s->axis; i++)
        outer *= (size_t)xt->d[i];
    for (int i = s->axis + 1; i < xt->rank; i++)
        inner *= (size_t)xt->d[i];
    size_t in_ax = (size_t)xt->d[s->axis], out_ax = (size_t)yt->d[s->axis];
    for (size_t o = 0; o < outer; o++)
        memcpy(y + o * out_ax * inner, x + (o * in_ax + (size_t)s->start) * inner,
               out_ax * inner * sizeof(float));
}

/* Gather along axis (batch_dims 0); indices arrive as floats, negative ones count
 * from the end, out-of-range ones yield zeros (the real op's result is undefined). */
static void run_gather(const sim_tensor *xt, const float *x, const sim_tensor *it, const float *idx,
                       const sim_step *s, float *y)
{
    size_t outer = 1, inner = 1, n_idx = (size_t)numel_of(it);
    for (int i = 0; i < s->axis; i++)
        outer *= (size_t)xt->d[i];
    for (int i = s->axis + 1; i < xt->rank; i++)
        inner *= (size_t)xt->d[i];
    int64_t dim = xt->d[s->axis];
    for (size_t o = 0; o < outer; o++)
        for (size_t k = 0; k < n_idx; k++) {
            float f = idx[k];
            int64_t j = f == f && f > -9e18f && f < 9e18f ? (int64_t)f : -1 - dim;
            if (j < 0)
                j += dim;
            float *dst = y + (o * n_idx + k) * inner;
            if (j < 0 || j >= dim)
                memset(dst, 0, inner * sizeof(float));
            else
                memcpy(dst, x + (o * (size_t)dim + (size_t)j) * inner, inner * sizeof(float));
        }
}

/* Interpolate: the modes from `sub`, the axes from perm, their scales from the
 * second input; integer results of linear round half away from zero first. */
static void run_interpolate(const float *x, const sim_shape *xs, const float *scales,
                            const sim_step *s, float *y, const sim_shape *ys)
{
    sim_interp_params q;
    memset(&q, 0, sizeof q);
    q.mode = SIM_INTERP_MODE(s->sub);
    q.coord = SIM_INTERP_COORD(s->sub);
    q.nearest = SIM_INTERP_NEAREST_MODE(s->sub);
    q.round_to_int = s->round_prec != 0 && q.mode == SIM_INTERP_LINEAR;
    for (int i = 0; i < xs->rank; i++)
        q.n_axes += (int)((s->axes_mask >> i) & 1u);
    for (int j = 0; j < q.n_axes; j++) {
        q.axes[j] = s->perm[j];
        q.scales[j] = scales[j];
    }
    sim_k_interpolate(x, xs, &q, y, ys);
}

static void fill_conv(const sim_step *s, sim_conv_params *c)
{
    memset(c, 0, sizeof *c);
    c->spatial = s->spatial;
    c->groups = s->groups;
    for (int i = 0; i < SIM_K_MAX_SPATIAL; i++) {
        c->strides[i] = s->strides[i];
        c->dilations[i] = s->dilations[i];
        c->pads_begin[i] = s->pads_begin[i];
        c->pads_end[i] = s->pads_end[i];
    }
}

static void fill_pool(const sim_step *s, sim_pool_params *q)
{
    memset(q, 0, sizeof *q);
    q->spatial = s->spatial;
    q->exclude_pad = s->exclude_pad;
    for (int i = 0; i < SIM_K_MAX_SPATIAL; i++) {
        q->kernel[i] = s->kernel[i];
        q->strides[i] = s->strides[i];
        q->dilations[i] = s->dilations[i];
        q->pads_begin[i] = s->pads_begin[i];
        q->pads_end[i] = s->pads_end[i];
    }
}

int sim_step_run(const sim_plan *p, float *arena, const sim_step *s)
{
    const uint32_t *ins = p->step_inputs + s->in_first;
    const sim_tensor *xt = &p->tensors[ins[0]], *yt = &p->tensors[s->out];
    const float *x = tensor_ptr(p, arena, ins[0]);
    float *y = arena + yt->offset;
    size_t n = (size_t)numel_of(yt);
    sim_shape xs = sim_tensor_shape(xt), ys = sim_tensor_shape(yt);
    switch ((sim_step_op)s->op) {
    case SIM_S_CONVERT:
        if (s->sub)
            sim_k_convert_wrap(x, y, n, s->prec);
        else
            sim_k_convert(x, y, n, s->prec);
        break;
    case SIM_S_UNARY:
        if (s->round_prec)   /* integer element type: Erf and Log differ */
            sim_k_unary_int((sim_unop)s->sub, x, y, n);
        else
            sim_k_unary((sim_unop)s->sub, x, y, n);
        break;
    case SIM_S_CLAMP:
        sim_k_clamp(x, y, n, s->lo, s->hi);
        break;
    case SIM_S_SOFTMAX:
        if (s->sub)
            sim_k_log_softmax(x, y, &xs, s->axis);
        else
            sim_k_softmax(x, y, &xs, s->axis);
        break;
    case SIM_S_BINARY: {
        sim_shape bs = sim_tensor_shape(&p->tensors[ins[1]]);
        sim_k_binary((sim_binop)s->sub, x, &xs, tensor_ptr(p, arena, ins[1]), &bs, y, &ys);
        break;
    }
    case SIM_S_MATMUL: {
        sim_shape bs = sim_tensor_shape(&p->tensors[ins[1]]);
        sim_k_matmul(x, &xs, s->transpose_a, tensor_ptr(p, arena, ins[1]), &bs, s->transpose_b,
                     y, &ys);
        break;
    }
    case SIM_S_CONV: {
        sim_conv_params c;
        fill_conv(s, &c);
        sim_shape ws = sim_tensor_shape(&p->tensors[ins[1]]);
        sim_k_conv(x, &xs, tensor_ptr(p, arena, ins[1]), &ws, &c, y, &ys);
        break;
    }
    case SIM_S_MAXPOOL:
    case SIM_S_AVGPOOL: {
        sim_pool_params q;
        fill_pool(s, &q);
        if (s->op == SIM_S_MAXPOOL)
            sim_k_maxpool(x, &xs, &q, y, &ys);
        else
            sim_k_avgpool(x, &xs, &q, y, &ys);
        break;
    }
    case SIM_S_REDUCE:
        sim_k_reduce_op((int)s->sub, x, &xs, s->axes_mask, y);
        break;
    case SIM_S_TRANSPOSE: {
        int perm[SIM_MAX_RANK];
        for (int i = 0; i < SIM_MAX_RANK; i++)
            perm[i] = s->perm[i];
        sim_k_transpose(x, &xs, perm, y);
        break;
    }
    case SIM_S_CONCAT: {
        const float **xs_ptr = malloc(s->in_count * sizeof *xs_ptr);
        sim_shape *shapes = malloc(s->in_count * sizeof *shapes);
        if (!xs_ptr || !shapes) {
            free(xs_ptr);
            free(shapes);
            return SIM_ERR_NOMEM;
        }
        for (uint32_t i = 0; i < s->in_count; i++) {
            xs_ptr[i] = tensor_ptr(p, arena, ins[i]);
            shapes[i] = sim_tensor_shape(&p->tensors[ins[i]]);
        }
        sim_k_concat(xs_ptr, shapes, (int)s->in_count, s->axis, y);
        free(xs_ptr);
        free(shapes);
        break;
    }
    case SIM_S_SLICE:
        run_slice(xt, x, s, yt, y);
        break;
    case SIM_S_SLICE_STEP:
        sim_k_slice_axis(x, &xs, s->axis, s->start, s->strides[0], y, yt->d[s->axis]);
        break;
    case SIM_S_GATHER:
        run_gather(xt, x, &p->tensors[ins[1]], tensor_ptr(p, arena, ins[1]), s, y);
        break;
    case SIM_S_INTERPOLATE:
        run_interpolate(x, &xs, tensor_ptr(p, arena, ins[1]), s, y, &ys);
        break;
    case SIM_S_FAKE_QUANT: {
        const float *lim[4];
        sim_shape ls[4];
        const sim_shape *lsp[4];
        for (int k = 0; k < 4; k++) {
            lim[k] = tensor_ptr(p, arena, ins[k + 1]);
            ls[k] = sim_tensor_shape(&p->tensors[ins[k + 1]]);
            lsp[k] = &ls[k];
        }
        sim_k_fake_quantize(x, lim, lsp, (float)(s->groups - 1), y, &ys);
        break;
    }
    case SIM_S_SELECT: {
        sim_shape as = sim_tensor_shape(&p->tensors[ins[1]]), bs = sim_tensor_shape(&p->tensors[ins[2]]);
        sim_k_select(x, &xs, tensor_ptr(p, arena, ins[1]), &as, tensor_ptr(p, arena, ins[2]), &bs, y, &ys);
        break;
    }
    case SIM_S_BROADCAST:
        sim_k_broadcast(x, &xs, y, &ys);
        break;
    case SIM_S_TOPK:
        if (sim_k_topk(x, &xs, s->axis, yt->d[s->axis], (int)(s->sub & 1u), (int)((s->sub >> 1) & 3u),
                       (int)((s->sub >> 3) & 1u), y))
            return SIM_ERR_NOMEM;
        break;
    case SIM_S_DECONV: {
        sim_conv_params c;
        fill_conv(s, &c);
        sim_shape ws = sim_tensor_shape(&p->tensors[ins[1]]);
        sim_k_deconv(x, &xs, tensor_ptr(p, arena, ins[1]), &ws, &c, y, &ys);
        break;
    }
    case SIM_S_OP_END:
        break;
    }
    if (s->round_prec)
        round_in_place(y, n, s->round_prec);
    return SIM_OK;
}

/* The monotonic clock in ns (the profile's timestamps). */
static uint64_t exec_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

int sim_plan_run(const sim_plan *p, void *const *args, int skip_math)
{
    return sim_plan_run_timed(p, args, skip_math, NULL);
}

int sim_plan_run_timed(const sim_plan *p, void *const *args, int skip_math, uint64_t *times)
{
    if (times) {   /* every step's start and duration: zero when the math is skipped */
        uint64_t now = exec_now_ns();
        for (uint32_t i = 0; i < p->n_steps; i++) {
            times[2 * i] = now;
            times[2 * i + 1] = 0;
        }
    }
    if (skip_math)
        return SIM_OK;
    float *arena = NULL;
    if (p->arena_floats) {
        arena = malloc((size_t)p->arena_floats * sizeof(float));
        if (!arena)
            return SIM_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < p->n_args; i++) {
        const sim_arg *a = &p->args[i];
        const sim_tensor *t = &p->tensors[p->arg_tensor[i]];
        if (a->is_output)
            continue;
        float *dst = arena + t->offset;
        size_t n = (size_t)numel_of(t);
        if (!args[i]) {
            memset(dst, 0, n * sizeof(float));
            continue;
        }
        sim_cvt_to_f32(a->precision, args[i], dst, n);
        /* A caller passing floats for an integer input gets what the network sees. */
        if (a->precision != a->network_precision && sim_prec_is_integer(a->network_precision))
            round_in_place(dst, n, a->network_precision);
    }
    int rc = SIM_OK;
    for (uint32_t i = 0; i < p->n_steps && rc == SIM_OK; i++) {
        uint64_t t0 = times ? exec_now_ns() : 0;
        rc = sim_step_run(p, arena, &p->steps[i]);
        if (times) {
            times[2 * i] = t0;
            times[2 * i + 1] = exec_now_ns() - t0;
        }
    }
    for (uint32_t i = 0; i < p->n_args && rc == SIM_OK; i++) {
        const sim_arg *a = &p->args[i];
        if (!a->is_output || !args[i])
            continue;
        const sim_tensor *t = &p->tensors[p->arg_tensor[i]];
        sim_cvt_from_f32(a->precision, tensor_ptr(p, arena, p->arg_tensor[i]), args[i],
                         (size_t)numel_of(t));
    }
    free(arena);
    return rc;
}

/* ---- accessors -------------------------------------------------------------- */

uint32_t sim_plan_arg_count(const sim_plan *p)
{
    return p ? p->n_args : 0;
}

const sim_arg *sim_plan_arg(const sim_plan *p, uint32_t index)
{
    return p && index < p->n_args ? &p->args[index] : NULL;
}

uint32_t sim_plan_format_version(void)
{
    return SIM_PLAN_FORMAT_VERSION;
}

int sim_plan_profiling(const sim_plan *p)
{
    return p != NULL && p->profiling;
}

uint32_t sim_plan_step_count(const sim_plan *p)
{
    return p ? p->n_steps : 0;
}

uint32_t sim_plan_layer_count(const sim_plan *p)
{
    return p ? p->n_layers : 0;
}

int32_t sim_plan_step_layer(const sim_plan *p, uint32_t step)
{
    return p && step < p->n_steps ? p->steps[step].layer : -1;
}

const char *sim_plan_layer_name(const sim_plan *p, uint32_t layer, const char **type)
{
    if (!p || layer >= p->n_layers)
        return NULL;
    if (type)
        *type = p->layers[layer].type;
    return p->layers[layer].name;
}

const uint8_t *sim_plan_native(const sim_plan *p, size_t *size)
{
    if (size)
        *size = p ? p->native_size : 0;
    return p ? p->native : NULL;
}

void sim_plan_free(sim_plan *p)
{
    if (!p)
        return;
    free(p->args);
    free(p->arg_tensor);
    free(p->tensors);
    free(p->steps);
    free(p->step_inputs);
    free(p->layers);
    if (!p->native_borrowed)
        free(p->native);
    free(p);
}

void sim_plan_destroy(sim_plan *p)
{
    sim_plan_free(p);
}
