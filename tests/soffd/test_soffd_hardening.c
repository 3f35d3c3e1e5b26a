/* Regression tests of issue 10 (hardening) for surface-oriented FFD: size
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
    sinew_polymesh m = {{tri_pos, 3, 0}, tri_idx, NULL, 1};
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_bind(NULL, &m, desc, &h), SINEW_OK);
    return h;
}

/* ---- Item 4: size products -------------------------------------------- */

static void huge_counts_fail_before_reading(void **state)
{
    (void)state;
    sinew_soffd *h = (sinew_soffd *)&h, *const sentinel = h;
    /* face_count * 3 fits in size_t, but not in bytes: the indices cannot exist. */
    sinew_polymesh m = {{tri_pos, 3, 0}, tri_idx, NULL, SIZE_MAX / 3};
    assert_int_equal(sinew_soffd_bind(NULL, &m, NULL, &h), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "driver triangles overflow"));
    m.face_count = SIZE_MAX / 12 + 1;
    assert_int_equal(sinew_soffd_bind(NULL, &m, NULL, &h), SINEW_ERROR_SIZE_OVERFLOW);
    /* face_sizes of SIZE_MAX / 2 entries cannot exist either. */
    const uint32_t sizes[] = {3};
    m.face_sizes = sizes;
    m.face_count = SIZE_MAX / 2;
    assert_int_equal(sinew_soffd_bind(NULL, &m, NULL, &h), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "face_sizes"));
    assert_ptr_equal(h, sentinel);

    h = bind_triangle(NULL);
    const float skin[] = {0.2f, 0.2f, 0.1f, 0.3f, 0.3f, 0.2f, 0.1f, 0.5f, -0.2f};
    sinew_points s = {skin, 3, 0};
    assert_int_equal(sinew_soffd_register(h, &s, NULL), SINEW_OK);
    /* A set longer than the element count is read no further than needed. */
    const uint32_t one = 0;
    assert_int_equal(sinew_soffd_set_contributors(h, 1, &one, SIZE_MAX), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "skin point 1"));
    assert_int_equal(sinew_soffd_set_contributors(h, 1, &one, 2), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "skin point 1"));
    /* An output stride whose last point lies past the address space. */
    float frames[16], out[9];
    sinew_points d = {tri_pos, 3, 0};
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames), SINEW_OK);
    size_t stride = (SIZE_MAX / 8) * 4;
    assert_int_equal(sinew_soffd_deform(h, frames, out, stride, 0, 3), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "point 2"));
    assert_int_equal(sinew_soffd_deform_extended(h, frames, out, stride, 1, 2), SINEW_ERROR_SIZE_OVERFLOW);
    assert_int_equal(sinew_soffd_deform(h, frames, out, stride, 0, 1), SINEW_OK); /* point 0 is at out */
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
        assert_int_equal(sinew_soffd_get_contributors(h, i, e, w, 8), SINEW_OK);
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
    sinew_soffd *h = bind_triangle(&(sinew_soffd_desc){100, 0, 0});
    const float far[] = {1e6f, 0, 0, 0.25f, 0.25f, 3e5f, -4e5f, 2e5f, 1};
    sinew_points s = {far, 3, 0};
    assert_int_equal(sinew_soffd_register(h, &s, NULL), SINEW_OK);
    assert_weights_sum_to_one(h, 3);
    float moved[9], frames[16], out[9];
    for (int i = 0; i < 9; ++i) moved[i] = tri_pos[i] + (i % 3 == 1 ? 2.0f : 0.0f);
    sinew_points d = {moved, 3, 0};
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames), SINEW_OK);
    assert_int_equal(sinew_soffd_deform(h, frames, out, 0, 0, 3), SINEW_OK);
    for (int i = 0; i < 9; ++i) assert_float_equal(out[i], far[i] + (i % 3 == 1 ? 2.0f : 0.0f), 0.07);
    sinew_soffd_destroy(h);

    /* An octahedron at local = 40 and points 1e15 away (t = 1e600), pruned and exact. */
    float pos[18];
    uint32_t idx[24];
    octahedron(1, (const float[3]){0, 0, 0}, pos, idx);
    sinew_polymesh m = {{pos, 6, 0}, idx, NULL, 8};
    assert_int_equal(sinew_soffd_bind(NULL, &m, &(sinew_soffd_desc){40, 0, 0}, &h), SINEW_OK);
    const float pts[] = {1e15f, 0, 0, 3e14f, -2e14f, 1e15f, 0.1f, 0.2f, 1e17f};
    s = (sinew_points){pts, 3, 0};
    const sinew_soffd_register_desc policies[] = {{0}, {1e-3f, 0, 0, 0}, {0, 2, 0, 0}};
    for (int k = 0; k < 3; ++k) {
        assert_int_equal(sinew_soffd_register(h, &s, &policies[k]), SINEW_OK);
        assert_weights_sum_to_one(h, 3);
        float of[16 * 8], vf[16 * 6], o[9];
        d = (sinew_points){pos, 6, 0};
        assert_int_equal(sinew_soffd_element_frames(h, &d, of), SINEW_OK);
        assert_int_equal(sinew_soffd_deform(h, of, o, 0, 0, 3), SINEW_OK);
        assert_close_to_points(o, pts, 3);
        assert_int_equal(sinew_soffd_vertex_frames(h, &d, vf), SINEW_OK);
        assert_int_equal(sinew_soffd_deform_extended(h, vf, o, 0, 0, 3), SINEW_OK);
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
    sinew_polymesh m = {{pos, 6, 0}, idx, NULL, 8};
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_bind(NULL, &m, NULL, &h), SINEW_OK);
    /* Skin points far beyond 2^60: named, and the earlier registration kept. */
    const float ok_pts[] = {0.1f, 0.2f, 2};
    sinew_points s = {ok_pts, 1, 0};
    assert_int_equal(sinew_soffd_register(h, &s, NULL), SINEW_OK);
    const float far[] = {0, 0, 0, 1e38f, 0, 0};
    s = (sinew_points){far, 2, 0};
    assert_int_equal(sinew_soffd_register(h, &s, NULL), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "skin point 1 has coordinate x = 1e+38"));
    const float far2[] = {2e19f, 0, 0};
    s = (sinew_points){far2, 1, 0};
    assert_int_equal(sinew_soffd_register(h, &s, &(sinew_soffd_register_desc){1e-3f, 0, 0, 0}),
                     SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "skin point 0"));
    sinew_soffd_info info;
    assert_int_equal(sinew_soffd_get_info(h, &info), SINEW_OK);
    assert_int_equal(info.point_count, 1);

    /* A pose near FLT_MAX: e1 = B - A would overflow float. */
    float pose[18], frames[16 * 8], vframes[16 * 6], out[3];
    memcpy(pose, pos, sizeof pose);
    pose[0] = 3e38f, pose[3] = -3e38f;
    sinew_points d = {pose, 6, 0};
    memset(frames, 0x5a, sizeof frames);
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "driver vertex 0"));
    assert_int_equal(sinew_soffd_vertex_frames(h, &d, vframes), SINEW_ERROR_OUTSIDE_DOMAIN);
    for (size_t i = 0; i < sizeof frames / 4; ++i) assert_int_equal(((uint32_t *)frames)[i], 0x5a5a5a5au);
    /* A driver bound near FLT_MAX. */
    sinew_soffd *h2 = NULL;
    sinew_polymesh big = {{pose, 6, 0}, idx, NULL, 8};
    assert_int_equal(sinew_soffd_bind(NULL, &big, NULL, &h2), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "driver vertex 0"));
    sinew_points refp = {pose, 6, 0};
    assert_int_equal(sinew_soffd_set_reference(h, &refp), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "reference vertex 0"));

    /* Finite frames from elsewhere whose products overflow: named, output untouched. */
    d = (sinew_points){pos, 6, 0};
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames), SINEW_OK);
    frames[16 * 3 + 0] = 1e30f;
    memset(out, 0x5a, sizeof out);
    assert_int_equal(sinew_soffd_deform(h, frames, out, 0, 0, 1), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "element 3"));
    for (int i = 0; i < 3; ++i) assert_int_equal(((uint32_t *)out)[i], 0x5a5a5a5au);
    assert_int_equal(sinew_soffd_vertex_frames(h, &d, vframes), SINEW_OK);
    vframes[16 * 4 + 5] = 1e30f;
    assert_int_equal(sinew_soffd_deform_extended(h, vframes, out, 0, 0, 1), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "driver vertex 4"));
    vframes[16 * 4 + 5] = 1;
    vframes[16 * 2 + 13] = 3e38f;
    assert_int_equal(sinew_soffd_deform_extended(h, vframes, out, 0, 0, 1), SINEW_ERROR_OUTSIDE_DOMAIN);
    for (int i = 0; i < 3; ++i) assert_int_equal(((uint32_t *)out)[i], 0x5a5a5a5au);
    sinew_soffd_destroy(h);

    /* A tiny driver and a point far from it: local coordinates beyond 2^62
     * (with a float of them, u * x, overflowing). */
    float tiny[18];
    octahedron(1e-30f, (const float[3]){0, 0, 0}, tiny, idx);
    sinew_polymesh tm = {{tiny, 6, 0}, idx, NULL, 8};
    assert_int_equal(sinew_soffd_bind(NULL, &tm, NULL, &h), SINEW_OK);
    const float away[] = {0, 0, 1e-30f, 1e15f, 1e15f, 0};
    s = (sinew_points){away, 2, 0};
    assert_int_equal(sinew_soffd_register(h, &s, NULL), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "skin point 1 lies"));
    s.count = 1;
    assert_int_equal(sinew_soffd_register(h, &s, NULL), SINEW_OK);
    assert_int_equal(sinew_soffd_set_contributors(h, 0, (const uint32_t[]){0, 1}, 2), SINEW_OK);
    /* A pose stretching the tiny one-rings by 1e48: the vertex maps would overflow. */
    float stretched[18];
    octahedron(1e18f, (const float[3]){0, 0, 0}, stretched, idx);
    d = (sinew_points){stretched, 6, 0};
    memset(vframes, 0x5a, sizeof vframes);
    assert_int_equal(sinew_soffd_vertex_frames(h, &d, vframes), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "driver vertex 0"));
    for (size_t i = 0; i < sizeof vframes / 4; ++i) assert_int_equal(((uint32_t *)vframes)[i], 0x5a5a5a5au);
    /* Element frames of that pose stay finite, and so does the deformation. */
    assert_int_equal(sinew_soffd_element_frames(h, &d, frames), SINEW_OK);
    assert_int_equal(sinew_soffd_deform(h, frames, out, 0, 0, 1), SINEW_OK);
    for (int i = 0; i < 3; ++i) assert_true(isfinite(out[i]));
    sinew_soffd_destroy(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(huge_counts_fail_before_reading),
        cmocka_unit_test(far_points_keep_finite_weights),
        cmocka_unit_test(coordinates_beyond_the_domain_are_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
