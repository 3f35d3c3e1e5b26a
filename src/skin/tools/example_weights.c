/* Weights from example poses (Mohr, Tokheim and Gleicher): per vertex, the
 * non-negative, partition-of-unity weights of at most k joints whose linear
 * blend best reproduces the vertex's example positions, by a certified QP. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sinew/skin_tools.h"
#include "skin/skin_defaults.h"
#include "skin/tools/example_weights_qp.h"
#include "skin/tools/influence_rows.h"

static const char *const STAGE = "skin: example weights";

/* Every vertex's final QP must meet its KKT conditions to this fraction of
 * the problem's scale (the header promises it). */
#define CERTIFICATE_TOL 1e-9
/* Vertices between progress reports: a vertex costs a few small QPs. */
#define PROGRESS_EVERY 256u

static sinew_result check_matrices(const float *matrices, size_t example_count, size_t joint_count)
{
    size_t count, floats;
    if (!sn_mul_size(example_count, joint_count, &count) || !sn_mul_size(count, 16, &floats) ||
        !sn_span_fits(floats, sizeof(float), sizeof(float)))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "example weights: %zu examples of %zu joint matrices overflow",
                       example_count, joint_count);
    if (!matrices) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "example weights: matrices is NULL");
    if ((uintptr_t)matrices % sizeof(float))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "example weights: matrices is not aligned to 4 bytes");
    for (size_t e = 0; e < example_count; ++e)
        for (size_t j = 0; j < joint_count; ++j) {
            const float *m = matrices + 16 * (e * joint_count + j);
            for (int i = 0; i < 16; ++i)
                if (!isfinite(m[i]))
                    return sn_fail(SINEW_ERROR_NON_FINITE,
                                   "example %zu joint %zu matrix entry (row %d, column %d) is not finite (%g)", e, j,
                                   i % 4, i / 4, (double)m[i]);
            if (m[3] != 0.0f || m[7] != 0.0f || m[11] != 0.0f || m[15] != 1.0f)
                return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                               "example %zu joint %zu matrix is not affine (last row %g %g %g %g, not 0 0 0 1)", e, j,
                               (double)m[3], (double)m[7], (double)m[11], (double)m[15]);
        }
    return SINEW_OK;
}

static sinew_result check_examples(const sinew_points *positions, const sinew_points *examples, size_t example_count)
{
    if (!examples || example_count == 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "example weights: no example poses given");
    /* A count whose array cannot exist is refused before any view is read. */
    size_t bytes;
    if (!sn_mul_size(example_count, sizeof *examples, &bytes) || bytes > PTRDIFF_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "example weights: %zu example poses overflow", example_count);
    for (size_t e = 0; e < example_count; ++e) {
        char what[48];
        snprintf(what, sizeof what, "example %zu point", e);
        sinew_result r = sn_check_points(&examples[e], what);
        if (r != SINEW_OK) return r;
        if (examples[e].count != positions->count)
            return sn_fail(SINEW_ERROR_MISMATCH, "example %zu has %zu points, but there are %zu rest vertices", e,
                           examples[e].count, positions->count);
    }
    return SINEW_OK;
}

static sinew_result check_candidates(const sinew_skin_example_desc *d, size_t n, size_t joint_count)
{
    if (d->candidate_count == 0) return SINEW_OK;
    if (!d->candidate_joints)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                       "example weights: candidate_count is %zu but candidate_joints is NULL", d->candidate_count);
    if ((uintptr_t)d->candidate_joints % sizeof(uint32_t))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "example weights: candidate_joints is not aligned to 4 bytes");
    size_t total, bytes;
    if (!sn_mul_size(n, d->candidate_count, &total) || !sn_mul_size(total, sizeof(uint32_t), &bytes) ||
        bytes > PTRDIFF_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "example weights: %zu vertices of %zu candidate slots overflow", n,
                       d->candidate_count);
    for (size_t i = 0; i < total; ++i)
        if (d->candidate_joints[i] >= joint_count)
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE,
                           "vertex %zu candidate slot %zu names joint %u, but there are only %zu joints",
                           i / d->candidate_count, i % d->candidate_count, (unsigned)d->candidate_joints[i],
                           joint_count);
    return SINEW_OK;
}

