/* frame_fd.c - frames handed to the NPU as a file descriptor, with no copy.
 *
 * One part of the program (the "camera") owns a buffer of two frame slots and
 * writes each frame into the next slot through its own mapping; the other part
 * (the "NPU stage") has one request per slot, bound once to that slot of the
 * buffer with npu_request_set_input_fd, and runs it when the slot is full. No
 * byte of a frame is copied on its way to the NPU.
 *
 * On a real system the fd is a dma-buf from V4L2 (VIDIOC_EXPBUF), a video
 * decoder or a GPU. Here the buffer is a memfd; where /dev/udmabuf exists it
 * is turned into a real dma-buf (what Intel's driver imports), otherwise the
 * memfd itself is passed, which the software NPU accepts in place of one.
 *
 * Model: 4x4 f32 frames, y = frame . W, W [16,2] gives the mean brightness of
 * the left and the right half. The program checks each answer on the CPU.
 * Run on the software NPU: ZE_ENABLE_ALT_DRIVERS=$PWD/build/libze_npu_sim.so */
#define _GNU_SOURCE /* memfd_create */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__linux__) && defined(__has_include)
#if __has_include(<linux/udmabuf.h>)
#include <linux/udmabuf.h>
#define HAVE_UDMABUF 1
#endif
#endif
#include "npu.h"

#define SLOT 4096 /* bytes per frame slot (a frame uses 64 of them) */
#define SLOTS 2
#define FRAMES 6

static _Alignas(NPU_ARENA_ALIGN) unsigned char memory[512 * 1024];
static float W[16 * 2];

static int fail(npu_context *ctx, const char *what)
{
    fprintf(stderr, "frame_fd: %s failed: %s\n", what, npu_context_last_error(ctx));
    return 1;
}

/* ---- the camera: a buffer of SLOTS frame slots, written in turn ---- */
typedef struct camera {
    int memfd;   /* the memory */
    int fd;      /* what is handed out: a dma-buf over it, or the memfd */
    float *map;  /* the camera's own view of the buffer */
} camera;

static int camera_open(camera *c)
{
    size_t size = (size_t)SLOT * SLOTS;
    c->memfd = memfd_create("frame_fd-camera", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (c->memfd < 0 || ftruncate(c->memfd, (off_t)size) != 0) return -1;
    c->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, c->memfd, 0);
    if (c->map == MAP_FAILED) return -1;
    c->fd = c->memfd;
#ifdef HAVE_UDMABUF
    {
        int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
        if (dev >= 0) {
            struct udmabuf_create uc = {(uint32_t)c->memfd, UDMABUF_FLAGS_CLOEXEC, 0, size};
            int dmabuf = -1;
            if (fcntl(c->memfd, F_ADD_SEALS, F_SEAL_SHRINK) == 0) dmabuf = ioctl(dev, UDMABUF_CREATE, &uc);
            close(dev);
            if (dmabuf >= 0) c->fd = dmabuf;
        }
    }
#endif
    return 0;
}

/* Frame k into slot k % SLOTS: a gradient that moves right frame by frame. */
static const float *camera_capture(camera *c, int k)
{
    float *px = c->map + (size_t)(k % SLOTS) * (SLOT / sizeof(float));
    for (int i = 0; i < 16; i++) px[i] = (float)((i % 4 + k) % 4) * 0.25f + (float)(i / 4) * 0.01f;
    return px;
}

static void camera_close(camera *c)
{
    munmap(c->map, (size_t)SLOT * SLOTS);
    if (c->fd != c->memfd) close(c->fd);
    close(c->memfd);
}

int main(void)
{
    npu_arena arena;
    npu_context *ctx;
    npu_device *dev;
    npu_graph *g;
    npu_model *model;
    npu_request *req[SLOTS];
    camera cam;
    int bad = 0;
    for (int i = 0; i < 16; i++) {   /* column < 2: left half, else right half */
        W[i * 2 + 0] = i % 4 < 2 ? 1.0f / 8 : 0;
        W[i * 2 + 1] = i % 4 < 2 ? 0 : 1.0f / 8;
    }
    if (npu_arena_init(&arena, memory, sizeof memory) != NPU_OK || npu_context_create(&arena, NULL, &ctx) != NPU_OK) {
        fprintf(stderr, "frame_fd: cannot create a context\n");
        return 1;
    }
    if (npu_device_open(&arena, ctx, NULL, &dev) != NPU_OK) return fail(ctx, "npu_device_open");
    if (npu_graph_create(&arena, ctx, NULL, &g) != NPU_OK) return fail(ctx, "npu_graph_create");
    npu_shape xs = {2, {1, 16}}, ws = {2, {16, 2}};
    npu_node *x = npu_graph_parameter(g, "frame", NPU_F32, &xs, NULL);
    npu_node *w = npu_graph_constant(g, "halves", NPU_F32, &ws, W, sizeof W);
    npu_graph_result(g, npu_graph_matmul(g, x, w, 0, 0, NULL), "brightness");
    if (npu_graph_status(g) != NPU_OK) return fail(ctx, "building the graph");
    if (npu_model_compile_graph(dev, &arena, g, NULL, &model) != NPU_OK) return fail(ctx, "compile");

    if (camera_open(&cam) != 0) {
        perror("frame_fd: camera buffer");
        return 1;
    }
    printf("frame_fd: frames in a %s, %d slots of %d bytes\n", cam.fd == cam.memfd ? "memfd" : "dma-buf (udmabuf)",
           SLOTS, SLOT);
    /* The NPU stage: one request per slot, bound once; the fd stays ours. */
    for (int s = 0; s < SLOTS; s++) {
        if (npu_request_create(model, &arena, NULL, &req[s]) != NPU_OK) return fail(ctx, "npu_request_create");
        npu_status st = npu_request_set_input_fd(req[s], 0, cam.fd, (size_t)s * SLOT, 16 * sizeof(float));
        if (st == NPU_ERR_UNSUPPORTED) {
            printf("frame_fd: this driver cannot import frames from an fd: %s\n", npu_context_last_error(ctx));
            return 0;
        }
        if (st != NPU_OK) return fail(ctx, "npu_request_set_input_fd");
    }
    for (int k = 0; k < FRAMES; k++) {
        const float *px = camera_capture(&cam, k);   /* the camera fills a slot */
        npu_request *r = req[k % SLOTS];
        if (npu_request_infer(r) != NPU_OK) return fail(ctx, "npu_request_infer");
        const float *y = npu_request_output(r, 0);
        float ref[2] = {0, 0};
        for (int i = 0; i < 16; i++) ref[i % 4 < 2 ? 0 : 1] += px[i] / 8;
        int ok = fabsf(y[0] - ref[0]) < 1e-5f && fabsf(y[1] - ref[1]) < 1e-5f;
        bad += !ok;
        printf("frame %d (slot %d): left %.4f right %.4f  cpu %.4f %.4f %s\n", k, k % SLOTS, (double)y[0],
               (double)y[1], (double)ref[0], (double)ref[1], ok ? "ok" : "MISMATCH");
    }
    for (int s = 0; s < SLOTS; s++) npu_request_destroy(req[s]);   /* releases the imports */
    camera_close(&cam);
    npu_model_destroy(model);
    npu_device_close(dev);
    printf("frame_fd: %d frames read by the NPU from the camera's buffer, %s\n", FRAMES,
           bad ? "some answers differ" : "every answer matches the CPU");
    return bad != 0;
}
