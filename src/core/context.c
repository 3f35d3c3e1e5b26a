/* The context: allocator and progress settings, and every allocation made on
 * their behalf. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#  define _DEFAULT_SOURCE   /* madvise under -std=c11 */
#endif
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#  include <sys/mman.h>
#endif

#include "core/internal.h"

#if defined(__linux__) && defined(MADV_HUGEPAGE)
/* Blocks of at least this many bytes from the default allocator are placed on
 * 2 MiB boundaries and offered to the kernel's transparent huge pages: a
 * freshly loaded 28 MB skin then takes 14 page faults instead of about 7,000,
 * and faults are what the first touch of fresh memory costs (docs/skinning.md, Save
 * and load). Smaller blocks would waste more of a huge page than they save. */
#  define SN_HUGE_PAGE_BYTES ((size_t)2 << 20)
#  define SN_HUGE_PAGE_ADVICE_MIN ((size_t)4 << 20)
#endif

/* Default allocator: malloc with room to align by hand, the original pointer
 * stored just below the aligned block. Portable C11, unlike aligned_alloc's
 * size rules or posix_memalign. */
static void *default_alloc(void *user, size_t size, size_t align)
{
    (void)user;
#ifdef SN_HUGE_PAGE_ADVICE_MIN
    /* The block is rounded up to whole huge pages, so its tail is not left on
     * hundreds of small ones. */
    const int huge = size >= SN_HUGE_PAGE_ADVICE_MIN && align < SN_HUGE_PAGE_BYTES &&
                     size <= SIZE_MAX - SN_HUGE_PAGE_BYTES;
    if (huge) {
        align = SN_HUGE_PAGE_BYTES;
        size = (size + SN_HUGE_PAGE_BYTES - 1) & ~(SN_HUGE_PAGE_BYTES - 1);
    }
#endif
    size_t total;
    if (!sn_add_size(size, align + sizeof(void *), &total)) return NULL;
    unsigned char *raw = (unsigned char *)malloc(total);
    if (!raw) return NULL;
    uintptr_t start = (uintptr_t)(raw + sizeof(void *));
    uintptr_t aligned = (start + (align - 1)) & ~(uintptr_t)(align - 1);
    void **slot = (void **)aligned - 1;
    *slot = raw;
#ifdef SN_HUGE_PAGE_ADVICE_MIN
    /* Advice only: a kernel without transparent huge pages refuses it and the
     * block stays on small pages. */
    if (huge) (void)madvise((void *)aligned, size, MADV_HUGEPAGE);
#endif
    return (void *)aligned;
}

static void default_free(void *user, void *ptr)
{
    (void)user;
    if (ptr) free(((void **)ptr)[-1]);
}

void sn_env_from_context(sn_env *env, const sinew_context *ctx)
{
    if (ctx) {
        *env = ctx->env;
        return;
    }
    memset(env, 0, sizeof *env);
    env->allocator.alloc = default_alloc;
    env->allocator.free = default_free;
    env->parallel_tasks = 1;
}

sn_env sn_env_kept(const sn_env *env)
{
    sn_env kept = *env;
    kept.progress = NULL;
    kept.progress_user = NULL;
    kept.parallel_for = NULL;
    kept.parallel_user = NULL;
    kept.parallel_tasks = 1;
    return kept;   /* `held` stays: the handle's later allocations count as its memory */
}

void sn_env_for_call(sn_env *call, const sn_env *handle, const sinew_context *ctx)
{
    *call = *handle;
    call->progress = ctx ? ctx->env.progress : NULL;
    call->progress_user = ctx ? ctx->env.progress_user : NULL;
    call->parallel_for = ctx ? ctx->env.parallel_for : NULL;
    call->parallel_user = ctx ? ctx->env.parallel_user : NULL;
    call->parallel_tasks = ctx ? ctx->env.parallel_tasks : 1;
}

void sn_parallel_for(const sn_env *env, sinew_task_fn task, void *user, uint32_t count)
{
    if (env->parallel_for && count > 1) {
        env->parallel_for(env->parallel_user, task, user, count);
        return;
    }
    for (uint32_t i = 0; i < count; ++i) task(user, i);
}

static _Thread_local sinew_result last_alloc_failure = SINEW_ERROR_OUT_OF_MEMORY;

