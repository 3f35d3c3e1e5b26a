/* Triangulation of planar or nearly planar polygons (n-gons, convex or not). */
#ifndef SINEW_GEOM_POLYGON_H
#define SINEW_GEOM_POLYGON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Ear-clips the polygon face[0..n) (vertex indices into positions, stride in
 * bytes, 0 = packed) in the plane of its Newell normal. Writes up to n - 2
 * triangles (3 indices each, same winding as the polygon) to `triangles` and
 * their number to *written; a vertex lying on the straight line between its
 * neighbours may be left out (it is then the corner of no triangle). `scratch`
 * holds n entries. Returns false when the polygon has no area or no ear can be
 * found (self-intersecting outline). */
bool sn_triangulate_polygon(const float *positions, size_t stride, const uint32_t *face, size_t n,
                            uint32_t *triangles, size_t *written, uint32_t *scratch);

/* Maximum triangles sn_triangulate_polygon writes for an n-gon. */
static inline size_t sn_polygon_triangle_count(size_t n)
{
    return n >= 3 ? n - 2 : 0;
}

#endif /* SINEW_GEOM_POLYGON_H */
