/* The one-shot calls: world to parameters, F and its Jacobian at parameter
 * points, and deformation of world points with their normals. Positions come
 * from the one-shot machinery (oneshot.c), Jacobians and normals from the
 * double-precision core (contract.c). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lattice/lattice_internal.h"

/* An output written at element indices [0, end): see sn_check_float_array. */
static sinew_result check_out(const float *out, size_t stride, size_t floats, size_t end, const char *what)
{
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", what);
    return sn_check_float_array(out, stride, floats, end, what);
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
        sinew_result r = want == 0 ? sn_lat_check_fits(sn_lat_max_abs3(u), what, i, "parameter")
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

