/*
 * sinew: skinning weight tools: automatic binding, rogue-vertex removal, smoothing, pruning.
 *
 * Every tool reads and writes per-vertex influences in exactly the layout
 * sinew_skin_create takes: vertex-major arrays with `influence_count` slots per
 * vertex, joint `joints[v * influence_count + s]` with weight `weights[v * influence_count + s]`.
 * Slots a tool writes are sorted by decreasing weight; unused slots hold
 * weight 0 and joint 0. Every weight row a tool writes sums to 1.
 *
 * Input influence rows: weights finite and >= 0, at least one weight > 0 per
 * vertex (rows need not sum to 1: the tools renormalise). A joint listed twice
 * in one row counts once with the summed weight. Zero-weight slots are ignored
 * whatever joint they name.
 *
 * Output arrays may be the input arrays (in-place use); on failure they are
 * left untouched. None of these calls touch shared state: calls on different
 * arrays may run on different threads at once.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_SKIN_TOOLS_H
#define SINEW_SKIN_TOOLS_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Containment binding ----------------------------------------------------- */

/* A bone's volume: the capsule of all points within `radius` of the segment
 * head-tail (head == tail gives a sphere). Several capsules may name the same
 * joint (a pelvis joint with one segment per leg); the joint then takes the
 * best score of its capsules. */
typedef struct sinew_skin_capsule {
    float head[3];    /* segment start, mesh (bind-pose) space */
    float tail[3];    /* segment end, mesh space */
    float radius;     /* mesh units, > 0; 0 = derived from the mesh (see radius_quantile) */
    uint32_t joint;   /* joint index written into the influences */
} sinew_skin_capsule;

/* What to do with a vertex that no capsule reaches (score 0 for every capsule). */
typedef enum sinew_skin_unbound {
    /* Fail with SINEW_ERROR_OUTSIDE_DOMAIN, list the vertices in the report. */
    SINEW_SKIN_UNBOUND_REPORT = 0,
    /* Bind the vertex fully to the capsule it is nearest to in radii
     * (distance / radius); the report still counts and lists such vertices. */
    SINEW_SKIN_UNBOUND_NEAREST = 1
} sinew_skin_unbound;

/* How a vertex scores the capsules. */
typedef enum sinew_skin_capsule_scoring {
    /* Scores by distance relative to each radius, blended across the falloff
     * band, the k best kept (containment binding). Default. */
    SINEW_SKIN_CAPSULE_SCORE_BLEND = 0,
    /* Rigid: every vertex wholly (weight 1, one slot) to the capsule whose
     * segment is nearest in Euclidean distance, radii, falloff and the
     * unbound policy unused; ties go to the capsule listed first. The
     * driver binding of Singh & Kokkevis (each driver point moves with its
     * closest limb). */
    SINEW_SKIN_CAPSULE_SCORE_NEAREST_SEGMENT = 1
} sinew_skin_capsule_scoring;

typedef struct sinew_skin_capsule_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* Slots per vertex of the output, k >= 1. 0 = 4. */
    size_t influence_count;
    /* Width of the blend band outside each capsule, as a fraction of its radius:
     * a capsule's score is 1 inside it and falls smoothly (C1, smoothstep in the
     * distance) to 0 at distance radius * (1 + falloff) from the segment.
     * 0 = 0.5. Must be finite and > 0 otherwise. */
    float falloff;
    /* For capsules with radius 0: the radius is this quantile of the distances
     * to the segment of the vertices nearest to that segment (the vertices it
     * would own under nearest-bone binding). In (0, 1]; 0 = 0.9. A derived
     * capsule that owns no vertex gets radius 0 and scores only points on its
     * segment. */
    float radius_quantile;
    sinew_skin_unbound unbound;   /* 0 = SINEW_SKIN_UNBOUND_REPORT */
    sinew_skin_capsule_scoring scoring;   /* 0 = SINEW_SKIN_CAPSULE_SCORE_BLEND */
} sinew_skin_capsule_desc;

