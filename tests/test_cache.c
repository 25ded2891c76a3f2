/* test_cache.c - the persistent model cache (npu_compile_options.cache_dir) on
 * the software NPU: hits and misses, what changes the key, every kind of bad
 * entry on disk, concurrent processes, a writer killed mid-write, unusable
 * directories. Child processes re-execute this binary (argv[1] names the job;
 * NPU_TEST_CACHE gives the directory). */
#include "l0_test_util.h"

/* Paths here are short temp paths; truncation would only shorten a message. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

static npu_device *dev;
static size_t base_mark;
static char root[256];   /* per-process temp directory */
static char dir[1024];    /* this test's cache directory */
static int test_no;

static void open_all(void)
{
    tu_init_context_logged(NPU_LOG_INFO);
    dev = tu_open();
    base_mark = npu_arena_used(&tu_arena);
}

static int setup_all(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/npu-test-cache-XXXXXX");
    if (mkdtemp(root) == NULL) fail_msg("mkdtemp: %s", strerror(errno));
    open_all();
    return 0;
}

static int remove_tree(const char *path)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "chmod -R u+w '%s' 2>/dev/null; rm -rf '%s'", path, path);
    return system(cmd);
}

static int teardown_all(void **state)
{
    (void)state;
    npu_device_close(dev);
    (void)remove_tree(root);
    return 0;
}

static int setup_each(void **state)
{
    (void)state;
    npu_arena_rewind(&tu_arena, base_mark);
    tu_log_clear();
    snprintf(dir, sizeof dir, "%s/c%d", root, ++test_no);
    return 0;
}

/* ---- a model whose weights the tests can change ---- */

static float weights[4] = {1.0f, -2.0f, 0.5f, 3.0f};
static const float bias[4] = {0.25f, 1.0f, -1.0f, 0.0f};

static npu_graph *graph(int64_t batch)
{
    npu_graph *g = NULL;
    npu_shape xs = {2, {batch, 4}}, ws = {1, {4}};
    npu_node *x, *w, *b;
    assert_int_equal(npu_graph_create(&tu_arena, tu_ctx, NULL, &g), NPU_OK);
    x = npu_graph_parameter(g, "x", NPU_F32, &xs, "NC");
    w = npu_graph_constant(g, "w", NPU_F32, &ws, weights, sizeof weights);
    b = npu_graph_constant(g, "b", NPU_F32, &ws, bias, sizeof bias);
    /* N on the input and the output: batching needs both (npu.h "Batching"). */
    tu_ok(npu_graph_set_layout(npu_graph_result(g, npu_graph_relu(g, npu_graph_add(g, npu_graph_multiply(g, x, w, NULL),
                                                                                   b, NULL), "r"), "y"), "NC"),
          "layout");
    if (npu_graph_status(g) != NPU_OK) fail_msg("graph: %s", npu_graph_first_error(g));
    return g;
}

static void reference(const float *x, float *y, size_t rows)
{
    size_t r, i;
    for (r = 0; r < rows; r++)
        for (i = 0; i < 4; i++) {
            float v = x[r * 4 + i] * weights[i] + bias[i];
            y[r * 4 + i] = v > 0.0f ? v : 0.0f;
        }
}

/* Compiles with the cache, runs one inference, checks the output against the
 * CPU and returns from_cache. out (may be NULL) gets the output. */
static int compile_run(const npu_graph *g, const npu_compile_options *base, int64_t rows, float *out)
{
    npu_compile_options o;
    npu_model *m = NULL;
    npu_request *r = NULL;
    npu_model_info info;
    float x[8 * 4], y[8 * 4], ref[8 * 4];
    size_t mark = npu_arena_used(&tu_arena);
    int64_t i;
    memset(&o, 0, sizeof o);
    if (base != NULL) o = *base;
    o.cache_dir = dir;
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, &o, &m), "compile with cache");
    tu_ok(npu_model_get_info(m, &info), "info");
    if (info.from_cache) {
        assert_int_equal(info.compile_ns, 0);
        assert_true(info.import_ns > 0);
    } else {
        assert_true(info.compile_ns > 0);
        assert_int_equal(info.import_ns, 0);
    }
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    for (i = 0; i < rows * 4; i++) x[i] = (float)((i * 7) % 11) - 5.0f;
    memcpy(npu_request_input(r, 0), x, (size_t)rows * 4 * sizeof(float));
    tu_ok(npu_request_infer(r), "infer");
    memcpy(y, npu_request_output(r, 0), (size_t)rows * 4 * sizeof(float));
    reference(x, ref, (size_t)rows);
    assert_memory_equal(y, ref, (size_t)rows * 4 * sizeof(float));
    if (out != NULL) memcpy(out, y, (size_t)rows * 4 * sizeof(float));
    npu_request_destroy(r);
    npu_model_destroy(m);
    npu_arena_rewind(&tu_arena, mark);
    return info.from_cache;
}

