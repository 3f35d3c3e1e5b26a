/* One-ring data of the extended algorithm (paper section 4.2): for each driver
 * vertex, the distinct neighbours, the incident elements, and the inverse of
 * the normal equations of the least-squares map from reference to current
 * edges. Where the reference one-ring is flat the edges leave the map's normal
 * column free, so the vertex normal joins the fit with weight mu; where the ring
 * spans 3D (flatness >= FLAT_RING) mu is 0 and affine maps of the driver come
 * out exact; elsewhere only rotations, uniform scaling and translations do. */
#include <math.h>
#include <string.h>

#include "soffd/soffd_internal.h"
#include "core/small_math.h"

/* Flatness below which the normal joins the fit: det(G) / (trace(G) / 3)^3,
 * which is 1 for an isotropic ring and 0 for a flat one. 0.1 corresponds to
 * a ring whose thinnest direction carries about 3 % of the widest one. */
#define FLAT_RING 0.1

void sn_soffd_ring_free(const sn_env *env, sn_soffd_ring *ring)
{
    sn_mesh_graph_free(env, &ring->graph);
    sn_free(env, ring->fan_offsets);
    sn_free(env, ring->fan);
    sn_free(env, ring->inverse);
    sn_free(env, ring->normal_weight);
    sn_free(env, ring->normal);
    sn_free(env, ring->fan_area);
    sn_free(env, ring->identity_weight);
    memset(ring, 0, sizeof *ring);
}

/* Normal equations of one vertex from its ring in h->reference. */
static void vertex_fit(const sinew_soffd *h, sn_soffd_ring *ring, size_t v)
{
    const float *rv = &h->reference[3 * v];
    double g[9] = {0}, edge_sum = 0;
    for (size_t i = ring->graph.first[v]; i < ring->graph.first[v + 1]; ++i) {
        const float *ru = &h->reference[3 * (size_t)ring->graph.neighbours[i]];
        double e[3] = {(double)ru[0] - rv[0], (double)ru[1] - rv[1], (double)ru[2] - rv[2]};
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) g[3 * r + c] += e[r] * e[c];
        edge_sum += sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    }
    double n[3] = {0, 0, 0}, area = 0;
    for (size_t i = ring->fan_offsets[v]; i < ring->fan_offsets[v + 1]; ++i) {
        const uint32_t *t = &h->elements[3 * (size_t)ring->fan[i]];
        const float *a = &h->reference[3 * (size_t)t[0]], *b = &h->reference[3 * (size_t)t[1]],
                    *c = &h->reference[3 * (size_t)t[2]];
        double ab[3] = {(double)b[0] - a[0], (double)b[1] - a[1], (double)b[2] - a[2]};
        double ac[3] = {(double)c[0] - a[0], (double)c[1] - a[1], (double)c[2] - a[2]};
        double x[3] = {ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]};
        for (int k = 0; k < 3; ++k) n[k] += x[k];
        area += sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    }
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    double trace = g[0] + g[4] + g[8];
    double mu = 0;
    if (trace > 0) {
        double flat = sn_det3(g) / pow(trace / 3.0, 3.0);
        if (flat < FLAT_RING) mu = trace * (1.0 - flat / FLAT_RING);
    }
    double *unit = &ring->normal[3 * v];
    double identity = 0;
    if (len > 0 && area > 0) {
        for (int k = 0; k < 3; ++k) unit[k] = n[k] / len;
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) g[3 * r + c] += mu * unit[r] * unit[c];
    } else {
        /* No usable normal (an unreferenced vertex, or a fan whose normals
         * cancel): fit towards the identity instead. */
        unit[0] = unit[1] = unit[2] = 0;
        area = mu = 0;
        identity = trace > 0 ? trace : 1.0;
    }
    for (int k = 0; k < 3; ++k) g[4 * k] += identity;
    double det = sn_det3(g), scale = g[0] + g[4] + g[8];
    if (!(fabs(det) > 1e-14 * scale * scale * scale)) {
        /* Still singular (a ring along a single line): lean towards the identity too. */
        double lift = scale * 1e-3;
        for (int k = 0; k < 3; ++k) g[4 * k] += lift;
        identity += lift;
        det = sn_det3(g);
    }
    const double *gi = &ring->inverse[9 * v];
    sn_inverse3(g, &ring->inverse[9 * v]);
    ring->normal_weight[v] = mu;
    ring->fan_area[v] = area;
    ring->identity_weight[v] = identity;

    /* Bound on the map's linear entries, |M| <= |C| |G^-1| (Frobenius norms),
     * for current coordinates at most E: each current edge is at most
     * 2 sqrt(3) E long, each current fan triangle's |ab x ac| at most 12 E^2,
     * so the scaled normal is at most E sqrt(12 fans / fan_area) (or the unit
     * reference normal, when the current fan collapses), and the identity
     * pairs add sqrt(3) identity. */
    double inv_norm = 0;
    for (int k = 0; k < 9; ++k) inv_norm += gi[k] * gi[k];
    inv_norm = sqrt(inv_norm);
    double fans = (double)(ring->fan_offsets[v + 1] - ring->fan_offsets[v]);
    double per_extent = 2 * sqrt(3.0) * edge_sum + (mu > 0 ? mu * sqrt(12 * fans / area) : 0);
    double base = mu + sqrt(3.0) * identity, k1 = inv_norm * per_extent, k0 = inv_norm * base;
    /* fmax would pass over a NaN: a vertex without a finite bound disables the shortcut. */
    ring->stretch_per_extent = isnan(k1) || isnan(k0) ? INFINITY : fmax(ring->stretch_per_extent, k1);
    ring->stretch_base = isnan(k0) ? INFINITY : fmax(ring->stretch_base, k0);
}

