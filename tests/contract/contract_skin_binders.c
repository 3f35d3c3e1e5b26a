/* Contract of the binders in include/sinew/skin_tools.h beyond capsules:
 * point-to-line binding and weights from example poses. */
#include <math.h>
#include <string.h>

#include "contract.h"

#define VERTICES 4

static const float positions[VERTICES * 3] = {0.2f, 0.1f, 0, 0.9f, -0.1f, 0, 1.4f, 0.2f, 0, 1.9f, 0, 0.1f};
/* Two bones along x, the second continuing the first. */
static const sinew_skin_line_bone bones[2] = {{{0, 0, 0}, {1, 0, 0}, 0, SINEW_SKIN_NO_PARENT},
                                              {{1, 0, 0}, {2, 0, 0}, 1, 0}};
/* One example: joint 0 stays, joint 1 moves by +1 in y. */
static const float matrices[2 * 16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                       1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1};
static const float example[VERTICES * 3] = {0.2f, 0.1f, 0, 0.9f, 0.4f, 0, 1.4f, 1.2f, 0, 1.9f, 1, 0.1f};

#define OUT_RESIDUALS SCRATCH(float, 49152)

static sinew_points points_view(void)
{
    return (sinew_points){positions, VERTICES, 0};
}

static int cancel(void *user, const char *stage, float fraction)
{
    (void)user, (void)stage, (void)fraction;
    return 1;
}
static sinew_context *cancelling_context(void)
{
    static sinew_context *ctx;
    if (!ctx) {
        sinew_context_desc cd = {sizeof(sinew_context_desc), {NULL, NULL, NULL}, cancel, NULL, NULL, NULL, 0};
        if (sinew_context_create(&cd, &ctx) != SINEW_OK) return NULL;
    }
    return ctx;
}

/* ---- point-to-line ------------------------------------------------------------ */

static sinew_result line_points(sinew_points p)
{
    return sinew_skin_point_to_line_weights(NULL, &p, bones, 2, NULL, OUT_U32, OUT2_F, NULL);
}
static sinew_result line_bone_count(size_t count)
{
    sinew_points p = points_view();
    return sinew_skin_point_to_line_weights(NULL, &p, bones, count, NULL, OUT_U32, OUT2_F, NULL);
}
static sinew_result line_desc(sinew_skin_line_desc d)
{
    sinew_points p = points_view();
    return sinew_skin_point_to_line_weights(NULL, &p, bones, 2, &d, OUT_U32, OUT2_F, NULL);
}
static sinew_result line_outputs(uint32_t *joints, float *weights)
{
    sinew_points p = points_view();
    return sinew_skin_point_to_line_weights(NULL, &p, bones, 2, NULL, joints, weights, NULL);
}
/* field 0-2 head, 3-5 tail, 6 parent (value as an index). */
static sinew_result line_edited_bone(int field, float value)
{
    sinew_skin_line_bone b[2];
    memcpy(b, bones, sizeof b);
    if (field < 3) b[1].head[field] = value;
    else if (field < 6) b[1].tail[field - 3] = value;
    else b[1].parent = (uint32_t)value;
    sinew_points p = points_view();
    return sinew_skin_point_to_line_weights(NULL, &p, b, 2, NULL, OUT_U32, OUT2_F, NULL);
}
static sinew_result line_edited_point(size_t vertex, int axis, float value)
{
    static float moved[VERTICES * 3];
    memcpy(moved, positions, sizeof moved);
    moved[3 * vertex + (size_t)axis] = value;
    return line_points((sinew_points){moved, VERTICES, 0});
}
static sinew_result line_unbound_vertex(void)
{
    static uint32_t listed[4];
    sinew_points p = points_view();
    sinew_skin_line_desc d = {sizeof(sinew_skin_line_desc), 2, 0, 0.15f, SINEW_SKIN_UNBOUND_REPORT};
    sinew_skin_line_report report = {sizeof(sinew_skin_line_report), listed, 4, 0};
    sinew_result r = sinew_skin_point_to_line_weights(NULL, &p, bones, 2, &d, OUT_U32, OUT2_F, &report);
    if (report.unbound_count != 1 || listed[0] != 2) return SINEW_ERROR_PLAIN;
    return r;
}
static sinew_result line_report_without_array(void)
{
    sinew_points p = points_view();
    sinew_skin_line_report report = {sizeof(sinew_skin_line_report), NULL, 4, 0};
    return sinew_skin_point_to_line_weights(NULL, &p, bones, 2, NULL, OUT_U32, OUT2_F, &report);
}
static sinew_result line_cancelled(void)
{
    sinew_points p = points_view();
    return sinew_skin_point_to_line_weights(cancelling_context(), &p, bones, 2, NULL, OUT_U32, OUT2_F, NULL);
}

