/* Corrective evaluation per frame: the weights at a pose and every point
 * moved (sinew_corrective_deform), for keys x points, dense and sparse keys,
 * beside a straightforward key-major loop over dense offsets that computes
 * the same sums (the weights from the library, so only the blend is
 * compared). CPU-time minima over interleaved rounds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define ROUNDS 7

/* out_i = base_i + sum_k w_k d_k,i, key by key over dense offsets. */
static void plain_blend(const float *base, const float *offsets, const float *w, size_t keys, size_t n, double *acc,
                        float *out)
{
    memset(acc, 0, 3 * n * sizeof(double));
    for (size_t k = 0; k < keys; ++k) {
        if (w[k] == 0.0f) continue;
        const float *d = offsets + 3 * k * n;
        for (size_t j = 0; j < 3 * n; ++j) acc[j] += (double)w[k] * (double)d[j];
    }
    for (size_t j = 0; j < 3 * n; ++j) out[j] = (float)((double)base[j] + acc[j]);
}

static void run(size_t keys, size_t n, size_t pose_size, double density)
{
    support_rng rng;
    support_rng_seed(&rng, 42);
    float *base = malloc(3 * n * sizeof(float)), *offsets = calloc(3 * n * keys, sizeof(float));
    float *poses = malloc(keys * pose_size * sizeof(float));
    float *out = malloc(3 * n * sizeof(float)), *ref = malloc(3 * n * sizeof(float));
    double *acc = malloc(3 * n * sizeof(double));
    for (size_t j = 0; j < 3 * n; ++j) base[j] = (float)support_rng_uniform(&rng, -1, 1);
    for (size_t k = 0; k < keys; ++k) {
        /* A key moves a band of points (density of them), as a corrective near a joint does. */
        size_t width = (size_t)(density * (double)n), start = (k * n / keys + n - width / 2) % n;
        for (size_t e = 0; e < width; ++e)
            for (int a = 0; a < 3; ++a)
                offsets[3 * (k * n + (start + e) % n) + a] = (float)support_rng_uniform(&rng, -0.1, 0.1);
        for (size_t i = 0; i < pose_size; ++i) poses[k * pose_size + i] = (float)support_rng_uniform(&rng, -1.5, 1.5);
    }
    sinew_corrective_desc d;
    SINEW_INIT(&d);
    d.point_count = n;
    d.key_count = keys;
    d.pose_size = pose_size;
    d.poses = poses;
    d.offsets = offsets;
    sinew_corrective *c = NULL;
    if (sinew_corrective_create(NULL, &d, &c) != SINEW_OK) {
        fprintf(stderr, "create: %s\n", sinew_last_error());
        exit(1);
    }
    float pose[64], w[64];
    for (size_t i = 0; i < pose_size; ++i) pose[i] = 0.37f * (float)(i + 1);
    sinew_points view = {base, n, 0};
    const int reps = (int)(2e7 / (double)(n * keys)) + 1;
    double best = INFINITY, best_plain = INFINITY;
    for (int round = 0; round < ROUNDS; ++round) {
        double t0 = support_cpu_now();
        for (int r = 0; r < reps; ++r)
            if (sinew_corrective_deform(c, pose, pose_size, &view, out, 0, 0, n) != SINEW_OK) {
                fprintf(stderr, "deform: %s\n", sinew_last_error());
                exit(1);
            }
        double t1 = support_cpu_now();
        for (int r = 0; r < reps; ++r) {
            sinew_corrective_weights(c, pose, pose_size, w, keys);
            plain_blend(base, offsets, w, keys, n, acc, ref);
        }
        double t2 = support_cpu_now();
        best = fmin(best, (t1 - t0) / reps);
        best_plain = fmin(best_plain, (t2 - t1) / reps);
    }
    if (memcmp(out, ref, 3 * n * sizeof(float)) != 0) {
        fprintf(stderr, "corrective and the plain loop differ\n");
        exit(1);
    }
    char name[128];
    snprintf(name, sizeof name, "corrective/deform-%zukeys-%zupose-%zuk-points-%.0f%%", keys, pose_size, n / 1000,
             100 * density);
    support_bench_line(name, best * 1e3, "ms/frame", "key-major loop over dense offsets", best_plain * 1e3);
    sinew_corrective_destroy(c);
    free(base), free(offsets), free(poses), free(out), free(ref), free(acc);
}

int main(void)
{
    run(8, 20000, 3, 1.0);
    run(8, 20000, 3, 0.1);
    run(32, 20000, 6, 0.1);
    run(64, 5000, 12, 1.0);
    return 0;
}
