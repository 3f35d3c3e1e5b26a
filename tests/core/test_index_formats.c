/* Mesh index formats: every consumer of a mesh view (SOFFD driver, BBW
 * domains, lattice refinement, placement scene, skin weight tools) gives the
 * same result from u8/u16/u32 indices, packed or strided, as from packed u32,
 * and refuses bad views (misaligned pointer, bad stride, an index out of
 * range in a narrow type, an unknown type) naming the element and slot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sinew.h"

/* A unit cube: 8 corners, 12 outward triangles, 6 quads. */
static const float cube[8 * 3] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
static const uint32_t cube_tris[12 * 3] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                           1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
static const uint32_t cube_quads[6 * 4] = {0, 3, 2, 1, 4, 5, 6, 7, 0, 1, 5, 4, 1, 2, 6, 5, 2, 3, 7, 6, 3, 0, 4, 7};
static const uint32_t cube_quad_sizes[6] = {4, 4, 4, 4, 4, 4};

/* One way to store indices: a type and a stride (0 = packed). */
typedef struct format {
    sinew_index_type type;
    size_t stride;
} format;
/* Packed u16 and u8; u32 and u16 interleaved with other data per element
 * (the glTF-style strided buffer); u8 with a padding byte. */
static const format formats[] = {
    {SINEW_INDEX_U16, 0}, {SINEW_INDEX_U8, 0}, {SINEW_INDEX_U32, 20}, {SINEW_INDEX_U16, 10}, {SINEW_INDEX_U8, 4},
};
enum { FORMAT_COUNT = sizeof formats / sizeof formats[0] };

static size_t type_size(sinew_index_type t)
{
    return t == SINEW_INDEX_U32 ? 4 : t == SINEW_INDEX_U16 ? 2 : 1;
}

/* Copies count elements of per u32 indices into a fresh buffer in format f,
 * the bytes between elements filled with 0xAB so a reader that ignores the
 * stride reads garbage. The buffer is 8-byte aligned (malloc). */
static void *convert(const uint32_t *src, size_t count, size_t per, format f)
{
    size_t size = type_size(f.type), stride = f.stride ? f.stride : per * size;
    unsigned char *buf = malloc(count * stride + 8);
    assert_non_null(buf);
    memset(buf, 0xAB, count * stride + 8);
    for (size_t e = 0; e < count; ++e)
        for (size_t s = 0; s < per; ++s) {
            uint32_t v = src[e * per + s];
            unsigned char *p = buf + e * stride + s * size;
            if (f.type == SINEW_INDEX_U32) memcpy(p, &v, 4);
            else if (f.type == SINEW_INDEX_U16) {
                uint16_t x = (uint16_t)v;
                memcpy(p, &x, 2);
            } else *p = (uint8_t)v;
        }
    return buf;
}

static sinew_trimesh cube_mesh(const void *indices, format f)
{
    sinew_trimesh m = {{cube, 8, 0}, indices, 12, f.type, f.stride};
    return m;
}

/* ---- SOFFD driver ---------------------------------------------------------------- */

static void soffd_frames(const sinew_polymesh *driver, float *frames, size_t *elements)
{
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(NULL, driver, NULL, &h), SINEW_OK);
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(h, &info);
    *elements = info.element_count;
    float moved[8 * 3];
    for (int i = 0; i < 24; ++i) moved[i] = cube[i] * (1.0f + 0.1f * (float)(i % 3)) + 0.05f * (float)i;
    sinew_points now = {moved, 8, 0};
    assert_int_equal(sinew_soffd_element_frames(h, &now, frames, sinew_soffd_element_frames_size(h)), SINEW_OK);
    sinew_soffd_destroy(h);
}

