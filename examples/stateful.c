/* stateful.c - a model with state: a ReadValue/Assign accumulator.
 *
 *   acc' = acc + x;  y = acc'
 *
 * The request carries the variable from one inference to the next (no copies:
 * it alternates two buffers). The host can read, overwrite and reset it.
 *
 * Run on the software NPU: ZE_ENABLE_ALT_DRIVERS=$PWD/build/libze_npu_sim.so */
/* POSIX 2008 (clock_gettime, mkstemp, posix_memalign, ...) under -std=c11. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include "npu.h"

#define LEN 4

static _Alignas(NPU_ARENA_ALIGN) unsigned char memory[256 * 1024];
static npu_context *ctx;
static int failures;

static void check(const char *what, const float *got, const float *want)
{
    int ok = 1;
    printf("stateful: %-28s y = [", what);
    for (int i = 0; i < LEN; i++) {
        printf("%s%g", i ? ", " : "", (double)got[i]);
        ok &= fabsf(got[i] - want[i]) < 1e-4f;
    }
    printf("] %s\n", ok ? "ok" : "WRONG");
    failures += !ok;
}

static int infer(npu_request *req, float step)
{
    float *x = npu_request_input(req, 0);
    for (int i = 0; i < LEN; i++) x[i] = step * (float)(i + 1);
    if (npu_request_infer(req) == NPU_OK) return 0;
    fprintf(stderr, "stateful: npu_request_infer failed: %s\n", npu_context_last_error(ctx));
    return 1;
}

int main(void)
{
    npu_arena arena;
    npu_device *dev = NULL;
    npu_graph *g = NULL;
    npu_model *model = NULL;
    npu_request *req = NULL;
    npu_status st = npu_arena_init(&arena, memory, sizeof memory);
    if (st == NPU_OK) st = npu_context_create(&arena, NULL, &ctx);
    if (st != NPU_OK) {   /* no context yet to hold a message: the status says it */
        fprintf(stderr, "stateful: creating the context failed: %s\n", npu_status_string(st));
        return 1;
    }
    /* Every failure below leaves its reason in the context; `error` prints it. */
    if (npu_device_open(&arena, ctx, NULL, &dev) != NPU_OK) goto error;

    if (npu_graph_create(&arena, ctx, NULL, &g) != NPU_OK) goto error;
    npu_shape s = {2, {1, LEN}};
    npu_node *x = npu_graph_parameter(g, "x", NPU_F32, &s, "NC");
    npu_node *acc = npu_graph_read_value(g, NULL, "acc", NPU_F32, &s, NULL);
    npu_node *sum = npu_graph_add(g, acc, x, "sum");
    npu_graph_assign(g, sum, "acc", NULL);
    npu_graph_result(g, sum, "y");
    if (npu_graph_status(g) != NPU_OK) goto error;
    if (npu_model_compile_graph(dev, &arena, g, NULL, &model) != NPU_OK) goto error;
    if (npu_request_create(model, &arena, NULL, &req) != NPU_OK) goto error;

    npu_tensor_desc d;
    if (npu_request_state(req, 0, &d) != NPU_OK) goto error;
    printf("stateful: %u state(s); state 0 is '%s', %llu bytes\n", npu_request_state_count(req), d.name,
           (unsigned long long)d.bytes);

    /* A new request starts with a zeroed state: 1, then 1+2, then 1+2+3 times x. */
    float want[LEN];
    for (int step = 1; step <= 3; step++) {
        if (infer(req, 1.0f)) goto error;
        for (int i = 0; i < LEN; i++) want[i] = (float)(step * (i + 1));
        check(step == 1 ? "infer 1 (from zero)" : step == 2 ? "infer 2" : "infer 3", npu_request_output(req, 0), want);
    }
    /* The state buffer holds what the next inference reads: the last sum. */
    check("state after 3 inferences", npu_request_state_data(req, 0), want);

    const float hundred[LEN] = {100, 100, 100, 100};
    if (npu_request_state_set(req, 0, hundred, sizeof hundred) != NPU_OK) goto error;
    if (infer(req, 1.0f)) goto error;
    for (int i = 0; i < LEN; i++) want[i] = 100.0f + (float)(i + 1);
    check("state set to 100, infer", npu_request_output(req, 0), want);

    if (npu_request_state_reset(req, 0) != NPU_OK) goto error;
    if (infer(req, 2.0f)) goto error;
    for (int i = 0; i < LEN; i++) want[i] = 2.0f * (float)(i + 1);
    check("state reset, infer with 2x", npu_request_output(req, 0), want);

    npu_request_destroy(req);
    npu_model_destroy(model);
    npu_device_close(dev);
    puts(failures ? "stateful: FAILED" : "stateful: OK");
    return failures != 0;
error:
    fprintf(stderr, "stateful: %s\n", npu_context_last_error(ctx));
    npu_request_destroy(req);
    npu_model_destroy(model);
    npu_device_close(dev);
    return 1;
}
