/*
 * Small dense algebra of the pose solver: Cholesky of the reduced systems
 * (tens to a few hundred unknowns) and the best rotation of a cluster.
 */
#include <math.h>

#include "bbw/pose_internal.h"
#include "core/small_math.h"

size_t sn_pose_cholesky(double *a, size_t n, double tolerance)
{
    double largest = 0.0;
    for (size_t i = 0; i < n; ++i) largest = fmax(largest, fabs(a[i * n + i]));
    double floor = tolerance * largest;
    for (size_t j = 0; j < n; ++j) {
        double *rj = a + j * n;
        double diag = rj[j];
        for (size_t k = 0; k < j; ++k) diag -= rj[k] * rj[k];
        /* A pivot at rounding level relative to the matrix means the
         * constraints leave a direction free: refuse rather than divide. */
        if (!(diag > floor) || largest == 0.0) return j;
        double root = sqrt(diag);
        rj[j] = root;
        double inv = 1.0 / root;
        for (size_t i = j + 1; i < n; ++i) {
            double *ri = a + i * n;
            double v = ri[j];
            for (size_t k = 0; k < j; ++k) v -= ri[k] * rj[k];
            ri[j] = v * inv;
        }
    }
    return SIZE_MAX;
}

void sn_pose_forward(const double *l, size_t n, double *b, size_t start)
{
    for (size_t i = start; i < n; ++i) {
        const double *ri = l + i * n;
        double v = b[i];
        for (size_t k = start; k < i; ++k) v -= ri[k] * b[k];
        b[i] = v / ri[i];
    }
}

void sn_pose_backward(const double *l, size_t n, double *b)
{
    for (size_t i = n; i-- > 0;) {
        double v = b[i];
        for (size_t k = i + 1; k < n; ++k) v -= l[k * n + i] * b[k];
        b[i] = v / l[i * n + i];
    }
}

void sn_pose_cholesky_solve(const double *l, size_t n, double *b)
{
    sn_pose_forward(l, n, b, 0);
    sn_pose_backward(l, n, b);
}

static double trace_rt_s(uint32_t dim, const double *r, const double *s)
{
    double t = 0.0;
    for (uint32_t i = 0; i < dim * dim; ++i) t += r[i] * s[i];
    return t;
}

/* 3D: the iteration of Müller, Bender, Chentanez and Macklin (2016), "A
 * robust method to extract the rotational part of deformations": turn R
 * about sum_i r_i x s_i (columns) by an angle that vanishes at the optimum.
 * Warm-started from the last iteration's rotation it takes one or two steps. */
static void fit_rotation_3d(const double *s, double *r, int max_steps)
{
    double q[4], cur[9];
    sn_quat_of_rotation(r, q);
    sn_rotation_of_quat(q, cur);
    double norm = 0.0;
    for (int i = 0; i < 9; ++i) norm += s[i] * s[i];
    norm = sqrt(norm);
    if (!(norm > 0.0) || !isfinite(norm)) return;
    for (int step = 0; step < max_steps; ++step) {
        double omega[3] = {0, 0, 0}, dot = 0.0;
        for (int c = 0; c < 3; ++c) {
            double rc[3] = {cur[c], cur[3 + c], cur[6 + c]}, sc[3] = {s[c], s[3 + c], s[6 + c]}, x[3];
            sn_cross3(rc, sc, x);
            for (int k = 0; k < 3; ++k) omega[k] += x[k];
            dot += sn_dot3(rc, sc);
        }
        double denom = fabs(dot) + 1e-12 * norm;
        double w[3] = {omega[0] / denom, omega[1] / denom, omega[2] / denom};
        double angle2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
        /* Converged well past float precision. */
        if (angle2 < 1e-20) break;
        /* Turn by the quaternion (w / 2, 1) normalised: an angle of
         * 2 atan(|w| / 2), which is |w| to second order, without trigonometry. */
        double turn[4] = {0.5 * w[0], 0.5 * w[1], 0.5 * w[2], 1.0};
        double nq[4];
        sn_quat_mul(turn, q, nq);
        double n = sqrt(nq[0] * nq[0] + nq[1] * nq[1] + nq[2] * nq[2] + nq[3] * nq[3]);
        for (int k = 0; k < 4; ++k) q[k] = nq[k] / n;
        sn_rotation_of_quat(q, cur);
    }
    /* Each step climbs in practice; the guard makes the local step of the
     * alternation never raise the energy whatever happens. */
    if (trace_rt_s(3, cur, s) >= trace_rt_s(3, r, s))
        for (int i = 0; i < 9; ++i) r[i] = cur[i];
}

void sn_pose_fit_rotation(uint32_t dim, const double *s, double *r, int max_steps)
{
    if (dim == 2) {
        /* tr(R' S) = cos(a) (s00 + s11) + sin(a) (s10 - s01): maximal at this angle. */
        double cs = s[0] + s[3], sn = s[2] - s[1], n = sqrt(cs * cs + sn * sn);
        if (!(n > 0.0) || !isfinite(n)) return;
        r[0] = cs / n, r[1] = -sn / n, r[2] = sn / n, r[3] = cs / n;
        return;
    }
    fit_rotation_3d(s, r, max_steps);
}
