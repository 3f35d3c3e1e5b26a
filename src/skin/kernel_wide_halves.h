/*
 * Pieces of the several-vertex kernel (kernel_wide_body.h) for 16-lane
 * blocks, built from two blocks of eight (kernel_lanes8_avx2.h): lanes 0..7
 * are the low half, 8..15 the high half. The arithmetic runs 16 wide;
 * matrices, and streams that are not packed, move eight vertices at a time.
 * Included after the body by a 16-lane vocabulary that also defines
 *
 *   sn_w_join(lo, hi)   a register from two __m256 halves
 *   sn_w_lo(v), sn_w_hi(v)   its halves as __m256
 *
 * and may define SN_W_LOAD3_PACKED16, SN_W_LOAD4_PACKED16,
 * SN_W_STORE3_PACKED16 and SN_W_STORE4_PACKED16 (see sn_packed_halves),
 * which move a block of two packed halves of consecutive vertices in whole
 * registers; without them those halves go eight at a time like the rest.
 *
 * (kernel_wide_avx512.h, and the emulation the tests run on AVX2 machines,
 * tests/skin/kernel_lanes16_emulated.c: the same pieces over a different
 * vocabulary).
 *
 * A block of n <= 8 live lanes repeats its low half in the high one, so its
 * dead lanes hold live vertices' data (no vanished-direction patch for them).
 * Bind data pads vertices in blocks of SN_SKIN_PAD_VERTICES = 8, so a group's
 * 16 consecutive positions are often two padding blocks that lie apart in the
 * mesh: each half whose vertices are consecutive reads and writes the streams
 * whole, whatever the other half does.
 */
#ifndef SINEW_SKIN_KERNEL_WIDE_HALVES_H
#define SINEW_SKIN_KERNEL_WIDE_HALVES_H

#include "skin/kernel_lanes8_avx2.h"

/* How a half's matrices are blended and transposed: the vocabulary may name
 * its own (the same bits, see kernel_lanes8_avx512.h). */
#ifndef SN_BLENDED8
#  define SN_BLENDED8 sn_blended_avx2
#endif

_Static_assert(SN_W_LANES == 16, "kernel_wide_halves.h is for 16-lane vocabularies");

/* Where half h (lanes 8h..) of a block of n lanes (block addressing p,
 * lanes as SN_LANE) is in its stream: n8 live lanes at p + offset with lane
 * addressing `lanes`. */
typedef struct sn_half_at {
    size_t offset;
    const uint32_t *lanes;
    unsigned n8;
} sn_half_at;

SN_SKIN_INLINE sn_half_at sn_half_of(size_t stride, unsigned n, const uint32_t *lanes, unsigned h)
{
    const unsigned first = 8 * h, n8 = n - first < 8 ? n - first : 8;
    sn_half_at a = {0, NULL, n8};
    if (!lanes) a.offset = (size_t)first * stride;
    else if (lanes[first + n8 - 1] - lanes[first] == n8 - 1) a.offset = (size_t)lanes[first] * stride;
    else a.lanes = lanes + first;
    return a;
}

/* The n8 vertices at group positions i.. as e[3 c + r] (row r of column c):
 * in place when they share their joints (the body's shared blend, whose low
 * half holds them), else blended one by one and transposed. Per lane both
 * are the same operations, so the bits do not depend on the choice. */
SN_SKIN_INLINE void sn_matrices_half(const sn_skin_group *g, size_t i, unsigned n8, const float *palette,
                                     const sn_skin_format format, const unsigned K, __m256 e[12])
{
    if (sn_shared_joints_w(g, i, n8, format, K)) {
        const sn_mv m = sn_matrices_shared_w(g, i, n8, palette, format, K);
        for (int c = 0; c < 4; ++c)
            e[3 * c] = sn_w_lo(m.a[c].x), e[3 * c + 1] = sn_w_lo(m.a[c].y), e[3 * c + 2] = sn_w_lo(m.a[c].z);
        return;
    }
    SN_BLENDED8(g, i, n8, palette, format, K, e);
}

SN_SKIN_INLINE sn_mv sn_matrices_w(const sn_skin_group *g, size_t i, unsigned n, const float *palette,
                                   const sn_skin_format format, const unsigned K)
{
    /* Neighbouring vertices often hang on the same joints: a block whose 16
     * share them blends in place at full width. */
    if (n > 8 && sn_shared_joints_w(g, i, n, format, K)) return sn_matrices_shared_w(g, i, n, palette, format, K);
    __m256 lo[12], hi[12];
    sn_matrices_half(g, i, n < 8 ? n : 8, palette, format, K, lo);
    if (n > 8) sn_matrices_half(g, i + 8, n - 8, palette, format, K, hi);
    else memcpy(hi, lo, sizeof lo);
    sn_mv m;
    for (int c = 0; c < 4; ++c) {
        m.a[c].x = sn_w_join(lo[3 * c], hi[3 * c]);
        m.a[c].y = sn_w_join(lo[3 * c + 1], hi[3 * c + 1]);
        m.a[c].z = sn_w_join(lo[3 * c + 2], hi[3 * c + 2]);
    }
    return m;
}

SN_SKIN_INLINE bool sn_block_weights_w(const sn_skin_group *g, size_t i, unsigned n, const sn_skin_format format,
                                       const unsigned K, sn_w *w)
{
    __m256 lo[4], hi[4];
    if (n != 16 || !sn_block_weights_avx2(g, i, 8, format, K, lo) || !sn_block_weights_avx2(g, i + 8, 8, format, K, hi))
        return false;
    for (unsigned s = 0; s < K; ++s) w[s] = sn_w_join(lo[s], hi[s]);
    return true;
}

