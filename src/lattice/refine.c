/* Adaptive refinement of a triangle mesh under the lattice (Schein & Elber
 * §4.2): rounds of "judge every new edge, split the failing ones, re-split
 * the triangles around them" until every edge passes. An edge's fate is
 * decided once, in a table shared by both its triangles, so neighbours always
 * agree on the new vertex and the mesh stays conforming. */
#include <math.h>
#include <string.h>

#include "lattice/lattice_defaults.h"
#include "lattice/lattice_internal.h"
#include "lattice/segment.h"

#define NO_SPLIT UINT32_MAX
#define EMPTY_KEY UINT64_MAX
/* Farthest-point splits stay this far from the ends, so every split shortens
 * the edge by a fixed fraction and refinement always advances. */
#define SPLIT_MARGIN 0.05

typedef struct edge_entry {
    uint64_t key;   /* lo << 32 | hi, lo < hi */
    uint32_t mid;   /* new vertex, or NO_SPLIT when the edge passed */
    float error;    /* the test's value */
} edge_entry;

typedef struct refiner {
    const sinew_lattice *lat;
    const sn_env *env;
    sinew_lattice_refinement_desc desc;
    /* vertices */
    float *rest, *def;
    uint32_t *parents;
    float *params;
    size_t nv, nv_in, cap_v;
    /* triangles: current and next round */
    uint32_t *tri, *next;
    size_t nt, cap_t, cap_next;
    /* edge table */
    edge_entry *edges;
    size_t edge_cap, edge_count;
    size_t splits_this_round;
} refiner;

/* Grows *p (elem-byte items, capacity *cap) to hold at least need items. */
static bool grow(const sn_env *env, void **p, size_t *cap, size_t need, size_t elem, const char *what)
{
    if (need <= *cap) return true;
    size_t n = *cap ? *cap : 64;
    while (n < need) {
        if (n > SIZE_MAX / 2) {
            n = need;
            break;
        }
        n *= 2;
    }
    void *q = sn_alloc_array(env, n, elem, what);
    if (!q) return false;
    if (*p) {
        memcpy(q, *p, *cap * elem);
        sn_free(env, *p);
    }
    *p = q;
    *cap = n;
    return true;
}

static size_t hash_key(uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key;
}

static edge_entry *edge_find(const refiner *r, uint64_t key)
{
    size_t mask = r->edge_cap - 1;
    for (size_t i = hash_key(key) & mask;; i = (i + 1) & mask) {
        edge_entry *e = &r->edges[i];
        if (e->key == key || e->key == EMPTY_KEY) return e;
    }
}

static bool edges_reserve(refiner *r, size_t more)
{
    size_t need = r->edge_count + more;
    if (r->edge_cap && need * 2 <= r->edge_cap) return true;
    size_t cap = r->edge_cap ? r->edge_cap : 1024;
    while (need * 2 > cap) cap *= 2;
    edge_entry *fresh = (edge_entry *)sn_alloc_array(r->env, cap, sizeof(edge_entry), "refinement edge table");
    if (!fresh) return false;
    for (size_t i = 0; i < cap; ++i) fresh[i].key = EMPTY_KEY;
    edge_entry *old = r->edges;
    size_t old_cap = r->edge_cap;
    r->edges = fresh;
    r->edge_cap = cap;
    for (size_t i = 0; i < old_cap; ++i)
        if (old[i].key != EMPTY_KEY) *edge_find(r, old[i].key) = old[i];
    sn_free(r->env, old);
    return true;
}

static void to_double(const float *f, double d[3])
{
    d[0] = f[0];
    d[1] = f[1];
    d[2] = f[2];
}

