/*
 * Sparse LDL^T factorisation of symmetric positive definite matrices:
 * nested-dissection ordering, elimination tree, column counts and
 * supernodes (symbolic), then a supernodal left-looking numeric
 * factorisation that can be repeated for new values on the same pattern.
 * Solves take many right-hand sides at once, stored vertex-major, so one
 * pass over the factor serves them all.
 *
 * Supernodes are runs of consecutive columns that form a chain in the
 * (postordered) elimination tree, so the rows below a run are those of its
 * last column. Each is stored as a dense column-major block of k columns
 * and k + r rows (the run's own rows, then the r rows below it): the strictly
 * lower part holds L, with explicit zeros where a column's pattern is
 * shorter (a few are allowed, so that runs get long); the rest is unused.
 * Both the factorisation and the solves then work on small dense blocks.
 */
#ifndef SN_LINALG_LDLT_H
#define SN_LINALG_LDLT_H

#include "linalg/sparse.h"

typedef struct sn_ldlt {
    size_t n;
    uint32_t *perm;     /* perm[new] = old */
    uint32_t *iperm;    /* iperm[old] = new */
    int32_t *parent;    /* elimination tree, -1 at roots */
    /* Lower triangle (diagonal included) of the permuted matrix by columns;
     * low_src[p] is the position of the value in the analysed matrix's vals. */
    size_t *low_colptr;
    uint32_t *low_rows;
    size_t *low_src;
    size_t nonzeros;    /* entries of the strictly lower factor, zeros of the blocks not counted */
    double operations;  /* sum over columns of their strictly lower entries squared: the measure orderings compete on */
    double *diag;       /* D */
    size_t super_count;
    uint32_t *super_first;  /* super_count + 1 column boundaries */
    uint32_t *super_of;     /* column -> its supernode */
    size_t *super_rowptr;   /* super_count + 1 offsets into super_rows */
    uint32_t *super_rows;   /* rows below each run, increasing */
    size_t *super_valptr;   /* super_count + 1 offsets into super_vals */
    double *super_vals;
    size_t max_rows;        /* largest k + r over the supernodes */
} sn_ldlt;

/* One supernode's block: columns [first, first + k), r rows below them
 * (rows), and its values, column-major with leading dimension ld = k + r. */
typedef struct sn_ldlt_block {
    size_t first, k, r, ld;
    const uint32_t *rows;
    double *vals;
} sn_ldlt_block;

static inline sn_ldlt_block sn_ldlt_block_of(const sn_ldlt *f, size_t s)
{
    sn_ldlt_block b;
    b.first = f->super_first[s];
    b.k = f->super_first[s + 1] - b.first;
    b.r = f->super_rowptr[s + 1] - f->super_rowptr[s];
    b.ld = b.k + b.r;
    b.rows = f->super_rows + f->super_rowptr[s];
    b.vals = f->super_vals + f->super_valptr[s];
    return b;
}

/* Orders A and computes the factor's pattern. A is stored in full. With
 * coords (3 doubles per row) the ordering is the mixed dissection (at each
 * part a breadth-first level or a plane cut, whichever separator is
 * smaller), without them the graph one (breadth-first levels only). */
sinew_result sn_ldlt_analyse(const sn_env *env, const sn_sparse *a, const double *coords, sn_ldlt *out);
/* Same with coords, but the cheaper of the graph and the geometric
 * dissection (plane cuts only, no breadth-first levels to search at each
 * part), which together cost less than the mixed one: for matrices analysed
 * again and again, where the analysis costs as much as the fill it saves
 * (the polish's systems). */
sinew_result sn_ldlt_analyse_quick(const sn_env *env, const sn_sparse *a, const double *coords, sn_ldlt *out);

/* sn_ldlt_analyse with the ordering given (order[new] = old, a permutation
 * of the n rows; the tree's postorder is still applied): for a matrix whose
 * good ordering is known from a related one, which saves the dissection. */
sinew_result sn_ldlt_analyse_ordered(const sn_env *env, const sn_sparse *a, const uint32_t *order, sn_ldlt *out);

/* Numeric factorisation of A (same pattern as analysed). Fails with
 * SINEW_ERROR_DEGENERATE when a pivot is not positive (A not positive
 * definite); the message names the original row. */
sinew_result sn_ldlt_factor(const sn_env *env, sn_ldlt *f, const sn_sparse *a);

/* Solves A X = B in place for m right-hand sides: x holds n rows of m values
 * (row i = unknown i). work holds n * m doubles. */
void sn_ldlt_solve(const sn_ldlt *f, double *x, size_t m, double *work);

/* A single-precision copy of a factor's values (super_vals and diag), for
 * solves that need only single precision (an iteration's inner solve whose
 * own error is far above float rounding): half the bytes to stream, twice
 * the values per vector instruction. */
typedef struct sn_ldlt_single {
    float *vals, *diag;
    size_t count, n;    /* lengths of vals and diag they were made for */
    /* Every value rounded to a finite float and every pivot to a normal
     * one: else (a matrix scaled beyond float's range) do not solve with it. */
    int representable;
} sn_ldlt_single;

/* Rounds f's current values into v (allocated on first use or when f's
 * size changed; refilled after each new factorisation) and sets
 * v->representable. */
sinew_result sn_ldlt_single_round(const sn_env *env, const sn_ldlt *f, sn_ldlt_single *v);
void sn_ldlt_single_free(const sn_env *env, sn_ldlt_single *v);

/* sn_ldlt_solve with v's values (f gives the pattern): x in double, as
 * there, solved in single precision (each solve's relative error is of the
 * order of float rounding times A's condition number). work holds
 * n * sn_ldlt_single_width(m) floats: the rows padded to whole registers. */
void sn_ldlt_solve_single(const sn_ldlt *f, const sn_ldlt_single *v, double *x, size_t m, float *work);
size_t sn_ldlt_single_width(size_t m);

/* Entries of the strict lower factor (a measure of fill). */
size_t sn_ldlt_factor_nonzeros(const sn_ldlt *f);

/* Length of super_vals: the numeric values the solves read (with diag). A
 * second factor of another matrix on the same pattern can be kept by copying
 * super_vals and diag, and swapped in for a solve. */
size_t sn_ldlt_block_values(const sn_ldlt *f);

void sn_ldlt_free(const sn_env *env, sn_ldlt *f);

#endif /* SN_LINALG_LDLT_H */
