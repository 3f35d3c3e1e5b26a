/*
 * The splitting iteration (split.h): the z-step (projection), the x-step
 * (one factorised solve for every handle) and the residual pass, run as
 * tasks over ranges of free vertices, with Anderson acceleration of the
 * fixed-point map; and the state changes the iteration is restarted from
 * (given weights, a new penalty).
 */
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#  include <emmintrin.h>
#endif

#include "bbw/project.h"
#include "bbw/split.h"

/* Parallel passes: each task has at least TASK_MIN free vertices (below
 * that a task costs more to hand out than to run). */
#define SN_BBW_TASK_MIN 256
/* Over-relaxation of the x-step (1.5-1.8 is the usual sweet spot). */
#define SN_BBW_RELAX 1.6
/* Single-precision x-steps between two double ones (see x_step): tuned so
 * the double steps cost little of the split's time on large volumes while
 * the increments' rounding stays far below what the certificates ask. */
#define SN_BBW_SINGLE_ANCHOR 16

/* Solves the small normal equations for gamma (Gaussian elimination; the
 * matrix is symmetric positive definite). */
void sn_bbw_anderson_coefficients(sn_bbw_anderson *aa)
{
    size_t h = aa->used;
    double a[SN_BBW_ANDERSON][SN_BBW_ANDERSON + 1], scale = 0.0;
    for (size_t i = 0; i < h; ++i) {
        for (size_t j = 0; j < h; ++j) a[i][j] = aa->gram[aa->slot[i]][aa->slot[j]];
        a[i][h] = aa->fdot[aa->slot[i]];
        if (a[i][i] > scale) scale = a[i][i];
    }
    for (size_t i = 0; i < h; ++i) a[i][i] += 1e-10 * scale + 1e-300;
    for (size_t p = 0; p < h; ++p)
        for (size_t i = p + 1; i < h; ++i) {
            double l = a[i][p] / a[p][p];
            for (size_t j = p; j <= h; ++j) a[i][j] -= l * a[p][j];
        }
    for (size_t i = h; i-- > 0;) {
        double v = a[i][h];
        for (size_t j = i + 1; j < h; ++j) v -= a[i][j] * aa->gamma[j];
        aa->gamma[i] = v / a[i][i];
    }
}

/* Sums one task of a per-vertex pass contributes; combined in task order so
 * the result does not depend on how the tasks were run. */
typedef struct pass_sums {
    double change, step_sq, dual_sq;                          /* projection pass */
    double worst, norm, split_sq, weight_sq;                  /* residual pass */
    double gram[SN_BBW_ANDERSON], fdot[SN_BBW_ANDERSON];
} pass_sums;

/* One per-vertex pass split into tasks over ranges of free vertices. */
typedef struct pass_job {
    solve_state *st;
    const sn_bbw_anderson *aa;
    double rho;
    int exact, first;
    size_t h;                                 /* Anderson columns in use */
    const float *cols[SN_BBW_ANDERSON];       /* dG (projection) or dF (residual), newest first */
    float *dfn, *dgn;                         /* residual pass: the new column */
    uint32_t tasks;
    pass_sums *sums;                          /* one per task */
} pass_job;

static void task_range(const pass_job *job, uint32_t task, size_t *f0, size_t *f1)
{
    size_t nf = job->st->nf;
    *f0 = nf * task / job->tasks;
    *f1 = nf * (task + 1) / job->tasks;
}

/* z-step, fused with Anderson's extrapolation and the x-step's right-hand
 * side, for one task's vertices: s = g - dG gamma (unless first), z = P(s),
 * x = base + rho W (2z - s); sums the largest change of z and the W-norms of
 * the step and of u = s - z. */
