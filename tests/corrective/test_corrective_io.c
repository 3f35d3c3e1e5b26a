/* Save and load of correctives: round trips that deform bit for bit and
 * re-save to the same bytes (every kernel, sparse morph targets), the golden
 * file of format version 1, the save contract, another kind's data, values
 * the loader must refuse (resealed, with create's codes and a message naming
 * them), corruption sweeps and an allocation-failure sweep on create and load.
 * SINEW_WRITE_GOLDEN=1 rewrites tests/golden/corrective-v1.bin. */
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

#define POINTS 9
#define KEYS 3
#define POSE 2

static float base_points[3 * POINTS], key_offsets[3 * KEYS * POINTS];
static const float key_poses[KEYS * POSE] = {1.5f, 0.0f, 0.0f, 1.0f, 0.8f, 0.9f};
static const float rest_pose[POSE] = {0.1f, -0.2f};

static void fill_data(void)
{
    support_rng rng;
    support_rng_seed(&rng, 11);
    for (size_t i = 0; i < 3 * POINTS; ++i) base_points[i] = (float)support_rng_uniform(&rng, -2, 2);
    for (size_t i = 0; i < 3 * KEYS * POINTS; ++i) key_offsets[i] = (float)support_rng_uniform(&rng, -0.3, 0.3);
    memset(key_offsets + 3 * (POINTS + 2), 0, 6 * sizeof(float));   /* two points key 1 does not move */
}

static sinew_result create_in(sinew_context *ctx, sinew_corrective_kernel kernel, sinew_corrective **out)
{
    sinew_corrective_desc d;
    SINEW_INIT(&d);
    d.point_count = POINTS;
    d.key_count = KEYS;
    d.pose_size = POSE;
    d.poses = key_poses;
    d.rest_pose = rest_pose;
    d.offsets = key_offsets;
    d.kernel = kernel;
    d.smoothing = kernel == SINEW_CORRECTIVE_KERNEL_CUBIC ? 1e-3 : 0.0;
    return sinew_corrective_create(ctx, &d, out);
}

static unsigned char *save(const sinew_corrective *c, size_t *size)
{
    assert_int_equal(sinew_corrective_save(c, NULL, 0, size), SINEW_OK);
    unsigned char *buf = malloc(*size);
    size_t written = 0;
    if (*size > 64) {
        assert_int_equal(sinew_corrective_save(c, buf, *size - 1, &written), SINEW_ERROR_BUFFER_TOO_SMALL);
        assert_int_equal(written, *size);
    }
    assert_int_equal(sinew_corrective_save(c, buf, *size, &written), SINEW_OK);
    assert_int_equal(written, *size);
    return buf;
}

/* Deform at a few poses (key, rest, between) into out (3 * POINTS each). */
static void deform_poses(const sinew_corrective *c, float *out)
{
    sinew_corrective_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_corrective_get_info(c, &info), SINEW_OK);
    sinew_points base = {base_points, POINTS, 0};
    float pose[KEYS > POSE ? KEYS : POSE];
    for (int p = 0; p < 3; ++p) {
        for (size_t i = 0; i < info.pose_size; ++i) pose[i] = p == 0 ? 0.3f : p == 1 ? key_poses[i % POSE] : 0.61f * (float)(i + 1);
        assert_int_equal(sinew_corrective_deform(c, pose, info.pose_size, &base, out + p * 3 * POINTS, 0, 0, POINTS),
                         SINEW_OK);
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    for (int k = 0; k <= SINEW_CORRECTIVE_KERNEL_WEIGHTS; ++k) {
        sinew_corrective *c = NULL, *l = NULL;
        assert_int_equal(create_in(NULL, (sinew_corrective_kernel)k, &c), SINEW_OK);
        size_t size, size2;
        unsigned char *bytes = save(c, &size);
        assert_int_equal(sinew_corrective_load(NULL, bytes, size, &l), SINEW_OK);
        float a[9 * POINTS], b[9 * POINTS];
        deform_poses(c, a);
        deform_poses(l, b);
        assert_memory_equal(a, b, sizeof a);
        unsigned char *again = save(l, &size2);
        assert_int_equal(size, size2);
        assert_memory_equal(bytes, again, size);
        sinew_saved_info si;
        SINEW_INIT(&si);
        assert_int_equal(sinew_saved_get_info(bytes, size, &si), SINEW_OK);
        assert_int_equal(si.kind, SINEW_KIND_CORRECTIVE);
        assert_string_equal(sinew_kind_string(SINEW_KIND_CORRECTIVE), "corrective");
        sinew_corrective_info ia, ib;
        SINEW_INIT(&ia);
        SINEW_INIT(&ib);
        sinew_corrective_get_info(c, &ia);
        sinew_corrective_get_info(l, &ib);
        assert_true(ia.radius == ib.radius && ia.offset_count == ib.offset_count);
        free(bytes), free(again);
        sinew_corrective_destroy(c);
        sinew_corrective_destroy(l);
    }
}

