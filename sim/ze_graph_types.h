/* ze_graph_types.h - the software NPU's own declarations of the Intel NPU graph
 * extension ("ZE_extension_graph", up to version 1.18) and the small NPU
 * command-queue extension. Written from the facts in ze-graph-ext.md §1-§2:
 * names, values, field order, sizes and offsets (gcc x86-64 LP64). The static
 * asserts at the end pin every size and offset listed there.
 *
 * Only the sim and its tests include this file; the runtime (npu.c) carries its
 * own declarations.
 */
#ifndef SIM_ZE_GRAPH_TYPES_H
#define SIM_ZE_GRAPH_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <ze_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- names and versions ------------------------------------------------- */
#define ZE_GRAPH_EXT_NAME "ZE_extension_graph"
#define ZE_PROFILING_DATA_EXT_NAME "ZE_extension_profiling_data"
#define ZE_COMMAND_QUEUE_NPU_EXT_NAME "ZE_extension_command_queue_npu"

typedef enum _ze_graph_ext_version_t {
    ZE_GRAPH_EXT_VERSION_1_0 = ZE_MAKE_VERSION(1, 0),
    ZE_GRAPH_EXT_VERSION_1_1 = ZE_MAKE_VERSION(1, 1),
    ZE_GRAPH_EXT_VERSION_1_2 = ZE_MAKE_VERSION(1, 2),
    ZE_GRAPH_EXT_VERSION_1_3 = ZE_MAKE_VERSION(1, 3),
    ZE_GRAPH_EXT_VERSION_1_4 = ZE_MAKE_VERSION(1, 4),
    ZE_GRAPH_EXT_VERSION_1_5 = ZE_MAKE_VERSION(1, 5),
    ZE_GRAPH_EXT_VERSION_1_6 = ZE_MAKE_VERSION(1, 6),
    ZE_GRAPH_EXT_VERSION_1_7 = ZE_MAKE_VERSION(1, 7),
    ZE_GRAPH_EXT_VERSION_1_8 = ZE_MAKE_VERSION(1, 8),
    ZE_GRAPH_EXT_VERSION_1_9 = ZE_MAKE_VERSION(1, 9),
    ZE_GRAPH_EXT_VERSION_1_10 = ZE_MAKE_VERSION(1, 10),
    ZE_GRAPH_EXT_VERSION_1_11 = ZE_MAKE_VERSION(1, 11),
    ZE_GRAPH_EXT_VERSION_1_12 = ZE_MAKE_VERSION(1, 12),
    ZE_GRAPH_EXT_VERSION_1_13 = ZE_MAKE_VERSION(1, 13),
    ZE_GRAPH_EXT_VERSION_1_14 = ZE_MAKE_VERSION(1, 14),
    ZE_GRAPH_EXT_VERSION_1_15 = ZE_MAKE_VERSION(1, 15),
    ZE_GRAPH_EXT_VERSION_1_16 = ZE_MAKE_VERSION(1, 16),
    ZE_GRAPH_EXT_VERSION_1_17 = ZE_MAKE_VERSION(1, 17),
    ZE_GRAPH_EXT_VERSION_1_18 = ZE_MAKE_VERSION(1, 18),
    ZE_GRAPH_EXT_VERSION_CURRENT = ZE_MAKE_VERSION(1, 18),
    ZE_GRAPH_EXT_VERSION_FORCE_UINT32 = 0x7fffffff
} ze_graph_ext_version_t;

/* ---- structure types (new values; the sim also accepts the old ones) ---- */
typedef enum _ze_structure_type_graph_ext_t {
    ZE_STRUCTURE_TYPE_DEVICE_GRAPH_PROPERTIES = 0x1,
    ZE_STRUCTURE_TYPE_GRAPH_DESC = 0x2,              /* before 2025-12: GRAPH_DESC_PROPERTIES */
    ZE_STRUCTURE_TYPE_GRAPH_PROPERTIES = 0x3,
    ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES = 0x4,
    ZE_STRUCTURE_TYPE_GRAPH_ACTIVATION_KERNEL = 0x5,
    ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_METADATA = 0x6,
    ZE_STRUCTURE_TYPE_MUTABLE_GRAPH_ARGUMENT_EXP_DESC_DEPRECATED = 0x7,
    ZE_STRUCTURE_TYPE_GRAPH_INPUT_HASH = 0x8,
    ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTY_STRIDES = 0x9,
    ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_TENSOR = 0xA,
    ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_STRIDES = 0xB,
    ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES_2 = 0xC,
    ZE_STRUCTURE_TYPE_GRAPH_ARGUMENT_PROPERTIES_3 = 0xD,
    ZE_STRUCTURE_TYPE_GRAPH_DESC_2 = 0xE,
    ZE_STRUCTURE_TYPE_DEVICE_GRAPH_PROPERTIES_2 = 0xF,
    ZE_STRUCTURE_TYPE_GRAPH_PROPERTIES_2 = 0x10,
    ZE_STRUCTURE_TYPE_GRAPH_PROPERTIES_3 = 0x11,
    ZE_STRUCTURE_TYPE_GRAPH_EXT_FORCE_UINT32 = 0x7fffffff
} ze_structure_type_graph_ext_t;

/* Host-memory import through the pNext of ze_host_mem_alloc_desc_t (NPU extension
 * header ze_mem_import_system_memory_ext.h; not in the spec 1.4 headers). */
