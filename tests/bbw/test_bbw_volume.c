/* The graded automatic volume and exact point handles: the
 * refined Kuhn volume is a valid, conforming tet mesh of the same shape;
 * handles closer than a cell, a point in a feature thinner than a cell and a
 * skeleton with a bone shorter than a cell bind where the uniform grid
 * fails; moved point handles sit exactly on their points; and a set of
 * closed meshes from the shared data binds and solves with default settings
 * (skipped without the data; bench_bbw_volume runs all of them). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bbw_dataset.h"
#include "bbw_fixture.h"
#include "support.h"

/* Closed boxes as 12 outward triangles each; several boxes may overlap (the
 * winding number adds up). */
typedef struct boxes {
    float positions[4 * 8 * 3];
    uint32_t triangles[4 * 12 * 3];
    size_t count;
    sinew_trimesh mesh;
} boxes;

static void add_box(boxes *b, const float lo[3], const float hi[3])
{
    static const uint32_t faces[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                          {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
    size_t base = 8 * b->count;
    for (int c = 0; c < 8; ++c)
        for (int a = 0; a < 3; ++a) b->positions[3 * (base + c) + a] = (c >> a & 1) ? hi[a] : lo[a];
    for (int f = 0; f < 12; ++f)
        for (int k = 0; k < 3; ++k) b->triangles[3 * (12 * b->count + f) + k] = (uint32_t)(base + faces[f][k]);
    b->count++;
    sinew_trimesh m = {{b->positions, 8 * b->count, 0}, b->triangles, 12 * b->count, SINEW_INDEX_U32, 0};
    b->mesh = m;
}

static void unit_box(boxes *b)
{
    memset(b, 0, sizeof *b);
    add_box(b, (float[3]){0, 0, 0}, (float[3]){1, 1, 1});
}

/* Three point handles, two of them 0.05 apart (0.4 of a cell at 8 cells). */
static const float close_points[9] = {0.51f, 0.52f, 0.53f, 0.56f, 0.52f, 0.53f, 0.2f, 0.2f, 0.2f};

/* A desc for the automatic volume in `shape` at `resolution` cells, with
 * `count` point handles. */
static sinew_bbw_desc volume_desc(const boxes *shape, uint32_t resolution, const float *points, size_t count)
{
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.surface = &shape->mesh;
    d.grid_resolution = resolution;
    d.points.data = points;
    d.points.count = count;
    return d;
}

static sinew_bbw *create_ok(const sinew_bbw_desc *d)
{
    sinew_bbw *b = NULL;
    sinew_result r = sinew_bbw_create(NULL, d, &b);
    if (r != SINEW_OK) fail_msg("create: %s (%s)", sinew_result_string(r), sinew_last_error());
    return b;
}

static sinew_bbw_info info_of(const sinew_bbw *b)
{
    sinew_bbw_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_bbw_get_info(b, &info), SINEW_OK);
    return info;
}

/* The domain's figures: total volume, boundary area, and whether every tet is
 * positive and every face is shared by at most two tets. */
typedef struct domain_figures {
    double volume, boundary_area;
    int positive, conforming;
} domain_figures;

static int compare_faces(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    for (int k = 0; k < 3; ++k)
        if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
    return 0;
}

static double triangle_area(const float *p, const uint32_t f[3])
{
    double u[3], v[3];
    for (int a = 0; a < 3; ++a) {
        u[a] = p[3 * f[1] + a] - p[3 * f[0] + a];
        v[a] = p[3 * f[2] + a] - p[3 * f[0] + a];
    }
    double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    return 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

static domain_figures figures(const sinew_bbw *b)
{
    sinew_bbw_info info = info_of(b);
    size_t nv = info.vertex_count, nt = info.element_count;
    float *p = malloc(3 * nv * sizeof *p);
    uint32_t *t = malloc(4 * nt * sizeof *t), *faces = malloc(4 * 3 * nt * sizeof *faces);
    assert_non_null(p);
    assert_non_null(t);
    assert_non_null(faces);
    assert_int_equal(sinew_bbw_domain_vertices(b, p, 0, 0, nv), SINEW_OK);
    assert_int_equal(sinew_bbw_domain_elements(b, t, 0, nt), SINEW_OK);
    domain_figures f = {0.0, 0.0, 1, 1};
    for (size_t e = 0; e < nt; ++e) {
        const uint32_t *x = t + 4 * e;
        double u[3][3];
        for (int r = 0; r < 3; ++r)
            for (int a = 0; a < 3; ++a) u[r][a] = (double)p[3 * x[r + 1] + a] - p[3 * x[0] + a];
        double det = u[0][0] * (u[1][1] * u[2][2] - u[1][2] * u[2][1]) -
                     u[0][1] * (u[1][0] * u[2][2] - u[1][2] * u[2][0]) +
                     u[0][2] * (u[1][0] * u[2][1] - u[1][1] * u[2][0]);
        if (!(det > 0.0)) f.positive = 0;
        f.volume += det / 6.0;
        static const int opposite[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
        for (int k = 0; k < 4; ++k) {
            uint32_t *face = faces + 3 * (4 * e + k);
            for (int c = 0; c < 3; ++c) face[c] = x[opposite[k][c]];
            /* sorted: the same face from both sides compares equal */
            for (int i = 0; i < 3; ++i)
                for (int j = i + 1; j < 3; ++j)
                    if (face[j] < face[i]) {
                        uint32_t s = face[i];
                        face[i] = face[j];
                        face[j] = s;
                    }
        }
    }
    qsort(faces, 4 * nt, 3 * sizeof *faces, compare_faces);
    for (size_t i = 0; i < 4 * nt;) {
        size_t j = i;
        while (j < 4 * nt && compare_faces(faces + 3 * i, faces + 3 * j) == 0) ++j;
        if (j - i > 2) f.conforming = 0;
        if (j - i == 1) f.boundary_area += triangle_area(p, faces + 3 * i);
        i = j;
    }
    free(p);
    free(t);
    free(faces);
    return f;
}

/* Two point handles 0.4 of a cell apart in a box, at 8 cells: the
 * uniform grid snaps both onto the same vertex, the graded volume refines
 * around them into a valid conforming mesh of exactly the same shape (no
 * hanging vertex: its boundary is the uniform volume's, area for area). */
/* Close handles far outside the grid, on either side of it (a fuzzer's
 * find): the refinement's box around them lies beyond the grid, and create
 * refuses them with OUTSIDE_DOMAIN naming the first one. */
static void close_points_beyond_the_grid(void **state)
{
    (void)state;
    boxes box;
    unit_box(&box);
    const float below[9] = {-40.0f, -40.0f, -40.0f, -40.05f, -40.0f, -40.0f, 0.5f, 0.5f, 0.5f};
    const float above[9] = {0.5f, 0.5f, 0.5f, 1e30f, 1e30f, 1e30f, 1e30f, 1e30f, 0.99e30f};
    const float *sets[2] = {below, above};
    const char *names[2] = {"point handle 0", "point handle 1"};
    for (int k = 0; k < 2; ++k) {
        sinew_bbw_desc d = volume_desc(&box, 8, sets[k], 3);
        d.handle_outside = SINEW_BBW_OUTSIDE_REFUSE;
        sinew_bbw *b = NULL;
        assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_ERROR_OUTSIDE_DOMAIN);
        assert_null(b);
        if (!strstr(sinew_last_error(), names[k])) fail_msg("%s: %s", names[k], sinew_last_error());
        /* By default they attach to the nearest free vertices of the volume. */
        d.handle_outside = SINEW_BBW_OUTSIDE_CLIP;
        b = create_ok(&d);
        sinew_bbw_info info;
        SINEW_INIT(&info);
        assert_int_equal(sinew_bbw_get_info(b, &info), SINEW_OK);
        assert_int_equal(info.clipped_handle_count, 2);
        assert_int_equal(info.first_clipped_handle, (size_t)k);
        sinew_bbw_destroy(b);
    }
}

static void close_points_refine_conformingly(void **state)
{
    (void)state;
    boxes box;
    unit_box(&box);
    const float *points = close_points;
    sinew_bbw_desc d = volume_desc(&box, 8, points, 3);
    d.volume_flags = SINEW_BBW_VOLUME_UNIFORM;
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_ERROR_DEGENERATE);
    assert_non_null(strstr(sinew_last_error(), "shares every domain vertex"));
    /* The uniform volume of the same box, handles apart, as the reference. */
    const float apart[9] = {0.2f, 0.2f, 0.2f, 0.8f, 0.8f, 0.8f, 0.2f, 0.8f, 0.2f};
    d.points.data = apart;
    sinew_bbw *uniform = create_ok(&d);
    domain_figures ref = figures(uniform);
    sinew_bbw_info ui = info_of(uniform);
    assert_int_equal(ui.grid_resolution, 8);
    assert_int_equal(ui.refined_cell_count, 0);
    assert_true(ui.finest_cell_size == ui.grid_cell_size);

    d.points.data = points;
    d.volume_flags = 0;
    b = create_ok(&d);
    sinew_bbw_info info = info_of(b);
    domain_figures got = figures(b);
    assert_true(got.positive);
    assert_true(got.conforming);
    assert_true(ref.conforming);
    assert_true(fabs(got.volume - ref.volume) < 1e-6 * ref.volume);
    assert_true(fabs(got.boundary_area - ref.boundary_area) < 1e-6 * ref.boundary_area);
    assert_true(info.vertex_count > ui.vertex_count);
    assert_true(info.refined_cell_count > 0);
    assert_true(info.handle_cell_count == 0);
    /* 0.05 apart: cells no larger than half of that, 3 halvings of 0.125. */
    assert_true(fabs(info.finest_cell_size - info.grid_cell_size / 8.0) < 1e-12);
    /* The refinement stays near the handles: far from them cells are whole. */
    assert_true(info.refined_cell_count < 128); /* 69 of the 512 */
    /* The weights: bounded, a partition of unity, 1 at each handle's vertex. */
    assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
    float w[3 * 3];
    const sinew_points at = {points, 3, 0};
    assert_int_equal(sinew_bbw_point_weights(b, &at, w, 0, 3), SINEW_OK);
    for (int h = 0; h < 3; ++h) assert_true(w[3 * h + h] > 0.6f);
    sinew_bbw_destroy(b);
    sinew_bbw_destroy(uniform);
}

/* A fin thinner than a cell on a box, a point handle at its tip: no cell
 * centre lies in the fin, so the uniform grid leaves the handle outside; the
 * graded volume takes the handle's cell and the cells joining it to the box,
 * and the handle's weight reaches the box. */
static void handle_in_a_thin_fin(void **state)
{
    (void)state;
    boxes shape;
    unit_box(&shape);
    add_box(&shape, (float[3]){0.9f, 0.45f, 0.2f}, (float[3]){2.0f, 0.47f, 0.8f});
    const float points[6] = {1.9f, 0.46f, 0.5f, 0.2f, 0.5f, 0.5f};
    sinew_bbw_desc d = volume_desc(&shape, 8, points, 2);
    d.volume_flags = SINEW_BBW_VOLUME_UNIFORM;
    d.handle_outside = SINEW_BBW_OUTSIDE_REFUSE;
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "point handle 0"));
    d.volume_flags = 0;
    d.handle_outside = SINEW_BBW_OUTSIDE_CLIP;
    b = create_ok(&d);
    sinew_bbw_info info = info_of(b);
    /* The tip is 0.9 (3.6 cells) from the box: its cell and those between. */
    assert_true(info.handle_cell_count >= 3);
    assert_int_equal(info.unreached_vertex_count, 0);
    assert_true(figures(b).conforming);
    assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
    /* Along the fin the tip's weight falls from 1 towards the box. */
    const float along[9] = {1.9f, 0.46f, 0.5f, 1.4f, 0.46f, 0.5f, 0.6f, 0.46f, 0.5f};
    const sinew_points q = {along, 3, 0};
    float w[3 * 2];
    assert_int_equal(sinew_bbw_point_weights(b, &q, w, 0, 3), SINEW_OK);
    assert_true(w[0] > 0.9f);
    assert_true(w[2] < w[0] && w[4] < w[2]);
    assert_true(w[2] > 0.05f);
    sinew_bbw_destroy(b);
}

