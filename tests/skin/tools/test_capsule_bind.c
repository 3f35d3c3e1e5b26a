/* Containment binding from bone capsules: closed-form scores, symmetry,
 * partition of unity, derived radii, unbound reporting, every error path,
 * allocation failures and cancellation; the rigid nearest-segment scoring
 * (closed forms on a two-bone chain, a skinned driver moving rigidly). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fixtures.h"
#include "support.h"

static sinew_skin_capsule capsule(float hx, float hy, float hz, float tx, float ty, float tz, float r, uint32_t j)
{
    sinew_skin_capsule c = {{hx, hy, hz}, {tx, ty, tz}, r, j};
    return c;
}

/* The score the header documents, written out independently: 1 inside,
 * 1 - 3t^2 + 2t^3 across the band, 0 beyond. */
static double reference_score(const float p[3], const sinew_skin_capsule *c, double band)
{
    double ab[3], ap[3], l2 = 0, t = 0;
    for (int i = 0; i < 3; ++i) {
        ab[i] = (double)c->tail[i] - c->head[i];
        ap[i] = (double)p[i] - c->head[i];
        l2 += ab[i] * ab[i];
        t += ab[i] * ap[i];
    }
    t = l2 > 0 ? fmin(1.0, fmax(0.0, t / l2)) : 0.0;
    double d = 0;
    for (int i = 0; i < 3; ++i) d += (ap[i] - t * ab[i]) * (ap[i] - t * ab[i]);
    double s = sqrt(d) / c->radius;
    if (s <= 1.0) return 1.0;
    double u = (s - 1.0) / band;
    return u >= 1.0 ? 0.0 : 1.0 - 3.0 * u * u + 2.0 * u * u * u;
}

static void vertex_on_axis_gets_weight_one(void **state)
{
    (void)state;
    const float p[] = {0.3f, 0.0f, 0.0f, 1.7f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    sinew_skin_capsule caps[] = {capsule(0, 0, 0, 1, 0, 0, 0.3f, 4), capsule(1, 0, 0, 2, 0, 0, 0.3f, 9)};
    sinew_points pts = {p, 3, 0};
    uint32_t j[12];
    float w[12];
    assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, caps, 2, NULL, j, w, NULL), SINEW_OK);
    assert_int_equal(j[0], 4);
    assert_true(w[0] == 1.0f);
    for (int s = 1; s < 4; ++s) assert_true(w[s] == 0.0f && j[s] == 0);
    assert_int_equal(j[4], 9);
    assert_true(w[4] == 1.0f);
    assert_int_equal(j[8], 4);   /* the head of bone 0 */
    assert_true(w[8] == 1.0f);
    assert_int_equal(first_bad_row(j, w, 3, 4), SIZE_MAX);
}

static void band_scores_match_closed_form(void **state)
{
    (void)state;
    /* A point 1.25 radii from capsule A (t = 0.5 across a 0.5 band: score 0.5)
     * and inside capsule B (score 1): weights 1/3 and 2/3. */
    const float p[] = {0.5f, 1.25f, 0.0f};
    sinew_skin_capsule caps[] = {capsule(0, 0, 0, 1, 0, 0, 1.0f, 0), capsule(0, 1, 0, 1, 1, 0, 0.5f, 1)};
    sinew_points pts = {p, 1, 0};
    uint32_t j[2];
    float w[2];
    sinew_skin_capsule_desc d = {sizeof(sinew_skin_capsule_desc), 2, 0.5f, 0, SINEW_SKIN_UNBOUND_REPORT, SINEW_SKIN_CAPSULE_SCORE_BLEND};
    assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, caps, 2, &d, j, w, NULL), SINEW_OK);
    assert_int_equal(j[0], 1);
    assert_float_equal(w[0], 2.0 / 3.0, 1e-6);
    assert_int_equal(j[1], 0);
    assert_float_equal(w[1], 1.0 / 3.0, 1e-6);
    /* A wider band: t = 0.25, score 1 - 3/16 + 2/64 = 0.84375. */
    d.falloff = 1.0f;
    assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, caps, 2, &d, j, w, NULL), SINEW_OK);
    assert_float_equal(w[1], 0.84375 / 1.84375, 1e-6);
}

