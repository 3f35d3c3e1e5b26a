/* B-spline lattice: creation, control points, evaluation against an
 * independent Cox-de Boor written here, Jacobians against finite differences,
 * the outside policies, one-shot and bound deformation, normals, and every
 * validation path. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support.h"

/* ---- Independent reference -------------------------------------------------- */

/* Clamped uniform knot j of an axis with n control points of order o. */
static double ref_knot(int n, int o, int j)
{
    int p = o - 1, cells = n - p;
    if (j <= p) return 0.0;
    if (j >= n) return 1.0;
    return (double)(j - p) / cells;
}

/* Cox-de Boor recursion straight from its definition; the last span is
 * closed at 1 so that x = 1 belongs to it. */
static double ref_basis(int n, int o, int i, int order, double x)
{
    if (order == 1) {
        double a = ref_knot(n, o, i), b = ref_knot(n, o, i + 1);
        if (x >= a && x < b) return 1.0;
        if (x == 1.0 && b == 1.0 && a < 1.0) return 1.0;
        return 0.0;
    }
    int k = order - 1;
    double v = 0.0;
    double d1 = ref_knot(n, o, i + k) - ref_knot(n, o, i);
    double d2 = ref_knot(n, o, i + k + 1) - ref_knot(n, o, i + 1);
    if (d1 > 0) v += (x - ref_knot(n, o, i)) / d1 * ref_basis(n, o, i, order - 1, x);
    if (d2 > 0) v += (ref_knot(n, o, i + k + 1) - x) / d2 * ref_basis(n, o, i + 1, order - 1, x);
    return v;
}

/* F(u) = sum P_ijk N_i N_j N_k with the lattice's current control points. */
static void ref_eval(const sinew_lattice_info *info, const float *points, const double u[3], double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    for (uint32_t k = 0; k < info->count[2]; ++k) {
        double bk = ref_basis((int)info->count[2], (int)info->order[2], (int)k, (int)info->order[2], u[2]);
        if (bk == 0.0) continue;
        for (uint32_t j = 0; j < info->count[1]; ++j) {
            double bj = ref_basis((int)info->count[1], (int)info->order[1], (int)j, (int)info->order[1], u[1]);
            if (bj == 0.0) continue;
            for (uint32_t i = 0; i < info->count[0]; ++i) {
                double bi = ref_basis((int)info->count[0], (int)info->order[0], (int)i, (int)info->order[0], u[0]);
                size_t idx = i + info->count[0] * (j + (size_t)info->count[1] * k);
                for (int c = 0; c < 3; ++c) out[c] += bi * bj * bk * points[3 * idx + c];
            }
        }
    }
}

/* ---- Helpers ------------------------------------------------------------------ */

static sinew_lattice *make_lattice(uint32_t o0, uint32_t o1, uint32_t o2, uint32_t n0, uint32_t n1, uint32_t n2,
                                   sinew_lattice_outside outside)
{
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    d.order[0] = o0, d.order[1] = o1, d.order[2] = o2;
    d.count[0] = n0, d.count[1] = n1, d.count[2] = n2;
    d.origin[0] = -1.0f, d.origin[1] = 0.5f, d.origin[2] = 2.0f;
    /* An oriented, non-axis-aligned box. */
    const float c = 0.8f, s = 0.6f;
    float axes[3][3] = {{c, s, 0}, {-s, c, 0}, {0, 0, 1}};
    memcpy(d.axes, axes, sizeof axes);
    d.extents[0] = 2.0f, d.extents[1] = 1.5f, d.extents[2] = 3.0f;
    d.outside = outside;
    sinew_lattice *lat = NULL;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_OK);
    return lat;
}

static void randomise(sinew_lattice *lat, support_rng *rng, double amount)
{
    sinew_lattice_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_lattice_get_info(lat, &info), SINEW_OK);
    float *d = malloc(info.point_count * 3 * sizeof(float));
    for (size_t i = 0; i < 3 * info.point_count; ++i) d[i] = (float)support_rng_uniform(rng, -amount, amount);
    sinew_points view = {d, info.point_count, 0};
    assert_int_equal(sinew_lattice_set_displacements(lat, &view, 0, view.count), SINEW_OK);
    free(d);
}

static float *current_points(const sinew_lattice *lat, sinew_lattice_info *info)
{
    assert_int_equal(sinew_lattice_get_info(lat, info), SINEW_OK);
    float *p = malloc(info->point_count * 3 * sizeof(float));
    assert_int_equal(sinew_lattice_points(lat, p, 0, 0, info->point_count), SINEW_OK);
    return p;
}

static void box_point(const sinew_lattice_info *info, const double u[3], double out[3])
{
    for (int c = 0; c < 3; ++c) {
        out[c] = info->origin[c];
        for (int a = 0; a < 3; ++a) out[c] += (double)info->axes[a][c] * info->extents[a] * u[a];
    }
}

