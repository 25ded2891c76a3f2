/* Inputs and outputs from file descriptors (npu_request_set_input_fd /
 * _output_fd): a memfd stands in for a dma-buf on the software NPU. A frame
 * written through the producer's own mapping is what the NPU reads, the NPU's
 * output is what the consumer's own mapping sees (no copy, in either
 * direction); ranges are checked against the buffer; fds that are not buffers
 * and drivers without dma-buf import fail clearly; every import is released
 * when the binding changes or the request goes. */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "tests/l0_test_util.h"

static npu_device *dev;
static npu_model *affine;

static int group_setup(void **state)
{
    (void)state;
    tu_init_context();
    dev = tu_open();
    tu_ok(npu_model_compile_graph(dev, &tu_arena, tu_graph_affine(&tu_arena, 1), NULL, &affine), "affine");
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    npu_model_destroy(affine);
    npu_device_close(dev);
    return 0;
}

/* A memfd of `size` bytes and the test's own shared mapping of it (the
 * "other part of the program": a camera, a decoder). */
typedef struct frame_buf {
    int fd;
    unsigned char *map;
    size_t size;
} frame_buf;

static frame_buf frame_new(size_t size)
{
    frame_buf f;
    f.fd = memfd_create("npu-test-frame", MFD_CLOEXEC);
    assert_true(f.fd >= 0);
    assert_int_equal(ftruncate(f.fd, (off_t)size), 0);
    f.map = (unsigned char *)mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, f.fd, 0);
    assert_true(f.map != MAP_FAILED);
    f.size = size;
    return f;
}

static void frame_free(frame_buf *f)
{
    munmap(f->map, f->size);
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
}

static void check_y(const float *x, const unsigned char *y_bytes)
{
    float ref[4], y[4];
    int i;
    tu_affine_ref(x, ref, 1);
    memcpy(y, y_bytes, sizeof y);
    for (i = 0; i < 4; i++) assert_float_equal(y[i], ref[i], 1e-6);
}

static void test_input_and_output_from_memfds_without_a_copy(void **state)
{
    size_t mark = npu_arena_used(&tu_arena);
    tu_live base = tu_live_now();
    npu_request *r = NULL;
    frame_buf in = frame_new(3 * 4096), out = frame_new(2 * 4096);
    const size_t in_off = 4096 + 64, out_off = 100; /* any offset */
    int k;
    (void)state;
    tu_ok(npu_request_create(affine, &tu_arena, NULL, &r), "request");
    tu_ok(npu_request_set_input_fd(r, 0, in.fd, in_off, 16), "input fd");
    tu_ok(npu_request_set_output_fd(r, 0, out.fd, out_off, 4096), "output fd");
    /* the fds stay the caller's; the imports keep the buffers */
    close(in.fd);
    close(out.fd);
    in.fd = out.fd = -1;
    for (k = 0; k < 5; k++) {
        float x[4] = {(float)k, -1.5f, 2.0f + (float)k, 0.25f};
        memcpy(in.map + in_off, x, sizeof x);      /* the producer writes a frame */
        tu_ok(npu_request_infer(r), "infer");      /* no set call in between */
        check_y(x, out.map + out_off);             /* the consumer reads the result */
    }
    /* npu_request_input/_output are the same bytes, seen through the import */
    assert_ptr_not_equal(npu_request_input(r, 0), in.map + in_off);
    assert_memory_equal(npu_request_input(r, 0), in.map + in_off, 16);
    ((float *)npu_request_input(r, 0))[1] = 7.0f;
    {
        float x[4];
        memcpy(x, in.map + in_off, sizeof x);
        assert_float_equal(x[1], 7.0f, 0);
        tu_ok(npu_request_infer(r), "infer");
        check_y(x, (const unsigned char *)npu_request_output(r, 0));
        check_y(x, out.map + out_off);
    }
    /* the bytes around the ranges are untouched */
    for (k = 0; k < (int)out_off; k++) assert_int_equal(out.map[k], 0);
    for (k = (int)out_off + 16; k < 2 * 4096; k++) assert_int_equal(out.map[k], 0);
    npu_request_destroy(r);
    tu_live_expect(&base);
    frame_free(&in);
    frame_free(&out);
    npu_arena_rewind(&tu_arena, mark);
}

