/* Rogue-vertex removal and weight smoothing on small meshes with known
 * answers, against a dense reference smoother, on real data (libigl's arm),
 * plus every error path, allocation failures and cancellation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fixtures.h"
#include "support.h"

enum { K = 2 };

/* A tube (21 rings of 8, along x from 0 to 2) bound hard: rings 0-9 to joint 0,
 * rings 10-20 to joint 1, plus room for an island of 3 extra vertices. */
typedef struct rig {
    tube t;
    float *positions;     /* tube + island */
    uint32_t *triangles;  /* tube + island */
    size_t vertex_count, triangle_count;
    uint32_t *j;
    float *w;
} rig;

static void set_row(rig *r, size_t v, uint32_t j0, float w0, uint32_t j1, float w1)
{
    r->j[v * K] = j0;
    r->w[v * K] = w0;
    r->j[v * K + 1] = j1;
    r->w[v * K + 1] = w1;
}

static rig rig_make(int with_island)
{
    rig r = {0};
    r.t = tube_make(21, 8, 2.0f, 0.25f);
    size_t extra = with_island ? 3 : 0;
    r.vertex_count = r.t.vertex_count + extra;
    r.triangle_count = r.t.triangle_count + (extra ? 1 : 0);
    r.positions = malloc(3 * r.vertex_count * sizeof(float));
    r.triangles = malloc(3 * r.triangle_count * sizeof(uint32_t));
    memcpy(r.positions, r.t.positions, 3 * r.t.vertex_count * sizeof(float));
    memcpy(r.triangles, r.t.triangles, 3 * r.t.triangle_count * sizeof(uint32_t));
    if (with_island) {
        const float island[9] = {0.5f, 1.0f, 0.0f, 0.6f, 1.0f, 0.0f, 0.5f, 1.1f, 0.0f};
        memcpy(r.positions + 3 * r.t.vertex_count, island, sizeof island);
        uint32_t base = (uint32_t)r.t.vertex_count;
        uint32_t *tri = r.triangles + 3 * r.t.triangle_count;
        tri[0] = base, tri[1] = base + 1, tri[2] = base + 2;
    }
    r.j = calloc(r.vertex_count * K, sizeof *r.j);
    r.w = calloc(r.vertex_count * K, sizeof *r.w);
    for (size_t v = 0; v < r.t.vertex_count; ++v) set_row(&r, v, v / 8 < 10 ? 0 : 1, 1.0f, 0, 0.0f);
    for (size_t v = r.t.vertex_count; v < r.vertex_count; ++v) set_row(&r, v, 1, 1.0f, 0, 0.0f);
    return r;
}

static sinew_trimesh rig_mesh(const rig *r)
{
    sinew_trimesh m = {{r->positions, r->vertex_count, 0}, r->triangles, r->triangle_count, SINEW_INDEX_U32, 0};
    return m;
}

static void rig_free(rig *r)
{
    tube_free(&r->t);
    free(r->positions);
    free(r->triangles);
    free(r->j);
    free(r->w);
}

/* Sum over mesh edges of the squared difference of the weight fields of
 * joints [0, joints): the roughness smoothing must reduce. */
static double dirichlet_energy(const uint32_t *tri, size_t tri_count, const uint32_t *j, const float *w, size_t k,
                               uint32_t joints)
{
    double e = 0;
    for (size_t t = 0; t < tri_count; ++t)
        for (int a = 0; a < 3; ++a) {
            uint32_t u = tri[3 * t + a], v = tri[3 * t + (a + 1) % 3];
            for (uint32_t jj = 0; jj < joints; ++jj) {
                double d = row_weight(j, w, k, u, jj) - row_weight(j, w, k, v, jj);
                e += d * d;
            }
        }
    return e;
}

/* ---- Rogue removal ------------------------------------------------------------ */

