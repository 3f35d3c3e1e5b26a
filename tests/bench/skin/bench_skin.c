/* Smooth skinning throughput: 1/2/4/8 influences x positions (P), +normals
 * (N), +tangents (T), 100 joints, 10k and 1M vertices, one thread. Each line
 * compares sinew (kernel chosen at run time, float storage) with a plain
 * vertex-major reference loop over the same input layout, measured in the
 * same run; extra lines show compressed storage and the forced kernel sets.
 * Figures are the best of several timed runs (the machine is shared). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

enum { JOINTS = 100 };

typedef struct data {
    size_t n, k;
    uint32_t *joints;
    float *weights;
    float *p, *nrm, *tan;   /* inputs */
    float *op, *on, *ot;    /* outputs */
    float world[16 * JOINTS];
} data;

static void random_rotation(support_rng *rng, float m[16])
{
    double q[4], n = 0.0;
    for (int i = 0; i < 4; ++i) q[i] = support_rng_uniform(rng, -1, 1), n += q[i] * q[i];
    n = sqrt(n);
    double x = q[0] / n, y = q[1] / n, z = q[2] / n, w = q[3] / n;
    float r[16] = {(float)(1 - 2 * (y * y + z * z)), (float)(2 * (x * y + z * w)), (float)(2 * (x * z - y * w)), 0,
                   (float)(2 * (x * y - z * w)), (float)(1 - 2 * (x * x + z * z)), (float)(2 * (y * z + x * w)), 0,
                   (float)(2 * (x * z + y * w)), (float)(2 * (y * z - x * w)), (float)(1 - 2 * (x * x + y * y)), 0,
                   (float)support_rng_uniform(rng, -1, 1), (float)support_rng_uniform(rng, -1, 1),
                   (float)support_rng_uniform(rng, -1, 1), 1};
    memcpy(m, r, sizeof r);
}

static void data_init(data *d, size_t n, size_t k)
{
    support_rng rng;
    support_rng_seed(&rng, 1234 + n + k);
    d->n = n, d->k = k;
    d->joints = malloc(n * k * sizeof(uint32_t));
    d->weights = malloc(n * k * sizeof(float));
    d->p = malloc(n * 3 * sizeof(float));
    d->nrm = malloc(n * 3 * sizeof(float));
    d->tan = malloc(n * 4 * sizeof(float));
    d->op = malloc(n * 3 * sizeof(float));
    d->on = malloc(n * 3 * sizeof(float));
    d->ot = malloc(n * 4 * sizeof(float));
    for (size_t v = 0; v < n; ++v) {
        double sum = 0.0;
        uint32_t base = (uint32_t)(support_rng_next(&rng) % JOINTS);
        for (size_t s = 0; s < k; ++s) {
            d->joints[v * k + s] = (uint32_t)((base + 7 * s) % JOINTS);
            d->weights[v * k + s] = (float)support_rng_uniform(&rng, 0.1, 1.0);
            sum += d->weights[v * k + s];
        }
        for (size_t s = 0; s < k; ++s) d->weights[v * k + s] = (float)(d->weights[v * k + s] / sum);
        for (int i = 0; i < 3; ++i) d->p[3 * v + i] = (float)support_rng_uniform(&rng, -1, 1);
        double a = support_rng_uniform(&rng, 0, 6.283185307179586), c = cos(a), s = sin(a);
        d->nrm[3 * v] = (float)c, d->nrm[3 * v + 1] = (float)s, d->nrm[3 * v + 2] = 0.0f;
        d->tan[4 * v] = (float)-s, d->tan[4 * v + 1] = (float)c, d->tan[4 * v + 2] = 0.0f, d->tan[4 * v + 3] = 1.0f;
    }
    for (int j = 0; j < JOINTS; ++j) random_rotation(&rng, d->world + 16 * j);
    memset(d->op, 0, n * 3 * sizeof(float));
    memset(d->on, 0, n * 3 * sizeof(float));
    memset(d->ot, 0, n * 4 * sizeof(float));
}

static void data_free(data *d)
{
    free(d->joints), free(d->weights), free(d->p), free(d->nrm), free(d->tan), free(d->op), free(d->on), free(d->ot);
}

/* The plain reference: the paper's loop, 3x4 matrices blended per vertex,
 * normals and tangents renormalised with 1 / sqrt. */
