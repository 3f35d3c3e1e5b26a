/* Dual quaternion skinning and the per-vertex linear/dual-quaternion mix:
 * volume under twist (against linear blending), scale/shear handling,
 * antipodality, rigid motions, and the mix's end points. */
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

static const double PI = 3.14159265358979323846;

/* m = T(t) * R(axis, angle) * diag(scale), column-major, from scalars. */
static void mat_trs(double ax, double ay, double az, double angle, double tx, double ty, double tz, double sx,
                    double sy, double sz, float m[16])
{
    const double axis[3] = {ax, ay, az}, t[3] = {tx, ty, tz}, scale[3] = {sx, sy, sz};
    skin_test_trs(axis, angle, t, scale, m);
}

/* A tube along x in [0, 2], radius 0.5, with two joints: 0 at the origin,
 * 1 at x = 1; joint 1's weight ramps from 0 at x = 0.5 to 1 at x = 1.5. */
enum { RINGS = 41, SEGS = 64, NV = RINGS * SEGS };
typedef struct tube {
    float p[3 * NV], n[3 * NV], t[4 * NV];
    uint32_t j[2 * NV];
    float w[2 * NV];
    float ib[32];
} tube;

static void tube_init(tube *tb)
{
    for (int i = 0; i < RINGS; ++i)
        for (int s = 0; s < SEGS; ++s) {
            int v = i * SEGS + s;
            double a = 2.0 * PI * s / SEGS, x = 2.0 * i / (RINGS - 1);
            tb->p[3 * v] = (float)x, tb->p[3 * v + 1] = (float)(0.5 * cos(a)), tb->p[3 * v + 2] = (float)(0.5 * sin(a));
            tb->n[3 * v] = 0.0f, tb->n[3 * v + 1] = (float)cos(a), tb->n[3 * v + 2] = (float)sin(a);
            tb->t[4 * v] = 0.0f, tb->t[4 * v + 1] = (float)-sin(a), tb->t[4 * v + 2] = (float)cos(a);
            tb->t[4 * v + 3] = (s % 2) ? 1.0f : -1.0f;
            double w1 = fmin(1.0, fmax(0.0, x - 0.5));
            tb->j[2 * v] = 0, tb->j[2 * v + 1] = 1;
            tb->w[2 * v] = (float)(1.0 - w1), tb->w[2 * v + 1] = (float)w1;
        }
    mat_trs(1, 0, 0, 0, 0, 0, 0, 1, 1, 1, tb->ib);
    mat_trs(1, 0, 0, 0, -1, 0, 0, 1, 1, 1, tb->ib + 16);
}

static sinew_skin *tube_skin(const tube *tb, sinew_skin_blend blend, const float *alpha)
{
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = NV, d.joint_count = 2, d.influence_count = 2;
    d.joints = tb->j, d.weights = tb->w, d.inverse_bind = tb->ib, d.blend = blend, d.dq_blend = alpha;
    sinew_skin *s = NULL;
    sinew_result r = sinew_skin_create(NULL, &d, &s);
    if (r != SINEW_OK) fail_msg("%s", sinew_last_error());
    return s;
}

static void deform(const sinew_skin *skin, const float *world, const tube *tb, float *p, float *n, float *t)
{
    float *pal = malloc(sinew_skin_palette_size(skin) * sizeof(float));
    assert_int_equal(sinew_skin_palette(skin, world, 2, pal, sinew_skin_palette_size(skin)), SINEW_OK);
    sinew_skin_input in = {tb->p, 0, tb->n, 0, tb->t, 0};
    sinew_skin_output out = {p, 0, n, 0, t, 0};
    assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &out, 0, NV), SINEW_OK);
    free(pal);
}

/* Shoelace area of ring i projected on the plane x = const (twist about x
 * keeps x). */
static double ring_area(const float *p, int ring)
{
    double a = 0.0;
    for (int s = 0; s < SEGS; ++s) {
        const float *u = p + 3 * (ring * SEGS + s), *v = p + 3 * (ring * SEGS + (s + 1) % SEGS);
        a += (double)u[1] * v[2] - (double)v[1] * u[2];
    }
    return 0.5 * fabs(a);
}

