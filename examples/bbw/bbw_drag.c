/*
 * Dragging point handles: the rotations the user never gives, inferred at
 * pose time (bbw_pose.h, docs/bbw-pose.md). A 6 x 1 bar carries five point
 * handles along its middle with bounded biharmonic weights; the left handle
 * is held, the right one is dragged a quarter turn up and over, and the three
 * between are free. Translation-only blending (every handle keeps the
 * identity rotation, the dragged one moves) shears the bar; the subspace
 * as-rigid-as-possible solve turns it. The drag is played as an animation of
 * FRAMES frames, each solve warm-started from the last with 5 iterations, as
 * an interactive tool would; the last frame is drawn.
 *
 * Writes bbw_drag.png (rest, translation only, inferred rotations), the two
 * posed bars as OBJ, and prints the energies (0 = a rigid motion).
 *
 * Usage: bbw_drag [output-folder]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "sinew.h"
#include "support.h"

enum { NX = 60, NY = 10, HANDLES = 5, FRAMES = 30, INFLUENCES = 4 };

static const float INK[3] = {0.1f, 0.1f, 0.12f}, HELD[3] = {0.15f, 0.15f, 0.17f}, DRAGGED[3] = {0.86f, 0.15f, 0.15f},
                   FREE[3] = {0.95f, 0.95f, 0.97f}, EDGE[3] = {0.3f, 0.3f, 0.36f};

/* The bar: (NX + 1) x (NY + 1) vertices on [0, 6] x [0, 1], two triangles a cell. */
typedef struct bar {
    float *positions;
    size_t vertex_count;
    uint32_t *triangles;
    size_t triangle_count;
} bar;

static bool bar_make(bar *b)
{
    b->vertex_count = (NX + 1) * (NY + 1);
    b->triangle_count = 2 * NX * NY;
    b->positions = malloc(3 * b->vertex_count * sizeof *b->positions);
    b->triangles = malloc(3 * b->triangle_count * sizeof *b->triangles);
    if (!b->positions || !b->triangles) return false;
    for (size_t j = 0, n = 0; j <= NY; ++j)
        for (size_t i = 0; i <= NX; ++i, ++n) {
            b->positions[3 * n] = 6.0f * (float)i / NX;
            b->positions[3 * n + 1] = (float)j / NY;
            b->positions[3 * n + 2] = 0.0f;
        }
    for (size_t j = 0, t = 0; j < NY; ++j)
        for (size_t i = 0; i < NX; ++i, t += 2) {
            uint32_t a = (uint32_t)(j * (NX + 1) + i), b1 = a + 1, c = a + NX + 2, d = a + NX + 1;
            const uint32_t two[6] = {a, b1, c, a, c, d};
            memcpy(b->triangles + 3 * t, two, sizeof two);
        }
    return true;
}

static void identities(float *m, size_t count)
{
    memset(m, 0, 16 * count * sizeof *m);
    for (size_t k = 0; k < count; ++k) m[16 * k] = m[16 * k + 5] = m[16 * k + 10] = m[16 * k + 15] = 1.0f;
}

/* Skins the bar's vertices with one transform per handle (column-major 4x4,
 * the joint_world layout) into posed. */
static sinew_result skin_bar(const sinew_skin *skin, const float *transforms, const bar *b, float *posed)
{
    size_t floats = sinew_skin_palette_size(skin);
    float *palette = malloc(floats * sizeof *palette);
    if (!palette) return SINEW_ERROR_OUT_OF_MEMORY;
    sinew_result r = sinew_skin_palette(skin, transforms, HANDLES, palette, floats);
    sinew_skin_input in = {b->positions, 0, NULL, 0, NULL, 0};
    sinew_skin_output out = {posed, 0, NULL, 0, NULL, 0};
    if (r == SINEW_OK) r = sinew_skin_deform(skin, palette, floats, &in, &out, 0, b->vertex_count);
    free(palette);
    return r;
}

/* Where each handle's transform carries its rest point. */
static void move_points(const float *transforms, const float *rest, float *moved)
{
    for (int k = 0; k < HANDLES; ++k) {
        const float *m = transforms + 16 * k, *p = rest + 3 * k;
        for (int i = 0; i < 3; ++i) moved[3 * k + i] = m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2] + m[12 + i];
    }
}

/* One panel: the bar shaded by the dragged handle's weight, its cells'
 * edges, and the handles (held dark, dragged red, free white). */
typedef struct panel_scene {
    const bar *shape;
    const float *positions;   /* the bar's vertices in this panel */
    const float *colours;
    const uint32_t *edges;
    size_t edge_count;
    const float *handles;     /* HANDLES points */
} panel_scene;

