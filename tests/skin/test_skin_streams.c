/* Smooth skinning: a stream's result never depends on which other streams a
 * deform call asks for. Engines skin one mesh twice with different stream
 * sets (a depth pre-pass with positions alone, then the main pass with
 * normals and tangents under an EQUAL depth test) and need the same bits.
 * Nor on the streams' layout (packed or interleaved). Swept over every blend
 * mode, normal mode, storage, kernel this machine runs and stream set, on
 * poses with non-rigid (scaled, sheared, mirrored) joints and vertices of
 * 1..6 influences in mixed order. */
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

enum { VERTICES = 1500, JOINTS = 40, SLOTS = 6 };

typedef struct streams {
    float p[3 * VERTICES], n[3 * VERTICES], t[4 * VERTICES];
} streams;

static bool kernel_runs(sinew_skin_kernel k)
{
    sinew_result r = skin_test_kernel_status(k);
    if (r != SINEW_OK) assert_int_equal(r, SINEW_ERROR_UNSUPPORTED);
    return r == SINEW_OK;
}

/* Joint world matrices: every third joint a rigid motion, the others a
 * random linear part (scale and shear, one in seven mirrored) plus a
 * translation: non-rigid joints are where paths used to part. */
static void random_world(support_rng *rng, float *world)
{
    for (size_t j = 0; j < JOINTS; ++j) {
        float *m = world + 16 * j;
        memset(m, 0, 16 * sizeof *m);
        m[15] = 1.0f;
        if (j % 3 == 0) {
            double a = support_rng_uniform(rng, -1.5, 1.5), c = cos(a), s = sin(a);
            m[0] = (float)c, m[1] = (float)s, m[4] = (float)-s, m[5] = (float)c, m[10] = 1.0f;
        } else {
            for (int c = 0; c < 3; ++c)
                for (int r = 0; r < 3; ++r)
                    m[4 * c + r] = (float)((c == r ? 1.0 : 0.0) + support_rng_uniform(rng, -0.45, 0.45));
            if (j % 7 == 1)
                for (int r = 0; r < 3; ++r) m[r] = -m[r];
        }
        for (int r = 0; r < 3; ++r) m[12 + r] = (float)support_rng_uniform(rng, -3.0, 3.0);
    }
}

static void check_config(const uint32_t *joint, const float *weight, const float *dq_blend, const float *world,
                         const sinew_skin_input *in, sinew_skin_blend blend, sinew_skin_normals normals,
                         sinew_skin_storage storage, sinew_skin_kernel kernel, streams *all, streams *some)
{
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = VERTICES;
    d.joint_count = JOINTS;
    d.influence_count = SLOTS;
    d.joints = joint;
    d.weights = weight;
    d.renormalise = 1;
    d.blend = blend;
    d.dq_blend = dq_blend;
    d.normals = normals;
    d.storage = storage;
    d.kernel = kernel;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    const size_t floats = sinew_skin_palette_size(skin);
    float *pal = malloc(floats * sizeof *pal);
    assert_int_equal(sinew_skin_palette(skin, world, JOINTS, pal, floats), SINEW_OK);
    sinew_skin_output out = {all->p, 0, all->n, 0, all->t, 0};
    assert_int_equal(sinew_skin_deform(skin, pal, floats, in, &out, 0, VERTICES), SINEW_OK);
    for (unsigned mask = 1; mask < 7; ++mask) {
        memset(some, 0, sizeof *some);
        sinew_skin_output o = {(mask & 1) ? some->p : NULL, 0, (mask & 2) ? some->n : NULL, 0,
                               (mask & 4) ? some->t : NULL, 0};
        assert_int_equal(sinew_skin_deform(skin, pal, floats, in, &o, 0, VERTICES), SINEW_OK);
        const float *got[3] = {some->p, some->n, some->t}, *want[3] = {all->p, all->n, all->t};
        const size_t width[3] = {3, 3, 4};
        for (int s = 0; s < 3; ++s) {
            if (!(mask & (1u << s))) continue;
            for (size_t i = 0; i < width[s] * VERTICES; ++i)
                if (memcmp(&got[s][i], &want[s][i], sizeof(float)) != 0)
                    fail_msg("blend %d, normals %d, storage %d, kernel %d: stream %d of vertex %zu differs with "
                             "stream set %u (%.9g) from all streams (%.9g)",
                             (int)blend, (int)normals, (int)storage, (int)kernel, s, i / width[s], mask,
                             (double)got[s][i], (double)want[s][i]);
        }
    }
    /* Nor on the layout: positions read from and written to interleaved
     * vertices (a stride of 4 to 8 floats), alone and with normals. */
    float *layout_in = malloc(8 * VERTICES * sizeof(float)), *layout_out = malloc(8 * VERTICES * sizeof(float));
    for (size_t floats_per_vertex = 4; floats_per_vertex <= 8; floats_per_vertex += 2)
        for (unsigned mask = 1; mask <= 3; mask += 2) {
            const size_t stride = floats_per_vertex * sizeof(float);
            for (size_t v = 0; v < VERTICES; ++v)
                for (size_t f = 0; f < floats_per_vertex; ++f)
                    layout_in[floats_per_vertex * v + f] = f < 3 ? ((const float *)in->positions)[3 * v + f] : -7.0f;
            memset(layout_out, 0, 8 * VERTICES * sizeof(float));
            sinew_skin_input li = *in;
            li.positions = layout_in;
            li.position_stride = stride;
            sinew_skin_output o = {layout_out, stride, (mask & 2) ? some->n : NULL, 0, NULL, 0};
            assert_int_equal(sinew_skin_deform(skin, pal, floats, &li, &o, 0, VERTICES), SINEW_OK);
            for (size_t v = 0; v < VERTICES; ++v) {
                if (memcmp(layout_out + floats_per_vertex * v, all->p + 3 * v, 3 * sizeof(float)) != 0)
                    fail_msg("blend %d, normals %d, storage %d, kernel %d: vertex %zu's position differs at a stride "
                             "of %zu bytes, stream set %u", (int)blend, (int)normals, (int)storage, (int)kernel, v,
                             stride, mask);
                for (size_t f = 3; f < floats_per_vertex; ++f)
                    if (layout_out[floats_per_vertex * v + f] != 0.0f)
                        fail_msg("kernel %d: a strided position store wrote past vertex %zu's position", (int)kernel,
                                 v);
            }
        }
    free(layout_in), free(layout_out);
    free(pal);
    sinew_skin_destroy(skin);
}

