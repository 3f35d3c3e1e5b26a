/* The workflow example's picture (character_pictures.h). The view looks
 * along the elbow's hinge, so the bend lies in the picture's plane: the
 * upper arm runs left to right and the forearm folds upward. */
#include "character_pictures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "render.h"

static const float INK[3] = {0.1f, 0.1f, 0.12f}, SKIN[3] = {0.78f, 0.8f, 0.84f};

/* The panels frame the skin within this distance of the elbow, in upper-arm
 * radii: the elbow, the bulge and the forearm, not the shoulder. */
#define FRAME_RADII 7.0

/* Adds the points within FRAME_RADII upper-arm radii of the elbow to the view. */
static void include_near_elbow(render_view *v, const arm_rig *rig, const float *p, size_t n)
{
    double reach2 = pow(FRAME_RADII * rig->upper_radius, 2);
    for (size_t i = 0; i < n; ++i) {
        double s = 0.0;
        for (int k = 0; k < 3; ++k) s += pow((double)p[3 * i + k] - rig->elbow[k], 2);
        if (s <= reach2) render_view_include(v, &p[3 * i], 1);
    }
}

static void camera(const arm_rig *rig, render_view *v)
{
    float right[3], up[3];
    double len = 0.0;
    for (int k = 0; k < 3; ++k) len += (rig->elbow[k] - rig->shoulder[k]) * (rig->elbow[k] - rig->shoulder[k]);
    for (int k = 0; k < 3; ++k) {
        right[k] = (float)((rig->elbow[k] - rig->shoulder[k]) / sqrt(len));
        up[k] = (float)rig->inside[k];
    }
    render_view_axes(v, right, up);
}

bool character_picture(const char *dir, const arm_rig *rig, const float *plain, const float *corrected,
                       double angle_degrees)
{
    if (!render_png_available()) {
        printf("no PNG images: the examples were built without libpng\n");
        return true;
    }
    size_t n = rig->skin.vertex_count;
    float *colours = malloc(3 * n * sizeof(float));
    render_canvas c;
    bool ok = colours && render_canvas_create(&c, 400, 400, 2, 1, 3);
    if (!ok) {
        free(colours);
        return false;
    }
    double largest = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double s = 0.0;
        for (int k = 0; k < 3; ++k) s += pow((double)corrected[3 * i + k] - plain[3 * i + k], 2);
        largest = fmax(largest, sqrt(s));
    }
    for (size_t i = 0; i < n; ++i) {
        double s = 0.0;
        for (int k = 0; k < 3; ++k) s += pow((double)corrected[3 * i + k] - plain[3 * i + k], 2);
        render_colormap(largest > 0.0 ? (float)(sqrt(s) / largest) : 0.0f, &colours[3 * i]);
    }
    for (int panel = 0; panel < 2 && ok; ++panel) {
        render_view v;
        camera(rig, &v);
        /* Both panels fit both shapes, so they are drawn at one scale. */
        include_near_elbow(&v, rig, plain, n);
        include_near_elbow(&v, rig, corrected, n);
        render_view_fit(&v, &c, panel, 12, 40);
        render_mesh m = {panel ? corrected : plain, n, rig->skin.triangles, rig->skin.triangle_count,
                         panel ? colours : NULL, {SKIN[0], SKIN[1], SKIN[2]}, RENDER_SMOOTH};
        ok = render_draw_mesh(&c, &v, &m);
        char title[64], note[64];
        snprintf(title, sizeof title, "elbow %.0f: %s", angle_degrees, panel ? "with correctives" : "without");
        if (panel) snprintf(note, sizeof note, "yellow: moved %.3f", largest);
        else snprintf(note, sizeof note, "driver bound rigidly");
        render_label(&c, panel, 0, title, INK);
        render_label(&c, panel, 1, note, INK);
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/character_correctives.png", dir);
    ok = ok && render_write_png(&c, path);
    if (ok) printf("wrote %s\n", path);
    render_canvas_destroy(&c);
    free(colours);
    return ok;
}
