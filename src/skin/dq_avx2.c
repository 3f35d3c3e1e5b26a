/* Dual quaternion skinning (SINEW_SKIN_BLEND_DUAL_QUATERNION), eight vertices
 * at a time with AVX2+FMA: the same arithmetic as the portable kernel in
 * dq.c, laid out like the linear-blend wide kernel (kernel_wide_body.h).
 *
 * Each vertex blends its joints' (rotation | dual) quaternion pair in one
 * 256-bit register and its stretch in one and a half, with the antipodality
 * sign handled exactly as dq.c does. The
 * eight blends are then transposed, and normalisation, stretch, rotation,
 * translation and renormalisation run on eight vertices per instruction.
 * Built into the AVX2 static library and called after CPU detection only;
 * the mixed blend and the largest-weight normal mode keep the portable
 * kernel. */
#include "skin/skin_internal.h"
#include "skin/kernel_wide_avx2.h"

/* One vertex's blend, in registers: qd = (rotation | dual) unnormalised,
 * s01 = stretch (column 0 | column 1), s2 = column 2. */
SN_SKIN_INLINE void sn_dq_blend_vertex_avx2(const sn_skin_group *g, size_t i, const float *palette,
                                            const sn_skin_format format, const unsigned K, __m256 *qd, __m256 *s01,
                                            __m128 *s2)
{
    const unsigned k = K ? K : g->influences;
    const size_t base = i * k;
    const __m128 q0 = _mm_loadu_ps(palette + SN_SKIN_RECORD_DQ * sn_skin_joint(g->joints, format, base) +
                                   SN_SKIN_DQ_ROTATION);
    __m256 aqd = _mm256_setzero_ps(), as01 = _mm256_setzero_ps();
    __m128 as2 = _mm_setzero_ps();
    for (unsigned s = 0; s < k; ++s) {
        const float *rec = palette + SN_SKIN_RECORD_DQ * sn_skin_joint(g->joints, format, base + s);
        const float w = K == 1 ? 1.0f : sn_skin_weight(g->weights, format, base + s);
        const __m256 pair = _mm256_loadu_ps(rec + SN_SKIN_DQ_ROTATION);
        /* Antipodality: q and -q are the same rotation; blend on q0's side. */
        const float dot = _mm_cvtss_f32(_mm_dp_ps(_mm256_castps256_ps128(pair), q0, 0xF1));
        aqd = _mm256_fmadd_ps(pair, _mm256_set1_ps(dot < 0.0f ? -w : w), aqd);
        /* Every joint's full stretch, rigid or not (see dq.c). */
        const __m256 ws = _mm256_set1_ps(w);
        as01 = _mm256_fmadd_ps(_mm256_loadu_ps(rec + SN_SKIN_DQ_STRETCH), ws, as01);
        as2 = _mm_fmadd_ps(_mm_loadu_ps(rec + SN_SKIN_DQ_STRETCH + 8), _mm256_castps256_ps128(ws), as2);
    }
    *qd = aqd;
    *s01 = as01;
    *s2 = as2;
}

/* Eight blends, transposed: unit rotation q and dual part d (both scaled by
 * 1 / |q|) and stretch columns. */
typedef struct sn_dq8 {
    __m256 qx, qy, qz, qw, dx, dy, dz, dw;
    sn_mv stretch;  /* columns a[0..2]; a[3] unused */
} sn_dq8;

