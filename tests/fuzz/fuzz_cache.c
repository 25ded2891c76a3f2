/* libFuzzer target: cache entry verification (npu__cache_verify, the in-memory
 * part of npu__cache_open) and the NH128 hash. The expected identity is read
 * from the input's own header, so inputs get past the identity checks and
 * reach the size and checksum checks. Also checked: hashing in two pieces
 * equals hashing in one, a verified entry's payload size is consistent, and
 * the arena need a hit derives from the entry's recorded compile payload size
 * (npu__plain_need) is overflow-checked whatever the field holds. */
#include <stdlib.h>
#include "../../npu.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    npu__cache_fields expected;
    char reason[192];
    npu__nh128 a, b;
    npu__digest da, db;
    size_t cut = size ? (size_t)data[0] % (size + 1) : 0;

    npu__nh128_init(&a, 1);
    npu__nh128_update(&a, data, size);
    npu__nh128_init(&b, 1);
    npu__nh128_update(&b, data, cut);
    npu__nh128_update(&b, data + cut, size - cut);
    da = npu__nh128_final(&a);
    db = npu__nh128_final(&b);
    if (!npu__digest_equal(&da, &db)) abort();

    memset(&expected, 0, sizeof expected);
    if (size >= NPU__CACHE_HEADER) {
        expected.key.h[0] = npu__le_get(data + NPU__CACHE_OFF_KEY, 8);
        expected.key.h[1] = npu__le_get(data + NPU__CACHE_OFF_KEY + 8, 8);
        expected.check.h[0] = npu__le_get(data + NPU__CACHE_OFF_CHECK, 8);
        expected.check.h[1] = npu__le_get(data + NPU__CACHE_OFF_CHECK + 8, 8);
        expected.compiler_version = (uint32_t)npu__le_get(data + NPU__CACHE_OFF_COMPILER, 4);
        expected.npu_version = (uint32_t)npu__le_get(data + NPU__CACHE_OFF_NPUVER, 4);
        memcpy(expected.platform, data + NPU__CACHE_OFF_PLATFORM, NPU__CACHE_PLATFORM_MAX - 1);
        memcpy(expected.descriptor, data + NPU__CACHE_OFF_DESCRIPTOR,
               NPU__CACHE_DESCRIPTOR_MAX - 1);
    }
    if (npu__cache_verify(data, size, &expected, reason, sizeof reason) == NPU_OK) {
        if (size < NPU__CACHE_HEADER ||
            npu__le_get(data + NPU__CACHE_OFF_PAYLOAD, 8) != size - NPU__CACHE_HEADER ||
            reason[0] != '\0')
            abort();
        {
            uint64_t psize = npu__le_get(data + NPU__CACHE_OFF_COMPILE_PAYLOAD, 8);
            size_t flags_len = size > 4 ? (size_t)npu__le_get(data + size - 4, 4) : 0;
            size_t need = npu__plain_need(psize, flags_len, (uint32_t)(size & 0xffu));
            /* 0 only when the sum cannot be held; else it covers the payload */
            if (need != 0 && need < psize) abort();
        }
    } else if (reason[0] == '\0') {
        abort(); /* a miss always has a reason */
    }
    return 0;
}