static void streams_do_not_depend_on_the_others_requested(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 28);
    uint32_t *joint = calloc(VERTICES * SLOTS, sizeof *joint);
    float *weight = calloc(VERTICES * SLOTS, sizeof *weight), *dq_blend = malloc(VERTICES * sizeof *dq_blend);
    float *world = malloc(16 * JOINTS * sizeof *world);
    static float p[3 * VERTICES], n[3 * VERTICES], t[4 * VERTICES];
    for (size_t v = 0; v < VERTICES; ++v) {
        /* 1..6 influences, the count changing from vertex to vertex. */
        const size_t k = 1 + support_rng_next(&rng) % SLOTS;
        for (size_t s = 0; s < k; ++s) {
            joint[v * SLOTS + s] = (uint32_t)((v / 5 + 7 * s) % JOINTS);
            weight[v * SLOTS + s] = (float)support_rng_uniform(&rng, 0.05, 1.0);
        }
        dq_blend[v] = (float)support_rng_uniform(&rng, 0.0, 1.0);
        for (int c = 0; c < 3; ++c) {
            p[3 * v + c] = (float)support_rng_uniform(&rng, -2.0, 2.0);
            n[3 * v + c] = (float)support_rng_uniform(&rng, -1.0, 1.0);
            t[4 * v + c] = (float)support_rng_uniform(&rng, -1.0, 1.0);
        }
        t[4 * v + 3] = v % 2 ? 1.0f : -1.0f;
    }
    random_world(&rng, world);
    const sinew_skin_input in = {p, 0, n, 0, t, 0};
    static streams all, some;
    const sinew_skin_kernel kernels[] = {SINEW_SKIN_KERNEL_SCALAR, SINEW_SKIN_KERNEL_SSE2, SINEW_SKIN_KERNEL_AVX2,
                                         SINEW_SKIN_KERNEL_AVX512};
    int runs = 0;
    for (int kk = 0; kk < (int)(sizeof kernels / sizeof *kernels); ++kk) {
        if (!kernel_runs(kernels[kk])) {
            print_message("  kernel %d not available here: not covered\n", (int)kernels[kk]);
            continue;
        }
        for (int blend = 0; blend < 3; ++blend)
            for (int normals = 0; normals < 3; ++normals)
                for (int storage = 0; storage < 2; ++storage) {
                    check_config(joint, weight, dq_blend, world, &in, (sinew_skin_blend)blend,
                                 (sinew_skin_normals)normals, (sinew_skin_storage)storage, kernels[kk], &all, &some);
                    runs += 6;
                }
    }
    print_message("  %d partial stream sets compared bit for bit with the full set\n", runs);
    free(joint), free(weight), free(dq_blend), free(world);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(streams_do_not_depend_on_the_others_requested),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