/* A closed surface's cells are classified region by region (one winding
 * number per region of cells no triangle reaches), an open one's cell by
 * cell: a hollow shell (a box with a cavity wound inwards) and an
 * overlapping box, given as the mesh (closed) and as a triangle soup (open
 * by its indices), give the same domain, vertex for vertex, and the cavity
 * stays out of it. */
static void closed_surface_regions_match_cell_by_cell(void **state)
{
    (void)state;
    boxes shape;
    unit_box(&shape);
    add_box(&shape, (float[3]){0.3f, 0.3f, 0.3f}, (float[3]){0.7f, 0.7f, 0.7f});
    for (size_t t = 12; t < 24; ++t) {
        uint32_t *f = shape.triangles + 3 * t, swap = f[1];
        f[1] = f[2];
        f[2] = swap;
    }
    add_box(&shape, (float[3]){0.8f, 0.1f, 0.1f}, (float[3]){1.6f, 0.5f, 0.4f});
    const size_t tc = shape.mesh.triangle_count;
    float *soup_positions = malloc(9 * tc * sizeof(float));
    uint32_t *soup_triangles = malloc(3 * tc * sizeof(uint32_t));
    for (size_t c = 0; c < 3 * tc; ++c) {
        memcpy(soup_positions + 3 * c, shape.positions + 3 * (size_t)shape.triangles[c], 3 * sizeof(float));
        soup_triangles[c] = (uint32_t)c;
    }
    boxes soup = shape;
    sinew_trimesh m = {{soup_positions, 3 * tc, 0}, soup_triangles, tc, SINEW_INDEX_U32, 0};
    soup.mesh = m;
    const float points[6] = {0.1f, 0.5f, 0.5f, 1.5f, 0.3f, 0.25f};
    sinew_bbw *b[2];
    float *vertices[2];
    size_t counts[2];
    for (int which = 0; which < 2; ++which) {
        sinew_bbw_desc d = volume_desc(which ? &soup : &shape, 20, points, 2);
        d.volume_flags = SINEW_BBW_VOLUME_UNIFORM;
        b[which] = create_ok(&d);
        counts[which] = info_of(b[which]).vertex_count;
        vertices[which] = malloc(3 * counts[which] * sizeof(float));
        assert_int_equal(sinew_bbw_domain_vertices(b[which], vertices[which], 0, 0, counts[which]), SINEW_OK);
    }
    assert_int_equal(counts[0], counts[1]);
    assert_memory_equal(vertices[0], vertices[1], 3 * counts[0] * sizeof(float));
    /* No domain vertex lies strictly inside the cavity (a cell's width in). */
    const double h = 1.6 / 20.0;
    for (size_t v = 0; v < counts[0]; ++v) {
        const float *p = vertices[0] + 3 * v;
        int in = 1;
        for (int a = 0; a < 3; ++a) in &= p[a] > 0.3 + h && p[a] < 0.7 - h;
        if (in) fail_msg("domain vertex %zu (%g, %g, %g) lies in the cavity", v, p[0], p[1], p[2]);
    }
    for (int which = 0; which < 2; ++which) {
        free(vertices[which]);
        sinew_bbw_destroy(b[which]);
    }
    free(soup_positions);
    free(soup_triangles);
}

