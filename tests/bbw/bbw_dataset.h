/*
 * The automatic-volume acceptance set: every surface in the
 * shared data folder with a handful of point handles near its extremities
 * (farthest-point samples of its vertices, pushed slightly inside), and
 * every mesh with a .tgf skeleton with that skeleton. Closed surfaces must
 * bind and solve; open ones (marked) bind and solve where they enclose a
 * volume and otherwise fail with the volume's DEGENERATE message. Shared by
 * test_bbw_volume (a subset) and bench_bbw_volume (all of it).
 */
#ifndef SINEW_TEST_BBW_DATASET_H
#define SINEW_TEST_BBW_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew.h"
#include "support.h"

/* Number of candidate cases (some may be absent: see load). */
size_t bbw_dataset_count(void);

typedef struct bbw_case {
    char name[64];
    support_mesh mesh;          /* a surface, or a tet mesh (tets != NULL) */
    bool open;                  /* a surface with an edge not in exactly two triangles */
    float points[3 * 8];        /* point handles (none with a skeleton) */
    size_t point_count;
    float *joints;              /* skeleton (from its .tgf), else NULL */
    size_t joint_count;
    uint32_t *bones;
    size_t bone_count;
    sinew_trimesh surface;      /* views into mesh */
    sinew_tetmesh tets;
} bbw_case;

/* Loads case i. Returns false (and leaves c empty) when its files are
 * absent or unreadable; `why` then says which. */
bool bbw_dataset_load(size_t i, bbw_case *c, const char **why);
/* Index of the case named `name` ("hand-mesh-skeleton"), SIZE_MAX if none;
 * nothing is loaded. */
size_t bbw_dataset_find(const char *name);
/* Frees the case's data (its name stays). */
void bbw_dataset_free(bbw_case *c);
/* A desc for the case with default settings (surface or tets; points or
 * bones). */
void bbw_dataset_desc(const bbw_case *c, sinew_bbw_desc *d);

/* Farthest-point samples of the positions, starting from the one farthest
 * from `start`; when normals != NULL each is moved `inward` against its
 * vertex normal. */
void bbw_farthest_points(const float *pos, size_t n, const double start[3], size_t count, float *out,
                         const double *normals, double inward);

/* The mean of the positions, then `count` farthest-point samples from it:
 * 1 + count points in out (the octopus's nine-point handle set). */
void bbw_centre_and_farthest_points(const float *pos, size_t n, size_t count, float *out);

#endif
