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
    npu_payload_options layout_a = {NPU_PAYLOAD_WEIGHTS_COPY, 0, 0};
    size_t xml_size;
    assert_int_equal(npu_graph_write_xml(g, &layout_a, xml, sizeof xml, &xml_size), NPU_OK);
    assert_int_equal(npu_graph_write_bin(g, bin, sizeof bin, &bin_size), NPU_OK);
    write_file("mlp.xml", xml, xml_size);
    write_file("mlp.bin", bin, bin_size);
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

    /* Precision overrides on an IR v11 file: the compiler ignores them for
     * IR >= 11 and npu cannot yet insert the Convert layers into an IR file,
     * so the compile is refused with one line saying so, not silently run at
     * the model's own precision. */
    assert_int_equal(run(NULL, "npu-compile",
                         "-m %s/mlp.xml -o %s/p.blob --weights-copy yes -iop x:U8 -op FP16 -il NC -ol NC "
                         "--hint throughput --batch-mode compiler -q",
                         tmp_dir, tmp_dir),
                     1);
    expect_one_error_line("override");
    assert_int_equal(file_size("p.blob"), -1);
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

static void test_run_refuses_bad_inputs_with_one_line(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, "npu-run", "-m %s/absent.blob", tmp_dir), 1);
    expect_one_error_line("No such file or directory");
    assert_int_equal(run(NULL, "npu-run", "-m %s/adir.xml", tmp_dir), 1);
    expect_one_error_line("is a directory");
    assert_int_equal(run(NULL, "npu-run", "-m %s/fifo.blob", tmp_dir), 1);
    expect_one_error_line("not a regular file");
    assert_int_equal(run(NULL, "npu-run", "-m %s/mlp.xml -w %s/fifo.blob -q", tmp_dir, tmp_dir), 1);
    expect_one_error_line("not a regular file");
    assert_int_equal(run(NULL, "npu-run", "-m %s/foreign.blob -q", tmp_dir), 1);
    expect_one_error_line("import failed");
    assert_int_equal(run(NULL, "npu-run", "-m %s/notir.xml -q", tmp_dir), 1);
    expect_one_error_line("notir.xml");
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
    assert_int_equal(run(NULL, "npu-run", "-m %s/trunc.npucache", tmp_dir), 1);
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
    assert_string_equal(err, "");
    assert_int_equal(run(NULL, "npu-compile", "--help"), 0);
    expect_out("usage: ");
    expect_out("off-device");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compile_round_trip_through_npu_run_and_check_blob),
        cmocka_unit_test(test_compile_options_reach_the_blob),
        cmocka_unit_test(test_compile_failure_keeps_the_old_output),
        cmocka_unit_test(test_compile_refuses_bad_inputs_with_one_line),
        cmocka_unit_test(test_compile_target_platform_is_the_opened_device),
        cmocka_unit_test(test_run_refuses_bad_inputs_with_one_line),
        cmocka_unit_test(test_run_runs_a_model_cache_entry),
        cmocka_unit_test(test_versions_and_help_go_to_stdout),
        cmocka_unit_test(test_info_json_with_and_without_a_device),
        cmocka_unit_test(test_diagnosis_names_each_failing_cause_and_its_fix),
        cmocka_unit_test(test_check_blob_says_why_a_blob_will_not_import),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
