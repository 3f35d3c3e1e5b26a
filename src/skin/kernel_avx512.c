/* AVX-512 linear-blend kernels, built with -mavx512f -mavx512vl -mavx2 -mfma
 * (when the compiler takes them) into their own static library and only
 * called after CPU detection: the 16-vertex structure-of-arrays kernel
 * (kernel_wide_avx512.h) when normals or tangents are wanted; AVX2's
 * one-vertex instance of kernel_body.h for largest-weight normals, and for
 * positions alone with four consecutive vertices per step where it can
 * (kernel_positions_avx512.h).
 * Dual quaternions run dq_avx2.c's kernel (see layout.c). */
#include "skin/skin_internal.h"

#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX2__) && defined(__FMA__)

#  include "skin/kernel_vertex_avx2.h"
/* Positions alone: four consecutive vertices per step. */
#  include "skin/kernel_positions_avx512.h"

#  define SN_ISA(name) name##_avx512

/* Sixteen vertices at a time when normals or tangents are wanted. */
#  include "skin/kernel_wide_avx512.h"
#  define SN_SKIN_WIDE sn_wide_w

#  include "skin/kernel_body.h"

#else

/* Built without the flags: the kernel set is never available
 * (kernel_common.c), so this is never called. */
void sn_skin_kernels_avx512(sn_skin_kernel_fn table[SN_SKIN_FORMAT_COUNT][SN_SKIN_CLASS_COUNT])
{
    sn_skin_kernels_avx2(table);
}
void sn_skin_positions_avx512(sn_skin_kernel_fn table[SN_SKIN_FORMAT_COUNT][SN_SKIN_CLASS_COUNT])
{
    sn_skin_kernels_avx2(table);
}

#endif
