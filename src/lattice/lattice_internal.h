/*
 * Internals of the B-spline lattice shared by its source files: the handles
 * and the functions each file offers the others. Calls run one way, from the
 * files that serve the public API (lattice.c, evaluate.c, bind.c, fold.c,
 * segment.c, refine.c, save.c, load.c) down to the files below, in the order
 * of the sections here from the bottom up: oneshot.c uses kernels.c,
 * contract.c and box.c; fits.c uses box.c; box.c and contract.c use basis.c,
 * which uses nothing. The AVX2 units (deform_avx2.c, fill_avx2.c,
 * fits_avx2.c) are reached through the handle's function pointers and call
 * nothing back.
 */
#ifndef SINEW_LATTICE_INTERNAL_H
#define SINEW_LATTICE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/internal.h"
#include "lattice/deform_kernels.h"
#include "sinew/lattice.h"

#define SN_LAT_MAX_ORDER SINEW_LATTICE_MAX_ORDER
#define SN_LAT_MAX_DEGREE (SN_LAT_MAX_ORDER - 1)

/* One axis: count control points of the given order over clamped uniform
 * knots t_0 = ... = t_p = 0 < 1/cells < ... < t_count = ... = t_{count+p} = 1. */
typedef struct sn_lat_axis {
    uint32_t count;
    uint32_t order;
    uint32_t degree;   /* order - 1 */
    uint32_t cells;    /* count - degree */
    const double *knots; /* count + order values, inside the handle's block */
    /* Basis values and derivatives (d/du) at u = 0 (end 0) and u = 1 (end 1),
     * as sn_lat_basis_funs gives them: what CLAMP and EXTEND read outside. */
    double end_value[2][SN_LAT_MAX_ORDER];
    double end_deriv[2][SN_LAT_MAX_ORDER];
    float end_deriv_f[2][SN_LAT_MAX_ORDER]; /* the derivatives as floats, for the vector fillers */
} sn_lat_axis;

struct sinew_lattice {
    sn_env env;
    size_t held_bytes;   /* every block the handle owns (env.held points here), the handle included */
    sn_lat_axis axis[3];
    sinew_lattice_outside outside;
    size_t point_count;
    size_t cell_count;
    double origin[3];
    double frame[9];    /* columns: extent_i * unit axis_i; box(u) = origin + frame * u */
    double inverse[9];  /* frame^-1 */
    double frame_det;
    float unit_axes[3][3];
    float extents[3];
    /* Displacements from the rest lattice, one array per coordinate so the
     * deform kernels read four neighbours along u with one load. */
    float *disp[3];
    /* Upper bound of every |displacement coordinate| (raised by each setter,
     * exact after a whole-lattice set, 0 after a reset): lets pose-time calls
     * prove their outputs fit a float without evaluating twice. */
    double disp_bound;
    void *block;        /* the one allocation holding knots and displacements */
    /* Cubic lattices on CPUs with the AVX2 kernel: the displacements again,
     * packed per cell (deform_kernels.h), kept in step by every setter. */
    float *packed;
    sn_lat_kernel_fn kernel;
    /* Every other lattice on CPUs with AVX2: the row kernel, or NULL. */
    sn_lat_rows_fn rows;
    /* Fills deform records of one-shot points with vector instructions
     * (fill_avx2.c), or NULL: the scalar filler of oneshot.c is used. */
    sn_lat_fill_fn fill;
    /* With the packed copy: one-shot points straight into the cubic cell
     * contraction (fill_avx2.c), or NULL. */
    sn_lat_oneshot_fn oneshot;
    /* The vector "every point's positions fit" check, or NULL. */
    sn_lat_all_fit_fn all_fit;
    /* Whether the SSE2 kernel (order 4 along u) may serve when the AVX2 ones
     * do not. */
    bool sse;
};

