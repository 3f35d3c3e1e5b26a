/*
 * sinew: bounded biharmonic weights (Jacobson, Baran, Popović, Sorkine 2011).
 *
 * Skinning weights computed, not painted: each handle's weight minimises the
 * Laplacian energy over a volume (or 2D area) discretisation, equals 1 on its
 * handle and 0 on the others, stays within [0, 1], and (by default) the
 * weights sum to exactly one everywhere.
 *
 * Phases:
 *   1. sinew_bbw_create: domain (a given triangle/tet mesh, or an automatic
 *      voxel volume inside a surface), cotangent Laplacian and lumped mass,
 *      handles snapped to domain vertices, validation. Allocates.
 *   2. sinew_bbw_solve: the quadratic program, with one sparse LDL^T
 *      factorisation shared by every handle and every iteration. Modifies the
 *      handle (needs external locking).
 *   3. Queries (const, never allocate, thread-safe): weights at domain
 *      vertices, at arbitrary points, and the top-k influences in the layout
 *      the skinning phase takes (vertex-major, k slots per vertex).
 *
 * Handles are numbered: point handles first (in order), then bones, then the
 * vertices of each cage in turn. With bones only, handle j is bone j.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_BBW_H
#define SINEW_BBW_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_bbw sinew_bbw;

/* A cage: its vertices are handles; its edges (2D polylines, or 3D wires) and
 * triangles (3D faces; triangulate polygons first) make the weights inside
 * them the linear interpolation of the vertex handles' weights. A cage may be
 * open. */
typedef struct sinew_bbw_cage {
    sinew_points vertices;
    const uint32_t *edges;          /* 2 vertex indices per edge */
    size_t edge_count;
    const uint32_t *triangles;      /* 3 vertex indices per triangle (3D only) */
    size_t triangle_count;
} sinew_bbw_cage;

/* Everything sinew_bbw_create needs. SINEW_INIT it, then set exactly one
 * domain: `triangles` (2D: z ignored), `tets` (3D), or `surface` (3D
 * automatic volume). */
typedef struct sinew_bbw_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* ---- domain (exactly one) ---- */
    const sinew_trimesh *triangles;  /* 2D domain in the xy plane, either orientation */
    const sinew_tetmesh *tets;       /* 3D domain, positively oriented tets */
    const sinew_trimesh *surface;    /* 3D surface, closed or open: volume = grid
                                        cells whose centre has winding number >= 1/2
                                        (<= -1/2 for a surface wound inwards) */
    uint32_t grid_resolution;        /* automatic volume: cells along the longest
                                        side of the surface's box; 0 = 32 */
    /* ---- handles ---- */
    sinew_points points;             /* point handles */
    sinew_points joint_positions;    /* skeleton joints (needed with bones only) */
    const uint32_t *bones;           /* 2 joint_positions indices per bone (segment handle) */
    size_t bone_count;
    const sinew_bbw_cage *cages;
    size_t cage_count;
    /* Distance within which a handle outside the domain is still accepted and
     * snapped onto it, relative to the diagonal of the domain's box. 0 = 1e-4
     * for given meshes; the automatic volume always accepts one grid cell. */
    float handle_tolerance;
    /* ---- graded automatic volume, exact point handles ---- */
    /* Automatic volume (flags, 0 = graded, the default): coarse cells that
     * hold a point handle or that a bone crosses join the volume even where
     * the surface's winding number says outside (a handle a little inside a
     * thin horn, ear or finger the grid does not resolve), and the cells near
     * each handle are bisected (conforming Kuhn refinement) until the handle
     * is resolved: cells no larger than half its distance to the nearest
     * other handle (for a bone also a quarter of its length, around its
     * middle half), at most 4 halvings of the grid cell; what was chosen is
     * in sinew_bbw_info. SINEW_BBW_VOLUME_UNIFORM gives the plain grid of
     * earlier releases. */
    uint32_t volume_flags;
    /* How point handles and cage vertices meet the domain (0 =
     * SINEW_BBW_PLACE_SNAP). */
    uint32_t point_placement;
    /* What a handle (or part of one) farther than handle_tolerance outside
     * the domain does (0 = SINEW_BBW_OUTSIDE_CLIP). */
    uint32_t handle_outside;
} sinew_bbw_desc;

