/* Quadric-error edge collapse (Garland & Heckbert 1997): every vertex holds
 * the area-weighted sum of the squared-distance quadrics of its triangles'
 * planes (and, on an open boundary, of planes through the boundary edges
 * perpendicular to their triangles, so borders keep their outline); the
 * cheapest allowed collapse is made until the target is met. A binary heap
 * holds the candidates; a vertex's version number, bumped whenever its
 * neighbourhood changes, tells the stale ones. */
#include <math.h>
#include <string.h>

#include "soffd/driver/decimate.h"

/* Weight of the edge-length term of a collapse's cost, per length^4 (the
 * units of area x squared distance): breaks the ties of flat regions, where
 * every collapse is free, in favour of short edges, so the triangles stay
 * well shaped, while staying far below the error of any curved collapse. */
#define SN_DRIVER_LENGTH_WEIGHT 1e-6
/* Collapses between two progress reports. */
#define SN_DRIVER_PROGRESS_STEP 4096

static bool before(const sn_collapse *x, const sn_collapse *y)
{
    if (x->cost != y->cost) return x->cost < y->cost;
    if (x->a != y->a) return x->a < y->a;
    return x->b < y->b;
}

static bool heap_push(sn_decimator *d, const sn_collapse *c)
{
    if (d->heap_count == d->heap_capacity) {
        size_t cap = d->heap_capacity ? 2 * d->heap_capacity : 1024;
        sn_collapse *grown = (sn_collapse *)sn_alloc_array(d->env, cap, sizeof(sn_collapse), "collapse heap");
        if (!grown) return false;
        if (d->heap_count) memcpy(grown, d->heap, d->heap_count * sizeof(sn_collapse));
        sn_free(d->env, d->heap);
        d->heap = grown;
        d->heap_capacity = cap;
    }
    size_t i = d->heap_count++;
    while (i > 0 && before(c, &d->heap[(i - 1) / 2])) {
        d->heap[i] = d->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    d->heap[i] = *c;
    return true;
}

static sn_collapse heap_pop(sn_decimator *d)
{
    sn_collapse top = d->heap[0], last = d->heap[--d->heap_count];
    size_t i = 0, n = d->heap_count;
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        const sn_collapse *best = &last;
        if (l < n && before(&d->heap[l], best)) m = l, best = &d->heap[l];
        if (l + 1 < n && before(&d->heap[l + 1], best)) m = l + 1;
        if (m == i) break;
        d->heap[i] = d->heap[m];
        i = m;
    }
    if (n) d->heap[i] = last;
    return top;
}

/* Evaluates edge (x, y), survivor the smaller index, and queues it. */
static bool queue_edge(sn_decimator *d, uint32_t x, uint32_t y)
{
    sn_collapse c;
    uint32_t a = x < y ? x : y, b = x < y ? y : x;
    if (!sn_driver_evaluate(d, a, b, &c)) return !d->failed;
    return heap_push(d, &c);
}

static size_t faces_on_edge(const sn_decimator *d, uint32_t u, uint32_t v)
{
    size_t n = 0;
    for (uint32_t node = d->head[u]; node != SN_DRIVER_NONE; node = d->next[node]) {
        const uint32_t *t = &d->tris[3 * (node / 3)];
        n += d->tri_alive[node / 3] && (t[0] == v || t[1] == v || t[2] == v);
    }
    return n;
}

/* The quadrics of every vertex from its triangles and boundary edges. */
static void build_quadrics(sn_decimator *d)
{
    for (size_t t = 0; t < d->tri_count; ++t) {
        if (!d->tri_alive[t]) continue;
        const uint32_t *c = &d->tris[3 * t];
        const float *p[3] = {&d->pos[3 * (size_t)c[0]], &d->pos[3 * (size_t)c[1]], &d->pos[3 * (size_t)c[2]]};
        double u[3], v[3], n[3], o[3] = {p[0][0], p[0][1], p[0][2]};
        for (int i = 0; i < 3; ++i) u[i] = (double)p[1][i] - p[0][i], v[i] = (double)p[2][i] - p[0][i];
        n[0] = u[1] * v[2] - u[2] * v[1], n[1] = u[2] * v[0] - u[0] * v[2], n[2] = u[0] * v[1] - u[1] * v[0];
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (len == 0) continue;  /* no plane: the triangle constrains nothing */
        for (int i = 0; i < 3; ++i) n[i] /= len;
        double area = 0.5 * len;
        for (int k = 0; k < 3; ++k) {
            sn_quadric_add_plane(&d->quadric[c[k]], n, o, area);
            d->quadric[c[k]].area += area;
        }
        for (int k = 0; k < 3; ++k) {
            uint32_t s = c[k], e = c[(k + 1) % 3];
            if (faces_on_edge(d, s, e) != 1) continue;
            /* The plane through a boundary edge, perpendicular to its triangle,
             * weighted by the edge's squared length as a triangle's plane is by
             * its area. */
            const float *ps = &d->pos[3 * (size_t)s], *pe = &d->pos[3 * (size_t)e];
            double edge[3], m[3], base[3] = {ps[0], ps[1], ps[2]};
            for (int i = 0; i < 3; ++i) edge[i] = (double)pe[i] - ps[i];
            m[0] = edge[1] * n[2] - edge[2] * n[1], m[1] = edge[2] * n[0] - edge[0] * n[2],
            m[2] = edge[0] * n[1] - edge[1] * n[0];
            double ml = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
            if (ml == 0) continue;
            for (int i = 0; i < 3; ++i) m[i] /= ml;
            sn_quadric_add_plane(&d->quadric[s], m, base, ml * ml);
            sn_quadric_add_plane(&d->quadric[e], m, base, ml * ml);
        }
    }
}