static void rogue_influences_and_islands_are_fixed(void **state)
{
    (void)state;
    rig r = rig_make(1);
    set_row(&r, 3 * 8 + 0, 0, 0.7f, 1, 0.3f);   /* joint 1 far from its region */
    set_row(&r, 5 * 8 + 4, 1, 1.0f, 0, 0.0f);   /* loses everything: takes a neighbour's row */
    sinew_trimesh m = rig_mesh(&r);
    sinew_skin_rogue_report rep = {sizeof(sinew_skin_rogue_report), 99, 99};
    assert_int_equal(sinew_skin_remove_rogues(NULL, &m, K, r.j, r.w, &rep), SINEW_OK);
    assert_int_equal(first_bad_row(r.j, r.w, r.vertex_count, K), SIZE_MAX);
    assert_int_equal(rep.influences_removed, 5);
    assert_int_equal(rep.vertices_reattached, 4);
    assert_float_equal(row_weight(r.j, r.w, K, 3 * 8, 0), 1.0, 0);
    assert_float_equal(row_weight(r.j, r.w, K, 5 * 8 + 4, 0), 1.0, 0);
    /* The island is nearest (in space) to the joint-0 part of the tube. */
    for (size_t v = r.t.vertex_count; v < r.vertex_count; ++v) assert_float_equal(row_weight(r.j, r.w, K, v, 0), 1.0, 0);
    /* The joint-1 region itself is untouched. */
    for (size_t v = 10 * 8; v < r.t.vertex_count; ++v) assert_float_equal(row_weight(r.j, r.w, K, v, 1), 1.0, 0);
    rig_free(&r);
}

static void main_region_is_the_heaviest(void **state)
{
    (void)state;
    rig r = rig_make(0);
    /* Joint 2 on three vertices of ring 2 at 0.9 (total 2.7) and on six
     * vertices of ring 15 at 0.2 (total 1.2): the ring-2 region wins. */
    for (size_t s = 0; s < 3; ++s) set_row(&r, 2 * 8 + s, 2, 0.9f, 0, 0.1f);
    for (size_t s = 0; s < 6; ++s) set_row(&r, 15 * 8 + s, 1, 0.8f, 2, 0.2f);
    sinew_trimesh m = rig_mesh(&r);
    sinew_skin_rogue_report rep;
    SINEW_INIT(&rep);
    assert_int_equal(sinew_skin_remove_rogues(NULL, &m, K, r.j, r.w, &rep), SINEW_OK);
    assert_int_equal(rep.influences_removed, 6);
    assert_int_equal(rep.vertices_reattached, 0);
    for (size_t s = 0; s < 3; ++s) assert_float_equal(row_weight(r.j, r.w, K, 2 * 8 + s, 2), 0.9, 1e-6);
    for (size_t s = 0; s < 6; ++s) assert_float_equal(row_weight(r.j, r.w, K, 15 * 8 + s, 1), 1.0, 0);
    rig_free(&r);
}

static void clean_binding_is_a_fixed_point(void **state)
{
    (void)state;
    rig r = rig_make(0);
    for (size_t v = 9 * 8; v < 12 * 8; ++v) set_row(&r, v, 0, 0.5f, 1, 0.5f);
    uint32_t *j0 = malloc(r.vertex_count * K * sizeof *j0);
    float *w0 = malloc(r.vertex_count * K * sizeof *w0);
    memcpy(j0, r.j, r.vertex_count * K * sizeof *j0);
    memcpy(w0, r.w, r.vertex_count * K * sizeof *w0);
    sinew_trimesh m = rig_mesh(&r);
    sinew_skin_rogue_report rep = {sizeof(sinew_skin_rogue_report), 7, 7};
    assert_int_equal(sinew_skin_remove_rogues(NULL, &m, K, r.j, r.w, &rep), SINEW_OK);
    assert_int_equal(rep.influences_removed, 0);
    assert_int_equal(rep.vertices_reattached, 0);
    assert_memory_equal(j0, r.j, r.vertex_count * K * sizeof *j0);
    assert_memory_equal(w0, r.w, r.vertex_count * K * sizeof *w0);
    free(j0);
    free(w0);
    rig_free(&r);
}

/* Rows of four 1e38 slots on one joint merged to inf in float and
 * came back as NaN with SINEW_OK from smoothing and rogue removal. Merged in
 * double they are rows of weight 1 (with a second joint: 4/5 and 1/5). */
