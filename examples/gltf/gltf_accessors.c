/* glTF buffer views and accessors: each accessor is resolved to a pointer,
 * a stride and a type, after checking that every element it names lies
 * inside its view and its buffer, so readers never check again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_internal.h"

typedef struct buffer_view {
    size_t buffer, offset, length, stride; /* stride 0 = packed */
} buffer_view;

static size_t component_size(int type)
{
    switch (type) {
    case GLTF_BYTE: case GLTF_UNSIGNED_BYTE: return 1;
    case GLTF_SHORT: case GLTF_UNSIGNED_SHORT: return 2;
    case GLTF_UNSIGNED_INT: case GLTF_FLOAT: return 4;
    default: return 0;
    }
}

static size_t type_components(const char *type)
{
    static const char *names[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};
    static const size_t counts[] = {1, 2, 3, 4, 4, 9, 16};
    for (size_t i = 0; i < 7; ++i)
        if (strcmp(type, names[i]) == 0) return counts[i];
    return 0;
}

static bool load_view(gltf_loader *ld, const json_value *v, size_t i, buffer_view *out)
{
    char where[48];
    snprintf(where, sizeof where, "bufferViews[%zu]", i);
    if (!gltf_expect_object(ld, v, where)) return false;
    int buffer = GLTF_NONE;
    size_t offset = 0, length, stride = 0;
    if (!gltf_index(ld, v, where, "buffer", ld->model->buffer_count, true, &buffer) ||
        !gltf_integer(ld, v, where, "byteOffset", 0, SIZE_MAX / 2, false, &offset) ||
        !gltf_integer(ld, v, where, "byteLength", 1, SIZE_MAX / 2, true, &length) ||
        !gltf_integer(ld, v, where, "byteStride", 4, 252, false, &stride))
        return false;
    if (stride % 4 != 0) return gltf_fail(ld, "%s.byteStride %zu is not a multiple of 4", where, stride);
    size_t size = ld->model->buffers[buffer].size;
    if (offset > size || length > size - offset)
        return gltf_fail(ld, "%s (bytes %zu..%zu) runs past the end of buffers[%d] (%zu bytes)", where, offset,
                         offset + length, buffer, size);
    *out = (buffer_view){(size_t)buffer, offset, length, stride};
    return true;
}

static bool load_accessor(gltf_loader *ld, const json_value *a, size_t i, const buffer_view *views, size_t view_count)
{
    char where[48];
    snprintf(where, sizeof where, "accessors[%zu]", i);
    if (!gltf_expect_object(ld, a, where)) return false;
    if (json_get(a, "sparse")) return gltf_fail(ld, "%s is sparse: sparse accessors are not supported by this loader", where);
    if (!json_get(a, "bufferView"))
        return gltf_fail(ld, "%s has no bufferView (an all-zero accessor): not supported by this loader", where);
    int view = GLTF_NONE;
    size_t type_code, offset = 0, count;
    char *type = NULL;
    if (!gltf_index(ld, a, where, "bufferView", view_count, true, &view) ||
        !gltf_integer(ld, a, where, "componentType", 0, 1u << 20, true, &type_code) ||
        !gltf_integer(ld, a, where, "byteOffset", 0, SIZE_MAX / 2, false, &offset) ||
        !gltf_integer(ld, a, where, "count", 1, SIZE_MAX / 2, true, &count) || !gltf_string(ld, a, where, "type", &type))
        return false;
    if (!type) return gltf_fail(ld, "%s has no \"type\"", where);
    size_t components = type_components(type);
    bool matrix = type[0] == 'M';
    free(type);
    const json_value *normalized = json_get(a, "normalized");
    size_t csize = component_size((int)type_code);
    if (csize == 0)
        return gltf_fail(ld, "%s.componentType %zu is not a glTF component type (5120, 5121, 5122, 5123, 5125, 5126)",
                         where, type_code);
    if (components == 0) return gltf_fail(ld, "%s.type is not SCALAR, VEC2..4 or MAT2..4", where);
    if (matrix && csize < 4) return gltf_fail(ld, "%s is a matrix of 8/16-bit components (padded columns): not supported", where);
    if (normalized && normalized->type != JSON_TRUE && normalized->type != JSON_FALSE)
        return gltf_fail(ld, "%s.normalized is not a boolean", where);
    bool norm = normalized && normalized->type == JSON_TRUE;
    if (norm && csize == 4) return gltf_fail(ld, "%s.normalized is true for a 32-bit component type", where);

    const buffer_view *bv = &views[view];
    size_t element = csize * components;
    size_t stride = bv->stride ? bv->stride : element;
    if (stride < element)
        return gltf_fail(ld, "%s: element of %zu bytes is wider than bufferViews[%d].byteStride %zu", where, element, view, stride);
    if ((bv->offset + offset) % csize != 0)
        return gltf_fail(ld, "%s: byte offset %zu in its buffer is not a multiple of its component size %zu", where,
                         bv->offset + offset, csize);
    /* The last element must end inside the view: offset + (count - 1) * stride + element <= length. */
    if (offset > bv->length || element > bv->length - offset || (count - 1) > (bv->length - offset - element) / stride)
        return gltf_fail(ld, "%s: %zu elements from byte %zu (stride %zu) run past the end of bufferViews[%d] (%zu bytes)",
                         where, count, offset, stride, view, bv->length);
    gltf_accessor *out = &ld->model->accessors[i];
    out->data = ld->model->buffers[bv->buffer].data + bv->offset + offset;
    out->stride = stride, out->count = count, out->component_type = (int)type_code;
    out->component_size = csize, out->components = components, out->normalized = norm;
    return true;
}

