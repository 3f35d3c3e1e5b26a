
/*
 * No spurious local maxima (Jacobson et al. 2011, section 3, and their figure
 * with fifty random handles in a square): with many point handles at random,
 * every strict local maximum of a handle's weight over the vertex graph (a
 * vertex whose weight is above all its neighbours') lies at that handle's own
 * vertex. The check allows each vertex the pointwise error the certificate
 * proves (the RMS bound B gives |e_v| <= B sqrt(free mass / m_v)), so a
 * vertex it flags is a maximum of the exact minimiser too. The checker itself
 * is shown to flag maxima: on a field with one bump added, and on the
 * unconstrained biharmonic weights of the same handles, which have them (the
 * paper's point: the bounds are what removes them).
 *
 * Asserted at the interior vertices. On the boundary the exact minimiser does
 * have such maxima: the energy K M^-1 K leaves the boundary's values free
 * (its natural conditions), so a handle near a corner of the square or cube
 * keeps rising towards the corner, up to the bound 1 (e.g. 1 at a cube corner
 * beside 0.98 at its neighbours). They are counted and printed, not asserted.
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

/* The vertex graph as adjacency lists (CSR). */
typedef struct graph {
    size_t *start;
    uint32_t *next;
} graph;

static void graph_make(graph *g, size_t n, const uint32_t *el, size_t count, int per)
{
    /* An n x n bit set is small at these sizes and keeps each edge once. */
    uint8_t *seen = calloc(n * n, 1);
    for (size_t e = 0; e < count; ++e)
        for (int a = 0; a < per; ++a)
            for (int b = 0; b < per; ++b)
                if (a != b) seen[(size_t)el[per * e + a] * n + el[per * e + b]] = 1;
    g->start = calloc(n + 1, sizeof(size_t));
    for (size_t v = 0; v < n; ++v) {
        g->start[v + 1] = g->start[v];
        for (size_t u = 0; u < n; ++u) g->start[v + 1] += seen[v * n + u];
    }
    g->next = malloc(g->start[n] * sizeof(uint32_t));
    for (size_t v = 0, k = 0; v < n; ++v)
        for (size_t u = 0; u < n; ++u)
            if (seen[v * n + u]) g->next[k++] = (uint32_t)u;
    free(seen);
}

static void graph_free(graph *g)
{
    free(g->start);
    free(g->next);
}

/* Strict local maxima of handle j's weight (w: n x m, vertex-major, doubles)
 * away from its own vertex, beyond the slack allowed at the vertex and its
 * neighbours, at the vertices not skipped (skip NULL: all). Returns how many;
 * prints the first few. */
static size_t spurious_maxima(const graph *g, const double *w, size_t n, size_t m, size_t j, uint32_t own,
                              const double *slack, const uint8_t *skip, const char *what)
{
    size_t found = 0;
    for (size_t v = 0; v < n; ++v) {
        if (v == own || (skip && skip[v])) continue;
        double top = -INFINITY, allowed = slack[v];
        for (size_t k = g->start[v]; k < g->start[v + 1]; ++k) {
            top = fmax(top, w[(size_t)g->next[k] * m + j]);
            allowed = fmax(allowed, slack[v] + slack[g->next[k]]);
        }
        if (w[v * m + j] > top + allowed) {
            if (found < 3)
                printf("%s: handle %zu has a local maximum %.6f at vertex %zu (neighbours at most %.6f)\n", what, j,
                       w[v * m + j], v, top);
            ++found;
        }
    }
    return found;
}

static uint64_t rng_state;
static uint32_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

/* `count` distinct vertices at random among those with every coordinate index
 * in [1, res - 1] (not on the boundary), at least two grid steps apart. */
static void random_handles(size_t res, int dim, size_t margin, size_t count, uint32_t *out)
{
    size_t nv = res + 1;
    for (size_t h = 0; h < count;) {
        size_t at[3] = {0, 0, 0};
        for (int a = 0; a < dim; ++a) at[a] = margin + rng_next() % (res + 1 - 2 * margin);
        int ok = 1;
        for (size_t o = 0; o < h && ok; ++o) {
            size_t q = out[o], far = 0;
            for (int a = 0; a < dim; ++a, q /= nv) {
                size_t c = q % nv;
                far = far > (c > at[a] ? c - at[a] : at[a] - c) ? far : (c > at[a] ? c - at[a] : at[a] - c);
            }
            ok = far >= 2;
        }
        if (ok) out[h++] = (uint32_t)((at[2] * nv + at[1]) * nv + at[0]);
    }
}

