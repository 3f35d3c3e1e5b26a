/*
 * Coarse-to-fine start (sinew_bbw_solve_desc.coarse_levels). On a uniform
 * volume the split's iterations grow like the square of the cells per axis:
 * its slowest modes are the smooth ones, which a volume at half the grid
 * resolves with an eighth of the unknowns. The same surface and handles are
 * built again at half the grid (here), solved loosely by the driver
 * (solve.c, recursively, one level fewer), and their weights interpolated
 * at this volume's vertices (here) start the solve, which rebuilds the
 * multiplier that goes with them.
 */
#include <math.h>
#include <string.h>

#include "bbw/bbw_internal.h"

/* No coarser level below these: under 8 cells a volume loses the features a
 * finer one resolves, and under 1,000 vertices a solve costs little enough
 * that a second volume does not pay. */
#define SN_BBW_COARSE_MIN_RESOLUTION 8u
#define SN_BBW_COARSE_MIN_VERTICES 1000u
/* A coarse level is used only when it has at most this share of the
 * vertices (a uniform volume's half grid has about an eighth). A graded
 * volume refines around its handles to sizes that do not depend on the
 * grid, so its half grid can keep most of its vertices, and then costs more
 * than it saves. */
#define SN_BBW_COARSE_MAX_SHARE 0.25
/* Tolerance of the coarse solves: a start needs the smooth modes, not the
 * certificate of the fine solve. */
#define SN_BBW_COARSE_TOLERANCE 1e-3

/* A lower estimate of the share of b's vertices a volume at half the grid
 * keeps: the vertices of refined cells (those of an element whose longest
 * edge is under the grid's cell edge; a cell's own elements have edges of
 * at least that) stay, since the refinement reaches the same sizes from
 * either grid, and the rest thin to about an eighth. Lets a level that could
 * not pass SN_BBW_COARSE_MAX_SHARE be skipped before it is built (on a
 * graded volume of many handles, building it costs about a tenth of the
 * solve). -1 when out of memory. */
static double coarse_share_estimate(const sinew_bbw *b)
{
    size_t n = b->vertex_count, refined = 0;
    if (!n) return 0.0;
    unsigned char *in_refined = sn_calloc_array(&b->env, n, 1, "refined vertex marks");
    if (!in_refined) return -1.0;
    double edge_sq = b->info.grid_cell_size * b->info.grid_cell_size;
    for (size_t e = 0; e < b->element_count; ++e) {
        const uint32_t *el = b->elements + e * b->per;
        double longest_sq = 0.0;
        for (uint32_t i = 0; i < b->per; ++i)
            for (uint32_t j = i + 1; j < b->per; ++j) {
                const double *p = b->positions + 3 * (size_t)el[i], *q = b->positions + 3 * (size_t)el[j];
                double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
                longest_sq = fmax(longest_sq, dx * dx + dy * dy + dz * dz);
            }
        if (longest_sq < edge_sq)
            for (uint32_t i = 0; i < b->per; ++i) in_refined[el[i]] = 1;
    }
    for (size_t v = 0; v < n; ++v) refined += in_refined[v];
    sn_free(&b->env, in_refined);
    return ((double)refined + (double)(n - refined) / 8.0) / (double)n;
}

int sn_bbw_coarse_failure_is_fatal(sinew_result r)
{
    return r == SINEW_ERROR_CANCELLED || r == SINEW_ERROR_OUT_OF_MEMORY;
}

/* Row v of start: c's weights interpolated at b's vertex v (the nearest
 * element when v lies outside c's volume, as far as four times its query
 * reach; beyond, a row of zeros, which the solve's projection turns into a
 * neutral row). */
