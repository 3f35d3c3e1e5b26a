/* Point location of BBW queries against a straightforward search: at points
 * inside the domain and at points just outside it (within the query's reach),
 * sinew_bbw_point_weights gives the weights interpolated in the element an
 * independent scan of every element picks: the one holding the point, else
 * the one whose clamped barycentric point is nearest. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bbw_fixture.h"
#include "sinew.h"
#include "support.h"

/* Barycentric coordinates of q in tet t (Cramer's rule, doubles). */
static void barycentric(const float *pos, const uint32_t *t, const double q[3], double out[4])
{
    const float *p0 = pos + 3 * t[0];
    double m[3][3], r[3];
    for (int a = 0; a < 3; ++a) {
        for (int k = 0; k < 3; ++k) m[a][k] = (double)pos[3 * t[k + 1] + a] - p0[a];
        r[a] = q[a] - p0[a];
    }
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    double rest = 1.0;
    for (int k = 0; k < 3; ++k) {
        double c[3][3];
        memcpy(c, m, sizeof c);
        for (int a = 0; a < 3; ++a) c[a][k] = r[a];
        out[k + 1] = (c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) -
                      c[0][1] * (c[1][0] * c[2][2] - c[1][2] * c[2][0]) +
                      c[0][2] * (c[1][0] * c[2][1] - c[1][1] * c[2][0])) / det;
        rest -= out[k + 1];
    }
    out[0] = rest;
}

/* The reference: weights at q by scanning every tet. */
static void reference_point_weights(const grid3d *g, const float *vw, size_t m, const double q[3], double *out)
{
    double best_d2 = INFINITY, best_t[4] = {0};
    size_t best = 0;
    for (size_t e = 0; e < g->tet_count; ++e) {
        double t[4], sum = 0.0, x[3] = {0, 0, 0};
        barycentric(g->positions, g->tets + 4 * e, q, t);
        if (t[0] >= 0 && t[1] >= 0 && t[2] >= 0 && t[3] >= 0) {
            best = e, best_d2 = 0.0;
            memcpy(best_t, t, sizeof t);
            break;
        }
        for (int k = 0; k < 4; ++k) sum += t[k] = fmax(t[k], 0.0);
        for (int k = 0; k < 4; ++k) {
            t[k] /= sum;
            for (int a = 0; a < 3; ++a) x[a] += t[k] * g->positions[3 * g->tets[4 * e + k] + a];
        }
        double d2 = 0.0;
        for (int a = 0; a < 3; ++a) d2 += (x[a] - q[a]) * (x[a] - q[a]);
        if (d2 < best_d2) {
            best_d2 = d2, best = e;
            memcpy(best_t, t, sizeof t);
        }
    }
    for (size_t j = 0; j < m; ++j) {
        out[j] = 0.0;
        for (int k = 0; k < 4; ++k) out[j] += best_t[k] * vw[g->tets[4 * best + k] * m + j];
    }
}

static void weights_at_points_match_a_scan_of_every_element(void **state)
{
    (void)state;
    grid3d g;
    grid3d_make(&g, 6, 1.0f);
    const float handles[4 * 3] = {0.1f, 0.1f, 0.1f, 0.9f, 0.1f, 0.1f, 0.1f, 0.9f, 0.1f, 0.5f, 0.5f, 0.9f};
    sinew_tetmesh tets = {{g.positions, g.vertex_count, 0}, g.tets, g.tet_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tets;
    d.points = (sinew_points){handles, 4, 0};
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_OK);
    assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
    const size_t m = 4;
    float *vw = malloc(g.vertex_count * m * sizeof(float));
    assert_int_equal(sinew_bbw_vertex_weights(b, vw, 0, g.vertex_count), SINEW_OK);
    /* 300 points inside, 300 within a twentieth of the cube outside a face. */
    enum { N = 600 };
    float *pts = malloc(3 * N * sizeof(float)), *w = malloc(N * m * sizeof(float));
    support_rng rng;
    support_rng_seed(&rng, 11);
    for (size_t i = 0; i < N; ++i) {
        for (int a = 0; a < 3; ++a) pts[3 * i + a] = (float)support_rng_uniform(&rng, 0.0, 1.0);
        if (i >= N / 2) {
            int axis = (int)(support_rng_next(&rng) % 3);
            double off = support_rng_uniform(&rng, 1e-4, 0.05);
            pts[3 * i + axis] = (float)(support_rng_next(&rng) % 2 ? 1.0 + off : -off);
        }
    }
    sinew_points view = {pts, N, 0};
    assert_int_equal(sinew_bbw_point_weights(b, &view, w, 0, N), SINEW_OK);
    double worst = 0.0;
    for (size_t i = 0; i < N; ++i) {
        double q[3] = {pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]}, ref[4];
        reference_point_weights(&g, vw, m, q, ref);
        for (size_t j = 0; j < m; ++j) worst = fmax(worst, fabs(ref[j] - (double)w[i * m + j]));
    }
    print_message("worst difference from the scan: %.3g\n", worst);
    assert_true(worst <= 1e-6);
    free(pts), free(w), free(vw);
    sinew_bbw_destroy(b);
    grid3d_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(weights_at_points_match_a_scan_of_every_element),
    };
    return cmocka_run_group_tests_name("bbw-locate", tests, NULL, NULL);
}
