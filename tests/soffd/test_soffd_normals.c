/* SOFFD normals: mapped by the inverse transpose of the Jacobian assembled
 * from the frames. Rigid motions (both algorithms) and affine maps (extended
 * with exact vertex maps) give the exact normals; with one contributing
 * element (constant weight) the basic normal is perpendicular to the deformed
 * surface's tangents; normals vary continuously along a path; ranges write
 * only their points. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "fixtures.h"

enum { N = 200 };

static sinew_soffd *bound_cage(cage *c, const float *points, size_t n, const sinew_soffd_register_desc *policy)
{
    *c = make_cube_cage(3, 1);
    sinew_polymesh m = cage_polymesh(c, NULL);
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_OK);
    sinew_points p = {points, n, 0};
    assert_int_equal(sinew_soffd_register(NULL, h, &p, policy), SINEW_OK);
    return h;
}

static float *unit_normals(uint64_t seed, size_t n)
{
    float *v = random_points(seed, n, -1, 1);
    for (size_t i = 0; i < n; ++i) {
        float *q = v + 3 * i, len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        for (int a = 0; a < 3; ++a) q[a] /= len;
    }
    return v;
}

/* out = normalise(L^-T n) for the 3x3 part L of column-major m: the cofactor
 * matrix times the sign of det L. */
static void inverse_transpose(const float m[16], const float n[3], double out[3])
{
    const double a[9] = {m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]};
    const double *c0 = a, *c1 = a + 3, *c2 = a + 6;
    double x12[3] = {c1[1] * c2[2] - c1[2] * c2[1], c1[2] * c2[0] - c1[0] * c2[2], c1[0] * c2[1] - c1[1] * c2[0]};
    double x20[3] = {c2[1] * c0[2] - c2[2] * c0[1], c2[2] * c0[0] - c2[0] * c0[2], c2[0] * c0[1] - c2[1] * c0[0]};
    double x01[3] = {c0[1] * c1[2] - c0[2] * c1[1], c0[2] * c1[0] - c0[0] * c1[2], c0[0] * c1[1] - c0[1] * c1[0]};
    double len = 0, sign = c0[0] * x12[0] + c0[1] * x12[1] + c0[2] * x12[2] < 0 ? -1 : 1;
    for (int r = 0; r < 3; ++r) {
        out[r] = sign * (n[0] * x12[r] + n[1] * x20[r] + n[2] * x01[r]);
        len += out[r] * out[r];
    }
    for (int r = 0; r < 3; ++r) out[r] /= sqrt(len);
}

/* Deforms all points of h with normals by both algorithms (extended with the
 * given vertex maps, or estimated ones when NULL). */
static void deform_both(const sinew_soffd *h, const cage *c, const float *driver_now, const float *maps,
                        const float *normals, float *basic, float *extended)
{
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(h, &info);
    float *frames = malloc(16 * info.element_count * sizeof(float)), *vf = malloc(16 * c->nv * sizeof(float));
    float *pos = malloc(3 * info.point_count * sizeof(float));
    sinew_points d = {driver_now, c->nv, 0}, nv = {normals, info.point_count, 0};
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames, sinew_soffd_element_frames_size(h)), SINEW_OK);
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), &nv, pos, 0, basic, 0, 0, info.point_count), SINEW_OK);
    if (maps) memcpy(vf, maps, 16 * c->nv * sizeof(float));
    else assert_int_equal(sinew_soffd_vertex_frames(h, &d, vf, sinew_soffd_vertex_frames_size(h)), SINEW_OK);
    assert_int_equal(sinew_soffd_deform_extended(h, vf, sinew_soffd_vertex_frames_size(h), &nv, pos, 0, extended, 0, 0, info.point_count), SINEW_OK);
    free(frames);
    free(vf);
    free(pos);
}

