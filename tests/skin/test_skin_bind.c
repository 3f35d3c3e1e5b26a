/* Smooth skinning, bind phase: sinew_skin_create's validation (every path,
 * with its message), weight cleaning (merge, renormalise, unweighted
 * vertices), compressed storage, queries, cancellation and allocation
 * failures. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support.h"

/* A two-vertex, three-joint, three-slot desc that binds cleanly. */
typedef struct small {
    uint32_t joints[6];
    float weights[6];
    float inverse_bind[48];
    float dq_blend[2];
    sinew_skin_desc desc;
} small;

static void small_init(small *s)
{
    const uint32_t j[6] = {0, 1, 2, 2, 0, 0};
    const float w[6] = {0.5f, 0.3f, 0.2f, 1.0f, 0.0f, 0.0f};
    memcpy(s->joints, j, sizeof j);
    memcpy(s->weights, w, sizeof w);
    memset(s->inverse_bind, 0, sizeof s->inverse_bind);
    for (int m = 0; m < 3; ++m)
        for (int i = 0; i < 4; ++i) s->inverse_bind[16 * m + 5 * i] = 1.0f;
    s->dq_blend[0] = 0.25f, s->dq_blend[1] = 1.0f;
    SINEW_INIT(&s->desc);
    s->desc.vertex_count = 2;
    s->desc.joint_count = 3;
    s->desc.influence_count = 3;
    s->desc.joints = s->joints;
    s->desc.weights = s->weights;
    s->desc.inverse_bind = s->inverse_bind;
}

static void expect_failure(const sinew_skin_desc *d, sinew_result code, const char *message)
{
    sinew_skin *skin = (sinew_skin *)(uintptr_t)0x1;
    sinew_result r = sinew_skin_create(NULL, d, &skin);
    if (r != code)
        fail_msg("expected %s, got %s (%s)", sinew_result_string(code), sinew_result_string(r), sinew_last_error());
    if (!strstr(sinew_last_error(), message)) fail_msg("message '%s' lacks '%s'", sinew_last_error(), message);
    assert_true(skin == (sinew_skin *)(uintptr_t)0x1); /* untouched */
}

static void every_validation_path_names_the_element(void **state)
{
    (void)state;
    small s;
    sinew_skin *skin = NULL;
    small_init(&s);
    assert_int_equal(sinew_skin_create(NULL, NULL, &skin), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "desc is NULL"));
    assert_int_equal(sinew_skin_create(NULL, &s.desc, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "out pointer is NULL"));

