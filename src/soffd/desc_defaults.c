/* The resolved-defaults queries of the soffd descs (docs/api.md, Defaults). */
#include <string.h>

#include "soffd/soffd_defaults.h"
#include "soffd/soffd_internal.h"

sinew_result sinew_soffd_desc_defaults(const sinew_soffd_desc *desc, sinew_soffd_desc *resolved)
{
    sinew_soffd_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    if (d.local == 0.0f) d.local = SN_SOFFD_DEFAULT_LOCAL;
    /* length_scale 0 (the driver's mean edge length) depends on the driver: it stays 0. */
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}

sinew_result sinew_soffd_register_desc_defaults(const sinew_soffd_register_desc *desc,
                                                sinew_soffd_register_desc *resolved)
{
    sinew_soffd_register_desc d;
    sinew_result r = sn_defaults_begin(desc, resolved, &d, sizeof d);
    if (r != SINEW_OK) return r;
    sn_soffd_resolve_policy(&d);
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}

void sn_soffd_resolve_policy(sinew_soffd_register_desc *p)
{
    if (p->exact) return; /* no threshold: it stays 0 */
    if (p->weight_threshold == 0.0f) p->weight_threshold = SN_SOFFD_DEFAULT_WEIGHT_THRESHOLD;
    /* exclusive keeps one element whatever the cap says. */
    if (p->max_contributors == 0 && !p->exclusive) p->max_contributors = SN_SOFFD_DEFAULT_MAX_CONTRIBUTORS;
}
