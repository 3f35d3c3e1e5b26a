/*
 * Numeric phase of the sparse LDL^T (ldlt.h): supernodal and left-looking.
 * Supernode J is assembled from A, then every earlier supernode K with rows
 * in J's columns subtracts its contribution L_K D_K L_K^T (K waits in a
 * list under the supernode of its next unused row), then J's own columns
 * are finished one by one. All arithmetic runs down dense columns of the
 * blocks; indices are looked up once per (K, column of J), not per entry.
 */
#include "linalg/ldlt.h"

#include <math.h>
#include <string.h>

#define NONE UINT32_MAX

/* c[i] -= sum over t < kk of w[t] * cols[t * ld + i], for i < len. Four
 * source columns per pass over c, so c is loaded and stored once per four. */
static void subtract_columns(double *c, size_t len, const double *cols, size_t ld, const double *w, size_t kk)
{
    size_t t = 0;
    for (; t + 4 <= kk; t += 4) {
        const double *x0 = cols + t * ld, *x1 = x0 + ld, *x2 = x1 + ld, *x3 = x2 + ld;
        double w0 = w[t], w1 = w[t + 1], w2 = w[t + 2], w3 = w[t + 3];
        for (size_t i = 0; i < len; ++i) c[i] -= w0 * x0[i] + w1 * x1[i] + w2 * x2[i] + w3 * x3[i];
    }
    for (; t < kk; ++t) {
        const double *x0 = cols + t * ld;
        double w0 = w[t];
        for (size_t i = 0; i < len; ++i) c[i] -= w0 * x0[i];
    }
}

typedef struct factor_work {
    uint32_t *map;     /* row -> local row of the supernode being factorised */
    size_t *next_row;  /* per supernode: index of its next unused row below it */
    uint32_t *head;    /* per supernode: first supernode waiting to update it */
    uint32_t *link;    /* per supernode: the next in the same list */
    double *column, *weight;
} factor_work;

/* Queues supernode k under the supernode owning its next unused row. */
static void enqueue(const sn_ldlt *f, factor_work *fw, size_t k)
{
    sn_ldlt_block bk = sn_ldlt_block_of(f, k);
    if (fw->next_row[k] >= bk.r) return;
    uint32_t target = f->super_of[bk.rows[fw->next_row[k]]];
    fw->link[k] = fw->head[target];
    fw->head[target] = (uint32_t)k;
}

/* Subtracts supernode k's contribution to the columns of supernode j. */
static void update_from(const sn_ldlt *f, factor_work *fw, size_t k, size_t j)
{
    sn_ldlt_block src = sn_ldlt_block_of(f, k), dst_block = sn_ldlt_block_of(f, j);
    size_t kk = src.k, rk = src.r, ldk = src.ld;
    const uint32_t *rows = src.rows;
    const double *block = src.vals, *d = f->diag + src.first;
    size_t c0 = dst_block.first, c1 = c0 + dst_block.k;
    size_t qa = fw->next_row[k], qb = qa;
    while (qb < rk && rows[qb] < c1) ++qb;
    for (size_t q = qa; q < qb; ++q) {
        /* Column rows[q] of J gets L_K(rows q.., :) D_K L_K(q, :)^T. */
        for (size_t t = 0; t < kk; ++t) fw->weight[t] = d[t] * block[t * ldk + kk + q];
        size_t len = rk - q;
        memset(fw->column, 0, len * sizeof(double));
        subtract_columns(fw->column, len, block + kk + q, ldk, fw->weight, kk);
        double *dst = dst_block.vals + (rows[q] - c0) * dst_block.ld;
        for (size_t i = 0; i < len; ++i) dst[fw->map[rows[q + i]]] += fw->column[i];
    }
    fw->next_row[k] = qb;
}

/* Finishes supernode j's columns: each takes the updates of the columns
 * before it in the block, then is divided by its pivot. */