/* sinew_bbw_desc.handle_outside. */
typedef enum sinew_bbw_outside {
    /* A bone keeps the samples that lie in the domain; a bone with none, a
     * point or a cage vertex outside fixes the domain vertex nearest to it;
     * a cage edge or face keeps its samples inside. sinew_bbw_info counts
     * the handles so clipped or moved (clipped_handle_count) and how far. */
    SINEW_BBW_OUTSIDE_CLIP = 0,
    /* Any handle outside fails with OUTSIDE_DOMAIN naming it. */
    SINEW_BBW_OUTSIDE_REFUSE = 1
} sinew_bbw_outside;

/* The defaults sinew_bbw_create uses (docs/api.md, Defaults): *resolved =
 * desc (NULL = all zero) with every zero field that has a default replaced by
 * it (grid_resolution, handle_tolerance), so creating with *resolved does the
 * same as with desc. Other fields are copied unchecked. resolved must be
 * SINEW_INIT'ed and is written up to its struct_size. INVALID_ARGUMENT (NULL
 * resolved), UNSUPPORTED (unknown nonzero desc bytes). Thread-safe. */
SINEW_API sinew_result sinew_bbw_desc_defaults(const sinew_bbw_desc *desc, sinew_bbw_desc *resolved);

/* sinew_bbw_desc.volume_flags. */
#define SINEW_BBW_VOLUME_UNIFORM 1u  /* no added handle cells, no refinement */

/* sinew_bbw_desc.point_placement. */
typedef enum sinew_bbw_placement {
    /* The handle fixes the nearest corner of the element containing it (up to
     * half an element away: sinew_bbw_info.max_snap_distance says how far). */
    SINEW_BBW_PLACE_SNAP = 0,
    /* That corner is moved onto the handle point itself, so the weight is
     * exactly 1 at the point, when every element around the corner keeps at
     * least a tenth of its volume (area) and its orientation; otherwise as far
     * towards the point as that allows (never farther than the snap). The
     * domain's vertices change: sinew_bbw_domain_vertices returns the moved
     * ones. Cage vertices are moved the same way (max_snap_distance counts
     * points only). */
    SINEW_BBW_PLACE_MOVE_VERTEX = 1
} sinew_bbw_placement;

/* How partition of unity is obtained. */
typedef enum sinew_bbw_partition {
    SINEW_BBW_PARTITION_EXACT = 0,      /* weights sum to one as a constraint (default) */
    SINEW_BBW_PARTITION_NORMALISE = 1   /* each handle solved alone in [0, 1], then each
                                           vertex's weights divided by their sum (the
                                           paper's fast variant) */
} sinew_bbw_partition;

typedef struct sinew_bbw_solve_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    sinew_bbw_partition partition;
    /* Accuracy asked of the weights: the solve returns OK once it has
     * certified (by a duality gap, see sinew_bbw_info.error_bound) that the
     * root mean square of the float weights' error against the exact
     * minimiser, mass-weighted over the domain, is at most this. Weights are
     * unitless, so it is relative by nature. The largest single error is
     * typically of the same size (docs/bbw.md). Below 2^-23 (1.2e-7, the
     * float weights' resolution) the tolerance is asked of the solver's
     * internal doubles: the float weights then carry their rounding (up to
     * 6e-8 RMS) on top, and error_bound says so. 0 = 1e-4. */
    double tolerance;
    uint32_t max_iterations;         /* 0 = 5000 */
    /* Shape preservation (paper section 3.3): per-element mask (>= 0, one per
     * triangle or tet of the domain; NULL = none) and its strength relative
     * to the biharmonic energy (0 with a mask = 1). Masked elements resist any
     * change of the weights across them, so the region moves rigidly/affinely. */
    const float *shape_mask;
    size_t shape_mask_count;
    double shape_strength;
    /* Penalty of the splitting method relative to the operator's own scale,
       sqrt(smallest eigenvalue of Q v = lambda M v * mean of diag(Q)/M);
       0 = the tuned default (0.03). Adapted during the solve from this
       start (raised while the primal residual leads or the bound stalls,
       lowered once when the dual residual leads far: docs/bbw.md).
       Affects speed only, not the answer. */
    double penalty;
    /* Warm start: weights to start the iteration from,
     * vertex-major (initial_weights[v * handle_count + j]),
     * initial_weights_count = vertex_count * handle_count (MISMATCH
     * otherwise), all finite (NON_FINITE naming the vertex and handle); NULL
     * = the unconstrained biharmonic start. Rows are projected onto the
     * feasible set first; constrained vertices keep their constraints. A
     * start near the answer (the weights of a coarser volume sampled with
     * sinew_bbw_point_weights, or of this domain before a small edit) saves
     * iterations; the answer and its certificate do not depend on it. */
    const float *initial_weights;
    size_t initial_weights_count;
    /* Coarse-to-fine start for an automatic volume (a bbw created from a
     * surface, or loaded from data saved by one): solve the same surface and
     * handles at half the grid resolution (to 1e-3, recursively) and start
     * from those weights. 0 = automatic (the default): a volume of at least
     * 1,000 vertices and 16 cells whose solve has not finished within its
     * first 40 iterations restarts from the coarser levels (others, and
     * given meshes, run as with SINEW_BBW_COARSE_NONE); n = up to n levels
     * from the start (INVALID_STATE for a bbw that keeps no surface);
     * SINEW_BBW_COARSE_NONE = never. Levels stop at 8 cells or 1,000
     * vertices; ignored with initial_weights. On large volumes it cuts the
     * iterations 2-4x (docs/bbw.md). The answer and its certificate do not
     * depend on it. */
    uint32_t coarse_levels;
} sinew_bbw_solve_desc;

