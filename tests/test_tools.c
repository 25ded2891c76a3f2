/* The command-line tools (npu-compile, npu-info, npu-run) run as child
 * processes on the software NPU: results on stdout, one line per error on
 * stderr, the documented exit codes, valid JSON with --json (also on failure),
 * a compile -> blob -> npu-run round trip, and bad inputs (missing file,
 * directory, FIFO, not an IR, truncated .bin, foreign or malformed blob)
 * refused without hanging.
 *
 * Binaries are found next to this suite's build directory: build/tests/<this>
 * -> build/tools/ (NPU_BUILD_DIR overrides the build dir). Every command runs
 * under timeout(1), so a tool that blocks fails the test instead of hanging it.
 *
 * npu-info's diagnosis runs against fake roots (NPU_INFO_ROOT) that hold
 * dev/, sys/, proc/, etc/ and lib directories. */
#include <ctype.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
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
static char tmp_dir[] = "/tmp/npu-test-tools-XXXXXX";
static char out[1 << 16], err[1 << 16];

static void slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = '\0';
    if (f) fclose(f);
}

/* Runs "<env> timeout 60 <build>/tools/<prog> <args>": stdout into `out`,
 * stderr into `err`; returns the exit status (-1 if it did not exit). */
static int run(const char *env, const char *prog, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int run(const char *env, const char *prog, const char *fmt, ...)
{
    char args[PATH_MAX * 4], cmd[PATH_MAX * 8], err_path[PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", tmp_dir);
    snprintf(cmd, sizeof cmd, "%s timeout 60 %s/tools/%s %s 2>%s", env ? env : "", build_dir, prog, args, err_path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    slurp(err_path, err, sizeof err);
    if (getenv("NPU_TEST_VERBOSE")) printf("$ %s\n[exit %d]\n%s[stderr]\n%s", cmd, WEXITSTATUS(st), out, err);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect_in(const char *buf, const char *what, const char *needle)
{
    if (strstr(buf, needle) == NULL) fail_msg("expected \"%s\" in %s:\n%s", needle, what, buf);
}
#define expect_out(s) expect_in(out, "stdout", s)
#define expect_err(s) expect_in(err, "stderr", s)

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* stderr is exactly one line and says `needle`. */
static void expect_one_error_line(const char *needle)
{
    if (lines(err) != 1) fail_msg("expected one line on stderr, got:\n%s", err);
    expect_err(needle);
}

/* ---- a small JSON validator (RFC 8259 syntax) ---- */
static const char *js;
static int json_value(int depth);
static void json_ws(void)
{
    while (*js == ' ' || *js == '\t' || *js == '\n' || *js == '\r') js++;
}
static int json_str(void)
{
    if (*js++ != '"') return 0;
    while (*js && *js != '"') {
        if ((unsigned char)*js < 0x20) return 0;
        if (*js == '\\') {
            js++;
            if (*js == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)js[i])) return 0;
                js += 4;
            } else if (!strchr("\"\\/bfnrt", *js) || !*js) {
                return 0;
            }
        }
        js++;
    }
    return *js++ == '"';
}
static int json_num(void)
{
    const char *s = js;
    if (*js == '-') js++;
    if (!isdigit((unsigned char)*js)) return 0;
    while (isdigit((unsigned char)*js)) js++;
    if (*js == '.') {
        js++;
        if (!isdigit((unsigned char)*js)) return 0;
        while (isdigit((unsigned char)*js)) js++;
    }
    if (*js == 'e' || *js == 'E') {
        js++;
        if (*js == '+' || *js == '-') js++;
        if (!isdigit((unsigned char)*js)) return 0;
        while (isdigit((unsigned char)*js)) js++;
    }
    return js > s;
}
static int json_value(int depth)
{
    if (depth > 64) return 0;
    json_ws();
    if (*js == '{' || *js == '[') {
        char close = *js == '{' ? '}' : ']';
        int object = *js == '{';
        js++;
        json_ws();
        if (*js == close) {
            js++;
            return 1;
        }
        for (;;) {
            if (object) {
                json_ws();
                if (!json_str()) return 0;
                json_ws();
                if (*js++ != ':') return 0;
            }
            if (!json_value(depth + 1)) return 0;
            json_ws();
            if (*js == ',') {
                js++;
                continue;
            }
            return *js++ == close;
        }
    }
    if (*js == '"') return json_str();
    if (!strncmp(js, "true", 4)) return js += 4, 1;
    if (!strncmp(js, "false", 5)) return js += 5, 1;
    if (!strncmp(js, "null", 4)) return js += 4, 1;
    return json_num();
}
/* stdout is exactly one valid JSON object. */
static void expect_json(void)
{
    js = out;
    json_ws();
    if (*js != '{' || !json_value(0)) fail_msg("stdout is not valid JSON (at offset %td):\n%s", js - out, out);
    json_ws();
    if (*js != '\0') fail_msg("trailing bytes after the JSON object:\n%s", out);
}

/* ---- fixtures ---- */

static void path_of(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", tmp_dir, name); }

static void write_file(const char *name, const void *data, size_t size)
{
    char path[PATH_MAX];
    path_of(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

static long file_size(const char *name)
{
    char path[PATH_MAX];
    struct stat sb;
    path_of(path, sizeof path, name);
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* y = softmax(x . W), x [1,6] "NC", W [6,5]: mlp.xml + mlp.bin (layout A). */
static float ir_weights[6 * 5];
static size_t bin_size;
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
    size_t xml_size;
    assert_int_equal(npu_graph_write_xml(g, &layout_a, xml, sizeof xml, &xml_size), NPU_OK);
    assert_int_equal(npu_graph_write_bin(g, bin, sizeof bin, &bin_size), NPU_OK);
    write_file("mlp.xml", xml, xml_size);
    write_file("mlp.bin", bin, bin_size);
    /* The same model as IR v10, whose precisions the compiler converts. */
    char *v = strstr(xml, "version=\"11\"");
    assert_non_null(v);
    v[10] = '0';
    write_file("v10.xml", xml, xml_size);
    write_file("v10.bin", bin, bin_size);
    /* The same XML with a .bin too short for W. */
    write_file("short.xml", xml, xml_size);
    write_file("short.bin", bin, bin_size / 2);
    write_file("notir.xml", "this is not XML\n", 16);
    char path[PATH_MAX];
    path_of(path, sizeof path, "fifo.xml");
    assert_int_equal(mkfifo(path, 0600), 0);
    path_of(path, sizeof path, "fifo.blob");
    assert_int_equal(mkfifo(path, 0600), 0);
    path_of(path, sizeof path, "adir.xml");
    assert_int_equal(mkdir(path, 0700), 0);
    unsigned char junk[3000];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = (unsigned char)(i * 37 + 11);
    write_file("foreign.blob", junk, sizeof junk);
    write_file("empty.blob", "", 0);

    /* dyn.xml: the same model with a dynamic batch, x [?,6] "NC" -> y [?,5] "NC". */
    assert_int_equal(npu_arena_init(&a, mem, sizeof mem), NPU_OK);
    assert_int_equal(npu_graph_create(&a, NULL, NULL, &g), NPU_OK);
    npu_shape dyn = {2, {NPU_DIM_DYNAMIC, 6}};
    x = npu_graph_parameter(g, "x", NPU_F32, &dyn, "NC");
    w = npu_graph_constant(g, "W", NPU_F32, &ws, ir_weights, sizeof ir_weights);
    npu_node *y = npu_graph_result(g, npu_graph_softmax(g, npu_graph_matmul(g, x, w, 0, 0, NULL), 1, NULL), "y");
    assert_int_equal(npu_graph_set_layout(y, "NC"), NPU_OK);
    assert_int_equal(npu_graph_status(g), NPU_OK);
    assert_int_equal(npu_graph_write_xml(g, &layout_a, xml, sizeof xml, &xml_size), NPU_OK);
    assert_int_equal(npu_graph_write_bin(g, bin, sizeof bin, &bin_size), NPU_OK);
    write_file("dyn.xml", xml, xml_size);
    write_file("dyn.bin", bin, bin_size);
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
        for (int up = 0; up < 2; up++) {   /* build/tests/test_tools -> build */
            char *slash = strrchr(build_dir, '/');
            if (slash == NULL) return -1;
            *slash = '\0';
        }
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

/* ---- npu-compile ---- */

/* --weights-copy yes (layout A) throughout: it compiles on every sim profile. */
static void test_compile_round_trip_through_npu_run_and_check_blob(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml -o %s/mlp.blob --weights-copy yes", tmp_dir, tmp_dir), 0);
    expect_out("compiled ");
    expect_out("input  0 'x' f32 NC");
    expect_out("wrote ");
    expect_out("bytes (blob with OVNPU metadata)");
    assert_true(file_size("mlp.blob") > 0);
    char size_text[64];
    snprintf(size_text, sizeof size_text, ": %ld bytes", file_size("mlp.blob"));
    expect_out(size_text);   /* the size printed is the size written */

    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.blob -n 5 -q", tmp_dir), 0);
    expect_out("FIL (import): load ");
    expect_out("iterations: 5 in ");

    assert_int_equal(run(NULL, "npu-info", "--check-blob %s/mlp.blob", tmp_dir), 0);
    expect_out("metadata:         OVNPU 2.3");
    expect_out("will import: yes");
    assert_string_equal(err, "");
    assert_int_equal(run(NULL, "npu-info", "--check-blob %s/mlp.blob --json", tmp_dir), 0);
    expect_json();
    expect_out("\"will_import\": true");

    /* Without -o: the model's name with .blob, next to it. */
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml -q --weights-copy yes", tmp_dir), 0);
    assert_true(file_size("mlp.blob") > 0);
}

static void test_compile_options_reach_the_blob(void **state)
{
    (void)state;
    write_file("compile.cfg", "# compile_tool style\nPERFORMANCE_HINT LATENCY\n\n", 46);
    assert_int_equal(run(NULL, "npu-compile",
                         "-m %s/mlp.xml -o %s/b2.blob --weights-copy yes --json -layout x[NC],y[NC] "
                         "-c PERFORMANCE_HINT=THROUGHPUT -c %s/compile.cfg --batch-mode plugin -b 2",
                         tmp_dir, tmp_dir, tmp_dir),
                     0);
    expect_json();
    expect_out("\"ok\": true");
    expect_out("\"batch\": 2");
    expect_out("\"batch_mode\": \"plugin\"");
    expect_out("\"blob_bytes\": ");
    expect_out("\"compile_ms\": ");
    /* The batch and its mode travel in the metadata: npu-run debatches the blob. */
    assert_int_equal(run(NULL, "npu-run", "-m %s/b2.blob -n 3", tmp_dir), 0);
    expect_out("batch: 2, debatched by npu (PLUGIN)");
    expect_out("input  0 'x' f32 [2,6] NC");
    assert_int_equal(run(NULL, "npu-info", "--check-blob %s/b2.blob", tmp_dir), 0);
    expect_out("batch:            2");

    /* Precisions on an IR v11 file: npu-compile puts the Convert layers into
     * the model (as compile_tool's PrePostProcessor does; the compiler itself
     * converts only for IR v10), and the blob has the asked precisions. */
    assert_int_equal(run(NULL, "npu-compile",
                         "-m %s/mlp.xml -o %s/p8.blob --weights-copy yes -iop x:U8 -op FP16 -il NC -ol NC "
                         "--hint throughput --batch-mode compiler -q",
                         tmp_dir, tmp_dir),
                     0);
    assert_int_equal(run(NULL, "npu-run", "-m %s/p8.blob -n 1", tmp_dir), 0);
    expect_out("input  0 'x' u8 [1,6] NC");
    expect_out("output 0 'y' f16 [1,5]");
    /* Layouts for all inputs and outputs and the hint alone compile. */
    assert_int_equal(run(NULL, "npu-compile",
                         "-m %s/mlp.xml -o %s/p.blob --weights-copy yes -il NC -ol NC "
                         "--hint throughput --batch-mode compiler -q",
                         tmp_dir, tmp_dir),
                     0);
    assert_int_equal(run(NULL, "npu-run", "-m %s/p.blob -n 2 -q", tmp_dir), 0);
}

/* A failed compile leaves the old output intact and no temporary file. */
static void test_compile_failure_keeps_the_old_output(void **state)
{
    (void)state;
    write_file("keep.blob", "old", 3);
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml -o %s/keep.blob --weights-copy yes -c NPU_NO_SUCH_KEY=1 -q",
                         tmp_dir, tmp_dir),
                     1);
    expect_one_error_line("NPU_NO_SUCH_KEY");
    assert_int_equal(file_size("keep.blob"), 3);
    char pattern[PATH_MAX];
    glob_t g;
    snprintf(pattern, sizeof pattern, "%s/keep.blob.tmp*", tmp_dir);
    assert_int_equal(glob(pattern, 0, NULL, &g), GLOB_NOMATCH);
    globfree(&g);

    /* --json: the failure is one JSON object with an "error" member. */
    assert_int_equal(run(NULL, "npu-compile",
                         "-m %s/mlp.xml -o %s/keep.blob --weights-copy yes -c NPU_NO_SUCH_KEY=1 --json", tmp_dir, tmp_dir),
                     1);
    expect_json();
    expect_out("\"ok\": false");
    expect_out("\"error\": ");

    /* An output directory that does not exist: an I/O failure, exit 1. */
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml -o %s/no/such/dir.blob --weights-copy yes -q", tmp_dir,
                         tmp_dir),
                     1);
    expect_one_error_line("no/such/dir.blob");
}

static void test_compile_refuses_bad_inputs_with_one_line(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, "npu-compile", "-m %s/absent.xml", tmp_dir), 2);
    expect_one_error_line("absent.xml: No such file or directory");
    assert_int_equal(run(NULL, "npu-compile", "-m %s/adir.xml", tmp_dir), 2);
    expect_one_error_line("is a directory");
    assert_int_equal(run(NULL, "npu-compile", "-m %s/fifo.xml", tmp_dir), 2);   /* never blocks */
    expect_one_error_line("not a regular file");
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml -w %s/fifo.blob", tmp_dir, tmp_dir), 2);
    expect_one_error_line("not a regular file");
    assert_int_equal(run(NULL, "npu-compile", "-m %s/notir.xml", tmp_dir), 2);
    expect_one_error_line("not a readable IR");
    assert_int_equal(run(NULL, "npu-compile", "-m %s/short.xml -o %s/short.blob", tmp_dir, tmp_dir), 2);
    expect_one_error_line("short");
    assert_int_equal(file_size("short.blob"), -1);
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml -o %s", tmp_dir, tmp_dir), 2);
    expect_one_error_line("not a regular file");

    /* Usage errors. */
    assert_int_equal(run(NULL, "npu-compile", "%s", ""), 2);
    expect_err("-m model.xml is required");
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml --batch-mode none", tmp_dir), 2);
    expect_one_error_line("--batch-mode");
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml -ip FP99", tmp_dir), 2);
    expect_one_error_line("FP99");
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml -layout nope[NC] --weights-copy yes", tmp_dir), 2);
    expect_one_error_line("no input or output named 'nope'");
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml -layout x[NCHW] --weights-copy yes", tmp_dir), 2);
    expect_one_error_line("layout NCHW");
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml --frobnicate", tmp_dir), 2);
    expect_one_error_line("unknown option");
    assert_int_equal(run(NULL, "npu-compile", "-m %s/absent.xml --json", tmp_dir), 2);
    expect_json();
    expect_out("\"error\": ");
}

