/*
 * Point location of bounded biharmonic weights: sinew_bbw_top_k (4
 * influences) at the points a skinning bind asks for. For each rig of the
 * shared data with a skeleton (a given tet mesh, and volumes made from
 * surfaces) two sets: the mesh's own vertices, in file order (what a bind
 * reads: on a volume made from a surface they lie on or just off the
 * domain's boundary), and 1,000 points drawn inside random domain elements.
 * One line per set: CPU microseconds per point, best of nine, against a
 * brute-force scan of every element for the inside points (measured in the
 * same run, on the first 100 of them).
 * Usage: bench_bbw_locate [name-filter]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew.h"

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
        printf("bbw-locate/%s: skipped (%s: %s)\n", c->name, sinew_result_string(r), sinew_last_error());
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
    snprintf(name, sizeof name, "bbw-locate/%s-mesh-vertices", c->name);
    snprintf(label, sizeof label, "brute-force scan, inside points, %zu elements", d.element_count);
    support_bench_line(name, 1e6 * time_top_k(b, &mesh_points), "us/point", label, 1e6 * brute);
    snprintf(name, sizeof name, "bbw-locate/%s-inside", c->name);
    support_bench_line(name, 1e6 * time_top_k(b, &inside_points), "us/point", label, 1e6 * brute);
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
    if (ran == 0) printf("bbw-locate: skipped (no case of the shared data matches \"%s\")\n", filter);
    return 0;
}
