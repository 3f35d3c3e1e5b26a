/*
 * sinew: smooth (linear blend) and dual-quaternion skinning.
 *
 * Two phases. Bind time: sinew_skin_create() validates per-vertex joint
 * indices and weights, merges duplicates, renormalises (by option), optionally
 * quantises them, and sorts vertices by influence count so that every count
 * has its own kernel. Pose time: sinew_skin_palette() turns joint world
 * matrices into skinning matrices M_j = W_j * B_j^-1 once per pose, and
 * sinew_skin_deform() blends positions, normals and tangents over any vertex
 * range, from any number of threads, without allocating.
 *
 * Conventions: matrices are column-major 4x4 floats (element (row r, column c)
 * at m[4 * c + r]), affine (last row 0 0 0 1). Positions are in the skin's
 * local (bind) space on input and in world space on output.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_SKIN_H
#define SINEW_SKIN_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the per-joint transforms are blended. */
typedef enum sinew_skin_blend {
    /* Linear blend skinning: v' = sum_i w_i M_i v. */
    SINEW_SKIN_BLEND_LINEAR = 0,
    /* Dual quaternion skinning (Kavan et al. 2008). Each M_j is split into a
     * rigid part and a scale/shear part, M_j = [R_j S_j | t_j] with R_j a
     * proper rotation (the orthogonal polar factor, negated when it mirrors,
     * so any mirroring stays in S_j). The vertex is first stretched by the
     * linear blend of the S_j, then moved by the normalised blend of the unit
     * dual quaternions (R_j, t_j), with each quaternion's sign flipped into the
     * hemisphere of the largest-weight joint (antipodality). Rigid joints
     * (S_j = s I) cost nothing extra. */
    SINEW_SKIN_BLEND_DUAL_QUATERNION = 1,
    /* Per vertex (1 - a) * linear + a * dual quaternion, a from
     * sinew_skin_desc.dq_blend (like Maya's weight-blended mode). Normals and
     * tangents are blended the same way and renormalised. */
    SINEW_SKIN_BLEND_MIXED = 2
} sinew_skin_blend;

/* How bind data is stored. */
typedef enum sinew_skin_storage {
    /* 32-bit float weights, 16-bit joint indices. */
    SINEW_SKIN_STORAGE_FLOAT = 0,
    /* 8-bit weights that sum to exactly 255 per vertex (largest-remainder
     * rounding), 8-bit joint indices when joint_count <= 256, else 16-bit.
     * Weights are off by at most 1/255 each; a weight that rounds to 0 drops
     * its joint. */
    SINEW_SKIN_STORAGE_COMPRESSED = 1
} sinew_skin_storage;

/* How normals are transformed. Every mode applies one formula whatever the
 * joints hold (no switch on rigidity), so normals are continuous in the pose:
 * animating a joint's scale from 1 to 1.01 moves them by O(0.01), never pops.
 * Below, A is the vertex's blended linear part (linear blend: sum_i w_i M_i;
 * dual quaternions: R(q) S, the blended rotation times the blended stretch),
 * M_k the largest-weight joint's, and cof(X) = det(X) X^-T the cofactor matrix
 * (defined, and continuous, even where X is singular). Every mode
 * renormalises and guards zero length: a normal (or tangent) that vanishes
 * falls back to the largest-weight joint's transform of it, and to (0, 0, 0)
 * when that vanishes too. Tangents are always transformed by A (they lie in
 * the surface), with w negated where det A < 0. */