/* The defaults sinew_skin_capsule_weights uses (docs/api.md, Defaults):
 * *resolved = desc (NULL = all zero) with every zero field that has a default
 * replaced by it: influence_count (4), falloff (0.5), radius_quantile (0.9 as
 * a float); unbound and scoring 0 are SINEW_SKIN_UNBOUND_REPORT and
 * SINEW_SKIN_CAPSULE_SCORE_BLEND themselves. Binding with *resolved does the
 * same as with desc. Other fields are copied unchecked. resolved must be
 * SINEW_INIT'ed and is written up to its struct_size. INVALID_ARGUMENT (NULL
 * resolved), UNSUPPORTED (unknown nonzero desc bytes). Thread-safe. */
SINEW_API sinew_result sinew_skin_capsule_desc_defaults(const sinew_skin_capsule_desc *desc, sinew_skin_capsule_desc *resolved);

/* Vertices a binding could not place. The caller may give a list to fill. */
typedef struct sinew_skin_capsule_report {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    uint32_t *unbound;          /* optional (NULL = counts only): first vertices listed, ascending */
    size_t unbound_capacity;    /* entries available in `unbound` */
    size_t unbound_count;       /* out: how many vertices no capsule reached (may exceed capacity) */
} sinew_skin_capsule_report;

/* Containment binding (after Weber; docs/skin-binding.md):
 * each vertex scores every capsule by its distance to the bone segment relative
 * to the capsule radius; the k best-scoring joints are kept and their scores
 * normalised into weights. A vertex on a bone's axis with no other capsule
 * near gets weight 1 for that bone; mirror-symmetric capsules give mirror-
 * symmetric weights.
 *
 * Returns SINEW_OK; SINEW_ERROR_OUTSIDE_DOMAIN when some vertex lies outside
 * every capsule's band and desc->unbound is SINEW_SKIN_UNBOUND_REPORT (the message
 * names the first such vertex and the count; report lists them; joints and
 * weights are untouched); SINEW_ERROR_INVALID_ARGUMENT (NULL arrays, no
 * capsules or vertices, bad option, negative radius), SINEW_ERROR_NON_FINITE
 * (a coordinate or radius), SINEW_ERROR_SIZE_OVERFLOW, SINEW_ERROR_OUT_OF_MEMORY,
 * SINEW_ERROR_CANCELLED (progress stage "skin: capsule bind").
 * Cost: O(vertices * capsules) time, O(vertices * k + capsules) memory
 * (plus O(vertices) when a radius is derived).
 *
 * ctx: allocator and progress; NULL = defaults.
 * positions: the bind-pose mesh vertices (only positions are needed).
 * capsules, capsule_count: at least one capsule, at most 2^32 - 1 (more, or a
 *   count whose array would pass SIZE_MAX bytes, is SINEW_ERROR_SIZE_OVERFLOW).
 * desc: options; NULL = all defaults.
 * joints, weights: outputs of positions->count * k entries each.
 * report: optional (NULL = none); its count and list are filled on OK and on
 *   SINEW_ERROR_OUTSIDE_DOMAIN, untouched on any other failure.
 * Thread-safety: reentrant; no shared state. */
SINEW_API sinew_result sinew_skin_capsule_weights(sinew_context *ctx, const sinew_points *positions,
                                                  const sinew_skin_capsule *capsules, size_t capsule_count,
                                                  const sinew_skin_capsule_desc *desc, uint32_t *joints,
                                                  float *weights, sinew_skin_capsule_report *report);

/* ---- Rogue-vertex removal ------------------------------------------------------ */

typedef struct sinew_skin_rogue_report {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    size_t influences_removed;  /* out: (vertex, joint) influences cut as rogue */
    size_t vertices_reattached; /* out: vertices left with no influence and given a neighbour's */
} sinew_skin_rogue_report;

