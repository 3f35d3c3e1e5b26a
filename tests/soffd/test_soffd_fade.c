/* Faded pruning (the threshold's cut subtracted from every kept weight, and
 * a capped point's farthest kept elements ramped out in distance before the
 * next element takes their place): the deformed skin is
 * continuous where a point's k-th and (k+1)-th elements trade places, the
 * faded weights match an independent brute force of their definition, the
 * dropped mass counts what the fade took, identity at bind and rigid motion
 * still hold, and save and load keep it bit for bit. */
#include <float.h>
#include <math.h>
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

#define REG_DESC(eps, cap) (&(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), (eps), (cap), 0, 0, 0})

static sinew_soffd *bind_cage(const cage *c)
{
    sinew_polymesh m = cage_polymesh(c, NULL);
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_OK);
    return h;
}

static void register_points(sinew_soffd *h, const float *p, size_t n, const sinew_soffd_register_desc *policy)
{
    sinew_points s = {p, n, 0};
    assert_int_equal(sinew_soffd_register(NULL, h, &s, policy), SINEW_OK);
}

/* n points evenly spaced on the segment from a to b (both included). */
static float *segment(const float a[3], const float b[3], size_t n)
{
    float *p = malloc(3 * n * sizeof(float));
    for (size_t i = 0; i < n; ++i) {
        double t = (double)i / (double)(n - 1);
        for (int k = 0; k < 3; ++k) p[3 * i + k] = (float)(a[k] + t * (b[k] - a[k]));
    }
    return p;
}

/* Largest distance between the deformed positions of neighbours on the path. */
static double largest_jump(const float *out, size_t n)
{
    double worst = 0;
    for (size_t i = 1; i < n; ++i) {
        double d2 = 0;
        for (int k = 0; k < 3; ++k) d2 += pow((double)out[3 * i + k] - out[3 * (i - 1) + k], 2);
        worst = fmax(worst, sqrt(d2));
    }
    return worst;
}

/* How often a point's contributing set differs from its predecessor's on the path. */
static size_t set_changes(const sinew_soffd *h, size_t n)
{
    uint32_t prev[16], now[16];
    size_t prev_n = 0, changes = 0;
    for (size_t i = 0; i < n; ++i) {
        size_t m;
        assert_int_equal(sinew_soffd_contributors(h, i, now, NULL, 16, &m), SINEW_OK);
        if (i > 0 && (m != prev_n || memcmp(now, prev, m * sizeof *now) != 0)) ++changes;
        memcpy(prev, now, m * sizeof *now), prev_n = m;
    }
    return changes;
}

/* A path above the cube's top face along which the 4 nearest elements
 * change many times. Sampled at spacing h and h / 16: a continuous
 * deformation's largest jump between neighbours shrinks with the spacing
 * (about 16 times; 6 is asked), a step stays. Fading removed the steps the bare cap had. */
static void faded_cap_is_continuous_where_elements_trade(void **state)
{
    (void)state;
    cage c = make_cube_cage(3, 0);
    float *now = malloc(3 * c.nv * sizeof(float));
    bend_twist(c.pos, now, c.nv, 0.7f);
    sinew_soffd *h = bind_cage(&c);
    const float a[3] = {-1.4f, -0.83f, 1.3f}, b[3] = {1.4f, 0.61f, 1.1f};
    enum { COARSE = 401, FINE = 16 * (COARSE - 1) + 1 };
    float *coarse = segment(a, b, COARSE), *fine = segment(a, b, FINE);
    float *out = malloc(3 * FINE * sizeof(float));
    const uint32_t caps[] = {2, 3, 4, 6};
    for (size_t k = 0; k < sizeof caps / sizeof *caps; ++k) {
        double jump[2];
        for (int level = 0; level < 2; ++level) {
            size_t n = level ? FINE : COARSE;
            register_points(h, level ? fine : coarse, n, REG_DESC(1e-3f, caps[k]));
            if (level == 1) assert_true(set_changes(h, n) >= 4); /* the path crosses trades */
            assert_int_equal(lib_deform(h, now, c.nv, out), SINEW_OK);
            jump[level] = largest_jump(out, n);
        }
        print_message("cap %u: largest jump %.3g at spacing h, %.3g at h / 16\n", caps[k], jump[0], jump[1]);
        assert_true(jump[1] <= jump[0] / 6);
    }
    sinew_soffd_destroy(h);
    free(now), free(coarse), free(fine), free(out), cage_free(&c);
}

/* Brute-force weights and distances of one point over every element of the cage. */
static void brute_weights(const cage *c, double L, double local, const float *p_in, double *w, double *d)
{
    double p[3];
    bf_load(p_in, p);
    for (size_t t = 0; t < c->nt; ++t) {
        double a[3], b[3], cc[3];
        bf_load(&c->pos[3 * c->tris[3 * t]], a), bf_load(&c->pos[3 * c->tris[3 * t + 1]], b);
        bf_load(&c->pos[3 * c->tris[3 * t + 2]], cc);
        double d2 = bf_triangle_dist2(p, a, b, cc);
        w[t] = bf_weight(d2, L, local);
        d[t] = sqrt(d2);
    }
}

