/*
 * The linear-blend deform kernel, written once against a small vector
 * vocabulary and included by each instruction-set file (kernel_scalar.c,
 * kernel_sse2.c, kernel_avx2.c), which first defines:
 *
 *   sn_v                     4 floats (x, y, z, spare)
 *   sn_m                     a blended 3x4 matrix, four sn_v columns
 *   sn_m_load(rec)           the matrix of one palette record
 *   sn_m_scaled(rec, w)      w * that matrix
 *   sn_m_madd(&m, rec, w)    m += w * that matrix
 *   sn_m_col(m, c)           column c as an sn_v
 *   sn_v_bcast(ptr)          *ptr in every lane
 *   sn_v_mul, sn_v_madd(a, b, c) = a * b + c, sn_v_neg, sn_v_cross
 *   sn_v_dot3(a, b)          x, y, z dot product, as a float
 *   sn_v_len2(v)             x^2 + y^2 + z^2 in lane 0 (at least)
 *   sn_v_first(v)            lane 0 as a float
 *   sn_v_scale_rsqrt(v, d)   v / sqrt(d[0]), to float precision
 *   sn_v_store3(ptr, v)      x, y, z only (never touches ptr[3])
 *   SN_ISA(name)             name with the instruction set appended
 *   SN_SKIN_WIDE (optional)  a several-vertex kernel for the modes with
 *                            normals or tangents (see sn_dispatch)
 *   SN_SKIN_POSITIONS4 (optional)  positions alone of four consecutive
 *                            vertices, with sn_vertex's bits (see sn_loop);
 *                            defines the positions table sn_skin_positions
 *
 * One function per (storage format, influence class) keeps the influence loop
 * fully unrolled for k = 1..4; the stream mask is a constant inside each
 * instantiated loop, so the per-vertex code holds no branch on k or on which
 * streams are wanted.
 */

#include <string.h>

/* Blended matrix of position i in group g: one joint copies its record
 * (the rigid path of single-joint vertices), more joints blend. */
SN_SKIN_INLINE sn_m SN_ISA(sn_blend)(const sn_skin_group *g, size_t i, const float *palette,
                                     const sn_skin_format format, const unsigned K, const float **largest)
{
    const unsigned k = K ? K : g->influences;
    const size_t base = i * k;
    const float *r0 = palette + SN_SKIN_RECORD_LINEAR * sn_skin_joint(g->joints, format, base);
    *largest = r0;
    if (K == 1) return sn_m_load(r0);
    sn_m m = sn_m_scaled(r0, sn_skin_weight(g->weights, format, base));
    for (unsigned s = 1; s < k; ++s)
        sn_m_madd(&m, palette + SN_SKIN_RECORD_LINEAR * sn_skin_joint(g->joints, format, base + s),
                  sn_skin_weight(g->weights, format, base + s));
    return m;
}

/* Inverse transpose of columns (a0, a1, a2) applied to n, times sign(det):
 * sign(det) * (n.x (a1 x a2) + n.y (a2 x a0) + n.z (a0 x a1)). Sets *det. */
SN_SKIN_INLINE sn_v SN_ISA(sn_cofactor_apply)(sn_v a0, sn_v a1, sn_v a2, sn_v nx, sn_v ny, sn_v nz, float *det)
{
    sn_v x12 = sn_v_cross(a1, a2), x20 = sn_v_cross(a2, a0), x01 = sn_v_cross(a0, a1);
    sn_v r = sn_v_madd(x01, nz, sn_v_madd(x20, ny, sn_v_mul(x12, nx)));
    *det = sn_v_dot3(a0, x12);
    return *det < 0.0f ? sn_v_neg(r) : r;
}

/* Stream pointers of the current vertex. */
typedef struct SN_ISA(sn_at) {
    const float *pin, *nin, *tin;
    float *pout, *nout, *tout;
} SN_ISA(sn_at);