/* Entries (*.npucache) and temp files in the directory; the last entry's path. */
static int count_files(const char *d, int *temps, char *entry, size_t cap)
{
    DIR *h = opendir(d);
    struct dirent *e;
    int n = 0;
    if (temps) *temps = 0;
    if (h == NULL) return 0;
    while ((e = readdir(h)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 9 && strcmp(e->d_name + len - 9, ".npucache") == 0 && e->d_name[0] != '.') {
            n++;
            if (entry) snprintf(entry, cap, "%s/%s", d, e->d_name);
        } else if (temps && strncmp(e->d_name, ".npucache-", 10) == 0) {
            (*temps)++;
        }
    }
    closedir(h);
    return n;
}

/* ---- hits and misses ---- */

static void test_second_compile_is_a_hit_with_identical_outputs(void **state)
{
    npu_graph *g = graph(1);
    float y1[4], y2[4];
    char entry[1024];
    int temps = 0;
    (void)state;
    assert_int_equal(compile_run(g, NULL, 1, y1), 0);
    tu_expect_log("model cache: miss");
    tu_expect_log("model cache: stored");
    assert_int_equal(count_files(dir, &temps, entry, sizeof entry), 1);
    assert_int_equal(temps, 0);
    assert_int_equal(compile_run(g, NULL, 1, y2), 1);
    tu_expect_log("model cache: hit");
    assert_memory_equal(y1, y2, sizeof y1);
    assert_int_equal(count_files(dir, NULL, NULL, 0), 1);
}

static void test_constant_option_and_batch_mode_change_the_key(void **state)
{
    npu_graph *g = graph(1), *g4 = graph(4);
    npu_compile_options o;
    unsigned char *bytes = (unsigned char *)weights;
    (void)state;
    assert_int_equal(compile_run(g, NULL, 1, NULL), 0);
    /* One byte of one constant. */
    bytes[0] ^= 1;
    assert_int_equal(compile_run(g, NULL, 1, NULL), 0);
    assert_int_equal(compile_run(g, NULL, 1, NULL), 1);
    bytes[0] ^= 1;
    assert_int_equal(compile_run(g, NULL, 1, NULL), 1);
    assert_int_equal(count_files(dir, NULL, NULL, 0), 2);
    /* An option that reaches the compiler. */
    memset(&o, 0, sizeof o);
    o.hint = NPU_HINT_THROUGHPUT;
    assert_int_equal(compile_run(g, &o, 1, NULL), 0);
    assert_int_equal(compile_run(g, &o, 1, NULL), 1);
    /* The batch mode: PLUGIN and COMPILER forms are different entries, and a
     * hit comes back in its own form. */
    memset(&o, 0, sizeof o);
    o.batch_mode = NPU_BATCH_PLUGIN;
    assert_int_equal(compile_run(g4, &o, 4, NULL), 0);
    o.batch_mode = NPU_BATCH_COMPILER;
    assert_int_equal(compile_run(g4, &o, 4, NULL), 0);
    {
        npu_model *m = NULL;
        npu_model_info info;
        o.cache_dir = dir;
        tu_ok(npu_model_compile_graph(dev, &tu_arena, g4, &o, &m), "COMPILER hit");
        tu_ok(npu_model_get_info(m, &info), "info");
        assert_int_equal(info.from_cache, 1);
        assert_int_equal(info.batch_mode, NPU_BATCH_COMPILER);
        assert_int_equal(npu_model_batch(m), 1);
        npu_model_destroy(m);
        o.batch_mode = NPU_BATCH_AUTO;
        tu_ok(npu_model_compile_graph(dev, &tu_arena, g4, &o, &m), "PLUGIN hit");
        tu_ok(npu_model_get_info(m, &info), "info");
        assert_int_equal(info.from_cache, 1);
        assert_int_equal(info.batch_mode, NPU_BATCH_PLUGIN);
        assert_int_equal(info.original_batch, 4);
        assert_int_equal(npu_model_batch(m), 4);
        npu_model_destroy(m);
    }
    assert_int_equal(count_files(dir, NULL, NULL, 0), 5);
}

/* ---- what a graph's key covers (a binary walk of its nodes) ----
 * y = Clamp(x * w - b, 0, hi), or Clamp(b - x * w, 0, hi) with the
 * Subtract's inputs swapped. Each variant differs from the base in one thing
 * the compiled model depends on; every one must miss once, then hit, and the
 * hit must compute its own function (a stale entry would not). */
typedef struct variant {
    const char *graph_name, *clamp_name, *in_layout;
    double hi;      /* Clamp's max: an attribute */
    int swap;       /* Subtract(b, x*w): the edges */
    int w_rank2;    /* w as {1, 4} instead of {4}: a constant's shape */
    int hint;       /* compile option: NPU_HINT_THROUGHPUT */
} variant;

static float vw[4] = {1.5f, -2.0f, 0.5f, 3.0f};
static float vb[4] = {0.25f, 1.0f, -1.0f, 0.125f};

