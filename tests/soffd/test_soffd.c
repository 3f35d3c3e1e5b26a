/* Surface-oriented FFD through the public API: the paper's properties (identity
 * at bind, rigid motions, constant normal offset, affine reproduction by the
 * extended algorithm), units, pruning against its dropped-mass bound, BVH
 * registration against brute force, contributing-set edits, re-registration,
 * threads, and every validation path. */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brute.h"
#include "fixtures.h"

#define N_SKIN 600

static sinew_soffd *bind_cage(const cage *c, const sinew_soffd_desc *desc)
{
    sinew_polymesh m = cage_polymesh(c, NULL);
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &m, desc, &h), SINEW_OK);
    assert_non_null(h);
    return h;
}

static void register_points(sinew_soffd *h, const float *p, size_t n, const sinew_soffd_register_desc *policy)
{
    sinew_points s = {p, n, 0};
    assert_int_equal(sinew_soffd_register(NULL, h, &s, policy), SINEW_OK);
}

static void identity_at_bind(void **state)
{
    (void)state;
    cage c = make_cube_cage(3, 1);
    float *skin = random_points(1, N_SKIN, -1.6f, 1.6f), *out = malloc(3 * N_SKIN * sizeof(float));
    sinew_soffd *h = bind_cage(&c, NULL);
    sinew_soffd_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_soffd_get_info(h, &info), SINEW_OK);
    assert_int_equal(info.element_count, 2 * c.nf);
    assert_float_equal(info.local, 8, 0);
    assert_float_equal(info.length_scale, 2.0f / 3.0f, 1e-6); /* mean edge of the 3 x 3 grid */
    const sinew_soffd_register_desc policies[] = {
        {sizeof(sinew_soffd_register_desc), 0, 0, 0, 0, 1},
        {sizeof(sinew_soffd_register_desc), 1e-3f, SOFFD_NO_CAP, 0, 0, 0},
        {sizeof(sinew_soffd_register_desc), FLT_MIN, 5, 0, 0, 0},
        {sizeof(sinew_soffd_register_desc), 0, 0, 0, 1, 0}};
    for (size_t k = 0; k < 4; ++k) {
        register_points(h, skin, N_SKIN, &policies[k]);
        assert_int_equal(lib_deform(h, c.pos, c.nv, out), SINEW_OK);
        assert_true(max_diff(out, skin, N_SKIN) <= 1e-6 * 3.2);
        assert_int_equal(lib_deform_extended(h, c.pos, c.nv, out), SINEW_OK);
        assert_true(max_diff(out, skin, N_SKIN) <= 1e-6 * 3.2);
    }
    assert_int_equal(sinew_soffd_get_info(h, &info), SINEW_OK);
    assert_int_equal(info.contribution_count, N_SKIN);
    assert_int_equal(info.max_set_size, 1);
    sinew_soffd_destroy(h);
    sinew_soffd_destroy(NULL);
    free(skin), free(out), cage_free(&c);
}

static void rotation(double ax, double ay, double az, double angle, const float t[3], float m[16])
{
    const double axis[3] = {ax, ay, az}, move[3] = {t[0], t[1], t[2]};
    support_affine_rotation(axis, angle, move, m);
}

/* The defaults (a NULL desc, a SINEW_INIT'ed one, the resolved one) keep
 * each point's nearest significant elements, at most 4, faded: they give every point back
 * bit for bit at bind, follow a rigid motion, and agree bit for bit with
 * each other; the exact flag keeps every element. */
static void defaults_are_bounded_and_exact_at_rest(void **state)
{
    (void)state;
    cage c = make_cube_cage(4, 0);
    float *skin = random_points(21, N_SKIN, -1.6f, 1.6f), *out = malloc(3 * N_SKIN * sizeof(float));
    float *ref = malloc(3 * N_SKIN * sizeof(float)), *moved = malloc(3 * c.nv * sizeof(float));
    float *bent = malloc(3 * N_SKIN * sizeof(float));
    sinew_soffd *h = bind_cage(&c, NULL), *r = bind_cage(&c, NULL);
    sinew_soffd_register_desc init, resolved;
    SINEW_INIT(&init);
    SINEW_INIT(&resolved);
    assert_int_equal(sinew_soffd_register_desc_defaults(NULL, &resolved), SINEW_OK);
    const sinew_soffd_register_desc *ways[3] = {NULL, &init, &resolved};
    float m[16];
    rotation(0.3, -1, 0.4, 1.1, (const float[3]){0.5f, -2, 7}, m);
    apply_affine(m, c.pos, moved, c.nv);
    for (int w = 0; w < 3; ++w) {
        register_points(h, skin, N_SKIN, ways[w]);
        sinew_soffd_info info;
        SINEW_INIT(&info);
        assert_int_equal(sinew_soffd_get_info(h, &info), SINEW_OK);
        assert_true(info.contribution_count < (size_t)N_SKIN * info.element_count && info.empty_points == 0);
        for (size_t p = 0; p < N_SKIN; ++p) {
            uint32_t e[512];
            float wt[512];
            size_t n;
            assert_int_equal(sinew_soffd_contributors(h, p, e, wt, 512, &n), SINEW_OK);
            /* At most the default cap, faded weights positive and summing to one. */
            assert_true(n >= 1 && n <= 4);
            double sum = 0;
            for (size_t j = 0; j < n; ++j) assert_true(wt[j] > 0), sum += wt[j];
            assert_float_equal(sum, 1, 1e-5);
        }
        for (int ext = 0; ext < 2; ++ext) {
            assert_int_equal(ext ? lib_deform_extended(h, c.pos, c.nv, out) : lib_deform(h, c.pos, c.nv, out), SINEW_OK);
            assert_memory_equal(out, skin, 3 * N_SKIN * sizeof(float));
            assert_int_equal(ext ? lib_deform_extended(h, moved, c.nv, out) : lib_deform(h, moved, c.nv, out), SINEW_OK);
            apply_affine(m, skin, ref, N_SKIN);
            assert_true(max_diff(out, ref, N_SKIN) <= 1e-5 * 8);
        }
        bend_twist(c.pos, moved, c.nv, 0.7f);
        assert_int_equal(lib_deform(h, moved, c.nv, out), SINEW_OK);
        if (w == 0) {
            memcpy(bent, out, 3 * N_SKIN * sizeof(float));
        } else {
            assert_memory_equal(out, bent, 3 * N_SKIN * sizeof(float));
        }
        apply_affine(m, c.pos, moved, c.nv);
    }
    register_points(r, skin, N_SKIN, SOFFD_EXACT);
    sinew_soffd_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_soffd_get_info(r, &info), SINEW_OK);
    assert_int_equal(info.contribution_count, (size_t)N_SKIN * info.element_count);
    sinew_soffd_destroy(h);
    sinew_soffd_destroy(r);
    free(skin), free(out), free(ref), free(moved), free(bent), cage_free(&c);
}

