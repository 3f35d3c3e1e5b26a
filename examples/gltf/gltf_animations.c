/* glTF animations: samplers read into float key arrays (times strictly
 * increasing and finite, values finite, counts matching the interpolation)
 * and channels checked against the node they drive. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_internal.h"

static bool load_sampler(gltf_loader *ld, const json_value *v, const char *where, gltf_sampler *out)
{
    int input = GLTF_NONE, output = GLTF_NONE;
    char *interp = NULL;
    if (!gltf_expect_object(ld, v, where) || !gltf_index(ld, v, where, "input", ld->model->accessor_count, true, &input) ||
        !gltf_index(ld, v, where, "output", ld->model->accessor_count, true, &output) ||
        !gltf_string(ld, v, where, "interpolation", &interp))
        return false;
    out->interpolation = GLTF_LINEAR;
    if (interp && strcmp(interp, "STEP") == 0) out->interpolation = GLTF_STEP;
    else if (interp && strcmp(interp, "CUBICSPLINE") == 0) out->interpolation = GLTF_CUBICSPLINE;
    else if (interp && strcmp(interp, "LINEAR") != 0) {
        gltf_fail(ld, "%s.interpolation \"%s\" is not LINEAR, STEP or CUBICSPLINE", where, interp);
        free(interp);
        return false;
    }
    free(interp);
    const gltf_accessor *in = &ld->model->accessors[input], *values = &ld->model->accessors[output];
    if (in->component_type != GLTF_FLOAT || in->components != 1)
        return gltf_fail(ld, "%s.input (accessors[%d]) is not float SCALAR", where, input);
    size_t keys = in->count, per_key = out->interpolation == GLTF_CUBICSPLINE ? 3 : 1;
    /* Morph weights hold several values per key; their width is fixed by the channel, checked there. */
    if (values->count % (keys * per_key) != 0)
        return gltf_fail(ld, "%s.output has %zu elements for %zu keys (%s needs %zu per key)", where, values->count, keys,
                         per_key == 3 ? "CUBICSPLINE" : "LINEAR/STEP", per_key);
    size_t width = values->components * (values->count / (keys * per_key));
    out->times = malloc(keys * sizeof *out->times);
    out->values = malloc(keys * per_key * width * sizeof *out->values);
    if (!out->times || !out->values) return gltf_fail(ld, "out of memory");
    out->key_count = keys, out->width = width;
    for (size_t k = 0; k < keys; ++k) {
        float t = gltf_read_float(in, k, 0);
        if (!isfinite(t)) return gltf_fail(ld, "%s: key time %zu is not finite", where, k);
        if (k > 0 && !(t > out->times[k - 1]))
            return gltf_fail(ld, "%s: key time %zu (%g) is not after key %zu (%g)", where, k, t, k - 1, out->times[k - 1]);
        out->times[k] = t;
    }
    for (size_t e = 0; e < values->count; ++e)
        for (size_t c = 0; c < values->components; ++c) {
            float x = gltf_read_float(values, e, c);
            if (!isfinite(x)) return gltf_fail(ld, "%s.output element %zu component %zu is not finite", where, e, c);
            out->values[e * values->components + c] = x;
        }
    return true;
}

static bool load_channel(gltf_loader *ld, const json_value *v, const char *where, gltf_animation *anim, gltf_channel *out)
{
    int sampler = GLTF_NONE;
    char target_where[112];
    snprintf(target_where, sizeof target_where, "%s.target", where);
    if (!gltf_expect_object(ld, v, where) || !gltf_index(ld, v, where, "sampler", anim->sampler_count, true, &sampler))
        return false;
    const json_value *target = json_get(v, "target");
    if (!target) return gltf_fail(ld, "%s has no \"target\"", where);
    char *path = NULL;
    out->node = GLTF_NONE;
    if (!gltf_expect_object(ld, target, target_where) ||
        !gltf_index(ld, target, target_where, "node", ld->model->node_count, false, &out->node) ||
        !gltf_string(ld, target, target_where, "path", &path))
        return false;
    static const char *names[] = {"translation", "rotation", "scale", "weights"};
    static const size_t widths[] = {3, 4, 3, 0};
    int found = -1;
    for (int k = 0; path && k < 4; ++k)
        if (strcmp(path, names[k]) == 0) found = k;
    free(path);
    if (found < 0) return gltf_fail(ld, "%s.path is not translation, rotation, scale or weights", target_where);
    out->path = (gltf_path)found, out->sampler = (size_t)sampler;
    const gltf_sampler *s = &anim->samplers[sampler];
    if (widths[found] && s->width != widths[found])
        return gltf_fail(ld, "%s: samplers[%d] gives %zu values per key, %s needs %zu", where, sampler, s->width,
                         names[found], widths[found]);
    if (out->node != GLTF_NONE && found < 3 && ld->model->nodes[out->node].has_matrix)
        return gltf_fail(ld, "%s animates nodes[%d], which has a matrix (animated nodes must use TRS)", where, out->node);
    return true;
}

static bool load_animation(gltf_loader *ld, const json_value *v, size_t i)
{
    gltf_animation *anim = &ld->model->animations[i];
    char where[48];
    snprintf(where, sizeof where, "animations[%zu]", i);
    if (!gltf_expect_object(ld, v, where) || !gltf_string(ld, v, where, "name", &anim->name)) return false;
    const json_value *samplers = json_get(v, "samplers"), *channels = json_get(v, "channels");
    if (!samplers || samplers->type != JSON_ARRAY || samplers->length == 0)
        return gltf_fail(ld, "%s.samplers must be a non-empty array", where);
    if (!channels || channels->type != JSON_ARRAY || channels->length == 0)
        return gltf_fail(ld, "%s.channels must be a non-empty array", where);
    anim->samplers = calloc(samplers->length, sizeof *anim->samplers);
    anim->channels = calloc(channels->length, sizeof *anim->channels);
    if (!anim->samplers || !anim->channels) return gltf_fail(ld, "out of memory");
    anim->sampler_count = samplers->length;
    anim->channel_count = channels->length;
    for (size_t s = 0; s < samplers->length; ++s) {
        char sw[96];
        snprintf(sw, sizeof sw, "%s.samplers[%zu]", where, s);
        if (!load_sampler(ld, &samplers->items[s], sw, &anim->samplers[s])) return false;
        const gltf_sampler *x = &anim->samplers[s];
        if (s == 0 || x->times[0] < anim->start) anim->start = x->times[0];
        if (s == 0 || x->times[x->key_count - 1] > anim->end) anim->end = x->times[x->key_count - 1];
    }
    for (size_t c = 0; c < channels->length; ++c) {
        char cw[96];
        snprintf(cw, sizeof cw, "%s.channels[%zu]", where, c);
        if (!load_channel(ld, &channels->items[c], cw, anim, &anim->channels[c])) return false;
    }
    return true;
}

bool gltf_load_animations(gltf_loader *ld, const json_value *root)
{
    const json_value *items;
    size_t count;
    if (!gltf_array(ld, root, "animations", &items, &count)) return false;
    ld->model->animations = calloc(count ? count : 1, sizeof *ld->model->animations);
    if (!ld->model->animations) return gltf_fail(ld, "out of memory");
    ld->model->animation_count = count;
    for (size_t i = 0; i < count; ++i)
        if (!load_animation(ld, &items[i], i)) return false;
    return true;
}