static void sample_vertex(const sinew_bbw *c, const double q[3], float *row)
{
    size_t m = c->handle_count;
    double bary[4];
    size_t e = sn_bbw_locate(c, q, c->reach, bary);
    if (e == SIZE_MAX) e = sn_bbw_locate(c, q, 4.0 * c->reach, bary);
    for (size_t j = 0; j < m; ++j) row[j] = 0.0f;
    if (e == SIZE_MAX) return;
    double sum = 0.0;
    for (uint32_t k = 0; k < c->per; ++k) {
        if (!(bary[k] > 0.0)) bary[k] = 0.0;
        sum += bary[k];
    }
    for (uint32_t k = 0; k < c->per; ++k) {
        const float *w = c->weights + (size_t)c->elements[e * c->per + k] * m;
        double t = sum > 0.0 ? bary[k] / sum : (k == 0);
        for (size_t j = 0; j < m; ++j) row[j] += (float)(t * w[j]);
    }
}

int sn_bbw_coarse_possible(const sinew_bbw *b)
{
    return b->source && b->info.grid_resolution / 2 >= SN_BBW_COARSE_MIN_RESOLUTION &&
           b->vertex_count >= SN_BBW_COARSE_MIN_VERTICES;
}

sinew_result sn_bbw_coarse_level(sinew_context *ctx, const sinew_bbw *b, const sinew_bbw_solve_desc *d,
                                 sinew_bbw **coarse, sinew_bbw_solve_desc *cd)
{
    *coarse = NULL;
    if (d->coarse_levels == SINEW_BBW_COARSE_NONE || d->initial_weights) return SINEW_OK;
    if (!b->source) {
        if (!d->coarse_levels) return SINEW_OK;
        return sn_fail(SINEW_ERROR_INVALID_STATE,
                       "coarse_levels %u: this bbw keeps no surface to build coarser volumes from (only a bbw created "
                       "from a surface, or loaded from data saved by one, does; not a given mesh)",
                       d->coarse_levels);
    }
    if (!sn_bbw_coarse_possible(b)) return SINEW_OK;
    double share = coarse_share_estimate(b);
    if (share < 0.0) return sn_alloc_failure();
    if (share > SN_BBW_COARSE_MAX_SHARE) return SINEW_OK;
    uint32_t resolution = b->info.grid_resolution / 2;
    sn_bbw_source_view view;
    sinew_result r = sn_bbw_source_desc(b, resolution, &view);
    if (r != SINEW_OK) return r;
    sinew_bbw *c = NULL;
    r = sinew_bbw_create(ctx, &view.desc, &c);
    sn_free(&b->env, view.cages);
    if (r != SINEW_OK) return sn_bbw_coarse_failure_is_fatal(r) ? r : SINEW_OK;
    /* A handle count other than b's cannot happen for a source that create
     * or load checked; a start of another width would be no start at all. */
    if (c->handle_count != b->handle_count ||
        (double)c->vertex_count > SN_BBW_COARSE_MAX_SHARE * (double)b->vertex_count) {
        sinew_bbw_destroy(c);
        return SINEW_OK;
    }
    memset(cd, 0, sizeof *cd);
    SINEW_INIT(cd);
    cd->partition = d->partition;
    cd->tolerance = fmax(d->tolerance, SN_BBW_COARSE_TOLERANCE);
    cd->max_iterations = d->max_iterations;
    cd->penalty = d->penalty;
    /* Automatic stays automatic; n levels leave n - 1 to the next (one
     * level leaves none). */
    cd->coarse_levels = d->coarse_levels;
    if (d->coarse_levels) cd->coarse_levels = d->coarse_levels == 1 ? SINEW_BBW_COARSE_NONE : d->coarse_levels - 1;
    *coarse = c;
    return SINEW_OK;
}

sinew_result sn_bbw_coarse_sample(const sinew_bbw *b, const sinew_bbw *c, float **start)
{
    *start = NULL;
    float *w = sn_alloc_array(&b->env, b->vertex_count, b->handle_count * sizeof(float), "coarse start");
    if (!w) return sn_alloc_failure();
    for (size_t v = 0; v < b->vertex_count; ++v) sample_vertex(c, b->positions + 3 * v, w + v * b->handle_count);
    *start = w;
    return SINEW_OK;
}
