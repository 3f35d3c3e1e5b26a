/*
 * Internal state of a surface-oriented FFD handle, shared by the bind,
 * register, edit and deform files of src/soffd/.
 */
#ifndef SINEW_SOFFD_INTERNAL_H
#define SINEW_SOFFD_INTERNAL_H

#include "core/internal.h"
#include "geom/mesh_graph.h"
#include "geom/bvh.h"
#include "sinew/soffd.h"

/* Per-vertex data of the extended algorithm's one-ring frame estimate. */
typedef struct sn_soffd_ring {
    sn_mesh_graph graph;  /* distinct one-ring vertices of each driver vertex */
    size_t *fan_offsets;  /* vertex_count + 1 into fan */
    uint32_t *fan;        /* elements around each vertex */
    double *inverse;      /* 9 per vertex: (sum r r^T + mu n n^T)^-1, row-major */
    double *normal_weight;/* mu per vertex: 0 where the ring spans 3D */
    double *normal;       /* 3 per vertex: unit reference normal */
    double *fan_area;     /* sum of |cross| over the fan in R (0: no normal), for the normal's scale */
    double *identity_weight; /* weight of the identity pairs that fix rings with no usable normal */
    /* Every linear entry of every vertex map is at most
     * stretch_per_extent * E + stretch_base for a current driver whose
     * coordinates are at most E in magnitude (see ring.c), so vertex_frames
     * can skip its separate domain pass when that stays well inside it. */
    double stretch_per_extent, stretch_base;
} sn_soffd_ring;

/* One registration: contributing sets in compressed rows. */
typedef struct sn_soffd_reg {
    size_t point_count;
    float *rest;          /* 3 per point: the registered point P */
    size_t *offsets;      /* point_count + 1 */
    uint32_t *element;    /* per entry: the element k */
    float *coeff;         /* 4 per entry: u*x, u*y, u*z, u (P_k^R scaled by u_k) */
    /* The corner lists of the extended kernel (corners.c), built with the
     * entries from each entry's u * barycentrics (sn_soffd_entry_bary), which
     * are not kept: they follow from P, k and u. */
    size_t *corner_offsets; /* point_count + 1 into the two below */
    uint32_t *corner_vertex;/* per merged corner: a driver vertex of the point's elements */
    float *corner_weight;   /* per merged corner: sum of u * beta over the point's elements */
    float *dropped;       /* per point: cheap dropped-mass bound (box distances); 0 = nothing dropped */
    float *fade;          /* per point: the share of its kept elements' weight the fade took (register.c),
                           * rounded up; 0 = not faded (exact, exclusive, edited) */
    double *rest_offset;  /* 3 per point: P minus the basic kernel's sum at the rest frames (deform.c) */
    size_t entry_count;
    size_t max_set;
} sn_soffd_reg;

/* One contributing-set edit since the last sinew_soffd_register (edits.c):
 * a replaced set (SN_SOFFD_EDIT_SET, one point) or elements removed from a
 * range of points (SN_SOFFD_EDIT_EXCLUDE). Its elements are
 * edit_elements[element_at, element_at + element_count), ascending. */
enum { SN_SOFFD_EDIT_SET = 1, SN_SOFFD_EDIT_EXCLUDE = 2 };
typedef struct sn_soffd_edit {
    uint64_t kind, first, count, element_at, element_count;
} sn_soffd_edit;

struct sinew_soffd {
    sn_env env;
    size_t held_bytes;   /* every block the handle owns (env.held points here), the handle included */
    size_t vertex_count, face_count, element_count, skipped;
    float *reference;            /* 3 per vertex: R */
    uint32_t *elements;          /* 3 per element */
    uint32_t *element_face;      /* per element */
    uint32_t *skipped_face;      /* face of each zero-area triangle left out */
    float *reference_normal;     /* 3 per element: e3 of R, the fallback for collapsed triangles */
    double *reference_inverse;   /* 9 per element, row-major: [e1 e2 e3]^-1 of R, for normals (normals.c) */
    float *reference_frame;      /* 16 per element: Q_k^R, as sinew_soffd_element_frames gives it for R */
    double local, length_scale;
    sn_bvh bvh;
    sn_soffd_ring ring;
    /* The registration policy as registration applies it: resolved (no zero
     * field that has a default), or exact with weight_threshold and
     * max_contributors 0 (no threshold, no cap), as the saved data keeps it. */
    sinew_soffd_register_desc policy;
    int registered;
    sn_soffd_reg reg;
    /* The user's edits in order, replayed after every re-registration so they
     * survive a moved reference, a new falloff and subdivision (edits.c). */
    sn_soffd_edit *edits;
    size_t edit_count, edit_cap;
    uint32_t *edit_elements;
    size_t edit_element_count, edit_element_cap;
    /* Subdivision (subdivide.c): the element each element was split from (its
     * own number when never split; NULL until the first subdivision), and each
     * vertex added after the bind as a combination of 3 earlier vertices. */
    uint32_t *element_parent;
    size_t bind_elements;   /* elements the bind made, when element_parent is set; appended ones follow */
    size_t added_count;
    uint32_t *added_source; /* 3 per added vertex */
    float *added_weight;    /* 3 per added vertex */
};

