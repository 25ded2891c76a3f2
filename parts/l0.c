/* parts/l0.c: section of npu.c (merged into npu.c before release). */

/* ==== 9. Level Zero binding ============================================== */
/* Owns: our own declarations of the Intel NPU graph extension ABI (the Debian
 * loader headers are spec 1.4 and lack it), driver selection, extension
 * negotiation, and the ze_result_t -> npu_status mapping.
 * ==== 10. Device, model, request ==========================================
 * Owns: npu_device, npu_model (compile, import, export), npu_request (buffers,
 * command lists, inference, states). Calls: sections 6-8 for payloads, section
 * 11 (npu__meta_read / npu__meta_write) for the blob metadata tail. */

#ifndef NPU_NO_LEVEL_ZERO

#include <ze_api.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef __STDC_NO_ATOMICS__
#include <stdatomic.h>
#define NPU__HAVE_ATOMICS 1
#endif

/* ---- Graph extension ABI (ze-graph-ext.md sections 1-2; LP64 offsets) ---- */

#define NPU__ZE_GRAPH_EXT_PREFIX "ZE_extension_graph"
#define NPU__ZE_CQ_NPU_EXT_NAME "ZE_extension_command_queue_npu"
#define NPU__ZE_VERSION(ma, mi) ((((uint32_t)(ma)) << 16) | ((uint32_t)(mi) & 0xffffu))
#define NPU__ZE_GRAPH_EXT_MAX NPU__ZE_VERSION(1, 18)

/* stype values (the current header's; drivers accept them, the sim accepts old
 * and new). */
#define NPU__ZE_STYPE_DEVICE_GRAPH_PROPERTIES 0x1u
#define NPU__ZE_STYPE_GRAPH_DESC 0x2u
#define NPU__ZE_STYPE_GRAPH_PROPERTIES 0x3u
#define NPU__ZE_STYPE_GRAPH_ARGUMENT_PROPERTIES 0x4u
#define NPU__ZE_STYPE_GRAPH_ARGUMENT_METADATA 0x6u
#define NPU__ZE_STYPE_GRAPH_ARGUMENT_PROPERTIES_2 0xCu
#define NPU__ZE_STYPE_GRAPH_ARGUMENT_PROPERTIES_3 0xDu
#define NPU__ZE_STYPE_GRAPH_DESC_2 0xEu
#define NPU__ZE_STYPE_GRAPH_PROPERTIES_2 0x10u
/* Host-memory import (NPU extension header; not in spec 1.4). */
#define NPU__ZE_STYPE_IMPORT_SYSTEM_MEMORY 0x24u
#define NPU__ZE_EXTERNAL_MEMORY_STANDARD_ALLOCATION 0x100u

#define NPU__ZE_GRAPH_FORMAT_NATIVE 0x1u
#define NPU__ZE_GRAPH_FORMAT_NGRAPH_LITE 0x2u
#define NPU__ZE_GRAPH_FLAG_DISABLE_CACHING 0x1u
#define NPU__ZE_GRAPH_FLAG_INPUT_GRAPH_PERSISTENT 0x4u
#define NPU__ZE_GRAPH_STAGE_COMMAND_LIST_INITIALIZE 0x1u
#define NPU__ZE_GRAPH_STAGE_INITIALIZE 0x2u
#define NPU__ZE_MEMORY_QUERY_DDR 1u
#define NPU__ZE_NPU_COMPILER_OPTIONS 1u

#define NPU__MAX_BATCH 4096u   /* largest batch a model or request debatches into */

#define NPU__READ_VALUE_PREFIX "vpux_ie_read_value_"
#define NPU__ASSIGN_PREFIX "vpux_ie_assign_"

typedef struct npu__ze_graph_s *npu__ze_graph_handle_t;
typedef struct npu__ze_build_log_s *npu__ze_build_log_handle_t;

typedef struct npu__ze_compiler_version {
    uint16_t major;
    uint16_t minor;
} npu__ze_compiler_version;

typedef struct npu__ze_device_graph_properties {
    uint32_t stype;
    void *pNext;
    uint32_t graphExtensionVersion;
    npu__ze_compiler_version compilerVersion;
    uint32_t graphFormatsSupported;
    uint32_t maxOVOpsetVersionSupported;
} npu__ze_device_graph_properties;

typedef struct npu__ze_graph_desc {
    uint32_t stype;
    const void *pNext;
    uint32_t format;
    size_t inputSize;
    const uint8_t *pInput;
    const char *pBuildFlags;
} npu__ze_graph_desc;

typedef struct npu__ze_graph_desc_2 {
    uint32_t stype;
    const void *pNext;
    uint32_t format;
    size_t inputSize;
    const uint8_t *pInput;
    const char *pBuildFlags;
    uint32_t flags;
} npu__ze_graph_desc_2;

typedef struct npu__ze_graph_properties_2 {   /* v1 is the same without the stage */
    uint32_t stype;
    void *pNext;
    uint32_t numGraphArgs;
    uint32_t initStageRequired;
} npu__ze_graph_properties_2;

typedef struct npu__ze_graph_argument_properties_3 {  /* v1/v2 are prefixes */
    uint32_t stype;
    void *pNext;
    char name[256];
    uint32_t type;
    uint32_t dims[5];
    uint32_t networkPrecision;
    uint32_t networkLayout;
    uint32_t devicePrecision;
    uint32_t deviceLayout;
    float quantReverseScale;   /* v2 */
    uint8_t quantZeroPoint;
    uint32_t dims_count;       /* v3 */
    char debug_friendly_name[256];
    char associated_tensor_names[32][256];
    uint32_t associated_tensor_names_count;
} npu__ze_graph_argument_properties_3;

typedef struct npu__ze_graph_argument_metadata {
    uint32_t stype;
    void *pNext;
    uint32_t type;
    char friendly_name[256];
    uint32_t data_type;
    uint64_t shape[8];
    uint32_t shape_size;
    char tensor_names[32][256];
    uint32_t tensor_names_count;
    char input_name[256];
} npu__ze_graph_argument_metadata;

typedef struct npu__ze_graph_memory_query {
    uint64_t total;
    uint64_t allocated;
} npu__ze_graph_memory_query;

typedef struct npu__ze_cq_desc_npu_ext {   /* ZE_extension_command_queue_npu 1.0 */
    uint32_t stype;                        /* 1 */
    const void *pNext;
    ze_bool_t turbo;
} npu__ze_cq_desc_npu_ext;

typedef struct npu__ze_cq_desc_npu_ext_2 { /* 1.1 */
    uint32_t stype;                        /* 2 */
    const void *pNext;
    uint32_t options;                      /* TURBO = 0x1 */
} npu__ze_cq_desc_npu_ext_2;

typedef struct npu__ze_import_system_memory {
    uint32_t stype;
    const void *pNext;
    void *pSystemMemory;
    uint64_t size;
} npu__ze_import_system_memory;

typedef npu__ze_graph_handle_t npu__zg;
typedef struct npu__ze_graph_ddi {
    ze_result_t (*pfnCreate)(ze_context_handle_t, ze_device_handle_t, const npu__ze_graph_desc *, npu__zg *);
    ze_result_t (*pfnDestroy)(npu__zg);
    ze_result_t (*pfnGetProperties)(npu__zg, npu__ze_graph_properties_2 *);
    ze_result_t (*pfnGetArgumentProperties)(npu__zg, uint32_t, npu__ze_graph_argument_properties_3 *);
    ze_result_t (*pfnSetArgumentValue)(npu__zg, uint32_t, const void *);
    ze_result_t (*pfnAppendGraphInitialize)(ze_command_list_handle_t, npu__zg, ze_event_handle_t, uint32_t,
                                            ze_event_handle_t *);
    ze_result_t (*pfnAppendGraphExecute)(ze_command_list_handle_t, npu__zg, void *, ze_event_handle_t, uint32_t,
                                         ze_event_handle_t *);
    ze_result_t (*pfnGetNativeBinary)(npu__zg, size_t *, uint8_t *);
    ze_result_t (*pfnDeviceGetGraphProperties)(ze_device_handle_t, npu__ze_device_graph_properties *);
    ze_result_t (*pfnGraphGetArgumentMetadata)(npu__zg, uint32_t, npu__ze_graph_argument_metadata *);
    ze_result_t (*pfnGetArgumentProperties2)(npu__zg, uint32_t, npu__ze_graph_argument_properties_3 *);
    ze_result_t (*pfnGetArgumentProperties3)(npu__zg, uint32_t, npu__ze_graph_argument_properties_3 *);
    void (*pfnQueryNetworkCreate)(void);
    void (*pfnQueryNetworkDestroy)(void);
    void (*pfnQueryNetworkGetSupportedLayers)(void);
    ze_result_t (*pfnBuildLogGetString)(npu__zg, uint32_t *, char *);
    ze_result_t (*pfnCreate2)(ze_context_handle_t, ze_device_handle_t, const npu__ze_graph_desc_2 *, npu__zg *);
    void (*pfnQueryNetworkCreate2)(void);
    ze_result_t (*pfnQueryContextMemory)(ze_context_handle_t, uint32_t, npu__ze_graph_memory_query *);
    void (*pfnDeviceGetGraphProperties2)(void);
    ze_result_t (*pfnGetNativeBinary2)(npu__zg, size_t *, const uint8_t **);
    ze_result_t (*pfnGetProperties2)(npu__zg, npu__ze_graph_properties_2 *);
    ze_result_t (*pfnGraphInitialize)(npu__zg);
    void (*pfnCompilerGetSupportedOptions)(void);
    ze_result_t (*pfnCompilerIsOptionSupported)(ze_device_handle_t, uint32_t, const char *, const char *);
    ze_result_t (*pfnCreate3)(ze_context_handle_t, ze_device_handle_t, const npu__ze_graph_desc_2 *, npu__zg *,
                              npu__ze_build_log_handle_t *);
    void (*pfnGetProperties3)(void);
    ze_result_t (*pfnBuildLogGetString2)(npu__ze_build_log_handle_t, uint32_t *, char *);
    ze_result_t (*pfnBuildLogDestroy)(npu__ze_build_log_handle_t);
    void (*pfnSetArgumentValue2)(void);
    void (*pfnEvict)(void);
} npu__ze_graph_ddi;

#if defined(__x86_64__) || defined(__aarch64__)
_Static_assert(sizeof(npu__ze_device_graph_properties) == 32, "ze_device_graph_properties_t");
_Static_assert(sizeof(npu__ze_graph_desc) == 48, "ze_graph_desc_t");
_Static_assert(sizeof(npu__ze_graph_desc_2) == 56, "ze_graph_desc_2_t");
_Static_assert(offsetof(npu__ze_graph_desc_2, flags) == 48, "ze_graph_desc_2_t.flags");
_Static_assert(sizeof(npu__ze_graph_properties_2) == 24, "ze_graph_properties_2_t");
_Static_assert(offsetof(npu__ze_graph_argument_properties_3, type) == 272, "arg props type");
_Static_assert(offsetof(npu__ze_graph_argument_properties_3, devicePrecision) == 304, "arg props devicePrecision");
_Static_assert(offsetof(npu__ze_graph_argument_properties_3, quantReverseScale) == 312, "arg props 2");
_Static_assert(offsetof(npu__ze_graph_argument_properties_3, dims_count) == 320, "arg props 3 dims_count");
_Static_assert(offsetof(npu__ze_graph_argument_properties_3, associated_tensor_names) == 580, "arg props 3 names");
_Static_assert(sizeof(npu__ze_graph_argument_properties_3) == 8776, "ze_graph_argument_properties_3_t");
_Static_assert(offsetof(npu__ze_graph_argument_metadata, data_type) == 276, "metadata data_type");
_Static_assert(offsetof(npu__ze_graph_argument_metadata, shape) == 280, "metadata shape");
_Static_assert(offsetof(npu__ze_graph_argument_metadata, shape_size) == 344, "metadata shape_size");
_Static_assert(offsetof(npu__ze_graph_argument_metadata, tensor_names_count) == 8540, "metadata count");
_Static_assert(sizeof(npu__ze_graph_argument_metadata) == 8800, "ze_graph_argument_metadata_t");
_Static_assert(sizeof(npu__ze_graph_ddi) == 31 * sizeof(void (*)(void)), "ze_graph_dditable_ext_t");
_Static_assert(sizeof(npu__ze_cq_desc_npu_ext) == 24, "ze_command_queue_desc_npu_ext_t");
#endif

static const uint8_t npu__intel_npu_driver_uuid[16] = {0x01, 0x7d, 0xe9, 0x31, 0x6b, 0x4d, 0x4f, 0xd4,
                                                       0xaa, 0x9b, 0x5b, 0xed, 0x77, 0xfc, 0x8e, 0x89};

static npu_status npu__ze_fail(npu_context *ctx, const char *what, ze_result_t r)
{
    return npu__fail(ctx, NPU_ERR_DRIVER, "%s failed: ze_result_t 0x%08x", what, (unsigned)r);
}

#define NPU__ZE(ctx, call, name)                                  \
    do {                                                          \
        ze_result_t npu__r = (call);                              \
        if (npu__r != ZE_RESULT_SUCCESS) return npu__ze_fail((ctx), (name), npu__r); \
    } while (0)

/* ---- Objects ---- */

#define NPU__ARG_INPUT 0
#define NPU__ARG_OUTPUT 1
#define NPU__ARG_STATE_IN 2
#define NPU__ARG_STATE_OUT 3

typedef struct npu__arg {
    npu_tensor_desc desc;         /* as the caller sees it (full batch) */
    char name[NPU_NAME_MAX];      /* desc.name points here (states: past the prefix) */
    char ze_name[NPU_NAME_MAX];   /* the driver's argument name */
    uint32_t kind;                /* NPU__ARG_* */
    uint32_t pair;                /* states: the arg index of the other half */
    uint32_t batch_axis;
    uint32_t ze_precision;
    uint64_t slice_bytes;         /* bytes of one batch element as compiled (states:
                                     desc.bytes); a request's list i binds base +
                                     i x slice_bytes */
} npu__arg;

struct npu_device {
    npu_context *ctx;
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t zctx;
    ze_command_queue_handle_t queue;
    const npu__ze_graph_ddi *g;
    uint32_t ext_version;
    uint32_t queue_ordinal;
    ze_command_queue_priority_t queue_priority;
    int queue_turbo;
    uint32_t cq_ext_version;      /* 0: no command-queue NPU extension */
    uint32_t api_version;
    uint32_t compiler_version;
    uint32_t max_opset;
    int no_weights_copy;
    int host_import;
    int is_simulated;
    ze_driver_properties_t driver_props;
    ze_device_properties_t props;
};

