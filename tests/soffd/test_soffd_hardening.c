/* Hardening regression tests for surface-oriented FFD: size
 * products checked before anything is read, far points, precision away from
 * the origin, and the reported dropped mass. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brute.h"
#include "fixtures.h"

/* One triangle in the z = 0 plane, unit legs. */
static const float tri_pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
static const uint32_t tri_idx[] = {0, 1, 2};

static sinew_soffd *bind_triangle(const sinew_soffd_desc *desc)
{
    sinew_polymesh m = {{tri_pos, 3, 0}, tri_idx, NULL, 1, SINEW_INDEX_U32};
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &m, desc, &h), SINEW_OK);
    return h;
}

/* ---- Item 4: size products -------------------------------------------- */

/* Frames buffers carry their size: a buffer of any other size is refused with
 * MISMATCH naming the size needed, before a float of it (or of the output) is
 * read or written, so a buffer sized for another driver cannot be overrun. */
static void frames_of_the_wrong_size_are_refused(void **state)
{
    (void)state;
    /* Two triangles on four vertices: 32 element floats, 64 vertex floats. */
    static const float quad[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    static const uint32_t quad_idx[] = {0, 1, 2, 2, 1, 3};
    sinew_polymesh m = {{quad, 4, 0}, quad_idx, NULL, 2, SINEW_INDEX_U32};
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_OK);
    const float pts[] = {0.2f, 0.2f, 0.1f, 0.7f, 0.6f, -0.2f};
    sinew_points s = {pts, 2, 0}, d = {quad, 4, 0};
    assert_int_equal(sinew_soffd_register(NULL, h, &s, SOFFD_EXACT), SINEW_OK);
    assert_int_equal(sinew_soffd_element_frames_size(h), 32);
    assert_int_equal(sinew_soffd_vertex_frames_size(h), 64);
    assert_int_equal(sinew_soffd_element_frames_size(NULL), 0);
    for (int extended = 0; extended < 2; ++extended) {
        size_t need = extended ? 64 : 32;
        /* Exactly the size given, on the heap, so a tool sees any overrun. */
        float *exact = malloc(need * sizeof(float)), *shorter = malloc((need - 16) * sizeof(float));
        float out[6];
        assert_non_null(exact);
        assert_non_null(shorter);
        memset(shorter, 0x5a, (need - 16) * sizeof(float));
        memset(out, 0x5a, sizeof out);
        sinew_result r = extended ? sinew_soffd_vertex_frames(h, &d, shorter, need - 16)
                                  : sinew_soffd_element_frames(h, &d, shorter, need - 16);
        assert_int_equal(r, SINEW_ERROR_MISMATCH);
        char want[96];
        snprintf(want, sizeof want, "hold %zu floats, but the %s need %zu", need - 16,
                 extended ? "4 driver vertices" : "2 elements", need);
        assert_non_null(strstr(sinew_last_error(), want));
        for (size_t i = 0; i < need - 16; ++i) assert_int_equal(((uint32_t *)shorter)[i], 0x5a5a5a5au);
        r = extended ? sinew_soffd_vertex_frames(h, &d, exact, need) : sinew_soffd_element_frames(h, &d, exact, need);
        assert_int_equal(r, SINEW_OK);
        /* The deform calls read the frames: a short buffer is refused, the output untouched. */
        memcpy(shorter, exact, (need - 16) * sizeof(float));
        r = extended ? sinew_soffd_deform_extended(h, shorter, need - 16, NULL, out, 0, NULL, 0, 0, 2)
                     : sinew_soffd_deform(h, shorter, need - 16, NULL, out, 0, NULL, 0, 0, 2);
        assert_int_equal(r, SINEW_ERROR_MISMATCH);
        assert_non_null(strstr(sinew_last_error(), want));
        for (int i = 0; i < 6; ++i) assert_int_equal(((uint32_t *)out)[i], 0x5a5a5a5au);
        /* The other algorithm's size is refused as well (the two differ here). */
        r = extended ? sinew_soffd_deform_extended(h, exact, 32, NULL, out, 0, NULL, 0, 0, 2)
                     : sinew_soffd_deform(h, exact, 64, NULL, out, 0, NULL, 0, 0, 2);
        assert_int_equal(r, SINEW_ERROR_MISMATCH);
        r = extended ? sinew_soffd_deform_extended(h, exact, need, NULL, out, 0, NULL, 0, 0, 2)
                     : sinew_soffd_deform(h, exact, need, NULL, out, 0, NULL, 0, 0, 2);
        assert_int_equal(r, SINEW_OK);
        for (int i = 0; i < 6; ++i) assert_float_equal(out[i], pts[i], 1e-5);   /* the driver at rest */
        free(exact);
        free(shorter);
    }
    sinew_soffd_destroy(h);
}