/* The defaults sinew_bbw_solve uses (docs/api.md, Defaults): *resolved = desc
 * (NULL = all zero) with every zero field that has a default replaced by it
 * (tolerance, max_iterations, penalty; shape_strength when a shape_mask is
 * given; coarse_levels 0 is a mode, automatic, and stays 0), so solving with
 * *resolved does the same as with desc. Other fields are copied unchecked.
 * resolved must be SINEW_INIT'ed and is written up to its struct_size.
 * INVALID_ARGUMENT (NULL resolved), UNSUPPORTED (unknown nonzero desc bytes).
 * Thread-safe. */
SINEW_API sinew_result sinew_bbw_solve_desc_defaults(const sinew_bbw_solve_desc *desc,
                                                    sinew_bbw_solve_desc *resolved);

/* sinew_bbw_solve_desc.coarse_levels: always start on the volume itself. */
#define SINEW_BBW_COARSE_NONE 0xFFFFFFFFu

/* What create and solve found. */
typedef struct sinew_bbw_info {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    size_t vertex_count;             /* domain vertices */
    size_t element_count;            /* domain triangles or tets */
    size_t handle_count;
    size_t constrained_vertex_count; /* domain vertices fixed by handles */
    size_t unreached_vertex_count;   /* vertices in regions no handle reaches: all-zero weights */
    size_t unreached_region_count;
    size_t first_unreached_vertex;   /* a vertex of the first such region (SIZE_MAX if none) */
    int solved;                      /* nonzero after a solve that returned OK or NOT_CONVERGED */
    uint32_t iterations;             /* splitting iterations plus interior-point steps (docs/bbw.md) */
    uint32_t polish_rounds;          /* exact active-set solves made (0: none affordable) */
    double primal_residual;          /* max |x - z| of the split variables at the end */
    double change_residual;          /* max weight change in the last iteration */
    /* Certified bound on the mass-weighted root mean square, over the free
     * vertices, of the error of the float weights sinew_bbw_vertex_weights
     * returns (per vertex the Euclidean norm over handles) against the
     * exact minimiser: sqrt(2 gap / (lambda_min free mass)) with the duality
     * gap of the solver's double weights and lambda_min a certified lower
     * bound on the smallest eigenvalue of Q v = lambda M v (docs/bbw.md),
     * plus the RMS of their rounding to float. In the per-handle variant the
     * first part bounds the weights before normalisation. After OK it is at
     * most the tolerance (tolerances below 1.2e-7: see tolerance). After
     * NOT_CONVERGED: the best bound reached (those weights are kept). */
    double error_bound;
    size_t factor_nonzeros;          /* entries of the sparse factor */
    double seconds_domain, seconds_operators, seconds_solve; /* wall-clock */
    /* Every byte the handle holds: domain, operators, factor, weights, and an
     * automatic volume's kept surface and handles. */
    size_t memory_bytes;
    /* ---- the volume and the handles as built ---- */
    /* Automatic volume (zero for a given mesh): the grid's cells along the
     * longest side, its cell edge, the edge of the smallest cube the
     * refinement near handles reached (= grid_cell_size without refinement),
     * the grid cells refined, and the cells added to the volume because a
     * handle lies or passes in them outside the surface. */
    uint32_t grid_resolution;
    double grid_cell_size;
    double finest_cell_size;
    size_t refined_cell_count;
    size_t handle_cell_count;
    /* Largest distance from a point handle to the domain vertex it fixes
     * (world units; 0 when every point was placed exactly). */
    double max_snap_distance;
    /* Coarser volumes the last solve started from (see coarse_levels). */
    uint32_t coarse_levels_used;
    /* Handles that lay partly or wholly outside the domain and were clipped
     * or moved (SINEW_BBW_OUTSIDE_CLIP), the first of them (SIZE_MAX if
     * none) and the largest distance involved (world units): for a clipped
     * bone or cage edge/face the length of it beyond the part kept, for a
     * moved handle the distance to the vertex it fixes. Not saved: a loaded
     * handle reports 0 and SIZE_MAX. */
    size_t clipped_handle_count;
    size_t first_clipped_handle;
    double max_clip_distance;
} sinew_bbw_info;

