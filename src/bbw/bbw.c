/*
 * sinew_bbw lifecycle: create (domain, operators, constraints), destroy,
 * info and the domain accessors.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "bbw/bbw_internal.h"
#include "bbw/defaults.h"

double sn_bbw_seconds(void)
{
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC) return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sinew_bbw_destroy(sinew_bbw *b)
{
    if (!b) return;
    sn_env env = b->env;
    sn_free(&env, b->positions);
    sn_free(&env, b->elements);
    sn_sparse_free(&env, &b->stiffness);
    sn_free(&env, b->mass);
    sn_free(&env, b->state);
    sn_free(&env, b->fixed);
    sn_free(&env, b->weights);
    sn_bbw_locator_free(b);
    sn_bbw_source_free(&env, b->source);
    sn_free(&env, b);
}

static sinew_result count_handles(const sinew_bbw_desc *d, size_t *m)
{
    if (d->points.count && !d->points.data)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%zu point handles but points.data is NULL", d->points.count);
    if (d->bone_count && (!d->bones || !d->joint_positions.data))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%zu bones but bones or joint_positions.data is NULL",
                       d->bone_count);
    if (d->cage_count && !d->cages)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%zu cages but cages is NULL", d->cage_count);
    sinew_result r = sn_check_float_array(d->points.data, d->points.stride, 3, d->points.count, "point handles");
    if (r == SINEW_OK && d->bone_count)
        r = sn_check_float_array(d->joint_positions.data, d->joint_positions.stride, 3, d->joint_positions.count,
                                 "joint positions");
    if (r != SINEW_OK) return r;
    size_t cage_bytes;
    if (!sn_mul_size(d->cage_count, sizeof *d->cages, &cage_bytes))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%zu cages overflow", d->cage_count);
    size_t total = d->points.count;
    if (!sn_add_size(total, d->bone_count, &total)) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "too many handles");
    for (size_t c = 0; c < d->cage_count; ++c)
        if (!sn_add_size(total, d->cages[c].vertices.count, &total))
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "too many handles");
    if (total == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "no handles: give points, bones or cages");
    if (total > UINT32_MAX) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%zu handles exceed 2^32", total);
    *m = total;
    return SINEW_OK;
}

sinew_result sinew_bbw_create(sinew_context *ctx, const sinew_bbw_desc *caller_desc, sinew_bbw **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out is NULL");
    sinew_bbw_desc local;
    sinew_result r = sn_read_struct(&local, sizeof local, caller_desc, "desc");
    if (r != SINEW_OK) return r;
    const sinew_bbw_desc *desc = &local;
    int domains = (desc->triangles != NULL) + (desc->tets != NULL) + (desc->surface != NULL);
    if (domains != 1)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                       "give exactly one domain (triangles, tets or surface); %d given", domains);
    if (!(desc->handle_tolerance >= 0.0f) || !isfinite(desc->handle_tolerance))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "handle tolerance %g is not a finite value >= 0",
                       (double)desc->handle_tolerance);
    if (desc->point_placement > SINEW_BBW_PLACE_MOVE_VERTEX)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "point placement %u is not a sinew_bbw_placement",
                       desc->point_placement);
    if (desc->handle_outside > SINEW_BBW_OUTSIDE_REFUSE)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "handle outside %u is not a sinew_bbw_outside",
                       desc->handle_outside);
    if (desc->volume_flags & ~SINEW_BBW_VOLUME_UNIFORM)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "volume flags 0x%x: only SINEW_BBW_VOLUME_UNIFORM (0x1) exists",
                       desc->volume_flags);
    size_t m = 0;
    r = count_handles(desc, &m);
    if (r != SINEW_OK) return r;
    sn_env env;
    sn_env_from_context(&env, ctx);
    sinew_bbw *b = sn_calloc(&env, sizeof *b, "bbw handle");
    if (!b) return sn_alloc_failure();
    b->held_bytes = sizeof *b;
    env.held = &b->held_bytes;
    b->env = env;   /* with progress while creating; kept without it (below) */
    b->handle_count = m;
    double t0 = sn_bbw_seconds(), cell = 0.0;
    if (desc->surface) r = sn_bbw_domain_from_surface(b, desc, &cell);
    else r = sn_bbw_domain_from_mesh(b, desc);
    if (r != SINEW_OK) goto fail;
    double t1 = sn_bbw_seconds();
    if ((r = sn_progress(&b->env, "bbw: operators", 0.0f)) != SINEW_OK) goto fail;
    b->mass = sn_alloc_array(&b->env, b->vertex_count, sizeof(double), "lumped mass");
    if (!b->mass) {
        r = sn_alloc_failure();
        goto fail;
    }
    if ((r = sn_bbw_stiffness(b, NULL, &b->stiffness, b->mass)) != SINEW_OK) goto fail;
    if ((r = sn_bbw_locator_build(b)) != SINEW_OK) goto fail;
    /* Points just outside the domain (surface vertices around a voxel
     * volume, rounding at a boundary) still get weights within a few
     * locator cells or two voxels. */
    b->reach = fmax(3.0 * b->locator.cell, 2.0 * cell);
    double tol = (desc->handle_tolerance > 0 ? desc->handle_tolerance : SN_BBW_DEFAULT_HANDLE_TOLERANCE) * b->scale;
    if (desc->surface) tol = fmax(tol, cell);
    if ((r = sn_progress(&b->env, "bbw: handles", 0.0f)) != SINEW_OK) goto fail;
    if ((r = sn_bbw_constrain(b, desc, tol)) != SINEW_OK) goto fail;
    if ((r = sn_bbw_find_unreached(b)) != SINEW_OK) goto fail;
    if (desc->surface && (r = sn_bbw_source_keep(b, desc)) != SINEW_OK) goto fail;
    b->info.vertex_count = b->vertex_count;
    b->info.element_count = b->element_count;
    b->info.handle_count = m;
    b->info.seconds_domain = t1 - t0;
    b->info.seconds_operators = sn_bbw_seconds() - t1;
    b->env = sn_env_kept(&env);
    *out = b;
    return SINEW_OK;
