/* What a skin load refuses in data large enough for its one-pass fill: chunks
 * of 4096 vertices, eight-vertex SIMD blocks and a tail, several influence
 * groups whose parts start at unaligned byte offsets. Each error is placed at
 * the first vertex, inside a SIMD block, at a chunk boundary and in the last
 * vertex, and must come back with the code and message naming the element
 * that the detailed checks give; the same change without a reseal must be
 * caught by the checksum instead, and a valid skin must load, deform and save
 * bit for bit as the original. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "skin_test_util.h"
#include "support.h"

enum { JOINTS = 24, N = 2 * 4096 + 8 * 3 + 5 };  /* two whole chunks, three blocks and a tail of 5 */

/* A saved skin of n vertices over JOINTS joints. influences(v) gives vertex
 * v's count of distinct joints, with distinct decreasing weights. */
static unsigned char *saved_skin(size_t n, size_t k, size_t (*influences)(size_t), sinew_skin_storage storage,
                                 sinew_skin_blend blend, size_t *size, sinew_skin **skin_out)
{
    support_rng rng;
    support_rng_seed(&rng, 77 + n + k);
    uint32_t *joints = malloc(n * k * sizeof *joints);
    float *weights = malloc(n * k * sizeof *weights), *factors = malloc(n * sizeof *factors);
    for (size_t v = 0; v < n; ++v) {
        const size_t used = influences(v);
        const uint32_t base = (uint32_t)(support_rng_next(&rng) % JOINTS);
        double sum = 0.0;
        for (size_t s = 0; s < k; ++s) {
            joints[v * k + s] = (uint32_t)((base + 5 * s) % JOINTS);
            weights[v * k + s] = s < used ? (float)((double)(k - s) + support_rng_uniform(&rng, 0.0, 0.9)) : 0.0f;
            sum += weights[v * k + s];
        }
        for (size_t s = 0; s < k; ++s) weights[v * k + s] = (float)(weights[v * k + s] / sum);
        factors[v] = (float)support_rng_uniform(&rng, 0.0, 1.0);
    }
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = n;
    d.joint_count = JOINTS;
    d.influence_count = k;
    d.joints = joints;
    d.weights = weights;
    d.storage = storage;
    d.blend = blend;
    d.dq_blend = factors;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    assert_int_equal(sinew_skin_save(skin, NULL, 0, size), SINEW_OK);
    unsigned char *buf = malloc(*size);
    assert_int_equal(sinew_skin_save(skin, buf, *size, size), SINEW_OK);
    if (skin_out) *skin_out = skin;
    else sinew_skin_destroy(skin);
    free(joints), free(weights), free(factors);
    return buf;
}

static size_t four(size_t v)
{
    (void)v;
    return 4;
}
static size_t one_to_four(size_t v)
{
    return 1 + v % 4;
}
static size_t one_to_five(size_t v)
{
    return 1 + v % 5;
}

static unsigned char *section(unsigned char *buf, const char tag[4])
{
    unsigned char *at = support_saved_section(buf, tag);
    if (!at) fail_msg("section %.4s not found", tag);
    return at;
}

/* Loads a copy of buf (resealed when asked); expects `code` and a message
 * holding `words`, and *out untouched on failure. */
static void expect_load(const unsigned char *buf, size_t size, bool reseal, sinew_result code, const char *words)
{
    unsigned char *copy = malloc(size);
    memcpy(copy, buf, size);
    if (reseal) assert_true(support_reseal(copy, size));
    sinew_skin *out = (sinew_skin *)(uintptr_t)0x1234;
    sinew_result res = sinew_skin_load(NULL, copy, size, &out);
    if (res != code || !strstr(sinew_last_error(), words))
        fail_msg("expected %s with \"%s\", got %s: %s", sinew_result_string(code), words, sinew_result_string(res),
                 sinew_last_error());
    if (code == SINEW_OK) sinew_skin_destroy(out);
    else assert_ptr_equal(out, (sinew_skin *)(uintptr_t)0x1234);
    free(copy);
}

/* Expects `words` after a reseal and the checksum mismatch without one. */
static void expect_named(const unsigned char *buf, size_t size, sinew_result code, const char *words)
{
    expect_load(buf, size, true, code, words);
    expect_load(buf, size, false, SINEW_ERROR_INVALID_DATA, "checksum mismatch: the data is corrupted");
}

