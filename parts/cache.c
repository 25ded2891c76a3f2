/* parts/cache.c: section of npu.c (merged into npu.c before release). */
/* ---- 11a. Blob metadata: the OVNPU tail ---------------------------------
 * Owns: reading and writing the versioned metadata OpenVINO's NPU plugin
 * appends to exported blobs (ze-graph-ext.md section 4), and npu_blob_info().
 * Calls: sections 3 (errors) and 5 (sinks, little-endian access).
 *
 *   [native blob][zero padding][fields][u64 blobDataSize]["OVNPU"]
 *
 * blobDataSize is the offset of the fields (blob plus the padding before them).
 * Writers of versions <= 2.3 pad AFTER the fields instead, so that fields + 13
 * is a multiple of 4096; the 2026 writer pads the blob. The reader therefore
 * parses the fields from blobDataSize and accepts only zero bytes between the
 * last known field and the u64. The input is hostile: every count and length
 * is checked against the bytes that remain before any arithmetic with it. */

#define NPU__META_MAGIC "OVNPU"
#define NPU__META_MAGIC_LEN 5u
#define NPU__META_TRAILER (8u + NPU__META_MAGIC_LEN) /* u64 blobDataSize + magic */
#define NPU__META_MAJOR 2u
#define NPU__META_MINOR_NEWEST 7u
#define NPU__META_ALIGN 4096u

/* Everything a tail can say, including the fields npu cannot act on (init
 * schedules, encryption, non-ELF blobs): npu__meta_read refuses those, while
 * npu_blob_info reports them. */
typedef struct npu__meta_extra {
    uint64_t init_count;        /* 2.1: numberOfInits (weights-separated blobs) */
    uint64_t init_bytes;        /* sum of initSize[] */
    uint8_t encrypted;          /* 2.5 */
    uint64_t compat_size;       /* 2.6: bytes of the compatibility descriptor */
    uint8_t newer_minor;        /* minor > 7: fields after 2.7 were skipped */
} npu__meta_extra;

/* A cursor over the fields: [pos, end) is what remains before the trailer. */
typedef struct npu__meta_cursor {
    npu_context *ctx;
    const unsigned char *data;
    size_t pos;
    size_t end;
    uint32_t version;
} npu__meta_cursor;

static npu_status npu__meta_take(npu__meta_cursor *c, unsigned bytes, uint64_t *v,
                                 const char *field)
{
    if (c->end - c->pos < bytes)
        return npu__fail(c->ctx, NPU_ERR_FORMAT,
                         "blob metadata %u.%u: field '%s' (%u bytes) at offset %zu runs past "
                         "the end of the metadata (%zu bytes left)",
                         (unsigned)(c->version >> 16), (unsigned)(c->version & 0xffffu), field,
                         bytes, c->pos, c->end - c->pos);
    *v = npu__le_get(c->data + c->pos, bytes);
    c->pos += bytes;
    return NPU_OK;
}

static npu_status npu__meta_fail(npu__meta_cursor *c, npu_status st, const char *what)
{
    return npu__fail(c->ctx, st, "blob metadata %u.%u: %s", (unsigned)(c->version >> 16),
                     (unsigned)(c->version & 0xffffu), what);
}

/* Parses the layouts of 2.3: counts, then u16 length + characters each. */
static npu_status npu__meta_layouts(npu__meta_cursor *c, npu__blob_meta *out)
{
    uint64_t n_in = 0, n_out = 0, len = 0;
    uint32_t i, total;
    npu_status st;
    char msg[160];
    if ((st = npu__meta_take(c, 8, &n_in, "nInputLayouts")) != NPU_OK) return st;
    if ((st = npu__meta_take(c, 8, &n_out, "nOutputLayouts")) != NPU_OK) return st;
    if (n_in > NPU__META_MAX_LAYOUTS || n_out > NPU__META_MAX_LAYOUTS ||
        n_in + n_out > NPU__META_MAX_LAYOUTS) {
        snprintf(msg, sizeof msg,
                 "%llu input + %llu output layouts exceed the maximum of %u",
                 (unsigned long long)n_in, (unsigned long long)n_out,
                 (unsigned)NPU__META_MAX_LAYOUTS);
        return npu__meta_fail(c, NPU_ERR_FORMAT, msg);
    }
    out->n_input_layouts = (uint32_t)n_in;
    out->n_output_layouts = (uint32_t)n_out;
    total = (uint32_t)(n_in + n_out);
    for (i = 0; i < total; i++) {
        const char *kind = i < out->n_input_layouts ? "input" : "output";
        uint32_t index = i < out->n_input_layouts ? i : i - out->n_input_layouts;
        if ((st = npu__meta_take(c, 2, &len, "layout length")) != NPU_OK) return st;
        if (len > NPU_LAYOUT_MAX - 1) {
            snprintf(msg, sizeof msg, "%s layout %u: length %u exceeds the maximum of %u",
                     kind, (unsigned)index, (unsigned)len, (unsigned)(NPU_LAYOUT_MAX - 1));
            return npu__meta_fail(c, NPU_ERR_FORMAT, msg);
        }
        if (c->end - c->pos < len) {
            snprintf(msg, sizeof msg, "%s layout %u: %u characters run past the end", kind,
                     (unsigned)index, (unsigned)len);
            return npu__meta_fail(c, NPU_ERR_FORMAT, msg);
        }
        if (memchr(c->data + c->pos, 0, (size_t)len) != NULL) {
            snprintf(msg, sizeof msg, "%s layout %u contains a NUL character", kind,
                     (unsigned)index);
            return npu__meta_fail(c, NPU_ERR_FORMAT, msg);
        }
        memcpy(out->layouts[i], c->data + c->pos, (size_t)len);
        out->layouts[i][len] = '\0';
        c->pos += (size_t)len;
    }
    return NPU_OK;
}

/* Parses every field it knows; refuses nothing that is well-formed. */
static npu_status npu__meta_parse(npu_context *ctx, const unsigned char *data, size_t size,
                                  npu__blob_meta *out, npu__meta_extra *extra)
{
    npu__meta_cursor c;
    uint64_t v = 0, data_size, i;
    uint32_t minor;
    npu_status st;
    char msg[160];

    memset(out, 0, sizeof *out);
    memset(extra, 0, sizeof *extra);
    out->blob_size = size;
    if (data == NULL && size > 0)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "blob metadata: data is NULL");
    if (size < NPU__META_TRAILER ||
        memcmp(data + size - NPU__META_MAGIC_LEN, NPU__META_MAGIC, NPU__META_MAGIC_LEN) != 0)
        return NPU_OK; /* a raw blob without metadata */

    c.ctx = ctx;
    c.data = data;
    c.end = size - NPU__META_TRAILER;
    c.version = 0;
    data_size = npu__le_get(data + c.end, 8);
    if (data_size == 0)
        return npu__fail(ctx, NPU_ERR_FORMAT,
                         "blob metadata: blobDataSize is 0 (no blob before the metadata)");
    if (data_size > c.end || c.end - (size_t)data_size < 4)
        return npu__fail(ctx, NPU_ERR_FORMAT,
                         "blob metadata: blobDataSize %llu leaves no room for the version "
                         "field before the trailer at offset %zu",
                         (unsigned long long)data_size, c.end);
    c.pos = (size_t)data_size;
    if ((st = npu__meta_take(&c, 4, &v, "version")) != NPU_OK) return st;
    c.version = (uint32_t)v;
    if ((c.version >> 16) != NPU__META_MAJOR)
        return npu__fail(ctx, NPU_ERR_FORMAT,
                         "blob metadata: version %u.%u has an unknown major version (npu "
                         "reads 2.0 to 2.%u)",
                         (unsigned)(c.version >> 16), (unsigned)(c.version & 0xffffu),
                         NPU__META_MINOR_NEWEST);
    minor = c.version & 0xffffu;
    out->version = c.version;
    out->blob_size = (uint64_t)data_size;

    /* 2.0 */
    for (i = 0; i < 3; i++) {
        static const char *const names[3] = {"OpenVINO major", "OpenVINO minor",
                                             "OpenVINO patch"};
        if ((st = npu__meta_take(&c, 2, &v, names[i])) != NPU_OK) return st;
        out->ov_version[i] = (uint16_t)v;
    }
    if (minor >= 1) { /* 2.1: init schedules of a weights-separated blob */
        if ((st = npu__meta_take(&c, 8, &extra->init_count, "numberOfInits")) != NPU_OK)
            return st;
        if (extra->init_count > (c.end - c.pos) / 8) {
            snprintf(msg, sizeof msg, "numberOfInits %llu: the sizes run past the end",
                     (unsigned long long)extra->init_count);
            return npu__meta_fail(&c, NPU_ERR_FORMAT, msg);
        }
        for (i = 0; i < extra->init_count; i++) {
            if ((st = npu__meta_take(&c, 8, &v, "initSize")) != NPU_OK) return st;
            if (npu__add_u64(extra->init_bytes, v, &extra->init_bytes) ||
                extra->init_bytes > data_size) {
                snprintf(msg, sizeof msg,
                         "initSize[%llu]: the init blobs exceed blobDataSize %llu",
                         (unsigned long long)i, (unsigned long long)data_size);
                return npu__meta_fail(&c, NPU_ERR_FORMAT, msg);
            }
        }
    }
    if (minor >= 2) { /* 2.2 */
        if ((st = npu__meta_take(&c, 8, &v, "batchSize")) != NPU_OK) return st;
        out->batch_size = (int64_t)v;
        if (out->batch_size < -1) {
            snprintf(msg, sizeof msg, "batchSize %lld is negative",
                     (long long)out->batch_size);
            return npu__meta_fail(&c, NPU_ERR_FORMAT, msg);
        }
    }
    if (minor >= 3 && (st = npu__meta_layouts(&c, out)) != NPU_OK) return st;
    if (minor >= 4) {
        if ((st = npu__meta_take(&c, 4, &v, "compilerVersion")) != NPU_OK) return st;
        out->compiler_version = (uint32_t)v;
    }
    if (minor >= 5) {
        if ((st = npu__meta_take(&c, 1, &v, "isEncryptedBlob")) != NPU_OK) return st;
        if (v > 1) {
            snprintf(msg, sizeof msg, "isEncryptedBlob is %u, not 0 or 1", (unsigned)v);
            return npu__meta_fail(&c, NPU_ERR_FORMAT, msg);
        }
        extra->encrypted = (uint8_t)v;
    }
    if (minor >= 6) {
        if ((st = npu__meta_take(&c, 8, &extra->compat_size,
                                 "compatibility descriptor length")) != NPU_OK)
            return st;
        if (extra->compat_size > c.end - c.pos) {
            snprintf(msg, sizeof msg,
                     "compatibility descriptor of %llu bytes runs past the end",
                     (unsigned long long)extra->compat_size);
            return npu__meta_fail(&c, NPU_ERR_FORMAT, msg);
        }
        c.pos += (size_t)extra->compat_size;
    }
    if (minor >= 7) {
        if ((st = npu__meta_take(&c, 1, &v, "blobType")) != NPU_OK) return st;
        out->blob_type = (uint8_t)v;
    }
    if (minor > NPU__META_MINOR_NEWEST) {
        /* A newer minor only appends fields: what follows is not ours to judge. */
        extra->newer_minor = 1;
        return NPU_OK;
    }
    /* Padding of <= 2.3 writers: zeros only. */
    for (; c.pos < c.end; c.pos++) {
        if (c.data[c.pos] != 0) {
            snprintf(msg, sizeof msg,
                     "non-zero byte 0x%02x at offset %zu after the last field (only zero "
                     "padding may follow)",
                     (unsigned)c.data[c.pos], c.pos);
            return npu__meta_fail(&c, NPU_ERR_FORMAT, msg);
        }
    }
    return NPU_OK;
}

