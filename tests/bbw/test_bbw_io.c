/*
 * Saving and loading bounded biharmonic weights: round trips of every domain
 * (2D triangles, tets, the automatic volume), every handle kind and every
 * state (unsolved, solved, not converged), with bit-identical queries and
 * identical bytes when saved again; a loaded handle solved again equals the
 * original solved; the golden file of format version 1; truncation, bit
 * flips and resealed byte changes at every offset of a small file; targeted
 * corruptions with their codes and messages; allocation failures; the save
 * contract (size query, BUFFER_TOO_SMALL) and the header checks (kind,
 * format version).
 *
 * With SINEW_WRITE_GOLDEN=1 the golden test writes tests/golden/bbw-v1.bin
 * and the load_bbw fuzz target's seed corpus instead of reading them.
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
#include "support.h"

/* ---- helpers ------------------------------------------------------------ */

typedef struct saved {
    unsigned char *bytes;
    size_t size;
} saved;

static sinew_bbw *create_ok(const sinew_bbw_desc *d)
{
    sinew_bbw *b = NULL;
    sinew_result r = sinew_bbw_create(NULL, d, &b);
    if (r != SINEW_OK) fail_msg("create: %s: %s", sinew_result_string(r), sinew_last_error());
    return b;
}

static saved save_ok(const sinew_bbw *b)
{
    saved s = {NULL, 0};
    assert_int_equal(sinew_bbw_save(b, NULL, 0, &s.size), SINEW_OK);
    assert_true(s.size > 0 && s.size % 64 == 0);
    s.bytes = malloc(s.size);
    size_t written = 0;
    assert_int_equal(sinew_bbw_save(b, s.bytes, s.size, &written), SINEW_OK);
    assert_int_equal(written, s.size);
    return s;
}

static sinew_bbw *load_ok(const saved *s)
{
    sinew_bbw *b = NULL;
    sinew_result r = sinew_bbw_load(NULL, s->bytes, s->size, &b);
    if (r != SINEW_OK) fail_msg("load: %s: %s", sinew_result_string(r), sinew_last_error());
    return b;
}

static size_t lowest_x(const float *pos, size_t n)
{
    size_t best = 0;
    for (size_t v = 1; v < n; ++v)
        if (pos[3 * v] < pos[3 * best]) best = v;
    return best;
}

/* Points to query: every domain vertex, element centroids, a point just
 * outside the domain (within the snapping reach) and one far outside. */
static float *query_points(const sinew_bbw *b, size_t *count)
{
    sinew_bbw_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_bbw_get_info(b, &info), SINEW_OK);
    size_t n = info.vertex_count, ne = info.element_count < 64 ? info.element_count : 64;
    float *pos = malloc(n * 3 * sizeof(float));
    assert_int_equal(sinew_bbw_domain_vertices(b, pos, 0, 0, n), SINEW_OK);
    uint32_t per = 4, *el = malloc(ne * 4 * sizeof(uint32_t));
    assert_int_equal(sinew_bbw_domain_elements(b, el, 0, ne), SINEW_OK);
    int flat = 1;
    for (size_t v = 0; v < n; ++v) flat &= pos[3 * v + 2] == 0.0f;
    if (flat) per = 3; /* 2D domains (the tests' 3D domains are not flat) */
    *count = n + ne + 2;
    float *q = malloc(*count * 3 * sizeof(float));
    memcpy(q, pos, n * 3 * sizeof(float));
    for (size_t e = 0; e < ne; ++e)
        for (int a = 0; a < 3; ++a) {
            float s = 0.0f;
            for (uint32_t k = 0; k < per; ++k) s += pos[3 * el[e * per + k] + a];
            q[3 * (n + e) + a] = s / (float)per;
        }
    float lo[3] = {pos[0], pos[1], pos[2]};
    for (size_t v = 0; v < n; ++v)
        for (int a = 0; a < 3; ++a) lo[a] = fminf(lo[a], pos[3 * v + a]);
    for (int a = 0; a < 3; ++a) {
        /* Next to the box's lowest vertex in x: possibly just outside, within reach. */
        q[3 * (n + ne) + a] = pos[3 * lowest_x(pos, n) + a] - (a == 0 ? 1e-4f : 0.0f);
        q[3 * (n + ne + 1) + a] = lo[a] - 1e3f; /* far outside: OUTSIDE_DOMAIN for both */
    }
    free(pos);
    free(el);
    return q;
}

static void assert_same_info(const sinew_bbw_info *a, const sinew_bbw_info *b)
{
    assert_int_equal(a->vertex_count, b->vertex_count);
    assert_int_equal(a->element_count, b->element_count);
    assert_int_equal(a->handle_count, b->handle_count);
    assert_int_equal(a->constrained_vertex_count, b->constrained_vertex_count);
    assert_int_equal(a->unreached_vertex_count, b->unreached_vertex_count);
    assert_int_equal(a->unreached_region_count, b->unreached_region_count);
    assert_int_equal(a->first_unreached_vertex, b->first_unreached_vertex);
    assert_int_equal(a->solved, b->solved);
    assert_int_equal(a->iterations, b->iterations);
    assert_int_equal(a->polish_rounds, b->polish_rounds);
    assert_int_equal(a->factor_nonzeros, b->factor_nonzeros);
    assert_int_equal(a->grid_resolution, b->grid_resolution);
    assert_int_equal(a->refined_cell_count, b->refined_cell_count);
    assert_int_equal(a->handle_cell_count, b->handle_cell_count);
    assert_int_equal(a->coarse_levels_used, b->coarse_levels_used);
    const double x[] = {a->primal_residual, a->change_residual, a->error_bound,      a->seconds_domain,
                        a->seconds_operators, a->seconds_solve,  a->grid_cell_size, a->finest_cell_size,
                        a->max_snap_distance};
    const double y[] = {b->primal_residual, b->change_residual, b->error_bound,      b->seconds_domain,
                        b->seconds_operators, b->seconds_solve,  b->grid_cell_size, b->finest_cell_size,
                        b->max_snap_distance};
    assert_memory_equal(x, y, sizeof x);
}

/* The same result code and the same bytes out of one query on two handles. */
#define SAME_QUERY(call_a, call_b, out_a, out_b, bytes)                                                           \
    do {                                                                                                           \
        memset(out_a, 0xA5, bytes);                                                                                \
        memset(out_b, 0xA5, bytes);                                                                                \
        sinew_result ra_ = (call_a), rb_ = (call_b);                                                               \
        assert_int_equal(ra_, rb_);                                                                                \
        assert_memory_equal(out_a, out_b, bytes);                                                                  \
    } while (0)

