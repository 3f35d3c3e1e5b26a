/* The composed example's picture: BBW-skinned cage, SOFFD-driven arm, and
 * where the basic and the extended algorithm part. */
#include "compose_pictures.h"

#include <math.h>
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

/* Share of the largest distance above which a vertex is in the zoom, and the
 * zoom panel's label strip in pixels (four lines). */
#define ZOOM_SHARE 0.3f
#define ZOOM_LABELS 76

/* Distance between the basic and the extended result per arm vertex; returns
 * the largest. */
static float differences(const compose_picture *p, float *d)
{
    float largest = 0.0f;
    for (size_t i = 0; i < p->arm_vertex_count; ++i) {
        float s = 0.0f;
        for (int k = 0; k < 3; ++k) {
            float e = p->arm_extended[3 * i + k] - p->arm_basic[3 * i + k];
            s += e * e;
        }
        d[i] = sqrtf(s);
        if (d[i] > largest) largest = d[i];
    }
    return largest;
}

/* The fourth panel: the extended arm coloured by its distance to the basic
 * one, zoomed onto the vertices more than ZOOM_SHARE of the largest distance
 * apart. */
static bool draw_difference(render_canvas *c, const compose_picture *p, const uint32_t *sides, size_t side_count)
{
    float *d = malloc(p->arm_vertex_count * sizeof(float));
    float *colours = malloc(3 * p->arm_vertex_count * sizeof(float));
    float *zoom = malloc(3 * p->arm_vertex_count * sizeof(float));
    bool ok = d && colours && zoom;
    if (ok) {
        float largest = differences(p, d);
        size_t zoom_count = 0;
        for (size_t i = 0; i < p->arm_vertex_count; ++i) {
            render_colormap(largest > 0.0f ? d[i] / largest : 0.0f, &colours[3 * i]);
            if (d[i] > ZOOM_SHARE * largest) {
                for (int k = 0; k < 3; ++k) zoom[3 * zoom_count + k] = p->arm_extended[3 * i + k];
                ++zoom_count;
            }
        }
        render_view v;
        render_view_init(&v, -20, 20);
        render_view_include(&v, zoom_count ? zoom : p->arm_extended, zoom_count ? zoom_count : p->arm_vertex_count);
        render_view_fit(&v, c, 3, 8, ZOOM_LABELS);
        /* The zoomed arm runs past the fitted box: keep it off the labels. */
        v.y0 += ZOOM_LABELS * c->samples;
        render_mesh m = {p->arm_extended, p->arm_vertex_count, p->arm_triangles, p->arm_triangle_count, colours,
                         {0, 0, 0}, RENDER_SMOOTH};
        ok = render_draw_mesh(c, &v, &m);
        render_draw_lines(c, &v, p->cage_posed, sides, side_count, CAGE, 1.2f, true);
        char note[64];
        render_label(c, 3, 0, "where they differ", INK);
        render_label(c, 3, 1, "zoom on the elbow", INK);
        snprintf(note, sizeof note, "yellow: %.2f apart", (double)largest);
        render_label(c, 3, 2, note, INK);
        snprintf(note, sizeof note, "(arm radius %.2f)", (double)p->arm_radius);
        render_label(c, 3, 3, note, INK);
    }
    free(d);
    free(colours);
    free(zoom);
    return ok;
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
    bool ok = sides && render_canvas_create(&c, 264, 300, 4, 1, 3);
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
    ok = ok && draw_difference(&c, p, sides, side_count);
    char path[1200];
    snprintf(path, sizeof path, "%s/compose_cage_arm.png", dir);
    ok = ok && render_write_png(&c, path);
    if (ok) printf("wrote %s\n", path);
    if (c.rgb) render_canvas_destroy(&c);
    free(sides);
    return ok;
}
