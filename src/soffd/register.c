/* Registration: per point, gather the contributing elements through the
 * BVH over R, then store u_k-scaled local coordinates for the deform kernels.
 *
 * Pruning works on radii so the BVH can cut whole subtrees: the relative
 * threshold w_k >= eps * w_max becomes d_k <= r(d_min), a radius that shrinks
 * as closer elements turn up; a contributor cap k becomes the distance of the
 * current (k + 1)-th nearest (the first one dropped fixes where the fade
 * ends; fade_candidates); max_distance is a radius already. Every element that
 * is not kept is accounted for, exactly or by its subtree's box distance, in
 * the cheap dropped-mass bound kept per point (sinew_soffd_dropped_mass
 * tightens it on query). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/closest_point.h"
#include "soffd/soffd_defaults.h"
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
    bool ramped;          /* a faded cap: the traversal finds the keep nearest whatever their weight */
    sn_soffd_drop *drops; /* elements and subtrees not kept, weighed once the nearest is known */
    size_t drop_count, drop_cap;
    bool failed;          /* out of memory inside a callback */
} gather;

/* Grows *items (elem bytes each, *cap of them) to hold one more; false when out of memory. */
static bool grow(const sn_env *env, void **items, size_t *cap, size_t count, size_t elem, const char *what)
{
    if (count < *cap) return true;
    size_t want = *cap ? 2 * *cap : 64;
    void *next = sn_alloc_array(env, want, elem, what);
    if (!next) return false;
    if (count) memcpy(next, *items, count * elem);
    sn_free(env, *items);
    *items = next;
    *cap = want;
    return true;
}

/* Records one element at dist2 (node SN_BVH_ONE_TRIANGLE) or a culled subtree as dropped. */
static void drop(gather *g, uint32_t node, float dist2, size_t count)
{
    if (g->failed) return;
    if (!grow(g->env, (void **)&g->drops, &g->drop_cap, g->drop_count, sizeof(sn_soffd_drop), "soffd dropped elements")) {
        g->failed = true;
        return;
    }
    g->drops[g->drop_count++] = (sn_soffd_drop){node, dist2, count};
}

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

/* Squared radius of the relative threshold for the current nearest element. */
static float threshold_radius2(const gather *g)
{
    sn_soffd_scale scale;
    sn_soffd_scale_init(g->h, g->min_dist2, &scale);
    double r = sn_soffd_threshold_radius(g->h, &scale, g->eps);
    /* A little slack: the final keep test is on weights, so the traversal must
     * not lose an element that rounding puts on the boundary. */
    return (float)fmax(r * r * (1 + 1e-4), g->min_dist2);
}

/* Keeps the `keep` nearest candidates, dropping the rest. */
static void cap_candidates(gather *g)
{
    qsort(g->items, g->count, sizeof(candidate), by_distance);
    for (size_t i = g->keep; i < g->count; ++i) drop(g, SN_BVH_ONE_TRIANGLE, g->items[i].dist2, 1);
    g->count = g->keep;
}

/* A kept element's faded weight: its weight above the threshold's cut,
 * times a ramp in its distance d that falls from 1 to 0 over `width` below
 * `edge`, the distance of the first element the cap drops. */
static double faded_weight(double w, double cut, double d, double edge, double width)
{
    double ramp = edge == INFINITY ? 1.0 : fmin(fmax((edge - d) / width, 0.0), 1.0);
    return fmax(w - cut, 0.0) * ramp;
}

/* Distance of the (cap + 1)-th nearest of the items (all the traversal
 * found, before the threshold drops any), INFINITY when there are no more
 * than cap: where a capped point's fade reaches 0. */
static double fade_edge(gather *g, size_t cap)
{
    if (g->count <= cap) return INFINITY;
    qsort(g->items, g->count, sizeof(candidate), by_distance);
    return sqrt((double)g->items[cap].dist2);
}