static void put_weight(unsigned char *buf, size_t slot, float w)
{
    memcpy(section(buf, "SKWT") + 4 * slot, &w, 4);
}
static float get_weight(unsigned char *buf, size_t slot)
{
    float w;
    memcpy(&w, section(buf, "SKWT") + 4 * slot, 4);
    return w;
}

/* Float storage, every vertex with four influences: one group, position v
 * holding vertex v, slots at 4v..4v+3 (the AVX2 check where it runs). */
static void four_influence_errors_named(void **state)
{
    (void)state;
    size_t size;
    unsigned char *orig = saved_skin(N, 4, four, SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_BLEND_LINEAR, &size, NULL);
    unsigned char *buf = malloc(size);
    for (size_t k = 0; k < 3; ++k) assert_int_equal(support_le_get(section(orig, "SKGC") + 8 * k, 8), 0);
    expect_load(orig, size, false, SINEW_OK, "");
    const size_t at[] = {0, 5, 8 * 37 + 3, 4095, 4096, 4100, N - 3, N - 1};
    char words[160];
    for (size_t i = 0; i < sizeof at / sizeof at[0]; ++i) {
        const size_t v = at[i];
        memcpy(buf, orig, size);
        support_le_put(section(buf, "SKJT") + 2 * (4 * v + 2), JOINTS, 2);
        snprintf(words, sizeof words, "vertex %zu slot 2 refers to joint %d, but there are only %d joints", v, JOINTS,
                 JOINTS);
        expect_named(buf, size, SINEW_ERROR_INDEX_OUT_OF_RANGE, words);

        memcpy(buf, orig, size);
        const uint64_t j1 = support_le_get(section(buf, "SKJT") + 2 * (4 * v + 1), 2);
        support_le_put(section(buf, "SKJT") + 2 * (4 * v + 3), j1, 2);
        snprintf(words, sizeof words, "vertex %zu lists joint %u twice", v, (unsigned)j1);
        expect_named(buf, size, SINEW_ERROR_INVALID_DATA, words);

        memcpy(buf, orig, size);
        put_weight(buf, 4 * v + 3, NAN);
        snprintf(words, sizeof words, "section SKWT element %zu is not finite", 4 * v + 3);
        expect_named(buf, size, SINEW_ERROR_NON_FINITE, words);

        memcpy(buf, orig, size);
        put_weight(buf, 4 * v, INFINITY);
        snprintf(words, sizeof words, "section SKWT element %zu is not finite", 4 * v);
        expect_named(buf, size, SINEW_ERROR_NON_FINITE, words);

        memcpy(buf, orig, size);
        put_weight(buf, 4 * v + 1, 1.5f);
        snprintf(words, sizeof words, "vertex %zu slot 1 has weight 1.5 outside [0, 1]", v);
        expect_named(buf, size, SINEW_ERROR_INVALID_WEIGHTS, words);

        memcpy(buf, orig, size);
        const float w0 = get_weight(buf, 4 * v);
        put_weight(buf, 4 * v, get_weight(buf, 4 * v + 1));
        put_weight(buf, 4 * v + 1, w0);
        snprintf(words, sizeof words, "vertex %zu slot 1 is not sorted by decreasing weight", v);
        expect_named(buf, size, SINEW_ERROR_INVALID_DATA, words);

        memcpy(buf, orig, size);
        put_weight(buf, 4 * v + 3, get_weight(buf, 4 * v + 3) * 0.5f);
        snprintf(words, sizeof words, "vertex %zu weights sum to", v);
        expect_named(buf, size, SINEW_ERROR_INVALID_WEIGHTS, words);

        if (v > 0) {
            memcpy(buf, orig, size);
            support_le_put(section(buf, "SKVX") + 4 * v, v - 1, 4);
            snprintf(words, sizeof words, "not increasing at position %zu (%zu after %zu)", v, v - 1, v - 1);
            expect_named(buf, size, SINEW_ERROR_INVALID_DATA, words);
        }
    }
    /* A vertex number past the end, in the last vertex. */
    memcpy(buf, orig, size);
    support_le_put(section(buf, "SKVX") + 4 * (N - 1), N, 4);
    snprintf(words, sizeof words, "group 4 position %d is vertex %d, but there are only %d vertices", N - 1, N, N);
    expect_named(buf, size, SINEW_ERROR_INDEX_OUT_OF_RANGE, words);
    /* Two errors: the first vertex in load order is the one named. */
    memcpy(buf, orig, size);
    support_le_put(section(buf, "SKJT") + 2 * (4 * 4100 + 1), JOINTS + 3, 2);
    put_weight(buf, 4 * 9 + 2, 2.0f);
    expect_named(buf, size, SINEW_ERROR_INVALID_WEIGHTS, "vertex 9 slot 2 has weight 2 outside [0, 1]");
    /* A non-finite inverse bind entry outside the affine row. */
    memcpy(buf, orig, size);
    { float inf = INFINITY; memcpy(section(buf, "SKIB") + 4 * (16 * 5 + 12), &inf, 4); }
    expect_named(buf, size, SINEW_ERROR_NON_FINITE, "section SKIB element 92 is not finite");
    free(orig);
    free(buf);
}

