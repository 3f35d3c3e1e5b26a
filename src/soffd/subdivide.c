/* Subdivision of chosen driver elements (the paper's finer control in a
 * problem region, section 5): each chosen triangle becomes four at its edge
 * midpoints, or three around its centroid. The new vertices join R and the
 * driver (each recorded as a combination of the vertices it was made from);
 * the first child keeps its parent's number and the others are appended, so
 * untouched elements keep theirs. The points are registered again and the
 * user's edits replayed with each split element standing for its children. */
#include <stdlib.h>
#include <string.h>

#include "soffd/soffd_internal.h"

/* One edge of a chosen triangle: its vertices (lo < hi) and where it occurs. */
typedef struct edge_use {
    uint32_t lo, hi;
    uint32_t use; /* 3 * (index among the chosen) + corner */
} edge_use;

static int by_edge(const void *a, const void *b)
{
    const edge_use *x = (const edge_use *)a, *y = (const edge_use *)b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
    return x->use < y->use ? -1 : x->use > y->use;
}

/* Appends vertex v = sum w_j src_j to next (room reserved): R and its sources. */
static void add_vertex(sinew_soffd *next, const uint32_t src[3], const float w[3])
{
    size_t v = next->vertex_count++, a = next->added_count++;
    for (int c = 0; c < 3; ++c) {
        double p = 0;
        for (int j = 0; j < 3; ++j) p += (double)w[j] * next->reference[3 * (size_t)src[j] + c];
        next->reference[3 * v + c] = (float)p;
        next->added_source[3 * a + c] = src[c];
        next->added_weight[3 * a + c] = w[c];
    }
}

/* Midpoint vertices of the chosen triangles' edges, shared by the triangles
 * that share an edge: mid[3 * i + c] is the vertex on corner c's edge (c to
 * c + 1) of the i-th chosen triangle. */
static bool add_midpoints(const sinew_soffd *h, sinew_soffd *next, const uint32_t *chosen_list, size_t n,
                          uint32_t *mid)
{
    edge_use *edges = (edge_use *)sn_alloc_array(&h->env, 3 * n, sizeof(edge_use), "soffd subdivision edges");
    if (!edges) return false;
    for (size_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) {
            const uint32_t *t = &h->elements[3 * (size_t)chosen_list[i]];
            uint32_t a = t[c], b = t[(c + 1) % 3];
            edges[3 * i + c] = (edge_use){a < b ? a : b, a < b ? b : a, (uint32_t)(3 * i + c)};
        }
    qsort(edges, 3 * n, sizeof(edge_use), by_edge);
    static const float half[3] = {0.5f, 0.5f, 0.0f};
    for (size_t i = 0; i < 3 * n; ++i) {
        if (i == 0 || edges[i].lo != edges[i - 1].lo || edges[i].hi != edges[i - 1].hi)
            add_vertex(next, (const uint32_t[3]){edges[i].lo, edges[i].hi, edges[i].lo}, half);
        mid[edges[i].use] = (uint32_t)(next->vertex_count - 1);
    }
    sn_free(&h->env, edges);
    return true;
}

/* Writes the children of element k (vertices t, midpoints m or centroid g)
 * into next: the first at k, the others from `at`. */
static void write_children(sinew_soffd *next, size_t k, const uint32_t t[3], const uint32_t *m, uint32_t g,
                           size_t at, size_t extra)
{
    uint32_t kids[4][3];
    if (m) {
        const uint32_t a = t[0], b = t[1], c = t[2], ab = m[0], bc = m[1], ca = m[2];
        memcpy(kids, (const uint32_t[4][3]){{a, ab, ca}, {ab, b, bc}, {ca, bc, c}, {ab, bc, ca}}, sizeof kids);
    } else {
        memcpy(kids, (const uint32_t[3][3]){{t[0], t[1], g}, {t[1], t[2], g}, {t[2], t[0], g}}, 9 * sizeof(uint32_t));
    }
    for (size_t j = 0; j <= extra; ++j) {
        size_t e = j == 0 ? k : at + j - 1;
        memcpy(&next->elements[3 * e], kids[j], sizeof kids[j]);
        next->element_face[e] = next->element_face[k];
        next->element_parent[e] = (uint32_t)k;
    }
}