/* ---- Identity and affine reproduction ----------------------------------------- */

static void identity_for_every_order(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 1);
    for (uint32_t o = 2; o <= SINEW_LATTICE_MAX_ORDER; ++o) {
        sinew_lattice *lat = make_lattice(o, o, o, o + 2, o + 1, o, SINEW_LATTICE_OUTSIDE_EXTEND);
        sinew_lattice_info info;
        SINEW_INIT(&info);
        sinew_lattice_get_info(lat, &info);
        enum { N = 200 };
        float pts[3 * N], out[3 * N], params[3 * N], eval[3 * N];
        for (int i = 0; i < N; ++i) {
            double u[3] = {support_rng_uniform(&rng, -0.2, 1.2), support_rng_uniform(&rng, -0.2, 1.2),
                           support_rng_uniform(&rng, -0.2, 1.2)};
            double p[3];
            box_point(&info, u, p);
            for (int c = 0; c < 3; ++c) pts[3 * i + c] = (float)p[c];
        }
        sinew_points view = {pts, N, 0};
        /* Untouched: every world point comes out bit for bit. */
        assert_int_equal(sinew_lattice_deform(lat, &view, NULL, out, 0, NULL, 0, 0, N), SINEW_OK);
        assert_memory_equal(pts, out, sizeof pts);
        /* In parameter space, F(u) is the box map, and the rest lattice's
         * Greville points give it exactly up to rounding: check through
         * control points equal to the rest points set explicitly. */
        float *rest = malloc(info.point_count * 3 * sizeof(float));
        assert_int_equal(sinew_lattice_rest_points(lat, rest, 0, 0, info.point_count), SINEW_OK);
        sinew_points rv = {rest, info.point_count, 0};
        assert_int_equal(sinew_lattice_set_points(lat, &rv, 0, rv.count), SINEW_OK);
        assert_int_equal(sinew_lattice_parameters(lat, &view, params, 0, 0, N), SINEW_OK);
        sinew_points pv = {params, N, 0};
        assert_int_equal(sinew_lattice_evaluate(lat, &pv, eval, 0, NULL, 0, 0, N), SINEW_OK);
        for (int i = 0; i < 3 * N; ++i) assert_true(fabsf(eval[i] - pts[i]) < 2e-5f * (1.0f + fabsf(pts[i])));
        /* And the reference sum over the rest points reproduces the box map. */
        for (int i = 0; i < 20; ++i) {
            double u[3] = {support_rng_uniform(&rng, 0, 1), support_rng_uniform(&rng, 0, 1),
                           support_rng_uniform(&rng, 0, 1)};
            double ref[3], box[3];
            ref_eval(&info, rest, u, ref);
            box_point(&info, u, box);
            for (int c = 0; c < 3; ++c) assert_true(fabs(ref[c] - box[c]) < 1e-5);
        }
        free(rest);
        sinew_lattice_destroy(lat);
    }
}

static void affine_map_reproduced_for_every_order(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 2);
    const double A[9] = {1.1, 0.2, -0.1, -0.3, 0.9, 0.25, 0.05, 0.4, 1.3}; /* column-major */
    const double t[3] = {0.5, -2.0, 1.0};
    for (uint32_t o = 2; o <= SINEW_LATTICE_MAX_ORDER; ++o) {
        sinew_lattice *lat = make_lattice(o, o == 2 ? 3 : o - 1, o, o + 3, o + 1, o, SINEW_LATTICE_OUTSIDE_EXTEND);
        sinew_lattice_info info;
        SINEW_INIT(&info);
        float *pts = current_points(lat, &info);
        for (size_t i = 0; i < info.point_count; ++i) {
            double p[3] = {pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]};
            for (int r = 0; r < 3; ++r) pts[3 * i + r] = (float)(A[r] * p[0] + A[3 + r] * p[1] + A[6 + r] * p[2] + t[r]);
        }
        sinew_points cv = {pts, info.point_count, 0};
        assert_int_equal(sinew_lattice_set_points(lat, &cv, 0, cv.count), SINEW_OK);
        enum { N = 300 };
        float in[3 * N], out[3 * N];
        for (int i = 0; i < N; ++i) {
            /* inside and outside: EXTEND keeps affine maps affine */
            double u[3] = {support_rng_uniform(&rng, -0.3, 1.3), support_rng_uniform(&rng, -0.3, 1.3),
                           support_rng_uniform(&rng, -0.3, 1.3)};
            double p[3];
            box_point(&info, u, p);
            for (int c = 0; c < 3; ++c) in[3 * i + c] = (float)p[c];
        }
        sinew_points view = {in, N, 0};
        assert_int_equal(sinew_lattice_deform(lat, &view, NULL, out, 0, NULL, 0, 0, N), SINEW_OK);
        for (int i = 0; i < N; ++i) {
            const float *p = in + 3 * i;
            for (int r = 0; r < 3; ++r) {
                double want = A[r] * p[0] + A[3 + r] * p[1] + A[6 + r] * p[2] + t[r];
                assert_true(fabs(out[3 * i + r] - want) < 2e-5 * (1.0 + fabs(want)));
            }
        }
        free(pts);
        sinew_lattice_destroy(lat);
    }
}

