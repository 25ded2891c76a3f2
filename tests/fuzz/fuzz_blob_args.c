/* Structure-aware libFuzzer target: hostile argument tables in native blobs,
 * through npu's whole model life cycle (section 11/12 of npu.c).
 *
 *   make fuzz FUZZ_SECONDS=60            (all targets, seeds in tests/fuzz/corpus/)
 *   build/fuzz/fuzz_blob_args -max_total_time=300 dir/ tests/fuzz/corpus/fuzz_blob_args
 *
 * The software NPU is loaded through the Level Zero loader, as in the test
 * suites (ZE_ENABLE_ALT_DRIVERS=<build>/libze_npu_sim.so, set here when the
 * environment does not; the sim is built by `make fuzz`). At start-up a few
 * models are compiled and exported: a stateful accumulator, an affine model,
 * a two-state model. An input picks one (byte 0) and is then a list of 4-byte
 * edits of the blob's argument table (sim/elf.c records, tests/blob_util.h):
 *   {op, argument, a, b}: rename (state prefixes, repeated and missing names,
 *   driver-internal names, 255 bytes), flip input/output, change precision,
 *   rank, dims, layout, tensor names, byte size, or swap two records.
 * The checksum is re-sealed, so the blob reaches npu's checks (the sim checks
 * the plan, not the names). What imports is used: requests, inference, state
 * get/set/reset, export and re-import of the export. After each input the
 * sim's live handle counts must be back at their baseline, and every failed
 * call must have left a message naming something. */
#include "../../npu.c"

#include <stdlib.h>
#include "sim/npu_sim_ext.h"
#include "tests/blob_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FZ_MODELS 3
static _Alignas(4096) unsigned char fz_mem[8u << 20];
static _Alignas(16) unsigned char fz_ctx_mem[8192];
static npu_arena fz_arena;
static npu_context *fz_ctx;
static npu_device *fz_dev;
static unsigned char *fz_blob[FZ_MODELS];
static size_t fz_blob_size[FZ_MODELS];
static size_t fz_base_mark;
static npu_sim_test_ext_t *fz_sim;
static uint64_t fz_live[NPU_SIM_HANDLE_KIND_COUNT];
static unsigned char fz_work[1u << 20];
static unsigned char fz_out[1u << 20];

static void fz_die(const char *what)
{
    fprintf(stderr, "fuzz_blob_args: %s: %s\n", what, fz_ctx ? npu_context_last_error(fz_ctx) : "");
    abort();
}

static npu_graph *fz_graph(int which)
{
    npu_graph *g = NULL;
    npu_shape s = {2, {1, 4}}, s2 = {2, {1, 2}};
    npu_node *x, *rv, *sum, *rv2;
    if (npu_graph_create(&fz_arena, fz_ctx, NULL, &g) != NPU_OK) fz_die("graph");
    x = npu_graph_parameter(g, "x", NPU_F32, &s, which == 1 ? "NC" : NULL);
    if (which == 1) {
        static const float w[4] = {1, 2, 3, 4};
        npu_shape ws = {1, {4}};
        npu_node *c = npu_graph_constant(g, "w", NPU_F32, &ws, w, sizeof w);
        npu_graph_result(g, npu_graph_relu(g, npu_graph_multiply(g, x, c, NULL), NULL), "y");
        npu_graph_result(g, npu_graph_add(g, x, c, NULL), "z");
    } else {
        rv = npu_graph_read_value(g, NULL, "acc_var", NPU_F32, &s, "rv");
        sum = npu_graph_add(g, rv, x, "sum");
        npu_graph_assign(g, sum, "acc_var", "assign");
        npu_graph_result(g, sum, "acc");
        if (which == 2) {
            npu_node *y = npu_graph_parameter(g, "y", NPU_F32, &s2, NULL);
            rv2 = npu_graph_read_value(g, NULL, "v2", NPU_F32, &s2, "rv2");
            npu_graph_assign(g, npu_graph_multiply(g, rv2, y, NULL), "v2", "assign2");
            npu_graph_result(g, npu_graph_sigmoid(g, rv2, NULL), "s");
        }
    }
    if (npu_graph_status(g) != NPU_OK) fz_die(npu_graph_first_error(g));
    return g;
}

