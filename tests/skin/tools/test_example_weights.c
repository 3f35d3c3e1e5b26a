/* Weights from example poses: generating weights recovered, the simplex and
 * k-influence limits, the optimum against brute force, the reported residual
 * against one computed here, candidates, every error path, allocation
 * failures, cancellation, and the asset's own weights recovered from its
 * animation on RiggedFigure (skipped without the shared data). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fixtures.h"
#include "gltf_reader.h"
#include "support.h"

/* A random affine matrix: rotation-ish linear part with scale near 1 and a
 * translation, column-major. */
static void random_affine(support_rng *rng, float *m)
{
    memset(m, 0, 16 * sizeof *m);
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) m[4 * c + r] = (float)support_rng_uniform(rng, -1, 1) + (r == c ? 1.5f : 0.0f);
    for (int r = 0; r < 3; ++r) m[12 + r] = (float)support_rng_uniform(rng, -1, 1);
    m[15] = 1.0f;
}

static void blend(const float *matrices, size_t joint_count, size_t e, const double *w, const float p[3], double out[3])
{
    out[0] = out[1] = out[2] = 0;
    for (size_t j = 0; j < joint_count; ++j) {
        if (w[j] == 0) continue;
        const float *M = matrices + 16 * (e * joint_count + j);
        for (int r = 0; r < 3; ++r)
            out[r] += w[j] * ((double)M[r] * p[0] + (double)M[4 + r] * p[1] + (double)M[8 + r] * p[2] + M[12 + r]);
    }
}

/* |A w - b| over the examples, for dense weights w. */
static double residual_of(const float *matrices, size_t joint_count, const sinew_points *ex, size_t E, const float p[3],
                          size_t v, const double *w)
{
    double s = 0;
    for (size_t e = 0; e < E; ++e) {
        double x[3];
        blend(matrices, joint_count, e, w, p, x);
        const float *q = ex[e].data + 3 * v;
        for (int r = 0; r < 3; ++r) s += (x[r] - q[r]) * (x[r] - q[r]);
    }
    return sqrt(s);
}

static void dense_row(const uint32_t *j, const float *w, size_t k, size_t v, size_t joint_count, double *out)
{
    memset(out, 0, joint_count * sizeof *out);
    for (size_t s = 0; s < k; ++s) out[j[v * k + s]] += w[v * k + s];
}

typedef struct problem {
    size_t n, J, E;
    float *rest, *q, *matrices;
    sinew_points ex[4];
    double *truth;   /* n * J generating weights, when generated */
} problem;

/* n vertices, J joints, E examples; with `generated` the example positions
 * are blends of `support` random joints with random weights, else random. */
static problem make_problem(uint64_t seed, size_t n, size_t J, size_t E, size_t support, bool generated)
{
    problem P = {n, J, E, NULL, NULL, NULL, {{0}}, NULL};
    support_rng rng;
    support_rng_seed(&rng, seed);
    P.rest = malloc(3 * n * sizeof(float));
    P.q = malloc(3 * n * E * sizeof(float));
    P.matrices = malloc(16 * J * E * sizeof(float));
    P.truth = calloc(n * J, sizeof(double));
    for (size_t i = 0; i < 3 * n; ++i) P.rest[i] = (float)support_rng_uniform(&rng, -1, 1);
    for (size_t m = 0; m < J * E; ++m) random_affine(&rng, P.matrices + 16 * m);
    for (size_t v = 0; v < n; ++v) {
        double *w = P.truth + v * J, sum = 0;
        for (size_t s = 0; s < support; ++s) {
            size_t j = (size_t)(support_rng_next(&rng) % J);
            double x = support_rng_uniform(&rng, 0.1, 1.0);
            w[j] += x;
            sum += x;
        }
        for (size_t j = 0; j < J; ++j) w[j] /= sum;
        for (size_t e = 0; e < E; ++e) {
            double x[3];
            blend(P.matrices, J, e, w, P.rest + 3 * v, x);
            for (int r = 0; r < 3; ++r)
                P.q[3 * (e * n + v) + (size_t)r] = generated ? (float)x[r] : (float)support_rng_uniform(&rng, -3, 3);
        }
    }
    for (size_t e = 0; e < E; ++e) P.ex[e] = (sinew_points){P.q + 3 * e * n, n, 0};
    return P;
}

