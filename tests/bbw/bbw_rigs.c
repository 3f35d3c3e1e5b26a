/*
 * The auto-binding rig set (bbw_rigs.h).
 */
#include "bbw_rigs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../skin/tools/gltf_reader.h"
#include "support.h"

#define RIG_PI 3.14159265358979323846

/* ---- Growing arrays -------------------------------------------------------- */

static void *grow(void *p, size_t count, size_t elem)
{
    void *q = realloc(p, (count ? count : 1) * elem);
    if (!q) abort();
    return q;
}

static uint32_t add_vertex(bbw_rig *r, double x, double y, double z)
{
    r->positions = grow(r->positions, 3 * (r->vertex_count + 1), sizeof(float));
    float *p = r->positions + 3 * r->vertex_count;
    p[0] = (float)x;
    p[1] = (float)y;
    p[2] = (float)z;
    return (uint32_t)r->vertex_count++;
}

static void add_triangle(bbw_rig *r, uint32_t a, uint32_t b, uint32_t c)
{
    r->triangles = grow(r->triangles, 3 * (r->triangle_count + 1), sizeof(uint32_t));
    uint32_t *t = r->triangles + 3 * r->triangle_count++;
    t[0] = a;
    t[1] = b;
    t[2] = c;
}

static uint32_t add_joint(bbw_rig *r, double x, double y, double z)
{
    r->joints = grow(r->joints, 3 * (r->joint_count + 1), sizeof(float));
    float *p = r->joints + 3 * r->joint_count;
    p[0] = (float)x;
    p[1] = (float)y;
    p[2] = (float)z;
    return (uint32_t)r->joint_count++;
}

static void add_bone(bbw_rig *r, uint32_t a, uint32_t b)
{
    r->bones = grow(r->bones, 2 * (r->bone_count + 1), sizeof(uint32_t));
    r->bones[2 * r->bone_count] = a;
    r->bones[2 * r->bone_count + 1] = b;
    r->bone_count++;
}

/* A closed ellipsoid wound outwards (UV sphere: nu around, nv from pole to pole). */
static void add_ellipsoid(bbw_rig *r, double cx, double cy, double cz, double rx, double ry, double rz, int nu, int nv)
{
    uint32_t top = add_vertex(r, cx, cy, cz + rz), first = (uint32_t)r->vertex_count;
    for (int i = 1; i < nv; ++i) {
        double th = RIG_PI * i / nv;
        for (int j = 0; j < nu; ++j) {
            double ph = 2.0 * RIG_PI * j / nu;
            add_vertex(r, cx + rx * sin(th) * cos(ph), cy + ry * sin(th) * sin(ph), cz + rz * cos(th));
        }
    }
    uint32_t bottom = add_vertex(r, cx, cy, cz - rz);
#define RING(i, j) (first + (uint32_t)((i) - 1) * (uint32_t)nu + (uint32_t)((j) % nu))
    for (int j = 0; j < nu; ++j) {
        add_triangle(r, top, RING(1, j), RING(1, j + 1));
        add_triangle(r, RING(nv - 1, j), bottom, RING(nv - 1, j + 1));
        for (int i = 1; i < nv - 1; ++i) {
            add_triangle(r, RING(i, j), RING(i + 1, j), RING(i, j + 1));
            add_triangle(r, RING(i + 1, j), RING(i + 1, j + 1), RING(i, j + 1));
        }
    }
#undef RING
}

/* An open rectangular sheet: origin + s u + t v, s and t in [0, 1]. */
static void add_sheet(bbw_rig *r, const double o[3], const double u[3], const double v[3], int n)
{
    uint32_t first = (uint32_t)r->vertex_count;
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
            double s = (double)i / n, t = (double)j / n;
            add_vertex(r, o[0] + s * u[0] + t * v[0], o[1] + s * u[1] + t * v[1], o[2] + s * u[2] + t * v[2]);
        }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            uint32_t a = first + (uint32_t)(i * (n + 1) + j), b = a + (uint32_t)(n + 1);
            add_triangle(r, a, b, a + 1);
            add_triangle(r, b, b + 1, a + 1);
        }
}

