/* planner.c - the compiler's planner (see compiler_internal.h): turns what the
 * ops emitted into the plan that runs.
 *
 * Owns:
 *   finish   dead-step removal (steps no output needs), the arena layout (each
 *            buffer placed first-fit among the buffers still alive at its step,
 *            inputs first), tensor renumbering, argument sizes
 *   compile  sim_plan_compile: flags, payload and XML (payload.c), the ops and
 *            the arguments (ops.c), the I/O preprocessing (payload.c), then the
 *            finish, the plan's self-check (exec.c) and the native blob (elf.c)
 * The top of the compiler: calls ops.c, payload.c, exec.c and elf.c; nothing in
 * the compiler calls it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "sim/compiler_internal.h"

/* ==== finish: liveness, arena, compaction ================================= */

static void finish_bytes(sim_plan *p)
{
    for (uint32_t i = 0; i < p->n_args; i++) {
        sim_arg *a = &p->args[i];
        uint64_t n = 1;
        for (uint32_t r = 0; r < a->rank; r++)
            n *= a->dims[r];
        a->bytes = (size_t)(n * sim_prec_size(a->precision));
    }
}

typedef struct block {
    uint64_t off, size;
    int64_t last;
} block;

/* Drops steps nobody needs, packs arena buffers by liveness and renumbers tensors. */
static int finish_plan(cc *c, sim_plan *p)
{
    uint32_t nb = c->n_bufs, nt = c->n_tensors;
    uint8_t *live = calloc(nb + 1, 1), *keep = calloc(c->n_steps + 1, 1), *used_t = calloc(nt + 1, 1);
    int64_t *last = calloc(nb + 1, sizeof(int64_t));
    uint64_t *off = calloc(nb + 1, sizeof(uint64_t));
    uint8_t *placed = calloc(nb + 1, 1);
    uint32_t *remap = calloc(nt + 1, sizeof(uint32_t));
    block *act = calloc(nb + 1, sizeof(block));
    uint32_t *ins = malloc(((size_t)c->n_step_inputs + 1) * sizeof(uint32_t));
    int rc = SIM_OK;
    if (!live || !keep || !used_t || !last || !off || !placed || !remap || !act || !ins) {
        rc = sim_nomem(c);
        goto out;
    }
#define BUF(t) ((uint32_t)c->tensors[t].offset)
#define IS_ARENA(t) (c->tensors[t].where == SIM_T_ARENA)
    for (uint32_t b = 0; b < nb; b++)
        last[b] = -1;
    for (uint32_t i = 0; i < p->n_args; i++)
        if (IS_ARENA(p->arg_tensor[i]) && p->args[i].is_output) {
            live[BUF(p->arg_tensor[i])] = 1;
            last[BUF(p->arg_tensor[i])] = INT64_MAX;
        }
    for (uint32_t s = c->n_steps; s-- > 0;) {
        const sim_step *st = &c->steps[s];
        if (!live[BUF(st->out)])
            continue;
        keep[s] = 1;
        for (uint32_t k = 0; k < st->in_count; k++) {
            uint32_t t = c->step_inputs[st->in_first + k];
            if (IS_ARENA(t))
                live[BUF(t)] = 1;
        }
    }
    uint32_t n_steps = 0, n_ins = 0;
    for (uint32_t s = 0; s < c->n_steps; s++) {
        if (!keep[s])
            continue;
        sim_step st = c->steps[s];
        for (uint32_t k = 0; k < st.in_count; k++) {
            uint32_t t = c->step_inputs[st.in_first + k];
            ins[n_ins + k] = t;
            if (IS_ARENA(t) && last[BUF(t)] < (int64_t)n_steps)
                last[BUF(t)] = n_steps;
        }
        st.in_first = n_ins;
        n_ins += st.in_count;
        c->steps[n_steps++] = st;
    }
    /* Arena packing: inputs first (all written before any step), then each step's
     * output first-fit among the blocks still alive. */
    int n_act = 0;
    uint64_t top = 0;
    for (uint32_t pass = 0; pass <= n_steps; pass++) {
        if (pass > 0) {
            int w = 0;
            for (int i = 0; i < n_act; i++)
                if (act[i].last >= (int64_t)pass - 1)
                    act[w++] = act[i];
            n_act = w;
        }
        uint32_t want[1] = {0};
        int n_want = 0;
        if (pass == 0) {
            for (uint32_t i = 0; i < p->n_args; i++) {
                uint32_t b = BUF(p->arg_tensor[i]);
                if (!p->args[i].is_output && !placed[b]) {
                    /* allocate inline (may be many) */
                    uint64_t size = (c->buf_size[b] + 15) & ~(uint64_t)15;
                    off[b] = top;
                    top += size ? size : 16;
                    placed[b] = 1;
                    act[n_act].off = off[b];
                    act[n_act].size = size ? size : 16;
                    act[n_act++].last = last[b];
                }
            }
        } else {
            want[n_want++] = BUF(c->steps[pass - 1].out);
        }
        for (int w = 0; w < n_want; w++) {
            uint32_t b = want[w];
            if (placed[b])
                continue;
            uint64_t size = (c->buf_size[b] + 15) & ~(uint64_t)15;
            if (!size)
                size = 16;
            /* act is sorted by offset: find the first gap */
            uint64_t pos = 0;
            int at = n_act;
            for (int i = 0; i < n_act; i++) {
                if (act[i].off >= pos + size) {
                    at = i;
                    break;
                }
                if (act[i].off + act[i].size > pos)
                    pos = act[i].off + act[i].size;
            }
            memmove(&act[at + 1], &act[at], (size_t)(n_act - at) * sizeof(block));
            act[at].off = pos;
            act[at].size = size;
            act[at].last = last[b] < (int64_t)pass - 1 ? (int64_t)pass - 1 : last[b];
            n_act++;
            off[b] = pos;
            placed[b] = 1;
            if (pos + size > top)
                top = pos + size;
        }
        /* inputs were appended in order of offset already; keep act sorted */
    }
    p->arena_floats = top;
    /* renumber the tensors that are still referenced */
    for (uint32_t i = 0; i < p->n_args; i++)
        used_t[p->arg_tensor[i]] = 1;
    for (uint32_t s = 0; s < n_steps; s++) {
        used_t[c->steps[s].out] = 1;
        for (uint32_t k = 0; k < c->steps[s].in_count; k++)
            used_t[ins[c->steps[s].in_first + k]] = 1;
    }
    uint32_t n = 0;
    p->tensors = calloc(nt + 1, sizeof(sim_tensor));
    p->steps = calloc(n_steps + 1, sizeof(sim_step));
    p->step_inputs = calloc(n_ins + 1, sizeof(uint32_t));
    if (!p->tensors || !p->steps || !p->step_inputs) {
        rc = sim_nomem(c);
        goto out;
    }
    for (uint32_t t = 0; t < nt; t++) {
        if (!used_t[t])
            continue;
        remap[t] = n;
        p->tensors[n] = c->tensors[t];
        if (IS_ARENA(t))
            p->tensors[n].offset = off[BUF(t)];
        n++;
    }
    p->n_tensors = n;
    for (uint32_t s = 0; s < n_steps; s++) {
        p->steps[s] = c->steps[s];
        p->steps[s].out = remap[c->steps[s].out];
    }
    for (uint32_t k = 0; k < n_ins; k++)
        p->step_inputs[k] = remap[ins[k]];
    for (uint32_t i = 0; i < p->n_args; i++)
        p->arg_tensor[i] = remap[p->arg_tensor[i]];
    p->n_steps = n_steps;
    p->n_step_inputs = n_ins;
    p->const_floats = c->pool_n;
#undef BUF
#undef IS_ARENA
out:
    free(live);
    free(keep);
    free(used_t);
    free(last);
    free(off);
    free(placed);
    free(remap);
    free(act);
    free(ins);
    return rc;
}