struct npu_model {
    npu_device *dev;
    npu_context *ctx;
    npu__ze_graph_handle_t graph;
    ze_command_queue_handle_t queue;      /* dev->queue or own_queue */
    ze_command_queue_handle_t own_queue;
    uint32_t n_args;
    uint32_t n_inputs, n_outputs, n_states;
    npu__arg *args;                       /* driver order */
    uint32_t *order;                      /* inputs, outputs, then (in, out) per state */
    uint32_t batch_lists;                 /* N command lists per inference (>= 1) */
    int dynamic_batch;                    /* compiled at batch 1 from a dynamic batch:
                                             requests choose 1..max_batch lists */
    npu_model_info info;                  /* npu_model_get_info */
    ze_command_list_handle_t init_list;   /* command-list initialization (< 1.8), */
    ze_fence_handle_t init_fence;         /* kept until destroy: no release can fail
                                             inside a successful create */
    void *map;                            /* import_file mapping kept for the graph */
    size_t map_size;
    size_t arena_bytes;
#ifdef NPU__HAVE_ATOMICS
    atomic_flag record_lock;              /* serializes SetArgumentValue + Append */
#endif
};

typedef struct npu__req_arg {
    void *own;          /* driver host allocation (full batch, rounded to 4096) */
    void *imported;     /* caller memory imported into the driver (used in place) */
    void *user;         /* caller memory copied around each inference */
} npu__req_arg;

struct npu_request {
    npu_model *model;
    npu_context *ctx;
    ze_command_queue_handle_t queue;
    ze_fence_handle_t fence;
    uint32_t n_lists;                /* per set: model->batch_lists, or max_batch for a
                                        dynamic-batch model */
    uint32_t n_active;               /* lists submitted per inference (<= n_lists) */
    uint32_t n_sets;                 /* 2 with states (alternating buffers), else 1 */
    uint32_t set;                    /* set the next inference submits */
    int running;
    ze_command_list_handle_t *lists; /* n_sets * n_lists */
    npu__req_arg *a;                 /* per driver argument */
    uint32_t *copy_in, *copy_out;    /* args with a caller buffer in copy mode */
    uint32_t n_copy_in, n_copy_out;
};

/* ---- Helpers ---- */

static size_t npu__round_page(uint64_t n)
{
    uint64_t r = (n + 4095u) & ~(uint64_t)4095u;
    if (r == 0) r = 4096;
    return (size_t)r;
}

static uint64_t npu__now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static ze_command_queue_priority_t npu__ze_priority(npu_priority p)
{
    switch (p) {
    case NPU_PRIORITY_LOW: return ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_LOW;
    case NPU_PRIORITY_HIGH: return ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH;
    default: return ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
    }
}

static const char *npu__platform_name(uint32_t device_id)
{
    switch (device_id) {
    case 0x7D1D: case 0xAD1D: return "3720";
    case 0x643E: return "4000";
    case 0xB03E: case 0xFD3E: return "50xx";
    default: return "unknown";
    }
}

static npu_type npu__type_from_ze(uint32_t prec)
{
    int t;
    for (t = 1; t < (int)NPU_TYPE_COUNT; t++)
        if (npu__types[t].ze_precision == prec) return (npu_type)t;
    return NPU_TYPE_UNDEFINED;
}

static const char *npu__layout_from_ze(uint32_t code)
{
    switch (code) {
    case 0x1: return "NCHW";
    case 0x2: return "NHWC";
    case 0x3: return "NCDHW";
    case 0x4: return "NDHWC";
    case 0x60: return "C";
    case 0x80: return "CHW";
    case 0xC0: return "HW";
    case 0xC1: return "NC";
    case 0xC2: return "CN";
    default: return "";
    }
}

static uint32_t npu__rank_from_layout(uint32_t code, const uint32_t *dims)
{
    uint32_t r;
    switch (code) {
    case 0x1: case 0x2: return 4;
    case 0x3: case 0x4: return 5;
    case 0x60: return 1;
    case 0x80: return 3;
    case 0xC0: case 0xC1: case 0xC2: return 2;
    default: break;
    }
    for (r = 5; r > 1 && dims[r - 1] == 1; r--) {}
    return r;
}

static const char *npu__layout_by_rank(uint32_t rank)
{
    static const char *const by_rank[] = {"SCALAR", "C", "NC", "CHW", "NCHW", "NCDHW"};
    return rank < 6 ? by_rank[rank] : "BLOCKED";
}

/* Polite spin lock (record_lock); recordings are short and rare. */
static void npu__model_lock(npu_model *m)
{
#ifdef NPU__HAVE_ATOMICS
    while (atomic_flag_test_and_set_explicit(&m->record_lock, memory_order_acquire)) sched_yield();
#else
    NPU__UNUSED(m);
#endif
}

static void npu__model_unlock(npu_model *m)
{
#ifdef NPU__HAVE_ATOMICS
    atomic_flag_clear_explicit(&m->record_lock, memory_order_release);
#else
    NPU__UNUSED(m);
#endif
}

/* ==== Device ============================================================== */

size_t npu_device_size(void) { return NPU_ARENA_ROUND(sizeof(struct npu_device)); }

#define NPU__MAX_DRIVERS 16
#define NPU__MAX_DEVICES 16
#define NPU__MAX_EXTENSIONS 96

static const char npu__no_device_hint[] =
    "To run on the software NPU instead: make sim; then set "
    "ZE_ENABLE_ALT_DRIVERS=/abs/path/build/libze_npu_sim.so (the Level Zero loader then loads it)";

/* Finds the graph extension of a driver: the highest 1.x version offered under a
 * name starting with "ZE_extension_graph". *version 0 if none. Also notes the
 * command-queue NPU extension. */
static npu_status npu__probe_extensions(npu_context *ctx, ze_driver_handle_t drv, char *name, uint32_t *version,
                                        uint32_t *cq_version)
{
    ze_driver_extension_properties_t ext[NPU__MAX_EXTENSIONS];
    uint32_t n = 0, i;
    ze_result_t r;
    *version = 0;
    *cq_version = 0;
    name[0] = '\0';
    r = zeDriverGetExtensionProperties(drv, &n, NULL);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDriverGetExtensionProperties", r);
    if (n > NPU__MAX_EXTENSIONS) n = NPU__MAX_EXTENSIONS;
    memset(ext, 0, sizeof ext);
    r = zeDriverGetExtensionProperties(drv, &n, ext);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDriverGetExtensionProperties", r);
    for (i = 0; i < n && i < NPU__MAX_EXTENSIONS; i++) {
        ext[i].name[ZE_MAX_EXTENSION_NAME - 1] = '\0';
        if (strncmp(ext[i].name, NPU__ZE_GRAPH_EXT_PREFIX, sizeof NPU__ZE_GRAPH_EXT_PREFIX - 1) == 0) {
            if ((ext[i].version >> 16) != 1) continue;
            if (ext[i].version > *version) {
                *version = ext[i].version;
                npu__strlcpy(name, ext[i].name, ZE_MAX_EXTENSION_NAME);
            }
        } else if (strcmp(ext[i].name, NPU__ZE_CQ_NPU_EXT_NAME) == 0) {
            *cq_version = ext[i].version;
        }
    }
    return NPU_OK;
}

/* The first VPU device of a driver (any device when want_vpu is 0). */
static npu_status npu__probe_device(npu_context *ctx, ze_driver_handle_t drv, int want_vpu,
                                    ze_device_handle_t *out)
{
    ze_device_handle_t devs[NPU__MAX_DEVICES];
    uint32_t n = 0, i;
    ze_result_t r;
    *out = NULL;
    r = zeDeviceGet(drv, &n, NULL);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDeviceGet", r);
    if (n > NPU__MAX_DEVICES) n = NPU__MAX_DEVICES;
    if (n == 0) return NPU_OK;
    r = zeDeviceGet(drv, &n, devs);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDeviceGet", r);
    for (i = 0; i < n; i++) {
        ze_device_properties_t p;
        memset(&p, 0, sizeof p);
        p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
        r = zeDeviceGetProperties(devs[i], &p);
        if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDeviceGetProperties", r);
        if (p.type == ZE_DEVICE_TYPE_VPU) {
            *out = devs[i];
            return NPU_OK;
        }
    }
    if (!want_vpu) *out = devs[0];
    return NPU_OK;
}

static npu_status npu__select_driver(npu_device *d, char *ext_name)
{
    npu_context *ctx = d->ctx;
    ze_driver_handle_t drivers[NPU__MAX_DRIVERS];
    uint32_t n = 0, i, pass;
    ze_result_t r;
    npu_status st;

    r = zeInit(ZE_INIT_FLAG_VPU_ONLY);
    if (r != ZE_RESULT_SUCCESS) r = zeInit(0);
    if (r != ZE_RESULT_SUCCESS)
        return npu__fail(ctx, NPU_ERR_NO_DEVICE,
                         "no NPU: zeInit failed (ze_result_t 0x%08x): the Level Zero loader found no usable "
                         "driver (searched its default drivers libze_intel_gpu.so.1 and libze_intel_vpu.so.1, "
                         "or the list in ZE_ENABLE_ALT_DRIVERS). %s",
                         (unsigned)r, npu__no_device_hint);
    r = zeDriverGet(&n, NULL);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDriverGet", r);
    if (n > NPU__MAX_DRIVERS) n = NPU__MAX_DRIVERS;
    if (n > 0) {
        r = zeDriverGet(&n, drivers);
        if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDriverGet", r);
    }
    /* Pass 0: Intel's NPU driver by UUID. Pass 1: any driver with a VPU device
     * and the graph extension. */
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < n; i++) {
            ze_driver_properties_t dp;
            ze_device_handle_t dev = NULL;
            uint32_t version = 0, cq = 0;
            int intel;
            memset(&dp, 0, sizeof dp);
            dp.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
            r = zeDriverGetProperties(drivers[i], &dp);
            if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(ctx, "zeDriverGetProperties", r);
            intel = memcmp(dp.uuid.id, npu__intel_npu_driver_uuid, 16) == 0;
            if (pass == 0 && !intel) continue;
            if (pass == 1 && intel) continue;
            st = npu__probe_device(ctx, drivers[i], pass == 1, &dev);
            if (st != NPU_OK) return st;
            if (dev == NULL) continue;
            st = npu__probe_extensions(ctx, drivers[i], ext_name, &version, &cq);
            if (st != NPU_OK) return st;
            if (version == 0) continue;
            d->driver = drivers[i];
            d->device = dev;
            d->driver_props = dp;
            d->is_simulated = !intel;
            d->ext_version = version < NPU__ZE_GRAPH_EXT_MAX ? version : NPU__ZE_GRAPH_EXT_MAX;
            d->cq_ext_version = cq;
            return NPU_OK;
        }
    }
    return npu__fail(ctx, NPU_ERR_NO_DEVICE,
                     "no NPU: %u Level Zero driver(s) found, none is Intel's NPU driver (UUID "
                     "017de931-6b4d-4fd4-aa9b-5bed77fc8e89) or has a VPU device offering the "
                     "\"ZE_extension_graph\" extension. %s",
                     (unsigned)n, npu__no_device_hint);
}

static npu_status npu__create_queue(npu_device *d, ze_command_queue_priority_t prio, int turbo,
                                    ze_command_queue_handle_t *out)
{
    ze_command_queue_desc_t qd;
    npu__ze_cq_desc_npu_ext t1;
    npu__ze_cq_desc_npu_ext_2 t2;
    ze_result_t r;
    memset(&qd, 0, sizeof qd);
    qd.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
    qd.ordinal = d->queue_ordinal;
    qd.index = 0;
    qd.flags = 0;
    qd.mode = ZE_COMMAND_QUEUE_MODE_DEFAULT;
    qd.priority = prio;
    if (turbo && d->cq_ext_version >= NPU__ZE_VERSION(1, 1)) {
        t2.stype = 2;
        t2.pNext = NULL;
        t2.options = 1;
        qd.pNext = &t2;
    } else if (turbo && d->cq_ext_version != 0) {
        t1.stype = 1;
        t1.pNext = NULL;
        t1.turbo = 1;
        qd.pNext = &t1;
    } else if (turbo) {
        npu__log(d->ctx, NPU_LOG_INFO, "turbo ignored: the driver has no %s", NPU__ZE_CQ_NPU_EXT_NAME);
    }
    r = zeCommandQueueCreate(d->zctx, d->device, &qd, out);
    if (r != ZE_RESULT_SUCCESS) {
        *out = NULL;
        return npu__ze_fail(d->ctx, "zeCommandQueueCreate", r);
    }
    return NPU_OK;
}

static void npu__device_release(npu_device *d)
{
    if (d->queue != NULL) zeCommandQueueDestroy(d->queue);
    if (d->zctx != NULL) zeContextDestroy(d->zctx);
    d->queue = NULL;
    d->zctx = NULL;
}