static void soffd_driver_formats_match_u32(void **state)
{
    (void)state;
    float ref[12 * 16], got[12 * 16];
    size_t ref_n, got_n;
    sinew_polymesh tris = {{cube, 8, 0}, cube_tris, NULL, 12, SINEW_INDEX_U32};
    soffd_frames(&tris, ref, &ref_n);
    assert_int_equal(ref_n, 12);
    for (int t = SINEW_INDEX_U16; t <= SINEW_INDEX_U8; ++t) {
        format f = {(sinew_index_type)t, 0};
        void *idx = convert(cube_tris, 12, 3, f);
        sinew_polymesh m = {{cube, 8, 0}, idx, NULL, 12, f.type};
        soffd_frames(&m, got, &got_n);
        assert_int_equal(got_n, ref_n);
        assert_memory_equal(got, ref, sizeof ref);
        free(idx);
    }
    /* Quads in u8: the same triangulation as quads in u32. */
    sinew_polymesh quads = {{cube, 8, 0}, cube_quads, cube_quad_sizes, 6, SINEW_INDEX_U32};
    soffd_frames(&quads, ref, &ref_n);
    void *q8 = convert(cube_quads, 24, 1, (format){SINEW_INDEX_U8, 0});
    quads.indices = q8;
    quads.index_type = SINEW_INDEX_U8;
    soffd_frames(&quads, got, &got_n);
    assert_int_equal(got_n, ref_n);
    assert_memory_equal(got, ref, ref_n * 16 * sizeof(float));
    free(q8);
}

static void soffd_driver_bad_views_are_named(void **state)
{
    (void)state;
    sinew_soffd *h = NULL;
    uint16_t buf[40];
    for (int i = 0; i < 36; ++i) buf[i + 1] = (uint16_t)cube_tris[i];
    sinew_polymesh m = {{cube, 8, 0}, (const char *)buf + 1, NULL, 12, SINEW_INDEX_U16};
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "not aligned to 2 bytes"));
    m.indices = buf + 1;
    buf[1 + 3 * 4 + 2] = 8; /* face 4, third corner */
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_string_equal(sinew_last_error(), "driver face 4 refers to vertex 8, but there are only 8");
    buf[1 + 3 * 4 + 2] = 0;
    m.index_type = (sinew_index_type)3;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "index type 3 is not a sinew_index_type"));
    assert_null(h);
}

/* ---- BBW domains ----------------------------------------------------------------------- */

/* A 3 x 3 grid of the unit square: 16 vertices, 18 triangles. */
static float grid[16 * 3];
static uint32_t grid_tris[18 * 3];
static void make_grid(void)
{
    for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 4; ++i) {
            grid[3 * (4 * j + i)] = (float)i / 3;
            grid[3 * (4 * j + i) + 1] = (float)j / 3;
            grid[3 * (4 * j + i) + 2] = 0;
        }
    size_t t = 0;
    for (uint32_t j = 0; j < 3; ++j)
        for (uint32_t i = 0; i < 3; ++i) {
            uint32_t a = 4 * j + i, b = a + 1, c = a + 5, d = a + 4;
            const uint32_t two[6] = {a, b, c, a, c, d};
            memcpy(&grid_tris[3 * t], two, sizeof two);
            t += 2;
        }
}

static const float two_handles[2 * 3] = {0, 0, 0, 1, 1, 0};

static void bbw_elements(const sinew_bbw_desc *d, uint32_t *out, size_t capacity_elements, size_t per,
                         float *weights, size_t vertices)
{
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, d, &b), SINEW_OK);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    sinew_bbw_get_info(b, &info);
    assert_true(info.element_count <= capacity_elements);
    (void)per;
    assert_int_equal(sinew_bbw_domain_elements(b, out, 0, info.element_count), SINEW_OK);
    if (weights) {
        assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
        assert_int_equal(sinew_bbw_vertex_weights(b, weights, 0, vertices), SINEW_OK);
    }
    sinew_bbw_destroy(b);
}

