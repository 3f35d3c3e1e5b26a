/*
 * Internals of the B-spline lattice shared by its source files: the handle,
 * per-axis knot and basis machinery, and Bezier helpers.
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

/* The knot span s (degree <= s < count) holding x in [0, 1]. */
uint32_t sn_lat_span(const sn_lat_axis *axis, double x);
/* Values (and derivatives when deriv is not NULL) of the order nonzero basis
 * functions of span s at x. */
void sn_lat_basis_funs(const sn_lat_axis *axis, uint32_t s, double x, double *value, double *deriv);
/* Basis of one axis at x after the lattice's outside policy. */
void sn_lat_axis_basis(const sinew_lattice *lat, int a, double x, bool want_deriv, sn_lat_basis *out);
/* Greville abscissa of control point i on the axis. */
double sn_lat_greville(const sn_lat_axis *axis, uint32_t i);
/* Bernstein coefficients on [x0, x1] (x0 > x1 allowed, the interval reversed)
 * of the order basis functions of span s, written as coef[r * order + m] for
 * function first + r and Bernstein index m (degree = axis degree). Both x0 and
 * x1 must lie in the closure of span s. Exact up to rounding (blossoms). */
void sn_lat_bernstein_of_span(const sn_lat_axis *axis, uint32_t s, double x0, double x1, double *coef);

/* Index of control point (i, j, k). */
static inline size_t sn_lat_index(const sinew_lattice *lat, size_t i, size_t j, size_t k)
{
    return i + (size_t)lat->axis[0].count * (j + (size_t)lat->axis[1].count * k);
}

/* Rest position of control point (i, j, k), world units. */
void sn_lat_rest(const sinew_lattice *lat, size_t i, size_t j, size_t k, double out[3]);
/* Box map: world position of parameters u. */
void sn_lat_box(const sinew_lattice *lat, const double u[3], double out[3]);
/* Inverse box map: parameters of a world point. */
void sn_lat_params(const sinew_lattice *lat, const double p[3], double out[3]);

/* Displacement sum D(u) = sum D_ijk B_i B_j B_k and, when grad is not NULL, its
 * derivatives: grad[3 * a + c] = d D_c / d u_a. */
void sn_lat_contract(const sinew_lattice *lat, const sn_lat_basis b[3], double disp[3], double *grad);

/* Unit normal mapped by the inverse-transpose of jac (column-major 3x3); a
 * normal whose image vanishes comes out unchanged. */
void sn_lat_normal(const double jac[9], const float n[3], float out[3]);
/* Jacobian of the world map p -> p + D(u(p)) from grad = dD/du. */
void sn_lat_world_jacobian(const sinew_lattice *lat, const double grad[9], double jac[9]);

/* Positions of world points [first, first + count) through the bound-deform
 * kernels (records built on the stack); point i written at i * stride. */
void sn_lat_deform_world(const sinew_lattice *lat, const sinew_points *points, float *out, size_t stride,
                         size_t first, size_t count);

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

/* ---- Bezier helpers --------------------------------------------------------- */

/* Binomial coefficient C(n, k) for n <= 64 as a double. */
double sn_lat_binom(unsigned n, unsigned k);

/* Validates a range [first, first + count) over an input view: the view
 * itself (pointer, alignment, stride, span) and the range's coordinates,
 * named by their index in the view ("control point 7"). */
sinew_result sn_lat_check_range(const sinew_points *in, const char *what, size_t first, size_t count);

#endif /* SINEW_LATTICE_INTERNAL_H */
