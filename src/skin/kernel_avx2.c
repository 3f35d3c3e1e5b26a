/* AVX2+FMA linear-blend kernels, built with -mavx2 -mfma into their own
 * static library and only called after CPU detection: the 8-vertex
 * structure-of-arrays kernel (kernel_wide_body.h) when normals or tangents
 * are wanted, and the one-vertex instance of kernel_body.h
 * (kernel_vertex_avx2.h) for positions alone and for largest-weight normals. */
#include "skin/kernel_vertex_avx2.h"

#define SN_ISA(name) name##_avx2

/* Eight vertices at a time when normals or tangents are wanted. */
#include "skin/kernel_wide_avx2.h"
#define SN_SKIN_WIDE sn_wide_w

#include "skin/kernel_body.h"
