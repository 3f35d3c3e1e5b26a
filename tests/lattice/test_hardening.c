/* Hardening of the lattice and placement APIs: arrays whose byte
 * size overflows fail before anything is read, misaligned float pointers are
 * refused naming the argument with the outputs untouched, the fold-over check
 * of high orders is exact, reports every cell and can be cancelled, and
 * finite inputs never give non-finite outputs with OK. */
#include <math.h>
#include <stdbool.h>
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
    SINEW_INIT(&d);
    for (int a = 0; a < 3; ++a) d.order[a] = order, d.count[a] = count;
    sinew_lattice *lat = NULL;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_OK);
    return lat;
}

/* A floor z = 0 over [-10, 10]^2 and a two-point path (6 floats) above it. */
static sinew_result placement_over_floor(const float *path, sinew_placement **out)
{
    static const float floor_v[12] = {-10, -10, 0, 10, -10, 0, 10, 10, 0, -10, 10, 0};
    static const uint32_t floor_t[6] = {0, 1, 2, 0, 2, 3};
    sinew_placement_desc d;
    SINEW_INIT(&d);
    d.path = (sinew_points){path, 2, 0};
    d.width = 1.0f;
    d.height = 1.0f;
    d.scene = (sinew_trimesh){{floor_v, 4, 0}, floor_t, 2, SINEW_INDEX_U32, 0};
    return sinew_placement_create(NULL, &d, out);
}

/* The floor with a path along x, 5 above it. */
static sinew_placement *flat_placement(void)
{
    static const float path[6] = {-4, 0, 5, 4, 0, 5};
    sinew_placement *p = NULL;
    assert_int_equal(placement_over_floor(path, &p), SINEW_OK);
    return p;
}

/* Found by fuzzing: path points up to 3e38 apart make a path longer than a
 * float holds; the placement was built with an infinite path_length. */
static void path_longer_than_a_float_is_refused(void **state)
{
    (void)state;
    static const float path[6] = {-3e38f, 0, 5, 3e38f, 0, 5};
    sinew_placement *p = (sinew_placement *)(uintptr_t)1;
    expect(placement_over_floor(path, &p), SINEW_ERROR_NON_FINITE, "beyond the float range");
    assert_true(p == (sinew_placement *)(uintptr_t)1);
}

/* Found by fuzzing: a B-spline path whose points differ by ~1e-13 leaves
 * segments too short to have a direction after projection; the first point
 * then looked for a segment before it (index -1). */
static void path_without_a_direction_is_degenerate(void **state)
{
    (void)state;
    static const float path[24] = {4.0935452e-34f, 4.0935452e-34f, 5, 4.0935452e-34f, 4.0935452e-34f, 5,
                                   4.0935452e-34f, 4.0935452e-34f, 5, 4.0935452e-34f, 4.0935452e-34f, 5,
                                   1.51136617e-13f, 1.51150495e-13f, 5, 1.51136617e-13f, 1.51136617e-13f, 5,
                                   4.88257796e-22f, 5.51102295e-13f, 5, 2.37172764e-38f, 1.55671526e-22f, 5};
    static const float floor_v[12] = {-10, -10, 0, 10, -10, 0, 10, 10, 0, -10, 10, 0};
    static const uint32_t floor_t[6] = {0, 1, 2, 0, 2, 3};
    sinew_placement_desc d;
    SINEW_INIT(&d);
    d.path = (sinew_points){path, 8, 0};
    d.path_kind = SINEW_PLACEMENT_PATH_BSPLINE;
    d.width = 0.25f;
    d.height = 0.25f;
    d.scene = (sinew_trimesh){{floor_v, 4, 0}, floor_t, 2, SINEW_INDEX_U32, 0};
    sinew_placement *p = (sinew_placement *)(uintptr_t)1;
    sinew_result r = sinew_placement_create(NULL, &d, &p);
    if (r != SINEW_OK) assert_true(p == (sinew_placement *)(uintptr_t)1);
    else sinew_placement_destroy(p);
    expect(r, SINEW_ERROR_DEGENERATE, "path");
}

/* Found by fuzzing: a model box one denormal thin mapped with an infinite
 * scale and returned OK. */
