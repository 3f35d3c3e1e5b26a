/* Benchmarks of the B-spline lattice.
 *  1. Bound deformation of 1M random points through a cubic 8^3 lattice on one
 *     core, against a plain loop that evaluates the basis and sums 64 weighted
 *     control points per point (the way Blender's lattice deform works).
 *     One-shot deformation is measured by bench_deform.c.
 *  2. Adaptive refinement of the armadillo under a bending and twisting
 *     lattice at 1e-3 of the bounding-box diagonal: time, triangles and the
 *     measured maximum deviation, for the guaranteed bound with the farthest
 *     control point's Greville split and with the midpoint split, and for the
 *     plain midpoint test. Deviations are in ppm of the diagonal. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "plain_lattice.h"
#include "support.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static void bench_bound_deform(void)
{
    const int n = 8;
    const size_t count = 1000000;
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    d.count[0] = d.count[1] = d.count[2] = (uint32_t)n;
    sinew_lattice *lat = NULL;
    if (sinew_lattice_create(NULL, &d, &lat) != SINEW_OK) {
        fprintf(stderr, "create: %s\n", sinew_last_error());
        exit(1);
    }
    support_rng rng;
    support_rng_seed(&rng, 42);
    float *disp = malloc(3 * 512 * sizeof(float));
    for (int i = 0; i < 3 * 512; ++i) disp[i] = (float)support_rng_uniform(&rng, -0.05, 0.05);
    sinew_points dv = {disp, 512, 0};
    sinew_lattice_set_displacements(lat, &dv, 0, dv.count);
    plain_lattice plain = plain_make(lat);

    float *pts = malloc(3 * count * sizeof(float));
    float *out = malloc(3 * count * sizeof(float));
    float *ref = malloc(3 * count * sizeof(float));
    for (size_t i = 0; i < 3 * count; ++i) pts[i] = (float)support_rng_uniform(&rng, 0.0, 1.0);
    sinew_lattice_binding_desc bd;
    SINEW_INIT(&bd);
    bd.points = (sinew_points){pts, count, 0};
    sinew_lattice_binding *bind = NULL;
    if (sinew_lattice_binding_create(NULL, lat, &bd, &bind) != SINEW_OK) {
        fprintf(stderr, "bind: %s\n", sinew_last_error());
        exit(1);
    }
    /* the unit box: parameters equal world positions */
    const double origin[3] = {0, 0, 0}, extents[3] = {1, 1, 1};

    double best = INFINITY, best_base = INFINITY;
    for (int run = 0; run < 5; ++run) {
        double t0 = support_cpu_now();
        sinew_lattice_binding_deform(bind, lat, out, 0, NULL, 0, 0, count);
        double t1 = support_cpu_now();
        plain_deform(&plain, origin, extents, pts, count, ref);
        double t2 = support_cpu_now();
        best = fmin(best, t1 - t0);
        best_base = fmin(best_base, t2 - t1);
    }
    sinew_lattice_binding_deform(bind, lat, out, 0, NULL, 0, 0, count);
    double worst = 0;
    for (size_t i = 0; i < 3 * count; ++i) worst = fmax(worst, fabs(out[i] - ref[i]));
    if (worst > 1e-4) {
        fprintf(stderr, "bound deform differs from the baseline by %g\n", worst);
        exit(1);
    }
    support_bench_line("lattice/bound-deform-cubic-8x8x8-1M", count / best / 1e6, "Mpoints/s",
                       "basis-times-64-control-points", count / best_base / 1e6);
    sinew_lattice_binding_destroy(bind);
    sinew_lattice_destroy(lat);
    free(disp);
    plain_free(&plain);
    free(pts);
    free(out);
    free(ref);
}

/* ---- Refinement ------------------------------------------------------------------------- */