static void huge_counts_fail_before_reading(void **state)
{
    (void)state;
    sinew_soffd *h = (sinew_soffd *)&h, *const sentinel = h;
    /* face_count * 3 fits in size_t, but not in bytes: the indices cannot exist. */
    sinew_polymesh m = {{tri_pos, 3, 0}, tri_idx, NULL, SIZE_MAX / 3, SINEW_INDEX_U32};
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "driver faces (triangles) overflow"));
    m.face_count = SIZE_MAX / 12 + 1;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_ERROR_SIZE_OVERFLOW);
    /* face_sizes of SIZE_MAX / 2 entries cannot exist either. */
    const uint32_t sizes[] = {3};
    m.face_sizes = sizes;
    m.face_count = SIZE_MAX / 2;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "face_sizes"));
    assert_ptr_equal(h, sentinel);

    h = bind_triangle(NULL);
    const float skin[] = {0.2f, 0.2f, 0.1f, 0.3f, 0.3f, 0.2f, 0.1f, 0.5f, -0.2f};
    sinew_points s = {skin, 3, 0};
    assert_int_equal(sinew_soffd_register(NULL, h, &s, SOFFD_EXACT), SINEW_OK);
    /* A set longer than the element count is read no further than needed. */
    const uint32_t one = 0;
    assert_int_equal(sinew_soffd_set_contributors(h, 1, &one, SIZE_MAX), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "point 1"));
    assert_int_equal(sinew_soffd_set_contributors(h, 1, &one, 2), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "point 1"));
    /* An output stride whose last point lies past the address space. */
    float frames[16], out[9];
    sinew_points d = {tri_pos, 3, 0};
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames, sinew_soffd_element_frames_size(h)), SINEW_OK);
    size_t stride = (SIZE_MAX / 8) * 4;
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, stride, NULL, 0, 0, 3), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "point 2"));
    assert_int_equal(sinew_soffd_deform_extended(h, frames, sinew_soffd_vertex_frames_size(h), NULL, out, stride, NULL, 0, 1, 2), SINEW_ERROR_SIZE_OVERFLOW);
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, stride, NULL, 0, 0, 1), SINEW_OK); /* point 0 is at out */
    sinew_soffd_destroy(h);
}

/* ---- Item 3: far points and the numeric domain ------------------------- */

/* A regular octahedron with vertices at distance r from c. */
static void octahedron(float r, const float c[3], float pos[18], uint32_t idx[24])
{
    static const int dirs[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    static const uint32_t faces[24] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
    for (int v = 0; v < 6; ++v)
        for (int k = 0; k < 3; ++k) pos[3 * v + k] = c[k] + r * (float)dirs[v][k];
    memcpy(idx, faces, sizeof faces);
}

/* Weights of every point are finite, non-negative and sum to one. */
static void assert_weights_sum_to_one(const sinew_soffd *h, size_t points)
{
    for (size_t i = 0; i < points; ++i) {
        uint32_t e[8];
        float w[8];
        size_t n;
        assert_int_equal(sinew_soffd_contributor_count(h, i, &n), SINEW_OK);
        assert_true(n >= 1 && n <= 8);
        assert_int_equal(sinew_soffd_contributors(h, i, e, w, 8, &(size_t){0}), SINEW_OK);
        double sum = 0;
        for (size_t j = 0; j < n; ++j) {
            assert_true(isfinite(w[j]) && w[j] >= 0);
            sum += w[j];
        }
        assert_float_equal(sum, 1.0, 1e-6);
    }
}

/* Each output within 1e-6 of its point's distance from the origin. */
static void assert_close_to_points(const float *out, const float *pts, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        const float *p = &pts[3 * i];
        double size = sqrt((double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2]);
        for (int k = 0; k < 3; ++k) assert_true(fabs(out[3 * i + k] - p[k]) <= 1e-6 * size);
    }
}

static void far_points_keep_finite_weights(void **state)
{
    (void)state;
    /* One triangle, local = 100: (d / L)^100 overflows double for a point a
     * million units away, and every weight used to become 0, then 0 / 0. */
    sinew_soffd *h = bind_triangle(&(sinew_soffd_desc){sizeof(sinew_soffd_desc), 100, 0, 0});
    const float far[] = {1e6f, 0, 0, 0.25f, 0.25f, 3e5f, -4e5f, 2e5f, 1};
    sinew_points s = {far, 3, 0};
    assert_int_equal(sinew_soffd_register(NULL, h, &s, SOFFD_EXACT), SINEW_OK);
    assert_weights_sum_to_one(h, 3);
    float moved[9], frames[16], out[9];
    for (int i = 0; i < 9; ++i) moved[i] = tri_pos[i] + (i % 3 == 1 ? 2.0f : 0.0f);
    sinew_points d = {moved, 3, 0};
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames, sinew_soffd_element_frames_size(h)), SINEW_OK);
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 0, 3), SINEW_OK);
    for (int i = 0; i < 9; ++i) assert_float_equal(out[i], far[i] + (i % 3 == 1 ? 2.0f : 0.0f), 0.07);
    sinew_soffd_destroy(h);

    /* An octahedron at local = 40 and points 1e15 away (t = 1e600), pruned and exact. */
    float pos[18];
    uint32_t idx[24];
    octahedron(1, (const float[3]){0, 0, 0}, pos, idx);
    sinew_polymesh m = {{pos, 6, 0}, idx, NULL, 8, SINEW_INDEX_U32};
    assert_int_equal(sinew_soffd_create(NULL, &m, &(sinew_soffd_desc){sizeof(sinew_soffd_desc), 40, 0, 0}, &h), SINEW_OK);
    const float pts[] = {1e15f, 0, 0, 3e14f, -2e14f, 1e15f, 0.1f, 0.2f, 1e17f};
    s = (sinew_points){pts, 3, 0};
    const sinew_soffd_register_desc policies[] = {
        {sizeof(sinew_soffd_register_desc), 0, 0, 0, 0, 1},
        {sizeof(sinew_soffd_register_desc), 1e-3f, SOFFD_NO_CAP, 0, 0, 0},
        {sizeof(sinew_soffd_register_desc), FLT_MIN, 2, 0, 0, 0}};
    for (int k = 0; k < 3; ++k) {
        assert_int_equal(sinew_soffd_register(NULL, h, &s, &policies[k]), SINEW_OK);
        assert_weights_sum_to_one(h, 3);
        float of[16 * 8], vf[16 * 6], o[9];
        d = (sinew_points){pos, 6, 0};
        assert_int_equal(sinew_soffd_element_frames(h, &d, of, sinew_soffd_element_frames_size(h)), SINEW_OK);
        assert_int_equal(sinew_soffd_deform(h, of, sinew_soffd_element_frames_size(h), NULL, o, 0, NULL, 0, 0, 3), SINEW_OK);
        assert_close_to_points(o, pts, 3);
        assert_int_equal(sinew_soffd_vertex_frames(h, &d, vf, sinew_soffd_vertex_frames_size(h)), SINEW_OK);
        assert_int_equal(sinew_soffd_deform_extended(h, vf, sinew_soffd_vertex_frames_size(h), NULL, o, 0, NULL, 0, 0, 3), SINEW_OK);
        assert_close_to_points(o, pts, 3);
        float dm;
        assert_int_equal(sinew_soffd_dropped_mass(h, 0, &dm), SINEW_OK);
        assert_true(isfinite(dm) && dm >= 0 && dm < 1);
    }
    sinew_soffd_destroy(h);
}

