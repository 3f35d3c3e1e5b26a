/*
 * The several-vertex structure-of-arrays linear-blend kernel, written once
 * against a small vocabulary and included by kernel_wide_avx512.h (16 lanes),
 * kernel_wide_avx2.h (8 lanes) and kernel_wide_sse2.h (4 lanes), which first
 * define:
 *
 *   sn_w, SN_W_LANES, SN_W_ALL   the register, its lanes, the all-lanes mask
 *   sn_w_add, sn_w_mul, sn_w_xor, sn_w_and, sn_w_set1, sn_w_zero, sn_w_rsqrt
 *   sn_w_fmadd(a, b, c) = a b + c, sn_w_fmsub = a b - c, sn_w_fnmadd = c - a b
 *   sn_w_gt, sn_w_lt             ordered comparisons, all-ones lanes
 *   sn_w_movemask, sn_w_load, sn_w_store (aligned to sizeof(sn_w))
 *   sn_w_lanes(f)                SN_W_LANES floats f[0..] as a register, built
 *                                in registers (no store-forwarding stall)
 *
 * and, after including this file, the instruction-set pieces declared below
 * (blend and transpose the matrices, move streams into and out of
 * structure-of-arrays form).
 *
 * Why: one vertex per iteration (kernel_body.h) spends most of its time on
 * horizontal work: broadcasting input components, rotating lanes for cross
 * products and lengths, and a branch per vertex for the zero-length guard.
 * Here a block of vertices travels together:
 *   1. each vertex's matrix is blended as in kernel_body.h;
 *   2. the blended matrices are transposed once, so that every matrix element
 *      holds one vertex per lane;
 *   3. the inputs are transposed from their per-vertex layout in registers,
 *      transformed, renormalised with rsqrt plus one Newton step, and
 *      transposed back on store.
 * The zero-length decision is a lane mask: the slow fallback runs only for
 * the lanes whose direction vanished.
 *
 * Every block, full or not, runs the same instructions per lane (a partial
 * block repeats its last vertex in the unused lanes and does not store them),
 * so a vertex gets bit-identical results whichever range or chunking reaches
 * it. Packed streams load and store whole registers; large ranges prefetch
 * their inputs. Outputs always go through the cache: non-temporal stores
 * were measured slower than cached ones for every influence class and
 * stream combination on the reference machine (up to four times slower for
 * single-joint vertices), see "Output stores" in docs/skinning.md.
 */
#ifndef SINEW_SKIN_KERNEL_WIDE_BODY_H
#define SINEW_SKIN_KERNEL_WIDE_BODY_H

#include <string.h>

/* One 3-vector per lane, one component per register. */
typedef struct sn_xv {
    sn_w x, y, z;
} sn_xv;

/* One blended 3x4 matrix per lane: a[c] is column c (column 3 the
 * translation). */
typedef struct sn_mv {
    sn_xv a[4];
} sn_mv;

/* Instruction-set pieces, defined by the including header after this file.
 * n is the number of live lanes (1..SN_W_LANES); dead lanes repeat lane n - 1
 * on load and are never stored. */
/* Blends the vertices at group positions i..i+n-1 and transposes them. */
SN_SKIN_INLINE sn_mv sn_matrices_w(const sn_skin_group *g, size_t i, unsigned n, const float *palette,
                                   const sn_skin_format format, const unsigned K);
/* All k slot weights of a full block with float weights, one register per
 * slot (w[s], one vertex per lane), where the instruction set transposes them
 * cheaply (k = 2 and 4); returns false, writing nothing, for other blocks. */
SN_SKIN_INLINE bool sn_block_weights_w(const sn_skin_group *g, size_t i, unsigned n, const sn_skin_format format,
                                       const unsigned K, sn_w *w);
/* Stream addressing of a block: with lanes NULL, lane l is the vertex at
 * p + l * stride (consecutive vertices from p on); otherwise p is the
 * stream's origin and lane l is vertex lanes[l], at p + lanes[l] * stride. */
