/*
 * Internal state of a sinew_bbw handle and the functions the bbw files share.
 */
#ifndef SN_BBW_INTERNAL_H
#define SN_BBW_INTERNAL_H

#include "core/internal.h"
#include "linalg/sparse.h"
#include "sinew/bbw.h"

/* Doubles per element in sn_bbw_locator.gradients. */
#define SN_BBW_AFFINE 12

/* Uniform grid over the domain's elements for point location. */
typedef struct sn_bbw_locator {
    double origin[3];
    double cell;              /* cell edge length */
    uint32_t dims[3];
    size_t *cell_start;       /* dims product + 1 offsets into items */
    uint32_t *items;          /* element indices */
    float *boxes;             /* per element: lower then upper corner, rounded outwards */
    /* Per element (SN_BBW_AFFINE doubles) the gradients of barycentric
     * coordinates 1..3 (as sn_bbw_element_gradients gives them) and its
     * vertex 0, so a point's coordinates are a few products from one place
     * instead of an inverse per test. */
    double *gradients;
    /* Crowded cells split again for the containment test (a graded volume's
     * fine elements crowd the cells sized from the mean): cell c with
     * sub_res[c] = s > 1 has s per axis of the domain's dimension, whose
     * lists are sub_items[sub_start[sub_first[c] + i] ..], in element order
     * like the cells'. */
    uint8_t *sub_res;
    uint32_t *sub_first;
    size_t *sub_start;
    uint32_t *sub_items;
} sn_bbw_locator;

/* Largest influence_count of sinew_bbw_top_k and sinew_bbw_auto_weights:
 * top_k keeps a point's best weights so far on the stack. */
#define SN_BBW_MAX_INFLUENCES 64u

/* What an automatic volume was made from (source.c): the surface and the
 * handles' geometry, packed, so the solve can build the volume again at a
 * coarser grid. Cages are concatenated with per-cage offsets (count + 1). */
typedef struct sn_bbw_source {
    float *surface_positions;     /* 3 per vertex */
    size_t surface_vertex_count;
    uint32_t *surface_triangles;  /* 3 per triangle */
    size_t surface_triangle_count;
    float *points;
    size_t point_count;
    float *joints;
    size_t joint_count;
    uint32_t *bones;              /* 2 per bone */
    size_t bone_count;
    size_t cage_count;
    size_t *cage_vertex_start, *cage_edge_start, *cage_triangle_start;
    float *cage_vertices;
    uint32_t *cage_edges, *cage_triangles;
    float handle_tolerance;
    uint32_t volume_flags, point_placement;
} sn_bbw_source;

/* Vertex states. */
enum { SN_BBW_FREE = 0, SN_BBW_FIXED = 1, SN_BBW_UNREACHED = 2 };

struct sinew_bbw {
    sn_env env;
    size_t held_bytes;   /* every block the handle owns (env.held points here), the handle included */
    uint32_t dim;             /* 2 or 3 */
    uint32_t per;             /* vertices per element: dim + 1 */
    size_t vertex_count;
    double *positions;        /* 3 per vertex (z = 0 in 2D) */
    size_t element_count;
    uint32_t *elements;       /* per indices per element */
    double scale;             /* diagonal of the domain's box */
    double reach;             /* how far outside the domain point queries still snap */
    size_t handle_count;
    sn_sparse stiffness;      /* cotangent Laplacian K (positive semidefinite) */
    double *mass;             /* lumped mass per vertex */
    uint8_t *state;           /* SN_BBW_FREE / FIXED / UNREACHED per vertex */
    double *fixed;            /* handle_count per vertex: rows of fixed vertices */
    float *weights;           /* handle_count per vertex, after a solve */
    sinew_bbw_partition partition; /* the rule the weights were solved with */
    sn_bbw_locator locator;
    sn_bbw_source *source;    /* automatic volumes made in this process; NULL otherwise */
    sinew_bbw_info info;
};

/* ---- domain.c ---- */
/* Validates and copies a given triangle (2D) or tet (3D) mesh. */
sinew_result sn_bbw_domain_from_mesh(sinew_bbw *b, const sinew_bbw_desc *desc);
/* Sets b->scale from the positions and checks every element as create
 * does (no zero measure, no inverted tet); messages start with prefix. */
sinew_result sn_bbw_check_domain(sinew_bbw *b, const char *prefix);
/* ---- volume.c ---- */
/* Builds the voxel (Kuhn) volume inside desc->surface, graded around desc's
 * handles unless SINEW_BBW_VOLUME_UNIFORM; *cell_size = the grid's cell. Sets
 * the volume's figures in b->info. */
sinew_result sn_bbw_domain_from_surface(sinew_bbw *b, const sinew_bbw_desc *desc, double *cell_size);

/* ---- operators.c ---- */
/* Cotangent stiffness (element weights `mask`, NULL = 1) into *out, and
 * (when mass != NULL) the lumped mass. */
sinew_result sn_bbw_stiffness(const sinew_bbw *b, const float *mask, sn_sparse *out, double *mass);
/* The lumped mass and stiffness of the domain, when the handle lacks them
 * (a loaded handle builds them at its first solve). On failure the handle
 * is left without them. */
sinew_result sn_bbw_ensure_operators(sinew_bbw *b);
/* Gradients of the element's barycentric basis (per x 3 doubles) and its
 * unsigned measure (area or volume); false when degenerate. */
int sn_bbw_element_gradients(const sinew_bbw *b, size_t e, double grad[4][3], double *measure);