static void test_compile_target_platform_is_the_opened_device(void **state)
{
    (void)state;
    assert_int_equal(run("NPU_SIM_PLATFORM=3720", "npu-compile",
                         "-m %s/mlp.xml -o %s/t.blob --weights-copy yes -d NPU.4000 -q", tmp_dir, tmp_dir),
                     1);
    expect_one_error_line("the opened NPU is platform 3720");
    assert_int_equal(file_size("t.blob"), -1);
    assert_int_equal(run("NPU_SIM_PLATFORM=4000", "npu-compile",
                         "-m %s/mlp.xml -o %s/t.blob --weights-copy yes -d NPU.4000", tmp_dir, tmp_dir),
                     0);
    expect_out("platform 4000");
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml -o %s/t.blob --weights-copy yes -d NPU -q", tmp_dir,
                         tmp_dir),
                     0);
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml -o %s/t.blob --weights-copy yes -d GPU", tmp_dir, tmp_dir),
                     2);
    expect_one_error_line("-d GPU");
}

/* ---- npu-run ---- */

/* Exit 2: the files themselves are unusable (found before the NPU is used);
 * exit 1: the driver refuses what it was given. */
static void test_run_refuses_bad_inputs_with_one_line(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, "npu-run", "-m %s/absent.blob", tmp_dir), 2);
    expect_one_error_line("absent.blob: No such file or directory");
    assert_int_equal(run(NULL, "npu-run", "-m %s/adir.xml", tmp_dir), 2);
    expect_one_error_line("is a directory");
    assert_int_equal(run(NULL, "npu-run", "-m %s/fifo.blob", tmp_dir), 2);   /* never blocks */
    expect_one_error_line("not a regular file");
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -w %s/fifo.blob -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("not a regular file");
    assert_int_equal(run(NULL, "npu-run", "-m %s/notir.xml -q", tmp_dir), 2);
    expect_one_error_line("notir.xml: not a readable IR");
    assert_int_equal(run(NULL, "npu-run", "-m %s/short.xml -q", tmp_dir), 2);   /* .bin too short for W */
    expect_one_error_line("short");
    assert_int_equal(run(NULL, "npu-run", "-m %s/empty.blob -q", tmp_dir), 2);
    expect_one_error_line("an empty file");
    assert_int_equal(run(NULL, "npu-run", "-m %s/foreign.blob -q", tmp_dir), 1);
    expect_one_error_line("import failed");
    /* The same failures as JSON: one object with the error, never nothing. */
    assert_int_equal(run(NULL, "npu-run", "-m %s/short.xml --json", tmp_dir), 2);
    expect_json();
    expect_out("\"ok\": false, \"exit_code\": 2");
    expect_out("\"error\": ");
    assert_int_equal(run(NULL, "npu-run", "-m %s/foreign.blob -json -q", tmp_dir), 1);
    expect_json();
    expect_out("\"exit_code\": 1");
    expect_out("import failed");

    /* Usage errors: one line each. */
    assert_int_equal(run(NULL, "npu-run", "%s", ""), 2);   /* the usage, then the error */
    expect_err("usage: ");
    expect_err("npu-run: -m MODEL is required\n");
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml --frobnicate", tmp_dir), 2);
    expect_one_error_line("unknown option --frobnicate");
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -latency_percentile 0", tmp_dir), 2);
    expect_one_error_line("bad value '0' for -latency_percentile");
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -ip f99", tmp_dir), 2);
    expect_one_error_line("bad value 'f99' for -ip");
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -shape [1..4,6]", tmp_dir), 2);
    expect_one_error_line("dim ranges");
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -shape [2,6] -b 2", tmp_dir), 2);
    expect_one_error_line("-b or -shape");
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -d GPU", tmp_dir), 2);
    expect_one_error_line("bad value 'GPU' for -d");
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -n 0 --json", tmp_dir), 2);
    expect_json();
    expect_out("bad value '0' for -n");
}

