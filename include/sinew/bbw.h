/*
 * sinew: bounded biharmonic weights (Jacobson et al.).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_BBW_H
#define SINEW_BBW_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SINEW_BBW_H */
