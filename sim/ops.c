/* ops.c - the compiler's ops (see compiler_internal.h): per-op shape and type
 * inference and lowering to kernel steps.
 *
 * Owns, one section each:
 *   values      compile-time tensors: constants (raw bytes until needed), arena
 *               buffers, the constant pool; emit() appends a step, and runs it at
 *               once when all its inputs are constant (folding)
 *   attributes  reading a layer's <data> attributes
 *   handlers    one per OpenVINO op: checks ports and attributes, infers the
 *               output shape and type, emits steps; ReadValue/Assign variables
 *   table       op names, opsets, handlers
 *   arguments   the graph arguments from Parameters, Results and variables
 *   lowering    loading the model with its ops checked, every layer in order
 *   query       the layers the ops support (pfnQueryNetwork*)
 * Calls payload.c (the context, diagnostics, XML attributes, IR parsers, the
 * net and its order), exec.c (step checks, constant folding) and kernels.c
 * (constant conversion); never planner.c.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/tree.h>

#include "sim/compiler_internal.h"

#define MAX_FOLD_FLOATS ((uint64_t)1 << 26)

/* ==== helpers ============================================================= */

static int grow(void *pp, uint32_t *cap, uint32_t need, size_t elem)
{
    void **p = pp;
    if (need <= *cap)
        return 1;
    if (need > (1u << 24))
        return 0;
    uint32_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, (size_t)nc * elem);
    if (!q)
        return 0;
    *p = q;
    *cap = nc;
    return 1;
}

static void fmt_dims(char *buf, size_t cap, int rank, const int64_t *d)
{
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < rank && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, i ? ",%" PRId64 : "%" PRId64, d[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}

/* ==== values: tensors, constants, arena buffers =========================== */

static uint32_t add_tensor(cc *c, uint32_t where, uint64_t offset, uint32_t et, int rank,
                           const int64_t *d)
{
    if (!grow(&c->tensors, &c->cap_tensors, c->n_tensors + 1, sizeof(sim_tensor))) {
        c->nomem = 1;
        return NO_TENSOR;
    }
    sim_tensor *t = &c->tensors[c->n_tensors];
    memset(t, 0, sizeof *t);
    t->where = where;
    t->et = et;
    t->offset = offset;
    t->rank = rank;
    for (int i = 0; i < rank; i++)
        t->d[i] = d[i];
    return c->n_tensors++;
}

static int numel_of(int rank, const int64_t *d, uint64_t *n)
{
    sim_tensor t;
    memset(&t, 0, sizeof t);
    t.rank = rank;
    for (int i = 0; i < rank; i++)
        t.d[i] = d[i];
    int ok;
    *n = sim_tensor_numel(&t, &ok);
    return ok;
}

/* A new arena buffer of the given shape; returns its tensor. */
static uint32_t add_arena(cc *c, uint32_t et, int rank, const int64_t *d)
{
    uint64_t n;
    if (!numel_of(rank, d, &n) || !grow(&c->buf_size, &c->cap_bufs, c->n_bufs + 1, sizeof(uint64_t))) {
        c->nomem = 1;
        return NO_TENSOR;
    }
    c->buf_size[c->n_bufs] = n;
    return add_tensor(c, SIM_T_ARENA, c->n_bufs++, et, rank, d);
}

static int pool_alloc(cc *c, uint64_t n, uint64_t *off)
{
    n = (n + 15) & ~(uint64_t)15;  /* every constant starts 64-byte aligned */
    if (c->pool_n + n > c->pool_cap) {
        uint64_t cap = c->pool_cap ? c->pool_cap : 4096;
        while (cap < c->pool_n + n)
            cap *= 2;
        if (cap > ((uint64_t)1 << 34))
            return 0;
        float *q = realloc(c->pool, (size_t)cap * sizeof(float));
        if (!q)
            return 0;
        c->pool = q;
        c->pool_cap = cap;
    }
    /* Zero the whole slot, padding included: the pool goes into the native blob,
     * which must be a deterministic function of the model. */
    memset(c->pool + c->pool_n, 0, (size_t)n * sizeof(float));
    *off = c->pool_n;
    c->pool_n += n;
    return 1;
}

/* Makes sure a value has a tensor (copies a raw constant into the pool as f32). */
static int materialize(cc *c, cval *v)
{
    if (v->tensor != NO_TENSOR)
        return SIM_OK;
    uint64_t n, off;
    uint32_t esz = sim_prec_size(v->raw_et);
    if (!numel_of(v->rank, v->d, &n) || !pool_alloc(c, n, &off))
        return sim_nomem(c);
    uint8_t tmp[4096];
    uint64_t chunk = sizeof tmp / esz;
    for (uint64_t i = 0; i < n; i += chunk) {
        uint64_t m = n - i < chunk ? n - i : chunk;
        memcpy(tmp, v->raw + i * esz, (size_t)(m * esz)); /* raw may be unaligned */
        sim_cvt_to_f32(v->raw_et, tmp, c->pool + off + i, (size_t)m);
    }
    v->tensor = add_tensor(c, SIM_T_CONST, off, v->et, v->rank, v->d);
    return v->tensor == NO_TENSOR ? sim_nomem(c) : SIM_OK;
}

static int is_const(const cc *c, const cval *v)
{
    return v->tensor == NO_TENSOR || c->tensors[v->tensor].where == SIM_T_CONST;
}

/* The same storage under another shape (Reshape, Squeeze, ...). */
static int alias(cc *c, const cval *src, uint32_t et, int rank, const int64_t *d, cval *out)
{
    *out = *src;
    out->et = et;
    out->rank = rank;
    for (int i = 0; i < rank; i++)
        out->d[i] = d[i];
    if (src->tensor == NO_TENSOR)
        return SIM_OK;
    const sim_tensor *t = &c->tensors[src->tensor];
    out->tensor = add_tensor(c, t->where, t->offset, et, rank, d);
    return out->tensor == NO_TENSOR ? sim_nomem(c) : SIM_OK;
}

static cval *input(cc *c, layer *L, int i)
{
    return &c->layers[L->src[i]].val[L->src_port[i]];
}

/* Integer contents of a constant input (shapes, axes, permutations). */
static int const_ints(cc *c, layer *L, int i, int64_t *out, int max, int *count, const char *what)
{
    cval *v = input(c, L, i);
    if (!is_const(c, v))
        return sim_lerr(c, L, "input %d (%s) must be a constant", i, what);
    uint64_t n;
    if (!numel_of(v->rank, v->d, &n) || v->rank > 1 || n > (uint64_t)max)
        return sim_lerr(c, L, "input %d (%s) must be a scalar or 1-D with at most %d values", i, what, max);
    for (uint64_t k = 0; k < n; k++) {
        if (v->tensor == NO_TENSOR) {
            const uint8_t *p = v->raw;
            switch (v->raw_et) {
            case SIM_P_I64: { int64_t x; memcpy(&x, p + k * 8, 8); out[k] = x; break; }
            case SIM_P_I32: { int32_t x; memcpy(&x, p + k * 4, 4); out[k] = x; break; }
            case SIM_P_I8: out[k] = (int8_t)p[k]; break;
            case SIM_P_U8: out[k] = p[k]; break;
            default:
                return sim_lerr(c, L, "input %d (%s) must have an integer element type", i, what);
            }
        } else {
            float f = c->pool[c->tensors[v->tensor].offset + k];
            if (f != (float)(int64_t)f)
                return sim_lerr(c, L, "input %d (%s) holds a non-integer value", i, what);
            out[k] = (int64_t)f;
        }
    }
    *count = (int)n;
    return SIM_OK;
}

/* Appends a step reading `ins` and writing a new tensor of the given shape. Steps
 * whose inputs are all constants run right here and their result joins the pool. */
static int emit(cc *c, layer *L, sim_step *s, cval **ins, int n_in, uint32_t et, int rank,
                const int64_t *d, cval *out)
{
    for (int i = 0; i < n_in; i++) {
        int rc = materialize(c, ins[i]);
        if (rc)
            return rc;
    }
    int all_const = 1;
    for (int i = 0; i < n_in; i++)
        all_const &= c->tensors[ins[i]->tensor].where == SIM_T_CONST;
    uint64_t n;
    if (!numel_of(rank, d, &n))
        return sim_lerr(c, L, "output is too large");
    if (!grow(&c->step_inputs, &c->cap_step_inputs, c->n_step_inputs + (uint32_t)n_in,
              sizeof(uint32_t)) ||
        !grow(&c->steps, &c->cap_steps, c->n_steps + 1, sizeof(sim_step)))
        return sim_nomem(c);
    s->in_first = c->n_step_inputs;
    s->in_count = (uint32_t)n_in;
    for (int i = 0; i < n_in; i++)
        c->step_inputs[c->n_step_inputs + (uint32_t)i] = ins[i]->tensor;
    if (sim_prec_is_integer(et) && s->op != SIM_S_CONVERT && s->op != SIM_S_SLICE &&
        s->op != SIM_S_SLICE_STEP &&
        s->op != SIM_S_GATHER && s->op != SIM_S_TRANSPOSE && s->op != SIM_S_CONCAT &&
        s->op != SIM_S_SELECT && s->op != SIM_S_BROADCAST)
        s->round_prec = et;
    int fold = all_const && n <= MAX_FOLD_FLOATS;
    uint64_t off = 0;
    if (fold && !pool_alloc(c, n, &off))
        return sim_nomem(c);
    s->out = fold ? add_tensor(c, SIM_T_ARENA, off, et, rank, d) : add_arena(c, et, rank, d);
    if (s->out == NO_TENSOR)
        return sim_nomem(c);
    sim_plan view;
    memset(&view, 0, sizeof view);
    view.tensors = c->tensors;
    view.n_tensors = c->n_tensors;
    view.step_inputs = c->step_inputs;
    view.n_step_inputs = c->n_step_inputs + (uint32_t)n_in;
    view.consts = c->pool;
    if (!sim_step_check(&view, s))
        return sim_lerr(c, L, "internal error: inconsistent step (op %u)", s->op);
    memset(out, 0, sizeof *out);
    out->set = 1;
    out->et = et;
    out->rank = rank;
    for (int i = 0; i < rank; i++)
        out->d[i] = d[i];
    out->tensor = s->out;
    c->n_step_inputs += (uint32_t)n_in;
    if (fold) {
        int rc = sim_step_run(&view, c->pool, s);
        if (rc)
            return sim_nomem(c);
        c->tensors[s->out].where = SIM_T_CONST;
        return SIM_OK;
    }
    s->layer = L != NULL ? (int32_t)(L - c->layers) : -1;  /* the planner renumbers it */
    c->steps[c->n_steps++] = *s;
    return SIM_OK;
}

/* ==== ops: attributes ===================================================== */

static int has_attr(layer *L, const char *name)
{
    char *v = sim_get_attr(L->data, name);
    xmlFree(v);
    return v != NULL;
}

/* Copies attribute `name` into buf (truncated); returns 0 when absent. */
static int attr_str(layer *L, const char *name, char *buf, size_t cap)
{
    char *v = sim_get_attr(L->data, name);
    if (!v)
        return 0;
    snprintf(buf, cap, "%s", v);
    xmlFree(v);
    return 1;
}

static int attr_int(cc *c, layer *L, const char *name, int64_t dflt, int64_t *out)
{
    char buf[64];
    if (!attr_str(L, name, buf, sizeof buf)) {
        *out = dflt;
        return SIM_OK;
    }
    if (!sim_parse_i64(buf, out))
        return sim_lerr(c, L, "attribute %s=\"%s\" is not an integer", name, buf);
    return SIM_OK;
}

static int attr_bool(cc *c, layer *L, const char *name, int dflt, int *out)
{
    char buf[16];
    if (!attr_str(L, name, buf, sizeof buf)) {
        *out = dflt;
        return SIM_OK;
    }
    if (!strcasecmp(buf, "true") || !strcmp(buf, "1"))
        *out = 1;
    else if (!strcasecmp(buf, "false") || !strcmp(buf, "0"))
        *out = 0;
    else
        return sim_lerr(c, L, "attribute %s=\"%s\" is not a boolean", name, buf);
    return SIM_OK;
}

static int attr_float(cc *c, layer *L, const char *name, double *out)
{
    char buf[64];
    if (!attr_str(L, name, buf, sizeof buf))
        return sim_lerr(c, L, "attribute %s is missing", name);
    char *end;
    errno = 0;
    *out = strtod(buf, &end);
    if (end == buf || *sim_skip_ws(end))
        return sim_lerr(c, L, "attribute %s=\"%s\" is not a number", name, buf);
    return SIM_OK;
}

/* A list attribute with exactly `want` values ("1, 1"); absent -> dflt each. */
static int attr_list(cc *c, layer *L, const char *name, int want, int64_t dflt, int64_t *out)
{
    char buf[256];
    if (!attr_str(L, name, buf, sizeof buf)) {
        for (int i = 0; i < want; i++)
            out[i] = dflt;
        return SIM_OK;
    }
    int rank, dyn, dyn_rank;
    int64_t d[SIM_MAX_RANK];
    if (!sim_parse_shape(buf, &rank, d, &dyn, &dyn_rank) || dyn || rank != want)
        return sim_lerr(c, L, "attribute %s=\"%s\" needs %d non-negative integers", name, buf, want);
    for (int i = 0; i < want; i++)
        out[i] = d[i];
    return SIM_OK;
}

static int need_ports(cc *c, layer *L, int min_in, int max_in, int min_out)
{
    if (L->n_in < min_in || L->n_in > max_in)
        return sim_lerr(c, L, "%s expects %d..%d inputs, has %d", L->type, min_in, max_in, L->n_in);
    if (L->n_out < min_out)
        return sim_lerr(c, L, "%s expects %d output(s), has %d", L->type, min_out, L->n_out);
    return SIM_OK;
}

static int norm_axis(cc *c, layer *L, int64_t axis, int rank, int allow_negative, int *out)
{
    if (axis < 0 && allow_negative)
        axis += rank;
    if (axis < 0 || axis >= rank)
        return sim_lerr(c, L, "axis %" PRId64 " is out of range for rank %d", axis, rank);
    *out = (int)axis;
    return SIM_OK;
}

/* Parses element-type attribute `name`; unsupported or missing -> error. */
static int attr_et(cc *c, layer *L, const char *name, uint32_t *out)
{
    char buf[64];
    if (!attr_str(L, name, buf, sizeof buf))
        return sim_lerr(c, L, "attribute %s is missing", name);
    *out = sim_prec_from_name(buf);
    if (!*out)
        return sim_lerr(c, L, "unsupported element type %s", buf);
    return SIM_OK;
}

/* ==== ops: handlers ======================================================= */

static int attr_enum(cc *c, layer *L, const char *name, const char *const *names, int n, int dflt,
                     int *out);

typedef int (*op_fn)(cc *c, layer *L, int opset, int sub);

static int check_declared(cc *c, layer *L, int rank, const int64_t *d)
{
    const port *p = &L->out[0];
    int ok = p->rank == rank;
    for (int i = 0; ok && i < rank; i++)
        ok = p->d[i] == d[i];
    if (!ok) {
        char a[160], b[160];
        fmt_dims(a, sizeof a, p->rank, p->d);
        fmt_dims(b, sizeof b, rank, d);
        return sim_lerr(c, L, "declared output dims %s do not match shape %s", a, b);
    }
    return SIM_OK;
}

static int op_parameter(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 0, 0, 1);
    if (rc)
        return rc;
    uint32_t et = 0;
    char buf[512];
    if (has_attr(L, "element_type")) {
        if ((rc = attr_et(c, L, "element_type", &et)))
            return rc;
    } else if (!(et = L->out[0].prec)) {
        return sim_lerr(c, L, "no supported element type");
    }
    int rank, dyn, dyn_rank;
    int64_t d[SIM_MAX_RANK];
    if (attr_str(L, "shape", buf, sizeof buf)) {
        if (!sim_parse_shape(buf, &rank, d, &dyn, &dyn_rank))
            return sim_lerr(c, L, "malformed shape \"%s\"", buf);
    } else {
        rank = L->out[0].rank;
        memcpy(d, L->out[0].d, sizeof d);
        dyn = 0;
        for (int i = 0; i < rank; i++)
            dyn |= d[i] < 0;
    }
    if (dyn)
        return sim_lerr(c, L, "dynamic shape on input '%s' not supported by the sim compiler; "
                          "reshape to static first", L->name);
    if ((rc = check_declared(c, L, rank, d)))
        return rc;
    cval *v = &L->val[0];
    v->set = 1;
    v->et = et;
    v->rank = rank;
    memcpy(v->d, d, sizeof d);
    v->tensor = add_arena(c, et, rank, d);
    return v->tensor == NO_TENSOR ? sim_nomem(c) : SIM_OK;
}

