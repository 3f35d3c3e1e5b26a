/*
 * sinew: surface-oriented free-form deformation (Singh & Kokkevis).
 *
 * A driver polygon mesh D deforms a set of points. Phases:
 *   create    sinew_soffd_create (the bind pose): D becomes the reference copy R (n-gons are
 *             triangulated; each triangle is one control element).
 *   register  sinew_soffd_register: for every point P, the closest point on
 *             each element, the weight w_k = 1 / (1 + (d_k / L)^local), the
 *             contributing set C_P (pruned by default, or every element),
 *             normalised weights u_k,
 *             and P in each contributing element's frame (paper eq. 2).
 *   deform    sinew_soffd_element_frames then sinew_soffd_deform:
 *             P_def = sum_k u_k * Q_k^D * P_k^R (paper eq. 3), or the extended
 *             per-vertex-frame algorithm of paper section 4.2
 *             (sinew_soffd_vertex_frames then sinew_soffd_deform_extended).
 * See docs/soffd.md.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_SOFFD_H
#define SINEW_SOFFD_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_soffd sinew_soffd;

/* Creation options; SINEW_INIT it, then a zero field means its default. */
typedef struct sinew_soffd_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* The paper's `local`: how fast weights decay with distance, > 0.
     * 0 = 8: weights stay near 1 within about 0.7 L and fall below 1/1000 of
     * the nearest element's beyond about 2.4 L, so a threshold of 1e-3 keeps
     * the two rings of elements around a point. Smaller values blend more
     * widely (4, Maya Wrap's dropoff, keeps about five times as many). */
    float local;
    /* Length L (world units) that distances are measured in: the weight is
     * 1 / (1 + (d / L)^local), the paper's f(d / L, local). 0 = the driver's mean
     * edge length, so scaling the whole scene leaves the deformation unchanged
     * (up to the same scale). */
    float length_scale;
    /* Nonzero: triangles of zero area (|AB x AC| < 1e-6 * longest edge^2) are
     * left out and counted in sinew_soffd_info.skipped_triangles. 0: they fail
     * the bind with SINEW_ERROR_DEGENERATE naming the triangle and its face. */
    int skip_degenerate;
} sinew_soffd_desc;

/* The defaults sinew_soffd_create uses (docs/api.md, Defaults): *resolved =
 * desc (NULL = all zero) with every zero field that has a default replaced by
 * it (local; length_scale 0, the driver's mean edge length, depends on the
 * driver and stays 0), so creating with *resolved does the same as with desc.
 * Other fields are copied unchecked. resolved must be SINEW_INIT'ed and is
 * written up to its struct_size. INVALID_ARGUMENT (NULL resolved),
 * UNSUPPORTED (unknown nonzero desc bytes). Thread-safe. */
SINEW_API sinew_result sinew_soffd_desc_defaults(const sinew_soffd_desc *desc, sinew_soffd_desc *resolved);

/* Pruning policies for registration; combinable; SINEW_INIT it, then a zero
 * field means its default. The defaults (or a NULL desc) keep each point's 4
 * nearest significant elements (above a thousandth of its largest weight),
 * faded: under 200 bytes per point, a continuous deformed surface, about
 * 1e-2 of the diagonal from the exact formula (docs/soffd.md, "Defaults",
 * states the memory, error and dropped mass per mesh). Every policy but
 * `exclusive` fades the kept weights: each loses the threshold's cut
 * (weight_threshold times the point's largest weight), and under a cap the
 * farthest kept elements are ramped out in distance (to 0 at the distance
 * of the first element the cap drops, over half the length scale L), so an
 * element enters and leaves a point's set at weight 0 and the deformed skin
 * has no steps. `exact` asks for the paper's exact formula instead (every
 * element for every point). */
