/*
 * A whole automatic bind, as a DCC's auto-binder runs it, on one thread:
 * sinew_bbw_create (default grid), sinew_bbw_solve (defaults) and
 * sinew_bbw_top_k (4 influences) at the mesh's own vertices. Rigs: libigl's
 * arm, elephant and hand with their .tgf skeletons, the glTF characters Fox
 * and RiggedFigure with their own skeletons (a bone from each joint to each
 * child joint), and, when the filter names it, the rig set's eight-armed
 * figure of ~30k vertices and 40 bones (bench_bbw_auto times its one call).
 * One line per rig: thread CPU milliseconds of the whole bind, the split
 * (create: domain / operators; solve; top_k; iterations, coarse levels,
 * certified bound), against the same bind with the plain route
 * (coarse_levels = SINEW_BBW_COARSE_NONE) measured in the same run.
 * Usage: bench_bbw_bind [name-filter]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew.h"

#include "support.h"
#include "../../bbw/bbw_dataset.h"
#include "../../bbw/bbw_rigs.h"
#include "../../skin/tools/gltf_reader.h"

enum { INFLUENCES = 4 };

typedef struct rig {
    char name[64];
    float *positions;
    size_t vertex_count;
    uint32_t *triangles;
    size_t triangle_count;
    sinew_tetmesh tets;      /* given tets (hand), else tets.elements == NULL */
    float *joints;
    size_t joint_count;
    uint32_t *bones;
    size_t bone_count;
} rig;

typedef struct bind_figures {
    double total, create, solve, top_k; /* thread CPU seconds */
    sinew_bbw_info info;
    sinew_result result;
    char message[160];
} bind_figures;

/* One bind; with vertex_weights, *vertex_weights = the domain's weights
 * (owned) after a successful one. */
