/* parts/irload.h: section of npu.h (merged into npu.h before release). */