static void coordinates_beyond_the_domain_are_named(void **state)
{
    (void)state;
    float pos[18];
    uint32_t idx[24];
    octahedron(1, (const float[3]){0, 0, 0}, pos, idx);
    sinew_polymesh m = {{pos, 6, 0}, idx, NULL, 8, SINEW_INDEX_U32};
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_OK);
    /* Ppoints far beyond 2^60: named, and the earlier registration kept. */
    const float ok_pts[] = {0.1f, 0.2f, 2};
    sinew_points s = {ok_pts, 1, 0};
    assert_int_equal(sinew_soffd_register(NULL, h, &s, SOFFD_EXACT), SINEW_OK);
    const float far[] = {0, 0, 0, 1e38f, 0, 0};
    s = (sinew_points){far, 2, 0};
    assert_int_equal(sinew_soffd_register(NULL, h, &s, SOFFD_EXACT), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "point 1 has coordinate x = 1e+38"));
    const float far2[] = {2e19f, 0, 0};
    s = (sinew_points){far2, 1, 0};
    assert_int_equal(sinew_soffd_register(NULL, h, &s, &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), 1e-3f, SOFFD_NO_CAP, 0, 0, 0}),
                     SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "point 0"));
    sinew_soffd_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_soffd_get_info(h, &info), SINEW_OK);
    assert_int_equal(info.point_count, 1);

    /* A pose near FLT_MAX: e1 = B - A would overflow float. */
    float pose[18], frames[16 * 8], vframes[16 * 6], out[3];
    memcpy(pose, pos, sizeof pose);
    pose[0] = 3e38f, pose[3] = -3e38f;
    sinew_points d = {pose, 6, 0};
    memset(frames, 0x5a, sizeof frames);
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames, sinew_soffd_element_frames_size(h)), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "driver vertex 0"));
    assert_int_equal(sinew_soffd_vertex_frames(h, &d, vframes, sinew_soffd_vertex_frames_size(h)), SINEW_ERROR_OUTSIDE_DOMAIN);
    for (size_t i = 0; i < sizeof frames / 4; ++i) assert_int_equal(((uint32_t *)frames)[i], 0x5a5a5a5au);
    /* A driver bound near FLT_MAX. */
    sinew_soffd *h2 = NULL;
    sinew_polymesh big = {{pose, 6, 0}, idx, NULL, 8, SINEW_INDEX_U32};
    assert_int_equal(sinew_soffd_create(NULL, &big, NULL, &h2), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "driver vertex 0"));
    sinew_points refp = {pose, 6, 0};
    assert_int_equal(sinew_soffd_set_reference(NULL, h, &refp), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "reference vertex 0"));

    /* Finite frames from elsewhere whose products overflow: named, output untouched. */
    d = (sinew_points){pos, 6, 0};
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames, sinew_soffd_element_frames_size(h)), SINEW_OK);
    frames[16 * 3 + 0] = 1e30f;
    memset(out, 0x5a, sizeof out);
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 0, 1), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "element 3"));
    for (int i = 0; i < 3; ++i) assert_int_equal(((uint32_t *)out)[i], 0x5a5a5a5au);
    assert_int_equal(sinew_soffd_vertex_frames(h, &d, vframes, sinew_soffd_vertex_frames_size(h)), SINEW_OK);
    vframes[16 * 4 + 5] = 1e30f;
    assert_int_equal(sinew_soffd_deform_extended(h, vframes, sinew_soffd_vertex_frames_size(h), NULL, out, 0, NULL, 0, 0, 1), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "driver vertex 4"));
    vframes[16 * 4 + 5] = 1;
    vframes[16 * 2 + 13] = 3e38f;
    assert_int_equal(sinew_soffd_deform_extended(h, vframes, sinew_soffd_vertex_frames_size(h), NULL, out, 0, NULL, 0, 0, 1), SINEW_ERROR_OUTSIDE_DOMAIN);
    for (int i = 0; i < 3; ++i) assert_int_equal(((uint32_t *)out)[i], 0x5a5a5a5au);
    sinew_soffd_destroy(h);

    /* A tiny driver and a point far from it: local coordinates beyond 2^62
     * (with a float of them, u * x, overflowing). */
    float tiny[18];
    octahedron(1e-30f, (const float[3]){0, 0, 0}, tiny, idx);
    sinew_polymesh tm = {{tiny, 6, 0}, idx, NULL, 8, SINEW_INDEX_U32};
    assert_int_equal(sinew_soffd_create(NULL, &tm, NULL, &h), SINEW_OK);
    const float away[] = {0, 0, 1e-30f, 1e15f, 1e15f, 0};
    s = (sinew_points){away, 2, 0};
    assert_int_equal(sinew_soffd_register(NULL, h, &s, SOFFD_EXACT), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "point 1 lies"));
    s.count = 1;
    assert_int_equal(sinew_soffd_register(NULL, h, &s, SOFFD_EXACT), SINEW_OK);
    assert_int_equal(sinew_soffd_set_contributors(h, 0, (const uint32_t[]){0, 1}, 2), SINEW_OK);
    /* A pose stretching the tiny one-rings by 1e48: the vertex maps would overflow. */
    float stretched[18];
    octahedron(1e18f, (const float[3]){0, 0, 0}, stretched, idx);
    d = (sinew_points){stretched, 6, 0};
    memset(vframes, 0x5a, sizeof vframes);
    assert_int_equal(sinew_soffd_vertex_frames(h, &d, vframes, sinew_soffd_vertex_frames_size(h)), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "driver vertex 0"));
    for (size_t i = 0; i < sizeof vframes / 4; ++i) assert_int_equal(((uint32_t *)vframes)[i], 0x5a5a5a5au);
    /* Element frames of that pose stay finite, and so does the deformation. */
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames, sinew_soffd_element_frames_size(h)), SINEW_OK);
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 0, 1), SINEW_OK);
    for (int i = 0; i < 3; ++i) assert_true(isfinite(out[i]));
    sinew_soffd_destroy(h);
}

