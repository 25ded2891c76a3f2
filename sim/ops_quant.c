/* ops_quant.c - more of the compiler's ops (see compiler_internal.h): the
 * quantization op NNCF writes (FakeQuantize) and the broadcasting ops (PRelu,
 * Select, Broadcast, Tile). Each handler sits in ops.c's op table and uses ops.c's
 * helpers (sim_op_*); ops.c holds the table, so the two files call each other,
 * and both call only payload.c, exec.c and kernels.c below them, never
 * planner.c. Static names start with q_ (the fuzz build compiles every sim file
 * into one translation unit).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sim/compiler_internal.h"

/* PRelu-1: a 1-D slope whose length equals the channel dim (axis 1, or 0 for
 * 1-D data) applies per channel; any other slope broadcasts numpy-style. The
 * result has the data's shape. */
int sim_op_prelu(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = sim_op_need_ports(c, L, 2, 2, 1);
    if (rc)
        return rc;
    cval *x = sim_op_input(c, L, 0), *slope = sim_op_input(c, L, 1), s2 = *slope;
    if (!sim_op_is_float_et(x->et))
        return sim_lerr(c, L, "PRelu of element type %s is not supported: the data must be f32, f16 "
                          "or bf16", sim_prec_name(x->et));
    if (slope->et != x->et)
        return sim_lerr(c, L, "PRelu slope type %s differs from the data type %s",
                        sim_prec_name(slope->et), sim_prec_name(x->et));
    int ch = x->rank > 1 ? 1 : 0, per_channel = 0;
    if (slope->rank == 1 && x->rank >= 1 && x->d[ch] == slope->d[0]) {
        int64_t d[SIM_MAX_RANK];
        for (int i = 0; i < x->rank; i++)
            d[i] = i == ch ? slope->d[0] : 1;
        if ((rc = sim_op_alias(c, slope, slope->et, x->rank, d, &s2)))
            return rc;
        per_channel = 1;
    }
    int64_t d[SIM_MAX_RANK];
    int rank, same = 0;
    if (sim_op_broadcast(x, &s2, d, &rank)) {
        same = rank == x->rank;
        for (int i = 0; same && i < rank; i++)
            same = d[i] == x->d[i];
    }
    if (!same) {
        char a[160], b[160];
        sim_op_fmt_dims(a, sizeof a, x->rank, x->d);
        sim_op_fmt_dims(b, sizeof b, slope->rank, slope->d);
        return sim_lerr(c, L, "PRelu slope %s does not broadcast onto the data %s", b, a);
    }
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_BINARY;
    s.sub = SIM_BIN_PRELU;
    cval *ins[2] = {x, &s2};
    if ((rc = sim_op_emit(c, L, &s, ins, 2, x->et, x->rank, x->d, &L->val[0])))
        return rc;
    if (!per_channel)   /* keep a materialized constant for other consumers */
        slope->tensor = s2.tensor;
    return SIM_OK;
}

/* auto_broadcast of the elementwise ops: 0 numpy (default), 1 none; pdpd refused. */
static int q_autob(cc *c, layer *L, int *none)
{
    char mode[32] = "numpy";
    sim_op_attr_str(L, "auto_broadcast", mode, sizeof mode);
    if (!strcasecmp(mode, "numpy"))
        *none = 0;
    else if (!strcasecmp(mode, "none"))
        *none = 1;
    else
        return sim_lerr(c, L, "unsupported auto_broadcast=\"%s\" (numpy or none)", mode);
    return SIM_OK;
}

static int q_same_dims(const cval *a, int rank, const int64_t *d)
{
    if (a->rank != rank)
        return 0;
    for (int i = 0; i < rank; i++)
        if (a->d[i] != d[i])
            return 0;
    return 1;
}

/* FakeQuantize-1: x and four limits (input_low, input_high, output_low,
 * output_high) of floating types that broadcast onto x (numpy), or equal x's
 * shape (none); levels >= 2; the result has x's type and shape. */
