/* cache_start: what a cache hit costs at start-up. Loading a 16 MiB entry from
 * the model cache (open + fstat + mmap + verify: magic, sizes, identity and the
 * NH128 checksum over every byte) against a plain read() of the same file into
 * a buffer, both from the page cache. Goal: hit <= 1.2x read. Also prints the
 * NH128 throughput.
 *
 * White-box: includes npu.c to reach the internal cache functions. */
#include <stdlib.h>
#include "../npu.c"

#include <stdio.h>
#include "bench_util.h"

#define ENTRY_BYTES (16u << 20)
#define ROUNDS 30

static double now_s(void) { return bench_now_s(); }

static npu__digest nh128_once(const unsigned char *p)
{
    npu__nh128 h;
    npu__nh128_init(&h, 0);
    npu__nh128_update(&h, p, ENTRY_BYTES);
    return npu__nh128_final(&h);
}

int main(void)
{
    char dir[256], path[512], cmd[300], open_path[NPU__CACHE_PATH_MAX];
    const char *tmp = getenv("TMPDIR");
    unsigned char *blob = malloc(ENTRY_BYTES), *buf = malloc(ENTRY_BYTES + NPU__CACHE_HEADER);
    npu__cache_fields f;
    npu__cache_key k;
    double t_hit[ROUNDS], t_read[ROUNDS], t_hash[ROUNDS];
    volatile unsigned sink = 0;
    size_t i;
    int r;

    if (blob == NULL || buf == NULL) return 1;
    snprintf(dir, sizeof dir, "%s/npu-cache-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) return 1;
    for (i = 0; i < ENTRY_BYTES; i++) blob[i] = (unsigned char)(i * 2654435761u >> 13);
    memset(buf, 1, ENTRY_BYTES + NPU__CACHE_HEADER);
    npu__cache_key_init(&k);
    npu__cache_key_field(&k, NPU__KEY_STRUCTURE, "bench", 5);
    npu__cache_fields_init(&f, &k, 0x70015, "3720", "bench 16 MiB");
    if (npu__cache_store(NULL, dir, &f, blob, ENTRY_BYTES) != NPU_OK) return 1;
    npu__cache_entry_path(dir, &f.key, path, sizeof path);

    for (r = -2; r < ROUNDS; r++) { /* two warm-up rounds */
        npu__cache_mapping m;
        double t0 = now_s();
        if (npu__cache_open(NULL, dir, &f, &m, open_path) != NPU_OK) {
            fprintf(stderr, "cache_start: unexpected miss: %s\n", m.reason);
            return 1;
        }
        sink += m.payload[ENTRY_BYTES - 1];
        npu__cache_close(&m);
        double t1 = now_s();
        int fd = open(path, O_RDONLY);
        size_t got = 0;
        while (got < ENTRY_BYTES + NPU__CACHE_HEADER) {
            ssize_t n = read(fd, buf + got, ENTRY_BYTES + NPU__CACHE_HEADER - got);
            if (n <= 0) break;
            got += (size_t)n;
        }
        close(fd);
        sink += buf[got - 1];
        double t2 = now_s();
        npu__digest d = nh128_once(blob);
        sink += (unsigned)d.h[0];
        double t3 = now_s();
        if (r >= 0) {
            t_hit[r] = t1 - t0;
            t_read[r] = t2 - t1;
            t_hash[r] = t3 - t2;
        }
    }
    double hit = bench_median(t_hit, ROUNDS), rd = bench_median(t_read, ROUNDS), hs = bench_median(t_hash, ROUNDS);
    printf("cache_start: 16 MiB entry, median of %d rounds (page cache warm)\n", ROUNDS);
    printf("  cache hit (open+mmap+verify): %8.3f ms\n", hit * 1e3);
    printf("  plain read() into a buffer:   %8.3f ms\n", rd * 1e3);
    printf("  ratio hit / read:             %8.2fx (goal <= 1.2x)\n", hit / rd);
    printf("  NH128 over 16 MiB in memory:  %8.3f ms (%.1f GB/s)\n", hs * 1e3,
           (double)ENTRY_BYTES / hs / 1e9);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) return 1;
    (void)sink;
    return 0;
}