static void huge_duplicate_weights_stay_finite(void **state)
{
    (void)state;
    const float p[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint32_t tri[] = {0, 1, 2};
    sinew_trimesh m = {{p, 3, 0}, tri, 1, SINEW_INDEX_U32, 0};
    const uint32_t j0[15] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const float w0[15] = {1e38f, 1e38f, 1e38f, 1e38f, 1e38f, 1e38f, 1e38f, 1e38f, 1e38f, 1e38f,
                          1e38f, 1e38f, 1e38f, 1e38f, 1e38f};
    for (int tool = 0; tool < 2; ++tool) {
        uint32_t j[15];
        float w[15];
        memcpy(j, j0, sizeof j), memcpy(w, w0, sizeof w);
        sinew_skin_smooth_desc d = {sizeof(sinew_skin_smooth_desc), 2, 0.5f};
        sinew_result r = tool ? sinew_skin_remove_rogues(NULL, &m, 5, j, w, NULL)
                              : sinew_skin_smooth_weights(NULL, &m, 5, j, w, &d);
        assert_int_equal(r, SINEW_OK);
        assert_int_equal(first_bad_row(j, w, 3, 5), SIZE_MAX);
        /* Every row is the same (4/5, 1/5), a fixed point of both tools. */
        for (size_t v = 0; v < 3; ++v) {
            assert_float_equal(row_weight(j, w, 5, v, 0), 0.8, 1e-6);
            assert_float_equal(row_weight(j, w, 5, v, 1), 0.2, 1e-6);
        }
    }
}

/* ---- Smoothing ------------------------------------------------------------------ */

static void one_sweep_on_a_triangle_is_closed_form(void **state)
{
    (void)state;
    const float p[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 5, 5};
    const uint32_t tri[] = {0, 1, 2};
    uint32_t j[] = {0, 0, 1, 0, 1, 0, 3, 0};
    float w[] = {1, 0, 1, 0, 1, 0, 1, 0};
    sinew_trimesh m = {{p, 4, 0}, tri, 1, SINEW_INDEX_U32, 0};
    sinew_skin_smooth_desc d = {sizeof(sinew_skin_smooth_desc), 1, 0.5f};
    assert_int_equal(sinew_skin_smooth_weights(NULL, &m, 2, j, w, &d), SINEW_OK);
    /* v0: 0.5 [1,0] + 0.5 mean([0,1],[0,1]) = [0.5, 0.5]; v1: 0.5 [0,1] +
     * 0.5 mean([1,0],[0,1]) = [0.25, 0.75]; v3 has no neighbours. */
    assert_float_equal(row_weight(j, w, 2, 0, 0), 0.5, 1e-7);
    assert_float_equal(row_weight(j, w, 2, 0, 1), 0.5, 1e-7);
    assert_int_equal(j[2], 1);
    assert_float_equal(w[2], 0.75, 1e-7);
    assert_int_equal(j[3], 0);
    assert_float_equal(w[3], 0.25, 1e-7);
    assert_float_equal(row_weight(j, w, 2, 2, 0), 0.25, 1e-7);
    assert_true(j[6] == 3 && w[6] == 1.0f && w[7] == 0.0f);
    /* Strength 1: a vertex takes its neighbours' mean only, and its own joint
     * leaves no zero-weight slot behind. */
    uint32_t j2[] = {5, 0, 1, 0, 1, 0, 3, 0};
    float w2[] = {1, 0, 1, 0, 1, 0, 1, 0};
    d.strength = 1.0f;
    assert_int_equal(sinew_skin_smooth_weights(NULL, &m, 2, j2, w2, &d), SINEW_OK);
    assert_true(j2[0] == 1 && w2[0] == 1.0f && j2[1] == 0 && w2[1] == 0.0f);
    assert_int_equal(first_bad_row(j2, w2, 4, 2), SIZE_MAX);
}

/* Dense Jacobi smoothing written here; with k >= joints nothing is truncated,
 * so the library must agree with it. */
static void matches_dense_reference_and_reduces_roughness(void **state)
{
    (void)state;
    rig r = rig_make(0);
    sinew_trimesh m = rig_mesh(&r);
    size_t n = r.vertex_count;
    double *ref = calloc(2 * n, sizeof *ref), *next = calloc(2 * n, sizeof *next);
    for (size_t v = 0; v < n; ++v) ref[2 * v + r.j[v * K]] = 1.0;
    double before = dirichlet_energy(r.triangles, r.triangle_count, r.j, r.w, K, 2);
    const int iterations = 6;
    const double lambda = 0.4;
    /* Neighbours from the triangles, deduplicated by a dense flag per pair
     * (the tube is small). */
    unsigned char *adj = calloc(n * n, 1);
    for (size_t t = 0; t < r.triangle_count; ++t)
        for (int a = 0; a < 3; ++a) {
            uint32_t u = r.triangles[3 * t + a], v = r.triangles[3 * t + (a + 1) % 3];
            adj[u * n + v] = adj[v * n + u] = 1;
        }
    for (int it = 0; it < iterations; ++it) {
        for (size_t v = 0; v < n; ++v) {
            double mean[2] = {0, 0};
            int deg = 0;
            for (size_t u = 0; u < n; ++u)
                if (adj[v * n + u]) {
                    mean[0] += ref[2 * u];
                    mean[1] += ref[2 * u + 1];
                    ++deg;
                }
            for (int c = 0; c < 2; ++c) next[2 * v + c] = (1 - lambda) * ref[2 * v + c] + lambda * mean[c] / deg;
        }
        memcpy(ref, next, 2 * n * sizeof *ref);
    }
    sinew_skin_smooth_desc d = {sizeof(sinew_skin_smooth_desc), (uint32_t)iterations, (float)lambda};
    assert_int_equal(sinew_skin_smooth_weights(NULL, &m, K, r.j, r.w, &d), SINEW_OK);
    assert_int_equal(first_bad_row(r.j, r.w, n, K), SIZE_MAX);
    for (size_t v = 0; v < n; ++v) {
        assert_float_equal(row_weight(r.j, r.w, K, v, 0), ref[2 * v], 1e-5);
        assert_float_equal(row_weight(r.j, r.w, K, v, 1), ref[2 * v + 1], 1e-5);
    }
    double after = dirichlet_energy(r.triangles, r.triangle_count, r.j, r.w, K, 2);
    assert_true(after < 0.5 * before);
    free(adj);
    free(ref);
    free(next);
    rig_free(&r);
}

static void truncation_keeps_rows_valid_and_constant_fields_fixed(void **state)
{
    (void)state;
    /* Four joints in bands along the tube, one slot per vertex: each sweep
     * keeps only the largest joint, so rows stay single weights of 1. */
    tube t = tube_make(21, 8, 2.0f, 0.25f);
    sinew_trimesh m = tube_mesh(&t);
    uint32_t *j = calloc(t.vertex_count * 3, sizeof *j);
    float *w = calloc(t.vertex_count * 3, sizeof *w);
    for (size_t v = 0; v < t.vertex_count; ++v) {
        j[v * 3] = (uint32_t)(v / 8 / 6);
        w[v * 3] = 1.0f;
    }
    sinew_skin_smooth_desc d = {sizeof(sinew_skin_smooth_desc), 4, 1.0f};
    assert_int_equal(sinew_skin_smooth_weights(NULL, &m, 3, j, w, &d), SINEW_OK);
    assert_int_equal(first_bad_row(j, w, t.vertex_count, 3), SIZE_MAX);
    assert_int_equal(sinew_skin_prune_weights(NULL, t.vertex_count, 3, j, w, 1, 0.0f, j, w), SINEW_OK);
    for (size_t v = 0; v < t.vertex_count; ++v) assert_true(w[v] == 1.0f);
    /* A constant field is a fixed point (up to renormalisation rounding). */
    for (size_t v = 0; v < t.vertex_count; ++v) {
        j[2 * v] = 4, w[2 * v] = 0.25f;
        j[2 * v + 1] = 9, w[2 * v + 1] = 0.75f;
    }
    assert_int_equal(sinew_skin_smooth_weights(NULL, &m, 2, j, w, NULL), SINEW_OK);
    for (size_t v = 0; v < t.vertex_count; ++v) {
        assert_int_equal(j[2 * v], 9);
        assert_float_equal(w[2 * v], 0.75, 1e-6);
        assert_float_equal(w[2 * v + 1], 0.25, 1e-6);
    }
    free(j);
    free(w);
    tube_free(&t);
}

/* ---- Real data: libigl's arm, bound from its skeleton ------------------------------ */

/* Each joint's nonzero weights must form one connected region after rogue
 * removal: checked with a flood fill written here. */
static int every_joint_region_is_connected(const support_mesh *mesh, const uint32_t *j, const float *w, size_t k,
                                           size_t joints)
{
    size_t n = mesh->vertex_count;
    int ok = 1;
    unsigned char *seen = malloc(n);
    /* Sweeping the edges until nothing grows is slow but obviously right. */
    for (uint32_t jj = 0; jj < joints && ok; ++jj) {
        memset(seen, 0, n);
        size_t start = SIZE_MAX, members = 0, reached = 0;
        for (size_t v = 0; v < n; ++v)
            if (row_weight(j, w, k, v, jj) > 0) {
                if (start == SIZE_MAX) start = v;
                ++members;
            }
        if (start == SIZE_MAX) continue;
        seen[start] = 1;
        reached = 1;
        int grew = 1;
        while (grew) {
            grew = 0;
            for (size_t t = 0; t < mesh->triangle_count; ++t)
                for (int a = 0; a < 3; ++a) {
                    uint32_t u = mesh->triangles[3 * t + a], v = mesh->triangles[3 * t + (a + 1) % 3];
                    if (seen[u] != seen[v] && row_weight(j, w, k, u, jj) > 0 && row_weight(j, w, k, v, jj) > 0) {
                        seen[u] = seen[v] = 1;
                        ++reached;
                        grew = 1;
                    }
                }
        }
        if (reached != members) ok = 0;
    }
    free(seen);
    return ok;
}

static void arm_bind_clean_smooth_prune(void **state)
{
    (void)state;
    char obj[1024], tgf[1024];
    if (!support_data_path("libigl-tutorial-data/arm.obj", obj, sizeof obj) ||
        !support_data_path("libigl-tutorial-data/arm.tgf", tgf, sizeof tgf))
        skip();
    support_mesh mesh = {0};
    float *joints = NULL;
    uint32_t *bones = NULL;
    size_t joint_count = 0, bone_count = 0;
    assert_true(support_read_obj(obj, &mesh));
    assert_true(support_read_tgf(tgf, &joints, &joint_count, &bones, &bone_count));
    assert_true(bone_count >= 2);
    sinew_skin_capsule *caps = calloc(bone_count, sizeof *caps);
    for (size_t b = 0; b < bone_count; ++b) {
        memcpy(caps[b].head, joints + 3 * bones[2 * b], 3 * sizeof(float));
        memcpy(caps[b].tail, joints + 3 * bones[2 * b + 1], 3 * sizeof(float));
        caps[b].joint = (uint32_t)b;
    }
    size_t n = mesh.vertex_count, k = 4;
    uint32_t *j = malloc(n * k * sizeof *j);
    float *w = malloc(n * k * sizeof *w);
    sinew_points pts = support_mesh_points(&mesh);
    sinew_trimesh tm = support_mesh_trimesh(&mesh);
    sinew_skin_capsule_desc bd = {sizeof(sinew_skin_capsule_desc), (uint32_t)k, 0.5f, 0.9f, SINEW_SKIN_UNBOUND_NEAREST, SINEW_SKIN_CAPSULE_SCORE_BLEND};
    sinew_skin_capsule_report br;
    SINEW_INIT(&br);
    double t0 = support_now();
    assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, caps, bone_count, &bd, j, w, &br), SINEW_OK);
    assert_int_equal(first_bad_row(j, w, n, k), SIZE_MAX);
    sinew_skin_rogue_report rr;
    SINEW_INIT(&rr);
    double t1 = support_now();
    assert_int_equal(sinew_skin_remove_rogues(NULL, &tm, k, j, w, &rr), SINEW_OK);
    assert_int_equal(first_bad_row(j, w, n, k), SIZE_MAX);
    assert_true(every_joint_region_is_connected(&mesh, j, w, k, bone_count));
    double before = dirichlet_energy(mesh.triangles, mesh.triangle_count, j, w, k, (uint32_t)bone_count);
    sinew_skin_smooth_desc sd = {sizeof(sinew_skin_smooth_desc), 5, 0.5f};
    double t2 = support_now();
    assert_int_equal(sinew_skin_smooth_weights(NULL, &tm, k, j, w, &sd), SINEW_OK);
    double t3 = support_now();
    assert_int_equal(first_bad_row(j, w, n, k), SIZE_MAX);
    double after = dirichlet_energy(mesh.triangles, mesh.triangle_count, j, w, k, (uint32_t)bone_count);
    assert_true(after < before);
    assert_int_equal(sinew_skin_prune_weights(NULL, n, k, j, w, 2, 0.05f, j, w), SINEW_OK);
    assert_int_equal(first_bad_row(j, w, n, 2), SIZE_MAX);
    printf("arm: %zu vertices, %zu bones, %zu unbound (nearest), %zu rogue influences, %zu reattached, "
           "roughness %.3f -> %.3f; bind %.2f ms, rogues %.2f ms, 5 smoothing sweeps %.2f ms\n",
           n, bone_count, br.unbound_count, rr.influences_removed, rr.vertices_reattached, before, after,
           1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (t3 - t2));
    free(caps);
    free(j);
    free(w);
    free(joints);
    free(bones);
    support_mesh_free(&mesh);
}

