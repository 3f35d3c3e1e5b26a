/* SOFFD registration at the defaults beside the exact formula, per mesh of
 * the shared data (the skin's own vertices registered on a driver made from
 * it by sinew_soffd_driver_from_skin, or beetle.obj driving beetle-alt.obj):
 *   soffd/defaults/<mesh>/memory:   bytes the registration adds to the handle
 *                                   per point, against exact registration;
 *   soffd/defaults/<mesh>/register: CPU time of sinew_soffd_register, against
 *                                   exact registration;
 * and one information line per mesh with the error of the default against
 * the exact formula under a bend and twist of the driver (largest and mean
 * displacement difference, basic and extended kernels, in units of the
 * skin's box diagonal), the largest step (basic kernel, same units): the
 * STEP_EDGES skin edges whose ends' displacements the pruning separates most
 * against the exact formula are each cut into STEP_PIECES pieces, and the
 * largest change of the deformed position across one piece is reported
 * beside the exact formula's on the same pieces (a step stays as the pieces
 * shrink, a continuous change shrinks with them), the contributors per
 * point and the dropped mass.
 * Times are CPU seconds of the benchmark thread, best of ROUNDS runs, the two
 * registrations interleaved.
 * SOFFD_POLICY="eps cap" in the environment registers with that policy
 * instead of the defaults (to compare candidate defaults). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../bbw/bbw_rigs.h"
#include "../../soffd/fixtures.h"
#include "support.h"

enum { ROUNDS = 3, DRIVER_TRIANGLES = 400, DRIVER_MIN_TRIANGLES = 64, STEP_EDGES = 16, STEP_PIECES = 256 };

typedef struct mesh_case {
    char name[48];
    float *driver;
    size_t driver_vertices;
    uint32_t *triangles;
    size_t triangle_count;
    float *points;
    size_t point_count;
    uint32_t *skin_triangles; /* 3 per triangle of the skin the points are the vertices of */
    size_t skin_triangle_count;
} mesh_case;

static void *copy_of(const void *p, size_t bytes)
{
    void *q = malloc(bytes);
    if (q) memcpy(q, p, bytes);
    return q;
}

static void case_free(mesh_case *c)
{
    free(c->driver), free(c->triangles), free(c->points), free(c->skin_triangles);
}

/* A rig's skin as the points, its driver from sinew_soffd_driver_from_skin
 * with the skeleton (a quarter of the skin's triangles, 64 to 400). */
static bool rig_case(const char *rig, mesh_case *c)
{
    bbw_rig r;
    const char *why = NULL;
    if (!bbw_rig_load(bbw_rig_find(rig), &r, &why)) return false;
    sinew_polymesh skin = {{r.positions, r.vertex_count, 0}, r.triangles, NULL, r.triangle_count, 0};
    sinew_soffd_driver_desc d;
    SINEW_INIT(&d);
    size_t t = r.triangle_count / 4;
    d.target_triangle_count = t > DRIVER_TRIANGLES ? DRIVER_TRIANGLES : t < DRIVER_MIN_TRIANGLES ? DRIVER_MIN_TRIANGLES : t;
    d.joint_positions = (sinew_points){r.joints, r.joint_count, 0};
    d.bones = r.bones;
    d.bone_count = r.bone_count;
    sinew_soffd_driver_report rep;
    SINEW_INIT(&rep);
    bool ok = sinew_soffd_driver_from_skin(NULL, &skin, &d, NULL, 0, NULL, 0, &rep) == SINEW_OK;
    if (ok) {
        memset(c, 0, sizeof *c);
        snprintf(c->name, sizeof c->name, "%s", rig);
        c->driver = malloc(3 * rep.vertex_count * sizeof(float));
        c->triangles = malloc(3 * rep.triangle_count * sizeof(uint32_t));
        ok = sinew_soffd_driver_from_skin(NULL, &skin, &d, c->driver, rep.vertex_count, c->triangles,
                                          rep.triangle_count, &rep) == SINEW_OK;
        c->driver_vertices = rep.vertex_count, c->triangle_count = rep.triangle_count;
        c->points = copy_of(r.positions, 3 * r.vertex_count * sizeof(float));
        c->point_count = r.vertex_count;
        c->skin_triangles = copy_of(r.triangles, 3 * r.triangle_count * sizeof(uint32_t));
        c->skin_triangle_count = r.triangle_count;
        if (!ok) case_free(c);
    }
    bbw_rig_free(&r);
    return ok;
}

