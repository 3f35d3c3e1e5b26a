/* Rogue-vertex removal (Weber, as summarised in the skinning chapter): a
 * joint's influence must form one connected region of the mesh; influences
 * outside the joint's main region are cut, and vertices left with nothing
 * borrow the influences of their nearest valid vertex. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/skin_tools.h"
#include "skin/tools/influence_rows.h"
#include "geom/mesh_graph.h"

static const char *const STAGE = "skin: rogue removal";
static const uint32_t NONE = UINT32_MAX;

/* Union-find over (vertex, slot) influence nodes: node v * k + s. */
static size_t find_root(size_t *parent, size_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];   /* path halving */
        x = parent[x];
    }
    return x;
}

static void unite(size_t *parent, size_t a, size_t b)
{
    a = find_root(parent, a);
    b = find_root(parent, b);
    /* The smaller index becomes the root so results do not depend on edge order. */
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

typedef struct region {
    uint32_t joint;
    size_t root;
    double total;
} region;

static int by_joint_then_heaviest(const void *a, const void *b)
{
    const region *x = (const region *)a, *y = (const region *)b;
    if (x->joint != y->joint) return x->joint < y->joint ? -1 : 1;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return (x->root > y->root) - (x->root < y->root);
}

typedef struct work {
    size_t n, k;          /* vertices, influences per vertex */
    sn_skin_entry *row;   /* k: one row being rebuilt */
    uint32_t *cur_j;      /* n * k: the rows being cleaned */
    float *cur_w;         /* n * k */
    size_t *parent;       /* n * k union-find */
    double *total;        /* n * k: summed weight per root */
    region *regions;      /* one per root */
    unsigned char *main_root; /* n * k: 1 when that root is its joint's main region */
    uint32_t *source;     /* n: vertex whose influences a vertex takes, NONE = not yet */
    uint32_t *queue;      /* n */
} work;

static void free_work(const sn_env *env, work *w)
{
    sn_free(env, w->parent);
    sn_free(env, w->total);
    sn_free(env, w->regions);
    sn_free(env, w->main_root);
    sn_free(env, w->source);
    sn_free(env, w->queue);
    sn_free(env, w->row);
    sn_free(env, w->cur_j);
    sn_free(env, w->cur_w);
}

static sinew_result alloc_work(const sn_env *env, size_t n, size_t k, work *w)
{
    const size_t nk = n * k;   /* checked by sn_skin_check_influences */
    memset(w, 0, sizeof *w);
    w->n = n;
    w->k = k;
    w->row = (sn_skin_entry *)sn_alloc_array(env, k, sizeof *w->row, "rogue row");
    w->cur_j = (uint32_t *)sn_alloc_array(env, nk, sizeof *w->cur_j, "rogue joints");
    w->cur_w = (float *)sn_alloc_array(env, nk, sizeof *w->cur_w, "rogue weights");
    w->parent = (size_t *)sn_alloc_array(env, nk, sizeof *w->parent, "rogue union-find");
    w->total = (double *)sn_calloc_array(env, nk, sizeof *w->total, "rogue region weights");
    w->regions = (region *)sn_alloc_array(env, nk, sizeof *w->regions, "rogue regions");
    w->main_root = (unsigned char *)sn_calloc_array(env, nk, 1, "rogue main regions");
    w->source = (uint32_t *)sn_alloc_array(env, n, sizeof *w->source, "rogue sources");
    w->queue = (uint32_t *)sn_alloc_array(env, n, sizeof *w->queue, "rogue queue");
    if (!w->row || !w->cur_j || !w->cur_w || !w->parent || !w->total || !w->regions || !w->main_root ||
        !w->source || !w->queue)
        return sn_alloc_failure();
    return SINEW_OK;
}

static double squared_distance(const float *a, const float *b)
{
    double d2 = 0.0;
    for (int i = 0; i < 3; ++i) {
        double e = (double)a[i] - b[i];
        d2 += e * e;
    }
    return d2;
}

/* Canonical rows: duplicates merged, sorted, zero tail. */
static void canonical_rows(work *w, const uint32_t *joints, const float *weights)
{
    for (size_t v = 0; v < w->n; ++v) {
        size_t m = sn_skin_gather_row(joints, weights, w->k, v, w->row);
        sn_skin_sort_by_weight(w->row, m);
        sn_skin_write_row(w->row, m, w->k, w->cur_j + v * w->k, w->cur_w + v * w->k);
    }
}

/* Regions: an influence node joins its neighbours' nodes of the same joint;
 * the heaviest region of each joint is marked its main one. */
static sinew_result find_regions(work *w, const sn_env *env, const sn_mesh_graph *g)
{
    const size_t n = w->n, k = w->k, nk = n * k;
    const uint32_t *cur_j = w->cur_j;
    const float *cur_w = w->cur_w;
    sinew_result r;
    for (size_t i = 0; i < nk; ++i) w->parent[i] = i;
    for (size_t v = 0; v < n; ++v) {
        if (v % SN_SKIN_TOOLS_PROGRESS_EVERY == 0 &&
            (r = sn_progress(env, STAGE, 0.8f * (float)v / (float)n)) != SINEW_OK)
            return r;
        for (size_t e = g->first[v]; e < g->first[v + 1]; ++e) {
            size_t u = g->neighbours[e];
            if (u < v) continue;   /* each edge once */
            for (size_t a = 0; a < k && cur_w[v * k + a] > 0.0f; ++a)
                for (size_t b = 0; b < k && cur_w[u * k + b] > 0.0f; ++b)
                    if (cur_j[v * k + a] == cur_j[u * k + b]) unite(w->parent, v * k + a, u * k + b);
        }
    }
    size_t region_count = 0;
    for (size_t i = 0; i < nk; ++i)
        if (cur_w[i] > 0.0f) w->total[find_root(w->parent, i)] += cur_w[i];
    for (size_t i = 0; i < nk; ++i)
        if (cur_w[i] > 0.0f && w->parent[i] == i)
            w->regions[region_count++] = (region){cur_j[i], i, w->total[i]};
    qsort(w->regions, region_count, sizeof *w->regions, by_joint_then_heaviest);
    for (size_t i = 0; i < region_count; ++i)
        if (i == 0 || w->regions[i].joint != w->regions[i - 1].joint) w->main_root[w->regions[i].root] = 1;
    return SINEW_OK;
}

/* Cuts the influences outside their joint's main region. Vertices that keep
 * some are their own source and start the queue (*tail entries). Returns the
 * number of influences cut. */
static size_t cut_outside_main(work *w, size_t *tail)
{
    const size_t k = w->k;
    size_t removed = 0;
    *tail = 0;
    for (size_t v = 0; v < w->n; ++v) {
        size_t m = 0;
        for (size_t s = 0; s < k; ++s) {
            size_t i = v * k + s;
            if (!(w->cur_w[i] > 0.0f)) continue;
            if (w->main_root[find_root(w->parent, i)]) {
                w->row[m].joint = w->cur_j[i];
                w->row[m].weight = (double)w->cur_w[i];
                ++m;
            } else {
                ++removed;
            }
        }
        if (m > 0) {
            sn_skin_write_row(w->row, m, k, w->cur_j + v * k, w->cur_w + v * k);
            w->source[v] = (uint32_t)v;
            w->queue[(*tail)++] = (uint32_t)v;
        } else {
            w->source[v] = NONE;
        }
    }
    return removed;
}

/* Vertices left empty take the row of the nearest kept vertex along the
 * mesh: breadth-first from all kept vertices at once. */
static void spread_along_mesh(work *w, const sn_mesh_graph *g, size_t tail)
{
    size_t head = 0;
    while (head < tail) {
        uint32_t v = w->queue[head++];
        for (size_t e = g->first[v]; e < g->first[v + 1]; ++e) {
            uint32_t u = g->neighbours[e];
            if (w->source[u] != NONE) continue;
            w->source[u] = w->source[v];
            w->queue[tail++] = u;
        }
    }
}

/* Islands with no kept vertex take the nearest kept vertex in space; then
 * every vertex copies its source's row. Counts the vertices that changed rows. */
static sinew_result reattach(work *w, const sn_env *env, const sinew_points *positions, size_t *reattached)
{
    const size_t n = w->n, k = w->k;
    sinew_result r;
    *reattached = 0;
    for (size_t v = 0; v < n; ++v) {
        if (w->source[v] == NONE) {
            if ((r = sn_progress(env, STAGE, 0.8f + 0.2f * (float)v / (float)n)) != SINEW_OK) return r;
            const float *p = sn_point(positions, v);
            double best = INFINITY;
            uint32_t who = NONE;
            for (size_t u = 0; u < n; ++u) {
                if (w->source[u] != u) continue;   /* only vertices that kept their own influences */
                double d2 = squared_distance(p, sn_point(positions, u));
                if (d2 < best) {
                    best = d2;
                    who = (uint32_t)u;
                }
            }
            /* Every joint keeps its main region, so some vertex kept
             * influences while the rows are finite; should none have, the
             * vertex keeps its own (empty) row rather than a NONE source. */
            w->source[v] = who == NONE ? (uint32_t)v : who;
        }
        if (w->source[v] != v) {
            memcpy(w->cur_j + v * k, w->cur_j + (size_t)w->source[v] * k, k * sizeof *w->cur_j);
            memcpy(w->cur_w + v * k, w->cur_w + (size_t)w->source[v] * k, k * sizeof *w->cur_w);
            ++*reattached;
        }
    }
    return SINEW_OK;
}

sinew_result sinew_skin_remove_rogues(sinew_context *ctx, const sinew_trimesh *mesh, size_t influence_count,
                                      uint32_t *joints, float *weights, sinew_skin_rogue_report *report)
{
    sn_clear_error();
    if (report && sn_check_struct_out(report, "rogue removal: report") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    sn_env env;
    sn_env_from_context(&env, ctx);
    if (!mesh) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "rogue removal: mesh is NULL");
    size_t n = mesh->positions.count;
    size_t k = influence_count;
    sinew_result r = sn_skin_check_influences(n, k, joints, weights, "rogue removal");
    if (r != SINEW_OK) return r;
    sn_mesh_graph g;
    r = sn_mesh_graph_build(&env, mesh, &g);
    if (r != SINEW_OK) return r;

    work w;
    size_t tail, removed, reattached;
    if ((r = alloc_work(&env, n, k, &w)) != SINEW_OK) goto done;
    canonical_rows(&w, joints, weights);
    if ((r = find_regions(&w, &env, &g)) != SINEW_OK) goto done;
    removed = cut_outside_main(&w, &tail);
    spread_along_mesh(&w, &g, tail);
    if ((r = reattach(&w, &env, &mesh->positions, &reattached)) != SINEW_OK) goto done;

    memcpy(joints, w.cur_j, n * k * sizeof *joints);
    memcpy(weights, w.cur_w, n * k * sizeof *weights);
    if (report) {
        sinew_skin_rogue_report filled = {0};
        filled.influences_removed = removed;
        filled.vertices_reattached = reattached;
        sn_write_struct(report, &filled, sizeof filled);
    }
done:
    free_work(&env, &w);
    sn_mesh_graph_free(&env, &g);
    return r;
}
