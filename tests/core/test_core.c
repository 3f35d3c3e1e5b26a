/* Core: context, allocator rules, result strings, thread-local messages, version. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "support.h"

static void version_matches_header(void **state)
{
    (void)state;
    assert_string_equal(sinew_version(), SINEW_VERSION_STRING);
    assert_int_equal(sinew_version_number(), SINEW_VERSION_NUMBER);
    assert_int_equal(SINEW_VERSION_NUMBER,
                     SINEW_VERSION_MAJOR * 10000 + SINEW_VERSION_MINOR * 100 + SINEW_VERSION_PATCH);
}

static void result_strings_are_distinct(void **state)
{
    (void)state;
    const int last = SINEW_ERROR_NO_RESULT;
    for (int a = 0; a <= last; ++a) {
        const char *sa = sinew_result_string((sinew_result)a);
        assert_non_null(sa);
        assert_string_not_equal(sa, "unknown result");
        for (int b = a + 1; b <= last; ++b) assert_string_not_equal(sa, sinew_result_string((sinew_result)b));
    }
    assert_string_equal(sinew_result_string((sinew_result)9999), "unknown result");
    assert_string_equal(sinew_result_string(SINEW_OK), "ok");
}

static void default_context(void **state)
{
    (void)state;
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(NULL, &ctx), SINEW_OK);
    assert_non_null(ctx);
    sinew_context_destroy(ctx);
    sinew_context_destroy(NULL);
}

static void null_out_is_rejected(void **state)
{
    (void)state;
    assert_int_equal(sinew_context_create(NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "out"));
}

static void allocator_needs_both_hooks(void **state)
{
    (void)state;
    support_allocator a = {0};
    sinew_context_desc desc;
    SINEW_INIT(&desc);
    desc.allocator = support_allocator_hooks(&a);
    desc.allocator.free = NULL;
    sinew_context *ctx = (sinew_context *)(uintptr_t)0x1;
    assert_int_equal(sinew_context_create(&desc, &ctx), SINEW_ERROR_INVALID_ARGUMENT);
    assert_true(ctx == (sinew_context *)(uintptr_t)0x1); /* output untouched */
    assert_non_null(strstr(sinew_last_error(), "only alloc"));
    desc.allocator = support_allocator_hooks(&a);
    desc.allocator.alloc = NULL;
    assert_int_equal(sinew_context_create(&desc, &ctx), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "only free"));
    assert_int_equal(a.calls, 0);
}

static void custom_allocator_is_used(void **state)
{
    (void)state;
    support_allocator a = {0};
    sinew_context_desc desc;
    SINEW_INIT(&desc);
    desc.allocator = support_allocator_hooks(&a);
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(&desc, &ctx), SINEW_OK);
    assert_int_equal(a.live, 1);
    sinew_context_destroy(ctx);
    assert_int_equal(a.live, 0);
}

static void failing_allocator_gives_out_of_memory(void **state)
{
    (void)state;
    support_allocator a = {0};
    a.fail_at = 1;
    sinew_context_desc desc;
    SINEW_INIT(&desc);
    desc.allocator = support_allocator_hooks(&a);
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(&desc, &ctx), SINEW_ERROR_OUT_OF_MEMORY);
    assert_null(ctx);
    assert_non_null(strstr(sinew_last_error(), "out of memory"));
    assert_int_equal(a.live, 0);
}

static sinew_result make_and_drop(sinew_context *ctx, void *user)
{
    (void)ctx;
    (void)user;
    sinew_context *inner = NULL;
    sinew_result r = sinew_context_create(NULL, &inner);
    sinew_context_destroy(inner);
    return r;
}

static void sweep_runs_to_completion(void **state)
{
    (void)state;
    size_t runs = 0;
    char report[256];
    assert_true(support_sweep_allocation_failures(make_and_drop, NULL, &runs, report, sizeof report));
    assert_int_equal(runs, 2); /* the first run fails creating the context itself */
}

static void *thread_reads_message(void *arg)
{
    (void)arg;
    /* A fresh thread sees no message from another thread's failure. */
    return (void *)(uintptr_t)(sinew_last_error()[0] == '\0');
}

static void messages_are_thread_local(void **state)
{
    (void)state;
    assert_int_equal(sinew_context_create(NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_true(sinew_last_error()[0] != '\0');
    pthread_t t;
    void *clean = NULL;
    assert_int_equal(pthread_create(&t, NULL, thread_reads_message, NULL), 0);
    assert_int_equal(pthread_join(t, &clean), 0);
    assert_true(clean != NULL);
    assert_true(sinew_last_error()[0] != '\0');
    sinew_clear_error();
    assert_string_equal(sinew_last_error(), "");
}

static void success_clears_message(void **state)
{
    (void)state;
    assert_int_equal(sinew_context_create(NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(NULL, &ctx), SINEW_OK);
    assert_string_equal(sinew_last_error(), "");
    sinew_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_matches_header),
        cmocka_unit_test(result_strings_are_distinct),
        cmocka_unit_test(default_context),
        cmocka_unit_test(null_out_is_rejected),
        cmocka_unit_test(allocator_needs_both_hooks),
        cmocka_unit_test(custom_allocator_is_used),
        cmocka_unit_test(failing_allocator_gives_out_of_memory),
        cmocka_unit_test(sweep_runs_to_completion),
        cmocka_unit_test(messages_are_thread_local),
        cmocka_unit_test(success_clears_message),
    };
    return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
