/* Triangle BVH: median split on the longest axis of the centroid box, four
 * triangles per leaf, nodes in depth-first order. The median split keeps the
 * depth at log2(n), which bounds every traversal stack below. */
#include <math.h>
#include <string.h>

#include "geom/bvh.h"
#include "geom/closest_point.h"
#include "geom/select.h"

enum { LEAF_SIZE = 4, STACK_SIZE = 96 };

void sn_bvh_free(sn_bvh *bvh, const sn_env *env)
{
    if (!bvh) return;
    sn_free(env, bvh->nodes);
    sn_free(env, bvh->corners);
    sn_free(env, bvh->triangles);
    memset(bvh, 0, sizeof *bvh);
}

typedef struct build_item {
    size_t first, count;
    size_t parent; /* node whose `right` is this one; SIZE_MAX for the root or a left child */
} build_item;

sinew_result sn_bvh_build(sn_bvh *bvh, const sn_env *env, const float *positions, size_t stride,
                          const uint32_t *indices, size_t triangle_count)
{
    memset(bvh, 0, sizeof *bvh);
    if (triangle_count == 0 || triangle_count >= UINT32_MAX)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "a BVH needs between 1 and 2^32 - 2 triangles, got %zu",
                       triangle_count);
    stride = sn_stride(stride, 3 * sizeof(float));
    size_t node_cap = 2 * triangle_count; /* a binary tree with at least one triangle per leaf */
    sn_bvh tree = {0};
    double *centroid = NULL;
    uint32_t *slots = NULL;
    tree.nodes = (sn_bvh_node *)sn_alloc_array(env, node_cap, sizeof(sn_bvh_node), "BVH nodes");
    tree.corners = (float *)sn_alloc_array(env, triangle_count, 9 * sizeof(float), "BVH triangle corners");
    tree.triangles = (uint32_t *)sn_alloc_array(env, triangle_count, sizeof(uint32_t), "BVH triangle order");
    centroid = (double *)sn_alloc_array(env, triangle_count, 3 * sizeof(double), "BVH centroids");
    slots = (uint32_t *)sn_alloc_array(env, triangle_count, sizeof(uint32_t), "BVH build order");
    if (!tree.nodes || !tree.corners || !tree.triangles || !centroid || !slots) {
        sinew_result r = sn_alloc_failure();
        sn_bvh_free(&tree, env);
        sn_free(env, centroid);
        sn_free(env, slots);
        return r;
    }
    for (size_t t = 0; t < triangle_count; ++t) {
        slots[t] = (uint32_t)t;
        for (int k = 0; k < 3; ++k) {
            double s = 0;
            for (int v = 0; v < 3; ++v)
                s += ((const float *)((const char *)positions + indices[3 * t + v] * stride))[k];
            centroid[3 * t + k] = s / 3.0;
        }
    }

    build_item stack[STACK_SIZE];
    size_t top = 0;
    stack[top++] = (build_item){0, triangle_count, SIZE_MAX};
    while (top > 0) {
        build_item item = stack[--top];
        size_t index = tree.node_count++;
        sn_bvh_node *node = &tree.nodes[index];
        if (item.parent != SIZE_MAX) tree.nodes[item.parent].right = (uint32_t)index;
        node->first = (uint32_t)item.first;
        node->count = (uint32_t)item.count;
        node->right = 0;
        double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int k = 0; k < 3; ++k) node->lo[k] = INFINITY, node->hi[k] = -INFINITY;
        for (size_t s = item.first; s < item.first + item.count; ++s) {
            uint32_t t = slots[s];
            for (int v = 0; v < 3; ++v) {
                const float *q = (const float *)((const char *)positions + indices[3 * t + v] * stride);
                for (int k = 0; k < 3; ++k) {
                    node->lo[k] = fminf(node->lo[k], q[k]);
                    node->hi[k] = fmaxf(node->hi[k], q[k]);
                }
            }
            for (int k = 0; k < 3; ++k) {
                clo[k] = fmin(clo[k], centroid[3 * t + k]);
                chi[k] = fmax(chi[k], centroid[3 * t + k]);
            }
        }
        if (item.count <= LEAF_SIZE) continue;
        int axis = 0;
        for (int k = 1; k < 3; ++k)
            if (chi[k] - clo[k] > chi[axis] - clo[axis]) axis = k;
        size_t half = item.count / 2;
        sn_select_nth(slots, item.first, item.first + item.count, item.first + half, centroid + axis, 3);
        /* Right pushed first so the left child is built next, right after its parent. */
        stack[top++] = (build_item){item.first + half, item.count - half, index};
        stack[top++] = (build_item){item.first, half, SIZE_MAX};
    }
    for (size_t s = 0; s < triangle_count; ++s) {
        uint32_t t = slots[s];
        tree.triangles[s] = t;
        for (int v = 0; v < 3; ++v)
            memcpy(&tree.corners[9 * s + 3 * v], (const char *)positions + indices[3 * t + v] * stride,
                   3 * sizeof(float));
    }
    tree.triangle_count = triangle_count;
    sn_free(env, centroid);
    sn_free(env, slots);
    *bvh = tree;
    return SINEW_OK;
}

