/* AVX2 + FMA one-shot deformation, eight points at a time: the record filler
 * (sn_lat_fill_fn) and the packed cubic path that contracts straight from the
 * basis (sn_lat_oneshot_fn); the float-range pass is fits_avx2.c.
 * Built with -mavx2 -mfma when the compiler and the `simd` option allow; the
 * library calls them only after checking the CPU.
 *
 * Per point: the box map in double (the same operations, in the same order,
 * as sn_lat_params and sn_lat_box), the cell c and the offset t in it by
 * arithmetic on the uniform knots, then Cox-de Boor in float in units of one
 * knot span, where the knots of a clamped uniform axis are clamp(i - p, 0,
 * cells): left and right distances are t + min(j - 1, c) and
 * min(j, cells - c) - t, and their sums are whole numbers 1..p, whose
 * reciprocals come from one register. Lanes never mix, and a short block
 * repeats its last point in the unused lanes, so a point's record depends on
 * that point alone. */
#include <string.h>

#include "lattice/deform_kernels.h"
#include "lattice/lattice_internal.h"

#if defined(__AVX2__) && defined(__FMA__) && (defined(__GNUC__) || defined(__clang__))
#  include "lattice/cubic_avx2.h"
#  include "lattice/points_avx2.h"

/* Eight lanes of one axis: cells c (int), offsets t in them, distances past
 * the box (float), and which lanes lie outside or beyond 1. */
typedef struct lanes {
    __m256i cell;
    __m256 t, dist;
    int outside, high; /* lane bit masks */
} lanes;

/* Cell and offset of four parameters x along an axis of `cells` spans, with
 * x clamped to [0, 1] first. */
static inline void locate4(__m256d x, double cells, __m128i *cell, __m128 *t, __m128 *dist, int *outside, int *high)
{
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);
    __m256d xc = _mm256_min_pd(_mm256_max_pd(x, zero), one);
    *outside = _mm256_movemask_pd(_mm256_cmp_pd(x, xc, _CMP_NEQ_OQ));
    *high = _mm256_movemask_pd(_mm256_cmp_pd(x, one, _CMP_GT_OQ));
    *dist = _mm256_cvtpd_ps(_mm256_sub_pd(x, xc));
    __m256d y = _mm256_mul_pd(xc, _mm256_set1_pd(cells));
    __m256d c = _mm256_min_pd(_mm256_floor_pd(y), _mm256_set1_pd(cells - 1.0));
    *t = _mm256_cvtpd_ps(_mm256_sub_pd(y, c));
    *cell = _mm256_cvttpd_epi32(c);
}

static inline lanes locate(__m256d lo, __m256d hi, double cells)
{
    __m128i c0, c1;
    __m128 t0, t1, d0, d1;
    int o0, o1, h0, h1;
    locate4(lo, cells, &c0, &t0, &d0, &o0, &h0);
    locate4(hi, cells, &c1, &t1, &d1, &o1, &h1);
    lanes l;
    l.cell = _mm256_inserti128_si256(_mm256_castsi128_si256(c0), c1, 1);
    l.t = _mm256_insertf128_ps(_mm256_castps128_ps256(t0), t1, 1);
    l.dist = _mm256_insertf128_ps(_mm256_castps128_ps256(d0), d1, 1);
    l.outside = o0 | o1 << 4;
    l.high = h0 | h1 << 4;
    return l;
}

/* A lane mask (all bits set) from bit k of bits for lane k. */
static inline __m256 lane_mask(int bits)
{
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256i m = _mm256_and_si256(_mm256_set1_epi32(bits), bit);
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(m, bit));
}

/* The order basis values of one axis of degree p in eight lanes (value[r]
 * for function c + r), EXTEND's tangent continuation included. Inlined with
 * a constant p the recurrence unrolls into registers. */
static inline __attribute__((always_inline)) void basis8_degree(const sn_lat_axis *axis, const lanes *l, bool extend,
                                                                __m256 *value, const int p)
{
    const __m256 reciprocal = _mm256_setr_ps(0.0f, 1.0f, 1.0f / 2, 1.0f / 3, 1.0f / 4, 1.0f / 5, 1.0f / 6, 1.0f / 7);
    const __m256i c = l->cell, room = _mm256_sub_epi32(_mm256_set1_epi32((int)axis->cells), l->cell);
    __m256 left[SN_LAT_MAX_ORDER], right[SN_LAT_MAX_ORDER];
    value[0] = _mm256_set1_ps(1.0f);
    for (int j = 1; j <= p; ++j) {
        left[j] = _mm256_add_ps(l->t, _mm256_cvtepi32_ps(_mm256_min_epi32(_mm256_set1_epi32(j - 1), c)));
        right[j] = _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_min_epi32(_mm256_set1_epi32(j), room)), l->t);
        __m256 saved = _mm256_setzero_ps();
        for (int r = 0; r < j; ++r) {
            __m256i den = _mm256_add_epi32(_mm256_min_epi32(_mm256_set1_epi32(r + 1), room),
                                           _mm256_min_epi32(_mm256_set1_epi32(j - r - 1), c));
            __m256 temp = _mm256_mul_ps(value[r], _mm256_permutevar8x32_ps(reciprocal, den));
            value[r] = _mm256_fmadd_ps(right[r + 1], temp, saved);
            saved = _mm256_mul_ps(left[j - r], temp);
        }
        value[j] = saved;
    }
    if (extend && l->outside) {
        __m256 high = lane_mask(l->high);
        for (int r = 0; r <= p; ++r) {
            __m256 slope = _mm256_blendv_ps(_mm256_set1_ps(axis->end_deriv_f[0][r]),
                                            _mm256_set1_ps(axis->end_deriv_f[1][r]), high);
            value[r] = _mm256_fmadd_ps(l->dist, slope, value[r]);
        }
    }
}