int sim_op_fake_quantize(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    static const char *const what[5] = {"X", "input_low", "input_high", "output_low", "output_high"};
    int rc = sim_op_need_ports(c, L, 5, 5, 1), none;
    int64_t levels;
    if (rc || (rc = sim_op_attr_int(c, L, "levels", -1, &levels)) || (rc = q_autob(c, L, &none)))
        return rc;
    if (levels < 2 || levels > ((int64_t)1 << 24))
        return sim_lerr(c, L, "FakeQuantize levels=%" PRId64 " is not supported (2 .. 2^24)", levels);
    cval *ins[5];
    for (int i = 0; i < 5; i++) {
        ins[i] = sim_op_input(c, L, i);
        if (!sim_op_is_float_et(ins[i]->et))
            return sim_lerr(c, L, "FakeQuantize input %d (%s) of element type %s is not supported: "
                              "f32, f16 or bf16", i, what[i], sim_prec_name(ins[i]->et));
    }
    cval *x = ins[0];
    for (int i = 1; i < 5; i++) {
        int64_t d[SIM_MAX_RANK];
        int rank;
        int ok = none ? q_same_dims(ins[i], x->rank, x->d)
                      : sim_op_broadcast(x, ins[i], d, &rank) && q_same_dims(x, rank, d);
        if (!ok) {
            char a[160], b[160];
            sim_op_fmt_dims(a, sizeof a, x->rank, x->d);
            sim_op_fmt_dims(b, sizeof b, ins[i]->rank, ins[i]->d);
            return sim_lerr(c, L, "FakeQuantize %s %s does not broadcast onto X %s", what[i], b, a);
        }
    }
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_FAKE_QUANT;
    s.groups = levels;
    return sim_op_emit(c, L, &s, ins, 5, x->et, x->rank, x->d, &L->val[0]);
}

/* Select-1: a boolean condition, then and else of one element type; numpy (all
 * three broadcast together) or none (equal shapes). */
int sim_op_select(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = sim_op_need_ports(c, L, 3, 3, 1), none;
    if (rc || (rc = q_autob(c, L, &none)))
        return rc;
    cval *ins[3] = {sim_op_input(c, L, 0), sim_op_input(c, L, 1), sim_op_input(c, L, 2)};
    if (ins[0]->et != SIM_P_BOOL)
        return sim_lerr(c, L, "Select: argument 0 must have boolean element type (got %s)",
                        sim_prec_name(ins[0]->et));
    if (ins[1]->et != ins[2]->et)
        return sim_lerr(c, L, "Select: argument 1 and 2 element types must match (%s, %s)",
                        sim_prec_name(ins[1]->et), sim_prec_name(ins[2]->et));
    int64_t d[SIM_MAX_RANK];
    int rank;
    cval te;
    memset(&te, 0, sizeof te);
    int ok;
    if (none) {
        ok = q_same_dims(ins[1], ins[0]->rank, ins[0]->d) && q_same_dims(ins[2], ins[0]->rank, ins[0]->d);
        rank = ins[0]->rank;
        memcpy(d, ins[0]->d, sizeof d);
    } else {
        ok = sim_op_broadcast(ins[1], ins[2], d, &rank);
        te.rank = rank;
        memcpy(te.d, d, sizeof d);
        ok = ok && sim_op_broadcast(&te, ins[0], d, &rank);
    }
    if (!ok) {
        char a[160], b[160], e[160];
        sim_op_fmt_dims(a, sizeof a, ins[0]->rank, ins[0]->d);
        sim_op_fmt_dims(b, sizeof b, ins[1]->rank, ins[1]->d);
        sim_op_fmt_dims(e, sizeof e, ins[2]->rank, ins[2]->d);
        return sim_lerr(c, L, "Select shapes %s, %s and %s do not broadcast", a, b, e);
    }
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_SELECT;
    return sim_op_emit(c, L, &s, ins, 3, ins[1]->et, rank, d, &L->val[0]);
}

/* One BROADCAST step of x (viewed as xrank/xd, the same elements) onto [rank, d]. */
static int q_repeat(cc *c, layer *L, cval *x, int xrank, const int64_t *xd, int rank, const int64_t *d,
                    cval *out)
{
    cval v;
    int rc = sim_op_alias(c, x, x->et, xrank, xd, &v);
    if (rc)
        return rc;
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_BROADCAST;
    cval *ins[1] = {&v};
    return sim_op_emit(c, L, &s, ins, 1, x->et, rank, d, out);
}

static const char *const bc_modes[] = {"numpy", "explicit", "bidirectional", "pdpd"};

/* Broadcast-1 and -3: a constant target_shape; mode numpy (default), explicit
 * (a constant axes_mapping input, ascending), bidirectional (opset3). */
