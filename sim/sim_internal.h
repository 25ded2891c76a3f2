/* sim_internal.h - shared state of the software NPU's Level Zero driver:
 * configuration read at zeInit, the entry-point guard (call counting, fault
 * injection, tracing), handle translation, and the driver objects that both the
 * core API (driver.c) and the graph extension (graph_ext.c) touch.
 *
 * The files form layers; each calls only the ones below it:
 *   extensions.c  the extension list and lookup, zeGetDriverProcAddrTable
 *   graph_ext.c   the graph and command-queue extensions (records commands)
 *   driver.c      the core API: objects, memory, command lists, queue workers
 *   hooks.c, disk_cache.c, profile.c
 * driver.c runs recorded commands through their callbacks (sim_cmd), so it
 * never calls into graph_ext.c; `make check-sim-layers` checks that.
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
#include <ze_ddi.h>

#include "sim/npu_sim_ext.h"
#include "sim/profile.h"
#include "sim/sim_plan.h"
#include "sim/ze_graph_types.h"

/* ---- configuration (read once, at the first successful zeInit) ---------- */
/* Defaults come from the release profile (NPU_SIM_PROFILE, sim/profile.h); the
 * older NPU_SIM_* variables override single fields on top of it. */
typedef struct sim_config {
    const sim_profile *profile;  /* the selected release profile */
    uint32_t graph_ext_version;  /* ZE_MAKE_VERSION(1, n), n in 0..18 */
    uint32_t compiler_version;   /* (major << 16) | minor */
    uint32_t platform;           /* 3720, 4000 or 5010 */
    uint32_t device_id;          /* PCI id of that platform */
    int no_weights_copy;         /* advertise the "no weights copy" serializer */
    int trace;                   /* NPU_SIM_TRACE=1 */
    char hide_ext[256];          /* NPU_SIM_HIDE_EXT: comma-separated extension names not offered */
    int dma_buf;                 /* NPU_SIM_DMA_BUF: SIM_DMA_BUF_* */
} sim_config;

/* dma-buf import (ze_external_memory_import_fd_t), NPU_SIM_DMA_BUF: */
#define SIM_DMA_BUF_ON 1         /* advertised and imported (default; Intel's driver
                                    on a kernel with PRIME import) */
#define SIM_DMA_BUF_NO_PRIME 2   /* advertised, but the kernel driver lacks PRIME:
                                    imports fail UNSUPPORTED_FEATURE */
#define SIM_DMA_BUF_OFF 0        /* not advertised (a driver without it), imports
                                    fail UNSUPPORTED_FEATURE */

extern sim_config sim_cfg;

/* The profile in use (the default one before zeInit). */
#define SIM_PROFILE() (sim_cfg.profile != NULL ? sim_cfg.profile : sim_profile_current())

/* The profile's linux-npu-driver release as SIM_RELEASE(major, minor). */
#define SIM_RELEASE(major, minor) (((uint32_t)(major) << 16) | (uint32_t)(minor))
uint32_t sim_driver_release(void);

/* Makes `p` the current profile and resets the profile-derived fields of
 * sim_cfg (graph_ext_version, compiler_version) to its values. */
void sim_config_apply_profile(const sim_profile *p);
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
void sim_count_import(void);
void sim_count_cache(int hit);
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

sim_device *sim_the_device(void);

/* ---- memory -------------------------------------------------------------- */
#define SIM_ALLOC_OWN 0
#define SIM_ALLOC_USER_PAGES 1
#define SIM_ALLOC_DMA_BUF 2
typedef struct sim_alloc {
    uintptr_t base;
    size_t size;
    ze_memory_type_t type;
    int imported;    /* SIM_ALLOC_OWN, _USER_PAGES (a host-memory import of the
                        caller's pages) or _DMA_BUF (an fd import: a mapping) */
    uint64_t id;
} sim_alloc;

