/* The deformed image of a straight segment, piece by piece between knot
 * planes, as exact Bezier curves: the guaranteed error bound of Schein &
 * Elber §4.2 and the Greville parameter of its farthest control point. */
#include <math.h>
#include <string.h>

#include "lattice/lattice_internal.h"
#include "lattice/segment.h"

void sn_lat_deform_point(const sinew_lattice *lat, const double p[3], double out[3])
{
    double u[3], d[3];
    sn_lat_params(lat, p, u);
    sn_lat_displacement(lat, u, d);
    for (int c = 0; c < 3; ++c) out[c] = sn_round_to_float(p[c]) + d[c];
}

double sn_lat_segment_distance(const double q[3], const double a[3], const double b[3])
{
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double aq[3] = {q[0] - a[0], q[1] - a[1], q[2] - a[2]};
    double len2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
    double s = 0.0;
    if (len2 > 0.0) {
        s = (aq[0] * ab[0] + aq[1] * ab[1] + aq[2] * ab[2]) / len2;
        s = s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
    }
    double e[3] = {aq[0] - s * ab[0], aq[1] - s * ab[1], aq[2] - s * ab[2]};
    return sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
}

/* Parameter t > t0 (strictly, by a margin) where coordinate x(t) = x0 + t * dx
 * next crosses a knot plane k / cells, k = 0..cells; 2 when none before t = 1. */
static double next_crossing(double x0, double dx, uint32_t cells, double t0)
{
    if (dx == 0.0) return 2.0;
    const double eps = 1e-12;
    double x = x0 + t0 * dx;
    double pos = x * (double)cells;
    double k = dx > 0.0 ? floor(pos) + 1.0 : ceil(pos) - 1.0;
    for (int tries = 0; tries < 3; ++tries, k += dx > 0.0 ? 1.0 : -1.0) {
        if (k < 0.0 && dx < 0.0) return 2.0;
        if (k > (double)cells && dx > 0.0) return 2.0;
        if (dx > 0.0 && k < 0.0) k = 0.0;
        if (dx < 0.0 && k > (double)cells) k = (double)cells;
        double t = (k / (double)cells - x0) / dx;
        if (t > t0 + eps) return t;
    }
    return 2.0;
}

/* Bernstein coefficients (degree p, on the piece's x0 .. x1) of the axis'
 * basis functions after the outside policy; *first receives the first
 * function. Returns false when the piece lies outside with policy LEAVE. */
static bool piece_basis(const sinew_lattice *lat, int a, double x0, double x1, uint32_t *first, double *coef)
{
    const sn_lat_axis *axis = &lat->axis[a];
    const uint32_t p = axis->degree, o = axis->order;
    double mid = 0.5 * (x0 + x1);
    if (mid >= 0.0 && mid <= 1.0) {
        uint32_t s = sn_lat_span(axis, mid);
        /* Endpoints may stray past the span by rounding; the polynomial of the
         * span is what the piece follows, so clamping is only cosmetic. */
        double lo = axis->knots[s], hi = axis->knots[s + 1];
        x0 = x0 < lo ? lo : x0 > hi ? hi : x0;
        x1 = x1 < lo ? lo : x1 > hi ? hi : x1;
        *first = s - p;
        sn_lat_bernstein_of_span(axis, s, x0, x1, coef);
        return true;
    }
    if (lat->outside == SINEW_LATTICE_OUTSIDE_LEAVE) return false;
    sn_lat_basis b0, b1;
    sn_lat_axis_basis(lat, a, x0, false, &b0);
    sn_lat_axis_basis(lat, a, x1, false, &b1);
    /* Outside, each function is constant (clamp) or linear (extend) in x,
     * hence in t: its degree-p Bernstein coefficients interpolate the ends. */
    *first = b0.first;
    for (uint32_t r = 0; r < o; ++r)
        for (uint32_t m = 0; m <= p; ++m)
            coef[r * o + m] = b0.value[r] + ((double)m / (double)p) * (b1.value[r] - b0.value[r]);
    return true;
}

