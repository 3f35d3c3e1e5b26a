/*
 * Element shape quality, for the solve's diagnosis of a domain it cannot
 * certify: sliver and needle elements give the cotangent stiffness entries
 * of the order of the inverse of their quality, and the biharmonic operator
 * their square, which no penalty or scaling of the split fully absorbs.
 */
#include <math.h>

#include "bbw/bbw_internal.h"
#include "bbw/quality.h"

/* Measure of element e over that of the regular triangle or tet with the
 * same root mean square edge length: 1 for a regular element, towards 0 for
 * slivers, needles and caps. */
static double element_quality(const sinew_bbw *b, size_t e)
{
    const uint32_t *v = b->elements + e * b->per;
    double sum2 = 0.0;
    for (uint32_t i = 0; i < b->per; ++i)
        for (uint32_t j = i + 1; j < b->per; ++j) {
            const double *p = b->positions + 3 * (size_t)v[i], *q = b->positions + 3 * (size_t)v[j];
            for (int a = 0; a < 3; ++a) sum2 += (p[a] - q[a]) * (p[a] - q[a]);
        }
    double grad[4][3], measure = 0.0;
    if (!sn_bbw_element_gradients(b, e, grad, &measure)) return 0.0;
    /* The regular element with the same root mean square edge length l:
     * area sqrt(3)/4 l^2, volume l^3 / (6 sqrt(2)). */
    if (b->dim == 2) {
        double l2 = sum2 / 3.0;
        return l2 > 0.0 ? measure / (sqrt(3.0) / 4.0 * l2) : 0.0;
    }
    double l = sqrt(sum2 / 6.0);
    return l > 0.0 ? measure / (l * l * l / (6.0 * sqrt(2.0))) : 0.0;
}

sn_bbw_quality_summary sn_bbw_quality_summary_of(const sinew_bbw *b)
{
    sn_bbw_quality_summary s = {SIZE_MAX, INFINITY, 0};
    for (size_t e = 0; e < b->element_count; ++e) {
        double q = element_quality(b, e);
        if (q < SN_BBW_POOR_QUALITY) ++s.poor_count;
        if (q < s.worst_quality) {
            s.worst_quality = q;
            s.worst = e;
        }
    }
    return s;
}