#define CASE(mutation, code, message) \
    do {                              \
        small_init(&s);               \
        mutation;                     \
        expect_failure(&s.desc, code, message); \
    } while (0)
    CASE(s.desc.vertex_count = 0, SINEW_ERROR_INVALID_ARGUMENT, "vertex_count is 0");
    CASE(s.desc.joint_count = 0, SINEW_ERROR_INVALID_ARGUMENT, "joint_count is 0");
    CASE(s.desc.influence_count = 0, SINEW_ERROR_INVALID_ARGUMENT, "influence_count is 0");
    CASE(s.desc.joint_count = 65537, SINEW_ERROR_UNSUPPORTED, "joint_count 65537 exceeds");
    CASE(s.desc.vertex_count = (size_t)UINT32_MAX + 5, SINEW_ERROR_UNSUPPORTED, "vertex_count");
    CASE((s.desc.vertex_count = SIZE_MAX / 2, s.desc.influence_count = 3), SINEW_ERROR_UNSUPPORTED, "vertex_count");
    CASE(s.desc.joints = NULL, SINEW_ERROR_INVALID_ARGUMENT, "joints array is NULL");
    CASE(s.desc.weights = NULL, SINEW_ERROR_INVALID_ARGUMENT, "weights array is NULL");
    CASE(s.desc.storage = (sinew_skin_storage)7, SINEW_ERROR_INVALID_ARGUMENT, "storage 7");
    CASE(s.desc.blend = (sinew_skin_blend)7, SINEW_ERROR_INVALID_ARGUMENT, "blend 7");
    CASE(s.desc.normals = (sinew_skin_normals)7, SINEW_ERROR_INVALID_ARGUMENT, "normals 7");
    CASE(s.desc.unweighted = (sinew_skin_unweighted)7, SINEW_ERROR_INVALID_ARGUMENT, "unweighted 7");
    CASE(s.desc.kernel = (sinew_skin_kernel)7, SINEW_ERROR_INVALID_ARGUMENT, "kernel 7");
    CASE(s.desc.weight_tolerance = -1.0f, SINEW_ERROR_INVALID_ARGUMENT, "weight_tolerance -1");
    CASE(s.desc.weight_tolerance = NAN, SINEW_ERROR_INVALID_ARGUMENT, "weight_tolerance nan");
    CASE((s.desc.unweighted = SINEW_SKIN_UNWEIGHTED_BIND, s.desc.unweighted_joint = 3),
         SINEW_ERROR_INDEX_OUT_OF_RANGE, "unweighted_joint 3, but there are only 3 joints");
    CASE(s.inverse_bind[16 + 9] = INFINITY, SINEW_ERROR_NON_FINITE,
         "inverse bind matrix of joint 1 has a non-finite element (row 1, column 2) (inf)");
    CASE(s.inverse_bind[32 + 3] = 0.5f, SINEW_ERROR_INVALID_ARGUMENT,
         "inverse bind matrix of joint 2 is not affine: last row is (0.5 0 0 1)");
    CASE(s.desc.blend = SINEW_SKIN_BLEND_MIXED, SINEW_ERROR_INVALID_ARGUMENT, "dq_blend is NULL");
    CASE((s.desc.blend = SINEW_SKIN_BLEND_MIXED, s.desc.dq_blend = s.dq_blend, s.dq_blend[1] = NAN),
         SINEW_ERROR_NON_FINITE, "vertex 1 has a non-finite dq_blend factor");
    CASE((s.desc.blend = SINEW_SKIN_BLEND_MIXED, s.desc.dq_blend = s.dq_blend, s.dq_blend[0] = 1.5f),
         SINEW_ERROR_INVALID_WEIGHTS, "vertex 0 has dq_blend factor 1.5 outside [0, 1]");
    CASE(s.weights[4] = NAN, SINEW_ERROR_NON_FINITE, "vertex 1 slot 1 has a non-finite weight (nan)");
    CASE(s.weights[2] = -0.2f, SINEW_ERROR_INVALID_WEIGHTS, "vertex 0 slot 2 has a negative weight (-0.2)");
    CASE(s.joints[1] = 3, SINEW_ERROR_INDEX_OUT_OF_RANGE,
         "vertex 0 slot 1 refers to joint 3, but there are only 3 joints");
    CASE(s.weights[3] = 0.0f, SINEW_ERROR_INVALID_WEIGHTS, "vertex 1 has no nonzero weight");
    CASE(s.weights[0] = 0.6f, SINEW_ERROR_INVALID_WEIGHTS, "vertex 0 weights sum to 1.10000");
    CASE(s.desc.influence_count = SIZE_MAX / 2 + 1, SINEW_ERROR_SIZE_OVERFLOW, "overflow");
#undef CASE
    /* A zero-weight slot is padding: its joint index is not checked. */
    small_init(&s);
    s.joints[5] = 999;
    assert_int_equal(sinew_skin_create(NULL, &s.desc, &skin), SINEW_OK);
    assert_string_equal(sinew_last_error(), "");
    sinew_skin_destroy(skin);
    sinew_skin_destroy(NULL);
}

/* Vertices * influences fits in size_t but the arrays' bytes do
 * not: SIZE_OVERFLOW before anything is allocated or read (the bind used to
 * allocate its scratch and then read past the weights). */
