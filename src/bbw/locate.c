/*
 * Point location: a uniform grid whose cells list the elements whose boxes
 * overlap them, sized so a cell holds a handful of elements on average, with
 * crowded cells split again into subcells for the containment test; then
 * the nearest-element search for points outside.
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
    sn_free(&b->env, b->locator.sub_res);
    sn_free(&b->env, b->locator.sub_first);
    sn_free(&b->env, b->locator.sub_start);
    sn_free(&b->env, b->locator.sub_items);
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

/* A cell listing more elements than this is split for the containment test,
 * into about SN_BBW_SUBCELL_ITEMS per subcell (tuned for top_k at points
 * inside a graded volume, whose cells near the bones list ~100 elements);
 * at most SN_BBW_SUBCELL_MAX per axis. */
#define SN_BBW_CROWDED 16
#define SN_BBW_SUBCELL_ITEMS 8.0
#define SN_BBW_SUBCELL_MAX 12

/* Subcell coordinate of x along an axis in a cell starting at lo there,
 * split s times per axis. */
static uint32_t sub_coord(const sn_bbw_locator *g, double x, double lo, uint32_t s)
{
    double c = floor((x - lo) / (g->cell / s));
    if (c < 0) return 0;
    if (c >= s) return s - 1;
    return (uint32_t)c;
}

/* The list of cell c (at coordinates cc) to test p against: the subcell's
 * holding p when c is split. */
static const uint32_t *cell_list(const sn_bbw_locator *g, uint32_t dim, size_t c, const uint32_t cc[3],
                                 const double p[3], size_t *count)
{
    uint32_t s = g->sub_res[c];
    if (s <= 1) {
        *count = g->cell_start[c + 1] - g->cell_start[c];
        return g->items + g->cell_start[c];
    }
    size_t i = 0;
    for (int a = (int)dim - 1; a >= 0; --a)
        i = i * s + sub_coord(g, p[a], g->origin[a] + (double)cc[a] * g->cell, s);
    size_t k = g->sub_first[c] + i;
    *count = g->sub_start[k + 1] - g->sub_start[k];
    return g->sub_items + g->sub_start[k];
}

/* Splits the crowded cells (see SN_BBW_CROWDED): each element of such a
 * cell goes to the subcells its box overlaps, in the cell's order. */
static sinew_result build_subgrids(sinew_bbw *b)
{
    sn_bbw_locator *g = &b->locator;
    size_t cells = (size_t)g->dims[0] * g->dims[1] * g->dims[2], subcells = 0;
    g->sub_res = sn_calloc_array(&b->env, cells, 1, "locator subcell resolutions");
    g->sub_first = sn_calloc_array(&b->env, cells, sizeof(uint32_t), "locator subcells");
    if (!g->sub_res || !g->sub_first) return sn_alloc_failure();
    for (size_t c = 0; c < cells; ++c) {
        size_t n = g->cell_start[c + 1] - g->cell_start[c];
        if (n <= SN_BBW_CROWDED) continue;
        double s = ceil(pow((double)n / SN_BBW_SUBCELL_ITEMS, 1.0 / b->dim));
        g->sub_res[c] = (uint8_t)fmin(s, SN_BBW_SUBCELL_MAX);
        size_t block = 1;
        for (uint32_t a = 0; a < b->dim; ++a) block *= g->sub_res[c];
        if (subcells + block > UINT32_MAX) return sn_fail(SINEW_ERROR_OUT_OF_MEMORY, "locator: too many subcells");
        g->sub_first[c] = (uint32_t)subcells;
        subcells += block;
    }
    g->sub_start = sn_calloc_array(&b->env, subcells + 1, sizeof(size_t), "locator subcell starts");
    if (!g->sub_start) return sn_alloc_failure();
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t c = 0; c < cells; ++c) {
            uint32_t s = g->sub_res[c];
            if (s <= 1) continue;
            uint32_t cc[3] = {(uint32_t)(c % g->dims[0]), (uint32_t)(c / g->dims[0] % g->dims[1]),
                              (uint32_t)(c / g->dims[0] / g->dims[1])};
            for (size_t k = g->cell_start[c]; k < g->cell_start[c + 1]; ++k) {
                double elo[3], ehi[3];
                element_box(b, g->items[k], elo, ehi);
                uint32_t c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0};
                for (uint32_t a = 0; a < b->dim; ++a) {
                    double lo = g->origin[a] + (double)cc[a] * g->cell;
                    c0[a] = sub_coord(g, elo[a], lo, s);
                    c1[a] = sub_coord(g, ehi[a], lo, s);
                }
                for (uint32_t z = c0[2]; z <= c1[2]; ++z)
                    for (uint32_t y = c0[1]; y <= c1[1]; ++y)
                        for (uint32_t x = c0[0]; x <= c1[0]; ++x) {
                            size_t i = g->sub_first[c] + ((size_t)z * s + y) * s + x;
                            if (pass == 0) g->sub_start[i + 1]++;
                            else g->sub_items[g->sub_start[i]++] = g->items[k];
                        }
            }
        }
        if (pass == 0) {
            for (size_t i = 0; i < subcells; ++i) g->sub_start[i + 1] += g->sub_start[i];
            if (subcells == 0) break; /* no crowded cell */
            g->sub_items = sn_alloc_array(&b->env, g->sub_start[subcells], sizeof(uint32_t), "locator subcell items");
            if (!g->sub_items) return sn_alloc_failure();
        } else {
            memmove(g->sub_start + 1, g->sub_start, subcells * sizeof(size_t));
            g->sub_start[0] = 0;
        }
    }
    return SINEW_OK;
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
    return build_subgrids(b);
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
    size_t tested; /* elements whose coordinates were computed */
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

