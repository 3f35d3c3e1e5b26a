/*
 * The techniques composed: bounded biharmonic weights bind a coarse cage to a
 * two-bone skeleton, the skinning phase poses the cage, and the cage drives a
 * detailed arm through surface-oriented FFD. The detailed mesh never gets
 * weights of its own: everything it knows comes from the cage.
 *
 *   compose_cage_arm <output folder>
 *
 * Writes cage_NN.obj and arm_NN.obj for each frame of an elbow bend (basic
 * SOFFD algorithm) and arm_ext_NN.obj (extended algorithm, fed with the
 * cage vertices' own blended skinning matrices), compose_cage_arm.png (rest
 * and the last frame by both algorithms), and prints the cost of each phase.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew.h"
#include "compose_pictures.h"
#include "support.h"

#define FRAMES 7
#define K 2 /* two bones, so two influences per cage vertex */

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct mesh {
    float *positions;
    size_t vertex_count;
    uint32_t *indices;     /* faces one after another */
    uint32_t *face_sizes;
    size_t face_count;
} mesh;

/* A capped cylinder along y: `segments` around, `rings` + 1 rows of vertices,
 * quads on the side, one n-gon per cap (the SOFFD bind triangulates them). */
static bool make_cylinder(mesh *m, float radius, float y0, float y1, uint32_t segments, uint32_t rings)
{
    m->vertex_count = (size_t)segments * (rings + 1);
    m->face_count = (size_t)segments * rings + 2;
    m->positions = malloc(3 * m->vertex_count * sizeof(float));
    m->face_sizes = malloc(m->face_count * sizeof(uint32_t));
    m->indices = malloc(((size_t)4 * segments * rings + 2 * segments) * sizeof(uint32_t));
    if (!m->positions || !m->face_sizes || !m->indices) return false;
    for (uint32_t r = 0; r <= rings; ++r)
        for (uint32_t s = 0; s < segments; ++s) {
            float a = 2.0f * (float)M_PI * (float)s / (float)segments;
            float *p = &m->positions[3 * ((size_t)r * segments + s)];
            p[0] = radius * cosf(a);
            p[1] = y0 + (y1 - y0) * (float)r / (float)rings;
            p[2] = -radius * sinf(a);
        }
    size_t f = 0, at = 0;
    for (uint32_t r = 0; r < rings; ++r)
        for (uint32_t s = 0; s < segments; ++s) {
            uint32_t s1 = (s + 1) % segments;
            uint32_t a = r * segments + s, b = r * segments + s1;
            m->face_sizes[f++] = 4;
            m->indices[at++] = a;
            m->indices[at++] = b;
            m->indices[at++] = b + segments;
            m->indices[at++] = a + segments;
        }
    /* Caps, wound so their normals point out of the cylinder. */
    m->face_sizes[f++] = segments;
    for (uint32_t s = 0; s < segments; ++s) m->indices[at++] = segments - 1 - s;
    m->face_sizes[f++] = segments;
    for (uint32_t s = 0; s < segments; ++s) m->indices[at++] = rings * segments + s;
    return true;
}

/* Fan triangulation (every face here is convex) for the BBW surface and OBJs. */
static uint32_t *triangulate(const mesh *m, size_t *triangle_count)
{
    size_t n = 0;
    for (size_t f = 0; f < m->face_count; ++f) n += m->face_sizes[f] - 2;
    uint32_t *t = malloc(3 * n * sizeof(uint32_t));
    if (!t) return NULL;
    size_t at = 0, k = 0;
    for (size_t f = 0; f < m->face_count; ++f) {
        for (uint32_t i = 1; i + 1 < m->face_sizes[f]; ++i) {
            t[k++] = m->indices[at];
            t[k++] = m->indices[at + i];
            t[k++] = m->indices[at + i + 1];
        }
        at += m->face_sizes[f];
    }
    *triangle_count = n;
    return t;
}

static void free_mesh(mesh *m)
{
    free(m->positions);
    free(m->indices);
    free(m->face_sizes);
}

/* Column-major rotation about z by `angle` around the point (0, 0, 0). */
static void rotation_z(float angle, float m[16])
{
    memset(m, 0, 16 * sizeof(float));
    m[0] = cosf(angle);
    m[1] = sinf(angle);
    m[4] = -sinf(angle);
    m[5] = cosf(angle);
    m[10] = 1.0f;
    m[15] = 1.0f;
}

#define ARM_RADIUS 0.5f

