/*
 * Locally refined Kuhn tet meshes (kuhn.h): vertex hashing, Maubach
 * bisection and its conforming closure.
 */
#include <string.h>

#include "bbw/kuhn.h"

/* Corners of the six Kuhn tets of a cell in Maubach order: each walks from
 * corner 000 to 111 along the three axes in one of the six orders (corner
 * bit 0 = x, 1 = y, 2 = z). */
static const uint8_t kuhn_paths[6][4] = {
    {0, 1, 3, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}, {0, 4, 6, 7}, {0, 4, 5, 7}, {0, 1, 5, 7},
};

static uint64_t pack(const uint32_t c[3])
{
    return (uint64_t)c[0] | (uint64_t)c[1] << 21 | (uint64_t)c[2] << 42;
}

static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

/* Grows a block of `count` items of `elem` bytes to `cap` items. */
static void *grow(const sn_env *env, void *old, size_t count, size_t cap, size_t elem, const char *what)
{
    void *p = sn_alloc_array(env, cap, elem, what);
    if (p && count) memcpy(p, old, count * elem);
    if (p) sn_free(env, old);
    return p;
}

static sinew_result rehash(sn_kuhn *k, size_t cap)
{
    uint64_t *keys = sn_alloc_array(k->env, cap, sizeof(uint64_t), "volume vertex table");
    uint32_t *ids = sn_alloc_array(k->env, cap, sizeof(uint32_t), "volume vertex table");
    if (!keys || !ids) {
        sn_free(k->env, keys);
        sn_free(k->env, ids);
        return sn_alloc_failure();
    }
    memset(keys, 0xff, cap * sizeof(uint64_t));
    for (size_t v = 0; v < k->vertex_count; ++v) {
        uint64_t key = pack(k->coords + 3 * v);
        size_t s = slot_of(key, cap);
        while (keys[s] != UINT64_MAX) s = (s + 1) & (cap - 1);
        keys[s] = key;
        ids[s] = (uint32_t)v;
    }
    sn_free(k->env, k->table_keys);
    sn_free(k->env, k->table_ids);
    k->table_keys = keys;
    k->table_ids = ids;
    k->table_cap = cap;
    return SINEW_OK;
}

/* The vertex with packed coordinates key, or UINT32_MAX. */
static uint32_t find_key(const sn_kuhn *k, uint64_t key)
{
    for (size_t s = slot_of(key, k->table_cap);; s = (s + 1) & (k->table_cap - 1)) {
        if (k->table_keys[s] == key) return k->table_ids[s];
        if (k->table_keys[s] == UINT64_MAX) return UINT32_MAX;
    }
}

/* The packed lattice midpoints of tet t's edges that have one (both ends'
 * coordinates of equal parity); returns how many, at most 6. */
static int edge_midpoints(const sn_kuhn *k, size_t t, uint64_t keys[6])
{
    const uint32_t *x = k->tets + 4 * t;
    int count = 0;
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j) {
            const uint32_t *a = k->coords + 3 * (size_t)x[i], *b = k->coords + 3 * (size_t)x[j];
            uint32_t mid[3];
            int whole = 1;
            for (int c = 0; c < 3; ++c) {
                whole &= ((a[c] + b[c]) & 1u) == 0;
                mid[c] = (a[c] + b[c]) / 2;
            }
            if (whole) keys[count++] = pack(mid);
        }
    return count;
}

/* Marks the grid cells touching lattice point c for the next closure. */
static void touch(sn_kuhn *k, const uint32_t c[3])
{
    uint32_t lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        uint32_t cell = c[a] >> k->shift;
        lo[a] = (c[a] & ((1u << k->shift) - 1)) == 0 && cell > 0 ? cell - 1 : cell;
        hi[a] = cell < k->dims[a] ? cell : k->dims[a] - 1;
    }
    for (uint32_t z = lo[2]; z <= hi[2]; ++z)
        for (uint32_t y = lo[1]; y <= hi[1]; ++y)
            for (uint32_t x = lo[0]; x <= hi[0]; ++x)
                k->cell_round[((size_t)z * k->dims[1] + y) * k->dims[0] + x] = k->round + 1;
}

