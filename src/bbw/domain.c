/*
 * The given domain: a triangle (2D) or tet (3D) mesh, validated and copied,
 * and the checks every domain passes (the automatic volume is volume.c's).
 */
#include <math.h>
#include <string.h>

#include "bbw/bbw_internal.h"

static double box_diagonal(const double *pos, size_t n)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a) {
            if (pos[3 * i + a] < lo[a]) lo[a] = pos[3 * i + a];
            if (pos[3 * i + a] > hi[a]) hi[a] = pos[3 * i + a];
        }
    double d2 = 0.0;
    for (int a = 0; a < 3; ++a) d2 += (hi[a] - lo[a]) * (hi[a] - lo[a]);
    return sqrt(d2);
}

sinew_result sn_bbw_domain_from_mesh(sinew_bbw *b, const sinew_bbw_desc *desc)
{
    const sinew_points *pts = desc->triangles ? &desc->triangles->positions : &desc->tets->positions;
    const void *idx = desc->triangles ? desc->triangles->indices : desc->tets->indices;
    sinew_index_type type = desc->triangles ? desc->triangles->index_type : desc->tets->index_type;
    size_t stride = desc->triangles ? desc->triangles->index_stride : desc->tets->index_stride;
    size_t ec = desc->triangles ? desc->triangles->triangle_count : desc->tets->tet_count;
    const char *noun = desc->triangles ? "triangle" : "tet";
    b->dim = desc->triangles ? 2 : 3;
    b->per = b->dim + 1;
    if (pts->count == 0 || ec == 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "the domain has %zu vertices and %zu %ss", pts->count, ec, noun);
    if (!idx) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "the domain's %s indices are NULL", noun);
    if (pts->count > UINT32_MAX) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "more than 2^32 domain vertices");
    sinew_result r = sn_check_points(pts, "domain vertex");
    if (r != SINEW_OK) return r;
    r = sn_check_index_view(idx, type, stride, ec, b->per, pts->count, noun);
    if (r != SINEW_OK) return r;
    const size_t total = ec * b->per; /* fits: checked with its byte size above */
    b->positions = sn_alloc_array(&b->env, pts->count, 3 * sizeof(double), "domain positions");
    b->elements = sn_alloc_array(&b->env, total, sizeof(uint32_t), "domain elements");
    if (!b->positions || !b->elements) return sn_alloc_failure();
    b->vertex_count = pts->count;
    b->element_count = ec;
    for (size_t i = 0; i < pts->count; ++i) {
        const float *p = sn_point(pts, i);
        b->positions[3 * i] = p[0];
        b->positions[3 * i + 1] = p[1];
        b->positions[3 * i + 2] = b->dim == 3 ? p[2] : 0.0;
    }
    for (size_t i = 0; i < total; ++i) b->elements[i] = sn_index_at(idx, type, stride, b->per, i / b->per, i % b->per);
    return sn_bbw_check_domain(b, "");
}

sinew_result sn_bbw_check_domain(sinew_bbw *b, const char *prefix)
{
    b->scale = box_diagonal(b->positions, b->vertex_count);
    if (!(b->scale > 0.0)) return sn_fail(SINEW_ERROR_DEGENERATE, "%sthe domain's vertices all coincide", prefix);
    /* Zero measure is judged relative to the model's size. Real tet meshes
     * carry slivers of 1e-11 of the box volume, so only far smaller counts
     * as zero. */
    double tiny = 1e-14 * (b->dim == 2 ? b->scale * b->scale : b->scale * b->scale * b->scale);
    for (size_t e = 0; e < b->element_count; ++e) {
        const uint32_t *v = b->elements + e * b->per;
        const double *p0 = b->positions + 3 * (size_t)v[0];
        const double *p1 = b->positions + 3 * (size_t)v[1];
        const double *p2 = b->positions + 3 * (size_t)v[2];
        double u[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        double w[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        if (b->dim == 2) {
            double area = 0.5 * (u[0] * w[1] - u[1] * w[0]);
            if (fabs(area) <= tiny)
                return sn_fail(SINEW_ERROR_DEGENERATE, "%striangle %zu (vertices %u, %u, %u) has zero area", prefix, e,
                               v[0], v[1], v[2]);
        } else {
            const double *p3 = b->positions + 3 * (size_t)v[3];
            double t[3] = {p3[0] - p0[0], p3[1] - p0[1], p3[2] - p0[2]};
            double vol = (u[0] * (w[1] * t[2] - w[2] * t[1]) - u[1] * (w[0] * t[2] - w[2] * t[0]) +
                          u[2] * (w[0] * t[1] - w[1] * t[0])) / 6.0;
            if (fabs(vol) <= tiny)
                return sn_fail(SINEW_ERROR_DEGENERATE, "%stet %zu (vertices %u, %u, %u, %u) has zero volume", prefix, e,
                               v[0], v[1], v[2], v[3]);
            if (vol < 0.0)
                return sn_fail(SINEW_ERROR_DEGENERATE, "%stet %zu is inverted (signed volume %g)", prefix, e, vol);
        }
    }
    return SINEW_OK;
}