#define ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_SYSTEM_MEMORY 0x24
#define ZE_EXTERNAL_MEMORY_TYPE_FLAG_STANDARD_ALLOCATION 0x100
typedef struct _ze_external_memory_import_system_memory_t {
    uint32_t stype;
    const void *pNext;
    void *pSystemMemory; /* page-aligned */
    uint64_t size;       /* page-aligned */
} ze_external_memory_import_system_memory_t;

/* Spec >= 1.5 device IP version extension (not in the 1.4 headers). */
#define ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT 0x1000f
typedef struct _ze_device_ip_version_ext_t {
    uint32_t stype;
    void *pNext;
    uint32_t ipVersion;
} ze_device_ip_version_ext_t;

/* ---- enums --------------------------------------------------------------- */
typedef enum _ze_graph_format_t {
    ZE_GRAPH_FORMAT_NATIVE = 0x1,
    ZE_GRAPH_FORMAT_NGRAPH_LITE = 0x2,
    ZE_GRAPH_FORMAT_FORCE_UINT32 = 0x7fffffff
} ze_graph_format_t;

typedef enum _ze_graph_argument_type_t {
    ZE_GRAPH_ARGUMENT_TYPE_INPUT = 0,
    ZE_GRAPH_ARGUMENT_TYPE_OUTPUT = 1,
    ZE_GRAPH_ARGUMENT_TYPE_FORCE_UINT32 = 0x7fffffff
} ze_graph_argument_type_t;

typedef enum _ze_graph_init_stage_t {
    ZE_GRAPH_STAGE_COMMAND_LIST_INITIALIZE = 0x1,
    ZE_GRAPH_STAGE_INITIALIZE = 0x2,
    ZE_GRAPH_STAGE_FORCE_UINT32 = 0x7fffffff
} ze_graph_init_stage_t;

#define ZE_GRAPH_FLAG_NONE 0x0u
#define ZE_GRAPH_FLAG_DISABLE_CACHING 0x1u
#define ZE_GRAPH_FLAG_ENABLE_PROFILING 0x2u
#define ZE_GRAPH_FLAG_INPUT_GRAPH_PERSISTENT 0x4u
#define ZE_GRAPH_FLAG_SECURE_COMPILE 0x8u
#define ZE_GRAPH_FLAG_OPTIMIZE_FOR_DYNAMIC_SHAPES 0x10u

#define ZE_GRAPH_PROPERTIES_FLAG_LOADED_FROM_CACHE 0x1u
#define ZE_GRAPH_PROPERTIES_FLAG_COMPILED 0x2u
#define ZE_GRAPH_PROPERTIES_FLAG_PRE_COMPILED 0x4u
#define ZE_GRAPH_PROPERTIES_FLAG_NO_STANDARD_ALLOCATION 0x8u
#define ZE_GRAPH_PROPERTIES_FLAG_PROFILING_ENABLED 0x10u

typedef enum _ze_graph_memory_query_type_t {
    ZE_GRAPH_QUERY_MEMORY_DDR = 1,
    ZE_GRAPH_QUERY_MEMORY_DRIVER_CACHE = 2,
    ZE_GRAPH_QUERY_MEMORY_PROGRAM_CACHE = 3,
    ZE_GRAPH_QUERY_MEMORY_FORCE_UINT32 = 0x7fffffff
} ze_graph_memory_query_type_t;

typedef enum _ze_npu_options_type_t {
    ZE_NPU_COMPILER_OPTIONS = 1,
    ZE_NPU_DRIVER_OPTIONS = 2,
    ZE_NPU_OPTIONS_FORCE_UINT32 = 0x7fffffff
} ze_npu_options_type_t;

typedef enum _ze_graph_argument_precision_t {
    ZE_GRAPH_ARGUMENT_PRECISION_UNKNOWN = 0x00,
    ZE_GRAPH_ARGUMENT_PRECISION_FP32 = 0x01,
    ZE_GRAPH_ARGUMENT_PRECISION_FP16 = 0x02,
    ZE_GRAPH_ARGUMENT_PRECISION_UINT16 = 0x03,
    ZE_GRAPH_ARGUMENT_PRECISION_UINT8 = 0x04,
    ZE_GRAPH_ARGUMENT_PRECISION_INT32 = 0x05,
    ZE_GRAPH_ARGUMENT_PRECISION_INT16 = 0x06,
    ZE_GRAPH_ARGUMENT_PRECISION_INT8 = 0x07,
    ZE_GRAPH_ARGUMENT_PRECISION_BIN = 0x08,
    ZE_GRAPH_ARGUMENT_PRECISION_BF16 = 0x09,
    ZE_GRAPH_ARGUMENT_PRECISION_UINT32 = 0x0A,
    ZE_GRAPH_ARGUMENT_PRECISION_UINT4 = 0x0B,
    ZE_GRAPH_ARGUMENT_PRECISION_INT4 = 0x0C,
    ZE_GRAPH_ARGUMENT_PRECISION_DYNAMIC = 0x0D,
    ZE_GRAPH_ARGUMENT_PRECISION_BOOLEAN = 0x0E,
    ZE_GRAPH_ARGUMENT_PRECISION_FP64 = 0x0F,
    ZE_GRAPH_ARGUMENT_PRECISION_UINT64 = 0x10,
    ZE_GRAPH_ARGUMENT_PRECISION_INT64 = 0x11,
    ZE_GRAPH_ARGUMENT_PRECISION_NF4 = 0x12,
    ZE_GRAPH_ARGUMENT_PRECISION_FP8_E4M3 = 0x13,
    ZE_GRAPH_ARGUMENT_PRECISION_FP8_E5M2 = 0x14,
    ZE_GRAPH_ARGUMENT_PRECISION_FP8_E8M0 = 0x15,
    ZE_GRAPH_ARGUMENT_PRECISION_UINT2 = 0x16,
    ZE_GRAPH_ARGUMENT_PRECISION_INT2 = 0x17,
    ZE_GRAPH_ARGUMENT_PRECISION_FORCE_UINT32 = 0x7fffffff
} ze_graph_argument_precision_t;

