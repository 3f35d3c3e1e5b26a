/* Benchmarks of one-shot lattice deformation (sinew_lattice_deform) and of
 * placement's deform, one core, against a plain loop in the same run that
 * evaluates each axis' basis by Cox-de Boor and sums the weighted world
 * control points (the way Blender's lattice deform works).
 *  1. The headline: a cubic 8^3 lattice, 1M random points in the box.
 *  2. The tuning set: orders 2, 3, 4, 6 on lattices of one cell (2^3 or the
 *     order^3), 8^3, 64x6x4 and 16^3 (counts raised to the order where
 *     needed), 10k and 1M points; a cubic 8^3 lattice far from the origin, in
 *     a tiny box, and with half of the points outside (LEAVE).
 *  3. Placement's deform on a 64x6x4 cubic placement over a bumpy terrain,
 *     10k and 1M model points.
 * Every case checks its output against the plain loop (exit 1 when they
 * differ by more than 1e-4 of the coordinates' size).
 * Usage: bench_lattice_deform [headline|set|placement]... (none = all). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plain_lattice.h"
#include "support.h"

/* ---- Timing ---------------------------------------------------------------------- */

/* Calls per timed round so that a round lasts about 20 ms at `guess` M points/s. */
static int reps_for(size_t count)
{
    size_t reps = 200000 / count;
    return reps < 1 ? 1 : (int)reps;
}

static void check_close(const char *name, const float *a, const float *b, size_t count)
{
    double worst = 0.0;
    size_t at = 0;
    for (size_t i = 0; i < 3 * count; ++i) {
        double d = fabs((double)a[i] - b[i]) / (1.0 + fabs((double)b[i]));
        if (d > worst) worst = d, at = i / 3;
    }
    if (worst > 1e-4) {
        fprintf(stderr, "%s: output differs from the plain loop by %g (relative) at point %zu\n", name, worst, at);
        exit(1);
    }
}

/* ---- One-shot deform ------------------------------------------------------------- */

typedef struct deform_case {
    const char *name;
    uint32_t order;
    uint32_t count[3];
    size_t points;
    double origin[3];
    double extent;
    double outside_share; /* share of the points placed outside the box */
} deform_case;

static void run_deform_case(const deform_case *c)
{
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    for (int a = 0; a < 3; ++a) {
        d.order[a] = c->order;
        d.count[a] = c->count[a] < c->order ? c->order : c->count[a];
        d.origin[a] = (float)c->origin[a];
        d.extents[a] = (float)c->extent;
    }
    sinew_lattice *lat = NULL;
    if (sinew_lattice_create(NULL, &d, &lat) != SINEW_OK) {
        fprintf(stderr, "%s: create: %s\n", c->name, sinew_last_error());
        exit(1);
    }
    sinew_lattice_info info;
    SINEW_INIT(&info);
    sinew_lattice_get_info(lat, &info);
    support_rng rng;
    support_rng_seed(&rng, 42);
    float *disp = malloc(3 * info.point_count * sizeof(float));
    for (size_t i = 0; i < 3 * info.point_count; ++i)
        disp[i] = (float)(c->extent * support_rng_uniform(&rng, -0.05, 0.05));
    sinew_points dv = {disp, info.point_count, 0};
    sinew_lattice_set_displacements(lat, &dv, 0, dv.count);
    plain_lattice pl = plain_make(lat);

    const size_t n = c->points;
    float *pts = malloc(3 * n * sizeof(float)), *out = malloc(3 * n * sizeof(float)),
          *ref = malloc(3 * n * sizeof(float));
    double origin[3], extents[3];
    for (int a = 0; a < 3; ++a) origin[a] = info.origin[a], extents[a] = info.extents[a];
    for (size_t i = 0; i < n; ++i) {
        bool out_of_box = support_rng_uniform(&rng, 0.0, 1.0) < c->outside_share;
        for (int a = 0; a < 3; ++a) {
            double u = support_rng_uniform(&rng, 0.0, 1.0);
            if (out_of_box && a == 0) u += 1.5;
            pts[3 * i + a] = (float)(origin[a] + extents[a] * u);
        }
    }
    sinew_points view = {pts, n, 0};
    const int reps = reps_for(n);
    double best = INFINITY, best_plain = INFINITY;
    for (int round = 0; round < 3; ++round) {
        double t0 = support_cpu_now();
        for (int k = 0; k < reps; ++k)
            if (sinew_lattice_deform(lat, &view, NULL, out, 0, NULL, 0, 0, n) != SINEW_OK) {
                fprintf(stderr, "%s: deform: %s\n", c->name, sinew_last_error());
                exit(1);
            }
        double t1 = support_cpu_now();
        for (int k = 0; k < reps; ++k) plain_deform(&pl, origin, extents, pts, n, ref);
        double t2 = support_cpu_now();
        best = fmin(best, (t1 - t0) / reps);
        best_plain = fmin(best_plain, (t2 - t1) / reps);
    }
    check_close(c->name, out, ref, n);
    support_bench_line(c->name, (double)n / best / 1e6, "M points/s", "blender-style loop",
                       (double)n / best_plain / 1e6);
    plain_free(&pl);
    sinew_lattice_destroy(lat);
    free(disp);
    free(pts);
    free(out);
    free(ref);
}

