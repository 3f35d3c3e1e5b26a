/* Pose-space correctives and morph targets (include/sinew/corrective.h):
 * closed forms (a key reproduced exactly at its pose, nothing at the rest
 * pose, the linear kernel over one pose number is linear interpolation, the
 * weights exact at the keys through the solved system itself), invariants
 * (any split of a range, deform = weights + apply, morph weights 0 = base,
 * sparse = dense, a far pose fades under the Gaussian), swing/twist against
 * rotations built from known parts, and bad input with named errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support.h"

#define POINTS 37
#define KEYS 3
#define POSE 2

typedef struct fixture {
    float base[3 * POINTS];
    float offsets[3 * KEYS * POINTS];
    float poses[KEYS * POSE];
} fixture;

static void fixture_init(fixture *f, uint64_t seed)
{
    support_rng rng;
    support_rng_seed(&rng, seed);
    for (size_t i = 0; i < 3 * POINTS; ++i) f->base[i] = (float)support_rng_uniform(&rng, -2, 2);
    for (size_t i = 0; i < 3 * KEYS * POINTS; ++i) f->offsets[i] = (float)support_rng_uniform(&rng, -0.3, 0.3);
    /* Some points without offsets for some keys (they are dropped). */
    for (size_t i = 0; i < POINTS; i += 5) memset(f->offsets + 3 * (POINTS + i), 0, 3 * sizeof(float));
    const float poses[KEYS * POSE] = {1.5f, 0.0f, 0.0f, 1.0f, 0.8f, 0.9f};
    memcpy(f->poses, poses, sizeof poses);
}

static sinew_corrective *make(const fixture *f, sinew_corrective_kernel kernel)
{
    sinew_corrective_desc d;
    SINEW_INIT(&d);
    d.point_count = POINTS;
    d.key_count = KEYS;
    d.pose_size = POSE;
    d.poses = f->poses;
    d.offsets = f->offsets;
    d.kernel = kernel;
    sinew_corrective *c = NULL;
    sinew_result r = sinew_corrective_create(NULL, &d, &c);
    if (r != SINEW_OK) fail_msg("create: %s", sinew_last_error());
    return c;
}

static sinew_points view(const float *p, size_t n)
{
    sinew_points v = {p, n, 0};
    return v;
}

static const sinew_corrective_kernel interpolating[3] = {
    SINEW_CORRECTIVE_KERNEL_GAUSSIAN, SINEW_CORRECTIVE_KERNEL_LINEAR, SINEW_CORRECTIVE_KERNEL_CUBIC};

/* At key k's pose every point is base + key k's offset, the float sum; at
 * the rest pose it is base, bit for bit. */
static void test_key_exact_rest_zero(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    sinew_points base = view(f.base, POINTS);
    for (int kk = 0; kk < 3; ++kk) {
        sinew_corrective *c = make(&f, interpolating[kk]);
        float out[3 * POINTS];
        for (size_t k = 0; k < KEYS; ++k) {
            float w[KEYS];
            assert_int_equal(sinew_corrective_weights(c, f.poses + k * POSE, POSE, w, KEYS), SINEW_OK);
            for (size_t j = 0; j < KEYS; ++j) assert_true(w[j] == (j == k ? 1.0f : 0.0f));
            assert_int_equal(sinew_corrective_deform(c, f.poses + k * POSE, POSE, &base, out, 0, 0, POINTS), SINEW_OK);
            for (size_t i = 0; i < 3 * POINTS; ++i) assert_true(out[i] == f.base[i] + f.offsets[3 * k * POINTS + i]);
        }
        const float rest[POSE] = {0, 0};
        assert_int_equal(sinew_corrective_deform(c, rest, POSE, &base, out, 0, 0, POINTS), SINEW_OK);
        assert_memory_equal(out, f.base, sizeof out);
        sinew_corrective_destroy(c);
    }
}

/* The solved system itself is exact at the keys: just off a key's pose (no
 * exact match) the weights are that key's within the step. */
