/* The placement example's side view as a PNG, drawn by examples/render. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "render.h"
#include "side_view.h"

static const float INK[3] = {0.1f, 0.1f, 0.12f}, GROUND[3] = {0.85f, 0.82f, 0.76f};
static const float SNAKE[2][3] = {{0.75f, 0.22f, 0.17f}, {0.14f, 0.44f, 0.64f}};

/* The tube's triangles, as placement_snake.c builds them. */
static uint32_t *tube_triangles(int rings, int sides, size_t *count)
{
    *count = 2 * (size_t)(rings - 1) * (size_t)sides;
    uint32_t *t = malloc(3 * *count * sizeof(uint32_t)), *q = t;
    for (int r = 0; t && r + 1 < rings; ++r)
        for (int s = 0; s < sides; ++s) {
            uint32_t a = (uint32_t)(r * sides + s), b = (uint32_t)(r * sides + (s + 1) % sides);
            *q++ = a, *q++ = b, *q++ = b + (uint32_t)sides;
            *q++ = a, *q++ = b + (uint32_t)sides, *q++ = a + (uint32_t)sides;
        }
    return t;
}

/* The terrain under the path as a flat band from its profile down to floor,
 * placed at depth y_back (behind the snake). 2 vertices and 2 triangles per sample. */
static void profile_band(const side_view *v, float floor, float y_back, float *pos, uint32_t *tri)
{
    for (int k = 0; k < v->path_samples; ++k) {
        double x = v->path_xy[2 * k];
        float *p = pos + 6 * k;
        p[0] = p[3] = (float)x, p[1] = p[4] = y_back;
        p[2] = (float)v->height(x, v->path_xy[2 * k + 1]), p[5] = floor;
        if (k + 1 < v->path_samples) {
            uint32_t a = (uint32_t)(2 * k), *t = tri + 6 * k;
            t[0] = a, t[1] = a + 1, t[2] = a + 3, t[3] = a, t[4] = a + 3, t[5] = a + 2;
        }
    }
}

bool placement_side_png(const char *path, const side_view *views, int count, int rings, int sides)
{
    if (!render_png_available()) {
        printf("no PNG images: the examples were built without libpng\n");
        return true;
    }
    size_t tri_count = 0, n = (size_t)rings * (size_t)sides;
    uint32_t *tris = tube_triangles(rings, sides, &tri_count);
    float *band = malloc(6 * 256 * sizeof(float));
    uint32_t *band_tris = malloc(6 * 256 * sizeof(uint32_t));
    render_canvas c;
    bool ok = tris && band && band_tris && render_canvas_create(&c, 400, 190, 2, count, 3);
    for (int scene = 0; scene < count && ok; ++scene) {
        const side_view *v = &views[scene];
        float zlo = INFINITY, ymax = -INFINITY;
        for (int k = 0; k < v->path_samples; ++k)
            zlo = fminf(zlo, (float)v->height(v->path_xy[2 * k], v->path_xy[2 * k + 1]));
        for (int s = 0; s < 2; ++s)
            for (size_t i = 0; i < n; ++i) ymax = fmaxf(ymax, v->snake[s][3 * i + 1]);
        profile_band(v, zlo - 0.3f, ymax + 1, band, band_tris);
        for (int s = 0; s < 2; ++s) {
            const int panel = 2 * scene + s;
            render_view view;
            static const float right[3] = {1, 0, 0}, up[3] = {0, 0, 1}; /* from -y: x right, z up */
            render_view_axes(&view, right, up);
            render_view_include(&view, band, 2 * (size_t)v->path_samples);
            render_view_include(&view, v->snake[0], n);
            render_view_include(&view, v->snake[1], n);
            render_view_fit(&view, &c, panel, 6, 16);
            render_mesh ground = {band, 2 * (size_t)v->path_samples, band_tris, 2 * (size_t)(v->path_samples - 1), NULL,
                                  {GROUND[0], GROUND[1], GROUND[2]}, RENDER_UNLIT};
            render_mesh snake = {v->snake[s], n, tris, tri_count, NULL, {SNAKE[s][0], SNAKE[s][1], SNAKE[s][2]},
                                 RENDER_SMOOTH};
            ok = render_draw_mesh(&c, &view, &ground) && render_draw_mesh(&c, &view, &snake);
            render_draw_dots(&c, &view, v->contact[s], (size_t)v->contact_count, SNAKE[s], 3.5f);
            char label[128];
            snprintf(label, sizeof label, "%s: %s", scene ? "bumpy terrain" : "staircase", s ? "springs" : "raw ray hits");
            render_label(&c, panel, 0, label, INK);
        }
    }
    ok = ok && render_write_png(&c, path);
    if (ok) printf("wrote %s\n", path);
    if (c.rgb) render_canvas_destroy(&c);
    free(tris), free(band), free(band_tris);
    return ok;
}
