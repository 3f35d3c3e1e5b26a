/*
 * The context's parallel_for hook in the BBW solve: the per-vertex passes and
 * the multi-handle solves run as the host's tasks. Weights are bit-identical
 * between hooks given the same parallel_tasks (in order on one thread, on two
 * threads, in reverse order), identical to no hook when parallel_tasks is 1,
 * and within the certified tolerance of the serial solve otherwise.
 */
#define _POSIX_C_SOURCE 200809L /* pthreads (bbw_pool.h) */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bbw_fixture.h"
#include "bbw_pool.h"
#include "support.h"

typedef struct problem {
    grid2d g;
    sinew_trimesh tm;
    float pts[12];
    sinew_bbw_desc desc;
    size_t n;
} problem;

/* A 40 x 40 grid (1,681 vertices: enough for several tasks), four points
 * and a bone. */
static void problem_make(problem *p, float *joints, uint32_t *bones)
{
    memset(p, 0, sizeof *p);
    grid2d_make(&p->g, 40, 40, 1.0f, 1.0f);
    p->tm = (sinew_trimesh){{p->g.positions, p->g.vertex_count, 0}, p->g.triangles, p->g.triangle_count, SINEW_INDEX_U32, 0};
    const float pts[12] = {0.1f, 0.1f, 0, 0.9f, 0.15f, 0, 0.5f, 0.9f, 0, 0.2f, 0.8f, 0};
    memcpy(p->pts, pts, sizeof pts);
    SINEW_INIT(&p->desc);
    p->desc.triangles = &p->tm;
    p->desc.points.data = p->pts;
    p->desc.points.count = 4;
    p->desc.joint_positions.data = joints;
    p->desc.joint_positions.count = 2;
    p->desc.bones = bones;
    p->desc.bone_count = 1;
    p->n = p->g.vertex_count;
}

/* Solves in ctx (NULL = serial) at tolerance tol; returns the weights. */
static float *solve_in(sinew_context *ctx, const problem *p, double tol, sinew_bbw_info *info)
{
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(ctx, &p->desc, &b), SINEW_OK);
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.tolerance = tol;
    sinew_result r = sinew_bbw_solve(ctx, b, &sd);
    if (r != SINEW_OK) fail_msg("solve: %s", sinew_last_error());
    SINEW_INIT(info);
    assert_int_equal(sinew_bbw_get_info(b, info), SINEW_OK);
    float *w = malloc(p->n * info->handle_count * sizeof(float));
    assert_int_equal(sinew_bbw_vertex_weights(b, w, 0, p->n), SINEW_OK);
    sinew_bbw_destroy(b);
    return w;
}

static void test_hooks_agree(void **state)
{
    (void)state;
    float joints[6] = {0.5f, 0.3f, 0, 0.5f, 0.6f, 0};
    uint32_t bones[2] = {0, 1};
    problem p;
    problem_make(&p, joints, bones);
    const double tol = 1e-6;
    sinew_bbw_info serial_info, info;
    float *serial = solve_in(NULL, &p, tol, &serial_info);
    size_t cells = p.n * serial_info.handle_count;

    /* One task through a hook: the serial code path, bit for bit. */
    bbw_pool one = {.threads = 2};
    sinew_context *ctx = bbw_pool_context(&one, 0, 1);
    float *w = solve_in(ctx, &p, tol, &info);
    assert_memory_equal(w, serial, cells * sizeof(float));
    free(w);
    sinew_context_destroy(ctx);

    /* Three tasks: in order on this thread (a one-thread pool), on two
     * threads, and in reverse order: the same bits every time. */
    bbw_pool inorder = {.threads = 1}, two = {.threads = 2}, reverse = {.threads = 1};
    sinew_context *c1 = bbw_pool_context(&inorder, 0, 3), *c2 = bbw_pool_context(&two, 0, 3),
                  *c3 = bbw_pool_context(&reverse, 1, 3);
    sinew_bbw_info i1, i2, i3;
    float *w1 = solve_in(c1, &p, tol, &i1), *w2 = solve_in(c2, &p, tol, &i2), *w3 = solve_in(c3, &p, tol, &i3);
    assert_true(atomic_load(&inorder.calls) > 0 && atomic_load(&two.calls) > 0 && atomic_load(&reverse.calls) > 0);
    assert_memory_equal(w1, w2, cells * sizeof(float));
    assert_memory_equal(w1, w3, cells * sizeof(float));
    assert_int_equal(i1.iterations, i2.iterations);
    assert_int_equal(i1.iterations, i3.iterations);
    /* Against the serial solve: split sums and column groups round
     * differently, so the two runs may stop at different iterates; both are
     * certified to 1e-6 RMS, and the largest difference stays far below
     * anything visible (stated tolerance 1e-4). */
    double worst = 0.0;
    for (size_t k = 0; k < cells; ++k) worst = fmax(worst, fabs((double)w1[k] - serial[k]));
    printf("serial %u iterations, 3 tasks %u iterations (%u hook calls), max difference %.2e\n", serial_info.iterations,
           i1.iterations, (unsigned)atomic_load(&inorder.calls), worst);
    assert_true(worst <= 1e-4);
    free(w1);
    free(w2);
    free(w3);
    sinew_context_destroy(c1);
    sinew_context_destroy(c2);
    sinew_context_destroy(c3);
    free(serial);
    grid2d_free(&p.g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hooks_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