static npu_status npu__device_init(npu_device *d, const npu_device_options *opts)
{
    npu_context *ctx = d->ctx;
    char ext_name[ZE_MAX_EXTENSION_NAME];
    ze_command_queue_group_properties_t groups[16];
    npu__ze_device_graph_properties gp;
    ze_context_desc_t cd;
    ze_api_version_t api = (ze_api_version_t)0;
    uint32_t n = 0, i;
    npu_status st;
    ze_result_t r;

    st = npu__select_driver(d, ext_name);
    if (st != NPU_OK) return st;
    d->props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    NPU__ZE(ctx, zeDeviceGetProperties(d->device, &d->props), "zeDeviceGetProperties");
    d->props.name[ZE_MAX_DEVICE_NAME - 1] = '\0';
    NPU__ZE(ctx, zeDriverGetApiVersion(d->driver, &api), "zeDriverGetApiVersion");
    d->api_version = (uint32_t)api;
    r = zeDriverGetExtensionFunctionAddress(d->driver, ext_name, (void **)(void *)&d->g);
    if (r != ZE_RESULT_SUCCESS || d->g == NULL) {
        d->g = NULL;
        return npu__fail(ctx, NPU_ERR_NO_DEVICE,
                         "no NPU: zeDriverGetExtensionFunctionAddress(\"%s\") failed: ze_result_t 0x%08x. %s",
                         ext_name, (unsigned)r, npu__no_device_hint);
    }
    memset(&gp, 0, sizeof gp);
    gp.stype = NPU__ZE_STYPE_DEVICE_GRAPH_PROPERTIES;
    NPU__ZE(ctx, d->g->pfnDeviceGetGraphProperties(d->device, &gp), "pfnDeviceGetGraphProperties");
    /* The device may report a lower version than the extension list. */
    if ((gp.graphExtensionVersion >> 16) == 1 && gp.graphExtensionVersion < d->ext_version)
        d->ext_version = gp.graphExtensionVersion;
    d->compiler_version = NPU__ZE_VERSION(gp.compilerVersion.major, gp.compilerVersion.minor);
    d->max_opset = gp.maxOVOpsetVersionSupported;
    if (d->ext_version >= NPU__ZE_VERSION(1, 11) && d->g->pfnCompilerIsOptionSupported != NULL) {
        r = d->g->pfnCompilerIsOptionSupported(d->device, NPU__ZE_NPU_COMPILER_OPTIONS,
                                               "NPU_MODEL_SERIALIZER_VERSION", "NO_WEIGHTS_COPY");
        if (r == ZE_RESULT_SUCCESS)
            d->no_weights_copy = 1;
        else if (r != ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)
            return npu__ze_fail(ctx, "pfnCompilerIsOptionSupported", r);
    }
    {
        ze_device_external_memory_properties_t em;
        memset(&em, 0, sizeof em);
        em.stype = ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES;
        r = zeDeviceGetExternalMemoryProperties(d->device, &em);
        if (r == ZE_RESULT_SUCCESS)
            d->host_import = (em.memoryAllocationImportTypes & NPU__ZE_EXTERNAL_MEMORY_STANDARD_ALLOCATION) != 0;
        else if (r != ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)
            return npu__ze_fail(ctx, "zeDeviceGetExternalMemoryProperties", r);
    }
    /* Queue ordinal: the group whose flags are exactly COMPUTE, else the first
     * with COMPUTE, else 0. */
    NPU__ZE(ctx, zeDeviceGetCommandQueueGroupProperties(d->device, &n, NULL),
            "zeDeviceGetCommandQueueGroupProperties");
    if (n > 16) n = 16;
    memset(groups, 0, sizeof groups);
    for (i = 0; i < n; i++) groups[i].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
    if (n > 0)
        NPU__ZE(ctx, zeDeviceGetCommandQueueGroupProperties(d->device, &n, groups),
                "zeDeviceGetCommandQueueGroupProperties");
    d->queue_ordinal = 0;
    for (i = 0; i < n && i < 16; i++)
        if (groups[i].flags == ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) break;
    if (i < n && i < 16) {
        d->queue_ordinal = i;
    } else {
        for (i = 0; i < n && i < 16; i++)
            if (groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) {
                d->queue_ordinal = i;
                break;
            }
    }
    memset(&cd, 0, sizeof cd);
    cd.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC;
    r = zeContextCreate(d->driver, &cd, &d->zctx);
    if (r != ZE_RESULT_SUCCESS) {
        d->zctx = NULL;
        return npu__ze_fail(ctx, "zeContextCreate", r);
    }
    d->queue_priority = npu__ze_priority(opts ? opts->priority : NPU_PRIORITY_DEFAULT);
    d->queue_turbo = opts != NULL && opts->turbo;
    st = npu__create_queue(d, d->queue_priority, d->queue_turbo, &d->queue);
    if (st != NPU_OK) return st;
    npu__log(ctx, NPU_LOG_INFO, "device: %s (0x%04x), graph extension %u.%u (%s), compiler %u.%u%s",
             d->props.name, (unsigned)d->props.deviceId, (unsigned)(d->ext_version >> 16),
             (unsigned)(d->ext_version & 0xffffu), ext_name, (unsigned)(d->compiler_version >> 16),
             (unsigned)(d->compiler_version & 0xffffu), d->is_simulated ? ", simulated" : "");
    return NPU_OK;
}

npu_status npu_device_open(npu_arena *arena, npu_context *ctx, const npu_device_options *options,
                           npu_device **out)
{
    npu_device *d;
    size_t mark;
    npu_status st;
    if (out == NULL) return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_device_open: out is NULL");
    *out = NULL;
    if (arena == NULL) return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_device_open: arena is NULL");
    if (options != NULL && (unsigned)options->priority > (unsigned)NPU_PRIORITY_HIGH)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_device_open: priority %d is not an npu_priority",
                         (int)options->priority);
    mark = arena->used;
    d = (npu_device *)npu__alloc(arena, ctx, sizeof *d, "device");
    if (d == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    d->ctx = ctx;
    st = npu__device_init(d, options);
    if (st != NPU_OK) {
        npu__device_release(d);
        npu_arena_rewind(arena, mark);
        return st;
    }
    *out = d;
    return NPU_OK;
}

void npu_device_close(npu_device *dev)
{
    if (dev == NULL) return;
    npu__device_release(dev);
}

uint32_t npu_device_optimal_requests(const npu_device *dev, npu_performance_hint hint)
{
    if (dev == NULL) return 0;
    if (hint != NPU_HINT_THROUGHPUT) return 1;
    /* OpenVINO NPU plugin table: 3720 -> 4, 4000 -> 8; later platforms as 4000. */
    switch (dev->props.deviceId) {
    case 0x7D1D: case 0xAD1D: return 4;
    default: return 8;
    }
}

npu_status npu_device_get_properties(npu_device *dev, npu_device_properties *out)
{
    if (dev == NULL || out == NULL) return npu__fail(dev ? dev->ctx : NULL, NPU_ERR_INVALID_ARGUMENT,
                                                     "npu_device_get_properties: NULL argument");
    memset(out, 0, sizeof *out);
    npu__strlcpy(out->name, dev->props.name, sizeof out->name);
    npu__strlcpy(out->platform, npu__platform_name(dev->props.deviceId), sizeof out->platform);
    out->device_id = dev->props.deviceId;
    out->vendor_id = dev->props.vendorId;
    out->driver_version = dev->driver_props.driverVersion;
    out->api_version = dev->api_version;
    out->graph_ext_version = dev->ext_version;
    out->compiler_version = dev->compiler_version;
    out->max_opset = dev->max_opset;
    out->optimal_requests_latency = npu_device_optimal_requests(dev, NPU_HINT_LATENCY);
    out->optimal_requests_throughput = npu_device_optimal_requests(dev, NPU_HINT_THROUGHPUT);
    out->no_weights_copy = dev->no_weights_copy;
    out->host_memory_import = dev->host_import;
    out->is_simulated = dev->is_simulated;
    memcpy(out->driver_uuid, dev->driver_props.uuid.id, 16);
    if (dev->ext_version >= NPU__ZE_VERSION(1, 5) && dev->g->pfnQueryContextMemory != NULL) {
        npu__ze_graph_memory_query q = {0, 0};
        NPU__ZE(dev->ctx, dev->g->pfnQueryContextMemory(dev->zctx, NPU__ZE_MEMORY_QUERY_DDR, &q),
                "pfnQueryContextMemory");
        out->memory_total = q.total;
        out->memory_allocated = q.allocated;
    }
    return NPU_OK;
}

static const char *const npu__device_property_names[] = {
    "FULL_DEVICE_NAME", "DEVICE_ARCHITECTURE", "DEVICE_TYPE", "DEVICE_UUID", "NPU_BACKEND_NAME",
    "NPU_DRIVER_VERSION", "NPU_COMPILER_VERSION", "NPU_GRAPH_EXTENSION_VERSION", "NPU_MAX_OPSET",
    "NPU_DEVICE_TOTAL_MEM_SIZE", "NPU_DEVICE_ALLOC_MEM_SIZE", "OPTIMAL_NUMBER_OF_INFER_REQUESTS",
    "NPU_IS_SIMULATED", NULL};

const char *const *npu_device_supported_properties(void) { return npu__device_property_names; }

npu_status npu_device_get_property(npu_device *dev, const char *name, char *dst, size_t cap, size_t *size)
{
    npu_device_properties p;
    char text[320];
    npu__sink s;
    npu_status st;
    size_t i;
    if (dev == NULL || name == NULL)
        return npu__fail(dev ? dev->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_device_get_property: NULL argument");
    for (i = 0; npu__device_property_names[i] != NULL; i++)
        if (strcmp(npu__device_property_names[i], name) == 0) break;
    if (npu__device_property_names[i] == NULL)
        return npu__fail(dev->ctx, NPU_ERR_NOT_FOUND, "device property '%s' is not supported", name);
    st = npu_device_get_properties(dev, &p);
    if (st != NPU_OK) return st;
    switch (i) {
    case 0: snprintf(text, sizeof text, "%s", p.name); break;
    case 1: snprintf(text, sizeof text, "%s", p.platform); break;
    case 2: snprintf(text, sizeof text, "%s",
                     (dev->props.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) ? "INTEGRATED" : "DISCRETE");
        break;
    case 3: {
        size_t k;
        for (k = 0; k < 16; k++) snprintf(text + 2 * k, 3, "%02x", (unsigned)dev->props.uuid.id[k]);
        break;
    }
    case 4: snprintf(text, sizeof text, "LEVEL0"); break;
    case 5: snprintf(text, sizeof text, "%u", (unsigned)p.driver_version); break;
    case 6: snprintf(text, sizeof text, "%u", (unsigned)p.compiler_version); break;
    case 7: snprintf(text, sizeof text, "%u.%u", (unsigned)(p.graph_ext_version >> 16),
                     (unsigned)(p.graph_ext_version & 0xffffu));
        break;
    case 8: snprintf(text, sizeof text, "%u", (unsigned)p.max_opset); break;
    case 9: snprintf(text, sizeof text, "%llu", (unsigned long long)p.memory_total); break;
    case 10: snprintf(text, sizeof text, "%llu", (unsigned long long)p.memory_allocated); break;
    case 11: snprintf(text, sizeof text, "%u", (unsigned)p.optimal_requests_latency); break;
    default: snprintf(text, sizeof text, "%s", p.is_simulated ? "YES" : "NO"); break;
    }
    npu__sink_init(&s, dst, cap);
    npu__sink_put(&s, text, strlen(text) + 1);
    return npu__sink_finish(&s, dev->ctx, name, size);
}

/* ==== Model =============================================================== */

size_t npu_model_size(uint32_t n_args)
{
    if (n_args > NPU_MAX_ARGS) return 0;
    return NPU_ARENA_ROUND(sizeof(struct npu_model)) + NPU_ARENA_ROUND((size_t)n_args * sizeof(npu__arg)) +
           NPU_ARENA_ROUND((size_t)n_args * sizeof(uint32_t));
}

/* Checks that every non-state argument of a freshly created model (batch_lists
 * 1) can be sliced along its batch axis: batch 1 there, and only 1s before it
 * (so that element i starts at i x slice_bytes). `what` names the batch for the
 * message ("8", "dynamic"). */
static npu_status npu__model_check_debatch(npu_model *m, const char *what)
{
    uint32_t i, k;
    if (m->n_states > 0)
        return npu__fail(m->ctx, NPU_ERR_UNSUPPORTED, "model: batch %s with %u state variable(s) cannot be "
                         "debatched", what, (unsigned)m->n_states);
    for (i = 0; i < m->n_args; i++) {
        npu__arg *a = &m->args[i];
        const char *kind = a->kind == NPU__ARG_INPUT ? "input" : "output";
        if (a->kind >= NPU__ARG_STATE_IN) continue;
        if (a->desc.shape.rank == 0 || a->batch_axis >= a->desc.shape.rank)
            return npu__fail(m->ctx, NPU_ERR_SHAPE, "model: %s '%s' has no batch axis to debatch batch %s into",
                             kind, a->desc.name, what);
        if (a->desc.shape.dims[a->batch_axis] != 1)
            return npu__fail(m->ctx, NPU_ERR_SHAPE,
                             "model: %s '%s' has batch %lld in the compiled graph; debatching batch %s needs 1",
                             kind, a->desc.name, (long long)a->desc.shape.dims[a->batch_axis], what);
        for (k = 0; k < a->batch_axis; k++)
            if (a->desc.shape.dims[k] != 1)
                return npu__fail(m->ctx, NPU_ERR_SHAPE,
                                 "model: %s '%s' has its batch on axis %u (layout %s) behind axis %u of size "
                                 "%lld; debatching needs the outermost axis",
                                 kind, a->desc.name, (unsigned)a->batch_axis, a->desc.layout, (unsigned)k,
                                 (long long)a->desc.shape.dims[k]);
    }
    return NPU_OK;
}

/* Sets the number of command lists a request runs per inference: every
 * non-state argument's user-visible batch axis (compiled as 1) becomes n. Used
 * by import (metadata batch size) and by the batching code (section 11). Only
 * on a model as created (batch_lists 1, not dynamic). */
static npu_status npu__model_set_batch(npu_model *m, uint32_t n)
{
    char what[24];
    uint32_t i;
    npu_status st;
    if (n <= 1 || n == m->batch_lists) return NPU_OK;
    snprintf(what, sizeof what, "%u", (unsigned)n);
    st = npu__model_check_debatch(m, what);
    if (st != NPU_OK) return st;
    for (i = 0; i < m->n_args; i++) {
        npu__arg *a = &m->args[i];
        if (a->kind >= NPU__ARG_STATE_IN) continue;
        a->desc.bytes = a->slice_bytes * n;
        a->desc.shape.dims[a->batch_axis] = (int64_t)n;
    }
    m->batch_lists = n;
    return NPU_OK;
}

/* A model compiled at batch 1 from a dynamic batch: the batch axis shows
 * NPU_DIM_DYNAMIC, desc.bytes stays one element's; requests pick the count. */
static npu_status npu__model_set_dynamic(npu_model *m)
{
    uint32_t i;
    npu_status st = npu__model_check_debatch(m, "dynamic");
    if (st != NPU_OK) return st;
    for (i = 0; i < m->n_args; i++) {
        npu__arg *a = &m->args[i];
        if (a->kind >= NPU__ARG_STATE_IN) continue;
        a->desc.shape.dims[a->batch_axis] = NPU_DIM_DYNAMIC;
    }
    m->dynamic_batch = 1;
    return NPU_OK;
}

static void npu__model_release(npu_model *m)
{
    if (m->graph != NULL) m->dev->g->pfnDestroy(m->graph);
    if (m->init_fence != NULL) zeFenceDestroy(m->init_fence);
    if (m->init_list != NULL) zeCommandListDestroy(m->init_list);
    if (m->own_queue != NULL) zeCommandQueueDestroy(m->own_queue);
    if (m->map != NULL) munmap(m->map, m->map_size);
    m->graph = NULL;
    m->init_fence = NULL;
    m->init_list = NULL;
    m->own_queue = NULL;
    m->map = NULL;
}

/* Command-list graph initialization (extension < 1.8, or stage 1 requested). */
static npu_status npu__graph_init_cmdlist(npu_model *m)
{
    npu_device *d = m->dev;
    ze_command_list_desc_t ld;
    ze_fence_desc_t fd;
    ze_command_list_handle_t cl = NULL;
    ze_fence_handle_t f = NULL;
    const char *fn = "zeCommandListCreate";
    ze_result_t r;
    memset(&ld, 0, sizeof ld);
    ld.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC;
    ld.commandQueueGroupOrdinal = d->queue_ordinal;
    memset(&fd, 0, sizeof fd);
    fd.stype = ZE_STRUCTURE_TYPE_FENCE_DESC;
    r = zeCommandListCreate(d->zctx, d->device, &ld, &cl);
    if (r == ZE_RESULT_SUCCESS) {
        fn = "pfnAppendGraphInitialize";
        r = d->g->pfnAppendGraphInitialize(cl, m->graph, NULL, 0, NULL);
    }
    if (r == ZE_RESULT_SUCCESS) {
        fn = "zeCommandListClose";
        r = zeCommandListClose(cl);
    }
    if (r == ZE_RESULT_SUCCESS) {
        fn = "zeFenceCreate";
        r = zeFenceCreate(m->queue, &fd, &f);
        if (r != ZE_RESULT_SUCCESS) f = NULL;
    }
    if (r == ZE_RESULT_SUCCESS) {
        fn = "zeCommandQueueExecuteCommandLists";
        r = zeCommandQueueExecuteCommandLists(m->queue, 1, &cl, f);
        if (r == ZE_RESULT_SUCCESS) {
            fn = "zeFenceHostSynchronize";
            r = zeFenceHostSynchronize(f, UINT64_MAX);
            if (r != ZE_RESULT_SUCCESS) zeCommandQueueSynchronize(m->queue, UINT64_MAX);
        }
    }
    m->init_fence = f;   /* released with the model (npu__model_release) */
    m->init_list = cl;
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, fn, r);
    return NPU_OK;
}

