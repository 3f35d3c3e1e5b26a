/* The bone-links figure of the skinning demo (limb.h): the elbow bent to 150
 * degrees collapses under linear blending, since its ring, weighted half and
 * half, blends two frames 150 degrees apart. Split into three bone links
 * (sinew_skin_bone_links) driven by sinew_skin_link_rotations, neighbouring
 * frames are only 50 degrees apart. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "limb.h"
#include "sinew.h"
#include "support.h"

enum { MAX_JOINTS = LIMB_JOINTS + 2 };

/* Pose with the elbow's rotation q spread over `links` links: link 1 =
 * T(1, 0, 0) R(q_1), link k = R(q_k), the wrist 1 further along the elbow.
 * Joint order as sinew_skin_bone_links made it: the elbow's joint is the
 * last link, the links before it are appended after the original joints. */
static sinew_result links_pose(const float q[4], const float bone_axis[3], uint32_t links, float world[16 * MAX_JOINTS])
{
    float lq[4 * 3], local[16];
    sinew_result r = sinew_skin_link_rotations(q, bone_axis, links, lq);
    if (r != SINEW_OK) return r;
    static const double x_axis[3] = {1, 0, 0}, origin[3] = {0, 0, 0}, one_along_x[3] = {1, 0, 0};
    support_affine_rotation(x_axis, 0, origin, world);
    const float *at = world;
    for (uint32_t k = 1; k <= links; ++k) {
        const float *u = lq + 4 * (k - 1);
        const double axis[3] = {u[0], u[1], u[2]};
        double sv = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
        support_affine_rotation(sv > 0 ? axis : x_axis, 2 * atan2(sv, u[3]), k == 1 ? one_along_x : origin, local);
        float *m = world + 16 * (k == links ? 1 : LIMB_JOINTS + k - 1);
        support_mat4_multiply(at, local, m);
        at = m;
    }
    support_affine_rotation(x_axis, 0, one_along_x, local);
    support_mat4_multiply(world + 16, local, world + 32);
    return SINEW_OK;
}

/* Skins the limb with the elbow split into `links` links and bent by `bend`
 * radians into out (LIMB_VERTICES rows of 3). */
static sinew_result skin_with_links(const limb *l, uint32_t links, double bend, float *out)
{
    static const uint32_t parents[LIMB_JOINTS] = {SINEW_SKIN_NO_PARENT, 0, 1};
    uint32_t new_parents[MAX_JOINTS], *lj = malloc(2 * LIMB_VERTICES * sizeof(uint32_t));
    float new_ib[16 * MAX_JOINTS], *lw = malloc(2 * LIMB_VERTICES * sizeof(float));
    size_t count = 0;
    sinew_skin_links_desc d;
    SINEW_INIT(&d);
    d.link_count = links;
    sinew_skin_links_report rep;
    SINEW_INIT(&rep);
    sinew_result r = lj && lw ? SINEW_OK : SINEW_ERROR_OUT_OF_MEMORY;
    if (r == SINEW_OK)
        r = sinew_skin_bone_links(NULL, LIMB_JOINTS, parents, l->inverse_bind, 1, &d, LIMB_VERTICES, 2, l->joints,
                                  l->weights, new_parents, new_ib, MAX_JOINTS, &count, lj, lw, &rep);
    const float q[4] = {0, 0, (float)sin(bend / 2), (float)cos(bend / 2)};
    float world[16 * MAX_JOINTS], palette[16 * MAX_JOINTS];
    if (r == SINEW_OK) r = links_pose(q, rep.bone_axis, links, world);
    sinew_skin *skin = NULL;
    if (r == SINEW_OK) {
        sinew_skin_desc sd;
        SINEW_INIT(&sd);
        sd.vertex_count = LIMB_VERTICES, sd.joint_count = count, sd.influence_count = 2;
        sd.joints = lj, sd.weights = lw, sd.inverse_bind = new_ib;
        r = sinew_skin_create(NULL, &sd, &skin);
    }
    if (r == SINEW_OK) r = sinew_skin_palette(skin, world, count, palette, 16 * count);
    sinew_skin_input in = {l->positions, 0, NULL, 0, NULL, 0};
    sinew_skin_output o = {out, 0, NULL, 0, NULL, 0};
    if (r == SINEW_OK) r = sinew_skin_deform(skin, palette, 16 * count, &in, &o, 0, LIMB_VERTICES);
    sinew_skin_destroy(skin);
    free(lj), free(lw);
    return r;
}

bool limb_links_figure(const char *folder, const limb *l, float *scratch)
{
    const double bend = 150.0 * LIMB_PI / 180.0;
    const int elbow_ring = (LIMB_RINGS - 1) / 3;
    double ratio[2] = {0, 0};
    for (int c = 0; c < 2; ++c) {
        const uint32_t links = c ? 3 : 1;
        sinew_result r = skin_with_links(l, links, bend, scratch);
        if (r != SINEW_OK) {
            fprintf(stderr, "bone links (%u): %s: %s\n", links, sinew_result_string(r), sinew_last_error());
            return false;
        }
        /* Every vertex of the ring has the same weights, so the blend maps the
         * ring by one affine map: it stays planar and its vector area is its area. */
        ratio[c] = limb_ring_area_ratio(scratch, elbow_ring, NULL);
        char path[1200];
        snprintf(path, sizeof path, "%s/limb_links%u_150.obj", folder, links);
        if (!support_write_obj(path, scratch, LIMB_VERTICES, 0, l->triangles, l->triangle_count)) {
            fprintf(stderr, "cannot write %s\n", path);
            return false;
        }
    }
    printf("  elbow cross-section at 150 degrees bend, area / rest: one link %.3f, three bone links %.3f "
           "(limb_links1_150.obj, limb_links3_150.obj)\n",
           ratio[0], ratio[1]);
    return true;
}
