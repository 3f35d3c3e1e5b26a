/* The sketched path: projection onto the view plane, dense sampling by arc
 * length with in-plane normals, and the clamped uniform B-splines that describe
 * the path, the width d(u) and the height h(u, v). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lattice/lattice_defaults.h"
#include "lattice/placement/placement_internal.h"
#include "core/small_math.h"

/* Samples per control point of a B-spline path: dense enough that the
 * polyline's normals turn smoothly and its length is that of the curve to
 * well below the ray sampling. */
#define SN_PLACE_CURVE_SAMPLES 32

/* Knot j of a clamped uniform knot vector of n control points of order o. */
static double sn_place_knot(size_t n, uint32_t o, size_t j)
{
    size_t p = o - 1;
    if (j <= p) return 0.0;
    if (j >= n) return 1.0;
    return (double)(j - p) / (double)(n - p);
}

double sn_place_greville(size_t n, uint32_t o, size_t i)
{
    if (o < 2) return n > 1 ? (double)i / (double)(n - 1) : 0.0;
    double sum = 0.0;
    for (size_t k = 1; k < o; ++k) sum += sn_place_knot(n, o, i + k);
    return sum / (double)(o - 1);
}

/* Evaluates a clamped uniform B-spline of order o (<= n, <= 8) with n control
 * points of dim doubles each (control point i at ctrl[i * dim]) at x in
 * [0, 1] (clamped), by de Boor's algorithm. dim <= 3. */
static void sn_place_bspline(const double *ctrl, size_t n, int dim, uint32_t o, double x, double *out)
{
    if (x < 0.0) x = 0.0;
    if (x > 1.0) x = 1.0;
    size_t p = o - 1;
    /* The span k with t_k <= x < t_k+1, the last one closed at 1. */
    size_t k = p;
    while (k + 1 < n && sn_place_knot(n, o, k + 1) <= x) ++k;
    double d[SINEW_LATTICE_MAX_ORDER][3];
    for (size_t r = 0; r <= p; ++r)
        for (int c = 0; c < dim; ++c) d[r][c] = ctrl[(k - p + r) * (size_t)dim + (size_t)c];
    for (size_t r = 1; r <= p; ++r) {
        for (size_t j = p; j >= r; --j) {
            double a = sn_place_knot(n, o, j + k - p), b = sn_place_knot(n, o, j + 1 + k - r);
            double alpha = b > a ? (x - a) / (b - a) : 0.0;
            for (int c = 0; c < dim; ++c) d[j][c] = (1.0 - alpha) * d[j - 1][c] + alpha * d[j][c];
        }
    }
    for (int c = 0; c < dim; ++c) out[c] = d[p][c];
}

double sn_place_scalar(const sinew_placement_scalar *f, double u, double v)
{
    if (f->count[0] == 0) return 1.0;
    size_t nu = f->count[0], nv = f->count[1] ? f->count[1] : 1;
    uint32_t ou = nu < 4 ? (uint32_t)nu : 4, ov = nv < 4 ? (uint32_t)nv : 4;
    /* Evaluate every row along u, then the column of results along v. */
    double column[256];
    for (size_t b = 0; b < nv; ++b) {
        double row[256];
        for (size_t a = 0; a < nu; ++a) row[a] = f->values[a + nu * b];
        sn_place_bspline(row, nu, 1, ou, u, &column[b]);
    }
    double out;
    sn_place_bspline(column, nv, 1, ov, v, &out);
    return out;
}

sinew_result sn_place_check_scalar(const sinew_placement_scalar *f, const char *what, bool two_d)
{
    if (f->count[0] == 0) return SINEW_OK;
    size_t nv = two_d && f->count[1] ? f->count[1] : 1;
    if (f->count[0] > 256 || nv > 256)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s has %u x %zu values; at most 256 per axis", what,
                       f->count[0], nv);
    if (!f->values) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s values are NULL", what);
    sinew_result r = sn_check_float_array(f->values, 0, 1, f->count[0] * nv, what);
    if (r != SINEW_OK) return r;
    for (size_t b = 0; b < nv; ++b)
        for (size_t a = 0; a < f->count[0]; ++a) {
            float x = f->values[a + f->count[0] * b];
            if (!isfinite(x))
                return sn_fail(SINEW_ERROR_NON_FINITE, "%s value (%zu, %zu) is not finite (%g)", what, a, b,
                               (double)x);
            if (!(x > 0.0f))
                return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s value (%zu, %zu) is %g; it must be > 0", what, a,
                               b, (double)x);
        }
    return SINEW_OK;
}