static void mirrored_capsules_give_mirrored_weights(void **state)
{
    (void)state;
    enum { N = 200 };
    float p[2 * N][3];
    support_rng rng;
    support_rng_seed(&rng, 7);
    for (int i = 0; i < N; ++i) {
        p[i][0] = (float)support_rng_uniform(&rng, -1.5, 1.5);
        p[i][1] = (float)support_rng_uniform(&rng, -0.4, 0.4);
        p[i][2] = (float)support_rng_uniform(&rng, -0.4, 0.4);
        p[N + i][0] = -p[i][0];
        p[N + i][1] = p[i][1];
        p[N + i][2] = p[i][2];
    }
    p[0][0] = 0.0f;   /* on the mirror plane: an even split */
    p[N][0] = 0.0f;
    sinew_skin_capsule caps[] = {capsule(0.1f, 0, 0, 1.2f, 0.1f, 0, 0.35f, 0),
                                 capsule(-0.1f, 0, 0, -1.2f, 0.1f, 0, 0.35f, 1),
                                 capsule(0, 0.05f, 0, 0, 0.5f, 0, 0.3f, 2)};
    sinew_points pts = {&p[0][0], 2 * N, 0};
    uint32_t j[2 * N * 3];
    float w[2 * N * 3];
    sinew_skin_capsule_desc d = {sizeof(sinew_skin_capsule_desc), 3, 0, 0, SINEW_SKIN_UNBOUND_NEAREST, SINEW_SKIN_CAPSULE_SCORE_BLEND};
    assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, caps, 3, &d, j, w, NULL), SINEW_OK);
    assert_int_equal(first_bad_row(j, w, 2 * N, 3), SIZE_MAX);
    for (int i = 0; i < N; ++i) {
        assert_float_equal(row_weight(j, w, 3, (size_t)i, 0), row_weight(j, w, 3, (size_t)(N + i), 1), 1e-6);
        assert_float_equal(row_weight(j, w, 3, (size_t)i, 1), row_weight(j, w, 3, (size_t)(N + i), 0), 1e-6);
        assert_float_equal(row_weight(j, w, 3, (size_t)i, 2), row_weight(j, w, 3, (size_t)(N + i), 2), 1e-6);
    }
    assert_float_equal(row_weight(j, w, 3, 0, 0), row_weight(j, w, 3, 0, 1), 1e-7);
}

/* Random points and capsules against the documented rule computed here:
 * scores per joint (best capsule), k largest, normalised. */
static void matches_reference_on_random_setups(void **state)
{
    (void)state;
    enum { N = 500, C = 7, K = 3 };
    float p[N][3];
    sinew_skin_capsule caps[C];
    support_rng rng;
    support_rng_seed(&rng, 11);
    for (int i = 0; i < N; ++i)
        for (int a = 0; a < 3; ++a) p[i][a] = (float)support_rng_uniform(&rng, -1, 1);
    for (int c = 0; c < C; ++c) {
        for (int a = 0; a < 3; ++a) {
            caps[c].head[a] = (float)support_rng_uniform(&rng, -1, 1);
            caps[c].tail[a] = (float)support_rng_uniform(&rng, -1, 1);
        }
        caps[c].radius = (float)support_rng_uniform(&rng, 0.2, 0.6);
        caps[c].joint = (uint32_t)(c % 5);   /* joints 0 and 1 have two capsules */
    }
    sinew_points pts = {&p[0][0], N, 0};
    uint32_t j[N * K];
    float w[N * K];
    sinew_skin_capsule_desc d = {sizeof(sinew_skin_capsule_desc), K, 0.75f, 0, SINEW_SKIN_UNBOUND_NEAREST, SINEW_SKIN_CAPSULE_SCORE_BLEND};
    sinew_skin_capsule_report rep;
    SINEW_INIT(&rep);
    assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, caps, C, &d, j, w, &rep), SINEW_OK);
    assert_int_equal(first_bad_row(j, w, N, K), SIZE_MAX);
    size_t unbound = 0;
    for (int i = 0; i < N; ++i) {
        double score[5] = {0};
        for (int c = 0; c < C; ++c) score[caps[c].joint] = fmax(score[caps[c].joint], reference_score(p[i], &caps[c], 0.75));
        int order[5] = {0, 1, 2, 3, 4};
        for (int a = 0; a < 5; ++a)
            for (int b = a + 1; b < 5; ++b)
                if (score[order[b]] > score[order[a]]) {
                    int t = order[a];
                    order[a] = order[b];
                    order[b] = t;
                }
        double sum = 0;
        for (int s = 0; s < K; ++s) sum += score[order[s]];
        if (sum == 0.0) {
            ++unbound;
            continue;
        }
        for (int s = 0; s < K; ++s) {
            double expect = score[order[s]] / sum;
            assert_float_equal(w[i * K + s], expect, 2e-6);
            /* Which joint holds a slot is only defined when it does not tie
             * with the first joint dropped. */
            if (expect > 0 && score[order[s]] != score[order[K]])
                assert_float_equal(row_weight(j, w, K, (size_t)i, (uint32_t)order[s]), expect, 2e-6);
        }
    }
    assert_int_equal(rep.unbound_count, unbound);
    assert_true(unbound > 0);
}

