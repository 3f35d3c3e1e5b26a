/* The record of contributing-set edits (paper section 5) since the last
 * sinew_soffd_register. Registration rebuilds every set from the policy, so
 * each operation that registers the same points again (a moved reference, a
 * new falloff, a subdivision) replays the record on the new sets (rebuild.c):
 * a replaced set is replaced again, and flagged elements are removed again
 * from the sets of their points, whatever those sets now hold. */
#include <stdlib.h>
#include <string.h>

#include "soffd/soffd_internal.h"

/* A copy of *items (elem bytes each, count of them) with room for `need`,
 * or NULL in *out when there is room already; false when out of memory. */
static bool grown(const sn_env *env, const void *items, size_t cap, size_t count, size_t need, size_t elem,
                  const char *what, void **out, size_t *out_cap)
{
    *out = NULL;
    *out_cap = cap;
    if (need <= cap) return true;
    size_t want = cap ? cap : 16;
    while (want < need) want = want > SIZE_MAX / 2 ? need : 2 * want;
    void *next = sn_alloc_array(env, want, elem, what);
    if (!next) return false;
    if (count) memcpy(next, items, count * elem);
    *out = next;
    *out_cap = want;
    return true;
}

bool sn_soffd_edits_reserve(const sinew_soffd *h, size_t n, sn_soffd_edit_room *room)
{
    size_t need;
    void *edits, *elements;
    memset(room, 0, sizeof *room);
    if (!sn_add_size(h->edit_element_count, n, &need)) return false;
    if (!grown(&h->env, h->edits, h->edit_cap, h->edit_count, h->edit_count + 1, sizeof(sn_soffd_edit),
               "soffd edit record", &edits, &room->edit_cap))
        return false;
    if (!grown(&h->env, h->edit_elements, h->edit_element_cap, h->edit_element_count, need, sizeof(uint32_t),
               "soffd edit record elements", &elements, &room->element_cap)) {
        sn_free(&h->env, edits);
        return false;
    }
    room->edits = (sn_soffd_edit *)edits;
    room->elements = (uint32_t *)elements;
    return true;
}

void sn_soffd_edits_cancel(const sinew_soffd *h, sn_soffd_edit_room *room)
{
    sn_free(&h->env, room->edits);
    sn_free(&h->env, room->elements);
    memset(room, 0, sizeof *room);
}

/* Swaps in the grown arrays of a reserve. */
static void install(sinew_soffd *h, sn_soffd_edit_room *room)
{
    if (room->edits) {
        sn_free(&h->env, h->edits);
        h->edits = room->edits;
    }
    if (room->elements) {
        sn_free(&h->env, h->edit_elements);
        h->edit_elements = room->elements;
    }
    h->edit_cap = room->edit_cap;
    h->edit_element_cap = room->element_cap;
    memset(room, 0, sizeof *room);
}

static int by_value(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Drops the edits that touch point `point` alone: a new set replaces all they did. */
static void drop_edits_of(sinew_soffd *h, size_t point)
{
    size_t kept = 0, at = 0;
    for (size_t i = 0; i < h->edit_count; ++i) {
        sn_soffd_edit e = h->edits[i];
        if (e.first == point && e.count == 1) continue;
        if (e.element_count)
            memmove(&h->edit_elements[at], &h->edit_elements[e.element_at], e.element_count * sizeof(uint32_t));
        e.element_at = at;
        at += e.element_count;
        h->edits[kept++] = e;
    }
    h->edit_count = kept;
    h->edit_element_count = at;
}

void sn_soffd_edits_record(sinew_soffd *h, sn_soffd_edit_room *room, uint64_t kind, size_t first, size_t count,
                           const uint32_t *elements, const uint8_t *flags, size_t n)
{
    install(h, room);
    if (kind == SN_SOFFD_EDIT_SET) drop_edits_of(h, first);
    /* No element list yet when every recorded edit so far is empty. */
    uint32_t *to = h->edit_elements ? h->edit_elements + h->edit_element_count : NULL;
    if (flags) {
        size_t j = 0;
        for (size_t e = 0; e < h->element_count && j < n; ++e)
            if (flags[e]) to[j++] = (uint32_t)e;
    } else if (n) {
        memcpy(to, elements, n * sizeof(uint32_t));
        qsort(to, n, sizeof(uint32_t), by_value);
    }
    h->edits[h->edit_count++] = (sn_soffd_edit){kind, first, count, h->edit_element_count, n};
    h->edit_element_count += n;
}

void sn_soffd_edits_free(const sn_env *env, sinew_soffd *h)
{
    sn_free(env, h->edits);
    sn_free(env, h->edit_elements);
    h->edits = NULL;
    h->edit_elements = NULL;
    h->edit_count = h->edit_cap = h->edit_element_count = h->edit_element_cap = 0;
}

sinew_result sn_soffd_edits_map(const sinew_soffd *h, sinew_soffd *next, const uint32_t *first_child, size_t extra)
{
    next->edits = NULL;
    next->edit_elements = NULL;
    next->edit_count = next->edit_cap = next->edit_element_count = next->edit_element_cap = 0;
    if (h->edit_count == 0) return SINEW_OK;
    size_t total = 0;
    for (size_t i = 0; i < h->edit_element_count; ++i)
        total += first_child[h->edit_elements[i]] == UINT32_MAX ? 1 : 1 + extra;
    const sn_env *env = &h->env;
    next->edits = (sn_soffd_edit *)sn_alloc_array(env, h->edit_count, sizeof(sn_soffd_edit), "soffd edit record");
    next->edit_elements = (uint32_t *)sn_alloc_array(env, total, sizeof(uint32_t), "soffd edit record elements");
    if (!next->edits || !next->edit_elements) {
        sn_soffd_edits_free(env, next);
        return sn_alloc_failure();
    }
    next->edit_cap = next->edit_count = h->edit_count;
    next->edit_element_cap = total;
    size_t at = 0;
    for (size_t i = 0; i < h->edit_count; ++i) {
        sn_soffd_edit e = h->edits[i];
        size_t start = at;
        /* A split element stands for all its children: the first keeps its number. */
        for (size_t j = 0; j < e.element_count; ++j) {
            uint32_t old = h->edit_elements[e.element_at + j];
            next->edit_elements[at++] = old;
            if (first_child[old] != UINT32_MAX)
                for (size_t c = 0; c < extra; ++c) next->edit_elements[at++] = first_child[old] + (uint32_t)c;
        }
        if (at > start) qsort(&next->edit_elements[start], at - start, sizeof(uint32_t), by_value);
        e.element_at = start;
        e.element_count = at - start;
        next->edits[i] = e;
    }
    next->edit_element_count = at;
    return SINEW_OK;
}