static void test_rbf_exact_at_keys(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 2);
    for (int kk = 0; kk < 3; ++kk) {
        sinew_corrective *c = make(&f, interpolating[kk]);
        for (size_t k = 0; k <= KEYS; ++k) {
            float pose[POSE] = {0, 0};
            if (k < KEYS) memcpy(pose, f.poses + k * POSE, sizeof pose);
            pose[0] += 1e-6f;
            float w[KEYS];
            assert_int_equal(sinew_corrective_weights(c, pose, POSE, w, KEYS), SINEW_OK);
            for (size_t j = 0; j < KEYS; ++j) {
                float want = j == k ? 1.0f : 0.0f;
                if (fabsf(w[j] - want) > 1e-4f)
                    fail_msg("kernel %d near key %zu: weight %zu is %g, want %g", kk, k, j, (double)w[j], (double)want);
            }
        }
        sinew_corrective_destroy(c);
    }
}

/* One pose number and the linear kernel: between the outermost poses the
 * weights are the hat functions of the keys over the sorted poses (rest at
 * 0); past them they continue linearly. */
static void test_linear_kernel_is_linear_interpolation(void **state)
{
    (void)state;
    const float poses[3] = {2.0f, 1.0f, 4.0f};   /* unsorted on purpose */
    const float offsets[3 * 3] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    sinew_corrective_desc d;
    SINEW_INIT(&d);
    d.point_count = 1;
    d.key_count = 3;
    d.pose_size = 1;
    d.poses = poses;
    d.offsets = offsets;
    d.kernel = SINEW_CORRECTIVE_KERNEL_LINEAR;
    sinew_corrective *c = NULL;
    assert_int_equal(sinew_corrective_create(NULL, &d, &c), SINEW_OK);
    /* Knots 0 (rest), 1 (key 1), 2 (key 0), 4 (key 2). */
    const double knot[4] = {0, 1, 2, 4};
    const int key_of[4] = {-1, 1, 0, 2};
    for (double x = 0.0; x <= 4.0; x += 0.125) {
        double want[3] = {0, 0, 0};
        int s = x < 1 ? 0 : x < 2 ? 1 : 2;   /* segment [knot s, knot s+1] */
        double t = (x - knot[s]) / (knot[s + 1] - knot[s]);
        if (key_of[s] >= 0) want[key_of[s]] += 1 - t;
        want[key_of[s + 1]] += t;
        float pose = (float)x, w[3];
        assert_int_equal(sinew_corrective_weights(c, &pose, 1, w, 3), SINEW_OK);
        for (int k = 0; k < 3; ++k)
            if (fabs(w[k] - want[k]) > 1e-5)
                fail_msg("x = %g: weight %d is %g, linear interpolation gives %g", x, k, (double)w[k], want[k]);
    }
    /* Linear past the ends: equal steps give equal differences. */
    for (int end = 0; end < 2; ++end) {
        float x[3] = {end ? 5.0f : -1.0f, end ? 6.0f : -2.0f, end ? 7.0f : -3.0f}, w[3][3];
        for (int i = 0; i < 3; ++i) assert_int_equal(sinew_corrective_weights(c, &x[i], 1, w[i], 3), SINEW_OK);
        for (int k = 0; k < 3; ++k) assert_true(fabsf((w[2][k] - w[1][k]) - (w[1][k] - w[0][k])) < 1e-5f);
    }
    sinew_corrective_destroy(c);
}

/* The Gaussian's weights fade far from every key. */
static void test_gaussian_fades(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 3);
    sinew_corrective *c = make(&f, SINEW_CORRECTIVE_KERNEL_GAUSSIAN);
    sinew_corrective_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_corrective_get_info(c, &info), SINEW_OK);
    assert_true(info.radius > 0);
    const float far[POSE] = {(float)(40 * info.radius), (float)(-40 * info.radius)};
    float w[KEYS];
    assert_int_equal(sinew_corrective_weights(c, far, POSE, w, KEYS), SINEW_OK);
    for (int k = 0; k < KEYS; ++k) assert_true(fabsf(w[k]) < 1e-12f);
    sinew_corrective_destroy(c);
}