static bool draw_panel(render_canvas *c, int panel, const float *frame, size_t frame_count, const panel_scene *s,
                       const char *title, const char *figure)
{
    render_view v;
    render_view_init(&v, 0, 0);
    render_view_include(&v, frame, frame_count);   /* one frame for every panel: same scale */
    render_view_fit(&v, c, panel, 16, 46);
    render_mesh m = {s->positions, s->shape->vertex_count, s->shape->triangles, s->shape->triangle_count, s->colours,
                     {0, 0, 0}, RENDER_UNLIT};
    if (!render_draw_mesh(c, &v, &m)) return false;
    render_draw_lines(c, &v, s->positions, s->edges, s->edge_count, EDGE, 0.6f, false);
    render_draw_dots(c, &v, s->handles, 1, HELD, 11.0f);
    for (int k = 1; k + 1 < HANDLES; ++k) {
        render_draw_dots(c, &v, s->handles + 3 * k, 1, INK, 11.0f);
        render_draw_dots(c, &v, s->handles + 3 * k, 1, FREE, 7.0f);
    }
    render_draw_dots(c, &v, s->handles + 3 * (HANDLES - 1), 1, DRAGGED, 11.0f);
    render_label(c, panel, 0, title, INK);
    if (figure) render_label(c, panel, 1, figure, INK);
    return true;
}

static bool write_picture(const char *folder, const bar *b, const float *colours, const float *rest_handles,
                          const float *shear, const float *shear_handles, double shear_energy, const float *turned,
                          const float *turned_handles, double turned_energy)
{
    if (!render_png_available()) {
        printf("bbw_drag: no PNG images: the examples were built without libpng\n");
        return true;
    }
    size_t n = b->vertex_count, edge_count = 0;
    uint32_t *edges = render_mesh_edges(b->triangles, b->triangle_count, &edge_count);
    float *frame = malloc(3 * 3 * n * sizeof *frame);
    render_canvas c;
    bool ok = edges && frame && render_canvas_create(&c, 300, 260, 3, 1, 3);
    if (ok) {
        memcpy(frame, b->positions, 3 * n * sizeof *frame);
        memcpy(frame + 3 * n, shear, 3 * n * sizeof *frame);
        memcpy(frame + 6 * n, turned, 3 * n * sizeof *frame);
        char e1[64], e2[64];
        snprintf(e1, sizeof e1, "energy %.3f", shear_energy);
        snprintf(e2, sizeof e2, "energy %.3f", turned_energy);
        panel_scene rest = {b, b->positions, colours, edges, edge_count, rest_handles};
        panel_scene sheared = {b, shear, colours, edges, edge_count, shear_handles};
        panel_scene inferred = {b, turned, colours, edges, edge_count, turned_handles};
        ok = draw_panel(&c, 0, frame, 3 * n, &rest, "rest, 5 point handles", NULL) &&
             draw_panel(&c, 1, frame, 3 * n, &sheared, "translation only", e1) &&
             draw_panel(&c, 2, frame, 3 * n, &inferred, "rotations inferred", e2);
        char path[1024];
        snprintf(path, sizeof path, "%s/bbw_drag.png", folder);
        ok = ok && render_write_png(&c, path);
        if (ok) printf("bbw_drag: wrote %s\n", path);
        render_canvas_destroy(&c);
    }
    free(edges);
    free(frame);
    return ok;
}

