/* Smooth skinning, pose phase: sinew_skin_deform against closed-form cases and
 * against a plain double-precision implementation written here, on the
 * libigl arm (real BBW weights) and on synthetic rigs with 1..8 influences,
 * for every kernel path this machine runs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "skin_test_util.h"
#include "support.h"

static void random_rigid(support_rng *rng, double max_angle, double reach, float m[16])
{
    double axis[3] = {support_rng_uniform(rng, -1, 1), support_rng_uniform(rng, -1, 1),
                      support_rng_uniform(rng, -1, 1) + 0.1};
    double t[3] = {support_rng_uniform(rng, -reach, reach), support_rng_uniform(rng, -reach, reach),
                   support_rng_uniform(rng, -reach, reach)};
    double one[3] = {1, 1, 1};
    skin_test_trs(axis, support_rng_uniform(rng, -max_angle, max_angle), t, one, m);
}

static void random_stretchy(support_rng *rng, double reach, float m[16])
{
    double axis[3] = {support_rng_uniform(rng, -1, 1), support_rng_uniform(rng, -1, 1), 1.0};
    double t[3] = {support_rng_uniform(rng, -reach, reach), support_rng_uniform(rng, -reach, reach),
                   support_rng_uniform(rng, -reach, reach)};
    double scale[3] = {support_rng_uniform(rng, 0.6, 1.6), support_rng_uniform(rng, 0.6, 1.6),
                       support_rng_uniform(rng, 0.6, 1.6)};
    skin_test_trs(axis, support_rng_uniform(rng, -1.0, 1.0), t, scale, m);
}

/* ---- A rig: bind data plus rest streams ----------------------------------------- */

typedef struct rig {
    size_t n, joints, slots;
    uint32_t *joint;
    float *weight;
    float *inverse_bind;
    float *p, *nrm, *tan;  /* rest streams: 3, 3, 4 floats per vertex */
    float radius;          /* bounding radius of the rest positions */
    uint32_t *tris;
    size_t tri_count;
} rig;

static void rig_free(rig *r)
{
    free(r->joint), free(r->weight), free(r->inverse_bind), free(r->p), free(r->nrm), free(r->tan), free(r->tris);
    memset(r, 0, sizeof *r);
}

/* Area-weighted vertex normals and a tangent perpendicular to each, with
 * alternating handedness. */
static void rig_normals_tangents(rig *r)
{
    r->nrm = calloc(3 * r->n, sizeof(float));
    r->tan = calloc(4 * r->n, sizeof(float));
    for (size_t t = 0; t < r->tri_count; ++t) {
        const float *a = r->p + 3 * r->tris[3 * t], *b = r->p + 3 * r->tris[3 * t + 1], *c = r->p + 3 * r->tris[3 * t + 2];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int k = 0; k < 3; ++k)
            for (int i = 0; i < 3; ++i) r->nrm[3 * r->tris[3 * t + k] + i] += f[i];
    }
    for (size_t v = 0; v < r->n; ++v) {
        float *n = r->nrm + 3 * v;
        float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (l == 0.0f) n[0] = 0, n[1] = 0, n[2] = 1, l = 1;
        for (int i = 0; i < 3; ++i) n[i] /= l;
        /* tangent = normalize(n x (pick axis least aligned with n)) */
        float ax[3] = {0, 0, 0};
        ax[fabsf(n[0]) < 0.5f ? 0 : 1] = 1.0f;
        float *t = r->tan + 4 * v;
        t[0] = n[1] * ax[2] - n[2] * ax[1], t[1] = n[2] * ax[0] - n[0] * ax[2], t[2] = n[0] * ax[1] - n[1] * ax[0];
        l = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        for (int i = 0; i < 3; ++i) t[i] /= l;
        t[3] = (v % 3 == 0) ? -1.0f : 1.0f;
    }
}

static void rig_radius(rig *r)
{
    double m = 0.0;
    for (size_t i = 0; i < 3 * r->n; ++i) m = fmax(m, fabs(r->p[i]));
    r->radius = (float)m;
}

/* Synthetic influences: vertex v has 1 + (v / block) % kmax nonzero
 * influences on distinct random joints, scattered over `slots` slots with zero
 * padding. block 1 alternates counts every vertex (runs of one vertex per
 * kernel group); larger blocks give long runs. With joint_share > 1 the
 * vertices of each run of joint_share that have the run's first influence
 * count also have its joints, in the same slots (with their own weights): the
 * blocks of a SIMD kernel then often share a joint tuple, as on a real mesh. */
static size_t weight_block = 1;
static size_t joint_share = 1;
static void rig_random_weights(rig *r, support_rng *rng, size_t joints, size_t kmax, size_t slots)
{
    r->joints = joints;
    r->slots = slots;
    r->joint = calloc(r->n * slots, sizeof(uint32_t));
    r->weight = calloc(r->n * slots, sizeof(float));
    r->inverse_bind = malloc(16 * joints * sizeof(float));
    for (size_t j = 0; j < joints; ++j) random_rigid(rng, 3.0, r->radius, r->inverse_bind + 16 * j);
    uint32_t used[16];
    size_t shared_k = 0, start = 0;
    for (size_t v = 0; v < r->n; ++v) {
        size_t k = 1 + (v / weight_block) % kmax;
        double w[16], sum = 0.0;
        const bool share = v % joint_share != 0 && k == shared_k;
        for (size_t s = 0; s < k; ++s) {
            uint32_t j;
            bool dup;
            do {
                j = share ? used[s] : (uint32_t)(support_rng_next(rng) % joints);
                dup = false;
                for (size_t q = 0; q < s && !share; ++q) dup |= used[q] == j;
            } while (dup);
            used[s] = j;
            w[s] = support_rng_uniform(rng, 0.05, 1.0);
            sum += w[s];
        }
        /* Bind sorts a vertex's influences by decreasing weight: sharing runs
         * give slot s the s-th largest weight, so the sorted joints agree too. */
        for (size_t s = 1; joint_share > 1 && s < k; ++s)
            for (size_t q = s; q > 0 && w[q] > w[q - 1]; --q) {
                const double t = w[q];
                w[q] = w[q - 1], w[q - 1] = t;
            }
        if (v % joint_share == 0) shared_k = k;
        /* Place the k influences in random distinct slots (the run's, when sharing). */
        if (!share) start = (size_t)(support_rng_next(rng) % (slots - k + 1));
        for (size_t s = 0; s < k; ++s) {
            r->joint[v * slots + start + s] = used[s];
            r->weight[v * slots + start + s] = (float)(w[s] / sum);
        }
        for (size_t s = 0; s < slots; ++s)
            if (r->weight[v * slots + s] == 0.0f) r->joint[v * slots + s] = (uint32_t)(support_rng_next(rng) % 1000);
    }
}

/* A tube along x of `rings` rings of `segs` vertices each, radius 0.5, x in [0, 2]. */
static void rig_tube(rig *r, size_t rings, size_t segs)
{
    memset(r, 0, sizeof *r);
    r->n = rings * segs;
    r->p = malloc(3 * r->n * sizeof(float));
    r->tri_count = 2 * (rings - 1) * segs;
    r->tris = malloc(3 * r->tri_count * sizeof(uint32_t));
    const double pi = 3.14159265358979323846;
    for (size_t i = 0; i < rings; ++i)
        for (size_t s = 0; s < segs; ++s) {
            float *p = r->p + 3 * (i * segs + s);
            double a = 2.0 * pi * (double)s / (double)segs;
            p[0] = (float)(2.0 * (double)i / (double)(rings - 1));
            p[1] = (float)(0.5 * cos(a));
            p[2] = (float)(0.5 * sin(a));
        }
    size_t t = 0;
    for (size_t i = 0; i + 1 < rings; ++i)
        for (size_t s = 0; s < segs; ++s) {
            uint32_t a = (uint32_t)(i * segs + s), b = (uint32_t)(i * segs + (s + 1) % segs);
            uint32_t c = a + (uint32_t)segs, d = b + (uint32_t)segs;
            uint32_t *q = r->tris + 3 * t;
            q[0] = a, q[1] = b, q[2] = d, q[3] = a, q[4] = d, q[5] = c;
            t += 2;
        }
    rig_normals_tangents(r);
    rig_radius(r);
}

