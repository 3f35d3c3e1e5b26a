/*
 * Internal layout of a bound skin, shared by bind, palette and the deform
 * kernels.
 *
 * Vertices are partitioned by their number of influences k (the paper's
 * partitioning; linear-blend skins by the largest k of their padding block,
 * see SN_SKIN_PAD_VERTICES, or of their deform window where that costs
 * little, see bind.c): group k holds, in increasing vertex order, the
 * vertex numbers, then k joint indices and k weights per vertex, sorted by
 * decreasing weight, zero-weight padding slots (slot 0's joint) last. Each
 * group has a kernel specialised for its k, so the hot loop never branches
 * on the influence count, and a deform range maps to one contiguous slice of
 * every group (found by binary search).
 */
#ifndef SINEW_SKIN_INTERNAL_H
#define SINEW_SKIN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "sinew/skin.h"

#if defined(__GNUC__) || defined(__clang__)
#  define SN_SKIN_INLINE static inline __attribute__((always_inline))
#else
#  define SN_SKIN_INLINE static inline
#endif

/* Palette record sizes, in floats (see sinew_skin_palette_size in skin.h). */
#define SN_SKIN_RECORD_LINEAR 16
#define SN_SKIN_RECORD_DQ 48
#define SN_SKIN_DQ_ROTATION 16
#define SN_SKIN_DQ_DUAL 20
#define SN_SKIN_DQ_STRETCH 24

/* Squared lengths at or below this count as zero (guards normalisation). */
#define SN_SKIN_TINY 1e-24f

/* How weights and joint indices are stored; the kernels are specialised per
 * format so that the load is a constant-folded choice. */
typedef enum sn_skin_format {
    SN_SKIN_F32_J16 = 0,  /* float weights, uint16 joints */
    SN_SKIN_U8_J8 = 1,    /* uint8 weights (sum 255), uint8 joints */
    SN_SKIN_U8_J16 = 2,   /* uint8 weights (sum 255), uint16 joints */
    SN_SKIN_FORMAT_COUNT = 3
} sn_skin_format;

/* Linear-blend skins group vertices by the largest influence count of their
 * block of this many (vertex numbers 8b .. 8b + 7), padding the others with
 * zero-weight slots: the widest kernel's lanes (AVX2), so a real mesh, where
 * counts change from vertex to vertex, still fills every block with
 * consecutive vertices and reads its streams whole. */
#define SN_SKIN_PAD_VERTICES 8u

/* Kernel classes: k = 1, 2, 3, 4 have their own kernels, larger k share one. */
#define SN_SKIN_CLASS_COUNT 5

typedef struct sn_skin_group {
    uint32_t influences;  /* k */
    size_t count;         /* vertices in the group */
    uint32_t *vertex;     /* count vertex numbers, increasing */
    void *joints;         /* count * k joint indices (uint8 or uint16) */
    void *weights;        /* count * k weights (float or uint8); unused when k == 1 */
    float *dq_blend;      /* count blend factors (mixed blend only), else NULL */
} sn_skin_group;

/* Stream bits of a deform call. */
enum { SN_SKIN_P = 1, SN_SKIN_N = 2, SN_SKIN_T = 4 };

/* A deform call's streams, resolved (strides never 0). */
typedef struct sn_skin_io {
    const char *pin, *nin, *tin;
    char *pout, *nout, *tout;
    size_t pin_stride, nin_stride, tin_stride;
    size_t pout_stride, nout_stride, tout_stride;
    unsigned mask;          /* SN_SKIN_P | SN_SKIN_N | SN_SKIN_T subset, nonzero */
    sinew_skin_normals normals;  /* the skin's normal mode */
    sn_skin_format format;  /* the skin's storage format */
    bool prefetch;          /* the call's range is long: prefetch streams ahead of use */
} sn_skin_io;

/* Calls of at least this many vertices prefetch their streams ahead of use:
 * below it the inputs are usually in L2 already (a job of a few thousand
 * vertices, or a mesh skinned every frame). */
#define SN_SKIN_PREFETCH_MIN_VERTICES 65536u

/* A call spanning several influence groups deforms its range window by
 * window, every group's slice of a window before the next window, so the
 * stream lines the groups share (their vertices interleave in a real mesh)
 * come from memory once. Sized so a window's streams, P+N+T in and out, and
 * its bind data stay in a 512 KiB L2. */
#define SN_SKIN_WINDOW_VERTICES 2048u
/* Skins with more influence groups than this deform group by group. */
#define SN_SKIN_WINDOW_MAX_GROUPS 32u

/* Deforms vertices [begin, end) of a group (positions within the group). */
typedef void (*sn_skin_kernel_fn)(const sn_skin_group *g, size_t begin, size_t end, const float *palette,
                                  const sn_skin_io *io);