/* Builds the domain, the operators and the handle constraints.
 * Returns SINEW_OK; INVALID_ARGUMENT (NULL desc/out, not exactly one domain,
 * no handle, a cage in 2D with triangles); NON_FINITE (coordinate, named);
 * INDEX_OUT_OF_RANGE (element/bone/cage index, named); DEGENERATE (zero-area
 * triangle, zero-volume tet, zero-length bone, handles that collapse onto the
 * same domain vertices, an automatic volume with no inside cell); OUTSIDE_DOMAIN
 * (handle outside the domain, named, with SINEW_BBW_OUTSIDE_REFUSE); SIZE_OVERFLOW; OUT_OF_MEMORY; CANCELLED.
 * Regions of the domain that no handle reaches do not fail: they are counted in
 * sinew_bbw_info and get zero weights. ctx may be NULL. Thread-safe for
 * distinct outputs. */
SINEW_API sinew_result sinew_bbw_create(sinew_context *ctx, const sinew_bbw_desc *desc, sinew_bbw **out);

/* Destroys a handle (NULL is fine). */
SINEW_API void sinew_bbw_destroy(sinew_bbw *bbw);

/* Solves for the weights. ctx: this call's progress callback (NULL = none);
 * memory comes from the handle's allocator. desc may be NULL (defaults). Returns SINEW_OK;
 * SINEW_ERROR_NOT_CONVERGED when the iteration cap is reached: the weights with
 * the best certified bound (feasible: bounded, partition of unity) are kept,
 * the bound is in sinew_bbw_info and the message (iterations, bound, what to
 * try); INVALID_ARGUMENT (bad option, negative mask
 * value); MISMATCH (mask count not the element count); NON_FINITE (mask
 * value); DEGENERATE (the operator is not positive definite); OUT_OF_MEMORY;
 * CANCELLED
 * (previous weights kept). Progress stages: "bbw: factorise", "bbw: iterate".
 * ctx's parallel_for hook, when set, runs the solve's loops (docs/api.md).
 * Modifies bbw: not thread-safe on the same handle. */
SINEW_API sinew_result sinew_bbw_solve(sinew_context *ctx, sinew_bbw *bbw, const sinew_bbw_solve_desc *desc);

/* Copies the handle's counts, residuals and timings into *info. Thread-safe.
 * On success it leaves sinew_last_error() as it was, so a failure's message
 * (a solve that did not converge) can still be read after the info. */
SINEW_API sinew_result sinew_bbw_get_info(const sinew_bbw *bbw, sinew_bbw_info *info);

/* Domain vertex positions (3 floats each; z = 0 in 2D) for [first, first+count)
 * into out, vertex i at byte offset i * out_stride (0 = packed): lets callers
 * draw the automatic volume.
 * INVALID_ARGUMENT on NULL, a bad out_stride (0 or a multiple of 4 that is at
 * least 12) or an out not aligned to 4 bytes, INDEX_OUT_OF_RANGE on a bad
 * range, SIZE_OVERFLOW when count vertices at out_stride overflow size_t.
 * Thread-safe. */
SINEW_API sinew_result sinew_bbw_domain_vertices(const sinew_bbw *bbw, float *out, size_t out_stride, size_t first,
                                                 size_t count);

