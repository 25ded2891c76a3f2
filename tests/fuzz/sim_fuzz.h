/* sim_fuzz.h - shared by the software NPU's fuzz targets (fuzz_sim_payload.c,
 * fuzz_sim_blob.c): the sim's compiler/executor sources, a guarded "run once",
 * and the generator of the seed corpora.
 *
 * The sim's plan sources are #included (not linked) so the targets see the
 * private records (plan_internal.h, elf.c's plan_header) and build with the
 * Makefile's one-file fuzz rule. ops.c and exec.c both have a static
 * numel_of(), hence the rename around ops.c.
 *
 * Layout-B Consts may carry WeightsPointerAttribute mp="address": the real
 * driver dereferences it (the caller is in-process and trusted), a fuzzer must
 * not. SIM_FUZZ_WEIGHTS_POINTER makes ops.c read mp as FZ_MP_BASE + offset
 * into the current input's weights instead.
 *
 * Seeds: `NPU_FUZZ_WRITE_SEEDS=<dir> build/fuzz/fuzz_sim_payload -runs=0` writes
 * the corpus of that target into <dir> (the same for fuzz_sim_blob); the
 * committed tests/fuzz/corpus/fuzz_sim_* files were made that way.
 */
#ifndef SIM_FUZZ_H
#define SIM_FUZZ_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FZ_MP_BASE UINT64_C(0x10000)

static const uint8_t *fz_cur_weights;
static size_t fz_cur_weights_size;

static const uint8_t *fz_weights_pointer(uint64_t addr, uint64_t size)
{
    if (!fz_cur_weights || addr < FZ_MP_BASE)
        return NULL;
    uint64_t off = addr - FZ_MP_BASE;
    if (off > fz_cur_weights_size || size > fz_cur_weights_size - off)
        return NULL;
    return fz_cur_weights + off;
}
#define SIM_FUZZ_WEIGHTS_POINTER(addr, size) fz_weights_pointer((addr), (size))

#include "sim/kernels.c"
#include "sim/exec.c"
#include "sim/elf.c"
#include "sim/profile.c"
#include "sim/payload.c"
#define numel_of compiler_numel_of
#include "sim/ops.c"
#include "sim/ops_quant.c"
#include "sim/ops_norm.c"
#undef numel_of
#include "sim/planner.c"

/* ---- run a plan once -------------------------------------------------------- */

/* Rough arithmetic cost of one step (multiply-adds or element visits). */
static double fz_step_cost(const sim_plan *p, const sim_step *s)
{
    const sim_tensor *y = &p->tensors[s->out];
    double ny = (double)numel_of(y), cost = ny;
    for (uint32_t i = 0; i < s->in_count; i++)
        cost += (double)numel_of(&p->tensors[p->step_inputs[s->in_first + i]]);
    const sim_tensor *x = &p->tensors[p->step_inputs[s->in_first]];
    switch ((sim_step_op)s->op) {
    case SIM_S_CONV: {
        const sim_tensor *w = &p->tensors[p->step_inputs[s->in_first + 1]];
        double per_out = w->d[0] > 0 ? (double)numel_of(w) / (double)w->d[0] : 0;
        cost += ny * per_out;
        break;
    }
    case SIM_S_MATMUL:
        cost += ny * (double)(s->transpose_a ? x->d[x->rank - 2] : x->d[x->rank - 1]);
        break;
    case SIM_S_MAXPOOL:
    case SIM_S_AVGPOOL: {
        double k = 1;
        for (int i = 0; i < s->spatial && i < SIM_K_MAX_SPATIAL; i++)
            k *= (double)s->kernel[i];
        cost += ny * k;
        break;
    }
    case SIM_S_DECONV: {   /* every input element meets its filter slice */
        const sim_tensor *w = &p->tensors[p->step_inputs[s->in_first + 1]];
        double per_in = w->d[0] > 0 ? (double)numel_of(w) / (double)w->d[0] : 0;
        cost += (double)numel_of(x) * per_in;
        break;
    }
    case SIM_S_TOPK:       /* a sort of each slice */
        cost += 32 * (double)numel_of(x);
        break;
    case SIM_S_SOFTMAX:
    case SIM_S_REDUCE:
        cost += 4 * (double)numel_of(x);
        break;
    default:
        break;
    }
    return cost;
}