/* Judges edge lo-hi: returns the test's value and the split parameter from lo. */
static double judge_edge(const refiner *r, uint32_t lo, uint32_t hi, double *split_t)
{
    double pa[3], pb[3], fa[3], fb[3];
    to_double(r->rest + 3 * (size_t)lo, pa);
    to_double(r->rest + 3 * (size_t)hi, pb);
    to_double(r->def + 3 * (size_t)lo, fa);
    to_double(r->def + 3 * (size_t)hi, fb);
    double bound = 0.0, t = 0.5;
    bool need_bound = r->desc.test == SINEW_LATTICE_TEST_BOUND || r->desc.split == SINEW_LATTICE_SPLIT_FARTHEST;
    if (need_bound) sn_lat_segment_bound(r->lat, pa, pb, fa, fb, &bound, &t);
    double error = bound;
    if (r->desc.test == SINEW_LATTICE_TEST_MIDPOINT) {
        double mid[3] = {0.5 * (pa[0] + pb[0]), 0.5 * (pa[1] + pb[1]), 0.5 * (pa[2] + pb[2])}, fm[3];
        for (int c = 0; c < 3; ++c) mid[c] = sn_round_to_float(mid[c]);
        sn_lat_deform_point(r->lat, mid, fm);
        error = sn_lat_segment_distance(fm, fa, fb);
    }
    if (r->desc.split == SINEW_LATTICE_SPLIT_MIDPOINT) t = 0.5;
    *split_t = t < SPLIT_MARGIN ? SPLIT_MARGIN : t > 1.0 - SPLIT_MARGIN ? 1.0 - SPLIT_MARGIN : t;
    return error;
}

/* Deformed positions of refined vertices [first, first + count): what
 * sinew_lattice_deform gives for their rest positions, to the bit. */
static void deform_vertices(const refiner *r, size_t first, size_t count)
{
    sinew_points rest = {r->rest, first + count, 0};
    sn_lat_deform_points(r->lat, &rest, true, r->def, 3 * sizeof(float), first, count);
}

/* Adds the vertex on edge lo-hi at t; room was reserved by reserve_vertices. */
static void add_vertex(refiner *r, uint32_t lo, uint32_t hi, double t)
{
    float *a = r->rest + 3 * (size_t)lo, *b = r->rest + 3 * (size_t)hi;
    float *p = r->rest + 3 * r->nv;
    for (int c = 0; c < 3; ++c) p[c] = (float)((1.0 - t) * (double)a[c] + t * (double)b[c]);
    deform_vertices(r, r->nv, 1);
    size_t k = r->nv - r->nv_in;
    r->parents[2 * k] = lo;
    r->parents[2 * k + 1] = hi;
    r->params[k] = (float)t;
    ++r->nv;
}

/* Makes sure every per-vertex array can take `more` new vertices. */
static bool reserve_vertices(refiner *r, size_t more)
{
    size_t need = r->nv + more, cap = r->cap_v;
    if (need <= cap) return true;
    size_t n = cap * 2 > need ? cap * 2 : need;
    size_t new_max = n - r->nv_in;
    float *rest = (float *)sn_alloc_array(r->env, n, 3 * sizeof(float), "refined rest positions");
    float *def = rest ? (float *)sn_alloc_array(r->env, n, 3 * sizeof(float), "refined positions") : NULL;
    uint32_t *par = def ? (uint32_t *)sn_alloc_array(r->env, new_max, 2 * sizeof(uint32_t), "refined parents")
                        : NULL;
    float *prm = par ? (float *)sn_alloc_array(r->env, new_max, sizeof(float), "refined parameters") : NULL;
    if (!prm) {
        sn_free(r->env, rest);
        sn_free(r->env, def);
        sn_free(r->env, par);
        return false;
    }
    if (r->nv) {
        memcpy(rest, r->rest, r->nv * 3 * sizeof(float));
        memcpy(def, r->def, r->nv * 3 * sizeof(float));
    }
    if (r->nv > r->nv_in) {
        memcpy(par, r->parents, (r->nv - r->nv_in) * 2 * sizeof(uint32_t));
        memcpy(prm, r->params, (r->nv - r->nv_in) * sizeof(float));
    }
    sn_free(r->env, r->rest);
    sn_free(r->env, r->def);
    sn_free(r->env, r->parents);
    sn_free(r->env, r->params);
    r->rest = rest;
    r->def = def;
    r->parents = par;
    r->params = prm;
    r->cap_v = n;
    return true;
}

static uint64_t edge_key(uint32_t a, uint32_t b)
{
    return a < b ? ((uint64_t)a << 32) | b : ((uint64_t)b << 32) | a;
}

/* Judges the edges of the current triangles that have no verdict yet and adds
 * the split vertices. */
