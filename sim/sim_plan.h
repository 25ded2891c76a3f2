/* sim_plan.h - the software NPU's compiled model ("plan"): the interface between
 * the Level Zero driver part of the sim (driver.c, graph extension) and its
 * compiler/executor (payload.c, ops.c, planner.c, elf.c, exec.c).
 *
 * A plan is immutable once created and may be run from several threads at once
 * (each run uses its own scratch memory).
 *
 * Precision and layout codes are the graph extension's values
 * (ze-graph-ext.md §2: FP32=0x01, FP16=0x02, UINT8=0x04, INT32=0x05, INT8=0x07,
 * BF16=0x09, BOOLEAN=0x0E, INT64=0x11, ...; layouts ANY=0, NCHW=1, NHWC=2, C=0x60,
 * CHW=0x80, NC=0xC1, CN=0xC2, BLOCKED=0xC8). Metadata element types are
 * ze_graph_metadata_type values (F32=5, F16=4, ...).
 */
#ifndef SIM_PLAN_H
#define SIM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#define SIM_MAX_RANK 8
#define SIM_NAME_MAX 256
#define SIM_MAX_TENSOR_NAMES 4

/* Names of state arguments, as the real compiler produces them. */
#define SIM_READ_VALUE_PREFIX "vpux_ie_read_value_"
#define SIM_ASSIGN_PREFIX "vpux_ie_assign_"

typedef struct sim_plan sim_plan;

/* One graph argument. Inputs come first (Parameters in IR order, then one
 * vpux_ie_read_value_<variable_id> input per variable), then outputs (Results in
 * IR order, then one vpux_ie_assign_<variable_id> output per variable). */
typedef struct sim_arg {
    char name[SIM_NAME_MAX];          /* input: Parameter layer name; output: name of the
                                         layer feeding the Result; states: prefix + variable id */
    char friendly_name[SIM_NAME_MAX]; /* the Parameter / Result layer name */
    char tensor_names[SIM_MAX_TENSOR_NAMES][SIM_NAME_MAX]; /* port "names" attribute, split on ',' */
    uint32_t tensor_name_count;
    int is_output;                    /* 0 input, 1 output */
    uint32_t precision;               /* element type of the buffer the caller passes (after build flags) */
    uint32_t network_precision;       /* element type in the IR */
    uint32_t layout;                  /* ze layout code (from build flags, else by rank) */
    uint32_t meta_type;               /* ze_graph_metadata_type of the IR element type */
    uint32_t rank;                    /* 0..SIM_MAX_RANK */
    uint64_t dims[SIM_MAX_RANK];      /* compiled (static) shape */
    uint64_t ir_shape[SIM_MAX_RANK];  /* shape as written in the IR; UINT64_MAX = dynamic */
    uint32_t ir_rank;
    size_t bytes;                     /* buffer size the caller must provide */
} sim_arg;

/* Compiles an NGRAPH_LITE payload (layout A or B of ze-graph-ext.md §3) the way
 * the compiler of the current release profile (sim/profile.h) does.
 * `compiler_version` is (major << 16) | minor: the payload's stamped version must
 * equal it. `build_flags` may be NULL (treated as ""). Which payload layout the
 * buffer is read as comes from the flags only (--config serializer key, see
 * docs/sim.md), never from the buffer. On failure returns one of the SIM_ERR_*
 * codes below, writes a NUL-terminated human-readable build log into
 * log[0..log_cap) naming the layer, and sets *out = NULL. On success the log may
 * hold warnings (or be empty). */
int sim_plan_compile(const void *payload, size_t payload_size, uint32_t compiler_version,
                     const char *build_flags, sim_plan **out, char *log, size_t log_cap);

/* Builds a plan from a native blob produced by sim_plan_native(). Non-ELF input
 * returns SIM_ERR_NOT_ELF; any other malformed blob returns SIM_ERR_BAD_BLOB.
 * The blob is not referenced after return (weights are copied). */
int sim_plan_import(const void *blob, size_t blob_size, sim_plan **out, char *log, size_t log_cap);
/* The same checks, but the plan uses the blob in place (weights included, no
 * copy): the caller keeps blob[0..blob_size) unchanged until sim_plan_free.
 * The graph extension uses it for ZE_GRAPH_FLAG_INPUT_GRAPH_PERSISTENT. */
int sim_plan_import_in_place(const void *blob, size_t blob_size, sim_plan **out, char *log, size_t log_cap);

