/* White-box: the OVNPU metadata tail (npu__meta_read / npu__meta_write) and
 * npu_blob_info. Tails of every version 2.0 .. 2.7 are built by hand here, byte
 * by byte, with padding before and after the fields, and read back; then every
 * kind of corruption must give a clean error. */
#include <stdlib.h> /* before npu.c: the tests use malloc */
#include "../npu.c"

#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

static _Alignas(16) unsigned char ctx_mem[8192];

static npu_context *new_ctx(void)
{
    npu_arena a;
    npu_context *ctx = NULL;
    assert_int_equal(npu_arena_init(&a, ctx_mem, sizeof ctx_mem), NPU_OK);
    assert_int_equal(npu_context_create(&a, NULL, &ctx), NPU_OK);
    return ctx;
}

/* ---- a byte builder ------------------------------------------------------ */
typedef struct buf {
    unsigned char *d;
    size_t len, cap;
} buf;

static void b_init(buf *b)
{
    b->cap = 1 << 16;
    b->len = 0;
    b->d = calloc(1, b->cap);
    assert_non_null(b->d);
}
static void b_put(buf *b, const void *p, size_t n)
{
    assert_true(b->len + n <= b->cap);
    memcpy(b->d + b->len, p, n);
    b->len += n;
}
static void b_le(buf *b, uint64_t v, unsigned n)
{
    unsigned char t[8];
    for (unsigned i = 0; i < n; i++) t[i] = (unsigned char)(v >> (8 * i));
    b_put(b, t, n);
}
static void b_zeros(buf *b, size_t n)
{
    assert_true(b->len + n <= b->cap);
    memset(b->d + b->len, 0, n);
    b->len += n;
}
static void b_str16(buf *b, const char *s)
{
    b_le(b, strlen(s), 2);
    b_put(b, s, strlen(s));
}

/* An exact-size heap copy, so that an over-read is caught by ASan/valgrind. */
static unsigned char *exact(const unsigned char *p, size_t n)
{
    unsigned char *c = malloc(n ? n : 1);
    assert_non_null(c);
    if (n) memcpy(c, p, n);
    return c;
}

/* Layout rows for the parser and the writer (npu__blob_meta points at the
 * caller's storage). */
static char read_layouts[NPU__META_MAX_LAYOUTS][NPU_LAYOUT_MAX];
static char write_layouts[NPU__META_MAX_LAYOUTS][NPU_LAYOUT_MAX];

static npu_status read_exact(npu_context *ctx, const unsigned char *p, size_t n,
                             npu__blob_meta *m)
{
    unsigned char *c = exact(p, n);
    memset(m, 0, sizeof *m);
    memset(read_layouts, 0, sizeof read_layouts);
    m->layouts = read_layouts;
    npu_status st = npu__meta_read(ctx, c, n, m);
    free(c);
    return st;
}

/* Bytes of the 2.7 fields build_tail writes: version 4, OV 6, inits 8, batch 8,
 * layout counts 16, layouts 11 + 2 + 7, compiler 4, encrypted 1, descriptor
 * 8 + 3, blobType 1. */
#define FIELDS_2_7 79u

enum pad { PAD_NONE, PAD_BEFORE, PAD_AFTER };
#define BLOB_BYTES 100u

/* Writes a tail of version 2.minor, the way OpenVINO's writers lay it out. */
static void build_tail(buf *b, unsigned minor, enum pad pad)
{
    size_t data_size, fields_begin;
    b_init(b);
    b_put(b, "\x7f" "ELF", 4);
    for (unsigned i = 4; i < BLOB_BYTES; i++) b_le(b, (i * 7u) & 0xffu, 1);
    if (pad == PAD_BEFORE) b_zeros(b, 4096 - BLOB_BYTES);
    data_size = b->len;
    fields_begin = b->len;
    b_le(b, (2u << 16) | minor, 4);
    b_le(b, 2025, 2);
    b_le(b, 3, 2);
    b_le(b, 1, 2);
    if (minor >= 1) b_le(b, 0, 8);
    if (minor >= 2) b_le(b, 4, 8);
    if (minor >= 3) {
        b_le(b, 2, 8);
        b_le(b, 1, 8);
        b_str16(b, "[N,C,H,W]");
        b_str16(b, "");
        b_str16(b, "[N,C]");
    }
    if (minor >= 4) b_le(b, (7u << 16) | 21u, 4);
    if (minor >= 5) b_le(b, 0, 1);
    if (minor >= 6) {
        b_le(b, 3, 8);
        b_put(b, "abc", 3);
    }
    if (minor >= 7) b_le(b, 0, 1);
    if (pad == PAD_AFTER) {
        size_t used = b->len - fields_begin + 13;
        if (used % 4096) b_zeros(b, 4096 - used % 4096);
    }
    b_le(b, data_size, 8);
    b_put(b, "OVNPU", 5);
}