static void rigid_motion_moves_the_skin_rigidly(void **state)
{
    (void)state;
    cage c = make_cube_cage(2, 0);
    float *skin = random_points(2, N_SKIN, -1.5f, 1.5f), *moved = malloc(3 * c.nv * sizeof(float));
    float *out = malloc(3 * N_SKIN * sizeof(float)), *want = malloc(3 * N_SKIN * sizeof(float));
    sinew_soffd *h = bind_cage(&c, NULL);
    register_points(h, skin, N_SKIN, &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), 1e-4f, SOFFD_NO_CAP, 0, 0, 0});
    float m[16];
    rotation(1, 2, -0.5, 2.1, (float[3]){3, -7, 0.5f}, m);
    apply_affine(m, c.pos, moved, c.nv);
    apply_affine(m, skin, want, N_SKIN);
    assert_int_equal(lib_deform(h, moved, c.nv, out), SINEW_OK);
    assert_true(max_diff(out, want, N_SKIN) < 1e-5 * 8);
    assert_int_equal(lib_deform_extended(h, moved, c.nv, out), SINEW_OK);
    assert_true(max_diff(out, want, N_SKIN) < 1e-5 * 8);
    sinew_soffd_destroy(h);
    free(skin), free(moved), free(out), free(want), cage_free(&c);
}

/* Paper section 4.1: with a flat driver that stays flat, every point keeps its
 * height above the plane, however the plane stretches within itself. */
static void normal_offset_stays_constant(void **state)
{
    (void)state;
    enum { G = 6 };
    float pos[(G + 1) * (G + 1) * 3], now[(G + 1) * (G + 1) * 3];
    uint32_t tri[G * G * 6];
    size_t nv = 0, nt = 0;
    for (int j = 0; j <= G; ++j)
        for (int i = 0; i <= G; ++i, ++nv) {
            pos[3 * nv] = (float)i / G, pos[3 * nv + 1] = (float)j / G, pos[3 * nv + 2] = 0;
            now[3 * nv] = pos[3 * nv] * 2 + 0.2f * sinf(3 * pos[3 * nv + 1]);
            now[3 * nv + 1] = 1.5f * pos[3 * nv + 1] + 0.1f * pos[3 * nv] * pos[3 * nv];
            now[3 * nv + 2] = 0;
        }
    for (int j = 0; j < G; ++j)
        for (int i = 0; i < G; ++i) {
            uint32_t a = (uint32_t)(j * (G + 1) + i), b = a + 1, c = a + G + 1, d = c + 1;
            uint32_t t[6] = {a, b, d, a, d, c};
            memcpy(&tri[3 * nt], t, sizeof t);
            nt += 2;
        }
    sinew_polymesh m = {{pos, nv, 0}, tri, NULL, nt, SINEW_INDEX_U32};
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_OK);
    float *skin = random_points(3, N_SKIN, 0.05f, 0.95f), *out = malloc(3 * N_SKIN * sizeof(float));
    for (size_t i = 0; i < N_SKIN; ++i) skin[3 * i + 2] = (skin[3 * i + 2] - 0.5f) * 0.6f;
    register_points(h, skin, N_SKIN, SOFFD_EXACT);
    assert_int_equal(lib_deform(h, now, nv, out), SINEW_OK);
    double moved = 0;
    for (size_t i = 0; i < N_SKIN; ++i) {
        assert_float_equal(out[3 * i + 2], skin[3 * i + 2], 1e-6);
        moved = fmax(moved, fabs(out[3 * i] - skin[3 * i]));
    }
    assert_true(moved > 0.3); /* the points did move within the plane */
    sinew_soffd_destroy(h);
    free(skin), free(out);
}

static void scaling_the_scene_scales_the_deformation(void **state)
{
    (void)state;
    cage c = make_cube_cage(3, 1), big = make_cube_cage(3, 1);
    float *skin = random_points(4, N_SKIN, -1.5f, 1.5f), *skin_big = malloc(3 * N_SKIN * sizeof(float));
    float *now = malloc(3 * c.nv * sizeof(float)), *now_big = malloc(3 * c.nv * sizeof(float));
    float *out = malloc(3 * N_SKIN * sizeof(float)), *out_big = malloc(3 * N_SKIN * sizeof(float));
    for (size_t i = 0; i < 3 * c.nv; ++i) big.pos[i] *= 1000;
    for (size_t i = 0; i < 3 * N_SKIN; ++i) skin_big[i] = skin[i] * 1000;
    bend_twist(c.pos, now, c.nv, 1.0f);
    for (size_t i = 0; i < 3 * c.nv; ++i) now_big[i] = now[i] * 1000;
    sinew_soffd *h = bind_cage(&c, NULL), *hb = bind_cage(&big, NULL);
    sinew_soffd_register_desc policy = {sizeof(sinew_soffd_register_desc), 1e-3f, SOFFD_NO_CAP, 2.0f, 0, 0};
    register_points(h, skin, N_SKIN, &policy);
    register_points(hb, skin_big, N_SKIN, &policy);
    sinew_soffd_info a, b;
    SINEW_INIT(&a);
    SINEW_INIT(&b);
    sinew_soffd_get_info(h, &a);
    sinew_soffd_get_info(hb, &b);
    assert_int_equal(a.contribution_count, b.contribution_count);
    assert_float_equal(b.length_scale, 1000 * a.length_scale, 1e-2);
    assert_int_equal(lib_deform(h, now, c.nv, out), SINEW_OK);
    assert_int_equal(lib_deform(hb, now_big, c.nv, out_big), SINEW_OK);
    for (size_t i = 0; i < 3 * N_SKIN; ++i) out_big[i] /= 1000;
    assert_true(max_diff(out, out_big, N_SKIN) < 1e-5);
    assert_true(max_diff(out, skin, N_SKIN) > 0.1);
    sinew_soffd_destroy(h), sinew_soffd_destroy(hb);
    free(skin), free(skin_big), free(now), free(now_big), free(out), free(out_big);
    cage_free(&c), cage_free(&big);
}

static void random_affine(support_rng *r, float m[16])
{
    memset(m, 0, 16 * sizeof(float));
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[4 * j + i] = (float)((i == j ? 1.0 : 0.0) + support_rng_uniform(r, -0.6, 0.6));
    for (int i = 0; i < 3; ++i) m[12 + i] = (float)support_rng_uniform(r, -3, 3);
    m[15] = 1;
}

/* Paper section 4.2: the extended algorithm reproduces every affine map, with
 * frames estimated from one-rings that span 3D, and with caller frames always;
 * the basic algorithm keeps normal offsets and so cannot. */