static bool rig_arm(rig *r)
{
    char obj[1024], dmat[1024];
    if (!support_data_path("libigl-tutorial-data/arm.obj", obj, sizeof obj) ||
        !support_data_path("libigl-tutorial-data/arm-weights.dmat", dmat, sizeof dmat))
        return false;
    support_mesh m;
    memset(r, 0, sizeof *r);
    if (!support_read_obj(obj, &m)) return false;
    double *w = NULL;
    size_t rows = 0, cols = 0;
    if (!support_read_dmat(dmat, &w, &rows, &cols) || rows != m.vertex_count) {
        support_mesh_free(&m);
        free(w);
        return false;
    }
    r->n = m.vertex_count;
    r->p = malloc(3 * r->n * sizeof(float));
    memcpy(r->p, m.positions, 3 * r->n * sizeof(float));
    r->tri_count = m.triangle_count;
    r->tris = malloc(3 * r->tri_count * sizeof(uint32_t));
    memcpy(r->tris, m.triangles, 3 * r->tri_count * sizeof(uint32_t));
    support_mesh_free(&m);
    rig_normals_tangents(r);
    rig_radius(r);
    /* BBW weights: one column per handle. Tiny negatives from the solver are
     * clamped and each row renormalised here, so the rig is clean input. */
    r->joints = cols;
    r->slots = cols;
    r->joint = malloc(r->n * cols * sizeof(uint32_t));
    r->weight = malloc(r->n * cols * sizeof(float));
    for (size_t v = 0; v < r->n; ++v) {
        double sum = 0.0;
        for (size_t j = 0; j < cols; ++j) sum += fmax(0.0, w[j * rows + v]);
        for (size_t j = 0; j < cols; ++j) {
            double x = fmax(0.0, w[j * rows + v]) / sum;
            r->joint[v * cols + j] = (uint32_t)j;
            r->weight[v * cols + j] = x < 1e-4 ? 0.0f : (float)x;
        }
        double s2 = 0.0;
        for (size_t j = 0; j < cols; ++j) s2 += r->weight[v * cols + j];
        for (size_t j = 0; j < cols; ++j) r->weight[v * cols + j] = (float)(r->weight[v * cols + j] / s2);
    }
    free(w);
    support_rng rng;
    support_rng_seed(&rng, 7);
    r->inverse_bind = malloc(16 * cols * sizeof(float));
    for (size_t j = 0; j < cols; ++j) random_rigid(&rng, 3.0, r->radius, r->inverse_bind + 16 * j);
    return true;
}

/* Blend mode of the skins rig_skin creates (linear unless a test says). */
static sinew_skin_blend rig_blend = SINEW_SKIN_BLEND_LINEAR;

static sinew_skin *rig_skin(const rig *r, sinew_skin_kernel kernel, sinew_skin_storage storage,
                            sinew_skin_normals normals)
{
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.blend = rig_blend;
    d.vertex_count = r->n;
    d.joint_count = r->joints;
    d.influence_count = r->slots;
    d.joints = r->joint;
    d.weights = r->weight;
    d.inverse_bind = r->inverse_bind;
    d.kernel = kernel;
    d.storage = storage;
    d.normals = normals;
    d.renormalise = 1;
    sinew_skin *s = NULL;
    sinew_result res = sinew_skin_create(NULL, &d, &s);
    if (res != SINEW_OK) fail_msg("create: %s: %s", sinew_result_string(res), sinew_last_error());
    return s;
}

/* ---- Independent reference: plain double-precision linear blend ---------------- */

typedef struct pose {
    float *world;     /* 16 per joint */
    bool *nonrigid;   /* per joint, as the test built it */
} pose;

/* The normal modes as skin.h defines them: the inverse transpose of the
 * blended matrix (explicit adjugate / det), of the largest-weight joint's, or
 * the blended matrix itself; tangent w flips where det A < 0. */
static void ref_deform(const rig *r, const pose *ps, sinew_skin_normals normals, double *p, double *n, double *t)
{
    for (size_t v = 0; v < r->n; ++v) {
        double a[12] = {0}; /* 3x4 column-major */
        double best = -1.0;
        size_t best_slot = 0;
        for (size_t s = 0; s < r->slots; ++s) {
            double w = r->weight[v * r->slots + s];
            if (w == 0.0) continue;
            uint32_t j = r->joint[v * r->slots + s];
            if (w > best || (w == best && j < r->joint[v * r->slots + best_slot])) best = w, best_slot = s;
            const float *W = ps->world + 16 * j, *B = r->inverse_bind + 16 * j;
            for (int c = 0; c < 4; ++c)
                for (int row = 0; row < 3; ++row) {
                    double m = c == 3 ? (double)W[12 + row] : 0.0;
                    for (int k = 0; k < 3; ++k) m += (double)W[4 * k + row] * (double)B[4 * c + k];
                    a[3 * c + row] += w * m;
                }
        }
        const float *P = r->p + 3 * v, *N = r->nrm + 3 * v, *T = r->tan + 4 * v;
        for (int row = 0; row < 3; ++row)
            p[3 * v + row] = a[row] * P[0] + a[3 + row] * P[1] + a[6 + row] * P[2] + a[9 + row];
        double det = a[0] * (a[4] * a[8] - a[7] * a[5]) - a[3] * (a[1] * a[8] - a[7] * a[2]) +
                     a[6] * (a[1] * a[5] - a[4] * a[2]);
        double nn[3];
        const double *L = a;
        double single[12];
        if (normals == SINEW_SKIN_NORMALS_LARGEST_WEIGHT) {
            uint32_t j = r->joint[v * r->slots + best_slot];
            const float *W = ps->world + 16 * j, *B = r->inverse_bind + 16 * j;
            for (int c = 0; c < 3; ++c)
                for (int row = 0; row < 3; ++row) {
                    double m = 0.0;
                    for (int k = 0; k < 3; ++k) m += (double)W[4 * k + row] * (double)B[4 * c + k];
                    single[3 * c + row] = m;
                }
            L = single;
        }
        if (normals != SINEW_SKIN_NORMALS_BLENDED_MATRIX) {
            /* Inverse transpose by explicit adjugate, times sign(det). */
            const double *c0 = L, *c1 = L + 3, *c2 = L + 6;
            double x12[3] = {c1[1] * c2[2] - c1[2] * c2[1], c1[2] * c2[0] - c1[0] * c2[2], c1[0] * c2[1] - c1[1] * c2[0]};
            double x20[3] = {c2[1] * c0[2] - c2[2] * c0[1], c2[2] * c0[0] - c2[0] * c0[2], c2[0] * c0[1] - c2[1] * c0[0]};
            double x01[3] = {c0[1] * c1[2] - c0[2] * c1[1], c0[2] * c1[0] - c0[0] * c1[2], c0[0] * c1[1] - c0[1] * c1[0]};
            double d = c0[0] * x12[0] + c0[1] * x12[1] + c0[2] * x12[2];
            for (int i = 0; i < 3; ++i) nn[i] = (x12[i] * N[0] + x20[i] * N[1] + x01[i] * N[2]) / d;
        } else {
            for (int i = 0; i < 3; ++i) nn[i] = L[i] * N[0] + L[3 + i] * N[1] + L[6 + i] * N[2];
        }
        double l = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
        for (int i = 0; i < 3; ++i) n[3 * v + i] = nn[i] / l;
        double tt[3];
        for (int i = 0; i < 3; ++i) tt[i] = a[i] * T[0] + a[3 + i] * T[1] + a[6 + i] * T[2];
        l = sqrt(tt[0] * tt[0] + tt[1] * tt[1] + tt[2] * tt[2]);
        for (int i = 0; i < 3; ++i) t[4 * v + i] = tt[i] / l;
        t[4 * v + 3] = det < 0.0 ? -T[3] : T[3];
    }
}

static void pose_alloc(pose *ps, size_t joints)
{
    ps->world = malloc(16 * joints * sizeof(float));
    ps->nonrigid = calloc(joints, sizeof(bool));
}
static void pose_free(pose *ps)
{
    free(ps->world);
    free(ps->nonrigid);
}

/* World matrices W_j = G_j * B_j with G_j a moderate rigid motion (angles
 * below 60 degrees, so blended normals cannot cancel) or, when stretch, a
 * non-uniform scale for every other joint. */
static void pose_random(pose *ps, const rig *r, support_rng *rng, bool stretch)
{
    for (size_t j = 0; j < r->joints; ++j) {
        float g[16], bind[16];
        if (stretch && j % 2 == 1) {
            random_stretchy(rng, r->radius, g);
            ps->nonrigid[j] = true;
        } else {
            random_rigid(rng, 1.0, r->radius, g);
            ps->nonrigid[j] = false;
        }
        /* B_j = inverse of the rigid inverse bind: transpose rotation. */
        const float *ib = r->inverse_bind + 16 * j;
        skin_test_identity(bind);
        for (int c = 0; c < 3; ++c)
            for (int row = 0; row < 3; ++row) bind[4 * c + row] = ib[4 * row + c];
        for (int row = 0; row < 3; ++row)
            bind[12 + row] = -(bind[row] * ib[12] + bind[4 + row] * ib[13] + bind[8 + row] * ib[14]);
        skin_test_mul(g, bind, ps->world + 16 * j);
    }
}