/* A chain of bones in a box with a middle bone 0.6 of a cell long: the
 * uniform grid gives it no vertex of its own; graded, every bone binds. */
static void short_bone_binds(void **state)
{
    (void)state;
    boxes box;
    unit_box(&box);
    const float joints[12] = {0.2f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.575f, 0.5f, 0.5f, 0.8f, 0.6f, 0.5f};
    const uint32_t bones[6] = {0, 1, 1, 2, 2, 3};
    sinew_bbw_desc d = volume_desc(&box, 8, NULL, 0);
    d.joint_positions.data = joints;
    d.joint_positions.count = 4;
    d.bones = bones;
    d.bone_count = 3;
    d.volume_flags = SINEW_BBW_VOLUME_UNIFORM;
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_ERROR_DEGENERATE);
    assert_non_null(strstr(sinew_last_error(), "handle 1 shares every domain vertex"));
    d.volume_flags = 0;
    b = create_ok(&d);
    assert_true(info_of(b).refined_cell_count > 0);
    assert_true(figures(b).conforming);
    assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
    /* The short bone's weight is near 1 at its middle. */
    const float middle[3] = {0.5375f, 0.5f, 0.5f};
    const sinew_points q = {middle, 1, 0};
    float w[3];
    assert_int_equal(sinew_bbw_point_weights(b, &q, w, 0, 1), SINEW_OK);
    assert_true(w[1] > 0.9f);
    sinew_bbw_destroy(b);
}

