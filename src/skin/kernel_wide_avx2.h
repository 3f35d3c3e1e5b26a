/*
 * The 8-vertex structure-of-arrays linear-blend kernel (AVX2+FMA), included
 * by kernel_avx2.c only.
 *
 * Why: one vertex per iteration (kernel_body.h) spends most of its time on
 * horizontal work: broadcasting input components, rotating lanes for cross
 * products and lengths, and a branch per vertex for the rigid flag and the
 * zero-length guard. Here eight vertices travel together:
 *   1. each vertex's matrix is blended as before, in two 256-bit registers
 *      per vertex (one palette record = one cache line, two FMAs per joint);
 *   2. the eight blended matrices are transposed once, so that every matrix
 *      element (and the blended rigid flag) holds eight vertices;
 *   3. the inputs are transposed from their per-vertex layout in registers,
 *      transformed, renormalised with rsqrt plus one Newton step, and
 *      transposed back on store.
 * Rigid/non-rigid and zero-length decisions are lane masks: a block pays for
 * the cofactor only when one of its vertices has a non-rigid joint, and the
 * slow fallback runs only for the lanes whose direction vanished.
 *
 * Every block, full or not, runs the same instructions per lane (a partial
 * block repeats its last vertex in the unused lanes and does not store them),
 * so a vertex gets bit-identical results whichever range or chunking reaches
 * it. Packed streams load and store whole registers; large ranges prefetch
 * their inputs and store packed, 16-byte aligned outputs with non-temporal
 * stores, so the output lines are not read in first.
 */
#ifndef SINEW_SKIN_KERNEL_WIDE_AVX2_H
#define SINEW_SKIN_KERNEL_WIDE_AVX2_H

/* Ranges of at least this many vertices stream their outputs past the cache:
 * below it the outputs (and the next pass over them) usually fit in L2. */
#define SN_SKIN_STREAM_MIN_VERTICES 65536u

/* Eight 3-vectors, one component per register. */
typedef struct sn_x8 {
    __m256 x, y, z;
} sn_x8;

/* Eight blended 3x4 matrices: a[c] is column c (column 3 the translation),
 * flag the blended rigid flags (> 0 where some joint is non-rigid). */
typedef struct sn_m8 {
    sn_x8 a[4];
    __m256 flag;
} sn_m8;

/* 4x4 transpose inside each 128-bit half: rows r0..r3 (x, y, z, w of vertices
 * l and l + 4) become x, y, z, w of vertices 0..3 and 4..7. Its own inverse. */