SN_SKIN_INLINE sn_dq8 sn_dq_blend8_avx2(const sn_skin_group *g, size_t i, unsigned n, const float *palette,
                                        const sn_skin_format format, const unsigned K)
{
    __m256 qd[8], s01[8];
    __m128 s2[8];
    for (unsigned l = 0; l < 8; ++l)
        sn_dq_blend_vertex_avx2(g, i + (l < n ? l : n - 1), palette, format, K, &qd[l], &s01[l], &s2[l]);
    __m256 rq[4], rd[4], r0[4], r1[4], r2[4];
    for (unsigned l = 0; l < 4; ++l) {
        rq[l] = _mm256_permute2f128_ps(qd[l], qd[l + 4], 0x20);
        rd[l] = _mm256_permute2f128_ps(qd[l], qd[l + 4], 0x31);
        r0[l] = _mm256_permute2f128_ps(s01[l], s01[l + 4], 0x20);
        r1[l] = _mm256_permute2f128_ps(s01[l], s01[l + 4], 0x31);
        r2[l] = sn_pair_avx2(s2[l], s2[l + 4]);
    }
    sn_dq8 b;
    __m256 unused;
    sn_transpose4_avx2(rq[0], rq[1], rq[2], rq[3], &b.qx, &b.qy, &b.qz, &b.qw);
    sn_transpose4_avx2(rd[0], rd[1], rd[2], rd[3], &b.dx, &b.dy, &b.dz, &b.dw);
    sn_transpose4_avx2(r0[0], r0[1], r0[2], r0[3], &b.stretch.a[0].x, &b.stretch.a[0].y, &b.stretch.a[0].z, &unused);
    sn_transpose4_avx2(r1[0], r1[1], r1[2], r1[3], &b.stretch.a[1].x, &b.stretch.a[1].y, &b.stretch.a[1].z, &unused);
    sn_transpose4_avx2(r2[0], r2[1], r2[2], r2[3], &b.stretch.a[2].x, &b.stretch.a[2].y, &b.stretch.a[2].z, &unused);
    b.stretch.a[3].x = b.stretch.a[3].y = b.stretch.a[3].z = _mm256_setzero_ps();
    /* Every blended term lies in q0's hemisphere, so |q| >= the largest
     * weight > 0: no zero guard needed. */
    const __m256 n2 = _mm256_fmadd_ps(
        b.qw, b.qw, _mm256_fmadd_ps(b.qz, b.qz, _mm256_fmadd_ps(b.qy, b.qy, _mm256_mul_ps(b.qx, b.qx))));
    const __m256 y0 = _mm256_rsqrt_ps(n2);
    const __m256 inv = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), y0),
                                     _mm256_fnmadd_ps(_mm256_mul_ps(n2, y0), y0, _mm256_set1_ps(3.0f)));
    b.qx = _mm256_mul_ps(b.qx, inv), b.qy = _mm256_mul_ps(b.qy, inv), b.qz = _mm256_mul_ps(b.qz, inv);
    b.qw = _mm256_mul_ps(b.qw, inv);
    b.dx = _mm256_mul_ps(b.dx, inv), b.dy = _mm256_mul_ps(b.dy, inv), b.dz = _mm256_mul_ps(b.dz, inv);
    b.dw = _mm256_mul_ps(b.dw, inv);
    return b;
}

/* Rotates x by the unit quaternion (qv, qw): x + 2 qv x (qv x x + qw x). */
SN_SKIN_INLINE sn_xv sn_dq_rotate_avx2(const sn_dq8 *b, sn_xv x)
{
    const sn_xv qv = {b->qx, b->qy, b->qz};
    sn_xv c = sn_cross_w(qv, x);
    c.x = _mm256_fmadd_ps(b->qw, x.x, c.x);
    c.y = _mm256_fmadd_ps(b->qw, x.y, c.y);
    c.z = _mm256_fmadd_ps(b->qw, x.z, c.z);
    const sn_xv t = sn_cross_w(qv, c);
    const __m256 two = _mm256_set1_ps(2.0f);
    sn_xv r = {_mm256_fmadd_ps(two, t.x, x.x), _mm256_fmadd_ps(two, t.y, x.y), _mm256_fmadd_ps(two, t.z, x.z)};
    return r;
}

SN_SKIN_INLINE void sn_dq_block_avx2(const sn_skin_group *g, size_t i, unsigned n, const float *palette,
                                     const sn_skin_io *io, const sn_wide_at *at, const sn_skin_format format,
                                     const unsigned K, const unsigned mask)
{
    const sn_dq8 b = sn_dq_blend8_avx2(g, i, n, palette, format, K);
    /* det of the stretch (tangent handedness); the inverse-transpose normal
     * computes it on the way. */
    __m256 det = _mm256_setzero_ps();
    bool have_det = false;

    if (mask & SN_SKIN_P) {
        const sn_xv p = sn_load3_w(at->pin, io->pin_stride, n, at->lanes);
        sn_xv r = sn_dq_rotate_avx2(&b, sn_linear_w(&b.stretch, p));
        /* translation 2 (qw dv - dw qv + qv x dv) */
        const sn_xv qv = {b.qx, b.qy, b.qz}, dv = {b.dx, b.dy, b.dz};
        const sn_xv t = sn_cross_w(qv, dv);
        const __m256 two = _mm256_set1_ps(2.0f);
        r.x = _mm256_fmadd_ps(two, _mm256_add_ps(_mm256_fmsub_ps(b.qw, b.dx, _mm256_mul_ps(b.dw, b.qx)), t.x), r.x);
        r.y = _mm256_fmadd_ps(two, _mm256_add_ps(_mm256_fmsub_ps(b.qw, b.dy, _mm256_mul_ps(b.dw, b.qy)), t.y), r.y);
        r.z = _mm256_fmadd_ps(two, _mm256_add_ps(_mm256_fmsub_ps(b.qw, b.dz, _mm256_mul_ps(b.dw, b.qz)), t.z), r.z);
        sn_store3_w(at->pout, io->pout_stride, n, at->lanes, r);
    }
    if (mask & SN_SKIN_N) {
        const sn_xv d = sn_load3_w(at->nin, io->nin_stride, n, at->lanes);
        /* R(q) sign(det S) cof(S) n, or R(q) S n for blended-matrix normals
         * (largest-weight normals run the portable kernel). */
        const bool cofactor = sn_skin_normals_cofactor(io->normals);
        sn_xv s;
        if (cofactor) {
            s = sn_cofactor_apply_w(&b.stretch, d, &det);
            have_det = true;
        } else {
            s = sn_linear_w(&b.stretch, d);
        }
        sn_xv r = sn_dq_rotate_avx2(&b, s);
        const unsigned good = sn_normalise_w(&r);
        if (SN_UNLIKELY(good != SN_W_ALL))
            sn_patch_vanished_w(&r, good, n, g, i, palette, SN_SKIN_RECORD_DQ, format, at->nin, io->nin_stride,
                                at->lanes, cofactor);
        sn_store3_w(at->nout, io->nout_stride, n, at->lanes, r);
    }
    if (mask & SN_SKIN_T) {
        __m256 w;
        const sn_xv d = sn_load4_w(at->tin, io->tin_stride, n, at->lanes, &w);
        sn_xv r = sn_dq_rotate_avx2(&b, sn_linear_w(&b.stretch, d));
        if (!have_det) det = sn_dot_w(b.stretch.a[0], sn_cross_w(b.stretch.a[1], b.stretch.a[2]));
        const unsigned good = sn_normalise_w(&r);
        if (SN_UNLIKELY(good != SN_W_ALL))
            sn_patch_vanished_w(&r, good, n, g, i, palette, SN_SKIN_RECORD_DQ, format, at->tin, io->tin_stride,
                                at->lanes, false);
        /* Handedness flips where the stretch mirrors. */
        const __m256 mirrored = _mm256_cmp_ps(det, _mm256_setzero_ps(), _CMP_LT_OQ);
        sn_store4_w(at->tout, io->tout_stride, n, at->lanes, r, sn_negate_where_w(w, mirrored));
    }
}

