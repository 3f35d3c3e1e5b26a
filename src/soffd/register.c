/* Registration: per skin point, gather the contributing elements through the
 * BVH over R, then store u_k-scaled local coordinates for the deform kernels.
 *
 * Pruning works on radii so the BVH can cut whole subtrees: the relative
 * threshold w_k >= eps * w_max becomes d_k <= r(d_min), a radius that shrinks
 * as closer elements turn up; a contributor cap becomes the distance of the
 * current k-th nearest; max_distance is a radius already. Every element that
 * is not kept is accounted for, exactly or by its subtree's box distance, in
 * the dropped-mass bound. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/closest_point.h"
#include "soffd/soffd_internal.h"

typedef sn_soffd_candidate candidate;

typedef struct gather {
    const sinew_soffd *h;
    const sn_env *env;
    candidate *items;
    size_t count, cap;
    float min_dist2;
    double eps;
    size_t keep;          /* contributor cap, SIZE_MAX = none */
    float max_dist2;      /* INFINITY = none */
    float threshold_r2;   /* radius of the relative threshold for the current min_dist2 */
    double dropped_w;     /* weight (unnormalised) of elements not kept, bound */
    bool failed;          /* out of memory inside a callback */
} gather;

static int by_distance(const void *a, const void *b)
{
    const candidate *x = (const candidate *)a, *y = (const candidate *)b;
    if (x->dist2 != y->dist2) return x->dist2 < y->dist2 ? -1 : 1;
    return x->element < y->element ? -1 : x->element > y->element;
}

int sn_soffd_by_element(const void *a, const void *b)
{
    const candidate *x = (const candidate *)a, *y = (const candidate *)b;
    return x->element < y->element ? -1 : x->element > y->element;
}

/* Squared radius of the relative threshold: w(d) >= eps * w(d_min) with
 * w = 1 / (1 + (d/L)^local)  <=>  (d/L)^local <= (1 + (d_min/L)^local) / eps - 1. */
static float threshold_radius2(const gather *g)
{
    if (!(g->eps > 0)) return INFINITY;
    const sinew_soffd *h = g->h;
    double w_max = sn_soffd_falloff(h, g->min_dist2);
    double t = 1.0 / (g->eps * w_max) - 1.0;
    if (t <= 0) return g->min_dist2;
    double r = h->length_scale * pow(t, 1.0 / h->local);
    /* A little slack: the final keep test is on weights, so the traversal must
     * not lose an element that rounding puts on the boundary. */
    return (float)(r * r * (1 + 1e-4));
}

/* Keeps the `keep` nearest candidates, dropping the rest into the bound. */
static void cap_candidates(gather *g)
{
    qsort(g->items, g->count, sizeof(candidate), by_distance);
    for (size_t i = g->keep; i < g->count; ++i) g->dropped_w += g->items[i].weight;
    g->count = g->keep;
}

static float current_radius2(gather *g)
{
    float r2 = fminf(g->max_dist2, g->threshold_r2);
    if (g->keep != SIZE_MAX && g->count >= g->keep) {
        if (g->count >= 2 * g->keep) cap_candidates(g);
        /* the k-th nearest so far bounds the radius; after capping it is the last */
        float kth = 0;
        if (g->count == g->keep && g->keep > 0) {
            kth = g->items[0].dist2;
            for (size_t i = 1; i < g->count; ++i) kth = fmaxf(kth, g->items[i].dist2);
            r2 = fminf(r2, kth);
        }
    }
    return r2;
}

static float on_hit(void *user, const sn_bvh_hit *hit, float radius2)
{
    (void)radius2;
    gather *g = (gather *)user;
    if (g->failed) return -1.0f;
    if (g->count == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 64;
        candidate *items = (candidate *)sn_alloc_array(g->env, cap, sizeof(candidate), "soffd candidates");
        if (!items) {
            g->failed = true;
            return -1.0f; /* prunes everything; the caller sees `failed` */
        }
        if (g->count) memcpy(items, g->items, g->count * sizeof(candidate));
        sn_free(g->env, g->items);
        g->items = items;
        g->cap = cap;
    }
    candidate *c = &g->items[g->count++];
    c->dist2 = hit->dist2;
    c->element = hit->triangle;
    memcpy(c->bary, hit->bary, sizeof c->bary);
    c->weight = sn_soffd_falloff(g->h, hit->dist2);
    if (hit->dist2 < g->min_dist2) {
        g->min_dist2 = hit->dist2;
        g->threshold_r2 = threshold_radius2(g); /* pow only when the nearest changes */
    }
    return current_radius2(g);
}