static float box_dist2(const sn_bvh_node *n, const float p[3])
{
    float d2 = 0;
    for (int k = 0; k < 3; ++k) {
        float d = fmaxf(fmaxf(n->lo[k] - p[k], p[k] - n->hi[k]), 0.0f);
        d2 += d * d;
    }
    return d2;
}

float sn_bvh_box_near2(const sn_bvh *bvh, uint32_t node, const float p[3])
{
    return box_dist2(&bvh->nodes[node], p);
}

float sn_bvh_box_far2(const sn_bvh *bvh, uint32_t node, const float p[3])
{
    const sn_bvh_node *n = &bvh->nodes[node];
    float d2 = 0;
    for (int k = 0; k < 3; ++k) {
        float d = fmaxf(fabsf(p[k] - n->lo[k]), fabsf(n->hi[k] - p[k]));
        d2 += d * d;
    }
    return d2;
}

typedef struct visit_item {
    uint32_t node;
    float dist2;
} visit_item;

void sn_bvh_visit(const sn_bvh *bvh, const float p[3], float radius2, const sn_bvh_visitor *v)
{
    if (!bvh->node_count) return;
    visit_item stack[STACK_SIZE];
    size_t top = 0;
    stack[top++] = (visit_item){0, box_dist2(&bvh->nodes[0], p)};
    while (top > 0) {
        visit_item item = stack[--top];
        const sn_bvh_node *n = &bvh->nodes[item.node];
        if (item.dist2 > radius2) {
            if (v->culled) v->culled(v->user, item.node, item.dist2, n->count);
            continue;
        }
        if (n->right == 0) {
            for (uint32_t s = n->first; s < n->first + n->count; ++s) {
                const float *c = &bvh->corners[9 * (size_t)s];
                sn_bvh_hit hit;
                hit.dist2 = sn_closest_point_triangle(p, c, c + 3, c + 6, hit.point, hit.bary);
                if (hit.dist2 <= radius2) {
                    hit.triangle = bvh->triangles[s];
                    hit.t = 0;
                    radius2 = v->hit(v->user, &hit, radius2);
                } else if (v->culled) {
                    v->culled(v->user, SN_BVH_ONE_TRIANGLE, hit.dist2, 1);
                }
            }
            continue;
        }
        uint32_t near = item.node + 1, far = n->right;
        float dn = box_dist2(&bvh->nodes[near], p), df = box_dist2(&bvh->nodes[far], p);
        if (df < dn) {
            uint32_t t = near;
            near = far;
            far = t;
            float d = dn;
            dn = df;
            df = d;
        }
        stack[top++] = (visit_item){far, df};
        stack[top++] = (visit_item){near, dn};
    }
}

typedef struct closest_state {
    sn_bvh_hit best;
    bool found;
} closest_state;

static float keep_closest(void *user, const sn_bvh_hit *hit, float radius2)
{
    closest_state *s = (closest_state *)user;
    if (!s->found || hit->dist2 < s->best.dist2) {
        s->best = *hit;
        s->found = true;
        return hit->dist2;
    }
    return radius2;
}

bool sn_bvh_closest(const sn_bvh *bvh, const float p[3], float max_dist2, sn_bvh_hit *hit)
{
    closest_state s;
    s.found = false;
    sn_bvh_visitor v = {keep_closest, NULL, &s};
    sn_bvh_visit(bvh, p, max_dist2, &v);
    if (s.found) *hit = s.best;
    return s.found;
}