static void twisted_cylinder_keeps_its_cross_section(void **state)
{
    (void)state;
    tube *tb = malloc(sizeof *tb);
    tube_init(tb);
    const double twist = 120.0 * PI / 180.0;
    float world[32];
    mat_trs(1, 0, 0, 0, 0, 0, 0, 1, 1, 1, world);
    mat_trs(1, 0, 0, twist, 1, 0, 0, 1, 1, 1, world + 16);
    float *lp = malloc(3 * NV * sizeof(float)), *dp = malloc(3 * NV * sizeof(float));
    float *dn = malloc(3 * NV * sizeof(float)), *dt = malloc(4 * NV * sizeof(float));
    sinew_skin *lbs = tube_skin(tb, SINEW_SKIN_BLEND_LINEAR, NULL);
    sinew_skin *dqs = tube_skin(tb, SINEW_SKIN_BLEND_DUAL_QUATERNION, NULL);
    deform(lbs, world, tb, lp, dn, dt);
    deform(dqs, world, tb, dp, dn, dt);
    const double rest = ring_area(tb->p, RINGS / 2);
    double worst_lbs = 1.0, worst_dqs = 1.0;
    for (int i = 0; i < RINGS; ++i) {
        worst_lbs = fmin(worst_lbs, ring_area(lp, i) / rest);
        double r = ring_area(dp, i) / rest;
        if (fabs(r - 1.0) > fabs(worst_dqs - 1.0)) worst_dqs = r;
    }
    const double mid_lbs = ring_area(lp, RINGS / 2) / rest, mid_dqs = ring_area(dp, RINGS / 2) / rest;
    print_message("  120 degree twist, middle cross-section area / rest: LBS %.4f, DQS %.6f "
                  "(worst ring: LBS %.4f, DQS %.6f)\n",
                  mid_lbs, mid_dqs, worst_lbs, worst_dqs);
    assert_true(fabs(mid_dqs - 1.0) < 0.01);
    assert_true(fabs(worst_dqs - 1.0) < 0.01);
    assert_true(mid_lbs < 0.5); /* cos^2(60 degrees) = 0.25 */
    assert_true(fabs(mid_lbs - 0.25) < 0.01);
    /* DQS moves each ring rigidly: unit normals perpendicular to tangents,
     * handedness kept. */
    for (int v = 0; v < NV; ++v) {
        double nn = 0, tt = 0, nt = 0;
        for (int i = 0; i < 3; ++i)
            nn += dn[3 * v + i] * dn[3 * v + i], tt += dt[4 * v + i] * dt[4 * v + i], nt += dn[3 * v + i] * dt[4 * v + i];
        assert_true(fabs(nn - 1) < 1e-5 && fabs(tt - 1) < 1e-5 && fabs(nt) < 1e-5);
        assert_true(dt[4 * v + 3] == tb->t[4 * v + 3]);
        assert_true(fabsf(dp[3 * v] - tb->p[3 * v]) < 1e-5f);
    }
    sinew_skin_destroy(lbs), sinew_skin_destroy(dqs);
    free(lp), free(dp), free(dn), free(dt), free(tb);
}

/* A single-joint vertex lands exactly where M_j puts it, whatever M_j holds:
 * rigid, uniform scale, non-uniform scale, mirror, shear. Normals follow the
 * inverse transpose, as with linear blending. */
