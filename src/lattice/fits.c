/* Validation of input ranges and the proofs, before anything is written,
 * that a pose-time call's outputs fit a float (fits_avx2.c holds the vector
 * pass over a whole range). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lattice/lattice_defaults.h"
#include "lattice/lattice_internal.h"

sinew_result sn_lat_check_view(const sinew_points *in, const char *what, size_t first, size_t count)
{
    if (!in) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s view is NULL", what);
    if (first > in->count || count > in->count - first)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "range %zu + %zu goes past the %zu %ss", first, count,
                       in->count, what);
    if (count == 0) return SINEW_OK;
    return sn_check_float_array(in->data, in->stride, 3, in->count, what);
}

sinew_result sn_lat_check_range(const sinew_points *in, const char *what, size_t first, size_t count)
{
    sinew_result r = sn_lat_check_view(in, what, first, count);
    return r == SINEW_OK ? sn_lat_check_finite(in, what, first, count) : r;
}

sinew_result sn_lat_check_finite(const sinew_points *in, const char *what, size_t first, size_t count)
{
    for (size_t i = first; i < first + count; ++i) {
        const float *q = sn_point(in, i);
        for (int c = 0; c < 3; ++c)
            if (!isfinite(q[c]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "%s %zu has a non-finite coordinate %c (%g)", what, i,
                               "xyz"[c], (double)q[c]);
    }
    return SINEW_OK;
}

/* Largest |coordinate| of a box point: |origin| + |frame u| per world axis. */
static double box_reach(const sinew_lattice *lat, const double u[3])
{
    double reach = 0.0;
    for (int c = 0; c < 3; ++c)
        reach = fmax(reach, fabs(lat->origin[c]) + fabs(lat->frame[c] * u[0]) + fabs(lat->frame[3 + c] * u[1]) +
                                fabs(lat->frame[6 + c] * u[2]));
    return reach;
}

double sn_lat_max_abs3(const double x[3])
{
    return fmax(fabs(x[0]), fmax(fabs(x[1]), fabs(x[2])));
}

sinew_result sn_lat_check_point_fits(const sinew_lattice *lat, const double p[3], bool world, bool jacobian,
                                     const char *what, size_t i)
{
    double u[3];
    if (world) sn_lat_params(lat, p, u);
    else memcpy(u, p, sizeof u);
    double value, deriv, basis;
    sn_lat_disp_bounds(lat, u, &value, &deriv, &basis);
    /* The deform kernels keep parameters, basis values and derivatives as
     * floats. */
    sinew_result r = sn_lat_check_fits(sn_lat_max_abs3(u), what, i, "parameter");
    if (r == SINEW_OK) r = sn_lat_check_fits(basis, what, i, "basis value");
    const double reach = world ? sn_lat_max_abs3(p) : box_reach(lat, u);
    if (r == SINEW_OK) r = sn_lat_check_fits(reach + value, what, i, "position");
    if (r == SINEW_OK && jacobian) {
        double frame = 0.0;
        for (int e = 0; e < 9; ++e) frame = fmax(frame, fabs(lat->frame[e]));
        r = sn_lat_check_fits(frame + deriv, what, i, "jacobian");
    }
    return r;
}

/* Whether every point inside the box passes sn_lat_check_point_fits: there
 * the basis is a nonnegative partition of unity, so a point is within the
 * box's reach and moves by at most the displacement bound. One proof per call
 * spares the per-point bounds for the points that lie inside. */
bool sn_lat_inside_points_fit(const sinew_lattice *lat, bool jacobian)
{
    const double centre[3] = {0.5, 0.5, 0.5}, corner[3] = {1.0, 1.0, 1.0};
    double value, deriv, basis;
    sn_lat_disp_bounds(lat, centre, &value, &deriv, &basis);
    const double limit = (double)FLT_MAX / (1.0 + SN_LAT_FLOAT_MARGIN);
    bool fits = basis <= limit && box_reach(lat, corner) + value <= limit;
    if (jacobian) {
        double frame = 0.0;
        for (int e = 0; e < 9; ++e) frame = fmax(frame, fabs(lat->frame[e]));
        fits = fits && frame + deriv <= limit;
    }
    return fits;
}

bool sn_lat_inside_box(const double u[3])
{
    return u[0] >= 0.0 && u[0] <= 1.0 && u[1] >= 0.0 && u[1] <= 1.0 && u[2] >= 0.0 && u[2] <= 1.0;
}

void sn_lat_disp_bounds(const sinew_lattice *lat, const double u[3], double *value, double *deriv, double *basis)
{
    /* Inside [0, 1] the basis is a nonnegative partition of unity and
     * sum |B_i'| <= 2 p cells (each B_i' is p times a difference of two
     * lower-degree functions over supports at least one knot span long). A
     * LEAVE point outside gets no displacement, CLAMP reads the boundary,
     * EXTEND continues each basis along its tangent, adding dist * 2 p cells. */
    double sum = 1.0, dsum = 0.0;
    bool leave = false;
    for (int a = 0; a < 3; ++a) {
        const double slope = 2.0 * lat->axis[a].degree * lat->axis[a].cells;
        const double dist = fmax(0.0, fmax(u[a] - 1.0, -u[a]));
        if (dist > 0.0 && lat->outside == SINEW_LATTICE_OUTSIDE_LEAVE) leave = true;
        sum *= lat->outside == SINEW_LATTICE_OUTSIDE_EXTEND ? 1.0 + slope * dist : 1.0;
        dsum = fmax(dsum, slope);
    }
    *basis = leave ? 0.0 : sum * fmax(1.0, dsum);
    *value = leave ? 0.0 : lat->disp_bound * sum;
    *deriv = leave ? 0.0 : lat->disp_bound * sum * dsum;
}

sinew_result sn_lat_check_fits(double bound, const char *what, size_t i, const char *output)
{
    if (bound * (1.0 + SN_LAT_FLOAT_MARGIN) <= (double)FLT_MAX) return SINEW_OK;
    return sn_fail(SINEW_ERROR_NON_FINITE, "%s %zu would give a %s beyond the float range (bound %g)", what, i,
                   output, bound);
}
