/* B-spline basis of one lattice axis: knot spans, Cox-de Boor values and
 * derivatives, Greville abscissae, the outside policy, and Bernstein
 * coefficients of a span's basis on a sub-interval (by blossoming). */
#include <math.h>
#include <string.h>

#include "lattice/lattice_internal.h"

uint32_t sn_lat_span(const sn_lat_axis *axis, double x)
{
    double cell = floor(x * (double)axis->cells);
    if (!(cell > 0.0)) cell = 0.0; /* also catches NaN */
    if (cell > (double)(axis->cells - 1)) cell = (double)(axis->cells - 1);
    uint32_t s = axis->degree + (uint32_t)cell;
    /* The product can round across a knot; settle on the span that holds x. */
    const double *t = axis->knots;
    while (s > axis->degree && x < t[s]) --s;
    while (s + 1 < axis->count && x >= t[s + 1]) ++s;
    return s;
}

/* Values (and derivatives when deriv is not NULL) of the order nonzero basis
 * functions of span s at x. */
static void sn_lat_basis_funs(const sn_lat_axis *axis, uint32_t s, double x, double *value, double *deriv)
{
    const double *t = axis->knots;
    const uint32_t p = axis->degree;
    double left[SN_LAT_MAX_ORDER], right[SN_LAT_MAX_ORDER];
    double lower[SN_LAT_MAX_ORDER]; /* degree p - 1 values, for the derivative */
    value[0] = 1.0;
    lower[0] = 1.0;
    for (uint32_t j = 1; j <= p; ++j) {
        if (deriv && j == p)
            for (uint32_t q = 0; q < p; ++q) lower[q] = value[q];
        left[j] = x - t[s + 1 - j];
        right[j] = t[s + j] - x;
        double saved = 0.0;
        for (uint32_t r = 0; r < j; ++r) {
            double temp = value[r] / (right[r + 1] + left[j - r]);
            value[r] = saved + right[r + 1] * temp;
            saved = left[j - r] * temp;
        }
        value[j] = saved;
    }
    if (!deriv) return;
    if (p == 0) {
        deriv[0] = 0.0;
        return;
    }
    /* B'_{i,p} = p (B_{i,p-1} / (t_{i+p} - t_i) - B_{i+1,p-1} / (t_{i+p+1} - t_{i+1})),
     * with i = s - p + r; lower[q] holds B_{s-p+1+q, p-1}. */
    for (uint32_t r = 0; r <= p; ++r) {
        uint32_t i = s - p + r;
        double d = 0.0;
        if (r >= 1) d += lower[r - 1] / (t[i + p] - t[i]);
        if (r < p) d -= lower[r] / (t[i + p + 1] - t[i + 1]);
        deriv[r] = (double)p * d;
    }
}

void sn_lat_axis_basis(const sinew_lattice *lat, int a, double x, bool want_deriv, sn_lat_basis *out)
{
    const sn_lat_axis *axis = &lat->axis[a];
    const uint32_t o = axis->order;
    bool outside = !(x >= 0.0 && x <= 1.0);
    out->leave = false;
    if (!outside) {
        uint32_t s = sn_lat_span(axis, x);
        out->first = s - axis->degree;
        /* Callers read deriv only when they asked for it. */
        sn_lat_basis_funs(axis, s, x, out->value, want_deriv ? out->deriv : NULL);
        return;
    }
    double c = x < 0.0 ? 0.0 : 1.0;
    uint32_t s = sn_lat_span(axis, c);
    out->first = s - axis->degree;
    sn_lat_basis_funs(axis, s, c, out->value, out->deriv);
    switch (lat->outside) {
    case SINEW_LATTICE_OUTSIDE_LEAVE:
        out->leave = true;
        break;
    case SINEW_LATTICE_OUTSIDE_CLAMP:
        for (uint32_t r = 0; r < o; ++r) out->deriv[r] = 0.0;
        break;
    case SINEW_LATTICE_OUTSIDE_EXTEND:
        for (uint32_t r = 0; r < o; ++r) out->value[r] += (x - c) * out->deriv[r];
        break;
    }
}

void sn_lat_axis_ends(sn_lat_axis *axis)
{
    for (int end = 0; end < 2; ++end) {
        uint32_t s = sn_lat_span(axis, (double)end);
        sn_lat_basis_funs(axis, s, (double)end, axis->end_value[end], axis->end_deriv[end]);
        for (uint32_t r = 0; r < axis->order; ++r) axis->end_deriv_f[end][r] = (float)axis->end_deriv[end][r];
    }
}

/* 1 / k for the integer knot distances of the uniform recurrence below. */
static const double sn_lat_reciprocal[SN_LAT_MAX_ORDER] = {0.0, 1.0, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 6,
                                                           1.0 / 7};

