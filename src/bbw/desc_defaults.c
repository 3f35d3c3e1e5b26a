/* The resolved-defaults queries of the bbw, auto-weights and bbw pose descs
 * (docs/api.md, Defaults): the same constants (and, for the auto-weights and
 * pose descs, the same resolve functions) the calls use, from bbw/defaults.h. */
#include <stdint.h>
#include <string.h>

#include "bbw/bbw_internal.h"
#include "bbw/defaults.h"
#include "bbw/pose_internal.h"

sinew_result sinew_bbw_desc_defaults(const sinew_bbw_desc *desc, sinew_bbw_desc *resolved)
{
    sinew_bbw_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    if (d.grid_resolution == 0) d.grid_resolution = SN_BBW_DEFAULT_GRID_RESOLUTION;
    if (d.handle_tolerance == 0.0f) d.handle_tolerance = SN_BBW_DEFAULT_HANDLE_TOLERANCE;
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}

sinew_result sinew_bbw_solve_desc_defaults(const sinew_bbw_solve_desc *desc, sinew_bbw_solve_desc *resolved)
{
    sinew_bbw_solve_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    if (d.tolerance == 0.0) d.tolerance = SN_BBW_DEFAULT_TOLERANCE;
    if (d.max_iterations == 0) d.max_iterations = SN_BBW_DEFAULT_MAX_ITERATIONS;
    if (d.penalty == 0.0) d.penalty = SN_BBW_DEFAULT_PENALTY;
    /* The strength only means something with a mask. */
    if (d.shape_mask && d.shape_strength == 0.0) d.shape_strength = SN_BBW_DEFAULT_SHAPE_STRENGTH;
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}

void sn_bbw_auto_resolve(sinew_bbw_auto_desc *d)
{
    if (d->influence_count == 0) d->influence_count = SN_BBW_AUTO_DEFAULT_INFLUENCES;
    if (d->grid_resolution == 0) d->grid_resolution = SN_BBW_AUTO_DEFAULT_GRID_RESOLUTION;
    if (d->tolerance == 0.0) d->tolerance = SN_BBW_AUTO_DEFAULT_TOLERANCE;
    if (d->max_iterations == 0) d->max_iterations = SN_BBW_AUTO_DEFAULT_MAX_ITERATIONS;
}

sinew_result sinew_bbw_auto_desc_defaults(const sinew_bbw_auto_desc *desc, sinew_bbw_auto_desc *resolved)
{
    sinew_bbw_auto_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    sn_bbw_auto_resolve(&d);
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}

void sn_bbw_pose_resolve(sinew_bbw_pose_desc *d)
{
    /* The count follows from the handles and the domain's elements: without
     * both (one domain given), it stays 0. */
    if (d->cluster_count != 0 || d->handle_count == 0 || (d->triangles != NULL) + (d->tets != NULL) != 1) return;
    size_t elements = d->tets ? d->tets->tet_count : d->triangles->triangle_count;
    size_t wanted = d->handle_count > SIZE_MAX / SN_BBW_POSE_CLUSTERS_PER_HANDLE
                        ? SIZE_MAX
                        : SN_BBW_POSE_CLUSTERS_PER_HANDLE * d->handle_count;
    if (wanted < SN_BBW_POSE_MIN_CLUSTERS) wanted = SN_BBW_POSE_MIN_CLUSTERS;
    d->cluster_count = wanted < elements ? wanted : elements;
}

sinew_result sinew_bbw_pose_desc_defaults(const sinew_bbw_pose_desc *desc, sinew_bbw_pose_desc *resolved)
{
    sinew_bbw_pose_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    sn_bbw_pose_resolve(&d);
    /* transform 0 is SINEW_BBW_POSE_AFFINE itself. */
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}

sinew_result sinew_bbw_pose_solve_desc_defaults(const sinew_bbw_pose_solve_desc *desc,
                                                sinew_bbw_pose_solve_desc *resolved)
{
    sinew_bbw_pose_solve_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    if (d.iterations == 0) d.iterations = SN_BBW_POSE_DEFAULT_ITERATIONS;
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}
