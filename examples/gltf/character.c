/* Character preparation: triangle lists and influences per primitive. */
#include "character.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Vertex of corner k in the primitive's index order (identity without indices). */
static uint32_t corner(const gltf_model *m, const gltf_primitive *p, size_t k)
{
    return p->indices == GLTF_NONE ? (uint32_t)k : gltf_read_uint(&m->accessors[p->indices], k, 0);
}

/* Unrolls triangles, strips or fans into a plain triangle list. */
static bool build_triangles(const gltf_model *m, character_part *part, char *err, size_t err_size)
{
    const gltf_primitive *p = part->primitive;
    size_t corners = p->indices == GLTF_NONE ? part->vertex_count : m->accessors[p->indices].count;
    size_t n = p->mode == 4 ? corners / 3 : corners >= 3 ? corners - 2 : 0;
    part->triangles = malloc((n ? n : 1) * 3 * sizeof *part->triangles);
    if (!part->triangles) {
        snprintf(err, err_size, "out of memory");
        return false;
    }
    for (size_t t = 0; t < n; ++t) {
        uint32_t *tri = part->triangles + 3 * t;
        if (p->mode == 4) {
            tri[0] = corner(m, p, 3 * t), tri[1] = corner(m, p, 3 * t + 1), tri[2] = corner(m, p, 3 * t + 2);
        } else if (p->mode == 5) { /* strip: every other triangle flips to keep the winding */
            tri[0] = corner(m, p, t + (t & 1)), tri[1] = corner(m, p, t + 1 - (t & 1)), tri[2] = corner(m, p, t + 2);
        } else { /* fan around corner 0 */
            tri[0] = corner(m, p, 0), tri[1] = corner(m, p, t + 1), tri[2] = corner(m, p, t + 2);
        }
    }
    part->triangle_count = n;
    return true;
}

bool character_init(character *c, const gltf_model *model, char *err, size_t err_size)
{
    memset(c, 0, sizeof *c);
    size_t node = 0;
    while (node < model->node_count && (model->nodes[node].mesh == GLTF_NONE || model->nodes[node].skin == GLTF_NONE)) ++node;
    if (node == model->node_count) {
        snprintf(err, err_size, "no node has both a mesh and a skin: nothing to skin");
        return false;
    }
    const gltf_mesh *mesh = &model->meshes[model->nodes[node].mesh];
    c->node = node;
    c->model = model;
    c->skin = &model->skins[model->nodes[node].skin];
    c->parts = calloc(mesh->primitive_count, sizeof *c->parts);
    if (!c->parts) {
        snprintf(err, err_size, "out of memory");
        return false;
    }
    c->part_count = mesh->primitive_count;
    for (size_t i = 0; i < mesh->primitive_count; ++i) {
        character_part *part = &c->parts[i];
        const gltf_primitive *p = &mesh->primitives[i];
        const gltf_accessor *pos = &model->accessors[p->position];
        part->primitive = p;
        part->vertex_count = pos->count;
        if (p->joints == GLTF_NONE) {
            snprintf(err, err_size, "nodes[%zu] mesh primitive %zu has no JOINTS_0/WEIGHTS_0", node, i);
            character_free(c);
            return false;
        }
        /* glTF puts attributes at 4-byte aligned offsets with strides that are
         * multiples of 4: sinew's stream rules hold as they are. */
        part->rest.positions = (const float *)(const void *)pos->data;
        part->rest.position_stride = pos->stride;
        if (p->normal != GLTF_NONE) {
            part->rest.normals = (const float *)(const void *)model->accessors[p->normal].data;
            part->rest.normal_stride = model->accessors[p->normal].stride;
        }
        if (!build_triangles(model, part, err, err_size)) {
            character_free(c);
            return false;
        }
        c->vertex_count += part->vertex_count;
        c->triangle_count += part->triangle_count;
    }
    return true;
}

void character_free(character *c)
{
    for (size_t i = 0; c->parts && i < c->part_count; ++i)
        free(c->parts[i].triangles);
    free(c->parts);
    memset(c, 0, sizeof *c);
}

sinew_skin_desc character_skin_desc(const character *c, const character_part *part)
{
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = part->vertex_count;
    d.joint_count = c->skin->joint_count;
    d.influence_count = 4;
    /* The loader checked the types (JOINTS_0 u8/u16, WEIGHTS_0 float or
     * normalised u8/u16), 4-byte strides and aligned offsets: sinew takes them as they are. */
    const gltf_accessor *joints = &c->model->accessors[part->primitive->joints];
    const gltf_accessor *weights = &c->model->accessors[part->primitive->weights];
    d.joints = joints->data;
    d.joint_type = joints->component_type == GLTF_UNSIGNED_BYTE ? SINEW_INDEX_U8 : SINEW_INDEX_U16;
    d.joint_stride = joints->stride;
    d.weights = weights->data;
    d.weight_type = weights->component_type == GLTF_FLOAT           ? SINEW_SKIN_WEIGHT_F32
                  : weights->component_type == GLTF_UNSIGNED_SHORT ? SINEW_SKIN_WEIGHT_UNORM16
                                                                   : SINEW_SKIN_WEIGHT_UNORM8;
    d.weight_stride = weights->stride;
    d.inverse_bind = c->skin->inverse_bind;
    d.renormalise = 1;
    return d;
}
