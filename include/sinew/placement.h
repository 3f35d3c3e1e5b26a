/*
 * sinew: placement of deformable objects over a scene (Schein & Elber §3, §4.1,
 * §4.3), built on the B-spline lattice of sinew/lattice.h.
 *
 * A user sketches a planar path C(u) in a view plane looking along V. Offset
 * curves C +- d(u) N(u) bound a ruled surface; rays along V from its samples
 * hit the scene, and the hits become the contact layer F(u, v, 0) of a
 * trivariate B-spline lattice. The layers above it follow by extrusion against
 * V (F1) or by offset along the contact surface's normal (F2). A model lying
 * flat in the lattice's rest box, or given in its parameter space, is then laid
 * onto the terrain by the lattice.
 *
 * Frames. "Up" is -V (towards the viewer). The path's unit tangent T, the
 * in-plane normal N = T x V (normalised) and up form a right-handed frame:
 * u runs along the path, v across it from C - dN (v = 0) to C + dN (v = 1),
 * w from the contact surface (w = 0) upwards (w = 1 at height h).
 *
 * Parameterisation. Contact control point (i, j) is a ray hit placed so that
 * the lattice's uniform clamped knots follow the terrain: column i sits where
 * the 3D chord length along the middle of the hit surface (v = 1/2) reaches
 * the fraction g_i of its total (g_i: the Greville abscissa of u control
 * point i), and row j of a column where the 3D arc length across that column
 * reaches g_j. On flat ground the lattice is therefore an exact rigid
 * placement of its rest box.
 *
 * The rest box (where a world-space model is read from, see
 * sinew_lattice_deform) spans x in [0, L] along the path (L: the chord length of
 * the middle of the contact surface), y in [-d_max, d_max] across it and z in
 * [0, h_max] upwards, world axes, where d_max and h_max are the largest width
 * and height.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_PLACEMENT_H
#define SINEW_PLACEMENT_H

#include "core.h"
#include "lattice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the path's points are read. */
typedef enum sinew_placement_path_kind {
    /* A polyline through the points; its corners are rounded only in the
     * offset direction (the normal at a corner bisects the two segments'). */
    SINEW_PLACEMENT_PATH_POLYLINE = 0,
    /* Control points of a clamped uniform B-spline of order path_order. */
    SINEW_PLACEMENT_PATH_BSPLINE = 1
} sinew_placement_path_kind;

/* How the volume above the contact surface is built. */
typedef enum sinew_placement_volume {
    /* F1: extrusion against V, F(u,v,w) = F(u,v,0) + w h up. Never folds on a
     * scene seen from V as a height field. Default. */
    SINEW_PLACEMENT_EXTRUDE = 0,
    /* F2: offset of the contact control net along the contact surface's unit
     * normal (on the up side). Follows walls, but folds where the surface is
     * more curved than 1/h. */
    SINEW_PLACEMENT_OFFSET = 1
} sinew_placement_volume;

/* What happens to a sample whose ray misses the scene. */
typedef enum sinew_placement_miss {
    /* Its depth along V is interpolated linearly from the nearest hits of its
     * column (v), or, when its whole column missed, from the nearest columns
     * that have hits (u); ends take the nearest hit's depth. Default. */
    SINEW_PLACEMENT_MISS_INTERPOLATE = 0,
    /* Any miss fails with SINEW_ERROR_NO_RESULT naming the sample. */
    SINEW_PLACEMENT_MISS_FAIL = 1,
    /* The sample is placed at depth miss_depth along V from the view plane. */
    SINEW_PLACEMENT_MISS_DEPTH = 2
} sinew_placement_miss;

/* A scalar function over the unit interval or square, given as the control
 * values of a clamped uniform B-spline (order min(4, count) per axis).
 * count[0] values along the first argument, count[1] along the second (0 or
 * 1 = constant in it), at most 256 each; value (a, b) is
 * values[a + count[0] * b]. count[0] == 0 means "none" (constant 1). */