/* ---- Item 10: precision away from the origin --------------------------- */

/* Half a float ulp of x: the rounding any float output of x carries. */
static double half_ulp(double x)
{
    float f = (float)fabs(x);
    return 0.5 * ((double)nextafterf(f, INFINITY) - f);
}

/* The paper's formula in double on the same float inputs and the library's
 * own contributing sets and weights (renormalised in double). */
static void reference_basic(const sinew_soffd *h, const float *rest, const float *now, const uint32_t *tris,
                            const float *p, size_t point, double out[3], uint32_t *e, float *w, size_t cap)
{
    size_t n;
    assert_int_equal(sinew_soffd_contributor_count(h, point, &n), SINEW_OK);
    assert_int_equal(sinew_soffd_contributors(h, point, e, w, cap, &(size_t){0}), SINEW_OK);
    double acc[3] = {0, 0, 0}, total = 0, pd[3];
    bf_load(p, pd);
    for (size_t j = 0; j < n; ++j) {
        const uint32_t *t = &tris[3 * e[j]];
        double a[3], b[3], c[3], fr[4][3], fd[4][3], x[3];
        bf_load(&rest[3 * t[0]], a), bf_load(&rest[3 * t[1]], b), bf_load(&rest[3 * t[2]], c);
        bf_frame(a, b, c, fr);
        bf_local(fr, pd, x);
        bf_load(&now[3 * t[0]], a), bf_load(&now[3 * t[1]], b), bf_load(&now[3 * t[2]], c);
        bf_frame(a, b, c, fd);
        for (int i = 0; i < 3; ++i) acc[i] += w[j] * (fd[3][i] + x[0] * fd[0][i] + x[1] * fd[1][i] + x[2] * fd[2][i]);
        total += w[j];
    }
    for (int i = 0; i < 3; ++i) out[i] = acc[i] / total;
}

/* Largest |out - ref| beyond the output's own rounding, in units of size. */
static double excess_error(const float *out, const double ref[3], double size)
{
    double e = 0;
    for (int i = 0; i < 3; ++i) e = fmax(e, fmax(fabs(out[i] - ref[i]) - half_ulp(ref[i]), 0) / size);
    return e;
}

/* Largest |out - ref| in units of size, output rounding included (for the printed table). */
static double raw_error(const float *out, const double ref[3], double size)
{
    double e = 0;
    for (int i = 0; i < 3; ++i) e = fmax(e, fabs(out[i] - ref[i]) / size);
    return e;
}

