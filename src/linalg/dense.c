/* Dense LU with partial pivoting (linalg/dense.h): Doolittle's elimination,
 * row by row, in double. */
#include <math.h>

#include "linalg/dense.h"

bool sn_dense_lu_factor(double *a, size_t n, uint32_t *pivot, double tolerance, size_t *step)
{
    double largest = 0.0;
    for (size_t i = 0; i < n * n; ++i) largest = fmax(largest, fabs(a[i]));
    const double floor = tolerance * largest;
    for (size_t k = 0; k < n; ++k) {
        size_t best = k;
        for (size_t i = k + 1; i < n; ++i)
            if (fabs(a[i * n + k]) > fabs(a[best * n + k])) best = i;
        pivot[k] = (uint32_t)best;
        if (!(fabs(a[best * n + k]) > floor)) {
            *step = k;
            return false;
        }
        if (best != k)
            for (size_t j = 0; j < n; ++j) {
                double t = a[k * n + j];
                a[k * n + j] = a[best * n + j];
                a[best * n + j] = t;
            }
        const double inv = 1.0 / a[k * n + k];
        for (size_t i = k + 1; i < n; ++i) {
            double f = a[i * n + k] * inv;
            a[i * n + k] = f;
            if (f == 0.0) continue;
            for (size_t j = k + 1; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
        }
    }
    return true;
}

void sn_dense_lu_solve(const double *lu, size_t n, const uint32_t *pivot, double *b)
{
    for (size_t k = 0; k < n; ++k) {
        size_t p = pivot[k];
        if (p != k) {
            double t = b[k];
            b[k] = b[p];
            b[p] = t;
        }
    }
    for (size_t i = 1; i < n; ++i) {
        double s = b[i];
        for (size_t j = 0; j < i; ++j) s -= lu[i * n + j] * b[j];
        b[i] = s;
    }
    for (size_t i = n; i-- > 0;) {
        double s = b[i];
        for (size_t j = i + 1; j < n; ++j) s -= lu[i * n + j] * b[j];
        b[i] = s / lu[i * n + i];
    }
}
