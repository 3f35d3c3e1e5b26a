/* The resolved-defaults query of the corrective desc (docs/api.md,
 * Defaults). The corrective has no tuned constant: its one numeric default,
 * the radius, is measured on the keys' poses when the corrective is built. */
#include <string.h>

#include "corrective/corrective_internal.h"

sinew_result sinew_corrective_desc_defaults(const sinew_corrective_desc *desc, sinew_corrective_desc *resolved)
{
    sinew_corrective_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    /* Morph targets' pose is the key weights (build.c takes key_count). */
    if (d.kernel == SINEW_CORRECTIVE_KERNEL_WEIGHTS && d.pose_size == 0) d.pose_size = d.key_count;
    /* radius 0 (the mean distance from each pose to its nearest other) depends
     * on the poses' values: it stays 0, and sinew_corrective_info reports the
     * radius in use. smoothing 0 is no smoothing, kernel 0 the Gaussian. */
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}
