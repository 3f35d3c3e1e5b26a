/*
 * Creating a pose solver: the desc is validated, the weights read into
 * sparse rows, the domain normalised, then clusters and reduced matrices are
 * built (pose_clusters.c, pose_bind.c). Also the handle's queries.
 */
#include <math.h>
#include <string.h>

#include "bbw/pose_internal.h"

/* Weights whose sum is this far from one are refused (they would not
 * reproduce a rigid motion); all-zero rows are unreached vertices. */
#define WEIGHT_SUM_TOLERANCE 1e-3

static sinew_result read_weights(const sinew_bbw_pose *p, const sinew_bbw_pose_desc *desc, size_t n,
                                 sn_pose_weights *w, uint8_t *empty)
{
    const size_t m = p->handle_count, k = desc->weights ? m : desc->influence_count;
    size_t cells = 0;
    if (!sn_mul_size(n, k, &cells) || cells > PTRDIFF_MAX / sizeof(float))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%zu vertices x %zu weights overflow", n, k);
    size_t nonzero = 0;
    for (size_t v = 0; v < n; ++v) {
        double sum = 0.0;
        size_t row = 0;
        for (size_t s = 0; s < k; ++s) {
            float value = desc->weights ? desc->weights[v * k + s] : desc->influence_weights[v * k + s];
            if (!isfinite(value))
                return sn_fail(SINEW_ERROR_NON_FINITE, "weight %zu of vertex %zu is not finite (%g)", s, v,
                               (double)value);
            if (!desc->weights && desc->influence_handles[v * k + s] >= m)
                return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE,
                               "influence slot %zu of vertex %zu names handle %u, but there are only %zu", s, v,
                               desc->influence_handles[v * k + s], m);
            sum += value;
            row += value != 0.0f;
        }
        empty[v] = row == 0;
        if (row && fabs(sum - 1.0) > WEIGHT_SUM_TOLERANCE)
            return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, "the weights of vertex %zu sum to %.9g, not 1 (or 0)", v, sum);
        nonzero += row;
    }
    w->start = sn_alloc_array(&p->env, n + 1, sizeof(size_t), "weight rows");
    w->handle = sn_alloc_array(&p->env, nonzero ? nonzero : 1, sizeof(uint32_t), "weight handles");
    w->value = sn_alloc_array(&p->env, nonzero ? nonzero : 1, sizeof(double), "weight values");
    if (!w->start || !w->handle || !w->value) return sn_alloc_failure();
    size_t at = 0;
    for (size_t v = 0; v < n; ++v) {
        w->start[v] = at;
        for (size_t s = 0; s < k; ++s) {
            float value = desc->weights ? desc->weights[v * k + s] : desc->influence_weights[v * k + s];
            if (value == 0.0f) continue;
            w->handle[at] = desc->weights ? (uint32_t)s : desc->influence_handles[v * k + s];
            w->value[at++] = value;
        }
    }
    w->start[n] = at;
    return SINEW_OK;
}

static sinew_result check_desc(const sinew_bbw_pose_desc *d)
{
    if ((d->triangles != NULL) + (d->tets != NULL) != 1)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "give exactly one domain (triangles or tets); %d given",
                       (d->triangles != NULL) + (d->tets != NULL));
    if (d->handle_count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "handle_count is 0");
    if (d->handle_count > UINT32_MAX / 4)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "handle_count %zu is more than the solver takes", d->handle_count);
    int sparse = d->influence_count || d->influence_handles || d->influence_weights;
    if ((d->weights != NULL) + sparse != 1)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                       "give exactly one weight layout (weights, or influence_count with influence_handles and "
                       "influence_weights); %d given",
                       (d->weights != NULL) + sparse);
    if (sparse && (!d->influence_count || !d->influence_handles || !d->influence_weights))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                       "sparse weights need influence_count > 0, influence_handles and influence_weights");
    const void *arrays[3] = {d->weights, d->influence_handles, d->influence_weights};
    const char *names[3] = {"weights", "influence_handles", "influence_weights"};
    for (int i = 0; i < 3; ++i)
        if ((uintptr_t)arrays[i] % 4)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is not aligned to 4 bytes", names[i]);
    if (d->transform != SINEW_BBW_POSE_AFFINE && d->transform != SINEW_BBW_POSE_SIMILARITY)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "transform %d is not a sinew_bbw_pose_transform",
                       (int)d->transform);
    return SINEW_OK;
}

/* Centre and scale of the rest points' box: the unknowns are then of order one. */
static void normalise(sinew_bbw_pose *p, const sinew_points *pts, double *out)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < pts->count; ++v) {
        const float *x = sn_point(pts, v);
        for (uint32_t a = 0; a < p->dim; ++a) lo[a] = fmin(lo[a], x[a]), hi[a] = fmax(hi[a], x[a]);
    }
    double diag = 0.0;
    for (uint32_t a = 0; a < p->dim; ++a) {
        p->centre[a] = 0.5 * (lo[a] + hi[a]);
        diag += (hi[a] - lo[a]) * (hi[a] - lo[a]);
    }
    p->scale = diag > 0.0 ? 0.5 * sqrt(diag) : 1.0;
    for (size_t v = 0; v < pts->count; ++v) {
        const float *x = sn_point(pts, v);
        for (uint32_t a = 0; a < p->dim; ++a) out[v * p->dim + a] = (x[a] - p->centre[a]) / p->scale;
    }
}

