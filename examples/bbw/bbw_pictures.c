/* The BBW examples' pictures: weight fields as colour maps on the surface. */
#include "bbw_pictures.h"

#include <stdio.h>
#include <stdlib.h>

#include "render.h"

static const float INK[3] = {0.1f, 0.1f, 0.12f}, HANDLE[3] = {0.2f, 0.2f, 0.22f}, CHOSEN[3] = {0.86f, 0.15f, 0.15f};

/* Per-vertex colours of one handle's weight. */
static float *weight_colours(const bbw_picture_surface *s, size_t handle)
{
    float *c = malloc(3 * s->vertex_count * sizeof(float));
    for (size_t i = 0; c && i < s->vertex_count; ++i) render_colormap(s->weights[i * s->handle_count + handle], c + 3 * i);
    return c;
}

/* A bar from 0 to 1 across a panel, labelled at its ends. */
static bool colour_bar(render_canvas *c, int panel)
{
    enum { STEPS = 64 };
    float pos[3 * 2 * (STEPS + 1)], col[3 * 2 * (STEPS + 1)];
    uint32_t tri[6 * STEPS];
    for (int k = 0; k <= STEPS; ++k) {
        float t = (float)k / STEPS;
        float *p = pos + 6 * k;
        p[0] = p[3] = t, p[1] = 0, p[4] = 0.15f, p[2] = p[5] = 0;
        render_colormap(t, col + 6 * k);
        render_colormap(t, col + 6 * k + 3);
        if (k < STEPS) {
            uint32_t a = (uint32_t)(2 * k), *q = tri + 6 * k;
            q[0] = a, q[1] = a + 1, q[2] = a + 3, q[3] = a, q[4] = a + 3, q[5] = a + 2;
        }
    }
    render_view v;
    render_view_init(&v, 0, 0);
    render_view_include(&v, pos, 2 * (STEPS + 1));
    render_view_fit(&v, c, panel, 14, 40);
    render_mesh m = {pos, 2 * (STEPS + 1), tri, 2 * STEPS, col, {0, 0, 0}, RENDER_UNLIT};
    render_label(c, panel, 0, "weight", INK);
    render_label(c, panel, 1, "0          1", INK);
    return render_draw_mesh(c, &v, &m);
}

bool bbw_2d_pictures(const char *dir, const bbw_picture_surface *shape, const bbw_picture_handles *h)
{
    if (!render_png_available()) {
        printf("no PNG images: the examples were built without libpng\n");
        return true;
    }
    const size_t shown = shape->handle_count < 7 ? shape->handle_count : 7;
    render_canvas c;
    if (!render_canvas_create(&c, 200, 130, 4, 2, 3)) return false;
    bool ok = true;
    for (size_t j = 0; j < shown && ok; ++j) {
        const int panel = (int)j;
        render_view v;
        render_view_init(&v, 0, 0);
        render_view_include(&v, shape->positions, shape->vertex_count);
        render_view_fit(&v, &c, panel, 8, 16);
        float *colours = weight_colours(shape, j);
        render_mesh m = {shape->positions, shape->vertex_count, shape->triangles, shape->triangle_count, colours,
                         {0, 0, 0}, RENDER_UNLIT};
        ok = colours && render_draw_mesh(&c, &v, &m);
        free(colours);
        /* Handles: points, bones, the cage's edges and then its vertices; the one shown in red. */
        size_t at = 0;
        for (size_t p = 0; p < h->point_count; ++p, ++at)
            render_draw_dots(&c, &v, h->points + 3 * p, 1, at == j ? CHOSEN : HANDLE, 7);
        for (size_t b = 0; b < h->bone_count; ++b, ++at)
            render_draw_lines(&c, &v, h->joints, h->bones + 2 * b, 1, at == j ? CHOSEN : HANDLE, 4, true);
        for (size_t k = 0; k < h->cage_count; ++k) {
            uint32_t edge[2] = {(uint32_t)k, (uint32_t)((k + 1) % h->cage_count)};
            render_draw_lines(&c, &v, h->cage, edge, 1, HANDLE, 1.5f, true);
        }
        for (size_t k = 0; k < h->cage_count; ++k, ++at)
            render_draw_dots(&c, &v, h->cage + 3 * k, 1, at == j ? CHOSEN : HANDLE, at == j ? 7 : 4);
        char label[32];
        snprintf(label, sizeof label, "handle %zu", j);
        render_label(&c, panel, 0, label, INK);
    }
    ok = ok && colour_bar(&c, 7);
    char path[1200];
    snprintf(path, sizeof path, "%s/bbw_2d_weights.png", dir);
    ok = ok && render_write_png(&c, path);
    if (ok) printf("bbw_2d: wrote %s\n", path);
    render_canvas_destroy(&c);
    return ok;
}

bool bbw_hand_pictures(const char *dir, const bbw_picture_surface *rest, const float *posed, size_t first, size_t second)
{
    if (!render_png_available()) {
        printf("no PNG images: the examples were built without libpng\n");
        return true;
    }
    render_canvas c;
    if (!render_canvas_create(&c, 260, 300, 3, 1, 3)) return false;
    float *colours[2] = {weight_colours(rest, first), weight_colours(rest, second)};
    bool ok = colours[0] && colours[1];
    for (int panel = 0; panel < 3 && ok; ++panel) {
        render_view v;
        render_view_init(&v, 0, 0);
        render_view_include(&v, rest->positions, rest->vertex_count);
        render_view_include(&v, posed, rest->vertex_count);
        render_view_fit(&v, &c, panel, 6, 16);
        render_mesh m = {panel < 2 ? rest->positions : posed, rest->vertex_count, rest->triangles, rest->triangle_count,
                         colours[panel ? 1 : 0], {0, 0, 0}, RENDER_SMOOTH};
        ok = render_draw_mesh(&c, &v, &m);
        char label[64];
        if (panel < 2) snprintf(label, sizeof label, "weights of bone %zu", panel ? second : first);
        else snprintf(label, sizeof label, "posed (bone %zu)", second);
        render_label(&c, panel, 0, label, INK);
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/bbw_hand_weights.png", dir);
    ok = ok && render_write_png(&c, path);
    if (ok) printf("bbw_hand: wrote %s\n", path);
    free(colours[0]), free(colours[1]);
    render_canvas_destroy(&c);
    return ok;
}