/* OpenVINO's get_uint64_attr: std::stoll in base 10 (leading blanks and a sign
 * allowed), the whole text consumed, not negative. So no hex, and nothing above
 * INT64_MAX. */
static int parse_u64_attr(const char *s, uint64_t *out)
{
    if (!s)
        return 0;
    const char *t = s;
    while (isspace((unsigned char)*t))
        t++;
    if (!*t)
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(t, &end, 10);
    if (errno || end == t || *end || v < 0)
        return 0;
    *out = (uint64_t)v;
    return 1;
}

/* Layout B: <rt_info><attribute name="WeightsPointerAttribute" mp=".." ms=".."/>. */
static xmlNodePtr weights_pointer(layer *L)
{
    xmlNodePtr rt = sim_first_child(L->node, "rt_info");
    for (xmlNodePtr a = sim_first_child(rt, "attribute"); a; a = sim_next_sibling(a, "attribute")) {
        char *name = sim_get_attr(a, "name");
        int hit = name && strcmp(name, "WeightsPointerAttribute") == 0;
        xmlFree(name);
        if (hit)
            return a;
    }
    return NULL;
}

static int op_const(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    static const uint8_t empty[8];
    int rc = need_ports(c, L, 0, 0, 1);
    if (rc)
        return rc;
    uint32_t et;
    if ((rc = attr_et(c, L, "element_type", &et)))
        return rc;
    char buf[512];
    int rank, dyn, dyn_rank;
    int64_t d[SIM_MAX_RANK];
    if (!attr_str(L, "shape", buf, sizeof buf) || !sim_parse_shape(buf, &rank, d, &dyn, &dyn_rank) || dyn)
        return sim_lerr(c, L, "missing, malformed or dynamic shape");
    if ((rc = check_declared(c, L, rank, d)))
        return rc;
    uint64_t n;
    if (!numel_of(rank, d, &n))
        return sim_lerr(c, L, "constant is too large");
    uint64_t need = n * sim_prec_size(et);
    const uint8_t *raw = NULL;
    xmlNodePtr wp = c->pl.layout_b ? weights_pointer(L) : NULL;
    if (wp) {
        /* The key names are those of the OpenVINO the compiler was built with. */
        const char *kp = c->prof->wpa_ptr_key ? c->prof->wpa_ptr_key : "mp";
        const char *ks = c->prof->wpa_size_key ? c->prof->wpa_size_key : "ms";
        uint64_t addr = 0, size = 0;
        for (int k = 0; k < 2; k++) {
            const char *key = k ? ks : kp;
            char *txt = sim_get_attr(wp, key);
            int ok = txt && parse_u64_attr(txt, k ? &size : &addr);
            if (!txt)
                rc = sim_lerr_rc(c, L, SIM_ERR_READ_MODEL,
                                 "node <attribute> (WeightsPointerAttribute) is missing mandatory "
                                 "attribute: %s", key);
            else if (!ok)
                rc = sim_lerr_rc(c, L, SIM_ERR_READ_MODEL,
                                 "node <attribute> (WeightsPointerAttribute) has attribute \"%s\" = "
                                 "\"%s\" which is not an unsigned 64 bit integer", key, txt);
            xmlFree(txt);
            if (rc)
                return rc;
        }
        if (size != need)
            return sim_lerr(c, L, "Const size mismatch: WeightsPointerAttribute %s=%" PRIu64
                              " but %" PRIu64 " x %s needs %" PRIu64 " bytes",
                            ks, size, n, sim_prec_name(et), need);
        if (need && !addr)
            return sim_lerr(c, L, "WeightsPointerAttribute has a null address");
        /* The address is in this process: the driver's caller serialized it (trusted
         * by design, as for the real driver's in-process compiler). A fuzz target
         * cannot trust it, so it maps addresses into its own buffer instead
         * (tests/fuzz/sim_fuzz.h defines SIM_FUZZ_WEIGHTS_POINTER). */
#ifdef SIM_FUZZ_WEIGHTS_POINTER
        raw = need ? SIM_FUZZ_WEIGHTS_POINTER(addr, need) : empty;
        if (!raw)
            return sim_lerr(c, L, "WeightsPointerAttribute outside the fuzz weights");
#else
        raw = need ? (const uint8_t *)(uintptr_t)addr : empty;
#endif
    } else {
        int64_t off, size;
        if ((rc = attr_int(c, L, "offset", -1, &off)) || (rc = attr_int(c, L, "size", -1, &size)))
            return rc;
        if (off < 0 || size < 0)
            return sim_lerr(c, L, "Const without valid offset/size");
        if ((uint64_t)size != need)
            return sim_lerr(c, L, "Const size mismatch: size=%" PRId64 " but %" PRIu64 " x %s needs %"
                              PRIu64 " bytes", size, n, sim_prec_name(et), need);
        if (!sim_range_ok((uint64_t)off, (uint64_t)size, c->pl.consts_size))
            return sim_lerr(c, L, "Const bytes %" PRId64 "+%" PRId64 " lie outside the %zu-byte %s",
                            off, size, c->pl.consts_size, c->pl.layout_b ? "constants blob" : "weights");
        raw = need ? c->pl.consts + off : empty;
    }
    cval *v = &L->val[0];
    v->set = 1;
    v->et = et;
    v->raw_et = et;
    v->raw = raw;
    v->rank = rank;
    memcpy(v->d, d, sizeof d);
    v->tensor = NO_TENSOR;
    return SIM_OK;
}

static int op_result(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 1, 1, 0);
    if (rc)
        return rc;
    return materialize(c, input(c, L, 0));
}

static int op_convert(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 1, 1, 1);
    uint32_t to;
    if (rc || (rc = attr_et(c, L, "destination_type", &to)))
        return rc;
    cval *x = input(c, L, 0);
    /* Values are f32 inside, so converting to f32 (or to the same type) changes nothing. */
    if (to == SIM_P_FP32 || to == x->et)
        return alias(c, x, to, x->rank, x->d, &L->val[0]);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_CONVERT;
    s.prec = to;
    /* between integer types C++'s static_cast (OpenVINO's reference) wraps */
    s.sub = sim_prec_is_integer(x->et) && x->et != SIM_P_BOOL && to != SIM_P_BOOL;
    return emit(c, L, &s, &x, 1, to, x->rank, x->d, &L->val[0]);
}

static int op_unary(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    int rc = need_ports(c, L, 1, 1, 1);
    if (rc)
        return rc;
    cval *x = input(c, L, 0);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_UNARY;
    s.sub = (uint32_t)sub;
    return emit(c, L, &s, &x, 1, x->et, x->rank, x->d, &L->val[0]);
}

static int is_float_et(uint32_t et)
{
    return et == SIM_P_FP32 || et == SIM_P_FP16 || et == SIM_P_BF16;
}

/* A constant of the given shape with every element `v` (pool, zero-padded slot). */
static int const_fill(cc *c, layer *L, uint32_t et, int rank, const int64_t *d, float v, cval *out)
{
    uint64_t n, off;
    if (!numel_of(rank, d, &n) || n > MAX_FOLD_FLOATS)
        return sim_lerr(c, L, "constant block of %" PRIu64 " elements is too large", n);
    if (!pool_alloc(c, n, &off))
        return sim_nomem(c);
    for (uint64_t i = 0; i < n; i++)
        c->pool[off + i] = v;
    memset(out, 0, sizeof *out);
    out->set = 1;
    out->et = et;
    out->rank = rank;
    for (int i = 0; i < rank; i++)
        out->d[i] = d[i];
    out->tensor = add_tensor(c, SIM_T_CONST, off, et, rank, d);
    return out->tensor == NO_TENSOR ? sim_nomem(c) : SIM_OK;
}

/* Erf, Log, Floor (opset1): any numeric element type. Integer tensors follow
 * OpenVINO's reference for integral T (sim_k_unary_int). */
static int op_arith_unary(cc *c, layer *L, int opset, int sub)
{
    int rc = need_ports(c, L, 1, 1, 1);
    if (rc)
        return rc;
    if (input(c, L, 0)->et == SIM_P_BOOL)
        return sim_lerr(c, L, "%s: arguments cannot have boolean element type", L->type);
    return op_unary(c, L, opset, sub);
}

static const char *const gelu_modes[] = {"erf", "tanh"};

/* HSwish-4, HSigmoid-5, Mish-4, Gelu-2 and Gelu-7: floating-point element types
 * (OpenVINO evaluates them through f32 only). Gelu-7 reads approximation_mode
 * (default erf); Gelu-2 is always erf. */
static int op_float_unary(cc *c, layer *L, int opset, int sub)
{
    int rc = need_ports(c, L, 1, 1, 1);
    if (rc)
        return rc;
    cval *x = input(c, L, 0);
    if (!is_float_et(x->et))
        return sim_lerr(c, L, "%s of element type %s is not supported: the input must be f32, f16 "
                          "or bf16", L->type, sim_prec_name(x->et));
    if (sub == SIM_UN_GELU_ERF && opset >= 7) {
        int mode;
        if ((rc = attr_enum(c, L, "approximation_mode", gelu_modes, 2, 0, &mode)))
            return rc;
        if (mode == 1)
            sub = SIM_UN_GELU_TANH;
    }
    return op_unary(c, L, opset, sub);
}

/* Swish-4: x / (1 + exp(-x * beta)), beta a scalar input of x's type (1 when absent). */
static int op_swish(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 1, 2, 1);
    if (rc)
        return rc;
    cval *x = input(c, L, 0), one, *beta = &one;
    if (!is_float_et(x->et))
        return sim_lerr(c, L, "Swish input tensor must be floating point type(%s).", sim_prec_name(x->et));
    if (L->n_in == 2) {
        beta = input(c, L, 1);
        if (beta->et != x->et)
            return sim_lerr(c, L, "Swish inputs must have the same type but they are: %s and %s",
                            sim_prec_name(x->et), sim_prec_name(beta->et));
        if (beta->rank != 0)
            return sim_lerr(c, L, "Swish input with beta must be scalar but it has rank: %d", beta->rank);
    } else if ((rc = const_fill(c, L, x->et, 0, NULL, 1.0f, &one))) {
        return rc;
    }
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_BINARY;
    s.sub = SIM_BIN_SWISH;
    cval *ins[2] = {x, beta};
    return emit(c, L, &s, ins, 2, x->et, x->rank, x->d, &L->val[0]);
}

static int op_clamp(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 1, 1, 1);
    double lo, hi;
    if (rc || (rc = attr_float(c, L, "min", &lo)) || (rc = attr_float(c, L, "max", &hi)))
        return rc;
    if (lo > hi)
        return sim_lerr(c, L, "Clamp min %g > max %g", lo, hi);
    cval *x = input(c, L, 0);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_CLAMP;
    s.lo = (float)lo;
    s.hi = (float)hi;
    return emit(c, L, &s, &x, 1, x->et, x->rank, x->d, &L->val[0]);
}

static int broadcast(const cval *a, const cval *b, int64_t *d, int *rank)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < r; i++) {
        int64_t x = i < r - a->rank ? 1 : a->d[i - (r - a->rank)];
        int64_t y = i < r - b->rank ? 1 : b->d[i - (r - b->rank)];
        if (x != y && x != 1 && y != 1)
            return 0;
        d[i] = x == 1 ? y : x;
    }
    *rank = r;
    return 1;
}