#define SIM_OK 0
#define SIM_ERR_NOT_ELF 1
#define SIM_ERR_BAD_BLOB 2
/* Compile results and the ze_result_t the real driver returns for each kind
 * (its compiler wrapper maps the compiler's vcl_result_t, see
 * docs/driver-compat.md):
 *   SIM_ERR_COMPILE     the compiler rejected the model: unsupported op, bad shape,
 *                       I/O flags that name no input, bad rt_info boolean
 *                       (VCL_RESULT_ERROR_INVALID_ARGUMENT -> ZE_RESULT_ERROR_INVALID_ARGUMENT)
 *   SIM_ERR_INVALID_IR  the payload header is invalid: stamped version differs,
 *                       section sizes out of range, or a layout-B buffer read as A
 *                       (VCL_RESULT_ERROR_INVALID_IR -> ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)
 *   SIM_ERR_OPTIONS     the build flags were refused: unknown --config key, bad
 *                       option value, unknown precision or layout in the I/O flags
 *                       (VCL_RESULT_ERROR_INVALID_ARGUMENT -> ZE_RESULT_ERROR_INVALID_ARGUMENT)
 *   SIM_ERR_READ_MODEL  OpenVINO could not read the IR XML (malformed XML, wrong
 *                       root or IR version, missing WeightsPointerAttribute keys)
 *                       (VCL_RESULT_ERROR_UNKNOWN -> ZE_RESULT_ERROR_UNKNOWN); the
 *                       2026 compiler reports these as SIM_ERR_COMPILE instead
 *   SIM_ERR_NOMEM       out of memory (-> ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY) */
#define SIM_ERR_COMPILE 3
#define SIM_ERR_INVALID_IR 4
#define SIM_ERR_VERSION SIM_ERR_INVALID_IR /* older name */
#define SIM_ERR_NOMEM 5
#define SIM_ERR_OPTIONS 6
#define SIM_ERR_READ_MODEL 7

/* pfnCompilerIsOptionSupported for the current profile's compiler: 1 when `key`
 * is an option that compiler registers and `value` (NULL = any) parses for it,
 * else 0. Keys the compiler silently drops from --config (MODEL_PRIORITY and
 * CACHE_DIR since 2025) are not registered, so they answer 0. */
int sim_compiler_option_supported(const char *key, const char *value);

/* pfnCompilerGetSupportedOptions: the current profile's compiler option keys,
 * space-separated, into out[0..cap) (NUL-terminated, cut if cap is too small).
 * Returns the bytes the whole list takes including the NUL; out may be NULL. */
size_t sim_compiler_supported_options(char *out, size_t cap);

/* The plan's native blob (an ELF file holding the plan and a copy of the weights).
 * The memory belongs to the plan and lives as long as it. */
const uint8_t *sim_plan_native(const sim_plan *plan, size_t *size);

uint32_t sim_plan_arg_count(const sim_plan *plan);
const sim_arg *sim_plan_arg(const sim_plan *plan, uint32_t index);  /* NULL when out of range */

/* Highest opset the compiler understands (reported as maxOVOpsetVersionSupported). */
#define SIM_MAX_OPSET 13

/* Runs the plan: args[i] points at argument i's buffer (sim_plan_arg(i)->bytes).
 * skip_math != 0 skips the arithmetic (outputs are left as they are).
 * Returns SIM_OK or SIM_ERR_NOMEM. */
int sim_plan_run(const sim_plan *plan, void *const *args, int skip_math);

/* The same, timing each step when `times` is not NULL: times[2 * i] is step
 * i's start on CLOCK_MONOTONIC in ns, times[2 * i + 1] its duration (both
 * written for every step; durations 0 when the math is skipped). */
int sim_plan_run_timed(const sim_plan *plan, void *const *args, int skip_math, uint64_t *times);

/* Profiling (a plan compiled with --config PERF_COUNT=YES, or imported from
 * such a blob): sim_plan_profiling is 1 then. Its layer table lists the IR
 * layers that own steps, in the order of their first step; every step belongs
 * to one (sim_plan_step_layer). sim_plan_layer_name returns NULL out of range
 * and sets *type (may be NULL) to the layer's type. */
int sim_plan_profiling(const sim_plan *plan);
uint32_t sim_plan_step_count(const sim_plan *plan);
uint32_t sim_plan_layer_count(const sim_plan *plan);
int32_t sim_plan_step_layer(const sim_plan *plan, uint32_t step);
const char *sim_plan_layer_name(const sim_plan *plan, uint32_t layer, const char **type);

/* The version of the native blob's plan format (an older sim's blobs are refused). */
uint32_t sim_plan_format_version(void);

void sim_plan_destroy(sim_plan *plan);

/* Query network: writes into out[0..cap) a ';'-separated, NUL-terminated list of
 * the names of the payload's layers that the compiler supports, and sets *needed
 * to the bytes the full list takes (including the NUL). Same errors as compile
 * for a payload that cannot be parsed at all. out may be NULL when cap is 0.
 * sim_plan_query_layers reads the payload as the flags "" select (layout A);
 * sim_plan_query_network takes the build flags, so that layout B can be queried. */
int sim_plan_query_layers(const void *payload, size_t payload_size, uint32_t compiler_version,
                          char *out, size_t cap, size_t *needed, char *log, size_t log_cap);
int sim_plan_query_network(const void *payload, size_t payload_size, uint32_t compiler_version,
                           const char *build_flags, char *out, size_t cap, size_t *needed,
                           char *log, size_t log_cap);

/* Default compiler version the sim reports ((major << 16) | minor). The driver
 * may override it with NPU_SIM_COMPILER_VERSION=major.minor. */
#define SIM_COMPILER_VERSION_DEFAULT ((7u << 16) | 6u)

#endif /* SIM_PLAN_H */