static void projection_task(void *user, uint32_t task)
{
    const pass_job *job = user;
    solve_state *st = job->st;
    size_t m = st->b->handle_count, f0, f1;
    task_range(job, task, &f0, &f1);
    double *v = st->row + (size_t)task * m;
    uint32_t *scratch = st->scratch + (size_t)task * m;
    pass_sums *sum = &job->sums[task];
    memset(sum, 0, sizeof *sum);
    for (size_t f = f0; f < f1; ++f) {
        size_t o = f * m;
        double *sb = st->s + o, *zb = st->z + o, *xb = st->x + o;
        if (!job->first) {
            const double *gb = st->g + o;
            for (size_t j = 0; j < m; ++j) sb[j] = gb[j];
            for (size_t i = 0; i < job->h; ++i) {
                double c = job->aa->gamma[i];
                const float *d = job->cols[i] + o;
                for (size_t j = 0; j < m; ++j) sb[j] -= c * d[j];
            }
        }
        memcpy(v, sb, m * sizeof(double));
        if (job->exact) sn_bbw_project_simplex_near(v, zb, m, scratch);
        else sn_bbw_project_box(v, m);
        double rm = job->rho * st->metric[f];
        const double *bb = st->base + o;
        double step = 0.0, dual = 0.0;
        for (size_t j = 0; j < m; ++j) {
            double c = fabs(v[j] - zb[j]), u = sb[j] - v[j];
            if (c > sum->change) sum->change = c;
            step += c * c;
            dual += u * u;
            zb[j] = v[j];
            xb[j] = bb[j] + rm * (2.0 * v[j] - sb[j]);
        }
        sum->step_sq += st->metric[f] * step;
        sum->dual_sq += st->metric[f] * dual;
    }
}

/* Tasks a pass is split into: the context's parallel_tasks, at most one per
 * SN_BBW_TASK_MIN vertices and at most SN_BBW_MAX_TASKS. */
static uint32_t pass_tasks(const solve_state *st)
{
    uint32_t t = st->tasks;
    size_t most = st->nf / SN_BBW_TASK_MIN;
    if (t > most) t = most ? (uint32_t)most : 1;
    return t;
}

/* The z-step over every free vertex (projection_task). Returns the largest
 * change of z; leaves the W-norms in st->step_sq, st->dual_sq. */
static double projection_pass(solve_state *st, const sn_bbw_anderson *aa, double rho, int exact, int first)
{
    size_t cells = st->nf * st->b->handle_count;
    pass_job job = {.st = st, .aa = aa, .rho = rho, .exact = exact, .first = first, .h = first ? 0 : aa->used};
    for (size_t i = 0; i < job.h; ++i) job.cols[i] = st->dg + aa->slot[i] * cells;
    pass_sums sums[SN_BBW_MAX_TASKS];
    job.tasks = pass_tasks(st);
    job.sums = sums;
    sn_parallel_for(st->call, projection_task, &job, job.tasks);
    double change = 0.0;
    st->step_sq = st->dual_sq = 0.0;
    for (uint32_t t = 0; t < job.tasks; ++t) {
        if (sums[t].change > change) change = sums[t].change;
        st->step_sq += sums[t].step_sq;
        st->dual_sq += sums[t].dual_sq;
    }
    return change;
}

/* One vertex's contributions to Anderson's Gram row and right-hand side:
 * *dd = di . dn and *ff = di . fb, each as four partial sums (handle j goes
 * to sum j mod 4, the tail to sum 0), combined as (s0 + s1) + (s2 + s3), so
 * a column's sum is not one chain of dependent additions. The SSE2 form
 * makes the same operations in the same order as the plain one (float
 * entries widened exactly, no fused multiply-adds), so both give the same
 * bits; it halves the instructions of this pass, which reads every
 * remembered column once per iteration. */
static void anderson_dots(const float *di, const float *dn, const double *fb, size_t m, double *dd, double *ff)
{
    size_t j = 0;
#if defined(__SSE2__)
    __m128d d01 = _mm_setzero_pd(), d23 = d01, f01 = d01, f23 = d01;
    for (; j + 4 <= m; j += 4) {
        __m128 a = _mm_loadu_ps(di + j), b = _mm_loadu_ps(dn + j);
        __m128d a01 = _mm_cvtps_pd(a), a23 = _mm_cvtps_pd(_mm_movehl_ps(a, a));
        d01 = _mm_add_pd(d01, _mm_mul_pd(a01, _mm_cvtps_pd(b)));
        d23 = _mm_add_pd(d23, _mm_mul_pd(a23, _mm_cvtps_pd(_mm_movehl_ps(b, b))));
        f01 = _mm_add_pd(f01, _mm_mul_pd(a01, _mm_loadu_pd(fb + j)));
        f23 = _mm_add_pd(f23, _mm_mul_pd(a23, _mm_loadu_pd(fb + j + 2)));
    }
    double d[4], f[4];
    _mm_storeu_pd(d, d01);
    _mm_storeu_pd(d + 2, d23);
    _mm_storeu_pd(f, f01);
    _mm_storeu_pd(f + 2, f23);
#else
    double d[4] = {0.0, 0.0, 0.0, 0.0}, f[4] = {0.0, 0.0, 0.0, 0.0};
    for (; j + 4 <= m; j += 4)
        for (size_t l = 0; l < 4; ++l) {
            d[l] += (double)di[j + l] * dn[j + l];
            f[l] += di[j + l] * fb[j + l];
        }
#endif
    for (; j < m; ++j) {
        d[0] += (double)di[j] * dn[j];
        f[0] += di[j] * fb[j];
    }
    *dd = (d[0] + d[1]) + (d[2] + d[3]);
    *ff = (f[0] + f[1]) + (f[2] + f[3]);
}

