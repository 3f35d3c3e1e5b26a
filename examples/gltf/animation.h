/* Playing a glTF animation: sample every channel at a time, build each node's
 * local matrix from translation/rotation/scale, and chain them down the node
 * hierarchy into world matrices (what sinew_skin_palette takes per joint).
 * Not part of the library. */
#ifndef SINEW_EXAMPLE_ANIMATION_H
#define SINEW_EXAMPLE_ANIMATION_H

#include "gltf.h"

/* Per-node state of one pose; allocate once, reuse every frame. */
typedef struct pose {
    size_t node_count;
    float *translation, *rotation, *scale; /* 3, 4 (x, y, z, w), 3 floats per node */
    float *world;                          /* 16 floats per node, column-major */
    size_t *order;                         /* nodes with every parent before its children */
} pose;

/* Allocates the pose for a model. Returns false when out of memory. */
bool pose_init(pose *p, const gltf_model *model);
void pose_free(pose *p);

/* Sets every node to its rest transform, then applies anim (NULL = rest pose)
 * at `time` seconds (clamped to each sampler's keys), and computes the world
 * matrices. */
void pose_sample(pose *p, const gltf_model *model, const gltf_animation *anim, float time);

/* Copies the world matrices of a skin's joints, in joint order, into
 * joint_world (16 floats per joint). */
void pose_joint_world(const pose *p, const gltf_skin *skin, float *joint_world);

/* Evaluates one sampler at time t into out (sampler->width floats);
 * quaternions (rotation = true) are interpolated on the sphere and normalised. */
void sampler_evaluate(const gltf_sampler *s, float t, bool rotation, float *out);

#endif
