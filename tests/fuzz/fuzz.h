/*
 * Shared code of the fuzz targets: a decoder that turns the fuzz input into
 * bounded counts, coordinates, indices and option values, a per-input arena for
 * the buffers built from it, a context whose allocator and progress callback
 * fail on demand, and the contract every call is held to:
 *   - a failure returns a known, specific code and leaves a message;
 *   - a failure leaves every output as it was (NOT_CONVERGED excepted where the
 *     call documents that it fills its outputs);
 *   - OK never comes with a non-finite output when every input was finite;
 *   - handles are destroyed (LeakSanitizer reports the rest).
 * A violation prints what happened and calls abort(), which libFuzzer (or the
 * replay main) reports with the input that caused it.
 */
#ifndef SINEW_FUZZ_H
#define SINEW_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew.h"

/* ---- Decoder ------------------------------------------------------------ */

typedef struct fz_reader {
    const uint8_t *data;
    size_t size;
    size_t pos;
    /* How coordinates are drawn (from the first byte): a small grid only, the
     * grid with rare special values, the grid with finite extremes, or raw bits. */
    unsigned float_mode;
    float scale;           /* every grid coordinate is multiplied by this */
    bool nonfinite;        /* some value handed out was NaN or infinite */
    bool extreme;          /* some value handed out had a magnitude above 1e6 */
} fz_reader;

void fz_reader_init(fz_reader *r, const uint8_t *data, size_t size);
/* Next byte; 0 once the input is used up, so every input decodes. */
uint8_t fz_u8(fz_reader *r);
uint32_t fz_u32(fz_reader *r);
bool fz_bool(fz_reader *r);
/* A value in [lo, hi] (hi - lo < 65536). */
uint32_t fz_range(fz_reader *r, uint32_t lo, uint32_t hi);
/* A coordinate: mostly a small grid value (repeats and degeneracies are
 * likely), sometimes NaN, inf, 1e38, denormals, -0, huge or tiny per mode. */
float fz_float(fz_reader *r);
/* A float in [lo, hi] on a coarse grid, sometimes a special value. */
float fz_param(fz_reader *r, float lo, float hi);
/* An index below count most of the time, sometimes count, count + k or ~0. */
uint32_t fz_index(fz_reader *r, size_t count);
/* A range [first, first + count) inside [0, total) most of the time, sometimes
 * past its end or overflowing size_t. */
void fz_subrange(fz_reader *r, size_t total, size_t *first, size_t *count);
/* A weight: often 0, mostly in (0, 1], sometimes negative, > 1 or special. */
float fz_weight(fz_reader *r);
/* An option value below valid most of the time, sometimes an invalid one. */
int fz_enum(fz_reader *r, int valid);

/* ---- Arena: buffers that live until the end of the input ---------------- */

/* malloc'ed bytes (never NULL; aborts when memory runs out), freed by fz_end. */
void *fz_alloc(size_t bytes);
/* count floats from fz_float. */
float *fz_floats(fz_reader *r, size_t count);
/* count indices from fz_index(limit). */
uint32_t *fz_indices(fz_reader *r, size_t count, size_t limit);
/* A points view of count points with a fuzzed stride: usually packed,
 * sometimes padded (padding is NaN, which must never be read), sometimes an
 * invalid stride (too small, or not a multiple of 4) over a buffer of exactly
 * count * stride bytes. */
sinew_points fz_points(fz_reader *r, size_t count);
/* Output byte stride for elements of `packed` bytes: 0, packed, padded, or invalid. */
size_t fz_stride(fz_reader *r, size_t packed);
/* Bytes an output of count elements needs at the given stride (0 = packed). */
size_t fz_span(size_t count, size_t stride, size_t packed);

/* Starts an input: clears the arena, the context state and the thread's message. */
void fz_begin(fz_reader *r, const uint8_t *data, size_t size);
/* Ends an input: frees the arena. */
void fz_end(void);

/* ---- Context -------------------------------------------------------------- */

/* NULL (defaults) most of the time; otherwise a context whose allocator fails
 * from the n-th allocation on and/or whose progress callback cancels at its
 * n-th report, both chosen by the input. Checks the library's alignment and
 * progress arguments. Destroy with sinew_context_destroy. */
sinew_context *fz_context(fz_reader *r);

/* ---- Contract ------------------------------------------------------------- */

enum {
    FZ_MAX_OUTPUTS = 8,
    /* The inputs of this call were all finite: OK must give finite outputs. */
    FZ_FINITE_INPUTS = 1u << 0,
    /* NOT_CONVERGED fills the outputs (with finite values from finite inputs). */
    FZ_FILLS_ON_NOT_CONVERGED = 1u << 1,
};

typedef struct fz_output {
    void *data;
    size_t bytes;
    bool floats;           /* checked for finiteness on success */
    unsigned char *before; /* copy taken by fz_watch */
} fz_output;

typedef struct fz_call {
    const char *name;
    size_t count;
    fz_output out[FZ_MAX_OUTPUTS];
} fz_call;

/* Starts checking a call: clears the thread's message. */
void fz_call_begin(fz_call *c, const char *name);
/* Fills an output buffer with a sentinel pattern and watches it. */
void fz_call_out(fz_call *c, void *data, size_t bytes, bool floats);
/* An info or report struct of `bytes` bytes: filled like fz_call_out except its
 * leading struct_size, which is set to `bytes` as SINEW_INIT would. */
void fz_call_out_struct(fz_call *c, void *data, size_t bytes);
/* Sets a handle pointer (any `T *` variable, passed by address) to
 * FZ_HANDLE_SENTINEL and watches it: a failed create must leave it so. */
void fz_call_handle(fz_call *c, void *slot);
/* Watches a buffer the call reads and may rewrite (in place) as it is now. */
void fz_call_inout(fz_call *c, void *data, size_t bytes, bool floats);
/* Checks the contract for result `res` (see the top of this file) and
 * returns res. */
sinew_result fz_call_end(fz_call *c, sinew_result res, unsigned flags);

/* sinew_saved_get_info on the data a loader was given: one of its documented
 * codes (OK, INVALID_DATA, UNSUPPORTED), OK wherever the load succeeded (with
 * the kind and a size within the buffer), the info untouched when it fails
 * with INVALID_DATA. */
void fz_check_saved_info(const void *data, size_t size, sinew_result loaded);

/* Aborts with a message naming the call when cond is false; `what` is a
 * printf format for the rest of the message. */
void fz_require(bool cond, const char *call, const char *what, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The sentinel a handle pointer holds before a create call; it must still
 * hold it when the call fails. */
#define FZ_HANDLE_SENTINEL ((void *)(uintptr_t)0x5e5e5e5e5e5e5e50u)

/* FZ_FINITE_INPUTS when every value handed out so far was finite: calls that
 * validate their inputs must then give finite outputs on OK. */
static inline unsigned fz_finite(const fz_reader *r)
{
    return r->nonfinite ? 0u : FZ_FINITE_INPUTS;
}
/* FZ_FINITE_INPUTS when every value so far was also moderate (|x| <= 1e6):
 * pose-time arithmetic (deform) may overflow float on values near FLT_MAX,
 * so only these inputs must give finite outputs there. */
static inline unsigned fz_moderate(const fz_reader *r)
{
    return r->nonfinite || r->extreme ? 0u : FZ_FINITE_INPUTS;
}

#endif /* SINEW_FUZZ_H */
