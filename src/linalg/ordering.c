/*
 * Nested dissection, each part split by a breadth-first level, a plane cut
 * (with vertex coordinates) or the smaller of the two.
 *
 * The permutation is built in place: perm[pos .. pos+len) holds the vertices
 * of one part, and a part's separator is moved to the end of its range, so a
 * vertex's final slot in perm is its new number. Parts are processed from an
 * explicit stack, so the depth of the dissection costs no call stack.
 */
#include "linalg/ordering.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Parts at most this large are left in their breadth-first order: further
 * dissection would save less than it costs. */
#define SN_ND_LEAF 64

/* A vertex of a part and its position along a cut direction. */
typedef struct nd_key {
    double key;
    uint32_t vertex;
} nd_key;

typedef struct nd_work {
    const sn_sparse *a;
    uint32_t *perm;
    size_t *member;    /* member[v] == part stamp: v belongs to the part being split */
    size_t *seen;      /* seen[v] == search stamp: reached by the current search */
    uint32_t *level;   /* breadth-first level of each reached vertex, or its side of a plane cut */
    uint32_t *queue;
    size_t *level_count;
    /* Geometric only: each vertex's place in the whole matrix's order along
     * each cut direction (position, ties by vertex), 7 n entries, so a part
     * sorts by integer keys; the bits those places take (a multiple of 8);
     * a part-sized buffer for the sort; two difference arrays of n + 2
     * entries. */
    uint32_t *rank;
    uint32_t rank_bits;
    uint32_t *spare;
    size_t *sweep;
    size_t part_stamp, search_stamp;
} nd_work;

/* Breadth-first search from root inside the current part; fills queue and
 * level, returns how many vertices it reached; *depth = number of levels. */
static size_t nd_search(nd_work *w, uint32_t root, uint32_t *depth)
{
    size_t stamp = ++w->search_stamp, head = 0, tail = 0;
    w->queue[tail++] = root;
    w->seen[root] = stamp;
    w->level[root] = 0;
    uint32_t deepest = 0;
    while (head < tail) {
        uint32_t v = w->queue[head++];
        for (size_t p = w->a->colptr[v]; p < w->a->colptr[v + 1]; ++p) {
            uint32_t u = w->a->rows[p];
            if (w->member[u] != w->part_stamp || w->seen[u] == stamp) continue;
            w->seen[u] = stamp;
            w->level[u] = w->level[v] + 1;
            if (w->level[u] > deepest) deepest = w->level[u];
            w->queue[tail++] = u;
        }
    }
    *depth = deepest + 1;
    return tail;
}

/* Directions tried for a geometric cut: the three axes and the four body
 * diagonals (branching shapes have thin cross-sections along any of them). */
static const double cut_directions[7][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1},
                                            {1, 1, -1}, {1, -1, 1}, {-1, 1, 1}};
/* A plane cut leaves at least this fraction of the part on either side. */
#define SN_ND_CUT_MIN_SIDE 0.2
/* How much a cut's separator may grow for balance: a cut is scored by its
 * size over (4 f (1 - f))^SN_ND_CUT_BALANCE, f its fraction in front, so a
 * median cut is taken at its size and a 20/80 one at 2.4 times it. Tuned on
 * the factorisation operations of the BBW rig set's automatic volumes. */
#define SN_ND_CUT_BALANCE 2.0

/* Whether v has a neighbour in the part labelled `side` that is not marked
 * with `stamp` (v itself aside). */
static int has_unmarked_neighbour(const nd_work *w, uint32_t v, uint32_t side, size_t stamp)
{
    for (size_t p = w->a->colptr[v]; p < w->a->colptr[v + 1]; ++p) {
        uint32_t u = w->a->rows[p];
        if (u != v && w->member[u] == w->part_stamp && w->level[u] == side && w->seen[u] != stamp) return 1;
    }
    return 0;
}

/* Whether v has a neighbour in the part labelled `side`. */
static int has_neighbour_on(const nd_work *w, uint32_t v, uint32_t side)
{
    for (size_t p = w->a->colptr[v]; p < w->a->colptr[v + 1]; ++p) {
        uint32_t u = w->a->rows[p];
        if (w->member[u] == w->part_stamp && w->level[u] == side) return 1;
    }
    return 0;
}

/* Marks each side's border (vertices with a neighbour across) seen with a
 * fresh stamp and counts them; returns the stamp. */