/* Bezier control points of the displacement D along one piece, as a
 * (pu+1) x (pv+1) x (pw+1) net g[((a * (pv+1) + b) * (pw+1) + d) * 3 + c]. */
static void piece_net(const sinew_lattice *lat, const uint32_t first[3], const double *cu, const double *cv,
                      const double *cw, double *g)
{
    const uint32_t ou = lat->axis[0].order, ov = lat->axis[1].order, ow = lat->axis[2].order;
    /* Contract u, then v, then w; tmp1[(k*ov + j)*ou + a], tmp2[(k*ou + a)*ov + b]. */
    double tmp1[SN_LAT_MAX_ORDER * SN_LAT_MAX_ORDER * SN_LAT_MAX_ORDER * 3];
    double tmp2[SN_LAT_MAX_ORDER * SN_LAT_MAX_ORDER * SN_LAT_MAX_ORDER * 3];
    for (uint32_t k = 0; k < ow; ++k)
        for (uint32_t j = 0; j < ov; ++j) {
            size_t row = sn_lat_index(lat, first[0], first[1] + j, first[2] + k);
            for (uint32_t a = 0; a < ou; ++a) {
                double s[3] = {0, 0, 0};
                for (uint32_t i = 0; i < ou; ++i) {
                    double w = cu[i * ou + a];
                    for (int c = 0; c < 3; ++c) s[c] += w * (double)lat->disp[c][row + i];
                }
                memcpy(tmp1 + ((k * ov + j) * ou + a) * 3, s, sizeof s);
            }
        }
    for (uint32_t k = 0; k < ow; ++k)
        for (uint32_t a = 0; a < ou; ++a)
            for (uint32_t b = 0; b < ov; ++b) {
                double s[3] = {0, 0, 0};
                for (uint32_t j = 0; j < ov; ++j) {
                    double w = cv[j * ov + b];
                    const double *x = tmp1 + ((k * ov + j) * ou + a) * 3;
                    for (int c = 0; c < 3; ++c) s[c] += w * x[c];
                }
                memcpy(tmp2 + ((k * ou + a) * ov + b) * 3, s, sizeof s);
            }
    for (uint32_t a = 0; a < ou; ++a)
        for (uint32_t b = 0; b < ov; ++b)
            for (uint32_t d = 0; d < ow; ++d) {
                double s[3] = {0, 0, 0};
                for (uint32_t k = 0; k < ow; ++k) {
                    double w = cw[k * ow + d];
                    const double *x = tmp2 + ((k * ou + a) * ov + b) * 3;
                    for (int c = 0; c < 3; ++c) s[c] += w * x[c];
                }
                memcpy(g + ((a * ov + b) * ow + d) * 3, s, sizeof s);
            }
}

