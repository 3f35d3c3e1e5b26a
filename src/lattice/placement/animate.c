/* Animation along the path (§4.3): a model's bounding box mapped to a span
 * [s, s + q] of the u domain, and the model laid onto the scene through it. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lattice/lattice_internal.h"
#include "lattice/placement/placement_internal.h"

/* Points handled per lattice call; the parameters live on the stack so the
 * pose-time path never allocates. */
#define SN_PLACE_CHUNK 128

sinew_result sinew_placement_map_model(const sinew_placement *placement, const sinew_placement_map_desc *caller_desc,
                                       sinew_placement_map *out)
{
    sn_clear_error();
    if (!placement) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "placement is NULL");
    sinew_placement_map_desc local;
    sinew_result read = sn_read_struct(&local, sizeof local, caller_desc, "map desc");
    if (read != SINEW_OK) return read;
    const sinew_placement_map_desc *desc = &local;
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "map out pointer is NULL");
    double ext[3];
    for (int a = 0; a < 3; ++a) {
        if (!isfinite(desc->box_min[a]) || !isfinite(desc->box_max[a]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "model box %c is not finite (%g .. %g)", "xyz"[a],
                           (double)desc->box_min[a], (double)desc->box_max[a]);
        ext[a] = (double)desc->box_max[a] - desc->box_min[a];
        if (!(ext[a] > 0.0))
            return sn_fail(SINEW_ERROR_DEGENERATE, "model box %c is empty (%g .. %g)", "xyz"[a],
                           (double)desc->box_min[a], (double)desc->box_max[a]);
    }
    if (!isfinite(desc->fraction) || !isfinite(desc->offset))
        return sn_fail(SINEW_ERROR_NON_FINITE, "map fraction %g or offset %g is not finite", (double)desc->fraction,
                       (double)desc->offset);
    double q = desc->fraction;
    if (q == 0.0) {
        q = ext[0] / (double)placement->contact_length;
        if (q > 1.0)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                           "the model is %g long, longer than the contact surface (%g); give a fraction", ext[0],
                           (double)placement->contact_length);
    }
    if (!(q > 0.0) || q > 1.0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "map fraction q = %g is outside (0, 1]", q);
    const double slack = 1e-6;
    if (desc->offset < -slack || desc->offset > 1.0 - q + slack)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "map offset s = %g is outside [0, 1 - q] = [0, %g]",
                       (double)desc->offset, 1.0 - q);
    double s = fmin(fmax((double)desc->offset, 0.0), 1.0 - q);
    double span[3] = {q, 1.0, 1.0}, start[3] = {s, 0.0, 0.0}, scale[3], offset[3];
    for (int a = 0; a < 3; ++a) {
        scale[a] = span[a] / ext[a];
        offset[a] = start[a] - desc->box_min[a] * scale[a];
        /* A box axis thinner than the float range can invert (a denormal
         * extent) maps with an infinite scale: refuse it before writing. */
        if (!(fabs(scale[a]) <= (double)FLT_MAX && fabs(offset[a]) <= (double)FLT_MAX))
            return sn_fail(SINEW_ERROR_DEGENERATE,
                           "model box %c is too thin to map (extent %g): its scale %g or offset %g leaves the float "
                           "range", "xyz"[a], ext[a], scale[a], offset[a]);
    }
    for (int a = 0; a < 3; ++a) {
        out->scale[a] = (float)scale[a];
        out->offset[a] = (float)offset[a];
    }
    return SINEW_OK;
}

sinew_result sinew_placement_deform(const sinew_placement *placement, const sinew_placement_map *map,
                                    const sinew_points *model, float *out, size_t out_stride, size_t first,
                                    size_t count)
{
    sn_clear_error();
    if (!placement) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "placement is NULL");
    if (!map) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "map is NULL");
    if (!model) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "model points view is NULL");
    if (!out && count) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "output is NULL");
    if (first > model->count || count > model->count - first)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "range [%zu, %zu + %zu) is past the %zu model points", first,
                       first, count, model->count);
    if (count == 0) return SINEW_OK;
    sinew_result r = sn_check_float_array(model->data, model->stride, 3, model->count, "model points");
    if (r == SINEW_OK) r = sn_check_float_array(out, out_stride, 3, first + count, "output");
    if (r != SINEW_OK) return r;
    for (int a = 0; a < 3; ++a)
        if (!isfinite(map->scale[a]) || !isfinite(map->offset[a]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "map axis %c is not finite (scale %g, offset %g)", "uvw"[a],
                           (double)map->scale[a], (double)map->offset[a]);
    /* Every parameter is checked here, before anything is written; points
     * mapped inside the lattice's box share one proof that their outputs fit
     * a float, the others get their own. */
    const sinew_lattice *lat = placement->lattice;
    const bool inside_fit = sn_lat_inside_points_fit(lat, false);
    for (size_t i = first; i < first + count; ++i) {
        const float *q = sn_point(model, i);
        double param[3];
        for (int a = 0; a < 3; ++a) {
            if (!isfinite(q[a]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "model point %zu has a non-finite coordinate %c (%g)", i,
                               "xyz"[a], (double)q[a]);
            float u = map->offset[a] + map->scale[a] * q[a];
            if (!isfinite(u))
                return sn_fail(SINEW_ERROR_NON_FINITE,
                               "model point %zu maps to a parameter %c beyond the float range (%g)", i, "uvw"[a],
                               (double)u);
            param[a] = u;
        }
        if (inside_fit && sn_lat_inside_box(param)) continue;
        if ((r = sn_lat_check_point_fits(lat, param, false, false, "model point", i)) != SINEW_OK) return r;
    }
    /* The lattice evaluated at the mapped parameters, through the same
     * machinery as sinew_lattice_evaluate's positions (the same bits). */
    out_stride = sn_stride(out_stride, 3 * sizeof(float));
    float params[3 * SN_PLACE_CHUNK];
    for (size_t b = first; b < first + count; b += SN_PLACE_CHUNK) {
        size_t n = first + count - b < SN_PLACE_CHUNK ? first + count - b : SN_PLACE_CHUNK;
        for (size_t i = 0; i < n; ++i) {
            const float *q = sn_point(model, b + i);
            for (int a = 0; a < 3; ++a) params[3 * i + a] = map->offset[a] + map->scale[a] * q[a];
        }
        sinew_points view = {params, n, 0};
        sn_lat_deform_points(lat, &view, false, (float *)(void *)((char *)out + b * out_stride), out_stride, 0, n);
    }
    return SINEW_OK;
}
