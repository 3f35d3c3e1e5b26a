/* White-box tests of the internal core services every module builds on:
 * overflow-checked allocation, validation messages, progress/cancel. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/internal.h"
#include "support.h"

static void array_overflow_is_reported(void **state)
{
    (void)state;
    sn_env env;
    sn_env_from_context(&env, NULL);
    assert_null(sn_alloc_array(&env, SIZE_MAX / 2, 4, "the test array"));
    assert_int_equal(sn_alloc_failure(), SINEW_ERROR_SIZE_OVERFLOW);
    assert_non_null(strstr(sinew_last_error(), "the test array"));
    float *p = (float *)sn_calloc_array(&env, 100, sizeof(float), "floats");
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % SN_ALIGN, 0);
    for (int i = 0; i < 100; ++i) assert_true(p[i] == 0.0f);
    sn_free(&env, p);
}

static void points_validation_names_the_point(void **state)
{
    (void)state;
    float xyz[4][4] = {{0, 0, 0, 9}, {1, 2, 3, 9}, {1, NAN, 3, 9}, {0, 0, 0, 9}};
    sinew_points p = {&xyz[0][0], 4, 4 * sizeof(float)};
    assert_int_equal(sn_check_points(&p, "skin point"), SINEW_ERROR_NON_FINITE);
    assert_string_equal(sinew_last_error(), "skin point 2 has a non-finite coordinate y (nan)");
    p.count = 2;
    assert_int_equal(sn_check_points(&p, "skin point"), SINEW_OK);
    p.stride = 8;
    assert_int_equal(sn_check_points(&p, "skin point"), SINEW_ERROR_INVALID_ARGUMENT);
    p.stride = 0;
    p.data = NULL;
    assert_int_equal(sn_check_points(&p, "skin point"), SINEW_ERROR_INVALID_ARGUMENT);
    p.count = 0;
    assert_int_equal(sn_check_points(&p, "skin point"), SINEW_OK);
    sinew_points huge = {&xyz[0][0], SIZE_MAX / 4, 16};
    assert_int_equal(sn_check_points(&huge, "skin point"), SINEW_ERROR_SIZE_OVERFLOW);
}

static void index_validation_names_the_owner(void **state)
{
    (void)state;
    const uint32_t tris[] = {0, 1, 2, 2, 1, 7};
    assert_int_equal(sn_check_indices(tris, 2, 3, 8, "triangle"), SINEW_OK);
    assert_int_equal(sn_check_indices(tris, 2, 3, 7, "triangle"), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_string_equal(sinew_last_error(), "triangle 1 refers to vertex 7, but there are only 7");
    assert_int_equal(sn_check_indices(NULL, 2, 3, 7, "triangle"), SINEW_ERROR_INVALID_ARGUMENT);
}

/* Index views in the caller's format come back as packed u32: the caller's
 * own array when it already is one (nothing allocated), else a widened copy
 * from the env's allocator; every failure names the element and slot. */
