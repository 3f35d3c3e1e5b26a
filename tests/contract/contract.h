/*
 * Contract tests: every public call, given a bad argument, returns the result
 * code its header documents, leaves a message naming the argument in
 * sinew_last_error(), and leaves its outputs and handles untouched; a
 * successful call clears the message.
 *
 * Each test file lists its cases in one X-macro table, one line per case:
 *   X(name, RESULT, "needle", { body })
 * RESULT is a sinew_result without its SINEW_ERROR_ prefix (OK for success,
 * PLAIN for calls that report nothing and check themselves with cmocka
 * asserts; NOT_CONVERGED keeps its outputs, so only its message is checked),
 * "needle" a substring the failure message must contain, and the
 * body makes the call and returns its result. Everything a failing call could
 * write lives in the scratch buffer (see SCRATCH below): the runner fills it
 * with a sentinel before each case and checks, byte for byte, that a failing
 * call left it alone. Bodies must not contain top-level commas (wrap such
 * code in a helper function).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_TEST_CONTRACT_H
#define SINEW_TEST_CONTRACT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sinew.h"

/* ---- Scratch outputs ----------------------------------------------------- */

#define CONTRACT_SCRATCH_BYTES ((size_t)1 << 16)
/* 64-byte aligned; refilled with CONTRACT_SENTINEL before every case. */
extern unsigned char *contract_scratch;
#define CONTRACT_SENTINEL 0xA5

/* A typed pointer byte_offset bytes into the scratch buffer. */
#define SCRATCH(type, byte_offset) ((type *)(void *)(contract_scratch + (byte_offset)))
/* The handle slot a create call's `out` points to, then general outputs. */
#define OUT_HANDLE(type) SCRATCH(type *, 0)
#define OUT_F SCRATCH(float, 256)
#define OUT_U32 SCRATCH(uint32_t, 256)
#define OUT_SIZE SCRATCH(size_t, 256)
/* A second output area, for calls with two outputs. */
#define OUT2_F SCRATCH(float, 32768)
#define OUT2_U32 SCRATCH(uint32_t, 32768)
/* An info or report struct in the scratch buffer: sentinel bytes with its
 * struct_size set as SINEW_INIT would, and taken into the snapshot. */
void *contract_out_struct(size_t byte_offset, size_t size);
#define OUT_STRUCT(type, byte_offset) ((type *)contract_out_struct((byte_offset), sizeof(type)))
/* p moved by 2 bytes: a float or uint32_t pointer that is not aligned. */
#define MISALIGNED(type, p) ((type *)(void *)((char *)(p) + 2))

/* ---- Cases ------------------------------------------------------------- */

/* Pseudo result of PLAIN cases: neither the result nor the message is checked. */
#define SINEW_ERROR_PLAIN ((sinew_result)-1)
#define SINEW_ERROR_OK SINEW_OK

typedef struct contract_case {
    const char *name;
    sinew_result expected;
    const char *needle;
    sinew_result (*call)(void);
} contract_case;

/* Table generators for an X-macro list of cases (see the top of this file). */
#define CONTRACT_DEFINE(name, result, needle, body) static sinew_result case_##name(void) body
#define CONTRACT_ENTRY(name, result, needle, body) {#name, SINEW_ERROR_##result, needle, case_##name},

/* Optional hooks of one file's group:
 * prepare: runs after the sentinel fill, before the snapshot (fills in-place
 *   inputs that live in the scratch buffer);
 * fingerprint: a hash of the mutable handles' observable state, compared
 *   before and after every failing case ("handles are as they were"). */
typedef struct contract_hooks {
    int (*setup)(void **state);
    int (*teardown)(void **state);
    void (*prepare)(void);
    uint64_t (*fingerprint)(void);
} contract_hooks;

/* Runs the cases as one cmocka group; returns the number of failures. */
int contract_run(const char *group, const contract_case *cases, size_t count, const contract_hooks *hooks);

/* Takes the scratch snapshot again: for bodies that edit inputs living in the
 * scratch buffer (in-place arrays) before making their call. */
void contract_resnapshot(void);

/* FNV-1a over bytes, for fingerprints. */
uint64_t contract_hash(uint64_t hash, const void *data, size_t size);
#define CONTRACT_HASH_SEED 1469598103934665603ull

#endif /* SINEW_TEST_CONTRACT_H */