static void basis8(const sn_lat_axis *axis, const lanes *l, bool extend, __m256 *value)
{
    switch (axis->degree) { /* orders 2..4 unrolled, cubic the common case */
    case 1: basis8_degree(axis, l, extend, value, 1); break;
    case 2: basis8_degree(axis, l, extend, value, 2); break;
    case 3: basis8_degree(axis, l, extend, value, 3); break;
    default: basis8_degree(axis, l, extend, value, (int)axis->degree); break;
    }
}

/* What the filler computes for eight points: their bases (world points or
 * box positions), basis values per axis and function, first control points
 * (SN_LAT_LEAVE for points left alone) and packed cells, lane by lane. */
typedef struct block8 {
    _Alignas(32) float base[3][8];
    _Alignas(32) float basis[3][SN_LAT_MAX_ORDER][8];
    _Alignas(32) uint32_t first[8];
    _Alignas(32) uint32_t cell[8];
} block8;

/* Fills *out for points in + k * in_stride, k < n (1..8); the unused lanes
 * repeat the last point. */
static void fill_block8(const sinew_lattice *lat, const char *in, size_t in_stride, size_t n, bool world,
                        block8 *out)
{
    const bool extend = lat->outside == SINEW_LATTICE_OUTSIDE_EXTEND;
    const double zero3[3] = {0.0, 0.0, 0.0};
    __m256 xyz[3];
    load8(in, in_stride, n, xyz);
    for (int c = 0; c < 3; ++c) _mm256_store_ps(out->base[c], xyz[c]);
    __m256d u[2][3], box[2][3];
    for (int h = 0; h < 2; ++h) {
        __m256d x[3];
        for (int c = 0; c < 3; ++c)
            x[c] = _mm256_cvtps_pd(h ? _mm256_extractf128_ps(xyz[c], 1) : _mm256_castps256_ps128(xyz[c]));
        if (world) {
            /* sn_lat_params: inverse (x - origin) */
            for (int c = 0; c < 3; ++c) x[c] = _mm256_sub_pd(x[c], _mm256_set1_pd(lat->origin[c]));
            affine4(zero3, lat->inverse, x, u[h]);
        } else {
            memcpy(u[h], x, sizeof u[h]);
            affine4(lat->origin, lat->frame, x, box[h]);
        }
    }
    if (!world)
        for (int c = 0; c < 3; ++c)
            _mm256_store_ps(out->base[c], _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(box[0][c])),
                                                               _mm256_cvtpd_ps(box[1][c]), 1));
    lanes l[3];
    int outside = 0;
    for (int a = 0; a < 3; ++a) {
        l[a] = locate(u[0][a], u[1][a], (double)lat->axis[a].cells);
        outside |= l[a].outside;
        __m256 value[SN_LAT_MAX_ORDER];
        basis8(&lat->axis[a], &l[a], extend, value);
        for (uint32_t r = 0; r < lat->axis[a].order; ++r) _mm256_store_ps(out->basis[a][r], value[r]);
    }
    const __m256i nu = _mm256_set1_epi32((int)lat->axis[0].count), nv = _mm256_set1_epi32((int)lat->axis[1].count);
    const __m256i cu = _mm256_set1_epi32((int)lat->axis[0].cells), cv = _mm256_set1_epi32((int)lat->axis[1].cells);
    __m256i first = _mm256_add_epi32(
        l[0].cell, _mm256_mullo_epi32(nu, _mm256_add_epi32(l[1].cell, _mm256_mullo_epi32(nv, l[2].cell))));
    __m256i cell = _mm256_add_epi32(
        l[0].cell, _mm256_mullo_epi32(cu, _mm256_add_epi32(l[1].cell, _mm256_mullo_epi32(cv, l[2].cell))));
    if (lat->outside == SINEW_LATTICE_OUTSIDE_LEAVE && outside) {
        __m256i leave = _mm256_castps_si256(lane_mask(outside));
        first = _mm256_or_si256(first, leave); /* all ones: SN_LAT_LEAVE */
        cell = _mm256_andnot_si256(leave, cell);
    }
    _mm256_store_si256((__m256i *)(void *)out->first, first);
    _mm256_store_si256((__m256i *)(void *)out->cell, cell);
}

