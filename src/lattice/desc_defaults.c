/* The resolved-defaults query of the lattice desc (docs/api.md, Defaults):
 * the constants create reads, from lattice/lattice_defaults.h. */
#include <string.h>

#include "lattice/lattice_defaults.h"
#include "lattice/lattice_internal.h"

sinew_result sinew_lattice_desc_defaults(const sinew_lattice_desc *desc, sinew_lattice_desc *resolved)
{
    sinew_lattice_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
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
