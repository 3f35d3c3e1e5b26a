/* Save and load of lattices, bindings and refinements: round trips that
 * deform bit for bit and re-save to the same bytes (every order mix, outside
 * policy, moved control points, bindings with normals and in parameter space
 * loaded without a lattice, refinements), golden files of format version 1,
 * the save contract (size query, too-small buffers), wrong kind, newer
 * format, a value of each kind the loader must refuse (with create's code
 * and a message naming it), corruption sweeps and allocation failures.
 * SINEW_WRITE_GOLDEN=1 rewrites the golden files from this version. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support.h"

/* ---- Helpers ---------------------------------------------------------------- */

typedef struct saved {
    unsigned char *data;
    size_t size;
} saved;

static saved save_lattice(const sinew_lattice *l)
{
    saved s = {NULL, 0};
    assert_int_equal(sinew_lattice_save(l, NULL, 0, &s.size), SINEW_OK);
    s.data = malloc(s.size);
    size_t written = 0;
    assert_int_equal(sinew_lattice_save(l, s.data, s.size, &written), SINEW_OK);
    assert_int_equal(written, s.size);
    return s;
}

static saved save_binding(const sinew_lattice_binding *b)
{
    saved s = {NULL, 0};
    assert_int_equal(sinew_lattice_binding_save(b, NULL, 0, &s.size), SINEW_OK);
    s.data = malloc(s.size);
    size_t written = 0;
    assert_int_equal(sinew_lattice_binding_save(b, s.data, s.size, &written), SINEW_OK);
    assert_int_equal(written, s.size);
    return s;
}

static saved save_refinement(const sinew_lattice_refinement *r)
{
    saved s = {NULL, 0};
    assert_int_equal(sinew_lattice_refinement_save(r, NULL, 0, &s.size), SINEW_OK);
    s.data = malloc(s.size);
    size_t written = 0;
    assert_int_equal(sinew_lattice_refinement_save(r, s.data, s.size, &written), SINEW_OK);
    assert_int_equal(written, s.size);
    return s;
}

static void assert_same_bytes(saved a, saved b)
{
    assert_int_equal(a.size, b.size);
    assert_memory_equal(a.data, b.data, a.size);
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Element data of the section with this tag (the format: a 64-byte header,
 * then 32-byte table entries tag, type, count, offset). */
static unsigned char *section(saved s, const char tag[4], size_t *count)
{
    uint32_t want = (uint32_t)(uint8_t)tag[0] | (uint32_t)(uint8_t)tag[1] << 8 | (uint32_t)(uint8_t)tag[2] << 16 |
                    (uint32_t)(uint8_t)tag[3] << 24;
    uint32_t sections = le32(s.data + 20);
    for (uint32_t i = 0; i < sections; ++i) {
        const unsigned char *e = s.data + 64 + 32 * (size_t)i;
        if (le32(e) != want) continue;
        if (count) *count = (size_t)le64(e + 8);
        return s.data + le64(e + 16);
    }
    fail_msg("section %.4s not found", tag);
    return NULL;
}

static void put_f32(unsigned char *p, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(bits >> (8 * i));
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    put_u32(p, (uint32_t)v);
    put_u32(p + 4, (uint32_t)(v >> 32));
}

static void expect_error(sinew_result got, sinew_result want, const char *fragment)
{
    if (got != want) fail_msg("got %s, want %s (%s)", sinew_result_string(got), sinew_result_string(want),
                              sinew_last_error());
    if (!strstr(sinew_last_error(), fragment)) fail_msg("message \"%s\" lacks \"%s\"", sinew_last_error(), fragment);
}

static sinew_lattice *make_lattice(const uint32_t order[3], const uint32_t count[3], sinew_lattice_outside outside,
                                   uint64_t seed)
{
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    memcpy(d.order, order, sizeof d.order);
    memcpy(d.count, count, sizeof d.count);
    d.origin[0] = -1.25f, d.origin[1] = 0.5f, d.origin[2] = 2.0f;
    /* A rotated, unnormalised frame: the saved frame must be the one create made. */
    const float axes[3][3] = {{2.0f, 0.3f, 0.0f}, {-0.3f, 2.0f, 0.1f}, {0.0f, -0.1f, 3.0f}};
    memcpy(d.axes, axes, sizeof axes);
    d.extents[0] = 2.5f, d.extents[1] = 1.5f, d.extents[2] = 3.0f;
    d.outside = outside;
    sinew_lattice *l = NULL;
    assert_int_equal(sinew_lattice_create(NULL, &d, &l), SINEW_OK);
    sinew_lattice_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_lattice_get_info(l, &info), SINEW_OK);
    support_rng rng;
    support_rng_seed(&rng, seed);
    /* Moved in two partial sets, so the displacement bound is not exact. */
    size_t n = info.point_count, half = n / 2;
    float *disp = malloc(3 * n * sizeof(float));
    for (size_t i = 0; i < 3 * n; ++i) disp[i] = (float)support_rng_uniform(&rng, -0.3, 0.3);
    sinew_points all = {disp, n, 0};
    assert_int_equal(sinew_lattice_set_displacements(l, &all, 0, half), SINEW_OK);
    assert_int_equal(sinew_lattice_set_displacements(l, &all, half, n - half), SINEW_OK);
    free(disp);
    return l;
}