/* beetle.obj (its own coarse version) driving beetle-alt.obj's vertices. */
static bool beetle_case(mesh_case *c)
{
    char dpath[4096], spath[4096];
    support_mesh dm, sm;
    if (!support_data_path("common-3d-test-models/beetle.obj", dpath, sizeof dpath) ||
        !support_data_path("common-3d-test-models/beetle-alt.obj", spath, sizeof spath) ||
        !support_read_obj(dpath, &dm))
        return false;
    if (!support_read_obj(spath, &sm)) {
        support_mesh_free(&dm);
        return false;
    }
    /* beetle-alt is centred and larger: its box mapped onto beetle's (as test_soffd_data.c does). */
    double dlo[3], dhi[3];
    fit_box_onto(dm.positions, dm.vertex_count, sm.positions, sm.vertex_count, dlo, dhi);
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "beetle");
    c->driver = copy_of(dm.positions, 3 * dm.vertex_count * sizeof(float));
    c->driver_vertices = dm.vertex_count;
    c->triangles = copy_of(dm.triangles, 3 * dm.triangle_count * sizeof(uint32_t));
    c->triangle_count = dm.triangle_count;
    c->points = copy_of(sm.positions, 3 * sm.vertex_count * sizeof(float));
    c->point_count = sm.vertex_count;
    c->skin_triangles = copy_of(sm.triangles, 3 * sm.triangle_count * sizeof(uint32_t));
    c->skin_triangle_count = sm.triangle_count;
    support_mesh_free(&dm);
    support_mesh_free(&sm);
    return true;
}

/* The driver bent and twisted (fixtures.h bend_twist) in coordinates
 * centred on the skin's box and scaled by its half diagonal. */
static void pose_driver(const mesh_case *c, const double lo[3], const double hi[3], double diag, float *out)
{
    double half = diag / 2;
    float *q = malloc(3 * c->driver_vertices * sizeof(float));
    for (size_t v = 0; v < c->driver_vertices; ++v)
        for (int k = 0; k < 3; ++k) q[3 * v + k] = (float)((c->driver[3 * v + k] - (lo[k] + hi[k]) / 2) / half);
    bend_twist(q, q, c->driver_vertices, 0.6f);
    for (size_t v = 0; v < c->driver_vertices; ++v)
        for (int k = 0; k < 3; ++k) out[3 * v + k] = (float)(q[3 * v + k] * half + (lo[k] + hi[k]) / 2);
    free(q);
}

static size_t memory_of(const sinew_soffd *h)
{
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(h, &info);
    return info.memory_bytes;
}

/* Largest distance between consecutive points of n. */
static double largest_jump(const float *p, size_t n)
{
    double worst = 0;
    for (size_t k = 1; k < n; ++k) {
        double d2 = 0;
        for (int q = 0; q < 3; ++q) d2 += pow((double)p[3 * k + q] - p[3 * k - 3 + q], 2);
        worst = fmax(worst, sqrt(d2));
    }
    return worst;
}

/* The largest change of the deformed position across one of STEP_PIECES
 * pieces of the segment from rest point i to rest point j, under the policy
 * (out[0]) and the exact formula (out[1]), on a handle bound as h was. */
