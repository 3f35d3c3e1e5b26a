/* Combining several deformers' results as weighted displacements from rest.
 * Every input in the range is checked, and every output computed once to
 * check it fits in a float, before anything is written, so a failure leaves
 * `out` untouched. */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "core/internal.h"
#include "sinew/combine.h"

static sinew_result check_inputs(const sinew_points *rest, const sinew_combine_input *inputs, size_t input_count,
                                 const float *out, size_t out_stride, size_t first, size_t count)
{
    sinew_result r;
    if (!rest) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "rest view is NULL");
    if (input_count && !inputs)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "inputs is NULL for %zu deformers", input_count);
    if ((r = sn_check_float_array(rest->data, rest->stride, 3, rest->count, "rest")) != SINEW_OK) return r;
    if (first > rest->count || count > rest->count - first)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "points [%zu, %zu + %zu) lie past the %zu rest positions",
                       first, first, count, rest->count);
    if (count && (r = sn_check_float_array(out, out_stride, 3, first + count, "out")) != SINEW_OK) return r;
    for (size_t k = 0; k < input_count; ++k) {
        const sinew_combine_input *in = &inputs[k];
        if (in->deformed.count != rest->count)
            return sn_fail(SINEW_ERROR_MISMATCH, "deformer %zu has %zu deformed points, but there are %zu rest positions",
                           k, in->deformed.count, rest->count);
        char what[64];
        snprintf(what, sizeof what, "deformer %zu's deformed points", k);
        if ((r = sn_check_float_array(in->deformed.data, in->deformed.stride, 3, in->deformed.count, what)) != SINEW_OK)
            return r;
        if (!in->weights && !isfinite(in->weight))
            return sn_fail(SINEW_ERROR_NON_FINITE, "deformer %zu has a non-finite weight (%g)", k, (double)in->weight);
        snprintf(what, sizeof what, "deformer %zu's weights", k);
        if (in->weights && (r = sn_check_float_array(in->weights, 0, 1, rest->count, what)) != SINEW_OK) return r;
    }
    return SINEW_OK;
}

/* Point i's combined position in double; fails naming the first non-finite input. */
static sinew_result combine_point(const sinew_points *rest, const sinew_combine_input *inputs, size_t input_count,
                                  size_t i, double p[3])
{
    const float *p0 = sn_point(rest, i);
    for (int c = 0; c < 3; ++c) {
        if (!isfinite(p0[c]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "rest position %zu has a non-finite coordinate %c (%g)", i, "xyz"[c],
                           (double)p0[c]);
        p[c] = 0;
    }
    for (size_t k = 0; k < input_count; ++k) {
        const sinew_combine_input *in = &inputs[k];
        double w = in->weights ? in->weights[i] : in->weight;
        if (!isfinite(w))
            return sn_fail(SINEW_ERROR_NON_FINITE, "deformer %zu has a non-finite weight (%g) at point %zu", k, w, i);
        const float *d = sn_point(&in->deformed, i);
        for (int c = 0; c < 3; ++c) {
            if (!isfinite(d[c]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "deformer %zu's point %zu has a non-finite coordinate %c (%g)",
                               k, i, "xyz"[c], (double)d[c]);
            /* In double, so the order of the deformers matters only through
             * the sum's rounding, far below the float result's. */
            p[c] += w * ((double)d[c] - (double)p0[c]);
        }
    }
    for (int c = 0; c < 3; ++c) p[c] += p0[c];
    return SINEW_OK;
}

sinew_result sinew_combine_displacements(const sinew_points *rest, const sinew_combine_input *inputs,
                                         size_t input_count, float *out, size_t out_stride, size_t first, size_t count)
{
    sn_clear_error();
    sinew_result r = check_inputs(rest, inputs, input_count, out, out_stride, first, count);
    if (r != SINEW_OK) return r;
    for (size_t i = first; i < first + count; ++i) {
        double p[3];
        if ((r = combine_point(rest, inputs, input_count, i, p)) != SINEW_OK) return r;
        for (int c = 0; c < 3; ++c)
            if (!(fabs(sn_round_to_float(p[c])) <= FLT_MAX))
                return sn_fail(SINEW_ERROR_OUTSIDE_DOMAIN, "combined point %zu has coordinate %c %g, beyond FLT_MAX",
                               i, "xyz"[c], p[c]);
    }
    out_stride = sn_stride(out_stride, 3 * sizeof(float));
    for (size_t i = first; i < first + count; ++i) {
        double p[3];
        combine_point(rest, inputs, input_count, i, p); /* cannot fail: checked above */
        float *o = (float *)((char *)out + i * out_stride);
        for (int c = 0; c < 3; ++c) o[c] = (float)p[c];
    }
    return SINEW_OK;
}