static void fill_avx2(const sinew_lattice *lat, const char *in, size_t in_stride, size_t count, bool world,
                      float *records, size_t record, uint32_t *cells)
{
    const uint32_t ou = lat->axis[0].order, ov = lat->axis[1].order, ow = lat->axis[2].order;
    block8 blk;
    for (size_t b = 0; b < count; b += 8) {
        const size_t n = count - b < 8 ? count - b : 8;
        fill_block8(lat, in + b * in_stride, in_stride, n, world, &blk);
        for (size_t k = 0; k < n; ++k) {
            float *rec = records + (b + k) * record, *v = rec + 4;
            rec[0] = blk.base[0][k], rec[1] = blk.base[1][k], rec[2] = blk.base[2][k];
            memcpy(rec + 3, &blk.first[k], sizeof blk.first[k]);
            for (uint32_t r = 0; r < ou; ++r) *v++ = blk.basis[0][r][k];
            for (uint32_t r = 0; r < ov; ++r) *v++ = blk.basis[1][r][k];
            for (uint32_t r = 0; r < ow; ++r) *v++ = blk.basis[2][r][k];
            if (cells) cells[b + k] = blk.cell[k];
        }
    }
}

/* One-shot deformation through a packed cubic lattice (sn_lat_oneshot_fn):
 * the eight points' basis values go from the block straight into the cell
 * contraction, as the bound kernel does from records. */
static void oneshot_cubic_avx2(const sinew_lattice *lat, const char *in, size_t in_stride, size_t count, bool world,
                               float *out, size_t out_stride)
{
    block8 blk;
    _Alignas(32) float bu[4][8]; /* lanes k and k + 4: u basis of lane k in bu[k & 3][4 * (k >> 2)] */
    for (size_t b = 0; b < count; b += 8) {
        const size_t n = count - b < 8 ? count - b : 8;
        fill_block8(lat, in + b * in_stride, in_stride, n, world, &blk);
        {
            /* the u basis, one point per 128-bit row */
            __m256 b0 = _mm256_load_ps(blk.basis[0][0]), b1 = _mm256_load_ps(blk.basis[0][1]);
            __m256 b2 = _mm256_load_ps(blk.basis[0][2]), b3 = _mm256_load_ps(blk.basis[0][3]);
            __m256 t0 = _mm256_unpacklo_ps(b0, b1), t1 = _mm256_unpackhi_ps(b0, b1);
            __m256 t2 = _mm256_unpacklo_ps(b2, b3), t3 = _mm256_unpackhi_ps(b2, b3);
            _mm256_store_ps(bu[0], _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)));
            _mm256_store_ps(bu[1], _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)));
            _mm256_store_ps(bu[2], _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)));
            _mm256_store_ps(bu[3], _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2)));
        }
        for (size_t k = 0; k < n; ++k) {
            float *o = (float *)(void *)((char *)out + (b + k) * out_stride);
            float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            if (blk.first[k] != SN_LAT_LEAVE) {
                const float *cp = lat->packed + (size_t)blk.cell[k] * SN_LAT_PACKED_CELL;
                float(*bv)[8] = blk.basis[1], (*bw)[8] = blk.basis[2];
                __m256 v01 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_broadcast_ss(&bv[0][k])),
                                                  _mm_broadcast_ss(&bv[1][k]), 1);
                __m256 v23 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_broadcast_ss(&bv[2][k])),
                                                  _mm_broadcast_ss(&bv[3][k]), 1);
                const __m256 wk[4] = {_mm256_broadcast_ss(&bw[0][k]), _mm256_broadcast_ss(&bw[1][k]),
                                      _mm256_broadcast_ss(&bw[2][k]), _mm256_broadcast_ss(&bw[3][k])};
                _mm_storeu_ps(s, sn_lat_cubic_sum(cp, v01, v23, wk, _mm_load_ps(&bu[k & 3][4 * (k >> 2)])));
            }
            o[0] = blk.base[0][k] + s[0];
            o[1] = blk.base[1][k] + s[1];
            o[2] = blk.base[2][k] + s[2];
        }
    }
}

sn_lat_oneshot_fn sn_lat_oneshot_cubic_avx2(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return oneshot_cubic_avx2;
    return NULL;
}

sn_lat_fill_fn sn_lat_fill_avx2(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return fill_avx2;
    return NULL;
}

#else

sn_lat_fill_fn sn_lat_fill_avx2(void)
{
    return NULL; /* this build has no AVX2 filler */
}

sn_lat_oneshot_fn sn_lat_oneshot_cubic_avx2(void)
{
    return NULL;
}

#endif