typedef enum _ze_graph_argument_layout_t {
    ZE_GRAPH_ARGUMENT_LAYOUT_ANY = 0x00,
    ZE_GRAPH_ARGUMENT_LAYOUT_NCHW = 0x01,
    ZE_GRAPH_ARGUMENT_LAYOUT_NHWC = 0x02,
    ZE_GRAPH_ARGUMENT_LAYOUT_NCDHW = 0x03,
    ZE_GRAPH_ARGUMENT_LAYOUT_NDHWC = 0x04,
    ZE_GRAPH_ARGUMENT_LAYOUT_OIHW = 0x40,
    ZE_GRAPH_ARGUMENT_LAYOUT_C = 0x60,
    ZE_GRAPH_ARGUMENT_LAYOUT_CHW = 0x80,
    ZE_GRAPH_ARGUMENT_LAYOUT_HW = 0xC0,
    ZE_GRAPH_ARGUMENT_LAYOUT_NC = 0xC1,
    ZE_GRAPH_ARGUMENT_LAYOUT_CN = 0xC2,
    ZE_GRAPH_ARGUMENT_LAYOUT_BLOCKED = 0xC8,
    ZE_GRAPH_ARGUMENT_LAYOUT_FORCE_UINT32 = 0x7fffffff
} ze_graph_argument_layout_t;

typedef enum _ze_graph_metadata_type {
    ZE_GRAPH_METADATA_TYPE_UNDEFINED = 0,
    ZE_GRAPH_METADATA_TYPE_DYNAMIC = 1,
    ZE_GRAPH_METADATA_TYPE_BOOLEAN = 2,
    ZE_GRAPH_METADATA_TYPE_BF16 = 3,
    ZE_GRAPH_METADATA_TYPE_F16 = 4,
    ZE_GRAPH_METADATA_TYPE_F32 = 5,
    ZE_GRAPH_METADATA_TYPE_F64 = 6,
    ZE_GRAPH_METADATA_TYPE_I4 = 7,
    ZE_GRAPH_METADATA_TYPE_I8 = 8,
    ZE_GRAPH_METADATA_TYPE_I16 = 9,
    ZE_GRAPH_METADATA_TYPE_I32 = 10,
    ZE_GRAPH_METADATA_TYPE_I64 = 11,
    ZE_GRAPH_METADATA_TYPE_U1 = 12,
    ZE_GRAPH_METADATA_TYPE_U4 = 13,
    ZE_GRAPH_METADATA_TYPE_U8 = 14,
    ZE_GRAPH_METADATA_TYPE_U16 = 15,
    ZE_GRAPH_METADATA_TYPE_U32 = 16,
    ZE_GRAPH_METADATA_TYPE_U64 = 17,
    ZE_GRAPH_METADATA_TYPE_FORCE_UINT32 = 0x7fffffff
} ze_graph_metadata_type;

#define ZE_MAX_GRAPH_ARGUMENT_NAME 256
#define ZE_MAX_GRAPH_ARGUMENT_DIMENSIONS_SIZE 5
#define ZE_MAX_GRAPH_TENSOR_REF_DIMS 8
#define ZE_MAX_GRAPH_TENSOR_NAMES_SIZE 32

/* ---- handles ------------------------------------------------------------- */
typedef struct _ze_graph_handle_t *ze_graph_handle_t;
typedef struct _ze_graph_profiling_query_handle_t *ze_graph_profiling_query_handle_t;
typedef struct _ze_graph_query_network_handle_t *ze_graph_query_network_handle_t;
typedef struct _ze_graph_build_log_handle_t *ze_graph_build_log_handle_t;

/* ---- structures ---------------------------------------------------------- */
typedef struct _ze_graph_compiler_version_info_t {
    uint16_t major;
    uint16_t minor;
} ze_graph_compiler_version_info_t;

typedef struct _ze_graph_version_info_t {
    uint32_t major;
    uint32_t minor;
    uint32_t patch;
} ze_graph_version_info_t;

typedef struct _ze_device_graph_properties_t {
    ze_structure_type_graph_ext_t stype;
    void *pNext;
    ze_graph_ext_version_t graphExtensionVersion;
    ze_graph_compiler_version_info_t compilerVersion;
    ze_graph_format_t graphFormatsSupported;
    uint32_t maxOVOpsetVersionSupported;
} ze_device_graph_properties_t;

typedef struct _ze_device_graph_properties_2_t {
    ze_structure_type_graph_ext_t stype;
    void *pNext;
    ze_graph_ext_version_t graphExtensionVersion;
    ze_graph_compiler_version_info_t compilerVersion;
    ze_graph_format_t graphFormatsSupported;
    uint32_t maxOVOpsetVersionSupported;
    ze_graph_version_info_t elfVersion;
    ze_graph_version_info_t runtimeVersion;
} ze_device_graph_properties_2_t;