#ifndef SN_LANE
#  define SN_LANE(lanes, l) ((lanes) ? (size_t)(lanes)[l] : (size_t)(l))
#endif
/* 3-vectors (positions, normals). */
SN_SKIN_INLINE sn_xv sn_load3_w(const char *p, size_t stride, unsigned n, const uint32_t *lanes);
/* 4-vectors (tangents): xyz, and w into *w. */
SN_SKIN_INLINE sn_xv sn_load4_w(const char *p, size_t stride, unsigned n, const uint32_t *lanes, sn_w *w);
/* Stores exactly 12 (or 16) bytes per live lane. */
SN_SKIN_INLINE void sn_store3_w(char *p, size_t stride, unsigned n, const uint32_t *lanes, sn_xv v);
SN_SKIN_INLINE void sn_store4_w(char *p, size_t stride, unsigned n, const uint32_t *lanes, sn_xv v, sn_w w);

/* Whether the n vertices at group positions i.. all have the joints (in the
 * same slot order) of the first: k joint indices of 1 or 2 bytes each. */
SN_SKIN_INLINE bool sn_shared_joints_w(const sn_skin_group *g, size_t i, unsigned n, const sn_skin_format format,
                                       const unsigned K)
{
    const size_t k = K ? K : g->influences, bytes = k * (format == SN_SKIN_U8_J8 ? 1u : 2u);
    const unsigned char *j = (const unsigned char *)g->joints + i * bytes;
    if (bytes <= 8) {
        /* A tuple of at most 8 bytes compares as one integer (fixed-size
         * copies compile to single loads). */
        uint64_t first = 0;
        memcpy(&first, j, bytes);
        for (unsigned l = 1; l < n; ++l) {
            uint64_t other = 0;
            memcpy(&other, j + l * bytes, bytes);
            if (other != first) return false;
        }
        return true;
    }
    for (unsigned l = 1; l < n; ++l)
        if (memcmp(j, j + l * bytes, bytes) != 0) return false;
    return true;
}

/* Weights of slot s of the vertices at group positions i.. (dead lanes repeat
 * lane n - 1), one vertex per lane. */
SN_SKIN_INLINE sn_w sn_slot_weights_w(const sn_skin_group *g, size_t i, unsigned n, unsigned s,
                                      const sn_skin_format format, const unsigned K)
{
    const size_t k = K ? K : g->influences;
    float w[SN_W_LANES];
    for (unsigned l = 0; l < SN_W_LANES; ++l)
        w[l] = sn_skin_weight(g->weights, format, (i + (l < n ? l : n - 1)) * k + s);
    return sn_w_lanes(w);
}

/* The blended matrices of n vertices that share their joints: every matrix
 * element is the first joint's element (broadcast) times the lanes' weights,
 * then one multiply-add per further joint, so no transpose is needed. Per
 * lane these are the very operations of the per-vertex blend of each
 * instruction set (w0 r0, then r_s w_s + acc in slot order, fused where that
 * blend fuses), so a vertex gets the same bits whichever way its block is
 * blended, and results stay bit-identical under any chunking. */
SN_SKIN_INLINE sn_mv sn_matrices_shared_w(const sn_skin_group *g, size_t i, unsigned n, const float *palette,
                                          const sn_skin_format format, const unsigned K)
{
    const unsigned k = K ? K : g->influences;
    const size_t base = i * k;
    const float *r0 = palette + SN_SKIN_RECORD_LINEAR * sn_skin_joint(g->joints, format, base);
    sn_mv m;
    if (K == 1) {
        for (int c = 0; c < 4; ++c) {
            m.a[c].x = sn_w_set1(r0[4 * c]);
            m.a[c].y = sn_w_set1(r0[4 * c + 1]);
            m.a[c].z = sn_w_set1(r0[4 * c + 2]);
        }
        return m;
    }
    sn_w wk[4];
    const bool transposed = sn_block_weights_w(g, i, n, format, K, wk);
    const sn_w w0 = transposed ? wk[0] : sn_slot_weights_w(g, i, n, 0, format, K);
    for (int c = 0; c < 4; ++c) {
        m.a[c].x = sn_w_mul(sn_w_set1(r0[4 * c]), w0);
        m.a[c].y = sn_w_mul(sn_w_set1(r0[4 * c + 1]), w0);
        m.a[c].z = sn_w_mul(sn_w_set1(r0[4 * c + 2]), w0);
    }
    for (unsigned s = 1; s < k; ++s) {
        const float *r = palette + SN_SKIN_RECORD_LINEAR * sn_skin_joint(g->joints, format, base + s);
        const sn_w w = transposed ? wk[s & 3] : sn_slot_weights_w(g, i, n, s, format, K);
        for (int c = 0; c < 4; ++c) {
            m.a[c].x = sn_w_fmadd(sn_w_set1(r[4 * c]), w, m.a[c].x);
            m.a[c].y = sn_w_fmadd(sn_w_set1(r[4 * c + 1]), w, m.a[c].y);
            m.a[c].z = sn_w_fmadd(sn_w_set1(r[4 * c + 2]), w, m.a[c].z);
        }
    }
    return m;
}