/* ---- Procedural cases -------------------------------------------------------- */

/* A figure of seven overlapping ellipsoids (torso, head, arms, legs, hips)
 * 1.7 units tall, and its six bones. */
static void figure(bbw_rig *r)
{
    add_ellipsoid(r, 0, 0, 1.0, 0.25, 0.15, 0.4, 24, 16);        /* torso */
    add_ellipsoid(r, 0, 0, 1.5, 0.15, 0.15, 0.15, 16, 10);       /* head */
    add_ellipsoid(r, -0.4, 0, 1.25, 0.25, 0.06, 0.06, 16, 10);   /* arms */
    add_ellipsoid(r, 0.4, 0, 1.25, 0.25, 0.06, 0.06, 16, 10);
    add_ellipsoid(r, -0.12, 0, 0.35, 0.07, 0.07, 0.38, 12, 16);  /* legs */
    add_ellipsoid(r, 0.12, 0, 0.35, 0.07, 0.07, 0.38, 12, 16);
    add_ellipsoid(r, 0, 0, 0.7, 0.2, 0.1, 0.08, 16, 8);          /* hips */
    uint32_t pelvis = add_joint(r, 0, 0, 0.7), chest = add_joint(r, 0, 0, 1.3), crown = add_joint(r, 0, 0, 1.58);
    add_bone(r, pelvis, chest);
    add_bone(r, chest, crown);
    for (int side = -1; side <= 1; side += 2) {
        uint32_t shoulder = add_joint(r, 0.15 * side, 0, 1.25), hand = add_joint(r, 0.6 * side, 0, 1.25);
        add_bone(r, shoulder, hand);
    }
    for (int side = -1; side <= 1; side += 2) {
        uint32_t hip = add_joint(r, 0.12 * side, 0, 0.68), foot = add_joint(r, 0.12 * side, 0, 0.05);
        add_bone(r, hip, foot);
    }
}

/* A tentacle of 19 overlapping ellipsoids along an arc, six bones along it. */
static void tentacle(bbw_rig *r)
{
    for (int i = 0; i < 19; ++i) {
        double a = 0.08 * i, rad = 0.12 - 0.004 * i;
        add_ellipsoid(r, 1.5 * sin(a), 0, 1.5 * (1 - cos(a)) + 0.1 * i, rad * 1.3, rad, rad, 12, 8);
    }
    uint32_t prev = UINT32_MAX;
    for (int k = 0; k <= 6; ++k) {
        int i = k * 3;
        double a = 0.08 * i;
        uint32_t j = add_joint(r, 1.5 * sin(a), 0, 1.5 * (1 - cos(a)) + 0.1 * i);
        if (prev != UINT32_MAX) add_bone(r, prev, j);
        prev = j;
    }
}

static void scale_rig(bbw_rig *r, double s)
{
    for (size_t i = 0; i < 3 * r->vertex_count; ++i) r->positions[i] = (float)(r->positions[i] * s);
    for (size_t i = 0; i < 3 * r->joint_count; ++i) r->joints[i] = (float)(r->joints[i] * s);
}

/* Every triangle gets its own three vertices (a glTF without shared vertices). */
static void unweld(bbw_rig *r)
{
    float *p = malloc(9 * r->triangle_count * sizeof(float));
    for (size_t t = 0; t < r->triangle_count; ++t)
        for (int k = 0; k < 3; ++k) {
            memcpy(p + 9 * t + 3 * k, r->positions + 3 * (size_t)r->triangles[3 * t + k], 3 * sizeof(float));
            r->triangles[3 * t + k] = (uint32_t)(3 * t + (size_t)k);
        }
    free(r->positions);
    r->positions = p;
    r->vertex_count = 3 * r->triangle_count;
}

