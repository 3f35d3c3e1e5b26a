/*
 * Closed, consistently wound parts of a surface: every directed edge (a, b)
 * of a triangle must appear reversed, (b, a), in another. The directed edges
 * are sorted once and each reverse is found by binary search.
 */
#include <stdlib.h>

#include "bbw/closed.h"

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

sinew_result sn_bbw_mark_open_parts(const sn_env *env, const uint32_t *triangles, size_t count,
                                    const uint32_t *label, uint8_t *open)
{
    size_t e = 3 * count;
    uint64_t *edges = sn_alloc_array(env, e ? e : 1, sizeof(uint64_t), "surface edges");
    if (!edges) return sn_alloc_failure();
    for (size_t t = 0; t < count; ++t)
        for (int k = 0; k < 3; ++k)
            edges[3 * t + k] = (uint64_t)triangles[3 * t + k] << 32 | triangles[3 * t + (k + 1) % 3];
    qsort(edges, e, sizeof *edges, compare_u64);
    for (size_t t = 0; t < count; ++t) {
        uint8_t *flag = &open[label ? label[t] : 0];
        for (int k = 0; k < 3 && !*flag; ++k) {
            uint64_t reverse = (uint64_t)triangles[3 * t + (k + 1) % 3] << 32 | triangles[3 * t + k];
            if (!bsearch(&reverse, edges, e, sizeof *edges, compare_u64)) *flag = 1;
        }
    }
    sn_free(env, edges);
    return SINEW_OK;
}
