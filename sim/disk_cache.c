/* disk_cache.c - the driver's compile cache, as the real linux-npu-driver keeps
 * it (DiskCache in ext/source/graph/disk_cache.cpp @v1.10.0, source/ext/
 * disk_cache.cpp @v1.19.0 and @v1.32.1). The profile's disk_cache field says
 * which release's rules apply:
 *   1 (v1.10): default limit 1 GiB, the file holds the blob only;
 *   2 (v1.19): default limit 4 GiB, a digest of the blob follows it and is
 *              checked on every read (a bad entry is removed and misses);
 *   3 (v1.32): as 2, and a ze_graph_input_hash_t that is the FIRST struct in
 *              the descriptor's pNext replaces the input bytes in the key.
 * The key always covers the driver version, the compiler identity (id, version,
 * opsets), the graph format, the build flags and the graph flags. Hashes here
 * are the sim's own (FNV-1a); the real driver uses SHA-1 (v1.10, v1.19) and
 * CityHash (v1.32), so file names differ, but what the key depends on is the
 * same. The cache directory is read at zeInit: ZE_INTEL_NPU_CACHE_DIR, else
 * $XDG_CACHE_HOME/ze_intel_npu_cache, else $HOME/.cache/ze_intel_npu_cache,
 * else ./.cache/ze_intel_npu_cache; it is created if missing, and the cache is
 * off when that fails. ZE_INTEL_NPU_CACHE_SIZE sets the limit in bytes (text
 * that does not start with a digit gives 0). When a new entry would pass the
 * limit, the least recently accessed files go first; from v1.19 on an entry
 * larger than the limit is not stored at all (limit 0: nothing is stored),
 * while v1.10 evicts what it can and stores it anyway.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/sim_internal.h"

#define DIGEST_LEN 16u

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static int cache_ready;
static int cache_on;
static char cache_dir[PATH_MAX];
static uint64_t cache_limit;

/* ---- hashing ---------------------------------------------------------------- */
typedef struct hash128 {
    uint64_t a, b;
} hash128;

static void hash_init(hash128 *h)
{
    h->a = 0xcbf29ce484222325ull;
    h->b = 0x84222325cbf29ce4ull;
}

static void hash_update(hash128 *h, const void *data, size_t size)
{
    const uint8_t *p = data;
    uint64_t a = h->a, b = h->b;
    for (size_t i = 0; i < size; i++) {
        a = (a ^ p[i]) * 0x100000001b3ull;
        b = (b ^ p[i]) * 0x100000001b3ull;
        b ^= b >> 29;
    }
    h->a = a;
    h->b = b;
}

static void hash_hex(const hash128 *h, char out[33])
{
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h->a, (unsigned long long)h->b);
}

static void digest(const void *data, size_t size, uint8_t out[DIGEST_LEN])
{
    hash128 h;
    hash_init(&h);
    hash_update(&h, data, size);
    memcpy(out, &h.a, 8);
    memcpy(out + 8, &h.b, 8);
}

/* ---- set-up ------------------------------------------------------------------- */
static int make_dirs(const char *path)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
        return 0;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            return 0;
        *p = '/';
    }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
        return 0;
    struct stat st;
    return stat(tmp, &st) == 0 && S_ISDIR(st.st_mode);
}

static uint64_t parse_limit(const char *v)
{
    /* std::from_chars: leading decimal digits; on error the value stays 0. */
    uint64_t n = 0;
    int any = 0;
    for (; *v >= '0' && *v <= '9'; v++) {
        any = 1;
        n = n * 10u + (uint64_t)(*v - '0');
    }
    return any ? n : 0;
}