/* Points inside and outside the box (in world and in parameter space). */
static float *test_points(size_t n, bool parameter, uint64_t seed)
{
    support_rng rng;
    support_rng_seed(&rng, seed);
    float *p = malloc(3 * n * sizeof(float));
    for (size_t i = 0; i < 3 * n; ++i)
        p[i] = parameter ? (float)support_rng_uniform(&rng, -0.3, 1.3) : (float)support_rng_uniform(&rng, -3.0, 6.0);
    return p;
}

static float *unit_normals(size_t n, uint64_t seed)
{
    float *v = test_points(n, false, seed);
    for (size_t i = 0; i < n; ++i) {
        float *q = v + 3 * i;
        float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        if (len == 0.0f) q[0] = len = 1.0f;
        for (int c = 0; c < 3; ++c) q[c] /= len;
    }
    return v;
}

/* Deforms the test points with normals and evaluates Jacobians: every output
 * of the two lattices must be the same bits. */
static void assert_same_lattice(const sinew_lattice *a, const sinew_lattice *b)
{
    sinew_lattice_info ia, ib;
    SINEW_INIT(&ia);
    SINEW_INIT(&ib);
    assert_int_equal(sinew_lattice_get_info(a, &ia), SINEW_OK);
    assert_int_equal(sinew_lattice_get_info(b, &ib), SINEW_OK);
    assert_memory_equal(&ia, &ib, sizeof ia);
    size_t n = ia.point_count;
    float *da = malloc(3 * n * sizeof(float)), *db = malloc(3 * n * sizeof(float));
    assert_int_equal(sinew_lattice_displacements(a, da, 0, 0, n), SINEW_OK);
    assert_int_equal(sinew_lattice_displacements(b, db, 0, 0, n), SINEW_OK);
    assert_memory_equal(da, db, 3 * n * sizeof(float));
    free(da);
    free(db);
    enum { N = 200 };
    float *pts = test_points(N, false, 7), *nrm = unit_normals(N, 8), *par = test_points(N, true, 9);
    float out_a[2][3 * N], out_b[2][3 * N], jac_a[9 * N], jac_b[9 * N];
    sinew_points pv = {pts, N, 0}, nv = {nrm, N, 0}, qv = {par, N, 0};
    assert_int_equal(sinew_lattice_deform(a, &pv, &nv, out_a[0], 0, out_a[1], 0, 0, N), SINEW_OK);
    assert_int_equal(sinew_lattice_deform(b, &pv, &nv, out_b[0], 0, out_b[1], 0, 0, N), SINEW_OK);
    assert_memory_equal(out_a, out_b, sizeof out_a);
    assert_int_equal(sinew_lattice_evaluate(a, &qv, out_a[0], 0, jac_a, 0, 0, N), SINEW_OK);
    assert_int_equal(sinew_lattice_evaluate(b, &qv, out_b[0], 0, jac_b, 0, 0, N), SINEW_OK);
    assert_memory_equal(out_a[0], out_b[0], sizeof out_a[0]);
    assert_memory_equal(jac_a, jac_b, sizeof jac_a);
    free(pts);
    free(nrm);
    free(par);
}

static const uint32_t order_mixes[][3] = {{4, 4, 4}, {2, 2, 2}, {3, 5, 8}, {2, 4, 6}};
static const uint32_t count_mixes[][3] = {{6, 5, 4}, {2, 3, 2}, {4, 6, 9}, {5, 4, 6}};

/* ---- Round trips ------------------------------------------------------------- */

static void lattice_round_trip(void **state)
{
    (void)state;
    for (size_t m = 0; m < sizeof order_mixes / sizeof order_mixes[0]; ++m)
        for (int outside = 0; outside <= 2; ++outside) {
            sinew_lattice *l = make_lattice(order_mixes[m], count_mixes[m], (sinew_lattice_outside)outside, 11 + m);
            saved s = save_lattice(l);
            sinew_lattice *back = NULL;
            assert_int_equal(sinew_lattice_load(NULL, s.data, s.size, &back), SINEW_OK);
            assert_string_equal(sinew_last_error(), "");
            assert_same_lattice(l, back);
            saved again = save_lattice(back);
            assert_same_bytes(s, again);
            sinew_saved_info info;
            SINEW_INIT(&info);
            assert_int_equal(sinew_saved_get_info(s.data, s.size, &info), SINEW_OK);
            assert_int_equal(info.kind, SINEW_KIND_LATTICE);
            assert_int_equal(info.size, s.size);
            free(s.data);
            free(again.data);
            sinew_lattice_destroy(l);
            sinew_lattice_destroy(back);
        }
}

/* A binding loaded without any lattice deforms, through the original lattice
 * and through a loaded one, exactly as the binding it was saved from. */