static void precision_holds_far_from_the_origin(void **state)
{
    (void)state;
    enum { N = 120 };
    cage c = make_cube_cage(24, 0); /* 6,912 triangles, a production-sized driver */
    const double diag = 2 * sqrt(3.0), dir[3] = {0.74, 0.52, 0.42};
    float *rest = malloc(3 * c.nv * sizeof(float)), *now = malloc(3 * c.nv * sizeof(float));
    float *skin0 = random_points(21, N, -1.3f, 1.3f), *skin = malloc(3 * N * sizeof(float));
    float *out = malloc(3 * N * sizeof(float)), *ef = malloc(16 * c.nt * sizeof(float));
    float *vf = malloc(16 * c.nv * sizeof(float));
    uint32_t *e = malloc(c.nt * sizeof(uint32_t));
    float *w = malloc(c.nt * sizeof(float));
    const double offsets[] = {0, 10, 100, 1000};
    double worst = 0;
    print_message("offset  policy  pose   basic      extended   (excess error / diagonal)\n");
    for (int oi = 0; oi < 4; ++oi) {
        double o[3];
        for (int k = 0; k < 3; ++k) o[k] = offsets[oi] * diag * dir[k];
        for (size_t v = 0; v < c.nv; ++v)
            for (int k = 0; k < 3; ++k) rest[3 * v + k] = (float)(c.pos[3 * v + k] + o[k]);
        for (size_t i = 0; i < N; ++i)
            for (int k = 0; k < 3; ++k) skin[3 * i + k] = (float)(skin0[3 * i + k] + o[k]);
        sinew_polymesh m = {{rest, c.nv, 0}, c.tris, NULL, c.nt, SINEW_INDEX_U32};
        sinew_soffd *h = NULL;
        assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_OK);
        for (int exact = 1; exact >= 0; --exact) {
            sinew_points s = {skin, N, 0};
            sinew_soffd_register_desc pol = {sizeof(sinew_soffd_register_desc), exact ? 0.0f : 1e-3f,
                                                   exact ? 0u : SOFFD_NO_CAP, 0, 0, exact};
            assert_int_equal(sinew_soffd_register(NULL, h, &s, &pol), SINEW_OK);
            for (int pose = 0; pose < 2; ++pose) {
                /* pose 0: rest; pose 1: a rotation about the model's centre and a translation. */
                float mtx[16];
                double rot[3][3];
                {
                    double ax[3] = {0.3, -0.8, 0.5}, l = sqrt(0.98), an = pose ? 1.1 : 0, cs = cos(an), sn = sin(an);
                    for (int k = 0; k < 3; ++k) ax[k] /= l;
                    for (int i = 0; i < 3; ++i)
                        for (int j = 0; j < 3; ++j) {
                            double cross = 0;
                            if (i != j) {
                                int kk = 3 - i - j;
                                double sign = ((i + 1) % 3 == j) ? -1 : 1;
                                cross = sign * ax[kk];
                            }
                            rot[i][j] = (i == j ? cs : 0) + (1 - cs) * ax[i] * ax[j] + sn * cross;
                        }
                }
                const double shift[3] = {pose ? 0.3 * diag : 0, pose ? -0.2 * diag : 0, pose ? 0.1 * diag : 0};
                memset(mtx, 0, sizeof mtx);
                for (int i = 0; i < 3; ++i) {
                    double t = o[i] + shift[i];
                    /* Every entry passes through a volatile float: GCC 12 at -O3 vectorises
                     * these loops, then folds a vector double -> float -> double round trip
                     * (here through mtx's memory) into the unrounded double, so the reference
                     * below would not use the floats the library is handed. */
                    for (int j = 0; j < 3; ++j) {
                        volatile float entry = (float)rot[i][j];
                        mtx[4 * j + i] = entry;
                        t -= (double)entry * o[j];
                    }
                    volatile float translation = (float)t;
                    mtx[12 + i] = translation;
                }
                mtx[15] = 1;
                for (size_t v = 0; v < c.nv; ++v)
                    for (int i = 0; i < 3; ++i) {
                        double x = shift[i] + o[i];
                        for (int j = 0; j < 3; ++j) x += rot[i][j] * ((double)rest[3 * v + j] - o[j]);
                        now[3 * v + i] = (float)x;
                    }
                sinew_points d = {now, c.nv, 0};
                assert_int_equal(sinew_soffd_element_frames(h, &d, ef, sinew_soffd_element_frames_size(h)), SINEW_OK);
                assert_int_equal(sinew_soffd_deform(h, ef, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 0, N), SINEW_OK);
                double err_basic = 0, err_ext = 0, raw_basic = 0, raw_ext = 0;
                for (size_t i = 0; i < N; ++i) {
                    double ref[3];
                    reference_basic(h, rest, now, c.tris, &skin[3 * i], i, ref, e, w, c.nt);
                    err_basic = fmax(err_basic, excess_error(&out[3 * i], ref, diag));
                    raw_basic = fmax(raw_basic, raw_error(&out[3 * i], ref, diag));
                }
                /* Extended: the same float map at every driver vertex (as a rigidly
                 * skinned driver hands in), so the formula gives M P exactly. */
                for (size_t v = 0; v < c.nv; ++v) memcpy(&vf[16 * v], mtx, sizeof mtx);
                assert_int_equal(sinew_soffd_deform_extended(h, vf, sinew_soffd_vertex_frames_size(h), NULL, out, 0, NULL, 0, 0, N), SINEW_OK);
                for (size_t i = 0; i < N; ++i) {
                    double ref[3];
                    const float *p = &skin[3 * i];
                    for (int r = 0; r < 3; ++r)
                        ref[r] = (double)mtx[r] * p[0] + (double)mtx[4 + r] * p[1] + (double)mtx[8 + r] * p[2] +
                                 mtx[12 + r];
                    err_ext = fmax(err_ext, excess_error(&out[3 * i], ref, diag));
                    raw_ext = fmax(raw_ext, raw_error(&out[3 * i], ref, diag));
                }
                if (pose == 0) {
                    /* The library's own one-ring maps at rest: identity to rounding. */
                    assert_int_equal(sinew_soffd_vertex_frames(h, &d, vf, sinew_soffd_vertex_frames_size(h)), SINEW_OK);
                    assert_int_equal(sinew_soffd_deform_extended(h, vf, sinew_soffd_vertex_frames_size(h), NULL, out, 0, NULL, 0, 0, N), SINEW_OK);
                    for (size_t i = 0; i < N; ++i) {
                        double ref[3];
                        bf_load(&skin[3 * i], ref);
                        err_ext = fmax(err_ext, excess_error(&out[3 * i], ref, diag));
                        raw_ext = fmax(raw_ext, raw_error(&out[3 * i], ref, diag));
                    }
                }
                print_message("%6g  %-6s  %-5s  %.2e   %.2e   (with output rounding: %.2e, %.2e)\n", offsets[oi],
                              exact ? "exact" : "1e-3", pose ? "rigid" : "rest", err_basic, err_ext, raw_basic,
                              raw_ext);
                worst = fmax(worst, fmax(err_basic, err_ext));
            }
        }
        sinew_soffd_destroy(h);
    }
    assert_true(worst <= 1e-6);
    free(rest), free(now), free(skin0), free(skin), free(out), free(ef), free(vf), free(e), free(w);
    cage_free(&c);
}

