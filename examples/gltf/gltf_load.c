/* glTF document loading: the .glb container, the JSON, then each section in
 * dependency order (buffers, accessors, meshes, nodes, skins, animations). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_internal.h"

static uint32_t read_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Splits a .glb into its JSON chunk and optional BIN chunk. */
static bool split_glb(gltf_loader *ld, const uint8_t *data, size_t size, const uint8_t **json, size_t *json_size)
{
    if (size < 20) return gltf_fail(ld, "glb: %zu bytes, shorter than a header and one chunk header", size);
    uint32_t version = read_u32le(data + 4), length = read_u32le(data + 8);
    if (version != 2) return gltf_fail(ld, "glb: container version %u, expected 2", version);
    if (length != size) return gltf_fail(ld, "glb: header says %u bytes, the data has %zu", length, size);
    size_t pos = 12;
    for (int chunk = 0; pos < size; ++chunk) {
        if (size - pos < 8) return gltf_fail(ld, "glb: chunk %d header is cut off at byte %zu", chunk, pos);
        uint32_t chunk_length = read_u32le(data + pos), type = read_u32le(data + pos + 4);
        pos += 8;
        if (chunk_length > size - pos) return gltf_fail(ld, "glb: chunk %d (%u bytes) runs past the end of the file", chunk, chunk_length);
        if (chunk_length % 4 != 0) return gltf_fail(ld, "glb: chunk %d length %u is not a multiple of 4", chunk, chunk_length);
        if (chunk == 0 && type != 0x4E4F534Au) return gltf_fail(ld, "glb: the first chunk is not JSON");
        if (chunk == 0) *json = data + pos, *json_size = chunk_length;
        if (chunk == 1 && type == 0x004E4942u) ld->glb_bin = data + pos, ld->glb_bin_size = chunk_length;
        pos += chunk_length;
    }
    return true;
}

