/* driver.c - the software NPU's Level Zero core API: init, driver, device,
 * context, memory, events, fences, command lists and command queues, plus 52 of
 * the 53 Get*ProcAddrTable getters the loader calls (the only symbols the
 * library exports; see l0-driver-contract.md). The driver table's getter is in
 * extensions.c, which adds the extension entries to sim_driver_core_table.
 *
 * Data flow: the application records commands into a command list (memory
 * copy/fill, barriers, timestamps, events here; graph initialize/execute from
 * graph_ext.c); zeCommandQueueExecuteCommandLists hands the closed lists to the
 * queue's worker thread, which runs them in order and then signals the fence.
 * A command carries its own run and release callbacks (sim_cmd), so this file
 * runs and frees graph commands without knowing graphs: it calls hooks.c,
 * profile.c and disk_cache.c, never graph_ext.c or extensions.c. Events and
 * fences share one mutex/condition variable (sync_lock/sync_cv); every queue
 * has its own for the job list.
 *
 * Every entry point begins with SIM_ENTER (hooks.c): counting, fault injection,
 * tracing. Core handles arrive raw (the loader unwraps them); each object's first
 * word is a magic that is checked on every call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <ze_ddi.h>
#include <zes_ddi.h>
#include <zet_ddi.h>
#include <loader/ze_loader.h>

#include "sim/sim_internal.h"

#define SIM_PAGE 4096u
#define SIM_MAX_FILL_PATTERN 128u

/* ---- objects ---------------------------------------------------------------- */
typedef struct sim_driver {
    uint32_t magic;
} sim_driver;

struct sim_device {
    uint32_t magic;
};

struct sim_fence {
    uint32_t magic;
    sim_queue *queue;
    atomic_int signaled;
};

struct sim_event_pool {
    uint32_t magic;
    sim_context *ctx;
    uint32_t count;
    ze_event_pool_flags_t flags;
};

typedef struct sim_job {
    struct sim_job *next;
    uint64_t ticket;
    uint32_t list_count;
    sim_cmdlist **lists;
    sim_fence *fence;
    sim_cmd *single;          /* immediate command list: one owned command */
} sim_job;

struct sim_queue {
    uint32_t magic;
    sim_context *ctx;
    ze_command_queue_mode_t mode;
    int internal;             /* belongs to an immediate command list */
    int turbo;                /* what zeCommandQueueCreate made of the desc's pNext */
    uint32_t workload;        /* pfnSetWorkloadType: 0 DEFAULT, 1 BACKGROUND */
    pthread_mutex_t lock;
    pthread_cond_t cv;
    sim_job *head, *tail;
    uint64_t submitted, completed;
    atomic_int stop;
    pthread_t thread;
};

static sim_driver the_driver = {SIM_MAGIC_DRIVER};
static sim_device the_device = {SIM_MAGIC_DEVICE};
static atomic_int initialized;

sim_device *sim_the_device(void)
{
    return &the_device;
}

#define AS(type, magic_value, handle) \
    ((handle) != NULL && *(const uint32_t *)(const void *)(handle) == (magic_value) ? (type *)(void *)(handle) : NULL)

/* ---- condition variables on CLOCK_MONOTONIC ------------------------------- */
static pthread_mutex_t sync_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sync_cv;
static pthread_once_t sync_once = PTHREAD_ONCE_INIT;

static void cond_init_monotonic(pthread_cond_t *cv)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &attr);
    pthread_condattr_destroy(&attr);
}

static void sync_init(void)
{
    cond_init_monotonic(&sync_cv);
}

/* Deadline for a Level Zero timeout: UINT64_MAX waits forever (returns 0). */
static uint64_t deadline_after(uint64_t timeout_ns)
{
    if (timeout_ns == UINT64_MAX)
        return 0;
    uint64_t now = sim_now_ns();
    return timeout_ns > UINT64_MAX - now - 1 ? 0 : now + timeout_ns;
}

/* Waits on cv until woken or the deadline passes. Returns 0 on timeout. */
static int cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *m, uint64_t deadline)
{
    if (deadline == 0) {
        pthread_cond_wait(cv, m);
        return 1;
    }
    if (sim_now_ns() >= deadline)
        return 0;
    struct timespec ts = {(time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull)};
    return pthread_cond_timedwait(cv, m, &ts) != ETIMEDOUT || sim_now_ns() < deadline;
}

static void event_set(sim_event *e, int value)
{
    pthread_once(&sync_once, sync_init);
    pthread_mutex_lock(&sync_lock);
    atomic_store(&e->signaled, value);
    if (value)
        pthread_cond_broadcast(&sync_cv);
    pthread_mutex_unlock(&sync_lock);
}

static void fence_signal(sim_fence *f)
{
    pthread_once(&sync_once, sync_init);
    pthread_mutex_lock(&sync_lock);
    atomic_store(&f->signaled, 1);
    pthread_cond_broadcast(&sync_cv);
    pthread_mutex_unlock(&sync_lock);
}

/* Host wait on a flag guarded by sync_lock: SUCCESS, or NOT_READY on expiry. */
static ze_result_t host_wait_flag(atomic_int *flag, uint64_t timeout_ns)
{
    if (atomic_load(flag))
        return ZE_RESULT_SUCCESS;
    if (timeout_ns == 0)
        return ZE_RESULT_NOT_READY;
    pthread_once(&sync_once, sync_init);
    uint64_t deadline = deadline_after(timeout_ns);
    ze_result_t rc = ZE_RESULT_SUCCESS;
    pthread_mutex_lock(&sync_lock);
    while (!atomic_load(flag)) {
        if (!cond_wait_until(&sync_cv, &sync_lock, deadline)) {
            rc = atomic_load(flag) ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
            break;
        }
    }
    pthread_mutex_unlock(&sync_lock);
    return rc;
}

/* ---- configuration -------------------------------------------------------------- */
static int parse_major_minor(const char *s, unsigned *major, unsigned *minor)
{
    char *end = NULL;
    errno = 0;
    unsigned long a = strtoul(s, &end, 10);
    if (errno || end == s || *end != '.')
        return 0;
    const char *p = end + 1;
    unsigned long b = strtoul(p, &end, 10);
    if (errno || end == p || *end != '\0' || a > 0xffff || b > 0xffff)
        return 0;
    *major = (unsigned)a;
    *minor = (unsigned)b;
    return 1;
}

static void read_config(void)
{
    const char *v = getenv("NPU_SIM_TRACE");
    sim_cfg.trace = v != NULL && strcmp(v, "1") == 0;

    /* The release profile first: every default below comes from it. */
    const sim_profile *prof = NULL;
    v = getenv("NPU_SIM_PROFILE");
    if (v != NULL && *v) {
        prof = sim_profile_find(v);
        if (prof == NULL)
            fprintf(stderr,
                    "npu-sim: NPU_SIM_PROFILE=%s is not 2024, 2025, 2026 or a driver tag "
                    "(1.10.0, 1.19.0, 1.32.1); using %s\n",
                    v, sim_profile_current()->name);
    }
    sim_config_apply_profile(prof);

    v = getenv("NPU_SIM_PLATFORM");
    if (v != NULL && *v) {
        if (strcmp(v, "3720") == 0) {
            sim_cfg.platform = 3720;
            sim_cfg.device_id = 0x7D1D;
        } else if (strcmp(v, "4000") == 0) {
            sim_cfg.platform = 4000;
            sim_cfg.device_id = 0x643E;
        } else if (strcmp(v, "5010") == 0) {
            sim_cfg.platform = 5010;
            sim_cfg.device_id = 0xB03E;
        } else {
            fprintf(stderr, "npu-sim: NPU_SIM_PLATFORM=%s is not 3720, 4000 or 5010; using 3720\n", v);
        }
    }

    unsigned major, minor;
    v = getenv("NPU_SIM_GRAPH_EXT_VERSION");
    if (v != NULL && *v) {
        if (parse_major_minor(v, &major, &minor) && major == 1 && minor <= 18)
            sim_cfg.graph_ext_version = ZE_MAKE_VERSION(1, minor);
        else
            fprintf(stderr, "npu-sim: NPU_SIM_GRAPH_EXT_VERSION=%s is not 1.0..1.18; using %u.%u\n", v,
                    ZE_MAJOR_VERSION(sim_cfg.graph_ext_version), ZE_MINOR_VERSION(sim_cfg.graph_ext_version));
    }

    v = getenv("NPU_SIM_COMPILER_VERSION");
    if (v != NULL && *v) {
        if (parse_major_minor(v, &major, &minor))
            sim_cfg.compiler_version = (major << 16) | minor;
        else
            fprintf(stderr, "npu-sim: NPU_SIM_COMPILER_VERSION=%s is not major.minor; ignored\n", v);
    }

    v = getenv("NPU_SIM_NO_WEIGHTS_COPY");
    sim_cfg.no_weights_copy = !(v != NULL && strcmp(v, "0") == 0);

    v = getenv("NPU_SIM_HIDE_EXT");
    snprintf(sim_cfg.hide_ext, sizeof sim_cfg.hide_ext, "%s", v != NULL ? v : "");
    v = getenv("NPU_SIM_DMA_BUF");
    sim_cfg.dma_buf = SIM_DMA_BUF_ON;
    if (v != NULL && *v) {
        if (strcmp(v, "0") == 0)
            sim_cfg.dma_buf = SIM_DMA_BUF_OFF;
        else if (strcmp(v, "noprime") == 0)
            sim_cfg.dma_buf = SIM_DMA_BUF_NO_PRIME;
        else if (strcmp(v, "1") != 0)
            fprintf(stderr, "npu-sim: NPU_SIM_DMA_BUF=%s is not 1, 0 or noprime; using 1\n", v);
    }

    v = getenv("NPU_SIM_SKIP_MATH");
    if (v != NULL && strcmp(v, "1") == 0)
        atomic_store(&sim_skip_math, 1);

    /* The real driver sets its disk cache up when it initialises. */
    sim_cache_init();
}

