/* ops_norm.c - more of the compiler's ops (see compiler_internal.h): the
 * normalizations (MVN, NormalizeL2), TopK and the transposed convolutions
 * (ConvolutionBackpropData, GroupConvolutionBackpropData). Each handler sits in
 * ops.c's op table and uses ops.c's helpers (sim_op_*); like ops_quant.c it calls
 * only ops.c, payload.c, exec.c and kernels.c, never planner.c. Static names
 * start with n_ (the fuzz build compiles every sim file into one translation
 * unit).
 *
 * MVN and NormalizeL2 lower to the steps OpenVINO's reference runs one after
 * the other (src/core/reference/include/openvino/reference/mvn.hpp,
 * normalize_l2.hpp), each in f32: mean, subtract, square, mean, eps, sqrt,
 * divide; square, sum, eps, sqrt, divide.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sim/compiler_internal.h"

/* One step of op `op`/`sub` over n inputs, the result of type et and shape
 * [rank, d] into *out. */
static int n_step(cc *c, layer *L, uint32_t op, uint32_t sub, cval **ins, int n, uint32_t et, int rank,
                  const int64_t *d, cval *out)
{
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = op;
    s.sub = sub;
    return sim_op_emit(c, L, &s, ins, n, et, rank, d, out);
}

static int n_reduce(cc *c, layer *L, int kind, cval *x, uint32_t mask, const int64_t *rd, cval *out)
{
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_REDUCE;
    s.sub = (uint32_t)kind;
    s.axes_mask = mask;
    return sim_op_emit(c, L, &s, &x, 1, x->et, x->rank, rd, out);
}

/* Reduction axes from constant input i (1-D or scalar, negative ones count from
 * the end, each at most once) into a mask; rd = x's dims with 1 on those axes. */
static int n_axes(cc *c, layer *L, int i, const cval *x, uint32_t *mask, int64_t *rd)
{
    int64_t ax[SIM_MAX_RANK * 4];
    int n, rc = sim_op_const_ints(c, L, i, ax, SIM_MAX_RANK * 4, &n, "axes");
    if (rc)
        return rc;
    *mask = 0;
    for (int k = 0; k < n; k++) {
        int a;
        if ((rc = sim_op_norm_axis(c, L, ax[k], x->rank, &a)))
            return rc;
        if (*mask & (1u << a))
            return sim_lerr(c, L, "%s axes repeat axis %d", L->type, a);
        *mask |= 1u << a;
    }
    for (int k = 0; k < x->rank; k++)
        rd[k] = (*mask & (1u << k)) ? 1 : x->d[k];
    return SIM_OK;
}

static int n_float_input(cc *c, layer *L, const cval *x)
{
    if (!sim_op_is_float_et(x->et))
        return sim_lerr(c, L, "%s of element type %s is not supported: the data must be f32, f16 or bf16",
                        L->type, sim_prec_name(x->et));
    return SIM_OK;
}

static const char *const n_eps_modes6[] = {"inside_sqrt", "outside_sqrt"};

/* MVN-6 (opset >= 6): data and a constant axes input; normalize_variance, eps
 * and eps_mode are required. MVN-1: reduction_axes when the IR has it, else
 * across_channels (default false: axes 2.., true: 1..); normalize_variance
 * (default false); eps (required) inside the square root. */