static bool load_primitive(gltf_loader *ld, const json_value *p, const char *where, gltf_primitive *out)
{
    if (!gltf_expect_object(ld, p, where)) return false;
    *out = (gltf_primitive){GLTF_NONE, GLTF_NONE, GLTF_NONE, GLTF_NONE, GLTF_NONE, GLTF_NONE, 4};
    const json_value *attrs = json_get(p, "attributes");
    char at[160];
    snprintf(at, sizeof at, "%s.attributes", where);
    if (!attrs) return gltf_fail(ld, "%s has no \"attributes\"", where);
    if (!gltf_expect_object(ld, attrs, at)) return false;
    size_t n = ld->model->accessor_count, mode = 4;
    if (!gltf_index(ld, attrs, at, "POSITION", n, true, &out->position) ||
        !gltf_index(ld, attrs, at, "NORMAL", n, false, &out->normal) ||
        !gltf_index(ld, attrs, at, "TANGENT", n, false, &out->tangent) ||
        !gltf_index(ld, attrs, at, "JOINTS_0", n, false, &out->joints) ||
        !gltf_index(ld, attrs, at, "WEIGHTS_0", n, false, &out->weights) ||
        !gltf_index(ld, p, where, "indices", n, false, &out->indices) ||
        !gltf_integer(ld, p, where, "mode", 0, 6, false, &mode))
        return false;
    if (json_get(attrs, "JOINTS_1") || json_get(attrs, "WEIGHTS_1"))
        return gltf_fail(ld, "%s has JOINTS_1/WEIGHTS_1 (more than 4 influences): not supported by this loader", at);
    if (mode < 4) return gltf_fail(ld, "%s.mode %zu is points or lines: only triangles, strips and fans are read", where, mode);
    out->mode = (int)mode;

    const gltf_accessor *acc = ld->model->accessors;
    const gltf_accessor *pos = &acc[out->position];
    if (pos->component_type != GLTF_FLOAT || pos->components != 3) return gltf_fail(ld, "%s.POSITION is not float VEC3", at);
    /* Each optional attribute: its accessor, the types glTF allows, and its count. */
    struct { int index; const char *name; size_t components; bool ok_types; } checks[] = {
        {out->normal, "NORMAL", 3, true}, {out->tangent, "TANGENT", 4, true},
        {out->joints, "JOINTS_0", 4, true}, {out->weights, "WEIGHTS_0", 4, true}};
    for (size_t k = 0; k < 4; ++k) {
        if (checks[k].index == GLTF_NONE) continue;
        const gltf_accessor *a = &acc[checks[k].index];
        int t = a->component_type;
        bool type_ok = k < 2 ? t == GLTF_FLOAT
                     : k == 2 ? (t == GLTF_UNSIGNED_BYTE || t == GLTF_UNSIGNED_SHORT) && !a->normalized
                              : t == GLTF_FLOAT || ((t == GLTF_UNSIGNED_BYTE || t == GLTF_UNSIGNED_SHORT) && a->normalized);
        static const char *allowed[] = {"float", "float", "unsigned byte or short", "float or normalized unsigned byte or short"};
        if (!type_ok || a->components != checks[k].components)
            return gltf_fail(ld, "%s.%s (accessors[%d]) must be VEC%zu of %s", at, checks[k].name, checks[k].index,
                             checks[k].components, allowed[k]);
        if (a->count != pos->count)
            return gltf_fail(ld, "%s.%s has %zu elements, POSITION has %zu", at, checks[k].name, a->count, pos->count);
    }
    if ((out->joints == GLTF_NONE) != (out->weights == GLTF_NONE))
        return gltf_fail(ld, "%s has one of JOINTS_0 and WEIGHTS_0 without the other", at);
    if (out->indices != GLTF_NONE) {
        const gltf_accessor *ix = &acc[out->indices];
        int t = ix->component_type;
        if (ix->components != 1 || ix->normalized || (t != GLTF_UNSIGNED_BYTE && t != GLTF_UNSIGNED_SHORT && t != GLTF_UNSIGNED_INT))
            return gltf_fail(ld, "%s.indices (accessors[%d]) must be SCALAR unsigned byte, short or int", where, out->indices);
        for (size_t i = 0; i < ix->count; ++i)
            if (gltf_read_uint(ix, i, 0) >= pos->count)
                return gltf_fail(ld, "%s.indices[%zu] is %u, past the %zu vertices", where, i, gltf_read_uint(ix, i, 0), pos->count);
    }
    return true;
}

static bool load_meshes(gltf_loader *ld, const json_value *root)
{
    const json_value *items;
    size_t count;
    if (!gltf_array(ld, root, "meshes", &items, &count)) return false;
    gltf_model *m = ld->model;
    m->meshes = calloc(count ? count : 1, sizeof *m->meshes);
    if (!m->meshes) return gltf_fail(ld, "out of memory");
    m->mesh_count = count;
    for (size_t i = 0; i < count; ++i) {
        char where[64];
        snprintf(where, sizeof where, "meshes[%zu]", i);
        if (!gltf_expect_object(ld, &items[i], where) || !gltf_string(ld, &items[i], where, "name", &m->meshes[i].name))
            return false;
        const json_value *prims = json_get(&items[i], "primitives");
        if (!prims || prims->type != JSON_ARRAY || prims->length == 0)
            return gltf_fail(ld, "%s.primitives must be a non-empty array", where);
        m->meshes[i].primitives = calloc(prims->length, sizeof *m->meshes[i].primitives);
        if (!m->meshes[i].primitives) return gltf_fail(ld, "out of memory");
        m->meshes[i].primitive_count = prims->length;
        for (size_t p = 0; p < prims->length; ++p) {
            char pw[128];
            snprintf(pw, sizeof pw, "%s.primitives[%zu]", where, p);
            if (!load_primitive(ld, &prims->items[p], pw, &m->meshes[i].primitives[p])) return false;
        }
    }
    return true;
}

