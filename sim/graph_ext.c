/* graph_ext.c - the software NPU's graph extension ("ZE_extension_graph", all 31
 * entries of ze_graph_dditable_ext_t up to 1.18) and the NPU command-queue
 * extension. It turns graph descriptors into plans through sim_plan.h (compile
 * an NGRAPH_LITE payload or import a native ELF blob), answers the property
 * queries from the plan's argument list, and records graph executions into
 * command lists (driver.c) for the queue workers to run.
 *
 * It sits above driver.c (sim_internal.h): it appends commands with
 * sim_list_append and checks arguments against contexts, and each recorded
 * execute carries its run/release callbacks, so driver.c never calls back in.
 * Its tables reach the application through extensions.c.
 *
 * Behaviour copies the real driver where ze-graph-ext.md §2 describes it: old
 * and new stype values, inputs before outputs, dims padded with 1, the
 * argument pointers captured at append time and checked against the context's
 * allocations, initStageRequired = INITIALIZE, a per-thread build log for
 * failed creates. Entries newer than the configured extension version
 * (NPU_SIM_GRAPH_EXT_VERSION) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <loader/ze_loader.h>

#include "sim/sim_internal.h"

#define SIM_LOG_CAP 16384u

static int graph_entry_available(int minor)
{
    return (int)ZE_MINOR_VERSION(sim_cfg.graph_ext_version) >= minor;
}

/* Guard of every graph entry: counting/fault/trace, then the version gate. */
#define GRAPH_ENTER(name, minor)                                          \
    do {                                                                  \
        SIM_ENTER(name);                                                  \
        if (!graph_entry_available(minor))                                \
            return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;                   \
    } while (0)

typedef struct sim_graph {
    uint32_t magic;
    atomic_int refs;            /* the handle + every command that uses it */
    int destroyed;              /* pfnDestroy was called: the handle is gone */
    sim_context *ctx;
    sim_plan *plan;
    uint32_t arg_count;
    void **args;                /* pointers set by pfnSetArgumentValue* */
    ze_graph_format_t format;
    uint32_t flags;
    uint32_t prop_flags;        /* pfnGetProperties3 flags: COMPILED, PRE_COMPILED or LOADED_FROM_CACHE */
    char *log;                  /* compiler warnings (may be empty) */
} sim_graph;

typedef struct sim_build_log {
    uint32_t magic;
    char *text;
} sim_build_log;

typedef struct sim_query_network {
    uint32_t magic;
    char *layers;
    size_t size;                /* including the NUL */
} sim_query_network;

/* The last failed create's log, per thread (pfnBuildLogGetString(NULL, ...)).
 * From v1.19 on the driver clears it at the start of every create and also puts
 * the cache status line there on success; v1.10 only writes it on failure. */
static _Thread_local char thread_failure_log[SIM_LOG_CAP];

static const char cache_found_line[] = "ZE DynamicCaching cache_status_t: cache_status_t::found\n";
static const char cache_stored_line[] = "ZE DynamicCaching cache_status_t: cache_status_t::stored\n";

/* What the profile's driver returns for a failed compile (sim_plan.h SIM_ERR_*):
 * v1.10 throws ZE_RESULT_ERROR_UNKNOWN for any failure of getCompiledBlob;
 * v1.19 and v1.32 map the compiler's vcl_result_t (vclToL0Err in
 * source/ext/compiler.cpp): INVALID_ARGUMENT -> INVALID_ARGUMENT, INVALID_IR ->
 * UNSUPPORTED_FEATURE, OUT_OF_MEMORY -> OUT_OF_HOST_MEMORY, UNKNOWN -> UNKNOWN. */
static ze_result_t compile_result(int err)
{
    if (err == SIM_OK)
        return ZE_RESULT_SUCCESS;
    if (sim_driver_release() < SIM_RELEASE(1, 19))
        return ZE_RESULT_ERROR_UNKNOWN;
    switch (err) {
    case SIM_ERR_NOMEM:
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    case SIM_ERR_COMPILE:
    case SIM_ERR_OPTIONS:
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    case SIM_ERR_INVALID_IR:
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    default:
        return ZE_RESULT_ERROR_UNKNOWN;
    }
}

static void log_append_cap(char *log, size_t cap, const char *line)
{
    size_t n = strlen(log);
    if (n < cap - 1)
        snprintf(log + n, cap - n, "%s", line);
}

static void log_append(char *log, const char *line)
{
    log_append_cap(log, SIM_LOG_CAP, line);
}

static sim_graph *graph_of(ze_graph_handle_t h)
{
    sim_graph *g = (sim_graph *)(void *)h;
    if (g == NULL || g->magic != SIM_MAGIC_GRAPH || g->destroyed)
        return NULL;
    return g;
}

static void graph_retain(sim_graph *g)
{
    atomic_fetch_add(&g->refs, 1);
}

static void graph_release(sim_graph *g)
{
    if (atomic_fetch_sub(&g->refs, 1) != 1)
        return;
    sim_plan_destroy(g->plan);
    free(g->args);
    free(g->log);
    g->magic = SIM_MAGIC_DEAD;
    free(g);
}

/* ---- profiling data (ZE_extension_profiling_data 1.0) ---------------------- */
/* Modelled on source/ext/profiling_data.cpp and Graph::createProfilingPool
 * (v1.10.0 ext/source/graph/, v1.19.0 and v1.32.1 source/ext/): a pool of
 * `count` query slots per graph compiled with profiling (PERF_COUNT=YES, which
 * ZE_GRAPH_FLAG_ENABLE_PROFILING adds to the build flags); each execute of such
 * a graph must name a query, whose buffer the run fills. The sim's raw buffer
 * is its own format: [run start ns, run end ns] then [start ns, duration ns]
 * per plan step (u64 each); LAYER and TASK decode it with the plan's layer
 * table as the compiler's vclGetDecodedProfilingBuffer decodes the firmware's. */
#define SIM_MAGIC_PROF_POOL 0x4e50553cu
#define SIM_MAGIC_PROF_QUERY 0x4e50553du

typedef struct sim_prof_query sim_prof_query;
typedef struct sim_prof_pool {
    uint32_t magic;
    sim_graph *g;                /* holds a reference */
    uint32_t count;
    pthread_mutex_t lock;
    sim_prof_query **slots;
} sim_prof_pool;

struct sim_prof_query {
    uint32_t magic;
    atomic_int refs;             /* the handle + every recorded execute naming it */
    int destroyed;
    sim_prof_pool *pool;
    uint32_t index;
    const sim_plan *plan;        /* the pool's graph's plan */
    uint32_t raw_size;
    uint64_t *raw;
};

/* Decode failures, per thread and never cleared (lastErrorMsg: thread_local in
 * v1.10.0 and v1.19.0, a per-thread map in v1.32.1; failures append). */
static _Thread_local char thread_profiling_log[4096];

static void prof_query_release(sim_prof_query *q)
{
    if (atomic_fetch_sub(&q->refs, 1) != 1)
        return;
    free(q->raw);
    q->magic = SIM_MAGIC_DEAD;
    free(q);
}

/* A recorded graph execute (sim_cmd): obj is the graph, holding a reference;
 * data the argument pointers captured at append time, followed by the
 * profiling query (NULL when the graph does not profile). */