static void on_culled(void *user, float dist2, size_t count)
{
    gather *g = (gather *)user;
    g->dropped_w += (double)count * sn_soffd_falloff(g->h, dist2);
}

void sn_soffd_reg_free(const sn_env *env, sn_soffd_reg *reg)
{
    sn_free(env, reg->rest);
    sn_free(env, reg->offsets);
    sn_free(env, reg->element);
    sn_free(env, reg->coeff);
    sn_free(env, reg->bary);
    sn_free(env, reg->dropped);
    memset(reg, 0, sizeof *reg);
}

/* Grows the entry arrays of reg to hold at least `need` entries. */
static bool reserve_entries(const sn_env *env, sn_soffd_reg *reg, size_t *cap, size_t need)
{
    if (need <= *cap) return true;
    size_t want = *cap ? *cap : 1024;
    while (want < need) {
        if (want > SIZE_MAX / 2) {
            want = need;
            break;
        }
        want *= 2;
    }
    uint32_t *e = (uint32_t *)sn_alloc_array(env, want, sizeof(uint32_t), "soffd contributing elements");
    float *c = e ? (float *)sn_alloc_array(env, want, 4 * sizeof(float), "soffd local coordinates") : NULL;
    float *b = c ? (float *)sn_alloc_array(env, want, 3 * sizeof(float), "soffd barycentric weights") : NULL;
    if (!b) {
        sn_free(env, e);
        sn_free(env, c);
        return false;
    }
    if (reg->entry_count) {
        memcpy(e, reg->element, reg->entry_count * sizeof(uint32_t));
        memcpy(c, reg->coeff, reg->entry_count * 4 * sizeof(float));
        memcpy(b, reg->bary, reg->entry_count * 3 * sizeof(float));
    }
    sn_free(env, reg->element);
    sn_free(env, reg->coeff);
    sn_free(env, reg->bary);
    reg->element = e, reg->coeff = c, reg->bary = b;
    *cap = want;
    return true;
}

double sn_soffd_write_entries(const sinew_soffd *h, const float p[3], const candidate *items, size_t n,
                            uint32_t *element, float *coeff, float *bary)
{
    double total = 0;
    for (size_t i = 0; i < n; ++i) total += items[i].weight;
    for (size_t i = 0; i < n; ++i) {
        double u = items[i].weight / total, xyz[3];
        sn_soffd_local_coords(h, items[i].element, p, xyz);
        element[i] = items[i].element;
        coeff[4 * i + 0] = (float)(u * xyz[0]);
        coeff[4 * i + 1] = (float)(u * xyz[1]);
        coeff[4 * i + 2] = (float)(u * xyz[2]);
        coeff[4 * i + 3] = (float)u;
        for (int k = 0; k < 3; ++k) bary[3 * i + k] = (float)(u * items[i].bary[k]);
    }
    return total;
}

