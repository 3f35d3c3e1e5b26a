/* Benchmarks of surface-oriented FFD, one line per case:
 *   soffd/register: BVH registration at eps = 1e-3 against a brute-force loop
 *                   over every element (the paper's formula, then the threshold);
 *   soffd/deform:   eq. 3 with precomputed element frames and at most 8
 *                   contributors, against the straightforward loop that builds
 *                   each element's frame from the driver per contribution;
 *   soffd/deform-extended: the per-vertex-frame kernel, same baseline.
 * Driver: spot.obj (5,856 triangles); skin: 60,000 points on its surface pushed
 * off along the normal. Without the shared data, a 12,288-triangle cube cage.
 * Times are CPU seconds of the benchmark thread (best of several runs). */
#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "brute.h"
#include "fixtures.h"
#include "geom/closest_point.h"

enum { SKIN_POINTS = 60000 };

typedef struct scene {
    float *pos;
    size_t nv;
    uint32_t *tri;
    size_t nt;
    float *skin;
    size_t ns;
    support_mesh mesh;
    cage cube;
} scene;

static void sample_skin(scene *s, double L)
{
    support_rng r;
    support_rng_seed(&r, 99);
    double *cum = malloc(s->nt * sizeof(double)), total = 0;
    for (size_t t = 0; t < s->nt; ++t) {
        double a[3], b[3], c[3], ab[3], ac[3], n[3];
        bf_load(&s->pos[3 * s->tri[3 * t]], a), bf_load(&s->pos[3 * s->tri[3 * t + 1]], b);
        bf_load(&s->pos[3 * s->tri[3 * t + 2]], c);
        bf_sub(b, a, ab), bf_sub(c, a, ac), bf_cross(ab, ac, n);
        total += sqrt(bf_dot(n, n));
        cum[t] = total;
    }
    s->ns = SKIN_POINTS;
    s->skin = malloc(3 * s->ns * sizeof(float));
    for (size_t i = 0; i < s->ns; ++i) {
        double x = support_rng_uniform(&r, 0, total);
        size_t lo = 0, hi = s->nt - 1;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (cum[mid] < x) lo = mid + 1;
            else hi = mid;
        }
        double u = support_rng_uniform(&r, 0, 1), v = support_rng_uniform(&r, 0, 1);
        if (u + v > 1) u = 1 - u, v = 1 - v;
        double a[3], b[3], c[3], ab[3], ac[3], n[3];
        bf_load(&s->pos[3 * s->tri[3 * lo]], a), bf_load(&s->pos[3 * s->tri[3 * lo + 1]], b);
        bf_load(&s->pos[3 * s->tri[3 * lo + 2]], c);
        bf_sub(b, a, ab), bf_sub(c, a, ac), bf_cross(ab, ac, n);
        double nl = sqrt(bf_dot(n, n)), off = support_rng_uniform(&r, -0.5, 0.5) * L;
        for (int k = 0; k < 3; ++k) s->skin[3 * i + k] = (float)(a[k] + u * ab[k] + v * ac[k] + off * n[k] / nl);
    }
    free(cum);
}

static double brute_register(const scene *s, double L, double local, double eps, size_t first, size_t count)
{
    double *w = malloc(s->nt * sizeof(double)), checksum = 0;
    for (size_t i = first; i < first + count; ++i) {
        double p[3], wmax = 0, total = 0;
        bf_load(&s->skin[3 * i], p);
        for (size_t t = 0; t < s->nt; ++t) {
            double a[3], b[3], c[3];
            bf_load(&s->pos[3 * s->tri[3 * t]], a), bf_load(&s->pos[3 * s->tri[3 * t + 1]], b);
            bf_load(&s->pos[3 * s->tri[3 * t + 2]], c);
            w[t] = bf_weight(bf_triangle_dist2(p, a, b, c), L, local);
            wmax = fmax(wmax, w[t]);
        }
        for (size_t t = 0; t < s->nt; ++t)
            if (w[t] >= eps * wmax) total += w[t];
        for (size_t t = 0; t < s->nt; ++t) {
            if (w[t] < eps * wmax) continue;
            double a[3], b[3], c[3], m[4][3], x[3];
            bf_load(&s->pos[3 * s->tri[3 * t]], a), bf_load(&s->pos[3 * s->tri[3 * t + 1]], b);
            bf_load(&s->pos[3 * s->tri[3 * t + 2]], c);
            bf_frame(a, b, c, m), bf_local(m, p, x);
            checksum += w[t] / total * (x[0] + x[1] + x[2]);
        }
    }
    free(w);
    return checksum;
}

