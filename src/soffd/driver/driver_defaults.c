/* The resolved-defaults query of the driver desc (docs/api.md, Defaults). */
#include "core/internal.h"
#include "soffd/driver/driver_defaults.h"

void sn_driver_resolve(sinew_soffd_driver_desc *d)
{
    if (d->weld_tolerance == 0.0f) d->weld_tolerance = SN_DRIVER_DEFAULT_WELD_TOLERANCE;
    if (d->joint_emphasis == 0.0f) d->joint_emphasis = SN_DRIVER_DEFAULT_JOINT_EMPHASIS;
    if (d->joint_radius == 0.0f) d->joint_radius = SN_DRIVER_DEFAULT_JOINT_RADIUS;
    /* target_triangle_count and max_error 0 mean "no such target": they stay 0. */
}

sinew_result sinew_soffd_driver_desc_defaults(const sinew_soffd_driver_desc *desc, sinew_soffd_driver_desc *resolved)
{
    sinew_soffd_driver_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    sn_driver_resolve(&d);
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}