/* Functions only section 10 (Level Zero) calls: a NPU_NO_LEVEL_ZERO build
 * keeps them (npu_blob_info shares their parser) without warnings. */
#if defined(NPU_NO_LEVEL_ZERO) && (defined(__GNUC__) || defined(__clang__))
#define NPU__L0_ONLY __attribute__((unused))
#else
#define NPU__L0_ONLY
#endif

static NPU__L0_ONLY npu_status npu__meta_read(npu_context *ctx, const unsigned char *data, size_t size,
                                              npu__blob_meta *out)
{
    npu__meta_extra extra;
    npu_status st = npu__meta_parse(ctx, data, size, out, &extra);
    if (st != NPU_OK) return st;
    if (extra.encrypted)
        return npu__fail(ctx, NPU_ERR_UNSUPPORTED,
                         "blob metadata: isEncryptedBlob is set; npu cannot import encrypted "
                         "blobs");
    if (extra.init_count > 0)
        return npu__fail(ctx, NPU_ERR_UNSUPPORTED,
                         "blob metadata: numberOfInits is %llu; npu cannot import "
                         "weights-separated blobs with init schedules",
                         (unsigned long long)extra.init_count);
    if (out->blob_type != 0)
        return npu__fail(ctx, NPU_ERR_UNSUPPORTED,
                         "blob metadata: blobType is %u (%s); npu imports only ELF blobs (0)",
                         (unsigned)out->blob_type,
                         out->blob_type == 1   ? "LLVM"
                         : out->blob_type == 2 ? "BYTECODE"
                                               : "unknown");
    return NPU_OK;
}

static NPU__L0_ONLY void npu__sink_zeros(npu__sink *s, size_t n)
{
    static const unsigned char zeros[256] = {0};
    while (n > 0) {
        size_t k = n < sizeof zeros ? n : sizeof zeros;
        npu__sink_put(s, zeros, k);
        n -= k;
    }
}

/* Writes meta->ov_version as given: npu's export path puts npu's own version
 * there (see cache.h), so that a blob's writer is recognisable. Counts beyond
 * NPU__META_MAX_LAYOUTS and layouts longer than NPU_LAYOUT_MAX - 1 are cut
 * (a void writer cannot fail; npu__blob_meta cannot hold more anyway). The
 * 2.1 init count, 2.5 encryption flag and 2.6 descriptor are always empty. */
static NPU__L0_ONLY void npu__meta_write(npu__sink *s, const npu__blob_meta *meta)
{
    uint32_t version = NPU__META_MAJOR << 16 | NPU__META_MINOR_NEWEST;
    uint32_t minor, n_in, n_out, i;
    size_t data_size;
    if (meta->version >> 16 == NPU__META_MAJOR && (meta->version & 0xffffu) <= NPU__META_MINOR_NEWEST)
        version = meta->version;
    minor = version & 0xffffu;
    if (s->len % NPU__META_ALIGN != 0) npu__sink_zeros(s, NPU__META_ALIGN - s->len % NPU__META_ALIGN);
    data_size = s->len;
    npu__sink_le(s, version, 4);
    for (i = 0; i < 3; i++) npu__sink_le(s, meta->ov_version[i], 2);
    if (minor >= 1) npu__sink_le(s, 0, 8); /* numberOfInits */
    if (minor >= 2) npu__sink_le(s, (uint64_t)meta->batch_size, 8);
    if (minor >= 3) {
        n_in = meta->n_input_layouts < NPU__META_MAX_LAYOUTS ? meta->n_input_layouts
                                                              : NPU__META_MAX_LAYOUTS;
        n_out = meta->n_output_layouts < NPU__META_MAX_LAYOUTS - n_in
                    ? meta->n_output_layouts
                    : NPU__META_MAX_LAYOUTS - n_in;
        npu__sink_le(s, n_in, 8);
        npu__sink_le(s, n_out, 8);
        for (i = 0; i < n_in + n_out; i++) {
            size_t len = 0;
            while (len < NPU_LAYOUT_MAX - 1 && meta->layouts[i][len] != '\0') len++;
            npu__sink_le(s, len, 2);
            npu__sink_put(s, meta->layouts[i], len);
        }
    }
    if (minor >= 4) npu__sink_le(s, meta->compiler_version, 4);
    if (minor >= 5) npu__sink_le(s, 0, 1);         /* isEncryptedBlob */
    if (minor >= 6) npu__sink_le(s, 0, 8);         /* empty compatibility descriptor */
    if (minor >= 7) npu__sink_le(s, meta->blob_type, 1);
    npu__sink_le(s, data_size, 8);
    npu__sink_put(s, NPU__META_MAGIC, NPU__META_MAGIC_LEN);
}

npu_status npu_blob_info(npu_context *ctx, const void *data, size_t size,
                         npu_blob_info_t *info)
{
    npu__blob_meta meta;
    npu__meta_extra extra;
    npu_status st;
    uint32_t i;
    if (info == NULL) return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_blob_info: info is NULL");
    memset(info, 0, sizeof *info);
    if (data == NULL) return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "npu_blob_info: data is NULL");
    st = npu__meta_parse(ctx, (const unsigned char *)data, size, &meta, &extra);
    if (st != NPU_OK) return st;
    info->has_metadata = meta.version != 0;
    info->metadata_version = meta.version;
    for (i = 0; i < 3; i++) info->openvino_version[i] = meta.ov_version[i];
    info->batch_size = meta.batch_size;
    info->n_input_layouts = meta.n_input_layouts;
    info->n_output_layouts = meta.n_output_layouts;
    for (i = 0; i < meta.n_input_layouts + meta.n_output_layouts; i++)
        memcpy(info->layouts[i], meta.layouts[i], NPU_LAYOUT_MAX);
    info->compiler_version = meta.compiler_version;
    info->blob_size = meta.blob_size;
    info->init_count = extra.init_count;
    info->encrypted = extra.encrypted;
    info->blob_type = meta.blob_type;
    info->compatibility_descriptor_size = extra.compat_size;
    info->importable = !extra.encrypted && extra.init_count == 0 && meta.blob_type == 0;
    return NPU_OK;
}

#if NPU_BLOB_MAX_LAYOUTS != NPU__META_MAX_LAYOUTS
#error "NPU_BLOB_MAX_LAYOUTS must equal NPU__META_MAX_LAYOUTS"
#endif

/* The hash, keys and the cache directory serve the compile path (11e): they
 * exist only with Level Zero. */
#ifndef NPU_NO_LEVEL_ZERO

/* ---- 11b. Hash: NH128 ---------------------------------------------------
 * A streaming 128-bit non-cryptographic hash used for cache keys and entry
 * checksums. It guards against accidents (bit rot, torn or foreign files, a
 * changed model), not against an attacker who can write the cache directory.
 *
 * Design: four independent 64-bit lanes consume 32-byte stripes, one
 * little-endian word per lane: lane = rotl(lane + word * P0, 31) * P1. The
 * lanes are independent chains, so a CPU runs them in parallel (about one
 * multiply per 4 input bytes). The finalizer absorbs the zero-padded partial
 * stripe (0-31 bytes) with the same round, then folds the four lanes into two
 * 64-bit accumulators through a xorshift-multiply bijection (fmix: shifts 32,
 * 29, 32 with two odd multipliers), one by xor and one by add-rotate, with the
 * total length so that zero padding is unambiguous, and cross-adds them.
 * Every output bit then depends on every input bit (the avalanche test in
 * tests/test_wb_cache.c measures it). The constants are the fractional parts
 * of the square roots of 2, 3, 5, 7 and 11 (nothing up the sleeve), made odd.
 * Streaming in any split gives the same digest as one call. */
#define NPU__H_P0 0x6a09e667f3bcc909ull
#define NPU__H_P1 0xbb67ae8584caa73bull
#define NPU__H_P2 0x3c6ef372fe94f82bull
#define NPU__H_P3 0xa54ff53a5f1d36f1ull
#define NPU__H_P4 0x510e527fade682d1ull

typedef struct npu__digest {
    uint64_t h[2];
} npu__digest;

typedef struct npu__nh128 {
    uint64_t lane[4];
    uint64_t total;            /* bytes fed so far */
    unsigned char stripe[32];  /* partial stripe */
    size_t stripe_len;
} npu__nh128;

static uint64_t npu__rotl64(uint64_t x, unsigned r) { return (x << r) | (x >> (64u - r)); }