static void rigid_and_affine_maps_are_exact(void **state)
{
    (void)state;
    cage c;
    float *points = random_points(3, N, -1.6f, 1.6f), *normals = unit_normals(4, N);
    sinew_soffd *h = bound_cage(&c, points, N, SOFFD_EXACT);
    float *moved = malloc(3 * c.nv * sizeof(float)), *basic = malloc(3 * N * sizeof(float));
    float *extended = malloc(3 * N * sizeof(float)), *maps = malloc(16 * c.nv * sizeof(float));
    /* A rotation about (1, 2, 3) by 1 radian plus a translation. */
    const double ax[3] = {1 / sqrt(14.0), 2 / sqrt(14.0), 3 / sqrt(14.0)}, co = cos(1.0), si = sin(1.0);
    float rigid[16] = {0};
    for (int col = 0; col < 3; ++col)
        for (int r = 0; r < 3; ++r) {
            double cross = 0; /* [ax]_x entry (r, col) */
            if (r == 1 && col == 0) cross = ax[2];
            if (r == 2 && col == 0) cross = -ax[1];
            if (r == 0 && col == 1) cross = -ax[2];
            if (r == 2 && col == 1) cross = ax[0];
            if (r == 0 && col == 2) cross = ax[1];
            if (r == 1 && col == 2) cross = -ax[0];
            rigid[4 * col + r] = (float)((r == col ? co : 0) + si * cross + (1 - co) * ax[r] * ax[col]);
        }
    rigid[12] = 3, rigid[13] = -1, rigid[14] = 0.5f, rigid[15] = 1;
    /* A non-uniform scale with shear (det > 0), and one that mirrors. */
    const float affine[16] = {1.5f, 0.2f, 0, 0, 0.4f, 0.7f, 0.1f, 0, 0, -0.3f, 1.2f, 0, 1, 2, 3, 1};
    const float mirror[16] = {-1.2f, 0, 0, 0, 0.3f, 0.9f, 0, 0, 0, 0, 1.1f, 0, 0, 0, 0, 1};
    const float *cases[3] = {rigid, affine, mirror};
    for (int t = 0; t < 3; ++t) {
        apply_affine(cases[t], c.pos, moved, c.nv);
        for (size_t v = 0; v < c.nv; ++v) memcpy(maps + 16 * v, cases[t], 16 * sizeof(float));
        deform_both(h, &c, moved, maps, normals, basic, extended);
        double worst_basic = 0, worst_ext = 0;
        for (size_t i = 0; i < N; ++i) {
            double want[3];
            inverse_transpose(cases[t], normals + 3 * i, want);
            for (int a = 0; a < 3; ++a) {
                worst_basic = fmax(worst_basic, fabs(basic[3 * i + a] - want[a]));
                worst_ext = fmax(worst_ext, fabs(extended[3 * i + a] - want[a]));
            }
        }
        printf("map %d: largest normal error basic %.3g, extended %.3g\n", t, worst_basic, worst_ext);
        if (t == 0) assert_true(worst_basic <= 1e-5);
        assert_true(worst_ext <= 1e-5);
    }
    sinew_soffd_destroy(h);
    cage_free(&c);
    free(points), free(normals), free(moved), free(basic), free(extended), free(maps);
}

/* Exclusive registration: one element per point, weight 1, so the basic
 * deformation is affine near the point and its normal must be exactly
 * perpendicular to the deformed tangents (finite differences of positions). */
static void constant_weights_give_the_true_normal(void **state)
{
    (void)state;
    enum { P = 40 };
    const float eps = 1e-3f;
    float pts[3 * P * 3], nrm[3 * P * 3];
    support_rng rng;
    support_rng_seed(&rng, 9);
    for (size_t i = 0; i < P; ++i) {
        /* Near the +z face's centre, so the point and its two offsets share the nearest element. */
        float p[3] = {(float)support_rng_uniform(&rng, -0.2, -0.1), (float)support_rng_uniform(&rng, 0.1, 0.2),
                      (float)support_rng_uniform(&rng, 0.7, 1.3)};
        float n[3] = {(float)support_rng_uniform(&rng, -0.5, 0.5), (float)support_rng_uniform(&rng, -0.5, 0.5), 1};
        /* Tangents t1 = (n_z, 0, -n_x) and t2 = n x t1, both perpendicular to n. */
        float t1[3] = {n[2], 0, -n[0]}, t2[3] = {n[1] * t1[2] - n[2] * t1[1], n[2] * t1[0] - n[0] * t1[2],
                                                  n[0] * t1[1] - n[1] * t1[0]};
        for (int a = 0; a < 3; ++a) {
            pts[9 * i + a] = p[a];
            pts[9 * i + 3 + a] = p[a] + eps * t1[a];
            pts[9 * i + 6 + a] = p[a] + eps * t2[a];
            nrm[9 * i + a] = nrm[9 * i + 3 + a] = nrm[9 * i + 6 + a] = n[a];
        }
    }
    cage c;
    sinew_soffd_register_desc exclusive;
    SINEW_INIT(&exclusive);
    exclusive.exclusive = 1;
    sinew_soffd *h = bound_cage(&c, pts, 3 * P, &exclusive);
    float *moved = malloc(3 * c.nv * sizeof(float));
    bend_twist(c.pos, moved, c.nv, 0.6f);
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(h, &info);
    float *frames = malloc(16 * info.element_count * sizeof(float)), pos[3 * P * 3], out_n[3 * P * 3];
    sinew_points d = {moved, c.nv, 0}, nv = {nrm, 3 * P, 0};
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames, sinew_soffd_element_frames_size(h)), SINEW_OK);
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), &nv, pos, 0, out_n, 0, 0, 3 * P), SINEW_OK);
    double worst = 0;
    size_t checked = 0;
    for (size_t i = 0; i < P; ++i) {
        uint32_t e[3];
        for (int k = 0; k < 3; ++k) sinew_soffd_contributors(h, 3 * i + k, &e[k], NULL, 1, &(size_t){0});
        if (e[0] != e[1] || e[0] != e[2]) continue; /* an offset crossed to another element */
        ++checked;
        for (int k = 1; k <= 2; ++k) {
            double t[3], len = 0, dot = 0;
            for (int a = 0; a < 3; ++a) {
                t[a] = pos[9 * i + 3 * k + a] - pos[9 * i + a];
                len += t[a] * t[a];
            }
            for (int a = 0; a < 3; ++a) dot += t[a] / sqrt(len) * out_n[9 * i + a];
            worst = fmax(worst, fabs(dot));
        }
    }
    printf("constant weights: %zu points, largest |n . tangent| %.3g\n", checked, worst);
    assert_true(checked >= P / 2);
    assert_true(worst <= 2e-3); /* the finite difference's own float rounding at eps = 1e-3 */
    sinew_soffd_destroy(h);
    cage_free(&c);
    free(moved), free(frames);
}

