/*
 * Which parts of a triangle surface are closed and consistently wound
 * (closed.c): only those have an inside whose orientation can be read.
 */
#ifndef SN_BBW_CLOSED_H
#define SN_BBW_CLOSED_H

#include "core/internal.h"

/* For triangles (3 indices each) labelled by part (label[t] < part count;
 * NULL = one part), sets open[part] = 1 for every part with a directed edge
 * whose reverse no triangle has (a boundary, or a neighbour wound the other
 * way). open must be zeroed by the caller. */
sinew_result sn_bbw_mark_open_parts(const sn_env *env, const uint32_t *triangles, size_t count,
                                    const uint32_t *label, uint8_t *open);

#endif /* SN_BBW_CLOSED_H */