/* The new bind arrays of next: copies of h's grown for the children and the
 * added vertices, R, the triangulation, parents and vertex sources filled. */
static sinew_result split(const sinew_soffd *h, sinew_soffd *next, const uint32_t *chosen_list, size_t n, bool edges,
                          uint32_t *first_child)
{
    const sn_env *env = &h->env;
    const size_t extra = edges ? 3 : 2, new_vertices = edges ? 3 * n : n; /* at most: shared midpoints merge */
    const size_t vertices = h->vertex_count + new_vertices, elements = h->element_count + extra * n;
    if (vertices >= UINT32_MAX || elements >= UINT32_MAX || elements > SIZE_MAX / (16 * sizeof(float)))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "subdividing %zu elements makes %zu elements and up to %zu vertices, "
                       "beyond the 2^32 - 2 soffd numbers", n, elements, vertices);
    const size_t added = h->added_count + new_vertices;
    next->reference = (float *)sn_alloc_array(env, vertices, 3 * sizeof(float), "the soffd reference surface");
    next->elements = (uint32_t *)sn_alloc_array(env, elements, 3 * sizeof(uint32_t), "soffd elements");
    next->element_face = (uint32_t *)sn_alloc_array(env, elements, sizeof(uint32_t), "soffd element faces");
    next->element_parent = (uint32_t *)sn_alloc_array(env, elements, sizeof(uint32_t), "soffd element parents");
    next->added_source = (uint32_t *)sn_alloc_array(env, added, 3 * sizeof(uint32_t), "soffd added vertices");
    next->added_weight = (float *)sn_alloc_array(env, added, 3 * sizeof(float), "soffd added vertex weights");
    uint32_t *mid = edges ? (uint32_t *)sn_alloc_array(env, 3 * n, sizeof(uint32_t), "soffd subdivision midpoints")
                          : NULL;
    if (!next->reference || !next->elements || !next->element_face || !next->element_parent || !next->added_source ||
        !next->added_weight || (edges && !mid)) {
        sn_free(env, mid);
        return sn_alloc_failure();
    }
    memcpy(next->reference, h->reference, 3 * h->vertex_count * sizeof(float));
    memcpy(next->elements, h->elements, 3 * h->element_count * sizeof(uint32_t));
    memcpy(next->element_face, h->element_face, h->element_count * sizeof(uint32_t));
    for (size_t k = 0; k < h->element_count; ++k)
        next->element_parent[k] = h->element_parent ? h->element_parent[k] : (uint32_t)k;
    if (h->added_count) {
        memcpy(next->added_source, h->added_source, 3 * h->added_count * sizeof(uint32_t));
        memcpy(next->added_weight, h->added_weight, 3 * h->added_count * sizeof(float));
    }
    if (edges && !add_midpoints(h, next, chosen_list, n, mid)) {
        sn_free(env, mid);
        return sn_alloc_failure();
    }
    static const float third[3] = {1.0f / 3, 1.0f / 3, 1.0f / 3};
    for (size_t i = 0; i < n; ++i) {
        const size_t k = chosen_list[i], at = h->element_count + extra * i;
        uint32_t t[3];
        memcpy(t, &h->elements[3 * k], sizeof t);
        uint32_t g = 0;
        if (!edges) {
            add_vertex(next, t, third);
            g = (uint32_t)(next->vertex_count - 1);
        }
        write_children(next, k, t, edges ? &mid[3 * i] : NULL, g, at, extra);
        first_child[k] = (uint32_t)at;
    }
    sn_free(env, mid);
    next->element_count = elements;
    for (size_t i = 0; i < n; ++i) {
        const size_t k = chosen_list[i];
        for (size_t j = 0; j <= extra; ++j) {
            const size_t e = j == 0 ? k : first_child[k] + j - 1;
            const uint32_t *t = &next->elements[3 * e];
            if (sn_soffd_degenerate(&next->reference[3 * (size_t)t[0]], &next->reference[3 * (size_t)t[1]],
                                    &next->reference[3 * (size_t)t[2]], NULL))
                return sn_fail(SINEW_ERROR_DEGENERATE, "element %zu (driver face %u) is too thin to split: its child "
                               "%zu has zero area", k, h->element_face[k], e);
        }
    }
    return SINEW_OK;
}