struct sinew_skin {
    sn_env env;
    size_t vertex_count;
    size_t joint_count;
    size_t max_influences;
    sn_skin_format format;
    sinew_skin_storage storage;
    sinew_skin_blend blend;
    sinew_skin_normals normals;
    sinew_skin_kernel kernel;      /* resolved, never AUTO */
    sinew_skin_kernel kernel_requested; /* as the desc asked (AUTO re-resolves on load) */
    size_t record_floats;          /* palette floats per joint */
    float *inverse_bind;           /* 16 * joint_count, column-major (in the block) */
    sn_skin_group *groups;         /* groups[k - 1] for k = 1..max_influences */
    void *block;                   /* one allocation behind every group array */
    size_t block_bytes;
    bool block_is_callers;         /* the block lies in sinew_skin_load_into's memory: not freed */
    size_t merged_duplicates;
    size_t renormalised_vertices;
    size_t unweighted_vertices;
    sn_skin_kernel_fn kernels[SN_SKIN_CLASS_COUNT]; /* by min(k, 5) - 1 */
    sn_skin_kernel_fn positions[SN_SKIN_CLASS_COUNT]; /* the same for positions alone */
};

/* Bytes of the block holding joint_count inverse bind matrices and, for
 * k = 1..max_k, the arrays of counts[k] vertices of k influences in `format`
 * (blend factors when mixed), each array SN_ALIGN-aligned; SIZE_OVERFLOW
 * when they do not fit a size_t. */
sinew_result sn_skin_block_bytes(size_t joint_count, size_t max_k, const size_t *counts, sn_skin_format format,
                                 bool mixed, size_t *bytes);
/* Allocates a skin (env's allocator) with max_k groups and the block of
 * sn_skin_block_bytes, and points every array into it; sets env,
 * joint_count, max_influences, format and block_bytes, and leaves the rest
 * zero. With memory non-NULL the block is placed there (from its first
 * SN_ALIGN-aligned byte; BUFFER_TOO_SMALL when memory_bytes cannot hold it)
 * and destroy leaves it to the caller. Returns OUT_OF_MEMORY or
 * SIZE_OVERFLOW with *out untouched. Shared by create and load. */
sinew_result sn_skin_allocate(const sn_env *env, size_t joint_count, size_t max_k, const size_t *counts,
                              sn_skin_format format, bool mixed, void *memory, size_t memory_bytes, sinew_skin **out);
/* Resolves kernel_requested (AUTO: the best this CPU runs) into kernel and
 * fills the kernel table for the skin's format and blend. The requested
 * kernel must be available. */
void sn_skin_use_kernels(sinew_skin *skin);

/* Kernel tables, [format][class]. The SSE2 and AVX2 tables exist only in x86
 * builds with the simd option (SINEW_HAVE_X86_KERNELS defined). */
void sn_skin_kernels_scalar(sn_skin_kernel_fn table[SN_SKIN_FORMAT_COUNT][SN_SKIN_CLASS_COUNT]);
#if defined(SINEW_HAVE_X86_KERNELS)
void sn_skin_kernels_sse2(sn_skin_kernel_fn table[SN_SKIN_FORMAT_COUNT][SN_SKIN_CLASS_COUNT]);
void sn_skin_kernels_avx2(sn_skin_kernel_fn table[SN_SKIN_FORMAT_COUNT][SN_SKIN_CLASS_COUNT]);
/* The AVX-512 table (kernel_avx512.c; SINEW_HAVE_AVX512_SKIN says the
 * compiler took the flags). */
void sn_skin_kernels_avx512(sn_skin_kernel_fn table[SN_SKIN_FORMAT_COUNT][SN_SKIN_CLASS_COUNT]);
/* Its kernels for positions alone (kernel_positions_avx512.h); the other
 * sets' main kernels serve positions alone too. */
void sn_skin_positions_avx512(sn_skin_kernel_fn table[SN_SKIN_FORMAT_COUNT][SN_SKIN_CLASS_COUNT]);
#endif
#if defined(SINEW_HAVE_X86_KERNELS)
/* The load's fast check of count vertices of a float skin's four-influence
 * group (load_avx2.c; whole blocks of 8 only, the caller checks the rest):
 * true when every vertex passes load.c's sn_skin_slots_ok. */
bool sn_skin_slots4_f32_ok_avx2(const uint16_t *joints, const float *weights, size_t count, uint32_t joint_count,
                                double sum_tolerance);
/* The same for compressed storage with 8-bit joints. */
bool sn_skin_slots4_u8_ok_avx2(const uint8_t *joints, const uint8_t *weights, size_t count, uint32_t joint_count);
#endif
/* Dual-quaternion and mixed blends: one portable kernel for every k. */
void sn_skin_kernel_dq(const sn_skin_group *g, size_t begin, size_t end, const float *palette,
                       const sn_skin_io *io);