static void problem_free(problem *P)
{
    free(P->rest);
    free(P->q);
    free(P->matrices);
    free(P->truth);
}

/* A closed form: examples made by known weights (up to 3
 * joints of 5, two examples: 6 equations for 4 free weights) give those
 * weights back, with a residual at float rounding. */
static void generating_weights_are_recovered(void **state)
{
    (void)state;
    enum { N = 200, J = 5, K = 4 };
    problem P = make_problem(21, N, J, 2, 3, true);
    sinew_points rest = {P.rest, N, 0};
    uint32_t j[N * K];
    float w[N * K], res[N];
    sinew_skin_example_report rep;
    SINEW_INIT(&rep);
    assert_int_equal(sinew_skin_example_weights(NULL, &rest, P.ex, 2, P.matrices, J, NULL, j, w, res, &rep), SINEW_OK);
    assert_int_equal(first_bad_row(j, w, N, K), SIZE_MAX);
    assert_true(rep.kkt_violation <= 1e-9);
    double worst = 0;
    for (size_t v = 0; v < N; ++v) {
        double got[J];
        dense_row(j, w, K, v, J, got);
        for (size_t b = 0; b < J; ++b) worst = fmax(worst, fabs(got[b] - P.truth[v * J + b]));
        assert_true(res[v] < 1e-5f);
    }
    printf("generating weights recovered to %.2e (max residual %.2e)\n", worst, rep.max_residual);
    assert_true(worst < 2e-5);
    problem_free(&P);
}

/* Random (not generated) examples: every row is on the simplex with at most
 * k joints, the reported residual is the residual of the weights written,
 * and with no influence limit the weights are at least as good as every
 * point of a fine grid on the simplex. */
static void optimum_beats_the_grid_and_residual_is_true(void **state)
{
    (void)state;
    enum { N = 60, J = 3, K = 3 };
    problem P = make_problem(33, N, J, 1, 1, false);
    sinew_points rest = {P.rest, N, 0};
    uint32_t j[N * K];
    float w[N * K], res[N];
    sinew_skin_example_desc d;
    SINEW_INIT(&d);
    d.influence_count = K;
    sinew_skin_example_report rep;
    SINEW_INIT(&rep);
    assert_int_equal(sinew_skin_example_weights(NULL, &rest, P.ex, 1, P.matrices, J, &d, j, w, res, &rep), SINEW_OK);
    assert_int_equal(first_bad_row(j, w, N, K), SIZE_MAX);
    assert_true(rep.kkt_violation <= 1e-9);
    double max_res = 0;
    for (size_t v = 0; v < N; ++v) {
        double got[J];
        dense_row(j, w, K, v, J, got);
        double mine = residual_of(P.matrices, J, P.ex, 1, P.rest + 3 * v, v, got);
        assert_float_equal(res[v], mine, 1e-6 * fmax(1.0, mine));
        max_res = fmax(max_res, mine);
        double best = INFINITY;
        for (int a = 0; a <= 200; ++a)
            for (int b = 0; a + b <= 200; ++b) {
                double g[J] = {a / 200.0, b / 200.0, (200 - a - b) / 200.0};
                best = fmin(best, residual_of(P.matrices, J, P.ex, 1, P.rest + 3 * v, v, g));
            }
        assert_true(mine <= best + 1e-5);
    }
    assert_float_equal(rep.max_residual, max_res, 1e-6 * fmax(1.0, max_res));
    problem_free(&P);
}

/* The influence limit: with k = 1 the vertex goes wholly to the best single
 * joint of the full optimum's support (enumeration); forcing the top-k rule
 * (max_subsets 1) keeps the k largest weights of the full optimum. */
