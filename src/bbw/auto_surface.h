/*
 * The surface sinew_bbw_auto_weights builds its domain from (auto_surface.c):
 * welded by position, closed parts wound inwards turned outwards, and a flat
 * surface recognised as the 2D domain it is.
 */
#ifndef SN_BBW_AUTO_SURFACE_H
#define SN_BBW_AUTO_SURFACE_H

#include "core/internal.h"

typedef struct sn_bbw_prepared {
    float *positions;          /* 3 per welded vertex; 2D: in the plane's frame, z = 0 */
    size_t vertex_count;
    uint32_t *triangles;       /* 3 per triangle, welded and oriented, degenerate ones dropped */
    size_t triangle_count;
    uint32_t *vertex_map;      /* input vertex -> welded vertex */
    size_t component_count, flipped_count;
    uint32_t dimension;        /* 3, or 2 for a flat surface */
    double origin[3], axis_u[3], axis_v[3]; /* 2D: the plane's frame */
} sn_bbw_prepared;

/* Reads and checks surface (named "surface vertex" / "surface triangle" in
 * messages) and prepares it. On failure *p is left empty. */
sinew_result sn_bbw_prepare_surface(const sn_env *env, const sinew_trimesh *surface, sn_bbw_prepared *p);
/* A point in the prepared surface's coordinates (2D: its plane's frame). */
void sn_bbw_prepared_point(const sn_bbw_prepared *p, const float in[3], float out[3]);
void sn_bbw_prepared_free(const sn_env *env, sn_bbw_prepared *p);

#endif /* SN_BBW_AUTO_SURFACE_H */