static void impossible_counts_are_refused_before_reading(void **state)
{
    (void)state;
    if (SIZE_MAX <= UINT32_MAX) skip();   /* needs a 64-bit size_t */
    small s;
    small_init(&s);
    s.desc.vertex_count = (size_t)UINT32_MAX - 1;
    s.desc.influence_count = (size_t)1 << 31;   /* slots < 2^63, bytes 2^65 */
    support_allocator a = {0};
    sinew_context_desc cd;
    SINEW_INIT(&cd);
    cd.allocator = support_allocator_hooks(&a);
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
    const size_t before = a.calls;
    a.fail_at = before + 1;   /* refuse the skin's first allocation: none may be tried */
    sinew_skin *skin = (sinew_skin *)(uintptr_t)0x1;
    assert_int_equal(sinew_skin_create(ctx, &s.desc, &skin), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "influences overflow"));
    assert_true(skin == (sinew_skin *)(uintptr_t)0x1);
    assert_int_equal(a.calls, before);
    sinew_context_destroy(ctx);
}

static void read_vertex(const sinew_skin *skin, size_t v, size_t *k, uint32_t *j, float *w)
{
    assert_int_equal(sinew_skin_vertex_influences(skin, v, j, w, 16, k), SINEW_OK);
}

static void duplicates_merge_and_sort(void **state)
{
    (void)state;
    const uint32_t j[8] = {2, 2, 3, 1, /* vertex 1 */ 0, 1, 0, 3};
    const float w[8] = {0.25f, 0.25f, 0.4f, 0.1f, 0.1f, 0.2f, 0.3f, 0.4f};
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = 2, d.joint_count = 4, d.influence_count = 4, d.joints = j, d.weights = w;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    size_t k;
    uint32_t jj[16];
    float ww[16];
    read_vertex(skin, 0, &k, jj, ww);
    assert_int_equal(k, 3);
    assert_int_equal(jj[0], 2), assert_int_equal(jj[1], 3), assert_int_equal(jj[2], 1);
    assert_true(fabsf(ww[0] - 0.5f) < 1e-7f && fabsf(ww[1] - 0.4f) < 1e-7f && fabsf(ww[2] - 0.1f) < 1e-7f);
    read_vertex(skin, 1, &k, jj, ww);
    assert_int_equal(k, 3);
    /* 0.4 on joint 0 (0.1 + 0.3) ties 0.4 on joint 3: the lower joint first. */
    assert_int_equal(jj[0], 0), assert_int_equal(jj[1], 3), assert_int_equal(jj[2], 1);
    sinew_skin_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_skin_get_info(skin, &info), SINEW_OK);
    assert_int_equal(info.merged_duplicates, 2);
    assert_int_equal(info.max_nonzero_influences, 3);
    assert_int_equal(info.single_joint_vertices, 0);
    /* Asking for the count only is fine; a short capacity gets the count and nothing else. */
    assert_int_equal(sinew_skin_vertex_influences(skin, 1, NULL, NULL, 0, &k), SINEW_OK);
    assert_int_equal(k, 3);
    k = 0;
    jj[0] = 77, ww[0] = -1.0f;
    assert_int_equal(sinew_skin_vertex_influences(skin, 1, jj, ww, 2, &k), SINEW_ERROR_BUFFER_TOO_SMALL);
    assert_int_equal(k, 3);
    assert_int_equal(jj[0], 77);
    assert_float_equal(ww[0], -1.0f, 0.0f);
    assert_non_null(strstr(sinew_last_error(), "vertex 1 has 3 influences, capacity is 2"));
    assert_int_equal(sinew_skin_vertex_influences(skin, 2, jj, ww, 16, &k), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_non_null(strstr(sinew_last_error(), "vertex 2, but the skin has only 2 vertices"));
    assert_int_equal(sinew_skin_vertex_influences(NULL, 0, jj, ww, 16, &k), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_vertex_influences(skin, 0, jj, ww, 16, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_skin_destroy(skin);
}

static void renormalisation_and_tolerance(void **state)
{
    (void)state;
    const uint32_t j[4] = {0, 1, 1, 0};
    float w[4] = {1.0f, 1.0f, 0.6f, 0.4005f};
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = 2, d.joint_count = 2, d.influence_count = 2, d.joints = j, d.weights = w;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_ERROR_INVALID_WEIGHTS);
    assert_non_null(strstr(sinew_last_error(), "vertex 0 weights sum to 2, not 1"));
    d.renormalise = 1;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    size_t k;
    uint32_t jj[2];
    float ww[2];
    read_vertex(skin, 0, &k, jj, ww);
    assert_true(ww[0] == 0.5f && ww[1] == 0.5f);
    /* Vertex 1 sums to 1.0005: within the default tolerance, scaled to 1. */
    read_vertex(skin, 1, &k, jj, ww);
    assert_true(fabsf(ww[0] + ww[1] - 1.0f) < 1e-7f);
    assert_true(fabsf(ww[0] - 0.6f / 1.0005f) < 1e-6f);
    sinew_skin_info info;
    SINEW_INIT(&info);
    sinew_skin_get_info(skin, &info);
    assert_int_equal(info.renormalised_vertices, 2);
    sinew_skin_destroy(skin);
    /* A tighter tolerance rejects vertex 1. */
    d.renormalise = 0;
    w[0] = 0.5f, w[1] = 0.5f;
    d.weight_tolerance = 1e-4f;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_ERROR_INVALID_WEIGHTS);
    assert_non_null(strstr(sinew_last_error(), "vertex 1 weights sum to 1.000"));
    d.weight_tolerance = 1e-2f;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    sinew_skin_destroy(skin);
}

