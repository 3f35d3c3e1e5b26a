/*
 * sinew: trivariate B-spline free-form deformation (Schein & Elber).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_LATTICE_H
#define SINEW_LATTICE_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SINEW_LATTICE_H */