static void binding_round_trip(void **state)
{
    (void)state;
    enum { N = 150 };
    for (size_t m = 0; m < sizeof order_mixes / sizeof order_mixes[0]; ++m)
        for (int outside = 0; outside <= 2; ++outside)
            for (int space = 0; space <= 1; ++space)
                for (int with_normals = 0; with_normals <= 1; ++with_normals) {
                    sinew_lattice *l = make_lattice(order_mixes[m], count_mixes[m], (sinew_lattice_outside)outside,
                                                    21 + m);
                    float *pts = test_points(N, space == 1, 31), *nrm = unit_normals(N, 32);
                    sinew_lattice_binding_desc bd;
                    SINEW_INIT(&bd);
                    bd.points = (sinew_points){pts, N, 0};
                    if (with_normals) bd.normals = (sinew_points){nrm, N, 0};
                    bd.space = (sinew_lattice_space)space;
                    sinew_lattice_binding *b = NULL;
                    assert_int_equal(sinew_lattice_binding_create(NULL, l, &bd, &b), SINEW_OK);
                    saved sl = save_lattice(l), sb = save_binding(b);
                    sinew_lattice_binding *bb = NULL;
                    sinew_lattice *lb = NULL;
                    assert_int_equal(sinew_lattice_binding_load(NULL, sb.data, sb.size, &bb), SINEW_OK);
                    assert_int_equal(sinew_lattice_binding_count(bb), N);
                    assert_int_equal(sinew_lattice_load(NULL, sl.data, sl.size, &lb), SINEW_OK);
                    float out[4][2][3 * N];
                    float *np[4] = {NULL, NULL, NULL, NULL};
                    for (int k = 0; k < 4 && with_normals; ++k) np[k] = out[k][1];
                    assert_int_equal(sinew_lattice_binding_deform(b, l, out[0][0], 0, np[0], 0, 0, N), SINEW_OK);
                    assert_int_equal(sinew_lattice_binding_deform(bb, l, out[1][0], 0, np[1], 0, 0, N), SINEW_OK);
                    assert_int_equal(sinew_lattice_binding_deform(bb, lb, out[2][0], 0, np[2], 0, 0, N), SINEW_OK);
                    assert_int_equal(sinew_lattice_binding_deform(b, lb, out[3][0], 0, np[3], 0, 0, N), SINEW_OK);
                    size_t bytes = (with_normals ? 2 : 1) * sizeof out[0][0];
                    for (int k = 1; k < 4; ++k) assert_memory_equal(out[0], out[k], bytes);
                    saved again = save_binding(bb);
                    assert_same_bytes(sb, again);
                    free(again.data);
                    free(sl.data);
                    free(sb.data);
                    free(pts);
                    free(nrm);
                    sinew_lattice_binding_destroy(b);
                    sinew_lattice_binding_destroy(bb);
                    sinew_lattice_destroy(l);
                    sinew_lattice_destroy(lb);
                }
}

/* The loaded binding still refuses a lattice of another structure. */
static void loaded_binding_checks_structure(void **state)
{
    (void)state;
    sinew_lattice *l = make_lattice(order_mixes[0], count_mixes[0], SINEW_LATTICE_OUTSIDE_CLAMP, 3);
    sinew_lattice *other = make_lattice(order_mixes[0], count_mixes[0], SINEW_LATTICE_OUTSIDE_EXTEND, 3);
    float pts[6] = {0.1f, 0.2f, 0.3f, 1.0f, 1.0f, 1.0f};
    sinew_lattice_binding_desc bd;
    SINEW_INIT(&bd);
    bd.points = (sinew_points){pts, 2, 0};
    sinew_lattice_binding *b = NULL, *bb = NULL;
    assert_int_equal(sinew_lattice_binding_create(NULL, l, &bd, &b), SINEW_OK);
    saved s = save_binding(b);
    sinew_lattice_binding_destroy(b);
    sinew_lattice_destroy(l);
    assert_int_equal(sinew_lattice_binding_load(NULL, s.data, s.size, &bb), SINEW_OK);
    float out[6] = {0}, keep[6];
    memcpy(keep, out, sizeof out);
    expect_error(sinew_lattice_binding_deform(bb, other, out, 0, NULL, 0, 0, 2), SINEW_ERROR_MISMATCH, "outside policy");
    assert_memory_equal(out, keep, sizeof out);
    expect_error(sinew_lattice_binding_deform(bb, other, out, 0, out, 0, 0, 2), SINEW_ERROR_MISMATCH, "differ");
    sinew_lattice_binding_destroy(bb);
    sinew_lattice_destroy(other);
    free(s.data);
}

/* A small grid mesh inside the box, refined under a bent lattice. */
static sinew_lattice_refinement *make_refinement(const sinew_lattice *l)
{
    enum { G = 4 };
    float pos[3 * (G + 1) * (G + 1)];
    uint32_t tri[6 * G * G];
    for (int j = 0; j <= G; ++j)
        for (int i = 0; i <= G; ++i) {
            float *p = pos + 3 * (j * (G + 1) + i);
            p[0] = -1.0f + 2.0f * (float)i / G, p[1] = 0.8f + 1.5f * (float)j / G, p[2] = 3.5f;
        }
    size_t t = 0;
    for (int j = 0; j < G; ++j)
        for (int i = 0; i < G; ++i) {
            uint32_t a = (uint32_t)(j * (G + 1) + i), b = a + 1, c = a + G + 1, d = c + 1;
            uint32_t quad[6] = {a, b, d, a, d, c};
            memcpy(tri + 6 * t++, quad, sizeof quad);
        }
    sinew_trimesh mesh = {{pos, (G + 1) * (G + 1), 0}, tri, 2 * G * G, SINEW_INDEX_U32, 0};
    sinew_lattice_refinement_desc rd;
    SINEW_INIT(&rd);
    rd.tolerance = 0.01;
    sinew_lattice_refinement *r = NULL;
    assert_int_equal(sinew_lattice_refinement_create(NULL, l, &mesh, &rd, &r), SINEW_OK);
    return r;
}

