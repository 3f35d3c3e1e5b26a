/* Bound deformation: spans and basis values computed once per point, then a
 * contraction with the current displacements every frame. Kernels, fastest
 * first: AVX2 over the packed cells of a cubic lattice, or AVX2 rows of any
 * order along u (deform_avx2.c); without AVX2, SSE for order 4 along u,
 * reading four neighbouring control points with one load per coordinate; a
 * plain loop for everything else and for normals.
 * One-shot deformation of positions reuses them on records built on the
 * stack (oneshot.c). */
#include <float.h>
#include <math.h>
#include <string.h>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#  include <emmintrin.h>
#  define SN_LAT_SSE 1
#endif

#include "lattice/deform_kernels.h"
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
        for (int c = 0; c < 3; ++c) base = fmax(base, fabs((double)(float)p[c]));
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

/* Generic contraction of one record: displacement, and its derivatives
 * grad[3 * a + c] = dD_c/du_a when grad is not NULL. */
static void contract_record(const sinew_lattice *lat, const float *rec, uint32_t first, float disp[3],
                            float *grad)
{
    const uint32_t ou = lat->axis[0].order, ov = lat->axis[1].order, ow = lat->axis[2].order;
    const size_t nu = lat->axis[0].count, slab = nu * lat->axis[1].count;
    const float *bu = rec + 4, *bv = bu + ou, *bw = bv + ov;
    const float *du = bw + ow, *dv = du + ou, *dw = dv + ov;
    const float *dx = lat->disp[0], *dy = lat->disp[1], *dz = lat->disp[2];
    float d[3] = {0, 0, 0}, g[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (uint32_t k = 0; k < ow; ++k)
        for (uint32_t j = 0; j < ov; ++j) {
            size_t row = first + k * slab + j * nu;
            float rv[3] = {0, 0, 0}, ru[3] = {0, 0, 0};
            for (uint32_t i = 0; i < ou; ++i) {
                rv[0] += bu[i] * dx[row + i];
                rv[1] += bu[i] * dy[row + i];
                rv[2] += bu[i] * dz[row + i];
                if (grad) {
                    ru[0] += du[i] * dx[row + i];
                    ru[1] += du[i] * dy[row + i];
                    ru[2] += du[i] * dz[row + i];
                }
            }
            float w = bv[j] * bw[k];
            for (int c = 0; c < 3; ++c) d[c] += w * rv[c];
            if (grad) {
                float wv = dv[j] * bw[k], ww = bv[j] * dw[k];
                for (int c = 0; c < 3; ++c) {
                    g[c] += w * ru[c];
                    g[3 + c] += wv * rv[c];
                    g[6 + c] += ww * rv[c];
                }
            }
        }
    memcpy(disp, d, sizeof d);
    if (grad) memcpy(grad, g, sizeof g);
}

#ifdef SN_LAT_SSE
/* Positions only, order 4 along u: per (j, k) row, one load of four
 * neighbours per coordinate scaled by bv[j] * bw[k]; the u-basis is applied
 * once at the end. */
static void deform_cubic_u(const sinew_lattice *lat, const float *records, size_t rec, float *out, size_t stride,
                           size_t first, size_t count)
{
    const uint32_t ov = lat->axis[1].order, ow = lat->axis[2].order;
    const size_t nu = lat->axis[0].count, slab = nu * lat->axis[1].count;
    const float *dx = lat->disp[0], *dy = lat->disp[1], *dz = lat->disp[2];
    for (size_t i = first; i < first + count; ++i) {
        const float *r = records + i * rec;
        float *o = (float *)((char *)out + i * stride);
        uint32_t idx;
        if (sn_lat_record_left(r, o, &idx)) continue;
        const float *bv = r + 8, *bw = bv + ov;
        __m128 ax = _mm_setzero_ps(), ay = _mm_setzero_ps(), az = _mm_setzero_ps();
        for (uint32_t k = 0; k < ow; ++k) {
            size_t base = idx + k * slab;
            for (uint32_t j = 0; j < ov; ++j) {
                __m128 w = _mm_set1_ps(bv[j] * bw[k]);
                size_t at = base + j * nu;
                ax = _mm_add_ps(ax, _mm_mul_ps(w, _mm_loadu_ps(dx + at)));
                ay = _mm_add_ps(ay, _mm_mul_ps(w, _mm_loadu_ps(dy + at)));
                az = _mm_add_ps(az, _mm_mul_ps(w, _mm_loadu_ps(dz + at)));
            }
        }
        __m128 bu = _mm_loadu_ps(r + 4);
        ax = _mm_mul_ps(ax, bu);
        ay = _mm_mul_ps(ay, bu);
        az = _mm_mul_ps(az, bu);
        __m128 zero = _mm_setzero_ps();
        _MM_TRANSPOSE4_PS(ax, ay, az, zero);
        __m128 sum = _mm_add_ps(_mm_add_ps(ax, ay), _mm_add_ps(az, zero));
        float s[4];
        _mm_storeu_ps(s, sum);
        o[0] = r[0] + s[0];
        o[1] = r[1] + s[1];
        o[2] = r[2] + s[2];
    }
}
#endif

void sn_lat_deform_records(const sinew_lattice *lat, const float *records, size_t record, const uint32_t *cells,
                           float *out, size_t stride, size_t first, size_t count)
{
    if (lat->kernel && cells) {
        lat->kernel(records, record, cells, lat->packed, out, stride, first, count);
        return;
    }
    if (lat->rows) {
        lat->rows(lat, records, record, out, stride, first, count);
        return;
    }
#ifdef SN_LAT_SSE
    if (lat->sse && lat->axis[0].order == 4) {
        deform_cubic_u(lat, records, record, out, stride, first, count);
        return;
    }
#endif
    for (size_t i = first; i < first + count; ++i) {
        const float *r = records + i * record;
        uint32_t idx;
        memcpy(&idx, r + 3, sizeof idx);
        float d[3] = {0, 0, 0};
        if (idx != SN_LAT_LEAVE) contract_record(lat, r, idx, d, NULL);
        float *o = (float *)((char *)out + i * stride);
        for (int c = 0; c < 3; ++c) o[c] = r[c] + d[c];
    }
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
    if (!(reach * (1.0 + 1e-6) <= (double)FLT_MAX))
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
        if (idx != SN_LAT_LEAVE) contract_record(lattice, r, idx, d, g);
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
