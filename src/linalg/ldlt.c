/*
 * Symbolic phase of the sparse LDL^T (ldlt.h): ordering, postordered
 * elimination tree, column patterns, supernodes and the block layout.
 */
#include "linalg/ldlt.h"

#include <string.h>

#include "linalg/ordering.h"

/* Zeros a supernode may carry, relative to its true entries, when a chain
 * column joins it: a few explicit zeros buy longer dense runs, which the
 * blocked factorisation and solves process far faster than short ones. */
#define SN_LDLT_RELAX 0.15
/* Absolute allowance, so that small runs near the leaves still merge. */
#define SN_LDLT_RELAX_ENTRIES 64

void sn_ldlt_free(const sn_env *env, sn_ldlt *f)
{
    sn_free(env, f->perm);
    sn_free(env, f->iperm);
    sn_free(env, f->parent);
    sn_free(env, f->low_colptr);
    sn_free(env, f->low_rows);
    sn_free(env, f->low_src);
    sn_free(env, f->diag);
    sn_free(env, f->super_first);
    sn_free(env, f->super_of);
    sn_free(env, f->super_rowptr);
    sn_free(env, f->super_rows);
    sn_free(env, f->super_valptr);
    sn_free(env, f->super_vals);
    memset(f, 0, sizeof *f);
}

size_t sn_ldlt_factor_nonzeros(const sn_ldlt *f) { return f->nonzeros; }

size_t sn_ldlt_block_values(const sn_ldlt *f)
{
    return f->super_valptr ? f->super_valptr[f->super_count] : 0;
}

/* Elimination tree and column counts of P A P^T (P given by perm/iperm):
 * the path from each nonzero A(i, k), i < k, up the tree until a vertex
 * already visited for row k. counts[i + 1] receives column i's count; with
 * rows given, column i's pattern is also written at rows + counts-so-far
 * (counts must then hold the column offsets, and is advanced).
 * Returns the factorisation's multiply-add count, sum of counts squared. */
static double symbolic(const sn_sparse *a, const uint32_t *perm, const uint32_t *iperm, int32_t *parent,
                       size_t *counts, size_t *flag, uint32_t *rows)
{
    size_t n = a->n;
    if (!rows) memset(counts, 0, (n + 1) * sizeof(size_t));
    for (size_t k = 0; k < n; ++k) {
        parent[k] = -1;
        flag[k] = k;
        uint32_t j = perm[k];
        for (size_t p = a->colptr[j]; p < a->colptr[j + 1]; ++p) {
            uint32_t i = iperm[a->rows[p]];
            while (i < k && flag[i] != k) {
                if (parent[i] == -1) parent[i] = (int32_t)k;
                if (rows) rows[counts[i]++] = (uint32_t)k;
                else counts[i + 1]++;
                flag[i] = k;
                i = (uint32_t)parent[i];
            }
        }
    }
    double flops = 0.0;
    if (!rows)
        for (size_t k = 0; k < n; ++k) flops += (double)counts[k + 1] * (double)counts[k + 1];
    return flops;
}

/* Renumbers perm so the elimination tree is postordered (every subtree
 * numbered consecutively, a parent right after its last child): chains
 * j -> j + 1 then run through whole separators, and supernodes get long.
 * The fill is unchanged. Uses next (n) and stack (n) as scratch. */