static void test_ranges_are_checked_and_a_failed_call_keeps_the_binding(void **state)
{
    size_t mark = npu_arena_used(&tu_arena);
    npu_request *r = NULL;
    frame_buf f = frame_new(4096), tiny = frame_new(8);
    tu_live base;
    float x[4] = {1, 2, 3, 4};
    int closed;
    (void)state;
    tu_ok(npu_request_create(affine, &tu_arena, NULL, &r), "request");
    tu_ok(npu_request_set_input_fd(r, 0, f.fd, 4096 - 16, 16), "last 16 bytes");
    memcpy(f.map + 4096 - 16, x, sizeof x);
    base = tu_live_now();
    /* size below the tensor's 16 bytes */
    assert_int_equal(npu_request_set_input_fd(r, 0, f.fd, 0, 15), NPU_ERR_BUFFER_TOO_SMALL);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "16 needed"));
    /* beyond the end of the buffer, by one byte and by a lot */
    assert_int_equal(npu_request_set_input_fd(r, 0, f.fd, 4096 - 15, 16), NPU_ERR_BUFFER_TOO_SMALL);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "holds 4096 bytes"));
    assert_int_equal(npu_request_set_input_fd(r, 0, f.fd, 1u << 20, 16), NPU_ERR_BUFFER_TOO_SMALL);
    /* an fd smaller than the tensor */
    assert_int_equal(npu_request_set_input_fd(r, 0, tiny.fd, 0, 16), NPU_ERR_BUFFER_TOO_SMALL);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "holds 8 bytes"));
    /* offset + size overflows */
    assert_int_equal(npu_request_set_input_fd(r, 0, f.fd, SIZE_MAX - 8, 16), NPU_ERR_INVALID_ARGUMENT);
    /* no such input, output */
    assert_int_equal(npu_request_set_input_fd(r, 1, f.fd, 0, 16), NPU_ERR_NOT_FOUND);
    assert_int_equal(npu_request_set_output_fd(r, 1, f.fd, 0, 16), NPU_ERR_NOT_FOUND);
    /* not an open fd */
    assert_int_equal(npu_request_set_input_fd(r, 0, -1, 0, 16), NPU_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "fd -1"));
    closed = dup(f.fd);
    close(closed);
    assert_int_equal(npu_request_set_input_fd(r, 0, closed, 0, 16), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_request_set_input_fd(NULL, 0, f.fd, 0, 16), NPU_ERR_INVALID_ARGUMENT);
    /* none of that leaked an import or lost the binding */
    tu_live_expect(&base);
    tu_ok(npu_request_infer(r), "infer");
    check_y(x, (const unsigned char *)npu_request_output(r, 0));
    npu_request_destroy(r);
    frame_free(&f);
    frame_free(&tiny);
    npu_arena_rewind(&tu_arena, mark);
}

