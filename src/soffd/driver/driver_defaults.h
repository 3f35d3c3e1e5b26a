/* What a zero field of sinew_soffd_driver_desc stands for, in one place (the
 * public header restates it for users). */
#ifndef SN_SOFFD_DRIVER_DEFAULTS_H
#define SN_SOFFD_DRIVER_DEFAULTS_H

#include "sinew/soffd_driver.h"

/* weld_tolerance: far below any skin's feature size, far above the float
 * rounding of vertices that two patches share. */
#define SN_DRIVER_DEFAULT_WELD_TOLERANCE 1e-5f
/* joint_emphasis: driver edges at a joint about four times shorter than
 * along the spans, enough rings for an elbow's bend at a few hundred
 * triangles per character. */
#define SN_DRIVER_DEFAULT_JOINT_EMPHASIS 3.0f
/* joint_radius: a third of a bone either side of its joint bends with it. */
#define SN_DRIVER_DEFAULT_JOINT_RADIUS 0.35f

/* Fills the zero fields that have defaults: what the call and its query use. */
void sn_driver_resolve(sinew_soffd_driver_desc *d);

#endif /* SN_SOFFD_DRIVER_DEFAULTS_H */