static void bbw_triangle_domain_formats_match_u32(void **state)
{
    (void)state;
    make_grid();
    uint32_t ref[18 * 3], got[18 * 3];
    float wref[16 * 2], wgot[16 * 2];
    sinew_trimesh domain = {{grid, 16, 0}, grid_tris, 18, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &domain;
    d.points = (sinew_points){two_handles, 2, 0};
    bbw_elements(&d, ref, 18, 3, wref, 16);
    for (size_t i = 0; i < FORMAT_COUNT; ++i) {
        void *idx = convert(grid_tris, 18, 3, formats[i]);
        domain.indices = idx;
        domain.index_type = formats[i].type;
        domain.index_stride = formats[i].stride;
        memset(got, 0, sizeof got);
        bbw_elements(&d, got, 18, 3, wgot, 16);
        assert_memory_equal(got, ref, sizeof ref);
        assert_memory_equal(wgot, wref, sizeof wref);
        free(idx);
    }
    /* An index past the vertices in a u8 view names the triangle, the vertex and the slot. */
    uint8_t bad[18 * 3];
    for (int i = 0; i < 54; ++i) bad[i] = (uint8_t)grid_tris[i];
    bad[3 * 5 + 1] = 200;
    domain.indices = bad;
    domain.index_type = SINEW_INDEX_U8;
    domain.index_stride = 0;
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_string_equal(sinew_last_error(), "triangle 5 refers to vertex 200 (slot 1), but there are only 16");
    /* A stride shorter than one triangle's indices, or not a multiple of the index size. */
    domain.index_type = SINEW_INDEX_U16;
    domain.index_stride = 4;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "index stride 4 bytes"));
    domain.index_stride = 7;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "must be 0 or a multiple of 2 that is at least 6"));
    /* A span past the address space is refused before anything is read. */
    domain.index_stride = (SIZE_MAX / 4) & ~(size_t)1;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_ERROR_SIZE_OVERFLOW);
    assert_null(b);
}

/* Five positively oriented tets of the unit cube. */
static const uint32_t cube_tets[5 * 4] = {0, 1, 3, 4, 1, 2, 3, 6, 1, 6, 4, 5, 3, 4, 6, 7, 1, 3, 4, 6};

static void bbw_tet_and_surface_domains_match_u32(void **state)
{
    (void)state;
    uint32_t ref[5 * 4], got[5 * 4];
    sinew_tetmesh tets = {{cube, 8, 0}, cube_tets, 5, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    const float handles[2 * 3] = {0, 0, 0, 1, 1, 1};
    d.tets = &tets;
    d.points = (sinew_points){handles, 2, 0};
    bbw_elements(&d, ref, 5, 4, NULL, 0);
    for (size_t i = 0; i < FORMAT_COUNT; ++i) {
        void *idx = convert(cube_tets, 5, 4, formats[i]);
        tets.indices = idx;
        tets.index_type = formats[i].type;
        tets.index_stride = formats[i].stride;
        memset(got, 0, sizeof got);
        bbw_elements(&d, got, 5, 4, NULL, 0);
        assert_memory_equal(got, ref, sizeof ref);
        free(idx);
    }
    /* The automatic volume inside a surface reads the surface's triangles
     * (its winding numbers) through the same views. */
    sinew_trimesh surface = cube_mesh(cube_tris, (format){SINEW_INDEX_U32, 0});
    sinew_bbw_desc s;
    SINEW_INIT(&s);
    s.surface = &surface;
    s.grid_resolution = 4;
    s.points = (sinew_points){handles, 2, 0};
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, &s, &b), SINEW_OK);
    sinew_bbw_info ref_info, info;
    SINEW_INIT(&ref_info);
    SINEW_INIT(&info);
    sinew_bbw_get_info(b, &ref_info);
    sinew_bbw_destroy(b);
    void *idx = convert(cube_tris, 12, 3, (format){SINEW_INDEX_U16, 10});
    surface = cube_mesh(idx, (format){SINEW_INDEX_U16, 10});
    assert_int_equal(sinew_bbw_create(NULL, &s, &b), SINEW_OK);
    sinew_bbw_get_info(b, &info);
    sinew_bbw_destroy(b);
    assert_int_equal(info.vertex_count, ref_info.vertex_count);
    assert_int_equal(info.element_count, ref_info.element_count);
    free(idx);
}

