/* Example: a coarse cage drives a detailed mesh with surface-oriented FFD.
 *
 * With the shared data, beetle.obj (1,148 vertices) is the cage of
 * beetle-alt.obj (19,887 vertices, aligned onto it); without it, a 2 x 2 x 2
 * cube cage drives a UV sphere. The cage is bent and twisted along its longest
 * axis; the program writes the rest and bent cage and mesh as OBJ files into
 * the folder given as the first argument (default: the current one) and prints
 * what each phase cost.
 *
 *   soffd_cage_bend [output-folder]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew.h"
#include "soffd_pictures.h"
#include "support.h"

typedef struct model {
    float *pos;
    size_t nv;
    uint32_t *tri;
    size_t nt;
} model;

static void bounds(const model *m, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; ++k) lo[k] = INFINITY, hi[k] = -INFINITY;
    for (size_t i = 0; i < m->nv; ++i)
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], m->pos[3 * i + k]), hi[k] = fmax(hi[k], m->pos[3 * i + k]);
}

static void sphere(model *m, int rings, int segments, double radius)
{
    m->nv = (size_t)(rings + 1) * segments;
    m->nt = (size_t)rings * segments * 2;
    m->pos = malloc(3 * m->nv * sizeof(float));
    m->tri = malloc(3 * m->nt * sizeof(uint32_t));
    for (int r = 0; r <= rings; ++r)
        for (int s = 0; s < segments; ++s) {
            double th = M_PI * r / rings, ph = 2 * M_PI * s / segments;
            float *p = &m->pos[3 * ((size_t)r * segments + s)];
            p[0] = (float)(radius * sin(th) * cos(ph)), p[1] = (float)(radius * sin(th) * sin(ph));
            p[2] = (float)(radius * cos(th));
        }
    size_t t = 0;
    for (int r = 0; r < rings; ++r)
        for (int s = 0; s < segments; ++s) {
            uint32_t a = (uint32_t)(r * segments + s), b = (uint32_t)(r * segments + (s + 1) % segments);
            uint32_t c = a + (uint32_t)segments, d = b + (uint32_t)segments;
            uint32_t q[6] = {a, c, b, b, c, d};
            memcpy(&m->tri[3 * t], q, sizeof q);
            t += 2;
        }
    /* Pole rows collapse to points: those slivers are harmless for a skin. */
}

/* The surface of [-1, 1]^3 as 2 x 2 quads per side, split into triangles. */
static void cube_cage(model *m)
{
    m->pos = malloc(6 * 9 * 3 * sizeof(float));
    m->tri = malloc(6 * 8 * 3 * sizeof(uint32_t));
    m->nv = m->nt = 0;
    for (int a = 0; a < 3; ++a)
        for (int sgn = -1; sgn <= 1; sgn += 2)
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 2; ++j) {
                    uint32_t q[4];
                    const int di[4] = {0, 1, 1, 0}, dj[4] = {0, 0, 1, 1};
                    for (int k = 0; k < 4; ++k) {
                        float p[3];
                        p[a] = (float)sgn, p[(a + 1) % 3] = (float)(i + di[k] - 1), p[(a + 2) % 3] = (float)(j + dj[k] - 1);
                        size_t v = 0;
                        while (v < m->nv && memcmp(&m->pos[3 * v], p, sizeof p) != 0) ++v;
                        if (v == m->nv) memcpy(&m->pos[3 * m->nv++], p, sizeof p);
                        q[sgn > 0 ? k : 3 - k] = (uint32_t)v;
                    }
                    uint32_t t[6] = {q[0], q[1], q[2], q[0], q[2], q[3]};
                    memcpy(&m->tri[3 * m->nt], t, sizeof t);
                    m->nt += 2;
                }
}

/* Bend about one side axis along an arc (the long axis keeps its length on
 * an arc of radius 1.5 half-lengths) and twist about the longest one. */
static void bend(const float *in, float *out, size_t n, const double lo[3], const double hi[3])
{
    int ax = 0;
    for (int k = 1; k < 3; ++k)
        if (hi[k] - lo[k] > hi[ax] - lo[ax]) ax = k;
    int ay = (ax + 1) % 3, az = (ax + 2) % 3;
    double half = (hi[ax] - lo[ax]) / 2, c[3];
    for (int k = 0; k < 3; ++k) c[k] = (lo[k] + hi[k]) / 2;
    for (size_t i = 0; i < n; ++i) {
        double x = (in[3 * i + ax] - c[ax]) / half, y = (in[3 * i + ay] - c[ay]) / half, z = (in[3 * i + az] - c[az]) / half;
        double tw = 0.6 * x, y1 = cos(tw) * y - sin(tw) * z, z1 = sin(tw) * y + cos(tw) * z;
        const double radius = 1.5;
        double th = x / radius, r = radius + y1;
        out[3 * i + ax] = (float)(r * sin(th) * half + c[ax]);
        out[3 * i + ay] = (float)((r * cos(th) - radius) * half + c[ay]);
        out[3 * i + az] = (float)(z1 * half + c[az]);
    }
}