SN_SKIN_INLINE void SN_ISA(sn_vertex)(const sn_skin_group *g, size_t i, const float *palette, const sn_skin_io *io,
                                      const SN_ISA(sn_at) *at, const sn_skin_format format, const unsigned K,
                                      const unsigned mask)
{
    const float *largest;
    const sn_m m = SN_ISA(sn_blend)(g, i, palette, format, K, &largest);
    const sn_v c0 = sn_m_col(m, 0), c1 = sn_m_col(m, 1), c2 = sn_m_col(m, 2);
    /* det of the blended linear part: the tangent's handedness flips where it
     * is negative. The inverse-transpose normal computes it on the way. */
    float det = 0.0f;
    bool have_det = false;

    if (mask & SN_SKIN_P) {
        const float *p = at->pin;
        sn_v r = sn_v_madd(c2, sn_v_bcast(p + 2),
                           sn_v_madd(c1, sn_v_bcast(p + 1), sn_v_madd(c0, sn_v_bcast(p), sn_m_col(m, 3))));
        sn_v_store3(at->pout, r);
    }
    if (mask & SN_SKIN_N) {
        const float *n = at->nin;
        const sn_v nx = sn_v_bcast(n), ny = sn_v_bcast(n + 1), nz = sn_v_bcast(n + 2);
        sn_v r;
        /* One definition per mode, whatever the joints hold, so the normal is
         * continuous in the pose (see sinew_skin_normals). With one joint the
         * largest-weight mode is the inverse-transpose one. */
        if (K != 1 && io->normals == SINEW_SKIN_NORMALS_LARGEST_WEIGHT) {
            sn_m one = sn_m_load(largest);
            float d;
            r = SN_ISA(sn_cofactor_apply)(sn_m_col(one, 0), sn_m_col(one, 1), sn_m_col(one, 2), nx, ny, nz, &d);
        } else if (io->normals == SINEW_SKIN_NORMALS_BLENDED_MATRIX) {
            r = sn_v_madd(c2, nz, sn_v_madd(c1, ny, sn_v_mul(c0, nx)));
        } else {
            r = SN_ISA(sn_cofactor_apply)(c0, c1, c2, nx, ny, nz, &det);
            have_det = true;
        }
        float *o = at->nout;
        const sn_v d2 = sn_v_len2(r);
        if (SN_LIKELY(sn_v_first(d2) > SN_SKIN_TINY)) sn_v_store3(o, sn_v_scale_rsqrt(r, d2));
        else {
            float tmp[3];
            sn_skin_fallback_direction(largest, n, sn_skin_normals_cofactor(io->normals), tmp);
            o[0] = tmp[0], o[1] = tmp[1], o[2] = tmp[2];
        }
    }
    if (mask & SN_SKIN_T) {
        const float *t = at->tin;
        sn_v r = sn_v_madd(c2, sn_v_bcast(t + 2), sn_v_madd(c1, sn_v_bcast(t + 1), sn_v_mul(c0, sn_v_bcast(t))));
        const float w = t[3];
        if (!have_det) det = sn_v_dot3(c0, sn_v_cross(c1, c2));
        float *o = at->tout;
        const sn_v d2 = sn_v_len2(r);
        if (SN_LIKELY(sn_v_first(d2) > SN_SKIN_TINY)) sn_v_store3(o, sn_v_scale_rsqrt(r, d2));
        else {
            float tmp[3];
            sn_skin_fallback_direction(largest, t, false, tmp);
            o[0] = tmp[0], o[1] = tmp[1], o[2] = tmp[2];
        }
        o[3] = det < 0.0f ? -w : w;
    }
}

