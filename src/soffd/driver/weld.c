/* Welding: vertices closer than a tolerance join (transitively), so patches
 * whose borders repeat the same points become one surface. A grid of cells
 * one tolerance wide finds the pairs: sorted by cell, each vertex compares
 * only with the vertices of its own and the 26 neighbouring cells. */
#include <math.h>
#include <stdlib.h>

#include "soffd/driver/driver_internal.h"

/* Largest cell coordinate kept: far inside int64_t, far beyond any skin's
 * extent in cells (the tolerance is at least 1e-9 of the diagonal). */
#define SN_WELD_KEY_LIMIT 1e15

typedef struct cell_vertex {
    int64_t key[3];
    uint32_t vertex;
} cell_vertex;

static int cell_order(const void *pa, const void *pb)
{
    const cell_vertex *a = (const cell_vertex *)pa, *b = (const cell_vertex *)pb;
    for (int i = 0; i < 3; ++i)
        if (a->key[i] != b->key[i]) return a->key[i] < b->key[i] ? -1 : 1;
    return a->vertex < b->vertex ? -1 : (a->vertex > b->vertex);
}

static uint32_t find_root(uint32_t *rep, uint32_t v)
{
    while (rep[v] != v) {
        rep[v] = rep[rep[v]];
        v = rep[v];
    }
    return v;
}

/* Joins the sets of a and b, the smaller index becoming the root. */
static void join(uint32_t *rep, uint32_t a, uint32_t b)
{
    a = find_root(rep, a);
    b = find_root(rep, b);
    if (a < b) rep[b] = a;
    else if (b < a) rep[a] = b;
}

/* First entry of the sorted cells whose key is not below key. */
static size_t lower_bound(const cell_vertex *c, size_t n, const int64_t key[3])
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        cell_vertex probe = {{key[0], key[1], key[2]}, 0};
        if (cell_order(&c[mid], &probe) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static double dist2(const float *p, const float *q)
{
    double s = 0;
    for (int i = 0; i < 3; ++i) s += ((double)p[i] - q[i]) * ((double)p[i] - q[i]);
    return s;
}

sinew_result sn_driver_weld(const sn_env *env, const sn_driver_skin *s, double tolerance, const double lo[3],
                            uint32_t *rep, size_t *welded)
{
    size_t n = s->vertex_count;
    cell_vertex *cells = (cell_vertex *)sn_alloc_array(env, n, sizeof(cell_vertex), "weld cells");
    if (!cells) return sn_alloc_failure();
    for (size_t v = 0; v < n; ++v) {
        const float *p = (const float *)((const char *)s->positions + v * s->stride);
        for (int i = 0; i < 3; ++i) {
            /* Clamped so a far unreferenced vertex cannot overflow the key;
             * the distance test stays exact, so far vertices only share cells. */
            double cell = floor(((double)p[i] - lo[i]) / tolerance);
            cells[v].key[i] = (int64_t)fmax(-SN_WELD_KEY_LIMIT, fmin(SN_WELD_KEY_LIMIT, cell));
        }
        cells[v].vertex = (uint32_t)v;
        rep[v] = (uint32_t)v;
    }
    qsort(cells, n, sizeof *cells, cell_order);
    const double tol2 = tolerance * tolerance;
    for (size_t i = 0; i < n; ++i) {
        const float *p = (const float *)((const char *)s->positions + cells[i].vertex * s->stride);
        /* The 13 neighbouring cells after this one in key order, and this one. */
        for (int dx = 0; dx <= 1; ++dx)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dz = -1; dz <= 1; ++dz) {
                    if (dx == 0 && (dy < 0 || (dy == 0 && dz < 0))) continue;
                    int64_t key[3] = {cells[i].key[0] + dx, cells[i].key[1] + dy, cells[i].key[2] + dz};
                    size_t j = (dx | dy | dz) ? lower_bound(cells, n, key) : i + 1;
                    for (; j < n && cells[j].key[0] == key[0] && cells[j].key[1] == key[1] &&
                           cells[j].key[2] == key[2]; ++j) {
                        const float *q = (const float *)((const char *)s->positions + cells[j].vertex * s->stride);
                        if (dist2(p, q) <= tol2) join(rep, cells[i].vertex, cells[j].vertex);
                    }
                }
    }
    sn_free(env, cells);
    size_t count = 0;
    for (size_t v = 0; v < n; ++v) {
        rep[v] = find_root(rep, (uint32_t)v);
        count += rep[v] != v;
    }
    *welded = count;
    return SINEW_OK;
}