/* ---- example weights ---------------------------------------------------------- */

static sinew_result solve(sinew_points rest, const sinew_points *ex, size_t ex_count, const float *m, size_t joints,
                          const sinew_skin_example_desc *d, uint32_t *oj, float *ow, float *orr)
{
    return sinew_skin_example_weights(NULL, &rest, ex, ex_count, m, joints, d, oj, ow, orr,
                                      OUT_STRUCT(sinew_skin_example_report, 60000));
}
static sinew_result solve_default(void)
{
    sinew_points ex = {example, VERTICES, 0};
    return solve(points_view(), &ex, 1, matrices, 2, NULL, OUT_U32, OUT2_F, OUT_RESIDUALS);
}
static sinew_result solve_rest(sinew_points rest)
{
    sinew_points ex = {example, VERTICES, 0};
    return solve(rest, &ex, 1, matrices, 2, NULL, OUT_U32, OUT2_F, OUT_RESIDUALS);
}
static sinew_result solve_example(sinew_points ex)
{
    return solve(points_view(), &ex, 1, matrices, 2, NULL, OUT_U32, OUT2_F, OUT_RESIDUALS);
}
static sinew_result solve_counts(size_t ex_count, size_t joint_count)
{
    sinew_points ex = {example, VERTICES, 0};
    return solve(points_view(), &ex, ex_count, matrices, joint_count, NULL, OUT_U32, OUT2_F, OUT_RESIDUALS);
}
static sinew_result solve_matrix(size_t entry, float value)
{
    static float m[2 * 16];
    memcpy(m, matrices, sizeof m);
    m[entry] = value;
    sinew_points ex = {example, VERTICES, 0};
    return solve(points_view(), &ex, 1, m, 2, NULL, OUT_U32, OUT2_F, OUT_RESIDUALS);
}
static sinew_result solve_edited_example(size_t vertex, int axis, float value)
{
    static float moved[VERTICES * 3];
    memcpy(moved, example, sizeof moved);
    moved[3 * vertex + (size_t)axis] = value;
    return solve_example((sinew_points){moved, VERTICES, 0});
}
static sinew_result solve_outputs(uint32_t *oj, float *ow, float *orr)
{
    sinew_points ex = {example, VERTICES, 0};
    return solve(points_view(), &ex, 1, matrices, 2, NULL, oj, ow, orr);
}
static sinew_result solve_candidates(size_t count, const uint32_t *cand)
{
    sinew_skin_example_desc d = {sizeof(sinew_skin_example_desc), 2, count, cand, 0};
    sinew_points ex = {example, VERTICES, 0};
    return solve(points_view(), &ex, 1, matrices, 2, &d, OUT_U32, OUT2_F, OUT_RESIDUALS);
}
static sinew_result solve_bad_candidate(void)
{
    static const uint32_t cand[VERTICES] = {0, 1, 2, 0};
    return solve_candidates(1, cand);
}
static sinew_result solve_good_candidate(void)
{
    static const uint32_t cand[VERTICES * 2] = {0, 1, 1, 1, 0, 1, 1, 0};
    return solve_candidates(2, cand);
}
static sinew_result solve_cancelled(void)
{
    sinew_points rest = points_view(), ex = {example, VERTICES, 0};
    return sinew_skin_example_weights(cancelling_context(), &rest, &ex, 1, matrices, 2, NULL, OUT_U32, OUT2_F,
                                      OUT_RESIDUALS, NULL);
}

static sinew_result solve_null_rest(void)
{
    sinew_points ex = {example, VERTICES, 0};
    return sinew_skin_example_weights(NULL, NULL, &ex, 1, matrices, 2, NULL, OUT_U32, OUT2_F, NULL, NULL);
}
static sinew_result solve_rest_nan(void)
{
    static float p[VERTICES * 3];
    memcpy(p, positions, sizeof p);
    p[10] = NAN;
    return solve_rest((sinew_points){p, VERTICES, 0});
}
static sinew_result solve_matrices(const float *m)
{
    sinew_points ex = {example, VERTICES, 0};
    return solve(points_view(), &ex, 1, m, 2, NULL, OUT_U32, OUT2_F, NULL);
}
static sinew_result solve_unset_desc(void)
{
    sinew_skin_example_desc d = {0, 2, 0, NULL, 0};
    sinew_points ex = {example, VERTICES, 0};
    return solve(points_view(), &ex, 1, matrices, 2, &d, OUT_U32, OUT2_F, NULL);
}