/* After the x-step, one task's vertices: the split's residual d = x - z,
 * g = T(s) = s + relax d and f = relax d, and (unless first) Anderson's new
 * difference column with its dot products against the remembered ones. */
static void residual_task(void *user, uint32_t task)
{
    const pass_job *job = user;
    solve_state *st = job->st;
    const sinew_bbw *b = st->b;
    size_t m = b->handle_count, h = job->h, f0, f1;
    task_range(job, task, &f0, &f1);
    pass_sums *sum = &job->sums[task];
    memset(sum, 0, sizeof *sum);
    for (size_t f = f0; f < f1; ++f) {
        size_t o = f * m;
        const double *xb = st->x + o, *zb = st->z + o, *sb = st->s + o;
        double *gb = st->g + o, *fb = st->f + o, row = 0.0;
        for (size_t j = 0; j < m; ++j) {
            double d = xb[j] - zb[j], ad = fabs(d);
            if (ad > sum->worst) sum->worst = ad;
            row += d * d;
            double gn = sb[j] + SN_BBW_RELAX * d, fn = SN_BBW_RELAX * d;
            if (!job->first) {
                job->dfn[o + j] = (float)(fn - fb[j]);
                job->dgn[o + j] = (float)(gn - gb[j]);
            }
            gb[j] = gn;
            fb[j] = fn;
        }
        double w = b->mass[st->free_vertex[f]], zz = 0.0;
        sum->norm += w * row;
        for (size_t j = 0; j < m; ++j) zz += zb[j] * zb[j];
        sum->split_sq += st->metric[f] * row;
        sum->weight_sq += st->metric[f] * zz;
        for (size_t i = 0; i < h; ++i) {
            double dd, ff;
            anderson_dots(job->cols[i] + o, job->dfn + o, fb, m, &dd, &ff);
            sum->gram[i] += w * dd;
            sum->fdot[i] += w * ff;
        }
    }
}

/* The residual pass over every free vertex (residual_task): largest entry
 * of x - z into *primal, its mass norm returned, the W-norms into st, and
 * Anderson's Gram matrix extended by the new column. */
static double residual_pass(solve_state *st, sn_bbw_anderson *aa, int first, double *primal)
{
    size_t cells = st->nf * st->b->handle_count;
    pass_job job = {.st = st, .first = first};
    if (!first) {
        /* The new column takes the next slot (dropping the oldest when the
         * ring is full); the active slots are listed newest first. */
        aa->head = (aa->head + 1) % SN_BBW_ANDERSON;
        job.h = aa->used < SN_BBW_ANDERSON ? aa->used + 1 : SN_BBW_ANDERSON;
        for (size_t i = 0; i < job.h; ++i) {
            aa->slot[i] = (aa->head + SN_BBW_ANDERSON - i) % SN_BBW_ANDERSON;
            job.cols[i] = st->df + aa->slot[i] * cells;
        }
        job.dfn = st->df + aa->head * cells;
        job.dgn = st->dg + aa->head * cells;
    }
    pass_sums sums[SN_BBW_MAX_TASKS];
    job.tasks = pass_tasks(st);
    job.sums = sums;
    sn_parallel_for(st->call, residual_task, &job, job.tasks);
    double worst = 0.0, norm = 0.0, gram[SN_BBW_ANDERSON] = {0}, fdot[SN_BBW_ANDERSON] = {0};
    st->split_sq = st->weight_sq = 0.0;
    for (uint32_t t = 0; t < job.tasks; ++t) {
        if (sums[t].worst > worst) worst = sums[t].worst;
        norm += sums[t].norm;
        st->split_sq += sums[t].split_sq;
        st->weight_sq += sums[t].weight_sq;
        for (size_t i = 0; i < job.h; ++i) {
            gram[i] += sums[t].gram[i];
            fdot[i] += sums[t].fdot[i];
        }
    }
    for (size_t i = 0; i < job.h; ++i) {
        aa->gram[aa->slot[i]][aa->head] = aa->gram[aa->head][aa->slot[i]] = gram[i];
        aa->fdot[aa->slot[i]] = fdot[i];
    }
    aa->used = job.h;
    *primal = worst;
    return sqrt(norm);
}