typedef struct sinew_soffd_register_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* Drop elements whose weight is below weight_threshold times the point's
     * largest weight, in [0, 1); the kept ones lose that cut. 0 = 1e-3
     * (without a cap it keeps about 60 to 100 elements per point and the
     * deformation within about 1e-4 of the diagonal of the exact one; see
     * sinew_soffd_dropped_mass). FLT_MIN in effect drops nothing. */
    float weight_threshold;
    /* Keep at most this many elements per point (the closest), the farthest
     * of them faded out. 0 = 4 (under 200 bytes per point); UINT32_MAX = no
     * cap. A cap of 1 (like exclusive) still steps where the nearest element
     * changes: a single kept element always weighs 1. */
    uint32_t max_contributors;
    /* Drop elements farther than max_distance * L (the length scale; not world
     * units, so it scales with the scene). A point with no element that close
     * keeps its rest position. 0 = no limit. A hard cut, not faded: an
     * element crossing it steps the surface. */
    float max_distance;
    /* Nonzero: one element per point, the closest (Maya Wrap's
     * exclusiveBind), unfaded: the surface steps where the closest changes. */
    int exclusive;
    /* Nonzero: no weight threshold and no cap, so every element (within
     * max_distance, when set) contributes: the paper's exact formula, P x F
     * entries. weight_threshold, max_contributors and exclusive must then be 0. */
    int exact;
} sinew_soffd_register_desc;

/* The policy sinew_soffd_register uses (docs/api.md, Defaults): *resolved =
 * desc (NULL = all zero) with weight_threshold and max_contributors replaced
 * by their defaults when zero and `exact` is 0 (max_contributors stays 0
 * with `exclusive` set); with `exact` set both stay 0.
 * Other fields are copied unchecked. resolved must be SINEW_INIT'ed and is
 * written up to its struct_size. INVALID_ARGUMENT (NULL resolved),
 * UNSUPPORTED (unknown nonzero desc bytes). Thread-safe. */
SINEW_API sinew_result sinew_soffd_register_desc_defaults(const sinew_soffd_register_desc *desc,
                                                          sinew_soffd_register_desc *resolved);

/* Read-only facts about a handle. */
typedef struct sinew_soffd_info {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    size_t vertex_count;        /* driver vertices (deform-time driver must match) */
    size_t face_count;          /* driver faces as given */
    size_t element_count;       /* triangles used as control elements */
    size_t skipped_triangles;   /* zero-area triangles left out (skip_degenerate) */
    float local;                /* resolved `local` */
    float length_scale;         /* resolved L, world units */
    size_t point_count;         /* registered points; 0 before sinew_soffd_register */
    size_t contribution_count;  /* sum over points of |C_P| */
    size_t max_set_size;        /* largest |C_P| */
    size_t empty_points;        /* points with no contributing element (kept at rest) */
    float max_dropped_mass;     /* an upper bound on every point's sinew_soffd_dropped_mass, kept by
                                 * registration from box distances: cheap, but it can be far above
                                 * the largest one (query the points for their tight figures) */
    size_t memory_bytes;        /* every byte the handle holds (all its allocations) */
    size_t added_vertices;      /* vertices sinew_soffd_subdivide added (the last ones of vertex_count) */
    size_t edit_count;          /* contributing-set edits kept since the last sinew_soffd_register */
} sinew_soffd_info;

/* Binds a driver polygon mesh: validates it, triangulates n-gons (ear clipping,
 * so concave faces work), keeps the reference copy R and builds a BVH over it.
 * Returns SINEW_OK and *out, or: INVALID_ARGUMENT (NULL, no faces, face size
 * < 3, bad stride or option), NON_FINITE (names the vertex), OUTSIDE_DOMAIN (a
 * coordinate beyond 2^60, names the vertex; see docs/soffd.md), INDEX_OUT_OF_RANGE
 * (names the face), INVALID_TOPOLOGY (a face that cannot be triangulated,
 * named), DEGENERATE (a zero-area triangle, named, unless skip_degenerate; or
 * every triangle degenerate), OUT_OF_MEMORY, SIZE_OVERFLOW, CANCELLED.
 * ctx: NULL = defaults; progress of this call, and the allocator the handle
 * keeps for its lifetime (calls on it report progress through their own ctx).
 * driver: positions (any stride), faces (face_sizes NULL = triangles);
 *   unreferenced vertices are allowed. Not retained.
 * desc: NULL = all defaults. out: receives the handle. Thread-safe. */