/* The ramp width of the fade, SN_SOFFD_FADE_WIDTH, in L. */
#define FADE_WIDTH 0.5

/* Per point, the set and the normalised weights equal bf_fade's; the weights
 * sum to one; the dropped mass bounds 1 - (kept faded weight) / (all weight)
 * from above, within 1.5 times it plus 1e-4; the deformation equals the
 * brute-force faded formula. Points where rounding may decide membership (a
 * faded weight near 0, or the cap-th and next elements about equally near,
 * where registration keeps the nearest unfaded) are skipped. */
static void faded_weights_match_their_definition(void **state)
{
    (void)state;
    cage c = make_cube_cage(3, 0);
    enum { N = 300 };
    float *skin = random_points(31, N, -1.6f, 1.6f), *now = malloc(3 * c.nv * sizeof(float));
    float *out = malloc(3 * N * sizeof(float));
    bend_twist(c.pos, now, c.nv, 0.8f);
    sinew_soffd *h = bind_cage(&c);
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(h, &info);
    double *w = malloc(c.nt * sizeof(double)), *faded = malloc(c.nt * sizeof(double));
    double *d = malloc(c.nt * sizeof(double)), *sorted = malloc(c.nt * sizeof(double));
    uint32_t el[128];
    float wt[128];
    const struct { float eps; uint32_t cap; } policies[] = {{1e-3f, SOFFD_NO_CAP}, {1e-3f, 4}, {FLT_MIN, 6}, {5e-2f, 8}};
    for (size_t k = 0; k < sizeof policies / sizeof *policies; ++k) {
        size_t cap = policies[k].cap == SOFFD_NO_CAP ? 0 : policies[k].cap;
        register_points(h, skin, N, REG_DESC(policies[k].eps, policies[k].cap));
        assert_int_equal(lib_deform(h, now, c.nv, out), SINEW_OK);
        sinew_soffd_info reg;
        SINEW_INIT(&reg);
        sinew_soffd_get_info(h, &reg);
        size_t checked = 0;
        for (size_t i = 0; i < N; ++i) {
            brute_weights(&c, info.length_scale, info.local, &skin[3 * i], w, d);
            memcpy(faded, w, c.nt * sizeof(double));
            bf_fade(faded, d, c.nt, policies[k].eps, cap, FADE_WIDTH * info.length_scale);
            double total = 0, kept = 0;
            for (size_t t = 0; t < c.nt; ++t) total += w[t], kept += faded[t];
            bool unsure = !(kept > 0);
            for (size_t t = 0; t < c.nt; ++t) unsure = unsure || (faded[t] > 0 && faded[t] < 1e-9 * kept);
            memcpy(sorted, d, c.nt * sizeof(double));
            qsort(sorted, c.nt, sizeof(double), bf_ascending);
            if (cap) unsure = unsure || sorted[cap] - sorted[cap - 1] < 1e-5 * info.length_scale;
            if (unsure) continue;
            double lost = 1 - kept / total;
            float mass;
            assert_int_equal(sinew_soffd_dropped_mass(h, i, &mass), SINEW_OK);
            assert_true(mass >= lost * (1 - 1e-5) - 1e-7);
            assert_true(mass <= 1.5 * lost + 1e-4 + 1e-6);
            assert_true(mass <= reg.max_dropped_mass);
            size_t n;
            assert_int_equal(sinew_soffd_contributors(h, i, el, wt, 128, &n), SINEW_OK);
            double sum = 0;
            size_t j = 0;
            for (size_t t = 0; t < c.nt; ++t) {
                if (!(faded[t] > 0)) continue;
                assert_true(j < n);
                assert_int_equal(el[j], t);
                assert_float_equal(wt[j], faded[t] / kept, 2e-5);
                sum += wt[j++];
            }
            assert_int_equal(j, n);
            assert_float_equal(sum, 1, 1e-5);
            double want[3];
            bf_deform_point(c.pos, now, c.tris, c.nt, info.length_scale, info.local, policies[k].eps, cap,
                            FADE_WIDTH * info.length_scale, &skin[3 * i], want);
            for (int q = 0; q < 3; ++q) assert_float_equal(out[3 * i + q], want[q], 5e-5);
            ++checked;
        }
        print_message("policy %zu: %zu of %d points checked\n", k, checked, N);
        assert_true(checked > N / 2);
    }
    sinew_soffd_destroy(h);
    free(w), free(faded), free(d), free(sorted), free(skin), free(now), free(out), cage_free(&c);
}

/* A rotation about a fixed oblique axis, then t. */
static void rotation(double angle, const float t[3], float m[16])
{
    const double axis[3] = {0.3, -1.0, 0.4}, move[3] = {t[0], t[1], t[2]};
    support_affine_rotation(axis, angle, move, m);
}

