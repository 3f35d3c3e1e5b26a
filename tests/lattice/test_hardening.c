/* Hardening of the lattice and placement APIs (issue 10): arrays whose byte
 * size overflows fail before anything is read, misaligned float pointers are
 * refused naming the argument with the outputs untouched, the fold-over check
 * of high orders is exact, reports every cell and can be cancelled, and
 * finite inputs never give non-finite outputs with OK. */
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

static void expect(sinew_result got, sinew_result want, const char *fragment)
{
    if (got != want)
        fail_msg("expected %s, got %s (%s)", sinew_result_string(want), sinew_result_string(got), sinew_last_error());
    if (fragment && !strstr(sinew_last_error(), fragment))
        fail_msg("message '%s' lacks '%s'", sinew_last_error(), fragment);
}

static sinew_lattice *unit_lattice(uint32_t order, uint32_t count)
{
    sinew_lattice_desc d;
    memset(&d, 0, sizeof d);
    for (int a = 0; a < 3; ++a) d.order[a] = order, d.count[a] = count;
    sinew_lattice *lat = NULL;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_OK);
    return lat;
}

/* A floor z = 0 over [-10, 10]^2 and a path above it along x. */
static sinew_placement *flat_placement(void)
{
    static const float floor_v[12] = {-10, -10, 0, 10, -10, 0, 10, 10, 0, -10, 10, 0};
    static const uint32_t floor_t[6] = {0, 1, 2, 0, 2, 3};
    static const float path[6] = {-4, 0, 5, 4, 0, 5};
    sinew_placement_desc d;
    memset(&d, 0, sizeof d);
    d.path = (sinew_points){path, 2, 0};
    d.width = 1.0f;
    d.height = 1.0f;
    d.scene = (sinew_trimesh){{floor_v, 4, 0}, floor_t, 2};
    sinew_placement *p = NULL;
    assert_int_equal(sinew_placement_create(NULL, &d, &p), SINEW_OK);
    return p;
}

static const size_t top_bit = (size_t)1 << (sizeof(size_t) * 8 - 1);

/* ---- Item 4: counts whose byte size overflows ---------------------------------- */