/* Which kernels a lattice runs: the fastest this build and CPU have, the
 * x86-64 baseline (SSE2, what a CPU without AVX2 runs), or plain C (what
 * other CPU families run). Tests pick each to compare them. */
typedef enum sn_lat_kernels {
    SN_LAT_KERNELS_BEST,
    SN_LAT_KERNELS_BASELINE,
    SN_LAT_KERNELS_PLAIN
} sn_lat_kernels;

/* Sets the lattice's kernel pointers for `which` (a packed copy, when the
 * lattice has one, stays in step but is read only by the AVX2 kernels). */
void sn_lat_use_kernels(sinew_lattice *lat, sn_lat_kernels which);


struct sinew_lattice_binding {
    sn_env env;
    size_t held_bytes;   /* every block the handle owns (env.held points here), the handle included */
    size_t count;
    /* The structure bound to; a lattice must match it to be used. */
    uint32_t axis_count[3], order[3];
    sinew_lattice_outside outside;
    double origin[3], frame[9];
    sinew_lattice_space space;
    /* Per point: base position (3 floats: the world point, or the undeformed
     * box position of a parameter point), the first control point's index (as
     * uint32 bits), the basis values of u, v and w, then (with normals) their
     * derivatives; zero padding to whole 16-byte groups. */
    size_t record;
    float *records;
    float *normals; /* 3 per point, or NULL */
    uint32_t *cells; /* cubic lattices: each point's cell, for packed kernels */
    /* Largest |base coordinate| and largest product over the axes of the
     * sums of |basis values| of any bound point: with the lattice's
     * displacement bound they prove the outputs fit a float. */
    double base_bound, basis_bound;
};

/* Floats per binding record for the given orders (see above). */
static inline size_t sn_lat_record_floats(const uint32_t order[3], bool normals)
{
    size_t n = 4 + (size_t)order[0] + order[1] + order[2];
    if (normals) n += (size_t)order[0] + order[1] + order[2];
    return (n + 3) / 4 * 4;
}

struct sinew_lattice_refinement {
    sn_env env;
    sinew_lattice_refined_mesh mesh;
    float *rest, *def, *params;
    uint32_t *tri, *parents;
};

/* Basis functions of one axis at one parameter, after the outside policy:
 * functions first .. first + order - 1 have values value[] and derivatives
 * deriv[] (d/du of the parameter). leave = the parameter lies outside and the
 * policy is LEAVE. */
typedef struct sn_lat_basis {
    uint32_t first;
    bool leave;
    double value[SN_LAT_MAX_ORDER];
    double deriv[SN_LAT_MAX_ORDER];
} sn_lat_basis;

/* ---- basis.c: one axis' B-spline basis (calls nothing else) ----------------------------------------------- */

/* The knot span s (degree <= s < count) holding x in [0, 1]. */
uint32_t sn_lat_span(const sn_lat_axis *axis, double x);
/* Fills the axis' end_value, end_deriv and end_deriv_f (knots set). */
void sn_lat_axis_ends(sn_lat_axis *axis);
/* Values of the order nonzero basis functions at x in [0, 1] by a recurrence
 * specialised to clamped uniform knots (no knot reads, no divisions); returns
 * the first function's index (the cell of x). Agrees with sn_lat_basis_funs
 * to rounding. */
uint32_t sn_lat_basis_uniform(const sn_lat_axis *axis, double x, double *value); /* x in [0, 1] */
/* Derivatives (d/du) of axis a's basis functions at x, in the cell the
 * fillers put x in, under the outside policy: what a bound normal needs
 * beside the filler's values. */
void sn_lat_uniform_derivs(const sinew_lattice *lat, int a, double x, double *deriv);
/* Basis of one axis at x after the lattice's outside policy. */
void sn_lat_axis_basis(const sinew_lattice *lat, int a, double x, bool want_deriv, sn_lat_basis *out);
/* Greville abscissa of control point i on the axis. */
double sn_lat_greville(const sn_lat_axis *axis, uint32_t i);
/* Bernstein coefficients on [x0, x1] (x0 > x1 allowed, the interval reversed)
 * of the order basis functions of span s, written as coef[r * order + m] for
 * function first + r and Bernstein index m (degree = axis degree). Both x0 and
 * x1 must lie in the closure of span s. Exact up to rounding (blossoms). */