static sinew_result factor_block(sn_ldlt *f, factor_work *fw, size_t j, double dmin)
{
    sn_ldlt_block bl = sn_ldlt_block_of(f, j);
    size_t c0 = bl.first, k = bl.k, ld = bl.ld;
    double *block = bl.vals, *d = f->diag + c0;
    for (size_t t = 0; t < k; ++t) {
        double *col = block + t * ld;
        for (size_t s = 0; s < t; ++s) fw->weight[s] = d[s] * block[s * ld + t];
        subtract_columns(col + t, ld - t, block + t, ld, fw->weight, t);
        double pivot = col[t];
        if (!(pivot > dmin))
            return sn_fail(SINEW_ERROR_DEGENERATE, "matrix is not positive definite at row %u (pivot %g)",
                           f->perm[c0 + t], pivot);
        d[t] = pivot;
        double inv = 1.0 / pivot;
        for (size_t i = t + 1; i < ld; ++i) col[i] *= inv;
    }
    return SINEW_OK;
}

sinew_result sn_ldlt_factor(const sn_env *env, sn_ldlt *f, const sn_sparse *a)
{
    size_t n = f->n, ns = f->super_count;
    factor_work fw;
    fw.map = sn_alloc_array(env, n + 1, sizeof(uint32_t), "factor row map");
    fw.next_row = sn_alloc_array(env, ns + 1, sizeof(size_t), "factor supernode rows");
    fw.head = sn_alloc_array(env, ns + 1, sizeof(uint32_t), "factor update lists");
    fw.link = sn_alloc_array(env, ns + 1, sizeof(uint32_t), "factor update links");
    fw.column = sn_alloc_array(env, f->max_rows + 1, sizeof(double), "factor column");
    fw.weight = sn_alloc_array(env, f->max_rows + 1, sizeof(double), "factor weights");
    sinew_result r = SINEW_OK;
    if (!fw.map || !fw.next_row || !fw.head || !fw.link || !fw.column || !fw.weight) {
        r = sn_alloc_failure();
        goto done;
    }
    /* Pivots are judged against the largest diagonal so the test is
     * independent of the matrix's scale. */
    double dmax = 0.0;
    for (size_t c = 0; c < n; ++c)
        for (size_t p = f->low_colptr[c]; p < f->low_colptr[c + 1]; ++p)
            if (f->low_rows[p] == c && fabs(a->vals[f->low_src[p]]) > dmax) dmax = fabs(a->vals[f->low_src[p]]);
    memset(f->super_vals, 0, sn_ldlt_block_values(f) * sizeof(double));
    for (size_t s = 0; s < ns; ++s) fw.head[s] = NONE;
    for (size_t j = 0; j < ns; ++j) {
        /* Assemble A's columns through the row map of this supernode. */
        sn_ldlt_block bl = sn_ldlt_block_of(f, j);
        for (size_t t = 0; t < bl.k; ++t) fw.map[bl.first + t] = (uint32_t)t;
        for (size_t q = 0; q < bl.r; ++q) fw.map[bl.rows[q]] = (uint32_t)(bl.k + q);
        for (size_t t = 0; t < bl.k; ++t) {
            size_t c = bl.first + t;
            for (size_t p = f->low_colptr[c]; p < f->low_colptr[c + 1]; ++p)
                bl.vals[t * bl.ld + fw.map[f->low_rows[p]]] += a->vals[f->low_src[p]];
        }
        for (uint32_t k2 = fw.head[j]; k2 != NONE;) {
            uint32_t after = fw.link[k2];
            update_from(f, &fw, k2, j);
            enqueue(f, &fw, k2);
            k2 = after;
        }
        if ((r = factor_block(f, &fw, j, 1e-14 * dmax)) != SINEW_OK) goto done;
        fw.next_row[j] = 0;
        enqueue(f, &fw, j);
    }
done:
    sn_free(env, fw.map);
    sn_free(env, fw.next_row);
    sn_free(env, fw.head);
    sn_free(env, fw.link);
    sn_free(env, fw.column);
    sn_free(env, fw.weight);
    return r;
}