/* Per-contribution data for the straightforward deform loop. */
typedef struct naive {
    size_t *offsets;
    uint32_t *element;
    float *u, *xyz, *bary;
} naive;

static void naive_deform(const scene *s, const naive *nv, const float *now, float *out, int extended,
                         const float *vframes)
{
    for (size_t i = 0; i < s->ns; ++i) {
        float acc[3] = {0, 0, 0};
        for (size_t j = nv->offsets[i]; j < nv->offsets[i + 1]; ++j) {
            const uint32_t *t = &s->tri[3 * nv->element[j]];
            if (extended) {
                for (int c = 0; c < 3; ++c) {
                    const float *m = &vframes[16 * t[c]], *p = &s->skin[3 * i];
                    float wgt = nv->u[j] * nv->bary[3 * j + c];
                    for (int r = 0; r < 3; ++r)
                        acc[r] += wgt * (m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
                }
                continue;
            }
            const float *a = &now[3 * t[0]], *b = &now[3 * t[1]], *c = &now[3 * t[2]];
            float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
            float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
            float l = 1.0f / sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            const float *x = &nv->xyz[3 * j];
            for (int r = 0; r < 3; ++r) acc[r] += nv->u[j] * (a[r] + x[0] * e1[r] + x[1] * e2[r] + x[2] * n[r] * l);
        }
        memcpy(&out[3 * i], acc, sizeof acc);
    }
}

int main(void)
{
    scene s = {0};
    char path[4096];
    const char *driver_name = "spot.obj";
    if (support_data_path("common-3d-test-models/spot.obj", path, sizeof path) && support_read_obj(path, &s.mesh)) {
        s.pos = s.mesh.positions, s.nv = s.mesh.vertex_count, s.tri = s.mesh.triangles, s.nt = s.mesh.triangle_count;
    } else {
        driver_name = "cube cage";
        s.cube = make_cube_cage(32, 0);
        s.pos = s.cube.pos, s.nv = s.cube.nv, s.tri = s.cube.tris, s.nt = s.cube.nt;
    }
    sinew_polymesh m = {{s.pos, s.nv, 0}, s.tri, NULL, s.nt, SINEW_INDEX_U32};
    sinew_soffd *h = NULL;
    if (sinew_soffd_create(NULL, &m, &(sinew_soffd_desc){sizeof(sinew_soffd_desc), 0, 0, 1}, &h) != SINEW_OK) {
        fprintf(stderr, "bind failed: %s\n", sinew_last_error());
        return 1;
    }
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(h, &info);
    sample_skin(&s, info.length_scale);
    sinew_points skin = {s.skin, s.ns, 0};
    printf("# driver %s: %zu vertices, %zu elements; %zu points; L = %g, local = %g\n", driver_name, s.nv,
           info.element_count, s.ns, (double)info.length_scale, (double)info.local);

    /* Registration at eps = 1e-3: best of three, against one brute-force pass
     * (a 10 % sample, scaled, for the second falloff so the run stays short). */
    const float locals[2] = {0, 4};
    for (int li = 0; li < 2; ++li) {
        sinew_soffd_destroy(h);
        h = NULL;
        if (sinew_soffd_create(NULL, &m, &(sinew_soffd_desc){sizeof(sinew_soffd_desc), locals[li], 0, 1}, &h) != SINEW_OK) return 1;
        double best = INFINITY;
        for (int rep = 0; rep < 3; ++rep) {
            double t0 = support_cpu_now();
            if (sinew_soffd_register(NULL, h, &skin, &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), 1e-3f, UINT32_MAX, 0, 0, 0}) != SINEW_OK) return 1;
            best = fmin(best, support_cpu_now() - t0);
        }
        sinew_soffd_get_info(h, &info);
        size_t sample = li == 0 ? s.ns : s.ns / 10;
        double t0 = support_cpu_now();
        volatile double sink = brute_register(&s, info.length_scale, info.local, 1e-3, 0, sample);
        double brute = (support_cpu_now() - t0) * (double)s.ns / (double)sample;
        (void)sink;
        printf("# register, local = %g: %.1f contributors per point on average, speed-up %.1fx\n", (double)info.local,
               (double)info.contribution_count / (double)s.ns, brute / best);
        char name[160];
        snprintf(name, sizeof name, "soffd/register-%zuk-points-%zu-triangles-eps1e-3-local%g", s.ns / 1000,
                 info.element_count, (double)info.local);
        support_bench_line(name, 1e3 * best, "ms", li == 0 ? "brute force" : "brute force, 10% sample scaled",
                           1e3 * brute);
    }

    /* Deformation with at most 8 contributors per point. */
    if (sinew_soffd_register(NULL, h, &skin, &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), 1e-3f, 8, 0, 0, 0}) != SINEW_OK) return 1;
    sinew_soffd_get_info(h, &info);
    float *now = malloc(3 * s.nv * sizeof(float)), *out = malloc(3 * s.ns * sizeof(float));
    float *ref_out = malloc(3 * s.ns * sizeof(float));
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < s.nv; ++v)
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], s.pos[3 * v + k]), hi[k] = fmax(hi[k], s.pos[3 * v + k]);
    for (size_t v = 0; v < s.nv; ++v)
        for (int k = 0; k < 3; ++k)
            now[3 * v + k] = (float)((s.pos[3 * v + k] - lo[k]) / (hi[k] - lo[k]) * 2 - 1);
    bend_twist(now, now, s.nv, 0.8f);
    float *ef = malloc(16 * info.element_count * sizeof(float)), *vf = malloc(16 * s.nv * sizeof(float));
    sinew_points d = {now, s.nv, 0};
    naive nv = {malloc((s.ns + 1) * sizeof(size_t)), malloc(info.contribution_count * sizeof(uint32_t)),
                malloc(info.contribution_count * sizeof(float)), malloc(3 * info.contribution_count * sizeof(float)),
                malloc(3 * info.contribution_count * sizeof(float))};
    nv.offsets[0] = 0;
    for (size_t i = 0; i < s.ns; ++i) {
        size_t n;
        sinew_soffd_contributor_count(h, i, &n);
        size_t at = nv.offsets[i];
        sinew_soffd_contributors(h, i, &nv.element[at], &nv.u[at], n, &n);
        double p[3];
        bf_load(&s.skin[3 * i], p);
        for (size_t j = at; j < at + n; ++j) {
            double a[3], b[3], c[3], fr[4][3], x[3];
            const uint32_t *t = &s.tri[3 * nv.element[j]];
            bf_load(&s.pos[3 * t[0]], a), bf_load(&s.pos[3 * t[1]], b), bf_load(&s.pos[3 * t[2]], c);
            bf_frame(a, b, c, fr), bf_local(fr, p, x);
            for (int k = 0; k < 3; ++k) nv.xyz[3 * j + k] = (float)x[k];
            float bary[3];
            sn_closest_point_triangle(&s.skin[3 * i], &s.pos[3 * t[0]], &s.pos[3 * t[1]], &s.pos[3 * t[2]], NULL, bary);
            memcpy(&nv.bary[3 * j], bary, sizeof bary);
        }
        nv.offsets[i + 1] = at + n;
    }
    for (int ext = 0; ext < 2; ++ext) {
        double lib = INFINITY, base = INFINITY;
        for (int rep = 0; rep < 5; ++rep) {
            double t1 = support_cpu_now();
            for (int k = 0; k < 10; ++k) {
                if (ext) {
                    sinew_soffd_vertex_frames(h, &d, vf, sinew_soffd_vertex_frames_size(h));
                    sinew_soffd_deform_extended(h, vf, sinew_soffd_vertex_frames_size(h), NULL, out, 0, NULL, 0, 0, s.ns);
                } else {
                    sinew_soffd_element_frames(h, &d, ef, sinew_soffd_element_frames_size(h));
                    sinew_soffd_deform(h, ef, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 0, s.ns);
                }
            }
            lib = fmin(lib, (support_cpu_now() - t1) / 10);
            t1 = support_cpu_now();
            for (int k = 0; k < 10; ++k) naive_deform(&s, &nv, now, ref_out, ext, vf);
            base = fmin(base, (support_cpu_now() - t1) / 10);
        }
        double diff = 0;
        for (size_t i = 0; i < 3 * s.ns; ++i) diff = fmax(diff, fabs(out[i] - ref_out[i]));
        printf("# deform%s: %.2f contributors per point, largest difference from the plain loop %g\n",
               ext ? "-extended" : "", (double)info.contribution_count / (double)s.ns, diff);
        support_bench_line(ext ? "soffd/deform-extended-max8" : "soffd/deform-max8", s.ns / lib / 1e6, "M points/s",
                           "plain loop", s.ns / base / 1e6);
    }
    /* The same deforms with normals (the frames computed once, outside the
     * timing), against the same deforms without them. */
    float *normals = malloc(3 * s.ns * sizeof(float)), *out_n = malloc(3 * s.ns * sizeof(float));
    for (size_t i = 0; i < 3 * s.ns; ++i) normals[i] = i % 3 == 2 ? 1.0f : 0.25f;
    sinew_points nview = {normals, s.ns, 0};
    sinew_soffd_element_frames(h, &d, ef, sinew_soffd_element_frames_size(h));
    sinew_soffd_vertex_frames(h, &d, vf, sinew_soffd_vertex_frames_size(h));
    for (int ext = 0; ext < 2; ++ext) {
        double with = INFINITY, without = INFINITY;
        const float *frames = ext ? vf : ef;
        for (int rep = 0; rep < 5; ++rep)
            for (int normal = 0; normal < 2; ++normal) {
                double t1 = support_cpu_now();
                for (int k = 0; k < 10; ++k) {
                    const sinew_points *nin = normal ? &nview : NULL;
                    float *nout = normal ? out_n : NULL;
                    if (ext) sinew_soffd_deform_extended(h, frames, sinew_soffd_vertex_frames_size(h), nin, out, 0, nout, 0, 0, s.ns);
                    else sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), nin, out, 0, nout, 0, 0, s.ns);
                }
                double t = (support_cpu_now() - t1) / 10;
                if (normal) with = fmin(with, t);
                else without = fmin(without, t);
            }
        support_bench_line(ext ? "soffd/deform-extended-normals-max8" : "soffd/deform-normals-max8", s.ns / with / 1e6,
                           "M points/s", "positions only", s.ns / without / 1e6);
    }
    free(normals), free(out_n);
    sinew_soffd_destroy(h);
    free(now), free(out), free(ref_out), free(ef), free(vf);
    free(nv.offsets), free(nv.element), free(nv.u), free(nv.xyz), free(nv.bary);
    free(s.skin);
    support_mesh_free(&s.mesh);
    cage_free(&s.cube);
    return 0;
}
