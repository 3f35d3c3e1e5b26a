/* The resolved-defaults queries of the placement descs (docs/api.md,
 * Defaults): the constants create and relax read, from
 * lattice/lattice_defaults.h. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lattice/lattice_defaults.h"
#include "lattice/placement/placement_internal.h"

sinew_result sinew_placement_desc_defaults(const sinew_placement_desc *desc, sinew_placement_desc *resolved)
{
    sinew_placement_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    static const uint32_t default_count[2] = {SN_PLACE_DEFAULT_COUNT_U, SN_PLACE_DEFAULT_COUNT_V};
    if (d.path_order == 0) d.path_order = SN_PLACE_DEFAULT_PATH_ORDER;
    if (d.view[0] == 0.0f && d.view[1] == 0.0f && d.view[2] == 0.0f) d.view[2] = -1.0f;
    for (int a = 0; a < 3; ++a) {
        if (d.order[a] == 0) d.order[a] = SN_LAT_DEFAULT_ORDER;
        if (d.count[a] == 0) d.count[a] = a < 2 ? default_count[a] : d.order[a];
    }
    if (d.oversample == 0) d.oversample = SN_PLACE_DEFAULT_OVERSAMPLE;
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}

void sn_place_relax_resolve(sinew_placement_relax_desc *d)
{
    if (d->stiffness == 0.0f) d->stiffness = (float)SN_PLACE_DEFAULT_STIFFNESS;
    if (d->mass == 0.0f) d->mass = (float)SN_PLACE_DEFAULT_MASS;
    /* sqrt(k / M) settles a bridge without overshoot; rounded to the field's float. */
    if (d->damping == 0.0f) {
        double c = sqrt((double)d->stiffness / d->mass);
        d->damping = c <= FLT_MAX ? (float)c : FLT_MAX;
    }
    if (d->angle_degrees == 0.0f) d->angle_degrees = (float)SN_PLACE_DEFAULT_ANGLE_DEGREES;
    if (d->neighbourhood == 0) d->neighbourhood = SN_PLACE_DEFAULT_NEIGHBOURHOOD;
    if (d->max_steps == 0) d->max_steps = SN_PLACE_DEFAULT_MAX_STEPS;
}

sinew_result sinew_placement_relax_desc_defaults(const sinew_placement_relax_desc *desc,
                                                 sinew_placement_relax_desc *resolved)
{
    sinew_placement_relax_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    sn_place_relax_resolve(&d);
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}
