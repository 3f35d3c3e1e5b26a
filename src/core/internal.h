/*
 * Internal core services shared by every module: the context, allocation with
 * overflow checks, failure messages, progress/cancel, and input validation.
 * Nothing here is public; names carry the sn_ prefix.
 */
#ifndef SINEW_CORE_INTERNAL_H
#define SINEW_CORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew/core.h"

#if defined(__GNUC__) || defined(__clang__)
#  define SN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#  define SN_LIKELY(x) __builtin_expect(!!(x), 1)
#  define SN_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#  define SN_PRINTF(f, a)
#  define SN_LIKELY(x) (x)
#  define SN_UNLIKELY(x) (x)
#endif

/* For the numeric inner loops of the portable kernels: no coverage
 * instrumentation in a fuzzing build (-fsanitize=fuzzer-no-link). Its
 * comparison tracing there costs several times their run time (bbw inputs
 * pass libFuzzer's timeout) and guides nothing: their branches are loop
 * counts. */
#if defined(__clang__) && __clang_major__ >= 13
#  define SN_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#  define SN_NO_COVERAGE
#endif

/* Alignment of every allocation made through sn_alloc: one cache line, which
 * also satisfies every SIMD load the kernels make. */
#define SN_ALIGN 64

/* The settings a call works with: the allocator and the progress callback.
 * Handles embed one by value (so the public context may die before them)
 * with no progress callback: progress belongs to the call that was given a
 * context (sn_env_for_call), never to the handle. */
typedef struct sn_env {
    sinew_allocator allocator;  /* always both hooks set */
    sinew_progress_fn progress;
    void *progress_user;
    /* When set, the bytes of every block allocated through this env are added
     * here and taken off again when the block is freed (through any env): a
     * handle points it at its own counter, which its *_get_info reports as
     * memory_bytes. Never set in the env of a call on a const handle. */
    size_t *held;
    /* The host's parallel loop (NULL = serial) and the tasks a loop is
     * split into (>= 1; 1 when there is no hook). Per call, like progress. */
    sinew_parallel_for_fn parallel_for;
    void *parallel_user;
    uint32_t parallel_tasks;
} sn_env;

struct sinew_context {
    sn_env env;
};

/* Fills env from ctx (NULL ctx = defaults). Never fails. */
void sn_env_from_context(sn_env *env, const sinew_context *ctx);
/* What a handle keeps of a creation call's env: its allocator, no progress. */
sn_env sn_env_kept(const sn_env *env);
/* The env of a call on an existing handle: the handle's allocator (the memory
 * the handle keeps comes from the allocator it was created with, and so does
 * the call's scratch) and ctx's progress callback (none for a NULL ctx). */
void sn_env_for_call(sn_env *call, const sn_env *handle, const sinew_context *ctx);

/* Runs task(user, i) for i in [0, count): through the env's parallel hook
 * when it has one and count > 1, else in order on this thread. */
void sn_parallel_for(const sn_env *env, sinew_task_fn task, void *user, uint32_t count);

/* Allocates size bytes aligned to SN_ALIGN. On failure sets the thread's
 * message ("out of memory allocating <what>") and returns NULL. size 0 is
 * treated as 1 so NULL always means failure. */
void *sn_alloc(const sn_env *env, size_t size, const char *what);
/* Same as sn_alloc but zero-filled. */
void *sn_calloc(const sn_env *env, size_t size, const char *what);
/* count * elem bytes; sets SINEW_ERROR_SIZE_OVERFLOW's message and returns NULL
 * (with *overflowed = true, when given) if the product overflows. */
void *sn_alloc_array(const sn_env *env, size_t count, size_t elem, const char *what);
void *sn_calloc_array(const sn_env *env, size_t count, size_t elem, const char *what);
void sn_free(const sn_env *env, void *ptr);
/* Bytes asked for when the block at ptr (from sn_alloc*) was allocated; 0 for NULL. */
size_t sn_block_bytes(const void *ptr);

