/*
 * White-box tests of the machinery under bbw: sparse assembly and products,
 * the nested-dissection orderings, sparse LDL^T against dense arithmetic,
 * hierarchical winding numbers against a brute-force sum, and the simplex
 * projection against the sort-based formula.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bbw/bbw_internal.h"
#include "bbw/project.h"
#include "geom/winding.h"
#include "linalg/ldlt.h"
#include "linalg/ldlt_kernels.h"
#include "linalg/ordering.h"
#include "linalg/sparse.h"
#include "support.h"

static sn_env env;

static int setup(void **state)
{
    (void)state;
    sn_env_from_context(&env, NULL);
    return 0;
}

/* 5-point Laplacian of an nx x ny grid plus shift * I (SPD for shift > 0);
 * coords receives the grid positions when non-NULL. */
static void grid_matrix(size_t nx, size_t ny, double shift, sn_sparse *a, double *coords)
{
    size_t n = nx * ny, cap = 5 * n, k = 0;
    uint32_t *ri = malloc(cap * sizeof(uint32_t)), *ci = malloc(cap * sizeof(uint32_t));
    double *v = malloc(cap * sizeof(double));
    for (size_t j = 0; j < ny; ++j)
        for (size_t i = 0; i < nx; ++i) {
            uint32_t p = (uint32_t)(j * nx + i);
            if (coords) {
                coords[3 * p] = (double)i;
                coords[3 * p + 1] = (double)j;
                coords[3 * p + 2] = 0.0;
            }
            ri[k] = ci[k] = p;
            v[k++] = 4.0 + shift;
            int nb[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
            for (int q = 0; q < 4; ++q) {
                long x = (long)i + nb[q][0], y = (long)j + nb[q][1];
                if (x < 0 || y < 0 || x >= (long)nx || y >= (long)ny) continue;
                ri[k] = (uint32_t)(y * (long)nx + x);
                ci[k] = p;
                v[k++] = -1.0;
            }
        }
    assert_int_equal(sn_sparse_from_triplets(&env, n, k, ri, ci, v, a), SINEW_OK);
    free(ri);
    free(ci);
    free(v);
}

static void test_triplets_and_products(void **state)
{
    (void)state;
    /* Duplicates sum; columns come out sorted. */
    uint32_t ri[5] = {2, 0, 2, 1, 0}, ci[5] = {0, 0, 0, 1, 2};
    double v[5] = {1.0, 2.0, 3.0, 4.0, 5.0};
    sn_sparse a;
    assert_int_equal(sn_sparse_from_triplets(&env, 3, 5, ri, ci, v, &a), SINEW_OK);
    assert_int_equal(a.colptr[3], 4);
    assert_int_equal(a.rows[0], 0);
    assert_float_equal(sn_sparse_get(&a, 2, 0), 4.0, 0.0);
    assert_float_equal(sn_sparse_get(&a, 1, 0), 0.0, 0.0);
    sn_sparse_free(&env, &a);

    /* A D A against dense arithmetic on a small symmetric matrix. */
    sn_sparse g, p;
    grid_matrix(4, 3, 0.5, &g, NULL);
    size_t n = g.n;
    double d[12], dense[144] = {0}, prod[144] = {0};
    for (size_t i = 0; i < n; ++i) d[i] = 1.0 + 0.1 * (double)i;
    for (size_t j = 0; j < n; ++j)
        for (size_t q = g.colptr[j]; q < g.colptr[j + 1]; ++q) dense[g.rows[q] * n + j] = g.vals[q];
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j)
            for (size_t k = 0; k < n; ++k) prod[i * n + j] += dense[i * n + k] * d[k] * dense[k * n + j];
    assert_int_equal(sn_sparse_sandwich(&env, &g, d, &p), SINEW_OK);
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) assert_float_equal(sn_sparse_get(&p, (uint32_t)i, (uint32_t)j), prod[i * n + j], 1e-12);
    /* A + 2 P and restriction to the even indices. */
    sn_sparse s, r;
    assert_int_equal(sn_sparse_add(&env, &g, 2.0, &p, &s), SINEW_OK);
    assert_float_equal(sn_sparse_get(&s, 1, 2), dense[1 * n + 2] + 2.0 * prod[1 * n + 2], 1e-12);
    uint32_t map[12];
    for (size_t i = 0; i < n; ++i) map[i] = i % 2 ? UINT32_MAX : (uint32_t)(i / 2);
    assert_int_equal(sn_sparse_restrict(&env, &s, map, 6, &r), SINEW_OK);
    for (uint32_t i = 0; i < 6; ++i)
        for (uint32_t j = 0; j < 6; ++j)
            assert_float_equal(sn_sparse_get(&r, i, j), sn_sparse_get(&s, 2 * i, 2 * j), 0.0);
    double x[12], y[12];
    for (size_t i = 0; i < n; ++i) x[i] = (double)i - 3.0;
    sn_sparse_multiply(&g, x, y);
    for (size_t i = 0; i < n; ++i) {
        double want = 0.0;
        for (size_t k = 0; k < n; ++k) want += dense[i * n + k] * x[k];
        assert_float_equal(y[i], want, 1e-12);
    }
    sn_sparse_free(&env, &g);
    sn_sparse_free(&env, &p);
    sn_sparse_free(&env, &s);
    sn_sparse_free(&env, &r);
}

static void check_permutation(const uint32_t *perm, size_t n)
{
    uint8_t *seen = calloc(n, 1);
    for (size_t i = 0; i < n; ++i) {
        assert_true(perm[i] < n);
        assert_false(seen[perm[i]]);
        seen[perm[i]] = 1;
    }
    free(seen);
}