static void overflowing_counts(void **state)
{
    (void)state;
    sinew_lattice *lat = unit_lattice(4, 5);
    float v[9] = {0.1f, 0.1f, 0.1f, 0.9f, 0.1f, 0.1f, 0.1f, 0.9f, 0.1f};
    uint32_t idx[3] = {0, 1, 2};
    sinew_lattice_refine_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.tolerance = 1e-3;
    sinew_lattice_refinement *ref = (sinew_lattice_refinement *)(uintptr_t)1;
    /* SIZE_MAX / 3 triangles: SIZE_MAX indices fit size_t, their bytes do not. */
    sinew_trimesh m = {{v, 3, 0}, idx, SIZE_MAX / 3};
    expect(sinew_lattice_refine(NULL, lat, &m, &rd, &ref), SINEW_ERROR_SIZE_OVERFLOW, "3 indices overflow");
    m.triangle_count = SIZE_MAX / 12 + 1;
    expect(sinew_lattice_refine(NULL, lat, &m, &rd, &ref), SINEW_ERROR_SIZE_OVERFLOW, "overflow");
    m = (sinew_trimesh){{v, 3, top_bit}, idx, 1};
    expect(sinew_lattice_refine(NULL, lat, &m, &rd, &ref), SINEW_ERROR_SIZE_OVERFLOW, "mesh vertex");
    assert_true(ref == (sinew_lattice_refinement *)(uintptr_t)1);

    /* Points views spanning more than the address space. */
    sinew_points huge = {v, 3, top_bit};
    sinew_lattice_bind_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.points = huge;
    sinew_lattice_binding *b = NULL;
    expect(sinew_lattice_bind(NULL, lat, &bd, &b), SINEW_ERROR_SIZE_OVERFLOW, "bound point");
    float out[9] = {7, 7, 7, 7, 7, 7, 7, 7, 7};
    expect(sinew_lattice_deform(lat, &huge, NULL, out, 0, NULL, 0, 0, 1), SINEW_ERROR_SIZE_OVERFLOW, "point");
    expect(sinew_lattice_parameters(lat, &huge, out, 0, 0, 1), SINEW_ERROR_SIZE_OVERFLOW, "world point");
    expect(sinew_lattice_evaluate(lat, &huge, out, 0, NULL, 0, 0, 1), SINEW_ERROR_SIZE_OVERFLOW, "parameter point");
    expect(sinew_lattice_set_points(lat, &huge, 0), SINEW_ERROR_SIZE_OVERFLOW, "control point");
    /* An output whose last element lies past the address space. */
    sinew_points three = {v, 3, 0};
    expect(sinew_lattice_deform(lat, &three, NULL, out, top_bit, NULL, 0, 0, 3), SINEW_ERROR_SIZE_OVERFLOW,
           "point output");
    expect(sinew_lattice_get_points(lat, out, top_bit, 0, 3), SINEW_ERROR_SIZE_OVERFLOW, "control point output");
    for (int i = 0; i < 9; ++i) assert_true(out[i] == 7.0f);
    sinew_lattice_destroy(lat);

    /* Placement: scene and path. */
    static const float floor_v[12] = {-10, -10, 0, 10, -10, 0, 10, 10, 0, -10, 10, 0};
    static const uint32_t floor_t[6] = {0, 1, 2, 0, 2, 3};
    static const float path[6] = {-4, 0, 5, 4, 0, 5};
    sinew_placement_desc pd;
    memset(&pd, 0, sizeof pd);
    pd.path = (sinew_points){path, 2, 0};
    pd.width = 1.0f;
    pd.height = 1.0f;
    pd.scene = (sinew_trimesh){{floor_v, 4, 0}, floor_t, SIZE_MAX / 3};
    sinew_placement *p = (sinew_placement *)(uintptr_t)1;
    expect(sinew_placement_create(NULL, &pd, &p), SINEW_ERROR_SIZE_OVERFLOW, "triangles");
    pd.scene.triangle_count = 2;
    pd.path.stride = top_bit;
    expect(sinew_placement_create(NULL, &pd, &p), SINEW_ERROR_SIZE_OVERFLOW, "path point");
    assert_true(p == (sinew_placement *)(uintptr_t)1);
}

/* ---- Item 6: misaligned float pointers ------------------------------------------ */

static void *misaligned(void *p)
{
    return (char *)p + 2;
}

static void assert_untouched(const float *buf, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        uint32_t x;
        memcpy(&x, &buf[i], sizeof x);
        if (x != 0x5a5a5a5au) fail_msg("output float %zu was written", i);
    }
}