typedef struct outputs {
    float *p, *n, *t;
} outputs;

static void outputs_alloc(outputs *o, size_t n)
{
    o->p = malloc(3 * n * sizeof(float));
    o->n = malloc(3 * n * sizeof(float));
    o->t = malloc(4 * n * sizeof(float));
}
static void outputs_free(outputs *o)
{
    free(o->p), free(o->n), free(o->t);
}

static void run(const sinew_skin *skin, const rig *r, const pose *ps, outputs *o, unsigned mask)
{
    sinew_skin_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_skin_get_info(skin, &info), SINEW_OK);
    float *pal = malloc(info.palette_floats * sizeof(float));
    assert_int_equal(sinew_skin_palette(skin, ps->world, info.joint_count, pal, sinew_skin_palette_size(skin)), SINEW_OK);
    sinew_skin_input in = {r->p, 0, r->nrm, 0, r->tan, 0};
    sinew_skin_output out = {(mask & 1) ? o->p : NULL, 0, (mask & 2) ? o->n : NULL, 0, (mask & 4) ? o->t : NULL, 0};
    sinew_result res = sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &out, 0, r->n);
    if (res != SINEW_OK) fail_msg("deform: %s", sinew_last_error());
    free(pal);
}

/* Largest error of o against the reference; positions relative to scale. */
typedef struct errors {
    double p, n, t;
    int w_mismatch;
} errors;

static errors compare_ref(const rig *r, const outputs *o, const double *p, const double *n, const double *t,
                          double scale)
{
    errors e = {0, 0, 0, 0};
    for (size_t v = 0; v < r->n; ++v) {
        for (int i = 0; i < 3; ++i) {
            e.p = fmax(e.p, fabs(o->p[3 * v + i] - p[3 * v + i]) / scale);
            e.n = fmax(e.n, fabs(o->n[3 * v + i] - n[3 * v + i]));
            e.t = fmax(e.t, fabs(o->t[4 * v + i] - t[4 * v + i]));
        }
        e.w_mismatch += o->t[4 * v + 3] != (float)t[4 * v + 3];
    }
    return e;
}

static const sinew_skin_kernel all_kernels[] = {SINEW_SKIN_KERNEL_SCALAR, SINEW_SKIN_KERNEL_SSE2,
                                                SINEW_SKIN_KERNEL_AVX2, SINEW_SKIN_KERNEL_AVX512};
enum { ALL_KERNELS = sizeof all_kernels / sizeof *all_kernels };
static const char *kernel_name(sinew_skin_kernel k)
{
    return k == SINEW_SKIN_KERNEL_SCALAR ? "scalar" : k == SINEW_SKIN_KERNEL_SSE2 ? "sse2"
                                                  : k == SINEW_SKIN_KERNEL_AVX2   ? "avx2"
                                                                                  : "avx512";
}

/* Whether this build/CPU runs kernel k (creating with it says so); says once
 * per kernel when it does not, so the log shows what was not covered. */
static bool kernel_runs(sinew_skin_kernel k)
{
    static bool told[8];
    sinew_result r = skin_test_kernel_status(k);
    if (r != SINEW_OK) assert_int_equal(r, SINEW_ERROR_UNSUPPORTED);
    if (r != SINEW_OK && !told[k & 7]) {
        told[k & 7] = true;
        print_message("  kernel %s not available in this build or on this CPU: not covered\n", kernel_name(k));
    }
    return r == SINEW_OK;
}

static const sinew_skin_normals all_normals[] = {SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE,
                                                 SINEW_SKIN_NORMALS_LARGEST_WEIGHT,
                                                 SINEW_SKIN_NORMALS_BLENDED_MATRIX};
static const char *normals_name(sinew_skin_normals m)
{
    return m == SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE ? "inverse-transpose"
           : m == SINEW_SKIN_NORMALS_LARGEST_WEIGHT  ? "largest-weight"
                                                      : "blended-matrix";
}

/* ---- Tests -------------------------------------------------------------------------- */

static void check_against_reference(const rig *r, sinew_skin_normals normals, bool stretch, double tol_p,
                                    double tol_dir)
{
    support_rng rng;
    support_rng_seed(&rng, 99);
    pose ps;
    pose_alloc(&ps, r->joints);
    pose_random(&ps, r, &rng, stretch);
    double *p = malloc(3 * r->n * sizeof(double)), *n = malloc(3 * r->n * sizeof(double)),
           *t = malloc(4 * r->n * sizeof(double));
    ref_deform(r, &ps, normals, p, n, t);
    outputs o;
    outputs_alloc(&o, r->n);
    for (size_t k = 0; k < ALL_KERNELS; ++k) {
        if (!kernel_runs(all_kernels[k])) continue;
        sinew_skin *skin = rig_skin(r, all_kernels[k], SINEW_SKIN_STORAGE_FLOAT, normals);
        run(skin, r, &ps, &o, 7);
        errors e = compare_ref(r, &o, p, n, t, r->radius);
        print_message("  %s%s %s normals: max error vs double reference: position %.2e (relative), normal %.2e, "
                      "tangent %.2e\n",
                      kernel_name(all_kernels[k]), stretch ? " stretch" : "", normals_name(normals), e.p, e.n, e.t);
        assert_true(e.p < tol_p);
        assert_true(e.n < tol_dir);
        assert_true(e.t < tol_dir);
        assert_int_equal(e.w_mismatch, 0);
        sinew_skin_destroy(skin);
    }
    outputs_free(&o);
    free(p), free(n), free(t);
    pose_free(&ps);
}

static void arm_matches_double_reference(void **state)
{
    (void)state;
    rig r;
    if (!rig_arm(&r)) skip();
    for (int m = 0; m < 3; ++m)
        for (int stretch = 0; stretch < 2; ++stretch) check_against_reference(&r, all_normals[m], stretch, 2e-6, 2e-5);
    rig_free(&r);
}

static void many_influences_match_double_reference(void **state)
{
    (void)state;
    rig r;
    rig_tube(&r, 40, 32);
    support_rng rng;
    support_rng_seed(&rng, 5);
    rig_random_weights(&r, &rng, 24, 8, 11);
    for (int m = 0; m < 3; ++m)
        for (int stretch = 0; stretch < 2; ++stretch) check_against_reference(&r, all_normals[m], stretch, 2e-6, 2e-5);
    rig_free(&r);
}

/* Every SIMD path against the scalar one, every stream combination, both
 * storages, rigid and stretched poses: within 1e-5 relative. */
static void kernels_agree_with_scalar_blocks(size_t block)
{
    weight_block = block;
    rig r;
    rig_tube(&r, 30, 24);
    support_rng rng;
    support_rng_seed(&rng, 11);
    rig_random_weights(&r, &rng, 300, 8, 9);
    pose ps;
    pose_alloc(&ps, r.joints);
    outputs ref, o;
    outputs_alloc(&ref, r.n);
    outputs_alloc(&o, r.n);
    int compared = 0;
    for (int stretch = 0; stretch < 2; ++stretch) {
        pose_random(&ps, &r, &rng, stretch);
        for (int cfg = 0; cfg < 6; ++cfg) {
            const int storage = cfg % 2;
            const sinew_skin_normals normals = all_normals[cfg / 2];
            sinew_skin *scalar = rig_skin(&r, SINEW_SKIN_KERNEL_SCALAR, (sinew_skin_storage)storage, normals);
            run(scalar, &r, &ps, &ref, 7);
            for (size_t k = 1; k < ALL_KERNELS; ++k) {
                if (!kernel_runs(all_kernels[k])) continue;
                sinew_skin *skin = rig_skin(&r, all_kernels[k], (sinew_skin_storage)storage, normals);
                for (unsigned mask = 1; mask < 8; ++mask) {
                    memset(o.p, 0, 3 * r.n * sizeof(float));
                    memset(o.n, 0, 3 * r.n * sizeof(float));
                    memset(o.t, 0, 4 * r.n * sizeof(float));
                    run(skin, &r, &ps, &o, mask);
                    for (size_t i = 0; i < 3 * r.n; ++i) {
                        if (mask & 1) assert_true(fabsf(o.p[i] - ref.p[i]) <= 1e-5f * fmaxf(r.radius, fabsf(ref.p[i])));
                        if (mask & 2) assert_true(fabsf(o.n[i] - ref.n[i]) <= 1e-5f);
                    }
                    if (mask & 4)
                        for (size_t i = 0; i < 4 * r.n; ++i) assert_true(fabsf(o.t[i] - ref.t[i]) <= 1e-5f);
                    ++compared;
                }
                sinew_skin_destroy(skin);
            }
            sinew_skin_destroy(scalar);
        }
    }
    print_message("  %d SIMD runs compared with scalar (influence count changing every %zu vertices)\n", compared,
                  block);
    outputs_free(&ref), outputs_free(&o);
    pose_free(&ps);
    rig_free(&r);
    weight_block = 1;
}

