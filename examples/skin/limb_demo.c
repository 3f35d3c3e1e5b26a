/* sinew skinning demo: a cylinder "limb" with three bones (upper arm,
 * forearm, hand) bends at the elbow and twists at the wrist over an
 * animation. Every frame is skinned twice, with linear blending and with dual
 * quaternions, and written as OBJ files into the output folder, so the
 * candy-wrapper collapse of linear blending at the twisting wrist can be
 * seen next to the dual-quaternion result. Prints the throughput of the
 * deform call and the wrist's cross-section area under both blends. The limb
 * and its animation are in limb.c, the bone-links figure in limb_links.c.
 *
 * usage: skin_limb_demo <output folder> */
#include <stdio.h>
#include <stdlib.h>

#include "limb.h"
#include "limb_pictures.h"
#include "sinew.h"
#include "support.h"

enum { FRAMES = 24, TIMED_PASSES = 20 };

static int fail(const char *what, sinew_result r)
{
    fprintf(stderr, "%s: %s: %s\n", what, sinew_result_string(r), sinew_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <output folder>\n", argv[0]);
        return 2;
    }
    const char *folder = argv[1];
    limb l;
    if (!support_make_folder(folder) || !limb_make(&l)) {
        fprintf(stderr, "cannot create folder %s, or out of memory\n", folder);
        return 1;
    }

    /* Bind: one skin per blend, from the limb's joints, weights and inverse bind matrices. */
    sinew_skin *skins[2] = {NULL, NULL};
    for (int b = 0; b < 2; ++b) {
        sinew_skin_desc d;
        SINEW_INIT(&d);
        d.vertex_count = LIMB_VERTICES, d.joint_count = LIMB_JOINTS, d.influence_count = 2;
        d.joints = l.joints, d.weights = l.weights, d.inverse_bind = l.inverse_bind;
        d.blend = b ? SINEW_SKIN_BLEND_DUAL_QUATERNION : SINEW_SKIN_BLEND_LINEAR;
        sinew_result r = sinew_skin_create(NULL, &d, &skins[b]);
        if (r != SINEW_OK) return fail("bind", r);
    }

    /* Pose: every frame, the joints' world matrices become a palette, and the
     * palette skins positions and normals. */
    const char *names[2] = {"lbs", "dqs"};
    float *palette = malloc(sinew_skin_palette_size(skins[1]) * sizeof(float));
    float *out_p = malloc(3 * LIMB_VERTICES * sizeof(float)), *out_n = malloc(3 * LIMB_VERTICES * sizeof(float));
    if (!palette || !out_p || !out_n) return fail("pose", SINEW_ERROR_OUT_OF_MEMORY);
    sinew_skin_input in = {l.positions, 0, l.normals, 0, NULL, 0};
    sinew_skin_output out = {out_p, 0, out_n, 0, NULL, 0};
    float world[16 * LIMB_JOINTS];
    double seconds[2] = {0, 0}, wrist_area[2] = {0, 0};
    for (int f = 0; f < FRAMES; ++f) {
        limb_pose((double)f / (FRAMES - 1), world);
        for (int b = 0; b < 2; ++b) {
            size_t palette_floats = sinew_skin_palette_size(skins[b]);
            sinew_result r = sinew_skin_palette(skins[b], world, LIMB_JOINTS, palette, palette_floats);
            /* Several passes per frame, so the throughput figure is not all noise. */
            double t0 = support_now();
            for (int pass = 0; pass < TIMED_PASSES && r == SINEW_OK; ++pass)
                r = sinew_skin_deform(skins[b], palette, palette_floats, &in, &out, 0, LIMB_VERTICES);
            seconds[b] += support_now() - t0;
            if (r != SINEW_OK) return fail("deform", r);
            char path[1200];
            snprintf(path, sizeof path, "%s/limb_%s_%02d.obj", folder, names[b], f);
            if (!support_write_obj(path, out_p, LIMB_VERTICES, 0, l.triangles, l.triangle_count)) {
                fprintf(stderr, "cannot write %s\n", path);
                return 1;
            }
            if (f == FRAMES / 2) {
                /* The wrist ring (x = 2) lies in the plane through the wrist
                 * joint perpendicular to the forearm: its area there. */
                const double axis[3] = {world[32], world[33], world[34]};
                wrist_area[b] = limb_ring_area_ratio(out_p, (LIMB_RINGS - 1) * 2 / 3, axis);
            }
        }
    }
    const double vertices = (double)FRAMES * TIMED_PASSES * LIMB_VERTICES;
    printf("skin_limb_demo: %d vertices, %d joints, %d frames written to %s (limb_lbs_NN.obj, limb_dqs_NN.obj)\n",
           LIMB_VERTICES, LIMB_JOINTS, FRAMES, folder);
    printf("  throughput, positions + normals, one thread: linear %.1f M vertices/s, dual quaternion %.1f M vertices/s\n",
           vertices / seconds[0] * 1e-6, vertices / seconds[1] * 1e-6);
    printf("  wrist cross-section at 150 degrees twist, area / rest: linear %.3f, dual quaternion %.3f\n",
           wrist_area[0], wrist_area[1]);
    bool links = limb_links_figure(folder, &l, out_p);
    limb_pose(0.5, world); /* the widest pose: PNG images of it (limb_pictures.c) */
    bool pictures = limb_pictures(folder, skins, world, LIMB_JOINTS, l.positions, LIMB_VERTICES, l.triangles,
                                  l.triangle_count);
    sinew_skin_destroy(skins[0]);
    sinew_skin_destroy(skins[1]);
    free(palette), free(out_p), free(out_n);
    limb_free(&l);
    return links && pictures ? 0 : 1;
}
