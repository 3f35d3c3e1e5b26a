/* The demo's procedural limb and its animation (limb.h). */
#include "limb.h"

#include <math.h>
#include <stdlib.h>

#include "support.h"

bool limb_make(limb *l)
{
    l->positions = malloc(3 * LIMB_VERTICES * sizeof(float));
    l->normals = malloc(3 * LIMB_VERTICES * sizeof(float));
    l->joints = malloc(2 * LIMB_VERTICES * sizeof(uint32_t));
    l->weights = malloc(2 * LIMB_VERTICES * sizeof(float));
    l->triangles = malloc(6 * (LIMB_RINGS - 1) * LIMB_SEGMENTS * sizeof(uint32_t));
    if (!l->positions || !l->normals || !l->joints || !l->weights || !l->triangles) {
        limb_free(l);
        return false;
    }
    for (int i = 0; i < LIMB_RINGS; ++i)
        for (int s = 0; s < LIMB_SEGMENTS; ++s) {
            int v = i * LIMB_SEGMENTS + s;
            double a = 2 * LIMB_PI * s / LIMB_SEGMENTS, x = LIMB_LENGTH * i / (LIMB_RINGS - 1);
            float *p = l->positions + 3 * v, *n = l->normals + 3 * v;
            p[0] = (float)x, p[1] = (float)(LIMB_RADIUS * cos(a)), p[2] = (float)(LIMB_RADIUS * sin(a));
            n[0] = 0, n[1] = (float)cos(a), n[2] = (float)sin(a);
            /* The nearest joint (x = 1 or 2) and a smoothstep over 0.4 across it. */
            int b = x < 1.5 ? 1 : 2;
            double t = (x - (b - 0.2)) / 0.4;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            double w = t * t * (3 - 2 * t);
            l->joints[2 * v] = (uint32_t)(b - 1), l->joints[2 * v + 1] = (uint32_t)b;
            l->weights[2 * v] = (float)(1 - w), l->weights[2 * v + 1] = (float)w;
        }
    l->triangle_count = 0;
    for (int i = 0; i + 1 < LIMB_RINGS; ++i)
        for (int s = 0; s < LIMB_SEGMENTS; ++s) {
            uint32_t a = (uint32_t)(i * LIMB_SEGMENTS + s), b = (uint32_t)(i * LIMB_SEGMENTS + (s + 1) % LIMB_SEGMENTS);
            uint32_t *q = l->triangles + 3 * l->triangle_count;
            q[0] = a, q[1] = b, q[2] = b + LIMB_SEGMENTS, q[3] = a, q[4] = b + LIMB_SEGMENTS, q[5] = a + LIMB_SEGMENTS;
            l->triangle_count += 2;
        }
    /* Bind pose: joints at x = 0, 1, 2 along the straight limb. */
    static const double x_axis[3] = {1, 0, 0};
    for (int j = 0; j < LIMB_JOINTS; ++j) {
        const double back[3] = {-j, 0, 0};
        support_affine_rotation(x_axis, 0, back, l->inverse_bind + 16 * j);
    }
    return true;
}

void limb_free(limb *l)
{
    free(l->positions), free(l->normals), free(l->joints), free(l->weights), free(l->triangles);
    l->positions = l->normals = l->weights = NULL;
    l->joints = l->triangles = NULL;
}

void limb_pose(double u, float world[16 * LIMB_JOINTS])
{
    static const double z_axis[3] = {0, 0, 1}, x_axis[3] = {1, 0, 0}, origin[3] = {0, 0, 0};
    static const double one_along_x[3] = {1, 0, 0};
    const double bend = 100.0 * LIMB_PI / 180.0 * sin(LIMB_PI * u);
    const double twist = 150.0 * LIMB_PI / 180.0 * sin(LIMB_PI * u);
    float local[16];
    support_affine_rotation(z_axis, 0.15 * sin(2 * LIMB_PI * u), origin, world);
    support_affine_rotation(z_axis, bend, one_along_x, local);
    support_mat4_multiply(world, local, world + 16);
    support_affine_rotation(x_axis, twist, one_along_x, local);
    support_mat4_multiply(world + 16, local, world + 32);
}

double limb_ring_area_ratio(const float *positions, int ring, const double *axis)
{
    double area[3] = {0, 0, 0};
    for (int s = 0; s < LIMB_SEGMENTS; ++s) {
        const float *u = positions + 3 * (ring * LIMB_SEGMENTS + s);
        const float *v = positions + 3 * (ring * LIMB_SEGMENTS + (s + 1) % LIMB_SEGMENTS);
        area[0] += (double)u[1] * v[2] - (double)u[2] * v[1];
        area[1] += (double)u[2] * v[0] - (double)u[0] * v[2];
        area[2] += (double)u[0] * v[1] - (double)u[1] * v[0];
    }
    double projected = axis ? fabs(area[0] * axis[0] + area[1] * axis[1] + area[2] * axis[2])
                            : sqrt(area[0] * area[0] + area[1] * area[1] + area[2] * area[2]);
    double rest = LIMB_SEGMENTS * LIMB_RADIUS * LIMB_RADIUS * sin(2 * LIMB_PI / LIMB_SEGMENTS);
    return projected / rest;
}
