/* compiler_internal.h - the inside of the software NPU's compiler (NGRAPH_LITE
 * payload -> plan), shared by its three files. Not for the driver, which uses
 * sim_plan.h.
 *
 * A compile runs in pipeline order, one file per stage:
 *   payload.c  the payload reader: the buffer (layout A or B, version), the build
 *              flags, the IR XML -> layers, ports, edges, topological order; the
 *              net's rt_info and the I/O preprocessing the flags ask for; the
 *              compile context, its build-log diagnostics and the IR text parsers
 *   ops.c      the ops: one handler per OpenVINO op infers shapes and types and
 *              lowers the op to kernel steps (constant steps folded at compile
 *              time); the graph arguments; the query-network answer (more
 *              handlers in ops_quant.c and ops_norm.c, on ops.c's helpers)
 *   planner.c  the planner: dead-step removal, arena packing, tensor compaction,
 *              validation and the native blob; sim_plan_compile, which runs the
 *              three stages
 * Calls go against the pipeline: planner.c calls ops.c and payload.c, ops.c
 * calls payload.c, payload.c calls neither (`make check-sim-layers`). Each
 * stage calls the one that feeds it, and the reader, which every stage needs
 * (the log, the XML attributes, the number and shape parsers), is the bottom.
 *
 * Shapes are always inferred by the ops; the IR's <dim>s are only checked on
 * Parameter and Const (the corpus has IRs whose declared dims are wrong).
 */
#ifndef SIM_COMPILER_INTERNAL_H
#define SIM_COMPILER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

#include "sim/plan_internal.h"
#include "sim/profile.h"

#define NO_TENSOR UINT32_MAX
#define MAX_PORTS 1024 /* per layer; also the most inputs Concat and the split ops take */

/* ---- the compile context ------------------------------------------------- */

/* The payload's sections (payload.c splits the buffer; they point into it). */
typedef struct payload {
    const char *xml;
    size_t xml_size;
    const uint8_t *consts;  /* layout A: the weights section; B: the constants blob */
    size_t consts_size;
    int layout_b;
} payload;

typedef struct port {
    long id;
    uint32_t prec;      /* from the precision attribute; 0 when absent/unknown */
    int rank;
    int64_t d[SIM_MAX_RANK]; /* -1 = dynamic */
    char *names;        /* "names" attribute or NULL */
    int uses;           /* output ports: number of edges leaving it */
} port;

/* The compile-time value of one output port. */
typedef struct cval {
    int set;
    uint32_t tensor;        /* NO_TENSOR: a constant still in raw form */
    uint32_t et;            /* IR element type (precision code) */
    int rank;
    int64_t d[SIM_MAX_RANK];
    const uint8_t *raw;     /* constant bytes in raw_et, possibly unaligned */
    uint32_t raw_et;
} cval;

typedef struct layer {
    long id;
    int doc;                /* position in the document */
    xmlNodePtr node, data;
    char *name, *type, *version;
    int n_in, n_out;
    port *in, *out;
    int *src, *src_port;    /* per input: producer layer index and its output index */
    cval *val;              /* per output */
} layer;

typedef struct variable {
    char id[SIM_NAME_MAX];
    int doc;                /* first document position of its ReadValue/Assign */
    uint32_t et;
    int rank;
    int64_t d[SIM_MAX_RANK];
    uint32_t in_tensor, out_tensor;
    const char *read_name, *assign_name;
} variable;

typedef struct cc {
    sim_log *log;
    const sim_profile *prof;   /* the release whose compiler is emulated */
    payload pl;
    xmlNodePtr net;            /* the <net> element */
    int ir_version;            /* 10 or 11 */
    layer *layers;
    int n_layers;
    int *by_id;             /* layer indices sorted by id */
    variable *vars;
    int n_vars, cap_vars;
    /* the plan under construction */
    sim_tensor *tensors;
    uint32_t n_tensors, cap_tensors;
    sim_step *steps;
    uint32_t n_steps, cap_steps;
    uint32_t *step_inputs;
    uint32_t n_step_inputs, cap_step_inputs;
    float *pool;
    uint64_t pool_n, pool_cap;
    uint64_t *buf_size;     /* arena buffers; an ARENA tensor's offset is its buffer id here */
    uint32_t n_bufs, cap_bufs;
    int nomem;
} cc;

