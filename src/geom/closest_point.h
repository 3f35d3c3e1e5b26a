/*
 * Exact closest point on a triangle (Ericson's Voronoi-region method), and the
 * small vector helpers the geometry modules share.
 */
#ifndef SINEW_GEOM_CLOSEST_POINT_H
#define SINEW_GEOM_CLOSEST_POINT_H

/* Closest point to p on the triangle (a, b, c). Writes the point to `closest`
 * and its barycentric coordinates (weights of a, b, c; non-negative, summing to
 * one) to `bary`; either may be NULL. Returns the squared distance. Degenerate
 * triangles (segments, points) give a finite point of the triangle, never NaN.
 * Works in double precision so the
 * region tests do not flip for points far from the triangle. */
float sn_closest_point_triangle(const float p[3], const float a[3], const float b[3], const float c[3],
                                float closest[3], float bary[3]);

#endif /* SINEW_GEOM_CLOSEST_POINT_H */
