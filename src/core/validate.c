/* Input validation shared by every module; each failure names the element. */
#include <math.h>

#include "core/internal.h"

bool sn_span_fits(size_t count, size_t stride, size_t elem_bytes)
{
    if (count == 0) return true;
    size_t span;
    return sn_mul_size(count - 1, stride, &span) && sn_add_size(span, elem_bytes, &span) &&
           span <= (size_t)PTRDIFF_MAX;
}

sinew_result sn_check_float_array(const void *ptr, size_t stride, size_t floats, size_t count, const char *what)
{
    if (count == 0) return SINEW_OK;
    if (!ptr) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s pointer is NULL for %zu elements", what, count);
    if ((uintptr_t)ptr % sizeof(float) != 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s pointer %p is not aligned to 4 bytes", what, ptr);
    const size_t packed = floats * sizeof(float);
    if (stride != 0 && (stride < packed || stride % sizeof(float) != 0))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s stride %zu bytes: must be 0 or a multiple of 4 that is at least %zu",
                       what, stride, packed);
    if (!sn_span_fits(count, sn_stride(stride, packed), packed))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%s: %zu elements of stride %zu bytes overflow the address space",
                       what, count, sn_stride(stride, packed));
    return SINEW_OK;
}

sinew_result sn_check_points(const sinew_points *p, const char *what)
{
    if (!p) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s view is NULL", what);
    if (p->count == 0) return SINEW_OK;
    if (!p->data) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s data is NULL for %zu points", what, p->count);
    if ((uintptr_t)p->data % sizeof(float) != 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s data pointer %p is not aligned to 4 bytes", what,
                       (const void *)p->data);
    if (p->stride != 0 && (p->stride < 3 * sizeof(float) || p->stride % sizeof(float) != 0))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                       "%s stride %zu bytes: must be 0 or a multiple of 4 that is at least 12", what, p->stride);
    size_t stride = sn_stride(p->stride, 3 * sizeof(float));
    /* The last byte read must be addressable: (count - 1) * stride + 12. */
    if (!sn_span_fits(p->count, stride, 3 * sizeof(float)))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%s: %zu points of stride %zu overflow the address space", what,
                       p->count, stride);
    for (size_t i = 0; i < p->count; ++i) {
        const float *q = sn_point(p, i);
        for (int k = 0; k < 3; ++k)
            if (!isfinite(q[k]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "%s %zu has a non-finite coordinate %c (%g)", what, i,
                               "xyz"[k], (double)q[k]);
    }
    return SINEW_OK;
}

sinew_result sn_check_indices(const uint32_t *idx, size_t count, size_t per, size_t limit, const char *what)
{
    if (count == 0) return SINEW_OK;
    /* The whole array, count * per * 4 bytes, must be addressable before any
     * entry is read. */
    size_t total;
    if (!sn_mul_size(count, per, &total) || !sn_span_fits(total, sizeof(uint32_t), sizeof(uint32_t)))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%zu %ss of %zu indices overflow the address space", count, what,
                       per);
    if (!idx) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s indices are NULL for %zu %ss", what, count, what);
    if ((uintptr_t)idx % sizeof(uint32_t) != 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s index pointer %p is not aligned to 4 bytes", what,
                       (const void *)idx);
    for (size_t i = 0; i < total; ++i)
        if (idx[i] >= limit)
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "%s %zu refers to vertex %u, but there are only %zu",
                           what, i / per, idx[i], limit);
    return SINEW_OK;
}
