/* AVX2 float-range pass of one-shot deformation (sn_lat_all_fit_fn): proves
 * for a whole range that every point is finite and passes the bounds of
 * sn_lat_check_point_fits for positions, or says it cannot, and the caller
 * checks point by point. Built with -mavx2 -mfma when the compiler and the
 * `simd` option allow; the library calls it only after checking the CPU. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lattice/deform_kernels.h"
#include "lattice/lattice_defaults.h"
#include "lattice/lattice_internal.h"

#if defined(__AVX2__) && defined(__FMA__) && (defined(__GNUC__) || defined(__clang__))
#  include "lattice/points_avx2.h"

/* The largest |coordinate| of count points, or NaN when one is not finite. */
static double max_abs_coordinate(const char *in, size_t in_stride, size_t count)
{
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 top = _mm256_setzero_ps(), bad = _mm256_setzero_ps();
    for (size_t b = 0; b < count; b += 8) {
        __m256 xyz[3];
        load8(in + b * in_stride, in_stride, count - b < 8 ? count - b : 8, xyz);
        for (int c = 0; c < 3; ++c) {
            __m256 a = _mm256_andnot_ps(sign, xyz[c]);
            bad = _mm256_or_ps(bad, _mm256_cmp_ps(a, _mm256_set1_ps(FLT_MAX), _CMP_NLE_UQ)); /* inf, NaN */
            top = _mm256_max_ps(top, a);
        }
    }
    if (_mm256_movemask_ps(bad)) return NAN;
    _Alignas(32) float lanes8[8];
    _mm256_store_ps(lanes8, top);
    double m = 0.0;
    for (int k = 0; k < 8; ++k) m = lanes8[k] > m ? lanes8[k] : m;
    return m;
}

/* For LEAVE and CLAMP the bounds of sn_lat_disp_bounds do not grow outside
 * the box, so the largest coordinate m of the range bounds every point's:
 * parameters |inverse| (m + |origin|) (world) or m, basis values max(1, the
 * largest slope), positions m (or the box's reach at m) plus the
 * displacement bound. A cheap sufficient test before the per-point one. */
static bool range_fits(const sinew_lattice *lat, double m, bool world, double basis, double limit)
{
    if (!(m <= (double)FLT_MAX)) return false;
    double param = 0.0, reach = 0.0;
    for (int a = 0; a < 3; ++a) {
        double s = 0.0;
        for (int c = 0; c < 3; ++c) s += fabs(lat->inverse[3 * c + a]) * (m + fabs(lat->origin[c]));
        param = world ? (s > param ? s : param) : m;
    }
    for (int c = 0; c < 3; ++c) {
        double r = fabs(lat->origin[c]);
        for (int a = 0; a < 3; ++a) r += fabs(lat->frame[3 * a + c]) * m;
        reach = r > reach ? r : reach;
    }
    const double position = (world ? m : reach) + lat->disp_bound;
    return param <= limit && basis <= limit && position <= limit;
}

/* Whether every one of count points passes sn_lat_check_point_fits for
 * positions (sn_lat_all_fit_fn): the same bounds (sn_lat_disp_bounds) four
 * points at a time, against a limit a little below the scalar one so that a
 * pass here is a pass there. A non-finite coordinate fails a comparison. */