/* The vertex at c, created when absent. */
static sinew_result vertex_at(sn_kuhn *k, const uint32_t c[3], uint32_t *id)
{
    *id = find_key(k, pack(c));
    if (*id != UINT32_MAX) return SINEW_OK;
    if (k->vertex_count == UINT32_MAX - 1) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "more than 2^32 volume vertices");
    if (k->vertex_count == k->vertex_cap) {
        size_t cap = k->vertex_cap ? 2 * k->vertex_cap : 1024;
        uint32_t *coords = grow(k->env, k->coords, 3 * k->vertex_count, 3 * cap, sizeof(uint32_t), "volume vertices");
        if (!coords) return sn_alloc_failure();
        k->coords = coords;
        k->vertex_cap = cap;
        sinew_result r = rehash(k, 4 * cap);
        if (r != SINEW_OK) return r;
    }
    *id = (uint32_t)k->vertex_count++;
    memcpy(k->coords + 3 * (size_t)*id, c, 3 * sizeof(uint32_t));
    uint64_t key = pack(c);
    size_t s = slot_of(key, k->table_cap);
    while (k->table_keys[s] != UINT64_MAX) s = (s + 1) & (k->table_cap - 1);
    k->table_keys[s] = key;
    k->table_ids[s] = *id;
    touch(k, c);
    return SINEW_OK;
}

static sinew_result reserve_tets(sn_kuhn *k, size_t extra)
{
    if (k->tet_count + extra <= k->tet_cap) return SINEW_OK;
    size_t cap = k->tet_cap ? 2 * k->tet_cap : 4096;
    while (cap < k->tet_count + extra) cap *= 2;
    uint32_t *tets = grow(k->env, k->tets, 4 * k->tet_count, 4 * cap, sizeof(uint32_t), "volume tets");
    if (!tets) return sn_alloc_failure();
    k->tets = tets;
    uint8_t *tag = grow(k->env, k->tag, k->tet_count, cap, 1, "volume tet tags");
    if (!tag) return sn_alloc_failure();
    k->tag = tag;
    uint8_t *gen = grow(k->env, k->generation, k->tet_count, cap, 1, "volume tet generations");
    if (!gen) return sn_alloc_failure();
    k->generation = gen;
    uint32_t *cell = grow(k->env, k->cell, k->tet_count, cap, sizeof(uint32_t), "volume tet cells");
    if (!cell) return sn_alloc_failure();
    k->cell = cell;
    k->tet_cap = cap;
    return SINEW_OK;
}

sinew_result sn_kuhn_init(sn_kuhn *k, const sn_env *env, const uint32_t dims[3], uint32_t shift)
{
    memset(k, 0, sizeof *k);
    k->env = env;
    k->shift = shift;
    memcpy(k->dims, dims, sizeof k->dims);
    k->cell_round = sn_calloc_array(env, (size_t)dims[0] * dims[1] * dims[2], sizeof(uint32_t), "volume cell marks");
    if (!k->cell_round) return sn_alloc_failure();
    k->round = 1;
    return rehash(k, 4096);
}

void sn_kuhn_free(sn_kuhn *k)
{
    const sn_env *env = k->env;
    if (!env) return;
    sn_free(env, k->coords);
    sn_free(env, k->table_keys);
    sn_free(env, k->table_ids);
    sn_free(env, k->tets);
    sn_free(env, k->tag);
    sn_free(env, k->generation);
    sn_free(env, k->cell);
    sn_free(env, k->cell_round);
    sn_free(env, k->edge_keys);
    sn_free(env, k->edge_tets);
    memset(k, 0, sizeof *k);
}

