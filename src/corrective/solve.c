/* The pose interpolation of correctives (docs/correctives.md, "Kernels"):
 * the radial basis system over the key and rest poses, solved once at
 * create (and again at load) for each key's cardinal function, and the
 * weights at a pose from it. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "corrective/corrective_internal.h"
#include "linalg/dense.h"

/* The kernel at a distance already divided by the radius. */
static double sn_corr_kernel(sinew_corrective_kernel kernel, double scaled)
{
    switch (kernel) {
    case SINEW_CORRECTIVE_KERNEL_LINEAR: return scaled;
    case SINEW_CORRECTIVE_KERNEL_CUBIC: return scaled * scaled * scaled;
    default: return exp(-scaled * scaled);
    }
}

size_t sn_corr_poly_terms(sinew_corrective_kernel kernel, size_t pose_size)
{
    return kernel == SINEW_CORRECTIVE_KERNEL_LINEAR || kernel == SINEW_CORRECTIVE_KERNEL_CUBIC ? pose_size + 1 : 0;
}

/* Centre j's pose: key j, or the rest pose after the keys. */
static const float *centre(const sinew_corrective *c, size_t j)
{
    return j < c->key_count ? c->poses + j * c->pose_size : c->rest_pose;
}

static double distance(const float *a, const float *b, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double d = (double)a[i] - (double)b[i];
        s += d * d;
    }
    return sqrt(s);
}

static void name_centre(const sinew_corrective *c, size_t j, char *buf, size_t cap)
{
    if (j < c->key_count) snprintf(buf, cap, "key %zu", j);
    else snprintf(buf, cap, "the rest pose");
}

/* Duplicate poses, then the default radius (mean distance to the nearest
 * other centre). */
static sinew_result check_centres(sinew_corrective *c, const char *what)
{
    const size_t m = c->key_count + 1, n = c->pose_size;
    double largest = 1.0;
    for (size_t j = 0; j < m; ++j)
        for (size_t i = 0; i < n; ++i) largest = fmax(largest, fabs((double)centre(c, j)[i]));
    const double same = SN_CORR_DUPLICATE_TOLERANCE * largest;
    double nearest_sum = 0.0;
    for (size_t a = 0; a < m; ++a) {
        double nearest = INFINITY;
        for (size_t b = 0; b < m; ++b) {
            if (a == b) continue;
            double d = distance(centre(c, a), centre(c, b), n);
            if (b > a && d <= same) {
                char na[32], nb[32];
                name_centre(c, a, na, sizeof na);
                name_centre(c, b, nb, sizeof nb);
                return sn_fail(SINEW_ERROR_DEGENERATE,
                               "%s: %s and %s are at the same pose (distance %g): the interpolation is singular",
                               what, na, nb, d);
            }
            nearest = fmin(nearest, d);
        }
        nearest_sum += nearest;
    }
    if (c->radius == 0.0) c->radius = nearest_sum / (double)m;
    if (!(c->radius > 0.0) || !isfinite(c->radius))
        return sn_fail(SINEW_ERROR_DEGENERATE, "%s: the default radius of the poses is %g", what, c->radius);
    return SINEW_OK;
}

/* The polynomial kernels need centres that span pose space affinely, else
 * the bordered system is singular: the rank of the centres' differences from
 * the rest pose, by elimination with full pivoting on a scratch copy. */
static sinew_result check_span(const sinew_corrective *c, double *scratch, const char *what)
{
    const size_t rows = c->key_count, n = c->pose_size;
    double largest = 0.0;
    for (size_t r = 0; r < rows; ++r)
        for (size_t i = 0; i < n; ++i) {
            double v = ((double)c->poses[r * n + i] - (double)c->rest_pose[i]) / c->radius;
            scratch[r * n + i] = v;
            largest = fmax(largest, fabs(v));
        }
    size_t rank = 0;
    for (size_t col = 0; col < n && rank < rows; ++col) {
        size_t best = rank;
        for (size_t r = rank; r < rows; ++r)
            if (fabs(scratch[r * n + col]) > fabs(scratch[best * n + col])) best = r;
        if (!(fabs(scratch[best * n + col]) > SN_CORR_DUPLICATE_TOLERANCE * largest)) continue;
        for (size_t i = 0; i < n; ++i) {
            double t = scratch[rank * n + i];
            scratch[rank * n + i] = scratch[best * n + i];
            scratch[best * n + i] = t;
        }
        for (size_t r = rank + 1; r < rows; ++r) {
            double f = scratch[r * n + col] / scratch[rank * n + col];
            for (size_t i = col; i < n; ++i) scratch[r * n + i] -= f * scratch[rank * n + i];
        }
        ++rank;
    }
    if (rank < n)
        return sn_fail(SINEW_ERROR_DEGENERATE,
                       "%s: the key poses span %zu of the %zu pose dimensions around the rest pose; the linear and "
                       "cubic kernels need all (use the Gaussian kernel, or fewer pose numbers)",
                       what, rank, n);
    return SINEW_OK;
}