/* ---- Evaluation against Cox-de Boor; Jacobian against finite differences ------- */

static void evaluation_matches_cox_de_boor(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 3);
    const uint32_t orders[][3] = {{2, 2, 2}, {3, 4, 2}, {4, 4, 4}, {5, 3, 6}, {6, 6, 6}, {8, 7, 2}};
    for (size_t c = 0; c < sizeof orders / sizeof orders[0]; ++c) {
        const uint32_t *o = orders[c];
        sinew_lattice *lat = make_lattice(o[0], o[1], o[2], o[0] + 3, o[1] + 2, o[2] + 1, SINEW_LATTICE_OUTSIDE_LEAVE);
        randomise(lat, &rng, 0.4);
        sinew_lattice_info info;
        SINEW_INIT(&info);
        float *pts = current_points(lat, &info);
        enum { N = 100 };
        float params[3 * N], out[3 * N];
        for (int i = 0; i < 3 * N; ++i) params[i] = (float)support_rng_uniform(&rng, 0.0, 1.0);
        /* knot values and the ends exactly */
        params[0] = 0.0f, params[1] = 0.0f, params[2] = 0.0f;
        params[3] = 1.0f, params[4] = 1.0f, params[5] = 1.0f;
        params[6] = 1.0f / (float)(info.cells[0]), params[7] = 0.5f, params[8] = 1.0f;
        sinew_points pv = {params, N, 0};
        assert_int_equal(sinew_lattice_evaluate(lat, &pv, out, 0, NULL, 0, 0, N), SINEW_OK);
        for (int i = 0; i < N; ++i) {
            double u[3] = {params[3 * i], params[3 * i + 1], params[3 * i + 2]}, ref[3];
            ref_eval(&info, pts, u, ref);
            for (int k = 0; k < 3; ++k) assert_true(fabs(out[3 * i + k] - ref[k]) < 3e-5 * (1.0 + fabs(ref[k])));
        }
        free(pts);
        sinew_lattice_destroy(lat);
    }
}

static void jacobian_matches_finite_differences(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 4);
    for (uint32_t o = 2; o <= 6; ++o) {
        sinew_lattice *lat = make_lattice(o, o, o, o + 2, o + 3, o + 1, SINEW_LATTICE_OUTSIDE_EXTEND);
        randomise(lat, &rng, 0.3);
        sinew_lattice_info info;
        SINEW_INIT(&info);
        float *pts = current_points(lat, &info);
        for (int n = 0; n < 40; ++n) {
            float u[3];
            for (int a = 0; a < 3; ++a) u[a] = (float)support_rng_uniform(&rng, 0.01, 0.99);
            float jac[9];
            sinew_points pv = {u, 1, 0};
            assert_int_equal(sinew_lattice_evaluate(lat, &pv, NULL, 0, jac, 0, 0, 1), SINEW_OK);
            for (int a = 0; a < 3; ++a) {
                const double h = 1e-5;
                double up[3] = {u[0], u[1], u[2]}, um[3] = {u[0], u[1], u[2]}, fp[3], fm[3];
                up[a] += h, um[a] -= h;
                ref_eval(&info, pts, up, fp);
                ref_eval(&info, pts, um, fm);
                for (int c = 0; c < 3; ++c) {
                    double fd = (fp[c] - fm[c]) / (2 * h);
                    /* a knot may sit between the two samples: C^(o-2) only */
                    double tol = o == 2 ? 5e-2 : 2e-3;
                    assert_true(fabs(jac[3 * a + c] - fd) < tol * (1.0 + fabs(fd)));
                }
            }
        }
        free(pts);
        sinew_lattice_destroy(lat);
    }
}

static void parameters_invert_the_box(void **state)
{
    (void)state;
    sinew_lattice *lat = make_lattice(3, 3, 3, 5, 5, 5, SINEW_LATTICE_OUTSIDE_LEAVE);
    sinew_lattice_info info;
    SINEW_INIT(&info);
    sinew_lattice_get_info(lat, &info);
    double u[3] = {0.25, 0.5, 0.75}, p[3];
    box_point(&info, u, p);
    float pf[3] = {(float)p[0], (float)p[1], (float)p[2]}, back[3];
    sinew_points v = {pf, 1, 0};
    assert_int_equal(sinew_lattice_parameters(lat, &v, back, 0, 0, 1), SINEW_OK);
    for (int a = 0; a < 3; ++a) assert_true(fabs(back[a] - u[a]) < 1e-6);
    sinew_lattice_destroy(lat);
}

