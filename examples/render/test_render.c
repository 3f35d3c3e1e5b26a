/* The examples' rasteriser on closed-form cases: which pixels a triangle
 * covers, which of two overlapping triangles the depth test keeps, how
 * samples average into pixels, the unique edges of a mesh, the colour map's
 * rising lightness, and byte-identical PNGs from identical canvases. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "render.h"

static const float RED[3] = {1, 0, 0}, GREEN[3] = {0, 1, 0}, BLUE[3] = {0, 0, 1};

/* A view of panel 0 where world (X, Y) lands on pixel coordinates
 * (X, size - Y): the fit of [0, size]^2 into a size x size panel, no margins. */
static void unit_view(render_view *v, const render_canvas *c, float size)
{
    static const float right[3] = {1, 0, 0}, up[3] = {0, 1, 0};
    render_view_axes(v, right, up);
    const float corners[6] = {0, 0, 0, size, size, 0};
    render_view_include(v, corners, 2);
    render_view_fit(v, c, 0, 0, 0);
}

static void test_view_fit_maps_the_box_onto_the_panel(void **state)
{
    (void)state;
    render_canvas c;
    assert_true(render_canvas_create(&c, 8, 8, 1, 1, 1));
    render_view v;
    unit_view(&v, &c, 8);
    assert_float_equal(v.scale, 1.0f, 0.0f);
    assert_float_equal(v.origin_x, 0.0f, 0.0f);
    assert_float_equal(v.origin_y, 8.0f, 0.0f);
    render_canvas_destroy(&c);
}

/* The triangle (0, 0), (8, 0), (0, 8) covers the pixel centres (x + 0.5,
 * 7.5 - y) with X + Y <= 8, that is x <= y; the hypotenuse passes exactly
 * through the centres with x == y, which the inclusive rule keeps. */
static void test_triangle_covers_the_closed_form_pixels(void **state)
{
    (void)state;
    render_canvas c;
    assert_true(render_canvas_create(&c, 8, 8, 1, 1, 1));
    render_view v;
    unit_view(&v, &c, 8);
    const float p[9] = {0, 0, 0, 8, 0, 0, 0, 8, 0};
    const uint32_t t[3] = {0, 1, 2};
    render_mesh m = {p, 3, t, 1, NULL, {RED[0], RED[1], RED[2]}, RENDER_UNLIT};
    assert_true(render_draw_mesh(&c, &v, &m));
    unsigned char *px = render_pixels(&c);
    assert_non_null(px);
    int covered = 0;
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x) {
            const unsigned char *q = px + 3 * (8 * y + x);
            bool red = q[0] == 255 && q[1] == 0 && q[2] == 0, white = q[0] == 255 && q[1] == 255 && q[2] == 255;
            assert_true(x <= y ? red : white);
            covered += red;
        }
    assert_int_equal(covered, 36);
    free(px);
    render_canvas_destroy(&c);
}

/* Reversed winding covers the same pixels (both sides drawn). */
static void test_winding_does_not_matter(void **state)
{
    (void)state;
    render_canvas a, b;
    assert_true(render_canvas_create(&a, 8, 8, 1, 1, 1));
    assert_true(render_canvas_create(&b, 8, 8, 1, 1, 1));
    render_view v;
    unit_view(&v, &a, 8);
    const float p[9] = {1, 1, 0, 7, 2, 0, 3, 6, 0};
    const uint32_t ccw[3] = {0, 1, 2}, cw[3] = {0, 2, 1};
    render_mesh m = {p, 3, ccw, 1, NULL, {RED[0], RED[1], RED[2]}, RENDER_UNLIT};
    assert_true(render_draw_mesh(&a, &v, &m));
    m.triangles = cw;
    assert_true(render_draw_mesh(&b, &v, &m));
    assert_memory_equal(a.rgb, b.rgb, 3 * 64 * sizeof(float));
    assert_true(a.rgb[3 * (8 * 4 + 3)] == 1.0f && a.rgb[3 * (8 * 4 + 3) + 1] == 0.0f); /* (3.5, 3.5) is inside */
    render_canvas_destroy(&a);
    render_canvas_destroy(&b);
}