sinew_result sn_kuhn_add_cell(sn_kuhn *k, uint32_t i, uint32_t j, uint32_t l)
{
    sinew_result r = reserve_tets(k, 6);
    if (r != SINEW_OK) return r;
    uint32_t id[8];
    for (int c = 0; c < 8; ++c) {
        uint32_t p[3] = {(i + (c & 1)) << k->shift, (j + (c >> 1 & 1)) << k->shift, (l + (c >> 2 & 1)) << k->shift};
        if ((r = vertex_at(k, p, &id[c])) != SINEW_OK) return r;
    }
    uint32_t cell = (uint32_t)(((size_t)l * k->dims[1] + j) * k->dims[0] + i);
    for (int t = 0; t < 6; ++t) {
        size_t n = k->tet_count++;
        for (int c = 0; c < 4; ++c) k->tets[4 * n + c] = id[kuhn_paths[t][c]];
        k->tag[n] = 3;
        k->generation[n] = 0;
        k->cell[n] = cell;
    }
    return SINEW_OK;
}

/* The edge map (kuhn.h): open addressing with duplicate keys. */
static void edge_put(sn_kuhn *k, uint64_t key, uint32_t t)
{
    size_t s = slot_of(key, k->edge_cap);
    while (k->edge_keys[s] != UINT64_MAX) s = (s + 1) & (k->edge_cap - 1);
    k->edge_keys[s] = key;
    k->edge_tets[s] = t;
    k->edge_count++;
}

/* Makes room for `extra` more entries (load at most one half). */
static sinew_result edge_reserve(sn_kuhn *k, size_t extra)
{
    if (2 * (k->edge_count + extra) <= k->edge_cap) return SINEW_OK;
    size_t cap = k->edge_cap ? k->edge_cap : 1024;
    while (2 * (k->edge_count + extra) > cap) {
        if (cap > SIZE_MAX / 4 / sizeof(uint64_t)) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "volume edge table");
        cap *= 2;
    }
    uint64_t *keys = sn_alloc_array(k->env, cap, sizeof(uint64_t), "volume edge table");
    uint32_t *tets = sn_alloc_array(k->env, cap, sizeof(uint32_t), "volume edge table");
    if (!keys || !tets) {
        sn_free(k->env, keys);
        sn_free(k->env, tets);
        return sn_alloc_failure();
    }
    memset(keys, 0xff, cap * sizeof(uint64_t));
    uint64_t *old_keys = k->edge_keys;
    uint32_t *old_tets = k->edge_tets;
    size_t old_cap = k->edge_cap;
    k->edge_keys = keys;
    k->edge_tets = tets;
    k->edge_cap = cap;
    k->edge_count = 0;
    for (size_t s = 0; s < old_cap; ++s)
        if (old_keys[s] != UINT64_MAX) edge_put(k, old_keys[s], old_tets[s]);
    sn_free(k->env, old_keys);
    sn_free(k->env, old_tets);
    return SINEW_OK;
}

/* Enters tet t's edges that have a lattice midpoint (room reserved). */
static void edge_add_tet(sn_kuhn *k, size_t t)
{
    uint64_t keys[6];
    for (int e = 0, count = edge_midpoints(k, t, keys); e < count; ++e) edge_put(k, keys[e], (uint32_t)t);
}