/* ---- Outside policies ------------------------------------------------------------ */

static void outside_policies(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 5);
    sinew_lattice_outside pol[3] = {SINEW_LATTICE_OUTSIDE_LEAVE, SINEW_LATTICE_OUTSIDE_CLAMP,
                                    SINEW_LATTICE_OUTSIDE_EXTEND};
    for (int k = 0; k < 3; ++k) {
        sinew_lattice *lat = make_lattice(4, 4, 4, 6, 6, 6, pol[k]);
        randomise(lat, &rng, 0.2);
        sinew_lattice_info info;
        SINEW_INIT(&info);
        float *pts = current_points(lat, &info);
        /* A point beyond the u = 1 face, and its projection on the face. */
        double uo[3] = {1.3, 0.4, 0.6}, ub[3] = {1.0, 0.4, 0.6}, po[3], pb[3], fb[3];
        box_point(&info, uo, po);
        box_point(&info, ub, pb);
        ref_eval(&info, pts, ub, fb);
        float in[3] = {(float)po[0], (float)po[1], (float)po[2]}, out[3];
        sinew_points v = {in, 1, 0};
        assert_int_equal(sinew_lattice_deform(lat, &v, NULL, out, 0, NULL, 0, 0, 1), SINEW_OK);
        if (pol[k] == SINEW_LATTICE_OUTSIDE_LEAVE) {
            assert_memory_equal(in, out, sizeof in);
        } else if (pol[k] == SINEW_LATTICE_OUTSIDE_CLAMP) {
            /* moves with the boundary point: po + (F(ub) - box(ub)) */
            for (int c = 0; c < 3; ++c) assert_true(fabs(out[c] - (po[c] + fb[c] - pb[c])) < 1e-4);
        } else {
            /* first-order continuation along u: F(ub) + dF/du (0.3) */
            float uf[3] = {1.0f, 0.4f, 0.6f}, jac[9];
            sinew_points pv = {uf, 1, 0};
            assert_int_equal(sinew_lattice_evaluate(lat, &pv, NULL, 0, jac, 0, 0, 1), SINEW_OK);
            for (int c = 0; c < 3; ++c) assert_true(fabs(out[c] - (fb[c] + 0.3 * jac[c])) < 1e-4);
        }
        free(pts);
        sinew_lattice_destroy(lat);
    }
}

/* ---- Control points ------------------------------------------------------------------ */

static void control_points_round_trip(void **state)
{
    (void)state;
    sinew_lattice *lat = make_lattice(3, 4, 2, 4, 5, 3, SINEW_LATTICE_OUTSIDE_LEAVE);
    sinew_lattice_info info;
    SINEW_INIT(&info);
    sinew_lattice_get_info(lat, &info);
    assert_int_equal(info.point_count, 60);
    assert_int_equal(info.cells[0], 2);
    assert_int_equal(info.cells[1], 2);
    assert_int_equal(info.cells[2], 2);
    float rest[3 * 60], pts[3 * 60], disp[3 * 60];
    assert_int_equal(sinew_lattice_rest_points(lat, rest, 0, 0, 60), SINEW_OK);
    /* Greville: order 3 over 4 points: knots 0 0 0 .5 1 1 1 -> 0, .25, .75, 1 */
    double want_u[4] = {0.0, 0.25, 0.75, 1.0};
    for (int i = 0; i < 4; ++i) {
        double u[3] = {want_u[i], 0.0, 0.0}, p[3];
        box_point(&info, u, p);
        for (int c = 0; c < 3; ++c) assert_true(fabs(rest[3 * i + c] - p[c]) < 1e-6);
    }
    /* set arbitrary positions for a block, read them back as positions and
     * as displacements */
    float block[3 * 5] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, -1, -2, -3};
    /* The view is indexed by control point: points 7..11 are its elements 7..11;
     * NaN elsewhere proves nothing outside the range is read. */
    float whole[3 * 12];
    for (int i = 0; i < 3 * 12; ++i) whole[i] = i >= 3 * 7 ? block[i - 3 * 7] : NAN;
    sinew_points bv = {whole, 12, 0};
    assert_int_equal(sinew_lattice_set_points(lat, &bv, 7, 5), SINEW_OK);
    assert_int_equal(sinew_lattice_points(lat, pts, 0, 0, 60), SINEW_OK);
    assert_int_equal(sinew_lattice_displacements(lat, disp, 0, 0, 60), SINEW_OK);
    for (int i = 0; i < 60; ++i)
        for (int c = 0; c < 3; ++c) {
            float want = i >= 7 && i < 12 ? block[3 * (i - 7) + c] : rest[3 * i + c];
            assert_true(fabsf(pts[3 * i + c] - want) < 1e-5f);
            assert_true(fabsf(disp[3 * i + c] - (want - rest[3 * i + c])) < 1e-5f);
        }
    /* strided read of one point */
    float wide[10 * 4];   /* point i at byte i * 16: points 8 and 9 at wide[32], wide[36] */
    assert_int_equal(sinew_lattice_points(lat, wide, 4 * sizeof(float), 8, 2), SINEW_OK);
    assert_true(fabsf(wide[32] - 4) < 1e-5f && fabsf(wide[36] - 7) < 1e-5f);
    sinew_lattice_reset(lat);
    assert_int_equal(sinew_lattice_displacements(lat, disp, 0, 0, 60), SINEW_OK);
    for (int i = 0; i < 180; ++i) assert_true(disp[i] == 0.0f);
    sinew_lattice_destroy(lat);
}

