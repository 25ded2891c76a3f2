/* test_hostile_files.c - files that are not what they claim to be: a FIFO (or
 * a directory) where an IR, its weights or a blob should be is refused at once
 * instead of blocking; a large IR full of warnings loads in linear time; an
 * exported file gets the permissions the umask allows. */
#include "l0_test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>

static npu_device *dev;
static char dir[256];

static int setup(void **state)
{
    (void)state;
    tu_init_context_logged(NPU_LOG_WARN);
    dev = tu_open();
    snprintf(dir, sizeof dir, "/tmp/npu-hostile-XXXXXX");
    if (mkdtemp(dir) == NULL) fail_msg("mkdtemp: %s", strerror(errno));
    return 0;
}

static int teardown(void **state)
{
    char cmd[400];
    (void)state;
    npu_device_close(dev);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void on_alarm(int sig)
{
    static const char msg[] = "blocked on a FIFO: the alarm fired\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) _exit(3);
    _exit(2);
}

static const char small_ir[] =
    "<?xml version=\"1.0\"?>\n<net name=\"m\" version=\"11\">\n<layers>\n"
    "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data shape=\"1,4\" element_type=\"f32\"/>"
    "<output><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>4</dim></port></output></layer>\n"
    "<layer id=\"1\" name=\"r\" type=\"Result\" version=\"opset1\"><input><port id=\"0\"><dim>1</dim><dim>4</dim>"
    "</port></input></layer>\n</layers>\n<edges>\n"
    "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/>\n</edges>\n</net>\n";

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void test_fifos_are_refused_without_blocking(void **state)
{
    char xml[300], bin[300], fifo[300];
    size_t mark = npu_arena_used(&tu_arena), need = 0;
    npu_ir *ir = NULL;
    npu_model *m = NULL;
    (void)state;
    signal(SIGALRM, on_alarm);
    alarm(20);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    /* the XML */
    assert_int_equal(npu_ir_open(&tu_arena, tu_ctx, fifo, NULL, &ir), NPU_ERR_IO);
    assert_null(ir);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), "not a regular file"));
    assert_int_equal(npu_ir_size_file(&tu_arena, tu_ctx, fifo, &need), NPU_ERR_IO);
    /* the weights, explicit and implied (m.xml -> m.bin) */
    snprintf(xml, sizeof xml, "%s/m.xml", dir);
    write_file(xml, small_ir, sizeof small_ir - 1);
    assert_int_equal(npu_ir_open(&tu_arena, tu_ctx, xml, fifo, &ir), NPU_ERR_IO);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), fifo));
    snprintf(bin, sizeof bin, "%s/m.bin", dir);
    assert_int_equal(mkfifo(bin, 0600), 0);
    assert_int_equal(npu_ir_open(&tu_arena, tu_ctx, xml, NULL, &ir), NPU_ERR_IO);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), bin));
    /* a blob; and a directory is refused the same way */
    assert_int_equal(npu_model_import_file(dev, &tu_arena, fifo, NULL, &m), NPU_ERR_IO);
    assert_null(m);
    assert_int_equal(npu_model_import_file(dev, &tu_arena, dir, NULL, &m), NPU_ERR_IO);
    assert_int_equal(npu_arena_used(&tu_arena), mark);
    alarm(0);
    unlink(bin);
    unlink(fifo);
}

/* Edges to missing input ports each log a warning naming the line: each used
 * to count lines from the start of the file (a 2.5 MB file took 39 s). The
 * load must grow linearly with the file: 4x the edges may take at most 8x the
 * time (quadratic work takes 16x). Each size is timed as the best of three, so
 * a busy machine or valgrind slows both sides alike; no absolute time is
 * asserted. */