static void reference(const data *d, const float *m, unsigned mask)
{
    for (size_t v = 0; v < d->n; ++v) {
        float a[12] = {0};
        for (size_t s = 0; s < d->k; ++s) {
            const float w = d->weights[v * d->k + s];
            const float *mj = m + 12 * d->joints[v * d->k + s];
            for (int e = 0; e < 12; ++e) a[e] += w * mj[e];
        }
        const float *p = d->p + 3 * v;
        for (int r = 0; r < 3; ++r) d->op[3 * v + r] = a[r] * p[0] + a[3 + r] * p[1] + a[6 + r] * p[2] + a[9 + r];
        if (mask & 2) {
            const float *n = d->nrm + 3 * v;
            float o[3];
            for (int r = 0; r < 3; ++r) o[r] = a[r] * n[0] + a[3 + r] * n[1] + a[6 + r] * n[2];
            float s = 1.0f / sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
            for (int r = 0; r < 3; ++r) d->on[3 * v + r] = o[r] * s;
        }
        if (mask & 4) {
            const float *t = d->tan + 4 * v;
            float o[3];
            for (int r = 0; r < 3; ++r) o[r] = a[r] * t[0] + a[3 + r] * t[1] + a[6 + r] * t[2];
            float s = 1.0f / sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
            for (int r = 0; r < 3; ++r) d->ot[4 * v + r] = o[r] * s;
            d->ot[4 * v + 3] = t[3];
        }
    }
}

/* Best seconds per pass over all vertices. */
static double time_passes(size_t n, int (*pass)(void *), void *user)
{
    int reps = n >= 1000000 ? 7 : 200;
    double best = 1e30;
    pass(user); /* warm */
    for (int r = 0; r < reps; ++r) {
        double t0 = support_now();
        if (pass(user) != 0) return -1.0;
        double t = support_now() - t0;
        if (t < best) best = t;
    }
    return best;
}

typedef struct job {
    data *d;
    const sinew_skin *skin;
    const float *palette;
    const float *ref_matrices;
    unsigned mask;
} job;

static int sinew_pass(void *user)
{
    job *j = user;
    sinew_skin_input in = {j->d->p, 0, j->d->nrm, 0, j->d->tan, 0};
    sinew_skin_output out = {j->d->op, 0, (j->mask & 2) ? j->d->on : NULL, 0, (j->mask & 4) ? j->d->ot : NULL, 0};
    return sinew_skin_deform(j->skin, j->palette, sinew_skin_palette_size(j->skin), &in, &out, 0, j->d->n) == SINEW_OK ? 0 : 1;
}

static int reference_pass(void *user)
{
    job *j = user;
    reference(j->d, j->ref_matrices, j->mask);
    return 0;
}

static sinew_skin *make_skin_blend(const data *d, sinew_skin_storage storage, sinew_skin_kernel kernel,
                                   sinew_skin_blend blend)
{
    sinew_skin_desc desc;
    SINEW_INIT(&desc);
    desc.blend = blend;
    desc.vertex_count = d->n, desc.joint_count = JOINTS, desc.influence_count = d->k;
    desc.joints = d->joints, desc.weights = d->weights, desc.storage = storage, desc.kernel = kernel;
    desc.renormalize = 1;
    sinew_skin *s = NULL;
    if (sinew_skin_create(NULL, &desc, &s) != SINEW_OK) return NULL;
    return s;
}

static sinew_skin *make_skin(const data *d, sinew_skin_storage storage, sinew_skin_kernel kernel)
{
    return make_skin_blend(d, storage, kernel, SINEW_SKIN_BLEND_LINEAR);
}

static const char *stream_name(unsigned mask)
{
    return mask == 1 ? "P" : mask == 3 ? "P+N" : "P+N+T";
}