static void test_orderings(void **state)
{
    (void)state;
    sn_sparse a;
    double *coords = malloc(40 * 30 * 3 * sizeof(double));
    grid_matrix(40, 30, 0.0, &a, coords);
    uint32_t *perm = malloc(a.n * sizeof(uint32_t));
    assert_int_equal(sn_order_nested_dissection(&env, &a, perm), SINEW_OK);
    check_permutation(perm, a.n);
    assert_int_equal(sn_order_geometric_dissection(&env, &a, coords, perm), SINEW_OK);
    check_permutation(perm, a.n);
    /* Dissection must beat the natural (banded) order on a 2D grid. */
    sn_ldlt f;
    assert_int_equal(sn_ldlt_analyse(&env, &a, coords, &f), SINEW_OK);
    size_t banded = 0;
    for (size_t j = 0; j < a.n; ++j) banded += (a.n - j - 1 < 40) ? a.n - j - 1 : 40;
    assert_true(sn_ldlt_factor_nonzeros(&f) < banded);
    sn_ldlt_free(&env, &f);
    free(perm);
    free(coords);
    sn_sparse_free(&env, &a);
}

/* Factors A with the analysed f, solves m random right-hand sides at once
 * (m >= 4 takes the vector kernel where the CPU has one) and checks every
 * column against A x = b; also checks the many-column product against the
 * one-column one. */
static void assert_factor_solves(sn_ldlt *f, const sn_sparse *a, size_t m)
{
    size_t n = a->n;
    assert_int_equal(sn_ldlt_factor(&env, f, a), SINEW_OK);
    double *b = malloc(n * m * sizeof(double)), *x = malloc(n * m * sizeof(double));
    double *work = malloc(n * m * sizeof(double)), *col = malloc(n * sizeof(double)), *ax = malloc(n * sizeof(double));
    support_rng rng;
    support_rng_seed(&rng, 7);
    for (size_t k = 0; k < n * m; ++k) b[k] = support_rng_uniform(&rng, -1.0, 1.0);
    memcpy(x, b, n * m * sizeof(double));
    sn_ldlt_solve(f, x, m, work);
    for (size_t h = 0; h < m; ++h) {
        for (size_t i = 0; i < n; ++i) col[i] = x[i * m + h];
        sn_sparse_multiply(a, col, ax);
        for (size_t i = 0; i < n; ++i) assert_float_equal(ax[i], b[i * m + h], 1e-9);
    }
    double *ax_all = malloc(n * m * sizeof(double));
    sn_sparse_multiply_columns(a, x, m, ax_all);
    for (size_t k = 0; k < n * m; ++k) assert_float_equal(ax_all[k], b[k], 1e-9);
    free(ax_all);
    free(b);
    free(x);
    free(work);
    free(col);
    free(ax);
}

static void ldlt_solve_case(size_t nx, size_t ny, int with_coords, size_t m)
{
    sn_sparse a;
    double *coords = malloc(nx * ny * 3 * sizeof(double));
    grid_matrix(nx, ny, 0.01, &a, coords);
    sn_ldlt f;
    assert_int_equal(sn_ldlt_analyse(&env, &a, with_coords ? coords : NULL, &f), SINEW_OK);
    assert_factor_solves(&f, &a, m);
    sn_ldlt_free(&env, &f);
    sn_sparse_free(&env, &a);
    free(coords);
}

static void test_ldlt(void **state)
{
    (void)state;
    ldlt_solve_case(1, 1, 0, 3);
    ldlt_solve_case(7, 5, 0, 3);
    ldlt_solve_case(60, 45, 0, 3);
    ldlt_solve_case(60, 45, 1, 3);
    ldlt_solve_case(1, 1, 0, 7);
    ldlt_solve_case(60, 45, 1, 4);
    ldlt_solve_case(60, 45, 1, 7);
    ldlt_solve_case(60, 45, 0, 20);
    /* Indefinite: a negative diagonal entry is reported by its row. */
    uint32_t ri[3] = {0, 1, 2}, ci[3] = {0, 1, 2};
    double v[3] = {1.0, -2.0, 1.0};
    sn_sparse a;
    assert_int_equal(sn_sparse_from_triplets(&env, 3, 3, ri, ci, v, &a), SINEW_OK);
    sn_ldlt f;
    assert_int_equal(sn_ldlt_analyse(&env, &a, NULL, &f), SINEW_OK);
    assert_int_equal(sn_ldlt_factor(&env, &f, &a), SINEW_ERROR_DEGENERATE);
    assert_non_null(strstr(sinew_last_error(), "row 1"));
    sn_ldlt_free(&env, &f);
    sn_sparse_free(&env, &a);
}

/* An ordering given to the analysis is used as it is (up to the tree's
 * postorder, which keeps the fill): a dissection's own permutation gives the
 * dissection's fill, the natural order a banded one, and both solve. */
static void test_ldlt_ordered(void **state)
{
    (void)state;
    sn_sparse a;
    double *coords = malloc(30 * 20 * 3 * sizeof(double));
    grid_matrix(30, 20, 0.01, &a, coords);
    size_t n = a.n;
    sn_ldlt dissected, again, natural;
    assert_int_equal(sn_ldlt_analyse(&env, &a, coords, &dissected), SINEW_OK);
    assert_int_equal(sn_ldlt_analyse_ordered(&env, &a, dissected.perm, &again), SINEW_OK);
    assert_int_equal(sn_ldlt_factor_nonzeros(&again), sn_ldlt_factor_nonzeros(&dissected));
    assert_memory_equal(again.perm, dissected.perm, n * sizeof(uint32_t));
    uint32_t *identity = malloc(n * sizeof(uint32_t));
    for (size_t i = 0; i < n; ++i) identity[i] = (uint32_t)i;
    assert_int_equal(sn_ldlt_analyse_ordered(&env, &a, identity, &natural), SINEW_OK);
    check_permutation(natural.perm, n);
    /* The 30 x 20 grid numbered row by row: the factor fills a band of 30
     * below the diagonal, all but the first grid row's growing columns. */
    size_t banded = 0;
    for (size_t j = 0; j < n; ++j) banded += (n - j - 1 < 30) ? n - j - 1 : 30;
    assert_in_range(sn_ldlt_factor_nonzeros(&natural), banded - 30 * 30, banded);
    assert_true(sn_ldlt_factor_nonzeros(&dissected) < sn_ldlt_factor_nonzeros(&natural));
    assert_factor_solves(&again, &a, 1);
    assert_factor_solves(&natural, &a, 1);
    sn_ldlt_free(&env, &dissected);
    sn_ldlt_free(&env, &again);
    sn_ldlt_free(&env, &natural);
    sn_sparse_free(&env, &a);
    free(identity);
    free(coords);
}