static void kernels_agree_with_scalar(void **state)
{
    (void)state;
    kernels_agree_with_scalar_blocks(1);
    kernels_agree_with_scalar_blocks(29);
    /* Runs of 13 vertices on one joint tuple: blocks of eight that share
     * their joints (blended without a transpose) beside mixed ones. */
    joint_share = 13;
    kernels_agree_with_scalar_blocks(29);
    joint_share = 1;
}

/* W_j = B_j for every joint: the rest mesh comes back. */
static void identity_pose_reproduces_rest(void **state)
{
    (void)state;
    rig r;
    rig_tube(&r, 12, 16);
    support_rng rng;
    support_rng_seed(&rng, 3);
    rig_random_weights(&r, &rng, 9, 6, 6);
    pose ps;
    pose_alloc(&ps, r.joints);
    /* Rotation by angle 0 about any axis with zero translation is G = I. */
    for (size_t j = 0; j < r.joints; ++j) {
        float *w = ps.world + 16 * j;
        const float *ib = r.inverse_bind + 16 * j;
        skin_test_identity(w);
        for (int c = 0; c < 3; ++c)
            for (int row = 0; row < 3; ++row) w[4 * c + row] = ib[4 * row + c];
        for (int row = 0; row < 3; ++row) w[12 + row] = -(w[row] * ib[12] + w[4 + row] * ib[13] + w[8 + row] * ib[14]);
    }
    outputs o;
    outputs_alloc(&o, r.n);
    for (size_t k = 0; k < ALL_KERNELS; ++k) {
        if (!kernel_runs(all_kernels[k])) continue;
        sinew_skin *skin = rig_skin(&r, all_kernels[k], SINEW_SKIN_STORAGE_FLOAT, 0);
        run(skin, &r, &ps, &o, 7);
        for (size_t i = 0; i < 3 * r.n; ++i) {
            assert_true(fabsf(o.p[i] - r.p[i]) < 2e-6f * r.radius + 2e-6f);
            assert_true(fabsf(o.n[i] - r.nrm[i]) < 2e-5f);
        }
        for (size_t v = 0; v < r.n; ++v) {
            for (int i = 0; i < 3; ++i) assert_true(fabsf(o.t[4 * v + i] - r.tan[4 * v + i]) < 2e-5f);
            assert_true(o.t[4 * v + 3] == r.tan[4 * v + 3]);
        }
        sinew_skin_destroy(skin);
    }
    outputs_free(&o);
    pose_free(&ps);
    rig_free(&r);
}

/* The same rigid motion G on every joint moves the mesh rigidly by G. */
static void rigid_motion_moves_everything_rigidly(void **state)
{
    (void)state;
    rig r;
    rig_tube(&r, 12, 16);
    support_rng rng;
    support_rng_seed(&rng, 4);
    rig_random_weights(&r, &rng, 9, 8, 8);
    float g[16];
    double axis[3] = {0.3, -1.0, 0.5}, t[3] = {3.0, -1.0, 2.0}, one[3] = {1, 1, 1};
    skin_test_trs(axis, 2.5, t, one, g);
    pose ps;
    pose_alloc(&ps, r.joints);
    pose_random(&ps, &r, &rng, false);
    for (size_t j = 0; j < r.joints; ++j) {
        /* W_j = G * B_j, B_j the inverse of the rigid inverse bind. */
        const float *ib = r.inverse_bind + 16 * j;
        float b[16];
        skin_test_identity(b);
        for (int c = 0; c < 3; ++c)
            for (int row = 0; row < 3; ++row) b[4 * c + row] = ib[4 * row + c];
        for (int row = 0; row < 3; ++row) b[12 + row] = -(b[row] * ib[12] + b[4 + row] * ib[13] + b[8 + row] * ib[14]);
        skin_test_mul(g, b, ps.world + 16 * j);
    }
    outputs o;
    outputs_alloc(&o, r.n);
    for (size_t k = 0; k < ALL_KERNELS; ++k) {
        if (!kernel_runs(all_kernels[k])) continue;
        sinew_skin *skin = rig_skin(&r, all_kernels[k], SINEW_SKIN_STORAGE_FLOAT, 0);
        run(skin, &r, &ps, &o, 7);
        for (size_t v = 0; v < r.n; ++v) {
            const float *P = r.p + 3 * v, *N = r.nrm + 3 * v, *T = r.tan + 4 * v;
            for (int i = 0; i < 3; ++i) {
                float ep = g[i] * P[0] + g[4 + i] * P[1] + g[8 + i] * P[2] + g[12 + i];
                float en = g[i] * N[0] + g[4 + i] * N[1] + g[8 + i] * N[2];
                float et = g[i] * T[0] + g[4 + i] * T[1] + g[8 + i] * T[2];
                assert_true(fabsf(o.p[3 * v + i] - ep) < 1e-5f * 4.0f);
                assert_true(fabsf(o.n[3 * v + i] - en) < 1e-5f);
                assert_true(fabsf(o.t[4 * v + i] - et) < 1e-5f);
            }
            assert_true(o.t[4 * v + 3] == T[3]);
        }
        sinew_skin_destroy(skin);
    }
    outputs_free(&o);
    pose_free(&ps);
    rig_free(&r);
}

/* The normal used to switch from A n to the inverse transpose of A
 * when a joint's scale crossed the rigidity tolerance (1e-4), a jump of up to
 * 0.34 rad. Joints: identity and Rz(90 deg) stretched by diag(s, 1, 1), weights
 * 1/2 each, normal (1, 0, 1). Sweeping s through 1 +- 1e-3 in steps of 1e-5,
 * every mode, blend and kernel must move the normal by O(step) per step; at
 * s = 1 the modes give their closed forms. Nine copies of the vertex reach the
 * wide kernels' full and partial blocks. */
static void normals_are_continuous_in_the_pose(void **state)
{
    (void)state;
    enum { V = 9, STEPS = 200 };
    const double step = 1e-5;
    uint32_t joints[2 * V];
    float weights[2 * V], p[3 * V], nrm[3 * V], tan[4 * V], alpha[V];
    const float r2 = (float)(1.0 / sqrt(2.0));
    for (size_t v = 0; v < V; ++v) {
        joints[2 * v] = 0, joints[2 * v + 1] = 1;
        weights[2 * v] = weights[2 * v + 1] = 0.5f;
        p[3 * v] = 1.0f, p[3 * v + 1] = 0.5f, p[3 * v + 2] = 0.25f;
        nrm[3 * v] = r2, nrm[3 * v + 1] = 0.0f, nrm[3 * v + 2] = r2;
        tan[4 * v] = r2, tan[4 * v + 1] = 0.0f, tan[4 * v + 2] = -r2, tan[4 * v + 3] = 1.0f;
        alpha[v] = 0.5f;
    }
    /* Closed forms at s = 1: [mode][blend linear / dual quaternion]. */
    const double h = 1.0 / sqrt(2.0), t3 = 1.0 / sqrt(3.0), s6 = 1.0 / sqrt(6.0);
    const double expect[3][2][3] = {{{t3, t3, t3}, {0.5, 0.5, h}},
                                    {{h, 0.0, h}, {h, 0.0, h}},
                                    {{s6, s6, 2.0 * s6}, {0.5, 0.5, h}}};
    double worst_ratio = 0.0;
    for (int blend = 0; blend < 3; ++blend)
        for (int mode = 0; mode < 3; ++mode)
            for (size_t k = 0; k < ALL_KERNELS; ++k) {
                if (!kernel_runs(all_kernels[k])) continue;
                sinew_skin_desc d;
                SINEW_INIT(&d);
                d.vertex_count = V, d.joint_count = 2, d.influence_count = 2;
                d.joints = joints, d.weights = weights, d.kernel = all_kernels[k];
                d.blend = (sinew_skin_blend)blend, d.dq_blend = alpha, d.normals = all_normals[mode];
                sinew_skin *skin = NULL;
                assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
                const size_t pf = sinew_skin_palette_size(skin);
                float pal[96], on[3 * V], ot[4 * V], prev[3 * V];
                assert_true(pf <= 96);
                double max_change = 0.0;
                for (int i = 0; i <= STEPS; ++i) {
                    const double sc = 1.0 - 1e-3 + step * i;
                    float world[32];
                    const double zaxis[3] = {0, 0, 1}, zero[3] = {0, 0, 0}, one[3] = {1, 1, 1},
                                 stretch[3] = {sc, 1, 1};
                    skin_test_trs(zaxis, 0.0, zero, one, world);
                    skin_test_trs(zaxis, 1.5707963267948966, zero, stretch, world + 16);
                    assert_int_equal(sinew_skin_palette(skin, world, 2, pal, pf), SINEW_OK);
                    sinew_skin_input in = {p, 0, nrm, 0, tan, 0};
                    sinew_skin_output out = {NULL, 0, on, 0, ot, 0};
                    assert_int_equal(sinew_skin_deform(skin, pal, pf, &in, &out, 0, V), SINEW_OK);
                    for (size_t v = 0; v < V; ++v) {
                        assert_true(ot[4 * v + 3] == 1.0f);   /* det A > 0 all along: no flip */
                        if (i > 0) {
                            double c2 = 0.0;
                            for (int a = 0; a < 3; ++a) c2 += pow(on[3 * v + a] - prev[3 * v + a], 2.0);
                            max_change = fmax(max_change, sqrt(c2));
                        }
                    }
                    if (i == STEPS / 2 && blend < 2)
                        for (size_t v = 0; v < V; ++v)
                            for (int a = 0; a < 3; ++a)
                                assert_true(fabs(on[3 * v + a] - expect[mode][blend][a]) < 2e-5);
                    memcpy(prev, on, sizeof prev);
                }
                /* d n / d s is O(1) here: a step moves the normal by at most
                 * a few times the step (the old switch jumped by ~0.2). */
                worst_ratio = fmax(worst_ratio, max_change / step);
                if (max_change > 5.0 * step)
                    fail_msg("blend %d, %s normals, %s kernel: a step of %g moved the normal by %g", blend,
                             normals_name(all_normals[mode]), kernel_name(all_kernels[k]), step, max_change);
                sinew_skin_destroy(skin);
            }
    print_message("  largest normal change per scale step: %.3f x the step\n", worst_ratio);
}