typedef enum sinew_skin_normals {
    /* n' = normalise(sign(det A) cof(A) n): the inverse transpose of the
     * blended matrix, the convention glTF viewers use, exact under any scale
     * or shear. Continuous except where det A changes sign (a real mirror).
     * Equals normalise(A n) when A is a rotation times a positive scale. */
    SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE = 0,
    /* n' = normalise(sign(det M_k) cof(M_k) n): the largest-weight joint's
     * inverse transpose alone (a common cheap approximation); ignores the other
     * joints, so normals follow one bone across a blend. */
    SINEW_SKIN_NORMALS_LARGEST_WEIGHT = 1,
    /* n' = normalise(A n): the position's matrix, the cheapest (what many
     * engines do); equals the blend of the joints' inverse transposes,
     * sum_i w_i M_i^-T n, when the joints are rotations.
     * Wrong under non-uniform scale or shear: normals tilt away from the
     * surface. */
    SINEW_SKIN_NORMALS_BLENDED_MATRIX = 2
} sinew_skin_normals;

/* What to do with a vertex whose weights are all zero. */
typedef enum sinew_skin_unweighted {
    SINEW_SKIN_UNWEIGHTED_REJECT = 0,   /* SINEW_ERROR_INVALID_WEIGHTS naming the vertex */
    SINEW_SKIN_UNWEIGHTED_BIND = 1      /* weight 1 on sinew_skin_desc.unweighted_joint */
} sinew_skin_unweighted;

/* Which deform kernels a skin uses. AUTO picks the best the CPU supports at run
 * time (AVX-512, then AVX2+FMA, then SSE2, then portable C); the others force
 * one, so tests and benchmarks can compare paths. All paths agree within 1e-5
 * relative. The dual-quaternion blend has an AVX2 kernel (also used by the
 * AVX-512 set) and otherwise runs portable C; the mixed blend always runs
 * portable C. */
typedef enum sinew_skin_kernel {
    SINEW_SKIN_KERNEL_AUTO = 0,
    SINEW_SKIN_KERNEL_SCALAR = 1,
    SINEW_SKIN_KERNEL_SSE2 = 2,   /* x86 builds with the simd option only */
    SINEW_SKIN_KERNEL_AVX2 = 3,   /* ... and a CPU with AVX2 and FMA */
    SINEW_SKIN_KERNEL_AVX512 = 4  /* ... built by a compiler that takes AVX-512 flags, and a CPU with
                                   * AVX-512F and VL besides AVX2 and FMA */
} sinew_skin_kernel;

/* Type of skin weights. Normalised integers map to [0, 1] as glTF's
 * accessors do: value / 65535 for UNORM16, value / 255 for UNORM8. */
typedef enum sinew_skin_weight_type {
    SINEW_SKIN_WEIGHT_F32 = 0,      /* float (the default) */
    SINEW_SKIN_WEIGHT_UNORM16 = 1,  /* uint16_t, value / 65535 */
    SINEW_SKIN_WEIGHT_UNORM8 = 2    /* uint8_t, value / 255 */
} sinew_skin_weight_type;

/* Bind data. SINEW_INIT it, then fill the counts and arrays; every other zero
 * field means the default named in its comment. */