static void postorder(size_t n, const int32_t *parent, uint32_t *perm, uint32_t *iperm, uint32_t *head,
                      uint32_t *next, uint32_t *stack)
{
    for (size_t k = 0; k < n; ++k) head[k] = UINT32_MAX;
    /* Children lists, built backwards so each list is in increasing order. */
    for (size_t k = n; k-- > 0;) {
        if (parent[k] < 0) continue;
        next[k] = head[parent[k]];
        head[parent[k]] = (uint32_t)k;
    }
    size_t count = 0;
    for (size_t root = 0; root < n; ++root) {
        if (parent[root] >= 0) continue;
        size_t top = 0;
        stack[top++] = (uint32_t)root;
        while (top > 0) {
            uint32_t v = stack[top - 1];
            uint32_t child = head[v];
            if (child == UINT32_MAX) {
                --top;
                iperm[v] = (uint32_t)count++; /* iperm used as old -> post here */
            } else {
                head[v] = next[child];
                stack[top++] = child;
            }
        }
    }
    /* perm[post] = perm[old]; stack serves as the copy of perm. */
    memcpy(stack, perm, n * sizeof(uint32_t));
    for (size_t k = 0; k < n; ++k) perm[iperm[k]] = stack[k];
    for (size_t k = 0; k < n; ++k) iperm[perm[k]] = (uint32_t)k;
}

/* Supernodal partition and block layout from the column patterns. */
static sinew_result layout_supernodes(const sn_env *env, sn_ldlt *f, const size_t *colptr, const uint32_t *rows,
                                      uint32_t *first)
{
    size_t n = f->n, count = 0;
    /* Extend a run along parent[j] == j + 1 while its dense block stays
     * within the zero allowance (with parent[j] == j + 1, column j's rows
     * past j + 1 are among column j + 1's, so the last column's rows are the
     * run's rows below it). */
    for (size_t j = 0; j < n;) {
        size_t c0 = j, actual = colptr[j + 1] - colptr[j];
        while (j + 1 < n && f->parent[j] == (int32_t)(j + 1)) {
            size_t k = j + 2 - c0, r = colptr[j + 2] - colptr[j + 1];
            size_t joined = actual + r, stored = k * (k - 1) / 2 + k * r;
            if ((double)stored > (double)joined * (1.0 + SN_LDLT_RELAX) + SN_LDLT_RELAX_ENTRIES) break;
            actual = joined;
            ++j;
        }
        ++j;
        first[count++] = (uint32_t)c0;
    }
    f->super_count = count;
    f->super_first = sn_alloc_array(env, count + 1, sizeof(uint32_t), "supernode columns");
    f->super_of = sn_alloc_array(env, n + 1, sizeof(uint32_t), "column supernodes");
    f->super_rowptr = sn_alloc_array(env, count + 1, sizeof(size_t), "supernode row offsets");
    f->super_valptr = sn_alloc_array(env, count + 1, sizeof(size_t), "supernode value offsets");
    if (!f->super_first || !f->super_of || !f->super_rowptr || !f->super_valptr) return sn_alloc_failure();
    memcpy(f->super_first, first, count * sizeof(uint32_t));
    f->super_first[count] = (uint32_t)n;
    f->super_rowptr[0] = f->super_valptr[0] = 0;
    f->max_rows = 0;
    for (size_t s = 0; s < count; ++s) {
        size_t c0 = f->super_first[s], c1 = f->super_first[s + 1], k = c1 - c0;
        size_t r = colptr[c1] - colptr[c1 - 1], block;
        for (size_t j = c0; j < c1; ++j) f->super_of[j] = (uint32_t)s;
        if (!sn_mul_size(k, k + r, &block) || !sn_add_size(f->super_valptr[s], block, &f->super_valptr[s + 1]))
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "sparse factor too large");
        f->super_rowptr[s + 1] = f->super_rowptr[s] + r;
        if (k + r > f->max_rows) f->max_rows = k + r;
    }
    f->super_rows = sn_alloc_array(env, f->super_rowptr[count] + 1, sizeof(uint32_t), "supernode rows");
    f->super_vals = sn_alloc_array(env, f->super_valptr[count] + 1, sizeof(double), "supernode values");
    if (!f->super_rows || !f->super_vals) return sn_alloc_failure();
    for (size_t s = 0; s < count; ++s) {
        size_t last = f->super_first[s + 1] - 1;
        memcpy(f->super_rows + f->super_rowptr[s], rows + colptr[last],
               (colptr[last + 1] - colptr[last]) * sizeof(uint32_t));
    }
    return SINEW_OK;
}