static npu_graph *variant_graph(const variant *v)
{
    npu_graph *g = NULL;
    npu_graph_options go;
    npu_shape xs = {2, {1, 4}}, ws1 = {1, {4}}, ws2 = {2, {1, 4}};
    npu_node *x, *w, *b, *xw;
    memset(&go, 0, sizeof go);
    go.name = v->graph_name;
    assert_int_equal(npu_graph_create(&tu_arena, tu_ctx, &go, &g), NPU_OK);
    x = npu_graph_parameter(g, "x", NPU_F32, &xs, v->in_layout);
    w = npu_graph_constant(g, "w", NPU_F32, v->w_rank2 ? &ws2 : &ws1, vw, sizeof vw);
    b = npu_graph_constant(g, "b", NPU_F32, &ws1, vb, sizeof vb);
    xw = npu_graph_multiply(g, x, w, NULL);
    npu_graph_result(g, npu_graph_clamp(g, v->swap ? npu_graph_subtract(g, b, xw, NULL) : npu_graph_subtract(g, xw, b, NULL),
                                        0.0, v->hi, v->clamp_name), "y");
    if (npu_graph_status(g) != NPU_OK) fail_msg("graph: %s", npu_graph_first_error(g));
    return g;
}

/* Compiles the variant through the cache, runs it against the host's y and
 * returns from_cache. */
static int variant_run(const variant *v)
{
    npu_compile_options o;
    npu_model *m = NULL;
    npu_request *r = NULL;
    npu_model_info info;
    const float x[4] = {2.0f, -1.5f, 4.0f, 1.0f};
    float want[4];
    const float *y;
    size_t mark = npu_arena_used(&tu_arena);
    int i;
    npu_graph *g = variant_graph(v);
    memset(&o, 0, sizeof o);
    o.cache_dir = dir;
    if (v->hint) o.hint = NPU_HINT_THROUGHPUT;
    tu_ok(npu_model_compile_graph(dev, &tu_arena, g, &o, &m), "compile variant");
    tu_ok(npu_model_get_info(m, &info), "info");
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    memcpy(npu_request_input(r, 0), x, sizeof x);
    tu_ok(npu_request_infer(r), "infer");
    y = (const float *)npu_request_output(r, 0);
    for (i = 0; i < 4; i++) {
        float d = v->swap ? vb[i] - x[i] * vw[i] : x[i] * vw[i] - vb[i];
        want[i] = d < 0.0f ? 0.0f : d > (float)v->hi ? (float)v->hi : d;
        assert_true(fabsf(y[i] - want[i]) <= 1e-5f);
    }
    npu_request_destroy(r);
    npu_model_destroy(m);
    npu_arena_rewind(&tu_arena, mark);
    return info.from_cache;
}

static void test_graph_key_tells_every_model_change_apart(void **state)
{
    const variant base = {"net", "clamp", "NC", 6.0, 0, 0, 0};
    variant v[8];
    unsigned char *last = (unsigned char *)vb + sizeof vb - 1;
    int i, n = 0;
    (void)state;
    for (i = 0; i < 8; i++) v[i] = base;
    n++;                              /* 0: the base */
    v[n++].hi = 5.5;                  /* an attribute */
    v[n++].clamp_name = "clamp2";     /* a node's name */
    v[n++].graph_name = "net2";       /* the graph's name */
    v[n++].in_layout = "";            /* a layout */
    v[n++].swap = 1;                  /* the edges */
    v[n++].w_rank2 = 1;               /* a constant's shape */
    v[n++].hint = 1;                  /* an option */
    for (i = 0; i < n; i++) {
        /* A graph built again (other addresses) finds its own entry. */
        assert_int_equal(variant_run(&v[i]), 0);
        assert_int_equal(variant_run(&v[i]), 1);
    }
    assert_int_equal(count_files(dir, NULL, NULL, 0), n);
    /* One bit of the last byte of the last constant: a miss, then its own hit. */
    *last ^= 0x01;
    assert_int_equal(variant_run(&base), 0);
    assert_int_equal(variant_run(&base), 1);
    *last ^= 0x01;
    for (i = 0; i < n; i++) assert_int_equal(variant_run(&v[i]), 1);
    assert_int_equal(count_files(dir, NULL, NULL, 0), n + 1);
}

/* A small entry is read into the arena when the arena has room above what a
 * compile needs, and mapped when it has not; both hit with the same outputs,
 * and an arena sized by the size query still takes the hit. */
