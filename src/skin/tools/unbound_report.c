#include "skin/tools/unbound_report.h"

sinew_result sn_skin_unbound_list_check(const uint32_t *list, size_t capacity, const char *what)
{
    if (capacity > 0 && !list)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: report lists %zu entries but its array is NULL", what,
                       capacity);
    size_t list_bytes;
    if (!sn_mul_size(capacity, sizeof *list, &list_bytes))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%s: report capacity %zu overflows", what, capacity);
    return SINEW_OK;
}

void sn_skin_unbound_list_fill(uint32_t *list, size_t capacity, const unsigned char *is_unbound, size_t n)
{
    size_t listed = 0;
    for (size_t v = 0; v < n && listed < capacity; ++v)
        if (is_unbound[v]) list[listed++] = (uint32_t)v;
}
