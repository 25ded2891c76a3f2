/* The programs a new user runs first: every example and tool, run as a child
 * process on the software NPU, must exit 0 and print what it promises.
 *
 * Binaries are found next to this suite's build directory: build/tests/<this>
 * -> build/examples/, build/tools/ (NPU_BUILD_DIR overrides the build dir). */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "npu.h"

static char build_dir[PATH_MAX];
static char digits_dir[PATH_MAX + 32];   /* <source tree>/data/digits */
static char tmp_dir[] = "/tmp/npu-test-examples-XXXXXX";
static char out[1 << 16];

/* Runs "<build>/<prog> <args>" with stderr folded into stdout; returns the exit
 * status (-1 if it did not exit normally) and leaves the output in `out`. */
static int run(const char *env, const char *prog, const char *args)
{
    char cmd[PATH_MAX * 3];
    snprintf(cmd, sizeof cmd, "%s %s/%s %s 2>&1", env ? env : "", build_dir, prog, args ? args : "");
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    if (st != 0 || getenv("NPU_TEST_VERBOSE")) printf("$ %s\n%s", cmd, out);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect(const char *line)
{
    if (strstr(out, line) == NULL) fail_msg("expected output \"%s\" missing", line);
}

static int count_of(const char *needle)
{
    int n = 0;
    for (const char *p = out; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
    return n;
}

/* A small IR pair (layout A: model.xml + model.bin) written with the graph
 * writer: y = softmax(x . W) with x [1,6], W [6,5]. */
static float ir_weights[6 * 5];
static void write_ir_pair(void)
{
    static _Alignas(16) unsigned char mem[32768];
    static char xml[16384], bin[1024];
    npu_arena a;
    npu_graph *g = NULL;
    for (int i = 0; i < 30; i++) ir_weights[i] = (float)(i % 7) / 7.0f - 0.4f;
    assert_int_equal(npu_arena_init(&a, mem, sizeof mem), NPU_OK);
    assert_int_equal(npu_graph_create(&a, NULL, NULL, &g), NPU_OK);
    npu_shape xs = {2, {1, 6}}, ws = {2, {6, 5}};
    npu_node *x = npu_graph_parameter(g, "x", NPU_F32, &xs, "NC");
    npu_node *w = npu_graph_constant(g, "W", NPU_F32, &ws, ir_weights, sizeof ir_weights);
    npu_graph_result(g, npu_graph_softmax(g, npu_graph_matmul(g, x, w, 0, 0, NULL), 1, NULL), "y");
    assert_int_equal(npu_graph_status(g), NPU_OK);
    npu_payload_options layout_a = {.layout = NPU_PAYLOAD_WEIGHTS_COPY, .weights_threshold_bytes = 0, .compiler_version = 0};
    size_t xml_size, bin_size;
    assert_int_equal(npu_graph_write_xml(g, &layout_a, xml, sizeof xml, &xml_size), NPU_OK);
    assert_int_equal(npu_graph_write_bin(g, bin, sizeof bin, &bin_size), NPU_OK);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/mlp.xml", tmp_dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(xml, 1, xml_size, f), xml_size);
    fclose(f);
    snprintf(path, sizeof path, "%s/mlp.bin", tmp_dir);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bin, 1, bin_size, f), bin_size);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    const char *dir = getenv("NPU_BUILD_DIR");
    if (dir) {
        snprintf(build_dir, sizeof build_dir, "%s", dir);
    } else {
        ssize_t n = readlink("/proc/self/exe", build_dir, sizeof build_dir - 1);
        if (n <= 0) return -1;
        build_dir[n] = '\0';
        for (int up = 0; up < 2; up++) {   /* build/tests/test_examples -> build */
            char *slash = strrchr(build_dir, '/');
            if (slash == NULL) return -1;
            *slash = '\0';
        }
    }
    /* The source tree: the first parent of the build dir holding data/digits. */
    char dir_buf[PATH_MAX];
    snprintf(dir_buf, sizeof dir_buf, "%s", build_dir);
    for (;;) {
        snprintf(digits_dir, sizeof digits_dir, "%s/data/digits", dir_buf);
        char xml[PATH_MAX + 64];
        snprintf(xml, sizeof xml, "%s/digits.xml", digits_dir);
        if (access(xml, R_OK) == 0) break;
        char *slash = strrchr(dir_buf, '/');
        if (slash == NULL || slash == dir_buf) return -1;
        *slash = '\0';
    }
    if (mkdtemp(tmp_dir) == NULL) return -1;
    write_ir_pair();
    return 0;
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 16];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_hello_computes_relu_of_an_affine_map(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, "examples/hello", NULL), 0);
    expect("hello: y = relu(x . W + b) = [4, 9.75, 0]");
    expect("hello: OK");
}