static sinew_result check_outputs(const uint32_t *joints, const float *weights, const float *residuals)
{
    if (!joints || !weights)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "example weights: output %s is NULL", joints ? "weights" : "joints");
    if ((uintptr_t)joints % sizeof *joints || (uintptr_t)weights % sizeof *weights ||
        (uintptr_t)residuals % sizeof *residuals)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "example weights: output %s is not aligned to 4 bytes",
                       (uintptr_t)joints % 4 ? "joints" : (uintptr_t)weights % 4 ? "weights" : "residuals");
    return SINEW_OK;
}

/* Whether m choose k is at most limit (limit < 2^32, so double is exact
 * enough: the running product is an integer below 2^53 until it passes). */
static int few_subsets(size_t m, size_t k, size_t limit)
{
    double c = 1.0;
    for (size_t i = 1; i <= k; ++i) {
        c = c * (double)(m - k + i) / (double)i;
        if (c > (double)limit + 0.5) return 0;
    }
    return 1;
}

/* Scratch of one vertex's problem over at most n_max candidates. */
typedef struct vertex_work {
    size_t n_max, k;
    uint32_t *joint;          /* the vertex's candidates, distinct */
    double *G, *c, *column;   /* Gram form, and 3 * n_max blended positions of one example */
    double *w, *best_w, *trial_w;
    unsigned char *allowed;
    size_t *pick;             /* the current k-subset, indices into the support list */
    size_t *support_list;
    sn_simplex_qp_work qp;
} vertex_work;

/* The vertex's candidate joints, duplicates dropped; returns their count. */
static size_t gather_candidates(const sinew_skin_example_desc *d, size_t joint_count, size_t v, uint32_t *joint)
{
    if (d->candidate_count == 0) {
        for (size_t j = 0; j < joint_count; ++j) joint[j] = (uint32_t)j;
        return joint_count;
    }
    size_t m = 0;
    for (size_t s = 0; s < d->candidate_count; ++s) {
        uint32_t j = d->candidate_joints[v * d->candidate_count + s];
        size_t t = 0;
        while (t < m && joint[t] != j) ++t;
        if (t == m) joint[m++] = j;
    }
    return m;
}

/* G = A^T A, c = A^T b, bb = b^T b, where column i of A stacks the vertex
 * moved by candidate i's matrix in every example and b its example places. */
static void build_problem(vertex_work *vw, size_t n, const float p[3], const sinew_points *examples,
                          size_t example_count, const float *matrices, size_t joint_count, size_t v, double *bb)
{
    memset(vw->G, 0, n * n * sizeof *vw->G);
    memset(vw->c, 0, n * sizeof *vw->c);
    *bb = 0.0;
    for (size_t e = 0; e < example_count; ++e) {
        const float *q = sn_point(&examples[e], v);
        for (size_t i = 0; i < n; ++i) {
            const float *M = matrices + 16 * (e * joint_count + vw->joint[i]);
            for (int r = 0; r < 3; ++r)
                vw->column[3 * i + (size_t)r] = (double)M[r] * p[0] + (double)M[4 + r] * p[1] +
                                                (double)M[8 + r] * p[2] + (double)M[12 + r];
        }
        for (size_t i = 0; i < n; ++i) {
            const double *a = vw->column + 3 * i;
            vw->c[i] += a[0] * q[0] + a[1] * q[1] + a[2] * q[2];
            for (size_t j = i; j < n; ++j) {
                const double *b = vw->column + 3 * j;
                vw->G[i * n + j] += a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
            }
        }
        *bb += (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2];
    }
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < i; ++j) vw->G[i * n + j] = vw->G[j * n + i];
}

typedef struct vertex_result {
    double certificate;
    int limited, enumerated;
} vertex_result;

