/* Pruning an N-slot layout to k: the k largest survive renormalised, ties and
 * duplicates are resolved as documented, in-place use, errors, allocation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fixtures.h"
#include "support.h"

static void keeps_the_k_largest_renormalised(void **state)
{
    (void)state;
    const uint32_t j[] = {3, 1, 7, 2, 0, 4, 0, 0};
    const float w[] = {0.1f, 0.4f, 0.2f, 0.3f, 1.0f, 0.0f, 0.0f, 0.0f};
    uint32_t oj[4];
    float ow[4];
    assert_int_equal(sinew_skin_prune_weights(NULL, 2, 4, j, w, 2, 0.0f, oj, ow), SINEW_OK);
    assert_int_equal(oj[0], 1);
    assert_float_equal(ow[0], 0.4 / 0.7, 1e-6);
    assert_int_equal(oj[1], 2);
    assert_float_equal(ow[1], 0.3 / 0.7, 1e-6);
    assert_int_equal(oj[2], 0);   /* vertex 1: its zero-weight slot naming joint 4 is padding */
    assert_true(ow[2] == 1.0f && ow[3] == 0.0f && oj[3] == 0);
}

/* Four slots of joint 0 at 1e38 used to merge to inf in float and
 * renormalise to NaN, returned with SINEW_OK. Merged in double, the row is
 * 4/5 on joint 0 and 1/5 on joint 1; a weight 1e-38 beside 1e38 rounds to 0
 * and becomes padding (joint 0) rather than a zero-weight influence. */
static void huge_duplicate_weights_stay_finite(void **state)
{
    (void)state;
    const uint32_t j[] = {0, 0, 0, 0, 1, 2, 3, 2, 2, 2};
    const float w[] = {1e38f, 1e38f, 1e38f, 1e38f, 1e38f, 1e38f, 1e-38f, 0.0f, 0.0f, 0.0f};
    uint32_t oj[6];
    float ow[6];
    assert_int_equal(sinew_skin_prune_weights(NULL, 2, 5, j, w, 3, 0.0f, oj, ow), SINEW_OK);
    assert_int_equal(first_bad_row(oj, ow, 2, 3), SIZE_MAX);
    assert_true(oj[0] == 0 && ow[0] == 0.8f);
    assert_true(oj[1] == 1 && ow[1] == 0.2f);
    assert_true(oj[3] == 2 && ow[3] == 1.0f && oj[4] == 0 && ow[4] == 0.0f);
    /* One output slot: all of the row on joint 0. */
    assert_int_equal(sinew_skin_prune_weights(NULL, 2, 5, j, w, 1, 0.0f, oj, ow), SINEW_OK);
    assert_true(oj[0] == 0 && ow[0] == 1.0f && oj[1] == 2 && ow[1] == 1.0f);
}

static void ties_go_to_the_lower_joint_and_duplicates_merge(void **state)
{
    (void)state;
    const uint32_t j[] = {9, 4, 6, 5, 2, 5};
    const float w[] = {0.25f, 0.25f, 0.25f, 0.3f, 0.35f, 0.3f};
    uint32_t oj[2];
    float ow[2];
    assert_int_equal(sinew_skin_prune_weights(NULL, 2, 3, j, w, 1, 0.0f, oj, ow), SINEW_OK);
    assert_int_equal(oj[0], 4);   /* 9, 4, 6 tie: joint 4 wins */
    assert_true(ow[0] == 1.0f);
    assert_int_equal(oj[1], 5);   /* 0.3 + 0.3 beats 0.35 */
    assert_true(ow[1] == 1.0f);
}

static void more_slots_than_given_pads(void **state)
{
    (void)state;
    const uint32_t j[] = {3, 8};
    const float w[] = {2.0f, 6.0f};   /* rows need not sum to 1 */
    uint32_t oj[4];
    float ow[4];
    assert_int_equal(sinew_skin_prune_weights(NULL, 1, 2, j, w, 4, 0.0f, oj, ow), SINEW_OK);
    assert_int_equal(oj[0], 8);
    assert_float_equal(ow[0], 0.75, 1e-7);
    assert_int_equal(oj[1], 3);
    assert_float_equal(ow[1], 0.25, 1e-7);
    assert_true(oj[2] == 0 && ow[2] == 0.0f && oj[3] == 0 && ow[3] == 0.0f);
}

static void relative_threshold_drops_small_weights(void **state)
{
    (void)state;
    const uint32_t j[] = {0, 1, 2, 3};
    const float w[] = {0.5f, 0.3f, 0.15f, 0.05f};
    uint32_t oj[4];
    float ow[4];
    /* 0.2 * 0.5 = 0.1: 0.05 goes, 0.15 stays. */
    assert_int_equal(sinew_skin_prune_weights(NULL, 1, 4, j, w, 4, 0.2f, oj, ow), SINEW_OK);
    assert_float_equal(ow[0], 0.5 / 0.95, 1e-6);
    assert_float_equal(ow[2], 0.15 / 0.95, 1e-6);
    assert_true(ow[3] == 0.0f && oj[3] == 0);
}

