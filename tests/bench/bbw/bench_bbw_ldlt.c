/*
 * The sparse LDL^T under the bbw solver, kernel by kernel: the numeric
 * factorisation with the run-time picked column update against the portable
 * one, the multi-right-hand-side solve with the picked tile against the
 * portable one, and the single-precision solve (the bbw split's x-step
 * increments) with its picked tile against the double one, on
 * biharmonic-like operators of 3D grids (the squared
 * 7-point Laplacian plus a small shift: the stencil and the separators of a
 * voxel volume's Q). One thread; thread CPU time, best of three.
 * Usage: bench_bbw_ldlt [grid-size ...]   (default 16 24 32)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "linalg/ldlt.h"
#include "linalg/ldlt_kernels.h"

#include "support.h"

static sn_env env; /* the library's default allocator */

/* K^2 + shift I for the 7-point Laplacian K of an s^3 grid. */
static int grid_biharmonic(size_t s, double shift, sn_sparse *a)
{
    size_t n = s * s * s, cap = 7 * n, k = 0;
    uint32_t *ri = malloc(cap * sizeof(uint32_t)), *ci = malloc(cap * sizeof(uint32_t));
    double *v = malloc(cap * sizeof(double)), *ones = malloc(n * sizeof(double));
    int ok = ri && ci && v && ones;
    for (size_t p = 0; ok && p < n; ++p) {
        size_t x = p % s, y = p / s % s, z = p / (s * s);
        ones[p] = 1.0;
        ri[k] = ci[k] = (uint32_t)p;
        v[k++] = 6.0 + shift;
        const long step[3] = {1, (long)s, (long)(s * s)};
        const size_t at[3] = {x, y, z};
        for (int axis = 0; axis < 3; ++axis) {
            if (at[axis] > 0) ri[k] = (uint32_t)((long)p - step[axis]), ci[k] = (uint32_t)p, v[k++] = -1.0;
            if (at[axis] + 1 < s) ri[k] = (uint32_t)((long)p + step[axis]), ci[k] = (uint32_t)p, v[k++] = -1.0;
        }
    }
    sn_sparse lap;
    ok = ok && sn_sparse_from_triplets(&env, n, k, ri, ci, v, &lap) == SINEW_OK;
    if (ok) {
        ok = sn_sparse_sandwich(&env, &lap, ones, a) == SINEW_OK;
        sn_sparse_free(&env, &lap);
    }
    free(ri);
    free(ci);
    free(v);
    free(ones);
    return ok;
}

/* Best of three thread-CPU times of one factorisation with the update. */
static double time_factor(sn_ldlt *f, const sn_sparse *a, sn_ldlt_update_fn update)
{
    double best = INFINITY;
    for (int rep = 0; rep < 3; ++rep) {
        double t0 = support_cpu_now();
        if (sn_ldlt_factor_with(&env, f, a, update) != SINEW_OK) return NAN;
        best = fmin(best, support_cpu_now() - t0);
    }
    return best;
}

/* Best of three times of one solve for m right-hand sides with the tile. */
static double time_solve(const sn_ldlt *f, size_t m, sn_ldlt_tile_fn tile)
{
    size_t n = f->n;
    double *x = malloc(n * m * sizeof(double)), *work = malloc(n * m * sizeof(double));
    double best = INFINITY;
    for (int rep = 0; x && work && rep < 3; ++rep) {
        for (size_t k = 0; k < n * m; ++k) x[k] = (double)(k % 7) - 3.0;
        double t0 = support_cpu_now();
        sn_ldlt_solve_with(f, x, m, work, tile);
        best = fmin(best, support_cpu_now() - t0);
    }
    free(x);
    free(work);
    return best;
}

/* Best of three times of one single-precision solve for m right-hand sides
 * with the single tile (the values rounded once, untimed). */
static double time_solve_single(const sn_ldlt *f, const sn_ldlt_single *v, size_t m, sn_ldlt_tile_single_fn tile)
{
    size_t n = f->n;
    double *x = malloc(n * m * sizeof(double));
    float *work = malloc(n * sn_ldlt_single_width(m) * sizeof(float));
    double best = INFINITY;
    for (int rep = 0; x && work && rep < 3; ++rep) {
        for (size_t k = 0; k < n * m; ++k) x[k] = (double)(k % 7) - 3.0;
        double t0 = support_cpu_now();
        sn_ldlt_solve_single_with(f, v, x, m, work, tile);
        best = fmin(best, support_cpu_now() - t0);
    }
    free(x);
    free(work);
    return best;
}

