/* The load's fast checks of a skin's four-influence group, eight vertices at
 * a time (AVX2), for float storage and for compressed storage with 8-bit
 * joints: the same predicates as sn_skin_slots_ok in load.c for k = 4 in
 * those formats, lane by lane, so a skin passes here exactly when it passes
 * there. The slots of eight vertices are transposed
 * so lane i of slot vector s holds slot s of one vertex; the weight sum is
 * then added slot after slot in double, in the scalar pass's order. */
#include <immintrin.h>

#include "skin/skin_internal.h"

/* Slot vectors s = 0..3 of eight vertices from four rows of two vertices
 * each (a 4x4 transpose inside each 128-bit lane). */
static inline void transpose8x4(__m256 r0, __m256 r1, __m256 r2, __m256 r3, __m256 out[4])
{
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpacklo_ps(r2, r3);
    const __m256 t2 = _mm256_unpackhi_ps(r0, r1), t3 = _mm256_unpackhi_ps(r2, r3);
    out[0] = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(1, 0, 1, 0));
    out[1] = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(3, 2, 3, 2));
    out[2] = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(1, 0, 1, 0));
    out[3] = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

static inline __m256 joints_row(const uint16_t *p)
{
    return _mm256_castsi256_ps(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p)));
}

/* Eight bytes (two vertices' slots) widened to 32 bits. */
static inline __m256 bytes_row(const uint8_t *p)
{
    return _mm256_castsi256_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p)));
}

/* The predicates the formats share, on transposed slots: joints in range
 * and distinct unless the later slot is padding (pad[s]). */
static inline __m256i joints_ok(const __m256i J[4], const __m256i pad[4], __m256i limit)
{
    __m256i good = _mm256_set1_epi32(-1);
    for (int s = 0; s < 4; ++s) {
        /* Indices below 2^16, so the signed compare is exact. */
        good = _mm256_and_si256(good, _mm256_cmpgt_epi32(limit, J[s]));
        for (int b = s + 1; b < 4; ++b)
            good = _mm256_andnot_si256(_mm256_andnot_si256(pad[b], _mm256_cmpeq_epi32(J[s], J[b])), good);
    }
    return good;
}

bool sn_skin_slots4_f32_ok_avx2(const uint16_t *joints, const float *weights, size_t count, uint32_t joint_count,
                                double sum_tolerance)
{
    const __m256i limit = _mm256_set1_epi32((int)joint_count);
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    const __m256d one_d = _mm256_set1_pd(1.0), tolerance = _mm256_set1_pd(sum_tolerance),
                  sign = _mm256_set1_pd(-0.0);
    __m256i good = _mm256_set1_epi32(-1);
    __m256d good_sum = _mm256_castsi256_pd(good);
    for (size_t v = 0; v + 8 <= count; v += 8) {
        const float *w = weights + 4 * v;
        const uint16_t *jp = joints + 4 * v;
        __m256 W[4], Jf[4];
        transpose8x4(_mm256_loadu_ps(w), _mm256_loadu_ps(w + 8), _mm256_loadu_ps(w + 16), _mm256_loadu_ps(w + 24), W);
        transpose8x4(joints_row(jp), joints_row(jp + 8), joints_row(jp + 16), joints_row(jp + 24), Jf);
        __m256i J[4], pad[4];
        for (int s = 0; s < 4; ++s) J[s] = _mm256_castps_si256(Jf[s]);
        pad[0] = _mm256_setzero_si256();
        for (int s = 1; s < 4; ++s)
            pad[s] = _mm256_and_si256(_mm256_castps_si256(_mm256_cmp_ps(W[s], zero, _CMP_EQ_OQ)),
                                      _mm256_cmpeq_epi32(J[s], J[0]));
        good = _mm256_and_si256(good, joints_ok(J, pad, limit));
        for (int s = 0; s < 4; ++s) {
            const __m256 in_range = _mm256_and_ps(_mm256_cmp_ps(W[s], zero, _CMP_GE_OQ),
                                                  _mm256_cmp_ps(W[s], one, _CMP_LE_OQ));
            good = _mm256_and_si256(good, _mm256_castps_si256(in_range));
            if (s == 0) continue;
            /* Decreasing weight, ties by increasing joint or padding. */
            const __m256 less = _mm256_cmp_ps(W[s], W[s - 1], _CMP_LT_OQ);
            const __m256 tie = _mm256_cmp_ps(W[s], W[s - 1], _CMP_EQ_OQ);
            const __m256i after = _mm256_or_si256(_mm256_cmpgt_epi32(J[s], J[s - 1]), pad[s]);
            good = _mm256_and_si256(
                good, _mm256_or_si256(_mm256_castps_si256(less), _mm256_and_si256(_mm256_castps_si256(tie), after)));
        }
        for (int half = 0; half < 2; ++half) {
            __m256d sum = _mm256_setzero_pd();
            for (int s = 0; s < 4; ++s)
                sum = _mm256_add_pd(sum, _mm256_cvtps_pd(half ? _mm256_extractf128_ps(W[s], 1)
                                                              : _mm256_castps256_ps128(W[s])));
            const __m256d off = _mm256_andnot_pd(sign, _mm256_sub_pd(sum, one_d));
            good_sum = _mm256_and_pd(good_sum, _mm256_cmp_pd(off, tolerance, _CMP_LE_OQ));
        }
    }
    return _mm256_movemask_ps(_mm256_castsi256_ps(good)) == 0xff && _mm256_movemask_pd(good_sum) == 0xf;
}