/* Which generation of Intel's compiler the profile ships. The generations differ
 * in the rules below; the serializer key is what tells them apart (sim/profile.h). */
enum { GEN_2024, GEN_2025, GEN_2026 };
typedef struct io_setting {
    char key[SIM_NAME_MAX];
    uint32_t value;     /* precision or layout code; 0 = keep the model's / by rank */
    char text[32];      /* the value as written */
} io_setting;

typedef struct io_list {
    io_setting *items;
    int n;
} io_list;

typedef struct flags {
    io_list lists[4];   /* inputs_precisions, inputs_layouts, outputs_precisions, outputs_layouts */
    int io_present;     /* all four I/O options were given (else none is used) */
    int layout_b;       /* the serializer the config selects reads layout B */
    int perf_count;     /* --config PERF_COUNT=YES: a profiling plan */
} flags;

/* ---- payload.c: diagnostics ---------------------------------------------- */
/* Log a message naming the layer (L may be NULL) and return SIM_ERR_COMPILE;
 * sim_lerr_rc returns `rc` instead. */
int sim_lerr(cc *c, const layer *L, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int sim_lerr_rc(cc *c, const layer *L, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Marks the compile out of memory, logs it and returns SIM_ERR_NOMEM. */
int sim_nomem(cc *c);
/* dst = a + b, truncated to cap. */
void sim_join_str(char *dst, size_t cap, const char *a, const char *b);

/* ---- payload.c: IR text and XML ------------------------------------------ */
int sim_range_ok(uint64_t off, uint64_t size, uint64_t total); /* [off, off + size) inside total */
uint32_t sim_prec_from_name(const char *s);   /* "f32", "FP16", ... -> SIM_P_*; 0 if unsupported */
const char *sim_skip_ws(const char *s);
int sim_parse_i64(const char *s, int64_t *out); /* strict integer; 1 when it is one */
/* A shape attribute ("1,3,224,224", "" scalar, "?"/"-1"/"1..32" dynamic dims,
 * "..." dynamic rank). Returns 1 when well formed. */
int sim_parse_shape(const char *s, int *rank, int64_t *d, int *dyn, int *dyn_rank);
xmlNodePtr sim_first_child(xmlNodePtr n, const char *name);
xmlNodePtr sim_next_sibling(xmlNodePtr n, const char *name);
char *sim_get_attr(xmlNodePtr n, const char *name); /* xmlFree the result; NULL when absent */

/* ---- payload.c: reading -------------------------------------------------- */
/* Which generation of Intel's compiler the profile ships (GEN_*). */
int sim_compiler_generation(const sim_profile *p);
/* Parses pBuildFlags into *f (the caller frees f->lists[i].items). */
int sim_parse_flags(cc *c, const char *text, flags *f);
/* Splits the payload, parses the XML (*doc_out, freed by the caller, also on
 * failure) and reads the net's layers and ports into c. */
int sim_read_net(cc *c, const void *payload_buf, size_t size, uint32_t version, int layout_b,
                 xmlDocPtr *doc_out);
/* Reads the edges of the net sim_read_net read. */
int sim_read_edges(cc *c);
/* The layers in topological order (document order among ready ones); fails on a cycle. */
int sim_topo_order(cc *c, int *order);
/* Applies the I/O flags to the arguments where the profile's compiler does
 * (n_params Parameters first, n_in inputs in all). */
int sim_preprocess(cc *c, sim_plan *p, const flags *f, uint32_t n_params, uint32_t n_in);
/* Frees everything the context holds (not the doc). */
void sim_cc_free(cc *c);

/* ---- ops.c --------------------------------------------------------------- */
/* sim_read_net + (check_ops: every unsupported layer named, then fail) + sim_read_edges. */
int sim_load_model(cc *c, const void *payload_buf, size_t size, uint32_t version, int layout_b,
                   int check_ops, xmlDocPtr *doc_out);
/* Runs every layer's op in topological order: values, steps, folded constants. */
int sim_compile_layers(cc *c);
/* The graph arguments: Parameters, ReadValue inputs, Results, Assign outputs. */
int sim_build_args(cc *c, sim_plan *p);

/* ops.c: the helpers the other op files (ops_quant.c) share, as ops.c's own
 * handlers use them: a layer's input value, its port count check, appending a
 * step (folded when every input is constant), an alias of a value under another
 * shape, <data> attributes, constant integer inputs, numpy broadcasting of two
 * shapes, dims as text, floating element types. */
cval *sim_op_input(cc *c, layer *L, int i);
int sim_op_need_ports(cc *c, layer *L, int min_in, int max_in, int min_out);
int sim_op_emit(cc *c, layer *L, sim_step *s, cval **ins, int n_in, uint32_t et, int rank,
                const int64_t *d, cval *out);
int sim_op_alias(cc *c, const cval *src, uint32_t et, int rank, const int64_t *d, cval *out);
int sim_op_attr_int(cc *c, layer *L, const char *name, int64_t dflt, int64_t *out);
int sim_op_attr_str(layer *L, const char *name, char *buf, size_t cap);
int sim_op_attr_enum(cc *c, layer *L, const char *name, const char *const *names, int n, int dflt,
                     int *out);
int sim_op_const_ints(cc *c, layer *L, int i, int64_t *out, int max, int *count, const char *what);
int sim_op_broadcast(const cval *a, const cval *b, int64_t *d, int *rank);
void sim_op_fmt_dims(char *buf, size_t cap, int rank, const int64_t *d);
int sim_op_is_float_et(uint32_t et);
/* ops.c's attr_bool, attr_float (a missing attribute is an error), attr_list,
 * norm_axis (negative axes count from the end) and a scalar constant of `et`
 * holding v. */
int sim_op_attr_bool(cc *c, layer *L, const char *name, int dflt, int *out);
int sim_op_attr_float(cc *c, layer *L, const char *name, double *out);
int sim_op_attr_list(cc *c, layer *L, const char *name, int want, int64_t dflt, int64_t *out);
int sim_op_norm_axis(cc *c, layer *L, int64_t axis, int rank, int *out);
int sim_op_const_fill(cc *c, layer *L, uint32_t et, float v, cval *out);

/* ---- ops_quant.c --------------------------------------------------------- */
/* Handlers in ops.c's table (same signature as its own): PRelu-1,
 * FakeQuantize-1, Select-1, Broadcast-1/-3, Tile-1. */
int sim_op_prelu(cc *c, layer *L, int opset, int sub);
int sim_op_fake_quantize(cc *c, layer *L, int opset, int sub);
int sim_op_select(cc *c, layer *L, int opset, int sub);
int sim_op_broadcast_op(cc *c, layer *L, int opset, int sub);
int sim_op_tile(cc *c, layer *L, int opset, int sub);

/* ---- ops_norm.c ---------------------------------------------------------- */
/* Handlers in ops.c's table: MVN-1 and -6, NormalizeL2-1, TopK-3 and -11,
 * ConvolutionBackpropData-1 (sub 0) and GroupConvolutionBackpropData-1 (sub 1). */
int sim_op_mvn(cc *c, layer *L, int opset, int sub);
int sim_op_normalize_l2(cc *c, layer *L, int opset, int sub);
int sim_op_topk(cc *c, layer *L, int opset, int sub);
int sim_op_deconv(cc *c, layer *L, int opset, int sub);

#endif /* SIM_COMPILER_INTERNAL_H */