static void extended_algorithm_reproduces_affine_maps(void **state)
{
    (void)state;
    cage coarse = make_cube_cage(1, 0), fine = make_cube_cage(3, 1);
    float *skin = random_points(5, N_SKIN, -1.5f, 1.5f), *out = malloc(3 * N_SKIN * sizeof(float));
    float *want = malloc(3 * N_SKIN * sizeof(float));
    support_rng r;
    support_rng_seed(&r, 6);
    for (int trial = 0; trial < 10; ++trial) {
        float m[16];
        random_affine(&r, m);
        if (trial == 0) memcpy(m, (float[16]){2, 0, 0, 0, 0, 0.5f, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, sizeof m);
        if (trial == 1) memcpy(m, (float[16]){1, 0, 0, 0, 0.7f, 1, 0, 0, 0, 0.4f, 1, 0, 1, 2, 3, 1}, sizeof m);
        apply_affine(m, skin, want, N_SKIN);
        double size = 0;
        for (size_t i = 0; i < 3 * N_SKIN; ++i) size = fmax(size, fabs(want[i]));
        /* Estimated frames on the 8-vertex cube, whose one-rings all span 3D. */
        sinew_soffd *h = bind_cage(&coarse, NULL);
        register_points(h, skin, N_SKIN, &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), 1e-3f, SOFFD_NO_CAP, 0, 0, 0});
        float *now = malloc(3 * coarse.nv * sizeof(float));
        apply_affine(m, coarse.pos, now, coarse.nv);
        assert_int_equal(lib_deform_extended(h, now, coarse.nv, out), SINEW_OK);
        assert_true(max_diff(out, want, N_SKIN) <= 1e-5 * size);
        if (trial < 2) {
            assert_int_equal(lib_deform(h, now, coarse.nv, out), SINEW_OK);
            assert_true(max_diff(out, want, N_SKIN) > 1e-2); /* the basic algorithm cannot */
        }
        sinew_soffd_destroy(h);
        free(now);
        /* Caller frames (the map itself at every vertex) on a cage with flat rings. */
        h = bind_cage(&fine, NULL);
        register_points(h, skin, N_SKIN, SOFFD_EXACT);
        float *frames = malloc(16 * fine.nv * sizeof(float));
        for (size_t v = 0; v < fine.nv; ++v) memcpy(&frames[16 * v], m, sizeof m);
        assert_int_equal(sinew_soffd_deform_extended(h, frames, sinew_soffd_vertex_frames_size(h), NULL, out, 0, NULL, 0, 0, N_SKIN), SINEW_OK);
        assert_true(max_diff(out, want, N_SKIN) <= 1e-5 * size);
        /* Estimated frames on flat rings still give the rigid and uniform-scale part exactly. */
        if (trial == 2) {
            float s[16];
            rotation(0.3, -1, 2, 0.8, (float[3]){1, 1, -2}, s);
            for (int k = 0; k < 12; ++k) s[k] *= 1.7f;
            float *moved = malloc(3 * fine.nv * sizeof(float));
            apply_affine(s, fine.pos, moved, fine.nv);
            apply_affine(s, skin, want, N_SKIN);
            assert_int_equal(lib_deform_extended(h, moved, fine.nv, out), SINEW_OK);
            assert_true(max_diff(out, want, N_SKIN) <= 1e-5 * 10);
            free(moved);
        }
        free(frames);
        sinew_soffd_destroy(h);
    }
    free(skin), free(out), free(want), cage_free(&coarse), cage_free(&fine);
}

/* Brute force of one point over every element: weights w_k and per-element
 * deformed points P_k^def = Q_k^D P_k^R, from the paper's formulas. */
static void brute_elements(const cage *c, const float *now, double L, double local, const float *p_in, double *w,
                           double (*pk)[3])
{
    double p[3];
    bf_load(p_in, p);
    for (size_t t = 0; t < c->nt; ++t) {
        double a[3], b[3], cc[3], da[3], db[3], dc[3], mr[4][3], md[4][3], x[3];
        bf_load(&c->pos[3 * c->tris[3 * t]], a), bf_load(&c->pos[3 * c->tris[3 * t + 1]], b);
        bf_load(&c->pos[3 * c->tris[3 * t + 2]], cc);
        w[t] = bf_weight(bf_triangle_dist2(p, a, b, cc), L, local);
        if (!pk) continue;
        bf_load(&now[3 * c->tris[3 * t]], da), bf_load(&now[3 * c->tris[3 * t + 1]], db);
        bf_load(&now[3 * c->tris[3 * t + 2]], dc);
        bf_frame(a, b, cc, mr), bf_frame(da, db, dc, md), bf_local(mr, p, x);
        for (int i = 0; i < 3; ++i) pk[t][i] = md[3][i] + x[0] * md[0][i] + x[1] * md[1][i] + x[2] * md[2][i];
    }
}

/* Pruned results stay within dropped mass x spread of the exact formula, the
 * reported mass bounds the true one, and the error shrinks with the threshold. */
static void pruning_error_follows_the_dropped_mass(void **state)
{
    (void)state;
    cage c = make_cube_cage(3, 0);
    enum { N = 300 };
    float *skin = random_points(7, N, -1.4f, 1.4f), *now = malloc(3 * c.nv * sizeof(float));
    float *out = malloc(3 * N * sizeof(float));
    bend_twist(c.pos, now, c.nv, 1.2f);
    sinew_soffd *h = bind_cage(&c, &(sinew_soffd_desc){sizeof(sinew_soffd_desc), 8.0f, 0, 0}); /* sharp falloff: pruning matters */
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(h, &info);
    double *w = malloc(c.nt * sizeof(double)), (*pk)[3] = malloc(c.nt * sizeof *pk);
    const float eps[] = {2e-1f, 1e-2f, 1e-3f, 1e-4f};
    double err[4];
    for (int e = 0; e < 4; ++e) {
        register_points(h, skin, N, &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), eps[e], SOFFD_NO_CAP, 0, 0, 0});
        assert_int_equal(lib_deform(h, now, c.nv, out), SINEW_OK);
        sinew_soffd_info pruned;
        SINEW_INIT(&pruned);
        assert_int_equal(sinew_soffd_get_info(h, &pruned), SINEW_OK);
        err[e] = 0;
        for (size_t i = 0; i < N; ++i) {
            brute_elements(&c, now, info.length_scale, info.local, &skin[3 * i], w, pk);
            double total = 0, wmax = 0, dropped = 0, exact[3] = {0, 0, 0}, spread = 0;
            for (size_t t = 0; t < c.nt; ++t) total += w[t], wmax = fmax(wmax, w[t]);
            for (size_t t = 0; t < c.nt; ++t) {
                if (w[t] < eps[e] * wmax) dropped += w[t];
                for (int k = 0; k < 3; ++k) exact[k] += w[t] / total * pk[t][k];
            }
            dropped /= total;
            for (size_t t = 0; t < c.nt; ++t) {
                double d[3] = {pk[t][0] - exact[0], pk[t][1] - exact[1], pk[t][2] - exact[2]};
                spread = fmax(spread, 2 * sqrt(bf_dot(d, d)));
            }
            float reported;
            assert_int_equal(sinew_soffd_dropped_mass(h, i, &reported), SINEW_OK);
            assert_true(reported >= dropped * (1 - 1e-4) - 1e-7);
            /* The info's cheap figure bounds every point's (computed on query). */
            assert_true(reported <= pruned.max_dropped_mass);
            double d[3] = {out[3 * i] - exact[0], out[3 * i + 1] - exact[1], out[3 * i + 2] - exact[2]};
            double diff = sqrt(bf_dot(d, d));
            assert_true(diff <= reported * spread + 1e-5);
            err[e] = fmax(err[e], diff);
        }
    }
    print_message("max error for thresholds 2e-1, 1e-2, 1e-3, 1e-4: %g %g %g %g\n", err[0], err[1], err[2], err[3]);
    assert_true(err[0] > 1e-3);
    assert_true(err[1] < err[0] && err[2] < err[1] && err[3] <= err[2]);
    sinew_soffd_destroy(h);
    free(w), free(pk), free(skin), free(now), free(out), cage_free(&c);
}