static void graph_execute_run(const sim_cmd *c)
{
    const sim_graph *g = c->obj;
    void *const *args = c->data;
    sim_prof_query *q = args[g->arg_count];
    uint64_t *times = NULL;
    /* The query's buffer is sized for its pool's graph: another graph's run
     * with more steps than fit is not recorded (the real firmware would
     * overrun it; that is the caller's error either way). */
    if (q != NULL && (uint64_t)sim_plan_step_count(g->plan) * 16u + 16u <= q->raw_size)
        times = q->raw + 2;
    uint64_t start = sim_now_ns();
    int rc = sim_plan_run_timed(g->plan, args, atomic_load(&sim_skip_math), times);
    if (rc != SIM_OK)
        sim_trace("graph execute failed: sim_plan_run returned %d", rc);
    if (times != NULL) {
        q->raw[0] = start;
        q->raw[1] = sim_now_ns();
        if (q->raw[1] == 0)
            q->raw[1] = 1;
    }
    sim_count_graph_execute();
}

static void graph_execute_release(sim_cmd *c)
{
    const sim_graph *g = c->obj;
    sim_prof_query *q = ((void **)c->data)[g->arg_count];
    if (q != NULL)
        prof_query_release(q);
    free(c->data);
    graph_release(c->obj);
}