/* ---- Errors, allocation failures, cancellation -------------------------------------- */

/* A per_vertex such that vertices * per_vertex fits but its bytes do
 * not: SIZE_OVERFLOW before a weight is read, weights untouched. */
static void impossible_counts_are_refused_before_reading(void **state)
{
    (void)state;
    const float p[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint32_t tri[] = {0, 1, 2};
    sinew_trimesh m = {{p, 3, 0}, tri, 1, SINEW_INDEX_U32, 0};
    uint32_t j[3] = {0, 0, 0};
    float w[3] = {1, 1, 1};
    const size_t slots = SIZE_MAX / 12 + 1;   /* 3 * slots fits in size_t, 12 * slots does not */
    assert_int_equal(sinew_skin_smooth_weights(NULL, &m, slots, j, w, NULL), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "smooth weights: 3 vertices"));
    assert_int_equal(sinew_skin_remove_rogues(NULL, &m, slots, j, w, NULL), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "rogue removal: 3 vertices"));
    for (int i = 0; i < 3; ++i) assert_true(j[i] == 0 && w[i] == 1.0f);
}

static void invalid_inputs_are_named(void **state)
{
    (void)state;
    float p[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    uint32_t tri[] = {0, 1, 2};
    uint32_t j[] = {0, 1, 1, 0, 2, 0};
    float w[] = {0.5f, 0.5f, 1, 0, 1, 0};
    sinew_trimesh m = {{p, 3, 0}, tri, 1, SINEW_INDEX_U32, 0};
    sinew_skin_smooth_desc sd;
    SINEW_INIT(&sd);
#define EXPECT_BOTH(code, text)                                                              \
    do {                                                                                     \
        assert_int_equal(sinew_skin_remove_rogues(NULL, &m, 2, j, w, NULL), (code));        \
        assert_non_null(strstr(sinew_last_error(), (text)));                                \
        assert_int_equal(sinew_skin_smooth_weights(NULL, &m, 2, j, w, &sd), (code));        \
        assert_non_null(strstr(sinew_last_error(), (text)));                                \
    } while (0)
    assert_int_equal(sinew_skin_remove_rogues(NULL, NULL, 2, j, w, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_smooth_weights(NULL, NULL, 2, j, w, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_remove_rogues(NULL, &m, 0, j, w, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_smooth_weights(NULL, &m, 2, NULL, w, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_remove_rogues(NULL, &m, 2, j, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    tri[2] = 3;
    EXPECT_BOTH(SINEW_ERROR_INDEX_OUT_OF_RANGE, "triangle 0 refers to vertex 3");
    tri[2] = 2;
    m.indices = NULL;
    EXPECT_BOTH(SINEW_ERROR_INVALID_ARGUMENT, "triangle indices are NULL");
    m.indices = tri;
    p[7] = INFINITY;
    EXPECT_BOTH(SINEW_ERROR_NON_FINITE, "mesh vertex 2");
    p[7] = 1;
    m.positions.count = 0;
    EXPECT_BOTH(SINEW_ERROR_INVALID_ARGUMENT, "no vertices");
    m.positions.count = 3;
    w[3] = NAN;
    EXPECT_BOTH(SINEW_ERROR_NON_FINITE, "vertex 1 slot 1");
    w[3] = -1;
    EXPECT_BOTH(SINEW_ERROR_INVALID_WEIGHTS, "vertex 1 slot 1 has a negative weight");
    w[3] = 0;
    w[4] = 0;
    EXPECT_BOTH(SINEW_ERROR_INVALID_WEIGHTS, "vertex 2 has no positive weight");
    w[4] = 1;
    sd.strength = 1.5f;
    assert_int_equal(sinew_skin_smooth_weights(NULL, &m, 2, j, w, &sd), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "strength 1.5"));
    sd.strength = NAN;
    assert_int_equal(sinew_skin_smooth_weights(NULL, &m, 2, j, w, &sd), SINEW_ERROR_NON_FINITE);
    sd.strength = 0;
    /* Nothing above touched the arrays. */
    const uint32_t j0[] = {0, 1, 1, 0, 2, 0};
    const float w0[] = {0.5f, 0.5f, 1, 0, 1, 0};
    assert_memory_equal(j, j0, sizeof j0);
    assert_memory_equal(w, w0, sizeof w0);
    /* Degenerate triangles (a repeated vertex) are fine: they add one edge. */
    tri[2] = 1;
    assert_int_equal(sinew_skin_smooth_weights(NULL, &m, 2, j, w, &sd), SINEW_OK);
    assert_true(w[4] == 1.0f && j[4] == 2);   /* vertex 2 is no longer connected */
#undef EXPECT_BOTH
}

typedef struct sweep_case {
    int smooth;
} sweep_case;

/* A failure must say what failed. An out-of-memory result
 * without the allocation named in the message becomes INVALID_STATE, which
 * the sweep reports. */
static sinew_result named_failure(sinew_result r)
{
    if (r == SINEW_ERROR_OUT_OF_MEMORY && !strstr(sinew_last_error(), "out of memory allocating "))
        return SINEW_ERROR_INVALID_STATE;
    return r;
}

static sinew_result tools_attempt(sinew_context *ctx, void *user)
{
    sweep_case *c = (sweep_case *)user;
    rig fresh = rig_make(1);
    set_row(&fresh, 3 * 8, 0, 0.7f, 1, 0.3f);
    sinew_trimesh m = rig_mesh(&fresh);
    sinew_result r = c->smooth ? sinew_skin_smooth_weights(ctx, &m, K, fresh.j, fresh.w, NULL)
                               : sinew_skin_remove_rogues(ctx, &m, K, fresh.j, fresh.w, NULL);
    rig_free(&fresh);
    return named_failure(r);
}

static void allocation_failures_are_clean(void **state)
{
    (void)state;
    char report[256];
    for (int smooth = 0; smooth < 2; ++smooth) {
        sweep_case c = {smooth};
        size_t runs = 0;
        assert_true(support_sweep_allocation_failures(tools_attempt, &c, &runs, report, sizeof report));
        assert_true(runs > 4);
    }
}

static int cancel_second(void *user, const char *stage, float fraction)
{
    (void)stage;
    (void)fraction;
    return ++*(int *)user == 2;
}

static void cancellation_leaves_weights_untouched(void **state)
{
    (void)state;
    for (int smooth = 0; smooth < 2; ++smooth) {
        int calls = 0;
        sinew_context_desc cd;
        SINEW_INIT(&cd);
        cd.progress = cancel_second;
        cd.progress_user = &calls;
        sinew_context *ctx = NULL;
        assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
        rig r = rig_make(1);   /* the island makes rogue removal report twice */
        sinew_trimesh m = rig_mesh(&r);
        uint32_t *j0 = malloc(r.vertex_count * K * sizeof *j0);
        float *w0 = malloc(r.vertex_count * K * sizeof *w0);
        memcpy(j0, r.j, r.vertex_count * K * sizeof *j0);
        memcpy(w0, r.w, r.vertex_count * K * sizeof *w0);
        sinew_result res = smooth ? sinew_skin_smooth_weights(ctx, &m, K, r.j, r.w, NULL)
                                  : sinew_skin_remove_rogues(ctx, &m, K, r.j, r.w, NULL);
        assert_int_equal(res, SINEW_ERROR_CANCELLED);
        assert_memory_equal(j0, r.j, r.vertex_count * K * sizeof *j0);
        assert_memory_equal(w0, r.w, r.vertex_count * K * sizeof *w0);
        free(j0);
        free(w0);
        rig_free(&r);
        sinew_context_destroy(ctx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rogue_influences_and_islands_are_fixed),
        cmocka_unit_test(main_region_is_the_heaviest),
        cmocka_unit_test(clean_binding_is_a_fixed_point),
        cmocka_unit_test(huge_duplicate_weights_stay_finite),
        cmocka_unit_test(one_sweep_on_a_triangle_is_closed_form),
        cmocka_unit_test(matches_dense_reference_and_reduces_roughness),
        cmocka_unit_test(truncation_keeps_rows_valid_and_constant_fields_fixed),
        cmocka_unit_test(arm_bind_clean_smooth_prune),
        cmocka_unit_test(impossible_counts_are_refused_before_reading),
        cmocka_unit_test(invalid_inputs_are_named),
        cmocka_unit_test(allocation_failures_are_clean),
        cmocka_unit_test(cancellation_leaves_weights_untouched),
    };
    return cmocka_run_group_tests_name("skin tools: rogue removal and smoothing", tests, NULL, NULL);
}