static void test_small_entry_read_or_mapped_by_arena_room(void **state)
{
    static _Alignas(64) unsigned char mem[8u << 20];
    npu_graph *g = graph(1);
    npu_compile_options o;
    npu_arena a;
    npu_model *m = NULL;
    npu_model_info info;
    size_t need = 0, used;
    float y1[4], y2[4];
    (void)state;
    assert_int_equal(compile_run(g, NULL, 1, y1), 0);
    tu_log_clear();
    assert_int_equal(compile_run(g, NULL, 1, y2), 1);   /* the 16 MiB test arena: room */
    tu_expect_log("bytes, read)");
    assert_memory_equal(y1, y2, sizeof y1);
    memset(&o, 0, sizeof o);
    o.cache_dir = dir;
    tu_ok(npu_model_compile_graph_size(dev, g, &o, &need), "size");
    /* Exactly the size query: no room above the need, so the entry is mapped. */
    assert_int_equal(npu_arena_init(&a, mem, need), NPU_OK);
    tu_log_clear();
    tu_ok(npu_model_compile_graph(dev, &a, g, &o, &m), "compile in an exact arena");
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.from_cache, 1);
    tu_expect_log("bytes, mapped)");
    used = npu_arena_used(&a);
    assert_true(used <= need);
    assert_int_equal(a.peak, need);
    npu_model_destroy(m);
    /* With room, read into the arena: the model takes the same bytes, and
     * the bytes above what it holds are free again afterwards. */
    assert_int_equal(npu_arena_init(&a, mem, sizeof mem), NPU_OK);
    tu_log_clear();
    tu_ok(npu_model_compile_graph(dev, &a, g, &o, &m), "compile with room");
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.from_cache, 1);
    tu_expect_log("bytes, read)");
    assert_int_equal(npu_arena_used(&a), used);
    assert_int_equal(a.peak, need);
    npu_model_destroy(m);
}

/* A hit takes the arena a compile needs from its entry (which records the
 * compile's payload size) instead of writing the payload again: for every
 * payload layout and weights threshold (which change that size) a hit and a
 * miss record the same peak, the size query's, and an arena one byte short
 * fails both the same way. Entries stored under every threshold first, so
 * that one threshold's entry cannot stand in for another's. */
static void test_hit_needs_what_a_compile_needs(void **state)
{
    static _Alignas(64) unsigned char mem[8u << 20];
    static const struct { npu_payload_layout layout; uint64_t threshold; } forms[] = {
        {NPU_PAYLOAD_DEFAULT, 0}, {NPU_PAYLOAD_NO_WEIGHTS_COPY, 17}, {NPU_PAYLOAD_NO_WEIGHTS_COPY, 1u << 20}};
    static float wide[16384];   /* 64 KiB: in the payload or not, by threshold */
    npu_shape xs = {2, {1, 16384}}, ws = {1, {16384}};
    size_t need[3], pass, i;
    npu_graph *g = NULL;
    (void)state;
    for (i = 0; i < 16384; i++) wide[i] = (float)(i % 5) - 2.0f;
    assert_int_equal(npu_graph_create(&tu_arena, tu_ctx, NULL, &g), NPU_OK);
    npu_graph_result(g, npu_graph_multiply(g, npu_graph_parameter(g, "x", NPU_F32, &xs, "NC"),
                                           npu_graph_constant(g, "w", NPU_F32, &ws, wide, sizeof wide), NULL), "y");
    tu_ok(npu_graph_status(g), "graph");
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < 3; i++) {
            npu_compile_options o;
            npu_arena a;
            npu_model *m = NULL;
            npu_model_info info;
            char want[64];
            memset(&o, 0, sizeof o);
            o.cache_dir = dir;
            o.payload_layout = forms[i].layout;
            o.weights_threshold_bytes = forms[i].threshold;
            tu_ok(npu_model_compile_graph_size(dev, g, &o, &need[i]), "size");
            assert_true(need[i] < sizeof mem);
            assert_int_equal(npu_arena_init(&a, mem, need[i] - 1), NPU_OK);
            assert_int_equal(npu_model_compile_graph(dev, &a, g, &o, &m), NPU_ERR_ARENA_TOO_SMALL);
            snprintf(want, sizeof want, "needs %zu bytes", need[i]);
            assert_non_null(strstr(npu_context_last_error(tu_ctx), want));
            assert_null(m);
            assert_int_equal(npu_arena_init(&a, mem, need[i]), NPU_OK);
            tu_ok(npu_model_compile_graph(dev, &a, g, &o, &m), "compile in an exact arena");
            tu_ok(npu_model_get_info(m, &info), "info");
            assert_int_equal(info.from_cache, (int)pass);   /* stored in pass 0, found in pass 1 */
            assert_int_equal(a.peak, need[i]);
            npu_model_destroy(m);
        }
    }
    /* with the 1 MiB threshold the 64 KiB constant is in the payload (layout
     * B copies it; layout A, where the release's compiler has no B, copies
     * every constant): what a compile needs grew with the payload */
    assert_true(need[2] > sizeof wide && need[2] >= need[1]);
}

/* Child job: compile in NPU_TEST_CACHE; exit 10 + from_cache, 1 on failure. */
static int child_compile(void)
{
    const char *d = getenv("NPU_TEST_CACHE");
    int from;
    if (d == NULL) return 1;
    snprintf(dir, sizeof dir, "%s", d);
    open_all();
    from = compile_run(graph(1), NULL, 1, NULL);
    npu_device_close(dev);
    return 10 + from;
}