typedef struct _ze_graph_desc_t {
    ze_structure_type_graph_ext_t stype;
    const void *pNext;
    ze_graph_format_t format;
    size_t inputSize;
    const uint8_t *pInput;
    const char *pBuildFlags;
} ze_graph_desc_t;

typedef struct _ze_graph_desc_2_t {
    ze_structure_type_graph_ext_t stype;
    const void *pNext;
    ze_graph_format_t format;
    size_t inputSize;
    const uint8_t *pInput;
    const char *pBuildFlags;
    uint32_t flags;
} ze_graph_desc_2_t;

typedef struct _ze_graph_properties_t {
    ze_structure_type_graph_ext_t stype;
    void *pNext;
    uint32_t numGraphArgs;
} ze_graph_properties_t;

typedef struct _ze_graph_properties_2_t {
    ze_structure_type_graph_ext_t stype;
    void *pNext;
    uint32_t numGraphArgs;
    ze_graph_init_stage_t initStageRequired;
} ze_graph_properties_2_t;

typedef struct _ze_graph_properties_3_t {
    ze_structure_type_graph_ext_t stype;
    void *pNext;
    uint32_t numGraphArgs;
    ze_graph_init_stage_t initStageRequired;
    uint32_t flags;
} ze_graph_properties_3_t;

typedef struct _ze_graph_argument_properties_t {
    ze_structure_type_graph_ext_t stype;
    void *pNext;
    char name[ZE_MAX_GRAPH_ARGUMENT_NAME];
    ze_graph_argument_type_t type;
    uint32_t dims[ZE_MAX_GRAPH_ARGUMENT_DIMENSIONS_SIZE];
    ze_graph_argument_precision_t networkPrecision;
    ze_graph_argument_layout_t networkLayout;
    ze_graph_argument_precision_t devicePrecision;
    ze_graph_argument_layout_t deviceLayout;
} ze_graph_argument_properties_t;

typedef struct _ze_graph_argument_properties_2_t {
    ze_structure_type_graph_ext_t stype;
    void *pNext;
    char name[ZE_MAX_GRAPH_ARGUMENT_NAME];
    ze_graph_argument_type_t type;
    uint32_t dims[ZE_MAX_GRAPH_ARGUMENT_DIMENSIONS_SIZE];
    ze_graph_argument_precision_t networkPrecision;
    ze_graph_argument_layout_t networkLayout;
    ze_graph_argument_precision_t devicePrecision;
    ze_graph_argument_layout_t deviceLayout;
    float quantReverseScale;
    uint8_t quantZeroPoint;
} ze_graph_argument_properties_2_t;

typedef struct _ze_graph_argument_properties_3_t {
    ze_structure_type_graph_ext_t stype;
    void *pNext;
    char name[ZE_MAX_GRAPH_ARGUMENT_NAME];
    ze_graph_argument_type_t type;
    uint32_t dims[ZE_MAX_GRAPH_ARGUMENT_DIMENSIONS_SIZE];
    ze_graph_argument_precision_t networkPrecision;
    ze_graph_argument_layout_t networkLayout;
    ze_graph_argument_precision_t devicePrecision;
    ze_graph_argument_layout_t deviceLayout;
    float quantReverseScale;
    uint8_t quantZeroPoint;
    uint32_t dims_count;
    char debug_friendly_name[ZE_MAX_GRAPH_ARGUMENT_NAME];
    char associated_tensor_names[ZE_MAX_GRAPH_TENSOR_NAMES_SIZE][ZE_MAX_GRAPH_ARGUMENT_NAME];
    uint32_t associated_tensor_names_count;
} ze_graph_argument_properties_3_t;

typedef struct _ze_graph_argument_metadata_t {
    ze_structure_type_graph_ext_t stype;
    void *pNext;
    ze_graph_argument_type_t type;
    char friendly_name[ZE_MAX_GRAPH_ARGUMENT_NAME];
    ze_graph_metadata_type data_type;
    uint64_t shape[ZE_MAX_GRAPH_TENSOR_REF_DIMS];
    uint32_t shape_size;
    char tensor_names[ZE_MAX_GRAPH_TENSOR_NAMES_SIZE][ZE_MAX_GRAPH_ARGUMENT_NAME];
    uint32_t tensor_names_count;
    char input_name[ZE_MAX_GRAPH_ARGUMENT_NAME];
} ze_graph_argument_metadata_t;

typedef struct _ze_graph_input_hash_t {
    ze_structure_type_graph_ext_t stype;
    const void *pNext;
    uint64_t hash;
} ze_graph_input_hash_t;

typedef struct _ze_graph_argument_property_strides_t {
    ze_structure_type_graph_ext_t stype;
    void *pNext;
    ze_bool_t supportsDynamicStrides;
} ze_graph_argument_property_strides_t;

typedef struct _ze_graph_argument_value_tensor_t {
    ze_structure_type_graph_ext_t stype;
    const void *pNext;
    const void *pTensor;
} ze_graph_argument_value_tensor_t;

typedef struct _ze_graph_argument_value_strides_t {
    ze_structure_type_graph_ext_t stype;
    const void *pNext;
    uint32_t userStrides[ZE_MAX_GRAPH_ARGUMENT_DIMENSIONS_SIZE];
} ze_graph_argument_value_strides_t;

