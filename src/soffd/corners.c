/* Corner lists of the extended kernel: per point, the distinct driver
 * vertices of its contributing elements with their summed weights u_k beta_j.
 * Neighbouring elements share corners, so a point's list is about half as
 * long as its three corners per element, and deform_extended reads each
 * vertex map once. Built by registration and rebuilt by the edits, which
 * reserve room for them before changing anything. */
#include <string.h>

#include "soffd/soffd_internal.h"

void sn_soffd_corners_free(const sn_env *env, sn_soffd_reg *reg)
{
    sn_free(env, reg->corner_offsets);
    sn_free(env, reg->corner_vertex);
    sn_free(env, reg->corner_weight);
    reg->corner_offsets = NULL;
    reg->corner_vertex = NULL;
    reg->corner_weight = NULL;
}

/* Merges point i's corners into vertex/weight (when not NULL) and returns how
 * many distinct vertices there are. slot[v] is UINT32_MAX for every vertex on
 * entry and on return; the first corner of the first (nearest) element comes
 * first, since the kernel blends relative to its map. */
static size_t merge_point(const sinew_soffd *h, const sn_soffd_reg *reg, size_t i, uint32_t *slot, uint32_t *vertex,
                          float *weight)
{
    size_t n = 0;
    for (size_t j = reg->offsets[i]; j < reg->offsets[i + 1]; ++j) {
        const uint32_t *t = &h->elements[3 * (size_t)reg->element[j]];
        for (int c = 0; c < 3; ++c) {
            uint32_t v = t[c];
            if (slot[v] == UINT32_MAX) {
                slot[v] = (uint32_t)n;
                if (vertex) {
                    vertex[n] = v;
                    weight[n] = 0;
                }
                ++n;
            }
            if (weight) weight[slot[v]] += reg->bary[3 * j + c];
        }
    }
    /* Reset the slots: walk the entries again (the list may not be written). */
    for (size_t j = reg->offsets[i]; j < reg->offsets[i + 1]; ++j)
        for (int c = 0; c < 3; ++c) slot[h->elements[3 * (size_t)reg->element[j] + c]] = UINT32_MAX;
    return n;
}

bool sn_soffd_corners_reserve(const sinew_soffd *h, size_t point_count, size_t capacity, sn_soffd_corners *c)
{
    const sn_env *env = &h->env;
    memset(c, 0, sizeof *c);
    c->slot = (uint32_t *)sn_alloc_array(env, h->vertex_count, sizeof(uint32_t), "soffd corner merge scratch");
    c->offsets = (size_t *)sn_alloc_array(env, point_count + 1, sizeof(size_t), "soffd corner offsets");
    if (capacity) {
        c->vertex = (uint32_t *)sn_alloc_array(env, capacity, sizeof(uint32_t), "soffd corner vertices");
        c->weight = (float *)sn_alloc_array(env, capacity, sizeof(float), "soffd corner weights");
    }
    if (!c->slot || !c->offsets || (capacity && (!c->vertex || !c->weight))) {
        sn_soffd_corners_release(h, c);
        return false;
    }
    memset(c->slot, 0xff, h->vertex_count * sizeof(uint32_t));
    return true;
}

void sn_soffd_corners_release(const sinew_soffd *h, sn_soffd_corners *c)
{
    sn_free(&h->env, c->slot);
    sn_free(&h->env, c->offsets);
    sn_free(&h->env, c->vertex);
    sn_free(&h->env, c->weight);
    memset(c, 0, sizeof *c);
}

void sn_soffd_corners_install(const sinew_soffd *h, sn_soffd_reg *reg, sn_soffd_corners *c)
{
    c->offsets[0] = 0;
    for (size_t i = 0; i < reg->point_count; ++i) {
        /* No room reserved (every set empty): nothing to write, and no offset from NULL. */
        size_t at = c->offsets[i];
        c->offsets[i + 1] = at + merge_point(h, reg, i, c->slot, c->vertex ? &c->vertex[at] : NULL,
                                             c->weight ? &c->weight[at] : NULL);
    }
    sn_soffd_corners_free(&h->env, reg);
    reg->corner_offsets = c->offsets;
    reg->corner_vertex = c->vertex;
    reg->corner_weight = c->weight;
    sn_free(&h->env, c->slot);
    memset(c, 0, sizeof *c);
}

bool sn_soffd_corners_build(const sinew_soffd *h, sn_soffd_reg *reg)
{
    /* Count first (a scratch of one slot per vertex), so the lists take no
     * more than they need. */
    uint32_t *slot = (uint32_t *)sn_alloc_array(&h->env, h->vertex_count, sizeof(uint32_t), "soffd corner merge scratch");
    if (!slot) return false;
    memset(slot, 0xff, h->vertex_count * sizeof(uint32_t));
    size_t total = 0; /* at most 3 x entries: no overflow */
    for (size_t i = 0; i < reg->point_count; ++i) total += merge_point(h, reg, i, slot, NULL, NULL);
    sn_free(&h->env, slot);
    sn_soffd_corners c;
    if (!sn_soffd_corners_reserve(h, reg->point_count, total, &c)) return false;
    sn_soffd_corners_install(h, reg, &c);
    return true;
}