static void assert_same_refinement(const sinew_lattice_refinement *a, const sinew_lattice_refinement *b)
{
    sinew_lattice_refined_mesh ma, mb;
    SINEW_INIT(&ma);
    SINEW_INIT(&mb);
    assert_int_equal(sinew_lattice_refinement_mesh(a, &ma), SINEW_OK);
    assert_int_equal(sinew_lattice_refinement_mesh(b, &mb), SINEW_OK);
    assert_int_equal(ma.vertex_count, mb.vertex_count);
    assert_int_equal(ma.input_vertex_count, mb.input_vertex_count);
    assert_int_equal(ma.triangle_count, mb.triangle_count);
    assert_int_equal(ma.rounds, mb.rounds);
    assert_memory_equal(&ma.max_error, &mb.max_error, sizeof ma.max_error);
    size_t added = ma.vertex_count - ma.input_vertex_count;
    assert_memory_equal(ma.rest_positions, mb.rest_positions, 3 * ma.vertex_count * sizeof(float));
    assert_memory_equal(ma.positions, mb.positions, 3 * ma.vertex_count * sizeof(float));
    assert_memory_equal(ma.indices, mb.indices, 3 * ma.triangle_count * sizeof(uint32_t));
    if (added) {
        assert_memory_equal(ma.parents, mb.parents, 2 * added * sizeof(uint32_t));
        assert_memory_equal(ma.parameters, mb.parameters, added * sizeof(float));
    }
}

static void refinement_round_trip(void **state)
{
    (void)state;
    sinew_lattice *l = make_lattice(order_mixes[0], count_mixes[0], SINEW_LATTICE_OUTSIDE_LEAVE, 41);
    sinew_lattice_refinement *r = make_refinement(l);
    sinew_lattice_refined_mesh m;
    SINEW_INIT(&m);
    assert_int_equal(sinew_lattice_refinement_mesh(r, &m), SINEW_OK);
    assert_true(m.vertex_count > m.input_vertex_count);
    saved s = save_refinement(r);
    sinew_lattice_refinement *back = NULL;
    assert_int_equal(sinew_lattice_refinement_load(NULL, s.data, s.size, &back), SINEW_OK);
    assert_same_refinement(r, back);
    saved again = save_refinement(back);
    assert_same_bytes(s, again);
    free(s.data);
    free(again.data);
    sinew_lattice_refinement_destroy(r);
    sinew_lattice_refinement_destroy(back);
    sinew_lattice_destroy(l);
}

/* ---- The save contract, kinds and versions ------------------------------------ */

static void save_contract(void **state)
{
    (void)state;
    sinew_lattice *l = make_lattice(order_mixes[1], count_mixes[1], SINEW_LATTICE_OUTSIDE_LEAVE, 5);
    size_t need = 0, size = 0;
    assert_int_equal(sinew_lattice_save(l, NULL, 0, &need), SINEW_OK);
    assert_true(need > 64 && need % 64 == 0);
    unsigned char *buf = malloc(need);
    memset(buf, 0xab, need);
    expect_error(sinew_lattice_save(l, buf, need - 1, &size), SINEW_ERROR_BUFFER_TOO_SMALL, "bytes");
    assert_int_equal(size, need);
    for (size_t i = 0; i < need; ++i) assert_int_equal(buf[i], 0xab);
    expect_error(sinew_lattice_save(NULL, buf, need, &size), SINEW_ERROR_INVALID_ARGUMENT, "lattice");
    expect_error(sinew_lattice_save(l, buf, need, NULL), SINEW_ERROR_INVALID_ARGUMENT, "size");
    expect_error(sinew_lattice_binding_save(NULL, NULL, 0, &size), SINEW_ERROR_INVALID_ARGUMENT, "binding");
    expect_error(sinew_lattice_refinement_save(NULL, NULL, 0, &size), SINEW_ERROR_INVALID_ARGUMENT, "refinement");
    assert_int_equal(sinew_lattice_save(l, buf, need, &size), SINEW_OK);
    sinew_lattice *out = (sinew_lattice *)buf; /* any non-NULL value: must stay */
    expect_error(sinew_lattice_load(NULL, buf, need, NULL), SINEW_ERROR_INVALID_ARGUMENT, "out");
    expect_error(sinew_lattice_load(NULL, NULL, need, &out), SINEW_ERROR_INVALID_ARGUMENT, "NULL");
    assert_ptr_equal(out, buf);
    free(buf);
    sinew_lattice_destroy(l);
}

static void wrong_kind_and_newer_format(void **state)
{
    (void)state;
    sinew_lattice *l = make_lattice(order_mixes[1], count_mixes[1], SINEW_LATTICE_OUTSIDE_LEAVE, 5);
    saved s = save_lattice(l);
    sinew_lattice_binding *b = NULL;
    sinew_lattice_refinement *r = NULL;
    sinew_placement *p = NULL;
    expect_error(sinew_lattice_binding_load(NULL, s.data, s.size, &b), SINEW_ERROR_MISMATCH, "lattice");
    expect_error(sinew_lattice_refinement_load(NULL, s.data, s.size, &r), SINEW_ERROR_MISMATCH, "lattice");
    expect_error(sinew_placement_load(NULL, s.data, s.size, &p), SINEW_ERROR_MISMATCH, "lattice");
    assert_null(b);
    assert_null(r);
    assert_null(p);
    put_u32(s.data + 8, 2);
    assert_true(support_reseal(s.data, s.size));
    sinew_lattice *back = NULL;
    expect_error(sinew_lattice_load(NULL, s.data, s.size, &back), SINEW_ERROR_UNSUPPORTED, "version");
    assert_null(back);
    free(s.data);
    sinew_lattice_destroy(l);
}

