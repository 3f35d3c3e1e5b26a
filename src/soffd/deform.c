/* Pose time, basic algorithm (paper section 3.3): element frames Q_k^D of the
 * current driver, then P_def = sum_k u_k Q_k^D P_k^R. Registration stored
 * (u x, u y, u z, u) per entry, so each contribution is four scaled columns of
 * a 4x4 frame: 16 multiply-adds over 64 contiguous bytes. */
#include <math.h>
#include <string.h>

#include "soffd/soffd_internal.h"

size_t sinew_soffd_element_frames_size(const sinew_soffd *h)
{
    return h ? 16 * h->element_count : 0;
}

size_t sinew_soffd_vertex_frames_size(const sinew_soffd *h)
{
    return h ? 16 * h->vertex_count : 0;
}

/* A frames buffer holds 16 floats per element (per driver vertex for the
 * extended algorithm): any other size is refused before it is read or written. */
static sinew_result check_frames(const sinew_soffd *h, const float *frames, size_t frame_floats, bool per_vertex)
{
    if (!frames) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "frames is NULL");
    if ((uintptr_t)frames % sizeof(float) != 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "frames pointer %p is not aligned to 4 bytes", (const void *)frames);
    size_t need = per_vertex ? sinew_soffd_vertex_frames_size(h) : sinew_soffd_element_frames_size(h);
    if (frame_floats != need && per_vertex)
        return sn_fail(SINEW_ERROR_MISMATCH, "vertex frames hold %zu floats, but the %zu driver vertices need %zu",
                       frame_floats, h->vertex_count, need);
    if (frame_floats != need)
        return sn_fail(SINEW_ERROR_MISMATCH, "element frames hold %zu floats, but the %zu elements need %zu",
                       frame_floats, h->element_count, need);
    return SINEW_OK;
}

/* Shared checks of the driver positions handed to a pose call. */
sinew_result sn_soffd_check_driver(const sinew_soffd *h, const sinew_points *driver_now, const float *frames,
                                   size_t frame_floats, bool per_vertex)
{
    if (!h) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "soffd is NULL");
    sinew_result r = check_frames(h, frames, frame_floats, per_vertex);
    if (r != SINEW_OK) return r;
    r = sn_check_points(driver_now, "driver vertex");
    if (r == SINEW_OK) r = sn_soffd_check_domain(driver_now, "driver vertex");
    if (r != SINEW_OK) return r;
    if (driver_now->count != h->vertex_count)
        return sn_fail(SINEW_ERROR_MISMATCH, "the driver has %zu vertices now, but %zu were bound", driver_now->count,
                       h->vertex_count);
    return SINEW_OK;
}

sinew_result sinew_soffd_element_frames(const sinew_soffd *h, const sinew_points *driver_now, float *frames,
                                        size_t frame_floats)
{
    sn_clear_error();
    sinew_result r = sn_soffd_check_driver(h, driver_now, frames, frame_floats, false);
    if (r != SINEW_OK) return r;
    for (size_t k = 0; k < h->element_count; ++k) {
        const uint32_t *t = &h->elements[3 * k];
        sn_soffd_element_frame(sn_point(driver_now, t[0]), sn_point(driver_now, t[1]), sn_point(driver_now, t[2]),
                               &h->reference_normal[3 * k], &frames[16 * k]);
    }
    return SINEW_OK;
}

/* Shared checks of a deform call's output and range. */
sinew_result sn_soffd_check_range(const sinew_soffd *h, const float *frames, size_t frame_floats, bool per_vertex,
                                  const float *out, size_t out_stride, size_t first, size_t count)
{
    if (!h) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "soffd is NULL");
    if (!frames || !out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", frames ? "out" : "frames");
    if (out_stride != 0 && (out_stride < 3 * sizeof(float) || out_stride % sizeof(float) != 0))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out_stride %zu bytes: must be 0 or a multiple of 4 that is at least 12",
                       out_stride);
    if ((uintptr_t)frames % sizeof(float) != 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "frames pointer %p is not aligned to 4 bytes", (const void *)frames);
    if ((uintptr_t)out % sizeof(float) != 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out pointer %p is not aligned to 4 bytes", (const void *)out);
    sinew_result r = check_frames(h, frames, frame_floats, per_vertex);
    if (r != SINEW_OK) return r;
    if (!h->registered) return sn_fail(SINEW_ERROR_INVALID_STATE, "no points are registered yet");
    if (first > h->reg.point_count || count > h->reg.point_count - first)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "points [%zu, %zu + %zu) lie past the %zu registered", first,
                       first, count, h->reg.point_count);
    /* Point i is written at out + i * out_stride: the last one must be addressable. */
    if (!sn_span_fits(first + count, sn_stride(out_stride, 3 * sizeof(float)), 3 * sizeof(float)))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "point %zu at out_stride %zu bytes lies past the address space",
                       first + count - 1, out_stride);
    return SINEW_OK;
}