/* Reads one argument's properties into a. */
static npu_status npu__model_read_arg(npu_model *m, uint32_t index, npu__arg *a)
{
    npu_device *d = m->dev;
    npu__ze_graph_argument_properties_3 p;
    npu__ze_graph_argument_metadata md;
    int have_md = 0;
    uint32_t rank, k, v = d->ext_version, pv = d->ext_version;
    const char *display;
    npu_type t;
    ze_result_t r;

    memset(&p, 0, sizeof p);
    if (v >= NPU__ZE_VERSION(1, 2) && d->g->pfnGetArgumentProperties3 != NULL) {
        p.stype = NPU__ZE_STYPE_GRAPH_ARGUMENT_PROPERTIES_3;
        r = d->g->pfnGetArgumentProperties3(m->graph, index, &p);
        if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnGetArgumentProperties3", r);
    } else if (v >= NPU__ZE_VERSION(1, 1) && d->g->pfnGetArgumentProperties2 != NULL) {
        pv = NPU__ZE_VERSION(1, 1);
        p.stype = NPU__ZE_STYPE_GRAPH_ARGUMENT_PROPERTIES_2;
        r = d->g->pfnGetArgumentProperties2(m->graph, index, &p);
        if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnGetArgumentProperties2", r);
    } else {
        pv = NPU__ZE_VERSION(1, 0);
        p.stype = NPU__ZE_STYPE_GRAPH_ARGUMENT_PROPERTIES;
        r = d->g->pfnGetArgumentProperties(m->graph, index, &p);
        if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnGetArgumentProperties", r);
    }
    p.name[sizeof p.name - 1] = '\0';
    npu__strlcpy(a->ze_name, p.name, sizeof a->ze_name);
    a->kind = p.type == 1 ? NPU__ARG_OUTPUT : NPU__ARG_INPUT;
    if (strncmp(p.name, NPU__READ_VALUE_PREFIX, sizeof NPU__READ_VALUE_PREFIX - 1) == 0 && p.type == 0)
        a->kind = NPU__ARG_STATE_IN;
    else if (strncmp(p.name, NPU__ASSIGN_PREFIX, sizeof NPU__ASSIGN_PREFIX - 1) == 0 && p.type == 1)
        a->kind = NPU__ARG_STATE_OUT;
    else if (strncmp(p.name, "vpux_", 5) == 0)
        return npu__fail(m->ctx, NPU_ERR_UNSUPPORTED, "model: argument %u '%s' is a driver-internal "
                         "argument this runtime does not handle", (unsigned)index, p.name);

    /* Metadata (ext >= 1.6, as OpenVINO), not for state arguments. */
    if (v >= NPU__ZE_VERSION(1, 6) && d->g->pfnGraphGetArgumentMetadata != NULL && a->kind < NPU__ARG_STATE_IN) {
        memset(&md, 0, sizeof md);
        md.stype = NPU__ZE_STYPE_GRAPH_ARGUMENT_METADATA;
        r = d->g->pfnGraphGetArgumentMetadata(m->graph, index, &md);
        if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnGraphGetArgumentMetadata", r);
        md.friendly_name[sizeof md.friendly_name - 1] = '\0';
        for (k = 0; k < 32; k++) md.tensor_names[k][255] = '\0';
        have_md = 1;
    }

    a->ze_precision = p.devicePrecision;
    t = npu__type_from_ze(p.devicePrecision);
    if (t == NPU_TYPE_UNDEFINED)
        return npu__fail(m->ctx, NPU_ERR_UNSUPPORTED, "model: argument '%s' has element type 0x%02x "
                         "(ze_graph_argument_precision_t), which npu does not support", p.name,
                         (unsigned)p.devicePrecision);
    if (pv >= NPU__ZE_VERSION(1, 2))
        rank = p.dims_count;
    else if (have_md)
        rank = md.shape_size;
    else
        rank = npu__rank_from_layout(p.deviceLayout, p.dims);
    if (rank > 5)
        return npu__fail(m->ctx, NPU_ERR_LIMIT, "model: argument '%s' has rank %u (at most 5)", p.name,
                         (unsigned)rank);
    a->desc.type = t;
    a->desc.shape.rank = rank;
    for (k = 0; k < rank; k++) a->desc.shape.dims[k] = (int64_t)p.dims[k];
    a->desc.bytes = npu_shape_elements(&a->desc.shape) * npu__types[t].size;
    a->slice_bytes = a->desc.bytes;
    npu__strlcpy(a->desc.layout, npu__layout_from_ze(p.deviceLayout), sizeof a->desc.layout);
    if (strlen(a->desc.layout) != rank) a->desc.layout[0] = '\0';
    a->batch_axis = 0;

    /* Caller-facing name: the first tensor name, else the friendly name, else
     * the driver's argument name. States: the variable id. */
    display = p.name;
    if (a->kind == NPU__ARG_STATE_IN) {
        display = p.name + sizeof NPU__READ_VALUE_PREFIX - 1;
    } else if (a->kind == NPU__ARG_STATE_OUT) {
        display = p.name + sizeof NPU__ASSIGN_PREFIX - 1;
    } else if (pv >= NPU__ZE_VERSION(1, 2) && p.associated_tensor_names_count > 0) {
        p.associated_tensor_names[0][255] = '\0';
        display = p.associated_tensor_names[0];
    } else if (have_md && md.tensor_names_count > 0) {
        display = md.tensor_names[0];
    } else if (have_md && md.friendly_name[0] != '\0' && a->kind == NPU__ARG_OUTPUT) {
        display = md.friendly_name;
    }
    npu__strlcpy(a->name, display, sizeof a->name);
    a->desc.name = a->name;
    return NPU_OK;
}

/* After the graph exists: arguments, I/O tables, states, initialization. */
static npu_status npu__model_setup(npu_model *m, npu_arena *arena)
{
    npu_device *d = m->dev;
    npu__ze_graph_properties_2 gp;
    uint32_t i, j, n, k;
    npu_status st;
    ze_result_t r;

    memset(&gp, 0, sizeof gp);
    gp.stype = NPU__ZE_STYPE_GRAPH_PROPERTIES;
    r = d->g->pfnGetProperties(m->graph, &gp);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnGetProperties", r);
    n = gp.numGraphArgs;
    if (n > NPU_MAX_ARGS)
        return npu__fail(m->ctx, NPU_ERR_LIMIT, "model: the graph has %u arguments (at most %u)", (unsigned)n,
                         (unsigned)NPU_MAX_ARGS);
    m->n_args = n;
    if (n > 0) {
        m->args = (npu__arg *)npu__alloc(arena, m->ctx, (size_t)n * sizeof(npu__arg), "model arguments");
        if (m->args == NULL) return NPU_ERR_ARENA_TOO_SMALL;
        m->order = (uint32_t *)npu__alloc(arena, m->ctx, (size_t)n * sizeof(uint32_t), "model argument table");
        if (m->order == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    }
    for (i = 0; i < n; i++) {
        st = npu__model_read_arg(m, i, &m->args[i]);
        if (st != NPU_OK) return st;
    }
    /* order: inputs, outputs, then (in, out) per state. */
    k = 0;
    for (i = 0; i < n; i++)
        if (m->args[i].kind == NPU__ARG_INPUT) m->order[k++] = i;
    m->n_inputs = k;
    for (i = 0; i < n; i++)
        if (m->args[i].kind == NPU__ARG_OUTPUT) m->order[k++] = i;
    m->n_outputs = k - m->n_inputs;
    for (i = 0; i < n; i++) {
        npu__arg *in = &m->args[i];
        if (in->kind != NPU__ARG_STATE_IN) continue;
        for (j = 0; j < n; j++) {
            npu__arg *o = &m->args[j];
            if (o->kind == NPU__ARG_STATE_OUT && strcmp(o->name, in->name) == 0) break;
        }
        if (j == n)
            return npu__fail(m->ctx, NPU_ERR_UNSUPPORTED, "model: state '%s' has no assign output (%s%s)",
                             in->name, NPU__ASSIGN_PREFIX, in->name);
        if (m->args[j].desc.bytes != in->desc.bytes || m->args[j].desc.type != in->desc.type)
            return npu__fail(m->ctx, NPU_ERR_FORMAT, "model: state '%s': read and assign buffers differ",
                             in->name);
        in->pair = j;
        m->args[j].pair = i;
        m->order[k++] = i;
        m->order[k++] = j;
        m->n_states++;
    }
    if (k != n)
        return npu__fail(m->ctx, NPU_ERR_UNSUPPORTED, "model: %u assign output(s) without a read_value input",
                         (unsigned)(n - k));

    /* Initialization. */
    if (d->ext_version >= NPU__ZE_VERSION(1, 8)) {
        memset(&gp, 0, sizeof gp);
        gp.stype = NPU__ZE_STYPE_GRAPH_PROPERTIES_2;
        r = d->g->pfnGetProperties2(m->graph, &gp);
        if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnGetProperties2", r);
        if (gp.initStageRequired & NPU__ZE_GRAPH_STAGE_INITIALIZE) {
            r = d->g->pfnGraphInitialize(m->graph);
            if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnGraphInitialize", r);
        }
        if (gp.initStageRequired & NPU__ZE_GRAPH_STAGE_COMMAND_LIST_INITIALIZE) {
            st = npu__graph_init_cmdlist(m);
            if (st != NPU_OK) return st;
        }
    } else {
        st = npu__graph_init_cmdlist(m);
        if (st != NPU_OK) return st;
    }
    return NPU_OK;
}

typedef struct npu__create_args {
    uint32_t format;
    const void *input;
    size_t size;
    const char *flags_text;   /* NULL for NATIVE */
    uint32_t flags;
    npu_priority priority;
    int turbo;
    size_t transient_mark;    /* rewind here after create (payload/flags in arena) */
} npu__create_args;

/* Reads the calling thread's last create-failure log (ext >= 1.4) into buf. */
static void npu__build_log(npu_device *d, char *buf, size_t cap)
{
    uint32_t size = 0;
    ze_result_t r;
    buf[0] = '\0';
    if (d->ext_version < NPU__ZE_VERSION(1, 4)) return;
    r = d->g->pfnBuildLogGetString(NULL, &size, NULL);
    if (r == ZE_RESULT_SUCCESS && size > 0) {
        if (size > cap) size = (uint32_t)cap;
        d->g->pfnBuildLogGetString(NULL, &size, buf);
    }
    buf[cap - 1] = '\0';
}

static npu_status npu__model_create(npu_device *d, npu_arena *arena, const npu__create_args *c, npu_model **out)
{
    npu_context *ctx = d->ctx;
    npu__ze_graph_handle_t graph = NULL;
    npu__ze_graph_desc_2 desc2;
    const char *fn;
    npu_model *m;
    npu_status st;
    ze_result_t r;

    memset(&desc2, 0, sizeof desc2);
    desc2.stype = NPU__ZE_STYPE_GRAPH_DESC_2;
    desc2.format = c->format;
    desc2.inputSize = c->size;
    desc2.pInput = (const uint8_t *)c->input;
    desc2.pBuildFlags = c->flags_text;
    desc2.flags = c->flags;
    if (d->ext_version >= NPU__ZE_VERSION(1, 12) && d->g->pfnCreate3 != NULL) {
        /* No build-log handle: a failure's log comes from
         * pfnBuildLogGetString(NULL, ...), and a successful create leaves no
         * handle to release (nothing can leak if that release failed). */
        fn = "pfnCreate3";
        r = d->g->pfnCreate3(d->zctx, d->device, &desc2, &graph, NULL);
    } else if (d->ext_version >= NPU__ZE_VERSION(1, 5) && d->g->pfnCreate2 != NULL) {
        fn = "pfnCreate2";
        r = d->g->pfnCreate2(d->zctx, d->device, &desc2, &graph);
    } else {
        npu__ze_graph_desc desc1;
        memset(&desc1, 0, sizeof desc1);
        desc1.stype = NPU__ZE_STYPE_GRAPH_DESC;
        desc1.format = c->format;
        desc1.inputSize = c->size;
        desc1.pInput = (const uint8_t *)c->input;
        desc1.pBuildFlags = c->flags_text;
        fn = "pfnCreate";
        r = d->g->pfnCreate(d->zctx, d->device, &desc1, &graph);
    }
    if (r != ZE_RESULT_SUCCESS) {
        char text[3072];
        npu__build_log(d, text, sizeof text);
        npu_arena_rewind(arena, c->transient_mark);
        if (c->format == NPU__ZE_GRAPH_FORMAT_NATIVE)
            return npu__fail(ctx, r == ZE_RESULT_ERROR_INVALID_NATIVE_BINARY ? NPU_ERR_FORMAT : NPU_ERR_DRIVER,
                             "import: %s failed: ze_result_t 0x%08x%s%s", fn, (unsigned)r,
                             text[0] ? ": " : "", text);
        return npu__fail(ctx, NPU_ERR_COMPILE, "compile: %s failed: ze_result_t 0x%08x; build log: %s", fn,
                         (unsigned)r, text[0] ? text : "(empty)");
    }
    /* The driver has the payload/blob now: the transient arena space is free. */
    npu_arena_rewind(arena, c->transient_mark);
    m = (npu_model *)npu__alloc(arena, ctx, sizeof *m, "model");
    if (m == NULL) {
        d->g->pfnDestroy(graph);
        return NPU_ERR_ARENA_TOO_SMALL;
    }
    m->dev = d;
    m->ctx = ctx;
    m->graph = graph;
    m->queue = d->queue;
    m->batch_lists = 1;
    m->info.original_batch = 1;
#ifdef NPU__HAVE_ATOMICS
    atomic_flag_clear(&m->record_lock);
#endif
    st = NPU_OK;
    if ((c->priority != NPU_PRIORITY_DEFAULT && npu__ze_priority(c->priority) != d->queue_priority) ||
        (c->turbo && !d->queue_turbo)) {
        st = npu__create_queue(d, c->priority != NPU_PRIORITY_DEFAULT ? npu__ze_priority(c->priority)
                                                                      : d->queue_priority,
                               c->turbo || d->queue_turbo, &m->own_queue);
        if (st == NPU_OK) m->queue = m->own_queue;
    }
    if (st == NPU_OK) st = npu__model_setup(m, arena);
    if (st != NPU_OK) {
        npu__model_release(m);
        npu_arena_rewind(arena, c->transient_mark);
        return st;
    }
    m->arena_bytes = arena->used - c->transient_mark;
    *out = m;
    return NPU_OK;
}

/* ---- Build flags ---- */

static const char *npu__cfg_prefix(uint32_t compiler_version)
{
    if (compiler_version != 0 && compiler_version < NPU__ZE_VERSION(4, 0)) return "VPUX_";
    if (compiler_version != 0 && compiler_version < NPU__ZE_VERSION(5, 0)) return "VPU_";
    return "NPU_";
}

/* One I/O list ("--inputs_precisions=\"0:FP32 1:U8\""). descs may be NULL
 * (payload variant): then only overridden indices are listed. */
typedef struct npu__io_list {
    uint32_t count;
    npu_status (*get)(const void *src, uint32_t i, npu_tensor_desc *out);
    const void *src;
    const npu_type *overrides;
    uint32_t n_overrides;
} npu__io_list;

static void npu__flags_io(npu__sink *s, const npu__io_list *l, const char *dir, int layouts, int by_index,
                          int *first_opt)
{
    uint32_t i, n = l->get ? l->count : l->n_overrides, written = 0;
    for (i = 0; i < n; i++) {
        npu_tensor_desc desc;
        npu_type t = (l->overrides && i < l->n_overrides) ? l->overrides[i] : NPU_TYPE_UNDEFINED;
        memset(&desc, 0, sizeof desc);
        desc.name = "";
        if (l->get) {
            if (l->get(l->src, i, &desc) != NPU_OK) continue;
            if (!npu__type_valid(t)) t = desc.type;
        }
        if (!layouts && !npu__type_valid(t)) continue;
        if (written == 0) {
            if (!*first_opt) npu__sink_str(s, " ");
            *first_opt = 0;
            npu__sink_str(s, "--");
            npu__sink_str(s, dir);
            npu__sink_str(s, layouts ? "_layouts=\"" : "_precisions=\"");
        } else {
            npu__sink_str(s, " ");
        }
        written++;
        if (by_index || l->get == NULL)
            npu__sink_u64_dec(s, i);
        else
            npu__sink_str(s, desc.name);
        npu__sink_str(s, ":");
        npu__sink_str(s, layouts ? npu__layout_by_rank(desc.shape.rank) : npu__types[t].ov_precision);
    }
    if (written > 0) npu__sink_str(s, "\"");
}

static void npu__flags_write(npu__sink *s, const npu_device *d, const npu_compile_options *o,
                             const npu__io_list *in, const npu__io_list *outl)
{
    static const char *const hints[] = {"", "LATENCY", "THROUGHPUT"};
    static const char *const prios[] = {"", "LOW", "MEDIUM", "HIGH"};
    int first = 1, by_index = d->compiler_version >= NPU__ZE_VERSION(5, 9);
    const char *pre = npu__cfg_prefix(d->compiler_version);
    npu__flags_io(s, in, "inputs", 0, by_index, &first);
    if (in->get) npu__flags_io(s, in, "inputs", 1, by_index, &first);
    npu__flags_io(s, outl, "outputs", 0, by_index, &first);
    if (outl->get) npu__flags_io(s, outl, "outputs", 1, by_index, &first);
    if (o == NULL) return;
    if (o->hint == NPU_HINT_DEFAULT && o->priority == NPU_PRIORITY_DEFAULT && !o->turbo && o->tiles == 0 &&
        o->optimization_level == 0 && (o->extra_config == NULL || o->extra_config[0] == '\0'))
        return;
    npu__sink_str(s, first ? "--config" : " --config");
    if (o->hint > NPU_HINT_DEFAULT && o->hint <= NPU_HINT_THROUGHPUT) {
        npu__sink_str(s, " PERFORMANCE_HINT=\"");
        npu__sink_str(s, hints[o->hint]);
        npu__sink_str(s, "\"");
    }
    if (o->priority > NPU_PRIORITY_DEFAULT && o->priority <= NPU_PRIORITY_HIGH) {
        npu__sink_str(s, " MODEL_PRIORITY=\"");
        npu__sink_str(s, prios[o->priority]);
        npu__sink_str(s, "\"");
    }
    if (o->turbo) {
        npu__sink_str(s, " ");
        npu__sink_str(s, pre);
        npu__sink_str(s, "TURBO=\"YES\"");
    }
    if (o->tiles > 0) {
        npu__sink_str(s, " ");
        npu__sink_str(s, pre);
        npu__sink_str(s, "TILES=\"");
        npu__sink_u64_dec(s, o->tiles);
        npu__sink_str(s, "\"");
    }
    if (o->optimization_level >= 1 && o->optimization_level <= 3) {
        npu__sink_str(s, " ");
        npu__sink_str(s, pre);
        npu__sink_str(s, "COMPILATION_MODE_PARAMS=\"optimization-level=");
        npu__sink_u64_dec(s, (uint64_t)(o->optimization_level - 1));
        npu__sink_str(s, "\"");
    }
    if (o->extra_config != NULL && o->extra_config[0] != '\0') {
        npu__sink_str(s, " ");
        npu__sink_str(s, o->extra_config);
    }
}

static npu_status npu__check_compile_opts(npu_context *ctx, const npu_compile_options *o)
{
    uint32_t i;
    if (o == NULL) return NPU_OK;
    if ((unsigned)o->hint > (unsigned)NPU_HINT_THROUGHPUT || (unsigned)o->priority > (unsigned)NPU_PRIORITY_HIGH ||
        o->optimization_level < 0 || o->optimization_level > 3 ||
        (unsigned)o->payload_layout > (unsigned)NPU_PAYLOAD_WEIGHTS_COPY ||
        (unsigned)o->batch_mode > (unsigned)NPU_BATCH_COMPILER)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "compile options: hint, priority, optimization level, "
                         "payload layout or batch mode out of range");
    if ((o->input_types == NULL && o->n_input_types > 0) || (o->output_types == NULL && o->n_output_types > 0))
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "compile options: type override count without array");
    for (i = 0; i < o->n_input_types; i++)
        if (o->input_types[i] != NPU_TYPE_UNDEFINED && !npu__type_valid(o->input_types[i]))
            return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "compile options: input %u type %d is invalid",
                             (unsigned)i, (int)o->input_types[i]);
    for (i = 0; i < o->n_output_types; i++)
        if (o->output_types[i] != NPU_TYPE_UNDEFINED && !npu__type_valid(o->output_types[i]))
            return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "compile options: output %u type %d is invalid",
                             (unsigned)i, (int)o->output_types[i]);
    return NPU_OK;
}