#if defined(SINEW_HAVE_X86_KERNELS)
/* Dual-quaternion blend, eight vertices at a time (AVX2+FMA, dq_avx2.c). */
void sn_skin_kernel_dq_avx2(const sn_skin_group *g, size_t begin, size_t end, const float *palette,
                            const sn_skin_io *io);
#endif
/* The kernel of a skin's group of k influences for a call's streams. */
SN_SKIN_INLINE sn_skin_kernel_fn sn_skin_kernel_of(const sinew_skin *skin, size_t k, unsigned mask)
{
    const size_t c = (k < SN_SKIN_CLASS_COUNT ? k : SN_SKIN_CLASS_COUNT) - 1;
    return mask == SN_SKIN_P ? skin->positions[c] : skin->kernels[c];
}
/* The checks every pose-time call makes of its skin and palette: non-NULL,
 * the palette aligned to 4 bytes and palette_floats its exact size
 * (MISMATCH otherwise). The contents are not read. */
sinew_result sn_skin_check_palette(const sinew_skin *skin, const float *palette, size_t palette_floats);
/* First position in a group whose vertex number is >= v (binary search). */
size_t sn_skin_group_lower_bound(const sn_skin_group *g, size_t v);
/* A vertex's dual-quaternion blend: the normalised blend of its joints'
 * dual quaternions (each flipped into the largest-weight joint's hemisphere)
 * and the linear blend of their stretches (dq.c). */
typedef struct sn_dq_blend {
    float q[4], d[4];  /* normalised blended dual quaternion */
    float s[9];        /* blended stretch, column-major 3x3 */
} sn_dq_blend;
void sn_dq_accumulate(const sn_skin_group *g, size_t i, const float *palette, sn_skin_format format, sn_dq_blend *b);
/* Whether this build and CPU can run a kernel set. */
bool sn_skin_kernel_available(sinew_skin_kernel kernel);
/* A kernel set's name for messages ("AVX2"). */
const char *sn_skin_kernel_name(sinew_skin_kernel kernel);

/* Slow path for a blended direction that vanished: transforms dir by the
 * largest-weight joint's record alone, by sign(det M) cofactor(M) when
 * cofactor is set (normals in the inverse-transpose and largest-weight modes),
 * else by M; normalised, or (0, 0, 0) when that vanishes too. */
void sn_skin_fallback_direction(const float *record, const float *dir, bool cofactor, float out[3]);

/* Whether a mode's normals go through sign(det) cofactor (every mode but the
 * blended matrix): picks the fallback for a vanished normal. */
SN_SKIN_INLINE bool sn_skin_normals_cofactor(sinew_skin_normals normals)
{
    return normals != SINEW_SKIN_NORMALS_BLENDED_MATRIX;
}

/* Replaces the zero fields of a skin desc that can be resolved from the desc
 * by their defaults (skin_defaults.c): what create and its query use. */
void sn_skin_resolve_desc(sinew_skin_desc *d);

/* The caller's joint and weight streams (input.c). sn_skin_check_streams
 * checks their types, pointers, strides and spans before anything is read;
 * the readers then give slot s of vertex v as a joint index, a weight in
 * float (normalised integers divided by 65535 or 255), or the raw integer of
 * a normalised weight (0 for float). sn_skin_check_sum applies the sum test
 * of a vertex (sinew_skin_desc.weight_tolerance) to its float sum or, for
 * normalised weights at the default tolerance, to its raw integer sum over
 * `nonzero` nonzero slots; d is resolved (sn_skin_resolve_desc). */
sinew_result sn_skin_check_streams(const sinew_skin_desc *d);
uint32_t sn_skin_input_joint(const sinew_skin_desc *d, size_t v, size_t s);
float sn_skin_input_weight(const sinew_skin_desc *d, size_t v, size_t s);
uint32_t sn_skin_input_raw_weight(const sinew_skin_desc *d, size_t v, size_t s);
sinew_result sn_skin_check_sum(const sinew_skin_desc *d, size_t v, double sum, uint64_t raw_sum, size_t nonzero);

/* Vertices bound to one joint, padded or not (a scan of the padded ones). */
size_t sn_skin_single_joint_vertices(const sinew_skin *skin);

/* Joint index and weight access for a format; the format is a constant at
 * every call site, so the branch folds away. */
SN_SKIN_INLINE uint32_t sn_skin_joint(const void *joints, sn_skin_format format, size_t i)
{
    return format == SN_SKIN_U8_J8 ? ((const uint8_t *)joints)[i] : ((const uint16_t *)joints)[i];
}
SN_SKIN_INLINE float sn_skin_weight(const void *weights, sn_skin_format format, size_t i)
{
    return format == SN_SKIN_F32_J16 ? ((const float *)weights)[i]
                                     : (float)((const uint8_t *)weights)[i] * (1.0f / 255.0f);
}

#endif /* SINEW_SKIN_INTERNAL_H */
