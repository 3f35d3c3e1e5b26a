/*
 * Linear finite-element operators: the cotangent Laplacian (stiffness) K and
 * the lumped mass M. K_ij = sum over elements of measure * grad(phi_i) .
 * grad(phi_j), which equals the cotangent formula in 2D and the dihedral
 * cotangent formula in 3D, written once for both dimensions. M gives each
 * vertex an equal share of its elements' measure (barycentric lumping), which
 * is always positive, unlike Voronoi areas on obtuse elements.
 */
#include <math.h>
#include <string.h>

#include "bbw/bbw_internal.h"

int sn_bbw_element_gradients(const sinew_bbw *b, size_t e, double grad[4][3], double *measure)
{
    const uint32_t *v = b->elements + e * b->per;
    const double *p0 = b->positions + 3 * (size_t)v[0];
    memset(grad, 0, 4 * 3 * sizeof(double));
    if (b->dim == 2) {
        const double *p1 = b->positions + 3 * (size_t)v[1], *p2 = b->positions + 3 * (size_t)v[2];
        double a = p1[0] - p0[0], c = p2[0] - p0[0];
        double bb = p1[1] - p0[1], d = p2[1] - p0[1];
        double det = a * d - c * bb;
        if (det == 0.0) return 0;
        /* Rows of the inverse of [[a, c], [bb, d]]. */
        grad[1][0] = d / det;
        grad[1][1] = -c / det;
        grad[2][0] = -bb / det;
        grad[2][1] = a / det;
        *measure = 0.5 * fabs(det);
    } else {
        double j[3][3];
        for (int k = 0; k < 3; ++k) {
            const double *pk = b->positions + 3 * (size_t)v[k + 1];
            for (int a = 0; a < 3; ++a) j[a][k] = pk[a] - p0[a];
        }
        double c00 = j[1][1] * j[2][2] - j[1][2] * j[2][1];
        double c01 = j[1][2] * j[2][0] - j[1][0] * j[2][2];
        double c02 = j[1][0] * j[2][1] - j[1][1] * j[2][0];
        double det = j[0][0] * c00 + j[0][1] * c01 + j[0][2] * c02;
        if (det == 0.0) return 0;
        double inv[3][3] = {
            {c00 / det, (j[0][2] * j[2][1] - j[0][1] * j[2][2]) / det, (j[0][1] * j[1][2] - j[0][2] * j[1][1]) / det},
            {c01 / det, (j[0][0] * j[2][2] - j[0][2] * j[2][0]) / det, (j[0][2] * j[1][0] - j[0][0] * j[1][2]) / det},
            {c02 / det, (j[0][1] * j[2][0] - j[0][0] * j[2][1]) / det, (j[0][0] * j[1][1] - j[0][1] * j[1][0]) / det},
        };
        for (int k = 0; k < 3; ++k)
            for (int a = 0; a < 3; ++a) grad[k + 1][a] = inv[k][a];
        *measure = fabs(det) / 6.0;
    }
    for (int a = 0; a < 3; ++a) grad[0][a] = -(grad[1][a] + grad[2][a] + grad[3][a]);
    return 1;
}

sinew_result sn_bbw_stiffness(const sinew_bbw *b, const float *mask, sn_sparse *out, double *mass)
{
    size_t per2 = (size_t)b->per * b->per, count;
    if (!sn_mul_size(b->element_count, per2, &count)) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "too many elements");
    uint32_t *ri = sn_alloc_array(&b->env, count, sizeof(uint32_t), "stiffness rows");
    uint32_t *ci = sn_alloc_array(&b->env, count, sizeof(uint32_t), "stiffness columns");
    double *vals = sn_alloc_array(&b->env, count, sizeof(double), "stiffness values");
    sinew_result r = SINEW_OK;
    if (!ri || !ci || !vals) {
        r = sn_alloc_failure();
        goto done;
    }
    if (mass) memset(mass, 0, b->vertex_count * sizeof(double));
    size_t k = 0;
    for (size_t e = 0; e < b->element_count; ++e) {
        double grad[4][3], measure = 0.0;
        /* Elements were validated non-degenerate, so this always succeeds;
         * a zero block keeps the pattern regardless. */
        int ok = sn_bbw_element_gradients(b, e, grad, &measure);
        double wgt = ok ? measure * (mask ? (double)mask[e] : 1.0) : 0.0;
        const uint32_t *v = b->elements + e * b->per;
        for (uint32_t i = 0; i < b->per; ++i) {
            if (mass) mass[v[i]] += measure / b->per;
            for (uint32_t j = 0; j < b->per; ++j, ++k) {
                ri[k] = v[i];
                ci[k] = v[j];
                vals[k] = wgt * (grad[i][0] * grad[j][0] + grad[i][1] * grad[j][1] + grad[i][2] * grad[j][2]);
            }
        }
    }
    r = sn_sparse_from_triplets(&b->env, b->vertex_count, count, ri, ci, vals, out);
done:
    sn_free(&b->env, ri);
    sn_free(&b->env, ci);
    sn_free(&b->env, vals);
    return r;
}

sinew_result sn_bbw_ensure_operators(sinew_bbw *b)
{
    if (b->mass) return SINEW_OK;
    double *mass = sn_alloc_array(&b->env, b->vertex_count, sizeof(double), "lumped mass");
    if (!mass) return sn_alloc_failure();
    sinew_result r = sn_bbw_stiffness(b, NULL, &b->stiffness, mass);
    if (r != SINEW_OK) {
        sn_free(&b->env, mass);
        return r;
    }
    b->mass = mass;
    return SINEW_OK;
}
