/*
 * sinew: pose-space correctives and morph targets.
 *
 * A corrective holds K keys, each a set of offsets of N points (driver points,
 * a skin's vertices: blend shapes) and, for pose-space keys, the pose it was
 * sculpted at: a vector of pose_size numbers (joint angles from
 * sinew_corrective_swing_twist, muscle attributes, any caller scalars). At
 * pose time the pose gives one weight per key, by radial basis function
 * interpolation over pose space (the kernel below), or the caller gives the
 * weights directly (morph targets as glTF defines them), and every point moves
 * by the weighted sum of its offsets:
 *
 *     out_i = base_i + sum_k w_k delta_k,i
 *
 * Apply it to the rest points before skinning or to the driver before SOFFD
 * (docs/correctives.md).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_CORRECTIVE_H
#define SINEW_CORRECTIVE_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the key weights follow the pose. With d_k = |pose - pose_k| / radius
 * (Euclidean over the pose_size numbers) the weights are w(p) = the values of
 * the interpolant sum_j c_j phi(d_j) (+ a linear polynomial in the pose) that is
 * 1 at key k's pose and 0 at the other keys' poses and at the rest pose. */
typedef enum sinew_corrective_kernel {
    /* phi(d) = exp(-d^2), no polynomial: solvable for any distinct poses, and
     * every weight fades to 0 far from the keys. Default. */
    SINEW_CORRECTIVE_KERNEL_GAUSSIAN = 0,
    /* phi(d) = d with a linear polynomial (polyharmonic, order 1): with one pose
     * number it is linear interpolation between the keys (linear, with one
     * slope, beyond the outermost). Needs poses (keys and rest) that span pose
     * space affinely. */
    SINEW_CORRECTIVE_KERNEL_LINEAR = 1,
    /* phi(d) = d^3 with a linear polynomial (polyharmonic, order 3): a natural
     * cubic spline with one pose number, smooth in more. Same spanning rule. */
    SINEW_CORRECTIVE_KERNEL_CUBIC = 2,
    /* No interpolation: the pose is the key weights themselves (pose_size =
     * key_count), as glTF morph targets. */
    SINEW_CORRECTIVE_KERNEL_WEIGHTS = 3
} sinew_corrective_kernel;

typedef struct sinew_corrective_desc {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    size_t point_count;  /* N, >= 1 */
    size_t key_count;    /* K, >= 1 */
    /* Numbers per pose (>= 1); ignored (taken as key_count) for
     * SINEW_CORRECTIVE_KERNEL_WEIGHTS. */
    size_t pose_size;
    /* key_count * pose_size floats, packed: key k's pose at poses[k * pose_size].
     * Required unless the kernel is WEIGHTS. */
    const float *poses;
    /* pose_size floats: the pose at which every offset is zero (an implicit
     * key). NULL = all zero. Unused for WEIGHTS. */
    const float *rest_pose;
    /* Offsets, 3 floats each. Dense (key_offset_counts NULL): key_count *
     * point_count * 3 floats, key k's offset of point i at
     * offsets[3 * (k * point_count + i)]. Sparse: key k has key_offset_counts[k]
     * offsets, listed after those of the keys before it, offset j of point
     * offset_points[j] (strictly increasing within a key). */
    const float *offsets;
    const size_t *key_offset_counts;  /* key_count entries, NULL = dense */
    const uint32_t *offset_points;    /* required when sparse */
    sinew_corrective_kernel kernel;
    /* Distance scale of pose space (> 0, in pose units); 0 = the mean
     * distance from each pose (keys and rest) to its nearest other pose.
     * Only the Gaussian's shape depends on it. */
    double radius;
    /* Tikhonov regularisation: lambda added to the kernel matrix's diagonal
     * (>= 0; 0 = none, the keys are then reproduced exactly). Larger values
     * trade exactness at the keys for smoother, smaller weights between
     * close keys. */
    double smoothing;
} sinew_corrective_desc;