SN_SKIN_INLINE void sn_transpose4_avx2(__m256 r0, __m256 r1, __m256 r2, __m256 r3, __m256 *x, __m256 *y, __m256 *z,
                                       __m256 *w)
{
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    *x = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    *y = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    *z = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    *w = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

SN_SKIN_INLINE __m256 sn_pair_avx2(__m128 lo, __m128 hi)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

/* Blended matrix of group position i as (column 0 | column 1), (column 2 |
 * column 3): the same arithmetic as sn_blend in kernel_body.h. */
SN_SKIN_INLINE void sn_blend_wide_avx2(const sn_skin_group *g, size_t i, const float *palette,
                                       const sn_skin_format format, const unsigned K, __m256 *c01, __m256 *c23)
{
    const unsigned k = K ? K : g->influences;
    const size_t base = i * k;
    const float *r0 = palette + SN_SKIN_RECORD_LINEAR * sn_skin_joint(g->joints, format, base);
    if (K == 1) {
        *c01 = _mm256_loadu_ps(r0);
        *c23 = _mm256_loadu_ps(r0 + 8);
        return;
    }
    const __m256 w0 = _mm256_set1_ps(sn_skin_weight(g->weights, format, base));
    __m256 a = _mm256_mul_ps(_mm256_loadu_ps(r0), w0), b = _mm256_mul_ps(_mm256_loadu_ps(r0 + 8), w0);
    for (unsigned s = 1; s < k; ++s) {
        const float *r = palette + SN_SKIN_RECORD_LINEAR * sn_skin_joint(g->joints, format, base + s);
        const __m256 w = _mm256_set1_ps(sn_skin_weight(g->weights, format, base + s));
        a = _mm256_fmadd_ps(_mm256_loadu_ps(r), w, a);
        b = _mm256_fmadd_ps(_mm256_loadu_ps(r + 8), w, b);
    }
    *c01 = a;
    *c23 = b;
}

/* Blends the n (1..8) vertices at group positions i.. and transposes them;
 * lanes n..7 repeat vertex n - 1. */
SN_SKIN_INLINE sn_m8 sn_matrices_avx2(const sn_skin_group *g, size_t i, unsigned n, const float *palette,
                                      const sn_skin_format format, const unsigned K)
{
    __m256 c01[8], c23[8];
    for (unsigned l = 0; l < 8; ++l) sn_blend_wide_avx2(g, i + (l < n ? l : n - 1), palette, format, K, &c01[l], &c23[l]);
    __m256 col[4][4];
    for (unsigned l = 0; l < 4; ++l) {
        col[0][l] = _mm256_permute2f128_ps(c01[l], c01[l + 4], 0x20);
        col[1][l] = _mm256_permute2f128_ps(c01[l], c01[l + 4], 0x31);
        col[2][l] = _mm256_permute2f128_ps(c23[l], c23[l + 4], 0x20);
        col[3][l] = _mm256_permute2f128_ps(c23[l], c23[l + 4], 0x31);
    }
    sn_m8 m;
    __m256 unused;
    sn_transpose4_avx2(col[0][0], col[0][1], col[0][2], col[0][3], &m.a[0].x, &m.a[0].y, &m.a[0].z, &m.flag);
    for (int c = 1; c < 4; ++c)
        sn_transpose4_avx2(col[c][0], col[c][1], col[c][2], col[c][3], &m.a[c].x, &m.a[c].y, &m.a[c].z, &unused);
    return m;
}

/* x, y, z of one vertex in a 128-bit register (lane 3 zero), reading exactly
 * 12 bytes. */
SN_SKIN_INLINE __m128 sn_load3_lane_avx2(const char *p)
{
    const __m128 xy = _mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)p);
    return _mm_movelh_ps(xy, _mm_load_ss((const float *)(const void *)p + 2));
}

/* Eight 3-vectors from a stream: packed ones with three 256-bit loads, any
 * other stride (or a partial block) lane by lane. */
SN_SKIN_INLINE sn_x8 sn_load3_avx2(const char *p, size_t stride, unsigned n)
{
    sn_x8 v;
    if (n == 8 && stride == 3 * sizeof(float)) {
        const float *f = (const float *)(const void *)p;
        const __m256 l0 = _mm256_loadu_ps(f), l1 = _mm256_loadu_ps(f + 8), l2 = _mm256_loadu_ps(f + 16);
        /* In each half (vertices 0..3, 4..7): a = x0 y0 z0 x1, b = y1 z1 x2 y2, c = z2 x3 y3 z3. */
        const __m256 a = _mm256_blend_ps(l0, l1, 0xF0);
        const __m256 b = _mm256_permute2f128_ps(l0, l2, 0x21);
        const __m256 c = _mm256_blend_ps(l1, l2, 0xF0);
        const __m256 xy = _mm256_shuffle_ps(b, c, _MM_SHUFFLE(2, 1, 3, 2)); /* x2 y2 x3 y3 */
        const __m256 yz = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 2, 1)); /* y0 z0 y1 z1 */
        v.x = _mm256_shuffle_ps(a, xy, _MM_SHUFFLE(2, 0, 3, 0));
        v.y = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
        v.z = _mm256_shuffle_ps(yz, c, _MM_SHUFFLE(3, 0, 3, 1));
        return v;
    }
    __m256 r[4], w;
    for (unsigned l = 0; l < 4; ++l) {
        const unsigned h = l + 4 < n ? l + 4 : n - 1, lo = l < n ? l : n - 1;
        r[l] = sn_pair_avx2(sn_load3_lane_avx2(p + lo * stride), sn_load3_lane_avx2(p + h * stride));
    }
    sn_transpose4_avx2(r[0], r[1], r[2], r[3], &v.x, &v.y, &v.z, &w);
    return v;
}