int sim_op_mvn(cc *c, layer *L, int opset, int sub)
{
    (void)sub;
    int v6 = opset >= 6, rc = sim_op_need_ports(c, L, v6 ? 2 : 1, v6 ? 2 : 1, 1), nv, mode = 0;
    double eps;
    if (rc)
        return rc;
    cval *x = sim_op_input(c, L, 0);
    if ((rc = n_float_input(c, L, x)))
        return rc;
    uint32_t mask = 0;
    int64_t rd[SIM_MAX_RANK];
    if (v6) {
        char buf[32];
        if (!sim_op_attr_str(L, "normalize_variance", buf, sizeof buf) ||
            !sim_op_attr_str(L, "eps_mode", buf, sizeof buf))
            return sim_lerr(c, L, "MVN-6 needs the attributes normalize_variance, eps and eps_mode");
        if ((rc = sim_op_attr_bool(c, L, "normalize_variance", 0, &nv)) ||
            (rc = sim_op_attr_float(c, L, "eps", &eps)) ||
            (rc = sim_op_attr_enum(c, L, "eps_mode", n_eps_modes6, 2, 0, &mode)) ||
            (rc = n_axes(c, L, 1, x, &mask, rd)))
            return rc;
    } else {
        char list[256];
        int across;
        if ((rc = sim_op_attr_bool(c, L, "normalize_variance", 0, &nv)) ||
            (rc = sim_op_attr_bool(c, L, "across_channels", 0, &across)) ||
            (rc = sim_op_attr_float(c, L, "eps", &eps)))
            return rc;
        if (sim_op_attr_str(L, "reduction_axes", list, sizeof list) && list[0]) {
            int n, dyn, dyn_rank;
            int64_t ax[SIM_MAX_RANK];
            if (!sim_parse_shape(list, &n, ax, &dyn, &dyn_rank) || dyn || dyn_rank)
                n = -1;
            for (int k = 0; k < n && n >= 0; k++) {
                if (ax[k] >= x->rank || (mask & (1u << ax[k])))
                    n = -1;
                else
                    mask |= 1u << ax[k];
            }
            if (n < 1)
                return sim_lerr(c, L, "MVN reduction_axes=\"%s\" must list distinct axes of rank %d", list,
                                x->rank);
        } else {
            if (x->rank < (across ? 2 : 3))
                return sim_lerr(c, L, "MVN-1 of rank %d: across_channels=%s needs rank %d or more", x->rank,
                                across ? "true" : "false", across ? 2 : 3);
            for (int k = across ? 1 : 2; k < x->rank; k++)
                mask |= 1u << k;
        }
        for (int k = 0; k < x->rank; k++)
            rd[k] = (mask & (1u << k)) ? 1 : x->d[k];
    }
    if (!(eps == eps) || eps < 0)
        return sim_lerr(c, L, "MVN eps must be a non-negative number");
    cval mean, diff, sq, var, e, t, r;
    cval *in2[2];
    if ((rc = n_reduce(c, L, SIM_RED_MEAN, x, mask, rd, &mean)))
        return rc;
    in2[0] = x;
    in2[1] = &mean;
    if (!nv)
        return n_step(c, L, SIM_S_BINARY, SIM_BIN_SUB, in2, 2, x->et, x->rank, x->d, &L->val[0]);
    if ((rc = n_step(c, L, SIM_S_BINARY, SIM_BIN_SUB, in2, 2, x->et, x->rank, x->d, &diff)))
        return rc;
    in2[0] = in2[1] = &diff;
    if ((rc = n_step(c, L, SIM_S_BINARY, SIM_BIN_MUL, in2, 2, x->et, x->rank, x->d, &sq)) ||
        (rc = n_reduce(c, L, SIM_RED_MEAN, &sq, mask, rd, &var)) ||
        (rc = sim_op_const_fill(c, L, x->et, (float)eps, &e)))
        return rc;
    cval *pv = &var, *pt = &t;
    if (mode == 0) {   /* inside_sqrt: sqrt(var + eps) */
        in2[0] = &var;
        in2[1] = &e;
        if ((rc = n_step(c, L, SIM_S_BINARY, SIM_BIN_ADD, in2, 2, x->et, x->rank, rd, &t)) ||
            (rc = n_step(c, L, SIM_S_UNARY, SIM_UN_SQRT, &pt, 1, x->et, x->rank, rd, &r)))
            return rc;
    } else {           /* outside_sqrt: sqrt(var) + eps */
        if ((rc = n_step(c, L, SIM_S_UNARY, SIM_UN_SQRT, &pv, 1, x->et, x->rank, rd, &t)))
            return rc;
        in2[0] = &t;
        in2[1] = &e;
        if ((rc = n_step(c, L, SIM_S_BINARY, SIM_BIN_ADD, in2, 2, x->et, x->rank, rd, &r)))
            return rc;
    }
    in2[0] = &diff;
    in2[1] = &r;
    return n_step(c, L, SIM_S_BINARY, SIM_BIN_DIV, in2, 2, x->et, x->rank, x->d, &L->val[0]);
}

