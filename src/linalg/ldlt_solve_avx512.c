/* AVX-512 tile kernel of the supernodal LDL^T solves in double precision:
 * the AVX2 kernel's scheme (ldlt_solve_avx2.c) with eight targets and up to
 * 24 right-hand sides in registers (ldlt_tile_avx512.h, ldlt_tile_chunks.h), so 20 handles take
 * one pass over the factor's coefficients instead of three. Built with
 * -mavx512f -mavx512vl when the compiler allows; sn_ldlt_solve calls it only
 * after checking the CPU. */
#include "linalg/ldlt_kernels.h"

#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__FMA__) && (defined(__GNUC__) || defined(__clang__))
#  include <immintrin.h>

#  define REAL double
#  define VEC __m512d
#  define HALF __m256d
#  define ONE __m128d
#  define LANES 8
#  define HALF_LANES 4
#  define VEC_LOAD _mm512_loadu_pd
#  define VEC_STORE _mm512_storeu_pd
#  define VEC_SET1 _mm512_set1_pd
#  define VEC_FNMADD _mm512_fnmadd_pd
#  define HALF_LOAD _mm256_loadu_pd
#  define HALF_STORE _mm256_storeu_pd
#  define HALF_ZERO _mm256_setzero_pd
#  define HALF_FNMADD _mm256_fnmadd_pd
#  define TO_HALF _mm512_castpd512_pd256
#  define ONE_LOAD _mm_load_sd
#  define ONE_STORE _mm_store_sd
#  define ONE_SUB _mm_sub_sd
#  define ONE_MUL _mm_mul_sd
#  define TILE_NAME tile_avx512
#  define TILE_FN sn_ldlt_tile_fn
#  define TILE_LOOKUP sn_ldlt_tile_avx512
#  include "linalg/ldlt_tile_avx512.h"

#else

sn_ldlt_tile_fn sn_ldlt_tile_avx512(void) { return NULL; }

#endif
