/*
 * sinew: trivariate B-spline free-form deformation (Schein & Elber).
 *
 * A lattice is a trivariate B-spline F(u, v, w) over the unit cube, with clamped
 * uniform knots and an order of its own per axis, placed in world space as an
 * oriented box. Its rest control points sit at the Greville abscissae, so an
 * untouched lattice is the identity. The library stores each control point as a
 * displacement from that rest lattice (as Blender does) and deforms a world
 * point p as p + sum D_ijk B_i(u) B_j(v) B_k(w): an untouched lattice leaves
 * every point bit-for-bit unchanged.
 *
 * Control point (i, j, k), 0 <= i < count[0] (u), j < count[1] (v),
 * k < count[2] (w), has index i + count[0] * (j + count[1] * k).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_LATTICE_H
#define SINEW_LATTICE_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Highest order (degree + 1) per axis: 8, i.e. degree 7. */
#define SINEW_LATTICE_MAX_ORDER 8

/* What happens to a point whose parameters fall outside [0, 1] on some axis. */
typedef enum sinew_lattice_outside {
    /* The point is not deformed: world points come out unchanged, parameter
     * points come out at their place in the undeformed box. Default. */
    SINEW_LATTICE_OUTSIDE_LEAVE = 0,
    /* The point moves with the nearest boundary point: its parameters are
     * clamped to [0, 1] to look up the displacement. Continuous. */
    SINEW_LATTICE_OUTSIDE_CLAMP = 1,
    /* Each axis' basis functions continue as their tangent lines beyond the
     * boundary, so the deformation extends linearly (C1 across the boundary,
     * identity and affine maps still reproduced). */
    SINEW_LATTICE_OUTSIDE_EXTEND = 2
} sinew_lattice_outside;

typedef struct sinew_lattice_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* Control points per axis (u, v, w); 0 = the axis' order (one Bezier
     * cell). Each must be >= that axis' order. */
    uint32_t count[3];
    /* Order per axis, 2 (trilinear) .. SINEW_LATTICE_MAX_ORDER; 0 = 4 (cubic). */
    uint32_t order[3];
    /* World position of parameter (0, 0, 0). */
    float origin[3];
    /* Directions of the u, v and w edges of the box (need not be unit length:
     * they are normalised; must be linearly independent). All zero = world x, y, z. */
    float axes[3][3];
    /* Box lengths along the three axes, world units, each > 0. All three zero =
     * the unit cube (1, 1, 1); a single zero extent is SINEW_ERROR_DEGENERATE. */
    float extents[3];
    sinew_lattice_outside outside;
} sinew_lattice_desc;

/* The defaults sinew_lattice_create uses (docs/api.md, Defaults): *resolved =
 * desc (NULL = all zero) with every zero field that has a default replaced by
 * it (order 4, count = order, unit axes and extents when all are zero), so
 * creating with *resolved does the same as with desc. Other fields are copied
 * unchecked. resolved must be SINEW_INIT'ed and is written up to its
 * struct_size. INVALID_ARGUMENT (NULL resolved), UNSUPPORTED (unknown nonzero
 * desc bytes). Thread-safe. */
SINEW_API sinew_result sinew_lattice_desc_defaults(const sinew_lattice_desc *desc, sinew_lattice_desc *resolved);

typedef struct sinew_lattice sinew_lattice;

/* Description of an existing lattice (what sinew_lattice_info fills). */
typedef struct sinew_lattice_info {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    uint32_t count[3];
    uint32_t order[3];
    uint32_t cells[3];     /* knot spans per axis: count - order + 1 */
    size_t point_count;    /* count[0] * count[1] * count[2] */
    size_t cell_count;     /* cells[0] * cells[1] * cells[2] */
    float origin[3];
    float axes[3][3];      /* unit directions */
    float extents[3];
    sinew_lattice_outside outside;
    size_t memory_bytes;   /* every byte the lattice holds (all its allocations) */
} sinew_lattice_info;

