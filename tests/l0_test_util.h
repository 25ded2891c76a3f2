/* l0_test_util.h - shared helpers of the Level Zero suites (test_device.c,
 * test_model.c, test_request.c, test_states.c, test_faults.c, test_batch.c,
 * test_cache.c): arenas, a context that keeps its log, the sim's test
 * extension, live-handle snapshots, small models built with the graph
 * builder, and re-executing the test binary with an environment. */
#ifndef L0_TEST_UTIL_H
#define L0_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <ze_api.h>

#include "npu.h"
#include "sim/npu_sim_ext.h"

#define TU_ARENA_BYTES ((size_t)16 << 20)

__attribute__((unused)) static _Alignas(4096) unsigned char tu_mem[TU_ARENA_BYTES];
__attribute__((unused)) static _Alignas(16) unsigned char tu_ctx_mem[8192];
__attribute__((unused)) static npu_arena tu_arena, tu_ctx_arena;
__attribute__((unused)) static npu_context *tu_ctx;

/* What the context's logger received ("[level] message" lines), when the
 * context was made by tu_init_context_logged. */
__attribute__((unused)) static char tu_log_text[1 << 16];
__attribute__((unused)) static size_t tu_log_len;

static inline void tu_log_keep(void *user, npu_log_level level, const char *msg)
{
    int n;
    (void)user;
    if (tu_log_len >= sizeof tu_log_text - 1) return;
    n = snprintf(tu_log_text + tu_log_len, sizeof tu_log_text - tu_log_len, "[%d] %s\n", (int)level, msg);
    if (n > 0) tu_log_len += (size_t)n;
    if (tu_log_len >= sizeof tu_log_text) tu_log_len = sizeof tu_log_text - 1;
}

static inline void tu_log_clear(void)
{
    tu_log_len = 0;
    tu_log_text[0] = '\0';
}

static inline void tu_expect_log(const char *what)
{
    if (strstr(tu_log_text, what) == NULL) fail_msg("log lacks \"%s\"; log:\n%s", what, tu_log_text);
}

/* The context (silent, or logging up to log_level into tu_log_text) and the
 * 16 MiB test arena. */
static inline void tu_init_context_logged(npu_log_level log_level)
{
    npu_context_options co;
    memset(&co, 0, sizeof co);
    co.log = tu_log_keep;
    co.log_level = log_level;
    tu_log_clear();
    assert_int_equal(npu_arena_init(&tu_ctx_arena, tu_ctx_mem, sizeof tu_ctx_mem), NPU_OK);
    assert_int_equal(npu_context_create(&tu_ctx_arena, &co, &tu_ctx), NPU_OK);
    assert_int_equal(npu_arena_init(&tu_arena, tu_mem, sizeof tu_mem), NPU_OK);
}

static inline void tu_init_context(void)
{
    assert_int_equal(npu_arena_init(&tu_ctx_arena, tu_ctx_mem, sizeof tu_ctx_mem), NPU_OK);
    assert_int_equal(npu_context_create(&tu_ctx_arena, NULL, &tu_ctx), NPU_OK);
    assert_int_equal(npu_arena_init(&tu_arena, tu_mem, sizeof tu_mem), NPU_OK);
}

/* The sim's test table, through the loader (NULL when not on the sim). Call
 * after a device was opened (zeInit done). */
static inline npu_sim_test_ext_t *tu_sim(void)
{
    static npu_sim_test_ext_t *t;
    ze_driver_handle_t drv[8];
    uint32_t n = 8, i;
    if (t != NULL) return t;
    if (zeDriverGet(&n, drv) != ZE_RESULT_SUCCESS) return NULL;
    for (i = 0; i < n && i < 8; i++) {
        void *p = NULL;
        if (zeDriverGetExtensionFunctionAddress(drv[i], NPU_SIM_TEST_EXT_NAME, &p) == ZE_RESULT_SUCCESS && p) {
            t = (npu_sim_test_ext_t *)p;
            break;
        }
    }
    return t;
}

typedef struct tu_live {
    uint64_t n[NPU_SIM_HANDLE_KIND_COUNT];
} tu_live;

static inline tu_live tu_live_now(void)
{
    tu_live l;
    int k;
    npu_sim_test_ext_t *t = tu_sim();
    memset(&l, 0, sizeof l);
    assert_non_null(t);
    for (k = 0; k < NPU_SIM_HANDLE_KIND_COUNT; k++) l.n[k] = t->pfnGetLiveHandles((npu_sim_handle_kind)k);
    return l;
}

static inline void tu_live_expect(const tu_live *base)
{
    tu_live now = tu_live_now();
    int k;
    for (k = 0; k < NPU_SIM_HANDLE_KIND_COUNT; k++)
        if (now.n[k] != base->n[k])
            fail_msg("live handles of kind %d: %llu, baseline %llu", k, (unsigned long long)now.n[k],
                     (unsigned long long)base->n[k]);
}

/* ---- Models ---- */

/* y = relu(x * w + b), x [1,4] f32, w [4] f32, b [4] f32 (one input, one output). */
__attribute__((unused)) static const float tu_w[4] = {1.0f, -2.0f, 0.5f, 3.0f};
__attribute__((unused)) static const float tu_b[4] = {0.25f, 1.0f, -1.0f, 0.0f};

