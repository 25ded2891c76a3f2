/* File-I/O fault injection for npu_model_export_file and the model cache
 * (store and load through npu_model_compile_graph with cache_dir).
 *
 * This executable links libnpu.a statically, so the libc functions npu.c
 * calls (nm -u npu.o) are interposed here: open, mkstemp, opendir, fstat,
 * write, lseek, posix_fallocate, fchmod, mmap, msync, fsync, close, rename,
 * openat, renameat, dup.
 * Each forwards to libc (dlsym RTLD_NEXT) unless a fault is armed for the
 * N-th call made from this executable's code (the library; the software
 * NPU's own calls, from its .so, are not counted). For N = 1, 2, ... until no
 * call is left to fail, with ENOSPC, EIO and EACCES, and with short writes:
 *  - export: NPU_ERR_IO whose message names the file; the old file intact;
 *    no temporary file left; then the next export works.
 *  - cache: the compile still succeeds and the model computes correctly (a
 *    warning names the entry or the directory); no temporary file left; the
 *    entry is either absent or complete; the next compile stores or hits.
 * After every iteration the sim's live handles are back at the baseline. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "tests/l0_test_util.h"

/* ---- interposition ---- */

extern char __executable_start[], etext[];

/* The wrappers run before a sanitizer's runtime is ready (its symbolizer
 * opens and maps files at start-up): they must not be instrumented. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define NOSAN __attribute__((no_sanitize("thread", "address", "undefined"), noinline))
#else
#define NOSAN
#endif

enum { F_OPEN, F_MKSTEMP, F_OPENDIR, F_FSTAT, F_WRITE, F_LSEEK, F_FALLOCATE, F_FCHMOD, F_MMAP,
       F_MSYNC, F_FSYNC, F_CLOSE, F_RENAME, F_OPENAT, F_RENAMEAT, F_DUP, F_COUNT };
static const char *const fn_names[F_COUNT] = {"open", "mkstemp", "opendir", "fstat", "write", "lseek",
                                              "posix_fallocate", "fchmod", "mmap", "msync", "fsync",
                                              "close", "rename", "openat", "renameat", "dup"};

static struct {
    int armed;            /* counting calls */
    unsigned nth;         /* fail this call (1-based); 0: count only */
    int err;              /* errno to give; 0 with short_write: a short write */
    int short_write;      /* writes: the faulted call writes half and succeeds */
    unsigned calls;       /* calls counted since arming */
    int fired;            /* the fault was given */
    int fired_fn;         /* ... by this function */
    unsigned per_fn[F_COUNT];
} inj;

NOSAN static int from_library(const void *ret)
{
    return (const char *)ret >= __executable_start && (const char *)ret < etext;
}

/* 1 when this call must fail (errno is set). */
NOSAN static int inject(int fn, const void *ret)
{
    if (!inj.armed || !from_library(ret)) return 0;
    inj.calls++;
    inj.per_fn[fn]++;
    if (inj.nth == 0 || inj.calls != inj.nth || inj.fired) return 0;
    if (inj.short_write && fn != F_WRITE) {
        inj.nth++;   /* short writes only hit writes: move on to the next call */
        return 0;
    }
    inj.fired = 1;
    inj.fired_fn = fn;
    errno = inj.err;
    return 1;
}

/* libc's functions, looked up at the start of main(). Calls made before that
 * (constructors of the loader and libxml2, a sanitizer's start-up) go straight
 * to the kernel: dlsym() is not safe that early under TSan. */
static int (*real_open)(const char *, int, ...);
static int (*real_mkstemp)(char *);
static DIR *(*real_opendir)(const char *);
static int (*real_fstat)(int, struct stat *);
static ssize_t (*real_write)(int, const void *, size_t);
static off_t (*real_lseek)(int, off_t, int);
static int (*real_posix_fallocate)(int, off_t, off_t);
static int (*real_fchmod)(int, mode_t);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_msync)(void *, size_t, int);
static int (*real_fsync)(int);
static int (*real_close)(int);
static int (*real_rename)(const char *, const char *);
static int (*real_mkdir)(const char *, mode_t);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_dup)(int);
static int resolved;


