/* Automatic skin weights from a surface and a skeleton: handles outside the
 * domain are clipped or attached (create's default), inside-out shells bind
 * as their outward twins, triangle soups as their welded meshes, flat meshes
 * as the 2D domain they are, and sinew_bbw_auto_weights gives every vertex
 * of every rig of the set (bbw_rigs.h) a row on the simplex. A small flat
 * domain is compared with the independent dense solver. */
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
#include "bbw_rigs.h"
#include "support.h"

static void load_rig(const char *name, bbw_rig *r)
{
    const char *why = NULL;
    if (!bbw_rig_load(bbw_rig_find(name), r, &why)) fail_msg("rig %s did not load (%s)", name, why);
}

/* Runs the one call on r with k slots; the rows and the report. */
static sinew_result auto_rows(const bbw_rig *r, uint32_t k, double tolerance, uint32_t **joints, float **weights,
                              sinew_bbw_auto_report *rep)
{
    sinew_bbw_auto_desc d;
    bbw_rig_desc(r, &d);
    d.influence_count = k;
    d.tolerance = tolerance;
    *joints = malloc(r->vertex_count * k * sizeof **joints);
    *weights = malloc(r->vertex_count * k * sizeof **weights);
    SINEW_INIT(rep);
    return sinew_bbw_auto_weights(NULL, &d, *joints, *weights, r->vertex_count * k, rep);
}

/* The properties every row must have: finite, in [0, 1], sorted, summing to
 * one, joints naming handles; every surface vertex weighted. */
static void check_rows(const char *name, const uint32_t *joints, const float *weights, size_t n, uint32_t k,
                       size_t handles)
{
    for (size_t v = 0; v < n; ++v) {
        double sum = 0.0;
        for (uint32_t s = 0; s < k; ++s) {
            float w = weights[v * k + s];
            if (!(w >= 0.0f && w <= 1.0f)) fail_msg("%s: vertex %zu slot %u weight %g", name, v, s, (double)w);
            if (s && w > weights[v * k + s - 1]) fail_msg("%s: vertex %zu not sorted", name, v);
            if (joints[v * k + s] >= handles) fail_msg("%s: vertex %zu joint %u", name, v, joints[v * k + s]);
            sum += w;
        }
        if (fabs(sum - 1.0) > 1e-5) fail_msg("%s: vertex %zu weights sum to %g", name, v, sum);
    }
}

/* The rig's bbw at the defaults (create must succeed), with its desc and info. */
static sinew_bbw *create_rig(const char *name, bbw_rig *r, sinew_bbw_desc *d, sinew_bbw_info *info)
{
    load_rig(name, r);
    bbw_rig_create_desc(r, d);
    sinew_bbw *b = NULL;
    sinew_result res = sinew_bbw_create(NULL, d, &b);
    if (res != SINEW_OK) fail_msg("create: %s (%s)", sinew_result_string(res), sinew_last_error());
    SINEW_INIT(info);
    assert_int_equal(sinew_bbw_get_info(b, info), SINEW_OK);
    return b;
}

/* ---- Handles outside the domain --------------------------------------------- */

static void bone_tails_leaving_the_mesh_are_clipped(void **state)
{
    (void)state;
    bbw_rig r;
    sinew_bbw_desc d;
    sinew_bbw_info info;
    sinew_bbw *b = create_rig("figure-bone-tails-out", &r, &d, &info);
    /* The head bone and the arms leave the grid's box (one spare cell around
     * the surface's box): clipped there; the head bone by 0.5. */
    assert_int_equal(info.clipped_handle_count, 3);
    assert_int_equal(info.first_clipped_handle, 1);
    assert_true(info.max_clip_distance > 0.4 && info.max_clip_distance < 0.6);
    assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
    /* Each arm bone still owns its weight near its hand inside the arm. */
    float hands[6] = {-0.55f, 0, 1.25f, 0.55f, 0, 1.25f}, w[12];
    sinew_points hp = {hands, 2, 0};
    assert_int_equal(sinew_bbw_point_weights(b, &hp, w, 0, 2), SINEW_OK);
    assert_true(w[2] > 0.95f && w[6 + 3] > 0.95f);
    sinew_bbw_destroy(b);
    /* Refusal on request, naming the first bone outside. */
    d.handle_outside = SINEW_BBW_OUTSIDE_REFUSE;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "bone 1"));
    d.handle_outside = 2;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "sinew_bbw_outside"));
    bbw_rig_free(&r);
}

