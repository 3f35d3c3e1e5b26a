/* Animation sampling (STEP, LINEAR with slerp, CUBICSPLINE Hermite) and the
 * node hierarchy walk that turns local transforms into world matrices. */
#include "animation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

bool pose_init(pose *p, const gltf_model *model)
{
    size_t n = model->node_count ? model->node_count : 1;
    memset(p, 0, sizeof *p);
    p->node_count = model->node_count;
    p->translation = malloc(3 * n * sizeof(float));
    p->rotation = malloc(4 * n * sizeof(float));
    p->scale = malloc(3 * n * sizeof(float));
    p->world = malloc(16 * n * sizeof(float));
    p->order = malloc(n * sizeof(size_t));
    if (!p->translation || !p->rotation || !p->scale || !p->world || !p->order) {
        pose_free(p);
        return false;
    }
    /* Breadth-first from the roots: the loader refused cycles and shared
     * children, so every node is reached exactly once, after its parent. */
    size_t count = 0;
    for (size_t i = 0; i < model->node_count; ++i)
        if (model->nodes[i].parent == GLTF_NONE) p->order[count++] = i;
    for (size_t k = 0; k < count; ++k) {
        const gltf_node *node = &model->nodes[p->order[k]];
        for (size_t c = 0; c < node->child_count; ++c) p->order[count++] = node->children[c];
    }
    return true;
}

void pose_free(pose *p)
{
    free(p->translation), free(p->rotation), free(p->scale), free(p->world), free(p->order);
    memset(p, 0, sizeof *p);
}

/* Index k of the last key at or before t (t inside the keys). */
static size_t find_key(const gltf_sampler *s, float t)
{
    size_t lo = 0, hi = s->key_count - 1;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->times[mid] <= t) lo = mid;
        else hi = mid;
    }
    return lo;
}

static void normalize4(float *q)
{
    double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    if (len > 0)
        for (int i = 0; i < 4; ++i) q[i] = (float)(q[i] / len);
    else
        q[0] = q[1] = q[2] = 0, q[3] = 1;
}

/* Spherical interpolation along the shorter arc; nearly equal quaternions
 * (where sin(theta) vanishes) fall back to a normalised lerp. */
static void slerp(const float *a, const float *b, float u, float *out)
{
    double dot = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
    double sign = dot < 0 ? -1 : 1, wa = 1 - u, wb = u;
    dot *= sign;
    if (dot < 0.9995) {
        double theta = acos(dot), s = sin(theta);
        wa = sin((1 - u) * theta) / s, wb = sin(u * theta) / s;
    }
    for (int i = 0; i < 4; ++i) out[i] = (float)(wa * a[i] + wb * sign * b[i]);
    normalize4(out);
}

/* The sampler's value at t, before rotations are renormalised. */
static void sampler_value(const gltf_sampler *s, float t, bool rotation, float *out)
{
    size_t w = s->width, last = s->key_count - 1;
    bool cubic = s->interpolation == GLTF_CUBICSPLINE;
    /* Cubic keys are (in-tangent, value, out-tangent) triples; the value is the middle one. */
    size_t key_floats = cubic ? 3 * w : w, value_at = cubic ? w : 0;
    if (t <= s->times[0] || last == 0) {
        memcpy(out, s->values + value_at, w * sizeof(float));
        return;
    }
    if (t >= s->times[last]) {
        memcpy(out, s->values + last * key_floats + value_at, w * sizeof(float));
        return;
    }
    size_t k = find_key(s, t);
    float dt = s->times[k + 1] - s->times[k], u = (t - s->times[k]) / dt;
    const float *v0 = s->values + k * key_floats + value_at, *v1 = s->values + (k + 1) * key_floats + value_at;
    if (s->interpolation == GLTF_STEP) {
        memcpy(out, v0, w * sizeof(float));
    } else if (!cubic && rotation) {
        slerp(v0, v1, u, out);
    } else if (!cubic) {
        for (size_t i = 0; i < w; ++i) out[i] = v0[i] + u * (v1[i] - v0[i]);
    } else {
        /* Hermite spline: out-tangent of key k, in-tangent of key k + 1, both scaled by the key interval. */
        const float *b0 = v0 + w, *a1 = v1 - w;
        float u2 = u * u, u3 = u2 * u;
        float h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
        for (size_t i = 0; i < w; ++i) out[i] = h00 * v0[i] + h10 * dt * b0[i] + h01 * v1[i] + h11 * dt * a1[i];
    }
}

void sampler_evaluate(const gltf_sampler *s, float t, bool rotation, float *out)
{
    sampler_value(s, t, rotation, out);
    /* Keys should be unit quaternions but are stored rounded (or quantised):
     * the matrix built from a rotation assumes unit length. */
    if (rotation) normalize4(out);
}

/* Column-major T * R * S. */
static void compose_trs(const float *t, const float *q, const float *s, float *m)
{
    float x = q[0], y = q[1], z = q[2], w = q[3];
    float r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
                  2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                  2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; ++c) {
        for (int row = 0; row < 3; ++row) m[4 * c + row] = r[3 * c + row] * s[c];
        m[4 * c + 3] = 0;
    }
    m[12] = t[0], m[13] = t[1], m[14] = t[2], m[15] = 1;
}

void pose_sample(pose *p, const gltf_model *model, const gltf_animation *anim, float time)
{
    for (size_t i = 0; i < model->node_count; ++i) {
        const gltf_node *n = &model->nodes[i];
        memcpy(p->translation + 3 * i, n->translation, 3 * sizeof(float));
        memcpy(p->rotation + 4 * i, n->rotation, 4 * sizeof(float));
        memcpy(p->scale + 3 * i, n->scale, 3 * sizeof(float));
    }
    for (size_t c = 0; anim && c < anim->channel_count; ++c) {
        const gltf_channel *ch = &anim->channels[c];
        if (ch->node == GLTF_NONE || ch->path == GLTF_WEIGHTS) continue; /* morph weights: not played here */
        size_t node = (size_t)ch->node;
        float *target = ch->path == GLTF_TRANSLATION ? p->translation + 3 * node
                      : ch->path == GLTF_ROTATION    ? p->rotation + 4 * node
                                                     : p->scale + 3 * node;
        sampler_evaluate(&anim->samplers[ch->sampler], time, ch->path == GLTF_ROTATION, target);
    }
    for (size_t k = 0; k < model->node_count; ++k) {
        size_t i = p->order[k];
        const gltf_node *n = &model->nodes[i];
        float local[16];
        if (n->has_matrix) memcpy(local, n->matrix, sizeof local);
        else compose_trs(p->translation + 3 * i, p->rotation + 4 * i, p->scale + 3 * i, local);
        if (n->parent == GLTF_NONE) memcpy(p->world + 16 * i, local, sizeof local);
        else support_mat4_multiply(p->world + 16 * (size_t)n->parent, local, p->world + 16 * i);
    }
}

void pose_joint_world(const pose *p, const gltf_skin *skin, float *joint_world)
{
    for (size_t j = 0; j < skin->joint_count; ++j)
        memcpy(joint_world + 16 * j, p->world + 16 * skin->joints[j], 16 * sizeof(float));
}
