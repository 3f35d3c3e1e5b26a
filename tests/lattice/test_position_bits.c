/* A deformed position is the same bits whichever call computes it and
 * whatever else the call is asked for: sinew_lattice_evaluate with and
 * without Jacobians, sinew_lattice_deform with and without normals, bindings
 * (world and parameter space, with and without normals), the refinement's
 * deformed vertices and placement's deform, under every split of a range.
 * Checked for each kernel set this machine can run (the best, the x86-64
 * baseline, plain C), and the kernel sets against one another within the
 * documented tolerance. White-box: it picks the kernels of a lattice. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lattice/lattice_internal.h"
#include "sinew.h"
#include "support.h"
#include "wavy_floor.h"

enum { N = 517 };

static const sn_lat_kernels kernel_sets[] = {SN_LAT_KERNELS_BEST, SN_LAT_KERNELS_BASELINE, SN_LAT_KERNELS_PLAIN};
static const char *const kernel_names[] = {"best", "baseline", "plain"};

typedef struct shape {
    uint32_t order[3], count[3];
} shape;

/* Cubic (the packed AVX2 kernel), order 4 along u only (the SSE2 kernel when
 * there is no AVX2), other orders (the AVX2 row kernel, plain C). */
static const shape shapes[] = {
    {{4, 4, 4}, {6, 5, 7}},
    {{4, 2, 3}, {6, 3, 5}},
    {{3, 5, 2}, {5, 7, 4}},
    {{2, 2, 2}, {3, 4, 2}},
};

static sinew_lattice *make_lattice(const shape *s, sinew_lattice_outside outside, support_rng *rng)
{
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    memcpy(d.order, s->order, sizeof d.order);
    memcpy(d.count, s->count, sizeof d.count);
    d.origin[0] = -1.25f, d.origin[1] = 0.5f, d.origin[2] = 3.0f;
    const float c = 0.8f, sn = 0.6f;
    const float axes[3][3] = {{c, 0, sn}, {0, 1, 0}, {-sn, 0, c}};
    memcpy(d.axes, axes, sizeof axes);
    d.extents[0] = 2.0f, d.extents[1] = 1.5f, d.extents[2] = 1.0f;
    d.outside = outside;
    sinew_lattice *lat = NULL;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_OK);
    sinew_lattice_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_lattice_get_info(lat, &info), SINEW_OK);
    float *disp = malloc(3 * info.point_count * sizeof(float));
    for (size_t i = 0; i < 3 * info.point_count; ++i) disp[i] = (float)support_rng_uniform(rng, -0.2, 0.2);
    sinew_points v = {disp, info.point_count, 0};
    assert_int_equal(sinew_lattice_set_displacements(lat, &v, 0, info.point_count), SINEW_OK);
    free(disp);
    return lat;
}

/* Parameters in [-0.3, 1.3]^3, every fifth point on a knot plane along one
 * axis, and their world points through the box map. */
static void make_points(const sinew_lattice *lat, support_rng *rng, float *params, float *world)
{
    for (int i = 0; i < N; ++i) {
        double u[3], p[3];
        for (int a = 0; a < 3; ++a) u[a] = (float)support_rng_uniform(rng, -0.3, 1.3);
        if (i % 5 == 0) {
            const uint32_t cells = lat->axis[i % 3].cells;
            u[i % 3] = (float)((double)(support_rng_next(rng) % (cells + 1)) / cells);
        }
        sn_lat_box(lat, u, p);
        for (int a = 0; a < 3; ++a) params[3 * i + a] = (float)u[a], world[3 * i + a] = (float)p[a];
    }
}

/* Unit normals, one per point. */
static void make_normals(support_rng *rng, float *normals)
{
    for (int i = 0; i < N; ++i) {
        float *n = normals + 3 * i;
        for (int c = 0; c < 3; ++c) n[c] = (float)support_rng_uniform(rng, -1.0, 1.0);
        float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int c = 0; c < 3; ++c) n[c] = len > 0.0f ? n[c] / len : 1.0f;
    }
}

/* Random consecutive ranges covering [0, N): their lengths. */
static size_t make_split(support_rng *rng, size_t *lengths)
{
    size_t parts = 0;
    for (size_t at = 0; at < N; ++parts) {
        size_t len = 1 + support_rng_next(rng) % 40;
        if (len > N - at) len = N - at;
        lengths[parts] = len;
        at += len;
    }
    return parts;
}

