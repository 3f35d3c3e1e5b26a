/* The canvas: samples, depth, and their reduction to 8-bit pixels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

bool render_canvas_create(render_canvas *c, int panel_width, int panel_height, int cols, int rows, int samples)
{
    memset(c, 0, sizeof *c);
    if (panel_width <= 0 || panel_height <= 0 || cols <= 0 || rows <= 0 || samples <= 0 ||
        (size_t)panel_width * cols * samples > 1u << 15 || (size_t)panel_height * rows * samples > 1u << 15)
        return false;
    int width = panel_width * cols * samples, height = panel_height * rows * samples;
    size_t n = (size_t)width * (size_t)height;
    float *rgb = malloc(3 * n * sizeof(float)), *depth = malloc(n * sizeof(float));
    if (!rgb || !depth) {
        free(rgb), free(depth);
        return false;
    }
    for (size_t i = 0; i < 3 * n; ++i) rgb[i] = 1.0f;
    for (size_t i = 0; i < n; ++i) depth[i] = INFINITY;
    *c = (render_canvas){panel_width, panel_height, cols, rows, samples, width, height, rgb, depth};
    return true;
}

void render_canvas_destroy(render_canvas *c)
{
    free(c->rgb);
    free(c->depth);
    memset(c, 0, sizeof *c);
}

unsigned char *render_pixels(const render_canvas *c)
{
    const int s = c->samples, w = c->width / s, h = c->height / s;
    unsigned char *out = malloc(3 * (size_t)w * (size_t)h);
    if (!out) return NULL;
    const float inv = 1.0f / (float)(s * s);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int k = 0; k < 3; ++k) {
                float sum = 0;
                for (int j = 0; j < s; ++j)
                    for (int i = 0; i < s; ++i) sum += c->rgb[3 * ((size_t)(y * s + j) * c->width + (size_t)(x * s + i)) + k];
                float v = sum * inv;
                v = v < 0 ? 0 : v > 1 ? 1 : v;
                out[3 * ((size_t)y * w + x) + k] = (unsigned char)lrintf(255.0f * v);
            }
    return out;
}
