/* White-box: the NH128 hash, cache keys and the cache directory (store, load,
 * corruption, unwritable directories, concurrent writers, a writer killed
 * mid-write). */
#include <stdlib.h> /* before npu.c: the tests use malloc */
#include "../npu.c"

#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "l0_test_util.h"   /* the software NPU, for the compile path's tests */

/* npu__cache_open takes the entry path buffer from its caller. */
static char wb_path[NPU__CACHE_PATH_MAX];

/* ---- context with a logger that keeps the last warning ------------------ */
static _Alignas(16) unsigned char ctx_mem[8192];
static char last_warning[512];
static int warnings;

static void logger(void *user, npu_log_level level, const char *message)
{
    (void)user;
    if (level <= NPU_LOG_WARN) {
        snprintf(last_warning, sizeof last_warning, "%s", message);
        warnings++;
    }
}

static npu_context *new_ctx(void)
{
    npu_arena a;
    npu_context *ctx = NULL;
    npu_context_options o = {.log = logger, .log_user_data = NULL, .log_level = NPU_LOG_DEBUG};
    assert_int_equal(npu_arena_init(&a, ctx_mem, sizeof ctx_mem), NPU_OK);
    assert_int_equal(npu_context_create(&a, &o, &ctx), NPU_OK);
    last_warning[0] = '\0';
    warnings = 0;
    return ctx;
}

/* ---- deterministic data ------------------------------------------------- */
static uint64_t rng_state = 0x1234567;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A self-describing payload: word 0 = (tag << 32 | n), the rest derived from
 * it, so a reader can tell a complete payload from a torn one on its own. */
static void fill_payload(unsigned char *p, size_t n, uint32_t tag)
{
    uint64_t head = (uint64_t)tag << 32 | (uint32_t)n, x = head * 0x9e3779b97f4a7c15ull + 1;
    assert_true(n >= 8);
    npu__le_put(p, head, 8);
    for (size_t i = 8; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (unsigned char)x;
    }
}
static int payload_ok(const unsigned char *p, size_t n)
{
    uint64_t head, x;
    if (n < 8) return 0;
    head = npu__le_get(p, 8);
    if ((uint32_t)head != (uint32_t)n) return 0;
    x = head * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 8; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if (p[i] != (unsigned char)x) return 0;
    }
    return 1;
}

static npu__digest nh(const void *p, size_t n, uint64_t seed)
{
    npu__nh128 h;
    npu__nh128_init(&h, seed);
    npu__nh128_update(&h, p, n);
    return npu__nh128_final(&h);
}

/* ==== hash =============================================================== */

static void test_hash_streaming_in_pieces_equals_one_shot(void **state)
{
    static unsigned char data[4096];
    (void)state;
    for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)rnd();
    for (size_t n = 0; n <= 200; n++) {
        npu__digest one = nh(data, n, 7);
        /* every single split point */
        for (size_t cut = 0; cut <= n; cut++) {
            npu__nh128 h;
            npu__nh128_init(&h, 7);
            npu__nh128_update(&h, data, cut);
            npu__nh128_update(&h, data + cut, n - cut);
            npu__digest two = npu__nh128_final(&h);
            assert_true(npu__digest_equal(&one, &two));
        }
    }
    /* random many-piece splits of a long input, and a mid-stream final */
    for (int round = 0; round < 200; round++) {
        size_t n = (size_t)(rnd() % sizeof data), pos = 0;
        npu__digest one = nh(data, n, 99);
        npu__nh128 h;
        npu__nh128_init(&h, 99);
        while (pos < n) {
            size_t k = (size_t)(rnd() % 70);
            if (k > n - pos) k = n - pos;
            npu__nh128_update(&h, data + pos, k);
            (void)npu__nh128_final(&h); /* must not disturb the state */
            pos += k;
        }
        npu__digest two = npu__nh128_final(&h);
        assert_true(npu__digest_equal(&one, &two));
    }
}

static void test_hash_single_bit_changes_flip_half_the_output_bits(void **state)
{
    unsigned char in[96];
    static unsigned flips[128];
    unsigned long long trials = 0, total_flips = 0;
    (void)state;
    memset(flips, 0, sizeof flips);
    for (int round = 0; round < 300; round++) {
        size_t n = 1 + (size_t)round % sizeof in;
        for (size_t i = 0; i < n; i++) in[i] = (unsigned char)rnd();
        npu__digest base = nh(in, n, 0);
        for (size_t bit = 0; bit < n * 8; bit++) {
            in[bit / 8] ^= (unsigned char)(1u << (bit % 8));
            npu__digest d = nh(in, n, 0);
            in[bit / 8] ^= (unsigned char)(1u << (bit % 8));
            for (unsigned o = 0; o < 128; o++) {
                unsigned f = (unsigned)(((base.h[o / 64] ^ d.h[o / 64]) >> (o % 64)) & 1u);
                flips[o] += f;
                total_flips += f;
            }
            trials++;
        }
    }
    double mean = (double)total_flips / (double)trials;
    print_message("avalanche: %llu single-bit changes, %.3f of 128 output bits flip on average\n",
                  trials, mean);
    assert_true(mean > 63.0 && mean < 65.0);
    for (unsigned o = 0; o < 128; o++) {
        double p = (double)flips[o] / (double)trials;
        if (p < 0.48 || p > 0.52) fail_msg("output bit %u flips with probability %.4f", o, p);
    }
}