/* The numeric domain. Coordinates of the driver, the reference and the skin
 * points are at most 2^60 in magnitude; registered local coordinates at most
 * 2^62; pose-time element frames have |e1|, |e2| <= 2^61 (differences of
 * in-domain vertices), |e3| <= 2 and origins <= 2^60; vertex maps have linear
 * entries <= 2^62 and translations <= 2^126. With those bounds every product
 * and sum of the deform kernels stays below 2^127 < FLT_MAX, so finite inputs
 * never give non-finite outputs. Beyond them calls fail with OUTSIDE_DOMAIN. */
#define SN_SOFFD_MAX_COORD 1152921504606846976.0          /* 2^60 */
#define SN_SOFFD_MAX_LOCAL 4611686018427387904.0          /* 2^62 */
#define SN_SOFFD_MAX_EDGE 2305843009213693952.0           /* 2^61 */
#define SN_SOFFD_MAX_LINEAR SN_SOFFD_MAX_LOCAL            /* 2^62 */
#define SN_SOFFD_MAX_TRANSLATION 8.507059173023462e37     /* 2^126 */

/* Fails with OUTSIDE_DOMAIN naming the first point (noun `what`) with a
 * coordinate beyond SN_SOFFD_MAX_COORD. The points must be finite already. */
sinew_result sn_soffd_check_domain(const sinew_points *p, const char *what);

/* Index of the first of `count` column-major 4x4 matrices with an entry in
 * rows 0-2 beyond +-limit[i] (i its index in the matrix) or not finite;
 * count when there is none. Vectorised: the pose calls' O(F) frame checks. */
size_t sn_soffd_first_matrix_outside(const float *m, size_t count, const float limit[16]);

/* Weights of one point's elements relative to its nearest one (see weights.c):
 * the paper's f(d / L, local) times a per-point factor that keeps the nearest
 * element's weight in [1/2, 1], so weights never all underflow. */
typedef struct sn_soffd_scale {
    double dist2_min; /* squared distance of the nearest element */
    double t_min;     /* (d_min / L)^local, possibly infinite */
} sn_soffd_scale;
void sn_soffd_scale_init(const sinew_soffd *h, double dist2_min, sn_soffd_scale *scale);
/* Scaled weight of an element at squared distance dist2 >= dist2_min: finite, in [0, 1]. */
double sn_soffd_scaled_weight(const sinew_soffd *h, const sn_soffd_scale *scale, double dist2);
/* Upper bound on the scaled weight of any element in a BVH box at squared
 * distance near2 (its nearest point), with slack for the box's float rounding. */
double sn_soffd_box_weight(const sinew_soffd *h, const sn_soffd_scale *scale, double near2);
/* Relative slack on box distances, so float rounding of a box corner cannot
 * turn a box's weight bounds into non-bounds. */
#define SN_SOFFD_BOX_SLACK 1e-6
/* Distance within which w >= eps * w(d_min); INFINITY when eps is 0. */
double sn_soffd_threshold_radius(const sinew_soffd *h, const sn_soffd_scale *scale, double eps);

/* One element's geometry (element.c). Local coordinates (x, y, z) of p in
 * element k's reference frame (p = A + x e1 + y e2 + z n). The zero-area test
 * shared by bind and re-registration (the unit normal to `normal` when not
 * degenerate and normal is not NULL). The column-major 4x4 frame of triangle
 * (a, b, c): e1 = b - a, e2 = c - a (float), their unit normal (or
 * fallback_normal when it vanishes), origin a; bottom row (0, 0, 0, 1). */
void sn_soffd_local_coords(const sinew_soffd *h, uint32_t k, const float p[3], double xyz[3]);
bool sn_soffd_degenerate(const float *a, const float *b, const float *c, double normal[3]);
void sn_soffd_element_frame(const float *a, const float *b, const float *c, const float *fallback_normal, float *q);

/* Builds the BVH, element normals and one-ring data from h->reference into h
 * (whose fields for them must be empty). On failure the caller frees them. */