typedef struct _ze_graph_memory_query_t {
    uint64_t total;
    uint64_t allocated;
} ze_graph_memory_query_t;

/* ---- the graph DDI table (31 entries, in order) -------------------------- */
typedef ze_result_t (*ze_pfnGraphCreate_ext_t)(ze_context_handle_t, ze_device_handle_t,
                                                const ze_graph_desc_t *, ze_graph_handle_t *);
typedef ze_result_t (*ze_pfnGraphDestroy_ext_t)(ze_graph_handle_t);
typedef ze_result_t (*ze_pfnGraphGetProperties_ext_t)(ze_graph_handle_t, ze_graph_properties_t *);
typedef ze_result_t (*ze_pfnGraphGetArgumentProperties_ext_t)(ze_graph_handle_t, uint32_t,
                                                              ze_graph_argument_properties_t *);
typedef ze_result_t (*ze_pfnGraphSetArgumentValue_ext_t)(ze_graph_handle_t, uint32_t, const void *);
typedef ze_result_t (*ze_pfnAppendGraphInitialize_ext_t)(ze_command_list_handle_t, ze_graph_handle_t,
                                                         ze_event_handle_t, uint32_t,
                                                         ze_event_handle_t *);
typedef ze_result_t (*ze_pfnAppendGraphExecute_ext_t)(ze_command_list_handle_t, ze_graph_handle_t,
                                                      ze_graph_profiling_query_handle_t,
                                                      ze_event_handle_t, uint32_t,
                                                      ze_event_handle_t *);
typedef ze_result_t (*ze_pfnGraphGetNativeBinary_ext_t)(ze_graph_handle_t, size_t *, uint8_t *);
typedef ze_result_t (*ze_pfnDeviceGetGraphProperties_ext_t)(ze_device_handle_t,
                                                            ze_device_graph_properties_t *);
typedef ze_result_t (*ze_pfnGraphGetArgumentMetadata_ext_t)(ze_graph_handle_t, uint32_t,
                                                            ze_graph_argument_metadata_t *);
typedef ze_result_t (*ze_pfnGraphGetArgumentProperties2_ext_t)(ze_graph_handle_t, uint32_t,
                                                               ze_graph_argument_properties_2_t *);
typedef ze_result_t (*ze_pfnGraphGetArgumentProperties3_ext_t)(ze_graph_handle_t, uint32_t,
                                                               ze_graph_argument_properties_3_t *);
typedef ze_result_t (*ze_pfnGraphQueryNetworkCreate_ext_t)(ze_context_handle_t, ze_device_handle_t,
                                                           const ze_graph_desc_t *,
                                                           ze_graph_query_network_handle_t *);
typedef ze_result_t (*ze_pfnGraphQueryNetworkDestroy_ext_t)(ze_graph_query_network_handle_t);
typedef ze_result_t (*ze_pfnGraphQueryNetworkGetSupportedLayers_ext_t)(
    ze_graph_query_network_handle_t, size_t *, char *);
typedef ze_result_t (*ze_pfnGraphBuildLogGetString_ext_t)(ze_graph_handle_t, uint32_t *, char *);
typedef ze_result_t (*ze_pfnGraphCreate2_ext_t)(ze_context_handle_t, ze_device_handle_t,
                                                 const ze_graph_desc_2_t *, ze_graph_handle_t *);
typedef ze_result_t (*ze_pfnGraphQueryNetworkCreate2_ext_t)(ze_context_handle_t, ze_device_handle_t,
                                                            const ze_graph_desc_2_t *,
                                                            ze_graph_query_network_handle_t *);
typedef ze_result_t (*ze_pfnGraphQueryContextMemory_ext_t)(ze_context_handle_t,
                                                           ze_graph_memory_query_type_t,
                                                           ze_graph_memory_query_t *);
typedef ze_result_t (*ze_pfnDeviceGetGraphProperties2_ext_t)(ze_device_handle_t,
                                                             ze_device_graph_properties_2_t *);
typedef ze_result_t (*ze_pfnGetNativeBinary2_ext_t)(ze_graph_handle_t, size_t *, const uint8_t **);
typedef ze_result_t (*ze_pfnGetProperties2_ext_t)(ze_graph_handle_t, ze_graph_properties_2_t *);
typedef ze_result_t (*ze_pfnGraphInitialize_ext_t)(ze_graph_handle_t);
typedef ze_result_t (*ze_pfnCompilerGetSupportedOptions_ext_t)(ze_device_handle_t,
                                                               ze_npu_options_type_t, size_t *,
                                                               char *);
typedef ze_result_t (*ze_pfnCompilerIsOptionSupported_ext_t)(ze_device_handle_t,
                                                             ze_npu_options_type_t, const char *,
                                                             const char *);
typedef ze_result_t (*ze_pfnGraphCreate3_ext_t)(ze_context_handle_t, ze_device_handle_t,
                                                 const ze_graph_desc_2_t *, ze_graph_handle_t *,
                                                 ze_graph_build_log_handle_t *);
typedef ze_result_t (*ze_pfnGetProperties3_ext_t)(ze_graph_handle_t, ze_graph_properties_3_t *);
typedef ze_result_t (*ze_pfnBuildLogGetString2_ext_t)(ze_graph_build_log_handle_t, uint32_t *,
                                                      char *);