static uint64_t npu__load64(const unsigned char *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

static uint64_t npu__fmix64(uint64_t x)
{
    x ^= x >> 32;
    x *= NPU__H_P1;
    x ^= x >> 29;
    x *= NPU__H_P3;
    x ^= x >> 32;
    return x;
}

static void npu__nh128_stripe(uint64_t lane[4], const unsigned char *p)
{
    unsigned i;
    for (i = 0; i < 4; i++)
        lane[i] = npu__rotl64(lane[i] + npu__load64(p + 8 * i) * NPU__H_P0, 31) * NPU__H_P1;
}

static void npu__nh128_init(npu__nh128 *h, uint64_t seed)
{
    unsigned i;
    for (i = 0; i < 4; i++) h->lane[i] = npu__fmix64(seed + (uint64_t)(i + 1) * NPU__H_P4);
    h->total = 0;
    h->stripe_len = 0;
}

static void npu__nh128_update(npu__nh128 *h, const void *bytes, size_t n)
{
    const unsigned char *p = (const unsigned char *)bytes;
    h->total += (uint64_t)n;
    if (h->stripe_len > 0) {
        size_t k = 32 - h->stripe_len;
        if (k > n) k = n;
        memcpy(h->stripe + h->stripe_len, p, k);
        h->stripe_len += k;
        p += k;
        n -= k;
        if (h->stripe_len < 32) return;
        npu__nh128_stripe(h->lane, h->stripe);
        h->stripe_len = 0;
    }
    for (; n >= 32; p += 32, n -= 32) npu__nh128_stripe(h->lane, p);
    if (n > 0) {
        memcpy(h->stripe, p, n);
        h->stripe_len = n;
    }
}

/* Does not modify h: a digest may be taken mid-stream. */
static npu__digest npu__nh128_final(const npu__nh128 *h)
{
    uint64_t lane[4], a, b;
    npu__digest d;
    unsigned i;
    memcpy(lane, h->lane, sizeof lane);
    if (h->stripe_len > 0) {
        unsigned char last[32] = {0};
        memcpy(last, h->stripe, h->stripe_len);
        npu__nh128_stripe(lane, last);
    }
    a = npu__fmix64(h->total ^ NPU__H_P2);
    b = npu__fmix64(h->total + NPU__H_P3);
    for (i = 0; i < 4; i++) {
        a = npu__fmix64(a ^ lane[i]);
        b = npu__fmix64(b + npu__rotl64(lane[i], 27));
    }
    a += b;
    b += a;
    d.h[0] = npu__fmix64(a);
    d.h[1] = npu__fmix64(b);
    return d;
}

static int npu__digest_equal(const npu__digest *x, const npu__digest *y)
{
    return x->h[0] == y->h[0] && x->h[1] == y->h[1];
}

/* ---- 11c. Cache keys -----------------------------------------------------
 * A cache key is the NH128 digest of the "key material": everything that
 * decides the compiled blob. Each piece is a field [u32 tag][bytes][u64 byte
 * count], so that the concatenation decodes uniquely (from its end) and no two
 * different sets of fields give the same byte stream. The field's byte count
 * comes last so that a field may be streamed (the model structure is
 * serialized through a sink whose feed is npu__cache_key_feed).
 *
 * The key material is hashed twice, with two seeds: `key` names the entry file
 * and `check` is stored in it and compared on load, so an entry is used only if
 * 256 bits of digest match (plus the readable fields: platform, compiler and
 * npu versions, descriptor). A collision of the file name alone never loads
 * the wrong model. */
#define NPU__SEED_KEY 0x4e50554b45593031ull      /* "NPUKEY01" */
#define NPU__SEED_CHECK 0x4e50554348433031ull    /* "NPUCHC01" */
#define NPU__SEED_CHECKSUM 0x4e505553554d3031ull /* "NPUSUM01" */

typedef enum npu__key_tag {
    NPU__KEY_STRUCTURE = 1,  /* the model without constant data or addresses */
    NPU__KEY_CONSTANT = 2,   /* the bytes of one constant (never its address) */
    NPU__KEY_OPTIONS = 3,    /* the compile options string (build flags) */
    NPU__KEY_COMPILER = 4,   /* the compiler version, u32 */
    NPU__KEY_PLATFORM = 5,   /* the device platform string */
    NPU__KEY_NPU_VERSION = 6 /* NPU_VERSION, u32 */
} npu__key_tag;

typedef struct npu__cache_key {
    npu__nh128 key;
    npu__nh128 check;
    uint64_t field_bytes;    /* bytes of the field being streamed */
} npu__cache_key;

static void npu__cache_key_init(npu__cache_key *k)
{
    npu__nh128_init(&k->key, NPU__SEED_KEY);
    npu__nh128_init(&k->check, NPU__SEED_CHECK);
    k->field_bytes = 0;
}

/* Sink feed: the bytes of the field opened by npu__cache_key_begin. */
static void npu__cache_key_feed(void *state, const void *bytes, size_t n)
{
    npu__cache_key *k = (npu__cache_key *)state;
    npu__nh128_update(&k->key, bytes, n);
    npu__nh128_update(&k->check, bytes, n);
    k->field_bytes += (uint64_t)n;
}

static void npu__cache_key_begin(npu__cache_key *k, npu__key_tag tag)
{
    unsigned char t[4];
    npu__le_put(t, (uint64_t)tag, 4);
    npu__cache_key_feed(k, t, 4);
    k->field_bytes = 0;
}

static void npu__cache_key_end(npu__cache_key *k)
{
    unsigned char t[8];
    npu__le_put(t, k->field_bytes, 8);
    npu__cache_key_feed(k, t, 8);
    k->field_bytes = 0;
}

static void npu__cache_key_field(npu__cache_key *k, npu__key_tag tag, const void *bytes,
                                 size_t n)
{
    npu__cache_key_begin(k, tag);
    if (n > 0) npu__cache_key_feed(k, bytes, n);
    npu__cache_key_end(k);
}

static void npu__cache_key_u32(npu__cache_key *k, npu__key_tag tag, uint32_t v)
{
    unsigned char t[4];
    npu__le_put(t, v, 4);
    npu__cache_key_field(k, tag, t, 4);
}

static void npu__cache_key_final(const npu__cache_key *k, npu__digest *key, npu__digest *check)
{
    *key = npu__nh128_final(&k->key);
    *check = npu__nh128_final(&k->check);
}

/* ---- 11d. Cache directory ------------------------------------------------
 * One entry per compiled model: <dir>/<32 hex digits of the key>.npucache
 *
 *   offset  size  field
 *        0     8  magic "NPUCACHE"
 *        8     4  format version (1)
 *       12     4  header size (4096)
 *       16    16  key digest (h[0] then h[1], little-endian)
 *       32    16  check digest (the key material hashed with a second seed)
 *       48     8  payload size
 *       56     4  compiler version
 *       60     4  npu version (NPU_VERSION)
 *       64    64  platform, NUL-padded (e.g. "3720")
 *      128   128  descriptor, NUL-padded (readable: model name, I/O summary)
 *      256    16  checksum: NH128 (seed "NPUSUM01") over the payload, then
 *                 header bytes [0, 256)
 *      272  3824  zero
 *     4096     n  payload: the exported blob (native blob + OVNPU tail)
 *
 * The payload starts at 4096 so that in a mapping it is page-aligned: the
 * driver may use it in place (ZE_GRAPH_FLAG_INPUT_GRAPH_PERSISTENT).
 *
 * Store writes a temp file in the same directory (a unique name: pid, clock
 * ns, the key and the writer's address; O_CREAT|O_EXCL), fsyncs it, renames
 * it over the final name and fsyncs the directory. rename() is atomic, so a
 * reader sees the old entry, the new one, or none, never a torn one; a writer
 * killed mid-write leaves only a temp file, which later stores remove when it
 * is older than NPU__CACHE_TEMP_AGE seconds (npu__cache_clean_temp).
 *
 * The cache never fails a compile. Its functions log a warning (or an info
 * line for a plain miss) through the context's logger with the reason and
 * return a status; they never set the context's last error, except for
 * NPU_ERR_INVALID_ARGUMENT.
 *
 * Intended call sequence in the compile path (section 10):
 *
 *   npu__cache_key k; npu__cache_fields f;
 *   npu__cache_key_init(&k);
 *   npu__cache_key_begin(&k, NPU__KEY_STRUCTURE);
 *     serialize the model through a counting sink with feed = npu__cache_key_feed
 *     and constants rendered without addresses;
 *   npu__cache_key_end(&k);
 *   for each constant: npu__cache_key_field(&k, NPU__KEY_CONSTANT, data, bytes);
 *   npu__cache_key_field(&k, NPU__KEY_OPTIONS, build_flags, strlen(build_flags));
 *   npu__cache_key_u32(&k, NPU__KEY_COMPILER, compiler_version);
 *   npu__cache_key_field(&k, NPU__KEY_PLATFORM, platform, strlen(platform));
 *   npu__cache_key_u32(&k, NPU__KEY_NPU_VERSION, NPU_VERSION);
 *   npu__cache_fields_init(&f, &k, compiler_version, platform, descriptor);
 *   if (npu__cache_open(ctx, dir, &f, &map) == NPU_OK) {
 *       import map.payload / map.payload_size (npu__meta_read first), then
 *       npu__cache_close(&map) once the driver no longer needs the bytes;
 *   } else {            // a miss: the reason is logged
 *       compile; export into the entry with npu__cache_writer_begin, a sink
 *       whose feed is npu__cache_writer_feed (native blob bytes straight from
 *       the driver's pointer, then npu__meta_write), npu__cache_writer_finish;
 *       or npu__cache_store(ctx, dir, &f, blob, size) from a buffer. A failed
 *       store is logged and ignored: the compiled model is used anyway.
 *   }
 * Set ZE_GRAPH_FLAG_DISABLE_CACHING when a cache dir is in use (the driver's
 * own cache would duplicate it), as OpenVINO does. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NPU__CACHE_MAGIC "NPUCACHE"
#define NPU__CACHE_FORMAT 1u
#define NPU__CACHE_HEADER 4096u
#define NPU__CACHE_OFF_KEY 16u
#define NPU__CACHE_OFF_CHECK 32u
#define NPU__CACHE_OFF_PAYLOAD 48u
#define NPU__CACHE_OFF_COMPILER 56u
#define NPU__CACHE_OFF_NPUVER 60u
#define NPU__CACHE_OFF_PLATFORM 64u
#define NPU__CACHE_PLATFORM_MAX 64u
#define NPU__CACHE_OFF_DESCRIPTOR 128u
#define NPU__CACHE_DESCRIPTOR_MAX 128u
#define NPU__CACHE_OFF_CHECKSUM 256u
#define NPU__CACHE_FIELDS_END 272u
#define NPU__CACHE_SUFFIX ".npucache"
#define NPU__CACHE_TEMP_PREFIX ".npucache-"
#define NPU__CACHE_TEMP_SUFFIX ".tmp"
#define NPU__CACHE_TEMP_AGE 60   /* seconds before a temp file counts as abandoned */
#define NPU__CACHE_PATH_MAX 1024u

/* What identifies an entry; compared field by field on load. */
typedef struct npu__cache_fields {
    npu__digest key;
    npu__digest check;
    uint32_t compiler_version;
    uint32_t npu_version;
    char platform[NPU__CACHE_PLATFORM_MAX];     /* cut to 63 bytes */
    char descriptor[NPU__CACHE_DESCRIPTOR_MAX]; /* cut to 127 bytes */
} npu__cache_fields;

static void npu__cache_fields_init(npu__cache_fields *f, const npu__cache_key *k,
                                   uint32_t compiler_version, const char *platform,
                                   const char *descriptor)
{
    memset(f, 0, sizeof *f);
    npu__cache_key_final(k, &f->key, &f->check);
    f->compiler_version = compiler_version;
    f->npu_version = (uint32_t)NPU_VERSION;
    npu__strlcpy(f->platform, platform ? platform : "", sizeof f->platform);
    npu__strlcpy(f->descriptor, descriptor ? descriptor : "", sizeof f->descriptor);
}

/* "<32 lowercase hex digits>" of a digest (h[0] first, most significant
 * nibble first); hex must hold 33 bytes. */
static void npu__digest_hex(const npu__digest *d, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    unsigned i, j;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 16; j++) hex[i * 16 + j] = digits[(d->h[i] >> (60 - 4 * j)) & 0xfu];
    hex[32] = '\0';
}