SINEW_API sinew_result sinew_soffd_create(sinew_context *ctx, const sinew_polymesh *driver,
                                          const sinew_soffd_desc *desc, sinew_soffd **out);

/* Destroys a handle (NULL is fine). Not thread-safe with other calls on it. */
SINEW_API void sinew_soffd_destroy(sinew_soffd *soffd);

/* Fills *info. Returns INVALID_ARGUMENT on NULL. Reads the handle only.
 * On success it leaves sinew_last_error() as it was, so the message of an
 * earlier failure can still be read after the info. */
SINEW_API sinew_result sinew_soffd_get_info(const sinew_soffd *soffd, sinew_soffd_info *info);

/* Face of the driver that element `element` was cut from. Returns
 * INDEX_OUT_OF_RANGE for a bad element. Reads the handle only. */
SINEW_API sinew_result sinew_soffd_element_face(const sinew_soffd *soffd, size_t element, uint32_t *face);

/* Faces of the zero-area triangles that skip_degenerate left out, one entry
 * per triangle (a face may repeat), in face order, into `capacity` entries.
 * *count receives the number of entries (skipped_triangles) in every case
 * but INVALID_ARGUMENT (NULL soffd or count). faces NULL asks only for the
 * count; a capacity below it is SINEW_ERROR_BUFFER_TOO_SMALL with nothing
 * else written. Reads the handle only. */
SINEW_API sinew_result sinew_soffd_skipped_faces(const sinew_soffd *soffd, uint32_t *faces, size_t capacity,
                                               size_t *count);

/* Registers points (replacing any earlier registration, and forgetting its edits):
 * weights, contributing sets and local coordinates, using the BVH over R.
 * ctx: this call's progress callback (NULL = none); memory comes from the
 * handle's allocator. Reports progress ("soffd: register") and stops with
 * CANCELLED when asked, the handle then unchanged. Returns INVALID_ARGUMENT, NON_FINITE (names the
 * point), OUTSIDE_DOMAIN (a coordinate beyond 2^60, or a point more than 2^62
 * element sizes from a kept element; names the point), OUT_OF_MEMORY,
 * SIZE_OVERFLOW (exact registration needs points x elements entries),
 * CANCELLED. Weights are finite and sum to one for every accepted point.
 * points: the points to deform (any stride), copied; count may be 0. desc:
 * NULL = the defaults (pruned; see sinew_soffd_register_desc for exact).
 * Modifies the handle: not thread-safe with other calls on it. */
SINEW_API sinew_result sinew_soffd_register(sinew_context *ctx, sinew_soffd *soffd, const sinew_points *points,
                                            const sinew_soffd_register_desc *desc);

/* Re-registration: moves the reference surface R (same vertex count; the
 * triangulation is kept) and registers the same points again with the
 * same policy, without rebuilding the handle. The edits to contributing sets
 * made since sinew_soffd_register are then applied again, in order, to the
 * new sets: a replaced set is replaced again, flagged elements are removed
 * again from their points' sets (docs/soffd.md, "Edits that survive").
 * ctx: progress of the re-registration ("soffd: register"), NULL =
 * none. Returns MISMATCH (vertex count), NON_FINITE, OUTSIDE_DOMAIN, DEGENERATE (a triangle
 * that was used loses its area), INVALID_WEIGHTS (an exclusion would now
 * leave a point no element: the message names the edit and the point),
 * OUT_OF_MEMORY, CANCELLED; on failure the handle is unchanged. Modifies the
 * handle: not thread-safe. */
SINEW_API sinew_result sinew_soffd_set_reference(sinew_context *ctx, sinew_soffd *soffd,
                                                 const sinew_points *reference);

