/*
 * Nested dissection by breadth-first level structures.
 *
 * The permutation is built in place: perm[pos .. pos+len) holds the vertices
 * of one part, and a part's separator is moved to the end of its range, so a
 * vertex's final slot in perm is its new number. Parts are processed from an
 * explicit stack, so the depth of the dissection costs no call stack.
 */
#include "linalg/ordering.h"
#include "geom/select.h"

#include <math.h>
#include <string.h>

/* Parts at most this large are left in their breadth-first order: further
 * dissection would save less than it costs. */
#define SN_ND_LEAF 64

typedef struct nd_work {
    const sn_sparse *a;
    uint32_t *perm;
    size_t *member;    /* member[v] == part stamp: v belongs to the part being split */
    size_t *seen;      /* seen[v] == search stamp: reached by the current search */
    uint32_t *level;   /* breadth-first level of each reached vertex */
    uint32_t *queue;
    size_t *level_count;
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

/* Geometric split of a connected part: halve it at the median coordinate of
 * its longest box axis, then take as separator whichever half's boundary
 * (vertices with a neighbour across) is smaller. Returns the separator size;
 * the separator is moved to the end of part, the rest stays in front. */
static size_t geometric_split(nd_work *w, uint32_t *part, size_t len, const double *coords)
{
    /* Try a cut across each axis and keep the smallest separator: on
     * branching shapes (a hand) the longest axis is not always the thinnest
     * cross-section. */
    size_t half = len / 2, best_size = SIZE_MAX;
    int best_axis = 0;
    uint32_t best_side = 0;
    for (int pass = 0; pass < 4; ++pass) {
        int axis = pass < 3 ? pass : best_axis;
        sn_select_nth(part, 0, len, half, coords + axis, 3);
        /* level[] doubles as the side label: 0 = first half, 1 = second. */
        for (size_t i = 0; i < len; ++i) w->level[part[i]] = i < half ? 0u : 1u;
        size_t border[2] = {0, 0};
        size_t stamp = ++w->search_stamp;
        for (size_t i = 0; i < len; ++i) {
            uint32_t v = part[i];
            for (size_t p = w->a->colptr[v]; p < w->a->colptr[v + 1]; ++p) {
                uint32_t u = w->a->rows[p];
                if (w->member[u] == w->part_stamp && w->level[u] != w->level[v]) {
                    w->seen[v] = stamp;
                    border[w->level[v]]++;
                    break;
                }
            }
        }
        uint32_t side = border[0] <= border[1] ? 0u : 1u;
        if (pass < 3) {
            if (border[side] < best_size) {
                best_size = border[side];
                best_axis = axis;
                best_side = side;
            }
            continue;
        }
        /* Final pass: the best axis again, now moving its separator back. */
        size_t front = 0;
        for (size_t i = 0; i < len; ++i) {
            uint32_t v = part[i];
            if (!(w->seen[v] == stamp && w->level[v] == best_side)) {
                part[i] = part[front];
                part[front++] = v;
            }
        }
        return len - front;
    }
    return 0;
}

static sinew_result dissect(const sn_env *env, const sn_sparse *a, const double *coords, uint32_t *perm)
{
    size_t n = a->n;
    nd_work w = {.a = a, .perm = perm};
    w.member = sn_calloc_array(env, n, sizeof(size_t), "ordering part marks");
    w.seen = sn_calloc_array(env, n, sizeof(size_t), "ordering search marks");
    w.level = sn_alloc_array(env, n, sizeof(uint32_t), "ordering levels");
    w.queue = sn_alloc_array(env, n, sizeof(uint32_t), "ordering queue");
    w.level_count = sn_alloc_array(env, n + 1, sizeof(size_t), "ordering level sizes");
    size_t *stack = sn_alloc_array(env, 2 * (n + 1), sizeof(size_t), "ordering stack");
    sinew_result r = SINEW_OK;
    if (!w.member || !w.seen || !w.level || !w.queue || !w.level_count || !stack) {
        r = sn_alloc_failure();
        goto done;
    }
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
        if (coords) {
            size_t sep = geometric_split(&w, part, len, coords);
            stack[top++] = pos;
            stack[top++] = len - sep;
            continue;
        }
        /* Pseudo-peripheral root: restart from the last vertex reached until
         * the depth stops growing (two rounds suffice in practice). */
        for (int round = 0; round < 3; ++round) {
            uint32_t far = w.queue[len - 1], d2;
            nd_search(&w, far, &d2);
            if (d2 <= depth) {
                nd_search(&w, far, &depth);
                break;
            }
            depth = d2;
        }
        if (depth < 3) {
            memcpy(part, w.queue, len * sizeof(uint32_t));
            continue;
        }
        memset(w.level_count, 0, depth * sizeof(size_t));
        for (size_t i = 0; i < len; ++i) w.level_count[w.level[part[i]]]++;
        /* The smallest level whose two sides each hold at least 30% of the
         * part: balance bounds the depth, small size bounds the fill. */
        size_t before = 0, best_size = SIZE_MAX;
        uint32_t best = depth / 2;
        for (uint32_t l = 1; l + 1 < depth; ++l) {
            before += w.level_count[l - 1];
            size_t after = len - before - w.level_count[l];
            if (10 * before >= 3 * len && 10 * after >= 3 * len && w.level_count[l] < best_size) {
                best_size = w.level_count[l];
                best = l;
            }
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
    return r;
}

sinew_result sn_order_nested_dissection(const sn_env *env, const sn_sparse *a, uint32_t *perm)
{
    return dissect(env, a, NULL, perm);
}

sinew_result sn_order_geometric_dissection(const sn_env *env, const sn_sparse *a, const double *coords,
                                           uint32_t *perm)
{
    return dissect(env, a, coords, perm);
}