typedef ze_result_t (*ze_pfnBuildLogDestroy_ext_t)(ze_graph_build_log_handle_t);
typedef ze_result_t (*ze_pfnSetArgumentValue2_ext_t)(ze_graph_handle_t, uint32_t, const void *);
typedef ze_result_t (*ze_pfnGraphEvict_ext_t)(ze_graph_handle_t);

typedef struct _ze_graph_dditable_ext_t {
    ze_pfnGraphCreate_ext_t pfnCreate;                                   /* 1.0 */
    ze_pfnGraphDestroy_ext_t pfnDestroy;                                 /* 1.0 */
    ze_pfnGraphGetProperties_ext_t pfnGetProperties;                     /* 1.0 */
    ze_pfnGraphGetArgumentProperties_ext_t pfnGetArgumentProperties;     /* 1.0 */
    ze_pfnGraphSetArgumentValue_ext_t pfnSetArgumentValue;               /* 1.0 */
    ze_pfnAppendGraphInitialize_ext_t pfnAppendGraphInitialize;          /* 1.0 */
    ze_pfnAppendGraphExecute_ext_t pfnAppendGraphExecute;                /* 1.0 */
    ze_pfnGraphGetNativeBinary_ext_t pfnGetNativeBinary;                 /* 1.0 */
    ze_pfnDeviceGetGraphProperties_ext_t pfnDeviceGetGraphProperties;    /* 1.0 */
    ze_pfnGraphGetArgumentMetadata_ext_t pfnGraphGetArgumentMetadata;    /* 1.1 */
    ze_pfnGraphGetArgumentProperties2_ext_t pfnGetArgumentProperties2;   /* 1.1 */
    ze_pfnGraphGetArgumentProperties3_ext_t pfnGetArgumentProperties3;   /* 1.2 */
    ze_pfnGraphQueryNetworkCreate_ext_t pfnQueryNetworkCreate;           /* 1.3 */
    ze_pfnGraphQueryNetworkDestroy_ext_t pfnQueryNetworkDestroy;         /* 1.3 */
    ze_pfnGraphQueryNetworkGetSupportedLayers_ext_t pfnQueryNetworkGetSupportedLayers; /* 1.3 */
    ze_pfnGraphBuildLogGetString_ext_t pfnBuildLogGetString;             /* 1.4 */
    ze_pfnGraphCreate2_ext_t pfnCreate2;                                 /* 1.5 */
    ze_pfnGraphQueryNetworkCreate2_ext_t pfnQueryNetworkCreate2;         /* 1.5 */
    ze_pfnGraphQueryContextMemory_ext_t pfnQueryContextMemory;           /* 1.5 */
    ze_pfnDeviceGetGraphProperties2_ext_t pfnDeviceGetGraphProperties2;  /* 1.6 */
    ze_pfnGetNativeBinary2_ext_t pfnGetNativeBinary2;                    /* 1.7 */
    ze_pfnGetProperties2_ext_t pfnGetProperties2;                        /* 1.8 */
    ze_pfnGraphInitialize_ext_t pfnGraphInitialize;                      /* 1.8 */
    ze_pfnCompilerGetSupportedOptions_ext_t pfnCompilerGetSupportedOptions; /* 1.11 */
    ze_pfnCompilerIsOptionSupported_ext_t pfnCompilerIsOptionSupported;  /* 1.11 */
    ze_pfnGraphCreate3_ext_t pfnCreate3;                                 /* 1.12 */
    ze_pfnGetProperties3_ext_t pfnGetProperties3;                        /* 1.12 */
    ze_pfnBuildLogGetString2_ext_t pfnBuildLogGetString2;                /* 1.12 */
    ze_pfnBuildLogDestroy_ext_t pfnBuildLogDestroy;                      /* 1.12 */
    ze_pfnSetArgumentValue2_ext_t pfnSetArgumentValue2;                  /* 1.15 */
    ze_pfnGraphEvict_ext_t pfnEvict;                                     /* 1.16 */
} ze_graph_dditable_ext_t;