/* Changes the weights' falloff: `local` (> 0, 0 = keep the current one) and
 * the length scale L in world units (> 0, 0 = keep), then registers the same
 * points again with the same policy and re-applies the edits to contributing
 * sets (see sinew_soffd_set_reference). ctx: progress ("soffd: register"),
 * NULL = none. Returns INVALID_ARGUMENT (NULL, a negative or non-finite
 * value), the codes of re-applying the edits, OUT_OF_MEMORY, CANCELLED; the
 * handle unchanged on failure. Modifies the handle: not thread-safe. */
SINEW_API sinew_result sinew_soffd_set_falloff(sinew_context *ctx, sinew_soffd *soffd, float local,
                                               float length_scale);

/* How sinew_soffd_subdivide splits a triangle. */
typedef enum sinew_soffd_split {
    SINEW_SOFFD_SPLIT_EDGES = 0,   /* 1 -> 4 at its edge midpoints (shared by chosen neighbours) */
    SINEW_SOFFD_SPLIT_CENTROID = 1 /* 1 -> 3 around its centroid */
} sinew_soffd_split;

/* Finer control in a region (paper section 5): splits the elements flagged
 * in `chosen` (chosen_flag_count bytes, which must be element_count; nonzero
 * = split). New vertices are appended to R and to the driver (vertex_count
 * grows: the deform-time driver must give them too; sinew_soffd_added_vertices
 * says how each is made from earlier ones). A split element's first child
 * keeps its number and the others are appended, so elements not chosen keep
 * theirs; sinew_soffd_element_parent maps each to the element it came from.
 * An edge midpoint is shared by chosen neighbours; a neighbour not chosen
 * keeps its whole edge (the driver then has a T-junction there, which SOFFD
 * does not mind while the midpoint stays on the edge). Registered points are
 * registered again with the same policy and every edit to contributing sets
 * re-applied, a split element standing for all its children (the children
 * of an excluded element stay excluded). Nothing chosen changes nothing.
 * ctx: progress ("soffd: register"), NULL = none. Returns INVALID_ARGUMENT
 * (NULL, an unknown split), MISMATCH (chosen_flag_count, both named),
 * DEGENERATE (a child of zero area, naming its parent), SIZE_OVERFLOW (more
 * than 2^32 - 2 elements or vertices), the codes of re-applying the edits,
 * OUT_OF_MEMORY, CANCELLED; the handle unchanged on failure. Modifies the
 * handle: not thread-safe. */
SINEW_API sinew_result sinew_soffd_subdivide(sinew_context *ctx, sinew_soffd *soffd, const uint8_t *chosen,
                                             size_t chosen_flag_count, sinew_soffd_split split);

/* Element that `element` was split from by the subdivision that made it: its
 * own number when it was never split (and for a first child, which keeps its
 * parent's number). Returns INVALID_ARGUMENT (NULL), INDEX_OUT_OF_RANGE.
 * Reads the handle only. */
SINEW_API sinew_result sinew_soffd_element_parent(const sinew_soffd *soffd, size_t element, uint32_t *parent);

/* The vertices subdivision added, in order (vertex vertex_count -
 * added_vertices + j is entry j): each is sum_c weights[3j + c] *
 * vertex sources[3j + c] of earlier vertices (an edge midpoint: its two
 * ends at 1/2, the third weight 0; a centroid: three at 1/3), so a posed
 * driver can be extended the same way. sources and weights: 3 * capacity
 * entries (weights may be NULL; sources NULL asks only for the count).
 * *count receives the number of added vertices on SINEW_OK and on
 * BUFFER_TOO_SMALL (nothing else written). Returns INVALID_ARGUMENT (NULL
 * soffd or count, weights without sources). Reads the handle only. */
SINEW_API sinew_result sinew_soffd_added_vertices(const sinew_soffd *soffd, uint32_t *sources, float *weights,
                                                  size_t capacity, size_t *count);

