/* The composed example's picture: BBW-skinned cage, SOFFD-driven arm. */
#include "compose_pictures.h"

#include <stdio.h>
#include <stdlib.h>

#include "render.h"

static const float INK[3] = {0.1f, 0.1f, 0.12f}, CAGE[3] = {0.85f, 0.33f, 0.1f}, ARM[3] = {0.74f, 0.8f, 0.86f};

/* The polygons' sides as segments (a side shared by two faces is drawn twice). */
static uint32_t *polygon_sides(const compose_picture *p, size_t *count)
{
    size_t n = 0;
    for (size_t f = 0; f < p->cage_face_count; ++f) n += p->cage_face_sizes[f];
    uint32_t *s = malloc(2 * n * sizeof(uint32_t));
    size_t at = 0;
    for (size_t f = 0, k = 0; s && f < p->cage_face_count; at += p->cage_face_sizes[f++])
        for (uint32_t i = 0; i < p->cage_face_sizes[f]; ++i, ++k) {
            s[2 * k] = p->cage_indices[at + i];
            s[2 * k + 1] = p->cage_indices[at + (i + 1) % p->cage_face_sizes[f]];
        }
    *count = n;
    return s;
}

bool compose_pictures(const char *dir, const compose_picture *p)
{
    if (!render_png_available()) {
        printf("no PNG images: the examples were built without libpng\n");
        return true;
    }
    size_t side_count = 0;
    uint32_t *sides = polygon_sides(p, &side_count);
    render_canvas c;
    bool ok = sides && render_canvas_create(&c, 264, 300, 3, 1, 3);
    for (int panel = 0; panel < 3 && ok; ++panel) {
        render_view v;
        render_view_init(&v, -20, 20);
        render_view_include(&v, p->cage_rest, p->cage_vertex_count);
        render_view_include(&v, p->cage_posed, p->cage_vertex_count);
        render_view_fit(&v, &c, panel, 8, 34);
        const float *arm[3] = {p->arm_rest, p->arm_basic, p->arm_extended};
        render_mesh m = {arm[panel], p->arm_vertex_count, p->arm_triangles, p->arm_triangle_count, NULL,
                         {ARM[0], ARM[1], ARM[2]}, RENDER_SMOOTH};
        ok = render_draw_mesh(&c, &v, &m);
        render_draw_lines(&c, &v, panel ? p->cage_posed : p->cage_rest, sides, side_count, CAGE, 1.2f, true);
        static const char *const title[3] = {"rest", "elbow 90: basic", "elbow 90: extended"};
        static const char *const note[3] = {"cage (bbw + skin)", "soffd, element frames", "soffd, vertex frames"};
        render_label(&c, panel, 0, title[panel], INK);
        render_label(&c, panel, 1, note[panel], INK);
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/compose_cage_arm.png", dir);
    ok = ok && render_write_png(&c, path);
    if (ok) printf("wrote %s\n", path);
    if (c.rgb) render_canvas_destroy(&c);
    free(sides);
    return ok;
}
