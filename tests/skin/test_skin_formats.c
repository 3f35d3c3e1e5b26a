/* Skin input formats: u8/u16/u32 joints and float or normalised u8/u16
 * weights, packed or interleaved in one vertex buffer as glTF stores them,
 * bind to exactly the skin the u32/float arrays of the same values give
 * (same stored influences, bit-identical deformation); the normalised sum
 * rule; and the errors of bad views, each naming what is wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sinew.h"
#include "skin_test_util.h"
#include "support.h"

enum { V = 300, J = 40, K = 4 };

/* Raw influences: joints < J, weights as integers summing to `full`. */
typedef struct raw {
    uint32_t joint[V * K];
    uint32_t weight[V * K];
    uint32_t full;
} raw;

static void make_raw(raw *r, uint32_t full, uint64_t seed)
{
    support_rng rng;
    support_rng_seed(&rng, seed);
    r->full = full;
    for (size_t v = 0; v < V; ++v) {
        uint32_t left = full;
        size_t used = 1 + support_rng_next(&rng) % K; /* 1..4 nonzero slots, the rest padding */
        for (size_t s = 0; s < K; ++s) {
            uint32_t w = 0;
            if (s + 1 == used) w = left;
            else if (s + 1 < used) w = (uint32_t)(support_rng_next(&rng) % (left + 1));
            left -= w;
            r->weight[v * K + s] = w;
            /* Padding slots name any joint, even one past the count: it is ignored. */
            r->joint[v * K + s] = w ? (uint32_t)(support_rng_next(&rng) % J) : (uint32_t)(J + 7) % 256;
        }
    }
}

/* Float weights of the same values, as the library reads normalised ones. */
static void float_weights(const raw *r, float *out)
{
    for (size_t i = 0; i < V * K; ++i) out[i] = (float)r->weight[i] / (float)r->full;
}

static sinew_skin *create(const sinew_skin_desc *d)
{
    sinew_skin *skin = NULL;
    sinew_result res = sinew_skin_create(NULL, d, &skin);
    if (res != SINEW_OK) fprintf(stderr, "%s\n", sinew_last_error());
    assert_int_equal(res, SINEW_OK);
    return skin;
}

static sinew_skin_desc base_desc(void)
{
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = V;
    d.joint_count = J;
    d.influence_count = K;
    return d;
}

/* Every stored influence and a deformation under a fixed pose, both compared
 * bit for bit. */
