/* Mass-spring relaxation of the contact layer (§3.2). Every contact control
 * point is a mass with one degree of freedom, its lift along its own
 * direction; four zero-rest-length springs tie it to its grid neighbours.
 * Masses that fail the paper's angle criterion, together with a neighbourhood
 * of rings around them, are integrated until none fails it or they all rest. */
#include <math.h>
#include <string.h>

#include "lattice/lattice_defaults.h"
#include "lattice/placement/placement_internal.h"
#include "core/small_math.h"

typedef struct relax_state {
    const sinew_placement *p;
    double *lift, *vel, *accel, *pos; /* per column (pos: 3) */
    uint8_t *candidate;
    uint32_t *window;                 /* prefix counts for the neighbourhood dilation */
    uint8_t *active;
} relax_state;

static sinew_result check_relax(const sinew_placement_relax_desc *d)
{
    const struct { float v; const char *name; } values[] = {
        {d->stiffness, "stiffness"}, {d->mass, "mass"}, {d->damping, "damping"}, {d->angle_degrees, "angle"}};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; ++i) {
        if (!isfinite(values[i].v))
            return sn_fail(SINEW_ERROR_NON_FINITE, "relax %s is not finite (%g)", values[i].name, (double)values[i].v);
        if (values[i].v < 0.0f)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "relax %s is %g; it must be >= 0 (0 = default)",
                           values[i].name, (double)values[i].v);
    }
    if (d->angle_degrees >= 180.0f)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "relax angle is %g degrees; it must be below 180",
                       (double)d->angle_degrees);
    if (d->neighbourhood > SN_PLACE_MAX_NEIGHBOURHOOD)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "relax neighbourhood %u is outside 1..%u", d->neighbourhood,
                       SN_PLACE_MAX_NEIGHBOURHOOD);
    return SINEW_OK;
}

static void positions(relax_state *s)
{
    const sinew_placement *p = s->p;
    size_t columns = (size_t)p->count[0] * p->count[1];
    for (size_t c = 0; c < columns; ++c)
        for (int a = 0; a < 3; ++a) s->pos[3 * c + a] = (double)p->hit[3 * c + a] + s->lift[c] * p->dof[3 * c + a];
}

/* The paper's test: the normals of the four consecutive neighbour pairs of
 * mass (i, j); true when two of them are more than the threshold apart. */
static bool fails_angle(const relax_state *s, uint32_t i, uint32_t j, double cos_limit)
{
    const uint32_t cu = s->p->count[0], cv = s->p->count[1];
    static const int step[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
    const double *q = &s->pos[3 * (i + (size_t)cu * j)];
    double e[4][3] = {{0}};
    bool has[4];
    for (int k = 0; k < 4; ++k) {
        long ni = (long)i + step[k][0], nj = (long)j + step[k][1];
        has[k] = ni >= 0 && nj >= 0 && ni < (long)cu && nj < (long)cv;
        if (!has[k]) continue;
        const double *r = &s->pos[3 * ((size_t)ni + (size_t)cu * (size_t)nj)];
        for (int a = 0; a < 3; ++a) e[k][a] = r[a] - q[a];
    }
    double n[4][3];
    int normals = 0;
    for (int k = 0; k < 4; ++k) {
        int l = (k + 1) % 4;
        if (!has[k] || !has[l]) continue;
        sn_cross3(e[k], e[l], n[normals]);
        if (sn_normalize3(n[normals]) > 0.0) ++normals;
    }
    for (int a = 0; a < normals; ++a)
        for (int b = a + 1; b < normals; ++b)
            if (sn_dot3(n[a], n[b]) < cos_limit) return true;
    return false;
}

/* Marks every mass within `rings` (Chebyshev distance on the grid) of a
 * candidate as active: two separable passes of windowed prefix counts. */
static void dilate(relax_state *s, uint32_t rings)
{
    const uint32_t cu = s->p->count[0], cv = s->p->count[1];
    uint32_t *w = s->window;
    for (uint32_t j = 0; j < cv; ++j) {
        const uint8_t *row = &s->candidate[(size_t)cu * j];
        w[0] = 0;
        for (uint32_t i = 0; i < cu; ++i) w[i + 1] = w[i] + row[i];
        for (uint32_t i = 0; i < cu; ++i) {
            uint32_t lo = i > rings ? i - rings : 0, hi = i + rings + 1 < cu ? i + rings + 1 : cu;
            s->active[i + (size_t)cu * j] = w[hi] > w[lo];
        }
    }
    for (uint32_t i = 0; i < cu; ++i) {
        w[0] = 0;
        for (uint32_t j = 0; j < cv; ++j) w[j + 1] = w[j] + s->active[i + (size_t)cu * j];
        for (uint32_t j = 0; j < cv; ++j) {
            uint32_t lo = j > rings ? j - rings : 0, hi = j + rings + 1 < cv ? j + rings + 1 : cv;
            /* Store in the candidate array (free by now) to keep the passes apart. */
            s->candidate[i + (size_t)cu * j] = w[hi] > w[lo];
        }
    }
    memcpy(s->active, s->candidate, (size_t)cu * cv);
}

/* The integration's constants, resolved from the desc's zeros. */
typedef struct relax_params {
    double kappa;       /* stiffness / mass */
    double dt, damping, cos_limit;
    uint32_t rings, max_steps;
} relax_params;

static sinew_result resolve_params(const sinew_placement_relax_desc *desc, relax_params *k)
{
    sinew_placement_relax_desc d = *desc;
    sn_place_relax_resolve(&d);   /* the values sinew_placement_relax_desc_defaults reports */
    k->kappa = (double)d.stiffness / d.mass;
    if (!isfinite(k->kappa) || !(k->kappa > 0.0))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "relax stiffness / mass is %g; it must be finite and > 0",
                       k->kappa);
    /* Four springs per mass: the stiffness matrix's eigenvalues lie below
     * 8 k / M (Gershgorin), so symplectic Euler is stable for dt < 2 / sqrt(8k/M);
     * half that keeps a margin for the damping term. */
    k->dt = 1.0 / sqrt(8.0 * k->kappa);
    k->damping = d.damping;
    k->cos_limit = cos(d.angle_degrees * 3.14159265358979323846 / 180.0);
    k->rings = d.neighbourhood;
    k->max_steps = d.max_steps;
    return SINEW_OK;
}

