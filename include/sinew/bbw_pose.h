/*
 * sinew: handle transforms inferred at pose time (subspace as-rigid-as-possible,
 * "Fast Automatic Skinning Transformations", Jacobson, Baran, Kavan, Popović,
 * Sorkine 2012; the run-time optimisation the BBW paper uses for handles that
 * are only dragged).
 *
 * The caller gives, per handle, a full transform, one or more positions (a
 * point handle's target, a bone's two joints, a cage vertex's target), or
 * nothing; the solver returns every handle's affine transform so that linear
 * blend skinning with the given weights deforms the domain as rigidly as
 * possible: it minimises the as-rigid-as-possible energy of the domain's
 * elements over the skinning subspace, with one rotation per cluster of
 * elements of similar weights, by alternating local (rotation) and global
 * (small dense linear system) steps. docs/bbw-pose.md gives the energy and
 * what is exact and what is approximate.
 *
 * Phases:
 *   1. sinew_bbw_pose_create (or _create_from_bbw): rest domain (2D triangles
 *      or 3D tets), per-vertex weights, rotation clusters (k-means on the
 *      weights), the reduced matrices. Allocates.
 *   2. sinew_bbw_pose_solve: a fixed number of local/global iterations,
 *      warm-started from the caller's previous transforms. const on the
 *      handle, never allocates (the caller gives the scratch memory), safe
 *      from many threads at once with distinct scratch buffers.
 *
 * Transforms are column-major affine 4x4 floats, one per handle, mapping rest
 * space to posed space: the joint_world layout sinew_skin_palette takes (with
 * identity bind matrices, as BBW handles have).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_BBW_POSE_H
#define SINEW_BBW_POSE_H

#include "core.h"
#include "bbw.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_bbw_pose sinew_bbw_pose;

/* Which transforms the solver returns for the handles it infers. */
typedef enum sinew_bbw_pose_transform {
    /* General affine transforms: the minimiser of the energy (default). */
    SINEW_BBW_POSE_AFFINE = 0,
    /* Rotation times uniform scale plus translation: the affine minimiser's
     * nearest such transform (polar factor), its translation refit to the
     * handle's positions (or to keep its weighted centre). Approximate: not
     * the minimiser over similarity transforms. */
    SINEW_BBW_POSE_SIMILARITY = 1
} sinew_bbw_pose_transform;

/* Everything sinew_bbw_pose_create needs. SINEW_INIT it, then set exactly one
 * domain and exactly one weight layout. */
typedef struct sinew_bbw_pose_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* ---- rest domain (exactly one) ---- */
    const sinew_trimesh *triangles;  /* 2D domain in the xy plane (z ignored), either orientation */
    const sinew_tetmesh *tets;       /* 3D domain, either orientation */
    /* ---- weights: handle_count per domain vertex ---- */
    size_t handle_count;
    /* Dense: handle_count floats per vertex, packed, vertex-major
     * (weights[v * handle_count + j]), as sinew_bbw_vertex_weights writes. */
    const float *weights;
    /* Or sparse, the skinning layout (sinew_bbw_top_k, sinew_skin_desc):
     * influence_count slots per vertex, packed: handle influence_handles[v *
     * k + s] with weight influence_weights[v * k + s]. */
    size_t influence_count;
    const uint32_t *influence_handles;
    const float *influence_weights;
    /* ---- options ---- */
    /* Rotation clusters: elements grouped by k-means on their weights, one
     * rotation each. 0 = min(elements, max(16, 5 * handle_count)); at least
     * the element count gives one rotation per element (no clustering). */
    size_t cluster_count;
    sinew_bbw_pose_transform transform;  /* 0 = SINEW_BBW_POSE_AFFINE */
} sinew_bbw_pose_desc;

/* The defaults sinew_bbw_pose_create uses (docs/api.md, Defaults): *resolved
 * = desc (NULL = all zero) with every zero field that has a default replaced
 * by it: cluster_count, when handle_count is nonzero and exactly one domain
 * is given (the default follows from both; otherwise it stays 0); transform 0
 * is SINEW_BBW_POSE_AFFINE itself. Creating with *resolved does the same as
 * with desc. Other fields are copied unchecked. resolved must be
 * SINEW_INIT'ed and is written up to its struct_size. INVALID_ARGUMENT (NULL
 * resolved), UNSUPPORTED (unknown nonzero desc bytes). Thread-safe. */