static void assert_same_skin(const sinew_skin *a, const sinew_skin *b)
{
    for (size_t v = 0; v < V; ++v) {
        uint32_t ja[K], jb[K];
        float wa[K], wb[K];
        size_t na = 0, nb = 0;
        assert_int_equal(sinew_skin_vertex_influences(a, v, ja, wa, K, &na), SINEW_OK);
        assert_int_equal(sinew_skin_vertex_influences(b, v, jb, wb, K, &nb), SINEW_OK);
        assert_int_equal(na, nb);
        assert_memory_equal(ja, jb, na * sizeof *ja);
        assert_memory_equal(wa, wb, na * sizeof *wa);
    }
    static float world[J * 16], positions[V * 3], normals[V * 3], pa[V * 3], pb[V * 3], na3[V * 3], nb3[V * 3];
    for (size_t j = 0; j < J; ++j) {
        const double axis[3] = {1, (double)j, 2}, t[3] = {0.1 * (double)j, -0.2, 0.3}, s[3] = {1, 1.1, 0.9};
        skin_test_trs(axis, 0.05 * (double)j, t, s, world + 16 * j);
    }
    for (size_t i = 0; i < V * 3; ++i) {
        positions[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
        normals[i] = (float)((i * 53) % 97) / 48.0f - 1.0f;
    }
    size_t floats = sinew_skin_palette_size(a);
    assert_int_equal(floats, sinew_skin_palette_size(b));
    float *palette = malloc(floats * sizeof(float));
    assert_non_null(palette);
    sinew_skin_input in = {positions, 0, normals, 0, NULL, 0};
    sinew_skin_output oa = {pa, 0, na3, 0, NULL, 0}, ob = {pb, 0, nb3, 0, NULL, 0};
    assert_int_equal(sinew_skin_palette(a, world, J, palette, floats), SINEW_OK);
    assert_int_equal(sinew_skin_deform(a, palette, floats, &in, &oa, 0, V), SINEW_OK);
    assert_int_equal(sinew_skin_palette(b, world, J, palette, floats), SINEW_OK);
    assert_int_equal(sinew_skin_deform(b, palette, floats, &in, &ob, 0, V), SINEW_OK);
    assert_memory_equal(pa, pb, sizeof pa);
    assert_memory_equal(na3, nb3, sizeof na3);
    free(palette);
}

/* Packed u8/u16 joints with unorm8/unorm16 weights, and every mix. */
static void packed_formats_match_u32_float(void **state)
{
    (void)state;
    static const uint32_t fulls[2] = {255, 65535};
    for (int f = 0; f < 2; ++f) {
        static raw r;
        make_raw(&r, fulls[f], 11 + (uint64_t)f);
        static float wf[V * K];
        float_weights(&r, wf);
        sinew_skin_desc d = base_desc();
        d.joints = r.joint;
        d.weights = wf;
        sinew_skin *ref = create(&d);
        static uint8_t j8[V * K], w8[V * K];
        static uint16_t j16[V * K], w16[V * K];
        for (size_t i = 0; i < V * K; ++i) {
            j8[i] = (uint8_t)r.joint[i];
            j16[i] = (uint16_t)r.joint[i];
            w8[i] = (uint8_t)r.weight[i];
            w16[i] = (uint16_t)r.weight[i];
        }
        const void *joints[3] = {r.joint, j16, j8};
        for (int jt = 0; jt < 3; ++jt) {
            sinew_skin_desc e = d;
            e.joints = joints[jt];
            e.joint_type = (sinew_index_type)jt;
            if (f == 0) {
                e.weights = w8;
                e.weight_type = SINEW_SKIN_WEIGHT_UNORM8;
            } else {
                e.weights = w16;
                e.weight_type = SINEW_SKIN_WEIGHT_UNORM16;
            }
            sinew_skin *got = create(&e);
            assert_same_skin(ref, got);
            sinew_skin_destroy(got);
            /* And the float weights with narrow joints. */
            e.weights = wf;
            e.weight_type = SINEW_SKIN_WEIGHT_F32;
            got = create(&e);
            assert_same_skin(ref, got);
            sinew_skin_destroy(got);
        }
        sinew_skin_destroy(ref);
    }
}

/* One interleaved vertex record, as a glTF buffer view with byteStride holds
 * POSITION, JOINTS_0 (u8 or u16), WEIGHTS_0 (unorm8, unorm16 or float). */
typedef struct vertex_record {
    float position[3];
    uint8_t joints8[4];
    uint16_t joints16[4];
    uint16_t weights16[4];
    uint8_t weights8[4];
    float weights32[4];
    float normal[3];
} vertex_record;

static void interleaved_buffers_match_u32_float(void **state)
{
    (void)state;
    static raw r8, r16;
    make_raw(&r8, 255, 21);
    make_raw(&r16, 65535, 22);
    static vertex_record buf[V];
    memset(buf, 0x5A, sizeof buf);
    for (size_t v = 0; v < V; ++v)
        for (size_t s = 0; s < K; ++s) {
            buf[v].joints8[s] = (uint8_t)r8.joint[v * K + s];
            buf[v].weights8[s] = (uint8_t)r8.weight[v * K + s];
            buf[v].joints16[s] = (uint16_t)r16.joint[v * K + s];
            buf[v].weights16[s] = (uint16_t)r16.weight[v * K + s];
            buf[v].weights32[s] = (float)r16.weight[v * K + s] / 65535.0f;
        }
    static float wf8[V * K], wf16[V * K];
    float_weights(&r8, wf8);
    float_weights(&r16, wf16);
    sinew_skin_desc d = base_desc();
    d.joints = r8.joint;
    d.weights = wf8;
    sinew_skin *ref8 = create(&d);
    d.joints = r16.joint;
    d.weights = wf16;
    sinew_skin *ref16 = create(&d);

    sinew_skin_desc e = base_desc();
    e.joints = buf[0].joints8;
    e.joint_type = SINEW_INDEX_U8;
    e.joint_stride = sizeof(vertex_record);
    e.weights = buf[0].weights8;
    e.weight_type = SINEW_SKIN_WEIGHT_UNORM8;
    e.weight_stride = sizeof(vertex_record);
    sinew_skin *got = create(&e);
    assert_same_skin(ref8, got);
    sinew_skin_destroy(got);

    e.joints = buf[0].joints16;
    e.joint_type = SINEW_INDEX_U16;
    e.weights = buf[0].weights16;
    e.weight_type = SINEW_SKIN_WEIGHT_UNORM16;
    got = create(&e);
    assert_same_skin(ref16, got);
    sinew_skin_destroy(got);

    e.weights = buf[0].weights32;
    e.weight_type = SINEW_SKIN_WEIGHT_F32;
    got = create(&e);
    assert_same_skin(ref16, got);
    sinew_skin_destroy(got);
    sinew_skin_destroy(ref8);
    sinew_skin_destroy(ref16);
}

/* glTF asks for raw sums of exactly 255 (65535); exporters round each weight,
 * so a raw sum within n/2 steps (n nonzero weights) is accepted and scaled to
 * one, and one beyond is refused naming the vertex. */
static void normalised_sums_accept_rounding_only(void **state)
{
    (void)state;
    uint8_t joints[2 * 4] = {0, 1, 2, 3, 0, 1, 2, 3};
    uint8_t w8[2 * 4] = {255, 0, 0, 0, 64, 64, 64, 64}; /* vertex 1: four quarters rounded up, 256 */
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = 2;
    d.joint_count = 4;
    d.influence_count = 4;
    d.joints = joints;
    d.joint_type = SINEW_INDEX_U8;
    d.weights = w8;
    d.weight_type = SINEW_SKIN_WEIGHT_UNORM8;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    uint32_t j[4];
    float w[4];
    size_t n = 0;
    assert_int_equal(sinew_skin_vertex_influences(skin, 1, j, w, 4, &n), SINEW_OK);
    assert_int_equal(n, 4);
    for (int s = 0; s < 4; ++s) assert_true(w[s] == 0.25f);
    sinew_skin_destroy(skin);
    skin = NULL;
    /* Two weights off by one step each: 2 steps over 2 nonzero weights is beyond rounding. */
    uint8_t two[2 * 4] = {255, 0, 0, 0, 129, 128, 0, 0};
    d.weights = two;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_ERROR_INVALID_WEIGHTS);
    assert_string_equal(sinew_last_error(), "vertex 1 weights sum to 257/255, more than rounding of its 2 weights can "
                                            "give (at most 2/2 steps off; set renormalise to scale them)");
    assert_null(skin);
    /* renormalise takes it; an explicit tolerance replaces the rule. */
    d.renormalise = 1;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    sinew_skin_destroy(skin);
    skin = NULL;
    d.renormalise = 0;
    d.weight_tolerance = 0.01f;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    sinew_skin_destroy(skin);
    skin = NULL;
    d.weight_tolerance = 0.001f;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_ERROR_INVALID_WEIGHTS);
    assert_non_null(strstr(sinew_last_error(), "vertex 1 weights sum to 1.00784"));
    /* unorm16: 65535 split over three weights rounded up: 65536 is fine. */
    uint16_t j16[4] = {0, 1, 2, 0}, w16[4] = {21846, 21845, 21845, 0};
    sinew_skin_desc e;
    SINEW_INIT(&e);
    e.vertex_count = 1;
    e.joint_count = 3;
    e.influence_count = 4;
    e.joints = j16;
    e.joint_type = SINEW_INDEX_U16;
    e.weights = w16;
    e.weight_type = SINEW_SKIN_WEIGHT_UNORM16;
    assert_int_equal(sinew_skin_create(NULL, &e, &skin), SINEW_OK);
    sinew_skin_destroy(skin);
    skin = NULL;
    w16[0] = 21848; /* 65538: 3 steps over 3 weights */
    assert_int_equal(sinew_skin_create(NULL, &e, &skin), SINEW_ERROR_INVALID_WEIGHTS);
    assert_non_null(strstr(sinew_last_error(), "vertex 0 weights sum to 65538/65535"));
}