/* Every query answers the same bits on a and b. */
static void assert_same_queries(const sinew_bbw *a, const sinew_bbw *b)
{
    sinew_bbw_info ia, ib;
    SINEW_INIT(&ia);
    SINEW_INIT(&ib);
    assert_int_equal(sinew_bbw_get_info(a, &ia), SINEW_OK);
    assert_int_equal(sinew_bbw_get_info(b, &ib), SINEW_OK);
    assert_same_info(&ia, &ib);
    size_t n = ia.vertex_count, m = ia.handle_count, ne = ia.element_count, qn;
    float *fa = malloc(n * 3 * sizeof(float)), *fb = malloc(n * 3 * sizeof(float));
    SAME_QUERY(sinew_bbw_domain_vertices(a, fa, 0, 0, n), sinew_bbw_domain_vertices(b, fb, 0, 0, n), fa, fb,
               n * 3 * sizeof(float));
    uint32_t *ea = malloc(ne * 4 * sizeof(uint32_t)), *eb = malloc(ne * 4 * sizeof(uint32_t));
    SAME_QUERY(sinew_bbw_domain_elements(a, ea, 0, ne), sinew_bbw_domain_elements(b, eb, 0, ne), ea, eb,
               ne * 4 * sizeof(uint32_t));
    float *q = query_points(a, &qn);
    sinew_points pts = {q, qn, 0};
    size_t rows = qn > n ? qn : n;
    float *wa = malloc(rows * m * sizeof(float)), *wb = malloc(rows * m * sizeof(float));
    SAME_QUERY(sinew_bbw_vertex_weights(a, wa, 0, n), sinew_bbw_vertex_weights(b, wb, 0, n), wa, wb,
               n * m * sizeof(float));
    /* All points but the far one, then the far one alone (OUTSIDE_DOMAIN). */
    SAME_QUERY(sinew_bbw_point_weights(a, &pts, wa, 0, qn - 1), sinew_bbw_point_weights(b, &pts, wb, 0, qn - 1), wa,
               wb, (qn - 1) * m * sizeof(float));
    if (ia.solved) assert_int_equal(sinew_bbw_point_weights(a, &pts, wa, 0, qn - 1), SINEW_OK);
    SAME_QUERY(sinew_bbw_point_weights(a, &pts, wa, qn - 1, 1), sinew_bbw_point_weights(b, &pts, wb, qn - 1, 1), wa,
               wb, m * sizeof(float));
    uint32_t k = m < 4 ? (uint32_t)m : 4;
    uint32_t *ja = malloc(rows * k * sizeof(uint32_t)), *jb = malloc(rows * k * sizeof(uint32_t));
    SAME_QUERY(sinew_bbw_top_k(a, NULL, k, ja, wa, 0, n), sinew_bbw_top_k(b, NULL, k, jb, wb, 0, n), ja, jb,
               n * k * sizeof(uint32_t));
    assert_memory_equal(wa, wb, n * k * sizeof(float));
    SAME_QUERY(sinew_bbw_top_k(a, &pts, k, ja, wa, 0, qn - 1), sinew_bbw_top_k(b, &pts, k, jb, wb, 0, qn - 1), ja,
               jb, (qn - 1) * k * sizeof(uint32_t));
    assert_memory_equal(wa, wb, (qn - 1) * k * sizeof(float));
    free(fa);
    free(fb);
    free(ea);
    free(eb);
    free(q);
    free(wa);
    free(wb);
    free(ja);
    free(jb);
}

/* Save, load, compare every query, save the loaded handle again: the same
 * bytes. Returns the saved data (caller frees). */
static saved round_trip(const sinew_bbw *b)
{
    saved s = save_ok(b);
    sinew_bbw *loaded = load_ok(&s);
    assert_same_queries(b, loaded);
    saved again = save_ok(loaded);
    assert_int_equal(again.size, s.size);
    assert_memory_equal(again.bytes, s.bytes, s.size);
    free(again.bytes);
    sinew_bbw_destroy(loaded);
    return s;
}

static void solve_expect(sinew_bbw *b, const sinew_bbw_solve_desc *sd, sinew_result expected)
{
    sinew_result r = sinew_bbw_solve(NULL, b, sd);
    if (r != expected) fail_msg("solve: %s: %s", sinew_result_string(r), sinew_last_error());
}

/* Round trip before the solve (loads unsolved), after it, and a solve of
 * the loaded unsolved handle equal to the original's solve. */
static void round_trip_states(const sinew_bbw_desc *d, const sinew_bbw_solve_desc *sd, sinew_result expected)
{
    sinew_bbw *b = create_ok(d);
    saved unsolved = round_trip(b);
    sinew_bbw *loaded = load_ok(&unsolved);
    float w;
    assert_int_equal(sinew_bbw_vertex_weights(loaded, &w, 0, 1), SINEW_ERROR_INVALID_STATE);
    solve_expect(b, sd, expected);
    solve_expect(loaded, sd, expected);
    /* Solved from loaded data: the same weights and figures (the timings
     * aside), so a saved, unsolved handle is as good as a created one. */
    sinew_bbw_info ia, ib;
    SINEW_INIT(&ia);
    SINEW_INIT(&ib);
    assert_int_equal(sinew_bbw_get_info(b, &ia), SINEW_OK);
    assert_int_equal(sinew_bbw_get_info(loaded, &ib), SINEW_OK);
    ib.seconds_domain = ia.seconds_domain;
    ib.seconds_operators = ia.seconds_operators;
    ib.seconds_solve = ia.seconds_solve;
    assert_same_info(&ia, &ib);
    size_t cells = ia.vertex_count * ia.handle_count;
    float *wa = malloc(cells * sizeof(float)), *wb = malloc(cells * sizeof(float));
    assert_int_equal(sinew_bbw_vertex_weights(b, wa, 0, ia.vertex_count), SINEW_OK);
    assert_int_equal(sinew_bbw_vertex_weights(loaded, wb, 0, ia.vertex_count), SINEW_OK);
    assert_memory_equal(wa, wb, cells * sizeof(float));
    free(wa);
    free(wb);
    saved solved = round_trip(b);
    /* A loaded solved handle solves again. */
    sinew_bbw *again = load_ok(&solved);
    solve_expect(again, sd, expected);
    sinew_bbw_destroy(again);
    free(solved.bytes);
    free(unsolved.bytes);
    sinew_bbw_destroy(loaded);
    sinew_bbw_destroy(b);
}

/* ---- the cases' domains ------------------------------------------------------ */

/* 2D: 4 x 4 cells over the unit square, two point handles, a bone and an
 * open two-vertex cage (handles 0-1 points, 2 the bone, 3-4 the cage). */
typedef struct case2d {
    grid2d g;
    sinew_trimesh tm;
    float points[6], joints[6], cage_vertices[6];
    uint32_t bones[2], cage_edges[2];
    sinew_bbw_cage cage;
    sinew_bbw_desc desc;
} case2d;

static void case2d_make(case2d *c, size_t cells)
{
    memset(c, 0, sizeof *c);
    grid2d_make(&c->g, cells, cells, 1.0f, 1.0f);
    c->tm = (sinew_trimesh){{c->g.positions, c->g.vertex_count, 0}, c->g.triangles, c->g.triangle_count, SINEW_INDEX_U32, 0};
    const float points[6] = {0, 0, 0, 1, 1, 0}, joints[6] = {0.25f, 0.75f, 0, 0.75f, 0.75f, 0};
    const float cage[6] = {0.0f, 0.5f, 0, 1.0f, 0.5f, 0};
    memcpy(c->points, points, sizeof points);
    memcpy(c->joints, joints, sizeof joints);
    memcpy(c->cage_vertices, cage, sizeof cage);
    c->bones[0] = 0;
    c->bones[1] = 1;
    c->cage_edges[0] = 0;
    c->cage_edges[1] = 1;
    c->cage = (sinew_bbw_cage){{c->cage_vertices, 2, 0}, c->cage_edges, 1, NULL, 0};
    SINEW_INIT(&c->desc);
    c->desc.triangles = &c->tm;
    c->desc.points = (sinew_points){c->points, 2, 0};
    c->desc.joint_positions = (sinew_points){c->joints, 2, 0};
    c->desc.bones = c->bones;
    c->desc.bone_count = 1;
    c->desc.cages = &c->cage;
    c->desc.cage_count = 1;
}