static void cache_init_locked(void)
{
    if (cache_ready)
        return;
    cache_ready = 1;
    cache_on = 0;
    int gen = SIM_PROFILE()->disk_cache;
    if (gen == 0)
        return;
    const char *v = getenv("ZE_INTEL_NPU_CACHE_DIR");
    int n;
    if (v != NULL) {
        n = snprintf(cache_dir, sizeof(cache_dir), "%s", v);
    } else if ((v = getenv("XDG_CACHE_HOME")) != NULL) {
        n = snprintf(cache_dir, sizeof(cache_dir), "%s/ze_intel_npu_cache", v);
    } else if ((v = getenv("HOME")) != NULL) {
        n = snprintf(cache_dir, sizeof(cache_dir), "%s/.cache/ze_intel_npu_cache", v);
    } else {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof(cwd)) == NULL)
            return;
        n = snprintf(cache_dir, sizeof(cache_dir), "%s/.cache/ze_intel_npu_cache", cwd);
    }
    if (n <= 0 || n >= (int)sizeof(cache_dir) || cache_dir[0] == '\0')
        return;
    if (!make_dirs(cache_dir)) {
        sim_trace("disk cache: cannot create %s, cache off", cache_dir);
        return;
    }
    v = getenv("ZE_INTEL_NPU_CACHE_SIZE");
    cache_limit = v != NULL ? parse_limit(v) : (gen == 1 ? 1ull << 30 : 4ull << 30);
    cache_on = 1;
    sim_trace("disk cache: %s, limit %llu bytes", cache_dir, (unsigned long long)cache_limit);
}

void sim_cache_init(void)
{
    pthread_mutex_lock(&cache_lock);
    cache_ready = 0;
    cache_init_locked();
    pthread_mutex_unlock(&cache_lock);
}

int sim_cache_enabled(void)
{
    pthread_mutex_lock(&cache_lock);
    cache_init_locked();
    int on = cache_on;
    pthread_mutex_unlock(&cache_lock);
    return on;
}

/* ---- key ------------------------------------------------------------------------- */
void sim_cache_compute_key(const ze_graph_desc_2_t *desc, const char *build_flags, sim_cache_key *key)
{
    const sim_profile *p = SIM_PROFILE();
    hash128 h;
    hash_init(&h);
    uint32_t drv = p->driver_version;
    hash_update(&h, &drv, sizeof(drv));
    /* The real key's driver version changes with every driver build; the sim's
     * stands in with its native blob format, so an entry an older sim wrote
     * (another plan format) is never looked up. */
    uint32_t plan_format = sim_plan_format_version();
    hash_update(&h, &plan_format, sizeof(plan_format));
    /* vcl_compiler_properties_t: id, version, supported opsets */
    hash_update(&h, p->compiler_release, strlen(p->compiler_release));
    uint32_t cv = sim_cfg.compiler_version, opset = p->max_opset;
    hash_update(&h, &cv, sizeof(cv));
    hash_update(&h, &opset, sizeof(opset));
    uint32_t format = (uint32_t)desc->format;
    hash_update(&h, &format, sizeof(format));
    uint32_t flags = desc->flags;
    if (p->disk_cache < 3) {
        hash_update(&h, desc->pInput, desc->inputSize);
        if (build_flags != NULL)
            hash_update(&h, build_flags, strlen(build_flags));
        hash_update(&h, &flags, sizeof(flags));
    } else {
        if (build_flags != NULL)
            hash_update(&h, build_flags, strlen(build_flags));
        hash_update(&h, &flags, sizeof(flags));
        const ze_graph_input_hash_t *ih = desc->pNext;
        if (ih != NULL && (uint32_t)ih->stype == ZE_STRUCTURE_TYPE_GRAPH_INPUT_HASH)
            hash_update(&h, &ih->hash, sizeof(ih->hash));
        else
            hash_update(&h, desc->pInput, desc->inputSize);
    }
    hash_hex(&h, key->name);
}

/* ---- entries ------------------------------------------------------------------------ */
static int entry_path(const sim_cache_key *key, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s/%s", cache_dir, key->name);
    return n > 0 && (size_t)n < cap;
}

void *sim_cache_get(const sim_cache_key *key, size_t *size)
{
    if (!sim_cache_enabled())
        return NULL;
    char path[PATH_MAX + 64];
    if (!entry_path(key, path, sizeof(path)))
        return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    flock(fd, LOCK_SH);
    struct stat st;
    uint8_t *buf = NULL;
    size_t n = 0;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        n = (size_t)st.st_size;
        buf = malloc(n);
        size_t got = 0;
        while (buf != NULL && got < n) {
            ssize_t r = read(fd, buf + got, n - got);
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (buf != NULL && got != n) {
            free(buf);
            buf = NULL;
        }
    }
    flock(fd, LOCK_UN);
    close(fd);
    if (buf == NULL)
        return NULL;
    if (SIM_PROFILE()->disk_cache >= 2) {
        uint8_t want[DIGEST_LEN];
        if (n <= DIGEST_LEN) {
            free(buf);
            unlink(path);
            return NULL;
        }
        n -= DIGEST_LEN;
        digest(buf, n, want);
        if (memcmp(want, buf + n, DIGEST_LEN) != 0) {
            sim_trace("disk cache: bad checksum in %s, removed", key->name);
            free(buf);
            unlink(path);
            return NULL;
        }
    }
    *size = n;
    return buf;
}

