/* The character of the workflow example: libigl's arm (arm.obj, 8,311
 * vertices) with its skeleton (arm.tgf: a chain of four bones, shoulder,
 * upper arm, forearm, hand) and the elbow's hinge: where it is, which axis it
 * turns about and which side of the upper arm the forearm folds toward. */
#ifndef SINEW_EXAMPLE_ARM_RIG_H
#define SINEW_EXAMPLE_ARM_RIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support.h"

enum { ARM_UPPER_BONE = 1, ARM_FOREARM_BONE = 2 }; /* bone numbers in arm.tgf's order */

typedef struct arm_rig {
    support_mesh skin;
    float *joints;          /* 3 per joint, bind pose */
    size_t joint_count;
    uint32_t *bones;        /* 2 joints per bone */
    size_t bone_count;
    double elbow[3];        /* the joint the upper arm and the forearm share */
    double shoulder[3];     /* the upper arm's other end */
    double hinge[3];        /* unit axis the forearm turns about (bending further for positive angles) */
    double inside[3];       /* unit, perpendicular to the upper arm: the side the forearm folds toward */
    double upper_radius;    /* median distance of the mid upper arm's skin to its bone */
} arm_rig;

/* Loads the arm from the shared data; false when it is absent (*missing then
 * names the file) or unreadable (*missing NULL). */
bool arm_rig_load(arm_rig *rig, const char **missing);
void arm_rig_free(arm_rig *rig);

/* The bones' world matrices (column-major 4x4, 16 floats per bone) with the
 * elbow bent by `angle` radians: the forearm and the hand turn about the
 * hinge through the elbow, the shoulder and the upper arm stay. */
void arm_rig_bone_worlds(const arm_rig *rig, double angle, float *worlds);

/* The elbow's local rotation at `angle` as a quaternion (x, y, z, w). */
void arm_rig_elbow_rotation(const arm_rig *rig, double angle, float quaternion[4]);

/* p turned by `angle` about the hinge through the elbow. */
void arm_rig_turn(const arm_rig *rig, double angle, const float p[3], float out[3]);

#endif