SINEW_API sinew_result sinew_bbw_pose_desc_defaults(const sinew_bbw_pose_desc *desc, sinew_bbw_pose_desc *resolved);

/* What create built. */
typedef struct sinew_bbw_pose_info {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    uint32_t dimension;            /* 2 or 3 */
    size_t vertex_count;
    size_t element_count;
    size_t handle_count;
    size_t cluster_count;          /* rotation clusters actually used */
    size_t skipped_element_count;  /* elements touching a vertex whose weights are all zero: left out */
    size_t memory_bytes;           /* every byte the handle holds */
} sinew_bbw_pose_info;

/* A position constraint: the handle's transform must carry `rest` to
 * `target`. A point handle: rest = its position; a bone: one record per
 * joint; a cage vertex: rest = the vertex. Frozen layout. */
typedef struct sinew_bbw_pose_position {
    uint32_t handle;
    float rest[3];    /* z ignored in 2D */
    float target[3];  /* z ignored in 2D */
} sinew_bbw_pose_position;

/* One pose's constraints and iteration settings. */
typedef struct sinew_bbw_pose_solve_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* handle_count flags (NULL = none): nonzero = the handle's full
     * transform is given in `transforms` and passed through unchanged. */
    const uint8_t *fixed;
    const sinew_bbw_pose_position *positions;  /* may be NULL when position_count is 0 */
    size_t position_count;
    uint32_t iterations;   /* local/global iterations; 0 = 5 */
    /* 0 (default): warm start, the rotations start from the transforms in
     * `transforms` (the last frame's result). Nonzero: cold start, every
     * rotation starts at the identity and the free handles' entries of
     * `transforms` are not read. */
    int cold_start;
} sinew_bbw_pose_solve_desc;

/* The defaults sinew_bbw_pose_solve uses (docs/api.md, Defaults): *resolved =
 * desc (NULL = all zero) with iterations 0 replaced by its default (5);
 * cold_start 0 is the warm start itself. Solving with *resolved does the same
 * as with desc. Other fields are copied unchecked. resolved must be
 * SINEW_INIT'ed and is written up to its struct_size. INVALID_ARGUMENT (NULL
 * resolved), UNSUPPORTED (unknown nonzero desc bytes). Thread-safe. */
SINEW_API sinew_result sinew_bbw_pose_solve_desc_defaults(const sinew_bbw_pose_solve_desc *desc,
                                                         sinew_bbw_pose_solve_desc *resolved);

/* What one solve reached. */
typedef struct sinew_bbw_pose_report {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* The energy of the returned transforms, per unit of domain volume
     * (area in 2D): sum over elements of volume * |F - R|^2 (Frobenius; F
     * the element's deformation gradient, R its cluster's best rotation)
     * divided by the total volume. 0 for a rigid motion; unitless. */
    double energy;
    uint32_t iterations;   /* local/global iterations made */
} sinew_bbw_pose_report;

/* Precomputes the reduced matrices and rotation clusters for a rest domain
 * and its weights. Returns SINEW_OK; INVALID_ARGUMENT (NULL desc/out, not
 * exactly one domain or weight layout, no handle, bad option); NON_FINITE
 * (coordinate or weight, named); INDEX_OUT_OF_RANGE (element index or
 * influence handle, named); INVALID_WEIGHTS (a vertex whose weights sum
 * neither to 1 within 1e-3 nor to 0, named); DEGENERATE (a zero-area or
 * zero-volume element, or every element skipped); SIZE_OVERFLOW;
 * OUT_OF_MEMORY; CANCELLED (progress stage "bbw pose: clusters"). ctx may
 * be NULL. Thread-safe for distinct outputs. */
SINEW_API sinew_result sinew_bbw_pose_create(sinew_context *ctx, const sinew_bbw_pose_desc *desc,
                                             sinew_bbw_pose **out);