static size_t mark_borders(nd_work *w, const uint32_t *part, size_t len, size_t border[2])
{
    size_t stamp = ++w->search_stamp;
    border[0] = border[1] = 0;
    for (size_t i = 0; i < len; ++i) {
        uint32_t v = part[i];
        if (has_neighbour_on(w, v, 1u - w->level[v])) {
            w->seen[v] = stamp;
            border[w->level[v]]++;
        }
    }
    return stamp;
}

/* Orders keys by position, ties by vertex, so the sort is the same on every platform. */
static int by_key(const void *a, const void *b)
{
    const nd_key *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->vertex > y->vertex) - (x->vertex < y->vertex);
}

/* Every vertex's place along each cut direction (w->rank, w->rank_bits);
 * keys: n entries of scratch. */
static void rank_along_directions(nd_work *w, const double *coords, nd_key *keys)
{
    size_t n = w->a->n;
    for (int d = 0; d < 7; ++d) {
        const double *dir = cut_directions[d];
        for (size_t v = 0; v < n; ++v) {
            const double *c = coords + 3 * v;
            keys[v] = (nd_key){c[0] * dir[0] + c[1] * dir[1] + c[2] * dir[2], (uint32_t)v};
        }
        qsort(keys, n, sizeof *keys, by_key);
        for (size_t i = 0; i < n; ++i) w->rank[(size_t)d * n + keys[i].vertex] = (uint32_t)i;
    }
    w->rank_bits = 0;
    while (w->rank_bits < 32 && n > 1 && ((n - 1) >> w->rank_bits) != 0) w->rank_bits += 8;
}

/* Sorts part along direction dir (by place, a radix sort of a byte per
 * pass: the order of position, ties by vertex) and numbers each vertex's
 * place in the part in level[]. */
static void sort_along(nd_work *w, uint32_t *part, size_t len, int dir)
{
    const uint32_t *rank = w->rank + (size_t)dir * w->a->n;
    uint32_t *from = part, *to = w->spare;
    for (uint32_t shift = 0; shift < w->rank_bits; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < len; ++i) count[((rank[from[i]] >> shift) & 255u) + 1]++;
        for (int b = 0; b < 256; ++b) count[b + 1] += count[b];
        for (size_t i = 0; i < len; ++i) to[count[(rank[from[i]] >> shift) & 255u]++] = from[i];
        uint32_t *t = from;
        from = to;
        to = t;
    }
    if (from != part) memcpy(part, from, len * sizeof *part);
    for (size_t i = 0; i < len; ++i) w->level[part[i]] = (uint32_t)i;
}

/* The best plane cut of a connected part: across each direction, at every
 * position that leaves SN_ND_CUT_MIN_SIDE on either side, the one whose
 * smaller side border, scored for balance (SN_ND_CUT_BALANCE), is least.
 * All positions of a direction are measured in one sweep: with the part
 * sorted, vertex i (with neighbours from place lo to hi) is on side 0's
 * border for the cuts t in (i, hi] and on side 1's for t in (lo, i].
 * Returns the chosen border's size. */
static size_t plan_cut(nd_work *w, uint32_t *part, size_t len, int *dir, size_t *at)
{
    size_t best_size = SIZE_MAX, *d0 = w->sweep, *d1 = w->sweep + len + 2;
    size_t first = (size_t)(SN_ND_CUT_MIN_SIDE * (double)len), last = len - first;
    if (first < 1) first = 1;
    double best_score = INFINITY;
    *dir = 0, *at = len / 2;
    for (int d = 0; d < 7; ++d) {
        sort_along(w, part, len, d);
        memset(d0, 0, 2 * (len + 2) * sizeof *d0);
        for (size_t i = 0; i < len; ++i) {
            uint32_t v = part[i];
            size_t lo = i, hi = i;
            for (size_t p = w->a->colptr[v]; p < w->a->colptr[v + 1]; ++p) {
                uint32_t u = w->a->rows[p];
                if (w->member[u] != w->part_stamp) continue;
                size_t q = w->level[u];
                lo = q < lo ? q : lo;
                hi = q > hi ? q : hi;
            }
            if (hi > i) d0[i + 1]++, d0[hi + 1]--;
            if (lo < i) d1[lo + 1]++, d1[i + 1]--;
        }
        size_t b0 = 0, b1 = 0;
        for (size_t t = 1; t < len && t <= last; ++t) {
            b0 += d0[t], b1 += d1[t]; /* unsigned wrap cancels: the running sums stay counts */
            if (t < first) continue;
            size_t size = b0 < b1 ? b0 : b1;
            double f = (double)t / (double)len, score = (double)size / pow(4 * f * (1 - f), SN_ND_CUT_BALANCE);
            if (score < best_score) best_score = score, best_size = size, *dir = d, *at = t;
        }
    }
    return best_size;
}