static void handles_wholly_outside_attach_to_the_nearest_vertex(void **state)
{
    (void)state;
    bbw_rig r;
    sinew_bbw_desc d;
    sinew_bbw_info info;
    sinew_bbw *b = create_rig("figure-bone-outside", &r, &d, &info);
    /* The point in front of the chest (handle 0) and the bone beside the
     * figure (handle 7). */
    assert_int_equal(info.clipped_handle_count, 2);
    assert_int_equal(info.first_clipped_handle, 0);
    assert_true(info.max_clip_distance > 0.1 && info.max_clip_distance < 0.5);
    assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
    /* Each reaches 1 at its vertex. */
    size_t n = info.vertex_count, m = info.handle_count;
    float *w = malloc(n * m * sizeof *w);
    assert_int_equal(sinew_bbw_vertex_weights(b, w, 0, n), SINEW_OK);
    float best0 = 0, best7 = 0;
    for (size_t v = 0; v < n; ++v) best0 = fmaxf(best0, w[v * m]), best7 = fmaxf(best7, w[v * m + 7]);
    assert_true(best0 > 0.999f && best7 > 0.999f);
    free(w);
    sinew_bbw_destroy(b);
    bbw_rig_free(&r);
}

/* A bone to a joint far outside (an exporter's stray end joint) keeps its
 * inside part and costs no more than a short one: only the part within reach
 * of the domain's box is sampled (the whole bone took seconds). */
static void far_away_joint_is_clipped_quickly(void **state)
{
    (void)state;
    bbw_rig r;
    load_rig("figure", &r);
    r.joints[3 * 2 + 2] = 7.5e18f; /* the crown: the head bone (handle 1) runs up out of the head */
    sinew_bbw_desc d;
    bbw_rig_create_desc(&r, &d);
    sinew_bbw *b = NULL;
    double t0 = support_cpu_now();
    sinew_result res = sinew_bbw_create(NULL, &d, &b);
    double seconds = support_cpu_now() - t0;
    if (res != SINEW_OK) fail_msg("create: %s (%s)", sinew_result_string(res), sinew_last_error());
    sinew_bbw_info info;
    SINEW_INIT(&info);
    sinew_bbw_get_info(b, &info);
    assert_int_equal(info.clipped_handle_count, 1);
    assert_int_equal(info.first_clipped_handle, 1);
    assert_true(info.max_clip_distance > 7e18);
    assert_true(seconds < 2.0); /* the figure alone: well under a second in debug builds */
    assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
    sinew_bbw_destroy(b);
    bbw_rig_free(&r);
}

/* ---- Surfaces as exporters write them ------------------------------------------ */

/* Weights of create + solve at the domain vertices, for comparisons. */
static float *solved_domain(const sinew_bbw_desc *d, size_t *count, size_t *m)
{
    sinew_bbw *b = NULL;
    sinew_result res = sinew_bbw_create(NULL, d, &b);
    if (res != SINEW_OK) fail_msg("create: %s (%s)", sinew_result_string(res), sinew_last_error());
    assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    sinew_bbw_get_info(b, &info);
    *count = info.vertex_count;
    *m = info.handle_count;
    float *w = malloc(*count * *m * sizeof *w);
    assert_int_equal(sinew_bbw_vertex_weights(b, w, 0, *count), SINEW_OK);
    sinew_bbw_destroy(b);
    return w;
}

static void inside_out_shell_binds_as_its_outward_twin(void **state)
{
    (void)state;
    bbw_rig out, in;
    load_rig("figure", &out);
    load_rig("figure-inside-out", &in);
    sinew_bbw_desc d;
    size_t n1, n2, m1, m2;
    bbw_rig_create_desc(&out, &d);
    float *w1 = solved_domain(&d, &n1, &m1);
    bbw_rig_create_desc(&in, &d);
    float *w2 = solved_domain(&d, &n2, &m2);
    assert_int_equal(n1, n2);
    assert_int_equal(m1, m2);
    for (size_t i = 0; i < n1 * m1; ++i) assert_float_equal(w1[i], w2[i], 1e-6);
    free(w1);
    free(w2);
    uint32_t *j;
    float *w;
    sinew_bbw_auto_report rep;
    assert_int_equal(auto_rows(&in, 4, 0.0, &j, &w, &rep), SINEW_OK);
    assert_int_equal(rep.flipped_component_count, rep.component_count);
    assert_int_equal(rep.unweighted_surface_vertex_count, 0);
    free(j);
    free(w);
    bbw_rig_free(&out);
    bbw_rig_free(&in);
}