static void assert_same_bits(const float *a, const float *b, const char *what, const char *kernels)
{
    for (int i = 0; i < 3 * N; ++i)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0)
            fail_msg("%s (%s kernels): point %d coordinate %d is %.9g, not %.9g", what, kernels, i / 3, i % 3,
                     (double)b[i], (double)a[i]);
}

/* Every call's positions against want (the positions-only one-shot answer)
 * for one lattice, its current kernels. */
static void check_calls(sinew_lattice *lat, const float *params, const float *world, const float *normals,
                        const float *want_param, const float *want_world, support_rng *rng, const char *kernels)
{
    float out[3 * N], jac[9 * N], nout[3 * N];
    size_t lengths[N];
    const size_t parts = make_split(rng, lengths);
    sinew_points pv = {params, N, 0}, wv = {world, N, 0}, nv = {normals, N, 0};

    /* evaluate with Jacobians, whole and split */
    assert_int_equal(sinew_lattice_evaluate(lat, &pv, out, 0, jac, 0, 0, N), SINEW_OK);
    assert_same_bits(want_param, out, "evaluate with jacobians", kernels);
    memset(out, 0, sizeof out);
    for (size_t k = 0, at = 0; k < parts; at += lengths[k++])
        assert_int_equal(sinew_lattice_evaluate(lat, &pv, out, 0, jac, 0, at, lengths[k]), SINEW_OK);
    assert_same_bits(want_param, out, "split evaluate with jacobians", kernels);

    /* deform with normals, whole and split */
    assert_int_equal(sinew_lattice_deform(lat, &wv, &nv, out, 0, nout, 0, 0, N), SINEW_OK);
    assert_same_bits(want_world, out, "deform with normals", kernels);
    memset(out, 0, sizeof out);
    for (size_t k = 0, at = 0; k < parts; at += lengths[k++])
        assert_int_equal(sinew_lattice_deform(lat, &wv, &nv, out, 0, nout, 0, at, lengths[k]), SINEW_OK);
    assert_same_bits(want_world, out, "split deform with normals", kernels);

    /* bindings: world and parameter space, with and without normals */
    for (int space = 0; space < 2; ++space) {
        const float *want = space ? want_param : want_world;
        for (int with_normals = 0; with_normals < 2; ++with_normals) {
            sinew_lattice_binding_desc bd;
            SINEW_INIT(&bd);
            bd.points = space ? pv : wv;
            if (with_normals) bd.normals = nv;
            bd.space = space ? SINEW_LATTICE_SPACE_PARAMETER : SINEW_LATTICE_SPACE_WORLD;
            sinew_lattice_binding *b = NULL;
            assert_int_equal(sinew_lattice_binding_create(NULL, lat, &bd, &b), SINEW_OK);
            assert_int_equal(sinew_lattice_binding_deform(b, lat, out, 0, NULL, 0, 0, N), SINEW_OK);
            assert_same_bits(want, out, "binding", kernels);
            if (with_normals) {
                memset(out, 0, sizeof out);
                for (size_t k = 0, at = 0; k < parts; at += lengths[k++])
                    assert_int_equal(sinew_lattice_binding_deform(b, lat, out, 0, nout, 0, at, lengths[k]), SINEW_OK);
                assert_same_bits(want, out, "split binding with normals", kernels);
            }
            sinew_lattice_binding_destroy(b);
        }
    }
}

/* Positions of every call agree to the bit, per kernel set. */
static void positions_do_not_depend_on_the_outputs_asked_for(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 2801);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int outside = 0; outside <= SINEW_LATTICE_OUTSIDE_EXTEND; ++outside) {
            sinew_lattice *lat = make_lattice(&shapes[s], (sinew_lattice_outside)outside, &rng);
            float params[3 * N], world[3 * N], normals[3 * N], want_param[3 * N], want_world[3 * N];
            make_points(lat, &rng, params, world);
            make_normals(&rng, normals);
            sinew_points pv = {params, N, 0}, wv = {world, N, 0};
            for (size_t k = 0; k < sizeof kernel_sets / sizeof kernel_sets[0]; ++k) {
                sn_lat_use_kernels(lat, kernel_sets[k]);
                assert_int_equal(sinew_lattice_evaluate(lat, &pv, want_param, 0, NULL, 0, 0, N), SINEW_OK);
                assert_int_equal(sinew_lattice_deform(lat, &wv, NULL, want_world, 0, NULL, 0, 0, N), SINEW_OK);
                check_calls(lat, params, world, normals, want_param, want_world, &rng, kernel_names[k]);
            }
            sinew_lattice_destroy(lat);
        }
}

