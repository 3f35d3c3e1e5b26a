/* sinew_combine_displacements: p = p0 + sum_k w_k,i (D_k(p0)_i - p0_i), checked
 * against its closed form on values where every double operation is exact
 * (coordinates on a 1/64 grid, weights on a 1/16 grid), so equalities are
 * bit for bit; then the error paths, each with the output untouched. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sinew.h"

#define N 97
#define K 3

typedef struct scene {
    float rest[3 * N];
    float deformed[K][3 * N];
    float weights[K][N];
} scene;

static uint32_t next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Coordinates in [-8, 8) on a 1/64 grid, per-point weights in [-2, 2) on a 1/16 grid. */
static void make_scene(scene *sc, uint32_t seed)
{
    for (size_t i = 0; i < 3 * N; ++i) sc->rest[i] = (float)((int)(next(&seed) % 1024) - 512) / 64.0f;
    for (int k = 0; k < K; ++k) {
        for (size_t i = 0; i < 3 * N; ++i) sc->deformed[k][i] = (float)((int)(next(&seed) % 1024) - 512) / 64.0f;
        for (size_t i = 0; i < N; ++i) sc->weights[k][i] = (float)((int)(next(&seed) % 64) - 32) / 16.0f;
    }
}

static sinew_combine_input input(const scene *sc, int k, float weight, const float *weights)
{
    sinew_combine_input in = {{sc->deformed[k], N, 0}, weight, weights};
    return in;
}

static sinew_result combine(const scene *sc, const sinew_combine_input *in, size_t n, float *out)
{
    sinew_points rest = {sc->rest, N, 0};
    return sinew_combine_displacements(&rest, in, n, out, 0, 0, N);
}

static void one_deformer_at_weight_one_reproduces_it(void **state)
{
    (void)state;
    scene sc;
    make_scene(&sc, 1);
    float out[3 * N];
    for (int k = 0; k < K; ++k) {
        sinew_combine_input in = input(&sc, k, 1.0f, NULL);
        assert_int_equal(combine(&sc, &in, 1, out), SINEW_OK);
        assert_memory_equal(out, sc.deformed[k], sizeof out);
    }
}

static void zero_weights_and_no_deformers_give_rest(void **state)
{
    (void)state;
    scene sc;
    make_scene(&sc, 2);
    float zeros[N] = {0}, out[3 * N];
    sinew_combine_input in[K] = {input(&sc, 0, 0.0f, NULL), input(&sc, 1, 5.0f, zeros), input(&sc, 2, -0.0f, NULL)};
    assert_int_equal(combine(&sc, in, K, out), SINEW_OK);
    assert_memory_equal(out, sc.rest, sizeof out);
    memset(out, 0, sizeof out);
    assert_int_equal(combine(&sc, NULL, 0, out), SINEW_OK);
    assert_memory_equal(out, sc.rest, sizeof out);
}

/* The closed form with scalar or per-point weights, bit for bit, and the
 * same bits for every order of the deformers and every split of the range. */