/* Another kind's data is MISMATCH; resealed content errors get create's
 * codes and name the element. */
static void test_refused(void **state)
{
    (void)state;
    sinew_corrective *c = NULL, *l = (sinew_corrective *)(uintptr_t)0x10;
    assert_int_equal(create_in(NULL, SINEW_CORRECTIVE_KERNEL_GAUSSIAN, &c), SINEW_OK);
    size_t size;
    unsigned char *bytes = save(c, &size);
    unsigned char *copy = malloc(size);

    memcpy(copy, bytes, size);
    support_le_put(copy + 16, SINEW_KIND_LATTICE, 4);
    support_reseal(copy, size);
    assert_int_equal(sinew_corrective_load(NULL, copy, size, &l), SINEW_ERROR_MISMATCH);

    memcpy(copy, bytes, size);
    float *poses = (float *)support_saved_section(copy, "CPOS");
    poses[4] = poses[0], poses[5] = poses[1];
    support_reseal(copy, size);
    assert_int_equal(sinew_corrective_load(NULL, copy, size, &l), SINEW_ERROR_DEGENERATE);
    assert_non_null(strstr(sinew_last_error(), "corrective data: key 0 and key 2 are at the same pose"));

    memcpy(copy, bytes, size);
    uint32_t *keys = (uint32_t *)support_saved_section(copy, "CKEY");
    keys[1] = 7;
    support_reseal(copy, size);
    assert_int_equal(sinew_corrective_load(NULL, copy, size, &l), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_non_null(strstr(sinew_last_error(), "point 0 refers to key 7"));

    memcpy(copy, bytes, size);
    unsigned char *st = support_saved_section(copy, "CSTR");
    support_le_put(st + 24, 9, 8);
    support_reseal(copy, size);
    assert_int_equal(sinew_corrective_load(NULL, copy, size, &l), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "unknown kernel 9"));

    memcpy(copy, bytes, size);
    float *off = (float *)support_saved_section(copy, "COFF");
    off[0] = off[1] = off[2] = 0.0f;
    support_reseal(copy, size);
    assert_int_equal(sinew_corrective_load(NULL, copy, size, &l), SINEW_ERROR_INVALID_DATA);
    assert_non_null(strstr(sinew_last_error(), "is zero"));

    assert_ptr_equal(l, (sinew_corrective *)(uintptr_t)0x10);
    free(copy), free(bytes);
    sinew_corrective_destroy(c);
}

static sinew_result load_check(const void *data, size_t size, void *user)
{
    (void)user;
    sinew_corrective *c = NULL;
    sinew_result r = sinew_corrective_load(NULL, data, size, &c);
    if (r == SINEW_OK) {
        float out[9 * POINTS];
        sinew_corrective_info info;
        SINEW_INIT(&info);
        sinew_corrective_get_info(c, &info);
        if (info.point_count == POINTS && info.pose_size <= KEYS) deform_poses(c, out);
        sinew_corrective_destroy(c);
    }
    return r;
}

static void test_corruption(void **state)
{
    (void)state;
    sinew_corrective *c = NULL;
    assert_int_equal(create_in(NULL, SINEW_CORRECTIVE_KERNEL_LINEAR, &c), SINEW_OK);
    size_t size, accepted = 0;
    unsigned char *bytes = save(c, &size);
    char report[512];
    if (!support_sweep_saved_corruption(bytes, size, load_check, NULL, &accepted, report, sizeof report))
        fail_msg("%s", report);
    free(bytes);
    sinew_corrective_destroy(c);
}

typedef struct attempt_in {
    unsigned char *bytes;
    size_t size;
} attempt_in;

