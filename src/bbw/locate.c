/*
 * Point location: a uniform grid whose cells list the elements whose boxes
 * overlap them, sized so a cell holds a handful of elements.
 */
#include <math.h>
#include <string.h>

#include "bbw/bbw_internal.h"

/* Barycentric slack for "inside": shared faces must not let a point fall
 * between two elements through rounding. */
#define SN_BBW_INSIDE_EPS 1e-9

/* Locator cell edge relative to the edge of a cube of the mean element
 * measure (tuned for the time of top_k at a rig's mesh vertices). */
#define SN_BBW_LOCATOR_CELL 1.0

void sn_bbw_locator_free(sinew_bbw *b)
{
    sn_free(&b->env, b->locator.cell_start);
    sn_free(&b->env, b->locator.items);
    sn_free(&b->env, b->locator.boxes);
    sn_free(&b->env, b->locator.gradients);
    memset(&b->locator, 0, sizeof b->locator);
}

static void element_box(const sinew_bbw *b, size_t e, double lo[3], double hi[3])
{
    for (int a = 0; a < 3; ++a) {
        lo[a] = INFINITY;
        hi[a] = -INFINITY;
    }
    for (uint32_t k = 0; k < b->per; ++k) {
        const double *p = b->positions + 3 * (size_t)b->elements[e * b->per + k];
        for (int a = 0; a < 3; ++a) {
            if (p[a] < lo[a]) lo[a] = p[a];
            if (p[a] > hi[a]) hi[a] = p[a];
        }
    }
}

static uint32_t cell_coord(const sn_bbw_locator *g, double x, int a)
{
    double c = floor((x - g->origin[a]) / g->cell);
    if (c < 0) return 0;
    if (c >= g->dims[a]) return g->dims[a] - 1;
    return (uint32_t)c;
}

sinew_result sn_bbw_locator_build(sinew_bbw *b)
{
    sn_bbw_locator *g = &b->locator;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < b->vertex_count; ++i)
        for (int a = 0; a < 3; ++a) {
            if (b->positions[3 * i + a] < lo[a]) lo[a] = b->positions[3 * i + a];
            if (b->positions[3 * i + a] > hi[a]) hi[a] = b->positions[3 * i + a];
        }
    double measure = 1.0;
    for (uint32_t a = 0; a < b->dim; ++a) measure *= fmax(hi[a] - lo[a], 1e-12 * b->scale);
    g->cell = SN_BBW_LOCATOR_CELL * pow(measure / (double)b->element_count, 1.0 / b->dim);
    /* At most 256 cells per axis: enough for the meshes a bind sees, and the
     * cell count stays small next to the elements. */
    for (uint32_t a = 0; a < b->dim; ++a) g->cell = fmax(g->cell, (hi[a] - lo[a]) / 256.0);
    size_t cells = 1;
    for (int a = 0; a < 3; ++a) {
        g->origin[a] = lo[a];
        g->dims[a] = a < (int)b->dim ? (uint32_t)floor((hi[a] - lo[a]) / g->cell) + 1 : 1;
        cells *= g->dims[a];
    }
    g->cell_start = sn_calloc_array(&b->env, cells + 1, sizeof(size_t), "locator cells");
    g->boxes = sn_alloc_array(&b->env, b->element_count, 6 * sizeof(float), "locator boxes");
    g->gradients = sn_alloc_array(&b->env, b->element_count, SN_BBW_AFFINE * sizeof(double), "locator gradients");
    if (!g->cell_start || !g->boxes || !g->gradients) return sn_alloc_failure();
    for (size_t e = 0; e < b->element_count; ++e) {
        double grad[4][3], measure;
        sn_bbw_element_gradients(b, e, grad, &measure); /* create refused degenerate elements */
        memcpy(g->gradients + SN_BBW_AFFINE * e, grad[1], 9 * sizeof(double));
        memcpy(g->gradients + SN_BBW_AFFINE * e + 9, b->positions + 3 * (size_t)b->elements[e * b->per],
               3 * sizeof(double));
    }
    for (size_t e = 0; e < b->element_count; ++e) {
        double elo[3], ehi[3];
        element_box(b, e, elo, ehi);
        for (int a = 0; a < 3; ++a) {
            float lo = (float)elo[a], hi = (float)ehi[a];
            g->boxes[6 * e + a] = (double)lo > elo[a] ? nextafterf(lo, -INFINITY) : lo;
            g->boxes[6 * e + 3 + a] = (double)hi < ehi[a] ? nextafterf(hi, INFINITY) : hi;
        }
    }
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t e = 0; e < b->element_count; ++e) {
            double elo[3], ehi[3];
            element_box(b, e, elo, ehi);
            uint32_t c0[3], c1[3];
            for (int a = 0; a < 3; ++a) {
                c0[a] = cell_coord(g, elo[a], a);
                c1[a] = cell_coord(g, ehi[a], a);
            }
            for (uint32_t z = c0[2]; z <= c1[2]; ++z)
                for (uint32_t y = c0[1]; y <= c1[1]; ++y)
                    for (uint32_t x = c0[0]; x <= c1[0]; ++x) {
                        size_t c = ((size_t)z * g->dims[1] + y) * g->dims[0] + x;
                        if (pass == 0) g->cell_start[c + 1]++;
                        else g->items[g->cell_start[c]++] = (uint32_t)e;
                    }
        }
        if (pass == 0) {
            for (size_t c = 0; c < cells; ++c) g->cell_start[c + 1] += g->cell_start[c];
            g->items = sn_alloc_array(&b->env, g->cell_start[cells], sizeof(uint32_t), "locator items");
            if (!g->items) return sn_alloc_failure();
        } else {
            /* The fill advanced each start to the next cell's; shift back. */
            memmove(g->cell_start + 1, g->cell_start, cells * sizeof(size_t));
            g->cell_start[0] = 0;
        }
    }
    return SINEW_OK;
}