typedef struct sinew_placement_scalar {
    const float *values;
    uint32_t count[2];
} sinew_placement_scalar;

typedef struct sinew_placement_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* The sketched path, world positions, at least 2 points (required). The
     * view plane passes through the first point, perpendicular to V; every point
     * is projected onto it. Consecutive (projected) points must differ. */
    sinew_points path;
    sinew_placement_path_kind path_kind;
    /* Order of a B-spline path, 2..8; 0 = 4. Lowered to the point count. */
    uint32_t path_order;
    /* View direction V (need not be unit length); all zero = (0, 0, -1). The
     * scene must lie on the +V side of the view plane. */
    float view[3];
    /* d: distance of each offset curve from the path, world units, > 0
     * (required); the lattice is 2d wide. */
    float width;
    /* Optional d = width * width_scale(s), s the fraction of the path's length
     * in the view plane; only count[0] is read; values > 0. */
    sinew_placement_scalar width_scale;
    /* h: height of the volume above the contact surface, world units, > 0
     * (required). */
    float height;
    /* Optional h(u) or h(u, v) = height * height_scale(u, v), (u, v) the
     * lattice parameters of each contact column (its Greville abscissae);
     * values > 0. */
    sinew_placement_scalar height_scale;
    /* Lattice control points along u, v, w; the u and v counts are the ray
     * sampling density of the contact layer. 0 = 24, 6, the w order. Each must
     * be >= its axis' order and at most 4096. */
    uint32_t count[3];
    /* Lattice order per axis, 2..SINEW_LATTICE_MAX_ORDER; 0 = 4 (cubic). */
    uint32_t order[3];
    /* Rays per control point spacing used to measure the chord and arc lengths
     * that place the control points; 1..64, 0 = 8. */
    uint32_t oversample;
    sinew_placement_volume volume;
    sinew_placement_miss miss;
    /* Depth along V from the view plane for SINEW_PLACEMENT_MISS_DEPTH, world
     * units, >= 0. */
    float miss_depth;
    /* Outside policy of the lattice made (see sinew_lattice_desc). */
    sinew_lattice_outside outside;
    /* The scene the path is placed on (required, at least one triangle). It is
     * only read during sinew_placement_create. */
    sinew_trimesh scene;
} sinew_placement_desc;

/* The defaults sinew_placement_create uses (docs/api.md, Defaults): *resolved
 * = desc (NULL = all zero) with every zero field that has a default replaced
 * by it (path_order, view, count, order, oversample), so creating with
 * *resolved does the same as with desc. Other fields are copied unchecked.
 * resolved must be SINEW_INIT'ed and is written up to its struct_size.
 * INVALID_ARGUMENT (NULL resolved), UNSUPPORTED (unknown nonzero desc bytes).
 * Thread-safe. */
SINEW_API sinew_result sinew_placement_desc_defaults(const sinew_placement_desc *desc,
                                                    sinew_placement_desc *resolved);

typedef struct sinew_placement sinew_placement;

/* What sinew_placement_get_info reports. */
typedef struct sinew_placement_info {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    uint32_t count[3];          /* lattice control points per axis */
    size_t rays_cast;           /* rays shot into the scene while building */
    size_t misses;              /* contact samples whose ray missed (handled by the miss policy) */
    float path_length;          /* length of the path in the view plane */
    float contact_length;       /* L: chord length along the middle of the contact surface */
    float max_width;            /* d_max */
    float max_height;           /* h_max */
    float up[3];                /* -V, unit */
    sinew_placement_volume volume;
    size_t memory_bytes;        /* every byte the placement holds, its lattice included */
} sinew_placement_info;