/* ---- Normals ------------------------------------------------------------------------ */

static void normals_follow_inverse_transpose(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 6);
    sinew_lattice *lat = make_lattice(4, 3, 4, 6, 5, 5, SINEW_LATTICE_OUTSIDE_CLAMP);
    randomise(lat, &rng, 0.15);
    sinew_lattice_info info;
    SINEW_INIT(&info);
    sinew_lattice_get_info(lat, &info);
    for (int n = 0; n < 50; ++n) {
        double u[3] = {support_rng_uniform(&rng, 0.05, 0.95), support_rng_uniform(&rng, 0.05, 0.95),
                       support_rng_uniform(&rng, 0.05, 0.95)};
        double p[3];
        box_point(&info, u, p);
        float nrm[3];
        double len = 0;
        for (int c = 0; c < 3; ++c) {
            nrm[c] = (float)support_rng_uniform(&rng, -1, 1);
            len += nrm[c] * nrm[c];
        }
        for (int c = 0; c < 3; ++c) nrm[c] = (float)(nrm[c] / sqrt(len));
        /* two tangents perpendicular to the normal, deformed by finite
         * differences of the deformation: the deformed normal must be
         * perpendicular to both */
        double t1[3], t2[3];
        double ax[3] = {fabs(nrm[0]) < 0.9 ? 1.0 : 0.0, fabs(nrm[0]) < 0.9 ? 0.0 : 1.0, 0.0};
        t1[0] = nrm[1] * ax[2] - nrm[2] * ax[1];
        t1[1] = nrm[2] * ax[0] - nrm[0] * ax[2];
        t1[2] = nrm[0] * ax[1] - nrm[1] * ax[0];
        t2[0] = nrm[1] * t1[2] - nrm[2] * t1[1];
        t2[1] = nrm[2] * t1[0] - nrm[0] * t1[2];
        t2[2] = nrm[0] * t1[1] - nrm[1] * t1[0];
        const double h = 1e-3;
        float in[5 * 3];
        for (int c = 0; c < 3; ++c) {
            in[c] = (float)p[c];
            in[3 + c] = (float)(p[c] + h * t1[c]);
            in[6 + c] = (float)(p[c] - h * t1[c]);
            in[9 + c] = (float)(p[c] + h * t2[c]);
            in[12 + c] = (float)(p[c] - h * t2[c]);
        }
        float out[15], nout[15];
        float nin[15];
        for (int k = 0; k < 5; ++k) memcpy(nin + 3 * k, nrm, sizeof nrm);
        sinew_points pv = {in, 5, 0}, nv = {nin, 5, 0};
        assert_int_equal(sinew_lattice_deform(lat, &pv, &nv, out, 0, nout, 0, 0, 5), SINEW_OK);
        double d1[3], d2[3], l1 = 0, l2 = 0, dot1 = 0, dot2 = 0, nl = 0;
        for (int c = 0; c < 3; ++c) {
            d1[c] = out[3 + c] - out[6 + c];
            d2[c] = out[9 + c] - out[12 + c];
            l1 += d1[c] * d1[c];
            l2 += d2[c] * d2[c];
            dot1 += d1[c] * nout[c];
            dot2 += d2[c] * nout[c];
            nl += nout[c] * nout[c];
        }
        assert_true(fabs(sqrt(nl) - 1.0) < 1e-5);
        assert_true(fabs(dot1) / sqrt(l1) < 2e-3);
        assert_true(fabs(dot2) / sqrt(l2) < 2e-3);
        /* orientation kept: the deformed normal points to the same side as the
         * image of a small step along the normal */
        float step[3] = {(float)(p[0] + 1e-3 * nrm[0]), (float)(p[1] + 1e-3 * nrm[1]), (float)(p[2] + 1e-3 * nrm[2])};
        float sout[3];
        sinew_points sv = {step, 1, 0};
        assert_int_equal(sinew_lattice_deform(lat, &sv, NULL, sout, 0, NULL, 0, 0, 1), SINEW_OK);
        double side = 0;
        for (int c = 0; c < 3; ++c) side += (sout[c] - out[c]) * nout[c];
        assert_true(side > 0);
    }
    sinew_lattice_destroy(lat);
}

