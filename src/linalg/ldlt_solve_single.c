/*
 * Solves with a single-precision copy of the factor's values (ldlt.h):
 * half the bytes per coefficient and twice the values per vector
 * instruction. The block loops are those of the double solve
 * (ldlt_solve_blocks.h), over float values and float right-hand sides.
 */
#include "linalg/ldlt.h"
#include "linalg/ldlt_kernels.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Rows of the float right-hand sides are padded with zero columns to a
 * multiple of this: whole vector registers of 8 floats (AVX2) or 16 and 8
 * (AVX-512), so a handle count like 6 or 20 takes no one-column passes over
 * the factor, at the price of a few columns computed on zeros. */
#define SN_LDLT_SINGLE_PAD 8

#define REAL float
#define TILE_FN sn_ldlt_tile_single_fn
#define BLOCKS(name) name##_single
#include "linalg/ldlt_solve_blocks.h"

sn_ldlt_tile_single_fn sn_ldlt_tile_single_portable(void) { return tile_portable_single; }

sn_ldlt_tile_single_fn sn_ldlt_tile_single_best(void)
{
    sn_ldlt_tile_single_fn tile = sn_ldlt_tile_single_avx512();
    if (!tile) tile = sn_ldlt_tile_single_avx2();
    return tile ? tile : tile_portable_single;
}

void sn_ldlt_single_free(const sn_env *env, sn_ldlt_single *v)
{
    sn_free(env, v->vals);
    sn_free(env, v->diag);
    memset(v, 0, sizeof *v);
}

sinew_result sn_ldlt_single_round(const sn_env *env, const sn_ldlt *f, sn_ldlt_single *v)
{
    size_t count = sn_ldlt_block_values(f);
    if (v->count != count || v->n != f->n || !v->vals) {
        sn_ldlt_single_free(env, v);
        v->vals = sn_alloc_array(env, count + 1, sizeof(float), "single-precision factor values");
        v->diag = sn_alloc_array(env, f->n + 1, sizeof(float), "single-precision factor diagonal");
        if (!v->vals || !v->diag) {
            sn_ldlt_single_free(env, v);
            return sn_alloc_failure();
        }
        v->count = count;
        v->n = f->n;
    }
    int finite = 1;
    for (size_t i = 0; i < count; ++i) {
        v->vals[i] = (float)f->super_vals[i];
        finite &= fabsf(v->vals[i]) <= FLT_MAX;
    }
    for (size_t j = 0; j < f->n; ++j) {
        v->diag[j] = (float)f->diag[j];
        finite &= fabsf(v->diag[j]) >= FLT_MIN && fabsf(v->diag[j]) <= FLT_MAX;
    }
    v->representable = finite;
    return SINEW_OK;
}

size_t sn_ldlt_single_width(size_t m)
{
    return (m + SN_LDLT_SINGLE_PAD - 1) / SN_LDLT_SINGLE_PAD * SN_LDLT_SINGLE_PAD;
}

void sn_ldlt_solve_single(const sn_ldlt *f, const sn_ldlt_single *v, double *x, size_t m, float *work)
{
    sn_ldlt_solve_single_with(f, v, x, m, work, sn_ldlt_tile_single_best());
}

void sn_ldlt_solve_single_with(const sn_ldlt *f, const sn_ldlt_single *v, double *x, size_t m, float *work,
                               sn_ldlt_tile_single_fn tile)
{
    size_t n = f->n, w = sn_ldlt_single_width(m);
    for (size_t k = 0; k < n; ++k) {
        const double *src = x + (size_t)f->perm[k] * m;
        float *dst = work + k * w;
        for (size_t h = 0; h < m; ++h) dst[h] = (float)src[h];
        for (size_t h = m; h < w; ++h) dst[h] = 0.0f;
    }
    solve_ordered_single(f, v->vals, v->diag, work, w, tile);
    for (size_t k = 0; k < n; ++k) {
        const float *src = work + k * w;
        double *dst = x + (size_t)f->perm[k] * m;
        for (size_t h = 0; h < m; ++h) dst[h] = (double)src[h];
    }
}
