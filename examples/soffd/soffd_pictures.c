/* The SOFFD example's picture: driver and skin overlaid, rest and bent. */
#include "soffd_pictures.h"

#include <stdio.h>
#include <stdlib.h>

#include "render.h"

bool soffd_pictures(const char *dir, const soffd_picture_mesh *driver, const soffd_picture_mesh *skin)
{
    if (!render_png_available()) {
        printf("no PNG images: the examples were built without libpng\n");
        return true;
    }
    static const float ink[3] = {0.1f, 0.1f, 0.12f}, skin_colour[3] = {0.78f, 0.8f, 0.84f};
    static const float cage_colour[3] = {0.85f, 0.33f, 0.1f};
    size_t edge_count = 0;
    uint32_t *edges = render_mesh_edges(driver->triangles, driver->triangle_count, &edge_count);
    render_canvas c;
    bool ok = edges && render_canvas_create(&c, 400, 320, 2, 1, 3);
    if (!ok) {
        free(edges);
        return false;
    }
    for (int panel = 0; panel < 2 && ok; ++panel) {
        render_view v;
        render_view_init(&v, -35, 55); /* y up, from above: the example bends the beetle sideways */
        render_view_include(&v, driver->rest, driver->vertex_count);
        render_view_include(&v, driver->bent, driver->vertex_count);
        render_view_fit(&v, &c, panel, 10, 16);
        render_mesh m = {panel ? skin->bent : skin->rest, skin->vertex_count, skin->triangles, skin->triangle_count,
                         NULL, {skin_colour[0], skin_colour[1], skin_colour[2]}, RENDER_SMOOTH};
        ok = render_draw_mesh(&c, &v, &m);
        render_draw_lines(&c, &v, panel ? driver->bent : driver->rest, edges, edge_count, cage_colour, 0.8f, false);
        render_label(&c, panel, 0, panel ? "driver bent: skin follows" : "rest: driver (orange), skin", ink);
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/soffd_cage_bend.png", dir);
    ok = ok && render_write_png(&c, path);
    if (ok) printf("wrote %s\n", path);
    render_canvas_destroy(&c);
    free(edges);
    return ok;
}
