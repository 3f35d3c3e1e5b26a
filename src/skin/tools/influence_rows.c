/* Influence rows: validation, gathering, merging and writing back. */
#include "skin/tools/influence_rows.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

sinew_result sn_skin_check_influences(size_t vertex_count, size_t influence_count, const uint32_t *joints,
                                      const float *weights, const char *what)
{
    if (vertex_count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: no vertices", what);
    if (influence_count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: 0 slots per vertex", what);
    size_t total;
    /* Checked in bytes: a layout whose arrays cannot exist is refused before
     * anything is read. */
    if (!sn_mul_size(vertex_count, influence_count, &total) || !sn_mul_size(total, sizeof(float), &total) ||
        total > PTRDIFF_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%s: %zu vertices of %zu slots overflow", what, vertex_count,
                       influence_count);
    if (!joints) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: joint array is NULL", what);
    if (!weights) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: weight array is NULL", what);
    for (size_t v = 0; v < vertex_count; ++v) {
        const float *row = weights + v * influence_count;
        int any = 0;
        for (size_t s = 0; s < influence_count; ++s) {
            if (!isfinite(row[s]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "%s: vertex %zu slot %zu has a non-finite weight (%g)", what,
                               v, s, (double)row[s]);
            if (row[s] < 0.0f)
                return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, "%s: vertex %zu slot %zu has a negative weight (%g)",
                               what, v, s, (double)row[s]);
            any |= row[s] > 0.0f;
        }
        if (!any)
            return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, "%s: vertex %zu has no positive weight", what, v);
    }
    return SINEW_OK;
}

static int by_joint(const void *a, const void *b)
{
    const sn_skin_entry *x = (const sn_skin_entry *)a, *y = (const sn_skin_entry *)b;
    return (x->joint > y->joint) - (x->joint < y->joint);
}

static int by_weight_then_joint(const void *a, const void *b)
{
    const sn_skin_entry *x = (const sn_skin_entry *)a, *y = (const sn_skin_entry *)b;
    if (x->weight != y->weight) return x->weight < y->weight ? 1 : -1;
    return (x->joint > y->joint) - (x->joint < y->joint);
}

size_t sn_skin_merge_joints(sn_skin_entry *e, size_t n)
{
    if (n < 2) return n;
    qsort(e, n, sizeof *e, by_joint);
    size_t out = 0;
    for (size_t i = 0; i < n; ++i) {
        if (out > 0 && e[out - 1].joint == e[i].joint)
            e[out - 1].weight += e[i].weight;
        else
            e[out++] = e[i];
    }
    return out;
}

void sn_skin_sort_by_weight(sn_skin_entry *e, size_t n)
{
    if (n > 1) qsort(e, n, sizeof *e, by_weight_then_joint);
}

size_t sn_skin_gather_row(const uint32_t *joints, const float *weights, size_t influence_count, size_t v,
                          sn_skin_entry *out)
{
    size_t n = 0;
    for (size_t s = 0; s < influence_count; ++s) {
        float w = weights[v * influence_count + s];
        if (w > 0.0f) {
            out[n].joint = joints[v * influence_count + s];
            out[n].weight = (double)w;
            ++n;
        }
    }
    return sn_skin_merge_joints(out, n);
}

void sn_skin_write_row(const sn_skin_entry *e, size_t n, size_t k, uint32_t *joints, float *weights)
{
    size_t kept = n < k ? n : k;
    /* Entries that underflowed to zero are padding, not influences. */
    while (kept > 1 && !(e[kept - 1].weight > 0.0f)) --kept;
    /* Sum in double so rows of many small weights still renormalise to 1
     * within float rounding. */
    double sum = 0.0;
    for (size_t s = 0; s < kept; ++s) sum += e[s].weight;
    for (size_t s = 0; s < kept; ++s) {
        joints[s] = e[s].joint;
        weights[s] = (float)(e[s].weight / sum);
    }
    /* A share below the smallest float (1e38 beside 1e-38) is padding too. */
    while (kept > 1 && weights[kept - 1] == 0.0f) --kept;
    for (size_t s = kept; s < k; ++s) {
        joints[s] = 0;
        weights[s] = 0.0f;
    }
}
