/*
 * Bounded biharmonic weights for libigl's tutorial hand (tet mesh + 20-bone
 * skeleton), fed as top-4 influences to linear blend skinning posed by
 * hand-pose.dmat through the library's skinning phase (BBW -> skin is two
 * calls: sinew_bbw_top_k fills exactly the arrays sinew_skin_create takes);
 * writes the rest and posed surfaces as OBJ files, two bones' weights and the
 * pose as a PNG (bbw_hand_weights.png), and prints the timings.
 * The bones' world matrices come from a small forward-kinematics helper
 * (hand_pose.h) that follows libigl's pose convention.
 *
 * Usage: bbw_hand [output-folder]
 */
#include <stdio.h>
#include <stdlib.h>

#include "bbw_pictures.h"
#include "hand_pose.h"
#include "support.h"

/* The two bones whose weights the PNG shows (indices into hand.tgf's bones). */
#define HAND_PICTURE_BONES 17, 7 /* the thumb's middle segment, a finger's first */

int main(int argc, char **argv)
{
    const char *folder = argc > 1 ? argv[1] : ".";
    char mp[1024], tp[1024], pp[1024];
    if (!support_data_path("libigl-tutorial-data/hand.mesh", mp, sizeof mp) ||
        !support_data_path("libigl-tutorial-data/hand.tgf", tp, sizeof tp) ||
        !support_data_path("libigl-tutorial-data/hand-pose.dmat", pp, sizeof pp)) {
        fprintf(stderr, "bbw_hand: shared data not found (set SINEW_DATA_DIR)\n");
        return 1;
    }
    support_mesh mesh = {0};
    float *joints = NULL;
    uint32_t *bones = NULL;
    double *pose = NULL;
    size_t jc, bc, rows, cols;
    if (!support_read_medit(mp, &mesh) || !support_read_tgf(tp, &joints, &jc, &bones, &bc) ||
        !support_read_dmat(pp, &pose, &rows, &cols) || rows * cols != 4 * bc) {
        fprintf(stderr, "bbw_hand: cannot read the hand data\n");
        return 1;
    }
    sinew_tetmesh tets = {support_mesh_points(&mesh), mesh.tets, mesh.tet_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc desc;
    SINEW_INIT(&desc);
    desc.tets = &tets;
    desc.joint_positions.data = joints;
    desc.joint_positions.count = jc;
    desc.bones = bones;
    desc.bone_count = bc;
    sinew_bbw *bbw = NULL;
    double t0 = support_now();
    sinew_result r = sinew_bbw_create(NULL, &desc, &bbw);
    if (r == SINEW_OK) r = sinew_bbw_solve(NULL, bbw, NULL);
    double t1 = support_now();
    if (r != SINEW_OK) {
        fprintf(stderr, "bbw_hand: %s: %s\n", sinew_result_string(r), sinew_last_error());
        return 1;
    }
    sinew_bbw_info info;
    SINEW_INIT(&info);
    sinew_bbw_get_info(bbw, &info);
    printf("bbw_hand: %zu vertices, %zu tets, %zu bones: weights in %.2f s (%u iterations, %u polish rounds)\n",
           info.vertex_count, info.element_count, info.handle_count, t1 - t0, info.iterations, info.polish_rounds);

    /* BBW -> skinning in two calls: top-k in the skinning layout, then skin. */
    const uint32_t k = 4;
    size_t n = mesh.vertex_count;
    uint32_t *jt = malloc(n * k * sizeof(uint32_t));
    float *wt = malloc(n * k * sizeof(float)), *posed = malloc(n * 3 * sizeof(float));
    double *rot = malloc(bc * 4 * sizeof(double)), *trans = malloc(bc * 3 * sizeof(double));
    sinew_points surface = support_mesh_points(&mesh);
    sinew_bbw_top_k(bbw, &surface, k, jt, wt, 0, n);
    hp_forward_kinematics(joints, bones, bc, pose, rot, trans);
    sinew_skin_desc sk;
    SINEW_INIT(&sk);
    sk.vertex_count = n;
    sk.joint_count = bc;
    sk.influence_count = k;
    sk.joints = jt;
    sk.weights = wt;
    sinew_skin *skin = NULL;
    if ((r = sinew_skin_create(NULL, &sk, &skin)) != SINEW_OK) {
        fprintf(stderr, "bbw_hand: skin: %s: %s\n", sinew_result_string(r), sinew_last_error());
        return 1;
    }
    float *world = malloc(bc * 16 * sizeof(float));
    float *palette = malloc(sinew_skin_palette_size(skin) * sizeof(float));
    for (size_t j = 0; j < bc; ++j) hp_matrix(rot, trans, j, world + 16 * j);
    sinew_skin_palette(skin, world, bc, palette, sinew_skin_palette_size(skin));
    sinew_skin_input in = {mesh.positions, 0, NULL, 0, NULL, 0};
    sinew_skin_output out = {posed, 0, NULL, 0, NULL, 0};
    sinew_skin_deform(skin, palette, sinew_skin_palette_size(skin), &in, &out, 0, n);
    sinew_skin_destroy(skin);
    free(world);
    free(palette);
    char path[1024];
    snprintf(path, sizeof path, "%s/bbw-hand-rest.obj", folder);
    support_write_obj(path, mesh.positions, n, 0, mesh.triangles, mesh.triangle_count);
    printf("bbw_hand: wrote %s\n", path);
    snprintf(path, sizeof path, "%s/bbw-hand-posed.obj", folder);
    support_write_obj(path, posed, n, 0, mesh.triangles, mesh.triangle_count);
    printf("bbw_hand: wrote %s\n", path);
    /* Weights as colours on the surface, and the pose (bbw_pictures.c). */
    float *all_weights = malloc(n * bc * sizeof(float));
    bool pictures = all_weights && sinew_bbw_vertex_weights(bbw, all_weights, 0, n) == SINEW_OK;
    bbw_picture_surface picture = {mesh.positions, n, mesh.triangles, mesh.triangle_count, all_weights, bc};
    pictures = pictures && bbw_hand_pictures(folder, &picture, posed, HAND_PICTURE_BONES);
    free(all_weights);
    free(jt);
    free(wt);
    free(posed);
    free(rot);
    free(trans);
    free(joints);
    free(bones);
    free(pose);
    sinew_bbw_destroy(bbw);
    support_mesh_free(&mesh);
    return pictures ? 0 : 1;
}