static void fz_snapshot(uint64_t *live)
{
    int k;
    for (k = 0; k < NPU_SIM_HANDLE_KIND_COUNT; k++) live[k] = fz_sim->pfnGetLiveHandles((npu_sim_handle_kind)k);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    npu_arena ca;
    ze_driver_handle_t drv[8];
    uint32_t n = 8, i;
    int k;
    (void)argc;
    (void)argv;
    if (getenv("ZE_ENABLE_ALT_DRIVERS") == NULL) {
        /* <dir of this binary>/../libze_npu_sim.so (build/fuzz/x -> build/) */
        char self[4096], so[4200];
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        char *slash;
        if (len <= 0) fz_die("readlink /proc/self/exe");
        self[len] = '\0';
        slash = strrchr(self, '/');
        if (slash != NULL) *slash = '\0';
        snprintf(so, sizeof so, "%s/../libze_npu_sim.so", self);
        setenv("ZE_ENABLE_ALT_DRIVERS", so, 1);
    }
    npu_arena_init(&ca, fz_ctx_mem, sizeof fz_ctx_mem);
    if (npu_context_create(&ca, NULL, &fz_ctx) != NPU_OK) fz_die("context");
    npu_arena_init(&fz_arena, fz_mem, sizeof fz_mem);
    if (npu_device_open(&fz_arena, fz_ctx, NULL, &fz_dev) != NPU_OK) fz_die("device (is the sim built?)");
    if (zeDriverGet(&n, drv) != ZE_RESULT_SUCCESS) fz_die("zeDriverGet");
    for (i = 0; i < n && i < 8 && fz_sim == NULL; i++) {
        void *p = NULL;
        if (zeDriverGetExtensionFunctionAddress(drv[i], NPU_SIM_TEST_EXT_NAME, &p) == ZE_RESULT_SUCCESS) fz_sim = p;
    }
    if (fz_sim == NULL) fz_die("the sim's test extension");
    for (k = 0; k < FZ_MODELS; k++) {
        npu_model *m = NULL;
        size_t mark = npu_arena_used(&fz_arena), sz = 0;
        if (npu_model_compile_graph(fz_dev, &fz_arena, fz_graph(k), NULL, &m) != NPU_OK) fz_die("compile");
        if (npu_model_export(m, NULL, 0, &sz) != NPU_OK) fz_die("export size");
        fz_blob[k] = (unsigned char *)malloc(sz);
        if (fz_blob[k] == NULL || npu_model_export(m, fz_blob[k], sz, &fz_blob_size[k]) != NPU_OK) fz_die("export");
        npu_model_destroy(m);
        npu_arena_rewind(&fz_arena, mark);
    }
    fz_base_mark = npu_arena_used(&fz_arena);
    fz_snapshot(fz_live);
    return 0;
}

static const char *const fz_prefixes[] = {"vpux_ie_read_value_", "vpux_ie_assign_", "", "vpux_", "vpux_ie_shape_"};
static const char *const fz_ids[] = {"acc_var", "v2", "x", "", "acc", "other"};

static void fz_edit(const bu_blob *bb, const uint8_t *e)
{
    uint32_t i = e[1] % bb->n_args, j;
    sim_arg a, b;
    bu_get_arg(bb, i, &a);
    switch (e[0] % 12) {
    case 0: /* rename from the tables */
    case 1: {
        char name[256];
        snprintf(name, sizeof name, "%s%s", fz_prefixes[e[2] % 5], fz_ids[e[3] % 6]);
        memset(a.name, 0, sizeof a.name);
        memcpy(a.name, name, strlen(name));
        break;
    }
    case 2: /* a name of 255 bytes without terminator in the record */
        memset(a.name, 'a' + e[2] % 26, sizeof a.name);
        if (e[3] & 1) memcpy(a.name, "vpux_ie_read_value_", 19);
        break;
    case 3: a.is_output = e[2] & 1 ? !a.is_output : (int)e[3]; break;
    case 4: a.precision = e[2]; break;
    case 5: a.rank = e[2] % 10; break;
    case 6: a.dims[e[2] % SIM_MAX_RANK] = e[3] % 8 == 7 ? UINT64_MAX >> (e[3] % 64) : e[3]; break;
    case 7: a.layout = e[2] | (uint32_t)e[3] << 8; break;
    case 8: /* tensor names */
        a.tensor_name_count = e[2] % 6;
        memset(a.tensor_names[e[3] % SIM_MAX_TENSOR_NAMES], e[3] & 1 ? 'n' : 0, SIM_NAME_MAX);
        break;
    case 9: a.bytes = (size_t)e[2] << (e[3] % 48); break;
    case 10: /* swap with another record */
        j = e[2] % bb->n_args;
        bu_get_arg(bb, j, &b);
        bu_put_arg(bb, j, &a);
        a = b;
        break;
    default: /* copy another record's name */
        j = e[2] % bb->n_args;
        bu_get_arg(bb, j, &b);
        memcpy(a.name, b.name, sizeof a.name);
        break;
    }
    bu_put_arg(bb, i, &a);
}

/* White-box: order is a permutation of the arguments (inputs, outputs, then
 * one read/assign pair per state), pairs point at each other, names differ. */
static void fz_check_tables(const npu_model *m)
{
    static unsigned char seen[NPU_MAX_ARGS];
    uint32_t i, k, n = m->n_args;
    if (m->n_inputs + m->n_outputs + 2 * m->n_states != n) abort();
    memset(seen, 0, n);
    for (i = 0; i < n; i++) {
        if (m->order[i] >= n || seen[m->order[i]]) abort();
        seen[m->order[i]] = 1;
    }
    for (i = 0; i < m->n_inputs; i++)
        if (m->args[m->order[i]].kind != NPU__ARG_INPUT) abort();
    for (; i < m->n_inputs + m->n_outputs; i++)
        if (m->args[m->order[i]].kind != NPU__ARG_OUTPUT) abort();
    for (k = 0; k < m->n_states; k++, i += 2) {
        const npu__arg *a = &m->args[m->order[i]], *b = &m->args[m->order[i + 1]];
        if (a->kind != NPU__ARG_STATE_IN || b->kind != NPU__ARG_STATE_OUT) abort();
        if (a->pair != m->order[i + 1] || b->pair != m->order[i]) abort();
        if (strcmp(a->name, b->name) != 0 || a->desc.bytes != b->desc.bytes) abort();
    }
}

