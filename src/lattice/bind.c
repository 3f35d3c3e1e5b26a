/* Bound deformation (the binding handle): spans and basis values computed
 * once per point, by the fillers one-shot deformation uses (oneshot.c), then
 * a contraction with the current displacements every frame by the record
 * kernels (kernels.c). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lattice/deform_kernels.h"
#include "lattice/lattice_defaults.h"
#include "lattice/lattice_internal.h"

static sinew_result check_bind_desc(const sinew_lattice *lat, const sinew_lattice_binding_desc *d)
{
    if ((unsigned)d->space > SINEW_LATTICE_SPACE_PARAMETER)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "unknown bind space %d", (int)d->space);
    if (d->points.count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "no points to bind");
    sinew_result r = sn_check_points(&d->points, "bound point");
    if (r != SINEW_OK) return r;
    if (d->normals.count != 0) {
        if (d->normals.count != d->points.count)
            return sn_fail(SINEW_ERROR_MISMATCH, "%zu normals for %zu points", d->normals.count, d->points.count);
        if ((r = sn_check_points(&d->normals, "bound normal")) != SINEW_OK) return r;
    }
    if (lat->point_count >= SN_LAT_LEAVE)
        return sn_fail(SINEW_ERROR_UNSUPPORTED, "binding needs a lattice of fewer than %u control points",
                       SN_LAT_LEAVE);
    return SINEW_OK;
}

/* Writes the basis derivatives of point q (given in `space`) after the basis
 * values of its record, in the cells the record's values come from. */
static void fill_derivatives(const sinew_lattice *lat, const float *q, sinew_lattice_space space, float *rec)
{
    double u[3], base[3];
    sn_lat_point(lat, q, space == SINEW_LATTICE_SPACE_WORLD, u, base);
    float *v = rec + 4 + lat->axis[0].order + lat->axis[1].order + lat->axis[2].order;
    for (int a = 0; a < 3; ++a) {
        double deriv[SN_LAT_MAX_ORDER];
        sn_lat_uniform_derivs(lat, a, u[a], deriv);
        for (uint32_t k = 0; k < lat->axis[a].order; ++k) *v++ = (float)deriv[k];
    }
}

sinew_result sinew_lattice_binding_create(sinew_context *ctx, const sinew_lattice *lattice,
                                          const sinew_lattice_binding_desc *caller_desc, sinew_lattice_binding **out)
{
    sn_clear_error();
    if (!lattice || !out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", !lattice ? "lattice" : "out");
    sinew_lattice_binding_desc local;
    sinew_result r = sn_read_struct(&local, sizeof local, caller_desc, "desc");
    if (r != SINEW_OK) return r;
    const sinew_lattice_binding_desc *desc = &local;
    r = check_bind_desc(lattice, desc);
    if (r != SINEW_OK) return r;
    const bool with_normals = desc->normals.count != 0;
    const size_t n = desc->points.count;
    uint32_t order[3] = {lattice->axis[0].order, lattice->axis[1].order, lattice->axis[2].order};
    const size_t rec = sn_lat_record_floats(order, with_normals);
    size_t rec_bytes;
    if (!sn_mul_size(rec, sizeof(float), &rec_bytes) || !sn_mul_size(rec_bytes, n, &rec_bytes))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "binding of %zu points is too large", n);

    sn_env env;
    sn_env_from_context(&env, ctx);
    sinew_lattice_binding *b = (sinew_lattice_binding *)sn_calloc(&env, sizeof *b, "lattice binding");
    if (b) {
        b->held_bytes = sizeof *b;
        env.held = &b->held_bytes;
    }
    if (!b) return sn_alloc_failure();
    b->env = sn_env_kept(&env);
    /* Zeroed: the padding of every record is saved as it is. */
    b->records = (float *)sn_calloc(&env, rec_bytes, "lattice binding records");
    if (b->records && with_normals) b->normals = (float *)sn_alloc_array(&env, n, 3 * sizeof(float), "bound normals");
    const bool cubic = order[0] == 4 && order[1] == 4 && order[2] == 4;
    if (b->records && (b->normals || !with_normals) && cubic)
        b->cells = (uint32_t *)sn_alloc_array(&env, n, sizeof(uint32_t), "bound cells");
    if (!b->records || (with_normals && !b->normals) || (cubic && !b->cells)) {
        r = sn_alloc_failure();
        sinew_lattice_binding_destroy(b);
        return r;
    }
    b->count = n;
    b->record = rec;
    b->space = desc->space;
    b->outside = lattice->outside;
    for (int a = 0; a < 3; ++a) {
        b->axis_count[a] = lattice->axis[a].count;
        b->order[a] = order[a];
        b->origin[a] = lattice->origin[a];
    }
    memcpy(b->frame, lattice->frame, sizeof b->frame);

    const bool world = desc->space == SINEW_LATTICE_SPACE_WORLD;
    for (size_t i = 0; i < n; ++i) {
        if ((i & 0xffff) == 0 && (r = sn_progress(&env, "lattice: bind", (float)i / (float)n)) != SINEW_OK) {
            sinew_lattice_binding_destroy(b);
            return r;
        }
        double u[3], p[3], value, deriv, basis, base = 0.0;
        sn_lat_point(lattice, sn_point(&desc->points, i), world, u, p);
        sn_lat_disp_bounds(lattice, u, &value, &deriv, &basis);
        for (int c = 0; c < 3; ++c) base = fmax(base, fabs(sn_round_to_float(p[c])));
        /* Far outside an EXTEND lattice the basis values themselves leave
         * the float range. */
        if ((r = sn_lat_check_fits(base, "bound point", i, "base position")) != SINEW_OK ||
            (r = sn_lat_check_fits(basis, "bound point", i, "basis value")) != SINEW_OK) {
            sinew_lattice_binding_destroy(b);
            return r;
        }
        b->base_bound = fmax(b->base_bound, base);
        b->basis_bound = fmax(b->basis_bound, basis);
    }
    /* The records one-shot deformation builds for the same points, so bound
     * and one-shot positions are the same bits. */
    sn_lat_fill_records(lattice, (const char *)desc->points.data, sn_stride(desc->points.stride, 3 * sizeof(float)), n,
                        world, b->records, rec, b->cells);
    if (with_normals)
        for (size_t i = 0; i < n; ++i) {
            fill_derivatives(lattice, sn_point(&desc->points, i), desc->space, b->records + i * rec);
            memcpy(b->normals + 3 * i, sn_point(&desc->normals, i), 3 * sizeof(float));
        }
    *out = b;
    return SINEW_OK;
}

