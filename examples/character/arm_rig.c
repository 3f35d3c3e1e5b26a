/* Loading libigl's arm and the geometry of its elbow (arm_rig.h). */
#include "arm_rig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void cross(const double a[3], const double b[3], double out[3])
{
    double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(out, c, sizeof c);
}

static void normalise(double v[3])
{
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; ++k) v[k] /= n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median distance to the upper arm's segment of the skin vertices over its
 * middle (a fifth to four fifths of its length): the arm's thickness there. */
static double upper_arm_radius(const arm_rig *rig)
{
    double axis[3], len2 = 0.0;
    for (int k = 0; k < 3; ++k) axis[k] = rig->elbow[k] - rig->shoulder[k], len2 += axis[k] * axis[k];
    double *d = malloc(rig->skin.vertex_count * sizeof(double));
    size_t n = 0;
    for (size_t i = 0; d && i < rig->skin.vertex_count; ++i) {
        const float *p = &rig->skin.positions[3 * i];
        double t = 0.0, r2 = 0.0;
        for (int k = 0; k < 3; ++k) t += (p[k] - rig->shoulder[k]) * axis[k];
        t /= len2;
        if (t < 0.2 || t > 0.8) continue;
        for (int k = 0; k < 3; ++k) {
            double e = p[k] - (rig->shoulder[k] + t * axis[k]);
            r2 += e * e;
        }
        d[n++] = sqrt(r2);
    }
    double r = 0.0;
    if (n) {
        qsort(d, n, sizeof *d, cmp_double);
        r = d[n / 2];
    }
    free(d);
    return r;
}

bool arm_rig_load(arm_rig *rig, const char **missing)
{
    static const char *const files[2] = {"libigl-tutorial-data/arm.obj", "libigl-tutorial-data/arm.tgf"};
    char paths[2][4096];
    memset(rig, 0, sizeof *rig);
    for (int f = 0; f < 2; ++f)
        if (!support_data_path(files[f], paths[f], sizeof paths[f])) {
            *missing = files[f];
            return false;
        }
    *missing = NULL;
    if (!support_read_obj(paths[0], &rig->skin) ||
        !support_read_tgf(paths[1], &rig->joints, &rig->joint_count, &rig->bones, &rig->bone_count) ||
        rig->bone_count <= ARM_FOREARM_BONE || rig->bones[2 * ARM_UPPER_BONE + 1] != rig->bones[2 * ARM_FOREARM_BONE]) {
        arm_rig_free(rig);
        return false;
    }
    const float *s = &rig->joints[3 * rig->bones[2 * ARM_UPPER_BONE]];
    const float *e = &rig->joints[3 * rig->bones[2 * ARM_FOREARM_BONE]];
    const float *w = &rig->joints[3 * rig->bones[2 * ARM_FOREARM_BONE + 1]];
    double upper[3], fore[3];
    for (int k = 0; k < 3; ++k) {
        rig->shoulder[k] = s[k], rig->elbow[k] = e[k];
        upper[k] = (double)e[k] - s[k], fore[k] = (double)w[k] - e[k];
    }
    /* The arm is bent a little at rest: bending on in that plane is the
     * elbow's own motion. Turning about upper x fore carries the forearm away
     * from the upper arm's direction; its tip folds toward (hinge x upper). */
    cross(upper, fore, rig->hinge);
    normalise(rig->hinge);
    cross(rig->hinge, upper, rig->inside);
    normalise(rig->inside);
    rig->upper_radius = upper_arm_radius(rig);
    return true;
}

void arm_rig_free(arm_rig *rig)
{
    support_mesh_free(&rig->skin);
    free(rig->joints);
    free(rig->bones);
    memset(rig, 0, sizeof *rig);
}

/* Column-major rotation by angle about the hinge through the elbow. */
static void hinge_matrix(const arm_rig *rig, double angle, float m[16])
{
    const double none[3] = {0.0, 0.0, 0.0};
    support_affine_rotation(rig->hinge, angle, none, m);
    /* p -> R (p - e) + e: the translation is e - R e. */
    for (int r = 0; r < 3; ++r) {
        double t = rig->elbow[r];
        for (int c = 0; c < 3; ++c) t -= (double)m[4 * c + r] * rig->elbow[c];
        m[12 + r] = (float)t;
    }
}

void arm_rig_bone_worlds(const arm_rig *rig, double angle, float *worlds)
{
    float bent[16];
    hinge_matrix(rig, angle, bent);
    for (size_t b = 0; b < rig->bone_count; ++b) {
        float *m = &worlds[16 * b];
        if (b >= ARM_FOREARM_BONE) {
            memcpy(m, bent, sizeof bent);
        } else {
            memset(m, 0, 16 * sizeof(float));
            m[0] = m[5] = m[10] = m[15] = 1.0f;
        }
    }
}

void arm_rig_elbow_rotation(const arm_rig *rig, double angle, float quaternion[4])
{
    for (int k = 0; k < 3; ++k) quaternion[k] = (float)(rig->hinge[k] * sin(angle / 2));
    quaternion[3] = (float)cos(angle / 2);
}

void arm_rig_turn(const arm_rig *rig, double angle, const float p[3], float out[3])
{
    float m[16];
    hinge_matrix(rig, angle, m);
    float q[3];
    for (int r = 0; r < 3; ++r) q[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    memcpy(out, q, sizeof q);
}
