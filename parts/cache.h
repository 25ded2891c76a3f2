/* parts/cache.h: section of npu.h (merged into npu.h before release). */

/* ---- Inspecting a blob before import ------------------------------------
 * A compiled blob exported by OpenVINO's NPU plugin (`export_model`) or by npu
 * ends with a versioned metadata tail:
 *
 *   [native blob][zero padding][fields][u64 blob data size]["OVNPU"]
 *
 * npu reads metadata versions 2.0 to 2.7 (and the known fields of newer 2.x
 * versions, whose extra fields are skipped); it writes version 2.7. A blob
 * without the tail (a raw ELF from the driver) is valid too: it has no
 * metadata. In the OpenVINO-version field npu writes its own version
 * (NPU_VERSION_MAJOR/MINOR/PATCH), so a blob exported by npu is recognisable;
 * OpenVINO releases that demand an exact version match will refuse it unless
 * their version check is disabled. */

/* Most layouts a tail may carry (inputs and outputs together). */
#define NPU_BLOB_MAX_LAYOUTS 64

typedef struct npu_blob_info {
    int has_metadata;               /* 1: an OVNPU tail was found; 0: raw blob (the
                                       fields below are then 0 except blob_size) */
    uint32_t metadata_version;      /* (major << 16) | minor, e.g. 0x00020007 */
    uint16_t openvino_version[3];   /* major, minor, patch of the writer (npu writes
                                       its own version here) */
    int64_t batch_size;             /* 0: no batch recorded; N > 1: static batch N
                                       debatched at run time; -1: dynamic batch */
    uint32_t n_input_layouts;       /* layouts[0 .. n_input_layouts) are inputs' */
    uint32_t n_output_layouts;      /* then outputs' */
    char layouts[NPU_BLOB_MAX_LAYOUTS][NPU_LAYOUT_MAX]; /* e.g. "[N,C,H,W]", "" unknown */
    uint32_t compiler_version;      /* (major << 16) | minor of the compiler; 0 unknown */
    uint64_t blob_size;             /* bytes of the native blob (with its padding):
                                       what is handed to the driver on import; the
                                       whole input when has_metadata is 0 */
    uint64_t init_count;            /* weights-separated blobs: number of init blobs */
    int encrypted;                  /* the blob is encrypted */
    uint32_t blob_type;             /* 0 ELF, 1 LLVM, 2 BYTECODE */
    uint64_t compatibility_descriptor_size; /* bytes of the 2.6 descriptor (skipped) */
    int importable;                 /* 1 when npu can import it: not encrypted, no
                                       init blobs, ELF */
} npu_blob_info_t;

/* Reads the metadata tail of the blob at data[0 .. size) into *info without
 * importing it. The input is treated as hostile: every count and length is
 * checked. ctx may be NULL. data is only read during the call; info is
 * caller-owned and fully overwritten (zeroed on failure). Thread-safe for
 * distinct info structs.
 * A tail npu cannot import but that is well-formed (encrypted, init blobs, not
 * ELF) is reported with importable = 0, not as an error.
 * Errors: NPU_ERR_INVALID_ARGUMENT (data or info NULL), NPU_ERR_FORMAT (the tail
 * is present but malformed: blob data size past the end, counts or lengths past
 * the end, more than NPU_BLOB_MAX_LAYOUTS layouts or a layout longer than
 * NPU_LAYOUT_MAX - 1, unknown major version, non-zero bytes in the padding; the
 * message names the field). */
npu_status npu_blob_info(npu_context *ctx, const void *data, size_t size,
                         npu_blob_info_t *info);