/* Two squares over the whole panel, the green one nearer the viewer (larger
 * Z: the view looks down -Z): green wins whichever is drawn first. */
static void test_nearer_triangle_wins_in_either_order(void **state)
{
    (void)state;
    for (int order = 0; order < 2; ++order) {
        render_canvas c;
        assert_true(render_canvas_create(&c, 8, 8, 1, 1, 1));
        render_view v;
        unit_view(&v, &c, 8);
        const float near[12] = {0, 0, 1, 8, 0, 1, 8, 8, 1, 0, 8, 1}, far[12] = {0, 0, -1, 8, 0, -1, 8, 8, -1, 0, 8, -1};
        const uint32_t quad[6] = {0, 1, 2, 0, 2, 3};
        render_mesh g = {near, 4, quad, 2, NULL, {GREEN[0], GREEN[1], GREEN[2]}, RENDER_UNLIT};
        render_mesh b = {far, 4, quad, 2, NULL, {BLUE[0], BLUE[1], BLUE[2]}, RENDER_UNLIT};
        assert_true(render_draw_mesh(&c, &v, order ? &b : &g));
        assert_true(render_draw_mesh(&c, &v, order ? &g : &b));
        for (int i = 0; i < 64; ++i) {
            assert_true(c.rgb[3 * i] == 0.0f && c.rgb[3 * i + 1] == 1.0f && c.rgb[3 * i + 2] == 0.0f);
            assert_float_equal(c.depth[i], -1.0f, 0.0f);
        }
        render_canvas_destroy(&c);
    }
}

/* With 2 x 2 samples per pixel, a triangle covering the left half of a
 * pixel's samples averages to half red: (255 + 255) / 2, (0 + 255) / 2. */
static void test_samples_average_into_pixels(void **state)
{
    (void)state;
    render_canvas c;
    assert_true(render_canvas_create(&c, 1, 1, 1, 1, 2));
    render_view v;
    unit_view(&v, &c, 1);
    assert_float_equal(v.scale, 2.0f, 0.0f);
    /* Samples at x = 0.25 and 0.75 in world units; cover x < 0.5 only. */
    const float p[12] = {-1, -1, 0, 0.5f, -1, 0, 0.5f, 2, 0, -1, 2, 0};
    const uint32_t quad[6] = {0, 1, 2, 0, 2, 3};
    render_mesh m = {p, 4, quad, 2, NULL, {RED[0], RED[1], RED[2]}, RENDER_UNLIT};
    assert_true(render_draw_mesh(&c, &v, &m));
    unsigned char *px = render_pixels(&c);
    assert_non_null(px);
    assert_int_equal(px[0], 255);
    assert_int_equal(px[1], 128); /* 127.5 rounds to even: lrintf gives 128 */
    assert_int_equal(px[2], 128);
    free(px);
    render_canvas_destroy(&c);
}

static void test_lines_on_top_and_behind(void **state)
{
    (void)state;
    render_canvas c;
    assert_true(render_canvas_create(&c, 8, 8, 1, 1, 1));
    render_view v;
    unit_view(&v, &c, 8);
    const float wall[12] = {0, 0, 1, 8, 0, 1, 8, 8, 1, 0, 8, 1};
    const uint32_t quad[6] = {0, 1, 2, 0, 2, 3};
    render_mesh m = {wall, 4, quad, 2, NULL, {GREEN[0], GREEN[1], GREEN[2]}, RENDER_UNLIT};
    assert_true(render_draw_mesh(&c, &v, &m));
    /* A horizontal line through row 3 (Y = 4.5) behind the wall: hidden unless on top. */
    const float line[6] = {0.5f, 4.5f, -1, 7.5f, 4.5f, -1};
    render_draw_lines(&c, &v, line, NULL, 1, RED, 1, false);
    for (int i = 0; i < 64; ++i) assert_true(c.rgb[3 * i + 1] == 1.0f);
    render_draw_lines(&c, &v, line, NULL, 1, RED, 1, true);
    for (int x = 0; x < 8; ++x) assert_true(c.rgb[3 * (8 * 3 + x)] == 1.0f && c.rgb[3 * (8 * 3 + x) + 1] == 0.0f);
    for (int x = 0; x < 8; ++x) assert_true(c.rgb[3 * (8 * 2 + x) + 1] == 1.0f); /* the row above untouched */
    render_canvas_destroy(&c);
}