/* Builds the lattice along the path over the scene (§3.1). Returns
 * SINEW_ERROR_INVALID_ARGUMENT (NULL desc/out, fewer than 2 path points, zero or
 * negative width/height, unknown enum, bad counts/orders), SINEW_ERROR_NON_FINITE
 * (naming the value), SINEW_ERROR_DEGENERATE (coincident consecutive path
 * points, a path parallel to V), SINEW_ERROR_INDEX_OUT_OF_RANGE (scene
 * indices), SINEW_ERROR_NO_RESULT (no ray hit the scene, or a miss under
 * SINEW_PLACEMENT_MISS_FAIL, naming the sample), SINEW_ERROR_CANCELLED,
 * SINEW_ERROR_SIZE_OVERFLOW, SINEW_ERROR_OUT_OF_MEMORY.
 * ctx: allocator and progress ("placement: rays"), NULL = defaults.
 * desc: see sinew_placement_desc. out: receives the handle; untouched on
 * failure. Thread-safe. */
SINEW_API sinew_result sinew_placement_create(sinew_context *ctx, const sinew_placement_desc *desc,
                                              sinew_placement **out);

/* Destroys a placement and its lattice (NULL is fine). */
SINEW_API void sinew_placement_destroy(sinew_placement *placement);

/* Fills *info. Returns SINEW_ERROR_INVALID_ARGUMENT on NULL. Thread-safe with
 * other const calls. On success it leaves sinew_last_error() as it was, so a failure's message
 * (a relaxation that did not converge) can still be read after the info. */
SINEW_API sinew_result sinew_placement_get_info(const sinew_placement *placement, sinew_placement_info *info);

/* The lattice the placement keeps up to date (NULL for NULL). Use it with the
 * lattice API's const calls (evaluate, deform, bind, check_folds, refine); it
 * lives as long as the placement and changes with every placement edit. */
SINEW_API const sinew_lattice *sinew_placement_lattice(const sinew_placement *placement);

/* Writes the directions along which each contact control point moves (its
 * degree of freedom, unit vectors: up for F1, the contact surface's normal at
 * build time for F2) for columns [first, first + count), column (i, j) at index
 * i + count_u * j, element at byte offset index * out_stride (0 = packed), as
 * every range call does, so jobs can share whole buffers.
 * Returns SINEW_ERROR_INVALID_ARGUMENT (NULL, bad out_stride, out not 4-byte
 * aligned), SINEW_ERROR_INDEX_OUT_OF_RANGE, SINEW_ERROR_SIZE_OVERFLOW (count
 * elements at out_stride overflow size_t). Thread-safe with other const calls. */
SINEW_API sinew_result sinew_placement_directions(const sinew_placement *placement, float *out, size_t out_stride,
                                                  size_t first, size_t count);

/* Writes, for the same columns, the signed distance of each contact control
 * point from its ray hit along its direction (0 right after building; > 0 above
 * the scene). Returns as sinew_placement_directions; out_stride 0 = 1 float. */
SINEW_API sinew_result sinew_placement_lifts(const sinew_placement *placement, float *out, size_t out_stride,
                                             size_t first, size_t count);

/* ---- Mass-spring relaxation of the contact layer (§3.2) ------------------ */

typedef struct sinew_placement_relax_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* k: stiffness of the four springs of every mass, > 0; 0 = 1. */
    float stiffness;
    /* M: mass of every contact control point, > 0; 0 = 1. */
    float mass;
    /* Velocity damping c >= 0 per unit time (the paper's -mu: a -= c v);
     * 0 = sqrt(k / M), which settles a bridge without overshoot. */
    float damping;
    /* Angle criterion, degrees, in (0, 180): a mass is simulated further while
     * two of the normals e_a x e_b of consecutive neighbour pairs differ by more
     * than this; 0 = 10. */
    float angle_degrees;
    /* Rings of neighbours simulated with every candidate mass, 1..64; 0 = 1.
     * Larger neighbourhoods give a looser contact. */
    uint32_t neighbourhood;
    /* Most integration steps; 0 = 20000. */
    uint32_t max_steps;
} sinew_placement_relax_desc;