static void joint_with_two_capsules_takes_the_best_score(void **state)
{
    (void)state;
    const float p[] = {0.0f, 0.0f, 0.0f};
    sinew_skin_capsule caps[] = {capsule(-1, 0, 0, 1, 0, 0, 0.5f, 0), capsule(0, -1, 0, 0, 1, 0, 0.5f, 0),
                                 capsule(0, 0, -1, 0, 0, 1, 0.5f, 3)};
    sinew_points pts = {p, 1, 0};
    uint32_t j[2];
    float w[2];
    sinew_skin_capsule_desc d = {sizeof(sinew_skin_capsule_desc), 2, 0, 0, 0, SINEW_SKIN_CAPSULE_SCORE_BLEND};
    assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, caps, 3, &d, j, w, NULL), SINEW_OK);
    assert_float_equal(row_weight(j, w, 2, 0, 0), 0.5, 1e-7);
    assert_float_equal(row_weight(j, w, 2, 0, 3), 0.5, 1e-7);
}

static void keeps_the_k_best_joints(void **state)
{
    (void)state;
    /* Scores 1, 0.5 and 0.15625 (t = 0.75): with k = 2 the last is dropped. */
    const float p[] = {0.0f, 0.0f, 0.0f};
    sinew_skin_capsule caps[] = {capsule(0, 1.375f, 0, 1, 1.375f, 0, 1.0f, 2), capsule(0, 0, 0, 1, 0, 0, 0.5f, 5),
                                 capsule(0, 1.25f, 0, 1, 1.25f, 0, 1.0f, 1)};
    sinew_points pts = {p, 1, 0};
    uint32_t j[3];
    float w[3];
    sinew_skin_capsule_desc d = {sizeof(sinew_skin_capsule_desc), 2, 0, 0, 0, SINEW_SKIN_CAPSULE_SCORE_BLEND};
    assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, caps, 3, &d, j, w, NULL), SINEW_OK);
    assert_int_equal(j[0], 5);
    assert_float_equal(w[0], 1.0 / 1.5, 1e-6);
    assert_int_equal(j[1], 1);
    assert_float_equal(w[1], 0.5 / 1.5, 1e-6);
    d.influence_count = 3;
    assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, caps, 3, &d, j, w, NULL), SINEW_OK);
    assert_int_equal(j[2], 2);
    assert_float_equal(w[2], 0.15625 / 1.65625, 1e-6);
}

static void tube_binding_is_a_partition_of_unity(void **state)
{
    (void)state;
    tube t = tube_make(21, 12, 2.0f, 0.25f);
    sinew_skin_capsule caps[] = {capsule(0, 0, 0, 1, 0, 0, 0.3f, 0), capsule(1, 0, 0, 2, 0, 0, 0.3f, 1)};
    sinew_points pts = {t.positions, t.vertex_count, 0};
    uint32_t *j = malloc(t.vertex_count * 4 * sizeof *j);
    float *w = malloc(t.vertex_count * 4 * sizeof *w);
    assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, caps, 2, NULL, j, w, NULL), SINEW_OK);
    assert_int_equal(first_bad_row(j, w, t.vertex_count, 4), SIZE_MAX);
    /* Both bones contain the middle ring: an even split there; the end rings are
     * reached by one bone only. */
    for (size_t s = 0; s < t.sides; ++s) {
        assert_float_equal(row_weight(j, w, 4, 10 * t.sides + s, 0), 0.5, 1e-6);
        assert_float_equal(row_weight(j, w, 4, s, 0), 1.0, 0);
        assert_float_equal(row_weight(j, w, 4, 20 * t.sides + s, 1), 1.0, 0);
    }
    /* The weight of bone 0 never rises along the tube. */
    for (size_t i = 1; i < t.rings; ++i)
        assert_true(row_weight(j, w, 4, i * t.sides, 0) <= row_weight(j, w, 4, (i - 1) * t.sides, 0) + 1e-7);
    free(j);
    free(w);
    tube_free(&t);
}