sinew_result sn_soffd_register_points(const sinew_soffd *h, const float *skin, size_t stride, size_t count,
                                      const sinew_soffd_register_desc *policy, sn_soffd_reg *out)
{
    const sn_env *env = &h->env;
    stride = sn_stride(stride, 3 * sizeof(float));
    sn_soffd_reg reg = {0};
    size_t cap = 0;
    gather g = {0};
    g.h = h;
    g.env = env;
    g.eps = policy->weight_threshold;
    g.keep = policy->exclusive ? 1 : policy->max_contributors ? policy->max_contributors : SIZE_MAX;
    g.max_dist2 = policy->max_distance > 0
                      ? (float)(policy->max_distance * h->length_scale * policy->max_distance * h->length_scale)
                      : INFINITY;
    sn_bvh_visitor visitor = {on_hit, on_culled, &g};
    sinew_result r = SINEW_OK;
    reg.point_count = count;
    reg.rest = (float *)sn_alloc_array(env, count, 3 * sizeof(float), "soffd registered points");
    reg.offsets = (size_t *)sn_alloc_array(env, count + 1, sizeof(size_t), "soffd set offsets");
    reg.dropped = (float *)sn_alloc_array(env, count, sizeof(float), "soffd dropped mass");
    if (!reg.rest || !reg.offsets || !reg.dropped) goto oom;
    reg.offsets[0] = 0;
    for (size_t i = 0; i < count; ++i) {
        if ((i & 1023) == 0 && (r = sn_progress(env, "soffd: register", (float)i / (float)count)) != SINEW_OK)
            goto fail;
        const float *p = (const float *)((const char *)skin + i * stride);
        memcpy(&reg.rest[3 * i], p, 3 * sizeof(float));
        g.count = 0;
        g.min_dist2 = INFINITY;
        g.threshold_r2 = INFINITY;
        g.dropped_w = 0;
        sn_bvh_visit(&h->bvh, p, g.max_dist2, &visitor);
        if (g.failed) goto oom;
        /* Final keep test on the weights themselves, then the cap. */
        double w_max = 0;
        for (size_t j = 0; j < g.count; ++j) w_max = fmax(w_max, g.items[j].weight);
        size_t kept = 0;
        for (size_t j = 0; j < g.count; ++j) {
            double w = g.items[j].weight;
            if (w >= g.eps * w_max && g.items[j].dist2 <= g.max_dist2) g.items[kept++] = g.items[j];
            else g.dropped_w += w;
        }
        g.count = kept;
        if (g.keep != SIZE_MAX && g.count > g.keep) cap_candidates(&g);
        /* Entries stay in BVH order (spatially coherent for the deform kernel);
         * sinew_soffd_get_contributors sorts what it hands out. */
        size_t need;
        if (!sn_add_size(reg.entry_count, g.count, &need)) {
            r = sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "soffd registration entries overflow at skin point %zu", i);
            goto fail;
        }
        if (!reserve_entries(env, &reg, &cap, need)) goto oom;
        size_t at = reg.entry_count;
        /* A point with no element kept (max_distance) may come before any
         * entry exists, when the arrays are still NULL: nothing to write. */
        double kept_w = g.count ? sn_soffd_write_entries(h, p, g.items, g.count, &reg.element[at],
                                                         &reg.coeff[4 * at], &reg.bary[3 * at])
                                : 0.0;
        reg.entry_count = need;
        reg.offsets[i + 1] = need;
        if (g.count > reg.max_set) reg.max_set = g.count;
        reg.dropped[i] = g.dropped_w > 0 ? (float)(g.dropped_w / (kept_w + g.dropped_w)) : 0.0f;
    }
    if ((r = sn_progress(env, "soffd: register", 1.0f)) != SINEW_OK) goto fail;
    sn_free(env, g.items);
    *out = reg;
    return SINEW_OK;
oom:
    r = sn_alloc_failure();
fail:
    sn_free(env, g.items);
    sn_soffd_reg_free(env, &reg);
    return r;
}

static sinew_result check_policy(const sinew_soffd_register_desc *p)
{
    if (!isfinite(p->weight_threshold) || p->weight_threshold < 0 || p->weight_threshold >= 1)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "weight_threshold must lie in [0, 1), got %g",
                       (double)p->weight_threshold);
    if (!isfinite(p->max_distance) || p->max_distance < 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "max_distance must be finite and >= 0, got %g",
                       (double)p->max_distance);
    return SINEW_OK;
}

static void commit(sinew_soffd *h, sn_soffd_reg *reg)
{
    sn_soffd_reg_free(&h->env, &h->reg);
    h->reg = *reg;
    h->registered = 1;
}

sinew_result sinew_soffd_register(sinew_soffd *h, const sinew_points *skin, const sinew_soffd_register_desc *policy)
{
    sn_clear_error();
    if (!h) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "soffd is NULL");
    sinew_soffd_register_desc p = {0};
    if (policy) p = *policy;
    sinew_result r = check_policy(&p);
    if (r != SINEW_OK) return r;
    if ((r = sn_check_points(skin, "skin point")) != SINEW_OK) return r;
    sn_soffd_reg reg;
    if ((r = sn_soffd_register_points(h, skin->data, skin->stride, skin->count, &p, &reg)) != SINEW_OK) return r;
    commit(h, &reg);
    h->policy = p;
    return SINEW_OK;
}