static sinew_result judge_round(refiner *r)
{
    r->splits_this_round = 0;
    for (size_t t = 0; t < r->nt; ++t) {
        if (!edges_reserve(r, 3)) return sn_alloc_failure();
        for (int e = 0; e < 3; ++e) {
            uint32_t a = r->tri[3 * t + e], b = r->tri[3 * t + (e + 1) % 3];
            uint64_t key = edge_key(a, b);
            edge_entry *slot = edge_find(r, key);
            if (slot->key == key) continue;
            uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
            double split_t = 0.5;
            double error = lo == hi ? 0.0 : judge_edge(r, lo, hi, &split_t);
            uint32_t mid = NO_SPLIT;
            if (error > r->desc.tolerance) {
                if (r->nv >= (size_t)UINT32_MAX - 1)
                    return sn_fail(SINEW_ERROR_BUDGET_EXCEEDED, "refinement needs more than %u vertices",
                                   UINT32_MAX - 1);
                if (!reserve_vertices(r, 1)) return sn_alloc_failure();
                mid = (uint32_t)r->nv;
                add_vertex(r, lo, hi, split_t);
                ++r->splits_this_round;
            }
            slot->key = key;
            slot->mid = mid;
            slot->error = (float)error;
            ++r->edge_count;
        }
    }
    return SINEW_OK;
}

static double dist2(const float *a, const float *b)
{
    double d[3] = {(double)a[0] - b[0], (double)a[1] - b[1], (double)a[2] - b[2]};
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

/* Replaces every triangle by the template for its split edges. */
static sinew_result split_round(refiner *r)
{
    size_t out = 0;
    for (size_t t = 0; t < r->nt; ++t) {
        uint32_t v[3] = {r->tri[3 * t], r->tri[3 * t + 1], r->tri[3 * t + 2]};
        uint32_t m[3];
        int split = 0;
        for (int e = 0; e < 3; ++e) {
            m[e] = edge_find(r, edge_key(v[e], v[(e + 1) % 3]))->mid;
            split += m[e] != NO_SPLIT;
        }
        /* Rotate so that the pattern starts at edge 0: with one split it is
         * edge 0, with two the unsplit one is edge 2. */
        for (int rot = 0; rot < 3 && split > 0 && split < 3; ++rot) {
            bool ok = split == 1 ? m[0] != NO_SPLIT : m[2] == NO_SPLIT;
            if (ok) break;
            uint32_t tv = v[0], tm = m[0];
            v[0] = v[1], v[1] = v[2], v[2] = tv;
            m[0] = m[1], m[1] = m[2], m[2] = tm;
        }
        uint32_t tris[4][3];
        int n = 0;
        switch (split) {
        case 0:
            memcpy(tris[n++], v, sizeof v);
            break;
        case 1:
            tris[n][0] = v[0], tris[n][1] = m[0], tris[n][2] = v[2], ++n;
            tris[n][0] = m[0], tris[n][1] = v[1], tris[n][2] = v[2], ++n;
            break;
        case 2: {
            tris[n][0] = m[0], tris[n][1] = v[1], tris[n][2] = m[1], ++n;
            /* Quad v0 m0 m1 v2: cut along the shorter deformed diagonal. */
            const float *d = r->def;
            if (dist2(d + 3 * (size_t)v[0], d + 3 * (size_t)m[1]) <= dist2(d + 3 * (size_t)m[0], d + 3 * (size_t)v[2])) {
                tris[n][0] = v[0], tris[n][1] = m[0], tris[n][2] = m[1], ++n;
                tris[n][0] = v[0], tris[n][1] = m[1], tris[n][2] = v[2], ++n;
            } else {
                tris[n][0] = v[0], tris[n][1] = m[0], tris[n][2] = v[2], ++n;
                tris[n][0] = m[0], tris[n][1] = m[1], tris[n][2] = v[2], ++n;
            }
            break;
        }
        default:
            tris[n][0] = v[0], tris[n][1] = m[0], tris[n][2] = m[2], ++n;
            tris[n][0] = m[0], tris[n][1] = v[1], tris[n][2] = m[1], ++n;
            tris[n][0] = m[2], tris[n][1] = m[1], tris[n][2] = v[2], ++n;
            tris[n][0] = m[0], tris[n][1] = m[1], tris[n][2] = m[2], ++n;
            break;
        }
        if (out + (size_t)n > r->desc.max_triangles)
            return sn_fail(SINEW_ERROR_BUDGET_EXCEEDED,
                           "refinement needs more than the budget of %zu triangles (tolerance %g)",
                           r->desc.max_triangles, r->desc.tolerance);
        if (!grow(r->env, (void **)&r->next, &r->cap_next, 3 * (out + (size_t)n), sizeof(uint32_t),
                  "refined triangles"))
            return sn_alloc_failure();
        for (int k = 0; k < n; ++k, ++out) memcpy(r->next + 3 * out, tris[k], sizeof tris[k]);
    }
    uint32_t *tmp = r->tri;
    size_t cap = r->cap_t;
    r->tri = r->next;
    r->cap_t = r->cap_next;
    r->next = tmp;
    r->cap_next = cap;
    r->nt = out;
    return SINEW_OK;
}

static void refiner_free(refiner *r)
{
    sn_free(r->env, r->rest);
    sn_free(r->env, r->def);
    sn_free(r->env, r->parents);
    sn_free(r->env, r->params);
    sn_free(r->env, r->tri);
    sn_free(r->env, r->next);
    sn_free(r->env, r->edges);
}

static sinew_result check_refine_input(const sinew_lattice *lat, const sinew_trimesh *mesh,
                                       const sinew_lattice_refinement_desc *desc)
{
    if (!lat || !mesh || !desc)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", !lat ? "lattice" : !mesh ? "mesh" : "desc");
    if (!isfinite(desc->tolerance) || !(desc->tolerance > 0.0))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "refinement tolerance %g: it must be finite and > 0",
                       desc->tolerance);
    if ((unsigned)desc->test > SINEW_LATTICE_TEST_MIDPOINT)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "unknown refinement test %d", (int)desc->test);
    if ((unsigned)desc->split > SINEW_LATTICE_SPLIT_MIDPOINT)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "unknown refinement split %d", (int)desc->split);
    if (mesh->triangle_count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "mesh has no triangles");
    if (mesh->positions.count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "mesh has no vertices");
    if (mesh->positions.count >= (size_t)UINT32_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "mesh has %zu vertices; at most %u", mesh->positions.count,
                       UINT32_MAX - 1);
    sinew_result res = sn_check_points(&mesh->positions, "mesh vertex");
    if (res != SINEW_OK) return res;
    /* A new vertex lies between two others, never farther out: the input's
     * proofs cover every deformed position the refinement writes. */
    const bool inside_fit = sn_lat_inside_points_fit(lat, false);
    for (size_t i = 0; i < mesh->positions.count; ++i) {
        const float *q = sn_point(&mesh->positions, i);
        double p[3] = {q[0], q[1], q[2]}, u[3];
        sn_lat_params(lat, p, u);
        if (inside_fit && sn_lat_inside_box(u)) continue;
        if ((res = sn_lat_check_point_fits(lat, p, true, false, "mesh vertex", i)) != SINEW_OK) return res;
    }
    return sn_check_index_view(mesh->indices, mesh->index_type, mesh->index_stride, mesh->triangle_count, 3,
                               mesh->positions.count, "triangle");
}

