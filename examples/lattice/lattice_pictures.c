/* The lattice example's picture: plain against refined bending, the edges
 * refinement added highlighted, the control net drawn behind. */
#include "lattice_pictures.h"

#include <stdio.h>
#include <stdlib.h>

#include "render.h"

static const float INK[3] = {0.1f, 0.1f, 0.12f}, NET[3] = {0.55f, 0.6f, 0.7f}, EDGE[3] = {0.2f, 0.2f, 0.25f};
static const float NEW_EDGE[3] = {0.92f, 0.42f, 0.05f}, SURFACE[3] = {0.72f, 0.82f, 0.9f};

/* The control net as segments between neighbours along u, v and w. */
static uint32_t *net_lines(const sinew_lattice_info *info, size_t *count)
{
    const uint32_t *n = info->count;
    uint32_t *l = malloc(6 * info->point_count * sizeof(uint32_t));
    size_t c = 0;
    for (uint32_t k = 0; l && k < n[2]; ++k)
        for (uint32_t j = 0; j < n[1]; ++j)
            for (uint32_t i = 0; i < n[0]; ++i) {
                uint32_t id = i + n[0] * (j + n[1] * k);
                if (i + 1 < n[0]) l[2 * c] = id, l[2 * c + 1] = id + 1, ++c;
                if (j + 1 < n[1]) l[2 * c] = id, l[2 * c + 1] = id + n[0], ++c;
                if (k + 1 < n[2]) l[2 * c] = id, l[2 * c + 1] = id + n[0] * n[1], ++c;
            }
    *count = c;
    return l;
}

/* Splits edges into those refinement made (an end beyond the input vertices) and the rest. */
static void split_edges(const uint32_t *edges, size_t count, size_t input_vertices, uint32_t *old_edges,
                        size_t *old_count, uint32_t *new_edges, size_t *new_count)
{
    *old_count = *new_count = 0;
    for (size_t e = 0; e < count; ++e) {
        bool made = edges[2 * e] >= input_vertices || edges[2 * e + 1] >= input_vertices;
        uint32_t *to = made ? new_edges + 2 * (*new_count)++ : old_edges + 2 * (*old_count)++;
        to[0] = edges[2 * e], to[1] = edges[2 * e + 1];
    }
}

bool lattice_pictures(const char *dir, const sinew_lattice *lattice, const float *rest, const float *plain,
                      size_t vertex_count, const uint32_t *triangles, size_t triangle_count,
                      const sinew_lattice_refined_mesh *refined)
{
    if (!render_png_available()) {
        printf("no PNG images: the examples were built without libpng\n");
        return true;
    }
    sinew_lattice_info info;
    SINEW_INIT(&info);
    sinew_lattice_get_info(lattice, &info);
    size_t net_count = 0, edge_count = 0, refined_count = 0, old_count = 0, new_count = 0;
    float *net_rest = malloc(3 * info.point_count * sizeof(float)), *net_bent = malloc(3 * info.point_count * sizeof(float));
    uint32_t *net = net_lines(&info, &net_count);
    uint32_t *edges = render_mesh_edges(triangles, triangle_count, &edge_count);
    uint32_t *refined_edges = render_mesh_edges(refined->indices, refined->triangle_count, &refined_count);
    uint32_t *old_edges = malloc(2 * refined_count * sizeof(uint32_t)), *new_edges = malloc(2 * refined_count * sizeof(uint32_t));
    render_canvas c;
    bool ok = net_rest && net_bent && net && edges && refined_edges && old_edges && new_edges &&
              render_canvas_create(&c, 264, 280, 3, 1, 3);
    if (ok) {
        sinew_lattice_rest_points(lattice, net_rest, 0, 0, info.point_count);
        sinew_lattice_points(lattice, net_bent, 0, 0, info.point_count);
        split_edges(refined_edges, refined_count, refined->input_vertex_count, old_edges, &old_count, new_edges, &new_count);
    }
    for (int panel = 0; panel < 3 && ok; ++panel) {
        render_view v;
        render_view_init(&v, -15, 20);
        render_view_include(&v, net_rest, info.point_count);
        render_view_include(&v, net_bent, info.point_count);
        render_view_fit(&v, &c, panel, 8, 34);
        const float *net_points = panel ? net_bent : net_rest;
        render_mesh m = {panel == 0 ? rest : plain, vertex_count, triangles, triangle_count, NULL,
                         {SURFACE[0], SURFACE[1], SURFACE[2]}, RENDER_FLAT};
        if (panel == 2) m.positions = refined->positions, m.vertex_count = refined->vertex_count,
                        m.triangles = refined->indices, m.triangle_count = refined->triangle_count;
        ok = render_draw_mesh(&c, &v, &m);
        render_draw_lines(&c, &v, net_points, net, net_count, NET, 0.7f, false);
        if (panel < 2) {
            render_draw_lines(&c, &v, m.positions, edges, edge_count, EDGE, 1.0f, false);
        } else {
            render_draw_lines(&c, &v, m.positions, old_edges, old_count, EDGE, 1.0f, false);
            render_draw_lines(&c, &v, m.positions, new_edges, new_count, NEW_EDGE, 1.0f, false);
        }
        static const char *const title[3] = {"rest", "bent, vertices only", "bent after refinement"};
        static const char *const note[3] = {"in its lattice", "edges stay straight", "new edges in orange"};
        render_label(&c, panel, 0, title[panel], INK);
        render_label(&c, panel, 1, note[panel], INK);
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/lattice_refine.png", dir);
    ok = ok && render_write_png(&c, path);
    if (ok) printf("wrote %s\n", path);
    if (c.rgb) render_canvas_destroy(&c);
    free(net_rest), free(net_bent), free(net), free(edges), free(refined_edges), free(old_edges), free(new_edges);
    return ok;
}
