/*
 * Sparse matrix assembly and the few products the solvers need.
 */
#include "linalg/sparse.h"

#include <string.h>

void sn_sparse_free(const sn_env *env, sn_sparse *a)
{
    sn_free(env, a->colptr);
    sn_free(env, a->rows);
    sn_free(env, a->vals);
    memset(a, 0, sizeof *a);
}

static sinew_result sparse_alloc(const sn_env *env, size_t n, size_t nnz, sn_sparse *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->colptr = sn_calloc_array(env, n + 1, sizeof(size_t), "sparse column offsets");
    out->rows = sn_alloc_array(env, nnz, sizeof(uint32_t), "sparse row indices");
    out->vals = sn_alloc_array(env, nnz, sizeof(double), "sparse values");
    if (!out->colptr || !out->rows || !out->vals) {
        sinew_result r = sn_alloc_failure();
        sn_sparse_free(env, out);
        return r;
    }
    return SINEW_OK;
}

/* Sorts one column's (row, value) pairs by row; columns are short, so an
 * insertion sort is the quickest. */
static void sort_column(uint32_t *rows, double *vals, size_t len)
{
    for (size_t i = 1; i < len; ++i) {
        uint32_t r = rows[i];
        double v = vals[i];
        size_t j = i;
        while (j > 0 && rows[j - 1] > r) {
            rows[j] = rows[j - 1];
            vals[j] = vals[j - 1];
            --j;
        }
        rows[j] = r;
        vals[j] = v;
    }
}

sinew_result sn_sparse_from_triplets(const sn_env *env, size_t n, size_t count, const uint32_t *rows,
                                     const uint32_t *cols, const double *vals, sn_sparse *out)
{
    sn_sparse t;
    sinew_result r = sparse_alloc(env, n, count, &t);
    if (r != SINEW_OK) return r;
    size_t *next = sn_alloc_array(env, n + 1, sizeof(size_t), "sparse assembly cursor");
    if (!next) {
        r = sn_alloc_failure();
        sn_sparse_free(env, &t);
        return r;
    }
    for (size_t k = 0; k < count; ++k) t.colptr[cols[k] + 1]++;
    for (size_t j = 0; j < n; ++j) t.colptr[j + 1] += t.colptr[j];
    memcpy(next, t.colptr, (n + 1) * sizeof(size_t));
    for (size_t k = 0; k < count; ++k) {
        size_t p = next[cols[k]]++;
        t.rows[p] = rows[k];
        t.vals[p] = vals[k];
    }
    /* Sort each column and sum duplicates in place, compacting as we go. */
    size_t w = 0;
    for (size_t j = 0; j < n; ++j) {
        size_t b = t.colptr[j], e = t.colptr[j + 1];
        sort_column(t.rows + b, t.vals + b, e - b);
        t.colptr[j] = w;
        for (size_t p = b; p < e; ++p) {
            if (w > t.colptr[j] && t.rows[w - 1] == t.rows[p]) {
                t.vals[w - 1] += t.vals[p];
            } else {
                t.rows[w] = t.rows[p];
                t.vals[w] = t.vals[p];
                ++w;
            }
        }
    }
    t.colptr[n] = w;
    sn_free(env, next);
    *out = t;
    return SINEW_OK;
}

/* Two-pass Gustavson product: count the pattern, then fill. `mark` holds the
 * last column that touched each row, `acc` the running values. */
sinew_result sn_sparse_sandwich(const sn_env *env, const sn_sparse *a, const double *d, sn_sparse *out)
{
    size_t n = a->n;
    size_t *mark = sn_alloc_array(env, n, sizeof(size_t), "product marks");
    double *acc = sn_calloc_array(env, n, sizeof(double), "product accumulator");
    size_t *colptr = sn_calloc_array(env, n + 1, sizeof(size_t), "product column offsets");
    sinew_result r = SINEW_OK;
    if (!mark || !acc || !colptr) {
        r = sn_alloc_failure();
        goto done;
    }
    for (size_t i = 0; i < n; ++i) mark[i] = SIZE_MAX;
    for (size_t j = 0; j < n; ++j) {
        size_t cnt = 0;
        for (size_t p = a->colptr[j]; p < a->colptr[j + 1]; ++p) {
            uint32_t k = a->rows[p];
            for (size_t q = a->colptr[k]; q < a->colptr[k + 1]; ++q) {
                uint32_t i = a->rows[q];
                if (mark[i] != j) {
                    mark[i] = j;
                    ++cnt;
                }
            }
        }
        colptr[j + 1] = colptr[j] + cnt;
    }
    sn_sparse t;
    r = sparse_alloc(env, n, colptr[n], &t);
    if (r != SINEW_OK) goto done;
    memcpy(t.colptr, colptr, (n + 1) * sizeof(size_t));
    for (size_t i = 0; i < n; ++i) mark[i] = SIZE_MAX;
    for (size_t j = 0; j < n; ++j) {
        size_t w = t.colptr[j];
        /* A is symmetric, so column j of A equals row j: (A D A)(:, j) =
         * sum_k A(:, k) d_k A(k, j). */
        for (size_t p = a->colptr[j]; p < a->colptr[j + 1]; ++p) {
            uint32_t k = a->rows[p];
            double s = a->vals[p] * d[k];
            for (size_t q = a->colptr[k]; q < a->colptr[k + 1]; ++q) {
                uint32_t i = a->rows[q];
                if (mark[i] != j) {
                    mark[i] = j;
                    t.rows[w++] = i;
                    acc[i] = 0.0;
                }
                acc[i] += a->vals[q] * s;
            }
        }
        size_t b = t.colptr[j];
        for (size_t p = b; p < w; ++p) t.vals[p] = acc[t.rows[p]];
        sort_column(t.rows + b, t.vals + b, w - b);
    }
    *out = t;
done:
    sn_free(env, mark);
    sn_free(env, acc);
    sn_free(env, colptr);
    return r;
}