/* Frame k: pixel i = ((i % 4 + k) % 4) / 4 + (i / 4) / 100; the left half
 * (columns 0, 1) of frame 0 sums to 4 x (0 + 0.25) + 2 x 0.06 = 1.12, the
 * right half to 4 x (0.5 + 0.75) + 0.12 = 5.12: means 0.14 and 0.64; frame 2
 * swaps them. */
static void test_frame_fd_runs_frames_from_the_camera_buffer(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, "examples/frame_fd", NULL), 0);
    expect("frame 0 (slot 0): left 0.1400 right 0.6400");
    expect("frame 2 (slot 0): left 0.6400 right 0.1400");
    expect("frame 5 (slot 1): left 0.3900 right 0.3900");
    assert_int_equal(count_of(" ok\n"), 6);
    expect("every answer matches the CPU");
    /* a driver without dma-buf import: said so, not a failure */
    assert_int_equal(run("NPU_SIM_DMA_BUF=0", "examples/frame_fd", NULL), 0);
    expect("cannot import frames from an fd");
}

static void test_ir_file_without_arguments_writes_and_runs_its_own_ir(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, "examples/ir_file", NULL), 0);
    expect("ir_file: loaded ");
    expect("IR v11, 1 inputs, 1 outputs, 3 constants");
    expect("ir_file: output 0 'probabilities' f32 [1,4] 16 bytes");
    expect("ir_file: CPU reference matches");
    expect("ir_file: OK");
}

static void test_ir_file_runs_an_ir_pair_given_on_the_command_line(void **state)
{
    char args[PATH_MAX];
    (void)state;
    snprintf(args, sizeof args, "%s/mlp.xml", tmp_dir);
    assert_int_equal(run(NULL, "examples/ir_file", args), 0);
    expect("ir_file: input 0 'x' f32 [1,6] 24 bytes");
    expect("ir_file: output 0 'y' f32 [1,5] 20 bytes");
    expect("ir_file: OK");
}

static void test_ir_file_names_a_missing_file(void **state)
{
    char args[PATH_MAX];
    (void)state;
    snprintf(args, sizeof args, "%s/absent.xml", tmp_dir);
    assert_int_not_equal(run(NULL, "examples/ir_file", args), 0);
    expect("absent.xml");
}

static void test_blob_export_and_import_give_identical_outputs(void **state)
{
    char args[PATH_MAX];
    (void)state;
    snprintf(args, sizeof args, "%s/conv.blob", tmp_dir);
    assert_int_equal(run(NULL, "examples/blob", args), 0);
    expect("blob: metadata 2.3");
    expect("importable 1");
    expect("blob: outputs of the compiled and the imported model are identical");
    expect("blob: OK");
    assert_int_equal(access(args, R_OK), 0);
}

static void test_async_threads_share_one_model(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, "examples/async", NULL), 0);
    assert_int_equal(count_of(": 50 inferences, 0 mismatches\n"), 4);
    expect("async: 200 inferences in ");
    expect("async: OK");
}

static void test_stateful_accumulates_and_obeys_set_and_reset(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, "examples/stateful", NULL), 0);
    expect("state 0 is 'acc', 16 bytes");
    expect("infer 3                      y = [3, 6, 9, 12] ok");
    expect("state set to 100, infer      y = [101, 102, 103, 104] ok");
    expect("state reset, infer with 2x   y = [2, 4, 6, 8] ok");
    assert_int_equal(count_of(" ok\n"), 6);
    expect("stateful: OK");
}

/* The number after `prefix` and the one after the next '/' ("354/360"). */
static void fraction_after(const char *prefix, int *num, int *den)
{
    const char *p = strstr(out, prefix);
    if (p == NULL) fail_msg("expected output \"%s\" missing", prefix);
    assert_int_equal(sscanf(p + strlen(prefix), "%d/%d", num, den), 2);
}