/* The defaults sinew_corrective_create uses (docs/api.md, Defaults):
 * *resolved = desc (NULL = all zero) with every zero field that has a default
 * replaced by it: pose_size for SINEW_CORRECTIVE_KERNEL_WEIGHTS (key_count).
 * radius 0 stays 0: its default is measured on the poses' values
 * (sinew_corrective_info reports the radius in use); smoothing 0 (none) and
 * kernel 0 (SINEW_CORRECTIVE_KERNEL_GAUSSIAN) are values themselves. Creating
 * with *resolved does the same as with desc. Other fields are copied
 * unchecked. resolved must be SINEW_INIT'ed and is written up to its
 * struct_size. INVALID_ARGUMENT (NULL resolved), UNSUPPORTED (unknown nonzero
 * desc bytes). Thread-safe. */
SINEW_API sinew_result sinew_corrective_desc_defaults(const sinew_corrective_desc *desc,
                                                      sinew_corrective_desc *resolved);

typedef struct sinew_corrective sinew_corrective;

typedef struct sinew_corrective_info {
    size_t struct_size;  /* SINEW_INIT(&s) sets it */
    size_t point_count;
    size_t key_count;
    size_t pose_size;          /* key_count for WEIGHTS */
    size_t offset_count;       /* nonzero offsets kept (zeros are dropped) */
    sinew_corrective_kernel kernel;
    double radius;             /* the radius in use (the default resolved) */
    double smoothing;
    size_t memory_bytes;       /* every byte the corrective holds */
} sinew_corrective_info;

/* Creates a corrective: checks the keys, keeps the nonzero offsets point by
 * point and solves the small dense interpolation system. Returns
 * SINEW_ERROR_INVALID_ARGUMENT (NULL desc/out/poses/offsets, a zero count,
 * an unknown kernel, a negative or non-finite radius or smoothing),
 * SINEW_ERROR_NON_FINITE (naming the key and point or pose number),
 * SINEW_ERROR_INDEX_OUT_OF_RANGE (a sparse offset's point, naming it),
 * SINEW_ERROR_INVALID_ARGUMENT (sparse points not increasing within a key),
 * SINEW_ERROR_DEGENERATE (two keys, or a key and the rest pose, at the same
 * pose, naming both; poses that do not span pose space for LINEAR/CUBIC;
 * a system too ill-conditioned to solve), SINEW_ERROR_SIZE_OVERFLOW,
 * SINEW_ERROR_OUT_OF_MEMORY. ctx: allocator, NULL = defaults. out: untouched
 * on failure. Thread-safe. */
SINEW_API sinew_result sinew_corrective_create(sinew_context *ctx, const sinew_corrective_desc *desc,
                                               sinew_corrective **out);

/* Destroys a corrective (NULL is fine). Not thread-safe with other calls on it. */
SINEW_API void sinew_corrective_destroy(sinew_corrective *corrective);

/* Fills *info. Returns SINEW_ERROR_INVALID_ARGUMENT on NULL or an
 * uninitialised struct_size. Thread-safe with other const calls; leaves
 * sinew_last_error() as it was on success, like every *_get_info. */
SINEW_API sinew_result sinew_corrective_get_info(const sinew_corrective *corrective, sinew_corrective_info *info);

/* The key weights at a pose: pose has pose_size floats (the info's; for
 * WEIGHTS they are copied), weights receives weight_floats = key_count floats.
 * At a key's pose (the same floats) and smoothing 0 the weights are exactly 1
 * for that key and 0 for the others; at the rest pose all are 0. Returns
 * SINEW_ERROR_INVALID_ARGUMENT (NULL), SINEW_ERROR_MISMATCH (pose_size or
 * weight_floats), SINEW_ERROR_NON_FINITE (a pose number, or a weight beyond
 * the float range). Never allocates; thread-safe with other const calls. */