/* ---- locate.c ---- */
sinew_result sn_bbw_locator_build(sinew_bbw *b);
void sn_bbw_locator_free(sinew_bbw *b);
/* Finds the element containing q (barycentric tolerance eps) and its
 * barycentric coordinates; when none contains it and max_distance > 0, the
 * element whose clamped point is nearest within max_distance. Returns the
 * element or SIZE_MAX. */
size_t sn_bbw_locate(const sinew_bbw *b, const double q[3], double max_distance, double bary[4]);
/* sn_bbw_locate with the element of a nearby point (hint, SIZE_MAX: none)
 * to start the nearest-element search from: the same answer, sooner for
 * points in a coherent order. quick = false uses no hint and no split cells
 * (the reference the tests and the benchmark compare with). *tested (when
 * not NULL) = elements whose coordinates it computed. */
size_t sn_bbw_locate_with(const sinew_bbw *b, const double q[3], double max_distance, size_t hint, bool quick,
                          double bary[4], size_t *tested);
/* Whether sn_bbw_locate(b, q, max_distance, ...) certainly finds an
 * element, by a test of a few products (false = not known: locate): an
 * element of q's cell within reach, or *hint (an element near the last
 * point, SIZE_MAX: none) whose clamped point is. On true *hint becomes an
 * element near q. */
bool sn_bbw_locate_certain(const sinew_bbw *b, const double q[3], double max_distance, size_t *hint);

/* ---- handles.c ---- */
sinew_result sn_bbw_constrain(sinew_bbw *b, const sinew_bbw_desc *desc, double tolerance);
/* Each handle must dominate (weight > 1/2) at some fixed vertex, else
 * DEGENERATE naming it; messages start with prefix. */
sinew_result sn_bbw_check_handle_vertices(const sinew_bbw *b, const char *prefix);
/* Marks regions no constrained vertex reaches. */
sinew_result sn_bbw_find_unreached(sinew_bbw *b);

/* ---- place.c ---- */
/* The elements around each vertex (CSR). */
typedef struct sn_bbw_incidence {
    size_t *start;            /* vertex_count + 1 */
    uint32_t *elements;
} sn_bbw_incidence;
sinew_result sn_bbw_incidence_build(sinew_bbw *b, sn_bbw_incidence *inc);
void sn_bbw_incidence_free(sinew_bbw *b, sn_bbw_incidence *inc);
/* Moves vertex v onto q (2D: its xy), or as far towards it as keeps every
 * element around v oriented as before with a tenth of its measure; returns
 * whether it moved. The operators and the locator are then stale. */
int sn_bbw_place_vertex(sinew_bbw *b, const sn_bbw_incidence *inc, uint32_t v, const double q[3]);

/* ---- source.c ---- */
/* Element counts of a source's arrays (cages: their totals). */
typedef struct sn_bbw_source_sizes {
    size_t surface_vertices, surface_triangles, points, joints, bones, cages;
    size_t cage_vertices, cage_edges, cage_triangles;
} sn_bbw_source_sizes;
/* A source with its counts set and every array allocated (contents
 * undefined, cage offsets zero); NULL when memory runs out. Used by create
 * (sn_bbw_source_keep) and by load. */
sn_bbw_source *sn_bbw_source_alloc(const sn_env *env, const sn_bbw_source_sizes *sizes);
/* Keeps desc's surface and handles in b->source (desc already checked). */
sinew_result sn_bbw_source_keep(sinew_bbw *b, const sinew_bbw_desc *desc);
void sn_bbw_source_free(const sn_env *env, sn_bbw_source *s);
/* A create desc for b's source at another grid resolution; the views point
 * into the source, cages is owned (free with sn_free on b's env). */
typedef struct sn_bbw_source_view {
    sinew_bbw_desc desc;
    sinew_trimesh surface;
    sinew_bbw_cage *cages;
} sn_bbw_source_view;
sinew_result sn_bbw_source_desc(const sinew_bbw *b, uint32_t grid_resolution, sn_bbw_source_view *v);

/* ---- cascade.c ---- */
/* Whether b can start from coarser volumes: it keeps its source and is
 * large enough for a level (cascade.c's thresholds). */
int sn_bbw_coarse_possible(const sinew_bbw *b);
/* The next coarser level of b for the solve desc d: *coarse = the same
 * surface and handles at half the grid (owned; destroy it) with *cd, the
 * desc to solve it with (a loose tolerance, d->coarse_levels - 1 levels or
 * automatic), or NULL when no level applies or the coarse volume cannot be
 * built (the solve then starts cold). Explicit levels on a bbw without a
 * source are INVALID_STATE; cancellation and allocation failures are
 * returned. */
sinew_result sn_bbw_coarse_level(sinew_context *ctx, const sinew_bbw *b, const sinew_bbw_solve_desc *d,
                                 sinew_bbw **coarse, sinew_bbw_solve_desc *cd);
/* *start = the solved coarse level c's weights at b's vertices (owned, b's
 * allocator). */
sinew_result sn_bbw_coarse_sample(const sinew_bbw *b, const sinew_bbw *c, float **start);
/* Whether a failure at a coarse level must end the solve (the caller
 * cancelled, memory ran out); any other only means no start. */
int sn_bbw_coarse_failure_is_fatal(sinew_result r);

/* ---- bbw.c ---- */
/* Wall-clock seconds (C11 timespec_get), for the timings in sinew_bbw_info. */
double sn_bbw_seconds(void);

/* Replaces the zero fields of an auto-weights desc by their defaults
 * (desc_defaults.c): what sinew_bbw_auto_weights and its query use. */
void sn_bbw_auto_resolve(sinew_bbw_auto_desc *d);

#endif /* SN_BBW_INTERNAL_H */