static void triangle_soup_binds_as_its_welded_mesh(void **state)
{
    (void)state;
    bbw_rig mesh, soup;
    load_rig("figure", &mesh);
    load_rig("figure-triangle-soup", &soup);
    uint32_t *j1, *j2;
    float *w1, *w2;
    sinew_bbw_auto_report r1, r2;
    assert_int_equal(auto_rows(&mesh, 4, 0.0, &j1, &w1, &r1), SINEW_OK);
    assert_int_equal(auto_rows(&soup, 4, 0.0, &j2, &w2, &r2), SINEW_OK);
    assert_int_equal(r2.welded_vertex_count, r1.welded_vertex_count);
    assert_int_equal(r2.component_count, 7);
    assert_int_equal(r2.unweighted_surface_vertex_count, 0);
    /* Each soup corner carries the row of the mesh vertex at its position. */
    for (size_t t = 0; t < mesh.triangle_count; ++t)
        for (int c = 0; c < 3; ++c) {
            size_t v = mesh.triangles[3 * t + (size_t)c], s = soup.triangles[3 * t + (size_t)c];
            for (int k = 0; k < 4; ++k) {
                assert_int_equal(j1[4 * v + (size_t)k], j2[4 * s + (size_t)k]);
                assert_float_equal(w1[4 * v + (size_t)k], w2[4 * s + (size_t)k], 1e-6);
            }
        }
    free(j1), free(j2), free(w1), free(w2);
    bbw_rig_free(&mesh);
    bbw_rig_free(&soup);
}

/* Parts no bone reaches (a hat floating above the head, a bead off the
 * hand): the plain route leaves their vertices all zero; the one call
 * weights them from the nearest reached part. */
static void floating_parts_are_weighted(void **state)
{
    (void)state;
    bbw_rig r;
    load_rig("figure-floating-hat", &r);
    sinew_bbw_desc d;
    bbw_rig_create_desc(&r, &d);
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_OK);
    assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
    size_t zero = 0;
    uint32_t *jj = malloc(4 * r.vertex_count * sizeof *jj);
    float *ww = malloc(4 * r.vertex_count * sizeof *ww);
    for (size_t v = 0; v < r.vertex_count; ++v) {
        sinew_result res = sinew_bbw_top_k(b, &d.surface->positions, 4, jj, ww, v, 1);
        zero += res != SINEW_OK || ww[4 * v] == 0.0f;
    }
    free(jj);
    free(ww);
    sinew_bbw_destroy(b);
    assert_true(zero > 0); /* the failure the one call answers */
    uint32_t *j;
    float *w;
    sinew_bbw_auto_report rep;
    assert_int_equal(auto_rows(&r, 4, 0.0, &j, &w, &rep), SINEW_OK);
    assert_int_equal(rep.unweighted_surface_vertex_count, 0);
    assert_true(rep.attached_surface_vertex_count >= zero / 2);
    check_rows(r.name, j, w, r.vertex_count, 4, r.bone_count);
    /* The hat follows the head: its top vertex's main influence is the neck bone (1). */
    size_t top = 0;
    for (size_t v = 0; v < r.vertex_count; ++v)
        if (r.positions[3 * v + 2] > r.positions[3 * top + 2]) top = v;
    assert_int_equal(j[4 * top], 1);
    free(j);
    free(w);
    bbw_rig_free(&r);
}

static void flat_mesh_binds_as_a_2d_domain(void **state)
{
    (void)state;
    bbw_rig r;
    load_rig("flat-2d-figure", &r);
    uint32_t *j;
    float *w;
    sinew_bbw_auto_report rep;
    sinew_result res = auto_rows(&r, 4, 0.0, &j, &w, &rep);
    if (res != SINEW_OK) fail_msg("auto: %s (%s)", sinew_result_string(res), sinew_last_error());
    assert_int_equal(rep.dimension, 2);
    assert_int_equal(rep.unweighted_surface_vertex_count, 0);
    check_rows(r.name, j, w, r.vertex_count, 4, r.bone_count);
    /* The tip of the left arm belongs to the left arm's bone (2). */
    size_t tip = 0;
    for (size_t v = 0; v < r.vertex_count; ++v)
        if (r.positions[3 * v] < r.positions[3 * tip]) tip = v;
    assert_int_equal(j[4 * tip], 2);
    assert_true(w[4 * tip] > 0.9f);
    free(j);
    free(w);
    bbw_rig_free(&r);
}