static int binary_to(cc *c, layer *L, int sub, int boolean);

static int op_binary(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    return binary_to(c, L, sub, 0);
}

/* Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual (opset1): inputs of one
 * element type, numpy or none broadcasting, a boolean result. */
static int op_compare(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    int rc = need_ports(c, L, 2, 2, 1);
    if (rc)
        return rc;
    uint32_t a = input(c, L, 0)->et, b = input(c, L, 1)->et;
    if (a != b)
        return sim_lerr(c, L, "%s: arguments do not have the same element type (%s, %s)", L->type,
                        sim_prec_name(a), sim_prec_name(b));
    return binary_to(c, L, sub, 1);
}

static int binary_to(cc *c, layer *L, int sub, int boolean)
{
    int rc = need_ports(c, L, 2, 2, 1);
    if (rc)
        return rc;
    cval *in[2] = {input(c, L, 0), input(c, L, 1)};
    char mode[32] = "numpy";
    attr_str(L, "auto_broadcast", mode, sizeof mode);
    int64_t d[SIM_MAX_RANK];
    int rank;
    char a[160], b[160];
    fmt_dims(a, sizeof a, in[0]->rank, in[0]->d);
    fmt_dims(b, sizeof b, in[1]->rank, in[1]->d);
    if (!strcasecmp(mode, "none")) {
        int same = in[0]->rank == in[1]->rank;
        for (int i = 0; same && i < in[0]->rank; i++)
            same = in[0]->d[i] == in[1]->d[i];
        if (!same)
            return sim_lerr(c, L, "auto_broadcast=none needs equal shapes, got %s and %s", a, b);
    } else if (strcasecmp(mode, "numpy") != 0) {
        return sim_lerr(c, L, "unsupported auto_broadcast=\"%s\" (numpy or none)", mode);
    }
    if (!broadcast(in[0], in[1], d, &rank))
        return sim_lerr(c, L, "shapes %s and %s do not broadcast", a, b);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_BINARY;
    s.sub = (uint32_t)sub;
    return emit(c, L, &s, in, 2, boolean ? SIM_P_BOOL : in[0]->et, rank, d, &L->val[0]);
}

/* SoftMax-1/-8 (sub 0) and LogSoftmax-5 (sub 1: floating types, negative axis). */
static int op_softmax(cc *c, layer *L, int opset, int sub)
{
    int rc = need_ports(c, L, 1, 1, 1);
    int64_t axis;
    if (rc || (rc = attr_int(c, L, "axis", 1, &axis)))
        return rc;
    cval *x = input(c, L, 0);
    if (sub && !is_float_et(x->et))
        return sim_lerr(c, L, "LogSoftmax of element type %s is not supported: the input must be f32, "
                          "f16 or bf16", sim_prec_name(x->et));
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_SOFTMAX;
    s.sub = (uint32_t)sub;
    if ((rc = norm_axis(c, L, axis, x->rank, opset >= 8 || sub, &s.axis)))
        return rc;
    return emit(c, L, &s, &x, 1, x->et, x->rank, x->d, &L->val[0]);
}

static int op_matmul(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 2, 2, 1);
    int ta, tb;
    if (rc || (rc = attr_bool(c, L, "transpose_a", 0, &ta)) || (rc = attr_bool(c, L, "transpose_b", 0, &tb)))
        return rc;
    cval a = *input(c, L, 0), b = *input(c, L, 1);
    if (a.rank < 1 || b.rank < 1)
        return sim_lerr(c, L, "MatMul operands must have rank >= 1");
    /* 1-D operands become [1,K] / [K,1]; the added dim is dropped from the result. */
    int drop_m = a.rank == 1, drop_n = b.rank == 1;
    cval a2, b2;
    int64_t d[SIM_MAX_RANK];
    if (drop_m) {
        d[0] = 1;
        d[1] = a.d[0];
        ta = 0;
        if ((rc = alias(c, input(c, L, 0), a.et, 2, d, &a2)))
            return rc;
    } else {
        a2 = a;
    }
    if (drop_n) {
        d[0] = b.d[0];
        d[1] = 1;
        tb = 0;
        if ((rc = alias(c, input(c, L, 1), b.et, 2, d, &b2)))
            return rc;
    } else {
        b2 = b;
    }
    int64_t m = ta ? a2.d[a2.rank - 1] : a2.d[a2.rank - 2];
    int64_t ka = ta ? a2.d[a2.rank - 2] : a2.d[a2.rank - 1];
    int64_t kb = tb ? b2.d[b2.rank - 1] : b2.d[b2.rank - 2];
    int64_t n = tb ? b2.d[b2.rank - 2] : b2.d[b2.rank - 1];
    char sa[160], sb[160];
    fmt_dims(sa, sizeof sa, a.rank, a.d);
    fmt_dims(sb, sizeof sb, b.rank, b.d);
    if (ka != kb)
        return sim_lerr(c, L, "MatMul inner dims differ: %s x %s (transpose_a=%d transpose_b=%d)", sa, sb,
                        ta, tb);
    cval ba = a2, bb = b2;
    ba.rank -= 2;
    bb.rank -= 2;
    int rank;
    if (!broadcast(&ba, &bb, d, &rank) || rank + 2 > SIM_MAX_RANK)
        return sim_lerr(c, L, "MatMul batch dims of %s and %s do not broadcast", sa, sb);
    d[rank] = m;
    d[rank + 1] = n;
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_MATMUL;
    s.transpose_a = ta;
    s.transpose_b = tb;
    cval *ins[2] = {&a2, &b2};
    cval y;
    if ((rc = emit(c, L, &s, ins, 2, a.et, rank + 2, d, &y)))
        return rc;
    /* keep the materialized constants of the originals for other consumers */
    if (!drop_m)
        input(c, L, 0)->tensor = a2.tensor;
    if (!drop_n)
        input(c, L, 1)->tensor = b2.tensor;
    int fr = 0;
    int64_t fd[SIM_MAX_RANK];
    for (int i = 0; i < rank; i++)
        fd[fr++] = d[i];
    if (!drop_m)
        fd[fr++] = m;
    if (!drop_n)
        fd[fr++] = n;
    if (drop_m || drop_n)
        return alias(c, &y, a.et, fr, fd, &L->val[0]);
    L->val[0] = y;
    return SIM_OK;
}

/* Resolves auto_pad into explicit pads for one spatial dim. */
static void same_pads(int64_t in, int64_t k, int64_t st, int64_t dl, int upper, int64_t *pb, int64_t *pe)
{
    int64_t out = (in + st - 1) / st;
    int64_t span = (k - 1) * dl + 1;
    int64_t total = (out - 1) * st + span - in;
    if (total < 0)
        total = 0;
    *pb = upper ? total / 2 : total - total / 2;
    *pe = total - *pb;
}

/* Reads strides/dilations/pads/auto_pad (and kernel for pools) into s; computes
 * output spatial dims into od. `kernel` holds the kernel dims for convolutions. */
static int window_attrs(cc *c, layer *L, sim_step *s, const cval *x, int pool, int with_dil,
                        int64_t *od)
{
    int sp = x->rank - 2, rc;
    if (sp < 1 || sp > SIM_K_MAX_SPATIAL)
        return sim_lerr(c, L, "input rank %d is not supported (3..5 = N, C and 1..3 spatial dims)", x->rank);
    s->spatial = sp;
    if (pool && (rc = attr_list(c, L, "kernel", sp, -1, s->kernel)))
        return rc;
    if ((rc = attr_list(c, L, "strides", sp, 1, s->strides)) ||
        (rc = attr_list(c, L, "pads_begin", sp, 0, s->pads_begin)) ||
        (rc = attr_list(c, L, "pads_end", sp, 0, s->pads_end)))
        return rc;
    if (with_dil) {
        if ((rc = attr_list(c, L, "dilations", sp, 1, s->dilations)))
            return rc;
    } else {
        for (int i = 0; i < sp; i++)
            s->dilations[i] = 1;
    }
    char pad[32] = "explicit", round[32] = "floor";
    attr_str(L, "auto_pad", pad, sizeof pad);
    attr_str(L, "rounding_type", round, sizeof round);
    int ceil_mode = 0;
    if (pool) {
        if (!strcasecmp(round, "ceil") || !strcasecmp(round, "ceil_torch"))
            ceil_mode = 1;
        else if (strcasecmp(round, "floor") != 0)
            return sim_lerr(c, L, "unsupported rounding_type=\"%s\"", round);
    }
    int mode; /* 0 explicit, 1 valid, 2 same_upper, 3 same_lower */
    if (!strcasecmp(pad, "explicit") || !strcasecmp(pad, "notset") || !pad[0])
        mode = 0;
    else if (!strcasecmp(pad, "valid"))
        mode = 1;
    else if (!strcasecmp(pad, "same_upper"))
        mode = 2;
    else if (!strcasecmp(pad, "same_lower"))
        mode = 3;
    else
        return sim_lerr(c, L, "unsupported auto_pad=\"%s\"", pad);
    for (int i = 0; i < sp; i++) {
        int64_t in = x->d[2 + i], k = s->kernel[i], st = s->strides[i], dl = s->dilations[i];
        if (k < 1 || st < 1 || dl < 1 || k > (1 << 30) || st > (1 << 30) || dl > (1 << 30) ||
            s->pads_begin[i] < 0 || s->pads_end[i] < 0 || s->pads_begin[i] > (1 << 30) ||
            s->pads_end[i] > (1 << 30))
            return sim_lerr(c, L, "kernel, strides, dilations and pads must be positive (dim %d)", i);
        if (mode == 1)
            s->pads_begin[i] = s->pads_end[i] = 0;
        else if (mode >= 2)
            same_pads(in, k, st, dl, mode == 2, &s->pads_begin[i], &s->pads_end[i]);
        int64_t span = (k - 1) * dl + 1, room = in + s->pads_begin[i] + s->pads_end[i] - span;
        if (room < 0)
            return sim_lerr(c, L, "window %" PRId64 " is larger than the padded input %" PRId64
                              " (spatial dim %d)", span, in + s->pads_begin[i] + s->pads_end[i], i);
        int64_t o = room / st + 1;
        if (ceil_mode && room % st) {
            o++;
            if ((o - 1) * st >= in + s->pads_begin[i]) /* last window must start inside */
                o--;
        }
        od[i] = o;
    }
    return SIM_OK;
}

static int op_conv(cc *c, layer *L, int opset, int group)
{
    (void)opset;
    int rc = need_ports(c, L, 2, 2, 1);
    if (rc)
        return rc;
    cval *x = input(c, L, 0), *w = input(c, L, 1);
    cval w2 = *w;
    int64_t groups = 1;
    char sx[160], sw[160];
    fmt_dims(sx, sizeof sx, x->rank, x->d);
    fmt_dims(sw, sizeof sw, w->rank, w->d);
    if (group) {
        if (w->rank != x->rank + 1 || x->rank < 3)
            return sim_lerr(c, L, "GroupConvolution weights %s do not fit input %s", sw, sx);
        int64_t d[SIM_MAX_RANK];
        groups = w->d[0];
        d[0] = w->d[0] * w->d[1];
        for (int i = 2; i < w->rank; i++)
            d[i - 1] = w->d[i];
        if ((rc = alias(c, w, w->et, w->rank - 1, d, &w2)))
            return rc;
    }
    if (w2.rank != x->rank || x->rank < 3 || groups < 1 || x->d[1] != groups * w2.d[1] ||
        w2.d[0] % groups)
        return sim_lerr(c, L, "weights %s do not fit input %s (groups %" PRId64 ")", sw, sx, groups);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_CONV;
    s.groups = groups;
    for (int i = 0; i + 2 < w2.rank && i < SIM_K_MAX_SPATIAL; i++)
        s.kernel[i] = w2.d[2 + i];
    int64_t d[SIM_MAX_RANK];
    if ((rc = window_attrs(c, L, &s, x, 0, 1, d + 2)))
        return rc;
    d[0] = x->d[0];
    d[1] = w2.d[0];
    cval *ins[2] = {x, &w2};
    if ((rc = emit(c, L, &s, ins, 2, x->et, x->rank, d, &L->val[0])))
        return rc;
    if (!group)
        w->tensor = w2.tensor;
    return SIM_OK;
}

static int op_pool(cc *c, layer *L, int opset, int avg)
{
    int rc = need_ports(c, L, 1, 1, 1);
    if (rc)
        return rc;
    if (!avg && L->n_out > 1) {
        for (int i = 1; i < L->n_out; i++)
            if (L->out[i].uses)
                return sim_lerr(c, L, "MaxPool-8 indices output (port %ld) is connected; only "
                                  "the values output is supported", L->out[i].id);
    }
    cval *x = input(c, L, 0);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = avg ? SIM_S_AVGPOOL : SIM_S_MAXPOOL;
    if (avg && (rc = attr_bool(c, L, "exclude-pad", 0, &s.exclude_pad)))
        return rc;
    int64_t d[SIM_MAX_RANK];
    if ((rc = window_attrs(c, L, &s, x, 1, !avg && opset >= 8, d + 2)))
        return rc;
    d[0] = x->d[0];
    d[1] = x->d[1];
    return emit(c, L, &s, &x, 1, x->et, x->rank, d, &L->val[0]);
}

