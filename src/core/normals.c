/* Normals under a deformation with Jacobian J: the inverse transpose, as the
 * cofactor matrix times the sign of det J, shared by the techniques that map
 * normals through a Jacobian. */
#include <math.h>
#include <string.h>

#include "core/internal.h"

void sn_transform_normal(const double jac[9], const float n[3], float out[3])
{
    /* J^-T n = cof(J) n / det J with cof(J) columns c1 x c2, c2 x c0, c0 x c1
     * for J's columns c0, c1, c2. Only the direction matters: the sign of
     * det keeps the inverse-transpose orientation where J mirrors, and the
     * cofactor stays defined (and continuous) where J is singular. */
    const double *c0 = jac, *c1 = jac + 3, *c2 = jac + 6;
    double x12[3] = {c1[1] * c2[2] - c1[2] * c2[1], c1[2] * c2[0] - c1[0] * c2[2], c1[0] * c2[1] - c1[1] * c2[0]};
    double x20[3] = {c2[1] * c0[2] - c2[2] * c0[1], c2[2] * c0[0] - c2[0] * c0[2], c2[0] * c0[1] - c2[1] * c0[0]};
    double x01[3] = {c0[1] * c1[2] - c0[2] * c1[1], c0[2] * c1[0] - c0[0] * c1[2], c0[0] * c1[1] - c0[1] * c1[0]};
    double det = c0[0] * x12[0] + c0[1] * x12[1] + c0[2] * x12[2];
    double s = det < 0.0 ? -1.0 : 1.0;
    double m[3], len = 0.0;
    for (int c = 0; c < 3; ++c) {
        m[c] = s * (n[0] * x12[c] + n[1] * x20[c] + n[2] * x01[c]);
        len += m[c] * m[c];
    }
    len = sqrt(len);
    if (!(len > 1e-30) || !isfinite(len)) {
        memcpy(out, n, 3 * sizeof(float));
        return;
    }
    for (int c = 0; c < 3; ++c) out[c] = (float)(m[c] / len);
}
