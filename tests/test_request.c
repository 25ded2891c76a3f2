/* Requests: in-place I/O, lookup by name, exact arena size, async
 * start/poll/wait, many requests on several threads, caller buffers (imported
 * when page-aligned, copied otherwise), submit accounting, teardown. */
#include <pthread.h>
#include <sched.h>

#include "tests/l0_test_util.h"

static npu_device *dev;
static npu_model *affine, *two;
static tu_live base;

static int group_setup(void **state)
{
    (void)state;
    tu_init_context();
    dev = tu_open();
    base = tu_live_now();
    tu_ok(npu_model_compile_graph(dev, &tu_arena, tu_graph_affine(&tu_arena, 1), NULL, &affine), "affine");
    tu_ok(npu_model_compile_graph(dev, &tu_arena, tu_graph_two(&tu_arena), NULL, &two), "two");
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    npu_model_destroy(affine);
    npu_model_destroy(two);
    tu_live_expect(&base);
    npu_device_close(dev);
    return 0;
}

static void fill(float *x, size_t n, float seed)
{
    size_t i;
    for (i = 0; i < n; i++) x[i] = seed + (float)i * 0.5f - 2.0f;
}

static void check_affine(const float *x, const float *y)
{
    float ref[4];
    int i;
    tu_affine_ref(x, ref, 1);
    for (i = 0; i < 4; i++) assert_float_equal(y[i], ref[i], 1e-6);
}

static void test_infer_many_times(void **state)
{
    size_t mark = npu_arena_used(&tu_arena);
    npu_request *r = NULL;
    npu_sim_test_ext_t *sim = tu_sim();
    float x[4];
    int k;
    (void)state;
    tu_ok(npu_request_create(affine, &tu_arena, NULL, &r), "request");
    assert_int_equal(npu_arena_used(&tu_arena) - mark, npu_request_size(affine, NULL));
    assert_true(((uintptr_t)npu_request_input(r, 0) % 4096) == 0);
    assert_null(npu_request_input(r, 1));
    assert_null(npu_request_output(r, 1));
    sim->pfnResetCounters();
    for (k = 0; k < 20; k++) {
        fill(x, 4, (float)k);
        memcpy(npu_request_input(r, 0), x, sizeof x);
        tu_ok(npu_request_infer(r), "infer");
        check_affine(x, (const float *)npu_request_output(r, 0));
    }
    assert_int_equal(sim->pfnGetSubmitCount(), 20);
    assert_int_equal(sim->pfnGetSubmittedListCount(), 20);
    npu_request_destroy(r);
    npu_arena_rewind(&tu_arena, mark);
}

static void test_exact_request_arena(void **state)
{
    static _Alignas(16) unsigned char mem[8192];
    size_t need = npu_request_size(two, NULL);
    npu_arena a;
    npu_request *r = NULL;
    tu_live before = tu_live_now();
    (void)state;
    assert_true(need <= sizeof mem);
    assert_int_equal(npu_arena_init(&a, mem, need), NPU_OK);
    tu_ok(npu_request_create(two, &a, NULL, &r), "exact");
    npu_request_destroy(r);
    tu_live_expect(&before);
    for (size_t cap = 0; cap < need; cap += NPU_ARENA_ALIGN) {
        assert_int_equal(npu_arena_init(&a, mem, cap), NPU_OK);
        assert_int_equal(npu_request_create(two, &a, NULL, &r), NPU_ERR_ARENA_TOO_SMALL);
        assert_int_equal(npu_arena_used(&a), 0);
    }
    tu_live_expect(&before);
}

static void test_names_and_two_outputs(void **state)
{
    size_t mark = npu_arena_used(&tu_arena);
    npu_request *r = NULL;
    uint32_t ia, ib, is, ip;
    float a[6], b[6];
    const float *s, *p;
    int i;
    (void)state;
    tu_ok(npu_request_create(two, &tu_arena, NULL, &r), "request");
    tu_ok(npu_request_find_input(r, "a", &ia), "a");
    tu_ok(npu_request_find_input(r, "b", &ib), "b");
    tu_ok(npu_request_find_output(r, "sum", &is), "sum");
    tu_ok(npu_request_find_output(r, "prod", &ip), "prod");
    assert_int_equal(ia, 0);
    assert_int_equal(ib, 1);
    assert_int_not_equal(is, ip);
    assert_int_equal(npu_request_find_input(r, "nope", &ia), NPU_ERR_NOT_FOUND);
    assert_true(strstr(npu_context_last_error(tu_ctx), "nope") != NULL);
    fill(a, 6, 1.0f);
    fill(b, 6, -3.0f);
    memcpy(npu_request_input(r, ia), a, sizeof a);
    memcpy(npu_request_input(r, ib), b, sizeof b);
    tu_ok(npu_request_infer(r), "infer");
    s = (const float *)npu_request_output(r, is);
    p = (const float *)npu_request_output(r, ip);
    for (i = 0; i < 6; i++) {
        assert_float_equal(s[i], a[i] + b[i], 1e-6);
        assert_float_equal(p[i], a[i] * b[i], 1e-6);
    }
    npu_request_destroy(r);
    npu_arena_rewind(&tu_arena, mark);
}