static int cmp_digest(const void *a, const void *b)
{
    const npu__digest *x = (const npu__digest *)a, *y = (const npu__digest *)b;
    if (x->h[0] != y->h[0]) return x->h[0] < y->h[0] ? -1 : 1;
    if (x->h[1] != y->h[1]) return x->h[1] < y->h[1] ? -1 : 1;
    return 0;
}

static void test_hash_no_collisions_over_100k_short_inputs(void **state)
{
    enum { N = 100000 };
    npu__digest *d = calloc(3 * N + 1, sizeof *d);
    size_t k = 0;
    char text[32];
    unsigned char word[8];
    (void)state;
    for (uint32_t i = 0; i < N; i++) {
        int len = snprintf(text, sizeof text, "%u", i);
        d[k++] = nh(text, (size_t)len, 0);
        npu__le_put(word, i, 8);
        d[k++] = nh(word, 8, 0);
        /* the same counter as 4 bytes: differs from the 8-byte one only by length */
        d[k++] = nh(word, 4, 0);
    }
    d[k++] = nh("", 0, 0);
    qsort(d, k, sizeof *d, cmp_digest);
    for (size_t i = 1; i < k; i++) {
        assert_false(npu__digest_equal(&d[i - 1], &d[i]));
        /* not even the low half collides */
    }
    free(d);
}

static void test_hash_seeds_and_zero_padding_are_distinguished(void **state)
{
    unsigned char zeros[64] = {0};
    (void)state;
    npu__digest a = nh("abc", 3, NPU__SEED_KEY), b = nh("abc", 3, NPU__SEED_CHECK);
    assert_false(npu__digest_equal(&a, &b));
    for (size_t n = 0; n < sizeof zeros; n++) {
        npu__digest x = nh(zeros, n, 0), y = nh(zeros, n + 1, 0);
        assert_false(npu__digest_equal(&x, &y));
    }
}

#define NH128_EMPTY "544057cf54493d3f0b076796c32f2ac6"
#define NH128_FOX "c278ef96101b5112316218c5d0ea58a9"   /* the one-multiply round (entry format 2, NPUKEY03) */

/* The digest is part of the on-disk format (file names, checksums): pinned
 * so that an accidental change of the function is caught. */
static void test_hash_known_values_are_stable(void **state)
{
    char hex[33];
    (void)state;
    npu__digest d = nh("", 0, 0);
    npu__digest_hex(&d, hex);
    print_message("NH128('') = %s\n", hex);
    assert_string_equal(hex, NH128_EMPTY);
    d = nh("The quick brown fox jumps over the lazy dog", 43, 0);
    npu__digest_hex(&d, hex);
    print_message("NH128(fox) = %s\n", hex);
    assert_string_equal(hex, NH128_FOX);
}

/* NH128 written out from its description in npu.c (section 13b), one byte
 * at a time: the reference for the library's word loads and lane loop. */
static uint64_t ref_rotl(uint64_t x, unsigned r) { return (x << r) | (x >> (64u - r)); }
static uint64_t ref_fmix(uint64_t x)
{
    x ^= x >> 32;
    x *= 0xbb67ae8584caa73bull;
    x ^= x >> 29;
    x *= 0xa54ff53a5f1d36f1ull;
    x ^= x >> 32;
    return x;
}
static npu__digest ref_nh128(const unsigned char *p, size_t n, uint64_t seed)
{
    uint64_t lane[4], a, b;
    size_t i, j;
    npu__digest d;
    for (i = 0; i < 4; i++) lane[i] = ref_fmix(seed + (uint64_t)(i + 1) * 0x510e527fade682d1ull);
    for (i = 0; i < (n + 31) / 32; i++) {           /* the last stripe zero-padded */
        for (j = 0; j < 4; j++) {
            uint64_t w = 0;
            for (unsigned k = 0; k < 8; k++) {
                size_t at = i * 32 + j * 8 + k;
                w |= (uint64_t)(at < n ? p[at] : 0) << (8 * k);
            }
            lane[j] = ref_rotl(lane[j] + w, 31) * 0xbb67ae8584caa73bull;
        }
    }
    a = ref_fmix((uint64_t)n ^ 0x3c6ef372fe94f82bull);
    b = ref_fmix((uint64_t)n + 0xa54ff53a5f1d36f1ull);
    for (j = 0; j < 4; j++) {
        a = ref_fmix(a ^ lane[j]);
        b = ref_fmix(b + ref_rotl(lane[j], 27));
    }
    a += b;
    b += a;
    d.h[0] = ref_fmix(a);
    d.h[1] = ref_fmix(b);
    return d;
}

static void test_hash_matches_a_bytewise_reference_on_long_unaligned_input(void **state)
{
    static unsigned char data[100003];
    (void)state;
    for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)rnd();
    for (size_t off = 0; off < 8; off += 3) {
        size_t n = sizeof data - off;
        npu__digest want = ref_nh128(data + off, n, 0x1234), got = nh(data + off, n, 0x1234);
        assert_true(npu__digest_equal(&want, &got));
    }
}

/* The key's byte stream is [u32 tag][bytes][u64 count] per field, hashed with
 * the key and the check seeds, however the bytes are split: pieces smaller
 * than its gathering buffer, larger ones, and one of several MiB. */
