/*
 * Local step of the pose solver: each rotation cluster's covariance S_k from
 * the unknowns, its best rotation, and the energy that goes with them
 * (pose_internal.h gives the notation).
 */
#include <math.h>
#include <string.h>

#include "bbw/pose_internal.h"

/* S_k = sum over the cluster's blocks of x_c' P (dim x dim, row c, column a). */
static void cluster_covariance(const sinew_bbw_pose *p, const double *x, size_t k, double *s)
{
    const uint32_t d = p->dim, per = p->per;
    const size_t nv = p->var_count;
    memset(s, 0, sizeof(double) * d * d);
    for (size_t bl = p->block_start[k]; bl < p->block_start[k + 1]; ++bl) {
        const double *pk = p->block_P + bl * per * d;
        size_t base = (size_t)p->block_handle[bl] * per;
        for (uint32_t c = 0; c < d; ++c) {
            const double *xc = x + c * nv + base;
            double *sc = s + c * d;
            if (d == 3) {
                for (int a = 0; a < 3; ++a)
                    sc[a] += xc[0] * pk[a] + xc[1] * pk[3 + a] + xc[2] * pk[6 + a] + xc[3] * pk[9 + a];
            } else {
                for (int a = 0; a < 2; ++a) sc[a] += xc[0] * pk[a] + xc[1] * pk[2 + a] + xc[2] * pk[4 + a];
            }
        }
    }
}

/* Fits cluster k's rotation to S, unless S is below 1e-6 of the cluster's
 * rest value (a collapsed pose, or the all-zero transforms of a first warm
 * start): its direction is then noise (float weights sum to one only to
 * about 1e-7), so the rotation stays. */
static void fit_cluster(const sinew_bbw_pose *p, size_t k, const double *s, double *r, int steps)
{
    double n = 0.0;
    for (uint32_t i = 0; i < p->dim * p->dim; ++i) n += s[i] * s[i];
    if (sqrt(n) > 1e-6 * p->cluster_mass[k]) sn_pose_fit_rotation(p->dim, s, r, steps);
}

void sn_pose_local_step(const sinew_bbw_pose *p, const double *x, double *rot, int steps)
{
    double s[9];
    const size_t dd = (size_t)p->dim * p->dim;
    for (size_t k = 0; k < p->cluster_count; ++k) {
        cluster_covariance(p, x, k, s);
        fit_cluster(p, k, s, rot + k * dd, steps);
    }
}

double sn_pose_energy_of(const sinew_bbw_pose *p, const double *x, double *rot, int steps)
{
    const uint32_t d = p->dim;
    const size_t nv = p->var_count, dd = (size_t)d * d;
    double e = d;
    for (uint32_t c = 0; c < d; ++c) {
        const double *xc = x + c * nv;
        for (size_t i = 0; i < nv; ++i) {
            if (xc[i] == 0.0) continue;
            const double *ai = p->A + i * nv;
            double v = 0.0;
            for (size_t k = 0; k < nv; ++k) v += ai[k] * xc[k];
            e += xc[i] * v;
        }
    }
    double s[9];
    for (size_t k = 0; k < p->cluster_count; ++k) {
        cluster_covariance(p, x, k, s);
        double *r = rot + k * dd;
        fit_cluster(p, k, s, r, steps);
        for (size_t i = 0; i < dd; ++i) e -= 2.0 * r[i] * s[i];
    }
    /* Rounding can leave a rigid pose a hair below zero. */
    return fmax(e, 0.0);
}

void sn_pose_identity_rotations(const sinew_bbw_pose *p, double *rot)
{
    const uint32_t d = p->dim;
    for (size_t k = 0; k < p->cluster_count; ++k)
        for (uint32_t i = 0; i < d * d; ++i) rot[k * d * d + i] = (i % (d + 1) == 0) ? 1.0 : 0.0;
}