/* ==== the profiling layer table ========================================== */

/* Renumbers each step's layer from the IR layer index emit() recorded to an
 * entry of p->layers: with PERF_COUNT=YES one entry per IR layer that owns a
 * step, in the order of its first step (layers folded into constants or
 * aliases own none); otherwise every step gets -1 and the plan has no table. */
static int build_layer_table(cc *c, sim_plan *p, int perf_count)
{
    if (!perf_count) {
        for (uint32_t s = 0; s < p->n_steps; s++)
            p->steps[s].layer = -1;
        return SIM_OK;
    }
    int32_t *slot = malloc(((size_t)c->n_layers + 1) * sizeof *slot);
    p->layers = calloc((size_t)p->n_steps + 1, sizeof *p->layers);
    if (!slot || !p->layers) {
        free(slot);
        return sim_nomem(c);
    }
    for (int i = 0; i < c->n_layers; i++)
        slot[i] = -1;
    uint32_t n = 0;
    for (uint32_t s = 0; s < p->n_steps; s++) {
        int32_t l = p->steps[s].layer;
        if (l < 0 || l >= c->n_layers) {   /* a step of no layer: its own entry */
            sim_prof_layer *e = &p->layers[n];
            snprintf(e->name, sizeof e->name, "step_%u", s);
            snprintf(e->type, sizeof e->type, "%s", "Internal");
            p->steps[s].layer = (int32_t)n++;
            continue;
        }
        if (slot[l] < 0) {
            sim_prof_layer *e = &p->layers[n];
            snprintf(e->name, sizeof e->name, "%s", c->layers[l].name ? c->layers[l].name : "");
            snprintf(e->type, sizeof e->type, "%s", c->layers[l].type ? c->layers[l].type : "");
            slot[l] = (int32_t)n++;
        }
        p->steps[s].layer = slot[l];
    }
    free(slot);
    p->n_layers = n;
    /* A plan without steps still profiles (an empty layer table): mark it. */
    p->profiling = 1;
    return SIM_OK;
}

