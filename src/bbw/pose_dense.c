/*
 * Small dense algebra of the pose solver: Cholesky of the reduced systems
 * (tens to a few hundred unknowns) and the best rotation of a cluster.
 */
#include <math.h>

#include "bbw/pose_internal.h"

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

/* Quaternion (x, y, z, w) of a row-major rotation matrix (Shepperd's
 * choice of the largest component keeps it accurate for every angle). */
static void quat_of(const double *r, double q[4])
{
    double tr = r[0] + r[4] + r[8];
    if (tr >= r[0] && tr >= r[4] && tr >= r[8]) {
        double s = 2.0 * sqrt(fmax(1.0 + tr, 0.0));
        q[3] = 0.25 * s;
        q[0] = (r[7] - r[5]) / s;
        q[1] = (r[2] - r[6]) / s;
        q[2] = (r[3] - r[1]) / s;
    } else if (r[0] >= r[4] && r[0] >= r[8]) {
        double s = 2.0 * sqrt(fmax(1.0 + r[0] - r[4] - r[8], 0.0));
        q[0] = 0.25 * s;
        q[3] = (r[7] - r[5]) / s;
        q[1] = (r[1] + r[3]) / s;
        q[2] = (r[2] + r[6]) / s;
    } else if (r[4] >= r[8]) {
        double s = 2.0 * sqrt(fmax(1.0 + r[4] - r[0] - r[8], 0.0));
        q[1] = 0.25 * s;
        q[3] = (r[2] - r[6]) / s;
        q[0] = (r[1] + r[3]) / s;
        q[2] = (r[5] + r[7]) / s;
    } else {
        double s = 2.0 * sqrt(fmax(1.0 + r[8] - r[0] - r[4], 0.0));
        q[2] = 0.25 * s;
        q[3] = (r[3] - r[1]) / s;
        q[0] = (r[2] + r[6]) / s;
        q[1] = (r[5] + r[7]) / s;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; ++k) q[k] /= n;
}

static void matrix_of(const double q[4], double *r)
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    r[0] = 1 - 2 * (y * y + z * z), r[1] = 2 * (x * y - z * w), r[2] = 2 * (x * z + y * w);
    r[3] = 2 * (x * y + z * w), r[4] = 1 - 2 * (x * x + z * z), r[5] = 2 * (y * z - x * w);
    r[6] = 2 * (x * z - y * w), r[7] = 2 * (y * z + x * w), r[8] = 1 - 2 * (x * x + y * y);
}

/* 3D: the iteration of Müller, Bender, Chentanez and Macklin (2016), "A
 * robust method to extract the rotational part of deformations": turn R
 * about sum_i r_i x s_i (columns) by an angle that vanishes at the optimum.
 * Warm-started from the last iteration's rotation it takes one or two steps. */
static void fit_rotation_3d(const double *s, double *r, int max_steps)
{
    double q[4], cur[9];
    quat_of(r, q);
    matrix_of(q, cur);
    double norm = 0.0;
    for (int i = 0; i < 9; ++i) norm += s[i] * s[i];
    norm = sqrt(norm);
    if (!(norm > 0.0) || !isfinite(norm)) return;
    for (int step = 0; step < max_steps; ++step) {
        double omega[3] = {0, 0, 0}, dot = 0.0;
        for (int c = 0; c < 3; ++c) {
            double rc[3] = {cur[c], cur[3 + c], cur[6 + c]}, sc[3] = {s[c], s[3 + c], s[6 + c]};
            omega[0] += rc[1] * sc[2] - rc[2] * sc[1];
            omega[1] += rc[2] * sc[0] - rc[0] * sc[2];
            omega[2] += rc[0] * sc[1] - rc[1] * sc[0];
            dot += rc[0] * sc[0] + rc[1] * sc[1] + rc[2] * sc[2];
        }
        double denom = fabs(dot) + 1e-12 * norm;
        double w[3] = {omega[0] / denom, omega[1] / denom, omega[2] / denom};
        double angle2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
        /* Converged well past float precision. */
        if (angle2 < 1e-20) break;
        /* Turn by the quaternion (w / 2, 1) normalised: an angle of
         * 2 atan(|w| / 2), which is |w| to second order, without trigonometry. */
        double turn[4] = {0.5 * w[0], 0.5 * w[1], 0.5 * w[2], 1.0};
        double nq[4] = {turn[3] * q[0] + turn[0] * q[3] + turn[1] * q[2] - turn[2] * q[1],
                        turn[3] * q[1] - turn[0] * q[2] + turn[1] * q[3] + turn[2] * q[0],
                        turn[3] * q[2] + turn[0] * q[1] - turn[1] * q[0] + turn[2] * q[3],
                        turn[3] * q[3] - turn[0] * q[0] - turn[1] * q[1] - turn[2] * q[2]};
        double n = sqrt(nq[0] * nq[0] + nq[1] * nq[1] + nq[2] * nq[2] + nq[3] * nq[3]);
        for (int k = 0; k < 4; ++k) q[k] = nq[k] / n;
        matrix_of(q, cur);
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