/* Eight 4-vectors (tangents): one 16-byte load per vertex, any stride. */
SN_SKIN_INLINE sn_x8 sn_load4_avx2(const char *p, size_t stride, unsigned n, __m256 *w)
{
    sn_x8 v;
    __m256 r[4];
    for (unsigned l = 0; l < 4; ++l) {
        const unsigned h = l + 4 < n ? l + 4 : n - 1, lo = l < n ? l : n - 1;
        r[l] = sn_pair_avx2(_mm_loadu_ps((const float *)(const void *)(p + lo * stride)),
                            _mm_loadu_ps((const float *)(const void *)(p + h * stride)));
    }
    sn_transpose4_avx2(r[0], r[1], r[2], r[3], &v.x, &v.y, &v.z, w);
    return v;
}

SN_SKIN_INLINE void sn_store_half_avx2(float *p, __m128 v, bool stream)
{
    if (stream) _mm_stream_ps(p, v);
    else _mm_storeu_ps(p, v);
}

/* Stores lanes 0..n-1 as 3-vectors, exactly 12 bytes each. Packed full blocks
 * store six 16-byte pieces (non-temporal when stream is set and they are
 * aligned). */
SN_SKIN_INLINE void sn_store3_avx2(char *p, size_t stride, unsigned n, sn_x8 v, bool stream)
{
    if (n == 8 && stride == 3 * sizeof(float)) {
        float *f = (float *)(void *)p;
        const __m256 rxy = _mm256_shuffle_ps(v.x, v.y, _MM_SHUFFLE(2, 0, 2, 0)); /* x0 x2 y0 y2 */
        const __m256 ryz = _mm256_shuffle_ps(v.y, v.z, _MM_SHUFFLE(3, 1, 3, 1)); /* y1 y3 z1 z3 */
        const __m256 rzx = _mm256_shuffle_ps(v.z, v.x, _MM_SHUFFLE(3, 1, 2, 0)); /* z0 z2 x1 x3 */
        const __m256 a = _mm256_shuffle_ps(rxy, rzx, _MM_SHUFFLE(2, 0, 2, 0));   /* x0 y0 z0 x1 */
        const __m256 b = _mm256_shuffle_ps(ryz, rxy, _MM_SHUFFLE(3, 1, 2, 0));   /* y1 z1 x2 y2 */
        const __m256 c = _mm256_shuffle_ps(rzx, ryz, _MM_SHUFFLE(3, 1, 3, 1));   /* z2 x3 y3 z3 */
        const bool nt = stream && ((uintptr_t)f & 15u) == 0;
        sn_store_half_avx2(f, _mm256_castps256_ps128(a), nt);
        sn_store_half_avx2(f + 4, _mm256_castps256_ps128(b), nt);
        sn_store_half_avx2(f + 8, _mm256_castps256_ps128(c), nt);
        sn_store_half_avx2(f + 12, _mm256_extractf128_ps(a, 1), nt);
        sn_store_half_avx2(f + 16, _mm256_extractf128_ps(b, 1), nt);
        sn_store_half_avx2(f + 20, _mm256_extractf128_ps(c, 1), nt);
        return;
    }
    __m256 r[4];
    sn_transpose4_avx2(v.x, v.y, v.z, _mm256_setzero_ps(), &r[0], &r[1], &r[2], &r[3]);
    for (unsigned l = 0; l < n; ++l) {
        const __m128 q = l < 4 ? _mm256_castps256_ps128(r[l]) : _mm256_extractf128_ps(r[l - 4], 1);
        float *f = (float *)(void *)(p + l * stride);
        _mm_storel_pi((__m64 *)(void *)f, q);
        _mm_store_ss(f + 2, _mm_movehl_ps(q, q));
    }
}

