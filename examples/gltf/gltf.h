/* A small glTF 2.0 loader for the example: .gltf with data: URIs or external
 * .bin files, and .glb. It reads what a skinned character needs (meshes,
 * skins, the node hierarchy, animations) and checks every index, offset and
 * count against what it refers to, so the rest of the program can read the
 * buffers without further checks. Failures give a message naming the element
 * ("accessors[3].componentType 5124 is not a glTF component type").
 * Not part of the library. */
#ifndef SINEW_EXAMPLE_GLTF_H
#define SINEW_EXAMPLE_GLTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { GLTF_NONE = -1 };

/* glTF component types (accessor.componentType). */
enum {
    GLTF_BYTE = 5120, GLTF_UNSIGNED_BYTE = 5121, GLTF_SHORT = 5122, GLTF_UNSIGNED_SHORT = 5123,
    GLTF_UNSIGNED_INT = 5125, GLTF_FLOAT = 5126
};

typedef struct gltf_buffer {
    uint8_t *data;
    size_t size;
} gltf_buffer;

/* An accessor resolved to bytes: element i, component c is at
 * data + i * stride + c * component_size, and every such byte lies inside its
 * buffer (checked at load). */
typedef struct gltf_accessor {
    const uint8_t *data;
    size_t stride;          /* bytes between elements (the view's byteStride, else packed) */
    size_t count;
    int component_type;     /* GLTF_BYTE ... GLTF_FLOAT */
    size_t component_size;  /* bytes */
    size_t components;      /* 1 (SCALAR) .. 16 (MAT4) */
    bool normalized;
} gltf_accessor;

/* Accessor indices of one primitive (GLTF_NONE = absent). */
typedef struct gltf_primitive {
    int position, normal, tangent, joints, weights, indices;
    int mode;               /* 4 triangles, 5 strip, 6 fan (others are refused) */
} gltf_primitive;

typedef struct gltf_mesh {
    char *name;
    gltf_primitive *primitives;
    size_t primitive_count;
} gltf_mesh;

typedef struct gltf_node {
    char *name;
    int mesh, skin, parent;       /* GLTF_NONE when absent; parent from the children lists */
    size_t *children;
    size_t child_count;
    bool has_matrix;              /* matrix given instead of TRS */
    float matrix[16];             /* column-major */
    float translation[3], rotation[4], scale[3];  /* rotation x, y, z, w */
} gltf_node;

typedef struct gltf_skin {
    char *name;
    size_t *joints;               /* node indices */
    size_t joint_count;
    float *inverse_bind;          /* 16 floats per joint, identity when the file gives none */
    int skeleton;                 /* node or GLTF_NONE */
} gltf_skin;

typedef enum gltf_interpolation { GLTF_LINEAR, GLTF_STEP, GLTF_CUBICSPLINE } gltf_interpolation;
typedef enum gltf_path { GLTF_TRANSLATION, GLTF_ROTATION, GLTF_SCALE, GLTF_WEIGHTS } gltf_path;

/* A sampler with its keys read into floats (normalised integers converted). */
typedef struct gltf_sampler {
    gltf_interpolation interpolation;
    float *times;                 /* key_count, strictly increasing, finite */
    size_t key_count;
    float *values;                /* key_count * width (3 * that for CUBICSPLINE: in-tangent, value, out-tangent) */
    size_t width;                 /* floats per key value */
} gltf_sampler;

typedef struct gltf_channel {
    size_t sampler;
    int node;                     /* GLTF_NONE: no target node (ignored) */
    gltf_path path;
} gltf_channel;

typedef struct gltf_animation {
    char *name;
    gltf_sampler *samplers;
    size_t sampler_count;
    gltf_channel *channels;
    size_t channel_count;
    float start, end;             /* first and last key time over all samplers */
} gltf_animation;

typedef struct gltf_model {
    gltf_buffer *buffers;
    size_t buffer_count;
    gltf_accessor *accessors;
    size_t accessor_count;
    gltf_mesh *meshes;
    size_t mesh_count;
    gltf_node *nodes;
    size_t node_count;
    gltf_skin *skins;
    size_t skin_count;
    gltf_animation *animations;
    size_t animation_count;
} gltf_model;

/* Loads a .gltf or .glb file (chosen by its first bytes); external buffers
 * are read relative to the file's folder. Returns true and fills *model, or
 * false with a message in err and *model empty. Free with gltf_free. */
bool gltf_load_file(const char *path, gltf_model *model, char *err, size_t err_size);

/* Loads from memory: a .gltf text or .glb bytes. folder (may be NULL: then
 * external buffers are refused) resolves relative buffer URIs. */
bool gltf_load_memory(const void *data, size_t size, const char *folder, gltf_model *model, char *err,
                      size_t err_size);

void gltf_free(gltf_model *model);

/* Component c of element i as a float: normalised integers mapped to [0, 1]
 * or [-1, 1] as glTF says, other integers converted as they are. */
float gltf_read_float(const gltf_accessor *a, size_t i, size_t c);
/* Component c of element i as an unsigned integer (integer accessors only). */
uint32_t gltf_read_uint(const gltf_accessor *a, size_t i, size_t c);

#endif
