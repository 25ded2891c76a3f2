/* extensions.c - the driver's extensions: the list zeDriverGetExtensionProperties
 * advertises, the tables zeDriverGetExtensionFunctionAddress hands out, and the
 * table of the context NPU extension (the profiling, graph and command-queue
 * tables live in graph_ext.c). NPU_SIM_HIDE_EXT removes named extensions
 * from both the list and the lookup (for tests of drivers without them).
 *
 * It is the one file that knows every extension, so it is the top layer (see
 * sim_internal.h): it calls driver.c (the driver handle check and the core
 * entries of the driver table), graph_ext.c (the graph and command-queue
 * tables) and hooks.c (the test table). Nothing calls it but the loader,
 * through zeGetDriverProcAddrTable.
 */
#include <stdio.h>
#include <string.h>

#include "sim/sim_internal.h"

/* ---- context NPU (v1.32.1 api/ze_driver.cpp: pfnSetProperties, pfnReleaseMemory) -- */
static ze_result_t ctx_SetProperties(ze_context_handle_t hContext, ze_context_properties_npu_ext_t *props)
{
    SIM_ENTER("pfnSetProperties");
    return sim_context_set_npu_properties(hContext, props);
}

static ze_result_t ctx_ReleaseMemory(ze_context_handle_t hContext)
{
    SIM_ENTER("pfnReleaseMemory");
    return sim_context_release_memory(hContext);
}

static const ze_context_npu_dditable_ext_t context_npu_table = {ctx_SetProperties, ctx_ReleaseMemory};

/* ---- extension list and lookup ------------------------------------------------------- */
/* The advertised extensions, in the order of the profile's driver (v1.10/v1.19:
 * the supportedExts array of api/ze_driver.cpp; v1.32: getSupportedExtensions
 * of source/driver_handle.cpp): graph at its current version, profiling data,
 * mutable command list, command queue NPU, context NPU (v1.32), external memmap
 * (v1.32), then the legacy ZE_extension_graph_1_2 .. _1_8 names. The sim's own
 * test extension comes last. */
static void add_ext(ze_driver_extension_properties_t *all, uint32_t *n, const char *name, uint32_t version)
{
    if (version == 0 || sim_ext_hidden(name))
        return;
    snprintf(all[*n].name, sizeof(all[*n].name), "%s", name);
    all[(*n)++].version = version;
}

static uint32_t build_extension_list(ze_driver_extension_properties_t *out, uint32_t cap)
{
    const sim_profile *pr = SIM_PROFILE();
    ze_driver_extension_properties_t all[20];
    uint32_t n = 0;
    add_ext(all, &n, ZE_GRAPH_EXT_NAME, sim_cfg.graph_ext_version);
    add_ext(all, &n, SIM_PROFILING_DATA_EXT_NAME, pr->profiling_ext);
    add_ext(all, &n, SIM_MUTABLE_COMMAND_LIST_EXP_NAME, (uint32_t)pr->mutable_cmdlist_ext);
    add_ext(all, &n, ZE_COMMAND_QUEUE_NPU_EXT_NAME, pr->cq_ext_version);
    add_ext(all, &n, SIM_CONTEXT_NPU_EXT_NAME, (uint32_t)pr->context_npu_ext);
    add_ext(all, &n, SIM_EXTERNAL_MEMMAP_EXT_NAME, (uint32_t)pr->external_memmap_ext);
    uint32_t minor = ZE_MINOR_VERSION(sim_cfg.graph_ext_version);
    for (uint32_t m = 2; m <= 8 && m <= minor; m++) {
        snprintf(all[n].name, sizeof(all[n].name), "%s_1_%u", ZE_GRAPH_EXT_NAME, m);
        all[n++].version = ZE_MAKE_VERSION(1, m);
    }
    snprintf(all[n].name, sizeof(all[n].name), "%s", NPU_SIM_TEST_EXT_NAME);
    all[n++].version = NPU_SIM_TEST_EXT_VERSION;
    if (out != NULL) {
        for (uint32_t i = 0; i < n && i < cap; i++) {
            memcpy(out[i].name, all[i].name, sizeof(out[i].name));
            out[i].version = all[i].version;
        }
    }
    return n;
}

static ze_result_t sim_zeDriverGetExtensionProperties(ze_driver_handle_t hDriver, uint32_t *pCount,
                                                      ze_driver_extension_properties_t *props)
{
    SIM_ENTER("zeDriverGetExtensionProperties");
    if (!sim_driver_valid(hDriver))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    uint32_t total = build_extension_list(NULL, 0);
    if (*pCount == 0) {
        *pCount = total;
        return ZE_RESULT_SUCCESS;
    }
    uint32_t n = *pCount < total ? *pCount : total;
    if (props == NULL) {
        /* As the real driver: the count is clamped first, then the pointer checked. */
        *pCount = n;
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    }
    build_extension_list(props, n);
    *pCount = n;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t sim_zeDriverGetExtensionFunctionAddress(ze_driver_handle_t hDriver, const char *name,
                                                           void **ppFunctionAddress)
{
    SIM_ENTER("zeDriverGetExtensionFunctionAddress");
    if (!sim_driver_valid(hDriver))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (name == NULL || ppFunctionAddress == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (sim_ext_hidden(name)) {
        *ppFunctionAddress = NULL;
        return sim_driver_release() < SIM_RELEASE(1, 19) ? ZE_RESULT_ERROR_UNKNOWN : ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    if (strcmp(name, SIM_PROFILING_DATA_EXT_NAME) == 0 && SIM_PROFILE()->profiling_ext) {
        *ppFunctionAddress = (void *)sim_profiling_table();
        return ZE_RESULT_SUCCESS;
    }
    if (strcmp(name, ZE_COMMAND_QUEUE_NPU_EXT_NAME) == 0) {
        *ppFunctionAddress = (void *)sim_cq_npu_table();
        return ZE_RESULT_SUCCESS;
    }
    if (strcmp(name, SIM_CONTEXT_NPU_EXT_NAME) == 0 && SIM_PROFILE()->context_npu_ext) {
        *ppFunctionAddress = (void *)&context_npu_table;
        return ZE_RESULT_SUCCESS;
    }
    if (strcmp(name, NPU_SIM_TEST_EXT_NAME) == 0) {
        *ppFunctionAddress = (void *)sim_test_ext_table();
        return ZE_RESULT_SUCCESS;
    }
    /* As the real driver: any name containing "ZE_extension_graph". */
    if (strstr(name, ZE_GRAPH_EXT_NAME) != NULL) {
        *ppFunctionAddress = (void *)sim_graph_table();
        return ZE_RESULT_SUCCESS;
    }
    *ppFunctionAddress = NULL;
    /* v1.10.0 ends with ZE_RESULT_ERROR_UNKNOWN; later releases with INVALID_ARGUMENT. */
    return sim_driver_release() < SIM_RELEASE(1, 19) ? ZE_RESULT_ERROR_UNKNOWN : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

/* ---- the driver table ---------------------------------------------------------------- */
ze_result_t zeGetDriverProcAddrTable(ze_api_version_t version, ze_driver_dditable_t *t)
{
    ze_result_t rc = sim_driver_core_table(version, t);
    if (rc != ZE_RESULT_SUCCESS)
        return rc;
    t->pfnGetExtensionProperties = sim_zeDriverGetExtensionProperties;
    t->pfnGetExtensionFunctionAddress = sim_zeDriverGetExtensionFunctionAddress;
    return ZE_RESULT_SUCCESS;
}
