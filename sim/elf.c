/* elf.c - the plan's native blob: an ELF64 little-endian relocatable file.
 *
 *   [Elf64_Ehdr][.sim.plan][pad][.sim.weights][.shstrtab][pad][section headers]
 *
 * .sim.plan holds a versioned header followed by the plan's record arrays
 * (arguments, argument tensors, tensors, steps, step inputs, profiling layers), each 8-byte
 * aligned. .sim.weights holds the constant pool (f32) at a 64-byte aligned file
 * offset, so an imported plan runs on its own copy of the blob in place.
 * A 64-bit FNV-1a checksum covers both sections; import also re-validates every
 * record with sim_plan_validate, so a corrupted blob is refused, never run.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "sim/plan_internal.h"

#define SEC_PLAN ".sim.plan"
#define SEC_WEIGHTS ".sim.weights"
#define WEIGHTS_ALIGN 64u
#define MAX_RECORDS (1u << 24)

typedef struct plan_header {
    char magic[8];              /* SIM_PLAN_MAGIC */
    uint32_t format_version;    /* SIM_PLAN_FORMAT_VERSION */
    uint32_t header_size;
    uint32_t arg_size, tensor_size, step_size; /* record sizes, guard against ABI drift */
    uint32_t n_args, n_tensors, n_steps, n_step_inputs;
    uint32_t n_layers;          /* profiling layer table entries */
    uint32_t profiling;         /* 1: compiled with PERF_COUNT=YES */
    uint64_t arena_floats;
    uint64_t const_floats;
    uint64_t checksum;          /* FNV-1a over the plan records, then the weights */
} plan_header;

static const char shstrtab[] = "\0" SEC_PLAN "\0" SEC_WEIGHTS "\0.shstrtab";
#define NAME_PLAN 1u
#define NAME_WEIGHTS (NAME_PLAN + sizeof SEC_PLAN)
#define NAME_SHSTRTAB (NAME_WEIGHTS + sizeof SEC_WEIGHTS)

static size_t align_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const uint8_t *b = data;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}
#define FNV_BASIS UINT64_C(0xcbf29ce484222325)

/* Byte offsets of the record arrays inside .sim.plan; 0 on overflow. */
typedef struct plan_layout {
    size_t args, arg_tensor, tensors, steps, step_inputs, layers, total;
} plan_layout;

static int layout_of(uint64_t n_args, uint64_t n_tensors, uint64_t n_steps, uint64_t n_inputs,
                     uint64_t n_layers, plan_layout *l)
{
    if (n_args > MAX_RECORDS || n_tensors > MAX_RECORDS || n_steps > MAX_RECORDS ||
        n_inputs > MAX_RECORDS || n_layers > MAX_RECORDS)
        return 0;
    l->args = align_up(sizeof(plan_header), 8);
    l->arg_tensor = l->args + (size_t)n_args * sizeof(sim_arg);
    l->tensors = align_up(l->arg_tensor + (size_t)n_args * sizeof(uint32_t), 8);
    l->steps = l->tensors + (size_t)n_tensors * sizeof(sim_tensor);
    l->step_inputs = l->steps + (size_t)n_steps * sizeof(sim_step);
    l->layers = align_up(l->step_inputs + (size_t)n_inputs * sizeof(uint32_t), 8);
    l->total = align_up(l->layers + (size_t)n_layers * sizeof(sim_prof_layer), 8);
    return 1;
}