/* The same from a solved sinew_bbw: its domain and its weights, handles
 * numbered as in bbw.h. desc may be NULL (defaults); its domain and weight
 * fields must be empty (INVALID_ARGUMENT). INVALID_STATE before the bbw is
 * solved; otherwise create's codes. Allocates (a copy of the weights while
 * building). Thread-safe for distinct outputs. */
SINEW_API sinew_result sinew_bbw_pose_create_from_bbw(sinew_context *ctx, const sinew_bbw *bbw,
                                                      const sinew_bbw_pose_desc *desc, sinew_bbw_pose **out);

/* Destroys a handle (NULL is fine). */
SINEW_API void sinew_bbw_pose_destroy(sinew_bbw_pose *pose);

/* Copies the handle's counts into *info. INVALID_ARGUMENT on NULL or a bad
 * struct_size. Thread-safe; leaves sinew_last_error() as it was. */
SINEW_API sinew_result sinew_bbw_pose_get_info(const sinew_bbw_pose *pose, sinew_bbw_pose_info *info);

/* Bytes of scratch memory sinew_bbw_pose_solve needs for up to
 * position_count position constraints (any alignment is fine: the solver
 * aligns inside it). 0 for a NULL pose; SIZE_MAX when the size overflows.
 * Thread-safe. */
SINEW_API size_t sinew_bbw_pose_scratch_size(const sinew_bbw_pose *pose, size_t position_count);

/* Infers every handle's transform for one pose.
 * desc: the constraints (fixed handles, positions) and iterations.
 * transforms: transform_floats = 16 * handle_count floats, column-major 4x4
 * per handle, aligned to 4 bytes. On entry: the fixed handles' transforms
 * (affine: last row 0 0 0 1) and, for a warm start, the other handles'
 * previous transforms (any finite values; a cluster they give nothing to
 * fit, as all-zero transforms do, starts at the identity rotation). With no
 * previous frame, ask for cold_start or pass identities: zeros blended with a
 * fixed handle's transform are a poor first guess that 5 iterations may not
 * undo.
 * On success every handle's transform is written (fixed ones unchanged,
 * bit for bit; in 2D the z row and column are the identity's).
 * scratch: scratch_bytes >= sinew_bbw_pose_scratch_size(pose,
 * desc->position_count) bytes of the caller's memory, overwritten.
 * report: NULL, or the energy reached (costs one more local step).
 * Returns SINEW_OK; INVALID_ARGUMENT (NULL pose/desc/transforms/scratch, a
 * fixed transform that is not affine, a position on a fixed handle, no
 * constraint at all); MISMATCH (transform_floats); BUFFER_TOO_SMALL
 * (scratch_bytes; the message gives the size needed); INDEX_OUT_OF_RANGE (a
 * position's handle); NON_FINITE (a target, rest point or transform entry,
 * named); DEGENERATE (the constraints leave a handle's transform
 * undetermined, or repeat one another: named). On failure transforms and
 * report are untouched. Never allocates; const on the handle: thread-safe
 * with distinct transforms and scratch. */
SINEW_API sinew_result sinew_bbw_pose_solve(const sinew_bbw_pose *pose, const sinew_bbw_pose_solve_desc *desc,
                                            float *transforms, size_t transform_floats, void *scratch,
                                            size_t scratch_bytes, sinew_bbw_pose_report *report);

/* The energy (as in sinew_bbw_pose_report) of any transforms (16 *
 * handle_count floats, column-major, affine), with each cluster's rotation
 * chosen best: e.g. of the translation-only pose, to compare. scratch:
 * scratch_bytes >= sinew_bbw_pose_scratch_size(pose, 0) bytes, overwritten.
 * Returns SINEW_OK and *energy; INVALID_ARGUMENT (NULL, not affine),
 * MISMATCH (transform_floats), BUFFER_TOO_SMALL (scratch_bytes), NON_FINITE
 * (named); *energy untouched on failure. Never allocates; thread-safe with
 * distinct scratch. */
SINEW_API sinew_result sinew_bbw_pose_energy(const sinew_bbw_pose *pose, const float *transforms,
                                             size_t transform_floats, void *scratch, size_t scratch_bytes,
                                             double *energy);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_BBW_POSE_H */