sinew_result sn_soffd_ring_build(const sinew_soffd *h, sn_soffd_ring *out)
{
    const sn_env *env = &h->env;
    size_t nv = h->vertex_count, ne = h->element_count;
    sn_soffd_ring ring = {0};
    sinew_result r;
    ring.fan_offsets = (size_t *)sn_calloc_array(env, nv + 1, sizeof(size_t), "soffd fan offsets");
    ring.fan = (uint32_t *)sn_alloc_array(env, ne, 3 * sizeof(uint32_t), "soffd vertex fans");
    size_t *fill = (size_t *)sn_alloc_array(env, nv + 1, sizeof(size_t), "soffd fan scratch offsets");
    ring.inverse = (double *)sn_alloc_array(env, nv, 9 * sizeof(double), "soffd one-ring fits");
    ring.normal_weight = (double *)sn_alloc_array(env, nv, sizeof(double), "soffd one-ring normal weights");
    ring.normal = (double *)sn_alloc_array(env, nv, 3 * sizeof(double), "soffd vertex normals");
    ring.fan_area = (double *)sn_alloc_array(env, nv, sizeof(double), "soffd fan areas");
    ring.identity_weight = (double *)sn_alloc_array(env, nv, sizeof(double), "soffd identity weights");
    if (!ring.identity_weight || !ring.fan_offsets || !ring.fan || !fill || !ring.inverse ||
        !ring.normal_weight || !ring.normal || !ring.fan_area)
        goto oom;
    /* Fans: counting sort of (vertex, element). */
    for (size_t k = 0; k < ne; ++k)
        for (int c = 0; c < 3; ++c) ++ring.fan_offsets[h->elements[3 * k + c] + 1];
    for (size_t v = 0; v < nv; ++v) ring.fan_offsets[v + 1] += ring.fan_offsets[v];
    memcpy(fill, ring.fan_offsets, (nv + 1) * sizeof(size_t));
    for (size_t k = 0; k < ne; ++k)
        for (int c = 0; c < 3; ++c) ring.fan[fill[h->elements[3 * k + c]]++] = (uint32_t)k;
    sn_free(env, fill);
    r = sn_mesh_graph_from_triangles(env, h->elements, ne, nv, &ring.graph);
    if (r != SINEW_OK) {
        sn_soffd_ring_free(env, &ring);
        return r;
    }
    for (size_t v = 0; v < nv; ++v) vertex_fit(h, &ring, v);
    *out = ring;
    return SINEW_OK;
oom:
    r = sn_alloc_failure();
    sn_free(env, fill);
    sn_soffd_ring_free(env, &ring);
    return r;
}