static pthread_once_t config_once = PTHREAD_ONCE_INIT;

/* ---- global --------------------------------------------------------------------- */
static ze_result_t sim_zeInit(ze_init_flags_t flags)
{
    pthread_once(&config_once, read_config);
    sim_trace("zeInit(0x%x)", (unsigned)flags);
    if (flags & ~(ze_init_flags_t)(ZE_INIT_FLAG_GPU_ONLY | ZE_INIT_FLAG_VPU_ONLY))
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (flags != 0 && !(flags & ZE_INIT_FLAG_VPU_ONLY))
        return ZE_RESULT_ERROR_UNINITIALIZED;
    pthread_once(&sync_once, sync_init);
    atomic_store(&initialized, 1);
    return ZE_RESULT_SUCCESS;
}

/* ---- driver ---------------------------------------------------------------------- */
static ze_result_t sim_zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers)
{
    SIM_ENTER("zeDriverGet");
    if (!atomic_load(&initialized))
        return ZE_RESULT_ERROR_UNINITIALIZED;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || phDrivers == NULL) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    phDrivers[0] = (ze_driver_handle_t)&the_driver;
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
}

static sim_driver *driver_of(ze_driver_handle_t h)
{
    return atomic_load(&initialized) ? AS(sim_driver, SIM_MAGIC_DRIVER, h) : NULL;
}

int sim_driver_valid(ze_driver_handle_t h)
{
    return driver_of(h) != NULL;
}

