/*
 * Bounded biharmonic weights on a 2D shape with all three handle kinds:
 * two point handles, one bone, and a closed cage. The shape is a 4 x 2
 * rectangle with a notch cut into its top edge, so the weights have to flow
 * around a concavity. Writes one SVG per handle (bbw-2d-handle-<j>.svg),
 * each triangle shaded by that handle's weight, all of them as one PNG
 * (bbw_2d_weights.png), and prints the figures.
 *
 * Usage: bbw_2d [output-folder]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbw_pictures.h"
#include "sinew.h"

#define NX 48
#define NY 24

/* Cells inside the notch (x in [1.5, 2.5], y > 1) are left out. */
static int in_notch(size_t i, size_t j)
{
    double cx = (i + 0.5) * 4.0 / NX, cy = (j + 0.5) * 2.0 / NY;
    return cx > 1.5 && cx < 2.5 && cy > 1.0;
}

static void colour(float w, char *out, size_t size)
{
    /* White (0) to deep blue (1). */
    double c = w < 0.0f ? 0.0 : w > 1.0f ? 1.0 : (double)w;
    unsigned r = (unsigned)lround(255.0 * (1.0 - 0.85 * c)) & 0xffu, g = (unsigned)lround(255.0 * (1.0 - 0.6 * c)) & 0xffu;
    snprintf(out, size, "#%02x%02xff", r, g);
}

