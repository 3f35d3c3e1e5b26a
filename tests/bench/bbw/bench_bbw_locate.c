/*
 * Point location of bounded biharmonic weights: sinew_bbw_top_k (4
 * influences) at the points a skinning bind asks for. For each rig of the
 * shared data with a skeleton (a given tet mesh, and volumes made from
 * surfaces) two sets: the mesh's own vertices, in file order (what a bind
 * reads: on a volume made from a surface they lie on or just off the
 * domain's boundary), and 1,000 points drawn inside random domain elements.
 * Per set, CPU microseconds per point, best of nine:
 *   <rig>-<set>: top_k, against a brute-force scan of every element for the
 *     inside points (measured in the same run, on the first 100 of them);
 *   <rig>-<set>-search: location alone, each point starting from the
 *     previous one's element as top_k does, against the search over the
 *     coarse cells' own lists with no quick pass (the same answers), in
 *     interleaved rounds;
 *   <rig>-<set>-tested: elements whose coordinates each computes per point
 *     (deterministic);
 * and per rig the locator's bytes per element, against the coarse grid's.
 * Usage: bench_bbw_locate [name-filter]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew.h"
#include "bbw/bbw_internal.h"

#include "support.h"
#include "../../bbw/bbw_dataset.h"

enum { INSIDE_POINTS = 1000, BRUTE_POINTS = 100, INFLUENCES = 4, ROUNDS = 9 };

/* CPU seconds per point of top_k over pts, best of ROUNDS; negative on failure. */
static double time_top_k(const sinew_bbw *b, const sinew_points *pts)
{
    uint32_t *joints = malloc(pts->count * INFLUENCES * sizeof(uint32_t));
    float *weights = malloc(pts->count * INFLUENCES * sizeof(float));
    double best = INFINITY;
    for (int round = 0; round < ROUNDS && joints && weights; ++round) {
        double t0 = support_cpu_now();
        sinew_result r = sinew_bbw_top_k(b, pts, INFLUENCES, joints, weights, 0, pts->count);
        double t = support_cpu_now() - t0;
        if (r != SINEW_OK) {
            fprintf(stderr, "top_k: %s: %s\n", sinew_result_string(r), sinew_last_error());
            best = -1.0;
            break;
        }
        best = fmin(best, t);
    }
    free(joints);
    free(weights);
    return best / (double)(pts->count ? pts->count : 1);
}

/* CPU seconds per point of locating pts, quick (from the previous point's
 * element) or by the full search, in interleaved rounds: best of ROUNDS. */
static void time_search(const sinew_bbw *b, const sinew_points *pts, double *quick, double *full)
{
    *quick = *full = INFINITY;
    volatile size_t sink = 0;
    for (int round = 0; round < ROUNDS; ++round)
        for (int which = 0; which < 2; ++which) {
            size_t e = SIZE_MAX;
            double t0 = support_cpu_now();
            for (size_t i = 0; i < pts->count; ++i) {
                const float *p = sn_point(pts, i);
                double q[3] = {p[0], p[1], p[2]}, bary[4];
                e = sn_bbw_locate_with(b, q, b->reach, which ? SIZE_MAX : e, !which, bary, NULL);
                sink += e;
            }
            double t = (support_cpu_now() - t0) / (double)(pts->count ? pts->count : 1);
            if (which) *full = fmin(*full, t);
            else *quick = fmin(*quick, t);
        }
    (void)sink;
}

/* Elements tested per point, quick and full. */
static void count_tested(const sinew_bbw *b, const sinew_points *pts, double *quick, double *full)
{
    size_t nq = 0, nf = 0, e = SIZE_MAX;
    for (size_t i = 0; i < pts->count; ++i) {
        const float *p = sn_point(pts, i);
        double q[3] = {p[0], p[1], p[2]}, bary[4];
        size_t tested;
        sn_bbw_locate_with(b, q, b->reach, SIZE_MAX, false, bary, &tested);
        nf += tested;
        e = sn_bbw_locate_with(b, q, b->reach, e, true, bary, &tested);
        nq += tested;
    }
    *quick = (double)nq / (double)(pts->count ? pts->count : 1);
    *full = (double)nf / (double)(pts->count ? pts->count : 1);
}