/* Duplicates of weights near FLT_MAX used to merge in float, overflow
 * to inf and renormalise to NaN (undefined behaviour in the quantiser's
 * float-to-unsigned conversion, an inf weight with float storage). Merged in
 * double they bind with weight 1; a sum far from 1 without renormalise is
 * rejected naming the vertex. */
static void huge_duplicate_weights_bind_finitely(void **state)
{
    (void)state;
    /* The reproducer (one joint: its weight is implicit, but the
     * quantiser saw NaN; a fifth, zero slot is padding), then four slots of
     * joint 0 beside one of joint 1 (the stored weights were inf and 0.2). */
    const uint32_t j[2][5] = {{0, 0, 0, 0, 0}, {0, 0, 0, 0, 1}};
    const float w[2][5] = {{1e38f, 1e38f, 1e38f, 1e38f, 0.0f}, {1e38f, 1e38f, 1e38f, 1e38f, 1e38f}};
    for (int c = 0; c < 4; ++c) {
        const int two = c / 2, storage = c % 2;
        sinew_skin_desc d;
        SINEW_INIT(&d);
        d.vertex_count = 1, d.joint_count = 2, d.influence_count = 5, d.joints = j[two], d.weights = w[two];
        d.renormalise = 1;
        d.storage = (sinew_skin_storage)storage;
        sinew_skin *skin = NULL;
        assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
        size_t k = 0;
        uint32_t jj[16];
        float ww[16];
        read_vertex(skin, 0, &k, jj, ww);
        assert_int_equal(k, two ? 2 : 1);
        assert_int_equal(jj[0], 0);
        if (!two) {
            assert_true(ww[0] == 1.0f);
        } else {
            /* 4/5 and 1/5; compressed: 204 and 51 of 255. */
            assert_int_equal(jj[1], 1);
            assert_true(ww[0] == (storage ? 204.0f * (1.0f / 255.0f) : 0.8f));
            assert_true(ww[1] == (storage ? 51.0f * (1.0f / 255.0f) : 0.2f));
        }
        sinew_skin_info info;
        SINEW_INIT(&info);
        assert_int_equal(sinew_skin_get_info(skin, &info), SINEW_OK);
        assert_int_equal(info.merged_duplicates, 3);
        /* The identity pose leaves the vertex where it was. */
        float world[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        float palette[96];
        size_t pf = sinew_skin_palette_size(skin);
        assert_true(pf <= 96);
        assert_int_equal(sinew_skin_palette(skin, world, 2, palette, pf), SINEW_OK);
        const float p[3] = {1.0f, 2.0f, 3.0f};
        float o[3] = {0};
        sinew_skin_input in = {p, 0, NULL, 0, NULL, 0};
        sinew_skin_output out = {o, 0, NULL, 0, NULL, 0};
        assert_int_equal(sinew_skin_deform(skin, palette, pf, &in, &out, 0, 1), SINEW_OK);
        for (int i = 0; i < 3; ++i) assert_true(fabsf(o[i] - p[i]) <= 1e-6f * p[i]);
        sinew_skin_destroy(skin);
    }
    /* Two slots of 3e38 without renormalise: the sum (6e38, past FLT_MAX) is
     * not within the tolerance of 1. */
    const uint32_t j2[2] = {0, 1};
    const float w2[2] = {3e38f, 3e38f};
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = 1, d.joint_count = 2, d.influence_count = 2, d.joints = j2, d.weights = w2;
    d.storage = SINEW_SKIN_STORAGE_COMPRESSED;
    expect_failure(&d, SINEW_ERROR_INVALID_WEIGHTS, "vertex 0 weights sum to 6.0000");
    d.renormalise = 1;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    size_t k = 0;
    uint32_t jj[16];
    float ww[16];
    read_vertex(skin, 0, &k, jj, ww);
    assert_int_equal(k, 2);
    assert_true(ww[0] + ww[1] == 1.0f && fabsf(ww[0] - 0.5f) <= 1.0f / 255.0f);
    sinew_skin_destroy(skin);
}

static void unweighted_vertices_bind_by_option(void **state)
{
    (void)state;
    const uint32_t j[4] = {0, 1, 1, 0};
    const float w[4] = {0.0f, 0.0f, 0.5f, 0.5f};
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = 2, d.joint_count = 3, d.influence_count = 2, d.joints = j, d.weights = w;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_ERROR_INVALID_WEIGHTS);
    assert_non_null(strstr(sinew_last_error(), "vertex 0 has no nonzero weight"));
    d.unweighted = SINEW_SKIN_UNWEIGHTED_BIND;
    d.unweighted_joint = 2;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    size_t k;
    uint32_t jj[2];
    float ww[2];
    read_vertex(skin, 0, &k, jj, ww);
    assert_int_equal(k, 1);
    assert_int_equal(jj[0], 2);
    assert_true(ww[0] == 1.0f);
    sinew_skin_info info;
    SINEW_INIT(&info);
    sinew_skin_get_info(skin, &info);
    assert_int_equal(info.unweighted_vertices, 1);
    assert_int_equal(info.single_joint_vertices, 1);
    sinew_skin_destroy(skin);
}

