/* The resolved-defaults queries of the bbw descs (docs/api.md, Defaults):
 * the same constants create and solve read, from bbw/defaults.h. */
#include <string.h>

#include "bbw/bbw_internal.h"
#include "bbw/defaults.h"

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