/* Barycentric coordinates of q in element e, from its stored gradients
 * (unused ones are zero in 2D, where q's z is 0 too). */
static inline void sn_bbw_barycentric(const sinew_bbw *b, size_t e, const double q[3], double bary[4])
{
    const double *grad = b->locator.gradients + SN_BBW_AFFINE * e, *p0 = grad + 9;
    double d[3] = {q[0] - p0[0], q[1] - p0[1], q[2] - p0[2]};
    double rest = 1.0;
    for (uint32_t k = 0; k < 3; ++k) {
        bary[k + 1] = grad[3 * k] * d[0] + grad[3 * k + 1] * d[1] + grad[3 * k + 2] * d[2];
        rest -= bary[k + 1];
    }
    bary[0] = rest;
}

/* Elements the nearest-element search remembers having looked at, so one
 * listed in several of the cells it scans is weighed once; past that many it
 * weighs repeats again (the same answer, more work). A power of two. */
#define SN_BBW_SEEN_SLOTS 512

/* The nearest-element search's state: the best element so far, its
 * squared distance and the barycentric coordinates of its nearest point. */
typedef struct nearest_search {
    const sinew_bbw *b;
    const double *p;
    double best_d2;
    size_t best;
    double bary[4];
    size_t seen_count;
    uint32_t seen[SN_BBW_SEEN_SLOTS]; /* element + 1, 0 = free */
} nearest_search;

/* Whether e was seen before (and remembers it). */
static bool seen_before(nearest_search *n, uint32_t e)
{
    if (n->seen_count >= SN_BBW_SEEN_SLOTS / 2) return false;
    uint32_t h = (e * 2654435761u) & (SN_BBW_SEEN_SLOTS - 1);
    while (n->seen[h]) {
        if (n->seen[h] == e + 1) return true;
        h = (h + 1) & (SN_BBW_SEEN_SLOTS - 1);
    }
    n->seen[h] = e + 1;
    ++n->seen_count;
    return false;
}