/* A flat gingerbread figure in the xz plane: grid cells inside a union of
 * rectangles, two triangles each, unused grid vertices dropped. */
static void flat_figure(bbw_rig *r)
{
    enum { NX = 40, NZ = 64 };
    static const double boxes[][4] = {{-0.25, 0.6, 0.25, 1.4},  {-0.15, 1.4, 0.15, 1.65}, {-0.7, 1.18, 0.7, 1.32},
                                      {-0.2, 0.0, -0.05, 0.6},  {0.05, 0.0, 0.2, 0.6}};
    uint32_t *id = malloc((NX + 1) * (NZ + 1) * sizeof(uint32_t));
    for (int i = 0; i < (NX + 1) * (NZ + 1); ++i) id[i] = UINT32_MAX;
    for (int i = 0; i < NX; ++i)
        for (int k = 0; k < NZ; ++k) {
            double x = -0.8 + 1.6 * (i + 0.5) / NX, z = 1.7 * (k + 0.5) / NZ;
            int in = 0;
            for (size_t b = 0; b < sizeof boxes / sizeof boxes[0]; ++b)
                in |= x > boxes[b][0] && x < boxes[b][2] && z > boxes[b][1] && z < boxes[b][3];
            if (!in) continue;
            uint32_t c[4];
            for (int q = 0; q < 4; ++q) {
                int gi = i + (q & 1), gk = k + (q >> 1), at = gi * (NZ + 1) + gk;
                if (id[at] == UINT32_MAX) id[at] = add_vertex(r, -0.8 + 1.6 * gi / NX, 0.0, 1.7 * gk / NZ);
                c[q] = id[at];
            }
            add_triangle(r, c[0], c[1], c[3]);
            add_triangle(r, c[0], c[3], c[2]);
        }
    free(id);
    uint32_t pelvis = add_joint(r, 0, 0, 0.65), chest = add_joint(r, 0, 0, 1.25), head = add_joint(r, 0, 0, 1.6);
    add_bone(r, pelvis, chest);
    add_bone(r, chest, head);
    for (int side = -1; side <= 1; side += 2) {
        add_bone(r, add_joint(r, 0.1 * side, 0, 1.25), add_joint(r, 0.65 * side, 0, 1.25));
        add_bone(r, add_joint(r, 0.125 * side, 0, 0.6), add_joint(r, 0.125 * side, 0, 0.05));
    }
}

/* A figure of ~30k vertices and 40 bones: a closed star-shaped surface (a
 * sphere of STAR_RINGS x STAR_SECTORS vertices plus the poles, radius
 * 0.5 + 1.5 sum_i max(0, d . a_i)^16 in direction d) with an arm along each
 * cube diagonal a_i, and a chain of 5 bones up each arm. */
enum { STAR_RINGS = 120, STAR_SECTORS = 250, STAR_ARMS = 8, STAR_ARM_BONES = 5 };

static double star_radius(const double d[3])
{
    double r = 0.5;
    for (int i = 0; i < STAR_ARMS; ++i) {
        double c = (d[0] * ((i & 1) ? 1 : -1) + d[1] * ((i & 2) ? 1 : -1) + d[2] * ((i & 4) ? 1 : -1)) / sqrt(3.0);
        if (c > 0) r += 1.5 * pow(c, 16);
    }
    return r;
}

