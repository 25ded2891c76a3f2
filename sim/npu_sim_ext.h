/* npu_sim_ext.h - private test extension of the software NPU (sim/).
 *
 * Tests reach it through the ordinary Level Zero path:
 *
 *     npu_sim_test_ext_t *t = NULL;
 *     zeDriverGetExtensionFunctionAddress(driver, NPU_SIM_TEST_EXT_NAME, (void **)&t);
 *
 * The returned pointer is a static table inside the sim; it stays valid for the
 * life of the process. Only the sim offers this extension: a test that cannot get
 * it is not running on the sim and should skip what needs it.
 *
 * All counters are process-wide (the sim has one driver and one device).
 * Functions here are thread-safe and are not themselves counted as driver calls.
 */
#ifndef NPU_SIM_EXT_H
#define NPU_SIM_EXT_H

#include <stdint.h>
#include <ze_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPU_SIM_TEST_EXT_NAME "ZE_extension_npu_sim_test"
#define NPU_SIM_TEST_EXT_VERSION ZE_MAKE_VERSION(1, 0)

/* Kinds of handles the sim counts while they are alive. */
typedef enum npu_sim_handle_kind {
    NPU_SIM_HANDLE_CONTEXT = 0,
    NPU_SIM_HANDLE_MEMORY = 1,        /* zeMemAlloc* allocations and imports */
    NPU_SIM_HANDLE_COMMAND_QUEUE = 2,
    NPU_SIM_HANDLE_COMMAND_LIST = 3,
    NPU_SIM_HANDLE_FENCE = 4,
    NPU_SIM_HANDLE_EVENT_POOL = 5,
    NPU_SIM_HANDLE_EVENT = 6,
    NPU_SIM_HANDLE_GRAPH = 7,
    NPU_SIM_HANDLE_BUILD_LOG = 8,
    NPU_SIM_HANDLE_QUERY_NETWORK = 9,
    NPU_SIM_HANDLE_PROFILING = 10,    /* profiling pools and queries */
    NPU_SIM_HANDLE_KIND_COUNT = 11
} npu_sim_handle_kind;

typedef struct npu_sim_test_ext {
    /* Arms fault injection: counting from this call on, the nth_call-th call of any
     * driver entry point (core API and graph extension alike, zeInit excluded)
     * returns `error` without doing anything. 0 disarms. After firing once, the
     * fault is disarmed again. */
    void (*pfnSetFault)(uint64_t nth_call, ze_result_t error);

    /* Like pfnSetFault, but only calls whose entry point name equals `name`
     * ("zeCommandListCreate", "pfnCreate2", ...) are counted. */
    void (*pfnSetFaultByName)(const char *name, uint64_t nth_call, ze_result_t error);

    /* Number of driver entry point calls since process start (or since the last
     * pfnResetCounters). */
    uint64_t (*pfnGetCallCount)(void);

    /* Live handles of one kind right now. */
    uint64_t (*pfnGetLiveHandles)(npu_sim_handle_kind kind);

    /* zeCommandQueueExecuteCommandLists calls so far, and command lists they
     * carried in total, and graph executions run by the worker threads. */
    uint64_t (*pfnGetSubmitCount)(void);
    uint64_t (*pfnGetSubmittedListCount)(void);
    uint64_t (*pfnGetGraphExecuteCount)(void);

    /* Resets the call, submit, execute, import and cache counters (not the live
     * handles). */
    void (*pfnResetCounters)(void);

    /* 1: graph executions skip the arithmetic (for measuring host overhead);
     * 0: compute normally. Same as NPU_SIM_SKIP_MATH=1 at start-up. */
    void (*pfnSetSkipMath)(int skip);

    /* Imports that zeMemAlloc* performed: host memory (a pNext import struct
     * of the stype the release profile's driver matches) and dma-buf fds
     * (ze_external_memory_import_fd_t). An import struct the driver does not
     * recognise gets a fresh allocation instead, as on the real driver, and is
     * not counted: zero copy silently did not happen. */
    uint64_t (*pfnGetImportCount)(void);

    /* Graph creates served from the driver's compile cache (LOADED_FROM_CACHE),
     * and compiled blobs stored into it. */
    uint64_t (*pfnGetCacheHitCount)(void);
    uint64_t (*pfnGetCacheStoreCount)(void);

    /* Name of the release profile in use ("2024", "2025", "2026"). */
    const char *(*pfnGetProfileName)(void);

    /* Live command queues that run in turbo mode (what the profile's
     * zeCommandQueueCreate made of the desc's first pNext struct: none in
     * v1.10.0), and live queues whose workload type (pfnSetWorkloadType of
     * ZE_extension_command_queue_npu) is BACKGROUND. */
    uint64_t (*pfnGetTurboQueueCount)(void);
    uint64_t (*pfnGetBackgroundQueueCount)(void);
    /* Live contexts with idle memory optimizations on (pfnSetProperties of
     * ZE_extension_context_npu with IDLE_OPTIMIZATIONS; like the driver, a
     * no-op below platform 4000). */
    uint64_t (*pfnGetIdleOptimizedContextCount)(void);
} npu_sim_test_ext_t;

#ifdef __cplusplus
}
#endif
#endif /* NPU_SIM_EXT_H */
