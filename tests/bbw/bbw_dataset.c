/* The automatic-volume acceptance set (bbw_dataset.h). */
#include "bbw_dataset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    const char *mesh;  /* relative to the data folder */
    const char *tgf;   /* skeleton, or NULL for point handles */
} entry;

static const entry entries[] = {
    {"common-3d-test-models/alligator.obj", NULL},      {"common-3d-test-models/beast.obj", NULL},
    {"common-3d-test-models/beetle-alt.obj", NULL},     {"common-3d-test-models/beetle.obj", NULL},
    {"common-3d-test-models/cheburashka.obj", NULL},    {"common-3d-test-models/cow.obj", NULL},
    {"common-3d-test-models/fandisk.obj", NULL},        {"common-3d-test-models/homer.obj", NULL},
    {"common-3d-test-models/ogre.obj", NULL},           {"common-3d-test-models/rocker-arm.obj", NULL},
    {"common-3d-test-models/spot.obj", NULL},           {"common-3d-test-models/stanford-bunny.obj", NULL},
    {"common-3d-test-models/suzanne.obj", NULL},        {"common-3d-test-models/teapot.obj", NULL},
    {"common-3d-test-models/woody.obj", NULL},          {"libigl-tutorial-data/arm.obj", NULL},
    {"libigl-tutorial-data/armadillo.obj", NULL},       {"libigl-tutorial-data/camel_b.obj", NULL},
    {"libigl-tutorial-data/cube.obj", NULL},            {"libigl-tutorial-data/cylinder.obj", NULL},
    {"libigl-tutorial-data/decimated-max.obj", NULL},   {"libigl-tutorial-data/elephant.obj", NULL},
    {"libigl-tutorial-data/horse_quad.obj", NULL},      {"libigl-tutorial-data/sphere.obj", NULL},
    {"libigl-tutorial-data/xcylinder.obj", NULL},       {"libigl-tutorial-data/ycylinder.obj", NULL},
    {"libigl-tutorial-data/zcylinder.obj", NULL},       {"libigl-tutorial-data/2triangles.off", NULL},
    {"libigl-tutorial-data/beetle.off", NULL},          {"libigl-tutorial-data/bumpy.off", NULL},
    {"libigl-tutorial-data/bunny.off", NULL},           {"libigl-tutorial-data/camelhead.off", NULL},
    {"libigl-tutorial-data/cheburashka.off", NULL},     {"libigl-tutorial-data/cow.off", NULL},
    {"libigl-tutorial-data/cube.off", NULL},            {"libigl-tutorial-data/decimated-knight.off", NULL},
    {"libigl-tutorial-data/fandisk.off", NULL},         {"libigl-tutorial-data/fertility.off", NULL},
    {"libigl-tutorial-data/grid.off", NULL},            {"libigl-tutorial-data/planexy.off", NULL},
    {"libigl-tutorial-data/arm.obj", "libigl-tutorial-data/arm.tgf"},
    {"libigl-tutorial-data/elephant.obj", "libigl-tutorial-data/elephant.tgf"},
    {"libigl-tutorial-data/hand.mesh", "libigl-tutorial-data/hand.tgf"},
};

size_t bbw_dataset_count(void) { return sizeof entries / sizeof entries[0]; }

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Every undirected edge in exactly two triangles. */
static bool closed(const support_mesh *m)
{
    if (m->triangle_count == 0) return false;
    size_t n = 3 * m->triangle_count;
    uint64_t *keys = malloc(n * sizeof *keys);
    if (!keys) return false;
    for (size_t t = 0; t < m->triangle_count; ++t)
        for (int k = 0; k < 3; ++k) {
            uint64_t a = m->triangles[3 * t + k], b = m->triangles[3 * t + (k + 1) % 3];
            keys[3 * t + k] = a < b ? a << 32 | b : b << 32 | a;
        }
    qsort(keys, n, sizeof *keys, compare_u64);
    bool ok = true;
    for (size_t i = 0; i < n && ok;) {
        size_t j = i;
        while (j < n && keys[j] == keys[i]) ++j;
        if (j - i != 2) ok = false;
        i = j;
    }
    free(keys);
    return ok;
}

void bbw_farthest_points(const float *pos, size_t n, const double start[3], size_t count, float *out,
                         const double *normals, double inward)
{
    double *dist = malloc(n * sizeof(double));
    if (!dist) return;
    for (size_t v = 0; v < n; ++v) {
        double d2 = 0.0;
        for (int a = 0; a < 3; ++a) d2 += (pos[3 * v + a] - start[a]) * (pos[3 * v + a] - start[a]);
        dist[v] = d2;
    }
    for (size_t k = 0; k < count; ++k) {
        size_t pick = 0;
        for (size_t v = 1; v < n; ++v)
            if (dist[v] > dist[pick]) pick = v;
        const float *p = pos + 3 * pick;
        double len = 0.0;
        if (normals)
            len = sqrt(normals[3 * pick] * normals[3 * pick] + normals[3 * pick + 1] * normals[3 * pick + 1] +
                       normals[3 * pick + 2] * normals[3 * pick + 2]);
        for (int a = 0; a < 3; ++a)
            out[3 * k + a] = (float)(p[a] - (len > 0.0 ? inward * normals[3 * pick + a] / len : 0.0));
        for (size_t v = 0; v < n; ++v) {
            double d2 = 0.0;
            for (int a = 0; a < 3; ++a) d2 += (pos[3 * v + a] - p[a]) * (pos[3 * v + a] - p[a]);
            if (d2 < dist[v]) dist[v] = d2;
        }
    }
    free(dist);
}

