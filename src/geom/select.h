/*
 * Partial ordering of index lists by a key: the median split that the BVH,
 * the winding-number tree and the geometric nested dissection all build on.
 */
#ifndef SINEW_GEOM_SELECT_H
#define SINEW_GEOM_SELECT_H

#include <stddef.h>
#include <stdint.h>

/* Moves the entries of slots[lo, hi) so that slots[nth] holds the item with
 * the nth smallest key, items with smaller-or-equal keys before it and
 * greater-or-equal after (quickselect: middle pivot, Hoare partitioning,
 * expected linear time). Item s's key is key[s * stride], so a coordinate
 * of packed xyz points is key = points + axis, stride 3. No allocation. */
void sn_select_nth(uint32_t *slots, size_t lo, size_t hi, size_t nth, const double *key, size_t stride);

#endif /* SINEW_GEOM_SELECT_H */