static int fail(const char *what, sinew_result r)
{
    fprintf(stderr, "%s: %s: %s\n", what, sinew_result_string(r), sinew_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "out/compose";
    if (!support_make_folder(dir)) {
        fprintf(stderr, "cannot create folder %s\n", dir);
        return 1;
    }

    mesh cage = {0}, arm = {0};
    size_t cage_tri_count = 0, arm_tri_count = 0;
    if (!make_cylinder(&cage, 0.8f, -2.3f, 2.3f, 8, 8) || !make_cylinder(&arm, ARM_RADIUS, -2.0f, 2.0f, 48, 96)) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    uint32_t *cage_tris = triangulate(&cage, &cage_tri_count);
    uint32_t *arm_tris = triangulate(&arm, &arm_tri_count);
    float *cage_posed = malloc(3 * cage.vertex_count * sizeof(float));
    float *arm_posed = malloc(3 * arm.vertex_count * sizeof(float));
    float *arm_basic = malloc(3 * arm.vertex_count * sizeof(float)); /* the last frame, basic algorithm */
    float *vertex_frames = malloc(16 * cage.vertex_count * sizeof(float));
    uint32_t *joints = malloc(K * cage.vertex_count * sizeof(uint32_t));
    float *weights = malloc(K * cage.vertex_count * sizeof(float));
    if (!cage_tris || !arm_tris || !cage_posed || !arm_posed || !arm_basic || !vertex_frames || !joints || !weights) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    int status = 0;

    /* 1. Bounded biharmonic weights of the two bones over the cage's volume. */
    const float skeleton[] = {0, -2, 0, 0, 0, 0, 0, 2, 0};
    const uint32_t bones[] = {0, 1, 1, 2};
    sinew_trimesh cage_surface = {{cage.positions, cage.vertex_count, 0}, cage_tris, cage_tri_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc bbw_desc;
    SINEW_INIT(&bbw_desc);
    bbw_desc.surface = &cage_surface;
    bbw_desc.grid_resolution = 40;
    bbw_desc.joint_positions.data = skeleton;
    bbw_desc.joint_positions.count = 3;
    bbw_desc.bones = bones;
    bbw_desc.bone_count = 2;
    sinew_bbw *bbw = NULL;
    double t0 = support_now();
    sinew_result r = sinew_bbw_create(NULL, &bbw_desc, &bbw);
    if (r == SINEW_OK) r = sinew_bbw_solve(NULL, bbw, NULL);
    sinew_points cage_points = {cage.positions, cage.vertex_count, 0};
    if (r == SINEW_OK) r = sinew_bbw_top_k(bbw, &cage_points, K, joints, weights, 0, cage.vertex_count);
    if (r != SINEW_OK) return fail("bounded biharmonic weights", r);
    double t_bbw = support_now() - t0;
    sinew_bbw_destroy(bbw);

    /* 2. Skin the cage with them: bone j is joint j, bound in world space. */
    sinew_skin_desc skin_desc;
    SINEW_INIT(&skin_desc);
    skin_desc.vertex_count = cage.vertex_count;
    skin_desc.joint_count = 2;
    skin_desc.influence_count = K;
    skin_desc.joints = joints;
    skin_desc.weights = weights;
    sinew_skin *skin = NULL;
    if ((r = sinew_skin_create(NULL, &skin_desc, &skin)) != SINEW_OK) return fail("skin", r);
    float *palette = malloc(sinew_skin_palette_size(skin) * sizeof(float));

    /* 3. The cage drives the arm. */
    sinew_polymesh driver = {{cage.positions, cage.vertex_count, 0}, cage.indices, cage.face_sizes, cage.face_count, SINEW_INDEX_U32};
    sinew_soffd *soffd = NULL;
    t0 = support_now();
    if ((r = sinew_soffd_create(NULL, &driver, NULL, &soffd)) != SINEW_OK) return fail("soffd bind", r);
    sinew_points arm_points = {arm.positions, arm.vertex_count, 0};
    sinew_soffd_register_desc policy; /* the defaults: each point's significant elements */
    SINEW_INIT(&policy);
    if ((r = sinew_soffd_register(NULL, soffd, &arm_points, &policy)) != SINEW_OK) return fail("soffd register", r);
    double t_register = support_now() - t0;
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(soffd, &info);
    float *element_frames = malloc(16 * info.element_count * sizeof(float));
    if (!palette || !element_frames) return fail("allocation", SINEW_ERROR_OUT_OF_MEMORY);

    double t_pose = 0;
    for (int f = 0; f < FRAMES && status == 0; ++f) {
        float angle = (float)(0.5 * M_PI) * (float)f / (float)(FRAMES - 1);
        float world[32];
        rotation_z(0.0f, world);        /* upper arm stays */
        rotation_z(angle, world + 16);  /* forearm bends about the elbow at the origin */

        t0 = support_now();
        sinew_skin_input in = {cage.positions, 0, NULL, 0, NULL, 0};
        sinew_skin_output out = {cage_posed, 0, NULL, 0, NULL, 0};
        sinew_points cage_now = {cage_posed, cage.vertex_count, 0};
        r = sinew_skin_palette(skin, world, 2, palette, sinew_skin_palette_size(skin));
        if (r == SINEW_OK) r = sinew_skin_deform(skin, palette, sinew_skin_palette_size(skin), &in, &out, 0, cage.vertex_count);
        if (r == SINEW_OK) r = sinew_soffd_element_frames(soffd, &cage_now, element_frames, sinew_soffd_element_frames_size(soffd));
        if (r == SINEW_OK) r = sinew_soffd_deform(soffd, element_frames, sinew_soffd_element_frames_size(soffd), NULL, arm_posed, 0, NULL, 0, 0, arm.vertex_count);
        t_pose += support_now() - t0;
        if (r != SINEW_OK) return fail("pose", r);

        char path[1024];
        snprintf(path, sizeof path, "%s/cage_%02d.obj", dir, f);
        if (!support_write_obj(path, cage_posed, cage.vertex_count, 0, cage_tris, cage_tri_count)) status = 1;
        snprintf(path, sizeof path, "%s/arm_%02d.obj", dir, f);
        if (!support_write_obj(path, arm_posed, arm.vertex_count, 0, arm_tris, arm_tri_count)) status = 1;
        if (f == FRAMES - 1) memcpy(arm_basic, arm_posed, 3 * arm.vertex_count * sizeof(float)); /* for the PNG */

        /* Extended algorithm: each cage vertex's own blended skinning matrix is
         * its frame, so the arm follows the cage's affine motion exactly. */
        r = sinew_skin_vertex_matrices(skin, palette, sinew_skin_palette_size(skin), vertex_frames, 0, 0,
                                       cage.vertex_count);
        if (r == SINEW_OK) r = sinew_soffd_deform_extended(soffd, vertex_frames, sinew_soffd_vertex_frames_size(soffd), NULL, arm_posed, 0, NULL, 0, 0, arm.vertex_count);
        if (r != SINEW_OK) return fail("extended deform", r);
        snprintf(path, sizeof path, "%s/arm_ext_%02d.obj", dir, f);
        if (!support_write_obj(path, arm_posed, arm.vertex_count, 0, arm_tris, arm_tri_count)) status = 1;
    }
    if (status) fprintf(stderr, "could not write the OBJ files into %s\n", dir);
    /* The last frame as a PNG (compose_pictures.c); arm_posed holds its extended result. */
    compose_picture picture = {cage.positions, cage_posed, cage.vertex_count, cage.indices, cage.face_sizes,
                               cage.face_count, arm.positions, arm_basic, arm_posed, arm.vertex_count, arm_tris,
                               arm_tri_count, ARM_RADIUS};
    if (status == 0 && !compose_pictures(dir, &picture)) status = 1;

    printf("compose_cage_arm: cage %zu vertices / %zu faces, arm %zu vertices; %d frames in %s\n", cage.vertex_count,
           cage.face_count, arm.vertex_count, FRAMES, dir);
    printf("  bbw (automatic volume, 2 bones, exact partition of unity): %.0f ms\n", 1e3 * t_bbw);
    printf("  soffd bind + register (threshold 1e-3, %.1f elements per point): %.0f ms\n",
           (double)info.contribution_count / (double)info.point_count, 1e3 * t_register);
    printf("  per frame, skin the cage + deform the arm: %.2f ms\n", 1e3 * t_pose / FRAMES);

    free(element_frames);
    free(palette);
    sinew_soffd_destroy(soffd);
    sinew_skin_destroy(skin);
    free(weights);
    free(joints);
    free(vertex_frames);
    free(arm_posed);
    free(arm_basic);
    free(cage_posed);
    free(arm_tris);
    free(cage_tris);
    free_mesh(&arm);
    free_mesh(&cage);
    return status;
}