/* A biharmonic-like 3D operator: K^2 for the 7-point Laplacian K of an
 * nx x ny x nz grid plus shift * I. Its wide stencil and 3D separators give
 * long supernodes, with the relaxed (zero-padded) ones among them. */
static void grid3d_biharmonic(size_t nx, size_t ny, size_t nz, double shift, sn_sparse *a)
{
    size_t n = nx * ny * nz, cap = 7 * n, k = 0;
    uint32_t *ri = malloc(cap * sizeof(uint32_t)), *ci = malloc(cap * sizeof(uint32_t));
    double *v = malloc(cap * sizeof(double)), *ones = malloc(n * sizeof(double));
    for (size_t z = 0; z < nz; ++z)
        for (size_t y = 0; y < ny; ++y)
            for (size_t x = 0; x < nx; ++x) {
                uint32_t p = (uint32_t)((z * ny + y) * nx + x);
                ones[p] = 1.0;
                ri[k] = ci[k] = p;
                v[k++] = 6.0 + shift;
                int nb[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
                for (int q = 0; q < 6; ++q) {
                    long xx = (long)x + nb[q][0], yy = (long)y + nb[q][1], zz = (long)z + nb[q][2];
                    if (xx < 0 || yy < 0 || zz < 0 || xx >= (long)nx || yy >= (long)ny || zz >= (long)nz) continue;
                    ri[k] = (uint32_t)((zz * (long)ny + yy) * (long)nx + xx);
                    ci[k] = p;
                    v[k++] = -1.0;
                }
            }
    sn_sparse lap;
    assert_int_equal(sn_sparse_from_triplets(&env, n, k, ri, ci, v, &lap), SINEW_OK);
    assert_int_equal(sn_sparse_sandwich(&env, &lap, ones, a), SINEW_OK);
    sn_sparse_free(&env, &lap);
    free(ri);
    free(ci);
    free(v);
    free(ones);
}

/* On a 24 x 8 x 8 box of the biharmonic-like stencil, the thinnest plane
 * cut is across x at the middle, and the stencil reaches two planes: the
 * geometric dissection numbers those 2 x 64 vertices last. The mixed one is
 * a permutation too, its factor solves, it costs no more than either of the
 * others (its choices include theirs), and the analysis with coordinates
 * takes it. */
static void test_plane_cut_orderings(void **state)
{
    (void)state;
    const size_t nx = 24, ny = 8, nz = 8, n = nx * ny * nz;
    sn_sparse a;
    grid3d_biharmonic(nx, ny, nz, 0.01, &a);
    double *coords = malloc(3 * n * sizeof(double));
    for (size_t p = 0; p < n; ++p) {
        coords[3 * p] = (double)(p % nx);
        coords[3 * p + 1] = (double)(p / nx % ny);
        coords[3 * p + 2] = (double)(p / (nx * ny));
    }
    uint32_t *perm[3];
    double operations[3];
    for (int kind = 0; kind < 3; ++kind) {
        perm[kind] = malloc(n * sizeof(uint32_t));
        sinew_result r = kind == 0   ? sn_order_nested_dissection(&env, &a, perm[kind])
                         : kind == 1 ? sn_order_geometric_dissection(&env, &a, coords, perm[kind])
                                     : sn_order_mixed_dissection(&env, &a, coords, perm[kind]);
        assert_int_equal(r, SINEW_OK);
        check_permutation(perm[kind], n);
        sn_ldlt f;
        assert_int_equal(sn_ldlt_analyse_ordered(&env, &a, perm[kind], &f), SINEW_OK);
        operations[kind] = f.operations;
        if (kind == 2) assert_factor_solves(&f, &a, 4);
        sn_ldlt_free(&env, &f);
    }
    size_t lo = SIZE_MAX, hi = 0;
    for (size_t i = n - 2 * ny * nz; i < n; ++i) {
        size_t x = perm[1][i] % nx;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    assert_int_equal(hi - lo, 1);
    assert_in_range(lo, nx / 2 - 2, nx / 2);
    sn_ldlt chosen;
    assert_int_equal(sn_ldlt_analyse(&env, &a, coords, &chosen), SINEW_OK);
    assert_true(operations[2] <= operations[0] && operations[2] <= operations[1]);
    assert_true(chosen.operations == operations[2]);
    assert_memory_equal(chosen.perm, perm[2], n * sizeof(uint32_t));
    sn_ldlt_free(&env, &chosen);
    for (int kind = 0; kind < 3; ++kind) free(perm[kind]);
    free(coords);
    sn_sparse_free(&env, &a);
}

/* The supernodal factor of a 3D biharmonic operator solves it to rounding
 * for one and for many right-hand sides, and really is supernodal. */
static void test_ldlt_supernodal(void **state)
{
    (void)state;
    sn_sparse a;
    grid3d_biharmonic(11, 9, 8, 1e-3, &a);
    size_t n = a.n;
    sn_ldlt f;
    assert_int_equal(sn_ldlt_analyse(&env, &a, NULL, &f), SINEW_OK);
    assert_int_equal(sn_ldlt_factor(&env, &f, &a), SINEW_OK);
    assert_true(f.super_count * 4 < n);
    assert_true(sn_ldlt_block_values(&f) > sn_ldlt_factor_nonzeros(&f));
    size_t ms[] = {1, 20};
    for (size_t c = 0; c < 2; ++c) {
        size_t m = ms[c];
        double *b = malloc(n * m * sizeof(double)), *x = malloc(n * m * sizeof(double));
        double *work = malloc(n * m * sizeof(double)), *ax = malloc(n * m * sizeof(double));
        support_rng rng;
        support_rng_seed(&rng, 11);
        double bmax = 0.0;
        for (size_t k = 0; k < n * m; ++k) {
            b[k] = support_rng_uniform(&rng, -1.0, 1.0);
            bmax = fmax(bmax, fabs(b[k]));
        }
        memcpy(x, b, n * m * sizeof(double));
        sn_ldlt_solve(&f, x, m, work);
        sn_sparse_multiply_columns(&a, x, m, ax);
        for (size_t k = 0; k < n * m; ++k) assert_float_equal(ax[k], b[k], 1e-8 * bmax);
        free(b);
        free(x);
        free(work);
        free(ax);
    }
    sn_ldlt_free(&env, &f);
    sn_sparse_free(&env, &a);
}

/* Every vector tile this build and CPU have, double and single precision,
 * agrees with the portable one of its type (the double ones to 1e-12, the
 * single ones to float rounding: they fuse their multiply-adds), for every
 * target count, right-hand-side count (full, partial and scalar-tail
 * registers of 4, 8 and 16 values), indexed and contiguous sources and both
 * coefficient layouts. */
static void test_tile_kernels(void **state)
{
    (void)state;
    sn_ldlt_tile_fn portable = sn_ldlt_tile_portable(), vector[2] = {sn_ldlt_tile_avx2(), sn_ldlt_tile_avx512()};
    sn_ldlt_tile_single_fn portable_single = sn_ldlt_tile_single_portable();
    sn_ldlt_tile_single_fn vector_single[2] = {sn_ldlt_tile_single_avx2(), sn_ldlt_tile_single_avx512()};
    const size_t ms[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 15, 16, 17, 19, 20, 23, 24, 25, 31, 32, 40, 47, 48, 49, 64, 97};
    const size_t rows = 40, ld = 53, mmax = 97;
    double *src = malloc(rows * mmax * sizeof(double)), *coef = malloc(ld * ld * sizeof(double));
    double *want = malloc(SN_LDLT_TILE * mmax * sizeof(double)), *got = malloc(SN_LDLT_TILE * mmax * sizeof(double));
    float *srcf = malloc(rows * mmax * sizeof(float)), *coeff = malloc(ld * ld * sizeof(float));
    float *wantf = malloc(SN_LDLT_TILE * mmax * sizeof(float)), *gotf = malloc(SN_LDLT_TILE * mmax * sizeof(float));
    uint32_t idx[40];
    support_rng rng;
    support_rng_seed(&rng, 5);
    for (size_t k = 0; k < rows * mmax; ++k) srcf[k] = (float)(src[k] = support_rng_uniform(&rng, -1.0, 1.0));
    for (size_t k = 0; k < ld * ld; ++k) coeff[k] = (float)(coef[k] = support_rng_uniform(&rng, -1.0, 1.0));
    for (size_t t = 0; t < rows; ++t) idx[t] = (uint32_t)((t * 17 + 3) % rows);
    size_t checked = 0;
    for (int kv = 0; kv < 2; ++kv)
        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; ++mi)
            for (size_t nt = 1; nt <= SN_LDLT_TILE; ++nt)
                for (int variant = 0; variant < 4; ++variant) {
                    size_t m = ms[mi], ns = (nt * 7 + m) % 38;
                    const uint32_t *ix = variant & 1 ? idx : NULL;
                    size_t ct = variant & 2 ? ld : 1, ca = variant & 2 ? 1 : ld;
                    double *tw[SN_LDLT_TILE], *tg[SN_LDLT_TILE];
                    float *twf[SN_LDLT_TILE], *tgf[SN_LDLT_TILE];
                    for (size_t k = 0; k < nt * m; ++k)
                        wantf[k] = gotf[k] = (float)(want[k] = got[k] = support_rng_uniform(&rng, -1.0, 1.0));
                    for (size_t a = 0; a < nt; ++a) {
                        tw[a] = want + a * m;
                        tg[a] = got + a * m;
                        twf[a] = wantf + a * m;
                        tgf[a] = gotf + a * m;
                    }
                    if (vector[kv]) {
                        portable(tw, nt, src, ix, ns, coef, ct, ca, m);
                        vector[kv](tg, nt, src, ix, ns, coef, ct, ca, m);
                        for (size_t k = 0; k < nt * m; ++k) assert_float_equal(got[k], want[k], 1e-12);
                        ++checked;
                    }
                    if (vector_single[kv]) {
                        portable_single(twf, nt, srcf, ix, ns, coeff, ct, ca, m);
                        vector_single[kv](tgf, nt, srcf, ix, ns, coeff, ct, ca, m);
                        /* At most 38 terms of magnitude 1: a few units of 2^-24 each. */
                        for (size_t k = 0; k < nt * m; ++k) assert_float_equal(gotf[k], wantf[k], 1e-5);
                        ++checked;
                    }
                }
    free(src);
    free(coef);
    free(want);
    free(got);
    free(srcf);
    free(coeff);
    free(wantf);
    free(gotf);
    if (!checked) skip();
}

/* The single-precision solve agrees with the double one to float rounding
 * times the matrix's conditioning, with every tile this build and CPU have,
 * for one and for many right-hand sides (across the vector tiles' register
 * widths), and the AVX2 and AVX-512 tiles give the same bits; after a new
 * factorisation on the same pattern the values are rounded again into the
 * same arrays and solve the new matrix; a matrix beyond float's range is
 * reported as not representable. */
static void test_single_solve(void **state)
{
    (void)state;
    sn_sparse a;
    grid3d_biharmonic(12, 11, 10, 0.1, &a);
    size_t n = a.n, mmax = 41;
    sn_ldlt f;
    sn_ldlt_single v = {0};
    assert_int_equal(sn_ldlt_analyse(&env, &a, NULL, &f), SINEW_OK);
    double *b = malloc(n * mmax * sizeof(double)), *want = malloc(n * mmax * sizeof(double));
    double *got = malloc(n * mmax * sizeof(double)), *work = malloc(n * mmax * sizeof(double));
    double *avx2 = malloc(n * mmax * sizeof(double));
    support_rng rng;
    support_rng_seed(&rng, 23);
    for (size_t k = 0; k < n * mmax; ++k) b[k] = support_rng_uniform(&rng, -1.0, 1.0);
    sn_ldlt_tile_single_fn tiles[3] = {sn_ldlt_tile_single_portable(), sn_ldlt_tile_single_avx2(),
                                       sn_ldlt_tile_single_avx512()};
    const size_t ms[] = {1, 8, 20, 40, 41};
    for (int shifted = 0; shifted < 2; ++shifted) {
        if (shifted) /* a larger diagonal: another matrix on the same pattern */
            for (size_t c = 0; c < n; ++c)
                for (size_t p = a.colptr[c]; p < a.colptr[c + 1]; ++p)
                    if (a.rows[p] == c) a.vals[p] *= 1.5;
        assert_int_equal(sn_ldlt_factor(&env, &f, &a), SINEW_OK);
        float *kept = v.vals;
        assert_int_equal(sn_ldlt_single_round(&env, &f, &v), SINEW_OK);
        if (shifted) assert_ptr_equal(v.vals, kept);
        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; ++mi) {
            size_t m = ms[mi];
            memcpy(want, b, n * m * sizeof(double));
            sn_ldlt_solve(&f, want, m, work);
            double norm = 0.0;
            for (size_t k = 0; k < n * m; ++k) norm = fmax(norm, fabs(want[k]));
            for (int t = 0; t < 3; ++t) {
                if (!tiles[t]) continue;
                memcpy(got, b, n * m * sizeof(double));
                sn_ldlt_solve_single_with(&f, &v, got, m, (float *)work, tiles[t]);
                double worst = 0.0;
                for (size_t k = 0; k < n * m; ++k) worst = fmax(worst, fabs(got[k] - want[k]));
                /* Measured: 1.2e-6 of the solution's size on this matrix. */
                assert_true(worst <= 2e-5 * norm);
                assert_true(worst > 0.0); /* it really ran in single precision */
                if (t == 1) memcpy(avx2, got, n * m * sizeof(double));
                /* The AVX2 and AVX-512 tiles make the same fused operations in the same order. */
                else if (t == 2 && tiles[1]) assert_memory_equal(got, avx2, n * m * sizeof(double));
            }
        }
    }
    assert_true(v.representable);
    /* A matrix beyond float's range: its rounded pivots overflow (or, scaled
     * down, underflow), and the copy says so instead of solving with them. */
    for (int way = 0; way < 2; ++way) {
        for (size_t p = 0; p < a.colptr[n]; ++p) a.vals[p] *= way ? 1e-120 : 1e60;
        assert_int_equal(sn_ldlt_factor(&env, &f, &a), SINEW_OK);
        assert_int_equal(sn_ldlt_single_round(&env, &f, &v), SINEW_OK);
        assert_false(v.representable);
    }
    sn_ldlt_single_free(&env, &v);
    assert_null(v.vals);
    free(avx2);
    free(b);
    free(want);
    free(got);
    free(work);
    sn_ldlt_free(&env, &f);
    sn_sparse_free(&env, &a);
}