/* Stores lanes 0..n-1 as 4-vectors (xyz from v, w). */
SN_SKIN_INLINE void sn_store4_avx2(char *p, size_t stride, unsigned n, sn_x8 v, __m256 w, bool stream)
{
    __m256 r[4];
    sn_transpose4_avx2(v.x, v.y, v.z, w, &r[0], &r[1], &r[2], &r[3]);
    const bool nt = stream && n == 8 && stride == 4 * sizeof(float) && ((uintptr_t)p & 15u) == 0;
    for (unsigned l = 0; l < n; ++l) {
        const __m128 q = l < 4 ? _mm256_castps256_ps128(r[l]) : _mm256_extractf128_ps(r[l - 4], 1);
        sn_store_half_avx2((float *)(void *)(p + l * stride), q, nt);
    }
}

/* m * (x, y, z) for the linear part (columns 0..2). */
SN_SKIN_INLINE sn_x8 sn_linear_avx2(const sn_m8 *m, sn_x8 d)
{
    sn_x8 r;
    r.x = _mm256_fmadd_ps(m->a[2].x, d.z, _mm256_fmadd_ps(m->a[1].x, d.y, _mm256_mul_ps(m->a[0].x, d.x)));
    r.y = _mm256_fmadd_ps(m->a[2].y, d.z, _mm256_fmadd_ps(m->a[1].y, d.y, _mm256_mul_ps(m->a[0].y, d.x)));
    r.z = _mm256_fmadd_ps(m->a[2].z, d.z, _mm256_fmadd_ps(m->a[1].z, d.y, _mm256_mul_ps(m->a[0].z, d.x)));
    return r;
}

SN_SKIN_INLINE sn_x8 sn_cross_avx2(sn_x8 a, sn_x8 b)
{
    sn_x8 r;
    r.x = _mm256_fmsub_ps(a.y, b.z, _mm256_mul_ps(a.z, b.y));
    r.y = _mm256_fmsub_ps(a.z, b.x, _mm256_mul_ps(a.x, b.z));
    r.z = _mm256_fmsub_ps(a.x, b.y, _mm256_mul_ps(a.y, b.x));
    return r;
}

SN_SKIN_INLINE __m256 sn_dot_avx2(sn_x8 a, sn_x8 b)
{
    return _mm256_fmadd_ps(a.z, b.z, _mm256_fmadd_ps(a.y, b.y, _mm256_mul_ps(a.x, b.x)));
}

/* Negates the lanes of v selected by mask (all ones or zero per lane). */
SN_SKIN_INLINE __m256 sn_negate_where_avx2(__m256 v, __m256 mask)
{
    return _mm256_xor_ps(v, _mm256_and_ps(mask, _mm256_set1_ps(-0.0f)));
}

/* sign(det) * cofactor(A) n, with A the linear part; *det = det A. */
SN_SKIN_INLINE sn_x8 sn_cofactor_apply_wide_avx2(const sn_m8 *m, sn_x8 n, __m256 *det)
{
    const sn_x8 x12 = sn_cross_avx2(m->a[1], m->a[2]);
    const sn_x8 x20 = sn_cross_avx2(m->a[2], m->a[0]);
    const sn_x8 x01 = sn_cross_avx2(m->a[0], m->a[1]);
    sn_x8 r;
    r.x = _mm256_fmadd_ps(x01.x, n.z, _mm256_fmadd_ps(x20.x, n.y, _mm256_mul_ps(x12.x, n.x)));
    r.y = _mm256_fmadd_ps(x01.y, n.z, _mm256_fmadd_ps(x20.y, n.y, _mm256_mul_ps(x12.y, n.x)));
    r.z = _mm256_fmadd_ps(x01.z, n.z, _mm256_fmadd_ps(x20.z, n.y, _mm256_mul_ps(x12.z, n.x)));
    *det = sn_dot_avx2(m->a[0], x12);
    const __m256 negative = _mm256_cmp_ps(*det, _mm256_setzero_ps(), _CMP_LT_OQ);
    r.x = sn_negate_where_avx2(r.x, negative);
    r.y = sn_negate_where_avx2(r.y, negative);
    r.z = sn_negate_where_avx2(r.z, negative);
    return r;
}

