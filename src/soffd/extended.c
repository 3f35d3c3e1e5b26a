/* Pose time, extended algorithm (paper section 4.2): one affine map per driver
 * vertex, blended inside each element by the barycentric coordinates of P's
 * closest point. Registration stored u_k * beta_j per entry and merged them
 * by driver vertex (corners.c), so a point is a sum over its distinct corner
 * vertices of (sum u beta) M_j P, with P its rest position. */
#include <math.h>
#include <string.h>

#include "soffd/soffd_internal.h"

/* The 4x4 column-major affine map of vertex v, M = C G^-1 with C the
 * current-against-reference normal equations of its one-ring, written to m
 * when m is not NULL. Returns false, writing nothing, when the map leaves the
 * domain that keeps the kernel finite (see soffd_internal.h).
 * The linear part is formed as I + (C - G) G^-1, with C - G summed from
 * current-minus-reference differences (the identity pairs cancel): the same
 * map in exact arithmetic, but where the one-ring has not moved every
 * difference is zero and the map is the identity bit for bit, however badly
 * conditioned G is, and elsewhere its rounding is relative to the motion. */
static bool vertex_frame(const sinew_soffd *h, const sinew_points *d, size_t v, float *m)
{
    const sn_soffd_ring *ring = &h->ring;
    const float *rv = &h->reference[3 * v], *dv = sn_point(d, v);
    double c[9] = {0};
    for (size_t i = ring->graph.first[v]; i < ring->graph.first[v + 1]; ++i) {
        uint32_t u = ring->graph.neighbours[i];
        const float *ru = &h->reference[3 * (size_t)u], *du = sn_point(d, u);
        double re[3] = {(double)ru[0] - rv[0], (double)ru[1] - rv[1], (double)ru[2] - rv[2]};
        double de[3] = {(double)du[0] - dv[0], (double)du[1] - dv[1], (double)du[2] - dv[2]};
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k) c[3 * r + k] += (de[r] - re[r]) * re[k];
    }
    double mu = ring->normal_weight[v];
    if (mu > 0) {
        /* The current normal, scaled like the one-ring's area so uniform scaling
         * of a flat ring scales its normal direction too; summed in the order
         * ring.c sums the reference one, so an unmoved ring gives it exactly. */
        double n[3] = {0, 0, 0}, area = 0;
        for (size_t i = ring->fan_offsets[v]; i < ring->fan_offsets[v + 1]; ++i) {
            const uint32_t *t = &h->elements[3 * (size_t)ring->fan[i]];
            const float *a = sn_point(d, t[0]), *b = sn_point(d, t[1]), *cc = sn_point(d, t[2]);
            double ab[3] = {(double)b[0] - a[0], (double)b[1] - a[1], (double)b[2] - a[2]};
            double ac[3] = {(double)cc[0] - a[0], (double)cc[1] - a[1], (double)cc[2] - a[2]};
            double x[3] = {ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2],
                           ab[0] * ac[1] - ab[1] * ac[0]};
            for (int k = 0; k < 3; ++k) n[k] += x[k];
            area += sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        }
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        const double *nr = &ring->normal[3 * v];
        double nd[3];
        if (len > 0) {
            double s = sqrt(area / ring->fan_area[v]);
            for (int k = 0; k < 3; ++k) nd[k] = n[k] / len * s;
        } else {
            for (int k = 0; k < 3; ++k) nd[k] = nr[k]; /* collapsed ring: keep the reference normal */
        }
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k) c[3 * r + k] += mu * (nd[r] - nr[r]) * nr[k];
    }
    const double *gi = &ring->inverse[9 * v];
    float lin[9];
    double t[3];
    bool ok = true;
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) {
            double x = (r == k) + (c[3 * r] * gi[k] + c[3 * r + 1] * gi[3 + k] + c[3 * r + 2] * gi[6 + k]);
            ok &= fabs(x) <= SN_SOFFD_MAX_LINEAR;
            lin[3 * r + k] = (float)x;
        }
    /* The translation from the rounded linear part, so M R_v = D_v holds to
     * the translation's own rounding even where coordinates are large. */
    for (int r = 0; r < 3; ++r) {
        t[r] = dv[r] - ((double)lin[3 * r] * rv[0] + (double)lin[3 * r + 1] * rv[1] + (double)lin[3 * r + 2] * rv[2]);
        ok &= fabs(t[r]) <= SN_SOFFD_MAX_TRANSLATION;
    }
    if (!ok) return false;
    if (!m) return true;
    for (int r = 0; r < 3; ++r) {
        for (int k = 0; k < 3; ++k) m[4 * k + r] = lin[3 * r + k];
        m[12 + r] = (float)t[r];
    }
    m[3] = m[7] = m[11] = 0.0f;
    m[15] = 1.0f;
    return true;
}