/* The arithmetic of the vector tiles, spelled out: each target takes its
 * sources one at a time, a fused multiply-subtract on the right-hand sides
 * that fill whole groups of four and a multiply then a subtract on the last
 * m % 4 (what the AVX2 and AVX-512 tiles do, whatever chunks they use). */
static void tile_model_op(double *y, double l, const double *x, size_t m)
{
    size_t fused = m - m % 4;
    for (size_t h = 0; h < m; ++h) y[h] = h < fused ? fma(-l, x[h], y[h]) : y[h] - l * x[h];
}

static void tile_model(double *const *targets, size_t nt, const double *base, const uint32_t *idx, size_t ns,
                       const double *coef, size_t ct, size_t ca, size_t m)
{
    for (size_t a = 0; a < nt; ++a)
        for (size_t t = 0; t < ns; ++t)
            tile_model_op(targets[a], coef[t * ct + a * ca], base + (idx ? idx[t] : t) * m, m);
}

/* The solve written out one row at a time with the model's arithmetic and
 * the order in which the tiles give each row its sources: forward, every
 * earlier column in increasing order; backward, the rows below the
 * supernode, then the supernode's rows past the row's group of
 * SN_LDLT_TILE, then the rest of its group. */
static void reference_solve(const sn_ldlt *f, double *x, size_t m, double *w)
{
    size_t n = f->n;
    for (size_t k = 0; k < n; ++k) memcpy(w + k * m, x + (size_t)f->perm[k] * m, m * sizeof(double));
    for (size_t s = 0; s < f->super_count; ++s) {
        sn_ldlt_block bl = sn_ldlt_block_of(f, s);
        double *xs = w + bl.first * m;
        for (size_t t = 0; t < bl.k; ++t) {
            const double *col = bl.vals + t * bl.ld;
            for (size_t i = t + 1; i < bl.k; ++i) tile_model_op(xs + i * m, col[i], xs + t * m, m);
            for (size_t q = 0; q < bl.r; ++q) tile_model_op(w + (size_t)bl.rows[q] * m, col[bl.k + q], xs + t * m, m);
        }
    }
    for (size_t j = 0; j < n; ++j) {
        double inv = 1.0 / f->diag[j];
        for (size_t h = 0; h < m; ++h) w[j * m + h] *= inv;
    }
    for (size_t s = f->super_count; s-- > 0;) {
        sn_ldlt_block bl = sn_ldlt_block_of(f, s);
        double *xs = w + bl.first * m;
        for (size_t j = bl.k; j-- > 0;) {
            const double *col = bl.vals + j * bl.ld;
            size_t group_end = j / SN_LDLT_TILE * SN_LDLT_TILE + SN_LDLT_TILE;
            group_end = group_end < bl.k ? group_end : bl.k;
            for (size_t q = 0; q < bl.r; ++q) tile_model_op(xs + j * m, col[bl.k + q], w + (size_t)bl.rows[q] * m, m);
            for (size_t i = group_end; i < bl.k; ++i) tile_model_op(xs + j * m, col[i], xs + i * m, m);
            for (size_t i = j + 1; i < group_end; ++i) tile_model_op(xs + j * m, col[i], xs + i * m, m);
        }
    }
    for (size_t k = 0; k < n; ++k) memcpy(x + (size_t)f->perm[k] * m, w + k * m, m * sizeof(double));
}