static bool load_node(gltf_loader *ld, const json_value *v, size_t i)
{
    gltf_node *node = &ld->model->nodes[i];
    size_t count = ld->model->node_count;
    char where[48];
    snprintf(where, sizeof where, "nodes[%zu]", i);
    if (!gltf_expect_object(ld, v, where) || !gltf_string(ld, v, where, "name", &node->name) ||
        !gltf_index(ld, v, where, "mesh", ld->model->mesh_count, false, &node->mesh) ||
        !gltf_index(ld, v, where, "skin", ld->model->skin_count, false, &node->skin) ||
        !gltf_floats(ld, v, where, "matrix", 16, node->matrix) ||
        !gltf_floats(ld, v, where, "translation", 3, node->translation) ||
        !gltf_floats(ld, v, where, "rotation", 4, node->rotation) || !gltf_floats(ld, v, where, "scale", 3, node->scale))
        return false;
    node->has_matrix = json_get(v, "matrix") != NULL;
    if (node->has_matrix && (json_get(v, "translation") || json_get(v, "rotation") || json_get(v, "scale")))
        return gltf_fail(ld, "%s has both a matrix and translation/rotation/scale", where);
    if (node->has_matrix && (node->matrix[3] != 0 || node->matrix[7] != 0 || node->matrix[11] != 0 || node->matrix[15] != 1))
        return gltf_fail(ld, "%s.matrix is not affine (last row must be 0 0 0 1)", where);
    const float *q = node->rotation;
    double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    if (!(len > 0.5 && len < 1.5)) return gltf_fail(ld, "%s.rotation has length %g, expected a unit quaternion", where, len);
    for (int k = 0; k < 4; ++k) node->rotation[k] = (float)(q[k] / len);
    const json_value *children = json_get(v, "children");
    if (!children) return true;
    if (children->type != JSON_ARRAY) return gltf_fail(ld, "%s.children is not an array", where);
    node->children = malloc((children->length ? children->length : 1) * sizeof *node->children);
    if (!node->children) return gltf_fail(ld, "out of memory");
    for (size_t c = 0; c < children->length; ++c) {
        const json_value *x = &children->items[c];
        if (x->type != JSON_NUMBER || x->number != floor(x->number) || x->number < 0 || x->number >= (double)count)
            return gltf_fail(ld, "%s.children[%zu] is not a node index below %zu", where, c, count);
        node->children[node->child_count++] = (size_t)x->number;
    }
    return true;
}

/* Parents from the children lists; a node listed twice, or its own ancestor,
 * is refused (glTF nodes form disjoint trees). */
static bool link_nodes(gltf_loader *ld)
{
    gltf_model *m = ld->model;
    for (size_t i = 0; i < m->node_count; ++i)
        for (size_t c = 0; c < m->nodes[i].child_count; ++c) {
            gltf_node *child = &m->nodes[m->nodes[i].children[c]];
            if (child->parent != GLTF_NONE)
                return gltf_fail(ld, "nodes[%zu] is a child of both nodes[%d] and nodes[%zu]", m->nodes[i].children[c],
                                 child->parent, i);
            child->parent = (int)i;
        }
    for (size_t i = 0; i < m->node_count; ++i) {
        size_t steps = 0;
        for (int p = m->nodes[i].parent; p != GLTF_NONE; p = m->nodes[p].parent)
            if (++steps > m->node_count) return gltf_fail(ld, "nodes[%zu] is its own ancestor (a cycle in children)", i);
    }
    return true;
}