/* The locator's bytes per element: all of it, and the coarse grid alone
 * (cells, lists, boxes, affine maps). */
static void locator_bytes(const sinew_bbw *b, double *all, double *coarse)
{
    const sn_bbw_locator *g = &b->locator;
    size_t cells = (size_t)g->dims[0] * g->dims[1] * g->dims[2], subcells = 0;
    for (size_t c = 0; c < cells; ++c)
        if (g->sub_res[c] > 1) subcells = g->sub_first[c] + (size_t)pow(g->sub_res[c], b->dim);
    double base = (double)(cells + 1) * sizeof(size_t) + (double)g->cell_start[cells] * sizeof(uint32_t) +
                  (double)b->element_count * (6 * sizeof(float) + SN_BBW_AFFINE * sizeof(double));
    double split = (double)cells * (1 + sizeof(uint32_t)) + (double)(subcells + 1) * sizeof(size_t) +
                   (double)g->sub_start[subcells] * sizeof(uint32_t);
    *coarse = base / (double)b->element_count;
    *all = (base + split) / (double)b->element_count;
}

typedef struct domain {
    float *vertices;
    uint32_t *elements;
    size_t vertex_count, element_count, per;
} domain;

static bool domain_read(const sinew_bbw *b, domain *d)
{
    sinew_bbw_info info;
    SINEW_INIT(&info);
    sinew_bbw_get_info(b, &info);
    d->vertex_count = info.vertex_count;
    d->element_count = info.element_count;
    d->per = 4; /* the rigs are volumes */
    d->vertices = malloc(3 * d->vertex_count * sizeof(float));
    d->elements = malloc(d->per * d->element_count * sizeof(uint32_t));
    return d->vertices && d->elements &&
           sinew_bbw_domain_vertices(b, d->vertices, 0, 0, d->vertex_count) == SINEW_OK &&
           sinew_bbw_domain_elements(b, d->elements, 0, d->element_count) == SINEW_OK;
}

/* Barycentric coordinates of q in tet e by Cramer's rule; true when inside
 * (each coordinate >= -1e-9). */
static bool inside_tet(const domain *d, size_t e, const float *q)
{
    const float *p[4];
    for (int k = 0; k < 4; ++k) p[k] = d->vertices + 3 * d->elements[4 * e + k];
    double m[3][3], r[3];
    for (int a = 0; a < 3; ++a) {
        for (int k = 0; k < 3; ++k) m[a][k] = (double)p[k + 1][a] - p[0][a];
        r[a] = (double)q[a] - p[0][a];
    }
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (det == 0.0) return false;
    double t[3];
    for (int k = 0; k < 3; ++k) {
        double c[3][3];
        memcpy(c, m, sizeof c);
        for (int a = 0; a < 3; ++a) c[a][k] = r[a];
        t[k] = (c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) - c[0][1] * (c[1][0] * c[2][2] - c[1][2] * c[2][0]) +
                c[0][2] * (c[1][0] * c[2][1] - c[1][1] * c[2][0])) / det;
    }
    return t[0] >= -1e-9 && t[1] >= -1e-9 && t[2] >= -1e-9 && 1.0 - t[0] - t[1] - t[2] >= -1e-9;
}

/* CPU seconds per point of a scan of every element until one holds the point. */
static double time_brute_force(const domain *d, const float *pts, size_t count)
{
    double t0 = support_cpu_now();
    size_t found = 0;
    for (size_t i = 0; i < count; ++i)
        for (size_t e = 0; e < d->element_count; ++e)
            if (inside_tet(d, e, pts + 3 * i)) {
                ++found;
                break;
            }
    double t = support_cpu_now() - t0;
    if (found != count) fprintf(stderr, "brute force found %zu of %zu points\n", found, count);
    return t / (double)count;
}

