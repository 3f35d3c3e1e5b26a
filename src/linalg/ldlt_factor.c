/*
 * Numeric phase of the sparse LDL^T (ldlt.h): supernodal and left-looking.
 * Supernode J is assembled from A, then every earlier supernode K with rows
 * in J's columns subtracts its contribution L_K D_K L_K^T (K waits in a
 * list under the supernode of its next unused row), then J's own columns
 * are finished one by one. All arithmetic runs down dense columns of the
 * blocks; indices are looked up once per (K, column of J), not per entry.
 */
#include "linalg/ldlt.h"
#include "linalg/ldlt_kernels.h"

#include <math.h>
#include <string.h>

#define NONE UINT32_MAX

/* The portable update (ldlt_kernels.h): four source columns per pass over
 * a target column, so the target is loaded and stored once per four. */
SN_NO_COVERAGE static void update_portable(double *c, size_t ldc, size_t len, size_t nc, const double *a,
                                           size_t lda, const double *w, size_t kk)
{
    for (size_t j = 0; j < nc; ++j) {
        double *cj = c + j * ldc;
        size_t t = 0;
        for (; t + 4 <= kk; t += 4) {
            const double *x0 = a + t * lda, *x1 = x0 + lda, *x2 = x1 + lda, *x3 = x2 + lda;
            double w0 = w[t * nc + j], w1 = w[(t + 1) * nc + j], w2 = w[(t + 2) * nc + j], w3 = w[(t + 3) * nc + j];
            for (size_t i = 0; i < len; ++i) cj[i] -= w0 * x0[i] + w1 * x1[i] + w2 * x2[i] + w3 * x3[i];
        }
        for (; t < kk; ++t) {
            const double *x0 = a + t * lda;
            double w0 = w[t * nc + j];
            for (size_t i = 0; i < len; ++i) cj[i] -= w0 * x0[i];
        }
    }
}

sn_ldlt_update_fn sn_ldlt_update_portable(void) { return update_portable; }

sn_ldlt_update_fn sn_ldlt_update_best(void)
{
    sn_ldlt_update_fn update = sn_ldlt_update_avx512();
    if (!update) update = sn_ldlt_update_avx2();
    return update ? update : update_portable;
}

typedef struct factor_work {
    uint32_t *map;     /* row -> local row of the supernode being factorised */
    size_t *next_row;  /* per supernode: index of its next unused row below it */
    uint32_t *head;    /* per supernode: first supernode waiting to update it */
    uint32_t *link;    /* per supernode: the next in the same list */
    double *column, *weight; /* SN_LDLT_PANEL columns of max_rows each */
    sn_ldlt_update_fn update;
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

/* Subtracts supernode k's contribution to the columns of supernode j,
 * SN_LDLT_PANEL target columns at a time. */
static void update_from(const sn_ldlt *f, factor_work *fw, size_t k, size_t j)
{
    sn_ldlt_block src = sn_ldlt_block_of(f, k), dst_block = sn_ldlt_block_of(f, j);
    size_t kk = src.k, rk = src.r, ldk = src.ld;
    const uint32_t *rows = src.rows;
    const double *block = src.vals, *d = f->diag + src.first;
    size_t c0 = dst_block.first, c1 = c0 + dst_block.k;
    size_t qa = fw->next_row[k], qb = qa;
    while (qb < rk && rows[qb] < c1) ++qb;
    for (size_t q0 = qa; q0 < qb; q0 += SN_LDLT_PANEL) {
        /* Column rows[q] of J gets L_K(rows q.., :) D_K L_K(q, :)^T; the
         * panel computes every column from row q0, and each keeps its rows
         * from its own q on. */
        size_t nc = qb - q0 < SN_LDLT_PANEL ? qb - q0 : SN_LDLT_PANEL, len = rk - q0;
        for (size_t t = 0; t < kk; ++t)
            for (size_t c = 0; c < nc; ++c) fw->weight[t * nc + c] = d[t] * block[t * ldk + kk + q0 + c];
        memset(fw->column, 0, nc * len * sizeof(double));
        fw->update(fw->column, len, len, nc, block + kk + q0, ldk, fw->weight, kk);
        for (size_t c = 0; c < nc; ++c) {
            size_t q = q0 + c;
            const double *column = fw->column + c * len + c;
            double *dst = dst_block.vals + (rows[q] - c0) * dst_block.ld;
            for (size_t i = 0; i < rk - q; ++i) dst[fw->map[rows[q + i]]] += column[i];
        }
    }
    fw->next_row[k] = qb;
}

/* Finishes supernode j's columns, SN_LDLT_PANEL at a time: a panel takes
 * the updates of every column before it at once, then its own columns are
 * finished one by one (each updated by the panel's earlier ones, then
 * divided by its pivot). The panel's update also writes the strict upper
 * triangle of its diagonal block, which nothing reads. */
static sinew_result factor_block(sn_ldlt *f, factor_work *fw, size_t j, double dmin)
{
    sn_ldlt_block bl = sn_ldlt_block_of(f, j);
    size_t c0 = bl.first, k = bl.k, ld = bl.ld;
    double *block = bl.vals, *d = f->diag + c0;
    for (size_t t0 = 0; t0 < k; t0 += SN_LDLT_PANEL) {
        size_t nc = k - t0 < SN_LDLT_PANEL ? k - t0 : SN_LDLT_PANEL;
        if (t0) {
            for (size_t s = 0; s < t0; ++s)
                for (size_t c = 0; c < nc; ++c) fw->weight[s * nc + c] = d[s] * block[s * ld + t0 + c];
            fw->update(block + t0 * ld + t0, ld, ld - t0, nc, block + t0, ld, fw->weight, t0);
        }
        for (size_t t = t0; t < t0 + nc; ++t) {
            double *col = block + t * ld;
            for (size_t s = t0; s < t; ++s) fw->weight[s - t0] = d[s] * block[s * ld + t];
            fw->update(col + t, ld, ld - t, 1, block + t0 * ld + t, ld, fw->weight, t - t0);
            double pivot = col[t];
            if (!(pivot > dmin))
                return sn_fail(SINEW_ERROR_DEGENERATE, "matrix is not positive definite at row %u (pivot %g)",
                               f->perm[c0 + t], pivot);
            d[t] = pivot;
            double inv = 1.0 / pivot;
            for (size_t i = t + 1; i < ld; ++i) col[i] *= inv;
        }
    }
    return SINEW_OK;
}

sinew_result sn_ldlt_factor(const sn_env *env, sn_ldlt *f, const sn_sparse *a)
{
    return sn_ldlt_factor_with(env, f, a, sn_ldlt_update_best());
}

sinew_result sn_ldlt_factor_with(const sn_env *env, sn_ldlt *f, const sn_sparse *a, sn_ldlt_update_fn update)
{
    size_t n = f->n, ns = f->super_count;
    factor_work fw;
    fw.map = sn_alloc_array(env, n + 1, sizeof(uint32_t), "factor row map");
    fw.next_row = sn_alloc_array(env, ns + 1, sizeof(size_t), "factor supernode rows");
    fw.head = sn_alloc_array(env, ns + 1, sizeof(uint32_t), "factor update lists");
    fw.link = sn_alloc_array(env, ns + 1, sizeof(uint32_t), "factor update links");
    fw.column = sn_alloc_array(env, SN_LDLT_PANEL * (f->max_rows + 1), sizeof(double), "factor columns");
    fw.weight = sn_alloc_array(env, SN_LDLT_PANEL * (f->max_rows + 1), sizeof(double), "factor weights");
    fw.update = update;
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