/* Snapping moves a handle up to half a cell; moving the vertex puts it on
 * the point: the weight there is exactly the handle's. On a given tet mesh
 * the moved vertex is the point. */
static void points_placed_exactly(void **state)
{
    (void)state;
    boxes box;
    unit_box(&box);
    const float points[12] = {0.31f, 0.27f, 0.6f, 0.77f, 0.52f, 0.21f, 0.5f, 0.83f, 0.44f, 0.18f, 0.66f, 0.12f};
    sinew_bbw_desc d = volume_desc(&box, 8, points, 4);
    sinew_bbw *snapped = create_ok(&d);
    sinew_bbw_info si = info_of(snapped);
    assert_true(si.max_snap_distance > 0.01);
    assert_true(si.max_snap_distance <= 0.5 * sqrt(3.0) * si.grid_cell_size + 1e-9);
    d.point_placement = SINEW_BBW_PLACE_MOVE_VERTEX;
    sinew_bbw *moved = create_ok(&d);
    sinew_bbw_info mi = info_of(moved);
    assert_true(mi.max_snap_distance < 0.5 * si.max_snap_distance);
    assert_true(figures(moved).positive);
    assert_int_equal(sinew_bbw_solve(NULL, moved, NULL), SINEW_OK);
    assert_int_equal(sinew_bbw_solve(NULL, snapped, NULL), SINEW_OK);
    const sinew_points q = {points, 4, 0};
    float wm[16], ws[16];
    assert_int_equal(sinew_bbw_point_weights(moved, &q, wm, 0, 4), SINEW_OK);
    assert_int_equal(sinew_bbw_point_weights(snapped, &q, ws, 0, 4), SINEW_OK);
    double worst_moved = 0.0, worst_snapped = 0.0;
    for (int h = 0; h < 4; ++h) {
        worst_moved = fmax(worst_moved, 1.0 - wm[4 * h + h]);
        worst_snapped = fmax(worst_snapped, 1.0 - ws[4 * h + h]);
    }
    if (mi.max_snap_distance == 0.0) assert_true(worst_moved < 1e-5);
    assert_true(worst_moved < worst_snapped);
    sinew_bbw_destroy(moved);
    sinew_bbw_destroy(snapped);

    /* A given tet mesh: one Kuhn cube; a point close to a corner. */
    const float cube[24] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1};
    const uint32_t tets[24] = {0, 1, 3, 7, 0, 2, 7, 3, 0, 2, 6, 7, 0, 4, 7, 6, 0, 4, 5, 7, 0, 1, 7, 5};
    const float near_corner[6] = {0.05f, 0.04f, 0.03f, 0.9f, 0.9f, 0.9f};
    sinew_tetmesh tm = {{cube, 8, 0}, tets, 6, SINEW_INDEX_U32, 0};
    SINEW_INIT(&d);
    d.tets = &tm;
    d.points.data = near_corner;
    d.points.count = 2;
    d.point_placement = SINEW_BBW_PLACE_MOVE_VERTEX;
    moved = create_ok(&d);
    float p0[3];
    assert_int_equal(sinew_bbw_domain_vertices(moved, p0, 0, 0, 1), SINEW_OK);
    assert_memory_equal(p0, near_corner, sizeof p0);
    assert_true(info_of(moved).max_snap_distance == 0.0 || info_of(moved).max_snap_distance < 0.2);
    sinew_bbw_destroy(moved);
}