static void bench_headline(void)
{
    const deform_case c = {"lattice/deform-oneshot-cubic8-1M", 4, {8, 8, 8}, 1000000, {0, 0, 0}, 1.0, 0.0};
    run_deform_case(&c);
}

static void bench_set(void)
{
    static const uint32_t orders[] = {2, 3, 4, 6};
    static const struct {
        const char *name;
        uint32_t count[3];
    } sizes[] = {{"1cell", {2, 2, 2}}, {"8x8x8", {8, 8, 8}}, {"64x6x4", {64, 6, 4}}, {"16x16x16", {16, 16, 16}}};
    static const size_t points[] = {10000, 1000000};
    char name[128];
    for (size_t o = 0; o < sizeof orders / sizeof orders[0]; ++o)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
            for (size_t p = 0; p < 2; ++p) {
                snprintf(name, sizeof name, "lattice/deform-oneshot-o%u-%s-%s", orders[o], sizes[s].name,
                         points[p] == 10000 ? "10k" : "1M");
                deform_case c = {name, orders[o], {0, 0, 0}, points[p], {0, 0, 0}, 1.0, 0.0};
                memcpy(c.count, sizes[s].count, sizeof c.count);
                run_deform_case(&c);
            }
    const deform_case extremes[] = {
        {"lattice/deform-oneshot-cubic8-far-1M", 4, {8, 8, 8}, 1000000, {1e5, -2e5, 3e5}, 10.0, 0.0},
        {"lattice/deform-oneshot-cubic8-tiny-1M", 4, {8, 8, 8}, 1000000, {1e-3, 0, -1e-3}, 1e-5, 0.0},
        {"lattice/deform-oneshot-cubic8-half-outside-1M", 4, {8, 8, 8}, 1000000, {0, 0, 0}, 1.0, 0.5},
    };
    for (size_t k = 0; k < sizeof extremes / sizeof extremes[0]; ++k) run_deform_case(&extremes[k]);
}

/* ---- Placement ------------------------------------------------------------------- */

static double bump_height(double x, double y)
{
    return 0.45 * sin(0.9 * x) * cos(0.7 * y) + 0.3 * sin(0.35 * x + 1.1 * y) + 0.6 * exp(-((x - 1) * (x - 1) + y * y));
}

/* The bumpy terrain of examples/placement: a 96x96 height field over [-9, 9]^2. */
static void bumpy_scene(float **pos, size_t *vertex_count, uint32_t **tri, size_t *triangle_count)
{
    const int n = 96;
    const double lo = -9, hi = 9, h = (hi - lo) / n;
    *vertex_count = (size_t)(n + 1) * (n + 1);
    *triangle_count = (size_t)2 * n * n;
    *pos = malloc(*vertex_count * 3 * sizeof(float));
    *tri = malloc(*triangle_count * 3 * sizeof(uint32_t));
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) {
            float *v = *pos + 3 * (size_t)(i + (n + 1) * j);
            v[0] = (float)(lo + i * h), v[1] = (float)(lo + j * h), v[2] = (float)bump_height(v[0], v[1]);
        }
    uint32_t *t = *tri;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            uint32_t a = (uint32_t)(i + (n + 1) * j);
            *t++ = a, *t++ = a + 1, *t++ = a + (uint32_t)n + 2;
            *t++ = a, *t++ = a + (uint32_t)n + 2, *t++ = a + (uint32_t)n + 1;
        }
}