/* Rogue-vertex removal (Weber): for every joint, the vertices it influences
 * split into connected regions of the mesh graph; the region with the largest
 * total weight is the joint's main region and the joint's influence on every
 * other vertex is removed. Rows are renormalised. A vertex that loses all its
 * influences takes the influences of the nearest vertex that kept some:
 * nearest along mesh edges, or, when its connected part of the mesh has none
 * (a separate island), nearest in space.
 *
 * Returns SINEW_OK; SINEW_ERROR_INVALID_ARGUMENT (NULL arrays, influence_count 0,
 * no vertices), SINEW_ERROR_NON_FINITE (a position or weight),
 * SINEW_ERROR_INDEX_OUT_OF_RANGE (a triangle index), SINEW_ERROR_INVALID_WEIGHTS
 * (a negative weight, a vertex with no positive weight; message names the
 * vertex and slot), SINEW_ERROR_SIZE_OVERFLOW, SINEW_ERROR_OUT_OF_MEMORY,
 * SINEW_ERROR_CANCELLED (stage "skin: rogue removal").
 * Cost: O(triangles * k^2) for the regions plus, only for reattached island
 * vertices, O(islands' vertices * vertices); memory O(vertices * k + triangles).
 *
 * ctx: allocator and progress; NULL = defaults.
 * mesh: bind-pose triangle mesh; its positions->count is the vertex count.
 * influence_count: slots per vertex (k >= 1) of joints and weights.
 * joints, weights: influences, read and rewritten in place (vertex count * k).
 * report: optional (NULL = none), filled on success only.
 * Thread-safety: reentrant; no shared state. */
SINEW_API sinew_result sinew_skin_remove_rogues(sinew_context *ctx, const sinew_trimesh *mesh, size_t influence_count,
                                                uint32_t *joints, float *weights, sinew_skin_rogue_report *report);

/* ---- Weight smoothing ---------------------------------------------------------- */

typedef struct sinew_skin_smooth_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    uint32_t iterations;   /* Jacobi sweeps; 0 = 3 */
    /* Step of each sweep: w <- (1 - strength) w + strength * mean of the
     * neighbours' w. In (0, 1]; 0 = 0.5. */
    float strength;
} sinew_skin_smooth_desc;

/* The defaults sinew_skin_smooth_weights uses (docs/api.md, Defaults):
 * *resolved = desc (NULL = all zero) with every zero field that has a default
 * replaced by it: iterations (3), strength (0.5). Smoothing with *resolved
 * does the same as with desc. Other fields are copied unchecked. resolved
 * must be SINEW_INIT'ed and is written up to its struct_size.
 * INVALID_ARGUMENT (NULL resolved), UNSUPPORTED (unknown nonzero desc bytes).
 * Thread-safe. */
SINEW_API sinew_result sinew_skin_smooth_desc_defaults(const sinew_skin_smooth_desc *desc, sinew_skin_smooth_desc *resolved);

/* Weight smoothing over the mesh graph: every sweep moves each vertex's
 * weights toward the mean of its edge neighbours' (uniform graph Laplacian),
 * all vertices from the previous sweep's values, so the result does not
 * depend on vertex order. Each sweep keeps the k largest joints of the
 * blended row and renormalises, so rows keep summing to 1 and never need more
 * slots than given. Vertices without neighbours keep their weights.
 *
 * Returns SINEW_OK; SINEW_ERROR_INVALID_ARGUMENT (NULL arrays, influence_count 0,
 * no vertices, bad option), SINEW_ERROR_NON_FINITE, SINEW_ERROR_INDEX_OUT_OF_RANGE,
 * SINEW_ERROR_INVALID_WEIGHTS, SINEW_ERROR_SIZE_OVERFLOW,
 * SINEW_ERROR_OUT_OF_MEMORY, SINEW_ERROR_CANCELLED (stage "skin: smooth weights").
 * Cost: O(iterations * edges * k * log(valence * k)) time, O(vertices * k +
 * edges) memory.
 *
 * ctx: allocator and progress; NULL = defaults.
 * mesh: triangle mesh whose edges define the neighbours (positions are
 *   validated but not used: the smoothing is uniform).
 * influence_count: slots per vertex (k >= 1).
 * joints, weights: influences, read and rewritten in place.
 * desc: options; NULL = defaults.
 * Thread-safety: reentrant; no shared state. */
SINEW_API sinew_result sinew_skin_smooth_weights(sinew_context *ctx, const sinew_trimesh *mesh, size_t influence_count,
                                                 uint32_t *joints, float *weights,
                                                 const sinew_skin_smooth_desc *desc);

/* ---- Pruning ------------------------------------------------------------------- */