static void test_cache_key_is_the_framed_stream_however_it_is_fed(void **state)
{
    static unsigned char big[(3u << 20) + 77], all[(3u << 20) + 5200];
    size_t n = 0, pos = 0;
    npu__cache_key k;
    npu__digest key, check, want_key, want_check;
    (void)state;
    for (size_t i = 0; i < sizeof big; i++) big[i] = (unsigned char)rnd();
    /* field 1: STRUCTURE, fed in random pieces of 0..600 bytes (the first 5000) */
    npu__cache_key_init(&k);
    npu__cache_key_begin(&k, NPU__KEY_STRUCTURE);
    while (pos < 5000) {
        size_t piece = (size_t)(rnd() % 601);
        if (piece > 5000 - pos) piece = 5000 - pos;
        npu__cache_key_feed(&k, big + pos, piece);
        pos += piece;
    }
    npu__cache_key_end(&k);
    /* field 2: a CONSTANT of 3 MiB in one piece; field 3: a u32 */
    npu__cache_key_field(&k, NPU__KEY_CONSTANT, big, sizeof big);
    npu__cache_key_u32(&k, NPU__KEY_COMPILER, 0x00070009u);
    npu__cache_key_final(&k, &key, &check);

    /* the reference: the whole stream written out, hashed in one call */
    npu__le_put(all + n, NPU__KEY_STRUCTURE, 4), n += 4;
    memcpy(all + n, big, 5000), n += 5000;
    npu__le_put(all + n, 5000, 8), n += 8;
    npu__le_put(all + n, NPU__KEY_CONSTANT, 4), n += 4;
    memcpy(all + n, big, sizeof big), n += sizeof big;
    npu__le_put(all + n, sizeof big, 8), n += 8;
    npu__le_put(all + n, NPU__KEY_COMPILER, 4), n += 4;
    npu__le_put(all + n, 0x00070009u, 4), n += 4;
    npu__le_put(all + n, 4, 8), n += 8;
    want_key = ref_nh128(all, n, NPU__SEED_KEY);
    want_check = ref_nh128(all, n, NPU__SEED_CHECK);
    assert_true(npu__digest_equal(&key, &want_key));
    assert_true(npu__digest_equal(&check, &want_check));
}

static void test_cache_key_fields_are_framed(void **state)
{
    npu__cache_key k1, k2;
    npu__digest a1, a2, b1, b2;
    (void)state;
    /* "ab" + "c" vs "a" + "bc" in two fields of the same tag */
    npu__cache_key_init(&k1);
    npu__cache_key_field(&k1, NPU__KEY_CONSTANT, "ab", 2);
    npu__cache_key_field(&k1, NPU__KEY_CONSTANT, "c", 1);
    npu__cache_key_init(&k2);
    npu__cache_key_field(&k2, NPU__KEY_CONSTANT, "a", 1);
    npu__cache_key_field(&k2, NPU__KEY_CONSTANT, "bc", 2);
    npu__cache_key_final(&k1, &a1, &b1);
    npu__cache_key_final(&k2, &a2, &b2);
    assert_false(npu__digest_equal(&a1, &a2));
    assert_false(npu__digest_equal(&b1, &b2));
    assert_false(npu__digest_equal(&a1, &b1));
    /* the same bytes under another tag */
    npu__cache_key_init(&k2);
    npu__cache_key_field(&k2, NPU__KEY_OPTIONS, "ab", 2);
    npu__cache_key_field(&k2, NPU__KEY_CONSTANT, "c", 1);
    npu__cache_key_final(&k2, &a2, &b2);
    assert_false(npu__digest_equal(&a1, &a2));
    /* a field streamed through a sink equals the same field in one piece */
    npu__cache_key_init(&k2);
    npu__cache_key_begin(&k2, NPU__KEY_CONSTANT);
    {
        npu__sink s;
        npu__sink_init(&s, NULL, 0);
        s.feed = npu__cache_key_feed;
        s.feed_state = &k2;
        npu__sink_str(&s, "a");
        npu__sink_str(&s, "b");
        assert_int_equal(s.len, 2);
    }
    npu__cache_key_end(&k2);
    npu__cache_key_field(&k2, NPU__KEY_CONSTANT, "c", 1);
    npu__cache_key_final(&k2, &a2, &b2);
    assert_true(npu__digest_equal(&a1, &a2));
    assert_true(npu__digest_equal(&b1, &b2));
}

/* ==== cache directory ==================================================== */

static char dir[256];

static int setup_dir(void **state)
{
    const char *tmp = getenv("TMPDIR");
    (void)state;
    snprintf(dir, sizeof dir, "%s/npu-cache-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) return -1;
    return 0;
}

static int teardown_dir(void **state)
{
    char cmd[300];
    (void)state;
    chmod(dir, 0755);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void make_fields(npu__cache_fields *f, const char *model, uint32_t compiler)
{
    npu__cache_key k;
    npu__cache_key_init(&k);
    npu__cache_key_field(&k, NPU__KEY_STRUCTURE, model, strlen(model));
    npu__cache_key_field(&k, NPU__KEY_OPTIONS, "--config X=1", 12);
    npu__cache_key_u32(&k, NPU__KEY_COMPILER, compiler);
    npu__cache_key_field(&k, NPU__KEY_PLATFORM, "3720", 4);
    npu__cache_key_u32(&k, NPU__KEY_NPU_VERSION, NPU_VERSION);
    npu__cache_fields_init(f, &k, compiler, "3720", model);
}

static void entry_path(const npu__cache_fields *f, char *buf, size_t cap)
{
    assert_int_equal(npu__cache_entry_path(dir, &f->key, buf, cap), NPU_OK);
}

static unsigned count_temps(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    unsigned n = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, ".npucache-", 10) == 0) n++;
    closedir(d);
    return n;
}

