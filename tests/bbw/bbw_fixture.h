/*
 * Shared helpers of the bbw tests: small structured meshes, and an
 * independent dense reference for the weights (its own cotangent operators
 * from the angle formula, and accelerated projected gradient with a
 * sort-based simplex projection).
 */
#ifndef SINEW_TEST_BBW_FIXTURE_H
#define SINEW_TEST_BBW_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

/* An (nx+1) x (ny+1) vertex grid over [0, sx] x [0, sy] (z = 0), each cell
 * split into two triangles along alternating diagonals (symmetric under both
 * mirror axes when nx, ny are even). */
typedef struct grid2d {
    float *positions;
    size_t vertex_count;
    uint32_t *triangles;
    size_t triangle_count;
} grid2d;
void grid2d_make(grid2d *g, size_t nx, size_t ny, float sx, float sy);
void grid2d_free(grid2d *g);
static inline uint32_t grid2d_vertex(size_t nx, size_t i, size_t j) { return (uint32_t)(j * (nx + 1) + i); }

/* An n^3 grid of cubes over [0, s]^3, 6 positive tets per cube. */
typedef struct grid3d {
    float *positions;
    size_t vertex_count;
    uint32_t *tets;
    size_t tet_count;
} grid3d;
void grid3d_make(grid3d *g, size_t n, float s);
void grid3d_free(grid3d *g);

/* Reference weights: minimise sum_j w_j' K M^-1 K w_j with rows of `fixed`
 * vertices (fixed[v] != 0) held at fixed_rows[v * m ..], the others on the
 * simplex (exact) or in [0, 1] then normalised. dim 2 uses triangles (3 per
 * element), dim 3 tets (4 per element). out: n * m, vertex-major. */
void reference_weights(int dim, const float *positions, size_t n, const uint32_t *elements, size_t element_count,
                       const uint8_t *fixed, const double *fixed_rows, size_t m, int exact, size_t iterations,
                       double *out);

/* The same energy's minimiser without the bounds and the partition (one
 * direct solve of Q_FF w_F = -Q_FC w_C in double precision): the reference
 * weights exactly when it lies inside every row's feasible set, which the
 * caller checks. */
void reference_unconstrained_weights(int dim, const float *positions, size_t n, const uint32_t *elements,
                                     size_t element_count, const uint8_t *fixed, const double *fixed_rows, size_t m,
                                     double *out);

/* The dense biharmonic operator Q = K M^-1 K (n x n, row-major) from the
 * fixture's own cotangent formulas (angles, dihedral angles); malloc'd. */
double *bbw_dense_biharmonic(int dim, const float *positions, size_t n, const uint32_t *elements,
                             size_t element_count);

/* Barycentric lumped mass (triangles: per = 3, tets: per = 4); malloc'd. */
double *bbw_lumped_mass(const float *pos, size_t n, const uint32_t *el, size_t count, int per);
/* Mass-weighted RMS over the free vertices (fixed[v] == 0) of w - ref: the
 * quantity sinew_bbw_info.error_bound bounds. */
double bbw_rms_error(const float *w, const double *ref, const double *mass, const uint8_t *fixed, size_t n, size_t m);

#endif