sinew_result sn_soffd_build_reference_data(sinew_soffd *h);

/* Builds the one-ring data of the extended algorithm from h's reference. */
sinew_result sn_soffd_ring_build(const sinew_soffd *h, sn_soffd_ring *ring);
void sn_soffd_ring_free(const sn_env *env, sn_soffd_ring *ring);

/* An element near a point, before it becomes an entry. */
typedef struct sn_soffd_candidate {
    double weight;        /* scaled weight (sn_soffd_scaled_weight) */
    float dist2;
    uint32_t element;
    float bary[3];
} sn_soffd_candidate;

/* Elements registration left out: one element at squared distance dist2
 * (node SN_BVH_ONE_TRIANGLE), or the `count` elements below a BVH node whose
 * box lies at squared distance dist2. */
typedef struct sn_soffd_drop {
    uint32_t node;
    float dist2;
    size_t count;
} sn_soffd_drop;

/* qsort comparator: ascending element. */
int sn_soffd_by_element(const void *a, const void *b);

/* Fills the weights of n candidates (distances set), relative to the nearest of them. */
void sn_soffd_weigh(const sinew_soffd *h, sn_soffd_candidate *items, size_t n);

/* u times the barycentric coordinates of p's closest point on element k of
 * R, rounded to float: what the corner lists are made of. The same bits for
 * the same (p, k, u) wherever it is computed (registration, the edits, save). */
void sn_soffd_entry_bary(const sinew_soffd *h, const float p[3], uint32_t k, float u, float out[3]);

/* Writes the entries of point `point` (at p) from its kept candidates (in
 * the order given, weights filled), normalising the weights over them, and
 * the kept weight sum to *kept_weight (may be NULL). Fails with
 * OUTSIDE_DOMAIN naming the point and element when a local coordinate exceeds
 * SN_SOFFD_MAX_LOCAL; the destination is then partly written. */
sinew_result sn_soffd_write_entries(const sinew_soffd *h, size_t point, const float p[3],
                                    const sn_soffd_candidate *items, size_t n, uint32_t *element, float *coeff,
                                    double *kept_weight);
/* The check of sn_soffd_write_entries alone, for edits that write in place. */
sinew_result sn_soffd_check_reach(const sinew_soffd *h, size_t point, const float p[3],
                                  const sn_soffd_candidate *items, size_t n);

/* The basic kernel's per-point rest offsets (deform.c): allocate and fill
 * reg->rest_offset for every point (false when out of memory), or refill one
 * point's after its entries changed. They read h->reference_frame. */
bool sn_soffd_rest_offsets_build(const sinew_soffd *h, sn_soffd_reg *reg);
void sn_soffd_rest_offset_update(const sinew_soffd *h, sn_soffd_reg *reg, size_t point);

/* Replaces the zero fields of a public policy that have defaults by them,
 * unless it asks for the exact formula (desc_defaults.c). */
void sn_soffd_resolve_policy(sinew_soffd_register_desc *p);

/* Registers `skin` (count points, stride bytes, 0 = packed) into *reg, reporting progress through `call`. */
sinew_result sn_soffd_register_points(const sinew_soffd *h, const sn_env *call, const float *skin, size_t stride,
                                      size_t count, const sinew_soffd_register_desc *policy, sn_soffd_reg *reg);
void sn_soffd_reg_free(const sn_env *env, sn_soffd_reg *reg);

/* Dropped mass of registered point `point` (sinew_soffd_dropped_mass): the
 * registration's cheap bound tightened to within 1.5 times the truth plus
 * 1e-4. No allocation; reads the handle only. */
float sn_soffd_tight_dropped_mass(const sinew_soffd *h, size_t point);

/* Corner lists of the extended kernel (corners.c). Append: registration
 * merges point i (its entries and corner_offsets[i] in place) into lists
 * grown by doubling (*cap corners; slot: one per vertex, all UINT32_MAX);
 * false when out of memory. Edits and load reserve room
 * (`capacity` merged corners, at least what the edited entries will need)
 * before changing anything, then install (cannot fail) or release. Install
 * merges the entries' u * barycentrics given in `bary` (3 per entry, as load
 * reads them), or with bary NULL those sn_soffd_entry_bary gives. */