SN_SKIN_INLINE void SN_ISA(sn_loop)(const sn_skin_group *g, size_t begin, size_t end, const float *palette,
                                    const sn_skin_io *io, const sn_skin_format format, const unsigned K,
                                    const unsigned mask, const bool quads)
{
    /* A local copy tells the compiler no output store can change the streams. */
    const sn_skin_io local = *io;
    /* Streams not in the mask are NULL: never offset them. */
    const bool P = mask & SN_SKIN_P, N = mask & SN_SKIN_N, T = mask & SN_SKIN_T;
    for (size_t i = begin; i < end;) {
        /* The run of consecutive vertex numbers from i (vertex numbers
         * increase within a group, so it ends where the span breaks). */
        const size_t v = g->vertex[i];
        size_t stop = i + 1;
        while (stop < end && g->vertex[stop] - v == stop - i) ++stop;
        SN_ISA(sn_at) at = {
            P ? (const float *)(local.pin + v * local.pin_stride) : NULL,
            N ? (const float *)(local.nin + v * local.nin_stride) : NULL,
            T ? (const float *)(local.tin + v * local.tin_stride) : NULL,
            P ? (float *)(local.pout + v * local.pout_stride) : NULL,
            N ? (float *)(local.nout + v * local.nout_stride) : NULL,
            T ? (float *)(local.tout + v * local.tout_stride) : NULL};
#if defined(SN_SKIN_POSITIONS4)
        /* Positions alone, in the positions kernels: four consecutive
         * vertices at a time (same bits per vertex). */
        if (quads && mask == SN_SKIN_P)
            for (; stop - i >= 4; i += 4) {
                SN_SKIN_POSITIONS4(g, i, palette, at.pin, local.pin_stride, at.pout, local.pout_stride, format, K);
                at.pin = (const float *)((const char *)at.pin + 4 * local.pin_stride);
                at.pout = (float *)((char *)at.pout + 4 * local.pout_stride);
            }
#else
        (void)quads;
#endif
        for (; i < stop; ++i) {
            SN_ISA(sn_vertex)(g, i, palette, &local, &at, format, K, mask);
            if (P) {
                at.pin = (const float *)((const char *)at.pin + local.pin_stride);
                at.pout = (float *)((char *)at.pout + local.pout_stride);
            }
            if (N) {
                at.nin = (const float *)((const char *)at.nin + local.nin_stride);
                at.nout = (float *)((char *)at.nout + local.nout_stride);
            }
            if (T) {
                at.tin = (const float *)((const char *)at.tin + local.tin_stride);
                at.tout = (float *)((char *)at.tout + local.tout_stride);
            }
        }
    }
}

/* The stream mask becomes a constant per instantiated loop. */
SN_SKIN_INLINE void SN_ISA(sn_dispatch)(const sn_skin_group *g, size_t begin, size_t end, const float *palette,
                                        const sn_skin_io *io, const sn_skin_format format, const unsigned K)
{
#if defined(SN_SKIN_WIDE)
    /* An instruction set with a several-vertex kernel (SN_SKIN_WIDE) uses it
     * whenever normals or tangents are wanted, except with largest-weight
     * normals. Positions alone stay one vertex at a time: they need no
     * renormalisation, so transposing the matrices would cost more than the
     * wide arithmetic saves. */
    if (io->normals != SINEW_SKIN_NORMALS_LARGEST_WEIGHT && io->mask != SN_SKIN_P) {
        SN_SKIN_WIDE(g, begin, end, palette, io, format, K);
        return;
    }
#endif
    /* The common stream sets get loops of their own; the rest share one
     * that tests the mask per vertex (same arithmetic, so the same bits) and
     * keeps the instantiated code, and its compile time, in bounds. */
    switch (io->mask) {
    case SN_SKIN_P: SN_ISA(sn_loop)(g, begin, end, palette, io, format, K, SN_SKIN_P, false); break;
    case SN_SKIN_P | SN_SKIN_N:
        SN_ISA(sn_loop)(g, begin, end, palette, io, format, K, SN_SKIN_P | SN_SKIN_N, false);
        break;
    case SN_SKIN_P | SN_SKIN_N | SN_SKIN_T:
        SN_ISA(sn_loop)(g, begin, end, palette, io, format, K, SN_SKIN_P | SN_SKIN_N | SN_SKIN_T, false);
        break;
    default: SN_ISA(sn_loop)(g, begin, end, palette, io, format, K, io->mask, false); break;
    }
}