static double seg_dist(const double q[3], const float *a, const float *b)
{
    double ab[3], aq[3], l2 = 0, s = 0;
    for (int c = 0; c < 3; ++c) {
        ab[c] = (double)b[c] - a[c];
        aq[c] = q[c] - a[c];
        l2 += ab[c] * ab[c];
        s += aq[c] * ab[c];
    }
    s = l2 > 0 ? s / l2 : 0;
    s = s < 0 ? 0 : s > 1 ? 1 : s;
    double d = 0;
    for (int c = 0; c < 3; ++c) d += (aq[c] - s * ab[c]) * (aq[c] - s * ab[c]);
    return sqrt(d);
}

/* Largest distance of any deformed output edge from its chord, sampling
 * each edge at `samples` interior points through the public deform call. */
static double measured_deviation(const sinew_lattice *lat, const sinew_lattice_refined_mesh *m, int samples)
{
    enum { BATCH = 4096 };
    float *in = malloc(3 * BATCH * sizeof(float)), *out = malloc(3 * BATCH * sizeof(float));
    uint32_t *owner = malloc(BATCH * sizeof(uint32_t) * 2);
    double worst = 0;
    size_t fill = 0;
    for (size_t t = 0; t <= m->triangle_count; ++t) {
        for (int e = 0; e < 3 && t < m->triangle_count; ++e) {
            uint32_t a = m->indices[3 * t + e], b = m->indices[3 * t + (e + 1) % 3];
            if (a > b) continue; /* interior edges once; boundary edges once or twice */
            for (int k = 1; k <= samples; ++k) {
                double s = (double)k / (samples + 1);
                for (int c = 0; c < 3; ++c)
                    in[3 * fill + c] =
                        (float)((1 - s) * m->rest_positions[3 * (size_t)a + c] + s * m->rest_positions[3 * (size_t)b + c]);
                owner[2 * fill] = a, owner[2 * fill + 1] = b;
                ++fill;
            }
        }
        if (fill + (size_t)samples * 3 > BATCH || (t == m->triangle_count && fill)) {
            sinew_points v = {in, fill, 0};
            sinew_lattice_deform(lat, &v, NULL, out, 0, NULL, 0, 0, fill);
            for (size_t i = 0; i < fill; ++i) {
                double q[3] = {out[3 * i], out[3 * i + 1], out[3 * i + 2]};
                double d = seg_dist(q, m->positions + 3 * (size_t)owner[2 * i], m->positions + 3 * (size_t)owner[2 * i + 1]);
                if (d > worst) worst = d;
            }
            fill = 0;
        }
    }
    free(in);
    free(out);
    free(owner);
    return worst;
}

typedef struct refine_run {
    double seconds;
    size_t triangles;
    double deviation;
} refine_run;

static refine_run run_refine(const sinew_lattice *lat, const sinew_trimesh *tm, double tol,
                             sinew_lattice_error_test test, sinew_lattice_split split)
{
    sinew_lattice_refinement_desc rd;
    SINEW_INIT(&rd);
    rd.tolerance = tol;
    rd.test = test;
    rd.split = split;
    refine_run r = {INFINITY, 0, 0};
    sinew_lattice_refinement *ref = NULL;
    for (int k = 0; k < 2; ++k) {
        sinew_lattice_refinement_destroy(ref);
        ref = NULL;
        double t0 = support_cpu_now();
        if (sinew_lattice_refinement_create(NULL, lat, tm, &rd, &ref) != SINEW_OK) {
            fprintf(stderr, "refine: %s\n", sinew_last_error());
            exit(1);
        }
        r.seconds = fmin(r.seconds, support_cpu_now() - t0);
    }
    sinew_lattice_refined_mesh m;
    SINEW_INIT(&m);
    sinew_lattice_refinement_mesh(ref, &m);
    r.triangles = m.triangle_count;
    r.deviation = measured_deviation(lat, &m, 15);
    sinew_lattice_refinement_destroy(ref);
    return r;
}

/* Lattice around the mesh's bounding box with u along its height (y),
 * `cells` knot spans along u and 5 across; bent in v by `bend` of the box
 * depth and twisted by `twist` radians about u over the height. */
