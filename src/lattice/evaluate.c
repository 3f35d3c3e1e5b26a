/* One-shot evaluation: world to parameters, F and its Jacobian at parameter
 * points, and deformation of world points with their normals. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lattice/lattice_internal.h"

void sn_lat_contract(const sinew_lattice *lat, const sn_lat_basis b[3], double disp[3], double *grad)
{
    const uint32_t ou = lat->axis[0].order, ov = lat->axis[1].order, ow = lat->axis[2].order;
    double d[3] = {0, 0, 0}, g[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (uint32_t k = 0; k < ow; ++k) {
        for (uint32_t j = 0; j < ov; ++j) {
            size_t row = sn_lat_index(lat, b[0].first, b[1].first + j, b[2].first + k);
            /* Contract the row along u first: value and u-derivative. */
            double rv[3] = {0, 0, 0}, ru[3] = {0, 0, 0};
            for (uint32_t i = 0; i < ou; ++i)
                for (int c = 0; c < 3; ++c) {
                    double x = (double)lat->disp[c][row + i];
                    rv[c] += b[0].value[i] * x;
                    if (grad) ru[c] += b[0].deriv[i] * x;
                }
            double wvw = b[1].value[j] * b[2].value[k];
            for (int c = 0; c < 3; ++c) d[c] += wvw * rv[c];
            if (grad) {
                double wdv = b[1].deriv[j] * b[2].value[k], wdw = b[1].value[j] * b[2].deriv[k];
                for (int c = 0; c < 3; ++c) {
                    g[c] += wvw * ru[c];
                    g[3 + c] += wdv * rv[c];
                    g[6 + c] += wdw * rv[c];
                }
            }
        }
    }
    memcpy(disp, d, sizeof d);
    if (grad) memcpy(grad, g, sizeof g);
}

void sn_lat_displacement(const sinew_lattice *lat, const double u[3], double d[3])
{
    sn_lat_basis b[3];
    bool leave = false;
    for (int a = 0; a < 3; ++a) {
        sn_lat_axis_basis(lat, a, u[a], false, &b[a]);
        leave |= b[a].leave;
    }
    d[0] = d[1] = d[2] = 0.0;
    if (!leave) sn_lat_contract(lat, b, d, NULL);
}

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

/* An output written at element indices [0, end): see sn_check_float_array. */
static sinew_result check_out(const float *out, size_t stride, size_t floats, size_t end, const char *what)
{
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", what);
    return sn_check_float_array(out, stride, floats, end, what);
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

static double max_abs3(const double x[3])
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
    sinew_result r = sn_lat_check_fits(max_abs3(u), what, i, "parameter");
    if (r == SINEW_OK) r = sn_lat_check_fits(basis, what, i, "basis value");
    if (r == SINEW_OK) r = sn_lat_check_fits((world ? max_abs3(p) : box_reach(lat, u)) + value, what, i, "position");
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
    const double limit = (double)FLT_MAX / (1.0 + 1e-6);
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

/* Whether every point of the range is finite and provably gives positions
 * that fit a float (one vector pass; false = look at each point). */
static bool all_fit(const sinew_lattice *lat, const sinew_points *in, bool world, size_t first, size_t count)
{
    const size_t stride = sn_stride(in->stride, 3 * sizeof(float));
    return lat->all_fit && lat->all_fit(lat, (const char *)sn_point(in, first), stride, count, world);
}

/* Proves every output of points [first, first + count) fits a float before
 * anything is written. want: 0 = parameters only, 1 = positions, 2 = positions
 * and jacobians. */
static sinew_result check_outputs_fit(const sinew_lattice *lat, const sinew_points *in, bool world, int want,
                                      size_t first, size_t count, const char *what)
{
    const bool inside_fit = want == 0 || sn_lat_inside_points_fit(lat, want == 2);
    for (size_t i = first; i < first + count; ++i) {
        const float *q = sn_point(in, i);
        double p[3] = {q[0], q[1], q[2]}, u[3];
        if (world) sn_lat_params(lat, p, u);
        else memcpy(u, p, sizeof u);
        if (inside_fit && sn_lat_inside_box(u)) continue;
        sinew_result r = want == 0 ? sn_lat_check_fits(max_abs3(u), what, i, "parameter")
                                   : sn_lat_check_point_fits(lat, p, world, want == 2, what, i);
        if (r != SINEW_OK) return r;
    }
    return SINEW_OK;
}

static float *out_at(float *base, size_t stride, size_t floats, size_t i)
{
    return (float *)((char *)base + i * sn_stride(stride, floats * sizeof(float)));
}

sinew_result sinew_lattice_parameters(const sinew_lattice *lattice, const sinew_points *world, float *out,
                                      size_t out_stride, size_t first, size_t count)
{
    sn_clear_error();
    if (!lattice) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "lattice is NULL");
    sinew_result r = sn_lat_check_range(world, "world point", first, count);
    if (r == SINEW_OK && count) r = check_out(out, out_stride, 3, first + count, "parameter output");
    if (r == SINEW_OK) r = check_outputs_fit(lattice, world, true, 0, first, count, "world point");
    if (r != SINEW_OK) return r;
    for (size_t i = first; i < first + count; ++i) {
        const float *q = sn_point(world, i);
        double p[3] = {q[0], q[1], q[2]}, u[3];
        sn_lat_params(lattice, p, u);
        float *o = out_at(out, out_stride, 3, i);
        for (int a = 0; a < 3; ++a) o[a] = (float)u[a];
    }
    return SINEW_OK;
}