/* Any split of a range gives the same bits; deform is weights + apply;
 * an output past the range is untouched; in place works. */
static void test_split_and_paths(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    sinew_points base = view(f.base, POINTS);
    const float pose[POSE] = {0.7f, 0.3f};
    for (int kk = 0; kk < 3; ++kk) {
        sinew_corrective *c = make(&f, interpolating[kk]);
        float whole[3 * POINTS], parts[3 * POINTS], two[3 * POINTS], w[KEYS];
        assert_int_equal(sinew_corrective_deform(c, pose, POSE, &base, whole, 0, 0, POINTS), SINEW_OK);
        for (size_t split = 0; split <= POINTS; split += 6) {
            memset(parts, 0, sizeof parts);
            assert_int_equal(sinew_corrective_deform(c, pose, POSE, &base, parts, 0, split, POINTS - split), SINEW_OK);
            assert_int_equal(sinew_corrective_deform(c, pose, POSE, &base, parts, 0, 0, split), SINEW_OK);
            assert_memory_equal(whole, parts, sizeof whole);
        }
        assert_int_equal(sinew_corrective_weights(c, pose, POSE, w, KEYS), SINEW_OK);
        assert_int_equal(sinew_corrective_apply(c, w, KEYS, &base, two, 0, 0, POINTS), SINEW_OK);
        assert_memory_equal(whole, two, sizeof whole);
        /* In place, strided: 4 floats per point. */
        float strided[4 * POINTS];
        for (size_t i = 0; i < POINTS; ++i) memcpy(strided + 4 * i, f.base + 3 * i, 3 * sizeof(float));
        sinew_points sv = {strided, POINTS, 4 * sizeof(float)};
        assert_int_equal(sinew_corrective_apply(c, w, KEYS, &sv, strided, 4 * sizeof(float), 0, POINTS), SINEW_OK);
        for (size_t i = 0; i < POINTS; ++i) assert_memory_equal(strided + 4 * i, whole + 3 * i, 3 * sizeof(float));
        sinew_corrective_destroy(c);
    }
}

/* Morph targets: weights 0 give base bit for bit; other weights give a
 * straightforward key-major loop's sum (in double, key order, one
 * rounding); sparse keys give the dense keys' bits. */
static void test_morph_targets(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 5);
    sinew_corrective_desc d;
    SINEW_INIT(&d);
    d.point_count = POINTS;
    d.key_count = KEYS;
    d.offsets = f.offsets;
    d.kernel = SINEW_CORRECTIVE_KERNEL_WEIGHTS;
    sinew_corrective *dense = NULL, *sparse = NULL;
    assert_int_equal(sinew_corrective_create(NULL, &d, &dense), SINEW_OK);
    /* The same keys, sparse: only every other point of each key. */
    size_t counts[KEYS];
    uint32_t idx[KEYS * POINTS];
    float vals[3 * KEYS * POINTS];
    float masked[3 * KEYS * POINTS];
    memset(masked, 0, sizeof masked);
    size_t n = 0;
    for (size_t k = 0; k < KEYS; ++k) {
        counts[k] = 0;
        for (size_t i = k % 2; i < POINTS; i += 2) {
            idx[n] = (uint32_t)i;
            memcpy(vals + 3 * n, f.offsets + 3 * (k * POINTS + i), 3 * sizeof(float));
            memcpy(masked + 3 * (k * POINTS + i), vals + 3 * n, 3 * sizeof(float));
            ++n, ++counts[k];
        }
    }
    sinew_corrective_desc s = d;
    s.offsets = vals;
    s.key_offset_counts = counts;
    s.offset_points = idx;
    assert_int_equal(sinew_corrective_create(NULL, &s, &sparse), SINEW_OK);
    d.offsets = masked;
    sinew_corrective *masked_dense = NULL;
    assert_int_equal(sinew_corrective_create(NULL, &d, &masked_dense), SINEW_OK);

    sinew_points base = view(f.base, POINTS);
    float out[3 * POINTS], other[3 * POINTS];
    const float zero[KEYS] = {0, 0, 0};
    assert_int_equal(sinew_corrective_deform(dense, zero, KEYS, &base, out, 0, 0, POINTS), SINEW_OK);
    assert_memory_equal(out, f.base, sizeof out);
    const float w[KEYS] = {0.25f, -1.5f, 0.8f};
    assert_int_equal(sinew_corrective_apply(dense, w, KEYS, &base, out, 0, 0, POINTS), SINEW_OK);
    for (size_t i = 0; i < POINTS; ++i)
        for (int a = 0; a < 3; ++a) {
            double sum = 0.0;
            for (size_t k = 0; k < KEYS; ++k) sum += (double)w[k] * (double)f.offsets[3 * (k * POINTS + i) + a];
            assert_true(out[3 * i + a] == (float)((double)f.base[3 * i + a] + sum));
        }
    assert_int_equal(sinew_corrective_apply(sparse, w, KEYS, &base, out, 0, 0, POINTS), SINEW_OK);
    assert_int_equal(sinew_corrective_apply(masked_dense, w, KEYS, &base, other, 0, 0, POINTS), SINEW_OK);
    assert_memory_equal(out, other, sizeof out);
    sinew_corrective_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_corrective_get_info(sparse, &info), SINEW_OK);
    size_t nonzero = 0;
    for (size_t e = 0; e < n; ++e) nonzero += vals[3 * e] != 0 || vals[3 * e + 1] != 0 || vals[3 * e + 2] != 0;
    assert_int_equal(info.offset_count, nonzero);
    assert_true(nonzero < n);   /* the zero offsets of the fixture were dropped */
    assert_int_equal(info.pose_size, KEYS);
    assert_true(info.memory_bytes > n * 16);
    sinew_corrective_destroy(dense);
    sinew_corrective_destroy(sparse);
    sinew_corrective_destroy(masked_dense);
}

