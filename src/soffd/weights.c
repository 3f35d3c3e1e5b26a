/* Falloff weights and the numeric domain of surface-oriented FFD.
 *
 * Weights are computed relative to a point's nearest element, so they never
 * all underflow: w = 1 / (1 + t) with t = (d / L)^local overflows double for
 * far points or large `local`, and 0 / 0 would follow in the normalisation.
 * Scaling every weight of a point by the same factor leaves the normalised
 * weights unchanged, so the scaled weights below are the paper's. */
#include <math.h>
#include <string.h>

#include "soffd/soffd_internal.h"

/* s^(local / 2): (d / L)^local from a squared ratio. Integer exponents avoid
 * pow, which would dominate registration otherwise. */
static double power_half_local(const sinew_soffd *h, double s)
{
    if (h->local == 8) {
        double s2 = s * s;
        return s2 * s2;
    }
    if (h->local == 4) return s * s;
    if (h->local == 2) return s;
    return pow(s, 0.5 * h->local);
}

void sn_soffd_scale_init(const sinew_soffd *h, double dist2_min, sn_soffd_scale *scale)
{
    scale->dist2_min = dist2_min;
    scale->t_min = power_half_local(h, dist2_min / (h->length_scale * h->length_scale));
}

double sn_soffd_scaled_weight(const sinew_soffd *h, const sn_soffd_scale *scale, double dist2)
{
    /* Near points (the nearest weight >= 1/2): the paper's weight itself; a
     * far element whose t overflows gets 0, exactly what it would weigh
     * against the nearest one. Far points: every weight times t_min, i.e.
     * 1 / (1 / t_min + (d / d_min)^local), so the nearest weighs in [1/2, 1). */
    if (scale->t_min <= 1)
        return 1.0 / (1.0 + power_half_local(h, dist2 / (h->length_scale * h->length_scale)));
    return 1.0 / (1.0 / scale->t_min + power_half_local(h, dist2 / scale->dist2_min));
}

double sn_soffd_box_weight(const sinew_soffd *h, const sn_soffd_scale *scale, double near2)
{
    /* No element lies nearer than the point's nearest: clamping there keeps
     * the bound finite where (d / d_min)^local would underflow to 0. */
    return sn_soffd_scaled_weight(h, scale, fmax(near2 * (1 - SN_SOFFD_BOX_SLACK), scale->dist2_min));
}

double sn_soffd_threshold_radius(const sinew_soffd *h, const sn_soffd_scale *scale, double eps)
{
    if (!(eps > 0)) return INFINITY;
    /* w(d) >= eps * w(d_min)  <=>  1 + t <= (1 + t_min) / eps. */
    if (scale->t_min <= 1) {
        double t = (1.0 + scale->t_min) / eps - 1.0;
        return h->length_scale * pow(t, 1.0 / h->local);
    }
    double q = (1.0 / scale->t_min + 1.0) / eps - 1.0 / scale->t_min; /* bound on (d / d_min)^local */
    return sqrt(scale->dist2_min) * pow(q, 1.0 / h->local);
}

sinew_result sn_soffd_check_domain(const sinew_points *p, const char *what)
{
    for (size_t i = 0; i < p->count; ++i) {
        const float *q = sn_point(p, i);
        for (int k = 0; k < 3; ++k)
            if (!(fabsf(q[k]) <= SN_SOFFD_MAX_COORD))
                return sn_fail(SINEW_ERROR_OUTSIDE_DOMAIN,
                               "%s %zu has coordinate %c = %g, beyond the %g (2^60) that soffd keeps finite", what, i,
                               "xyz"[k], (double)q[k], SN_SOFFD_MAX_COORD);
    }
    return SINEW_OK;
}

/* Index of the first 4x4 matrix whose entry i (rows 0-2 only) is not within
 * +-limit[i], or count when every one is. */
static size_t first_outside(const float *m, size_t count, const float limit[16])
{
    for (size_t k = 0; k < count; ++k)
        for (int i = 0; i < 16; ++i)
            if (i % 4 != 3 && !(fabsf(m[16 * k + i]) <= limit[i])) return k;
    return count;
}

#if defined(__GNUC__) || defined(__clang__)
typedef float sn_check_v4 __attribute__((vector_size(16)));
typedef int32_t sn_check_i4 __attribute__((vector_size(16)));

size_t sn_soffd_first_matrix_outside(const float *m, size_t count, const float limit[16])
{
    /* One pass of vector compares (a NaN compares false), then the scalar
     * scan only to name the first matrix when some entry failed. */
    sn_check_v4 lim[4];
    memcpy(lim, limit, sizeof lim);
    const sn_check_i4 magnitude = {0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff};
    const sn_check_i4 bottom = {0, 0, 0, -1}; /* row 3 is never read */
    sn_check_i4 ok = {-1, -1, -1, -1};
    for (size_t k = 0; k < count; ++k)
        for (int c = 0; c < 4; ++c) {
            sn_check_i4 bits;
            memcpy(&bits, &m[16 * k + 4 * c], sizeof bits);
            sn_check_v4 a;
            bits &= magnitude;
            memcpy(&a, &bits, sizeof a);
            ok &= (a <= lim[c]) | bottom;
        }
    if (ok[0] & ok[1] & ok[2]) return count;
    return first_outside(m, count, limit);
}
#else
size_t sn_soffd_first_matrix_outside(const float *m, size_t count, const float limit[16])
{
    return first_outside(m, count, limit);
}
#endif