/* Random 8-slot rows against a plain selection written here. */
static void matches_reference_and_works_in_place(void **state)
{
    (void)state;
    enum { V = 300, N = 8, K = 3 };
    uint32_t j[V * N];
    float w[V * N];
    support_rng rng;
    support_rng_seed(&rng, 5);
    for (int i = 0; i < V * N; ++i) {
        j[i] = (uint32_t)(support_rng_next(&rng) % 40);
        w[i] = (support_rng_next(&rng) % 4 == 0) ? 0.0f : (float)support_rng_uniform(&rng, 0.0, 1.0);
    }
    for (int v = 0; v < V; ++v) w[v * N] += 0.01f;   /* every row has a positive weight */
    /* Make joints distinct within a row so the reference need not merge. */
    for (int v = 0; v < V; ++v)
        for (int s = 0; s < N; ++s) j[v * N + s] = (uint32_t)(5 * s + j[v * N + s] % 5);
    uint32_t expect_j[V * K];
    float expect_w[V * K];
    for (int v = 0; v < V; ++v) {
        int used[N] = {0};
        double sum = 0;
        int pick[K];
        int picked = 0;
        for (int s = 0; s < K; ++s) {
            int best = -1;
            for (int t = 0; t < N; ++t)
                if (!used[t] && w[v * N + t] > 0 &&
                    (best < 0 || w[v * N + t] > w[v * N + best] ||
                     (w[v * N + t] == w[v * N + best] && j[v * N + t] < j[v * N + best])))
                    best = t;
            if (best < 0) break;
            used[best] = 1;
            pick[picked++] = best;
            sum += w[v * N + best];
        }
        for (int s = 0; s < K; ++s) {
            expect_j[v * K + s] = s < picked ? j[v * N + pick[s]] : 0;
            expect_w[v * K + s] = s < picked ? (float)(w[v * N + pick[s]] / sum) : 0.0f;
        }
    }
    /* In place: outputs are the input arrays, with fewer slots. */
    assert_int_equal(sinew_skin_prune_weights(NULL, V, N, j, w, K, 0.0f, j, w), SINEW_OK);
    assert_int_equal(first_bad_row(j, w, V, K), SIZE_MAX);
    for (int i = 0; i < V * K; ++i) {
        assert_int_equal(j[i], expect_j[i]);
        assert_float_equal(w[i], expect_w[i], 1e-6);
    }
}

/* Layouts whose arrays cannot exist (slots * 4 bytes past
 * SIZE_MAX, though slots itself fits) are refused with SIZE_OVERFLOW before a
 * weight is read. */
static void impossible_counts_are_refused_before_reading(void **state)
{
    (void)state;
    const uint32_t j[] = {0, 1, 2, 3};
    const float w[] = {0.5f, 0.5f, 0.2f, 0.8f};
    uint32_t oj[4] = {9, 9, 9, 9};
    float ow[4] = {9, 9, 9, 9};
    const size_t slots = SIZE_MAX / 8 + 1;   /* 2 * slots fits in size_t, 8 * slots does not */
    assert_int_equal(sinew_skin_prune_weights(NULL, 2, slots, j, w, 1, 0, oj, ow), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "prune input: 2 vertices"));
    assert_int_equal(sinew_skin_prune_weights(NULL, 2, 2, j, w, slots, 0, oj, ow), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "prune: 2 vertices"));
    /* Slots whose bytes fit in size_t but pass PTRDIFF_MAX (no array can be
     * that large) are refused too, for the inputs and the outputs. */
    const size_t wide = SIZE_MAX / 8;
    assert_int_equal(sinew_skin_prune_weights(NULL, 2, wide, j, w, 1, 0, oj, ow), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "prune input: 2 vertices"));
    assert_int_equal(sinew_skin_prune_weights(NULL, 2, 2, j, w, wide, 0, oj, ow), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "prune: 2 vertices"));
    for (int i = 0; i < 4; ++i) assert_true(oj[i] == 9 && ow[i] == 9.0f);
}

