/*
 * Harness of the multi-threaded pose-time test: runs a range job from one
 * thread, then from THREADS_COUNT threads at once on disjoint ranges, and
 * compares the two outputs byte for byte.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SINEW_TEST_THREADS_HARNESS_H
#define SINEW_TEST_THREADS_HARNESS_H

#include <stddef.h>

#include "sinew.h"

#define THREADS_COUNT 4

/* One pose-time job: run() computes elements [first, first + count) of a
 * range of `total` into `out` (out_bytes bytes for the whole range; elements
 * outside the range must stay as they are). `data` is the technique's fixture. */
typedef struct pose_job {
    const char *name;
    sinew_result (*run)(const struct pose_job *job, unsigned char *out, size_t first, size_t count);
    size_t total;
    size_t out_bytes;
    const void *data;
} pose_job;

/* Runs job->run over [0, total) in THREADS_COUNT disjoint parts started
 * together. Returns the first failure of any thread, else SINEW_OK. */
sinew_result threads_run_split(const pose_job *job, unsigned char *out);

/* Runs the job single-threaded and split, both into buffers prefilled with
 * the same bytes, and fails the cmocka test (naming the job) when a call
 * fails or the outputs differ in any byte. */
void threads_check_job(const pose_job *job);

/* Starts THREADS_COUNT threads running fn(index, user) together and joins them. */
void threads_run_all(void (*fn)(size_t index, void *user), void *user);

#endif /* SINEW_TEST_THREADS_HARNESS_H */
