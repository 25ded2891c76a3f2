/* libFuzzer target for the IR loader (section 8 of npu.c).
 *
 *   clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -DNPU_NO_LEVEL_ZERO \
 *         -I. tests/fuzz/fuzz_irload.c -o build/fuzz_irload
 *   ./build/fuzz_irload -max_total_time=60 tests/data/irl_*.xml
 *
 * Input: the IR XML. The weights are a fixed 4 KiB pattern of which the input's
 * first byte picks the length (so offset/size checks are exercised both ways).
 * Everything the loader accepts is also written as payloads A and B (size query,
 * too-small buffer, exact buffer), with and without a batch rewrite; when the
 * input's second byte is odd, after pre- and postprocessing (section 8e: a u8
 * input 0, an f16 output 0), and when its bit 1 is set after a reshape of input
 * 0 (every dim but the batch made 2 + its axis): payload writes may then
 * refuse the IR but must refuse it the same way every time. */
#include "../../npu.c"

#include <stdlib.h>

/* npu_ir_size's scratch (NPU_IR_SIZE_SCRATCH: the XML walker's state). */
static npu_arena *ir_size_scratch(void)
{
    static _Alignas(16) unsigned char mem[NPU_IR_SIZE_SCRATCH];
    static npu_arena a;
    npu_arena_init(&a, mem, sizeof mem);
    return &a;
}

static _Alignas(16) unsigned char fz_arena[1u << 20];
static _Alignas(16) unsigned char fz_ctx[8192];
static unsigned char fz_weights[4096];
static unsigned char fz_out[1u << 20];
static _Alignas(16) unsigned char fz_pp[3 * NPU_PREPROCESS_BYTES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    npu_arena a, ca;
    npu_context *ctx;
    npu_ir *ir = NULL;
    size_t need = 0, bin, i, n;
    char *xml;
    npu_status st;
    if (fz_weights[1] == 0)
        for (i = 0; i < sizeof fz_weights; i++) fz_weights[i] = (unsigned char)(i * 7 + 1);
    bin = size > 0 ? (size_t)data[0] * 16 : 0;
    /* a private copy without slack: ASan catches any read past the end */
    xml = (char *)malloc(size ? size : 1);
    if (xml == NULL) return 0;
    if (size) memcpy(xml, data, size);
    npu_arena_init(&ca, fz_ctx, sizeof fz_ctx);
    npu_context_create(&ca, NULL, &ctx);
    st = npu_ir_size(ir_size_scratch(), ctx, xml, size, &need);
    npu_arena_init(&a, fz_arena, sizeof fz_arena);
    if (st == NPU_OK && need <= sizeof fz_arena) {
        /* one byte short must fail cleanly */
        if (need >= 16) {
            npu_arena_init(&a, fz_arena, need - 16);
            if (npu_ir_load_memory(&a, ctx, xml, size, fz_weights, bin, &ir) == NPU_OK) abort();
            if (a.used != 0) abort();
        }
        npu_arena_init(&a, fz_arena, need);
        st = npu_ir_load_memory(&a, ctx, xml, size, fz_weights, bin, &ir);
        if (st == NPU_OK) {
            int pass, pp = size > 1 && (data[1] & 3);
            npu_status first = NPU_OK;
            if (a.peak != need) abort();
            if (pp) {
                npu_arena pa;
                npu_preprocess pre;
                npu_postprocess post;
                memset(&pre, 0, sizeof pre);
                memset(&post, 0, sizeof post);
                pre.type = NPU_U8;
                post.type = NPU_F16;
                npu_arena_init(&pa, fz_pp, sizeof fz_pp);
                if ((data[1] & 2) && npu_ir_input_count(ir) > 0) {
                    const npu_ir_io *in = npu_ir_input(ir, 0);
                    npu_shape sh = in->desc.shape;
                    uint32_t k;
                    for (k = 0; k < sh.rank && k < NPU_MAX_RANK; k++)
                        if ((int32_t)k != in->batch_axis) sh.dims[k] = 2 + k;
                    (void)npu_ir_set_input_shape(ir, &pa, 0, &sh);
                }
                if ((data[1] & 1) && npu_ir_input_count(ir) > 0) (void)npu_ir_set_preprocess(ir, &pa, 0, &pre);
                if ((data[1] & 1) && npu_ir_output_count(ir) > 0) (void)npu_ir_set_postprocess(ir, &pa, 0, &post);
            }
            for (pass = 0; pass < 4; pass++) {
                npu_payload_options o;
                npu_status ws;
                memset(&o, 0, sizeof o);
                o.layout = (pass & 1) ? NPU_PAYLOAD_WEIGHTS_COPY : NPU_PAYLOAD_NO_WEIGHTS_COPY;
                o.weights_threshold_bytes = (pass & 2) ? 64 : 0;
                o.compiler_version = 0x70004;
                if (pass == 2) npu_ir_set_batch(ir, 3, NULL);
                ws = npu_ir_write_payload(ir, &o, NULL, 0, &n);
                if (pass == 0) first = ws;
                if (ws != first || (ws != NPU_OK && !pp)) abort();
                if (ws != NPU_OK) continue;
                if (n <= sizeof fz_out) {
                    size_t m = 0;
                    if (n > 0 && npu_ir_write_payload(ir, &o, fz_out, n - 1, &m) != NPU_ERR_BUFFER_TOO_SMALL) abort();
                    if (npu_ir_write_payload(ir, &o, fz_out, n, &m) != NPU_OK || m != n) abort();
                }
            }
            for (i = 0; i < npu_ir_input_count(ir); i++) npu_ir_set_layout(ir, 0, (uint32_t)i, "NC");
            npu_ir_close(ir);
        } else if (a.used != 0) {
            abort();
        }
    }
    free(xml);
    return 0;
}
