/* Triangles and strokes into a canvas through a view. */
#include <math.h>
#include <stdlib.h>

#include "render.h"

typedef struct screen_point {
    float x, y, z;
} screen_point;

static screen_point project(const render_view *v, const float p[3])
{
    float r = p[0] * v->right[0] + p[1] * v->right[1] + p[2] * v->right[2];
    float u = p[0] * v->up[0] + p[1] * v->up[1] + p[2] * v->up[2];
    float f = p[0] * v->forward[0] + p[1] * v->forward[1] + p[2] * v->forward[2];
    return (screen_point){v->origin_x + v->scale * r, v->origin_y - v->scale * u, f};
}

static void normalize(float n[3])
{
    float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (len > 0) n[0] /= len, n[1] /= len, n[2] /= len;
}

static void triangle_normal(const float *a, const float *b, const float *c, float n[3])
{
    float e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, f[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    n[0] = e[1] * f[2] - e[2] * f[1], n[1] = e[2] * f[0] - e[0] * f[2], n[2] = e[0] * f[1] - e[1] * f[0];
}

/* Area-weighted vertex normals (the unnormalised triangle normal is twice its area). */
static float *vertex_normals(const render_mesh *m)
{
    float *n = calloc(3 * m->vertex_count, sizeof(float));
    if (!n) return NULL;
    for (size_t t = 0; t < m->triangle_count; ++t) {
        const uint32_t *i = m->triangles + 3 * t;
        float fn[3];
        triangle_normal(m->positions + 3 * i[0], m->positions + 3 * i[1], m->positions + 3 * i[2], fn);
        if (!isfinite(fn[0] + fn[1] + fn[2])) continue;
        for (int k = 0; k < 3; ++k)
            for (int d = 0; d < 3; ++d) n[3 * i[k] + d] += fn[d];
    }
    for (size_t i = 0; i < m->vertex_count; ++i) normalize(n + 3 * i);
    return n;
}

/* Lambert from a light above-left of the viewer, both sides lit. */
static float light(const render_view *v, const float n[3])
{
    float l[3];
    for (int k = 0; k < 3; ++k) l[k] = -0.35f * v->right[k] + 0.55f * v->up[k] - 0.76f * v->forward[k];
    normalize(l);
    float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0)) return 0.6f;
    return 0.3f + 0.7f * fabsf(n[0] * l[0] + n[1] * l[1] + n[2] * l[2]) / len;
}

static float edge(screen_point a, screen_point b, float x, float y)
{
    return (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x);
}

static void draw_triangle(render_canvas *c, const render_view *v, const render_mesh *m, const float *normals,
                          const uint32_t *i)
{
    const float *p[3] = {m->positions + 3 * i[0], m->positions + 3 * i[1], m->positions + 3 * i[2]};
    screen_point s[3] = {project(v, p[0]), project(v, p[1]), project(v, p[2])};
    float area = edge(s[0], s[1], s[2].x, s[2].y);
    if (!(fabsf(area) > 0) || !isfinite(area)) return;
    float flat = 1.0f;
    if (m->shading == RENDER_FLAT) {
        float n[3];
        triangle_normal(p[0], p[1], p[2], n);
        flat = light(v, n);
    }
    float col[3][3];
    for (int k = 0; k < 3; ++k)
        for (int d = 0; d < 3; ++d) col[k][d] = m->colours ? m->colours[3 * i[k] + d] : m->colour[d];
    int xa = (int)floorf(fminf(s[0].x, fminf(s[1].x, s[2].x))), xb = (int)ceilf(fmaxf(s[0].x, fmaxf(s[1].x, s[2].x)));
    int ya = (int)floorf(fminf(s[0].y, fminf(s[1].y, s[2].y))), yb = (int)ceilf(fmaxf(s[0].y, fmaxf(s[1].y, s[2].y)));
    xa = xa < v->x0 ? v->x0 : xa, ya = ya < v->y0 ? v->y0 : ya;
    xb = xb >= v->x1 ? v->x1 - 1 : xb, yb = yb >= v->y1 ? v->y1 - 1 : yb;
    for (int y = ya; y <= yb; ++y)
        for (int x = xa; x <= xb; ++x) {
            float px = (float)x + 0.5f, py = (float)y + 0.5f;
            float w0 = edge(s[1], s[2], px, py) / area, w1 = edge(s[2], s[0], px, py) / area;
            float w2 = edge(s[0], s[1], px, py) / area;
            if (w0 < 0 || w1 < 0 || w2 < 0) continue;
            float z = w0 * s[0].z + w1 * s[1].z + w2 * s[2].z;
            size_t at = (size_t)y * (size_t)c->width + (size_t)x;
            if (!(z < c->depth[at])) continue;
            c->depth[at] = z;
            float shade = flat;
            if (m->shading == RENDER_SMOOTH) {
                float n[3];
                for (int d = 0; d < 3; ++d)
                    n[d] = w0 * normals[3 * i[0] + d] + w1 * normals[3 * i[1] + d] + w2 * normals[3 * i[2] + d];
                shade = light(v, n);
            }
            /* One colour needs no interpolation (which would round it by an ulp). */
            for (int d = 0; d < 3; ++d)
                c->rgb[3 * at + d] = shade * (m->colours ? w0 * col[0][d] + w1 * col[1][d] + w2 * col[2][d] : m->colour[d]);
        }
}