/* Weight mass point `point` lost to pruning: an upper bound on
 * 1 - (sum of its kept, faded weights) / (sum of the weights of every
 * element), the exact normalised weight of the elements outside its
 * contributing set plus what the fade took from the kept ones; at most 1.5
 * times that plus 1e-4; 0 for exact registration and edited points, 1 for a
 * point with no contributor. The deformed point is then within mass *
 * (spread of the per-element results P_k^def) of the exact formula. Computed on each query (nothing is cached):
 * about the cost of registering the point once more, a walk of the BVH over
 * R. Returns INDEX_OUT_OF_RANGE, INVALID_STATE (not registered). No
 * allocation; reads the handle only, so safe from many threads at once. */
SINEW_API sinew_result sinew_soffd_dropped_mass(const sinew_soffd *soffd, size_t point, float *mass);

/* Number of contributing elements |C_P| of a point. Returns
 * INDEX_OUT_OF_RANGE, INVALID_STATE. Reads the handle only. */
SINEW_API sinew_result sinew_soffd_contributor_count(const sinew_soffd *soffd, size_t point, size_t *count);

/* Reads C_P in ascending element order and the normalised weights u_k.
 * elements: capacity entries, NULL to ask only for the count; weights:
 * capacity entries or NULL. *count receives |C_P| on SINEW_OK and on
 * SINEW_ERROR_BUFFER_TOO_SMALL (capacity < |C_P|: nothing else written).
 * Also returns INVALID_ARGUMENT (NULL count, weights without elements),
 * INDEX_OUT_OF_RANGE, INVALID_STATE. Reads the handle only. */
SINEW_API sinew_result sinew_soffd_contributors(const sinew_soffd *soffd, size_t point, uint32_t *elements,
                                                    float *weights, size_t capacity, size_t *count);

/* Replaces C_P of a point with `count` elements (paper section 5); weights are
 * recomputed from the paper's formula normalised over the new set, unfaded
 * (the set is the user's: nothing was dropped from it). count 0
 * pins the point at its rest position. Returns INDEX_OUT_OF_RANGE (point or an
 * element, named), INVALID_ARGUMENT (an element listed twice), OUTSIDE_DOMAIN
 * (the point lies more than 2^62 element sizes from one), SIZE_OVERFLOW
 * (count * 4 bytes overflows), INVALID_STATE, OUT_OF_MEMORY; the handle
 * unchanged on failure. Modifies the handle: not thread-safe. */
SINEW_API sinew_result sinew_soffd_set_contributors(sinew_soffd *soffd, size_t point, const uint32_t *elements,
                                                    size_t count);

/* Removes the elements flagged in `excluded` (excluded_flag_count bytes, which
 * must be element_count; nonzero = remove) from C_P of points [first, first +
 * count), the rest weighed by the paper's formula, unfaded, renormalised over
 * what is left (for example the right thigh's elements from
 * the left leg's points). A point that would lose every element keeps its set,
 * and the call fails with INVALID_WEIGHTS naming it, before anything changes.
 * Returns MISMATCH (excluded_flag_count is not element_count, both named),
 * INVALID_ARGUMENT (NULL), INDEX_OUT_OF_RANGE, INVALID_STATE, OUT_OF_MEMORY;
 * the handle unchanged on failure. Modifies the handle: not thread-safe. */
SINEW_API sinew_result sinew_soffd_exclude_elements(sinew_soffd *soffd, const uint8_t *excluded,
                                                    size_t excluded_flag_count, size_t first, size_t count);

/* Pose step 1 (basic algorithm): the frame Q_k^D of every element of the
 * current driver, as column-major 4x4 matrices (columns e1 = B - A, e2 = C - A,
 * e3 = unit normal, origin A). frames: frame_floats floats, which must be
 * sinew_soffd_element_frames_size(soffd) (16 * element_count). A deformed
 * triangle of zero area keeps its reference normal as e3. Returns MISMATCH
 * (vertex count differs from the bind, both named; frame_floats is not the
 * size needed, which the message names), NON_FINITE (names the
 * vertex), OUTSIDE_DOMAIN (a coordinate beyond 2^60, names the vertex; frames
 * untouched), INVALID_ARGUMENT (NULL, bad stride, frames not 4-byte aligned).
 * No allocation; const; thread-safe. */
