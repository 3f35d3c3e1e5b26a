/*
 * Small 3D tet domains against an exact dense solve. The reference builds the
 * QP from the fixture's own operators (Q = K M^-1 K, cotangents from dihedral
 * angles, not the library's basis gradients) and solves it exactly: a
 * primal-dual active-set method, each step one dense KKT solve (Gaussian
 * elimination) on the rows' supports, started with every weight free,
 * stopped when the KKT conditions hold (weights >= 0 and the
 * multipliers of the zero weights >= 0, to rounding), which for this convex
 * problem proves the minimiser. sinew's weights must then be within their
 * certified bound of it, in the bound's norm (mass-weighted RMS over the free
 * vertices), at OK and after capped, unconverged solves alike.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bbw_fixture.h"
#include "sinew.h"
#include "support.h"

/* Solves a (n x n, row-major, overwritten) x = b (overwritten with x) by
 * Gaussian elimination with partial pivoting. */
static void dense_solve(double *a, double *b, size_t n)
{
    for (size_t p = 0; p < n; ++p) {
        size_t best = p;
        for (size_t r = p + 1; r < n; ++r)
            if (fabs(a[r * n + p]) > fabs(a[best * n + p])) best = r;
        if (best != p) {
            for (size_t c = 0; c < n; ++c) {
                double t = a[p * n + c];
                a[p * n + c] = a[best * n + c];
                a[best * n + c] = t;
            }
            double t = b[p];
            b[p] = b[best];
            b[best] = t;
        }
        assert_true(a[p * n + p] != 0.0);
        for (size_t r = p + 1; r < n; ++r) {
            double l = a[r * n + p] / a[p * n + p];
            if (l == 0.0) continue;
            for (size_t c = p; c < n; ++c) a[r * n + c] -= l * a[p * n + c];
            b[r] -= l * b[p];
        }
    }
    for (size_t p = n; p-- > 0;) {
        double s = b[p];
        for (size_t c = p + 1; c < n; ++c) s -= a[p * n + c] * b[c];
        b[p] = s / a[p * n + p];
    }
}

/* One KKT solve on the supports (support[v * m + j]: w_vj may be nonzero):
 * for every free v and j in its support (Q w_j)_v = mu_v, and the support's
 * weights sum to 1; the other weights are 0, fixed rows as given. Writes w
 * (n x m) and mu (n). */
static void kkt_solve(const double *q, size_t n, size_t m, const uint8_t *fixed, const double *rows,
                      const uint8_t *support, double *w, double *mu)
{
    size_t *col = malloc(n * m * sizeof *col), *mu_col = malloc(n * sizeof *mu_col), unknowns = 0;
    for (size_t v = 0; v < n; ++v)
        for (size_t j = 0; j < m; ++j) col[v * m + j] = !fixed[v] && support[v * m + j] ? unknowns++ : SIZE_MAX;
    for (size_t v = 0; v < n; ++v) mu_col[v] = fixed[v] ? SIZE_MAX : unknowns++;
    double *a = calloc(unknowns * unknowns, sizeof *a), *b = calloc(unknowns, sizeof *b);
    for (size_t v = 0; v < n; ++v) {
        if (fixed[v]) continue;
        for (size_t j = 0; j < m; ++j) {
            size_t r = col[v * m + j];
            if (r == SIZE_MAX) continue;
            for (size_t u = 0; u < n; ++u) {
                double quv = q[v * n + u];
                if (quv == 0.0) continue;
                if (fixed[u]) b[r] -= quv * rows[u * m + j];
                else if (col[u * m + j] != SIZE_MAX) a[r * unknowns + col[u * m + j]] += quv;
            }
            a[r * unknowns + mu_col[v]] = -1.0;
            a[mu_col[v] * unknowns + r] = 1.0;
        }
        b[mu_col[v]] = 1.0;
    }
    dense_solve(a, b, unknowns);
    for (size_t v = 0; v < n; ++v) {
        mu[v] = fixed[v] ? 0.0 : b[mu_col[v]];
        for (size_t j = 0; j < m; ++j)
            w[v * m + j] = fixed[v] ? rows[v * m + j] : col[v * m + j] != SIZE_MAX ? b[col[v * m + j]] : 0.0;
    }
    free(a);
    free(b);
    free(col);
    free(mu_col);
}