/* m * (x, y, z) for the linear part (columns 0..2). */
SN_SKIN_INLINE sn_xv sn_linear_w(const sn_mv *m, sn_xv d)
{
    sn_xv r;
    r.x = sn_w_fmadd(m->a[2].x, d.z, sn_w_fmadd(m->a[1].x, d.y, sn_w_mul(m->a[0].x, d.x)));
    r.y = sn_w_fmadd(m->a[2].y, d.z, sn_w_fmadd(m->a[1].y, d.y, sn_w_mul(m->a[0].y, d.x)));
    r.z = sn_w_fmadd(m->a[2].z, d.z, sn_w_fmadd(m->a[1].z, d.y, sn_w_mul(m->a[0].z, d.x)));
    return r;
}

SN_SKIN_INLINE sn_xv sn_cross_w(sn_xv a, sn_xv b)
{
    sn_xv r;
    r.x = sn_w_fmsub(a.y, b.z, sn_w_mul(a.z, b.y));
    r.y = sn_w_fmsub(a.z, b.x, sn_w_mul(a.x, b.z));
    r.z = sn_w_fmsub(a.x, b.y, sn_w_mul(a.y, b.x));
    return r;
}

SN_SKIN_INLINE sn_w sn_dot_w(sn_xv a, sn_xv b)
{
    return sn_w_fmadd(a.z, b.z, sn_w_fmadd(a.y, b.y, sn_w_mul(a.x, b.x)));
}

/* Negates the lanes of v selected by mask (all ones or zero per lane). */
SN_SKIN_INLINE sn_w sn_negate_where_w(sn_w v, sn_w mask)
{
    return sn_w_xor(v, sn_w_and(mask, sn_w_set1(-0.0f)));
}

/* sign(det) * cofactor(A) n, with A the linear part; *det = det A. */
SN_SKIN_INLINE sn_xv sn_cofactor_apply_w(const sn_mv *m, sn_xv n, sn_w *det)
{
    const sn_xv x12 = sn_cross_w(m->a[1], m->a[2]);
    const sn_xv x20 = sn_cross_w(m->a[2], m->a[0]);
    const sn_xv x01 = sn_cross_w(m->a[0], m->a[1]);
    sn_xv r;
    r.x = sn_w_fmadd(x01.x, n.z, sn_w_fmadd(x20.x, n.y, sn_w_mul(x12.x, n.x)));
    r.y = sn_w_fmadd(x01.y, n.z, sn_w_fmadd(x20.y, n.y, sn_w_mul(x12.y, n.x)));
    r.z = sn_w_fmadd(x01.z, n.z, sn_w_fmadd(x20.z, n.y, sn_w_mul(x12.z, n.x)));
    *det = sn_dot_w(m->a[0], x12);
    const sn_w negative = sn_w_lt(*det, sn_w_zero());
    r.x = sn_negate_where_w(r.x, negative);
    r.y = sn_negate_where_w(r.y, negative);
    r.z = sn_negate_where_w(r.z, negative);
    return r;
}

/* Unit-length v where its squared length exceeds SN_SKIN_TINY; returns the
 * bit mask of those lanes (the others hold junk for the caller to patch). */