SINEW_API sinew_result sinew_soffd_element_frames(const sinew_soffd *soffd, const sinew_points *driver_now,
                                                  float *frames, size_t frame_floats);

/* Floats in the element frames of sinew_soffd_element_frames and
 * sinew_soffd_deform: 16 per element (0 for NULL). Thread-safe. */
SINEW_API size_t sinew_soffd_element_frames_size(const sinew_soffd *soffd);

/* Pose step 2 (basic algorithm): P_def = sum_k u_k Q_k^D P_k^R for registered
 * points [first, first + count). frames: from sinew_soffd_element_frames;
 * frame_floats must be sinew_soffd_element_frames_size(soffd) (else MISMATCH
 * naming the size needed).
 * out_points: point i goes to (char *)out_points + i * out_point_stride (out_point_stride bytes, 0 = 3
 * floats), so jobs share one buffer. Points with an empty set are written at
 * rest.
 * normals: optional (NULL = none), registered point i's rest normal at index
 * i (count = the registered points; need not be unit length); each is mapped
 * by the inverse transpose of the deformation's Jacobian
 * J = sum_k u_k L_k^D (L_k^R)^-1 (L the frames' linear parts [e1 e2 e3]),
 * renormalised, into out_normals (indexed like out_points, stride 0 = 3 floats); a
 * normal whose image vanishes is written as given, one of a point kept at
 * rest normalised. The weights' own gradients are left out_points (docs/soffd.md,
 * "Normals"), so rigid and affine motions of the driver map normals exactly
 * and bends approximately. out_normals needs normals; both NULL = positions
 * only.
 * Returns INVALID_ARGUMENT (NULL, bad stride, frames, out_points or a normal stream
 * not 4-byte aligned, a normal output without normals or normals without
 * one), MISMATCH (normals->count is not the registered point count),
 * NON_FINITE (a normal in the range, named), INDEX_OUT_OF_RANGE (range past
 * the registered points), SIZE_OVERFLOW (the last point's offset
 * overflows), OUTSIDE_DOMAIN (a frame that could overflow the kernel, named;
 * checked in O(element_count), never true of element_frames' output),
 * INVALID_STATE; outputs untouched on failure. Finite outputs for every
 * accepted input. No allocation; const; safe from many threads at once on
 * disjoint or equal ranges of different buffers. */
SINEW_API sinew_result sinew_soffd_deform(const sinew_soffd *soffd, const float *frames, size_t frame_floats,
                                          const sinew_points *normals,
                                          float *out_points, size_t out_point_stride, float *out_normals, size_t out_normal_stride,
                                          size_t first, size_t count);

/* Pose step 1 (extended algorithm, paper section 4.2): estimates one affine
 * map per driver vertex, as column-major 4x4 matrices, from its one-ring: the
 * least-squares linear map taking reference edges to current edges, with the
 * vertex normal added where the reference one-ring is flat or nearly so (so
 * it is determined), and the translation that takes the reference vertex onto
 * the current one. Exact for every affine map of the driver at vertices whose
 * one-ring is far from flat (det(G) / (tr G / 3)^3 >= 0.1, G = sum e e^T over
 * the ring's edges); at the others (most vertices of a smooth mesh) exact for
 * rotations, uniform scaling and translations only; at vertices whose
 * triangles' normals cancel, or that no element uses, it leans towards the
 * identity. The identity for an unmoved one-ring, bit for bit (docs/soffd.md).
 * frames: frame_floats floats, which must be sinew_soffd_vertex_frames_size(soffd)
 * (16 * vertex_count; else MISMATCH naming the size needed). Callers with better
 * frames (the blended skinning matrix of each driver vertex) pass those to
 * sinew_soffd_deform_extended instead. Returns as sinew_soffd_element_frames,
 * and OUTSIDE_DOMAIN (names the vertex; frames untouched) when a map would
 * stretch beyond 2^62 or translate beyond 2^126.
 * No allocation; const; thread-safe. */