/* Unit-length v where its squared length exceeds SN_SKIN_TINY; returns the
 * bit mask of those lanes (the others hold junk for the caller to patch). */
SN_SKIN_INLINE unsigned sn_normalise_avx2(sn_x8 *v)
{
    const __m256 d2 = sn_dot_avx2(*v, *v);
    const __m256 y0 = _mm256_rsqrt_ps(d2);
    /* One Newton step: y0 * (1.5 - 0.5 d2 y0^2), ~23 bits. */
    const __m256 hy = _mm256_mul_ps(_mm256_set1_ps(0.5f), y0);
    const __m256 y = _mm256_mul_ps(hy, _mm256_fnmadd_ps(_mm256_mul_ps(d2, y0), y0, _mm256_set1_ps(3.0f)));
    v->x = _mm256_mul_ps(v->x, y);
    v->y = _mm256_mul_ps(v->y, y);
    v->z = _mm256_mul_ps(v->z, y);
    return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(d2, _mm256_set1_ps(SN_SKIN_TINY), _CMP_GT_OQ));
}

/* Cold path: replaces the lanes of v outside `good` (below n) by the
 * largest-weight joint's transform of their input direction (palette records
 * of record_floats floats, the linear matrix first). */
static void sn_patch_vanished_avx2(sn_x8 *v, unsigned good, unsigned n, const sn_skin_group *g, size_t i,
                                   const float *palette, size_t record_floats, sn_skin_format format, const char *dir,
                                   size_t stride, bool is_normal)
{
    _Alignas(32) float x[8], y[8], z[8];
    _mm256_store_ps(x, v->x), _mm256_store_ps(y, v->y), _mm256_store_ps(z, v->z);
    for (unsigned l = 0; l < n; ++l) {
        if (good & (1u << l)) continue;
        const float *record = palette + record_floats * sn_skin_joint(g->joints, format, (i + l) * g->influences);
        float out[3];
        sn_skin_fallback_direction(record, (const float *)(const void *)(dir + l * stride), is_normal, out);
        x[l] = out[0], y[l] = out[1], z[l] = out[2];
    }
    v->x = _mm256_load_ps(x), v->y = _mm256_load_ps(y), v->z = _mm256_load_ps(z);
}

/* Stream bases of the block's first vertex. */
typedef struct sn_wide_at {
    const char *pin, *nin, *tin;
    char *pout, *nout, *tout;
} sn_wide_at;

/* Deforms the n (1..8) vertices at group positions i.., consecutive vertex
 * numbers starting at the stream bases in at. */