static void test_demo_classifies_the_held_out_digits_and_restarts_from_the_blob(void **state)
{
    char args[PATH_MAX * 2];
    (void)state;
    snprintf(args, sizeof args, "--data %s --cache-dir %s/demo-cache", digits_dir, tmp_dir);
    assert_int_equal(run(NULL, "examples/demo", args), 0);
    expect("(start 1: load IR + compile + first inference)");
    expect("(start 2: loaded from the cache + first inference)");
    expect("demo: batch 8, debatched by npu (PLUGIN)");
    int correct, n, agree, n2, same, n3;
    fraction_after("demo: accuracy ", &correct, &n);
    char split[PATH_MAX + 64];
    snprintf(split, sizeof split, "%s/test_split.u8", digits_dir);
    struct stat st;
    assert_int_equal(stat(split, &st), 0);
    assert_int_equal(n, st.st_size / 64);     /* the whole held-out split */
    assert_true(correct * 100 >= 95 * n);     /* the goal: >= 95% */
    /* The sim computes in f32 from the f16 weights: the same argmax as the
     * training script's float64 reference, image for image. */
    fraction_after("demo: agrees with the training script's predictions on ", &agree, &n2);
    assert_int_equal(n2, n);
    assert_int_equal(agree, n);
    expect("demo: confusion matrix (rows: true digit, columns: predicted)");
    assert_int_equal(count_of("\n  9: "), 1);
    expect("demo: latency per batch of 8 over ");
    fraction_after("demo: blob restart: ", &same, &n3);
    assert_int_equal(n3, n);
    assert_int_equal(same, n);
    expect("demo: OK");
}

/* The committed PGM images classify (IR path, batch 1, on the sim) to the
 * classes data/digits/expected.txt gives, which the training script computed. */
static void test_demo_classifies_the_committed_pgm_images_as_expected(void **state)
{
    static char args[1 << 14];
    static char files[32][PATH_MAX + 320];
    int want[32], nfiles = 0, pos;
    (void)state;
    char path[PATH_MAX + 64], line[PATH_MAX];
    snprintf(path, sizeof path, "%s/expected.txt", digits_dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    pos = snprintf(args, sizeof args, "--data %s --classify", digits_dir);
    while (fgets(line, sizeof line, f)) {
        char name[256];
        int label, predicted;
        if (line[0] == '#') continue;
        assert_int_equal(sscanf(line, "%255s %d %d", name, &label, &predicted), 3);
        assert_true(nfiles < 32);
        snprintf(files[nfiles], sizeof files[nfiles], "%s/%s", digits_dir, name);
        want[nfiles++] = predicted;
        pos += snprintf(args + pos, sizeof args - (size_t)pos, " %s", files[nfiles - 1]);
        assert_true(pos < (int)sizeof args);
    }
    fclose(f);
    assert_true(nfiles >= 10);
    assert_int_equal(run(NULL, "examples/demo", args), 0);
    for (int i = 0; i < nfiles; i++) {
        const char *p = strstr(out, files[i]);
        int got = -1;
        if (p == NULL) fail_msg("no answer for %s", files[i]);
        assert_int_equal(sscanf(p + strlen(files[i]), ": digit %d (p=", &got), 1);
        if (got != want[i]) fail_msg("%s: digit %d, expected.txt says %d", files[i], got, want[i]);
    }
    assert_int_equal(count_of(": digit "), nfiles);
}

/* The committed images and their expected answers (expected.txt): file names
 * into files[], predicted classes into want[]; returns the count. */
static int read_expected(char files[][PATH_MAX + 320], int *want, int max)
{
    char path[PATH_MAX + 64], line[PATH_MAX];
    int n = 0;
    snprintf(path, sizeof path, "%s/expected.txt", digits_dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f)) {
        char name[256];
        int label, predicted;
        if (line[0] == '#') continue;
        assert_int_equal(sscanf(line, "%255s %d %d", name, &label, &predicted), 3);
        assert_true(n < max);
        snprintf(files[n], PATH_MAX + 320, "%s/%s", digits_dir, name);
        want[n++] = predicted;
    }
    fclose(f);
    return n;
}

