/* The caller's joint and weight streams in any of the accepted formats
 * (u8/u16/u32 joints, float or normalised u8/u16 weights, any stride): layout
 * checks before anything is read, per-slot reads, and the sum test. */
#include <math.h>

#include "skin/skin_internal.h"

static size_t weight_size(sinew_skin_weight_type type)
{
    switch (type) {
    case SINEW_SKIN_WEIGHT_F32: return 4;
    case SINEW_SKIN_WEIGHT_UNORM16: return 2;
    case SINEW_SKIN_WEIGHT_UNORM8: return 1;
    }
    return 0;
}

/* One stream of vertex_count records of influence_count elements of `size` bytes. */
static sinew_result check_stream(const sinew_skin_desc *d, const void *data, size_t size, size_t stride,
                                 const char *name)
{
    const size_t packed = d->influence_count * size; /* fits: the caller checked 4 bytes per slot */
    if (!data) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin %s array is NULL", name);
    if ((uintptr_t)data % size != 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin %s pointer %p is not aligned to %zu bytes", name, data,
                       size);
    if (stride != 0 && (stride % size != 0 || stride < packed))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                       "skin %s stride %zu bytes: must be 0 or a multiple of %zu that is at least %zu "
                       "(influence_count %zu)", name, stride, size, packed, d->influence_count);
    if (!sn_span_fits(d->vertex_count, sn_stride(stride, packed), packed))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "skin %s: %zu vertices at stride %zu bytes overflow the address space",
                       name, d->vertex_count, stride);
    return SINEW_OK;
}

sinew_result sn_skin_check_streams(const sinew_skin_desc *d)
{
    const size_t jsize = sn_index_size(d->joint_type), wsize = weight_size(d->weight_type);
    if (jsize == 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin joint_type %d is not a sinew_index_type", (int)d->joint_type);
    if (wsize == 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin weight_type %d is not a sinew_skin_weight_type",
                       (int)d->weight_type);
    sinew_result r = check_stream(d, d->joints, jsize, d->joint_stride, "joints");
    if (r == SINEW_OK) r = check_stream(d, d->weights, wsize, d->weight_stride, "weights");
    return r;
}

uint32_t sn_skin_input_joint(const sinew_skin_desc *d, size_t v, size_t s)
{
    return sn_index_at(d->joints, d->joint_type, d->joint_stride, d->influence_count, v, s);
}

/* Address of weight slot s of vertex v. */
static const void *weight_at(const sinew_skin_desc *d, size_t v, size_t s)
{
    const size_t size = weight_size(d->weight_type);
    return (const char *)d->weights + v * sn_stride(d->weight_stride, d->influence_count * size) + s * size;
}

uint32_t sn_skin_input_raw_weight(const sinew_skin_desc *d, size_t v, size_t s)
{
    switch (d->weight_type) {
    case SINEW_SKIN_WEIGHT_UNORM16: return *(const uint16_t *)weight_at(d, v, s);
    case SINEW_SKIN_WEIGHT_UNORM8: return *(const uint8_t *)weight_at(d, v, s);
    default: return 0;
    }
}

float sn_skin_input_weight(const sinew_skin_desc *d, size_t v, size_t s)
{
    switch (d->weight_type) {
    case SINEW_SKIN_WEIGHT_UNORM16: return (float)sn_skin_input_raw_weight(d, v, s) / 65535.0f;
    case SINEW_SKIN_WEIGHT_UNORM8: return (float)sn_skin_input_raw_weight(d, v, s) / 255.0f;
    default: return *(const float *)weight_at(d, v, s);
    }
}

sinew_result sn_skin_check_sum(const sinew_skin_desc *d, size_t v, double sum, uint64_t raw_sum, size_t nonzero)
{
    if (d->weight_type == SINEW_SKIN_WEIGHT_F32 || d->weight_tolerance > 0.0f) {
        const float tolerance = d->weight_tolerance;   /* float weights' default resolved by create */
        if (fabs(sum - 1.0) > (double)tolerance)
            return sn_fail(SINEW_ERROR_INVALID_WEIGHTS,
                           "vertex %zu weights sum to %.9g, not 1 (tolerance %g; set renormalise to scale them)", v,
                           sum, (double)tolerance);
        return SINEW_OK;
    }
    /* Normalised weights: each nonzero one may be off by half a step from
     * rounding, so the raw sum may be off by nonzero / 2 steps, no more. */
    const uint64_t full = d->weight_type == SINEW_SKIN_WEIGHT_UNORM16 ? 65535u : 255u;
    const uint64_t off = raw_sum > full ? raw_sum - full : full - raw_sum;
    if (2 * off > nonzero)
        return sn_fail(SINEW_ERROR_INVALID_WEIGHTS,
                       "vertex %zu weights sum to %llu/%llu, more than rounding of its %zu weights can give (at most "
                       "%zu/2 steps off; set renormalise to scale them)", v, (unsigned long long)raw_sum,
                       (unsigned long long)full, nonzero, nonzero);
    return SINEW_OK;
}