/* Prunes an N-slot influence layout to k slots: each vertex keeps its k
 * largest weights (ties: lower joint index first), drops the rest, then drops
 * kept weights below min_weight times the row's largest and renormalises to 1.
 *
 * Returns SINEW_OK; SINEW_ERROR_INVALID_ARGUMENT (NULL arrays, zero counts,
 * min_weight not in [0, 1)), SINEW_ERROR_NON_FINITE, SINEW_ERROR_INVALID_WEIGHTS
 * (negative weight or a vertex with no positive weight; message names it),
 * SINEW_ERROR_SIZE_OVERFLOW, SINEW_ERROR_OUT_OF_MEMORY.
 * Cost: O(vertices * N * log N) time, O(vertices * k) scratch memory.
 *
 * ctx: allocator; NULL = defaults.
 * vertex_count: vertices (>= 1).
 * in_influence_count, in_joints, in_weights: the N-slot input (N >= 1).
 * out_influence_count: k >= 1 (k > N is allowed: extra slots get weight 0, joint 0).
 * min_weight: relative threshold in [0, 1); 0 keeps every positive weight.
 * out_joints, out_weights: vertex_count * k entries; may be the input arrays.
 * Thread-safety: reentrant; no shared state. */
SINEW_API sinew_result sinew_skin_prune_weights(sinew_context *ctx, size_t vertex_count, size_t in_influence_count,
                                                const uint32_t *in_joints, const float *in_weights,
                                                size_t out_influence_count, float min_weight,
                                                uint32_t *out_joints, float *out_weights);

/* Parent index of a root: a joint of the bone-link tools' skeletons, or a
 * line bone that continues no other bone (no joint plane at its head). */
#define SINEW_SKIN_NO_PARENT UINT32_MAX

/* ---- Point-to-line binding ------------------------------------------------------ */

/* A bone of the line skeleton: segment head-tail, the joint it writes, and the
 * bone it continues from. A record in an array: its layout never changes. */
typedef struct sinew_skin_line_bone {
    float head[3];     /* segment start, mesh (bind-pose) space */
    float tail[3];     /* segment end; must differ from head */
    uint32_t joint;    /* joint index written into the influences */
    /* Index (in the bone array) of the parent bone, or SINEW_SKIN_NO_PARENT.
     * The joint plane between a bone and its parent passes through the bone's
     * head. */
    uint32_t parent;
} sinew_skin_line_bone;


typedef struct sinew_skin_line_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* Slots per vertex of the output, k >= 1. 0 = 4. */
    size_t influence_count;
    /* Half-width of the blend band on each side of a joint plane, as a fraction
     * of the shorter of the two bones meeting there. In (0, 1]; 0 = 0.2. */
    float blend;
    /* Mesh units, >= 0: a vertex farther than this from its bone's segment is
     * unbound. 0 = no limit (the subspaces of a skeleton cover all of space,
     * so then every vertex is bound). */
    float max_distance;
    sinew_skin_unbound unbound;   /* 0 = SINEW_SKIN_UNBOUND_REPORT */
} sinew_skin_line_desc;

/* The defaults sinew_skin_point_to_line_weights uses (docs/api.md, Defaults):
 * *resolved = desc (NULL = all zero) with every zero field that has a default
 * replaced by it: influence_count (4), blend (0.2 as a float); max_distance 0
 * is "no limit", a mode, and stays 0; unbound 0 is SINEW_SKIN_UNBOUND_REPORT
 * itself. Binding with *resolved does the same as with desc. Other fields are
 * copied unchecked. resolved must be SINEW_INIT'ed and is written up to its
 * struct_size. INVALID_ARGUMENT (NULL resolved), UNSUPPORTED (unknown nonzero
 * desc bytes). Thread-safe. */
SINEW_API sinew_result sinew_skin_line_desc_defaults(const sinew_skin_line_desc *desc, sinew_skin_line_desc *resolved);

/* Vertices point-to-line binding could not place (beyond max_distance). */
typedef struct sinew_skin_line_report {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    uint32_t *unbound;          /* optional (NULL = counts only): first vertices listed, ascending */
    size_t unbound_capacity;    /* entries available in `unbound` */
    size_t unbound_count;       /* out: vertices beyond max_distance of their bone (may exceed capacity) */
} sinew_skin_line_report;