static void influence_limit_follows_the_documented_rule(void **state)
{
    (void)state;
    enum { N = 80, J = 6 };
    problem P = make_problem(44, N, J, 1, 1, false);
    sinew_points rest = {P.rest, N, 0};
    uint32_t jf[N * J], j1[N], j2[N * 2];
    float wf[N * J], w1[N], w2[N * 2];
    sinew_skin_example_desc d;
    SINEW_INIT(&d);
    d.influence_count = J;
    assert_int_equal(sinew_skin_example_weights(NULL, &rest, P.ex, 1, P.matrices, J, &d, jf, wf, NULL, NULL), SINEW_OK);
    d.influence_count = 1;
    sinew_skin_example_report rep;
    SINEW_INIT(&rep);
    assert_int_equal(sinew_skin_example_weights(NULL, &rest, P.ex, 1, P.matrices, J, &d, j1, w1, NULL, &rep), SINEW_OK);
    size_t limited = 0;
    for (size_t v = 0; v < N; ++v) {
        size_t support = 0;
        double best = INFINITY;
        uint32_t best_j = 0;
        for (size_t s = 0; s < J; ++s) {
            if (wf[v * J + s] == 0.0f) continue;
            ++support;
            double one[J] = {0};
            one[jf[v * J + s]] = 1.0;
            double r = residual_of(P.matrices, J, P.ex, 1, P.rest + 3 * v, v, one);
            if (r < best) best = r, best_j = jf[v * J + s];
        }
        limited += support > 1;
        assert_true(w1[v] == 1.0f);
        if (support > 1) assert_int_equal(j1[v], best_j);
        else assert_int_equal(j1[v], jf[v * J]);
    }
    assert_int_equal(rep.vertices_limited, limited);
    assert_int_equal(rep.vertices_enumerated, limited);
    assert_true(limited > 10);
    /* Top-k: k = 2 with max_subsets 1 (every support of 3 or more has more
     * than one pair): the two largest full-optimum weights choose the joints. */
    d.influence_count = 2;
    d.max_subsets = 1;
    SINEW_INIT(&rep);
    assert_int_equal(sinew_skin_example_weights(NULL, &rest, P.ex, 1, P.matrices, J, &d, j2, w2, NULL, &rep), SINEW_OK);
    assert_int_equal(first_bad_row(j2, w2, N, 2), SIZE_MAX);
    size_t topk = 0;
    for (size_t v = 0; v < N; ++v) {
        if (!(wf[v * J + 2] > 0.0f)) continue;   /* support of 2 or less: no limit */
        ++topk;
        if (wf[v * J + 1] == wf[v * J + 2]) continue;   /* a tie: either joint is allowed */
        for (size_t s = 0; s < 2; ++s)
            if (w2[v * 2 + s] > 0.0f) assert_true(j2[v * 2 + s] == jf[v * J] || j2[v * 2 + s] == jf[v * J + 1]);
    }
    assert_int_equal(rep.vertices_limited, topk);
    assert_int_equal(rep.vertices_enumerated, 0);
    assert_true(rep.kkt_violation <= 1e-9);
    problem_free(&P);
}

/* Candidates restrict the joints; duplicates count once. */
static void candidates_restrict_the_joints(void **state)
{
    (void)state;
    enum { N = 50, J = 5, K = 4 };
    problem P = make_problem(55, N, J, 2, 3, true);
    sinew_points rest = {P.rest, N, 0};
    uint32_t cand[N * 3];
    for (size_t v = 0; v < N; ++v) cand[3 * v] = 4, cand[3 * v + 1] = 1, cand[3 * v + 2] = 4;
    sinew_skin_example_desc d;
    SINEW_INIT(&d);
    d.candidate_count = 3;
    d.candidate_joints = cand;
    uint32_t j[N * K];
    float w[N * K];
    assert_int_equal(sinew_skin_example_weights(NULL, &rest, P.ex, 2, P.matrices, J, &d, j, w, NULL, NULL), SINEW_OK);
    assert_int_equal(first_bad_row(j, w, N, K), SIZE_MAX);
    for (size_t v = 0; v < N; ++v) {
        assert_true(row_weight(j, w, K, v, 1) + row_weight(j, w, K, v, 4) > 1.0 - 1e-6);
        assert_true(w[v * K + 2] == 0.0f);
    }
    problem_free(&P);
}