static void star_figure(bbw_rig *r)
{
    size_t n = (size_t)STAR_RINGS * STAR_SECTORS + 2;
    for (size_t i = 0; i < n; ++i) {
        double th = i == 0 ? 0.0 : i == n - 1 ? RIG_PI : RIG_PI * (double)((i - 1) / STAR_SECTORS + 1) / (STAR_RINGS + 1);
        double ph = i == 0 || i == n - 1 ? 0.0 : 2.0 * RIG_PI * (double)((i - 1) % STAR_SECTORS) / STAR_SECTORS;
        double d[3] = {sin(th) * cos(ph), sin(th) * sin(ph), cos(th)}, rad = star_radius(d);
        add_vertex(r, rad * d[0], rad * d[1], rad * d[2]);
    }
    uint32_t south = (uint32_t)n - 1;
    for (uint32_t j = 0; j < STAR_SECTORS; ++j) {
        uint32_t j1 = (j + 1) % STAR_SECTORS;
        add_triangle(r, 0, 1 + j, 1 + j1);
        for (uint32_t i = 0; i + 1 < STAR_RINGS; ++i) {
            uint32_t a = 1 + i * STAR_SECTORS + j, b = 1 + (i + 1) * STAR_SECTORS + j;
            uint32_t c = 1 + (i + 1) * STAR_SECTORS + j1, e = 1 + i * STAR_SECTORS + j1;
            add_triangle(r, a, b, c);
            add_triangle(r, a, c, e);
        }
        uint32_t last = 1 + (STAR_RINGS - 1) * STAR_SECTORS;
        add_triangle(r, last + j, south, last + j1);
    }
    for (int i = 0; i < STAR_ARMS; ++i) {
        double a[3] = {(i & 1) ? 1 : -1, (i & 2) ? 1 : -1, (i & 4) ? 1 : -1};
        uint32_t previous = 0;
        for (int k = 0; k <= STAR_ARM_BONES; ++k) {
            double s = (0.3 + 1.3 * k / STAR_ARM_BONES) / sqrt(3.0);
            uint32_t joint = add_joint(r, s * a[0], s * a[1], s * a[2]);
            if (k) add_bone(r, previous, joint);
            previous = joint;
        }
    }
}

static bool procedural(const char *name, bbw_rig *r)
{
    if (!strcmp(name, "figure-40-bones")) {
        star_figure(r);
        return true;
    }
    if (!strcmp(name, "tentacle-19-parts")) {
        tentacle(r);
        return true;
    }
    if (!strcmp(name, "flat-2d-figure")) {
        flat_figure(r);
        r->trait = BBW_RIG_FLAT;
        return true;
    }
    figure(r);
    if (!strcmp(name, "figure")) return true;
    if (!strcmp(name, "figure-floating-hat")) {
        add_ellipsoid(r, 0, 0, 1.85, 0.12, 0.12, 0.05, 16, 8);
        add_ellipsoid(r, 0.9, 0.3, 1.25, 0.04, 0.04, 0.04, 8, 6); /* a bead far off the hand */
        r->trait = BBW_RIG_DETACHED;
    } else if (!strcmp(name, "figure-open-cape")) {
        add_sheet(r, (const double[3]){-0.3, 0.2, 0.65}, (const double[3]){0.6, 0, 0}, (const double[3]){0, 0.05, 0.75},
                  16);
    } else if (!strcmp(name, "figure-bone-tails-out")) {
        r->joints[3 * 2 + 2] = 2.2f;            /* the head bone ends 0.55 above the crown */
        r->joints[3 * 4] = -1.0f;               /* the arms end 0.35 past the hands */
        r->joints[3 * 6] = 1.0f;
        r->trait = BBW_RIG_CLIPPED;
    } else if (!strcmp(name, "figure-bone-outside")) {
        add_bone(r, add_joint(r, 0.9, 0.0, 0.2), add_joint(r, 0.9, 0.0, 0.8));
        r->points = malloc(3 * sizeof(float));
        r->points[0] = 0.0f, r->points[1] = 0.6f, r->points[2] = 1.0f;
        r->point_count = 1;
        r->trait = BBW_RIG_CLIPPED;
    } else if (!strcmp(name, "figure-scaled-1e-3")) {
        scale_rig(r, 1e-3);
    } else if (!strcmp(name, "figure-scaled-1e3")) {
        scale_rig(r, 1e3);
    } else if (!strcmp(name, "figure-triangle-soup")) {
        unweld(r);
        r->trait = BBW_RIG_SOUP;
    } else if (!strcmp(name, "figure-inside-out")) {
        for (size_t t = 0; t < r->triangle_count; ++t) {
            uint32_t s = r->triangles[3 * t + 1];
            r->triangles[3 * t + 1] = r->triangles[3 * t + 2];
            r->triangles[3 * t + 2] = s;
        }
        r->trait = BBW_RIG_FLIPPED;
    } else {
        return false;
    }
    return true;
}