static void check_fields(const npu__blob_meta *m, unsigned minor, size_t data_size)
{
    assert_int_equal(m->version, (2u << 16) | minor);
    assert_int_equal(m->blob_size, data_size);
    assert_int_equal(m->ov_version[0], 2025);
    assert_int_equal(m->ov_version[1], 3);
    assert_int_equal(m->ov_version[2], 1);
    assert_int_equal(m->batch_size, minor >= 2 ? 4 : 0);
    if (minor >= 3) {
        assert_int_equal(m->n_input_layouts, 2);
        assert_int_equal(m->n_output_layouts, 1);
        assert_string_equal(m->layouts[0], "[N,C,H,W]");
        assert_string_equal(m->layouts[1], "");
        assert_string_equal(m->layouts[2], "[N,C]");
    } else {
        assert_int_equal(m->n_input_layouts + m->n_output_layouts, 0);
    }
    assert_int_equal(m->compiler_version, minor >= 4 ? ((7u << 16) | 21u) : 0);
    assert_int_equal(m->blob_type, 0);
}

static void test_reads_every_version_with_padding_before_after_and_none(void **state)
{
    npu_context *ctx = new_ctx();
    (void)state;
    for (unsigned minor = 0; minor <= 7; minor++) {
        for (int pad = PAD_NONE; pad <= PAD_AFTER; pad++) {
            buf b;
            npu__blob_meta m;
            memset(&m, 0, sizeof m);
            m.layouts = read_layouts;
            build_tail(&b, minor, (enum pad)pad);
            if (pad == PAD_AFTER) assert_int_equal((b.len - BLOB_BYTES) % 4096, 0);
            assert_int_equal(read_exact(ctx, b.d, b.len, &m), NPU_OK);
            check_fields(&m, minor, pad == PAD_BEFORE ? 4096 : BLOB_BYTES);
            free(b.d);
        }
    }
}

static void test_blob_without_tail_is_a_raw_blob(void **state)
{
    npu_context *ctx = new_ctx();
    npu__blob_meta m;
    memset(&m, 0, sizeof m);
    m.layouts = read_layouts;
    unsigned char raw[64] = {0x7f, 'E', 'L', 'F'};
    npu_blob_info_t info;
    (void)state;
    for (size_t n = 0; n <= sizeof raw; n++) {
        assert_int_equal(read_exact(ctx, raw, n, &m), NPU_OK);
        assert_int_equal(m.version, 0);
        assert_int_equal(m.blob_size, n);
    }
    assert_int_equal(npu_blob_info(ctx, raw, sizeof raw, &info), NPU_OK);
    assert_int_equal(info.has_metadata, 0);
    assert_int_equal(info.blob_size, sizeof raw);
    assert_int_equal(info.importable, 1);
}

static void test_wrong_magic_means_no_tail(void **state)
{
    npu_context *ctx = new_ctx();
    buf b;
    npu__blob_meta m;
    memset(&m, 0, sizeof m);
    m.layouts = read_layouts;
    (void)state;
    build_tail(&b, 7, PAD_BEFORE);
    b.d[b.len - 1] = 'X'; /* "OVNPX" */
    assert_int_equal(read_exact(ctx, b.d, b.len, &m), NPU_OK);
    assert_int_equal(m.version, 0);
    assert_int_equal(m.blob_size, b.len);
    free(b.d);
}