int main(int argc, char **argv)
{
    const char *folder = argc > 1 ? argv[1] : ".";
    size_t nv = (NX + 1) * (NY + 1);
    float *pos = malloc(nv * 3 * sizeof(float));
    uint32_t *tri = malloc(NX * NY * 6 * sizeof(uint32_t));
    for (size_t j = 0; j <= NY; ++j)
        for (size_t i = 0; i <= NX; ++i) {
            float *p = pos + 3 * (j * (NX + 1) + i);
            p[0] = 4.0f * (float)i / NX;
            p[1] = 2.0f * (float)j / NY;
            p[2] = 0.0f;
        }
    size_t tc = 0;
    for (size_t j = 0; j < NY; ++j)
        for (size_t i = 0; i < NX; ++i) {
            if (in_notch(i, j)) continue;
            uint32_t a = (uint32_t)(j * (NX + 1) + i), b = a + 1, c = a + NX + 2, d = a + NX + 1;
            uint32_t t[6] = {a, b, c, a, c, d};
            memcpy(tri + 3 * tc, t, sizeof t);
            tc += 2;
        }
    /* Vertices of the notch's interior belong to no triangle; the library
     * reports them as unreached and leaves them at zero. */
    sinew_trimesh shape = {{pos, nv, 0}, tri, tc, SINEW_INDEX_U32, 0};
    float points[6] = {0.5f, 0.5f, 0.0f, 3.5f, 1.5f, 0.0f};
    float joints[6] = {1.0f, 1.5f, 0.0f, 1.0f, 0.5f, 0.0f};
    uint32_t bones[2] = {0, 1};
    float cage_pts[12] = {2.75f, 0.25f, 0, 3.75f, 0.25f, 0, 3.75f, 0.75f, 0, 2.75f, 0.75f, 0};
    uint32_t cage_edges[8] = {0, 1, 1, 2, 2, 3, 3, 0};
    sinew_bbw_cage cage = {{cage_pts, 4, 0}, cage_edges, 4, NULL, 0};
    sinew_bbw_desc desc;
    SINEW_INIT(&desc);
    desc.triangles = &shape;
    desc.points.data = points;
    desc.points.count = 2;
    desc.joint_positions.data = joints;
    desc.joint_positions.count = 2;
    desc.bones = bones;
    desc.bone_count = 1;
    desc.cages = &cage;
    desc.cage_count = 1;

    sinew_bbw *bbw = NULL;
    sinew_result r = sinew_bbw_create(NULL, &desc, &bbw);
    if (r == SINEW_OK) r = sinew_bbw_solve(NULL, bbw, NULL);
    if (r != SINEW_OK) {
        fprintf(stderr, "bbw_2d: %s: %s\n", sinew_result_string(r), sinew_last_error());
        sinew_bbw_destroy(bbw);
        return 1;
    }
    sinew_bbw_info info;
    SINEW_INIT(&info);
    sinew_bbw_get_info(bbw, &info);
    size_t m = info.handle_count;
    float *w = malloc(nv * m * sizeof(float));
    sinew_bbw_vertex_weights(bbw, w, 0, nv);
    printf("bbw_2d: %zu vertices (%zu unreached in the notch), %zu triangles, %zu handles\n", info.vertex_count,
           info.unreached_vertex_count, info.element_count, m);
    printf("bbw_2d: solve %.3f s, %u iterations, %u polish rounds\n", info.seconds_solve, info.iterations,
           info.polish_rounds);

    const double scale = 200.0;
    for (size_t j = 0; j < m; ++j) {
        char path[1024];
        snprintf(path, sizeof path, "%s/bbw-2d-handle-%zu.svg", folder, j);
        FILE *f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, "bbw_2d: cannot write %s\n", path);
            return 1;
        }
        fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='-10 -10 %d %d'>\n",
                (int)(4 * scale) + 20, (int)(2 * scale) + 20, (int)(4 * scale) + 20, (int)(2 * scale) + 20);
        for (size_t t = 0; t < tc; ++t) {
            const uint32_t *v = tri + 3 * t;
            float avg = (w[v[0] * m + j] + w[v[1] * m + j] + w[v[2] * m + j]) / 3.0f;
            char fill[32];
            colour(avg, fill, sizeof fill);
            fprintf(f, "<polygon points='");
            for (int k = 0; k < 3; ++k)
                fprintf(f, "%.1f,%.1f ", pos[3 * v[k]] * scale, (2.0 - pos[3 * v[k] + 1]) * scale);
            fprintf(f, "' fill='%s' stroke='%s' stroke-width='0.5'/>\n", fill, fill);
        }
        /* Handles on top: points as dots, the bone as a thick line, the cage as a polygon. */
        for (size_t p = 0; p < 2; ++p)
            fprintf(f, "<circle cx='%.1f' cy='%.1f' r='6' fill='%s'/>\n", points[3 * p] * scale,
                    (2.0 - points[3 * p + 1]) * scale, j == p ? "#d62728" : "#333");
        fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s' stroke-width='6'/>\n", joints[0] * scale,
                (2.0 - joints[1]) * scale, joints[3] * scale, (2.0 - joints[4]) * scale, j == 2 ? "#d62728" : "#333");
        fprintf(f, "<polygon points='");
        for (int k = 0; k < 4; ++k) fprintf(f, "%.1f,%.1f ", cage_pts[3 * k] * scale, (2.0 - cage_pts[3 * k + 1]) * scale);
        fprintf(f, "' fill='none' stroke='#333' stroke-width='2'/>\n");
        if (j >= 3) {
            size_t c = j - 3;
            fprintf(f, "<circle cx='%.1f' cy='%.1f' r='6' fill='#d62728'/>\n", cage_pts[3 * c] * scale,
                    (2.0 - cage_pts[3 * c + 1]) * scale);
        }
        fprintf(f, "</svg>\n");
        fclose(f);
        printf("bbw_2d: wrote %s\n", path);
    }
    /* The same fields as one PNG (bbw_pictures.c). */
    bbw_picture_surface picture = {pos, nv, tri, tc, w, m};
    bbw_picture_handles handles = {points, 2, joints, bones, 1, cage_pts, 4};
    bool pictures = bbw_2d_pictures(folder, &picture, &handles);
    free(w);
    free(pos);
    free(tri);
    sinew_bbw_destroy(bbw);
    return pictures ? 0 : 1;
}