static void fz_use(npu_model *m)
{
    npu_request *r = NULL;
    uint32_t k, n;
    size_t mark = npu_arena_used(&fz_arena), sz = 0;
    npu_model *again = NULL;
    n = npu_model_input_count(m);
    for (k = 0; k < n; k++)
        if (npu_model_input(m, k) == NULL) abort();
    if (npu_model_input(m, n) != NULL || npu_model_output(m, npu_model_output_count(m)) != NULL ||
        npu_model_state(m, npu_model_state_count(m)) != NULL)
        abort();
    if (npu_request_create(m, &fz_arena, NULL, &r) == NPU_OK) {
        for (k = 0; k < n; k++) {
            const npu_tensor_desc *d = npu_model_input(m, k);
            void *p = npu_request_input(r, k);
            if (p != NULL && d->bytes <= (1u << 20)) memset(p, 0x3f, (size_t)d->bytes);
        }
        (void)npu_request_infer(r);
        for (k = 0; k < npu_request_state_count(r); k++) {
            npu_tensor_desc d;
            if (npu_request_state(r, k, &d) != NPU_OK) abort();
            if (d.bytes <= sizeof fz_work) {
                memset(fz_work, 0x11, (size_t)d.bytes);
                (void)npu_request_state_set(r, k, fz_work, (size_t)d.bytes);
            }
            (void)npu_request_state_reset(r, k);
            (void)npu_request_state_data(r, k);
        }
        (void)npu_request_infer(r);
        (void)npu_request_infer(r);
        npu_request_destroy(r);
    }
    npu_arena_rewind(&fz_arena, mark);
    if (npu_model_export(m, NULL, 0, &sz) == NPU_OK && sz <= sizeof fz_out &&
        npu_model_export(m, fz_out, sz, &sz) == NPU_OK &&
        npu_model_import(fz_dev, &fz_arena, fz_out, sz, NULL, &again) == NPU_OK) {
        fz_check_tables(again);
        if (npu_model_input_count(again) != npu_model_input_count(m) ||
            npu_model_state_count(again) != npu_model_state_count(m))
            abort();
        npu_model_destroy(again);
    }
    npu_arena_rewind(&fz_arena, mark);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int which;
    size_t i, n;
    unsigned char *blob;
    bu_blob bb;
    npu_model *m = NULL;
    npu_status st;
    uint64_t live[NPU_SIM_HANDLE_KIND_COUNT];
    if (size < 1) return 0;
    which = data[0] % FZ_MODELS;
    n = fz_blob_size[which];
    blob = (unsigned char *)malloc(n);   /* exact size: ASan sees reads past it */
    if (blob == NULL) abort();
    memcpy(blob, fz_blob[which], n);
    if (bu_open(&bb, blob, n) != 0 || bb.n_args == 0) abort();
    for (i = 1; i + 4 <= size && i < 1 + 4 * 32; i += 4) fz_edit(&bb, data + i);
    bu_seal(&bb);
    npu_context_clear_error(fz_ctx);
    {
        /* An import takes exactly npu_model_size(n_args): the model gets a
         * malloc'd arena of that size, so ASan sees any write past the
         * argument tables (the table says n_args; the driver reports it). */
        size_t msize = npu_model_size(bb.n_args);
        void *mm = malloc(msize ? msize : 16);
        npu_arena ma;
        if (mm == NULL || ((uintptr_t)mm % NPU_ARENA_ALIGN) != 0) abort();
        npu_arena_init(&ma, mm, msize);
        st = npu_model_import(fz_dev, &ma, blob, n, NULL, &m);
        if (st == NPU_OK) {
            if (m == NULL) abort();
            fz_check_tables(m);
            fz_use(m);
            npu_model_destroy(m);
        } else {
            if (m != NULL || npu_arena_used(&ma) != 0) abort();
            if (npu_context_last_error(fz_ctx)[0] == '\0') abort();   /* a failure says why */
        }
        free(mm);
    }
    npu_arena_rewind(&fz_arena, fz_base_mark);
    free(blob);
    fz_snapshot(live);
    if (memcmp(live, fz_live, sizeof live) != 0) {
        int k;
        for (k = 0; k < NPU_SIM_HANDLE_KIND_COUNT; k++)
            fprintf(stderr, "live handles kind %d: %llu (baseline %llu)\n", k, (unsigned long long)live[k],
                    (unsigned long long)fz_live[k]);
        abort();
    }
    return 0;
}
