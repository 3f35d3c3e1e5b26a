/*
 * Internal state of a sinew_bbw_pose handle and the functions its files share.
 *
 * Notation (docs/bbw-pose.md): d = 2 or 3, m handles, handle j's transform
 * x' = L_j x + t_j. Coordinates are normalised (u = (x - centre) / scale) so
 * the reduced matrices are well scaled; in those coordinates handle j has
 * D1 = d + 1 unknowns per output coordinate c: row c of L_j, then the
 * translation. The unknowns of coordinate c are one vector of nv = D1 * m
 * entries, variable j * D1 + b; every coordinate shares the same matrices.
 *
 * Energy per unit volume, with F_e the deformation gradient of element e and
 * R_k the rotation of its cluster k:
 *   E = sum_c x_c' A x_c - 2 sum_k tr(R_k' S_k) + d,   S_k[c][a] = x_c' P_k[:, a]
 * A (nv x nv) and P_k (nv x d, nonzero only in the blocks of the handles
 * weighting cluster k) are divided by the total volume.
 */
#ifndef SN_BBW_POSE_INTERNAL_H
#define SN_BBW_POSE_INTERNAL_H

#include "core/internal.h"
#include "sinew/bbw_pose.h"

struct sinew_bbw_pose {
    sn_env env;
    size_t held_bytes;          /* every block the handle owns (env.held points here), the handle included */
    uint32_t dim;               /* d: 2 or 3 */
    uint32_t per;               /* variables per handle and coordinate: d + 1 */
    size_t handle_count;        /* m */
    size_t var_count;           /* nv = per * m */
    double centre[3];           /* normalisation: u = (x - centre) / scale */
    double scale;
    double *A;                  /* nv * nv, row-major, symmetric */
    size_t cluster_count;
    size_t *block_start;        /* cluster_count + 1 offsets into the blocks */
    uint32_t *block_handle;     /* handle of each block */
    double *block_P;            /* per * dim per block: P_k rows of the handle (row b, column a at [b * dim + a]) */
    double *cluster_mass;       /* per cluster: its share of the volume (S_k of the rest pose is mass * I) */
    double *handle_centre;      /* dim per handle: weighted centre (normalised), for the similarity projection */
    sinew_bbw_pose_transform transform;
    sinew_bbw_pose_info info;
};

/* ---- bind time (pose_bind.c, pose_clusters.c) ---- */

/* Per-vertex weights as sparse rows, read from either layout of the desc. */
typedef struct sn_pose_weights {
    size_t *start;              /* vertex_count + 1 */
    uint32_t *handle;
    double *value;
} sn_pose_weights;

/* The elements of the rest domain in normalised coordinates. */
typedef struct sn_pose_domain {
    size_t vertex_count, element_count;
    double *points;             /* dim per vertex, normalised */
    const uint32_t *elements;   /* per indices per element */
    uint8_t *skipped;           /* per element: 1 = left out (touches an all-zero vertex) */
    double *volume;             /* per element (normalised units) */
    double *gradient;           /* per * dim per element: gradient of each vertex's hat function */
    /* Mean weights of each element's vertices, sparse: the handles that
     * weight the element (their union) and the mean weight of each. */
    size_t *feature_start;      /* element_count + 1 */
    uint32_t *feature_handle;
    double *feature_value;
} sn_pose_domain;

/* Fills dom->volume, dom->gradient (and checks degeneracy, naming the element). */
sinew_result sn_pose_element_geometry(const sinew_bbw_pose *p, sn_pose_domain *dom);
/* Fills the elements' sparse features from the weights (skipped elements: none). */
sinew_result sn_pose_element_features(const sinew_bbw_pose *p, sn_pose_domain *dom, const sn_pose_weights *w);
/* Cluster of each element (skipped elements get SIZE_MAX) by k-means on the
 * elements' mean weights; sets p->cluster_count to the clusters kept. */
sinew_result sn_pose_cluster(sinew_bbw_pose *p, const sn_pose_domain *dom, size_t wanted, size_t *cluster_of);
/* Builds A, the blocks of P and the handles' centres. */
sinew_result sn_pose_reduce(sinew_bbw_pose *p, const sn_pose_domain *dom, const sn_pose_weights *w,
                            const size_t *cluster_of);