int main(int argc, char **argv)
{
    const bool quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    const size_t sizes[2] = {10000, 1000000};
    const size_t influences[4] = {1, 2, 4, 8};
    const unsigned masks[3] = {1, 3, 7};
    for (int si = 0; si < (quick ? 1 : 2); ++si)
        for (int ki = 0; ki < 4; ++ki) {
            data d;
            data_init(&d, sizes[si], influences[ki]);
            sinew_skin *skin = make_skin(&d, SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_KERNEL_AUTO);
            sinew_skin *packed = make_skin(&d, SINEW_SKIN_STORAGE_COMPRESSED, SINEW_SKIN_KERNEL_AUTO);
            if (!skin || !packed) {
                fprintf(stderr, "bind failed: %s\n", sinew_last_error());
                return 1;
            }
            /* 64-byte aligned, as skin.h advises: a record is then one cache line. */
            float *pal = aligned_alloc(64, sinew_skin_palette_size(skin) * sizeof(float));
            float ref_m[12 * JOINTS];
            sinew_skin_palette(skin, d.world, JOINTS, pal, sinew_skin_palette_size(skin));
            for (int j = 0; j < JOINTS; ++j)
                for (int c = 0; c < 4; ++c)
                    for (int r = 0; r < 3; ++r) ref_m[12 * j + 3 * c + r] = pal[16 * j + 4 * c + r];
            for (int mi = 0; mi < 3; ++mi) {
                job j = {&d, skin, pal, ref_m, masks[mi]};
                double ts = time_passes(d.n, sinew_pass, &j);
                double tr = time_passes(d.n, reference_pass, &j);
                char name[128];
                snprintf(name, sizeof name, "skin/%zuinf-%s-%s", d.k, stream_name(masks[mi]),
                         d.n >= 1000000 ? "1M" : "10k");
                support_bench_line(name, (double)d.n / ts * 1e-6, "M vertices/s", "scalar reference",
                                   (double)d.n / tr * 1e-6);
                if (masks[mi] == 7) {
                    job c = {&d, packed, pal, ref_m, 7};
                    double tc = time_passes(d.n, sinew_pass, &c);
                    snprintf(name, sizeof name, "skin/%zuinf-%s-%s-compressed", d.k, stream_name(7),
                             d.n >= 1000000 ? "1M" : "10k");
                    support_bench_line(name, (double)d.n / tc * 1e-6, "M vertices/s", "scalar reference",
                                       (double)d.n / tr * 1e-6);
                    if (d.k == 4) {
                        const sinew_skin_kernel forced[2] = {SINEW_SKIN_KERNEL_SCALAR, SINEW_SKIN_KERNEL_SSE2};
                        const char *names[2] = {"scalar-kernel", "sse2-kernel"};
                        for (int f = 0; f < 2; ++f) {
                            sinew_skin *fs = make_skin(&d, SINEW_SKIN_STORAGE_FLOAT, forced[f]);
                            if (!fs) continue;
                            job fj = {&d, fs, pal, ref_m, 7};
                            double tf = time_passes(d.n, sinew_pass, &fj);
                            snprintf(name, sizeof name, "skin/%zuinf-%s-%s-%s", d.k, stream_name(7),
                                     d.n >= 1000000 ? "1M" : "10k", names[f]);
                            support_bench_line(name, (double)d.n / tf * 1e-6, "M vertices/s", "scalar reference",
                                               (double)d.n / tr * 1e-6);
                            sinew_skin_destroy(fs);
                        }
                        /* Dual quaternions (run-time kernel, then the portable one), against the same
                         * linear-blend reference loop. */
                        for (int f = 0; f < 2; ++f) {
                            sinew_skin *dq = make_skin_blend(&d, SINEW_SKIN_STORAGE_FLOAT,
                                                             f ? SINEW_SKIN_KERNEL_SCALAR : SINEW_SKIN_KERNEL_AUTO,
                                                             SINEW_SKIN_BLEND_DUAL_QUATERNION);
                            if (!dq) continue;
                            float *dq_pal = aligned_alloc(64, sinew_skin_palette_size(dq) * sizeof(float));
                            sinew_skin_palette(dq, d.world, JOINTS, dq_pal, sinew_skin_palette_size(dq));
                            job qj = {&d, dq, dq_pal, ref_m, 7};
                            double tq = time_passes(d.n, sinew_pass, &qj);
                            snprintf(name, sizeof name, "skin/%zuinf-%s-%s-dual-quaternion%s", d.k, stream_name(7),
                                     d.n >= 1000000 ? "1M" : "10k", f ? "-scalar-kernel" : "");
                            support_bench_line(name, (double)d.n / tq * 1e-6, "M vertices/s", "scalar reference",
                                               (double)d.n / tr * 1e-6);
                            free(dq_pal);
                            sinew_skin_destroy(dq);
                        }
                    }
                }
            }
            free(pal);
            sinew_skin_destroy(skin);
            sinew_skin_destroy(packed);
            data_free(&d);
        }
    return 0;
}
