/* libFuzzer target for the software NPU's compiler (sim/payload.c, ops.c,
 * planner.c): NGRAPH_LITE payload parsing, IR XML parsing, compilation, then one
 * run of what compiled.
 *
 *   make fuzz FUZZ_SECONDS=60            (all targets, seeds in tests/fuzz/corpus/)
 *   build/fuzz/fuzz_sim_payload -max_total_time=300 dir/ tests/fuzz/corpus/fuzz_sim_payload
 *
 * Input: one mode byte, then the bytes it describes.
 *   mode bit 0 = 0  the rest is a whole payload (layout A or B) as a driver receives
 *                   it; WeightsPointerAttribute mp="0x10000 + k" points at byte k of it
 *   mode bit 0 = 1  the rest is IR XML, up to the first NUL; the bytes after the NUL
 *                   are the weights. Both are wrapped in a valid container: layout A,
 *                   or layout B when bit 1 is set (mp="0x10000 + k" = weights byte k)
 *   bits 2-3        pick the build flags (fz_flags in sim_fuzz.h)
 * The payload's stamped version is the sim's default compiler version.
 *
 * On every input: sim_plan_query_layers. When a plan compiles: its native blob must
 * import again, query must succeed too, and the plan runs once on zeroed inputs if
 * it is small (fz_run_once). Seeds: NPU_FUZZ_WRITE_SEEDS=<dir> <binary> -runs=0.
 */
#include "tests/fuzz/sim_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char fz_log[4096];

/* Copies the input into an exactly sized buffer so ASan sees any read past it. */
static uint8_t *fz_dup(const uint8_t *p, size_t n)
{
    uint8_t *d = malloc(n ? n : 1);
    if (!d)
        abort();
    if (n)
        memcpy(d, p, n);
    return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    const uint8_t *rest = data + 1;
    size_t n = size - 1;
    const char *flags = fz_flags[(mode >> 2) & 3];
    uint8_t *payload, *weights = NULL;
    size_t payload_size;
    if (!(mode & 1)) {
        payload = fz_dup(rest, n);
        payload_size = n;
        fz_cur_weights = payload;
        fz_cur_weights_size = n;
    } else {
        const uint8_t *nul = memchr(rest, 0, n);
        size_t xml_size = nul ? (size_t)(nul - rest) : n;
        fz_buf w = {0}, out = {0};
        fz_put(&w, nul ? nul + 1 : rest, nul ? n - xml_size - 1 : 0);
        char *xml = malloc(xml_size + 1);
        if (!xml)
            abort();
        memcpy(xml, rest, xml_size);
        xml[xml_size] = '\0';
        if (mode & 2)
            fz_payload_b(&out, xml, &w, SIM_COMPILER_VERSION_DEFAULT);
        else
            fz_payload_a(&out, xml, &w, SIM_COMPILER_VERSION_DEFAULT);
        free(xml);
        payload = fz_dup((const uint8_t *)out.s, out.len);
        payload_size = out.len;
        free(out.s);
        weights = fz_dup((const uint8_t *)w.s, w.len);
        fz_cur_weights = weights;
        fz_cur_weights_size = w.len;
        free(w.s);
    }

    char names[256];
    size_t needed = 0;
    int qrc = sim_plan_query_layers(payload, payload_size, SIM_COMPILER_VERSION_DEFAULT, names,
                                    sizeof names, &needed, fz_log, sizeof fz_log);
    if (memchr(fz_log, '\0', sizeof fz_log) == NULL)
        abort();

    sim_plan *plan = NULL;
    int rc = sim_plan_compile(payload, payload_size, SIM_COMPILER_VERSION_DEFAULT, flags, &plan,
                              fz_log, sizeof fz_log);
    if (memchr(fz_log, '\0', sizeof fz_log) == NULL)
        abort();
    /* the compiler's self-checks failed (not libxml2's "internal error" about the
     * XML, nor a layer name the fuzzer made up) */
    if ((strstr(fz_log, "internal error: inconsistent step") ||
         strstr(fz_log, "internal error: the compiled plan")) &&
        !memmem(payload, payload_size, "internal", 8)) {
        fprintf(stderr, "build log:\n%s", fz_log);
        abort();
    }
    if (rc == SIM_OK) {
        if (!plan || qrc != SIM_OK || needed < 1)
            abort();
        /* what the compiler produced, import must accept */
        size_t blob_size;
        const uint8_t *blob = sim_plan_native(plan, &blob_size);
        sim_plan *again = NULL;
        if (sim_plan_import(blob, blob_size, &again, fz_log, sizeof fz_log) != SIM_OK ||
            sim_plan_arg_count(again) != sim_plan_arg_count(plan))
            abort();
        sim_plan_destroy(again);
        fz_run_once(plan);
        sim_plan_destroy(plan);
    } else if (plan) {
        abort();
    }
    fz_cur_weights = NULL;
    free(payload);
    free(weights);
    return 0;
}