/* ==== the whole compile =================================================== */

int sim_plan_compile(const void *payload_buf, size_t size, uint32_t compiler_version,
                     const char *build_flags, sim_plan **out, char *log_buf, size_t log_cap)
{
    sim_log log;
    sim_log_init(&log, log_buf, log_cap);
    if (out)
        *out = NULL;
    cc c;
    memset(&c, 0, sizeof c);
    c.log = &log;
    c.prof = sim_profile_current();
    xmlDocPtr doc = NULL;
    flags f;
    memset(&f, 0, sizeof f);
    sim_plan *p = calloc(1, sizeof *p);
    int rc = p ? SIM_OK : SIM_ERR_NOMEM;
    if (!rc && !out)
        rc = sim_lerr_rc(&c, NULL, SIM_ERR_OPTIONS, "no output plan pointer");
    if (!rc)
        rc = sim_parse_flags(&c, build_flags, &f);
    if (!rc)
        rc = sim_load_model(&c, payload_buf, size, compiler_version, f.layout_b, 1, &doc);
    if (!rc)
        rc = sim_compile_layers(&c);
    if (!rc)
        rc = sim_build_args(&c, p);
    if (!rc) {
        uint32_t n_in = 0;
        while (n_in < p->n_args && !p->args[n_in].is_output)
            n_in++;
        rc = sim_preprocess(&c, p, &f, n_in - (uint32_t)c.n_vars, n_in);
        finish_bytes(p);
    }
    if (!rc)
        rc = finish_plan(&c, p);
    if (!rc)
        rc = build_layer_table(&c, p, f.perf_count);
    if (!rc && sim_plan_validate(p, &log) != 0)
        rc = sim_lerr(&c, NULL, "internal error: the compiled plan failed validation");
    if (!rc && sim_plan_build_native(p, c.pool) != SIM_OK)
        rc = sim_nomem(&c);
    for (int w = 0; w < 4; w++)
        free(f.lists[w].items);
    if (doc)
        xmlFreeDoc(doc);
    /* The 2026 compiler reads the model inside the compile call, where any error
     * other than an invalid-IR one becomes INVALID_ARGUMENT ("Compiler returned
     * msg"); older ones reported a model OpenVINO cannot read as UNKNOWN. */
    if (rc == SIM_ERR_READ_MODEL && sim_compiler_generation(c.prof) == GEN_2026)
        rc = SIM_ERR_COMPILE;
    sim_cc_free(&c);
    if (rc) {
        sim_plan_free(p);
        if (rc == SIM_ERR_NOMEM && log.len == 0)
            sim_log_add(&log, "out of memory while compiling");
        return rc;
    }
    *out = p;
    return SIM_OK;
}
