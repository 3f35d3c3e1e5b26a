/* AVX2 + FMA tile of the single-precision solves (sn_ldlt_solve_single):
 * the chunks of the AVX-512 tiles (ldlt_tile_chunks.h) in ymm registers of
 * eight floats, four targets at a time (twelve accumulators, three sources
 * and a coefficient fill the sixteen registers), so 24 columns take one
 * pass. The solve pads its rows to whole registers of eight, where this
 * tile makes the AVX-512 one's fused operations in the same order (the
 * same bits). Built with -mavx2 -mfma when the compiler and the `simd`
 * option allow; picked only after checking the CPU. */
#include "linalg/ldlt_kernels.h"

#if defined(__AVX2__) && defined(__FMA__) && (defined(__GNUC__) || defined(__clang__))
#  include <immintrin.h>

#  define REAL float
#  define VEC __m256
#  define HALF __m128
#  define ONE __m128
#  define LANES 8
#  define HALF_LANES 4
#  define VEC_LOAD _mm256_loadu_ps
#  define VEC_STORE _mm256_storeu_ps
#  define VEC_SET1 _mm256_set1_ps
#  define VEC_FNMADD _mm256_fnmadd_ps
#  define HALF_LOAD _mm_loadu_ps
#  define HALF_STORE _mm_storeu_ps
#  define HALF_ZERO _mm_setzero_ps
#  define HALF_FNMADD _mm_fnmadd_ps
#  define TO_HALF _mm256_castps256_ps128
#  define ONE_LOAD _mm_load_ss
#  define ONE_STORE _mm_store_ss
#  define ONE_SUB _mm_sub_ss
#  define ONE_MUL _mm_mul_ss
#  include "linalg/ldlt_tile_chunks.h"
#  include "linalg/ldlt_tile_avx2_targets.h"

static void tile_single_avx2(float *const *targets, size_t nt, const float *base, const uint32_t *idx, size_t ns,
                             const float *coef, size_t ct, size_t ca, size_t m)
{
    tile_targets(targets, nt, base, idx, ns, coef, ct, ca, m);
}

sn_ldlt_tile_single_fn sn_ldlt_tile_single_avx2(void)
{
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return tile_single_avx2;
    return NULL;
}

#else

sn_ldlt_tile_single_fn sn_ldlt_tile_single_avx2(void) { return NULL; }

#endif