/* Domain elements (3 or 4 indices each, packed: element i at out[i * per]
 * with per 3 in 2D, 4 in 3D) for [first, first+count). Thread-safe. */
SINEW_API sinew_result sinew_bbw_domain_elements(const sinew_bbw *bbw, uint32_t *out, size_t first,
                                                 size_t count);

/* Weights at domain vertices [first, first+count): handle_count floats per
 * vertex, packed, vertex-major (out[v * handle_count + j], by vertex number). INVALID_STATE
 * before a successful solve; INVALID_ARGUMENT for an out not aligned to 4
 * bytes (as for every float or index output below). Never allocates;
 * thread-safe. */
SINEW_API sinew_result sinew_bbw_vertex_weights(const sinew_bbw *bbw, float *out, size_t first, size_t count);

/* Weights at arbitrary points (handle_count floats per point, packed,
 * point-major: out[i * handle_count + j] for point i) by barycentric
 * interpolation in the containing element. Points slightly outside the domain
 * (within a few cells of its element grid, e.g. surface vertices around an
 * automatic volume) take the weights of the nearest element's closest point;
 * farther points fail with OUTSIDE_DOMAIN naming the point. Points
 * [first, first+count) are read and their rows written. INVALID_STATE before
 * a solve. Never allocates; thread-safe. */
SINEW_API sinew_result sinew_bbw_point_weights(const sinew_bbw *bbw, const sinew_points *points, float *out,
                                               size_t first, size_t count);

/* Top-k influences per point in the skinning layout (k = influence_count
 * slots, packed): out_joints[i * k + s] (handle index) and out_weights[i * k + s] for
 * point i in [first, first + count), sorted by decreasing weight, renormalised
 * to sum to one; unused slots have joint 0 and weight 0. points NULL = domain
 * vertices. influence_count in 1 .. 64. Same rules as
 * sinew_bbw_point_weights. Never allocates; thread-safe. */
SINEW_API sinew_result sinew_bbw_top_k(const sinew_bbw *bbw, const sinew_points *points, size_t influence_count,
                                       uint32_t *out_joints, float *out_weights, size_t first, size_t count);

/* ---- Save and load (core.h "Saved data", docs/bbw.md) ---- */

/* Saves the domain, the handles' constraints, the info figures and, once
 * solved, the weights into buffer (capacity bytes). buffer NULL asks for the
 * size (SINEW_OK, *size = bytes needed); a smaller capacity is
 * SINEW_ERROR_BUFFER_TOO_SMALL with *size = bytes needed and nothing
 * written; else *size = bytes written. The same handle always gives the
 * same bytes. INVALID_ARGUMENT (NULL bbw or size); OUT_OF_MEMORY (a little
 * scratch for the constraints, from the handle's allocator, when writing).
 * Thread-safe (reads the handle only). */
SINEW_API sinew_result sinew_bbw_save(const sinew_bbw *bbw, void *buffer, size_t capacity, size_t *size);

/* Loads a handle saved by sinew_bbw_save from size bytes at data (its
 * memory from ctx's allocator; ctx may be NULL). Queries on it equal the
 * saved handle's bit for bit; data saved before a solve loads unsolved, and
 * a loaded handle can be solved (again): its operators are rebuilt at that
 * first solve. Every value is checked: INVALID_DATA (not whole, intact
 * sinew data, or contents that do not add up), MISMATCH (another kind),
 * UNSUPPORTED (a newer format), and create's codes for contents create
 * would refuse (INDEX_OUT_OF_RANGE, DEGENERATE, INVALID_WEIGHTS, ...), each
 * message starting "bbw data: " and naming the element; INVALID_ARGUMENT
 * (NULL data or out); OUT_OF_MEMORY. On failure *out is untouched.
 * Thread-safe for distinct outputs. */
SINEW_API sinew_result sinew_bbw_load(sinew_context *ctx, const void *data, size_t size, sinew_bbw **out);

/* ---- One call: skinning weights from a surface and a skeleton ---- */

/* The certified error bound (mass-weighted RMS, as sinew_bbw_solve_desc's
 * tolerance) sinew_bbw_auto_weights asks by default: loose enough to stop
 * early, tight enough that the top-k weights differ from a converged solve
 * on the same domain by at most 0.02 on the rig set of docs/bbw.md. */
#define SINEW_BBW_AUTO_TOLERANCE 1e-3