static void one_joint_reproduces_any_matrix(void **state)
{
    (void)state;
    enum { JN = 5, PER = 50, N = JN * PER };
    float world[16 * JN];
    mat_trs(1, 2, 3, 0.7, 1, 2, 3, 1, 1, 1, world);
    mat_trs(-1, 0, 1, 2.9, -4, 5, 10, 3, 3, 3, world + 16);
    mat_trs(0, 1, 0, -1.1, 0.5, 0, -2, 2, 0.5, 1.25, world + 32);
    mat_trs(1, 1, 0, 0.3, 0, 1, 0, -1, 1, 1, world + 48);
    mat_trs(0, 0, 1, 0.2, 2, 2, 2, 1, 1, 1, world + 64);
    world[64 + 4] += 0.8f;
    float p[3 * N], nrm[3 * N], tan[4 * N], w[N];
    uint32_t j[N];
    support_rng rng;
    support_rng_seed(&rng, 2);
    for (int v = 0; v < N; ++v) {
        double x = support_rng_uniform(&rng, -1, 1), y = support_rng_uniform(&rng, -1, 1), z = support_rng_uniform(&rng, -1, 1);
        double l = sqrt(x * x + y * y + z * z);
        p[3 * v] = (float)(3 * x), p[3 * v + 1] = (float)(3 * y), p[3 * v + 2] = (float)(3 * z);
        nrm[3 * v] = (float)(x / l), nrm[3 * v + 1] = (float)(y / l), nrm[3 * v + 2] = (float)(z / l);
        double tl = sqrt(x * x + y * y);
        tan[4 * v] = (float)(y / tl), tan[4 * v + 1] = (float)(-x / tl), tan[4 * v + 2] = 0.0f, tan[4 * v + 3] = 1.0f;
        j[v] = (uint32_t)(v / PER), w[v] = 1.0f;
    }
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = N, d.joint_count = JN, d.influence_count = 1, d.joints = j, d.weights = w;
    d.kernel = SINEW_SKIN_KERNEL_SCALAR;
    sinew_skin *lbs = NULL, *dqs = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &lbs), SINEW_OK);
    d.blend = SINEW_SKIN_BLEND_DUAL_QUATERNION;
    assert_int_equal(sinew_skin_create(NULL, &d, &dqs), SINEW_OK);
    float lp[3 * N], ln[3 * N], lt[4 * N], dp[3 * N], dn[3 * N], dt[4 * N];
    float lpal[16 * JN], dpal[48 * JN];
    assert_int_equal(sinew_skin_palette(lbs, world, JN, lpal, sinew_skin_palette_size(lbs)), SINEW_OK);
    assert_int_equal(sinew_skin_palette(dqs, world, JN, dpal, sinew_skin_palette_size(dqs)), SINEW_OK);
    sinew_skin_input in = {p, 0, nrm, 0, tan, 0};
    sinew_skin_output lo = {lp, 0, ln, 0, lt, 0}, dout = {dp, 0, dn, 0, dt, 0};
    assert_int_equal(sinew_skin_deform(lbs, lpal, sinew_skin_palette_size(lbs), &in, &lo, 0, N), SINEW_OK);
    assert_int_equal(sinew_skin_deform(dqs, dpal, sinew_skin_palette_size(dqs), &in, &dout, 0, N), SINEW_OK);
    for (int v = 0; v < N; ++v) {
        const float *m = world + 16 * j[v];
        for (int i = 0; i < 3; ++i) {
            float e = m[i] * p[3 * v] + m[4 + i] * p[3 * v + 1] + m[8 + i] * p[3 * v + 2] + m[12 + i];
            if (!(fabsf(dp[3 * v + i] - e) < 1e-4f)) fail_msg("joint %u vertex %d: %g vs %g", j[v], v, dp[3 * v + i], e);
            assert_true(fabsf(lp[3 * v + i] - e) < 1e-4f);
            assert_true(fabsf(dn[3 * v + i] - ln[3 * v + i]) < 1e-4f);
            assert_true(fabsf(dt[4 * v + i] - lt[4 * v + i]) < 1e-4f);
        }
        assert_true(dt[4 * v + 3] == lt[4 * v + 3]);
        assert_true(dt[4 * v + 3] == (j[v] == 3 ? -1.0f : 1.0f));
    }
    sinew_skin_destroy(lbs), sinew_skin_destroy(dqs);
}

/* Rotations of +170 and -170 degrees about x, equal weights: their
 * quaternions lie in opposite hemispheres. Blended on the same side they
 * give the 180 degree turn; blended naively they would cancel to identity. */