/* ---- Identity at the bind pose, thin elements included ------------------ */

/* A driver posed exactly as it was bound gives every registered point back
 * bit for bit, through both algorithms, for every element bind accepts:
 * here one-triangle drivers as thin as bind allows in three shapes (a
 * needle whose short edge is opposite the first corner, one whose short
 * edge starts at it, and a cap, nearly collinear with an obtuse corner),
 * whose local coordinates reach thousands of edge lengths. */
static void bind_pose_is_identity_for_thin_elements(void **state)
{
    (void)state;
    const float drivers[3][9] = {
        {-4.1f, 1.7f, -18.9f, 0.6f, 2.9f, -18.3f, 0.6001f, 2.89953f, -18.2999f},
        {0.6f, 2.9f, -18.3f, 0.6001f, 2.89953f, -18.2999f, -4.1f, 1.7f, -18.9f},
        {-4.1f, 1.7f, -18.9f, 0.81f, 2.9f, -18.3f, -1.645f, 2.30049f, -18.6f},
    };
    enum { N = 64 };
    float *pts = random_points(7, N, -30.0f, 30.0f);
    pts[0] = -5.41f, pts[1] = 0.0f, pts[2] = -23.44f; /* the point of the report */
    float out[3 * N], frames[16], vframes[48];
    for (int d = 0; d < 3; ++d) {
        const uint32_t tri[3] = {0, 1, 2}, size = 3;
        sinew_polymesh m = {{drivers[d], 3, 0}, tri, &size, 1, SINEW_INDEX_U32};
        sinew_soffd *h = NULL;
        assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_OK);
        sinew_points s = {pts, N, 0}, now = {drivers[d], 3, 0};
        assert_int_equal(sinew_soffd_register(NULL, h, &s, SOFFD_EXACT), SINEW_OK);
        assert_int_equal(sinew_soffd_element_frames(h, &now, frames, sinew_soffd_element_frames_size(h)), SINEW_OK);
        assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 0, N), SINEW_OK);
        double worst = 0;
        for (int i = 0; i < 3 * N; ++i) worst = fmax(worst, fabs((double)out[i] - pts[i]));
        assert_int_equal(sinew_soffd_vertex_frames(h, &now, vframes, sinew_soffd_vertex_frames_size(h)), SINEW_OK);
        assert_int_equal(sinew_soffd_deform_extended(h, vframes, sinew_soffd_vertex_frames_size(h), NULL, out + 0, 0, NULL, 0, 0, N), SINEW_OK);
        double worst_ext = 0;
        for (int i = 0; i < 3 * N; ++i) worst_ext = fmax(worst_ext, fabs((double)out[i] - pts[i]));
        print_message("driver %d: largest move at the bind pose %.3g (basic), %.3g (extended)\n", d, worst,
                      worst_ext);
        assert_true(worst == 0 && worst_ext == 0);
        sinew_soffd_destroy(h);
    }
    free(pts);
}

/* The basic algorithm's exact bind pose survives every change to the
 * contributing sets (an exclusion, a replaced set, an emptied one),
 * re-registration against a moved reference, and save and load. */
static void bind_pose_is_identity_after_edits(void **state)
{
    (void)state;
    enum { N = 50 };
    cage c = make_cube_cage(3, 0);
    sinew_polymesh m = cage_polymesh(&c, NULL);
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_OK);
    float *pts = random_points(41, N, -1.5f, 1.5f), out[3 * N];
    float *frames = malloc(16 * c.nt * sizeof(float)), *moved = malloc(3 * c.nv * sizeof(float));
    uint8_t *excluded = calloc(c.nt, 1);
    for (size_t k = 0; k < c.nt; k += 3) excluded[k] = 1;
    sinew_points s = {pts, N, 0};
    sinew_soffd_register_desc pol = {sizeof pol, 1e-3f, SOFFD_NO_CAP, 0, 0, 0};
    assert_int_equal(sinew_soffd_register(NULL, h, &s, &pol), SINEW_OK);
    assert_int_equal(sinew_soffd_exclude_elements(h, excluded, c.nt, 0, N / 2), SINEW_OK);
    const uint32_t set[2] = {4, 17};
    assert_int_equal(sinew_soffd_set_contributors(h, 3, set, 2), SINEW_OK);
    assert_int_equal(sinew_soffd_set_contributors(h, 7, NULL, 0), SINEW_OK);
    for (int step = 0; step < 3; ++step) {
        const float *rest = c.pos;
        if (step == 1) {
            /* A new reference: the driver's rest shape, bent. */
            bend_twist(c.pos, moved, c.nv, 0.3f);
            sinew_points r = {moved, c.nv, 0};
            assert_int_equal(sinew_soffd_set_reference(NULL, h, &r), SINEW_OK);
        }
        if (step >= 1) rest = moved;
        if (step == 2) {
            size_t size = 0;
            assert_int_equal(sinew_soffd_save(h, NULL, 0, &size), SINEW_OK);
            void *buf = malloc(size);
            assert_int_equal(sinew_soffd_save(h, buf, size, &size), SINEW_OK);
            sinew_soffd_destroy(h);
            h = NULL;
            assert_int_equal(sinew_soffd_load(NULL, buf, size, &h), SINEW_OK);
            free(buf);
        }
        sinew_points d = {rest, c.nv, 0};
        assert_int_equal(sinew_soffd_element_frames(h, &d, frames, sinew_soffd_element_frames_size(h)), SINEW_OK);
        assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 0, N), SINEW_OK);
        assert_memory_equal(out, pts, sizeof out);
    }
    sinew_soffd_destroy(h);
    free(pts), free(frames), free(moved), free(excluded);
    cage_free(&c);
}