/* Runs a valid plan once on zeroed, exactly sized argument buffers (ASan sees any
 * access past them) when it is small enough to run in milliseconds; aborts if
 * the run fails. Returns 1 when it ran. */
static int fz_run_once(const sim_plan *p)
{
    double bytes = (double)p->arena_floats * sizeof(float), cost = 0;
    for (uint32_t i = 0; i < p->n_args; i++)
        bytes += (double)p->args[i].bytes;
    if (bytes > 64.0 * 1024 * 1024)
        return 0;
    for (uint32_t i = 0; i < p->n_steps; i++)
        cost += fz_step_cost(p, &p->steps[i]);
    if (cost > 3e7)
        return 0;
    void **args = calloc(p->n_args + 1, sizeof *args);
    if (!args)
        abort();
    for (uint32_t i = 0; i < p->n_args; i++) {
        args[i] = calloc(1, p->args[i].bytes ? p->args[i].bytes : 1);
        if (!args[i])
            abort();
    }
    if (sim_plan_run(p, args, 0) != SIM_OK)
        abort();
    for (uint32_t i = 0; i < p->n_args; i++)
        free(args[i]);
    free(args);
    return 1;
}

/* ---- seed generator ------------------------------------------------------------ */

typedef struct fz_buf {
    char *s;
    size_t len, cap;
} fz_buf;