/* Creates a lattice at rest (every displacement zero). Returns
 * SINEW_ERROR_INVALID_ARGUMENT (NULL desc/out, order outside 2..8, a count
 * smaller than its order, an unknown outside policy), SINEW_ERROR_NON_FINITE
 * (also a box reaching beyond the float range),
 * SINEW_ERROR_DEGENERATE (zero/negative extent, dependent axes),
 * SINEW_ERROR_SIZE_OVERFLOW, SINEW_ERROR_OUT_OF_MEMORY.
 * ctx: allocator and progress, NULL = defaults. desc: see sinew_lattice_desc.
 * out: receives the handle; untouched on failure. Thread-safe. */
SINEW_API sinew_result sinew_lattice_create(sinew_context *ctx, const sinew_lattice_desc *desc,
                                            sinew_lattice **out);

/* Destroys a lattice (NULL is fine). Bindings stay valid for other lattices
 * of the same structure. Not thread-safe with other calls on this lattice. */
SINEW_API void sinew_lattice_destroy(sinew_lattice *lattice);

/* Fills *info. Returns SINEW_ERROR_INVALID_ARGUMENT on NULL arguments.
 * Thread-safe with other const calls. On success it leaves sinew_last_error() as it was, so the message of
 * an earlier failure can still be read after the info. */
SINEW_API sinew_result sinew_lattice_get_info(const sinew_lattice *lattice, sinew_lattice_info *info);

/* ---- Control points ------------------------------------------------------
 * Ranges are in control point indices (see the top of this file); out and
 * in buffers hold control point i at byte offset i * stride (stride 0 = 3
 * packed floats) for i in [first, first + count), as every range call does,
 * so jobs can share whole buffers. Getters are thread-safe with other const
 * calls; setters modify the lattice and need external locking. */

/* Writes the rest (Greville) positions of control points [first, first+count).
 * Returns SINEW_ERROR_INVALID_ARGUMENT for NULL/bad out_stride,
 * SINEW_ERROR_INDEX_OUT_OF_RANGE for a range past the last point,
 * SINEW_ERROR_SIZE_OVERFLOW when count elements at out_stride overflow size_t. */
SINEW_API sinew_result sinew_lattice_rest_points(const sinew_lattice *lattice, float *out, size_t out_stride,
                                                 size_t first, size_t count);
/* Writes the current world positions (rest + displacement), same rules. */
SINEW_API sinew_result sinew_lattice_points(const sinew_lattice *lattice, float *out, size_t out_stride,
                                                size_t first, size_t count);
/* Writes the current displacements from the rest positions, same rules. */
SINEW_API sinew_result sinew_lattice_displacements(const sinew_lattice *lattice, float *out, size_t out_stride,
                                                       size_t first, size_t count);
/* Moves control points [first, first + count) to arbitrary world positions
 * (a lattice fitted over terrain, say): point i to positions element i.
 * Returns SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_NON_FINITE (naming the
 * point; also a displacement or position beyond the float range),
 * SINEW_ERROR_INDEX_OUT_OF_RANGE (a range past the view or the lattice); on
 * failure nothing is changed. Modifies the lattice: not thread-safe with any
 * other call on it. */
SINEW_API sinew_result sinew_lattice_set_points(sinew_lattice *lattice, const sinew_points *positions,
                                                size_t first, size_t count);
/* Sets displacements from the rest positions of control points
 * [first, first + count) to displacements element i, world units; same rules. */
SINEW_API sinew_result sinew_lattice_set_displacements(sinew_lattice *lattice,
                                                       const sinew_points *displacements, size_t first,
                                                       size_t count);
/* Puts every control point back at rest (the identity). NULL is ignored. Not
 * thread-safe with other calls on the lattice. */
SINEW_API void sinew_lattice_reset(sinew_lattice *lattice);

/* ---- Evaluation --------------------------------------------------------
 * Range calls read input element i at its view's stride and write output
 * element i at byte offset i * out_stride of the output pointer (the same
 * index as the input, so jobs can share whole buffers), for i in
 * [first, first + count). They never allocate and are thread-safe with other
 * const calls. Failures (NULL, a pointer not aligned to 4 bytes, bad stride,
 * range past the view's count, non-finite input, SINEW_ERROR_SIZE_OVERFLOW
 * when an element's offset at its stride overflows size_t,
 * SINEW_ERROR_NON_FINITE for a point whose output could leave the float range:
 * far outside an EXTEND lattice, under huge displacements, or past a tiny box)
 * are found before anything is written. The proof is a bound: displacements up
 * to the largest ever set (exact after a whole-lattice set or a reset) times
 * the basis. */

