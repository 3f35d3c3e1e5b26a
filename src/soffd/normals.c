/* Normals of registered points at pose time: mapped by the inverse transpose
 * of the deformation's Jacobian assembled from the frames the point's
 * position is made of (see docs/soffd.md, "Normals"). The weights u_k and
 * barycentrics beta_j are taken as constants: their own gradients are left
 * out, so the Jacobian is the blend of the elements' (vertex maps') linear
 * parts, exact wherever those agree (a rigid or affine motion of the driver). */
#include <math.h>

#include "soffd/soffd_internal.h"

sinew_result sn_soffd_build_reference_inverse(sinew_soffd *h)
{
    /* Double: an element of float-denormal size has an inverse beyond the float range. */
    h->reference_inverse =
        (double *)sn_alloc_array(&h->env, h->element_count, 9 * sizeof(double), "soffd reference frame inverses");
    if (!h->reference_inverse) return sn_alloc_failure();
    for (size_t k = 0; k < h->element_count; ++k) {
        const uint32_t *t = &h->elements[3 * k];
        const float *a = &h->reference[3 * (size_t)t[0]], *b = &h->reference[3 * (size_t)t[1]],
                    *c = &h->reference[3 * (size_t)t[2]], *n = &h->reference_normal[3 * k];
        double e1[3], e2[3];
        for (int i = 0; i < 3; ++i) {
            e1[i] = (double)b[i] - a[i];
            e2[i] = (double)c[i] - a[i];
        }
        /* [e1 e2 n]^-1 has rows (g22 e1 - g12 e2) / det, (g11 e2 - g12 e1) / det
         * and n, n being the unit normal of e1 and e2 (as local coordinates use). */
        double g11 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2];
        double g12 = e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2];
        double g22 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
        double det = g11 * g22 - g12 * g12; /* > 0: degenerate elements are never kept */
        double *g = &h->reference_inverse[9 * k]; /* row-major */
        for (int i = 0; i < 3; ++i) {
            g[i] = (g22 * e1[i] - g12 * e2[i]) / det;
            g[3 + i] = (g11 * e2[i] - g12 * e1[i]) / det;
            g[6 + i] = n[i];
        }
    }
    return SINEW_OK;
}

sinew_result sn_soffd_check_normals(const sinew_soffd *h, const sinew_points *normals, const float *out_normals,
                                    size_t out_normal_stride, size_t first, size_t count)
{
    if (!normals) {
        if (out_normals)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "normal output given without input normals");
        return SINEW_OK;
    }
    if (normals->count != h->reg.point_count)
        return sn_fail(SINEW_ERROR_MISMATCH, "%zu normals for %zu registered points", normals->count,
                       h->reg.point_count);
    sinew_result r = sn_check_float_array(normals->data, normals->stride, 3, normals->count, "normal input");
    /* A NULL output with normals fails here ("normal output pointer is NULL"). */
    if (r == SINEW_OK) r = sn_check_float_array(out_normals, out_normal_stride, 3, first + count, "normal output");
    if (r != SINEW_OK) return r;
    for (size_t i = first; i < first + count; ++i) {
        const float *n = sn_point(normals, i);
        for (int c = 0; c < 3; ++c)
            if (!isfinite(n[c]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "normal %zu has a non-finite coordinate %c (%g)", i, "xyz"[c],
                               (double)n[c]);
    }
    return SINEW_OK;
}

void sn_soffd_element_jacobian(const sinew_soffd *h, const float *frames, size_t point, double jac[9])
{
    const sn_soffd_reg *reg = &h->reg;
    for (int e = 0; e < 9; ++e) jac[e] = 0.0;
    if (reg->offsets[point] == reg->offsets[point + 1]) {
        jac[0] = jac[4] = jac[8] = 1.0; /* kept at rest */
        return;
    }
    for (size_t s = reg->offsets[point]; s < reg->offsets[point + 1]; ++s) {
        const size_t k = reg->element[s];
        const float *q = &frames[16 * k];
        const double *g = &h->reference_inverse[9 * k];
        const double u = reg->coeff[4 * s + 3];
        /* J += u D G: column c of D G is sum_a D's column a times G[a][c]. */
        for (int c = 0; c < 3; ++c)
            for (int r = 0; r < 3; ++r)
                jac[3 * c + r] += u * ((double)q[r] * g[c] + (double)q[4 + r] * g[3 + c] + (double)q[8 + r] * g[6 + c]);
    }
}

void sn_soffd_vertex_jacobian(const sinew_soffd *h, const float *vertex_frames, size_t point, double jac[9])
{
    const sn_soffd_reg *reg = &h->reg;
    for (int e = 0; e < 9; ++e) jac[e] = 0.0;
    if (reg->offsets[point] == reg->offsets[point + 1]) {
        jac[0] = jac[4] = jac[8] = 1.0;
        return;
    }
    /* sum_k u_k sum_j beta_j A_j, merged by vertex: sum over corners of (sum u beta) A_j. */
    for (size_t c = reg->corner_offsets[point]; c < reg->corner_offsets[point + 1]; ++c) {
        const float *m = &vertex_frames[16 * (size_t)reg->corner_vertex[c]];
        const double w = reg->corner_weight[c];
        for (int col = 0; col < 3; ++col)
            for (int r = 0; r < 3; ++r) jac[3 * col + r] += w * m[4 * col + r];
    }
}