static void antipodal_quaternions_take_the_short_way(void **state)
{
    (void)state;
    float world[32];
    mat_trs(1, 0, 0, 170.0 * PI / 180.0, 0, 0, 0, 1, 1, 1, world);
    mat_trs(1, 0, 0, -170.0 * PI / 180.0, 0, 0, 0, 1, 1, 1, world + 16);
    float p[3] = {0, 1, 0}, o[3];
    uint32_t j[2] = {0, 1};
    float w[2] = {0.5f, 0.5f};
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = 1, d.joint_count = 2, d.influence_count = 2, d.joints = j, d.weights = w;
    d.blend = SINEW_SKIN_BLEND_DUAL_QUATERNION;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    float pal[96];
    assert_int_equal(sinew_skin_palette(skin, world, 2, pal, sinew_skin_palette_size(skin)), SINEW_OK);
    /* The palette stores both with w >= 0, so they really are antipodal-ish. */
    assert_true(pal[16] * pal[48 + 16] + pal[19] * pal[48 + 19] < 0.0f);
    sinew_skin_input in = {p, 0, NULL, 0, NULL, 0};
    sinew_skin_output out = {o, 0, NULL, 0, NULL, 0};
    assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &out, 0, 1), SINEW_OK);
    assert_true(fabsf(o[0]) < 1e-5f && fabsf(o[1] + 1.0f) < 1e-5f && fabsf(o[2]) < 1e-5f);
    sinew_skin_destroy(skin);
}

/* A linear-blend palette (16 floats a joint) given to a dual-quaternion skin
 * (48 a joint) used to be read past its end; its size now tells them apart. */
static void a_palette_of_the_other_blend_is_a_mismatch(void **state)
{
    (void)state;
    uint32_t j[2] = {0, 1};
    float w[2] = {0.5f, 0.5f}, world[32] = {0}, p[3] = {0, 1, 0}, o[3] = {7, 7, 7};
    for (int m = 0; m < 2; ++m)
        for (int i = 0; i < 4; ++i) world[16 * m + 5 * i] = 1.0f;
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = 1, d.joint_count = 2, d.influence_count = 2, d.joints = j, d.weights = w;
    sinew_skin *lbs = NULL, *dqs = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &lbs), SINEW_OK);
    d.blend = SINEW_SKIN_BLEND_DUAL_QUATERNION;
    assert_int_equal(sinew_skin_create(NULL, &d, &dqs), SINEW_OK);
    float lpal[32];
    assert_int_equal(sinew_skin_palette(lbs, world, 2, lpal, sinew_skin_palette_size(lbs)), SINEW_OK);
    sinew_skin_input in = {p, 0, NULL, 0, NULL, 0};
    sinew_skin_output out = {o, 0, NULL, 0, NULL, 0};
    assert_int_equal(sinew_skin_deform(dqs, lpal, 32, &in, &out, 0, 1), SINEW_ERROR_MISMATCH);
    assert_non_null(strstr(sinew_last_error(), "skin palette has 32 floats, but this skin needs 96 (2 joints x 48"));
    assert_true(o[0] == 7.0f && o[1] == 7.0f && o[2] == 7.0f);
    assert_int_equal(sinew_skin_deform(lbs, lpal, 32, &in, &out, 0, 1), SINEW_OK);
    sinew_skin_destroy(lbs);
    sinew_skin_destroy(dqs);
}

/* The mix: factor 0 gives linear blending, 1 dual quaternions, 0.5 the
 * average position. */