static void test_other_platform_misses(void **state)
{
    char env_dir[1100];
    const char *env[3];
    (void)state;
    assert_int_equal(compile_run(graph(1), NULL, 1, NULL), 0);
    snprintf(env_dir, sizeof env_dir, "NPU_TEST_CACHE=%s", dir);
    env[0] = env_dir;
    env[1] = "NPU_SIM_PLATFORM=4000";
    env[2] = NULL;
    assert_int_equal(tu_rerun("--child-compile", env), 10); /* compiled, not from the cache */
    assert_int_equal(tu_rerun("--child-compile", env), 11); /* its own entry now */
    env[1] = NULL;
    assert_int_equal(tu_rerun("--child-compile", env), 11); /* this platform's entry */
    assert_int_equal(count_files(dir, NULL, NULL, 0), 2);
}

static void test_ir_hits(void **state)
{
    static char xml[1 << 15];
    static unsigned char bin[256];
    npu_graph *g = graph(2);
    npu_payload_options a;
    npu_compile_options o;
    npu_model *m = NULL;
    npu_model_info info;
    npu_ir *ir = NULL;
    size_t xn = 0, bn = 0;
    int k;
    (void)state;
    memset(&a, 0, sizeof a);
    a.layout = NPU_PAYLOAD_WEIGHTS_COPY;
    tu_ok(npu_graph_write_xml(g, &a, xml, sizeof xml, &xn), "xml");
    tu_ok(npu_graph_write_bin(g, bin, sizeof bin, &bn), "bin");
    tu_ok(npu_ir_load_memory(&tu_arena, tu_ctx, xml, xn, bin, bn, &ir), "IR");
    memset(&o, 0, sizeof o);
    o.cache_dir = dir;
    for (k = 0; k < 3; k++) {
        if (k == 2) bin[5] ^= 0x40; /* other weights: a miss */
        tu_ok(npu_model_compile_ir(dev, &tu_arena, ir, &o, &m), "compile IR");
        tu_ok(npu_model_get_info(m, &info), "info");
        assert_int_equal(info.from_cache, k == 1);
        assert_int_equal(npu_model_batch(m), 2);
        npu_model_destroy(m);
    }
}

/* ---- bad entries ---- */

static void corrupt(const char *path, int how)
{
    struct stat st;
    int fd;
    unsigned char b;
    assert_int_equal(stat(path, &st), 0);
    switch (how) {
    case 0: /* truncated in the payload */
        assert_int_equal(truncate(path, st.st_size - 100), 0);
        break;
    case 1: /* truncated inside the header */
        assert_int_equal(truncate(path, 100), 0);
        break;
    case 2: /* one bit of the payload */
    case 3: /* one bit of the header's key */
        fd = open(path, O_RDWR);
        assert_true(fd >= 0);
        {
            off_t at = how == 2 ? (off_t)(4096 + (st.st_size - 4096) / 2) : 20;
            assert_int_equal(pread(fd, &b, 1, at), 1);
            b ^= 0x10;
            assert_int_equal(pwrite(fd, &b, 1, at), 1);
        }
        close(fd);
        break;
    case 4: /* zero length */
        assert_int_equal(truncate(path, 0), 0);
        break;
    case 5: { /* a foreign file under the entry's name */
        FILE *f = fopen(path, "wb");
        int i;
        assert_non_null(f);
        for (i = 0; i < 6000; i++) fputc("not a cache entry\n"[i % 18], f);
        fclose(f);
        break;
    }
    case 6: /* another format version (an older npu's) */
        fd = open(path, O_RDWR);
        assert_true(fd >= 0);
        b = 1;
        assert_int_equal(pwrite(fd, &b, 1, 8), 1);
        close(fd);
        break;
    default: /* an ELF that is not ours: the payload replaced by garbage of the same size */
        fd = open(path, O_RDWR);
        assert_true(fd >= 0);
        {
            unsigned char junk[256];
            memset(junk, 0xa5, sizeof junk);
            assert_int_equal(pwrite(fd, junk, sizeof junk, 4096), (ssize_t)sizeof junk);
        }
        close(fd);
        break;
    }
}

static void test_every_bad_entry_is_recompiled_and_replaced(void **state)
{
    static const char *const reasons[] = {"truncated or extended", "truncated", "checksum mismatch",
                                          "key in the entry differs", "truncated", "bad magic",
                                          "format version 1", "checksum mismatch"};
    npu_graph *g = graph(3);
    npu_compile_options o;
    char entry[1024];
    float y0[12], y[12];
    int how, temps = 0;
    (void)state;
    memset(&o, 0, sizeof o);
    assert_int_equal(compile_run(g, &o, 3, y0), 0);
    assert_int_equal(count_files(dir, NULL, entry, sizeof entry), 1);
    for (how = 0; how < 8; how++) {
        tu_log_clear();
        corrupt(entry, how);
        assert_int_equal(compile_run(g, &o, 3, y), 0); /* recompiled, correct */
        tu_expect_log("[1] model cache: miss");
        tu_expect_log(reasons[how]);
        assert_memory_equal(y, y0, sizeof y);
        assert_int_equal(compile_run(g, &o, 3, y), 1); /* replaced by a good entry */
        assert_memory_equal(y, y0, sizeof y);
        assert_int_equal(count_files(dir, &temps, NULL, 0), 1);
        assert_int_equal(temps, 0);
    }
}