/* ---- .npy files, written and read here independently of the tool ---- */

static size_t npy_bytes(char *dst, const char *descr, const char *shape, const void *data, size_t n)
{
    int h = snprintf(dst + 10, 200, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape);
    while ((10 + h + 1) % 64) dst[10 + h++] = ' ';
    dst[10 + h++] = '\n';
    memcpy(dst, "\x93NUMPY\x01\x00", 8);
    dst[8] = (char)(h & 0xff);
    dst[9] = (char)(h >> 8);
    memcpy(dst + 10 + h, data, n);
    return 10 + (size_t)h + n;
}

static void write_npy(const char *name, const char *descr, const char *shape, const void *data, size_t n)
{
    static char buf[1 << 14];
    write_file(name, buf, npy_bytes(buf, descr, shape, data, n));
}

/* Reads tmp_dir/<name>: checks the header holds `descr` and `shape` and that
 * the data is 64-byte aligned and exactly `n` bytes; copies it into dst. */
static void read_npy(const char *name, const char *descr, const char *shape, void *dst, size_t n)
{
    static char buf[1 << 14];
    char path[PATH_MAX], want[128];
    path_of(path, sizeof path, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL) fail_msg("%s was not written", path);
    size_t got = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(got >= 10);
    assert_memory_equal(buf, "\x93NUMPY\x01\x00", 8);
    size_t h = (size_t)(unsigned char)buf[8] | (size_t)(unsigned char)buf[9] << 8;
    assert_int_equal((10 + h) % 64, 0);
    assert_true(10 + h <= got);
    char header[512];
    assert_true(h < sizeof header);
    memcpy(header, buf + 10, h);
    header[h] = '\0';
    snprintf(want, sizeof want, "'descr': '%s'", descr);
    expect_in(header, name, want);
    snprintf(want, sizeof want, "'shape': %s", shape);
    expect_in(header, name, want);
    expect_in(header, name, "'fortran_order': False");
    assert_int_equal(got - 10 - h, n);
    memcpy(dst, buf + 10 + h, n);
}

/* softmax(x . W) of the fixture's model, for `rows` rows of 6. */
static void expected_y(const float *x, int rows, double *y)
{
    for (int r = 0; r < rows; r++) {
        double z[5], max = -1e30, sum = 0;
        for (int c = 0; c < 5; c++) {
            z[c] = 0;
            for (int k = 0; k < 6; k++) z[c] += (double)x[r * 6 + k] * (double)ir_weights[k * 5 + c];
            if (z[c] > max) max = z[c];
        }
        for (int c = 0; c < 5; c++) sum += exp(z[c] - max);
        for (int c = 0; c < 5; c++) y[r * 5 + c] = exp(z[c] - max) / sum;
    }
}

static void expect_y(const float *got, const float *x, int rows)
{
    double want[5 * 8];
    expected_y(x, rows, want);
    for (int i = 0; i < rows * 5; i++)
        if (fabs((double)got[i] - want[i]) > 1e-4) fail_msg("y[%d] = %g, expected %g", i, (double)got[i], want[i]);
}