/* Scratch for entries read() instead of mapped (npu__cache_open_into). */
static _Alignas(16) unsigned char wb_scratch[NPU__CACHE_READ_MAX + 4096];

/* Both ways of loading: mapped (npu__cache_open), and read into scratch
 * (npu__cache_open_into: read up to NPU__CACHE_READ_MAX, mapped above). */
static void expect_hit(npu_context *ctx, const npu__cache_fields *f, const unsigned char *blob,
                       size_t n)
{
    npu__cache_mapping m;
    npu_status st = npu__cache_open(ctx, dir, f, &m, wb_path);
    if (st != NPU_OK) fail_msg("expected a hit, got %d: %s", st, m.reason);
    assert_int_equal(m.payload_size, n);
    assert_int_equal((uintptr_t)m.payload % 4096, 0);
    assert_memory_equal(m.payload, blob, n);
    assert_string_equal(m.reason, "");
    assert_null(m.read_at);
    npu__cache_close(&m);
    assert_null(m.base);

    st = npu__cache_open_into(ctx, dir, f, &m, wb_path, wb_scratch, sizeof wb_scratch);
    if (st != NPU_OK) fail_msg("expected a hit (read), got %d: %s", st, m.reason);
    assert_int_equal(m.payload_size, n);
    assert_memory_equal(m.payload, blob, n);
    if (n + NPU__CACHE_HEADER <= NPU__CACHE_READ_MAX) {
        assert_null(m.base);
        assert_true(m.read_at >= wb_scratch && m.payload + n <= wb_scratch + sizeof wb_scratch);
    } else {
        assert_non_null(m.base);
        assert_null(m.read_at);
    }
    npu__cache_close(&m);
    assert_null(m.base);
    assert_null(m.read_at);
}

static void expect_miss(npu_context *ctx, const npu__cache_fields *f, npu_status want,
                        const char *reason)
{
    npu__cache_mapping m;
    int k;
    for (k = 0; k < 2; k++) {
        npu_status st = k == 0 ? npu__cache_open(ctx, dir, f, &m, wb_path)
                               : npu__cache_open_into(ctx, dir, f, &m, wb_path, wb_scratch, sizeof wb_scratch);
        assert_int_equal(st, want);
        assert_null(m.base);
        assert_null(m.read_at);
        assert_null(m.payload);
        if (strstr(m.reason, reason) == NULL) fail_msg("reason '%s' lacks '%s' (%s)", m.reason, reason,
                                                       k == 0 ? "mapped" : "read");
        npu__cache_close(&m);
    }
}

static void test_entry_path_is_dir_slash_32_hex_digits(void **state)
{
    npu__cache_fields f;
    char buf[512], small[40];
    (void)state;
    make_fields(&f, "m", 1);
    entry_path(&f, buf, sizeof buf);
    assert_int_equal(strlen(buf), strlen(dir) + 1 + 32 + strlen(".npucache"));
    assert_int_equal(strncmp(buf, dir, strlen(dir)), 0);
    for (size_t i = strlen(dir) + 1; i < strlen(dir) + 33; i++)
        assert_non_null(strchr("0123456789abcdef", buf[i]));
    assert_int_equal(npu__cache_entry_path(dir, &f.key, small, sizeof small),
                     NPU_ERR_BUFFER_TOO_SMALL);
}

static void test_store_then_load_round_trip_and_miss_by_key(void **state)
{
    npu_context *ctx = new_ctx();
    npu__cache_fields f, other;
    size_t n = 100000;
    unsigned char *blob = malloc(n);
    struct stat st;
    char path[512];
    (void)state;
    fill_payload(blob, n, 1);
    make_fields(&f, "model-a", 0x70015);
    make_fields(&other, "model-b", 0x70015);
    expect_miss(ctx, &f, NPU_ERR_NOT_FOUND, "no entry");
    assert_int_equal(npu__cache_store(ctx, dir, &f, blob, n), NPU_OK);
    entry_path(&f, path, sizeof path);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 4096 + n);
    expect_hit(ctx, &f, blob, n);
    expect_miss(ctx, &other, NPU_ERR_NOT_FOUND, "no entry");
    assert_int_equal(count_temps(), 0);
    /* an empty payload is a valid entry too */
    make_fields(&other, "empty", 1);
    assert_int_equal(npu__cache_store(ctx, dir, &other, blob, 0), NPU_OK);
    expect_hit(ctx, &other, blob, 0);
    assert_int_equal(warnings, 0);
    free(blob);
}