static bool load_nodes(gltf_loader *ld, const json_value *root)
{
    const json_value *items;
    size_t count;
    if (!gltf_array(ld, root, "nodes", &items, &count)) return false;
    gltf_model *m = ld->model;
    m->nodes = calloc(count ? count : 1, sizeof *m->nodes);
    if (!m->nodes) return gltf_fail(ld, "out of memory");
    m->node_count = count;
    for (size_t i = 0; i < count; ++i) {
        gltf_node *n = &m->nodes[i];
        n->mesh = n->skin = n->parent = GLTF_NONE;
        n->rotation[3] = 1, n->scale[0] = n->scale[1] = n->scale[2] = 1;
        n->matrix[0] = n->matrix[5] = n->matrix[10] = n->matrix[15] = 1;
    }
    for (size_t i = 0; i < count; ++i)
        if (!load_node(ld, &items[i], i)) return false;
    return link_nodes(ld);
}

static bool load_skin(gltf_loader *ld, const json_value *v, size_t i)
{
    gltf_skin *skin = &ld->model->skins[i];
    char where[48];
    snprintf(where, sizeof where, "skins[%zu]", i);
    int inverse = GLTF_NONE;
    skin->skeleton = GLTF_NONE;
    if (!gltf_expect_object(ld, v, where) || !gltf_string(ld, v, where, "name", &skin->name) ||
        !gltf_index(ld, v, where, "skeleton", ld->model->node_count, false, &skin->skeleton) ||
        !gltf_index(ld, v, where, "inverseBindMatrices", ld->model->accessor_count, false, &inverse))
        return false;
    const json_value *joints = json_get(v, "joints");
    if (!joints || joints->type != JSON_ARRAY || joints->length == 0)
        return gltf_fail(ld, "%s.joints must be a non-empty array", where);
    size_t n = joints->length;
    skin->joints = malloc(n * sizeof *skin->joints);
    skin->inverse_bind = calloc(n * 16, sizeof *skin->inverse_bind);
    if (!skin->joints || !skin->inverse_bind) return gltf_fail(ld, "out of memory");
    skin->joint_count = n;
    for (size_t j = 0; j < n; ++j) {
        const json_value *x = &joints->items[j];
        if (x->type != JSON_NUMBER || x->number != floor(x->number) || x->number < 0 || x->number >= (double)ld->model->node_count)
            return gltf_fail(ld, "%s.joints[%zu] is not a node index below %zu", where, j, ld->model->node_count);
        skin->joints[j] = (size_t)x->number;
        float *m = skin->inverse_bind + 16 * j;
        m[0] = m[5] = m[10] = m[15] = 1;
    }
    if (inverse == GLTF_NONE) return true;
    const gltf_accessor *a = &ld->model->accessors[inverse];
    if (a->component_type != GLTF_FLOAT || a->components != 16)
        return gltf_fail(ld, "%s.inverseBindMatrices (accessors[%d]) is not float MAT4", where, inverse);
    if (a->count < n)
        return gltf_fail(ld, "%s.inverseBindMatrices has %zu matrices for %zu joints", where, a->count, n);
    for (size_t j = 0; j < n; ++j)
        for (size_t k = 0; k < 16; ++k) {
            float x = gltf_read_float(a, j, k);
            if (!isfinite(x)) return gltf_fail(ld, "%s.inverseBindMatrices[%zu] element %zu is not finite", where, j, k);
            skin->inverse_bind[16 * j + k] = x;
        }
    return true;
}

static bool load_skins(gltf_loader *ld, const json_value *root)
{
    const json_value *items;
    size_t count;
    if (!gltf_array(ld, root, "skins", &items, &count)) return false;
    ld->model->skins = calloc(count ? count : 1, sizeof *ld->model->skins);
    if (!ld->model->skins) return gltf_fail(ld, "out of memory");
    ld->model->skin_count = count;
    for (size_t i = 0; i < count; ++i)
        if (!load_skin(ld, &items[i], i)) return false;
    return true;
}