static void resolve_libc(void)
{
#define RESOLVE(name) *(void **)&real_##name = dlsym(RTLD_NEXT, #name)
    RESOLVE(open); RESOLVE(mkstemp); RESOLVE(opendir); RESOLVE(fstat); RESOLVE(write); RESOLVE(lseek);
    RESOLVE(posix_fallocate); RESOLVE(fchmod); RESOLVE(mmap); RESOLVE(msync); RESOLVE(fsync); RESOLVE(close);
    RESOLVE(rename); RESOLVE(mkdir); RESOLVE(openat); RESOLVE(renameat); RESOLVE(dup);
#undef RESOLVE
    resolved = 1;
}

/* mkdir from the library fails with this errno when non-zero (a read-only
 * file system under a missing cache directory). */
static int mkdir_errno;

NOSAN int mkdir(const char *path, mode_t mode)
{
    if (!resolved) return (int)syscall(SYS_mkdirat, AT_FDCWD, path, mode);
    if (mkdir_errno != 0 && from_library(__builtin_return_address(0))) {
        errno = mkdir_errno;
        return -1;
    }
    return real_mkdir(path, mode);
}

NOSAN int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (!resolved) return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
    if (inject(F_OPEN, __builtin_return_address(0))) return -1;
    return real_open(path, flags, mode);
}

NOSAN int openat(int dirfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (!resolved) return (int)syscall(SYS_openat, dirfd, path, flags, mode);
    if (inject(F_OPENAT, __builtin_return_address(0))) return -1;
    return real_openat(dirfd, path, flags, mode);
}

NOSAN int renameat(int fromfd, const char *from, int tofd, const char *to)
{
    if (!resolved) return (int)syscall(SYS_renameat, fromfd, from, tofd, to);
    if (inject(F_RENAMEAT, __builtin_return_address(0))) return -1;
    return real_renameat(fromfd, from, tofd, to);
}

NOSAN int dup(int fd)
{
    if (!resolved) return (int)syscall(SYS_dup, fd);
    if (inject(F_DUP, __builtin_return_address(0))) return -1;
    return real_dup(fd);
}

NOSAN int mkstemp(char *tmpl)
{
    if (!resolved) return mkostemp(tmpl, 0);
    if (inject(F_MKSTEMP, __builtin_return_address(0))) return -1;
    return real_mkstemp(tmpl);
}

NOSAN DIR *opendir(const char *name)
{
    if (!resolved) {
        int fd = (int)syscall(SYS_openat, AT_FDCWD, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? NULL : fdopendir(fd);
    }
    if (inject(F_OPENDIR, __builtin_return_address(0))) return NULL;
    return real_opendir(name);
}

NOSAN int fstat(int fd, struct stat *st)
{
    if (!resolved) return fstatat(fd, "", st, AT_EMPTY_PATH);
    if (inject(F_FSTAT, __builtin_return_address(0))) return -1;
    return real_fstat(fd, st);
}

NOSAN ssize_t write(int fd, const void *p, size_t n)
{
    if (!resolved) return syscall(SYS_write, fd, p, n);
    if (inject(F_WRITE, __builtin_return_address(0))) {
        if (inj.short_write) return real_write(fd, p, n / 2);
        return -1;
    }
    return real_write(fd, p, n);
}

/* The cache writer seeks back to write the entry's header last. */
NOSAN off_t lseek(int fd, off_t off, int whence)
{
    if (!resolved) return (off_t)syscall(SYS_lseek, fd, off, whence);
    if (inject(F_LSEEK, __builtin_return_address(0))) return -1;
    return real_lseek(fd, off, whence);
}

NOSAN int posix_fallocate(int fd, off_t off, off_t len)
{
    if (!resolved) return syscall(SYS_fallocate, fd, 0, off, len) == 0 ? 0 : errno;
    if (inject(F_FALLOCATE, __builtin_return_address(0))) return inj.err;  /* returns the error */
    return real_posix_fallocate(fd, off, len);
}

NOSAN int fchmod(int fd, mode_t mode)
{
    if (!resolved) return (int)syscall(SYS_fchmod, fd, mode);
    if (inject(F_FCHMOD, __builtin_return_address(0))) return -1;
    return real_fchmod(fd, mode);
}

NOSAN void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (!resolved) return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
    if (inject(F_MMAP, __builtin_return_address(0))) return MAP_FAILED;
    return real_mmap(addr, len, prot, flags, fd, off);
}

