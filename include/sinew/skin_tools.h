/*
 * sinew: skinning weight tools: automatic binding, rogue-vertex removal, smoothing, pruning.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_SKIN_TOOLS_H
#define SINEW_SKIN_TOOLS_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SINEW_SKIN_TOOLS_H */
