/* Dual quaternion skinning (Kavan et al. 2008) and its per-vertex mix with
 * linear blending. One portable kernel serves every influence count: the
 * quaternion normalisation and rotation dominate, not the influence loop.
 *
 * Each palette record carries the joint's rotation quaternion q, dual part d
 * and scale/shear S with M = [R(q) S | t]. A vertex is stretched by the linear
 * blend of the S_j, then moved by the normalised blend of the (q_j, d_j), each
 * flipped into the hemisphere of the largest-weight joint's q. */
#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

#include "skin/skin_internal.h"

/* Float vector products from cglm. Its vec3 functions take non-const
 * pointers but never write their inputs; vec3 has no alignment rule, so
 * palette and caller floats are passed as they are. */
SN_SKIN_INLINE float sn_dot3f(const float a[3], const float b[3])
{
    return glm_vec3_dot((float *)a, (float *)b);
}

SN_SKIN_INLINE void sn_cross3f(const float a[3], const float b[3], float out[3])
{
    glm_vec3_cross((float *)a, (float *)b, out);
}

/* out = A x for column-major 3x3 A given as three columns of stride cs. */
SN_SKIN_INLINE void sn_apply3(const float *a, int cs, const float x[3], float out[3])
{
    for (int r = 0; r < 3; ++r) out[r] = a[r] * x[0] + a[cs + r] * x[1] + a[2 * cs + r] * x[2];
}

/* sign(det A) * cofactor(A) n; returns det A. Columns of stride cs. */
SN_SKIN_INLINE float sn_cofactor_apply3(const float *a, int cs, const float n[3], float out[3])
{
    float x12[3], x20[3], x01[3];
    sn_cross3f(a + cs, a + 2 * cs, x12);
    sn_cross3f(a + 2 * cs, a, x20);
    sn_cross3f(a, a + cs, x01);
    float det = sn_dot3f(a, x12);
    float sign = det < 0.0f ? -1.0f : 1.0f;
    for (int i = 0; i < 3; ++i) out[i] = sign * (n[0] * x12[i] + n[1] * x20[i] + n[2] * x01[i]);
    return det;
}

/* Rotates x by unit quaternion q: x + 2 v x (v x x + w x). */
SN_SKIN_INLINE void sn_rotate(const float q[4], const float x[3], float out[3])
{
    float c[3], t[3];
    sn_cross3f(q, x, c);
    for (int i = 0; i < 3; ++i) c[i] += q[3] * x[i];
    sn_cross3f(q, c, t);
    for (int i = 0; i < 3; ++i) out[i] = x[i] + 2.0f * t[i];
}

SN_SKIN_INLINE bool sn_normalize3(float v[3])
{
    float d2 = sn_dot3f(v, v);
    if (!(d2 > SN_SKIN_TINY)) return false;
    float s = 1.0f / sqrtf(d2);
    for (int i = 0; i < 3; ++i) v[i] *= s;
    return true;
}

void sn_dq_accumulate(const sn_skin_group *g, size_t i, const float *palette, sn_skin_format format, sn_dq_blend *b)
{
    const size_t k = g->influences, base = i * k;
    const float *q0 = palette + SN_SKIN_RECORD_DQ * sn_skin_joint(g->joints, format, base) + SN_SKIN_DQ_ROTATION;
    memset(b, 0, sizeof *b);
    for (size_t s = 0; s < k; ++s) {
        const float *rec = palette + SN_SKIN_RECORD_DQ * sn_skin_joint(g->joints, format, base + s);
        const float w = k == 1 ? 1.0f : sn_skin_weight(g->weights, format, base + s);
        const float *q = rec + SN_SKIN_DQ_ROTATION, *d = rec + SN_SKIN_DQ_DUAL, *st = rec + SN_SKIN_DQ_STRETCH;
        /* Antipodality: q and -q are the same rotation; blend on q0's side. */
        const float sw = q[0] * q0[0] + q[1] * q0[1] + q[2] * q0[2] + q[3] * q0[3] < 0.0f ? -w : w;
        for (int c = 0; c < 4; ++c) {
            b->q[c] += sw * q[c];
            b->d[c] += sw * d[c];
        }
        /* Every joint's full stretch, rigid or not: a shortcut for (nearly)
         * uniform ones would jump where a joint crosses the rigid tolerance. */
        for (int c = 0; c < 3; ++c)
            for (int r = 0; r < 3; ++r) b->s[3 * c + r] += w * st[4 * c + r];
    }
    /* Every term lies in q0's hemisphere, so |q| >= the largest weight > 0. */
    float inv = 1.0f / sqrtf(b->q[0] * b->q[0] + b->q[1] * b->q[1] + b->q[2] * b->q[2] + b->q[3] * b->q[3]);
    for (int c = 0; c < 4; ++c) {
        b->q[c] *= inv;
        b->d[c] *= inv;
    }
}

/* Linear blend of the records' 3x4 matrices (first 16 floats). */
static void sn_lbs_matrix(const sn_skin_group *g, size_t i, const float *palette, sn_skin_format format, float m[16])
{
    const size_t k = g->influences, base = i * k;
    memset(m, 0, 16 * sizeof *m);
    for (size_t s = 0; s < k; ++s) {
        const float *rec = palette + SN_SKIN_RECORD_DQ * sn_skin_joint(g->joints, format, base + s);
        const float w = k == 1 ? 1.0f : sn_skin_weight(g->weights, format, base + s);
        for (int e = 0; e < 16; ++e) m[e] += w * rec[e];
    }
}

