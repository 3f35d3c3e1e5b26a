/* One candidate edge collapse: the topology checks that keep a manifold a
 * manifold, the quadric-optimal position of the merged vertex, the check
 * that no surviving triangle flips or collapses, and the cost. */
#include <math.h>
#include <string.h>

#include "soffd/driver/decimate.h"

/* Smallest cosine between a triangle's normal before and after a collapse:
 * refuses flips and near-flips, which fold the driver, while letting the
 * fans of a coarse curved surface turn as they must. */
#define SN_DRIVER_MIN_NORMAL_COS 0.1
/* A quadric-optimal position farther than this many edge lengths from the
 * edge's midpoint comes from a nearly singular quadric: the endpoints and
 * the midpoint are used instead. */
#define SN_DRIVER_PLACEMENT_REACH 2.0

void sn_quadric_add_plane(sn_quadric *q, const double n[3], const double p[3], double w)
{
    double d = -(n[0] * p[0] + n[1] * p[1] + n[2] * p[2]);
    q->a[0] += w * n[0] * n[0], q->a[1] += w * n[0] * n[1], q->a[2] += w * n[0] * n[2];
    q->a[3] += w * n[1] * n[1], q->a[4] += w * n[1] * n[2], q->a[5] += w * n[2] * n[2];
    for (int i = 0; i < 3; ++i) q->b[i] += w * n[i] * d;
    q->c += w * d * d;
}

void sn_quadric_add(sn_quadric *q, const sn_quadric *r)
{
    for (int i = 0; i < 6; ++i) q->a[i] += r->a[i];
    for (int i = 0; i < 3; ++i) q->b[i] += r->b[i];
    q->c += r->c;
    q->area += r->area;
}

static double quadric_eval(const sn_quadric *q, const double p[3])
{
    const double *a = q->a;
    double e = a[0] * p[0] * p[0] + a[3] * p[1] * p[1] + a[5] * p[2] * p[2] +
               2.0 * (a[1] * p[0] * p[1] + a[2] * p[0] * p[2] + a[4] * p[1] * p[2]) +
               2.0 * (q->b[0] * p[0] + q->b[1] * p[1] + q->b[2] * p[2]) + q->c;
    return e > 0 ? e : 0;  /* rounding can dip below the true minimum 0 */
}

/* The minimiser of q (A p = -b by Cramer's rule); false when A is nearly
 * singular relative to its own scale (a flat or straight neighbourhood). */
static bool quadric_minimum(const sn_quadric *q, double p[3])
{
    const double *a = q->a;
    double m00 = a[0], m01 = a[1], m02 = a[2], m11 = a[3], m12 = a[4], m22 = a[5];
    double c0 = m11 * m22 - m12 * m12, c1 = m02 * m12 - m01 * m22, c2 = m01 * m12 - m02 * m11;
    double det = m00 * c0 + m01 * c1 + m02 * c2;
    double scale = (m00 + m11 + m22) / 3.0;
    if (!(scale > 0) || !(fabs(det) > 1e-9 * scale * scale * scale)) return false;
    double i01 = m02 * m12 - m01 * m22, i02 = m01 * m12 - m02 * m11, i11 = m00 * m22 - m02 * m02,
           i12 = m01 * m02 - m00 * m12, i22 = m00 * m11 - m01 * m01;
    const double *b = q->b;
    p[0] = -(c0 * b[0] + i01 * b[1] + i02 * b[2]) / det;
    p[1] = -(i01 * b[0] + i11 * b[1] + i12 * b[2]) / det;
    p[2] = -(i02 * b[0] + i12 * b[1] + i22 * b[2]) / det;
    return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
}

/* Grows the ring scratch to hold at least `need` entries. */
static bool ring_reserve(sn_decimator *d, size_t need)
{
    if (need <= d->ring_capacity) return true;
    size_t cap = d->ring_capacity * 2 > need ? d->ring_capacity * 2 : need;
    uint32_t *grown = (uint32_t *)sn_alloc_array(d->env, cap, sizeof(uint32_t), "decimation ring");
    if (!grown) return false;
    if (d->ring_capacity) memcpy(grown, d->ring, d->ring_capacity * sizeof(uint32_t));
    sn_free(d->env, d->ring);
    d->ring = grown;
    d->ring_capacity = cap;
    return true;
}

