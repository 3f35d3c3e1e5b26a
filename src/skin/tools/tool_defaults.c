/* The resolved-defaults queries of the skin tools' descs (docs/api.md,
 * Defaults): the resolve functions the tools call, with the constants of
 * skin/skin_defaults.h. */
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "skin/skin_defaults.h"

void sn_skin_capsule_resolve(sinew_skin_capsule_desc *d)
{
    if (d->influence_count == 0) d->influence_count = SN_SKIN_TOOL_DEFAULT_INFLUENCES;
    if (d->falloff == 0.0f) d->falloff = SN_SKIN_CAPSULE_DEFAULT_FALLOFF;
    if (d->radius_quantile == 0.0f) d->radius_quantile = SN_SKIN_CAPSULE_DEFAULT_RADIUS_QUANTILE;
}

void sn_skin_smooth_resolve(sinew_skin_smooth_desc *d)
{
    if (d->iterations == 0) d->iterations = SN_SKIN_SMOOTH_DEFAULT_ITERATIONS;
    if (d->strength == 0.0f) d->strength = SN_SKIN_SMOOTH_DEFAULT_STRENGTH;
}

void sn_skin_line_resolve(sinew_skin_line_desc *d)
{
    if (d->influence_count == 0) d->influence_count = SN_SKIN_TOOL_DEFAULT_INFLUENCES;
    if (d->blend == 0.0f) d->blend = SN_SKIN_LINE_DEFAULT_BLEND;
    /* max_distance 0 is "no limit", a mode: it stays 0. */
}

void sn_skin_example_resolve(sinew_skin_example_desc *d)
{
    if (d->influence_count == 0) d->influence_count = SN_SKIN_TOOL_DEFAULT_INFLUENCES;
    if (d->max_subsets == 0) d->max_subsets = SN_SKIN_EXAMPLE_DEFAULT_MAX_SUBSETS;
}

/* ceil(range / step) links, or 0 when either angle is out of its range or the
 * count above SINEW_SKIN_MAX_LINKS. */
static uint32_t links_derived_count(float range_of_motion, float max_link_angle)
{
    const double pi = 3.14159265358979323846;
    if (!(range_of_motion > 0.0f) || range_of_motion > (float)(2.0 * pi)) return 0;
    if (!(max_link_angle > 0.0f) || max_link_angle > (float)pi) return 0;
    /* A range that is a whole number of steps (180 degrees in 60-degree links)
     * gives that number, whatever the float rounding of the two angles. */
    double n = ceil((double)range_of_motion / (double)max_link_angle * (1.0 - 1e-6));
    if (n < 1.0) n = 1.0;
    return n > SINEW_SKIN_MAX_LINKS ? 0u : (uint32_t)n;
}

void sn_skin_links_resolve(sinew_skin_links_desc *d)
{
    if (d->max_link_angle == 0.0f) d->max_link_angle = SN_SKIN_LINKS_DEFAULT_MAX_LINK_ANGLE;
    /* The derived count needs a valid range_of_motion: without one it stays 0. */
    if (d->link_count == 0) d->link_count = links_derived_count(d->range_of_motion, d->max_link_angle);
}


sinew_result sinew_skin_capsule_desc_defaults(const sinew_skin_capsule_desc *desc, sinew_skin_capsule_desc *resolved)
{
    sinew_skin_capsule_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    sn_skin_capsule_resolve(&d);
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}

sinew_result sinew_skin_smooth_desc_defaults(const sinew_skin_smooth_desc *desc, sinew_skin_smooth_desc *resolved)
{
    sinew_skin_smooth_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    sn_skin_smooth_resolve(&d);
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}

sinew_result sinew_skin_line_desc_defaults(const sinew_skin_line_desc *desc, sinew_skin_line_desc *resolved)
{
    sinew_skin_line_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    sn_skin_line_resolve(&d);
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}

sinew_result sinew_skin_example_desc_defaults(const sinew_skin_example_desc *desc, sinew_skin_example_desc *resolved)
{
    sinew_skin_example_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    sn_skin_example_resolve(&d);
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}

sinew_result sinew_skin_links_desc_defaults(const sinew_skin_links_desc *desc, sinew_skin_links_desc *resolved)
{
    sinew_skin_links_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    sn_skin_links_resolve(&d);
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}
