/*
 * Bounded biharmonic weights on the domains users bring,
 * default settings, one line per domain and tolerance: thread CPU seconds of
 * create + solve, iterations, polish rounds, certified bound, result.
 *   octopus3-*   libigl octopus-low.mesh, point handles at vertices 0, 226, 451
 *   octopus9-*   the same mesh, 9 points: the centre and 8 farthest-point
 *                samples (the tentacle tips)
 *   2d-*         examples/bbw/bbw_2d's notched rectangle (2 points, a bone, a cage)
 *   spot32-*, spot48-*  spot.obj through the automatic voxel volume, 6 points
 *                (farthest-point samples pushed 1.5 cells inwards)
 *   spot32-warm16-*, spot48-warm24-*  the same, warm-started from the weights
 *                of the half-resolution volume (solved to 1e-3, sampled at
 *                the fine vertices); the time includes the coarse create,
 *                solve and sampling
 *   spot32-cold-*, spot48-cold-*  the same without the automatic
 *                coarse-to-fine restart (coarse_levels = SINEW_BBW_COARSE_NONE)
 *   spot32-levels2-*, spot48-levels2-*  the library's own coarse-to-fine
 *                start from the first iteration (coarse_levels = 2)
 *   hand-*       libigl's hand.mesh with its hand.tgf skeleton (20 bones)
 * Usage: bench_bbw_domains [name-filter] [threads]; with no filter the heavy
 * spot48 cases are left out (name them to run them). With threads > 1 the
 * figure is wall time (the host's pool runs the library's parallel loops),
 * else the thread's CPU time.
 */
#define _POSIX_C_SOURCE 200809L /* pthreads (bbw_pool.h) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew.h"

#include "support.h"
#include "../../bbw/bbw_dataset.h"
#include "../../bbw/bbw_pool.h"

static bbw_pool pool;

static sinew_context *make_context(int threads)
{
    if (threads <= 1) return NULL;
    pool.threads = threads;
    return bbw_pool_context(&pool, 0, (uint32_t)threads);
}

/* The start for b: the weights of `coarse` (solved to 1e-3) at b's
 * vertices. NULL on failure (printed). */
static float *coarse_start(sinew_context *ctx, const sinew_bbw_desc *coarse, const sinew_bbw *b, size_t *count,
                           char *note, size_t note_size)
{
    sinew_bbw *cb = NULL;
    sinew_bbw_info ci, fi;
    SINEW_INIT(&ci);
    SINEW_INIT(&fi);
    sinew_bbw_get_info(b, &fi);
    float *verts = malloc(fi.vertex_count * 3 * sizeof(float));
    float *start = malloc(fi.vertex_count * fi.handle_count * sizeof(float));
    sinew_bbw_solve_desc cs;
    SINEW_INIT(&cs);
    cs.tolerance = 1e-3;
    sinew_points at = {verts, fi.vertex_count, 0};
    sinew_result r = sinew_bbw_create(ctx, coarse, &cb);
    if (r == SINEW_OK) r = sinew_bbw_solve(ctx, cb, &cs);
    if (r == SINEW_OK) r = sinew_bbw_domain_vertices(b, verts, 0, 0, fi.vertex_count);
    if (r == SINEW_OK) r = sinew_bbw_point_weights(cb, &at, start, 0, fi.vertex_count);
    sinew_bbw_get_info(cb, &ci);
    snprintf(note, note_size, "coarse %zu v, %u iterations, ", ci.vertex_count, ci.iterations);
    sinew_bbw_destroy(cb);
    free(verts);
    if (r != SINEW_OK) {
        printf("  coarse start: %s: %s\n", sinew_result_string(r), sinew_last_error());
        free(start);
        return NULL;
    }
    *count = fi.vertex_count * fi.handle_count;
    return start;
}