static int op_reduce(cc *c, layer *L, int opset, int mean)
{
    (void)opset;
    int rc = need_ports(c, L, 2, 2, 1);
    int keep, n;
    int64_t axes[SIM_MAX_RANK * 4];
    if (rc || (rc = attr_bool(c, L, "keep_dims", 0, &keep)) ||
        (rc = const_ints(c, L, 1, axes, SIM_MAX_RANK * 4, &n, "axes")))
        return rc;
    cval *x = input(c, L, 0);
    if (mean == SIM_RED_L2 && !is_float_et(x->et))
        return sim_lerr(c, L, "ReduceL2 of element type %s is not supported: the input must be f32, f16 "
                          "or bf16", sim_prec_name(x->et));
    uint32_t mask = 0;
    for (int i = 0; i < n; i++) {
        int a = 0;
        if ((rc = norm_axis(c, L, axes[i], x->rank, 1, &a)))
            return rc;
        mask |= 1u << a;
    }
    int64_t d[SIM_MAX_RANK];
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (!(mask & (1u << i)))
            d[r++] = x->d[i];
        else if (keep)
            d[r++] = 1;
    }
    /* no axes: Sum and Mean are the identity; the others still run their loop
     * (L2 gives |x|, Max and Min replace NaN with their start value) */
    if (!mask && mean <= SIM_RED_MEAN)
        return alias(c, x, x->et, r, d, &L->val[0]);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_REDUCE;
    s.sub = (uint32_t)mean;
    s.axes_mask = mask;
    return emit(c, L, &s, &x, 1, x->et, r, d, &L->val[0]);
}

static int op_reshape(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 2, 2, 1);
    int special, n;
    int64_t t[SIM_MAX_RANK + 1];
    if (rc || (rc = attr_bool(c, L, "special_zero", 0, &special)) ||
        (rc = const_ints(c, L, 1, t, SIM_MAX_RANK, &n, "target shape")))
        return rc;
    cval *x = input(c, L, 0);
    uint64_t in_n, known = 1;
    numel_of(x->rank, x->d, &in_n);
    int infer = -1;
    for (int i = 0; i < n; i++) {
        if (t[i] == 0 && special) {
            if (i >= x->rank)
                return sim_lerr(c, L, "special_zero copies dim %d, but the input has rank %d", i, x->rank);
            t[i] = x->d[i];
        }
        if (t[i] == -1) {
            if (infer >= 0)
                return sim_lerr(c, L, "target shape has more than one -1");
            infer = i;
            continue;
        }
        if (t[i] < 0)
            return sim_lerr(c, L, "target shape has a negative dim %" PRId64, t[i]);
        known *= (uint64_t)t[i];
        if (known > ((uint64_t)1 << 40))
            return sim_lerr(c, L, "target shape is too large");
    }
    if (infer >= 0) {
        if (known == 0 || in_n % known)
            return sim_lerr(c, L, "cannot infer the -1 dim: %" PRIu64 " elements into %" PRIu64,
                            in_n, known);
        t[infer] = (int64_t)(in_n / known);
        known = in_n;
    }
    if (known != in_n) {
        char a[160], b[160];
        fmt_dims(a, sizeof a, x->rank, x->d);
        fmt_dims(b, sizeof b, n, t);
        return sim_lerr(c, L, "cannot reshape %s into %s", a, b);
    }
    return alias(c, x, x->et, n, t, &L->val[0]);
}

static int op_squeeze(cc *c, layer *L, int opset, int unsq)
{
    (void)opset;
    int rc = need_ports(c, L, unsq ? 2 : 1, 2, 1);
    if (rc)
        return rc;
    cval *x = input(c, L, 0);
    int64_t axes[SIM_MAX_RANK * 2], d[SIM_MAX_RANK];
    int n = 0, r = 0;
    if (L->n_in == 2 && (rc = const_ints(c, L, 1, axes, SIM_MAX_RANK * 2, &n, "axes")))
        return rc;
    if (unsq) {
        int out_rank = x->rank + n, marked[SIM_MAX_RANK] = {0};
        if (out_rank > SIM_MAX_RANK)
            return sim_lerr(c, L, "result rank %d exceeds %d", out_rank, SIM_MAX_RANK);
        for (int i = 0; i < n; i++) {
            int a = 0;
            if ((rc = norm_axis(c, L, axes[i], out_rank, 1, &a)))
                return rc;
            if (marked[a])
                return sim_lerr(c, L, "axis %d repeats", a);
            marked[a] = 1;
        }
        for (int i = 0, k = 0; i < out_rank; i++)
            d[r++] = marked[i] ? 1 : x->d[k++];
    } else {
        uint32_t mask = 0;
        for (int i = 0; i < n; i++) {
            int a = 0;
            if ((rc = norm_axis(c, L, axes[i], x->rank, 1, &a)))
                return rc;
            if (x->d[a] != 1)
                return sim_lerr(c, L, "cannot squeeze axis %d of size %" PRId64, a, x->d[a]);
            mask |= 1u << a;
        }
        for (int i = 0; i < x->rank; i++)
            if (n ? !(mask & (1u << i)) : x->d[i] != 1)
                d[r++] = x->d[i];
    }
    return alias(c, x, x->et, r, d, &L->val[0]);
}

static int op_transpose(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 2, 2, 1);
    int n;
    int64_t perm[SIM_MAX_RANK];
    if (rc || (rc = const_ints(c, L, 1, perm, SIM_MAX_RANK, &n, "permutation")))
        return rc;
    cval *x = input(c, L, 0);
    if (n == 0) {
        n = x->rank;
        for (int i = 0; i < n; i++)
            perm[i] = n - 1 - i;
    }
    if (n != x->rank)
        return sim_lerr(c, L, "permutation has %d entries for rank %d", n, x->rank);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_TRANSPOSE;
    int seen[SIM_MAX_RANK] = {0}, identity = 1;
    int64_t d[SIM_MAX_RANK];
    for (int i = 0; i < n; i++) {
        int a = 0;
        if ((rc = norm_axis(c, L, perm[i], n, 1, &a)))
            return rc;
        if (seen[a])
            return sim_lerr(c, L, "permutation repeats axis %d", a);
        seen[a] = 1;
        s.perm[i] = a;
        d[i] = x->d[a];
        identity &= a == i;
    }
    if (identity)
        return alias(c, x, x->et, n, d, &L->val[0]);
    return emit(c, L, &s, &x, 1, x->et, n, d, &L->val[0]);
}

static int op_concat(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 1, MAX_PORTS, 1);
    int64_t axis;
    if (rc || (rc = attr_int(c, L, "axis", 0, &axis)))
        return rc;
    cval **ins = calloc((size_t)L->n_in, sizeof *ins);
    if (!ins)
        return sim_nomem(c);
    cval *x = input(c, L, 0);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_CONCAT;
    int64_t d[SIM_MAX_RANK];
    if ((rc = norm_axis(c, L, axis, x->rank, 1, &s.axis)))
        goto out;
    memcpy(d, x->d, sizeof d);
    d[s.axis] = 0;
    for (int i = 0; i < L->n_in; i++) {
        ins[i] = input(c, L, i);
        int ok = ins[i]->rank == x->rank;
        for (int k = 0; ok && k < x->rank; k++)
            ok = k == s.axis || ins[i]->d[k] == x->d[k];
        if (!ok) {
            char a[160], b[160];
            fmt_dims(a, sizeof a, x->rank, x->d);
            fmt_dims(b, sizeof b, ins[i]->rank, ins[i]->d);
            rc = sim_lerr(c, L, "input %d shape %s does not match %s outside axis %d", i, b, a, s.axis);
            goto out;
        }
        d[s.axis] += ins[i]->d[s.axis];
    }
    if (L->n_in == 1)
        rc = alias(c, x, x->et, x->rank, x->d, &L->val[0]);
    else
        rc = emit(c, L, &s, ins, L->n_in, x->et, x->rank, d, &L->val[0]);
out:
    free(ins);
    return rc;
}

/* Split (num_splits equal parts) and VariadicSplit (split_lengths). */
static int op_split(cc *c, layer *L, int opset, int variadic)
{
    (void)opset;
    int rc = need_ports(c, L, variadic ? 3 : 2, variadic ? 3 : 2, 1);
    int n_ax;
    int64_t axv[1];
    if (rc || (rc = const_ints(c, L, 1, axv, 1, &n_ax, "axis")))
        return rc;
    cval *x = input(c, L, 0);
    int axis = 0;
    if (n_ax != 1)
        return sim_lerr(c, L, "axis must hold one value");
    if ((rc = norm_axis(c, L, axv[0], x->rank, 1, &axis)))
        return rc;
    int64_t len[MAX_PORTS];
    int parts;
    if (variadic) {
        if ((rc = const_ints(c, L, 2, len, MAX_PORTS, &parts, "split_lengths")))
            return rc;
        int64_t sum = 0;
        int infer = -1;
        for (int i = 0; i < parts; i++) {
            if (len[i] == -1 && infer < 0)
                infer = i;
            else if (len[i] < 0)
                return sim_lerr(c, L, "bad split length %" PRId64, len[i]);
            else if (len[i] > x->d[axis] - sum)   /* sum <= dim: no overflow */
                return sim_lerr(c, L, "split lengths do not add up to %" PRId64, x->d[axis]);
            else
                sum += len[i];
        }
        if (infer >= 0)
            len[infer] = x->d[axis] - sum;
        if (infer < 0 && sum != x->d[axis])   /* the loop kept sum <= dim */
            return sim_lerr(c, L, "split lengths do not add up to %" PRId64, x->d[axis]);
    } else {
        int64_t ns;
        if ((rc = attr_int(c, L, "num_splits", 0, &ns)))
            return rc;
        if (ns < 1 || ns > MAX_PORTS || x->d[axis] % ns)
            return sim_lerr(c, L, "num_splits=%" PRId64 " does not divide dim %" PRId64, ns, x->d[axis]);
        parts = (int)ns;
        for (int i = 0; i < parts; i++)
            len[i] = x->d[axis] / ns;
    }
    if (parts != L->n_out)
        return sim_lerr(c, L, "%d parts but %d output ports", parts, L->n_out);
    int64_t start = 0;
    for (int i = 0; i < parts; i++) {
        sim_step s;
        memset(&s, 0, sizeof s);
        s.op = SIM_S_SLICE;
        s.axis = axis;
        s.start = start;
        int64_t d[SIM_MAX_RANK];
        memcpy(d, x->d, sizeof d);
        d[axis] = len[i];
        if ((rc = emit(c, L, &s, &x, 1, x->et, x->rank, d, &L->val[i])))
            return rc;
        start += len[i];
    }
    return SIM_OK;
}

/* ShapeOf: shapes are static here, so the result is a constant. */
static int op_shape_of(cc *c, layer *L, int opset, int sub)
{
    (void)sub;
    int rc = need_ports(c, L, 1, 1, 1);
    uint32_t et = SIM_P_I64;
    if (rc || (opset >= 3 && has_attr(L, "output_type") && (rc = attr_et(c, L, "output_type", &et))))
        return rc;
    if (et != SIM_P_I64 && et != SIM_P_I32)
        return sim_lerr(c, L, "ShapeOf output_type must be i64 or i32");
    cval *x = input(c, L, 0);
    uint64_t off;
    if (!pool_alloc(c, (uint64_t)x->rank, &off))
        return sim_nomem(c);
    for (int i = 0; i < x->rank; i++)
        c->pool[off + (uint64_t)i] = (float)x->d[i];
    int64_t d[1] = {x->rank};
    cval *v = &L->val[0];
    memset(v, 0, sizeof *v);
    v->set = 1;
    v->et = et;
    v->rank = 1;
    v->d[0] = x->rank;
    v->tensor = add_tensor(c, SIM_T_CONST, off, et, 1, d);
    return v->tensor == NO_TENSOR ? sim_nomem(c) : SIM_OK;
}

/* Gather-1/7/8 with batch_dims 0; the axis is a constant input. */
static int op_gather(cc *c, layer *L, int opset, int sub)
{
    (void)sub;
    int rc = need_ports(c, L, 3, 3, 1);
    int64_t batch_dims = 0, axv[1];
    int n_ax;
    if (rc || (opset >= 7 && (rc = attr_int(c, L, "batch_dims", 0, &batch_dims))) ||
        (rc = const_ints(c, L, 2, axv, 1, &n_ax, "axis")))
        return rc;
    if (batch_dims != 0)
        return sim_lerr(c, L, "Gather with batch_dims=%" PRId64 " is not supported (only 0)", batch_dims);
    if (n_ax != 1)
        return sim_lerr(c, L, "axis must hold one value");
    cval *x = input(c, L, 0), *idx = input(c, L, 1);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_GATHER;
    if ((rc = norm_axis(c, L, axv[0], x->rank, 1, &s.axis)))
        return rc;
    int rank = x->rank - 1 + idx->rank;
    if (rank > SIM_MAX_RANK)
        return sim_lerr(c, L, "result rank %d exceeds %d", rank, SIM_MAX_RANK);
    int64_t d[SIM_MAX_RANK];
    for (int i = 0; i < rank; i++)
        d[i] = i < s.axis ? x->d[i] : i < s.axis + idx->rank ? idx->d[i - s.axis]
                                                             : x->d[i - idx->rank + 1];
    cval *ins[2] = {x, idx};
    return emit(c, L, &s, ins, 2, x->et, rank, d, &L->val[0]);
}

/* ---- slicing --------------------------------------------------------------- */

#define SLICE_MAX_INDICES 32   /* begin/end/stride entries: real axes, new axes, an ellipsis */

/* An integer list attribute ("1,0,1"; absent or "" = no values). */
static int attr_ints(cc *c, layer *L, const char *name, int64_t *out, int max, int *n)
{
    char buf[512];
    *n = 0;
    if (!attr_str(L, name, buf, sizeof buf) || !*sim_skip_ws(buf))
        return SIM_OK;
    const char *p = buf;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char tok[64];
        int64_t v;
        if (*n >= max)
            return sim_lerr(c, L, "attribute %s=\"%s\" has more than %d values", name, buf, max);
        if (len >= sizeof tok)
            return sim_lerr(c, L, "attribute %s=\"%s\" is not a list of integers", name, buf);
        memcpy(tok, p, len);
        tok[len] = '\0';
        if (!sim_parse_i64(tok, &v))
            return sim_lerr(c, L, "attribute %s=\"%s\" is not a list of integers", name, buf);
        out[(*n)++] = v;
        if (!e)
            return SIM_OK;
        p = e + 1;
    }
}