/* ---- Values the loader refuses ------------------------------------------------ */

typedef sinew_result (*load_fn)(saved s);

static sinew_result load_lattice_data(saved s)
{
    sinew_lattice *l = NULL;
    sinew_result r = sinew_lattice_load(NULL, s.data, s.size, &l);
    if (r == SINEW_OK) sinew_lattice_destroy(l);
    else assert_null(l);
    return r;
}

static sinew_result load_binding_data(saved s)
{
    sinew_lattice_binding *b = NULL;
    sinew_result r = sinew_lattice_binding_load(NULL, s.data, s.size, &b);
    if (r == SINEW_OK) sinew_lattice_binding_destroy(b);
    else assert_null(b);
    return r;
}

static sinew_result load_refinement_data(saved s)
{
    sinew_lattice_refinement *x = NULL;
    sinew_result r = sinew_lattice_refinement_load(NULL, s.data, s.size, &x);
    if (r == SINEW_OK) sinew_lattice_refinement_destroy(x);
    else assert_null(x);
    return r;
}

/* Copies s, lets edit change it, reseals and loads. */
static void expect_refused(saved s, load_fn load, void (*edit)(saved), sinew_result want, const char *fragment)
{
    saved c = {malloc(s.size), s.size};
    memcpy(c.data, s.data, s.size);
    edit(c);
    assert_true(support_reseal(c.data, c.size));
    expect_error(load(c), want, fragment);
    free(c.data);
}

static void lattice_order_9(saved s) { put_u64(section(s, "LSTR", NULL) + 8 * 4, 9); }
static void lattice_count_below_order(saved s) { put_u64(section(s, "LSTR", NULL) + 8 * 0, 1); }
static void lattice_outside_3(saved s) { put_u64(section(s, "LSTR", NULL) + 8 * 6, 3); }
static void lattice_extent_zero(saved s) { put_f32(section(s, "LEXT", NULL) + 4, 0.0f); }
static void lattice_flat_frame(saved s)
{
    /* Axis w made equal to axis u: a box of no volume. */
    unsigned char *f = section(s, "LFRM", NULL);
    memcpy(f + 48, f, 24);
}
static void lattice_huge_origin(saved s) { put_u64(section(s, "LORG", NULL), 0x47f0000000000000ull); /* 2^128 */ }
static void lattice_axes_disagree(saved s) { put_f32(section(s, "LAXS", NULL), 0.5f); }
static void lattice_far_displacement(saved s)
{
    /* A box near the end of the float range: a displacement as large takes
     * its control point past it. */
    put_u64(section(s, "LORG", NULL), 0x47ec363cc0000000ull); /* the float 3e38 as a double */
    put_f32(section(s, "LDSX", NULL) + 4 * 3, 3e38f);
}
static void lattice_wrong_point_count(saved s) { put_u64(section(s, "LSTR", NULL) + 8 * 2, 3); }

static void lattice_refusals(void **state)
{
    (void)state;
    sinew_lattice *l = make_lattice(order_mixes[1], count_mixes[1], SINEW_LATTICE_OUTSIDE_LEAVE, 5);
    saved s = save_lattice(l);
    expect_refused(s, load_lattice_data, lattice_order_9, SINEW_ERROR_INVALID_ARGUMENT,
                   "lattice data: lattice order 9 on axis v is outside 2..8");
    expect_refused(s, load_lattice_data, lattice_count_below_order, SINEW_ERROR_INVALID_ARGUMENT,
                   "lattice data: lattice axis u has 1 control points, fewer than its order 2");
    expect_refused(s, load_lattice_data, lattice_outside_3, SINEW_ERROR_INVALID_ARGUMENT,
                   "lattice data: unknown outside policy 3");
    expect_refused(s, load_lattice_data, lattice_extent_zero, SINEW_ERROR_DEGENERATE,
                   "lattice data: lattice extent v is 0");
    expect_refused(s, load_lattice_data, lattice_flat_frame, SINEW_ERROR_DEGENERATE, "linearly dependent");
    expect_refused(s, load_lattice_data, lattice_huge_origin, SINEW_ERROR_NON_FINITE, "beyond the float range");
    expect_refused(s, load_lattice_data, lattice_axes_disagree, SINEW_ERROR_INVALID_DATA, "unit axis u component x");
    expect_refused(s, load_lattice_data, lattice_far_displacement, SINEW_ERROR_NON_FINITE,
                   "lattice data: control point 3 has a displacement x");
    expect_refused(s, load_lattice_data, lattice_wrong_point_count, SINEW_ERROR_INVALID_DATA, "section LDSX holds");
    free(s.data);
    sinew_lattice_destroy(l);
}

/* Records of the binding below: cubic, no normals: 16 words per point. */
static void binding_first_past_cells(saved s) { put_u32(section(s, "BREC", NULL) + 4 * (16 + 3), 3); }
static void binding_basis_sum(saved s) { put_f32(section(s, "BREC", NULL) + 4 * (16 + 9), 0.75f); }
static void binding_nan_base(saved s) { put_u32(section(s, "BREC", NULL) + 4 * 1, 0x7fc00000u); }
static void binding_space_2(saved s) { put_u64(section(s, "BSTR", NULL) + 8 * 8, 2); }
static void binding_no_points(saved s) { put_u64(section(s, "BSTR", NULL), 0); }
static void binding_order_1(saved s) { put_u64(section(s, "BSTR", NULL) + 8 * 5, 1); }