/* The small 2D data every corruption test uses: the golden file's case,
 * solved exactly to 1e-6. */
static saved small_saved(void)
{
    case2d c;
    case2d_make(&c, 4);
    sinew_bbw *b = create_ok(&c.desc);
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.tolerance = 1e-6;
    solve_expect(b, &sd, SINEW_OK);
    saved s = save_ok(b);
    sinew_bbw_destroy(b);
    grid2d_free(&c.g);
    return s;
}

/* ---- round trips --------------------------------------------------------------- */

static void test_round_trip_2d(void **state)
{
    (void)state;
    case2d c;
    case2d_make(&c, 8);
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    round_trip_states(&c.desc, &sd, SINEW_OK);
    sd.partition = SINEW_BBW_PARTITION_NORMALISE;
    round_trip_states(&c.desc, &sd, SINEW_OK);
    grid2d_free(&c.g);
}

static void test_round_trip_not_converged(void **state)
{
    (void)state;
    case2d c;
    case2d_make(&c, 8);
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.max_iterations = 2;
    round_trip_states(&c.desc, &sd, SINEW_ERROR_NOT_CONVERGED);
    sd.max_iterations = 1; /* the change residual is still infinite */
    sd.partition = SINEW_BBW_PARTITION_NORMALISE;
    round_trip_states(&c.desc, &sd, SINEW_ERROR_NOT_CONVERGED);
    grid2d_free(&c.g);
}

static void test_round_trip_tets(void **state)
{
    (void)state;
    grid3d g;
    grid3d_make(&g, 3, 1.0f);
    sinew_tetmesh tm = {{g.positions, g.vertex_count, 0}, g.tets, g.tet_count, SINEW_INDEX_U32, 0};
    float points[9] = {0, 0, 0, 1, 1, 1, 1, 0, 0.5f};
    float joints[6] = {0, 1, 0, 0, 1, 1};
    uint32_t bones[2] = {0, 1};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tm;
    d.points = (sinew_points){points, 3, 0};
    d.joint_positions = (sinew_points){joints, 2, 0};
    d.bones = bones;
    d.bone_count = 1;
    round_trip_states(&d, NULL, SINEW_OK);
    grid3d_free(&g);
}