#define SN_SKIN_KERNEL(F, K)                                                                                    \
    static void SN_ISA(sn_kernel_f##F##_k##K)(const sn_skin_group *g, size_t begin, size_t end,               \
                                               const float *palette, const sn_skin_io *io)                     \
    {                                                                                                          \
        SN_ISA(sn_dispatch)(g, begin, end, palette, io, (sn_skin_format)F, K);                                 \
    }
#define SN_SKIN_KERNELS_OF_FORMAT(F) \
    SN_SKIN_KERNEL(F, 1) SN_SKIN_KERNEL(F, 2) SN_SKIN_KERNEL(F, 3) SN_SKIN_KERNEL(F, 4) SN_SKIN_KERNEL(F, 0)

SN_SKIN_KERNELS_OF_FORMAT(0)
SN_SKIN_KERNELS_OF_FORMAT(1)
SN_SKIN_KERNELS_OF_FORMAT(2)

/* Row F of a kernel table: the kernels `name`_fF_k1 .. _k4, then _k0 (five
 * or more influences). */
#define SN_SKIN_TABLE_ROW(name, F)                                                                              \
    { SN_ISA(name##_f##F##_k1), SN_ISA(name##_f##F##_k2), SN_ISA(name##_f##F##_k3), SN_ISA(name##_f##F##_k4),  \
      SN_ISA(name##_f##F##_k0) }
#define SN_SKIN_TABLE(name)                                                                                     \
    static const sn_skin_kernel_fn SN_ISA(name##_table)[SN_SKIN_FORMAT_COUNT][SN_SKIN_CLASS_COUNT] = {         \
        SN_SKIN_TABLE_ROW(name, 0), SN_SKIN_TABLE_ROW(name, 1), SN_SKIN_TABLE_ROW(name, 2)};

SN_SKIN_TABLE(sn_kernel)

void SN_ISA(sn_skin_kernels)(sn_skin_kernel_fn table[SN_SKIN_FORMAT_COUNT][SN_SKIN_CLASS_COUNT])
{
    memcpy(table, SN_ISA(sn_kernel_table), sizeof SN_ISA(sn_kernel_table));
}

#if defined(SN_SKIN_POSITIONS4)
/* Positions alone with the four-vertex body get kernels of their own, which
 * the skin keeps beside its main ones (sn_skin_kernel_of picks them for
 * calls of positions alone): inlined into the main kernels, their loop
 * changes how GCC allocates the wide body's registers, and positions with
 * normals lose a quarter of their speed. */
#  define SN_SKIN_POSITIONS_KERNEL(F, K)                                                                       \
    static void SN_ISA(sn_positions_f##F##_k##K)(const sn_skin_group *g, size_t begin, size_t end,            \
                                                  const float *palette, const sn_skin_io *io)                  \
    {                                                                                                          \
        SN_ISA(sn_loop)(g, begin, end, palette, io, (sn_skin_format)F, K, SN_SKIN_P, true);                    \
    }
#  define SN_SKIN_POSITIONS_OF_FORMAT(F)                                                                       \
    SN_SKIN_POSITIONS_KERNEL(F, 1) SN_SKIN_POSITIONS_KERNEL(F, 2) SN_SKIN_POSITIONS_KERNEL(F, 3)               \
    SN_SKIN_POSITIONS_KERNEL(F, 4) SN_SKIN_POSITIONS_KERNEL(F, 0)

SN_SKIN_POSITIONS_OF_FORMAT(0)
SN_SKIN_POSITIONS_OF_FORMAT(1)
SN_SKIN_POSITIONS_OF_FORMAT(2)
SN_SKIN_TABLE(sn_positions)

void SN_ISA(sn_skin_positions)(sn_skin_kernel_fn table[SN_SKIN_FORMAT_COUNT][SN_SKIN_CLASS_COUNT])
{
    memcpy(table, SN_ISA(sn_positions_table), sizeof SN_ISA(sn_positions_table));
}
#endif
