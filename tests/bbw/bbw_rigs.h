/*
 * The auto-binding rig set, shared by test_bbw_auto and bench_bbw_auto: every
 * mesh of the shared data with a skeleton (libigl's arm, hand and elephant
 * with their .tgf, the glTF characters with their own skeletons), meshes of
 * common-3d-test-models with a chain of bones placed along their longest
 * side, and procedural production-like cases generated here (intersecting
 * parts, a floating accessory, an open cape, bones leaving the mesh or lying
 * wholly outside it, scales 1e-3 and 1e3, a triangle soup, an inside-out
 * shell, a flat 2D figure, a figure of ~30k vertices and 40 bones). Data cases are absent without ../shared/data;
 * procedural ones always load.
 */
#ifndef SINEW_TEST_BBW_RIGS_H
#define SINEW_TEST_BBW_RIGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew.h"

/* What a case exercises, for the tests' extra checks. */
typedef enum bbw_rig_trait {
    BBW_RIG_PLAIN = 0,
    BBW_RIG_CLIPPED,      /* a handle leaves the domain: clipped_handle_count > 0 */
    BBW_RIG_FLIPPED,      /* wound inwards: flipped_component_count > 0 */
    BBW_RIG_SOUP,         /* every triangle its own vertices: welded_vertex_count < vertex_count */
    BBW_RIG_FLAT,         /* a flat surface: dimension 2 */
    BBW_RIG_DETACHED      /* surface parts no handle reaches: attached vertices > 0 */
} bbw_rig_trait;

typedef struct bbw_rig {
    char name[48];
    bbw_rig_trait trait;
    bool procedural;
    bool quick;              /* binds within seconds in a debug build */
    float *positions;        /* 3 per vertex */
    size_t vertex_count;
    uint32_t *triangles;     /* 3 per triangle */
    size_t triangle_count;
    float *joints;           /* 3 per joint */
    size_t joint_count;
    uint32_t *bones;         /* 2 per bone */
    size_t bone_count;
    float *points;           /* 3 per point handle */
    size_t point_count;
    sinew_trimesh surface;   /* view of positions/triangles */
} bbw_rig;

size_t bbw_rig_count(void);
/* Loads rig i; false (r empty, *why says which file) when its data is absent. */
bool bbw_rig_load(size_t i, bbw_rig *r, const char **why);
/* Index of the rig named name, SIZE_MAX if none. */
size_t bbw_rig_find(const char *name);
void bbw_rig_free(bbw_rig *r);
/* The default one-call desc for the rig (k = 4, everything else default). */
void bbw_rig_desc(const bbw_rig *r, sinew_bbw_auto_desc *d);
/* The same rig as a plain create desc (surface, bones, points). */
void bbw_rig_create_desc(const bbw_rig *r, sinew_bbw_desc *d);

#endif