/* The defaults sinew_placement_relax uses (docs/api.md, Defaults): *resolved
 * = desc (NULL = all zero) with every zero field that has a default replaced
 * by it (stiffness, mass, damping = sqrt(stiffness / mass) as a float,
 * angle_degrees, neighbourhood, max_steps), so relaxing with *resolved does
 * the same as with desc. Other fields are copied unchecked. resolved must be
 * SINEW_INIT'ed and is written up to its struct_size. INVALID_ARGUMENT (NULL
 * resolved), UNSUPPORTED (unknown nonzero desc bytes). Thread-safe. */
SINEW_API sinew_result sinew_placement_relax_desc_defaults(const sinew_placement_relax_desc *desc,
                                                          sinew_placement_relax_desc *resolved);

typedef struct sinew_placement_relax_report {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    uint32_t steps;          /* integration steps made */
    size_t candidates;       /* masses still failing the angle criterion at the end */
    float time_step;         /* the stable step used: 1 / sqrt(8 k / M) */
    float max_lift;          /* largest lift of a contact point above its hit */
} sinew_placement_relax_report;

/* Relaxes the contact layer with the mass-spring system of §3.2: each contact
 * control point moves only along its direction, pulled by zero-rest-length
 * springs to its four grid neighbours, with velocity damping and explicit
 * (symplectic) Euler at a step half the stability limit. Each point stays
 * between its ray hit (nothing sinks below the scene) and the first scene
 * surface above it along its direction; points pushed below their hit come
 * back up. Masses failing the angle criterion, with the neighbourhood around
 * them, are simulated until none fails it or all of them rest. The layers above
 * follow (F2 recomputes its normals), and the lattice is updated.
 * Returns SINEW_OK on convergence; SINEW_ERROR_NOT_CONVERGED after max_steps,
 * with the relaxed state kept; SINEW_ERROR_INVALID_ARGUMENT (NULL placement,
 * a value out of range), SINEW_ERROR_NON_FINITE, SINEW_ERROR_CANCELLED
 * (progress "placement: relax"), SINEW_ERROR_OUT_OF_MEMORY (placement
 * unchanged on these). ctx: this call's progress callback (NULL = none);
 * memory comes from the placement's allocator. desc: NULL = all defaults.
 * report: optional.
 * Modifies the placement: not thread-safe with other calls on it. */
SINEW_API sinew_result sinew_placement_relax(sinew_context *ctx, sinew_placement *placement,
                                             const sinew_placement_relax_desc *desc,
                                             sinew_placement_relax_report *report);

/* ---- Editing (§4.1) --------------------------------------------------------
 * Edits modify the placement and its lattice: not thread-safe with other calls
 * on it. On failure nothing changes. */

/* Moves contact control point (i, j) by `amount` world units along its
 * direction (> 0 up, < 0 down, into the scene if asked), carrying its whole
 * column with it. Returns SINEW_ERROR_INVALID_ARGUMENT (NULL),
 * SINEW_ERROR_INDEX_OUT_OF_RANGE (naming i or j), SINEW_ERROR_NON_FINITE. */
SINEW_API sinew_result sinew_placement_push(sinew_placement *placement, uint32_t i, uint32_t j, float amount);

/* Influence of a pressing tool as a function of r = distance / radius. */
typedef enum sinew_placement_falloff {
    SINEW_PLACEMENT_FALLOFF_GAUSSIAN = 0, /* exp(-r^2 / (2 sigma^2)), sigma = 1/3. Default. */
    SINEW_PLACEMENT_FALLOFF_HAT = 1,      /* 1 - r */
    SINEW_PLACEMENT_FALLOFF_BOX = 2       /* 1 */
} sinew_placement_falloff;

typedef struct sinew_placement_press_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    float center[3];   /* sphere centre, world */
    float radius;      /* world units, > 0 (required) */
    /* Distance the centre of the tool presses, world units: control points above
     * the contact layer inside the sphere move down their column by
     * depth * falloff(r) (< 0 pulls them up), never below the contact point. */
    float depth;
    sinew_placement_falloff falloff;
} sinew_placement_press_desc;