static void binding_refusals(void **state)
{
    (void)state;
    const uint32_t order[3] = {4, 4, 4}, count[3] = {6, 5, 4};
    sinew_lattice *l = make_lattice(order, count, SINEW_LATTICE_OUTSIDE_CLAMP, 5);
    float pts[6] = {0.1f, 0.9f, 2.5f, 0.2f, 1.1f, 3.0f};
    sinew_lattice_binding_desc bd;
    SINEW_INIT(&bd);
    bd.points = (sinew_points){pts, 2, 0};
    sinew_lattice_binding *b = NULL;
    assert_int_equal(sinew_lattice_binding_create(NULL, l, &bd, &b), SINEW_OK);
    saved s = save_binding(b);
    size_t words = 0;
    section(s, "BREC", &words);
    assert_int_equal(words, 2 * 16);
    expect_refused(s, load_binding_data, binding_first_past_cells, SINEW_ERROR_INDEX_OUT_OF_RANGE,
                   "lattice binding data: bound point 1 starts at control point 3");
    expect_refused(s, load_binding_data, binding_basis_sum, SINEW_ERROR_INVALID_WEIGHTS,
                   "bound point 1 has basis values along v summing to");
    expect_refused(s, load_binding_data, binding_nan_base, SINEW_ERROR_NON_FINITE,
                   "bound point 0 has a non-finite base coordinate y");
    expect_refused(s, load_binding_data, binding_space_2, SINEW_ERROR_INVALID_ARGUMENT, "unknown bind space 2");
    expect_refused(s, load_binding_data, binding_no_points, SINEW_ERROR_INVALID_ARGUMENT, "no points to bind");
    expect_refused(s, load_binding_data, binding_order_1, SINEW_ERROR_INVALID_ARGUMENT,
                   "lattice order 1 on axis v is outside 2..8");
    free(s.data);
    sinew_lattice_binding_destroy(b);
    sinew_lattice_destroy(l);
}

/* A non-cubic binding has padding words: they must be zero. */
static void binding_nonzero_padding(saved s) { put_u32(section(s, "BREC", NULL) + 4 * 11, 1); }

static void binding_padding_refused(void **state)
{
    (void)state;
    const uint32_t order[3] = {2, 2, 3}, count[3] = {3, 3, 3};
    sinew_lattice *l = make_lattice(order, count, SINEW_LATTICE_OUTSIDE_CLAMP, 5);
    float pts[3] = {0.1f, 0.9f, 2.5f};
    sinew_lattice_binding_desc bd;
    SINEW_INIT(&bd);
    bd.points = (sinew_points){pts, 1, 0};
    sinew_lattice_binding *b = NULL;
    assert_int_equal(sinew_lattice_binding_create(NULL, l, &bd, &b), SINEW_OK);
    saved s = save_binding(b);
    size_t words = 0;
    section(s, "BREC", &words);
    assert_int_equal(words, 12); /* 4 + 2 + 2 + 3 = 11 words, padded to 12 */
    expect_refused(s, load_binding_data, binding_nonzero_padding, SINEW_ERROR_INVALID_DATA, "nonzero padding word 11");
    free(s.data);
    sinew_lattice_binding_destroy(b);
    sinew_lattice_destroy(l);
}

static void refinement_late_parent(saved s)
{
    size_t n = 0;
    unsigned char *p = section(s, "RPAR", &n);
    assert_true(n >= 2);
    put_u32(p, 25); /* the first added vertex is 25: its parent may not be */
}
static void refinement_parameter(saved s) { put_f32(section(s, "RPRM", NULL), 1.5f); }
static void refinement_triangle(saved s) { put_u32(section(s, "RTRI", NULL) + 4 * 4, 100000); }
static void refinement_inputs(saved s) { put_u64(section(s, "RSIZ", NULL) + 8, 0); }
static void refinement_sizes(saved s) { put_u64(section(s, "RSIZ", NULL), 1); }

static void refinement_refusals(void **state)
{
    (void)state;
    sinew_lattice *l = make_lattice(order_mixes[0], count_mixes[0], SINEW_LATTICE_OUTSIDE_LEAVE, 41);
    sinew_lattice_refinement *r = make_refinement(l);
    saved s = save_refinement(r);
    expect_refused(s, load_refinement_data, refinement_late_parent, SINEW_ERROR_INDEX_OUT_OF_RANGE,
                   "lattice refinement data: refined vertex 25 has parent 25");
    expect_refused(s, load_refinement_data, refinement_parameter, SINEW_ERROR_INVALID_DATA,
                   "refined vertex 25 has parameter 1.5");
    expect_refused(s, load_refinement_data, refinement_triangle, SINEW_ERROR_INDEX_OUT_OF_RANGE,
                   "triangle 1 corner 1 refers to vertex 100000");
    expect_refused(s, load_refinement_data, refinement_inputs, SINEW_ERROR_INVALID_ARGUMENT, "mesh has no vertices");
    expect_refused(s, load_refinement_data, refinement_sizes, SINEW_ERROR_INVALID_DATA, "more than the 1 vertices");
    free(s.data);
    sinew_lattice_refinement_destroy(r);
    sinew_lattice_destroy(l);
}