static void test_fds_that_are_not_buffers_fail_with_the_fd_named(void **state)
{
    size_t mark = npu_arena_used(&tu_arena);
    npu_request *r = NULL;
    int p[2], s[2], empty, ro;
    char path[64];
    frame_buf f = frame_new(4096);
    tu_live base;
    (void)state;
    tu_ok(npu_request_create(affine, &tu_arena, NULL, &r), "request");
    base = tu_live_now();
    assert_int_equal(pipe(p), 0);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, s), 0);
    empty = memfd_create("npu-test-empty", MFD_CLOEXEC);
    assert_true(empty >= 0);
    snprintf(path, sizeof path, "/proc/self/fd/%d", f.fd);
    ro = open(path, O_RDONLY); /* a read-only view: the NPU cannot write it */
    assert_true(ro >= 0);
    {
        const int bad[] = {p[0], p[1], s[0], ro};
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            char want[32];
            assert_int_equal(npu_request_set_input_fd(r, 0, bad[i], 0, 16), NPU_ERR_DRIVER);
            snprintf(want, sizeof want, "fd %d", bad[i]);
            assert_non_null(strstr(npu_context_last_error(tu_ctx), want));
            assert_non_null(strstr(npu_context_last_error(tu_ctx), "input 'x'"));
        }
        /* an empty buffer imports nothing */
        assert_int_not_equal(npu_request_set_input_fd(r, 0, empty, 0, 16), NPU_OK);
        assert_int_equal(npu_request_set_output_fd(r, 0, p[0], 0, 16), NPU_ERR_DRIVER);
        assert_non_null(strstr(npu_context_last_error(tu_ctx), "output 'y'"));
    }
    tu_live_expect(&base);
    /* still on its own buffers */
    {
        float x[4] = {0.5f, 1, -1, 2};
        memcpy(npu_request_input(r, 0), x, sizeof x);
        tu_ok(npu_request_infer(r), "infer");
        check_y(x, (const unsigned char *)npu_request_output(r, 0));
    }
    close(p[0]);
    close(p[1]);
    close(s[0]);
    close(s[1]);
    close(empty);
    close(ro);
    npu_request_destroy(r);
    frame_free(&f);
    npu_arena_rewind(&tu_arena, mark);
}

/* Setting the same input again (another fd, a caller buffer, NULL) releases
 * the import it replaces; so does destroying the request. */
static void test_each_rebinding_releases_the_previous_import(void **state)
{
    size_t mark = npu_arena_used(&tu_arena);
    npu_request *r = NULL;
    frame_buf a = frame_new(4096), b = frame_new(8192);
    tu_live before = tu_live_now(), base, one;
    float x[4] = {1, -2, 3, -4}, y[4] = {4, 3, 2, 1};
    (void)state;
    tu_ok(npu_request_create(affine, &tu_arena, NULL, &r), "request");
    base = tu_live_now();
    tu_ok(npu_request_set_input_fd(r, 0, a.fd, 0, 16), "a");
    one = tu_live_now();
    assert_int_equal(one.n[NPU_SIM_HANDLE_MEMORY], base.n[NPU_SIM_HANDLE_MEMORY] + 1);
    memcpy(a.map, x, sizeof x);
    memcpy(b.map + 4096, y, sizeof y);
    tu_ok(npu_request_infer(r), "infer a");
    check_y(x, (const unsigned char *)npu_request_output(r, 0));
    tu_ok(npu_request_set_input_fd(r, 0, b.fd, 4096, 16), "b replaces a");
    tu_live_expect(&one);
    tu_ok(npu_request_infer(r), "infer b");
    check_y(y, (const unsigned char *)npu_request_output(r, 0));
    /* the same fd again, another offset */
    tu_ok(npu_request_set_input_fd(r, 0, b.fd, 0, 4096), "b again");
    tu_live_expect(&one);
    memcpy(b.map, x, sizeof x);
    tu_ok(npu_request_infer(r), "infer b at 0");
    check_y(x, (const unsigned char *)npu_request_output(r, 0));
    /* detach: back to the request's own buffer */
    tu_ok(npu_request_set_input_buffer(r, 0, NULL, 0), "detach");
    tu_live_expect(&base);
    memcpy(npu_request_input(r, 0), y, sizeof y);
    tu_ok(npu_request_infer(r), "infer own");
    check_y(y, (const unsigned char *)npu_request_output(r, 0));
    /* an fd output, then a caller buffer in its place */
    tu_ok(npu_request_set_output_fd(r, 0, a.fd, 0, 16), "output a");
    {
        static float out_buf[4];
        tu_ok(npu_request_set_output_buffer(r, 0, out_buf, sizeof out_buf), "output buffer");
        tu_live_expect(&base);
        tu_ok(npu_request_infer(r), "infer");
        check_y(y, (const unsigned char *)out_buf);
    }
    /* an import still attached at destroy is released with the request */
    tu_ok(npu_request_set_input_fd(r, 0, a.fd, 0, 16), "a again");
    npu_request_destroy(r);
    tu_live_expect(&before);
    frame_free(&a);
    frame_free(&b);
    npu_arena_rewind(&tu_arena, mark);
}