/* Splits a part by the cut plan_cut chose: the smaller side's border is the
 * separator, less its vertices with no neighbour on their side off the
 * border (those separate nothing and join the other side). Returns the
 * separator size; the separator is moved to the end of part, the rest
 * stays in front. */
static size_t cut_part(nd_work *w, uint32_t *part, size_t len, int dir, size_t at)
{
    size_t border[2];
    sort_along(w, part, len, dir);
    for (size_t i = 0; i < len; ++i) w->level[part[i]] = i < at ? 0u : 1u;
    size_t stamp = mark_borders(w, part, len, border);
    uint32_t side = border[0] <= border[1] ? 0u : 1u;
    size_t inner = 0; /* that side's vertices off its border: with none, the border is the whole side */
    for (size_t i = 0; i < len; ++i) inner += w->level[part[i]] == side && w->seen[part[i]] != stamp;
    for (size_t i = 0; i < len && inner > 0; ++i) {
        uint32_t v = part[i];
        if (w->seen[v] == stamp && w->level[v] == side && !has_unmarked_neighbour(w, v, side, stamp))
            w->level[v] = 1u - side;
    }
    size_t front = 0;
    for (size_t i = 0; i < len; ++i) {
        uint32_t v = part[i];
        if (!(w->seen[v] == stamp && w->level[v] == side)) {
            part[i] = part[front];
            part[front++] = v;
        }
    }
    return len - front;
}

/* The best breadth-first level of a connected part (searched from a
 * pseudo-peripheral root, found by restarting from the last vertex reached
 * until the depth stops growing): the smallest level whose two sides each
 * hold at least 30% of the part (balance bounds the depth, small size bounds
 * the fill). Returns its size (SIZE_MAX when the part is too shallow), with
 * the search's root and the level; leaves the search's order in queue and
 * its levels in level[]. depth: that of the search from part[0], just run. */
static size_t plan_level(nd_work *w, size_t len, uint32_t depth, uint32_t *root, uint32_t *level)
{
    *root = w->queue[0];
    for (int round = 0; round < 3; ++round) {
        uint32_t far = w->queue[len - 1], d2;
        nd_search(w, far, &d2);
        if (d2 <= depth) {
            nd_search(w, far, &depth);
            *root = far;
            break;
        }
        *root = far;
        depth = d2;
    }
    if (depth < 3) return SIZE_MAX;
    memset(w->level_count, 0, depth * sizeof(size_t));
    for (size_t i = 0; i < len; ++i) w->level_count[w->level[w->queue[i]]]++;
    size_t before = 0, best_size = SIZE_MAX;
    *level = depth / 2;
    for (uint32_t l = 1; l + 1 < depth; ++l) {
        before += w->level_count[l - 1];
        size_t after = len - before - w->level_count[l];
        if (10 * before >= 3 * len && 10 * after >= 3 * len && w->level_count[l] < best_size) {
            best_size = w->level_count[l];
            *level = l;
        }
    }
    return best_size == SIZE_MAX ? len : best_size;
}