/* The answer classify printed for `file`: digit and the probability's text. */
static int answer_of(const char *file, char *prob, size_t cap)
{
    char needle[PATH_MAX + 340];
    int got = -1;
    snprintf(needle, sizeof needle, "%s: digit ", file);
    const char *p = strstr(out, needle);
    if (p == NULL) fail_msg("no answer for %s", file);
    assert_int_equal(sscanf(p + strlen(needle), "%d (p=", &got), 1);
    if (prob != NULL) {
        const char *q = strstr(p, "(p="), *e = q ? strchr(q, ')') : NULL;
        assert_non_null(e);
        snprintf(prob, cap, "%.*s", (int)(e - q - 3), q + 3);
    }
    return got;
}

/* Reads a committed 8x8 PGM (maxval 16): its 64 pixels. */
static void read_pgm8(const char *path, unsigned char *px)
{
    FILE *f = fopen(path, "rb");
    char magic[3];
    int w, h, maxval;
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%2s %d %d %d", magic, &w, &h, &maxval), 4);
    assert_string_equal(magic, "P5");
    assert_true(w == 8 && h == 8 && maxval == 16);
    fgetc(f);
    assert_int_equal(fread(px, 1, 64, f), 64);
    fclose(f);
}

static void write_file(const char *path, const char *header, const unsigned char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(header, f);
    if (n) assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void test_classify_names_the_digit_of_every_committed_image(void **state)
{
    static char files[32][PATH_MAX + 320], args[1 << 14];
    int want[32], n, pos;
    (void)state;
    n = read_expected(files, want, 32);
    assert_true(n >= 10);
    pos = snprintf(args, sizeof args, "--model %s/digits.xml", digits_dir);
    for (int i = 0; i < n; i++) pos += snprintf(args + pos, sizeof args - (size_t)pos, " %s", files[i]);
    assert_true(pos < (int)sizeof args);
    assert_int_equal(run(NULL, "examples/classify", args), 0);
    for (int i = 0; i < n; i++) {
        int got = answer_of(files[i], NULL, 0);
        if (got != want[i]) fail_msg("%s: digit %d, expected.txt says %d", files[i], got, want[i]);
    }
    assert_int_equal(count_of(": digit "), n);
}

/* Other sizes and colour, made here from the committed images: a 16x16 PGM
 * (each pixel doubled: the linear resize back to 8x8, half_pixel, averages
 * equal pixels, so the answer and its probability are the 8x8 image's), a
 * 24x8 PGM (3x horizontally: resized with weights) and 8x8 / 16x16 PPMs whose
 * R, G and B are the gray value (gray = 0.299 R + 0.587 G + 0.114 B). */
static void test_classify_takes_other_sizes_and_colour_images(void **state)
{
    static char files[32][PATH_MAX + 320], args[1 << 15], made[4][32][PATH_MAX + 64];
    static unsigned char px[64], big[16 * 16], wide[8 * 24], rgb[16 * 16 * 3], rgb8[64 * 3];
    int want[32], n, pos;
    (void)state;
    n = read_expected(files, want, 32);
    pos = snprintf(args, sizeof args, "--model %s/digits.xml", digits_dir);
    for (int i = 0; i < n; i++) {
        read_pgm8(files[i], px);
        for (int y = 0; y < 16; y++)
            for (int x = 0; x < 16; x++) {
                big[y * 16 + x] = px[(y / 2) * 8 + x / 2];
                for (int c = 0; c < 3; c++) rgb[(y * 16 + x) * 3 + c] = big[y * 16 + x];
            }
        for (int y = 0; y < 8; y++)
            for (int x = 0; x < 24; x++) wide[y * 24 + x] = px[y * 8 + x / 3];
        for (int k = 0; k < 64; k++)
            for (int c = 0; c < 3; c++) rgb8[k * 3 + c] = px[k];
        snprintf(made[0][i], sizeof made[0][i], "%s/big%02d.pgm", tmp_dir, i);
        write_file(made[0][i], "P5\n# doubled\n16 16\n16\n", big, sizeof big);
        snprintf(made[1][i], sizeof made[1][i], "%s/wide%02d.pgm", tmp_dir, i);
        write_file(made[1][i], "P5 24 8 16\n", wide, sizeof wide);
        snprintf(made[2][i], sizeof made[2][i], "%s/col%02d.ppm", tmp_dir, i);
        write_file(made[2][i], "P6\n8 8\n16\n", rgb8, sizeof rgb8);
        snprintf(made[3][i], sizeof made[3][i], "%s/colbig%02d.ppm", tmp_dir, i);
        write_file(made[3][i], "P6\n16 16\n16\n", rgb, sizeof rgb);
        pos += snprintf(args + pos, sizeof args - (size_t)pos, " %s %s %s %s %s", files[i], made[0][i], made[1][i],
                        made[2][i], made[3][i]);
    }
    assert_true(pos < (int)sizeof args);
    assert_int_equal(run(NULL, "examples/classify", args), 0);
    int wide_same = 0;
    for (int i = 0; i < n; i++) {
        char p8[32], p16[32];
        int d8 = answer_of(files[i], p8, sizeof p8);
        assert_int_equal(d8, want[i]);
        assert_int_equal(answer_of(made[0][i], p16, sizeof p16), d8);
        assert_string_equal(p16, p8);   /* the same f32 input after the resize */
        assert_int_equal(answer_of(made[2][i], NULL, 0), d8);
        assert_int_equal(answer_of(made[3][i], NULL, 0), d8);
        wide_same += answer_of(made[1][i], NULL, 0) == d8;
    }
    /* 3x horizontally, resized with linear weights: the image it sees is the
     * original up to sub-pixel blur; most answers stay. */
    assert_true(wide_same * 10 >= n * 8);
}

static void test_classify_refuses_hostile_images(void **state)
{
    static const unsigned char some[30] = {1, 2, 3};
    char a[PATH_MAX + 64], b[PATH_MAX + 64], c[PATH_MAX + 64], d[PATH_MAX + 64], e[PATH_MAX + 64];
    static char args[8 * PATH_MAX + 1024];
    (void)state;
    snprintf(a, sizeof a, "%s/trunc.pgm", tmp_dir);
    write_file(a, "P5\n8 8\n16\n", some, sizeof some);
    snprintf(b, sizeof b, "%s/huge.pgm", tmp_dir);
    write_file(b, "P5\n4097 99999999999999999999\n255\n", NULL, 0);
    snprintf(c, sizeof c, "%s/ascii.pgm", tmp_dir);
    write_file(c, "P2\n8 8\n16\n", NULL, 0);
    snprintf(d, sizeof d, "%s/deep.pgm", tmp_dir);
    write_file(d, "P5\n8 8\n65535\n", some, sizeof some);
    snprintf(e, sizeof e, "%s/bright.pgm", tmp_dir);
    write_file(e, "P5\n5 6\n2\n", some, sizeof some);   /* pixel 3 > maxval 2 */
    snprintf(args, sizeof args, "--model %s/digits.xml %s %s %s %s %s", digits_dir, a, b, c, d, e);
    assert_int_equal(run(NULL, "examples/classify", args), 1);
    expect("trunc.pgm: truncated: 30 of 64 pixel bytes");
    expect("huge.pgm: bad width or height (1 to 4096)");
    expect("ascii.pgm: not a binary PGM (P5) or PPM (P6)");
    expect("deep.pgm: 16-bit samples (maxval > 255) are not supported");
    expect("bright.pgm: pixel 2 is 3, above maxval 2");
    assert_int_equal(count_of(": digit "), 0);
}

static void test_npu_info_lists_the_device_and_its_properties(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, "tools/npu-info", NULL), 0);
    if (getenv("ZE_ENABLE_ALT_DRIVERS")) {   /* the sim is the only driver */
        expect("Level Zero drivers: 1");
        expect("NPU device (software NPU");
    }
    expect("graph extension:       1.");
    expect("optimal requests:      LATENCY 1, THROUGHPUT ");
    expect("FULL_DEVICE_NAME");
    expect("OPTIMAL_NUMBER_OF_INFER_REQUESTS");
    assert_int_equal(run(NULL, "tools/npu-info", "--quiet"), 0);
    assert_string_equal(out, "");
}

