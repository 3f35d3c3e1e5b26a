/*
 * The one-call auto-binder on the rig set (tests/bbw/bbw_rigs.h): per rig,
 * thread CPU time of sinew_bbw_auto_weights (4 influences, default settings)
 * against the plain route in the same run (sinew_bbw_create + sinew_bbw_solve
 * at its default tolerance + sinew_bbw_top_k at the mesh's vertices), with the
 * one call's phases (wall clock), iterations, certified bound and unweighted
 * surface vertices, and the plain route's (it fails on some rigs: the line
 * says how). With --accuracy, also the largest weight difference of the one
 * call against the same call solved to 1e-6 (a converged solve on the same
 * domain): of the top-4 layouts, and of the full rows (every handle kept),
 * which tells the solve's error from a swap of near-equal 4th and 5th
 * weights (top-k is discontinuous there).
 * --tolerance T solves the one call to T instead of its default; --no-plain
 * skips the plain route (to profile the one call alone).
 * Usage: bench_bbw_auto [--accuracy] [--tolerance T] [--no-plain] [name-filter]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew.h"

#include "support.h"
#include "../../bbw/bbw_rigs.h"

enum { K = 4 };

/* The plain route's CPU seconds and its all-zero rows; negative time on failure (*why filled). */
static double plain_route(const bbw_rig *r, size_t *zero_rows, char *why, size_t why_size)
{
    sinew_bbw_desc d;
    bbw_rig_create_desc(r, &d);
    d.handle_outside = SINEW_BBW_OUTSIDE_REFUSE; /* the route as it was: no clipping */
    uint32_t *j = malloc(r->vertex_count * K * sizeof *j);
    float *w = malloc(r->vertex_count * K * sizeof *w);
    sinew_bbw *b = NULL;
    double t0 = support_cpu_now();
    sinew_result res = sinew_bbw_create(NULL, &d, &b);
    if (res == SINEW_OK) res = sinew_bbw_solve(NULL, b, NULL);
    if (res == SINEW_OK) res = sinew_bbw_top_k(b, &d.surface->positions, K, j, w, 0, r->vertex_count);
    double t = support_cpu_now() - t0;
    *zero_rows = 0;
    for (size_t v = 0; res == SINEW_OK && v < r->vertex_count; ++v) *zero_rows += w[v * K] == 0.0f;
    if (res != SINEW_OK) snprintf(why, why_size, "%s", sinew_result_string(res));
    sinew_bbw_destroy(b);
    free(j);
    free(w);
    return res == SINEW_OK ? t : -1.0;
}

static sinew_result one_call_k(const bbw_rig *r, double tolerance, size_t k, uint32_t *j, float *w,
                               sinew_bbw_auto_report *rep)
{
    sinew_bbw_auto_desc d;
    bbw_rig_desc(r, &d);
    d.tolerance = tolerance;
    d.influence_count = k;
    SINEW_INIT(rep);
    return sinew_bbw_auto_weights(NULL, &d, j, w, r->vertex_count * k, rep);
}

static sinew_result one_call(const bbw_rig *r, double tolerance, uint32_t *j, float *w, sinew_bbw_auto_report *rep)
{
    return one_call_k(r, tolerance, K, j, w, rep);
}

/* Largest difference of two layouts of k slots per vertex, as full rows. */
static double row_difference(const uint32_t *j1, const float *w1, const uint32_t *j2, const float *w2, size_t n,
                             size_t m, size_t k)
{
    double worst = 0.0, *a = calloc(m, sizeof *a), *b = calloc(m, sizeof *b);
    for (size_t v = 0; v < n; ++v) {
        for (size_t s = 0; s < k; ++s) {
            a[j1[v * k + s]] += w1[v * k + s];
            b[j2[v * k + s]] += w2[v * k + s];
        }
        for (size_t s = 0; s < k; ++s) {
            size_t h1 = j1[v * k + s], h2 = j2[v * k + s];
            worst = fmax(worst, fmax(fabs(a[h1] - b[h1]), fabs(a[h2] - b[h2])));
            a[h1] = b[h1] = a[h2] = b[h2] = 0.0;
        }
    }
    free(a);
    free(b);
    return worst;
}