/* ---- seeds -------------------------------------------------------------------- */

static void fz_seed(const char *dir, const char *name, uint8_t mode, const fz_buf *body,
                    const char *flags)
{
    fz_buf f = {0};
    fz_put(&f, &mode, 1);
    fz_put(&f, body->s, body->len);
    /* every seed must compile (else it seeds only the error paths) */
    sim_plan *p = NULL;
    if (mode & 1) {
        const char *xml = body->s;
        fz_buf w = {0}, out = {0};
        size_t xs = strlen(xml);
        fz_put(&w, body->s + xs + 1, body->len - xs - 1);
        if (mode & 2)
            fz_payload_b(&out, xml, &w, SIM_COMPILER_VERSION_DEFAULT);
        else
            fz_payload_a(&out, xml, &w, SIM_COMPILER_VERSION_DEFAULT);
        fz_cur_weights = (const uint8_t *)w.s;
        fz_cur_weights_size = w.len;
        int rc = sim_plan_compile(out.s, out.len, SIM_COMPILER_VERSION_DEFAULT, flags, &p, fz_log,
                                  sizeof fz_log);
        if (rc) {
            fprintf(stderr, "seed %s does not compile:\n%s", name, fz_log);
            abort();
        }
        free(w.s);
        free(out.s);
    } else {
        fz_cur_weights = (const uint8_t *)body->s;
        fz_cur_weights_size = body->len;
        if (sim_plan_compile(body->s, body->len, SIM_COMPILER_VERSION_DEFAULT, flags, &p, fz_log,
                             sizeof fz_log)) {
            fprintf(stderr, "seed %s does not compile:\n%s", name, fz_log);
            abort();
        }
    }
    fz_run_once(p);
    sim_plan_destroy(p);
    fz_cur_weights = NULL;
    fz_write_file(dir, name, f.s, f.len);
    free(f.s);
}

static void fz_write_seeds(const char *dir)
{
    for (int k = 0; k < FZ_N_MODELS; k++) {
        char name[64];
        fz_model m;
        fz_buf body = {0};
        char *xml;

        /* raw layout A */
        memset(&m, 0, sizeof m);
        fz_build_model(k, &m);
        xml = fz_xml(&m, "seed");
        fz_payload_a(&body, xml, &m.w, SIM_COMPILER_VERSION_DEFAULT);
        snprintf(name, sizeof name, "raw_a_%d", k);
        fz_seed(dir, name, 0, &body, NULL);
        body.len = 0;
        /* XML wrapped in layout A, with build flags on models 0 and 4 */
        fz_put(&body, xml, strlen(xml) + 1);
        fz_put(&body, m.w.s, m.w.len);
        snprintf(name, sizeof name, "xml_a_%d", k);
        fz_seed(dir, name, 1, &body, NULL);
        if (k == 0 || k == 4) {
            for (int fl = 1; fl < 4; fl++) {
                if ((k == 0) != (fl < 3))
                    continue;
                snprintf(name, sizeof name, "xml_a_%d_flags%d", k, fl);
                fz_seed(dir, name, (uint8_t)(1 | fl << 2), &body, fz_flags[fl]);
            }
        }
        free(body.s);
        memset(&body, 0, sizeof body);
        /* raw layout B: Consts by offset/size into the constants blob */
        fz_payload_b(&body, xml, &m.w, SIM_COMPILER_VERSION_DEFAULT);
        snprintf(name, sizeof name, "raw_b_off_%d", k);
        fz_seed(dir, name, 0, &body, NULL);
        free(body.s);
        memset(&body, 0, sizeof body);
        free(xml);
        fz_free_model(&m);

        /* raw layout B with WeightsPointerAttribute (mp relative to the payload) */
        memset(&m, 0, sizeof m);
        m.use_mp = 1;
        m.mp_bias = 52;
        fz_build_model(k, &m);
        xml = fz_xml(&m, "seed");
        fz_payload_b(&body, xml, &m.w, SIM_COMPILER_VERSION_DEFAULT);
        snprintf(name, sizeof name, "raw_b_mp_%d", k);
        fz_seed(dir, name, 0, &body, NULL);
        free(body.s);
        memset(&body, 0, sizeof body);
        free(xml);
        fz_free_model(&m);

        /* XML wrapped in layout B with WeightsPointerAttribute (mp relative to the weights) */
        memset(&m, 0, sizeof m);
        m.use_mp = 1;
        fz_build_model(k, &m);
        xml = fz_xml(&m, "seed");
        fz_put(&body, xml, strlen(xml) + 1);
        fz_put(&body, m.w.s, m.w.len);
        snprintf(name, sizeof name, "xml_b_mp_%d", k);
        fz_seed(dir, name, 3, &body, NULL);
        free(body.s);
        memset(&body, 0, sizeof body);
        free(xml);
        fz_free_model(&m);
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