/* Largest remainder: weights sum to exactly 255, each within 1/255 of its
 * float, on hand-checked cases and on many random vertices. */
static void compressed_weights_sum_to_255(void **state)
{
    (void)state;
    const uint32_t j[6] = {0, 1, 2, 0, 1, 2};
    const float w[6] = {1.0f / 3.0f, 1.0f / 3.0f, 1.0f / 3.0f, 0.5f, 0.25f, 0.25f};
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = 2, d.joint_count = 3, d.influence_count = 3, d.joints = j, d.weights = w;
    d.storage = SINEW_SKIN_STORAGE_COMPRESSED;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    size_t k;
    uint32_t jj[3];
    float ww[3];
    read_vertex(skin, 0, &k, jj, ww);
    for (int s = 0; s < 3; ++s) assert_int_equal(lrintf(ww[s] * 255.0f), 85);
    read_vertex(skin, 1, &k, jj, ww);
    /* 127.5, 63.75, 63.75 -> floors 127, 63, 63; the two .75 remainders win. */
    assert_int_equal(lrintf(ww[0] * 255.0f), 127);
    assert_int_equal(lrintf(ww[1] * 255.0f), 64);
    assert_int_equal(lrintf(ww[2] * 255.0f), 64);
    sinew_skin_destroy(skin);

    /* Random: 300 joints (16-bit indices), 2000 vertices, 1..8 influences. */
    enum { N = 2000, SLOTS = 8, JOINTS = 300 };
    uint32_t *rj = malloc(N * SLOTS * sizeof *rj);
    float *rw = calloc(N * SLOTS, sizeof *rw);
    support_rng rng;
    support_rng_seed(&rng, 1);
    for (size_t v = 0; v < N; ++v) {
        size_t kv = 1 + v % SLOTS;
        double sum = 0.0;
        for (size_t s = 0; s < kv; ++s) {
            rj[v * SLOTS + s] = (uint32_t)((v * 7 + s * 37) % JOINTS);
            rw[v * SLOTS + s] = (float)support_rng_uniform(&rng, 0.001, 1.0);
            sum += rw[v * SLOTS + s];
        }
        for (size_t s = 0; s < kv; ++s) rw[v * SLOTS + s] = (float)(rw[v * SLOTS + s] / sum);
        for (size_t s = kv; s < SLOTS; ++s) rj[v * SLOTS + s] = 0;
    }
    sinew_skin_desc rd;
    SINEW_INIT(&rd);
    rd.vertex_count = N, rd.joint_count = JOINTS, rd.influence_count = SLOTS, rd.joints = rj, rd.weights = rw;
    rd.storage = SINEW_SKIN_STORAGE_COMPRESSED;
    assert_int_equal(sinew_skin_create(NULL, &rd, &skin), SINEW_OK);
    rd.storage = SINEW_SKIN_STORAGE_FLOAT;
    sinew_skin *fskin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &rd, &fskin), SINEW_OK);
    size_t dropped = 0;
    for (size_t v = 0; v < N; ++v) {
        uint32_t qj[8], fj[8];
        float qw[8], fw[8];
        size_t qk, fk;
        read_vertex(skin, v, &qk, qj, qw);
        read_vertex(fskin, v, &fk, fj, fw);
        long total = 0;
        for (size_t s = 0; s < qk; ++s) {
            long q = lrintf(qw[s] * 255.0f);
            assert_true(q >= 1 && fabsf(qw[s] - (float)q / 255.0f) < 1e-7f);
            total += q;
            /* Same joint in the float data, within one quantisation step. */
            size_t m = 0;
            while (m < fk && fj[m] != qj[s]) ++m;
            assert_true(m < fk);
            assert_true(fabsf(qw[s] - fw[m]) < 1.0f / 255.0f);
            if (s > 0) assert_true(qw[s] <= qw[s - 1]);
        }
        assert_int_equal(total, 255);
        /* A dropped joint had a weight below one step. */
        for (size_t m = 0; m < fk; ++m) {
            size_t s = 0;
            while (s < qk && qj[s] != fj[m]) ++s;
            if (s == qk) {
                assert_true(fw[m] < 1.0f / 255.0f);
                ++dropped;
            }
        }
    }
    print_message("  2000 random vertices: every compressed weight set sums to 255; %zu tiny influences dropped\n",
                  dropped);
    sinew_skin_info info;
    SINEW_INIT(&info);
    sinew_skin_get_info(skin, &info);
    assert_int_equal(info.storage, SINEW_SKIN_STORAGE_COMPRESSED);
    sinew_skin_info finfo;
    SINEW_INIT(&finfo);
    sinew_skin_get_info(fskin, &finfo);
    assert_true(info.memory_bytes < finfo.memory_bytes);
    sinew_skin_destroy(skin);
    sinew_skin_destroy(fskin);
    free(rj), free(rw);
}

