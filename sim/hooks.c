/* hooks.c - the software NPU's bookkeeping: the entry-point guard that every
 * driver call passes through (call counter, fault injection, NPU_SIM_TRACE),
 * live-handle and submit counters, the private test extension of npu_sim_ext.h,
 * and the translation of loader-wrapped handles for extension functions.
 *
 * All state is process-wide and thread-safe: counters are C11 atomics, the fault
 * slots are guarded by one mutex that is only taken while a fault is armed.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <loader/ze_loader.h>

#include "sim/sim_internal.h"

/* Until zeInit reads the configuration: the default profile's values (2026). */
sim_config sim_cfg = {
    .profile = NULL,
    .graph_ext_version = ZE_MAKE_VERSION(1, 16),
    .compiler_version = (7u << 16) | 28u,
    .platform = 3720,
    .device_id = 0x7D1D,
    .no_weights_copy = 1,
    .trace = 0,
    .dma_buf = SIM_DMA_BUF_ON,
};
atomic_int sim_skip_math;

/* ---- counters ------------------------------------------------------------ */
static atomic_uint_fast64_t call_count;
static atomic_uint_fast64_t submit_count;
static atomic_uint_fast64_t submitted_list_count;
static atomic_uint_fast64_t graph_execute_count;
static atomic_int_fast64_t live_handles[NPU_SIM_HANDLE_KIND_COUNT];
static atomic_uint_fast64_t import_count;
static atomic_uint_fast64_t cache_hit_count;
static atomic_uint_fast64_t cache_store_count;
static atomic_int_fast64_t turbo_queues, background_queues, idle_contexts;

void sim_count_queue_controls(int turbo_delta, int background_delta)
{
    atomic_fetch_add(&turbo_queues, turbo_delta);
    atomic_fetch_add(&background_queues, background_delta);
}

void sim_count_idle_context(int delta)
{
    atomic_fetch_add(&idle_contexts, delta);
}

static uint64_t t_GetTurboQueueCount(void)
{
    return (uint64_t)atomic_load(&turbo_queues);
}

static uint64_t t_GetBackgroundQueueCount(void)
{
    return (uint64_t)atomic_load(&background_queues);
}

static uint64_t t_GetIdleOptimizedContextCount(void)
{
    return (uint64_t)atomic_load(&idle_contexts);
}

int sim_ext_hidden(const char *name)
{
    size_t n = strlen(name);
    for (const char *s = sim_cfg.hide_ext; *s;) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == n && strncmp(s, name, n) == 0)
            return 1;
        s += len + (e != NULL);
    }
    return 0;
}

void sim_config_apply_profile(const sim_profile *p)
{
    if (p == NULL)
        p = sim_profile_current();
    sim_profile_select(p);
    sim_cfg.profile = p;
    sim_cfg.graph_ext_version = p->graph_ext_version;
    sim_cfg.compiler_version = p->compiler_version;
}

uint32_t sim_driver_release(void)
{
    const sim_profile *p = sim_cfg.profile != NULL ? sim_cfg.profile : sim_profile_current();
    unsigned major = 0, minor = 0;
    if (sscanf(p->driver_release, "v%u.%u", &major, &minor) != 2)
        return 0;
    return SIM_RELEASE(major, minor);
}

void sim_count_import(void)
{
    atomic_fetch_add(&import_count, 1);
}

void sim_count_cache(int hit)
{
    atomic_fetch_add(hit ? &cache_hit_count : &cache_store_count, 1);
}

void sim_live_add(npu_sim_handle_kind kind, int delta)
{
    atomic_fetch_add(&live_handles[kind], delta);
}

void sim_count_submit(uint32_t lists)
{
    atomic_fetch_add(&submit_count, 1);
    atomic_fetch_add(&submitted_list_count, lists);
}

void sim_count_graph_execute(void)
{
    atomic_fetch_add(&graph_execute_count, 1);
}

/* ---- fault injection ----------------------------------------------------- */
/* Two independent slots: "any entry point" and "entry point named X". Each
 * counts down matching calls; the call that reaches zero fails and disarms. */
typedef struct fault_slot {
    uint64_t remaining;   /* 0 = disarmed */
    ze_result_t error;
    char name[64];
} fault_slot;

static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;
static fault_slot fault_any, fault_named;
static atomic_int fault_armed; /* fast path: any slot armed */

static void fault_update_armed(void)
{
    atomic_store(&fault_armed, fault_any.remaining != 0 || fault_named.remaining != 0);
}

static void ext_set_fault(uint64_t nth_call, ze_result_t error)
{
    pthread_mutex_lock(&fault_lock);
    fault_any.remaining = nth_call;
    fault_any.error = error;
    fault_update_armed();
    pthread_mutex_unlock(&fault_lock);
}

static void ext_set_fault_by_name(const char *name, uint64_t nth_call, ze_result_t error)
{
    pthread_mutex_lock(&fault_lock);
    if (name == NULL || strlen(name) >= sizeof(fault_named.name))
        nth_call = 0;
    fault_named.remaining = nth_call;
    fault_named.error = error;
    if (nth_call != 0)
        snprintf(fault_named.name, sizeof(fault_named.name), "%s", name);
    fault_update_armed();
    pthread_mutex_unlock(&fault_lock);
}

void sim_trace(const char *fmt, ...)
{
    if (!sim_cfg.trace)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "npu-sim: %s\n", line);
}