/* <dir>/<hex>.npucache into buf. */
static npu_status npu__cache_entry_path(npu_context *ctx, const char *dir, const npu__digest *key,
                                        char *buf, size_t cap)
{
    char hex[33];
    int n;
    if (dir == NULL || key == NULL || buf == NULL || cap == 0)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "model cache: NULL directory or key");
    npu__digest_hex(key, hex);
    n = snprintf(buf, cap, "%s/%s%s", dir, hex, NPU__CACHE_SUFFIX);
    if (n < 0 || (size_t)n >= cap)
        return npu__fail(ctx, NPU_ERR_BUFFER_TOO_SMALL,
                         "model cache: path of the entry in '%s' needs more than %zu bytes", dir,
                         cap);
    return NPU_OK;
}

/* Logs why the cache did not help and returns `status`. */
NPU__PRINTF(4, 5)
static npu_status npu__cache_warn(npu_context *ctx, npu_log_level level, npu_status status,
                                  const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    npu__log(ctx, level, "model cache: %s", line);
    return status;
}

static void npu__cache_header(unsigned char *hdr, const npu__cache_fields *f,
                              uint64_t payload_size)
{
    memset(hdr, 0, NPU__CACHE_HEADER);
    memcpy(hdr, NPU__CACHE_MAGIC, 8);
    npu__le_put(hdr + 8, NPU__CACHE_FORMAT, 4);
    npu__le_put(hdr + 12, NPU__CACHE_HEADER, 4);
    npu__le_put(hdr + NPU__CACHE_OFF_KEY, f->key.h[0], 8);
    npu__le_put(hdr + NPU__CACHE_OFF_KEY + 8, f->key.h[1], 8);
    npu__le_put(hdr + NPU__CACHE_OFF_CHECK, f->check.h[0], 8);
    npu__le_put(hdr + NPU__CACHE_OFF_CHECK + 8, f->check.h[1], 8);
    npu__le_put(hdr + NPU__CACHE_OFF_PAYLOAD, payload_size, 8);
    npu__le_put(hdr + NPU__CACHE_OFF_COMPILER, f->compiler_version, 4);
    npu__le_put(hdr + NPU__CACHE_OFF_NPUVER, f->npu_version, 4);
    memcpy(hdr + NPU__CACHE_OFF_PLATFORM, f->platform, strnlen(f->platform, NPU__CACHE_PLATFORM_MAX - 1));
    memcpy(hdr + NPU__CACHE_OFF_DESCRIPTOR, f->descriptor,
           strnlen(f->descriptor, NPU__CACHE_DESCRIPTOR_MAX - 1));
}

/* Finishes the checksum over (payload already hashed, then the header fields)
 * and stores it in the header. */
static npu__digest npu__cache_checksum(const npu__nh128 *payload_sum, const unsigned char *hdr)
{
    npu__nh128 h = *payload_sum;
    npu__nh128_update(&h, hdr, NPU__CACHE_OFF_CHECKSUM);
    return npu__nh128_final(&h);
}

/* write() all of it, through short writes and EINTR. Returns 0 or an errno. */
static int npu__write_all(int fd, const void *data, size_t n)
{
    const unsigned char *p = (const unsigned char *)data;
    while (n > 0) {
        ssize_t w = write(fd, p, n > ((size_t)1 << 30) ? ((size_t)1 << 30) : n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (w == 0) return EIO;
        p += (size_t)w;
        n -= (size_t)w;
    }
    return 0;
}

static int npu__pwrite_all(int fd, const void *data, size_t n, off_t offset)
{
    const unsigned char *p = (const unsigned char *)data;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, offset);
        if (w < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (w == 0) return EIO;
        p += (size_t)w;
        n -= (size_t)w;
        offset += (off_t)w;
    }
    return 0;
}

/* ---- removing abandoned temp files ---- */

/* Removes "<dir>/.npucache-*.tmp" files last modified at least max_age_seconds
 * ago (0: all of them; only safe when no other process is storing). *removed
 * (may be NULL) gets the count. Errors: NPU_ERR_IO when the directory cannot
 * be read (logged as a warning). */
static npu_status npu__cache_clean_temp(npu_context *ctx, const char *dir, long max_age_seconds,
                                        unsigned *removed)
{
    DIR *d;
    struct dirent *e;
    time_t now = time(NULL);
    unsigned count = 0;
    if (removed != NULL) *removed = 0;
    if (dir == NULL) return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "model cache: directory is NULL");
    d = opendir(dir);
    if (d == NULL)
        return npu__cache_warn(ctx, NPU_LOG_WARN, NPU_ERR_IO, "cannot read directory '%s': %s",
                               dir, strerror(errno));
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        struct stat st;
        const size_t pre = sizeof NPU__CACHE_TEMP_PREFIX - 1, suf = sizeof NPU__CACHE_TEMP_SUFFIX - 1;
        if (len < pre + suf || memcmp(e->d_name, NPU__CACHE_TEMP_PREFIX, pre) != 0 ||
            memcmp(e->d_name + len - suf, NPU__CACHE_TEMP_SUFFIX, suf) != 0)
            continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (max_age_seconds > 0 && now - st.st_mtime < (time_t)max_age_seconds) continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0) {
            count++;
            npu__log(ctx, NPU_LOG_INFO, "model cache: removed abandoned temp file '%s/%s'", dir,
                     e->d_name);
        }
    }
    closedir(d);
    if (removed != NULL) *removed = count;
    return NPU_OK;
}

/* ---- writing an entry ---- */

typedef struct npu__cache_writer {
    npu_context *ctx;
    int fd;                      /* -1 when not open */
    int error;                   /* errno of the first failed write, 0 if none */
    npu__cache_fields fields;
    npu__nh128 sum;              /* checksum over the payload so far */
    uint64_t payload_size;
    size_t buffered;
    unsigned char buffer[8192];  /* coalesces small feeds (metadata fields) */
    char temp_path[NPU__CACHE_PATH_MAX];
    char final_path[NPU__CACHE_PATH_MAX];
    char dir[NPU__CACHE_PATH_MAX];
} npu__cache_writer;

static void npu__cache_writer_flush(npu__cache_writer *w)
{
    if (w->buffered > 0 && w->error == 0) w->error = npu__write_all(w->fd, w->buffer, w->buffered);
    w->buffered = 0;
}

/* Sink feed: appends payload bytes. Errors are remembered for _finish. */
static void npu__cache_writer_feed(void *state, const void *bytes, size_t n)
{
    npu__cache_writer *w = (npu__cache_writer *)state;
    if (w->fd < 0 || w->error != 0 || n == 0) return;
    npu__nh128_update(&w->sum, bytes, n);
    w->payload_size += (uint64_t)n;
    if (w->buffered + n <= sizeof w->buffer) {
        memcpy(w->buffer + w->buffered, bytes, n);
        w->buffered += n;
        return;
    }
    npu__cache_writer_flush(w);
    if (w->error == 0) {
        if (n < sizeof w->buffer) {
            memcpy(w->buffer, bytes, n);
            w->buffered = n;
        } else {
            w->error = npu__write_all(w->fd, bytes, n);
        }
    }
}

/* Closes and removes the temp file; the final entry is untouched. */
static void npu__cache_writer_abort(npu__cache_writer *w)
{
    if (w->fd >= 0) {
        close(w->fd);
        w->fd = -1;
        unlink(w->temp_path);
    }
}

/* Opens a temp file for the entry of `fields` in `dir` (created if missing,
 * one level). Errors (logged as warnings, ctx error untouched): NPU_ERR_IO
 * (unwritable, missing or not a directory), NPU_ERR_LIMIT (path too long). */
