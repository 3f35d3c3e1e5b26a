/* The deformed image of a straight segment as exact Bezier pieces: the error
 * bound used by refinement and sinew_lattice_segment_bound. */
#ifndef SINEW_LATTICE_SEGMENT_H
#define SINEW_LATTICE_SEGMENT_H

#include "lattice/lattice_internal.h"

/* World point p deformed in double precision throughout (sinew_lattice_deform
 * rounds the basis values to float and sums in float). */
void sn_lat_deform_point(const sinew_lattice *lat, const double p[3], double out[3]);

/* Distance from q to the segment a-b (a point when a == b). */
double sn_lat_segment_distance(const double q[3], const double a[3], const double b[3]);

/* Guaranteed deviation bound of segment pa-pb: the largest distance from the
 * chord fa-fb (its deformed ends) of the Bezier control points of F along the
 * segment, split where it crosses knot planes and the box faces, and the
 * segment parameter (Greville abscissa) of the farthest control point. */
void sn_lat_segment_bound(const sinew_lattice *lat, const double pa[3], const double pb[3], const double fa[3],
                          const double fb[3], double *bound, double *split_t);

#endif /* SINEW_LATTICE_SEGMENT_H */
