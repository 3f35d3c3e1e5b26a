/* The resolved-defaults query of the lattice desc (docs/api.md, Defaults):
 * the constants create reads, from lattice/lattice_defaults.h. */
#include <string.h>

#include "lattice/lattice_defaults.h"
#include "lattice/lattice_internal.h"

sinew_result sinew_lattice_desc_defaults(const sinew_lattice_desc *desc, sinew_lattice_desc *resolved)
{
    sn_clear_error();
    if (sn_check_struct_out(resolved, "resolved") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_lattice_desc d;
    memset(&d, 0, sizeof d);
    sinew_result r;
    if (desc && (r = sn_read_struct(&d, sizeof d, desc, "desc")) != SINEW_OK) return r;
    d.struct_size = sizeof d;
    bool no_axes = true, no_extents = true;
    for (int a = 0; a < 3; ++a) {
        if (d.order[a] == 0) d.order[a] = SN_LAT_DEFAULT_ORDER;
        if (d.count[a] == 0) d.count[a] = d.order[a];   /* one Bezier cell */
        no_extents = no_extents && d.extents[a] == 0.0f;
        for (int c = 0; c < 3; ++c) no_axes = no_axes && d.axes[a][c] == 0.0f;
    }
    for (int a = 0; a < 3; ++a) {
        if (no_axes) d.axes[a][a] = 1.0f;         /* world x, y, z */
        if (no_extents) d.extents[a] = 1.0f;      /* the unit cube */
    }
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}