/* Copies a string into a two-call (size, then copy) output. */
static ze_result_t copy_out_string(const char *text, size_t *pSize, char *out)
{
    size_t need = strlen(text) + 1;
    if (out == NULL || *pSize == 0) {
        *pSize = need;
        return ZE_RESULT_SUCCESS;
    }
    size_t n = *pSize < need ? *pSize : need;
    memcpy(out, text, n - 1);
    out[n - 1] = '\0';
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

/* ---- create / destroy ------------------------------------------------------- */
static int stype_is(uint32_t stype, uint32_t old_value, uint32_t new_value)
{
    return stype == old_value || stype == new_value;
}

static ze_result_t graph_create(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                const ze_graph_desc_2_t *desc, ze_graph_handle_t *phGraph,
                                ze_graph_build_log_handle_t *phLog)
{
    sim_context *ctx = sim_translate(ZEL_HANDLE_CONTEXT, hContext, SIM_MAGIC_CONTEXT);
    if (ctx == NULL || sim_translate(ZEL_HANDLE_DEVICE, hDevice, SIM_MAGIC_DEVICE) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phGraph == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->pInput == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->inputSize == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    if (desc->flags & ~(uint32_t)0x1f)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->format != ZE_GRAPH_FORMAT_NATIVE && desc->format != ZE_GRAPH_FORMAT_NGRAPH_LITE)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;

    int v110 = sim_driver_release() < SIM_RELEASE(1, 19);
    if (!v110)
        thread_failure_log[0] = '\0';
    char *log = calloc(1, SIM_LOG_CAP);
    sim_graph *g = calloc(1, sizeof(*g));
    if (log == NULL || g == NULL) {
        free(log);
        free(g);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    ze_result_t rc = ZE_RESULT_SUCCESS;
    sim_plan *plan = NULL;
    uint32_t prop_flags = desc->format == ZE_GRAPH_FORMAT_NATIVE ? ZE_GRAPH_PROPERTIES_FLAG_PRE_COMPILED
                                                                 : ZE_GRAPH_PROPERTIES_FLAG_COMPILED;
    if (desc->format == ZE_GRAPH_FORMAT_NATIVE) {
        static const uint8_t elf_magic[4] = {0x7f, 'E', 'L', 'F'};
        if (desc->inputSize < 4 || memcmp(desc->pInput, elf_magic, 4) != 0) {
            snprintf(log, SIM_LOG_CAP, "native graph does not start with the ELF magic");
            rc = ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
        } else {
            /* Graph::getBlobContainerNative (v1.22.0 on): a PERSISTENT native blob is
             * used where it is (imported as a user-pointer buffer), not copied;
             * earlier releases copy it. */
            int in_place = (desc->flags & ZE_GRAPH_FLAG_INPUT_GRAPH_PERSISTENT) &&
                           sim_driver_release() >= SIM_RELEASE(1, 22);
            int err = in_place ? sim_plan_import_in_place(desc->pInput, desc->inputSize, &plan, log, SIM_LOG_CAP)
                               : sim_plan_import(desc->pInput, desc->inputSize, &plan, log, SIM_LOG_CAP);
            if (err == SIM_ERR_NOMEM)
                rc = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
            else if (err != SIM_OK)
                rc = ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
        }
    } else {
        /* Graph::getBlobContainerNGraphLite: unless DISABLE_CACHING, look the key up
         * in the disk cache first; a hit skips the compiler entirely (the cached
         * blob is used even if the weights behind a layout-B payload's addresses
         * changed since). A fresh compile is stored. */
        int use_cache = !(desc->flags & ZE_GRAPH_FLAG_DISABLE_CACHING) && sim_cache_enabled();
        sim_cache_key key;
        int hit = 0;
        if (use_cache) {
            sim_cache_compute_key(desc, desc->pBuildFlags, &key);
            size_t blob_size = 0;
            void *blob = sim_cache_get(&key, &blob_size);
            if (blob != NULL) {
                char ilog[256];
                int err = sim_plan_import(blob, blob_size, &plan, ilog, sizeof(ilog));
                free(blob);
                if (err == SIM_OK) {
                    hit = 1;
                    prop_flags = ZE_GRAPH_PROPERTIES_FLAG_LOADED_FROM_CACHE;
                    sim_count_cache(1);
                    if (!v110) {
                        log_append(log, cache_found_line);
                        snprintf(thread_failure_log, sizeof(thread_failure_log), "%s", cache_found_line);
                    }
                } else {
                    rc = err == SIM_ERR_NOT_ELF ? ZE_RESULT_ERROR_INVALID_NATIVE_BINARY
                                                : ZE_RESULT_ERROR_INVALID_ARGUMENT;
                    snprintf(log, SIM_LOG_CAP, "%s", ilog);
                }
            }
        }
        if (!hit && rc == ZE_RESULT_SUCCESS) {
            /* Graph::addDeviceConfigToBuildFlags (all three releases):
             * ENABLE_PROFILING adds PERF_COUNT="YES", and " --config" first when
             * the flags have none. */
            const char *flags = desc->pBuildFlags != NULL ? desc->pBuildFlags : "";
            char *with_perf = NULL;
            if (desc->flags & ZE_GRAPH_FLAG_ENABLE_PROFILING) {
                size_t n = strlen(flags) + 40;
                with_perf = malloc(n);
                if (with_perf == NULL) {
                    free(log);
                    free(g);
                    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
                }
                snprintf(with_perf, n, "%s%s PERF_COUNT=\"YES\"", flags,
                         strstr(flags, "--config") != NULL ? "" : " --config");
                flags = with_perf;
            }
            int err = sim_plan_compile(desc->pInput, desc->inputSize, sim_cfg.compiler_version,
                                       flags, &plan, log, SIM_LOG_CAP);
            free(with_perf);
            rc = compile_result(err);
            if (rc == ZE_RESULT_SUCCESS && plan != NULL && use_cache) {
                size_t blob_size = 0;
                const uint8_t *blob = sim_plan_native(plan, &blob_size);
                if (sim_cache_put(&key, blob, blob_size))
                    sim_count_cache(0);
                if (!v110) {
                    log_append(log, cache_stored_line);
                    snprintf(thread_failure_log, sizeof(thread_failure_log), "%s", cache_stored_line);
                }
            }
        }
    }
    if (rc == ZE_RESULT_SUCCESS && plan == NULL)
        rc = ZE_RESULT_ERROR_UNKNOWN;
    /* v1.32.1 Graph::initialize: a blob with a profiling buffer gets
     * PROFILING_ENABLED (v1.10.0 and v1.19.0 have no such flag). */
    if (rc == ZE_RESULT_SUCCESS && sim_plan_profiling(plan) && sim_driver_release() >= SIM_RELEASE(1, 32))
        prop_flags |= ZE_GRAPH_PROPERTIES_FLAG_PROFILING_ENABLED;
    if (rc == ZE_RESULT_SUCCESS) {
        g->arg_count = sim_plan_arg_count(plan);
        g->args = calloc(g->arg_count ? g->arg_count : 1, sizeof(void *));
        if (g->args == NULL)
            rc = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }

    sim_build_log *bl = NULL;
    if (phLog != NULL) {
        bl = calloc(1, sizeof(*bl));
        if (bl != NULL)
            bl->text = strdup(log);
        if (bl == NULL || bl->text == NULL) {
            free(bl);
            bl = NULL;
            if (rc == ZE_RESULT_SUCCESS)
                rc = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
    }

    if (rc != ZE_RESULT_SUCCESS) {
        snprintf(thread_failure_log, sizeof(thread_failure_log), "%s", log);
        sim_trace("graph create failed (0x%x): %s", (unsigned)rc, log);
        if (plan != NULL)
            sim_plan_destroy(plan);
        free(g->args);
        free(g);
        free(log);
        if (phLog != NULL) {
            if (bl != NULL) {
                bl->magic = SIM_MAGIC_BUILD_LOG;
                sim_live_add(NPU_SIM_HANDLE_BUILD_LOG, 1);
            }
            *phLog = (ze_graph_build_log_handle_t)bl;
        }
        return rc;
    }
    g->magic = SIM_MAGIC_GRAPH;
    atomic_init(&g->refs, 1);
    g->ctx = ctx;
    g->plan = plan;
    g->format = desc->format;
    g->flags = desc->flags;
    g->prop_flags = prop_flags;
    g->log = log;
    sim_live_add(NPU_SIM_HANDLE_GRAPH, 1);
    *phGraph = (ze_graph_handle_t)g;
    if (phLog != NULL) {
        bl->magic = SIM_MAGIC_BUILD_LOG;
        sim_live_add(NPU_SIM_HANDLE_BUILD_LOG, 1);
        *phLog = (ze_graph_build_log_handle_t)bl;
    }
    return ZE_RESULT_SUCCESS;
}

/* As the real driver: a v1 descriptor (pfnCreate, pfnQueryNetworkCreate) becomes
 * a v2 one with flags 0. */
static ze_result_t desc_v1_to_v2(const ze_graph_desc_t *desc, ze_graph_desc_2_t *d2)
{
    if (desc == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if ((uint32_t)desc->stype != ZE_STRUCTURE_TYPE_GRAPH_DESC)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    ze_graph_desc_2_t v2 = {ZE_STRUCTURE_TYPE_GRAPH_DESC_2, desc->pNext, desc->format, desc->inputSize,
                            desc->pInput, desc->pBuildFlags, 0};
    *d2 = v2;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t g_Create(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                            const ze_graph_desc_t *desc, ze_graph_handle_t *phGraph)
{
    GRAPH_ENTER("pfnCreate", 0);
    ze_graph_desc_2_t d2;
    ze_result_t rc = desc_v1_to_v2(desc, &d2);
    return rc != ZE_RESULT_SUCCESS ? rc : graph_create(hContext, hDevice, &d2, phGraph, NULL);
}

static ze_result_t check_desc2(const ze_graph_desc_2_t *desc)
{
    if (desc == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!stype_is((uint32_t)desc->stype, ZE_STRUCTURE_TYPE_GRAPH_DESC, ZE_STRUCTURE_TYPE_GRAPH_DESC_2))
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t g_Create2(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                             const ze_graph_desc_2_t *desc, ze_graph_handle_t *phGraph)
{
    GRAPH_ENTER("pfnCreate2", 5);
    ze_result_t rc = check_desc2(desc);
    return rc != ZE_RESULT_SUCCESS ? rc : graph_create(hContext, hDevice, desc, phGraph, NULL);
}

static ze_result_t g_Create3(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                             const ze_graph_desc_2_t *desc, ze_graph_handle_t *phGraph,
                             ze_graph_build_log_handle_t *phLog)
{
    GRAPH_ENTER("pfnCreate3", 12);
    if (phLog != NULL)
        *phLog = NULL;
    ze_result_t rc = check_desc2(desc);
    return rc != ZE_RESULT_SUCCESS ? rc : graph_create(hContext, hDevice, desc, phGraph, phLog);
}

static ze_result_t g_Destroy(ze_graph_handle_t hGraph)
{
    GRAPH_ENTER("pfnDestroy", 0);
    sim_graph *g = graph_of(hGraph);
    if (g == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    g->destroyed = 1;
    sim_live_add(NPU_SIM_HANDLE_GRAPH, -1);
    graph_release(g); /* commands still recorded keep the plan alive */
    return ZE_RESULT_SUCCESS;
}

/* ---- properties ----------------------------------------------------------------- */
static ze_result_t g_GetProperties(ze_graph_handle_t hGraph, ze_graph_properties_t *p)
{
    GRAPH_ENTER("pfnGetProperties", 0);
    sim_graph *g = graph_of(hGraph);
    if (g == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if ((uint32_t)p->stype != ZE_STRUCTURE_TYPE_GRAPH_PROPERTIES)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    p->numGraphArgs = g->arg_count;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t g_GetProperties2(ze_graph_handle_t hGraph, ze_graph_properties_2_t *p)
{
    GRAPH_ENTER("pfnGetProperties2", 8);
    sim_graph *g = graph_of(hGraph);
    if (g == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!stype_is((uint32_t)p->stype, ZE_STRUCTURE_TYPE_GRAPH_PROPERTIES, ZE_STRUCTURE_TYPE_GRAPH_PROPERTIES_2))
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    p->numGraphArgs = g->arg_count;
    p->initStageRequired = ZE_GRAPH_STAGE_INITIALIZE;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t g_GetProperties3(ze_graph_handle_t hGraph, ze_graph_properties_3_t *p)
{
    GRAPH_ENTER("pfnGetProperties3", 12);
    sim_graph *g = graph_of(hGraph);
    if (g == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!stype_is((uint32_t)p->stype, ZE_STRUCTURE_TYPE_GRAPH_PROPERTIES, ZE_STRUCTURE_TYPE_GRAPH_PROPERTIES_3))
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    p->numGraphArgs = g->arg_count;
    p->initStageRequired = ZE_GRAPH_STAGE_INITIALIZE;
    p->flags = g->prop_flags;
    return ZE_RESULT_SUCCESS;
}

/* Fills the common part of argument properties 1/2/3 (they share a prefix);
 * `level` says how much of the struct the caller owns. stype/pNext untouched. */
static void fill_arg_props(ze_graph_argument_properties_3_t *p, const sim_arg *a, int level)
{
    snprintf(p->name, sizeof(p->name), "%s", a->name);
    p->type = a->is_output ? ZE_GRAPH_ARGUMENT_TYPE_OUTPUT : ZE_GRAPH_ARGUMENT_TYPE_INPUT;
    for (uint32_t i = 0; i < ZE_MAX_GRAPH_ARGUMENT_DIMENSIONS_SIZE; i++)
        p->dims[i] = i < a->rank ? (uint32_t)a->dims[i] : 1u;
    p->networkPrecision = (ze_graph_argument_precision_t)a->network_precision;
    p->networkLayout = (ze_graph_argument_layout_t)a->layout;
    p->devicePrecision = (ze_graph_argument_precision_t)a->precision;
    p->deviceLayout = (ze_graph_argument_layout_t)a->layout;
    if (level < 2)
        return;
    p->quantReverseScale = a->is_output ? 0.0f : 1.0f;
    p->quantZeroPoint = 0;
    if (level < 3)
        return;
    p->dims_count = a->rank;
    snprintf(p->debug_friendly_name, sizeof(p->debug_friendly_name), "%s", a->friendly_name);
    uint32_t n = a->tensor_name_count;
    if (n > SIM_MAX_TENSOR_NAMES)
        n = SIM_MAX_TENSOR_NAMES;
    for (uint32_t i = 0; i < n; i++)
        snprintf(p->associated_tensor_names[i], sizeof(p->associated_tensor_names[i]), "%s", a->tensor_names[i]);
    p->associated_tensor_names_count = n;
}

/* pNext of GetArgumentProperties*: ze_graph_argument_property_strides_t. */
static void fill_arg_pnext(void *pNext)
{
    for (ze_base_properties_t *e = pNext; e != NULL; e = e->pNext)
        if ((uint32_t)e->stype == ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTY_STRIDES)
            ((ze_graph_argument_property_strides_t *)(void *)e)->supportsDynamicStrides =
                ZE_MINOR_VERSION(sim_cfg.graph_ext_version) >= 15;
}

static ze_result_t arg_props(ze_graph_handle_t hGraph, uint32_t index, void *props, uint32_t stype,
                             uint32_t new_stype, int level)
{
    sim_graph *g = graph_of(hGraph);
    if (g == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (props == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_graph_argument_properties_3_t *p = props;
    if (!stype_is((uint32_t)p->stype, stype, new_stype))
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    const sim_arg *a = sim_plan_arg(g->plan, index);
    if (a == NULL)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    fill_arg_props(p, a, level);
    fill_arg_pnext(p->pNext);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t g_GetArgumentProperties(ze_graph_handle_t hGraph, uint32_t index,
                                           ze_graph_argument_properties_t *p)
{
    GRAPH_ENTER("pfnGetArgumentProperties", 0);
    return arg_props(hGraph, index, p, ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES,
                     ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES, 1);
}

static ze_result_t g_GetArgumentProperties2(ze_graph_handle_t hGraph, uint32_t index,
                                            ze_graph_argument_properties_2_t *p)
{
    GRAPH_ENTER("pfnGetArgumentProperties2", 1);
    return arg_props(hGraph, index, p, ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES,
                     ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES_2, 2);
}

static ze_result_t g_GetArgumentProperties3(ze_graph_handle_t hGraph, uint32_t index,
                                            ze_graph_argument_properties_3_t *p)
{
    GRAPH_ENTER("pfnGetArgumentProperties3", 2);
    return arg_props(hGraph, index, p, ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES,
                     ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES_3, 3);
}

static ze_result_t g_GraphGetArgumentMetadata(ze_graph_handle_t hGraph, uint32_t index,
                                              ze_graph_argument_metadata_t *p)
{
    GRAPH_ENTER("pfnGraphGetArgumentMetadata", 1);
    sim_graph *g = graph_of(hGraph);
    if (g == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if ((uint32_t)p->stype != ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_METADATA)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    const sim_arg *a = sim_plan_arg(g->plan, index);
    if (a == NULL)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    p->type = a->is_output ? ZE_GRAPH_ARGUMENT_TYPE_OUTPUT : ZE_GRAPH_ARGUMENT_TYPE_INPUT;
    snprintf(p->friendly_name, sizeof(p->friendly_name), "%s", a->friendly_name);
    p->data_type = (ze_graph_metadata_type)a->meta_type;
    uint32_t rank = a->ir_rank < ZE_MAX_GRAPH_TENSOR_REF_DIMS ? a->ir_rank : ZE_MAX_GRAPH_TENSOR_REF_DIMS;
    for (uint32_t i = 0; i < ZE_MAX_GRAPH_TENSOR_REF_DIMS; i++)
        p->shape[i] = i < rank ? a->ir_shape[i] : 1u; /* UINT64_MAX marks a dynamic dimension */
    p->shape_size = rank;
    uint32_t n = a->tensor_name_count < SIM_MAX_TENSOR_NAMES ? a->tensor_name_count : SIM_MAX_TENSOR_NAMES;
    for (uint32_t i = 0; i < n; i++)
        snprintf(p->tensor_names[i], sizeof(p->tensor_names[i]), "%s", a->tensor_names[i]);
    p->tensor_names_count = n;
    snprintf(p->input_name, sizeof(p->input_name), "%s", a->name);
    return ZE_RESULT_SUCCESS;
}

/* ---- arguments and command-list appends --------------------------------------------- */
static ze_result_t g_SetArgumentValue(ze_graph_handle_t hGraph, uint32_t index, const void *pArgValue)
{
    GRAPH_ENTER("pfnSetArgumentValue", 0);
    sim_graph *g = graph_of(hGraph);
    if (g == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pArgValue == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (index >= g->arg_count)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    /* Only recorded: it is checked and captured by pfnAppendGraphExecute. */
    g->args[index] = (void *)(uintptr_t)pArgValue;
    return ZE_RESULT_SUCCESS;
}

/* Strides are in elements, innermost first; the sim accepts dense ones only. */
static int strides_are_dense(const sim_arg *a, const uint32_t *strides)
{
    uint64_t expect = 1;
    for (uint32_t i = 0; i < a->rank && i < ZE_MAX_GRAPH_ARGUMENT_DIMENSIONS_SIZE; i++) {
        if (strides[i] != expect)
            return 0;
        expect *= a->dims[a->rank - 1 - i];
    }
    return 1;
}

static ze_result_t g_SetArgumentValue2(ze_graph_handle_t hGraph, uint32_t index, const void *chain)
{
    GRAPH_ENTER("pfnSetArgumentValue2", 15);
    sim_graph *g = graph_of(hGraph);
    if (g == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (chain == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const sim_arg *a = sim_plan_arg(g->plan, index);
    if (a == NULL)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    const void *tensor = NULL;
    for (const ze_base_desc_t *d = chain; d != NULL; d = d->pNext) {
        switch ((uint32_t)d->stype) {
        case ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_TENSOR:
            tensor = ((const ze_graph_argument_value_tensor_t *)(const void *)d)->pTensor;
            if (tensor == NULL)
                return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
            break;
        case ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_STRIDES:
            if (!strides_are_dense(a, ((const ze_graph_argument_value_strides_t *)(const void *)d)->userStrides))
                return ZE_RESULT_ERROR_INVALID_ARGUMENT;
            break;
        default:
            return ZE_RESULT_ERROR_INVALID_ARGUMENT;
        }
    }
    if (tensor != NULL)
        g->args[index] = (void *)(uintptr_t)tensor;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t g_AppendGraphInitialize(ze_command_list_handle_t hList, ze_graph_handle_t hGraph,
                                           ze_event_handle_t hSignal, uint32_t numWait, ze_event_handle_t *phWait)
{
    GRAPH_ENTER("pfnAppendGraphInitialize", 0);
    sim_cmdlist *l = sim_translate(ZEL_HANDLE_COMMAND_LIST, hList, SIM_MAGIC_LIST);
    if (l == NULL || graph_of(hGraph) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_cmd cmd = {.run = NULL}; /* initialization has nothing to do */
    ze_result_t rc = sim_cmd_set_events(&cmd, hSignal, numWait, phWait, 1);
    if (rc != ZE_RESULT_SUCCESS)
        return rc;
    return sim_list_append(l, &cmd);
}

static ze_result_t g_AppendGraphExecute(ze_command_list_handle_t hList, ze_graph_handle_t hGraph,
                                        ze_graph_profiling_query_handle_t hQuery, ze_event_handle_t hSignal,
                                        uint32_t numWait, ze_event_handle_t *phWait)
{
    GRAPH_ENTER("pfnAppendGraphExecute", 0);
    sim_cmdlist *l = sim_translate(ZEL_HANDLE_COMMAND_LIST, hList, SIM_MAGIC_LIST);
    sim_graph *g = graph_of(hGraph);
    if (l == NULL || g == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* CommandList::appendGraphExecute: a graph with a profiling buffer needs a
     * query (else INVALID_NULL_HANDLE); any other graph ignores it. The sim also
     * refuses a handle that is not a live query (the driver would crash). */
    sim_prof_query *q = NULL;
    if (sim_plan_profiling(g->plan)) {
        q = (sim_prof_query *)(void *)hQuery;
        if (q == NULL || q->magic != SIM_MAGIC_PROF_QUERY || q->destroyed)
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    /* Every argument must lie in an allocation of the list's context, with room
     * for the whole tensor (interior pointers are fine). */
    for (uint32_t i = 0; i < g->arg_count; i++) {
        const sim_arg *a = sim_plan_arg(g->plan, i);
        if (g->args[i] == NULL || !sim_context_holds(l->ctx, g->args[i], a->bytes)) {
            sim_trace("pfnAppendGraphExecute: argument %u (%s) at %p is not inside a driver allocation of "
                      "%zu bytes", i, a->name, g->args[i], a->bytes);
            return ZE_RESULT_ERROR_INVALID_ARGUMENT;
        }
    }
    sim_cmd cmd = {.run = graph_execute_run, .release = graph_execute_release};
    ze_result_t rc = sim_cmd_set_events(&cmd, hSignal, numWait, phWait, 1);
    if (rc != ZE_RESULT_SUCCESS)
        return rc;
    void **args = malloc(((size_t)g->arg_count + 1) * sizeof(void *));
    if (args == NULL) {
        free(cmd.wait);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    memcpy(args, g->args, g->arg_count * sizeof(void *));
    args[g->arg_count] = q;
    if (q != NULL)
        atomic_fetch_add(&q->refs, 1);
    graph_retain(g);
    cmd.obj = g;
    cmd.data = args;
    cmd.data_size = g->arg_count * sizeof(void *);
    return sim_list_append(l, &cmd);
}

static ze_result_t g_GraphInitialize(ze_graph_handle_t hGraph)
{
    GRAPH_ENTER("pfnGraphInitialize", 8);
    return graph_of(hGraph) == NULL ? ZE_RESULT_ERROR_INVALID_NULL_HANDLE : ZE_RESULT_SUCCESS;
}

static ze_result_t g_Evict(ze_graph_handle_t hGraph)
{
    GRAPH_ENTER("pfnEvict", 16);
    return graph_of(hGraph) == NULL ? ZE_RESULT_ERROR_INVALID_NULL_HANDLE : ZE_RESULT_SUCCESS;
}

/* ---- native binary ----------------------------------------------------------------------- */
static ze_result_t g_GetNativeBinary(ze_graph_handle_t hGraph, size_t *pSize, uint8_t *pBin)
{
    GRAPH_ENTER("pfnGetNativeBinary", 0);
    sim_graph *g = graph_of(hGraph);
    if (g == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    size_t size = 0;
    const uint8_t *blob = sim_plan_native(g->plan, &size);
    if (blob == NULL)
        return ZE_RESULT_ERROR_UNKNOWN;
    if (pBin == NULL) {
        *pSize = size;
        return ZE_RESULT_SUCCESS;
    }
    if (*pSize < size)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    memcpy(pBin, blob, size);
    *pSize = size;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t g_GetNativeBinary2(ze_graph_handle_t hGraph, size_t *pSize, const uint8_t **ppBin)
{
    GRAPH_ENTER("pfnGetNativeBinary2", 7);
    sim_graph *g = graph_of(hGraph);
    if (g == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL || ppBin == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    size_t size = 0;
    const uint8_t *blob = sim_plan_native(g->plan, &size);
    if (blob == NULL)
        return ZE_RESULT_ERROR_UNKNOWN;
    *pSize = size;
    *ppBin = blob;
    return ZE_RESULT_SUCCESS;
}

/* ---- device graph properties and compiler options ------------------------------------ */
static void fill_device_graph_props(ze_device_graph_properties_2_t *p, int level)
{
    p->graphExtensionVersion = (ze_graph_ext_version_t)sim_cfg.graph_ext_version;
    p->compilerVersion.major = (uint16_t)(sim_cfg.compiler_version >> 16);
    p->compilerVersion.minor = (uint16_t)(sim_cfg.compiler_version & 0xffff);
    p->graphFormatsSupported = ZE_GRAPH_FORMAT_NGRAPH_LITE;
    p->maxOVOpsetVersionSupported = SIM_PROFILE()->max_opset; /* vclCompilerGetProperties supportedOpsets */
    if (level < 2)
        return;
    p->elfVersion = (ze_graph_version_info_t){1, 0, 0};
    p->runtimeVersion = (ze_graph_version_info_t){1, 0, 0};
}

static ze_result_t g_DeviceGetGraphProperties(ze_device_handle_t hDevice, ze_device_graph_properties_t *p)
{
    GRAPH_ENTER("pfnDeviceGetGraphProperties", 0);
    if (sim_translate(ZEL_HANDLE_DEVICE, hDevice, SIM_MAGIC_DEVICE) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if ((uint32_t)p->stype != ZE_STRUCTURE_TYPE_DEVICE_GRAPH_PROPERTIES)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    fill_device_graph_props((ze_device_graph_properties_2_t *)(void *)p, 1);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t g_DeviceGetGraphProperties2(ze_device_handle_t hDevice, ze_device_graph_properties_2_t *p)
{
    GRAPH_ENTER("pfnDeviceGetGraphProperties2", 6);
    if (sim_translate(ZEL_HANDLE_DEVICE, hDevice, SIM_MAGIC_DEVICE) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!stype_is((uint32_t)p->stype, ZE_STRUCTURE_TYPE_DEVICE_GRAPH_PROPERTIES,
                  ZE_STRUCTURE_TYPE_DEVICE_GRAPH_PROPERTIES_2))
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    fill_device_graph_props(p, 2);
    return ZE_RESULT_SUCCESS;
}

/* Option queries (ext 1.11). The real driver (Compiler::getSupportedOptions /
 * isOptionSupported in source/ext/compiler.cpp, v1.19 and v1.32) answers DRIVER
 * options itself (size 0; UNSUPPORTED_FEATURE), refuses other types with
 * INVALID_ENUMERATION, and hands COMPILER options to the compiler library:
 * DEPENDENCY_UNAVAILABLE when that library does not export
 * vclGetCompilerSupportedOptions / vclGetCompilerIsOptionSupported (the 2024
 * compiler npu_ud_2024_44 exports neither), else the compiler's answer mapped by
 * vclToL0Err: SUCCESS, or UNSUPPORTED_FEATURE for an option it does not take.
 * Which keys and values the compiler takes is payload.c's business
 * (sim_compiler_supported_options, sim_compiler_option_supported).
 * NPU_SIM_NO_WEIGHTS_COPY=0 still hides the two serializer keys. */
static int is_serializer_key(const char *key)
{
    return strcmp(key, "NPU_USE_BASE_MODEL_SERIALIZER") == 0 || strcmp(key, "NPU_MODEL_SERIALIZER_VERSION") == 0;
}

/* The profile's compiler has no option-query symbols (before the 2025 compiler). */
static int compiler_lacks_option_queries(void)
{
    return SIM_PROFILE()->serializer_key == SIM_SERIALIZER_NONE;
}

static ze_result_t g_CompilerGetSupportedOptions(ze_device_handle_t hDevice, ze_npu_options_type_t type,
                                                 size_t *pSize, char *str)
{
    GRAPH_ENTER("pfnCompilerGetSupportedOptions", 11);
    if (sim_translate(ZEL_HANDLE_DEVICE, hDevice, SIM_MAGIC_DEVICE) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (type == ZE_NPU_DRIVER_OPTIONS) {
        *pSize = 0;
        return ZE_RESULT_SUCCESS;
    }
    if (type != ZE_NPU_COMPILER_OPTIONS)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (compiler_lacks_option_queries())
        return ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE;
    size_t need = sim_compiler_supported_options(NULL, 0);
    char *all = calloc(1, need + 1);
    char *list = calloc(1, need + 1);
    if (all == NULL || list == NULL) {
        free(all);
        free(list);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    sim_compiler_supported_options(all, need + 1);
    size_t used = 0;
    char *save = NULL;
    for (char *k = strtok_r(all, " ", &save); k != NULL; k = strtok_r(NULL, " ", &save)) {
        if (!sim_cfg.no_weights_copy && is_serializer_key(k))
            continue;
        used += (size_t)snprintf(list + used, need + 1 - used, "%s%s", used ? " " : "", k);
    }
    ze_result_t rc = copy_out_string(list, pSize, str);
    free(all);
    free(list);
    return rc;
}

static ze_result_t g_CompilerIsOptionSupported(ze_device_handle_t hDevice, ze_npu_options_type_t type,
                                               const char *option, const char *value)
{
    GRAPH_ENTER("pfnCompilerIsOptionSupported", 11);
    if (sim_translate(ZEL_HANDLE_DEVICE, hDevice, SIM_MAGIC_DEVICE) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (option == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (type == ZE_NPU_DRIVER_OPTIONS)
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    if (type != ZE_NPU_COMPILER_OPTIONS)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (compiler_lacks_option_queries())
        return ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE;
    if (!sim_cfg.no_weights_copy && is_serializer_key(option))
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    return sim_compiler_option_supported(option, value) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

/* ---- query network ------------------------------------------------------------------------ */
static ze_result_t query_network_create(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                        const ze_graph_desc_2_t *desc, ze_graph_query_network_handle_t *phQuery)
{
    if (sim_translate(ZEL_HANDLE_CONTEXT, hContext, SIM_MAGIC_CONTEXT) == NULL ||
        sim_translate(ZEL_HANDLE_DEVICE, hDevice, SIM_MAGIC_DEVICE) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phQuery == NULL || desc->pInput == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* QueryNetwork::create: only NGRAPH_LITE (UNSUPPORTED_ENUMERATION otherwise). */
    if (desc->format != ZE_GRAPH_FORMAT_NGRAPH_LITE)
        return ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION;
    char *log = calloc(1, SIM_LOG_CAP);
    sim_query_network *qn = calloc(1, sizeof(*qn));
    if (log == NULL || qn == NULL) {
        free(log);
        free(qn);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    size_t needed = 0;
    int err = sim_plan_query_network(desc->pInput, desc->inputSize, sim_cfg.compiler_version, desc->pBuildFlags,
                                     NULL, 0, &needed, log, SIM_LOG_CAP);
    if (err == SIM_OK) {
        qn->layers = calloc(1, needed ? needed : 1);
        if (qn->layers == NULL)
            err = SIM_ERR_NOMEM;
        else
            err = sim_plan_query_network(desc->pInput, desc->inputSize, sim_cfg.compiler_version,
                                         desc->pBuildFlags, qn->layers, needed, &needed, log, SIM_LOG_CAP);
    }
    if (err != SIM_OK) {
        /* vclQueryNetworkCreate's result through vclToL0Err (v1.10: UNKNOWN); the
         * per-thread failure log is not touched by a query. */
        sim_trace("query network failed: %s", log);
        free(log);
        free(qn->layers);
        free(qn);
        return compile_result(err);
    }
    free(log);
    qn->magic = SIM_MAGIC_QUERY_NETWORK;
    qn->size = strlen(qn->layers) + 1;
    sim_live_add(NPU_SIM_HANDLE_QUERY_NETWORK, 1);
    *phQuery = (ze_graph_query_network_handle_t)qn;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t g_QueryNetworkCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                        const ze_graph_desc_t *desc, ze_graph_query_network_handle_t *phQuery)
{
    GRAPH_ENTER("pfnQueryNetworkCreate", 3);
    ze_graph_desc_2_t d2;
    ze_result_t rc = desc_v1_to_v2(desc, &d2);
    return rc != ZE_RESULT_SUCCESS ? rc : query_network_create(hContext, hDevice, &d2, phQuery);
}

static ze_result_t g_QueryNetworkCreate2(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                         const ze_graph_desc_2_t *desc, ze_graph_query_network_handle_t *phQuery)
{
    GRAPH_ENTER("pfnQueryNetworkCreate2", 5);
    ze_result_t rc = check_desc2(desc);
    return rc != ZE_RESULT_SUCCESS ? rc : query_network_create(hContext, hDevice, desc, phQuery);
}

static sim_query_network *query_of(ze_graph_query_network_handle_t h)
{
    sim_query_network *q = (sim_query_network *)(void *)h;
    return q != NULL && q->magic == SIM_MAGIC_QUERY_NETWORK ? q : NULL;
}

static ze_result_t g_QueryNetworkDestroy(ze_graph_query_network_handle_t hQuery)
{
    GRAPH_ENTER("pfnQueryNetworkDestroy", 3);
    sim_query_network *q = query_of(hQuery);
    if (q == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    q->magic = SIM_MAGIC_DEAD;
    free(q->layers);
    free(q);
    sim_live_add(NPU_SIM_HANDLE_QUERY_NETWORK, -1);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t g_QueryNetworkGetSupportedLayers(ze_graph_query_network_handle_t hQuery, size_t *pSize,
                                                    char *pLayers)
{
    GRAPH_ENTER("pfnQueryNetworkGetSupportedLayers", 3);
    sim_query_network *q = query_of(hQuery);
    if (q == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return copy_out_string(q->layers, pSize, pLayers);
}

/* ---- build logs ----------------------------------------------------------------------------- */
/* The real drivers' two-call log copy: a NULL buffer (v1.19+) or a zero size
 * (v1.10) asks for the size including the NUL; otherwise min(*pSize, size)
 * bytes are copied as they are, so a short buffer gets no terminating NUL. */
static ze_result_t copy_log(const char *text, uint32_t *pSize, char *out, int v110)
{
    if (pSize == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    size_t need = strlen(text) + 1;
    uint32_t need32 = need > UINT32_MAX ? UINT32_MAX : (uint32_t)need;
    if (v110 ? *pSize == 0 : out == NULL) {
        *pSize = need32;
        return ZE_RESULT_SUCCESS;
    }
    if (out == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pSize > need32)
        *pSize = need32;
    memcpy(out, text, *pSize);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t g_BuildLogGetString(ze_graph_handle_t hGraph, uint32_t *pSize, char *pLog)
{
    GRAPH_ENTER("pfnBuildLogGetString", 4);
    /* zeGraphBuildLogGetString: with a graph handle the real driver returns
     * SUCCESS at once and writes nothing, not even *pSize (every release). */
    if (hGraph != NULL)
        return ZE_RESULT_SUCCESS;
    return copy_log(thread_failure_log, pSize, pLog, sim_driver_release() < SIM_RELEASE(1, 19));
}

static sim_build_log *build_log_of(ze_graph_build_log_handle_t h)
{
    sim_build_log *b = (sim_build_log *)(void *)h;
    return b != NULL && b->magic == SIM_MAGIC_BUILD_LOG ? b : NULL;
}

static ze_result_t g_BuildLogGetString2(ze_graph_build_log_handle_t hLog, uint32_t *pSize, char *pLog)
{
    GRAPH_ENTER("pfnBuildLogGetString2", 12);
    sim_build_log *b = build_log_of(hLog);
    if (b == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return copy_log(b->text, pSize, pLog, 0);
}

static ze_result_t g_BuildLogDestroy(ze_graph_build_log_handle_t hLog)
{
    GRAPH_ENTER("pfnBuildLogDestroy", 12);
    sim_build_log *b = build_log_of(hLog);
    if (b == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    b->magic = SIM_MAGIC_DEAD;
    free(b->text);
    free(b);
    sim_live_add(NPU_SIM_HANDLE_BUILD_LOG, -1);
    return ZE_RESULT_SUCCESS;
}

/* ---- context memory --------------------------------------------------------------------------- */
static ze_result_t g_QueryContextMemory(ze_context_handle_t hContext, ze_graph_memory_query_type_t type,
                                        ze_graph_memory_query_t *q)
{
    GRAPH_ENTER("pfnQueryContextMemory", 5);
    sim_context *ctx = sim_translate(ZEL_HANDLE_CONTEXT, hContext, SIM_MAGIC_CONTEXT);
    if (ctx == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (q == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    switch (type) {
    case ZE_GRAPH_QUERY_MEMORY_DDR:
        q->total = sim_total_ram();
        q->allocated = sim_context_allocated(ctx);
        return ZE_RESULT_SUCCESS;
    case ZE_GRAPH_QUERY_MEMORY_DRIVER_CACHE:
    case ZE_GRAPH_QUERY_MEMORY_PROGRAM_CACHE:
        /* Context::queryContextMemory: v1.10 knows DDR only; later releases
         * report the disk cache's bytes and its limit. */
        if (sim_driver_release() < SIM_RELEASE(1, 19))
            return ZE_RESULT_ERROR_INVALID_ARGUMENT;
        q->total = sim_cache_max_size();
        q->allocated = sim_cache_size();
        return ZE_RESULT_SUCCESS;
    default:
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
}

/* ---- tables ------------------------------------------------------------------------------------ */
static const ze_graph_dditable_ext_t graph_table = {
    .pfnCreate = g_Create,
    .pfnDestroy = g_Destroy,
    .pfnGetProperties = g_GetProperties,
    .pfnGetArgumentProperties = g_GetArgumentProperties,
    .pfnSetArgumentValue = g_SetArgumentValue,
    .pfnAppendGraphInitialize = g_AppendGraphInitialize,
    .pfnAppendGraphExecute = g_AppendGraphExecute,
    .pfnGetNativeBinary = g_GetNativeBinary,
    .pfnDeviceGetGraphProperties = g_DeviceGetGraphProperties,
    .pfnGraphGetArgumentMetadata = g_GraphGetArgumentMetadata,
    .pfnGetArgumentProperties2 = g_GetArgumentProperties2,
    .pfnGetArgumentProperties3 = g_GetArgumentProperties3,
    .pfnQueryNetworkCreate = g_QueryNetworkCreate,
    .pfnQueryNetworkDestroy = g_QueryNetworkDestroy,
    .pfnQueryNetworkGetSupportedLayers = g_QueryNetworkGetSupportedLayers,
    .pfnBuildLogGetString = g_BuildLogGetString,
    .pfnCreate2 = g_Create2,
    .pfnQueryNetworkCreate2 = g_QueryNetworkCreate2,
    .pfnQueryContextMemory = g_QueryContextMemory,
    .pfnDeviceGetGraphProperties2 = g_DeviceGetGraphProperties2,
    .pfnGetNativeBinary2 = g_GetNativeBinary2,
    .pfnGetProperties2 = g_GetProperties2,
    .pfnGraphInitialize = g_GraphInitialize,
    .pfnCompilerGetSupportedOptions = g_CompilerGetSupportedOptions,
    .pfnCompilerIsOptionSupported = g_CompilerIsOptionSupported,
    .pfnCreate3 = g_Create3,
    .pfnGetProperties3 = g_GetProperties3,
    .pfnBuildLogGetString2 = g_BuildLogGetString2,
    .pfnBuildLogDestroy = g_BuildLogDestroy,
    .pfnSetArgumentValue2 = g_SetArgumentValue2,
    .pfnEvict = g_Evict,
};

const ze_graph_dditable_ext_t *sim_graph_table(void)
{
    return &graph_table;
}

static ze_result_t cq_SetWorkloadType(ze_command_queue_handle_t hQueue, ze_command_queue_workload_type_t type)
{
    SIM_ENTER("pfnSetWorkloadType");
    if (sim_translate(ZEL_HANDLE_COMMAND_QUEUE, hQueue, SIM_MAGIC_QUEUE) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* CommandQueue::setWorkloadType (all three releases): DEFAULT or
     * BACKGROUND, anything else INVALID_ENUMERATION. The sim records it (the
     * test extension counts BACKGROUND queues); one worker thread either way. */
    if (type != ZE_WORKLOAD_TYPE_DEFAULT && type != ZE_WORKLOAD_TYPE_BACKGROUND)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return sim_queue_set_workload(hQueue, (uint32_t)type);
}

static const ze_command_queue_npu_dditable_ext_t cq_npu_table = {
    .pfnSetWorkloadType = cq_SetWorkloadType,
};

const ze_command_queue_npu_dditable_ext_t *sim_cq_npu_table(void)
{
    return &cq_npu_table;
}

/* ---- profiling data entries --------------------------------------------------- */
static sim_prof_pool *pool_of(ze_graph_profiling_pool_handle_t h)
{
    sim_prof_pool *p = (sim_prof_pool *)(void *)h;
    return p != NULL && p->magic == SIM_MAGIC_PROF_POOL ? p : NULL;
}

static sim_prof_query *prof_query_of(ze_graph_profiling_query_handle_t h)
{
    sim_prof_query *q = (sim_prof_query *)(void *)h;
    return q != NULL && q->magic == SIM_MAGIC_PROF_QUERY && !q->destroyed ? q : NULL;
}

static ze_result_t prof_PoolCreate(ze_graph_handle_t hGraph, uint32_t count, ze_graph_profiling_pool_handle_t *out)
{
    SIM_ENTER("pfnProfilingPoolCreate");
    sim_graph *g = graph_of(hGraph);
    if (g == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!sim_plan_profiling(g->plan))
        return ZE_RESULT_ERROR_NOT_AVAILABLE;   /* "GraphProfiling is not available" */
    if (count == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    if (out == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    sim_prof_pool *p = calloc(1, sizeof *p);
    sim_prof_query **slots = calloc(count, sizeof *slots);
    if (p == NULL || slots == NULL) {
        free(p);
        free(slots);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    p->magic = SIM_MAGIC_PROF_POOL;
    p->g = g;
    p->count = count;
    p->slots = slots;
    pthread_mutex_init(&p->lock, NULL);
    graph_retain(g);
    sim_live_add(NPU_SIM_HANDLE_PROFILING, 1);
    *out = (ze_graph_profiling_pool_handle_t)p;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t prof_PoolDestroy(ze_graph_profiling_pool_handle_t hPool)
{
    SIM_ENTER("pfnProfilingPoolDestroy");
    sim_prof_pool *p = pool_of(hPool);
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&p->lock);
    for (uint32_t i = 0; i < p->count; i++)
        if (p->slots[i] != NULL) {
            pthread_mutex_unlock(&p->lock);
            return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;   /* a query not destroyed */
        }
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_destroy(&p->lock);
    graph_release(p->g);
    free(p->slots);
    p->magic = SIM_MAGIC_DEAD;
    free(p);
    sim_live_add(NPU_SIM_HANDLE_PROFILING, -1);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t prof_QueryCreate(ze_graph_profiling_pool_handle_t hPool, uint32_t index,
                                    ze_graph_profiling_query_handle_t *out)
{
    SIM_ENTER("pfnProfilingQueryCreate");
    sim_prof_pool *p = pool_of(hPool);
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (index >= p->count)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (out == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    uint64_t size = 16u + 16u * (uint64_t)sim_plan_step_count(p->g->plan);
    if (size > UINT32_MAX)
        return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    sim_prof_query *q = calloc(1, sizeof *q);
    uint64_t *raw = calloc(1, (size_t)size);   /* zeroed like the pool's buffer */
    if (q == NULL || raw == NULL) {
        free(q);
        free(raw);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    pthread_mutex_lock(&p->lock);
    if (p->slots[index] != NULL) {
        pthread_mutex_unlock(&p->lock);
        free(q);
        free(raw);
        return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    }
    q->magic = SIM_MAGIC_PROF_QUERY;
    atomic_init(&q->refs, 1);
    q->pool = p;
    q->index = index;
    q->plan = p->g->plan;
    q->raw_size = (uint32_t)size;
    q->raw = raw;
    p->slots[index] = q;
    pthread_mutex_unlock(&p->lock);
    sim_live_add(NPU_SIM_HANDLE_PROFILING, 1);
    *out = (ze_graph_profiling_query_handle_t)q;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t prof_QueryDestroy(ze_graph_profiling_query_handle_t hQuery)
{
    SIM_ENTER("pfnProfilingQueryDestroy");
    sim_prof_query *q = prof_query_of(hQuery);
    if (q == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_prof_pool *p = q->pool;
    pthread_mutex_lock(&p->lock);
    p->slots[q->index] = NULL;
    pthread_mutex_unlock(&p->lock);
    q->destroyed = 1;
    sim_live_add(NPU_SIM_HANDLE_PROFILING, -1);
    prof_query_release(q);   /* recorded executes keep it until they are dropped */
    return ZE_RESULT_SUCCESS;
}

/* The compiler's decode of a buffer no execute has written fails (the sim's
 * assumption: the real decoder parses firmware records that are not there).
 * v1.10.0 returns UNKNOWN with only the compiler's log; later releases map the
 * vcl result (UNKNOWN) and prefix the driver's line. */
static ze_result_t prof_decode_failure(void)
{
    char line[256];
    if (sim_driver_release() >= SIM_RELEASE(1, 19))
        snprintf(line, sizeof line,
                 "[NPU_DRV] Driver reports a failure from vclGetDecodedProfilingBuffer, return code: %d\n"
                 "profiling buffer holds no execution\n", (int)ZE_RESULT_ERROR_UNKNOWN);
    else
        snprintf(line, sizeof line, "profiling buffer holds no execution\n");
    log_append_cap(thread_profiling_log, sizeof thread_profiling_log, line);
    return ZE_RESULT_ERROR_UNKNOWN;
}

/* Compiler::getDecodedProfilingBuffer's copy (the same for RAW): a *pSize of 0
 * or above the data's size becomes the size, and pData (when given) gets
 * *pSize bytes. */
static ze_result_t prof_copy(const void *data, uint32_t size, uint32_t *pSize, uint8_t *pData)
{
    if (*pSize == 0 || *pSize > size)
        *pSize = size;
    if (pData != NULL && *pSize > 0)
        memcpy(pData, data, *pSize);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t prof_decode(const sim_prof_query *q, ze_graph_profiling_type_t type, uint32_t *pSize,
                               uint8_t *pData)
{
    const sim_plan *plan = q->plan;
    const uint64_t *t = q->raw + 2;
    if (q->raw[1] == 0)
        return prof_decode_failure();
    uint32_t steps = sim_plan_step_count(plan), layers = sim_plan_layer_count(plan);
    uint32_t n = type == ZE_GRAPH_PROFILING_LAYER_LEVEL ? layers : steps;
    size_t rec = type == ZE_GRAPH_PROFILING_LAYER_LEVEL ? sizeof(ze_profiling_layer_info)
                                                        : sizeof(ze_profiling_task_info);
    uint8_t *out = calloc((size_t)n + 1, rec);
    if (out == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t s = 0; s < steps; s++) {
        int32_t l = sim_plan_step_layer(plan, s);
        const char *ltype = "";
        const char *name = sim_plan_layer_name(plan, (uint32_t)l, &ltype);
        if (name == NULL)
            continue;
        if (type == ZE_GRAPH_PROFILING_TASK_LEVEL) {
            ze_profiling_task_info *ti = (ze_profiling_task_info *)(void *)(out + s * rec);
            snprintf(ti->name, sizeof ti->name, "%s", name);
            snprintf(ti->layer_type, sizeof ti->layer_type, "%s", ltype);
            ti->exec_type = ZE_TASK_EXECUTE_SW;   /* the sim's steps are software kernels */
            ti->start_time_ns = t[2 * s];
            ti->duration_ns = t[2 * s + 1];
            ti->task_id = s;
            ti->parent_layer_id = UINT32_MAX;     /* "Not used" */
            continue;
        }
        ze_profiling_layer_info *li = (ze_profiling_layer_info *)(void *)(out + (size_t)l * rec);
        uint64_t start = t[2 * s], end = t[2 * s] + t[2 * s + 1];
        if (li->status == 0) {
            snprintf(li->name, sizeof li->name, "%s", name);
            snprintf(li->layer_type, sizeof li->layer_type, "%s", ltype);
            li->status = ZE_LAYER_STATUS_EXECUTED;
            li->start_time_ns = start;
            li->layer_id = UINT32_MAX;            /* "Not used" */
            li->fused_layer_id = UINT64_MAX;
        }
        if (start < li->start_time_ns) {
            li->duration_ns += li->start_time_ns - start;
            li->start_time_ns = start;
        }
        if (end > li->start_time_ns + li->duration_ns)
            li->duration_ns = end - li->start_time_ns;
        li->sw_ns += t[2 * s + 1];
    }
    ze_result_t rc = prof_copy(out, (uint32_t)(n * rec), pSize, pData);
    free(out);
    return rc;
}

static ze_result_t prof_QueryGetData(ze_graph_profiling_query_handle_t hQuery, ze_graph_profiling_type_t type,
                                     uint32_t *pSize, uint8_t *pData)
{
    SIM_ENTER("pfnProfilingQueryGetData");
    sim_prof_query *q = prof_query_of(hQuery);
    if (q == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (type == ZE_GRAPH_PROFILING_LAYER_LEVEL || type == ZE_GRAPH_PROFILING_TASK_LEVEL)
        return prof_decode(q, type, pSize, pData);
    if (type != ZE_GRAPH_PROFILING_RAW)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    return prof_copy(q->raw, q->raw_size, pSize, pData);
}

static ze_result_t prof_DeviceGetProperties(ze_device_handle_t hDevice, ze_device_profiling_data_properties_t *p)
{
    SIM_ENTER("pfnDeviceGetProfilingDataProperties");
    if (sim_translate(ZEL_HANDLE_DEVICE, hDevice, SIM_MAGIC_DEVICE) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->extensionVersion = SIM_PROFILE()->profiling_ext;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t prof_LogGetString(ze_graph_profiling_query_handle_t hQuery, uint32_t *pSize, char *pLog)
{
    SIM_ENTER("pfnProfilingLogGetString");
    if (prof_query_of(hQuery) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSize == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    uint32_t need = (uint32_t)strlen(thread_profiling_log) + 1;
    if (*pSize == 0) {
        *pSize = need;
        return ZE_RESULT_SUCCESS;
    }
    if (pLog == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pSize > need)
        *pSize = need;
    memcpy(pLog, thread_profiling_log, *pSize);   /* no NUL when cut, as the driver's memcpy */
    return ZE_RESULT_SUCCESS;
}

static const ze_graph_profiling_dditable_ext_t profiling_table = {
    prof_PoolCreate, prof_PoolDestroy, prof_QueryCreate, prof_QueryDestroy,
    prof_QueryGetData, prof_DeviceGetProperties, prof_LogGetString,
};

const ze_graph_profiling_dditable_ext_t *sim_profiling_table(void)
{
    return &profiling_table;
}