static void registration_equals_brute_force(void **state)
{
    (void)state;
    cage c = make_cube_cage(3, 0);
    enum { N = 300 };
    float *skin = random_points(8, N, -1.5f, 1.5f), *now = malloc(3 * c.nv * sizeof(float));
    float *out = malloc(3 * N * sizeof(float));
    bend_twist(c.pos, now, c.nv, 0.8f);
    sinew_soffd *h = bind_cage(&c, &(sinew_soffd_desc){sizeof(sinew_soffd_desc), 3.0f, 0.5f, 0});
    double *w = malloc(c.nt * sizeof(double));
    uint32_t *elements = malloc(c.nt * sizeof(uint32_t));
    float *weights = malloc(c.nt * sizeof(float));
    const float eps[] = {FLT_MIN, 1e-3f, 5e-2f}; /* FLT_MIN: in effect no threshold (0 would be the default) */
    for (int e = 0; e < 3; ++e) {
        register_points(h, skin, N, &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), eps[e], SOFFD_NO_CAP, 0, 0, 0});
        for (size_t i = 0; i < N; ++i) {
            brute_elements(&c, now, 0.5, 3.0, &skin[3 * i], w, NULL);
            double wmax = 0, kept = 0;
            for (size_t t = 0; t < c.nt; ++t) wmax = fmax(wmax, w[t]);
            bool near_cut = false;
            size_t count = 0;
            /* Kept weights are faded: the cut subtracted. */
            for (size_t t = 0; t < c.nt; ++t) {
                if (fabs(w[t] - eps[e] * wmax) < 1e-4 * wmax) near_cut = true;
                if (w[t] >= eps[e] * wmax) kept += w[t] - eps[e] * wmax, ++count;
            }
            size_t n;
            assert_int_equal(sinew_soffd_contributor_count(h, i, &n), SINEW_OK);
            if (near_cut) continue;
            assert_int_equal(n, count);
            assert_int_equal(sinew_soffd_contributors(h, i, elements, weights, c.nt, &(size_t){0}), SINEW_OK);
            size_t j = 0;
            for (size_t t = 0; t < c.nt; ++t) {
                if (w[t] < eps[e] * wmax) continue;
                assert_int_equal(elements[j], t);
                assert_float_equal(weights[j], (w[t] - eps[e] * wmax) / kept, 1e-5);
                ++j;
            }
        }
        /* The deformation equals the brute-force formula with the same threshold. */
        assert_int_equal(lib_deform(h, now, c.nv, out), SINEW_OK);
        for (size_t i = 0; i < N; ++i) {
            double want[3];
            bf_deform_point(c.pos, now, c.tris, c.nt, 0.5, 3.0, eps[e], 0, 0, &skin[3 * i], want);
            for (int k = 0; k < 3; ++k) assert_float_equal(out[3 * i + k], want[k], 2e-5);
        }
    }
    sinew_soffd_destroy(h);
    free(w), free(elements), free(weights), free(skin), free(now), free(out), cage_free(&c);
}

static void pruning_policies_keep_what_they_promise(void **state)
{
    (void)state;
    cage c = make_cube_cage(3, 0);
    enum { N = 300 };
    float *skin = random_points(9, N, -2.0f, 2.0f), *out = malloc(3 * N * sizeof(float));
    float *now = malloc(3 * c.nv * sizeof(float));
    bend_twist(c.pos, now, c.nv, 1.0f);
    sinew_soffd *h = bind_cage(&c, NULL);
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(h, &info);
    double L = info.length_scale;
    double *d2 = malloc(c.nt * sizeof(double));
    uint32_t el[64];
    float wt[64];
    /* At most 5 contributors: the five closest. */
    register_points(h, skin, N, &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), FLT_MIN, 5, 0, 0, 0});
    sinew_soffd_get_info(h, &info);
    assert_int_equal(info.max_set_size, 5);
    for (size_t i = 0; i < N; ++i) {
        double p[3];
        bf_load(&skin[3 * i], p);
        for (size_t t = 0; t < c.nt; ++t) {
            double a[3], b[3], cc[3];
            bf_load(&c.pos[3 * c.tris[3 * t]], a), bf_load(&c.pos[3 * c.tris[3 * t + 1]], b);
            bf_load(&c.pos[3 * c.tris[3 * t + 2]], cc);
            d2[t] = bf_triangle_dist2(p, a, b, cc);
        }
        size_t n;
        assert_int_equal(sinew_soffd_contributors(h, i, el, wt, 64, &n), SINEW_OK);
        assert_true(n >= 1 && n <= 5);
        double worst_kept = 0;
        for (size_t j = 0; j < n; ++j) worst_kept = fmax(worst_kept, d2[el[j]]);
        size_t closer = 0;
        for (size_t t = 0; t < c.nt; ++t) closer += d2[t] < worst_kept * (1 - 1e-5);
        assert_true(closer <= 4);
    }
    /* Exclusive: the one closest element, weight 1. */
    register_points(h, skin, N, &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), 0, 0, 0, 1, 0});
    for (size_t i = 0; i < N; ++i) {
        size_t n;
        assert_int_equal(sinew_soffd_contributor_count(h, i, &n), SINEW_OK);
        assert_int_equal(n, 1);
        assert_int_equal(sinew_soffd_contributors(h, i, el, wt, 1, &(size_t){0}), SINEW_OK);
        assert_float_equal(wt[0], 1, 1e-7);
    }
    /* Max distance (in L): far points keep no element and stay at rest. */
    register_points(h, skin, N, &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), 0, 0, 0.75f, 0, 1});
    sinew_soffd_get_info(h, &info);
    assert_true(info.empty_points > 10 && info.empty_points < N);
    assert_int_equal(lib_deform(h, now, c.nv, out), SINEW_OK);
    for (size_t i = 0; i < N; ++i) {
        double p[3];
        bf_load(&skin[3 * i], p);
        size_t n, within = 0;
        assert_int_equal(sinew_soffd_contributor_count(h, i, &n), SINEW_OK);
        for (size_t t = 0; t < c.nt; ++t) {
            double a[3], b[3], cc[3];
            bf_load(&c.pos[3 * c.tris[3 * t]], a), bf_load(&c.pos[3 * c.tris[3 * t + 1]], b);
            bf_load(&c.pos[3 * c.tris[3 * t + 2]], cc);
            double d = sqrt(bf_triangle_dist2(p, a, b, cc)) / L;
            if (fabs(d - 0.75) < 1e-5) goto next;
            within += d < 0.75;
        }
        assert_int_equal(n, within);
        if (n == 0) assert_true(memcmp(&out[3 * i], &skin[3 * i], 12) == 0);
    next:;
    }
    /* Combined: threshold and cap. */
    register_points(h, skin, N, &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), 1e-2f, 3, 0, 0, 0});
    sinew_soffd_get_info(h, &info);
    assert_true(info.max_set_size <= 3 && info.empty_points == 0);
    sinew_soffd_destroy(h);
    free(d2), free(skin), free(out), free(now), cage_free(&c);
}