size_t sn_driver_ring(sn_decimator *d, uint32_t v)
{
    size_t n = 0;
    ++d->stamp;
    for (uint32_t node = d->head[v]; node != SN_DRIVER_NONE; node = d->next[node]) {
        uint32_t t = node / 3;
        if (!d->tri_alive[t]) continue;
        for (int k = 0; k < 3; ++k) {
            uint32_t x = d->tris[3 * t + k];
            if (x == v || d->mark[x] == d->stamp) continue;
            d->mark[x] = d->stamp;
            if (!ring_reserve(d, n + 1)) {
                d->failed = true;
                return SIZE_MAX;
            }
            d->ring[n++] = x;
        }
    }
    return n;
}

static size_t live_faces_of(const sn_decimator *d, uint32_t v)
{
    size_t n = 0;
    for (uint32_t node = d->head[v]; node != SN_DRIVER_NONE; node = d->next[node]) n += d->tri_alive[node / 3];
    return n;
}

/* A vertex whose fan is not a closed disk (as many neighbours as triangles)
 * lies on a boundary, or is non-manifold: either way it is treated as a
 * boundary vertex. */
static bool on_boundary(sn_decimator *d, uint32_t v, size_t ring_count)
{
    return ring_count != live_faces_of(d, v);
}

static bool face_has(const uint32_t *t, uint32_t v)
{
    return t[0] == v || t[1] == v || t[2] == v;
}

/* Whether a live triangle of a's has both x and y. */
static bool has_face_with(const sn_decimator *d, uint32_t a, uint32_t x, uint32_t y)
{
    for (uint32_t node = d->head[a]; node != SN_DRIVER_NONE; node = d->next[node]) {
        const uint32_t *t = &d->tris[3 * (node / 3)];
        if (d->tri_alive[node / 3] && face_has(t, x) && face_has(t, y)) return true;
    }
    return false;
}

/* Link condition (Dey et al.): a and b may merge when their common
 * neighbours are exactly the apexes of the triangles on edge ab; the
 * triangles (a, c, d) and (b, c, d) must not both exist, else they become
 * one doubled triangle (a tetrahedron's last collapse). */
static bool topology_allows(sn_decimator *d, uint32_t a, uint32_t b, const uint32_t *apex, uint32_t k)
{
    size_t na = sn_driver_ring(d, a);
    if (na == SIZE_MAX) return false;
    bool boundary_a = on_boundary(d, a, na);
    uint32_t stamp_a = d->stamp;
    size_t nb = 0, common = 0;
    /* Count b's distinct neighbours and those a shares, re-stamping each once. */
    uint32_t stamp_b = ++d->stamp;
    for (uint32_t node = d->head[b]; node != SN_DRIVER_NONE; node = d->next[node]) {
        uint32_t t = node / 3;
        if (!d->tri_alive[t]) continue;
        for (int i = 0; i < 3; ++i) {
            uint32_t x = d->tris[3 * t + i];
            if (x == b || d->mark[x] == stamp_b || d->mark[x] == stamp_b + 1) continue;
            ++nb;
            if (x != a && d->mark[x] == stamp_a) d->mark[x] = stamp_b + 1, ++common;
            else d->mark[x] = stamp_b;
        }
    }
    ++d->stamp;
    bool boundary_b = nb != live_faces_of(d, b);
    if (common != k) return false;
    if (k == 2 && boundary_a && boundary_b) return false;  /* would pinch two boundaries together */
    if (k == 2 && has_face_with(d, a, apex[0], apex[1]) && has_face_with(d, b, apex[0], apex[1])) return false;
    return true;
}

static void triangle_normal(const float *p, const float *q, const float *r, double n[3])
{
    double u[3], v[3];
    for (int i = 0; i < 3; ++i) u[i] = (double)q[i] - p[i], v[i] = (double)r[i] - p[i];
    n[0] = u[1] * v[2] - u[2] * v[1];
    n[1] = u[2] * v[0] - u[0] * v[2];
    n[2] = u[0] * v[1] - u[1] * v[0];
}

/* Whether moving v to p (its partner `other` merging in) keeps every other
 * triangle of v's facing as it did, with area. */
