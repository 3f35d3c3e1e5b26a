/* AVX-512 tile of the single-precision solves (sn_ldlt_solve_single): the
 * double tile's scheme (ldlt_tile_avx512.h) over floats, eight targets and
 * up to 48 right-hand sides in registers, so 40 handles take one pass over
 * the coefficients. Built with -mavx512f -mavx512vl when the compiler
 * allows; picked only after checking the CPU. */
#include "linalg/ldlt_kernels.h"

#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__FMA__) && (defined(__GNUC__) || defined(__clang__))
#  include <immintrin.h>

#  define REAL float
#  define VEC __m512
#  define HALF __m256
#  define ONE __m128
#  define LANES 16
#  define HALF_LANES 8
#  define VEC_LOAD _mm512_loadu_ps
#  define VEC_STORE _mm512_storeu_ps
#  define VEC_SET1 _mm512_set1_ps
#  define VEC_FNMADD _mm512_fnmadd_ps
#  define HALF_LOAD _mm256_loadu_ps
#  define HALF_STORE _mm256_storeu_ps
#  define HALF_ZERO _mm256_setzero_ps
#  define HALF_FNMADD _mm256_fnmadd_ps
#  define TO_HALF _mm512_castps512_ps256
#  define ONE_LOAD _mm_load_ss
#  define ONE_STORE _mm_store_ss
#  define ONE_SUB _mm_sub_ss
#  define ONE_MUL _mm_mul_ss
#  define TILE_NAME tile_single_avx512
#  define TILE_FN sn_ldlt_tile_single_fn
#  define TILE_LOOKUP sn_ldlt_tile_single_avx512
#  include "linalg/ldlt_tile_avx512.h"

#else

sn_ldlt_tile_single_fn sn_ldlt_tile_single_avx512(void) { return NULL; }

#endif