/* Solves one vertex into vw->best_w (n weights, at most k nonzero). */
static vertex_result solve_vertex(vertex_work *vw, size_t n, double bb, size_t max_subsets)
{
    vertex_result out = {0.0, 0, 0};
    sn_simplex_qp qp = {n, vw->G, vw->c, bb};
    double objective;
    memset(vw->allowed, 1, n);
    out.certificate = sn_simplex_qp_solve(&qp, vw->allowed, &vw->qp, vw->best_w, &objective);
    size_t m = 0;
    for (size_t i = 0; i < n; ++i)
        if (vw->best_w[i] > 0.0) vw->support_list[m++] = i;
    size_t k = vw->k;
    if (m <= k) return out;
    out.limited = 1;
    memset(vw->allowed, 0, n);
    if (few_subsets(m, k, max_subsets)) {
        /* Every k-subset of the optimum's joints, in lexicographic order; the
         * best objective wins (the first on ties). */
        out.enumerated = 1;
        double best = INFINITY, best_cert = 0.0;
        for (size_t s = 0; s < k; ++s) vw->pick[s] = s;
        for (;;) {
            for (size_t s = 0; s < k; ++s) vw->allowed[vw->support_list[vw->pick[s]]] = 1;
            double f, cert = sn_simplex_qp_solve(&qp, vw->allowed, &vw->qp, vw->trial_w, &f);
            for (size_t s = 0; s < k; ++s) vw->allowed[vw->support_list[vw->pick[s]]] = 0;
            if (f < best) {
                best = f;
                best_cert = cert;
                memcpy(vw->w, vw->trial_w, n * sizeof *vw->w);
            }
            size_t s = k;
            while (s > 0 && vw->pick[s - 1] == m - k + s - 1) --s;
            if (s == 0) break;
            ++vw->pick[s - 1];
            for (size_t t = s; t < k; ++t) vw->pick[t] = vw->pick[t - 1] + 1;
        }
        memcpy(vw->best_w, vw->w, n * sizeof *vw->w);
        out.certificate = best_cert;
        return out;
    }
    /* The k largest weights of the full optimum (ties: lower joint) choose
     * the support; the QP is solved again on it. */
    for (size_t s = 0; s < k; ++s) {
        size_t top = SIZE_MAX;
        for (size_t i = 0; i < n; ++i) {
            if (vw->allowed[i] || !(vw->best_w[i] > 0.0)) continue;
            if (top == SIZE_MAX || vw->best_w[i] > vw->best_w[top] ||
                (vw->best_w[i] == vw->best_w[top] && vw->joint[i] < vw->joint[top]))
                top = i;
        }
        vw->allowed[top] = 1;
    }
    out.certificate = sn_simplex_qp_solve(&qp, vw->allowed, &vw->qp, vw->w, &objective);
    memcpy(vw->best_w, vw->w, n * sizeof *vw->w);
    return out;
}

/* |sum_s w_s M[e][j_s] p - q[e]| over the examples, with the float row. */
static double row_residual(const uint32_t *joints, const float *weights, size_t k, const float p[3],
                           const sinew_points *examples, size_t example_count, const float *matrices,
                           size_t joint_count, size_t v)
{
    double sum = 0.0;
    for (size_t e = 0; e < example_count; ++e) {
        const float *q = sn_point(&examples[e], v);
        double x[3] = {-(double)q[0], -(double)q[1], -(double)q[2]};
        for (size_t s = 0; s < k; ++s) {
            if (weights[s] == 0.0f) continue;
            const float *M = matrices + 16 * (e * joint_count + joints[s]);
            for (int r = 0; r < 3; ++r)
                x[r] += (double)weights[s] * ((double)M[r] * p[0] + (double)M[4 + r] * p[1] +
                                              (double)M[8 + r] * p[2] + (double)M[12 + r]);
        }
        sum += x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    }
    return sqrt(sum);
}

