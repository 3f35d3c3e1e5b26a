/* The SOFFD example's picture: the driver and skin at rest, the bent driver
 * alone, and the bent skin alone, shaded. The bend lies in the horizontal
 * plane, so the views look from high above to show its curve in full. */
#include "soffd_pictures.h"

#include <stdio.h>
#include <stdlib.h>

#include "render.h"

static const float INK[3] = {0.1f, 0.1f, 0.12f}, SKIN[3] = {0.78f, 0.8f, 0.84f}, CAGE[3] = {0.85f, 0.33f, 0.1f};

/* Panels: 0 rest (driver over skin), 1 bent driver, 2 bent skin. */
static bool draw_panel(render_canvas *c, int panel, const soffd_picture_mesh *driver, const soffd_picture_mesh *skin,
                       const uint32_t *edges, size_t edge_count)
{
    render_view v;
    render_view_init(&v, -20, 70);
    /* Each panel fits its own shape, so the bent one is drawn as large as the rest one. */
    render_view_include(&v, panel ? driver->bent : driver->rest, driver->vertex_count);
    render_view_fit(&v, c, panel, 12, 40);
    bool ok = true;
    if (panel != 1) {
        render_mesh m = {panel ? skin->bent : skin->rest, skin->vertex_count, skin->triangles, skin->triangle_count,
                         NULL, {SKIN[0], SKIN[1], SKIN[2]}, RENDER_SMOOTH};
        ok = render_draw_mesh(c, &v, &m);
    }
    if (panel == 0) render_draw_lines(c, &v, driver->rest, edges, edge_count, CAGE, 0.6f, false);
    if (panel == 1) render_draw_lines(c, &v, driver->bent, edges, edge_count, CAGE, 0.8f, true);
    static const char *const title[3] = {"rest: driver on skin", "driver bent, twisted", "skin follows"};
    static const char *const note[3] = {"driver orange", "edges only", "skin alone, shaded"};
    render_label(c, panel, 0, title[panel], INK);
    render_label(c, panel, 1, note[panel], INK);
    return ok;
}

bool soffd_pictures(const char *dir, const soffd_picture_mesh *driver, const soffd_picture_mesh *skin)
{
    if (!render_png_available()) {
        printf("no PNG images: the examples were built without libpng\n");
        return true;
    }
    size_t edge_count = 0;
    uint32_t *edges = render_mesh_edges(driver->triangles, driver->triangle_count, &edge_count);
    render_canvas c;
    bool ok = edges && render_canvas_create(&c, 360, 380, 3, 1, 3);
    if (!ok) {
        free(edges);
        return false;
    }
    for (int panel = 0; panel < 3 && ok; ++panel) ok = draw_panel(&c, panel, driver, skin, edges, edge_count);
    char path[4200];
    snprintf(path, sizeof path, "%s/soffd_cage_bend.png", dir);
    ok = ok && render_write_png(&c, path);
    if (ok) printf("wrote %s\n", path);
    render_canvas_destroy(&c);
    free(edges);
    return ok;
}