static void invalid_inputs_are_named(void **state)
{
    (void)state;
    enum { N = 3, J = 2 };
    problem P = make_problem(66, N, J, 2, 2, true);
    sinew_points rest = {P.rest, N, 0};
    uint32_t j[N * 4 + 1];
    float w[N * 4 + 1], res[N + 1];
    for (int i = 0; i < N * 4 + 1; ++i) j[i] = 5, w[i] = 3;
    for (int i = 0; i < N + 1; ++i) res[i] = 7;
    sinew_skin_example_desc d;
    SINEW_INIT(&d);
    sinew_skin_example_report rep;
    SINEW_INIT(&rep);
    rep.max_residual = 123;
#define EXPECT(call, code, text)                             \
    do {                                                     \
        assert_int_equal((call), (code));                    \
        assert_non_null(strstr(sinew_last_error(), (text))); \
    } while (0)
#define SOLVE(ex, e, m, jc) sinew_skin_example_weights(NULL, &rest, (ex), (e), (m), (jc), &d, j, w, res, &rep)
    EXPECT(sinew_skin_example_weights(NULL, NULL, P.ex, 2, P.matrices, J, &d, j, w, res, &rep),
           SINEW_ERROR_INVALID_ARGUMENT, "rest vertex");
    EXPECT(SOLVE(P.ex, 0, P.matrices, J), SINEW_ERROR_INVALID_ARGUMENT, "no example poses");
    EXPECT(SOLVE(NULL, 2, P.matrices, J), SINEW_ERROR_INVALID_ARGUMENT, "no example poses");
    EXPECT(SOLVE(P.ex, 2, P.matrices, 0), SINEW_ERROR_INVALID_ARGUMENT, "no joints");
    EXPECT(SOLVE(P.ex, 2, NULL, J), SINEW_ERROR_INVALID_ARGUMENT, "matrices is NULL");
    EXPECT(SOLVE(P.ex, 2, P.matrices, SIZE_MAX / 8), SINEW_ERROR_SIZE_OVERFLOW, "joints");
    EXPECT(SOLVE(P.ex, SIZE_MAX / 8, P.matrices, J), SINEW_ERROR_SIZE_OVERFLOW, "example poses overflow");
    EXPECT(SOLVE(P.ex, 2, (const float *)((const char *)P.matrices + 2), J), SINEW_ERROR_INVALID_ARGUMENT,
           "aligned");
    P.rest[4] = NAN;
    EXPECT(SOLVE(P.ex, 2, P.matrices, J), SINEW_ERROR_NON_FINITE, "rest vertex 1");
    P.rest[4] = 0;
    float keep = P.q[3 * (N + 2)];
    P.q[3 * (N + 2)] = INFINITY;
    EXPECT(SOLVE(P.ex, 2, P.matrices, J), SINEW_ERROR_NON_FINITE, "example 1 point 2");
    P.q[3 * (N + 2)] = keep;
    P.ex[1].count = N - 1;
    EXPECT(SOLVE(P.ex, 2, P.matrices, J), SINEW_ERROR_MISMATCH, "example 1 has 2 points, but there are 3 rest vertices");
    P.ex[1].count = N;
    P.matrices[16 * 3 + 13] = NAN;
    EXPECT(SOLVE(P.ex, 2, P.matrices, J), SINEW_ERROR_NON_FINITE, "example 1 joint 1 matrix entry (row 1, column 3)");
    P.matrices[16 * 3 + 13] = 0;
    P.matrices[16 * 2 + 3] = 0.5f;
    EXPECT(SOLVE(P.ex, 2, P.matrices, J), SINEW_ERROR_INVALID_ARGUMENT, "example 1 joint 0 matrix is not affine");
    P.matrices[16 * 2 + 3] = 0;
    uint32_t cand[N * 2] = {0, 1, 1, 2, 0, 0};
    d.candidate_count = 2;
    EXPECT(SOLVE(P.ex, 2, P.matrices, J), SINEW_ERROR_INVALID_ARGUMENT, "candidate_joints is NULL");
    d.candidate_joints = cand;
    EXPECT(SOLVE(P.ex, 2, P.matrices, J), SINEW_ERROR_INDEX_OUT_OF_RANGE,
           "vertex 1 candidate slot 1 names joint 2, but there are only 2 joints");
    d.candidate_count = 0;
    d.candidate_joints = NULL;
    EXPECT(sinew_skin_example_weights(NULL, &rest, P.ex, 2, P.matrices, J, &d, NULL, w, res, &rep),
           SINEW_ERROR_INVALID_ARGUMENT, "output joints");
    EXPECT(sinew_skin_example_weights(NULL, &rest, P.ex, 2, P.matrices, J, &d, j, NULL, res, &rep),
           SINEW_ERROR_INVALID_ARGUMENT, "output weights");
    EXPECT(sinew_skin_example_weights(NULL, &rest, P.ex, 2, P.matrices, J, &d, j, w,
                                      (float *)(void *)((char *)res + 2), &rep),
           SINEW_ERROR_INVALID_ARGUMENT, "residuals is not aligned");
    sinew_points none = {P.rest, 0, 0};
    EXPECT(sinew_skin_example_weights(NULL, &none, P.ex, 2, P.matrices, J, &d, j, w, res, &rep),
           SINEW_ERROR_INVALID_ARGUMENT, "no vertices");
    sinew_skin_example_report zeroed = {0};
    EXPECT(sinew_skin_example_weights(NULL, &rest, P.ex, 2, P.matrices, J, &d, j, w, res, &zeroed),
           SINEW_ERROR_INVALID_ARGUMENT, "report");
    for (int i = 0; i < N * 4 + 1; ++i) assert_true(j[i] == 5 && w[i] == 3.0f);
    for (int i = 0; i < N + 1; ++i) assert_true(res[i] == 7.0f);
    assert_true(rep.max_residual == 123.0);
    assert_int_equal(SOLVE(P.ex, 2, P.matrices, J), SINEW_OK);
    assert_string_equal(sinew_last_error(), "");
#undef SOLVE
#undef EXPECT
    problem_free(&P);
}