typedef struct sinew_skin_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    size_t vertex_count;      /* > 0, at most 2^32 - 2 */
    size_t joint_count;       /* > 0, at most 65536 */
    size_t influence_count;   /* slots per vertex, > 0 (any number, not only 4) */
    /* Vertex-major, influence_count slots per vertex: slot s of vertex v is at
     * (const char *)joints + v * joint_stride + s * (joint size), and likewise
     * for weights. Weights must be finite and >= 0; zero-weight slots are
     * padding (their joint index is ignored); a joint listed twice in one
     * vertex has its weights added. The types and strides take glTF's
     * JOINTS_n / WEIGHTS_n accessors as they are (several sets of 4 slots:
     * influence_count 4 per set, or concatenate the sets). Each pointer must
     * be aligned to its element size (2 bytes for U16, 4 for U32 and F32);
     * each stride is 0 (packed: influence_count elements) or a multiple of
     * the element size at least influence_count elements. */
    const void *joints;
    sinew_index_type joint_type;       /* default: SINEW_INDEX_U32 */
    size_t joint_stride;               /* bytes from one vertex's joints to the next; 0 = packed */
    const void *weights;
    sinew_skin_weight_type weight_type;     /* default: SINEW_SKIN_WEIGHT_F32 */
    size_t weight_stride;              /* bytes from one vertex's weights to the next; 0 = packed */
    /* joint_count column-major affine 4x4 inverse bind matrices B_j^-1 (skin
     * local space -> joint local space), 16 floats each. NULL = identity. */
    const float *inverse_bind;
    /* Nonzero: weights of each vertex are scaled to sum to 1. Zero (default):
     * a vertex whose sum differs from 1 by more than weight_tolerance is
     * rejected; sums within the tolerance are scaled to exactly 1. */
    int renormalise;
    /* Absolute, on the sum. 0 = 1e-3 for float weights; for normalised
     * weights 0 = what rounding can give: glTF asks for raw sums of exactly
     * 255 (65535), but exporters round each weight to the nearest step, so
     * a raw sum within n/2 steps of it is accepted (n = the vertex's nonzero
     * slots) and one beyond is rejected. */
    float weight_tolerance;
    sinew_skin_unweighted unweighted;  /* default: reject */
    uint32_t unweighted_joint;         /* joint for SINEW_SKIN_UNWEIGHTED_BIND */
    sinew_skin_storage storage;        /* default: float */
    sinew_skin_blend blend;            /* default: linear */
    /* SINEW_SKIN_BLEND_MIXED only: vertex_count factors in [0, 1], 0 = linear,
     * 1 = dual quaternion. Ignored (may be NULL) for the other blends. */
    const float *dq_blend;
    sinew_skin_normals normals;        /* default: inverse transpose */
    sinew_skin_kernel kernel;          /* default: auto */
} sinew_skin_desc;

/* The defaults sinew_skin_create uses (docs/api.md, Defaults): *resolved =
 * desc (NULL = all zero) with every zero field that has a default replaced by
 * it: weight_tolerance for float weights (1e-3). For normalised weights it
 * stays 0: its default is a rule on each vertex's raw sum, not one number.
 * The enums' zeros (joint_type, weight_type, unweighted, storage, blend,
 * normals, kernel) are their defaults themselves. Creating with *resolved
 * does the same as with desc. Other fields are copied unchecked. resolved
 * must be SINEW_INIT'ed and is written up to its struct_size.
 * INVALID_ARGUMENT (NULL resolved), UNSUPPORTED (unknown nonzero desc bytes).
 * Thread-safe. */
SINEW_API sinew_result sinew_skin_desc_defaults(const sinew_skin_desc *desc, sinew_skin_desc *resolved);

typedef struct sinew_skin sinew_skin;

/* Creates a skin from bind data. Returns SINEW_OK and *out, or:
 * INVALID_ARGUMENT (NULL desc/out/arrays, zero counts, bad enum, dq_blend
 * missing for MIXED, non-affine inverse bind matrix, a joints or weights
 * pointer not aligned to its element size, a bad stride), NON_FINITE (a weight,
 * inverse bind element or blend factor), INVALID_WEIGHTS (negative weight,
 * all-zero vertex without the bind option, sum off by more than the tolerance
 * without renormalise, blend factor outside [0, 1]), INDEX_OUT_OF_RANGE (joint
 * index >= joint_count on a nonzero weight, unweighted_joint >= joint_count),
 * UNSUPPORTED (joint_count > 65536, vertex_count > 2^32 - 2, a kernel this build
 * or CPU lacks), OUT_OF_MEMORY / SIZE_OVERFLOW (also: arrays whose span
 * passes the address space, found before reading), CANCELLED (progress callback).
 * The message names the vertex and slot. *out is untouched on failure.
 * ctx: NULL = defaults; the skin keeps a copy of its allocator.
 * desc: read during the call only. Thread-safe (no shared state). */
SINEW_API sinew_result sinew_skin_create(sinew_context *ctx, const sinew_skin_desc *desc, sinew_skin **out);

/* Destroys a skin; NULL is fine. Not thread-safe against calls using it. */
SINEW_API void sinew_skin_destroy(sinew_skin *skin);