static sinew_result alloc_state(relax_state *s, const sn_env *e, size_t columns)
{
    const uint32_t cu = s->p->count[0], cv = s->p->count[1];
    if (!(s->lift = sn_alloc_array(e, columns, sizeof(double), "relax lifts")) ||
        !(s->vel = sn_calloc_array(e, columns, sizeof(double), "relax velocities")) ||
        !(s->accel = sn_alloc_array(e, columns, sizeof(double), "relax accelerations")) ||
        !(s->pos = sn_alloc_array(e, columns, 3 * sizeof(double), "relax positions")) ||
        !(s->candidate = sn_alloc_array(e, columns, 1, "relax candidates")) ||
        !(s->active = sn_alloc_array(e, columns, 1, "relax active masses")) ||
        !(s->window = sn_alloc_array(e, (cu > cv ? cu : cv) + 1, sizeof(uint32_t), "relax windows")))
        return sn_alloc_failure();
    return SINEW_OK;
}

static void free_state(relax_state *s, const sn_env *e)
{
    sn_free(e, s->lift);
    sn_free(e, s->vel);
    sn_free(e, s->accel);
    sn_free(e, s->pos);
    sn_free(e, s->candidate);
    sn_free(e, s->active);
    sn_free(e, s->window);
}

/* Length under which a mass counts as at rest: a small share of the mean
 * grid spacing along u. */
static double rest_tolerance(const relax_state *s)
{
    const uint32_t cu = s->p->count[0], cv = s->p->count[1];
    double spacing = 0.0;
    size_t edges = 0;
    for (uint32_t j = 0; j < cv; ++j)
        for (uint32_t i = 0; i + 1 < cu; ++i) {
            const double *a = &s->pos[3 * (i + (size_t)cu * j)];
            const double *b = a + 3;
            spacing += sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]));
            ++edges;
        }
    return 1e-5 * (edges ? spacing / (double)edges : 1.0);
}

/* Spring force along the mass's own direction: sum over the grid neighbours
 * of (P_n - P) . D. */
static double spring_force(const relax_state *s, uint32_t i, uint32_t j)
{
    const uint32_t cu = s->p->count[0], cv = s->p->count[1];
    const size_t c = i + (size_t)cu * j;
    const double *q = &s->pos[3 * c];
    const float *dir = &s->p->dof[3 * c];
    double f = 0.0;
    if (i > 0) f += (q[-3] - q[0]) * dir[0] + (q[-2] - q[1]) * dir[1] + (q[-1] - q[2]) * dir[2];
    if (i + 1 < cu) f += (q[3] - q[0]) * dir[0] + (q[4] - q[1]) * dir[1] + (q[5] - q[2]) * dir[2];
    if (j > 0) {
        const double *n = q - 3 * (size_t)cu;
        f += (n[0] - q[0]) * dir[0] + (n[1] - q[1]) * dir[1] + (n[2] - q[2]) * dir[2];
    }
    if (j + 1 < cv) {
        const double *n = q + 3 * (size_t)cu;
        f += (n[0] - q[0]) * dir[0] + (n[1] - q[1]) * dir[1] + (n[2] - q[2]) * dir[2];
    }
    return f;
}

/* Accelerations from the current positions, a = k/M f - c v, and the
 * candidates: moving masses that fail the angle criterion. Returns their count. */