/* Write -> read through the sink, count-only size equals the written size. */
static void test_write_then_read_round_trip(void **state)
{
    npu_context *ctx = new_ctx();
    npu__blob_meta in, out;
    npu__sink s;
    size_t blob_sizes[] = {1, 100, 4095, 4096, 4097, 10000};
    (void)state;
    memset(&in, 0, sizeof in);
    in.layouts = write_layouts;
    in.ov_version[0] = NPU_VERSION_MAJOR;
    in.ov_version[1] = NPU_VERSION_MINOR;
    in.ov_version[2] = NPU_VERSION_PATCH;
    in.batch_size = -1;
    in.n_input_layouts = 1;
    in.n_output_layouts = 2;
    strcpy(in.layouts[0], "NCHW");
    strcpy(in.layouts[1], "[N,C]");
    strcpy(in.layouts[2], "123456789012345"); /* the longest allowed */
    in.compiler_version = NPU_COMPILER_VERSION(7, 28);
    for (size_t k = 0; k < NPU__COUNT_OF(blob_sizes); k++) {
        size_t n = blob_sizes[k], counted;
        unsigned char *mem = calloc(1, n + 8192);
        memset(mem, 0xab, n);
        npu__sink_init(&s, NULL, 0);
        npu__sink_put(&s, mem, n);
        npu__meta_write(&s, &in);
        counted = s.len;
        npu__sink_init(&s, mem, n + 8192);
        s.len = n; /* the blob is already there */
        npu__meta_write(&s, &in);
        assert_int_equal(s.len, counted);
        assert_true(s.len <= n + 8192);
        assert_int_equal(read_exact(ctx, mem, s.len, &out), NPU_OK);
        assert_int_equal(out.version, 0x00020007u);
        assert_int_equal(out.blob_size % 4096, 0);
        assert_true(out.blob_size >= n && out.blob_size < n + 4096);
        for (size_t i = n; i < out.blob_size; i++) assert_int_equal(mem[i], 0);
        assert_int_equal(out.batch_size, -1);
        assert_int_equal(out.ov_version[1], NPU_VERSION_MINOR);
        assert_int_equal(out.n_input_layouts, 1);
        assert_int_equal(out.n_output_layouts, 2);
        assert_string_equal(out.layouts[0], "NCHW");
        assert_string_equal(out.layouts[1], "[N,C]");
        assert_string_equal(out.layouts[2], "123456789012345");
        assert_int_equal(out.compiler_version, NPU_COMPILER_VERSION(7, 28));
        free(mem);
    }
}

/* The writer can also produce an older version (used to test readers). */
static void test_writer_writes_requested_older_version(void **state)
{
    npu_context *ctx = new_ctx();
    npu__blob_meta in, out;
    npu__sink s;
    static unsigned char mem[8192 + 4096];
    (void)state;
    for (unsigned minor = 0; minor <= 7; minor++) {
        memset(&in, 0, sizeof in);
        in.layouts = write_layouts;
    in.layouts = write_layouts;
        in.version = (2u << 16) | minor;
        in.batch_size = 3;
        in.n_input_layouts = 1;
        strcpy(in.layouts[0], "NC");
        in.compiler_version = 0x10002;
        npu__sink_init(&s, mem, sizeof mem);
        npu__sink_put(&s, "\x7f" "ELF", 4);
        npu__meta_write(&s, &in);
        assert_int_equal(read_exact(ctx, mem, s.len, &out), NPU_OK);
        assert_int_equal(out.version, in.version);
        assert_int_equal(out.batch_size, minor >= 2 ? 3 : 0);
        assert_int_equal(out.n_input_layouts, minor >= 3 ? 1 : 0);
        assert_int_equal(out.compiler_version, minor >= 4 ? 0x10002u : 0);
    }
}

/* Every prefix of a valid tail and every "fields cut short" variant: clean
 * result, never a crash (run under ASan/valgrind for the over-read check). */