sinew_result sinew_soffd_vertex_frames(const sinew_soffd *h, const sinew_points *driver_now, float *frames,
                                       size_t frame_floats)
{
    sn_clear_error();
    sinew_result r = sn_soffd_check_driver(h, driver_now, frames, frame_floats, true);
    if (r != SINEW_OK) return r;
    /* When the bind-time bound keeps every map's linear entries below 2^61
     * (half the domain's 2^62, so rounding cannot matter) for this driver's
     * extent, no map can fail and each is computed once. The translations
     * follow: |t| <= 2^60 + 3 * 2^61 * 2^60 < 2^126. */
    double extent = 0;
    for (size_t v = 0; v < h->vertex_count; ++v) {
        const float *q = sn_point(driver_now, v);
        extent = fmax(extent, fmax(fabs(q[0]), fmax(fabs(q[1]), fabs(q[2]))));
    }
    if (h->ring.stretch_per_extent * extent + h->ring.stretch_base <= SN_SOFFD_MAX_EDGE) {
        for (size_t v = 0; v < h->vertex_count; ++v) vertex_frame(h, driver_now, v, &frames[16 * v]);
        return SINEW_OK;
    }
    /* Otherwise check every map before writing any, so a failure leaves frames untouched. */
    for (size_t v = 0; v < h->vertex_count; ++v)
        if (!vertex_frame(h, driver_now, v, NULL))
            return sn_fail(SINEW_ERROR_OUTSIDE_DOMAIN,
                           "the one-ring map of driver vertex %zu stretches the reference beyond 2^62 (or moves it "
                           "beyond 2^126): its frame would not stay finite", v);
    for (size_t v = 0; v < h->vertex_count; ++v) vertex_frame(h, driver_now, v, &frames[16 * v]);
    return SINEW_OK;
}

/* Caller-supplied maps must lie in the domain that keeps the kernel finite
 * (see soffd_internal.h); O(vertex_count). */
static sinew_result check_vertex_frames(const sinew_soffd *h, const float *frames)
{
    static const float l = (float)SN_SOFFD_MAX_LINEAR, t = (float)SN_SOFFD_MAX_TRANSLATION;
    const float limit[16] = {l, l, l, 0, l, l, l, 0, l, l, l, 0, t, t, t, 0};
    size_t v = sn_soffd_first_matrix_outside(frames, h->vertex_count, limit);
    if (v < h->vertex_count)
        return sn_fail(SINEW_ERROR_OUTSIDE_DOMAIN,
                       "the map of driver vertex %zu has a linear entry beyond 2^62, a translation beyond 2^126 "
                       "or a non-finite entry", v);
    return SINEW_OK;
}

/* The corner maps are blended relative to the first corner's map M_0 (the
 * nearest element's): M = M_0 + D with D = sum w_j (M_j - M_0), then
 * P_def = M_0 P + D P with M_0 P in double, so P's world-sized coordinates
 * never meet a float product. Float subtraction is correctly rounded, so
 * each M_j - M_0 carries an error relative to the difference, not to the
 * maps: identical maps (a rigidly moving driver) give M_0 P exactly. D and
 * D P stay in float, their error relative to D; the stored weights sum to one
 * up to their own float rounding, which also only scales D, so there is no
 * division by their sum. */
#if defined(__GNUC__) || defined(__clang__)
typedef float sn_v4x __attribute__((vector_size(16)));