static void contributing_sets_can_be_edited(void **state)
{
    (void)state;
    cage c = make_cube_cage(3, 0);
    enum { N = 200 };
    float *skin = random_points(10, N, -1.3f, 1.3f), *now = malloc(3 * c.nv * sizeof(float));
    float *out = malloc(3 * N * sizeof(float)), *before = malloc(3 * N * sizeof(float));
    bend_twist(c.pos, now, c.nv, 1.0f);
    sinew_soffd *h = bind_cage(&c, NULL);
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(h, &info);
    register_points(h, skin, N, &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), 1e-3f, SOFFD_NO_CAP, 0, 0, 0});
    assert_int_equal(lib_deform(h, now, c.nv, before), SINEW_OK);
    double *w = malloc(c.nt * sizeof(double)), (*pk)[3] = malloc(c.nt * sizeof *pk);
    uint32_t el[128];
    float wt[128];
    size_t n;
    /* Reading needs room for the whole set. */
    assert_int_equal(sinew_soffd_contributor_count(h, 0, &n), SINEW_OK);
    assert_true(n > 2);
    size_t listed = 0;
    el[0] = 12345;
    assert_int_equal(sinew_soffd_contributors(h, 0, el, wt, n - 1, &listed), SINEW_ERROR_BUFFER_TOO_SMALL);
    assert_int_equal(listed, n);          /* the needed count, and nothing else */
    assert_int_equal(el[0], 12345);
    listed = 0;
    assert_int_equal(sinew_soffd_contributors(h, 0, NULL, NULL, 0, &listed), SINEW_OK);   /* query */
    assert_int_equal(listed, n);
    /* Replace point 5's set with three elements: weights are the paper's over the new set. */
    const uint32_t chosen[3] = {40, 3, 17};
    assert_int_equal(sinew_soffd_set_contributors(h, 5, chosen, 3), SINEW_OK);
    assert_int_equal(sinew_soffd_contributors(h, 5, el, wt, 3, &(size_t){0}), SINEW_OK);
    brute_elements(&c, now, info.length_scale, info.local, &skin[15], w, pk);
    const uint32_t sorted[3] = {3, 17, 40};
    double total = w[3] + w[17] + w[40], want[3] = {0, 0, 0};
    for (int j = 0; j < 3; ++j) {
        assert_int_equal(el[j], sorted[j]);
        assert_float_equal(wt[j], w[sorted[j]] / total, 1e-6);
        for (int k = 0; k < 3; ++k) want[k] += w[sorted[j]] / total * pk[sorted[j]][k];
    }
    assert_int_equal(lib_deform(h, now, c.nv, out), SINEW_OK);
    for (int k = 0; k < 3; ++k) assert_float_equal(out[15 + k], want[k], 1e-5);
    for (size_t i = 0; i < N; ++i)
        if (i != 5) assert_true(memcmp(&out[3 * i], &before[3 * i], 12) == 0);
    /* Bad edits change nothing. */
    assert_int_equal(sinew_soffd_set_contributors(h, 5, (const uint32_t[]){1, 2, 1}, 3), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "element 1 is listed twice"));
    assert_int_equal(sinew_soffd_set_contributors(h, 5, (const uint32_t[]){1, 9999}, 2),
                     SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_int_equal(sinew_soffd_set_contributors(h, N, chosen, 3), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_int_equal(sinew_soffd_set_contributors(h, 5, NULL, 3), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_soffd_contributor_count(h, 5, &n), SINEW_OK);
    assert_int_equal(n, 3);
    /* An empty set pins the point at rest. */
    assert_int_equal(sinew_soffd_set_contributors(h, 6, NULL, 0), SINEW_OK);
    assert_int_equal(lib_deform(h, now, c.nv, out), SINEW_OK);
    assert_true(memcmp(&out[18], &skin[18], 12) == 0);

    /* Exclude the elements on the +x side from the points on the -x side. */
    uint8_t *right = calloc(c.nt, 1);
    for (size_t t = 0; t < c.nt; ++t) {
        float cx = 0;
        for (int v = 0; v < 3; ++v) cx += c.pos[3 * c.tris[3 * t + v]];
        right[t] = cx > 0.5f;
    }
    register_points(h, skin, N, &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), 1e-3f, SOFFD_NO_CAP, 0, 0, 0});
    assert_int_equal(lib_deform(h, now, c.nv, before), SINEW_OK);
    /* A point whose whole set is excluded makes the call fail before any change. */
    const uint32_t only_right[1] = {0};
    size_t victim = 7;
    uint32_t r0 = 0;
    while (!right[r0]) ++r0;
    assert_int_equal(sinew_soffd_set_contributors(h, victim, (uint32_t[]){r0}, 1), SINEW_OK);
    (void)only_right;
    sinew_soffd_get_info(h, &info);
    size_t entries = info.contribution_count;
    assert_int_equal(sinew_soffd_exclude_elements(h, right, c.nt, 0, N), SINEW_ERROR_INVALID_WEIGHTS);
    assert_non_null(strstr(sinew_last_error(), "point 7"));
    sinew_soffd_get_info(h, &info);
    assert_int_equal(info.contribution_count, entries);
    assert_int_equal(sinew_soffd_set_contributors(h, victim, NULL, 0), SINEW_OK);
    assert_int_equal(sinew_soffd_exclude_elements(h, right, c.nt, 0, N), SINEW_OK);
    assert_int_equal(lib_deform(h, now, c.nv, out), SINEW_OK);
    for (size_t i = 0; i < N; ++i) {
        assert_int_equal(sinew_soffd_contributor_count(h, i, &n), SINEW_OK);
        assert_int_equal(sinew_soffd_contributors(h, i, el, wt, 128, &(size_t){0}), SINEW_OK);
        if (i == victim) continue;
        brute_elements(&c, now, info.length_scale, info.local, &skin[3 * i], w, pk);
        double wmax = 0, tot = 0, want_i[3] = {0, 0, 0};
        for (size_t t = 0; t < c.nt; ++t) wmax = fmax(wmax, w[t]);
        size_t expected = 0;
        for (size_t t = 0; t < c.nt; ++t)
            if (w[t] >= 1e-3 * wmax && !right[t]) tot += w[t], ++expected;
        assert_true(n > 0);
        for (size_t j = 0; j < n; ++j) assert_false(right[el[j]]);
        if (expected == 0) continue;
        for (size_t j = 0; j < n; ++j) {
            assert_float_equal(wt[j], w[el[j]] / tot, 1e-5);
            for (int k = 0; k < 3; ++k) want_i[k] += w[el[j]] / tot * pk[el[j]][k];
        }
        for (int k = 0; k < 3; ++k) assert_float_equal(out[3 * i + k], want_i[k], 2e-5);
    }
    assert_int_equal(sinew_soffd_exclude_elements(h, right, c.nt, N, 1), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_int_equal(sinew_soffd_exclude_elements(h, NULL, c.nt, 0, N), SINEW_ERROR_INVALID_ARGUMENT);
    /* The flag array is sized by the call: one flag short is refused by name, before anything is read. */
    assert_int_equal(sinew_soffd_exclude_elements(h, right, c.nt - 1, 0, N), SINEW_ERROR_MISMATCH);
    assert_non_null(strstr(sinew_last_error(), "elements"));
    sinew_soffd_destroy(h);
    free(right), free(w), free(pk), free(skin), free(now), free(out), free(before), cage_free(&c);
}

