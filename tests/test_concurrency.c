/* Many threads on one compiled model: each thread owns its requests (two in
 * flight, npu_request_start / npu_request_wait), every output is checked
 * against the reference for an input unique to (thread, iteration), so a
 * request that read another request's buffer, or an output delivered to the
 * wrong request, fails. Requests are also created and destroyed from several
 * threads at once, while other threads infer. Clean under TSan
 * (make SAN=-fsanitize=thread).
 *
 * 10,000 inferences in all; under valgrind (detected by its preload library in
 * /proc/self/maps) 1,000, to keep the run short. */
#include <pthread.h>
#include <errno.h>
#include <stdatomic.h>

#include "tests/l0_test_util.h"

#define N_THREADS 8
#define IN_FLIGHT 2

static npu_device *dev;
static npu_model *model;
static unsigned total_inferences = 10000;

static int under_valgrind(void)
{
    char line[512];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL) return 0;
    while (!found && fgets(line, sizeof line, f) != NULL) found = strstr(line, "vgpreload") != NULL;
    fclose(f);
    return found;
}

typedef struct worker {
    pthread_t thread;
    unsigned id;
    unsigned iterations;
    unsigned done;           /* inferences verified */
    unsigned bad;            /* wrong outputs */
    npu_status first_error;  /* first failing call, NPU_OK if none */
    char what[64];
    void *mem;               /* the thread's own arena memory */
} worker;

static void worker_fail(worker *w, npu_status st, const char *what)
{
    if (w->first_error == NPU_OK) {
        w->first_error = st;
        snprintf(w->what, sizeof w->what, "%s", what);
    }
}

/* The input of (thread, iteration): distinct for every pair and exact in f32. */
static void input_for(unsigned id, unsigned it, float *x)
{
    unsigned i;
    for (i = 0; i < 4; i++) x[i] = (float)((int)(id * 4096u + it) - 20000) / 8.0f + (float)i * 0.25f;
}

static int check_output(unsigned id, unsigned it, const float *y)
{
    float x[4], ref[4];
    unsigned i;
    input_for(id, it, x);
    tu_affine_ref(x, ref, 1);
    for (i = 0; i < 4; i++)
        if (y[i] != ref[i]) return 0;
    return 1;
}

static void *infer_worker(void *arg)
{
    worker *w = (worker *)arg;
    npu_arena a;
    npu_request *req[IN_FLIGHT] = {NULL};
    unsigned pending_it[IN_FLIGHT];
    int pending[IN_FLIGHT] = {0};
    size_t one = npu_request_size(model, NULL);
    unsigned it = 0, k;
    npu_status st;
    if (npu_arena_init(&a, w->mem, one * IN_FLIGHT) != NPU_OK) {
        worker_fail(w, NPU_ERR_INVALID_ARGUMENT, "arena");
        return NULL;
    }
    for (k = 0; k < IN_FLIGHT; k++) {
        st = npu_request_create(model, &a, NULL, &req[k]);
        if (st != NPU_OK) {
            worker_fail(w, st, "npu_request_create");
            goto out;
        }
    }
    /* Round robin: wait for request k's previous inference, check it, start its next. */
    for (;;) {
        int any = 0;
        for (k = 0; k < IN_FLIGHT; k++) {
            if (pending[k]) {
                st = npu_request_wait(req[k], UINT64_MAX);
                if (st != NPU_OK) {
                    worker_fail(w, st, "npu_request_wait");
                    goto out;
                }
                pending[k] = 0;
                if (check_output(w->id, pending_it[k], (const float *)npu_request_output(req[k], 0)))
                    w->done++;
                else
                    w->bad++;
            }
            if (it < w->iterations) {
                input_for(w->id, it, (float *)npu_request_input(req[k], 0));
                st = npu_request_start(req[k]);
                if (st != NPU_OK) {
                    worker_fail(w, st, "npu_request_start");
                    goto out;
                }
                pending[k] = 1;
                pending_it[k] = it++;
                any = 1;
            }
            any |= pending[k];
        }
        if (!any) break;
    }
out:
    for (k = 0; k < IN_FLIGHT; k++) npu_request_destroy(req[k]);  /* waits if running */
    return NULL;
}