/* Result code for the most recent NULL return of an sn_alloc* call on this
 * thread: SINEW_ERROR_OUT_OF_MEMORY or SINEW_ERROR_SIZE_OVERFLOW. */
sinew_result sn_alloc_failure(void);

/* a * b without overflow; returns false (and leaves *out alone) on overflow. */
static inline bool sn_mul_size(size_t a, size_t b, size_t *out)
{
    if (b != 0 && a > SIZE_MAX / b) return false;
    *out = a * b;
    return true;
}
static inline bool sn_add_size(size_t a, size_t b, size_t *out)
{
    if (a > SIZE_MAX - b) return false;
    *out = a + b;
    return true;
}

/* Records a failure message for this thread and returns code, so call sites
 * read `return sn_fail(SINEW_ERROR_DEGENERATE, "triangle %zu has zero area", t);` */
sinew_result sn_fail(sinew_result code, const char *fmt, ...) SN_PRINTF(2, 3);
/* Clears the thread's message; successful public calls start with it. */
void sn_clear_error(void);
/* Room for one message, and a copy of the thread's message kept across calls
 * that would clear it (a rollback through public calls after a failure). */
#define SN_MESSAGE_CAPACITY 512
void sn_save_error(char saved[SN_MESSAGE_CAPACITY]);
void sn_restore_error(const char saved[SN_MESSAGE_CAPACITY]);

/* Reports progress; returns SINEW_ERROR_CANCELLED (with a message naming the
 * stage) when the callback asks to stop, SINEW_OK otherwise. */
sinew_result sn_progress(const sn_env *env, const char *stage, float fraction);

/* ---- Strided access ---------------------------------------------------- */

/* Byte stride of a view: the given one, or the packed size when 0. */
/* x rounded to float and widened back. GCC 12 at -O2 and -O3 drops the
 * rounding of (double)(float)x once the superword vectoriser has packed the
 * conversions (fre folds the vector double->float->double pair to the
 * double): the empty asm keeps the float a float. */
static inline double sn_round_to_float(double x)
{
    float f = (float)x;
#if defined(__GNUC__) && !defined(__clang__)
    __asm__("" : "+m"(f));
#endif
    return (double)f;
}

static inline size_t sn_stride(size_t stride, size_t packed)
{
    return stride ? stride : packed;
}
/* Pointer to the i-th float triple of a points view. */
static inline const float *sn_point(const sinew_points *p, size_t i)
{
    return (const float *)((const char *)p->data + i * sn_stride(p->stride, 3 * sizeof(float)));
}

/* ---- Validation --------------------------------------------------------
 * Each returns SINEW_OK or a failure with a message naming the element, with
 * `what` as the noun ("driver vertex", "skin point"). */

/* True when count elements of elem_bytes at byte stride `stride` fit in one
 * object: (count - 1) * stride + elem_bytes neither overflows nor exceeds
 * PTRDIFF_MAX (count 0 always fits). */
bool sn_span_fits(size_t count, size_t stride, size_t elem_bytes);
/* A caller's float array of count elements of `floats` floats at byte stride
 * `stride` (0 = packed), input or output: non-NULL when count > 0, aligned to
 * 4 bytes, stride 0 or a multiple of 4 at least floats * 4, and a span that
 * fits (SINEW_ERROR_SIZE_OVERFLOW). `what` names the argument ("lattice
 * output points"). Nothing is read. */
sinew_result sn_check_float_array(const void *ptr, size_t stride, size_t floats, size_t count, const char *what);
/* data non-NULL and aligned to 4 bytes when count > 0, stride 0 or >= 3
 * floats, stride a multiple of sizeof(float), a span that fits, every
 * coordinate finite. */