SINEW_API sinew_result sinew_soffd_vertex_frames(const sinew_soffd *soffd, const sinew_points *driver_now,
                                                 float *frames, size_t frame_floats);

/* Floats in the vertex frames of sinew_soffd_vertex_frames and
 * sinew_soffd_deform_extended: 16 per driver vertex (0 for NULL). Thread-safe. */
SINEW_API size_t sinew_soffd_vertex_frames_size(const sinew_soffd *soffd);

/* Pose step 2 (extended algorithm): P_def = sum_k u_k sum_{j in k} beta_j M_j P,
 * with beta the barycentric coordinates of P's closest point on element k and
 * M_j the affine map of driver vertex j (column-major 4x4, 16 floats per
 * vertex; bottom row ignored; vertex_frame_floats must be
 * sinew_soffd_vertex_frames_size(soffd), else MISMATCH), so every affine map of the driver is
 * reproduced exactly when every M_j is that map. out_points, out_point_stride, first, count
 * as sinew_soffd_deform; so are normals and out_normals, mapped here by the
 * inverse transpose of J = sum_k u_k sum_j beta_j A_j (A_j the linear part of
 * M_j). Maps with a linear entry beyond 2^62 or a translation beyond 2^126
 * fail with OUTSIDE_DOMAIN naming the vertex (checked in O(vertex_count)).
 * Other results as sinew_soffd_deform. No allocation; const; thread-safe. */
SINEW_API sinew_result sinew_soffd_deform_extended(const sinew_soffd *soffd, const float *vertex_frames,
                                                   size_t vertex_frame_floats, const sinew_points *normals, float *out_points, size_t out_point_stride,
                                                   float *out_normals, size_t out_normal_stride, size_t first,
                                                   size_t count);

/* ---- Save and load (core.h "Saved data"; docs/soffd.md) ---------------------
 * A handle is saved with its bind (reference surface, triangulation, skipped
 * triangles, resolved local and L) and its registration (points, contributing
 * sets with their edits, weights, local coordinates, policy); loading rebuilds
 * only what R determines cheaply (element normals, BVH, one-ring frames). */

/* Saves a handle, registered or not, into buffer. buffer NULL asks for the
 * size (SINEW_OK, *size = bytes needed); capacity below it is
 * BUFFER_TOO_SMALL with *size = bytes needed and nothing written; else *size
 * = bytes written. The same handle always gives the same bytes. Returns
 * INVALID_ARGUMENT (NULL soffd or size). Reads the handle only; never allocates. */
SINEW_API sinew_result sinew_soffd_save(const sinew_soffd *soffd, void *buffer, size_t capacity, size_t *size);

/* Loads a handle saved by sinew_soffd_save (this or an earlier format
 * version). Returns SINEW_OK and *out, or: INVALID_ARGUMENT (NULL data/out,
 * an option out of range), INVALID_DATA (not whole, intact soffd data:
 * truncated, corrupted, counts that do not add up), MISMATCH (data of another
 * kind), UNSUPPORTED (a newer format version), the codes bind, register and
 * the edits give for contents they refuse (INDEX_OUT_OF_RANGE, DEGENERATE,
 * OUTSIDE_DOMAIN, INVALID_WEIGHTS, ...), OUT_OF_MEMORY, SIZE_OVERFLOW,
 * CANCELLED. Messages start with "soffd data:" and name the element, vertex
 * or point. *out is untouched on failure. Deforming the loaded handle
 * gives the same bits as deforming the one that was saved.
 * ctx: NULL = defaults; progress of this call only (the loaded handle never
 * keeps the callback), and the allocator the handle keeps, as create takes them. data: read during the call only. Thread-safe. */
SINEW_API sinew_result sinew_soffd_load(sinew_context *ctx, const void *data, size_t size, sinew_soffd **out);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_SOFFD_H */