static size_t accelerate(relax_state *s, const relax_params *k, double rest_tol)
{
    const sinew_placement *p = s->p;
    const uint32_t cu = p->count[0], cv = p->count[1];
    size_t candidates = 0;
    for (uint32_t j = 0; j < cv; ++j)
        for (uint32_t i = 0; i < cu; ++i) {
            size_t c = i + (size_t)cu * j;
            double a = k->kappa * spring_force(s, i, j) - k->damping * s->vel[c];
            /* A mass held by the scene below (or above) cannot follow. */
            if ((s->lift[c] <= 0.0 && a < 0.0 && s->vel[c] <= 0.0) ||
                (s->lift[c] >= (double)p->ceiling[c] && a > 0.0 && s->vel[c] >= 0.0))
                a = 0.0;
            s->accel[c] = a;
            bool resting = fabs(s->vel[c]) * k->dt <= rest_tol && fabs(a) * k->dt * k->dt <= rest_tol;
            s->candidate[c] = !resting && fails_angle(s, i, j, k->cos_limit);
            candidates += s->candidate[c];
        }
    return candidates;
}

/* One symplectic Euler step of the active masses, clamped to the collision
 * range; the others stop. */
static void integrate(relax_state *s, double dt, size_t columns)
{
    const sinew_placement *p = s->p;
    for (size_t c = 0; c < columns; ++c) {
        if (!s->active[c]) {
            s->vel[c] = 0.0;
            continue;
        }
        s->vel[c] += s->accel[c] * dt;
        s->lift[c] += s->vel[c] * dt;
        if (s->lift[c] < 0.0) s->lift[c] = 0.0, s->vel[c] = 0.0;
        if (s->lift[c] > (double)p->ceiling[c]) s->lift[c] = (double)p->ceiling[c], s->vel[c] = 0.0;
    }
    positions(s);
}

/* Writes the lifts into the placement and rebuilds the layers (F2 re-reads
 * its normals); on failure the placement is left as it was. */
static sinew_result commit(sinew_placement *p, const relax_state *s, size_t columns, float *saved, double *max_lift)
{
    memcpy(saved, p->lift, columns * sizeof(float));
    *max_lift = 0.0;
    for (size_t c = 0; c < columns; ++c) {
        p->lift[c] = (float)s->lift[c];
        *max_lift = fmax(*max_lift, s->lift[c]);
    }
    sinew_result r = sn_place_update_lattice(p, p->volume == SINEW_PLACEMENT_OFFSET);
    if (r) {
        memcpy(p->lift, saved, columns * sizeof(float));
        sn_place_restore_lattice(p);
    }
    return r;
}

sinew_result sinew_placement_relax(sinew_context *ctx, sinew_placement *placement,
                                   const sinew_placement_relax_desc *desc, sinew_placement_relax_report *report)
{
    sn_clear_error();
    if (!placement) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "placement is NULL");
    sinew_placement_relax_desc d;
    memset(&d, 0, sizeof d);
    sinew_result r = SINEW_OK;
    if (desc && (r = sn_read_struct(&d, sizeof d, desc, "relax desc")) != SINEW_OK) return r;
    if (report && (r = sn_check_struct_out(report, "relax report")) != SINEW_OK) return r;
    r = check_relax(&d);
    if (r) return r;
    relax_params k = {0};
    if ((r = resolve_params(&d, &k))) return r;
    sinew_placement *p = placement;
    const size_t columns = (size_t)p->count[0] * p->count[1];

    relax_state s;
    memset(&s, 0, sizeof s);
    s.p = p;
    sn_env call;
    sn_env_for_call(&call, &p->env, ctx);
    const sn_env *e = &call;
    float *saved = NULL;
    if ((r = alloc_state(&s, e, columns)) ||
        !(saved = sn_alloc_array(e, columns, sizeof(float), "relax saved lifts"))) {
        if (!r) r = sn_alloc_failure();
        goto done;
    }
    /* Start inside the collision range: pushed-in points come back up. */
    for (size_t c = 0; c < columns; ++c) s.lift[c] = fmin(fmax((double)p->lift[c], 0.0), (double)p->ceiling[c]);
    positions(&s);
    const double rest_tol = rest_tolerance(&s);

    uint32_t step = 0;
    size_t candidates = 0;
    for (;; ++step) {
        candidates = accelerate(&s, &k, rest_tol);
        if (candidates == 0 || step >= k.max_steps) break;
        if ((step & 255u) == 0 && (r = sn_progress(e, "placement: relax", (float)step / (float)k.max_steps)))
            goto done;
        dilate(&s, k.rings);
        integrate(&s, k.dt, columns);
    }

    double max_lift;
    if ((r = commit(p, &s, columns, saved, &max_lift))) goto done;
    if (report) {
        sinew_placement_relax_report filled;
        memset(&filled, 0, sizeof filled);
        filled.steps = step;
        filled.candidates = candidates;
        filled.time_step = (float)k.dt;
        filled.max_lift = (float)max_lift;
        sn_write_struct(report, &filled, sizeof filled);
    }
    r = candidates ? sn_fail(SINEW_ERROR_NOT_CONVERGED,
                             "relaxation stopped at its cap of %u steps with %zu masses still failing the angle "
                             "criterion (normals more than %g degrees apart); largest lift %g",
                             step, candidates, acos(k.cos_limit) * 180.0 / 3.14159265358979323846, max_lift)
                   : SINEW_OK;
done:
    free_state(&s, e);
    sn_free(e, saved);
    return r;
}
