/* Drivers made from the skin, one group of lines per character of the rig
 * set (RiggedFigure, Fox, the libigl arm):
 *   soffd-driver/<rig>:          CPU time of sinew_soffd_driver_from_skin to
 *                                a quarter of the skin's triangles (64 to
 *                                400, target_of) with the rig's
 *                                skeleton, against the same call without it
 *                                (no joint emphasis);
 *   soffd-driver/<rig>/distance: the reported largest distance from the skin's
 *                                vertices to the driver, as a fraction of the
 *                                box diagonal, against the call without
 *                                skeleton;
 * and one information line with the skin's and the driver's sizes.
 * Times are CPU seconds of the benchmark thread, best of ROUNDS runs, the two
 * calls interleaved. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../bbw/bbw_rigs.h"
#include "support.h"

enum { ROUNDS = 3, DRIVER_TRIANGLES = 400, DRIVER_MIN_TRIANGLES = 64 };

/* A quarter of the skin's triangles, within [DRIVER_MIN_TRIANGLES,
 * DRIVER_TRIANGLES]: a driver some times coarser than even a low-poly skin. */
static size_t target_of(const bbw_rig *r)
{
    size_t t = r->triangle_count / 4;
    return t > DRIVER_TRIANGLES ? DRIVER_TRIANGLES : t < DRIVER_MIN_TRIANGLES ? DRIVER_MIN_TRIANGLES : t;
}

static double run(const bbw_rig *r, bool skeleton, sinew_soffd_driver_report *rep)
{
    sinew_polymesh skin = {{r->positions, r->vertex_count, 0}, r->triangles, NULL, r->triangle_count, 0};
    sinew_soffd_driver_desc d;
    SINEW_INIT(&d);
    d.target_triangle_count = target_of(r);
    if (skeleton) {
        d.joint_positions = (sinew_points){r->joints, r->joint_count, 0};
        d.bones = r->bones;
        d.bone_count = r->bone_count;
    }
    SINEW_INIT(rep);
    double t0 = support_cpu_now();
    sinew_result res = sinew_soffd_driver_from_skin(NULL, &skin, &d, NULL, 0, NULL, 0, rep);
    double t = support_cpu_now() - t0;
    if (res != SINEW_OK) {
        fprintf(stderr, "%s: %s (%s)\n", r->name, sinew_result_string(res), sinew_last_error());
        exit(1);
    }
    return t;
}

int main(void)
{
    const char *names[] = {"RiggedFigure", "Fox", "arm"};
    for (size_t i = 0; i < sizeof names / sizeof *names; ++i) {
        bbw_rig r;
        const char *why = NULL;
        if (!bbw_rig_load(bbw_rig_find(names[i]), &r, &why)) {
            printf("soffd-driver/%s: skipped (%s)\n", names[i], why ? why : "no data");
            continue;
        }
        sinew_soffd_driver_report with, without;
        double best_with = INFINITY, best_without = INFINITY;
        for (int k = 0; k < ROUNDS; ++k) {
            best_with = fmin(best_with, run(&r, true, &with));
            best_without = fmin(best_without, run(&r, false, &without));
        }
        char name[96];
        snprintf(name, sizeof name, "soffd-driver/%s", names[i]);
        support_bench_line(name, 1e3 * best_with, "ms", "no skeleton", 1e3 * best_without);
        snprintf(name, sizeof name, "soffd-driver/%s/distance", names[i]);
        support_bench_line(name, with.skin_to_driver_distance / with.diagonal, "of the diagonal", "no skeleton",
                           without.skin_to_driver_distance / without.diagonal);
        printf("  %s: skin %zu vertices, %zu triangles, %zu joints, %zu bones -> driver %zu vertices, %zu "
               "triangles (%zu welded); driver to skin %.4g of the diagonal\n",
               names[i], r.vertex_count, r.triangle_count, r.joint_count, r.bone_count, with.vertex_count,
               with.triangle_count, with.welded_vertices, with.driver_to_skin_distance / with.diagonal);
        bbw_rig_free(&r);
    }
    return 0;
}