static void mixed_blend_interpolates(void **state)
{
    (void)state;
    tube *tb = malloc(sizeof *tb);
    tube_init(tb);
    float *alpha = malloc(NV * sizeof(float));
    for (int v = 0; v < NV; ++v) alpha[v] = (v % 3 == 0) ? 0.0f : (v % 3 == 1) ? 1.0f : 0.5f;
    float world[32];
    mat_trs(0, 1, 0, 0.3, 0, 0.1, 0, 1, 1, 1, world);
    mat_trs(1, 0.2, 0, 2.0, 1, 0, 0.2, 1.3, 0.9, 1, world + 16); /* twist with a stretch */
    float *lp = malloc(3 * NV * sizeof(float)), *ln = malloc(3 * NV * sizeof(float)), *lt = malloc(4 * NV * sizeof(float));
    float *dp = malloc(3 * NV * sizeof(float)), *dn = malloc(3 * NV * sizeof(float)), *dt = malloc(4 * NV * sizeof(float));
    float *mp = malloc(3 * NV * sizeof(float)), *mn = malloc(3 * NV * sizeof(float)), *mt = malloc(4 * NV * sizeof(float));
    sinew_skin *lbs = tube_skin(tb, SINEW_SKIN_BLEND_LINEAR, NULL);
    sinew_skin *dqs = tube_skin(tb, SINEW_SKIN_BLEND_DUAL_QUATERNION, NULL);
    sinew_skin *mix = tube_skin(tb, SINEW_SKIN_BLEND_MIXED, alpha);
    deform(lbs, world, tb, lp, ln, lt);
    deform(dqs, world, tb, dp, dn, dt);
    deform(mix, world, tb, mp, mn, mt);
    double differ = 0.0;
    for (int v = 0; v < NV; ++v) {
        for (int i = 0; i < 3; ++i) {
            float a = alpha[v];
            float ep = a == 0.0f ? lp[3 * v + i] : a == 1.0f ? dp[3 * v + i] : 0.5f * (lp[3 * v + i] + dp[3 * v + i]);
            assert_true(fabsf(mp[3 * v + i] - ep) < 2e-5f);
            if (a == 0.0f) assert_true(fabsf(mn[3 * v + i] - ln[3 * v + i]) < 2e-5f && fabsf(mt[4 * v + i] - lt[4 * v + i]) < 2e-5f);
            if (a == 1.0f) assert_true(fabsf(mn[3 * v + i] - dn[3 * v + i]) < 2e-5f && fabsf(mt[4 * v + i] - dt[4 * v + i]) < 2e-5f);
            differ = fmax(differ, fabs(lp[3 * v + i] - dp[3 * v + i]));
        }
        double nn = 0;
        for (int i = 0; i < 3; ++i) nn += mn[3 * v + i] * mn[3 * v + i];
        assert_true(fabs(nn - 1.0) < 1e-5);
    }
    assert_true(differ > 0.05); /* the two blends really differ here */
    sinew_skin_destroy(lbs), sinew_skin_destroy(dqs), sinew_skin_destroy(mix);
    free(lp), free(ln), free(lt), free(dp), free(dn), free(dt), free(mp), free(mn), free(mt), free(alpha), free(tb);
}

/* One rigid motion G on every joint (non-trivial inverse binds): dual
 * quaternions move positions, normals and tangents rigidly by G. */
static void rigid_motion_is_rigid_under_dqs(void **state)
{
    (void)state;
    tube *tb = malloc(sizeof *tb);
    tube_init(tb);
    float g[16], world[32];
    mat_trs(0.3, -1, 0.5, 2.5, 3, -1, 2, 1, 1, 1, g);
    /* W_j = G * B_j with B_0 = I and B_1 = T(1, 0, 0). */
    memcpy(world, g, sizeof g);
    memcpy(world + 16, g, sizeof g);
    for (int r = 0; r < 3; ++r) world[16 + 12 + r] += g[r];
    float *p = malloc(3 * NV * sizeof(float)), *n = malloc(3 * NV * sizeof(float)), *t = malloc(4 * NV * sizeof(float));
    sinew_skin *dqs = tube_skin(tb, SINEW_SKIN_BLEND_DUAL_QUATERNION, NULL);
    deform(dqs, world, tb, p, n, t);
    for (int v = 0; v < NV; ++v)
        for (int i = 0; i < 3; ++i) {
            const float *P = tb->p + 3 * v, *N = tb->n + 3 * v, *T = tb->t + 4 * v;
            assert_true(fabsf(p[3 * v + i] - (g[i] * P[0] + g[4 + i] * P[1] + g[8 + i] * P[2] + g[12 + i])) < 2e-5f);
            assert_true(fabsf(n[3 * v + i] - (g[i] * N[0] + g[4 + i] * N[1] + g[8 + i] * N[2])) < 2e-5f);
            assert_true(fabsf(t[4 * v + i] - (g[i] * T[0] + g[4 + i] * T[1] + g[8 + i] * T[2])) < 2e-5f);
        }
    sinew_skin_destroy(dqs);
    free(p), free(n), free(t), free(tb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(twisted_cylinder_keeps_its_cross_section),
        cmocka_unit_test(one_joint_reproduces_any_matrix),
        cmocka_unit_test(antipodal_quaternions_take_the_short_way),
        cmocka_unit_test(mixed_blend_interpolates),
        cmocka_unit_test(a_palette_of_the_other_blend_is_a_mismatch),
        cmocka_unit_test(rigid_motion_is_rigid_under_dqs),
    };
    return cmocka_run_group_tests_name("skin dual quaternions", tests, NULL, NULL);
}