void sn_lat_bernstein_of_span(const sn_lat_axis *axis, uint32_t s, double x0, double x1, double *coef);
/* Binomial coefficient C(n, k) for n <= 64 as a double. */
double sn_lat_binom(unsigned n, unsigned k);

/* ---- box.c: the box map and the rest lattice (above basis.c) ---------------------------------------------- */

/* Index of control point (i, j, k). */
static inline size_t sn_lat_index(const sinew_lattice *lat, size_t i, size_t j, size_t k)
{
    return i + (size_t)lat->axis[0].count * (j + (size_t)lat->axis[1].count * k);
}
/* Rest position of control point (i, j, k), world units. */
void sn_lat_rest(const sinew_lattice *lat, size_t i, size_t j, size_t k, double out[3]);
/* Rest position of control point `index` (see the top of lattice.h). */
void sn_lat_rest_index(const sinew_lattice *lat, size_t index, double out[3]);
/* Box map: world position of parameters u. */
void sn_lat_box(const sinew_lattice *lat, const double u[3], double out[3]);
/* Inverse box map: parameters of a world point. */
void sn_lat_params(const sinew_lattice *lat, const double p[3], double out[3]);
/* Parameters u and undeformed position base of point q: a world point (its
 * parameters, itself) when world, else parameters (themselves, their box
 * position). */
void sn_lat_point(const sinew_lattice *lat, const float q[3], bool world, double u[3], double base[3]);

/* ---- contract.c: the double-precision core (above basis.c) ------------------------------------------------ */

/* Displacement sum D(u) = sum D_ijk B_i B_j B_k and, when grad is not NULL, its
 * derivatives: grad[3 * a + c] = d D_c / d u_a. */
void sn_lat_contract(const sinew_lattice *lat, const sn_lat_basis b[3], double disp[3], double *grad);
/* Displacement D(u) under the outside policy (zero for a point LEAVE leaves
 * alone), in double precision. */
void sn_lat_displacement(const sinew_lattice *lat, const double u[3], double d[3]);
/* Jacobian of the world map p -> p + D(u(p)) from grad = dD/du. */
void sn_lat_world_jacobian(const sinew_lattice *lat, const double grad[9], double jac[9]);

/* ---- fits.c: input checks and float-range proofs (above box.c) -------------------------------------------- */

/* Validates a range [first, first + count) over an input view: the view
 * itself (pointer, alignment, stride, span) and the range's coordinates,
 * named by their index in the view ("control point 7"). */
sinew_result sn_lat_check_range(const sinew_points *in, const char *what, size_t first, size_t count);
/* The first half of sn_lat_check_range: the view and the range, not the
 * coordinates. */
sinew_result sn_lat_check_view(const sinew_points *in, const char *what, size_t first, size_t count);
/* The second half: every coordinate of the range is finite. */
sinew_result sn_lat_check_finite(const sinew_points *in, const char *what, size_t first, size_t count);
/* Bounds at parameters u, under the outside policy, of |D_c(u)| (*value),
 * of |dD_c/du_a| (*deriv), and of the products of basis values and
 * derivatives the kernels store (*basis): sums of absolute terms, so every
 * partial sum a float kernel forms is bounded as well. */
void sn_lat_disp_bounds(const sinew_lattice *lat, const double u[3], double *value, double *deriv, double *basis);
/* SINEW_OK when |bound| (times a rounding margin) fits a float; otherwise
 * SINEW_ERROR_NON_FINITE naming element i of `what` and the output. */
