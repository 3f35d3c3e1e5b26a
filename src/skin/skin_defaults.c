/* The resolved-defaults query of the skin desc (docs/api.md, Defaults): the
 * resolve function create uses, with the constants of skin/skin_defaults.h. */
#include <string.h>

#include "skin/skin_defaults.h"
#include "skin/skin_internal.h"

void sn_skin_resolve_desc(sinew_skin_desc *d)
{
    /* Normalised weights' default is a rule on each vertex's raw sum (its
     * nonzero slots' rounding), not one number: it stays 0. */
    if (d->weight_type == SINEW_SKIN_WEIGHT_F32 && d->weight_tolerance == 0.0f)
        d->weight_tolerance = SN_SKIN_DEFAULT_WEIGHT_TOLERANCE;
}

sinew_result sinew_skin_desc_defaults(const sinew_skin_desc *desc, sinew_skin_desc *resolved)
{
    sinew_skin_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    sn_skin_resolve_desc(&d);
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}