struct sim_context {
    uint32_t magic;
    int idle_optimizations;   /* ZE_extension_context_npu: IDLE_OPTIMIZATIONS in effect */
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
/* A recorded command. The code that appends it (driver.c for the core
 * commands, graph_ext.c for the graph ones) sets the two callbacks and the
 * payload; driver.c waits, runs, signals and frees commands through them
 * without knowing what they do. */
typedef struct sim_cmd sim_cmd;
struct sim_cmd {
    /* On the queue's worker, after the waits and before the signal. NULL: the
     * command only waits and signals (barriers, signal, wait, graph init). */
    void (*run)(const sim_cmd *cmd);
    /* Frees what the payload owns, once, when the command is dropped (list
     * reset or destroy, an immediate command done, a failed append). NULL: the
     * payload owns nothing. */
    void (*release)(sim_cmd *cmd);
    sim_event *signal;        /* signalled after the command, may be NULL */
    uint32_t wait_count;      /* waited for before the command */
    sim_event **wait;
    /* The payload, read only by run and release. */
    void *obj;                /* what the command acts on: destination, event, graph */
    const void *src;          /* copy source */
    size_t size;              /* bytes to copy or fill */
    void *data;               /* heap block the command owns: fill pattern, graph arguments */
    size_t data_size;
};

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
 * of cmd->wait and of the payload (cmd->release), also on failure. */
ze_result_t sim_list_append(sim_cmdlist *list, sim_cmd *cmd);

/* Builds cmd->wait from the caller's (possibly wrapped) event handles. */
ze_result_t sim_cmd_set_events(sim_cmd *cmd, ze_event_handle_t signal, uint32_t wait_count,
                               ze_event_handle_t *wait, int translate);

/* ---- driver handle and table (driver.c, for extensions.c) ----------------- */
/* 1 when `h` is the driver handle and zeInit has succeeded. */
int sim_driver_valid(ze_driver_handle_t h);
/* Checks the getter's arguments and fills the core entries of the driver table;
 * extensions.c adds the two extension entries. */
ze_result_t sim_driver_core_table(ze_api_version_t version, ze_driver_dditable_t *t);

/* ---- NPU queue and context controls (driver.c) ----------------------------- */
/* pfnSetWorkloadType of ZE_extension_command_queue_npu on a translated queue;
 * 0 or 1 (BACKGROUND). Returns INVALID_NULL_HANDLE for a foreign handle. */
ze_result_t sim_queue_set_workload(ze_command_queue_handle_t hQueue, uint32_t type);
/* ZE_extension_context_npu. */
ze_result_t sim_context_set_npu_properties(ze_context_handle_t hContext, const void *props);
ze_result_t sim_context_release_memory(ze_context_handle_t hContext);
void sim_count_queue_controls(int turbo_delta, int background_delta);
void sim_count_idle_context(int delta);
/* 1 when NPU_SIM_HIDE_EXT names the extension (it is then neither advertised
 * nor handed out). */
int sim_ext_hidden(const char *name);

/* ---- graph and command-queue extensions (graph_ext.c) --------------------- */
const ze_graph_dditable_ext_t *sim_graph_table(void);
const ze_command_queue_npu_dditable_ext_t *sim_cq_npu_table(void);
const ze_graph_profiling_dditable_ext_t *sim_profiling_table(void);

/* Extensions the real driver advertises that the sim advertises too (per
 * profile) without implementing them (extensions.c). */
#define SIM_PROFILING_DATA_EXT_NAME "ZE_extension_profiling_data"
#define SIM_MUTABLE_COMMAND_LIST_EXP_NAME "ZE_experimental_mutable_command_list"
#define SIM_CONTEXT_NPU_EXT_NAME "ZE_extension_context_npu"
#define SIM_EXTERNAL_MEMMAP_EXT_NAME "ZE_extension_external_memmap_sysmem"
/* ze_external_memmap_sysmem_ext_desc_t (same layout as
 * ze_external_memory_import_system_memory_t: stype, pNext, pointer, size). */
#define SIM_STYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC 0x00020037u

/* ---- the driver's compile cache (disk_cache.c) ---------------------------- */
/* Modelled on the real driver's DiskCache of the profile's release: one file per
 * key in ZE_INTEL_NPU_CACHE_DIR, else $XDG_CACHE_HOME/ze_intel_npu_cache, else
 * $HOME/.cache/ze_intel_npu_cache; at most ZE_INTEL_NPU_CACHE_SIZE bytes
 * (default 1 GiB for v1.10, 4 GiB later), least recently accessed files evicted
 * first. The key covers the driver and compiler identity, the format, the build
 * flags, the graph flags and the input bytes, or (v1.32) the first-in-pNext
 * ze_graph_input_hash_t instead of the input bytes. */
typedef struct sim_cache_key {
    char name[40];              /* file name: hex digest */
} sim_cache_key;

/* 0 when the cache is off (profile without one, or the directory could not be
 * created). Initialised once, at the first call. */
int sim_cache_enabled(void);
/* (Re)reads the cache variables for the current profile (zeInit does it). */
void sim_cache_init(void);
void sim_cache_compute_key(const ze_graph_desc_2_t *desc, const char *build_flags, sim_cache_key *key);
/* A hit returns a malloc'ed copy of the cached native blob (checksum checked
 * where the release checks it; a bad entry is removed and misses). */
void *sim_cache_get(const sim_cache_key *key, size_t *size);
/* Returns 1 when the entry was written. */
int sim_cache_put(const sim_cache_key *key, const void *blob, size_t size);
uint64_t sim_cache_size(void);      /* bytes in the cache directory */
uint64_t sim_cache_max_size(void);  /* 0 when off */

/* ---- time ---------------------------------------------------------------- */
uint64_t sim_now_ns(void);

#endif /* SIM_INTERNAL_H */