typedef struct sinew_bbw_auto_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* The mesh to weight: any triangle surface (closed, open, in parts,
     * inside out, a triangle soup, or flat). Its vertices get the weights. */
    const sinew_trimesh *surface;
    /* Handles, numbered points first, then bones (as sinew_bbw_desc). */
    sinew_points joint_positions;
    const uint32_t *bones;           /* 2 joint_positions indices per bone */
    size_t bone_count;
    sinew_points points;             /* optional point handles */
    size_t influence_count;          /* slots per vertex, 1..64; 0 = 4 */
    uint32_t grid_resolution;        /* automatic volume's cells along the longest side; 0 = 32 */
    double tolerance;                /* 0 = SINEW_BBW_AUTO_TOLERANCE */
    uint32_t max_iterations;         /* 0 = 5000 */
    uint32_t handle_outside;         /* sinew_bbw_outside; 0 = clip */
} sinew_bbw_auto_desc;

/* The defaults sinew_bbw_auto_weights uses (docs/api.md, Defaults): *resolved
 * = desc (NULL = all zero) with every zero field that has a default replaced
 * by it (influence_count, grid_resolution, tolerance, max_iterations;
 * handle_outside 0 is SINEW_BBW_OUTSIDE_CLIP itself), so weighting with
 * *resolved does the same as with desc. Other fields are copied unchecked.
 * resolved must be SINEW_INIT'ed and is written up to its struct_size.
 * INVALID_ARGUMENT (NULL resolved), UNSUPPORTED (unknown nonzero desc bytes).
 * Thread-safe. */
SINEW_API sinew_result sinew_bbw_auto_desc_defaults(const sinew_bbw_auto_desc *desc, sinew_bbw_auto_desc *resolved);

/* What sinew_bbw_auto_weights did. */
typedef struct sinew_bbw_auto_report {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    uint32_t dimension;                 /* 3: automatic volume; 2: the flat surface itself */
    size_t welded_vertex_count;         /* surface vertices after merging equal positions */
    size_t component_count;             /* connected parts of the welded surface */
    size_t flipped_component_count;     /* closed parts wound inwards, turned outwards */
    /* Handles clipped or moved (sinew_bbw_info's figures). */
    size_t clipped_handle_count;
    size_t first_clipped_handle;        /* SIZE_MAX if none */
    double max_clip_distance;           /* world units */
    /* Surface vertices the domain did not weight (outside its reach, or in a
     * part no handle reaches), weighted from the nearest reached domain
     * vertex instead, and the domain's regions no handle reaches. */
    size_t attached_surface_vertex_count;
    size_t unreached_region_count;
    size_t unweighted_surface_vertex_count; /* rows left all zero: 0 unless no domain vertex is reached */
    uint32_t grid_resolution;
    size_t domain_vertex_count;
    uint32_t iterations;
    double error_bound;                 /* certified, as sinew_bbw_info.error_bound */
    int converged;                      /* the bound is within the tolerance */
    /* Wall-clock seconds: surface preparation, domain, operators, solve,
     * the weights at the vertices, and the whole call. */
    double seconds_prepare, seconds_domain, seconds_operators, seconds_solve, seconds_weights, seconds_total;
} sinew_bbw_auto_report;

/* Skinning weights for desc->surface's vertices in one call: welds the
 * surface by position, turns closed parts wound inwards outwards, builds
 * the automatic volume (a flat surface: the 2D domain of its own triangles
 * in its plane), clips handles outside it, solves to desc->tolerance and
 * writes the top influence_count influences of every surface vertex in the
 * layout sinew_skin_create takes: joints[v * k + s] (handle index) and
 * weights[v * k + s], sorted by decreasing weight, each row summing to one.
 * Vertices the domain does not weight take the row of the nearest domain
 * vertex a handle reaches (docs/bbw.md). joints and weights hold
 * entry_count = vertex count * k entries each (MISMATCH otherwise). report
 * may be NULL. Returns SINEW_OK; NOT_CONVERGED (outputs and report filled
 * with the best weights reached); create's and solve's codes; outputs are
 * untouched on any other failure. ctx: allocator, progress, parallel_for.
 * Thread-safe for distinct outputs. */
SINEW_API sinew_result sinew_bbw_auto_weights(sinew_context *ctx, const sinew_bbw_auto_desc *desc, uint32_t *joints,
                                              float *weights, size_t entry_count, sinew_bbw_auto_report *report);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_BBW_H */