/* Squared distance from p to element e's bounding box: a lower bound of the
 * distance to any of its points. */
static double box_distance2(const sn_bbw_locator *g, size_t e, const double p[3])
{
    const float *box = g->boxes + 6 * e;
    double d2 = 0.0;
    for (int a = 0; a < 3; ++a) {
        double lo = box[a], hi = box[3 + a];
        double d = p[a] < lo ? lo - p[a] : p[a] > hi ? p[a] - hi : 0.0;
        d2 += d * d;
    }
    return d2;
}

/* The element's point given by clamping p's barycentric coordinates to the
 * element and renormalising; it replaces the best when at least as near. */
static void consider(nearest_search *n, uint32_t e)
{
    const sinew_bbw *b = n->b;
    if (box_distance2(&b->locator, e, n->p) > n->best_d2 || seen_before(n, e)) return;
    double t[4], sum = 0.0;
    sn_bbw_barycentric(b, e, n->p, t);
    for (uint32_t i = 0; i < b->per; ++i) {
        t[i] = fmax(t[i], 0.0);
        sum += t[i];
    }
    double x3[3] = {0, 0, 0};
    for (uint32_t i = 0; i < b->per; ++i) {
        t[i] /= sum;
        const double *v = b->positions + 3 * (size_t)b->elements[e * b->per + i];
        for (int a = 0; a < 3; ++a) x3[a] += t[i] * v[a];
    }
    double d2 = 0.0;
    for (int a = 0; a < 3; ++a) d2 += (x3[a] - n->p[a]) * (x3[a] - n->p[a]);
    if (d2 <= n->best_d2) {
        n->best_d2 = d2;
        n->best = e;
        memcpy(n->bary, t, sizeof t);
    }
}

/* Squared distance from p to cell (x, y, z)'s box. */
static double cell_distance2(const sn_bbw_locator *g, const double p[3], const int64_t c[3])
{
    double d2 = 0.0;
    for (int a = 0; a < 3; ++a) {
        double lo = g->origin[a] + (double)c[a] * g->cell, hi = lo + g->cell;
        double d = p[a] < lo ? lo - p[a] : p[a] > hi ? p[a] - hi : 0.0;
        d2 += d * d;
    }
    return d2;
}

/* Considers the elements of cell c unless the cell lies farther than the
 * best so far (then so does every element's point inside it). */
static void scan_cell(nearest_search *n, const int64_t c[3])
{
    const sn_bbw_locator *g = &n->b->locator;
    for (int a = 0; a < 3; ++a)
        if (c[a] < 0 || c[a] >= (int64_t)g->dims[a]) return;
    if (cell_distance2(g, n->p, c) > n->best_d2) return;
    size_t cell = ((size_t)c[2] * g->dims[1] + (size_t)c[1]) * g->dims[0] + (size_t)c[0];
    for (size_t k = g->cell_start[cell]; k < g->cell_start[cell + 1]; ++k) consider(n, g->items[k]);
}

/* The nearest element within the search's distance: cells in shells of
 * growing Chebyshev distance s from the point's own cell. The element whose
 * clamped point is nearest holds that point in its box, so it is listed in
 * the cell containing the point; every cell of shell s lies at least (s - 1)
 * cells from the point (also when the point is off the grid and its own cell
 * is the clamped one), so the shells stop once that exceeds the best
 * distance found. */