static void derived_radius_is_the_distance_quantile(void **state)
{
    (void)state;
    /* Distances 1, 2, 3, 4 from one segment; the median (quantile 0.5) gives
     * radius 2: distances up to 2 score 1, 3 is exactly at the band's end
     * (3 = 2 * 1.5) and 4 beyond, so two vertices are unbound. */
    const float p[] = {0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0};
    sinew_skin_capsule cap = capsule(-1, 0, 0, 1, 0, 0, 0.0f, 6);
    sinew_points pts = {p, 4, 0};
    uint32_t j[4] = {77, 77, 77, 77};
    float w[4] = {-1, -1, -1, -1};
    uint32_t list[1] = {99};
    sinew_skin_capsule_report rep = {sizeof(sinew_skin_capsule_report), list, 1, 0};
    sinew_skin_capsule_desc d = {sizeof(sinew_skin_capsule_desc), 1, 0.5f, 0.5f, SINEW_SKIN_UNBOUND_REPORT, SINEW_SKIN_CAPSULE_SCORE_BLEND};
    assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, &cap, 1, &d, j, w, &rep), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_int_equal(rep.unbound_count, 2);
    assert_int_equal(list[0], 2);
    assert_non_null(strstr(sinew_last_error(), "vertex 2 lies outside every capsule (2 vertices unbound)"));
    for (int i = 0; i < 4; ++i) assert_true(j[i] == 77 && w[i] == -1.0f);   /* untouched */
    /* Quantile 1 covers every vertex. */
    d.radius_quantile = 1.0f;
    assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, &cap, 1, &d, j, w, &rep), SINEW_OK);
    assert_int_equal(rep.unbound_count, 0);
    for (int i = 0; i < 4; ++i) assert_true(j[i] == 6 && w[i] == 1.0f);

    /* On the tube every vertex is 0.25 from the axis: the derived radius is
     * 0.25 and the result equals the explicit one. */
    tube t = tube_make(9, 8, 2.0f, 0.25f);
    sinew_skin_capsule caps[] = {capsule(0, 0, 0, 1, 0, 0, 0.0f, 0), capsule(1, 0, 0, 2, 0, 0, 0.0f, 1)};
    sinew_points tp = {t.positions, t.vertex_count, 0};
    uint32_t j1[72 * 2], j2[72 * 2];
    float w1[72 * 2], w2[72 * 2];
    sinew_skin_capsule_desc d2 = {sizeof(sinew_skin_capsule_desc), 2, 0, 0, 0, SINEW_SKIN_CAPSULE_SCORE_BLEND};
    assert_int_equal(sinew_skin_capsule_weights(NULL, &tp, caps, 2, &d2, j1, w1, NULL), SINEW_OK);
    caps[0].radius = caps[1].radius = 0.25f;
    assert_int_equal(sinew_skin_capsule_weights(NULL, &tp, caps, 2, &d2, j2, w2, NULL), SINEW_OK);
    for (size_t i = 0; i < 72 * 2; ++i) {
        assert_int_equal(j1[i], j2[i]);
        assert_float_equal(w1[i], w2[i], 1e-6);
    }
    tube_free(&t);
}

static void unbound_vertices_can_take_the_nearest_capsule(void **state)
{
    (void)state;
    const float p[] = {0, 0, 0, 0, 5, 0, 3, 0, 0, 9, 9, 9};
    sinew_skin_capsule caps[] = {capsule(0, 0, 0, 0, 0, 0, 0.5f, 1), capsule(0, 4, 0, 0, 4, 0, 2.0f, 2)};
    sinew_points pts = {p, 4, 0};
    uint32_t j[8];
    float w[8];
    uint32_t list[4] = {0};
    sinew_skin_capsule_report rep = {sizeof(sinew_skin_capsule_report), list, 4, 0};
    sinew_skin_capsule_desc d = {sizeof(sinew_skin_capsule_desc), 2, 0, 0, SINEW_SKIN_UNBOUND_NEAREST, SINEW_SKIN_CAPSULE_SCORE_BLEND};
    assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, caps, 2, &d, j, w, &rep), SINEW_OK);
    assert_int_equal(rep.unbound_count, 2);
    assert_int_equal(list[0], 2);
    assert_int_equal(list[1], 3);
    /* Vertex 2: 6 radii from capsule 0, 2.5 from capsule 1 -> joint 2. */
    assert_int_equal(j[4], 2);
    assert_true(w[4] == 1.0f && w[5] == 0.0f);
    assert_int_equal(first_bad_row(j, w, 4, 2), SIZE_MAX);
    assert_string_equal(sinew_last_error(), "");
}