/* ---- Lattice refinement and placement --------------------------------------------------- */

static void lattice_refine_formats_match_u32(void **state)
{
    (void)state;
    sinew_lattice_desc ld;
    SINEW_INIT(&ld);
    sinew_lattice *lat = NULL;
    assert_int_equal(sinew_lattice_create(NULL, &ld, &lat), SINEW_OK);
    sinew_lattice_info li;
    SINEW_INIT(&li);
    sinew_lattice_get_info(lat, &li);
    float *bend = calloc(3 * li.point_count, sizeof(float));
    for (size_t i = 0; i < li.point_count; ++i) bend[3 * i + 2] = 0.3f * (float)((i * 7) % 5);
    sinew_points bv = {bend, li.point_count, 0};
    assert_int_equal(sinew_lattice_set_displacements(lat, &bv, 0, bv.count), SINEW_OK);
    sinew_lattice_refinement_desc rd = {sizeof(sinew_lattice_refinement_desc), 0.02, 0, 0, 0};
    sinew_trimesh m = cube_mesh(cube_tris, (format){SINEW_INDEX_U32, 0});
    sinew_lattice_refinement *ref = NULL, *got = NULL;
    assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &m, &rd, &ref), SINEW_OK);
    sinew_lattice_refined_mesh rm, gm;
    SINEW_INIT(&rm);
    SINEW_INIT(&gm);
    sinew_lattice_refinement_mesh(ref, &rm);
    assert_true(rm.triangle_count > 12);
    for (size_t i = 0; i < FORMAT_COUNT; ++i) {
        void *idx = convert(cube_tris, 12, 3, formats[i]);
        m = cube_mesh(idx, formats[i]);
        assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &m, &rd, &got), SINEW_OK);
        sinew_lattice_refinement_mesh(got, &gm);
        assert_int_equal(gm.triangle_count, rm.triangle_count);
        assert_int_equal(gm.vertex_count, rm.vertex_count);
        assert_memory_equal(gm.indices, rm.indices, 3 * rm.triangle_count * sizeof(uint32_t));
        assert_memory_equal(gm.positions, rm.positions, 3 * rm.vertex_count * sizeof(float));
        sinew_lattice_refinement_destroy(got);
        free(idx);
    }
    sinew_lattice_refinement_destroy(ref);
    free(bend);
    sinew_lattice_destroy(lat);
}