/* ---- Positions do not depend on the other outputs asked for ------------- */

/* One pose call's positions for points [first, first + count), written at
 * out + i * stride floats, with or without normals. */
static void pose_call(const sinew_soffd *h, int extended, const float *frames, const sinew_points *normals,
                      float *out, size_t stride, float *out_normals, size_t first, size_t count)
{
    sinew_result r = extended ? sinew_soffd_deform_extended(h, frames, sinew_soffd_vertex_frames_size(h), normals, out, stride * sizeof(float),
                                                            out_normals, 0, first, count)
                              : sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), normals, out, stride * sizeof(float), out_normals, 0,
                                                   first, count);
    assert_int_equal(r, SINEW_OK);
}

/* Both deform calls write the same position bits for every point whether
 * normals are asked for or not, at any output stride, and however the range
 * is split (whole, in uneven pieces, one point at a time), for a pruned
 * registration (one float block per point) and an exact one (blocks summed
 * in double). soffd has no run-time kernel choice: one code path per call. */
static void positions_do_not_depend_on_other_outputs(void **state)
{
    (void)state;
    enum { N = 97 };
    cage c = make_cube_cage(6, 0);
    sinew_polymesh m = cage_polymesh(&c, NULL);
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_OK);
    float *skin = random_points(31, N, -1.4f, 1.4f), *nrm = random_points(32, N, -1.0f, 1.0f);
    float *now = malloc(3 * c.nv * sizeof(float)), *ef = malloc(16 * c.nt * sizeof(float));
    float *vf = malloc(16 * c.nv * sizeof(float));
    bend_twist(c.pos, now, c.nv, 0.7f);
    sinew_points d = {now, c.nv, 0}, normals = {nrm, N, 0};
    assert_int_equal(sinew_soffd_element_frames(h, &d, ef, sinew_soffd_element_frames_size(h)), SINEW_OK);
    assert_int_equal(sinew_soffd_vertex_frames(h, &d, vf, sinew_soffd_vertex_frames_size(h)), SINEW_OK);
    float base[3 * N], with_normals[3 * N], out_normals[3 * N], strided[5 * N], pieces[3 * N];
    const size_t cuts[] = {0, 1, 13, 14, 50, 96, N};
    for (int exact = 0; exact < 2; ++exact) {
        sinew_points s = {skin, N, 0};
        sinew_soffd_register_desc pol = {sizeof pol, exact ? 0.0f : 1e-3f, exact ? 0u : SOFFD_NO_CAP, 0, 0, exact};
        assert_int_equal(sinew_soffd_register(NULL, h, &s, &pol), SINEW_OK);
        for (int extended = 0; extended < 2; ++extended) {
            const float *frames = extended ? vf : ef;
            pose_call(h, extended, frames, NULL, base, 3, NULL, 0, N);
            pose_call(h, extended, frames, &normals, with_normals, 3, out_normals, 0, N);
            assert_memory_equal(base, with_normals, sizeof base);
            pose_call(h, extended, frames, NULL, strided, 5, NULL, 0, N);
            for (size_t i = 0; i < N; ++i) assert_memory_equal(&strided[5 * i], &base[3 * i], 3 * sizeof(float));
            memset(pieces, 0, sizeof pieces);
            for (size_t k = 0; k + 1 < sizeof cuts / sizeof cuts[0]; ++k)
                pose_call(h, extended, frames, k % 2 ? &normals : NULL, pieces, 3, k % 2 ? out_normals : NULL,
                          cuts[k], cuts[k + 1] - cuts[k]);
            assert_memory_equal(base, pieces, sizeof base);
            for (size_t i = 0; i < N; ++i) {
                pose_call(h, extended, frames, i % 3 ? NULL : &normals, pieces, 3, i % 3 ? NULL : out_normals, i, 1);
                assert_memory_equal(&pieces[3 * i], &base[3 * i], 3 * sizeof(float));
            }
        }
    }
    sinew_soffd_destroy(h);
    free(skin), free(nrm), free(now), free(ef), free(vf);
    cage_free(&c);
}

/* The pose calls' frame checks (one vectorised pass over all frames) name the
 * first frame with any entry of rows 0-2 out of range or not finite, for
 * every entry and several frames, leave the output untouched, and ignore the
 * bottom row, which the kernels never read. */
