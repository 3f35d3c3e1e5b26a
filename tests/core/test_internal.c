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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(array_overflow_is_reported),
        cmocka_unit_test(points_validation_names_the_point),
        cmocka_unit_test(index_validation_names_the_owner),
        cmocka_unit_test(progress_can_cancel),
    };
    return cmocka_run_group_tests_name("core-internal", tests, NULL, NULL);
}