/* asset.version "2.x", and no required extension (this loader implements none). */
static bool check_header(gltf_loader *ld, const json_value *root)
{
    if (!gltf_expect_object(ld, root, "the document")) return false;
    const json_value *asset = json_get(root, "asset");
    if (!asset || asset->type != JSON_OBJECT) return gltf_fail(ld, "the document has no \"asset\" object");
    const json_value *version = json_get(asset, "version");
    if (!version || version->type != JSON_STRING || strncmp(version->string, "2.", 2) != 0)
        return gltf_fail(ld, "asset.version is not \"2.x\": not a glTF 2 file");
    const json_value *required = json_get(root, "extensionsRequired");
    if (required && required->type == JSON_ARRAY && required->length > 0)
        return gltf_fail(ld, "the file requires extension %s, which this loader does not implement",
                         required->items[0].type == JSON_STRING ? required->items[0].string : "(unnamed)");
    return true;
}

bool gltf_load_memory(const void *data, size_t size, const char *folder, gltf_model *model, char *err, size_t err_size)
{
    memset(model, 0, sizeof *model);
    gltf_loader ld = {model, folder, NULL, 0, err, err_size};
    const uint16_t probe = 1;
    if (*(const uint8_t *)&probe != 1) return gltf_fail(&ld, "this loader reads glTF's little-endian data in place: big-endian hosts are not supported");
    const uint8_t *bytes = data;
    const uint8_t *text = bytes;
    size_t text_size = size;
    if (size >= 4 && memcmp(bytes, "glTF", 4) == 0 && !split_glb(&ld, bytes, size, &text, &text_size)) return false;
    json_value root;
    char json_err[256];
    if (!json_parse((const char *)text, text_size, &root, json_err, sizeof json_err))
        return gltf_fail(&ld, "JSON: %s", json_err);
    bool ok = check_header(&ld, &root) && gltf_load_buffers(&ld, &root) && gltf_load_accessors(&ld, &root) &&
              load_meshes(&ld, &root);
    /* Nodes refer to skins and skins to nodes: count the skins first. */
    const json_value *skins = json_get(&root, "skins");
    model->skin_count = ok && skins && skins->type == JSON_ARRAY ? skins->length : 0;
    ok = ok && load_nodes(&ld, &root) && load_skins(&ld, &root) && gltf_load_animations(&ld, &root);
    json_free(&root);
    if (!ok) gltf_free(model);
    return ok;
}

bool gltf_load_file(const char *path, gltf_model *model, char *err, size_t err_size)
{
    uint8_t *data;
    size_t size;
    memset(model, 0, sizeof *model);
    if (!gltf_read_file(path, &data, &size, err, err_size)) return false;
    char folder[4096];
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 1;
    if (n >= sizeof folder) n = sizeof folder - 1;
    memcpy(folder, slash ? path : ".", n);
    folder[n] = '\0';
    bool ok = gltf_load_memory(data, size, folder, model, err, err_size);
    free(data);
    return ok;
}

void gltf_free(gltf_model *m)
{
    for (size_t i = 0; m->buffers && i < m->buffer_count; ++i) free(m->buffers[i].data);
    for (size_t i = 0; m->meshes && i < m->mesh_count; ++i) free(m->meshes[i].name), free(m->meshes[i].primitives);
    for (size_t i = 0; m->nodes && i < m->node_count; ++i) free(m->nodes[i].name), free(m->nodes[i].children);
    for (size_t i = 0; m->skins && i < m->skin_count; ++i)
        free(m->skins[i].name), free(m->skins[i].joints), free(m->skins[i].inverse_bind);
    for (size_t i = 0; m->animations && i < m->animation_count; ++i) {
        gltf_animation *a = &m->animations[i];
        for (size_t s = 0; a->samplers && s < a->sampler_count; ++s) free(a->samplers[s].times), free(a->samplers[s].values);
        free(a->name), free(a->samplers), free(a->channels);
    }
    free(m->buffers), free(m->accessors), free(m->meshes), free(m->nodes), free(m->skins), free(m->animations);
    memset(m, 0, sizeof *m);
}