static const char *const n_eps_modes_l2[] = {"add", "max"};

/* NormalizeL2-1: floating data, a constant axes input (empty: each element by
 * itself, 0 for 0 and 1 otherwise), eps and eps_mode (add or max), both required:
 * x / sqrt(sum(x^2) + eps) or x / sqrt(max(sum(x^2), eps)). */
int sim_op_normalize_l2(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = sim_op_need_ports(c, L, 2, 2, 1), mode;
    double eps;
    if (rc)
        return rc;
    cval *x = sim_op_input(c, L, 0);
    char buf[16];
    if ((rc = n_float_input(c, L, x)))
        return rc;
    if (!sim_op_attr_str(L, "eps_mode", buf, sizeof buf))
        return sim_lerr(c, L, "NormalizeL2 needs the attributes eps and eps_mode");
    uint32_t mask;
    int64_t rd[SIM_MAX_RANK];
    if ((rc = sim_op_attr_float(c, L, "eps", &eps)) ||
        (rc = sim_op_attr_enum(c, L, "eps_mode", n_eps_modes_l2, 2, 0, &mode)) ||
        (rc = n_axes(c, L, 1, x, &mask, rd)))
        return rc;
    cval e, sq, sum, t, r;
    cval *in2[2] = {x, &e};
    if (!mask) {   /* x != 0 as 1 or 0 */
        if ((rc = sim_op_const_fill(c, L, x->et, 0.0f, &e)))
            return rc;
        return n_step(c, L, SIM_S_BINARY, SIM_BIN_NE, in2, 2, x->et, x->rank, x->d, &L->val[0]);
    }
    if ((rc = sim_op_const_fill(c, L, x->et, (float)eps, &e)))
        return rc;
    in2[1] = x;
    if ((rc = n_step(c, L, SIM_S_BINARY, SIM_BIN_MUL, in2, 2, x->et, x->rank, x->d, &sq)) ||
        (rc = n_reduce(c, L, SIM_RED_SUM, &sq, mask, rd, &sum)))
        return rc;
    in2[0] = &sum;
    in2[1] = &e;
    cval *pt = &t;
    if ((rc = n_step(c, L, SIM_S_BINARY, mode ? SIM_BIN_MAX : SIM_BIN_ADD, in2, 2, x->et, x->rank, rd, &t)) ||
        (rc = n_step(c, L, SIM_S_UNARY, SIM_UN_SQRT, &pt, 1, x->et, x->rank, rd, &r)))
        return rc;
    in2[0] = x;
    in2[1] = &r;
    return n_step(c, L, SIM_S_BINARY, SIM_BIN_DIV, in2, 2, x->et, x->rank, x->d, &L->val[0]);
}

static const char *const n_topk_modes[] = {"max", "min"};
static const char *const n_topk_sorts[] = {"value", "index", "none"};

/* TopK-3 and TopK-11: data, a constant scalar k (1 .. the axis dim; a larger k
 * takes the whole axis as OpenVINO's shape inference does); axis, mode and sort
 * required; index_element_type i32 (default) or i64; TopK-11's stable changes
 * nothing here (ties always keep the input order, as in OpenVINO's reference).
 * Both outputs: values (x's type) and indices. */