/* One joint scaling by (2, 0.5, 1): a sphere's normal n becomes the analytic
 * inverse transpose (2 nx... no: nx / 2, ny / 0.5, nz), normalised. A mirror
 * diag(-1, 1, 1) keeps the inverse-transpose convention and flips tangent w. */
static void nonuniform_scale_and_mirror_normals(void **state)
{
    (void)state;
    const size_t n = 200;
    float p[3 * 200], nrm[3 * 200], tan[4 * 200], w[200];
    uint32_t j[200];
    support_rng rng;
    support_rng_seed(&rng, 8);
    for (size_t v = 0; v < n; ++v) {
        double x = support_rng_uniform(&rng, -1, 1), y = support_rng_uniform(&rng, -1, 1),
               z = support_rng_uniform(&rng, -1, 1);
        double l = sqrt(x * x + y * y + z * z);
        p[3 * v] = nrm[3 * v] = (float)(x / l);
        p[3 * v + 1] = nrm[3 * v + 1] = (float)(y / l);
        p[3 * v + 2] = nrm[3 * v + 2] = (float)(z / l);
        /* a tangent of the sphere: n x z-axis (or x-axis near the poles) */
        double tx = y / l, ty = -x / l, tz = 0.0;
        if (fabs(z / l) > 0.9) tx = 0.0, ty = z / l, tz = -y / l;
        double tl = sqrt(tx * tx + ty * ty + tz * tz);
        tan[4 * v] = (float)(tx / tl), tan[4 * v + 1] = (float)(ty / tl), tan[4 * v + 2] = (float)(tz / tl);
        tan[4 * v + 3] = 1.0f;
        w[v] = 1.0f;
        j[v] = 0;
    }
    const double scales[2][3] = {{2.0, 0.5, 1.0}, {-1.0, 1.0, 1.0}};
    for (int c = 0; c < 2; ++c) {
        float world[16];
        double axis[3] = {0, 0, 1}, t[3] = {0, 0, 0};
        skin_test_trs(axis, 0.0, t, scales[c], world);
        for (size_t k = 0; k < ALL_KERNELS; ++k) {
            if (!kernel_runs(all_kernels[k])) continue;
            sinew_skin_desc d;
            SINEW_INIT(&d);
            d.vertex_count = n, d.joint_count = 1, d.influence_count = 1;
            d.joints = j, d.weights = w, d.kernel = all_kernels[k];
            sinew_skin *skin = NULL;
            assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
            float pal[48], on[3 * 200], ot[4 * 200];
            assert_int_equal(sinew_skin_palette(skin, world, 1, pal, sinew_skin_palette_size(skin)), SINEW_OK);
            assert_true(pal[3] == 1.0f); /* non-rigid flag */
            sinew_skin_input in = {p, 0, nrm, 0, tan, 0};
            sinew_skin_output out = {NULL, 0, on, 0, ot, 0};
            assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &out, 0, n), SINEW_OK);
            for (size_t v = 0; v < n; ++v) {
                double e[3];
                for (int i = 0; i < 3; ++i) e[i] = nrm[3 * v + i] / scales[c][i];
                double l = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
                for (int i = 0; i < 3; ++i) assert_true(fabs(on[3 * v + i] - e[i] / l) < 1e-5);
                /* The deformed tangent stays perpendicular to the deformed normal. */
                double dot = 0.0;
                for (int i = 0; i < 3; ++i) dot += (double)on[3 * v + i] * ot[4 * v + i];
                assert_true(fabs(dot) < 1e-5);
                assert_true(ot[4 * v + 3] == (c == 1 ? -1.0f : 1.0f));
            }
            sinew_skin_destroy(skin);
        }
    }
}

/* Deforming in chunks equals one call; bytes outside the range stay put;
 * interleaved strides and in-place work. */
static void ranges_strides_and_in_place_blocks(size_t block)
{
    weight_block = block;
    rig r;
    rig_tube(&r, 20, 20);
    support_rng rng;
    support_rng_seed(&rng, 21);
    rig_random_weights(&r, &rng, 12, 8, 8);
    pose ps;
    pose_alloc(&ps, r.joints);
    pose_random(&ps, &r, &rng, true);
    outputs whole;
    outputs_alloc(&whole, r.n);
    for (size_t cfg = 0; cfg < 9; ++cfg) {   /* every kernel, every normal mode */
        const size_t k = cfg % 3;
        if (!kernel_runs(all_kernels[k])) continue;
        sinew_skin *skin = rig_skin(&r, all_kernels[k], SINEW_SKIN_STORAGE_FLOAT, all_normals[cfg / 3]);
        run(skin, &r, &ps, &whole, 7);
        float *pal = malloc(sinew_skin_palette_size(skin) * sizeof(float));
        assert_int_equal(sinew_skin_palette(skin, ps.world, r.joints, pal, sinew_skin_palette_size(skin)), SINEW_OK);
        /* Interleaved vertex: P (3), pad, N (3), pad, T (4), pad: 15 floats. */
        const size_t stride = 15 * sizeof(float);
        float *buf = malloc(r.n * stride), *dst = malloc(r.n * stride);
        for (size_t v = 0; v < r.n; ++v) {
            memcpy(buf + 15 * v, r.p + 3 * v, 12);
            buf[15 * v + 3] = 7.0f;
            memcpy(buf + 15 * v + 4, r.nrm + 3 * v, 12);
            buf[15 * v + 7] = 7.0f;
            memcpy(buf + 15 * v + 8, r.tan + 4 * v, 16);
            buf[15 * v + 12] = buf[15 * v + 13] = buf[15 * v + 14] = 7.0f;
        }
        for (size_t i = 0; i < 15 * r.n; ++i) dst[i] = -9.0f;
        sinew_skin_input in = {buf, stride, buf + 4, stride, buf + 8, stride};
        sinew_skin_output out = {dst, stride, dst + 4, stride, dst + 8, stride};
        /* Uneven chunks, leaving [0, 5) and the last 7 vertices out. */
        size_t first = 5, end = r.n - 7;
        while (first < end) {
            size_t c = 1 + (size_t)(support_rng_next(&rng) % 37);
            if (c > end - first) c = end - first;
            assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &out, first, c), SINEW_OK);
            first += c;
        }
        for (size_t v = 0; v < r.n; ++v) {
            const float *d = dst + 15 * v;
            bool inside = v >= 5 && v < end;
            for (int i = 0; i < 3; ++i) {
                assert_true(d[i] == (inside ? whole.p[3 * v + i] : -9.0f));
                assert_true(d[4 + i] == (inside ? whole.n[3 * v + i] : -9.0f));
            }
            for (int i = 0; i < 4; ++i) assert_true(d[8 + i] == (inside ? whole.t[4 * v + i] : -9.0f));
            assert_true(d[3] == -9.0f && d[7] == -9.0f && d[12] == -9.0f && d[13] == -9.0f && d[14] == -9.0f);
        }
        /* In place: output streams alias their inputs exactly. */
        sinew_skin_output same = {buf, stride, buf + 4, stride, buf + 8, stride};
        assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &same, 0, r.n), SINEW_OK);
        for (size_t v = 0; v < r.n; ++v) {
            for (int i = 0; i < 3; ++i) {
                assert_true(buf[15 * v + i] == whole.p[3 * v + i]);
                assert_true(buf[15 * v + 4 + i] == whole.n[3 * v + i]);
            }
            for (int i = 0; i < 4; ++i) assert_true(buf[15 * v + 8 + i] == whole.t[4 * v + i]);
            assert_true(buf[15 * v + 3] == 7.0f && buf[15 * v + 7] == 7.0f && buf[15 * v + 12] == 7.0f);
        }
        free(buf), free(dst), free(pal);
        sinew_skin_destroy(skin);
    }
    outputs_free(&whole);
    pose_free(&ps);
    rig_free(&r);
    weight_block = 1;
}