static int cmp_face(const void *a, const void *b)
{
    return memcmp(a, b, 3 * sizeof(uint32_t));
}

/* Vertices on the domain's boundary: those of a face (an edge in 2D) that
 * only one element has. */
static uint8_t *boundary_vertices(size_t n, const uint32_t *el, size_t count, int per)
{
    uint32_t *faces = calloc(count * (size_t)per, 3 * sizeof(uint32_t));
    size_t f = 0;
    for (size_t e = 0; e < count; ++e)
        for (int skip = 0; skip < per; ++skip, ++f) {
            uint32_t *t = faces + 3 * f;
            int k = 0;
            for (int c = 0; c < per; ++c)
                if (c != skip) t[k++] = el[per * e + c];
            if (per == 3) t[2] = UINT32_MAX;
            for (int x = 0; x < 3; ++x) /* sort the three */
                for (int y = x + 1; y < 3; ++y)
                    if (t[y] < t[x]) {
                        uint32_t tmp = t[x];
                        t[x] = t[y];
                        t[y] = tmp;
                    }
        }
    qsort(faces, f, 3 * sizeof(uint32_t), cmp_face);
    uint8_t *on = calloc(n, 1);
    for (size_t i = 0; i < f;) {
        size_t j = i + 1;
        while (j < f && cmp_face(faces + 3 * i, faces + 3 * j) == 0) ++j;
        if (j - i == 1)
            for (int c = 0; c < per - 1; ++c) on[faces[3 * i + c]] = 1;
        i = j;
    }
    free(faces);
    return on;
}

typedef struct domain {
    int dim;
    float *positions;
    size_t n;
    uint32_t *elements;
    size_t count;
} domain;

/* interior_only: the boundary's vertices are counted apart and not asserted
 * (see the top of the file). */