SN_SKIN_INLINE unsigned sn_normalise_w(sn_xv *v)
{
    const sn_w d2 = sn_dot_w(*v, *v);
    const sn_w y0 = sn_w_rsqrt(d2);
    /* One Newton step: y0 * (1.5 - 0.5 d2 y0^2), ~23 bits. */
    const sn_w hy = sn_w_mul(sn_w_set1(0.5f), y0);
    const sn_w y = sn_w_mul(hy, sn_w_fnmadd(sn_w_mul(d2, y0), y0, sn_w_set1(3.0f)));
    v->x = sn_w_mul(v->x, y);
    v->y = sn_w_mul(v->y, y);
    v->z = sn_w_mul(v->z, y);
    return (unsigned)sn_w_movemask(sn_w_gt(d2, sn_w_set1(SN_SKIN_TINY)));
}

/* Cold path: replaces the lanes of v outside `good` (below n) by the
 * largest-weight joint's transform of their input direction (palette records
 * of record_floats floats, the linear matrix first; cofactor as in
 * sn_skin_fallback_direction). */
static void sn_patch_vanished_w(sn_xv *v, unsigned good, unsigned n, const sn_skin_group *g, size_t i,
                                const float *palette, size_t record_floats, sn_skin_format format, const char *dir,
                                size_t stride, const uint32_t *lanes, bool cofactor)
{
    _Alignas(sizeof(sn_w)) float x[SN_W_LANES], y[SN_W_LANES], z[SN_W_LANES];
    sn_w_store(x, v->x), sn_w_store(y, v->y), sn_w_store(z, v->z);
    for (unsigned l = 0; l < n; ++l) {
        if (good & (1u << l)) continue;
        const float *record = palette + record_floats * sn_skin_joint(g->joints, format, (i + l) * g->influences);
        float out[3];
        sn_skin_fallback_direction(record, (const float *)(const void *)(dir + SN_LANE(lanes, l) * stride), cofactor,
                                   out);
        x[l] = out[0], y[l] = out[1], z[l] = out[2];
    }
    v->x = sn_w_load(x), v->y = sn_w_load(y), v->z = sn_w_load(z);
}

/* Where a block's vertices are: with lanes NULL, consecutive vertices from
 * the stream pointers on; otherwise the pointers are the streams' origins and
 * lanes[0..n) the vertex numbers (see SN_LANE). */
typedef struct sn_wide_at {
    const char *pin, *nin, *tin;
    char *pout, *nout, *tout;
    const uint32_t *lanes;
} sn_wide_at;

/* Deforms the n (1..SN_W_LANES) vertices at group positions i.. */
SN_SKIN_INLINE void sn_block_w(const sn_skin_group *g, size_t i, unsigned n, const float *palette,
                               const sn_skin_io *io, const sn_wide_at *at, const sn_skin_format format,
                               const unsigned K, const unsigned mask)
{
    const sn_mv m = sn_matrices_w(g, i, n, palette, format, K);
    /* det of the blended linear part (tangent handedness); the
     * inverse-transpose normal computes it on the way. */
    sn_w det = sn_w_zero();
    bool have_det = false;

    if (mask & SN_SKIN_P) {
        const sn_xv p = sn_load3_w(at->pin, io->pin_stride, n, at->lanes);
        sn_xv r;
        r.x = sn_w_fmadd(m.a[2].x, p.z, sn_w_fmadd(m.a[1].x, p.y, sn_w_fmadd(m.a[0].x, p.x, m.a[3].x)));
        r.y = sn_w_fmadd(m.a[2].y, p.z, sn_w_fmadd(m.a[1].y, p.y, sn_w_fmadd(m.a[0].y, p.x, m.a[3].y)));
        r.z = sn_w_fmadd(m.a[2].z, p.z, sn_w_fmadd(m.a[1].z, p.y, sn_w_fmadd(m.a[0].z, p.x, m.a[3].z)));
        sn_store3_w(at->pout, io->pout_stride, n, at->lanes, r);
    }
    if (mask & SN_SKIN_N) {
        const sn_xv d = sn_load3_w(at->nin, io->nin_stride, n, at->lanes);
        /* Largest-weight normals never come here (see sn_dispatch). */
        const bool cofactor = sn_skin_normals_cofactor(io->normals);
        sn_xv r;
        if (cofactor) {
            r = sn_cofactor_apply_w(&m, d, &det);
            have_det = true;
        } else {
            r = sn_linear_w(&m, d);
        }
        const unsigned good = sn_normalise_w(&r);
        if (SN_UNLIKELY(good != SN_W_ALL))
            sn_patch_vanished_w(&r, good, n, g, i, palette, SN_SKIN_RECORD_LINEAR, format, at->nin, io->nin_stride,
                                at->lanes, cofactor);
        sn_store3_w(at->nout, io->nout_stride, n, at->lanes, r);
    }
    if (mask & SN_SKIN_T) {
        sn_w w;
        const sn_xv d = sn_load4_w(at->tin, io->tin_stride, n, at->lanes, &w);
        sn_xv r = sn_linear_w(&m, d);
        if (!have_det) det = sn_dot_w(m.a[0], sn_cross_w(m.a[1], m.a[2]));
        const unsigned good = sn_normalise_w(&r);
        if (SN_UNLIKELY(good != SN_W_ALL))
            sn_patch_vanished_w(&r, good, n, g, i, palette, SN_SKIN_RECORD_LINEAR, format, at->tin, io->tin_stride,
                                at->lanes, false);
        /* Handedness flips where the blend mirrors. */
        const sn_w mirrored = sn_w_lt(det, sn_w_zero());
        sn_store4_w(at->tout, io->tout_stride, n, at->lanes, r, sn_negate_where_w(w, mirrored));
    }
}