/* ---- processes ---- */


static void test_concurrent_processes_compile_the_same_model(void **state)
{
    char env_dir[1100];
    const char *env[2];
    pid_t p[4];
    int i, temps = 0, rc;
    (void)state;
    snprintf(env_dir, sizeof env_dir, "NPU_TEST_CACHE=%s", dir);
    env[0] = env_dir;
    env[1] = NULL;
    for (i = 0; i < 4; i++) p[i] = tu_spawn("--child-compile", env);
    for (i = 0; i < 4; i++) {
        rc = tu_reap(p[i]);
        assert_true(rc == 10 || rc == 11);
    }
    assert_int_equal(count_files(dir, &temps, NULL, 0), 1);
    assert_int_equal(temps, 0);
    assert_int_equal(compile_run(graph(1), NULL, 1, NULL), 1);
}

/* Child job: compile a model with 16 MiB of weights into the cache (slow
 * enough to be killed while it writes). */
static float big_w[1024 * 4096];

static npu_graph *graph_big(void)
{
    npu_graph *g = NULL;
    npu_shape xs = {2, {1, 1024}}, ws = {2, {1024, 4096}};
    npu_node *x, *w;
    size_t i;
    for (i = 0; i < 1024 * 4096; i++) big_w[i] = (float)((int)(i % 13) - 6) * 0.01f;
    assert_int_equal(npu_graph_create(&tu_arena, tu_ctx, NULL, &g), NPU_OK);
    x = npu_graph_parameter(g, "x", NPU_F32, &xs, "NC");
    w = npu_graph_constant(g, "w", NPU_F32, &ws, big_w, sizeof big_w);
    npu_graph_result(g, npu_graph_matmul(g, x, w, 0, 0, "mm"), "y");
    if (npu_graph_status(g) != NPU_OK) fail_msg("graph: %s", npu_graph_first_error(g));
    return g;
}

static int big_compile(int *from_cache, float *y0)
{
    npu_compile_options o;
    npu_model *m = NULL;
    npu_request *r = NULL;
    npu_model_info info;
    float *x;
    int i;
    /* Its own arena: a compiler without layout B (profile 2024) gets the 16 MiB
     * of weights copied into the payload. */
    static _Alignas(4096) unsigned char big_mem[40u << 20];
    npu_arena ba;
    assert_int_equal(npu_arena_init(&ba, big_mem, sizeof big_mem), NPU_OK);
    memset(&o, 0, sizeof o);
    o.cache_dir = dir;
    if (npu_model_compile_graph(dev, &ba, graph_big(), &o, &m) != NPU_OK) {
        print_message("big compile: %s\n", npu_context_last_error(tu_ctx));
        return 1;
    }
    npu_model_get_info(m, &info);
    *from_cache = info.from_cache;
    if (npu_request_create(m, &ba, NULL, &r) != NPU_OK) return 1;
    x = npu_request_input(r, 0);
    for (i = 0; i < 1024; i++) x[i] = (float)(i % 5);
    if (npu_request_infer(r) != NPU_OK) return 1;
    /* y[0] = sum_k x[k] * w[k][0] */
    {
        double s = 0;
        for (i = 0; i < 1024; i++) s += (double)(i % 5) * (double)big_w[(size_t)i * 4096];
        if (fabs((double)((float *)npu_request_output(r, 0))[0] - s) > 1e-2) return 2;
        *y0 = ((float *)npu_request_output(r, 0))[0];
    }
    npu_request_destroy(r);
    npu_model_destroy(m);
    return 0;
}

static int child_big(void)
{
    const char *d = getenv("NPU_TEST_CACHE");
    int from = 0;
    float y0;
    if (d == NULL) return 1;
    snprintf(dir, sizeof dir, "%s", d);
    open_all();
    if (big_compile(&from, &y0) != 0) return 1;
    npu_device_close(dev);
    return 10 + from;
}