static void test_run_reads_npy_and_raw_inputs_and_dumps_outputs(void **state)
{
    (void)state;
    float x[3 * 6], y[3 * 5];
    for (int i = 0; i < 18; i++) x[i] = (float)(i % 6) * 0.3f - 0.7f + (float)(i / 6) * 0.5f;
    write_npy("x.npy", "<f4", "(1, 6)", x, 6 * sizeof(float));
    write_file("x.raw", x, 6 * sizeof(float));

    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -i %s/x.npy -o %s/out -n 3", tmp_dir, tmp_dir, tmp_dir), 0);
    expect_out("input  0 'x' f32 [1,6] NC\n");
    expect_out("data: input 'x' [1,6] from ");
    expect_out("/x.npy\n");
    expect_out("/out/y.npy: output 'y' f32 [1,5], 20 bytes of data\n");   /* says what it wrote */
    read_npy("out/y.npy", "<f4", "(1, 5)", y, sizeof(float) * 5);
    expect_y(y, x, 1);
    /* Progress on stderr, results on stdout. */
    expect_err("npu-run: compiling ");
    expect_err("npu-run: running 3 inferences");
    assert_null(strstr(out, "running"));

    /* The raw bytes, by name, into an existing directory: the same answer. */
    char path[PATH_MAX];
    path_of(path, sizeof path, "out/y.npy");
    assert_int_equal(unlink(path), 0);
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -i x:%s/x.raw --dump-output %s/out -n 1 -q", tmp_dir, tmp_dir,
                         tmp_dir),
                     0);
    read_npy("out/y.npy", "<f4", "(1, 5)", y, sizeof(float) * 5);
    expect_y(y, x, 1);

    /* --json: the files written are in the object. */
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -i %s/x.npy -o %s/out -n 1 --json", tmp_dir, tmp_dir, tmp_dir),
                     0);
    expect_json();
    expect_out("\"outputs\": [{\"name\": \"y\", \"type\": \"f32\", \"shape\": [1,5], \"layout\": \"\", \"file\": \"");
    expect_out("/out/y.npy\"}]");
    expect_out("\"data\": \"");

    /* An output directory that is a file: refused before the compile. */
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -o %s/x.raw -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("exists and is not a directory");
}

/* Every input file is checked before the NPU is opened: with no driver at all
 * a bad file still gets its own message and exit 2, and a good one gets as far
 * as the missing NPU (exit 1). */