static bool all_fit_avx2(const sinew_lattice *lat, const char *in, size_t in_stride, size_t count, bool world)
{
    const double zero3[3] = {0.0, 0.0, 0.0};
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);
    const __m256d sign = _mm256_set1_pd(-0.0);
    const bool extend = lat->outside == SINEW_LATTICE_OUTSIDE_EXTEND;
    const bool leave_policy = lat->outside == SINEW_LATTICE_OUTSIDE_LEAVE;
    double slope[3], dsum = 0.0;
    for (int a = 0; a < 3; ++a) {
        slope[a] = 2.0 * lat->axis[a].degree * lat->axis[a].cells;
        dsum = slope[a] > dsum ? slope[a] : dsum;
    }
    const double limit1 = (double)FLT_MAX / (1.0 + SN_LAT_FLOAT_MARGIN) * (1.0 - 1e-9);
    const __m256d limit = _mm256_set1_pd(limit1);
    if (!extend && range_fits(lat, max_abs_coordinate(in, in_stride, count), world, dsum > 1.0 ? dsum : 1.0, limit1))
        return true;
    const __m256d basis_scale = _mm256_set1_pd(dsum > 1.0 ? dsum : 1.0), bound = _mm256_set1_pd(lat->disp_bound);
    __m256d ok = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    for (size_t b = 0; b < count; b += 8) {
        const size_t n = count - b < 8 ? count - b : 8;
        __m256 xyz[3];
        load8(in + b * in_stride, in_stride, n, xyz);
        for (int h = 0; h < 2; ++h) {
            __m256d x[3], u[3], reach = zero, param = zero, sum = one;
            __m256d outside = zero; /* lanes with a parameter outside [0, 1] */
            for (int c = 0; c < 3; ++c)
                x[c] = _mm256_cvtps_pd(h ? _mm256_extractf128_ps(xyz[c], 1) : _mm256_castps256_ps128(xyz[c]));
            if (world) {
                for (int c = 0; c < 3; ++c) reach = _mm256_max_pd(reach, _mm256_andnot_pd(sign, x[c]));
                __m256d d[3];
                for (int c = 0; c < 3; ++c) d[c] = _mm256_sub_pd(x[c], _mm256_set1_pd(lat->origin[c]));
                affine4(zero3, lat->inverse, d, u);
            } else {
                memcpy(u, x, sizeof u);
                /* |origin| + |frame u| per world axis */
                for (int c = 0; c < 3; ++c) {
                    __m256d r = _mm256_set1_pd(lat->origin[c] < 0 ? -lat->origin[c] : lat->origin[c]);
                    for (int a = 0; a < 3; ++a) {
                        __m256d term = _mm256_mul_pd(_mm256_set1_pd(lat->frame[3 * a + c]), u[a]);
                        r = _mm256_add_pd(r, _mm256_andnot_pd(sign, term));
                    }
                    reach = _mm256_max_pd(reach, r);
                }
            }
            for (int a = 0; a < 3; ++a) {
                param = _mm256_max_pd(param, _mm256_andnot_pd(sign, u[a]));
                __m256d dist = _mm256_max_pd(zero, _mm256_max_pd(_mm256_sub_pd(u[a], one), _mm256_sub_pd(zero, u[a])));
                outside = _mm256_or_pd(outside, _mm256_cmp_pd(dist, zero, _CMP_GT_OQ));
                if (extend) sum = _mm256_mul_pd(sum, _mm256_add_pd(one, _mm256_mul_pd(_mm256_set1_pd(slope[a]), dist)));
            }
            __m256d basis = _mm256_mul_pd(sum, basis_scale), value = _mm256_mul_pd(bound, sum);
            if (leave_policy) {
                basis = _mm256_andnot_pd(outside, basis);
                value = _mm256_andnot_pd(outside, value);
            }
            __m256d fits = _mm256_and_pd(_mm256_cmp_pd(param, limit, _CMP_LE_OQ),
                                         _mm256_cmp_pd(basis, limit, _CMP_LE_OQ));
            fits = _mm256_and_pd(fits, _mm256_cmp_pd(_mm256_add_pd(reach, value), limit, _CMP_LE_OQ));
            ok = _mm256_and_pd(ok, fits);
        }
        if ((b & 255) == 248 && _mm256_movemask_pd(ok) != 15) return false;
    }
    return _mm256_movemask_pd(ok) == 15;
}

sn_lat_all_fit_fn sn_lat_all_fit_avx2(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return all_fit_avx2;
    return NULL;
}

#else

sn_lat_all_fit_fn sn_lat_all_fit_avx2(void)
{
    return NULL; /* this build has no AVX2 pass */
}

#endif
