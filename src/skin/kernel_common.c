/* Pieces every kernel set shares: CPU detection and the slow path for
 * blended directions that vanish. */
#include <math.h>

#include "skin/skin_internal.h"

bool sn_skin_kernel_available(sinew_skin_kernel kernel)
{
    switch (kernel) {
    case SINEW_SKIN_KERNEL_AUTO:
    case SINEW_SKIN_KERNEL_SCALAR: return true;
#if defined(SINEW_HAVE_X86_KERNELS)
    case SINEW_SKIN_KERNEL_SSE2: return __builtin_cpu_supports("sse2") != 0;
    case SINEW_SKIN_KERNEL_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case SINEW_SKIN_KERNEL_AVX512:
#  if defined(SINEW_HAVE_AVX512_SKIN)
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#  else
        return false; /* the compiler lacked the flags */
#  endif
#endif
    default: return false;
    }
}

const char *sn_skin_kernel_name(sinew_skin_kernel kernel)
{
    switch (kernel) {
    case SINEW_SKIN_KERNEL_AUTO: return "AUTO";
    case SINEW_SKIN_KERNEL_SCALAR: return "SCALAR";
    case SINEW_SKIN_KERNEL_SSE2: return "SSE2";
    case SINEW_SKIN_KERNEL_AVX2: return "AVX2";
    case SINEW_SKIN_KERNEL_AVX512: return "AVX512";
    default: return "unknown";
    }
}

void sn_skin_fallback_direction(const float *record, const float *dir, bool cofactor, float out[3])
{
    const float *a0 = record, *a1 = record + 4, *a2 = record + 8;
    double r[3];
    if (cofactor) {
        /* sign(det) * cofactor(A) * n, columns of the cofactor being a1 x a2, a2 x a0, a0 x a1. */
        double x12[3] = {(double)a1[1] * a2[2] - (double)a1[2] * a2[1], (double)a1[2] * a2[0] - (double)a1[0] * a2[2],
                         (double)a1[0] * a2[1] - (double)a1[1] * a2[0]};
        double x20[3] = {(double)a2[1] * a0[2] - (double)a2[2] * a0[1], (double)a2[2] * a0[0] - (double)a2[0] * a0[2],
                         (double)a2[0] * a0[1] - (double)a2[1] * a0[0]};
        double x01[3] = {(double)a0[1] * a1[2] - (double)a0[2] * a1[1], (double)a0[2] * a1[0] - (double)a0[0] * a1[2],
                         (double)a0[0] * a1[1] - (double)a0[1] * a1[0]};
        double det = a0[0] * x12[0] + a0[1] * x12[1] + a0[2] * x12[2];
        double sign = det < 0.0 ? -1.0 : 1.0;
        for (int i = 0; i < 3; ++i) r[i] = sign * (dir[0] * x12[i] + dir[1] * x20[i] + dir[2] * x01[i]);
    } else {
        for (int i = 0; i < 3; ++i) r[i] = (double)a0[i] * dir[0] + (double)a1[i] * dir[1] + (double)a2[i] * dir[2];
    }
    double len2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if (!(len2 > (double)SN_SKIN_TINY)) {
        out[0] = out[1] = out[2] = 0.0f;
        return;
    }
    double s = 1.0 / sqrt(len2);
    for (int i = 0; i < 3; ++i) out[i] = (float)(r[i] * s);
}