/* ---- small dense algebra (pose_dense.c) ---- */

/* In-place Cholesky of the n x n row-major SPD matrix a (lower triangle
 * used and overwritten). Returns the index of the first pivot not above
 * tolerance * (largest diagonal entry), or SIZE_MAX on success. */
size_t sn_pose_cholesky(double *a, size_t n, double tolerance);
/* Solves (L L') x = b in place with a factor from sn_pose_cholesky. */
void sn_pose_cholesky_solve(const double *l, size_t n, double *b);
/* b = L^-1 b in place, for a b whose entries before `start` are zero. */
void sn_pose_forward(const double *l, size_t n, double *b, size_t start);
/* b = L'^-1 b in place. */
void sn_pose_backward(const double *l, size_t n, double *b);
/* The rotation R (dim x dim, row-major) maximising tr(R' S), refined from the
 * rotation already in r (warm start); at most max_steps steps in 3D, closed
 * form in 2D. Never returns a worse rotation than the one given. */
void sn_pose_fit_rotation(uint32_t dim, const double *s, double *r, int max_steps);

/* ---- pose time ---- */

enum {
    SN_POSE_WARM_STEPS = 8,   /* rotation refinement steps per local step, warm-started */
    SN_POSE_COLD_STEPS = 60   /* from the identity: the energy query, the first local step */
};

/* Everything a solve works with, carved from the caller's scratch (pose_solve.c). */
typedef struct sn_pose_state {
    const sinew_bbw_pose *p;
    const sinew_bbw_pose_solve_desc *desc;
    double *x;             /* dim columns of nv unknowns (normalised), every handle */
    double *h;             /* nf x nf: H, then its Cholesky factor L */
    double *w;             /* nc columns of nf: W = L^-1 C' */
    double *s;             /* nc x nc: S = W'W, then its factor */
    double *q;             /* dim per position: the normalised target */
    double *base;          /* dim columns of nf: the constant part of the right-hand side */
    double *g, *lam;       /* nf and nc of work space */
    double *rot;           /* dim x dim per cluster */
    uint32_t *free_of;     /* per handle: index among the free handles, or UINT32_MAX */
    uint32_t *free_list;   /* the free handles in order */
    size_t nf;             /* free unknowns per coordinate: per * free handles */
    size_t nc;             /* positions */
} sn_pose_state;

/* Local step (pose_local.c): every cluster's rotation fitted to the unknowns x,
 * refined from rot with at most `steps` steps each. */
void sn_pose_local_step(const sinew_bbw_pose *p, const double *x, double *rot, int steps);
/* Identity rotations for every cluster. */
void sn_pose_identity_rotations(const sinew_bbw_pose *p, double *rot);
/* Energy of the normalised unknowns x (dim columns of nv), each cluster's
 * rotation fitted from rot (dim * dim per cluster, updated in place). */
double sn_pose_energy_of(const sinew_bbw_pose *p, const double *x, double *rot, int steps);

/* Global step (pose_global.c). prepare: the unknowns from the transforms
 * (or the identity, cold), H, W, S and base; DEGENERATE naming the handle or
 * position the constraints leave undetermined or repeat. */
sinew_result sn_pose_prepare(sn_pose_state *st, const float *transforms);
/* The free unknowns minimising the energy for the rotations in st->rot. */
void sn_pose_global_step(sn_pose_state *st);
/* Free handle j's linear part to its nearest rotation times scale, the
 * translation refit (SINEW_BBW_POSE_SIMILARITY). */
void sn_pose_project_similarity(sn_pose_state *st, size_t j);

/* Normalised unknowns of handle j from a column-major 4x4 transform
 * (pose_global.c). */
void sn_pose_to_unknowns(const sinew_bbw_pose *p, size_t j, const float *m, double *x);

/* Replaces the zero fields of a pose desc that can be resolved from the desc
 * by their defaults (desc_defaults.c): what create and its query use. */
void sn_bbw_pose_resolve(sinew_bbw_pose_desc *d);

#endif /* SN_BBW_POSE_INTERNAL_H */