sinew_result sinew_soffd_subdivide(sinew_context *ctx, sinew_soffd *h, const uint8_t *chosen, size_t chosen_flag_count,
                                   sinew_soffd_split how)
{
    sn_clear_error();
    if (!h) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "soffd is NULL");
    if (!chosen) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "chosen is NULL");
    if (chosen_flag_count != h->element_count)
        return sn_fail(SINEW_ERROR_MISMATCH, "chosen has %zu flags, but the driver has %zu elements (one flag each)",
                       chosen_flag_count, h->element_count);
    if (how != SINEW_SOFFD_SPLIT_EDGES && how != SINEW_SOFFD_SPLIT_CENTROID)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "split %d is neither SINEW_SOFFD_SPLIT_EDGES nor "
                       "SINEW_SOFFD_SPLIT_CENTROID", (int)how);
    size_t n = 0;
    for (size_t k = 0; k < h->element_count; ++k) n += chosen[k] != 0;
    if (n == 0) return SINEW_OK;
    sn_env call;
    sn_env_for_call(&call, &h->env, ctx);
    const sn_env *env = &h->env;
    uint32_t *list = (uint32_t *)sn_alloc_array(env, n, sizeof(uint32_t), "soffd chosen elements");
    uint32_t *first_child = (uint32_t *)sn_alloc_array(env, h->element_count, sizeof(uint32_t), "soffd child map");
    if (!list || !first_child) {
        sn_free(env, list);
        sn_free(env, first_child);
        return sn_alloc_failure();
    }
    for (size_t k = 0, i = 0; k < h->element_count; ++k)
        if (chosen[k]) list[i++] = (uint32_t)k;
    memset(first_child, 0xff, h->element_count * sizeof(uint32_t));
    sinew_soffd next = *h;
    next.reference = NULL, next.elements = NULL, next.element_face = NULL, next.element_parent = NULL;
    next.added_source = NULL, next.added_weight = NULL;
    next.reference_normal = NULL, next.reference_inverse = NULL, next.reference_frame = NULL;
    next.edits = NULL, next.edit_elements = NULL;
    memset(&next.bvh, 0, sizeof next.bvh);
    memset(&next.ring, 0, sizeof next.ring);
    next.bind_elements = h->element_parent ? h->bind_elements : h->element_count;
    const bool edges = how == SINEW_SOFFD_SPLIT_EDGES;
    sinew_result r = split(h, &next, list, n, edges, first_child);
    if (r == SINEW_OK) r = sn_soffd_edits_map(h, &next, first_child, edges ? 3 : 2);
    sn_free(env, list);
    sn_free(env, first_child);
    if (r != SINEW_OK) {
        sn_soffd_free_unshared(env, &next, h);
        return r;
    }
    return sn_soffd_rebuild(h, &next, &call, true);
}

sinew_result sinew_soffd_element_parent(const sinew_soffd *h, size_t element, uint32_t *parent)
{
    sn_clear_error();
    if (!h || !parent) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "soffd or parent is NULL");
    if (element >= h->element_count)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "element %zu, but there are %zu", element, h->element_count);
    *parent = h->element_parent ? h->element_parent[element] : (uint32_t)element;
    return SINEW_OK;
}

sinew_result sinew_soffd_added_vertices(const sinew_soffd *h, uint32_t *sources, float *weights, size_t capacity,
                                        size_t *count)
{
    sn_clear_error();
    if (!h || !count) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "soffd or count is NULL");
    if (!sources && weights) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "sources is NULL but weights is not");
    *count = h->added_count;
    if (!sources) return SINEW_OK;
    if (capacity < h->added_count)
        return sn_fail(SINEW_ERROR_BUFFER_TOO_SMALL, "%zu vertices were added, capacity is %zu", h->added_count,
                       capacity);
    if (h->added_count) {
        memcpy(sources, h->added_source, 3 * h->added_count * sizeof(uint32_t));
        if (weights) memcpy(weights, h->added_weight, 3 * h->added_count * sizeof(float));
    }
    return SINEW_OK;
}