/* Presses the control points above the contact layer (w layers k >= 1) that lie
 * inside the tool's sphere (distance < radius, measured at their current
 * positions). Returns SINEW_ERROR_INVALID_ARGUMENT (NULL, radius <= 0, unknown
 * falloff), SINEW_ERROR_NON_FINITE (also a press that would move the lattice
 * beyond the float range), SINEW_ERROR_OUT_OF_MEMORY; the placement is
 * unchanged on failure. pressed: optional, receives how many control points
 * moved. Modifies the placement: not thread-safe. */
SINEW_API sinew_result sinew_placement_press(sinew_placement *placement, const sinew_placement_press_desc *desc,
                                             size_t *pressed);

/* ---- Animation (§4.3) ------------------------------------------------------ */

/* An affine map from model coordinates to lattice parameters:
 * (u, v, w) = offset + scale * (x, y, z), per axis. */
typedef struct sinew_placement_map {
    float scale[3];
    float offset[3];
} sinew_placement_map;

typedef struct sinew_placement_map_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* The model's bounding box (model x along the path, y across, z up); each
     * max > min. */
    float box_min[3];
    float box_max[3];
    /* q: fraction of the u domain the model spans, in (0, 1]; 0 = the model's
     * natural length: (box_max[0] - box_min[0]) / contact length, which must be
     * <= 1. */
    float fraction;
    /* s: where the model starts along u, in [0, 1 - q]. */
    float offset;
} sinew_placement_map_desc;

/* Maps the box onto u in [s, s + q], v in [0, 1], w in [0, 1]. Returns
 * SINEW_ERROR_INVALID_ARGUMENT (NULL, q or s out of range),
 * SINEW_ERROR_NON_FINITE, SINEW_ERROR_DEGENERATE (an empty box axis, or one so
 * thin that its scale would leave the float range). Never
 * allocates; thread-safe with other const calls. */
SINEW_API sinew_result sinew_placement_map_model(const sinew_placement *placement,
                                                 const sinew_placement_map_desc *desc, sinew_placement_map *out);

/* Lays model points [first, first + count) onto the scene: maps each through
 * `map` and evaluates the lattice there; writes point i at byte offset
 * i * out_stride of out (0 = 3 packed floats). Returns
 * SINEW_ERROR_INVALID_ARGUMENT (also a pointer not aligned to 4 bytes),
 * SINEW_ERROR_NON_FINITE (also a point mapped to a parameter or a position
 * beyond the float range), SINEW_ERROR_INDEX_OUT_OF_RANGE (range past the
 * view), SINEW_ERROR_SIZE_OVERFLOW (an input or output offset overflows
 * size_t); nothing is written on failure. Never allocates; thread-safe with
 * other const calls. */
SINEW_API sinew_result sinew_placement_deform(const sinew_placement *placement, const sinew_placement_map *map,
                                              const sinew_points *model, float *out, size_t out_stride,
                                              size_t first, size_t count);

/* ---- Save and load ----------------------------------------------------------
 * The saved-data contract of core.h ("Saved data"); messages of load start
 * with "placement data:". Saved: everything later calls read (the lattice
 * with its control points, contact hits, directions, lifts, layer
 * directions, heights, the info). The scene is not kept: what edits need of
 * it, how far each contact point may rise before it meets the scene above, is
 * stored per column, so relax, push and press continue after a load as they
 * would have before the save. Load also checks that the lattice is where the
 * columns and heights put it (SINEW_ERROR_INVALID_DATA otherwise). Memory from
 * ctx's allocator (NULL = defaults). Save is thread-safe with other const
 * calls on the placement; load is thread-safe. */

/* Saves the placement into buffer (NULL = size query). */
SINEW_API sinew_result sinew_placement_save(const sinew_placement *placement, void *buffer, size_t capacity,
                                            size_t *size);
/* Loads a placement saved by sinew_placement_save; *out is set only on success. */
SINEW_API sinew_result sinew_placement_load(sinew_context *ctx, const void *data, size_t size,
                                            sinew_placement **out);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_PLACEMENT_H */