/* ---- Shared data --------------------------------------------------------------- */

static void take_mesh(bbw_rig *r, support_mesh *m)
{
    r->positions = m->positions;
    r->vertex_count = m->vertex_count;
    r->triangles = m->triangles;
    r->triangle_count = m->triangle_count;
    m->positions = NULL;
    m->triangles = NULL;
    support_mesh_free(m);
}

static bool read_surface(const char *file, bbw_rig *r)
{
    char path[1024];
    support_mesh m;
    memset(&m, 0, sizeof m);
    if (!support_data_path(file, path, sizeof path)) return false;
    const char *dot = strrchr(file, '.');
    bool ok = !strcmp(dot, ".obj") ? support_read_obj(path, &m)
              : !strcmp(dot, ".off") ? support_read_off(path, &m)
                                     : support_read_medit(path, &m);
    if (!ok) return false;
    take_mesh(r, &m);
    return true;
}

static bool read_tgf(const char *file, bbw_rig *r)
{
    char path[1024];
    return support_data_path(file, path, sizeof path) &&
           support_read_tgf(path, &r->joints, &r->joint_count, &r->bones, &r->bone_count);
}

/* Translation of the inverse of an affine column-major matrix. */
static void affine_inverse_translation(const double *m, double out[3])
{
    double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    double inv[9] = {(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det,
                     (f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det,
                     (d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det};
    for (int row = 0; row < 3; ++row)
        out[row] = -(inv[3 * row] * m[12] + inv[3 * row + 1] * m[13] + inv[3 * row + 2] * m[14]);
}

/* A glTF character: its skinned primitive, joints at the bind pose (from
 * the inverse bind matrices), a bone from each joint's nearest joint
 * ancestor to it where the two are apart. */
static bool read_gltf(const char *file, bbw_rig *r)
{
    char path[1024], err[256];
    gltf_model m;
    if (!support_data_path(file, path, sizeof path) || !gltf_load(path, &m, err, sizeof err)) return false;
    r->vertex_count = m.vertex_count;
    r->positions = malloc(3 * m.vertex_count * sizeof(float));
    for (size_t i = 0; i < 3 * m.vertex_count; ++i) r->positions[i] = (float)m.positions[i];
    r->triangle_count = m.index_count / 3;
    r->triangles = malloc(3 * r->triangle_count * sizeof(uint32_t) + 1);
    memcpy(r->triangles, m.indices, 3 * r->triangle_count * sizeof(uint32_t));
    int *joint_of_node = malloc(m.node_count * sizeof(int));
    for (size_t i = 0; i < m.node_count; ++i) joint_of_node[i] = -1;
    for (size_t j = 0; j < m.joint_count; ++j) joint_of_node[m.joint_nodes[j]] = (int)j;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < 3 * m.vertex_count; ++i) lo = fmin(lo, m.positions[i]), hi = fmax(hi, m.positions[i]);
    for (size_t j = 0; j < m.joint_count; ++j) {
        double t[3];
        affine_inverse_translation(m.inverse_bind + 16 * j, t);
        add_joint(r, t[0], t[1], t[2]);
    }
    for (size_t j = 0; j < m.joint_count; ++j) {
        int node = m.nodes[m.joint_nodes[j]].parent;
        while (node >= 0 && joint_of_node[node] < 0) node = m.nodes[node].parent;
        if (node < 0) continue;
        const float *a = r->joints + 3 * (size_t)joint_of_node[node], *b = r->joints + 3 * j;
        double len = sqrt((double)(b[0] - a[0]) * (b[0] - a[0]) + (double)(b[1] - a[1]) * (b[1] - a[1]) +
                          (double)(b[2] - a[2]) * (b[2] - a[2]));
        if (len > 1e-4 * (hi - lo)) add_bone(r, (uint32_t)joint_of_node[node], (uint32_t)j);
    }
    free(joint_of_node);
    gltf_free(&m);
    return r->bone_count > 0;
}

/* A chain of four bones along the box's longest side through its centre,
 * from 15% to 85% of it: a skeleton a user might sketch for a prop. */
static void chain_along_box(bbw_rig *r)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < r->vertex_count; ++i)
        for (int a = 0; a < 3; ++a) {
            lo[a] = fmin(lo[a], r->positions[3 * i + (size_t)a]);
            hi[a] = fmax(hi[a], r->positions[3 * i + (size_t)a]);
        }
    int axis = 0;
    for (int a = 1; a < 3; ++a)
        if (hi[a] - lo[a] > hi[axis] - lo[axis]) axis = a;
    uint32_t prev = UINT32_MAX;
    for (int k = 0; k <= 4; ++k) {
        double p[3];
        for (int a = 0; a < 3; ++a) p[a] = 0.5 * (lo[a] + hi[a]);
        p[axis] = lo[axis] + (0.15 + 0.7 * k / 4.0) * (hi[axis] - lo[axis]);
        uint32_t j = add_joint(r, p[0], p[1], p[2]);
        if (prev != UINT32_MAX) add_bone(r, prev, j);
        prev = j;
    }
}

