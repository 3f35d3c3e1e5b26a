/* Bends a coarse cylinder a quarter turn through a cubic B-spline lattice,
 * once by moving its vertices only and once after adaptive refinement, and
 * writes what a person can look at:
 *   lattice_input.obj           the cylinder at rest
 *   lattice_bent_plain.obj      vertices deformed, edges left straight
 *   lattice_bent_refined.obj    refined to the tolerance, then deformed
 *   lattice_cage_rest.obj       the rest lattice as lines
 *   lattice_cage_bent.obj       the bent lattice as lines
 *   lattice_refine.png          the three side by side, new edges highlighted
 * Usage: lattice_bend [output folder] (default: the current folder). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lattice_pictures.h"
#include "support.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { SEGMENTS = 10, RINGS = 5 };
static const double LENGTH = 4.0, RADIUS = 0.5;

/* A closed cylinder along x: RINGS rings of SEGMENTS vertices, capped by fans
 * around a centre vertex at each end. */
static void make_cylinder(float **v, size_t *nv, uint32_t **t, size_t *nt)
{
    *nv = (size_t)RINGS * SEGMENTS + 2;
    *nt = 2 * (size_t)(RINGS - 1) * SEGMENTS + 2 * (size_t)SEGMENTS;
    *v = malloc(*nv * 3 * sizeof(float));
    *t = malloc(*nt * 3 * sizeof(uint32_t));
    float *p = *v;
    for (int r = 0; r < RINGS; ++r)
        for (int s = 0; s < SEGMENTS; ++s) {
            double a = 2 * M_PI * s / SEGMENTS;
            *p++ = (float)(LENGTH * r / (RINGS - 1));
            *p++ = (float)(RADIUS * cos(a));
            *p++ = (float)(RADIUS * sin(a));
        }
    const uint32_t c0 = RINGS * SEGMENTS, c1 = c0 + 1;
    *p++ = 0, *p++ = 0, *p++ = 0;
    *p++ = (float)LENGTH, *p++ = 0, *p++ = 0;
    uint32_t *q = *t;
    for (int r = 0; r + 1 < RINGS; ++r)
        for (int s = 0; s < SEGMENTS; ++s) {
            uint32_t a = (uint32_t)(r * SEGMENTS + s), b = (uint32_t)(r * SEGMENTS + (s + 1) % SEGMENTS);
            uint32_t c = a + SEGMENTS, d = b + SEGMENTS;
            *q++ = a, *q++ = b, *q++ = d;
            *q++ = a, *q++ = d, *q++ = c;
        }
    for (int s = 0; s < SEGMENTS; ++s) {
        uint32_t a = (uint32_t)s, b = (uint32_t)((s + 1) % SEGMENTS);
        *q++ = c0, *q++ = b, *q++ = a;
        uint32_t e = (uint32_t)((RINGS - 1) * SEGMENTS) + a, f = (uint32_t)((RINGS - 1) * SEGMENTS) + b;
        *q++ = c1, *q++ = e, *q++ = f;
    }
}

/* The lattice's control net as OBJ lines between neighbours along u, v, w. */
static int write_cage(const char *path, const sinew_lattice *lat, int rest)
{
    sinew_lattice_info info;
    SINEW_INIT(&info);
    sinew_lattice_get_info(lat, &info);
    float *p = malloc(info.point_count * 3 * sizeof(float));
    if (rest) sinew_lattice_rest_points(lat, p, 0, 0, info.point_count);
    else sinew_lattice_points(lat, p, 0, 0, info.point_count);
    FILE *f = fopen(path, "w");
    if (!f) {
        free(p);
        return 0;
    }
    for (size_t i = 0; i < info.point_count; ++i) fprintf(f, "v %g %g %g\n", p[3 * i], p[3 * i + 1], p[3 * i + 2]);
    const uint32_t *n = info.count;
    for (uint32_t k = 0; k < n[2]; ++k)
        for (uint32_t j = 0; j < n[1]; ++j)
            for (uint32_t i = 0; i < n[0]; ++i) {
                size_t id = i + (size_t)n[0] * (j + (size_t)n[1] * k) + 1; /* OBJ counts from 1 */
                if (i + 1 < n[0]) fprintf(f, "l %zu %zu\n", id, id + 1);
                if (j + 1 < n[1]) fprintf(f, "l %zu %zu\n", id, id + n[0]);
                if (k + 1 < n[2]) fprintf(f, "l %zu %zu\n", id, id + (size_t)n[0] * n[1]);
            }
    fclose(f);
    free(p);
    return 1;
}