uint64_t sim_cache_size(void)
{
    if (!sim_cache_enabled())
        return 0;
    DIR *d = opendir(cache_dir);
    if (d == NULL)
        return 0;
    uint64_t total = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, 0) == 0 && S_ISREG(st.st_mode))
            total += (uint64_t)st.st_size;
    }
    closedir(d);
    return total;
}

uint64_t sim_cache_max_size(void)
{
    return sim_cache_enabled() ? cache_limit : 0;
}

typedef struct cache_file {
    long atime;
    char name[256];
} cache_file;

static int by_atime(const void *a, const void *b)
{
    long x = ((const cache_file *)a)->atime, y = ((const cache_file *)b)->atime;
    return (x > y) - (x < y);
}

/* Removes the least recently accessed files until `need` bytes are freed. */
static uint64_t evict(uint64_t need)
{
    DIR *d = opendir(cache_dir);
    if (d == NULL)
        return 0;
    cache_file *files = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, 0) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (count == cap) {
            size_t nc = cap ? cap * 2 : 16;
            cache_file *nf = realloc(files, nc * sizeof(*nf));
            if (nf == NULL)
                break;
            files = nf;
            cap = nc;
        }
        /* removeLeastUsedFiles keys a std::map by the access time in seconds and
         * emplaces: of several files accessed in the same second only the first
         * one the directory scan meets is a candidate. */
        int seen = 0;
        for (size_t i = 0; i < count && !seen; i++)
            seen = files[i].atime == (long)st.st_atim.tv_sec;
        if (seen)
            continue;
        files[count].atime = (long)st.st_atim.tv_sec;
        snprintf(files[count].name, sizeof(files[count].name), "%s", e->d_name);
        count++;
    }
    closedir(d);
    if (count > 0)
        qsort(files, count, sizeof(*files), by_atime);
    uint64_t removed = 0;
    for (size_t i = 0; i < count && removed < need; i++) {
        char path[PATH_MAX + 300];
        snprintf(path, sizeof(path), "%s/%s", cache_dir, files[i].name);
        struct stat st;
        if (stat(path, &st) != 0 || unlink(path) != 0)
            continue;
        removed += (uint64_t)st.st_size;
    }
    free(files);
    return removed;
}

int sim_cache_put(const sim_cache_key *key, const void *blob, size_t size)
{
    if (!sim_cache_enabled() || blob == NULL)
        return 0;
    int gen = SIM_PROFILE()->disk_cache;
    int checksum = gen >= 2;
    uint64_t entry = (uint64_t)size + (checksum ? DIGEST_LEN : 0);
    uint64_t used = sim_cache_size();
    /* setBlob: v1.10 has no size check at all (it evicts what it can and writes
     * anyway); v1.19 skips a blob larger than the limit; v1.32 counts the digest
     * in. */
    if ((gen == 2 && (uint64_t)size > cache_limit) || (gen >= 3 && entry > cache_limit))
        return 0;
    if (used + entry > cache_limit)
        evict(used + entry - cache_limit);
    char path[PATH_MAX + 64];
    if (!entry_path(key, path, sizeof(path)))
        return 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return 0;
    flock(fd, LOCK_EX);
    int ok = ftruncate(fd, 0) == 0;
    const uint8_t *p = blob;
    for (size_t done = 0; ok && done < size;) {
        ssize_t w = write(fd, p + done, size - done);
        if (w <= 0)
            ok = 0;
        else
            done += (size_t)w;
    }
    if (ok && checksum) {
        uint8_t sum[DIGEST_LEN];
        digest(blob, size, sum);
        ok = write(fd, sum, DIGEST_LEN) == (ssize_t)DIGEST_LEN;
    }
    if (!ok)
        unlink(path);
    flock(fd, LOCK_UN);
    close(fd);
    return ok;
}