/* ---- Bound deformation -------------------------------------------------------------------- */

static void bound_matches_one_shot(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 7);
    const uint32_t orders[][3] = {{4, 4, 4}, {4, 2, 5}, {2, 3, 4}, {6, 6, 6}};
    for (size_t oc = 0; oc < 4; ++oc)
        for (int pol = 0; pol < 3; ++pol) {
            const uint32_t *o = orders[oc];
            sinew_lattice *lat = make_lattice(o[0], o[1], o[2], o[0] + 4, o[1] + 2, o[2] + 3, (sinew_lattice_outside)pol);
            sinew_lattice_info info;
            SINEW_INIT(&info);
            sinew_lattice_get_info(lat, &info);
            enum { N = 257 };
            float pts[3 * N], nrm[3 * N];
            for (int i = 0; i < N; ++i) {
                double u[3] = {support_rng_uniform(&rng, -0.2, 1.2), support_rng_uniform(&rng, -0.2, 1.2),
                               support_rng_uniform(&rng, -0.2, 1.2)};
                double p[3];
                box_point(&info, u, p);
                for (int c = 0; c < 3; ++c) {
                    pts[3 * i + c] = (float)p[c];
                    nrm[3 * i + c] = c == 1 ? 1.0f : 0.0f;
                }
            }
            sinew_lattice_binding_desc bd;
            SINEW_INIT(&bd);
            bd.points = (sinew_points){pts, N, 0};
            bd.normals = (sinew_points){nrm, N, 0};
            sinew_lattice_binding *b = NULL, *bp = NULL;
            assert_int_equal(sinew_lattice_binding_create(NULL, lat, &bd, &b), SINEW_OK);
            bd.normals.count = 0;
            assert_int_equal(sinew_lattice_binding_create(NULL, lat, &bd, &bp), SINEW_OK);
            assert_int_equal(sinew_lattice_binding_count(b), N);
            /* the lattice moves after binding; the binding follows */
            for (int frame = 0; frame < 2; ++frame) {
                randomise(lat, &rng, 0.2);
                float a[3 * N], an[3 * N], c[4 * N], cn[4 * N], d[3 * N];
                sinew_points pv = bd.points, nv = {nrm, N, 0};
                assert_int_equal(sinew_lattice_deform(lat, &pv, &nv, a, 0, an, 0, 0, N), SINEW_OK);
                /* two ranges, strided output */
                assert_int_equal(sinew_lattice_binding_deform(b, lat, c, 16, cn, 16, 0, 100), SINEW_OK);
                assert_int_equal(sinew_lattice_binding_deform(b, lat, c, 16, cn, 16, 100, N - 100), SINEW_OK);
                assert_int_equal(sinew_lattice_binding_deform(bp, lat, d, 0, NULL, 0, 0, N), SINEW_OK);
                for (int i = 0; i < N; ++i)
                    for (int k = 0; k < 3; ++k) {
                        assert_true(fabsf(a[3 * i + k] - c[4 * i + k]) < 1e-5f * (1 + fabsf(a[3 * i + k])));
                        assert_true(fabsf(a[3 * i + k] - d[3 * i + k]) < 1e-5f * (1 + fabsf(a[3 * i + k])));
                        assert_true(fabsf(an[3 * i + k] - cn[4 * i + k]) < 1e-4f);
                    }
            }
            sinew_lattice_binding_destroy(b);
            sinew_lattice_binding_destroy(bp);
            sinew_lattice_destroy(lat);
        }
}