/* Facts about a bound skin. */
typedef struct sinew_skin_info {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    size_t vertex_count;
    size_t joint_count;
    size_t max_nonzero_influences; /* most nonzero influences of any vertex after merging */
    size_t single_joint_vertices; /* vertices bound to one joint */
    size_t merged_duplicates;     /* slots merged into an earlier slot with the same joint */
    size_t renormalised_vertices; /* vertices whose weight sum was not 1 (within float rounding) */
    size_t unweighted_vertices;   /* all-zero vertices bound to unweighted_joint */
    size_t palette_floats;        /* size of the palette buffer, in floats */
    size_t palette_joint_floats;  /* floats per joint record in the palette (16 or 48) */
    size_t memory_bytes;          /* every byte the skin holds (handle, groups, bind data: in the caller's
                                     memory after sinew_skin_load_into) */
    sinew_skin_storage storage;
    sinew_skin_blend blend;
    sinew_skin_normals normals;
    sinew_skin_kernel kernel;     /* the kernel set actually in use (never AUTO) */
} sinew_skin_info;

/* Fills *info. Returns INVALID_ARGUMENT when skin or info is NULL.
 * Thread-safe (reads only). On success it leaves sinew_last_error() as it was, so the message of an
 * earlier failure can still be read after the info. */
SINEW_API sinew_result sinew_skin_get_info(const sinew_skin *skin, sinew_skin_info *info);

/* Number of floats the palette buffer needs (joint_count * palette_joint_floats);
 * 0 for a NULL skin. Thread-safe.
 * Layout, per joint j, a record of palette_joint_floats floats at
 * [j * palette_joint_floats]:
 *   [0..15]  the 3x4 skinning matrix M_j = W_j * B_j^-1 as four columns of four
 *            floats (x, y, z, spare): columns 0..2 the linear part, column 3 the
 *            translation. Spare of column 0 is the rigid flag: 0 when M_j's
 *            linear part is orthonormal up to a positive uniform scale, 1
 *            otherwise (for the caller's information: the deform never
 *            branches on it). Other spares are 0.
 *   dual-quaternion and mixed blends only (48 floats per joint):
 *   [16..19] rotation quaternion (x, y, z, w) of the rigid part, w >= 0
 *   [20..23] dual part (x, y, z, w) = 0.5 * (t, 0) * rotation
 *   [24..35] scale/shear S_j as three columns of four floats (x, y, z, 0)
 *   [36..47] 0
 * A 64-byte aligned buffer gives the fastest kernels. */
SINEW_API size_t sinew_skin_palette_size(const sinew_skin *skin);

/* Computes the palette for one pose. Returns INVALID_ARGUMENT (NULL argument,
 * a misaligned buffer, a world matrix whose last row is not 0 0 0 1), MISMATCH
 * (joint_world_count is not the skin's joint count, or palette_floats is not
 * sinew_skin_palette_size(skin)) or NON_FINITE, naming the joint; the palette
 * is untouched on failure.
 * joint_world: joint_world_count column-major affine 4x4 world matrices W_j,
 * 16 floats each, in the same space the deformed vertices should land in.
 * palette: palette_floats floats, written in full.
 * Thread-safe; never allocates. */
SINEW_API sinew_result sinew_skin_palette(const sinew_skin *skin, const float *joint_world, size_t joint_world_count,
                                          float *palette, size_t palette_floats);

/* Rest-pose vertex streams, indexed by vertex number over the whole mesh:
 * element v is at (const char *)pointer + v * stride. NULL pointer = stream
 * not given. Strides are bytes, 0 = packed, else a multiple of 4 at least the
 * packed size. Normals need not be unit length; tangents are 4 floats, xyz
 * plus handedness w (+1 or -1, as in glTF). */
typedef struct sinew_skin_input {
    const float *positions;  size_t position_stride;  /* 3 floats */
    const float *normals;    size_t normal_stride;    /* 3 floats */
    const float *tangents;   size_t tangent_stride;   /* 4 floats */
} sinew_skin_input;

