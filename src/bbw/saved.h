/*
 * The sections of saved bbw data (docs/bbw.md, "Save and load"), shared by
 * save.c and load.c. The domain, the handles' constraints (sparse rows of the
 * constrained vertices), the info figures and, once solved, the weights.
 * The point-location grid, the vertex states and the operators are rebuilt
 * from these on load.
 */
#ifndef SN_BBW_SAVED_H
#define SN_BBW_SAVED_H

#include "io/format.h"

#define SN_BBW_WHAT "bbw data"

#define SN_BBW_TAG_DOMAIN SN_TAG('B', 'D', 'O', 'M')       /* u64: dim, vertices, elements, handles */
#define SN_BBW_TAG_POSITIONS SN_TAG('B', 'P', 'O', 'S')    /* f64: 3 per vertex (z = 0 in 2D) */
#define SN_BBW_TAG_ELEMENTS SN_TAG('B', 'E', 'L', 'M')     /* u32: dim + 1 per element */
#define SN_BBW_TAG_REACH SN_TAG('B', 'R', 'C', 'H')        /* f64: how far outside queries snap */
#define SN_BBW_TAG_FIXED_VERTEX SN_TAG('B', 'C', 'V', 'X') /* u32: constrained vertices, increasing */
#define SN_BBW_TAG_FIXED_START SN_TAG('B', 'C', 'R', 'S')  /* u64: first entry of each row, and the end */
#define SN_BBW_TAG_FIXED_HANDLE SN_TAG('B', 'C', 'H', 'D') /* u32: handle of each entry, increasing per row */
#define SN_BBW_TAG_FIXED_VALUE SN_TAG('B', 'C', 'V', 'L')  /* f64: value of each entry, in (0, 1] */
#define SN_BBW_TAG_COUNTS SN_TAG('B', 'I', 'N', 'F')       /* u64: SN_BBW_COUNT_* */
#define SN_BBW_TAG_FIGURES SN_TAG('B', 'I', 'N', 'D')      /* u64: bits of the doubles SN_BBW_FIGURE_* */
#define SN_BBW_TAG_WEIGHTS SN_TAG('B', 'W', 'G', 'T')      /* f32: handles per vertex; only when solved */

/* Entries of the domain section. */
enum { SN_BBW_DOMAIN_DIM, SN_BBW_DOMAIN_VERTICES, SN_BBW_DOMAIN_ELEMENTS, SN_BBW_DOMAIN_HANDLES, SN_BBW_DOMAIN_N };

/* Entries of the counts section: sinew_bbw_info's integers, the solved
 * flag and the partition rule of the solve (0 before one). "None" for
 * first_unreached_vertex is UINT64_MAX. */
enum {
    SN_BBW_COUNT_CONSTRAINED,
    SN_BBW_COUNT_UNREACHED_VERTICES,
    SN_BBW_COUNT_UNREACHED_REGIONS,
    SN_BBW_COUNT_FIRST_UNREACHED,
    SN_BBW_COUNT_SOLVED,
    SN_BBW_COUNT_PARTITION,
    SN_BBW_COUNT_ITERATIONS,
    SN_BBW_COUNT_POLISH_ROUNDS,
    SN_BBW_COUNT_FACTOR_NONZEROS,
    SN_BBW_COUNT_N
};

/* Entries of the figures section: sinew_bbw_info's doubles, stored as
 * their bits because a residual or bound may be infinite. */
enum {
    SN_BBW_FIGURE_PRIMAL,
    SN_BBW_FIGURE_CHANGE,
    SN_BBW_FIGURE_ERROR_BOUND,
    SN_BBW_FIGURE_SECONDS_DOMAIN,
    SN_BBW_FIGURE_SECONDS_OPERATORS,
    SN_BBW_FIGURE_SECONDS_SOLVE,
    SN_BBW_FIGURE_N
};

#endif /* SN_BBW_SAVED_H */
