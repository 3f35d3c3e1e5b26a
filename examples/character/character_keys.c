/* Keying the elbow corrective and the muscle bulge (character_keys.h). */
#include "character_keys.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Half-width of the smooth bend along the upper arm, in upper-arm radii:
 * wide enough that the inside of the bend does not fold over itself at 120
 * degrees, narrow enough to leave the spans rigid. */
#define ELBOW_BEND_HALF_WIDTH 1.5

/* The stretch of the upper arm the bulge swells, as fractions of its length
 * from the shoulder. */
#define BULGE_START 0.15
#define BULGE_END 0.8

static double smoothstep(double x)
{
    x = x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
    return x * x * (3.0 - 2.0 * x);
}

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

bool character_elbow_pose(const arm_rig *rig, double angle, float pose[ELBOW_POSE_SIZE])
{
    float q[4], axis[3];
    arm_rig_elbow_rotation(rig, angle, q);
    const float *wrist = &rig->joints[3 * rig->bones[2 * ARM_FOREARM_BONE + 1]];
    for (int k = 0; k < 3; ++k) axis[k] = (float)(wrist[k] - rig->elbow[k]);
    return sinew_corrective_swing_twist(q, axis, 1, pose, ELBOW_POSE_SIZE) == SINEW_OK;
}

void character_elbow_target(const arm_rig *rig, const character_driver *d, double angle, float *target)
{
    double along[3], len = 0.0;
    for (int k = 0; k < 3; ++k) along[k] = rig->elbow[k] - rig->shoulder[k], len += along[k] * along[k];
    len = sqrt(len);
    double width = ELBOW_BEND_HALF_WIDTH * rig->upper_radius;
    for (size_t i = 0; i < d->point_count; ++i) {
        const float *p = &d->rest[3 * i];
        double from_elbow[3] = {p[0] - rig->elbow[0], p[1] - rig->elbow[1], p[2] - rig->elbow[2]};
        double s = dot(from_elbow, along) / len; /* signed distance past the elbow along the upper arm */
        arm_rig_turn(rig, angle * smoothstep((s + width) / (2.0 * width)), p, &target[3 * i]);
    }
}

sinew_corrective *character_elbow_corrective(const arm_rig *rig, const character_driver *d, double key_angle,
                                             float **offsets)
{
    float *delta = malloc(3 * d->point_count * sizeof(float));
    float pose[ELBOW_POSE_SIZE];
    if (!delta || !character_elbow_pose(rig, key_angle, pose)) {
        free(delta);
        return NULL;
    }
    character_elbow_target(rig, d, key_angle, delta);
    /* The offset is in the bind pose: the target carried back by the inverse
     * of the motion of the point's bone, minus the rest point. Points far
     * from the elbow get zero offsets, which the corrective drops. */
    for (size_t i = 0; i < d->point_count; ++i) {
        float back[3];
        if (d->bone_of[i] >= ARM_FOREARM_BONE) arm_rig_turn(rig, -key_angle, &delta[3 * i], back);
        else memcpy(back, &delta[3 * i], sizeof back);
        for (int k = 0; k < 3; ++k) delta[3 * i + k] = back[k] - d->rest[3 * i + k];
    }
    sinew_corrective_desc desc;
    SINEW_INIT(&desc);
    desc.point_count = d->point_count;
    desc.key_count = 1;
    desc.pose_size = ELBOW_POSE_SIZE;
    desc.poses = pose;
    desc.offsets = delta;
    desc.kernel = SINEW_CORRECTIVE_KERNEL_GAUSSIAN;
    sinew_corrective *c = NULL;
    if (sinew_corrective_create(NULL, &desc, &c) != SINEW_OK) {
        fprintf(stderr, "elbow corrective: %s\n", sinew_last_error());
        free(delta);
        return NULL;
    }
    *offsets = delta;
    return c;
}

sinew_corrective *character_bulge_corrective(const arm_rig *rig, const character_driver *d, double key_angle,
                                             double height)
{
    float *delta = calloc(3 * d->point_count, sizeof(float));
    if (!delta) return NULL;
    double axis[3], len2 = 0.0;
    for (int k = 0; k < 3; ++k) axis[k] = rig->elbow[k] - rig->shoulder[k], len2 += axis[k] * axis[k];
    for (size_t i = 0; i < d->point_count; ++i) {
        if (d->bone_of[i] != ARM_UPPER_BONE) continue;
        const float *p = &d->rest[3 * i];
        double rel[3] = {p[0] - rig->shoulder[0], p[1] - rig->shoulder[1], p[2] - rig->shoulder[2]};
        double t = dot(rel, axis) / len2, radial[3];
        for (int k = 0; k < 3; ++k) radial[k] = rel[k] - t * axis[k];
        double r = sqrt(dot(radial, radial));
        if (t <= BULGE_START || t >= BULGE_END || r == 0.0) continue;
        double side = dot(radial, rig->inside) / r; /* 1 on the inside of the arm, facing the forearm */
        if (side <= 0.0) continue;
        double along = sin(M_PI * (t - BULGE_START) / (BULGE_END - BULGE_START));
        double amount = height * along * along * side * side / r;
        for (int k = 0; k < 3; ++k) delta[3 * i + k] = (float)(amount * radial[k]);
    }
    float pose = (float)key_angle;
    sinew_corrective_desc desc;
    SINEW_INIT(&desc);
    desc.point_count = d->point_count;
    desc.key_count = 1;
    desc.pose_size = 1;
    desc.poses = &pose;
    desc.offsets = delta;
    /* Linear over one number: the weight is angle / key_angle, past the key too. */
    desc.kernel = SINEW_CORRECTIVE_KERNEL_LINEAR;
    sinew_corrective *c = NULL;
    if (sinew_corrective_create(NULL, &desc, &c) != SINEW_OK) fprintf(stderr, "bulge: %s\n", sinew_last_error());
    free(delta);
    return c;
}