static void ranges_strides_and_in_place(void **state)
{
    (void)state;
    ranges_strides_and_in_place_blocks(1);
    ranges_strides_and_in_place_blocks(23); /* chunks start and stop inside runs */
}

/* Two joints turning the normal by +90 and -90 degrees with equal weight:
 * the blend vanishes and the largest-weight joint (the lower index on a tie)
 * takes over; a zero input normal gives (0, 0, 0); nothing is NaN. */
static void vanishing_normals_are_guarded(void **state)
{
    (void)state;
    float p[6] = {0, 0, 1, 0, 0, 1}, nrm[6] = {0, 0, 1, 0, 0, 0}, tan[8] = {1, 0, 0, 1, 1, 0, 0, 1};
    uint32_t j[4] = {0, 1, 0, 1};
    float w[4] = {0.5f, 0.5f, 0.5f, 0.5f};
    float world[32];
    double ax[3] = {1, 0, 0}, t[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    skin_test_trs(ax, 1.5707963267948966, t, one, world);
    skin_test_trs(ax, -1.5707963267948966, t, one, world + 16);
    for (size_t k = 0; k < ALL_KERNELS; ++k) {
        if (!kernel_runs(all_kernels[k])) continue;
        sinew_skin_desc d;
        SINEW_INIT(&d);
        d.vertex_count = 2, d.joint_count = 2, d.influence_count = 2;
        d.joints = j, d.weights = w, d.kernel = all_kernels[k];
        sinew_skin *skin = NULL;
        assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
        float pal[32], op[6], on[6], ot[8];
        assert_int_equal(sinew_skin_palette(skin, world, 2, pal, sinew_skin_palette_size(skin)), SINEW_OK);
        sinew_skin_input in = {p, 0, nrm, 0, tan, 0};
        sinew_skin_output out = {op, 0, on, 0, ot, 0};
        assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &out, 0, 2), SINEW_OK);
        /* Joint 0 turns +z into -y. */
        assert_true(fabsf(on[0]) < 1e-6f && fabsf(on[1] + 1.0f) < 1e-6f && fabsf(on[2]) < 1e-6f);
        assert_true(on[3] == 0.0f && on[4] == 0.0f && on[5] == 0.0f);
        for (int i = 0; i < 6; ++i) assert_false(isnan(op[i]) || isnan(on[i]));
        /* The position collapses to the axis (the candy wrapper), tangent x stays. */
        assert_true(fabsf(op[1]) < 1e-6f && fabsf(op[2]) < 1e-6f);
        assert_true(fabsf(ot[0] - 1.0f) < 1e-6f && ot[3] == 1.0f);
        sinew_skin_destroy(skin);
    }
}

/* Compressed storage against float storage: the measured error stays within
 * the bound quantisation allows (each weight off by at most 1/255). */
static void compressed_matches_float_within_quantisation(void **state)
{
    (void)state;
    rig r;
    bool arm = rig_arm(&r);
    if (!arm) {
        rig_tube(&r, 30, 24);
        support_rng rng;
        support_rng_seed(&rng, 12);
        rig_random_weights(&r, &rng, 16, 4, 4);
    }
    support_rng rng;
    support_rng_seed(&rng, 13);
    pose ps;
    pose_alloc(&ps, r.joints);
    pose_random(&ps, &r, &rng, false);
    outputs f, c;
    outputs_alloc(&f, r.n);
    outputs_alloc(&c, r.n);
    sinew_skin *sf = rig_skin(&r, SINEW_SKIN_KERNEL_AUTO, SINEW_SKIN_STORAGE_FLOAT, 0);
    sinew_skin *sc = rig_skin(&r, SINEW_SKIN_KERNEL_AUTO, SINEW_SKIN_STORAGE_COMPRESSED, 0);
    run(sf, &r, &ps, &f, 7);
    run(sc, &r, &ps, &c, 7);
    /* Bound per vertex: sum_j |dw_j| * |M_j p - p'| <= (sum |dw_j|) * max_j |M_j p - p'|;
     * the weights of a vertex move by at most k/255 in total. The spread of the
     * joints' predictions is bounded by twice the largest |M_j p - q| for any q,
     * here measured against the float result. */
    sinew_skin_info info;
    SINEW_INIT(&info);
    sinew_skin_get_info(sf, &info);
    float *pal = malloc(info.palette_floats * sizeof(float));
    sinew_skin_palette(sf, ps.world, info.joint_count, pal, sinew_skin_palette_size(sf));
    double worst = 0.0, worst_ratio = 0.0;
    for (size_t v = 0; v < r.n; ++v) {
        uint32_t jj[16];
        float ww[16], wq[16];
        size_t k, kq;
        assert_int_equal(sinew_skin_vertex_influences(sf, v, jj, ww, 16, &k), SINEW_OK);
        assert_int_equal(sinew_skin_vertex_influences(sc, v, NULL, wq, 16, &kq), SINEW_OK);
        double spread = 0.0;
        for (size_t s = 0; s < k; ++s) {
            const float *m = pal + 16 * jj[s];
            const float *P = r.p + 3 * v;
            double d2 = 0.0;
            for (int i = 0; i < 3; ++i) {
                double x = m[i] * P[0] + m[4 + i] * P[1] + m[8 + i] * P[2] + m[12 + i] - f.p[3 * v + i];
                d2 += x * x;
            }
            spread = fmax(spread, sqrt(d2));
        }
        double err2 = 0.0;
        for (int i = 0; i < 3; ++i) err2 += pow(c.p[3 * v + i] - f.p[3 * v + i], 2);
        double err = sqrt(err2), bound = (double)k / 255.0 * spread + 1e-5 * r.radius;
        assert_true(err <= bound);
        worst = fmax(worst, err / r.radius);
        if (spread > 0) worst_ratio = fmax(worst_ratio, err / spread);
    }
    print_message("  compressed vs float (%s): max position error %.2e of the model size, %.4f of the joints' spread "
                  "(bound k/255 = %.4f for k = %zu)\n",
                  arm ? "arm" : "tube", worst, worst_ratio, (double)info.max_nonzero_influences / 255.0, info.max_nonzero_influences);
    assert_true(worst > 0.0); /* quantisation is really in effect */
    free(pal);
    sinew_skin_destroy(sf);
    sinew_skin_destroy(sc);
    outputs_free(&f), outputs_free(&c);
    pose_free(&ps);
    rig_free(&r);
}