static void refined_jumps(const mesh_case *c, sinew_soffd *h, const sinew_soffd_register_desc *policy, const float *now,
                          uint32_t i, uint32_t j, double out[2])
{
    enum { M = STEP_PIECES + 1 };
    static float seg[3 * M], def[3 * M];
    for (int m = 0; m < M; ++m)
        for (int q = 0; q < 3; ++q)
            seg[3 * m + q] = c->points[3 * i + q] + (float)m / (M - 1) * (c->points[3 * j + q] - c->points[3 * i + q]);
    sinew_points sp = {seg, M, 0};
    sinew_soffd_register_desc ex;
    SINEW_INIT(&ex);
    ex.exact = 1;
    for (int k = 0; k < 2; ++k) {
        if (sinew_soffd_register(NULL, h, &sp, k ? &ex : policy) != SINEW_OK ||
            lib_deform(h, now, c->driver_vertices, def) != SINEW_OK)
            exit(1);
        out[k] = largest_jump(def, M);
    }
}

static void run_case(const mesh_case *c, const sinew_soffd_register_desc *policy)
{
    sinew_polymesh m = {{c->driver, c->driver_vertices, 0}, c->triangles, NULL, c->triangle_count, SINEW_INDEX_U32};
    sinew_soffd_desc bd;
    SINEW_INIT(&bd);
    bd.skip_degenerate = 1;
    sinew_soffd *exact = NULL, *pruned = NULL;
    if (sinew_soffd_create(NULL, &m, &bd, &exact) != SINEW_OK || sinew_soffd_create(NULL, &m, &bd, &pruned) != SINEW_OK) {
        fprintf(stderr, "%s: bind failed: %s\n", c->name, sinew_last_error());
        exit(1);
    }
    size_t bind_bytes = memory_of(pruned);
    sinew_soffd_register_desc ex;
    SINEW_INIT(&ex);
    ex.exact = 1;
    sinew_points pts = {c->points, c->point_count, 0};
    double t_exact = INFINITY, t_default = INFINITY;
    for (int k = 0; k < ROUNDS; ++k) {
        double t0 = support_cpu_now();
        if (sinew_soffd_register(NULL, exact, &pts, &ex) != SINEW_OK) exit(1);
        t_exact = fmin(t_exact, support_cpu_now() - t0);
        t0 = support_cpu_now();
        if (sinew_soffd_register(NULL, pruned, &pts, policy) != SINEW_OK) exit(1);
        t_default = fmin(t_default, support_cpu_now() - t0);
    }
    double per_exact = (double)(memory_of(exact) - bind_bytes) / (double)c->point_count;
    double per_default = (double)(memory_of(pruned) - bind_bytes) / (double)c->point_count;
    char name[96];
    snprintf(name, sizeof name, "soffd/defaults/%s/memory", c->name);
    support_bench_line(name, per_default, "B/point", "exact", per_exact);
    snprintf(name, sizeof name, "soffd/defaults/%s/register", c->name);
    support_bench_line(name, 1e3 * t_default, "ms", "exact", 1e3 * t_exact);

    double lo[3], hi[3], diag = box_diagonal(c->points, c->point_count, lo, hi);
    float *now = malloc(3 * c->driver_vertices * sizeof(float));
    pose_driver(c, lo, hi, diag, now);
    float *a = malloc(3 * c->point_count * sizeof(float)), *b = malloc(3 * c->point_count * sizeof(float));
    double err_max[2] = {0, 0}, err_mean[2] = {0, 0};
    double worst[STEP_EDGES] = {0}; /* the edges the pruning separates most, most first */
    uint32_t worst_edge[STEP_EDGES][2] = {{0}};
    for (int ext = 0; ext < 2; ++ext) {
        if ((ext ? lib_deform_extended(exact, now, c->driver_vertices, a) : lib_deform(exact, now, c->driver_vertices, a)) != SINEW_OK ||
            (ext ? lib_deform_extended(pruned, now, c->driver_vertices, b) : lib_deform(pruned, now, c->driver_vertices, b)) != SINEW_OK)
            exit(1);
        for (size_t i = 0; i < c->point_count; ++i) {
            double dx = a[3 * i] - b[3 * i], dy = a[3 * i + 1] - b[3 * i + 1], dz = a[3 * i + 2] - b[3 * i + 2];
            double e = sqrt(dx * dx + dy * dy + dz * dz) / diag;
            err_max[ext] = fmax(err_max[ext], e);
            err_mean[ext] += e / (double)c->point_count;
        }
        /* How much more two neighbours' displacements differ than the exact
         * formula makes them (where the cap swaps elements the pruned surface steps). */
        for (size_t t = 0; !ext && t < c->skin_triangle_count; ++t)
            for (int k = 0; k < 3; ++k) {
                uint32_t i = c->skin_triangles[3 * t + k], j = c->skin_triangles[3 * t + (k + 1) % 3];
                double da = 0, db = 0;
                for (int q = 0; q < 3; ++q) {
                    double pa = (b[3 * i + q] - c->points[3 * i + q]) - (b[3 * j + q] - c->points[3 * j + q]);
                    double ea = (a[3 * i + q] - c->points[3 * i + q]) - (a[3 * j + q] - c->points[3 * j + q]);
                    da += pa * pa, db += ea * ea;
                }
                double added = sqrt(da) - sqrt(db);
                int at = STEP_EDGES;
                while (at > 0 && added > worst[at - 1]) --at;
                if (at == STEP_EDGES) continue;
                memmove(&worst[at + 1], &worst[at], (STEP_EDGES - 1 - at) * sizeof *worst);
                memmove(&worst_edge[at + 1], &worst_edge[at], (STEP_EDGES - 1 - at) * sizeof *worst_edge);
                worst[at] = added, worst_edge[at][0] = i, worst_edge[at][1] = j;
            }
    }
    double step = 0, step_exact = 0;
    for (int k = 0; k < STEP_EDGES && worst[k] > 0; ++k) {
        double jumps[2];
        refined_jumps(c, pruned, policy, now, worst_edge[k][0], worst_edge[k][1], jumps);
        step = fmax(step, jumps[0] / diag), step_exact = fmax(step_exact, jumps[1] / diag);
    }
    if (sinew_soffd_register(NULL, pruned, &pts, policy) != SINEW_OK) exit(1);
    double dm_max = 0, dm_mean = 0;
    for (size_t i = 0; i < c->point_count; ++i) {
        float mass = 0;
        sinew_soffd_dropped_mass(pruned, i, &mass);
        dm_max = fmax(dm_max, mass);
        dm_mean += mass / (double)c->point_count;
    }
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(pruned, &info);
    printf("  %s: %zu points, driver %zu triangles; %.2f contributors per point (at most %zu); error against "
           "exact (of the diagonal): basic max %.2e mean %.2e, extended max %.2e mean %.2e; largest step across a skin "
           "piece %.2e (exact %.2e); dropped mass max %.3f mean %.4f; handle %.0f B/point with the bind\n",
           c->name, c->point_count, info.element_count, (double)info.contribution_count / (double)c->point_count,
           info.max_set_size, err_max[0], err_mean[0], err_max[1], err_mean[1], step, step_exact, dm_max, dm_mean,
           (double)info.memory_bytes / (double)c->point_count);
    free(now), free(a), free(b);
    sinew_soffd_destroy(exact);
    sinew_soffd_destroy(pruned);
}

int main(void)
{
    sinew_soffd_register_desc policy;
    SINEW_INIT(&policy);
    const char *env = getenv("SOFFD_POLICY");
    if (env) {
        double eps = 0;
        unsigned cap = 0;
        if (sscanf(env, "%lf %u", &eps, &cap) != 2) return 2;
        policy.weight_threshold = (float)eps;
        policy.max_contributors = cap;
        printf("# policy: weight_threshold %g, max_contributors %u\n", eps, cap);
    }
    const char *rigs[] = {"RiggedFigure", "Fox", "arm", "spot-chain", "cow-chain"};
    for (size_t i = 0; i <= sizeof rigs / sizeof *rigs; ++i) {
        mesh_case c;
        const char *name = i < sizeof rigs / sizeof *rigs ? rigs[i] : "beetle";
        bool ok = i < sizeof rigs / sizeof *rigs ? rig_case(name, &c) : beetle_case(&c);
        if (!ok) {
            printf("soffd/defaults/%s: skipped (no data)\n", name);
            continue;
        }
        run_case(&c, &policy);
        case_free(&c);
    }
    return 0;
}