/* The x-step's solves of all handles, in double or single precision. With
 * several tasks the handles are split into column groups, each gathered,
 * solved and scattered back by one task (the factor is shared read-only;
 * each group has its own slice of st->columns and of st->work or
 * st->work_single). */
typedef struct solve_job {
    solve_state *st;
    uint32_t groups;
    int single;
} solve_job;

static void solve_columns(const solve_state *st, double *x, size_t m, double *work, float *work_single, int single)
{
    if (single) sn_ldlt_solve_single(&st->factor, &st->factor_single, x, m, work_single);
    else sn_ldlt_solve(&st->factor, x, m, work);
}

static void solve_group(void *user, uint32_t group)
{
    const solve_job *job = user;
    solve_state *st = job->st;
    size_t m = st->b->handle_count, nf = st->nf;
    size_t j0 = m * group / job->groups, j1 = m * (group + 1) / job->groups, mg = j1 - j0;
    double *buf = st->columns + nf * j0, *work = st->work + nf * j0;
    float *work_single = st->work_single + nf * sn_bbw_single_group_width(st) * group;
    for (size_t f = 0; f < nf; ++f) memcpy(buf + f * mg, st->x + f * m + j0, mg * sizeof(double));
    solve_columns(st, buf, mg, work, work_single, job->single);
    for (size_t f = 0; f < nf; ++f) memcpy(st->x + f * m + j0, buf + f * mg, mg * sizeof(double));
}

/* Solves (Q + rho W) X = st->x in place. */
static void solve_all(solve_state *st, int single)
{
    size_t m = st->b->handle_count;
    uint32_t groups = sn_bbw_solve_groups(st);
    if (groups <= 1 || !st->columns) {
        solve_columns(st, st->x, m, st->work, st->work_single, single);
        return;
    }
    solve_job job = {st, groups, single};
    sn_parallel_for(st->call, solve_group, &job, groups);
}

/* The x-step. By linearity x = x_prev + F^-1 (rhs - rhs_prev), and the
 * increment is solved in single precision: its rounding is relative to
 * the increment, which shrinks as the split converges, so the iterate keeps
 * the double solve's accuracy (on the rig set the iteration counts are
 * those of double solves) while the triangular solves, most of the split's
 * time, stream half the bytes at twice the values per instruction. Every
 * SN_BBW_SINGLE_ANCHOR steps, and after each new factor, one step is solved
 * in double, so the increments' rounding cannot accumulate; so is every
 * step of a factor beyond float's range, and a step whose increment's
 * solve overflowed it. */
static void x_step(solve_state *st)
{
    size_t cells = st->nf * st->b->handle_count;
    double *x = st->x, *rhs_prev = st->rhs_prev, *x_prev = st->x_prev;
    if (!st->factor_single.representable) {
        solve_all(st, 0);
        return;
    }
    if (st->single_steps_left) {
        for (size_t k = 0; k < cells; ++k) {
            double increment = x[k] - rhs_prev[k];
            rhs_prev[k] = x[k];
            x[k] = increment;
        }
        solve_all(st, 1);
        int finite = 1;
        for (size_t k = 0; k < cells; ++k) {
            finite &= isfinite(x[k]) != 0;
            x_prev[k] = x[k] += x_prev[k];
        }
        if (finite) {
            --st->single_steps_left;
            return;
        }
        /* This step's right-hand side, solved in double below (which also
         * replaces the x_prev just spoilt). */
        memcpy(x, rhs_prev, cells * sizeof(double));
    }
    memcpy(rhs_prev, x, cells * sizeof(double));
    solve_all(st, 0);
    memcpy(x_prev, x, cells * sizeof(double));
    st->single_steps_left = SN_BBW_SINGLE_ANCHOR;
}