sinew_result sn_kuhn_bisect(sn_kuhn *k, size_t t)
{
    if (k->generation[t] >= 3 * k->shift)
        return sn_fail(SINEW_ERROR_DEGENERATE, "volume tet %zu is already at the lattice's resolution", t);
    sinew_result r = reserve_tets(k, 1);
    if (r == SINEW_OK && k->edge_keys) r = edge_reserve(k, 12);
    if (r != SINEW_OK) return r;
    uint32_t x[4];
    memcpy(x, k->tets + 4 * t, sizeof x);
    unsigned g = k->tag[t];
    const uint32_t *a = k->coords + 3 * (size_t)x[0], *b = k->coords + 3 * (size_t)x[g];
    uint32_t mid[3] = {(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2}, z;
    if ((r = vertex_at(k, mid, &z)) != SINEW_OK) return r;
    /* Maubach: T1 = (x0 .. x_{g-1}, z, x_{g+1} .. x3), T2 = (x1 .. x_g, z,
     * x_{g+1} .. x3), both tagged g - 1 (3 after 1). */
    uint32_t *t1 = k->tets + 4 * t, *t2 = k->tets + 4 * k->tet_count;
    for (unsigned c = 0; c < g; ++c) {
        t1[c] = x[c];
        t2[c] = x[c + 1];
    }
    t1[g] = t2[g] = z;
    for (unsigned c = g + 1; c < 4; ++c) t1[c] = t2[c] = x[c];
    uint8_t tag = (uint8_t)(g > 1 ? g - 1 : 3), gen = (uint8_t)(k->generation[t] + 1);
    k->tag[t] = k->tag[k->tet_count] = tag;
    k->generation[t] = k->generation[k->tet_count] = gen;
    k->cell[k->tet_count] = k->cell[t];
    k->tet_count++;
    if (k->edge_keys) {
        edge_add_tet(k, t);
        edge_add_tet(k, k->tet_count - 1);
    }
    /* Both children seed the next closure, even when the midpoint already
     * existed (no new vertex to mark the cell). */
    k->cell_round[k->cell[t]] = k->round + 1;
    return SINEW_OK;
}

/* True when a vertex sits at the midpoint of one of t's edges. */
static int hanging(const sn_kuhn *k, size_t t)
{
    uint64_t keys[6];
    for (int e = 0, count = edge_midpoints(k, t, keys); e < count; ++e)
        if (find_key(k, keys[e]) != UINT32_MAX) return 1;
    return 0;
}

/* A stack of tets to check. */
typedef struct tet_stack {
    uint32_t *items;
    size_t count, cap;
} tet_stack;

static sinew_result push(const sn_env *env, tet_stack *st, size_t t)
{
    if (st->count == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 1024;
        uint32_t *items = grow(env, st->items, st->count, cap, sizeof(uint32_t), "volume closure stack");
        if (!items) return sn_alloc_failure();
        st->items = items;
        st->cap = cap;
    }
    st->items[st->count++] = (uint32_t)t;
    return SINEW_OK;
}

/* The closure as a worklist: it starts from the tets of the cells a vertex
 * or a bisection touched since the last closure, and each vertex it creates
 * brings in exactly the tets with an edge through it (from the edge map).
 * Scanning whole cells round by round instead costs rounds x tets: on a
 * coarse grid refined deep near close handles the closure advances a tet or
 * two per round: a fuzzed volume of 6,000 tets took hundreds of rounds, 9 s
 * under the sanitizers (1 s with the worklist). */
static sinew_result close_from(sn_kuhn *k, tet_stack *st)
{
    sinew_result r = SINEW_OK;
    if (!k->edge_keys) {
        /* Built at the first closure, kept up to date by each bisection. */
        if ((r = edge_reserve(k, 6 * k->tet_count)) != SINEW_OK) return r;
        for (size_t t = 0; t < k->tet_count; ++t) edge_add_tet(k, t);
    }
    for (size_t t = 0; t < k->tet_count && r == SINEW_OK; ++t)
        if (k->cell_round[k->cell[t]] == k->round) r = push(k->env, st, t);
    while (r == SINEW_OK && st->count) {
        size_t t = st->items[--st->count];
        while (r == SINEW_OK && hanging(k, t)) {
            size_t vertices = k->vertex_count, child = k->tet_count;
            if ((r = sn_kuhn_bisect(k, t)) != SINEW_OK || (r = push(k->env, st, child)) != SINEW_OK) break;
            if (k->vertex_count == vertices) continue;
            /* A new vertex: every tet with an edge through it hangs on it. */
            uint64_t key = pack(k->coords + 3 * (k->vertex_count - 1));
            for (size_t s = slot_of(key, k->edge_cap); k->edge_keys[s] != UINT64_MAX && r == SINEW_OK;
                 s = (s + 1) & (k->edge_cap - 1))
                if (k->edge_keys[s] == key && k->edge_tets[s] != t) r = push(k->env, st, k->edge_tets[s]);
        }
    }
    return r;
}

sinew_result sn_kuhn_close(sn_kuhn *k)
{
    tet_stack st = {0};
    k->round++;
    sinew_result r = close_from(k, &st);
    /* Cells marked during the closure (round + 1) are settled: the next
     * closure starts from round + 2, the marks made after this one. */
    k->round++;
    sn_free(k->env, st.items);
    return r;
}