/* Keys that hold every point take the blocked dense path: the same bits as
 * a plain double loop in key order, as the row-by-row path (the same keys
 * with one more, unmoved point), under any split of the range. */
static void test_dense_path(void **state)
{
    (void)state;
    enum { K = 5, N = 150 };   /* not a multiple of the block */
    static float offsets[K * (N + 1) * 3], base[3 * (N + 1)];
    support_rng rng;
    support_rng_seed(&rng, 9);
    for (size_t k = 0; k < K; ++k)
        for (size_t i = 0; i <= N; ++i)
            for (int a = 0; a < 3; ++a)
                offsets[3 * (k * (N + 1) + i) + a] = i == N ? 0.0f : (float)support_rng_uniform(&rng, 0.01, 0.5);
    for (size_t i = 0; i < 3 * (N + 1); ++i) base[i] = (float)support_rng_uniform(&rng, -3, 3);
    /* Dense keys of N points: the same rows as the first N of the N + 1. */
    static float dense_offsets[K * N * 3];
    for (size_t k = 0; k < K; ++k)
        memcpy(dense_offsets + 3 * k * N, offsets + 3 * k * (N + 1), 3 * N * sizeof(float));
    sinew_corrective_desc d;
    SINEW_INIT(&d);
    d.point_count = N, d.key_count = K, d.offsets = dense_offsets, d.kernel = SINEW_CORRECTIVE_KERNEL_WEIGHTS;
    sinew_corrective *dense = NULL, *rows = NULL;
    assert_int_equal(sinew_corrective_create(NULL, &d, &dense), SINEW_OK);
    d.point_count = N + 1, d.offsets = offsets;
    assert_int_equal(sinew_corrective_create(NULL, &d, &rows), SINEW_OK);
    const float w[K] = {0.3f, -1.25f, 2.0f, 0.0f, 0.7f};
    sinew_points bv = {base, N, 0}, bv1 = {base, N + 1, 0};
    float a[3 * N], b[3 * (N + 1)], parts[3 * N];
    assert_int_equal(sinew_corrective_apply(dense, w, K, &bv, a, 0, 0, N), SINEW_OK);
    assert_int_equal(sinew_corrective_apply(rows, w, K, &bv1, b, 0, 0, N + 1), SINEW_OK);
    assert_memory_equal(a, b, sizeof a);
    for (size_t i = 0; i < N; ++i)
        for (int c = 0; c < 3; ++c) {
            double sum = 0.0;
            for (size_t k = 0; k < K; ++k) sum += (double)w[k] * (double)dense_offsets[3 * (k * N + i) + c];
            assert_true(a[3 * i + c] == (float)((double)base[3 * i + c] + sum));
        }
    for (size_t split = 1; split < N; split += 37) {
        assert_int_equal(sinew_corrective_apply(dense, w, K, &bv, parts, 0, split, N - split), SINEW_OK);
        assert_int_equal(sinew_corrective_apply(dense, w, K, &bv, parts, 0, 0, split), SINEW_OK);
        assert_memory_equal(a, parts, sizeof a);
    }
    sinew_corrective_destroy(dense);
    sinew_corrective_destroy(rows);
}

