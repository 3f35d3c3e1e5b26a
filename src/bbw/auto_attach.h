/*
 * Surface vertices the domain does not weight take the row of the nearest
 * domain vertex a handle reaches (auto_attach.c).
 */
#ifndef SN_BBW_AUTO_ATTACH_H
#define SN_BBW_AUTO_ATTACH_H

#include "bbw/bbw_internal.h"

/* For each of count points (3 floats each) whose top-k row (k slots at
 * joints/weights + v * k) is all zero, writes the top-k row of the nearest
 * reached domain vertex. *attached counts the rows written, *unweighted the
 * rows still all zero (only when no domain vertex is reached). b solved. */
sinew_result sn_bbw_attach_rows(const sinew_bbw *b, const float *positions, size_t count, uint32_t k,
                                uint32_t *joints, float *weights, size_t *attached, size_t *unweighted);

#endif /* SN_BBW_AUTO_ATTACH_H */