/* A graded volume with moved point handles saves and loads: the domain (the
 * moved vertices included) and the weights come back bit for bit. */
static void graded_volume_saves_and_loads(void **state)
{
    (void)state;
    boxes box;
    unit_box(&box);
    sinew_bbw_desc d = volume_desc(&box, 6, close_points, 3);
    d.point_placement = SINEW_BBW_PLACE_MOVE_VERTEX;
    sinew_bbw *b = create_ok(&d);
    assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
    sinew_bbw_info info = info_of(b);
    assert_true(info.refined_cell_count > 0);
    size_t size = 0;
    assert_int_equal(sinew_bbw_save(b, NULL, 0, &size), SINEW_OK);
    void *bytes = malloc(size);
    assert_non_null(bytes);
    assert_int_equal(sinew_bbw_save(b, bytes, size, &size), SINEW_OK);
    sinew_bbw *loaded = NULL;
    sinew_result r = sinew_bbw_load(NULL, bytes, size, &loaded);
    if (r != SINEW_OK) fail_msg("load: %s (%s)", sinew_result_string(r), sinew_last_error());
    size_t nv = info.vertex_count, m = info.handle_count;
    float *p0 = malloc(3 * nv * sizeof *p0), *p1 = malloc(3 * nv * sizeof *p1);
    float *w0 = malloc(nv * m * sizeof *w0), *w1 = malloc(nv * m * sizeof *w1);
    assert_int_equal(sinew_bbw_domain_vertices(b, p0, 0, 0, nv), SINEW_OK);
    assert_int_equal(sinew_bbw_domain_vertices(loaded, p1, 0, 0, nv), SINEW_OK);
    assert_memory_equal(p0, p1, 3 * nv * sizeof *p0);
    assert_int_equal(sinew_bbw_vertex_weights(b, w0, 0, nv), SINEW_OK);
    assert_int_equal(sinew_bbw_vertex_weights(loaded, w1, 0, nv), SINEW_OK);
    assert_memory_equal(w0, w1, nv * m * sizeof *w0);
    free(p0);
    free(p1);
    free(w0);
    free(w1);
    free(bytes);
    sinew_bbw_destroy(loaded);
    sinew_bbw_destroy(b);
}

