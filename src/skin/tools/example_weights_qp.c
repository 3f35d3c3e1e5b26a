/* A primal active-set method for least squares on the probability simplex,
 * with the KKT check that certifies its result. */
#include <math.h>
#include <string.h>

#include "skin/tools/example_weights_qp.h"

/* A joint enters the support only when its multiplier is below -ADD_TOL of
 * the scale: far under the certificate's 1e-9, far above rounding noise, so
 * the method cannot cycle on noise. */
#define ADD_TOL 1e-13
/* Ridge on the reduced Hessian, relative to its largest diagonal: it picks
 * one minimiser when the examples leave the weights undetermined, and moves a
 * determined one by about this fraction of the weights only. */
#define RIDGE 1e-13

size_t sn_simplex_qp_work_doubles(size_t n)
{
    return n * n + 4 * n;
}

static double problem_scale(const sn_simplex_qp *qp, const unsigned char *allowed)
{
    double maxdiag = 0.0;
    for (size_t i = 0; i < qp->n; ++i)
        if (allowed[i] && qp->G[i * qp->n + i] > maxdiag) maxdiag = qp->G[i * qp->n + i];
    double s = maxdiag + sqrt(maxdiag * qp->bb);
    return s > 0.0 ? s : 1.0;
}

/* In-place Cholesky of the m * m matrix a (+ ridge on the diagonal);
 * 0 when a pivot is not positive. */
static int cholesky(double *a, size_t m, double ridge)
{
    for (size_t j = 0; j < m; ++j) {
        double d = a[j * m + j] + ridge;
        for (size_t t = 0; t < j; ++t) d -= a[j * m + t] * a[j * m + t];
        if (!(d > 0.0)) return 0;
        d = sqrt(d);
        a[j * m + j] = d;
        for (size_t i = j + 1; i < m; ++i) {
            double s = a[i * m + j];
            for (size_t t = 0; t < j; ++t) s -= a[i * m + t] * a[j * m + t];
            a[i * m + j] = s / d;
        }
    }
    return 1;
}

/* The equality-constrained problem on the support F (m entries): minimise
 * over sum z = 1 with the first entry eliminated, z = e_0 + Z u, so the
 * reduced system H u = Z^T (c - G e_0) is positive semidefinite and its
 * solution needs no cancellation. z receives m values. */
static double reduced_hessian(const sn_simplex_qp *qp, const size_t *F, size_t q, double *H)
{
    const double *G = qp->G;
    size_t n = qp->n, r = F[0];
    double maxdiag = 0.0;
    for (size_t a = 0; a < q; ++a) {
        size_t ia = F[a + 1];
        for (size_t b = 0; b < q; ++b) {
            size_t ib = F[b + 1];
            H[a * q + b] = G[ia * n + ib] - G[ia * n + r] - G[r * n + ib] + G[r * n + r];
        }
        if (H[a * q + a] > maxdiag) maxdiag = H[a * q + a];
    }
    return maxdiag;
}

static void solve_on_support(const sn_simplex_qp *qp, const size_t *F, size_t m, double *H, double *rhs, double *z)
{
    const double *G = qp->G;
    size_t n = qp->n, r = F[0], q = m - 1;
    double maxdiag = reduced_hessian(qp, F, q, H);
    for (size_t a = 0; a < q; ++a) {
        size_t ia = F[a + 1];
        rhs[a] = (qp->c[ia] - G[ia * n + r]) - (qp->c[r] - G[r * n + r]);
    }
    for (size_t a = 0; a < m; ++a) z[a] = a == 0 ? 1.0 : 0.0;
    if (q == 0 || !(maxdiag > 0.0)) return;   /* every direction is flat: stay at the vertex */
    /* Rounding can leave a pivot of a semidefinite H at or below 0 despite
     * the ridge: widen the ridge and factor a fresh copy. */
    double ridge = RIDGE * maxdiag;
    int ok = cholesky(H, q, ridge);
    for (int attempt = 0; attempt < 5 && !ok; ++attempt) {
        ridge *= 1e3;
        reduced_hessian(qp, F, q, H);
        ok = cholesky(H, q, ridge);
    }
    if (!ok) return;
    /* Forward then back substitution; the solution overwrites rhs. */
    for (size_t a = 0; a < q; ++a) {
        double s = rhs[a];
        for (size_t t = 0; t < a; ++t) s -= H[a * q + t] * rhs[t];
        rhs[a] = s / H[a * q + a];
    }
    for (size_t a = q; a-- > 0;) {
        double s = rhs[a];
        for (size_t t = a + 1; t < q; ++t) s -= H[t * q + a] * rhs[t];
        rhs[a] = s / H[a * q + a];
    }
    double rest = 1.0;
    for (size_t a = 0; a < q; ++a) {
        z[a + 1] = rhs[a];
        rest -= rhs[a];
    }
    z[0] = rest;
}