/* Compressed storage (u8 joints and weights): the portable fast check. */
static void compressed_errors_named(void **state)
{
    (void)state;
    size_t size;
    unsigned char *orig = saved_skin(N, 4, four, SINEW_SKIN_STORAGE_COMPRESSED, SINEW_SKIN_BLEND_LINEAR, &size, NULL);
    unsigned char *buf = malloc(size);
    expect_load(orig, size, false, SINEW_OK, "");
    const size_t at[] = {0, 8 * 37 + 3, 4096, N - 1};
    char words[160];
    for (size_t i = 0; i < sizeof at / sizeof at[0]; ++i) {
        const size_t v = at[i];
        memcpy(buf, orig, size);
        section(buf, "SKJT")[4 * v + 1] = JOINTS + 1;
        snprintf(words, sizeof words, "vertex %zu slot 1 refers to joint %d, but there are only %d joints", v,
                 JOINTS + 1, JOINTS);
        expect_named(buf, size, SINEW_ERROR_INDEX_OUT_OF_RANGE, words);

        memcpy(buf, orig, size);
        unsigned char *q = section(buf, "SKWT") + 4 * v;
        q[0] = (unsigned char)(q[0] + q[3]);
        q[3] = 0;
        snprintf(words, sizeof words, "vertex %zu slot 3 has a zero quantised weight", v);
        expect_named(buf, size, SINEW_ERROR_INVALID_WEIGHTS, words);

        memcpy(buf, orig, size);
        section(buf, "SKWT")[4 * v + 3] -= 1;
        snprintf(words, sizeof words, "vertex %zu weights sum to", v);
        expect_named(buf, size, SINEW_ERROR_INVALID_WEIGHTS, words);
    }
    free(orig);
    free(buf);
}

/* Dual-quaternion and mixed blends group vertices by their own count: group
 * k holds the vertices v with v mod 4 = k - 1, position p being 4p + k - 1. */
static void group_errors_named(void **state)
{
    (void)state;
    size_t size;
    unsigned char *orig = saved_skin(N, 4, one_to_four, SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_BLEND_MIXED, &size, NULL);
    unsigned char *buf = malloc(size);
    expect_load(orig, size, false, SINEW_OK, "");
    const size_t g1 = support_le_get(section(orig, "SKGC"), 8);
    assert_int_equal(g1, (N + 3) / 4);
    char words[160];
    /* Group 2, position 1500: vertex 6001 renumbered to group 1's 6000. */
    memcpy(buf, orig, size);
    support_le_put(section(buf, "SKVX") + 4 * (g1 + 1500), 6000, 4);
    expect_named(buf, size, SINEW_ERROR_INVALID_DATA, "vertex 6000 is in two influence groups");
    /* Blend factors, in SKVX order: the last vertex of group 4 and one inside group 2. */
    memcpy(buf, orig, size);
    { float nan = NAN; memcpy(section(buf, "SKDQ") + 4 * (N - 1), &nan, 4); }
    snprintf(words, sizeof words, "section SKDQ element %d is not finite", N - 1);
    expect_named(buf, size, SINEW_ERROR_NON_FINITE, words);
    memcpy(buf, orig, size);
    { float big = 1.5f; memcpy(section(buf, "SKDQ") + 4 * (g1 + 37), &big, 4); }
    expect_named(buf, size, SINEW_ERROR_INVALID_WEIGHTS, "vertex 149 has dq_blend factor 1.5 outside [0, 1]");
    free(orig);
    free(buf);
}

