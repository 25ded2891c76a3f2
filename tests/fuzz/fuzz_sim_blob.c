/* libFuzzer target for the software NPU's native blob import (sim/elf.c, the
 * plan validation in sim/exec.c): sim_plan_import, then one run of what imports.
 *
 *   make fuzz FUZZ_SECONDS=60            (all targets, seeds in tests/fuzz/corpus/)
 *   build/fuzz/fuzz_sim_blob -max_total_time=300 dir/ tests/fuzz/corpus/fuzz_sim_blob
 *
 * Input: a native blob. A blob carries an FNV-1a checksum over its records, so
 * almost every mutation would stop at the checksum; for inputs of even size the
 * target recomputes it first (when the sections can be found), so mutations reach
 * the record validation that stands between a blob and the executor. Odd sizes
 * keep the checksum as it is. Seeds: NPU_FUZZ_WRITE_SEEDS=<dir> <binary> -runs=0.
 */
#include "tests/fuzz/sim_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char fz_log[4096];

/* Rewrites the plan header's checksum the way sim_plan_build_native computes it,
 * when the ELF section table, .sim.plan and .sim.weights are found in bounds. */
static void fz_fix_checksum(uint8_t *b, size_t n)
{
    Elf64_Ehdr eh;
    if (n < sizeof eh || memcmp(b, ELFMAG, SELFMAG) != 0)
        return;
    memcpy(&eh, b, sizeof eh);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shnum > 64 ||
        eh.e_shstrndx >= eh.e_shnum ||
        !in_bounds(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), n))
        return;
    Elf64_Shdr sh[64];
    memcpy(sh, b + eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr));
    const Elf64_Shdr *strs = &sh[eh.e_shstrndx];
    if (!in_bounds(strs->sh_offset, strs->sh_size, n) || strs->sh_size == 0 ||
        b[strs->sh_offset + strs->sh_size - 1] != '\0')
        return;
    const Elf64_Shdr *ps = NULL, *ws = NULL;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        if (sh[i].sh_name >= strs->sh_size || !in_bounds(sh[i].sh_offset, sh[i].sh_size, n))
            continue;
        const char *name = (const char *)b + strs->sh_offset + sh[i].sh_name;
        if (!ps && strcmp(name, SEC_PLAN) == 0)
            ps = &sh[i];
        else if (!ws && strcmp(name, SEC_WEIGHTS) == 0)
            ws = &sh[i];
    }
    plan_header h;
    plan_layout l;
    if (!ps || !ws || ps->sh_size < sizeof h)
        return;
    memcpy(&h, b + ps->sh_offset, sizeof h);
    if (!layout_of(h.n_args, h.n_tensors, h.n_steps, h.n_step_inputs, h.n_layers, &l) || l.total != ps->sh_size)
        return;
    const uint8_t *sec = b + ps->sh_offset;
    h.checksum = fnv1a(fnv1a(FNV_BASIS, sec + l.args, l.total - l.args), b + ws->sh_offset,
                       ws->sh_size);
    memcpy(b + ps->sh_offset, &h, sizeof h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *blob = malloc(size ? size : 1); /* exact size: ASan sees any read past it */
    if (!blob)
        abort();
    if (size)
        memcpy(blob, data, size);
    if (size % 2 == 0)
        fz_fix_checksum(blob, size);
    sim_plan *plan = NULL;
    int rc = sim_plan_import(blob, size, &plan, fz_log, sizeof fz_log);
    if (memchr(fz_log, '\0', sizeof fz_log) == NULL)
        abort();
    if (rc == SIM_OK) {
        size_t n;
        if (!plan || sim_plan_native(plan, &n) == NULL || n != size)
            abort();
        for (uint32_t i = 0; i < sim_plan_arg_count(plan); i++)
            if (!sim_plan_arg(plan, i))
                abort();
        free(blob); /* the plan must not reference the caller's blob */
        blob = NULL;
        fz_run_once(plan);
        sim_plan_destroy(plan);
    } else if (plan || (rc != SIM_ERR_NOT_ELF && rc != SIM_ERR_BAD_BLOB && rc != SIM_ERR_NOMEM)) {
        abort();
    }
    free(blob);
    return 0;
}

/* Seeds: the native blobs of the seed models (the blob does not depend on the
 * payload layout, so layout A only), with build flags on models 0 and 4. */
static void fz_write_seeds(const char *dir)
{
    for (int k = 0; k < FZ_N_MODELS; k++) {
        {
            for (int fl = 0; fl < 4; fl++) {
                if (fl && ((k == 0) != (fl < 3) || (k != 0 && k != 4)))
                    continue;
                fz_model m;
                fz_buf payload = {0};
                memset(&m, 0, sizeof m);
                fz_build_model(k, &m);
                char *xml = fz_xml(&m, "seed");
                fz_payload_a(&payload, xml, &m.w, SIM_COMPILER_VERSION_DEFAULT);
                sim_plan *p = NULL;
                if (sim_plan_compile(payload.s, payload.len, SIM_COMPILER_VERSION_DEFAULT,
                                     fz_flags[fl], &p, fz_log, sizeof fz_log) != SIM_OK) {
                    fprintf(stderr, "seed model %d does not compile:\n%s", k, fz_log);
                    abort();
                }
                size_t n;
                const uint8_t *blob = sim_plan_native(p, &n);
                char name[64];
                snprintf(name, sizeof name, "blob_%d%s%.0d", k, fl ? "_flags" : "", fl);
                fz_write_file(dir, name, blob, n);
                sim_plan_destroy(p);
                free(payload.s);
                free(xml);
                fz_free_model(&m);
            }
        }
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = getenv("NPU_FUZZ_WRITE_SEEDS");
    if (dir && *dir) {
        fz_write_seeds(dir);
        fprintf(stderr, "seeds written to %s\n", dir);
        exit(0);
    }
    return 0;
}