/* A given start z carries no multiplier; the one that makes z a fixed point
 * of the x-step, u = (base - Q z) / (rho W) (i.e. s = 2z + (base - F z) /
 * (rho W) with F = Q + rho W), is the gradient's information the split
 * would otherwise spend its first hundreds of iterations rebuilding: with
 * u = 0 a good start is pulled back toward the unconstrained solution. */
void sn_bbw_warm_start_multiplier(solve_state *s, double rho)
{
    size_t m = s->b->handle_count;
    sn_sparse_multiply_columns(&s->a, s->z, m, s->x);
    for (size_t f = 0; f < s->nf; ++f) {
        double scale = 1.0 / (rho * s->metric[f]);
        for (size_t j = 0; j < m; ++j) {
            size_t k = f * m + j;
            s->s[k] = 2.0 * s->z[k] + (s->base[k] - s->x[k]) * scale;
        }
    }
}

/* The split's starting state from given weights (vertex-major over every
 * vertex; NULL = keep z, the unconstrained start): z = the rows projected
 * onto the feasible set, and the iteration's state s = z + u with the
 * multiplier of sn_bbw_warm_start_multiplier (u = 0 from the unconstrained
 * start). */
void sn_bbw_start_split(solve_state *s, const float *start, double rho, int exact)
{
    size_t m = s->b->handle_count;
    for (size_t f = 0; f < s->nf; ++f) {
        double *zb = s->z + f * m;
        if (start)
            for (size_t j = 0; j < m; ++j) zb[j] = start[(size_t)s->free_vertex[f] * m + j];
        sn_bbw_project_row(zb, m, exact, s->scratch);
    }
    if (s->nf) memcpy(s->s, s->z, s->nf * m * sizeof(double));
    if (start) sn_bbw_warm_start_multiplier(s, rho);
}

/* Multiplies the penalty by factor: Q + rho W is factorised again, and the
 * state s (via the last step g) is rescaled around its projection so the
 * multiplier rho W u is kept. Anderson's history must be dropped by the
 * caller (its columns belong to the old map). */
sinew_result sn_bbw_change_penalty(solve_state *s, double *rho, int exact, double factor)
{
    const sinew_bbw *b = s->b;
    size_t m = b->handle_count, nf = s->nf;
    double next = *rho * factor;
    for (size_t f = 0; f < nf; ++f) s->a.vals[s->diag_pos[f]] = s->q_diagonal[f] + next * s->metric[f];
    sinew_result r = sn_ldlt_factor(&b->env, &s->factor, &s->a);
    if (r == SINEW_OK) r = sn_ldlt_single_round(&b->env, &s->factor, &s->factor_single);
    s->single_steps_left = 0; /* x_prev solved another system */
    if (r != SINEW_OK) return r;
    for (size_t f = 0; f < nf; ++f) {
        double *g = s->g + f * m, *v = s->row;
        memcpy(v, g, m * sizeof(double));
        sn_bbw_project_row(v, m, exact, s->scratch);
        for (size_t j = 0; j < m; ++j) g[j] = v[j] + (g[j] - v[j]) / factor;
    }
    *rho = next;
    return SINEW_OK;
}

/* The split's relative primal residual |x - z|_W / |z|_W and dual residual
 * |z - z_prev|_W / |u|_W (u = s - z, the scaled multiplier) of the last
 * iteration. Returns 0 when either is not positive (nothing to compare). */
int sn_bbw_relative_residuals(const solve_state *s, double *primal, double *dual)
{
    if (!(s->weight_sq > 0.0) || !(s->dual_sq > 0.0) || !(s->step_sq > 0.0)) return 0;
    *primal = sqrt(s->split_sq / s->weight_sq);
    *dual = sqrt(s->step_sq / s->dual_sq);
    return *primal > 0.0 && *dual > 0.0;
}

double sn_bbw_split_iterate(solve_state *s, sn_bbw_anderson *aa, double rho, int exact, int restart, int fresh,
                            double *change, double *primal)
{
    *change = projection_pass(s, aa, rho, exact, restart);
    if (restart) *change = INFINITY;
    x_step(s);
    return residual_pass(s, aa, restart || fresh, primal);
}