NOSAN int msync(void *addr, size_t len, int flags)
{
    if (!resolved) return (int)syscall(SYS_msync, addr, len, flags);
    if (inject(F_MSYNC, __builtin_return_address(0))) return -1;
    return real_msync(addr, len, flags);
}

NOSAN int fsync(int fd)
{
    if (!resolved) return (int)syscall(SYS_fsync, fd);
    if (inject(F_FSYNC, __builtin_return_address(0))) return -1;
    return real_fsync(fd);
}

NOSAN int close(int fd)
{
    if (!resolved) return (int)syscall(SYS_close, fd);
    if (inject(F_CLOSE, __builtin_return_address(0))) {
        int e = errno;
        real_close(fd);   /* like Linux: the descriptor is gone even when close fails */
        errno = e;
        return -1;
    }
    return real_close(fd);
}

NOSAN int rename(const char *from, const char *to)
{
    if (!resolved) return (int)syscall(SYS_renameat, AT_FDCWD, from, AT_FDCWD, to);
    if (inject(F_RENAME, __builtin_return_address(0))) return -1;
    return real_rename(from, to);
}

static void arm(unsigned nth, int err, int short_write)
{
    memset(&inj, 0, sizeof inj);
    inj.nth = nth;
    inj.err = err;
    inj.short_write = short_write;
    inj.armed = 1;
}

static void disarm(void) { inj.armed = 0; }

/* ---- fixtures ---- */

static npu_device *dev;
static npu_graph *graph;
static npu_model *model;          /* compiled without a cache, for exports */
static unsigned char *blob;       /* its export */
static size_t blob_size;
static char dir[256];

/* Files in `d` other than `keep` (NULL: none kept); 0 if none. Fails on temp files. */
static unsigned count_files(const char *d, const char *suffix_ok)
{
    DIR *dd = opendir(d);
    struct dirent *e;
    unsigned n = 0;
    assert_non_null(dd);
    while ((e = readdir(dd)) != NULL) {
        size_t len = strlen(e->d_name), sl = suffix_ok ? strlen(suffix_ok) : 0;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (suffix_ok == NULL || len < sl || strcmp(e->d_name + len - sl, suffix_ok) != 0) {
            closedir(dd);
            fail_msg("unexpected file '%s' in '%s'", e->d_name, d);
        }
        n++;
    }
    closedir(dd);
    return n;
}

