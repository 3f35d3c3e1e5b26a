/*
 * libigl-style skeleton posing for the hand data: per-bone relative rotations
 * (quaternions x, y, z, w from hand-pose.dmat) composed along the bone tree
 * by forward kinematics, the bones' matrices for the skinning palette, and a
 * plain linear blend skinning of one point to check the library against.
 * Header-only so the test and the example share it without a library.
 */
#ifndef SINEW_TEST_HAND_POSE_H
#define SINEW_TEST_HAND_POSE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Rotates v by unit quaternion q (x, y, z, w). */
static inline void hp_rotate(const double q[4], const double v[3], double out[3])
{
    double t[3] = {2.0 * (q[1] * v[2] - q[2] * v[1]), 2.0 * (q[2] * v[0] - q[0] * v[2]),
                   2.0 * (q[0] * v[1] - q[1] * v[0])};
    out[0] = v[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]);
    out[1] = v[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]);
    out[2] = v[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0]);
}

static inline void hp_multiply(const double a[4], const double b[4], double out[4])
{
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* Forward kinematics. rel: 4 doubles per bone; out: rotation (4) and
 * translation (3) per bone, so bone b maps x to rot_b x + trans_b. A bone's
 * parent is the bone ending where it starts. Returns 0 on a cyclic skeleton. */
static inline int hp_forward_kinematics(const float *joints, const uint32_t *bones, size_t bone_count,
                                        const double *rel, double *rot, double *trans)
{
    int done_any = 1;
    unsigned char done[256] = {0};
    if (bone_count > 256) return 0;
    size_t finished = 0;
    while (finished < bone_count && done_any) {
        done_any = 0;
        for (size_t b = 0; b < bone_count; ++b) {
            if (done[b]) continue;
            long parent = -1;
            for (size_t p = 0; p < bone_count; ++p)
                if (p != b && bones[2 * p + 1] == bones[2 * b]) parent = (long)p;
            if (parent >= 0 && !done[parent]) continue;
            const float *jr = joints + 3 * bones[2 * b];
            double r[3] = {jr[0], jr[1], jr[2]}, qr[3], pr[3];
            if (parent < 0) {
                for (int k = 0; k < 4; ++k) rot[4 * b + k] = rel[4 * b + k];
                hp_rotate(rot + 4 * b, r, qr);
                for (int k = 0; k < 3; ++k) trans[3 * b + k] = r[k] - qr[k];
            } else {
                hp_multiply(rot + 4 * parent, rel + 4 * b, rot + 4 * b);
                hp_rotate(rot + 4 * b, r, qr);
                hp_rotate(rot + 4 * parent, r, pr);
                for (int k = 0; k < 3; ++k) trans[3 * b + k] = trans[3 * parent + k] - qr[k] + pr[k];
            }
            done[b] = 1;
            ++finished;
            done_any = 1;
        }
    }
    return finished == bone_count;
}

/* Bone b's transform as a column-major affine 4x4 matrix (16 floats). */
static inline void hp_matrix(const double *rot, const double *trans, size_t b, float *m)
{
    const double *q = rot + 4 * b;
    for (int c = 0; c < 3; ++c) {
        double e[3] = {c == 0, c == 1, c == 2}, col[3];
        hp_rotate(q, e, col);
        for (int r = 0; r < 3; ++r) m[4 * c + r] = (float)col[r];
        m[4 * c + 3] = 0.0f;
    }
    for (int r = 0; r < 3; ++r) m[12 + r] = (float)trans[3 * b + r];
    m[15] = 1.0f;
}

/* Linear blend skinning of one point with k influences (an independent
 * reference for the library's skinning). */
static inline void hp_skin(const float *p, const uint32_t *joints, const float *weights, uint32_t k, const double *rot,
                           const double *trans, float *out)
{
    double v[3] = {p[0], p[1], p[2]}, acc[3] = {0, 0, 0};
    for (uint32_t s = 0; s < k; ++s) {
        if (weights[s] == 0.0f) continue;
        double r[3];
        hp_rotate(rot + 4 * joints[s], v, r);
        for (int a = 0; a < 3; ++a) acc[a] += weights[s] * (r[a] + trans[3 * joints[s] + a]);
    }
    for (int a = 0; a < 3; ++a) out[a] = (float)acc[a];
}

#endif
