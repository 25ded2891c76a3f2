/* parts/graph.c: section of npu.c (merged into npu.c before release). */
