/*
 * parallel_for hooks for the bbw tests and benchmarks: a pthread hook (the
 * caller and threads - 1 fresh threads take tasks from a shared counter),
 * and a serial hook that runs the tasks in reverse order. Header-only so the
 * benchmark can use it too; the including file defines _POSIX_C_SOURCE.
 */
#ifndef SINEW_TEST_BBW_POOL_H
#define SINEW_TEST_BBW_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "sinew.h"

typedef struct bbw_pool {
    int threads;          /* 1..8 */
    atomic_uint calls;    /* hook invocations, for tests */
} bbw_pool;

typedef struct bbw_pool_run {
    sinew_task_fn task;
    void *task_user;
    uint32_t count;
    atomic_uint next;
} bbw_pool_run;

static void *bbw_pool_worker(void *arg)
{
    bbw_pool_run *run = arg;
    for (;;) {
        uint32_t i = atomic_fetch_add(&run->next, 1u);
        if (i >= run->count) break;
        run->task(run->task_user, i);
    }
    return NULL;
}

static void bbw_pool_parallel_for(void *user, sinew_task_fn task, void *task_user, uint32_t count)
{
    bbw_pool *pool = user;
    atomic_fetch_add(&pool->calls, 1u);
    bbw_pool_run run = {task, task_user, count, 0};
    pthread_t ids[8];
    int started = 0;
    for (int t = 1; t < pool->threads && t < 8; ++t)
        if (pthread_create(&ids[started], NULL, bbw_pool_worker, &run) == 0) ++started;
    bbw_pool_worker(&run);
    for (int t = 0; t < started; ++t) pthread_join(ids[t], NULL);
}

static void bbw_reverse_parallel_for(void *user, sinew_task_fn task, void *task_user, uint32_t count)
{
    bbw_pool *pool = user;
    atomic_fetch_add(&pool->calls, 1u);
    for (uint32_t i = count; i-- > 0;) task(task_user, i);
}

/* A context whose loops run on `pool` (reverse = the reverse-order hook),
 * split into `tasks` tasks. */
static sinew_context *bbw_pool_context(bbw_pool *pool, int reverse, uint32_t tasks)
{
    sinew_context_desc cd;
    SINEW_INIT(&cd);
    cd.parallel_for = reverse ? bbw_reverse_parallel_for : bbw_pool_parallel_for;
    cd.parallel_user = pool;
    cd.parallel_tasks = tasks;
    sinew_context *ctx = NULL;
    if (sinew_context_create(&cd, &ctx) != SINEW_OK) return NULL;
    return ctx;
}

#endif