static void info_reports_the_binding(void **state)
{
    (void)state;
    small s;
    small_init(&s);
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &s.desc, &skin), SINEW_OK);
    sinew_skin_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_skin_get_info(skin, &info), SINEW_OK);
    assert_int_equal(info.vertex_count, 2);
    assert_int_equal(info.joint_count, 3);
    assert_int_equal(info.max_nonzero_influences, 3);
    assert_int_equal(info.single_joint_vertices, 1);
    assert_int_equal(info.palette_joint_floats, 16);
    assert_int_equal(info.palette_floats, 48);
    assert_int_equal(sinew_skin_palette_size(skin), 48);
    assert_int_equal(info.blend, SINEW_SKIN_BLEND_LINEAR);
    assert_int_equal(info.normals, SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE);
    assert_int_equal(info.storage, SINEW_SKIN_STORAGE_FLOAT);
    assert_true(info.kernel != SINEW_SKIN_KERNEL_AUTO);
    assert_true(info.memory_bytes > 0);
    assert_int_equal(sinew_skin_get_info(NULL, &info), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_get_info(skin, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_palette_size(NULL), 0);
    sinew_skin_destroy(skin);
    s.desc.blend = SINEW_SKIN_BLEND_DUAL_QUATERNION;
    s.desc.kernel = SINEW_SKIN_KERNEL_SCALAR;
    assert_int_equal(sinew_skin_create(NULL, &s.desc, &skin), SINEW_OK);
    assert_int_equal(sinew_skin_palette_size(skin), 3 * 48);
    sinew_skin_get_info(skin, &info);
    assert_int_equal(info.kernel, SINEW_SKIN_KERNEL_SCALAR);
    assert_int_equal(info.blend, SINEW_SKIN_BLEND_DUAL_QUATERNION);
    sinew_skin_destroy(skin);
}

