/* The placement handle: queries, and rebuilding the lattice's control points
 * from the contact columns and the heights above them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lattice/placement/placement_internal.h"

void sn_place_restore_lattice(sinew_placement *p)
{
    char kept[SN_MESSAGE_CAPACITY];
    sn_save_error(kept);
    sn_place_update_lattice(p, false);
    sn_restore_error(kept);
}

sinew_result sn_place_update_lattice(sinew_placement *p, bool recompute_normals)
{
    const uint32_t cu = p->count[0], cv = p->count[1], cw = p->count[2];
    const size_t columns = (size_t)cu * cv;
    sinew_result r;
    if (recompute_normals) {
        /* Only the contact layer matters for F(u, v, 0) and its u, v
         * derivatives (clamped knots interpolate the boundary), so every layer
         * may hold the contact point while the normals are read. */
        for (size_t c = 0; c < columns; ++c)
            for (uint32_t k = 0; k < cw; ++k)
                for (int a = 0; a < 3; ++a)
                    p->points[3 * (c + columns * k) + a] = p->hit[3 * c + a] + p->lift[c] * p->dof[3 * c + a];
        sinew_points all = {p->points, columns * cw, 0};
        if ((r = sinew_lattice_set_points(p->lattice, &all, 0, all.count))) return r;
        for (uint32_t j = 0; j < cv; ++j)
            for (uint32_t i = 0; i < cu; ++i) {
                float *q = &p->params[3 * (i + (size_t)cu * j)];
                q[0] = (float)p->greville[0][i], q[1] = (float)p->greville[1][j], q[2] = 0.0f;
            }
        sinew_points params = {p->params, columns, 0};
        if ((r = sinew_lattice_evaluate(p->lattice, &params, NULL, 0, p->jacobians, 0, 0, columns))) return r;
        for (size_t c = 0; c < columns; ++c) {
            const float *fu = &p->jacobians[9 * c], *fv = fu + 3;
            double n[3] = {(double)fu[1] * fv[2] - (double)fu[2] * fv[1], (double)fu[2] * fv[0] - (double)fu[0] * fv[2],
                           (double)fu[0] * fv[1] - (double)fu[1] * fv[0]};
            double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            /* A degenerate spot of the surface keeps its previous direction. */
            if (!(len > 0.0) || !isfinite(len)) continue;
            for (int a = 0; a < 3; ++a) p->layer_dir[3 * c + a] = (float)(n[a] / len);
        }
    }
    sn_place_layer_points(p);
    sinew_points all = {p->points, columns * cw, 0};
    return sinew_lattice_set_points(p->lattice, &all, 0, all.count);
}

void sn_place_layer_points(sinew_placement *p)
{
    const size_t columns = (size_t)p->count[0] * p->count[1];
    for (size_t c = 0; c < columns; ++c) {
        float base[3];
        for (int a = 0; a < 3; ++a) base[a] = p->hit[3 * c + a] + p->lift[c] * p->dof[3 * c + a];
        for (uint32_t k = 0; k < p->count[2]; ++k) {
            size_t idx = c + columns * k;
            for (int a = 0; a < 3; ++a) p->points[3 * idx + a] = base[a] + p->height[idx] * p->layer_dir[3 * c + a];
        }
    }
}

sinew_result sinew_placement_get_info(const sinew_placement *placement, sinew_placement_info *info)
{
    /* Leaves the thread's message alone: it is read after a failure (api.md). */
    if (!placement) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "placement is NULL");
    if (sn_check_struct_out(info, "placement info") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_placement_info i;
    memset(&i, 0, sizeof i);
    memcpy(i.count, placement->count, sizeof i.count);
    i.rays_cast = placement->rays_cast;
    i.misses = placement->misses;
    i.path_length = placement->path_length;
    i.contact_length = placement->contact_length;
    i.max_width = placement->max_width;
    i.max_height = placement->max_height;
    for (int a = 0; a < 3; ++a) i.up[a] = (float)placement->up[a];
    i.volume = placement->volume;
    sinew_lattice_info lattice_info;
    SINEW_INIT(&lattice_info);
    sinew_lattice_get_info(placement->lattice, &lattice_info);
    i.memory_bytes = placement->held_bytes + lattice_info.memory_bytes;
    sn_write_struct(info, &i, sizeof i);
    return SINEW_OK;
}

const sinew_lattice *sinew_placement_lattice(const sinew_placement *placement)
{
    return placement ? placement->lattice : NULL;
}

/* Shared checks of the per-column getters. */
static sinew_result check_columns(const sinew_placement *p, const float *out, size_t stride, size_t packed,
                                  size_t first, size_t count, const char *what)
{
    if (!p) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "placement is NULL");
    if (!out && count) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s output is NULL", what);
    size_t columns = (size_t)p->count[0] * p->count[1];
    if (first > columns || count > columns - first)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "%s range [%zu, %zu + %zu) is past the %zu contact columns",
                       what, first, first, count, columns);
    char name[32];
    snprintf(name, sizeof name, "%s output", what);
    /* Column c goes to out + c * stride: the span reaches column first + count - 1. */
    return sn_check_float_array(out, stride, packed / sizeof(float), count ? first + count : 0, name);
}

sinew_result sinew_placement_directions(const sinew_placement *placement, float *out, size_t stride, size_t first,
                                        size_t count)
{
    sn_clear_error();
    sinew_result r = check_columns(placement, out, stride, 3 * sizeof(float), first, count, "direction");
    if (r) return r;
    stride = sn_stride(stride, 3 * sizeof(float));
    for (size_t c = first; c < first + count; ++c)
        memcpy((char *)out + c * stride, &placement->dof[3 * c], 3 * sizeof(float));
    return SINEW_OK;
}

sinew_result sinew_placement_lifts(const sinew_placement *placement, float *out, size_t stride, size_t first,
                                   size_t count)
{
    sn_clear_error();
    sinew_result r = check_columns(placement, out, stride, sizeof(float), first, count, "lift");
    if (r) return r;
    stride = sn_stride(stride, sizeof(float));
    for (size_t c = first; c < first + count; ++c) memcpy((char *)out + c * stride, &placement->lift[c], sizeof(float));
    return SINEW_OK;
}