/* Weights at a case's point handles: bounded, a partition of unity, each
 * handle dominating at its own point. */
static void check_point_weights(const bbw_case *c, sinew_bbw *b)
{
    size_t m = info_of(b).handle_count;
    float *w = malloc(c->point_count * m * sizeof *w);
    assert_non_null(w);
    const sinew_points q = {c->points, c->point_count, 0};
    assert_int_equal(sinew_bbw_point_weights(b, &q, w, 0, c->point_count), SINEW_OK);
    for (size_t h = 0; h < c->point_count; ++h) {
        double sum = 0.0;
        for (size_t j = 0; j < m; ++j) {
            assert_true(w[h * m + j] >= 0.0f && w[h * m + j] <= 1.0f);
            sum += w[h * m + j];
        }
        assert_true(fabs(sum - 1.0) < 1e-5);
        if (w[h * m + h] < 0.5f) fail_msg("%s: handle %zu has weight %g at its point", c->name, h, w[h * m + h]);
    }
    free(w);
}

/* Whether the surface's vertices share one coordinate (the flat meshes of
 * the data set lie in axis planes). */
static bool axis_flat(const support_mesh *m)
{
    for (int a = 0; a < 3; ++a) {
        bool same = true;
        for (size_t v = 1; v < m->vertex_count && same; ++v) same = m->positions[3 * v + a] == m->positions[a];
        if (same) return true;
    }
    return false;
}