int main(int argc, char **argv)
{
    int accuracy = 0, plain_route_too = 1;
    double tolerance = 0.0;
    const char *filter = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--accuracy")) accuracy = 1;
        else if (!strcmp(argv[i], "--no-plain")) plain_route_too = 0;
        else if (!strcmp(argv[i], "--tolerance") && i + 1 < argc) tolerance = atof(argv[++i]);
        else filter = argv[i];
    }
    for (size_t i = 0; i < bbw_rig_count(); ++i) {
        bbw_rig r;
        const char *why = NULL;
        if (!bbw_rig_load(i, &r, &why)) {
            printf("bbw/auto/%s: skipped (%s absent)\n", r.name, why);
            continue;
        }
        if (filter && !strstr(r.name, filter)) {
            bbw_rig_free(&r);
            continue;
        }
        uint32_t *j = malloc(r.vertex_count * K * sizeof *j);
        float *w = malloc(r.vertex_count * K * sizeof *w);
        sinew_bbw_auto_report rep;
        char plain_why[64] = "", plain_text[96];
        size_t plain_zero = 0;
        double plain = -1.0;
        if (plain_route_too) plain = plain_route(&r, &plain_zero, plain_why, sizeof plain_why);
        else snprintf(plain_why, sizeof plain_why, "not run");
        double t0 = support_cpu_now();
        sinew_result res = one_call(&r, tolerance, j, w, &rep);
        double t = support_cpu_now() - t0;
        if (plain >= 0.0)
            snprintf(plain_text, sizeof plain_text, "%.0f ms, %zu unweighted", 1e3 * plain, plain_zero);
        else
            snprintf(plain_text, sizeof plain_text, "%s%s", plain_route_too ? "fails with " : "", plain_why);
        if (res != SINEW_OK && res != SINEW_ERROR_NOT_CONVERGED) {
            printf("bbw/auto/%s: failed: %s (%s)\n", r.name, sinew_result_string(res), sinew_last_error());
        } else {
            printf("bbw/auto/%s: %.0f ms (plain create+solve+top_k: %s) [%zu vertices, %zu handles, grid %u, %zu domain "
                   "vertices; prepare %.0f, domain %.0f, operators %.0f, solve %.0f, weights %.0f ms; %u iterations; "
                   "bound %.1e; %zu clipped, %zu attached, %zu unweighted]\n",
                   r.name, 1e3 * t, plain_text, r.vertex_count, r.point_count + r.bone_count, rep.grid_resolution,
                   rep.domain_vertex_count, 1e3 * rep.seconds_prepare, 1e3 * rep.seconds_domain,
                   1e3 * rep.seconds_operators, 1e3 * rep.seconds_solve, 1e3 * rep.seconds_weights, rep.iterations,
                   rep.error_bound, rep.clipped_handle_count, rep.attached_surface_vertex_count,
                   rep.unweighted_surface_vertex_count);
        }
        if (accuracy && (res == SINEW_OK || res == SINEW_ERROR_NOT_CONVERGED)) {
            uint32_t *j2 = malloc(r.vertex_count * K * sizeof *j2);
            float *w2 = malloc(r.vertex_count * K * sizeof *w2);
            sinew_bbw_auto_report rep2;
            size_t m = r.point_count + r.bone_count, full = m < 64 ? m : 64;
            uint32_t *jf = malloc(r.vertex_count * full * sizeof *jf), *jf2 = malloc(r.vertex_count * full * sizeof *jf2);
            float *wf = malloc(r.vertex_count * full * sizeof *wf), *wf2 = malloc(r.vertex_count * full * sizeof *wf2);
            sinew_result rf = SINEW_ERROR_OUT_OF_MEMORY;
            if (one_call(&r, 1e-6, j2, w2, &rep2) == SINEW_OK) rf = one_call_k(&r, tolerance, full, jf, wf, &rep2);
            if ((rf == SINEW_OK || rf == SINEW_ERROR_NOT_CONVERGED) &&
                one_call_k(&r, 1e-6, full, jf2, wf2, &rep2) == SINEW_OK)
                printf("bbw/auto-accuracy/%s: %.4f max weight difference of the top-%d layouts, %.4f of the full rows "
                       "(against the same call at tolerance 1e-6)\n",
                       r.name, row_difference(j, w, j2, w2, r.vertex_count, m, K), K,
                       row_difference(jf, wf, jf2, wf2, r.vertex_count, m, full));
            free(j2);
            free(w2);
            free(jf);
            free(jf2);
            free(wf);
            free(wf2);
        }
        fflush(stdout);
        free(j);
        free(w);
        bbw_rig_free(&r);
    }
    return 0;
}