/* dF/du at parameters u: frame + dD/du. */
static void jacobian_one(const sinew_lattice *lat, const double u[3], double jac[9])
{
    sn_lat_basis b[3];
    bool leave = false;
    for (int a = 0; a < 3; ++a) {
        sn_lat_axis_basis(lat, a, u[a], true, &b[a]);
        leave |= b[a].leave;
    }
    double d[3], g[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    if (!leave) sn_lat_contract(lat, b, d, g);
    for (int e = 0; e < 9; ++e) jac[e] = lat->frame[e] + g[e];
}

sinew_result sinew_lattice_evaluate(const sinew_lattice *lattice, const sinew_points *params, float *positions,
                                    size_t position_stride, float *jacobians, size_t jacobian_stride, size_t first,
                                    size_t count)
{
    sn_clear_error();
    if (!lattice) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "lattice is NULL");
    sinew_result r = sn_lat_check_view(params, "parameter point", first, count);
    if (r != SINEW_OK) return r;
    const bool clean = count > 0 && !jacobians && all_fit(lattice, params, false, first, count);
    if (!clean && (r = sn_lat_check_finite(params, "parameter point", first, count)) != SINEW_OK) return r;
    if (!positions && !jacobians)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "both outputs (positions and jacobians) are NULL");
    if (positions && (r = check_out(positions, position_stride, 3, first + count, "position output")) != SINEW_OK)
        return r;
    if (jacobians && (r = check_out(jacobians, jacobian_stride, 9, first + count, "jacobian output")) != SINEW_OK)
        return r;
    if (!clean) r = check_outputs_fit(lattice, params, false, jacobians ? 2 : 1, first, count, "parameter point");
    if (r != SINEW_OK) return r;
    for (size_t i = first; jacobians && i < first + count; ++i) {
        const float *q = sn_point(params, i);
        double u[3] = {q[0], q[1], q[2]}, jac[9];
        jacobian_one(lattice, u, jac);
        float *o = out_at(jacobians, jacobian_stride, 9, i);
        for (int e = 0; e < 9; ++e) o[e] = (float)jac[e];
    }
    /* Positions by the one-shot deform machinery in parameter space, whatever
     * else is asked: the same bits as deform, binding and placement give. */
    if (positions)
        sn_lat_deform_points(lattice, params, false, positions, sn_stride(position_stride, 3 * sizeof(float)), first,
                             count);
    return SINEW_OK;
}

void sn_lat_world_jacobian(const sinew_lattice *lat, const double grad[9], double jac[9])
{
    /* d(p + D(u(p)))/dp = I + dD/du * frame^-1. */
    for (int col = 0; col < 3; ++col)
        for (int row = 0; row < 3; ++row) {
            double s = col == row ? 1.0 : 0.0;
            for (int a = 0; a < 3; ++a) s += grad[3 * a + row] * lat->inverse[3 * col + a];
            jac[3 * col + row] = s;
        }
}

sinew_result sinew_lattice_deform(const sinew_lattice *lattice, const sinew_points *points,
                                  const sinew_points *normals, float *out_points, size_t out_stride,
                                  float *out_normals, size_t out_normal_stride, size_t first, size_t count)
{
    sn_clear_error();
    if (!lattice) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "lattice is NULL");
    sinew_result r = sn_lat_check_view(points, "point", first, count);
    if (r != SINEW_OK) return r;
    /* One vector pass proves the common case (every point finite, every
     * output within the float range); otherwise every point is looked at. */
    const bool clean = count > 0 && all_fit(lattice, points, true, first, count);
    if (!clean && (r = sn_lat_check_finite(points, "point", first, count)) != SINEW_OK) return r;
    if ((r = check_out(out_points, out_stride, 3, first + count, "point output")) != SINEW_OK) return r;
    if (normals) {
        if (normals->count != points->count)
            return sn_fail(SINEW_ERROR_MISMATCH, "%zu normals for %zu points", normals->count, points->count);
        if ((r = sn_lat_check_range(normals, "normal", first, count)) != SINEW_OK) return r;
        if ((r = check_out(out_normals, out_normal_stride, 3, first + count, "normal output")) != SINEW_OK) return r;
    } else if (out_normals) {
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "normal output given without input normals");
    }
    if (!clean && (r = check_outputs_fit(lattice, points, true, 1, first, count, "point")) != SINEW_OK) return r;
    /* Normals first: they read the points, which out_points may overwrite. */
    for (size_t i = first; normals && i < first + count; ++i) {
        const float *q = sn_point(points, i);
        double p[3] = {q[0], q[1], q[2]}, u[3];
        float n[3];
        memcpy(n, sn_point(normals, i), sizeof n);
        sn_lat_params(lattice, p, u);
        sn_lat_basis b[3];
        bool leave = false;
        for (int a = 0; a < 3; ++a) {
            sn_lat_axis_basis(lattice, a, u[a], true, &b[a]);
            leave |= b[a].leave;
        }
        double d[3], g[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, jac[9];
        if (!leave) sn_lat_contract(lattice, b, d, g);
        sn_lat_world_jacobian(lattice, g, jac);
        sn_transform_normal(jac, n, out_at(out_normals, out_normal_stride, 3, i));
    }
    /* Positions by the one-shot machinery whether or not normals are asked
     * for: the same bits either way. */
    sn_lat_deform_points(lattice, points, true, out_points, sn_stride(out_stride, 3 * sizeof(float)), first, count);
    return SINEW_OK;
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
    if (bound * (1.0 + 1e-6) <= (double)FLT_MAX) return SINEW_OK;
    return sn_fail(SINEW_ERROR_NON_FINITE, "%s %zu would give a %s beyond the float range (bound %g)", what, i,
                   output, bound);
}