sinew_result sn_alloc_failure(void)
{
    return last_alloc_failure;
}

/* Every block starts with one aligned header line: the size asked for and the
 * counter it was added to, so frees and memory queries know both. */
typedef struct block_header {
    size_t size;
    size_t *held;
} block_header;

static block_header *header_of(const void *ptr)
{
    return (block_header *)(void *)((unsigned char *)(uintptr_t)ptr - SN_ALIGN);
}

void *sn_alloc(const sn_env *env, size_t size, const char *what)
{
    size_t total;
    unsigned char *raw = NULL;
    /* Size 0 asks for 1 byte, so NULL always means failure; that byte counts as held. */
    size = size ? size : 1;
    if (sn_add_size(size, SN_ALIGN, &total)) raw = env->allocator.alloc(env->allocator.user, total, SN_ALIGN);
    if (!raw) {
        last_alloc_failure = SINEW_ERROR_OUT_OF_MEMORY;
        sn_fail(SINEW_ERROR_OUT_OF_MEMORY, "out of memory allocating %zu bytes for %s", size,
                what ? what : "internal data");
        return NULL;
    }
    block_header h = {size, env->held};
    memcpy(raw, &h, sizeof h);
    if (env->held) *env->held += size;
    return raw + SN_ALIGN;
}

size_t sn_block_bytes(const void *ptr)
{
    return ptr ? header_of(ptr)->size : 0;
}

void *sn_calloc(const sn_env *env, size_t size, const char *what)
{
    void *p = sn_alloc(env, size, what);
    if (p) memset(p, 0, size);
    return p;
}

static bool array_size(size_t count, size_t elem, const char *what, size_t *bytes)
{
    if (sn_mul_size(count, elem, bytes)) return true;
    last_alloc_failure = SINEW_ERROR_SIZE_OVERFLOW;
    sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "size of %s overflows: %zu elements of %zu bytes",
            what ? what : "internal data", count, elem);
    return false;
}

void *sn_alloc_array(const sn_env *env, size_t count, size_t elem, const char *what)
{
    size_t bytes;
    return array_size(count, elem, what, &bytes) ? sn_alloc(env, bytes, what) : NULL;
}

void *sn_calloc_array(const sn_env *env, size_t count, size_t elem, const char *what)
{
    size_t bytes;
    return array_size(count, elem, what, &bytes) ? sn_calloc(env, bytes, what) : NULL;
}

void sn_free(const sn_env *env, void *ptr)
{
    if (!ptr) return;
    block_header *h = header_of(ptr);
    if (h->held) *h->held -= h->size;
    env->allocator.free(env->allocator.user, h);
}

sinew_result sn_progress(const sn_env *env, const char *stage, float fraction)
{
    if (env->progress && env->progress(env->progress_user, stage, fraction))
        return sn_fail(SINEW_ERROR_CANCELLED, "cancelled by the progress callback during %s", stage);
    return SINEW_OK;
}

sinew_result sinew_context_create(const sinew_context_desc *desc, sinew_context **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out is NULL");
    sn_env env;
    sn_env_from_context(&env, NULL);
    if (desc) {
        sinew_context_desc local;
        sinew_result r = sn_read_struct(&local, sizeof local, desc, "desc");
        if (r != SINEW_OK) return r;
        desc = &local;
        const sinew_allocator *a = &desc->allocator;
        if ((a->alloc == NULL) != (a->free == NULL))
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                           "allocator: set both alloc and free, or neither (only %s is set)",
                           a->alloc ? "alloc" : "free");
        if (a->alloc) env.allocator = *a;
        env.progress = desc->progress;
        env.progress_user = desc->progress_user;
        env.parallel_for = desc->parallel_for;
        env.parallel_user = desc->parallel_user;
        env.parallel_tasks = !desc->parallel_for ? 1 : desc->parallel_tasks ? desc->parallel_tasks : 2;
    }
    sinew_context *ctx = (sinew_context *)sn_alloc(&env, sizeof *ctx, "the context");
    if (!ctx) return SINEW_ERROR_OUT_OF_MEMORY;
    ctx->env = env;
    *out = ctx;
    return SINEW_OK;
}

void sinew_context_destroy(sinew_context *ctx)
{
    if (!ctx) return;
    sn_env env = ctx->env;
    sn_free(&env, ctx);
}