/* Whole solves, for every right-hand-side count from 1 to 48, on a 3D
 * operator (wide supernodes, longer than the solve's runs of sources) and a
 * 2D one (many narrow ones): with the model tile, the blocked solve gives
 * each row the bits of the row-at-a-time reference, so the blocking leaves
 * the order of the sums alone; every vector tile this build and CPU have
 * gives the model's bits; the portable tile agrees to rounding. */
static void test_solve_blocking_bits(void **state)
{
    (void)state;
    sn_ldlt_tile_fn vector[2] = {sn_ldlt_tile_avx2(), sn_ldlt_tile_avx512()};
    for (int shape = 0; shape < 2; ++shape) {
        sn_sparse a;
        if (shape == 0) grid3d_biharmonic(12, 11, 10, 1e-3, &a);
        else grid_matrix(40, 30, 1e-3, &a, NULL);
        sn_ldlt f;
        assert_int_equal(sn_ldlt_analyse(&env, &a, NULL, &f), SINEW_OK);
        assert_int_equal(sn_ldlt_factor(&env, &f, &a), SINEW_OK);
        size_t n = f.n, widest = 0, mmax = 48;
        for (size_t s = 0; s < f.super_count; ++s) {
            size_t k = f.super_first[s + 1] - f.super_first[s];
            widest = k > widest ? k : widest;
        }
        if (shape == 0) assert_true(widest > 240); /* more than one run of sources for m >= 9 */
        double *b = malloc(n * mmax * sizeof(double)), *want = malloc(n * mmax * sizeof(double));
        double *got = malloc(n * mmax * sizeof(double)), *work = malloc(n * mmax * sizeof(double));
        support_rng rng;
        support_rng_seed(&rng, 17);
        for (size_t k = 0; k < n * mmax; ++k) b[k] = support_rng_uniform(&rng, -1.0, 1.0);
        for (size_t m = 1; m <= mmax; ++m) {
            memcpy(want, b, n * m * sizeof(double));
            reference_solve(&f, want, m, work);
            memcpy(got, b, n * m * sizeof(double));
            sn_ldlt_solve_with(&f, got, m, work, tile_model);
            assert_memory_equal(got, want, n * m * sizeof(double));
            for (int kv = 0; kv < 2; ++kv) {
                if (!vector[kv]) continue;
                memcpy(got, b, n * m * sizeof(double));
                sn_ldlt_solve_with(&f, got, m, work, vector[kv]);
                assert_memory_equal(got, want, n * m * sizeof(double));
            }
            memcpy(got, b, n * m * sizeof(double));
            sn_ldlt_solve_with(&f, got, m, work, sn_ldlt_tile_portable());
            double xmax = 0.0;
            for (size_t k = 0; k < n * m; ++k) xmax = fmax(xmax, fabs(want[k]));
            for (size_t k = 0; k < n * m; ++k) assert_float_equal(got[k], want[k], 1e-9 * xmax);
        }
        free(b);
        free(want);
        free(got);
        free(work);
        sn_ldlt_free(&env, &f);
        sn_sparse_free(&env, &a);
    }
}