static void run(const char *name, const sinew_bbw_desc *d, const sinew_bbw_desc *coarse, uint32_t levels, double tol,
                int threads)
{
    sinew_context *ctx = make_context(threads);
    double t0 = support_cpu_now(), w0 = support_now();
    sinew_bbw *b = NULL;
    sinew_result r = sinew_bbw_create(ctx, d, &b);
    if (r != SINEW_OK) {
        printf("bbw-domain/%s: create %s: %s\n", name, sinew_result_string(r), sinew_last_error());
        sinew_context_destroy(ctx);
        return;
    }
    double t1 = support_cpu_now();
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.tolerance = tol;
    sd.coarse_levels = levels;
    char note[96] = "";
    float *start = coarse ? coarse_start(ctx, coarse, b, &sd.initial_weights_count, note, sizeof note) : NULL;
    sd.initial_weights = start;
    r = coarse && !start ? SINEW_ERROR_INVALID_STATE : sinew_bbw_solve(ctx, b, &sd);
    free(start);
    double t2 = support_cpu_now(), w2 = support_now();
    sinew_bbw_info info;
    SINEW_INIT(&info);
    sinew_bbw_get_info(b, &info);
    char label[512];
    if (!coarse) snprintf(note, sizeof note, "%u coarse level(s) used, ", info.coarse_levels_used);
    snprintf(label, sizeof label,
             "(%zu v, %zu el, %zu handles, tol %.0e, %d thread(s): %screate %.3f s, %u iterations, %u polish rounds, "
             "bound %.2e, wall %.3f s, %s%s%s) create",
             info.vertex_count, info.element_count, info.handle_count, tol, threads, note, t1 - t0, info.iterations,
             info.polish_rounds, info.error_bound, w2 - w0, sinew_result_string(r), r == SINEW_OK ? "" : ": ",
             r == SINEW_OK ? "" : sinew_last_error());
    support_bench_line(name, threads > 1 ? w2 - w0 : t2 - t0, "s", label, t1 - t0);
    sinew_bbw_destroy(b);
    sinew_context_destroy(ctx);
}

static int wanted(const char *name, const char *filter)
{
    if (filter) return strstr(name, filter) != NULL;
    return strstr(name, "spot48") == NULL;
}

static void run_tolerances(const char *base, const sinew_bbw_desc *d, const sinew_bbw_desc *coarse, uint32_t levels,
                           const char *filter, int threads)
{
    static const double tols[2] = {1e-4, 1e-6};
    for (int k = 0; k < 2; ++k) {
        char name[96];
        snprintf(name, sizeof name, "bbw-domain/%s-%s", base, k ? "1e-6" : "1e-4");
        if (wanted(name, filter)) run(name, d, coarse, levels, tols[k], threads);
    }
}