static void test_truncation_at_every_length_is_clean(void **state)
{
    npu_context *ctx = new_ctx();
    (void)state;
    for (int pad = PAD_NONE; pad <= PAD_AFTER; pad++) {
        buf b;
        npu__blob_meta m;
        memset(&m, 0, sizeof m);
        m.layouts = read_layouts;
        build_tail(&b, 7, (enum pad)pad);
        /* A prefix no longer ends with the magic: a raw blob. */
        for (size_t n = 0; n < b.len; n++) {
            assert_int_equal(read_exact(ctx, b.d, n, &m), NPU_OK);
            assert_int_equal(m.version, 0);
            assert_int_equal(m.blob_size, n);
        }
        /* A suffix: blobDataSize points at the wrong place. */
        for (size_t k = 1; k < b.len; k++) {
            npu_status st = read_exact(ctx, b.d + k, b.len - k, &m);
            assert_true(st == NPU_OK || st == NPU_ERR_FORMAT || st == NPU_ERR_UNSUPPORTED);
            if (st == NPU_OK && m.version) assert_true(m.blob_size <= b.len - k);
        }
        /* Drop k bytes just before the trailer (the fields end early). */
        size_t data_size = pad == PAD_BEFORE ? 4096 : BLOB_BYTES;
        size_t fields = b.len - 13 - data_size;
        for (size_t k = 1; k <= fields; k++) {
            unsigned char *c = malloc(b.len - k);
            memcpy(c, b.d, b.len - 13 - k);
            memcpy(c + b.len - 13 - k, b.d + b.len - 13, 13);
            npu_status st = npu__meta_read(ctx, c, b.len - k, &m);
            if (pad == PAD_AFTER && k <= fields - FIELDS_2_7) {
                /* only padding was removed */
                assert_int_equal(st, NPU_OK);
            } else {
                assert_int_equal(st, NPU_ERR_FORMAT);
            }
            free(c);
        }
        free(b.d);
    }
}

/* Flip every byte of the fields and the trailer: never a crash. */
static void test_every_single_byte_corruption_is_clean(void **state)
{
    npu_context *ctx = new_ctx();
    buf b;
    npu__blob_meta m;
    memset(&m, 0, sizeof m);
    m.layouts = read_layouts;
    (void)state;
    build_tail(&b, 7, PAD_NONE);
    for (size_t i = BLOB_BYTES; i < b.len; i++) {
        for (unsigned x = 1; x < 256; x <<= 1) {
            unsigned char *c = exact(b.d, b.len);
            c[i] ^= (unsigned char)x;
            npu_status st = npu__meta_read(ctx, c, b.len, &m);
            assert_true(st == NPU_OK || st == NPU_ERR_FORMAT || st == NPU_ERR_UNSUPPORTED);
            if (st == NPU_OK) assert_true(m.blob_size <= b.len);
            free(c);
        }
    }
    free(b.d);
}

/* Patches the u64 blobDataSize of a tail. */
static void set_data_size(buf *b, uint64_t v) { npu__le_put(b->d + b->len - 13, v, 8); }

static void expect_format(npu_context *ctx, const buf *b, const char *needle)
{
    npu__blob_meta m;
    memset(&m, 0, sizeof m);
    m.layouts = read_layouts;
    npu_blob_info_t info;
    assert_int_equal(read_exact(ctx, b->d, b->len, &m), NPU_ERR_FORMAT);
    if (strstr(npu_context_last_error(ctx), needle) == NULL)
        fail_msg("message '%s' lacks '%s'", npu_context_last_error(ctx), needle);
    assert_int_equal(npu_blob_info(ctx, b->d, b->len, &info), NPU_ERR_FORMAT);
}

static void test_blob_data_size_past_the_end_or_zero(void **state)
{
    npu_context *ctx = new_ctx();
    buf b;
    uint64_t bad[] = {0, 1ull << 40, UINT64_MAX, UINT64_MAX - 12};
    (void)state;
    build_tail(&b, 7, PAD_NONE);
    for (size_t i = 0; i < NPU__COUNT_OF(bad); i++) {
        set_data_size(&b, bad[i]);
        expect_format(ctx, &b, "blobDataSize");
    }
    set_data_size(&b, b.len - 13 - 3); /* 3 bytes: no room for the u32 version */
    expect_format(ctx, &b, "blobDataSize");
    set_data_size(&b, b.len - 13); /* exactly at the trailer */
    expect_format(ctx, &b, "blobDataSize");
    free(b.d);
}

/* A tail with only the trailer: [blob]["fields"][size][OVNPU], custom fields. */
static void start_custom(buf *b, uint32_t version)
{
    b_init(b);
    b_put(b, "\x7f" "ELF", 4);
    b_le(b, version, 4);
    b_le(b, 1, 2);
    b_le(b, 2, 2);
    b_le(b, 3, 2);
}
static void end_custom(buf *b)
{
    b_le(b, 4, 8);
    b_put(b, "OVNPU", 5);
}

