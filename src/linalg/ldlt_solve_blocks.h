/*
 * The block loops of the supernodal solves, for one value type: the double
 * solve (ldlt_solve.c) and the single-precision one (ldlt_solve_single.c)
 * each define REAL (the values' type), TILE_FN (their tile's type) and
 * BLOCKS(name) (a suffix for the static names), then include this file, so
 * both walk the factor in the same order with their own tiles, and each
 * has the portable tile (the tests' reference) in its type.
 *
 * Every step is a tile: up to SN_LDLT_TILE target rows updated from a run
 * of source rows with coefficients from one block (ldlt_kernels.h), so the
 * targets stay in registers while the sources stream past. Every target
 * takes its sources in one fixed order whatever the blocking, so the
 * results depend only on the tile kernel.
 */

/* Bytes of source rows one pass over a block's targets keeps reusing: the
 * sources are cut into runs this large (at least SN_LDLT_TILE rows), and
 * every group of targets takes one run before the next run starts, so the
 * run stays in L1 (32 KiB on the machines tuned for) with room for the
 * coefficients and targets, instead of streaming from L2 once per group. */
#define SN_LDLT_SOURCE_RUN_BYTES 16384

/* Groups of SN_LDLT_TILE rows ahead whose coefficients the forward solve
 * prefetches: tuned so a group's lines (one per source column, each column
 * a different page of a large block) arrive while the groups before it run. */
#define SN_LDLT_PREFETCH_GROUPS 2

#if defined(__GNUC__) || defined(__clang__)
#  define PREFETCH(p) __builtin_prefetch(p)
#else
#  define PREFETCH(p) ((void)(p))
#endif

/* The forward solve reads a block across its columns, SN_LDLT_TILE rows
 * from each: each column's line is a miss the hardware prefetchers do not
 * foresee (too many streams, a page apart). Fetches the lines of the rows
 * SN_LDLT_PREFETCH_GROUPS groups below `row` (if the block has them) for
 * columns [c0, c0 + nc). */
static void BLOCKS(prefetch_rows_ahead)(const REAL *block, size_t ld, size_t row, size_t c0, size_t nc)
{
    size_t ahead = row + SN_LDLT_PREFETCH_GROUPS * SN_LDLT_TILE;
    if (ahead >= ld) return;
    for (size_t c = c0; c < c0 + nc; ++c) PREFETCH(block + c * ld + ahead);
}

/* Source rows per run for m right-hand sides (see SN_LDLT_SOURCE_RUN_BYTES). */
static size_t BLOCKS(source_run)(size_t m)
{
    size_t rows = m ? SN_LDLT_SOURCE_RUN_BYTES / (m * sizeof(REAL)) / SN_LDLT_TILE * SN_LDLT_TILE : 0;
    return rows < SN_LDLT_TILE ? SN_LDLT_TILE : rows; /* a multiple of SN_LDLT_TILE: runs start groups */
}

/* L Y = X over supernode s (values vals + its offset), a run of source
 * columns [p0, p1) at a time (right-looking by runs, left-looking inside
 * one): the run's own rows are finished from the run's earlier columns
 * (SN_LDLT_TILE rows, then their small triangle one row at a time), then
 * every later row of the block, in the triangle and below it, takes the
 * run's columns. Each row still takes its sources in increasing order, one
 * multiply-add each, so the bits do not depend on the run length; the run
 * stays in L1 for all the rows. */
static void BLOCKS(forward_block)(const sn_ldlt *f, const REAL *vals, size_t s, REAL *x, size_t m, TILE_FN tile)
{
    sn_ldlt_block bl = sn_ldlt_block_of(f, s);
    size_t k = bl.k, ld = bl.ld, run = BLOCKS(source_run)(m);
    const uint32_t *below = bl.rows;
    const REAL *block = vals + f->super_valptr[s];
    REAL *xs = x + bl.first * m, *targets[SN_LDLT_TILE];
    for (size_t p0 = 0; p0 < k; p0 += run) {
        size_t p1 = k - p0 < run ? k : p0 + run;
        const REAL *cols = block + p0 * ld;
        for (size_t i0 = p0; i0 < p1; i0 += SN_LDLT_TILE) {
            size_t ni = p1 - i0 < SN_LDLT_TILE ? p1 - i0 : SN_LDLT_TILE;
            for (size_t a = 0; a < ni; ++a) targets[a] = xs + (i0 + a) * m;
            BLOCKS(prefetch_rows_ahead)(block, ld, i0, p0, i0 - p0);
            tile(targets, ni, xs + p0 * m, NULL, i0 - p0, cols + i0, ld, 1, m);
            for (size_t a = 1; a < ni; ++a)
                tile(targets + a, 1, xs + i0 * m, NULL, a, block + i0 * ld + i0 + a, ld, 0, m);
        }
        /* Rows p1 .. k of the triangle, then the rows below the block. */
        for (size_t i0 = p1; i0 < ld;) {
            size_t end = i0 < k ? k : ld, ni = end - i0 < SN_LDLT_TILE ? end - i0 : SN_LDLT_TILE;
            for (size_t a = 0; a < ni; ++a)
                targets[a] = i0 < k ? xs + (i0 + a) * m : x + (size_t)below[i0 + a - k] * m;
            BLOCKS(prefetch_rows_ahead)(block, ld, i0, p0, p1 - p0);
            tile(targets, ni, xs + p0 * m, NULL, p1 - p0, cols + i0, ld, 1, m);
            i0 += ni;
        }
    }
}

