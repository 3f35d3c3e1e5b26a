/* Editing a placement (§4.1): pushing a contact control point with its column,
 * and pressing the layers above the contact surface with a spherical tool. */
#include <math.h>
#include <string.h>

#include "lattice/placement/placement_internal.h"

sinew_result sinew_placement_push(sinew_placement *placement, uint32_t i, uint32_t j, float amount)
{
    sn_clear_error();
    if (!placement) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "placement is NULL");
    if (i >= placement->count[0])
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "contact column i = %u, but there are only %u along u", i,
                       placement->count[0]);
    if (j >= placement->count[1])
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "contact column j = %u, but there are only %u along v", j,
                       placement->count[1]);
    if (!isfinite(amount)) return sn_fail(SINEW_ERROR_NON_FINITE, "push amount is not finite (%g)", (double)amount);
    size_t c = i + (size_t)placement->count[0] * j;
    float before = placement->lift[c];
    float after = before + amount;
    if (!isfinite(after))
        return sn_fail(SINEW_ERROR_NON_FINITE, "pushing contact column (%u, %u) by %g overflows", i, j, (double)amount);
    /* The column's layers sit on the contact point, so they follow it. */
    placement->lift[c] = after;
    sinew_result r = sn_place_update_lattice(placement, false);
    if (r) {
        placement->lift[c] = before;
        sn_place_restore_lattice(placement);
    }
    return r;
}

static double falloff(sinew_placement_falloff kind, double r)
{
    switch (kind) {
    case SINEW_PLACEMENT_FALLOFF_HAT: return 1.0 - r;
    case SINEW_PLACEMENT_FALLOFF_BOX: return 1.0;
    case SINEW_PLACEMENT_FALLOFF_GAUSSIAN:
    default: {
        const double sigma = 1.0 / 3.0;
        return exp(-r * r / (2.0 * sigma * sigma));
    }
    }
}

sinew_result sinew_placement_press(sinew_placement *placement, const sinew_placement_press_desc *caller_desc,
                                   size_t *pressed)
{
    sn_clear_error();
    if (!placement) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "placement is NULL");
    sinew_placement_press_desc local;
    sinew_result read = sn_read_struct(&local, sizeof local, caller_desc, "press desc");
    if (read != SINEW_OK) return read;
    const sinew_placement_press_desc *desc = &local;
    for (int a = 0; a < 3; ++a)
        if (!isfinite(desc->center[a]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "press centre %c is not finite (%g)", "xyz"[a],
                           (double)desc->center[a]);
    if (!isfinite(desc->radius))
        return sn_fail(SINEW_ERROR_NON_FINITE, "press radius is not finite (%g)", (double)desc->radius);
    if (!(desc->radius > 0.0f))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "press radius is %g; it must be > 0", (double)desc->radius);
    if (!isfinite(desc->depth))
        return sn_fail(SINEW_ERROR_NON_FINITE, "press depth is not finite (%g)", (double)desc->depth);
    if ((unsigned)desc->falloff > SINEW_PLACEMENT_FALLOFF_BOX)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "unknown press falloff %d", (int)desc->falloff);
    sinew_placement *p = placement;
    const size_t columns = (size_t)p->count[0] * p->count[1];
    const size_t points = columns * p->count[2];
    /* Decide every move from the positions before the press, then apply;
     * the heights before are kept so that a failed update can be undone. */
    float *before = (float *)sn_alloc_array(&p->env, points, sizeof(float), "press heights");
    if (!before) return sn_alloc_failure();
    memcpy(before, p->height, points * sizeof(float));
    size_t moved = 0;
    for (size_t idx = columns; idx < points; ++idx) {
        const float *q = &p->points[3 * idx];
        double d2 = 0.0;
        for (int a = 0; a < 3; ++a) d2 += ((double)q[a] - desc->center[a]) * ((double)q[a] - desc->center[a]);
        double r = sqrt(d2) / (double)desc->radius;
        if (!(r < 1.0)) continue;
        double h = (double)p->height[idx] - (double)desc->depth * falloff(desc->falloff, r);
        p->height[idx] = (float)fmax(h, 0.0);
        ++moved;
    }
    sinew_result r = moved ? sn_place_update_lattice(p, false) : SINEW_OK;
    if (r != SINEW_OK) {
        memcpy(p->height, before, points * sizeof(float));
        sn_place_restore_lattice(p);
    } else if (pressed) {
        *pressed = moved;
    }
    sn_free(&p->env, before);
    return r;
}