static void *create_worker(void *arg)
{
    worker *w = (worker *)arg;
    unsigned i;
    size_t one = npu_request_size(model, NULL);
    for (i = 0; i < w->iterations; i++) {
        npu_arena a;
        npu_request *r = NULL;
        npu_status st;
        float x[4];
        if (npu_arena_init(&a, w->mem, one) != NPU_OK) {
            worker_fail(w, NPU_ERR_INVALID_ARGUMENT, "arena");
            return NULL;
        }
        st = npu_request_create(model, &a, NULL, &r);
        if (st != NPU_OK) {
            worker_fail(w, st, "npu_request_create");
            return NULL;
        }
        if (npu_arena_used(&a) != one) worker_fail(w, NPU_ERR_ARENA_TOO_SMALL, "request size");
        /* Every few requests also infer once, so that a request created beside
         * running ones is known to work. */
        if (i % 4 == 0) {
            input_for(w->id, i, x);
            memcpy(npu_request_input(r, 0), x, sizeof x);
            st = npu_request_infer(r);
            if (st != NPU_OK)
                worker_fail(w, st, "npu_request_infer");
            else if (check_output(w->id, i, (const float *)npu_request_output(r, 0)))
                w->done++;
            else
                w->bad++;
        }
        npu_request_destroy(r);
    }
    return NULL;
}

/* Runs the threads (mixed: even ones infer, odd ones create and destroy
 * requests; else all infer) and fails on any error or wrong output. */
static void run_workers(worker *w, unsigned n, int mixed)
{
    unsigned t;
    for (t = 0; t < n; t++)
        assert_int_equal(pthread_create(&w[t].thread, NULL, mixed && t % 2 ? create_worker : infer_worker, &w[t]), 0);
    for (t = 0; t < n; t++) assert_int_equal(pthread_join(w[t].thread, NULL), 0);
    for (t = 0; t < n; t++) {
        if (w[t].first_error != NPU_OK)
            fail_msg("thread %u: %s: %s (%s)", t, w[t].what, npu_status_string(w[t].first_error),
                     npu_context_last_error(tu_ctx));
        if (w[t].bad != 0) fail_msg("thread %u: %u wrong outputs", t, w[t].bad);
    }
}

static void alloc_workers(worker *w, unsigned n, size_t bytes)
{
    unsigned t;
    memset(w, 0, sizeof(worker) * n);
    for (t = 0; t < n; t++) {
        w[t].id = t;
        w[t].mem = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
        assert_non_null(w[t].mem);
    }
}

static void free_workers(worker *w, unsigned n)
{
    unsigned t;
    for (t = 0; t < n; t++) free(w[t].mem);
}

static void test_eight_threads_share_one_model(void **state)
{
    worker w[N_THREADS];
    tu_live base = tu_live_now();
    npu_sim_test_ext_t *sim = tu_sim();
    unsigned t, done = 0;
    uint64_t executed;
    (void)state;
    alloc_workers(w, N_THREADS, npu_request_size(model, NULL) * IN_FLIGHT);
    for (t = 0; t < N_THREADS; t++) w[t].iterations = total_inferences / N_THREADS;
    sim->pfnResetCounters();
    run_workers(w, N_THREADS, 0);
    for (t = 0; t < N_THREADS; t++) done += w[t].done;
    executed = sim->pfnGetGraphExecuteCount();
    free_workers(w, N_THREADS);
    assert_int_equal(done, total_inferences);
    assert_int_equal(executed, total_inferences);
    tu_live_expect(&base);
}

static void test_create_and_destroy_while_others_infer(void **state)
{
    worker w[N_THREADS];
    tu_live base = tu_live_now();
    unsigned t;
    (void)state;
    alloc_workers(w, N_THREADS, npu_request_size(model, NULL) * IN_FLIGHT);
    for (t = 0; t < N_THREADS; t++) w[t].iterations = t % 2 == 0 ? total_inferences / 40 : total_inferences / 100;
    run_workers(w, N_THREADS, 1);
    for (t = 1; t < N_THREADS; t += 2) assert_int_equal(w[t].done, (w[t].iterations + 3) / 4);
    free_workers(w, N_THREADS);
    tu_live_expect(&base);
}