static void closed_form_in_any_order_and_split(void **state)
{
    (void)state;
    scene sc;
    make_scene(&sc, 3);
    const float scalar[K] = {0.75f, -0.5f, 1.25f};
    for (int per_point = 0; per_point < 2; ++per_point) {
        sinew_combine_input in[K];
        for (int k = 0; k < K; ++k) in[k] = input(&sc, k, scalar[k], per_point ? sc.weights[k] : NULL);
        float expect[3 * N], out[3 * N];
        for (size_t i = 0; i < N; ++i)
            for (int c = 0; c < 3; ++c) {
                double p = sc.rest[3 * i + c];
                for (int k = 0; k < K; ++k) {
                    double w = per_point ? sc.weights[k][i] : scalar[k];
                    p += w * ((double)sc.deformed[k][3 * i + c] - sc.rest[3 * i + c]);
                }
                expect[3 * i + c] = (float)p;
            }
        assert_int_equal(combine(&sc, in, K, out), SINEW_OK);
        assert_memory_equal(out, expect, sizeof out);
        static const int orders[5][K] = {{0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        for (int o = 0; o < 5; ++o) {
            sinew_combine_input shuffled[K];
            for (int k = 0; k < K; ++k) shuffled[k] = in[orders[o][k]];
            assert_int_equal(combine(&sc, shuffled, K, out), SINEW_OK);
            assert_memory_equal(out, expect, sizeof out);
        }
        /* Split [0, N) into jobs writing one shared buffer with a stride. */
        float strided[4 * N];
        memset(strided, 0, sizeof strided);
        sinew_points rest = {sc.rest, N, 0};
        const size_t cuts[] = {0, 1, 40, 41, N};
        for (int j = 0; j + 1 < 5; ++j)
            assert_int_equal(sinew_combine_displacements(&rest, in, K, strided, 16, cuts[j], cuts[j + 1] - cuts[j]),
                             SINEW_OK);
        for (size_t i = 0; i < N; ++i) assert_memory_equal(&strided[4 * i], &expect[3 * i], 12);
    }
}

/* Linearity in the weights: combining with a w1 + b w2 moves each point by
 * a (combined with w1 - rest) + b (combined with w2 - rest), exactly here. */
static void linear_in_the_weights(void **state)
{
    (void)state;
    scene sc;
    make_scene(&sc, 4);
    const double a = 0.5, b = -1.5;
    float mixed[K][N], o1[3 * N], o2[3 * N], om[3 * N];
    for (int k = 0; k < K; ++k)
        for (size_t i = 0; i < N; ++i) mixed[k][i] = (float)(a * sc.weights[k][i] + b * sc.weights[(k + 1) % K][i]);
    sinew_combine_input in1[K], in2[K], inm[K];
    for (int k = 0; k < K; ++k) {
        in1[k] = input(&sc, k, 0, sc.weights[k]);
        in2[k] = input(&sc, k, 0, sc.weights[(k + 1) % K]);
        inm[k] = input(&sc, k, 0, mixed[k]);
    }
    assert_int_equal(combine(&sc, in1, K, o1), SINEW_OK);
    assert_int_equal(combine(&sc, in2, K, o2), SINEW_OK);
    assert_int_equal(combine(&sc, inm, K, om), SINEW_OK);
    for (size_t i = 0; i < 3 * N; ++i) {
        double expect = sc.rest[i] + a * ((double)o1[i] - sc.rest[i]) + b * ((double)o2[i] - sc.rest[i]);
        assert_true(fabs(om[i] - expect) <= 1e-5 * (1 + fabs(expect)));
    }
    /* Two copies of one deformer at weight 1/2 each are that deformer. */
    sinew_combine_input halves[2] = {input(&sc, 0, 0.5f, NULL), input(&sc, 0, 0.5f, NULL)};
    assert_int_equal(combine(&sc, halves, 2, om), SINEW_OK);
    assert_memory_equal(om, sc.deformed[0], sizeof om);
}

static void assert_fails(sinew_result got, sinew_result want, const char *needle, const float *out,
                         const float *sentinel)
{
    assert_int_equal(got, want);
    if (!strstr(sinew_last_error(), needle)) fail_msg("\"%s\" does not name \"%s\"", sinew_last_error(), needle);
    assert_memory_equal(out, sentinel, 3 * N * sizeof(float));
}

static void bad_input_is_named_and_out_untouched(void **state)
{
    (void)state;
    scene sc;
    make_scene(&sc, 5);
    float out[3 * N], sentinel[3 * N];
    for (size_t i = 0; i < 3 * N; ++i) out[i] = sentinel[i] = -7.0f;
    sinew_points rest = {sc.rest, N, 0};
    sinew_combine_input in[K];
    for (int k = 0; k < K; ++k) in[k] = input(&sc, k, 1.0f, NULL);

    in[1].weight = NAN;
    assert_fails(combine(&sc, in, K, out), SINEW_ERROR_NON_FINITE, "deformer 1", out, sentinel);
    in[1].weight = INFINITY;
    assert_fails(combine(&sc, in, K, out), SINEW_ERROR_NON_FINITE, "deformer 1", out, sentinel);
    in[1].weight = 1.0f;
    float w[N];
    for (size_t i = 0; i < N; ++i) w[i] = 1.0f;
    w[N - 1] = NAN; /* the last point: nothing may be written before it is found */
    in[2].weights = w;
    assert_fails(combine(&sc, in, K, out), SINEW_ERROR_NON_FINITE, "point 96", out, sentinel);
    /* Outside the range it is never read. */
    assert_int_equal(sinew_combine_displacements(&rest, in, K, out, 0, 0, N - 1), SINEW_OK);
    memcpy(out, sentinel, sizeof out);
    in[2].weights = NULL;

    sc.deformed[2][3 * 50 + 1] = NAN;
    assert_fails(combine(&sc, in, K, out), SINEW_ERROR_NON_FINITE, "deformer 2's point 50", out, sentinel);
    sc.deformed[2][3 * 50 + 1] = 0;
    sc.rest[3 * 60] = -INFINITY;
    assert_fails(combine(&sc, in, K, out), SINEW_ERROR_NON_FINITE, "rest position 60", out, sentinel);
    sc.rest[3 * 60] = 0;

    w[N - 1] = 1.0f;
    w[70] = 3e38f; /* finite inputs whose combination overflows a float, at point 70 alone */
    sc.deformed[0][3 * 70 + 2] = sc.rest[3 * 70 + 2] + 8.0f;
    in[0].weights = w;
    assert_fails(combine(&sc, in, K, out), SINEW_ERROR_OUTSIDE_DOMAIN, "point 70", out, sentinel);
    in[0].weights = NULL;

    in[1].deformed.count = N - 1;
    assert_fails(combine(&sc, in, K, out), SINEW_ERROR_MISMATCH, "deformer 1", out, sentinel);
    in[1].deformed.count = N;
    in[1].deformed.stride = 13;
    assert_fails(combine(&sc, in, K, out), SINEW_ERROR_INVALID_ARGUMENT, "deformer 1", out, sentinel);
    in[1].deformed.stride = 0;
    in[1].deformed.data = NULL;
    assert_fails(combine(&sc, in, K, out), SINEW_ERROR_INVALID_ARGUMENT, "deformer 1", out, sentinel);
    in[1].deformed.data = sc.deformed[1];

    assert_fails(sinew_combine_displacements(&rest, in, K, out, 0, 90, 8), SINEW_ERROR_INDEX_OUT_OF_RANGE, "points",
                 out, sentinel);
    assert_fails(sinew_combine_displacements(&rest, in, K, out, 0, 1, SIZE_MAX), SINEW_ERROR_INDEX_OUT_OF_RANGE,
                 "points", out, sentinel);
    assert_fails(sinew_combine_displacements(NULL, in, K, out, 0, 0, N), SINEW_ERROR_INVALID_ARGUMENT, "rest", out,
                 sentinel);
    assert_fails(sinew_combine_displacements(&rest, NULL, K, out, 0, 0, N), SINEW_ERROR_INVALID_ARGUMENT, "inputs",
                 out, sentinel);
    assert_fails(sinew_combine_displacements(&rest, in, K, out, 6, 0, N), SINEW_ERROR_INVALID_ARGUMENT, "out", out,
                 sentinel);
    assert_int_equal(sinew_combine_displacements(&rest, in, K, NULL, 0, 0, N), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_combine_displacements(&rest, in, K, NULL, 0, 5, 0), SINEW_OK); /* empty range */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_deformer_at_weight_one_reproduces_it),
        cmocka_unit_test(zero_weights_and_no_deformers_give_rest),
        cmocka_unit_test(closed_form_in_any_order_and_split),
        cmocka_unit_test(linear_in_the_weights),
        cmocka_unit_test(bad_input_is_named_and_out_untouched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