void sinew_lattice_binding_destroy(sinew_lattice_binding *binding)
{
    if (!binding) return;
    sn_env env = binding->env;
    sn_free(&env, binding->records);
    sn_free(&env, binding->normals);
    sn_free(&env, binding->cells);
    sn_free(&env, binding);
}

size_t sinew_lattice_binding_count(const sinew_lattice_binding *binding)
{
    return binding ? binding->count : 0;
}

sinew_result sinew_lattice_binding_get_info(const sinew_lattice_binding *binding, sinew_lattice_binding_info *info)
{
    /* Leaves the thread's message alone: it is read after a failure (api.md). */
    if (!binding) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "binding is NULL");
    if (sn_check_struct_out(info, "info") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_lattice_binding_info i;
    memset(&i, 0, sizeof i);
    i.point_count = binding->count;
    i.has_normals = binding->normals != NULL;
    i.space = binding->space;
    i.memory_bytes = binding->held_bytes;
    sn_write_struct(info, &i, sizeof i);
    return SINEW_OK;
}

static bool same_structure(const sinew_lattice_binding *b, const sinew_lattice *lat)
{
    for (int a = 0; a < 3; ++a)
        if (b->axis_count[a] != lat->axis[a].count || b->order[a] != lat->axis[a].order ||
            b->origin[a] != lat->origin[a])
            return false;
    return b->outside == lat->outside && memcmp(b->frame, lat->frame, sizeof b->frame) == 0;
}

sinew_result sinew_lattice_binding_deform(const sinew_lattice_binding *binding, const sinew_lattice *lattice,
                                          float *out_points, size_t out_stride, float *out_normals,
                                          size_t out_normal_stride, size_t first, size_t count)
{
    sn_clear_error();
    if (!binding || !lattice || !out_points)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL",
                       !binding ? "binding" : !lattice ? "lattice" : "point output");
    if (first > binding->count || count > binding->count - first)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "range %zu + %zu goes past the %zu bound points", first,
                       count, binding->count);
    sinew_result r = sn_check_float_array(out_points, out_stride, 3, first + count, "point output");
    if (r == SINEW_OK && out_normals)
        r = sn_check_float_array(out_normals, out_normal_stride, 3, first + count, "normal output");
    if (r != SINEW_OK) return r;
    if (!same_structure(binding, lattice))
        return sn_fail(SINEW_ERROR_MISMATCH, "the lattice's counts, orders, box or outside policy differ from "
                       "the ones bound");
    if (out_normals && !binding->normals)
        return sn_fail(SINEW_ERROR_INVALID_STATE, "normals asked of a binding made without normals");
    /* O(1) proof that no output (nor partial sum) leaves the float range. */
    const double reach = binding->base_bound + lattice->disp_bound * binding->basis_bound;
    if (!(reach * (1.0 + SN_LAT_FLOAT_MARGIN) <= (double)FLT_MAX))
        return sn_fail(SINEW_ERROR_NON_FINITE,
                       "bound points (coordinates up to %g) under displacements up to %g could deform beyond the "
                       "float range", binding->base_bound, lattice->disp_bound);
    const size_t stride = sn_stride(out_stride, 3 * sizeof(float));
    const size_t nstride = sn_stride(out_normal_stride, 3 * sizeof(float));

    if (!out_normals) {
        sn_lat_deform_records(lattice, binding->records, binding->record, binding->cells, out_points, stride, first,
                              count);
        return SINEW_OK;
    }
    /* J = A + dD/du K: A = I, K = frame^-1 for world points; A = frame, K = I
     * for parameter points. */
    const bool world = binding->space == SINEW_LATTICE_SPACE_WORLD;
    for (size_t i = first; i < first + count; ++i) {
        const float *r = binding->records + i * binding->record;
        uint32_t idx;
        memcpy(&idx, r + 3, sizeof idx);
        float d[3] = {0, 0, 0}, g[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
        if (idx != SN_LAT_LEAVE) sn_lat_contract_record(lattice, r, idx, d, g);
        float n[3];
        memcpy(n, binding->normals + 3 * i, sizeof n);
        double grad[9], jac[9];
        for (int e = 0; e < 9; ++e) grad[e] = g[e];
        if (world) {
            sn_lat_world_jacobian(lattice, grad, jac);
        } else {
            for (int e = 0; e < 9; ++e) jac[e] = lattice->frame[e] + grad[e];
        }
        sn_transform_normal(jac, n, (float *)((char *)out_normals + i * nstride));
    }
    /* Positions through the kernel that serves positions alone: asking for
     * normals does not change a bit of them. */
    sn_lat_deform_records(lattice, binding->records, binding->record, binding->cells, out_points, stride, first,
                          count);
    return SINEW_OK;
}