/* Counts whose arrays cannot exist (count * element size past
 * SIZE_MAX) are refused with SIZE_OVERFLOW before any element is read; the
 * capsule loop used to walk SIZE_MAX / 3 capsules off a two-element array. */
static void impossible_counts_are_refused_before_reading(void **state)
{
    (void)state;
    float p[] = {0, 0, 0, 1, 0, 0};
    sinew_points pts = {p, 2, 0};
    sinew_skin_capsule caps[] = {capsule(0, 0, 0, 1, 0, 0, 0.5f, 0), capsule(0, 0, 0, 1, 0, 0, 0.5f, 1)};
    uint32_t j[8] = {5, 5, 5, 5, 5, 5, 5, 5};
    float w[8] = {3, 3, 3, 3, 3, 3, 3, 3};
    const size_t counts[] = {SIZE_MAX / 3, SIZE_MAX / sizeof(sinew_skin_capsule) + 1, SIZE_MAX,
                             (size_t)UINT32_MAX + 1};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; ++c) {
        if (counts[c] <= UINT32_MAX) continue;   /* 32-bit size_t: the last case is not a count */
        assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, caps, counts[c], NULL, j, w, NULL),
                         SINEW_ERROR_SIZE_OVERFLOW);
        assert_non_null(strstr(sinew_last_error(), "capsules overflow"));
    }
    sinew_skin_capsule_report rep = {sizeof(sinew_skin_capsule_report), j, SIZE_MAX / sizeof(uint32_t) + 1, 7};
    assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, caps, 2, NULL, j, w, &rep), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "report capacity"));
    for (int i = 0; i < 8; ++i) assert_true(j[i] == 5 && w[i] == 3.0f);
    assert_int_equal(rep.unbound_count, 7);
}

