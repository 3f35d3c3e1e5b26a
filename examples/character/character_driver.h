/* The driver of the workflow example, step by step as Singh & Kokkevis
 * build their characters: a low-resolution driver decimated from the skin
 * with more vertices at the joints, each driver point bound rigidly to its
 * nearest bone segment, the skin registered on the driver. */
#ifndef SINEW_EXAMPLE_CHARACTER_DRIVER_H
#define SINEW_EXAMPLE_CHARACTER_DRIVER_H

#include <stdbool.h>

#include "arm_rig.h"
#include "sinew.h"

typedef struct character_driver {
    float *rest;              /* 3 per driver point, bind pose */
    size_t point_count;
    uint32_t *triangles;      /* 3 per driver triangle */
    size_t triangle_count;
    uint32_t *bone_of;        /* the bone each driver point moves with (weight 1) */
    float *ones;              /* the weights: 1 per point */
    sinew_skin *skinning;     /* the driver points skinned to the bones */
    sinew_soffd *soffd;       /* the driver bound, the character's skin registered on it */
    sinew_soffd_driver_report report;
} character_driver;

/* Decimates the rig's skin into a driver of about target_triangles
 * triangles, emphasising the skeleton's joints. */
bool character_driver_from_skin(character_driver *d, const arm_rig *rig, size_t target_triangles);
/* Binds each driver point to its nearest bone segment and makes the skin
 * that poses the driver. */
bool character_driver_bind(character_driver *d, const arm_rig *rig);
/* Binds the driver for SOFFD (default options) and registers the rig's skin
 * on it, dropping elements below 1e-3 of a point's largest weight. */
bool character_driver_register(character_driver *d, const arm_rig *rig);

/* The driver posed: rest (3 per point, the driver's rest points or a
 * corrected copy) skinned with the bones' world matrices into out. */
bool character_driver_pose(const character_driver *d, const float *bone_worlds, size_t bone_count, const float *rest,
                           float *out);
/* The skin deformed by a posed driver into out (3 per skin vertex). */
bool character_driver_deform(const character_driver *d, const float *posed_driver, float *out);

void character_driver_free(character_driver *d);

#endif
