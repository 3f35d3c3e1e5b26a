/*
 * What an automatic volume was made from (bbw_internal.h, sn_bbw_source):
 * the surface and the handles' geometry, copied packed at create so that the
 * solve can rebuild the same volume at a coarser grid (cascade.c). Domains
 * given as meshes keep nothing: no coarser mesh can be built from them.
 */
#include <string.h>

#include "bbw/bbw_internal.h"

void sn_bbw_source_free(const sn_env *env, sn_bbw_source *s)
{
    if (!s) return;
    sn_free(env, s->surface_positions);
    sn_free(env, s->surface_triangles);
    sn_free(env, s->points);
    sn_free(env, s->joints);
    sn_free(env, s->bones);
    sn_free(env, s->cage_vertex_start);
    sn_free(env, s->cage_vertices);
    sn_free(env, s->cage_edge_start);
    sn_free(env, s->cage_edges);
    sn_free(env, s->cage_triangle_start);
    sn_free(env, s->cage_triangles);
    sn_free(env, s);
}

/* Packed copy of count points (3 floats each) of a view. */
static float *copy_points(const sn_env *env, const sinew_points *p, size_t count, const char *what)
{
    float *out = sn_alloc_array(env, count ? count : 1, 3 * sizeof(float), what);
    if (!out) return NULL;
    for (size_t i = 0; i < count; ++i) memcpy(out + 3 * i, sn_point(p, i), 3 * sizeof(float));
    return out;
}

static uint32_t *copy_indices(const sn_env *env, const uint32_t *src, size_t count, const char *what)
{
    uint32_t *out = sn_alloc_array(env, count ? count : 1, sizeof(uint32_t), what);
    if (out && count) memcpy(out, src, count * sizeof(uint32_t));
    return out;
}

/* Per-cage offsets into the packed arrays, and their total. */
static size_t *cage_offsets(const sn_env *env, const sinew_bbw_desc *d, int part, size_t *total)
{
    size_t *start = sn_alloc_array(env, d->cage_count + 1, sizeof(size_t), "kept cage offsets");
    if (!start) return NULL;
    start[0] = 0;
    for (size_t c = 0; c < d->cage_count; ++c) {
        const sinew_bbw_cage *k = &d->cages[c];
        size_t n = part == 0 ? k->vertices.count : part == 1 ? k->edge_count : k->triangle_count;
        start[c + 1] = start[c] + n;
    }
    *total = start[d->cage_count];
    return start;
}

sinew_result sn_bbw_source_keep(sinew_bbw *b, const sinew_bbw_desc *d)
{
    const sn_env *env = &b->env;
    sn_bbw_source *s = sn_calloc(env, sizeof *s, "kept volume source");
    if (!s) return sn_alloc_failure();
    const sinew_trimesh *surf = d->surface;
    s->surface_vertex_count = surf->positions.count;
    s->surface_triangle_count = surf->triangle_count;
    s->surface_positions = copy_points(env, &surf->positions, surf->positions.count, "kept surface");
    s->surface_triangles = sn_alloc_array(env, surf->triangle_count, 3 * sizeof(uint32_t), "kept surface triangles");
    if (s->surface_triangles)
        for (size_t t = 0; t < surf->triangle_count; ++t)
            for (size_t k = 0; k < 3; ++k)
                s->surface_triangles[3 * t + k] =
                    sn_index_at(surf->indices, surf->index_type, surf->index_stride, 3, t, k);
    s->point_count = d->points.count;
    s->points = copy_points(env, &d->points, d->points.count, "kept point handles");
    s->bone_count = d->bone_count;
    s->joint_count = d->bone_count ? d->joint_positions.count : 0;
    s->joints = copy_points(env, &d->joint_positions, s->joint_count, "kept joints");
    s->bones = copy_indices(env, d->bones, 2 * d->bone_count, "kept bones");
    s->cage_count = d->cage_count;
    size_t nv = 0, ne = 0, nt = 0;
    s->cage_vertex_start = cage_offsets(env, d, 0, &nv);
    s->cage_edge_start = cage_offsets(env, d, 1, &ne);
    s->cage_triangle_start = cage_offsets(env, d, 2, &nt);
    s->cage_vertices = sn_alloc_array(env, nv ? nv : 1, 3 * sizeof(float), "kept cage vertices");
    s->cage_edges = sn_alloc_array(env, ne ? ne : 1, 2 * sizeof(uint32_t), "kept cage edges");
    s->cage_triangles = sn_alloc_array(env, nt ? nt : 1, 3 * sizeof(uint32_t), "kept cage triangles");
    if (!s->surface_positions || !s->surface_triangles || !s->points || !s->joints || !s->bones ||
        !s->cage_vertex_start || !s->cage_edge_start || !s->cage_triangle_start || !s->cage_vertices ||
        !s->cage_edges || !s->cage_triangles) {
        sn_bbw_source_free(env, s);
        return sn_alloc_failure();
    }
    for (size_t c = 0; c < d->cage_count; ++c) {
        const sinew_bbw_cage *k = &d->cages[c];
        for (size_t i = 0; i < k->vertices.count; ++i)
            memcpy(s->cage_vertices + 3 * (s->cage_vertex_start[c] + i), sn_point(&k->vertices, i), 3 * sizeof(float));
        if (k->edge_count)
            memcpy(s->cage_edges + 2 * s->cage_edge_start[c], k->edges, 2 * k->edge_count * sizeof(uint32_t));
        if (k->triangle_count)
            memcpy(s->cage_triangles + 3 * s->cage_triangle_start[c], k->triangles,
                   3 * k->triangle_count * sizeof(uint32_t));
    }
    s->handle_tolerance = d->handle_tolerance;
    s->volume_flags = d->volume_flags;
    s->point_placement = d->point_placement;
    b->source = s;
    return SINEW_OK;
}

sinew_result sn_bbw_source_desc(const sinew_bbw *b, uint32_t grid_resolution, sn_bbw_source_view *v)
{
    const sn_bbw_source *s = b->source;
    v->cages = sn_alloc_array(&b->env, s->cage_count ? s->cage_count : 1, sizeof(sinew_bbw_cage), "coarse cages");
    if (!v->cages) return sn_alloc_failure();
    v->surface = (sinew_trimesh){{s->surface_positions, s->surface_vertex_count, 0}, s->surface_triangles,
                                 s->surface_triangle_count, SINEW_INDEX_U32, 0};
    for (size_t c = 0; c < s->cage_count; ++c)
        v->cages[c] = (sinew_bbw_cage){
            {s->cage_vertices + 3 * s->cage_vertex_start[c], s->cage_vertex_start[c + 1] - s->cage_vertex_start[c], 0},
            s->cage_edges + 2 * s->cage_edge_start[c],
            s->cage_edge_start[c + 1] - s->cage_edge_start[c],
            s->cage_triangles + 3 * s->cage_triangle_start[c],
            s->cage_triangle_start[c + 1] - s->cage_triangle_start[c]};
    SINEW_INIT(&v->desc);
    v->desc.surface = &v->surface;
    v->desc.grid_resolution = grid_resolution;
    v->desc.points = (sinew_points){s->points, s->point_count, 0};
    v->desc.joint_positions = (sinew_points){s->joints, s->joint_count, 0};
    v->desc.bones = s->bones;
    v->desc.bone_count = s->bone_count;
    v->desc.cages = v->cages;
    v->desc.cage_count = s->cage_count;
    v->desc.handle_tolerance = s->handle_tolerance;
    v->desc.volume_flags = s->volume_flags;
    v->desc.point_placement = s->point_placement;
    return SINEW_OK;
}