bool gltf_load_accessors(gltf_loader *ld, const json_value *root)
{
    const json_value *views_json, *items;
    size_t view_count, count;
    if (!gltf_array(ld, root, "bufferViews", &views_json, &view_count) || !gltf_array(ld, root, "accessors", &items, &count))
        return false;
    buffer_view *views = calloc(view_count ? view_count : 1, sizeof *views);
    ld->model->accessors = calloc(count ? count : 1, sizeof *ld->model->accessors);
    bool ok = views && ld->model->accessors ? true : gltf_fail(ld, "out of memory");
    ld->model->accessor_count = ok ? count : 0;
    for (size_t i = 0; ok && i < view_count; ++i) ok = load_view(ld, &views_json[i], i, &views[i]);
    for (size_t i = 0; ok && i < count; ++i) ok = load_accessor(ld, &items[i], i, views, view_count);
    free(views);
    return ok;
}

float gltf_read_float(const gltf_accessor *a, size_t i, size_t c)
{
    const uint8_t *p = a->data + i * a->stride + c * a->component_size;
    float f;
    switch (a->component_type) {
    case GLTF_FLOAT: memcpy(&f, p, 4); return f;
    case GLTF_BYTE: {
        float v = (float)(int8_t)p[0];
        return a->normalized ? (v / 127.0f < -1.0f ? -1.0f : v / 127.0f) : v;
    }
    case GLTF_UNSIGNED_BYTE: return a->normalized ? p[0] / 255.0f : (float)p[0];
    case GLTF_SHORT: {
        int16_t s;
        memcpy(&s, p, 2);
        return a->normalized ? (s / 32767.0f < -1.0f ? -1.0f : s / 32767.0f) : (float)s;
    }
    case GLTF_UNSIGNED_SHORT: {
        uint16_t s;
        memcpy(&s, p, 2);
        return a->normalized ? s / 65535.0f : (float)s;
    }
    default: return (float)gltf_read_uint(a, i, c);
    }
}

uint32_t gltf_read_uint(const gltf_accessor *a, size_t i, size_t c)
{
    const uint8_t *p = a->data + i * a->stride + c * a->component_size;
    uint16_t s;
    uint32_t u;
    switch (a->component_type) {
    case GLTF_UNSIGNED_BYTE: return p[0];
    case GLTF_UNSIGNED_SHORT: memcpy(&s, p, 2); return s;
    case GLTF_UNSIGNED_INT: memcpy(&u, p, 4); return u;
    default: return 0;
    }
}