static void check_maxima(const domain *dm, const uint32_t *hv, size_t m, int interior_only)
{
    size_t n = dm->n;
    float *pts = malloc(m * 3 * sizeof *pts);
    for (size_t h = 0; h < m; ++h) memcpy(pts + 3 * h, dm->positions + 3 * hv[h], 3 * sizeof(float));
    sinew_trimesh tris = {{dm->positions, n, 0}, dm->elements, dm->count, SINEW_INDEX_U32, 0};
    sinew_tetmesh tets = {{dm->positions, n, 0}, dm->elements, dm->count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    if (dm->dim == 2) d.triangles = &tris;
    else d.tets = &tets;
    d.points.data = pts;
    d.points.count = m;
    sinew_bbw *b = NULL;
    sinew_result r = sinew_bbw_create(NULL, &d, &b);
    if (r != SINEW_OK) fail_msg("create: %s: %s", sinew_result_string(r), sinew_last_error());
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.tolerance = 1e-6;
    r = sinew_bbw_solve(NULL, b, &sd);
    if (r != SINEW_OK) fail_msg("solve: %s: %s", sinew_result_string(r), sinew_last_error());
    sinew_bbw_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_bbw_get_info(b, &info), SINEW_OK);
    assert_int_equal(info.vertex_count, n);
    assert_int_equal(info.handle_count, m);
    float *wf = malloc(n * m * sizeof *wf);
    double *w = malloc(n * m * sizeof *w);
    assert_int_equal(sinew_bbw_vertex_weights(b, wf, 0, n), SINEW_OK);
    for (size_t c = 0; c < n * m; ++c) w[c] = wf[c];
    for (size_t h = 0; h < m; ++h) assert_true(wf[hv[h] * m + h] == 1.0f);

    /* Pointwise slack from the certificate: the bound is an RMS over the free
     * vertices' mass; fixed vertices are exact. */
    double *mass = bbw_lumped_mass(dm->positions, n, dm->elements, dm->count, dm->dim + 1);
    uint8_t *fixed = calloc(n, 1);
    for (size_t h = 0; h < m; ++h) fixed[hv[h]] = 1;
    double free_mass = 0.0;
    for (size_t v = 0; v < n; ++v) free_mass += fixed[v] ? 0.0 : mass[v];
    double *slack = calloc(n, sizeof *slack), *none = calloc(n, sizeof *none), worst_slack = 0.0;
    for (size_t v = 0; v < n; ++v) {
        slack[v] = fixed[v] ? 0.0 : info.error_bound * sqrt(free_mass / mass[v]);
        worst_slack = fmax(worst_slack, slack[v]);
    }
    graph g;
    graph_make(&g, n, dm->elements, dm->count, dm->dim + 1);
    uint8_t *boundary = boundary_vertices(n, dm->elements, dm->count, dm->dim + 1);
    uint8_t *skip = interior_only ? boundary : NULL;
    size_t spurious = 0, on_boundary = 0;
    for (size_t h = 0; h < m; ++h) spurious += spurious_maxima(&g, w, n, m, h, hv[h], slack, skip, "bbw");
    if (interior_only) {
        uint8_t *interior = malloc(n);
        for (size_t v = 0; v < n; ++v) interior[v] = !boundary[v];
        for (size_t h = 0; h < m; ++h)
            on_boundary += spurious_maxima(&g, w, n, m, h, hv[h], slack, interior, "bbw, boundary");
        free(interior);
    }
    printf("%dD, %zu vertices, %zu random handles: bound %.2e (pointwise slack up to %.2e), %zu spurious maxima%s",
           dm->dim, n, m, info.error_bound, worst_slack, spurious, interior_only ? " inside" : "\n");
    if (interior_only) printf(", %zu on the boundary (not asserted)\n", on_boundary);
    assert_int_equal(spurious, 0);

    /* The checker flags a bump: raise handle 0's weight at the free vertex
     * farthest from its own, where it is lowest, by a little more than the
     * slack there (and its neighbours'). */
    size_t far = 0;
    double far_d2 = -1.0;
    for (size_t v = 0; v < n; ++v) {
        double d2 = 0.0;
        for (int a = 0; a < 3; ++a) d2 += pow((double)dm->positions[3 * v + a] - pts[a], 2.0);
        if (!fixed[v] && !(skip && skip[v]) && d2 > far_d2) far_d2 = d2, far = v;
    }
    double *bumped = malloc(n * m * sizeof *bumped);
    memcpy(bumped, w, n * m * sizeof *w);
    double top = 0.0;
    for (size_t k = g.start[far]; k < g.start[far + 1]; ++k) top = fmax(top, w[(size_t)g.next[k] * m]);
    bumped[far * m] = top + 3.0 * worst_slack + 1e-6;
    assert_int_equal(spurious_maxima(&g, bumped, n, m, 0, hv[0], slack, skip, "bumped"), 1);

    /* The unconstrained biharmonic weights of the same handles (an exact
     * dense solve) have local maxima away from their handles. */
    double *rows = calloc(n * m, sizeof *rows), *unconstrained = malloc(n * m * sizeof *unconstrained);
    for (size_t h = 0; h < m; ++h) rows[hv[h] * m + h] = 1.0;
    reference_unconstrained_weights(dm->dim, dm->positions, n, dm->elements, dm->count, fixed, rows, m, unconstrained);
    size_t loose = 0;
    for (size_t h = 0; h < m; ++h) loose += spurious_maxima(&g, unconstrained, n, m, h, hv[h], none, skip, "unconstrained");
    printf("unconstrained biharmonic weights: %zu spurious maxima\n", loose);
    assert_true(loose > 0);

    free(rows);
    free(unconstrained);
    free(bumped);
    graph_free(&g);
    free(boundary);
    free(slack);
    free(none);
    free(fixed);
    free(mass);
    free(w);
    free(wf);
    free(pts);
    sinew_bbw_destroy(b);
}

static void test_random_handles_2d(void **state)
{
    (void)state;
    const size_t res = 24, handles = 30;
    rng_state = 0x9e3779b97f4a7c15u;
    grid2d g;
    grid2d_make(&g, res, res, 1.0f, 1.0f);
    uint32_t hv[30];
    random_handles(res, 2, 1, handles, hv);
    domain dm = {2, g.positions, g.vertex_count, g.triangles, g.triangle_count};
    check_maxima(&dm, hv, handles, 1);
    grid2d_free(&g);
}

static void test_random_handles_3d(void **state)
{
    (void)state;
    const size_t res = 8, handles = 12;
    rng_state = 0x2545f4914f6cdd1du;
    grid3d g;
    grid3d_make(&g, res, 1.0f);
    uint32_t hv[12];
    random_handles(res, 3, 2, handles, hv);
    domain dm = {3, g.positions, g.vertex_count, g.tets, g.tet_count};
    check_maxima(&dm, hv, handles, 1);
    grid3d_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_handles_2d),
        cmocka_unit_test(test_random_handles_3d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