/* ---- The table ---------------------------------------------------------------------- */

typedef enum rig_source { FROM_CODE, FROM_TGF, FROM_GLTF, FROM_CHAIN } rig_source;

/* quick: binds within seconds in a debug build (the tests' default set). */
static const struct {
    const char *name;
    rig_source source;
    const char *mesh, *skeleton;
    bool quick;
    bbw_rig_trait trait;
} rigs[] = {
    {"figure", FROM_CODE, NULL, NULL, true, BBW_RIG_PLAIN},
    {"tentacle-19-parts", FROM_CODE, NULL, NULL, true, BBW_RIG_PLAIN},
    {"figure-floating-hat", FROM_CODE, NULL, NULL, true, BBW_RIG_PLAIN},
    {"figure-open-cape", FROM_CODE, NULL, NULL, true, BBW_RIG_PLAIN},
    {"figure-bone-tails-out", FROM_CODE, NULL, NULL, true, BBW_RIG_PLAIN},
    {"figure-bone-outside", FROM_CODE, NULL, NULL, true, BBW_RIG_PLAIN},
    {"figure-scaled-1e-3", FROM_CODE, NULL, NULL, true, BBW_RIG_PLAIN},
    {"figure-scaled-1e3", FROM_CODE, NULL, NULL, true, BBW_RIG_PLAIN},
    {"figure-triangle-soup", FROM_CODE, NULL, NULL, true, BBW_RIG_PLAIN},
    {"figure-inside-out", FROM_CODE, NULL, NULL, true, BBW_RIG_PLAIN},
    {"flat-2d-figure", FROM_CODE, NULL, NULL, true, BBW_RIG_PLAIN},
    {"figure-40-bones", FROM_CODE, NULL, NULL, false, BBW_RIG_PLAIN},
    {"arm", FROM_TGF, "libigl-tutorial-data/arm.obj", "libigl-tutorial-data/arm.tgf", true, BBW_RIG_PLAIN},
    {"hand", FROM_TGF, "libigl-tutorial-data/hand.mesh", "libigl-tutorial-data/hand.tgf", false, BBW_RIG_PLAIN},
    {"elephant", FROM_TGF, "libigl-tutorial-data/elephant.obj", "libigl-tutorial-data/elephant.tgf", false, BBW_RIG_PLAIN},
    {"Fox", FROM_GLTF, "gltf/Fox.gltf", NULL, true, BBW_RIG_PLAIN},
    {"RiggedFigure", FROM_GLTF, "gltf/RiggedFigure.gltf", NULL, false, BBW_RIG_PLAIN},
    {"RiggedSimple", FROM_GLTF, "gltf/RiggedSimple.gltf", NULL, true, BBW_RIG_PLAIN},
    {"spot-chain", FROM_CHAIN, "common-3d-test-models/spot.obj", NULL, false, BBW_RIG_PLAIN},
    {"cow-chain", FROM_CHAIN, "common-3d-test-models/cow.obj", NULL, true, BBW_RIG_PLAIN},
    {"woody-chain", FROM_CHAIN, "common-3d-test-models/woody.obj", NULL, true, BBW_RIG_FLAT},
    {"homer-chain", FROM_CHAIN, "common-3d-test-models/homer.obj", NULL, false, BBW_RIG_PLAIN},
    {"alligator-chain", FROM_CHAIN, "common-3d-test-models/alligator.obj", NULL, false, BBW_RIG_FLAT},
    {"teapot-chain", FROM_CHAIN, "common-3d-test-models/teapot.obj", NULL, false, BBW_RIG_PLAIN},
    {"cheburashka-chain", FROM_CHAIN, "common-3d-test-models/cheburashka.obj", NULL, false, BBW_RIG_PLAIN},
    {"beetle-chain", FROM_CHAIN, "common-3d-test-models/beetle.obj", NULL, false, BBW_RIG_PLAIN},
};

