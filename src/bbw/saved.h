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


/* Format version 2: the volume's figures (VOLUME), and an automatic
 * volume's source (what it was made from, for the coarse-to-fine start:
 * SOURCE and the nine array sections after it, all or none). Data with
 * neither (every figure zero, no source) is version 1. Cages are
 * concatenated; SOURCE_CAGES holds each cage's vertex, edge and triangle
 * counts, its edges and triangles index its own vertices. */
#define SN_BBW_VERSION_VOLUME 2
#define SN_BBW_TAG_VOLUME SN_TAG('B', 'V', 'O', 'L')         /* u64: SN_BBW_VOLUME_* */
#define SN_BBW_TAG_SOURCE SN_TAG('B', 'S', 'R', 'C')         /* u64: SN_BBW_SOURCE_* */
#define SN_BBW_TAG_SOURCE_SURFACE SN_TAG('B', 'S', 'S', 'P') /* f32: 3 per surface vertex */
#define SN_BBW_TAG_SOURCE_TRIANGLES SN_TAG('B', 'S', 'S', 'T') /* u32: 3 per surface triangle */
#define SN_BBW_TAG_SOURCE_POINTS SN_TAG('B', 'S', 'P', 'T')  /* f32: 3 per point handle */
#define SN_BBW_TAG_SOURCE_JOINTS SN_TAG('B', 'S', 'J', 'P')  /* f32: 3 per joint */
#define SN_BBW_TAG_SOURCE_BONES SN_TAG('B', 'S', 'B', 'N')   /* u32: 2 per bone */
#define SN_BBW_TAG_SOURCE_CAGES SN_TAG('B', 'S', 'C', 'G')   /* u64: 3 per cage */
#define SN_BBW_TAG_SOURCE_CAGE_VERTICES SN_TAG('B', 'S', 'C', 'V') /* f32: 3 per cage vertex */
#define SN_BBW_TAG_SOURCE_CAGE_EDGES SN_TAG('B', 'S', 'C', 'E')    /* u32: 2 per cage edge */
#define SN_BBW_TAG_SOURCE_CAGE_TRIANGLES SN_TAG('B', 'S', 'C', 'T') /* u32: 3 per cage triangle */
#define SN_BBW_SOURCE_SECTIONS 10u

/* Entries of the volume section: sinew_bbw_info's figures of the volume
 * (doubles as their bits) and the coarse levels the last solve used. */
enum {
    SN_BBW_VOLUME_GRID_RESOLUTION,
    SN_BBW_VOLUME_REFINED_CELLS,
    SN_BBW_VOLUME_HANDLE_CELLS,
    SN_BBW_VOLUME_CELL_SIZE,
    SN_BBW_VOLUME_FINEST_CELL,
    SN_BBW_VOLUME_MAX_SNAP,
    SN_BBW_VOLUME_COARSE_LEVELS,
    SN_BBW_VOLUME_N
};

/* Entries of the source section: counts and the create options kept. */
enum {
    SN_BBW_SOURCE_SURFACE_VERTICES,
    SN_BBW_SOURCE_SURFACE_TRIANGLES,
    SN_BBW_SOURCE_POINTS,
    SN_BBW_SOURCE_JOINTS,
    SN_BBW_SOURCE_BONES,
    SN_BBW_SOURCE_CAGES,
    SN_BBW_SOURCE_HANDLE_TOLERANCE, /* bits of the float */
    SN_BBW_SOURCE_VOLUME_FLAGS,
    SN_BBW_SOURCE_POINT_PLACEMENT,
    SN_BBW_SOURCE_N
};

#endif /* SN_BBW_SAVED_H */