/* The fade. Every kept weight w becomes (w - cut) r, cut = eps * w_max the
 * threshold's, r a ramp that reaches 0 at `edge`, the distance of the
 * (cap + 1)-th nearest element whatever its weight (fade_edge), and 1 at
 * SN_SOFFD_FADE_WIDTH L nearer. Both are continuous functions of the point
 * (order statistics of continuous functions are), so an element enters or
 * leaves the set at weight 0: the deformed surface has no step where a
 * point's k-th and (k+1)-th elements trade places, or where one crosses the
 * threshold. The ramp is in distance, not weight, because weights are flat
 * near the driver (many elements near 1), where a fade in weight would
 * leave tiny differences to normalise and the surface steep. The items must
 * be the elements the threshold and the traversal kept (the cap + 1 nearest
 * at most, by distance); the ones past the cap and those that fade to 0
 * leave (their weight added to *dropped_w). Returns the weight the fade took
 * from the elements it kept; 0 (nothing faded) when every kept weight fades
 * to 0, where the nearest elements are equally near (a point over a shared
 * vertex) and no choice among them is continuous anyway. */
static double fade_candidates(gather *g, size_t cap, double edge, double cut, double *dropped_w)
{
    if (g->count > cap) {
        for (size_t i = cap; i < g->count; ++i) *dropped_w += g->items[i].weight;
        g->count = cap;
    }
    const double width = SN_SOFFD_FADE_WIDTH * g->h->length_scale;
    double total = 0;
    for (size_t j = 0; j < g->count; ++j)
        total += faded_weight(g->items[j].weight, cut, sqrt((double)g->items[j].dist2), edge, width);
    if (!(total > 0)) return 0;
    size_t kept = 0;
    double took = 0;
    for (size_t j = 0; j < g->count; ++j) {
        double w = g->items[j].weight, f = faded_weight(w, cut, sqrt((double)g->items[j].dist2), edge, width);
        if (f > 0) {
            g->items[kept] = g->items[j];
            g->items[kept++].weight = f;
            took += w - f;
        } else {
            *dropped_w += w;
        }
    }
    g->count = kept;
    return took;
}

/* x rounded up to float, so a stored bound stays a bound. */
static float round_up(double x)
{
    float v = (float)x;
    return (double)v < x ? nextafterf(v, INFINITY) : v;
}

static float current_radius2(gather *g)
{
    float r2 = g->ramped ? g->max_dist2 : fminf(g->max_dist2, g->threshold_r2);
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
    if (g->failed ||
        !grow(g->env, (void **)&g->items, &g->cap, g->count, sizeof(candidate), "soffd candidates")) {
        g->failed = true;
        return -1.0f; /* prunes everything; the caller sees `failed` */
    }
    candidate *c = &g->items[g->count++];
    c->dist2 = hit->dist2;
    c->element = hit->triangle;
    memcpy(c->bary, hit->bary, sizeof c->bary);
    c->weight = 0; /* weighed once the nearest element is known */
    if (hit->dist2 < g->min_dist2) {
        g->min_dist2 = hit->dist2;
        g->threshold_r2 = threshold_radius2(g); /* pow only when the nearest changes */
    }
    return current_radius2(g);
}

static void on_culled(void *user, uint32_t node, float dist2, size_t count)
{
    drop((gather *)user, node, dist2, count);
}

void sn_soffd_reg_free(const sn_env *env, sn_soffd_reg *reg)
{
    sn_free(env, reg->rest);
    sn_free(env, reg->offsets);
    sn_free(env, reg->element);
    sn_free(env, reg->coeff);
    sn_free(env, reg->dropped);
    sn_free(env, reg->fade);
    sn_free(env, reg->rest_offset);
    sn_soffd_corners_free(env, reg);
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
    if (!c) {
        sn_free(env, e);
        return false;
    }
    if (reg->entry_count) {
        memcpy(e, reg->element, reg->entry_count * sizeof(uint32_t));
        memcpy(c, reg->coeff, reg->entry_count * 4 * sizeof(float));
    }
    sn_free(env, reg->element);
    sn_free(env, reg->coeff);
    reg->element = e, reg->coeff = c;
    *cap = want;
    return true;
}

/* Trims *p (n used of its elements of elem bytes) to exactly n, so the
 * handle holds no growth slack; n 0 frees it. False when out of memory (*p
 * then unchanged). */
static bool trim(const sn_env *env, void **p, size_t n, size_t elem, const char *what)
{
    if (!*p) return true;
    void *next = NULL;
    if (n) {
        next = sn_alloc_array(env, n, elem, what);
        if (!next) return false;
        memcpy(next, *p, n * elem);
    }
    sn_free(env, *p);
    *p = next;
    return true;
}