static void re_registration_equals_a_fresh_bind(void **state)
{
    (void)state;
    cage c = make_cube_cage(3, 1);
    float *skin = random_points(11, N_SKIN, -1.5f, 1.5f), *moved = malloc(3 * c.nv * sizeof(float));
    float *now = malloc(3 * c.nv * sizeof(float)), *a = malloc(3 * N_SKIN * sizeof(float));
    float *b = malloc(3 * N_SKIN * sizeof(float));
    bend_twist(c.pos, moved, c.nv, 0.3f);
    bend_twist(c.pos, now, c.nv, 1.1f);
    sinew_soffd_register_desc policy = {sizeof(sinew_soffd_register_desc), 1e-3f, 12, 0, 0, 0};
    sinew_soffd *h = bind_cage(&c, NULL);
    register_points(h, skin, N_SKIN, &policy);
    sinew_points ref = {moved, c.nv, 0};
    assert_int_equal(sinew_soffd_set_reference(NULL, h, &ref), SINEW_OK);
    sinew_polymesh m = cage_polymesh(&c, moved);
    sinew_soffd *fresh = NULL;
    /* The fresh bind measures L on the moved driver; give both the same L. */
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(h, &info);
    assert_int_equal(sinew_soffd_create(NULL, &m, &(sinew_soffd_desc){sizeof(sinew_soffd_desc), 0, info.length_scale, 0}, &fresh), SINEW_OK);
    register_points(fresh, skin, N_SKIN, &policy);
    assert_int_equal(lib_deform(h, now, c.nv, a), SINEW_OK);
    assert_int_equal(lib_deform(fresh, now, c.nv, b), SINEW_OK);
    assert_true(max_diff(a, b, N_SKIN) < 1e-6);
    assert_int_equal(lib_deform_extended(h, now, c.nv, a), SINEW_OK);
    assert_int_equal(lib_deform_extended(fresh, now, c.nv, b), SINEW_OK);
    assert_true(max_diff(a, b, N_SKIN) < 1e-6);
    /* At the moved reference the skin is at rest again. */
    assert_int_equal(lib_deform(h, moved, c.nv, a), SINEW_OK);
    assert_true(max_diff(a, skin, N_SKIN) < 1e-5);
    ref.count = c.nv - 1;
    assert_int_equal(sinew_soffd_set_reference(NULL, h, &ref), SINEW_ERROR_MISMATCH);
    ref.count = c.nv;
    float *flat = calloc(3 * c.nv, sizeof(float));
    ref.data = flat;
    assert_int_equal(sinew_soffd_set_reference(NULL, h, &ref), SINEW_ERROR_DEGENERATE);
    assert_int_equal(lib_deform(h, moved, c.nv, a), SINEW_OK); /* unchanged by the failures */
    assert_true(max_diff(a, skin, N_SKIN) < 1e-5);
    sinew_soffd_destroy(h), sinew_soffd_destroy(fresh);
    free(flat), free(skin), free(moved), free(now), free(a), free(b), cage_free(&c);
}

typedef struct job {
    const sinew_soffd *h;
    const float *frames;
    float *out;
    size_t first, count;
    sinew_result result;
    int extended;
} job;

static void *run_job(void *arg)
{
    job *j = (job *)arg;
    for (int rep = 0; rep < 20; ++rep)
        j->result = j->extended ? sinew_soffd_deform_extended(j->h, j->frames, sinew_soffd_vertex_frames_size(j->h), NULL, j->out, 4 * sizeof(float), NULL, 0, j->first, j->count)
                                : sinew_soffd_deform(j->h, j->frames, sinew_soffd_element_frames_size(j->h), NULL, j->out, 4 * sizeof(float), NULL, 0, j->first, j->count);
    return NULL;
}

static void deform_is_safe_from_many_threads(void **state)
{
    (void)state;
    cage c = make_cube_cage(3, 1);
    enum { N = 4000 };
    float *skin = random_points(12, N, -1.5f, 1.5f), *now = malloc(3 * c.nv * sizeof(float));
    bend_twist(c.pos, now, c.nv, 1.0f);
    sinew_soffd *h = bind_cage(&c, NULL);
    register_points(h, skin, N, &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), 1e-3f, 8, 0, 0, 0});
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(h, &info);
    float *ef = malloc(16 * info.element_count * sizeof(float)), *vf = malloc(16 * c.nv * sizeof(float));
    sinew_points d = {now, c.nv, 0};
    assert_int_equal(sinew_soffd_element_frames(h, &d, ef, sinew_soffd_element_frames_size(h)), SINEW_OK);
    assert_int_equal(sinew_soffd_vertex_frames(h, &d, vf, sinew_soffd_vertex_frames_size(h)), SINEW_OK);
    float *packed = malloc(3 * N * sizeof(float)), *strided = malloc(4 * N * sizeof(float));
    for (int ext = 0; ext < 2; ++ext) {
        const float *frames = ext ? vf : ef;
        if (ext) assert_int_equal(sinew_soffd_deform_extended(h, frames, sinew_soffd_vertex_frames_size(h), NULL, packed, 0, NULL, 0, 0, N), SINEW_OK);
        else assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, packed, 0, NULL, 0, 0, N), SINEW_OK);
        for (size_t i = 0; i < 4 * N; ++i) strided[i] = -1234.5f;
        pthread_t th[4];
        job jobs[4];
        for (int t = 0; t < 4; ++t) {
            jobs[t] = (job){h, frames, strided, (size_t)t * N / 4, N / 4, SINEW_ERROR_INVALID_STATE, ext};
            assert_int_equal(pthread_create(&th[t], NULL, run_job, &jobs[t]), 0);
        }
        for (int t = 0; t < 4; ++t) {
            pthread_join(th[t], NULL);
            assert_int_equal(jobs[t].result, SINEW_OK);
        }
        for (size_t i = 0; i < N; ++i) {
            assert_true(memcmp(&strided[4 * i], &packed[3 * i], 12) == 0);
            assert_true(strided[4 * i + 3] == -1234.5f); /* the padding is not touched */
        }
    }
    sinew_soffd_destroy(h);
    free(ef), free(vf), free(packed), free(strided), free(skin), free(now), cage_free(&c);
}

static void bind_triangulates_concave_faces(void **state)
{
    (void)state;
    /* An L-shaped hexagon and a quad next to it; plus an unreferenced vertex. */
    const float pos[] = {0, 0, 0, 2, 0, 0, 2, 1, 0, 1, 1, 0, 1, 3, 0, 0, 3, 0, 3, 0, 0, 3, 1, 0, 9, 9, 9};
    const uint32_t idx[] = {0, 1, 2, 3, 4, 5, 1, 6, 7, 2};
    const uint32_t sizes[] = {6, 4};
    sinew_polymesh m = {{pos, 9, 0}, idx, sizes, 2, SINEW_INDEX_U32};
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_OK);
    sinew_soffd_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_soffd_get_info(h, &info), SINEW_OK);
    assert_int_equal(info.element_count, 6);
    assert_int_equal(info.face_count, 2);
    uint32_t face;
    for (size_t k = 0; k < 6; ++k) {
        assert_int_equal(sinew_soffd_element_face(h, k, &face), SINEW_OK);
        assert_int_equal(face, k < 4 ? 0 : 1);
    }
    assert_int_equal(sinew_soffd_element_face(h, 6, &face), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    /* Points above the L (also above its notch) follow a lift of the whole driver. */
    const float skin[] = {1.5f, 0.5f, 0.3f, 0.5f, 2.5f, -0.2f, 1.5f, 2.0f, 0.1f, 2.5f, 0.5f, 0.4f};
    register_points(h, skin, 4, SOFFD_EXACT);
    float now[27], out[12];
    for (int i = 0; i < 27; ++i) now[i] = pos[i] + (i % 3 == 2 ? 5.0f : 0.0f);
    assert_int_equal(lib_deform(h, now, 9, out), SINEW_OK);
    for (int i = 0; i < 12; ++i) assert_float_equal(out[i], skin[i] + (i % 3 == 2 ? 5.0f : 0.0f), 1e-5);
    sinew_soffd_destroy(h);
}