static bool keeps_orientation(const sn_decimator *d, uint32_t v, uint32_t other, const float p[3])
{
    for (uint32_t node = d->head[v]; node != SN_DRIVER_NONE; node = d->next[node]) {
        uint32_t t = node / 3;
        const uint32_t *c = &d->tris[3 * t];
        if (!d->tri_alive[t] || face_has(c, other)) continue;
        const float *before[3], *after[3];
        for (int i = 0; i < 3; ++i) {
            before[i] = &d->pos[3 * (size_t)c[i]];
            after[i] = c[i] == v ? p : before[i];
        }
        double n0[3], n1[3];
        triangle_normal(before[0], before[1], before[2], n0);
        triangle_normal(after[0], after[1], after[2], n1);
        double l0 = sqrt(n0[0] * n0[0] + n0[1] * n0[1] + n0[2] * n0[2]);
        double l1 = sqrt(n1[0] * n1[0] + n1[1] * n1[1] + n1[2] * n1[2]);
        if (l0 == 0) continue;  /* a skin triangle with no area sets no orientation */
        if (!(n0[0] * n1[0] + n0[1] * n1[1] + n0[2] * n1[2] > SN_DRIVER_MIN_NORMAL_COS * l0 * l1) || l1 == 0)
            return false;
    }
    return true;
}

/* The candidate positions (quadric minimum, midpoint, a, b) and the one of
 * least quadric error, the first of equals: where every position is free (a
 * flat or straight stretch) the midpoint keeps the vertices evenly spread. */
static double best_position(const sn_decimator *d, const sn_quadric *q, uint32_t a, uint32_t b, float out[3])
{
    const float *pa = &d->pos[3 * (size_t)a], *pb = &d->pos[3 * (size_t)b];
    double cand[4][3], len2 = 0;
    int n = 0;
    double mid[3];
    for (int i = 0; i < 3; ++i) {
        mid[i] = 0.5 * ((double)pa[i] + pb[i]);
        len2 += ((double)pa[i] - pb[i]) * ((double)pa[i] - pb[i]);
    }
    if (quadric_minimum(q, cand[0])) {
        double off2 = 0;
        for (int i = 0; i < 3; ++i) off2 += (cand[0][i] - mid[i]) * (cand[0][i] - mid[i]);
        if (off2 <= SN_DRIVER_PLACEMENT_REACH * SN_DRIVER_PLACEMENT_REACH * len2) n = 1;
    }
    for (int i = 0; i < 3; ++i) cand[n][i] = mid[i], cand[n + 1][i] = pa[i], cand[n + 2][i] = pb[i];
    n += 3;
    double best = INFINITY;
    for (int c = 0; c < n; ++c) {
        /* Evaluated at the float position the driver will hold. */
        float f[3] = {(float)cand[c][0], (float)cand[c][1], (float)cand[c][2]};
        double fp[3] = {f[0], f[1], f[2]};
        double e = quadric_eval(q, fp);
        if (e < best) best = e, memcpy(out, f, sizeof f);
    }
    return best;
}

bool sn_driver_evaluate(sn_decimator *d, uint32_t a, uint32_t b, sn_collapse *c)
{
    uint32_t apex[2], k = 0;
    for (uint32_t node = d->head[a]; node != SN_DRIVER_NONE; node = d->next[node]) {
        uint32_t t = node / 3;
        const uint32_t *tri = &d->tris[3 * t];
        if (!d->tri_alive[t] || !face_has(tri, b)) continue;
        if (k == 2) return false;  /* an edge of three or more triangles stays */
        for (int i = 0; i < 3; ++i)
            if (tri[i] != a && tri[i] != b) apex[k] = tri[i];
        ++k;
    }
    if (k == 0 || d->live_tris <= k) return false;
    if (!topology_allows(d, a, b, apex, k)) return false;
    sn_quadric q = d->quadric[a];
    sn_quadric_add(&q, &d->quadric[b]);
    double err = best_position(d, &q, a, b, c->p);
    if (!keeps_orientation(d, a, b, c->p) || !keeps_orientation(d, b, a, c->p)) return false;
    const float *pa = &d->pos[3 * (size_t)a], *pb = &d->pos[3 * (size_t)b];
    double len2 = 0;
    for (int i = 0; i < 3; ++i) len2 += ((double)pa[i] - pb[i]) * ((double)pa[i] - pb[i]);
    double factor = d->factor[a] > d->factor[b] ? d->factor[a] : d->factor[b];
    c->cost = (err + d->length_weight * len2 * len2) * factor;
    c->rms = q.area > 0 ? sqrt(err / q.area) : 0.0;
    c->a = a, c->b = b;
    c->version_a = d->version[a], c->version_b = d->version[b];
    c->removes = k;
    return true;
}
