/*
 * The discretised domain: a given triangle (2D) or tet (3D) mesh, validated
 * and copied, or a voxel volume inside a surface with each inside cell split
 * into six tets around its main diagonal (Kuhn/Freudenthal). All six tets of
 * every cell share that diagonal's direction, so neighbouring cells' faces
 * are split the same way and the tet mesh is conforming.
 */
#include <math.h>
#include <string.h>

#include "bbw/bbw_internal.h"
#include "geom/winding.h"

/* Largest accepted grid resolution: beyond it the volume alone outgrows
 * memory long before the solve could finish. */
#define SN_BBW_MAX_RESOLUTION 1024u

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
     * carry slivers of 1e-11 of the box volume (libigl's hand), so only
     * far smaller counts as zero. */
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

/* Corner offsets of the six Kuhn tets: each walks from corner 000 to 111
 * along the three axes in one of the six orders; odd orders swap the last two
 * corners to keep every tet positively oriented. */
static const uint8_t kuhn_tets[6][4] = {
    {0, 1, 3, 7}, /* x, y, z (even) */
    {0, 2, 7, 3}, /* y, x, z (odd) */
    {0, 2, 6, 7}, /* y, z, x (even) */
    {0, 4, 7, 6}, /* z, y, x (odd) */
    {0, 4, 5, 7}, /* z, x, y (even) */
    {0, 1, 7, 5}, /* x, z, y (odd) */
};

sinew_result sn_bbw_domain_from_surface(sinew_bbw *b, const sinew_trimesh *surface, uint32_t resolution,
                                        double *cell_size)
{
    b->dim = 3;
    b->per = 4;
    if (surface->positions.count == 0 || surface->triangle_count == 0 || !surface->indices)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "the surface has %zu vertices and %zu triangles",
                       surface->positions.count, surface->triangle_count);
    if (resolution > SN_BBW_MAX_RESOLUTION)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "grid resolution %u exceeds %u", resolution,
                       SN_BBW_MAX_RESOLUTION);
    if (resolution == 0) resolution = 32;
    sinew_result r = sn_check_points(&surface->positions, "surface vertex");
    if (r != SINEW_OK) return r;
    r = sn_check_index_view(surface->indices, surface->index_type, surface->index_stride, surface->triangle_count, 3,
                            surface->positions.count, "surface triangle");
    if (r != SINEW_OK) return r;

    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < surface->positions.count; ++i) {
        const float *p = sn_point(&surface->positions, i);
        for (int a = 0; a < 3; ++a) {
            if (p[a] < lo[a]) lo[a] = p[a];
            if (p[a] > hi[a]) hi[a] = p[a];
        }
    }
    double longest = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    if (!(longest > 0.0)) return sn_fail(SINEW_ERROR_DEGENERATE, "the surface's vertices all coincide");
    double h = longest / resolution;
    uint32_t n[3];
    double origin[3];
    for (int a = 0; a < 3; ++a) {
        /* One spare cell on each side, the grid centred on the box. */
        n[a] = (uint32_t)ceil((hi[a] - lo[a]) / h - 1e-9) + 2;
        if (n[a] < 1) n[a] = 1;
        origin[a] = 0.5 * (lo[a] + hi[a]) - 0.5 * n[a] * h;
    }
    size_t cells = (size_t)n[0] * n[1] * n[2];
    size_t corners = (size_t)(n[0] + 1) * (n[1] + 1) * (n[2] + 1);
    *cell_size = h;

    sn_winding wind = {0};
    r = sn_winding_build(&b->env, surface, &wind);
    if (r != SINEW_OK) return r;
    uint8_t *inside = sn_calloc_array(&b->env, cells, 1, "voxel inside flags");
    uint32_t *corner_id = sn_alloc_array(&b->env, corners, sizeof(uint32_t), "voxel corner numbers");
    if (!inside || !corner_id) {
        r = sn_alloc_failure();
        goto done;
    }
    size_t inside_count = 0;
    for (uint32_t k = 0; k < n[2]; ++k) {
        r = sn_progress(&b->env, "bbw: voxelise", (float)k / (float)n[2]);
        if (r != SINEW_OK) goto done;
        for (uint32_t j = 0; j < n[1]; ++j)
            for (uint32_t i = 0; i < n[0]; ++i) {
                double q[3] = {origin[0] + (i + 0.5) * h, origin[1] + (j + 0.5) * h, origin[2] + (k + 0.5) * h};
                if (sn_winding_number(&wind, q) >= 0.5) {
                    inside[((size_t)k * n[1] + j) * n[0] + i] = 1;
                    ++inside_count;
                }
            }
    }
    if (inside_count == 0) {
        r = sn_fail(SINEW_ERROR_DEGENERATE, "the surface encloses no cell of the %u x %u x %u grid", n[0], n[1], n[2]);
        goto done;
    }
    for (size_t c = 0; c < corners; ++c) corner_id[c] = UINT32_MAX;
    size_t vcount = 0;
    for (uint32_t k = 0; k < n[2]; ++k)
        for (uint32_t j = 0; j < n[1]; ++j)
            for (uint32_t i = 0; i < n[0]; ++i) {
                if (!inside[((size_t)k * n[1] + j) * n[0] + i]) continue;
                for (int c = 0; c < 8; ++c) {
                    size_t id = ((size_t)(k + (c >> 2 & 1)) * (n[1] + 1) + (j + (c >> 1 & 1))) * (n[0] + 1) +
                                (i + (c & 1));
                    if (corner_id[id] == UINT32_MAX) corner_id[id] = (uint32_t)vcount++;
                }
            }
    b->positions = sn_alloc_array(&b->env, vcount, 3 * sizeof(double), "voxel positions");
    b->elements = sn_alloc_array(&b->env, inside_count, 24 * sizeof(uint32_t), "voxel tets");
    if (!b->positions || !b->elements) {
        r = sn_alloc_failure();
        goto done;
    }
    for (uint32_t k = 0; k <= n[2]; ++k)
        for (uint32_t j = 0; j <= n[1]; ++j)
            for (uint32_t i = 0; i <= n[0]; ++i) {
                uint32_t id = corner_id[((size_t)k * (n[1] + 1) + j) * (n[0] + 1) + i];
                if (id == UINT32_MAX) continue;
                b->positions[3 * (size_t)id] = origin[0] + i * h;
                b->positions[3 * (size_t)id + 1] = origin[1] + j * h;
                b->positions[3 * (size_t)id + 2] = origin[2] + k * h;
            }
    size_t e = 0;
    for (uint32_t k = 0; k < n[2]; ++k)
        for (uint32_t j = 0; j < n[1]; ++j)
            for (uint32_t i = 0; i < n[0]; ++i) {
                if (!inside[((size_t)k * n[1] + j) * n[0] + i]) continue;
                uint32_t cid[8];
                for (int c = 0; c < 8; ++c)
                    cid[c] = corner_id[((size_t)(k + (c >> 2 & 1)) * (n[1] + 1) + (j + (c >> 1 & 1))) * (n[0] + 1) +
                                       (i + (c & 1))];
                for (int t = 0; t < 6; ++t, ++e)
                    for (int c = 0; c < 4; ++c) b->elements[4 * e + c] = cid[kuhn_tets[t][c]];
            }
    b->vertex_count = vcount;
    b->element_count = e;
    b->scale = box_diagonal(b->positions, vcount);
done:
    sn_winding_free(&b->env, &wind);
    sn_free(&b->env, inside);
    sn_free(&b->env, corner_id);
    return r;
}