static void test_run_checks_inputs_before_the_npu(void **state)
{
    (void)state;
    char env[PATH_MAX];
    snprintf(env, sizeof env, "ZE_ENABLE_ALT_DRIVERS=%s/no-such-driver.so", tmp_dir);
    float x[12] = {0};
    int32_t xi[6] = {0};
    write_npy("ok.npy", "<f4", "(1, 6)", x, 24);
    write_npy("i32.npy", "<i4", "(1, 6)", xi, 24);
    write_npy("rows2.npy", "<f4", "(2, 6)", x, 48);
    write_npy("rank3.npy", "<f4", "(1, 6, 1)", x, 24);
    write_file("short.raw", x, 20);

    assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i %s/ok.npy -q", tmp_dir, tmp_dir), 1);
    expect_one_error_line("no NPU");
    assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i %s/i32.npy -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("input 'x' takes f32 [1,6] (.npy '<f4'), the file holds '<i4' [1,6]");
    assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i %s/rows2.npy -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("the file holds '<f4' [2,6]");
    assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i %s/rank3.npy -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("the file holds '<f4' [1,6,1]");
    assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i %s/short.raw -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("input 'x' needs exactly 24 bytes (f32 [1,6]), the file has 20");
    assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i %s/absent.npy -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("absent.npy: No such file or directory");
    assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i %s/adir.xml -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("is a directory");
    assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i %s/fifo.blob -q", tmp_dir, tmp_dir), 2);   /* no block */
    expect_one_error_line("not a regular file");
    assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i %s/ok.npy -i %s/ok.npy -q", tmp_dir, tmp_dir, tmp_dir), 2);
    expect_one_error_line("the model has 1 input, 2 -i files given");
    assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i nope:%s/ok.npy -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("the model has no input 'nope'");
    assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i %s/i32.npy --json", tmp_dir, tmp_dir), 2);
    expect_json();
    expect_out("\"error\": \"input ");

    /* Hostile .npy headers: each refused with one line naming the problem. */
    static const struct { const char *header, *says; size_t data; } bad[] = {
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 6), }", "holds 23", 23},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 6), }", "holds 25", 25},
        {"{'descr': '>f4', 'fortran_order': False, 'shape': (1, 6), }", "big-endian", 24},
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", "fortran_order", 24},
        {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1, 6), }", "structured dtype", 24},
        {"{'descr': '<c8', 'fortran_order': False, 'shape': (1, 3), }", "dtype '<c8' has no npu type", 24},
        {"{'fortran_order': False, 'shape': (1, 6), }", "is missing", 24},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1, 6), }", "repeated key", 24},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, -6), }", "not a non-negative integer", 24},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }", "overflows", 24},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,6), }", "more dims", 24},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 6), } (", "bytes after the dict", 24},
        {"['descr', '<f4']", "not a dict", 24},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 6)", "expected ',' or '}'", 24},
    };
    static char buf[1 << 14];
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        size_t n = 10 + strlen(bad[k].header);
        memcpy(buf, "\x93NUMPY\x01\x00", 8);
        buf[8] = (char)((n - 10) & 0xff);
        buf[9] = (char)((n - 10) >> 8);
        memcpy(buf + 10, bad[k].header, n - 10);
        memset(buf + n, 0, bad[k].data);
        write_file("bad.npy", buf, n + bad[k].data);
        assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i %s/bad.npy -q", tmp_dir, tmp_dir), 2);
        expect_one_error_line(bad[k].says);
    }
    /* A header length past the end, a cut magic, an unknown version. */
    memcpy(buf, "\x93NUMPY\x01\x00\xff\xff{}", 12);
    write_file("bad.npy", buf, 12);
    assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i %s/bad.npy -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("runs past the end of the file");
    write_file("bad.npy", buf, 7);
    assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i %s/bad.npy -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("too short for an .npy header");
    buf[6] = 9;
    write_file("bad.npy", buf, 12);
    assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i %s/bad.npy -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line(".npy format version 9.0 is not supported");
    write_file("bad.npy", "not numpy at all", 16);
    assert_int_equal(run(env, "npu-run", "-m %s/mlp.xml -i %s/bad.npy -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("not an .npy file");
}

/* -shape re-batches an IR (only the batch axis), -ip/-op reach the compile of
 * an IR v10, and a blob takes only its own shapes and precisions. */
static void test_run_shapes_and_precisions(void **state)
{
    (void)state;
    float x[3 * 6], y[3 * 5];
    for (int i = 0; i < 18; i++) x[i] = (float)((i * 7) % 11) * 0.1f - 0.5f;
    write_npy("x3.npy", "<f4", "(3, 6)", x, sizeof x);
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -shape x[3,6] -i %s/x3.npy -o %s/s3 -n 2", tmp_dir, tmp_dir,
                         tmp_dir),
                     0);
    expect_out("batch: 3 (the IR declares 1)");
    expect_out("input  0 'x' f32 [3,6] NC");
    expect_out("iterations: 2 in ");
    read_npy("s3/y.npy", "<f4", "(3, 5)", y, sizeof y);
    expect_y(y, x, 3);
    /* another axis reshapes the input; this model's weights do not allow it */
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -shape [3,7] -q", tmp_dir), 1);
    expect_one_error_line("compile failed");
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -shape [3,6,1] -q", tmp_dir), 2);
    expect_one_error_line("input 'x' has rank 2 ([1,6])");
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -shape nope[3,6] -q", tmp_dir), 2);
    expect_one_error_line("the model has no input 'nope'");
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -data_shape [3,6] -q", tmp_dir), 2);
    expect_one_error_line("-data_shape [3,6] does not fit input 'x' [1,6]");

    /* Precisions, on an IR v11 and an IR v10 alike (a Convert between the
     * caller's tensor and the model, as benchmark_app's PrePostProcessor). */
    uint8_t xu8[6] = {0, 1, 2, 3, 4, 5};
    float xf[6] = {0, 1, 2, 3, 4, 5};
    uint16_t yh[5];
    write_npy("u8.npy", "|u1", "(1, 6)", xu8, sizeof xu8);
    static const char *const versions[] = {"mlp", "v10"};
    for (int v = 0; v < 2; v++) {
        assert_int_equal(run(NULL, "npu-run", "-m %s/%s.xml -ip u8 -op f16 -i %s/u8.npy -o %s/h%d -n 2", tmp_dir,
                             versions[v], tmp_dir, tmp_dir, v),
                         0);
        expect_out("input  0 'x' u8 [1,6] NC");
        expect_out("output 0 'y' f16 [1,5]");
        char dump[32];
        snprintf(dump, sizeof dump, "h%d/y.npy", v);
        read_npy(dump, "<f2", "(1, 5)", yh, sizeof yh);
        double want[5];
        expected_y(xf, 1, want);
        for (int c = 0; c < 5; c++) {   /* f16 -> f32 (normal numbers) */
            uint32_t e = (yh[c] >> 10) & 0x1f, bits = ((uint32_t)(yh[c] & 0x8000) << 16) | ((e + 112) << 23) |
                                                      ((uint32_t)(yh[c] & 0x3ff) << 13);
            float f;
            memcpy(&f, &bits, 4);
            if (fabs((double)f - want[c]) > 2e-3) fail_msg("%s: y[%d] = %g, expected %g", versions[v], c, (double)f, want[c]);
        }
    }
    /* The data must have the input's new precision. */
    write_npy("f.npy", "<f4", "(1, 6)", xf, sizeof xf);
    assert_int_equal(run(NULL, "npu-run", "-m %s/v10.xml -iop x:u8 -i %s/f.npy -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("input 'x' takes u8 [1,6] (.npy '|u1'), the file holds '<f4' [1,6]");
    assert_int_equal(run(NULL, "npu-run", "-m %s/v10.xml -iop z:u8 -q", tmp_dir), 2);
    expect_one_error_line("the model has no input or output 'z'");

    /* A model with dynamic height and width: -shape reshapes every axis of the
     * input (as benchmark_app's Model::reshape); without it the NPU refuses. */
    static const char relu_xml[] =
        "<?xml version=\"1.0\"?>\n<net name=\"relu\" version=\"11\"><layers>"
        "<layer id=\"0\" name=\"img\" type=\"Parameter\" version=\"opset1\"><data shape=\"1,?,?,3\" "
        "element_type=\"f32\"/><output><port id=\"0\" precision=\"FP32\" names=\"img\"><dim>1</dim><dim>-1</dim>"
        "<dim>-1</dim><dim>3</dim></port></output></layer>"
        "<layer id=\"1\" name=\"act\" type=\"ReLU\" version=\"opset1\"><input><port id=\"0\" precision=\"FP32\">"
        "<dim>1</dim><dim>-1</dim><dim>-1</dim><dim>3</dim></port></input><output><port id=\"1\" precision=\"FP32\" "
        "names=\"act\"><dim>1</dim><dim>-1</dim><dim>-1</dim><dim>3</dim></port></output></layer>"
        "<layer id=\"2\" name=\"act/sink_port_0\" type=\"Result\" version=\"opset1\"><input><port id=\"0\" "
        "precision=\"FP32\"><dim>1</dim><dim>-1</dim><dim>-1</dim><dim>3</dim></port></input></layer>"
        "</layers><edges><edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/>"
        "<edge from-layer=\"1\" from-port=\"1\" to-layer=\"2\" to-port=\"0\"/></edges></net>\n";
    float img[4 * 5 * 3], act[4 * 5 * 3];
    for (int i = 0; i < 60; i++) img[i] = (float)((i * 11) % 13) - 6.0f;
    write_file("relu.xml", relu_xml, sizeof relu_xml - 1);
    write_npy("img.npy", "<f4", "(1, 4, 5, 3)", img, sizeof img);
    assert_int_equal(run(NULL, "npu-run", "-m %s/relu.xml -n 1 -q", tmp_dir), 1);
    assert_int_equal(run(NULL, "npu-run", "-m %s/relu.xml -shape img[1,4,5,3] -i %s/img.npy -o %s/r -n 2", tmp_dir,
                         tmp_dir, tmp_dir),
                     0);
    expect_out("input  0 'img' f32 [1,4,5,3]");
    expect_out("output 0 'act' f32 [1,4,5,3]");
    read_npy("r/act.npy", "<f4", "(1, 4, 5, 3)", act, sizeof act);
    for (int i = 0; i < 60; i++)
        if (act[i] != (img[i] > 0 ? img[i] : 0.0f)) fail_msg("act[%d] = %g for %g", i, (double)act[i], (double)img[i]);
    /* a batch with the reshape: the batch goes through npu_ir_set_batch */
    float img2[2 * 60], act2[2 * 60];
    for (int i = 0; i < 120; i++) img2[i] = (float)((i * 5) % 9) - 4.0f;
    write_npy("img2.npy", "<f4", "(2, 4, 5, 3)", img2, sizeof img2);
    assert_int_equal(run(NULL, "npu-run", "-m %s/relu.xml -shape [2,4,5,3] -i %s/img2.npy -o %s/r2 -n 1", tmp_dir,
                         tmp_dir, tmp_dir),
                     0);
    expect_out("input  0 'img' f32 [2,4,5,3]");
    read_npy("r2/act.npy", "<f4", "(2, 4, 5, 3)", act2, sizeof act2);
    for (int i = 0; i < 120; i++)
        if (act2[i] != (img2[i] > 0 ? img2[i] : 0.0f)) fail_msg("act2[%d] = %g for %g", i, (double)act2[i], (double)img2[i]);
    /* npu-compile -shape writes the static blob, which runs as it is */
    assert_int_equal(run(NULL, "npu-compile", "-m %s/relu.xml -o %s/relu.blob -shape [1,4,5,3] -q", tmp_dir, tmp_dir), 0);
    assert_int_equal(run(NULL, "npu-run", "-m %s/relu.blob -i %s/img.npy -o %s/rb -n 1", tmp_dir, tmp_dir, tmp_dir), 0);
    expect_out("input  0 'img' f32 [1,4,5,3]");
    memset(act, 0, sizeof act);
    read_npy("rb/act.npy", "<f4", "(1, 4, 5, 3)", act, sizeof act);
    for (int i = 0; i < 60; i++)
        if (act[i] != (img[i] > 0 ? img[i] : 0.0f)) fail_msg("blob: act[%d] = %g for %g", i, (double)act[i], (double)img[i]);
    assert_int_equal(run(NULL, "npu-compile", "-m %s/relu.xml -o %s/relu.blob -shape [1,4,5] -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("has rank 4");

    /* A blob: its shapes and precisions are compiled in. */
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml -o %s/sp.blob --weights-copy yes -q", tmp_dir, tmp_dir), 0);
    assert_int_equal(run(NULL, "npu-run", "-m %s/sp.blob -ip f32 -op f32 -shape [1,6] -n 2 -q", tmp_dir), 0);
    assert_int_equal(run(NULL, "npu-run", "-m %s/sp.blob -ip f16 -q", tmp_dir), 1);
    expect_one_error_line("input 'x' of the blob is f32, -ip/-iop asks f16: a blob's precisions are compiled in");
    assert_int_equal(run(NULL, "npu-run", "-m %s/sp.blob -shape [2,6] -q", tmp_dir), 1);
    expect_one_error_line("a blob's shapes are compiled in");
}

/* A dynamic-batch model: -data_shape (or the .npy file) sets the batch each
 * inference computes; the dumped outputs have it. */
static void test_run_dynamic_batch_data_shape(void **state)
{
    (void)state;
    float x[4 * 6], y[4 * 5];
    for (int i = 0; i < 24; i++) x[i] = (float)((i * 5) % 13) * 0.1f - 0.6f;
    write_npy("x4.npy", "<f4", "(4, 6)", x, sizeof x);
    assert_int_equal(run(NULL, "npu-run", "-m %s/dyn.xml -i %s/x4.npy -o %s/d4 -n 3", tmp_dir, tmp_dir, tmp_dir), 0);
    expect_out("batch: dynamic 4, debatched by npu (PLUGIN)");
    expect_out("iterations: 3 in ");
    expect_out("batch 4\n");
    read_npy("d4/y.npy", "<f4", "(4, 5)", y, sizeof y);
    expect_y(y, x, 4);

    assert_int_equal(run(NULL, "npu-run", "-m %s/dyn.xml -data_shape x[2,6] -o %s/d2 -n 2 --json", tmp_dir, tmp_dir), 0);
    expect_json();
    expect_out("\"batch\": 2,");
    expect_out("\"shape\": [2,6]");
    read_npy("d2/y.npy", "<f4", "(2, 5)", y, 2 * 5 * sizeof(float));

    assert_int_equal(run(NULL, "npu-run", "-m %s/dyn.xml -data_shape [3,6] -i %s/x4.npy -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("input 'x' takes f32 [3,6] (.npy '<f4'), the file holds '<f4' [4,6]");
    assert_int_equal(run(NULL, "npu-run", "-m %s/dyn.xml -data_shape [3,7] -q", tmp_dir), 2);
    expect_one_error_line("does not fit input 'x' [?,6]");
    /* A static model takes no other data batch. */
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -i %s/x4.npy -q", tmp_dir, tmp_dir), 2);
    expect_one_error_line("the file holds '<f4' [4,6]");
}

/* The average and a chosen percentile, in text and JSON; --version, --help. */
static void test_run_latency_percentile_version_and_help(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -niter 20 -nireq 2 -latency_percentile 95 -q", tmp_dir), 0);
    expect_out("iterations: 20 in ");
    expect_out(", 2 requests,");
    const char *l = strstr(out, "latency: min ");
    assert_non_null(l);
    double mn, avg, med, p90, p95, mx;
    assert_int_equal(sscanf(l, "latency: min %lf ms, avg %lf ms, median %lf ms, p90 %lf ms, p95 %lf ms, max %lf ms", &mn,
                            &avg, &med, &p90, &p95, &mx),
                     6);
    assert_true(mn <= med && med <= p90 && p90 <= p95 && p95 <= mx && mn <= avg && avg <= mx);
    assert_string_equal(err, "");   /* -q: no progress */

    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -n 10 -latency_percentile 75 -json", tmp_dir), 0);
    expect_json();
    expect_out("\"ok\": true");
    expect_out("\"latency_percentile\": 75,");
    expect_out("\"avg\": ");
    expect_out("\"percentile\": ");
    expect_out("\"iterations\": 10,");

    char want[64];
    snprintf(want, sizeof want, "npu-run (npu) %s\n", NPU_VERSION_STRING);
    assert_int_equal(run(NULL, "npu-run", "--version"), 0);
    assert_string_equal(out, want);
    assert_int_equal(run(NULL, "npu-run", "--help"), 0);
    expect_out("usage: npu-run");
    expect_out("-data_shape");
    expect_out("-latency_percentile");
    expect_out("Exit status: 0 ran; 1 ");
    assert_string_equal(err, "");
}

static void test_run_runs_a_model_cache_entry(void **state)
{
    (void)state;
    /* NPU_SIM_NO_WEIGHTS_COPY=0: the sim offers layout A only, so the IR compile
     * takes layout A, as npu-compile --weights-copy yes does. */
    assert_int_equal(run("NPU_SIM_NO_WEIGHTS_COPY=0", "npu-run", "-m %s/mlp.xml -n 2 -q --cache-dir %s/cache", tmp_dir,
                         tmp_dir),
                     0);
    char pattern[PATH_MAX];
    glob_t g;
    snprintf(pattern, sizeof pattern, "%s/cache/*.npucache", tmp_dir);
    assert_int_equal(glob(pattern, 0, NULL, &g), 0);
    assert_int_equal(g.gl_pathc, 1);
    assert_int_equal(run(NULL, "npu-run", "-m %s -n 3", g.gl_pathv[0]), 0);
    expect_out("is an npu cache entry");
    expect_out("FIL (import)");
    assert_int_equal(run(NULL, "npu-info", "--check-blob %s", g.gl_pathv[0]), 0);
    expect_out("an npu cache entry)");
    expect_out("will import: yes");

    /* A truncated entry: one line, exit 1. */
    char cmd[PATH_MAX * 2];
    snprintf(cmd, sizeof cmd, "head -c 200 %s > %s/trunc.npucache", g.gl_pathv[0], tmp_dir);
    assert_int_equal(system(cmd), 0);
    globfree(&g);
    assert_int_equal(run(NULL, "npu-run", "-m %s/trunc.npucache", tmp_dir), 2);
    expect_one_error_line("truncated or corrupt npu cache entry");
    assert_int_equal(run(NULL, "npu-info", "--check-blob %s/trunc.npucache --json", tmp_dir), 1);
    expect_json();
    expect_out("\"cache_entry\": true");
    expect_err("truncated or corrupt npu cache entry");
}

/* ---- npu-info ---- */

static void test_versions_and_help_go_to_stdout(void **state)
{
    (void)state;
    char want[64];
    snprintf(want, sizeof want, "npu-info (npu) %s\n", NPU_VERSION_STRING);
    assert_int_equal(run(NULL, "npu-info", "--version"), 0);
    assert_string_equal(out, want);
    snprintf(want, sizeof want, "npu-compile (npu) %s\n", NPU_VERSION_STRING);
    assert_int_equal(run(NULL, "npu-compile", "--version"), 0);
    assert_string_equal(out, want);
    assert_int_equal(run(NULL, "npu-info", "--help"), 0);
    expect_out("usage: npu-info");
    expect_out("--check-blob FILE");
    expect_out("Exit status: 0 an NPU device opened, 1 none, 2 usage or I/O error.");
    assert_string_equal(err, "");
    assert_int_equal(run(NULL, "npu-compile", "--help"), 0);
    expect_out("usage: ");
    expect_out("off-device");
    expect_out("Exit status: 0 written; 1 ");
    assert_string_equal(err, "");
    assert_int_equal(run(NULL, "npu-info", "--frobnicate"), 2);
    expect_one_error_line("unknown argument '--frobnicate'");
    assert_int_equal(run(NULL, "npu-info", "--check-blob"), 2);
    expect_one_error_line("--check-blob needs a FILE");
}

static void test_info_json_with_and_without_a_device(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, "npu-info", "--json"), 0);
    expect_json();
    expect_out("\"device\": {\"name\": ");
    expect_out("\"exit_code\": 0");
    expect_out("\"FULL_DEVICE_NAME\": ");

    char env[PATH_MAX];
    snprintf(env, sizeof env, "ZE_ENABLE_ALT_DRIVERS=%s/no-such-driver.so", tmp_dir);
    assert_int_equal(run(env, "npu-info", "--json"), 1);
    expect_json();
    expect_out("\"device\": null");
    expect_out("\"error\": ");
    expect_out("\"diagnosis\": [");
    expect_out("no-such-driver.so, which does not exist");

    /* Text: the reason, then the diagnosis, one line per check. */
    assert_int_equal(run(env, "npu-info", "%s", ""), 1);
    expect_out("No NPU: ");
    expect_out("Diagnosis:");
    expect_out("ZE_ENABLE_ALT_DRIVERS                          FAIL: ZE_ENABLE_ALT_DRIVERS names ");
    expect_out("unset ZE_ENABLE_ALT_DRIVERS");
}

/* Builds a fake root: dirs and files relative to tmp_dir/<root>. */
static void mk(const char *root, const char *rel, int dir)
{
    char cmd[PATH_MAX * 3];
    snprintf(cmd, sizeof cmd, dir ? "mkdir -p '%s/%s/%s'" : "mkdir -p \"$(dirname '%s/%s/%s')\" && : > '%s/%s/%s'",
             tmp_dir, root, rel, tmp_dir, root, rel);
    assert_int_equal(system(cmd), 0);
}

static const char *check_line(const char *name)
{
    const char *l = strstr(out, name);
    if (l == NULL) fail_msg("no check line \"%s\" in:\n%s", name, out);
    return l;
}
static void expect_diag(const char *name, const char *verdict)
{
    const char *l = check_line(name), *eol = strchr(l, '\n');
    const char *v = strstr(l, verdict);
    if (v == NULL || (eol && v > eol)) fail_msg("check \"%s\": expected \"%s\" in:\n%s", name, verdict, out);
}

static void test_diagnosis_names_each_failing_cause_and_its_fix(void **state)
{
    (void)state;
    char env[PATH_MAX * 2];
    /* An empty machine: no loader, no driver, no module, no node. */
    mk("bare", "etc", 1);
    snprintf(env, sizeof env, "NPU_INFO_ROOT=%s/bare ZE_ENABLE_ALT_DRIVERS=", tmp_dir);
    assert_int_equal(run(env, "npu-info", "--diagnose"), 1);
    expect_diag("Level Zero loader", "FAIL: libze_loader.so.1 is not in the library path — install");
    expect_diag("NPU user-space driver", "FAIL: no libze_intel_npu.so.1");
    expect_diag("driver compiler", "FAIL:");
    expect_diag("intel_vpu kernel module", "FAIL: the intel_vpu module is not loaded — sudo modprobe intel_vpu");
    expect_diag("NPU device node", "FAIL: no /dev/accel/accel* node");
    expect_diag("access to the NPU device node", "FAIL:");
    expect_diag("ZE_ENABLE_ALT_DRIVERS", "ok");
    assert_int_equal(run(env, "npu-info", "--diagnose --json"), 1);
    expect_json();
    expect_out("\"ok\": false, \"cause\": ");
    expect_out("\"error\": ");

    /* A broken install: stale vpu library, no compiler, a node the user
     * cannot open; the module known from /proc/modules; a library dir from an
     * ld.so.conf include. */
    mk("broken", "usr/lib/x86_64-linux-gnu/libze_loader.so.1", 0);
    mk("broken", "opt/npu/lib/libze_intel_npu.so.1", 0);
    mk("broken", "usr/lib/libze_intel_vpu.so.1", 0);
    mk("broken", "dev/accel/accel0", 0);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/broken/etc/ld.so.conf", tmp_dir);
    mk("broken", "etc/ld.so.conf.d", 1);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("# test\ninclude /etc/ld.so.conf.d/*.conf\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/broken/etc/ld.so.conf.d/npu.conf", tmp_dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("/opt/npu/lib\n", f);
    fclose(f);
    mk("broken", "proc", 1);
    snprintf(path, sizeof path, "%s/broken/proc/modules", tmp_dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("snd 1 0 - Live 0x0\nintel_vpu 245760 0 - Live 0x0\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/broken/dev/accel/accel0", tmp_dir);
    int as_root = geteuid() == 0;
    if (as_root) assert_int_equal(chown(path, 4242, 4243), 0);   /* someone else's node, a group we lack */
    assert_int_equal(chmod(path, as_root ? 0660 : 0), 0);
    snprintf(env, sizeof env, "NPU_INFO_ROOT=%s/broken ZE_ENABLE_ALT_DRIVERS=%s/missing.so", tmp_dir, tmp_dir);
    assert_int_equal(run(env, "npu-info", "--diagnose"), 1);
    expect_diag("Level Zero loader", "ok");
    expect_diag("NPU user-space driver", "ok");
    expect_diag("no stale libze_intel_vpu.so.1", "FAIL: a stale ");
    expect_diag("no stale libze_intel_vpu.so.1", "remove the old package");
    expect_diag("driver compiler", "is installed without libnpu_driver_compiler.so");
    expect_diag("driver compiler", "install intel-driver-compiler-npu");
    expect_diag("intel_vpu kernel module", "ok");
    expect_diag("NPU device node", "ok");
    expect_diag("access to the NPU device node", "FAIL: you cannot open /dev/accel/accel0");
    if (as_root) expect_diag("access to the NPU device node", "group 4243, and you are not in it — sudo usermod -a -G 4243");
    expect_diag("ZE_ENABLE_ALT_DRIVERS", "missing.so, which does not exist");

    /* Fixed: every check passes, exit 0. */
    snprintf(path, sizeof path, "%s/broken/usr/lib/libze_intel_vpu.so.1", tmp_dir);
    assert_int_equal(unlink(path), 0);
    mk("broken", "opt/npu/lib/libnpu_driver_compiler.so", 0);
    snprintf(path, sizeof path, "%s/broken/dev/accel/accel0", tmp_dir);
    assert_int_equal(chmod(path, 0666), 0);
    snprintf(env, sizeof env, "NPU_INFO_ROOT=%s/broken ZE_ENABLE_ALT_DRIVERS=", tmp_dir);
    assert_int_equal(run(env, "npu-info", "--diagnose"), 0);
    assert_null(strstr(out, "FAIL"));
    assert_int_equal(lines(out), 10);   /* blank, "Diagnosis:", eight checks */
    /* The module from /sys/module alone. */
    mk("broken", "sys/module/intel_vpu", 1);
    snprintf(path, sizeof path, "%s/broken/proc/modules", tmp_dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(run(env, "npu-info", "--diagnose --json"), 0);
    expect_json();
    assert_null(strstr(out, "\"ok\": false"));
}

static void test_check_blob_says_why_a_blob_will_not_import(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, "npu-info", "--check-blob %s/foreign.blob", tmp_dir), 1);
    expect_out("metadata:         none");
    expect_out("will import: no: the driver refuses it");
    expect_one_error_line("will not import");
    assert_int_equal(run(NULL, "npu-info", "--check-blob %s/foreign.blob --json", tmp_dir), 1);
    expect_json();
    expect_out("\"will_import\": false");
    expect_out("\"error\": ");
    assert_int_equal(run(NULL, "npu-info", "--check-blob %s/empty.blob", tmp_dir), 1);
    expect_one_error_line("empty file");

    /* A valid blob whose tail is damaged: the blob size field points past the start. */
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml -o %s/tail.blob --weights-copy yes -q", tmp_dir, tmp_dir),
                     0);
    char path[PATH_MAX];
    path_of(path, sizeof path, "tail.blob");
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, -13, SEEK_END), 0);   /* [u64 blob size]["OVNPU"] */
    uint64_t huge = UINT64_C(1) << 40;
    assert_int_equal(fwrite(&huge, 8, 1, f), 1);
    fclose(f);
    assert_int_equal(run(NULL, "npu-info", "--check-blob %s/tail.blob", tmp_dir), 1);
    expect_one_error_line("malformed OVNPU metadata tail");
    assert_int_equal(run(NULL, "npu-info", "--check-blob %s/tail.blob --json", tmp_dir), 1);
    expect_json();
    assert_int_equal(run(NULL, "npu-run", "-m %s/tail.blob -q", tmp_dir), 1);
    expect_one_error_line("import failed");

    /* Files that cannot be read as a blob: exit 2, and no blocking on a FIFO. */
    assert_int_equal(run(NULL, "npu-info", "--check-blob %s/absent.blob", tmp_dir), 2);
    expect_one_error_line("No such file or directory");
    assert_int_equal(run(NULL, "npu-info", "--check-blob %s/adir.xml", tmp_dir), 2);
    expect_one_error_line("is a directory");
    assert_int_equal(run(NULL, "npu-info", "--check-blob %s/fifo.blob", tmp_dir), 2);
    expect_one_error_line("not a regular file");
    assert_int_equal(run(NULL, "npu-info", "--check-blob %s/fifo.blob --json", tmp_dir), 2);
    expect_json();
    expect_out("\"error\": ");

    /* No device: will not import, and says so. */
    char env[PATH_MAX];
    snprintf(env, sizeof env, "ZE_ENABLE_ALT_DRIVERS=%s/no-such-driver.so", tmp_dir);
    assert_int_equal(run(env, "npu-info", "--check-blob %s/foreign.blob", tmp_dir), 1);
    expect_one_error_line("no NPU to import it on");
}

/* The bad-input matrix of the issue, for every tool: a missing file, a
 * directory, a FIFO (must not block), not an IR, a truncated .bin, a foreign
 * or truncated blob. Each: the documented exit code, one line on stderr
 * naming the file, and with --json one valid JSON object with an "error". */
static void test_every_tool_refuses_each_bad_input(void **state)
{
    (void)state;
    /* A blob cut inside its ELF (the sim's is ~4.5 KB; the rest is padding and
     * the metadata tail). */
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml -o %s/whole.blob --weights-copy yes -q", tmp_dir, tmp_dir),
                     0);
    char cmd[PATH_MAX * 2];
    snprintf(cmd, sizeof cmd, "head -c 2000 %s/whole.blob > %s/cut.blob", tmp_dir, tmp_dir);
    assert_int_equal(system(cmd), 0);
    static const struct {
        const char *tool, *args, *file;
        int code;
        const char *says;
    } cases[] = {
        {"npu-run", "-m %s/%s -q", "absent.xml", 2, "No such file or directory"},
        {"npu-run", "-m %s/%s -q", "adir.xml", 2, "is a directory"},
        {"npu-run", "-m %s/%s -q", "fifo.xml", 2, "not a regular file"},
        {"npu-run", "-m %s/%s -q", "notir.xml", 2, "not a readable IR"},
        {"npu-run", "-m %s/%s -q", "short.xml", 2, "not a readable IR"},
        {"npu-run", "-m %s/%s -q", "foreign.blob", 1, "import failed"},
        {"npu-run", "-m %s/%s -q", "cut.blob", 1, "import failed"},
        {"npu-compile", "-m %s/%s -q", "absent.xml", 2, "No such file or directory"},
        {"npu-compile", "-m %s/%s -q", "adir.xml", 2, "is a directory"},
        {"npu-compile", "-m %s/%s -q", "fifo.xml", 2, "not a regular file"},
        {"npu-compile", "-m %s/%s -q", "notir.xml", 2, "not a readable IR"},
        {"npu-compile", "-m %s/%s -q", "short.xml", 2, "not a readable IR"},
        {"npu-compile", "-m %s/%s -q", "foreign.blob", 2, "not a readable IR"},
        {"npu-info", "--check-blob %s/%s", "absent.blob", 2, "No such file or directory"},
        {"npu-info", "--check-blob %s/%s", "adir.xml", 2, "is a directory"},
        {"npu-info", "--check-blob %s/%s", "fifo.blob", 2, "not a regular file"},
        {"npu-info", "--check-blob %s/%s", "mlp.xml", 1, "will not import"},
        {"npu-info", "--check-blob %s/%s", "cut.blob", 1, "will not import"},
        {"npu-info", "--check-blob %s/%s", "foreign.blob", 1, "will not import"},
    };
    char args[PATH_MAX * 2];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(args, sizeof args, cases[k].args, tmp_dir, cases[k].file);
        if (run(NULL, cases[k].tool, "%s", args) != cases[k].code)
            fail_msg("%s %s: expected exit %d; stderr:\n%s", cases[k].tool, args, cases[k].code, err);
        expect_one_error_line(cases[k].file);
        expect_err(cases[k].says);
        int code = run(NULL, cases[k].tool, "%s --json", args);
        if (code != cases[k].code) fail_msg("%s %s --json: exit %d, expected %d", cases[k].tool, args, code, cases[k].code);
        expect_json();
        expect_out("\"error\": ");
    }
}