/* Makes collapse c: b merges into a at c->p. */
static void apply(sn_decimator *d, const sn_collapse *c)
{
    uint32_t a = c->a, b = c->b;
    memcpy(&d->pos[3 * (size_t)a], c->p, 3 * sizeof(float));
    sn_quadric_add(&d->quadric[a], &d->quadric[b]);
    uint32_t last = SN_DRIVER_NONE;
    for (uint32_t node = d->head[b]; node != SN_DRIVER_NONE; node = d->next[node]) {
        uint32_t t = node / 3;
        uint32_t *tri = &d->tris[3 * t];
        if (d->tri_alive[t] && (tri[0] == a || tri[1] == a || tri[2] == a)) {
            d->tri_alive[t] = 0;
            --d->live_tris;
        }
        d->tris[node] = a;
        last = node;
    }
    if (last != SN_DRIVER_NONE) {
        d->next[last] = d->head[a];
        d->head[a] = d->head[b];
    }
    d->head[b] = SN_DRIVER_NONE;
    ++d->version[a];
    ++d->version[b];
    d->factor[a] = d->joints ? sn_driver_joint_factor(d->joints, c->p) : 1.0;
}

/* Drops the dead triangles from v's list, so lists stay as long as fans. */
static void prune_list(sn_decimator *d, uint32_t v)
{
    uint32_t *link = &d->head[v];
    while (*link != SN_DRIVER_NONE) {
        if (d->tri_alive[*link / 3]) link = &d->next[*link];
        else *link = d->next[*link];
    }
}

/* After a collapse into a: re-queues every edge of a and of its neighbours,
 * whose costs, orientations or link conditions may have changed. */
static bool requeue(sn_decimator *d, uint32_t a)
{
    prune_list(d, a);
    size_t n = sn_driver_ring(d, a);
    if (n == SIZE_MAX) return false;
    uint32_t *touched = (uint32_t *)sn_alloc_array(d->env, n + 1, sizeof(uint32_t), "collapse neighbourhood");
    if (!touched) return false;
    memcpy(touched, d->ring, n * sizeof(uint32_t));
    touched[n++] = a;
    uint32_t in_set = ++d->seen_stamp;
    for (size_t i = 0; i < n; ++i) {
        d->seen[touched[i]] = in_set;
        ++d->version[touched[i]];
    }
    bool ok = true;
    for (size_t i = 0; i < n && ok; ++i) {
        uint32_t w = touched[i];
        prune_list(d, w);
        uint32_t done = ++d->seen_stamp;
        for (uint32_t node = d->head[w]; node != SN_DRIVER_NONE && ok; node = d->next[node]) {
            const uint32_t *t = &d->tris[3 * (node / 3)];
            for (int k = 0; k < 3 && ok; ++k) {
                uint32_t x = t[k];
                /* Each edge once: not twice around w's fan, and an edge
                 * between two touched vertices from its earlier end only. */
                if (x == w || d->seen[x] == done || (d->seen[x] == in_set && x < w)) continue;
                if (d->seen[x] != in_set) d->seen[x] = done;
                ok = queue_edge(d, w, x);
            }
        }
    }
    sn_free(d->env, touched);
    return ok;
}