static ze_result_t sim_zeDriverGetApiVersion(ze_driver_handle_t hDriver, ze_api_version_t *version)
{
    SIM_ENTER("zeDriverGetApiVersion");
    if (driver_of(hDriver) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (version == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *version = (ze_api_version_t)SIM_PROFILE()->api_version;
    return ZE_RESULT_SUCCESS;
}

/* The sim's own driver UUID: it does not pose as Intel's NPU driver. */
static const uint8_t sim_driver_uuid[ZE_MAX_DRIVER_UUID_SIZE] = {
    'n', 'p', 'u', '-', 's', 'i', 'm', '-', 'd', 'r', 'i', 'v', 'e', 'r', '0', '1'};
static const uint8_t sim_device_uuid[ZE_MAX_DEVICE_UUID_SIZE] = {
    'n', 'p', 'u', '-', 's', 'i', 'm', '-', 'd', 'e', 'v', 'i', 'c', 'e', '0', '1'};

static ze_result_t sim_zeDriverGetProperties(ze_driver_handle_t hDriver, ze_driver_properties_t *p)
{
    SIM_ENTER("zeDriverGetProperties");
    if (driver_of(hDriver) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    memcpy(p->uuid.id, sim_driver_uuid, sizeof(p->uuid.id));
    p->driverVersion = SIM_PROFILE()->driver_version;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeDriverGetIpcProperties(ze_driver_handle_t hDriver, ze_driver_ipc_properties_t *p)
{
    SIM_ENTER("zeDriverGetIpcProperties");
    if (driver_of(hDriver) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->flags = 0;
    return ZE_RESULT_SUCCESS;
}

/* ---- device ------------------------------------------------------------------------ */
static sim_device *device_of(ze_device_handle_t h)
{
    return AS(sim_device, SIM_MAGIC_DEVICE, h);
}

static ze_result_t sim_zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount, ze_device_handle_t *phDevices)
{
    SIM_ENTER("zeDeviceGet");
    if (driver_of(hDriver) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || phDevices == NULL) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    phDevices[0] = (ze_device_handle_t)&the_device;
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeDeviceGetSubDevices(ze_device_handle_t hDevice, uint32_t *pCount,
                                             ze_device_handle_t *phSubdevices)
{
    SIM_ENTER("zeDeviceGetSubDevices");
    (void)phSubdevices;
    if (device_of(hDevice) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *pCount = 0;
    return ZE_RESULT_SUCCESS;
}

/* Per-platform numbers (ze-graph-ext.md §6). */
static uint32_t platform_eus_per_subslice(void)
{
    return sim_cfg.platform == 3720 ? 4096u : 12288u;
}

static ze_result_t sim_zeDeviceGetProperties(ze_device_handle_t hDevice, ze_device_properties_t *p)
{
    SIM_ENTER("zeDeviceGetProperties");
    if (device_of(hDevice) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* Field by field: the caller's stype and pNext stay as they are. */
    p->type = ZE_DEVICE_TYPE_VPU;
    p->vendorId = 0x8086;
    p->deviceId = sim_cfg.device_id;
    p->flags = ZE_DEVICE_PROPERTY_FLAG_INTEGRATED;
    p->subdeviceId = 0;
    p->coreClockRate = 1400;
    p->maxMemAllocSize = sim_total_ram();
    p->maxHardwareContexts = 1;
    p->maxCommandQueuePriority = 2;
    p->numThreadsPerEU = 1;
    p->physicalEUSimdWidth = sim_cfg.platform == 5010 ? 8192u : 4096u;
    p->numEUsPerSubslice = platform_eus_per_subslice();
    p->numSubslicesPerSlice = 1;
    p->numSlices = sim_cfg.platform == 3720 ? 2u : 6u;
    /* Timestamps are CLOCK_MONOTONIC nanoseconds: 1 ns per tick, 1e9 ticks/s. */
    p->timerResolution = p->stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 ? 1000000000ull : 1ull;
    p->timestampValidBits = 64;
    p->kernelTimestampValidBits = 0;
    memcpy(p->uuid.id, sim_device_uuid, sizeof(p->uuid.id));
    snprintf(p->name, sizeof(p->name), "npu-sim AI Boost (software)");
    for (ze_base_properties_t *ext = (ze_base_properties_t *)p->pNext; ext != NULL;
         ext = (ze_base_properties_t *)ext->pNext) {
        if ((uint32_t)ext->stype == ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT)
            ((ze_device_ip_version_ext_t *)(void *)ext)->ipVersion = 0; /* KMD platform type: silicon */
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeDeviceGetComputeProperties(ze_device_handle_t hDevice, ze_device_compute_properties_t *p)
{
    SIM_ENTER("zeDeviceGetComputeProperties");
    if (device_of(hDevice) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->maxTotalGroupSize = 1;
    p->maxGroupSizeX = p->maxGroupSizeY = p->maxGroupSizeZ = 1;
    p->maxGroupCountX = p->maxGroupCountY = p->maxGroupCountZ = 1;
    p->maxSharedLocalMemory = 0;
    p->numSubGroupSizes = 0;
    memset(p->subGroupSizes, 0, sizeof(p->subGroupSizes));
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeDeviceGetCommandQueueGroupProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                                              ze_command_queue_group_properties_t *props)
{
    SIM_ENTER("zeDeviceGetCommandQueueGroupProperties");
    if (device_of(hDevice) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || props == NULL) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    props[0].flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
    props[0].maxMemoryFillPatternSize = SIM_MAX_FILL_PATTERN;
    props[0].numQueues = 1;
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeDeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                                   ze_device_memory_properties_t *props)
{
    SIM_ENTER("zeDeviceGetMemoryProperties");
    if (device_of(hDevice) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || props == NULL) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    props[0].flags = 0;
    props[0].maxClockRate = 0;
    props[0].maxBusWidth = 0;
    props[0].totalSize = sim_total_ram();
    snprintf(props[0].name, sizeof(props[0].name), "DDR");
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeDeviceGetMemoryAccessProperties(ze_device_handle_t hDevice,
                                                         ze_device_memory_access_properties_t *p)
{
    SIM_ENTER("zeDeviceGetMemoryAccessProperties");
    if (device_of(hDevice) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->hostAllocCapabilities = ZE_MEMORY_ACCESS_CAP_FLAG_RW;
    p->deviceAllocCapabilities = ZE_MEMORY_ACCESS_CAP_FLAG_RW;
    p->sharedSingleDeviceAllocCapabilities = ZE_MEMORY_ACCESS_CAP_FLAG_RW;
    p->sharedCrossDeviceAllocCapabilities = 0;
    p->sharedSystemAllocCapabilities = 0;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeDeviceGetCacheProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                                  ze_device_cache_properties_t *props)
{
    SIM_ENTER("zeDeviceGetCacheProperties");
    (void)props;
    if (device_of(hDevice) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *pCount = 0;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeDeviceGetExternalMemoryProperties(ze_device_handle_t hDevice,
                                                           ze_device_external_memory_properties_t *p)
{
    SIM_ENTER("zeDeviceGetExternalMemoryProperties");
    if (device_of(hDevice) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* Device::getGetExternalMemoryProperties: dma-buf both ways in every release
     * (the sim imports, it does not export), whether or not the kernel driver
     * can import (that is only checked at the import), plus STANDARD_ALLOCATION
     * import (v1.32) when the driver can import caller pages.
     * NPU_SIM_DMA_BUF=0 stands for a driver that offers no dma-buf at all. */
    uint32_t import_types = sim_cfg.dma_buf == SIM_DMA_BUF_OFF ? 0u : (uint32_t)ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF;
    if (SIM_PROFILE()->memmap_import_stype != 0)
        import_types |= ZE_EXTERNAL_MEMORY_TYPE_FLAG_STANDARD_ALLOCATION;
    p->memoryAllocationImportTypes = (ze_external_memory_type_flags_t)import_types;
    p->memoryAllocationExportTypes = (ze_external_memory_type_flags_t)(sim_cfg.dma_buf == SIM_DMA_BUF_OFF
                                                                           ? 0u
                                                                           : ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF);
    p->imageImportTypes = 0;
    p->imageExportTypes = 0;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeDeviceCanAccessPeer(ze_device_handle_t hDevice, ze_device_handle_t hPeer, ze_bool_t *value)
{
    SIM_ENTER("zeDeviceCanAccessPeer");
    if (device_of(hDevice) == NULL || device_of(hPeer) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (value == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *value = 1;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeDeviceGetStatus(ze_device_handle_t hDevice)
{
    SIM_ENTER("zeDeviceGetStatus");
    return device_of(hDevice) == NULL ? ZE_RESULT_ERROR_INVALID_NULL_HANDLE : ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeDeviceGetGlobalTimestamps(ze_device_handle_t hDevice, uint64_t *host, uint64_t *device)
{
    SIM_ENTER("zeDeviceGetGlobalTimestamps");
    if (device_of(hDevice) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (host == NULL || device == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *host = *device = sim_now_ns();
    return ZE_RESULT_SUCCESS;
}

/* ---- context and memory ------------------------------------------------------------ */
static sim_context *context_of(ze_context_handle_t h)
{
    return AS(sim_context, SIM_MAGIC_CONTEXT, h);
}

static ze_result_t context_create(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
                                  ze_context_handle_t *phContext)
{
    if (driver_of(hDriver) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phContext == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    sim_context *ctx = calloc(1, sizeof(*ctx));
    if (ctx == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    ctx->magic = SIM_MAGIC_CONTEXT;
    pthread_mutex_init(&ctx->lock, NULL);
    sim_live_add(NPU_SIM_HANDLE_CONTEXT, 1);
    *phContext = (ze_context_handle_t)ctx;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
                                       ze_context_handle_t *phContext)
{
    SIM_ENTER("zeContextCreate");
    return context_create(hDriver, desc, phContext);
}

static ze_result_t sim_zeContextCreateEx(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
                                         uint32_t numDevices, ze_device_handle_t *phDevices,
                                         ze_context_handle_t *phContext)
{
    SIM_ENTER("zeContextCreateEx");
    if (numDevices > 0 && phDevices == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < numDevices; i++)
        if (device_of(phDevices[i]) == NULL)
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return context_create(hDriver, desc, phContext);
}

static ze_result_t sim_zeContextDestroy(ze_context_handle_t hContext)
{
    SIM_ENTER("zeContextDestroy");
    sim_context *ctx = context_of(hContext);
    if (ctx == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* Allocations the application forgot are released here, but they stay
     * counted as live memory handles so that tests see the leak. */
    if (ctx->alloc_count != 0)
        sim_trace("zeContextDestroy: %zu allocation(s) were never freed", ctx->alloc_count);
    for (size_t i = 0; i < ctx->alloc_count; i++) {
        if (ctx->allocs[i].imported == SIM_ALLOC_OWN)
            free((void *)ctx->allocs[i].base);
        else if (ctx->allocs[i].imported == SIM_ALLOC_DMA_BUF)
            munmap((void *)ctx->allocs[i].base, ctx->allocs[i].size);
    }
    free(ctx->allocs);
    sim_count_idle_context(-ctx->idle_optimizations);
    pthread_mutex_destroy(&ctx->lock);
    ctx->magic = SIM_MAGIC_DEAD;
    free(ctx);
    sim_live_add(NPU_SIM_HANDLE_CONTEXT, -1);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeContextGetStatus(ze_context_handle_t hContext)
{
    SIM_ENTER("zeContextGetStatus");
    return context_of(hContext) == NULL ? ZE_RESULT_ERROR_INVALID_NULL_HANDLE : ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeContextMakeMemoryResident(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                   void *ptr, size_t size)
{
    SIM_ENTER("zeContextMakeMemoryResident");
    sim_context *ctx = context_of(hContext);
    if (ctx == NULL || device_of(hDevice) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return sim_context_holds(ctx, ptr, size) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

static ze_result_t sim_zeContextEvictMemory(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                            void *ptr, size_t size)
{
    SIM_ENTER("zeContextEvictMemory");
    sim_context *ctx = context_of(hContext);
    if (ctx == NULL || device_of(hDevice) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return sim_context_holds(ctx, ptr, size) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

/* Index of the allocation holding p, or -1. Caller holds ctx->lock. */
static ptrdiff_t find_alloc_locked(sim_context *ctx, uintptr_t p)
{
    size_t lo = 0, hi = ctx->alloc_count;
    while (lo < hi) { /* first allocation with base > p */
        size_t mid = lo + (hi - lo) / 2;
        if (ctx->allocs[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    const sim_alloc *a = &ctx->allocs[lo - 1];
    /* A zero-offset pointer always matches; otherwise it must be inside. */
    if (p == a->base || p - a->base < a->size)
        return (ptrdiff_t)(lo - 1);
    return -1;
}

int sim_context_holds(sim_context *ctx, const void *ptr, size_t bytes)
{
    if (ctx == NULL || ptr == NULL)
        return 0;
    uintptr_t p = (uintptr_t)ptr;
    pthread_mutex_lock(&ctx->lock);
    ptrdiff_t i = find_alloc_locked(ctx, p);
    int ok = i >= 0 && ctx->allocs[i].size - (p - ctx->allocs[i].base) >= bytes;
    pthread_mutex_unlock(&ctx->lock);
    return ok;
}

uint64_t sim_context_allocated(sim_context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    uint64_t n = ctx->allocated_bytes;
    pthread_mutex_unlock(&ctx->lock);
    return n;
}

static atomic_uint_fast64_t next_alloc_id;

/* Records [base, base + size). Fails on overlap with an existing allocation. */
static ze_result_t track_alloc(sim_context *ctx, void *base, size_t size, ze_memory_type_t type, int imported)
{
    uintptr_t b = (uintptr_t)base;
    ze_result_t rc = ZE_RESULT_SUCCESS;
    pthread_mutex_lock(&ctx->lock);
    size_t pos = 0;
    while (pos < ctx->alloc_count && ctx->allocs[pos].base < b)
        pos++;
    if ((pos > 0 && ctx->allocs[pos - 1].base + ctx->allocs[pos - 1].size > b) ||
        (pos < ctx->alloc_count && ctx->allocs[pos].base < b + size)) {
        rc = ZE_RESULT_ERROR_INVALID_ARGUMENT;
        goto out;
    }
    if (ctx->alloc_count == ctx->alloc_cap) {
        size_t cap = ctx->alloc_cap ? ctx->alloc_cap * 2 : 16;
        sim_alloc *grown = realloc(ctx->allocs, cap * sizeof(*grown));
        if (grown == NULL) {
            rc = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
            goto out;
        }
        ctx->allocs = grown;
        ctx->alloc_cap = cap;
    }
    memmove(&ctx->allocs[pos + 1], &ctx->allocs[pos], (ctx->alloc_count - pos) * sizeof(sim_alloc));
    ctx->allocs[pos] = (sim_alloc){b, size, type, imported, atomic_fetch_add(&next_alloc_id, 1) + 1};
    ctx->alloc_count++;
    if (!imported)
        ctx->allocated_bytes += size;
out:
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

/* As the real zeMemAllocHost: only the FIRST struct of pNext is looked at, and
 * only the profile's import stype (v1.32: EXTERNAL_MEMMAP_SYSMEM_EXT_DESC
 * 0x00020037) imports; v1.10/v1.19 have no host-pointer import at all. Any other
 * struct falls through to a fresh allocation. */
static const ze_external_memory_import_system_memory_t *find_import(const void *pNext)
{
    const ze_base_desc_t *d = pNext;
    uint32_t stype = SIM_PROFILE()->memmap_import_stype;
    if (d == NULL || stype == 0 || (uint32_t)d->stype != stype)
        return NULL;
    return (const ze_external_memory_import_system_memory_t *)(const void *)d;
}

/* ze_external_memory_import_fd_t with DMA_BUF (api/ze_memory.cpp, every
 * release): Context::importMemory refuses it with UNSUPPORTED_FEATURE when the
 * kernel driver has no PRIME import; otherwise DRM_IOCTL_PRIME_FD_TO_HANDLE
 * turns the fd into a buffer object, whose size is the dma-buf's, and the
 * driver maps all of it (VPUBufferObject::importFromFd). Any failure there is
 * OUT_OF_DEVICE_MEMORY. The size and alignment arguments are not looked at,
 * and the fd stays the caller's. The sim stands any mappable fd (a memfd, a
 * regular file) for a dma-buf: fstat gives the size, mmap shared read-write
 * the mapping; an fd that is closed, empty, read-only or not mappable (a pipe,
 * a socket) fails as the ioctl would. */
static ze_result_t import_fd(sim_context *ctx, const ze_external_memory_import_fd_t *imp, ze_memory_type_t type,
                             void **pptr)
{
    if (sim_cfg.dma_buf != SIM_DMA_BUF_ON)
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    if (pptr == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    struct stat st;
    if (imp->fd < 0 || fstat(imp->fd, &st) != 0 || st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX)
        return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    size_t size = (size_t)st.st_size;
    void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, imp->fd, 0);
    if (map == MAP_FAILED)
        return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    ze_result_t rc = track_alloc(ctx, map, size, type, SIM_ALLOC_DMA_BUF);
    if (rc != ZE_RESULT_SUCCESS) {
        munmap(map, size);
        return rc;
    }
    sim_live_add(NPU_SIM_HANDLE_MEMORY, 1);
    sim_count_import();
    *pptr = map;
    return ZE_RESULT_SUCCESS;
}

/* The first struct of the allocation's pNext chain, as zeMemAlloc{Host,Device,
 * Shared} read it: an fd import (flags exactly DMA_BUF, else
 * INVALID_ENUMERATION), else NULL. A misaligned pNext is INVALID_NULL_POINTER
 * (checkPtrAlignment). */
static ze_result_t find_fd_import(const void *pNext, const ze_external_memory_import_fd_t **out)
{
    *out = NULL;
    if (pNext == NULL)
        return ZE_RESULT_SUCCESS;
    if ((uintptr_t)pNext % _Alignof(ze_structure_type_t) != 0)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const ze_base_desc_t *d = pNext;
    if (d->stype != ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_FD)
        return ZE_RESULT_SUCCESS;
    const ze_external_memory_import_fd_t *imp = pNext;
    if (imp->flags != ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    *out = imp;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t mem_alloc(sim_context *ctx, size_t size, size_t alignment, ze_memory_type_t type,
                             const void *pNext, void **pptr)
{
    const ze_external_memory_import_fd_t *fd_imp;
    ze_result_t frc = find_fd_import(pNext, &fd_imp);
    if (frc != ZE_RESULT_SUCCESS)
        return frc;
    if (fd_imp != NULL)
        return import_fd(ctx, fd_imp, type, pptr);
    if (pptr == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const ze_external_memory_import_system_memory_t *imp =
        type == ZE_MEMORY_TYPE_HOST ? find_import(pNext) : NULL;
    if (imp != NULL) {
        /* Context::importUserPtr (source/memory.cpp @v1.32.1): NULL pointer, then
         * size 0, then an already tracked pointer; the kernel's userptr import
         * refuses unaligned ranges, which the driver reports as out of device
         * memory (the page-alignment rule itself is the sim's assumption). */
        uintptr_t p = (uintptr_t)imp->pSystemMemory;
        if (p == 0)
            return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
        if (imp->size == 0)
            return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
        if (p % SIM_PAGE != 0 || imp->size % SIM_PAGE != 0)
            return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
        ze_result_t rc = track_alloc(ctx, imp->pSystemMemory, (size_t)imp->size, type, SIM_ALLOC_USER_PAGES);
        if (rc != ZE_RESULT_SUCCESS)
            return rc;
        sim_live_add(NPU_SIM_HANDLE_MEMORY, 1);
        sim_count_import();
        *pptr = imp->pSystemMemory;
        return ZE_RESULT_SUCCESS;
    }
    if (size == 0 || size > sim_total_ram())
        return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    if (alignment & (alignment - 1))
        return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    size_t align = alignment > SIM_PAGE ? alignment : SIM_PAGE;
    void *mem = NULL;
    if (posix_memalign(&mem, align, size) != 0)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    /* The real driver's buffer objects are fresh kernel pages, i.e. zeros; a graph
     * run on never-written inputs must then read zeros, not heap garbage. */
    memset(mem, 0, size);
    ze_result_t rc = track_alloc(ctx, mem, size, type, SIM_ALLOC_OWN);
    if (rc != ZE_RESULT_SUCCESS) {
        free(mem);
        return rc;
    }
    sim_live_add(NPU_SIM_HANDLE_MEMORY, 1);
    *pptr = mem;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeMemAllocHost(ze_context_handle_t hContext, const ze_host_mem_alloc_desc_t *desc,
                                      size_t size, size_t alignment, void **pptr)
{
    SIM_ENTER("zeMemAllocHost");
    sim_context *ctx = context_of(hContext);
    if (ctx == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return mem_alloc(ctx, size, alignment, ZE_MEMORY_TYPE_HOST, desc->pNext, pptr);
}

static ze_result_t sim_zeMemAllocDevice(ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t *desc,
                                        size_t size, size_t alignment, ze_device_handle_t hDevice, void **pptr)
{
    SIM_ENTER("zeMemAllocDevice");
    sim_context *ctx = context_of(hContext);
    if (ctx == NULL || device_of(hDevice) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return mem_alloc(ctx, size, alignment, ZE_MEMORY_TYPE_DEVICE, desc->pNext, pptr);
}

static ze_result_t sim_zeMemAllocShared(ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t *ddesc,
                                        const ze_host_mem_alloc_desc_t *hdesc, size_t size, size_t alignment,
                                        ze_device_handle_t hDevice, void **pptr)
{
    SIM_ENTER("zeMemAllocShared");
    sim_context *ctx = context_of(hContext);
    if (ctx == NULL || (hDevice != NULL && device_of(hDevice) == NULL))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ddesc == NULL || hdesc == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* zeMemAllocShared reads the device descriptor's chain */
    return mem_alloc(ctx, size, alignment, ZE_MEMORY_TYPE_SHARED, ddesc->pNext, pptr);
}

static ze_result_t sim_zeMemFree(ze_context_handle_t hContext, void *ptr)
{
    SIM_ENTER("zeMemFree");
    sim_context *ctx = context_of(hContext);
    if (ctx == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&ctx->lock);
    ptrdiff_t i = find_alloc_locked(ctx, (uintptr_t)ptr);
    if (i < 0 || ctx->allocs[i].base != (uintptr_t)ptr) {
        pthread_mutex_unlock(&ctx->lock);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    sim_alloc a = ctx->allocs[i];
    memmove(&ctx->allocs[i], &ctx->allocs[i + 1], (ctx->alloc_count - (size_t)i - 1) * sizeof(sim_alloc));
    ctx->alloc_count--;
    if (!a.imported)
        ctx->allocated_bytes -= a.size;
    pthread_mutex_unlock(&ctx->lock);
    if (a.imported == SIM_ALLOC_OWN)
        free(ptr);
    else if (a.imported == SIM_ALLOC_DMA_BUF)
        munmap(ptr, a.size);
    sim_live_add(NPU_SIM_HANDLE_MEMORY, -1);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeMemGetAllocProperties(ze_context_handle_t hContext, const void *ptr,
                                               ze_memory_allocation_properties_t *p, ze_device_handle_t *phDevice)
{
    SIM_ENTER("zeMemGetAllocProperties");
    sim_context *ctx = context_of(hContext);
    if (ctx == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL || p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&ctx->lock);
    ptrdiff_t i = find_alloc_locked(ctx, (uintptr_t)ptr);
    if (i < 0) {
        p->type = ZE_MEMORY_TYPE_UNKNOWN;
        p->id = 0;
        p->pageSize = 0;
        if (phDevice != NULL)
            *phDevice = NULL;
    } else {
        p->type = ctx->allocs[i].type;
        p->id = ctx->allocs[i].id;
        p->pageSize = SIM_PAGE;
        if (phDevice != NULL)
            *phDevice = (ze_device_handle_t)&the_device;
    }
    pthread_mutex_unlock(&ctx->lock);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeMemGetAddressRange(ze_context_handle_t hContext, const void *ptr, void **pBase,
                                            size_t *pSize)
{
    SIM_ENTER("zeMemGetAddressRange");
    sim_context *ctx = context_of(hContext);
    if (ctx == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&ctx->lock);
    ptrdiff_t i = find_alloc_locked(ctx, (uintptr_t)ptr);
    if (i >= 0) {
        if (pBase != NULL)
            *pBase = (void *)ctx->allocs[i].base;
        if (pSize != NULL)
            *pSize = ctx->allocs[i].size;
    }
    pthread_mutex_unlock(&ctx->lock);
    return i >= 0 ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

/* ---- event pools and events ---------------------------------------------------------- */
static ze_result_t sim_zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t *desc,
                                         uint32_t numDevices, ze_device_handle_t *phDevices,
                                         ze_event_pool_handle_t *phPool)
{
    SIM_ENTER("zeEventPoolCreate");
    sim_context *ctx = context_of(hContext);
    if (ctx == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phPool == NULL || (numDevices > 0 && phDevices == NULL))
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < numDevices; i++)
        if (device_of(phDevices[i]) == NULL)
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc->count == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    sim_event_pool *pool = calloc(1, sizeof(*pool));
    if (pool == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    pool->magic = SIM_MAGIC_EVENT_POOL;
    pool->ctx = ctx;
    pool->count = desc->count;
    pool->flags = desc->flags;
    sim_live_add(NPU_SIM_HANDLE_EVENT_POOL, 1);
    *phPool = (ze_event_pool_handle_t)pool;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeEventPoolDestroy(ze_event_pool_handle_t hPool)
{
    SIM_ENTER("zeEventPoolDestroy");
    sim_event_pool *pool = AS(sim_event_pool, SIM_MAGIC_EVENT_POOL, hPool);
    if (pool == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pool->magic = SIM_MAGIC_DEAD;
    free(pool);
    sim_live_add(NPU_SIM_HANDLE_EVENT_POOL, -1);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeEventCreate(ze_event_pool_handle_t hPool, const ze_event_desc_t *desc,
                                     ze_event_handle_t *phEvent)
{
    SIM_ENTER("zeEventCreate");
    sim_event_pool *pool = AS(sim_event_pool, SIM_MAGIC_EVENT_POOL, hPool);
    if (pool == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phEvent == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->index >= pool->count)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    sim_event *e = calloc(1, sizeof(*e));
    if (e == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    e->magic = SIM_MAGIC_EVENT;
    e->pool = pool;
    e->index = desc->index;
    atomic_init(&e->signaled, 0);
    sim_live_add(NPU_SIM_HANDLE_EVENT, 1);
    *phEvent = (ze_event_handle_t)e;
    return ZE_RESULT_SUCCESS;
}

static sim_event *event_of(ze_event_handle_t h)
{
    return AS(sim_event, SIM_MAGIC_EVENT, h);
}

static ze_result_t sim_zeEventDestroy(ze_event_handle_t hEvent)
{
    SIM_ENTER("zeEventDestroy");
    sim_event *e = event_of(hEvent);
    if (e == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    e->magic = SIM_MAGIC_DEAD;
    free(e);
    sim_live_add(NPU_SIM_HANDLE_EVENT, -1);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeEventHostSignal(ze_event_handle_t hEvent)
{
    SIM_ENTER("zeEventHostSignal");
    sim_event *e = event_of(hEvent);
    if (e == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    event_set(e, 1);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout)
{
    SIM_ENTER("zeEventHostSynchronize");
    sim_event *e = event_of(hEvent);
    if (e == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return host_wait_flag(&e->signaled, timeout);
}

static ze_result_t sim_zeEventQueryStatus(ze_event_handle_t hEvent)
{
    SIM_ENTER("zeEventQueryStatus");
    sim_event *e = event_of(hEvent);
    if (e == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return atomic_load(&e->signaled) ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

static ze_result_t sim_zeEventHostReset(ze_event_handle_t hEvent)
{
    SIM_ENTER("zeEventHostReset");
    sim_event *e = event_of(hEvent);
    if (e == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    event_set(e, 0);
    return ZE_RESULT_SUCCESS;
}

/* ---- fences ---------------------------------------------------------------------------- */
static sim_queue *queue_of(ze_command_queue_handle_t h)
{
    return AS(sim_queue, SIM_MAGIC_QUEUE, h);
}

static sim_fence *fence_of(ze_fence_handle_t h)
{
    return AS(sim_fence, SIM_MAGIC_FENCE, h);
}

static ze_result_t sim_zeFenceCreate(ze_command_queue_handle_t hQueue, const ze_fence_desc_t *desc,
                                     ze_fence_handle_t *phFence)
{
    SIM_ENTER("zeFenceCreate");
    sim_queue *q = queue_of(hQueue);
    if (q == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phFence == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->flags & ~(ze_fence_flags_t)ZE_FENCE_FLAG_SIGNALED)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    sim_fence *f = calloc(1, sizeof(*f));
    if (f == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    f->magic = SIM_MAGIC_FENCE;
    f->queue = q;
    atomic_init(&f->signaled, (desc->flags & ZE_FENCE_FLAG_SIGNALED) ? 1 : 0);
    sim_live_add(NPU_SIM_HANDLE_FENCE, 1);
    *phFence = (ze_fence_handle_t)f;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeFenceDestroy(ze_fence_handle_t hFence)
{
    SIM_ENTER("zeFenceDestroy");
    sim_fence *f = fence_of(hFence);
    if (f == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    f->magic = SIM_MAGIC_DEAD;
    free(f);
    sim_live_add(NPU_SIM_HANDLE_FENCE, -1);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeFenceHostSynchronize(ze_fence_handle_t hFence, uint64_t timeout)
{
    SIM_ENTER("zeFenceHostSynchronize");
    sim_fence *f = fence_of(hFence);
    if (f == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return host_wait_flag(&f->signaled, timeout);
}

static ze_result_t sim_zeFenceQueryStatus(ze_fence_handle_t hFence)
{
    SIM_ENTER("zeFenceQueryStatus");
    sim_fence *f = fence_of(hFence);
    if (f == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return atomic_load(&f->signaled) ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

static ze_result_t sim_zeFenceReset(ze_fence_handle_t hFence)
{
    SIM_ENTER("zeFenceReset");
    sim_fence *f = fence_of(hFence);
    if (f == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    atomic_store(&f->signaled, 0);
    return ZE_RESULT_SUCCESS;
}

/* ---- command execution (worker threads) ---------------------------------------------- */
/* Blocks the worker until the event is signalled or the queue is being destroyed.
 * Returns 0 if the queue stops. */
static int worker_wait_event(sim_queue *q, sim_event *e)
{
    if (atomic_load(&e->signaled))
        return 1;
    pthread_mutex_lock(&sync_lock);
    while (!atomic_load(&e->signaled) && !atomic_load(&q->stop))
        pthread_cond_wait(&sync_cv, &sync_lock);
    int ok = atomic_load(&e->signaled);
    pthread_mutex_unlock(&sync_lock);
    return ok;
}

static int run_command(sim_queue *q, const sim_cmd *c)
{
    for (uint32_t i = 0; i < c->wait_count; i++)
        if (!worker_wait_event(q, c->wait[i]))
            return 0;
    if (c->run != NULL)
        c->run(c);
    if (c->signal != NULL)
        event_set(c->signal, 1);
    return 1;
}

static void run_job(sim_queue *q, sim_job *job)
{
    int ok = 1;
    if (job->single != NULL)
        ok = run_command(q, job->single);
    for (uint32_t l = 0; ok && l < job->list_count; l++) {
        const sim_cmdlist *list = job->lists[l];
        for (size_t i = 0; ok && i < list->count; i++)
            ok = run_command(q, &list->cmds[i]);
    }
    if (ok && job->fence != NULL)
        fence_signal(job->fence);
}

static void cmd_free(sim_cmd *c)
{
    free(c->wait);
    if (c->release != NULL)
        c->release(c);
    memset(c, 0, sizeof(*c));
}

static void job_free(sim_job *job)
{
    if (job->single != NULL) {
        cmd_free(job->single);
        free(job->single);
    }
    free(job->lists);
    free(job);
}

static void *queue_worker(void *arg)
{
    sim_queue *q = arg;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        while (q->head == NULL && !atomic_load(&q->stop))
            pthread_cond_wait(&q->cv, &q->lock);
        if (q->head == NULL)
            break;
        sim_job *job = q->head;
        q->head = job->next;
        if (q->head == NULL)
            q->tail = NULL;
        pthread_mutex_unlock(&q->lock);
        run_job(q, job); /* also while stopping: destroy drains the queue */
        job_free(job);
        pthread_mutex_lock(&q->lock);
        q->completed++;
        pthread_cond_broadcast(&q->cv);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

static ze_result_t queue_new(sim_context *ctx, ze_command_queue_mode_t mode, int internal, sim_queue **out)
{
    sim_queue *q = calloc(1, sizeof(*q));
    if (q == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    q->magic = SIM_MAGIC_QUEUE;
    q->ctx = ctx;
    q->mode = mode;
    q->internal = internal;
    pthread_mutex_init(&q->lock, NULL);
    cond_init_monotonic(&q->cv);
    atomic_init(&q->stop, 0);
    if (pthread_create(&q->thread, NULL, queue_worker, q) != 0) {
        pthread_cond_destroy(&q->cv);
        pthread_mutex_destroy(&q->lock);
        free(q);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    *out = q;
    return ZE_RESULT_SUCCESS;
}

static void queue_free(sim_queue *q)
{
    atomic_store(&q->stop, 1);
    pthread_mutex_lock(&q->lock);
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->lock);
    /* A worker blocked on an event waits on sync_cv. */
    pthread_mutex_lock(&sync_lock);
    pthread_cond_broadcast(&sync_cv);
    pthread_mutex_unlock(&sync_lock);
    pthread_join(q->thread, NULL);
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->lock);
    q->magic = SIM_MAGIC_DEAD;
    free(q);
}

/* Hands a job to the worker; returns its ticket. */
static uint64_t queue_push(sim_queue *q, sim_job *job)
{
    pthread_mutex_lock(&q->lock);
    uint64_t ticket = ++q->submitted;
    job->ticket = ticket;
    if (q->tail != NULL)
        q->tail->next = job;
    else
        q->head = job;
    q->tail = job;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->lock);
    return ticket; /* the worker may already have freed the job */
}

static ze_result_t queue_wait(sim_queue *q, uint64_t ticket, uint64_t timeout_ns)
{
    ze_result_t rc = ZE_RESULT_SUCCESS;
    uint64_t deadline = deadline_after(timeout_ns);
    pthread_mutex_lock(&q->lock);
    while (q->completed < ticket) {
        if (timeout_ns == 0 || !cond_wait_until(&q->cv, &q->lock, deadline)) {
            rc = q->completed >= ticket ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
            break;
        }
    }
    pthread_mutex_unlock(&q->lock);
    return rc;
}

/* ---- command queues ---------------------------------------------------------------- */
static ze_result_t sim_zeCommandQueueCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                            const ze_command_queue_desc_t *desc, ze_command_queue_handle_t *phQueue)
{
    SIM_ENTER("zeCommandQueueCreate");
    sim_context *ctx = context_of(hContext);
    if (ctx == NULL || device_of(hDevice) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phQueue == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->ordinal != 0)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (desc->mode > ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS || desc->priority > ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    /* Turbo from the desc's pNext, as each release reads it (the first struct
     * only, by its stype): v1.10.0 reads no pNext; v1.19.0 takes
     * ze_command_queue_desc_npu_ext_t (stype 1) {turbo}; v1.32.1 also takes
     * ze_command_queue_desc_npu_ext_2_t (stype 2) {options}: TURBO unless
     * DEVICE_SYNC, and DEVICE_SYNC with a SYNCHRONOUS queue is
     * INVALID_ENUMERATION (source/cmdqueue.cpp CommandQueue::create). */
    int turbo = 0;
    uint32_t release = sim_driver_release();
    if (desc->pNext != NULL && release >= SIM_RELEASE(1, 19)) {
        uint32_t stype = *(const uint32_t *)desc->pNext;
        if (stype == ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC_NPU_EXT) {
            turbo = ((const struct { uint32_t stype; const void *pNext; ze_bool_t turbo; } *)desc->pNext)->turbo != 0;
        } else if (stype == ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC_NPU_EXT_2 && release >= SIM_RELEASE(1, 32)) {
            uint32_t options = ((const struct { uint32_t stype; const void *pNext; uint32_t options; } *)desc->pNext)->options;
            if (desc->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS && (options & ZE_NPU_COMMAND_QUEUE_OPTION_DEVICE_SYNC))
                return ZE_RESULT_ERROR_INVALID_ENUMERATION;
            turbo = !(options & ZE_NPU_COMMAND_QUEUE_OPTION_DEVICE_SYNC) && (options & ZE_NPU_COMMAND_QUEUE_OPTION_TURBO);
        }
    }
    sim_queue *q = NULL;
    ze_result_t rc = queue_new(ctx, desc->mode, 0, &q);
    if (rc != ZE_RESULT_SUCCESS)
        return rc;
    q->turbo = turbo;
    sim_count_queue_controls(turbo, 0);
    sim_live_add(NPU_SIM_HANDLE_COMMAND_QUEUE, 1);
    *phQueue = (ze_command_queue_handle_t)q;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeCommandQueueDestroy(ze_command_queue_handle_t hQueue)
{
    SIM_ENTER("zeCommandQueueDestroy");
    sim_queue *q = queue_of(hQueue);
    if (q == NULL || q->internal)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_count_queue_controls(-q->turbo, -(int)q->workload);
    queue_free(q);
    sim_live_add(NPU_SIM_HANDLE_COMMAND_QUEUE, -1);
    return ZE_RESULT_SUCCESS;
}

ze_result_t sim_queue_set_workload(ze_command_queue_handle_t hQueue, uint32_t type)
{
    sim_queue *q = sim_translate(ZEL_HANDLE_COMMAND_QUEUE, hQueue, SIM_MAGIC_QUEUE);
    if (q == NULL || q->internal)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_count_queue_controls(0, (int)type - (int)q->workload);
    q->workload = type;
    return ZE_RESULT_SUCCESS;
}

/* ZE_extension_context_npu (v1.32.1 api/ext/ze_context.cpp, source/context.cpp):
 * the handle is translated, then NULL checks; IDLE_OPTIMIZATIONS starts the
 * idle-memory cleaner, except below NPU 40xx where the call succeeds and does
 * nothing; without the option the cleaner stops. The options are not otherwise
 * validated, nor is the stype. */
ze_result_t sim_context_set_npu_properties(ze_context_handle_t hContext, const void *props)
{
    sim_context *ctx = sim_translate(ZEL_HANDLE_CONTEXT, hContext, SIM_MAGIC_CONTEXT);
    if (ctx == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (props == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    uint32_t options = ((const struct { uint32_t stype; const void *pNext; uint32_t options; } *)props)->options;
    int on = (options & ZE_NPU_CONTEXT_OPTION_IDLE_OPTIMIZATIONS) != 0;
    if (on && sim_cfg.platform < 4000)
        return ZE_RESULT_SUCCESS;
    sim_count_idle_context(on - ctx->idle_optimizations);
    ctx->idle_optimizations = on;
    return ZE_RESULT_SUCCESS;
}

ze_result_t sim_context_release_memory(ze_context_handle_t hContext)
{
    return sim_translate(ZEL_HANDLE_CONTEXT, hContext, SIM_MAGIC_CONTEXT) == NULL
               ? ZE_RESULT_ERROR_INVALID_NULL_HANDLE
               : ZE_RESULT_SUCCESS;
}

static sim_cmdlist *list_of(ze_command_list_handle_t h)
{
    return AS(sim_cmdlist, SIM_MAGIC_LIST, h);
}

static ze_result_t sim_zeCommandQueueExecuteCommandLists(ze_command_queue_handle_t hQueue, uint32_t numLists,
                                                         ze_command_list_handle_t *phLists, ze_fence_handle_t hFence)
{
    SIM_ENTER("zeCommandQueueExecuteCommandLists");
    sim_queue *q = queue_of(hQueue);
    if (q == NULL || q->internal)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (phLists == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (numLists == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    sim_fence *fence = NULL;
    if (hFence != NULL) {
        fence = fence_of(hFence);
        if (fence == NULL)
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    for (uint32_t i = 0; i < numLists; i++) {
        sim_cmdlist *l = list_of(phLists[i]);
        if (l == NULL)
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        if (l->immediate != NULL)
            return ZE_RESULT_ERROR_INVALID_ARGUMENT; /* the sim's own rule */
        /* CommandQueue::executeCommandLists: a list that was not closed. */
        if (!l->closed)
            return ZE_RESULT_ERROR_UNINITIALIZED;
    }
    /* The real driver submits the jobs first and only then finds that the fence
     * belongs to another queue: the work runs, the fence is not attached, and
     * the call returns INVALID_SYNCHRONIZATION_OBJECT (also in synchronous mode,
     * without waiting). */
    int foreign_fence = fence != NULL && fence->queue != q;
    if (foreign_fence)
        fence = NULL;
    sim_job *job = calloc(1, sizeof(*job));
    if (job == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    job->lists = malloc(numLists * sizeof(*job->lists));
    if (job->lists == NULL) {
        free(job);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t i = 0; i < numLists; i++)
        job->lists[i] = list_of(phLists[i]);
    job->list_count = numLists;
    job->fence = fence;
    sim_count_submit(numLists);
    uint64_t ticket = queue_push(q, job);
    if (foreign_fence)
        return ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT;
    if (q->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS)
        return queue_wait(q, ticket, UINT64_MAX);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeCommandQueueSynchronize(ze_command_queue_handle_t hQueue, uint64_t timeout)
{
    SIM_ENTER("zeCommandQueueSynchronize");
    sim_queue *q = queue_of(hQueue);
    if (q == NULL || q->internal)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&q->lock);
    uint64_t ticket = q->submitted;
    pthread_mutex_unlock(&q->lock);
    return queue_wait(q, ticket, timeout);
}

/* ---- command lists -------------------------------------------------------------------- */
static ze_result_t sim_zeCommandListCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                           const ze_command_list_desc_t *desc, ze_command_list_handle_t *phList)
{
    SIM_ENTER("zeCommandListCreate");
    sim_context *ctx = context_of(hContext);
    if (ctx == NULL || device_of(hDevice) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phList == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->commandQueueGroupOrdinal != 0)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    sim_cmdlist *l = calloc(1, sizeof(*l));
    if (l == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    l->magic = SIM_MAGIC_LIST;
    l->ctx = ctx;
    sim_live_add(NPU_SIM_HANDLE_COMMAND_LIST, 1);
    *phList = (ze_command_list_handle_t)l;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeCommandListCreateImmediate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                    const ze_command_queue_desc_t *desc,
                                                    ze_command_list_handle_t *phList)
{
    SIM_ENTER("zeCommandListCreateImmediate");
    sim_context *ctx = context_of(hContext);
    if (ctx == NULL || device_of(hDevice) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phList == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->ordinal != 0)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (desc->mode > ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    sim_cmdlist *l = calloc(1, sizeof(*l));
    if (l == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    ze_result_t rc = queue_new(ctx, desc->mode, 1, &l->immediate);
    if (rc != ZE_RESULT_SUCCESS) {
        free(l);
        return rc;
    }
    l->magic = SIM_MAGIC_LIST;
    l->ctx = ctx;
    l->immediate_sync = desc->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    sim_live_add(NPU_SIM_HANDLE_COMMAND_LIST, 1);
    *phList = (ze_command_list_handle_t)l;
    return ZE_RESULT_SUCCESS;
}

static void list_clear(sim_cmdlist *l)
{
    for (size_t i = 0; i < l->count; i++)
        cmd_free(&l->cmds[i]);
    free(l->cmds);
    l->cmds = NULL;
    l->count = l->cap = 0;
    l->closed = 0;
}

static ze_result_t sim_zeCommandListDestroy(ze_command_list_handle_t hList)
{
    SIM_ENTER("zeCommandListDestroy");
    sim_cmdlist *l = list_of(hList);
    if (l == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (l->immediate != NULL)
        queue_free(l->immediate); /* runs what was appended, then joins */
    list_clear(l);
    l->magic = SIM_MAGIC_DEAD;
    free(l);
    sim_live_add(NPU_SIM_HANDLE_COMMAND_LIST, -1);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeCommandListClose(ze_command_list_handle_t hList)
{
    SIM_ENTER("zeCommandListClose");
    sim_cmdlist *l = list_of(hList);
    if (l == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    l->closed = 1;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeCommandListReset(ze_command_list_handle_t hList)
{
    SIM_ENTER("zeCommandListReset");
    sim_cmdlist *l = list_of(hList);
    if (l == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    list_clear(l);
    return ZE_RESULT_SUCCESS;
}

ze_result_t sim_cmd_set_events(sim_cmd *cmd, ze_event_handle_t signal, uint32_t wait_count,
                               ze_event_handle_t *wait, int translate)
{
    cmd->signal = NULL;
    cmd->wait = NULL;
    cmd->wait_count = 0;
    if (signal != NULL) {
        cmd->signal = translate ? sim_translate(ZEL_HANDLE_EVENT, signal, SIM_MAGIC_EVENT) : event_of(signal);
        if (cmd->signal == NULL)
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (wait_count == 0)
        return ZE_RESULT_SUCCESS;
    if (wait == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    cmd->wait = malloc(wait_count * sizeof(*cmd->wait));
    if (cmd->wait == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; i < wait_count; i++) {
        sim_event *e = translate ? sim_translate(ZEL_HANDLE_EVENT, wait[i], SIM_MAGIC_EVENT) : event_of(wait[i]);
        if (e == NULL) {
            free(cmd->wait);
            cmd->wait = NULL;
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        }
        cmd->wait[i] = e;
    }
    cmd->wait_count = wait_count;
    return ZE_RESULT_SUCCESS;
}

ze_result_t sim_list_append(sim_cmdlist *l, sim_cmd *cmd)
{
    if (l->immediate != NULL) {
        sim_job *job = calloc(1, sizeof(*job));
        sim_cmd *own = malloc(sizeof(*own));
        if (job == NULL || own == NULL) {
            free(job);
            free(own);
            cmd_free(cmd);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        *own = *cmd;
        job->single = own;
        uint64_t ticket = queue_push(l->immediate, job);
        return l->immediate_sync ? queue_wait(l->immediate, ticket, UINT64_MAX) : ZE_RESULT_SUCCESS;
    }
    if (l->closed) {
        cmd_free(cmd);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        sim_cmd *grown = realloc(l->cmds, cap * sizeof(*grown));
        if (grown == NULL) {
            cmd_free(cmd);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        l->cmds = grown;
        l->cap = cap;
    }
    l->cmds[l->count++] = *cmd;
    return ZE_RESULT_SUCCESS;
}

/* ---- the core commands' run and release callbacks ---- */
static void run_copy(const sim_cmd *c)
{
    memmove(c->obj, c->src, c->size);
}

static void run_fill(const sim_cmd *c)
{
    uint8_t *d = c->obj;
    const uint8_t *pat = c->data;
    if (c->data_size == 1) {
        memset(d, pat[0], c->size);
    } else {
        for (size_t i = 0; i < c->size; i++)
            d[i] = pat[i % c->data_size];
    }
}

static void run_timestamp(const sim_cmd *c)
{
    uint64_t now = sim_now_ns();
    memcpy(c->obj, &now, sizeof(now));
}

static void run_reset_event(const sim_cmd *c)
{
    event_set(c->obj, 0);
}

static void release_data(sim_cmd *c)
{
    free(c->data);
}

/* Common tail of the core appends: events, then append. */
static ze_result_t append_core(sim_cmdlist *l, sim_cmd *cmd, ze_event_handle_t signal, uint32_t wait_count,
                               ze_event_handle_t *wait)
{
    ze_result_t rc = sim_cmd_set_events(cmd, signal, wait_count, wait, 0);
    if (rc != ZE_RESULT_SUCCESS) {
        cmd_free(cmd);
        return rc;
    }
    return sim_list_append(l, cmd);
}

static ze_result_t sim_zeCommandListAppendBarrier(ze_command_list_handle_t hList, ze_event_handle_t hSignal,
                                                  uint32_t numWait, ze_event_handle_t *phWait)
{
    SIM_ENTER("zeCommandListAppendBarrier");
    sim_cmdlist *l = list_of(hList);
    if (l == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_cmd cmd = {.run = NULL};
    return append_core(l, &cmd, hSignal, numWait, phWait);
}

static ze_result_t sim_zeCommandListAppendMemoryRangesBarrier(ze_command_list_handle_t hList, uint32_t numRanges,
                                                              const size_t *pRangeSizes, const void **pRanges,
                                                              ze_event_handle_t hSignal, uint32_t numWait,
                                                              ze_event_handle_t *phWait)
{
    SIM_ENTER("zeCommandListAppendMemoryRangesBarrier");
    sim_cmdlist *l = list_of(hList);
    if (l == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (numRanges > 0 && (pRangeSizes == NULL || pRanges == NULL))
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    sim_cmd cmd = {.run = NULL};
    return append_core(l, &cmd, hSignal, numWait, phWait);
}

static ze_result_t sim_zeCommandListAppendMemoryCopy(ze_command_list_handle_t hList, void *dst, const void *src,
                                                     size_t size, ze_event_handle_t hSignal, uint32_t numWait,
                                                     ze_event_handle_t *phWait)
{
    SIM_ENTER("zeCommandListAppendMemoryCopy");
    sim_cmdlist *l = list_of(hList);
    if (l == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (dst == NULL || src == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    sim_cmd cmd = {.run = run_copy, .obj = dst, .src = src, .size = size};
    return append_core(l, &cmd, hSignal, numWait, phWait);
}

static ze_result_t sim_zeCommandListAppendMemoryFill(ze_command_list_handle_t hList, void *ptr,
                                                     const void *pattern, size_t pattern_size, size_t size,
                                                     ze_event_handle_t hSignal, uint32_t numWait,
                                                     ze_event_handle_t *phWait)
{
    SIM_ENTER("zeCommandListAppendMemoryFill");
    sim_cmdlist *l = list_of(hList);
    if (l == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL || pattern == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (pattern_size == 0 || pattern_size > SIM_MAX_FILL_PATTERN || (pattern_size & (pattern_size - 1)))
        return ZE_RESULT_ERROR_INVALID_SIZE;
    sim_cmd cmd = {.run = run_fill, .release = release_data, .obj = ptr, .size = size,
                   .data_size = pattern_size};
    cmd.data = malloc(pattern_size);
    if (cmd.data == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    memcpy(cmd.data, pattern, pattern_size);
    return append_core(l, &cmd, hSignal, numWait, phWait);
}

static ze_result_t sim_zeCommandListAppendWriteGlobalTimestamp(ze_command_list_handle_t hList, uint64_t *dst,
                                                               ze_event_handle_t hSignal, uint32_t numWait,
                                                               ze_event_handle_t *phWait)
{
    SIM_ENTER("zeCommandListAppendWriteGlobalTimestamp");
    sim_cmdlist *l = list_of(hList);
    if (l == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (dst == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    sim_cmd cmd = {.run = run_timestamp, .obj = dst};
    return append_core(l, &cmd, hSignal, numWait, phWait);
}

static ze_result_t sim_zeCommandListAppendSignalEvent(ze_command_list_handle_t hList, ze_event_handle_t hEvent)
{
    SIM_ENTER("zeCommandListAppendSignalEvent");
    sim_cmdlist *l = list_of(hList);
    if (l == NULL || event_of(hEvent) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_cmd cmd = {.run = NULL};
    return append_core(l, &cmd, hEvent, 0, NULL);
}

static ze_result_t sim_zeCommandListAppendWaitOnEvents(ze_command_list_handle_t hList, uint32_t numEvents,
                                                       ze_event_handle_t *phEvents)
{
    SIM_ENTER("zeCommandListAppendWaitOnEvents");
    sim_cmdlist *l = list_of(hList);
    if (l == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (phEvents == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    sim_cmd cmd = {.run = NULL};
    return append_core(l, &cmd, NULL, numEvents, phEvents);
}

static ze_result_t sim_zeCommandListAppendEventReset(ze_command_list_handle_t hList, ze_event_handle_t hEvent)
{
    SIM_ENTER("zeCommandListAppendEventReset");
    sim_cmdlist *l = list_of(hList);
    sim_event *e = event_of(hEvent);
    if (l == NULL || e == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_cmd cmd = {.run = run_reset_event, .obj = e};
    return append_core(l, &cmd, NULL, 0, NULL);
}

/* ---- table getters (the library's only exports) -------------------------------------- */
#define GETTER_CHECK(table)                                    \
    do {                                                       \
        if ((table) == NULL)                                   \
            return ZE_RESULT_ERROR_INVALID_NULL_POINTER;       \
        if (ZE_MAJOR_VERSION(version) != 1)                    \
            return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;        \
    } while (0)

ze_result_t zeGetGlobalProcAddrTable(ze_api_version_t version, ze_global_dditable_t *t)
{
    GETTER_CHECK(t);
    t->pfnInit = sim_zeInit;
    return ZE_RESULT_SUCCESS;
}

/* zeGetDriverProcAddrTable is in extensions.c, which adds the extension
 * entries to these. */
ze_result_t sim_driver_core_table(ze_api_version_t version, ze_driver_dditable_t *t)
{
    GETTER_CHECK(t);
    t->pfnGet = sim_zeDriverGet;
    t->pfnGetApiVersion = sim_zeDriverGetApiVersion;
    t->pfnGetProperties = sim_zeDriverGetProperties;
    t->pfnGetIpcProperties = sim_zeDriverGetIpcProperties;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeGetDeviceProcAddrTable(ze_api_version_t version, ze_device_dditable_t *t)
{
    GETTER_CHECK(t);
    t->pfnGet = sim_zeDeviceGet;
    t->pfnGetSubDevices = sim_zeDeviceGetSubDevices;
    t->pfnGetProperties = sim_zeDeviceGetProperties;
    t->pfnGetComputeProperties = sim_zeDeviceGetComputeProperties;
    t->pfnGetCommandQueueGroupProperties = sim_zeDeviceGetCommandQueueGroupProperties;
    t->pfnGetMemoryProperties = sim_zeDeviceGetMemoryProperties;
    t->pfnGetMemoryAccessProperties = sim_zeDeviceGetMemoryAccessProperties;
    t->pfnGetCacheProperties = sim_zeDeviceGetCacheProperties;
    t->pfnGetExternalMemoryProperties = sim_zeDeviceGetExternalMemoryProperties;
    t->pfnCanAccessPeer = sim_zeDeviceCanAccessPeer;
    t->pfnGetStatus = sim_zeDeviceGetStatus;
    t->pfnGetGlobalTimestamps = sim_zeDeviceGetGlobalTimestamps;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeGetContextProcAddrTable(ze_api_version_t version, ze_context_dditable_t *t)
{
    GETTER_CHECK(t);
    t->pfnCreate = sim_zeContextCreate;
    t->pfnCreateEx = sim_zeContextCreateEx;
    t->pfnDestroy = sim_zeContextDestroy;
    t->pfnGetStatus = sim_zeContextGetStatus;
    t->pfnMakeMemoryResident = sim_zeContextMakeMemoryResident;
    t->pfnEvictMemory = sim_zeContextEvictMemory;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeGetCommandQueueProcAddrTable(ze_api_version_t version, ze_command_queue_dditable_t *t)
{
    GETTER_CHECK(t);
    t->pfnCreate = sim_zeCommandQueueCreate;
    t->pfnDestroy = sim_zeCommandQueueDestroy;
    t->pfnExecuteCommandLists = sim_zeCommandQueueExecuteCommandLists;
    t->pfnSynchronize = sim_zeCommandQueueSynchronize;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeGetCommandListProcAddrTable(ze_api_version_t version, ze_command_list_dditable_t *t)
{
    GETTER_CHECK(t);
    t->pfnCreate = sim_zeCommandListCreate;
    t->pfnCreateImmediate = sim_zeCommandListCreateImmediate;
    t->pfnDestroy = sim_zeCommandListDestroy;
    t->pfnClose = sim_zeCommandListClose;
    t->pfnReset = sim_zeCommandListReset;
    t->pfnAppendBarrier = sim_zeCommandListAppendBarrier;
    t->pfnAppendMemoryRangesBarrier = sim_zeCommandListAppendMemoryRangesBarrier;
    t->pfnAppendMemoryCopy = sim_zeCommandListAppendMemoryCopy;
    t->pfnAppendMemoryFill = sim_zeCommandListAppendMemoryFill;
    t->pfnAppendWriteGlobalTimestamp = sim_zeCommandListAppendWriteGlobalTimestamp;
    t->pfnAppendSignalEvent = sim_zeCommandListAppendSignalEvent;
    t->pfnAppendWaitOnEvents = sim_zeCommandListAppendWaitOnEvents;
    t->pfnAppendEventReset = sim_zeCommandListAppendEventReset;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeGetFenceProcAddrTable(ze_api_version_t version, ze_fence_dditable_t *t)
{
    GETTER_CHECK(t);
    t->pfnCreate = sim_zeFenceCreate;
    t->pfnDestroy = sim_zeFenceDestroy;
    t->pfnHostSynchronize = sim_zeFenceHostSynchronize;
    t->pfnQueryStatus = sim_zeFenceQueryStatus;
    t->pfnReset = sim_zeFenceReset;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeGetEventPoolProcAddrTable(ze_api_version_t version, ze_event_pool_dditable_t *t)
{
    GETTER_CHECK(t);
    t->pfnCreate = sim_zeEventPoolCreate;
    t->pfnDestroy = sim_zeEventPoolDestroy;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeGetEventProcAddrTable(ze_api_version_t version, ze_event_dditable_t *t)
{
    GETTER_CHECK(t);
    t->pfnCreate = sim_zeEventCreate;
    t->pfnDestroy = sim_zeEventDestroy;
    t->pfnHostSignal = sim_zeEventHostSignal;
    t->pfnHostSynchronize = sim_zeEventHostSynchronize;
    t->pfnQueryStatus = sim_zeEventQueryStatus;
    t->pfnHostReset = sim_zeEventHostReset;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zeGetMemProcAddrTable(ze_api_version_t version, ze_mem_dditable_t *t)
{
    GETTER_CHECK(t);
    t->pfnAllocHost = sim_zeMemAllocHost;
    t->pfnAllocDevice = sim_zeMemAllocDevice;
    t->pfnAllocShared = sim_zeMemAllocShared;
    t->pfnFree = sim_zeMemFree;
    t->pfnGetAllocProperties = sim_zeMemGetAllocProperties;
    t->pfnGetAddressRange = sim_zeMemGetAddressRange;
    return ZE_RESULT_SUCCESS;
}

/* Tables for features the sim does not have: the getter must exist and succeed
 * (the loader requires all 46 non-Exp ones), entries stay NULL = unsupported. */
#define EMPTY_GETTER(name, type)                                 \
    ze_result_t name(ze_api_version_t version, type *t)          \
    {                                                            \
        GETTER_CHECK(t);                                         \
        return ZE_RESULT_SUCCESS;                                \
    }

EMPTY_GETTER(zeGetDeviceExpProcAddrTable, ze_device_exp_dditable_t)
EMPTY_GETTER(zeGetImageProcAddrTable, ze_image_dditable_t)
EMPTY_GETTER(zeGetImageExpProcAddrTable, ze_image_exp_dditable_t)
EMPTY_GETTER(zeGetEventExpProcAddrTable, ze_event_exp_dditable_t)
EMPTY_GETTER(zeGetModuleProcAddrTable, ze_module_dditable_t)
EMPTY_GETTER(zeGetModuleBuildLogProcAddrTable, ze_module_build_log_dditable_t)
EMPTY_GETTER(zeGetKernelProcAddrTable, ze_kernel_dditable_t)
EMPTY_GETTER(zeGetKernelExpProcAddrTable, ze_kernel_exp_dditable_t)
EMPTY_GETTER(zeGetSamplerProcAddrTable, ze_sampler_dditable_t)
EMPTY_GETTER(zeGetPhysicalMemProcAddrTable, ze_physical_mem_dditable_t)
EMPTY_GETTER(zeGetVirtualMemProcAddrTable, ze_virtual_mem_dditable_t)
EMPTY_GETTER(zeGetFabricVertexExpProcAddrTable, ze_fabric_vertex_exp_dditable_t)
EMPTY_GETTER(zeGetFabricEdgeExpProcAddrTable, ze_fabric_edge_exp_dditable_t)
EMPTY_GETTER(zetGetDeviceProcAddrTable, zet_device_dditable_t)
EMPTY_GETTER(zetGetContextProcAddrTable, zet_context_dditable_t)
EMPTY_GETTER(zetGetCommandListProcAddrTable, zet_command_list_dditable_t)
EMPTY_GETTER(zetGetModuleProcAddrTable, zet_module_dditable_t)
EMPTY_GETTER(zetGetKernelProcAddrTable, zet_kernel_dditable_t)
EMPTY_GETTER(zetGetMetricGroupProcAddrTable, zet_metric_group_dditable_t)
EMPTY_GETTER(zetGetMetricGroupExpProcAddrTable, zet_metric_group_exp_dditable_t)
EMPTY_GETTER(zetGetMetricProcAddrTable, zet_metric_dditable_t)
EMPTY_GETTER(zetGetMetricStreamerProcAddrTable, zet_metric_streamer_dditable_t)
EMPTY_GETTER(zetGetMetricQueryPoolProcAddrTable, zet_metric_query_pool_dditable_t)
EMPTY_GETTER(zetGetMetricQueryProcAddrTable, zet_metric_query_dditable_t)
EMPTY_GETTER(zetGetTracerExpProcAddrTable, zet_tracer_exp_dditable_t)
EMPTY_GETTER(zetGetDebugProcAddrTable, zet_debug_dditable_t)
EMPTY_GETTER(zesGetDriverProcAddrTable, zes_driver_dditable_t)
EMPTY_GETTER(zesGetDeviceProcAddrTable, zes_device_dditable_t)
EMPTY_GETTER(zesGetSchedulerProcAddrTable, zes_scheduler_dditable_t)
EMPTY_GETTER(zesGetPerformanceFactorProcAddrTable, zes_performance_factor_dditable_t)
EMPTY_GETTER(zesGetPowerProcAddrTable, zes_power_dditable_t)
EMPTY_GETTER(zesGetFrequencyProcAddrTable, zes_frequency_dditable_t)
EMPTY_GETTER(zesGetEngineProcAddrTable, zes_engine_dditable_t)
EMPTY_GETTER(zesGetStandbyProcAddrTable, zes_standby_dditable_t)
EMPTY_GETTER(zesGetFirmwareProcAddrTable, zes_firmware_dditable_t)
EMPTY_GETTER(zesGetMemoryProcAddrTable, zes_memory_dditable_t)
EMPTY_GETTER(zesGetFabricPortProcAddrTable, zes_fabric_port_dditable_t)
EMPTY_GETTER(zesGetTemperatureProcAddrTable, zes_temperature_dditable_t)
EMPTY_GETTER(zesGetPsuProcAddrTable, zes_psu_dditable_t)
EMPTY_GETTER(zesGetFanProcAddrTable, zes_fan_dditable_t)
EMPTY_GETTER(zesGetLedProcAddrTable, zes_led_dditable_t)
EMPTY_GETTER(zesGetRasProcAddrTable, zes_ras_dditable_t)
EMPTY_GETTER(zesGetDiagnosticsProcAddrTable, zes_diagnostics_dditable_t)