static void free_work(const sn_env *env, vertex_work *vw)
{
    sn_free(env, vw->joint);
    sn_free(env, vw->G);
    sn_free(env, vw->c);
    sn_free(env, vw->column);
    sn_free(env, vw->w);
    sn_free(env, vw->best_w);
    sn_free(env, vw->trial_w);
    sn_free(env, vw->allowed);
    sn_free(env, vw->pick);
    sn_free(env, vw->support_list);
    sn_free(env, vw->qp.doubles);
    sn_free(env, vw->qp.indices);
}

static int alloc_work(const sn_env *env, vertex_work *vw, size_t n_max, size_t k)
{
    memset(vw, 0, sizeof *vw);
    vw->n_max = n_max;
    vw->k = k;
    size_t nn;
    if (!sn_mul_size(n_max, n_max, &nn)) return 0;
    vw->joint = (uint32_t *)sn_alloc_array(env, n_max, sizeof *vw->joint, "example candidate joints");
    vw->G = (double *)sn_alloc_array(env, nn, sizeof *vw->G, "example Gram matrix");
    vw->c = (double *)sn_alloc_array(env, n_max, sizeof *vw->c, "example right-hand side");
    vw->column = (double *)sn_alloc_array(env, n_max, 3 * sizeof *vw->column, "example columns");
    vw->w = (double *)sn_alloc_array(env, n_max, sizeof *vw->w, "example weights");
    vw->best_w = (double *)sn_alloc_array(env, n_max, sizeof *vw->best_w, "example best weights");
    vw->trial_w = (double *)sn_alloc_array(env, n_max, sizeof *vw->trial_w, "example trial weights");
    vw->allowed = (unsigned char *)sn_alloc(env, n_max, "example allowed joints");
    vw->pick = (size_t *)sn_alloc_array(env, k < n_max ? k : n_max, sizeof *vw->pick, "example subset");
    vw->support_list = (size_t *)sn_alloc_array(env, n_max, sizeof *vw->support_list, "example support");
    size_t qd = sn_simplex_qp_work_doubles(n_max);
    vw->qp.doubles = nn <= SIZE_MAX - 4 * n_max ? (double *)sn_alloc_array(env, qd, sizeof(double), "example QP")
                                                : NULL;
    vw->qp.indices = (size_t *)sn_alloc_array(env, n_max, sizeof(size_t), "example QP support");
    return vw->joint && vw->G && vw->c && vw->column && vw->w && vw->best_w && vw->trial_w && vw->allowed &&
           vw->pick && vw->support_list && vw->qp.doubles && vw->qp.indices;
}