/* World points to box parameters (u, v, w) through the box map; points outside
 * the box get parameters outside [0, 1]. out_stride 0 = 3 packed floats. */
SINEW_API sinew_result sinew_lattice_parameters(const sinew_lattice *lattice, const sinew_points *world,
                                                float *out, size_t out_stride, size_t first, size_t count);

/* Evaluates F at parameter points (u, v, w) (the outside policy applies past
 * [0, 1]). out_positions: 3 floats per point (NULL = skip), stride 0 = packed.
 * out_jacobians: dF/d(u, v, w) as a column-major 3x3 (9 floats: dF/du, dF/dv,
 * dF/dw), NULL = skip, stride 0 = 9 packed floats. At least one output must be
 * given. */
SINEW_API sinew_result sinew_lattice_evaluate(const sinew_lattice *lattice, const sinew_points *params,
                                              float *out_positions, size_t out_position_stride, float *out_jacobians,
                                              size_t out_jacobian_stride, size_t first, size_t count);

/* Deforms world points in one shot. normals: optional world normals of the
 * points (NULL = none); they are mapped by the inverse-transpose of the
 * deformation's Jacobian and renormalised (a normal whose image vanishes comes
 * out unchanged). out_normals is needed exactly when normals is given.
 * out_points and out_normals may alias the inputs when strides match. */
SINEW_API sinew_result sinew_lattice_deform(const sinew_lattice *lattice, const sinew_points *points,
                                            const sinew_points *normals, float *out_points, size_t out_point_stride,
                                            float *out_normals, size_t out_normal_stride, size_t first,
                                            size_t count);

/* ---- Bound deformation ---------------------------------------------------
 * For points deformed every frame while the lattice moves: spans and basis
 * values are computed once. A binding refers to the lattice's structure
 * (counts, orders, box, outside policy), not to its control points, so it
 * serves any lattice of the same structure. */

typedef enum sinew_lattice_space {
    SINEW_LATTICE_SPACE_WORLD = 0,     /* points are world positions (default) */
    SINEW_LATTICE_SPACE_PARAMETER = 1  /* points are (u, v, w) parameters */
} sinew_lattice_space;

typedef struct sinew_lattice_binding_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    sinew_points points;          /* required, count >= 1 */
    /* Optional normals (count 0 = none), same count as points; in parameter
     * space they are normals in (u, v, w) space. */
    sinew_points normals;
    sinew_lattice_space space;
} sinew_lattice_binding_desc;

typedef struct sinew_lattice_binding sinew_lattice_binding;

/* Precomputes spans and basis values of the points. Returns
 * SINEW_ERROR_INVALID_ARGUMENT (NULL, no points, an unknown space),
 * SINEW_ERROR_NON_FINITE, SINEW_ERROR_MISMATCH (normal count differs),
 * SINEW_ERROR_SIZE_OVERFLOW, SINEW_ERROR_OUT_OF_MEMORY. ctx: allocator, NULL =
 * defaults. Thread-safe with other const calls on the lattice. */
SINEW_API sinew_result sinew_lattice_binding_create(sinew_context *ctx, const sinew_lattice *lattice,
                                                    const sinew_lattice_binding_desc *desc,
                                                    sinew_lattice_binding **out);
/* Destroys a binding (NULL is fine). Not thread-safe with other calls on it. */
SINEW_API void sinew_lattice_binding_destroy(sinew_lattice_binding *binding);
/* Number of points bound (0 for NULL). Thread-safe. */
SINEW_API size_t sinew_lattice_binding_count(const sinew_lattice_binding *binding);

/* Facts about a binding. */
typedef struct sinew_lattice_binding_info {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    size_t point_count;            /* points bound */
    int has_normals;               /* nonzero when normals were bound */
    sinew_lattice_space space;     /* space the points were given in */
    size_t memory_bytes;           /* every byte the binding holds */
} sinew_lattice_binding_info;