/* A 1-D constant index input of an integer type (begin/end/strides, start/stop/step/axes). */
static int index_input(cc *c, layer *L, int i, const char *what, int64_t *out, int max, int *n)
{
    cval *v = input(c, L, i);
    if (!sim_prec_is_integer(v->et) || v->et == SIM_P_BOOL)
        return sim_lerr(c, L, "%s input type must be integer, but is: %s", what, sim_prec_name(v->et));
    if (v->rank != 1)
        return sim_lerr(c, L, "%s input must be a 1D tensor (has rank: %d)", what, v->rank);
    return const_ints(c, L, i, out, max, n, what);
}

/* `count` indices start, start + step, ... along `axis` of *cur, all inside (the
 * caller computed them). A full axis is the value itself; a step of 1 (or a
 * single index) is a plain SLICE. */
static int slice_axis(cc *c, layer *L, const cval *cur, int axis, int64_t start, int64_t step,
                      int64_t count, cval *out)
{
    if (start == 0 && step == 1 && count == cur->d[axis]) {
        *out = *cur;
        return SIM_OK;
    }
    if (count <= 1)
        step = 1;
    if (count == 0)
        start = 0;
    sim_step s;
    memset(&s, 0, sizeof s);
    s.axis = axis;
    s.start = start;
    if (step == 1) {
        s.op = SIM_S_SLICE;
    } else {
        s.op = SIM_S_SLICE_STEP;
        s.strides[0] = step;
    }
    int64_t d[SIM_MAX_RANK];
    memcpy(d, cur->d, sizeof d);
    d[axis] = count;
    cval in = *cur, *ins[1] = {&in};
    return emit(c, L, &s, ins, 1, cur->et, cur->rank, d, out);
}

/* Per input axis: the first index, the step and the count that survive. */
typedef struct axis_cut {
    int64_t start, step, count;
} axis_cut;

/* Applies the cuts axis by axis to x, then gives the result the shape `od`. */
static int apply_cuts(cc *c, layer *L, cval *x, const axis_cut *cut, int orank, const int64_t *od)
{
    int rc = materialize(c, x);
    if (rc)
        return rc;
    cval cur = *x;
    for (int a = 0; a < x->rank; a++) {
        cval next;
        if ((rc = slice_axis(c, L, &cur, a, cut[a].start, cut[a].step, cut[a].count, &next)))
            return rc;
        cur = next;
    }
    return alias(c, &cur, x->et, orank, od, &L->val[0]);
}

static const char *const ss_masks[5] = {"begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask",
                                        "ellipsis_mask"};
enum { SS_BEGIN, SS_END, SS_NEW, SS_SHRINK, SS_ELLIPSIS };

/* StridedSlice-1 (data, begin, end[, strides]) with constant begin/end/strides:
 * the output shape as OpenVINO's shape inference gives it, the indices as its
 * slice plan (make_slice_plan) picks them. */
static int op_strided_slice(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 3, 4, 1);
    if (rc)
        return rc;
    int64_t mask[5][SLICE_MAX_INDICES];
    int mlen[5], size = -1;
    for (int k = 0; k < 5; k++) {
        if ((rc = attr_ints(c, L, ss_masks[k], mask[k], SLICE_MAX_INDICES, &mlen[k])))
            return rc;
        for (int i = 0; i < mlen[k]; i++)
            if (mask[k][i] != 0 && mask[k][i] != 1)
                return sim_lerr(c, L, "All masks of StridedSlice must have be 0 or 1 (%s)", ss_masks[k]);
        if (mlen[k] && size >= 0 && mlen[k] != size)
            return sim_lerr(c, L, "All masks of StridedSlice must have the same size (%s has %d, "
                              "another %d)", ss_masks[k], mlen[k], size);
        if (mlen[k])
            size = mlen[k];
    }
    int64_t begin[SLICE_MAX_INDICES], end[SLICE_MAX_INDICES], stride[SLICE_MAX_INDICES];
    int nb, ne, ns;
    if ((rc = index_input(c, L, 1, "Begin", begin, SLICE_MAX_INDICES, &nb)) ||
        (rc = index_input(c, L, 2, "End", end, SLICE_MAX_INDICES, &ne)))
        return rc;
    if (nb != ne)
        return sim_lerr(c, L, "Begin and end need to have same number of values.");
    if (L->n_in == 4) {
        if ((rc = index_input(c, L, 3, "Strides", stride, SLICE_MAX_INDICES, &ns)))
            return rc;
        if (ns != nb)
            return sim_lerr(c, L, "Stride needs to have same number of values as begin and end.");
    } else {
        for (int i = 0; i < nb; i++)
            stride[i] = 1;
    }
    /* the bits that matter: positions 0..nb-1, missing ones 0 */
#define SS_BIT(k, i) ((i) < mlen[k] && mask[k][i] == 1)
    int ellipses = 0, new_all = 0, real = 0, has_ellipsis = 0;
    for (int i = 0; i < mlen[SS_ELLIPSIS]; i++)
        ellipses += mask[SS_ELLIPSIS][i] == 1;
    for (int i = 0; i < mlen[SS_NEW]; i++)
        new_all += mask[SS_NEW][i] == 1;
    if (ellipses > 1)
        return sim_lerr(c, L, "At most one ellipsis is allowed.");
    for (int i = 0; i < nb; i++) {
        if (SS_BIT(SS_ELLIPSIS, i)) {
            if (SS_BIT(SS_NEW, i) || SS_BIT(SS_SHRINK, i))
                return sim_lerr(c, L, "StridedSlice index %d sets ellipsis_mask together with %s, "
                                  "which OpenVINO's shape inference and its slice plan read "
                                  "differently; not supported by the sim compiler", i,
                                SS_BIT(SS_NEW, i) ? "new_axis_mask" : "shrink_axis_mask");
            has_ellipsis = 1;
        } else if (!SS_BIT(SS_NEW, i)) {
            real++;
        }
    }
    cval *x = input(c, L, 0);
    int rank = x->rank;
    if (!has_ellipsis && rank + new_all < nb)
        return sim_lerr(c, L, "Input rank plus number of new axis has to be at least the size of "
                          "Lower and Upper bounds vector.");
    if (real > rank)
        return sim_lerr(c, L, "StridedSlice slices %d axes of a rank-%d input", real, rank);
    axis_cut cut[SIM_MAX_RANK];
    for (int a = 0; a < rank; a++) {
        cut[a].start = 0;
        cut[a].step = 1;
        cut[a].count = x->d[a];
    }
    int64_t od[SIM_MAX_RANK * 4];
    int orank = 0, j = 0;   /* j: the input axis */
    for (int i = 0; i < nb; i++) {
        if (SS_BIT(SS_ELLIPSIS, i)) {
            for (int h = 0; h < rank - real; h++, j++)
                od[orank++] = x->d[j];
        } else if (SS_BIT(SS_NEW, i)) {
            od[orank++] = 1;
        } else if (SS_BIT(SS_SHRINK, i)) {
            int64_t dim = x->d[j], b = begin[i];
            if (b < -dim || b >= dim)
                return sim_lerr(c, L, "shrink_axis_mask at index %d: begin %" PRId64 " is outside "
                                  "[-%" PRId64 ", %" PRId64 ") of input axis %d", i, b, dim, dim, j);
            cut[j].start = b < 0 ? b + dim : b;
            cut[j].count = 1;
            j++;
        } else {
            int64_t dim = x->d[j], st = stride[i], rev = st < 0;
            if (st == 0)
                return sim_lerr(c, L, "Stride must be non-zero (index %d)", i);
            int64_t rb = begin[i], re = end[i];
            if (SS_BIT(SS_BEGIN, i))
                rb = rev ? dim - 1 : 0;
            else if (rb < 0)
                rb += dim;
            rb = rb < dim - rev ? rb : dim - rev;
            rb = rb > 0 ? rb : 0;
            if (SS_BIT(SS_END, i))
                re = rev ? -1 : dim;
            else if (re < 0)
                re += dim;
            re = re < dim ? re : dim;
            re = re > -rev ? re : -rev;
            uint64_t mag = st < 0 ? (uint64_t)0 - (uint64_t)st : (uint64_t)st;
            int64_t span = rev ? rb - re : re - rb, cnt = 0;
            if (span > 0 && dim > 0)
                cnt = (int64_t)((uint64_t)(span - 1) / mag + 1);
            cut[j].start = rb;
            cut[j].step = st;
            cut[j].count = cnt;
            od[orank++] = cnt;
            j++;
        }
        if (orank > SIM_MAX_RANK)
            break;
    }
#undef SS_BIT
    for (; j < rank && orank <= SIM_MAX_RANK; j++)
        od[orank++] = x->d[j];
    if (orank > SIM_MAX_RANK)
        return sim_lerr(c, L, "StridedSlice result rank exceeds %d", SIM_MAX_RANK);
    return apply_cuts(c, L, x, cut, orank, od);
}

static const char *const slice_inputs[4] = {"start", "stop", "step", "axes"};

/* Slice-8 (data, start, stop, step[, axes]) with constant indices: python
 * slicing per axis, the count as OpenVINO's shape inference computes it. */
static int op_slice(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 4, 5, 1);
    if (rc)
        return rc;
    cval *x = input(c, L, 0);
    int rank = x->rank;
    if (rank < 1)
        return sim_lerr(c, L, "Slice `data` input can't be a scalar.");
    int64_t v[4][SIM_MAX_RANK];
    int n[4] = {0, 0, 0, 0};
    for (int i = 1; i < L->n_in; i++) {
        cval *in = input(c, L, i);
        char what[32];
        snprintf(what, sizeof what, "Slice `%s`", slice_inputs[i - 1]);
        if (in->rank == 1 && in->d[0] > rank)
            return sim_lerr(c, L, "Slice `%s` input dim size can't be bigger than `data` rank.",
                            slice_inputs[i - 1]);
        if ((rc = index_input(c, L, i, what, v[i - 1], SIM_MAX_RANK, &n[i - 1])))
            return rc;
    }
    if (n[1] != n[0] || n[2] != n[0])
        return sim_lerr(c, L, "Slice `start`, `stop`, `step` inputs must have compatible shapes.");
    if (L->n_in == 5 && n[3] != n[0])
        return sim_lerr(c, L, "Slice `axes` input must have compatible shape with `start`, `stop`, "
                          "`step` inputs.");
    axis_cut cut[SIM_MAX_RANK];
    int64_t od[SIM_MAX_RANK];
    for (int a = 0; a < rank; a++) {
        cut[a].start = 0;
        cut[a].step = 1;
        cut[a].count = od[a] = x->d[a];
    }
    uint32_t seen = 0;
    for (int i = 0; i < n[0]; i++) {
        int64_t axis = L->n_in == 5 ? v[3][i] : i;
        if (axis < -rank || axis >= rank)
            return sim_lerr(c, L, "Axis %" PRId64 " out of the tensor rank range [%d, %d].", axis,
                            -rank, rank - 1);
        if (axis < 0)
            axis += rank;
        if (seen & (1u << axis))
            return sim_lerr(c, L, "Slice values in `axes` input must be unique.");
        seen |= 1u << axis;
        int64_t dim = x->d[axis], start = v[0][i], stop = v[1][i], step = v[2][i];
        if (step == 0)
            return sim_lerr(c, L, "Step must be non-zero");
        /* slice::get_sliced_value for a static dim: normalize, clip, count */
        int rev = step < 0;
        int64_t lower_max = rev ? dim - 1 : dim, upper_min = rev ? -1 : 0;
        int64_t lb = start < 0 ? start + dim : start, ub = stop < 0 ? stop + dim : stop;
        lb = lb > 0 ? lb : 0;
        lb = lb < lower_max ? lb : lower_max;
        ub = ub > upper_min ? ub : upper_min;
        ub = ub < dim ? ub : dim;
        int64_t cnt = rev ? (ub - lb < 0 ? ub - lb : 0) : (ub - lb > 0 ? ub - lb : 0);
        if (step == -1) {
            cnt = -cnt;
        } else if (cnt != 0 && step != 1) {
            cnt += rev ? 1 : -1;
            cnt /= step;
            cnt++;
        }
        cut[axis].start = lb;
        cut[axis].step = step;
        cut[axis].count = od[axis] = cnt;
    }
    return apply_cuts(c, L, x, cut, rank, od);
}

/* ---- Pad ------------------------------------------------------------------- */

static int const_floats(cc *c, layer *L, int i, float *out, int max, int *count, const char *what);

static const char *const pad_modes[] = {"constant", "edge", "reflect", "symmetric"};
enum { PAD_CONSTANT, PAD_EDGE, PAD_REFLECT, PAD_SYMMETRIC };

/* The pads_begin / pads_end input: a 1-D integer constant with one value per axis. */
static int pad_input(cc *c, layer *L, int i, const char *what, int rank, int64_t *out)
{
    cval *v = input(c, L, i);
    int n;
    if (!sim_prec_is_integer(v->et) || v->et == SIM_P_BOOL)
        return sim_lerr(c, L, "%s must be an integral number, but is: %s", what, sim_prec_name(v->et));
    if (v->rank != 1)
        return sim_lerr(c, L, "Argument for %s is not 1D.", what);
    if (v->d[0] != rank)
        return sim_lerr(c, L, "length of %s mismatches with rank of input, expect %d, but got %" PRId64,
                        what, rank, v->d[0]);
    int rc = const_ints(c, L, i, out, SIM_MAX_RANK, &n, what);
    for (int a = 0; !rc && a < rank; a++)
        if (out[a] > ((int64_t)1 << 40) || out[a] < -((int64_t)1 << 40))
            rc = sim_lerr(c, L, "%s[%d] = %" PRId64 " is too large", what, a, out[a]);
    return rc;
}

/* The `count` padding elements of one side along `axis`: the pad value (constant
 * mode), or the input indices start, start + step, ... (edge: step 0; reflect and
 * symmetric: step -1). */