sinew_result sn_corr_solve(const sn_env *env, sinew_corrective *c, const char *what)
{
    sinew_result res = check_centres(c, what);
    if (res != SINEW_OK) return res;
    const size_t m = c->key_count + 1, poly = sn_corr_poly_terms(c->kernel, c->pose_size), n = m + poly;
    const size_t big = n > c->key_count * c->pose_size ? n : c->key_count * c->pose_size;
    double *a = (double *)sn_alloc_array(env, n * n + big, sizeof(double), "corrective interpolation system");
    uint32_t *pivot = (uint32_t *)sn_alloc_array(env, n, sizeof(uint32_t), "corrective pivots");
    if (!a || !pivot) {
        res = sn_alloc_failure();
        goto done;
    }
    double *rhs = a + n * n;
    if (poly && (res = check_span(c, rhs, what)) != SINEW_OK) goto done;
    memset(a, 0, n * n * sizeof(double));
    for (size_t i = 0; i < m; ++i) {
        for (size_t j = 0; j < m; ++j)
            a[i * n + j] = sn_corr_kernel(c->kernel, distance(centre(c, i), centre(c, j), c->pose_size) / c->radius);
        a[i * n + i] += c->smoothing;
        if (!poly) continue;
        a[i * n + m] = a[m * n + i] = 1.0;
        for (size_t d = 0; d < c->pose_size; ++d)
            a[i * n + m + 1 + d] = a[(m + 1 + d) * n + i] = (double)centre(c, i)[d] / c->radius;
    }
    size_t step = 0;
    if (!sn_dense_lu_factor(a, n, pivot, SN_CORR_PIVOT_TOLERANCE, &step)) {
        res = sn_fail(SINEW_ERROR_DEGENERATE,
                      "%s: the interpolation system of the key poses is singular to working precision (at unknown "
                      "%zu of %zu); move close keys apart, raise smoothing or change the radius",
                      what, step, n);
        goto done;
    }
    /* Key k's cardinal function: 1 at key k, 0 at the other centres, the
     * polynomial orthogonal to the kernel part. */
    for (size_t k = 0; k < c->key_count; ++k) {
        memset(rhs, 0, n * sizeof(double));
        rhs[k] = 1.0;
        sn_dense_lu_solve(a, n, pivot, rhs);
        for (size_t j = 0; j < n; ++j) {
            if (!isfinite(rhs[j])) {
                res = sn_fail(SINEW_ERROR_DEGENERATE,
                              "%s: the interpolation system of the key poses is too ill-conditioned to solve (key %zu)",
                              what, k);
                goto done;
            }
            c->coeffs[j * c->key_count + k] = rhs[j];
        }
    }
done:
    sn_free(env, a);
    sn_free(env, pivot);
    return res;
}

/* The exact pose of a key or of the rest pose, found by comparing floats:
 * there the interpolant is its defining value, taken exactly. */
static bool same_pose(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return false;
    return true;
}

sinew_result sn_corr_weights(const sinew_corrective *c, const float *pose, float *weights)
{
    const size_t keys = c->key_count, n = c->pose_size;
    if (c->kernel == SINEW_CORRECTIVE_KERNEL_WEIGHTS) {
        memcpy(weights, pose, keys * sizeof(float));
        return SINEW_OK;
    }
    if (c->smoothing == 0.0) {
        for (size_t j = 0; j <= keys; ++j)
            if (same_pose(pose, centre(c, j), n)) {
                for (size_t k = 0; k < keys; ++k) weights[k] = k == j ? 1.0f : 0.0f;
                return SINEW_OK;
            }
    }
    double sum[SN_CORR_MAX_POSE_KEYS];
    for (size_t k = 0; k < keys; ++k) sum[k] = 0.0;
    const size_t m = keys + 1;
    for (size_t j = 0; j < c->basis_count; ++j) {
        double b;
        if (j < m) b = sn_corr_kernel(c->kernel, distance(pose, centre(c, j), n) / c->radius);
        else if (j == m) b = 1.0;
        else b = (double)pose[j - m - 1] / c->radius;
        const double *row = c->coeffs + j * keys;
        for (size_t k = 0; k < keys; ++k) sum[k] += b * row[k];
    }
    for (size_t k = 0; k < keys; ++k) {
        if (!(fabs(sum[k]) <= (double)FLT_MAX))
            return sn_fail(SINEW_ERROR_NON_FINITE, "the weight of key %zu at this pose leaves the float range (%g)", k,
                           sum[k]);
    }
    for (size_t k = 0; k < keys; ++k) weights[k] = (float)sum[k];
    return SINEW_OK;
}