/* The kernel sets against one another: the float basis and the order of the
 * float sums differ, so the bits may, within the documented tolerance
 * (docs/lattice.md, "Same bits": 1e-6 of (2 + |x|) per coordinate x, the box
 * being about 2 across). */
static void kernel_sets_agree_within_the_tolerance(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 2802);
    double worst = 0.0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int outside = 0; outside <= SINEW_LATTICE_OUTSIDE_EXTEND; ++outside) {
            sinew_lattice *lat = make_lattice(&shapes[s], (sinew_lattice_outside)outside, &rng);
            float params[3 * N], world[3 * N], out[3][2][3 * N];
            make_points(lat, &rng, params, world);
            sinew_points pv = {params, N, 0}, wv = {world, N, 0};
            for (size_t k = 0; k < 3; ++k) {
                sn_lat_use_kernels(lat, kernel_sets[k]);
                assert_int_equal(sinew_lattice_evaluate(lat, &pv, out[k][0], 0, NULL, 0, 0, N), SINEW_OK);
                assert_int_equal(sinew_lattice_deform(lat, &wv, NULL, out[k][1], 0, NULL, 0, 0, N), SINEW_OK);
            }
            for (size_t k = 1; k < 3; ++k)
                for (int w = 0; w < 2; ++w)
                    for (int i = 0; i < 3 * N; ++i) {
                        double a = out[0][w][i], b = out[k][w][i];
                        double err = fabs(a - b) / (2.0 + fabs(a));
                        worst = fmax(worst, err);
                        if (!(err <= 1e-6))
                            fail_msg("%s kernels, shape %zu, outside %d: coordinate %d is %.9g, best gives %.9g",
                                     kernel_names[k], s, outside, i, b, a);
                    }
            sinew_lattice_destroy(lat);
        }
    print_message("worst difference between kernel sets: %.3g of (box size + |position|)\n", worst);
}

/* Triangles of a G x G grid of quads, G = 6. */
static void make_grid_triangles(uint32_t *tp)
{
    enum { G = 6 };
    for (int j = 0; j < G; ++j)
        for (int i = 0; i < G; ++i) {
            uint32_t a = (uint32_t)(i + (G + 1) * j);
            *tp++ = a, *tp++ = a + 1, *tp++ = a + G + 2, *tp++ = a, *tp++ = a + G + 2, *tp++ = a + G + 1;
        }
}

/* Refines the grid over v in lat with each kernel set; returns the vertices
 * added. */
static size_t check_refinement(sinew_lattice *lat, const float *v, size_t nv)
{
    size_t added = 0;
    enum { G = 6 };
    uint32_t t[6 * G * G];
    make_grid_triangles(t);
    sinew_trimesh tm = {{v, nv, 0}, t, 2 * G * G, SINEW_INDEX_U32, 0};
    for (size_t k = 0; k < 3; ++k) {
        sn_lat_use_kernels(lat, kernel_sets[k]);
        sinew_lattice_refinement_desc rd;
        SINEW_INIT(&rd);
        rd.tolerance = 0.005;
        rd.test = (sinew_lattice_error_test)(k & 1);
        sinew_lattice_refinement *ref = NULL;
        assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &tm, &rd, &ref), SINEW_OK);
        sinew_lattice_refined_mesh m;
        SINEW_INIT(&m);
        assert_int_equal(sinew_lattice_refinement_mesh(ref, &m), SINEW_OK);
        added += m.vertex_count - m.input_vertex_count;
        float *out = malloc(3 * m.vertex_count * sizeof(float));
        sinew_points rv = {m.rest_positions, m.vertex_count, 0};
        assert_int_equal(sinew_lattice_deform(lat, &rv, NULL, out, 0, NULL, 0, 0, m.vertex_count), SINEW_OK);
        for (size_t i = 0; i < 3 * m.vertex_count; ++i)
            if (memcmp(&out[i], &m.positions[i], sizeof(float)) != 0)
                fail_msg("refined vertex %zu coordinate %zu (%s kernels) is %.9g, deform gives %.9g", i / 3,
                         i % 3, kernel_names[k], (double)m.positions[i], (double)out[i]);
        free(out);
        sinew_lattice_refinement_destroy(ref);
    }
    return added;
}