static inline npu_graph *tu_graph_affine(npu_arena *a, int64_t batch)
{
    npu_graph *g = NULL;
    npu_shape xs = {2, {batch, 4}}, ws = {1, {4}};
    npu_node *x, *w, *b, *y;
    assert_int_equal(npu_graph_create(a, tu_ctx, NULL, &g), NPU_OK);
    x = npu_graph_parameter(g, "x", NPU_F32, &xs, "NC");
    w = npu_graph_constant(g, "w", NPU_F32, &ws, tu_w, sizeof tu_w);
    b = npu_graph_constant(g, "b", NPU_F32, &ws, tu_b, sizeof tu_b);
    y = npu_graph_relu(g, npu_graph_add(g, npu_graph_multiply(g, x, w, NULL), b, NULL), "relu");
    /* N on the input and the output: batching needs both (npu.h "Batching"). */
    assert_int_equal(npu_graph_set_layout(npu_graph_result(g, y, "y"), "NC"), NPU_OK);
    if (npu_graph_status(g) != NPU_OK) fail_msg("graph: %s", npu_graph_first_error(g));
    return g;
}

static inline void tu_affine_ref(const float *x, float *y, size_t rows)
{
    size_t r, i;
    for (r = 0; r < rows; r++)
        for (i = 0; i < 4; i++) {
            float v = x[r * 4 + i] * tu_w[i] + tu_b[i];
            y[r * 4 + i] = v > 0.0f ? v : 0.0f;
        }
}

/* Two inputs and two outputs: s = a + b (f32 [2,3]), p = a * b. */
static inline npu_graph *tu_graph_two(npu_arena *ar)
{
    npu_graph *g = NULL;
    npu_shape s = {2, {2, 3}};
    npu_node *a, *b;
    assert_int_equal(npu_graph_create(ar, tu_ctx, NULL, &g), NPU_OK);
    a = npu_graph_parameter(g, "a", NPU_F32, &s, NULL);
    b = npu_graph_parameter(g, "b", NPU_F32, &s, NULL);
    npu_graph_result(g, npu_graph_add(g, a, b, "add"), "sum");
    npu_graph_result(g, npu_graph_multiply(g, a, b, "mul"), "prod");
    if (npu_graph_status(g) != NPU_OK) fail_msg("graph: %s", npu_graph_first_error(g));
    return g;
}

/* Accumulator: acc = state + x; state <- acc; output acc. x [batch,4] f32
 * (layout: NULL or e.g. "NC"). */
static inline npu_graph *tu_graph_accumulator_batch(npu_arena *ar, int64_t batch, const char *layout)
{
    npu_graph *g = NULL;
    npu_shape s = {2, {batch, 4}};
    npu_node *x, *rv, *sum;
    assert_int_equal(npu_graph_create(ar, tu_ctx, NULL, &g), NPU_OK);
    x = npu_graph_parameter(g, "x", NPU_F32, &s, layout);
    rv = npu_graph_read_value(g, NULL, "acc_var", NPU_F32, &s, "rv");
    sum = npu_graph_add(g, rv, x, "sum");
    npu_graph_assign(g, sum, "acc_var", "assign");
    npu_graph_result(g, sum, "acc");
    if (npu_graph_status(g) != NPU_OK) fail_msg("graph: %s", npu_graph_first_error(g));
    return g;
}

static inline npu_graph *tu_graph_accumulator(npu_arena *ar) { return tu_graph_accumulator_batch(ar, 1, NULL); }

static inline npu_device *tu_open(void)
{
    npu_device *d = NULL;
    npu_status st = npu_device_open(&tu_arena, tu_ctx, NULL, &d);
    if (st != NPU_OK) fail_msg("npu_device_open: %s: %s", npu_status_string(st), npu_context_last_error(tu_ctx));
    return d;
}

/* cmocka setup / teardown for suites that use one device: the context, the
 * test arena and tu_dev opened; then tu_dev closed. */
__attribute__((unused)) static npu_device *tu_dev;

static inline int tu_dev_setup(void **state)
{
    (void)state;
    tu_init_context();
    tu_dev = tu_open();
    return 0;
}

static inline int tu_dev_teardown(void **state)
{
    (void)state;
    npu_device_close(tu_dev);
    tu_dev = NULL;
    return 0;
}

static inline void tu_ok(npu_status st, const char *what)
{
    if (st != NPU_OK) fail_msg("%s: %s: %s", what, npu_status_string(st), npu_context_last_error(tu_ctx));
}

/* Starts this test binary again with extra environment (NAME=VALUE, NULL-
 * ended) and argv[1] = flag; returns the child's pid (< 0 on failure). */
static inline pid_t tu_spawn(const char *flag, const char *const *env)
{
    pid_t pid;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        size_t i;
        if (n <= 0) _exit(120);
        self[n] = '\0';
        for (i = 0; env != NULL && env[i] != NULL; i++) putenv((char *)(uintptr_t)env[i]);
        execl(self, self, flag, (char *)NULL);
        _exit(121);
    }
    return pid;
}

/* Waits for a tu_spawn child: its exit status, 128 + signal, or -1. */
static inline int tu_reap(pid_t pid)
{
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* tu_spawn, then tu_reap. */
static inline int tu_rerun(const char *flag, const char *const *env) { return tu_reap(tu_spawn(flag, env)); }

#endif /* L0_TEST_UTIL_H */