/* The file name (key) matches but the rest of the identity does not. */
static void test_same_key_with_other_identity_is_a_miss(void **state)
{
    npu_context *ctx = new_ctx();
    npu__cache_fields f, g;
    unsigned char blob[5000];
    (void)state;
    fill_payload(blob, sizeof blob, 2);
    make_fields(&f, "model-c", 0x70015);
    assert_int_equal(npu__cache_store(ctx, dir, &f, blob, sizeof blob), NPU_OK);
    g = f;
    g.check.h[1] ^= 1;
    expect_miss(ctx, &g, NPU_ERR_FORMAT, "check digest");
    g = f;
    g.compiler_version++;
    expect_miss(ctx, &g, NPU_ERR_FORMAT, "compiler version");
    g = f;
    g.npu_version++;
    expect_miss(ctx, &g, NPU_ERR_FORMAT, "npu");
    g = f;
    strcpy(g.platform, "4000");
    expect_miss(ctx, &g, NPU_ERR_FORMAT, "platform");
    g = f;
    strcpy(g.descriptor, "model-d");
    expect_miss(ctx, &g, NPU_ERR_FORMAT, "descriptor");
    assert_non_null(strstr(last_warning, "descriptor"));
    expect_hit(ctx, &f, blob, sizeof blob);
}

static void write_file(const char *path, const void *p, size_t n)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    if (n) assert_int_equal(fwrite(p, 1, n, fp), n);
    assert_int_equal(fclose(fp), 0);
}