/* P_def = D0 + sum_k u_k ((A_k - D0) + x_k e1 + y_k e2 + z_k e3) + o_P, with D0
 * the origin of the point's first (nearest) element's frame. In exact
 * arithmetic the sum is the paper's (the u_k sum to one) and o_P is zero. In
 * float the world-sized coordinate D0 is added once, after the sum of
 * local-sized terms, so models far from the origin keep their precision (the
 * frames' A_k - D0 is a difference of nearby floats, exact or nearly). o_P is
 * the registered point minus this very sum at the rest frames Q_k^R (made by
 * the same function as the current ones), kept per point: at the bind pose the
 * sum repeats bit for bit and P comes back exactly, however thin the element
 * (a sliver's local coordinates can be thousands of edge lengths, and their
 * products cancel in float). */
enum { SUM_BLOCK = 32 };

#if defined(__GNUC__) || defined(__clang__)
/* Four-lane vectors (GCC/Clang extension; plain SSE2/NEON code, no ISA flags):
 * one column of a frame per register, the coefficient broadcast to all lanes. */
typedef float sn_v4 __attribute__((vector_size(16)));

static inline sn_v4 load4(const float *p)
{
    sn_v4 v;
    memcpy(&v, p, sizeof v); /* frames are the caller's memory: no alignment promise */
    return v;
}

/* Sum of u_k ((A_k - anchor) + x_k e1 + y_k e2 + z_k e3) over n contributions, in float. */
static inline sn_v4 block_sum(const float *frames, const uint32_t *element, const float *coeff, size_t n, sn_v4 anchor)
{
    sn_v4 acc = {0, 0, 0, 0};
    for (size_t j = 0; j < n; ++j) {
        const float *q = &frames[16 * (size_t)element[j]];
        const float *c = &coeff[4 * j];
        acc += c[0] * load4(q) + c[1] * load4(q + 4) + c[2] * load4(q + 8) + c[3] * (load4(q + 12) - anchor);
    }
    return acc;
}

/* The sum above for one point's n >= 1 entries, in double before its final rounding. */
static inline void point_sum(const float *frames, const uint32_t *element, const float *coeff, size_t n,
                             double out[3])
{
    const float *d0 = &frames[16 * (size_t)element[0] + 12];
    sn_v4 anchor = load4(d0);
    if (n <= SUM_BLOCK) {
        sn_v4 acc = block_sum(frames, element, coeff, n, anchor);
        for (int l = 0; l < 3; ++l) out[l] = (double)acc[l] + d0[l];
        return;
    }
    /* Blocks of float sums flushed into double: an unpruned set of thousands
     * of terms would otherwise lose digits in one float sum. */
    double sum[3] = {0, 0, 0};
    for (size_t j = 0; j < n; j += SUM_BLOCK) {
        sn_v4 acc = block_sum(frames, element + j, coeff + 4 * j, n - j > SUM_BLOCK ? SUM_BLOCK : n - j, anchor);
        for (int l = 0; l < 3; ++l) sum[l] += acc[l];
    }
    for (int l = 0; l < 3; ++l) out[l] = sum[l] + d0[l];
}
#else
static inline void point_sum(const float *frames, const uint32_t *element, const float *coeff, size_t n,
                             double out[3])
{
    const float *anchor = &frames[16 * (size_t)element[0] + 12];
    double sum[3] = {0, 0, 0};
    for (size_t j = 0; j < n;) {
        size_t end = n - j > SUM_BLOCK ? j + SUM_BLOCK : n;
        float acc[3] = {0, 0, 0};
        for (; j < end; ++j) {
            const float *q = &frames[16 * (size_t)element[j]];
            const float *c = &coeff[4 * j];
            for (int l = 0; l < 3; ++l)
                acc[l] += c[0] * q[l] + c[1] * q[4 + l] + c[2] * q[8 + l] + c[3] * (q[12 + l] - anchor[l]);
        }
        for (int l = 0; l < 3; ++l) sum[l] += acc[l];
    }
    for (int l = 0; l < 3; ++l) out[l] = sum[l] + anchor[l];
}
#endif