/* The refinement's deformed vertices are sinew_lattice_deform of its rest
 * vertices. */
static void refinement_positions_are_deform_of_its_rest_positions(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 2803);
    /* A 6 x 6 grid of quads on a slanted plane inside the box. */
    enum { G = 6 };
    float v[3 * (G + 1) * (G + 1)];
    size_t added = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int outside = 0; outside <= SINEW_LATTICE_OUTSIDE_EXTEND; ++outside) {
            sinew_lattice *lat = make_lattice(&shapes[s], (sinew_lattice_outside)outside, &rng);
            for (int j = 0; j <= G; ++j)
                for (int i = 0; i <= G; ++i) {
                    double u[3] = {0.02 + 0.96 * i / G, 0.02 + 0.96 * j / G, 0.2 + 0.3 * i / G + 0.2 * j / G}, p[3];
                    sn_lat_box(lat, u, p);
                    for (int c = 0; c < 3; ++c) v[3 * (i + (G + 1) * j) + c] = (float)p[c];
                }
            added += check_refinement(lat, v, (G + 1) * (G + 1));
            sinew_lattice_destroy(lat);
        }
    print_message("%zu vertices added\n", added);
    assert_true(added > 1000); /* the new vertices are checked, not just the input's */
}

/* Placement's deform is evaluate at the mapped parameters, with or without
 * Jacobians, under any split, for every kernel set. */
static void placement_deform_is_evaluate_with_or_without_jacobians(void **state)
{
    (void)state;
    enum { G = 16 };
    float floor_v[3 * (G + 1) * (G + 1)];
    uint32_t floor_t[6 * G * G];
    wavy_floor(G, floor_v, floor_t);
    sinew_placement *p = wavy_placement(G, floor_v, floor_t, 6.0f, 12, 5);
    assert_non_null(p);
    sinew_placement_map_desc md;
    SINEW_INIT(&md);
    md.box_min[0] = 0, md.box_min[1] = -0.5f, md.box_min[2] = 0;
    md.box_max[0] = 4, md.box_max[1] = 0.5f, md.box_max[2] = 0.5f;
    sinew_placement_map map;
    assert_int_equal(sinew_placement_map_model(p, &md, &map), SINEW_OK);
    float model[3 * N], params[3 * N], out[3 * N], split[3 * N], ref[3 * N], jac[9 * N];
    support_rng rng;
    support_rng_seed(&rng, 2804);
    for (int i = 0; i < N; ++i)
        for (int a = 0; a < 3; ++a) {
            model[3 * i + a] = (float)support_rng_uniform(&rng, md.box_min[a] - 0.2, md.box_max[a] + 0.2);
            params[3 * i + a] = map.offset[a] + map.scale[a] * model[3 * i + a];
        }
    sinew_points mv = {model, N, 0}, pv = {params, N, 0};
    sinew_lattice *lat = (sinew_lattice *)sinew_placement_lattice(p);
    for (size_t k = 0; k < 3; ++k) {
        sn_lat_use_kernels(lat, kernel_sets[k]);
        assert_int_equal(sinew_placement_deform(p, &map, &mv, out, 0, 0, N), SINEW_OK);
        size_t lengths[N];
        const size_t parts = make_split(&rng, lengths);
        for (size_t q = 0, at = 0; q < parts; at += lengths[q++])
            assert_int_equal(sinew_placement_deform(p, &map, &mv, split, 0, at, lengths[q]), SINEW_OK);
        assert_same_bits(out, split, "split placement deform", kernel_names[k]);
        assert_int_equal(sinew_lattice_evaluate(lat, &pv, ref, 0, NULL, 0, 0, N), SINEW_OK);
        assert_same_bits(out, ref, "evaluate at the mapped parameters", kernel_names[k]);
        assert_int_equal(sinew_lattice_evaluate(lat, &pv, ref, 0, jac, 0, 0, N), SINEW_OK);
        assert_same_bits(out, ref, "evaluate with jacobians at the mapped parameters", kernel_names[k]);
    }
    sn_lat_use_kernels(lat, SN_LAT_KERNELS_BEST);
    sinew_placement_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(positions_do_not_depend_on_the_outputs_asked_for),
        cmocka_unit_test(kernel_sets_agree_within_the_tolerance),
        cmocka_unit_test(refinement_positions_are_deform_of_its_rest_positions),
        cmocka_unit_test(placement_deform_is_evaluate_with_or_without_jacobians),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