/* L^T X = Y over supernode s: the rows below it (already final), a run of
 * them at a time for all the block's columns (each column still takes them
 * in increasing order), then its own triangle from the last group of
 * SN_LDLT_TILE columns back. */
static void BLOCKS(backward_block)(const sn_ldlt *f, const REAL *vals, size_t s, REAL *x, size_t m, TILE_FN tile)
{
    sn_ldlt_block bl = sn_ldlt_block_of(f, s);
    size_t k = bl.k, r = bl.r, ld = bl.ld;
    const uint32_t *below = bl.rows;
    const REAL *block = vals + f->super_valptr[s];
    REAL *xs = x + bl.first * m, *targets[SN_LDLT_TILE];
    size_t run = BLOCKS(source_run)(m);
    for (size_t p0 = 0; p0 < r; p0 += run) {
        size_t np = r - p0 < run ? r - p0 : run;
        for (size_t t0 = 0; t0 < k; t0 += SN_LDLT_TILE) {
            size_t nt = k - t0 < SN_LDLT_TILE ? k - t0 : SN_LDLT_TILE;
            for (size_t a = 0; a < nt; ++a) targets[a] = xs + (t0 + a) * m;
            tile(targets, nt, x, below + p0, np, block + t0 * ld + k + p0, 1, ld, m);
        }
    }
    for (size_t g = (k + SN_LDLT_TILE - 1) / SN_LDLT_TILE; g-- > 0;) {
        size_t t0 = g * SN_LDLT_TILE, nt = k - t0 < SN_LDLT_TILE ? k - t0 : SN_LDLT_TILE;
        for (size_t a = 0; a < nt; ++a) targets[a] = xs + (t0 + a) * m;
        tile(targets, nt, xs + (t0 + nt) * m, NULL, k - t0 - nt, block + t0 * ld + t0 + nt, 1, ld, m);
        for (size_t a = nt - 1; a-- > 0;)
            tile(targets + a, 1, xs + (t0 + a + 1) * m, NULL, nt - 1 - a, block + (t0 + a) * ld + t0 + a + 1, 1, 0,
                 m);
    }
}

/* Portable tile; the compiler vectorises the loop over right-hand sides. */
SN_NO_COVERAGE static void BLOCKS(tile_portable)(REAL *const *targets, size_t nt, const REAL *base,
                                                 const uint32_t *idx, size_t ns, const REAL *coef, size_t ct,
                                                 size_t ca, size_t m)
{
    for (size_t a = 0; a < nt; ++a) {
        REAL *y = targets[a];
        for (size_t t = 0; t < ns; ++t) {
            const REAL *x = base + (idx ? idx[t] : t) * m;
            REAL l = coef[t * ct + a * ca];
            for (size_t h = 0; h < m; ++h) y[h] -= l * x[h];
        }
    }
}

/* L D L^T X = B in place on work, already in the factor's order (n rows of
 * m values), with the block values vals and the pivots diag. */
static void BLOCKS(solve_ordered)(const sn_ldlt *f, const REAL *vals, const REAL *diag, REAL *work, size_t m,
                                  TILE_FN tile)
{
    for (size_t s = 0; s < f->super_count; ++s) BLOCKS(forward_block)(f, vals, s, work, m, tile);
    for (size_t j = 0; j < f->n; ++j) {
        REAL inv = (REAL)1 / diag[j];
        REAL *yj = work + j * m;
        for (size_t h = 0; h < m; ++h) yj[h] *= inv;
    }
    for (size_t s = f->super_count; s-- > 0;) BLOCKS(backward_block)(f, vals, s, work, m, tile);
}