/* Entry and exit parameters of the ray in a node's box (slab method). */
static bool ray_box(const sn_bvh_node *n, const float o[3], const float inv[3], float t_max, float *t_enter)
{
    float t0 = 0, t1 = t_max;
    for (int k = 0; k < 3; ++k) {
        float a = (n->lo[k] - o[k]) * inv[k], b = (n->hi[k] - o[k]) * inv[k];
        /* fminf/fmaxf drop the NaN of 0 * inf when the origin lies on a slab plane. */
        t0 = fmaxf(t0, fminf(a, b));
        t1 = fminf(t1, fmaxf(a, b));
    }
    *t_enter = t0;
    return t0 <= t1;
}

/* Möller-Trumbore in double so grazing hits do not flicker; both sides count. */
static bool ray_triangle(const float o[3], const float d[3], const float *c, double t_max, double *t,
                         double *u, double *v)
{
    double e1[3], e2[3], s[3];
    for (int k = 0; k < 3; ++k) {
        e1[k] = (double)c[3 + k] - c[k];
        e2[k] = (double)c[6 + k] - c[k];
        s[k] = (double)o[k] - c[k];
    }
    double pv[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
    double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
    if (det == 0) return false;
    double inv = 1.0 / det;
    double uu = (s[0] * pv[0] + s[1] * pv[1] + s[2] * pv[2]) * inv;
    if (uu < 0 || uu > 1) return false;
    double qv[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
    double vv = (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]) * inv;
    if (vv < 0 || uu + vv > 1) return false;
    double tt = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) * inv;
    if (tt < 0 || tt > t_max) return false;
    *t = tt, *u = uu, *v = vv;
    return true;
}

bool sn_bvh_raycast(const sn_bvh *bvh, const float origin[3], const float dir[3], float t_max, sn_bvh_hit *hit)
{
    if (!bvh->node_count) return false;
    float inv[3] = {1.0f / dir[0], 1.0f / dir[1], 1.0f / dir[2]};
    double best_t = t_max, best_u = 0, best_v = 0;
    uint32_t best_slot = UINT32_MAX;
    visit_item stack[STACK_SIZE];
    size_t top = 0;
    float t_enter;
    if (!ray_box(&bvh->nodes[0], origin, inv, t_max, &t_enter)) return false;
    stack[top++] = (visit_item){0, t_enter};
    while (top > 0) {
        visit_item item = stack[--top];
        if (item.dist2 > best_t) continue; /* dist2 holds the entry parameter here */
        const sn_bvh_node *n = &bvh->nodes[item.node];
        if (n->right == 0) {
            for (uint32_t s = n->first; s < n->first + n->count; ++s) {
                double t, u, v;
                if (ray_triangle(origin, dir, &bvh->corners[9 * (size_t)s], best_t, &t, &u, &v) &&
                    (best_slot == UINT32_MAX || t < best_t)) {
                    best_t = t, best_u = u, best_v = v;
                    best_slot = s;
                }
            }
            continue;
        }
        uint32_t near = item.node + 1, far = n->right;
        float tn, tf;
        bool hn = ray_box(&bvh->nodes[near], origin, inv, (float)best_t, &tn);
        bool hf = ray_box(&bvh->nodes[far], origin, inv, (float)best_t, &tf);
        if (hn && hf && tf < tn) {
            uint32_t t = near;
            near = far;
            far = t;
            float x = tn;
            tn = tf;
            tf = x;
        } else if (!hn) {
            near = far, tn = tf, hn = hf, hf = false;
        }
        if (hf) stack[top++] = (visit_item){far, tf};
        if (hn) stack[top++] = (visit_item){near, tn};
    }
    if (best_slot == UINT32_MAX) return false;
    const float *c = &bvh->corners[9 * (size_t)best_slot];
    hit->triangle = bvh->triangles[best_slot];
    hit->t = (float)best_t;
    hit->dist2 = 0;
    hit->bary[0] = (float)(1 - best_u - best_v);
    hit->bary[1] = (float)best_u;
    hit->bary[2] = (float)best_v;
    for (int k = 0; k < 3; ++k)
        hit->point[k] = (float)(hit->bary[0] * (double)c[k] + best_u * c[3 + k] + best_v * c[6 + k]);
    return true;
}