static void misaligned_lattice_pointers(void **state)
{
    (void)state;
    sinew_lattice *lat = unit_lattice(4, 5);
    enum { N = 64 };
    float buf[N + 1];
    memset(buf, 0x5a, sizeof buf);
    float *bad = misaligned(buf);
    float pts[6] = {0.2f, 0.3f, 0.4f, 0.6f, 0.5f, 0.4f}, nrm[6] = {0, 0, 1, 0, 1, 0};
    sinew_points pv = {pts, 2, 0}, nv = {nrm, 2, 0};

    expect(sinew_lattice_rest_points(lat, bad, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "output pointer");
    expect(sinew_lattice_get_points(lat, bad, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "control point output pointer");
    expect(sinew_lattice_get_displacements(lat, bad, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "not aligned");
    expect(sinew_lattice_get_displacements(lat, buf, 14, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "stride 14");
    expect(sinew_lattice_parameters(lat, &pv, bad, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "parameter output pointer");
    expect(sinew_lattice_evaluate(lat, &pv, bad, 0, NULL, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT,
           "position output pointer");
    expect(sinew_lattice_evaluate(lat, &pv, buf, 0, bad, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT,
           "jacobian output pointer");
    expect(sinew_lattice_deform(lat, &pv, NULL, bad, 0, NULL, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT,
           "point output pointer");
    expect(sinew_lattice_deform(lat, &pv, &nv, buf, 0, bad, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT,
           "normal output pointer");
    assert_untouched(buf, N);

    /* Misaligned inputs. */
    float raw[8];
    float *in = misaligned(raw);
    memcpy(in, pts, sizeof pts);
    sinew_points bad_view = {in, 2, 0};
    expect(sinew_lattice_deform(lat, &bad_view, NULL, buf, 0, NULL, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT,
           "point pointer");
    expect(sinew_lattice_set_displacements(lat, &bad_view, 0), SINEW_ERROR_INVALID_ARGUMENT, "not aligned");
    expect(sinew_lattice_segment_bound(lat, in, pts, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT, "segment start");
    sinew_lattice_bind_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.points = bad_view;
    sinew_lattice_binding *b = NULL;
    expect(sinew_lattice_bind(NULL, lat, &bd, &b), SINEW_ERROR_INVALID_ARGUMENT, "bound point data pointer");
    bd.points = pv;
    bd.normals = nv;
    assert_int_equal(sinew_lattice_bind(NULL, lat, &bd, &b), SINEW_OK);
    memset(buf, 0x5a, sizeof buf);
    /* The AVX2 kernel (cubic, no normals) and the normal path. */
    expect(sinew_lattice_deform_bound(b, lat, bad, 0, NULL, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT,
           "point output pointer");
    expect(sinew_lattice_deform_bound(b, lat, buf, 0, bad, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT,
           "normal output pointer");
    expect(sinew_lattice_deform_bound(b, lat, buf, 18, NULL, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "stride 18");
    assert_untouched(buf, N);
    sinew_lattice_binding_destroy(b);
    sinew_lattice_destroy(lat);
}

static void misaligned_placement_pointers(void **state)
{
    (void)state;
    sinew_placement *p = flat_placement();
    enum { N = 64 };
    float buf[N + 1];
    memset(buf, 0x5a, sizeof buf);
    float *bad = misaligned(buf);
    expect(sinew_placement_directions(p, bad, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "direction output pointer");
    expect(sinew_placement_lifts(p, bad, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "lift output pointer");
    expect(sinew_placement_lifts(p, buf, 6, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "stride 6");
    sinew_placement_map map = {{1.0f / 8, 0.5f, 1.0f}, {0.5f, 0.5f, 0.0f}};
    float model[6] = {0, 0, 0.5f, 1, 0, 0.5f};
    sinew_points mv = {model, 2, 0};
    expect(sinew_placement_deform(p, &map, &mv, bad, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "output pointer");
    float raw[8];
    float *in = misaligned(raw);
    memcpy(in, model, sizeof model);
    sinew_points bad_model = {in, 2, 0};
    expect(sinew_placement_deform(p, &map, &bad_model, buf, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT,
           "model points pointer");
    assert_untouched(buf, N);
    sinew_placement_destroy(p);

    /* A misaligned width function at create. */
    static const float floor_v[12] = {-10, -10, 0, 10, -10, 0, 10, 10, 0, -10, 10, 0};
    static const uint32_t floor_t[6] = {0, 1, 2, 0, 2, 3};
    static const float path[6] = {-4, 0, 5, 4, 0, 5};
    float widths[4];
    float *wbad = misaligned(widths);
    const float one = 1.0f;
    memcpy(wbad, &one, sizeof one);
    memcpy((char *)wbad + 4, &one, sizeof one);
    sinew_placement_desc d;
    memset(&d, 0, sizeof d);
    d.path = (sinew_points){path, 2, 0};
    d.width = 1.0f;
    d.height = 1.0f;
    d.scene = (sinew_trimesh){{floor_v, 4, 0}, floor_t, 2};
    d.width_scale.values = wbad;
    d.width_scale.count[0] = 2;
    sinew_placement *q = (sinew_placement *)(uintptr_t)1;
    expect(sinew_placement_create(NULL, &d, &q), SINEW_ERROR_INVALID_ARGUMENT, "not aligned");
    assert_true(q == (sinew_placement *)(uintptr_t)1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overflowing_counts),
        cmocka_unit_test(misaligned_lattice_pointers),
        cmocka_unit_test(misaligned_placement_pointers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