typedef struct sn_soffd_corners {
    size_t *offsets;
    uint32_t *vertex;
    float *weight;
    uint32_t *slot; /* merge scratch, one per driver vertex */
} sn_soffd_corners;
/* A reserve capacity: exactly the corners h->reg's entries make (counted). */
#define SN_SOFFD_CORNERS_COUNTED SIZE_MAX
bool sn_soffd_corners_append(const sinew_soffd *h, sn_soffd_reg *reg, size_t i, size_t *cap, uint32_t *slot);
bool sn_soffd_corners_reserve(const sinew_soffd *h, size_t point_count, size_t capacity, sn_soffd_corners *c);
void sn_soffd_corners_install(const sinew_soffd *h, sn_soffd_reg *reg, const float *bary, sn_soffd_corners *c);
void sn_soffd_corners_release(const sinew_soffd *h, sn_soffd_corners *c);
void sn_soffd_corners_free(const sn_env *env, sn_soffd_reg *reg);

/* Checks shared by the pose calls: the current driver (count as bound,
 * finite) and a deform call's output and point range, each with the frames
 * buffer's size (16 floats per element, or per driver vertex when per_vertex). */
sinew_result sn_soffd_check_driver(const sinew_soffd *h, const sinew_points *driver_now, const float *frames,
                                   size_t frame_floats, bool per_vertex);
sinew_result sn_soffd_check_range(const sinew_soffd *h, const float *frames, size_t frame_floats, bool per_vertex,
                                  const float *out, size_t out_stride, size_t first, size_t count);

/* Normals (normals.c). The reference frames' inverses, built from
 * h->reference and h->reference_normal (the field must be empty; the caller
 * frees it on failure). The checks of a deform call's optional normal
 * streams, after sn_soffd_check_range. The Jacobian (column-major 3x3) of
 * registered point `point`'s deformation: basic, sum_k u_k D_k (R_k)^-1 of
 * the element frames; extended, sum_k u_k sum_j beta_j A_j of the vertex
 * maps; the identity for a point kept at rest. */
sinew_result sn_soffd_build_reference_inverse(sinew_soffd *h);
sinew_result sn_soffd_check_normals(const sinew_soffd *h, const sinew_points *normals, const float *out_normals,
                                    size_t out_normal_stride, size_t first, size_t count);
void sn_soffd_element_jacobian(const sinew_soffd *h, const float *frames, size_t point, double jac[9]);
void sn_soffd_vertex_jacobian(const sinew_soffd *h, const float *vertex_frames, size_t point, double jac[9]);

/* Contributing-set edits without recording them (contributors.c); the
 * public calls check, reserve room in the edit record, apply, then record. */
sinew_result sn_soffd_apply_set(sinew_soffd *h, size_t point, const uint32_t *elements, size_t count);
sinew_result sn_soffd_apply_exclude(sinew_soffd *h, const uint8_t *excluded, size_t first, size_t count);

/* The edit record (edits.c). An edit call first reserves room for one more
 * edit of n elements (false when out of memory; the handle untouched: grown
 * arrays wait in `room`), then either records the edit (cannot fail; its n
 * elements listed in `elements` or flagged in `flags`, element_count bytes;
 * a set replaces earlier edits of that point alone) or cancels the room. */
typedef struct sn_soffd_edit_room {
    sn_soffd_edit *edits;
    uint32_t *elements;
    size_t edit_cap, element_cap;
} sn_soffd_edit_room;
bool sn_soffd_edits_reserve(const sinew_soffd *h, size_t n, sn_soffd_edit_room *room);
void sn_soffd_edits_cancel(const sinew_soffd *h, sn_soffd_edit_room *room);
void sn_soffd_edits_record(sinew_soffd *h, sn_soffd_edit_room *room, uint64_t kind, size_t first, size_t count,
                           const uint32_t *elements, const uint8_t *flags, size_t n);
void sn_soffd_edits_free(const sn_env *env, sinew_soffd *h);
/* Rewrites h's edits into next for a subdivision: element e becomes itself
 * plus `extra` children numbered from first_child[e] (UINT32_MAX: not split). */
sinew_result sn_soffd_edits_map(const sinew_soffd *h, sinew_soffd *next, const uint32_t *first_child, size_t extra);

/* Replaces h by next, a copy of h whose bind data or falloff differ (rebuild.c):
 * rebuilds what R determines when rebuild_reference (next's derived fields
 * must then be empty), registers h's points again under next and replays
 * next's edits; on success frees what h held that next does not share and
 * installs next; on failure frees what next holds that h does not, h unchanged. */
sinew_result sn_soffd_rebuild(sinew_soffd *h, sinew_soffd *next, const sn_env *call, bool rebuild_reference);
/* Frees every block a holds that b does not share (release.c). */
void sn_soffd_free_unshared(const sn_env *env, sinew_soffd *a, const sinew_soffd *b);

#endif /* SINEW_SOFFD_INTERNAL_H */