/* Lower triangle of P A P^T by columns, with each value's source. */
static sinew_result lower_structure(const sn_env *env, const sn_sparse *a, sn_ldlt *f)
{
    size_t n = f->n;
    f->low_colptr = sn_calloc_array(env, n + 1, sizeof(size_t), "factor input offsets");
    if (!f->low_colptr) return sn_alloc_failure();
    for (size_t c = 0; c < n; ++c) {
        uint32_t j = f->perm[c];
        size_t count = 0;
        for (size_t p = a->colptr[j]; p < a->colptr[j + 1]; ++p) count += f->iperm[a->rows[p]] >= c;
        f->low_colptr[c + 1] = f->low_colptr[c] + count;
    }
    f->low_rows = sn_alloc_array(env, f->low_colptr[n] + 1, sizeof(uint32_t), "factor input rows");
    f->low_src = sn_alloc_array(env, f->low_colptr[n] + 1, sizeof(size_t), "factor input sources");
    if (!f->low_rows || !f->low_src) return sn_alloc_failure();
    for (size_t c = 0; c < n; ++c) {
        uint32_t j = f->perm[c];
        size_t q = f->low_colptr[c];
        for (size_t p = a->colptr[j]; p < a->colptr[j + 1]; ++p) {
            uint32_t i = f->iperm[a->rows[p]];
            if (i < c) continue;
            f->low_rows[q] = i;
            f->low_src[q++] = p;
        }
    }
    return SINEW_OK;
}

/* Analysis of A for the permutation in *f (perm, iperm and its elimination
 * tree in parent set; diag allocated): postorder, column counts and
 * patterns, supernodes, the map from A's values. colptr, flag, alt, alt_inv
 * and scratch are n + 1 entries each, scratch for the passes. */
static sinew_result finish_analysis(const sn_env *env, const sn_sparse *a, sn_ldlt *f, size_t *colptr, size_t *flag,
                                    uint32_t *alt, uint32_t *alt_inv, uint32_t *scratch)
{
    size_t n = a->n;
    postorder(n, f->parent, f->perm, f->iperm, alt, alt_inv, scratch);
    symbolic(a, f->perm, f->iperm, f->parent, colptr, flag, NULL);
    for (size_t k = 0; k < n; ++k)
        if (!sn_add_size(colptr[k + 1], colptr[k], &colptr[k + 1]))
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "sparse factor too large");
    f->nonzeros = colptr[n];
    uint32_t *rows = sn_alloc_array(env, colptr[n] + 1, sizeof(uint32_t), "factor rows");
    /* Second pass writes the patterns through a copy of the offsets. */
    size_t *fill = sn_alloc_array(env, n + 1, sizeof(size_t), "factor column fill");
    sinew_result r = SINEW_OK;
    if (!rows || !fill) {
        r = sn_alloc_failure();
    } else {
        memcpy(fill, colptr, (n + 1) * sizeof(size_t));
        symbolic(a, f->perm, f->iperm, f->parent, fill, flag, rows);
        if ((r = layout_supernodes(env, f, colptr, rows, alt)) == SINEW_OK) r = lower_structure(env, a, f);
    }
    sn_free(env, fill);
    sn_free(env, rows);
    return r;
}

/* The analyses: the ordering given (order, n entries, order[new] = old);
 * with coords and `mixed`, the mixed dissection; with coords alone, the
 * cheaper of the graph and the geometric dissections; without coords, the
 * graph dissection. The mixed one takes a breadth-first level wherever no
 * plane cut is smaller, so the graph one, whose separators are all such
 * levels, does not need to compete with it: it never won on the BBW rig
 * set's 47 volumes (the mixed one was up to 13 times cheaper), and
 * computing it took about 0.3 s of the 40-bone figure's 4.5 s bind. */