static void empty_dir(const char *d)
{
    DIR *dd = opendir(d);
    struct dirent *e;
    char p[512];
    assert_non_null(dd);
    while ((e = readdir(dd)) != NULL) {
        if (e->d_name[0] == '.' && (e->d_name[1] == '\0' || (e->d_name[1] == '.' && e->d_name[2] == '\0')))
            continue;
        snprintf(p, sizeof p, "%s/%s", d, e->d_name);
        unlink(p);
    }
    closedir(dd);
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    long n;
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = (unsigned char *)malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void check_model_computes(npu_model *m)
{
    npu_request *r = NULL;
    size_t mark = npu_arena_used(&tu_arena);
    float x[4] = {3, -1, 2, 0.5f}, ref[4];
    int i;
    tu_ok(npu_request_create(m, &tu_arena, NULL, &r), "request");
    memcpy(npu_request_input(r, 0), x, sizeof x);
    tu_ok(npu_request_infer(r), "infer");
    tu_affine_ref(x, ref, 1);
    for (i = 0; i < 4; i++) assert_float_equal(((float *)npu_request_output(r, 0))[i], ref[i], 1e-6);
    npu_request_destroy(r);
    npu_arena_rewind(&tu_arena, mark);
}

/* ---- export ---- */

/* Exports with the N-th I/O call failing, N = 1, 2, ...; returns how many
 * calls one export makes. */
static unsigned export_loop(int err, int short_write)
{
    char path[300];
    unsigned n, calls = 0;
    snprintf(path, sizeof path, "%s/model.blob", dir);
    for (n = 1; n < 100; n++) {
        tu_live base = tu_live_now();
        npu_status st;
        size_t size = 0;
        unsigned char *got;
        empty_dir(dir);
        write_text(path, "the old file");
        npu_context_clear_error(tu_ctx);
        arm(n, err, short_write);
        st = npu_model_export_file(model, path);
        disarm();
        tu_live_expect(&base);
        assert_int_equal(count_files(dir, "model.blob"), 1);   /* no temp file left */
        got = read_file(path, &size);
        assert_non_null(got);
        if (!inj.fired) {
            tu_ok(st, "export without a fault");
            assert_int_equal(size, blob_size);
            assert_memory_equal(got, blob, blob_size);
            calls = inj.calls;
            free(got);
            break;
        }
        if (st == NPU_OK) {
            /* Only the directory's fsync after the rename may fail unnoticed. */
            if (inj.fired_fn != F_FSYNC && inj.fired_fn != F_CLOSE &&
                inj.fired_fn != F_DUP)   /* the removal of dead exporters' temp files */
                fail_msg("export succeeded though %s failed (call %u)", fn_names[inj.fired_fn], n);
            assert_int_equal(size, blob_size);
            assert_memory_equal(got, blob, blob_size);
        } else {
            assert_int_equal(st, NPU_ERR_IO);
            if (strstr(npu_context_last_error(tu_ctx), path) == NULL)
                fail_msg("%s failing (call %u): message does not name '%s': %s", fn_names[inj.fired_fn], n,
                         path, npu_context_last_error(tu_ctx));
            if (err != 0 && strstr(npu_context_last_error(tu_ctx), strerror(err)) == NULL)
                fail_msg("%s failing: message lacks \"%s\": %s", fn_names[inj.fired_fn], strerror(err),
                         npu_context_last_error(tu_ctx));
            assert_int_equal(size, strlen("the old file"));
            assert_memory_equal(got, "the old file", size);
        }
        free(got);
        /* The next export works. */
        tu_ok(npu_model_export_file(model, path), "export after a fault");
        got = read_file(path, &size);
        assert_int_equal(size, blob_size);
        assert_memory_equal(got, blob, blob_size);
        free(got);
    }
    if (n >= 100) fail_msg("export never ran without a fault");
    return calls;
}

static void test_export_file_every_call_fails(void **state)
{
    unsigned calls;
    (void)state;
    calls = export_loop(EIO, 0);
    /* openat (the directory), dup (removing dead exporters' temp files),
     * openat (the temporary file), posix_fallocate, mmap, msync, fsync,
     * close, renameat and the directory's fsync and close: every one was
     * made to fail. */
    assert_true(calls >= 11);
    assert_int_equal(export_loop(ENOSPC, 0), calls);
    assert_int_equal(export_loop(EACCES, 0), calls);
}

static void test_export_full_disk_names_file_and_errno(void **state)
{
    char path[300];
    (void)state;
    snprintf(path, sizeof path, "%s/full.blob", dir);
    empty_dir(dir);
    arm(4, ENOSPC, 0);  /* openat (directory), dup (removing orphans), openat (temp), posix_fallocate */
    assert_int_equal(npu_model_export_file(model, path), NPU_ERR_IO);
    disarm();
    assert_true(inj.fired);
    assert_int_equal(inj.fired_fn, F_FALLOCATE);
    assert_non_null(strstr(npu_context_last_error(tu_ctx), path));
    assert_non_null(strstr(npu_context_last_error(tu_ctx), strerror(ENOSPC)));
    assert_int_equal(count_files(dir, NULL), 0);
    assert_true(access(path, F_OK) != 0);
}

/* ---- cache store ---- */

static npu_status compile_cached(npu_model **m)
{
    npu_compile_options o;
    memset(&o, 0, sizeof o);
    o.cache_dir = dir;
    return npu_model_compile_graph(dev, &tu_arena, graph, &o, m);
}

static int from_cache(npu_model *m)
{
    npu_model_info info;
    tu_ok(npu_model_get_info(m, &info), "info");
    return info.from_cache;
}

/* Compiles with a cache, the N-th I/O call failing; `with_entry`: an intact
 * entry exists before (the faults hit the load). Returns the calls made. */
static unsigned cache_loop(int err, int short_write, int with_entry)
{
    unsigned n, calls = 0, unlogged_close = 0;
    for (n = 1; n < 200; n++) {
        tu_live base = tu_live_now();
        size_t mark = npu_arena_used(&tu_arena);
        npu_model *m = NULL;
        npu_status st;
        unsigned entries;
        empty_dir(dir);
        if (with_entry) {
            tu_ok(compile_cached(&m), "store an entry");
            assert_false(from_cache(m));
            npu_model_destroy(m);
            npu_arena_rewind(&tu_arena, mark);
            assert_int_equal(count_files(dir, ".npucache"), 1);
        }
        tu_log_clear();
        arm(n, err, short_write);
        st = compile_cached(&m);
        disarm();
        if (st != NPU_OK)
            fail_msg("%s failing (call %u, %s): the compile failed: %s", inj.fired ? fn_names[inj.fired_fn] : "nothing",
                     n, strerror(err), npu_context_last_error(tu_ctx));
        check_model_computes(m);
        /* Every failure is logged, but for the cleanup of abandoned temp files
         * (opendir), and close() of a read-only descriptor (the entry's, the
         * directory's after its fsync: nothing is lost). */
        if (inj.fired && !short_write && inj.fired_fn != F_OPENDIR && strstr(tu_log_text, "model cache") == NULL) {
            if (inj.fired_fn != F_CLOSE)
                fail_msg("%s failing (call %u): no warning logged; log:\n%s", fn_names[inj.fired_fn], n, tu_log_text);
            unlogged_close = n;
        }
        if (!inj.fired) {
            calls = inj.calls;
            assert_int_equal(from_cache(m), with_entry);
        }
        npu_model_destroy(m);
        npu_arena_rewind(&tu_arena, mark);
        tu_live_expect(&base);
        entries = count_files(dir, ".npucache");   /* fails on a temp file */
        assert_true(entries <= 1);
        if (short_write) assert_int_equal(entries, 1);   /* short writes are retried */
        /* Whatever is there is intact or absent: the next compile stores or
         * hits, and the one after that hits. */
        tu_ok(compile_cached(&m), "compile after the fault");
        check_model_computes(m);
        if (entries == 1) assert_true(from_cache(m));
        npu_model_destroy(m);
        npu_arena_rewind(&tu_arena, mark);
        tu_ok(compile_cached(&m), "second compile after the fault");
        assert_true(from_cache(m));
        npu_model_destroy(m);
        npu_arena_rewind(&tu_arena, mark);
        assert_int_equal(count_files(dir, ".npucache"), 1);
        tu_live_expect(&base);
        if (!inj.fired) break;
    }
    if (n >= 200) fail_msg("the cached compile never ran without a fault");
    /* The unlogged close was the last call (the directory's, after the
     * rename), or the entry's close after mapping it (with an entry). */
    if (unlogged_close != 0 && !with_entry && unlogged_close != calls)
        fail_msg("close() failing at call %u of %u was not logged", unlogged_close, calls);
    return calls;
}

static void test_cache_store_every_call_fails(void **state)
{
    unsigned calls;
    (void)state;
    calls = cache_loop(EIO, 0, 0);
    assert_true(calls >= 8);   /* opendir, open, writes, lseek, fsync, close, rename, dir fsync */
    /* the store's calls (the last, unfaulted run) included the header's seek,
     * so that one of the runs failed it */
    assert_true(inj.per_fn[F_LSEEK] >= 1 && inj.per_fn[F_FSYNC] >= 1);
    assert_true(inj.per_fn[F_RENAME] + inj.per_fn[F_RENAMEAT] >= 1);
    assert_int_equal(cache_loop(ENOSPC, 0, 0), calls);
    assert_int_equal(cache_loop(EACCES, 0, 0), calls);
}

static void test_cache_store_survives_short_writes(void **state)
{
    (void)state;
    cache_loop(0, 1, 0);
}

static void test_cache_load_every_call_fails(void **state)
{
    unsigned calls;
    (void)state;
    calls = cache_loop(EIO, 0, 1);
    assert_true(calls >= 3);   /* open, fstat, mmap (and close) */
    cache_loop(EACCES, 0, 1);
}

/* A missing cache directory on a read-only file system: the warning and the
 * model's cache note give EROFS (mkdir's errno), not ENOENT (open's). */
static void test_cache_dir_on_read_only_fs_reports_erofs(void **state)
{
    char sub[400];
    npu_compile_options o;
    npu_model *m = NULL;
    npu_model_info info;
    size_t mark = npu_arena_used(&tu_arena);
    (void)state;
    snprintf(sub, sizeof sub, "%s/ro/npu", dir);
    memset(&o, 0, sizeof o);
    o.cache_dir = sub;
    tu_log_clear();
    mkdir_errno = EROFS;
    tu_ok(npu_model_compile_graph(dev, &tu_arena, graph, &o, &m), "compile");
    mkdir_errno = 0;
    tu_ok(npu_model_get_info(m, &info), "info");
    assert_int_equal(info.cache, NPU_CACHE_NOT_STORED);
    assert_non_null(strstr(info.cache_note, strerror(EROFS)));
    tu_expect_log(strerror(EROFS));
    npu_model_destroy(m);
    npu_arena_rewind(&tu_arena, mark);
    assert_true(access(sub, F_OK) != 0);
}

static int group_setup(void **state)
{
    size_t size = 0;
    (void)state;
    tu_init_context_logged(NPU_LOG_WARN);
    dev = tu_open();
    graph = tu_graph_affine(&tu_arena, 1);
    tu_ok(npu_model_compile_graph(dev, &tu_arena, graph, NULL, &model), "compile");
    tu_ok(npu_model_export(model, NULL, 0, &size), "export size");
    blob = (unsigned char *)malloc(size);
    tu_ok(npu_model_export(model, blob, size, &blob_size), "export");
    snprintf(dir, sizeof dir, "/tmp/npu-io-faults-XXXXXX");
    assert_non_null(mkdtemp(dir));
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    empty_dir(dir);
    rmdir(dir);
    npu_model_destroy(model);
    npu_device_close(dev);
    free(blob);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_file_every_call_fails),
        cmocka_unit_test(test_export_full_disk_names_file_and_errno),
        cmocka_unit_test(test_cache_store_every_call_fails),
        cmocka_unit_test(test_cache_store_survives_short_writes),
        cmocka_unit_test(test_cache_load_every_call_fails),
        cmocka_unit_test(test_cache_dir_on_read_only_fs_reports_erofs),
    };
    resolve_libc();
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