/* The set of bench_bbw_volume: every mesh (up to 20,000 triangles, for the
 * sanitizer builds' sake) and every skeleton binds with default settings,
 * open surfaces included, except the flat ones, which fail with the
 * message that says so; the arm, whose volume is the smallest, also solves
 * with its points and with its skeleton (bench_bbw_volume solves them
 * all). */
static void data_set_binds_and_solves(void **state)
{
    (void)state;
    int ran = 0;
    for (size_t i = 0; i < bbw_dataset_count(); ++i) {
        bbw_case c;
        const char *why;
        if (!bbw_dataset_load(i, &c, &why)) continue;
        if (c.mesh.triangle_count > 20000) {
            bbw_dataset_free(&c);
            continue;
        }
        sinew_bbw_desc d;
        bbw_dataset_desc(&c, &d);
        sinew_bbw *b = NULL;
        sinew_result r = sinew_bbw_create(NULL, &d, &b);
        bool flat = !c.mesh.tets && axis_flat(&c.mesh);
        if (flat) {
            assert_true(c.open);
            if (r != SINEW_ERROR_DEGENERATE || !strstr(sinew_last_error(), "all its vertices lie in one plane"))
                fail_msg("%s (flat): create %s (%s)", c.name, sinew_result_string(r), sinew_last_error());
        } else if (r != SINEW_OK) {
            fail_msg("%s: create %s (%s)", c.name, sinew_result_string(r), sinew_last_error());
        }
        sinew_bbw_destroy(b);
        if (strcmp(c.name, "arm-obj-points") == 0 || strcmp(c.name, "arm-obj-skeleton") == 0) {
            b = create_ok(&d);
            r = sinew_bbw_solve(NULL, b, NULL);
            if (r != SINEW_OK) fail_msg("%s: solve %s (%s)", c.name, sinew_result_string(r), sinew_last_error());
            assert_true(info_of(b).error_bound <= 1e-4);
            if (c.point_count) check_point_weights(&c, b);
            sinew_bbw_destroy(b);
        }
        bbw_dataset_free(&c);
        ++ran;
    }
    if (!ran) skip();
}

/* The coarse-to-fine restart (coarse_levels: 0 automatic, else forced) on
 * the data-set volume `name`, which the polish does not finish within the
 * probe: it restarts from a coarser volume, converges (with fewer iterations
 * than the cold solve, SINEW_BBW_COARSE_NONE, where `fewer`), and agrees
 * with the cold solve within the two certified bounds (mass-weighted RMS
 * over the free vertices). */
