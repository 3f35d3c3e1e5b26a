/*
 * Pose-space correctives (include/sinew/corrective.h). The offsets are kept
 * point by point (a row of (key, offset) pairs per point, keys increasing,
 * zero offsets dropped), so a range of points reads one contiguous run and
 * dense and sparse keys cost what they hold. The pose interpolation is kept
 * as the coefficients of each key's cardinal function: key k's weight at pose
 * p is sum_j basis_j(p) coeffs[j * key_count + k], basis_j the kernel at the
 * centres (keys, then the rest pose) followed by 1 and p for the polynomial.
 */
#ifndef SN_CORRECTIVE_INTERNAL_H
#define SN_CORRECTIVE_INTERNAL_H

#include "core/internal.h"
#include "sinew/corrective.h"

/* Poses closer than this, relative to the largest pose number's magnitude
 * (at least 1), are one pose: tuned to catch copies and float round-off of
 * the same pose while keeping keys a thousandth of a degree apart. */
#define SN_CORR_DUPLICATE_TOLERANCE 1e-6
/* A pivot of the interpolation system at most this times its largest entry
 * makes the system singular to working precision. */
#define SN_CORR_PIVOT_TOLERANCE 1e-13
/* Most keys and pose numbers of an interpolated corrective: beyond a rig's
 * needs, and it keeps the weights' scratch (a basis value per centre and
 * polynomial term, a sum per key) on the stack at pose time. */
#define SN_CORR_MAX_POSE_KEYS 256u
#define SN_CORR_MAX_POSE_SIZE 256u
#define SN_CORR_MAX_BASIS (SN_CORR_MAX_POSE_KEYS + 1u + SN_CORR_MAX_POSE_SIZE + 1u)
/* Most morph targets (the WEIGHTS kernel, no system): key indices stay
 * far inside uint32_t. */
#define SN_CORR_MAX_MORPH_KEYS (1u << 20)

struct sinew_corrective {
    sn_env env;
    size_t held_bytes;
    size_t point_count, key_count, pose_size;
    sinew_corrective_kernel kernel;
    double radius, smoothing;
    float *poses;          /* key_count * pose_size (NULL for WEIGHTS) */
    float *rest_pose;      /* pose_size (NULL for WEIGHTS) */
    size_t basis_count;    /* centres (key_count + 1) + polynomial terms */
    double *coeffs;        /* basis_count * key_count */
    size_t entry_count;
    size_t *row_start;     /* point_count + 1 */
    uint32_t *entry_key;   /* entry_count */
    float *entry_offset;   /* 3 * entry_count */
    float *key_largest;    /* key_count: largest |offset coordinate| of each key */
};

/* What create and load both build from: the poses and options of a desc and
 * the offsets already point by point (nonzero, keys increasing per point). */
typedef struct sn_corr_parts {
    size_t point_count, key_count, pose_size;
    sinew_corrective_kernel kernel;
    double radius, smoothing;
    const float *poses, *rest_pose;
    size_t entry_count;
    const size_t *row_start;
    const uint32_t *entry_key;
    const float *entry_offset;
} sn_corr_parts;

/* Checks the poses (finite, distinct, spanning for the polynomial kernels),
 * solves the system and makes the handle, copying every array. `what` starts
 * the messages ("corrective desc", "corrective data"). */
sinew_result sn_corr_build(const sn_env *env, const sn_corr_parts *parts, const char *what, sinew_corrective **out);

/* The number of polynomial terms of a kernel for pose_size numbers. */
size_t sn_corr_poly_terms(sinew_corrective_kernel kernel, size_t pose_size);

/* Solves the interpolation system of c's centres into c->coeffs (allocated
 * by the caller, basis_count * key_count doubles) and resolves a zero radius;
 * scratch from env. */
sinew_result sn_corr_solve(const sn_env *env, sinew_corrective *c, const char *what);

/* The key weights at a checked, finite pose, in float (as public). */
sinew_result sn_corr_weights(const sinew_corrective *c, const float *pose, float *weights);

#endif /* SN_CORRECTIVE_INTERNAL_H */