bool render_draw_mesh(render_canvas *c, const render_view *v, const render_mesh *m)
{
    float *normals = NULL;
    if (m->shading == RENDER_SMOOTH && !(normals = vertex_normals(m))) return false;
    for (size_t t = 0; t < m->triangle_count; ++t) {
        const uint32_t *i = m->triangles + 3 * t;
        if (i[0] < m->vertex_count && i[1] < m->vertex_count && i[2] < m->vertex_count) draw_triangle(c, v, m, normals, i);
    }
    free(normals);
    return true;
}

/* A disc of radius r samples at (x, y), depth-tested against z unless on_top. */
static void stamp(render_canvas *c, const render_view *v, float x, float y, float z, float r, const float colour[3],
                  bool on_top)
{
    int xa = (int)floorf(x - r), xb = (int)ceilf(x + r), ya = (int)floorf(y - r), yb = (int)ceilf(y + r);
    xa = xa < v->x0 ? v->x0 : xa, ya = ya < v->y0 ? v->y0 : ya;
    xb = xb >= v->x1 ? v->x1 - 1 : xb, yb = yb >= v->y1 ? v->y1 - 1 : yb;
    for (int sy = ya; sy <= yb; ++sy)
        for (int sx = xa; sx <= xb; ++sx) {
            float dx = (float)sx + 0.5f - x, dy = (float)sy + 0.5f - y;
            if (dx * dx + dy * dy > r * r) continue;
            size_t at = (size_t)sy * (size_t)c->width + (size_t)sx;
            if (!on_top && !(z <= c->depth[at])) continue;
            for (int d = 0; d < 3; ++d) c->rgb[3 * at + d] = colour[d];
        }
}

void render_draw_lines(render_canvas *c, const render_view *v, const float *positions, const uint32_t *pairs,
                       size_t line_count, const float colour[3], float width_pixels, bool on_top)
{
    const float r = 0.5f * width_pixels * (float)c->samples, bias = 0.01f * v->depth_span;
    for (size_t l = 0; l < line_count; ++l) {
        size_t ia = pairs ? pairs[2 * l] : 2 * l, ib = pairs ? pairs[2 * l + 1] : 2 * l + 1;
        screen_point a = project(v, positions + 3 * ia), b = project(v, positions + 3 * ib);
        float len = hypotf(b.x - a.x, b.y - a.y);
        if (!isfinite(len)) continue;
        int steps = (int)ceilf(len / fmaxf(0.5f * r, 0.5f)) + 1;
        for (int k = 0; k <= steps; ++k) {
            float t = (float)k / (float)steps;
            stamp(c, v, a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z) - bias, r, colour, on_top);
        }
    }
}

void render_draw_dots(render_canvas *c, const render_view *v, const float *positions, size_t count,
                      const float colour[3], float diameter_pixels)
{
    for (size_t i = 0; i < count; ++i) {
        screen_point p = project(v, positions + 3 * i);
        if (isfinite(p.x) && isfinite(p.y)) stamp(c, v, p.x, p.y, 0, 0.5f * diameter_pixels * (float)c->samples, colour, true);
    }
}