/* The vector factor updates this build and CPU have (AVX2, AVX-512), or
 * skip when there is none; *count of them into kernels[0..2). */
static void vector_updates(sn_ldlt_update_fn kernels[2], size_t *count)
{
    *count = 0;
    if ((kernels[*count] = sn_ldlt_update_avx2()) != NULL) ++*count;
    if ((kernels[*count] = sn_ldlt_update_avx512()) != NULL) ++*count;
    if (!*count) skip();
}

/* Every factor update this build and CPU have computes what the portable
 * one does, to the bit, for every panel width, row counts around the 4- and
 * 8-row strips, source counts around the groups of four, and a leading
 * dimension wider than the rows. */
static void test_update_kernels(void **state)
{
    (void)state;
    sn_ldlt_update_fn portable = sn_ldlt_update_portable(), vectors[2];
    size_t vector_count;
    vector_updates(vectors, &vector_count);
    const size_t lens[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 15, 16, 17, 23, 24, 25, 40};
    const size_t kks[] = {0, 1, 3, 4, 5, 8, 11, 33};
    const size_t lda = 47, ldc = 44;
    double *a = malloc(lda * 33 * sizeof(double)), *w = malloc(33 * SN_LDLT_PANEL * sizeof(double));
    double *want = malloc(ldc * SN_LDLT_PANEL * sizeof(double)), *got = malloc(ldc * SN_LDLT_PANEL * sizeof(double));
    support_rng rng;
    support_rng_seed(&rng, 9);
    for (size_t k = 0; k < lda * 33; ++k) a[k] = support_rng_uniform(&rng, -1.0, 1.0);
    for (size_t k = 0; k < 33 * SN_LDLT_PANEL; ++k) w[k] = support_rng_uniform(&rng, -1.0, 1.0);
    for (size_t v = 0; v < vector_count; ++v)
        for (size_t nc = 1; nc <= SN_LDLT_PANEL; ++nc)
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; ++li)
                for (size_t ki = 0; ki < sizeof kks / sizeof kks[0]; ++ki) {
                    for (size_t k = 0; k < ldc * SN_LDLT_PANEL; ++k)
                        want[k] = got[k] = support_rng_uniform(&rng, -1.0, 1.0);
                    portable(want, ldc, lens[li], nc, a, lda, w, kks[ki]);
                    vectors[v](got, ldc, lens[li], nc, a, lda, w, kks[ki]);
                    /* Entries outside the nc columns and len rows stay as they were. */
                    assert_memory_equal(got, want, ldc * SN_LDLT_PANEL * sizeof(double));
                }
    free(a);
    free(w);
    free(want);
    free(got);
}