static void thin_model_box_is_degenerate(void **state)
{
    (void)state;
    sinew_placement *p = flat_placement();
    sinew_placement_map_desc md = {sizeof(sinew_placement_map_desc), {0, 0, 0}, {1, 1e-45f, 1}, 0.5f, 0};
    sinew_placement_map map = {{7, 7, 7}, {7, 7, 7}};
    expect(sinew_placement_map_model(p, &md, &map), SINEW_ERROR_DEGENERATE, "model box y is too thin");
    for (int a = 0; a < 3; ++a) assert_true(map.scale[a] == 7.0f && map.offset[a] == 7.0f);
    md.box_max[1] = 1.0f;
    assert_int_equal(sinew_placement_map_model(p, &md, &map), SINEW_OK);
    sinew_placement_destroy(p);
}

static const size_t top_bit = (size_t)1 << (sizeof(size_t) * 8 - 1);

/* ---- Item 4: counts whose byte size overflows ---------------------------------- */

static void overflowing_counts(void **state)
{
    (void)state;
    sinew_lattice *lat = unit_lattice(4, 5);
    float v[9] = {0.1f, 0.1f, 0.1f, 0.9f, 0.1f, 0.1f, 0.1f, 0.9f, 0.1f};
    uint32_t idx[3] = {0, 1, 2};
    sinew_lattice_refinement_desc rd;
    SINEW_INIT(&rd);
    rd.tolerance = 1e-3;
    sinew_lattice_refinement *ref = (sinew_lattice_refinement *)(uintptr_t)1;
    /* SIZE_MAX / 3 triangles: SIZE_MAX indices fit size_t, their bytes do not. */
    sinew_trimesh m = {{v, 3, 0}, idx, SIZE_MAX / 3, SINEW_INDEX_U32, 0};
    expect(sinew_lattice_refinement_create(NULL, lat, &m, &rd, &ref), SINEW_ERROR_SIZE_OVERFLOW, "3 indices overflow");
    m.triangle_count = SIZE_MAX / 12 + 1;
    expect(sinew_lattice_refinement_create(NULL, lat, &m, &rd, &ref), SINEW_ERROR_SIZE_OVERFLOW, "overflow");
    m = (sinew_trimesh){{v, 3, top_bit}, idx, 1, SINEW_INDEX_U32, 0};
    expect(sinew_lattice_refinement_create(NULL, lat, &m, &rd, &ref), SINEW_ERROR_SIZE_OVERFLOW, "mesh vertex");
    assert_true(ref == (sinew_lattice_refinement *)(uintptr_t)1);

    /* Points views spanning more than the address space. */
    sinew_points huge = {v, 3, top_bit};
    sinew_lattice_binding_desc bd;
    SINEW_INIT(&bd);
    bd.points = huge;
    sinew_lattice_binding *b = NULL;
    expect(sinew_lattice_binding_create(NULL, lat, &bd, &b), SINEW_ERROR_SIZE_OVERFLOW, "bound point");
    float out[9] = {7, 7, 7, 7, 7, 7, 7, 7, 7};
    expect(sinew_lattice_deform(lat, &huge, NULL, out, 0, NULL, 0, 0, 1), SINEW_ERROR_SIZE_OVERFLOW, "point");
    expect(sinew_lattice_parameters(lat, &huge, out, 0, 0, 1), SINEW_ERROR_SIZE_OVERFLOW, "world point");
    expect(sinew_lattice_evaluate(lat, &huge, out, 0, NULL, 0, 0, 1), SINEW_ERROR_SIZE_OVERFLOW, "parameter point");
    expect(sinew_lattice_set_points(lat, &huge, 0, huge.count), SINEW_ERROR_SIZE_OVERFLOW, "control point");
    /* An output whose last element lies past the address space. */
    sinew_points three = {v, 3, 0};
    expect(sinew_lattice_deform(lat, &three, NULL, out, top_bit, NULL, 0, 0, 3), SINEW_ERROR_SIZE_OVERFLOW,
           "point output");
    expect(sinew_lattice_points(lat, out, top_bit, 0, 3), SINEW_ERROR_SIZE_OVERFLOW, "control point output");
    for (int i = 0; i < 9; ++i) assert_true(out[i] == 7.0f);
    sinew_lattice_destroy(lat);

    /* Placement: scene and path. */
    static const float floor_v[12] = {-10, -10, 0, 10, -10, 0, 10, 10, 0, -10, 10, 0};
    static const uint32_t floor_t[6] = {0, 1, 2, 0, 2, 3};
    static const float path[6] = {-4, 0, 5, 4, 0, 5};
    sinew_placement_desc pd;
    SINEW_INIT(&pd);
    pd.path = (sinew_points){path, 2, 0};
    pd.width = 1.0f;
    pd.height = 1.0f;
    pd.scene = (sinew_trimesh){{floor_v, 4, 0}, floor_t, SIZE_MAX / 3, SINEW_INDEX_U32, 0};
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
    expect(sinew_lattice_points(lat, bad, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "control point output pointer");
    expect(sinew_lattice_displacements(lat, bad, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "not aligned");
    expect(sinew_lattice_displacements(lat, buf, 14, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "stride 14");
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
    expect(sinew_lattice_set_displacements(lat, &bad_view, 0, bad_view.count), SINEW_ERROR_INVALID_ARGUMENT, "not aligned");
    expect(sinew_lattice_segment_bound(lat, in, pts, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT, "segment start");
    sinew_lattice_binding_desc bd;
    SINEW_INIT(&bd);
    bd.points = bad_view;
    sinew_lattice_binding *b = NULL;
    expect(sinew_lattice_binding_create(NULL, lat, &bd, &b), SINEW_ERROR_INVALID_ARGUMENT, "bound point data pointer");
    bd.points = pv;
    bd.normals = nv;
    assert_int_equal(sinew_lattice_binding_create(NULL, lat, &bd, &b), SINEW_OK);
    memset(buf, 0x5a, sizeof buf);
    /* The AVX2 kernel (cubic, no normals) and the normal path. */
    expect(sinew_lattice_binding_deform(b, lat, bad, 0, NULL, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT,
           "point output pointer");
    expect(sinew_lattice_binding_deform(b, lat, buf, 0, bad, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT,
           "normal output pointer");
    expect(sinew_lattice_binding_deform(b, lat, buf, 18, NULL, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "stride 18");
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
    SINEW_INIT(&d);
    d.path = (sinew_points){path, 2, 0};
    d.width = 1.0f;
    d.height = 1.0f;
    d.scene = (sinew_trimesh){{floor_v, 4, 0}, floor_t, 2, SINEW_INDEX_U32, 0};
    d.width_scale.values = wbad;
    d.width_scale.count[0] = 2;
    sinew_placement *q = (sinew_placement *)(uintptr_t)1;
    expect(sinew_placement_create(NULL, &d, &q), SINEW_ERROR_INVALID_ARGUMENT, "not aligned");
    assert_true(q == (sinew_placement *)(uintptr_t)1);
}


/* ---- Item 7: the fold-over check of high orders ----------------------------------- */

/* Knot t_j of a clamped uniform knot vector of n control points of order o. */
static double knot(int n, int o, int j)
{
    int p = o - 1, cells = n - p;
    if (j <= p) return 0.0;
    if (j >= n) return 1.0;
    return (double)(j - p) / cells;
}

/* x' = x + c x^2 (x along u over the unit cube) needs the B-spline
 * coefficients of x^2: its blossom at the p knots of control point i,
 * sum_{j < k} t_j t_k / C(p, 2), while x sits at the Greville abscissa. The
 * world Jacobian's determinant is then 1 + 2 c x. */
static sinew_lattice *quadratic_lattice(const uint32_t order[3], const uint32_t count[3], double c)
{
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    memcpy(d.order, order, sizeof d.order);
    memcpy(d.count, count, sizeof d.count);
    sinew_lattice *lat = NULL;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_OK);
    sinew_lattice_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_lattice_get_info(lat, &info), SINEW_OK);
    float *disp = calloc(info.point_count * 3, sizeof(float));
    int n = (int)count[0], o = (int)order[0], p = o - 1;
    for (size_t index = 0; index < info.point_count; ++index) {
        int i = (int)(index % count[0]);
        double sum = 0.0;
        for (int j = 1; j <= p; ++j)
            for (int k = j + 1; k <= p; ++k) sum += knot(n, o, i + j) * knot(n, o, i + k);
        disp[3 * index] = (float)(c * sum / (p * (p - 1) / 2.0));
    }
    sinew_points dv = {disp, info.point_count, 0};
    assert_int_equal(sinew_lattice_set_displacements(lat, &dv, 0, dv.count), SINEW_OK);
    free(disp);
    return lat;
}

static int count_reports(void *user, const char *stage, float fraction)
{
    (void)fraction;
    int *calls = user;
    if (strcmp(stage, "lattice: fold-over check") == 0) ++calls[0];
    return calls[1] && calls[0] >= calls[1];
}

static void fold_check_high_orders(void **state)
{
    (void)state;
    const uint32_t order[3] = {6, 5, 5}, count[3] = {12, 8, 8};
    /* det J = 1 - 1.5 x: <= 0 from x = 2/3 on. u has 7 cells, so cells 4..6
     * along u may fold (the Bezier coefficients of a linear function lie on
     * it), 3 of 7 columns of 4 x 4 cells; the smallest coefficient and
     * sampled value are det J at x = 1. */
    sinew_lattice *lat = quadratic_lattice(order, count, -0.75);
    sinew_lattice_fold_report rep;
    SINEW_INIT(&rep);
    uint8_t flags[112];
    double t0 = support_now();
    assert_int_equal(sinew_lattice_check_folds(NULL, lat, 3, flags, sizeof flags, &rep), SINEW_OK);
    double seconds = support_now() - t0;
    print_message("orders (6,5,5), counts (12,8,8): fold-over check %.3f s\n", seconds);
    assert_int_equal(rep.cell_count, 112);
    assert_int_equal(rep.cells_may_fold, 48);
    assert_float_equal(rep.min_coefficient, -0.5, 2e-5);
    assert_float_equal(rep.min_sampled_det, -0.5, 2e-5);
    assert_float_equal(rep.min_sampled_at[0], 1.0, 1e-6);
    for (uint32_t cell = 0; cell < 112; ++cell) assert_int_equal(flags[cell], cell % 7 >= 4);
    sinew_lattice_destroy(lat);

    /* c > 0: det J = 1 + x >= 1, smallest at x = 0. */
    lat = quadratic_lattice(order, count, 0.5);
    assert_int_equal(sinew_lattice_check_folds(NULL, lat, 2, NULL, 0, &rep), SINEW_OK);
    assert_int_equal(rep.cells_may_fold, 0);
    assert_float_equal(rep.min_coefficient, 1.0, 2e-5);

    /* Every cell reports progress, so a long check can be cancelled anywhere. */
    int calls[2] = {0, 0};
    sinew_context_desc cd;
    SINEW_INIT(&cd);
    cd.progress = count_reports;
    cd.progress_user = calls;
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    memcpy(d.order, order, sizeof d.order);
    memcpy(d.count, count, sizeof d.count);
    sinew_lattice *with_ctx = NULL;
    assert_int_equal(sinew_lattice_create(ctx, &d, &with_ctx), SINEW_OK);
    assert_int_equal(sinew_lattice_check_folds(ctx, with_ctx, 1, NULL, 0, &rep), SINEW_OK);
    assert_true(calls[0] >= 112);
    calls[0] = 0;
    calls[1] = 50; /* cancel at the 50th cell */
    memset(flags, 0x77, sizeof flags);
    expect(sinew_lattice_check_folds(ctx, with_ctx, 1, flags, sizeof flags, &rep), SINEW_ERROR_CANCELLED,
           "fold-over check");
    for (size_t i = 0; i < sizeof flags; ++i) assert_int_equal(flags[i], 0x77);
    sinew_lattice_destroy(with_ctx);
    sinew_context_destroy(ctx);
    sinew_lattice_destroy(lat);
}

/* ---- Finite inputs never give non-finite outputs with OK ---------------------------- */

static bool all_finite(const float *x, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(x[i])) return false;
    return true;
}

/* OK with finite outputs, or NON_FINITE with the outputs untouched (7s). */
static void ok_and_finite_or_refused(sinew_result r, float *out, size_t n)
{
    if (r == SINEW_OK) {
        if (!all_finite(out, n)) fail_msg("OK with a non-finite output");
        return;
    }
    expect(r, SINEW_ERROR_NON_FINITE, "float range");
    for (size_t i = 0; i < n; ++i) assert_true(out[i] == 7.0f);
}

/* Fills out with 7s for the next call. */
static float *sevens(float *out, size_t n)
{
    for (size_t i = 0; i < n; ++i) out[i] = 7.0f;
    return out;
}

static void finite_inputs_finite_outputs(void **state)
{
    (void)state;
    sinew_lattice_desc d;
    sinew_lattice *lat = (sinew_lattice *)(uintptr_t)1;
    /* A box reaching past the float range. */
    SINEW_INIT(&d);
    d.extents[0] = d.extents[1] = d.extents[2] = 3e38f;
    d.origin[0] = 3e38f;
    expect(sinew_lattice_create(NULL, &d, &lat), SINEW_ERROR_NON_FINITE, "beyond the float range");
    assert_true(lat == (sinew_lattice *)(uintptr_t)1);

    float out[12];
    /* A tiny box: parameters of a far point overflow. */
    SINEW_INIT(&d);
    d.extents[0] = d.extents[1] = d.extents[2] = 1e-30f;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_OK);
    float far[3] = {1e38f, 0, 0};
    sinew_points fv = {far, 1, 0};
    for (int i = 0; i < 12; ++i) out[i] = 7.0f;
    expect(sinew_lattice_parameters(lat, &fv, out, 0, 0, 1), SINEW_ERROR_NON_FINITE, "world point 0");
    ok_and_finite_or_refused(SINEW_ERROR_NON_FINITE, out, 3);
    sinew_lattice_destroy(lat);

    /* A long box: a displacement that puts a control point past the float range. */
    SINEW_INIT(&d);
    d.extents[0] = 3e38f, d.extents[1] = d.extents[2] = 1.0f;
    d.outside = SINEW_LATTICE_OUTSIDE_EXTEND;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_OK);
    /* Inputs are read at the control point's own index: element 63 of the view. */
    float push[64 * 3] = {0};
    push[63 * 3] = 3e38f;
    sinew_points pv = {push, 64, 0};
    expect(sinew_lattice_set_displacements(lat, &pv, 63, 1), SINEW_ERROR_NON_FINITE, "control point 63");
    float all[64 * 3];
    assert_int_equal(sinew_lattice_points(lat, all, 0, 0, 64), SINEW_OK);
    assert_true(all_finite(all, 64 * 3));
    sinew_lattice_destroy(lat);

    /* EXTEND: huge displacements, points far outside, an untouched lattice. */
    lat = unit_lattice(4, 4);
    sinew_lattice_destroy(lat);
    SINEW_INIT(&d);
    d.outside = SINEW_LATTICE_OUTSIDE_EXTEND;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_OK);
    const float cases[4][3] = {{3e38f, 0.5f, 0.5f}, {-1e30f, 0.5f, 0.5f}, {1e20f, 1e20f, 1e20f}, {0.5f, 0.5f, 0.5f}};
    sinew_lattice_binding_desc bd;
    SINEW_INIT(&bd);
    for (int lift = 0; lift < 2; ++lift) {
        if (lift) {
            float big[3] = {1e38f, 0, 0};
            sinew_points bv = {big, 1, 0};
            assert_int_equal(sinew_lattice_set_displacements(lat, &bv, 0, bv.count), SINEW_OK);
        }
        for (int c = 0; c < 4; ++c) {
            sinew_points v = {cases[c], 1, 0};
            ok_and_finite_or_refused(sinew_lattice_deform(lat, &v, NULL, sevens(out, 12), 0, NULL, 0, 0, 1), out, 3);
            ok_and_finite_or_refused(sinew_lattice_evaluate(lat, &v, sevens(out, 12), 0, out + 3, 0, 0, 1), out, 12);
            ok_and_finite_or_refused(sinew_lattice_parameters(lat, &v, sevens(out, 12), 0, 0, 1), out, 3);
            bd.points = v;
            sinew_lattice_binding *b = NULL;
            sinew_result r = sinew_lattice_binding_create(NULL, lat, &bd, &b);
            if (r == SINEW_OK) {
                ok_and_finite_or_refused(sinew_lattice_binding_deform(b, lat, sevens(out, 12), 0, NULL, 0, 0, 1), out,
                                         3);
                sinew_lattice_binding_destroy(b);
            } else {
                expect(r, SINEW_ERROR_NON_FINITE, "bound point 0");
            }
        }
        /* The far point is refused with displacements, a point inside is not. */
        sinew_points v0 = {cases[1], 1, 0}, v3 = {cases[3], 1, 0};
        if (lift) {
            expect(sinew_lattice_deform(lat, &v0, NULL, out, 0, NULL, 0, 0, 1), SINEW_ERROR_NON_FINITE, "point 0");
        }
        assert_int_equal(sinew_lattice_deform(lat, &v3, NULL, out, 0, NULL, 0, 0, 1), SINEW_OK);
    }
    /* A binding made before the displacement grew refuses to deform. */
    sinew_lattice_reset(lat);
    const float outside[3] = {1e10f, 0.5f, 0.5f};
    bd.points = (sinew_points){outside, 1, 0};
    sinew_lattice_binding *b = NULL;
    assert_int_equal(sinew_lattice_binding_create(NULL, lat, &bd, &b), SINEW_OK);
    float big[3] = {1e38f, 0, 0};
    sinew_points bv = {big, 1, 0};
    assert_int_equal(sinew_lattice_set_displacements(lat, &bv, 0, bv.count), SINEW_OK);
    for (int i = 0; i < 12; ++i) out[i] = 7.0f;
    expect(sinew_lattice_binding_deform(b, lat, out, 0, NULL, 0, 0, 1), SINEW_ERROR_NON_FINITE, "float range");
    sinew_lattice_binding_destroy(b);
    /* A refinement refuses a vertex whose deformed position could leave the
     * float range, and makes nothing. */
    const float far_triangle[9] = {0.5f, 0.5f, 0.5f, -1e30f, 0.5f, 0.5f, 0.6f, 0.7f, 0.5f};
    const uint32_t corners[3] = {0, 1, 2};
    sinew_trimesh tm = {{far_triangle, 3, 0}, corners, 1, SINEW_INDEX_U32, 0};
    sinew_lattice_refinement_desc rd;
    SINEW_INIT(&rd);
    rd.tolerance = 0.1;
    sinew_lattice_refinement *ref = NULL;
    expect(sinew_lattice_refinement_create(NULL, lat, &tm, &rd, &ref), SINEW_ERROR_NON_FINITE, "mesh vertex 1");
    assert_null(ref);
    /* The fold report stays finite. */
    sinew_lattice_fold_report rep;
    SINEW_INIT(&rep);
    assert_int_equal(sinew_lattice_check_folds(NULL, lat, 2, NULL, 0, &rep), SINEW_OK);
    assert_true(isfinite(rep.min_coefficient) && isfinite(rep.min_sampled_det));
    sinew_lattice_destroy(lat);

    /* Placement: a map that sends model point 0 past the float range (u = 1.5e38) and point 1 to an
     * infinite parameter. */
    sinew_placement *p = flat_placement();
    sinew_placement_map map = {{3e38f, 1, 1}, {0, 0, 0}};
    float model[6] = {0.5f, 0.5f, 0.5f, 10.0f, 0.5f, 0.5f};
    sinew_points mv = {model, 2, 0};
    for (int i = 0; i < 12; ++i) out[i] = 7.0f;
    expect(sinew_placement_deform(p, &map, &mv, out, 0, 0, 2), SINEW_ERROR_NON_FINITE, "model point 0 would give a position");
    ok_and_finite_or_refused(SINEW_ERROR_NON_FINITE, out, 6);
    expect(sinew_placement_deform(p, &map, &mv, out, 0, 1, 1), SINEW_ERROR_NON_FINITE,
           "model point 1 maps to a parameter u beyond the float range");
    ok_and_finite_or_refused(SINEW_ERROR_NON_FINITE, out, 6);
    sinew_placement_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overflowing_counts),
        cmocka_unit_test(misaligned_lattice_pointers),
        cmocka_unit_test(misaligned_placement_pointers),
        cmocka_unit_test(fold_check_high_orders),
        cmocka_unit_test(finite_inputs_finite_outputs),
        cmocka_unit_test(path_longer_than_a_float_is_refused),
        cmocka_unit_test(path_without_a_direction_is_degenerate),
        cmocka_unit_test(thin_model_box_is_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
