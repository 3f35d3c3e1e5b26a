/* One driver element's geometry, shared by bind, registration and the pose
 * calls: the zero-area test, the float frame Q_k (the same function makes the
 * rest frames at bind and the current ones at pose time, so both agree to the
 * bit where the driver has not moved), and a point's local coordinates. */
#include <math.h>

#include "soffd/soffd_internal.h"

/* A triangle is degenerate when |AB x AC| < DEGENERATE_RATIO * longest edge^2:
 * slivers thinner than that have a normal that float rounding decides. */
#define DEGENERATE_RATIO 1e-6

bool sn_soffd_degenerate(const float *a, const float *b, const float *c, double normal[3])
{
    double ab[3], ac[3], bc[3];
    for (int k = 0; k < 3; ++k) {
        ab[k] = (double)b[k] - a[k];
        ac[k] = (double)c[k] - a[k];
        bc[k] = (double)c[k] - b[k];
    }
    double n[3] = {ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]};
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    double e = fmax(fmax(ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2], ac[0] * ac[0] + ac[1] * ac[1] + ac[2] * ac[2]),
                    bc[0] * bc[0] + bc[1] * bc[1] + bc[2] * bc[2]);
    if (!(len >= DEGENERATE_RATIO * e) || !(len > 0)) return true;
    if (normal)
        for (int k = 0; k < 3; ++k) normal[k] = n[k] / len;
    return false;
}

void sn_soffd_element_frame(const float *a, const float *b, const float *c, const float *fallback_normal, float *q)
{
    float e1[3], e2[3];
    for (int i = 0; i < 3; ++i) {
        e1[i] = b[i] - a[i];
        e2[i] = c[i] - a[i];
    }
    double n[3] = {(double)e1[1] * e2[2] - (double)e1[2] * e2[1], (double)e1[2] * e2[0] - (double)e1[0] * e2[2],
                   (double)e1[0] * e2[1] - (double)e1[1] * e2[0]};
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int i = 0; i < 3; ++i) {
        q[i] = e1[i];
        q[4 + i] = e2[i];
        q[8 + i] = len > 0 ? (float)(n[i] / len) : fallback_normal[i];
        q[12 + i] = a[i];
    }
    q[3] = q[7] = q[11] = 0.0f;
    q[15] = 1.0f;
}

void sn_soffd_local_coords(const sinew_soffd *h, uint32_t k, const float p[3], double xyz[3])
{
    const float *a = &h->reference[3 * (size_t)h->elements[3 * k]];
    const float *b = &h->reference[3 * (size_t)h->elements[3 * k + 1]];
    const float *c = &h->reference[3 * (size_t)h->elements[3 * k + 2]];
    const float *n = &h->reference_normal[3 * (size_t)k];
    double e1[3], e2[3], q[3];
    for (int i = 0; i < 3; ++i) {
        e1[i] = (double)b[i] - a[i];
        e2[i] = (double)c[i] - a[i];
        q[i] = (double)p[i] - a[i];
    }
    double g11 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2];
    double g12 = e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2];
    double g22 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
    double r1 = e1[0] * q[0] + e1[1] * q[1] + e1[2] * q[2];
    double r2 = e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2];
    double det = g11 * g22 - g12 * g12; /* > 0: degenerate elements never get here */
    xyz[0] = (g22 * r1 - g12 * r2) / det;
    xyz[1] = (g11 * r2 - g12 * r1) / det;
    xyz[2] = q[0] * n[0] + q[1] * n[1] + q[2] * n[2];
}