/* Scale-free: the same figure at 1e-3 and 1e3 gets the same weights. */
static void scaled_rigs_get_the_same_weights(void **state)
{
    (void)state;
    static const char *names[] = {"figure", "figure-scaled-1e-3", "figure-scaled-1e3"};
    uint32_t *j[3];
    float *w[3];
    bbw_rig r[3];
    for (int i = 0; i < 3; ++i) {
        load_rig(names[i], &r[i]);
        sinew_bbw_auto_report rep;
        assert_int_equal(auto_rows(&r[i], 4, 1e-6, &j[i], &w[i], &rep), SINEW_OK);
        assert_int_equal(rep.unweighted_surface_vertex_count, 0);
    }
    double worst = 0.0;
    for (int i = 1; i < 3; ++i)
        for (size_t v = 0; v < r[0].vertex_count; ++v) {
            /* Compare full rows (slot order may swap between near-equal weights). */
            double a[16] = {0}, b[16] = {0};
            for (int s = 0; s < 4; ++s) {
                a[j[0][4 * v + (size_t)s]] += w[0][4 * v + (size_t)s];
                b[j[i][4 * v + (size_t)s]] += w[i][4 * v + (size_t)s];
            }
            for (int h = 0; h < 16; ++h) worst = fmax(worst, fabs(a[h] - b[h]));
        }
    printf("figure at 1e-3 and 1e3: largest weight difference %.2e\n", worst);
    assert_true(worst < 1e-3);
    for (int i = 0; i < 3; ++i) free(j[i]), free(w[i]), bbw_rig_free(&r[i]);
}

/* ---- Closed form on a small domain ---------------------------------------------- */

/* An 8 x 8 grid given as a flat OBJ-like surface in the xz plane, point
 * handles at two corners and the centre: the one call's weights (k = 3, all
 * of them) against the dense reference on the same triangles. */
static void flat_square_matches_the_dense_reference(void **state)
{
    (void)state;
    grid2d g;
    grid2d_make(&g, 8, 8, 1.0f, 1.0f);
    size_t n = g.vertex_count;
    float *xz = malloc(3 * n * sizeof *xz);
    for (size_t v = 0; v < n; ++v) xz[3 * v] = g.positions[3 * v], xz[3 * v + 1] = 0.0f, xz[3 * v + 2] = g.positions[3 * v + 1];
    uint32_t corners[3] = {grid2d_vertex(8, 0, 0), grid2d_vertex(8, 8, 8), grid2d_vertex(8, 4, 4)};
    float pts[9];
    for (int h = 0; h < 3; ++h) memcpy(pts + 3 * h, xz + 3 * corners[h], 3 * sizeof(float));
    sinew_trimesh mesh = {{xz, n, 0}, g.triangles, g.triangle_count, SINEW_INDEX_U32, 0};
    sinew_bbw_auto_desc d;
    SINEW_INIT(&d);
    d.surface = &mesh;
    d.points = (sinew_points){pts, 3, 0};
    d.influence_count = 3;
    d.tolerance = 1e-7;
    uint32_t *j = malloc(3 * n * sizeof *j);
    float *w = malloc(3 * n * sizeof *w);
    sinew_bbw_auto_report rep;
    SINEW_INIT(&rep);
    assert_int_equal(sinew_bbw_auto_weights(NULL, &d, j, w, 3 * n, &rep), SINEW_OK);
    assert_int_equal(rep.dimension, 2);
    uint8_t *fixed = calloc(n, 1);
    double *rows = calloc(3 * n, sizeof *rows), *ref = malloc(3 * n * sizeof *ref);
    for (int h = 0; h < 3; ++h) fixed[corners[h]] = 1, rows[3 * corners[h] + (size_t)h] = 1.0;
    reference_weights(2, g.positions, n, g.triangles, g.triangle_count, fixed, rows, 3, 1, 200000, ref);
    double worst = 0.0;
    for (size_t v = 0; v < n; ++v) {
        /* Full rows: an unused slot holds joint 0 with weight 0. */
        double row[3] = {0, 0, 0};
        for (int s = 0; s < 3; ++s) row[j[3 * v + (size_t)s]] += w[3 * v + (size_t)s];
        for (int h = 0; h < 3; ++h) worst = fmax(worst, fabs(row[h] - ref[3 * v + (size_t)h]));
    }
    printf("flat square against the dense reference: largest difference %.2e\n", worst);
    assert_true(worst < 1e-4);
    free(xz), free(j), free(w), free(fixed), free(rows), free(ref);
    grid2d_free(&g);
}

