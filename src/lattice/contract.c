/* The double-precision evaluation core: the displacement sum D(u) and its
 * derivatives from the bases of the three axes, and the Jacobian of the
 * world map. Used by evaluation, normals, bounds and refinement; it calls
 * nothing above the basis. */
#include <string.h>

#include "lattice/lattice_internal.h"

void sn_lat_contract(const sinew_lattice *lat, const sn_lat_basis b[3], double disp[3], double *grad)
{
    const uint32_t ou = lat->axis[0].order, ov = lat->axis[1].order, ow = lat->axis[2].order;
    double d[3] = {0, 0, 0}, g[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (uint32_t k = 0; k < ow; ++k) {
        for (uint32_t j = 0; j < ov; ++j) {
            size_t row = sn_lat_index(lat, b[0].first, b[1].first + j, b[2].first + k);
            /* Contract the row along u first: value and u-derivative. */
            double rv[3] = {0, 0, 0}, ru[3] = {0, 0, 0};
            for (uint32_t i = 0; i < ou; ++i)
                for (int c = 0; c < 3; ++c) {
                    double x = (double)lat->disp[c][row + i];
                    rv[c] += b[0].value[i] * x;
                    if (grad) ru[c] += b[0].deriv[i] * x;
                }
            double wvw = b[1].value[j] * b[2].value[k];
            for (int c = 0; c < 3; ++c) d[c] += wvw * rv[c];
            if (grad) {
                double wdv = b[1].deriv[j] * b[2].value[k], wdw = b[1].value[j] * b[2].deriv[k];
                for (int c = 0; c < 3; ++c) {
                    g[c] += wvw * ru[c];
                    g[3 + c] += wdv * rv[c];
                    g[6 + c] += wdw * rv[c];
                }
            }
        }
    }
    memcpy(disp, d, sizeof d);
    if (grad) memcpy(grad, g, sizeof g);
}

void sn_lat_displacement(const sinew_lattice *lat, const double u[3], double d[3])
{
    sn_lat_basis b[3];
    bool leave = false;
    for (int a = 0; a < 3; ++a) {
        sn_lat_axis_basis(lat, a, u[a], false, &b[a]);
        leave |= b[a].leave;
    }
    d[0] = d[1] = d[2] = 0.0;
    if (!leave) sn_lat_contract(lat, b, d, NULL);
}

void sn_lat_world_jacobian(const sinew_lattice *lat, const double grad[9], double jac[9])
{
    /* d(p + D(u(p)))/dp = I + dD/du * frame^-1. */
    for (int col = 0; col < 3; ++col)
        for (int row = 0; row < 3; ++row) {
            double s = col == row ? 1.0 : 0.0;
            for (int a = 0; a < 3; ++a) s += grad[3 * a + row] * lat->inverse[3 * col + a];
            jac[3 * col + row] = s;
        }
}
