/* The emulated 16-lane kernel set (kernel_lanes16_emulated.c). */
#ifndef SKIN_KERNEL_LANES16_EMULATED_H
#define SKIN_KERNEL_LANES16_EMULATED_H

#include "sinew/skin.h"

/* Points a linear-blend skin's kernels at the emulated 16-lane table. */
void skin_test_use_lanes16(sinew_skin *skin);

#endif