static void test_unknown_major_version_is_refused(void **state)
{
    npu_context *ctx = new_ctx();
    uint32_t versions[] = {0x00010000u, 0x00030000u, 0x00000007u, 0xffff0007u};
    (void)state;
    for (size_t i = 0; i < NPU__COUNT_OF(versions); i++) {
        buf b;
        start_custom(&b, versions[i]);
        end_custom(&b);
        expect_format(ctx, &b, "major");
        free(b.d);
    }
}

static void test_newer_minor_reads_the_known_fields_and_skips_the_rest(void **state)
{
    npu_context *ctx = new_ctx();
    buf b;
    npu__blob_meta m;
    memset(&m, 0, sizeof m);
    m.layouts = read_layouts;
    (void)state;
    start_custom(&b, 0x00020009u);
    b_le(&b, 0, 8);          /* inits */
    b_le(&b, 8, 8);          /* batch */
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);          /* layouts */
    b_le(&b, 0x50003, 4);    /* compiler */
    b_le(&b, 0, 1);          /* encrypted */
    b_le(&b, 0, 8);          /* compat */
    b_le(&b, 0, 1);          /* blobType */
    b_put(&b, "future fields", 13);
    end_custom(&b);
    assert_int_equal(read_exact(ctx, b.d, b.len, &m), NPU_OK);
    assert_int_equal(m.version, 0x00020009u);
    assert_int_equal(m.batch_size, 8);
    assert_int_equal(m.compiler_version, 0x50003u);
    free(b.d);
}

static void test_huge_counts_and_bad_lengths_are_refused(void **state)
{
    npu_context *ctx = new_ctx();
    buf b;
    (void)state;
    /* numberOfInits far beyond the bytes left */
    start_custom(&b, 0x00020001u);
    b_le(&b, UINT64_MAX, 8);
    end_custom(&b);
    expect_format(ctx, &b, "numberOfInits");
    free(b.d);
    /* initSize beyond blobDataSize */
    start_custom(&b, 0x00020001u);
    b_le(&b, 2, 8);
    b_le(&b, UINT64_MAX, 8);
    b_le(&b, 2, 8);
    end_custom(&b);
    expect_format(ctx, &b, "initSize");
    free(b.d);
    /* layouts: counts too large, one too many, sum overflow */
    uint64_t counts[][2] = {{UINT64_MAX, 0}, {0, 1ull << 63}, {65, 0}, {40, 25},
                            {UINT64_MAX, 2}, {1ull << 63, 1ull << 63}};
    for (size_t i = 0; i < NPU__COUNT_OF(counts); i++) {
        start_custom(&b, 0x00020003u);
        b_le(&b, 0, 8);
        b_le(&b, 0, 8);
        b_le(&b, counts[i][0], 8);
        b_le(&b, counts[i][1], 8);
        end_custom(&b);
        expect_format(ctx, &b, "layouts exceed");
        free(b.d);
    }
    /* 64 layouts is allowed (when present), 3 declared but 2 present is not */
    start_custom(&b, 0x00020003u);
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);
    b_le(&b, 32, 8);
    b_le(&b, 32, 8);
    for (int i = 0; i < 64; i++) b_str16(&b, "NC");
    end_custom(&b);
    {
        npu__blob_meta m;
        memset(&m, 0, sizeof m);
        m.layouts = read_layouts;
        assert_int_equal(read_exact(ctx, b.d, b.len, &m), NPU_OK);
        assert_int_equal(m.n_input_layouts + m.n_output_layouts, 64);
        assert_string_equal(m.layouts[63], "NC");
    }
    free(b.d);
    start_custom(&b, 0x00020003u);
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);
    b_le(&b, 3, 8);
    b_le(&b, 0, 8);
    b_str16(&b, "NC");
    b_str16(&b, "NC");
    end_custom(&b);
    expect_format(ctx, &b, "layout length");
    free(b.d);
    /* a layout length past the end, too long, with a NUL */
    const char *bad_layouts[][2] = {{"\xff\xff", "past the end"},
                                    {"\x10\x00" "0123456789abcdef", "exceeds the maximum"},
                                    {"\x03\x00" "N\0C", "NUL"}};
    size_t bad_len[] = {2, 18, 5};
    for (size_t i = 0; i < NPU__COUNT_OF(bad_len); i++) {
        start_custom(&b, 0x00020003u);
        b_le(&b, 0, 8);
        b_le(&b, 0, 8);
        b_le(&b, 1, 8);
        b_le(&b, 0, 8);
        b_put(&b, bad_layouts[i][0], bad_len[i]);
        end_custom(&b);
        expect_format(ctx, &b, i == 0 ? "exceeds the maximum" : bad_layouts[i][1]);
        free(b.d);
    }
    /* layout length within limits but past the end */
    start_custom(&b, 0x00020003u);
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);
    b_le(&b, 1, 8);
    b_le(&b, 0, 8);
    b_le(&b, 9, 2);
    b_put(&b, "NC", 2);
    b.len -= 0;
    {
        /* trailer right after 2 of the 9 characters */
        b_le(&b, 4, 8);
        b_put(&b, "OVNPU", 5);
        npu__blob_meta m;
        memset(&m, 0, sizeof m);
        m.layouts = read_layouts;
        assert_int_equal(read_exact(ctx, b.d, b.len, &m), NPU_ERR_FORMAT);
    }
    free(b.d);
    /* compatibility descriptor length past the end */
    start_custom(&b, 0x00020006u);
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);
    b_le(&b, 0, 4);
    b_le(&b, 0, 1);
    b_le(&b, UINT64_MAX, 8);
    end_custom(&b);
    expect_format(ctx, &b, "compatibility descriptor");
    free(b.d);
    /* batch below -1 */
    start_custom(&b, 0x00020002u);
    b_le(&b, 0, 8);
    b_le(&b, (uint64_t)-5, 8);
    end_custom(&b);
    expect_format(ctx, &b, "batchSize");
    free(b.d);
    /* isEncryptedBlob neither 0 nor 1 */
    start_custom(&b, 0x00020005u);
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);
    b_le(&b, 0, 4);
    b_le(&b, 7, 1);
    end_custom(&b);
    expect_format(ctx, &b, "isEncryptedBlob");
    free(b.d);
}