bool sn_skin_slots4_u8_ok_avx2(const uint8_t *joints, const uint8_t *weights, size_t count, uint32_t joint_count)
{
    const __m256i limit = _mm256_set1_epi32((int)joint_count), zero = _mm256_setzero_si256(),
                  full = _mm256_set1_epi32(255);
    __m256i good = _mm256_set1_epi32(-1);
    for (size_t v = 0; v + 8 <= count; v += 8) {
        const uint8_t *q = weights + 4 * v, *jp = joints + 4 * v;
        __m256 Qf[4], Jf[4];
        transpose8x4(bytes_row(q), bytes_row(q + 8), bytes_row(q + 16), bytes_row(q + 24), Qf);
        transpose8x4(bytes_row(jp), bytes_row(jp + 8), bytes_row(jp + 16), bytes_row(jp + 24), Jf);
        __m256i Q[4], J[4], pad[4];
        for (int s = 0; s < 4; ++s) Q[s] = _mm256_castps_si256(Qf[s]), J[s] = _mm256_castps_si256(Jf[s]);
        pad[0] = zero;
        for (int s = 1; s < 4; ++s)
            pad[s] = _mm256_and_si256(_mm256_cmpeq_epi32(Q[s], zero), _mm256_cmpeq_epi32(J[s], J[0]));
        good = _mm256_and_si256(good, joints_ok(J, pad, limit));
        __m256i sum = zero;
        for (int s = 0; s < 4; ++s) {
            /* No zero weight but padding. */
            good = _mm256_andnot_si256(_mm256_andnot_si256(pad[s], _mm256_cmpeq_epi32(Q[s], zero)), good);
            sum = _mm256_add_epi32(sum, Q[s]);
            if (s == 0) continue;
            const __m256i less = _mm256_cmpgt_epi32(Q[s - 1], Q[s]), tie = _mm256_cmpeq_epi32(Q[s], Q[s - 1]);
            const __m256i after = _mm256_or_si256(_mm256_cmpgt_epi32(J[s], J[s - 1]), pad[s]);
            good = _mm256_and_si256(good, _mm256_or_si256(less, _mm256_and_si256(tie, after)));
        }
        good = _mm256_and_si256(good, _mm256_cmpeq_epi32(sum, full));
    }
    return _mm256_movemask_ps(_mm256_castsi256_ps(good)) == 0xff;
}