static void frame_checks_name_every_entry(void **state)
{
    (void)state;
    cage c = make_cube_cage(2, 0);
    sinew_polymesh m = cage_polymesh(&c, NULL);
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_OK);
    float p[3] = {0.1f, 0.2f, 1.3f};
    sinew_points s = {p, 1, 0};
    assert_int_equal(sinew_soffd_register(NULL, h, &s, SOFFD_EXACT), SINEW_OK);
    sinew_points d = {c.pos, c.nv, 0};
    float *frames = malloc(16 * c.nt * sizeof(float)), *vframes = malloc(16 * c.nv * sizeof(float));
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames, sinew_soffd_element_frames_size(h)), SINEW_OK);
    assert_int_equal(sinew_soffd_vertex_frames(h, &d, vframes, sinew_soffd_vertex_frames_size(h)), SINEW_OK);
    float out[3];
    char want[64];
    const size_t which[3] = {0, c.nt / 2, c.nt - 1};
    for (int w = 0; w < 3; ++w)
        for (int i = 0; i < 16; ++i) {
            float *e = &frames[16 * which[w] + (size_t)i], *v = &vframes[16 * (which[w] % c.nv) + (size_t)i];
            float keep_e = *e, keep_v = *v;
            /* beyond each limit (edges 2^61, normal 2, origin 2^60; linear 2^62, translation 2^126), then NaN */
            float big_e = i < 8 ? 5e18f : i < 12 ? 2.5f : 2e18f, big_v = i < 12 ? 1e19f : 1e38f;
            for (int kind = 0; kind < 2; ++kind) {
                *e = kind ? NAN : big_e;
                *v = kind ? NAN : big_v;
                memset(out, 0x5a, sizeof out);
                sinew_result r = sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 0, 1);
                if (i % 4 == 3) {
                    assert_int_equal(r, SINEW_OK);
                } else {
                    assert_int_equal(r, SINEW_ERROR_OUTSIDE_DOMAIN);
                    snprintf(want, sizeof want, "element %zu ", which[w]);
                    assert_non_null(strstr(sinew_last_error(), want));
                    for (int k = 0; k < 3; ++k) assert_int_equal(((uint32_t *)out)[k], 0x5a5a5a5au);
                }
                r = sinew_soffd_deform_extended(h, vframes, sinew_soffd_vertex_frames_size(h), NULL, out, 0, NULL, 0, 0, 1);
                if (i % 4 == 3) {
                    assert_int_equal(r, SINEW_OK);
                } else {
                    assert_int_equal(r, SINEW_ERROR_OUTSIDE_DOMAIN);
                    snprintf(want, sizeof want, "driver vertex %zu ", which[w] % c.nv);
                    assert_non_null(strstr(sinew_last_error(), want));
                }
            }
            *e = keep_e, *v = keep_v;
        }
    assert_int_equal(sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 0, 1), SINEW_OK);
    assert_int_equal(sinew_soffd_deform_extended(h, vframes, sinew_soffd_vertex_frames_size(h), NULL, out, 0, NULL, 0, 0, 1), SINEW_OK);
    free(frames), free(vframes);
    sinew_soffd_destroy(h);
    cage_free(&c);
}

/* sinew_soffd_vertex_frames skips its separate domain pass when a bind-time
 * bound (linear entries at most a constant times the driver's extent) proves
 * every map in range. A far unreferenced vertex makes the extent huge, so the
 * bound no longer holds and the checked path runs: it succeeds, and the maps
 * of the referenced vertices are bit for bit those of the shortcut. */
static void vertex_frames_shortcut_matches_the_checked_path(void **state)
{
    (void)state;
    cage c = make_cube_cage(2, 0);
    size_t nv = c.nv + 1;
    float *pos = malloc(3 * nv * sizeof(float)), *now = malloc(3 * nv * sizeof(float));
    memcpy(pos, c.pos, 3 * c.nv * sizeof(float));
    pos[3 * c.nv] = pos[3 * c.nv + 1] = pos[3 * c.nv + 2] = 0; /* unreferenced */
    sinew_polymesh m = {{pos, nv, 0}, c.tris, NULL, c.nt, SINEW_INDEX_U32};
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &m, NULL, &h), SINEW_OK);
    bend_twist(pos, now, nv, 0.7f);
    float *near = malloc(16 * nv * sizeof(float)), *far = malloc(16 * nv * sizeof(float));
    sinew_points d = {now, nv, 0};
    now[3 * c.nv] = now[3 * c.nv + 1] = now[3 * c.nv + 2] = 0;
    assert_int_equal(sinew_soffd_vertex_frames(h, &d, near, sinew_soffd_vertex_frames_size(h)), SINEW_OK);
    now[3 * c.nv] = 5e17f; /* 2^58.8: inside the domain, far beyond the bound's reach */
    assert_int_equal(sinew_soffd_vertex_frames(h, &d, far, sinew_soffd_vertex_frames_size(h)), SINEW_OK);
    assert_memory_equal(near, far, 16 * c.nv * sizeof(float));
    for (int i = 0; i < 16; ++i) assert_true(isfinite(far[16 * c.nv + (size_t)i]));
    sinew_soffd_destroy(h);
    free(pos), free(now), free(near), free(far);
    cage_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frames_of_the_wrong_size_are_refused),
        cmocka_unit_test(huge_counts_fail_before_reading),
        cmocka_unit_test(far_points_keep_finite_weights),
        cmocka_unit_test(coordinates_beyond_the_domain_are_named),
        cmocka_unit_test(precision_holds_far_from_the_origin),
        cmocka_unit_test(bind_pose_is_identity_for_thin_elements),
        cmocka_unit_test(bind_pose_is_identity_after_edits),
        cmocka_unit_test(positions_do_not_depend_on_other_outputs),
        cmocka_unit_test(frame_checks_name_every_entry),
        cmocka_unit_test(vertex_frames_shortcut_matches_the_checked_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