/* Trims the entry and corner arrays, grown by doubling while registering,
 * to what they hold. */
static bool trim_registration(const sn_env *env, sn_soffd_reg *reg)
{
    size_t n = reg->entry_count, corners = reg->corner_offsets[reg->point_count];
    return trim(env, (void **)&reg->element, n, sizeof(uint32_t), "soffd contributing elements") &&
           trim(env, (void **)&reg->coeff, n, 4 * sizeof(float), "soffd local coordinates") &&
           trim(env, (void **)&reg->corner_vertex, corners, sizeof(uint32_t), "soffd corner vertices") &&
           trim(env, (void **)&reg->corner_weight, corners, sizeof(float), "soffd corner weights");
}

/* Local coordinates of point `point` (at p) in element e's frame, which
 * must lie within the 2^62 edge lengths that keep the kernels finite. */
static sinew_result local_coords_in_reach(const sinew_soffd *h, size_t point, const float p[3], uint32_t e,
                                          double xyz[3])
{
    sn_soffd_local_coords(h, e, p, xyz);
    for (int k = 0; k < 3; ++k)
        if (!(fabs(xyz[k]) <= SN_SOFFD_MAX_LOCAL))
            return sn_fail(SINEW_ERROR_OUTSIDE_DOMAIN,
                           "point %zu lies %g edge lengths from element %u, beyond the 2^62 that soffd keeps "
                           "finite", point, fabs(xyz[k]), e);
    return SINEW_OK;
}

sinew_result sn_soffd_write_entries(const sinew_soffd *h, size_t point, const float p[3], const candidate *items,
                                    size_t n, uint32_t *element, float *coeff, double *kept_weight)
{
    double total = 0;
    size_t nearest = 0;
    for (size_t i = 0; i < n; ++i) {
        total += items[i].weight;
        if (items[i].dist2 < items[nearest].dist2) nearest = i;
    }
    /* The nearest element goes first: the deform kernel measures every
     * contribution from its frame origin (the point's anchor), so world-sized
     * coordinates cancel before the sum. The rest keep their order. */
    for (size_t j = 0; j < n; ++j) {
        size_t i = j == 0 ? nearest : j <= nearest ? j - 1 : j;
        double u = items[i].weight / total, xyz[3];
        sinew_result r = local_coords_in_reach(h, point, p, items[i].element, xyz);
        if (r != SINEW_OK) return r;
        element[j] = items[i].element;
        coeff[4 * j + 0] = (float)(u * xyz[0]);
        coeff[4 * j + 1] = (float)(u * xyz[1]);
        coeff[4 * j + 2] = (float)(u * xyz[2]);
        coeff[4 * j + 3] = (float)u;
    }
    if (kept_weight) *kept_weight = total;
    return SINEW_OK;
}

sinew_result sn_soffd_check_reach(const sinew_soffd *h, size_t point, const float p[3], const candidate *items,
                                  size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        double xyz[3];
        sinew_result r = local_coords_in_reach(h, point, p, items[i].element, xyz);
        if (r != SINEW_OK) return r;
    }
    return SINEW_OK;
}

void sn_soffd_weigh(const sinew_soffd *h, candidate *items, size_t n)
{
    if (n == 0) return;
    float d2 = items[0].dist2;
    for (size_t i = 1; i < n; ++i) d2 = fminf(d2, items[i].dist2);
    sn_soffd_scale scale;
    sn_soffd_scale_init(h, d2, &scale);
    for (size_t i = 0; i < n; ++i) items[i].weight = sn_soffd_scaled_weight(h, &scale, items[i].dist2);
}

/* Upper bound on the weight of everything registration left out of a point's
 * set: the elements weighed exactly (exact_w and single-element drops) plus,
 * for each culled subtree, its count times the weight at its box's nearest
 * point. One weight per drop, so registration stays cheap; it can be far
 * above the truth for subtrees that reach far, which is why
 * sinew_soffd_dropped_mass refines it on query (see dropped.c). */