static void test_nonzero_garbage_in_padding_is_refused(void **state)
{
    npu_context *ctx = new_ctx();
    buf b;
    (void)state;
    /* one stray byte anywhere in the ~4 KiB of padding (every offset within a
     * word, either side of word boundaries, the last byte before the u64),
     * named by its offset */
    static const size_t back[] = {0, 1, 6, 7, 8, 9, 15, 100, 2047, 3000};
    for (unsigned minor = 0; minor <= 7; minor++) {
        for (size_t k = 0; k < sizeof back / sizeof back[0]; k++) {
            char want[64];
            size_t at;
            build_tail(&b, minor, PAD_AFTER);
            at = b.len - 14 - back[k];
            b.d[at] = 0x01;
            snprintf(want, sizeof want, "non-zero byte 0x01 at offset %zu", at);
            expect_format(ctx, &b, want);
            free(b.d);
        }
    }
    build_tail(&b, 7, PAD_NONE);
    b.len -= 13;
    b_le(&b, 0x20, 1); /* one stray byte after blobType */
    b_le(&b, BLOB_BYTES, 8);
    b_put(&b, "OVNPU", 5);
    expect_format(ctx, &b, "non-zero");
    free(b.d);
}

static void test_encrypted_inits_and_non_elf_are_unsupported_but_reported(void **state)
{
    npu_context *ctx = new_ctx();
    npu__blob_meta m;
    memset(&m, 0, sizeof m);
    m.layouts = read_layouts;
    npu_blob_info_t info;
    buf b;
    (void)state;
    /* encrypted */
    start_custom(&b, 0x00020007u);
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);
    b_le(&b, 0, 4);
    b_le(&b, 1, 1);
    b_le(&b, 0, 8);
    b_le(&b, 0, 1);
    end_custom(&b);
    assert_int_equal(read_exact(ctx, b.d, b.len, &m), NPU_ERR_UNSUPPORTED);
    assert_non_null(strstr(npu_context_last_error(ctx), "isEncryptedBlob"));
    assert_int_equal(npu_blob_info(ctx, b.d, b.len, &info), NPU_OK);
    assert_int_equal(info.encrypted, 1);
    assert_int_equal(info.importable, 0);
    free(b.d);
    /* LLVM blob type */
    start_custom(&b, 0x00020007u);
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);
    b_le(&b, 0, 8);
    b_le(&b, 0, 4);
    b_le(&b, 0, 1);
    b_le(&b, 2, 8);
    b_put(&b, "{}", 2);
    b_le(&b, 1, 1);
    end_custom(&b);
    assert_int_equal(read_exact(ctx, b.d, b.len, &m), NPU_ERR_UNSUPPORTED);
    assert_non_null(strstr(npu_context_last_error(ctx), "blobType"));
    assert_int_equal(npu_blob_info(ctx, b.d, b.len, &info), NPU_OK);
    assert_int_equal(info.blob_type, 1);
    assert_int_equal(info.compatibility_descriptor_size, 2);
    assert_int_equal(info.importable, 0);
    free(b.d);
    /* init schedules: blobDataSize covers main + inits */
    b_init(&b);
    b_zeros(&b, 64);
    b_le(&b, 0x00020001u, 4);
    b_le(&b, 1, 2);
    b_le(&b, 2, 2);
    b_le(&b, 3, 2);
    b_le(&b, 2, 8);
    b_le(&b, 16, 8);
    b_le(&b, 16, 8);
    b_le(&b, 64, 8);
    b_put(&b, "OVNPU", 5);
    assert_int_equal(read_exact(ctx, b.d, b.len, &m), NPU_ERR_UNSUPPORTED);
    assert_non_null(strstr(npu_context_last_error(ctx), "numberOfInits"));
    assert_int_equal(npu_blob_info(ctx, b.d, b.len, &info), NPU_OK);
    assert_int_equal(info.init_count, 2);
    assert_int_equal(info.importable, 0);
    free(b.d);
}