static sinew_result analyse(const sn_env *env, const sn_sparse *a, const double *coords, const uint32_t *order,
                            int mixed, sn_ldlt *out)
{
    size_t n = a->n;
    sn_ldlt f;
    memset(&f, 0, sizeof f);
    f.n = n;
    f.perm = sn_alloc_array(env, n + 1, sizeof(uint32_t), "factor permutation");
    f.iperm = sn_alloc_array(env, n + 1, sizeof(uint32_t), "factor inverse permutation");
    f.parent = sn_alloc_array(env, n + 1, sizeof(int32_t), "elimination tree");
    f.diag = sn_alloc_array(env, n + 1, sizeof(double), "factor diagonal");
    size_t *colptr = sn_calloc_array(env, n + 1, sizeof(size_t), "factor column offsets");
    size_t *flag = sn_alloc_array(env, n + 1, sizeof(size_t), "factor marks");
    uint32_t *alt = sn_alloc_array(env, n + 1, sizeof(uint32_t), "alternative permutation");
    uint32_t *alt_inv = sn_alloc_array(env, n + 1, sizeof(uint32_t), "alternative inverse permutation");
    uint32_t *scratch = sn_alloc_array(env, n + 1, sizeof(uint32_t), "postorder scratch");
    sinew_result r = SINEW_OK;
    if (!f.perm || !f.iperm || !f.parent || !f.diag || !colptr || !flag || !alt || !alt_inv || !scratch) {
        r = sn_alloc_failure();
        goto done;
    }
    const int compete = !order && coords && !mixed;
    if (order) {
        memcpy(f.perm, order, n * sizeof(uint32_t));
    } else if (coords && mixed) {
        if ((r = sn_order_mixed_dissection(env, a, coords, f.perm)) != SINEW_OK) goto done;
    } else if ((r = sn_order_nested_dissection(env, a, f.perm)) != SINEW_OK) {
        goto done;
    }
    for (size_t k = 0; k < n; ++k) f.iperm[f.perm[k]] = (uint32_t)k;
    double cost = symbolic(a, f.perm, f.iperm, f.parent, colptr, flag, NULL);
    if (compete) {
        /* The graph ordering against the geometric one, the cheaper kept:
         * the symbolic count costs a small fraction of the factorisation
         * it can save. */
        if ((r = sn_order_geometric_dissection(env, a, coords, alt)) != SINEW_OK) goto done;
        for (size_t k = 0; k < n; ++k) alt_inv[alt[k]] = (uint32_t)k;
        double alt_cost = symbolic(a, alt, alt_inv, f.parent, colptr, flag, NULL);
        if (alt_cost < cost) {
            cost = alt_cost;
            memcpy(f.perm, alt, n * sizeof(uint32_t));
            memcpy(f.iperm, alt_inv, n * sizeof(uint32_t));
        } else {
            symbolic(a, f.perm, f.iperm, f.parent, colptr, flag, NULL); /* the kept one's tree back */
        }
    }
    f.operations = cost;
    r = finish_analysis(env, a, &f, colptr, flag, alt, alt_inv, scratch);
done:
    sn_free(env, colptr);
    sn_free(env, flag);
    sn_free(env, alt);
    sn_free(env, alt_inv);
    sn_free(env, scratch);
    if (r != SINEW_OK) {
        sn_ldlt_free(env, &f);
        return r;
    }
    *out = f;
    return SINEW_OK;
}

sinew_result sn_ldlt_analyse(const sn_env *env, const sn_sparse *a, const double *coords, sn_ldlt *out)
{
    return analyse(env, a, coords, NULL, 1, out);
}

sinew_result sn_ldlt_analyse_quick(const sn_env *env, const sn_sparse *a, const double *coords, sn_ldlt *out)
{
    return analyse(env, a, coords, NULL, 0, out);
}

sinew_result sn_ldlt_analyse_ordered(const sn_env *env, const sn_sparse *a, const uint32_t *order, sn_ldlt *out)
{
    return analyse(env, a, NULL, order, 0, out);
}