/* Writes the flags string (NUL-terminated) into the arena; *text NULL when
 * empty. */
static npu_status npu__flags_alloc(npu_device *d, npu_arena *arena, const npu_compile_options *o,
                                   const npu__io_list *in, const npu__io_list *outl, const char **text)
{
    npu__sink s;
    char *buf;
    *text = NULL;
    npu__sink_init(&s, NULL, 0);
    npu__flags_write(&s, d, o, in, outl);
    if (s.overflow) return npu__fail(d->ctx, NPU_ERR_OVERFLOW, "build flags: size overflow");
    buf = (char *)npu__alloc(arena, d->ctx, s.len + 1, "build flags");
    if (buf == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    npu__sink_init(&s, buf, s.len + 1);
    npu__flags_write(&s, d, o, in, outl);
    buf[s.len] = '\0';
    *text = buf;
    return NPU_OK;
}

static size_t npu__flags_size(const npu_device *d, const npu_compile_options *o, const npu__io_list *in,
                              const npu__io_list *outl)
{
    npu__sink s;
    npu__sink_init(&s, NULL, 0);
    npu__flags_write(&s, d, o, in, outl);
    return NPU_ARENA_ROUND(s.len + 1);
}

static npu_status npu__compile(npu_device *d, npu_arena *arena, const void *payload, size_t size,
                               const char *flags, const npu_compile_options *o, size_t mark, npu_model **out)
{
    npu__create_args c;
    memset(&c, 0, sizeof c);
    c.format = NPU__ZE_GRAPH_FORMAT_NGRAPH_LITE;
    c.input = payload;
    c.size = size;
    c.flags_text = flags;
    /* Our cache replaces the driver's (OpenVINO does the same with CACHE_DIR). */
    c.flags = (o != NULL && (o->disable_driver_cache || o->cache_dir != NULL)) ? NPU__ZE_GRAPH_FLAG_DISABLE_CACHING
                                                                                : 0u;
    c.priority = o ? o->priority : NPU_PRIORITY_DEFAULT;
    c.turbo = o ? o->turbo : 0;
    c.transient_mark = mark;
    return npu__model_create(d, arena, &c, out);
}

npu_status npu_model_compile_payload(npu_device *dev, npu_arena *arena, const void *payload, size_t size,
                                     const npu_compile_options *opts, npu_model **out)
{
    npu__io_list in, outl;
    const char *flags = NULL;
    size_t mark;
    npu_status st;
    if (out != NULL) *out = NULL;
    if (dev == NULL || arena == NULL || payload == NULL || size == 0 || out == NULL)
        return npu__fail(dev ? dev->ctx : NULL, NPU_ERR_INVALID_ARGUMENT,
                         "npu_model_compile_payload: NULL argument or empty payload");
    st = npu__check_compile_opts(dev->ctx, opts);
    if (st != NPU_OK) return st;
    memset(&in, 0, sizeof in);
    memset(&outl, 0, sizeof outl);
    if (opts != NULL) {
        in.overrides = opts->input_types;
        in.n_overrides = opts->n_input_types;
        outl.overrides = opts->output_types;
        outl.n_overrides = opts->n_output_types;
    }
    mark = arena->used;
    st = npu__flags_alloc(dev, arena, opts, &in, &outl, &flags);
    if (st != NPU_OK) return st;
    return npu__compile(dev, arena, payload, size, flags, opts, mark, out);
}

static npu_payload_layout npu__pick_layout(const npu_device *d, const npu_compile_options *o)
{
    if (o != NULL && o->payload_layout != NPU_PAYLOAD_DEFAULT) return o->payload_layout;
    return d->no_weights_copy ? NPU_PAYLOAD_NO_WEIGHTS_COPY : NPU_PAYLOAD_WEIGHTS_COPY;
}

static npu_status npu__graph_in(const void *src, uint32_t i, npu_tensor_desc *out)
{
    return npu_graph_input((const npu_graph *)src, i, out);
}

static npu_status npu__graph_out(const void *src, uint32_t i, npu_tensor_desc *out)
{
    return npu_graph_output((const npu_graph *)src, i, out);
}

static npu_status npu__ir_in(const void *src, uint32_t i, npu_tensor_desc *out)
{
    const npu_ir_io *io = npu_ir_input((const npu_ir *)src, i);
    if (io == NULL) return NPU_ERR_NOT_FOUND;
    *out = io->desc;
    return NPU_OK;
}

static npu_status npu__ir_out(const void *src, uint32_t i, npu_tensor_desc *out)
{
    const npu_ir_io *io = npu_ir_output((const npu_ir *)src, i);
    if (io == NULL) return NPU_ERR_NOT_FOUND;
    *out = io->desc;
    return NPU_OK;
}

/* The layouts the graph / IR declares (e.g. "NHWC") replace the ones derived
 * from the compiled argument (which follow the rank), and give the batch axis. */
static void npu__model_source_layouts(npu_model *m, const npu__io_list *in, const npu__io_list *outl)
{
    uint32_t i;
    for (i = 0; i < m->n_inputs + m->n_outputs; i++) {
        const npu__io_list *l = i < m->n_inputs ? in : outl;
        uint32_t k = i < m->n_inputs ? i : i - m->n_inputs;
        npu__arg *a = &m->args[m->order[i]];
        npu_tensor_desc src;
        const char *nax;
        if (k >= l->count || l->get(l->src, k, &src) != NPU_OK) continue;
        if (src.layout[0] == '\0' || strlen(src.layout) != a->desc.shape.rank) continue;
        npu__strlcpy(a->desc.layout, src.layout, sizeof a->desc.layout);
        nax = strchr(a->desc.layout, 'N');
        a->batch_axis = nax ? (uint32_t)(nax - a->desc.layout) : 0;
    }
}

/* Source-independent part of the graph / IR compile paths. */
typedef struct npu__model_src {
    const void *src;
    int is_ir;
} npu__model_src;

static npu_status npu__src_payload(const npu__model_src *m, const npu_payload_options *po, void *dst, size_t cap,
                                   size_t *size)
{
    return m->is_ir ? npu_ir_write_payload((const npu_ir *)m->src, po, dst, cap, size)
                    : npu_graph_write_payload((const npu_graph *)m->src, po, dst, cap, size);
}

static void npu__src_lists(const npu__model_src *m, const npu_compile_options *o, npu__io_list *in,
                           npu__io_list *outl, uint32_t *n_args)
{
    memset(in, 0, sizeof *in);
    memset(outl, 0, sizeof *outl);
    in->src = outl->src = m->src;
    if (m->is_ir) {
        const npu_ir *ir = (const npu_ir *)m->src;
        in->count = npu_ir_input_count(ir);
        outl->count = npu_ir_output_count(ir);
        in->get = npu__ir_in;
        outl->get = npu__ir_out;
        *n_args = in->count + outl->count + 2 * npu_ir_state_count(ir);
    } else {
        const npu_graph *g = (const npu_graph *)m->src;
        in->count = npu_graph_input_count(g);
        outl->count = npu_graph_output_count(g);
        in->get = npu__graph_in;
        outl->get = npu__graph_out;
        *n_args = in->count + outl->count + 2 * npu_graph_state_count(g);
    }
    if (o != NULL) {
        in->overrides = o->input_types;
        in->n_overrides = o->n_input_types;
        outl->overrides = o->output_types;
        outl->n_overrides = o->n_output_types;
    }
}

/* Arena bytes one compile of `src` as it is now takes: max(payload + build
 * flags, model). The batching / cache layer (section 11) calls it per form. */
static npu_status npu__plain_size(npu_device *d, const npu__model_src *src, const npu_compile_options *o,
                                  size_t *bytes)
{
    npu_payload_options po;
    npu__io_list in, outl;
    uint32_t n_args = 0;
    size_t psize = 0, transient, model;
    npu_status st;
    memset(&po, 0, sizeof po);
    po.layout = npu__pick_layout(d, o);
    po.weights_threshold_bytes = o ? o->weights_threshold_bytes : 0;
    po.compiler_version = d->compiler_version;
    st = npu__src_payload(src, &po, NULL, 0, &psize);
    if (st != NPU_OK) return st;
    npu__src_lists(src, o, &in, &outl, &n_args);
    transient = NPU_ARENA_ROUND(psize) + npu__flags_size(d, o, &in, &outl);
    model = npu_model_size(n_args);
    *bytes = transient > model ? transient : model;
    return NPU_OK;
}

/* Compiles `src` as it is now: payload and build flags transiently in the
 * arena, then the model. *compile_ns gets the time of the driver call. The
 * caller (section 11) has checked the arguments. */
static npu_status npu__plain_compile(npu_device *d, npu_arena *arena, const npu__model_src *src,
                                     const npu_compile_options *o, uint64_t *compile_ns, npu_model **out)
{
    npu_payload_options po;
    npu__io_list in, outl;
    uint32_t n_args = 0;
    size_t psize = 0, mark;
    const char *flags = NULL;
    void *payload;
    uint64_t t0;
    npu_status st;
    *out = NULL;
    memset(&po, 0, sizeof po);
    po.layout = npu__pick_layout(d, o);
    po.weights_threshold_bytes = o ? o->weights_threshold_bytes : 0;
    po.compiler_version = d->compiler_version;
    st = npu__src_payload(src, &po, NULL, 0, &psize);
    if (st != NPU_OK) return st;
    mark = arena->used;
    payload = npu__alloc(arena, d->ctx, psize, "IR payload (transient)");
    if (payload == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    st = npu__src_payload(src, &po, payload, psize, &psize);
    if (st == NPU_OK) {
        npu__src_lists(src, o, &in, &outl, &n_args);
        st = npu__flags_alloc(d, arena, o, &in, &outl, &flags);
    }
    if (st != NPU_OK) {
        npu_arena_rewind(arena, mark);
        return st;
    }
    npu__log(d->ctx, NPU_LOG_DEBUG, "compile: payload %zu bytes, layout %s, flags: %s", psize,
             po.layout == NPU_PAYLOAD_WEIGHTS_COPY ? "A" : "B", flags ? flags : "");
    t0 = npu__now_ns();
    st = npu__compile(d, arena, payload, psize, flags, o, mark, out);
    *compile_ns = npu__now_ns() - t0;
    if (st == NPU_OK) npu__model_source_layouts(*out, &in, &outl);
    return st;
}

/* The build flags of `src` with these options into the arena (for the cache
 * key); the caller rewinds. */
static npu_status npu__src_flags(npu_device *d, npu_arena *arena, const npu__model_src *src,
                                 const npu_compile_options *o, const char **flags)
{
    npu__io_list in, outl;
    uint32_t n_args = 0;
    npu__src_lists(src, o, &in, &outl, &n_args);
    return npu__flags_alloc(d, arena, o, &in, &outl, flags);
}

/* ---- Import / export ---- */

/* A metadata layout as npu keeps it: "NCHW" stays, OpenVINO's
 * ov::Layout::to_string form "[N,C,H,W]" becomes "NCHW" (one-letter names
 * only; anything else gives ""). */
static void npu__layout_plain(const char *l, char out[NPU_LAYOUT_MAX])
{
    size_t n = strlen(l), i, k = 0;
    out[0] = '\0';
    if (n < 2 || l[0] != '[' || l[n - 1] != ']') {
        npu__strlcpy(out, l, NPU_LAYOUT_MAX);
        return;
    }
    for (i = 1; i + 1 < n; i++) {
        int name = l[i] != ',';
        if (name != (int)((i - 1) % 2 == 0) || k + 1 >= NPU_LAYOUT_MAX) {
            out[0] = '\0';
            return;
        }
        if (name) out[k++] = l[i];
    }
    out[k] = '\0';
}

static void npu__model_apply_layouts(npu_model *m, const npu__blob_meta *meta)
{
    uint32_t i, n;
    if (meta->n_input_layouts == m->n_inputs && meta->n_output_layouts == m->n_outputs &&
        meta->n_input_layouts + meta->n_output_layouts <= NPU__META_MAX_LAYOUTS) {
        n = m->n_inputs + m->n_outputs;
        for (i = 0; i < n; i++) {
            npu__arg *a = &m->args[m->order[i]];
            char l[NPU_LAYOUT_MAX];
            const char *nax;
            npu__layout_plain(meta->layouts[i], l);
            if (strlen(l) != a->desc.shape.rank) continue;
            npu__strlcpy(a->desc.layout, l, sizeof a->desc.layout);
            nax = strchr(l, 'N');
            a->batch_axis = nax ? (uint32_t)(nax - l) : 0;
        }
    }
}

static npu_status npu__import(npu_device *d, npu_arena *arena, const void *blob, size_t size,
                              const npu_import_options *opts, int persistent_ok, int *persistent,
                              npu_model **out)
{
    npu__blob_meta meta;
    npu__create_args c;
    npu_status st;
    npu_model *m = NULL;
    uint64_t t0 = npu__now_ns();
    if (out != NULL) *out = NULL;
    if (d == NULL || arena == NULL || blob == NULL || size == 0 || out == NULL)
        return npu__fail(d ? d->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_model_import: NULL argument or empty blob");
    if (opts != NULL && (unsigned)opts->priority > (unsigned)NPU_PRIORITY_HIGH)
        return npu__fail(d->ctx, NPU_ERR_INVALID_ARGUMENT, "import options: priority out of range");
    memset(&meta, 0, sizeof meta);
    st = npu__meta_read(d->ctx, (const unsigned char *)blob, size, &meta);
    if (st != NPU_OK) return st;   /* FORMAT (malformed tail) or UNSUPPORTED (encrypted, ...) */
    if (meta.blob_size == 0 || meta.blob_size > size)
        return npu__fail(d->ctx, NPU_ERR_FORMAT, "import: blob size %llu in the metadata exceeds the %zu bytes given",
                         (unsigned long long)meta.blob_size, size);
    memset(&c, 0, sizeof c);
    c.format = NPU__ZE_GRAPH_FORMAT_NATIVE;
    c.input = blob;
    c.size = (size_t)meta.blob_size;
    c.priority = opts ? opts->priority : NPU_PRIORITY_DEFAULT;
    c.turbo = opts ? opts->turbo : 0;
    c.transient_mark = arena->used;
    if (persistent_ok && d->ext_version >= NPU__ZE_VERSION(1, 13) && ((uintptr_t)blob % 4096u) == 0 &&
        (c.size % 4096u) == 0)
        c.flags |= NPU__ZE_GRAPH_FLAG_INPUT_GRAPH_PERSISTENT;
    *persistent = (c.flags & NPU__ZE_GRAPH_FLAG_INPUT_GRAPH_PERSISTENT) != 0;
    st = npu__model_create(d, arena, &c, &m);
    if (st != NPU_OK) return st;
    npu__model_apply_layouts(m, &meta);
    m->info.original_batch = 1;
    if (meta.batch_size > 1 || meta.batch_size == NPU_DIM_DYNAMIC) {
        if (meta.batch_size > NPU__MAX_BATCH) {
            st = npu__fail(d->ctx, NPU_ERR_FORMAT, "import: metadata batch size %lld is out of range (at most %u)",
                           (long long)meta.batch_size, (unsigned)NPU__MAX_BATCH);
        } else if (meta.batch_size == NPU_DIM_DYNAMIC) {
            st = npu__model_set_dynamic(m);
        } else {
            st = npu__model_set_batch(m, (uint32_t)meta.batch_size);
        }
        if (st != NPU_OK) {
            npu__model_release(m);
            npu_arena_rewind(arena, c.transient_mark);
            return st;
        }
        m->info.batch_mode = NPU_BATCH_PLUGIN;
        m->info.original_batch = meta.batch_size;
    }
    m->info.import_ns = npu__now_ns() - t0;
    *out = m;
    return NPU_OK;
}

npu_status npu_model_import(npu_device *dev, npu_arena *arena, const void *blob, size_t size,
                            const npu_import_options *opts, npu_model **out)
{
    int persistent = 0;
    return npu__import(dev, arena, blob, size, opts, opts != NULL && opts->blob_persistent, &persistent, out);
}

npu_status npu_model_import_file(npu_device *dev, npu_arena *arena, const char *path,
                                 const npu_import_options *opts, npu_model **out)
{
    struct stat sb;
    void *map;
    size_t size;
    int fd, persistent = 0;
    npu_status st;
    if (out != NULL) *out = NULL;
    if (dev == NULL || path == NULL)
        return npu__fail(dev ? dev->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_model_import_file: NULL argument");
    fd = open(path, O_RDONLY);
    if (fd < 0) return npu__fail(dev->ctx, NPU_ERR_IO, "import '%s': %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return npu__fail(dev->ctx, NPU_ERR_IO, "import '%s': %s", path, strerror(e));
    }
    if (sb.st_size <= 0 || (uint64_t)sb.st_size > (uint64_t)SIZE_MAX) {
        close(fd);
        return npu__fail(dev->ctx, NPU_ERR_FORMAT, "import '%s': empty or oversized file", path);
    }
    size = (size_t)sb.st_size;
    map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return npu__fail(dev->ctx, NPU_ERR_IO, "import '%s': mmap: %s", path, strerror(errno));
    st = npu__import(dev, arena, map, size, opts, 1, &persistent, out);
    if (st != NPU_OK) {
        munmap(map, size);
        return st;
    }
    if (persistent) {
        /* The driver may use the mapping in place: keep it until destroy. */
        (*out)->map = map;
        (*out)->map_size = size;
        return NPU_OK;
    }
    munmap(map, size);
    return NPU_OK;
}

static npu_status npu__native_blob(npu_model *m, const uint8_t **ptr, size_t *size)
{
    npu_device *d = m->dev;
    ze_result_t r;
    *ptr = NULL;
    *size = 0;
    if (d->ext_version >= NPU__ZE_VERSION(1, 7) && d->g->pfnGetNativeBinary2 != NULL) {
        r = d->g->pfnGetNativeBinary2(m->graph, size, ptr);
        if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnGetNativeBinary2", r);
        return NPU_OK;
    }
    r = d->g->pfnGetNativeBinary(m->graph, size, NULL);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(m->ctx, "pfnGetNativeBinary", r);
    return NPU_OK;
}

static void npu__model_meta(const npu_model *m, npu__blob_meta *meta)
{
    uint32_t i, n = m->n_inputs + m->n_outputs;
    memset(meta, 0, sizeof *meta);
    meta->ov_version[0] = NPU_VERSION_MAJOR;   /* npu writes its own version (cache.h) */
    meta->ov_version[1] = NPU_VERSION_MINOR;
    meta->ov_version[2] = NPU_VERSION_PATCH;
    meta->batch_size = m->dynamic_batch ? (int64_t)NPU_DIM_DYNAMIC
                       : m->batch_lists > 1 ? (int64_t)m->batch_lists : 0;
    meta->compiler_version = m->dev->compiler_version;
    meta->blob_type = 0;
    if (n <= NPU__META_MAX_LAYOUTS) {
        meta->n_input_layouts = m->n_inputs;
        meta->n_output_layouts = m->n_outputs;
        for (i = 0; i < n; i++) npu__strlcpy(meta->layouts[i], m->args[m->order[i]].desc.layout, NPU_LAYOUT_MAX);
    }
}

npu_status npu_model_export(npu_model *model, void *dst, size_t cap, size_t *size)
{
    npu__blob_meta meta;
    const uint8_t *blob = NULL;
    size_t bsize = 0;
    npu__sink s;
    npu_status st;
    if (model == NULL || size == NULL)
        return npu__fail(model ? model->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_model_export: NULL argument");
    st = npu__native_blob(model, &blob, &bsize);
    if (st != NPU_OK) return st;
    npu__model_meta(model, &meta);
    npu__sink_init(&s, dst, cap);
    if (blob != NULL) {
        npu__sink_put(&s, blob, bsize);
    } else {
        /* GetNativeBinary v1: copy straight into dst when it fits. */
        if (dst != NULL && bsize <= cap) {
            size_t got = bsize;
            ze_result_t r = model->dev->g->pfnGetNativeBinary(model->graph, &got, (uint8_t *)dst);
            if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(model->ctx, "pfnGetNativeBinary", r);
        }
        s.len = bsize;
    }
    npu__meta_write(&s, &meta);
    return npu__sink_finish(&s, model->ctx, "model export", size);
}

npu_status npu_model_export_file(npu_model *model, const char *path)
{
    char tmp[4096], dir[4096];
    size_t size = 0, n;
    const char *slash;
    void *map = MAP_FAILED;
    int fd = -1, dfd;
    npu_status st;
    if (model == NULL || path == NULL)
        return npu__fail(model ? model->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_model_export_file: NULL argument");
    st = npu_model_export(model, NULL, 0, &size);
    if (st != NPU_OK) return st;
    if (npu__strlcpy(tmp, path, sizeof tmp) + 16 >= sizeof tmp)
        return npu__fail(model->ctx, NPU_ERR_IO, "export '%s': path too long", path);
    n = strlen(tmp);
    memcpy(tmp + n, ".tmp.XXXXXX", 12);
    fd = mkstemp(tmp);
    if (fd < 0) return npu__fail(model->ctx, NPU_ERR_IO, "export '%s': cannot create a temporary file: %s", path,
                                 strerror(errno));
    if (fchmod(fd, 0644) != 0 || ftruncate(fd, (off_t)size) != 0) {
        st = npu__fail(model->ctx, NPU_ERR_IO, "export '%s': %s", tmp, strerror(errno));
        goto fail;
    }
    map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        st = npu__fail(model->ctx, NPU_ERR_IO, "export '%s': mmap: %s", tmp, strerror(errno));
        goto fail;
    }
    st = npu_model_export(model, map, size, &size);
    if (st != NPU_OK) goto fail;
    if (msync(map, size, MS_SYNC) != 0) {
        st = npu__fail(model->ctx, NPU_ERR_IO, "export '%s': msync: %s", tmp, strerror(errno));
        goto fail;
    }
    munmap(map, size);
    map = MAP_FAILED;
    if (fsync(fd) != 0) {
        st = npu__fail(model->ctx, NPU_ERR_IO, "export '%s': fsync: %s", tmp, strerror(errno));
        goto fail;
    }
    if (close(fd) != 0) {
        fd = -1;
        st = npu__fail(model->ctx, NPU_ERR_IO, "export '%s': close: %s", tmp, strerror(errno));
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) != 0) {
        st = npu__fail(model->ctx, NPU_ERR_IO, "export '%s': rename: %s", path, strerror(errno));
        goto fail;
    }
    slash = strrchr(path, '/');
    if (slash == NULL) {
        npu__strlcpy(dir, ".", sizeof dir);
    } else {
        n = (size_t)(slash - path);
        if (n == 0) n = 1;
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    dfd = open(dir, O_RDONLY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return NPU_OK;
fail:
    if (map != MAP_FAILED) munmap(map, size);
    if (fd >= 0) close(fd);
    unlink(tmp);
    return st;
}

void npu_model_destroy(npu_model *model)
{
    if (model == NULL) return;
    npu__model_release(model);
}

size_t npu_model_arena_bytes(const npu_model *model) { return model ? model->arena_bytes : 0; }

uint32_t npu_model_input_count(const npu_model *m) { return m ? m->n_inputs : 0; }
uint32_t npu_model_output_count(const npu_model *m) { return m ? m->n_outputs : 0; }
uint32_t npu_model_state_count(const npu_model *m) { return m ? m->n_states : 0; }
uint32_t npu_model_batch(const npu_model *m) { return m ? m->batch_lists : 0; }

npu_status npu_model_get_info(const npu_model *model, npu_model_info *out)
{
    if (model == NULL || out == NULL)
        return npu__fail(model ? model->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_model_get_info: NULL argument");
    *out = model->info;
    return NPU_OK;
}

const npu_tensor_desc *npu_model_input(const npu_model *m, uint32_t i)
{
    return m && i < m->n_inputs ? &m->args[m->order[i]].desc : NULL;
}

const npu_tensor_desc *npu_model_output(const npu_model *m, uint32_t i)
{
    return m && i < m->n_outputs ? &m->args[m->order[m->n_inputs + i]].desc : NULL;
}

const npu_tensor_desc *npu_model_state(const npu_model *m, uint32_t i)
{
    return m && i < m->n_states ? &m->args[m->order[m->n_inputs + m->n_outputs + 2 * i]].desc : NULL;
}

/* ==== Request ============================================================= */

static uint32_t npu__req_sets(const npu_model *m) { return m->n_states > 0 ? 2u : 1u; }

/* Command lists per set: the model's batch, or max_batch (dynamic batch). */
static uint32_t npu__req_lists(const npu_model *m, const npu_request_options *opts)
{
    uint32_t n = opts != NULL ? opts->max_batch : 0;
    if (!m->dynamic_batch) return m->batch_lists;
    if (n < 1) n = 1;
    return n > NPU__MAX_BATCH ? NPU__MAX_BATCH : n;
}

/* Bytes of argument i in this request's buffers: n_lists elements (states and
 * unbatched arguments: desc.bytes). */
static uint64_t npu__req_arg_bytes(const npu_request *q, uint32_t i, uint32_t lists)
{
    const npu__arg *a = &q->model->args[i];
    return a->kind >= NPU__ARG_STATE_IN ? a->desc.bytes : a->slice_bytes * lists;
}

size_t npu_request_size(const npu_model *m, const npu_request_options *opts)
{
    if (m == NULL) return 0;
    return NPU_ARENA_ROUND(sizeof(struct npu_request)) +
           NPU_ARENA_ROUND((size_t)npu__req_sets(m) * npu__req_lists(m, opts) * sizeof(ze_command_list_handle_t)) +
           NPU_ARENA_ROUND((size_t)m->n_args * sizeof(npu__req_arg)) +
           NPU_ARENA_ROUND((size_t)2 * m->n_args * sizeof(uint32_t));
}

/* The pointer argument `i` gets in set `set` (before the batch offset). */
static void *npu__req_bound(const npu_request *q, uint32_t i, uint32_t set)
{
    const npu__arg *a = &q->model->args[i];
    if (a->kind >= NPU__ARG_STATE_IN) return set == 0 ? q->a[i].own : q->a[a->pair].own;
    return q->a[i].imported ? q->a[i].imported : q->a[i].own;
}

/* (Re-)records every command list. Serialized per model. */
static npu_status npu__req_record(npu_request *q, int reset)
{
    npu_model *m = q->model;
    const npu__ze_graph_ddi *g = m->dev->g;
    uint32_t set, l, i;
    const char *fn = NULL;
    ze_result_t r = ZE_RESULT_SUCCESS;
    npu__model_lock(m);
    for (set = 0; set < q->n_sets && r == ZE_RESULT_SUCCESS; set++) {
        for (l = 0; l < q->n_lists && r == ZE_RESULT_SUCCESS; l++) {
            ze_command_list_handle_t cl = q->lists[set * q->n_lists + l];
            if (reset) {
                fn = "zeCommandListReset";
                r = zeCommandListReset(cl);
            }
            for (i = 0; i < m->n_args && r == ZE_RESULT_SUCCESS; i++) {
                const npu__arg *a = &m->args[i];
                unsigned char *p = (unsigned char *)npu__req_bound(q, i, set);
                if (a->kind < NPU__ARG_STATE_IN) p += (size_t)a->slice_bytes * l;
                fn = "pfnSetArgumentValue";
                r = g->pfnSetArgumentValue(m->graph, i, p);
            }
            if (r == ZE_RESULT_SUCCESS) {
                fn = "pfnAppendGraphExecute";
                r = g->pfnAppendGraphExecute(cl, m->graph, NULL, NULL, 0, NULL);
            }
            if (r == ZE_RESULT_SUCCESS) {
                fn = "zeCommandListClose";
                r = zeCommandListClose(cl);
            }
        }
    }
    npu__model_unlock(m);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(q->ctx, fn, r);
    return NPU_OK;
}

static void npu__req_release(npu_request *q)
{
    uint32_t i;
    if (q->lists != NULL)
        for (i = 0; i < q->n_sets * q->n_lists; i++)
            if (q->lists[i] != NULL) zeCommandListDestroy(q->lists[i]);
    if (q->fence != NULL) zeFenceDestroy(q->fence);
    if (q->a != NULL)
        for (i = 0; i < q->model->n_args; i++) {
            if (q->a[i].own != NULL) zeMemFree(q->model->dev->zctx, q->a[i].own);
            if (q->a[i].imported != NULL) zeMemFree(q->model->dev->zctx, q->a[i].imported);
            q->a[i].own = q->a[i].imported = NULL;
        }
    q->fence = NULL;
}

static npu_status npu__req_init(npu_request *q, const npu_request_options *opts)
{
    npu_model *m = q->model;
    npu_device *d = m->dev;
    ze_command_list_desc_t ld;
    ze_fence_desc_t fd;
    uint32_t i;
    ze_result_t r;
    for (i = 0; i < m->n_args; i++) {
        const npu__arg *a = &m->args[i];
        ze_host_mem_alloc_desc_t hd;
        memset(&hd, 0, sizeof hd);
        hd.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
        hd.flags = (a->kind == NPU__ARG_INPUT && !(opts && opts->cached_inputs))
                       ? (ze_host_mem_alloc_flags_t)ZE_HOST_MEM_ALLOC_FLAG_BIAS_WRITE_COMBINED
                       : 0;
        r = zeMemAllocHost(d->zctx, &hd, npu__round_page(npu__req_arg_bytes(q, i, q->n_lists)), 4096,
                           &q->a[i].own);
        if (r != ZE_RESULT_SUCCESS) {
            q->a[i].own = NULL;
            return npu__ze_fail(q->ctx, "zeMemAllocHost", r);
        }
        if (a->kind >= NPU__ARG_STATE_IN) memset(q->a[i].own, 0, (size_t)a->desc.bytes);
    }
    memset(&fd, 0, sizeof fd);
    fd.stype = ZE_STRUCTURE_TYPE_FENCE_DESC;
    r = zeFenceCreate(q->queue, &fd, &q->fence);
    if (r != ZE_RESULT_SUCCESS) {
        q->fence = NULL;
        return npu__ze_fail(q->ctx, "zeFenceCreate", r);
    }
    memset(&ld, 0, sizeof ld);
    ld.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC;
    ld.commandQueueGroupOrdinal = d->queue_ordinal;
    for (i = 0; i < q->n_sets * q->n_lists; i++) {
        r = zeCommandListCreate(d->zctx, d->device, &ld, &q->lists[i]);
        if (r != ZE_RESULT_SUCCESS) {
            q->lists[i] = NULL;
            return npu__ze_fail(q->ctx, "zeCommandListCreate", r);
        }
    }
    return npu__req_record(q, 0);
}

npu_status npu_request_create(npu_model *model, npu_arena *arena, const npu_request_options *opts,
                              npu_request **out)
{
    npu_request *q;
    npu_context *ctx = model ? model->ctx : NULL;
    size_t mark;
    npu_status st;
    if (out != NULL) *out = NULL;
    if (model == NULL || arena == NULL || out == NULL)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_request_create: NULL argument");
    if (opts != NULL && model->dynamic_batch && opts->max_batch > NPU__MAX_BATCH)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_request_create: max_batch %u exceeds %u",
                         (unsigned)opts->max_batch, (unsigned)NPU__MAX_BATCH);
    mark = arena->used;
    q = (npu_request *)npu__alloc(arena, ctx, sizeof *q, "request");
    if (q == NULL) return NPU_ERR_ARENA_TOO_SMALL;
    q->model = model;
    q->ctx = ctx;
    q->queue = model->queue;
    q->n_lists = npu__req_lists(model, opts);
    q->n_active = q->n_lists;
    q->n_sets = npu__req_sets(model);
    q->lists = (ze_command_list_handle_t *)npu__alloc(
        arena, ctx, (size_t)q->n_sets * q->n_lists * sizeof(ze_command_list_handle_t), "request command lists");
    if (q->lists != NULL && model->n_args > 0) {
        q->a = (npu__req_arg *)npu__alloc(arena, ctx, (size_t)model->n_args * sizeof(npu__req_arg),
                                          "request buffers");
        if (q->a != NULL)
            q->copy_in = (uint32_t *)npu__alloc(arena, ctx, (size_t)2 * model->n_args * sizeof(uint32_t),
                                                "request copy tables");
        if (q->copy_in != NULL) q->copy_out = q->copy_in + model->n_args;
    }
    if (q->lists == NULL || (model->n_args > 0 && q->copy_in == NULL)) {
        npu_arena_rewind(arena, mark);
        return NPU_ERR_ARENA_TOO_SMALL;
    }
    st = npu__req_init(q, opts);
    if (st != NPU_OK) {
        npu__req_release(q);
        npu_arena_rewind(arena, mark);
        return st;
    }
    *out = q;
    return NPU_OK;
}

void npu_request_destroy(npu_request *req)
{
    if (req == NULL) return;
    if (req->running) {
        if (zeFenceHostSynchronize(req->fence, UINT64_MAX) != ZE_RESULT_SUCCESS)
            zeCommandQueueSynchronize(req->queue, UINT64_MAX);
        req->running = 0;
    }
    npu__req_release(req);
}

static uint32_t npu__req_arg_of(const npu_request *q, int output, uint32_t index)
{
    const npu_model *m = q->model;
    if (output) return index < m->n_outputs ? m->order[m->n_inputs + index] : UINT32_MAX;
    return index < m->n_inputs ? m->order[index] : UINT32_MAX;
}

static void *npu__req_data(npu_request *q, int output, uint32_t index)
{
    uint32_t i;
    if (q == NULL) return NULL;
    i = npu__req_arg_of(q, output, index);
    if (i == UINT32_MAX) return NULL;
    if (q->a[i].user != NULL) return q->a[i].user;
    return q->a[i].imported ? q->a[i].imported : q->a[i].own;
}

void *npu_request_input(npu_request *req, uint32_t index) { return npu__req_data(req, 0, index); }
void *npu_request_output(npu_request *req, uint32_t index) { return npu__req_data(req, 1, index); }

static npu_status npu__req_find(const npu_request *q, int output, const char *name, uint32_t *index)
{
    const npu_model *m;
    uint32_t i, n;
    if (q == NULL || name == NULL || index == NULL)
        return npu__fail(q ? q->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "npu_request_find: NULL argument");
    m = q->model;
    n = output ? m->n_outputs : m->n_inputs;
    for (i = 0; i < n; i++) {
        const npu__arg *a = &m->args[npu__req_arg_of(q, output, i)];
        if (strcmp(a->name, name) == 0 || strcmp(a->ze_name, name) == 0) {
            *index = i;
            return NPU_OK;
        }
    }
    return npu__fail(q->ctx, NPU_ERR_NOT_FOUND, "the model has no %s named '%s'", output ? "output" : "input", name);
}

npu_status npu_request_find_input(const npu_request *req, const char *name, uint32_t *index)
{
    return npu__req_find(req, 0, name, index);
}

npu_status npu_request_find_output(const npu_request *req, const char *name, uint32_t *index)
{
    return npu__req_find(req, 1, name, index);
}

static void npu__req_copy_tables(npu_request *q)
{
    const npu_model *m = q->model;
    uint32_t i;
    q->n_copy_in = q->n_copy_out = 0;
    for (i = 0; i < m->n_args; i++) {
        if (q->a[i].user == NULL) continue;
        if (m->args[i].kind == NPU__ARG_INPUT)
            q->copy_in[q->n_copy_in++] = i;
        else
            q->copy_out[q->n_copy_out++] = i;
    }
}

static npu_status npu__req_set_buffer(npu_request *q, int output, uint32_t index, void *ptr, size_t size)
{
    npu_model *m;
    npu_device *d;
    npu__req_arg *ra;
    const npu__arg *a;
    void *old_import;
    uint32_t i;
    npu_status st;
    if (q == NULL) return NPU_ERR_INVALID_ARGUMENT;
    m = q->model;
    d = m->dev;
    if (q->running)
        return npu__fail(q->ctx, NPU_ERR_STATE, "request: cannot change a buffer while an inference runs");
    i = npu__req_arg_of(q, output, index);
    if (i == UINT32_MAX)
        return npu__fail(q->ctx, NPU_ERR_NOT_FOUND, "the model has no %s %u (it has %u)", output ? "output" : "input",
                         (unsigned)index, (unsigned)(output ? m->n_outputs : m->n_inputs));
    a = &m->args[i];
    ra = &q->a[i];
    if (ptr != NULL && size < npu__req_arg_bytes(q, i, q->n_lists))
        return npu__fail(q->ctx, NPU_ERR_BUFFER_TOO_SMALL, "%s '%s': buffer of %zu bytes, %llu needed",
                         output ? "output" : "input", a->desc.name, size,
                         (unsigned long long)npu__req_arg_bytes(q, i, q->n_lists));
    old_import = ra->imported;
    ra->user = NULL;
    ra->imported = NULL;
    if (ptr != NULL && d->host_import && ((uintptr_t)ptr % 4096u) == 0 && (size % 4096u) == 0) {
        npu__ze_import_system_memory imp;
        ze_host_mem_alloc_desc_t hd;
        void *p = NULL;
        ze_result_t r;
        memset(&imp, 0, sizeof imp);
        imp.stype = NPU__ZE_STYPE_IMPORT_SYSTEM_MEMORY;
        imp.pSystemMemory = ptr;
        imp.size = size;
        memset(&hd, 0, sizeof hd);
        hd.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
        hd.pNext = &imp;
        r = zeMemAllocHost(d->zctx, &hd, size, 4096, &p);
        if (r == ZE_RESULT_SUCCESS && p == ptr) {
            ra->imported = p;
        } else {
            if (r == ZE_RESULT_SUCCESS) zeMemFree(d->zctx, p);
            npu__log(q->ctx, NPU_LOG_INFO, "%s '%s': host memory import failed (0x%08x); copying instead",
                     output ? "output" : "input", a->desc.name, (unsigned)r);
            ra->user = ptr;
        }
    } else if (ptr != NULL) {
        ra->user = ptr;
    }
    npu__req_copy_tables(q);
    if (old_import != NULL || ra->imported != NULL) {
        st = npu__req_record(q, 1);
        if (old_import != NULL) zeMemFree(d->zctx, old_import);
        if (st != NPU_OK) {
            /* Lists are in an unknown state: fall back to the own buffer. */
            if (ra->imported != NULL) zeMemFree(d->zctx, ra->imported);
            ra->imported = NULL;
            ra->user = NULL;
            npu__req_copy_tables(q);
            if (npu__req_record(q, 1) != NPU_OK)
                npu__log(q->ctx, NPU_LOG_ERROR, "request: re-recording failed; the request is unusable");
            return st;
        }
    }
    return NPU_OK;
}

npu_status npu_request_set_input_buffer(npu_request *req, uint32_t index, void *ptr, size_t size)
{
    return npu__req_set_buffer(req, 0, index, ptr, size);
}

npu_status npu_request_set_output_buffer(npu_request *req, uint32_t index, void *ptr, size_t size)
{
    return npu__req_set_buffer(req, 1, index, ptr, size);
}

/* ---- Hot path: no formatting, lookup or allocation unless a call fails ---- */

npu_status npu_request_set_batch(npu_request *req, uint32_t n)
{
    if (req == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (req->running) return npu__fail(req->ctx, NPU_ERR_STATE, "request: set_batch while an inference runs");
    if (!req->model->dynamic_batch) {
        if (n != req->n_lists)
            return npu__fail(req->ctx, NPU_ERR_INVALID_ARGUMENT,
                             "request: set_batch(%u): the model has the static batch %u (only dynamic-batch "
                             "models take another count)",
                             (unsigned)n, (unsigned)req->n_lists);
        return NPU_OK;
    }
    if (n < 1 || n > req->n_lists)
        return npu__fail(req->ctx, NPU_ERR_INVALID_ARGUMENT,
                         "request: set_batch(%u): the request was created for 1 to %u (npu_request_options.max_batch)",
                         (unsigned)n, (unsigned)req->n_lists);
    req->n_active = n;
    return NPU_OK;
}

npu_status npu_request_start(npu_request *q)
{
    uint32_t k;
    ze_result_t r;
    if (q == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (q->running) return npu__fail(q->ctx, NPU_ERR_STATE, "request: an inference is already running");
    for (k = 0; k < q->n_copy_in; k++) {
        uint32_t i = q->copy_in[k];
        memcpy(q->a[i].own, q->a[i].user, (size_t)npu__req_arg_bytes(q, i, q->n_active));
    }
    /* All lists of the batch in one submission, one fence. */
    r = zeCommandQueueExecuteCommandLists(q->queue, q->n_active, q->lists + (size_t)q->set * q->n_lists, q->fence);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(q->ctx, "zeCommandQueueExecuteCommandLists", r);
    q->running = 1;
    return NPU_OK;
}

npu_status npu_request_wait(npu_request *q, uint64_t timeout_ns)
{
    uint32_t k;
    ze_result_t r;
    if (q == NULL) return NPU_ERR_INVALID_ARGUMENT;
    if (!q->running) return NPU_OK;
    r = zeFenceHostSynchronize(q->fence, timeout_ns);
    if (r == ZE_RESULT_NOT_READY) return NPU_NOT_READY;
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(q->ctx, "zeFenceHostSynchronize", r);
    r = zeFenceReset(q->fence);
    if (r != ZE_RESULT_SUCCESS) return npu__ze_fail(q->ctx, "zeFenceReset", r);
    q->running = 0;
    for (k = 0; k < q->n_copy_out; k++) {
        uint32_t i = q->copy_out[k];
        memcpy(q->a[i].user, q->a[i].own, (size_t)npu__req_arg_bytes(q, i, q->n_active));
    }
    if (q->n_sets == 2) q->set ^= 1u;
    return NPU_OK;
}

npu_status npu_request_poll(npu_request *req) { return npu_request_wait(req, 0); }

npu_status npu_request_infer(npu_request *q)
{
    npu_status st = npu_request_start(q);
    if (st != NPU_OK) return st;
    return npu_request_wait(q, UINT64_MAX);
}

/* ---- States ---- */

uint32_t npu_request_state_count(const npu_request *req) { return req ? req->model->n_states : 0; }

static uint32_t npu__req_state_arg(const npu_request *q, uint32_t index)
{
    const npu_model *m = q->model;
    return index < m->n_states ? m->order[m->n_inputs + m->n_outputs + 2 * index] : UINT32_MAX;
}

npu_status npu_request_state(const npu_request *req, uint32_t index, npu_tensor_desc *desc)
{
    uint32_t i;
    if (req == NULL || desc == NULL) return NPU_ERR_INVALID_ARGUMENT;
    i = npu__req_state_arg(req, index);
    if (i == UINT32_MAX)
        return npu__fail(req->ctx, NPU_ERR_NOT_FOUND, "the model has no state %u (it has %u)", (unsigned)index,
                         (unsigned)req->model->n_states);
    *desc = req->model->args[i].desc;
    return NPU_OK;
}

void *npu_request_state_data(npu_request *req, uint32_t index)
{
    uint32_t i;
    if (req == NULL) return NULL;
    i = npu__req_state_arg(req, index);
    if (i == UINT32_MAX) return NULL;
    return npu__req_bound(req, i, req->set);
}

npu_status npu_request_state_set(npu_request *req, uint32_t index, const void *data, size_t size)
{
    uint32_t i;
    if (req == NULL || data == NULL) return NPU_ERR_INVALID_ARGUMENT;
    i = npu__req_state_arg(req, index);
    if (i == UINT32_MAX)
        return npu__fail(req->ctx, NPU_ERR_NOT_FOUND, "the model has no state %u", (unsigned)index);
    if (req->running) return npu__fail(req->ctx, NPU_ERR_STATE, "request: state set while an inference runs");
    if (size != req->model->args[i].desc.bytes)
        return npu__fail(req->ctx, NPU_ERR_BUFFER_TOO_SMALL, "state '%s': %zu bytes given, %llu expected",
                         req->model->args[i].desc.name, size, (unsigned long long)req->model->args[i].desc.bytes);
    memcpy(npu__req_bound(req, i, req->set), data, size);
    return NPU_OK;
}

npu_status npu_request_state_reset(npu_request *req, uint32_t index)
{
    uint32_t i;
    if (req == NULL) return NPU_ERR_INVALID_ARGUMENT;
    i = npu__req_state_arg(req, index);
    if (i == UINT32_MAX)
        return npu__fail(req->ctx, NPU_ERR_NOT_FOUND, "the model has no state %u", (unsigned)index);
    if (req->running) return npu__fail(req->ctx, NPU_ERR_STATE, "request: state reset while an inference runs");
    memset(npu__req_bound(req, i, req->set), 0, (size_t)req->model->args[i].desc.bytes);
    return NPU_OK;
}

#else /* NPU_NO_LEVEL_ZERO: the section's API exists and says so. */

size_t npu_device_size(void) { return 0; }
npu_status npu_device_open(npu_arena *arena, npu_context *ctx, const npu_device_options *options,
                           npu_device **out)
{
    NPU__UNUSED(arena);
    NPU__UNUSED(options);
    if (out != NULL) *out = NULL;
    return npu__fail(ctx, NPU_ERR_NO_LEVEL_ZERO, "npu was built with NPU_NO_LEVEL_ZERO: no device support");
}
void npu_device_close(npu_device *dev) { NPU__UNUSED(dev); }
npu_status npu_device_get_properties(npu_device *dev, npu_device_properties *out)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(out);
    return NPU_ERR_NO_LEVEL_ZERO;
}
uint32_t npu_device_optimal_requests(const npu_device *dev, npu_performance_hint hint)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(hint);
    return 0;
}
const char *const *npu_device_supported_properties(void)
{
    static const char *const none[] = {NULL};
    return none;
}
npu_status npu_device_get_property(npu_device *dev, const char *name, char *dst, size_t cap, size_t *size)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(name);
    NPU__UNUSED(dst);
    NPU__UNUSED(cap);
    NPU__UNUSED(size);
    return NPU_ERR_NO_LEVEL_ZERO;
}
size_t npu_model_size(uint32_t n_args)
{
    NPU__UNUSED(n_args);
    return 0;
}
npu_status npu_model_compile_payload(npu_device *dev, npu_arena *arena, const void *payload, size_t size,
                                     const npu_compile_options *opts, npu_model **out)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(arena);
    NPU__UNUSED(payload);
    NPU__UNUSED(size);
    NPU__UNUSED(opts);
    if (out != NULL) *out = NULL;
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_model_compile_graph(npu_device *dev, npu_arena *arena, const npu_graph *graph,
                                   const npu_compile_options *opts, npu_model **out)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(arena);
    NPU__UNUSED(graph);
    NPU__UNUSED(opts);
    if (out != NULL) *out = NULL;
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_model_compile_graph_size(npu_device *dev, const npu_graph *graph, const npu_compile_options *opts,
                                        size_t *bytes)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(graph);
    NPU__UNUSED(opts);
    if (bytes != NULL) *bytes = 0;
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_model_compile_ir(npu_device *dev, npu_arena *arena, const npu_ir *ir,
                                const npu_compile_options *opts, npu_model **out)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(arena);
    NPU__UNUSED(ir);
    NPU__UNUSED(opts);
    if (out != NULL) *out = NULL;
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_model_compile_ir_size(npu_device *dev, const npu_ir *ir, const npu_compile_options *opts,
                                     size_t *bytes)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(ir);
    NPU__UNUSED(opts);
    if (bytes != NULL) *bytes = 0;
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_model_import(npu_device *dev, npu_arena *arena, const void *blob, size_t size,
                            const npu_import_options *opts, npu_model **out)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(arena);
    NPU__UNUSED(blob);
    NPU__UNUSED(size);
    NPU__UNUSED(opts);
    if (out != NULL) *out = NULL;
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_model_import_file(npu_device *dev, npu_arena *arena, const char *path,
                                 const npu_import_options *opts, npu_model **out)
{
    NPU__UNUSED(dev);
    NPU__UNUSED(arena);
    NPU__UNUSED(path);
    NPU__UNUSED(opts);
    if (out != NULL) *out = NULL;
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_model_export(npu_model *model, void *dst, size_t cap, size_t *size)
{
    NPU__UNUSED(model);
    NPU__UNUSED(dst);
    NPU__UNUSED(cap);
    NPU__UNUSED(size);
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_model_export_file(npu_model *model, const char *path)
{
    NPU__UNUSED(model);
    NPU__UNUSED(path);
    return NPU_ERR_NO_LEVEL_ZERO;
}
void npu_model_destroy(npu_model *model) { NPU__UNUSED(model); }
size_t npu_model_arena_bytes(const npu_model *model)
{
    NPU__UNUSED(model);
    return 0;
}
uint32_t npu_model_input_count(const npu_model *m)
{
    NPU__UNUSED(m);
    return 0;
}
const npu_tensor_desc *npu_model_input(const npu_model *m, uint32_t i)
{
    NPU__UNUSED(m);
    NPU__UNUSED(i);
    return NULL;
}
uint32_t npu_model_output_count(const npu_model *m)
{
    NPU__UNUSED(m);
    return 0;
}
const npu_tensor_desc *npu_model_output(const npu_model *m, uint32_t i)
{
    NPU__UNUSED(m);
    NPU__UNUSED(i);
    return NULL;
}
uint32_t npu_model_state_count(const npu_model *m)
{
    NPU__UNUSED(m);
    return 0;
}
const npu_tensor_desc *npu_model_state(const npu_model *m, uint32_t i)
{
    NPU__UNUSED(m);
    NPU__UNUSED(i);
    return NULL;
}
uint32_t npu_model_batch(const npu_model *m)
{
    NPU__UNUSED(m);
    return 0;
}
npu_status npu_model_get_info(const npu_model *model, npu_model_info *out)
{
    NPU__UNUSED(model);
    if (out != NULL) memset(out, 0, sizeof *out);
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_request_set_batch(npu_request *req, uint32_t n)
{
    NPU__UNUSED(req);
    NPU__UNUSED(n);
    return NPU_ERR_NO_LEVEL_ZERO;
}
size_t npu_request_size(const npu_model *model, const npu_request_options *opts)
{
    NPU__UNUSED(model);
    NPU__UNUSED(opts);
    return 0;
}
npu_status npu_request_create(npu_model *model, npu_arena *arena, const npu_request_options *opts,
                              npu_request **out)
{
    NPU__UNUSED(model);
    NPU__UNUSED(arena);
    NPU__UNUSED(opts);
    if (out != NULL) *out = NULL;
    return NPU_ERR_NO_LEVEL_ZERO;
}
void npu_request_destroy(npu_request *req) { NPU__UNUSED(req); }
void *npu_request_input(npu_request *req, uint32_t index)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    return NULL;
}
void *npu_request_output(npu_request *req, uint32_t index)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    return NULL;
}
npu_status npu_request_find_input(const npu_request *req, const char *name, uint32_t *index)
{
    NPU__UNUSED(req);
    NPU__UNUSED(name);
    NPU__UNUSED(index);
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_request_find_output(const npu_request *req, const char *name, uint32_t *index)
{
    NPU__UNUSED(req);
    NPU__UNUSED(name);
    NPU__UNUSED(index);
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_request_set_input_buffer(npu_request *req, uint32_t index, void *ptr, size_t size)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    NPU__UNUSED(ptr);
    NPU__UNUSED(size);
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_request_set_output_buffer(npu_request *req, uint32_t index, void *ptr, size_t size)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    NPU__UNUSED(ptr);
    NPU__UNUSED(size);
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_request_infer(npu_request *req)
{
    NPU__UNUSED(req);
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_request_start(npu_request *req)
{
    NPU__UNUSED(req);
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_request_wait(npu_request *req, uint64_t timeout_ns)
{
    NPU__UNUSED(req);
    NPU__UNUSED(timeout_ns);
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_request_poll(npu_request *req)
{
    NPU__UNUSED(req);
    return NPU_ERR_NO_LEVEL_ZERO;
}
uint32_t npu_request_state_count(const npu_request *req)
{
    NPU__UNUSED(req);
    return 0;
}
npu_status npu_request_state(const npu_request *req, uint32_t index, npu_tensor_desc *desc)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    NPU__UNUSED(desc);
    return NPU_ERR_NO_LEVEL_ZERO;
}
void *npu_request_state_data(npu_request *req, uint32_t index)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    return NULL;
}
npu_status npu_request_state_set(npu_request *req, uint32_t index, const void *data, size_t size)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    NPU__UNUSED(data);
    NPU__UNUSED(size);
    return NPU_ERR_NO_LEVEL_ZERO;
}
npu_status npu_request_state_reset(npu_request *req, uint32_t index)
{
    NPU__UNUSED(req);
    NPU__UNUSED(index);
    return NPU_ERR_NO_LEVEL_ZERO;
}

#endif /* NPU_NO_LEVEL_ZERO */