/* The checksum summed piece by piece while copying: a valid skin whose group
 * parts start at unaligned offsets (u8 sections, counts 1..5) loads, and a
 * flipped bit anywhere is caught. */
static void checksum_in_pieces(void **state)
{
    (void)state;
    for (int st = 0; st <= SINEW_SKIN_STORAGE_COMPRESSED; ++st) {
        size_t size;
        unsigned char *orig =
            saved_skin(N, 5, one_to_five, (sinew_skin_storage)st, SINEW_SKIN_BLEND_MIXED, &size, NULL);
        expect_load(orig, size, false, SINEW_OK, "");
        unsigned char *buf = malloc(size);
        memcpy(buf, orig, size);
        for (size_t i = 0; i < size; i += 61) {
            buf[i] ^= (unsigned char)(1u << (i % 8));
            sinew_skin *out = NULL;
            sinew_result res = sinew_skin_load(NULL, buf, size, &out);
            /* The format version field refuses a flip as a newer version. */
            if (res != (i >= 8 && i < 12 ? SINEW_ERROR_UNSUPPORTED : SINEW_ERROR_INVALID_DATA) || out)
                fail_msg("storage %d: a flipped bit at byte %zu gave %s: %s", st, i, sinew_result_string(res),
                         sinew_last_error());
            buf[i] = orig[i];
        }
        free(buf);
        free(orig);
    }
}

static void deform(const sinew_skin *skin, size_t n, float *out)
{
    sinew_skin_info info;
    SINEW_INIT(&info);
    sinew_skin_get_info(skin, &info);
    float world[16 * JOINTS];
    for (int j = 0; j < JOINTS; ++j) {
        const double axis[3] = {1, 0.5 * j, -0.25}, t[3] = {0.1 * j, -0.2, 0.3}, scale[3] = {1, 1.1, 0.9};
        skin_test_trs(axis, 0.1 * j, t, scale, world + 16 * j);
    }
    float *palette = aligned_alloc(64, (info.palette_floats * sizeof(float) + 63) / 64 * 64);
    float *p = malloc(n * 3 * sizeof *p);
    for (size_t i = 0; i < n * 3; ++i) p[i] = (float)(i % 13) * 0.25f - 1.5f;
    sinew_skin_input in = {p, 0, p, 0, NULL, 0};
    sinew_skin_output o = {out, 0, out + 3 * n, 0, NULL, 0};
    assert_int_equal(sinew_skin_palette(skin, world, JOINTS, palette, info.palette_floats), SINEW_OK);
    assert_int_equal(sinew_skin_deform(skin, palette, info.palette_floats, &in, &o, 0, n), SINEW_OK);
    free(palette);
    free(p);
}

/* A loaded skin deforms to the original's bits and saves its bytes. */
static void large_round_trip(void **state)
{
    (void)state;
    size_t (*counts[2])(size_t) = {four, one_to_five};
    for (int c = 0; c < 2; ++c)
        for (int st = 0; st <= SINEW_SKIN_STORAGE_COMPRESSED; ++st) {
            size_t size, again;
            sinew_skin *skin = NULL, *loaded = NULL;
            unsigned char *orig = saved_skin(N, c ? 5 : 4, counts[c], (sinew_skin_storage)st, SINEW_SKIN_BLEND_LINEAR,
                                             &size, &skin);
            assert_int_equal(sinew_skin_load(NULL, orig, size, &loaded), SINEW_OK);
            unsigned char *resaved = malloc(size);
            assert_int_equal(sinew_skin_save(loaded, resaved, size, &again), SINEW_OK);
            assert_int_equal(again, size);
            assert_memory_equal(resaved, orig, size);
            float *a = malloc(6 * N * sizeof *a), *b = malloc(6 * N * sizeof *b);
            deform(skin, N, a);
            deform(loaded, N, b);
            assert_memory_equal(a, b, 6 * N * sizeof *a);
            free(a), free(b), free(resaved), free(orig);
            sinew_skin_destroy(skin);
            sinew_skin_destroy(loaded);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(four_influence_errors_named),
        cmocka_unit_test(compressed_errors_named),
        cmocka_unit_test(group_errors_named),
        cmocka_unit_test(checksum_in_pieces),
        cmocka_unit_test(large_round_trip),
    };
    return cmocka_run_group_tests_name("skin io checks", tests, NULL, NULL);
}