void sn_soffd_rest_offset_update(const sinew_soffd *h, sn_soffd_reg *reg, size_t point)
{
    double *o = &reg->rest_offset[3 * point];
    size_t s = reg->offsets[point], n = reg->offsets[point + 1] - s;
    if (n == 0) {
        o[0] = o[1] = o[2] = 0;
        return;
    }
    double sum[3];
    point_sum(h->reference_frame, &reg->element[s], &reg->coeff[4 * s], n, sum);
    for (int l = 0; l < 3; ++l) o[l] = (double)reg->rest[3 * point + l] - sum[l];
}

bool sn_soffd_rest_offsets_build(const sinew_soffd *h, sn_soffd_reg *reg)
{
    reg->rest_offset = (double *)sn_alloc_array(&h->env, reg->point_count, 3 * sizeof(double), "soffd rest offsets");
    if (!reg->rest_offset) return false; /* a failed allocation fails even for no points: it left a message */
    for (size_t i = 0; i < reg->point_count; ++i) sn_soffd_rest_offset_update(h, reg, i);
    return true;
}

/* The frames must lie in the domain that keeps the kernel finite (see
 * soffd_internal.h): element_frames' output always does, frames from elsewhere
 * are checked, O(element_count). */
static sinew_result check_element_frames(const sinew_soffd *h, const float *frames)
{
    static const float e = (float)SN_SOFFD_MAX_EDGE, o = (float)SN_SOFFD_MAX_COORD;
    const float limit[16] = {e, e, e, 0, e, e, e, 0, 2, 2, 2, 0, o, o, o, 0};
    size_t k = sn_soffd_first_matrix_outside(frames, h->element_count, limit);
    if (k < h->element_count)
        return sn_fail(SINEW_ERROR_OUTSIDE_DOMAIN,
                       "the frame of element %zu has an edge beyond 2^61, a normal longer than 2, an origin beyond "
                       "2^60 or a non-finite entry (frames come from sinew_soffd_element_frames)", k);
    return SINEW_OK;
}

sinew_result sinew_soffd_deform(const sinew_soffd *h, const float *frames, size_t frame_floats,
                                const sinew_points *normals, float *out, size_t out_stride, float *out_normals,
                                size_t out_normal_stride, size_t first, size_t count)
{
    sn_clear_error();
    sinew_result r = sn_soffd_check_range(h, frames, frame_floats, false, out, out_stride, first, count);
    if (r == SINEW_OK) r = sn_soffd_check_normals(h, normals, out_normals, out_normal_stride, first, count);
    if (r == SINEW_OK && count > 0) r = check_element_frames(h, frames);
    if (r != SINEW_OK) return r;
    out_stride = sn_stride(out_stride, 3 * sizeof(float));
    const sn_soffd_reg *reg = &h->reg;
    const size_t *offsets = reg->offsets;
    const uint32_t *element = reg->element;
    const float *coeff = reg->coeff;
    for (size_t i = first; i < first + count; ++i) {
        float *o = (float *)((char *)out + i * out_stride);
        size_t s = offsets[i], e = offsets[i + 1];
        if (s == e) {
            memcpy(o, &reg->rest[3 * i], 3 * sizeof(float));
            continue;
        }
        double sum[3];
        point_sum(frames, &element[s], &coeff[4 * s], e - s, sum);
        const double *off = &reg->rest_offset[3 * i];
        for (int l = 0; l < 3; ++l) o[l] = (float)(sum[l] + off[l]);
    }
    if (!out_normals) return SINEW_OK;
    for (size_t i = first; i < first + count; ++i) {
        double jac[9];
        sn_soffd_element_jacobian(h, frames, i, jac);
        sn_transform_normal(jac, sn_point(normals, i),
                            (float *)((char *)out_normals + i * sn_stride(out_normal_stride, 3 * sizeof(float))));
    }
    return SINEW_OK;
}