static void test_writer_killed_mid_write(void **state)
{
    char env_dir[1100], entry[1024], temp[1100];
    const char *env[2];
    int attempt, caught = 0, temps = 0, from = 0, rc;
    float y0;
    (void)state;
    snprintf(env_dir, sizeof env_dir, "NPU_TEST_CACHE=%s", dir);
    env[0] = env_dir;
    env[1] = NULL;
    assert_int_equal(mkdir(dir, 0755), 0);
    for (attempt = 0; attempt < 3 && !caught; attempt++) {
        pid_t p = tu_spawn("--child-big", env);
        struct timespec ts = {0, 200000};
        int spins;
        for (spins = 0; spins < 50000; spins++) {
            if (count_files(dir, &temps, NULL, 0) == 0 && temps > 0) {
                kill(p, SIGKILL);
                caught = 1;
                break;
            }
            if (waitpid(p, NULL, WNOHANG) == p) {
                p = 0;
                break;
            }
            nanosleep(&ts, NULL);
        }
        if (p > 0) {
            if (!caught) kill(p, SIGKILL);
            (void)tu_reap(p);
        }
        if (!caught) {
            /* The child finished first: start over with an empty directory. */
            (void)remove_tree(dir);
            assert_int_equal(mkdir(dir, 0755), 0);
        }
    }
    print_message("writer killed mid-write: %s (after %d attempt(s))\n", caught ? "yes" : "no (finished first)",
                  attempt);
    /* Never a torn entry: no final entry, or a complete one. */
    if (caught) {
        assert_int_equal(count_files(dir, &temps, NULL, 0), 0);
        assert_true(temps >= 1);
        /* The abandoned temp file is fresh, but its writer is dead (its pid
         * is in the name): the next store removes it at once. */
    }
    (void)temp;
    /* The next run is correct and stores a good entry. */
    rc = big_compile(&from, &y0);
    assert_int_equal(rc, 0);
    assert_int_equal(count_files(dir, &temps, entry, sizeof entry), 1);
    assert_int_equal(temps, 0);
    rc = big_compile(&from, &y0);
    assert_int_equal(rc, 0);
    assert_int_equal(from, 1);
}

/* ---- unusable directories: the cache is a no-op, the compile works ---- */

static void test_unusable_directory_is_a_no_op(void **state)
{
    char file[900];
    FILE *f;
    (void)state;
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(file, sizeof file, "%.800s/plain-file", dir);
    f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    /* A path through a regular file: cannot be created or read. */
    snprintf(dir, sizeof dir, "%.900s/sub", file);
    assert_int_equal(compile_run(graph(1), NULL, 1, NULL), 0);
    tu_expect_log("[1] model cache: cannot create a file in");
    tu_expect_log(strerror(ENOTDIR));
    assert_int_equal(compile_run(graph(1), NULL, 1, NULL), 0);
    /* A read-only directory (not enforced for root: then it simply works). */
    snprintf(dir, sizeof dir, "%s/c%d-ro", root, test_no);
    assert_int_equal(mkdir(dir, 0555), 0);
    tu_log_clear();
    assert_int_equal(compile_run(graph(1), NULL, 1, NULL), 0);
    if (geteuid() != 0) {
        tu_expect_log("[1] model cache: cannot create a file in");
        assert_int_equal(count_files(dir, NULL, NULL, 0), 0);
    }
}

/* What the cache did, in npu_model_info; the directory is created with its
 * parents (the guide's /var/cache/myapp/npu with /var/cache/myapp missing);
 * a path too long leaves no error behind a successful compile. */
static npu_model_info compile_info(void)
{
    npu_compile_options o;
    npu_model *m = NULL;
    npu_model_info info;
    size_t mark = npu_arena_used(&tu_arena);
    memset(&o, 0, sizeof o);
    o.cache_dir = dir;
    npu_context_clear_error(tu_ctx);
    tu_ok(npu_model_compile_graph(dev, &tu_arena, graph(1), &o, &m), "compile with cache");
    assert_int_equal(npu_context_last_status(tu_ctx), NPU_OK);
    assert_string_equal(npu_context_last_error(tu_ctx), "");
    tu_ok(npu_model_get_info(m, &info), "info");
    npu_model_destroy(m);
    npu_arena_rewind(&tu_arena, mark);
    return info;
}