static void test_npu_info_quiet_fails_without_a_driver(void **state)
{
    (void)state;
    /* An empty-directory driver path: the loader finds no driver at all. */
    char env[PATH_MAX];
    snprintf(env, sizeof env, "ZE_ENABLE_ALT_DRIVERS=%s/no-such-driver.so", tmp_dir);
    assert_int_equal(run(env, "tools/npu-info", "--quiet"), 1);
    assert_int_equal(run(env, "tools/npu-info", NULL), 1);
    expect("No NPU: ");
}

static void test_npu_run_reports_json_for_an_ir(void **state)
{
    char args[PATH_MAX];
    (void)state;
    snprintf(args, sizeof args, "-m %s/mlp.xml -n 40 -r 3 --json", tmp_dir);
    assert_int_equal(run(NULL, "tools/npu-run", args), 0);
    expect("\"source\": \"ir\"");
    expect("\"requests\": 3");
    expect("\"iterations\": 40");
    const char *l = strstr(out, "\"latency_ms\": {");
    assert_non_null(l);
    double mn, med, p90, mx;
    assert_int_equal(sscanf(l, "\"latency_ms\": {\"min\": %lf, \"median\": %lf, \"p90\": %lf, \"max\": %lf",
                            &mn, &med, &p90, &mx), 4);
    assert_true(mn > 0 && mn <= med && med <= p90 && p90 <= mx);
    const char *t = strstr(out, "\"throughput_ips\": ");
    assert_non_null(t);
    assert_true(strtod(t + 18, NULL) > 0);
    expect("\"feil_ms\": ");
}