int sim_op_topk(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = sim_op_need_ports(c, L, 2, 2, 2), mode, sort, axis, nk, stable;
    int64_t ax, kv[1];
    char buf[32];
    if (rc)
        return rc;
    if (!sim_op_attr_str(L, "axis", buf, sizeof buf) || !sim_op_attr_str(L, "mode", buf, sizeof buf) ||
        !sim_op_attr_str(L, "sort", buf, sizeof buf))
        return sim_lerr(c, L, "TopK needs the attributes axis, mode and sort");
    cval *x = sim_op_input(c, L, 0), *k = sim_op_input(c, L, 1);
    if ((rc = sim_op_attr_int(c, L, "axis", 0, &ax)) ||
        (rc = sim_op_attr_enum(c, L, "mode", n_topk_modes, 2, 0, &mode)) ||
        (rc = sim_op_attr_enum(c, L, "sort", n_topk_sorts, 3, 0, &sort)) ||
        (rc = sim_op_attr_bool(c, L, "stable", 0, &stable)))
        return rc;
    uint32_t iet = SIM_P_I32;
    if (sim_op_attr_str(L, "index_element_type", buf, sizeof buf)) {
        iet = sim_prec_from_name(buf);
        if (iet != SIM_P_I32 && iet != SIM_P_I64)
            return sim_lerr(c, L, "TopK index_element_type=\"%s\" is not supported (i32 or i64)", buf);
    }
    if (x->rank < 1)
        return sim_lerr(c, L, "TopK input rank must be greater than 0");
    if (k->rank != 0)
        return sim_lerr(c, L, "TopK input 1 (k) must be a scalar");
    if ((rc = sim_op_norm_axis(c, L, ax, x->rank, &axis)) ||
        (rc = sim_op_const_ints(c, L, 1, kv, 1, &nk, "k")))
        return rc;
    if (kv[0] < 1)
        return sim_lerr(c, L, "TopK k=%" PRId64 " is not supported (1 .. the axis dim)", kv[0]);
    if (x->d[axis] > ((int64_t)1 << 24))
        return sim_lerr(c, L, "TopK axis dim %" PRId64 " is larger than 2^24 (indices are exact in f32 only "
                          "up to it)", x->d[axis]);
    int64_t d[SIM_MAX_RANK];
    memcpy(d, x->d, sizeof d);
    if (kv[0] < d[axis])
        d[axis] = kv[0];
    for (int o = 0; o < 2; o++) {
        sim_step s;
        memset(&s, 0, sizeof s);
        s.op = SIM_S_TOPK;
        s.sub = SIM_TOPK_SUB(mode == 0, sort, o);
        s.axis = axis;
        if ((rc = sim_op_emit(c, L, &s, &x, 1, o ? iet : x->et, x->rank, d, &L->val[o])))
            return rc;
    }
    return SIM_OK;
}

static const char *const n_pads[] = {"explicit", "same_upper", "same_lower", "valid", "notset"};

/* ConvolutionBackpropData-1 (sub 0): data [N, C_in, sp...], filter [C_in, C_out,
 * k...]; GroupConvolutionBackpropData-1 (sub 1): filter [G, C_in/G, C_out/G,
 * k...]. An optional constant output_shape input gives the spatial dims.
 * strides, dilations (default 1), pads_begin/pads_end, output_padding (default
 * 0) and auto_pad as OpenVINO's shape inference resolves them
 * (convolution_backprop_shape_inference_util.hpp): explicit pads as written;
 * valid, and same_* without output_shape, pads 0; same_* with output_shape splits
 * max((in - 1) * stride + (k - 1) * dilation + 1 - out + output_padding, 0), the
 * odd unit to pads_begin for same_upper, to pads_end for same_lower. Without
 * output_shape the spatial dim is (in - 1) * stride + (k - 1) * dilation + 1 -
 * pads_begin - pads_end + output_padding. */