/* Point-to-line binding (after Sun et al.; docs/skin-binding.md):
 * every joint between a bone and its parent gets the plane through the
 * bone's head that bisects the two bone directions (normal = the sum of their
 * unit directions). A bone's subspace is the side of its head plane away from
 * its parent, intersected with the parent side of each child's plane. A vertex
 * belongs to the nearest bone (distance to the segment) whose subspace holds
 * it. Within `blend` of a plane, weight passes smoothly to the bone across it:
 * at signed distance h (>= 0 on the owner's side) and band half-width w the
 * bone across gets a = (1 - s(h / w)) / 2, s(t) = (3t - t^3) / 2 for t < 1
 * (else a = 0), and the owner the product of (1 - a) over its planes; the
 * shares are normalised, the k largest joints kept. On a straight limb this is
 * the midplane split: the weights depend only on the position along the limb,
 * 1/2 each on the joint plane.
 *
 * Every point of space lies in some subspace (each bone's subtree covers the
 * child side of its head plane), so only desc->max_distance leaves vertices
 * unbound.
 *
 * Returns SINEW_OK; SINEW_ERROR_OUTSIDE_DOMAIN when some vertex lies farther
 * than max_distance from its bone and desc->unbound is
 * SINEW_SKIN_UNBOUND_REPORT (the message names the first; report lists them;
 * joints and weights untouched; with SINEW_SKIN_UNBOUND_NEAREST such vertices
 * go wholly to the nearest bone and are still counted); SINEW_ERROR_INVALID_ARGUMENT (NULL arrays, no bones or
 * vertices, bad option, a bone its own parent or bones whose parents form a
 * cycle), SINEW_ERROR_NON_FINITE (a
 * coordinate or option), SINEW_ERROR_INDEX_OUT_OF_RANGE (a parent >=
 * bone_count), SINEW_ERROR_DEGENERATE (a bone of zero length, or one folded
 * exactly back onto its parent so that no bisecting plane exists),
 * SINEW_ERROR_SIZE_OVERFLOW, SINEW_ERROR_OUT_OF_MEMORY, SINEW_ERROR_CANCELLED
 * (progress stage "skin: point-to-line bind").
 * Cost: O(vertices * bones) time, O(vertices * k + bones) memory.
 *
 * ctx: allocator and progress; NULL = defaults.
 * positions: the bind-pose mesh vertices.
 * bones, bone_count: at least one bone, at most 2^32 - 2.
 * desc: options; NULL = all defaults.
 * joints, weights: outputs of positions->count * k entries each.
 * report: optional (NULL = none); filled on OK and on SINEW_ERROR_OUTSIDE_DOMAIN.
 * Thread-safety: reentrant; no shared state. */
SINEW_API sinew_result sinew_skin_point_to_line_weights(sinew_context *ctx, const sinew_points *positions,
                                                        const sinew_skin_line_bone *bones, size_t bone_count,
                                                        const sinew_skin_line_desc *desc, uint32_t *joints,
                                                        float *weights, sinew_skin_line_report *report);

/* ---- Weights from example poses -------------------------------------------------- */

typedef struct sinew_skin_example_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* Slots per vertex of the output, k >= 1. 0 = 4. */
    size_t influence_count;
    /* Candidate joints per vertex: candidate_count slots per vertex, vertex-major
     * in candidate_joints (duplicates count once). NULL (count 0) = every joint
     * is a candidate for every vertex. */
    size_t candidate_count;
    const uint32_t *candidate_joints;
    /* When the unconstrained-count optimum uses more than k joints: if the
     * number of k-subsets of its joints is at most this, every subset is solved
     * and the best kept (the exact k-sparse optimum over those joints);
     * otherwise the k largest weights choose the support and the QP is solved
     * again on it. 0 = 70 (8 choose 4). */
    uint32_t max_subsets;
} sinew_skin_example_desc;

/* The defaults sinew_skin_example_weights uses (docs/api.md, Defaults):
 * *resolved = desc (NULL = all zero) with every zero field that has a default
 * replaced by it: influence_count (4), max_subsets (70); candidate_count 0
 * (every joint a candidate) is a mode and stays 0. Solving with *resolved
 * does the same as with desc. Other fields are copied unchecked. resolved
 * must be SINEW_INIT'ed and is written up to its struct_size.
 * INVALID_ARGUMENT (NULL resolved), UNSUPPORTED (unknown nonzero desc bytes).
 * Thread-safe. */
