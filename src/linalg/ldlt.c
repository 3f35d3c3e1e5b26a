/*
 * Up-looking sparse LDL^T. Row k of L is the solution of a sparse triangular
 * system whose pattern is the set of elimination-tree paths from the nonzeros
 * of A's column k towards k; computing it row by row lets each column of L be
 * appended in increasing row order, with exactly the counts the symbolic
 * phase found.
 */
#include "linalg/ldlt.h"
#include "linalg/ldlt_kernels.h"

#include <math.h>
#include <string.h>

#include "linalg/ordering.h"

void sn_ldlt_free(const sn_env *env, sn_ldlt *f)
{
    sn_free(env, f->perm);
    sn_free(env, f->iperm);
    sn_free(env, f->parent);
    sn_free(env, f->up_colptr);
    sn_free(env, f->up_rows);
    sn_free(env, f->up_src);
    sn_free(env, f->colptr);
    sn_free(env, f->rows);
    sn_free(env, f->vals);
    sn_free(env, f->diag);
    memset(f, 0, sizeof *f);
}

size_t sn_ldlt_factor_nonzeros(const sn_ldlt *f)
{
    return f->colptr ? f->colptr[f->n] : 0;
}

/* Elimination tree and column counts of P A P^T (P given by perm/iperm):
 * the path from each nonzero A(i, k), i < k, up the tree until a vertex
 * already visited for row k. counts[i + 1] receives column i's count.
 * Returns the factorisation's multiply-add count, sum of counts squared. */
static double symbolic(const sn_sparse *a, const uint32_t *perm, const uint32_t *iperm, int32_t *parent,
                       size_t *counts, size_t *flag)
{
    size_t n = a->n;
    memset(counts, 0, (n + 1) * sizeof(size_t));
    for (size_t k = 0; k < n; ++k) {
        parent[k] = -1;
        flag[k] = k;
        uint32_t j = perm[k];
        for (size_t p = a->colptr[j]; p < a->colptr[j + 1]; ++p) {
            uint32_t i = iperm[a->rows[p]];
            while (i < k && flag[i] != k) {
                if (parent[i] == -1) parent[i] = (int32_t)k;
                counts[i + 1]++;
                flag[i] = k;
                i = (uint32_t)parent[i];
            }
        }
    }
    double flops = 0.0;
    for (size_t k = 0; k < n; ++k) flops += (double)counts[k + 1] * (double)counts[k + 1];
    return flops;
}

sinew_result sn_ldlt_analyse(const sn_env *env, const sn_sparse *a, const double *coords, sn_ldlt *out)
{
    size_t n = a->n;
    sn_ldlt f;
    memset(&f, 0, sizeof f);
    f.n = n;
    f.perm = sn_alloc_array(env, n, sizeof(uint32_t), "factor permutation");
    f.iperm = sn_alloc_array(env, n, sizeof(uint32_t), "factor inverse permutation");
    f.parent = sn_alloc_array(env, n, sizeof(int32_t), "elimination tree");
    f.up_colptr = sn_calloc_array(env, n + 1, sizeof(size_t), "factor input offsets");
    f.colptr = sn_calloc_array(env, n + 1, sizeof(size_t), "factor column offsets");
    f.diag = sn_alloc_array(env, n, sizeof(double), "factor diagonal");
    size_t *flag = sn_alloc_array(env, n, sizeof(size_t), "factor marks");
    uint32_t *alt = coords ? sn_alloc_array(env, n, sizeof(uint32_t), "alternative permutation") : NULL;
    uint32_t *alt_inv = coords ? sn_alloc_array(env, n, sizeof(uint32_t), "alternative inverse permutation") : NULL;
    sinew_result r = SINEW_OK;
    if (!f.perm || !f.iperm || !f.parent || !f.up_colptr || !f.colptr || !f.diag || !flag ||
        (coords && (!alt || !alt_inv))) {
        r = sn_alloc_failure();
        goto fail;
    }
    r = sn_order_nested_dissection(env, a, f.perm);
    if (r != SINEW_OK) goto fail;
    for (size_t k = 0; k < n; ++k) f.iperm[f.perm[k]] = (uint32_t)k;
    double cost = symbolic(a, f.perm, f.iperm, f.parent, f.colptr, flag);
    if (coords) {
        /* Two orderings, keep the cheaper: the symbolic count costs a small
         * fraction of the factorisation it can save. */
        if ((r = sn_order_geometric_dissection(env, a, coords, alt)) != SINEW_OK) goto fail;
        for (size_t k = 0; k < n; ++k) alt_inv[alt[k]] = (uint32_t)k;
        double alt_cost = symbolic(a, alt, alt_inv, f.parent, f.colptr, flag);
        if (alt_cost < cost) {
            memcpy(f.perm, alt, n * sizeof(uint32_t));
            memcpy(f.iperm, alt_inv, n * sizeof(uint32_t));
        } else {
            symbolic(a, f.perm, f.iperm, f.parent, f.colptr, flag);
        }
    }

    /* Upper triangle of P A P^T by columns. */
    for (size_t j = 0; j < n; ++j) {
        uint32_t nj = f.iperm[j];
        for (size_t p = a->colptr[j]; p < a->colptr[j + 1]; ++p)
            if (f.iperm[a->rows[p]] <= nj) f.up_colptr[nj + 1]++;
    }
    for (size_t k = 0; k < n; ++k) f.up_colptr[k + 1] += f.up_colptr[k];
    size_t unz = f.up_colptr[n];
    f.up_rows = sn_alloc_array(env, unz, sizeof(uint32_t), "factor input rows");
    f.up_src = sn_alloc_array(env, unz, sizeof(size_t), "factor input sources");
    if (!f.up_rows || !f.up_src) {
        r = sn_alloc_failure();
        goto fail;
    }
    for (size_t k = 0; k < n; ++k) flag[k] = f.up_colptr[k];
    for (size_t j = 0; j < n; ++j) {
        uint32_t nj = f.iperm[j];
        for (size_t p = a->colptr[j]; p < a->colptr[j + 1]; ++p) {
            uint32_t ni = f.iperm[a->rows[p]];
            if (ni > nj) continue;
            size_t q = flag[nj]++;
            f.up_rows[q] = ni;
            f.up_src[q] = p;
        }
    }
    for (size_t k = 0; k < n; ++k) {
        if (!sn_add_size(f.colptr[k + 1], f.colptr[k], &f.colptr[k + 1])) {
            r = sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "sparse factor too large");
            goto fail;
        }
    }
    f.rows = sn_alloc_array(env, f.colptr[n], sizeof(uint32_t), "factor rows");
    f.vals = sn_alloc_array(env, f.colptr[n], sizeof(double), "factor values");
    if (!f.rows || !f.vals) {
        r = sn_alloc_failure();
        goto fail;
    }
    sn_free(env, flag);
    sn_free(env, alt);
    sn_free(env, alt_inv);
    *out = f;
    return SINEW_OK;