/* Walks the group in blocks of eight, like sn_wide_loop_w. */
SN_WIDE_RUNS_FUNCTION(sn_dq_loop_avx2, sn_dq_block_avx2)

/* Influence class and the common stream sets become constants per
 * instantiated loop; the other sets share one loop that tests the mask per
 * block (as sn_wide_w in kernel_wide_body.h). */
SN_SKIN_INLINE void sn_dq_masks_avx2(const sn_skin_group *g, size_t begin, size_t end, const float *palette,
                                     const sn_skin_io *io, const sn_skin_format format, const unsigned K)
{
    switch (io->mask) {
    case SN_SKIN_P: sn_dq_loop_avx2(g, begin, end, palette, io, format, K, SN_SKIN_P); break;
    case SN_SKIN_P | SN_SKIN_N: sn_dq_loop_avx2(g, begin, end, palette, io, format, K, SN_SKIN_P | SN_SKIN_N); break;
    case SN_SKIN_P | SN_SKIN_N | SN_SKIN_T:
        sn_dq_loop_avx2(g, begin, end, palette, io, format, K, SN_SKIN_P | SN_SKIN_N | SN_SKIN_T);
        break;
    default: sn_dq_loop_avx2(g, begin, end, palette, io, format, K, io->mask); break;
    }
}

SN_SKIN_INLINE void sn_dq_classes_avx2(const sn_skin_group *g, size_t begin, size_t end, const float *palette,
                                       const sn_skin_io *io, const sn_skin_format format)
{
    switch (g->influences) {
    case 1: sn_dq_masks_avx2(g, begin, end, palette, io, format, 1); break;
    case 2: sn_dq_masks_avx2(g, begin, end, palette, io, format, 2); break;
    case 3: sn_dq_masks_avx2(g, begin, end, palette, io, format, 3); break;
    case 4: sn_dq_masks_avx2(g, begin, end, palette, io, format, 4); break;
    default: sn_dq_masks_avx2(g, begin, end, palette, io, format, 0); break;
    }
}

void sn_skin_kernel_dq_avx2(const sn_skin_group *g, size_t begin, size_t end, const float *palette,
                            const sn_skin_io *io)
{
    /* Largest-weight normals run the portable kernel, for the normals alone:
     * positions and tangents come from this kernel whichever streams are
     * asked for, so a depth pre-pass and the main pass agree bit for bit. */
    sn_skin_io rest = *io;
    if (io->normals == SINEW_SKIN_NORMALS_LARGEST_WEIGHT && (io->mask & SN_SKIN_N)) {
        sn_skin_io normals_only = *io;
        normals_only.mask = SN_SKIN_N;
        sn_skin_kernel_dq(g, begin, end, palette, &normals_only);
        rest.mask &= ~(unsigned)SN_SKIN_N;
        if (!rest.mask) return;
    }
    switch (io->format) {
    case SN_SKIN_F32_J16: sn_dq_classes_avx2(g, begin, end, palette, &rest, SN_SKIN_F32_J16); break;
    case SN_SKIN_U8_J8: sn_dq_classes_avx2(g, begin, end, palette, &rest, SN_SKIN_U8_J8); break;
    default: sn_dq_classes_avx2(g, begin, end, palette, &rest, SN_SKIN_U8_J16); break;
    }
}