/* Faded weights are positive and sum to one, so every point comes back bit
 * for bit at bind and moves rigidly with the driver, for the defaults and
 * other faded policies. */
static void faded_policies_keep_identity_and_rigid_motion(void **state)
{
    (void)state;
    cage c = make_cube_cage(4, 0);
    enum { N = 500 };
    float *skin = random_points(32, N, -1.7f, 1.7f), *out = malloc(3 * N * sizeof(float));
    float *want = malloc(3 * N * sizeof(float)), *moved = malloc(3 * c.nv * sizeof(float));
    float m[16];
    rotation(2.3, (const float[3]){4, -1, 0.25f}, m);
    apply_affine(m, c.pos, moved, c.nv);
    apply_affine(m, skin, want, N);
    sinew_soffd *h = bind_cage(&c);
    const sinew_soffd_register_desc *policies[] = {NULL, REG_DESC(1e-3f, 4), REG_DESC(1e-2f, 2),
                                                   REG_DESC(FLT_MIN, 8), REG_DESC(1e-3f, SOFFD_NO_CAP)};
    for (size_t k = 0; k < sizeof policies / sizeof *policies; ++k) {
        register_points(h, skin, N, policies[k]);
        for (int ext = 0; ext < 2; ++ext) {
            assert_int_equal(ext ? lib_deform_extended(h, c.pos, c.nv, out) : lib_deform(h, c.pos, c.nv, out), SINEW_OK);
            assert_memory_equal(out, skin, 3 * N * sizeof(float));
            assert_int_equal(ext ? lib_deform_extended(h, moved, c.nv, out) : lib_deform(h, moved, c.nv, out), SINEW_OK);
            assert_true(max_diff(out, want, N) <= 1e-5 * 8);
        }
    }
    sinew_soffd_destroy(h);
    free(skin), free(out), free(want), free(moved), cage_free(&c);
}

/* A faded registration saves as format version 4 and loads back to the same
 * bytes, the same deformation bits and the same dropped masses; an unfaded
 * one (exact) still saves in the version before. */
static void faded_registration_saves_and_loads_bit_for_bit(void **state)
{
    (void)state;
    cage c = make_cube_cage(3, 0);
    enum { N = 200 };
    float *skin = random_points(33, N, -1.6f, 1.6f), *now = malloc(3 * c.nv * sizeof(float));
    float *a = malloc(3 * N * sizeof(float)), *b = malloc(3 * N * sizeof(float));
    bend_twist(c.pos, now, c.nv, 0.9f);
    sinew_soffd *h = bind_cage(&c);
    for (int exact = 0; exact < 2; ++exact) {
        register_points(h, skin, N, exact ? SOFFD_EXACT : NULL);
        size_t size = 0, size2 = 0;
        assert_int_equal(sinew_soffd_save(h, NULL, 0, &size), SINEW_OK);
        unsigned char *buf = malloc(size), *buf2 = malloc(size);
        assert_int_equal(sinew_soffd_save(h, buf, size, &size), SINEW_OK);
        sinew_saved_info si;
        SINEW_INIT(&si);
        assert_int_equal(sinew_saved_get_info(buf, size, &si), SINEW_OK);
        assert_int_equal(si.format_version, exact ? 1 : 4);
        sinew_soffd *l = NULL;
        assert_int_equal(sinew_soffd_load(NULL, buf, size, &l), SINEW_OK);
        assert_int_equal(sinew_soffd_save(l, buf2, size, &size2), SINEW_OK);
        assert_int_equal(size2, size);
        assert_memory_equal(buf, buf2, size);
        assert_int_equal(lib_deform(h, now, c.nv, a), SINEW_OK);
        assert_int_equal(lib_deform(l, now, c.nv, b), SINEW_OK);
        assert_memory_equal(a, b, 3 * N * sizeof(float));
        assert_int_equal(lib_deform_extended(h, now, c.nv, a), SINEW_OK);
        assert_int_equal(lib_deform_extended(l, now, c.nv, b), SINEW_OK);
        assert_memory_equal(a, b, 3 * N * sizeof(float));
        size_t faded = 0;
        for (size_t i = 0; i < N; ++i) {
            float ma, mb;
            assert_int_equal(sinew_soffd_dropped_mass(h, i, &ma), SINEW_OK);
            assert_int_equal(sinew_soffd_dropped_mass(l, i, &mb), SINEW_OK);
            assert_memory_equal(&ma, &mb, sizeof ma);
            faded += ma > 0;
        }
        assert_true(exact ? faded == 0 : faded == N);
        sinew_soffd_destroy(l);
        free(buf), free(buf2);
    }
    sinew_soffd_destroy(h);
    free(skin), free(now), free(a), free(b), cage_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(faded_cap_is_continuous_where_elements_trade),
        cmocka_unit_test(faded_weights_match_their_definition),
        cmocka_unit_test(faded_policies_keep_identity_and_rigid_motion),
        cmocka_unit_test(faded_registration_saves_and_loads_bit_for_bit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