int sim_op_deconv(cc *c, layer *L, int opset, int group)
{
    (void)opset;
    int rc = sim_op_need_ports(c, L, 2, 3, 1), pad_mode;
    if (rc)
        return rc;
    cval *x = sim_op_input(c, L, 0), *w = sim_op_input(c, L, 1), w2 = *w;
    char sx[160], sw[160];
    sim_op_fmt_dims(sx, sizeof sx, x->rank, x->d);
    sim_op_fmt_dims(sw, sizeof sw, w->rank, w->d);
    int sp = x->rank - 2;
    if (sp < 1 || sp > SIM_K_MAX_SPATIAL)
        return sim_lerr(c, L, "input rank %d is not supported (3..5 = N, C and 1..3 spatial dims)", x->rank);
    int64_t groups = 1;
    if (group) {
        int64_t d[SIM_MAX_RANK];
        if (w->rank != x->rank + 1 || w->d[0] < 1 || x->d[1] != w->d[0] * w->d[1])
            return sim_lerr(c, L, "GroupConvolutionBackpropData filter %s does not fit data %s (filter "
                              "[G, C_in/G, C_out/G, k...])", sw, sx);
        groups = w->d[0];
        d[0] = w->d[0] * w->d[1];
        for (int i = 2; i < w->rank; i++)
            d[i - 1] = w->d[i];
        if ((rc = sim_op_alias(c, w, w->et, w->rank - 1, d, &w2)))
            return rc;
    } else if (w->rank != x->rank || x->d[1] != w->d[0]) {
        return sim_lerr(c, L, "ConvolutionBackpropData filter %s does not fit data %s (filter [C_in, "
                          "C_out, k...])", sw, sx);
    }
    if (w->et != x->et)
        return sim_lerr(c, L, "filter type %s differs from the data type %s", sim_prec_name(w->et),
                        sim_prec_name(x->et));
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_DECONV;
    s.groups = groups;
    s.spatial = sp;
    int64_t op_[SIM_K_MAX_SPATIAL], os[SIM_MAX_RANK];
    int n_os = 0;
    if ((rc = sim_op_attr_list(c, L, "strides", sp, 1, s.strides)) ||
        (rc = sim_op_attr_list(c, L, "dilations", sp, 1, s.dilations)) ||
        (rc = sim_op_attr_list(c, L, "pads_begin", sp, 0, s.pads_begin)) ||
        (rc = sim_op_attr_list(c, L, "pads_end", sp, 0, s.pads_end)) ||
        (rc = sim_op_attr_list(c, L, "output_padding", sp, 0, op_)) ||
        (rc = sim_op_attr_enum(c, L, "auto_pad", n_pads, 5, 0, &pad_mode)))
        return rc;
    if (L->n_in == 3) {
        if ((rc = sim_op_const_ints(c, L, 2, os, SIM_MAX_RANK, &n_os, "output_shape")))
            return rc;
        if (n_os != sp)
            return sim_lerr(c, L, "output_shape holds %d values for %d spatial dims", n_os, sp);
    }
    int64_t d[SIM_MAX_RANK], lim = INT64_C(1) << 30;
    d[0] = x->d[0];
    d[1] = groups * w2.d[1];
    for (int i = 0; i < sp; i++) {
        int64_t in = x->d[2 + i], k = w2.d[2 + i], st = s.strides[i], dl = s.dilations[i];
        s.kernel[i] = k;
        if (st < 1 || dl < 1 || st > lim || dl > lim || in > lim || k > lim || s.pads_begin[i] > lim ||
            s.pads_end[i] > lim || op_[i] > lim)
            return sim_lerr(c, L, "strides and dilations must be 1 .. 2^30, pads and output_padding "
                              "0 .. 2^30 (spatial dim %d)", i);
        if (in < 1 || k < 1)
            return sim_lerr(c, L, "empty data or filter (spatial dim %d)", i);
        int64_t full = (in - 1) * st + (k - 1) * dl + 1 + op_[i];
        if (pad_mode == 3 || ((pad_mode == 1 || pad_mode == 2) && !n_os)) {
            s.pads_begin[i] = s.pads_end[i] = 0;
        } else if (pad_mode == 1 || pad_mode == 2) {
            int64_t total = full - os[i] > 0 ? full - os[i] : 0, half = total / 2;
            s.pads_begin[i] = pad_mode == 1 ? total - half : half;
            s.pads_end[i] = total - s.pads_begin[i];
        }
        if (n_os) {
            if (os[i] < 1 || os[i] > full)
                return sim_lerr(c, L, "output_shape %" PRId64 " of spatial dim %d is outside 1 .. %" PRId64
                                  " ((in - 1) * stride + (k - 1) * dilation + 1 + output_padding)", os[i], i,
                                full);
            d[2 + i] = os[i];
        } else {
            d[2 + i] = full - s.pads_begin[i] - s.pads_end[i];
            if (d[2 + i] < 1)
                return sim_lerr(c, L, "pads %" PRId64 " + %" PRId64 " leave no output in spatial dim %d",
                                s.pads_begin[i], s.pads_end[i], i);
        }
    }
    cval *ins[2] = {x, &w2};
    return sim_op_emit(c, L, &s, ins, 2, x->et, x->rank, d, &L->val[0]);
}