/* Streams of a long range are read far ahead of use: the hardware
 * prefetchers alone leave a 1M-vertex P+N+T pass waiting on memory. Touches
 * the bind data and the inputs SN_SKIN_PREFETCH_VERTICES group positions
 * ahead (two lines per stream, what a block of eight uses at most), and the
 * outputs too where the group's vertices there are not the next ones in the
 * streams (its blocks lie scattered among other groups', as in a real mesh's
 * file order): each such block's output lines are a miss the hardware does
 * not foresee, while a straight run's it follows. A prefetch never faults,
 * so addresses past the end are harmless; they are formed as integers. */
/* Tuned on 1M-vertex P+N and P+N+T passes (random tuples, the real
 * characters sorted and in file order) on the AVX2 and AVX-512 sets: farther
 * ahead runs level or up to 10% slower. */
#define SN_SKIN_PREFETCH_VERTICES 32u

SN_SKIN_INLINE void sn_prefetch_lines_w(const void *base, size_t offset)
{
    const uintptr_t a = (uintptr_t)base + offset;
    _mm_prefetch((const char *)a, _MM_HINT_T0);
    _mm_prefetch((const char *)(a + 64), _MM_HINT_T0);
}

/* Touches the bind data of group position i + SN_SKIN_PREFETCH_VERTICES and
 * the streams of its vertex (the group's last vertex near its end), and so
 * for every further eight positions of a wider block. */
SN_SKIN_INLINE void sn_prefetch_ahead_w(const sn_skin_group *g, size_t i, const sn_skin_io *io,
                                        const sn_skin_format format, const unsigned K, const unsigned mask)
{
    const size_t k = K ? K : g->influences;
    for (size_t h = 0; h < SN_W_LANES; h += 8) {
        const size_t ahead = i + SN_SKIN_PREFETCH_VERTICES + h;
        sn_prefetch_lines_w(g->joints, ahead * k * (format == SN_SKIN_U8_J8 ? 1u : 2u));
        if (K != 1) sn_prefetch_lines_w(g->weights, ahead * k * (format == SN_SKIN_F32_J16 ? 4u : 1u));
        const size_t v = g->vertex[ahead < g->count ? ahead : g->count - 1];
        if (mask & SN_SKIN_P) sn_prefetch_lines_w(io->pin, v * io->pin_stride);
        if (mask & SN_SKIN_N) sn_prefetch_lines_w(io->nin, v * io->nin_stride);
        if (mask & SN_SKIN_T) sn_prefetch_lines_w(io->tin, v * io->tin_stride);
        if (v - g->vertex[i] == ahead - i) continue; /* a straight run */
        if (mask & SN_SKIN_P) sn_prefetch_lines_w(io->pout, v * io->pout_stride);
        if (mask & SN_SKIN_N) sn_prefetch_lines_w(io->nout, v * io->nout_stride);
        if (mask & SN_SKIN_T) sn_prefetch_lines_w(io->tout, v * io->tout_stride);
    }
}