/* A 3D cage of triangles inside a tet grid: cage vertices are handles. */
static void test_round_trip_cage_3d(void **state)
{
    (void)state;
    grid3d g;
    grid3d_make(&g, 4, 1.0f);
    sinew_tetmesh tm = {{g.positions, g.vertex_count, 0}, g.tets, g.tet_count, SINEW_INDEX_U32, 0};
    float cv[12] = {0.25f, 0.25f, 0.25f, 0.75f, 0.25f, 0.25f, 0.25f, 0.75f, 0.25f, 0.25f, 0.25f, 0.75f};
    uint32_t ct[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    sinew_bbw_cage cage = {{cv, 4, 0}, NULL, 0, ct, 4};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tm;
    d.cages = &cage;
    d.cage_count = 1;
    round_trip_states(&d, NULL, SINEW_OK);
    grid3d_free(&g);
}

/* Unit cube surface (outward triangles). */
static size_t cube_surface(float *pos, uint32_t *tri)
{
    for (int c = 0; c < 8; ++c) {
        pos[3 * c] = (float)(c & 1);
        pos[3 * c + 1] = (float)(c >> 1 & 1);
        pos[3 * c + 2] = (float)(c >> 2 & 1);
    }
    static const uint32_t faces[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                          {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
    memcpy(tri, faces, sizeof faces);
    return 12;
}

static void test_round_trip_automatic_volume(void **state)
{
    (void)state;
    float pos[24];
    uint32_t tri[36];
    size_t tc = cube_surface(pos, tri);
    sinew_trimesh surf = {{pos, 8, 0}, tri, tc, SINEW_INDEX_U32, 0};
    float pts[6] = {0.2f, 0.5f, 0.5f, 0.8f, 0.5f, 0.5f};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.surface = &surf;
    d.grid_resolution = 5;
    d.points = (sinew_points){pts, 2, 0};
    round_trip_states(&d, NULL, SINEW_OK);
    /* The automatic volume snaps the surface's own corners (outside the
     * voxels' reach of the tet grid): the reach is saved, not re-derived. */
    sinew_bbw *b = create_ok(&d);
    solve_expect(b, NULL, SINEW_OK);
    saved s = save_ok(b);
    sinew_bbw *loaded = load_ok(&s);
    sinew_points corners = {pos, 8, 0};
    float wa[16], wb[16];
    assert_int_equal(sinew_bbw_point_weights(b, &corners, wa, 0, 8), SINEW_OK);
    assert_int_equal(sinew_bbw_point_weights(loaded, &corners, wb, 0, 8), SINEW_OK);
    assert_memory_equal(wa, wb, sizeof wa);
    free(s.bytes);
    sinew_bbw_destroy(loaded);
    sinew_bbw_destroy(b);
}

/* Two separate squares, handles in the first: the unreached figures and
 * the zero rows travel. */
static void test_round_trip_unreached(void **state)
{
    (void)state;
    grid2d g;
    grid2d_make(&g, 4, 4, 1.0f, 1.0f);
    size_t n = g.vertex_count, t = g.triangle_count;
    float *pos = malloc(2 * n * 3 * sizeof(float));
    uint32_t *tri = malloc(2 * t * 3 * sizeof(uint32_t));
    memcpy(pos, g.positions, n * 3 * sizeof(float));
    for (size_t v = 0; v < n; ++v) {
        pos[3 * (n + v)] = g.positions[3 * v] + 3.0f;
        pos[3 * (n + v) + 1] = g.positions[3 * v + 1];
        pos[3 * (n + v) + 2] = 0.0f;
    }
    memcpy(tri, g.triangles, t * 3 * sizeof(uint32_t));
    for (size_t k = 0; k < 3 * t; ++k) tri[3 * t + k] = g.triangles[k] + (uint32_t)n;
    sinew_trimesh tm = {{pos, 2 * n, 0}, tri, 2 * t, SINEW_INDEX_U32, 0};
    float pts[6] = {0, 0, 0, 1, 1, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points = (sinew_points){pts, 2, 0};
    round_trip_states(&d, NULL, SINEW_OK);
    free(pos);
    free(tri);
    grid2d_free(&g);
}

/* libigl's hand (7,234 vertices, 29,998 tets, 20 bones), solved with the
 * defaults: real data through the round trip. Skips without the data. */
static void test_round_trip_hand(void **state)
{
    (void)state;
    char mp[1024], tp[1024];
    if (!support_data_path("libigl-tutorial-data/hand.mesh", mp, sizeof mp) ||
        !support_data_path("libigl-tutorial-data/hand.tgf", tp, sizeof tp))
        skip();
    support_mesh mesh = {0};
    float *joints;
    uint32_t *bones;
    size_t jc, bc;
    assert_true(support_read_medit(mp, &mesh));
    assert_true(support_read_tgf(tp, &joints, &jc, &bones, &bc));
    sinew_tetmesh tm = {support_mesh_points(&mesh), mesh.tets, mesh.tet_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tm;
    d.joint_positions = (sinew_points){joints, jc, 0};
    d.bones = bones;
    d.bone_count = bc;
    sinew_bbw *b = create_ok(&d);
    solve_expect(b, NULL, SINEW_OK);
    saved s = round_trip(b);
    printf("hand: %zu bytes saved\n", s.size);
    free(s.bytes);
    sinew_bbw_destroy(b);
    free(joints);
    free(bones);
    support_mesh_free(&mesh);
}

/* ---- the golden file ------------------------------------------------------------- */

static bool golden_path(const char *name, char *buf, size_t size)
{
    const char *dir = getenv("SINEW_GOLDEN_DIR");
    if (!dir) return false;
    snprintf(buf, size, "%s/%s", dir, name);
    return true;
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size) fail_msg("cannot write %s", path);
    fclose(f);
    printf("wrote %s (%zu bytes)\n", path, size);
}

static saved read_file(const char *path)
{
    saved s = {NULL, 0};
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    s.size = (size_t)len;
    s.bytes = malloc(s.size ? s.size : 1);
    if (fread(s.bytes, 1, s.size, f) != s.size) fail_msg("cannot read %s", path);
    fclose(f);
    return s;
}

/* Seeds of the load_bbw fuzz target: real saved data of each domain and
 * state, kept small. */
/* The automatic volume of the unit cube squashed to `height` in z, at
 * `cells`, two point handles. */
static sinew_bbw *cube_volume(uint32_t cells, float height)
{
    float pos[24];
    uint32_t tri[36];
    sinew_trimesh surf = {{pos, 8, 0}, tri, cube_surface(pos, tri), SINEW_INDEX_U32, 0};
    for (int v = 0; v < 8; ++v) pos[3 * v + 2] *= height;
    float pts[6] = {0.2f, 0.5f, 0.5f * height, 0.8f, 0.5f, 0.5f * height};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.surface = &surf;
    d.grid_resolution = cells;
    d.points = (sinew_points){pts, 2, 0};
    return create_ok(&d);
}

static uint32_t saved_version(const saved *s)
{
    sinew_saved_info si;
    SINEW_INIT(&si);
    assert_int_equal(sinew_saved_get_info(s->bytes, s->size, &si), SINEW_OK);
    return si.format_version;
}

/* The cube's automatic volume at 2 cells, solved and saved: the small
 * format version 2 data of the checks below and of the fuzz seed. */
static saved small_volume_saved(void)
{
    sinew_bbw *b = cube_volume(2, 1.0f);
    solve_expect(b, NULL, SINEW_OK);
    saved s = save_ok(b);
    sinew_bbw_destroy(b);
    return s;
}

/* A given tet mesh (g: a 2-cube grid, freed by the caller) with point
 * handles at two opposite corners, which are its vertices. */
static sinew_bbw *given_grid_bbw(grid3d *g)
{
    grid3d_make(g, 2, 1.0f);
    sinew_tetmesh tm = {{g->positions, g->vertex_count, 0}, g->tets, g->tet_count, SINEW_INDEX_U32, 0};
    float points[6] = {0, 0, 0, 1, 1, 1};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tm;
    d.points = (sinew_points){points, 2, 0};
    return create_ok(&d);
}

static void write_fuzz_corpus(const char *dir)
{
    char path[1024];
    case2d c;
    case2d_make(&c, 3);
    sinew_bbw *b = create_ok(&c.desc);
    saved s = save_ok(b);
    snprintf(path, sizeof path, "%s/seed-2d-unsolved", dir);
    write_file(path, s.bytes, s.size);
    free(s.bytes);
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.max_iterations = 1;
    sd.partition = SINEW_BBW_PARTITION_NORMALISE;
    solve_expect(b, &sd, SINEW_ERROR_NOT_CONVERGED);
    s = save_ok(b);
    snprintf(path, sizeof path, "%s/seed-2d-not-converged", dir);
    write_file(path, s.bytes, s.size);
    free(s.bytes);
    sinew_bbw_destroy(b);
    grid2d_free(&c.g);

    grid3d g;
    b = given_grid_bbw(&g);
    solve_expect(b, NULL, SINEW_OK);
    s = save_ok(b);
    snprintf(path, sizeof path, "%s/seed-3d-solved", dir);
    write_file(path, s.bytes, s.size);
    free(s.bytes);
    sinew_bbw_destroy(b);
    grid3d_free(&g);

    s = small_volume_saved();
    snprintf(path, sizeof path, "%s/seed-volume-solved", dir);
    write_file(path, s.bytes, s.size);
    free(s.bytes);
}

/* tests/golden/bbw-v1.bin: the small 2D case, solved exactly to 1e-6 by
 * the version that wrote it. Read now, it must give that domain and those
 * constraints exactly, weights within the solve's accuracy of the ones this
 * version computes, and the same bytes when saved again (the library
 * version field and the checksum aside). */
static void test_golden(void **state)
{
    (void)state;
    char path[1024];
    if (!golden_path("bbw-v1.bin", path, sizeof path)) skip();
    if (getenv("SINEW_WRITE_GOLDEN")) {
        saved s = small_saved();
        write_file(path, s.bytes, s.size);
        free(s.bytes);
        const char *corpus = getenv("SINEW_FUZZ_CORPUS_DIR");
        if (corpus) write_fuzz_corpus(corpus);
        return;
    }
    saved golden = read_file(path);
    sinew_saved_info si;
    SINEW_INIT(&si);
    assert_int_equal(sinew_saved_get_info(golden.bytes, golden.size, &si), SINEW_OK);
    assert_int_equal(si.kind, SINEW_KIND_BBW);
    assert_int_equal(si.format_version, 1);
    sinew_bbw *loaded = load_ok(&golden);
    saved now = small_saved();
    sinew_bbw *fresh = load_ok(&now);
    sinew_bbw_info il, inow;
    SINEW_INIT(&il);
    SINEW_INIT(&inow);
    assert_int_equal(sinew_bbw_get_info(loaded, &il), SINEW_OK);
    assert_int_equal(sinew_bbw_get_info(fresh, &inow), SINEW_OK);
    assert_int_equal(il.vertex_count, 25);
    assert_int_equal(il.element_count, 32);
    assert_int_equal(il.handle_count, 5);
    assert_int_equal(il.vertex_count, inow.vertex_count);
    assert_int_equal(il.constrained_vertex_count, inow.constrained_vertex_count);
    assert_int_equal(il.unreached_vertex_count, 0);
    assert_int_equal(il.solved, 1);
    assert_true(il.error_bound <= 1e-6);
    size_t n = il.vertex_count, m = il.handle_count;
    float pa[75], pb[75], wa[125], wb[125];
    uint32_t ea[96], eb[96];
    assert_int_equal(sinew_bbw_domain_vertices(loaded, pa, 0, 0, n), SINEW_OK);
    assert_int_equal(sinew_bbw_domain_vertices(fresh, pb, 0, 0, n), SINEW_OK);
    assert_memory_equal(pa, pb, sizeof pa);
    assert_int_equal(sinew_bbw_domain_elements(loaded, ea, 0, il.element_count), SINEW_OK);
    assert_int_equal(sinew_bbw_domain_elements(fresh, eb, 0, il.element_count), SINEW_OK);
    assert_memory_equal(ea, eb, sizeof ea);
    assert_int_equal(sinew_bbw_vertex_weights(loaded, wa, 0, n), SINEW_OK);
    assert_int_equal(sinew_bbw_vertex_weights(fresh, wb, 0, n), SINEW_OK);
    for (size_t k = 0; k < n * m; ++k)
        if (fabsf(wa[k] - wb[k]) > 1e-4f) fail_msg("weight %zu: golden %g, now %g", k, (double)wa[k], (double)wb[k]);
    saved again = save_ok(loaded);
    assert_int_equal(again.size, golden.size);
    assert_memory_equal(again.bytes, golden.bytes, 12);
    assert_memory_equal(again.bytes + 16, golden.bytes + 16, 16);
    assert_memory_equal(again.bytes + 40, golden.bytes + 40, golden.size - 40);
    free(again.bytes);
    free(now.bytes);
    free(golden.bytes);
    sinew_bbw_destroy(fresh);
    sinew_bbw_destroy(loaded);
}

/* ---- corrupted data ------------------------------------------------------------------- */

/* Loads; on success every query must answer with finite values in range,
 * a solve must work, and saving again must give the bytes loaded (one
 * spelling per handle; the library version field and checksum aside). */
static sinew_result load_and_use(const void *data, size_t size, void *user)
{
    (void)user;
    sinew_bbw *b = NULL;
    sinew_result r = sinew_bbw_load(NULL, data, size, &b);
    if (r != SINEW_OK) {
        if (b) fail_msg("a failed load wrote *out");
        return r;
    }
    sinew_bbw_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_bbw_get_info(b, &info), SINEW_OK);
    size_t qn, m = info.handle_count;
    float *q = query_points(b, &qn);
    sinew_points pts = {q, qn, 0};
    float *w = malloc((qn + info.vertex_count) * m * sizeof(float));
    if (info.solved) {
        assert_int_equal(sinew_bbw_vertex_weights(b, w, 0, info.vertex_count), SINEW_OK);
        sinew_result pr = sinew_bbw_point_weights(b, &pts, w, 0, qn - 1);
        assert_true(pr == SINEW_OK || pr == SINEW_ERROR_OUTSIDE_DOMAIN);
        /* Interpolated weights are convex combinations of the vertices'
         * (clamped barycentric coordinates): never below zero, at most a
         * float rounding above one. */
        for (size_t k = 0; pr == SINEW_OK && k < (qn - 1) * m; ++k)
            if (!(w[k] >= 0.0f && w[k] <= 1.0f + 1e-6f)) fail_msg("point %zu handle %zu: weight %.9g", k / m, k % m, (double)w[k]);
    }
    saved again = save_ok(b);
    const unsigned char *bytes = data;
    if (again.size != size || memcmp(again.bytes, bytes, 12) != 0 || memcmp(again.bytes + 16, bytes + 16, 16) != 0 ||
        memcmp(again.bytes + 40, bytes + 40, size - 40) != 0)
        fail_msg("changed data loaded but saves differently");
    free(again.bytes);
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.max_iterations = 3;
    sinew_result sr = sinew_bbw_solve(NULL, b, &sd);
    assert_true(sr == SINEW_OK || sr == SINEW_ERROR_NOT_CONVERGED || sr == SINEW_ERROR_DEGENERATE);
    free(w);
    free(q);
    sinew_bbw_destroy(b);
    return SINEW_OK;
}

static void test_corruption_sweeps(void **state)
{
    (void)state;
    saved s = small_saved();
    printf("small saved data: %zu bytes\n", s.size);
    size_t accepted = 0;
    char report[512];
    if (!support_sweep_saved_corruption(s.bytes, s.size, load_and_use, NULL, &accepted, report, sizeof report))
        fail_msg("%s", report);
    printf("resealed byte changes that loaded: %zu of %zu\n", accepted, 3 * s.size);
    free(s.bytes);
}

/* Offset and element count of a section, read from the table. */
static unsigned char *section(saved *s, const char tag[4], size_t *count)
{
    uint32_t n;
    memcpy(&n, s->bytes + 20, 4);
    for (uint32_t i = 0; i < n; ++i) {
        const unsigned char *e = s->bytes + 64 + 32 * (size_t)i;
        if (memcmp(e, tag, 4) != 0) continue;
        uint64_t c, off;
        memcpy(&c, e + 8, 8);
        memcpy(&off, e + 16, 8);
        if (count) *count = (size_t)c;
        return s->bytes + off;
    }
    fail_msg("no section %.4s", tag);
    return NULL;
}

/* A changed copy of the small data, resealed, must fail with code and a
 * message holding `needle`; *out untouched. */
static void expect_load(saved *s, sinew_result code, const char *needle)
{
    assert_true(support_reseal(s->bytes, s->size));
    sinew_bbw *b = (sinew_bbw *)(uintptr_t)0x5e50;
    sinew_result r = sinew_bbw_load(NULL, s->bytes, s->size, &b);
    if (r != code || !strstr(sinew_last_error(), needle))
        fail_msg("expected %s with \"%s\", got %s: %s", sinew_result_string(code), needle, sinew_result_string(r),
                 sinew_last_error());
    assert_ptr_equal(b, (sinew_bbw *)(uintptr_t)0x5e50);
}

static saved copy_of(const saved *s)
{
    saved c = {malloc(s->size), s->size};
    memcpy(c.bytes, s->bytes, s->size);
    return c;
}

static void test_contents_checked(void **state)
{
    (void)state;
    saved good = small_saved();
    saved s;
    uint32_t u32;
    uint64_t u64;
    double f64;
    float f32;
    size_t count;

    /* An element index past the vertices. */
    s = copy_of(&good);
    u32 = 25;
    memcpy(section(&s, "BELM", NULL) + 4 * 7, &u32, 4);
    expect_load(&s, SINEW_ERROR_INDEX_OUT_OF_RANGE, "bbw data: triangle 2 refers to vertex 25, but there are only 25");
    free(s.bytes);
    /* A triangle collapsed onto an edge: create's DEGENERATE. */
    s = copy_of(&good);
    unsigned char *el = section(&s, "BELM", NULL);
    memcpy(el + 4 * 5, el + 4 * 4, 4);
    expect_load(&s, SINEW_ERROR_DEGENERATE, "bbw data: triangle 1 (vertices");
    free(s.bytes);
    /* A 2D vertex off the plane; a coordinate beyond float. */
    s = copy_of(&good);
    f64 = 0.5;
    memcpy(section(&s, "BPOS", NULL) + 8 * (3 * 6 + 2), &f64, 8);
    expect_load(&s, SINEW_ERROR_INVALID_DATA, "domain vertex 6 of the 2D domain has z = 0.5");
    f64 = 0.0;
    memcpy(section(&s, "BPOS", NULL) + 8 * (3 * 6 + 2), &f64, 8);
    f64 = 1e300;
    memcpy(section(&s, "BPOS", NULL) + 8 * (3 * 6), &f64, 8);
    expect_load(&s, SINEW_ERROR_NON_FINITE, "domain vertex 6 has coordinate x");
    free(s.bytes);
    /* Counts that disagree with the sections. */
    s = copy_of(&good);
    u64 = 26;
    memcpy(section(&s, "BDOM", NULL) + 8, &u64, 8);
    expect_load(&s, SINEW_ERROR_INVALID_DATA, "section BPOS holds 75 elements, expected 78");
    u64 = 4;
    memcpy(section(&s, "BDOM", NULL), &u64, 8);
    expect_load(&s, SINEW_ERROR_INVALID_DATA, "dimension 4");
    free(s.bytes);
    /* A constraint naming a handle that does not exist. */
    s = copy_of(&good);
    unsigned char *hd = section(&s, "BCHD", &count);
    u32 = 9;
    memcpy(hd, &u32, 4);
    expect_load(&s, SINEW_ERROR_INDEX_OUT_OF_RANGE, "is fixed by handle 9, but there are 5");
    free(s.bytes);
    /* A constraint value out of (0, 1]. */
    s = copy_of(&good);
    f64 = 1.5;
    memcpy(section(&s, "BCVL", NULL), &f64, 8);
    expect_load(&s, SINEW_ERROR_INVALID_WEIGHTS, "is fixed to 1.5 for handle");
    free(s.bytes);
    /* A constrained vertex past the domain. */
    s = copy_of(&good);
    u32 = 4000;
    size_t fixed_count = 0;
    unsigned char *cv = section(&s, "BCVX", &fixed_count);
    memcpy(cv + 4 * (fixed_count - 1), &u32, 4);
    expect_load(&s, SINEW_ERROR_INDEX_OUT_OF_RANGE, "is vertex 4000, but there are only 25");
    free(s.bytes);
    /* The unreached figures must match the recount. */
    s = copy_of(&good);
    u64 = 1;
    memcpy(section(&s, "BINF", NULL) + 8, &u64, 8);
    expect_load(&s, SINEW_ERROR_INVALID_DATA, "1 unreached vertices");
    free(s.bytes);
    /* A weight out of [0, 1]; a row not summing to one; a constrained
     * vertex's weights unlike its constraint. */
    s = copy_of(&good);
    float *w = (float *)(void *)section(&s, "BWGT", &count);
    size_t free_vertex = 6; /* (0.25, 0.25): no handle fixes it */
    f32 = -0.25f;
    memcpy(&w[free_vertex * 5], &f32, 4);
    expect_load(&s, SINEW_ERROR_INVALID_WEIGHTS, "outside [0, 1]");
    f32 = 0.0f;
    memcpy(&w[free_vertex * 5], &f32, 4);
    memcpy(&w[free_vertex * 5 + 1], &f32, 4);
    expect_load(&s, SINEW_ERROR_INVALID_WEIGHTS, "the weights of vertex 6 sum to");
    free(s.bytes);
    s = copy_of(&good);
    w = (float *)(void *)section(&s, "BWGT", &count);
    f32 = 0.5f;
    memcpy(&w[0], &f32, 4); /* vertex 0 is point handle 0's */
    expect_load(&s, SINEW_ERROR_INVALID_WEIGHTS, "vertex 0 has weight 0.5 for handle 0, but its handles fix it to 1");
    free(s.bytes);
    /* A reach the domain cannot have. */
    s = copy_of(&good);
    f64 = 1e9;
    memcpy(section(&s, "BRCH", NULL), &f64, 8);
    expect_load(&s, SINEW_ERROR_INVALID_DATA, "query reach 1e+09 is outside");
    free(s.bytes);
    free(good.bytes);
}

/* Both handles fixed to the same vertex: no handle owns a vertex; create's
 * DEGENERATE. Built by rewriting a handle index in the data. */
static void test_handles_must_own_vertices(void **state)
{
    (void)state;
    grid2d g;
    grid2d_make(&g, 4, 4, 1.0f, 1.0f);
    sinew_trimesh tm = {{g.positions, g.vertex_count, 0}, g.triangles, g.triangle_count, SINEW_INDEX_U32, 0};
    float pts[6] = {0, 0, 0, 1, 1, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points = (sinew_points){pts, 2, 0};
    sinew_bbw *b = create_ok(&d);
    saved s = save_ok(b);
    size_t count;
    unsigned char *hd = section(&s, "BCHD", &count);
    assert_int_equal(count, 2);
    uint32_t zero = 0;
    memcpy(hd + 4, &zero, 4);
    expect_load(&s, SINEW_ERROR_DEGENERATE, "bbw data: handle 1 shares every domain vertex");
    free(s.bytes);
    sinew_bbw_destroy(b);
    grid2d_free(&g);
}

static void test_header_checks(void **state)
{
    (void)state;
    saved good = small_saved();
    saved s = copy_of(&good);
    uint32_t u32 = SINEW_KIND_SKIN;
    memcpy(s.bytes + 16, &u32, 4);
    expect_load(&s, SINEW_ERROR_MISMATCH, "bbw data: the data holds a skin");
    free(s.bytes);
    s = copy_of(&good);
    u32 = SINEW_FORMAT_VERSION + 1;
    memcpy(s.bytes + 8, &u32, 4);
    char newer[64];
    snprintf(newer, sizeof newer, "bbw data: format version %u", (unsigned)SINEW_FORMAT_VERSION + 1);
    expect_load(&s, SINEW_ERROR_UNSUPPORTED, newer);
    free(s.bytes);
    /* Version 2 is the layout with a kept surface; without one the data is
     * version 1 (one spelling per handle). */
    s = copy_of(&good);
    u32 = 2;
    memcpy(s.bytes + 8, &u32, 4);
    expect_load(&s, SINEW_ERROR_INVALID_DATA, "sections, but solved data of format version 2");
    free(s.bytes);
    s = copy_of(&good);
    s.bytes[100] ^= 1;
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_load(NULL, s.bytes, s.size, &b), SINEW_ERROR_INVALID_DATA);
    assert_non_null(strstr(sinew_last_error(), "checksum"));
    assert_null(b);
    assert_int_equal(sinew_bbw_load(NULL, good.bytes, good.size - 64, &b), SINEW_ERROR_INVALID_DATA);
    assert_int_equal(sinew_bbw_load(NULL, NULL, good.size, &b), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_bbw_load(NULL, good.bytes, good.size, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    /* A buffer larger than the data is fine (the data states its size). */
    saved big = {calloc(1, good.size + 100), good.size + 100};
    memcpy(big.bytes, good.bytes, good.size);
    b = load_ok(&big);
    sinew_bbw_destroy(b);
    free(big.bytes);
    free(s.bytes);
    free(good.bytes);
}

/* ---- the save contract, allocation failures ---------------------------------------- */

static void test_save_contract(void **state)
{
    (void)state;
    case2d c;
    case2d_make(&c, 4);
    sinew_bbw *b = create_ok(&c.desc);
    size_t size = 0, got = 7;
    assert_int_equal(sinew_bbw_save(b, NULL, 0, &size), SINEW_OK);
    unsigned char *buf = malloc(size);
    memset(buf, 0xCD, size);
    assert_int_equal(sinew_bbw_save(b, buf, size - 1, &got), SINEW_ERROR_BUFFER_TOO_SMALL);
    assert_int_equal(got, size);
    assert_non_null(strstr(sinew_last_error(), "bbw data"));
    for (size_t k = 0; k < size; ++k) assert_int_equal(buf[k], 0xCD);
    assert_int_equal(sinew_bbw_save(NULL, buf, size, &got), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_bbw_save(b, buf, size, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    /* Solved data is larger by the weights (and their section's padding). */
    solve_expect(b, NULL, SINEW_OK);
    size_t solved_size = 0;
    assert_int_equal(sinew_bbw_save(b, NULL, 0, &solved_size), SINEW_OK);
    size_t weights = c.g.vertex_count * 5 * sizeof(float);
    assert_true(solved_size >= size + weights && solved_size <= size + weights + 64 + 32 + 63);
    /* The same handle saves the same bytes each time. */
    saved a = save_ok(b), a2 = save_ok(b);
    assert_memory_equal(a.bytes, a2.bytes, a.size);
    free(a.bytes);
    free(a2.bytes);
    free(buf);
    sinew_bbw_destroy(b);
    grid2d_free(&c.g);
}

/* Save's scratch comes from the handle's allocator: refused, save fails
 * with OUT_OF_MEMORY and writes nothing; a size query needs none. */
static void test_save_out_of_memory(void **state)
{
    (void)state;
    case2d c;
    case2d_make(&c, 4);
    support_allocator counter = {0};
    sinew_context_desc cd;
    SINEW_INIT(&cd);
    cd.allocator = support_allocator_hooks(&counter);
    sinew_context *ctx;
    assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(ctx, &c.desc, &b), SINEW_OK);
    size_t size = 0, got = 0;
    counter.fail_at = counter.calls + 1;
    assert_int_equal(sinew_bbw_save(b, NULL, 0, &size), SINEW_OK);
    unsigned char *buf = malloc(size);
    memset(buf, 0xCD, size);
    assert_int_equal(sinew_bbw_save(b, buf, size, &got), SINEW_ERROR_OUT_OF_MEMORY);
    for (size_t k = 0; k < size; ++k) assert_int_equal(buf[k], 0xCD);
    counter.fail_at = 0;
    assert_int_equal(sinew_bbw_save(b, buf, size, &got), SINEW_OK);
    assert_int_equal(got, size);
    free(buf);
    sinew_bbw_destroy(b);
    sinew_context_destroy(ctx);
    assert_int_equal(counter.live, 0);
    grid2d_free(&c.g);
}

/* Format version 2: an automatic volume keeps its surface and handles, so
 * a loaded handle starts from coarser volumes as the created one does and
 * solves to the same bits, and reports the volume's figures; a given mesh
 * without volume figures stays version 1. */
static void test_round_trip_kept_surface(void **state)
{
    (void)state;
    sinew_bbw *b = cube_volume(16, 0.25f);
    saved unsolved = save_ok(b);
    assert_int_equal(saved_version(&unsolved), 2);
    sinew_bbw *loaded = load_ok(&unsolved);
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.coarse_levels = 2;
    solve_expect(b, &sd, SINEW_OK);
    solve_expect(loaded, &sd, SINEW_OK);
    sinew_bbw_info ia, ib;
    SINEW_INIT(&ia);
    SINEW_INIT(&ib);
    assert_int_equal(sinew_bbw_get_info(b, &ia), SINEW_OK);
    assert_int_equal(sinew_bbw_get_info(loaded, &ib), SINEW_OK);
    printf("flat box, 16 cells: %zu vertices, %u coarse level(s), %u iterations\n", ia.vertex_count, ia.coarse_levels_used,
           ia.iterations);
    assert_int_equal(ia.coarse_levels_used, 1);
    assert_int_equal(ia.grid_resolution, 16);
    ib.seconds_domain = ia.seconds_domain;
    ib.seconds_operators = ia.seconds_operators;
    ib.seconds_solve = ia.seconds_solve;
    assert_same_info(&ia, &ib);
    size_t cells = ia.vertex_count * ia.handle_count;
    float *wa = malloc(cells * sizeof(float)), *wb = malloc(cells * sizeof(float));
    assert_int_equal(sinew_bbw_vertex_weights(b, wa, 0, ia.vertex_count), SINEW_OK);
    assert_int_equal(sinew_bbw_vertex_weights(loaded, wb, 0, ia.vertex_count), SINEW_OK);
    assert_memory_equal(wa, wb, cells * sizeof(float));
    /* Solved data keeps the levels used; saved again, the same bytes. */
    saved solved = save_ok(b);
    sinew_bbw *again = load_ok(&solved);
    SINEW_INIT(&ib);
    assert_int_equal(sinew_bbw_get_info(again, &ib), SINEW_OK);
    assert_int_equal(ib.coarse_levels_used, 1);
    saved resaved = save_ok(again);
    assert_int_equal(resaved.size, solved.size);
    assert_memory_equal(resaved.bytes + 16, solved.bytes + 16, solved.size - 16);
    free(resaved.bytes);
    free(solved.bytes);
    free(unsolved.bytes);
    free(wa);
    free(wb);
    sinew_bbw_destroy(again);
    sinew_bbw_destroy(loaded);
    sinew_bbw_destroy(b);
    /* A given mesh with handles on its vertices has no volume figures. */
    grid3d g;
    b = given_grid_bbw(&g);
    saved given = save_ok(b);
    assert_int_equal(saved_version(&given), 1);
    free(given.bytes);
    sinew_bbw_destroy(b);
    grid3d_free(&g);
}

/* Writes v at element `at` of section tag and reseals; the load must fail
 * with code and needle. */
static void expect_edited(const saved *good, const char tag[4], size_t at, uint64_t v, size_t bytes,
                          sinew_result code, const char *needle)
{
    saved s = copy_of(good);
    unsigned char *p = section(&s, tag, NULL);
    memcpy(p + at * bytes, &v, bytes);
    expect_load(&s, code, needle);
    free(s.bytes);
}

/* The kept surface and the volume's figures are checked like the rest. */
static void test_kept_surface_checked(void **state)
{
    (void)state;
    saved good = small_volume_saved();
    expect_edited(&good, "BSST", 4, 99, 4, SINEW_ERROR_INDEX_OUT_OF_RANGE,
                  "kept surface triangle 1 refers to vertex 99, but there are 8");
    expect_edited(&good, "BSRC", 6, 0x7fc00000u, 8, SINEW_ERROR_INVALID_DATA, "kept handle tolerance");
    expect_edited(&good, "BSRC", 7, 8, 8, SINEW_ERROR_INVALID_DATA, "kept volume flags 8");
    expect_edited(&good, "BVOL", 0, 0, 8, SINEW_ERROR_INVALID_DATA, "volume's figures (grid 0");
    expect_edited(&good, "BVOL", 6, 40, 8, SINEW_ERROR_INVALID_DATA, "40 coarse levels");
    /* Two points for two handles; a third in the count asks for a section
     * the data does not hold. */
    expect_edited(&good, "BSRC", 2, 3, 8, SINEW_ERROR_INVALID_DATA, "section BSPT holds 6 elements, expected 9");
    /* Version 1 has no kept surface. */
    saved s = copy_of(&good);
    uint32_t one = 1;
    memcpy(s.bytes + 8, &one, 4);
    expect_load(&s, SINEW_ERROR_INVALID_DATA, "sections, but solved data of format version 1");
    free(s.bytes);
    free(good.bytes);
}

/* Every byte of the version 2 sections (written last) of the small
 * automatic volume's data changed by +1, +0x80 and +0xff, resealed: each
 * loads (and is used, saved again to the same bytes, solved) or fails with
 * a code and a message, under the sanitizers. The sections before them are
 * the 2D sweep's (test_corruption_sweeps runs the whole sweep there). */
static void test_kept_surface_byte_changes(void **state)
{
    (void)state;
    saved good = small_volume_saved();
    size_t first = (size_t)(section(&good, "BVOL", NULL) - good.bytes), accepted = 0;
    static const unsigned char deltas[3] = {1, 0x80, 0xff};
    for (size_t at = first; at < good.size; ++at)
        for (int k = 0; k < 3; ++k) {
            saved s = copy_of(&good);
            s.bytes[at] = (unsigned char)(s.bytes[at] + deltas[k]);
            assert_true(support_reseal(s.bytes, s.size));
            sinew_result r = load_and_use(s.bytes, s.size, NULL);
            if (r == SINEW_OK) ++accepted;
            else if (r > SINEW_ERROR_INVALID_DATA || !sinew_last_error()[0])
                fail_msg("byte %zu + %u: %s without a message", at, deltas[k], sinew_result_string(r));
            free(s.bytes);
        }
    printf("automatic volume data: %zu bytes, version 2 sections from %zu; changes that loaded: %zu of %zu\n",
           good.size, first, accepted, 3 * (good.size - first));
    free(good.bytes);
}

/* tests/golden/bbw-v2.bin: the cube's automatic volume at 2 cells, solved,
 * with its kept surface (format version 2). Read now, it must describe the
 * volume this version creates from the same surface (figures, domain), save
 * again to the same bytes (the library version and checksum aside), and a
 * solve of it must equal a solve of the created handle bit for bit. */
static void test_golden_v2(void **state)
{
    (void)state;
    char path[1024];
    if (!golden_path("bbw-v2.bin", path, sizeof path)) skip();
    sinew_bbw *fresh = cube_volume(2, 1.0f);
    solve_expect(fresh, NULL, SINEW_OK);
    if (getenv("SINEW_WRITE_GOLDEN")) {
        saved s = save_ok(fresh);
        write_file(path, s.bytes, s.size);
        free(s.bytes);
        sinew_bbw_destroy(fresh);
        return;
    }
    saved golden = read_file(path);
    assert_int_equal(saved_version(&golden), 2);
    sinew_bbw *loaded = load_ok(&golden);
    sinew_bbw_info il, inow;
    SINEW_INIT(&il);
    SINEW_INIT(&inow);
    assert_int_equal(sinew_bbw_get_info(loaded, &il), SINEW_OK);
    assert_int_equal(sinew_bbw_get_info(fresh, &inow), SINEW_OK);
    assert_int_equal(il.grid_resolution, 2);
    assert_int_equal(il.grid_resolution, inow.grid_resolution);
    assert_true(il.grid_cell_size == inow.grid_cell_size && il.max_snap_distance == inow.max_snap_distance);
    assert_int_equal(il.vertex_count, inow.vertex_count);
    size_t n = il.vertex_count, m = il.handle_count;
    float *pa = malloc(3 * n * sizeof(float)), *pb = malloc(3 * n * sizeof(float));
    float *wa = malloc(n * m * sizeof(float)), *wb = malloc(n * m * sizeof(float));
    assert_int_equal(sinew_bbw_domain_vertices(loaded, pa, 0, 0, n), SINEW_OK);
    assert_int_equal(sinew_bbw_domain_vertices(fresh, pb, 0, 0, n), SINEW_OK);
    assert_memory_equal(pa, pb, 3 * n * sizeof(float));
    saved again = save_ok(loaded);
    assert_int_equal(again.size, golden.size);
    assert_memory_equal(again.bytes, golden.bytes, 12);
    assert_memory_equal(again.bytes + 16, golden.bytes + 16, 16);
    assert_memory_equal(again.bytes + 40, golden.bytes + 40, golden.size - 40);
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.tolerance = 1e-6;
    solve_expect(loaded, &sd, SINEW_OK);
    solve_expect(fresh, &sd, SINEW_OK);
    assert_int_equal(sinew_bbw_vertex_weights(loaded, wa, 0, n), SINEW_OK);
    assert_int_equal(sinew_bbw_vertex_weights(fresh, wb, 0, n), SINEW_OK);
    assert_memory_equal(wa, wb, n * m * sizeof(float));
    free(pa);
    free(pb);
    free(wa);
    free(wb);
    free(again.bytes);
    free(golden.bytes);
    sinew_bbw_destroy(loaded);
    sinew_bbw_destroy(fresh);
}

typedef struct load_case {
    const saved *data;
    int solve;
} load_case;

static sinew_result load_attempt(sinew_context *ctx, void *user)
{
    const load_case *c = user;
    sinew_bbw *b = NULL;
    sinew_result r = sinew_bbw_load(ctx, c->data->bytes, c->data->size, &b);
    if (r != SINEW_OK) return r;
    if (c->solve) r = sinew_bbw_solve(NULL, b, NULL);
    sinew_bbw_destroy(b);
    return r;
}

static void test_load_allocation_failures(void **state)
{
    (void)state;
    case2d c;
    case2d_make(&c, 4);
    sinew_bbw *b = create_ok(&c.desc);
    saved unsolved = save_ok(b);
    solve_expect(b, NULL, SINEW_OK);
    saved solved = save_ok(b);
    char report[256];
    size_t runs = 0;
    saved kept = small_volume_saved();
    load_case cases[4] = {{&unsolved, 0}, {&solved, 0}, {&unsolved, 1}, {&kept, 1}};
    for (int k = 0; k < 4; ++k) {
        if (!support_sweep_allocation_failures(load_attempt, &cases[k], &runs, report, sizeof report))
            fail_msg("case %d: %s", k, report);
        assert_true(runs > 5);
    }
    free(unsolved.bytes);
    free(solved.bytes);
    free(kept.bytes);
    sinew_bbw_destroy(b);
    grid2d_free(&c.g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_2d),
        cmocka_unit_test(test_round_trip_not_converged),
        cmocka_unit_test(test_round_trip_tets),
        cmocka_unit_test(test_round_trip_cage_3d),
        cmocka_unit_test(test_round_trip_automatic_volume),
        cmocka_unit_test(test_round_trip_unreached),
        cmocka_unit_test(test_round_trip_hand),
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_corruption_sweeps),
        cmocka_unit_test(test_contents_checked),
        cmocka_unit_test(test_handles_must_own_vertices),
        cmocka_unit_test(test_header_checks),
        cmocka_unit_test(test_save_contract),
        cmocka_unit_test(test_save_out_of_memory),
        cmocka_unit_test(test_load_allocation_failures),
        cmocka_unit_test(test_round_trip_kept_surface),
        cmocka_unit_test(test_kept_surface_checked),
        cmocka_unit_test(test_kept_surface_byte_changes),
        cmocka_unit_test(test_golden_v2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