static double dropped_weight_bound(const gather *g, const sn_soffd_scale *scale, double exact_w)
{
    double upper = exact_w;
    for (size_t i = 0; i < g->drop_count; ++i) {
        const sn_soffd_drop *d = &g->drops[i];
        upper += d->node == SN_BVH_ONE_TRIANGLE ? sn_soffd_scaled_weight(g->h, scale, d->dist2)
                                                : (double)d->count * sn_soffd_box_weight(g->h, scale, d->dist2);
    }
    return upper;
}

sinew_result sn_soffd_register_points(const sinew_soffd *h, const sn_env *call, const float *skin, size_t stride,
                                      size_t count, const sinew_soffd_register_desc *policy, sn_soffd_reg *out)
{
    const sn_env *env = &h->env;
    stride = sn_stride(stride, 3 * sizeof(float));
    sn_soffd_reg reg = {0};
    size_t cap = 0, corner_cap = 0;
    uint32_t *slot = NULL; /* corner merge scratch, one per driver vertex */
    gather g = {0};
    g.h = h;
    g.env = env;
    g.eps = policy->weight_threshold;
    const size_t keep = policy->exclusive                                                      ? 1
                       : policy->max_contributors && policy->max_contributors != UINT32_MAX ? policy->max_contributors
                                                                                               : SIZE_MAX;
    /* Every policy but exclusive fades (fade_candidates), which needs the
     * first element the cap drops: the traversal keeps one more. */
    const bool fades = !policy->exclusive;
    g.keep = fades && keep != SIZE_MAX ? keep + 1 : keep;
    g.ramped = fades && keep != SIZE_MAX;
    g.max_dist2 = policy->max_distance > 0
                      ? (float)(policy->max_distance * h->length_scale * policy->max_distance * h->length_scale)
                      : INFINITY;
    sn_bvh_visitor visitor = {on_hit, on_culled, &g};
    sinew_result r = SINEW_OK;
    reg.point_count = count;
    reg.rest = (float *)sn_alloc_array(env, count, 3 * sizeof(float), "soffd registered points");
    reg.offsets = (size_t *)sn_alloc_array(env, count + 1, sizeof(size_t), "soffd set offsets");
    reg.dropped = (float *)sn_alloc_array(env, count, sizeof(float), "soffd dropped mass");
    reg.fade = (float *)sn_alloc_array(env, count, sizeof(float), "soffd faded mass");
    reg.corner_offsets = (size_t *)sn_alloc_array(env, count + 1, sizeof(size_t), "soffd corner offsets");
    slot = (uint32_t *)sn_alloc_array(env, h->vertex_count, sizeof(uint32_t), "soffd corner merge scratch");
    if (!reg.rest || !reg.offsets || !reg.dropped || !reg.fade || !reg.corner_offsets || !slot) goto oom;
    memset(slot, 0xff, h->vertex_count * sizeof(uint32_t));
    reg.offsets[0] = 0;
    reg.corner_offsets[0] = 0;
    for (size_t i = 0; i < count; ++i) {
        if ((i & 1023) == 0 && (r = sn_progress(call, "soffd: register", (float)i / (float)count)) != SINEW_OK)
            goto fail;
        const float *p = (const float *)((const char *)skin + i * stride);
        memcpy(&reg.rest[3 * i], p, 3 * sizeof(float));
        g.count = 0;
        g.drop_count = 0;
        g.min_dist2 = INFINITY;
        g.threshold_r2 = INFINITY;
        sn_bvh_visit(&h->bvh, p, g.max_dist2, &visitor);
        if (g.failed) goto oom;
        /* Weights relative to the nearest element (so they never all
         * underflow), then the final keep test on them, then the cap. */
        sn_soffd_scale scale;
        sn_soffd_scale_init(h, g.min_dist2, &scale);
        double w_max = 0;
        for (size_t j = 0; j < g.count; ++j) {
            g.items[j].weight = sn_soffd_scaled_weight(h, &scale, g.items[j].dist2);
            w_max = fmax(w_max, g.items[j].weight);
        }
        double edge = g.ramped ? fade_edge(&g, keep) : INFINITY; /* sorts by distance; the filter keeps the order */
        size_t kept = 0;
        double dropped_w = 0;
        for (size_t j = 0; j < g.count; ++j) {
            double w = g.items[j].weight;
            if (w >= g.eps * w_max && g.items[j].dist2 <= g.max_dist2) g.items[kept++] = g.items[j];
            else dropped_w += w;
        }
        g.count = kept;
        if (g.keep != SIZE_MAX && g.count > g.keep) cap_candidates(&g);
        if (g.failed) goto oom;
        double took = fades ? fade_candidates(&g, keep, edge, g.eps * w_max, &dropped_w) : 0;

        /* Entries stay in BVH order (spatially coherent for the deform kernel);
         * sinew_soffd_contributors sorts what it hands out. */
        size_t need;
        if (!sn_add_size(reg.entry_count, g.count, &need)) {
            r = sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "soffd registration entries overflow at point %zu", i);
            goto fail;
        }
        if (!reserve_entries(env, &reg, &cap, need)) goto oom;
        size_t at = reg.entry_count;
        double kept_w = 0;
        if (g.count > 0) { /* the entry arrays are still NULL while every set so far is empty */
            r = sn_soffd_write_entries(h, i, p, g.items, g.count, &reg.element[at], &reg.coeff[4 * at], &kept_w);
            if (r != SINEW_OK) goto fail;
        }
        reg.entry_count = need;
        reg.offsets[i + 1] = need;
        if (!sn_soffd_corners_append(h, &reg, i, &corner_cap, slot)) goto oom;
        if (g.count > reg.max_set) reg.max_set = g.count;
        /* The cheap bound; a point with nothing kept has lost all its mass.
         * What the fade took from the kept elements is lost too: the kept
         * weights before it were kept_w + took. */
        dropped_w = dropped_weight_bound(&g, &scale, dropped_w);
        double lost = dropped_w + took;
        reg.fade[i] = took > 0 ? round_up(took / (kept_w + took)) : 0.0f;
        if (!(kept_w > 0)) reg.dropped[i] = g.drop_count || dropped_w > 0 ? 1.0f : 0.0f;
        else reg.dropped[i] = lost > 0 ? (float)fmin(lost / (kept_w + lost), 1.0) : 0.0f;
    }
    if (!trim_registration(env, &reg) || !sn_soffd_rest_offsets_build(h, &reg)) goto oom;
    if ((r = sn_progress(call, "soffd: register", 1.0f)) != SINEW_OK) goto fail;
    sn_free(env, g.items);
    sn_free(env, g.drops);
    sn_free(env, slot);
    *out = reg;
    return SINEW_OK;