static void bench_octopus(const char *filter, int threads)
{
    char path[1024];
    support_mesh mesh = {0};
    if (!support_data_path("libigl-tutorial-data/octopus-low.mesh", path, sizeof path) ||
        !support_read_medit(path, &mesh)) {
        printf("bbw-domain/octopus: skipped (data not found)\n");
        return;
    }
    sinew_tetmesh tm = {support_mesh_points(&mesh), mesh.tets, mesh.tet_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tm;
    float three[9];
    const uint32_t picks[3] = {0, 226, 451};
    for (int k = 0; k < 3; ++k) memcpy(three + 3 * k, mesh.positions + 3 * picks[k], 3 * sizeof(float));
    d.points.data = three;
    d.points.count = 3;
    run_tolerances("octopus3", &d, NULL, 0, filter, threads);
    float nine[27];
    bbw_centre_and_farthest_points(mesh.positions, mesh.vertex_count, 8, nine);
    d.points.data = nine;
    d.points.count = 9;
    run_tolerances("octopus9", &d, NULL, 0, filter, threads);
    support_mesh_free(&mesh);
}

/* examples/bbw/bbw_2d's shape and handles. */
static void bench_2d(const char *filter, int threads)
{
    enum { NX = 48, NY = 24 };
    size_t nv = (NX + 1) * (NY + 1);
    float *pos = malloc(nv * 3 * sizeof(float));
    uint32_t *tri = malloc(NX * NY * 6 * sizeof(uint32_t));
    for (size_t j = 0; j <= NY; ++j)
        for (size_t i = 0; i <= NX; ++i) {
            float *p = pos + 3 * (j * (NX + 1) + i);
            p[0] = 4.0f * (float)i / NX;
            p[1] = 2.0f * (float)j / NY;
            p[2] = 0.0f;
        }
    size_t tc = 0;
    for (size_t j = 0; j < NY; ++j)
        for (size_t i = 0; i < NX; ++i) {
            double cx = (i + 0.5) * 4.0 / NX, cy = (j + 0.5) * 2.0 / NY;
            if (cx > 1.5 && cx < 2.5 && cy > 1.0) continue;
            uint32_t a = (uint32_t)(j * (NX + 1) + i), b = a + 1, c = a + NX + 2, e = a + NX + 1;
            uint32_t t[6] = {a, b, c, a, c, e};
            memcpy(tri + 3 * tc, t, sizeof t);
            tc += 2;
        }
    sinew_trimesh shape = {{pos, nv, 0}, tri, tc, SINEW_INDEX_U32, 0};
    float points[6] = {0.5f, 0.5f, 0.0f, 3.5f, 1.5f, 0.0f};
    float joints[6] = {1.0f, 1.5f, 0.0f, 1.0f, 0.5f, 0.0f};
    uint32_t bones[2] = {0, 1};
    float cage_pts[12] = {2.75f, 0.25f, 0, 3.75f, 0.25f, 0, 3.75f, 0.75f, 0, 2.75f, 0.75f, 0};
    uint32_t cage_edges[8] = {0, 1, 1, 2, 2, 3, 3, 0};
    sinew_bbw_cage cage = {{cage_pts, 4, 0}, cage_edges, 4, NULL, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &shape;
    d.points.data = points;
    d.points.count = 2;
    d.joint_positions.data = joints;
    d.joint_positions.count = 2;
    d.bones = bones;
    d.bone_count = 1;
    d.cages = &cage;
    d.cage_count = 1;
    run_tolerances("2d", &d, NULL, 0, filter, threads);
    free(pos);
    free(tri);
}

static void bench_spot(const char *filter, int threads)
{
    char path[1024];
    support_mesh mesh = {0};
    if (!support_data_path("common-3d-test-models/spot.obj", path, sizeof path) || !support_read_obj(path, &mesh)) {
        printf("bbw-domain/spot: skipped (data not found)\n");
        return;
    }
    double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30}, centre[3] = {0, 0, 0};
    for (size_t v = 0; v < mesh.vertex_count; ++v)
        for (int a = 0; a < 3; ++a) {
            lo[a] = fmin(lo[a], mesh.positions[3 * v + a]);
            hi[a] = fmax(hi[a], mesh.positions[3 * v + a]);
            centre[a] += mesh.positions[3 * v + a] / (double)mesh.vertex_count;
        }
    double longest = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    double *normals = calloc(mesh.vertex_count * 3, sizeof(double));
    for (size_t t = 0; t < mesh.triangle_count; ++t) {
        const uint32_t *tv = mesh.triangles + 3 * t;
        double e1[3], e2[3];
        for (int a = 0; a < 3; ++a) {
            e1[a] = mesh.positions[3 * tv[1] + a] - mesh.positions[3 * tv[0] + a];
            e2[a] = mesh.positions[3 * tv[2] + a] - mesh.positions[3 * tv[0] + a];
        }
        double c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int k = 0; k < 3; ++k)
            for (int a = 0; a < 3; ++a) normals[3 * tv[k] + a] += c[a];
    }
    sinew_trimesh surf = support_mesh_trimesh(&mesh);
    static const uint32_t resolutions[2] = {32, 48};
    for (int k = 0; k < 2; ++k) {
        float pts[18];
        bbw_farthest_points(mesh.positions, mesh.vertex_count, centre, 6, pts, normals,
                        1.5 * longest / resolutions[k]);
        sinew_bbw_desc d;
        SINEW_INIT(&d);
        d.surface = &surf;
        d.grid_resolution = resolutions[k];
        d.points.data = pts;
        d.points.count = 6;
        char base[32];
        snprintf(base, sizeof base, "spot%u", resolutions[k]);
        run_tolerances(base, &d, NULL, 0, filter, threads);
        snprintf(base, sizeof base, "spot%u-cold", resolutions[k]);
        run_tolerances(base, &d, NULL, SINEW_BBW_COARSE_NONE, filter, threads);
        sinew_bbw_desc coarse = d;
        coarse.grid_resolution = resolutions[k] / 2;
        snprintf(base, sizeof base, "spot%u-warm%u", resolutions[k], resolutions[k] / 2);
        run_tolerances(base, &d, &coarse, 0, filter, threads);
        snprintf(base, sizeof base, "spot%u-levels2", resolutions[k]);
        run_tolerances(base, &d, NULL, 2, filter, threads);
    }
    free(normals);
    support_mesh_free(&mesh);
}

/* The hand with its skeleton: the data set's "hand-mesh-skeleton" case. */
static void bench_hand(const char *filter, int threads)
{
    bbw_case c;
    const char *why = "not in the data set";
    size_t i = bbw_dataset_find("hand-mesh-skeleton");
    if (i == SIZE_MAX || !bbw_dataset_load(i, &c, &why)) {
        printf("bbw-domain/hand: skipped (%s)\n", why);
        return;
    }
    sinew_bbw_desc d;
    bbw_dataset_desc(&c, &d);
    run_tolerances("hand", &d, NULL, 0, filter, threads);
    bbw_dataset_free(&c);
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
    int threads = argc > 2 ? atoi(argv[2]) : 1;
    bench_octopus(filter, threads);
    bench_2d(filter, threads);
    bench_spot(filter, threads);
    bench_hand(filter, threads);
    return 0;
}