static void bound_parameter_space_matches_evaluate(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 8);
    sinew_lattice *lat = make_lattice(3, 4, 5, 7, 6, 5, SINEW_LATTICE_OUTSIDE_CLAMP);
    enum { N = 100 };
    float params[3 * N], a[3 * N], b[3 * N];
    for (int i = 0; i < 3 * N; ++i) params[i] = (float)support_rng_uniform(&rng, -0.1, 1.1);
    sinew_lattice_binding_desc bd;
    SINEW_INIT(&bd);
    bd.points = (sinew_points){params, N, 0};
    bd.space = SINEW_LATTICE_SPACE_PARAMETER;
    sinew_lattice_binding *bind = NULL;
    assert_int_equal(sinew_lattice_binding_create(NULL, lat, &bd, &bind), SINEW_OK);
    randomise(lat, &rng, 0.3);
    assert_int_equal(sinew_lattice_evaluate(lat, &bd.points, a, 0, NULL, 0, 0, N), SINEW_OK);
    assert_int_equal(sinew_lattice_binding_deform(bind, lat, b, 0, NULL, 0, 0, N), SINEW_OK);
    for (int i = 0; i < 3 * N; ++i) assert_true(fabsf(a[i] - b[i]) < 1e-5f * (1 + fabsf(a[i])));
    /* a lattice of another structure is refused */
    sinew_lattice *other = make_lattice(3, 4, 5, 7, 6, 6, SINEW_LATTICE_OUTSIDE_CLAMP);
    assert_int_equal(sinew_lattice_binding_deform(bind, other, b, 0, NULL, 0, 0, N), SINEW_ERROR_MISMATCH);
    assert_int_equal(sinew_lattice_binding_deform(bind, lat, b, 0, b, 0, 0, N), SINEW_ERROR_INVALID_STATE);
    assert_int_equal(sinew_lattice_binding_deform(bind, lat, b, 0, NULL, 0, 50, 51), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_int_equal(sinew_lattice_binding_deform(bind, lat, b, 8, NULL, 0, 0, N), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_lattice_destroy(other);
    sinew_lattice_binding_destroy(bind);
    sinew_lattice_destroy(lat);
}

/* ---- Validation -------------------------------------------------------------------------------- */

static void create_validation(void **state)
{
    (void)state;
    sinew_lattice *lat = (sinew_lattice *)(uintptr_t)0x1;
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    assert_int_equal(sinew_lattice_create(NULL, NULL, &lat), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_lattice_create(NULL, &d, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    d.order[1] = 9;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "axis v"));
    d.order[1] = 1;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_ERROR_INVALID_ARGUMENT);
    d.order[1] = 0;
    d.order[2] = 5, d.count[2] = 4; /* order larger than the lattice */
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "fewer than its order"));
    d.order[2] = 0, d.count[2] = 0;
    d.extents[0] = 1, d.extents[1] = 0, d.extents[2] = 1; /* zero extent */
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_ERROR_DEGENERATE);
    assert_non_null(strstr(sinew_last_error(), "extent v"));
    d.extents[1] = -2;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_ERROR_DEGENERATE);
    d.extents[1] = NAN;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_ERROR_NON_FINITE);
    d.extents[1] = 1;
    d.origin[2] = INFINITY;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_ERROR_NON_FINITE);
    d.origin[2] = 0;
    float dep[3][3] = {{1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    memcpy(d.axes, dep, sizeof dep);
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_ERROR_DEGENERATE);
    assert_non_null(strstr(sinew_last_error(), "dependent"));
    float zero_axis[3][3] = {{1, 0, 0}, {0, 0, 0}, {0, 0, 1}};
    memcpy(d.axes, zero_axis, sizeof zero_axis);
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_ERROR_DEGENERATE);
    memset(d.axes, 0, sizeof d.axes);
    d.outside = (sinew_lattice_outside)7;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_ERROR_INVALID_ARGUMENT);
    assert_true(lat == (sinew_lattice *)(uintptr_t)0x1); /* untouched */
    /* all-zero desc: a cubic Bezier cell over the unit cube */
    SINEW_INIT(&d);
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_OK);
    sinew_lattice_info info;
    SINEW_INIT(&info);
    sinew_lattice_get_info(lat, &info);
    assert_int_equal(info.order[0], 4);
    assert_int_equal(info.count[2], 4);
    assert_true(info.extents[1] == 1.0f && info.axes[2][2] == 1.0f);
    sinew_lattice_destroy(lat);
    sinew_lattice_destroy(NULL);
}

