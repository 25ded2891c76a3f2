/* profile.h - release profiles of the software NPU.
 *
 * A profile is one coherent set of what a real Intel NPU stack release does:
 * the driver (intel/linux-npu-driver tag), the graph-extension version its
 * headers carry, and the compiler-in-driver it ships (openvinotoolkit/
 * npu_compiler tag) with that compiler's behaviour. NPU_SIM_PROFILE selects
 * one at zeInit; the default is the newest. The older variables
 * (NPU_SIM_GRAPH_EXT_VERSION, NPU_SIM_COMPILER_VERSION, NPU_SIM_NO_WEIGHTS_COPY)
 * still override single fields on top of the chosen profile.
 *
 * Where each value comes from is in docs/driver-compat.md.
 */
#ifndef SIM_PROFILE_H
#define SIM_PROFILE_H

#include <stdint.h>

/* How the compiler is told which payload layout it gets. The compiler never
 * looks at the buffer to decide: only the build flags count. */
typedef enum sim_serializer_key {
    SIM_SERIALIZER_NONE = 0,        /* no key: only the copying layout (A) exists */
    SIM_SERIALIZER_USE_BASE = 1,    /* NPU_USE_BASE_MODEL_SERIALIZER (default true = A) */
    SIM_SERIALIZER_VERSION = 2      /* NPU_MODEL_SERIALIZER_VERSION (default ALL_WEIGHTS_COPY = A) */
} sim_serializer_key;

typedef struct sim_profile {
    const char *name;               /* value of NPU_SIM_PROFILE: "2024", "2025", "2026" */
    const char *driver_release;     /* linux-npu-driver tag, e.g. "v1.32.1" */
    const char *compiler_release;   /* npu_compiler tag it builds, e.g. "npu_ud_2026_12_1_rc1" */

    /* ---- driver ---- */
    uint32_t api_version;           /* zeDriverGetApiVersion (ZE_MAKE_VERSION) */
    uint32_t driver_version;        /* ze_driver_properties_t.driverVersion */
    uint32_t graph_ext_version;     /* ZE_GRAPH_EXT_VERSION_CURRENT of its extension headers */
    uint32_t cq_ext_version;        /* ZE_extension_command_queue_npu version; 0 = not offered */
    int profiling_ext;              /* advertises ZE_extension_profiling_data */
    int mutable_cmdlist_ext;        /* advertises ZE_experimental_mutable_command_list */
    int context_npu_ext;            /* advertises ZE_extension_context_npu */
    int external_memmap_ext;        /* advertises the external memmap sysmem extension */
    uint32_t memmap_import_stype;   /* the only stype zeMemAllocHost's pNext import matches */
    int disk_cache;                 /* the driver's compile cache, on unless disabled */

    /* ---- compiler in the driver ---- */
    uint32_t compiler_version;      /* (major << 16) | minor, as pfnDeviceGetGraphProperties reports */
    uint32_t max_opset;             /* maxOVOpsetVersionSupported */
    sim_serializer_key serializer_key;
    const char *wpa_ptr_key;        /* WeightsPointerAttribute key names this compiler reads */
    const char *wpa_size_key;
    int bool_reads_true;            /* rt_info booleans: 1 = "true"/"false" also read, 0 = YES/NO only */
    int read_value_needs_input;     /* ReadValue must have exactly one input (the init value) */
} sim_profile;

/* The profile chosen at zeInit (the default before it). Never NULL. */
const sim_profile *sim_profile_current(void);
/* Looks a profile up by name; NULL if unknown. */
const sim_profile *sim_profile_find(const char *name);
/* Selects a profile (called once by zeInit's configuration step). */
void sim_profile_select(const sim_profile *p);
/* All profiles, oldest first; *count receives how many. */
const sim_profile *sim_profile_all(unsigned *count);

#endif /* SIM_PROFILE_H */