/* The exact minimiser (exact partition): returns the active-set steps taken. */
static int exact_weights(const float *pos, size_t n, const uint32_t *tets, size_t tet_count, const uint8_t *fixed,
                         const double *rows, size_t m, double *w)
{
    double *q = bbw_dense_biharmonic(3, pos, n, tets, tet_count);
    double *mu = malloc(n * sizeof *mu);
    uint8_t *support = malloc(n * m), *next = malloc(n * m);
    memset(support, 1, n * m); /* every weight free to start with */
    int steps = 0, done = 0;
    while (!done && steps < 40) {
        ++steps;
        kkt_solve(q, n, m, fixed, rows, support, w, mu);
        /* Multipliers of the bounds w >= 0: the gradient minus mu (zero on
         * the support); the next support keeps w - lambda / Q_vv > 0. */
        done = 1;
        for (size_t v = 0; v < n; ++v) {
            if (fixed[v]) continue;
            size_t best = 0;
            double best_score = -INFINITY, scale = q[v * n + v];
            int any = 0;
            for (size_t j = 0; j < m; ++j) {
                double g = -mu[v];
                for (size_t u = 0; u < n; ++u) g += q[v * n + u] * w[u * m + j];
                double lambda = support[v * m + j] ? 0.0 : g, score = w[v * m + j] - lambda / scale;
                /* KKT to rounding: weights and scaled multipliers above -1e-12. */
                if (w[v * m + j] < -1e-12 || lambda / scale < -1e-12) done = 0;
                next[v * m + j] = score > 0.0;
                any |= next[v * m + j];
                if (score > best_score) best_score = score, best = j;
            }
            if (!any) next[v * m + best] = 1;
        }
        memcpy(support, next, n * m);
    }
    assert_true(done);
    free(q);
    free(mu);
    free(support);
    free(next);
    return steps;
}

/* Keeps the cubes of an n^3 grid for which keep(i, j, k) holds, with only the
 * vertices they use (renumbered). */
static void grid3d_filter(grid3d *g, size_t n, int (*keep)(size_t, size_t, size_t, size_t))
{
    size_t kept = 0, nv = n + 1;
    for (size_t c = 0; c < n * n * n; ++c)
        if (keep(c % n, c / n % n, c / (n * n), n)) {
            memmove(g->tets + 24 * kept, g->tets + 24 * c, 24 * sizeof(uint32_t));
            ++kept;
        }
    g->tet_count = 6 * kept;
    uint32_t *renum = malloc(nv * nv * nv * sizeof *renum);
    for (size_t v = 0; v < nv * nv * nv; ++v) renum[v] = UINT32_MAX;
    size_t used = 0;
    float *old = malloc(nv * nv * nv * 3 * sizeof *old);
    memcpy(old, g->positions, nv * nv * nv * 3 * sizeof *old);
    for (size_t i = 0; i < 4 * g->tet_count; ++i) {
        uint32_t v = g->tets[i];
        if (renum[v] == UINT32_MAX) {
            memcpy(g->positions + 3 * used, old + 3 * (size_t)v, 3 * sizeof(float));
            renum[v] = (uint32_t)used++;
        }
        g->tets[i] = renum[v];
    }
    g->vertex_count = used;
    free(renum);
    free(old);
}

/* An L: the cubes with x or y in the lower half. */
static int keep_l(size_t i, size_t j, size_t k, size_t n)
{
    (void)k;
    return 2 * i < n || 2 * j < n;
}

static int keep_all(size_t i, size_t j, size_t k, size_t n)
{
    (void)i, (void)j, (void)k, (void)n;
    return 1;
}

/* Moves every vertex off the grid's faces by up to `amount` of a step per axis
 * (deterministic), so the mesh has no symmetry. */
static void jitter_interior(grid3d *g, float step, float amount)
{
    uint32_t s = 12345u;
    for (size_t v = 0; v < g->vertex_count; ++v) {
        float *p = g->positions + 3 * v;
        int inside = 1;
        for (int a = 0; a < 3; ++a) inside &= p[a] > 1e-6f && p[a] < 1.0f - 1e-6f;
        if (!inside) continue;
        for (int a = 0; a < 3; ++a) {
            s = s * 1664525u + 1013904223u;
            p[a] += step * amount * ((float)(s >> 8) / 8388608.0f - 1.0f);
        }
    }
}

