/* A wavy floor for placement tests: a g x g grid of unit squares centred on
 * the origin, z = 0.3 sin(0.7 x) cos(0.5 y), two triangles per square. */
#ifndef SINEW_TEST_WAVY_FLOOR_H
#define SINEW_TEST_WAVY_FLOOR_H

#include <math.h>
#include <stdint.h>

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

#endif