SN_SKIN_INLINE void sn_block_avx2(const sn_skin_group *g, size_t i, unsigned n, const float *palette,
                                  const sn_skin_io *io, const sn_wide_at *at, bool stream,
                                  const sn_skin_format format, const unsigned K, const unsigned mask)
{
    const sn_m8 m = sn_matrices_avx2(g, i, n, palette, format, K);
    const __m256 nonrigid = _mm256_cmp_ps(m.flag, _mm256_setzero_ps(), _CMP_GT_OQ);
    const unsigned nonrigid_bits = (unsigned)_mm256_movemask_ps(nonrigid);
    __m256 det = _mm256_set1_ps(1.0f);
    bool have_det = false;

    if (mask & SN_SKIN_P) {
        const sn_x8 p = sn_load3_avx2(at->pin, io->pin_stride, n);
        sn_x8 r;
        r.x = _mm256_fmadd_ps(m.a[2].x, p.z, _mm256_fmadd_ps(m.a[1].x, p.y, _mm256_fmadd_ps(m.a[0].x, p.x, m.a[3].x)));
        r.y = _mm256_fmadd_ps(m.a[2].y, p.z, _mm256_fmadd_ps(m.a[1].y, p.y, _mm256_fmadd_ps(m.a[0].y, p.x, m.a[3].y)));
        r.z = _mm256_fmadd_ps(m.a[2].z, p.z, _mm256_fmadd_ps(m.a[1].z, p.y, _mm256_fmadd_ps(m.a[0].z, p.x, m.a[3].z)));
        sn_store3_avx2(at->pout, io->pout_stride, n, r, stream);
    }
    if (mask & SN_SKIN_N) {
        const sn_x8 d = sn_load3_avx2(at->nin, io->nin_stride, n);
        sn_x8 r;
        if (nonrigid_bits == 0) {
            r = sn_linear_avx2(&m, d);
        } else {
            r = sn_cofactor_apply_wide_avx2(&m, d, &det);
            have_det = true;
            if (nonrigid_bits != 0xFFu) {
                /* Rigid lanes blend with the position's matrix. */
                const sn_x8 s = sn_linear_avx2(&m, d);
                r.x = _mm256_blendv_ps(s.x, r.x, nonrigid);
                r.y = _mm256_blendv_ps(s.y, r.y, nonrigid);
                r.z = _mm256_blendv_ps(s.z, r.z, nonrigid);
            }
        }
        const unsigned good = sn_normalise_avx2(&r);
        if (SN_UNLIKELY(good != 0xFFu))
            sn_patch_vanished_avx2(&r, good, n, g, i, palette, SN_SKIN_RECORD_LINEAR, format, at->nin, io->nin_stride, true);
        sn_store3_avx2(at->nout, io->nout_stride, n, r, stream);
    }
    if (mask & SN_SKIN_T) {
        __m256 w;
        const sn_x8 d = sn_load4_avx2(at->tin, io->tin_stride, n, &w);
        sn_x8 r = sn_linear_avx2(&m, d);
        if (nonrigid_bits != 0 && !have_det) det = sn_dot_avx2(m.a[0], sn_cross_avx2(m.a[1], m.a[2]));
        const unsigned good = sn_normalise_avx2(&r);
        if (SN_UNLIKELY(good != 0xFFu))
            sn_patch_vanished_avx2(&r, good, n, g, i, palette, SN_SKIN_RECORD_LINEAR, format, at->tin, io->tin_stride, false);
        /* Handedness flips where a non-rigid blend mirrors. */
        const __m256 mirrored = _mm256_and_ps(nonrigid, _mm256_cmp_ps(det, _mm256_setzero_ps(), _CMP_LT_OQ));
        sn_store4_avx2(at->tout, io->tout_stride, n, r, sn_negate_where_avx2(w, mirrored), stream);
    }
}

/* Streams of a long range are read far ahead of use: the hardware
 * prefetchers alone left a 1M-vertex P+N+T pass waiting on memory. Touches
 * the bind data and the inputs SN_SKIN_PREFETCH_VERTICES ahead (two lines per
 * stream, what a block of 8 uses at most). A prefetch never faults, so
 * addresses past the end are harmless; they are formed as integers. */
#define SN_SKIN_PREFETCH_VERTICES 32u

SN_SKIN_INLINE void sn_prefetch_lines_avx2(const void *base, size_t offset)
{
    const uintptr_t a = (uintptr_t)base + offset;
    _mm_prefetch((const char *)a, _MM_HINT_T0);
    _mm_prefetch((const char *)(a + 64), _MM_HINT_T0);
}