static int cancel_at_layout(void *user, const char *stage, float fraction)
{
    (void)fraction;
    int *calls = user;
    ++*calls;
    return strstr(stage, "layout") != NULL;
}

static void progress_can_cancel(void **state)
{
    (void)state;
    small s;
    small_init(&s);
    support_allocator a = {0};
    int calls = 0;
    sinew_context_desc cd;
    SINEW_INIT(&cd);
    cd.allocator = support_allocator_hooks(&a);
    cd.progress = cancel_at_layout;
    cd.progress_user = &calls;
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(ctx, &s.desc, &skin), SINEW_ERROR_CANCELLED);
    assert_null(skin);
    assert_true(calls >= 2);
    sinew_context_destroy(ctx);
    assert_int_equal(a.live, 0);
}

/* A failure must say what failed. An out-of-memory result
 * without the allocation named in the message becomes INVALID_STATE, which
 * the sweep reports. */
static sinew_result named_failure(sinew_result r)
{
    if (r == SINEW_ERROR_OUT_OF_MEMORY && !strstr(sinew_last_error(), "out of memory allocating "))
        return SINEW_ERROR_INVALID_STATE;
    return r;
}

static sinew_result attempt_create(sinew_context *ctx, void *user)
{
    const sinew_skin_desc *d = user;
    sinew_skin *skin = NULL;
    sinew_result r = named_failure(sinew_skin_create(ctx, d, &skin));
    if (r == SINEW_OK) {
        /* The skin's allocator outlives the context. */
        float world[48] = {0}, pal[3 * 48];
        for (int m = 0; m < 3; ++m)
            for (int i = 0; i < 4; ++i) world[16 * m + 5 * i] = 1.0f;
        r = sinew_skin_palette(skin, world, 3, pal, sinew_skin_palette_size(skin));
    }
    sinew_skin_destroy(skin);
    return r;
}

static void allocation_failures_leave_no_leak(void **state)
{
    (void)state;
    for (int variant = 0; variant < 3; ++variant) {
        small s;
        small_init(&s);
        if (variant == 1) s.desc.storage = SINEW_SKIN_STORAGE_COMPRESSED;
        if (variant == 2) s.desc.blend = SINEW_SKIN_BLEND_MIXED, s.desc.dq_blend = s.dq_blend;
        size_t runs = 0;
        char report[256];
        bool ok = support_sweep_allocation_failures(attempt_create, &s.desc, &runs, report, sizeof report);
        if (!ok) fail_msg("variant %d: %s", variant, report);
        assert_true(runs >= 4); /* scratch, histogram, handle, groups, block */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_validation_path_names_the_element),
        cmocka_unit_test(impossible_counts_are_refused_before_reading),
        cmocka_unit_test(duplicates_merge_and_sort),
        cmocka_unit_test(renormalisation_and_tolerance),
        cmocka_unit_test(huge_duplicate_weights_bind_finitely),
        cmocka_unit_test(unweighted_vertices_bind_by_option),
        cmocka_unit_test(compressed_weights_sum_to_255),
        cmocka_unit_test(info_reports_the_binding),
        cmocka_unit_test(progress_can_cancel),
        cmocka_unit_test(allocation_failures_leave_no_leak),
    };
    return cmocka_run_group_tests_name("skin bind", tests, NULL, NULL);
}