static sinew_lattice *bent_lattice(const support_mesh *sm, uint32_t cells, double bend, double twist, double *diag)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < sm->vertex_count; ++i)
        for (int c = 0; c < 3; ++c) {
            lo[c] = fminf(lo[c], sm->positions[3 * i + c]);
            hi[c] = fmaxf(hi[c], sm->positions[3 * i + c]);
        }
    *diag = 0;
    for (int c = 0; c < 3; ++c) *diag += (double)(hi[c] - lo[c]) * (hi[c] - lo[c]);
    *diag = sqrt(*diag);
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    const int world_of[3] = {1, 2, 0}; /* u = y, v = z, w = x */
    for (int a = 0; a < 3; ++a) {
        int c = world_of[a];
        d.axes[a][c] = 1.0f;
        d.extents[a] = 1.02f * (hi[c] - lo[c]);
        d.origin[c] = lo[c] - 0.01f * (hi[c] - lo[c]);
        d.count[a] = a == 0 ? cells + 3 : 8;
    }
    d.outside = SINEW_LATTICE_OUTSIDE_CLAMP;
    sinew_lattice *lat = NULL;
    if (sinew_lattice_create(NULL, &d, &lat) != SINEW_OK) {
        fprintf(stderr, "create: %s\n", sinew_last_error());
        exit(1);
    }
    sinew_lattice_info info;
    SINEW_INIT(&info);
    sinew_lattice_get_info(lat, &info);
    float *p = malloc(info.point_count * 3 * sizeof(float)), *u = malloc(info.point_count * 3 * sizeof(float));
    sinew_lattice_rest_points(lat, p, 0, 0, info.point_count);
    sinew_points pv = {p, info.point_count, 0};
    sinew_lattice_parameters(lat, &pv, u, 0, 0, info.point_count);
    for (size_t i = 0; i < info.point_count; ++i) {
        const float *q = u + 3 * i;
        double v = (q[1] - 0.5) * info.extents[1], w = (q[2] - 0.5) * info.extents[2];
        double a = twist * (q[0] - 0.5), b = bend * info.extents[1] * sin(M_PI * q[0]);
        double v2 = cos(a) * v - sin(a) * w + b, w2 = sin(a) * v + cos(a) * w;
        for (int c = 0; c < 3; ++c)
            p[3 * i + c] = (float)(info.origin[c] + info.axes[0][c] * q[0] * info.extents[0] +
                                   info.axes[1][c] * (v2 + 0.5 * info.extents[1]) +
                                   info.axes[2][c] * (w2 + 0.5 * info.extents[2]));
    }
    sinew_lattice_set_points(lat, &pv, 0, pv.count);
    free(p);
    free(u);
    sinew_lattice_fold_report fr;
    SINEW_INIT(&fr);
    sinew_lattice_check_folds(NULL, lat, 4, NULL, 0, &fr);
    printf("# lattice %ux%ux%u cubic, twist %.2f rad, bend %.2f: %zu of %zu cells may fold, smallest sampled det J %.3f\n",
           info.count[0], info.count[1], info.count[2], twist, bend, fr.cells_may_fold, fr.cell_count,
           (double)fr.min_sampled_det);
    return lat;
}

