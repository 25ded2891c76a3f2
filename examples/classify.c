/* classify.c - classify handwritten digits in PGM / PPM images of any size on
 * the NPU, the image's bytes going in as they are: the model does the rest.
 *
 *   classify [--model digits.xml] IMAGE...
 *
 * Each IMAGE is a binary PGM (P5, gray) or PPM (P6, colour) with maxval 1..255
 * and any width and height up to 4096. The digit model (data/digits) wants f32
 * [1,1,8,8] NCHW holding pixel / 16 for 8x8 images of maxval 16, i.e. the
 * pixel divided by the maxval. classify declares the image as it is in the file,
 * u8 [1,H,W,C] NHWC (C = 1 or 3), and asks for preprocessing in the model
 * (npu_ir_set_preprocess): Convert to f32, gray from RGB (PPM), a linear resize
 * to 8x8 when the size differs, divide by the maxval, NHWC -> NCHW. The file's
 * pixels are read straight into the request's input buffer.
 *
 * Prints "IMAGE: digit D (p=0.xxx)" per image. Exit status: 0 if every image
 * was classified, 1 otherwise (a bad image is reported and skipped). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "npu.h"

#define MAX_SIDE 4096

static _Alignas(NPU_ARENA_ALIGN) unsigned char memory[4 << 20];

typedef struct image {
    unsigned width, height, channels, maxval;
} image;

/* Skips white space and '#' comments; 0 on success. */
static int skip_space(FILE *f)
{
    int c;
    for (;;) {
        c = fgetc(f);
        if (c == '#') {
            while (c != '\n' && c != EOF) c = fgetc(f);
        }
        if (c == EOF) return -1;
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    }
    ungetc(c, f);
    return 0;
}

/* A header number: 1..max decimal digits; 0 on success. */
static int read_number(FILE *f, unsigned max, unsigned *out)
{
    unsigned long v = 0;
    int c, digits = 0;
    if (skip_space(f) != 0) return -1;
    while ((c = fgetc(f)) >= '0' && c <= '9') {
        v = v * 10 + (unsigned long)(c - '0');
        if (v > max) return -1;
        digits++;
    }
    if (digits == 0 || c == EOF) return -1;
    ungetc(c, f);
    *out = (unsigned)v;
    return 0;
}

/* Parses a P5 / P6 header; leaves f at the first pixel byte. */
static int read_header(FILE *f, image *im, const char **why)
{
    int m0 = fgetc(f), m1 = fgetc(f), c;
    if (m0 != 'P' || (m1 != '5' && m1 != '6')) return *why = "not a binary PGM (P5) or PPM (P6)", -1;
    im->channels = m1 == '5' ? 1 : 3;
    if (read_number(f, MAX_SIDE, &im->width) || read_number(f, MAX_SIDE, &im->height) || im->width == 0 ||
        im->height == 0)
        return *why = "bad width or height (1 to 4096)", -1;
    if (read_number(f, 65535, &im->maxval) || im->maxval == 0) return *why = "bad maxval", -1;
    if (im->maxval > 255) return *why = "16-bit samples (maxval > 255) are not supported", -1;
    c = fgetc(f);   /* exactly one white space character before the pixels */
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return *why = "no white space after maxval", -1;
    return 0;
}

static int classify(const char *model_path, const char *path)
{
    npu_arena arena;
    npu_context *ctx = NULL;
    npu_device *dev = NULL;
    npu_ir *ir = NULL;
    npu_model *model = NULL;
    npu_request *req = NULL;
    npu_preprocess pp;
    image im;
    const char *why = NULL, *step = NULL;
    const npu_tensor_desc *in;
    unsigned char *pixels;
    const float *prob;
    size_t bytes, got;
    unsigned best = 0, i;
    int rc = 1, extra;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "classify: %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (read_header(f, &im, &why) != 0) {
        fprintf(stderr, "classify: %s: %s\n", path, why);
        fclose(f);
        return 1;
    }
    npu_arena_init(&arena, memory, sizeof memory);
    memset(&pp, 0, sizeof pp);
    pp.type = NPU_U8;                                   /* the file's bytes */
    pp.layout = "NHWC";                                 /* interleaved */
    pp.height = im.height;
    pp.width = im.width;
    pp.resize = (im.height == 8 && im.width == 8) ? NPU_RESIZE_NONE : NPU_RESIZE_LINEAR;
    pp.color = im.channels == 3 ? NPU_COLOR_RGB_TO_GRAY : NPU_COLOR_AS_MODEL;
    pp.n_scale = 1;
    pp.scale[0] = (float)im.maxval;                     /* pixel / maxval, as the training script */
    if ((step = "npu_context_create", npu_context_create(&arena, NULL, &ctx)) != NPU_OK ||
        (step = "npu_device_open", npu_device_open(&arena, ctx, NULL, &dev)) != NPU_OK ||
        (step = "npu_ir_open", npu_ir_open(&arena, ctx, model_path, NULL, &ir)) != NPU_OK ||
        (step = "npu_ir_set_preprocess", npu_ir_set_preprocess(ir, &arena, 0, &pp)) != NPU_OK ||
        (step = "npu_model_compile_ir", npu_model_compile_ir(dev, &arena, ir, NULL, &model)) != NPU_OK ||
        (step = "npu_request_create", npu_request_create(model, &arena, NULL, &req)) != NPU_OK) {
        fprintf(stderr, "classify: %s: %s: %s\n", path, step, ctx ? npu_context_last_error(ctx) : "failed");
        goto out;
    }
    in = npu_model_input(model, 0);   /* the image as it is: u8 [1,H,W,C] */
    bytes = (size_t)im.width * im.height * im.channels;
    if (in == NULL || in->type != NPU_U8 || in->bytes != bytes) {
        fprintf(stderr, "classify: %s: the compiled input is not the image's u8 [1,%u,%u,%u]\n", path, im.height,
                im.width, im.channels);
        goto out;
    }
    pixels = npu_request_input(req, 0);             /* the file goes straight in */
    got = fread(pixels, 1, bytes, f);
    extra = fgetc(f) != EOF;
    if (got != bytes) {
        fprintf(stderr, "classify: %s: truncated: %zu of %zu pixel bytes\n", path, got, bytes);
        goto out;
    }
    if (extra) fprintf(stderr, "classify: %s: warning: bytes after the pixels ignored\n", path);
    for (i = 0; i < bytes; i++)
        if (pixels[i] > im.maxval) {
            fprintf(stderr, "classify: %s: pixel %u is %u, above maxval %u\n", path, i, pixels[i], im.maxval);
            goto out;
        }
    if (npu_request_infer(req) != NPU_OK) {
        fprintf(stderr, "classify: %s: npu_request_infer: %s\n", path, npu_context_last_error(ctx));
        goto out;
    }
    prob = npu_request_output(req, 0);
    for (i = 1; i < 10; i++)
        if (prob[i] > prob[best]) best = i;
    printf("%s: digit %u (p=%.3f)\n", path, best, (double)prob[best]);
    rc = 0;
out:
    npu_request_destroy(req);
    npu_model_destroy(model);
    npu_ir_close(ir);
    npu_device_close(dev);
    fclose(f);
    return rc;
}

int main(int argc, char **argv)
{
    const char *model = "data/digits/digits.xml";
    int i = 1, rc = 0;
    if (argc > 2 && strcmp(argv[1], "--model") == 0) {
        model = argv[2];
        i = 3;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: classify [--model digits.xml] IMAGE.pgm|IMAGE.ppm...\n");
        return 2;
    }
    for (; i < argc; i++)
        if (classify(model, argv[i]) != 0) rc = 1;
    return rc;
}