/* ---- Corruption and allocation sweeps -------------------------------------------- */

static sinew_result sweep_lattice(const void *data, size_t size, void *user)
{
    (void)user;
    return load_lattice_data((saved){(unsigned char *)data, size});
}
static sinew_result sweep_binding(const void *data, size_t size, void *user)
{
    (void)user;
    return load_binding_data((saved){(unsigned char *)data, size});
}
static sinew_result sweep_refinement(const void *data, size_t size, void *user)
{
    (void)user;
    return load_refinement_data((saved){(unsigned char *)data, size});
}

static void corruption_sweeps(void **state)
{
    (void)state;
    const uint32_t order[3] = {2, 2, 2}, count[3] = {2, 2, 3};
    sinew_lattice *l = make_lattice(order, count, SINEW_LATTICE_OUTSIDE_EXTEND, 5);
    float pts[6] = {0.1f, 0.9f, 2.5f, -4.0f, 1.0f, 9.0f}, nrm[6] = {0, 0, 1, 1, 0, 0};
    sinew_lattice_binding_desc bd;
    SINEW_INIT(&bd);
    bd.points = (sinew_points){pts, 2, 0};
    bd.normals = (sinew_points){nrm, 2, 0};
    sinew_lattice_binding *b = NULL;
    assert_int_equal(sinew_lattice_binding_create(NULL, l, &bd, &b), SINEW_OK);
    float tri_pos[9] = {-1.0f, 0.8f, 2.5f, 1.0f, 0.8f, 2.5f, -1.0f, 2.2f, 4.5f};
    uint32_t tri[3] = {0, 1, 2};
    sinew_trimesh mesh = {{tri_pos, 3, 0}, tri, 1, SINEW_INDEX_U32, 0};
    sinew_lattice_refinement_desc rd;
    SINEW_INIT(&rd);
    rd.tolerance = 0.2;
    sinew_lattice_refinement *r = NULL;
    assert_int_equal(sinew_lattice_refinement_create(NULL, l, &mesh, &rd, &r), SINEW_OK);
    saved s[3] = {save_lattice(l), save_binding(b), save_refinement(r)};
    support_load_fn loads[3] = {sweep_lattice, sweep_binding, sweep_refinement};
    for (int k = 0; k < 3; ++k) {
        char report[256];
        size_t accepted = 0;
        assert_true(s[k].size <= 2048);
        if (!support_sweep_saved_corruption(s[k].data, s[k].size, loads[k], NULL, &accepted, report, sizeof report))
            fail_msg("sweep %d: %s", k, report);
        free(s[k].data);
    }
    sinew_lattice_refinement_destroy(r);
    sinew_lattice_binding_destroy(b);
    sinew_lattice_destroy(l);
}

typedef struct sweep_input {
    saved s;
    int kind;
} sweep_input;

static sinew_result attempt_load(sinew_context *ctx, void *user)
{
    sweep_input *in = user;
    sinew_result r;
    if (in->kind == 0) {
        sinew_lattice *x = NULL;
        if ((r = sinew_lattice_load(ctx, in->s.data, in->s.size, &x)) == SINEW_OK) sinew_lattice_destroy(x);
    } else if (in->kind == 1) {
        sinew_lattice_binding *x = NULL;
        if ((r = sinew_lattice_binding_load(ctx, in->s.data, in->s.size, &x)) == SINEW_OK)
            sinew_lattice_binding_destroy(x);
    } else {
        sinew_lattice_refinement *x = NULL;
        if ((r = sinew_lattice_refinement_load(ctx, in->s.data, in->s.size, &x)) == SINEW_OK)
            sinew_lattice_refinement_destroy(x);
    }
    return r;
}

static void allocation_failures(void **state)
{
    (void)state;
    /* Cubic: the lattice has a packed copy (with AVX2) and the binding cells. */
    sinew_lattice *l = make_lattice(order_mixes[0], count_mixes[0], SINEW_LATTICE_OUTSIDE_CLAMP, 5);
    float pts[6] = {0.1f, 0.9f, 2.5f, 0.2f, 1.1f, 3.0f};
    sinew_lattice_binding_desc bd;
    SINEW_INIT(&bd);
    bd.points = (sinew_points){pts, 2, 0};
    bd.normals = (sinew_points){pts, 2, 0};
    sinew_lattice_binding *b = NULL;
    assert_int_equal(sinew_lattice_binding_create(NULL, l, &bd, &b), SINEW_OK);
    sinew_lattice_refinement *r = make_refinement(l);
    sweep_input in[3] = {{save_lattice(l), 0}, {save_binding(b), 1}, {save_refinement(r), 2}};
    for (int k = 0; k < 3; ++k) {
        char report[256];
        size_t runs = 0;
        if (!support_sweep_allocation_failures(attempt_load, &in[k], &runs, report, sizeof report))
            fail_msg("kind %d: %s", k, report);
        assert_true(runs >= 2);
        free(in[k].s.data);
    }
    sinew_lattice_refinement_destroy(r);
    sinew_lattice_binding_destroy(b);
    sinew_lattice_destroy(l);
}

/* ---- Golden files ------------------------------------------------------------------ */

/* The handles the golden files hold, rebuilt the same way by every version. */
typedef struct golden_set {
    sinew_lattice *lattice;
    sinew_lattice_binding *binding;
    sinew_lattice_refinement *refinement;
} golden_set;