int sim_op_broadcast_op(cc *c, layer *L, int opset, int sub)
{
    (void)sub;
    int mode, rc = sim_op_need_ports(c, L, 2, 3, 1);
    if (rc || (rc = sim_op_attr_enum(c, L, "mode", bc_modes, 4, 0, &mode)))
        return rc;
    if (mode == 3 || (mode == 2 && opset < 3))
        return sim_lerr(c, L, "Broadcast mode %s is not supported%s", bc_modes[mode],
                        mode == 2 ? " before opset3" : "");
    cval *x = sim_op_input(c, L, 0);
    int64_t t[SIM_MAX_RANK], d[SIM_MAX_RANK], xd[SIM_MAX_RANK];
    int nt, rank;
    if ((rc = sim_op_const_ints(c, L, 1, t, SIM_MAX_RANK, &nt, "target_shape")))
        return rc;
    for (int i = 0; i < nt; i++)
        if (t[i] < 0)
            return sim_lerr(c, L, "Broadcast target_shape holds a negative dim %" PRId64, t[i]);
    char a[160], b[160];
    sim_op_fmt_dims(a, sizeof a, x->rank, x->d);
    sim_op_fmt_dims(b, sizeof b, nt, t);
    if (mode == 1) {   /* explicit: data dim i lands on target axis axes_mapping[i] */
        int64_t ax[SIM_MAX_RANK];
        int na;
        if (L->n_in != 3)
            return sim_lerr(c, L, "Broadcast mode explicit needs the axes_mapping input");
        if ((rc = sim_op_const_ints(c, L, 2, ax, SIM_MAX_RANK, &na, "axes_mapping")))
            return rc;
        if (na != x->rank)
            return sim_lerr(c, L, "Broadcast axes_mapping has %d values for data of rank %d", na, x->rank);
        for (int i = 0; i < nt; i++)
            xd[i] = 1;
        for (int i = 0; i < na; i++) {
            if (ax[i] < 0 || ax[i] >= nt || (i && ax[i] <= ax[i - 1]))
                return sim_lerr(c, L, "Broadcast axes_mapping must be ascending axes of the target %s", b);
            if (x->d[i] != t[ax[i]] && x->d[i] != 1)
                return sim_lerr(c, L, "Broadcast data %s dim %d does not fit target %s axis %" PRId64,
                                a, i, b, ax[i]);
            xd[ax[i]] = x->d[i];
        }
        return q_repeat(c, L, x, nt, xd, nt, t, &L->val[0]);
    }
    cval tv;
    memset(&tv, 0, sizeof tv);
    tv.rank = nt;
    memcpy(tv.d, t, sizeof t);
    int ok = sim_op_broadcast(x, &tv, d, &rank);
    if (ok && mode == 0)    /* numpy: the result is the target shape itself */
        ok = q_same_dims(&tv, rank, d);
    if (!ok)
        return sim_lerr(c, L, "Broadcast (%s) of data %s to target %s is not possible", bc_modes[mode], a, b);
    return q_repeat(c, L, x, x->rank, x->d, rank, d, &L->val[0]);
}

/* Tile-1: constant non-negative repeats; the shorter of data shape and repeats
 * is padded with leading 1s. Each axis that repeats a dim above 1 gets a new
 * axis of the repeat count in front of it, then one BROADCAST step. */
int sim_op_tile(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = sim_op_need_ports(c, L, 2, 2, 1), nr;
    int64_t rep[SIM_MAX_RANK];
    if (rc || (rc = sim_op_const_ints(c, L, 1, rep, SIM_MAX_RANK, &nr, "repeats")))
        return rc;
    cval *x = sim_op_input(c, L, 0);
    int r = x->rank > nr ? x->rank : nr;
    int64_t xd[SIM_MAX_RANK], rp[SIM_MAX_RANK], od[SIM_MAX_RANK];
    int64_t vd[SIM_MAX_RANK], bd[SIM_MAX_RANK];
    int vr = 0;
    for (int i = 0; i < r; i++) {
        xd[i] = i < r - x->rank ? 1 : x->d[i - (r - x->rank)];
        rp[i] = i < r - nr ? 1 : rep[i - (r - nr)];
        if (rp[i] < 0)
            return sim_lerr(c, L, "Tile repeats hold a negative value %" PRId64, rp[i]);
        if (xd[i] && rp[i] > INT64_MAX / xd[i])
            return sim_lerr(c, L, "Tile output is too large");
        od[i] = xd[i] * rp[i];
        if (xd[i] != 1 && rp[i] != 1) {
            if (vr + 2 > SIM_MAX_RANK)
                return sim_lerr(c, L, "Tile needs more than %d dims to lower (too many repeated axes)",
                                SIM_MAX_RANK);
            vd[vr] = 1;
            bd[vr++] = rp[i];
        }
        vd[vr] = xd[i];
        bd[vr++] = xd[i] == 1 ? rp[i] : xd[i];
    }
    cval y;
    if ((rc = q_repeat(c, L, x, vr, vd, vr, bd, &y)))
        return rc;
    return sim_op_alias(c, &y, x->et, r, od, &L->val[0]);
}
