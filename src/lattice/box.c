/* The lattice's box: the affine map between (u, v, w) parameters and world
 * points, and the rest lattice at the Greville abscissae. */
#include <string.h>

#include "lattice/lattice_internal.h"

void sn_lat_box(const sinew_lattice *lat, const double u[3], double out[3])
{
    for (int c = 0; c < 3; ++c)
        out[c] = lat->origin[c] + lat->frame[c] * u[0] + lat->frame[3 + c] * u[1] + lat->frame[6 + c] * u[2];
}

void sn_lat_params(const sinew_lattice *lat, const double p[3], double out[3])
{
    double d[3] = {p[0] - lat->origin[0], p[1] - lat->origin[1], p[2] - lat->origin[2]};
    for (int a = 0; a < 3; ++a)
        out[a] = lat->inverse[a] * d[0] + lat->inverse[3 + a] * d[1] + lat->inverse[6 + a] * d[2];
}

void sn_lat_point(const sinew_lattice *lat, const float q[3], bool world, double u[3], double base[3])
{
    double p[3] = {q[0], q[1], q[2]};
    if (world) {
        sn_lat_params(lat, p, u);
        memcpy(base, p, 3 * sizeof(double));
    } else {
        memcpy(u, p, 3 * sizeof(double));
        sn_lat_box(lat, u, base);
    }
}

void sn_lat_rest(const sinew_lattice *lat, size_t i, size_t j, size_t k, double out[3])
{
    double u[3] = {sn_lat_greville(&lat->axis[0], (uint32_t)i), sn_lat_greville(&lat->axis[1], (uint32_t)j),
                   sn_lat_greville(&lat->axis[2], (uint32_t)k)};
    sn_lat_box(lat, u, out);
}

void sn_lat_rest_index(const sinew_lattice *lat, size_t index, double out[3])
{
    size_t nu = lat->axis[0].count, nv = lat->axis[1].count;
    sn_lat_rest(lat, index % nu, (index / nu) % nv, index / (nu * nv), out);
}