sinew_result sinew_skin_example_weights(sinew_context *ctx, const sinew_points *positions,
                                        const sinew_points *examples, size_t example_count, const float *matrices,
                                        size_t joint_count, const sinew_skin_example_desc *desc, uint32_t *joints,
                                        float *weights, float *residuals, sinew_skin_example_report *report)
{
    sn_clear_error();
    sinew_skin_example_desc d = {0};
    sinew_result r = SINEW_OK;
    if (desc && (r = sn_read_struct(&d, sizeof d, desc, "example weights: desc")) != SINEW_OK) return r;
    sn_skin_example_resolve(&d);
    if (report && (r = sn_check_struct_out(report, "example weights: report")) != SINEW_OK) return r;
    if ((r = sn_check_points(positions, "rest vertex")) != SINEW_OK) return r;
    size_t n = positions->count;
    if (n == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "example weights: no vertices given");
    if ((r = check_examples(positions, examples, example_count)) != SINEW_OK) return r;
    if (joint_count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "example weights: no joints (joint_count 0)");
    if (joint_count > UINT32_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "example weights: %zu joints exceed 32-bit indices", joint_count);
    if ((r = check_matrices(matrices, example_count, joint_count)) != SINEW_OK) return r;
    if ((r = check_candidates(&d, n, joint_count)) != SINEW_OK) return r;
    if ((r = check_outputs(joints, weights, residuals)) != SINEW_OK) return r;
    size_t k = d.influence_count;
    size_t max_subsets = d.max_subsets;
    size_t total, out_bytes;
    if (!sn_mul_size(n, k, &total) || !sn_mul_size(total, sizeof *weights, &out_bytes) || out_bytes > PTRDIFF_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "example weights: %zu vertices of %zu slots overflow", n, k);
    size_t n_max = d.candidate_count ? (d.candidate_count < joint_count ? d.candidate_count : joint_count)
                                     : joint_count;

    sn_env env;
    sn_env_from_context(&env, ctx);
    vertex_work vw;
    uint32_t *out_j = (uint32_t *)sn_alloc_array(&env, total, sizeof *out_j, "example joints out");
    float *out_w = (float *)sn_alloc_array(&env, total, sizeof *out_w, "example weights out");
    float *out_r = residuals ? (float *)sn_alloc_array(&env, n, sizeof *out_r, "example residuals out") : NULL;
    sn_skin_entry *row = (sn_skin_entry *)sn_alloc_array(&env, n_max, sizeof *row, "example row");
    int have_work = alloc_work(&env, &vw, n_max, k);
    if (!out_j || !out_w || (residuals && !out_r) || !row || !have_work) {
        r = sn_alloc_failure();
        goto done;
    }
    sinew_skin_example_report rep = {sizeof rep, 0.0, 0.0, 0, 0};
    size_t first_uncertified = SIZE_MAX;
    double worst_certificate = 0.0;
    for (size_t v = 0; v < n; ++v) {
        if (v % PROGRESS_EVERY == 0 && (r = sn_progress(&env, STAGE, (float)v / (float)n)) != SINEW_OK) goto done;
        const float *p = sn_point(positions, v);
        size_t m = gather_candidates(&d, joint_count, v, vw.joint);
        double bb;
        build_problem(&vw, m, p, examples, example_count, matrices, joint_count, v, &bb);
        vertex_result vr = solve_vertex(&vw, m, bb, max_subsets);
        rep.vertices_limited += (size_t)vr.limited;
        rep.vertices_enumerated += (size_t)vr.enumerated;
        if (!(vr.certificate <= CERTIFICATE_TOL) && first_uncertified == SIZE_MAX) {
            first_uncertified = v;
            worst_certificate = vr.certificate;
        }
        if (vr.certificate > rep.kkt_violation || isnan(vr.certificate)) rep.kkt_violation = vr.certificate;
        size_t entries = 0;
        for (size_t i = 0; i < m; ++i)
            if (vw.best_w[i] > 0.0) {
                row[entries].joint = vw.joint[i];
                row[entries++].weight = vw.best_w[i];
            }
        sn_skin_sort_by_weight(row, entries);
        sn_skin_write_row(row, entries, k, out_j + v * k, out_w + v * k);
        double res = row_residual(out_j + v * k, out_w + v * k, k, p, examples, example_count, matrices,
                                  joint_count, v);
        if (!(res <= FLT_MAX)) {
            r = sn_fail(SINEW_ERROR_NON_FINITE, "vertex %zu: its residual %g leaves the float range", v, res);
            goto done;
        }
        if (res > rep.max_residual) rep.max_residual = res;
        if (out_r) out_r[v] = (float)res;
    }
    memcpy(joints, out_j, total * sizeof *joints);
    memcpy(weights, out_w, total * sizeof *weights);
    if (residuals) memcpy(residuals, out_r, n * sizeof *residuals);
    if (report) sn_write_struct(report, &rep, sizeof rep);
    r = SINEW_OK;
    if (first_uncertified != SIZE_MAX)
        r = sn_fail(SINEW_ERROR_NOT_CONVERGED,
                    "vertex %zu: its weights meet the KKT conditions only to %g of the problem's scale (1e-9 "
                    "needed); the best weights reached are written",
                    first_uncertified, worst_certificate);
done:
    sn_free(&env, out_j);
    sn_free(&env, out_w);
    sn_free(&env, out_r);
    sn_free(&env, row);
    free_work(&env, &vw);
    return r;
}