#define CASES(X) \
    /* point-to-line */ \
    X(line_null_positions, INVALID_ARGUMENT, "mesh vertex", \
      { return sinew_skin_point_to_line_weights(NULL, NULL, bones, 2, NULL, OUT_U32, OUT2_F, NULL); }) \
    X(line_null_bones, INVALID_ARGUMENT, "no bones", \
      { sinew_points p = points_view(); \
        return sinew_skin_point_to_line_weights(NULL, &p, NULL, 2, NULL, OUT_U32, OUT2_F, NULL); }) \
    X(line_no_bones, INVALID_ARGUMENT, "no bones", { return line_bone_count(0); }) \
    X(line_bone_count_size_max, SIZE_OVERFLOW, "bones", { return line_bone_count(SIZE_MAX); }) \
    X(line_bone_count_size_max_16, SIZE_OVERFLOW, "bones", { return line_bone_count(SIZE_MAX / 16); }) \
    X(line_null_joints, INVALID_ARGUMENT, "joints", { return line_outputs(NULL, OUT2_F); }) \
    X(line_null_weights, INVALID_ARGUMENT, "weights", { return line_outputs(OUT_U32, NULL); }) \
    X(line_misaligned_joints, INVALID_ARGUMENT, "joints", { return line_outputs(MISALIGNED(uint32_t, OUT_U32), OUT2_F); }) \
    X(line_misaligned_weights, INVALID_ARGUMENT, "weights", { return line_outputs(OUT_U32, MISALIGNED(float, OUT2_F)); }) \
    X(line_no_vertices, INVALID_ARGUMENT, "vertices", { return line_points((sinew_points){positions, 0, 0}); }) \
    X(line_vertex_count_size_max_3, SIZE_OVERFLOW, "mesh vertex", \
      { return line_points((sinew_points){positions, SIZE_MAX / 3, 0}); }) \
    X(line_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return line_points((sinew_points){positions, 2, 13}); }) \
    X(line_position_nan, NON_FINITE, "mesh vertex 2", { return line_edited_point(2, 1, NAN); }) \
    X(line_head_nan, NON_FINITE, "bone 1 head", { return line_edited_bone(1, NAN); }) \
    X(line_tail_infinite, NON_FINITE, "bone 1 tail", { return line_edited_bone(4, INFINITY); }) \
    X(line_parent_out_of_range, INDEX_OUT_OF_RANGE, "bone 1 names parent 5", { return line_edited_bone(6, 5.0f); }) \
    X(line_own_parent, INVALID_ARGUMENT, "bone 1 is its own parent", { return line_edited_bone(6, 1.0f); }) \
    X(line_zero_length, DEGENERATE, "bone 1 has zero length", { return line_edited_bone(3, 1.0f); }) \
    X(line_folded_back, DEGENERATE, "bone 1 folds back", { return line_edited_bone(3, 0.0f); }) \
    X(line_blend_above_one, INVALID_ARGUMENT, "blend", \
      { return line_desc((sinew_skin_line_desc){sizeof(sinew_skin_line_desc), 4, 2.0f, 0, SINEW_SKIN_UNBOUND_REPORT}); }) \
    X(line_blend_nan, NON_FINITE, "blend", \
      { return line_desc((sinew_skin_line_desc){sizeof(sinew_skin_line_desc), 4, NAN, 0, SINEW_SKIN_UNBOUND_REPORT}); }) \
    X(line_max_distance_negative, INVALID_ARGUMENT, "max_distance", \
      { return line_desc((sinew_skin_line_desc){sizeof(sinew_skin_line_desc), 4, 0, -1.0f, SINEW_SKIN_UNBOUND_REPORT}); }) \
    X(line_bad_unbound_policy, INVALID_ARGUMENT, "unbound", \
      { return line_desc((sinew_skin_line_desc){sizeof(sinew_skin_line_desc), 4, 0, 0, (sinew_skin_unbound)2}); }) \
    X(line_desc_unset, INVALID_ARGUMENT, "SINEW_INIT", \
      { return line_desc((sinew_skin_line_desc){0, 4, 0, 0, SINEW_SKIN_UNBOUND_REPORT}); }) \
    X(line_report_capacity_without_array, INVALID_ARGUMENT, "report", { return line_report_without_array(); }) \
    X(line_unbound_vertex_reported, OUTSIDE_DOMAIN, "vertex 2", { return line_unbound_vertex(); }) \
    X(line_cancelled, CANCELLED, "point-to-line", { return line_cancelled(); }) \
    X(line_ok, OK, NULL, { return line_outputs(OUT_U32, OUT2_F); }) \
    X(line_one_slot_ok, OK, NULL, \
      { return line_desc((sinew_skin_line_desc){sizeof(sinew_skin_line_desc), 1, 0.5f, 0, SINEW_SKIN_UNBOUND_REPORT}); }) \
    /* example weights */ \
    X(example_null_rest, INVALID_ARGUMENT, "rest vertex", { return solve_null_rest(); }) \
    X(example_no_vertices, INVALID_ARGUMENT, "no vertices", { return solve_rest((sinew_points){positions, 0, 0}); }) \
    X(example_rest_nan, NON_FINITE, "rest vertex 3", { return solve_rest_nan(); }) \
    X(example_rest_stride_too_small, INVALID_ARGUMENT, "stride", \
      { return solve_rest((sinew_points){positions, VERTICES, 8}); }) \
    X(example_rest_count_size_max_3, SIZE_OVERFLOW, "rest vertex", \
      { return solve_rest((sinew_points){positions, SIZE_MAX / 3, 0}); }) \
    X(example_zero_examples, INVALID_ARGUMENT, "no example poses", { return solve_counts(0, 2); }) \
    X(example_null_examples, INVALID_ARGUMENT, "no example poses", \
      { return solve(points_view(), NULL, 1, matrices, 2, NULL, OUT_U32, OUT2_F, NULL); }) \
    X(example_count_size_max, SIZE_OVERFLOW, "example poses", { return solve_counts(SIZE_MAX, 2); }) \
    X(example_point_nan, NON_FINITE, "example 0 point 1", { return solve_edited_example(1, 2, NAN); }) \
    X(example_count_mismatch, MISMATCH, "example 0 has 3 points", \
      { return solve_example((sinew_points){example, VERTICES - 1, 0}); }) \
    X(example_no_joints, INVALID_ARGUMENT, "no joints", { return solve_counts(1, 0); }) \
    X(example_joints_size_max, SIZE_OVERFLOW, "joints", { return solve_counts(1, SIZE_MAX); }) \
    X(example_null_matrices, INVALID_ARGUMENT, "matrices", { return solve_matrices(NULL); }) \
    X(example_misaligned_matrices, INVALID_ARGUMENT, "matrices", \
      { return solve_matrices(MISALIGNED(const float, matrices)); }) \
    X(example_matrix_nan, NON_FINITE, "example 0 joint 1 matrix", { return solve_matrix(16 + 5, NAN); }) \
    X(example_matrix_not_affine, INVALID_ARGUMENT, "example 0 joint 1 matrix is not affine", \
      { return solve_matrix(16 + 15, 2.0f); }) \
    X(example_candidates_null, INVALID_ARGUMENT, "candidate_joints", { return solve_candidates(2, NULL); }) \
    X(example_candidate_out_of_range, INDEX_OUT_OF_RANGE, "vertex 2 candidate slot 0 names joint 2", \
      { return solve_bad_candidate(); }) \
    X(example_null_joints, INVALID_ARGUMENT, "joints", { return solve_outputs(NULL, OUT2_F, NULL); }) \
    X(example_null_weights, INVALID_ARGUMENT, "weights", { return solve_outputs(OUT_U32, NULL, NULL); }) \
    X(example_misaligned_weights, INVALID_ARGUMENT, "weights", \
      { return solve_outputs(OUT_U32, MISALIGNED(float, OUT2_F), NULL); }) \
    X(example_misaligned_residuals, INVALID_ARGUMENT, "residuals", \
      { return solve_outputs(OUT_U32, OUT2_F, MISALIGNED(float, OUT_RESIDUALS)); }) \
    X(example_desc_unset, INVALID_ARGUMENT, "SINEW_INIT", { return solve_unset_desc(); }) \
    X(example_cancelled, CANCELLED, "example weights", { return solve_cancelled(); }) \
    X(example_ok, OK, NULL, { return solve_default(); }) \
    X(example_candidates_ok, OK, NULL, { return solve_good_candidate(); }) \
    X(example_no_residuals_ok, OK, NULL, { return solve_outputs(OUT_U32, OUT2_F, NULL); })

CASES(CONTRACT_DEFINE)
static const contract_case cases[] = {CASES(CONTRACT_ENTRY)};

static int teardown(void **state)
{
    (void)state;
    sinew_context_destroy(cancelling_context());
    return 0;
}

int main(void)
{
    static const contract_hooks hooks = {NULL, teardown, NULL, NULL};
    return contract_run("contract-skin-binders", cases, sizeof cases / sizeof cases[0], &hooks);
}