static sinew_result dissect(const sn_env *env, const sn_sparse *a, const double *coords, int with_levels,
                            uint32_t *perm)
{
    size_t n = a->n;
    nd_work w = {.a = a, .perm = perm};
    w.member = sn_calloc_array(env, n, sizeof(size_t), "ordering part marks");
    w.seen = sn_calloc_array(env, n, sizeof(size_t), "ordering search marks");
    w.level = sn_alloc_array(env, n, sizeof(uint32_t), "ordering levels");
    w.queue = sn_alloc_array(env, n, sizeof(uint32_t), "ordering queue");
    w.level_count = sn_alloc_array(env, n + 1, sizeof(size_t), "ordering level sizes");
    size_t *stack = sn_alloc_array(env, 2 * (n + 1), sizeof(size_t), "ordering stack");
    nd_key *keys = NULL;
    if (coords) {
        keys = sn_alloc_array(env, n + 1, sizeof(nd_key), "ordering sort keys");
        w.rank = sn_alloc_array(env, n + 1, 7 * sizeof(uint32_t), "ordering places along cut directions");
        w.spare = sn_alloc_array(env, n + 1, sizeof(uint32_t), "ordering sort buffer");
        w.sweep = sn_alloc_array(env, 2 * (n + 2), sizeof(size_t), "ordering cut sweep");
    }
    sinew_result r = SINEW_OK;
    if (!w.member || !w.seen || !w.level || !w.queue || !w.level_count || !stack ||
        (coords && (!keys || !w.rank || !w.spare || !w.sweep))) {
        r = sn_alloc_failure();
        goto done;
    }
    if (coords) rank_along_directions(&w, coords, keys);
    sn_free(env, keys);
    keys = NULL;
    for (size_t i = 0; i < n; ++i) perm[i] = (uint32_t)i;
    size_t top = 0;
    if (n > 0) {
        stack[top++] = 0;
        stack[top++] = n;
    }
    while (top > 0) {
        size_t len = stack[--top], pos = stack[--top];
        uint32_t *part = perm + pos;
        size_t stamp = ++w.part_stamp;
        for (size_t i = 0; i < len; ++i) w.member[part[i]] = stamp;
        uint32_t depth;
        size_t reached = nd_search(&w, part[0], &depth);
        if (reached < len) {
            /* Disconnected: the reached component goes first, the rest is a
             * new part; both are dissected on their own. */
            size_t front = 0;
            for (size_t i = 0; i < len; ++i) {
                if (w.seen[part[i]] == w.search_stamp) {
                    uint32_t t = part[front];
                    part[front++] = part[i];
                    part[i] = t;
                }
            }
            stack[top++] = pos;
            stack[top++] = front;
            stack[top++] = pos + front;
            stack[top++] = len - front;
            continue;
        }
        if (len <= SN_ND_LEAF) {
            memcpy(part, w.queue, len * sizeof(uint32_t));
            continue;
        }
        if (coords && !with_levels) {
            int dir;
            size_t at;
            plan_cut(&w, part, len, &dir, &at);
            size_t sep = cut_part(&w, part, len, dir, at);
            stack[top++] = pos;
            stack[top++] = len - sep;
            continue;
        }
        /* A breadth-first level or (with coordinates) a plane cut, whichever
         * separator is smaller. */
        uint32_t root, best;
        size_t level_size = plan_level(&w, len, depth, &root, &best);
        if (level_size == SIZE_MAX) {
            memcpy(part, w.queue, len * sizeof(uint32_t));
            continue;
        }
        if (coords) {
            int dir;
            size_t at;
            if (plan_cut(&w, part, len, &dir, &at) <= level_size) {
                size_t sep = cut_part(&w, part, len, dir, at);
                stack[top++] = pos;
                stack[top++] = len - sep;
                continue;
            }
            nd_search(&w, root, &depth); /* the level's labels back */
        }
        /* Separator to the end of the range, the rest stays in front. */
        size_t front = 0;
        for (size_t i = 0; i < len; ++i) {
            if (w.level[part[i]] != best) {
                uint32_t t = part[front];
                part[front++] = part[i];
                part[i] = t;
            }
        }
        stack[top++] = pos;
        stack[top++] = front;
    }
done:
    sn_free(env, w.member);
    sn_free(env, w.seen);
    sn_free(env, w.level);
    sn_free(env, w.queue);
    sn_free(env, w.level_count);
    sn_free(env, stack);
    sn_free(env, keys);
    sn_free(env, w.rank);
    sn_free(env, w.spare);
    sn_free(env, w.sweep);
    return r;
}

sinew_result sn_order_nested_dissection(const sn_env *env, const sn_sparse *a, uint32_t *perm)
{
    return dissect(env, a, NULL, 1, perm);
}

sinew_result sn_order_geometric_dissection(const sn_env *env, const sn_sparse *a, const double *coords,
                                           uint32_t *perm)
{
    return dissect(env, a, coords, 0, perm);
}

sinew_result sn_order_mixed_dissection(const sn_env *env, const sn_sparse *a, const double *coords, uint32_t *perm)
{
    return dissect(env, a, coords, 1, perm);
}
