/* The orthographic camera of a panel and its fit to what it must show. */
#include <math.h>

#include "render.h"

static float dot(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void render_view_axes(render_view *v, const float right[3], const float up[3])
{
    for (int k = 0; k < 3; ++k) v->right[k] = right[k], v->up[k] = up[k], v->lo[k] = INFINITY, v->hi[k] = -INFINITY;
    /* forward = up x right: away from the viewer in a right-handed world */
    v->forward[0] = up[1] * right[2] - up[2] * right[1];
    v->forward[1] = up[2] * right[0] - up[0] * right[2];
    v->forward[2] = up[0] * right[1] - up[1] * right[0];
    v->x0 = v->y0 = v->x1 = v->y1 = 0;
    v->scale = 1, v->origin_x = v->origin_y = 0, v->depth_span = 1;
}

void render_view_init(render_view *v, float yaw_degrees, float pitch_degrees)
{
    const float yaw = yaw_degrees * 3.14159265f / 180.0f, pitch = pitch_degrees * 3.14159265f / 180.0f;
    /* The viewer sits at direction (sin yaw cos pitch, sin pitch, cos yaw cos pitch) from the centre. */
    const float right[3] = {cosf(yaw), 0, -sinf(yaw)};
    const float up[3] = {-sinf(yaw) * sinf(pitch), cosf(pitch), -cosf(yaw) * sinf(pitch)};
    render_view_axes(v, right, up);
}

void render_view_include(render_view *v, const float *positions, size_t count)
{
    const float *axis[3] = {v->right, v->up, v->forward};
    for (size_t i = 0; i < count; ++i)
        for (int k = 0; k < 3; ++k) {
            float d = dot(positions + 3 * i, axis[k]);
            if (!isfinite(d)) continue;
            v->lo[k] = fminf(v->lo[k], d), v->hi[k] = fmaxf(v->hi[k], d);
        }
}

void render_view_fit(render_view *v, const render_canvas *c, int panel, int margin, int top_pixels)
{
    const int s = c->samples, col = panel % c->cols, row = panel / c->cols;
    v->x0 = col * c->panel_width * s, v->y0 = row * c->panel_height * s;
    v->x1 = v->x0 + c->panel_width * s, v->y1 = v->y0 + c->panel_height * s;
    float left = (float)(v->x0 + margin * s), top = (float)(v->y0 + (margin + top_pixels) * s);
    float width = (float)(v->x1 - margin * s) - left, height = (float)(v->y1 - margin * s) - top;
    if (!(v->lo[0] <= v->hi[0])) { /* nothing included: a unit box at the origin */
        for (int k = 0; k < 3; ++k) v->lo[k] = -1, v->hi[k] = 1;
    }
    float w = v->hi[0] - v->lo[0], h = v->hi[1] - v->lo[1];
    v->scale = fminf(width / fmaxf(w, 1e-6f), height / fmaxf(h, 1e-6f));
    v->origin_x = left + 0.5f * width - v->scale * 0.5f * (v->lo[0] + v->hi[0]);
    v->origin_y = top + 0.5f * height + v->scale * 0.5f * (v->lo[1] + v->hi[1]);
    v->depth_span = v->hi[2] > v->lo[2] ? v->hi[2] - v->lo[2] : 1.0f;
}
