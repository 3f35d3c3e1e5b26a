/* The skinning demo's pictures: rest against posed, linear blend against
 * dual quaternions at the same pose. */
#include "limb_pictures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "render.h"

static const float INK[3] = {0.1f, 0.1f, 0.12f};

/* Eight bands around the limb, two colours, from the rest position's angle about x. */
static void paint_bands(const float *rest, size_t n, float *colours)
{
    static const float light[3] = {0.93f, 0.78f, 0.62f}, dark[3] = {0.72f, 0.36f, 0.24f};
    for (size_t i = 0; i < n; ++i) {
        double a = atan2(rest[3 * i + 2], rest[3 * i + 1]) + 3.14159265358979;
        int band = (int)floor(a / (2 * 3.14159265358979) * 8) % 2;
        for (int k = 0; k < 3; ++k) colours[3 * i + k] = band ? dark[k] : light[k];
    }
}

/* Two panels, both seen by one camera fitted to both meshes. */
static bool write_pair(const char *path, const float *left, const float *right, size_t n, const uint32_t *tris,
                       size_t nt, const float *colours, const char *left_label, const char *right_label)
{
    render_canvas c;
    if (!render_canvas_create(&c, 400, 300, 2, 1, 3)) return false;
    const float *meshes[2] = {left, right};
    const char *labels[2] = {left_label, right_label};
    bool ok = true;
    for (int panel = 0; panel < 2 && ok; ++panel) {
        render_view v;
        render_view_init(&v, -25, 25);
        render_view_include(&v, left, n);
        render_view_include(&v, right, n);
        render_view_fit(&v, &c, panel, 12, 16);
        render_mesh m = {meshes[panel], n, tris, nt, colours, {0, 0, 0}, RENDER_SMOOTH};
        ok = render_draw_mesh(&c, &v, &m);
        render_label(&c, panel, 0, labels[panel], INK);
    }
    ok = ok && render_write_png(&c, path);
    render_canvas_destroy(&c);
    if (ok) printf("wrote %s\n", path);
    return ok;
}

/* Bind-time tools on the limb (docs/skin-binding.md): containment weights of
 * one capsule per bone, then the same smoothed; coloured by the forearm's
 * (joint 1) weight. The bones run along x from 0 to 3, as in limb_demo.c. */
static bool write_capsule_weights(const char *path, const float *rest, size_t n, const uint32_t *tris, size_t nt)
{
    enum { K = 2, JOINT = 1 };
    sinew_skin_capsule capsules[3];
    for (uint32_t j = 0; j < 3; ++j)
        capsules[j] = (sinew_skin_capsule){{(float)j, 0, 0}, {(float)j + 1, 0, 0}, 0.26f, j};
    uint32_t *joints = malloc(K * n * sizeof(uint32_t));
    float *weights = malloc(K * n * sizeof(float)), *colours[2] = {malloc(3 * n * sizeof(float)), malloc(3 * n * sizeof(float))};
    sinew_points points = {rest, n, 0};
    sinew_trimesh mesh = {points, tris, nt, SINEW_INDEX_U32, 0};
    sinew_skin_capsule_desc bind;
    SINEW_INIT(&bind);
    bind.influence_count = K;
    sinew_skin_smooth_desc smooth = {sizeof smooth, 100, 0.5f};
    bool ok = joints && weights && colours[0] && colours[1];
    for (int pass = 0; pass < 2 && ok; ++pass) {
        ok = pass ? sinew_skin_smooth_weights(NULL, &mesh, K, joints, weights, &smooth) == SINEW_OK
                  : sinew_skin_capsule_weights(NULL, &points, capsules, 3, &bind, joints, weights, NULL) == SINEW_OK;
        for (size_t v = 0; v < n && ok; ++v) {
            float w = 0;
            for (int s = 0; s < K; ++s) w += joints[K * v + s] == JOINT ? weights[K * v + s] : 0;
            render_colormap(w, colours[pass] + 3 * v);
        }
    }
    if (!ok) fprintf(stderr, "limb pictures: %s\n", sinew_last_error());
    render_canvas c;
    ok = ok && render_canvas_create(&c, 400, 150, 2, 1, 3);
    for (int panel = 0; panel < 2 && ok; ++panel) {
        render_view v;
        render_view_init(&v, 0, 20);
        render_view_include(&v, rest, n);
        render_view_fit(&v, &c, panel, 10, 16);
        render_mesh m = {rest, n, tris, nt, colours[panel], {0, 0, 0}, RENDER_SMOOTH};
        ok = render_draw_mesh(&c, &v, &m);
        render_label(&c, panel, 0, panel ? "smoothed, 100 sweeps" : "capsule binding: forearm", INK);
    }
    ok = ok && render_write_png(&c, path);
    if (c.rgb) render_canvas_destroy(&c);
    if (ok) printf("wrote %s\n", path);
    free(joints), free(weights), free(colours[0]), free(colours[1]);
    return ok;
}

bool limb_pictures(const char *dir, sinew_skin *const skins[2], const float *world, size_t joint_count,
                   const float *rest_positions, size_t vertex_count, const uint32_t *triangles, size_t triangle_count)
{
    if (!render_png_available()) {
        printf("no PNG images: the examples were built without libpng\n");
        return true;
    }
    size_t palette_size = sinew_skin_palette_size(skins[1]); /* dual quaternions need the larger palette */
    float *palette = malloc(palette_size * sizeof(float)), *colours = malloc(3 * vertex_count * sizeof(float));
    float *posed[2] = {malloc(3 * vertex_count * sizeof(float)), malloc(3 * vertex_count * sizeof(float))};
    bool ok = palette && colours && posed[0] && posed[1];
    for (int b = 0; b < 2 && ok; ++b) {
        sinew_skin_input in = {rest_positions, 0, NULL, 0, NULL, 0};
        sinew_skin_output out = {posed[b], 0, NULL, 0, NULL, 0};
        size_t size = sinew_skin_palette_size(skins[b]);
        ok = size <= palette_size && sinew_skin_palette(skins[b], world, joint_count, palette, size) == SINEW_OK &&
             sinew_skin_deform(skins[b], palette, size, &in, &out, 0, vertex_count) == SINEW_OK;
        if (!ok) fprintf(stderr, "limb pictures: %s\n", sinew_last_error());
    }
    char path[1200];
    if (ok) {
        paint_bands(rest_positions, vertex_count, colours);
        snprintf(path, sizeof path, "%s/limb_rest_posed.png", dir);
        ok = write_pair(path, rest_positions, posed[1], vertex_count, triangles, triangle_count, colours, "rest",
                        "posed: elbow 100, wrist twist 150");
    }
    if (ok) {
        snprintf(path, sizeof path, "%s/limb_lbs_vs_dqs.png", dir);
        ok = write_pair(path, posed[0], posed[1], vertex_count, triangles, triangle_count, colours,
                        "linear blend", "dual quaternion");
    }
    if (ok) {
        snprintf(path, sizeof path, "%s/limb_capsule_weights.png", dir);
        ok = write_capsule_weights(path, rest_positions, vertex_count, triangles, triangle_count);
    }
    free(palette), free(colours), free(posed[0]), free(posed[1]);
    return ok;
}