static void compare(const grid3d *g, const float *handles, size_t m, const char *what)
{
    size_t n = g->vertex_count;
    sinew_tetmesh tm = {{g->positions, n, 0}, g->tets, g->tet_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tm;
    d.points.data = handles;
    d.points.count = m;
    sinew_bbw *b = NULL;
    sinew_result r = sinew_bbw_create(NULL, &d, &b);
    if (r != SINEW_OK) fail_msg("create: %s: %s", sinew_result_string(r), sinew_last_error());
    /* The handles are at domain vertices: find them. */
    uint8_t *fixed = calloc(n, 1);
    double *rows = calloc(n * m, sizeof *rows), *exact = malloc(n * m * sizeof *exact);
    for (size_t h = 0; h < m; ++h) {
        size_t at = SIZE_MAX;
        for (size_t v = 0; v < n; ++v)
            if (memcmp(g->positions + 3 * v, handles + 3 * h, 3 * sizeof(float)) == 0) at = v;
        assert_true(at != SIZE_MAX);
        fixed[at] = 1;
        rows[at * m + h] = 1.0;
    }
    int steps = exact_weights(g->positions, n, g->tets, g->tet_count, fixed, rows, m, exact);
    size_t zeros = 0;
    for (size_t c = 0; c < n * m; ++c) zeros += exact[c] == 0.0;
    double *mass = bbw_lumped_mass(g->positions, n, g->tets, g->tet_count, 4);
    float *w = malloc(n * m * sizeof *w);
    /* Capped solves (NOT_CONVERGED keeps the best certified weights) and
     * two tolerances. */
    const struct {
        double tolerance;
        uint32_t cap;
    } runs[] = {{1e-6, 1}, {1e-6, 3}, {1e-4, 0}, {1e-6, 0}};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; ++k) {
        sinew_bbw_solve_desc sd;
        SINEW_INIT(&sd);
        sd.tolerance = runs[k].tolerance;
        sd.max_iterations = runs[k].cap;
        r = sinew_bbw_solve(NULL, b, &sd);
        assert_true(r == SINEW_OK || (r == SINEW_ERROR_NOT_CONVERGED && runs[k].cap));
        sinew_bbw_info info;
        SINEW_INIT(&info);
        assert_int_equal(sinew_bbw_get_info(b, &info), SINEW_OK);
        assert_int_equal(sinew_bbw_vertex_weights(b, w, 0, n), SINEW_OK);
        double rms = bbw_rms_error(w, exact, mass, fixed, n, m), worst = 0.0;
        for (size_t c = 0; c < n * m; ++c) worst = fmax(worst, fabs(w[c] - exact[c]));
        printf("%s (%zu vertices, %zu handles, exact in %d active-set steps, %zu zero weights): tolerance %g, cap %u: "
               "%s, rms error %.3g, bound %.3g, max error %.3g\n",
               what, n, m, steps, zeros, runs[k].tolerance, runs[k].cap, sinew_result_string(r), rms,
               info.error_bound, worst);
        /* The reference's own rounding: 1e-9 of slack. */
        assert_true(rms <= info.error_bound + 1e-9);
        if (r == SINEW_OK) assert_true(info.error_bound <= runs[k].tolerance);
    }
    /* The active set is not trivial: the bounds bind somewhere. */
    assert_true(zeros > 0);
    free(w);
    free(mass);
    free(fixed);
    free(rows);
    free(exact);
    sinew_bbw_destroy(b);
}

static void test_jittered_cube(void **state)
{
    (void)state;
    grid3d g;
    grid3d_make(&g, 4, 1.0f);
    jitter_interior(&g, 0.25f, 0.2f);
    grid3d_filter(&g, 4, keep_all);
    /* Boundary vertices (not jittered): four corners, two face centres. */
    float handles[18] = {0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0.5f, 0.5f, 0.5f, 0, 0.5f, 1, 0.5f};
    compare(&g, handles, 6, "jittered cube");
    grid3d_free(&g);
}

static void test_l_shape(void **state)
{
    (void)state;
    grid3d g;
    grid3d_make(&g, 4, 1.0f);
    grid3d_filter(&g, 4, keep_l);
    /* The two arms' ends and the corner between them: the weights must go
     * around the missing quadrant. */
    float handles[15] = {1, 0, 0.5f, 0, 1, 0.5f, 0, 0, 0, 0.5f, 0.25f, 1, 0.25f, 0.75f, 1};
    compare(&g, handles, 5, "L shape");
    grid3d_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jittered_cube),
        cmocka_unit_test(test_l_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
