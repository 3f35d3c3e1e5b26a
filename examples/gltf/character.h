/* The skinned character of a glTF model as sinew sees it: the first node
 * with both a mesh and a skin, one part per mesh primitive, each with its
 * triangle list and the skin description sinew_skin_create takes.
 * Not part of the library. */
#ifndef SINEW_EXAMPLE_CHARACTER_H
#define SINEW_EXAMPLE_CHARACTER_H

#include "gltf.h"
#include "sinew.h"

typedef struct character_part {
    const gltf_primitive *primitive;
    size_t vertex_count;
    uint32_t *triangles;        /* 3 per triangle (strips and fans unrolled; no indices = 0, 1, 2, ...) */
    size_t triangle_count;
    sinew_skin_input rest;      /* positions and normals straight from the glTF buffers */
} character_part;

typedef struct character {
    const gltf_model *model;
    size_t node;                /* the skinned mesh node */
    const gltf_skin *skin;
    character_part *parts;
    size_t part_count;
    size_t vertex_count;        /* over all parts */
    size_t triangle_count;
} character;

/* Finds the character in a loaded model and prepares its parts. Returns
 * false with a message when the model has no skinned mesh or is out of memory. */
bool character_init(character *c, const gltf_model *model, char *err, size_t err_size);
void character_free(character *c);

/* The skin description of one part: JOINTS_0 and WEIGHTS_0 straight from the
 * glTF buffers (u8/u16 joints, float or normalised u8/u16 weights, with their
 * strides), the skin's inverse bind matrices, weights renormalised (exported
 * weights often sum to 1 only roughly). Valid while the part and the model live. */
sinew_skin_desc character_skin_desc(const character *c, const character_part *part);

#endif