/* ---- NPU command-queue extension ("ZE_extension_command_queue_npu") ------ */
/* ---- ZE_extension_profiling_data 1.0 (ze_graph_profiling_ext.h) ---------------- */
typedef struct _ze_graph_profiling_pool_handle_t *ze_graph_profiling_pool_handle_t;
typedef enum _ze_graph_profiling_type_t {
    ZE_GRAPH_PROFILING_LAYER_LEVEL = 0x1,
    ZE_GRAPH_PROFILING_TASK_LEVEL = 0x2,
    ZE_GRAPH_PROFILING_RAW = 0x4,
    ZE_GRAPH_PROFILING_FORCE_UINT32 = 0x7fffffff
} ze_graph_profiling_type_t;
#define ZE_MAX_GRAPH_PROFILING_LAYER_NAME 256
#define ZE_MAX_GRAPH_PROFILING_LAYER_TYPE 50
typedef enum _ze_layer_status_t {
    ZE_LAYER_STATUS_NOT_RUN = 1,
    ZE_LAYER_STATUS_OPTIMIZED_OUT,
    ZE_LAYER_STATUS_EXECUTED
} ze_layer_status_t;
typedef struct _ze_profiling_layer_info {   /* 368 bytes */
    char name[ZE_MAX_GRAPH_PROFILING_LAYER_NAME];
    char layer_type[ZE_MAX_GRAPH_PROFILING_LAYER_TYPE];
    ze_layer_status_t status;
    uint64_t start_time_ns;
    uint64_t duration_ns;
    uint32_t layer_id;
    uint64_t fused_layer_id;
    uint64_t dpu_ns;
    uint64_t sw_ns;
    uint64_t dma_ns;
} ze_profiling_layer_info;
typedef enum _ze_task_execute_type_t {
    ZE_TASK_EXECUTE_NONE = 0,
    ZE_TASK_EXECUTE_DPU,
    ZE_TASK_EXECUTE_SW,
    ZE_TASK_EXECUTE_DMA
} ze_task_execute_type_t;
typedef struct _ze_profiling_task_info {    /* 344 bytes */
    char name[ZE_MAX_GRAPH_PROFILING_LAYER_NAME];
    char layer_type[ZE_MAX_GRAPH_PROFILING_LAYER_TYPE];
    ze_task_execute_type_t exec_type;
    uint64_t start_time_ns;
    uint64_t duration_ns;
    uint32_t active_cycles;
    uint32_t stall_cycles;
    uint32_t task_id;
    uint32_t parent_layer_id;
} ze_profiling_task_info;
#define ZE_STRUCTURE_TYPE_DEVICE_PROFILING_DATA_PROPERTIES 0x1
typedef struct _ze_device_profiling_data_properties_t {
    uint32_t stype;
    void *pNext;
    uint32_t extensionVersion;
} ze_device_profiling_data_properties_t;
typedef struct _ze_graph_profiling_dditable_ext_t {
    ze_result_t (*pfnProfilingPoolCreate)(ze_graph_handle_t, uint32_t, ze_graph_profiling_pool_handle_t *);
    ze_result_t (*pfnProfilingPoolDestroy)(ze_graph_profiling_pool_handle_t);
    ze_result_t (*pfnProfilingQueryCreate)(ze_graph_profiling_pool_handle_t, uint32_t,
                                           ze_graph_profiling_query_handle_t *);
    ze_result_t (*pfnProfilingQueryDestroy)(ze_graph_profiling_query_handle_t);
    ze_result_t (*pfnProfilingQueryGetData)(ze_graph_profiling_query_handle_t, ze_graph_profiling_type_t,
                                            uint32_t *, uint8_t *);
    ze_result_t (*pfnDeviceGetProfilingDataProperties)(ze_device_handle_t, ze_device_profiling_data_properties_t *);
    ze_result_t (*pfnProfilingLogGetString)(ze_graph_profiling_query_handle_t, uint32_t *, char *);
} ze_graph_profiling_dditable_ext_t;

/* ---- ZE_extension_context_npu 1.0 (ze_context_npu_ext.h) ----------------------- */
#define ZE_STRUCTURE_TYPE_CONTEXT_PROPERTIES_NPU_EXT 0x1
#define ZE_NPU_CONTEXT_OPTION_IDLE_OPTIMIZATIONS 0x1u
typedef struct _ze_context_properties_npu_ext_t {
    uint32_t stype;
    const void *pNext;
    uint32_t options;
} ze_context_properties_npu_ext_t;
typedef struct _ze_context_npu_dditable_ext_t {
    ze_result_t (*pfnSetProperties)(ze_context_handle_t, ze_context_properties_npu_ext_t *);
    ze_result_t (*pfnReleaseMemory)(ze_context_handle_t);
} ze_context_npu_dditable_ext_t;

/* ---- ZE_extension_command_queue_npu (ze_command_queue_npu_ext.h) --------------- */
#define ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC_NPU_EXT 0x1
#define ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC_NPU_EXT_2 0x2
#define ZE_NPU_COMMAND_QUEUE_OPTION_TURBO 0x1u
#define ZE_NPU_COMMAND_QUEUE_OPTION_DEVICE_SYNC 0x2u

typedef enum _ze_command_queue_workload_type_t {
    ZE_WORKLOAD_TYPE_DEFAULT = 0x0,
    ZE_WORKLOAD_TYPE_BACKGROUND = 0x1,
    ZE_WORKLOAD_TYPE_FORCE_UINT32 = 0x7fffffff
} ze_command_queue_workload_type_t;

typedef ze_result_t (*ze_pfnCommandQueueSetWorkloadType_ext_t)(ze_command_queue_handle_t,
                                                               ze_command_queue_workload_type_t);
typedef struct _ze_command_queue_npu_dditable_ext_t {
    ze_pfnCommandQueueSetWorkloadType_ext_t pfnSetWorkloadType;
} ze_command_queue_npu_dditable_ext_t;

typedef struct _ze_command_queue_desc_npu_ext_t {
    uint32_t stype; /* 1 */
    const void *pNext;
    ze_bool_t turbo;
} ze_command_queue_desc_npu_ext_t;