static int pad_part(cc *c, layer *L, const cval *cur, int axis, int mode, const float *value,
                    cval *value_in, int64_t start, int64_t step, int64_t count, cval *out)
{
    if (mode != PAD_CONSTANT)
        return slice_axis(c, L, cur, axis, start, step, count, out);
    int64_t d[SIM_MAX_RANK];
    memcpy(d, cur->d, sizeof d);
    d[axis] = count;
    if (value)
        return const_fill(c, L, cur->et, cur->rank, d, *value, out);
    /* a computed pad value: max(-inf, v) is v for every v, NaN and -0 included */
    cval block;
    int rc = const_fill(c, L, cur->et, cur->rank, d, -INFINITY, &block);
    if (rc)
        return rc;
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_BINARY;
    s.sub = SIM_BIN_MAX;
    cval *ins[2] = {&block, value_in};
    return emit(c, L, &s, ins, 2, cur->et, cur->rank, d, out);
}

/* Pad-1 and Pad-12 (data, pads_begin, pads_end[, pad_value]) with constant pads:
 * each padded axis becomes [begin part, the kept (possibly cropped) input, end
 * part] joined by Concat, axis after axis; the parts are the pad value or
 * strided slices of the input, the indices OpenVINO's reference maps each output
 * coordinate to. Negative pads crop (Pad-12; OpenVINO's Pad-1 code too). */
static int op_pad(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 3, 4, 1);
    int mode;
    if (rc || (rc = attr_enum(c, L, "pad_mode", pad_modes, 4, PAD_CONSTANT, &mode)))
        return rc;
    cval *x = input(c, L, 0), *value_in = NULL;
    int rank = x->rank;
    float value = 0.0f;
    int value_known = 1;
    if (mode == PAD_CONSTANT && L->n_in == 4) {
        value_in = input(c, L, 3);
        if (value_in->rank != 0)
            return sim_lerr(c, L, "Argument for padding value is not a scalar.");
        if (value_in->et != x->et)
            return sim_lerr(c, L, "Argument element types do not match (input arg element type: %s, "
                              "arg_pad element type: %s).", sim_prec_name(x->et),
                            sim_prec_name(value_in->et));
        if (is_const(c, value_in)) {
            int n;
            if ((rc = const_floats(c, L, 3, &value, 1, &n, "pad_value")))
                return rc;
        } else {
            value_known = 0;
        }
    }
    int64_t pb[SIM_MAX_RANK], pe[SIM_MAX_RANK], od[SIM_MAX_RANK];
    if ((rc = pad_input(c, L, 1, "pads_begin", rank, pb)) || (rc = pad_input(c, L, 2, "pads_end", rank, pe)))
        return rc;
    for (int a = 0; a < rank; a++) {
        int64_t dim = x->d[a];
        if ((pb[a] > 0 || pe[a] > 0) && mode == PAD_EDGE && dim < 1)
            return sim_lerr(c, L, "EDGE padding mode requires an input of dimension of at least 1 at "
                              "each spatial axis (axis %d).", a);
        if ((pb[a] > 0 || pe[a] > 0) && mode == PAD_REFLECT && dim < 2)
            return sim_lerr(c, L, "REFLECT padding mode requires an input of dimension of at least 2 at "
                              "each spatial axis (axis %d).", a);
        if (mode == PAD_REFLECT && (pb[a] >= dim || pe[a] >= dim))
            return sim_lerr(c, L, "REFLECT padding mode requires that 'pads_begin[D]' and 'pads_end[D]' "
                              "must be not greater than 'data_shape[D] - 1' (axis %d: %" PRId64 ", %"
                              PRId64 ", dim %" PRId64 ").", a, pb[a], pe[a], dim);
        if (mode == PAD_SYMMETRIC && (pb[a] > dim || pe[a] > dim))
            return sim_lerr(c, L, "SYMMETRIC padding mode requires that 'pads_begin[D]' and "
                              "'pads_end[D]' must be not greater than 'data_shape[D]' (axis %d: %"
                              PRId64 ", %" PRId64 ", dim %" PRId64 ").", a, pb[a], pe[a], dim);
        od[a] = dim + pb[a] + pe[a];
        if (od[a] < 0)   /* the spec: max(pads_begin + dim + pads_end, 0) */
            od[a] = 0;
    }
    uint64_t total;
    if (!numel_of(rank, od, &total))
        return sim_lerr(c, L, "output is too large");
    if (total == 0) {   /* nothing to compute */
        cval *v = &L->val[0];
        memset(v, 0, sizeof *v);
        v->set = 1;
        v->et = x->et;
        v->rank = rank;
        memcpy(v->d, od, sizeof od);
        v->tensor = add_arena(c, x->et, rank, od);
        return v->tensor == NO_TENSOR ? sim_nomem(c) : SIM_OK;
    }
    if ((rc = materialize(c, x)))
        return rc;
    cval cur = *x;
    for (int a = 0; a < rank; a++) {
        if (!pb[a] && !pe[a])
            continue;
        int64_t dim = cur.d[a], out = od[a];
        int64_t n_begin = pb[a] < 0 ? 0 : pb[a] < out ? pb[a] : out;
        int64_t lo = pb[a] > 0 ? pb[a] : 0, hi = pb[a] + dim < out ? pb[a] + dim : out;
        int64_t n_mid = hi > lo ? hi - lo : 0, n_end = out - n_begin - n_mid;
        int64_t cc0 = n_begin + n_mid - pb[a];   /* the first end coordinate (>= dim) */
        cval parts[3], *ins[3];
        int n = 0;
        const float *val = mode == PAD_CONSTANT && value_known ? &value : NULL;
        if (n_begin) {
            int64_t start = mode == PAD_EDGE ? 0 : mode == PAD_REFLECT ? pb[a] : pb[a] - 1;
            if ((rc = pad_part(c, L, &cur, a, mode, val, value_in, start, mode == PAD_EDGE ? 0 : -1,
                               n_begin, &parts[n])))
                return rc;
            ins[n] = &parts[n];
            n++;
        }
        if (n_mid) {
            if ((rc = slice_axis(c, L, &cur, a, pb[a] < 0 ? -pb[a] : 0, 1, n_mid, &parts[n])))
                return rc;
            ins[n] = &parts[n];
            n++;
        }
        if (n_end) {
            int64_t start = mode == PAD_EDGE      ? dim - 1
                            : mode == PAD_REFLECT ? 2 * dim - 2 - cc0
                                                  : 2 * dim - 1 - cc0;
            if ((rc = pad_part(c, L, &cur, a, mode, val, value_in, start, mode == PAD_EDGE ? 0 : -1,
                               n_end, &parts[n])))
                return rc;
            ins[n] = &parts[n];
            n++;
        }
        if (n == 1) {
            cur = parts[0];
            continue;
        }
        int64_t d[SIM_MAX_RANK];
        memcpy(d, cur.d, sizeof d);
        d[a] = out;
        sim_step s;
        memset(&s, 0, sizeof s);
        s.op = SIM_S_CONCAT;
        s.axis = a;
        cval next;
        if ((rc = emit(c, L, &s, ins, n, cur.et, cur.rank, d, &next)))
            return rc;
        cur = next;
    }
    return alias(c, &cur, x->et, rank, od, &L->val[0]);
}

/* Float contents of a constant input (Interpolate scales). */
static int const_floats(cc *c, layer *L, int i, float *out, int max, int *count, const char *what)
{
    cval *v = input(c, L, i);
    if (!is_const(c, v))
        return sim_lerr(c, L, "input %d (%s) must be a constant", i, what);
    uint64_t n;
    if (!numel_of(v->rank, v->d, &n) || v->rank > 1 || n > (uint64_t)max)
        return sim_lerr(c, L, "input %d (%s) must be a scalar or 1-D with at most %d values", i, what, max);
    for (uint64_t k = 0; k < n; k++) {
        if (v->tensor == NO_TENSOR) {
            uint8_t tmp[8];
            uint32_t esz = sim_prec_size(v->raw_et);
            memcpy(tmp, v->raw + k * esz, esz);
            sim_cvt_to_f32(v->raw_et, tmp, &out[k], 1);
        } else {
            out[k] = c->pool[c->tensors[v->tensor].offset + k];
        }
    }
    *count = (int)n;
    return SIM_OK;
}

/* An enumeration attribute (matched in any case, as OpenVINO's EnumNames does);
 * absent -> dflt. */
static int attr_enum(cc *c, layer *L, const char *name, const char *const *names, int n, int dflt,
                     int *out)
{
    char buf[64];
    if (!attr_str(L, name, buf, sizeof buf)) {
        *out = dflt;
        return SIM_OK;
    }
    for (int i = 0; i < n; i++)
        if (!strcasecmp(buf, names[i])) {
            *out = i;
            return SIM_OK;
        }
    char list[256] = "";
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    return sim_lerr(c, L, "attribute %s=\"%s\" is not one of %s", name, buf, list);
}

/* pads_begin / pads_end: resized to the rank (missing entries 0, extra ones
 * dropped), as OpenVINO's Interpolate shape inference does. */
static int attr_pads(cc *c, layer *L, const char *name, int rank, int64_t *out)
{
    char buf[256];
    for (int i = 0; i < rank; i++)
        out[i] = 0;
    if (!attr_str(L, name, buf, sizeof buf))
        return SIM_OK;
    int n, dyn, dyn_rank;
    int64_t d[SIM_MAX_RANK];
    if (!sim_parse_shape(buf, &n, d, &dyn, &dyn_rank) || dyn)
        return sim_lerr(c, L, "attribute %s=\"%s\" needs non-negative integers", name, buf);
    for (int i = 0; i < n && i < rank; i++) {
        if (d[i] > (1 << 30))
            return sim_lerr(c, L, "attribute %s=\"%s\": pad %" PRId64 " is too large", name, buf, d[i]);
        out[i] = d[i];
    }
    return SIM_OK;
}

static const char *const interp_modes[] = {"nearest", "linear", "linear_onnx", "cubic",
                                           "bilinear_pillow", "bicubic_pillow"};
static const char *const interp_calc[] = {"sizes", "scales"};
static const char *const interp_coords[] = {"half_pixel", "pytorch_half_pixel", "asymmetric",
                                            "tf_half_pixel_for_nn", "align_corners"};
static const char *const interp_nearest_modes[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
                                             "ceil", "simple"};

/* Pads x (materialized) with zeros along every axis (Concat with zero constants),
 * as OpenVINO's Interpolate pads its input before interpolating. */
static int pad_zeros(cc *c, layer *L, const cval *x, const int64_t *pb, const int64_t *pe, cval *out)
{
    cval cur = *x;
    for (int a = 0; a < x->rank; a++) {
        if (!pb[a] && !pe[a])
            continue;
        cval parts[3], *ins[3];
        int n = 0;
        for (int side = 0; side < 2; side++) {
            int64_t len = side ? pe[a] : pb[a];
            if (!len)
                continue;
            int64_t d[SIM_MAX_RANK];
            memcpy(d, cur.d, sizeof d);
            d[a] = len;
            uint64_t cnt, off;
            if (!numel_of(cur.rank, d, &cnt) || cnt > MAX_FOLD_FLOATS)
                return sim_lerr(c, L, "padding block is too large");
            if (!pool_alloc(c, cnt, &off))   /* zero-filled */
                return sim_nomem(c);
            cval *z = &parts[side ? 2 : 0];
            memset(z, 0, sizeof *z);
            z->set = 1;
            z->et = cur.et;
            z->rank = cur.rank;
            memcpy(z->d, d, sizeof d);
            z->tensor = add_tensor(c, SIM_T_CONST, off, cur.et, cur.rank, d);
            if (z->tensor == NO_TENSOR)
                return sim_nomem(c);
        }
        parts[1] = cur;
        if (pb[a])
            ins[n++] = &parts[0];
        ins[n++] = &parts[1];
        if (pe[a])
            ins[n++] = &parts[2];
        int64_t d[SIM_MAX_RANK];
        memcpy(d, cur.d, sizeof d);
        d[a] += pb[a] + pe[a];
        sim_step s;
        memset(&s, 0, sizeof s);
        s.op = SIM_S_CONCAT;
        s.axis = a;
        cval next;
        int rc = emit(c, L, &s, ins, n, cur.et, cur.rank, d, &next);
        if (rc)
            return rc;
        cur = next;
    }
    *out = cur;
    return SIM_OK;
}

/* Interpolate-4 (data, sizes, scales[, axes]) and Interpolate-11 (data,
 * scales_or_sizes[, axes]) without antialias: nearest, linear, linear_onnx.
 * Shapes as OpenVINO's shape inference gives them; the scales the coordinate
 * maps use are the given ones, or size / padded length in sizes mode. */