/* Every argument error, with its message; outputs stay untouched. */
static void deform_rejects_bad_arguments(void **state)
{
    (void)state;
    float p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, o[9], t4[12] = {0};
    uint32_t j[3] = {0, 0, 0};
    float w[3] = {1, 1, 1};
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = 3, d.joint_count = 1, d.influence_count = 1, d.joints = j, d.weights = w;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    float pal[16], world[16];
    skin_test_identity(world);
    assert_int_equal(sinew_skin_palette(skin, world, 1, pal, sinew_skin_palette_size(skin)), SINEW_OK);
    for (int i = 0; i < 9; ++i) o[i] = 42.0f;
    sinew_skin_input in = {p, 0, NULL, 0, NULL, 0};
    sinew_skin_output out = {o, 0, NULL, 0, NULL, 0};
    struct {
        const sinew_skin *s;
        const float *pal;
        const sinew_skin_input *in;
        const sinew_skin_output *out;
        size_t first, count;
        sinew_result expect;
        const char *msg;
    } cases[] = {
        {NULL, pal, &in, &out, 0, 3, SINEW_ERROR_INVALID_ARGUMENT, "skin is NULL"},
        {skin, NULL, &in, &out, 0, 3, SINEW_ERROR_INVALID_ARGUMENT, "palette is NULL"},
        {skin, pal, NULL, &out, 0, 3, SINEW_ERROR_INVALID_ARGUMENT, "input streams are NULL"},
        {skin, pal, &in, NULL, 0, 3, SINEW_ERROR_INVALID_ARGUMENT, "output streams are NULL"},
        {skin, pal, &in, &out, 1, 3, SINEW_ERROR_INDEX_OUT_OF_RANGE, "range [1, 1 + 3) exceeds the 3 vertices"},
        {skin, pal, &in, &out, 4, 0, SINEW_ERROR_INDEX_OUT_OF_RANGE, "exceeds"},
        {skin, pal, &in, &out, 2, SIZE_MAX, SINEW_ERROR_INDEX_OUT_OF_RANGE, "exceeds"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        assert_int_equal(sinew_skin_deform(cases[c].s, cases[c].pal, sinew_skin_palette_size(cases[c].s), cases[c].in, cases[c].out, cases[c].first,
                                           cases[c].count),
                         cases[c].expect);
        if (!strstr(sinew_last_error(), cases[c].msg)) fail_msg("case %zu: message '%s'", c, sinew_last_error());
    }
    sinew_skin_output none = {NULL, 0, NULL, 0, NULL, 0};
    assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &none, 0, 3), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "no stream"));
    sinew_skin_output want_n = {NULL, 0, o, 0, NULL, 0};
    assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &want_n, 0, 3), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "output normals are wanted but input normals are NULL"));
    sinew_skin_input bad_stride = {p, 8, NULL, 0, NULL, 0};
    assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &bad_stride, &out, 0, 3), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "input positions stride 8 bytes"));
    sinew_skin_output odd_stride = {o, 13, NULL, 0, NULL, 0};
    assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &odd_stride, 0, 3), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "output positions stride 13 bytes"));
    sinew_skin_input t_in = {p, 0, NULL, 0, t4, 12};
    sinew_skin_output t_out = {NULL, 0, NULL, 0, o, 0};
    assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &t_in, &t_out, 0, 2), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "input tangents stride 12 bytes"));
    sinew_skin_output misaligned = {(float *)(void *)((char *)o + 2), 0, NULL, 0, NULL, 0};
    assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &misaligned, 0, 1), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "output positions pointer is not aligned"));
    sinew_skin_input huge = {p, (SIZE_MAX / 2) & ~(size_t)3, NULL, 0, NULL, 0};
    assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &huge, &out, 0, 1), SINEW_ERROR_SIZE_OVERFLOW);
    for (int i = 0; i < 9; ++i) assert_true(o[i] == 42.0f);
    /* count 0 is a successful no-op that still clears the message. */
    assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &out, 3, 0), SINEW_OK);
    assert_string_equal(sinew_last_error(), "");
    for (int i = 0; i < 9; ++i) assert_true(o[i] == 42.0f);
    sinew_skin_destroy(skin);
}

/* Dual quaternions: the SIMD kernels against the portable one, every stream
 * combination, both storages, 1..8 influences, stretched and mirrored joints
 * (non-rigid stretch, cofactor normals, flipped handedness), short and long
 * runs: within 1e-5 relative; and a chunked pass is bit-identical to a
 * whole one. */
static void dual_quaternion_kernels_agree_with_scalar_blocks(size_t block)
{
    weight_block = block;
    rig_blend = SINEW_SKIN_BLEND_DUAL_QUATERNION;
    rig r;
    rig_tube(&r, 30, 24);
    support_rng rng;
    support_rng_seed(&rng, 41);
    rig_random_weights(&r, &rng, 60, 8, 9);
    pose ps;
    pose_alloc(&ps, r.joints);
    outputs ref, o, c;
    outputs_alloc(&ref, r.n), outputs_alloc(&o, r.n), outputs_alloc(&c, r.n);
    int compared = 0, mirrored = 0;
    for (int stretch = 0; stretch < 2; ++stretch) {
        pose_random(&ps, &r, &rng, stretch);
        if (stretch)
            for (size_t j = 1; j < r.joints; j += 4)
                for (int e = 0; e < 4; ++e) ps.world[16 * j + e] = -ps.world[16 * j + e];
        for (int cfg = 0; cfg < 6; ++cfg) {   /* both storages, every normal mode */
            const int storage = cfg % 2;
            const sinew_skin_normals normals = all_normals[cfg / 2];
            sinew_skin *scalar = rig_skin(&r, SINEW_SKIN_KERNEL_SCALAR, (sinew_skin_storage)storage, normals);
            run(scalar, &r, &ps, &ref, 7);
            for (size_t v = 0; v < r.n; ++v) mirrored += ref.t[4 * v + 3] != r.tan[4 * v + 3];
            for (size_t k = 1; k < ALL_KERNELS; ++k) {
                if (!kernel_runs(all_kernels[k])) continue;
                sinew_skin *skin = rig_skin(&r, all_kernels[k], (sinew_skin_storage)storage, normals);
                float *pal = malloc(sinew_skin_palette_size(skin) * sizeof(float));
                assert_int_equal(sinew_skin_palette(skin, ps.world, r.joints, pal, sinew_skin_palette_size(skin)), SINEW_OK);
                for (unsigned mask = 1; mask < 8; ++mask) {
                    memset(o.p, 0, 3 * r.n * sizeof(float)), memset(c.p, 0, 3 * r.n * sizeof(float));
                    memset(o.n, 0, 3 * r.n * sizeof(float)), memset(c.n, 0, 3 * r.n * sizeof(float));
                    memset(o.t, 0, 4 * r.n * sizeof(float)), memset(c.t, 0, 4 * r.n * sizeof(float));
                    run(skin, &r, &ps, &o, mask);
                    sinew_skin_input in = {r.p, 0, r.nrm, 0, r.tan, 0};
                    sinew_skin_output out = {(mask & 1) ? c.p : NULL, 0, (mask & 2) ? c.n : NULL, 0,
                                             (mask & 4) ? c.t : NULL, 0};
                    for (size_t first = 0; first < r.n; first += 13)
                        assert_int_equal(
                            sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &out, first, r.n - first < 13 ? r.n - first : 13),
                            SINEW_OK);
                    for (size_t i = 0; i < 3 * r.n; ++i) {
                        if (mask & 1) assert_true(fabsf(o.p[i] - ref.p[i]) <= 1e-5f * fmaxf(r.radius, fabsf(ref.p[i])));
                        if (mask & 2) assert_true(fabsf(o.n[i] - ref.n[i]) <= 1e-5f);
                        assert_true(o.p[i] == c.p[i] && o.n[i] == c.n[i]);
                    }
                    for (size_t i = 0; i < 4 * r.n; ++i) {
                        if (mask & 4) assert_true(fabsf(o.t[i] - ref.t[i]) <= 1e-5f);
                        assert_true(o.t[i] == c.t[i]);
                    }
                    ++compared;
                }
                free(pal);
                sinew_skin_destroy(skin);
            }
            sinew_skin_destroy(scalar);
        }
    }
    print_message("  %d SIMD dual-quaternion runs compared with scalar (influence count changing every %zu "
                  "vertices), %d tangents mirrored\n",
                  compared, block, mirrored);
    assert_true(mirrored > 0);
    outputs_free(&ref), outputs_free(&o), outputs_free(&c);
    pose_free(&ps);
    rig_free(&r);
    weight_block = 1;
    rig_blend = SINEW_SKIN_BLEND_LINEAR;
}

static void dual_quaternion_kernels_agree_with_scalar(void **state)
{
    (void)state;
    dual_quaternion_kernels_agree_with_scalar_blocks(1);
    dual_quaternion_kernels_agree_with_scalar_blocks(29);
}

/* Dual quaternions with zero input normals and tangents in full and partial
 * blocks: every kernel writes (0, 0, 0) for them (the fallback of a vanished
 * direction), never NaN, and agrees with the portable kernel elsewhere. */