static void free_domain(const sn_env *env, sn_pose_domain *dom, sn_pose_weights *w)
{
    sn_free(env, dom->points);
    sn_free(env, dom->skipped);
    sn_free(env, dom->volume);
    sn_free(env, dom->gradient);
    sn_free(env, dom->feature_start);
    sn_free(env, dom->feature_handle);
    sn_free(env, dom->feature_value);
    sn_free(env, w->start);
    sn_free(env, w->handle);
    sn_free(env, w->value);
}

sinew_result sinew_bbw_pose_create(sinew_context *ctx, const sinew_bbw_pose_desc *caller, sinew_bbw_pose **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out is NULL");
    sinew_bbw_pose_desc desc;
    sinew_result r = sn_read_struct(&desc, sizeof desc, caller, "desc");
    if (r != SINEW_OK || (r = check_desc(&desc)) != SINEW_OK) return r;
    const uint32_t dim = desc.tets ? 3 : 2, per = dim + 1;
    const sinew_points *pts = desc.tets ? &desc.tets->positions : &desc.triangles->positions;
    const char *noun = desc.tets ? "tet" : "triangle";
    if ((r = sn_check_points(pts, "domain vertex")) != SINEW_OK) return r;
    if (pts->count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "the domain has no vertex");
    size_t element_count = desc.tets ? desc.tets->tet_count : desc.triangles->triangle_count;
    if (element_count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "the domain has no %s", noun);
    if (desc.weights && (r = sn_check_float_array(desc.weights, 0, desc.handle_count, pts->count, "weights")) != SINEW_OK)
        return r;
    if (!desc.weights &&
        ((r = sn_check_float_array(desc.influence_weights, 0, desc.influence_count, pts->count, "influence_weights")) !=
             SINEW_OK ||
         (r = sn_check_float_array(desc.influence_handles, 0, desc.influence_count, pts->count,
                                   "influence_handles")) != SINEW_OK))
        return r;

    sn_env env;
    sn_env_from_context(&env, ctx);
    sinew_bbw_pose *p = sn_calloc(&env, sizeof *p, "bbw pose handle");
    if (!p) return sn_alloc_failure();
    p->held_bytes = sizeof *p;
    env.held = &p->held_bytes;
    p->env = env;   /* with progress while creating; kept without it (below) */
    p->dim = dim;
    p->per = per;
    p->handle_count = desc.handle_count;
    p->var_count = (size_t)per * desc.handle_count;
    p->transform = desc.transform;
    sn_pose_domain dom = {pts->count, element_count, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    sn_pose_weights w = {NULL, NULL, NULL};
    sn_indices ix = {NULL, NULL};
    size_t *cluster_of = NULL;
    uint8_t *empty = NULL;
    if (desc.tets)
        r = sn_indices_read(&p->env, desc.tets->indices, desc.tets->index_type, desc.tets->index_stride, element_count,
                            4, pts->count, "tet", &ix);
    else
        r = sn_indices_read(&p->env, desc.triangles->indices, desc.triangles->index_type,
                            desc.triangles->index_stride, element_count, 3, pts->count, "triangle", &ix);
    if (r != SINEW_OK) goto fail;
    dom.elements = ix.data;
    empty = sn_alloc_array(&p->env, pts->count, 1, "vertex weight flags");
    dom.points = sn_alloc_array(&p->env, pts->count, dim * sizeof(double), "normalised domain vertices");
    dom.skipped = sn_alloc_array(&p->env, element_count, 1, "element flags");
    dom.volume = sn_alloc_array(&p->env, element_count, sizeof(double), "element volumes");
    dom.gradient = sn_alloc_array(&p->env, element_count, (size_t)per * dim * sizeof(double), "element gradients");
    cluster_of = sn_alloc_array(&p->env, element_count, sizeof(size_t), "element clusters");
    if (!empty || !dom.points || !dom.skipped || !dom.volume || !dom.gradient || !cluster_of) {
        r = sn_alloc_failure();
        goto fail;
    }
    normalise(p, pts, dom.points);
    if ((r = read_weights(p, &desc, pts->count, &w, empty)) != SINEW_OK) goto fail;
    if ((r = sn_pose_element_geometry(p, &dom)) != SINEW_OK) goto fail;
    size_t skipped = 0;
    for (size_t e = 0; e < element_count; ++e) {
        dom.skipped[e] = 0;
        for (uint32_t i = 0; i < per; ++i) dom.skipped[e] |= empty[dom.elements[e * per + i]];
        skipped += dom.skipped[e];
    }
    if (skipped == element_count) {
        r = sn_fail(SINEW_ERROR_DEGENERATE, "every %s touches a vertex whose weights are all zero", noun);
        goto fail;
    }
    if ((r = sn_pose_element_features(p, &dom, &w)) != SINEW_OK) goto fail;
    sn_bbw_pose_resolve(&desc);   /* one domain and some handles: check_desc */
    size_t wanted = desc.cluster_count;
    if ((r = sn_progress(&p->env, "bbw pose: clusters", 0.0f)) != SINEW_OK) goto fail;
    if ((r = sn_pose_cluster(p, &dom, wanted, cluster_of)) != SINEW_OK) goto fail;
    if ((r = sn_pose_reduce(p, &dom, &w, cluster_of)) != SINEW_OK) goto fail;
    sinew_bbw_pose_info *info = &p->info;
    SINEW_INIT(info);
    info->dimension = dim;
    info->vertex_count = pts->count;
    info->element_count = element_count;
    info->handle_count = desc.handle_count;
    info->cluster_count = p->cluster_count;
    info->skipped_element_count = skipped;
    free_domain(&p->env, &dom, &w);
    sn_indices_free(&p->env, &ix);
    sn_free(&p->env, cluster_of);
    sn_free(&p->env, empty);
    p->env = sn_env_kept(&env);
    *out = p;
    return SINEW_OK;
fail:
    free_domain(&p->env, &dom, &w);
    sn_indices_free(&p->env, &ix);
    sn_free(&p->env, cluster_of);
    sn_free(&p->env, empty);
    sinew_bbw_pose_destroy(p);
    return r;
}

void sinew_bbw_pose_destroy(sinew_bbw_pose *p)
{
    if (!p) return;
    sn_env env = p->env;
    sn_free(&env, p->A);
    sn_free(&env, p->block_start);
    sn_free(&env, p->block_handle);
    sn_free(&env, p->block_P);
    sn_free(&env, p->handle_centre);
    sn_free(&env, p->cluster_mass);
    sn_free(&env, p);
}

sinew_result sinew_bbw_pose_get_info(const sinew_bbw_pose *p, sinew_bbw_pose_info *info)
{
    /* Leaves the thread's message alone (api.md: *_get_info). */
    if (!p) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "pose is NULL");
    if (sn_check_struct_out(info, "info") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_bbw_pose_info i = p->info;
    i.memory_bytes = p->held_bytes;
    sn_write_struct(info, &i, sizeof i);
    return SINEW_OK;
}

sinew_result sinew_bbw_pose_create_from_bbw(sinew_context *ctx, const sinew_bbw *bbw,
                                            const sinew_bbw_pose_desc *desc, sinew_bbw_pose **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out is NULL");
    if (!bbw) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bbw is NULL");
    sinew_bbw_pose_desc d;
    SINEW_INIT(&d);
    sinew_result r;
    if (desc) {
        if ((r = sn_read_struct(&d, sizeof d, desc, "desc")) != SINEW_OK) return r;
        if (d.triangles || d.tets || d.handle_count || d.weights || d.influence_count ||
            d.influence_handles || d.influence_weights)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                           "desc must leave the domain and weight fields empty: they come from the bbw");
    }
    sinew_bbw_info info;
    SINEW_INIT(&info);
    if ((r = sinew_bbw_get_info(bbw, &info)) != SINEW_OK) return r;
    if (!info.solved) return sn_fail(SINEW_ERROR_INVALID_STATE, "the bbw is not solved yet: call sinew_bbw_solve");
    sn_env env;
    sn_env_from_context(&env, ctx);
    size_t n = info.vertex_count, ne = info.element_count, m = info.handle_count;
    size_t cells = 0;
    if (!sn_mul_size(n, m, &cells)) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%zu vertices x %zu handles overflow", n, m);
    float *points = sn_alloc_array(&env, n, 3 * sizeof(float), "bbw domain vertices");
    uint32_t *elements = sn_alloc_array(&env, ne, 4 * sizeof(uint32_t), "bbw domain elements");
    float *weights = sn_alloc_array(&env, cells, sizeof(float), "bbw weights");
    if (!points || !elements || !weights) {
        r = sn_alloc_failure();
        goto done;
    }
    if ((r = sinew_bbw_domain_vertices(bbw, points, 0, 0, n)) != SINEW_OK ||
        (r = sinew_bbw_domain_elements(bbw, elements, 0, ne)) != SINEW_OK ||
        (r = sinew_bbw_vertex_weights(bbw, weights, 0, n)) != SINEW_OK)
        goto done;
    /* A 3D domain's tets have volume, so only a 2D domain lies in z = 0. */
    int flat = 1;
    for (size_t v = 0; v < n && flat; ++v) flat = points[3 * v + 2] == 0.0f;
    sinew_trimesh tri = {{points, n, 0}, elements, ne, SINEW_INDEX_U32, 0};
    sinew_tetmesh tet = {{points, n, 0}, elements, ne, SINEW_INDEX_U32, 0};
    if (flat) d.triangles = &tri;
    else d.tets = &tet;
    d.handle_count = m;
    d.weights = weights;
    r = sinew_bbw_pose_create(ctx, &d, out);
done:
    sn_free(&env, points);
    sn_free(&env, elements);
    sn_free(&env, weights);
    return r;
}