sinew_result sn_sparse_add(const sn_env *env, const sn_sparse *a, double alpha, const sn_sparse *b,
                           sn_sparse *out)
{
    size_t n = a->n, cap;
    if (!sn_add_size(a->colptr[n], b->colptr[n], &cap)) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "sparse sum too large");
    sn_sparse t;
    sinew_result r = sparse_alloc(env, n, cap, &t);
    if (r != SINEW_OK) return r;
    size_t w = 0;
    for (size_t j = 0; j < n; ++j) {
        size_t p = a->colptr[j], pe = a->colptr[j + 1];
        size_t q = b->colptr[j], qe = b->colptr[j + 1];
        t.colptr[j] = w;
        while (p < pe || q < qe) {
            if (q >= qe || (p < pe && a->rows[p] < b->rows[q])) {
                t.rows[w] = a->rows[p];
                t.vals[w++] = a->vals[p++];
            } else if (p >= pe || b->rows[q] < a->rows[p]) {
                t.rows[w] = b->rows[q];
                t.vals[w++] = alpha * b->vals[q++];
            } else {
                t.rows[w] = a->rows[p];
                t.vals[w++] = a->vals[p++] + alpha * b->vals[q++];
            }
        }
    }
    t.colptr[n] = w;
    *out = t;
    return SINEW_OK;
}

sinew_result sn_sparse_restrict(const sn_env *env, const sn_sparse *a, const uint32_t *map, size_t sub_n,
                                sn_sparse *out)
{
    size_t nnz = 0;
    for (size_t j = 0; j < a->n; ++j) {
        if (map[j] == UINT32_MAX) continue;
        for (size_t p = a->colptr[j]; p < a->colptr[j + 1]; ++p) nnz += map[a->rows[p]] != UINT32_MAX;
    }
    sn_sparse t;
    sinew_result r = sparse_alloc(env, sub_n, nnz, &t);
    if (r != SINEW_OK) return r;
    /* Kept indices keep their relative order only if map is monotone; the
     * callers number kept indices in increasing order, so columns fill in
     * sequence and rows stay sorted. */
    size_t w = 0, col = 0;
    for (size_t j = 0; j < a->n; ++j) {
        if (map[j] == UINT32_MAX) continue;
        t.colptr[col++] = w;
        for (size_t p = a->colptr[j]; p < a->colptr[j + 1]; ++p) {
            uint32_t i = map[a->rows[p]];
            if (i == UINT32_MAX) continue;
            t.rows[w] = i;
            t.vals[w++] = a->vals[p];
        }
    }
    t.colptr[sub_n] = w;
    *out = t;
    return SINEW_OK;
}

void sn_sparse_multiply(const sn_sparse *a, const double *x, double *y)
{
    memset(y, 0, a->n * sizeof(double));
    for (size_t j = 0; j < a->n; ++j) {
        double xj = x[j];
        for (size_t p = a->colptr[j]; p < a->colptr[j + 1]; ++p) y[a->rows[p]] += a->vals[p] * xj;
    }
}

void sn_sparse_multiply_columns(const sn_sparse *a, const double *x, size_t m, double *y)
{
    memset(y, 0, a->n * m * sizeof(double));
    /* Column j of a symmetric A is its row j: scatter x's row j into y. */
    for (size_t j = 0; j < a->n; ++j) {
        const double *xj = x + j * m;
        for (size_t p = a->colptr[j]; p < a->colptr[j + 1]; ++p) {
            double v = a->vals[p];
            double *yi = y + (size_t)a->rows[p] * m;
            for (size_t h = 0; h < m; ++h) yi[h] += v * xj[h];
        }
    }
}

double sn_sparse_get(const sn_sparse *a, uint32_t i, uint32_t j)
{
    size_t lo = a->colptr[j], hi = a->colptr[j + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->rows[mid] < i) lo = mid + 1;
        else hi = mid;
    }
    return lo < a->colptr[j + 1] && a->rows[lo] == i ? a->vals[lo] : 0.0;
}
