/*
 * sinew: embeddable C11 library for mesh deformation.
 * The one header to include; it pulls in every technique's header.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_H
#define SINEW_H

#include "sinew/core.h"    /* version, results, context, geometry views */
#include "sinew/skin.h"    /* smooth (linear blend) and dual-quaternion skinning */
#include "sinew/skin_tools.h" /* binding helpers producing skinning weights */
#include "sinew/soffd.h"   /* surface-oriented free-form deformation */
#include "sinew/soffd_driver.h" /* SOFFD drivers decimated from the skin */
#include "sinew/lattice.h" /* trivariate B-spline FFD, refinement, placement */
#include "sinew/placement.h" /* lattices along a sketched path over a scene */
#include "sinew/bbw.h"     /* bounded biharmonic weights */
#include "sinew/bbw_pose.h" /* handle transforms inferred at pose time (subspace ARAP) */
#include "sinew/corrective.h" /* pose-space correctives and morph targets */
#include "sinew/combine.h" /* several deformers on one object: weighted displacements */

#endif /* SINEW_H */