static void invalid_inputs_are_named(void **state)
{
    (void)state;
    uint32_t j[] = {0, 1, 2, 3};
    float w[] = {0.5f, 0.5f, 0.2f, 0.8f};
    uint32_t oj[4] = {9, 9, 9, 9};
    float ow[4] = {9, 9, 9, 9};
#define EXPECT(call, code, text)                                        \
    do {                                                                \
        assert_int_equal((call), (code));                               \
        assert_non_null(strstr(sinew_last_error(), (text)));            \
    } while (0)
    EXPECT(sinew_skin_prune_weights(NULL, 0, 2, j, w, 1, 0, oj, ow), SINEW_ERROR_INVALID_ARGUMENT, "no vertices");
    EXPECT(sinew_skin_prune_weights(NULL, 2, 0, j, w, 1, 0, oj, ow), SINEW_ERROR_INVALID_ARGUMENT, "0 slots");
    EXPECT(sinew_skin_prune_weights(NULL, 2, 2, NULL, w, 1, 0, oj, ow), SINEW_ERROR_INVALID_ARGUMENT, "joint array");
    EXPECT(sinew_skin_prune_weights(NULL, 2, 2, j, NULL, 1, 0, oj, ow), SINEW_ERROR_INVALID_ARGUMENT, "weight array");
    EXPECT(sinew_skin_prune_weights(NULL, 2, 2, j, w, 0, 0, oj, ow), SINEW_ERROR_INVALID_ARGUMENT, "0 output slots");
    EXPECT(sinew_skin_prune_weights(NULL, 2, 2, j, w, 1, 0, NULL, ow), SINEW_ERROR_INVALID_ARGUMENT, "output");
    EXPECT(sinew_skin_prune_weights(NULL, 2, 2, j, w, 1, 0, oj, NULL), SINEW_ERROR_INVALID_ARGUMENT, "output");
    EXPECT(sinew_skin_prune_weights(NULL, 2, 2, j, w, 1, 1.0f, oj, ow), SINEW_ERROR_INVALID_ARGUMENT, "min_weight");
    EXPECT(sinew_skin_prune_weights(NULL, 2, 2, j, w, 1, NAN, oj, ow), SINEW_ERROR_NON_FINITE, "min_weight");
    EXPECT(sinew_skin_prune_weights(NULL, SIZE_MAX / 2, 4, j, w, 1, 0, oj, ow), SINEW_ERROR_SIZE_OVERFLOW, "overflow");
    EXPECT(sinew_skin_prune_weights(NULL, 2, 2, j, w, SIZE_MAX / 2, 0, oj, ow), SINEW_ERROR_SIZE_OVERFLOW, "overflow");
    w[3] = NAN;
    EXPECT(sinew_skin_prune_weights(NULL, 2, 2, j, w, 1, 0, oj, ow), SINEW_ERROR_NON_FINITE, "vertex 1 slot 1");
    w[3] = -0.1f;
    EXPECT(sinew_skin_prune_weights(NULL, 2, 2, j, w, 1, 0, oj, ow), SINEW_ERROR_INVALID_WEIGHTS,
           "vertex 1 slot 1 has a negative weight");
    w[3] = 0.0f;
    w[2] = 0.0f;
    EXPECT(sinew_skin_prune_weights(NULL, 2, 2, j, w, 1, 0, oj, ow), SINEW_ERROR_INVALID_WEIGHTS,
           "vertex 1 has no positive weight");
    for (int i = 0; i < 4; ++i) assert_true(oj[i] == 9 && ow[i] == 9.0f);
#undef EXPECT
}

typedef struct prune_case {
    uint32_t j[12];
    float w[12];
    uint32_t oj[8];
    float ow[8];
} prune_case;

/* A failure must say what failed. An out-of-memory result
 * without the allocation named in the message becomes INVALID_STATE, which
 * the sweep reports. */
static sinew_result named_failure(sinew_result r)
{
    if (r == SINEW_ERROR_OUT_OF_MEMORY && !strstr(sinew_last_error(), "out of memory allocating "))
        return SINEW_ERROR_INVALID_STATE;
    return r;
}

static sinew_result prune_attempt(sinew_context *ctx, void *user)
{
    prune_case *c = (prune_case *)user;
    return named_failure(sinew_skin_prune_weights(ctx, 4, 3, c->j, c->w, 2, 0.0f, c->oj, c->ow));
}

static void allocation_failures_are_clean(void **state)
{
    (void)state;
    prune_case c = {{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}, {1, 2, 3, 3, 2, 1, 1, 1, 1, 0, 0, 5}, {0}, {0}};
    size_t runs = 0;
    char report[256];
    assert_true(support_sweep_allocation_failures(prune_attempt, &c, &runs, report, sizeof report));
    assert_true(runs >= 4);
    assert_int_equal(first_bad_row(c.oj, c.ow, 4, 2), SIZE_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keeps_the_k_largest_renormalised),
        cmocka_unit_test(huge_duplicate_weights_stay_finite),
        cmocka_unit_test(ties_go_to_the_lower_joint_and_duplicates_merge),
        cmocka_unit_test(more_slots_than_given_pads),
        cmocka_unit_test(relative_threshold_drops_small_weights),
        cmocka_unit_test(matches_reference_and_works_in_place),
        cmocka_unit_test(impossible_counts_are_refused_before_reading),
        cmocka_unit_test(invalid_inputs_are_named),
        cmocka_unit_test(allocation_failures_are_clean),
    };
    return cmocka_run_group_tests_name("skin tools: prune", tests, NULL, NULL);
}