/* Fills *info. Returns INVALID_ARGUMENT on NULL or an uninitialised
 * struct_size. Thread-safe with other const calls; leaves sinew_last_error()
 * as it was on success, like every *_get_info. */
SINEW_API sinew_result sinew_lattice_binding_get_info(const sinew_lattice_binding *binding,
                                                      sinew_lattice_binding_info *info);

/* Deforms bound points [first, first + count) through the lattice's current
 * control points: writes point i at byte offset i * out_point_stride (0 = packed)
 * and, when out_normals is not NULL (the binding must hold normals), its
 * normal likewise. Returns SINEW_ERROR_MISMATCH when the lattice's structure
 * differs from the bound one, SINEW_ERROR_INVALID_STATE when normals are asked
 * of a binding without them, SINEW_ERROR_INDEX_OUT_OF_RANGE for a range past
 * the bound count, SINEW_ERROR_SIZE_OVERFLOW when an output offset overflows
 * size_t, SINEW_ERROR_NON_FINITE when the bound points' largest coordinate
 * plus the displacement bound times their largest basis sum could leave the
 * float range (bind itself refuses points whose basis values would).
 * Never allocates; thread-safe with other const calls. */
SINEW_API sinew_result sinew_lattice_binding_deform(const sinew_lattice_binding *binding,
                                                    const sinew_lattice *lattice, float *out_points,
                                                    size_t out_point_stride, float *out_normals, size_t out_normal_stride,
                                                    size_t first, size_t count);

/* ---- Fold-over check -----------------------------------------------------
 * det J > 0 everywhere means the deformation has no local self-intersection.
 * Per lattice cell, det J is a polynomial; if all its Bezier coefficients are
 * positive the cell cannot fold (a sufficient test). det J is that of the
 * world map dF/dp, so the identity has det J = 1. */

typedef struct sinew_lattice_fold_report {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    size_t cell_count;         /* cells checked */
    size_t cells_may_fold;     /* cells with a Bezier coefficient of det J <= 0 */
    float min_coefficient;     /* smallest Bezier coefficient of det J over all cells */
    float min_sampled_det;     /* smallest det J found by sampling */
    float min_sampled_at[3];   /* its (u, v, w) */
} sinew_lattice_fold_report;

/* Checks every cell. samples_per_axis: samples per cell and axis for the
 * sampled minimum (0 = 4; at most 64). cell_flags: optional, cell_flag_count
 * bytes (the cell count of sinew_lattice_info, else SINEW_ERROR_MISMATCH), set to 1 for cells that may
 * fold, 0 otherwise; cell (a, b, c) has index a + cells[0] * (b + cells[1] * c).
 * report: required (its values are clamped to the float range). Cost per
 * cell, with degrees p = order - 1: det J has degrees 3p - 1 and is formed as
 * F_u . (F_v x F_w) by convolutions of about 6 |F_v| |F_w| + 3 |F_u| |F_v x F_w|
 * multiply-adds (|F_u| = p_u (p_v+1) (p_w+1), ...): some 5e4 for cubic cells,
 * 3.5e5 for orders (6,5,5), 5e6 for order 8 (docs/lattice.md has timings).
 * Reports progress ("lattice: fold-over check") through ctx's callback (NULL =
 * none) and returns SINEW_ERROR_CANCELLED (cell_flags untouched) when it asks.
 * Allocates scratch from the lattice's allocator (SINEW_ERROR_OUT_OF_MEMORY);
 * thread-safe with other const calls. */
SINEW_API sinew_result sinew_lattice_check_folds(sinew_context *ctx, const sinew_lattice *lattice,
                                                 uint32_t samples_per_axis,
                                                 uint8_t *cell_flags, size_t cell_flag_count,
                                                 sinew_lattice_fold_report *report);

/* ---- Adaptive refinement -------------------------------------------------- */

