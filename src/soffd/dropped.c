/* The dropped-mass diagnostic, computed on query.
 *
 * Registration keeps a cheap bound per point (a culled subtree counts as if
 * all its elements sat at its box's nearest point), which can be hundreds of
 * times the truth. A query tightens it for one point by walking the BVH over
 * R again: subtrees beyond the point's kept radius are bounded between their
 * box's nearest and farthest points and split until each one's gap is within
 * its share of the tolerance; elements within the kept radius are weighed
 * exactly, and the kept weight subtracted from their sum. Nothing is stored,
 * so a const handle serves any number of threads. */
#include <math.h>

#include "geom/closest_point.h"
#include "soffd/soffd_internal.h"

/* The reported mass is at most (1 + TOLERANCE) times the true one plus FLOOR:
 * each subtree's gap (upper - lower bound) is kept below TOLERANCE times its
 * lower bound plus FLOOR times the kept weight shared by element count, so
 * the gaps sum below TOLERANCE * (dropped weight) + FLOOR * (kept weight). */
#define TOLERANCE 0.5
#define FLOOR 1e-4

enum { STACK_SIZE = 96 }; /* the BVH's median split bounds its depth by log2 of the element count */

/* Squared distance from p to element k of R. */
static double element_dist2(const sinew_soffd *h, const float p[3], uint32_t k)
{
    const uint32_t *t = &h->elements[3 * (size_t)k];
    return sn_closest_point_triangle(p, &h->reference[3 * (size_t)t[0]], &h->reference[3 * (size_t)t[1]],
                                     &h->reference[3 * (size_t)t[2]], NULL, NULL);
}

float sn_soffd_tight_dropped_mass(const sinew_soffd *h, size_t point)
{
    const sn_soffd_reg *reg = &h->reg;
    float cheap = reg->dropped[point];
    size_t s = reg->offsets[point], e = reg->offsets[point + 1];
    /* Nothing dropped (exact, edited), or nothing kept (the whole mass is gone). */
    if (cheap == 0 || s == e) return cheap;
    const float *p = &reg->rest[3 * point];

    /* The kept elements: their weight, relative to the nearest one (always
     * kept), and the radius they lie within. */
    double near2 = INFINITY, keep2 = 0;
    for (size_t j = s; j < e; ++j) {
        double d2 = element_dist2(h, p, reg->element[j]);
        near2 = fmin(near2, d2);
        keep2 = fmax(keep2, d2);
    }
    sn_soffd_scale scale;
    sn_soffd_scale_init(h, near2, &scale);
    double kept = 0;
    for (size_t j = s; j < e; ++j) kept += sn_soffd_scaled_weight(h, &scale, element_dist2(h, p, reg->element[j]));

    /* Every element within the kept radius is weighed into `within` (kept or
     * not); beyond it, single elements into `exact` and subtrees into `upper`. */
    const sn_bvh *bvh = &h->bvh;
    double within = 0, exact = 0, upper = 0;
    double floor_per_element = FLOOR * kept / (double)h->element_count;
    double outside2 = keep2 * (1 + SN_SOFFD_BOX_SLACK);
    uint32_t stack[STACK_SIZE];
    size_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
        uint32_t node = stack[--top];
        const sn_bvh_node *n = &bvh->nodes[node];
        double box2 = sn_bvh_box_near2(bvh, node, p);
        if (box2 > outside2) { /* wholly beyond the kept radius: every element below is dropped */
            double hi = (double)n->count * sn_soffd_box_weight(h, &scale, box2);
            double far2 = (double)sn_bvh_box_far2(bvh, node, p) * (1 + SN_SOFFD_BOX_SLACK);
            double lo = (double)n->count * sn_soffd_scaled_weight(h, &scale, far2);
            if (hi - lo <= TOLERANCE * lo + floor_per_element * (double)n->count) {
                upper += hi;
                continue;
            }
        }
        if (n->right == 0) {
            for (uint32_t slot = n->first; slot < n->first + n->count; ++slot) {
                const float *c = &bvh->corners[9 * (size_t)slot];
                double d2 = sn_closest_point_triangle(p, c, c + 3, c + 6, NULL, NULL);
                double w = sn_soffd_scaled_weight(h, &scale, fmax(d2, near2));
                if (d2 <= keep2) within += w;
                else exact += w;
            }
            continue;
        }
        stack[top++] = n->right;
        stack[top++] = node + 1;
    }
    /* within - kept is the weight of the elements inside the kept radius that
     * were not kept (ties at a contributor cap); both sums add the same terms
     * in different orders, so a little slack covers their rounding. */
    double dropped = fmax(within - kept, 0.0) + 1e-12 * kept + exact + upper;
    /* The fade took that share of the kept weight (stored rounded up). */
    double faded = (double)reg->fade[point] * kept;
    double mass = (dropped + faded) / (kept + dropped);
    return (float)fmin(mass, (double)cheap); /* both are upper bounds */
}