SINEW_API sinew_result sinew_corrective_weights(const sinew_corrective *corrective, const float *pose,
                                                size_t pose_size, float *weights, size_t weight_floats);

/* Moves points [first, first + count) by the keys' offsets at the given
 * weights: out_i = base_i + sum_k weights[k] delta_k,i, summed in key order in
 * double and rounded once, so a weight 0 leaves its key out and all-zero
 * weights give base bit for bit. base: the points (its count must reach
 * first + count); out: point i at byte offset i * out_stride (0 = packed),
 * may alias base when the strides match. Returns SINEW_ERROR_INVALID_ARGUMENT
 * (NULL, misaligned, bad stride), SINEW_ERROR_MISMATCH (weight_floats is not
 * key_count), SINEW_ERROR_INDEX_OUT_OF_RANGE (range past the corrective's
 * points or the view), SINEW_ERROR_SIZE_OVERFLOW, SINEW_ERROR_NON_FINITE (a
 * weight or base coordinate, naming it, or a point that would leave the
 * float range), found before anything is written. Never allocates;
 * thread-safe with other const calls. */
SINEW_API sinew_result sinew_corrective_apply(const sinew_corrective *corrective, const float *weights,
                                              size_t weight_floats, const sinew_points *base, float *out,
                                              size_t out_stride, size_t first, size_t count);

/* sinew_corrective_weights at the pose, then sinew_corrective_apply with
 * them: the same bits as the two calls, with the codes of both. Never
 * allocates; thread-safe with other const calls. */
SINEW_API sinew_result sinew_corrective_deform(const sinew_corrective *corrective, const float *pose,
                                               size_t pose_size, const sinew_points *base, float *out,
                                               size_t out_stride, size_t first, size_t count);

/* Pose numbers of joint rotations: for each joint j, its local rotation
 * rotations[4 j .. 4 j + 3] (a quaternion x, y, z, w as in glTF; normalised
 * here) is split into a twist about its axis twist_axes[3 j ..] (NULL = +y,
 * the bone direction of glTF skeletons; normalised here) followed by a swing
 * about an axis perpendicular to it, and written as 3 floats at pose[3 j]:
 * the swing's rotation vector (angle times unit axis, angle in [0, pi]) in
 * the basis (u, v) of the plane perpendicular to the twist axis, then the
 * twist angle in (-pi, pi]. u = t x e normalised, v = t x u, e the world axis
 * least aligned with t. pose_size must be 3 * joint_count (else MISMATCH).
 * Returns SINEW_ERROR_INVALID_ARGUMENT (NULL), SINEW_ERROR_NON_FINITE,
 * SINEW_ERROR_DEGENERATE (a zero quaternion or axis, naming the joint);
 * nothing is written on failure. Never allocates; thread-safe. */
SINEW_API sinew_result sinew_corrective_swing_twist(const float *rotations, const float *twist_axes,
                                                    size_t joint_count, float *pose, size_t pose_size);

/* ---- Save and load ------------------------------------------------------
 * The saved-data contract of core.h ("Saved data"), messages starting
 * "corrective data:". The keys' poses, rest pose, kernel, radius, smoothing
 * and offsets are stored; the interpolation system is solved again on load
 * (the same bits), so a loaded corrective deforms bit for bit as the saved
 * one. Save is thread-safe with other const calls; load is thread-safe. */

/* Saves the corrective into buffer (NULL = size query). */
SINEW_API sinew_result sinew_corrective_save(const sinew_corrective *corrective, void *buffer, size_t capacity,
                                             size_t *size);
/* Loads a corrective saved by sinew_corrective_save; memory from ctx's
 * allocator (NULL = defaults); *out set only on success. */
SINEW_API sinew_result sinew_corrective_load(sinew_context *ctx, const void *data, size_t size,
                                             sinew_corrective **out);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_CORRECTIVE_H */
