/* The glTF player's picture: rest pose beside a played frame. */
#include "gltf_pictures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

static const float INK[3] = {0.1f, 0.1f, 0.12f}, BODY[3] = {0.86f, 0.6f, 0.36f};

/* Every part's triangles, renumbered into one vertex array (parts one after another). */
static uint32_t *all_triangles(const character *c)
{
    uint32_t *t = malloc(3 * c->triangle_count * sizeof(uint32_t));
    size_t at = 0, base = 0;
    for (size_t p = 0; t && p < c->part_count; base += c->parts[p++].vertex_count)
        for (size_t i = 0; i < 3 * c->parts[p].triangle_count; ++i) t[at++] = (uint32_t)(base + c->parts[p].triangles[i]);
    return t;
}

bool gltf_picture(const char *folder, const character *c, float *const *positions, double time)
{
    if (!render_png_available()) {
        printf("no PNG images: the examples were built without libpng\n");
        return true;
    }
    const size_t n = c->vertex_count;
    float *rest = malloc(3 * n * sizeof(float)), *posed = malloc(3 * n * sizeof(float));
    uint32_t *tris = all_triangles(c);
    render_canvas canvas;
    bool ok = rest && posed && tris && render_canvas_create(&canvas, 320, 320, 2, 1, 3);
    for (size_t p = 0, at = 0; ok && p < c->part_count; at += c->parts[p++].vertex_count) {
        const character_part *part = &c->parts[p];
        size_t stride = part->rest.position_stride ? part->rest.position_stride : 3 * sizeof(float);
        for (size_t v = 0; v < part->vertex_count; ++v)
            memcpy(rest + 3 * (at + v), (const char *)part->rest.positions + v * stride, 3 * sizeof(float));
        memcpy(posed + 3 * at, positions[p], 3 * part->vertex_count * sizeof(float));
    }
    for (int panel = 0; panel < 2 && ok; ++panel) {
        render_view v;
        render_view_init(&v, -35, 15);
        render_view_include(&v, rest, n);
        render_view_include(&v, posed, n);
        render_view_fit(&v, &canvas, panel, 8, 16);
        render_mesh m = {panel ? posed : rest, n, tris, c->triangle_count, NULL, {BODY[0], BODY[1], BODY[2]},
                         RENDER_SMOOTH};
        ok = render_draw_mesh(&canvas, &v, &m);
        char label[64];
        if (panel) snprintf(label, sizeof label, "t = %.2f s", time);
        render_label(&canvas, panel, 0, panel ? label : "bind pose", INK);
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/frame.png", folder);
    ok = ok && render_write_png(&canvas, path);
    if (ok) printf("wrote %s\n", path);
    if (canvas.rgb) render_canvas_destroy(&canvas);
    free(rest), free(posed), free(tris);
    return ok;
}
