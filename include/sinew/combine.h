/*
 * sinew: several deformers on one object.
 *
 * Each deformer (skin, SOFFD, correctives, lattice, ...) is run on the same
 * rest positions p0, giving its own result D_k(p0); the results are combined
 * per point as displacements from rest, each scaled by its deformer's weight:
 *
 *   p_i = p0_i + sum_k w_k,i (D_k(p0)_i - p0_i)
 *
 * Weights are a scalar per deformer or one per point. See docs/deformers.md.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_COMBINE_H
#define SINEW_COMBINE_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One deformer's output and its weight (a record in an array: no struct_size).
 * deformed: D_k(p0), indexed like the rest positions; its count must equal
 *   theirs. weights: NULL = `weight` for every point; else one float per
 *   point (deformed.count of them, packed), indexed like the points. */
typedef struct sinew_combine_input {
    sinew_points deformed;
    float weight;
    const float *weights;
} sinew_combine_input;

/* Combined positions of points [first, first + count):
 * p_i = p0_i + sum_k w_k,i (D_k(p0)_i - p0_i), summed in double and rounded once,
 * so the result does not depend on the order of `inputs` beyond that rounding
 * (equal bits whenever the double sums are exact) nor on how the range is split.
 * rest: the rest positions p0 (count >= first + count). inputs: input_count
 * records (0 = the rest positions are written). out: point i goes to
 * (char *)out + i * out_stride (0 = 3 floats); it may be the memory of rest or
 * of one deformed array only when it is the same layout (each point is read
 * before it is written).
 * Returns INVALID_ARGUMENT (NULL, a bad stride or alignment, naming the
 * argument), MISMATCH (a deformed count differs from rest's, named),
 * INDEX_OUT_OF_RANGE (range past rest's count), NON_FINITE (a rest or deformed
 * coordinate or a weight in the range, naming the input and point),
 * OUTSIDE_DOMAIN (a combined coordinate beyond FLT_MAX, named), SIZE_OVERFLOW;
 * out untouched on failure. No allocation; thread-safe. */
SINEW_API sinew_result sinew_combine_displacements(const sinew_points *rest, const sinew_combine_input *inputs,
                                                   size_t input_count, float *out, size_t out_stride, size_t first,
                                                   size_t count);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_COMBINE_H */