/* -pc: benchmark_app's per-layer table (samples/cpp/common/utils common.hpp
 * printPerformanceCounts: name in 30 columns and a space, status in 15,
 * "layerType: " and "execType: " in 30, real and cpu time in ms in 25, then
 * "Total time: ... milliseconds"), one per request; --json carries it. */
static void test_run_pc_prints_the_layer_table(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -niter 4 -nireq 2 -pc -q", tmp_dir), 0);
    expect_out("Performance counts for 0-th infer request:\n");
    expect_out("Performance counts for 1-th infer request:\n");
    const char *types[2] = {"layerType: MatMul ", "layerType: SoftMax "};
    const char *row = strstr(out, "Performance counts for 0-th infer request:\n");
    row = strchr(row, '\n') + 1;
    for (int i = 0; i < 2; i++) {
        const char *end = strchr(row, '\n');
        assert_non_null(end);
        assert_true(end - row >= 30 + 1 + 15 + 30 + 30 + 25 + 25);
        assert_int_equal(row[30], ' ');
        assert_memory_equal(row + 31, "EXECUTED ", 9);
        assert_memory_equal(row + 46, types[i], strlen(types[i]));
        assert_memory_equal(row + 76, "execType: Shave ", 16);
        double rt = -1, ct = -1;
        assert_int_equal(sscanf(row + 106, "realTime (ms): %lf", &rt), 1);
        assert_int_equal(sscanf(row + 131, "cpuTime (ms): %lf", &ct), 1);
        assert_true(rt >= 0 && ct >= 0);
        row = end + 1;
    }
    assert_memory_equal(row, "Total time: ", 12);
    expect_out(" milliseconds\n");
    /* --json: the same table per request */
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -niter 2 -nireq 1 -pc --json", tmp_dir), 0);
    expect_json();
    expect_out("\"performance_counts\": [{\"request\": 0, \"layers\": [{\"name\": ");
    expect_out("\"type\": \"MatMul\", \"exec_type\": \"Shave\", \"status\": \"EXECUTED\"");
    expect_out("\"type\": \"SoftMax\"");
    /* a blob cannot be profiled (it is imported as compiled) */
    assert_int_equal(run(NULL, "npu-compile", "-m %s/mlp.xml -o %s/pc.blob --weights-copy yes -q", tmp_dir, tmp_dir), 0);
    assert_int_equal(run(NULL, "npu-run", "-m %s/pc.blob -pc -q", tmp_dir), 2);
    expect_one_error_line("-pc needs an IR");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compile_round_trip_through_npu_run_and_check_blob),
        cmocka_unit_test(test_compile_options_reach_the_blob),
        cmocka_unit_test(test_compile_failure_keeps_the_old_output),
        cmocka_unit_test(test_compile_refuses_bad_inputs_with_one_line),
        cmocka_unit_test(test_compile_target_platform_is_the_opened_device),
        cmocka_unit_test(test_run_refuses_bad_inputs_with_one_line),
        cmocka_unit_test(test_run_reads_npy_and_raw_inputs_and_dumps_outputs),
        cmocka_unit_test(test_run_checks_inputs_before_the_npu),
        cmocka_unit_test(test_run_shapes_and_precisions),
        cmocka_unit_test(test_run_dynamic_batch_data_shape),
        cmocka_unit_test(test_run_latency_percentile_version_and_help),
        cmocka_unit_test(test_run_pc_prints_the_layer_table),
        cmocka_unit_test(test_run_runs_a_model_cache_entry),
        cmocka_unit_test(test_versions_and_help_go_to_stdout),
        cmocka_unit_test(test_info_json_with_and_without_a_device),
        cmocka_unit_test(test_diagnosis_names_each_failing_cause_and_its_fix),
        cmocka_unit_test(test_check_blob_says_why_a_blob_will_not_import),
        cmocka_unit_test(test_every_tool_refuses_each_bad_input),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
