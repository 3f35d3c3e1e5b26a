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

sn_bbw_source *sn_bbw_source_alloc(const sn_env *env, const sn_bbw_source_sizes *n)
{
    sn_bbw_source *s = sn_calloc(env, sizeof *s, "kept volume source");
    if (!s) return NULL;
    s->surface_vertex_count = n->surface_vertices;
    s->surface_triangle_count = n->surface_triangles;
    s->point_count = n->points;
    s->joint_count = n->joints;
    s->bone_count = n->bones;
    s->cage_count = n->cages;
    /* One more of each, so that empty arrays are allocations too. */
    s->surface_positions = sn_alloc_array(env, n->surface_vertices + 1, 3 * sizeof(float), "kept surface");
    s->surface_triangles = sn_alloc_array(env, n->surface_triangles + 1, 3 * sizeof(uint32_t), "kept triangles");
    s->points = sn_alloc_array(env, n->points + 1, 3 * sizeof(float), "kept point handles");
    s->joints = sn_alloc_array(env, n->joints + 1, 3 * sizeof(float), "kept joints");
    s->bones = sn_alloc_array(env, n->bones + 1, 2 * sizeof(uint32_t), "kept bones");
    s->cage_vertex_start = sn_calloc_array(env, n->cages + 1, sizeof(size_t), "kept cage offsets");
    s->cage_edge_start = sn_calloc_array(env, n->cages + 1, sizeof(size_t), "kept cage offsets");
    s->cage_triangle_start = sn_calloc_array(env, n->cages + 1, sizeof(size_t), "kept cage offsets");
    s->cage_vertices = sn_alloc_array(env, n->cage_vertices + 1, 3 * sizeof(float), "kept cage vertices");
    s->cage_edges = sn_alloc_array(env, n->cage_edges + 1, 2 * sizeof(uint32_t), "kept cage edges");
    s->cage_triangles = sn_alloc_array(env, n->cage_triangles + 1, 3 * sizeof(uint32_t), "kept cage triangles");
    if (!s->surface_positions || !s->surface_triangles || !s->points || !s->joints || !s->bones ||
        !s->cage_vertex_start || !s->cage_edge_start || !s->cage_triangle_start || !s->cage_vertices ||
        !s->cage_edges || !s->cage_triangles) {
        sn_bbw_source_free(env, s);
        return NULL;
    }
    return s;
}

/* Packed copy of count points (3 floats each) of a view. */
static void copy_points(float *out, const sinew_points *p, size_t count)
{
    for (size_t i = 0; i < count; ++i) memcpy(out + 3 * i, sn_point(p, i), 3 * sizeof(float));
}

sinew_result sn_bbw_source_keep(sinew_bbw *b, const sinew_bbw_desc *d)
{
    const sinew_trimesh *surf = d->surface;
    sn_bbw_source_sizes n = {surf->positions.count, surf->triangle_count, d->points.count,
                             d->bone_count ? d->joint_positions.count : 0, d->bone_count, d->cage_count, 0, 0, 0};
    for (size_t c = 0; c < d->cage_count; ++c) {
        n.cage_vertices += d->cages[c].vertices.count;
        n.cage_edges += d->cages[c].edge_count;
        n.cage_triangles += d->cages[c].triangle_count;
    }
    sn_bbw_source *s = sn_bbw_source_alloc(&b->env, &n);
    if (!s) return sn_alloc_failure();
    copy_points(s->surface_positions, &surf->positions, n.surface_vertices);
    for (size_t t = 0; t < n.surface_triangles; ++t)
        for (size_t k = 0; k < 3; ++k)
            s->surface_triangles[3 * t + k] = sn_index_at(surf->indices, surf->index_type, surf->index_stride, 3, t, k);
    copy_points(s->points, &d->points, n.points);
    copy_points(s->joints, &d->joint_positions, n.joints);
    if (n.bones) memcpy(s->bones, d->bones, 2 * n.bones * sizeof(uint32_t));
    for (size_t c = 0; c < d->cage_count; ++c) {
        const sinew_bbw_cage *k = &d->cages[c];
        s->cage_vertex_start[c + 1] = s->cage_vertex_start[c] + k->vertices.count;
        s->cage_edge_start[c + 1] = s->cage_edge_start[c] + k->edge_count;
        s->cage_triangle_start[c + 1] = s->cage_triangle_start[c] + k->triangle_count;
        copy_points(s->cage_vertices + 3 * s->cage_vertex_start[c], &k->vertices, k->vertices.count);
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