static void quat_axis_angle(const double axis[3], double angle, double q[4])
{
    double len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    for (int a = 0; a < 3; ++a) q[a] = axis[a] / len * sin(angle / 2);
    q[3] = cos(angle / 2);
}

static void quat_mul(const double a[4], const double b[4], double o[4])
{
    o[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    o[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    o[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    o[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* q = swing * twist built from known parts comes apart into them: the twist
 * angle about the axis, the swing's rotation vector of the swing's angle on
 * the documented plane basis; the identity gives zeros. */
static void test_swing_twist(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 6);
    for (int trial = 0; trial < 200; ++trial) {
        double t[3] = {support_rng_uniform(&rng, -1, 1), support_rng_uniform(&rng, -1, 1),
                       support_rng_uniform(&rng, -1, 1)};
        double tl = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        for (int a = 0; a < 3; ++a) t[a] /= tl;
        /* A swing axis perpendicular to t. */
        double r[3] = {support_rng_uniform(&rng, -1, 1), support_rng_uniform(&rng, -1, 1),
                       support_rng_uniform(&rng, -1, 1)};
        double dot = r[0] * t[0] + r[1] * t[1] + r[2] * t[2];
        for (int a = 0; a < 3; ++a) r[a] -= dot * t[a];
        double rl = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        for (int a = 0; a < 3; ++a) r[a] /= rl;
        double swing_angle = support_rng_uniform(&rng, 0, 3.0), twist_angle = support_rng_uniform(&rng, -3.0, 3.0);
        double qs[4], qt[4], q[4];
        quat_axis_angle(r, swing_angle, qs);
        quat_axis_angle(t, twist_angle, qt);
        quat_mul(qs, qt, q);
        if (trial % 2) for (int a = 0; a < 4; ++a) q[a] = -q[a];   /* the same rotation */
        float qf[4] = {(float)q[0], (float)q[1], (float)q[2], (float)q[3]};
        float tf[3] = {(float)t[0], (float)t[1], (float)t[2]}, pose[3];
        assert_int_equal(sinew_corrective_swing_twist(qf, tf, 1, pose, 3), SINEW_OK);
        assert_true(fabs(pose[2] - twist_angle) < 1e-4);
        /* The documented basis: u = t x e (e least aligned), v = t x u. */
        int least = 0;
        for (int a = 1; a < 3; ++a)
            if (fabs(t[a]) < fabs(t[least])) least = a;
        double e[3] = {0, 0, 0}, u[3], v[3];
        e[least] = 1;
        u[0] = t[1] * e[2] - t[2] * e[1], u[1] = t[2] * e[0] - t[0] * e[2], u[2] = t[0] * e[1] - t[1] * e[0];
        double ul = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        for (int a = 0; a < 3; ++a) u[a] /= ul;
        v[0] = t[1] * u[2] - t[2] * u[1], v[1] = t[2] * u[0] - t[0] * u[2], v[2] = t[0] * u[1] - t[1] * u[0];
        double want_u = swing_angle * (r[0] * u[0] + r[1] * u[1] + r[2] * u[2]);
        double want_v = swing_angle * (r[0] * v[0] + r[1] * v[1] + r[2] * v[2]);
        if (fabs(pose[0] - want_u) > 1e-4 || fabs(pose[1] - want_v) > 1e-4)
            fail_msg("trial %d: swing (%g, %g), want (%g, %g)", trial, (double)pose[0], (double)pose[1], want_u, want_v);
    }
    const float id[8] = {0, 0, 0, 1, 0, 0, 0, 2};   /* unnormalised is fine */
    float pose[6];
    assert_int_equal(sinew_corrective_swing_twist(id, NULL, 2, pose, 6), SINEW_OK);
    for (int i = 0; i < 6; ++i) assert_true(pose[i] == 0.0f);
    /* About the default axis +y: a pure twist. */
    const float ty[4] = {0, sinf(0.4f), 0, cosf(0.4f)};
    assert_int_equal(sinew_corrective_swing_twist(ty, NULL, 1, pose, 3), SINEW_OK);
    assert_true(fabsf(pose[0]) < 1e-6f && fabsf(pose[1]) < 1e-6f && fabsf(pose[2] - 0.8f) < 1e-6f);
}

static void expect_create(const sinew_corrective_desc *d, sinew_result code, const char *words)
{
    sinew_corrective *c = (sinew_corrective *)(uintptr_t)0x10;
    sinew_result r = sinew_corrective_create(NULL, d, &c);
    if (r != code) fail_msg("create returned %s (%s), want %s", sinew_result_string(r), sinew_last_error(),
                            sinew_result_string(code));
    assert_ptr_equal(c, (sinew_corrective *)(uintptr_t)0x10);
    if (!strstr(sinew_last_error(), words)) fail_msg("message \"%s\" lacks \"%s\"", sinew_last_error(), words);
}

/* Bad input: each refused with its code and a message naming the element. */
static void test_bad_input(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 7);
    sinew_corrective_desc d;
    SINEW_INIT(&d);
    d.point_count = POINTS;
    d.key_count = KEYS;
    d.pose_size = POSE;
    d.poses = f.poses;
    d.offsets = f.offsets;
    float poses[KEYS * POSE];
    memcpy(poses, f.poses, sizeof poses);
    d.poses = poses;
    poses[3] = NAN;
    expect_create(&d, SINEW_ERROR_NON_FINITE, "key 1 has a non-finite pose number 1");
    memcpy(poses, f.poses, sizeof poses);
    poses[4] = poses[0], poses[5] = poses[1];
    expect_create(&d, SINEW_ERROR_DEGENERATE, "key 0 and key 2 are at the same pose");
    memcpy(poses, f.poses, sizeof poses);
    poses[2] = 0, poses[3] = 0;
    expect_create(&d, SINEW_ERROR_DEGENERATE, "key 1 and the rest pose");
    memcpy(poses, f.poses, sizeof poses);
    /* Poses on a line through the rest pose span 1 of 2 dimensions. */
    const float line[KEYS * POSE] = {1, 1, 2, 2, -1, -1};
    d.poses = line;
    d.kernel = SINEW_CORRECTIVE_KERNEL_LINEAR;
    expect_create(&d, SINEW_ERROR_DEGENERATE, "span 1 of the 2 pose dimensions");
    d.kernel = SINEW_CORRECTIVE_KERNEL_GAUSSIAN;
    sinew_corrective *ok = NULL;
    assert_int_equal(sinew_corrective_create(NULL, &d, &ok), SINEW_OK);  /* the Gaussian takes them */
    sinew_corrective_destroy(ok);
    d.poses = poses;
    float offsets[3 * KEYS * POINTS];
    memcpy(offsets, f.offsets, sizeof offsets);
    offsets[3 * (2 * POINTS + 7) + 1] = INFINITY;
    d.offsets = offsets;
    expect_create(&d, SINEW_ERROR_NON_FINITE, "key 2 offset of point 7 has a non-finite coordinate y");
    d.offsets = f.offsets;
    const size_t counts[KEYS] = {1, 1, 1};
    const uint32_t points_bad[3] = {0, POINTS, 1};
    d.key_offset_counts = counts;
    d.offset_points = points_bad;
    expect_create(&d, SINEW_ERROR_INDEX_OUT_OF_RANGE, "key 1 offset 0 refers to point 37");
    d.key_offset_counts = NULL;
    d.offset_points = NULL;
    d.kernel = (sinew_corrective_kernel)9;
    expect_create(&d, SINEW_ERROR_INVALID_ARGUMENT, "unknown kernel 9");
    d.kernel = SINEW_CORRECTIVE_KERNEL_GAUSSIAN;
    d.radius = -1;
    expect_create(&d, SINEW_ERROR_INVALID_ARGUMENT, "radius");
    d.radius = 0;
    d.struct_size = 0;
    expect_create(&d, SINEW_ERROR_INVALID_ARGUMENT, "SINEW_INIT");

    /* Pose time: mismatched sizes, non-finite pose, range past the points;
     * nothing written. */
    d.struct_size = sizeof d;
    sinew_corrective *c = NULL;
    assert_int_equal(sinew_corrective_create(NULL, &d, &c), SINEW_OK);
    sinew_points base = view(f.base, POINTS);
    float out[3 * POINTS], w[KEYS];
    memset(out, 0x5a, sizeof out);
    unsigned char before[sizeof out];
    memcpy(before, out, sizeof out);
    const float pose3[3] = {0, 0, 0}, nan_pose[POSE] = {0, NAN};
    assert_int_equal(sinew_corrective_deform(c, pose3, 3, &base, out, 0, 0, POINTS), SINEW_ERROR_MISMATCH);
    assert_non_null(strstr(sinew_last_error(), "pose_size is 3"));
    assert_int_equal(sinew_corrective_weights(c, pose3, POSE, w, KEYS - 1), SINEW_ERROR_MISMATCH);
    assert_int_equal(sinew_corrective_deform(c, nan_pose, POSE, &base, out, 0, 0, POINTS), SINEW_ERROR_NON_FINITE);
    assert_non_null(strstr(sinew_last_error(), "pose number 1"));
    assert_int_equal(sinew_corrective_deform(c, pose3, POSE, &base, out, 0, 1, POINTS), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    float bad_base[3 * POINTS];
    memcpy(bad_base, f.base, sizeof bad_base);
    bad_base[3 * 30 + 2] = NAN;
    sinew_points bb = view(bad_base, POINTS);
    assert_int_equal(sinew_corrective_deform(c, f.poses, POSE, &bb, out, 0, 0, POINTS), SINEW_ERROR_NON_FINITE);
    assert_non_null(strstr(sinew_last_error(), "base point 30"));
    /* Offsets up to ~0.3 per key at weights 3e38 reach ~2.7e38: with a base
     * coordinate of 1e38 a point could leave the float range. */
    const float huge[KEYS] = {3e38f, 3e38f, 3e38f};
    float far_base[3 * POINTS];
    memcpy(far_base, f.base, sizeof far_base);
    far_base[3 * 11] = 1e38f;
    sinew_points fb = view(far_base, POINTS);
    assert_int_equal(sinew_corrective_apply(c, huge, KEYS, &fb, out, 0, 0, POINTS), SINEW_ERROR_NON_FINITE);
    assert_non_null(strstr(sinew_last_error(), "float range"));
    assert_memory_equal(out, before, sizeof out);
    const float rot_bad[4] = {0, 0, 0, 0};
    float pose_out[3] = {7, 7, 7};
    assert_int_equal(sinew_corrective_swing_twist(rot_bad, NULL, 1, pose_out, 3), SINEW_ERROR_DEGENERATE);
    assert_non_null(strstr(sinew_last_error(), "joint 0"));
    assert_true(pose_out[0] == 7.0f);
    sinew_corrective_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_exact_rest_zero),
        cmocka_unit_test(test_rbf_exact_at_keys),
        cmocka_unit_test(test_linear_kernel_is_linear_interpolation),
        cmocka_unit_test(test_gaussian_fades),
        cmocka_unit_test(test_split_and_paths),
        cmocka_unit_test(test_morph_targets),
        cmocka_unit_test(test_dense_path),
        cmocka_unit_test(test_swing_twist),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