static void bind(const rig *r, uint32_t coarse_levels, double tolerance, bind_figures *f, float **vertex_weights)
{
    memset(f, 0, sizeof *f);
    sinew_trimesh surface = {{r->positions, r->vertex_count, 0}, r->triangles, r->triangle_count,
                             SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    if (r->tets.indices) d.tets = &r->tets;
    else d.surface = &surface;
    d.joint_positions = (sinew_points){r->joints, r->joint_count, 0};
    d.bones = r->bones;
    d.bone_count = r->bone_count;
    sinew_points vertices = {r->positions, r->vertex_count, 0};
    uint32_t *joints = malloc(r->vertex_count * INFLUENCES * sizeof(uint32_t));
    float *weights = malloc(r->vertex_count * INFLUENCES * sizeof(float));
    sinew_bbw *b = NULL;
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.coarse_levels = coarse_levels;
    sd.tolerance = tolerance;
    double t0 = support_cpu_now();
    f->result = sinew_bbw_create(NULL, &d, &b);
    double t1 = support_cpu_now();
    if (f->result == SINEW_OK) f->result = sinew_bbw_solve(NULL, b, &sd);
    double t2 = support_cpu_now();
    if (f->result == SINEW_OK)
        f->result = sinew_bbw_top_k(b, &vertices, INFLUENCES, joints, weights, 0, r->vertex_count);
    double t3 = support_cpu_now();
    if (f->result != SINEW_OK) snprintf(f->message, sizeof f->message, "%s", sinew_last_error());
    f->create = t1 - t0, f->solve = t2 - t1, f->top_k = t3 - t2, f->total = t3 - t0;
    SINEW_INIT(&f->info);
    if (b) sinew_bbw_get_info(b, &f->info);
    if (vertex_weights) {
        size_t count = f->info.vertex_count * f->info.handle_count;
        *vertex_weights = f->result == SINEW_OK ? malloc(count * sizeof(float) + 1) : NULL;
        if (*vertex_weights) sinew_bbw_vertex_weights(b, *vertex_weights, 0, f->info.vertex_count);
    }
    sinew_bbw_destroy(b);
    free(joints);
    free(weights);
}

/* Tolerance of the fast bind (the certified RMS error of the weights),
 * chosen so the largest weight difference from the default solve on the
 * same domain stays within 0.02 on the rigs. */
#define FAST_TOLERANCE 3e-3

static void report(const rig *r)
{
    bind_figures now, plain, fast;
    float *converged = NULL, *quick = NULL;
    bind(r, 0, 0.0, &now, &converged);
    bind(r, SINEW_BBW_COARSE_NONE, 0.0, &plain, NULL);
    bind(r, 0, FAST_TOLERANCE, &fast, &quick);
    if (now.result != SINEW_OK) {
        printf("bbw/bind/%s: failed (%s: %s)\n", r->name, sinew_result_string(now.result), now.message);
        return;
    }
    double worst = NAN;
    if (converged && quick) {
        worst = 0.0;
        for (size_t i = 0; i < now.info.vertex_count * now.info.handle_count; ++i)
            worst = fmax(worst, fabs((double)converged[i] - quick[i]));
    }
    const sinew_bbw_info *i = &now.info;
    printf("bbw/bind/%s: %.0f ms (%zu surface vertices, %zu bones, %zu domain vertices; create %.0f ms "
           "[domain %.0f, operators %.0f wall], solve %.0f ms [%u iterations, %u coarse levels, bound %.2g], "
           "top_k %.1f ms; tolerance %g: %.0f ms, %u iterations, max weight difference %.3g; "
           "plain route: %.0f ms)\n",
           r->name, 1e3 * now.total, r->vertex_count, r->bone_count, i->vertex_count, 1e3 * now.create,
           1e3 * i->seconds_domain, 1e3 * i->seconds_operators, 1e3 * now.solve, i->iterations, i->coarse_levels_used,
           i->error_bound, 1e3 * now.top_k, FAST_TOLERANCE, 1e3 * fast.total, fast.info.iterations, worst,
           plain.result == SINEW_OK ? 1e3 * plain.total : NAN);
    fflush(stdout);
    free(converged), free(quick);
}

static void rig_free(rig *r)
{
    free(r->positions), free(r->triangles), free(r->joints), free(r->bones);
    free((void *)r->tets.indices);
    free((void *)r->tets.positions.data);
    memset(r, 0, sizeof *r);
}

/* A libigl rig of the acceptance set (bbw_dataset.h). */
static bool rig_dataset(rig *r, const char *name)
{
    memset(r, 0, sizeof *r);
    bbw_case c;
    size_t i = bbw_dataset_find(name);
    const char *why = NULL;
    if (i == SIZE_MAX || !bbw_dataset_load(i, &c, &why)) return false;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->vertex_count = c.mesh.vertex_count;
    r->positions = malloc(3 * r->vertex_count * sizeof(float));
    memcpy(r->positions, c.mesh.positions, 3 * r->vertex_count * sizeof(float));
    r->triangle_count = c.mesh.triangle_count;
    r->triangles = malloc(3 * r->triangle_count * sizeof(uint32_t) + 1);
    memcpy(r->triangles, c.mesh.triangles, 3 * r->triangle_count * sizeof(uint32_t));
    if (c.mesh.tets) {
        uint32_t *t = malloc(4 * c.mesh.tet_count * sizeof(uint32_t));
        memcpy(t, c.mesh.tets, 4 * c.mesh.tet_count * sizeof(uint32_t));
        float *p = malloc(3 * r->vertex_count * sizeof(float));
        memcpy(p, r->positions, 3 * r->vertex_count * sizeof(float));
        r->tets = (sinew_tetmesh){{p, r->vertex_count, 0}, t, c.mesh.tet_count, SINEW_INDEX_U32, 0};
    }
    r->joint_count = c.joint_count, r->bone_count = c.bone_count;
    r->joints = malloc(3 * c.joint_count * sizeof(float));
    r->bones = malloc(2 * c.bone_count * sizeof(uint32_t));
    memcpy(r->joints, c.joints, 3 * c.joint_count * sizeof(float));
    memcpy(r->bones, c.bones, 2 * c.bone_count * sizeof(uint32_t));
    bbw_dataset_free(&c);
    return true;
}

/* A glTF character: each joint at the translation of its inverse bind
 * matrix's inverse; a bone from each joint to each child joint placed apart
 * from it (the nearest ancestor that is a joint is the parent). */
static bool rig_gltf(rig *r, const char *file, const char *name)
{
    memset(r, 0, sizeof *r);
    char path[1024], err[256];
    gltf_model m;
    if (!support_data_path(file, path, sizeof path) || !gltf_load(path, &m, err, sizeof err)) return false;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->vertex_count = m.vertex_count, r->triangle_count = m.index_count / 3;
    r->positions = malloc(3 * m.vertex_count * sizeof(float));
    r->triangles = malloc(m.index_count * sizeof(uint32_t) + 1);
    for (size_t i = 0; i < 3 * m.vertex_count; ++i) r->positions[i] = (float)m.positions[i];
    memcpy(r->triangles, m.indices, 3 * r->triangle_count * sizeof(uint32_t));
    size_t J = m.joint_count;
    r->joint_count = J;
    r->joints = malloc(3 * J * sizeof(float) + 1);
    r->bones = malloc(2 * J * sizeof(uint32_t) + 1);
    int *joint_of_node = malloc(m.node_count * sizeof(int));
    for (size_t i = 0; i < m.node_count; ++i) joint_of_node[i] = -1;
    for (size_t j = 0; j < J; ++j) joint_of_node[m.joint_nodes[j]] = (int)j;
    for (size_t j = 0; j < J; ++j) {
        /* The joint's origin x solves L x + t = 0 for the inverse bind [L t]. */
        const double *ib = m.inverse_bind + 16 * j;
        double L[3][3], t[3] = {-ib[12], -ib[13], -ib[14]};
        for (int a = 0; a < 3; ++a)
            for (int k = 0; k < 3; ++k) L[a][k] = ib[4 * k + a];
        double det = L[0][0] * (L[1][1] * L[2][2] - L[1][2] * L[2][1]) -
                     L[0][1] * (L[1][0] * L[2][2] - L[1][2] * L[2][0]) + L[0][2] * (L[1][0] * L[2][1] - L[1][1] * L[2][0]);
        for (int k = 0; k < 3; ++k) {
            double c[3][3];
            memcpy(c, L, sizeof c);
            for (int a = 0; a < 3; ++a) c[a][k] = t[a];
            r->joints[3 * j + (size_t)k] =
                (float)((c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) - c[0][1] * (c[1][0] * c[2][2] - c[1][2] * c[2][0]) +
                         c[0][2] * (c[1][0] * c[2][1] - c[1][1] * c[2][0])) / det);
        }
    }
    for (size_t j = 0; j < J; ++j) {
        int node = m.nodes[m.joint_nodes[j]].parent;
        while (node >= 0 && joint_of_node[node] < 0) node = m.nodes[node].parent;
        if (node < 0) continue;
        size_t p = (size_t)joint_of_node[node];
        double len2 = 0.0;
        for (int a = 0; a < 3; ++a) len2 += pow((double)r->joints[3 * j + a] - r->joints[3 * p + a], 2);
        if (len2 <= 1e-12) continue;
        r->bones[2 * r->bone_count] = (uint32_t)p, r->bones[2 * r->bone_count + 1] = (uint32_t)j;
        r->bone_count++;
    }
    free(joint_of_node);
    gltf_free(&m);
    return true;
}