/* ---- The rig set ------------------------------------------------------------------ */

/* The quick rigs (all of them with SINEW_ALL_RIGS=1; one with SINEW_RIG=name). */
static void every_rig_binds(void **state)
{
    (void)state;
    const char *only = getenv("SINEW_RIG"), *all = getenv("SINEW_ALL_RIGS");
    for (size_t i = 0; i < bbw_rig_count(); ++i) {
        bbw_rig r;
        const char *why = NULL;
        if (!bbw_rig_load(i, &r, &why)) {
            printf("%s: skipped (%s absent)\n", r.name, why);
            continue;
        }
        if ((only && strcmp(only, r.name)) || (!only && !r.quick && !(all && *all == '1'))) {
            bbw_rig_free(&r);
            continue;
        }
        uint32_t *j;
        float *w;
        sinew_bbw_auto_report rep;
        sinew_result res = auto_rows(&r, 4, 0.0, &j, &w, &rep);
        if (res != SINEW_OK) fail_msg("%s: %s (%s)", r.name, sinew_result_string(res), sinew_last_error());
        printf("%s: %zu vertices, %zu parts, grid %u, %u iterations, bound %.1e, %zu attached, %.2f s\n", r.name,
               r.vertex_count, rep.component_count, rep.grid_resolution, rep.iterations, rep.error_bound,
               rep.attached_surface_vertex_count, rep.seconds_total);
        assert_int_equal(rep.unweighted_surface_vertex_count, 0);
        assert_true(rep.converged);
        check_rows(r.name, j, w, r.vertex_count, 4, r.point_count + r.bone_count);
        if (r.trait == BBW_RIG_CLIPPED) assert_true(rep.clipped_handle_count > 0);
        if (r.trait == BBW_RIG_FLIPPED) assert_true(rep.flipped_component_count > 0);
        if (r.trait != BBW_RIG_FLIPPED && r.procedural) assert_int_equal(rep.flipped_component_count, 0);
        if (r.trait == BBW_RIG_SOUP) assert_true(rep.welded_vertex_count < r.vertex_count);
        assert_int_equal(rep.dimension, r.trait == BBW_RIG_FLAT ? 2 : 3);
        if (r.trait == BBW_RIG_DETACHED) assert_true(rep.attached_surface_vertex_count > 0);
        free(j);
        free(w);
        bbw_rig_free(&r);
    }
}

/* ---- Errors ------------------------------------------------------------------------ */

static void bad_calls_are_named(void **state)
{
    (void)state;
    bbw_rig r;
    load_rig("figure", &r);
    sinew_bbw_auto_desc d;
    bbw_rig_desc(&r, &d);
    size_t n = r.vertex_count;
    uint32_t *j = malloc(4 * n * sizeof *j);
    float *w = malloc(4 * n * sizeof *w);
    assert_int_equal(sinew_bbw_auto_weights(NULL, &d, j, w, 4 * n - 1, NULL), SINEW_ERROR_MISMATCH);
    assert_non_null(strstr(sinew_last_error(), "entry count"));
    d.influence_count = 65;
    assert_int_equal(sinew_bbw_auto_weights(NULL, &d, j, w, 65 * n, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    d.influence_count = 0;
    r.joints[3 * 2 + 1] = NAN;
    assert_int_equal(sinew_bbw_auto_weights(NULL, &d, j, w, 4 * n, NULL), SINEW_ERROR_NON_FINITE);
    assert_non_null(strstr(sinew_last_error(), "joint 2"));
    r.joints[3 * 2 + 1] = 0.0f;
    d.surface = NULL;
    assert_int_equal(sinew_bbw_auto_weights(NULL, &d, j, w, 4 * n, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    free(j);
    free(w);
    bbw_rig_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bone_tails_leaving_the_mesh_are_clipped),
        cmocka_unit_test(handles_wholly_outside_attach_to_the_nearest_vertex),
        cmocka_unit_test(far_away_joint_is_clipped_quickly),
        cmocka_unit_test(inside_out_shell_binds_as_its_outward_twin),
        cmocka_unit_test(triangle_soup_binds_as_its_welded_mesh),
        cmocka_unit_test(floating_parts_are_weighted),
        cmocka_unit_test(flat_mesh_binds_as_a_2d_domain),
        cmocka_unit_test(scaled_rigs_get_the_same_weights),
        cmocka_unit_test(flat_square_matches_the_dense_reference),
        cmocka_unit_test(bad_calls_are_named),
        cmocka_unit_test(every_rig_binds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