static void coarse_start_agrees(const char *name, uint32_t coarse_levels, bool fewer)
{
    bbw_case c;
    const char *why = "not in the data set";
    size_t i = bbw_dataset_find(name);
    if (i == SIZE_MAX || !bbw_dataset_load(i, &c, &why)) skip();
    sinew_bbw_desc d;
    bbw_dataset_desc(&c, &d);
    sinew_bbw *b = create_ok(&d);
    sinew_bbw_info info = info_of(b);
    size_t n = info.vertex_count, m = info.handle_count, ne = info.element_count;
    assert_true(n >= 1000 && info.grid_resolution >= 16);
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.coarse_levels = SINEW_BBW_COARSE_NONE;
    assert_int_equal(sinew_bbw_solve(NULL, b, &sd), SINEW_OK);
    sinew_bbw_info cold = info_of(b);
    float *w = malloc(n * m * sizeof(float)), *pos = malloc(3 * n * sizeof(float));
    double *ref = malloc(n * m * sizeof(double));
    uint32_t *tets = malloc(4 * ne * sizeof(uint32_t));
    assert_int_equal(sinew_bbw_vertex_weights(b, w, 0, n), SINEW_OK);
    for (size_t k = 0; k < n * m; ++k) ref[k] = w[k];
    sd.coarse_levels = coarse_levels;
    assert_int_equal(sinew_bbw_solve(NULL, b, &sd), SINEW_OK);
    sinew_bbw_info auto_info = info_of(b);
    printf("%s, default volume, %zu vertices: cold %u iterations (bound %.2e), coarse start (%u asked) %u iterations "
           "with %u coarse level(s) (bound %.2e)\n", name, n, cold.iterations, cold.error_bound, coarse_levels,
           auto_info.iterations, auto_info.coarse_levels_used, auto_info.error_bound);
    assert_int_equal(cold.coarse_levels_used, 0);
    assert_true(cold.iterations > 40);
    assert_true(auto_info.coarse_levels_used >= 1);
    if (coarse_levels) assert_true(auto_info.coarse_levels_used <= coarse_levels); /* "up to n" */
    if (fewer) assert_true(auto_info.iterations < cold.iterations);
    assert_true(auto_info.error_bound <= 1e-4 && cold.error_bound <= 1e-4);
    assert_int_equal(sinew_bbw_vertex_weights(b, w, 0, n), SINEW_OK);
    assert_int_equal(sinew_bbw_domain_vertices(b, pos, 0, 0, n), SINEW_OK);
    assert_int_equal(sinew_bbw_domain_elements(b, tets, 0, ne), SINEW_OK);
    double *mass = bbw_lumped_mass(pos, n, tets, ne, 4);
    uint8_t *fixed = calloc(n, 1);
    /* Constrained vertices hold their rows in both solves. */
    for (size_t v = 0; v < n; ++v)
        for (size_t j = 0; j < m; ++j) fixed[v] |= w[v * m + j] == 1.0f && ref[v * m + j] == 1.0;
    double diff = bbw_rms_error(w, ref, mass, fixed, n, m);
    printf("automatic against cold: rms %.3g (bounds %.3g + %.3g)\n", diff, auto_info.error_bound, cold.error_bound);
    assert_true(diff <= auto_info.error_bound + cold.error_bound + 1e-6);
    free(fixed);
    free(mass);
    free(tets);
    free(pos);
    free(ref);
    free(w);
    sinew_bbw_destroy(b);
    bbw_dataset_free(&c);
}

/* The automatic restart on the cow: one of its levels goes through the
 * late penalty lowering (docs/bbw.md item 3), kept by its trial. */
static void automatic_coarse_start(void **state)
{
    (void)state;
    coarse_start_agrees("cow-obj-points", 0, true);
}

/* The .off cow from up to two coarse levels: the lowering's trial span is
 * slower than the span before it and the penalty is restored (release
 * build; the weights are held to the cold solve's whatever the path). */
static void forced_coarse_start(void **state)
{
    (void)state;
    coarse_start_agrees("cow-off-points", 2, true);
}

/* An open surface (the camel's is open at the feet) through the automatic
 * restart: its coarse level left the fine split a penalty 20x too large,
 * the bound stalled, and raising the penalty for the stall sent it to the
 * cap of 5,000 iterations at a bound of 0.2; a stall whose dual residual
 * leads far now lowers it (docs/bbw.md item 3). Cold and restarted solves
 * take about the same iterations here, so only agreement is asked. */
static void open_surface_coarse_start(void **state)
{
    (void)state;
    coarse_start_agrees("camel_b-obj-points", 0, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(close_points_refine_conformingly),
        cmocka_unit_test(close_points_beyond_the_grid),
        cmocka_unit_test(handle_in_a_thin_fin),
        cmocka_unit_test(closed_surface_regions_match_cell_by_cell),
        cmocka_unit_test(short_bone_binds),
        cmocka_unit_test(points_placed_exactly),
        cmocka_unit_test(graded_volume_saves_and_loads),
        cmocka_unit_test(data_set_binds_and_solves),
        cmocka_unit_test(automatic_coarse_start),
        cmocka_unit_test(forced_coarse_start),
        cmocka_unit_test(open_surface_coarse_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