/* g = G w - c on the allowed variables. */
static void gradient(const sn_simplex_qp *qp, const unsigned char *allowed, const double *w, double *g)
{
    size_t n = qp->n;
    for (size_t i = 0; i < n; ++i) {
        if (!allowed[i]) continue;
        double s = -qp->c[i];
        for (size_t j = 0; j < n; ++j)
            if (w[j] != 0.0) s += qp->G[i * n + j] * w[j];
        g[i] = s;
    }
}

/* The certificate and objective of a given feasible w, by the same rule. */
static double sn_simplex_qp_check(const sn_simplex_qp *qp, const unsigned char *allowed, const double *w, double *objective)
{
    size_t n = qp->n;
    double mu = 0.0, total = 0.0, quad = 0.0, lin = 0.0;
    for (size_t i = 0; i < n; ++i) {
        if (!allowed[i] || w[i] == 0.0) continue;
        double gi = -qp->c[i];
        for (size_t j = 0; j < n; ++j)
            if (allowed[j] && w[j] != 0.0) gi += qp->G[i * n + j] * w[j];
        mu += w[i] * gi;
        total += w[i];
        quad += w[i] * (gi + qp->c[i]);
        lin += w[i] * qp->c[i];
    }
    mu /= total;
    double violation = 0.0;
    for (size_t i = 0; i < n; ++i) {
        if (!allowed[i]) continue;
        double gi = -qp->c[i];
        for (size_t j = 0; j < n; ++j)
            if (allowed[j] && w[j] != 0.0) gi += qp->G[i * n + j] * w[j];
        double v = w[i] > 0.0 ? fabs(gi - mu) : mu - gi;
        if (v > violation) violation = v;
    }
    double f = quad - 2.0 * lin + qp->bb;
    *objective = f > 0.0 ? f : 0.0;
    return violation / problem_scale(qp, allowed);
}

double sn_simplex_qp_solve(const sn_simplex_qp *qp, const unsigned char *allowed, sn_simplex_qp_work *work, double *w,
                           double *objective)
{
    size_t n = qp->n;
    double *H = work->doubles, *rhs = H + n * n, *z = rhs + n, *g = z + n;
    size_t *F = work->indices;
    double scale = problem_scale(qp, allowed);
    /* Start at the best vertex of the simplex: one joint alone. */
    size_t best = SIZE_MAX;
    double best_f = INFINITY;
    for (size_t i = 0; i < n; ++i) {
        if (!allowed[i]) continue;
        double f = qp->G[i * n + i] - 2.0 * qp->c[i];
        if (f < best_f) {
            best_f = f;
            best = i;
        }
    }
    memset(w, 0, n * sizeof *w);
    w[best] = 1.0;
    F[0] = best;
    size_t m = 1;
    /* Each step adds a joint or removes at least one: the cap is never
     * reached in exact arithmetic; the certificate says if it was. */
    for (size_t iter = 0; iter < 20 * n + 20; ++iter) {
        solve_on_support(qp, F, m, H, rhs, z);
        size_t blocking = SIZE_MAX;
        double alpha = 1.0;
        for (size_t a = 0; a < m; ++a) {
            if (z[a] > 0.0) continue;
            double step = w[F[a]] / (w[F[a]] - z[a]);
            if (blocking == SIZE_MAX || step < alpha) {
                alpha = step;
                blocking = a;
            }
        }
        if (blocking == SIZE_MAX) {
            for (size_t a = 0; a < m; ++a) w[F[a]] = z[a];
            gradient(qp, allowed, w, g);
            double mu = 0.0;
            for (size_t a = 0; a < m; ++a) mu += w[F[a]] * g[F[a]];
            size_t enter = SIZE_MAX;
            double most = -ADD_TOL * scale;
            for (size_t i = 0; i < n; ++i)
                if (allowed[i] && w[i] == 0.0 && g[i] - mu < most) {
                    most = g[i] - mu;
                    enter = i;
                }
            if (enter == SIZE_MAX) break;
            F[m++] = enter;
            continue;
        }
        /* Step toward z until the blocking weight reaches 0, then drop it
         * (and any other that reached 0 with it). */
        for (size_t a = 0; a < m; ++a) w[F[a]] += alpha * (z[a] - w[F[a]]);
        w[F[blocking]] = 0.0;
        size_t kept = 0;
        for (size_t a = 0; a < m; ++a) {
            if (w[F[a]] > 0.0) F[kept++] = F[a];
            else w[F[a]] = 0.0;
        }
        if (kept == 0) {   /* rounding emptied the support: keep the joint that blocked */
            F[kept++] = F[blocking];
            w[F[0]] = 1.0;
        }
        m = kept;
    }
    /* The weights sum to 1 up to rounding; make it exact in double. */
    double total = 0.0;
    for (size_t i = 0; i < n; ++i) total += w[i];
    for (size_t i = 0; i < n; ++i) w[i] /= total;
    return sn_simplex_qp_check(qp, allowed, w, objective);
}