fail:
    sn_free(env, flag);
    sn_free(env, alt);
    sn_free(env, alt_inv);
    sn_ldlt_free(env, &f);
    return r;
}

sinew_result sn_ldlt_factor(const sn_env *env, sn_ldlt *f, const sn_sparse *a)
{
    size_t n = f->n;
    double *y = sn_calloc_array(env, n, sizeof(double), "factor row values");
    uint32_t *pattern = sn_alloc_array(env, n, sizeof(uint32_t), "factor row pattern");
    size_t *flag = sn_alloc_array(env, n, sizeof(size_t), "factor marks");
    size_t *fill = sn_alloc_array(env, n, sizeof(size_t), "factor column fill");
    sinew_result r = SINEW_OK;
    if (!y || !pattern || !flag || !fill) {
        r = sn_alloc_failure();
        goto done;
    }
    /* Pivots are judged against the largest diagonal so the test is
     * independent of the matrix's scale. */
    double dmax = 0.0;
    for (size_t k = 0; k < n; ++k) {
        for (size_t p = f->up_colptr[k]; p < f->up_colptr[k + 1]; ++p)
            if (f->up_rows[p] == k && fabs(a->vals[f->up_src[p]]) > dmax) dmax = fabs(a->vals[f->up_src[p]]);
    }
    for (size_t k = 0; k < n; ++k) {
        fill[k] = f->colptr[k];
        flag[k] = k;
        size_t top = n;
        for (size_t p = f->up_colptr[k]; p < f->up_colptr[k + 1]; ++p) {
            uint32_t i = f->up_rows[p];
            y[i] += a->vals[f->up_src[p]];
            size_t len = 0;
            while (flag[i] != k) {
                pattern[len++] = i;
                flag[i] = k;
                i = (uint32_t)f->parent[i];
            }
            while (len > 0) pattern[--top] = pattern[--len];
        }
        double dk = y[k];
        y[k] = 0.0;
        for (; top < n; ++top) {
            uint32_t i = pattern[top];
            double yi = y[i];
            y[i] = 0.0;
            size_t end = fill[i];
            for (size_t p = f->colptr[i]; p < end; ++p) y[f->rows[p]] -= f->vals[p] * yi;
            double lki = yi / f->diag[i];
            dk -= lki * yi;
            f->rows[end] = (uint32_t)k;
            f->vals[end] = lki;
            fill[i] = end + 1;
        }
        if (!(dk > 1e-14 * dmax)) {
            r = sn_fail(SINEW_ERROR_DEGENERATE, "matrix is not positive definite at row %u (pivot %g)",
                        f->perm[k], dk);
            goto done;
        }
        f->diag[k] = dk;
    }
done:
    sn_free(env, y);
    sn_free(env, pattern);
    sn_free(env, flag);
    sn_free(env, fill);
    return r;
}

void sn_ldlt_solve(const sn_ldlt *f, double *x, size_t m, double *work)
{
    /* Several right-hand sides make rows wide enough for vector updates. */
    sn_ldlt_solve_fn fast = m >= 4 ? sn_ldlt_solve_avx2() : NULL;
    if (fast) {
        fast(f, x, m, work);
        return;
    }
    size_t n = f->n;
    for (size_t k = 0; k < n; ++k) memcpy(work + k * m, x + (size_t)f->perm[k] * m, m * sizeof(double));
    for (size_t j = 0; j < n; ++j) {
        const double *yj = work + j * m;
        for (size_t p = f->colptr[j]; p < f->colptr[j + 1]; ++p) {
            double l = f->vals[p];
            double *yi = work + (size_t)f->rows[p] * m;
            for (size_t h = 0; h < m; ++h) yi[h] -= l * yj[h];
        }
    }
    for (size_t j = 0; j < n; ++j) {
        double inv = 1.0 / f->diag[j];
        double *yj = work + j * m;
        for (size_t h = 0; h < m; ++h) yj[h] *= inv;
    }
    for (size_t j = n; j-- > 0;) {
        double *yj = work + j * m;
        for (size_t p = f->colptr[j]; p < f->colptr[j + 1]; ++p) {
            double l = f->vals[p];
            const double *yi = work + (size_t)f->rows[p] * m;
            for (size_t h = 0; h < m; ++h) yj[h] -= l * yi[h];
        }
    }
    for (size_t k = 0; k < n; ++k) memcpy(x + (size_t)f->perm[k] * m, work + k * m, m * sizeof(double));
}