static int op_interpolate(cc *c, layer *L, int opset, int sub)
{
    (void)sub;
    int v11 = opset >= 11;
    int rc = need_ports(c, L, v11 ? 2 : 3, v11 ? 3 : 4, 1);
    int mode, calc, coord, nearest, antialias;
    if (rc || (rc = attr_enum(c, L, "mode", interp_modes, 6, SIM_INTERP_NEAREST, &mode)) ||
        (rc = attr_enum(c, L, "shape_calculation_mode", interp_calc, 2, 0, &calc)) ||
        (rc = attr_enum(c, L, "coordinate_transformation_mode", interp_coords, 5,
                        SIM_INTERP_HALF_PIXEL, &coord)) ||
        (rc = attr_enum(c, L, "nearest_mode", interp_nearest_modes, 5, SIM_INTERP_ROUND_PREFER_FLOOR,
                        &nearest)) ||
        (rc = attr_bool(c, L, "antialias", 0, &antialias)))
        return rc;
    if (!v11 && mode > 3)
        return sim_lerr(c, L, "Unsupported interpolation mode used with version 4 of the "
                          "Interpolate op: %s", interp_modes[mode]);
    if (mode > SIM_INTERP_LINEAR_ONNX)
        return sim_lerr(c, L, "Interpolate mode=\"%s\" is not supported by the sim compiler "
                          "(nearest, linear, linear_onnx)", interp_modes[mode]);
    cval *x = input(c, L, 0);
    int rank = x->rank;
    if (x->et == SIM_P_BOOL)
        return sim_lerr(c, L, "Interpolate of element type %s is not supported", sim_prec_name(x->et));
    if (rank < 1)
        return sim_lerr(c, L, "Interpolate needs an input of rank >= 1");
    int64_t pb[SIM_MAX_RANK], pe[SIM_MAX_RANK];
    if ((rc = attr_pads(c, L, "pads_begin", rank, pb)) || (rc = attr_pads(c, L, "pads_end", rank, pe)))
        return rc;
    /* axes: the last input when present, else 0..rank-1 */
    int64_t axes[SIM_MAX_RANK * 2];
    int n_axes = rank;
    int axes_port = v11 ? 2 : 3;
    for (int i = 0; i < rank; i++)
        axes[i] = i;
    if (L->n_in > axes_port) {
        cval *av = input(c, L, axes_port);
        if (av->et != SIM_P_I64 && av->et != SIM_P_I32)
            return sim_lerr(c, L, "Axes element type must be i32, i64, u32 or u64 (got %s)",
                            sim_prec_name(av->et));
        if ((rc = const_ints(c, L, axes_port, axes, SIM_MAX_RANK * 2, &n_axes, "axes")))
            return rc;
    }
    uint32_t mask = 0;
    for (int i = 0; i < n_axes; i++) {
        if (axes[i] < 0 || axes[i] >= rank)
            return sim_lerr(c, L, "axis %" PRId64 " is outside 0..%d (All axes values should less "
                              "than input rank: %d)", axes[i], rank - 1, rank);
        if (mask & (1u << axes[i]))
            return sim_lerr(c, L, "axis %" PRId64 " repeats in the axes input", axes[i]);
        mask |= 1u << axes[i];
    }
    /* padded input shape, then the output shape */
    int64_t padded[SIM_MAX_RANK], d[SIM_MAX_RANK];
    for (int i = 0; i < rank; i++)
        d[i] = padded[i] = x->d[i] + pb[i] + pe[i];
    float scales[SIM_MAX_RANK];
    int sport = v11 ? 1 : calc ? 2 : 1, n;
    const char *what = calc ? "scales" : "sizes";
    cval *sv = input(c, L, sport);
    if (calc) {
        float vals[SIM_MAX_RANK * 2];
        if (sv->et != SIM_P_FP32 && sv->et != SIM_P_FP16 && sv->et != SIM_P_BF16)
            return sim_lerr(c, L, "Scales element type must be f32, f16 or bf16 (got %s)",
                            sim_prec_name(sv->et));
        if ((rc = const_floats(c, L, sport, vals, SIM_MAX_RANK * 2, &n, what)))
            return rc;
        if (n < n_axes)
            return sim_lerr(c, L, "The number of elements in the 'scales' input does not match "
                              "the number of axes %d", n_axes);
        for (int i = 0; i < n_axes; i++) {
            float sc = vals[i];
            if (!(sc > 0.0f) || sc > 1e6f)
                return sim_lerr(c, L, "scale %g for axis %" PRId64 " is not a positive number "
                                  "the sim can use", (double)sc, axes[i]);
            scales[i] = sc;
            /* ov::util::dim::scale: floor(length * (scale + 1e-6)) in float, unless 1 */
            if (sc != 1.0f)
                d[axes[i]] = (int64_t)((float)padded[axes[i]] * (sc + 1.0e-6f));
        }
    } else {
        int64_t vals[SIM_MAX_RANK * 2];
        if (sv->et != SIM_P_I64 && sv->et != SIM_P_I32)
            return sim_lerr(c, L, "Sizes element type must be i32, i64, u32 or u64 (got %s)",
                            sim_prec_name(sv->et));
        if ((rc = const_ints(c, L, sport, vals, SIM_MAX_RANK * 2, &n, what)))
            return rc;
        if (n < n_axes)
            return sim_lerr(c, L, "The number of elements in the 'sizes' input does not match "
                              "the number of axes %d", n_axes);
        for (int i = 0; i < n_axes; i++) {
            if (vals[i] < 0 || vals[i] > ((int64_t)1 << 40))
                return sim_lerr(c, L, "size %" PRId64 " for axis %" PRId64 " is out of range",
                                vals[i], axes[i]);
            d[axes[i]] = vals[i];
            scales[i] = (float)vals[i] / (float)padded[axes[i]];
        }
    }
    /* antialias changes only linear, and only when an axis shrinks (the reference's
     * get_info_for_linear_mode); elsewhere OpenVINO ignores it and so does the sim */
    int shrinks = 0;
    for (int i = 0; i < n_axes; i++)
        shrinks |= scales[i] < 1.0f;
    if (antialias && mode == SIM_INTERP_LINEAR && shrinks)
        return sim_lerr(c, L, "Interpolate antialias=true (mode=linear, downscaling) is not "
                          "supported by the sim compiler");
    uint64_t out_n;
    if (!numel_of(rank, d, &out_n))
        return sim_lerr(c, L, "output is too large");
    for (int i = 0; out_n && i < rank; i++)
        if (padded[i] < 1)
            return sim_lerr(c, L, "cannot interpolate an empty input (dim %d)", i);
    cval xp;
    if ((rc = materialize(c, x)) || (rc = pad_zeros(c, L, x, pb, pe, &xp)))
        return rc;
    if (n_axes == 0)
        return alias(c, &xp, x->et, rank, d, &L->val[0]);
    uint64_t off;
    if (!pool_alloc(c, (uint64_t)n_axes, &off))
        return sim_nomem(c);
    memcpy(c->pool + off, scales, (size_t)n_axes * sizeof(float));
    int64_t sd[1] = {n_axes};
    cval sc;
    memset(&sc, 0, sizeof sc);
    sc.set = 1;
    sc.et = SIM_P_FP32;
    sc.rank = 1;
    sc.d[0] = n_axes;
    sc.tensor = add_tensor(c, SIM_T_CONST, off, SIM_P_FP32, 1, sd);
    if (sc.tensor == NO_TENSOR)
        return sim_nomem(c);
    sim_step s;
    memset(&s, 0, sizeof s);
    s.op = SIM_S_INTERPOLATE;
    s.sub = SIM_INTERP_SUB(mode, coord, nearest);
    s.axes_mask = mask;
    for (int i = 0; i < n_axes; i++)
        s.perm[i] = (int32_t)axes[i];
    cval *ins[2] = {&xp, &sc};
    return emit(c, L, &s, ins, 2, x->et, rank, d, &L->val[0]);
}

static variable *find_var(cc *c, const char *id)
{
    for (int i = 0; i < c->n_vars; i++)
        if (strcmp(c->vars[i].id, id) == 0)
            return &c->vars[i];
    return NULL;
}

/* Finds or creates the variable; its shape and type must agree across layers. */
static int get_var(cc *c, layer *L, const char *id, uint32_t et, int rank, const int64_t *d,
                   variable **out)
{
    variable *v = find_var(c, id);
    if (v) {
        int same = v->rank == rank && v->et == et;
        for (int i = 0; same && i < rank; i++)
            same = v->d[i] == d[i];
        if (!same)
            return sim_lerr(c, L, "variable '%s' is used with different shapes or types", id);
        if (L->doc < v->doc)
            v->doc = L->doc;
        *out = v;
        return SIM_OK;
    }
    if (!grow(&c->vars, (uint32_t *)&c->cap_vars, (uint32_t)c->n_vars + 1, sizeof(variable)))
        return sim_nomem(c);
    v = &c->vars[c->n_vars++];
    memset(v, 0, sizeof *v);
    snprintf(v->id, sizeof v->id, "%s", id);
    v->doc = L->doc;
    v->et = et;
    v->rank = rank;
    memcpy(v->d, d, sizeof v->d);
    v->out_tensor = NO_TENSOR;
    v->in_tensor = add_arena(c, et, rank, d);
    if (v->in_tensor == NO_TENSOR)
        return sim_nomem(c);
    *out = v;
    return SIM_OK;
}

static int op_read_value(cc *c, layer *L, int opset, int sub)
{
    (void)sub;
    int rc = need_ports(c, L, opset >= 6 ? 0 : 1, 1, 1);
    char id[SIM_NAME_MAX], buf[512];
    if (rc)
        return rc;
    if (L->n_in == 0 && c->prof->read_value_needs_input)
        return sim_lerr(c, L, "nGraph ReadValue node '%s' has unsupported number of inputs '0' "
                          "(this compiler needs the init value input)", L->name);
    if (!attr_str(L, "variable_id", id, sizeof id) || !id[0])
        return sim_lerr(c, L, "ReadValue without variable_id");
    uint32_t et = 0;
    int rank = -1, dyn = 1, dyn_rank;
    int64_t d[SIM_MAX_RANK] = {0};
    if (opset >= 6 && attr_str(L, "variable_type", buf, sizeof buf) && strcasecmp(buf, "dynamic") &&
        strcasecmp(buf, "undefined")) {
        if (!(et = sim_prec_from_name(buf)))
            return sim_lerr(c, L, "unsupported element type %s", buf);
    }
    if (opset >= 6 && attr_str(L, "variable_shape", buf, sizeof buf) &&
        !sim_parse_shape(buf, &rank, d, &dyn, &dyn_rank))
        return sim_lerr(c, L, "malformed variable_shape \"%s\"", buf);
    if (L->n_in == 1) {
        cval *init = input(c, L, 0);
        if (!et)
            et = init->et;
        if (dyn) {
            rank = init->rank;
            memcpy(d, init->d, sizeof d);
        } else {
            int same = rank == init->rank;
            for (int i = 0; same && i < rank; i++)
                same = d[i] == init->d[i];
            if (!same)
                return sim_lerr(c, L, "variable_shape does not match the init input");
        }
    } else if (dyn || !et) {
        return sim_lerr(c, L, "ReadValue without init needs a static variable_shape and a variable_type");
    }
    variable *v;
    if ((rc = get_var(c, L, id, et, rank, d, &v)))
        return rc;
    if (!v->read_name)
        v->read_name = L->name;
    cval src;
    memset(&src, 0, sizeof src);
    src.tensor = v->in_tensor;
    src.set = 1;
    /* The host carries assign -> read_value, so the init input is not used. */
    return alias(c, &src, et, rank, d, &L->val[0]);
}

static int op_assign(cc *c, layer *L, int opset, int sub)
{
    (void)opset;
    (void)sub;
    int rc = need_ports(c, L, 1, 1, 0);
    char id[SIM_NAME_MAX];
    if (rc)
        return rc;
    if (!attr_str(L, "variable_id", id, sizeof id) || !id[0])
        return sim_lerr(c, L, "Assign without variable_id");
    cval *x = input(c, L, 0);
    variable *v;
    if ((rc = get_var(c, L, id, x->et, x->rank, x->d, &v)))
        return rc;
    if (v->assign_name)
        return sim_lerr(c, L, "variable '%s' is assigned twice", id);
    if ((rc = materialize(c, x)))
        return rc;
    v->assign_name = L->name;
    v->out_tensor = x->tensor;
    if (L->n_out >= 1)
        return alias(c, x, x->et, x->rank, x->d, &L->val[0]);
    return SIM_OK;
}

/* ==== ops: helpers for the other op files (compiler_internal.h) ============ */

cval *sim_op_input(cc *c, layer *L, int i) { return input(c, L, i); }
int sim_op_need_ports(cc *c, layer *L, int min_in, int max_in, int min_out)
{
    return need_ports(c, L, min_in, max_in, min_out);
}
int sim_op_emit(cc *c, layer *L, sim_step *s, cval **ins, int n_in, uint32_t et, int rank,
                const int64_t *d, cval *out)
{
    return emit(c, L, s, ins, n_in, et, rank, d, out);
}
int sim_op_alias(cc *c, const cval *src, uint32_t et, int rank, const int64_t *d, cval *out)
{
    return alias(c, src, et, rank, d, out);
}
int sim_op_attr_int(cc *c, layer *L, const char *name, int64_t dflt, int64_t *out)
{
    return attr_int(c, L, name, dflt, out);
}
int sim_op_attr_str(layer *L, const char *name, char *buf, size_t cap)
{
    return attr_str(L, name, buf, cap);
}
int sim_op_attr_enum(cc *c, layer *L, const char *name, const char *const *names, int n, int dflt,
                     int *out)
{
    return attr_enum(c, L, name, names, n, dflt, out);
}
int sim_op_const_ints(cc *c, layer *L, int i, int64_t *out, int max, int *count, const char *what)
{
    return const_ints(c, L, i, out, max, count, what);
}
int sim_op_broadcast(const cval *a, const cval *b, int64_t *d, int *rank)
{
    return broadcast(a, b, d, rank);
}
void sim_op_fmt_dims(char *buf, size_t cap, int rank, const int64_t *d)
{
    fmt_dims(buf, cap, rank, d);
}
int sim_op_is_float_et(uint32_t et) { return is_float_et(et); }
int sim_op_attr_bool(cc *c, layer *L, const char *name, int dflt, int *out) { return attr_bool(c, L, name, dflt, out); }
int sim_op_attr_float(cc *c, layer *L, const char *name, double *out) { return attr_float(c, L, name, out); }
int sim_op_attr_list(cc *c, layer *L, const char *name, int want, int64_t dflt, int64_t *out)
{
    return attr_list(c, L, name, want, dflt, out);
}
int sim_op_norm_axis(cc *c, layer *L, int64_t axis, int rank, int *out) { return norm_axis(c, L, axis, rank, 1, out); }
int sim_op_const_fill(cc *c, layer *L, uint32_t et, float v, cval *out)
{
    const int64_t d[1] = {1};
    return const_fill(c, L, et, 0, d, v, out);
}

/* ==== ops: table ========================================================== */

typedef struct op_def {
    const char *type;   /* matched case-insensitively */
    int since;          /* first opset holding the op */
    op_fn fn;
    int sub;
} op_def;