static int group_setup(void **state)
{
    npu_graph *g;
    (void)state;
    if (under_valgrind()) total_inferences = 1000;
    tu_init_context();
    dev = tu_open();
    g = tu_graph_affine(&tu_arena, 1);
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, NULL, &model), "compile");
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    npu_model_destroy(model);
    npu_device_close(dev);
    return 0;
}

/* Threads sharing one context: each fails over and over with a message made
 * of its own letter (a missing file "/nonexistent/<letter x 1500>"); a reader
 * copies the message meanwhile. Every copy is one writer's whole message:
 * never two letters, never cut. (npu__fail wrote the text unsynchronised: torn
 * messages in plain runs, a race under TSan.) */
#define MSG_WRITERS 4
static npu_context *shared_ctx;
static atomic_int msg_done;

static void *msg_writer(void *arg)
{
    char path[1600];
    unsigned k;
    int letter = 'a' + (int)(intptr_t)arg;
    snprintf(path, sizeof path, "/nonexistent/");
    memset(path + 13, letter, 1500);
    path[1513] = '\0';
    static _Thread_local _Alignas(16) unsigned char scratch_mem[NPU_IR_SIZE_SCRATCH];
    npu_arena scratch;
    npu_arena_init(&scratch, scratch_mem, sizeof scratch_mem);
    for (k = 0; k < 4000; k++) {
        size_t need = 0;
        if (npu_ir_size_file(&scratch, shared_ctx, path, &need) != NPU_ERR_IO) abort();
    }
    atomic_fetch_add(&msg_done, 1);
    return NULL;
}

static void check_message(const char *msg)
{
    const char *p = strstr(msg, "/nonexistent/");
    char letter;
    size_t i;
    if (msg[0] == '\0') return;
    if (p == NULL) fail_msg("not a writer's message: %.80s", msg);
    letter = p[13];
    for (i = 0; i < 1500; i++)
        if (p[13 + i] != letter) fail_msg("torn message: '%c' then '%c' at %zu", letter, p[13 + i], i);
    if (strstr(p + 1513, strerror(ENOENT)) == NULL) fail_msg("cut message: %.40s", p + 1513);
}

static void test_threads_share_a_context(void **state)
{
    static _Alignas(16) unsigned char mem[8192];
    static char copy[NPU_ERROR_MAX];
    pthread_t t[MSG_WRITERS];
    npu_arena a;
    intptr_t i;
    unsigned reads = 0;
    (void)state;
    assert_int_equal(npu_arena_init(&a, mem, sizeof mem), NPU_OK);
    assert_int_equal(npu_context_create(&a, NULL, &shared_ctx), NPU_OK);
    atomic_store(&msg_done, 0);
    for (i = 0; i < MSG_WRITERS; i++) assert_int_equal(pthread_create(&t[i], NULL, msg_writer, (void *)i), 0);
    while (atomic_load(&msg_done) < MSG_WRITERS) {
        npu_status st = npu_context_copy_error(shared_ctx, copy, sizeof copy);
        assert_true(st == NPU_OK || st == NPU_ERR_IO);
        if (st == NPU_ERR_IO) check_message(copy);
        reads++;
    }
    for (i = 0; i < MSG_WRITERS; i++) pthread_join(t[i], NULL);
    assert_int_equal(npu_context_copy_error(shared_ctx, copy, sizeof copy), NPU_ERR_IO);
    check_message(copy);
    check_message(npu_context_last_error(shared_ctx));
    print_message("%u consistent copies while %d threads wrote\n", reads, MSG_WRITERS);
    assert_int_equal(npu_context_copy_error(shared_ctx, NULL, 0), NPU_ERR_IO);
    assert_int_equal(npu_context_copy_error(NULL, copy, sizeof copy), NPU_ERR_INVALID_ARGUMENT);
    assert_string_equal(copy, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eight_threads_share_one_model),
        cmocka_unit_test(test_create_and_destroy_while_others_infer),
        cmocka_unit_test(test_threads_share_a_context),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