/* Finite inputs whose residual leaves the float range fail, naming the vertex. */
static void residual_beyond_float_range_fails(void **state)
{
    (void)state;
    const float rest[] = {1e30f, 0, 0};
    const float q[] = {-2e38f, 0, 0};
    float M[16] = {3e8f, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    sinew_points r = {rest, 1, 0}, ex = {q, 1, 0};
    uint32_t j[4] = {9, 9, 9, 9};
    float w[4] = {2, 2, 2, 2};
    assert_int_equal(sinew_skin_example_weights(NULL, &r, &ex, 1, M, 1, NULL, j, w, NULL, NULL),
                     SINEW_ERROR_NON_FINITE);
    assert_non_null(strstr(sinew_last_error(), "vertex 0"));
    for (int i = 0; i < 4; ++i) assert_true(j[i] == 9 && w[i] == 2.0f);
}

typedef struct sweep_case {
    problem P;
    uint32_t *j;
    float *w, *res;
} sweep_case;

static sinew_result solve_attempt(sinew_context *ctx, void *user)
{
    sweep_case *c = (sweep_case *)user;
    sinew_points rest = {c->P.rest, c->P.n, 0};
    sinew_skin_example_desc d;
    SINEW_INIT(&d);
    d.influence_count = 2;
    sinew_result r = sinew_skin_example_weights(ctx, &rest, c->P.ex, c->P.E, c->P.matrices, c->P.J, &d, c->j, c->w,
                                                c->res, NULL);
    if (r == SINEW_ERROR_OUT_OF_MEMORY && !strstr(sinew_last_error(), "out of memory allocating "))
        return SINEW_ERROR_INVALID_STATE;
    return r;
}

static void allocation_failures_are_clean(void **state)
{
    (void)state;
    sweep_case c;
    c.P = make_problem(77, 10, 4, 2, 3, true);
    c.j = malloc(10 * 2 * sizeof *c.j);
    c.w = malloc(10 * 2 * sizeof *c.w);
    c.res = malloc(10 * sizeof *c.res);
    size_t runs = 0;
    char report[256];
    assert_true(support_sweep_allocation_failures(solve_attempt, &c, &runs, report, sizeof report));
    assert_true(runs > 8);
    free(c.j);
    free(c.w);
    free(c.res);
    problem_free(&c.P);
}

static int cancel_at_once(void *user, const char *stage, float fraction)
{
    (void)fraction;
    ++*(int *)user;
    return strcmp(stage, "skin: example weights") == 0;
}

static void cancellation_leaves_outputs_untouched(void **state)
{
    (void)state;
    int calls = 0;
    sinew_context_desc cd;
    SINEW_INIT(&cd);
    cd.progress = cancel_at_once;
    cd.progress_user = &calls;
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
    problem P = make_problem(88, 6, 3, 1, 2, true);
    sinew_points rest = {P.rest, 6, 0};
    uint32_t j[24];
    float w[24], res[6];
    for (int i = 0; i < 24; ++i) j[i] = 3, w[i] = 2;
    for (int i = 0; i < 6; ++i) res[i] = 4;
    sinew_skin_example_report rep;
    SINEW_INIT(&rep);
    rep.vertices_limited = 42;
    assert_int_equal(sinew_skin_example_weights(ctx, &rest, P.ex, 1, P.matrices, 3, NULL, j, w, res, &rep),
                     SINEW_ERROR_CANCELLED);
    assert_int_equal(calls, 1);
    for (int i = 0; i < 24; ++i) assert_true(j[i] == 3 && w[i] == 2.0f);
    for (int i = 0; i < 6; ++i) assert_true(res[i] == 4.0f);
    assert_int_equal(rep.vertices_limited, 42);
    sinew_context_destroy(ctx);
    problem_free(&P);
}

/* ---- Real data: RiggedFigure's weights from its own animation --------------------
 * Examples: the rest mesh skinned (in double) with the asset's weights at
 * `poses` evenly spaced times of its animation; the solve sees only those
 * positions and the skinning matrices, with every joint a candidate or with
 * the asset's own four joints as candidates (the influence set an artist
 * names, as in Mohr et al.). Figures: the mean total-variation distance of
 * the recovered rows from the asset's, over motion classes (joints the
 * examples move alike cannot be told apart, so their weights are compared
 * summed), the rows recovered to 1e-3, and the largest residual relative to
 * the mesh size. */
static void recover_from_animation(const gltf_model *m, size_t poses, bool own_candidates)
{
    enum { K = 4 };
    size_t n = m->vertex_count, J = m->joint_count;
    float *rest = malloc(3 * n * sizeof(float)), *q = malloc(3 * n * poses * sizeof(float));
    float *mats = malloc(16 * J * poses * sizeof(float));
    double *world = malloc(16 * m->node_count * sizeof(double));
    sinew_points *ex = malloc(poses * sizeof *ex);
    for (size_t i = 0; i < 3 * n; ++i) rest[i] = (float)m->positions[i];
    for (size_t e = 0; e < poses; ++e) {
        gltf_pose(m, m->duration * (double)(e + 1) / (double)(poses + 1), world);
        for (size_t j = 0; j < J; ++j) {
            const double *W = world + 16 * (size_t)m->joint_nodes[j], *B = m->inverse_bind + 16 * j;
            float *M = mats + 16 * (e * J + j);
            for (int c = 0; c < 4; ++c)
                for (int r = 0; r < 4; ++r) {
                    double s = 0;
                    for (int t = 0; t < 4; ++t) s += W[4 * t + r] * B[4 * c + t];
                    M[4 * c + r] = (float)s;
                }
            M[3] = M[7] = M[11] = 0.0f;   /* an exact affine row after rounding */
            M[15] = 1.0f;
        }
        for (size_t v = 0; v < n; ++v) {
            double x[3] = {0, 0, 0}, sum = 0;
            for (int s = 0; s < 4; ++s) sum += m->weights[4 * v + (size_t)s];
            for (int s = 0; s < 4; ++s) {
                double wt = m->weights[4 * v + (size_t)s] / sum;
                const float *M = mats + 16 * (e * J + m->joints[4 * v + (size_t)s]);
                for (int r = 0; r < 3; ++r)
                    x[r] += wt * ((double)M[r] * rest[3 * v] + (double)M[4 + r] * rest[3 * v + 1] +
                                  (double)M[8 + r] * rest[3 * v + 2] + M[12 + r]);
            }
            for (int r = 0; r < 3; ++r) q[3 * (e * n + v) + (size_t)r] = (float)x[r];
        }
        ex[e] = (sinew_points){q + 3 * e * n, n, 0};
    }
    sinew_skin_example_desc d;
    SINEW_INIT(&d);
    if (own_candidates) {
        d.candidate_count = 4;
        d.candidate_joints = m->joints;
    }
    sinew_points rp = {rest, n, 0};
    uint32_t *j = malloc(n * K * sizeof *j);
    float *w = malloc(n * K * sizeof *w), *res = malloc(n * sizeof *res);
    sinew_skin_example_report rep;
    SINEW_INIT(&rep);
    double t0 = support_cpu_now();
    assert_int_equal(sinew_skin_example_weights(NULL, &rp, ex, poses, mats, J, &d, j, w, res, &rep), SINEW_OK);
    double seconds = support_cpu_now() - t0;
    assert_int_equal(first_bad_row(j, w, n, K), SIZE_MAX);
    /* Joints whose skinning matrices agree in every example (a joint the
     * animation never turns against its parent) move every vertex alike:
     * the examples determine only their summed weight. Each joint's class is
     * the first joint it agrees with. */
    size_t *cls = malloc(J * sizeof *cls), classes = 0;
    for (size_t a = 0; a < J; ++a) {
        cls[a] = a;
        for (size_t b = 0; b < a && cls[a] == a; ++b) {
            double diff = 0;
            for (size_t e = 0; e < poses; ++e)
                for (int i = 0; i < 16; ++i)
                    diff = fmax(diff, fabs((double)mats[16 * (e * J + a) + (size_t)i] - mats[16 * (e * J + b) + (size_t)i]));
            if (diff < 1e-5) cls[a] = cls[b];
        }
        classes += cls[a] == a;
    }
    double tv = 0, *got = malloc(J * sizeof(double)), *ref = malloc(J * sizeof(double));
    size_t exact = 0;
    for (size_t v = 0; v < n; ++v) {
        double g[64] = {0}, r[64] = {0};
        assert_true(J <= 64);
        dense_row(j, w, K, v, J, got);
        memset(ref, 0, J * sizeof(double));
        double sum = 0;
        for (int s = 0; s < 4; ++s) sum += m->weights[4 * v + (size_t)s];
        for (int s = 0; s < 4; ++s) ref[m->joints[4 * v + (size_t)s]] += m->weights[4 * v + (size_t)s] / sum;
        for (size_t b = 0; b < J; ++b) g[cls[b]] += got[b], r[cls[b]] += ref[b];
        double dist = 0;
        for (size_t b = 0; b < J; ++b) dist += fabs(g[b] - r[b]);
        tv += 0.5 * dist;
        exact += 0.5 * dist < 1e-3;
    }
    tv /= (double)n;
    free(cls);
    double size = 0;
    for (int a = 0; a < 3; ++a) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t v = 0; v < n; ++v) lo = fmin(lo, rest[3 * v + (size_t)a]), hi = fmax(hi, rest[3 * v + (size_t)a]);
        size += (hi - lo) * (hi - lo);
    }
    size = sqrt(size);
    printf("example weights on RiggedFigure (%zu vertices, %zu joints in %zu motion classes, %zu poses, candidates: "
           "%s): weight distance %.2e, %zu of %zu rows within 1e-3, max residual %.1e of the diagonal, KKT %.1e, %zu "
           "limited to k = %d, %.3f s\n",
           n, J, classes, poses, own_candidates ? "the asset's 4" : "all", tv, exact, n, rep.max_residual / size,
           rep.kkt_violation, rep.vertices_limited, K, seconds);
    assert_true(rep.kkt_violation <= 1e-9);
    assert_true(rep.max_residual / size < 1e-5);
    assert_true(tv < 1e-3);
    free(got);
    free(ref);
    free(rest);
    free(q);
    free(mats);
    free(world);
    free(ex);
    free(j);
    free(w);
    free(res);
}

static void recovers_rigged_figure_weights_from_its_animation(void **state)
{
    (void)state;
    char path[1024], err[512];
    if (!support_data_path("gltf/RiggedFigure.gltf", path, sizeof path)) skip();
    gltf_model m;
    if (!gltf_load(path, &m, err, sizeof err)) fail_msg("RiggedFigure: %s", err);
    recover_from_animation(&m, 4, true);
    recover_from_animation(&m, 4, false);
    recover_from_animation(&m, 16, false);
    gltf_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generating_weights_are_recovered),
        cmocka_unit_test(optimum_beats_the_grid_and_residual_is_true),
        cmocka_unit_test(influence_limit_follows_the_documented_rule),
        cmocka_unit_test(candidates_restrict_the_joints),
        cmocka_unit_test(invalid_inputs_are_named),
        cmocka_unit_test(residual_beyond_float_range_fails),
        cmocka_unit_test(allocation_failures_are_clean),
        cmocka_unit_test(cancellation_leaves_outputs_untouched),
        cmocka_unit_test(recovers_rigged_figure_weights_from_its_animation),
    };
    return cmocka_run_group_tests_name("skin tools: example weights", tests, NULL, NULL);
}