oom:
    r = sn_alloc_failure();
fail:
    sn_free(env, g.items);
    sn_free(env, g.drops);
    sn_free(env, slot);
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
    if (p->exact && (p->weight_threshold != 0 || p->max_contributors != 0 || p->exclusive))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                       "exact registration keeps every element: weight_threshold (%g), max_contributors (%u) and "
                       "exclusive (%d) must be 0", (double)p->weight_threshold, (unsigned)p->max_contributors,
                       p->exclusive);
    return SINEW_OK;
}

static void commit(sinew_soffd *h, sn_soffd_reg *reg)
{
    sn_soffd_reg_free(&h->env, &h->reg);
    sn_soffd_edits_free(&h->env, h); /* a new registration starts without edits */
    h->reg = *reg;
    h->registered = 1;
}

sinew_result sinew_soffd_register(sinew_context *ctx, sinew_soffd *h, const sinew_points *points,
                                  const sinew_soffd_register_desc *desc)
{
    sn_clear_error();
    if (!h) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "soffd is NULL");
    sn_env call;
    sn_env_for_call(&call, &h->env, ctx);
    sinew_soffd_register_desc p = {0};
    sinew_result r = SINEW_OK;
    if (desc && (r = sn_read_struct(&p, sizeof p, desc, "desc")) != SINEW_OK) return r;
    r = check_policy(&p);
    if (r != SINEW_OK) return r;
    sn_soffd_resolve_policy(&p);
    p.exact = 0; /* kept as the saved data keeps it: no threshold and no cap are 0 */
    if ((r = sn_check_points(points, "point")) != SINEW_OK) return r;
    if ((r = sn_soffd_check_domain(points, "point")) != SINEW_OK) return r;
    sn_soffd_reg reg;
    if ((r = sn_soffd_register_points(h, &call, points->data, points->stride, points->count, &p, &reg)) != SINEW_OK) return r;
    commit(h, &reg);
    h->policy = p;
    return SINEW_OK;
}