static void test_npu_run_batch_mode_and_cache_dir(void **state)
{
    char args[PATH_MAX * 2];
    (void)state;
    /* The IR names N on its input only: PLUGIN needs the output's too. */
    snprintf(args, sizeof args, "-m %s/mlp.xml -n 5 -b 4 --batch-mode plugin", tmp_dir);
    assert_int_equal(run(NULL, "tools/npu-run", args), 1);
    expect("output 'y' has no layout naming N");
    expect("npu-run --layout");
    snprintf(args, sizeof args, "-m %s/mlp.xml -n 5 -b 4 --batch-mode plugin --cache-dir %s/run-cache --layout [N,C]",
             tmp_dir, tmp_dir);
    assert_int_equal(run(NULL, "tools/npu-run", args), 0);
    expect("batch: 4, debatched by npu (PLUGIN)");
    expect("batch mode: PLUGIN (asked: PLUGIN): batch 4");
    expect("FEIL (compile): load ");
    /* The second run imports the compiled model from the cache: FIL. */
    assert_int_equal(run(NULL, "tools/npu-run", args), 0);
    expect("(from the cache in ");
    expect("batch: 4, debatched by npu (PLUGIN)");
    expect("FIL (cache hit): load ");
    /* Per-name entries, as benchmark_app's -layout. */
    snprintf(args, sizeof args, "-m %s/mlp.xml -n 2 -b 4 --layout x[NC],y[N,C]", tmp_dir);
    assert_int_equal(run(NULL, "tools/npu-run", args), 0);
    expect("batch mode: PLUGIN (asked: AUTO)");
    expect("iterations: 2 in ");
    expect("batch 4");
    snprintf(args, sizeof args, "-m %s/mlp.xml -n 5 -b 4 --batch-mode compiler --cache-dir %s/run-cache --json",
             tmp_dir, tmp_dir);
    assert_int_equal(run(NULL, "tools/npu-run", args), 0);
    expect("\"feil_ms\": ");
    assert_int_equal(run(NULL, "tools/npu-run", args), 0);
    expect("\"fil_ms\": ");
    assert_int_equal(run(NULL, "tools/npu-run", "-m x.xml --batch-mode sometimes"), 2);
    expect("bad value 'sometimes'");
}

static void test_npu_run_imports_a_blob_and_reads_input_files(void **state)
{
    char args[PATH_MAX * 2];
    (void)state;
    snprintf(args, sizeof args, "%s/run.blob", tmp_dir);
    assert_int_equal(run(NULL, "examples/blob", args), 0);
    /* The blob example's input is [1,3,16,16] f32: 3072 bytes. */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/image.raw", tmp_dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    static float image[3 * 16 * 16];
    assert_int_equal(fwrite(image, 1, sizeof image, f), sizeof image);
    fclose(f);
    snprintf(args, sizeof args, "-m %s/run.blob -i %s -n 10 -q", tmp_dir, path);
    assert_int_equal(run(NULL, "tools/npu-run", args), 0);
    expect("FIL (import): load ");
    expect("iterations: 10 in ");
    expect("latency: min ");

    /* A file of the wrong size is refused, naming the input and the sizes. */
    snprintf(args, sizeof args, "-m %s/run.blob -i %s/mlp.bin -n 1", tmp_dir, tmp_dir);
    assert_int_equal(run(NULL, "tools/npu-run", args), 2);
    expect("input 'image' needs exactly 3072 bytes");
}

