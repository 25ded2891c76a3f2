/* profile.c - the release profiles (see profile.h and docs/driver-compat.md).
 *
 * Values marked "unverified" are placeholders still to be traced in Intel's
 * source; every other value names its source in docs/driver-compat.md.
 */
#include "sim/profile.h"

#include <string.h>
#include <ze_api.h>

#define SIM_V(a, b) (((uint32_t)(a) << 16) | (uint32_t)(b))

static const sim_profile profiles[] = {
    {
        .name = "2024",
        .driver_release = "v1.10.0",
        .compiler_release = "npu_ud_2024_44_rc1",
        .api_version = SIM_V(1, 9),            /* ZE_API_VERSION_CURRENT, include/ze_api.h of level-zero submodule 24ad9d61 */
        .driver_version = 1730992118u,         /* unverified: DRIVER_VERSION is the build time; this is the tag's commit time */
        .graph_ext_version = SIM_V(1, 9),      /* extensions submodule a63155ae: CURRENT 1.9 */
        .cq_ext_version = SIM_V(1, 0),         /* api/ze_driver.cpp supportedExts: COMMAND_QUEUE_NPU 1.0 */
        .profiling_ext = SIM_V(1, 0),          /* api/ze_driver.cpp supportedExts: PROFILING_DATA 1.0 */
        .mutable_cmdlist_ext = SIM_V(1, 0),    /* api/ze_driver.cpp supportedExts: MUTABLE_COMMAND_LIST_EXP 1.0 */
        .context_npu_ext = 0,                  /* not in supportedExts (no ze_context_npu_ext.h yet) */
        .external_memmap_ext = 0,              /* not in supportedExts */
        .memmap_import_stype = 0,              /* api/ze_memory.cpp zeMemAllocHost: no host-pointer import case */
        .disk_cache = 1,                       /* ext/source/graph/disk_cache.cpp: 1 GiB, SHA-1 key, no checksum */
        .compiler_version = SIM_V(6, 1),       /* npu_driver_compiler.h @ npu_ud_2024_44 */
        .max_opset = 11,                       /* SUPPORTED_OPSET, compiler.cpp @ npu_ud_2024_44_rc1 */
        .serializer_key = SIM_SERIALIZER_NONE, /* vcl_common.cpp prepareModel @ 2024_44: base layout only */
        .wpa_ptr_key = NULL,                   /* no layout-B deserializer, so no key is read */
        .wpa_size_key = NULL,
        .bool_reads_true = 0,                  /* unverified: YES/NO-only Any reader assumed for OV 0ebff040 */
        .read_value_needs_input = 1,           /* IE.cpp parseNode(ReadValue v3/v6) @ 2024_44: == 1 input */
    },
    {
        .name = "2025",
        .driver_release = "v1.19.0",
        .compiler_release = "npu_ud_2025_24_rc2",
        .api_version = SIM_V(1, 13),           /* ZE_API_VERSION_CURRENT, include/ze_api.h of level-zero submodule e3b6efdd */
        .driver_version = 1751624798u,         /* unverified: DRIVER_VERSION is the build time; this is the tag's commit time */
        .graph_ext_version = SIM_V(1, 12),     /* extensions submodule d16f5d09: CURRENT 1.12 */
        .cq_ext_version = SIM_V(1, 0),         /* api/ze_driver.cpp supportedExts: COMMAND_QUEUE_NPU 1.0 */
        .profiling_ext = SIM_V(1, 0),          /* api/ze_driver.cpp supportedExts: PROFILING_DATA 1.0 */
        .mutable_cmdlist_ext = SIM_V(1, 1),    /* api/ze_driver.cpp supportedExts: MUTABLE_COMMAND_LIST_EXP 1.1 */
        .context_npu_ext = 0,                  /* not in supportedExts */
        .external_memmap_ext = 0,              /* not in supportedExts */
        .memmap_import_stype = 0,              /* api/ze_memory.cpp zeMemAllocHost: no host-pointer import case */
        .disk_cache = 2,                       /* source/ext/disk_cache.cpp: 4 GiB, SHA-1 key, checksum */
        .compiler_version = SIM_V(7, 4),       /* unverified */
        .max_opset = 11,                       /* SUPPORTED_OPSET in npu_compiler @0ccf9bf3 (2025 era) */
        .serializer_key = SIM_SERIALIZER_USE_BASE, /* vcl_common.cpp prepareModel @0ccf9bf3 */
        .wpa_ptr_key = "mp",                   /* unverified: POINTER_KEY of OV d72b7615 (mp or mpZ) */
        .wpa_size_key = "ms",                  /* unverified */
        .bool_reads_true = 0,                  /* unverified */
        .read_value_needs_input = 0,           /* IE.cpp ReadValue v6 @0ccf9bf3: 0 or 1 input */
    },
    {
        .name = "2026",
        .driver_release = "v1.32.1",
        .compiler_release = "npu_ud_2026_12_1_rc1",
        .api_version = SIM_V(1, 15),           /* ZE_API_VERSION_CURRENT of level-zero v1.27.0 (LEVEL_ZERO_VERSION, third_party/cmake/level-zero.cmake) */
        .driver_version = 1776437321u,         /* unverified: DRIVER_VERSION is the build time; this is the tag's commit time */
        .graph_ext_version = SIM_V(1, 16),     /* extensions submodule 42768cc7: CURRENT 1.16 */
        .cq_ext_version = SIM_V(1, 1),         /* driver_handle.cpp: 1.1 when the KMD can create queues (assumed), else 1.0 */
        .profiling_ext = SIM_V(1, 0),          /* driver_handle.cpp getSupportedExtensions */
        .mutable_cmdlist_ext = SIM_V(1, 1),
        .context_npu_ext = SIM_V(1, 0),        /* ZE_CONTEXT_NPU_EXT_VERSION_CURRENT @42768cc7 */
        .external_memmap_ext = SIM_V(1, 0),    /* only when the KMD has userptr support (assumed) */
        .memmap_import_stype = 0x00020037u,    /* api/ze_memory.cpp: ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC */
        .disk_cache = 3,                       /* source/ext/disk_cache.cpp: 4 GiB, CityHash key, checksum, input hash */
        .compiler_version = SIM_V(7, 28),      /* unverified */
        .max_opset = 11,                       /* SUPPORTED_OPSET, newest stored npu_compiler compiler.hpp */
        .serializer_key = SIM_SERIALIZER_VERSION, /* model_preprocessor.cpp prepareModel @3a71fc8b */
        .wpa_ptr_key = "mp",                   /* unverified for OV b7f9dbfa; "mp"/"ms" is the current name */
        .wpa_size_key = "ms",
        .bool_reads_true = 1,                  /* unverified */
        .read_value_needs_input = 0,           /* unverified: assumed as 2025 */
    },
};

#define PROFILE_COUNT (sizeof profiles / sizeof profiles[0])

static const sim_profile *current = &profiles[PROFILE_COUNT - 1];

const sim_profile *sim_profile_current(void) { return current; }

const sim_profile *sim_profile_find(const char *name)
{
    for (unsigned i = 0; i < PROFILE_COUNT; i++)
        if (strcmp(profiles[i].name, name) == 0 || strcmp(profiles[i].driver_release + 1, name) == 0)
            return &profiles[i];
    return NULL;
}

void sim_profile_select(const sim_profile *p)
{
    if (p != NULL) current = p;
}

const sim_profile *sim_profile_all(unsigned *count)
{
    *count = (unsigned)PROFILE_COUNT;
    return profiles;
}