/* How an edge is judged. */
typedef enum sinew_lattice_error_test {
    /* Guaranteed bound (the paper): the deformed edge, split where it crosses
     * knot planes, is a polynomial per piece whose Bezier control points are
     * computed exactly; their largest distance from the deformed chord bounds
     * the deviation. Default. */
    SINEW_LATTICE_TEST_BOUND = 0,
    /* Earlier work: the distance of the deformed midpoint from the chord.
     * Guarantees nothing between samples. */
    SINEW_LATTICE_TEST_MIDPOINT = 1
} sinew_lattice_error_test;

/* Where an edge that fails the test is split. */
typedef enum sinew_lattice_split {
    /* At the Greville parameter of the Bezier control point farthest from the
     * chord (the paper), kept within [0.05, 0.95] of the edge. Default. */
    SINEW_LATTICE_SPLIT_FARTHEST = 0,
    /* At the middle of the edge. */
    SINEW_LATTICE_SPLIT_MIDPOINT = 1
} sinew_lattice_split;

typedef struct sinew_lattice_refinement_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* Largest allowed deviation of a deformed edge from its chord, world units,
     * > 0 (required). */
    double tolerance;
    sinew_lattice_error_test test;
    sinew_lattice_split split;
    /* Most output triangles; 0 = 64 x input triangles + 1,000,000. Exceeding
     * it fails with SINEW_ERROR_BUDGET_EXCEEDED. */
    size_t max_triangles;
} sinew_lattice_refinement_desc;

typedef struct sinew_lattice_refinement sinew_lattice_refinement;

/* The refined mesh, valid while the refinement lives. Vertices
 * [0, input_vertex_count) are the input's, in order; vertex v beyond them lies
 * on the edge (parents[2 * (v - input_vertex_count)], ... + 1) at parameter
 * t = parameters[v - input_vertex_count] from the first parent, whose indices
 * are both < v: interpolate attributes as (1 - t) * a + t * b in vertex order. */
typedef struct sinew_lattice_refined_mesh {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    const float *rest_positions;    /* 3 * vertex_count, undeformed */
    const float *positions;         /* 3 * vertex_count, deformed */
    size_t vertex_count;
    size_t input_vertex_count;
    const uint32_t *indices;        /* 3 * triangle_count; input orientation kept */
    size_t triangle_count;
    const uint32_t *parents;        /* 2 * (vertex_count - input_vertex_count) */
    const float *parameters;        /* vertex_count - input_vertex_count */
    size_t rounds;                  /* split rounds made */
    double max_error;               /* largest final edge error by the chosen test */
    size_t memory_bytes;            /* every byte the refinement holds */
} sinew_lattice_refined_mesh;

/* The figures of a refinement (the same as its refined mesh reports). */
typedef struct sinew_lattice_refinement_info {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    size_t vertex_count;
    size_t input_vertex_count;
    size_t triangle_count;
    size_t rounds;                  /* split rounds made */
    double max_error;               /* largest final edge error by the chosen test */
    size_t memory_bytes;            /* every byte the refinement holds */
} sinew_lattice_refinement_info;

/* Refines a triangle mesh in the lattice's domain until every edge passes the
 * chosen test at desc->tolerance; triangles beside a split edge are split as
 * well, so the output is conforming. Returns SINEW_ERROR_INVALID_ARGUMENT
 * (NULL, empty mesh, tolerance <= 0 or non-finite, unknown test/split),
 * SINEW_ERROR_NON_FINITE / SINEW_ERROR_INDEX_OUT_OF_RANGE (naming the
 * element), SINEW_ERROR_BUDGET_EXCEEDED, SINEW_ERROR_CANCELLED (progress
 * callback), SINEW_ERROR_OUT_OF_MEMORY. Degenerate triangles are kept as they
 * are. ctx: allocator and progress, NULL = defaults. Thread-safe with other
 * const calls on the lattice. */
SINEW_API sinew_result sinew_lattice_refinement_create(sinew_context *ctx, const sinew_lattice *lattice,
                                            const sinew_trimesh *mesh, const sinew_lattice_refinement_desc *desc,
                                            sinew_lattice_refinement **out);