static void bench_placement(void)
{
    float *scene_pos;
    uint32_t *scene_tri;
    size_t scene_vertices, scene_triangles;
    bumpy_scene(&scene_pos, &scene_vertices, &scene_tri, &scene_triangles);
    const float curve[15] = {-7, -2, 5, -3, 2, 5, 1, -1.5f, 5, 4, 2, 5, 7, 0, 5};
    sinew_placement_desc d;
    SINEW_INIT(&d);
    d.path = (sinew_points){curve, 5, 0};
    d.path_kind = SINEW_PLACEMENT_PATH_BSPLINE;
    d.width = 0.47f;
    d.height = 0.44f;
    d.count[0] = 64, d.count[1] = 6, d.count[2] = 4;
    d.scene = (sinew_trimesh){{scene_pos, scene_vertices, 0}, scene_tri, scene_triangles, SINEW_INDEX_U32, 0};
    sinew_placement *p = NULL;
    if (sinew_placement_create(NULL, &d, &p) != SINEW_OK) {
        fprintf(stderr, "placement create: %s\n", sinew_last_error());
        exit(1);
    }
    sinew_placement_map_desc md;
    SINEW_INIT(&md);
    md.box_min[0] = 0, md.box_min[1] = -0.47f, md.box_min[2] = 0;
    md.box_max[0] = 6, md.box_max[1] = 0.47f, md.box_max[2] = 0.44f;
    md.offset = 0.35f;
    sinew_placement_map map;
    if (sinew_placement_map_model(p, &md, &map) != SINEW_OK) {
        fprintf(stderr, "placement map: %s\n", sinew_last_error());
        exit(1);
    }
    plain_lattice pl = plain_make(sinew_placement_lattice(p));
    static const size_t counts[] = {10000, 1000000};
    for (int k = 0; k < 2; ++k) {
        const size_t n = counts[k];
        float *model = malloc(3 * n * sizeof(float)), *out = malloc(3 * n * sizeof(float)),
              *ref = malloc(3 * n * sizeof(float));
        support_rng rng;
        support_rng_seed(&rng, 5);
        for (size_t i = 0; i < n; ++i)
            for (int a = 0; a < 3; ++a)
                model[3 * i + a] = (float)support_rng_uniform(&rng, md.box_min[a], md.box_max[a]);
        sinew_points view = {model, n, 0};
        const int reps = reps_for(n);
        double best = INFINITY, best_plain = INFINITY;
        for (int round = 0; round < 3; ++round) {
            double t0 = support_cpu_now();
            for (int r = 0; r < reps; ++r)
                if (sinew_placement_deform(p, &map, &view, out, 0, 0, n) != SINEW_OK) {
                    fprintf(stderr, "placement deform: %s\n", sinew_last_error());
                    exit(1);
                }
            double t1 = support_cpu_now();
            for (int r = 0; r < reps; ++r)
                for (size_t i = 0; i < n; ++i) {
                    double u[3];
                    for (int a = 0; a < 3; ++a) u[a] = (double)(map.offset[a] + map.scale[a] * model[3 * i + a]);
                    plain_eval(&pl, u, ref + 3 * i);
                }
            double t2 = support_cpu_now();
            best = fmin(best, (t1 - t0) / reps);
            best_plain = fmin(best_plain, (t2 - t1) / reps);
        }
        const char *name = k == 0 ? "placement/deform-64x6x4-10k" : "placement/deform-64x6x4-1M";
        check_close(name, out, ref, n);
        support_bench_line(name, (double)n / best / 1e6, "M points/s", "blender-style loop",
                           (double)n / best_plain / 1e6);
        free(model);
        free(out);
        free(ref);
    }
    plain_free(&pl);
    sinew_placement_destroy(p);
    free(scene_pos);
    free(scene_tri);
}

static bool wanted(int argc, char **argv, const char *what)
{
    if (argc < 2) return true;
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], what) == 0) return true;
    return false;
}

int main(int argc, char **argv)
{
    if (wanted(argc, argv, "headline")) bench_headline();
    if (wanted(argc, argv, "placement")) bench_placement();
    if (wanted(argc, argv, "set")) bench_set();
    return 0;
}