static void bad_views_are_named(void **state)
{
    (void)state;
    _Alignas(8) uint16_t j16[2 * 4 + 1] = {0, 1, 2, 0, 0, 1, 2, 3, 0};
    _Alignas(8) float wf[2 * 4 + 1] = {0.5f, 0.5f, 0, 0, 0.25f, 0.25f, 0.25f, 0.25f, 0};
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = 2;
    d.joint_count = 4;
    d.influence_count = 4;
    d.joints = j16;
    d.joint_type = SINEW_INDEX_U16;
    d.weights = wf;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    sinew_skin_destroy(skin);
    skin = NULL;

    sinew_skin_desc e = d;
    e.joints = (const char *)j16 + 1;
    assert_int_equal(sinew_skin_create(NULL, &e, &skin), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "skin joints pointer"));
    assert_non_null(strstr(sinew_last_error(), "is not aligned to 2 bytes"));
    e = d;
    e.weights = (const char *)wf + 2;
    assert_int_equal(sinew_skin_create(NULL, &e, &skin), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "is not aligned to 4 bytes"));
    e = d;
    e.joint_stride = 6; /* less than 4 slots of 2 bytes */
    assert_int_equal(sinew_skin_create(NULL, &e, &skin), SINEW_ERROR_INVALID_ARGUMENT);
    assert_string_equal(sinew_last_error(), "skin joints stride 6 bytes: must be 0 or a multiple of 2 that is at "
                                            "least 8 (influence_count 4)");
    e = d;
    e.weight_stride = 18; /* not a multiple of 4 */
    assert_int_equal(sinew_skin_create(NULL, &e, &skin), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "skin weights stride 18 bytes"));
    e = d;
    e.joint_stride = SIZE_MAX / 2 & ~(size_t)1;
    assert_int_equal(sinew_skin_create(NULL, &e, &skin), SINEW_ERROR_SIZE_OVERFLOW);
    e = d;
    e.joint_type = (sinew_index_type)3;
    assert_int_equal(sinew_skin_create(NULL, &e, &skin), SINEW_ERROR_INVALID_ARGUMENT);
    assert_string_equal(sinew_last_error(), "skin joint_type 3 is not a sinew_index_type");
    e = d;
    e.weight_type = (sinew_skin_weight_type)-1;
    assert_int_equal(sinew_skin_create(NULL, &e, &skin), SINEW_ERROR_INVALID_ARGUMENT);
    assert_string_equal(sinew_last_error(), "skin weight_type -1 is not a sinew_skin_weight_type");
    /* An index past the joints in u16 and in u8 names the vertex and the slot. */
    j16[6] = 4;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_string_equal(sinew_last_error(), "vertex 1 slot 2 refers to joint 4, but there are only 4 joints");
    j16[6] = 2;
    uint8_t j8[8] = {0, 1, 200, 0, 0, 1, 2, 3};
    e = d;
    e.joints = j8;
    e.joint_type = SINEW_INDEX_U8;
    wf[2] = 0.25f, wf[0] = 0.25f;
    assert_int_equal(sinew_skin_create(NULL, &e, &skin), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_string_equal(sinew_last_error(), "vertex 0 slot 2 refers to joint 200, but there are only 4 joints");
    assert_null(skin);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(packed_formats_match_u32_float),
        cmocka_unit_test(interleaved_buffers_match_u32_float),
        cmocka_unit_test(normalised_sums_accept_rounding_only),
        cmocka_unit_test(bad_views_are_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