/* The recurrence below for degree p; inlined with a constant p it unrolls. */
static inline __attribute__((always_inline)) void basis_uniform_degree(uint32_t p, uint32_t c, uint32_t room,
                                                                       double t, double *value)
{
    double left[SN_LAT_MAX_ORDER], right[SN_LAT_MAX_ORDER];
    value[0] = 1.0;
    for (uint32_t j = 1; j <= p; ++j) {
        left[j] = t + (double)(j - 1 < c ? j - 1 : c);
        right[j] = (double)(j < room ? j : room) - t;
        double saved = 0.0;
        for (uint32_t r = 0; r < j; ++r) {
            uint32_t a = r + 1 < room ? r + 1 : room, b = j - r - 1 < c ? j - r - 1 : c;
            double temp = value[r] * sn_lat_reciprocal[a + b];
            value[r] = saved + right[r + 1] * temp;
            saved = left[j - r] * temp;
        }
        value[j] = saved;
    }
}

/* The cell of x in [0, 1] as the fillers find it: floor(x cells), the last
 * cell for x = 1. */
static uint32_t sn_lat_uniform_cell(const sn_lat_axis *axis, double x)
{
    const double y = x * (double)axis->cells;
    /* y >= 0 here: truncation is the floor */
    const uint32_t c = y > 0.0 ? (uint32_t)y : 0u;
    return c > axis->cells - 1 ? axis->cells - 1 : c;
}

void sn_lat_uniform_derivs(const sinew_lattice *lat, int a, double x, double *deriv)
{
    const sn_lat_axis *axis = &lat->axis[a];
    if (x >= 0.0 && x <= 1.0) {
        double value[SN_LAT_MAX_ORDER];
        sn_lat_basis_funs(axis, sn_lat_uniform_cell(axis, x) + axis->degree, x, value, deriv);
        return;
    }
    /* Outside, as the fillers continue the end's basis (LEAVE reads none). */
    const int end = x > 1.0;
    for (uint32_t r = 0; r < axis->order; ++r)
        deriv[r] = lat->outside == SINEW_LATTICE_OUTSIDE_CLAMP ? 0.0 : axis->end_deriv[end][r];
}

uint32_t sn_lat_basis_uniform(const sn_lat_axis *axis, double x, double *value)
{
    /* In units of one knot span, the knots of a clamped uniform axis are
     * clamp(i - p, 0, cells): with x = (c + t) / cells in cell c, Cox-de
     * Boor's left and right distances are t + min(j - 1, c) and
     * min(j, cells - c) - t, and their sums are whole numbers of spans. */
    const uint32_t cells = axis->cells;
    const uint32_t c = sn_lat_uniform_cell(axis, x);
    const double t = x * (double)cells - (double)c;
    switch (axis->degree) { /* orders 2..4 unrolled, cubic the common case */
    case 1: basis_uniform_degree(1, c, cells - c, t, value); break;
    case 2: basis_uniform_degree(2, c, cells - c, t, value); break;
    case 3: basis_uniform_degree(3, c, cells - c, t, value); break;
    default: basis_uniform_degree(axis->degree, c, cells - c, t, value); break;
    }
    return c;
}

double sn_lat_greville(const sn_lat_axis *axis, uint32_t i)
{
    double sum = 0.0;
    for (uint32_t k = 1; k <= axis->degree; ++k) sum += axis->knots[i + k];
    return sum / (double)axis->degree;
}

void sn_lat_bernstein_of_span(const sn_lat_axis *axis, uint32_t s, double x0, double x1, double *coef)
{
    const double *t = axis->knots;
    const uint32_t p = axis->degree, o = axis->order;
    /* Bernstein coefficient m on [x0, x1] is the blossom at (x0 repeated p - m
     * times, x1 repeated m times). De Boor's algorithm with a different
     * argument per level evaluates the blossom; running it on unit control
     * values gives every basis function at once: d[q][r] is the weight of
     * function s - p + r in de Boor point q. */
    for (uint32_t m = 0; m <= p; ++m) {
        double d[SN_LAT_MAX_ORDER][SN_LAT_MAX_ORDER];
        for (uint32_t q = 0; q <= p; ++q)
            for (uint32_t r = 0; r <= p; ++r) d[q][r] = q == r ? 1.0 : 0.0;
        for (uint32_t level = 1; level <= p; ++level) {
            double x = level <= p - m ? x0 : x1;
            for (uint32_t q = p; q >= level; --q) {
                uint32_t i = s - p + q;
                double alpha = (x - t[i]) / (t[i + p + 1 - level] - t[i]);
                for (uint32_t r = 0; r <= p; ++r) d[q][r] = (1.0 - alpha) * d[q - 1][r] + alpha * d[q][r];
            }
        }
        for (uint32_t r = 0; r < o; ++r) coef[r * o + m] = d[p][r];
    }
}

double sn_lat_binom(unsigned n, unsigned k)
{
    if (k > n) return 0.0;
    if (k > n - k) k = n - k;
    double c = 1.0;
    for (unsigned i = 1; i <= k; ++i) c = c * (double)(n - k + i) / (double)i;
    return floor(c + 0.5);
}