static void test_not_while_running(void **state)
{
    size_t mark = npu_arena_used(&tu_arena);
    npu_request *r = NULL;
    frame_buf f = frame_new(4096);
    (void)state;
    tu_ok(npu_request_create(affine, &tu_arena, NULL, &r), "request");
    tu_ok(npu_request_start(r), "start");
    assert_int_equal(npu_request_set_input_fd(r, 0, f.fd, 0, 16), NPU_ERR_STATE);
    tu_ok(npu_request_wait(r, UINT64_MAX), "wait");
    npu_request_destroy(r);
    frame_free(&f);
    npu_arena_rewind(&tu_arena, mark);
}

/* NPU_SIM_DMA_BUF=0 (a driver without dma-buf import) and =noprime (Intel's
 * driver on a kernel without PRIME import): NPU_ERR_UNSUPPORTED, saying why. */
static int child_unsupported(const char *why)
{
    npu_model *m = NULL;
    npu_request *r = NULL;
    frame_buf f;
    tu_live base;
    int rc = 0;
    tu_init_context();
    dev = tu_open();
    base = tu_live_now();
    tu_ok(npu_model_compile_graph(dev, &tu_arena, tu_graph_affine(&tu_arena, 1), NULL, &m), "affine");
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    f = frame_new(4096);
    if (npu_request_set_input_fd(r, 0, f.fd, 0, 16) != NPU_ERR_UNSUPPORTED) rc = 1;
    if (strstr(npu_context_last_error(tu_ctx), why) == NULL) rc = 2;
    if (npu_request_set_output_fd(r, 0, f.fd, 0, 16) != NPU_ERR_UNSUPPORTED) rc = 3;
    {
        float x[4] = {1, 2, 3, 4}, ref[4];
        memcpy(npu_request_input(r, 0), x, sizeof x);
        tu_ok(npu_request_infer(r), "infer");
        tu_affine_ref(x, ref, 1);
        if (memcmp(npu_request_output(r, 0), ref, sizeof ref) != 0) rc = 4;
    }
    npu_request_destroy(r);
    npu_model_destroy(m);
    tu_live_expect(&base);
    frame_free(&f);
    npu_device_close(dev);
    if (rc != 0) fprintf(stderr, "child (%s): rc %d: %s\n", why, rc, npu_context_last_error(tu_ctx));
    return rc;
}

static void test_unsupported_where_the_driver_has_no_dma_buf_import(void **state)
{
    static const char *const off[] = {"NPU_SIM_DMA_BUF=0", NULL};
    static const char *const noprime[] = {"NPU_SIM_DMA_BUF=noprime", NULL};
    (void)state;
    assert_int_equal(tu_rerun("--child-no-dma-buf", off), 0);
    assert_int_equal(tu_rerun("--child-no-prime", noprime), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_input_and_output_from_memfds_without_a_copy),
        cmocka_unit_test(test_ranges_are_checked_and_a_failed_call_keeps_the_binding),
        cmocka_unit_test(test_fds_that_are_not_buffers_fail_with_the_fd_named),
        cmocka_unit_test(test_each_rebinding_releases_the_previous_import),
        cmocka_unit_test(test_not_while_running),
        cmocka_unit_test(test_unsupported_where_the_driver_has_no_dma_buf_import),
    };
    if (argc > 1 && strcmp(argv[1], "--child-no-dma-buf") == 0)
        return child_unsupported("zeDeviceGetExternalMemoryProperties");
    if (argc > 1 && strcmp(argv[1], "--child-no-prime") == 0) return child_unsupported("PRIME");
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