static double load_edges_seconds(size_t edges, int check_log)
{
    size_t cap = edges * 80 + 4096, n = 0, i, need = 0;
    char *xml = (char *)malloc(cap);
    double best = 1e30;
    void *mem;
    int rep;
    assert_non_null(xml);
    n += (size_t)snprintf(xml + n, cap - n, "%.*s", (int)(strstr(small_ir, "<edges>") - small_ir), small_ir);
    n += (size_t)snprintf(xml + n, cap - n, "<edges>\n");
    for (i = 0; i < edges; i++)
        n += (size_t)snprintf(xml + n, cap - n, "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"%u\"/>\n",
                              (unsigned)(i + 7));
    n += (size_t)snprintf(xml + n, cap - n, "</edges>\n</net>\n");
    tu_ok(npu_ir_size(&tu_arena, tu_ctx, xml, n, &need), "size");
    mem = aligned_alloc(64, (need + 63) / 64 * 64);
    assert_non_null(mem);
    for (rep = 0; rep < 3; rep++) {
        npu_arena a;
        npu_ir *ir = NULL;
        struct timespec t0, t1;
        double s;
        tu_log_clear();
        assert_int_equal(npu_arena_init(&a, mem, need), NPU_OK);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        tu_ok(npu_ir_load_memory(&a, tu_ctx, xml, n, NULL, 0, &ir), "load");
        clock_gettime(CLOCK_MONOTONIC, &t1);
        s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        if (s < best) best = s;
        if (check_log) {
            tu_expect_log("line 8: edge to-layer 1 to-port 7:");
            tu_expect_log("line 508: edge to-layer 1 to-port 507:");
        }
        npu_ir_close(ir);
    }
    print_message("%zu bytes, %zu warnings: loaded in %.3f s (best of 3)\n", n, edges, best);
    free(mem);
    free(xml);
    return best;
}

static void test_many_warnings_load_in_linear_time(void **state)
{
    double small, big;
    (void)state;
    small = load_edges_seconds(9500, 1);
    big = load_edges_seconds(38000, 1);  /* about 2.5 MB */
    if (big > 8.0 * small + 0.05)
        fail_msg("4x the edges took %.1fx the time (%.3f s vs %.3f s): the load is not linear", big / small, big,
                 small);
}

static void test_export_respects_the_umask(void **state)
{
    char path[300];
    struct stat st;
    npu_model *m = NULL;
    size_t mark = npu_arena_used(&tu_arena);
    mode_t old;
    (void)state;
    tu_ok(npu_model_compile_graph(dev, &tu_arena, tu_graph_affine(&tu_arena, 1), NULL, &m), "compile");
    snprintf(path, sizeof path, "%s/umask.blob", dir);
    old = umask(077);
    tu_ok(npu_model_export_file(m, path), "export 077");
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    umask(002);
    tu_ok(npu_model_export_file(m, path), "export 002");
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0664);
    umask(old);
    npu_model_destroy(m);
    npu_arena_rewind(&tu_arena, mark);
}

/* An exporter killed mid-write leaves "<path>.tmp-<pid>-<n>": the next export
 * to that path removes it once the process is gone (a live one's stays). */
static void test_export_removes_dead_exporters_temp_files(void **state)
{
    char path[300], dead[400], live[400], other[400];
    npu_model *m = NULL;
    size_t mark = npu_arena_used(&tu_arena);
    pid_t p;
    FILE *f;
    (void)state;
    tu_ok(npu_model_compile_graph(dev, &tu_arena, tu_graph_affine(&tu_arena, 1), NULL, &m), "compile");
    snprintf(path, sizeof path, "%s/orphans.blob", dir);
    p = fork();
    if (p == 0) _exit(0);
    assert_int_equal(waitpid(p, NULL, 0), p);
    snprintf(dead, sizeof dead, "%s.tmp-%ld-1a2b", path, (long)p);
    snprintf(live, sizeof live, "%s.tmp-%ld-1a2b", path, (long)getppid());
    snprintf(other, sizeof other, "%s/another.blob.tmp-%ld-1a2b", dir, (long)p);
    f = fopen(dead, "w");
    assert_non_null(f);
    fclose(f);
    f = fopen(live, "w");
    assert_non_null(f);
    fclose(f);
    f = fopen(other, "w");
    assert_non_null(f);
    fclose(f);
    tu_ok(npu_model_export_file(m, path), "export");
    assert_true(access(dead, F_OK) != 0);
    assert_int_equal(access(live, F_OK), 0);    /* its writer lives */
    assert_int_equal(access(other, F_OK), 0);   /* another path's */
    unlink(live);
    unlink(other);
    npu_model_destroy(m);
    npu_arena_rewind(&tu_arena, mark);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifos_are_refused_without_blocking),
        cmocka_unit_test(test_many_warnings_load_in_linear_time),
        cmocka_unit_test(test_export_respects_the_umask),
        cmocka_unit_test(test_export_removes_dead_exporters_temp_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
