/* Runner of the contract tables (see contract.h). */
#include "contract.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned char *contract_scratch;
static unsigned char *snapshot;
static const contract_hooks *active_hooks;

uint64_t contract_hash(uint64_t hash, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; ++i) hash = (hash ^ p[i]) * 1099511628211ull;
    return hash;
}

void contract_resnapshot(void)
{
    memcpy(snapshot, contract_scratch, CONTRACT_SCRATCH_BYTES);
}

void *contract_out_struct(size_t byte_offset, size_t size)
{
    memcpy(contract_scratch + byte_offset, &size, sizeof size);
    contract_resnapshot();
    return contract_scratch + byte_offset;
}

/* Leaves a message on this thread, so a success case shows it clears it. */
static void leave_a_message(void)
{
    assert_int_equal(sinew_context_create(NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_true(sinew_last_error()[0] != '\0');
}

static void check_case(void **state)
{
    const contract_case *c = *state;
    memset(contract_scratch, CONTRACT_SENTINEL, CONTRACT_SCRATCH_BYTES);
    if (active_hooks->prepare) active_hooks->prepare();
    memcpy(snapshot, contract_scratch, CONTRACT_SCRATCH_BYTES);
    uint64_t before = active_hooks->fingerprint ? active_hooks->fingerprint() : 0;
    if (c->expected == SINEW_OK)
        leave_a_message();
    else
        sinew_clear_error();

    sinew_result r = c->call();
    if (c->expected == SINEW_ERROR_PLAIN) return;

    char message[512];
    snprintf(message, sizeof message, "%s", sinew_last_error());
    if (r != c->expected)
        fail_msg("%s: returned %d (%s), expected %d (%s); message \"%s\"", c->name, (int)r, sinew_result_string(r),
                 (int)c->expected, sinew_result_string(c->expected), message);
    if (c->expected == SINEW_OK) {
        /* The *_get_info queries keep a failure's message readable (api.md);
         * every other successful call clears it. */
        bool keeps = strstr(c->name, "get_info") != NULL;
        if (keeps && message[0] == '\0') fail_msg("%s: succeeded but cleared the earlier message", c->name);
        if (!keeps && message[0] != '\0') fail_msg("%s: succeeded but left the message \"%s\"", c->name, message);
        return;
    }
    if (message[0] == '\0') fail_msg("%s: failed with an empty message", c->name);
    if (c->needle && !strstr(message, c->needle))
        fail_msg("%s: message \"%s\" does not name \"%s\"", c->name, message, c->needle);
    /* The one failure that still fills its outputs (api.md). */
    if (c->expected == SINEW_ERROR_NOT_CONVERGED) return;
    for (size_t i = 0; i < CONTRACT_SCRATCH_BYTES; ++i)
        if (contract_scratch[i] != snapshot[i])
            fail_msg("%s: failed but wrote output byte %zu (0x%02x, was 0x%02x)", c->name, i, contract_scratch[i],
                     snapshot[i]);
    if (active_hooks->fingerprint && active_hooks->fingerprint() != before)
        fail_msg("%s: failed but changed the handle", c->name);
}

int contract_run(const char *group, const contract_case *cases, size_t count, const contract_hooks *hooks)
{
    contract_scratch = aligned_alloc(64, CONTRACT_SCRATCH_BYTES);
    snapshot = malloc(CONTRACT_SCRATCH_BYTES);
    struct CMUnitTest *tests = calloc(count, sizeof *tests);
    if (!contract_scratch || !snapshot || !tests) return 1;
    active_hooks = hooks;
    for (size_t i = 0; i < count; ++i) {
        tests[i].name = cases[i].name;
        tests[i].test_func = check_case;
        tests[i].initial_state = (void *)&cases[i];
    }
    int failures = _cmocka_run_group_tests(group, tests, count, hooks->setup, hooks->teardown);
    free(tests);
    free(snapshot);
    free(contract_scratch);
    return failures;
}