static void test_mesh_edges_are_unique(void **state)
{
    (void)state;
    const uint32_t t[6] = {0, 1, 2, 2, 1, 3}; /* two triangles sharing 1-2 */
    size_t n = 0;
    uint32_t *e = render_mesh_edges(t, 2, &n);
    assert_non_null(e);
    assert_int_equal(n, 5);
    const uint32_t expected[10] = {0, 1, 0, 2, 1, 2, 1, 3, 2, 3};
    assert_memory_equal(e, expected, sizeof expected);
    free(e);
}

/* Rec. 709 luma of the sRGB values rises strictly along the map (a
 * perceptual map has no lightness reversals), and the ends are dark and light. */
static void test_colormap_lightness_rises(void **state)
{
    (void)state;
    float prev = -1, rgb[3];
    for (int k = 0; k <= 100; ++k) {
        render_colormap((float)k / 100, rgb);
        float luma = 0.2126f * rgb[0] + 0.7152f * rgb[1] + 0.0722f * rgb[2];
        for (int d = 0; d < 3; ++d) assert_true(rgb[d] >= 0 && rgb[d] <= 1);
        assert_true(luma > prev);
        prev = luma;
    }
    render_colormap(0, rgb);
    assert_true(rgb[2] > rgb[1]); /* violet-blue end */
    assert_true(0.2126f * rgb[0] + 0.7152f * rgb[1] + 0.0722f * rgb[2] < 0.15f);
    render_colormap(1, rgb);
    assert_true(rgb[0] > rgb[2] && rgb[1] > rgb[2]); /* yellow end */
    assert_true(prev > 0.8f);
}

static unsigned char *read_all(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)*size);
    if (b && fread(b, 1, (size_t)*size, f) != (size_t)*size) free(b), b = NULL;
    fclose(f);
    return b;
}

static void test_png_is_deterministic(void **state)
{
    (void)state;
    if (!render_png_available()) skip();
    render_canvas c;
    assert_true(render_canvas_create(&c, 16, 8, 2, 1, 2));
    render_label(&c, 1, 0, "ok", BLUE);
    const char *paths[2] = {"test_render_a.png", "test_render_b.png"};
    assert_true(render_write_png(&c, paths[0]));
    assert_true(render_write_png(&c, paths[1]));
    long na = 0, nb = 0;
    unsigned char *a = read_all(paths[0], &na), *b = read_all(paths[1], &nb);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, (size_t)na);
    assert_memory_equal(a, "\x89PNG\r\n\x1a\n", 8);
    free(a), free(b);
    remove(paths[0]), remove(paths[1]);
    render_canvas_destroy(&c);
}

static void test_bad_canvas_sizes_are_refused(void **state)
{
    (void)state;
    render_canvas c;
    assert_false(render_canvas_create(&c, 0, 8, 1, 1, 1));
    assert_null(c.rgb);
    assert_false(render_canvas_create(&c, 8, 8, 1, 1, -1));
    assert_false(render_canvas_create(&c, 1 << 14, 8, 4, 1, 1));
    assert_null(c.rgb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view_fit_maps_the_box_onto_the_panel),
        cmocka_unit_test(test_triangle_covers_the_closed_form_pixels),
        cmocka_unit_test(test_winding_does_not_matter),
        cmocka_unit_test(test_nearer_triangle_wins_in_either_order),
        cmocka_unit_test(test_samples_average_into_pixels),
        cmocka_unit_test(test_lines_on_top_and_behind),
        cmocka_unit_test(test_mesh_edges_are_unique),
        cmocka_unit_test(test_colormap_lightness_rises),
        cmocka_unit_test(test_png_is_deterministic),
        cmocka_unit_test(test_bad_canvas_sizes_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
