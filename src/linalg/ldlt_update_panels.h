/*
 * The panel loop and the panel-width dispatch the vector updates of the
 * LDL^T factorisation share (ldlt_factor_avx2.c, ldlt_factor_avx512.c).
 * Each unit defines INLINE, its group4 (four sources into NC targets) and
 * group1 (one source) and SN_LDLT_UPDATE_NAME, then includes this file
 * inside its ISA guard, so the loop is compiled with that unit's flags and
 * inlines its kernels. Sources go in groups of four, then one at a time,
 * as in the portable update.
 */
INLINE void update_nc(double *c, size_t ldc, size_t len, size_t NC, const double *a, size_t lda, const double *w,
                      size_t kk)
{
    size_t t = 0;
    for (; t + 4 <= kk; t += 4) group4(c, ldc, len, NC, a + t * lda, lda, w + t * NC);
    for (; t < kk; ++t) group1(c, ldc, len, NC, a + t * lda, w + t * NC);
}

/* The sn_ldlt_update_fn of the unit: the panel width as a constant. */
static void SN_LDLT_UPDATE_NAME(double *c, size_t ldc, size_t len, size_t nc, const double *a, size_t lda,
                                const double *w, size_t kk)
{
    switch (nc) {
    case 4: update_nc(c, ldc, len, 4, a, lda, w, kk); break;
    case 3: update_nc(c, ldc, len, 3, a, lda, w, kk); break;
    case 2: update_nc(c, ldc, len, 2, a, lda, w, kk); break;
    case 1: update_nc(c, ldc, len, 1, a, lda, w, kk); break;
    default: break;
    }
}
