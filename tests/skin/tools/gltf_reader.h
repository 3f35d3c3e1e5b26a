/*
 * A small glTF 2.0 reader for the real-data skinning test: JSON, base64 data
 * URIs, accessors, the node hierarchy, the first skin, the skinned mesh's
 * first primitive and the first animation. Test code only, never part of the
 * library; it reads what the test needs and says what it cannot.
 */
#ifndef SINEW_TEST_GLTF_READER_H
#define SINEW_TEST_GLTF_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gltf_path { GLTF_TRANSLATION, GLTF_ROTATION, GLTF_SCALE } gltf_path;
typedef enum gltf_interp { GLTF_LINEAR, GLTF_STEP, GLTF_CUBICSPLINE } gltf_interp;

typedef struct gltf_node {
    int parent;            /* -1 for roots */
    bool has_matrix;
    double matrix[16];     /* column-major, when has_matrix */
    double t[3], r[4], s[3];   /* rest TRS (r = x, y, z, w) otherwise */
} gltf_node;

typedef struct gltf_channel {
    int node;
    gltf_path path;
    gltf_interp interp;
    size_t key_count;
    double *times;         /* key_count */
    double *values;        /* key_count * comps, * 3 for CUBICSPLINE (in-tangent, value, out-tangent) */
    int comps;             /* 3 or 4 */
} gltf_channel;

typedef struct gltf_model {
    size_t node_count;
    gltf_node *nodes;
    /* The skinned mesh: first primitive of the first node with mesh and skin. */
    size_t vertex_count;
    double *positions;     /* 3 per vertex */
    double *normals;       /* 3 per vertex (zeros when the primitive has no NORMAL) */
    uint32_t *joints;      /* 4 per vertex (JOINTS_0, indices into the skin's joints) */
    double *weights;       /* 4 per vertex (WEIGHTS_0, unorm types decoded) */
    size_t index_count;
    uint32_t *indices;
    /* The skin. */
    size_t joint_count;
    int *joint_nodes;      /* node of each joint */
    double *inverse_bind;  /* 16 per joint, column-major */
    /* The first animation. */
    size_t channel_count;
    gltf_channel *channels;
    double duration;       /* last key time over all channels */
} gltf_model;

/* Reads path. On failure returns false with a reason in err and *m empty. */
bool gltf_load(const char *path, gltf_model *m, char *err, size_t err_size);
void gltf_free(gltf_model *m);

/* Samples a channel at time t (clamped to its keys), into out (comps values);
 * rotations come out as unit quaternions. */
void gltf_sample(const gltf_channel *c, double t, double *out);

/* Global (world) matrices of every node at time t, column-major doubles,
 * 16 per node, animated TRS applied. */
void gltf_pose(const gltf_model *m, double t, double *world);

#endif /* SINEW_TEST_GLTF_READER_H */
