/* The resolved-defaults query of the soffd desc (docs/api.md, Defaults). */
#include <string.h>

#include "soffd/soffd_defaults.h"
#include "soffd/soffd_internal.h"

sinew_result sinew_soffd_desc_defaults(const sinew_soffd_desc *desc, sinew_soffd_desc *resolved)
{
    sn_clear_error();
    if (sn_check_struct_out(resolved, "resolved") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_soffd_desc d;
    memset(&d, 0, sizeof d);
    sinew_result r;
    if (desc && (r = sn_read_struct(&d, sizeof d, desc, "desc")) != SINEW_OK) return r;
    d.struct_size = sizeof d;
    if (d.local == 0.0f) d.local = SN_SOFFD_DEFAULT_LOCAL;
    /* length_scale 0 (the driver's mean edge length) depends on the driver: it stays 0. */
    sn_write_struct(resolved, &d, sizeof d);
    return SINEW_OK;
}