static npu_status npu__cache_writer_begin(npu__cache_writer *w, npu_context *ctx, const char *dir,
                                          const npu__cache_fields *fields)
{
    struct timespec ts;
    char hex[33];
    unsigned attempt;
    int n, err = 0;
    static const unsigned char zeros[NPU__CACHE_HEADER] = {0};
    w->ctx = ctx;
    w->fd = -1;
    w->error = 0;
    w->payload_size = 0;
    w->buffered = 0;
    if (dir == NULL || fields == NULL)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "model cache: NULL directory or fields");
    w->fields = *fields;
    npu__nh128_init(&w->sum, NPU__SEED_CHECKSUM);
    if (npu__strlcpy(w->dir, dir, sizeof w->dir) >= sizeof w->dir ||
        npu__cache_entry_path(NULL, dir, &fields->key, w->final_path, sizeof w->final_path) != NPU_OK)
        return npu__cache_warn(ctx, NPU_LOG_WARN, NPU_ERR_LIMIT,
                               "directory path '%.64s...' is too long; not storing", dir);
    npu__cache_clean_temp(NULL, dir, NPU__CACHE_TEMP_AGE, NULL);
    npu__digest_hex(&fields->key, hex);
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) ts.tv_sec = ts.tv_nsec = 0;
    for (attempt = 0; attempt < 8; attempt++) {
        unsigned long long ns = (unsigned long long)ts.tv_sec * 1000000000ull +
                                (unsigned long long)ts.tv_nsec + attempt;
        n = snprintf(w->temp_path, sizeof w->temp_path, "%s/%s%s-%ld-%llx-%lx%s", dir,
                     NPU__CACHE_TEMP_PREFIX,
                     hex, (long)getpid(), ns, (unsigned long)((uintptr_t)w >> 4 & 0xfffffu),
                     NPU__CACHE_TEMP_SUFFIX);
        if (n < 0 || (size_t)n >= sizeof w->temp_path)
            return npu__cache_warn(ctx, NPU_LOG_WARN, NPU_ERR_LIMIT,
                                   "directory path '%.64s...' is too long; not storing", dir);
        w->fd = open(w->temp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (w->fd >= 0) break;
        err = errno;
        if (err == ENOENT && attempt == 0 && mkdir(dir, 0777) == 0) continue;
        if (err != EEXIST && err != EINTR) break;
    }
    if (w->fd < 0)
        return npu__cache_warn(ctx, NPU_LOG_WARN, NPU_ERR_IO,
                               "cannot create a file in '%s': %s; continuing without storing the "
                               "compiled model",
                               dir, strerror(err));
    /* The header is written last (its sizes and checksum come at the end). */
    w->error = npu__write_all(w->fd, zeros, sizeof zeros);
    return NPU_OK;
}

/* Completes the entry: header, fsync, rename over the final name, fsync of
 * the directory. On any failure the temp file is removed and NPU_ERR_IO is
 * returned (logged as a warning); a previous entry stays as it was. */
static npu_status npu__cache_writer_finish(npu__cache_writer *w)
{
    unsigned char hdr[NPU__CACHE_HEADER];
    npu__digest sum;
    int err, dfd;
    const char *step = "write";
    if (w->fd < 0) return NPU_ERR_IO;
    npu__cache_writer_flush(w);
    err = w->error;
    if (err == 0) {
        npu__cache_header(hdr, &w->fields, w->payload_size);
        sum = npu__cache_checksum(&w->sum, hdr);
        npu__le_put(hdr + NPU__CACHE_OFF_CHECKSUM, sum.h[0], 8);
        npu__le_put(hdr + NPU__CACHE_OFF_CHECKSUM + 8, sum.h[1], 8);
        err = npu__pwrite_all(w->fd, hdr, NPU__CACHE_FIELDS_END, 0);
    }
    if (err == 0 && fsync(w->fd) != 0) {
        err = errno;
        step = "fsync";
    }
    if (err == 0) {
        int fd = w->fd;
        w->fd = -1;
        if (close(fd) != 0) {
            err = errno;
            step = "close";
            unlink(w->temp_path);
        } else if (rename(w->temp_path, w->final_path) != 0) {
            err = errno;
            step = "rename";
            unlink(w->temp_path);
        }
    }
    if (err != 0) {
        npu__cache_writer_abort(w);
        return npu__cache_warn(w->ctx, NPU_LOG_WARN, NPU_ERR_IO,
                               "cannot store '%s' (%s: %s); continuing without it",
                               w->final_path, step, strerror(err));
    }
    /* Make the rename durable. Failing here loses at most this entry after a
     * crash; the directory is never torn. */
    dfd = open(w->dir, O_RDONLY | O_CLOEXEC);
    if (dfd >= 0) {
        if (fsync(dfd) != 0 && errno != EINVAL)
            npu__cache_warn(w->ctx, NPU_LOG_WARN, NPU_OK, "fsync of directory '%s': %s", w->dir,
                            strerror(errno));
        close(dfd);
    }
    npu__log(w->ctx, NPU_LOG_INFO, "model cache: stored '%s' (%llu bytes)", w->final_path,
             (unsigned long long)w->payload_size);
    return NPU_OK;
}

/* Stores blob[0 .. size) as the entry of `fields` in `dir`. Status as
 * npu__cache_writer_begin / _finish; the caller logs nothing more and goes on.
 * (The compile path streams through the writer instead; this one-buffer form
 * serves the white-box tests.) */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((unused))
#endif
static npu_status npu__cache_store(npu_context *ctx, const char *dir,
                                   const npu__cache_fields *fields, const void *blob, size_t size)
{
    npu__cache_writer writer; /* about 11 KiB of stack (paths and write buffer) */
    npu__cache_writer *w = &writer;
    npu_status st;
    if (blob == NULL && size > 0)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "model cache: blob is NULL");
    st = npu__cache_writer_begin(w, ctx, dir, fields);
    if (st != NPU_OK) return st;
    npu__cache_writer_feed(w, blob, size);
    return npu__cache_writer_finish(w);
}

/* ---- loading an entry ---- */

typedef struct npu__cache_mapping {
    void *base;                    /* the mapping (NULL: none) */
    size_t map_size;
    const unsigned char *payload;  /* base + 4096: page-aligned */
    size_t payload_size;
    char reason[192];              /* why the entry was not used ("" on a hit) */
} npu__cache_mapping;

/* Verifies an entry held in memory, p[0 .. size) with size >= 4096, against
 * `expected`. NPU_OK, or NPU_ERR_FORMAT with the reason in reason[0 .. cap). */
static npu_status npu__cache_verify(const unsigned char *p, size_t size,
                                    const npu__cache_fields *expected, char *reason,
                                    size_t reason_cap)
{
    npu__cache_fields got;
    npu__nh128 sum;
    npu__digest digest;
    uint64_t payload_size;
    npu_status status = NPU_ERR_FORMAT;
    size_t i;
    if (size < NPU__CACHE_HEADER) {
        snprintf(reason, reason_cap, "truncated: %zu bytes, less than the %u-byte header", size,
                 NPU__CACHE_HEADER);
        return NPU_ERR_FORMAT;
    }
    payload_size = npu__le_get(p + NPU__CACHE_OFF_PAYLOAD, 8);
    memset(&got, 0, sizeof got);
    got.key.h[0] = npu__le_get(p + NPU__CACHE_OFF_KEY, 8);
    got.key.h[1] = npu__le_get(p + NPU__CACHE_OFF_KEY + 8, 8);
    got.check.h[0] = npu__le_get(p + NPU__CACHE_OFF_CHECK, 8);
    got.check.h[1] = npu__le_get(p + NPU__CACHE_OFF_CHECK + 8, 8);
    got.compiler_version = (uint32_t)npu__le_get(p + NPU__CACHE_OFF_COMPILER, 4);
    got.npu_version = (uint32_t)npu__le_get(p + NPU__CACHE_OFF_NPUVER, 4);
    if (memcmp(p, NPU__CACHE_MAGIC, 8) != 0) {
        snprintf(reason, reason_cap, "not a cache entry (bad magic)");
    } else if (npu__le_get(p + 8, 4) != NPU__CACHE_FORMAT) {
        snprintf(reason, reason_cap, "format version %u, this library reads %u",
                 (unsigned)npu__le_get(p + 8, 4), NPU__CACHE_FORMAT);
    } else if (npu__le_get(p + 12, 4) != NPU__CACHE_HEADER) {
        snprintf(reason, reason_cap, "header size %u, expected %u",
                 (unsigned)npu__le_get(p + 12, 4), NPU__CACHE_HEADER);
    } else if (payload_size != (uint64_t)size - NPU__CACHE_HEADER) {
        snprintf(reason, reason_cap,
                 "payload size %llu does not match the file (%zu bytes after the header): "
                 "truncated or extended",
                 (unsigned long long)payload_size, size - NPU__CACHE_HEADER);
    } else if (!npu__digest_equal(&got.key, &expected->key)) {
        snprintf(reason, reason_cap, "key in the entry differs from its file name");
    } else if (!npu__digest_equal(&got.check, &expected->check)) {
        snprintf(reason, reason_cap,
                 "check digest differs: another model with the same key");
    } else if (got.compiler_version != expected->compiler_version) {
        snprintf(reason, reason_cap, "compiler version 0x%08x, expected 0x%08x",
                 (unsigned)got.compiler_version, (unsigned)expected->compiler_version);
    } else if (got.npu_version != expected->npu_version) {
        snprintf(reason, reason_cap, "written by npu 0x%06x, this is 0x%06x",
                 (unsigned)got.npu_version, (unsigned)expected->npu_version);
    } else if (strnlen(expected->platform, NPU__CACHE_PLATFORM_MAX) >= NPU__CACHE_PLATFORM_MAX ||
               strncmp((const char *)p + NPU__CACHE_OFF_PLATFORM, expected->platform,
                       NPU__CACHE_PLATFORM_MAX) != 0) {
        snprintf(reason, reason_cap, "platform differs");
    } else if (strnlen(expected->descriptor, NPU__CACHE_DESCRIPTOR_MAX) >= NPU__CACHE_DESCRIPTOR_MAX ||
               strncmp((const char *)p + NPU__CACHE_OFF_DESCRIPTOR, expected->descriptor,
                       NPU__CACHE_DESCRIPTOR_MAX) != 0) {
        snprintf(reason, reason_cap, "descriptor differs");
    } else {
        for (i = NPU__CACHE_FIELDS_END; i < NPU__CACHE_HEADER && p[i] == 0; i++) {}
        if (i < NPU__CACHE_HEADER) {
            snprintf(reason, reason_cap, "non-zero byte at header offset %zu", i);
        } else {
            npu__nh128_init(&sum, NPU__SEED_CHECKSUM);
            npu__nh128_update(&sum, p + NPU__CACHE_HEADER, size - NPU__CACHE_HEADER);
            digest = npu__cache_checksum(&sum, p);
            if (digest.h[0] != npu__le_get(p + NPU__CACHE_OFF_CHECKSUM, 8) ||
                digest.h[1] != npu__le_get(p + NPU__CACHE_OFF_CHECKSUM + 8, 8)) {
                snprintf(reason, reason_cap, "checksum mismatch: corrupt entry");
            } else {
                status = NPU_OK;
            }
        }
    }
    if (status == NPU_OK && reason_cap > 0) reason[0] = '\0';
    return status;
}