static int write(const char *dir, const char *name, const float *pos, const model *m)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!support_write_obj(path, pos, m->nv, 0, m->tri, m->nt)) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    printf("wrote %s\n", path);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    model cage = {0}, mesh = {0};
    support_mesh a = {0}, b = {0};
    char pa[4096], pb[4096];
    if (support_data_path("common-3d-test-models/beetle.obj", pa, sizeof pa) &&
        support_data_path("common-3d-test-models/beetle-alt.obj", pb, sizeof pb) && support_read_obj(pa, &a) &&
        support_read_obj(pb, &b)) {
        cage = (model){a.positions, a.vertex_count, a.triangles, a.triangle_count};
        mesh = (model){b.positions, b.vertex_count, b.triangles, b.triangle_count};
        double clo[3], chi[3], mlo[3], mhi[3];
        bounds(&cage, clo, chi);
        bounds(&mesh, mlo, mhi);
        for (size_t i = 0; i < mesh.nv; ++i) /* beetle-alt is centred and larger: fit its box onto beetle's */
            for (int k = 0; k < 3; ++k)
                mesh.pos[3 * i + k] = (float)(clo[k] + (mesh.pos[3 * i + k] - mlo[k]) * (chi[k] - clo[k]) / (mhi[k] - mlo[k]));
        printf("cage: beetle.obj, mesh: beetle-alt.obj\n");
    } else {
        cube_cage(&cage);
        sphere(&mesh, 64, 128, 0.9);
        printf("cage: cube, mesh: sphere (shared data not found)\n");
    }
    sinew_polymesh driver = {{cage.pos, cage.nv, 0}, cage.tri, NULL, cage.nt, SINEW_INDEX_U32};
    sinew_soffd *h = NULL;
    double t0 = support_now();
    if (sinew_soffd_create(NULL, &driver, &(sinew_soffd_desc){sizeof(sinew_soffd_desc), 0, 0, 1}, &h) != SINEW_OK) {
        fprintf(stderr, "bind: %s\n", sinew_last_error());
        return 1;
    }
    double t1 = support_now();
    sinew_points skin = {mesh.pos, mesh.nv, 0};
    if (sinew_soffd_register(NULL, h, &skin, NULL) != SINEW_OK) { /* the defaults (docs/soffd.md, Defaults) */
        fprintf(stderr, "register: %s\n", sinew_last_error());
        return 1;
    }
    double t2 = support_now();
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(h, &info);
    float *cage_now = malloc(3 * cage.nv * sizeof(float)), *mesh_now = malloc(3 * mesh.nv * sizeof(float));
    float *frames = malloc(16 * info.element_count * sizeof(float));
    double lo[3], hi[3];
    bounds(&cage, lo, hi);
    bend(cage.pos, cage_now, cage.nv, lo, hi);
    sinew_points now = {cage_now, cage.nv, 0};
    double t3 = support_now();
    sinew_result r = sinew_soffd_element_frames(h, &now, frames, sinew_soffd_element_frames_size(h));
    if (r == SINEW_OK) r = sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, mesh_now, 0, NULL, 0, 0, mesh.nv);
    double t4 = support_now();
    if (r != SINEW_OK) {
        fprintf(stderr, "deform: %s\n", sinew_last_error());
        return 1;
    }
    printf("cage %zu vertices, %zu elements (L = %g, local = %g); mesh %zu vertices\n", cage.nv, info.element_count,
           (double)info.length_scale, (double)info.local, mesh.nv);
    printf("bind %.1f ms, register %.1f ms (%.1f elements per point, largest dropped mass %.2g), deform %.2f ms\n",
           1e3 * (t1 - t0), 1e3 * (t2 - t1), (double)info.contribution_count / (double)mesh.nv,
           (double)info.max_dropped_mass, 1e3 * (t4 - t3));
    int fail = write(dir, "soffd_cage_rest.obj", cage.pos, &cage) | write(dir, "soffd_cage_bent.obj", cage_now, &cage) |
               write(dir, "soffd_mesh_rest.obj", mesh.pos, &mesh) | write(dir, "soffd_mesh_bent.obj", mesh_now, &mesh);
    /* PNG of the same (soffd_pictures.c). */
    soffd_picture_mesh driver_picture = {cage.pos, cage_now, cage.nv, cage.tri, cage.nt};
    soffd_picture_mesh skin_picture = {mesh.pos, mesh_now, mesh.nv, mesh.tri, mesh.nt};
    if (!soffd_pictures(dir, &driver_picture, &skin_picture)) fail = 1;
    sinew_soffd_destroy(h);
    free(cage_now), free(mesh_now), free(frames);
    if (a.positions || b.positions) {
        support_mesh_free(&a);
        support_mesh_free(&b);
    } else {
        free(cage.pos), free(cage.tri), free(mesh.pos), free(mesh.tri);
    }
    return fail;
}