static void test_blob_info_reports_what_an_exported_blob_says(void **state)
{
    npu_context *ctx = new_ctx();
    npu_blob_info_t info;
    buf b;
    (void)state;
    build_tail(&b, 7, PAD_BEFORE);
    assert_int_equal(npu_blob_info(ctx, b.d, b.len, &info), NPU_OK);
    assert_int_equal(info.has_metadata, 1);
    assert_int_equal(info.metadata_version, 0x00020007u);
    assert_int_equal(info.openvino_version[0], 2025);
    assert_int_equal(info.batch_size, 4);
    assert_int_equal(info.n_input_layouts, 2);
    assert_int_equal(info.n_output_layouts, 1);
    assert_string_equal(info.layouts[2], "[N,C]");
    assert_int_equal(info.compiler_version, (7u << 16) | 21u);
    assert_int_equal(info.blob_size, 4096);
    assert_int_equal(info.compatibility_descriptor_size, 3);
    assert_int_equal(info.importable, 1);
    assert_int_equal(npu_blob_info(ctx, NULL, 10, &info), NPU_ERR_INVALID_ARGUMENT);
    assert_int_equal(npu_blob_info(ctx, b.d, b.len, NULL), NPU_ERR_INVALID_ARGUMENT);
    free(b.d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_every_version_with_padding_before_after_and_none),
        cmocka_unit_test(test_blob_without_tail_is_a_raw_blob),
        cmocka_unit_test(test_wrong_magic_means_no_tail),
        cmocka_unit_test(test_write_then_read_round_trip),
        cmocka_unit_test(test_writer_writes_requested_older_version),
        cmocka_unit_test(test_truncation_at_every_length_is_clean),
        cmocka_unit_test(test_every_single_byte_corruption_is_clean),
        cmocka_unit_test(test_blob_data_size_past_the_end_or_zero),
        cmocka_unit_test(test_unknown_major_version_is_refused),
        cmocka_unit_test(test_newer_minor_reads_the_known_fields_and_skips_the_rest),
        cmocka_unit_test(test_huge_counts_and_bad_lengths_are_refused),
        cmocka_unit_test(test_nonzero_garbage_in_padding_is_refused),
        cmocka_unit_test(test_encrypted_inits_and_non_elf_are_unsupported_but_reported),
        cmocka_unit_test(test_blob_info_reports_what_an_exported_blob_says),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