static void scan_shells(nearest_search *n, const uint32_t home[3])
{
    const sn_bbw_locator *g = &n->b->locator;
    int64_t most = 1;
    for (int a = 0; a < 3; ++a) most = g->dims[a] > most ? (int64_t)g->dims[a] : most;
    for (int64_t s = 0; s <= most; ++s) {
        if (s >= 1 && (double)(s - 1) * g->cell > sqrt(n->best_d2)) break;
        int64_t z0 = -s > -(int64_t)home[2] ? -s : -(int64_t)home[2];
        int64_t z1 = s < (int64_t)g->dims[2] - 1 - home[2] ? s : (int64_t)g->dims[2] - 1 - home[2];
        for (int64_t dz = z0; dz <= z1; ++dz)
            for (int64_t dy = -s; dy <= s; ++dy) {
                /* Rows inside the shell's faces hold only its two ends. */
                int64_t step = (dz == -s || dz == s || dy == -s || dy == s) ? 1 : 2 * s;
                for (int64_t dx = -s; dx <= s; dx += step) {
                    int64_t c[3] = {(int64_t)home[0] + dx, (int64_t)home[1] + dy, (int64_t)home[2] + dz};
                    scan_cell(n, c);
                }
            }
    }
}

size_t sn_bbw_locate(const sinew_bbw *b, const double q[3], double max_distance, double bary[4])
{
    const sn_bbw_locator *g = &b->locator;
    double p[3] = {q[0], q[1], b->dim == 3 ? q[2] : 0.0};
    int inside_grid = 1;
    for (int a = 0; a < (int)b->dim; ++a) {
        double c = (p[a] - g->origin[a]) / g->cell;
        if (c < -1e-9 || c > g->dims[a] + 1e-9) inside_grid = 0;
    }
    uint32_t home[3];
    for (int a = 0; a < 3; ++a) home[a] = cell_coord(g, p[a], a);
    if (inside_grid) {
        size_t c = ((size_t)home[2] * g->dims[1] + home[1]) * g->dims[0] + home[0];
        for (size_t k = g->cell_start[c]; k < g->cell_start[c + 1]; ++k) {
            /* The box (a sixth of the data) rejects most of a crowded cell;
             * its outward rounding keeps every point the slack admits. */
            if (box_distance2(g, g->items[k], p) > 0.0) continue;
            double t[4];
            sn_bbw_barycentric(b, g->items[k], p, t);
            double lowest = t[0];
            for (uint32_t i = 1; i < b->per; ++i) lowest = fmin(lowest, t[i]);
            if (lowest >= -SN_BBW_INSIDE_EPS) {
                memcpy(bary, t, sizeof t);
                return g->items[k];
            }
        }
    }
    if (!(max_distance > 0.0)) return SIZE_MAX;
    nearest_search n;
    memset(&n, 0, sizeof n);
    n.b = b, n.p = p, n.best_d2 = max_distance * max_distance, n.best = SIZE_MAX;
    scan_shells(&n, home);
    if (n.best != SIZE_MAX) memcpy(bary, n.bary, sizeof n.bary);
    return n.best;
}

/* An element's clamped point is a convex combination of its corners, so it
 * lies no farther from q than its farthest corner: a corner set within the
 * distance (with a margin for rounding) proves the search finds something. */
#define SN_BBW_CERTAIN_MARGIN 0.98

bool sn_bbw_locate_certain(const sinew_bbw *b, const double q[3], double max_distance)
{
    const sn_bbw_locator *g = &b->locator;
    double p[3] = {q[0], q[1], b->dim == 3 ? q[2] : 0.0};
    size_t c = 0;
    for (int a = 2; a >= 0; --a) c = c * g->dims[a] + cell_coord(g, p[a], a);
    if (g->cell_start[c] == g->cell_start[c + 1]) return false;
    size_t e = g->items[g->cell_start[c]];
    double far2 = 0.0;
    for (uint32_t k = 0; k < b->per; ++k) {
        const double *v = b->positions + 3 * (size_t)b->elements[e * b->per + k];
        double d2 = 0.0;
        for (int a = 0; a < 3; ++a) d2 += (v[a] - p[a]) * (v[a] - p[a]);
        far2 = fmax(far2, d2);
    }
    return far2 <= SN_BBW_CERTAIN_MARGIN * max_distance * max_distance;
}
