/*
 * Union-find root with path halving, over uint32_t element numbers: the
 * connected parts of the domain (handles.c) and of the surface
 * (auto_surface.c).
 */
#ifndef SN_BBW_UNION_FIND_H
#define SN_BBW_UNION_FIND_H

#include <stdint.h>

static inline uint32_t sn_bbw_find_root(uint32_t *parent, uint32_t v)
{
    while (parent[v] != v) {
        parent[v] = parent[parent[v]];
        v = parent[v];
    }
    return v;
}

#endif /* SN_BBW_UNION_FIND_H */