SINEW_API sinew_result sinew_skin_example_desc_defaults(const sinew_skin_example_desc *desc, sinew_skin_example_desc *resolved);

typedef struct sinew_skin_example_report {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* out: the certificate: the largest KKT violation of any vertex's final
     * QP (stationarity on the support, dual feasibility off it), relative to
     * the QP's scale; every vertex is certified to 1e-9. */
    double kkt_violation;
    double max_residual;          /* out: largest per-vertex residual (world units) */
    size_t vertices_limited;      /* out: vertices whose optimum needed more than k joints */
    size_t vertices_enumerated;   /* out: of those, solved by enumerating the k-subsets */
} sinew_skin_example_report;

/* Weights from example poses (Mohr, Tokheim and Gleicher): for each vertex,
 * the weights w (w >= 0, sum 1, at most k nonzero) minimising
 *   sum over examples e of | sum_j w_j M[e][j] p - q[e] |^2,
 * p its rest position, q[e] its position in example e, M[e][j] joint j's
 * skinning matrix in example e (as sinew_skin_palette forms it: W_j B_j^-1).
 * Each vertex's QP is solved by a primal active-set method on the simplex in
 * double, then certified: the KKT conditions are checked to 1e-9 of the
 * problem's scale. When the optimum uses more than k joints the support is
 * chosen as desc->max_subsets describes and solved again. Weights that
 * generated the examples are recovered when the examples determine them.
 *
 * Returns SINEW_OK; SINEW_ERROR_INVALID_ARGUMENT (NULL arrays, no vertices,
 * no joints, zero examples, bad option, a non-affine matrix),
 * SINEW_ERROR_NON_FINITE (a position, example position or matrix entry),
 * SINEW_ERROR_MISMATCH (an example whose point count differs from positions),
 * SINEW_ERROR_INDEX_OUT_OF_RANGE (a candidate joint >= joint_count),
 * SINEW_ERROR_NOT_CONVERGED (a vertex's QP missed the certificate: the
 * outputs hold the best weights reached; the message names the vertex),
 * SINEW_ERROR_SIZE_OVERFLOW, SINEW_ERROR_OUT_OF_MEMORY, SINEW_ERROR_CANCELLED
 * (stage "skin: example weights").
 * Cost: per vertex O(E * n^2 + n^4) for n candidate joints (the active set
 * adds one joint per step, each step a Cholesky factorisation), times the
 * subsets enumerated; memory O(n^2 + vertices * k).
 *
 * ctx: allocator and progress; NULL = defaults.
 * positions: rest (bind-pose) positions of the vertices to solve.
 * examples, example_count: example_count >= 1 views, each of positions->count
 *   points: the vertices' places in that example.
 * matrices: example_count * joint_count column-major affine 4x4 skinning
 *   matrices, example e's joint j at matrices + 16 * (e * joint_count + j).
 * joint_count: joints per example (>= 1).
 * desc: options; NULL = defaults.
 * joints, weights: outputs of positions->count * k entries each.
 * residuals: optional (NULL = none), positions->count floats: vertex v's
 *   residual sqrt(sum_e |sum_s weights[v*k+s] M[e][joints[v*k+s]] p - q[e]|^2)
 *   evaluated (in double) with the float weights written.
 * report: optional (NULL = none), filled on OK and NOT_CONVERGED.
 * Thread-safety: reentrant; no shared state. */
SINEW_API sinew_result sinew_skin_example_weights(sinew_context *ctx, const sinew_points *positions,
                                                  const sinew_points *examples, size_t example_count,
                                                  const float *matrices, size_t joint_count,
                                                  const sinew_skin_example_desc *desc, uint32_t *joints,
                                                  float *weights, float *residuals,
                                                  sinew_skin_example_report *report);

/* ---- Bone links (Weber) ---------------------------------------------------------
 * A joint with a large range of motion (an elbow near 180 degrees) collapses
 * under linear blending. Bone links replace it by a chain of n link joints at
 * the joint's rest place, each taking 1/n of its rotation, so that no link
 * turns more than max_link_angle; the weights shared by the joint and its
 * parent are spread along the chain. The skeleton is described as
 * sinew_skin_create describes joints: by index, with inverse bind matrices
 * (column-major affine 4x4, skin space -> joint space), plus a parent index
 * per joint. */