sinew_result sn_check_points(const sinew_points *p, const char *what);
/* Checks count owners ("triangle", named by `what`) of `per` indices each
 * (3 for triangles, so idx holds count * per entries): a byte size that fits
 * (SINEW_ERROR_SIZE_OVERFLOW, before anything is read), idx non-NULL and
 * aligned, every index < limit. */
sinew_result sn_check_indices(const uint32_t *idx, size_t count, size_t per, size_t limit,
                              const char *what);
/* ---- Index arrays in the caller's format (indices.c) ----------------------
 * count elements ("triangle", named by `what`) of `per` indices each, element
 * e's at (const char *)data + e * stride (0 = packed), each an integer of
 * `type`. */

/* Bytes of one index of `type`; 0 for a value that is not a sinew_index_type. */
size_t sn_index_size(sinew_index_type type);
/* Index `slot` of element `element` of a checked layout. */
uint32_t sn_index_at(const void *data, sinew_index_type type, size_t stride, size_t per, size_t element, size_t slot);

/* The layout, then every index < limit, else INDEX_OUT_OF_RANGE naming the
 * element, the vertex and the slot ("triangle 2 refers to vertex 9 (slot 1),
 * but there are only 8"). Nothing is allocated. */
sinew_result sn_check_index_view(const void *data, sinew_index_type type, size_t stride, size_t count, size_t per,
                                 size_t limit, const char *what);

/* Packed uint32_t indices: the caller's own array when it already is one,
 * else a widened copy (owned) from env's allocator. */
typedef struct sn_indices {
    const uint32_t *data;  /* count * per entries */
    uint32_t *owned;       /* the copy, freed by sn_indices_free; NULL when borrowed */
} sn_indices;
/* Checks the view (sn_check_index_view), then fills *out; OUT_OF_MEMORY
 * when the copy cannot be made. *out is set only on success. */
sinew_result sn_indices_read(const sn_env *env, const void *data, sinew_index_type type, size_t stride, size_t count,
                             size_t per, size_t limit, const char *what, sn_indices *out);
/* Frees a copy made by sn_indices_read (nothing for borrowed data). */
void sn_indices_free(const sn_env *env, sn_indices *ix);

/* ---- Structs that grow (see core.h) -------------------------------------- */

/* Largest struct_size accepted: far above any struct, low enough that a
 * garbage size cannot make the library read far past the caller's struct. */
#define SN_STRUCT_MAX_SIZE 65536u

/* Copies the caller's desc into `local` (the library's own struct of
 * local_size bytes), zero-filling every field past the caller's struct_size,
 * and sets local's struct_size to local_size. Fails with INVALID_ARGUMENT
 * (NULL caller, struct_size out of range) or UNSUPPORTED (a nonzero byte past
 * local_size), naming `what` ("desc"); local is then untouched. */
sinew_result sn_read_struct(void *local, size_t local_size, const void *caller, const char *what);
/* Checks an output struct's struct_size (non-NULL, in range), naming `what`,
 * before the call computes anything. */
sinew_result sn_check_struct_out(const void *caller, const char *what);
/* Writes `local` into the caller's struct up to its struct_size (which it
 * keeps), zeroing the bytes past local_size. Call after sn_check_struct_out. */
void sn_write_struct(void *caller, const void *local, size_t local_size);
/* The start of a resolved-defaults query (docs/api.md, Defaults): clears the
 * error, checks `resolved`, and fills `local` (local_size bytes) with the
 * caller's desc as sn_read_struct reads it (all zero for a NULL desc). */
sinew_result sn_defaults_begin(const void *desc, const void *resolved, void *local, size_t local_size);

/* The normal n under a map with Jacobian jac (column-major 3x3): the
 * inverse transpose, sign(det J) cof(J) n, normalised; n itself when that
 * vanishes (a collapsed map) or leaves the double range. */
void sn_transform_normal(const double jac[9], const float n[3], float out[3]);

#endif /* SINEW_CORE_INTERNAL_H */