static void dual_quaternion_zero_directions_stay_zero(void **state)
{
    (void)state;
    enum { N = 11 };
    float p[3 * N], nrm[3 * N], tan[4 * N], w[2 * N];
    uint32_t j[2 * N];
    for (int v = 0; v < N; ++v) {
        const bool zero = v % 3 == 1;
        p[3 * v] = (float)v, p[3 * v + 1] = 1.0f, p[3 * v + 2] = -0.5f;
        nrm[3 * v] = 0.0f, nrm[3 * v + 1] = zero ? 0.0f : 1.0f, nrm[3 * v + 2] = 0.0f;
        tan[4 * v] = zero ? 0.0f : 1.0f, tan[4 * v + 1] = 0.0f, tan[4 * v + 2] = 0.0f, tan[4 * v + 3] = -1.0f;
        j[2 * v] = 0, j[2 * v + 1] = 1, w[2 * v] = 0.25f + 0.05f * (float)v, w[2 * v + 1] = 0.75f - 0.05f * (float)v;
    }
    float world[32];
    skin_test_trs((const double[3]){0, 0, 1}, 0.6, (const double[3]){1, 2, 3}, (const double[3]){1, 1, 1}, world);
    skin_test_trs((const double[3]){1, 0, 0}, -0.9, (const double[3]){0, 1, 0}, (const double[3]){1.5, 0.7, 1}, world + 16);
    float ref_p[3 * N], ref_n[3 * N], ref_t[4 * N];
    for (size_t k = 0; k < ALL_KERNELS; ++k) {
        if (!kernel_runs(all_kernels[k])) continue;
        sinew_skin_desc d;
        SINEW_INIT(&d);
        d.vertex_count = N, d.joint_count = 2, d.influence_count = 2, d.joints = j, d.weights = w;
        d.blend = SINEW_SKIN_BLEND_DUAL_QUATERNION, d.kernel = all_kernels[k];
        sinew_skin *skin = NULL;
        assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
        float pal[96], op[3 * N], on[3 * N], ot[4 * N];
        assert_int_equal(sinew_skin_palette(skin, world, 2, pal, sinew_skin_palette_size(skin)), SINEW_OK);
        sinew_skin_input in = {p, 0, nrm, 0, tan, 0};
        sinew_skin_output out = {op, 0, on, 0, ot, 0};
        assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &out, 0, N), SINEW_OK);
        for (int v = 0; v < N; ++v) {
            for (int i = 0; i < 3; ++i) {
                assert_false(isnan(on[3 * v + i]) || isnan(ot[4 * v + i]));
                if (v % 3 == 1) assert_true(on[3 * v + i] == 0.0f && ot[4 * v + i] == 0.0f);
            }
            if (v % 3 != 1) {
                assert_true(fabsf(on[3 * v] * on[3 * v] + on[3 * v + 1] * on[3 * v + 1] + on[3 * v + 2] * on[3 * v + 2] -
                                  1.0f) < 1e-5f);
            }
        }
        if (k == 0) {
            memcpy(ref_p, op, sizeof op), memcpy(ref_n, on, sizeof on), memcpy(ref_t, ot, sizeof ot);
        } else {
            for (int i = 0; i < 3 * N; ++i) {
                assert_true(fabsf(op[i] - ref_p[i]) <= 1e-5f * fmaxf(10.0f, fabsf(ref_p[i])));
                assert_true(fabsf(on[i] - ref_n[i]) <= 1e-5f);
            }
            for (int i = 0; i < 4 * N; ++i) assert_true(fabsf(ot[i] - ref_t[i]) <= 1e-5f);
        }
        sinew_skin_destroy(skin);
    }
}

/* 64-byte aligned float buffer (C11 aligned_alloc wants a multiple of the
 * alignment), as skin.h advises for the fastest kernels. */
static float *aligned_floats(size_t count)
{
    size_t bytes = (count * sizeof(float) + 63) / 64 * 64;
    float *f = aligned_alloc(64, bytes);
    assert_non_null(f);
    return f;
}

/* Ranges long enough for the SIMD kernels to prefetch their inputs ahead, on
 * a pose with stretched and mirrored joints: every SIMD kernel agrees with
 * the scalar one within 1e-5 relative, and deforming the same vertices in
 * small chunks (no prefetch, different block boundaries) gives bit-identical
 * results, tangent handedness included. */
static void long_ranges_agree(size_t share)
{
    weight_block = 70001; /* two long runs: 1 then 2 influences, then a third of 3 */
    joint_share = share;
    rig r;
    rig_tube(&r, 500, 300);
    support_rng rng;
    support_rng_seed(&rng, 31);
    rig_random_weights(&r, &rng, 40, 4, 4);
    pose ps;
    pose_alloc(&ps, r.joints);
    pose_random(&ps, &r, &rng, true);
    for (size_t j = 0; j < r.joints; j += 4)
        for (int e = 0; e < 4; ++e) ps.world[16 * j + e] = -ps.world[16 * j + e]; /* mirror column 0 */
    outputs ref;
    outputs_alloc(&ref, r.n);
    sinew_skin *scalar = rig_skin(&r, SINEW_SKIN_KERNEL_SCALAR, SINEW_SKIN_STORAGE_FLOAT, 0);
    run(scalar, &r, &ps, &ref, 7);
    sinew_skin_destroy(scalar);
    float *op = aligned_floats(3 * r.n), *on = aligned_floats(3 * r.n), *ot = aligned_floats(4 * r.n);
    float *cp = aligned_floats(3 * r.n), *cn = aligned_floats(3 * r.n), *ct = aligned_floats(4 * r.n);
    int mirrored = 0, compared = 0;
    for (size_t v = 0; v < r.n; ++v) mirrored += ref.t[4 * v + 3] != r.tan[4 * v + 3];
    for (size_t k = 1; k < ALL_KERNELS; ++k) {
        if (!kernel_runs(all_kernels[k])) continue;
        sinew_skin *skin = rig_skin(&r, all_kernels[k], SINEW_SKIN_STORAGE_FLOAT, 0);
        float *pal = malloc(sinew_skin_palette_size(skin) * sizeof(float));
        assert_int_equal(sinew_skin_palette(skin, ps.world, r.joints, pal, sinew_skin_palette_size(skin)), SINEW_OK);
        sinew_skin_input in = {r.p, 0, r.nrm, 0, r.tan, 0};
        sinew_skin_output whole = {op, 0, on, 0, ot, 0}, chunked = {cp, 0, cn, 0, ct, 0};
        assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &whole, 0, r.n), SINEW_OK);
        for (size_t first = 0; first < r.n; first += 1001)
            assert_int_equal(sinew_skin_deform(skin, pal, sinew_skin_palette_size(skin), &in, &chunked, first, r.n - first < 1001 ? r.n - first : 1001),
                             SINEW_OK);
        for (size_t i = 0; i < 3 * r.n; ++i) {
            assert_true(fabsf(op[i] - ref.p[i]) <= 1e-5f * fmaxf(r.radius, fabsf(ref.p[i])));
            assert_true(fabsf(on[i] - ref.n[i]) <= 1e-5f);
            assert_true(op[i] == cp[i] && on[i] == cn[i]);
        }
        for (size_t i = 0; i < 4 * r.n; ++i) {
            assert_true(fabsf(ot[i] - ref.t[i]) <= 1e-5f);
            assert_true(ot[i] == ct[i]);
        }
        ++compared;
        free(pal);
        sinew_skin_destroy(skin);
    }
    print_message("  %zu vertices (joints shared in runs of %zu), %d SIMD kernels compared, %d tangents mirrored\n",
                  r.n, share, compared, mirrored);
    assert_true(mirrored > 0);
    free(op), free(on), free(ot), free(cp), free(cn), free(ct);
    outputs_free(&ref);
    pose_free(&ps);
    rig_free(&r);
    weight_block = 1;
    joint_share = 1;
}

/* Also with runs of 21 vertices on one joint tuple: whole calls and 1001-vertex
 * chunks cut the blocks of eight differently, so the same vertex is blended
 * once in a block that shares its joints and once in a mixed one. */
static void long_ranges_prefetch_and_agree(void **state)
{
    (void)state;
    long_ranges_agree(1);
    long_ranges_agree(21);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identity_pose_reproduces_rest),
        cmocka_unit_test(rigid_motion_moves_everything_rigidly),
        cmocka_unit_test(nonuniform_scale_and_mirror_normals),
        cmocka_unit_test(normals_are_continuous_in_the_pose),
        cmocka_unit_test(arm_matches_double_reference),
        cmocka_unit_test(many_influences_match_double_reference),
        cmocka_unit_test(kernels_agree_with_scalar),
        cmocka_unit_test(ranges_strides_and_in_place),
        cmocka_unit_test(long_ranges_prefetch_and_agree),
        cmocka_unit_test(dual_quaternion_kernels_agree_with_scalar),
        cmocka_unit_test(dual_quaternion_zero_directions_stay_zero),
        cmocka_unit_test(vanishing_normals_are_guarded),
        cmocka_unit_test(compressed_matches_float_within_quantisation),
        cmocka_unit_test(deform_rejects_bad_arguments),
    };
    return cmocka_run_group_tests_name("skin deform", tests, NULL, NULL);
}