/* Whether a block of sixteen is two halves of packed consecutive vectors of
 * `count` floats, at byte offsets *a and *b from the block's addressing
 * pointer: the vocabulary's whole-register moves (SN_W_LOAD3_PACKED16 and
 * the like, see kernel_streams16_avx512.h) take those. */
SN_SKIN_INLINE bool sn_packed_halves(size_t stride, unsigned n, const uint32_t *lanes, unsigned count, size_t *a,
                                     size_t *b)
{
    if (n != 16 || stride != count * sizeof(float)) return false;
    const sn_half_at ha = sn_half_of(stride, n, lanes, 0), hb = sn_half_of(stride, n, lanes, 1);
    if (ha.lanes || hb.lanes) return false;
    *a = ha.offset, *b = hb.offset;
    return true;
}

/* Loads `count` (3 or 4) components of both halves; a block of eight or
 * fewer repeats its low half. */
SN_SKIN_INLINE void sn_load_halves(const char *p, size_t stride, unsigned n, const uint32_t *lanes, unsigned count,
                                   sn_w *out)
{
#if defined(SN_W_LOAD3_PACKED16)
    size_t at_a, at_b;
    if (sn_packed_halves(stride, n, lanes, count, &at_a, &at_b)) {
        const float *fa = (const float *)(const void *)(p + at_a), *fb = (const float *)(const void *)(p + at_b);
        if (count == 3) SN_W_LOAD3_PACKED16(fa, fb, out);
        else SN_W_LOAD4_PACKED16(fa, fb, out);
        return;
    }
#endif
    __m256 lo[4], hi[4];
    const sn_half_at a = sn_half_of(stride, n, lanes, 0);
    if (count == 3) sn_load3_avx2(p + a.offset, stride, a.n8, a.lanes, lo);
    else sn_load4_avx2(p + a.offset, stride, a.n8, a.lanes, lo);
    if (n > 8) {
        const sn_half_at b = sn_half_of(stride, n, lanes, 1);
        if (count == 3) sn_load3_avx2(p + b.offset, stride, b.n8, b.lanes, hi);
        else sn_load4_avx2(p + b.offset, stride, b.n8, b.lanes, hi);
    } else {
        memcpy(hi, lo, sizeof lo);
    }
    for (unsigned c = 0; c < count; ++c) out[c] = sn_w_join(lo[c], hi[c]);
}

SN_SKIN_INLINE sn_xv sn_load3_w(const char *p, size_t stride, unsigned n, const uint32_t *lanes)
{
    sn_w r[3];
    sn_load_halves(p, stride, n, lanes, 3, r);
    const sn_xv v = {r[0], r[1], r[2]};
    return v;
}

SN_SKIN_INLINE sn_xv sn_load4_w(const char *p, size_t stride, unsigned n, const uint32_t *lanes, sn_w *w)
{
    sn_w r[4];
    sn_load_halves(p, stride, n, lanes, 4, r);
    const sn_xv v = {r[0], r[1], r[2]};
    *w = r[3];
    return v;
}

SN_SKIN_INLINE void sn_store3_w(char *p, size_t stride, unsigned n, const uint32_t *lanes, sn_xv v)
{
#if defined(SN_W_STORE3_PACKED16)
    size_t at_a, at_b;
    if (sn_packed_halves(stride, n, lanes, 3, &at_a, &at_b)) {
        SN_W_STORE3_PACKED16((float *)(void *)(p + at_a), (float *)(void *)(p + at_b), v.x, v.y, v.z);
        return;
    }
#endif
    const sn_half_at a = sn_half_of(stride, n, lanes, 0);
    sn_store3_avx2(p + a.offset, stride, a.n8, a.lanes, sn_w_lo(v.x), sn_w_lo(v.y), sn_w_lo(v.z));
    if (n <= 8) return;
    const sn_half_at b = sn_half_of(stride, n, lanes, 1);
    sn_store3_avx2(p + b.offset, stride, b.n8, b.lanes, sn_w_hi(v.x), sn_w_hi(v.y), sn_w_hi(v.z));
}

SN_SKIN_INLINE void sn_store4_w(char *p, size_t stride, unsigned n, const uint32_t *lanes, sn_xv v, sn_w w)
{
#if defined(SN_W_STORE4_PACKED16)
    size_t at_a, at_b;
    if (sn_packed_halves(stride, n, lanes, 4, &at_a, &at_b)) {
        SN_W_STORE4_PACKED16((float *)(void *)(p + at_a), (float *)(void *)(p + at_b), v.x, v.y, v.z, w);
        return;
    }
#endif
    const sn_half_at a = sn_half_of(stride, n, lanes, 0);
    sn_store4_avx2(p + a.offset, stride, a.n8, a.lanes, sn_w_lo(v.x), sn_w_lo(v.y), sn_w_lo(v.z), sn_w_lo(w));
    if (n <= 8) return;
    const sn_half_at b = sn_half_of(stride, n, lanes, 1);
    sn_store4_avx2(p + b.offset, stride, b.n8, b.lanes, sn_w_hi(v.x), sn_w_hi(v.y), sn_w_hi(v.z), sn_w_hi(w));
}

#endif /* SINEW_SKIN_KERNEL_WIDE_HALVES_H */
