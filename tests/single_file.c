/* Single-file use (npu.h's NPU_STATIC): the whole library in this one
 * translation unit with internal linkage. make check builds it with the
 * strict warnings and checks that the object exports no npu_ symbol. */
#define NPU_STATIC
#include "../npu.c"

#include <stdio.h>

int main(void)
{
    static _Alignas(64) unsigned char mem[16384];
    npu_arena arena;
    npu_context *ctx = NULL;
    if (npu_arena_init(&arena, mem, sizeof mem) != NPU_OK) return 1;
    if (npu_context_create(&arena, NULL, &ctx) != NPU_OK) return 1;
    printf("npu %s as a single file: context in %zu bytes\n", npu_version_string(), npu_arena_used(&arena));
    return npu_version() == NPU_VERSION ? 0 : 1;
}
