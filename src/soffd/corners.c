/* Corner lists of the extended kernel: per point, the distinct driver
 * vertices of its contributing elements with their summed weights u_k beta_j.
 * Neighbouring elements share corners, so a point's list is about half as
 * long as its three corners per element, and deform_extended reads each
 * vertex map once. Built by registration and rebuilt by the edits, which
 * reserve room for them before changing anything, and by load. The entries'
 * u * barycentrics they are merged from are computed again from P, the
 * element and u (sn_soffd_entry_bary) rather than kept: 12 bytes per entry. */
#include <string.h>

#include "geom/closest_point.h"

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

void sn_soffd_entry_bary(const sinew_soffd *h, const float p[3], uint32_t k, float u, float out[3])
{
    const uint32_t *t = &h->elements[3 * (size_t)k];
    float b[3];
    sn_closest_point_triangle(p, &h->reference[3 * (size_t)t[0]], &h->reference[3 * (size_t)t[1]],
                              &h->reference[3 * (size_t)t[2]], NULL, b);
    for (int c = 0; c < 3; ++c) out[c] = (float)((double)u * b[c]);
}

/* Merges point i's corners into vertex/weight (room for three per element)
 * and returns how many distinct vertices there are. slot[v] is UINT32_MAX for
 * every vertex on entry and on return; the first corner of the first
 * (nearest) element comes first, since the kernel blends relative to its map.
 * bary: 3 per entry of reg, or NULL to compute them (sn_soffd_entry_bary). */
static size_t merge_point(const sinew_soffd *h, const sn_soffd_reg *reg, const float *bary, size_t i, uint32_t *slot,
                          uint32_t *vertex, float *weight)
{
    size_t n = 0;
    for (size_t j = reg->offsets[i]; j < reg->offsets[i + 1]; ++j) {
        const uint32_t *t = &h->elements[3 * (size_t)reg->element[j]];
        float b[3];
        if (bary) memcpy(b, &bary[3 * j], sizeof b);
        else sn_soffd_entry_bary(h, &reg->rest[3 * i], reg->element[j], reg->coeff[4 * j + 3], b);
        for (int c = 0; c < 3; ++c) {
            uint32_t v = t[c];
            if (slot[v] == UINT32_MAX) {
                slot[v] = (uint32_t)n;
                vertex[n] = v;
                weight[n++] = 0;
            }
            weight[slot[v]] += b[c];
        }
    }
    for (size_t k = 0; k < n; ++k) slot[vertex[k]] = UINT32_MAX;
    return n;
}

bool sn_soffd_corners_append(const sinew_soffd *h, sn_soffd_reg *reg, size_t i, size_t *cap, uint32_t *slot)
{
    const sn_env *env = &h->env;
    size_t at = reg->corner_offsets[i], n = reg->offsets[i + 1] - reg->offsets[i];
    if (n == 0) {
        reg->corner_offsets[i + 1] = at;
        return true;
    }
    if (at + 3 * n > *cap) { /* amortised doubling, as the entries grow */
        size_t want = *cap ? 2 * *cap : 4096;
        while (want < at + 3 * n) want *= 2;
        uint32_t *v = (uint32_t *)sn_alloc_array(env, want, sizeof(uint32_t), "soffd corner vertices");
        float *w = v ? (float *)sn_alloc_array(env, want, sizeof(float), "soffd corner weights") : NULL;
        if (!w) {
            sn_free(env, v);
            return false;
        }
        if (at) {
            memcpy(v, reg->corner_vertex, at * sizeof(uint32_t));
            memcpy(w, reg->corner_weight, at * sizeof(float));
        }
        sn_free(env, reg->corner_vertex);
        sn_free(env, reg->corner_weight);
        reg->corner_vertex = v, reg->corner_weight = w;
        *cap = want;
    }
    reg->corner_offsets[i + 1] =
        at + merge_point(h, reg, NULL, i, slot, &reg->corner_vertex[at], &reg->corner_weight[at]);
    return true;
}

/* Distinct corners over every point of reg (slot as merge_point wants it). */
static size_t count_corners(const sinew_soffd *h, const sn_soffd_reg *reg, uint32_t *slot)
{
    size_t total = 0;
    for (size_t i = 0; i < reg->point_count; ++i) {
        size_t first = total;
        for (size_t j = reg->offsets[i]; j < reg->offsets[i + 1]; ++j)
            for (int c = 0; c < 3; ++c) {
                uint32_t v = h->elements[3 * (size_t)reg->element[j] + c];
                if (slot[v] == UINT32_MAX) slot[v] = (uint32_t)(total++ - first);
            }
        for (size_t j = reg->offsets[i]; j < reg->offsets[i + 1]; ++j)
            for (int c = 0; c < 3; ++c) slot[h->elements[3 * (size_t)reg->element[j] + c]] = UINT32_MAX;
    }
    return total;
}

bool sn_soffd_corners_reserve(const sinew_soffd *h, size_t point_count, size_t capacity, sn_soffd_corners *c)
{
    const sn_env *env = &h->env;
    memset(c, 0, sizeof *c);
    c->slot = (uint32_t *)sn_alloc_array(env, h->vertex_count, sizeof(uint32_t), "soffd corner merge scratch");
    c->offsets = (size_t *)sn_alloc_array(env, point_count + 1, sizeof(size_t), "soffd corner offsets");
    if (c->slot) memset(c->slot, 0xff, h->vertex_count * sizeof(uint32_t));
    if (capacity == SN_SOFFD_CORNERS_COUNTED) capacity = c->slot ? count_corners(h, &h->reg, c->slot) : 0;
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

void sn_soffd_corners_install(const sinew_soffd *h, sn_soffd_reg *reg, const float *bary, sn_soffd_corners *c)
{
    c->offsets[0] = 0;
    for (size_t i = 0; i < reg->point_count; ++i) {
        /* An empty set writes nothing (and with no room reserved, forms no offset from NULL). */
        size_t at = c->offsets[i];
        c->offsets[i + 1] = reg->offsets[i] == reg->offsets[i + 1]
                                ? at
                                : at + merge_point(h, reg, bary, i, c->slot, &c->vertex[at], &c->weight[at]);
    }
    sn_soffd_corners_free(&h->env, reg);
    reg->corner_offsets = c->offsets;
    reg->corner_vertex = c->vertex;
    reg->corner_weight = c->weight;
    sn_free(&h->env, c->slot);
    memset(c, 0, sizeof *c);
}