static void run(size_t s)
{
    sn_sparse a;
    sn_ldlt f;
    if (!grid_biharmonic(s, 1e-3, &a)) {
        printf("bbw-ldlt/grid%zu: skipped (out of memory)\n", s);
        return;
    }
    if (sn_ldlt_analyse(&env, &a, NULL, &f) != SINEW_OK) {
        printf("bbw-ldlt/grid%zu: skipped (analysis failed)\n", s);
        sn_sparse_free(&env, &a);
        return;
    }
    double entries = (double)sn_ldlt_block_values(&f), flops = 0.0;
    /* A column with c entries below its pivot updates c (c + 1) / 2 entries
     * of the trailing matrix: a multiply and an add each. */
    for (size_t k = 0; k < f.super_count; ++k) {
        sn_ldlt_block bl = sn_ldlt_block_of(&f, k);
        for (size_t t = 0; t < bl.k; ++t) {
            double c = (double)(bl.ld - t - 1);
            flops += c * (c + 1.0);
        }
    }
    double portable = time_factor(&f, &a, sn_ldlt_update_portable());
    double best = time_factor(&f, &a, sn_ldlt_update_best());
    /* The AVX2 update beside the best one where the CPU picks AVX-512. */
    char avx2_text[64] = "";
    sn_ldlt_update_fn avx2 = sn_ldlt_update_avx2();
    if (avx2 && avx2 != sn_ldlt_update_best()) {
        double t2 = time_factor(&f, &a, avx2);
        snprintf(avx2_text, sizeof avx2_text, "; AVX2 update: %.2f Gflop/s, %.2fx", flops * 1e-9 / t2, t2 / best);
    }
    printf("bbw-ldlt/factor-grid%zu: %.2f Gflop/s (portable update: %.2f Gflop/s; %.2fx%s, %zu rows, %.1f M block "
           "entries, %.2f Gflop)\n",
           s, flops * 1e-9 / best, flops * 1e-9 / portable, portable / best, avx2_text, (size_t)f.n,
           entries * 1e-6, flops * 1e-9);
    const size_t ms[] = {1, 6, 20, 40};
    for (size_t c = 0; c < sizeof ms / sizeof ms[0]; ++c) {
        double tp = time_solve(&f, ms[c], sn_ldlt_tile_portable());
        double tb = time_solve(&f, ms[c], sn_ldlt_tile_best());
        /* A solve reads every block entry twice (forward and back), a
         * multiply and an add per right-hand side each time. */
        double sflops = 4.0 * entries * (double)ms[c];
        printf("bbw-ldlt/solve-grid%zu-m%zu: %.2f Gflop/s (portable tile: %.2f Gflop/s; %.2fx)\n", s, ms[c],
               sflops * 1e-9 / tb, sflops * 1e-9 / tp, tp / tb);
    }
    sn_ldlt_single v = {0};
    if (sn_ldlt_single_round(&env, &f, &v) == SINEW_OK)
        for (size_t c = 0; c < sizeof ms / sizeof ms[0]; ++c) {
            double tb = time_solve(&f, ms[c], sn_ldlt_tile_best());
            double ts = time_solve_single(&f, &v, ms[c], sn_ldlt_tile_single_best());
            double sflops = 4.0 * entries * (double)ms[c];
            /* The AVX2 single solve beside the double AVX2 one where the CPU picks AVX-512. */
            char avx2_text[96] = "";
            sn_ldlt_tile_single_fn avx2 = sn_ldlt_tile_single_avx2();
            if (avx2 && avx2 != sn_ldlt_tile_single_best() && sn_ldlt_tile_avx2()) {
                double t2 = time_solve_single(&f, &v, ms[c], avx2), t2d = time_solve(&f, ms[c], sn_ldlt_tile_avx2());
                snprintf(avx2_text, sizeof avx2_text, "; AVX2 tiles: single %.2f, double %.2f Gflop/s, %.2fx",
                         sflops * 1e-9 / t2, sflops * 1e-9 / t2d, t2d / t2);
            }
            printf("bbw-ldlt/solve-single-grid%zu-m%zu: %.2f Gflop/s (double solve: %.2f Gflop/s; %.2fx%s)\n", s,
                   ms[c], sflops * 1e-9 / ts, sflops * 1e-9 / tb, tb / ts, avx2_text);
        }
    sn_ldlt_single_free(&env, &v);
    sn_ldlt_free(&env, &f);
    sn_sparse_free(&env, &a);
}

int main(int argc, char **argv)
{
    sn_env_from_context(&env, NULL);
    if (argc > 1)
        for (int i = 1; i < argc; ++i) run((size_t)strtoul(argv[i], NULL, 10));
    else {
        run(16);
        run(24);
        run(32);
    }
    return 0;
}
