/*
 * The automatic volume on the meshes users bring: every surface
 * of the shared data with 6 point handles at its extremities (1% of the box
 * inside), and every mesh with a .tgf skeleton with that skeleton, created
 * and solved with default settings. Open surfaces are marked in the label
 * (flat ones cannot bind: the line gives create's message). One line per
 * mesh: thread CPU seconds of create + solve, against create alone; the
 * label carries the grid chosen, the domain's size, iterations, certified
 * bound, the handles' snapping distance (and what is left of it when the
 * vertices move onto the points), and what the uniform grid of earlier
 * releases made of the case.
 * Usage: bench_bbw_volume [name-filter] [coarse_levels]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew.h"

#include "support.h"
#include "../../bbw/bbw_dataset.h"

/* What the plain grid of earlier releases (SINEW_BBW_VOLUME_UNIFORM) makes
 * of the case: "ok" or its failure; and the largest snap distance left when
 * point handles move their vertices (SINEW_BBW_PLACE_MOVE_VERTEX). */
static void variants(const bbw_case *c, char *uniform, size_t size, double *moved_snap)
{
    sinew_bbw_desc d;
    bbw_dataset_desc(c, &d);
    sinew_bbw *b = NULL;
    snprintf(uniform, size, "given mesh");
    if (d.surface) {
        d.volume_flags = SINEW_BBW_VOLUME_UNIFORM;
        sinew_result r = sinew_bbw_create(NULL, &d, &b);
        snprintf(uniform, size, "%s%s%.60s", r == SINEW_OK ? "ok" : sinew_result_string(r), r == SINEW_OK ? "" : ": ",
                 r == SINEW_OK ? "" : sinew_last_error());
        sinew_bbw_destroy(b);
        d.volume_flags = 0;
    }
    *moved_snap = 0.0;
    d.point_placement = SINEW_BBW_PLACE_MOVE_VERTEX;
    if (d.points.count && sinew_bbw_create(NULL, &d, &b) == SINEW_OK) {
        sinew_bbw_info info;
        SINEW_INIT(&info);
        sinew_bbw_get_info(b, &info);
        *moved_snap = info.max_snap_distance;
        sinew_bbw_destroy(b);
    }
}

static void run(const bbw_case *c, uint32_t coarse_levels)
{
    char uniform[128];
    double moved_snap;
    variants(c, uniform, sizeof uniform, &moved_snap);
    sinew_bbw_desc d;
    bbw_dataset_desc(c, &d);
    char name[96];
    snprintf(name, sizeof name, "bbw-volume/%s", c->name);
    double t0 = support_cpu_now();
    sinew_bbw *b = NULL;
    sinew_result r = sinew_bbw_create(NULL, &d, &b);
    if (r != SINEW_OK) {
        printf("%s: create %s%s: %s\n", name, c->open ? "(open surface) " : "", sinew_result_string(r),
               sinew_last_error());
        fflush(stdout);
        return;
    }
    double t1 = support_cpu_now();
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.coarse_levels = coarse_levels;
    r = sinew_bbw_solve(NULL, b, &sd);
    double t2 = support_cpu_now();
    sinew_bbw_info info;
    SINEW_INIT(&info);
    sinew_bbw_get_info(b, &info);
    char label[1024];
    snprintf(label, sizeof label,
             "(%s%zu handles; %zu v, %zu tets; grid %u, cell %.3g, finest %.3g, %zu refined cells, %zu handle cells; "
             "snap max %.3g, moved %.3g; %u iterations, %u polish, %u coarse levels, bound %.2e; %s%s%s; uniform grid: %s) create",
             c->open ? "open surface; " : "", info.handle_count, info.vertex_count, info.element_count,
             info.grid_resolution, info.grid_cell_size,
             info.finest_cell_size, info.refined_cell_count, info.handle_cell_count, info.max_snap_distance,
             moved_snap, info.iterations, info.polish_rounds, info.coarse_levels_used, info.error_bound, sinew_result_string(r),
             r == SINEW_OK ? "" : ": ", r == SINEW_OK ? "" : sinew_last_error(), uniform);
    support_bench_line(name, t2 - t0, "s", label, t1 - t0);
    fflush(stdout);
    sinew_bbw_destroy(b);
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
    uint32_t coarse_levels = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 0;
    for (size_t i = 0; i < bbw_dataset_count(); ++i) {
        bbw_case c;
        const char *why;
        if (!bbw_dataset_load(i, &c, &why)) {
            if (!filter || strstr(c.name, filter)) printf("bbw-volume/%s: skipped (%s)\n", c.name, why);
            continue;
        }
        if (!filter || strstr(c.name, filter)) run(&c, coarse_levels);
        bbw_dataset_free(&c);
    }
    return 0;
}