/* Largest bound over the mesh's edges (each edge once per triangle side). */
static double worst_bound(const sinew_lattice *lat, const float *v, const uint32_t *t, size_t nt)
{
    double worst = 0;
    for (size_t i = 0; i < nt; ++i)
        for (int e = 0; e < 3; ++e) {
            double b;
            sinew_lattice_segment_bound(lat, v + 3 * (size_t)t[3 * i + e], v + 3 * (size_t)t[3 * i + (e + 1) % 3], &b,
                                        NULL);
            if (b > worst) worst = b;
        }
    return worst;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[1024];
    float *v;
    uint32_t *t;
    size_t nv, nt;
    make_cylinder(&v, &nv, &t, &nt);

    /* A cubic lattice around the cylinder, 7 control points along its length. */
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    d.count[0] = 7, d.count[1] = 4, d.count[2] = 4;
    d.origin[0] = 0.0f, d.origin[1] = d.origin[2] = (float)(-1.2 * RADIUS);
    d.extents[0] = (float)LENGTH, d.extents[1] = d.extents[2] = (float)(2.4 * RADIUS);
    sinew_lattice *lat = NULL;
    if (sinew_lattice_create(NULL, &d, &lat) != SINEW_OK) {
        fprintf(stderr, "lattice: %s\n", sinew_last_error());
        return 1;
    }
    /* Bend the lattice a quarter turn: the x axis becomes an arc of radius
     * R = LENGTH / (pi / 2) about (0, R). */
    sinew_lattice_info info;
    SINEW_INIT(&info);
    sinew_lattice_get_info(lat, &info);
    float *cp = malloc(info.point_count * 3 * sizeof(float));
    sinew_lattice_rest_points(lat, cp, 0, 0, info.point_count);
    const double R = LENGTH / (M_PI / 2);
    for (size_t i = 0; i < info.point_count; ++i) {
        double x = cp[3 * i], y = cp[3 * i + 1], a = x / R;
        cp[3 * i] = (float)((R - y) * sin(a));
        cp[3 * i + 1] = (float)(R - (R - y) * cos(a));
    }
    sinew_points cv = {cp, info.point_count, 0};
    sinew_lattice_set_points(lat, &cv, 0, cv.count);

    /* Vertices only. */
    float *plain = malloc(nv * 3 * sizeof(float));
    sinew_points pv = {v, nv, 0};
    sinew_lattice_deform(lat, &pv, NULL, plain, 0, NULL, 0, 0, nv);

    /* Refined to 0.2% of the length. */
    sinew_lattice_refinement_desc rd;
    SINEW_INIT(&rd);
    rd.tolerance = 2e-3 * LENGTH;
    sinew_trimesh tm = {{v, nv, 0}, t, nt, SINEW_INDEX_U32, 0};
    sinew_lattice_refinement *ref = NULL;
    if (sinew_lattice_refinement_create(NULL, lat, &tm, &rd, &ref) != SINEW_OK) {
        fprintf(stderr, "refine: %s\n", sinew_last_error());
        return 1;
    }
    sinew_lattice_refined_mesh m;
    SINEW_INIT(&m);
    sinew_lattice_refinement_mesh(ref, &m);

    int ok = 1;
    snprintf(path, sizeof path, "%s/lattice_input.obj", dir);
    ok &= support_write_obj(path, v, nv, 0, t, nt);
    snprintf(path, sizeof path, "%s/lattice_bent_plain.obj", dir);
    ok &= support_write_obj(path, plain, nv, 0, t, nt);
    snprintf(path, sizeof path, "%s/lattice_bent_refined.obj", dir);
    ok &= support_write_obj(path, m.positions, m.vertex_count, 0, m.indices, m.triangle_count);
    snprintf(path, sizeof path, "%s/lattice_cage_rest.obj", dir);
    ok &= write_cage(path, lat, 1);
    snprintf(path, sizeof path, "%s/lattice_cage_bent.obj", dir);
    ok &= write_cage(path, lat, 0);
    ok &= lattice_pictures(dir, lat, v, plain, nv, t, nt, &m); /* PNG: lattice_pictures.c */
    if (!ok) {
        fprintf(stderr, "cannot write into %s\n", dir);
        return 1;
    }
    sinew_lattice_fold_report fr;
    SINEW_INIT(&fr);
    sinew_lattice_check_folds(NULL, lat, 4, NULL, 0, &fr);
    printf("plain:   %zu triangles, largest edge error bound %.4f\n", nt, worst_bound(lat, v, t, nt));
    printf("refined: %zu triangles in %zu rounds, largest edge error bound %.4f (tolerance %.4f)\n",
           m.triangle_count, m.rounds, worst_bound(lat, m.rest_positions, m.indices, m.triangle_count),
           rd.tolerance);
    printf("fold-over check: %zu of %zu cells may fold, smallest sampled det J %.3f\n", fr.cells_may_fold,
           fr.cell_count, (double)fr.min_sampled_det);
    printf("wrote lattice_*.obj into %s\n", dir);

    sinew_lattice_refinement_destroy(ref);
    sinew_lattice_destroy(lat);
    free(cp);
    free(plain);
    free(v);
    free(t);
    return 0;
}
