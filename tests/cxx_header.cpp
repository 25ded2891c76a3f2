// npu.h must compile as C++ (users embed it in C++ firmware tools too).
#include "npu.h"

static_assert(sizeof(npu_arena) >= 4 * sizeof(size_t), "npu_arena is a plain struct");

int npu_cxx_header_check(void);
int npu_cxx_header_check(void)
{
    npu_arena arena = {};
    npu_payload_options options = {};
    (void)options;
    return npu_arena_init(&arena, nullptr, 0) == NPU_OK ? 0 : 1;
}