static void bench_refine(const char *relative, const char *name, double relative_tol)
{
    char path[1024];
    if (!support_data_path(relative, path, sizeof path)) {
        printf("# lattice/refine-%s: skipped (%s not found)\n", name, relative);
        return;
    }
    support_mesh sm;
    if (!support_read_obj(path, &sm)) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    double diag;
    sinew_lattice *lat = bent_lattice(&sm, 5, 0.3, 2 * M_PI, &diag);
    sinew_trimesh tm = support_mesh_trimesh(&sm);
    const double tol = relative_tol * diag;
    const double ppm = 1e6 / diag;
    refine_run far = run_refine(lat, &tm, tol, SINEW_LATTICE_TEST_BOUND, SINEW_LATTICE_SPLIT_FARTHEST);
    refine_run mid = run_refine(lat, &tm, tol, SINEW_LATTICE_TEST_BOUND, SINEW_LATTICE_SPLIT_MIDPOINT);
    refine_run naive = run_refine(lat, &tm, tol, SINEW_LATTICE_TEST_MIDPOINT, SINEW_LATTICE_SPLIT_MIDPOINT);
    printf("# %s: %zu input triangles, tolerance %.0f ppm of the bounding-box diagonal\n", relative,
           sm.triangle_count, tol * ppm);
    char line[160];
#define LINE(what) (snprintf(line, sizeof line, "lattice/refine-%s-%s", name, what), line)
    support_bench_line(LINE("bound-farthest-time"), far.seconds * 1e3, "ms", "bound-midpoint-split", mid.seconds * 1e3);
    support_bench_line(LINE("bound-farthest-triangles"), (double)far.triangles, "triangles", "bound-midpoint-split",
                       (double)mid.triangles);
    support_bench_line(LINE("bound-farthest-max-deviation"), far.deviation * ppm, "ppm", "bound-midpoint-split",
                       mid.deviation * ppm);
    support_bench_line(LINE("triangles-midpoint-split-per-100-farthest"),
                       100.0 * (double)mid.triangles / (double)far.triangles, "%", "equal", 100.0);
    support_bench_line(LINE("midpoint-test-time"), naive.seconds * 1e3, "ms", "bound-farthest", far.seconds * 1e3);
    support_bench_line(LINE("midpoint-test-triangles"), (double)naive.triangles, "triangles", "bound-farthest",
                       (double)far.triangles);
    support_bench_line(LINE("midpoint-test-max-deviation"), naive.deviation * ppm, "ppm", "tolerance", tol * ppm);
    printf("# %s: measured deviation / tolerance: bound-farthest %.4f, bound-midpoint-split %.4f, midpoint test %.4f\n",
           name, far.deviation / tol, mid.deviation / tol, naive.deviation / tol);
#undef LINE
    sinew_lattice_destroy(lat);
    support_mesh_free(&sm);
}

/* ---- Fold-over check: seconds per check of lattices at rest ----------------------- */

/* before_ms: a recorded figure, not measured in this run: the same check
 * evaluating three binomials per multiply-add, -O2, on the 2-vCPU Xeon build
 * VM, 2026-11-24. */
static void bench_fold(const char *name, uint32_t order_u, uint32_t order_vw, uint32_t count_u, uint32_t count_vw,
                       double before_ms)
{
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    d.order[0] = order_u, d.order[1] = d.order[2] = order_vw;
    d.count[0] = count_u, d.count[1] = d.count[2] = count_vw;
    sinew_lattice *lat = NULL;
    if (sinew_lattice_create(NULL, &d, &lat) != SINEW_OK) {
        fprintf(stderr, "create: %s\n", sinew_last_error());
        exit(1);
    }
    sinew_lattice_fold_report rep;
    SINEW_INIT(&rep);
    double best = INFINITY;
    for (int rep_i = 0; rep_i < 3; ++rep_i) {
        double t0 = support_now();
        sinew_lattice_check_folds(NULL, lat, 4, NULL, 0, &rep);
        double t = support_now() - t0;
        if (t < best) best = t;
    }
    printf("# %s: %zu cells\n", name, rep.cell_count);
    support_bench_line(name, best * 1e3, "ms", "recorded 2026-11-24, 2-vCPU Xeon VM, binomials in the loop, -O2",
                       before_ms);
    sinew_lattice_destroy(lat);
}

int main(void)
{
    bench_bound_deform();
    bench_fold("lattice/fold-check-orders-6x5x5-counts-12x8x8", 6, 5, 12, 8, 940.0);
    bench_fold("lattice/fold-check-cubic-counts-8x8x8", 4, 4, 8, 8, 108.0);
    /* the case: armadillo at 1e-3 of the diagonal */
    bench_refine("libigl-tutorial-data/armadillo.obj", "armadillo-1e-3", 1e-3);
    /* tighter, and a coarser mesh, where edges need several splits */
    bench_refine("libigl-tutorial-data/armadillo.obj", "armadillo-1e-4", 1e-4);
    bench_refine("common-3d-test-models/spot.obj", "spot-1e-4", 1e-4);
    return 0;
}