fail:
    sinew_bbw_destroy(b);
    return r;
}

sinew_result sinew_bbw_get_info(const sinew_bbw *b, sinew_bbw_info *info)
{
    /* Leaves the thread's message alone: it is read after a failure (api.md). */
    if (!b) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bbw is NULL");
    if (sn_check_struct_out(info, "info") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_bbw_info i = b->info;
    i.memory_bytes = b->held_bytes;
    sn_write_struct(info, &i, sizeof i);
    return SINEW_OK;
}

static sinew_result check_range(size_t first, size_t count, size_t limit, const char *what)
{
    if (first > limit || count > limit - first)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "%s range [%zu, %zu + %zu) exceeds the %zu available", what,
                       first, first, count, limit);
    return SINEW_OK;
}

sinew_result sinew_bbw_domain_vertices(const sinew_bbw *b, float *out, size_t stride, size_t first, size_t count)
{
    sn_clear_error();
    if (!b || (!out && count)) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", b ? "out" : "bbw");
    sinew_result r = check_range(first, count, b->vertex_count, "domain vertex");
    /* Vertex i goes to out + i * stride: the span reaches vertex first + count - 1. */
    if (r == SINEW_OK) r = sn_check_float_array(out, stride, 3, count ? first + count : 0, "domain vertex output");
    if (r != SINEW_OK) return r;
    size_t step = sn_stride(stride, 3 * sizeof(float));
    for (size_t i = first; i < first + count; ++i) {
        float *p = (float *)((char *)out + i * step);
        for (int a = 0; a < 3; ++a) p[a] = (float)b->positions[3 * i + a];
    }
    return SINEW_OK;
}

sinew_result sinew_bbw_domain_elements(const sinew_bbw *b, uint32_t *out, size_t first, size_t count)
{
    sn_clear_error();
    if (!b || (!out && count)) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", b ? "out" : "bbw");
    sinew_result r = check_range(first, count, b->element_count, "domain element");
    /* uint32_t shares float's size and alignment: the same check applies. */
    if (r == SINEW_OK) r = sn_check_float_array(out, 0, b->per, count ? first + count : 0, "domain element output");
    if (r != SINEW_OK) return r;
    if (count) memcpy(out + first * b->per, b->elements + first * b->per, count * b->per * sizeof(uint32_t));
    return SINEW_OK;
}
