/*
 * Fuzz target: the one-call binder sinew_bbw_auto_weights. The surface is a
 * small box (closed, open, inside out, as a triangle soup, or two of them), a
 * flat sheet (the 2D route), or raw fuzzed triangles; the skeleton and point
 * handles are fuzzed, inside and outside it; the options (influence count,
 * grid resolution, tolerance, iteration cap, what a handle outside does) and
 * the output size too. Besides fuzz.h's contract (a failure leaves joints,
 * weights and the report untouched), the weights of OK and NOT_CONVERGED are
 * checked: every row in [0, 1], sorted by decreasing weight, summing to one
 * (or all zero, which the report must then count), joints below the handle
 * count wherever the weight is not zero.
 */
#include <math.h>

#include "fuzz.h"

/* The volume's grid stays at most this many cells across: a few cells graded
 * near close handles already reach thousands of tets. */
#define FUZZ_BBW_AUTO_MAX_GRID 4u

static const uint32_t box_faces[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                          {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};

/* Writes box number `which` (corners jittered, sometimes a fuzzed
 * coordinate) at p + 24 * which and its triangles at idx + 36 * which. */
static size_t add_box(fz_reader *r, float *p, uint32_t *idx, size_t which, bool inside_out, size_t drop)
{
    float offset = (float)which * 1.5f;
    for (uint32_t c = 0; c < 8; c++)
        for (int a = 0; a < 3; a++) {
            uint8_t b = fz_u8(r);
            float base = (float)((c >> a) & 1u) + (a == 0 ? offset : 0.0f);
            p[24 * which + 3 * c + a] = b < 220 ? base + (float)((int)(b % 9) - 4) * 0.02f : b < 250 ? base : fz_float(r);
        }
    size_t t = 0;
    for (size_t f = drop; f < 12; f++, t++)
        for (int k = 0; k < 3; k++)
            idx[36 * which + 3 * t + (size_t)k] = (uint32_t)(8 * which) + box_faces[f][inside_out && k ? 3 - k : k];
    return t;
}

static sinew_trimesh *surface(fz_reader *r)
{
    sinew_trimesh *m = fz_alloc(sizeof *m);
    uint8_t kind = fz_u8(r) % 4;
    if (kind <= 1) {
        /* One or two boxes: closed, open (faces dropped), inside out. */
        size_t boxes = kind + 1, tris = 0;
        float *p = fz_alloc(24 * boxes * sizeof *p);
        uint32_t *idx = fz_alloc(36 * boxes * sizeof *idx);
        bool inside_out = fz_u8(r) >= 200;
        for (size_t b = 0; b < boxes; b++) {
            size_t drop = fz_u8(r) < 220 ? 0 : fz_range(r, 1, 11);
            size_t t = add_box(r, p, idx, b, inside_out, drop);
            /* Pack the triangles after the previous box's. */
            for (size_t i = 0; i < 3 * t; i++) idx[3 * tris + i] = idx[36 * b + i];
            tris += t;
        }
        if (fz_u8(r) >= 240) idx[fz_range(r, 0, (uint32_t)(3 * tris - 1))] = fz_index(r, 8 * boxes);
        *m = (sinew_trimesh){.positions = {.data = p, .count = 8 * boxes}, .indices = idx, .triangle_count = tris};
        if (fz_u8(r) >= 200) {
            /* A triangle soup: every triangle its own three vertices. */
            float *soup = fz_alloc(9 * tris * sizeof *soup);
            uint32_t *sidx = fz_alloc(3 * tris * sizeof *sidx);
            for (size_t i = 0; i < 3 * tris; i++) {
                uint32_t v = idx[i] < 8 * boxes ? idx[i] : 0;
                for (int a = 0; a < 3; a++) soup[3 * i + (size_t)a] = p[3 * v + (size_t)a];
                sidx[i] = (uint32_t)i;
            }
            *m = (sinew_trimesh){.positions = {.data = soup, .count = 3 * tris}, .indices = sidx, .triangle_count = tris};
        }
    } else if (kind == 2) {
        /* A flat sheet: an n x n grid in the plane z = c (the 2D route). */
        uint32_t n = fz_range(r, 2, 5);
        float z = fz_param(r, -1.0f, 1.0f);
        float *p = fz_alloc(3 * (size_t)n * n * sizeof *p);
        for (uint32_t j = 0; j < n; j++)
            for (uint32_t i = 0; i < n; i++) {
                float *q = p + 3 * ((size_t)j * n + i);
                q[0] = (float)i / (float)(n - 1) + (fz_u8(r) < 230 ? 0.0f : 0.05f);
                q[1] = (float)j / (float)(n - 1);
                q[2] = fz_u8(r) < 250 ? z : fz_float(r);
            }
        size_t tris = 2 * (size_t)(n - 1) * (n - 1), t = 0;
        uint32_t *idx = fz_alloc(3 * tris * sizeof *idx);
        for (uint32_t j = 0; j + 1 < n; j++)
            for (uint32_t i = 0; i + 1 < n; i++, t += 2) {
                uint32_t a = j * n + i, b = a + 1, c = a + n, d = c + 1;
                uint32_t q[6] = {a, b, d, a, d, c};
                for (int k = 0; k < 6; k++) idx[3 * t + (size_t)k] = q[k];
            }
        *m = (sinew_trimesh){.positions = {.data = p, .count = (size_t)n * n}, .indices = idx, .triangle_count = tris};
    } else {
        /* Raw: a few fuzzed vertices and triangles. */
        size_t count = fz_range(r, 0, 10), tris = fz_range(r, 0, 12);
        *m = (sinew_trimesh){.positions = fz_points(r, count), .indices = fz_indices(r, 3 * tris, count),
                             .triangle_count = tris};
    }
    if (fz_u8(r) >= 250) m->indices = NULL;   /* INVALID_ARGUMENT */
    return m;
}

/* A handle coordinate: around the unit box mostly, anywhere sometimes, but
 * finite ones within 1e3: a bone is sampled along its whole length and each
 * sample outside the domain costs a locator search, so a joint at 1e18 takes
 * seconds (a million samples) without testing anything more. */
static float handle_coord(fz_reader *r)
{
    float x = fz_u8(r) < 230 ? fz_param(r, -0.5f, 1.5f) : fz_float(r);
    return isfinite(x) && fabsf(x) > 1e3f ? copysignf(1e3f, x) : x;
}

static float *coords(fz_reader *r, size_t count)
{
    float *c = fz_alloc(3 * count * sizeof *c);
    for (size_t i = 0; i < 3 * count; i++) c[i] = handle_coord(r);
    return c;
}

/* The weights of OK and NOT_CONVERGED, row by row. */
static void check_rows(const uint32_t *joints, const float *weights, size_t rows, size_t k, size_t handles,
                       const sinew_bbw_auto_report *report)
{
    size_t zero_rows = 0;
    for (size_t v = 0; v < rows; v++) {
        const float *w = weights + v * k;
        double sum = 0.0;
        for (size_t s = 0; s < k; s++) {
            fz_require(isfinite(w[s]) && w[s] >= 0.0f && w[s] <= 1.0f, "sinew_bbw_auto_weights",
                       "vertex %zu slot %zu has weight %g", v, s, (double)w[s]);
            fz_require(s == 0 || w[s] <= w[s - 1], "sinew_bbw_auto_weights", "vertex %zu's weights are not sorted", v);
            fz_require(w[s] == 0.0f || joints[v * k + s] < handles, "sinew_bbw_auto_weights",
                       "vertex %zu slot %zu names joint %u of %zu", v, s, joints[v * k + s], handles);
            sum += w[s];
        }
        if (sum == 0.0) zero_rows++;
        else fz_require(fabs(sum - 1.0) <= 1e-5, "sinew_bbw_auto_weights", "vertex %zu's weights sum to %.9g", v, sum);
    }
    if (report)
        fz_require(zero_rows == report->unweighted_surface_vertex_count, "sinew_bbw_auto_weights",
                   "%zu all-zero rows, the report counts %zu", zero_rows, report->unweighted_surface_vertex_count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader r;
    fz_begin(&r, data, size);
    sinew_context *ctx = fz_context(&r);
    sinew_bbw_auto_desc desc;
    SINEW_INIT(&desc);
    desc.surface = fz_u8(&r) < 252 ? surface(&r) : NULL;
    /* A chain of bones mostly (joint i to i + 1), fuzzed indices sometimes. */
    desc.joint_positions.count = fz_u8(&r) < 230 ? fz_range(&r, 2, 4) : fz_range(&r, 0, 4);
    desc.joint_positions.data = coords(&r, desc.joint_positions.count);
    desc.bone_count = desc.joint_positions.count && fz_u8(&r) < 230 ? desc.joint_positions.count - 1 : fz_range(&r, 0, 3);
    if (fz_u8(&r) < 220) {
        uint32_t *bones = fz_alloc(2 * desc.bone_count * sizeof *bones);
        for (size_t b = 0; b < desc.bone_count; b++) bones[2 * b] = (uint32_t)b, bones[2 * b + 1] = (uint32_t)b + 1;
        desc.bones = bones;
    } else {
        desc.bones = fz_indices(&r, 2 * desc.bone_count, desc.joint_positions.count);
    }
    if (fz_u8(&r) >= 160) {
        desc.points.count = fz_range(&r, 0, 3);
        desc.points.data = coords(&r, desc.points.count);
    }
    desc.influence_count = fz_u8(&r) < 200 ? 0 : fz_range(&r, 0, 70);   /* 65..70: INVALID_ARGUMENT */
    desc.grid_resolution = fz_u8(&r) < 230 ? fz_range(&r, 2, FUZZ_BBW_AUTO_MAX_GRID) : 1;
    uint8_t t = fz_u8(&r);
    desc.tolerance = t < 200 ? 0.0 : t < 245 ? pow(10.0, -(double)(t % 8)) : (t & 1u) ? -1.0 : NAN;
    desc.max_iterations = fz_range(&r, 1, 20);   /* 0 would mean 5000 */
    desc.handle_outside = (uint32_t)fz_enum(&r, 2);

    size_t k = desc.influence_count ? desc.influence_count : 4;
    size_t vertices = desc.surface ? desc.surface->positions.count : 0;
    size_t entries = vertices * (k <= 64 ? k : 0);
    if (fz_u8(&r) >= 240) entries += fz_range(&r, 1, 3);   /* MISMATCH */
    uint32_t *joints = fz_alloc(entries * sizeof *joints);
    float *weights = fz_alloc(entries * sizeof *weights);
    sinew_bbw_auto_report *report = fz_u8(&r) < 200 ? fz_alloc(sizeof *report) : NULL;

    fz_call c;
    fz_call_begin(&c, "sinew_bbw_auto_weights");
    fz_call_out(&c, joints, entries * sizeof *joints, false);
    fz_call_out(&c, weights, entries * sizeof *weights, true);
    if (report) fz_call_out_struct(&c, report, sizeof *report);
    sinew_result res = fz_call_end(&c, sinew_bbw_auto_weights(ctx, &desc, joints, weights, entries, report),
                                   fz_finite(&r) | FZ_FILLS_ON_NOT_CONVERGED);
    if (res == SINEW_OK || res == SINEW_ERROR_NOT_CONVERGED) {
        fz_require(entries == vertices * k, "sinew_bbw_auto_weights", "accepted %zu entries for %zu vertices x %zu",
                   entries, vertices, k);
        check_rows(joints, weights, vertices, k, desc.points.count + desc.bone_count, report);
        /* OK below the floats' resolution certifies the doubles alone, so
         * converged may be 0 with OK, never 1 without it. */
        if (report)
            fz_require((!report->converged || res == SINEW_OK) && report->error_bound >= 0.0,
                       "sinew_bbw_auto_weights", "a report that disagrees with the result");
    }
    sinew_context_destroy(ctx);
    fz_end();
    return 0;
}
