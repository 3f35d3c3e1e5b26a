/* Driver from skin, bound to the skeleton, skin registered (character_driver.h). */
#include "character_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool failed(const char *step)
{
    fprintf(stderr, "%s: %s\n", step, sinew_last_error());
    return false;
}

bool character_driver_from_skin(character_driver *d, const arm_rig *rig, size_t target_triangles)
{
    memset(d, 0, sizeof *d);
    const support_mesh *s = &rig->skin;
    sinew_polymesh skin = {{s->positions, s->vertex_count, 0}, s->triangles, NULL, s->triangle_count,
                           SINEW_INDEX_U32};
    sinew_soffd_driver_desc desc;
    SINEW_INIT(&desc);
    desc.target_triangle_count = target_triangles;
    desc.joint_positions = (sinew_points){rig->joints, rig->joint_count, 0};
    desc.bones = rig->bones;
    desc.bone_count = rig->bone_count;
    SINEW_INIT(&d->report);
    /* The sizes first, then the driver (the same input gives the same driver). */
    if (sinew_soffd_driver_from_skin(NULL, &skin, &desc, NULL, 0, NULL, 0, &d->report) != SINEW_OK)
        return failed("driver from skin");
    d->point_count = d->report.vertex_count;
    d->triangle_count = d->report.triangle_count;
    d->rest = malloc(3 * d->point_count * sizeof(float));
    d->triangles = malloc(3 * d->triangle_count * sizeof(uint32_t));
    if (!d->rest || !d->triangles) return false;
    if (sinew_soffd_driver_from_skin(NULL, &skin, &desc, d->rest, d->point_count, d->triangles, d->triangle_count,
                                     &d->report) != SINEW_OK)
        return failed("driver from skin");
    return true;
}

bool character_driver_bind(character_driver *d, const arm_rig *rig)
{
    sinew_skin_capsule *capsules = calloc(rig->bone_count, sizeof *capsules);
    d->bone_of = malloc(d->point_count * sizeof(uint32_t));
    d->ones = malloc(d->point_count * sizeof(float));
    if (!capsules || !d->bone_of || !d->ones) {
        free(capsules);
        return false;
    }
    for (size_t b = 0; b < rig->bone_count; ++b) {
        memcpy(capsules[b].head, &rig->joints[3 * rig->bones[2 * b]], 3 * sizeof(float));
        memcpy(capsules[b].tail, &rig->joints[3 * rig->bones[2 * b + 1]], 3 * sizeof(float));
        capsules[b].joint = (uint32_t)b; /* the skin's joints are the bones */
    }
    sinew_skin_capsule_desc desc;
    SINEW_INIT(&desc);
    desc.influence_count = 1;
    desc.scoring = SINEW_SKIN_CAPSULE_SCORE_NEAREST_SEGMENT;
    sinew_points points = {d->rest, d->point_count, 0};
    sinew_result r =
        sinew_skin_capsule_weights(NULL, &points, capsules, rig->bone_count, &desc, d->bone_of, d->ones, NULL);
    free(capsules);
    if (r != SINEW_OK) return failed("bind the driver");
    sinew_skin_desc sd;
    SINEW_INIT(&sd);
    sd.vertex_count = d->point_count;
    sd.joint_count = rig->bone_count;
    sd.influence_count = 1;
    sd.joints = d->bone_of;
    sd.weights = d->ones;
    /* inverse_bind NULL: the bones' world matrices are their motion from the bind pose. */
    if (sinew_skin_create(NULL, &sd, &d->skinning) != SINEW_OK) return failed("skin the driver");
    return true;
}

bool character_driver_register(character_driver *d, const arm_rig *rig)
{
    sinew_polymesh driver = {{d->rest, d->point_count, 0}, d->triangles, NULL, d->triangle_count, SINEW_INDEX_U32};
    if (sinew_soffd_create(NULL, &driver, NULL, &d->soffd) != SINEW_OK) return failed("soffd bind");
    /* Every element above 1e-3 of a point's largest weight, uncapped (about
     * 60 per point, 1-2 kB per point): the wide blend rounds the crease of
     * the rigidly bound driver at the elbow. The default's 4 nearest
     * elements follow the crease and pinch the bent elbow (docs/soffd.md,
     * Defaults). */
    sinew_soffd_register_desc wide;
    SINEW_INIT(&wide);
    wide.weight_threshold = 1e-3f;
    wide.max_contributors = UINT32_MAX;
    sinew_points skin = {rig->skin.positions, rig->skin.vertex_count, 0};
    if (sinew_soffd_register(NULL, d->soffd, &skin, &wide) != SINEW_OK) return failed("soffd register");
    return true;
}

bool character_driver_pose(const character_driver *d, const float *bone_worlds, size_t bone_count, const float *rest,
                           float *out)
{
    size_t floats = sinew_skin_palette_size(d->skinning);
    float *palette = aligned_alloc(64, (floats * sizeof(float) + 63) / 64 * 64);
    if (!palette) return false;
    sinew_skin_input in = {rest, 0, NULL, 0, NULL, 0};
    sinew_skin_output o = {out, 0, NULL, 0, NULL, 0};
    bool ok = sinew_skin_palette(d->skinning, bone_worlds, bone_count, palette, floats) == SINEW_OK &&
              sinew_skin_deform(d->skinning, palette, floats, &in, &o, 0, d->point_count) == SINEW_OK;
    free(palette);
    return ok || failed("pose the driver");
}

bool character_driver_deform(const character_driver *d, const float *posed_driver, float *out)
{
    size_t floats = sinew_soffd_element_frames_size(d->soffd);
    float *frames = malloc(floats * sizeof(float));
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_points now = {posed_driver, d->point_count, 0};
    bool ok = frames && sinew_soffd_get_info(d->soffd, &info) == SINEW_OK &&
              sinew_soffd_element_frames(d->soffd, &now, frames, floats) == SINEW_OK &&
              sinew_soffd_deform(d->soffd, frames, floats, NULL, out, 0, NULL, 0, 0, info.point_count) == SINEW_OK;
    free(frames);
    return ok || failed("soffd deform");
}

void character_driver_free(character_driver *d)
{
    sinew_soffd_destroy(d->soffd);
    sinew_skin_destroy(d->skinning);
    free(d->rest);
    free(d->triangles);
    free(d->bone_of);
    free(d->ones);
    memset(d, 0, sizeof *d);
}