static const op_def ops[] = {
    {"Parameter", 1, op_parameter, 0},
    {"Const", 1, op_const, 0},
    {"Constant", 1, op_const, 0},
    {"Result", 1, op_result, 0},
    {"Convert", 1, op_convert, 0},
    {"MatMul", 1, op_matmul, 0},
    {"Add", 1, op_binary, SIM_BIN_ADD},
    {"Subtract", 1, op_binary, SIM_BIN_SUB},
    {"Multiply", 1, op_binary, SIM_BIN_MUL},
    {"Divide", 1, op_binary, SIM_BIN_DIV},
    {"Maximum", 1, op_binary, SIM_BIN_MAX},
    {"Minimum", 1, op_binary, SIM_BIN_MIN},
    {"Power", 1, op_binary, SIM_BIN_POW},
    {"PRelu", 1, sim_op_prelu, 0},
    {"Relu", 1, op_unary, SIM_UN_RELU},
    {"Sigmoid", 1, op_unary, SIM_UN_SIGMOID},
    {"Tanh", 1, op_unary, SIM_UN_TANH},
    {"Exp", 1, op_unary, SIM_UN_EXP},
    {"Sqrt", 1, op_unary, SIM_UN_SQRT},
    {"Abs", 1, op_unary, SIM_UN_ABS},
    {"Negative", 1, op_unary, SIM_UN_NEG},
    {"Erf", 1, op_arith_unary, SIM_UN_ERF},
    {"Log", 1, op_arith_unary, SIM_UN_LOG},
    {"Floor", 1, op_arith_unary, SIM_UN_FLOOR},
    {"Gelu", 2, op_float_unary, SIM_UN_GELU_ERF},
    {"HSwish", 4, op_float_unary, SIM_UN_HSWISH},
    {"Mish", 4, op_float_unary, SIM_UN_MISH},
    {"Swish", 4, op_swish, 0},
    {"HSigmoid", 5, op_float_unary, SIM_UN_HSIGMOID},
    {"Clamp", 1, op_clamp, 0},
    {"SoftMax", 1, op_softmax, 0},
    {"Convolution", 1, op_conv, 0},
    {"GroupConvolution", 1, op_conv, 1},
    {"MaxPool", 1, op_pool, 0},
    {"AvgPool", 1, op_pool, 1},
    {"ReduceMean", 1, op_reduce, SIM_RED_MEAN},
    {"ReduceSum", 1, op_reduce, SIM_RED_SUM},
    {"ReduceMax", 1, op_reduce, SIM_RED_MAX},
    {"ReduceMin", 1, op_reduce, SIM_RED_MIN},
    {"ReduceProd", 1, op_reduce, SIM_RED_PROD},
    {"ReduceL2", 4, op_reduce, SIM_RED_L2},
    {"ReduceL1", 4, op_reduce, SIM_RED_L1},
    {"MVN", 1, sim_op_mvn, 0},
    {"NormalizeL2", 1, sim_op_normalize_l2, 0},
    {"TopK", 3, sim_op_topk, 0},
    {"ConvolutionBackpropData", 1, sim_op_deconv, 0},
    {"GroupConvolutionBackpropData", 1, sim_op_deconv, 1},
    {"Equal", 1, op_compare, SIM_BIN_EQ},
    {"NotEqual", 1, op_compare, SIM_BIN_NE},
    {"Less", 1, op_compare, SIM_BIN_LT},
    {"LessEqual", 1, op_compare, SIM_BIN_LE},
    {"Greater", 1, op_compare, SIM_BIN_GT},
    {"GreaterEqual", 1, op_compare, SIM_BIN_GE},
    {"LogSoftmax", 5, op_softmax, 1},
    {"FakeQuantize", 1, sim_op_fake_quantize, 0},
    {"Select", 1, sim_op_select, 0},
    {"Broadcast", 1, sim_op_broadcast_op, 0},
    {"Tile", 1, sim_op_tile, 0},
    {"Reshape", 1, op_reshape, 0},
    {"Squeeze", 1, op_squeeze, 0},
    {"Unsqueeze", 1, op_squeeze, 1},
    {"Transpose", 1, op_transpose, 0},
    {"Concat", 1, op_concat, 0},
    {"Split", 1, op_split, 0},
    {"VariadicSplit", 1, op_split, 1},
    {"ShapeOf", 1, op_shape_of, 0},
    {"Gather", 1, op_gather, 0},
    {"StridedSlice", 1, op_strided_slice, 0},
    {"Pad", 1, op_pad, 0},
    {"Slice", 8, op_slice, 0},
    {"Interpolate", 4, op_interpolate, 0},
    {"ReadValue", 3, op_read_value, 0},
    {"Assign", 3, op_assign, 0},
};

/* "opsetN" -> N; anything else (custom opsets, "experimental", ...) -> 0. */
static int opset_number(const char *v)
{
    int64_t n;
    if (strncmp(v, "opset", 5) != 0 || !sim_parse_i64(v + 5, &n) || n < 1 || n > 1000)
        return 0;
    return (int)n;
}

static const op_def *find_op(const layer *L, int *opset)
{
    *opset = opset_number(L->version);
    if (*opset < 1 || *opset > SIM_MAX_OPSET)
        return NULL;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcasecmp(ops[i].type, L->type) == 0)
            return *opset >= ops[i].since ? &ops[i] : NULL;
    return NULL;
}

/* ==== arguments =========================================================== */

static uint32_t layout_for_rank(uint32_t rank)
{
    static const uint32_t by_rank[] = {0, 0x60, 0xC1, 0x80, 1, 3};
    return rank < 6 ? by_rank[rank] : 0xC8;
}

static void split_names(sim_arg *a, const char *names)
{
    if (!names)
        return;
    const char *s = names;
    while (*s && a->tensor_name_count < SIM_MAX_TENSOR_NAMES) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        while (len && isspace((unsigned char)*s)) {
            s++;
            len--;
        }
        while (len && isspace((unsigned char)s[len - 1]))
            len--;
        if (len) {
            if (len >= SIM_NAME_MAX)
                len = SIM_NAME_MAX - 1;
            memcpy(a->tensor_names[a->tensor_name_count], s, len);
            a->tensor_names[a->tensor_name_count++][len] = '\0';
        }
        if (!e)
            break;
        s = e + 1;
    }
}

static void fill_arg(cc *c, sim_arg *a, int is_output, uint32_t tensor, uint32_t et)
{
    const sim_tensor *t = &c->tensors[tensor];
    a->is_output = is_output;
    a->precision = a->network_precision = et;
    a->meta_type = sim_prec_meta(et);
    a->rank = (uint32_t)t->rank;
    for (int i = 0; i < t->rank; i++)
        a->dims[i] = a->ir_shape[i] = (uint64_t)t->d[i];
    a->ir_rank = a->rank;
    a->layout = layout_for_rank(a->rank);
}

static int cmp_var_doc(const void *a, const void *b)
{
    return ((const variable *)a)->doc - ((const variable *)b)->doc;
}

int sim_build_args(cc *c, sim_plan *p)
{
    uint32_t n_in = 0, n_out = 0;
    for (int i = 0; i < c->n_layers; i++) {
        int opset;
        const op_def *d = find_op(&c->layers[i], &opset);
        n_in += d && d->fn == op_parameter;
        n_out += d && d->fn == op_result;
    }
    for (int i = 0; i < c->n_vars; i++)
        if (!c->vars[i].read_name)
            return sim_lerr(c, NULL, "variable '%s' is assigned but never read (no ReadValue)",
                            c->vars[i].id);
    if (c->n_vars)
        qsort(c->vars, (size_t)c->n_vars, sizeof(variable), cmp_var_doc);
    p->n_args = n_in + n_out + 2 * (uint32_t)c->n_vars;
    p->args = calloc(p->n_args + 1, sizeof(sim_arg));
    p->arg_tensor = calloc(p->n_args + 1, sizeof(uint32_t));
    if (!p->args || !p->arg_tensor)
        return sim_nomem(c);
    uint32_t k = 0;
    for (int i = 0; i < c->n_layers; i++) {
        layer *L = &c->layers[i];
        int opset;
        const op_def *d = find_op(L, &opset);
        if (!d || d->fn != op_parameter)
            continue;
        sim_arg *a = &p->args[k];
        snprintf(a->name, sizeof a->name, "%s", L->name);
        snprintf(a->friendly_name, sizeof a->friendly_name, "%s", L->name);
        split_names(a, L->out[0].names);
        p->arg_tensor[k++] = L->val[0].tensor;
        fill_arg(c, a, 0, L->val[0].tensor, L->val[0].et);
    }
    for (int i = 0; i < c->n_vars; i++) {
        sim_arg *a = &p->args[k];
        sim_join_str(a->name, sizeof a->name, SIM_READ_VALUE_PREFIX, c->vars[i].id);
        snprintf(a->friendly_name, sizeof a->friendly_name, "%s", c->vars[i].read_name);
        p->arg_tensor[k++] = c->vars[i].in_tensor;
        fill_arg(c, a, 0, c->vars[i].in_tensor, c->vars[i].et);
    }
    for (int i = 0; i < c->n_layers; i++) {
        layer *L = &c->layers[i];
        int opset;
        const op_def *d = find_op(L, &opset);
        if (!d || d->fn != op_result)
            continue;
        layer *src = &c->layers[L->src[0]];
        cval *v = &src->val[L->src_port[0]];
        sim_arg *a = &p->args[k];
        snprintf(a->name, sizeof a->name, "%s", src->name);
        snprintf(a->friendly_name, sizeof a->friendly_name, "%s", L->name);
        split_names(a, src->out[L->src_port[0]].names);
        if (!a->tensor_name_count)
            split_names(a, L->in[0].names);
        p->arg_tensor[k] = v->tensor;
        fill_arg(c, a, 1, v->tensor, v->et);
        /* ir_shape: as declared on the Result's input when the rank agrees */
        if (L->in[0].rank == (int)a->rank)
            for (uint32_t r = 0; r < a->rank; r++)
                a->ir_shape[r] = L->in[0].d[r] < 0 ? UINT64_MAX : (uint64_t)L->in[0].d[r];
        k++;
    }
    for (int i = 0; i < c->n_vars; i++) {
        variable *v = &c->vars[i];
        sim_arg *a = &p->args[k];
        sim_join_str(a->name, sizeof a->name, SIM_ASSIGN_PREFIX, v->id);
        snprintf(a->friendly_name, sizeof a->friendly_name, "%s",
                 v->assign_name ? v->assign_name : v->read_name);
        /* A ReadValue without Assign: the state passes through unchanged. */
        p->arg_tensor[k] = v->out_tensor != NO_TENSOR ? v->out_tensor : v->in_tensor;
        fill_arg(c, a, 1, p->arg_tensor[k], v->et);
        k++;
    }
    return SIM_OK;
}

/* ==== lowering the whole net ============================================== */

/* Parses the payload and the XML into c (layers, edges); the doc stays with the caller. */
int sim_load_model(cc *c, const void *payload_buf, size_t size, uint32_t version, int layout_b,
                   int check_ops, xmlDocPtr *doc_out)
{
    int rc = sim_read_net(c, payload_buf, size, version, layout_b, doc_out);
    if (rc)
        return rc;
    for (int i = 0; check_ops && i < c->n_layers; i++) { /* name every unsupported layer */
        int opset;
        if (!find_op(&c->layers[i], &opset))
            rc = sim_lerr(c, &c->layers[i], "unsupported op %s-%s", c->layers[i].type,
                          c->layers[i].version);
    }
    return rc ? rc : sim_read_edges(c);
}

int sim_compile_layers(cc *c)
{
    int *order = calloc((size_t)c->n_layers, sizeof(int));
    if (!order)
        return sim_nomem(c);
    int rc = sim_topo_order(c, order);
    for (int i = 0; !rc && i < c->n_layers; i++) {
        layer *L = &c->layers[order[i]];
        int opset;
        const op_def *d = find_op(L, &opset);
        rc = d->fn(c, L, opset, d->sub);
        if (!rc && c->nomem)
            rc = sim_nomem(c);
        for (int k = 0; !rc && k < L->n_out; k++)
            if (L->out[k].uses && !L->val[k].set)
                rc = sim_lerr(c, L, "output port %ld is used but %s does not produce it", L->out[k].id,
                              L->type);
    }
    free(order);
    return rc;
}

/* ==== query network ======================================================= */

int sim_plan_query_network(const void *payload_buf, size_t size, uint32_t compiler_version,
                           const char *build_flags, char *out, size_t cap, size_t *needed,
                           char *log_buf, size_t log_cap)
{
    sim_log log;
    sim_log_init(&log, log_buf, log_cap);
    cc c;
    memset(&c, 0, sizeof c);
    c.log = &log;
    c.prof = sim_profile_current();
    xmlDocPtr doc = NULL;
    flags f;
    int rc = sim_parse_flags(&c, build_flags, &f);
    for (int w = 0; w < 4; w++)
        free(f.lists[w].items);
    if (!rc)
        rc = sim_load_model(&c, payload_buf, size, compiler_version, f.layout_b, 0, &doc);
    size_t len = 0;
    int fits = out != NULL;
    if (out && cap)
        out[0] = '\0';
    for (int i = 0; !rc && i < c.n_layers; i++) {
        layer *L = &c.layers[i];
        int opset;
        const op_def *d = find_op(L, &opset);
        if (!d)
            continue;
        if (d->fn == op_parameter || d->fn == op_const || d->fn == op_convert) {
            char buf[64];
            const char *attr = d->fn == op_convert ? "destination_type" : "element_type";
            if (attr_str(L, attr, buf, sizeof buf) && !sim_prec_from_name(buf))
                continue;
        }
        size_t n = strlen(L->name);
        if (fits && len + (len ? 1 : 0) + n + 1 > cap)
            fits = 0;
        if (fits) {
            if (len)
                out[len] = ';';
            memcpy(out + len + (len ? 1 : 0), L->name, n + 1);
        }
        len += (len ? 1 : 0) + n;
    }
    if (needed)
        *needed = rc ? 0 : len + 1;
    if (doc)
        xmlFreeDoc(doc);
    sim_cc_free(&c);
    return rc;
}

int sim_plan_query_layers(const void *payload_buf, size_t size, uint32_t compiler_version, char *out,
                          size_t cap, size_t *needed, char *log_buf, size_t log_cap)
{
    return sim_plan_query_network(payload_buf, size, compiler_version, NULL, out, cap, needed, log_buf,
                                  log_cap);
}