/* Most links one joint may become (more would only add joints: 64 links of a
 * full turn are under 6 degrees each). */
#define SINEW_SKIN_MAX_LINKS 64u

typedef struct sinew_skin_links_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    /* Links the joint becomes, 1 .. SINEW_SKIN_MAX_LINKS (1 changes nothing).
     * 0 = derived: ceil(range_of_motion / max_link_angle). */
    size_t link_count;
    /* Largest rotation one link may take, radians, in (0, pi]. 0 = 60 degrees. */
    float max_link_angle;
    /* The joint's range of motion (the difference between its limits), radians,
     * in (0, 2 pi]; read only when link_count is 0, and then required. */
    float range_of_motion;
} sinew_skin_links_desc;

/* The defaults sinew_skin_bone_links uses (docs/api.md, Defaults): *resolved
 * = desc (NULL = all zero) with every zero field that has a default replaced
 * by it: max_link_angle (60 degrees: pi / 3 as a float), then link_count,
 * derived from range_of_motion when that is in (0, 2 pi] and gives at most
 * SINEW_SKIN_MAX_LINKS links (otherwise it stays 0, and the call refuses the
 * desc as it would have). Splitting with *resolved does the same as with
 * desc. Other fields are copied unchecked. resolved must be SINEW_INIT'ed and
 * is written up to its struct_size. INVALID_ARGUMENT (NULL resolved),
 * UNSUPPORTED (unknown nonzero desc bytes). Thread-safe. */
SINEW_API sinew_result sinew_skin_links_desc_defaults(const sinew_skin_links_desc *desc, sinew_skin_links_desc *resolved);

typedef struct sinew_skin_links_report {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    size_t link_count;           /* out: links the joint became (joints added + 1) */
    /* out: the bone's direction in the joint's rest frame (unit): towards its
     * first child (lowest index) at a distinct place, else away from its
     * parent; (0, 0, 0) when neither exists. The twist axis that
     * sinew_skin_link_rotations takes. */
    float bone_axis[3];
    size_t vertices_redistributed; /* out: vertices whose weights moved onto links */
} sinew_skin_links_report;