static void fz_put(fz_buf *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            abort();
    }
    if (n)
        memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void fz_printf(fz_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fz_printf(fz_buf *b, const char *fmt, ...)
{
    char tmp[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp)
        abort();
    fz_put(b, tmp, (size_t)n);
}

/* A model under construction: layers, edges, weights. use_mp: Consts point at
 * their bytes with WeightsPointerAttribute (layout B) instead of offset/size;
 * the fuzz targets map mp to FZ_MP_BASE + offset into their weights buffer. */
typedef struct fz_model {
    fz_buf layers, edges, w;
    int use_mp;
    size_t mp_bias; /* mp = FZ_MP_BASE + mp_bias + offset in w */
} fz_model;

/* ports: ';'-separated "PREC:d0,d1" ("PREC:" is a scalar); inputs get ids 0..n-1,
 * outputs n.. as ov::serialize numbers them. */
static int fz_ports(fz_buf *b, const char *tag, const char *spec, int first)
{
    if (!spec)
        return 0;
    fz_printf(b, "\t\t\t<%s>\n", tag);
    int id = first;
    for (const char *s = spec; *s;) {
        const char *e = strchr(s, ';');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        char port[128];
        if (len >= sizeof port)
            abort();
        memcpy(port, s, len);
        port[len] = '\0';
        char *dims = strchr(port, ':');
        *dims++ = '\0';
        fz_printf(b, "\t\t\t\t<port id=\"%d\" precision=\"%s\">\n", id++, port);
        for (char *d = dims; *d;) {
            char *c = strchr(d, ',');
            if (c)
                *c = '\0';
            fz_printf(b, "\t\t\t\t\t<dim>%s</dim>\n", d);
            if (!c)
                break;
            d = c + 1;
        }
        fz_printf(b, "\t\t\t\t</port>\n");
        if (!e)
            break;
        s = e + 1;
    }
    fz_printf(b, "\t\t\t</%s>\n", tag);
    return id - first;
}

static void fz_layer_x(fz_model *m, int id, const char *type, const char *ver, const char *data,
                       const char *ins, const char *outs, const char *extra)
{
    fz_printf(&m->layers, "\t\t<layer id=\"%d\" name=\"%s%d\" type=\"%s\" version=\"%s\">\n", id,
              type, id, type, ver);
    if (data)
        fz_printf(&m->layers, "\t\t\t<data %s />\n", data);
    int n_in = fz_ports(&m->layers, "input", ins, 0);
    fz_ports(&m->layers, "output", outs, n_in);
    if (extra)
        fz_printf(&m->layers, "%s", extra);
    fz_printf(&m->layers, "\t\t</layer>\n");
}

static void fz_layer(fz_model *m, int id, const char *type, const char *ver, const char *data,
                     const char *ins, const char *outs)
{
    fz_layer_x(m, id, type, ver, data, ins, outs, NULL);
}

static void fz_edge(fz_model *m, int from, int from_port, int to, int to_port)
{
    fz_printf(&m->edges,
              "\t\t<edge from-layer=\"%d\" from-port=\"%d\" to-layer=\"%d\" to-port=\"%d\" />\n",
              from, from_port, to, to_port);
}

static void fz_param(fz_model *m, int id, const char *et, const char *prec, const char *shape)
{
    char data[128], outs[128];
    snprintf(data, sizeof data, "shape=\"%s\" element_type=\"%s\"", shape, et);
    snprintf(outs, sizeof outs, "%s:%s", prec, shape);
    fz_layer(m, id, "Parameter", "opset1", data, NULL, outs);
}

/* A Const whose bytes are appended to the weights (8-byte aligned). */
static void fz_const(fz_model *m, int id, const char *et, const char *prec, const char *shape,
                     const void *bytes, size_t size)
{
    static const uint8_t zero[8];
    fz_put(&m->w, zero, (8 - m->w.len % 8) % 8);
    size_t off = m->w.len;
    fz_put(&m->w, bytes, size);
    char data[256], outs[128], extra[256];
    snprintf(outs, sizeof outs, "%s:%s", prec, shape);
    if (m->use_mp) {
        snprintf(data, sizeof data, "element_type=\"%s\" shape=\"%s\"", et, shape);
        snprintf(extra, sizeof extra,
                 "\t\t\t<rt_info>\n\t\t\t\t<attribute name=\"WeightsPointerAttribute\" "
                 "version=\"0\" mp=\"0x%llx\" ms=\"%zu\" />\n\t\t\t</rt_info>\n",
                 (unsigned long long)(FZ_MP_BASE + m->mp_bias + off), size);
    } else {
        snprintf(data, sizeof data, "element_type=\"%s\" shape=\"%s\" offset=\"%zu\" size=\"%zu\"",
                 et, shape, off, size);
        extra[0] = '\0';
    }
    fz_layer_x(m, id, "Const", "opset1", data, NULL, outs, extra);
}

static void fz_const_f32(fz_model *m, int id, const char *shape, size_t n, float scale)
{
    float *v = malloc(n * sizeof *v);
    if (!v)
        abort();
    for (size_t i = 0; i < n; i++)
        v[i] = scale * (float)((int)((i * 37 + 11) % 23) - 11) / 11.0f;
    fz_const(m, id, "f32", "FP32", shape, v, n * sizeof *v);
    free(v);
}

static void fz_const_i64(fz_model *m, int id, const char *shape, const int64_t *v, size_t n)
{
    fz_const(m, id, "i64", "I64", shape, v, n * sizeof *v);
}

static void fz_result(fz_model *m, int id, const char *ins)
{
    fz_layer(m, id, "Result", "opset1", NULL, ins, NULL);
}

/* Finishes the XML text of m (caller frees). */
static char *fz_xml(fz_model *m, const char *name)
{
    fz_buf x = {0};
    fz_printf(&x, "<?xml version=\"1.0\"?>\n<net name=\"%s\" version=\"11\">\n\t<layers>\n", name);
    fz_put(&x, m->layers.s, m->layers.len);
    fz_printf(&x, "\t</layers>\n\t<edges>\n");
    fz_put(&x, m->edges.s, m->edges.len);
    fz_printf(&x, "\t</edges>\n\t<rt_info />\n</net>\n");
    return x.s;
}

/* The seed models. Each covers a group of the compiler's ops. */
enum { FZ_N_MODELS = 5 };

static void fz_build_model(int which, fz_model *m)
{
    switch (which) {
    case 0: { /* dense layer: f16 weights folded through Convert, bias, activations */
        uint16_t w16[32];
        for (int i = 0; i < 32; i++)
            w16[i] = (uint16_t)(0x3800 + (i % 7) * 0x100 + ((i & 1) ? 0x8000 : 0));
        fz_param(m, 0, "f32", "FP32", "1,8");
        fz_const(m, 1, "f16", "FP16", "8,4", w16, sizeof w16);
        fz_layer(m, 2, "Convert", "opset1", "destination_type=\"f32\"", "FP16:8,4", "FP32:8,4");
        fz_layer(m, 3, "MatMul", "opset1", "transpose_a=\"false\" transpose_b=\"false\"",
                 "FP32:1,8;FP32:8,4", "FP32:1,4");
        fz_const_f32(m, 4, "4", 4, 0.5f);
        fz_layer(m, 5, "Add", "opset1", "auto_broadcast=\"numpy\"", "FP32:1,4;FP32:4", "FP32:1,4");
        fz_layer(m, 6, "Relu", "opset1", NULL, "FP32:1,4", "FP32:1,4");
        fz_layer(m, 7, "SoftMax", "opset8", "axis=\"-1\"", "FP32:1,4", "FP32:1,4");
        fz_result(m, 8, "FP32:1,4");
        fz_layer(m, 9, "Clamp", "opset1", "min=\"-0.5\" max=\"0.5\"", "FP32:1,8", "FP32:1,8");
        fz_layer(m, 10, "Sigmoid", "opset1", NULL, "FP32:1,8", "FP32:1,8");
        fz_result(m, 11, "FP32:1,8");
        fz_edge(m, 0, 0, 3, 0);
        fz_edge(m, 1, 0, 2, 0);
        fz_edge(m, 2, 1, 3, 1);
        fz_edge(m, 3, 2, 5, 0);
        fz_edge(m, 4, 0, 5, 1);
        fz_edge(m, 5, 2, 6, 0);
        fz_edge(m, 6, 1, 7, 0);
        fz_edge(m, 7, 1, 8, 0);
        fz_edge(m, 0, 0, 9, 0);
        fz_edge(m, 9, 1, 10, 0);
        fz_edge(m, 10, 1, 11, 0);
        break;
    }
    case 1: { /* small CNN: conv, bias, pools, group conv, reduce */
        static const int64_t axes[2] = {2, 3};
        fz_param(m, 0, "f32", "FP32", "1,2,6,6");
        fz_const_f32(m, 1, "3,2,3,3", 54, 0.25f);
        fz_layer(m, 2, "Convolution", "opset1",
                 "strides=\"1,1\" dilations=\"1,1\" pads_begin=\"1,1\" pads_end=\"1,1\" "
                 "auto_pad=\"explicit\"",
                 "FP32:1,2,6,6;FP32:3,2,3,3", "FP32:1,3,6,6");
        fz_const_f32(m, 3, "1,3,1,1", 3, 1.0f);
        fz_layer(m, 4, "Add", "opset1", NULL, "FP32:1,3,6,6;FP32:1,3,1,1", "FP32:1,3,6,6");
        fz_layer(m, 5, "MaxPool", "opset8",
                 "strides=\"2,2\" dilations=\"1,1\" pads_begin=\"0,0\" pads_end=\"0,0\" "
                 "kernel=\"2,2\" rounding_type=\"floor\" auto_pad=\"explicit\"",
                 "FP32:1,3,6,6", "FP32:1,3,3,3;I64:1,3,3,3");
        fz_layer(m, 6, "AvgPool", "opset1",
                 "strides=\"1,1\" pads_begin=\"0,0\" pads_end=\"0,0\" kernel=\"3,3\" "
                 "exclude-pad=\"true\" rounding_type=\"ceil\" auto_pad=\"same_upper\"",
                 "FP32:1,3,3,3", "FP32:1,3,3,3");
        fz_const_f32(m, 7, "3,1,1,2,2", 12, 0.5f);
        fz_layer(m, 8, "GroupConvolution", "opset1",
                 "strides=\"1,1\" dilations=\"1,1\" pads_begin=\"0,0\" pads_end=\"0,0\" "
                 "auto_pad=\"valid\"",
                 "FP32:1,3,3,3;FP32:3,1,1,2,2", "FP32:1,3,2,2");
        fz_const_i64(m, 9, "2", axes, 2);
        fz_layer(m, 10, "ReduceMean", "opset1", "keep_dims=\"true\"", "FP32:1,3,2,2;I64:2",
                 "FP32:1,3,1,1");
        fz_result(m, 11, "FP32:1,3,1,1");
        fz_edge(m, 0, 0, 2, 0);
        fz_edge(m, 1, 0, 2, 1);
        fz_edge(m, 2, 2, 4, 0);
        fz_edge(m, 3, 0, 4, 1);
        fz_edge(m, 4, 2, 5, 0);
        fz_edge(m, 5, 1, 6, 0);
        fz_edge(m, 6, 1, 8, 0);
        fz_edge(m, 7, 0, 8, 1);
        fz_edge(m, 8, 2, 10, 0);
        fz_edge(m, 9, 0, 10, 1);
        fz_edge(m, 10, 2, 11, 0);
        break;
    }
    case 2: { /* shape ops: transpose, reshape, (un)squeeze, split, concat, gather, shapeof */
        static const int64_t perm[3] = {2, 0, 1}, target[2] = {4, -1}, ax0[1] = {0},
                             ax1 = 1, idx[2] = {1, 0}, lens[2] = {1, 2};
        fz_param(m, 0, "f32", "FP32", "2,3,4");
        fz_const_i64(m, 1, "3", perm, 3);
        fz_layer(m, 2, "Transpose", "opset1", NULL, "FP32:2,3,4;I64:3", "FP32:4,2,3");
        fz_const_i64(m, 3, "2", target, 2);
        fz_layer(m, 4, "Reshape", "opset1", "special_zero=\"false\"", "FP32:4,2,3;I64:2",
                 "FP32:4,6");
        fz_const_i64(m, 5, "1", ax0, 1);
        fz_layer(m, 6, "Unsqueeze", "opset1", NULL, "FP32:4,6;I64:1", "FP32:1,4,6");
        fz_layer(m, 7, "Squeeze", "opset1", NULL, "FP32:1,4,6;I64:1", "FP32:4,6");
        fz_const_i64(m, 8, "", &ax1, 1);
        fz_layer(m, 9, "Split", "opset1", "num_splits=\"2\"", "FP32:4,6;I64:", "FP32:4,3;FP32:4,3");
        fz_layer(m, 10, "Concat", "opset1", "axis=\"0\"", "FP32:4,3;FP32:4,3", "FP32:8,3");
        fz_const_i64(m, 11, "2", idx, 2);
        fz_const_i64(m, 12, "", ax0, 1);
        fz_layer(m, 13, "Gather", "opset8", "batch_dims=\"0\"", "FP32:8,3;I64:2;I64:", "FP32:2,3");
        fz_const_i64(m, 14, "2", lens, 2);
        fz_layer(m, 15, "VariadicSplit", "opset1", NULL, "FP32:2,3;I64:;I64:2", "FP32:2,1;FP32:2,2");
        fz_result(m, 16, "FP32:2,1");
        fz_result(m, 17, "FP32:2,2");
        fz_layer(m, 18, "ShapeOf", "opset3", "output_type=\"i64\"", "FP32:8,3", "I64:2");
        fz_result(m, 19, "I64:2");
        fz_edge(m, 0, 0, 2, 0);
        fz_edge(m, 1, 0, 2, 1);
        fz_edge(m, 2, 2, 4, 0);
        fz_edge(m, 3, 0, 4, 1);
        fz_edge(m, 4, 2, 6, 0);
        fz_edge(m, 5, 0, 6, 1);
        fz_edge(m, 6, 2, 7, 0);
        fz_edge(m, 5, 0, 7, 1);
        fz_edge(m, 7, 2, 9, 0);
        fz_edge(m, 8, 0, 9, 1);
        fz_edge(m, 9, 2, 10, 0);
        fz_edge(m, 9, 3, 10, 1);
        fz_edge(m, 10, 2, 13, 0);
        fz_edge(m, 11, 0, 13, 1);
        fz_edge(m, 12, 0, 13, 2);
        fz_edge(m, 13, 3, 15, 0);
        fz_edge(m, 8, 0, 15, 1);
        fz_edge(m, 14, 0, 15, 2);
        fz_edge(m, 15, 3, 16, 0);
        fz_edge(m, 15, 4, 17, 0);
        fz_edge(m, 10, 2, 18, 0);
        fz_edge(m, 18, 1, 19, 0);
        break;
    }
    case 3: /* state: ReadValue/Assign around an accumulator */
        fz_param(m, 0, "f32", "FP32", "1,4");
        fz_layer(m, 1, "ReadValue", "opset6",
                 "variable_id=\"acc\" variable_type=\"f32\" variable_shape=\"1,4\"", "FP32:1,4",
                 "FP32:1,4");
        fz_layer(m, 2, "Add", "opset1", NULL, "FP32:1,4;FP32:1,4", "FP32:1,4");
        fz_layer(m, 3, "Assign", "opset6", "variable_id=\"acc\"", "FP32:1,4", "FP32:1,4");
        fz_result(m, 4, "FP32:1,4");
        fz_edge(m, 0, 0, 1, 0);
        fz_edge(m, 1, 1, 2, 0);
        fz_edge(m, 0, 0, 2, 1);
        fz_edge(m, 2, 2, 3, 0);
        fz_edge(m, 2, 2, 4, 0);
        break;
    case 4: { /* element-wise ops on integer and float inputs */
        fz_param(m, 0, "f32", "FP32", "2,3");
        fz_param(m, 1, "i32", "I32", "3");
        fz_layer(m, 2, "Convert", "opset1", "destination_type=\"f32\"", "I32:3", "FP32:3");
        fz_layer(m, 3, "Subtract", "opset1", NULL, "FP32:2,3;FP32:3", "FP32:2,3");
        fz_layer(m, 4, "Multiply", "opset1", NULL, "FP32:2,3;FP32:3", "FP32:2,3");
        fz_layer(m, 5, "Divide", "opset1", NULL, "FP32:2,3;FP32:2,3", "FP32:2,3");
        fz_layer(m, 6, "Maximum", "opset1", NULL, "FP32:2,3;FP32:2,3", "FP32:2,3");
        fz_layer(m, 7, "Minimum", "opset1", NULL, "FP32:2,3;FP32:2,3", "FP32:2,3");
        fz_layer(m, 8, "Exp", "opset1", NULL, "FP32:2,3", "FP32:2,3");
        fz_layer(m, 9, "Tanh", "opset1", NULL, "FP32:2,3", "FP32:2,3");
        fz_layer(m, 10, "Abs", "opset1", NULL, "FP32:2,3", "FP32:2,3");
        fz_layer(m, 11, "Sqrt", "opset1", NULL, "FP32:2,3", "FP32:2,3");
        fz_layer(m, 12, "Negative", "opset1", NULL, "FP32:2,3", "FP32:2,3");
        fz_layer(m, 13, "Convert", "opset1", "destination_type=\"i32\"", "FP32:2,3", "I32:2,3");
        fz_result(m, 14, "I32:2,3");
        fz_layer(m, 15, "ReduceSum", "opset1", "keep_dims=\"false\"", "FP32:2,3;I64:", "FP32:3");
        {
            static const int64_t ax = -2;
            fz_const_i64(m, 16, "", &ax, 1);
        }
        fz_result(m, 17, "FP32:3");
        fz_edge(m, 1, 0, 2, 0);
        fz_edge(m, 0, 0, 3, 0);
        fz_edge(m, 2, 1, 3, 1);
        fz_edge(m, 3, 2, 4, 0);
        fz_edge(m, 2, 1, 4, 1);
        fz_edge(m, 4, 2, 5, 0);
        fz_edge(m, 0, 0, 5, 1);
        fz_edge(m, 5, 2, 6, 0);
        fz_edge(m, 3, 2, 6, 1);
        fz_edge(m, 6, 2, 7, 0);
        fz_edge(m, 4, 2, 7, 1);
        fz_edge(m, 7, 2, 8, 0);
        fz_edge(m, 8, 1, 9, 0);
        fz_edge(m, 9, 1, 10, 0);
        fz_edge(m, 10, 1, 11, 0);
        fz_edge(m, 11, 1, 12, 0);
        fz_edge(m, 12, 1, 13, 0);
        fz_edge(m, 13, 1, 14, 0);
        fz_edge(m, 12, 1, 15, 0);
        fz_edge(m, 16, 0, 15, 1);
        fz_edge(m, 15, 2, 17, 0);
        break;
    }
    }
}

static void fz_free_model(fz_model *m)
{
    free(m->layers.s);
    free(m->edges.s);
    free(m->w.s);
    memset(m, 0, sizeof *m);
}

/* Layout A: [u16 major][u16 minor][u32 2][u64 xml size][xml][u64 weights size][weights]. */
static void fz_payload_a(fz_buf *out, const char *xml, const fz_buf *w, uint32_t version)
{
    uint16_t v[2] = {(uint16_t)(version >> 16), (uint16_t)version};
    uint32_t sections = 2;
    uint64_t xs = strlen(xml), ws = w->len;
    fz_put(out, v, 4);
    fz_put(out, &sections, 4);
    fz_put(out, &xs, 8);
    fz_put(out, xml, xs);
    fz_put(out, &ws, 8);
    fz_put(out, w->s, w->len);
}

/* Layout B: six u64 (custom data, constants, model: offset and size each), the
 * 4-byte version, the constants blob, the XML. */
static void fz_payload_b(fz_buf *out, const char *xml, const fz_buf *w, uint32_t version)
{
    uint64_t xs = strlen(xml), h[6] = {48, 4, 52, w->len, 52 + w->len, xs};
    uint16_t v[2] = {(uint16_t)(version >> 16), (uint16_t)version};
    fz_put(out, h, sizeof h);
    fz_put(out, v, 4);
    fz_put(out, w->s, w->len);
    fz_put(out, xml, xs);
}

static void fz_write_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        abort();
    }
    if (n > 64 * 1024) {
        fprintf(stderr, "seed %s is %zu bytes (limit 64 KiB)\n", path, n);
        abort();
    }
}

/* Build flags the payload target chooses from (bits 2-3 of its mode byte). */
static const char *const fz_flags[4] = {
    NULL,
    "--inputs_precisions=\"0:FP16\" --outputs_precisions=\"0:FP16\" --config PERF_COUNT=\"YES\"",
    "--inputs_precisions=\"0:U8\" --inputs_layouts=\"0:NC\" --outputs_layouts=\"0:CN\"",
    "--outputs_precisions=\"0:I32\" --config NPU_UNKNOWN_KEY=\"1\"",
};

#endif /* SIM_FUZZ_H */
