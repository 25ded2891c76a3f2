/* parts/cache.c: section of npu.c (merged into npu.c before release). */