static sinew_result setup(sn_decimator *d, const sn_env *env, sn_driver_decimate_args *a)
{
    memset(d, 0, sizeof *d);
    d->env = env;
    d->pos = a->pos, d->vertex_count = a->vertex_count;
    d->tris = a->tris, d->tri_count = a->tri_count;
    d->joints = a->joints && a->joints->count ? a->joints : NULL;
    d->length_weight = SN_DRIVER_LENGTH_WEIGHT;
    size_t nv = a->vertex_count, nodes;
    if (!sn_mul_size(a->tri_count, 3, &nodes) || nodes >= SN_DRIVER_NONE || nv >= SN_DRIVER_NONE)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%zu skin triangles over %zu vertices: at most 2^32 - 2 corners",
                       a->tri_count, nv);
    d->tri_alive = (uint8_t *)sn_alloc(env, a->tri_count, "triangle flags");
    d->head = (uint32_t *)sn_alloc_array(env, nv, sizeof(uint32_t), "incidence heads");
    d->next = (uint32_t *)sn_alloc_array(env, nodes, sizeof(uint32_t), "incidence links");
    d->quadric = (sn_quadric *)sn_calloc_array(env, nv, sizeof(sn_quadric), "quadrics");
    d->factor = (double *)sn_alloc_array(env, nv, sizeof(double), "joint factors");
    d->version = (uint32_t *)sn_calloc_array(env, nv, sizeof(uint32_t), "vertex versions");
    d->mark = (uint32_t *)sn_calloc_array(env, nv, sizeof(uint32_t), "vertex marks");
    d->seen = (uint32_t *)sn_calloc_array(env, nv, sizeof(uint32_t), "vertex marks");
    if (!d->tri_alive || !d->head || !d->next || !d->quadric || !d->factor || !d->version || !d->mark || !d->seen)
        return sn_alloc_failure();
    for (size_t v = 0; v < nv; ++v) d->head[v] = SN_DRIVER_NONE;
    for (size_t t = 0; t < a->tri_count; ++t) {
        const uint32_t *c = &d->tris[3 * t];
        d->tri_alive[t] = c[0] != c[1] && c[1] != c[2] && c[0] != c[2];
        d->live_tris += d->tri_alive[t];
    }
    /* Backwards, so each list runs in triangle order. */
    for (size_t t = a->tri_count; t-- > 0;) {
        if (!d->tri_alive[t]) continue;
        for (uint32_t k = 0; k < 3; ++k) {
            uint32_t node = (uint32_t)(3 * t + k), v = d->tris[node];
            d->next[node] = d->head[v];
            d->head[v] = node;
        }
    }
    for (size_t v = 0; v < nv; ++v)
        d->factor[v] = d->joints ? sn_driver_joint_factor(d->joints, &d->pos[3 * v]) : 1.0;
    build_quadrics(d);
    return SINEW_OK;
}

static void teardown(sn_decimator *d)
{
    const sn_env *env = d->env;
    sn_free(env, d->tri_alive);
    sn_free(env, d->head);
    sn_free(env, d->next);
    sn_free(env, d->quadric);
    sn_free(env, d->factor);
    sn_free(env, d->version);
    sn_free(env, d->mark);
    sn_free(env, d->seen);
    sn_free(env, d->ring);
    sn_free(env, d->heap);
}

/* Queues every edge once: from the triangle that runs it from the smaller to
 * the larger index, or from its one triangle on a boundary. */
static bool queue_all(sn_decimator *d)
{
    for (size_t t = 0; t < d->tri_count; ++t) {
        if (!d->tri_alive[t]) continue;
        const uint32_t *c = &d->tris[3 * t];
        for (int k = 0; k < 3; ++k) {
            uint32_t s = c[k], e = c[(k + 1) % 3];
            if (s > e && faces_on_edge(d, s, e) != 1) continue;
            if (!queue_edge(d, s, e)) return false;
        }
    }
    return true;
}

static bool stale(const sn_decimator *d, const sn_collapse *c)
{
    return c->version_a != d->version[c->a] || c->version_b != d->version[c->b];
}

static sinew_result run(sn_decimator *d, const sn_driver_decimate_args *a)
{
    sinew_result r0 = sn_progress(d->env, "soffd: driver", 0.0f);
    if (r0 != SINEW_OK) return r0;
    if (!queue_all(d)) return sn_alloc_failure();
    size_t start = d->live_tris, goal = a->target, made = 0;
    while (d->heap_count > 0 && !(goal && d->live_tris <= goal)) {
        sn_collapse c = heap_pop(d);
        if (stale(d, &c) || d->live_tris <= c.removes) continue;
        if (a->max_rms > 0 && c.rms > a->max_rms) continue;
        apply(d, &c);
        if (!requeue(d, c.a)) return sn_alloc_failure();
        if (++made % SN_DRIVER_PROGRESS_STEP == 0) {
            double span = goal && goal < start ? (double)(start - goal) : (double)start;
            sinew_result r = sn_progress(d->env, "soffd: driver", (float)((double)(start - d->live_tris) / span));
            if (r != SINEW_OK) return r;
        }
    }
    size_t live = 0;
    for (size_t t = 0; t < d->tri_count; ++t)
        if (d->tri_alive[t]) memmove(&d->tris[3 * live++], &d->tris[3 * t], 3 * sizeof(uint32_t));
    return SINEW_OK;
}

sinew_result sn_driver_decimate(const sn_env *env, sn_driver_decimate_args *a)
{
    sn_decimator d;
    sinew_result r = setup(&d, env, a);
    if (r == SINEW_OK) r = run(&d, a);
    if (r == SINEW_OK) a->tri_count = d.live_tris;
    teardown(&d);
    return r;
}