static void run(const bbw_case *c)
{
    sinew_bbw_desc desc;
    bbw_dataset_desc(c, &desc);
    sinew_bbw *b = NULL;
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.tolerance = 1e-3; /* location does not depend on the weights' accuracy */
    sinew_result r = sinew_bbw_create(NULL, &desc, &b);
    if (r == SINEW_OK) {
        r = sinew_bbw_solve(NULL, b, &sd);
        if (r == SINEW_ERROR_NOT_CONVERGED) r = SINEW_OK;
    }
    domain d = {0};
    if (r != SINEW_OK || !domain_read(b, &d) || d.per != 4) {
        printf("bbw/locate/%s: skipped (%s: %s)\n", c->name, sinew_result_string(r), sinew_last_error());
        sinew_bbw_destroy(b);
        free(d.vertices), free(d.elements);
        return;
    }
    /* Points inside random elements, drawn with fixed seeds. */
    float *inside = malloc(3 * INSIDE_POINTS * sizeof(float));
    support_rng rng;
    support_rng_seed(&rng, 7);
    for (size_t i = 0; i < INSIDE_POINTS; ++i) {
        size_t e = support_rng_next(&rng) % d.element_count;
        double w[4], sum = 0.0;
        for (int k = 0; k < 4; ++k) sum += w[k] = support_rng_uniform(&rng, 0.05, 1.0);
        for (int a = 0; a < 3; ++a) {
            double x = 0.0;
            for (int k = 0; k < 4; ++k) x += w[k] / sum * d.vertices[3 * d.elements[4 * e + k] + a];
            inside[3 * i + a] = (float)x;
        }
    }
    sinew_points mesh_points = support_mesh_points(&c->mesh);
    sinew_points inside_points = {inside, INSIDE_POINTS, 0};
    double brute = time_brute_force(&d, inside, BRUTE_POINTS);
    char name[128], label[128];
    snprintf(label, sizeof label, "brute-force scan, inside points, %zu elements", d.element_count);
    const sinew_points *sets[2] = {&mesh_points, &inside_points};
    const char *set_names[2] = {"mesh-vertices", "inside"};
    for (int k = 0; k < 2; ++k) {
        double quick, full;
        snprintf(name, sizeof name, "bbw/locate/%s-%s", c->name, set_names[k]);
        support_bench_line(name, 1e6 * time_top_k(b, sets[k]), "us/point", label, 1e6 * brute);
        time_search(b, sets[k], &quick, &full);
        snprintf(name, sizeof name, "bbw/locate/%s-%s-search", c->name, set_names[k]);
        support_bench_line(name, 1e6 * quick, "us/point", "the coarse cells' own lists", 1e6 * full);
        count_tested(b, sets[k], &quick, &full);
        snprintf(name, sizeof name, "bbw/locate/%s-%s-tested", c->name, set_names[k]);
        support_bench_line(name, quick, "elements/point", "the coarse cells' own lists", full);
    }
    double all, coarse;
    locator_bytes(b, &all, &coarse);
    snprintf(name, sizeof name, "bbw/locate/%s-memory", c->name);
    support_bench_line(name, all, "bytes/element", "the coarse grid alone", coarse);
    free(inside);
    free(d.vertices), free(d.elements);
    sinew_bbw_destroy(b);
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : "skeleton";
    size_t ran = 0;
    for (size_t i = 0; i < bbw_dataset_count(); ++i) {
        bbw_case c;
        const char *why = NULL;
        if (!bbw_dataset_load(i, &c, &why)) continue;
        if (strstr(c.name, filter)) {
            run(&c);
            ++ran;
        }
        bbw_dataset_free(&c);
    }
    if (ran == 0) printf("bbw/locate: skipped (no case of the shared data matches \"%s\")\n", filter);
    return 0;
}