/* Deformed vertex streams, indexed like sinew_skin_input (by vertex number
 * over the whole mesh, so ranges deformed by different threads never touch the
 * same bytes). NULL = not wanted; each wanted stream needs its input stream.
 * Output normals and tangents are unit length; tangent w is the input w,
 * negated where the blended matrix mirrors (det < 0) so that the bitangent
 * w * cross(n, t) follows the mesh. */
typedef struct sinew_skin_output {
    float *positions;  size_t position_stride;
    float *normals;    size_t normal_stride;
    float *tangents;   size_t tangent_stride;
} sinew_skin_output;

/* Deforms vertices [first, first + count). Returns INVALID_ARGUMENT (NULL
 * skin/palette/in/out, no output stream, an output stream without its input,
 * a bad stride or misaligned pointer), MISMATCH (palette_floats is not
 * sinew_skin_palette_size(skin): a palette made for a skin with another
 * joint count or blend), INDEX_OUT_OF_RANGE (range past vertex_count) or
 * SIZE_OVERFLOW (vertex_count * stride overflows); count 0 is a successful
 * no-op. Outputs outside the range are untouched. Non-finite inputs give
 * non-finite outputs, never a crash.
 * palette: palette_floats floats from sinew_skin_palette() of this skin; its
 * size is checked, its contents are not.
 * in/out: see the stream structs. In place is allowed when an output stream
 * has exactly the same pointer and stride as its input stream.
 * Thread-safe: any number of threads may deform disjoint ranges of one skin
 * at once (and any ranges into distinct outputs); never allocates or locks. */
SINEW_API sinew_result sinew_skin_deform(const sinew_skin *skin, const float *palette, size_t palette_floats,
                                         const sinew_skin_input *in, const sinew_skin_output *out, size_t first,
                                         size_t count);

/* The blended skinning matrix of each vertex in [first, first + count): the
 * affine map that takes the vertex's rest position to its deformed one, as a
 * column-major 4x4 (16 floats, last row 0 0 0 1), so M_v p equals
 * sinew_skin_deform's position within float rounding. Linear blend:
 * sum_i w_i M_i. Dual quaternions: the matrix of the normalised blended dual
 * quaternion times the blended stretch, [R(q) S | t]. Mixed: (1 - a) times
 * the first plus a times the second, a the vertex's dq_blend. (For normals,
 * use the inverse transpose of its 3x3 part, as the skin's default mode does.)
 * Use: per-vertex frames for sinew_soffd_deform_extended of a skinned driver,
 * or skinning in a shader.
 * out: vertex v's matrix at (char *)out + v * out_stride (bytes, 0 = 64,
 * else a multiple of 4 at least 64), indexed over the whole mesh like the
 * deform outputs. Returns as sinew_skin_deform: INVALID_ARGUMENT (NULL
 * skin/palette/out, a misaligned pointer, a bad stride), MISMATCH
 * (palette_floats), INDEX_OUT_OF_RANGE (range past vertex_count),
 * SIZE_OVERFLOW (the last matrix's offset); out untouched on failure; count
 * 0 is a no-op. Pose time: const, never allocates, thread-safe. */
SINEW_API sinew_result sinew_skin_vertex_matrices(const sinew_skin *skin, const float *palette, size_t palette_floats,
                                                  float *out, size_t out_stride, size_t first, size_t count);

/* Reads back the stored influences of one vertex (after merging,
 * renormalisation and, with compressed storage, quantisation), sorted by
 * decreasing weight, into `capacity`-entry arrays (either may be NULL when
 * not wanted). Always writes *count, the vertex's number of influences.
 * Both arrays NULL asks only for the count (SINEW_OK). A capacity below the
 * count is SINEW_ERROR_BUFFER_TOO_SMALL with nothing else written (all or
 * nothing). Returns INVALID_ARGUMENT (NULL skin or count) or
 * INDEX_OUT_OF_RANGE (vertex). Thread-safe (reads only). */
