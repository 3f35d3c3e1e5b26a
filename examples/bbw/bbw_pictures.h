/* PNG images of the BBW examples (examples/render). Not part of the library. */
#ifndef SINEW_EXAMPLE_BBW_PICTURES_H
#define SINEW_EXAMPLE_BBW_PICTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A triangle surface and its weights: handle_count per vertex, vertex-major. */
typedef struct bbw_picture_surface {
    const float *positions;
    size_t vertex_count;
    const uint32_t *triangles;
    size_t triangle_count;
    const float *weights;
    size_t handle_count;
} bbw_picture_surface;

/* The 2D example's handles in handle order: points, then bones (joint index
 * pairs into joints), then one closed cage (its vertices, in order). */
typedef struct bbw_picture_handles {
    const float *points;
    size_t point_count;
    const float *joints;
    const uint32_t *bones;
    size_t bone_count;
    const float *cage;
    size_t cage_count;
} bbw_picture_handles;

/* Writes dir/bbw_2d_weights.png: one panel per handle (up to 7), its weight as
 * a colour map over the shape with the handles drawn on top (that handle in
 * red), and a colour bar. Returns false when the file cannot be written or
 * memory runs out; says so and returns true when built without libpng. */
bool bbw_2d_pictures(const char *dir, const bbw_picture_surface *shape, const bbw_picture_handles *handles);

/* Writes dir/bbw_hand_weights.png: the hand coloured by the weights of two
 * bones (first, second) at rest, and posed (the second bone's colours).
 * Same returns as bbw_2d_pictures. */
bool bbw_hand_pictures(const char *dir, const bbw_picture_surface *rest, const float *posed, size_t first, size_t second);

#endif