SN_SKIN_INLINE void sn_prefetch_ahead_avx2(const sn_skin_group *g, size_t i, const sn_skin_io *io,
                                           const sn_wide_at *at, const sn_skin_format format, const unsigned K,
                                           const unsigned mask)
{
    const size_t ahead = SN_SKIN_PREFETCH_VERTICES, k = K ? K : g->influences;
    sn_prefetch_lines_avx2(g->joints, (i + ahead) * k * (format == SN_SKIN_U8_J8 ? 1u : 2u));
    if (K != 1) sn_prefetch_lines_avx2(g->weights, (i + ahead) * k * (format == SN_SKIN_F32_J16 ? 4u : 1u));
    if (mask & SN_SKIN_P) sn_prefetch_lines_avx2(at->pin, ahead * io->pin_stride);
    if (mask & SN_SKIN_N) sn_prefetch_lines_avx2(at->nin, ahead * io->nin_stride);
    if (mask & SN_SKIN_T) sn_prefetch_lines_avx2(at->tin, ahead * io->tin_stride);
}

SN_SKIN_INLINE void sn_wide_loop_avx2(const sn_skin_group *g, size_t begin, size_t end, const float *palette,
                                      const sn_skin_io *io, const sn_skin_format format, const unsigned K,
                                      const unsigned mask)
{
    /* A local copy tells the compiler no output store can change the streams. */
    const sn_skin_io local = *io;
    const bool P = mask & SN_SKIN_P, N = mask & SN_SKIN_N, T = mask & SN_SKIN_T;
    const bool stream = end - begin >= SN_SKIN_STREAM_MIN_VERTICES;
    const size_t run = sn_skin_run_of(g, begin);
    for (size_t r = run, i = begin; i < end; ++r) {
        const size_t run_end = r + 1 < g->run_count ? g->runs[r + 1].position : g->count;
        const size_t stop = run_end < end ? run_end : end;
        const size_t v = g->runs[r].vertex + (i - g->runs[r].position);
        /* Streams not in the mask are NULL: never offset them. */
        sn_wide_at at = {P ? local.pin + v * local.pin_stride : NULL, N ? local.nin + v * local.nin_stride : NULL,
                         T ? local.tin + v * local.tin_stride : NULL, P ? local.pout + v * local.pout_stride : NULL,
                         N ? local.nout + v * local.nout_stride : NULL, T ? local.tout + v * local.tout_stride : NULL};
        while (i < stop) {
            const unsigned n = stop - i >= 8 ? 8u : (unsigned)(stop - i);
            if (stream) sn_prefetch_ahead_avx2(g, i, &local, &at, format, K, mask);
            sn_block_avx2(g, i, n, palette, &local, &at, stream, format, K, mask);
            i += n;
            if (P) at.pin += n * local.pin_stride, at.pout += n * local.pout_stride;
            if (N) at.nin += n * local.nin_stride, at.nout += n * local.nout_stride;
            if (T) at.tin += n * local.tin_stride, at.tout += n * local.tout_stride;
        }
    }
    /* Non-temporal stores are weakly ordered: make them visible before the
     * call returns (another thread may read the outputs next). */
    if (stream) _mm_sfence();
}

/* The stream mask becomes a constant per instantiated loop. Called for masks
 * with normals or tangents only (positions alone and the largest-weight
 * normal mode keep the one-vertex kernel, see sn_dispatch in kernel_body.h). */
SN_SKIN_INLINE void sn_wide_avx2(const sn_skin_group *g, size_t begin, size_t end, const float *palette,
                                 const sn_skin_io *io, const sn_skin_format format, const unsigned K)
{
    switch (io->mask) {
    case 2: sn_wide_loop_avx2(g, begin, end, palette, io, format, K, 2); break;
    case 3: sn_wide_loop_avx2(g, begin, end, palette, io, format, K, 3); break;
    case 4: sn_wide_loop_avx2(g, begin, end, palette, io, format, K, 4); break;
    case 5: sn_wide_loop_avx2(g, begin, end, palette, io, format, K, 5); break;
    case 6: sn_wide_loop_avx2(g, begin, end, palette, io, format, K, 6); break;
    default: sn_wide_loop_avx2(g, begin, end, palette, io, format, K, 7); break;
    }
}

#endif /* SINEW_SKIN_KERNEL_WIDE_AVX2_H */