sinew_result sn_lat_check_fits(double bound, const char *what, size_t i, const char *output);
/* Proves the outputs for one point (world position p, or parameters p when
 * !world) fit a float: its parameters, the kernels' basis values, its
 * deformed position and (jacobian) its Jacobian; else SINEW_ERROR_NON_FINITE
 * naming element i of `what`. */
sinew_result sn_lat_check_point_fits(const sinew_lattice *lat, const double p[3], bool world, bool jacobian,
                                     const char *what, size_t i);
/* Whether every point inside the box passes sn_lat_check_point_fits (with
 * its Jacobian when jacobian): one proof per call that spares the per-point
 * bounds of the points inside. */
bool sn_lat_inside_points_fit(const sinew_lattice *lat, bool jacobian);
/* The largest |x_i|. */
double sn_lat_max_abs3(const double x[3]);
/* Whether parameters u lie in [0, 1]^3. */
bool sn_lat_inside_box(const double u[3]);

/* ---- kernels.c: positions of deform records (calls the AVX2 units only) ----------------------------------- */

/* Contraction of one record (see struct sinew_lattice_binding) whose first
 * control point is `first`, in float: its displacement and, when grad is not
 * NULL (the record holds derivatives), grad[3 * a + c] = dD_c/du_a. */
void sn_lat_contract_record(const sinew_lattice *lat, const float *rec, uint32_t first, float disp[3], float *grad);
/* Positions of bound records [first, first + count) through the fastest
 * kernel the lattice and the CPU allow (cells: each record's packed cell, or
 * NULL); record i written at byte offset i * stride of out. */
void sn_lat_deform_records(const sinew_lattice *lat, const float *records, size_t record, const uint32_t *cells,
                           float *out, size_t stride, size_t first, size_t count);

/* ---- oneshot.c: one-shot positions (above box.c, contract.c, kernels.c) ----------------------------------- */

/* Deform records of count points read as 3 floats at in + k * in_stride
 * bytes (see sn_lat_fill_fn), by the lattice's filler: one-shot calls and
 * bind build the same records for the same point. */
void sn_lat_fill_records(const sinew_lattice *lat, const char *in, size_t in_stride, size_t count, bool world,
                         float *records, size_t record, uint32_t *cells);
/* Positions of points [first, first + count) of `in` (world points when
 * world, else (u, v, w) parameters) through the deform kernels, on records
 * built on the stack by lat->fill or the scalar filler; point i is written at
 * byte offset i * stride of out. The caller has validated the range and
 * proved that the outputs fit a float. A point's output depends on that
 * point alone, so any split of a range gives the same bits. */
void sn_lat_deform_points(const sinew_lattice *lat, const sinew_points *in, bool world, float *out, size_t stride,
                          size_t first, size_t count);

/* ---- lattice.c: the handle (above box.c, fits.c) ---------------------------------------------------------- */

/* Allocates a lattice of the given structure (already validated: orders
 * 2..8, counts >= orders and at most 2^20, a known policy) at rest: knots,
 * zeroed displacements and, for cubic lattices with the AVX2 kernel, the
 * packed copy. The box (origin, frame, unit_axes, extents) is left to the
 * caller, who then calls sn_lat_finish_frame. Memory from env. Returns
 * SINEW_ERROR_SIZE_OVERFLOW or SINEW_ERROR_OUT_OF_MEMORY. Shared by create
 * and load, so both build the same handle. */
sinew_result sn_lat_make(const sn_env *env, const uint32_t count[3], const uint32_t order[3],
                         sinew_lattice_outside outside, sinew_lattice **out);
/* Sets inverse and frame_det from frame; returns the determinant (0 when
 * singular, inverse then untouched). */
double sn_lat_finish_frame(sinew_lattice *lat);
/* Rebuilds the packed per-cell copy (when the lattice has one) from the
 * displacements. */
void sn_lat_repack(sinew_lattice *lat);

#endif /* SINEW_LATTICE_INTERNAL_H */
