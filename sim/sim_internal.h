/* sim_internal.h - shared state of the software NPU's Level Zero driver:
 * configuration read at zeInit, the entry-point guard (call counting, fault
 * injection, tracing), handle translation, and the driver objects that both the
 * core API (driver.c) and the graph extension (graph_ext.c) touch.
 *
 * Nothing here is exported from libze_npu_sim.so: the library is built with
 * -fvisibility=hidden and only the 53 Get*ProcAddrTable getters are visible.
 */
#ifndef SIM_INTERNAL_H
#define SIM_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <ze_api.h>

#include "sim/npu_sim_ext.h"
#include "sim/sim_plan.h"
#include "sim/ze_graph_types.h"

/* ---- configuration (read once, at the first successful zeInit) ---------- */
typedef struct sim_config {
    uint32_t graph_ext_version;  /* ZE_MAKE_VERSION(1, n), n in 0..18 */
    uint32_t compiler_version;   /* (major << 16) | minor */
    uint32_t platform;           /* 3720, 4000 or 5010 */
    uint32_t device_id;          /* PCI id of that platform */
    int no_weights_copy;         /* advertise the "no weights copy" serializer */
    int trace;                   /* NPU_SIM_TRACE=1 */
} sim_config;

extern sim_config sim_cfg;
extern atomic_int sim_skip_math;

/* ---- entry-point guard --------------------------------------------------- */
/* Counts the call, traces it, and returns the injected error if a fault fires
 * (ZE_RESULT_SUCCESS otherwise). Every entry point but zeInit calls it first. */
ze_result_t sim_enter(const char *name);
#define SIM_ENTER(name)                                  \
    do {                                                 \
        ze_result_t sim_enter_rc_ = sim_enter(name);     \
        if (sim_enter_rc_ != ZE_RESULT_SUCCESS)          \
            return sim_enter_rc_;                        \
    } while (0)

void sim_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void sim_live_add(npu_sim_handle_kind kind, int delta);
void sim_count_submit(uint32_t lists);
void sim_count_graph_execute(void);
const npu_sim_test_ext_t *sim_test_ext_table(void);

/* ---- handles ------------------------------------------------------------- */
/* The first word of every object; checked on every call that takes a handle. */
enum {
    SIM_MAGIC_DRIVER = 0x4e505531,
    SIM_MAGIC_DEVICE = 0x4e505532,
    SIM_MAGIC_CONTEXT = 0x4e505533,
    SIM_MAGIC_QUEUE = 0x4e505534,
    SIM_MAGIC_LIST = 0x4e505535,
    SIM_MAGIC_FENCE = 0x4e505536,
    SIM_MAGIC_EVENT_POOL = 0x4e505537,
    SIM_MAGIC_EVENT = 0x4e505538,
    SIM_MAGIC_GRAPH = 0x4e505539,
    SIM_MAGIC_BUILD_LOG = 0x4e50553a,
    SIM_MAGIC_QUERY_NETWORK = 0x4e50553b,
    SIM_MAGIC_DEAD = 0x0bad0bad
};

/* Core handles that reach an extension function may be loader wrappers
 * (intercept mode): translate them with zelLoaderTranslateHandle, then check
 * the magic. Returns NULL for a NULL or foreign handle. `zel_type` is a
 * zel_handle_type_t value. */
void *sim_translate(int zel_type, void *handle, uint32_t magic);

typedef struct sim_device sim_device;
typedef struct sim_context sim_context;
typedef struct sim_queue sim_queue;
typedef struct sim_cmdlist sim_cmdlist;
typedef struct sim_fence sim_fence;
typedef struct sim_event_pool sim_event_pool;
typedef struct sim_event sim_event;
typedef struct sim_graph sim_graph;

sim_device *sim_the_device(void);

/* ---- memory -------------------------------------------------------------- */
typedef struct sim_alloc {
    uintptr_t base;
    size_t size;
    ze_memory_type_t type;
    int imported;    /* caller memory registered by a host-memory import */
    uint64_t id;
} sim_alloc;

struct sim_context {
    uint32_t magic;
    pthread_mutex_t lock;
    sim_alloc *allocs;   /* sorted by base */
    size_t alloc_count, alloc_cap;
    uint64_t allocated_bytes; /* driver-allocated bytes (imports excluded) */
};

/* 1 if [ptr, ptr + bytes) lies inside one allocation of the context. */
int sim_context_holds(sim_context *ctx, const void *ptr, size_t bytes);
uint64_t sim_context_allocated(sim_context *ctx);
uint64_t sim_total_ram(void);

/* ---- events -------------------------------------------------------------- */
struct sim_event {
    uint32_t magic;
    sim_event_pool *pool;
    uint32_t index;
    atomic_int signaled;
};

/* ---- command lists ------------------------------------------------------- */
typedef enum sim_op {
    SIM_OP_BARRIER,
    SIM_OP_COPY,
    SIM_OP_FILL,
    SIM_OP_TIMESTAMP,
    SIM_OP_SIGNAL,
    SIM_OP_WAIT,
    SIM_OP_RESET_EVENT,
    SIM_OP_GRAPH_INIT,
    SIM_OP_GRAPH_EXECUTE
} sim_op;

typedef struct sim_cmd {
    sim_op op;
    sim_event *signal;        /* signalled after the command, may be NULL */
    uint32_t wait_count;      /* waited for before the command */
    sim_event **wait;
    void *dst;
    const void *src;
    size_t size;
    void *pattern;            /* fill: owned copy */
    size_t pattern_size;
    sim_graph *graph;         /* graph ops: holds a reference */
    void **args;              /* execute: argument pointers captured at append */
} sim_cmd;

struct sim_cmdlist {
    uint32_t magic;
    sim_context *ctx;
    int closed;
    sim_queue *immediate;     /* immediate lists run through their own queue */
    int immediate_sync;
    sim_cmd *cmds;
    size_t count, cap;
};

/* Appends a command to a list (the caller has already translated handles and
 * filled `cmd`). On an immediate list the command runs at once. Takes ownership
 * of cmd->wait, cmd->pattern, cmd->args and the graph reference, also on failure. */
ze_result_t sim_list_append(sim_cmdlist *list, sim_cmd *cmd);

/* Builds cmd->wait from the caller's (possibly wrapped) event handles. */
ze_result_t sim_cmd_set_events(sim_cmd *cmd, ze_event_handle_t signal, uint32_t wait_count,
                               ze_event_handle_t *wait, int translate);

/* ---- graphs (graph_ext.c) ------------------------------------------------ */
void sim_graph_retain(sim_graph *g);
void sim_graph_release(sim_graph *g);
/* Runs a captured execute on a worker thread. */
void sim_graph_run(sim_graph *g, void **args);

const ze_graph_dditable_ext_t *sim_graph_table(void);
const ze_command_queue_npu_dditable_ext_t *sim_cq_npu_table(void);

/* ---- time ---------------------------------------------------------------- */
uint64_t sim_now_ns(void);

#endif /* SIM_INTERNAL_H */