static sinew_result attempt_create(sinew_context *ctx, void *user)
{
    (void)user;
    sinew_corrective *c = NULL;
    sinew_result r = create_in(ctx, SINEW_CORRECTIVE_KERNEL_CUBIC, &c);
    sinew_corrective_destroy(c);
    return r;
}

static sinew_result attempt_load(sinew_context *ctx, void *user)
{
    attempt_in *in = (attempt_in *)user;
    sinew_corrective *c = NULL;
    sinew_result r = sinew_corrective_load(ctx, in->bytes, in->size, &c);
    sinew_corrective_destroy(c);
    return r;
}

static void test_allocation_failures(void **state)
{
    (void)state;
    size_t runs = 0;
    char report[512];
    if (!support_sweep_allocation_failures(attempt_create, NULL, &runs, report, sizeof report)) fail_msg("%s", report);
    assert_true(runs >= 2);
    sinew_corrective *c = NULL;
    assert_int_equal(create_in(NULL, SINEW_CORRECTIVE_KERNEL_CUBIC, &c), SINEW_OK);
    attempt_in in;
    in.bytes = save(c, &in.size);
    if (!support_sweep_allocation_failures(attempt_load, &in, &runs, report, sizeof report)) fail_msg("%s", report);
    /* memory_bytes is every byte the handle asked for (the allocator also
     * sees the library's 64-byte header of each block). */
    support_allocator counter;
    memset(&counter, 0, sizeof counter);
    sinew_context_desc cd;
    SINEW_INIT(&cd);
    cd.allocator = support_allocator_hooks(&counter);
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
    sinew_corrective *l = NULL;
    assert_int_equal(sinew_corrective_load(ctx, in.bytes, in.size, &l), SINEW_OK);
    sinew_context_destroy(ctx);
    const size_t held = counter.live_bytes - 64 * counter.live;   /* the handle alone */
    sinew_corrective_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_corrective_get_info(l, &info), SINEW_OK);
    assert_int_equal(info.memory_bytes, held);
    sinew_corrective_destroy(l);
    free(in.bytes);
    sinew_corrective_destroy(c);
}

static void test_golden(void **state)
{
    (void)state;
    char path[1024];
    const char *dir = getenv("SINEW_GOLDEN_DIR");
    snprintf(path, sizeof path, "%s/corrective-v1.bin", dir ? dir : "tests/golden");
    sinew_corrective *c = NULL;
    assert_int_equal(create_in(NULL, SINEW_CORRECTIVE_KERNEL_CUBIC, &c), SINEW_OK);
    size_t size;
    unsigned char *made = save(c, &size);
    if (getenv("SINEW_WRITE_GOLDEN")) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(made, 1, size, f), size);
        fclose(f);
    }
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("golden file %s is missing (SINEW_WRITE_GOLDEN=1 writes it)", path);
    unsigned char bytes[65536];
    size_t golden_size = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    sinew_corrective *golden = NULL;
    assert_int_equal(sinew_corrective_load(NULL, bytes, golden_size, &golden), SINEW_OK);
    float a[9 * POINTS], b[9 * POINTS];
    deform_poses(golden, a);
    deform_poses(c, b);
    assert_memory_equal(a, b, sizeof a);
    free(made);
    sinew_corrective_destroy(golden);
    sinew_corrective_destroy(c);
}

/* SINEW_WRITE_CORPUS=<folder>: writes a saved corrective of each kernel as
 * the seed corpus of the loader's fuzz target (tests/fuzz/corpus/load_corrective). */
static void test_write_corpus(void **state)
{
    (void)state;
    const char *dir = getenv("SINEW_WRITE_CORPUS");
    if (!dir) skip();
    assert_true(support_make_folder(dir));
    for (int k = 0; k <= SINEW_CORRECTIVE_KERNEL_WEIGHTS; ++k) {
        sinew_corrective *c = NULL;
        assert_int_equal(create_in(NULL, (sinew_corrective_kernel)k, &c), SINEW_OK);
        size_t size;
        unsigned char *bytes = save(c, &size);
        char path[1024];
        snprintf(path, sizeof path, "%s/seed-%02d", dir, k);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(bytes, 1, size, f), size);
        fclose(f);
        free(bytes);
        sinew_corrective_destroy(c);
    }
}

int main(void)
{
    fill_data();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_corruption),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_write_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