void sn_lat_segment_bound(const sinew_lattice *lat, const double pa[3], const double pb[3], const double fa[3],
                          const double fb[3], double *bound, double *split_t)
{
    const uint32_t pu = lat->axis[0].degree, pv = lat->axis[1].degree, pw = lat->axis[2].degree;
    const uint32_t ou = pu + 1, ov = pv + 1, ow = pw + 1;
    const uint32_t deg = pu + pv + pw;
    double ua[3], ub[3], du[3];
    sn_lat_params(lat, pa, ua);
    sn_lat_params(lat, pb, ub);
    for (int a = 0; a < 3; ++a) du[a] = ub[a] - ua[a];
    double best = 0.0, best_t = 0.5;
    double t0 = 0.0;
    while (t0 < 1.0) {
        double t1 = 1.0;
        for (int a = 0; a < 3; ++a) {
            double t = next_crossing(ua[a], du[a], lat->axis[a].cells, t0);
            if (t < t1) t1 = t;
        }
        double cu[SN_LAT_MAX_ORDER * SN_LAT_MAX_ORDER], cv[SN_LAT_MAX_ORDER * SN_LAT_MAX_ORDER],
            cw[SN_LAT_MAX_ORDER * SN_LAT_MAX_ORDER];
        double *coef[3] = {cu, cv, cw};
        uint32_t first[3];
        bool moved = true;
        for (int a = 0; a < 3 && moved; ++a)
            moved = piece_basis(lat, a, ua[a] + t0 * du[a], ua[a] + t1 * du[a], &first[a], coef[a]);
        /* The undeformed line is degree 1; in degree deg its control points
         * are evenly spaced along the piece. */
        double l0[3], l1[3];
        for (int c = 0; c < 3; ++c) {
            l0[c] = pa[c] + t0 * (pb[c] - pa[c]);
            l1[c] = pa[c] + t1 * (pb[c] - pa[c]);
        }
        double q[3 * (3 * SN_LAT_MAX_DEGREE + 1)];
        for (uint32_t m = 0; m <= deg; ++m)
            for (int c = 0; c < 3; ++c) q[3 * m + c] = l0[c] + ((double)m / (double)deg) * (l1[c] - l0[c]);
        if (moved) {
            double g[SN_LAT_MAX_ORDER * SN_LAT_MAX_ORDER * SN_LAT_MAX_ORDER * 3];
            piece_net(lat, first, cu, cv, cw, g);
            /* Restricted to the piece's diagonal, B_a(s) B_b(s) B_d(s) in
             * Bernstein form is C(pu,a) C(pv,b) C(pw,d) / C(deg, a+b+d) times
             * Bernstein function a+b+d of degree deg. */
            for (uint32_t a = 0; a < ou; ++a)
                for (uint32_t b = 0; b < ov; ++b)
                    for (uint32_t d = 0; d < ow; ++d) {
                        uint32_t m = a + b + d;
                        double w = sn_lat_binom(pu, a) * sn_lat_binom(pv, b) * sn_lat_binom(pw, d) /
                                   sn_lat_binom(deg, m);
                        const double *x = g + ((a * ov + b) * ow + d) * 3;
                        for (int c = 0; c < 3; ++c) q[3 * m + c] += w * x[c];
                    }
        }
        for (uint32_t m = 0; m <= deg; ++m) {
            double dist = sn_lat_segment_distance(q + 3 * m, fa, fb);
            if (dist > best) {
                best = dist;
                best_t = t0 + ((double)m / (double)deg) * (t1 - t0);
            }
        }
        t0 = t1;
    }
    *bound = best;
    *split_t = best_t;
}

sinew_result sinew_lattice_segment_bound(const sinew_lattice *lattice, const float a[3], const float b[3],
                                         double *bound, double *split_t)
{
    sn_clear_error();
    if (!lattice || !a || !b)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", !lattice ? "lattice" : !a ? "a" : "b");
    sinew_result r = sn_check_float_array(a, 0, 3, 1, "segment start a");
    if (r == SINEW_OK) r = sn_check_float_array(b, 0, 3, 1, "segment end b");
    if (r != SINEW_OK) return r;
    if ((bound && (uintptr_t)bound % _Alignof(double)) || (split_t && (uintptr_t)split_t % _Alignof(double)))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "segment %s output pointer is not aligned to %zu bytes",
                       bound && (uintptr_t)bound % _Alignof(double) ? "bound" : "split_t", _Alignof(double));
    for (int c = 0; c < 3; ++c) {
        if (!isfinite(a[c]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "segment start %c is not finite (%g)", "xyz"[c], (double)a[c]);
        if (!isfinite(b[c]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "segment end %c is not finite (%g)", "xyz"[c], (double)b[c]);
    }
    double pa[3] = {a[0], a[1], a[2]}, pb[3] = {b[0], b[1], b[2]}, fa[3], fb[3];
    sn_lat_deform_point(lattice, pa, fa);
    sn_lat_deform_point(lattice, pb, fb);
    double e, t;
    sn_lat_segment_bound(lattice, pa, pb, fa, fb, &e, &t);
    if (bound) *bound = e;
    if (split_t) *split_t = t;
    return SINEW_OK;
}
