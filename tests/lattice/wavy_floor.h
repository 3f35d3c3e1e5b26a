/* A wavy floor for placement tests: a g x g grid of unit squares centred on
 * the origin, z = 0.3 sin(0.7 x) cos(0.5 y), two triangles per square; and a
 * cubic placement along a straight path over it. */
#ifndef SINEW_TEST_WAVY_FLOOR_H
#define SINEW_TEST_WAVY_FLOOR_H

#include <math.h>
#include <stdint.h>

#include "sinew.h"

/* v: 3 (g + 1)^2 floats, t: 6 g^2 indices. */
static inline void wavy_floor(int g, float *v, uint32_t *t)
{
    for (int j = 0; j <= g; ++j)
        for (int i = 0; i <= g; ++i) {
            float *p = v + 3 * (i + (g + 1) * j);
            p[0] = -0.5f * (float)g + (float)i, p[1] = -0.5f * (float)g + (float)j;
            p[2] = 0.3f * sinf(0.7f * p[0]) * cosf(0.5f * p[1]);
        }
    for (int j = 0; j < g; ++j)
        for (int i = 0; i < g; ++i) {
            uint32_t a = (uint32_t)(i + (g + 1) * j), row = (uint32_t)g + 1;
            *t++ = a, *t++ = a + 1, *t++ = a + row + 1, *t++ = a, *t++ = a + row + 1, *t++ = a + row;
        }
}

/* A placement 1 wide and 0.5 high along the path from (-half, 1, 5) to
 * (half, -1, 5) over the floor (v, t as wavy_floor fills them), with
 * count_u x count_v x 4 control points; NULL when create fails. */
static inline sinew_placement *wavy_placement(int g, const float *v, const uint32_t *t, float half, uint32_t count_u,
                                              uint32_t count_v)
{
    const float path[6] = {-half, 1, 5, half, -1, 5};
    sinew_placement_desc d;
    SINEW_INIT(&d);
    d.path = (sinew_points){path, 2, 0};
    d.width = 1.0f;
    d.height = 0.5f;
    d.count[0] = count_u, d.count[1] = count_v, d.count[2] = 4;
    d.scene = (sinew_trimesh){{v, (size_t)(g + 1) * (size_t)(g + 1), 0}, t, 2 * (size_t)g * (size_t)g,
                              SINEW_INDEX_U32, 0};
    sinew_placement *p = NULL;
    return sinew_placement_create(NULL, &d, &p) == SINEW_OK ? p : NULL;
}

#endif