int main(int argc, char **argv)
{
    const char *folder = argc > 1 ? argv[1] : ".";
    bar b = {0};
    float rest_handles[3 * HANDLES] = {0};
    for (int k = 0; k < HANDLES; ++k) rest_handles[3 * k] = 1.5f * (float)k, rest_handles[3 * k + 1] = 0.5f;
    int status = 1;
    sinew_bbw *bbw = NULL;
    sinew_bbw_pose *pose = NULL;
    sinew_skin *skin = NULL;
    size_t n = 0;
    uint32_t *joints = NULL;
    float *weights = NULL, *colours = NULL, *all = NULL, *shear = NULL, *turned = NULL;
    void *scratch = NULL;
    if (!bar_make(&b)) goto done;
    n = b.vertex_count;

    /* Weights: BBW over the bar's triangles, one point handle each. */
    sinew_trimesh shape = {{b.positions, n, 0}, b.triangles, b.triangle_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc desc;
    SINEW_INIT(&desc);
    desc.triangles = &shape;
    desc.points = (sinew_points){rest_handles, HANDLES, 0};
    sinew_result r = sinew_bbw_create(NULL, &desc, &bbw);
    if (r == SINEW_OK) r = sinew_bbw_solve(NULL, bbw, NULL);
    /* The pose solver over the same domain and weights. */
    if (r == SINEW_OK) r = sinew_bbw_pose_create_from_bbw(NULL, bbw, NULL, &pose);
    /* The skin the transforms feed: the top 4 weights per vertex. */
    joints = malloc(n * INFLUENCES * sizeof *joints);
    weights = malloc(n * INFLUENCES * sizeof *weights);
    all = malloc(n * HANDLES * sizeof *all);
    colours = malloc(3 * n * sizeof *colours);
    shear = malloc(3 * n * sizeof *shear);
    turned = malloc(3 * n * sizeof *turned);
    if (!joints || !weights || !all || !colours || !shear || !turned) r = SINEW_ERROR_OUT_OF_MEMORY;
    sinew_points vertices = {b.positions, n, 0};
    if (r == SINEW_OK) r = sinew_bbw_top_k(bbw, &vertices, INFLUENCES, joints, weights, 0, n);
    if (r == SINEW_OK) r = sinew_bbw_vertex_weights(bbw, all, 0, n);
    sinew_skin_desc sk;
    SINEW_INIT(&sk);
    sk.vertex_count = n;
    sk.joint_count = HANDLES;
    sk.influence_count = INFLUENCES;
    sk.joints = joints;
    sk.weights = weights;
    if (r == SINEW_OK) r = sinew_skin_create(NULL, &sk, &skin);
    size_t scratch_bytes = pose ? sinew_bbw_pose_scratch_size(pose, 1) : 0;
    if (r == SINEW_OK && !(scratch = malloc(scratch_bytes))) r = SINEW_ERROR_OUT_OF_MEMORY;
    if (r != SINEW_OK) {
        fprintf(stderr, "bbw_drag: %s: %s\n", sinew_result_string(r), sinew_last_error());
        goto done;
    }
    for (size_t i = 0; i < n; ++i) render_colormap(all[i * HANDLES + HANDLES - 1], colours + 3 * i);

    /* The drag: the left handle held by its identity transform, the right
     * one swung a quarter turn about the bar's middle to (3, 3.5). */
    float transforms[16 * HANDLES], translated[16 * HANDLES];
    identities(transforms, HANDLES);
    uint8_t fixed[HANDLES] = {1};
    sinew_bbw_pose_position drag = {HANDLES - 1, {0}, {0}};
    memcpy(drag.rest, rest_handles + 3 * (HANDLES - 1), sizeof drag.rest);
    sinew_bbw_pose_solve_desc sd;
    SINEW_INIT(&sd);
    sd.fixed = fixed;
    sd.positions = &drag;
    sd.position_count = 1;
    sd.iterations = 5;
    sinew_bbw_pose_report report;
    SINEW_INIT(&report);
    for (int f = 1; f <= FRAMES && r == SINEW_OK; ++f) {
        double a = 0.5 * 3.14159265358979 * f / FRAMES;
        drag.target[0] = (float)(3.0 + 3.0 * cos(a));
        drag.target[1] = (float)(0.5 + 3.0 * sin(a));
        r = sinew_bbw_pose_solve(pose, &sd, transforms, 16 * HANDLES, scratch, scratch_bytes, &report);
    }
    /* Translation only: the dragged handle moves, every handle keeps the identity rotation. */
    identities(translated, HANDLES);
    translated[16 * (HANDLES - 1) + 12] = drag.target[0] - drag.rest[0];
    translated[16 * (HANDLES - 1) + 13] = drag.target[1] - drag.rest[1];
    double shear_energy = 0.0;
    if (r == SINEW_OK)
        r = sinew_bbw_pose_energy(pose, translated, 16 * HANDLES, scratch, scratch_bytes, &shear_energy);
    if (r == SINEW_OK) r = skin_bar(skin, translated, &b, shear);
    if (r == SINEW_OK) r = skin_bar(skin, transforms, &b, turned);
    if (r != SINEW_OK) {
        fprintf(stderr, "bbw_drag: %s: %s\n", sinew_result_string(r), sinew_last_error());
        goto done;
    }
    float shear_handles[3 * HANDLES], turned_handles[3 * HANDLES];
    move_points(translated, rest_handles, shear_handles);
    move_points(transforms, rest_handles, turned_handles);
    printf("bbw_drag: %zu vertices, %zu triangles, %d point handles; %d frames of 5 warm-started iterations\n", n,
           b.triangle_count, HANDLES, FRAMES);
    printf("bbw_drag: energy per unit area (0 = rigid): translation only %.4f, rotations inferred %.4f\n",
           shear_energy, report.energy);
    printf("bbw_drag: dragged handle at (%.3f, %.3f), target (%.3f, %.3f)\n", turned_handles[3 * (HANDLES - 1)],
           turned_handles[3 * (HANDLES - 1) + 1], drag.target[0], drag.target[1]);
    char path[1024];
    snprintf(path, sizeof path, "%s/bbw-drag-translation-only.obj", folder);
    bool ok = support_write_obj(path, shear, n, 0, b.triangles, b.triangle_count);
    snprintf(path, sizeof path, "%s/bbw-drag-inferred.obj", folder);
    ok = ok && support_write_obj(path, turned, n, 0, b.triangles, b.triangle_count);
    if (ok) printf("bbw_drag: wrote bbw-drag-translation-only.obj and bbw-drag-inferred.obj in %s\n", folder);
    ok = ok && write_picture(folder, &b, colours, rest_handles, shear, shear_handles, shear_energy, turned,
                             turned_handles, report.energy);
    status = ok ? 0 : 1;
done:
    sinew_skin_destroy(skin);
    sinew_bbw_pose_destroy(pose);
    sinew_bbw_destroy(bbw);
    free(scratch);
    free(joints);
    free(weights);
    free(all);
    free(colours);
    free(shear);
    free(turned);
    free(b.positions);
    free(b.triangles);
    return status;
}