static void call_validation(void **state)
{
    (void)state;
    sinew_lattice *lat = make_lattice(3, 3, 3, 4, 4, 4, SINEW_LATTICE_OUTSIDE_LEAVE);
    float pts[6] = {0, 0, 0, 1, NAN, 0}, out[6] = {7, 7, 7, 7, 7, 7};
    sinew_points v = {pts, 2, 0};
    assert_int_equal(sinew_lattice_deform(lat, &v, NULL, out, 0, NULL, 0, 0, 2), SINEW_ERROR_NON_FINITE);
    assert_non_null(strstr(sinew_last_error(), "point 1"));
    assert_true(out[0] == 7 && out[3] == 7); /* untouched */
    assert_int_equal(sinew_lattice_deform(lat, &v, NULL, out, 0, NULL, 0, 0, 1), SINEW_OK);
    assert_int_equal(sinew_lattice_deform(lat, &v, NULL, out, 0, NULL, 0, 1, 2), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_int_equal(sinew_lattice_deform(NULL, &v, NULL, out, 0, NULL, 0, 0, 1), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_lattice_deform(lat, NULL, NULL, out, 0, NULL, 0, 0, 1), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_lattice_deform(lat, &v, NULL, NULL, 0, NULL, 0, 0, 1), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_lattice_deform(lat, &v, NULL, out, 4, NULL, 0, 0, 1), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_lattice_deform(lat, &v, NULL, out, 0, out, 0, 0, 1), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_points one = {pts, 1, 0};
    assert_int_equal(sinew_lattice_deform(lat, &v, &one, out, 0, out, 0, 0, 1), SINEW_ERROR_MISMATCH);
    assert_int_equal(sinew_lattice_evaluate(lat, &v, NULL, 0, NULL, 0, 0, 1), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_lattice_evaluate(lat, &v, out, 0, out, 12, 0, 1), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_lattice_parameters(lat, &v, out, 0, 1, 1), SINEW_ERROR_NON_FINITE);
    /* control point access */
    float big[3] = {3e38f, 0, 0};
    sinew_points bv = {big, 1, 0};
    assert_int_equal(sinew_lattice_set_displacements(lat, &bv, 64, bv.count), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_int_equal(sinew_lattice_set_points(lat, &v, 0, v.count), SINEW_ERROR_NON_FINITE);
    assert_int_equal(sinew_lattice_points(lat, out, 0, 63, 2), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_int_equal(sinew_lattice_points(lat, NULL, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_lattice_get_info(lat, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    /* bind */
    sinew_lattice_binding *b = (sinew_lattice_binding *)(uintptr_t)0x1;
    sinew_lattice_binding_desc bd;
    SINEW_INIT(&bd);
    assert_int_equal(sinew_lattice_binding_create(NULL, lat, &bd, &b), SINEW_ERROR_INVALID_ARGUMENT);
    bd.points = v;
    assert_int_equal(sinew_lattice_binding_create(NULL, lat, &bd, &b), SINEW_ERROR_NON_FINITE);
    bd.points = one;
    bd.normals = v;
    assert_int_equal(sinew_lattice_binding_create(NULL, lat, &bd, &b), SINEW_ERROR_MISMATCH);
    bd.normals.count = 0;
    bd.space = (sinew_lattice_space)3;
    assert_int_equal(sinew_lattice_binding_create(NULL, lat, &bd, &b), SINEW_ERROR_INVALID_ARGUMENT);
    assert_true(b == (sinew_lattice_binding *)(uintptr_t)0x1);
    sinew_lattice_binding_destroy(NULL);
    assert_int_equal(sinew_lattice_binding_count(NULL), 0);
    sinew_lattice_destroy(lat);
}

/* ---- Allocation failures ---------------------------------------------------------------------- */

static sinew_result attempt_create_bind(sinew_context *ctx, void *user)
{
    (void)user;
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    d.count[0] = d.count[1] = d.count[2] = 6;
    sinew_lattice *lat = NULL;
    sinew_result r = sinew_lattice_create(ctx, &d, &lat);
    if (r != SINEW_OK) return r;
    float pts[9] = {0.1f, 0.2f, 0.3f, 0.5f, 0.5f, 0.5f, 2, 2, 2};
    sinew_lattice_binding_desc bd;
    SINEW_INIT(&bd);
    bd.points = (sinew_points){pts, 3, 0};
    bd.normals = (sinew_points){pts, 3, 0};
    sinew_lattice_binding *b = NULL;
    r = sinew_lattice_binding_create(ctx, lat, &bd, &b);
    sinew_lattice_binding_destroy(b);
    if (r == SINEW_OK) {
        sinew_lattice_fold_report rep;
        SINEW_INIT(&rep);
        uint8_t flags[27];
        r = sinew_lattice_check_folds(NULL, lat, 2, flags, sizeof flags, &rep);
    }
    sinew_lattice_destroy(lat);
    return r;
}

static void allocation_failures(void **state)
{
    (void)state;
    size_t runs = 0;
    char report[256];
    bool ok = support_sweep_allocation_failures(attempt_create_bind, NULL, &runs, report, sizeof report);
    if (!ok) fail_msg("%s", report);
    assert_true(runs >= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identity_for_every_order),
        cmocka_unit_test(affine_map_reproduced_for_every_order),
        cmocka_unit_test(evaluation_matches_cox_de_boor),
        cmocka_unit_test(jacobian_matches_finite_differences),
        cmocka_unit_test(parameters_invert_the_box),
        cmocka_unit_test(outside_policies),
        cmocka_unit_test(control_points_round_trip),
        cmocka_unit_test(normals_follow_inverse_transpose),
        cmocka_unit_test(bound_matches_one_shot),
        cmocka_unit_test(bound_parameter_space_matches_evaluate),
        cmocka_unit_test(create_validation),
        cmocka_unit_test(call_validation),
        cmocka_unit_test(allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