sinew_result sn_place_path_build(sn_place_path *path, const sn_env *env, const sinew_placement_desc *desc,
                                 const double view[3])
{
    memset(path, 0, sizeof *path);
    const sinew_points *in = &desc->path;
    size_t m = in->count;
    /* Project onto the plane through the first point perpendicular to V. */
    const float *p0 = sn_point(in, 0);
    double *proj = sn_alloc_array(env, m, 3 * sizeof(double), "placement path");
    if (!proj) return sn_alloc_failure();
    for (size_t i = 0; i < m; ++i) {
        const float *q = sn_point(in, i);
        double d[3] = {(double)q[0] - p0[0], (double)q[1] - p0[1], (double)q[2] - p0[2]};
        double along = d[0] * view[0] + d[1] * view[1] + d[2] * view[2];
        for (int c = 0; c < 3; ++c) proj[3 * i + c] = (double)q[c] - along * view[c];
    }
    /* Scale of the path, for the coincidence test. */
    double extent = 0.0;
    for (size_t i = 1; i < m; ++i)
        for (int c = 0; c < 3; ++c) extent = fmax(extent, fabs(proj[3 * i + c] - proj[c]));
    double eps = 1e-7 * fmax(extent, 1e-30);
    for (size_t i = 0; i + 1 < m; ++i) {
        double d2 = 0.0;
        for (int c = 0; c < 3; ++c) d2 += (proj[3 * (i + 1) + c] - proj[3 * i + c]) * (proj[3 * (i + 1) + c] - proj[3 * i + c]);
        if (!(sqrt(d2) > eps) && desc->path_kind == SINEW_PLACEMENT_PATH_POLYLINE) {
            sn_free(env, proj);
            return sn_fail(SINEW_ERROR_DEGENERATE, "path points %zu and %zu coincide in the view plane", i, i + 1);
        }
    }
    if (!(extent > 0.0)) {
        sn_free(env, proj);
        return sn_fail(SINEW_ERROR_DEGENERATE, "every path point projects to one point of the view plane");
    }

    size_t n = m;
    if (desc->path_kind == SINEW_PLACEMENT_PATH_BSPLINE) {
        uint32_t o = desc->path_order ? desc->path_order : SN_PLACE_DEFAULT_PATH_ORDER;
        if (o > m) o = (uint32_t)m;
        n = (m - 1) * SN_PLACE_CURVE_SAMPLES + 1;
        path->pos = sn_alloc_array(env, n, 3 * sizeof(double), "placement path samples");
        if (!path->pos) {
            sn_free(env, proj);
            return sn_alloc_failure();
        }
        /* Sample, dropping samples that coincide with the previous one (a
         * B-spline may stop where control points repeat). */
        size_t kept = 0;
        for (size_t k = 0; k < n; ++k) {
            double x[3];
            sn_place_bspline(proj, m, 3, o, (double)k / (double)(n - 1), x);
            if (kept > 0) {
                double d2 = 0.0;
                for (int c = 0; c < 3; ++c) d2 += (x[c] - path->pos[3 * (kept - 1) + c]) * (x[c] - path->pos[3 * (kept - 1) + c]);
                if (!(sqrt(d2) > eps)) continue;
            }
            memcpy(&path->pos[3 * kept++], x, sizeof x);
        }
        n = kept;
        sn_free(env, proj);
        if (n < 2) {
            sn_place_path_free(path, env);
            return sn_fail(SINEW_ERROR_DEGENERATE, "the B-spline path has zero length in the view plane");
        }
    } else {
        path->pos = proj;
    }
    path->n = n;
    path->normal = sn_alloc_array(env, n, 3 * sizeof(double), "placement path normals");
    path->arc = sn_alloc_array(env, n, sizeof(double), "placement path lengths");
    if (!path->normal || !path->arc) {
        sn_place_path_free(path, env);
        return sn_alloc_failure();
    }
    /* Segment normals T x V; a vertex takes the bisector of its two segments'. */
    path->arc[0] = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double acc[3] = {0, 0, 0};
        for (size_t s = (i > 0 ? i - 1 : 0); s <= i && s + 1 < n; ++s) {
            double t[3], nn[3];
            for (int c = 0; c < 3; ++c) t[c] = path->pos[3 * (s + 1) + c] - path->pos[3 * s + c];
            double len = sn_normalize3(t);
            if (s == i && i + 1 < n) path->arc[i + 1] = path->arc[i] + len;
            sn_cross3(t, view, nn);
            sn_normalize3(nn);
            for (int c = 0; c < 3; ++c) acc[c] += nn[c];
        }
        if (!(sn_normalize3(acc) > 1e-9)) {
            /* A full reversal: keep the incoming segment's normal. The first
             * point has none, and a segment may have no normal at all (too
             * short for its coordinates' rounding): then there is no path. */
            double nn[3] = {0.0, 0.0, 0.0};
            if (i > 0) {
                double t[3];
                for (int c = 0; c < 3; ++c) t[c] = path->pos[3 * i + c] - path->pos[3 * (i - 1) + c];
                sn_normalize3(t);
                sn_cross3(t, view, nn);
            }
            if (!(sn_normalize3(nn) > 1e-9)) {
                sn_place_path_free(path, env);
                return sn_fail(SINEW_ERROR_DEGENERATE,
                               "the path has no direction across the view at path point %zu (of %zu after "
                               "projection)", i, n);
            }
            memcpy(acc, nn, sizeof nn);
        }
        memcpy(&path->normal[3 * i], acc, sizeof acc);
    }
    path->length = path->arc[n - 1];
    /* Finite points up to FLT_MAX apart can make a path longer than a float
     * holds; its length is reported (and laid out) in floats. */
    if (!(path->length * (1.0 + 1e-6) <= (double)FLT_MAX)) {
        double length = path->length;
        sn_place_path_free(path, env);
        return sn_fail(SINEW_ERROR_NON_FINITE, "the path is %g long in the view plane, beyond the float range", length);
    }
    return SINEW_OK;
}

