/*
 * Saving and loading bounded biharmonic weights: libigl's hand (7,234
 * vertices, 29,998 tets, 20 bones), solved with the defaults.
 *   serialize/bbw-save   bytes of saved data per second, against a plain
 *                        memcpy of the same number of bytes
 *   serialize/bbw-load   the same for the load (every check, the point-
 *                        location grid and the region recount included)
 *   serialize/bbw-load-vs-solve  seconds of a load against the create +
 *                        solve it replaces
 * Figures are CPU seconds of the calling thread, best of several runs (the
 * machine is shared). Skips when the shared data is absent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew.h"

#include "support.h"

/* Read back after the copies, so they cannot be elided. */
static volatile unsigned char memcpy_sink;

/* Best CPU seconds of `reps` memcpy's of size bytes. */
static double memcpy_seconds(const unsigned char *src, size_t size, int reps)
{
    unsigned char *dst = malloc(size);
    double best = 1e30;
    for (int rep = 0; rep < reps; ++rep) {
        double t0 = support_cpu_now();
        memcpy(dst, src, size);
        double t1 = support_cpu_now();
        memcpy_sink = dst[(size_t)rep % size];
        if (t1 - t0 < best) best = t1 - t0;
    }
    free(dst);
    return best;
}

int main(void)
{
    char mp[1024], tp[1024];
    if (!support_data_path("libigl-tutorial-data/hand.mesh", mp, sizeof mp) ||
        !support_data_path("libigl-tutorial-data/hand.tgf", tp, sizeof tp)) {
        printf("serialize/bbw: skipped (data not found)\n");
        return 0;
    }
    support_mesh mesh = {0};
    float *joints = NULL;
    uint32_t *bones = NULL;
    size_t jc, bc;
    if (!support_read_medit(mp, &mesh) || !support_read_tgf(tp, &joints, &jc, &bones, &bc)) {
        printf("serialize/bbw: skipped (data unreadable)\n");
        return 0;
    }
    sinew_tetmesh tm = {support_mesh_points(&mesh), mesh.tets, mesh.tet_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tm;
    d.joint_positions = (sinew_points){joints, jc, 0};
    d.bones = bones;
    d.bone_count = bc;
    double t0 = support_cpu_now();
    sinew_bbw *b = NULL;
    if (sinew_bbw_create(NULL, &d, &b) != SINEW_OK || sinew_bbw_solve(NULL, b, NULL) != SINEW_OK) {
        printf("serialize/bbw: create or solve failed: %s\n", sinew_last_error());
        return 1;
    }
    double bind_seconds = support_cpu_now() - t0;

    size_t size = 0;
    sinew_bbw_save(b, NULL, 0, &size);
    unsigned char *buf = malloc(size);
    const int reps = 20;
    double save = 1e30, load = 1e30;
    for (int rep = 0; rep < reps; ++rep) {
        size_t written = 0;
        double s0 = support_cpu_now();
        sinew_result r = sinew_bbw_save(b, buf, size, &written);
        double s1 = support_cpu_now();
        if (r != SINEW_OK) {
            printf("serialize/bbw-save: failed: %s\n", sinew_last_error());
            return 1;
        }
        if (s1 - s0 < save) save = s1 - s0;
    }
    for (int rep = 0; rep < reps; ++rep) {
        sinew_bbw *loaded = NULL;
        double l0 = support_cpu_now();
        sinew_result r = sinew_bbw_load(NULL, buf, size, &loaded);
        double l1 = support_cpu_now();
        if (r != SINEW_OK) {
            printf("serialize/bbw-load: failed: %s\n", sinew_last_error());
            return 1;
        }
        sinew_bbw_destroy(loaded);
        if (l1 - l0 < load) load = l1 - l0;
    }
    double copy = memcpy_seconds(buf, size, reps);
    double gb = (double)size / 1e9;
    support_bench_line("serialize/bbw-save", gb / save, "GB/s", "memcpy", gb / copy);
    support_bench_line("serialize/bbw-load", gb / load, "GB/s", "memcpy", gb / copy);
    support_bench_line("serialize/bbw-load-vs-solve", load, "s", "create + solve", bind_seconds);
    printf("  (serialize/bbw: %zu bytes; save %.3f ms, load %.3f ms, memcpy %.3f ms)\n", size, 1e3 * save,
           1e3 * load, 1e3 * copy);
    free(buf);
    sinew_bbw_destroy(b);
    free(joints);
    free(bones);
    support_mesh_free(&mesh);
    return 0;
}