/* The rig set's ~30k-vertex, 40-bone figure (bbw_rigs.h). */
static void rig_star_figure(rig *r)
{
    memset(r, 0, sizeof *r);
    bbw_rig b;
    const char *why = NULL;
    if (!bbw_rig_load(bbw_rig_find("figure-40-bones"), &b, &why)) abort(); /* procedural: always loads */
    snprintf(r->name, sizeof r->name, "%s", b.name);
    r->positions = b.positions, r->vertex_count = b.vertex_count;
    r->triangles = b.triangles, r->triangle_count = b.triangle_count;
    r->joints = b.joints, r->joint_count = b.joint_count;
    r->bones = b.bones, r->bone_count = b.bone_count;
    free(b.points);
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : "";
    const char *sets[] = {"arm-obj-skeleton", "hand-mesh-skeleton", "elephant-obj-skeleton"};
    rig r;
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; ++i)
        if (strstr(sets[i], filter) && rig_dataset(&r, sets[i])) report(&r), rig_free(&r);
    const char *gltf[][2] = {{"gltf/Fox.gltf", "fox-gltf"}, {"gltf/RiggedFigure.gltf", "rigged-figure-gltf"}};
    for (size_t i = 0; i < 2; ++i)
        if (strstr(gltf[i][1], filter) && rig_gltf(&r, gltf[i][0], gltf[i][1])) report(&r), rig_free(&r);
    /* The figure binds three ways in several CPU minutes; bench_bbw_auto times it
     * every run, this bench only when the filter names it. */
    if (strstr("figure-40-bones", filter) && *filter) {
        rig_star_figure(&r);
        report(&r);
        rig_free(&r);
    }
    return 0;
}