static void test_async(void **state)
{
    size_t mark = npu_arena_used(&tu_arena);
    npu_request *r[4];
    float x[4][4];
    int i;
    npu_status st;
    (void)state;
    for (i = 0; i < 4; i++) tu_ok(npu_request_create(affine, &tu_arena, NULL, &r[i]), "request");
    assert_int_equal(npu_request_wait(r[0], 0), NPU_OK); /* nothing running */
    for (i = 0; i < 4; i++) {
        fill(x[i], 4, (float)(i * 3));
        memcpy(npu_request_input(r[i], 0), x[i], sizeof x[i]);
        tu_ok(npu_request_start(r[i]), "start");
    }
    assert_int_equal(npu_request_start(r[0]), NPU_ERR_STATE); /* running until waited for */
    while ((st = npu_request_poll(r[1])) == NPU_NOT_READY) sched_yield();
    assert_int_equal(st, NPU_OK);
    for (i = 0; i < 4; i++) {
        tu_ok(npu_request_wait(r[i], UINT64_MAX), "wait");
        check_affine(x[i], (const float *)npu_request_output(r[i], 0));
    }
    /* Destroy with an inference in flight: waits for it. */
    tu_ok(npu_request_start(r[2]), "start");
    for (i = 3; i >= 0; i--) npu_request_destroy(r[i]);
    npu_arena_rewind(&tu_arena, mark);
}

static void test_start_twice_is_state_error(void **state)
{
    size_t mark = npu_arena_used(&tu_arena);
    npu_request *r = NULL;
    npu_status st;
    (void)state;
    tu_ok(npu_request_create(affine, &tu_arena, NULL, &r), "request");
    tu_ok(npu_request_start(r), "start");
    st = npu_request_start(r);
    assert_int_equal(st, NPU_ERR_STATE);
    assert_int_equal(npu_request_infer(r), NPU_ERR_STATE);
    assert_int_equal(npu_request_set_input_buffer(r, 0, NULL, 0), NPU_ERR_STATE);
    tu_ok(npu_request_wait(r, UINT64_MAX), "wait");
    tu_ok(npu_request_infer(r), "infer after wait");
    npu_request_destroy(r);
    npu_arena_rewind(&tu_arena, mark);
}

/* ---- threads ---- */

typedef struct worker {
    npu_model *m;
    npu_request *r[2];
    int id, failures;
} worker;

static void *work(void *p)
{
    worker *w = (worker *)p;
    float x[2][4], ref[4];
    int k, j, i;
    for (k = 0; k < 40; k++) {
        for (j = 0; j < 2; j++) {
            fill(x[j], 4, (float)(w->id * 100 + k * 2 + j));
            memcpy(npu_request_input(w->r[j], 0), x[j], sizeof x[j]);
            if (npu_request_start(w->r[j]) != NPU_OK) w->failures++;
        }
        for (j = 0; j < 2; j++) {
            const float *y;
            if (npu_request_wait(w->r[j], UINT64_MAX) != NPU_OK) w->failures++;
            y = (const float *)npu_request_output(w->r[j], 0);
            tu_affine_ref(x[j], ref, 1);
            for (i = 0; i < 4; i++)
                if (y[i] != ref[i]) w->failures++;
        }
    }
    return NULL;
}

static void *create_and_work(void *p)
{
    worker *w = (worker *)p;
    static _Alignas(16) unsigned char mem[4][8192];
    npu_arena a;
    int j;
    /* Each thread its own arena; creation runs concurrently (recording is
     * serialized inside the library). */
    npu_arena_init(&a, mem[w->id], sizeof mem[w->id]);
    for (j = 0; j < 2; j++)
        if (npu_request_create(w->m, &a, NULL, &w->r[j]) != NPU_OK) {
            w->failures += 1000;
            return NULL;
        }
    work(w);
    for (j = 1; j >= 0; j--) npu_request_destroy(w->r[j]);
    return NULL;
}

