/*
 * Projections of one vertex's weight row onto its feasible set: the
 * probability simplex (exact partition of unity) or the box [0, 1]
 * (per-handle variant). A leaf: used by the split, the polish and the
 * coarse start.
 */
#ifndef SN_BBW_PROJECT_H
#define SN_BBW_PROJECT_H

#include <stddef.h>
#include <stdint.h>

/* Projects v (m entries) onto the probability simplex in place; idx is
 * m entries of scratch. */
void sn_bbw_project_simplex(double *v, size_t m, uint32_t *idx);

/* The same projection, guessing the support from the row's previous value
 * (late in the iteration it nearly always still holds); the result is the
 * projection whatever the guess. */
void sn_bbw_project_simplex_near(double *v, const double *previous, size_t m, uint32_t *idx);

/* Clamps v (m entries) into [0, 1]. Plain comparisons, not fmin/fmax:
 * those are library calls unless the compiler may ignore NaN, and this
 * runs on every cell every iteration. */
static inline void sn_bbw_project_box(double *v, size_t m)
{
    for (size_t j = 0; j < m; ++j) v[j] = v[j] < 0.0 ? 0.0 : v[j] > 1.0 ? 1.0 : v[j];
}

/* Projects a weight row onto its feasible set: the simplex when exact,
 * else the box. */
void sn_bbw_project_row(double *v, size_t m, int exact, uint32_t *idx);

#endif /* SN_BBW_PROJECT_H */