ze_result_t sim_enter(const char *name)
{
    atomic_fetch_add(&call_count, 1);
    ze_result_t rc = ZE_RESULT_SUCCESS;
    if (atomic_load(&fault_armed)) {
        pthread_mutex_lock(&fault_lock);
        if (fault_named.remaining != 0 && strcmp(fault_named.name, name) == 0 &&
            --fault_named.remaining == 0)
            rc = fault_named.error;
        if (rc == ZE_RESULT_SUCCESS && fault_any.remaining != 0 && --fault_any.remaining == 0)
            rc = fault_any.error;
        fault_update_armed();
        pthread_mutex_unlock(&fault_lock);
    }
    if (sim_cfg.trace) {
        if (rc != ZE_RESULT_SUCCESS)
            sim_trace("%s -> injected fault 0x%x", name, (unsigned)rc);
        else
            sim_trace("%s", name);
    }
    return rc;
}

/* ---- the test extension ---------------------------------------------------- */
static uint64_t ext_get_call_count(void)
{
    return atomic_load(&call_count);
}

static uint64_t ext_get_live_handles(npu_sim_handle_kind kind)
{
    if ((unsigned)kind >= NPU_SIM_HANDLE_KIND_COUNT)
        return 0;
    int64_t n = atomic_load(&live_handles[kind]);
    return n < 0 ? 0 : (uint64_t)n;
}

static uint64_t ext_get_submit_count(void)
{
    return atomic_load(&submit_count);
}

static uint64_t ext_get_submitted_list_count(void)
{
    return atomic_load(&submitted_list_count);
}

static uint64_t ext_get_graph_execute_count(void)
{
    return atomic_load(&graph_execute_count);
}

static void ext_reset_counters(void)
{
    atomic_store(&call_count, 0);
    atomic_store(&submit_count, 0);
    atomic_store(&submitted_list_count, 0);
    atomic_store(&graph_execute_count, 0);
    atomic_store(&import_count, 0);
    atomic_store(&cache_hit_count, 0);
    atomic_store(&cache_store_count, 0);
}

static uint64_t ext_get_import_count(void)
{
    return atomic_load(&import_count);
}

static uint64_t ext_get_cache_hit_count(void)
{
    return atomic_load(&cache_hit_count);
}

static uint64_t ext_get_cache_store_count(void)
{
    return atomic_load(&cache_store_count);
}

static const char *ext_get_profile_name(void)
{
    return sim_cfg.profile != NULL ? sim_cfg.profile->name : sim_profile_current()->name;
}

static void ext_set_skip_math(int skip)
{
    atomic_store(&sim_skip_math, skip != 0);
}

static const npu_sim_test_ext_t test_ext = {
    .pfnSetFault = ext_set_fault,
    .pfnSetFaultByName = ext_set_fault_by_name,
    .pfnGetCallCount = ext_get_call_count,
    .pfnGetLiveHandles = ext_get_live_handles,
    .pfnGetSubmitCount = ext_get_submit_count,
    .pfnGetSubmittedListCount = ext_get_submitted_list_count,
    .pfnGetGraphExecuteCount = ext_get_graph_execute_count,
    .pfnResetCounters = ext_reset_counters,
    .pfnSetSkipMath = ext_set_skip_math,
    .pfnGetImportCount = ext_get_import_count,
    .pfnGetCacheHitCount = ext_get_cache_hit_count,
    .pfnGetCacheStoreCount = ext_get_cache_store_count,
    .pfnGetProfileName = ext_get_profile_name,
    .pfnGetTurboQueueCount = t_GetTurboQueueCount,
    .pfnGetBackgroundQueueCount = t_GetBackgroundQueueCount,
    .pfnGetIdleOptimizedContextCount = t_GetIdleOptimizedContextCount,
};

const npu_sim_test_ext_t *sim_test_ext_table(void)
{
    return &test_ext;
}

/* ---- handle translation ---------------------------------------------------- */
typedef ze_result_t (*translate_fn)(zel_handle_type_t, void *, void **);
static translate_fn loader_translate;
static pthread_once_t translate_once = PTHREAD_ONCE_INIT;

static void find_loader_translate(void)
{
    /* The loader that loaded us is already in the process: do not load another. */
    void *loader = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (loader == NULL)
        return;
    loader_translate = (translate_fn)(uintptr_t)dlsym(loader, "zelLoaderTranslateHandle");
    /* RTLD_NOLOAD took a reference; the loader stays loaded while we run anyway. */
    dlclose(loader);
}

void *sim_translate(int zel_type, void *handle, uint32_t magic)
{
    if (handle == NULL)
        return NULL;
    pthread_once(&translate_once, find_loader_translate);
    void *raw = handle;
    /* An object of ours passes as it is: the loader only wraps in intercept mode,
     * and then a raw handle never reaches us. Checking first also keeps a wrapped
     * handle from being mistaken: wrappers start with a pointer, never a magic. */
    if (*(const uint32_t *)handle != magic && loader_translate != NULL) {
        void *out = NULL;
        if (loader_translate((zel_handle_type_t)zel_type, handle, &out) == ZE_RESULT_SUCCESS &&
            out != NULL)
            raw = out;
    }
    if (*(const uint32_t *)raw != magic)
        return NULL;
    return raw;
}

/* ---- time ------------------------------------------------------------------ */
uint64_t sim_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t sim_total_ram(void)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 8ull << 30;
    return (uint64_t)pages * (uint64_t)page;
}
