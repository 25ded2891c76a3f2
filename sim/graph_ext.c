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

static void log_append(char *log, const char *line)
{
    size_t n = strlen(log);
    if (n < SIM_LOG_CAP - 1)
        snprintf(log + n, SIM_LOG_CAP - n, "%s", line);
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

/* A recorded graph execute (sim_cmd): obj is the graph, holding a reference;
 * data the argument pointers captured at append time. */
static void graph_execute_run(const sim_cmd *c)
{
    const sim_graph *g = c->obj;
    int rc = sim_plan_run(g->plan, c->data, atomic_load(&sim_skip_math));
    if (rc != SIM_OK)
        sim_trace("graph execute failed: sim_plan_run returned %d", rc);
    sim_count_graph_execute();
}

static void graph_execute_release(sim_cmd *c)
{
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
            int err = sim_plan_compile(desc->pInput, desc->inputSize, sim_cfg.compiler_version,
                                       desc->pBuildFlags, &plan, log, SIM_LOG_CAP);
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
    if (hQuery != NULL)
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE; /* no profiling in the sim */
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
    void **args = malloc((g->arg_count ? g->arg_count : 1) * sizeof(void *));
    if (args == NULL) {
        free(cmd.wait);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    memcpy(args, g->args, g->arg_count * sizeof(void *));
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
    if (type != ZE_WORKLOAD_TYPE_DEFAULT && type != ZE_WORKLOAD_TYPE_BACKGROUND)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return ZE_RESULT_SUCCESS; /* one worker thread either way */
}

static const ze_command_queue_npu_dditable_ext_t cq_npu_table = {
    .pfnSetWorkloadType = cq_SetWorkloadType,
};

const ze_command_queue_npu_dditable_ext_t *sim_cq_npu_table(void)
{
    return &cq_npu_table;
}