static void invalid_inputs_are_named(void **state)
{
    (void)state;
    float p[] = {0, 0, 0, 1, 0, 0};
    sinew_points pts = {p, 2, 0};
    sinew_skin_capsule caps[] = {capsule(0, 0, 0, 1, 0, 0, 0.5f, 0), capsule(0, 0, 0, 1, 0, 0, 0.5f, 1)};
    uint32_t j[8] = {5, 5, 5, 5, 5, 5, 5, 5};
    float w[8] = {3, 3, 3, 3, 3, 3, 3, 3};
    sinew_skin_capsule_desc d;
    SINEW_INIT(&d);
#define EXPECT(call, code, text)                                        \
    do {                                                                \
        assert_int_equal((call), (code));                               \
        assert_non_null(strstr(sinew_last_error(), (text)));            \
    } while (0)
    EXPECT(sinew_skin_capsule_weights(NULL, NULL, caps, 2, &d, j, w, NULL), SINEW_ERROR_INVALID_ARGUMENT, "NULL");
    sinew_points empty = {p, 0, 0};
    EXPECT(sinew_skin_capsule_weights(NULL, &empty, caps, 2, &d, j, w, NULL), SINEW_ERROR_INVALID_ARGUMENT, "no vertices");
    EXPECT(sinew_skin_capsule_weights(NULL, &pts, NULL, 2, &d, j, w, NULL), SINEW_ERROR_INVALID_ARGUMENT, "no capsules");
    EXPECT(sinew_skin_capsule_weights(NULL, &pts, caps, 0, &d, j, w, NULL), SINEW_ERROR_INVALID_ARGUMENT, "no capsules");
    EXPECT(sinew_skin_capsule_weights(NULL, &pts, caps, 2, &d, NULL, w, NULL), SINEW_ERROR_INVALID_ARGUMENT, "output");
    EXPECT(sinew_skin_capsule_weights(NULL, &pts, caps, 2, &d, j, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT, "output");
    p[4] = NAN;
    EXPECT(sinew_skin_capsule_weights(NULL, &pts, caps, 2, &d, j, w, NULL), SINEW_ERROR_NON_FINITE, "mesh vertex 1");
    p[4] = 0;
    caps[1].tail[2] = INFINITY;
    EXPECT(sinew_skin_capsule_weights(NULL, &pts, caps, 2, &d, j, w, NULL), SINEW_ERROR_NON_FINITE, "capsule 1 tail z");
    caps[1].tail[2] = 0;
    caps[0].head[1] = NAN;
    EXPECT(sinew_skin_capsule_weights(NULL, &pts, caps, 2, &d, j, w, NULL), SINEW_ERROR_NON_FINITE, "capsule 0 head y");
    caps[0].head[1] = 0;
    caps[1].radius = NAN;
    EXPECT(sinew_skin_capsule_weights(NULL, &pts, caps, 2, &d, j, w, NULL), SINEW_ERROR_NON_FINITE, "capsule 1 radius");
    caps[1].radius = -0.5f;
    EXPECT(sinew_skin_capsule_weights(NULL, &pts, caps, 2, &d, j, w, NULL), SINEW_ERROR_INVALID_ARGUMENT,
           "capsule 1 has a negative radius");
    caps[1].radius = 0.5f;
    d.falloff = -1;
    EXPECT(sinew_skin_capsule_weights(NULL, &pts, caps, 2, &d, j, w, NULL), SINEW_ERROR_INVALID_ARGUMENT, "falloff");
    d.falloff = NAN;
    EXPECT(sinew_skin_capsule_weights(NULL, &pts, caps, 2, &d, j, w, NULL), SINEW_ERROR_NON_FINITE, "falloff");
    d.falloff = 0;
    d.radius_quantile = 1.5f;
    EXPECT(sinew_skin_capsule_weights(NULL, &pts, caps, 2, &d, j, w, NULL), SINEW_ERROR_INVALID_ARGUMENT,
           "radius_quantile");
    d.radius_quantile = 0;
    d.unbound = (sinew_skin_unbound)7;
    EXPECT(sinew_skin_capsule_weights(NULL, &pts, caps, 2, &d, j, w, NULL), SINEW_ERROR_INVALID_ARGUMENT,
           "unbound policy 7");
    d.unbound = SINEW_SKIN_UNBOUND_REPORT;
    sinew_skin_capsule_report rep = {sizeof(sinew_skin_capsule_report), NULL, 3, 0};
    EXPECT(sinew_skin_capsule_weights(NULL, &pts, caps, 2, &d, j, w, &rep), SINEW_ERROR_INVALID_ARGUMENT,
           "array is NULL");
    sinew_points huge = {p, SIZE_MAX / 2, 0};
    assert_int_equal(sinew_skin_capsule_weights(NULL, &huge, caps, 2, &d, j, w, NULL), SINEW_ERROR_SIZE_OVERFLOW);
    for (int i = 0; i < 8; ++i) assert_true(j[i] == 5 && w[i] == 3.0f);
    assert_int_equal(rep.unbound_count, 0);
#undef EXPECT
}

typedef struct sweep_case {
    tube t;
    sinew_skin_capsule caps[2];
    uint32_t *j;
    float *w;
} sweep_case;

/* A failure must say what failed. An out-of-memory result
 * without the allocation named in the message becomes INVALID_STATE, which
 * the sweep reports. */
static sinew_result named_failure(sinew_result r)
{
    if (r == SINEW_ERROR_OUT_OF_MEMORY && !strstr(sinew_last_error(), "out of memory allocating "))
        return SINEW_ERROR_INVALID_STATE;
    return r;
}

static sinew_result bind_attempt(sinew_context *ctx, void *user)
{
    sweep_case *c = (sweep_case *)user;
    sinew_points pts = {c->t.positions, c->t.vertex_count, 0};
    return named_failure(sinew_skin_capsule_weights(ctx, &pts, c->caps, 2, NULL, c->j, c->w, NULL));
}

static void allocation_failures_are_clean(void **state)
{
    (void)state;
    sweep_case c;
    c.t = tube_make(5, 6, 2.0f, 0.25f);
    c.caps[0] = capsule(0, 0, 0, 1, 0, 0, 0.0f, 0);   /* derived radii: every allocation */
    c.caps[1] = capsule(1, 0, 0, 2, 0, 0, 0.3f, 1);
    c.j = malloc(c.t.vertex_count * 4 * sizeof *c.j);
    c.w = malloc(c.t.vertex_count * 4 * sizeof *c.w);
    size_t runs = 0;
    char report[256];
    assert_true(support_sweep_allocation_failures(bind_attempt, &c, &runs, report, sizeof report));
    assert_true(runs > 4);
    free(c.j);
    free(c.w);
    tube_free(&c.t);
}

static int cancel_at_once(void *user, const char *stage, float fraction)
{
    (void)fraction;
    ++*(int *)user;
    return strcmp(stage, "skin: capsule bind") == 0;
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
    tube t = tube_make(5, 6, 2.0f, 0.25f);
    sinew_skin_capsule caps[] = {capsule(0, 0, 0, 1, 0, 0, 0.0f, 0)};
    sinew_points pts = {t.positions, t.vertex_count, 0};
    uint32_t j[30 * 4];
    float w[30 * 4];
    for (int i = 0; i < 120; ++i) j[i] = 3, w[i] = 2;
    uint32_t list[2] = {8, 8};
    sinew_skin_capsule_report rep = {sizeof(sinew_skin_capsule_report), list, 2, 42};
    assert_int_equal(sinew_skin_capsule_weights(ctx, &pts, caps, 1, NULL, j, w, &rep), SINEW_ERROR_CANCELLED);
    assert_int_equal(calls, 1);
    for (int i = 0; i < 120; ++i) assert_true(j[i] == 3 && w[i] == 2.0f);
    assert_true(rep.unbound_count == 42 && list[0] == 8);
    sinew_context_destroy(ctx);
    tube_free(&t);
}

/* Distance from p to segment a-b, written out for the rigid-binding checks. */
static double plain_segment_distance(const float p[3], const float a[3], const float b[3])
{
    double ab[3], ap[3], l2 = 0, t = 0, d2 = 0;
    for (int i = 0; i < 3; ++i) {
        ab[i] = (double)b[i] - a[i];
        ap[i] = (double)p[i] - a[i];
        l2 += ab[i] * ab[i];
        t += ab[i] * ap[i];
    }
    t = l2 > 0 ? fmin(1.0, fmax(0.0, t / l2)) : 0.0;
    for (int i = 0; i < 3; ++i) d2 += (ap[i] - t * ab[i]) * (ap[i] - t * ab[i]);
    return sqrt(d2);
}

/* A two-bone chain bent at the elbow: the upper arm along x, the forearm at
 * 45 degrees. Radii are given but unused by the rigid scoring. */
static void two_bone_chain(sinew_skin_capsule caps[2])
{
    caps[0] = capsule(0, 0, 0, 1, 0, 0, 0.05f, 7);
    caps[1] = capsule(1, 0, 0, 2, 1, 0, 3.0f, 4);
}

static void rigid_binding(const sinew_points *pts, uint32_t *j, float *w, uint32_t k)
{
    sinew_skin_capsule caps[2];
    two_bone_chain(caps);
    sinew_skin_capsule_desc d;
    SINEW_INIT(&d);
    d.influence_count = k;
    d.scoring = SINEW_SKIN_CAPSULE_SCORE_NEAREST_SEGMENT;
    if (sinew_skin_capsule_weights(NULL, pts, caps, 2, &d, j, w, NULL) != SINEW_OK)
        fail_msg("rigid bind: %s", sinew_last_error());
}

/* Each point goes wholly to the segment nearest in Euclidean distance
 * (ties to the first capsule), whatever the radii: closed forms, then
 * random points against the plain distances. */
static void nearest_segment_binds_rigidly_on_a_two_bone_chain(void **state)
{
    (void)state;
    enum { N = 300 };
    float p[3 * N] = {
        0.5f, 0.3f, 0.0f,   /* over the upper arm: joint 7 */
        1.8f, 1.2f, 0.0f,   /* beside the forearm: joint 4 */
        1.2f, -0.5f, 0.0f,  /* nearest point of both is the elbow: the tie goes to the first, joint 7 */
        0.9f, 0.0f, 2.0f,   /* far above the upper arm (beyond the thin capsule's band): still joint 7 */
    };
    const uint32_t want[4] = {7, 4, 7, 7};
    support_rng rng;
    support_rng_seed(&rng, 32);
    for (int i = 12; i < 3 * N; ++i) p[i] = (float)support_rng_uniform(&rng, -1.0, 3.0);
    sinew_points pts = {p, N, 0};
    uint32_t j[2 * N];
    float w[2 * N];
    rigid_binding(&pts, j, w, 2);
    sinew_skin_capsule caps[2];
    two_bone_chain(caps);
    for (int v = 0; v < N; ++v) {
        assert_true(w[2 * v] == 1.0f && w[2 * v + 1] == 0.0f);
        if (v < 4) {
            assert_int_equal(j[2 * v], want[v]);
            continue;
        }
        double d0 = plain_segment_distance(p + 3 * v, caps[0].head, caps[0].tail);
        double d1 = plain_segment_distance(p + 3 * v, caps[1].head, caps[1].tail);
        assert_int_equal(j[2 * v], d1 < d0 ? 4u : 7u);
    }
}

/* A driver bound rigidly and skinned moves rigidly: under one rigid motion
 * of both joints the whole driver moves by it; with the forearm turned
 * about the elbow, each point follows its own bone exactly. */
static void nearest_segment_driver_moves_rigidly(void **state)
{
    (void)state;
    enum { N = 120 };
    float p[3 * N];
    support_rng rng;
    support_rng_seed(&rng, 33);
    for (int i = 0; i < 3 * N; ++i) p[i] = (float)support_rng_uniform(&rng, -0.5, 2.5);
    sinew_points pts = {p, N, 0};
    uint32_t j[N];
    float w[N];
    rigid_binding(&pts, j, w, 1);
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = N, d.joint_count = 8, d.influence_count = 1;
    d.joints = j, d.weights = w;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    const double axis[3] = {0.3, -0.5, 0.8}, turn[3] = {0, 0, 1}, move[3] = {0.4, -1.0, 2.0};
    float world[8 * 16], rigid[16], elbow_turn[16], elbow[16], back[16];
    support_affine_rotation(axis, 0.7, move, rigid);
    /* The forearm turned 0.9 rad about the elbow (1, 0, 0): T(e) R T(-e). */
    const double to_elbow[3] = {1, 0, 0}, from_elbow[3] = {-1, 0, 0};
    support_affine_rotation(turn, 0.0, from_elbow, back);
    support_affine_rotation(turn, 0.9, to_elbow, elbow_turn);
    support_mat4_multiply(elbow_turn, back, elbow);
    for (int pose = 0; pose < 2; ++pose) {
        for (int k = 0; k < 8; ++k) memcpy(world + 16 * k, rigid, sizeof rigid);
        if (pose == 1) support_mat4_multiply(rigid, elbow, world + 16 * 4);
        size_t pf = sinew_skin_palette_size(skin);
        float palette[8 * 48], out[3 * N];
        assert_true(pf <= 8 * 48);
        assert_int_equal(sinew_skin_palette(skin, world, 8, palette, pf), SINEW_OK);
        sinew_skin_input in = {p, 0, NULL, 0, NULL, 0};
        sinew_skin_output o = {out, 0, NULL, 0, NULL, 0};
        assert_int_equal(sinew_skin_deform(skin, palette, pf, &in, &o, 0, N), SINEW_OK);
        for (int v = 0; v < N; ++v) {
            const float *m = world + 16 * j[v];
            for (int r = 0; r < 3; ++r) {
                double want = m[12 + r];
                for (int c = 0; c < 3; ++c) want += (double)m[4 * c + r] * p[3 * v + c];
                if (fabs(out[3 * v + r] - want) > 1e-5)
                    fail_msg("pose %d point %d (joint %u): %g, want %g", pose, v, j[v], (double)out[3 * v + r], want);
            }
        }
    }
    sinew_skin_destroy(skin);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vertex_on_axis_gets_weight_one),
        cmocka_unit_test(band_scores_match_closed_form),
        cmocka_unit_test(mirrored_capsules_give_mirrored_weights),
        cmocka_unit_test(matches_reference_on_random_setups),
        cmocka_unit_test(joint_with_two_capsules_takes_the_best_score),
        cmocka_unit_test(keeps_the_k_best_joints),
        cmocka_unit_test(tube_binding_is_a_partition_of_unity),
        cmocka_unit_test(derived_radius_is_the_distance_quantile),
        cmocka_unit_test(unbound_vertices_can_take_the_nearest_capsule),
        cmocka_unit_test(impossible_counts_are_refused_before_reading),
        cmocka_unit_test(invalid_inputs_are_named),
        cmocka_unit_test(allocation_failures_are_clean),
        cmocka_unit_test(cancellation_leaves_outputs_untouched),
        cmocka_unit_test(nearest_segment_binds_rigidly_on_a_two_bone_chain),
        cmocka_unit_test(nearest_segment_driver_moves_rigidly),
    };
    return cmocka_run_group_tests_name("skin tools: capsule bind", tests, NULL, NULL);
}