static golden_set golden_build(void)
{
    golden_set g;
    const uint32_t order[3] = {3, 2, 4}, count[3] = {4, 3, 4};
    g.lattice = make_lattice(order, count, SINEW_LATTICE_OUTSIDE_EXTEND, 2024);
    float pts[12] = {0.1f, 0.9f, 2.5f, 0.2f, 1.1f, 3.0f, -3.0f, 4.0f, 7.5f, 0.5f, 0.5f, 0.5f};
    float nrm[12] = {0, 0, 1, 0, 1, 0, 1, 0, 0, 0.6f, 0.8f, 0};
    sinew_lattice_binding_desc bd;
    SINEW_INIT(&bd);
    bd.points = (sinew_points){pts, 4, 0};
    bd.normals = (sinew_points){nrm, 4, 0};
    g.binding = NULL;
    assert_int_equal(sinew_lattice_binding_create(NULL, g.lattice, &bd, &g.binding), SINEW_OK);
    float tri_pos[9] = {-1.0f, 0.8f, 2.5f, 1.0f, 0.8f, 2.5f, -1.0f, 2.2f, 4.5f};
    uint32_t tri[3] = {0, 1, 2};
    sinew_trimesh mesh = {{tri_pos, 3, 0}, tri, 1, SINEW_INDEX_U32, 0};
    sinew_lattice_refinement_desc rd;
    SINEW_INIT(&rd);
    rd.tolerance = 0.05;
    g.refinement = NULL;
    assert_int_equal(sinew_lattice_refinement_create(NULL, g.lattice, &mesh, &rd, &g.refinement), SINEW_OK);
    return g;
}

static void golden_free(golden_set *g)
{
    sinew_lattice_destroy(g->lattice);
    sinew_lattice_binding_destroy(g->binding);
    sinew_lattice_refinement_destroy(g->refinement);
}

static saved read_file(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SINEW_GOLDEN_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    saved s = {malloc(1 << 16), 0};
    s.size = fread(s.data, 1, 1 << 16, f);
    fclose(f);
    return s;
}

static void write_file(const char *name, saved s)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SINEW_GOLDEN_DIR, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(s.data, 1, s.size, f) != s.size) fail_msg("cannot write %s", path);
    fclose(f);
    printf("wrote %s (%zu bytes)\n", path, s.size);
}

static void golden_files(void **state)
{
    (void)state;
    golden_set g = golden_build();
    saved now[3] = {save_lattice(g.lattice), save_binding(g.binding), save_refinement(g.refinement)};
    static const char *const names[3] = {"lattice-v1.bin", "lattice-binding-v1.bin", "lattice-refinement-v1.bin"};
    const char *write = getenv("SINEW_WRITE_GOLDEN");
    if (write && write[0] == '1')
        for (int k = 0; k < 3; ++k) write_file(names[k], now[k]);
    saved gold[3];
    for (int k = 0; k < 3; ++k) {
        gold[k] = read_file(names[k]);
        sinew_saved_info info;
        SINEW_INIT(&info);
        assert_int_equal(sinew_saved_get_info(gold[k].data, gold[k].size, &info), SINEW_OK);
        assert_int_equal(info.format_version, 1);
    }
    sinew_lattice *l = NULL;
    sinew_lattice_binding *b = NULL;
    sinew_lattice_refinement *r = NULL;
    assert_int_equal(sinew_lattice_load(NULL, gold[0].data, gold[0].size, &l), SINEW_OK);
    assert_int_equal(sinew_lattice_binding_load(NULL, gold[1].data, gold[1].size, &b), SINEW_OK);
    assert_int_equal(sinew_lattice_refinement_load(NULL, gold[2].data, gold[2].size, &r), SINEW_OK);
    /* What the files hold is what this version computes. */
    assert_same_lattice(g.lattice, l);
    assert_same_refinement(g.refinement, r);
    float a[2][12], c[2][12];
    assert_int_equal(sinew_lattice_binding_deform(g.binding, g.lattice, a[0], 0, a[1], 0, 0, 4), SINEW_OK);
    assert_int_equal(sinew_lattice_binding_deform(b, l, c[0], 0, c[1], 0, 0, 4), SINEW_OK);
    assert_memory_equal(a, c, sizeof a);
    /* Re-saved by this version, they are this version's bytes. */
    saved again[3] = {save_lattice(l), save_binding(b), save_refinement(r)};
    for (int k = 0; k < 3; ++k) {
        assert_same_bytes(now[k], again[k]);
        free(again[k].data);
        free(gold[k].data);
        free(now[k].data);
    }
    sinew_lattice_destroy(l);
    sinew_lattice_binding_destroy(b);
    sinew_lattice_refinement_destroy(r);
    golden_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lattice_round_trip),
        cmocka_unit_test(binding_round_trip),
        cmocka_unit_test(loaded_binding_checks_structure),
        cmocka_unit_test(refinement_round_trip),
        cmocka_unit_test(save_contract),
        cmocka_unit_test(wrong_kind_and_newer_format),
        cmocka_unit_test(lattice_refusals),
        cmocka_unit_test(binding_refusals),
        cmocka_unit_test(binding_padding_refused),
        cmocka_unit_test(refinement_refusals),
        cmocka_unit_test(corruption_sweeps),
        cmocka_unit_test(allocation_failures),
        cmocka_unit_test(golden_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
