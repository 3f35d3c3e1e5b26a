#define _POSIX_C_SOURCE 200809L /* pthread barriers */
/* Threads harness (see harness.h): pthreads, a barrier so that the threads'
 * calls overlap, byte comparison of the outputs. */
#include "harness.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

typedef struct worker {
    size_t index;
    void (*fn)(size_t index, void *user);
    void *user;
    pthread_barrier_t *start;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    pthread_barrier_wait(w->start);
    w->fn(w->index, w->user);
    return NULL;
}

void threads_run_all(void (*fn)(size_t index, void *user), void *user)
{
    pthread_t threads[THREADS_COUNT];
    worker workers[THREADS_COUNT];
    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, THREADS_COUNT), 0);
    for (size_t t = 0; t < THREADS_COUNT; ++t) {
        workers[t] = (worker){t, fn, user, &start};
        assert_int_equal(pthread_create(&threads[t], NULL, worker_main, &workers[t]), 0);
    }
    for (size_t t = 0; t < THREADS_COUNT; ++t) assert_int_equal(pthread_join(threads[t], NULL), 0);
    pthread_barrier_destroy(&start);
}

typedef struct split {
    const pose_job *job;
    unsigned char *out;
    sinew_result result[THREADS_COUNT];
} split;

static void run_part(size_t index, void *user)
{
    split *s = user;
    size_t first = s->job->total * index / THREADS_COUNT, end = s->job->total * (index + 1) / THREADS_COUNT;
    s->result[index] = s->job->run(s->job, s->out, first, end - first);
}

sinew_result threads_run_split(const pose_job *job, unsigned char *out)
{
    split s = {job, out, {SINEW_OK}};
    threads_run_all(run_part, &s);
    for (size_t t = 0; t < THREADS_COUNT; ++t)
        if (s.result[t] != SINEW_OK) return s.result[t];
    return SINEW_OK;
}

void threads_check_job(const pose_job *job)
{
    unsigned char *single = aligned_alloc(64, (job->out_bytes + 63) / 64 * 64);
    unsigned char *threaded = aligned_alloc(64, (job->out_bytes + 63) / 64 * 64);
    assert_non_null(single);
    assert_non_null(threaded);
    memset(single, 0x5A, job->out_bytes);
    memset(threaded, 0x5A, job->out_bytes);
    sinew_result r = job->run(job, single, 0, job->total);
    if (r != SINEW_OK) fail_msg("%s: single-threaded run failed: %s", job->name, sinew_last_error());
    r = threads_run_split(job, threaded);
    if (r != SINEW_OK) fail_msg("%s: a thread failed with %s", job->name, sinew_result_string(r));
    for (size_t i = 0; i < job->out_bytes; ++i)
        if (single[i] != threaded[i])
            fail_msg("%s: byte %zu differs (single 0x%02x, threaded 0x%02x)", job->name, i, single[i], threaded[i]);
    /* The sentinel must have been replaced: a job that writes nothing proves nothing. */
    size_t written = 0;
    for (size_t i = 0; i < job->out_bytes; ++i) written += single[i] != 0x5A;
    if (written * 4 < job->out_bytes) fail_msg("%s: only %zu of %zu bytes written", job->name, written, job->out_bytes);
    free(single);
    free(threaded);
}