sinew_result sinew_lattice_refinement_create(sinew_context *ctx, const sinew_lattice *lattice, const sinew_trimesh *mesh,
                                  const sinew_lattice_refinement_desc *caller_desc, sinew_lattice_refinement **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out is NULL");
    sinew_lattice_refinement_desc local;
    sinew_result res = sn_read_struct(&local, sizeof local, caller_desc, "desc");
    if (res != SINEW_OK) return res;
    const sinew_lattice_refinement_desc *desc = &local;
    res = check_refine_input(lattice, mesh, desc);
    if (res != SINEW_OK) return res;
    sn_env env;
    sn_env_from_context(&env, ctx);
    refiner r;
    memset(&r, 0, sizeof r);
    r.lat = lattice;
    r.env = &env;
    r.desc = *desc;
    if (r.desc.max_triangles == 0) {
        size_t budget;
        if (!sn_mul_size(mesh->triangle_count, SN_LAT_REFINE_TRIANGLES_PER_INPUT, &budget) ||
            !sn_add_size(budget, SN_LAT_REFINE_EXTRA_TRIANGLES, &budget))
            budget = SIZE_MAX;
        r.desc.max_triangles = budget;
    }
    if (mesh->triangle_count > r.desc.max_triangles)
        return sn_fail(SINEW_ERROR_BUDGET_EXCEEDED, "the input's %zu triangles exceed the budget of %zu",
                       mesh->triangle_count, r.desc.max_triangles);

    const size_t nv = mesh->positions.count, nt = mesh->triangle_count;
    r.nv_in = nv;
    if (!reserve_vertices(&r, nv + 64) ||
        !grow(&env, (void **)&r.tri, &r.cap_t, 3 * nt, sizeof(uint32_t), "refined triangles")) {
        res = sn_alloc_failure();
        refiner_free(&r);
        return res;
    }
    for (size_t i = 0; i < nv; ++i) memcpy(r.rest + 3 * i, sn_point(&mesh->positions, i), 3 * sizeof(float));
    deform_vertices(&r, 0, nv);
    r.nv = nv;
    for (size_t i = 0; i < 3 * nt; ++i)
        r.tri[i] = sn_index_at(mesh->indices, mesh->index_type, mesh->index_stride, 3, i / 3, i % 3);
    r.nt = nt;

    size_t rounds = 0;
    for (;;) {
        res = sn_progress(&env, "lattice: refine", 1.0f - 1.0f / (float)(rounds + 1));
        if (res == SINEW_OK) res = judge_round(&r);
        if (res != SINEW_OK) break;
        if (r.splits_this_round == 0) break;
        res = split_round(&r);
        if (res != SINEW_OK) break;
        ++rounds;
    }
    sinew_lattice_refinement *ref = NULL;
    if (res == SINEW_OK) {
        ref = (sinew_lattice_refinement *)sn_calloc(&env, sizeof *ref, "refinement");
        if (!ref) res = sn_alloc_failure();
    }
    if (res != SINEW_OK) {
        refiner_free(&r);
        return res;
    }
    double max_error = 0.0;
    for (size_t t = 0; t < r.nt; ++t)
        for (int e = 0; e < 3; ++e) {
            const edge_entry *entry = edge_find(&r, edge_key(r.tri[3 * t + e], r.tri[3 * t + (e + 1) % 3]));
            if (entry->error > max_error) max_error = entry->error;
        }
    ref->env = sn_env_kept(&env);
    ref->rest = r.rest;
    ref->def = r.def;
    ref->parents = r.parents;
    ref->params = r.params;
    ref->tri = r.tri;
    sn_free(&env, r.next);
    sn_free(&env, r.edges);
    sinew_lattice_refined_mesh *m = &ref->mesh;
    m->rest_positions = ref->rest;
    m->positions = ref->def;
    m->vertex_count = r.nv;
    m->input_vertex_count = nv;
    m->indices = ref->tri;
    m->triangle_count = r.nt;
    m->parents = ref->parents;
    m->parameters = ref->params;
    m->rounds = rounds;
    m->max_error = max_error;
    m->struct_size = sizeof *m;
    m->memory_bytes = sizeof *ref + sn_block_bytes(ref->rest) + sn_block_bytes(ref->def) +
                      sn_block_bytes(ref->parents) + sn_block_bytes(ref->params) + sn_block_bytes(ref->tri);
    *out = ref;
    return SINEW_OK;
}