static inline sn_v4x load4x(const float *p)
{
    sn_v4x v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* P_def = M_0 P (double) + D P (float), D = (d0 d1 d2 d3) column by column. */
static inline void finish_point(sn_v4x a0, sn_v4x a1, sn_v4x a2, sn_v4x a3, sn_v4x d0, sn_v4x d1, sn_v4x d2,
                                sn_v4x d3, const float *p, float *o)
{
    sn_v4x dp = d0 * p[0] + d1 * p[1] + d2 * p[2] + d3;
    double x = p[0], y = p[1], z = p[2];
    for (int l = 0; l < 3; ++l)
        o[l] = (float)((double)a0[l] * x + (double)a1[l] * y + (double)a2[l] * z + (double)a3[l] + dp[l]);
}

/* One point's sum over its merged corners (corners.c): each vertex map once. */
static inline void merged_point(const float *frames, const uint32_t *vertex, const float *weight, size_t n,
                                const float *p, float *o)
{
    const float *f0 = &frames[16 * (size_t)vertex[0]];
    sn_v4x a0 = load4x(f0), a1 = load4x(f0 + 4), a2 = load4x(f0 + 8), a3 = load4x(f0 + 12);
    sn_v4x d0 = {0, 0, 0, 0}, d1 = d0, d2 = d0, d3 = d0;
    for (size_t j = 1; j < n; ++j) { /* the first vertex's difference is zero */
        const float *f = &frames[16 * (size_t)vertex[j]];
        float w = weight[j];
        d0 += w * (load4x(f) - a0);
        d1 += w * (load4x(f + 4) - a1);
        d2 += w * (load4x(f + 8) - a2);
        d3 += w * (load4x(f + 12) - a3);
    }
    finish_point(a0, a1, a2, a3, d0, d1, d2, d3, p, o);
}
#else
static inline void finish_point(const float *f0, const float *d, const float *p, float *o)
{
    for (int l = 0; l < 3; ++l) {
        float dp = d[l] * p[0] + d[4 + l] * p[1] + d[8 + l] * p[2] + d[12 + l];
        o[l] = (float)((double)f0[l] * p[0] + (double)f0[4 + l] * p[1] + (double)f0[8 + l] * p[2] + (double)f0[12 + l] +
                       dp);
    }
}

static inline void merged_point(const float *frames, const uint32_t *vertex, const float *weight, size_t n,
                                const float *p, float *o)
{
    const float *f0 = &frames[16 * (size_t)vertex[0]];
    float d[16] = {0};
    for (size_t j = 1; j < n; ++j) {
        const float *f = &frames[16 * (size_t)vertex[j]];
        for (int l = 0; l < 16; ++l) d[l] += weight[j] * (f[l] - f0[l]);
    }
    finish_point(f0, d, p, o);
}
#endif

sinew_result sinew_soffd_deform_extended(const sinew_soffd *h, const float *vertex_frames, size_t vertex_frame_floats,
                                         const sinew_points *normals, float *out, size_t out_stride,
                                         float *out_normals, size_t out_normal_stride, size_t first, size_t count)
{
    sn_clear_error();
    sinew_result r = sn_soffd_check_range(h, vertex_frames, vertex_frame_floats, true, out, out_stride, first, count);
    if (r == SINEW_OK) r = sn_soffd_check_normals(h, normals, out_normals, out_normal_stride, first, count);
    if (r == SINEW_OK && count > 0) r = check_vertex_frames(h, vertex_frames);
    if (r != SINEW_OK) return r;
    out_stride = sn_stride(out_stride, 3 * sizeof(float));
    const sn_soffd_reg *reg = &h->reg;
    for (size_t i = first; i < first + count; ++i) {
        float *o = (float *)((char *)out + i * out_stride);
        const float *p = &reg->rest[3 * i];
        if (reg->offsets[i] == reg->offsets[i + 1]) {
            memcpy(o, p, 3 * sizeof(float));
            continue;
        }
        size_t cs = reg->corner_offsets[i], ce = reg->corner_offsets[i + 1];
        merged_point(vertex_frames, &reg->corner_vertex[cs], &reg->corner_weight[cs], ce - cs, p, o);
    }
    if (!out_normals) return SINEW_OK;
    for (size_t i = first; i < first + count; ++i) {
        double jac[9];
        sn_soffd_vertex_jacobian(h, vertex_frames, i, jac);
        sn_transform_normal(jac, sn_point(normals, i),
                            (float *)((char *)out_normals + i * sn_stride(out_normal_stride, 3 * sizeof(float))));
    }
    return SINEW_OK;
}
