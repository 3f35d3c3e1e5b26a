/*
 * sinew: surface-oriented free-form deformation (Singh & Kokkevis).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_SOFFD_H
#define SINEW_SOFFD_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SINEW_SOFFD_H */