static void test_npu_run_rejects_bad_usage(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, "tools/npu-run", "-n 5"), 2);
    expect("usage:");
    assert_int_equal(run(NULL, "tools/npu-run", "-m x.xml --hint fast"), 2);
    expect("bad value 'fast'");
    assert_int_equal(run(NULL, "tools/npu-run", "-m x.xml --layout x[NC"), 2);
    expect("expected name[LAYOUT] or [LAYOUT]");
}

/* A weights input [490,608,1,1] without a layout is not a batch of 490: not
 * debatched, and neither the batch nor the throughput multiply by 490. */
static void test_npu_run_weight_input_is_not_a_batch(void **state)
{
    const char *root = getenv("NPU_SHARED_DATA");
    char args[PATH_MAX * 2];
    (void)state;
    if (root == NULL) {
        print_message("skipped: NPU_SHARED_DATA is not set: it names the shared IR corpus (../shared/data in CI)\n");
        skip();
    }
    snprintf(args, sizeof args, "%s/ovir/conv_with_rt_info.xml", root);
    if (access(args, R_OK) != 0) {
        print_message("skipped: %s not found: the shared IR corpus (../shared/data in CI, or NPU_SHARED_DATA)\n", args);
        skip();
    }
    snprintf(args, sizeof args, "-m %s/ovir/conv_with_rt_info.xml -n 1 -r 1", root);
    assert_int_equal(run(NULL, "tools/npu-run", args), 0);
    expect("batch mode: none (asked: AUTO): no input has a layout naming N");
    expect("input  0 'Parameter_69' f32 [490,608,1,1] \n");
    expect(", 1 request, batch 1\n");
    if (strstr(out, "frames/s") != NULL) fail_msg("a batch was claimed:\n%s", out);
    /* A layout naming C only is no batch either. */
    snprintf(args, sizeof args, "-m %s/ovir/conv_with_rt_info.xml -n 1 -r 1 --layout Parameter_69[OIHW] --json", root);
    assert_int_equal(run(NULL, "tools/npu-run", args), 0);
    expect("\"batch\": 1,");
    expect("\"batch_mode\": \"none\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hello_computes_relu_of_an_affine_map),
        cmocka_unit_test(test_frame_fd_runs_frames_from_the_camera_buffer),
        cmocka_unit_test(test_ir_file_without_arguments_writes_and_runs_its_own_ir),
        cmocka_unit_test(test_ir_file_runs_an_ir_pair_given_on_the_command_line),
        cmocka_unit_test(test_ir_file_names_a_missing_file),
        cmocka_unit_test(test_blob_export_and_import_give_identical_outputs),
        cmocka_unit_test(test_async_threads_share_one_model),
        cmocka_unit_test(test_stateful_accumulates_and_obeys_set_and_reset),
        cmocka_unit_test(test_demo_classifies_the_held_out_digits_and_restarts_from_the_blob),
        cmocka_unit_test(test_demo_classifies_the_committed_pgm_images_as_expected),
        cmocka_unit_test(test_classify_names_the_digit_of_every_committed_image),
        cmocka_unit_test(test_classify_takes_other_sizes_and_colour_images),
        cmocka_unit_test(test_classify_refuses_hostile_images),
        cmocka_unit_test(test_npu_info_lists_the_device_and_its_properties),
        cmocka_unit_test(test_npu_info_quiet_fails_without_a_driver),
        cmocka_unit_test(test_npu_run_reports_json_for_an_ir),
        cmocka_unit_test(test_npu_run_batch_mode_and_cache_dir),
        cmocka_unit_test(test_npu_run_imports_a_blob_and_reads_input_files),
        cmocka_unit_test(test_npu_run_rejects_bad_usage),
        cmocka_unit_test(test_npu_run_weight_input_is_not_a_batch),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
