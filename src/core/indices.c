/* Index arrays in the caller's format (u8/u16/u32, any stride), validated and
 * handed to the algorithms as packed uint32_t. */
#include <string.h>

#include "core/internal.h"

size_t sn_index_size(sinew_index_type type)
{
    switch (type) {
    case SINEW_INDEX_U32: return 4;
    case SINEW_INDEX_U16: return 2;
    case SINEW_INDEX_U8: return 1;
    }
    return 0;
}

/* The layout alone, nothing read: a known type (INVALID_ARGUMENT), stride 0
 * or a multiple of the index size at least per indices (INVALID_ARGUMENT), a
 * span that fits (SIZE_OVERFLOW), data non-NULL and aligned to the index size
 * when count > 0 (INVALID_ARGUMENT). */
static sinew_result sn_check_index_layout(const void *data, sinew_index_type type, size_t stride, size_t count,
                                          size_t per, const char *what)
{
    const size_t size = sn_index_size(type);
    if (size == 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s index type %d is not a sinew_index_type", what, (int)type);
    if (count == 0) return SINEW_OK;
    const size_t packed = per * size; /* per is a small constant of the caller's element */
    if (stride != 0 && (stride % size != 0 || stride < packed))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                       "%s index stride %zu bytes: must be 0 or a multiple of %zu that is at least %zu", what, stride,
                       size, packed);
    /* Every byte the entries occupy must be addressable before one is read. */
    if (!sn_span_fits(count, sn_stride(stride, packed), packed))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%zu %ss of %zu indices overflow the address space", count, what,
                       per);
    if (!data) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s indices are NULL for %zu %ss", what, count, what);
    if ((uintptr_t)data % size != 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s index pointer %p is not aligned to %zu bytes", what, data,
                       size);
    return SINEW_OK;
}

uint32_t sn_index_at(const void *data, sinew_index_type type, size_t stride, size_t per, size_t element, size_t slot)
{
    const size_t size = sn_index_size(type);
    const char *p = (const char *)data + element * sn_stride(stride, per * size) + slot * size;
    switch (type) {
    case SINEW_INDEX_U16: return *(const uint16_t *)(const void *)p;
    case SINEW_INDEX_U8: return *(const uint8_t *)p;
    default: return *(const uint32_t *)(const void *)p;
    }
}

sinew_result sn_check_index_view(const void *data, sinew_index_type type, size_t stride, size_t count, size_t per,
                                 size_t limit, const char *what)
{
    sinew_result r = sn_check_index_layout(data, type, stride, count, per, what);
    if (r != SINEW_OK) return r;
    for (size_t e = 0; e < count; ++e)
        for (size_t s = 0; s < per; ++s) {
            uint32_t v = sn_index_at(data, type, stride, per, e, s);
            if (v >= limit)
                return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE,
                               "%s %zu refers to vertex %u (slot %zu), but there are only %zu", what, e, v, s, limit);
        }
    return SINEW_OK;
}

sinew_result sn_indices_read(const sn_env *env, const void *data, sinew_index_type type, size_t stride, size_t count,
                             size_t per, size_t limit, const char *what, sn_indices *out)
{
    sinew_result r = sn_check_index_view(data, type, stride, count, per, limit, what);
    if (r != SINEW_OK) return r;
    if (count == 0 || (type == SINEW_INDEX_U32 && (stride == 0 || stride == per * sizeof(uint32_t)))) {
        out->data = (const uint32_t *)data;
        out->owned = NULL;
        return SINEW_OK;
    }
    /* count * per fits: the caller's span of count * per entries did. */
    uint32_t *copy = (uint32_t *)sn_alloc_array(env, count * per, sizeof(uint32_t), what);
    if (!copy) return sn_alloc_failure();
    for (size_t e = 0; e < count; ++e)
        for (size_t s = 0; s < per; ++s) copy[e * per + s] = sn_index_at(data, type, stride, per, e, s);
    out->data = copy;
    out->owned = copy;
    return SINEW_OK;
}

void sn_indices_free(const sn_env *env, sn_indices *ix)
{
    sn_free(env, ix->owned);
    ix->owned = NULL;
    ix->data = NULL;
}