/* ---- layout pins (ze-graph-ext.md §2) ------------------------------------- */
#if defined(__x86_64__) || defined(__aarch64__)
_Static_assert(sizeof(ze_graph_compiler_version_info_t) == 4, "compiler version size");
_Static_assert(sizeof(ze_graph_version_info_t) == 12, "version info size");
_Static_assert(sizeof(ze_device_graph_properties_t) == 32, "device graph props size");
_Static_assert(offsetof(ze_device_graph_properties_t, graphExtensionVersion) == 16, "");
_Static_assert(offsetof(ze_device_graph_properties_t, compilerVersion) == 20, "");
_Static_assert(offsetof(ze_device_graph_properties_t, graphFormatsSupported) == 24, "");
_Static_assert(offsetof(ze_device_graph_properties_t, maxOVOpsetVersionSupported) == 28, "");
_Static_assert(sizeof(ze_device_graph_properties_2_t) == 56, "device graph props 2 size");
_Static_assert(offsetof(ze_device_graph_properties_2_t, elfVersion) == 32, "");
_Static_assert(offsetof(ze_device_graph_properties_2_t, runtimeVersion) == 44, "");
_Static_assert(sizeof(ze_graph_desc_t) == 48, "graph desc size");
_Static_assert(offsetof(ze_graph_desc_t, format) == 16, "");
_Static_assert(offsetof(ze_graph_desc_t, inputSize) == 24, "");
_Static_assert(offsetof(ze_graph_desc_t, pInput) == 32, "");
_Static_assert(offsetof(ze_graph_desc_t, pBuildFlags) == 40, "");
_Static_assert(sizeof(ze_graph_desc_2_t) == 56, "graph desc 2 size");
_Static_assert(offsetof(ze_graph_desc_2_t, flags) == 48, "");
_Static_assert(sizeof(ze_graph_properties_t) == 24, "");
_Static_assert(offsetof(ze_graph_properties_t, numGraphArgs) == 16, "");
_Static_assert(sizeof(ze_graph_properties_2_t) == 24, "");
_Static_assert(offsetof(ze_graph_properties_2_t, initStageRequired) == 20, "");
_Static_assert(sizeof(ze_graph_properties_3_t) == 32, "");
_Static_assert(offsetof(ze_graph_properties_3_t, flags) == 24, "");
_Static_assert(sizeof(ze_graph_argument_properties_t) == 312, "arg props size");
_Static_assert(offsetof(ze_graph_argument_properties_t, name) == 16, "");
_Static_assert(offsetof(ze_graph_argument_properties_t, type) == 272, "");
_Static_assert(offsetof(ze_graph_argument_properties_t, dims) == 276, "");
_Static_assert(offsetof(ze_graph_argument_properties_t, networkPrecision) == 296, "");
_Static_assert(offsetof(ze_graph_argument_properties_t, networkLayout) == 300, "");
_Static_assert(offsetof(ze_graph_argument_properties_t, devicePrecision) == 304, "");
_Static_assert(offsetof(ze_graph_argument_properties_t, deviceLayout) == 308, "");
_Static_assert(sizeof(ze_graph_argument_properties_2_t) == 320, "arg props 2 size");
_Static_assert(offsetof(ze_graph_argument_properties_2_t, quantReverseScale) == 312, "");
_Static_assert(offsetof(ze_graph_argument_properties_2_t, quantZeroPoint) == 316, "");
_Static_assert(sizeof(ze_graph_argument_properties_3_t) == 8776, "arg props 3 size");
_Static_assert(offsetof(ze_graph_argument_properties_3_t, dims_count) == 320, "");
_Static_assert(offsetof(ze_graph_argument_properties_3_t, debug_friendly_name) == 324, "");
_Static_assert(offsetof(ze_graph_argument_properties_3_t, associated_tensor_names) == 580, "");
_Static_assert(offsetof(ze_graph_argument_properties_3_t, associated_tensor_names_count) == 8772, "");
_Static_assert(sizeof(ze_graph_argument_metadata_t) == 8800, "arg metadata size");
_Static_assert(offsetof(ze_graph_argument_metadata_t, type) == 16, "");
_Static_assert(offsetof(ze_graph_argument_metadata_t, friendly_name) == 20, "");
_Static_assert(offsetof(ze_graph_argument_metadata_t, data_type) == 276, "");
_Static_assert(offsetof(ze_graph_argument_metadata_t, shape) == 280, "");
_Static_assert(offsetof(ze_graph_argument_metadata_t, shape_size) == 344, "");
_Static_assert(offsetof(ze_graph_argument_metadata_t, tensor_names) == 348, "");
_Static_assert(offsetof(ze_graph_argument_metadata_t, tensor_names_count) == 8540, "");
_Static_assert(offsetof(ze_graph_argument_metadata_t, input_name) == 8544, "");
_Static_assert(sizeof(ze_graph_input_hash_t) == 24, "");
_Static_assert(offsetof(ze_graph_input_hash_t, hash) == 16, "");
_Static_assert(sizeof(ze_graph_argument_property_strides_t) == 24, "");
_Static_assert(offsetof(ze_graph_argument_property_strides_t, supportsDynamicStrides) == 16, "");
_Static_assert(sizeof(ze_graph_argument_value_tensor_t) == 24, "");
_Static_assert(offsetof(ze_graph_argument_value_tensor_t, pTensor) == 16, "");
_Static_assert(sizeof(ze_graph_argument_value_strides_t) == 40, "");
_Static_assert(offsetof(ze_graph_argument_value_strides_t, userStrides) == 16, "");
_Static_assert(sizeof(ze_graph_memory_query_t) == 16, "");
_Static_assert(sizeof(ze_graph_dditable_ext_t) == 31 * sizeof(void *), "graph table: 31 entries");
_Static_assert(offsetof(ze_graph_dditable_ext_t, pfnEvict) == 30 * sizeof(void *), "");
_Static_assert(sizeof(ze_command_queue_desc_npu_ext_t) == 24, "");
_Static_assert(sizeof(ze_external_memory_import_system_memory_t) == 32, "");
#endif

#ifdef __cplusplus
}
#endif
#endif /* SIM_ZE_GRAPH_TYPES_H */