/* Splits joint `joint` into n bone links (after Weber;
 * docs/skin-binding.md). With P the joint's parent, the chain is P -> link 1 -> ... ->
 * link n-1 -> joint: links 1 .. n-1 are new joints appended after the old
 * ones (link k is joint joint_count + k - 1), the split joint keeps its index
 * and becomes link n, so existing joint indices, weights and animation stay
 * valid; parents may now come after their children. Every link's rest
 * transform (inverse bind matrix) is the joint's. Each vertex that weights
 * both P (weight a) and the joint (weight b) has that pair replaced by its
 * place along the chain: with s = n b / (a + b), k = floor(s), the chain
 * members k and k+1 (member 0 = P, member n = the joint) get (a + b)(k + 1 - s)
 * and (a + b)(s - k). So a vertex's weight moves monotonically along the
 * links as its share of the joint grows, rows keep their sums and slot count
 * (a row never needs more slots), and every other weight stays. Rows are
 * written as every skin tool writes them (sorted, summing to 1).
 * At pose time, drive the links with sinew_skin_link_rotations.
 *
 * Joint outputs follow the capacity rule of docs/api.md: out_parents and
 * out_inverse_bind both NULL ask for the new joint count (SINEW_OK,
 * *out_joint_count set, nothing else written; the weight outputs may then be
 * NULL); joint_capacity below it is SINEW_ERROR_BUFFER_TOO_SMALL with
 * *out_joint_count set and nothing else written; otherwise every output is
 * filled and *out_joint_count = joint_count + n - 1.
 *
 * Returns SINEW_OK; SINEW_ERROR_INVALID_ARGUMENT (NULL arrays, counts of 0,
 * one joint output NULL without the other, a misaligned pointer, a joint that
 * is a root or its own parent, parents that form a cycle (named), a bad
 * option: link_count above SINEW_SKIN_MAX_LINKS, neither link_count nor
 * range_of_motion, an angle out of range, a non-affine inverse bind matrix),
 * SINEW_ERROR_INDEX_OUT_OF_RANGE (joint, a parent, or a weighted joint index
 * >= joint_count), SINEW_ERROR_NON_FINITE (an inverse bind element, weight or
 * option), SINEW_ERROR_INVALID_WEIGHTS (a negative weight, a vertex with no
 * positive weight), SINEW_ERROR_DEGENERATE (a singular inverse bind matrix of
 * the joint, its parent or a child), SINEW_ERROR_UNSUPPORTED (more joints than
 * sinew_skin_create takes, 65536), SINEW_ERROR_BUFFER_TOO_SMALL,
 * SINEW_ERROR_SIZE_OVERFLOW, SINEW_ERROR_OUT_OF_MEMORY. Messages name the
 * joint, vertex and slot. Every output is untouched on failure.
 * Cost: O(joints + vertices * k log k) time, O(joints + vertices * k) memory.
 *
 * ctx: allocator; NULL = defaults.
 * joint_count, parents, inverse_bind: the skeleton: joint_count parent
 *   indices (SINEW_SKIN_NO_PARENT for roots) and joint_count * 16 floats.
 * joint: the joint to split; it must have a parent.
 * desc: options; NULL = defaults (which need range_of_motion: pass a desc).
 * vertex_count, influence_count, in_joints, in_weights: the bound weights in
 *   sinew_skin_create's layout (packed uint32_t joints, float weights).
 * out_parents, out_inverse_bind: joint_capacity entries and joint_capacity * 16 floats.
 * out_joint_count: the new joint count; written on success and with
 *   SINEW_ERROR_BUFFER_TOO_SMALL only.
 * out_joints, out_weights: vertex_count * influence_count entries each, the
 *   same layout; may be the input arrays.
 * report: optional (NULL = none), filled on success (also by a count query).
 * Thread-safety: reentrant; no shared state. */
SINEW_API sinew_result sinew_skin_bone_links(sinew_context *ctx, size_t joint_count, const uint32_t *parents,
                                             const float *inverse_bind, uint32_t joint,
                                             const sinew_skin_links_desc *desc, size_t vertex_count,
                                             size_t influence_count, const uint32_t *in_joints,
                                             const float *in_weights, uint32_t *out_parents, float *out_inverse_bind,
                                             size_t joint_capacity, size_t *out_joint_count, uint32_t *out_joints,
                                             float *out_weights, sinew_skin_links_report *report);

/* Pose time: spreads a split joint's rotation over its n links, swing and
 * twist separately. `rotation` (4 floats: quaternion x, y, z, w; any nonzero length,
 * taken the short way, w >= 0) is the joint's rotation relative to its rest
 * orientation, in its rest frame: with r0 the joint's rest local rotation and
 * r its posed one, rotation = r0^-1 r. It is split about `bone_axis` (the
 * report's, any nonzero length) into swing S (about an axis perpendicular to
 * it) and twist T (about it), rotation = S T (bone_axis: 3 floats). With s = S^(1/n), t = T^(1/n),
 * link k (1-based) gets q_k = t^-(k-1) s t^k: its swing is 1/n of the swing's
 * angle and its twist exactly 1/n of the twist's, about the bone axis of its
 * own frame, and q_1 q_2 ... q_n = rotation. Drive the chain with local
 * rotations: link 1 = r0 q_1 (with the joint's posed translation), links 2 ..
 * n = q_k (no translation); the joint (link n) then has its unsplit world
 * transform, so its children are unchanged.
 *
 * Returns SINEW_OK; SINEW_ERROR_INVALID_ARGUMENT (NULL or misaligned
 * pointer, link_count 0 or above SINEW_SKIN_MAX_LINKS, a zero quaternion or
 * axis), SINEW_ERROR_NON_FINITE (a component, named). link_rotations is
 * untouched on failure.
 * link_rotations: link_count quaternions (x, y, z, w), packed, unit length.
 * Thread-safety: pose time: never allocates, reentrant. */
SINEW_API sinew_result sinew_skin_link_rotations(const float *rotation, const float *bone_axis, size_t link_count,
                                                 float *link_rotations);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_SKIN_TOOLS_H */