static void test_outcome_parents_and_long_paths(void **state)
{
    char base[1024], file[1100];
    npu_model_info info;
    struct stat st;
    mode_t old;
    FILE *f;
    (void)state;
    snprintf(base, sizeof base, "%s", dir);
    snprintf(dir, sizeof dir, "%s/var/cache/myapp/npu", base);
    old = umask(077);
    info = compile_info();
    assert_int_equal(info.cache, NPU_CACHE_STORED);
    assert_string_equal(info.cache_note, "miss: no entry");
    assert_int_equal(count_files(dir, NULL, file, sizeof file), 1);
    assert_int_equal(stat(file, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);   /* 0666 less the umask */
    snprintf(file, sizeof file, "%s/var/cache", base);
    assert_int_equal(stat(file, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);   /* 0777 less the umask */
    umask(old);
    info = compile_info();
    assert_int_equal(info.cache, NPU_CACHE_HIT);
    assert_true(info.from_cache);
    /* A corrupt entry: recompiled, stored, and the note says why it missed. */
    assert_int_equal(count_files(dir, NULL, file, sizeof file), 1);
    f = fopen(file, "r+b");
    assert_non_null(f);
    fseek(f, 5000, SEEK_SET);
    fputc(0x5a ^ fgetc(f), f);
    fseek(f, 5000, SEEK_SET);
    fputc(0xa5, f);
    fclose(f);
    info = compile_info();
    assert_int_equal(info.cache, NPU_CACHE_STORED);
    assert_non_null(strstr(info.cache_note, "miss: "));
    assert_string_not_equal(info.cache_note, "miss: no entry");
    /* Not stored: through a regular file, and a path too long. */
    snprintf(dir, sizeof dir, "%s/var/cache/myapp/npu/%s", base, strrchr(file, '/') + 1);
    info = compile_info();
    assert_int_equal(info.cache, NPU_CACHE_NOT_STORED);
    assert_non_null(strstr(info.cache_note, strerror(ENOTDIR)));
    memset(dir, 'a', sizeof dir - 1);
    dir[0] = '/';
    dir[sizeof dir - 1] = '\0';
    info = compile_info();
    assert_int_equal(info.cache, NPU_CACHE_NOT_STORED);
    assert_non_null(strstr(info.cache_note, "too long"));
    /* Without a cache directory. */
    {
        npu_model *m = NULL;
        size_t mark = npu_arena_used(&tu_arena);
        tu_ok(npu_model_compile_graph(dev, &tu_arena, graph(1), NULL, &m), "compile");
        tu_ok(npu_model_get_info(m, &info), "info");
        assert_int_equal(info.cache, NPU_CACHE_NOT_USED);
        npu_model_destroy(m);
        npu_arena_rewind(&tu_arena, mark);
    }
}

static void on_alarm(int sig)
{
    static const char msg[] = "blocked on a FIFO cache entry\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) _exit(3);
    _exit(2);
}

/* An entry someone replaced with a FIFO is a miss, at once; the store
 * replaces it. Temp files of dead writers go on the next store. */
static void test_fifo_entry_and_orphans(void **state)
{
    char entry[1100], orphan[1200];
    npu_model_info info;
    int temps = 0;
    pid_t p;
    FILE *f;
    (void)state;
    info = compile_info();
    assert_int_equal(info.cache, NPU_CACHE_STORED);
    assert_int_equal(count_files(dir, NULL, entry, sizeof entry), 1);
    assert_int_equal(unlink(entry), 0);
    assert_int_equal(mkfifo(entry, 0600), 0);
    signal(SIGALRM, on_alarm);
    alarm(20);
    info = compile_info();
    alarm(0);
    assert_int_equal(info.cache, NPU_CACHE_STORED);
    assert_non_null(strstr(info.cache_note, "not a regular file"));
    info = compile_info();
    assert_int_equal(info.cache, NPU_CACHE_HIT);
    /* A fresh temp file of a process that is gone, and one of a live one. */
    p = fork();
    if (p == 0) _exit(0);
    assert_int_equal(waitpid(p, NULL, 0), p);
    snprintf(orphan, sizeof orphan, "%s/.npucache-0123456789abcdef0123456789abcdef-%ld-1-1.tmp", dir, (long)p);
    f = fopen(orphan, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(orphan, sizeof orphan, "%s/.npucache-0123456789abcdef0123456789abcdef-%ld-1-1.tmp", dir,
             (long)getppid());
    f = fopen(orphan, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(unlink(entry), 0);
    info = compile_info();
    assert_int_equal(info.cache, NPU_CACHE_STORED);
    count_files(dir, &temps, NULL, 0);
    assert_int_equal(temps, 1);   /* the live writer's stays */
    assert_int_equal(access(orphan, F_OK), 0);
    unlink(orphan);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_second_compile_is_a_hit_with_identical_outputs, setup_each),
        cmocka_unit_test_setup(test_constant_option_and_batch_mode_change_the_key, setup_each),
        cmocka_unit_test_setup(test_graph_key_tells_every_model_change_apart, setup_each),
        cmocka_unit_test_setup(test_small_entry_read_or_mapped_by_arena_room, setup_each),
        cmocka_unit_test_setup(test_other_platform_misses, setup_each),
        cmocka_unit_test_setup(test_ir_hits, setup_each),
        cmocka_unit_test_setup(test_every_bad_entry_is_recompiled_and_replaced, setup_each),
        cmocka_unit_test_setup(test_hit_needs_what_a_compile_needs, setup_each),
        cmocka_unit_test_setup(test_concurrent_processes_compile_the_same_model, setup_each),
        cmocka_unit_test_setup(test_writer_killed_mid_write, setup_each),
        cmocka_unit_test_setup(test_unusable_directory_is_a_no_op, setup_each),
        cmocka_unit_test_setup(test_outcome_parents_and_long_paths, setup_each),
        cmocka_unit_test_setup(test_fifo_entry_and_orphans, setup_each),
    };
    if (argc == 2 && strcmp(argv[1], "--child-compile") == 0) return child_compile();
    if (argc == 2 && strcmp(argv[1], "--child-big") == 0) return child_big();
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
