/*
 * Projections of a weight row onto the simplex or the box (project.h).
 */
#include "bbw/project.h"

void sn_bbw_project_simplex(double *v, size_t m, uint32_t *idx)
{
    /* Michelot's algorithm: drop entries below the running threshold until
     * none drops; the threshold then makes the kept entries sum to one. */
    size_t n = m;
    double sum = 0.0;
    for (size_t j = 0; j < m; ++j) {
        idx[j] = (uint32_t)j;
        sum += v[j];
    }
    double tau = (sum - 1.0) / (double)n;
    for (;;) {
        size_t w = 0;
        sum = 0.0;
        for (size_t k = 0; k < n; ++k) {
            if (v[idx[k]] > tau) {
                idx[w++] = idx[k];
                sum += v[idx[k]];
            }
        }
        if (w == n || w == 0) break;
        n = w;
        tau = (sum - 1.0) / (double)n;
    }
    for (size_t j = 0; j < m; ++j) v[j] = v[j] > tau ? v[j] - tau : 0.0;
}

/* Projection onto the simplex from a guess of the support, the row's
 * previous one (late in the iteration it nearly always still holds): the
 * threshold that guess implies is the projection's exactly when it keeps
 * that same support (the projection's threshold is unique); otherwise
 * Michelot's algorithm decides. */
void sn_bbw_project_simplex_near(double *v, const double *previous, size_t m, uint32_t *idx)
{
    double sum = 0.0;
    size_t n = 0;
    for (size_t j = 0; j < m; ++j)
        if (previous[j] > 0.0) {
            sum += v[j];
            ++n;
        }
    if (n) {
        double tau = (sum - 1.0) / (double)n;
        size_t j = 0;
        while (j < m && (previous[j] > 0.0) == (v[j] > tau)) ++j;
        if (j == m) {
            for (j = 0; j < m; ++j) v[j] = v[j] > tau ? v[j] - tau : 0.0;
            return;
        }
    }
    sn_bbw_project_simplex(v, m, idx);
}

void sn_bbw_project_row(double *v, size_t m, int exact, uint32_t *idx)
{
    if (exact) sn_bbw_project_simplex(v, m, idx);
    else sn_bbw_project_box(v, m);
}