static void validation_names_the_element(void **state)
{
    (void)state;
    float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 2, 0};
    uint32_t tri[] = {0, 1, 2, 1, 3, 2};
    sinew_polymesh m = {{pos, 5, 0}, tri, NULL, 2, SINEW_INDEX_U32};
    sinew_soffd *h = (sinew_soffd *)&m; /* must stay untouched on failure */
    sinew_soffd *const sentinel = h;
    assert_int_equal(sinew_soffd_create(NULL, NULL, NULL, &h), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_soffd_create(NULL, &m, &(sinew_soffd_desc){sizeof(sinew_soffd_desc), -1, 0, 0}, &h), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_soffd_create(NULL, &m, &(sinew_soffd_desc){sizeof(sinew_soffd_desc), NAN, 0, 0}, &h), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_soffd_create(NULL, &m, &(sinew_soffd_desc){sizeof(sinew_soffd_desc), 0, -2, 0}, &h), SINEW_ERROR_INVALID_ARGUMENT);
    pos[4] = NAN;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_ERROR_NON_FINITE);
    assert_string_equal(sinew_last_error(), "driver vertex 1 has a non-finite coordinate y (nan)");
    pos[4] = 0;
    tri[4] = 7;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_string_equal(sinew_last_error(), "driver face 1 refers to vertex 7, but there are only 5");
    tri[4] = 3;
    m.face_count = 0;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_ERROR_INVALID_ARGUMENT);
    m.face_count = 2;
    m.positions.count = 0;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_ERROR_INVALID_ARGUMENT);
    m.positions.count = 5;
    m.positions.stride = 6;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_ERROR_INVALID_ARGUMENT);
    m.positions.stride = 0;
    m.indices = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_ERROR_INVALID_ARGUMENT);
    m.indices = tri;
    const uint32_t two[] = {3, 2};
    m.face_sizes = two;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_ERROR_INVALID_ARGUMENT);
    assert_string_equal(sinew_last_error(), "driver face 1 has 2 vertices (needs 3)");
    m.face_sizes = NULL;
    /* A zero-area triangle: an error naming it, or skipped and counted. */
    uint32_t with_sliver[] = {0, 1, 2, 1, 3, 2, 0, 3, 3};
    m.indices = with_sliver;
    m.face_count = 3;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_ERROR_DEGENERATE);
    assert_non_null(strstr(sinew_last_error(), "driver face 2 has a zero-area triangle (vertices 0, 3, 3)"));
    assert_ptr_equal(h, sentinel);
    assert_int_equal(sinew_soffd_create(NULL, &m, &(sinew_soffd_desc){sizeof(sinew_soffd_desc), 0, 0, 1}, &h), SINEW_OK);
    sinew_soffd_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_soffd_get_info(h, &info), SINEW_OK);
    assert_int_equal(info.skipped_triangles, 1);
    assert_int_equal(info.element_count, 2);
    uint32_t skipped_face = 99;
    size_t skipped_count = 0;
    assert_int_equal(sinew_soffd_skipped_faces(h, NULL, 0, &skipped_count), SINEW_OK);   /* query */
    assert_int_equal(skipped_count, 1);
    skipped_count = 0;
    assert_int_equal(sinew_soffd_skipped_faces(h, &skipped_face, 0, &skipped_count), SINEW_ERROR_BUFFER_TOO_SMALL);
    assert_int_equal(skipped_count, 1);
    assert_int_equal(skipped_face, 99);   /* nothing else written */
    assert_int_equal(sinew_soffd_skipped_faces(h, &skipped_face, 1, &skipped_count), SINEW_OK);
    assert_int_equal(skipped_face, 2);
    /* Every triangle degenerate. */
    sinew_soffd *h2 = sentinel;
    uint32_t all_bad[] = {0, 1, 1, 2, 2, 2};
    m.indices = all_bad;
    m.face_count = 2;
    assert_int_equal(sinew_soffd_create(NULL, &m, &(sinew_soffd_desc){sizeof(sinew_soffd_desc), 0, 0, 1}, &h2), SINEW_ERROR_DEGENERATE);
    /* A face that cannot be triangulated. */
    const float bow[] = {0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 0};
    const uint32_t bow_idx[] = {0, 1, 2, 3};
    const uint32_t four[] = {4};
    sinew_polymesh bm = {{bow, 4, 0}, bow_idx, four, 1, SINEW_INDEX_U32};
    assert_int_equal(sinew_soffd_create(NULL, &bm, NULL, &h2), SINEW_ERROR_INVALID_TOPOLOGY);
    assert_non_null(strstr(sinew_last_error(), "driver face 0 (4 vertices) cannot be triangulated"));
    assert_ptr_equal(h2, sentinel);

    /* Registration and pose-time checks. */
    float skin[] = {0.2f, 0.2f, 0.5f, 0.7f, 0.7f, -0.3f};
    sinew_points s = {skin, 2, 0};
    float frames[16 * 2], vframes[16 * 5], out[6];
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 0, 1), SINEW_ERROR_INVALID_STATE);
    assert_int_equal(sinew_soffd_dropped_mass(h, 0, (float[1]){0}), SINEW_ERROR_INVALID_STATE);
    assert_int_equal(sinew_soffd_register(NULL, NULL, &s, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_soffd_register(NULL, h, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    const sinew_soffd_register_desc bad[] = {
        {sizeof(sinew_soffd_register_desc), -0.1f, SOFFD_NO_CAP, 0, 0, 0},
        {sizeof(sinew_soffd_register_desc), 1.0f, SOFFD_NO_CAP, 0, 0, 0},
        {sizeof(sinew_soffd_register_desc), NAN, SOFFD_NO_CAP, 0, 0, 0},
        {sizeof(sinew_soffd_register_desc), 0, 0, -1, 0, 1},
        {sizeof(sinew_soffd_register_desc), 0, 0, INFINITY, 0, 1},
        /* exact with a threshold, a cap or one element: contradictions */
        {sizeof(sinew_soffd_register_desc), 1e-3f, 0, 0, 0, 1},
        {sizeof(sinew_soffd_register_desc), 0, 4, 0, 0, 1},
        {sizeof(sinew_soffd_register_desc), 0, 0, 0, 1, 1}};
    for (int k = 0; k < 8; ++k) assert_int_equal(sinew_soffd_register(NULL, h, &s, &bad[k]), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "exclusive (1) must be 0"));
    skin[5] = INFINITY;
    assert_int_equal(sinew_soffd_register(NULL, h, &s, SOFFD_EXACT), SINEW_ERROR_NON_FINITE);
    assert_string_equal(sinew_last_error(), "point 1 has a non-finite coordinate z (inf)");
    skin[5] = -0.3f;
    assert_int_equal(sinew_soffd_register(NULL, h, &s, SOFFD_EXACT), SINEW_OK);
    sinew_points d = {pos, 4, 0};
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames, sinew_soffd_element_frames_size(h)), SINEW_ERROR_MISMATCH);
    assert_string_equal(sinew_last_error(), "the driver has 4 vertices now, but 5 were bound");
    assert_int_equal(sinew_soffd_vertex_frames(h, &d, vframes, sinew_soffd_vertex_frames_size(h)), SINEW_ERROR_MISMATCH);
    d.count = 5;
    pos[14] = NAN;
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames, sinew_soffd_element_frames_size(h)), SINEW_ERROR_NON_FINITE);
    assert_string_equal(sinew_last_error(), "driver vertex 4 has a non-finite coordinate z (nan)");
    pos[14] = 0;
    assert_int_equal(sinew_soffd_element_frames(h, &d, NULL, sinew_soffd_element_frames_size(h)), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_soffd_element_frames(NULL, &d, frames, sinew_soffd_element_frames_size(NULL)), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames, sinew_soffd_element_frames_size(h)), SINEW_OK);
    assert_int_equal(sinew_soffd_vertex_frames(h, &d, vframes, sinew_soffd_vertex_frames_size(h)), SINEW_OK);
    memset(out, 0x7f, sizeof out);
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 1, 2), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, SIZE_MAX, 2), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 8, NULL, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 13, NULL, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_soffd_deform(h, NULL, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, NULL, 0, NULL, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_soffd_deform_extended(h, vframes, sinew_soffd_vertex_frames_size(h), NULL, out, 0, NULL, 0, 2, 1), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    for (size_t i = 0; i < 6; ++i) assert_int_equal(((uint32_t *)out)[i], 0x7f7f7f7fu); /* untouched */
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 2, 0), SINEW_OK);
    assert_string_equal(sinew_last_error(), "");
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 0, 2), SINEW_OK);
    for (int i = 0; i < 6; ++i) assert_float_equal(out[i], skin[i], 1e-6);
    assert_int_equal(sinew_soffd_dropped_mass(h, 2, (float[1]){0}), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_int_equal(sinew_soffd_get_info(NULL, &info), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_soffd_set_reference(NULL, h, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    /* Zero points is a valid registration. */
    s.count = 0;
    assert_int_equal(sinew_soffd_register(NULL, h, &s, SOFFD_EXACT), SINEW_OK);
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 0, 0), SINEW_OK);
    sinew_soffd_destroy(h);
}