/* Squared distance from p to element e's point given by clamping p's
 * barycentric coordinates to the element and renormalising (those in t). */
static double clamped_distance2(const sinew_bbw *b, size_t e, const double p[3], double t[4])
{
    double sum = 0.0;
    sn_bbw_barycentric(b, e, p, t);
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
    for (int a = 0; a < 3; ++a) d2 += (x3[a] - p[a]) * (x3[a] - p[a]);
    return d2;
}

/* The element's clamped point replaces the best when at least as near. */
static void consider(nearest_search *n, uint32_t e)
{
    const sinew_bbw *b = n->b;
    if (box_distance2(&b->locator, e, n->p) > n->best_d2 || seen_before(n, e)) return;
    double t[4], d2 = clamped_distance2(b, e, n->p, t);
    ++n->tested;
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
    return sn_bbw_locate_with(b, q, max_distance, SIZE_MAX, true, bary, NULL);
}

/* The first element in the list holding p (with the slack), SIZE_MAX if none. */
static size_t first_holding(const sinew_bbw *b, const uint32_t *list, size_t n, const double p[3], double bary[4],
                            size_t *tested)
{
    for (size_t k = 0; k < n; ++k) {
        /* The box (a sixth of the data) rejects most of a crowded cell;
         * its outward rounding keeps every point the slack admits. */
        if (box_distance2(&b->locator, list[k], p) > 0.0) continue;
        double t[4];
        sn_bbw_barycentric(b, list[k], p, t);
        ++*tested;
        double lowest = t[0];
        for (uint32_t i = 1; i < b->per; ++i) lowest = lowest < t[i] ? lowest : t[i];
        if (lowest >= -SN_BBW_INSIDE_EPS) {
            memcpy(bary, t, sizeof t);
            return list[k];
        }
    }
    return SIZE_MAX;
}

/* The search behind sn_bbw_locate_with: quick uses the split cells and the hint. */
static size_t locate(const sinew_bbw *b, const double q[3], double max_distance, size_t hint, bool quick,
                     double bary[4], size_t *tested)
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
        /* A subcell lists, in the same order, the cell's elements whose
         * boxes reach it: the same first holder. */
        size_t c = ((size_t)home[2] * g->dims[1] + home[1]) * g->dims[0] + home[0], n;
        const uint32_t *list = quick ? cell_list(g, b->dim, c, home, p, &n) : g->items + g->cell_start[c];
        if (!quick) n = g->cell_start[c + 1] - g->cell_start[c];
        size_t e = first_holding(b, list, n, p, bary, tested);
        if (e != SIZE_MAX) return e;
    }
    if (!(max_distance > 0.0)) return SIZE_MAX;
    /* The nearest element: the one the shells over the cells find, in
     * their order when several are equally near. The hint (a nearby point's
     * element) only tightens the bound they start from: it is not marked
     * seen, so the shells weigh it again in their order and the answer is
     * the one they give without it. */
    nearest_search n;
    memset(&n, 0, sizeof n);
    n.b = b, n.p = p, n.best_d2 = max_distance * max_distance, n.best = SIZE_MAX;
    if (quick && hint < b->element_count) {
        double t[4], d2 = clamped_distance2(b, hint, p, t);
        ++n.tested;
        if (d2 <= n.best_d2) {
            n.best_d2 = d2;
            n.best = hint;
            memcpy(n.bary, t, sizeof t);
        }
    }
    scan_shells(&n, home);
    *tested += n.tested;
    if (n.best != SIZE_MAX) memcpy(bary, n.bary, sizeof n.bary);
    return n.best;
}

size_t sn_bbw_locate_with(const sinew_bbw *b, const double q[3], double max_distance, size_t hint, bool quick,
                          double bary[4], size_t *tested)
{
    size_t count = 0;
    size_t e = locate(b, q, max_distance, hint, quick, bary, &count);
    if (tested) *tested = count;
    return e;
}

/* An element's clamped point is a convex combination of its corners, so it
 * lies no farther from q than its farthest corner: a corner set within the
 * distance (with a margin for rounding) proves the search finds something;
 * so does a hint whose clamped point lies within it. */
#define SN_BBW_CERTAIN_MARGIN 0.98

bool sn_bbw_locate_certain(const sinew_bbw *b, const double q[3], double max_distance, size_t *hint)
{
    const sn_bbw_locator *g = &b->locator;
    double p[3] = {q[0], q[1], b->dim == 3 ? q[2] : 0.0};
    size_t c = 0;
    for (int a = 2; a >= 0; --a) c = c * g->dims[a] + cell_coord(g, p[a], a);
    if (g->cell_start[c] < g->cell_start[c + 1]) {
        size_t e = g->items[g->cell_start[c]];
        double far2 = 0.0;
        for (uint32_t k = 0; k < b->per; ++k) {
            const double *v = b->positions + 3 * (size_t)b->elements[e * b->per + k];
            double d2 = 0.0;
            for (int a = 0; a < 3; ++a) d2 += (v[a] - p[a]) * (v[a] - p[a]);
            far2 = fmax(far2, d2);
        }
        if (far2 <= SN_BBW_CERTAIN_MARGIN * max_distance * max_distance) {
            *hint = e;
            return true;
        }
    }
    double t[4];
    return *hint < b->element_count &&
           clamped_distance2(b, *hint, p, t) <= SN_BBW_CERTAIN_MARGIN * max_distance * max_distance;
}