static unsigned char *read_file(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *p;
    long len;
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    p = malloc((size_t)len + 1);
    assert_int_equal(fread(p, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);
    *n = (size_t)len;
    return p;
}

/* Each corruption: a miss with a reason; then a store replaces the entry and
 * the next load hits. */
static void test_every_corruption_is_a_miss_and_a_store_repairs_it(void **state)
{
    npu_context *ctx = new_ctx();
    npu__cache_fields f;
    size_t n = 20000, size;
    unsigned char *blob = malloc(n), *good;
    char path[512];
    (void)state;
    fill_payload(blob, n, 3);
    make_fields(&f, "model-e", 0x70015);
    entry_path(&f, path, sizeof path);
    assert_int_equal(npu__cache_store(ctx, dir, &f, blob, n), NPU_OK);
    good = read_file(path, &size);
    assert_int_equal(size, 4096 + n);

    struct {
        const char *what;
        size_t truncate;       /* keep this many bytes (SIZE_MAX: all) */
        size_t flip;           /* byte to flip (SIZE_MAX: none) */
        const char *reason;
    } cases[] = {
        {"zero-length file", 0, SIZE_MAX, "truncated"},
        {"1 byte", 1, SIZE_MAX, "truncated"},
        {"half the header", 2048, SIZE_MAX, "truncated"},
        {"header only", 4096, SIZE_MAX, "payload size"},
        {"half the payload", 4096 + 10000, SIZE_MAX, "payload size"},
        {"last byte missing", 4096 + 20000 - 1, SIZE_MAX, "payload size"},
        {"magic bit", SIZE_MAX, 0, "magic"},
        {"format version bit", SIZE_MAX, 8, "format version"},
        {"header size bit", SIZE_MAX, 13, "header size"},
        {"key bit", SIZE_MAX, 20, "key"},
        {"check bit", SIZE_MAX, 40, "check digest"},
        {"payload size bit", SIZE_MAX, 50, "payload size"},
        {"compiler bit", SIZE_MAX, 57, "compiler"},
        {"platform bit", SIZE_MAX, 65, "platform"},
        {"descriptor bit", SIZE_MAX, 130, "descriptor"},
        {"checksum bit", SIZE_MAX, 260, "checksum"},
        {"compile payload size bit", SIZE_MAX, 273, "checksum"},
        {"padding bit", SIZE_MAX, 3000, "non-zero"},
        {"first payload bit", SIZE_MAX, 4096, "checksum"},
        {"middle payload bit", SIZE_MAX, 4096 + 10000, "checksum"},
        {"last payload bit", SIZE_MAX, 4096 + 20000 - 1, "checksum"},
    };
    for (size_t i = 0; i < NPU__COUNT_OF(cases); i++) {
        unsigned char *bad = malloc(size);
        size_t len = cases[i].truncate == SIZE_MAX ? size : cases[i].truncate;
        memcpy(bad, good, size);
        if (cases[i].flip != SIZE_MAX) bad[cases[i].flip] ^= 0x10;
        write_file(path, bad, len);
        print_message("%s\n", cases[i].what);
        expect_miss(ctx, &f, NPU_ERR_FORMAT, cases[i].reason);
        assert_non_null(strstr(last_warning, cases[i].reason));
        assert_int_equal(npu__cache_store(ctx, dir, &f, blob, n), NPU_OK);
        expect_hit(ctx, &f, blob, n);
        free(bad);
    }
    /* one extra byte at the end */
    {
        unsigned char *big = malloc(size + 1);
        memcpy(big, good, size);
        big[size] = 0;
        write_file(path, big, size + 1);
        expect_miss(ctx, &f, NPU_ERR_FORMAT, "payload size");
        free(big);
    }
    /* a file of another format under the same name */
    {
        unsigned char foreign[10000];
        memset(foreign, 'x', sizeof foreign);
        memcpy(foreign, "\x7f" "ELF\x02\x01\x01", 7);
        write_file(path, foreign, sizeof foreign);
        expect_miss(ctx, &f, NPU_ERR_FORMAT, "magic");
    }
    /* a well-formed entry of format version 1, an older npu's (checksum
     * recomputed) */
    {
        unsigned char *v2 = malloc(size);
        npu__nh128 h;
        memcpy(v2, good, size);
        npu__le_put(v2 + 8, 1, 4);
        npu__nh128_init(&h, NPU__SEED_CHECKSUM);
        npu__nh128_update(&h, v2 + 4096, n);
        npu__digest sum = npu__cache_checksum(&h, v2);
        npu__le_put(v2 + 256, sum.h[0], 8);
        npu__le_put(v2 + 264, sum.h[1], 8);
        write_file(path, v2, size);
        expect_miss(ctx, &f, NPU_ERR_FORMAT, "format version 1");
        free(v2);
    }
    /* a directory where the entry should be */
    unlink(path);
    assert_int_equal(mkdir(path, 0755), 0);
    expect_miss(ctx, &f, NPU_ERR_IO, "not a regular file");
    rmdir(path);
    assert_int_equal(npu__cache_store(ctx, dir, &f, blob, n), NPU_OK);
    expect_hit(ctx, &f, blob, n);
    free(good);
    free(blob);
}

/* An entry records the payload size a compile of its form writes, and a hit
 * takes the arena a compile needs from it (test_cache checks that this is
 * the size query's figure). An entry claiming more than the arena has left
 * (only a crafted one can: the checksum covers the field) or an impossible
 * size cannot fail a compile that fits: the compile checks its own need,
 * runs, and replaces the entry. */
static void test_an_entry_cannot_fail_a_compile_that_fits(void **state)
{
    static const uint64_t claims[] = {UINT64_MAX, (uint64_t)64 << 30};
    static const char *const reasons[] = {"out of range", "more than is left"};
    char cdir[300], entry[600];
    npu_compile_options o;
    npu_device *d;
    npu_graph *g;
    DIR *dp;
    struct dirent *e;
    size_t i, size;
    int pass;
    (void)state;
    tu_init_context_logged(NPU_LOG_WARN);
    d = tu_open();
    g = tu_graph_affine(&tu_arena, 1);
    snprintf(cdir, sizeof cdir, "%s/fits", dir);
    memset(&o, 0, sizeof o);
    o.cache_dir = cdir;
    for (i = 0; i <= NPU__COUNT_OF(claims); i++) {
        for (pass = 0; pass < 2; pass++) {   /* a miss (stored or replaced), then a hit */
            npu_model *m = NULL;
            npu_model_info info;
            size_t mark = npu_arena_used(&tu_arena);
            tu_log_clear();
            tu_ok(npu_model_compile_graph(d, &tu_arena, g, &o, &m), "compile");
            tu_ok(npu_model_get_info(m, &info), "info");
            assert_int_equal(info.from_cache, pass);
            if (pass == 0 && i > 0 && strstr(info.cache_note, reasons[i - 1]) == NULL)
                fail_msg("cache note '%s' lacks '%s'", info.cache_note, reasons[i - 1]);
            npu_model_destroy(m);
            npu_arena_rewind(&tu_arena, mark);
        }
        if (i == NPU__COUNT_OF(claims)) break;
        /* the entry, with the claim and a checksum that holds */
        dp = opendir(cdir);
        assert_non_null(dp);
        entry[0] = '\0';
        while ((e = readdir(dp)) != NULL)
            if (strstr(e->d_name, ".npucache") != NULL && e->d_name[0] != '.')
                snprintf(entry, sizeof entry, "%s/%s", cdir, e->d_name);
        closedir(dp);
        assert_true(entry[0] != '\0');
        {
            unsigned char *p = read_file(entry, &size);
            npu__nh128 h;
            npu__digest sum;
            assert_true(size > NPU__CACHE_HEADER);
            assert_true(npu__le_get(p + NPU__CACHE_OFF_COMPILE_PAYLOAD, 8) > 0);   /* recorded on the store */
            npu__le_put(p + NPU__CACHE_OFF_COMPILE_PAYLOAD, claims[i], 8);
            npu__nh128_init(&h, NPU__SEED_CHECKSUM);
            npu__nh128_update(&h, p + NPU__CACHE_HEADER, size - NPU__CACHE_HEADER);
            sum = npu__cache_checksum(&h, p);
            npu__le_put(p + NPU__CACHE_OFF_CHECKSUM, sum.h[0], 8);
            npu__le_put(p + NPU__CACHE_OFF_CHECKSUM + 8, sum.h[1], 8);
            write_file(entry, p, size);
            free(p);
        }
    }
    npu_device_close(d);
}

static void test_unwritable_directory_makes_store_a_logged_no_op(void **state)
{
    npu_context *ctx = new_ctx();
    npu__cache_fields f;
    unsigned char blob[4096];
    char file[300], under[400], ro[300];
    (void)state;
    fill_payload(blob, sizeof blob, 4);
    make_fields(&f, "model-f", 1);
    /* a "directory" below a regular file: ENOTDIR */
    snprintf(file, sizeof file, "%s/plain-file", dir);
    write_file(file, "x", 1);
    snprintf(under, sizeof under, "%s/cache", file);
    warnings = 0;
    assert_int_equal(npu__cache_store(ctx, under, &f, blob, sizeof blob), NPU_ERR_IO);
    assert_true(warnings > 0);
    assert_non_null(strstr(last_warning, "continuing"));
    assert_int_equal(npu_context_last_status(ctx), NPU_OK); /* not an error */
    {
        npu__cache_mapping m;
        assert_true(npu__cache_open(ctx, under, &f, &m, wb_path) != NPU_OK);
    }
    /* a missing directory is created (one level) */
    snprintf(ro, sizeof ro, "%s/new-dir", dir);
    assert_int_equal(npu__cache_store(ctx, ro, &f, blob, sizeof blob), NPU_OK);
    /* read-only directory: only meaningful when not root */
    snprintf(ro, sizeof ro, "%s/read-only", dir);
    assert_int_equal(mkdir(ro, 0755), 0);
    assert_int_equal(chmod(ro, 0555), 0);
    if (geteuid() != 0) {
        warnings = 0;
        assert_int_equal(npu__cache_store(ctx, ro, &f, blob, sizeof blob), NPU_ERR_IO);
        assert_true(warnings > 0);
    } else {
        print_message("skipped: the read-only directory case: running as root, chmod 0555 does not block writes\n");
    }
    chmod(ro, 0755);
}

/* The sink-based writer: the blob streamed piecewise, then the OVNPU tail. */
static void test_streamed_export_through_a_sink(void **state)
{
    npu_context *ctx = new_ctx();
    npu__cache_fields f;
    npu__cache_writer w;
    npu__cache_mapping m;
    npu__blob_meta meta, back;
    npu__sink s;
    size_t n = 70000;
    unsigned char *blob = malloc(n);
    (void)state;
    fill_payload(blob, n, 5);
    make_fields(&f, "model-g", 0x70015);
    memset(&meta, 0, sizeof meta);
    meta.batch_size = 4;
    meta.compiler_version = 0x70015;
    assert_int_equal(npu__cache_writer_begin(&w, ctx, dir, &f), NPU_OK);
    npu__sink_init(&s, NULL, 0);
    s.feed = npu__cache_writer_feed;
    s.feed_state = &w;
    for (size_t i = 0; i < 1000; i++) npu__sink_put(&s, blob + i, 1); /* tiny pieces */
    npu__sink_put(&s, blob + 1000, 9000);
    npu__sink_put(&s, blob + 10000, n - 10000);                       /* one large piece */
    npu__meta_write(&s, &meta);
    assert_int_equal(npu__cache_writer_finish(&w), NPU_OK);
    assert_int_equal(npu__cache_open(ctx, dir, &f, &m, wb_path), NPU_OK);
    assert_int_equal(m.payload_size, s.len);
    assert_memory_equal(m.payload, blob, n);
    memset(&back, 0, sizeof back);   /* no layout rows: parsed, not kept */
    assert_int_equal(npu__meta_read(ctx, m.payload, m.payload_size, &back), NPU_OK);
    assert_int_equal(back.batch_size, 4);
    assert_int_equal(back.blob_size, 73728); /* 70000 padded to 4096 */
    npu__cache_close(&m);
    /* an aborted writer leaves nothing behind */
    assert_int_equal(npu__cache_writer_begin(&w, ctx, dir, &f), NPU_OK);
    npu__cache_writer_feed(&w, blob, 100);
    npu__cache_writer_abort(&w);
    assert_int_equal(count_temps(), 0);
    free(blob);
}

/* Two processes store the same key 50 times each while a third loads: every
 * load is a miss (only before the first store) or a verified, intact hit. */
static void test_concurrent_writers_never_produce_a_torn_entry(void **state)
{
    npu__cache_fields f;
    pid_t writers[2], reader;
    int status;
    char path[512];
    (void)state;
    make_fields(&f, "model-h", 0x70015);
    entry_path(&f, path, sizeof path);
    unlink(path);
    reader = fork();
    assert_true(reader >= 0);
    if (reader == 0) {
        npu_context *ctx = new_ctx();
        int hits = 0;
        for (int i = 0; i < 100000; i++) {
            npu__cache_mapping m;
            npu_status st = npu__cache_open(ctx, dir, &f, &m, wb_path);
            if (st == NPU_OK) {
                if (!payload_ok(m.payload, m.payload_size)) _exit(1); /* corrupt hit */
                npu__cache_close(&m);
                hits++;
            } else if (st != NPU_ERR_NOT_FOUND || hits > 0) {
                _exit(2); /* a miss once an entry existed: not atomic */
            }
            if (hits >= 300) break;
        }
        _exit(hits > 0 ? 0 : 3);
    }
    for (int w = 0; w < 2; w++) {
        writers[w] = fork();
        assert_true(writers[w] >= 0);
        if (writers[w] == 0) {
            npu_context *ctx = new_ctx();
            size_t cap = 300000;
            unsigned char *blob = malloc(cap);
            for (int i = 0; i < 50; i++) {
                size_t n = 100000 + (size_t)((i * 7919 + w * 104729) % 200000);
                fill_payload(blob, n, (uint32_t)(w * 1000 + i));
                if (npu__cache_store(ctx, dir, &f, blob, n) != NPU_OK) _exit(1);
            }
            free(blob);
            _exit(0);
        }
    }
    for (int w = 0; w < 2; w++) {
        assert_int_equal(waitpid(writers[w], &status, 0), writers[w]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    assert_int_equal(waitpid(reader, &status, 0), reader);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("reader: %s", WIFEXITED(status) && WEXITSTATUS(status) == 1   ? "corrupt hit"
                               : WIFEXITED(status) && WEXITSTATUS(status) == 2 ? "miss after a hit"
                               : WIFEXITED(status) && WEXITSTATUS(status) == 3 ? "never hit"
                                                                                : "crashed");
    assert_int_equal(count_temps(), 0);
}

/* A writer killed mid-write: no entry or a complete one, at most a temp file,
 * which the cleanup removes. */
static void test_writer_killed_mid_write_leaves_no_torn_entry(void **state)
{
    npu_context *ctx = new_ctx();
    const size_t n = 64u << 20;
    const int delays_us[] = {2000, 8000, 30000};
    npu__cache_fields f;
    char path[512];
    (void)state;
    make_fields(&f, "model-big", 0x70015);
    entry_path(&f, path, sizeof path);
    for (size_t d = 0; d < NPU__COUNT_OF(delays_us); d++) {
        int fds[2], status;
        char c;
        unlink(path);
        assert_int_equal(pipe(fds), 0);
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
            unsigned char *blob = malloc(n);
            fill_payload(blob, n, 77);
            if (write(fds[1], "g", 1) != 1) _exit(1);
            npu__cache_store(NULL, dir, &f, blob, n);
            _exit(0);
        }
        close(fds[1]);
        assert_int_equal(read(fds[0], &c, 1), 1);
        close(fds[0]);
        usleep((useconds_t)delays_us[d]);
        kill(child, SIGKILL);
        assert_int_equal(waitpid(child, &status, 0), child);
        npu__cache_mapping m;
        npu_status st = npu__cache_open(ctx, dir, &f, &m, wb_path);
        print_message("killed after %d us: %s, %u temp file(s)\n", delays_us[d],
                      st == NPU_OK ? "complete entry" : "no entry", count_temps());
        if (st == NPU_OK) {
            assert_int_equal(m.payload_size, n);
            assert_true(payload_ok(m.payload, m.payload_size));
            npu__cache_close(&m);
        } else {
            assert_int_equal(st, NPU_ERR_NOT_FOUND);
        }
        assert_true(count_temps() <= 1);
        /* the temp is fresh, but its writer (pid in the name) is dead: the
         * cleanup stores run removes it at once */
        unsigned removed = 99, before = count_temps();
        assert_int_equal(npu__cache_clean_temp(dir, NPU__CACHE_TEMP_AGE, &removed), NPU_OK);
        assert_int_equal(removed, before);
        assert_int_equal(count_temps(), 0);
    }
    unlink(path);
}

static void test_store_removes_stale_temp_files(void **state)
{
    npu_context *ctx = new_ctx();
    npu__cache_fields f;
    unsigned char blob[100];
    char stale[400], fresh[400], other[400];
    struct timespec old[2] = {{1000000, 0}, {1000000, 0}};
    (void)state;
    fill_payload(blob, sizeof blob, 6);
    make_fields(&f, "model-i", 1);
    snprintf(stale, sizeof stale, "%s/.npucache-0123-1-2-3.tmp", dir);
    snprintf(fresh, sizeof fresh, "%s/.npucache-4567-1-2-3.tmp", dir);
    snprintf(other, sizeof other, "%s/.npucache-notes.txt", dir);
    write_file(stale, "partial", 7);
    write_file(fresh, "partial", 7);
    write_file(other, "keep", 4);
    assert_int_equal(utimensat(AT_FDCWD, stale, old, 0), 0);
    assert_int_equal(npu__cache_store(ctx, dir, &f, blob, sizeof blob), NPU_OK);
    assert_int_not_equal(access(stale, F_OK), 0);
    assert_int_equal(access(fresh, F_OK), 0);
    assert_int_equal(access(other, F_OK), 0);
    unlink(fresh);
    unlink(other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_streaming_in_pieces_equals_one_shot),
        cmocka_unit_test(test_hash_single_bit_changes_flip_half_the_output_bits),
        cmocka_unit_test(test_hash_no_collisions_over_100k_short_inputs),
        cmocka_unit_test(test_hash_seeds_and_zero_padding_are_distinguished),
        cmocka_unit_test(test_hash_known_values_are_stable),
        cmocka_unit_test(test_cache_key_fields_are_framed),
        cmocka_unit_test(test_hash_matches_a_bytewise_reference_on_long_unaligned_input),
        cmocka_unit_test(test_cache_key_is_the_framed_stream_however_it_is_fed),
        cmocka_unit_test(test_entry_path_is_dir_slash_32_hex_digits),
        cmocka_unit_test(test_store_then_load_round_trip_and_miss_by_key),
        cmocka_unit_test(test_same_key_with_other_identity_is_a_miss),
        cmocka_unit_test(test_every_corruption_is_a_miss_and_a_store_repairs_it),
        cmocka_unit_test(test_unwritable_directory_makes_store_a_logged_no_op),
        cmocka_unit_test(test_an_entry_cannot_fail_a_compile_that_fits),
        cmocka_unit_test(test_streamed_export_through_a_sink),
        cmocka_unit_test(test_concurrent_writers_never_produce_a_torn_entry),
        cmocka_unit_test(test_writer_killed_mid_write_leaves_no_torn_entry),
        cmocka_unit_test(test_store_removes_stale_temp_files),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