/* ---- Allocation failures and cancellation ------------------------------- */

typedef struct sweep_data {
    cage c;
    float *skin;
    size_t n;
    int what;
} sweep_data;

static sinew_result sweep_attempt(sinew_context *ctx, void *user)
{
    sweep_data *d = (sweep_data *)user;
    sinew_polymesh m = cage_polymesh(&d->c, NULL);
    sinew_soffd *h = NULL;
    sinew_result r = sinew_soffd_create(ctx, &m, NULL, &h);
    if (r != SINEW_OK) return r;
    sinew_points s = {d->skin, d->n, 0};
    sinew_soffd_register_desc policy = {sizeof(sinew_soffd_register_desc), d->what == 1 ? 0.0f : 1e-3f,
                                         d->what == 1 ? 0u : SOFFD_NO_CAP, 0, 0, d->what == 1};
    if (d->what >= 1) r = sinew_soffd_register(NULL, h, &s, &policy);
    if (r == SINEW_OK && d->what == 2) {
        float *moved = malloc(3 * d->c.nv * sizeof(float));
        bend_twist(d->c.pos, moved, d->c.nv, 0.2f);
        sinew_points ref = {moved, d->c.nv, 0};
        r = sinew_soffd_set_reference(NULL, h, &ref);
        free(moved);
    }
    if (r == SINEW_OK && d->what == 3) {
        r = sinew_soffd_set_contributors(h, 1, (const uint32_t[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 11);
        if (r == SINEW_OK) {
            uint8_t *mask = calloc(d->c.nt * 2, 1);
            mask[0] = mask[5] = mask[9] = 1;
            r = sinew_soffd_exclude_elements(h, mask, d->c.nt, 0, d->n);
            free(mask);
        }
    }
    if (r != SINEW_OK && d->what >= 1) {
        /* The handle is still usable after a failed registration step. */
        sinew_soffd_info info;
        SINEW_INIT(&info);
        assert_int_equal(sinew_soffd_get_info(h, &info), SINEW_OK);
    }
    sinew_soffd_destroy(h);
    return r;
}

/* Sweeps steps first..last - 1 of sweep_attempt over d's points; each must
 * make more than min_runs allocations. */
static void sweep_steps(sweep_data *d, int first, int last, size_t min_runs)
{
    for (d->what = first; d->what < last; ++d->what) {
        size_t runs;
        char report[512];
        bool ok = support_sweep_allocation_failures(sweep_attempt, d, &runs, report, sizeof report);
        if (!ok) fail_msg("sweep %d with %zu points: %s", d->what, d->n, report);
        assert_true(runs > min_runs);
    }
}

static void every_allocation_failure_is_clean(void **state)
{
    (void)state;
    sweep_data d = {make_cube_cage(2, 1), random_points(13, 40, -1.5f, 1.5f), 40, 0};
    sweep_steps(&d, 0, 4, 5);
    /* No points: registration still allocates (one byte per array), and a
     * failure there must fail the call, not return OK with a message left. */
    d.n = 0;
    sweep_steps(&d, 1, 3, 3);
    free(d.skin);
    cage_free(&d.c);
}

static int cancel_in_register(void *user, const char *stage, float fraction)
{
    int *calls = (int *)user;
    ++*calls;
    return strcmp(stage, "soffd: register") == 0 && fraction > 0 && fraction < 1;
}

static void registration_can_be_cancelled(void **state)
{
    (void)state;
    int calls = 0;
    sinew_context_desc cd;
    SINEW_INIT(&cd);
    cd.progress = cancel_in_register;
    cd.progress_user = &calls;
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
    cage c = make_cube_cage(2, 1);
    enum { N = 5000 };
    float *skin = random_points(14, N, -1.5f, 1.5f);
    sinew_polymesh m = cage_polymesh(&c, NULL);
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(ctx, &m, NULL, &h), SINEW_OK);
    sinew_points s = {skin, 3, 0};
    assert_int_equal(sinew_soffd_register(ctx, h, &s, SOFFD_EXACT), SINEW_OK); /* one report at 0, one at 1 */
    /* Progress is per call: the handle keeps no callback, so a call without a
     * context reports nothing (and is never cancelled). */
    int before = calls;
    assert_int_equal(sinew_soffd_register(NULL, h, &s, SOFFD_EXACT), SINEW_OK);
    assert_int_equal(calls, before);
    s.count = N;
    assert_int_equal(sinew_soffd_register(ctx, h, &s, SOFFD_EXACT), SINEW_ERROR_CANCELLED);
    sinew_context_destroy(ctx);
    assert_non_null(strstr(sinew_last_error(), "soffd: register"));
    sinew_soffd_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_soffd_get_info(h, &info), SINEW_OK);
    assert_int_equal(info.point_count, 3); /* the earlier registration survives */
    sinew_soffd_destroy(h);
    free(skin);
    cage_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identity_at_bind),
        cmocka_unit_test(rigid_motion_moves_the_skin_rigidly),
        cmocka_unit_test(defaults_are_bounded_and_exact_at_rest),
        cmocka_unit_test(normal_offset_stays_constant),
        cmocka_unit_test(scaling_the_scene_scales_the_deformation),
        cmocka_unit_test(extended_algorithm_reproduces_affine_maps),
        cmocka_unit_test(pruning_error_follows_the_dropped_mass),
        cmocka_unit_test(registration_equals_brute_force),
        cmocka_unit_test(pruning_policies_keep_what_they_promise),
        cmocka_unit_test(contributing_sets_can_be_edited),
        cmocka_unit_test(re_registration_equals_a_fresh_bind),
        cmocka_unit_test(deform_is_safe_from_many_threads),
        cmocka_unit_test(bind_triangulates_concave_faces),
        cmocka_unit_test(validation_names_the_element),
        cmocka_unit_test(every_allocation_failure_is_clean),
        cmocka_unit_test(registration_can_be_cancelled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