static void index_views_are_borrowed_or_widened(void **state)
{
    (void)state;
    support_allocator counter = {0};
    sinew_context_desc cd = {sizeof(sinew_context_desc), support_allocator_hooks(&counter), NULL, NULL, NULL, NULL, 0};
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
    sn_env env;
    sn_env_from_context(&env, ctx);
    const size_t calls = counter.calls, live = counter.live;
    const uint32_t u32[6] = {0, 1, 2, 2, 1, 3};
    sn_indices ix;
    assert_int_equal(sn_indices_read(&env, u32, SINEW_INDEX_U32, 12, 2, 3, 4, "triangle", &ix), SINEW_OK);
    assert_ptr_equal(ix.data, u32);
    assert_null(ix.owned);
    assert_int_equal(counter.calls, calls);
    /* u16 interleaved with one spare entry per triangle. */
    const uint16_t u16[8] = {0, 1, 2, 99, 2, 1, 3, 99};
    assert_int_equal(sn_indices_read(&env, u16, SINEW_INDEX_U16, 8, 2, 3, 4, "triangle", &ix), SINEW_OK);
    assert_non_null(ix.owned);
    assert_memory_equal(ix.data, u32, sizeof u32);
    assert_int_equal(counter.calls, calls + 1);
    sn_indices_free(&env, &ix);
    assert_int_equal(counter.live, live);
    assert_int_equal(sn_indices_read(&env, u16, SINEW_INDEX_U16, 8, 2, 3, 3, "triangle", &ix),
                     SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_string_equal(sinew_last_error(), "triangle 1 refers to vertex 3 (slot 2), but there are only 3");
    const uint8_t u8[7] = {0, 0, 1, 2, 2, 1, 3};
    assert_int_equal(sn_indices_read(&env, u8 + 1, SINEW_INDEX_U8, 0, 2, 3, 4, "tet", &ix), SINEW_OK);
    assert_memory_equal(ix.data, u32, sizeof u32);
    sn_indices_free(&env, &ix);
    assert_int_equal(sn_check_index_view((const char *)u16 + 1, SINEW_INDEX_U16, 0, 2, 3, 4, "triangle"),
                     SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "triangle index pointer"));
    assert_non_null(strstr(sinew_last_error(), "is not aligned to 2 bytes"));
    assert_int_equal(sn_check_index_view(u16, SINEW_INDEX_U16, 5, 2, 3, 4, "triangle"), SINEW_ERROR_INVALID_ARGUMENT);
    assert_string_equal(sinew_last_error(),
                        "triangle index stride 5 bytes: must be 0 or a multiple of 2 that is at least 6");
    assert_int_equal(sn_check_index_view(u16, (sinew_index_type)7, 0, 2, 3, 4, "triangle"),
                     SINEW_ERROR_INVALID_ARGUMENT);
    assert_string_equal(sinew_last_error(), "triangle index type 7 is not a sinew_index_type");
    assert_int_equal(sn_check_index_view(u16, SINEW_INDEX_U16, 0, SIZE_MAX / 4, 3, 4, "triangle"),
                     SINEW_ERROR_SIZE_OVERFLOW);
    assert_int_equal(sn_check_index_view(NULL, SINEW_INDEX_U8, 0, 2, 3, 4, "triangle"), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sn_check_index_view(NULL, SINEW_INDEX_U8, 0, 0, 3, 4, "triangle"), SINEW_OK);
    /* A failed widening leaves *out alone and reports the allocator's failure. */
    counter.fail_at = counter.calls + 1;
    sn_indices keep = {u32, NULL};
    assert_int_equal(sn_indices_read(&env, u8 + 1, SINEW_INDEX_U8, 0, 2, 3, 4, "tet", &keep),
                     SINEW_ERROR_OUT_OF_MEMORY);
    assert_ptr_equal(keep.data, u32);
    sinew_context_destroy(ctx);
}

static int cancel_after(void *user, const char *stage, float fraction)
{
    (void)stage;
    int *calls = (int *)user;
    ++*calls;
    return fraction >= 0.5f;
}

static void progress_can_cancel(void **state)
{
    (void)state;
    int calls = 0;
    sinew_context_desc desc;
    SINEW_INIT(&desc);
    desc.progress = cancel_after;
    desc.progress_user = &calls;
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(&desc, &ctx), SINEW_OK);
    sn_env env;
    sn_env_from_context(&env, ctx);
    sinew_context_destroy(ctx); /* the copied settings outlive the context */
    assert_int_equal(sn_progress(&env, "test stage", 0.25f), SINEW_OK);
    assert_int_equal(sn_progress(&env, "test stage", 0.5f), SINEW_ERROR_CANCELLED);
    assert_non_null(strstr(sinew_last_error(), "test stage"));
    assert_int_equal(calls, 2);
}

/* The pattern GCC 12 miscompiles when it packs the conversions: midpoints
 * rounded to float in a short loop (as the lattice refinement does). */
static __attribute__((noinline)) void rounded_midpoints(const double *a, const double *b, double *mid)
{
    for (int c = 0; c < 3; ++c) mid[c] = 0.5 * (a[c] + b[c]);
    for (int c = 0; c < 3; ++c) mid[c] = sn_round_to_float(mid[c]);
}

static void rounding_to_float_survives_the_vectoriser(void **state)
{
    (void)state;
    const double a[3] = {0.1, 0.2, 0.3}, b[3] = {0.7, 0.11, 0.13};
    double mid[3];
    rounded_midpoints(a, b, mid);
    for (int c = 0; c < 3; ++c) {
        volatile float f = (float)(0.5 * (a[c] + b[c]));
        assert_true(mid[c] == (double)f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(array_overflow_is_reported),
        cmocka_unit_test(points_validation_names_the_point),
        cmocka_unit_test(index_validation_names_the_owner),
        cmocka_unit_test(index_views_are_borrowed_or_widened),
        cmocka_unit_test(progress_can_cancel),
        cmocka_unit_test(rounding_to_float_survives_the_vectoriser),
    };
    return cmocka_run_group_tests_name("core-internal", tests, NULL, NULL);
}
