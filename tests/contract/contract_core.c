/* Contract of include/sinew/core.h: version, results, messages, contexts. */
#include <limits.h>
#include <string.h>

#include "contract.h"

static void *refuse_alloc(void *user, size_t size, size_t align)
{
    (void)user, (void)size, (void)align;
    return NULL;
}
static void plain_free(void *user, void *ptr)
{
    (void)user, (void)ptr;
}

static sinew_result create_with(sinew_allocator allocator)
{
    sinew_context_desc desc;
    SINEW_INIT(&desc);
    desc.allocator = allocator;
    return sinew_context_create(&desc, OUT_HANDLE(sinew_context));
}

static sinew_result create_and_destroy(const sinew_context_desc *desc)
{
    sinew_result r = sinew_context_create(desc, OUT_HANDLE(sinew_context));
    if (r == SINEW_OK) sinew_context_destroy(*OUT_HANDLE(sinew_context));
    return r;
}

static void check_result_strings(void)
{
    for (int code = SINEW_OK; code <= SINEW_ERROR_INVALID_DATA; ++code) {
        const char *s = sinew_result_string((sinew_result)code);
        assert_non_null(s);
        assert_true(s[0] != '\0');
        assert_string_not_equal(s, "unknown result");
    }
    const int unknown[] = {SINEW_ERROR_INVALID_DATA + 1, -1, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; ++i)
        assert_string_equal(sinew_result_string((sinew_result)unknown[i]), "unknown result");
}

static void check_clear_error(void)
{
    assert_int_equal(sinew_context_create(NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_true(sinew_last_error()[0] != '\0');
    sinew_clear_error();
    assert_non_null(sinew_last_error());
    assert_string_equal(sinew_last_error(), "");
    sinew_clear_error();
    assert_string_equal(sinew_last_error(), "");
}

/* A desc of defaults, as SINEW_INIT leaves it. */
static const sinew_context_desc *zero_desc(void)
{
    static sinew_context_desc desc;
    SINEW_INIT(&desc);
    return &desc;
}

#define CASES(X) \
    X(version_string_matches_header, PLAIN, NULL, \
      { assert_string_equal(sinew_version(), SINEW_VERSION_STRING); return SINEW_OK; }) \
    X(version_number_matches_header, PLAIN, NULL, \
      { assert_int_equal(sinew_version_number(), SINEW_VERSION_NUMBER); return SINEW_OK; }) \
    X(result_string_known_and_unknown_codes, PLAIN, NULL, { check_result_strings(); return SINEW_OK; }) \
    X(clear_error_empties_the_message, PLAIN, NULL, { check_clear_error(); return SINEW_OK; }) \
    X(context_create_null_out, INVALID_ARGUMENT, "out", { return sinew_context_create(NULL, NULL); }) \
    X(context_create_alloc_without_free, INVALID_ARGUMENT, "free", \
      { return create_with((sinew_allocator){refuse_alloc, NULL, NULL}); }) \
    X(context_create_free_without_alloc, INVALID_ARGUMENT, "alloc", \
      { return create_with((sinew_allocator){NULL, plain_free, NULL}); }) \
    X(context_create_allocator_fails, OUT_OF_MEMORY, "context", \
      { return create_with((sinew_allocator){refuse_alloc, plain_free, NULL}); }) \
    X(context_create_defaults_ok, OK, NULL, { return create_and_destroy(NULL); }) \
    X(context_create_zero_desc_ok, OK, NULL, { return create_and_destroy(zero_desc()); }) \
    X(context_destroy_null, PLAIN, NULL, { sinew_context_destroy(NULL); return SINEW_OK; })

CASES(CONTRACT_DEFINE)
static const contract_case cases[] = {CASES(CONTRACT_ENTRY)};

int main(void)
{
    static const contract_hooks hooks = {0};
    return contract_run("contract-core", cases, sizeof cases / sizeof cases[0], &hooks);
}