/* Along a path through the bent cage's inside and outside, the normals turn
 * gradually: no jump between neighbours 1/400 of the path apart. */
static void normals_are_continuous(void **state)
{
    (void)state;
    enum { S = 400 };
    static float pts[3 * S], nrm[3 * S], basic[3 * S], extended[3 * S];
    for (size_t i = 0; i < S; ++i) {
        float t = (float)i / (S - 1);
        pts[3 * i] = -1.8f + 3.6f * t, pts[3 * i + 1] = 0.3f + 0.9f * t, pts[3 * i + 2] = -0.4f + 1.9f * t;
        nrm[3 * i] = 0.3f, nrm[3 * i + 1] = 1, nrm[3 * i + 2] = 0.2f;
    }
    cage c;
    sinew_soffd *h = bound_cage(&c, pts, S, SOFFD_EXACT);
    float *moved = malloc(3 * c.nv * sizeof(float));
    bend_twist(c.pos, moved, c.nv, 0.8f);
    deform_both(h, &c, moved, NULL, nrm, basic, extended);
    double jb = 0, je = 0;
    for (size_t i = 1; i < S; ++i) {
        double db = 0, de = 0;
        for (int a = 0; a < 3; ++a) {
            db += (basic[3 * i + a] - basic[3 * i - 3 + a]) * (basic[3 * i + a] - basic[3 * i - 3 + a]);
            de += (extended[3 * i + a] - extended[3 * i - 3 + a]) * (extended[3 * i + a] - extended[3 * i - 3 + a]);
        }
        jb = fmax(jb, sqrt(db));
        je = fmax(je, sqrt(de));
    }
    printf("continuity: largest step between neighbouring normals basic %.3g, extended %.3g\n", jb, je);
    assert_true(jb <= 0.05 && je <= 0.05);
    for (size_t i = 0; i < S; ++i) {
        double l = 0;
        for (int a = 0; a < 3; ++a) l += basic[3 * i + a] * basic[3 * i + a];
        assert_true(fabs(sqrt(l) - 1) <= 1e-5);
    }
    sinew_soffd_destroy(h);
    cage_free(&c);
    free(moved);
}

/* A range writes only its points' normals, at absolute indices; points kept
 * at rest (no contributor) get their normal normalised; a zero normal stays zero. */
static void ranges_and_rest_points(void **state)
{
    (void)state;
    float pts[3 * 4] = {0.2f, 0.1f, 1.2f, 5, 5, 5, 0.3f, 0.2f, 0.9f, -0.5f, 0.5f, 1.1f};
    float nrm[3 * 4] = {0, 0, 2, 0, 3, 0, 0, 0, 0, 0, 0, 1};
    cage c;
    sinew_soffd_register_desc near;
    SINEW_INIT(&near);
    near.exact = 1;
    near.max_distance = 1.0f; /* point 1 reaches no element */
    sinew_soffd *h = bound_cage(&c, pts, 4, &near);
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(h, &info);
    assert_int_equal(info.empty_points, 1);
    float *frames = malloc(16 * info.element_count * sizeof(float)), pos[3 * 8], out_n[8 * 4];
    for (int i = 0; i < 32; ++i) out_n[i] = -9;
    sinew_points d = {c.pos, c.nv, 0}, nv = {nrm, 4, 0};
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames, sinew_soffd_element_frames_size(h)), SINEW_OK);
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), &nv, pos, 0, out_n, 8 * sizeof(float), 1, 2), SINEW_OK);
    for (int k = 0; k < 8; ++k) assert_true(out_n[k] == -9);   /* point 0 not in the range */
    for (int k = 24; k < 32; ++k) assert_true(out_n[k] == -9); /* point 3 neither */
    for (int k = 11; k < 16; ++k) assert_true(out_n[k] == -9); /* padding after point 1's normal */
    assert_true(out_n[8] == 0 && out_n[9] == 1 && out_n[10] == 0); /* at rest: (0, 3, 0) normalised */
    assert_true(out_n[16] == 0 && out_n[17] == 0 && out_n[18] == 0); /* a zero normal stays zero */
    sinew_soffd_destroy(h);
    cage_free(&c);
    free(frames);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rigid_and_affine_maps_are_exact),
        cmocka_unit_test(constant_weights_give_the_true_normal),
        cmocka_unit_test(normals_are_continuous),
        cmocka_unit_test(ranges_and_rest_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