/* Fills *mesh with views of the refinement's arrays. Returns
 * SINEW_ERROR_INVALID_ARGUMENT on NULL. Thread-safe. */
SINEW_API sinew_result sinew_lattice_refinement_mesh(const sinew_lattice_refinement *refinement,
                                                     sinew_lattice_refined_mesh *mesh);
/* Fills *info with the refinement's figures. Returns
 * SINEW_ERROR_INVALID_ARGUMENT on NULL (or an info without SINEW_INIT); leaves
 * the thread's message as it was. Thread-safe. */
SINEW_API sinew_result sinew_lattice_refinement_get_info(const sinew_lattice_refinement *refinement,
                                                         sinew_lattice_refinement_info *info);
/* Destroys a refinement (NULL is fine); its mesh views die with it. Not
 * thread-safe with other calls on it. */
SINEW_API void sinew_lattice_refinement_destroy(sinew_lattice_refinement *refinement);

/* Error of one straight world segment a-b under the lattice: the guaranteed
 * bound (largest distance of the exact Bezier control points of F along the
 * segment, piece by piece between knot planes, from the deformed chord) and
 * the parameter t in [0, 1] from a of the farthest control point's Greville
 * abscissa (unclamped). Either output may be NULL. Never allocates;
 * thread-safe with other const calls. */
SINEW_API sinew_result sinew_lattice_segment_bound(const sinew_lattice *lattice, const float a[3],
                                                   const float b[3], double *bound, double *split_t);

/* ---- Save and load ------------------------------------------------------
 * The saved-data contract of core.h ("Saved data"): save with buffer NULL
 * asks for the size; a capacity below it is SINEW_ERROR_BUFFER_TOO_SMALL with
 * *size = bytes needed; the same handle always gives the same bytes. Load
 * checks every value with create's codes, messages starting "lattice data:"
 * (binding: "lattice binding data:", refinement: "lattice refinement
 * data:"), SINEW_ERROR_INVALID_DATA for a damaged buffer, SINEW_ERROR_MISMATCH
 * for another kind, SINEW_ERROR_UNSUPPORTED for a newer format; *out is set
 * only on success. A loaded handle deforms bit for bit as the saved one. Its
 * memory comes from ctx's allocator (NULL = defaults). Save is thread-safe
 * with other const calls on the handle; load is thread-safe. */

/* Saves the lattice: structure, box and every displacement. The
 * displacement bound behind the float-range checks is recomputed on load
 * (exact, as after a set of the whole lattice). */
SINEW_API sinew_result sinew_lattice_save(const sinew_lattice *lattice, void *buffer, size_t capacity,
                                          size_t *size);
/* Loads a lattice saved by sinew_lattice_save. */
SINEW_API sinew_result sinew_lattice_load(sinew_context *ctx, const void *data, size_t size,
                                          sinew_lattice **out);

/* Saves a binding with the structure it was bound to; no lattice is needed
 * to load it, and sinew_lattice_deform_bound still checks that the lattice it
 * is given has that structure. */
SINEW_API sinew_result sinew_lattice_binding_save(const sinew_lattice_binding *binding, void *buffer,
                                                  size_t capacity, size_t *size);
/* Loads a binding saved by sinew_lattice_binding_save. Its float-range proof
 * is recomputed from the stored basis values (SINEW_ERROR_INVALID_WEIGHTS for
 * values of an axis that do not sum to 1). */
SINEW_API sinew_result sinew_lattice_binding_load(sinew_context *ctx, const void *data, size_t size,
                                                  sinew_lattice_binding **out);

/* Saves a refinement's mesh (rest and deformed positions, triangles,
 * parents and parameters of the added vertices, rounds, max error). */
SINEW_API sinew_result sinew_lattice_refinement_save(const sinew_lattice_refinement *refinement, void *buffer,
                                                     size_t capacity, size_t *size);
/* Loads a refinement saved by sinew_lattice_refinement_save; its mesh is
 * then what sinew_lattice_refinement_mesh reports. */
SINEW_API sinew_result sinew_lattice_refinement_load(sinew_context *ctx, const void *data, size_t size,
                                                     sinew_lattice_refinement **out);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_LATTICE_H */