static void test_threads(void **state)
{
    pthread_t t[4];
    worker w[4];
    npu_sim_test_ext_t *sim = tu_sim();
    int i;
    (void)state;
    sim->pfnResetCounters();
    for (i = 0; i < 4; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].m = affine;
        w[i].id = i;
        assert_int_equal(pthread_create(&t[i], NULL, create_and_work, &w[i]), 0);
    }
    for (i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
    assert_int_equal(sim->pfnGetGraphExecuteCount(), 4 * 40 * 2);
}

/* ---- caller buffers ---- */

static void test_caller_buffers(void **state)
{
    size_t mark = npu_arena_used(&tu_arena);
    npu_request *r = NULL;
    float *in_al = (float *)aligned_alloc(4096, 4096), *out_al = (float *)aligned_alloc(4096, 4096);
    float in_un[5], out_un[5];
    tu_live before = tu_live_now();
    float x[4];
    (void)state;
    tu_ok(npu_request_create(affine, &tu_arena, NULL, &r), "request");
    /* Too small. */
    assert_int_equal(npu_request_set_input_buffer(r, 0, in_un, 8), NPU_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(npu_request_set_input_buffer(r, 3, in_un, 16), NPU_ERR_NOT_FOUND);
    /* Page-aligned: imported, used in place, where the driver offers the
     * memmap extension (else copied, as below; issue 11). */
    tu_ok(npu_request_set_input_buffer(r, 0, in_al, 4096), "import input");
    tu_ok(npu_request_set_output_buffer(r, 0, out_al, 4096), "import output");
    {
        tu_live now = tu_live_now();
        npu_device_properties p;
        tu_ok(npu_device_get_properties(dev, &p), "properties");
        assert_int_equal(now.n[NPU_SIM_HANDLE_MEMORY],
                         before.n[NPU_SIM_HANDLE_MEMORY] + 2 + (p.host_memory_import ? 2 : 0));
    }
    assert_ptr_equal(npu_request_input(r, 0), in_al);
    assert_ptr_equal(npu_request_output(r, 0), out_al);
    fill(x, 4, 7.0f);
    memcpy(in_al, x, sizeof x);
    tu_ok(npu_request_infer(r), "infer imported");
    check_affine(x, out_al);
    /* Unaligned: copied around each inference. */
    tu_ok(npu_request_set_input_buffer(r, 0, in_un + 1, 16), "copy input");
    tu_ok(npu_request_set_output_buffer(r, 0, out_un + 1, 16), "copy output");
    assert_ptr_equal(npu_request_input(r, 0), in_un + 1);
    fill(x, 4, -5.0f);
    memcpy(in_un + 1, x, sizeof x);
    tu_ok(npu_request_infer(r), "infer copied");
    check_affine(x, out_un + 1);
    fill(x, 4, 11.0f);
    memcpy(in_un + 1, x, sizeof x);
    tu_ok(npu_request_infer(r), "infer copied again");
    check_affine(x, out_un + 1);
    /* Detach: back to the request's own buffers. */
    tu_ok(npu_request_set_input_buffer(r, 0, NULL, 0), "detach");
    tu_ok(npu_request_set_output_buffer(r, 0, NULL, 0), "detach");
    assert_ptr_not_equal(npu_request_input(r, 0), in_un + 1);
    fill(x, 4, 2.0f);
    memcpy(npu_request_input(r, 0), x, sizeof x);
    tu_ok(npu_request_infer(r), "infer own");
    check_affine(x, (const float *)npu_request_output(r, 0));
    npu_request_destroy(r);
    tu_live_expect(&before);
    free(in_al);
    free(out_al);
    npu_arena_rewind(&tu_arena, mark);
}

static void test_null_arguments(void **state)
{
    npu_request *r = NULL;
    uint32_t idx;
    (void)state;
    assert_int_equal(npu_request_create(NULL, &tu_arena, NULL, &r), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_request_create(affine, NULL, NULL, &r), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_request_infer(NULL), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_request_wait(NULL, 0), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_request_find_input(NULL, "x", &idx), NPU_ERR_INVALID_ARGUMENT);
    assert_null(npu_request_input(NULL, 0));
    assert_int_equal(npu_request_size(NULL, NULL), 0);
    npu_request_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_infer_many_times),
        cmocka_unit_test(test_exact_request_arena),
        cmocka_unit_test(test_names_and_two_outputs),
        cmocka_unit_test(test_async),
        cmocka_unit_test(test_start_twice_is_state_error),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_caller_buffers),
        cmocka_unit_test(test_null_arguments),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
