/* The growing-struct scheme of core.h: descs read up to the caller's
 * struct_size, infos written up to it. */
#include <string.h>

#include "core/internal.h"

static sinew_result caller_size(const void *caller, const char *what, size_t *size)
{
    if (!caller) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", what);
    size_t s = 0;
    memcpy(&s, caller, sizeof s);
    if (s < sizeof(size_t))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                       "%s has struct_size %zu: initialise the struct with SINEW_INIT before filling it",
                       what, s);
    if (s > SN_STRUCT_MAX_SIZE)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s->struct_size is %zu, more than any struct (at most %u)",
                       what, s, SN_STRUCT_MAX_SIZE);
    *size = s;
    return SINEW_OK;
}

sinew_result sn_read_struct(void *local, size_t local_size, const void *caller, const char *what)
{
    size_t s = 0;
    sinew_result r = caller_size(caller, what, &s);
    if (r != SINEW_OK) return r;
    const unsigned char *bytes = (const unsigned char *)caller;
    for (size_t i = local_size; i < s; ++i)
        if (bytes[i] != 0)
            return sn_fail(SINEW_ERROR_UNSUPPORTED,
                           "%s byte %zu is set, but this library (%s) knows only the first %zu bytes of the "
                           "struct: a field from a newer header",
                           what, i, SINEW_VERSION_STRING, local_size);
    size_t known = s < local_size ? s : local_size;
    memcpy(local, caller, known);
    memset((unsigned char *)local + known, 0, local_size - known);
    memcpy(local, &local_size, sizeof local_size);
    return SINEW_OK;
}

sinew_result sn_check_struct_out(const void *caller, const char *what)
{
    size_t s = 0;
    return caller_size(caller, what, &s);
}

void sn_write_struct(void *caller, const void *local, size_t local_size)
{
    size_t s = 0;
    memcpy(&s, caller, sizeof s);
    size_t known = s < local_size ? s : local_size;
    /* The caller's struct_size stays as it was: only the fields after it are written. */
    if (known > sizeof s) memcpy((unsigned char *)caller + sizeof s, (const unsigned char *)local + sizeof s, known - sizeof s);
    if (s > local_size) memset((unsigned char *)caller + local_size, 0, s - local_size);
}

sinew_result sn_defaults_begin(const void *desc, const void *resolved, void *local, size_t local_size)
{
    sn_clear_error();
    if (sn_check_struct_out(resolved, "resolved") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    memset(local, 0, local_size);
    if (desc) return sn_read_struct(local, local_size, desc, "desc");
    memcpy(local, &local_size, sizeof local_size);
    return SINEW_OK;
}