int sim_plan_build_native(sim_plan *p, const float *pool)
{
    plan_layout l;
    if (!layout_of(p->n_args, p->n_tensors, p->n_steps, p->n_step_inputs, p->n_layers, &l) ||
        p->const_floats > (UINT64_C(1) << 40))
        return SIM_ERR_NOMEM;
    size_t plan_off = sizeof(Elf64_Ehdr);
    size_t weights_off = align_up(plan_off + l.total, WEIGHTS_ALIGN);
    size_t weights_size = (size_t)p->const_floats * sizeof(float);
    size_t str_off = weights_off + weights_size;
    size_t sh_off = align_up(str_off + sizeof shstrtab, 8);
    size_t total = sh_off + 4 * sizeof(Elf64_Shdr);
    uint8_t *b = calloc(1, total);
    if (!b)
        return SIM_ERR_NOMEM;

    uint8_t *sec = b + plan_off;
    memcpy(sec + l.args, p->args, p->n_args * sizeof(sim_arg));
    memcpy(sec + l.arg_tensor, p->arg_tensor, p->n_args * sizeof(uint32_t));
    memcpy(sec + l.tensors, p->tensors, p->n_tensors * sizeof(sim_tensor));
    memcpy(sec + l.steps, p->steps, p->n_steps * sizeof(sim_step));
    memcpy(sec + l.step_inputs, p->step_inputs, p->n_step_inputs * sizeof(uint32_t));
    if (p->n_layers)
        memcpy(sec + l.layers, p->layers, p->n_layers * sizeof(sim_prof_layer));
    if (weights_size)
        memcpy(b + weights_off, pool, weights_size);
    memcpy(b + str_off, shstrtab, sizeof shstrtab);

    plan_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, SIM_PLAN_MAGIC, sizeof SIM_PLAN_MAGIC);
    h.format_version = SIM_PLAN_FORMAT_VERSION;
    h.header_size = sizeof h;
    h.arg_size = sizeof(sim_arg);
    h.tensor_size = sizeof(sim_tensor);
    h.step_size = sizeof(sim_step);
    h.n_args = p->n_args;
    h.n_tensors = p->n_tensors;
    h.n_steps = p->n_steps;
    h.n_step_inputs = p->n_step_inputs;
    h.n_layers = p->n_layers;
    h.profiling = p->profiling;
    h.arena_floats = p->arena_floats;
    h.const_floats = p->const_floats;
    h.checksum = fnv1a(fnv1a(FNV_BASIS, sec + l.args, l.total - l.args), b + weights_off,
                       weights_size);
    memcpy(sec, &h, sizeof h);

    Elf64_Ehdr eh;
    memset(&eh, 0, sizeof eh);
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
    eh.e_type = ET_REL;
    eh.e_machine = EM_NONE;
    eh.e_version = EV_CURRENT;
    eh.e_shoff = sh_off;
    eh.e_ehsize = sizeof(Elf64_Ehdr);
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shnum = 4;
    eh.e_shstrndx = 3;
    memcpy(b, &eh, sizeof eh);

    Elf64_Shdr sh[4];
    memset(sh, 0, sizeof sh);
    sh[1].sh_name = NAME_PLAN;
    sh[1].sh_type = SHT_PROGBITS;
    sh[1].sh_offset = plan_off;
    sh[1].sh_size = l.total;
    sh[1].sh_addralign = 8;
    sh[2].sh_name = NAME_WEIGHTS;
    sh[2].sh_type = SHT_PROGBITS;
    sh[2].sh_offset = weights_off;
    sh[2].sh_size = weights_size;
    sh[2].sh_addralign = WEIGHTS_ALIGN;
    sh[3].sh_name = NAME_SHSTRTAB;
    sh[3].sh_type = SHT_STRTAB;
    sh[3].sh_offset = str_off;
    sh[3].sh_size = sizeof shstrtab;
    sh[3].sh_addralign = 1;
    memcpy(b + sh_off, sh, sizeof sh);

    free(p->native);
    p->native = b;
    p->native_size = total;
    p->consts = (const float *)(const void *)(b + weights_off);
    return SIM_OK;
}

/* ---- import ------------------------------------------------------------------ */

static int bad(sim_log *log, const char *what)
{
    sim_log_add(log, "native blob rejected: %s", what);
    return SIM_ERR_BAD_BLOB;
}

static int in_bounds(uint64_t off, uint64_t size, uint64_t total)
{
    return off <= total && size <= total - off;
}

static void *dup_array(const uint8_t *src, size_t n)
{
    void *d = malloc(n ? n : 1);
    if (d && n)
        memcpy(d, src, n);
    return d;
}

