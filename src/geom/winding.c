/*
 * Hierarchical generalised winding numbers.
 */
#include "geom/winding.h"
#include "geom/select.h"

#include <math.h>
#include <string.h>

#define SN_WINDING_LEAF 8
/* A cluster counts as far once the query is this many radii from its centre;
 * the dipole's relative error then falls like 1/ratio^2. */
#define SN_WINDING_FAR 4.0
#define SN_WINDING_STACK 96

void sn_winding_free(const sn_env *env, sn_winding *w)
{
    sn_free(env, w->corners);
    sn_free(env, w->nodes);
    memset(w, 0, sizeof *w);
}

typedef struct build_state {
    const double *tri;      /* 9 doubles per input triangle */
    double *centroid;       /* 3 per input triangle */
    uint32_t *order;
    sn_winding_node *nodes;
    size_t node_count;
} build_state;

static void summarise(build_state *s, sn_winding_node *node, uint32_t first, uint32_t count)
{
    double area_sum = 0.0, c[3] = {0, 0, 0}, nrm[3] = {0, 0, 0};
    for (uint32_t k = first; k < first + count; ++k) {
        const double *t = s->tri + 9 * (size_t)s->order[k];
        double e1[3] = {t[3] - t[0], t[4] - t[1], t[5] - t[2]};
        double e2[3] = {t[6] - t[0], t[7] - t[1], t[8] - t[2]};
        double cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double area = 0.5 * sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
        for (int a = 0; a < 3; ++a) {
            nrm[a] += 0.5 * cr[a];
            c[a] += area * s->centroid[3 * (size_t)s->order[k] + a];
        }
        area_sum += area;
    }
    for (int a = 0; a < 3; ++a) {
        node->normal[a] = nrm[a];
        node->centre[a] = area_sum > 0 ? c[a] / area_sum : s->centroid[3 * (size_t)s->order[first] + a];
    }
    double r2 = 0.0;
    for (uint32_t k = first; k < first + count; ++k) {
        const double *t = s->tri + 9 * (size_t)s->order[k];
        for (int v = 0; v < 3; ++v) {
            double dx = t[3 * v] - node->centre[0], dy = t[3 * v + 1] - node->centre[1], dz = t[3 * v + 2] - node->centre[2];
            double d2 = dx * dx + dy * dy + dz * dz;
            if (d2 > r2) r2 = d2;
        }
    }
    node->radius = sqrt(r2);
}

/* Builds the subtree over order[first, first+count) and returns its node.
 * Depth is logarithmic (median splits), so recursion is bounded. */
static uint32_t build_node(build_state *s, uint32_t first, uint32_t count)
{
    uint32_t id = (uint32_t)s->node_count++;
    sn_winding_node *node = &s->nodes[id];
    summarise(s, node, first, count);
    node->first = first;
    node->count = count;
    node->left = node->right = 0;
    if (count <= SN_WINDING_LEAF) return id;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t k = first; k < first + count; ++k) {
        const double *c = s->centroid + 3 * (size_t)s->order[k];
        for (int a = 0; a < 3; ++a) {
            if (c[a] < lo[a]) lo[a] = c[a];
            if (c[a] > hi[a]) hi[a] = c[a];
        }
    }
    int axis = 0;
    for (int a = 1; a < 3; ++a)
        if (hi[a] - lo[a] > hi[axis] - lo[axis]) axis = a;
    uint32_t half = count / 2;
    sn_select_nth(s->order, first, first + count, first + half, s->centroid + axis, 3);
    uint32_t left = build_node(s, first, half);
    uint32_t right = build_node(s, first + half, count - half);
    node = &s->nodes[id];
    node->count = 0;
    node->left = left;
    node->right = right;
    return id;
}

