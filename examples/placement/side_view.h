/* What one scene of the placement example contributes to its side views
 * (SVG in placement_snake.c, PNG in placement_pictures.c). Not part of the library. */
#ifndef SINEW_EXAMPLE_SIDE_VIEW_H
#define SINEW_EXAMPLE_SIDE_VIEW_H

#include <stdbool.h>

/* What one scene contributes to the side view (x horizontal, z up). */
typedef struct side_view {
    const char *title;
    double (*height)(double x, double y);
    float path_xy[2 * 256];   /* the path's middle, sampled */
    int path_samples;
    float *snake[2];          /* deformed snake vertices: raw, relaxed */
    float contact[2][3 * 64]; /* middle row of contact control points: raw, relaxed */
    int contact_count;
} side_view;

/* Writes path as a PNG: one row per scene, the snake on the raw ray hits on
 * the left and after relaxation on the right, each over the terrain's profile
 * along the path with the contact control points as dots. The snake is a
 * tube of rings x sides vertices, ring after ring. Returns false when the
 * file cannot be written or memory runs out; says so and returns true when
 * the examples were built without libpng. */
bool placement_side_png(const char *path, const side_view *views, int count, int rings, int sides);

#endif