SINEW_API sinew_result sinew_skin_vertex_influences(const sinew_skin *skin, size_t vertex, uint32_t *joints,
                                                    float *weights, size_t capacity, size_t *count);

/* ---- Save and load (core.h "Saved data"; docs/skinning.md) ----------------
 * A skin is saved as its bound layout (the cleaned, sorted influences, the
 * inverse bind matrices, its options and info figures), so loading is a
 * checked copy, not a bind. */

/* Saves a skin into buffer. buffer NULL asks for the size (SINEW_OK, *size =
 * bytes needed); capacity below it is BUFFER_TOO_SMALL with *size = bytes
 * needed and nothing written; else *size = bytes written. The same skin
 * always gives the same bytes. Returns INVALID_ARGUMENT (NULL skin or size).
 * Thread-safe (reads only); never allocates. */
SINEW_API sinew_result sinew_skin_save(const sinew_skin *skin, void *buffer, size_t capacity, size_t *size);

/* Loads a skin saved by sinew_skin_save (this or an earlier format version).
 * Returns SINEW_OK and *out, or: INVALID_ARGUMENT (NULL data/out), INVALID_DATA
 * (not whole, intact skin data: truncated, corrupted, counts that do not add
 * up), MISMATCH (data of another kind), UNSUPPORTED (a newer format version,
 * or a forced kernel this build or CPU lacks: a skin saved with
 * SINEW_SKIN_KERNEL_AUTO picks this machine's best), create's codes for
 * contents create refuses (INDEX_OUT_OF_RANGE, INVALID_WEIGHTS, NON_FINITE,
 * ...), OUT_OF_MEMORY, CANCELLED. Messages start with "skin data:" and name
 * the vertex, slot or joint. *out is untouched on failure. Deforming the
 * loaded skin gives the same bits as deforming the skin that was saved.
 * ctx: NULL = defaults; the skin keeps a copy of its allocator.
 * data: read during the call only. Thread-safe (no shared state). */
SINEW_API sinew_result sinew_skin_load(sinew_context *ctx, const void *data, size_t size, sinew_skin **out);

/* Bytes of memory sinew_skin_load_into needs for this saved skin: its bind
 * data (inverse bind matrices, every vertex's joints and weights) plus room
 * to align it, wherever the memory starts. Reads the data's options and
 * group counts, not the whole body: a corrupted body is found by the load.
 * Returns SINEW_OK and *bytes, or sinew_skin_load's codes for data it
 * refuses before the body (INVALID_ARGUMENT for NULL data/bytes,
 * INVALID_DATA, MISMATCH, UNSUPPORTED, OUT_OF_MEMORY). ctx: NULL = defaults
 * (a few bytes of scratch per influence count). Thread-safe. */
SINEW_API sinew_result sinew_skin_load_memory_size(sinew_context *ctx, const void *data, size_t size,
                                                   size_t *bytes);

/* sinew_skin_load with the skin's bind data placed in memory the caller
 * owns: memory_bytes >= sinew_skin_load_memory_size bytes, any alignment.
 * For engines that load many skins into memory they pool or have touched
 * already (a fresh allocation's first touch costs more than the copy: see
 * docs/skinning.md, "Loading"). Only the handle and its group table come
 * from ctx's allocator. The memory must stay valid and unchanged until
 * sinew_skin_destroy, which does not free it; it can then be reused.
 * The memory must not overlap data. Returns sinew_skin_load's codes, and
 * INVALID_ARGUMENT (NULL memory) or BUFFER_TOO_SMALL (memory_bytes; the
 * message gives the bytes needed). On failure *out is untouched and the
 * memory's bytes are unspecified. Thread-safe (no shared state). */
SINEW_API sinew_result sinew_skin_load_into(sinew_context *ctx, const void *data, size_t size, void *memory,
                                            size_t memory_bytes, sinew_skin **out);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_SKIN_H */