sinew_result sn_winding_build(const sn_env *env, const sinew_trimesh *mesh, sn_winding *out)
{
    size_t tc = mesh->triangle_count;
    if (tc > UINT32_MAX / 2) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "too many triangles for a winding tree");
    build_state s = {0};
    double *tri = sn_alloc_array(env, tc, 9 * sizeof(double), "winding triangles");
    s.centroid = sn_alloc_array(env, tc, 3 * sizeof(double), "winding centroids");
    s.order = sn_alloc_array(env, tc, sizeof(uint32_t), "winding order");
    /* A binary tree with leaves of >= 1 triangle has < 2 tc nodes. */
    s.nodes = sn_alloc_array(env, 2 * tc + 1, sizeof(sn_winding_node), "winding tree");
    double *corners = sn_alloc_array(env, tc, 9 * sizeof(double), "winding corners");
    if (!tri || !s.centroid || !s.order || !s.nodes || !corners) {
        sinew_result r = sn_alloc_failure();
        sn_free(env, tri);
        sn_free(env, s.centroid);
        sn_free(env, s.order);
        sn_free(env, s.nodes);
        sn_free(env, corners);
        return r;
    }
    for (size_t t = 0; t < tc; ++t) {
        for (int v = 0; v < 3; ++v) {
            const float *p =
                sn_point(&mesh->positions, sn_index_at(mesh->indices, mesh->index_type, mesh->index_stride, 3, t, v));
            for (int a = 0; a < 3; ++a) tri[9 * t + 3 * v + a] = p[a];
        }
        for (int a = 0; a < 3; ++a)
            s.centroid[3 * t + a] = (tri[9 * t + a] + tri[9 * t + 3 + a] + tri[9 * t + 6 + a]) / 3.0;
        s.order[t] = (uint32_t)t;
    }
    s.tri = tri;
    if (tc > 0) build_node(&s, 0, (uint32_t)tc);
    for (size_t k = 0; k < tc; ++k) memcpy(corners + 9 * k, tri + 9 * (size_t)s.order[k], 9 * sizeof(double));
    sn_free(env, tri);
    sn_free(env, s.centroid);
    sn_free(env, s.order);
    out->corners = corners;
    out->nodes = s.nodes;
    out->node_count = s.node_count;
    out->triangle_count = tc;
    return SINEW_OK;
}

/* Signed solid angle of one triangle seen from q (van Oosterom & Strackee). */
static double solid_angle(const double *t, const double q[3])
{
    double a[3], b[3], c[3];
    for (int k = 0; k < 3; ++k) {
        a[k] = t[k] - q[k];
        b[k] = t[3 + k] - q[k];
        c[k] = t[6 + k] - q[k];
    }
    double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    double lb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    double lc = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                 a[2] * (b[0] * c[1] - b[1] * c[0]);
    double ab = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    double ac = a[0] * c[0] + a[1] * c[1] + a[2] * c[2];
    double bc = b[0] * c[0] + b[1] * c[1] + b[2] * c[2];
    double den = la * lb * lc + ab * lc + ac * lb + bc * la;
    return 2.0 * atan2(det, den);
}

double sn_winding_number(const sn_winding *w, const double q[3])
{
    if (w->node_count == 0) return 0.0;
    uint32_t stack[SN_WINDING_STACK];
    size_t top = 0;
    double sum = 0.0;
    stack[top++] = 0;
    while (top > 0) {
        const sn_winding_node *node = &w->nodes[stack[--top]];
        double d[3] = {node->centre[0] - q[0], node->centre[1] - q[1], node->centre[2] - q[2]};
        double dist2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        double far = SN_WINDING_FAR * node->radius;
        if (dist2 > far * far) {
            /* Dipole: the cluster's area vector seen from q. */
            sum += (d[0] * node->normal[0] + d[1] * node->normal[1] + d[2] * node->normal[2]) /
                   (dist2 * sqrt(dist2));
        } else if (node->count > 0) {
            for (uint32_t k = node->first; k < node->first + node->count; ++k)
                sum += solid_angle(w->corners + 9 * (size_t)k, q);
        } else {
            /* Median splits keep the depth below 32 for any uint32_t count, and a
             * depth-first walk holds at most depth + 1 entries. */
            stack[top++] = node->left;
            stack[top++] = node->right;
        }
    }
    return sum / (4.0 * 3.14159265358979323846);
}