/* Defines `name`, which walks group positions [begin, end) in blocks of
 * SN_W_LANES (the last one partial) and hands each block to `block`
 * (sn_block_w below, or the dual-quaternion block of dq_avx2.c). A block
 * whose vertex numbers are consecutive reads and writes the streams whole;
 * any other gathers its lanes by vertex number, so a group whose vertices
 * are scattered among other groups' (a real mesh, where 1- and 2-joint
 * vertices alternate) still fills every lane. Lanes are independent, so a
 * vertex gets the same bits whichever block holds it. A macro rather than a
 * function pointer so the block call is direct, hence inlined, at every
 * optimisation level (gcc refuses an always_inline callee behind a pointer
 * at -O0). */
#define SN_WIDE_RUNS_FUNCTION(name, block)                                                                       \
    SN_SKIN_INLINE void name(const sn_skin_group *g, size_t begin, size_t end, const float *palette,           \
                             const sn_skin_io *io, const sn_skin_format format, const unsigned K,               \
                             const unsigned mask)                                                               \
    {                                                                                                          \
        /* A local copy tells the compiler no output store can change the streams. */                         \
        const sn_skin_io local = *io;                                                                          \
        const bool P = mask & SN_SKIN_P, N = mask & SN_SKIN_N, T = mask & SN_SKIN_T;                           \
        for (size_t i = begin; i < end; i += SN_W_LANES) {                                                     \
            const unsigned n = end - i >= SN_W_LANES ? SN_W_LANES : (unsigned)(end - i);                       \
            const uint32_t *vx = g->vertex + i;                                                                \
            /* Vertex numbers increase within a group: a span of n - 1 means consecutive. */                   \
            const bool whole = vx[n - 1] - vx[0] == n - 1;                                                     \
            const size_t v = whole ? vx[0] : 0;                                                                \
            /* Streams not in the mask are NULL: never offset them. */                                         \
            const sn_wide_at at = {P ? local.pin + v * local.pin_stride : NULL,                                \
                                   N ? local.nin + v * local.nin_stride : NULL,                                \
                                   T ? local.tin + v * local.tin_stride : NULL,                                \
                                   P ? local.pout + v * local.pout_stride : NULL,                              \
                                   N ? local.nout + v * local.nout_stride : NULL,                              \
                                   T ? local.tout + v * local.tout_stride : NULL,                              \
                                   whole ? NULL : vx};                                                         \
            if (local.prefetch) sn_prefetch_ahead_w(g, i, &local, format, K, mask);                            \
            block(g, i, n, palette, &local, &at, format, K, mask);                                             \
        }                                                                                                      \
    }

SN_WIDE_RUNS_FUNCTION(sn_wide_loop_w, sn_block_w)

/* The stream mask becomes a constant per instantiated loop. Called for masks
 * with normals or tangents only (positions alone and the largest-weight
 * normal mode keep the one-vertex kernel, see sn_dispatch in kernel_body.h). */
SN_SKIN_INLINE void sn_wide_w(const sn_skin_group *g, size_t begin, size_t end, const float *palette,
                              const sn_skin_io *io, const sn_skin_format format, const unsigned K)
{
    /* As in sn_dispatch: the common stream sets get loops of their own, the
     * rest share one that tests the mask per block. */
    switch (io->mask) {
    case SN_SKIN_P | SN_SKIN_N: sn_wide_loop_w(g, begin, end, palette, io, format, K, SN_SKIN_P | SN_SKIN_N); break;
    case SN_SKIN_P | SN_SKIN_N | SN_SKIN_T:
        sn_wide_loop_w(g, begin, end, palette, io, format, K, SN_SKIN_P | SN_SKIN_N | SN_SKIN_T);
        break;
    default: sn_wide_loop_w(g, begin, end, palette, io, format, K, io->mask); break;
    }
}


#endif /* SINEW_SKIN_KERNEL_WIDE_BODY_H */