void sn_place_path_free(sn_place_path *path, const sn_env *env)
{
    sn_free(env, path->pos);
    sn_free(env, path->normal);
    sn_free(env, path->arc);
    memset(path, 0, sizeof *path);
}

void sn_place_path_eval(const sn_place_path *path, double s, double pos[3], double normal[3])
{
    double target = fmin(fmax(s, 0.0), 1.0) * path->length;
    /* Binary search for the segment [lo, lo + 1] holding the target length. */
    size_t lo = 0, hi = path->n - 1;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (path->arc[mid] <= target) lo = mid;
        else hi = mid;
    }
    double seg = path->arc[hi] - path->arc[lo];
    double t = seg > 0.0 ? (target - path->arc[lo]) / seg : 0.0;
    for (int c = 0; c < 3; ++c) {
        pos[c] = (1.0 - t) * path->pos[3 * lo + c] + t * path->pos[3 * hi + c];
        normal[c] = (1.0 - t) * path->normal[3 * lo + c] + t * path->normal[3 * hi + c];
    }
    if (!(sn_normalize3(normal) > 0.0)) memcpy(normal, &path->normal[3 * lo], 3 * sizeof(double));
}

double sn_place_invert(const double *y, size_t n, double target)
{
    if (n < 2) return 0.0;
    if (target <= y[0]) return 0.0;
    if (target >= y[n - 1]) return 1.0;
    size_t lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (y[mid] <= target) lo = mid;
        else hi = mid;
    }
    double span = y[hi] - y[lo];
    double t = span > 0.0 ? (target - y[lo]) / span : 0.0;
    return ((double)lo + t) / (double)(n - 1);
}