/* The factorisation with each vector update and with the portable one: the
 * same factor to the bit, on an operator whose supernodes are wider than a
 * panel and have rows below them, and it solves the system. */
static void factor_kernel_matches_portable(sn_ldlt_update_fn vector)
{
    sn_sparse a;
    grid3d_biharmonic(9, 8, 7, 1e-2, &a);
    size_t n = a.n, m = 3;
    sn_ldlt fp, fv;
    assert_int_equal(sn_ldlt_analyse(&env, &a, NULL, &fp), SINEW_OK);
    assert_int_equal(sn_ldlt_analyse(&env, &a, NULL, &fv), SINEW_OK);
    assert_int_equal(sn_ldlt_factor_with(&env, &fp, &a, sn_ldlt_update_portable()), SINEW_OK);
    assert_int_equal(sn_ldlt_factor_with(&env, &fv, &a, vector), SINEW_OK);
    size_t widest = 0;
    for (size_t s = 0; s < fp.super_count; ++s) {
        size_t k = fp.super_first[s + 1] - fp.super_first[s];
        widest = k > widest ? k : widest;
    }
    assert_true(widest > 2 * SN_LDLT_PANEL);
    assert_memory_equal(fv.diag, fp.diag, n * sizeof(double));
    /* The strict lower blocks (the upper triangles of the diagonal blocks are
     * scratch that nothing reads). */
    for (size_t s = 0; s < fp.super_count; ++s) {
        sn_ldlt_block bp = sn_ldlt_block_of(&fp, s), bv = sn_ldlt_block_of(&fv, s);
        for (size_t t = 0; t < bp.k; ++t)
            assert_memory_equal(bv.vals + t * bv.ld + t + 1, bp.vals + t * bp.ld + t + 1,
                                (bp.ld - t - 1) * sizeof(double));
    }
    double *b = malloc(n * m * sizeof(double)), *x = malloc(n * m * sizeof(double));
    double *work = malloc(n * m * sizeof(double)), *ax = malloc(n * m * sizeof(double));
    for (size_t k = 0; k < n * m; ++k) b[k] = x[k] = (double)(k % 11) - 5.0;
    sn_ldlt_solve(&fv, x, m, work);
    sn_sparse_multiply_columns(&a, x, m, ax);
    for (size_t k = 0; k < n * m; ++k) assert_float_equal(ax[k], b[k], 1e-8 * 5.0);
    free(b);
    free(x);
    free(ax);
    free(work);
    sn_ldlt_free(&env, &fp);
    sn_ldlt_free(&env, &fv);
    sn_sparse_free(&env, &a);
}

static void test_factor_kernels(void **state)
{
    (void)state;
    sn_ldlt_update_fn vectors[2];
    size_t vector_count;
    vector_updates(vectors, &vector_count);
    for (size_t v = 0; v < vector_count; ++v) factor_kernel_matches_portable(vectors[v]);
}

/* ---- winding numbers ---------------------------------------------------------- */

/* A UV sphere of radius r (outward triangles). */
static void uv_sphere(size_t rings, size_t segs, float r, float **pos, size_t *nv, uint32_t **tri, size_t *nt)
{
    *nv = (rings - 1) * segs + 2;
    *pos = malloc(*nv * 3 * sizeof(float));
    float *p = *pos;
    p[0] = 0, p[1] = 0, p[2] = r;
    for (size_t i = 1; i < rings; ++i)
        for (size_t j = 0; j < segs; ++j) {
            double th = 3.14159265358979 * (double)i / (double)rings, ph = 6.28318530717959 * (double)j / (double)segs;
            float *q = p + 3 * (1 + (i - 1) * segs + j);
            q[0] = (float)(r * sin(th) * cos(ph));
            q[1] = (float)(r * sin(th) * sin(ph));
            q[2] = (float)(r * cos(th));
        }
    float *s = p + 3 * (*nv - 1);
    s[0] = 0, s[1] = 0, s[2] = -r;
    *nt = 2 * segs * (rings - 1);
    *tri = malloc(*nt * 3 * sizeof(uint32_t));
    uint32_t *t = *tri;
    uint32_t south = (uint32_t)(*nv - 1);
    for (size_t j = 0; j < segs; ++j) {
        uint32_t a = (uint32_t)(1 + j), b = (uint32_t)(1 + (j + 1) % segs);
        *t++ = 0, *t++ = a, *t++ = b;
        uint32_t c = (uint32_t)(1 + (rings - 2) * segs + j), d = (uint32_t)(1 + (rings - 2) * segs + (j + 1) % segs);
        *t++ = south, *t++ = d, *t++ = c;
    }
    for (size_t i = 1; i + 1 < rings; ++i)
        for (size_t j = 0; j < segs; ++j) {
            uint32_t a = (uint32_t)(1 + (i - 1) * segs + j), b = (uint32_t)(1 + (i - 1) * segs + (j + 1) % segs);
            uint32_t c = (uint32_t)(1 + i * segs + j), d = (uint32_t)(1 + i * segs + (j + 1) % segs);
            *t++ = a, *t++ = c, *t++ = b;
            *t++ = b, *t++ = c, *t++ = d;
        }
}