void bbw_centre_and_farthest_points(const float *pos, size_t n, size_t count, float *out)
{
    double centre[3] = {0, 0, 0};
    for (size_t v = 0; v < n; ++v)
        for (int a = 0; a < 3; ++a) centre[a] += pos[3 * v + a] / (double)n;
    for (int a = 0; a < 3; ++a) out[a] = (float)centre[a];
    bbw_farthest_points(pos, n, centre, count, out + 3, NULL, 0.0);
}

/* Six handles (fewer on a smaller mesh) at the extremities, 1% of the box's longest side inside
 * (against the area-weighted vertex normal, oriented by the enclosed volume's
 * sign so inward is inward whatever the winding). */
static void extremity_handles(bbw_case *c)
{
    const support_mesh *m = &c->mesh;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double centre[3] = {0, 0, 0}, volume = 0.0;
    for (size_t v = 0; v < m->vertex_count; ++v)
        for (int a = 0; a < 3; ++a) {
            lo[a] = fmin(lo[a], m->positions[3 * v + a]);
            hi[a] = fmax(hi[a], m->positions[3 * v + a]);
            centre[a] += m->positions[3 * v + a] / (double)m->vertex_count;
        }
    double longest = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    double *normals = calloc(m->vertex_count * 3, sizeof(double));
    if (!normals) return;
    for (size_t t = 0; t < m->triangle_count; ++t) {
        const uint32_t *tv = m->triangles + 3 * t;
        const float *p0 = m->positions + 3 * tv[0], *p1 = m->positions + 3 * tv[1], *p2 = m->positions + 3 * tv[2];
        double e1[3], e2[3];
        for (int a = 0; a < 3; ++a) {
            e1[a] = p1[a] - p0[a];
            e2[a] = p2[a] - p0[a];
        }
        double cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        volume += (p0[0] - centre[0]) * cr[0] + (p0[1] - centre[1]) * cr[1] + (p0[2] - centre[2]) * cr[2];
        for (int k = 0; k < 3; ++k)
            for (int a = 0; a < 3; ++a) normals[3 * tv[k] + a] += cr[a];
    }
    double inward = 0.01 * longest * (volume < 0 ? -1.0 : 1.0);
    c->point_count = m->vertex_count < 6 ? m->vertex_count : 6; /* distinct vertices */
    bbw_farthest_points(m->positions, m->vertex_count, centre, c->point_count, c->points, normals, inward);
    free(normals);
}

/* "hand-mesh-skeleton": file stem, extension, handle kind. */
static void case_name(const entry *e, char name[64])
{
    const char *slash = strrchr(e->mesh, '/'), *dot = strrchr(e->mesh, '.');
    snprintf(name, 64, "%.*s-%s%s", (int)(dot - slash - 1), slash + 1, dot + 1, e->tgf ? "-skeleton" : "-points");
}

size_t bbw_dataset_find(const char *name)
{
    char n[64];
    for (size_t i = 0; i < bbw_dataset_count(); ++i) {
        case_name(&entries[i], n);
        if (strcmp(n, name) == 0) return i;
    }
    return SIZE_MAX;
}

bool bbw_dataset_load(size_t i, bbw_case *c, const char **why)
{
    memset(c, 0, sizeof *c);
    *why = "";
    if (i >= bbw_dataset_count()) return false;
    const entry *e = &entries[i];
    char path[1024];
    const char *dot = strrchr(e->mesh, '.');
    case_name(e, c->name);
    if (!support_data_path(e->mesh, path, sizeof path)) {
        *why = "data not found";
        return false;
    }
    bool ok = strcmp(dot, ".obj") == 0   ? support_read_obj(path, &c->mesh)
              : strcmp(dot, ".off") == 0 ? support_read_off(path, &c->mesh)
                                         : support_read_medit(path, &c->mesh);
    if (!ok) {
        *why = "unreadable";
        return false;
    }
    c->open = !c->mesh.tets && !closed(&c->mesh);
    if (e->tgf) {
        if (!support_data_path(e->tgf, path, sizeof path) ||
            !support_read_tgf(path, &c->joints, &c->joint_count, &c->bones, &c->bone_count)) {
            *why = "skeleton not found";
            bbw_dataset_free(c);
            return false;
        }
    } else {
        extremity_handles(c);
    }
    c->surface = support_mesh_trimesh(&c->mesh);
    sinew_tetmesh tm = {support_mesh_points(&c->mesh), c->mesh.tets, c->mesh.tet_count, SINEW_INDEX_U32, 0};
    c->tets = tm;
    return true;
}

void bbw_dataset_free(bbw_case *c)
{
    char name[sizeof c->name];
    memcpy(name, c->name, sizeof name);
    support_mesh_free(&c->mesh);
    free(c->joints);
    free(c->bones);
    memset(c, 0, sizeof *c);
    memcpy(c->name, name, sizeof name); /* still names a case that failed to load */
}

void bbw_dataset_desc(const bbw_case *c, sinew_bbw_desc *d)
{
    SINEW_INIT(d);
    if (c->mesh.tets) d->tets = &c->tets;
    else d->surface = &c->surface;
    d->points.data = c->points;
    d->points.count = c->point_count;
    if (c->bone_count) {
        d->joint_positions.data = c->joints;
        d->joint_positions.count = c->joint_count;
        d->bones = c->bones;
        d->bone_count = c->bone_count;
    }
}