size_t bbw_rig_count(void) { return sizeof rigs / sizeof rigs[0]; }

size_t bbw_rig_find(const char *name)
{
    for (size_t i = 0; i < bbw_rig_count(); ++i)
        if (!strcmp(rigs[i].name, name)) return i;
    return SIZE_MAX;
}

bool bbw_rig_load(size_t i, bbw_rig *r, const char **why)
{
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", rigs[i].name);
    r->procedural = rigs[i].source == FROM_CODE;
    r->quick = rigs[i].quick;
    r->trait = rigs[i].trait;
    bool ok = true;
    switch (rigs[i].source) {
    case FROM_CODE: ok = procedural(rigs[i].name, r); break;
    case FROM_TGF: ok = read_surface(rigs[i].mesh, r) && read_tgf(rigs[i].skeleton, r); break;
    case FROM_GLTF: ok = read_gltf(rigs[i].mesh, r); break;
    case FROM_CHAIN:
        ok = read_surface(rigs[i].mesh, r);
        if (ok) chain_along_box(r);
        break;
    }
    if (!ok) {
        if (why) *why = rigs[i].mesh ? rigs[i].mesh : rigs[i].name;
        bbw_rig_free(r);
        snprintf(r->name, sizeof r->name, "%s", rigs[i].name);
        return false;
    }
    r->surface = (sinew_trimesh){.positions = {.data = r->positions, .count = r->vertex_count},
                                 .indices = r->triangles,
                                 .triangle_count = r->triangle_count};
    return true;
}

void bbw_rig_free(bbw_rig *r)
{
    free(r->positions);
    free(r->triangles);
    free(r->joints);
    free(r->bones);
    free(r->points);
    memset(r, 0, sizeof *r);
}

void bbw_rig_desc(const bbw_rig *r, sinew_bbw_auto_desc *d)
{
    SINEW_INIT(d);
    d->surface = &r->surface;
    d->joint_positions = (sinew_points){.data = r->joints, .count = r->joint_count};
    d->bones = r->bones;
    d->bone_count = r->bone_count;
    d->points = (sinew_points){.data = r->points, .count = r->point_count};
}

void bbw_rig_create_desc(const bbw_rig *r, sinew_bbw_desc *d)
{
    SINEW_INIT(d);
    d->surface = &r->surface;
    d->joint_positions = (sinew_points){.data = r->joints, .count = r->joint_count};
    d->bones = r->bones;
    d->bone_count = r->bone_count;
    d->points = (sinew_points){.data = r->points, .count = r->point_count};
}