/* Brute force: sum of solid angles via the half-angle formula, written
 * independently of the library's. */
static double brute_winding(const float *pos, const uint32_t *tri, size_t nt, const double q[3])
{
    double sum = 0.0;
    for (size_t t = 0; t < nt; ++t) {
        double v[3][3], l[3];
        for (int k = 0; k < 3; ++k) {
            for (int a = 0; a < 3; ++a) v[k][a] = pos[3 * tri[3 * t + k] + a] - q[a];
            l[k] = sqrt(v[k][0] * v[k][0] + v[k][1] * v[k][1] + v[k][2] * v[k][2]);
        }
        double triple = v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1]) - v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0]) +
                        v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0]);
        double d01 = v[0][0] * v[1][0] + v[0][1] * v[1][1] + v[0][2] * v[1][2];
        double d02 = v[0][0] * v[2][0] + v[0][1] * v[2][1] + v[0][2] * v[2][2];
        double d12 = v[1][0] * v[2][0] + v[1][1] * v[2][1] + v[1][2] * v[2][2];
        sum += 2.0 * atan2(triple, l[0] * l[1] * l[2] + d01 * l[2] + d02 * l[1] + d12 * l[0]);
    }
    return sum / (4.0 * 3.14159265358979323846);
}

static void test_winding(void **state)
{
    (void)state;
    float *pos;
    uint32_t *tri;
    size_t nv, nt;
    uv_sphere(24, 48, 1.0f, &pos, &nv, &tri, &nt);
    sinew_trimesh mesh = {{pos, nv, 0}, tri, nt, SINEW_INDEX_U32, 0};
    sn_winding w;
    assert_int_equal(sn_winding_build(&env, &mesh, &w), SINEW_OK);
    support_rng rng;
    support_rng_seed(&rng, 3);
    double worst = 0.0;
    for (int k = 0; k < 200; ++k) {
        double q[3] = {support_rng_uniform(&rng, -2, 2), support_rng_uniform(&rng, -2, 2), support_rng_uniform(&rng, -2, 2)};
        double fast = sn_winding_number(&w, q), exact = brute_winding(pos, tri, nt, q);
        worst = fmax(worst, fabs(fast - exact));
        double r = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        if (r < 0.9 && fabs(fast - 1.0) > 0.02) fail_msg("r %g fast %g exact %g", r, fast, exact);
        if (r > 1.1) assert_float_equal(fast, 0.0, 0.02);
    }
    printf("winding: worst difference to brute force %.2e\n", worst);
    assert_true(worst < 0.01);
    sn_winding_free(&env, &w);
    /* Open: the upper half only (triangles whose centroid has z > 0): the
     * centre sees half the sphere. */
    size_t keep = 0;
    for (size_t t = 0; t < nt; ++t) {
        float z = (pos[3 * tri[3 * t] + 2] + pos[3 * tri[3 * t + 1] + 2] + pos[3 * tri[3 * t + 2] + 2]) / 3.0f;
        if (z > 0) memmove(tri + 3 * keep++, tri + 3 * t, 3 * sizeof(uint32_t));
    }
    sinew_trimesh half = {{pos, nv, 0}, tri, keep, SINEW_INDEX_U32, 0};
    assert_int_equal(sn_winding_build(&env, &half, &w), SINEW_OK);
    double c[3] = {0, 0, 0};
    assert_float_equal(sn_winding_number(&w, c), 0.5, 0.01);
    sn_winding_free(&env, &w);
    free(pos);
    free(tri);
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void test_simplex_projection(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 11);
    for (int t = 0; t < 500; ++t) {
        size_t m = 1 + (size_t)(support_rng_next(&rng) % 24);
        double v[24], s[24], ref[24];
        uint32_t idx[24];
        for (size_t j = 0; j < m; ++j) v[j] = ref[j] = support_rng_uniform(&rng, -1.0, 1.5);
        /* Sort-based reference. */
        memcpy(s, v, m * sizeof(double));
        qsort(s, m, sizeof(double), cmp_desc);
        double cum = 0.0, theta = 0.0;
        for (size_t k = 0; k < m; ++k) {
            cum += s[k];
            if (s[k] - (cum - 1.0) / (double)(k + 1) > 0) theta = (cum - 1.0) / (double)(k + 1);
        }
        for (size_t j = 0; j < m; ++j) ref[j] = fmax(ref[j] - theta, 0.0);
        sn_bbw_project_simplex(v, m, idx);
        for (size_t j = 0; j < m; ++j) assert_float_equal(v[j], ref[j], 1e-12);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_triplets_and_products),
        cmocka_unit_test(test_orderings),
        cmocka_unit_test(test_ldlt),
        cmocka_unit_test(test_ldlt_ordered),
        cmocka_unit_test(test_plane_cut_orderings),
        cmocka_unit_test(test_ldlt_supernodal),
        cmocka_unit_test(test_tile_kernels),
        cmocka_unit_test(test_single_solve),
        cmocka_unit_test(test_solve_blocking_bits),
        cmocka_unit_test(test_update_kernels),
        cmocka_unit_test(test_factor_kernels),
        cmocka_unit_test(test_winding),
        cmocka_unit_test(test_simplex_projection),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