static int plan_import(const void *blob, size_t size, int in_place, sim_plan **out, char *log_buf,
                       size_t log_cap)
{
    sim_log log;
    sim_log_init(&log, log_buf, log_cap);
    if (out)
        *out = NULL;
    if (!out)
        return SIM_ERR_BAD_BLOB;
    if (!blob || size < SELFMAG || memcmp(blob, ELFMAG, SELFMAG) != 0) {
        sim_log_add(&log, "native blob rejected: not an ELF file (no \\177ELF magic)");
        return SIM_ERR_NOT_ELF;
    }
    if (size < sizeof(Elf64_Ehdr))
        return bad(&log, "truncated ELF header");
    Elf64_Ehdr eh;
    memcpy(&eh, blob, sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
        eh.e_ident[EI_VERSION] != EV_CURRENT)
        return bad(&log, "not a 64-bit little-endian ELF (version 1)");
    if (eh.e_ehsize != sizeof(Elf64_Ehdr) || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shnum == 0 || eh.e_shnum > 64 || eh.e_shstrndx >= eh.e_shnum)
        return bad(&log, "bad ELF header fields (ehsize, shentsize, shnum or shstrndx)");
    if (!in_bounds(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), size))
        return bad(&log, "section header table out of bounds");

    const uint8_t *base = blob;
    Elf64_Shdr sh[64];
    memcpy(sh, base + eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr));
    for (unsigned i = 0; i < eh.e_shnum; i++)
        if (sh[i].sh_type != SHT_NOBITS && sh[i].sh_type != SHT_NULL &&
            !in_bounds(sh[i].sh_offset, sh[i].sh_size, size))
            return bad(&log, "section out of bounds");
    const Elf64_Shdr *strs = &sh[eh.e_shstrndx];
    if (strs->sh_type != SHT_STRTAB || strs->sh_size == 0 ||
        base[strs->sh_offset + strs->sh_size - 1] != '\0')
        return bad(&log, "bad .shstrtab");
    int plan_i = -1, weights_i = -1;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        if (sh[i].sh_name >= strs->sh_size)
            return bad(&log, "section name out of bounds");
        const char *name = (const char *)base + strs->sh_offset + sh[i].sh_name;
        int *slot = strcmp(name, SEC_PLAN) == 0 ? &plan_i
                    : strcmp(name, SEC_WEIGHTS) == 0 ? &weights_i : NULL;
        if (!slot)
            continue;
        if (*slot >= 0 || sh[i].sh_type != SHT_PROGBITS)
            return bad(&log, "duplicate or mistyped plan/weights section");
        *slot = (int)i;
    }
    if (plan_i < 0 || weights_i < 0)
        return bad(&log, "no " SEC_PLAN " or " SEC_WEIGHTS " section (not a sim blob)");
    const Elf64_Shdr *ps = &sh[plan_i], *ws = &sh[weights_i];
    if (ps->sh_size < sizeof(plan_header))
        return bad(&log, "plan section too small");
    plan_header h;
    memcpy(&h, base + ps->sh_offset, sizeof h);
    if (memcmp(h.magic, SIM_PLAN_MAGIC, sizeof SIM_PLAN_MAGIC) != 0)
        return bad(&log, "plan section magic mismatch");
    if (h.format_version != SIM_PLAN_FORMAT_VERSION) {
        sim_log_add(&log, "native blob rejected: plan format version %u, this sim reads %u",
                    h.format_version, SIM_PLAN_FORMAT_VERSION);
        return SIM_ERR_BAD_BLOB;
    }
    plan_layout l;
    if (h.header_size != sizeof h || h.arg_size != sizeof(sim_arg) ||
        h.tensor_size != sizeof(sim_tensor) || h.step_size != sizeof(sim_step) ||
        h.profiling > 1 || (!h.profiling && h.n_layers) ||
        !layout_of(h.n_args, h.n_tensors, h.n_steps, h.n_step_inputs, h.n_layers, &l) ||
        l.total != ps->sh_size)
        return bad(&log, "plan section sizes inconsistent");
    if (h.const_floats > (UINT64_C(1) << 40) || ws->sh_size != h.const_floats * sizeof(float) ||
        ws->sh_offset % sizeof(float) != 0)
        return bad(&log, "weights section size or alignment inconsistent");
    if (h.arena_floats > (UINT64_C(1) << 40))
        return bad(&log, "arena size implausible");
    const uint8_t *sec = base + ps->sh_offset;
    uint64_t sum = fnv1a(fnv1a(FNV_BASIS, sec + l.args, l.total - l.args), base + ws->sh_offset,
                         ws->sh_size);
    if (sum != h.checksum)
        return bad(&log, "checksum mismatch (corrupted blob)");

    sim_plan *p = calloc(1, sizeof *p);
    if (!p)
        return SIM_ERR_NOMEM;
    p->n_args = h.n_args;
    p->n_tensors = h.n_tensors;
    p->n_steps = h.n_steps;
    p->n_step_inputs = h.n_step_inputs;
    p->n_layers = h.n_layers;
    p->profiling = h.profiling;
    p->arena_floats = h.arena_floats;
    p->const_floats = h.const_floats;
    p->args = dup_array(sec + l.args, h.n_args * sizeof(sim_arg));
    p->arg_tensor = dup_array(sec + l.arg_tensor, h.n_args * sizeof(uint32_t));
    p->tensors = dup_array(sec + l.tensors, h.n_tensors * sizeof(sim_tensor));
    p->steps = dup_array(sec + l.steps, h.n_steps * sizeof(sim_step));
    p->step_inputs = dup_array(sec + l.step_inputs, h.n_step_inputs * sizeof(uint32_t));
    p->layers = dup_array(sec + l.layers, h.n_layers * sizeof(sim_prof_layer));
    /* In place: the plan reads the caller's blob (weights included), which the
     * caller keeps until the graph is destroyed. */
    p->native = in_place ? (uint8_t *)(uintptr_t)base : dup_array(base, size);
    p->native_borrowed = in_place;
    p->native_size = size;
    if (!p->args || !p->arg_tensor || !p->tensors || !p->steps || !p->step_inputs || !p->layers ||
        !p->native) {
        sim_plan_free(p);
        return SIM_ERR_NOMEM;
    }
    p->consts = (const float *)(const void *)(p->native + ws->sh_offset);
    if (sim_plan_validate(p, &log) != 0) {
        sim_plan_free(p);
        return bad(&log, "plan records inconsistent");
    }
    *out = p;
    return SIM_OK;
}

int sim_plan_import(const void *blob, size_t size, sim_plan **out, char *log_buf, size_t log_cap)
{
    return plan_import(blob, size, 0, out, log_buf, log_cap);
}

int sim_plan_import_in_place(const void *blob, size_t size, sim_plan **out, char *log_buf, size_t log_cap)
{
    return plan_import(blob, size, 1, out, log_buf, log_cap);
}
