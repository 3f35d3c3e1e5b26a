/* Runtime version, so callers can check the library they linked. */
#include "core/internal.h"

const char *sinew_version(void)
{
    return SINEW_VERSION_STRING;
}

uint32_t sinew_version_number(void)
{
    return SINEW_VERSION_NUMBER;
}