static void sn_dq_vertex(const sn_skin_group *g, size_t i, const float *palette, const sn_skin_io *io,
                         sn_skin_format format)
{
    const size_t v = g->vertex[i], k = g->influences;
    const float alpha = g->dq_blend ? g->dq_blend[i] : 1.0f;
    const float *largest = palette + SN_SKIN_RECORD_DQ * sn_skin_joint(g->joints, format, i * k);
    sn_dq_blend b;
    sn_dq_accumulate(g, i, palette, format, &b);
    float m[16];
    const bool linear = alpha < 1.0f;
    if (linear) sn_lbs_matrix(g, i, palette, format, m);
    /* Determinants of the stretch and the linear blend: tangent handedness. */
    float x12[3];
    sn_cross3f(b.s + 3, b.s + 6, x12);
    const float det_s = sn_dot3f(b.s, x12);
    float det_m = 1.0f;
    if (linear) {
        sn_cross3f(m + 4, m + 8, x12);
        det_m = sn_dot3f(m, x12);
    }

    if (io->mask & SN_SKIN_P) {
        const float *p = (const float *)(io->pin + v * io->pin_stride);
        float *o = (float *)(io->pout + v * io->pout_stride);
        float ps[3], r[3], t[3];
        sn_apply3(b.s, 3, p, ps);
        sn_rotate(b.q, ps, r);
        /* translation 2 (w_q d_v - w_d q_v + q_v x d_v) */
        sn_cross3f(b.q, b.d, t);
        float res[3];
        for (int c = 0; c < 3; ++c) res[c] = r[c] + 2.0f * (b.q[3] * b.d[c] - b.d[3] * b.q[c] + t[c]);
        if (linear) {
            float l[3];
            sn_apply3(m, 4, p, l);
            for (int c = 0; c < 3; ++c) res[c] = (1.0f - alpha) * (l[c] + m[12 + c]) + alpha * res[c];
        }
        o[0] = res[0], o[1] = res[1], o[2] = res[2];
    }
    if (io->mask & SN_SKIN_N) {
        const float *n = (const float *)(io->nin + v * io->nin_stride);
        float *o = (float *)(io->nout + v * io->nout_stride);
        float ns[3], res[3];
        /* The dual-quaternion part's A is R(q) S; R(q) is a rotation, so the
         * inverse transpose of A is R(q) times that of S, and the modes read
         * (see sinew_skin_normals): R(q) sign(det S) cof(S) n, the largest
         * joint's R_k sign(det S_k) cof(S_k) n, or R(q) S n. */
        const bool largest_only = io->normals == SINEW_SKIN_NORMALS_LARGEST_WEIGHT;
        const bool cofactor = sn_skin_normals_cofactor(io->normals);
        if (largest_only) {
            sn_cofactor_apply3(largest + SN_SKIN_DQ_STRETCH, 4, n, ns);
            sn_rotate(largest + SN_SKIN_DQ_ROTATION, ns, res);
        } else {
            if (cofactor) sn_cofactor_apply3(b.s, 3, n, ns);
            else sn_apply3(b.s, 3, n, ns);
            sn_rotate(b.q, ns, res);
        }
        bool ok = sn_normalize3(res);
        if (linear) {
            /* The linear part's normal in the same mode. */
            float l[3];
            const float *src = largest_only ? largest : m;
            if (cofactor) sn_cofactor_apply3(src, 4, n, l);
            else sn_apply3(src, 4, n, l);
            bool lok = sn_normalize3(l);
            for (int c = 0; c < 3; ++c) res[c] = (1.0f - alpha) * (lok ? l[c] : 0.0f) + alpha * (ok ? res[c] : 0.0f);
            ok = sn_normalize3(res);
        }
        if (!ok) sn_skin_fallback_direction(largest, n, cofactor, res);
        o[0] = res[0], o[1] = res[1], o[2] = res[2];
    }
    if (io->mask & SN_SKIN_T) {
        const float *t = (const float *)(io->tin + v * io->tin_stride);
        float *o = (float *)(io->tout + v * io->tout_stride);
        float ts[3], res[3];
        sn_apply3(b.s, 3, t, ts);
        sn_rotate(b.q, ts, res);
        bool ok = sn_normalize3(res);
        float det = det_s;
        if (linear) {
            float l[3];
            sn_apply3(m, 4, t, l);
            bool lok = sn_normalize3(l);
            for (int c = 0; c < 3; ++c) res[c] = (1.0f - alpha) * (lok ? l[c] : 0.0f) + alpha * (ok ? res[c] : 0.0f);
            ok = sn_normalize3(res);
            if (alpha < 0.5f) det = det_m;
        }
        if (!ok) sn_skin_fallback_direction(largest, t, false, res);
        const float w = t[3];
        o[0] = res[0], o[1] = res[1], o[2] = res[2];
        o[3] = det < 0.0f ? -w : w;
    }
}

void sn_skin_kernel_dq(const sn_skin_group *g, size_t begin, size_t end, const float *palette, const sn_skin_io *io)
{
    /* The format is fixed per skin; resolve it from the group's storage once. */
    const sn_skin_format format = io->format;
    for (size_t i = begin; i < end; ++i) sn_dq_vertex(g, i, palette, io, format);
}