sinew_result sinew_lattice_refinement_mesh(const sinew_lattice_refinement *refinement,
                                           sinew_lattice_refined_mesh *mesh)
{
    sn_clear_error();
    if (!refinement) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "refinement is NULL");
    if (sn_check_struct_out(mesh, "mesh") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    sn_write_struct(mesh, &refinement->mesh, sizeof refinement->mesh);
    return SINEW_OK;
}

sinew_result sinew_lattice_refinement_get_info(const sinew_lattice_refinement *refinement,
                                               sinew_lattice_refinement_info *info)
{
    /* Leaves the thread's message alone (api.md: *_get_info). */
    if (!refinement) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "refinement is NULL");
    if (sn_check_struct_out(info, "info") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    const sinew_lattice_refined_mesh *m = &refinement->mesh;
    sinew_lattice_refinement_info i = {sizeof i, m->vertex_count, m->input_vertex_count, m->triangle_count,
                                       m->rounds, m->max_error, m->memory_bytes};
    sn_write_struct(info, &i, sizeof i);
    return SINEW_OK;
}

void sinew_lattice_refinement_destroy(sinew_lattice_refinement *refinement)
{
    if (!refinement) return;
    sn_env env = refinement->env;
    sn_free(&env, refinement->rest);
    sn_free(&env, refinement->def);
    sn_free(&env, refinement->parents);
    sn_free(&env, refinement->params);
    sn_free(&env, refinement->tri);
    sn_free(&env, refinement);
}