/* Maps the entry of `expected` in `dir` read-only and verifies it: size,
 * magic, format version, key, check digest, compiler and npu versions,
 * platform, descriptor, zero padding and the checksum over the whole entry.
 * NPU_OK: a hit; out->payload stays valid until npu__cache_close(out).
 * A miss (out->reason says why; logged at INFO for a missing entry, WARN
 * otherwise; nothing is mapped): NPU_ERR_NOT_FOUND (no entry), NPU_ERR_FORMAT
 * (truncated, corrupt, foreign, another format version or another model),
 * NPU_ERR_IO (cannot open or map). The caller recompiles and stores, which
 * replaces a bad entry. The mapping is private: files are replaced by
 * rename, never rewritten in place, so an open mapping stays intact. */
static npu_status npu__cache_open(npu_context *ctx, const char *dir,
                                  const npu__cache_fields *expected, npu__cache_mapping *out)
{
    char path[NPU__CACHE_PATH_MAX];
    struct stat st;
    const unsigned char *p;
    npu_status status;
    int fd;
    if (out == NULL || expected == NULL)
        return npu__fail(ctx, NPU_ERR_INVALID_ARGUMENT, "model cache: NULL mapping or fields");
    memset(out, 0, sizeof *out);
    status = npu__cache_entry_path(ctx, dir, &expected->key, path, sizeof path);
    if (status != NPU_OK) {
        snprintf(out->reason, sizeof out->reason, "%s",
                 dir == NULL ? "no directory" : "directory path too long");
        return status;
    }
    do {
        fd = open(path, O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        int err = errno;
        snprintf(out->reason, sizeof out->reason, "%s", err == ENOENT ? "no entry" : strerror(err));
        return npu__cache_warn(ctx, err == ENOENT ? NPU_LOG_INFO : NPU_LOG_WARN,
                               err == ENOENT ? NPU_ERR_NOT_FOUND : NPU_ERR_IO, "miss for '%s': %s",
                               path, out->reason);
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(out->reason, sizeof out->reason, "not a regular file");
        close(fd);
        return npu__cache_warn(ctx, NPU_LOG_WARN, NPU_ERR_IO, "miss for '%s': %s", path,
                               out->reason);
    }
    if (st.st_size < (off_t)NPU__CACHE_HEADER) {
        snprintf(out->reason, sizeof out->reason, "truncated: %lld bytes, less than the %u-byte header",
                 (long long)st.st_size, NPU__CACHE_HEADER);
        close(fd);
        return npu__cache_warn(ctx, NPU_LOG_WARN, NPU_ERR_FORMAT, "miss for '%s': %s", path,
                               out->reason);
    }
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
        snprintf(out->reason, sizeof out->reason, "too large to map");
        close(fd);
        return npu__cache_warn(ctx, NPU_LOG_WARN, NPU_ERR_FORMAT, "miss for '%s': %s", path,
                               out->reason);
    }
    out->map_size = (size_t)st.st_size;
    out->base = mmap(NULL, out->map_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (out->base == MAP_FAILED) {
        out->base = NULL;
        snprintf(out->reason, sizeof out->reason, "mmap: %s", strerror(errno));
        return npu__cache_warn(ctx, NPU_LOG_WARN, NPU_ERR_IO, "miss for '%s': %s", path,
                               out->reason);
    }
    p = (const unsigned char *)out->base;
    status = npu__cache_verify(p, out->map_size, expected, out->reason, sizeof out->reason);
    if (status != NPU_OK) {
        munmap(out->base, out->map_size);
        out->base = NULL;
        out->map_size = 0;
        return npu__cache_warn(ctx, NPU_LOG_WARN, status, "miss for '%s': %s", path, out->reason);
    }
    out->payload = p + NPU__CACHE_HEADER;
    out->payload_size = out->map_size - NPU__CACHE_HEADER;
    npu__log(ctx, NPU_LOG_INFO, "model cache: hit '%s' (%zu bytes)", path, out->payload_size);
    return NPU_OK;
}

/* Unmaps a hit; a zeroed or missed mapping is fine. */
static void npu__cache_close(npu__cache_mapping *m)
{
    if (m == NULL) return;
    if (m->base != NULL) munmap(m->base, m->map_size);
    m->base = NULL;
    m->map_size = 0;
    m->payload = NULL;
    m->payload_size = 0;
}

#endif /* NPU_NO_LEVEL_ZERO (11b-11d) */

/* ---- 11e. Batching and the cache in the compile path ---------------------
 * Owns: npu_model_compile_graph / _ir and their size queries. Decides the
 * batch mode (l0.h "Batching"), computes the cache key (l0.h "Model cache"),
 * and runs one "form" of the model: a cache hit is imported, a miss is
 * compiled (section 10's npu__plain_compile), debatched and stored.
 * Calls: sections 6-8 (graph writer, IR), 10 (compile, import, export pieces),
 * 11a-d (metadata, hash, entries). */
#ifndef NPU_NO_LEVEL_ZERO

/* What analysing the model's inputs and outputs found. */
typedef struct npu__batch_plan {
    int batched;        /* an input's batch is not 1 (or inputs disagree) */
    int64_t n;          /* the original batch: N, NPU_DIM_DYNAMIC, or 1 */
    int plugin_ok;      /* PLUGIN can debatch it (before trying set_batch/compile) */
    char why[224];      /* why PLUGIN cannot ("" when it can) */
} npu__batch_plan;

/* One way of compiling the source. */
typedef struct npu__form {
    npu_batch_mode mode;   /* as npu_model_info reports it */
    int64_t original;      /* npu_model_info.original_batch */
    int64_t compiled;      /* the batch the payload is written with (PLUGIN: 1); 0: as is */
} npu__form;

static void npu__batch_text(int64_t n, char *buf, size_t cap)
{
    if (n == NPU_DIM_DYNAMIC)
        snprintf(buf, cap, "dynamic");
    else
        snprintf(buf, cap, "%lld", (long long)n);
}

/* Input / output i of the source with its batch axis ('N' of the layout, else 0). */
static npu_status npu__src_io(const npu__model_src *s, int output, uint32_t i, npu_tensor_desc *d,
                              uint32_t *axis)
{
    if (s->is_ir) {
        const npu_ir *ir = (const npu_ir *)s->src;
        const npu_ir_io *io = output ? npu_ir_output(ir, i) : npu_ir_input(ir, i);
        if (io == NULL) return NPU_ERR_NOT_FOUND;
        *d = io->desc;
        *axis = io->batch_axis < 0 ? 0u : (uint32_t)io->batch_axis;
        return NPU_OK;
    } else {
        const npu_graph *g = (const npu_graph *)s->src;
        npu_status st = output ? npu_graph_output(g, i, d) : npu_graph_input(g, i, d);
        if (st == NPU_OK) *axis = npu__batch_axis(d->layout);
        return st;
    }
}

/* Finds the original batch and whether PLUGIN can debatch it. The batch of an
 * IR counts its npu_ir_set_batch rewrite; its outputs are compared with the
 * batch the IR text declares. */
static void npu__batch_analyze(const npu__model_src *s, npu__batch_plan *p)
{
    uint32_t n_in, n_out, n_states, i, axis = 0;
    int64_t rewrite = 0, n = 1, declared = 1, shown = 1;
    int found = 0, mismatch = 0;
    char a[24], b[24], first_name[64] = "";
    char why_axis[224] = "", why_scalar[224] = "";
    npu_tensor_desc d;

    memset(p, 0, sizeof *p);
    p->n = 1;
    if (s->is_ir) {
        const npu_ir *ir = (const npu_ir *)s->src;
        n_in = npu_ir_input_count(ir);
        n_out = npu_ir_output_count(ir);
        n_states = npu_ir_state_count(ir);
        rewrite = ir->batch;
    } else {
        const npu_graph *g = (const npu_graph *)s->src;
        n_in = npu_graph_input_count(g);
        n_out = npu_graph_output_count(g);
        n_states = npu_graph_state_count(g);
    }
    for (i = 0; i < n_in; i++) {
        int64_t v, decl;
        if (npu__src_io(s, 0, i, &d, &axis) != NPU_OK) continue;
        if (d.shape.rank == 0 || axis >= d.shape.rank) {
            if (why_scalar[0] == '\0')
                snprintf(why_scalar, sizeof why_scalar, "input '%.60s' is a scalar (no batch axis)", d.name);
            continue;
        }
        decl = d.shape.dims[axis];
        v = rewrite > 0 ? rewrite : decl;
        if (!found) {
            found = 1;
            n = v;
            declared = decl;
            npu__strlcpy(first_name, d.name, sizeof first_name);
        } else if (v != n && !mismatch) {
            mismatch = 1;
            npu__batch_text(n, a, sizeof a);
            npu__batch_text(v, b, sizeof b);
            snprintf(p->why, sizeof p->why, "inputs '%.60s' (batch %s) and '%.60s' (batch %s) differ", first_name,
                     a, d.name, b);
        }
        if (shown == 1 && v != 1) shown = v;
        if (axis != 0 && why_axis[0] == '\0')
            snprintf(why_axis, sizeof why_axis,
                     "input '%.60s' has its batch on axis %u (layout %s); debatching needs the outermost axis", d.name,
                     (unsigned)axis, d.layout);
    }
    p->n = mismatch ? shown : n;
    p->batched = found && (mismatch || n != 1);
    if (!p->batched) {
        p->n = 1;
        return;
    }
    if (mismatch) return;
    npu__batch_text(n, a, sizeof a);
    if (n_states > 0) {
        snprintf(p->why, sizeof p->why, "the model has %u state variable(s)", (unsigned)n_states);
        return;
    }
    if (why_scalar[0] != '\0') {
        npu__strlcpy(p->why, why_scalar, sizeof p->why);
        return;
    }
    if (why_axis[0] != '\0') {
        npu__strlcpy(p->why, why_axis, sizeof p->why);
        return;
    }
    for (i = 0; i < n_out; i++) {
        if (npu__src_io(s, 1, i, &d, &axis) != NPU_OK) continue;
        if (d.shape.rank == 0 || axis >= d.shape.rank) {
            snprintf(p->why, sizeof p->why, "output '%.60s' is a scalar (no batch axis)", d.name);
            return;
        }
        if (axis != 0) {
            snprintf(p->why, sizeof p->why,
                     "output '%.60s' has its batch on axis %u (layout %s); debatching needs the outermost axis",
                     d.name, (unsigned)axis, d.layout);
            return;
        }
        if (d.shape.dims[0] != declared) {
            npu__batch_text(d.shape.dims[0], b, sizeof b);
            npu__batch_text(declared, a, sizeof a);
            snprintf(p->why, sizeof p->why, "output '%.60s' has %s on its batch axis, the inputs %s", d.name, b, a);
            return;
        }
    }
    p->plugin_ok = 1;
}

/* Sets the source to batch 1 for PLUGIN (*saved: what to restore). */
static npu_status npu__src_batch_one(const npu__model_src *s, int64_t *saved)
{
    if (s->is_ir) {
        npu_ir *ir = (npu_ir *)(uintptr_t)s->src;
        *saved = ir->batch;
        return npu_ir_set_batch(ir, 1, NULL);
    }
    *saved = npu_graph_batch((const npu_graph *)s->src);
    return npu_graph_set_batch((npu_graph *)(uintptr_t)s->src, 1);
}

static void npu__src_batch_restore(const npu__model_src *s, npu_context *ctx, int64_t saved)
{
    npu_status st;
    if (s->is_ir)
        st = npu_ir_set_batch((npu_ir *)(uintptr_t)s->src, saved, NULL);
    else
        st = npu_graph_set_batch((npu_graph *)(uintptr_t)s->src, saved);
    if (st != NPU_OK)
        npu__log(ctx, NPU_LOG_ERROR, "batching: restoring the caller's batch %lld failed", (long long)saved);
}

/* ---- the key ---- */

/* A sink that feeds the key (for fields written with the sink helpers). */
static void npu__key_sink(npu__sink *s, npu__cache_key *k)
{
    npu__sink_init(s, NULL, 0);
    s->feed = npu__cache_key_feed;
    s->feed_state = k;
}

/* Structure and constants. A graph: its IR XML as layout A writes it (weight
 * offsets, no addresses), then every constant's bytes; an IR: its XML text and
 * its .bin. */
static npu_status npu__key_model(npu__cache_key *k, const npu__model_src *src)
{
    if (src->is_ir) {
        const npu_ir *ir = (const npu_ir *)src->src;
        if (ir->xml == NULL) return npu__fail(ir->ctx, NPU_ERR_STATE, "%s: the IR was closed", ir->label);
        npu__cache_key_field(k, NPU__KEY_STRUCTURE, ir->xml, ir->xml_len);
        if (ir->bin_size > SIZE_MAX) return npu__fail(ir->ctx, NPU_ERR_OVERFLOW, "%s: weights too large", ir->label);
        npu__cache_key_field(k, NPU__KEY_CONSTANT, ir->bin, (size_t)ir->bin_size);
    } else {
        const npu_graph *g = (const npu_graph *)src->src;
        const npu_node *n;
        npu_payload_options a;
        npu__writer w;
        npu__sink s;
        size_t unused = 0;
        npu_status st;
        memset(&a, 0, sizeof a);
        a.layout = NPU_PAYLOAD_WEIGHTS_COPY;
        st = npu__writer_check(g, &a, &unused, "model cache key");
        if (st != NPU_OK) return st;
        npu__key_sink(&s, k);
        npu__cache_key_begin(k, NPU__KEY_STRUCTURE);
        npu__writer_init(&w, &s, g, &a);
        npu__x_graph(&w);
        npu__cache_key_end(k);
        for (n = g->first; n != NULL; n = n->next) {
            if (n->op != NPU__OP_CONSTANT) continue;
            if (n->a.constant.bytes > SIZE_MAX)
                return npu__fail(g->ctx, NPU_ERR_OVERFLOW, "model cache key: constant too large");
            npu__cache_key_field(k, NPU__KEY_CONSTANT, n->a.constant.data, (size_t)n->a.constant.bytes);
        }
    }
    return NPU_OK;
}

static void npu__device_platform(const npu_device *d, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/0x%04x", npu__platform_name(d->props.deviceId), (unsigned)d->props.deviceId);
}

/* Everything that decides the blob, hashed into f. The build flags are
 * written into the arena and rewound. */
static npu_status npu__cache_fields_for(npu_device *d, npu_arena *arena, const npu__model_src *src,
                                        const npu_compile_options *o, const npu__form *form,
                                        npu__cache_fields *f)
{
    npu__cache_key k;
    npu__sink s;
    const char *flags = NULL;
    char platform[64], descriptor[NPU__CACHE_DESCRIPTOR_MAX], batch[24];
    npu_tensor_desc desc;
    size_t mark = arena->used;
    uint32_t i, axis, n_in, n_out;
    npu_status st;

    npu__cache_key_init(&k);
    st = npu__key_model(&k, src);
    if (st != NPU_OK) return st;
    st = npu__src_flags(d, arena, src, o, &flags);
    if (st != NPU_OK) return st;
    npu__key_sink(&s, &k);
    npu__cache_key_begin(&k, NPU__KEY_OPTIONS);
    npu__sink_str(&s, "flags=");
    if (flags != NULL) npu__sink_str(&s, flags);
    npu_arena_rewind(arena, mark);
    npu__sink_str(&s, "\npayload_layout=");
    npu__sink_u64_dec(&s, (uint64_t)npu__pick_layout(d, o));
    npu__sink_str(&s, "\nbatch_mode=");
    npu__sink_u64_dec(&s, (uint64_t)form->mode);
    npu__sink_str(&s, " original=");
    npu__sink_i64_dec(&s, form->original);
    npu__sink_str(&s, " compiled=");
    npu__sink_i64_dec(&s, form->compiled);
    if (src->is_ir) {
        npu__sink_str(&s, " ir_batch=");
        npu__sink_i64_dec(&s, ((const npu_ir *)src->src)->batch);
    }
    npu__sink_str(&s, "\nlayouts=");
    n_in = src->is_ir ? npu_ir_input_count((const npu_ir *)src->src) : npu_graph_input_count((const npu_graph *)src->src);
    n_out = src->is_ir ? npu_ir_output_count((const npu_ir *)src->src)
                       : npu_graph_output_count((const npu_graph *)src->src);
    for (i = 0; i < n_in + n_out; i++) {
        if (npu__src_io(src, i >= n_in, i >= n_in ? i - n_in : i, &desc, &axis) != NPU_OK) continue;
        npu__sink_str(&s, desc.layout);
        npu__sink_str(&s, ";");
    }
    npu__cache_key_end(&k);
    npu__cache_key_u32(&k, NPU__KEY_COMPILER, d->compiler_version);
    npu__device_platform(d, platform, sizeof platform);
    npu__cache_key_field(&k, NPU__KEY_PLATFORM, platform, strlen(platform));
    npu__cache_key_u32(&k, NPU__KEY_NPU_VERSION, (uint32_t)NPU_VERSION);
    npu__batch_text(form->original, batch, sizeof batch);
    snprintf(descriptor, sizeof descriptor, "%s '%.64s' %u in %u out batch %s%s", src->is_ir ? "IR" : "graph",
             src->is_ir ? ((const npu_ir *)src->src)->label : npu_graph_name((const npu_graph *)src->src),
             (unsigned)n_in, (unsigned)n_out, batch,
             form->mode == NPU_BATCH_PLUGIN     ? " PLUGIN"
             : form->mode == NPU_BATCH_COMPILER ? " COMPILER"
                                                : "");
    npu__cache_fields_init(f, &k, d->compiler_version, platform, descriptor);
    return NPU_OK;
}

/* Exports the model straight into a new entry (blob bytes from the driver's
 * pointer, then the metadata tail). Failures are logged; the model stays. */
static void npu__cache_store_model(npu_model *m, const char *dir, const npu__cache_fields *f)
{
    npu__cache_writer w;
    npu__blob_meta meta;
    const uint8_t *blob = NULL;
    size_t bsize = 0;
    npu__sink s;
    if (m->dev->ext_version < NPU__ZE_VERSION(1, 7) || m->dev->g->pfnGetNativeBinary2 == NULL) {
        npu__log(m->ctx, NPU_LOG_INFO, "model cache: the driver has no pfnGetNativeBinary2; not storing");
        return;
    }
    if (m->dev->g->pfnGetNativeBinary2(m->graph, &bsize, &blob) != ZE_RESULT_SUCCESS || blob == NULL) {
        npu__log(m->ctx, NPU_LOG_WARN, "model cache: pfnGetNativeBinary2 failed; not storing");
        return;
    }
    if (npu__cache_writer_begin(&w, m->ctx, dir, f) != NPU_OK) return;
    npu__sink_init(&s, NULL, 0);
    s.feed = npu__cache_writer_feed;
    s.feed_state = &w;
    npu__sink_put(&s, blob, bsize);
    npu__model_meta(m, &meta);
    npu__meta_write(&s, &meta);
    if (s.overflow) {
        npu__cache_writer_abort(&w);
        return;
    }
    (void)npu__cache_writer_finish(&w);
}

/* Imports a hit. The mapping moves into the model when the driver uses it in
 * place; otherwise it is closed here. */
static npu_status npu__cache_import(npu_device *d, npu_arena *arena, const npu_compile_options *o,
                                    npu__cache_mapping *map, npu_model **out)
{
    npu_import_options io;
    int persistent = 0;
    npu_status st;
    memset(&io, 0, sizeof io);
    io.priority = o->priority;
    io.turbo = o->turbo;
    st = npu__import(d, arena, map->payload, map->payload_size, &io, 1, &persistent, out);
    if (st == NPU_OK && persistent) {
        (*out)->map = map->base;
        (*out)->map_size = map->map_size;
        map->base = NULL;
    }
    npu__cache_close(map);
    return st;
}

/* Compiles (or imports from the cache) one form of the source. The source is
 * already at the form's batch. */
static npu_status npu__compile_form(npu_device *d, npu_arena *arena, const npu__model_src *src,
                                    const npu_compile_options *o, const npu__form *form, npu_model **out)
{
    npu__cache_fields fields;
    npu__cache_mapping map;
    int use_cache = o != NULL && o->cache_dir != NULL;
    uint64_t compile_ns = 0;
    npu_status st;
    npu_model *m = NULL;
    size_t mark = arena->used;

    *out = NULL;
    if (use_cache) {
        st = npu__cache_fields_for(d, arena, src, o, form, &fields);
        if (st != NPU_OK) return st;   /* the model itself is unusable (graph error, closed IR) */
        if (npu__cache_open(d->ctx, o->cache_dir, &fields, &map) == NPU_OK) {
            st = npu__cache_import(d, arena, o, &map, &m);
            if (st == NPU_OK && m->info.original_batch != (form->mode == NPU_BATCH_PLUGIN ? form->original : 1)) {
                npu__model_release(m);
                npu_arena_rewind(arena, mark);
                st = NPU_ERR_FORMAT;
            }
            if (st == NPU_OK) {
                m->info.from_cache = 1;
                m->info.batch_mode = form->mode;
                m->info.original_batch = form->original;
                *out = m;
                return NPU_OK;
            }
            if (st == NPU_ERR_ARENA_TOO_SMALL) return st;
            npu__log(d->ctx, NPU_LOG_WARN, "model cache: the entry verified but could not be imported (%s); "
                     "recompiling and replacing it", npu_status_string(st));
        }
    }
    st = npu__plain_compile(d, arena, src, o, &compile_ns, &m);
    if (st != NPU_OK) return st;
    if (form->mode == NPU_BATCH_PLUGIN) {
        st = form->original == NPU_DIM_DYNAMIC ? npu__model_set_dynamic(m)
             : form->original > (int64_t)NPU__MAX_BATCH
                 ? npu__fail(d->ctx, NPU_ERR_LIMIT, "batching: batch %lld exceeds %u", (long long)form->original,
                             (unsigned)NPU__MAX_BATCH)
                 : npu__model_set_batch(m, (uint32_t)form->original);
        if (st != NPU_OK) {
            npu__model_release(m);
            npu_arena_rewind(arena, mark);
            return st;
        }
    }
    m->info.batch_mode = form->mode;
    m->info.original_batch = form->original;
    m->info.compile_ns = compile_ns;
    if (use_cache) npu__cache_store_model(m, o->cache_dir, &fields);
    *out = m;
    return NPU_OK;
}

static npu_status npu__compile_check(npu_device *d, const npu__model_src *src, const npu_compile_options *o,
                                     const void *out)
{
    npu_status st;
    if (d == NULL || src->src == NULL || out == NULL)
        return npu__fail(d ? d->ctx : NULL, NPU_ERR_INVALID_ARGUMENT, "compile: NULL argument");
    st = npu__check_compile_opts(d->ctx, o);
    if (st != NPU_OK) return st;
    if (d->compiler_version == 0)
        return npu__fail(d->ctx, NPU_ERR_UNSUPPORTED, "compile: the driver has no compiler (compiler version 0); "
                         "import a precompiled blob instead");
    return NPU_OK;
}

static npu_status npu__plugin_refused(npu_context *ctx, const npu__batch_plan *p)
{
    char b[24];
    npu__batch_text(p->n, b, sizeof b);
    return npu__fail(ctx, NPU_ERR_UNSUPPORTED, "batch mode PLUGIN: the batch-%s model cannot be debatched: %s", b,
                     p->why);
}

static void npu__auto_fallback(npu_context *ctx, const npu__batch_plan *p, const char *why)
{
    char b[24];
    npu__batch_text(p->n, b, sizeof b);
    npu__log(ctx, NPU_LOG_WARN,
             "batch mode AUTO: the batch-%s model cannot be debatched (%s); the compiler handles the batch "
             "(COMPILER)",
             b, why);
}

static npu_status npu__compile_src(npu_device *d, npu_arena *arena, const npu__model_src *src,
                                   const npu_compile_options *o, npu_model **out)
{
    npu_batch_mode mode = o != NULL ? o->batch_mode : NPU_BATCH_AUTO;
    npu__batch_plan plan;
    npu__form as_is, plugin;
    int64_t saved = 0;
    char b[24], why[512];
    npu_status st;

    if (out != NULL) *out = NULL;
    st = npu__compile_check(d, src, o, out);
    if (st != NPU_OK) return st;
    if (arena == NULL) return npu__fail(d->ctx, NPU_ERR_INVALID_ARGUMENT, "compile: NULL argument");
    npu__batch_analyze(src, &plan);
    as_is.mode = plan.batched ? NPU_BATCH_COMPILER : NPU_BATCH_AUTO;
    as_is.original = plan.n;
    as_is.compiled = 0;
    if (!plan.batched || mode == NPU_BATCH_COMPILER) return npu__compile_form(d, arena, src, o, &as_is, out);
    if (!plan.plugin_ok) {
        if (mode == NPU_BATCH_PLUGIN) return npu__plugin_refused(d->ctx, &plan);
        npu__auto_fallback(d->ctx, &plan, plan.why);
        return npu__compile_form(d, arena, src, o, &as_is, out);
    }
    npu__batch_text(plan.n, b, sizeof b);
    st = npu__src_batch_one(src, &saved);
    if (st != NPU_OK) {
        snprintf(why, sizeof why, "setting batch 1 failed: %.400s", npu_context_last_error(d->ctx));
        if (mode == NPU_BATCH_PLUGIN)
            return npu__fail(d->ctx, NPU_ERR_UNSUPPORTED, "batch mode PLUGIN: the batch-%s model cannot be "
                             "debatched: %s", b, why);
        npu__auto_fallback(d->ctx, &plan, why);
        return npu__compile_form(d, arena, src, o, &as_is, out);
    }
    plugin.mode = NPU_BATCH_PLUGIN;
    plugin.original = plan.n;
    plugin.compiled = 1;
    st = npu__compile_form(d, arena, src, o, &plugin, out);
    npu__src_batch_restore(src, d->ctx, saved);
    if (st == NPU_OK) {
        npu__log(d->ctx, NPU_LOG_INFO, "batch mode %s: batch %s compiled at batch 1, debatched into %s command "
                 "lists (PLUGIN)", mode == NPU_BATCH_AUTO ? "AUTO" : "PLUGIN", b,
                 plan.n == NPU_DIM_DYNAMIC ? "1..max_batch" : b);
        return NPU_OK;
    }
    if (st != NPU_ERR_COMPILE && st != NPU_ERR_SHAPE && st != NPU_ERR_UNSUPPORTED) return st;
    snprintf(why, sizeof why, "the batch-1 model: %.400s", npu_context_last_error(d->ctx));
    if (mode == NPU_BATCH_PLUGIN)
        return npu__fail(d->ctx, st, "batch mode PLUGIN: the batch-%s model cannot be debatched: %s", b, why);
    npu__auto_fallback(d->ctx, &plan, why);
    return npu__compile_form(d, arena, src, o, &as_is, out);
}

static npu_status npu__compile_src_size(npu_device *d, const npu__model_src *src, const npu_compile_options *o,
                                        size_t *bytes)
{
    npu_batch_mode mode = o != NULL ? o->batch_mode : NPU_BATCH_AUTO;
    npu__batch_plan plan;
    size_t one = 0, plain = 0;
    int64_t saved = 0;
    npu_status st;
    st = npu__compile_check(d, src, o, bytes);
    if (st != NPU_OK) return st;
    *bytes = 0;
    npu__batch_analyze(src, &plan);
    if (plan.batched && mode != NPU_BATCH_COMPILER) {
        if (!plan.plugin_ok && mode == NPU_BATCH_PLUGIN) return npu__plugin_refused(d->ctx, &plan);
        if (plan.plugin_ok && npu__src_batch_one(src, &saved) == NPU_OK) {
            st = npu__plain_size(d, src, o, &one);
            npu__src_batch_restore(src, d->ctx, saved);
            if (st != NPU_OK) return st;
            if (mode == NPU_BATCH_PLUGIN) {
                *bytes = one;
                return NPU_OK;
            }
        } else if (mode == NPU_BATCH_PLUGIN) {
            return npu__fail(d->ctx, NPU_ERR_UNSUPPORTED, "batch mode PLUGIN: setting batch 1 failed");
        }
    }
    /* Unbatched, COMPILER, or AUTO (which may fall back): the model as it is. */
    st = npu__plain_size(d, src, o, &plain);
    if (st != NPU_OK) return st;
    *bytes = one > plain ? one : plain;
    return NPU_OK;
}

npu_status npu_model_compile_graph(npu_device *dev, npu_arena *arena, const npu_graph *graph,
                                   const npu_compile_options *opts, npu_model **out)
{
    npu__model_src s;
    s.src = graph;
    s.is_ir = 0;
    return npu__compile_src(dev, arena, &s, opts, out);
}

npu_status npu_model_compile_graph_size(npu_device *dev, const npu_graph *graph, const npu_compile_options *opts,
                                        size_t *bytes)
{
    npu__model_src s;
    s.src = graph;
    s.is_ir = 0;
    return npu__compile_src_size(dev, &s, opts, bytes);
}

npu_status npu_model_compile_ir(npu_device *dev, npu_arena *arena, const npu_ir *ir,
                                const npu_compile_options *opts, npu_model **out)
{
    npu__model_src s;
    s.src = ir;
    s.is_ir = 1;
    return npu__compile_src(dev, arena, &s, opts, out);
}

npu_status npu_model_compile_ir_size(npu_device *dev, const npu_ir *ir, const npu_compile_options *opts,
                                     size_t *bytes)
{
    npu__model_src s;
    s.src = ir;
    s.is_ir = 1;
    return npu__compile_src_size(dev, &s, opts, bytes);
}

#endif /* NPU_NO_LEVEL_ZERO */