static void placement_scene_formats_match_u32(void **state)
{
    (void)state;
    static const float floor_vertices[4 * 3] = {-10, -10, 0, 10, -10, 0, 10, 10, 0, -10, 10, 0};
    static const uint32_t floor_triangles[2 * 3] = {0, 1, 2, 0, 2, 3};
    static const float path[2 * 3] = {0, 0, 1, 2, 0, 1};
    sinew_placement_desc d;
    SINEW_INIT(&d);
    d.path = (sinew_points){path, 2, 0};
    d.width = 1;
    d.height = 1;
    d.count[0] = 6;
    d.count[1] = 4;
    d.scene = (sinew_trimesh){{floor_vertices, 4, 0}, floor_triangles, 2, SINEW_INDEX_U32, 0};
    sinew_placement *p = NULL;
    assert_int_equal(sinew_placement_create(NULL, &d, &p), SINEW_OK);
    float ref[6 * 3 * 4 * 4], got[6 * 3 * 4 * 4];
    size_t n = 6 * 4 * 4;
    assert_int_equal(sinew_lattice_points(sinew_placement_lattice(p), ref, 0, 0, n), SINEW_OK);
    sinew_placement_destroy(p);
    for (size_t i = 0; i < FORMAT_COUNT; ++i) {
        void *idx = convert(floor_triangles, 2, 3, formats[i]);
        d.scene.indices = idx;
        d.scene.index_type = formats[i].type;
        d.scene.index_stride = formats[i].stride;
        assert_int_equal(sinew_placement_create(NULL, &d, &p), SINEW_OK);
        assert_int_equal(sinew_lattice_points(sinew_placement_lattice(p), got, 0, 0, n), SINEW_OK);
        assert_memory_equal(got, ref, sizeof ref);
        sinew_placement_destroy(p);
        free(idx);
    }
    uint16_t bad[6] = {0, 1, 2, 0, 2, 4};
    d.scene.indices = bad;
    d.scene.index_type = SINEW_INDEX_U16;
    d.scene.index_stride = 0;
    p = NULL;
    assert_int_equal(sinew_placement_create(NULL, &d, &p), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_string_equal(sinew_last_error(), "scene triangle 1 refers to vertex 4 (slot 2), but there are only 4");
    assert_null(p);
}

/* ---- Skin weight tools -------------------------------------------------------------------- */

static void skin_tools_mesh_formats_match_u32(void **state)
{
    (void)state;
    enum { K = 2 };
    uint32_t j0[8 * K], j1[8 * K];
    float w0[8 * K], w1[8 * K];
    for (int v = 0; v < 8; ++v) {
        j0[K * v] = 0, j0[K * v + 1] = 1;
        w0[K * v] = v < 4 ? 0.9f : 0.2f;
        w0[K * v + 1] = 1.0f - w0[K * v];
    }
    uint32_t jr[8 * K];
    float wr[8 * K];
    memcpy(jr, j0, sizeof jr);
    memcpy(wr, w0, sizeof wr);
    sinew_trimesh m = cube_mesh(cube_tris, (format){SINEW_INDEX_U32, 0});
    assert_int_equal(sinew_skin_smooth_weights(NULL, &m, K, jr, wr, NULL), SINEW_OK);
    for (size_t i = 0; i < FORMAT_COUNT; ++i) {
        void *idx = convert(cube_tris, 12, 3, formats[i]);
        m = cube_mesh(idx, formats[i]);
        memcpy(j1, j0, sizeof j1);
        memcpy(w1, w0, sizeof w1);
        assert_int_equal(sinew_skin_smooth_weights(NULL, &m, K, j1, w1, NULL), SINEW_OK);
        assert_memory_equal(j1, jr, sizeof jr);
        assert_memory_equal(w1, wr, sizeof wr);
        memcpy(j1, j0, sizeof j1);
        memcpy(w1, w0, sizeof w1);
        assert_int_equal(sinew_skin_remove_rogues(NULL, &m, K, j1, w1, NULL), SINEW_OK);
        free(idx);
    }
    /* A failure leaves the weights untouched. */
    uint8_t bad[36];
    for (int i = 0; i < 36; ++i) bad[i] = (uint8_t)cube_tris[i];
    bad[35] = 9;
    m = cube_mesh(bad, (format){SINEW_INDEX_U8, 0});
    memcpy(w1, w0, sizeof w1);
    assert_int_equal(sinew_skin_smooth_weights(NULL, &m, K, j1, w1, NULL), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_string_equal(sinew_last_error(), "triangle 11 refers to vertex 9 (slot 2), but there are only 8");
    assert_memory_equal(w1, w0, sizeof w0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(soffd_driver_formats_match_u32),
        cmocka_unit_test(soffd_driver_bad_views_are_named),
        cmocka_unit_test(bbw_triangle_domain_formats_match_u32),
        cmocka_unit_test(bbw_tet_and_surface_domains_match_u32),
        cmocka_unit_test(lattice_refine_formats_match_u32),
        cmocka_unit_test(placement_scene_formats_match_u32),
        cmocka_unit_test(skin_tools_mesh_formats_match_u32),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
