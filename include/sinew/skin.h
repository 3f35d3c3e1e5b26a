/*
 * sinew: smooth (linear blend) and dual-quaternion skinning.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_SKIN_H
#define SINEW_SKIN_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SINEW_SKIN_H */
