/* Decoder, arena, failing context and contract checks shared by the fuzz targets. */
#include "fuzz.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Decoder ------------------------------------------------------------ */

void fz_reader_init(fz_reader *r, const uint8_t *data, size_t size)
{
    memset(r, 0, sizeof *r);
    r->data = data;
    r->size = size;
    uint8_t header = fz_u8(r);
    r->float_mode = header & 3u;
    /* Scales that keep the grid's shape but move it to where float rounding,
     * underflow or overflow of squared distances starts to matter. */
    static const float scales[8] = {1.0f, 1.0f, 1.0f, 1.0f, 1e-3f, 1e4f, 1e-18f, 1e18f};
    r->scale = scales[(header >> 2) & 7u];
    if (r->scale > 1e6f) r->extreme = true;
}

uint8_t fz_u8(fz_reader *r)
{
    return r->pos < r->size ? r->data[r->pos++] : 0;
}

uint32_t fz_u32(fz_reader *r)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)fz_u8(r) << (8 * i);
    return v;
}

bool fz_bool(fz_reader *r)
{
    return fz_u8(r) & 1u;
}

uint32_t fz_range(fz_reader *r, uint32_t lo, uint32_t hi)
{
    uint32_t span = hi - lo + 1;
    uint32_t v = span > 256 ? (uint32_t)fz_u8(r) | (uint32_t)fz_u8(r) << 8 : fz_u8(r);
    return lo + v % span;
}

static float note(fz_reader *r, float v)
{
    if (!isfinite(v)) r->nonfinite = true;
    else if (fabsf(v) > 1e6f) r->extreme = true;
    return v;
}

/* Finite values at the edges of float: overflow of squares, denormals, signed zero. */
static float finite_extreme(uint8_t b)
{
    static const float table[12] = {1e38f, -1e38f, FLT_MAX, 1e-38f, 1e-45f, -1e-45f,
                                    -0.0f, 1e20f, -1e20f, 1e-20f, 3e-39f, 1e-7f};
    return table[b % 12];
}

static float special(uint8_t b)
{
    switch (b % 4) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    default: return finite_extreme(b / 4);
    }
}

float fz_float(fz_reader *r)
{
    if (r->float_mode == 3) {
        uint32_t bits = fz_u32(r);
        float v;
        memcpy(&v, &bits, sizeof v);
        return note(r, v);
    }
    uint8_t grid = fz_u8(r);
    float v = (float)(int8_t)grid / 8.0f * r->scale;
    if (r->float_mode == 1 || r->float_mode == 2) {
        uint8_t pick = fz_u8(r);
        if (pick >= 248) v = r->float_mode == 1 ? special(pick) : finite_extreme(pick);
    }
    return note(r, v);
}

float fz_param(fz_reader *r, float lo, float hi)
{
    uint8_t b = fz_u8(r);
    if (b >= 250 && r->float_mode != 0) return note(r, r->float_mode == 2 ? finite_extreme(b) : special(b));
    return lo + (hi - lo) * (float)(b % 250) / 249.0f;
}

uint32_t fz_index(fz_reader *r, size_t count)
{
    uint8_t b = fz_u8(r);
    if (b < 248 && count > 0) return (uint32_t)(b % count);
    switch (b & 3u) {
    case 0: return (uint32_t)count;
    case 1: return (uint32_t)count + 1;
    case 2: return UINT32_MAX;
    default: return (uint32_t)count + b;
    }
}

void fz_subrange(fz_reader *r, size_t total, size_t *first, size_t *count)
{
    uint8_t b = fz_u8(r);
    if (b < 240) {
        *first = total ? fz_u8(r) % (total + 1) : 0;
        *count = (b & 1u) ? total - *first : fz_u8(r) % (total - *first + 1);
        return;
    }
    switch (b & 3u) {
    case 0: *first = total, *count = 1; break;
    case 1: *first = 0, *count = total + 1; break;
    case 2: *first = SIZE_MAX, *count = 2; break;
    default: *first = 1, *count = SIZE_MAX; break;
    }
}

float fz_weight(fz_reader *r)
{
    uint8_t b = fz_u8(r);
    if (b < 48) return 0.0f;
    if (b < 240) return (float)(b - 47) / 192.0f;
    if (b < 248) return -(float)(b - 239) / 8.0f;
    return note(r, r->float_mode == 1 ? special(b) : (float)(b - 246));
}

int fz_enum(fz_reader *r, int valid)
{
    uint8_t b = fz_u8(r);
    if (b < 240) return b % valid;
    static const int invalid[4] = {-1, 100, 0x7fffffff};
    return (b & 3u) == 3 ? valid : invalid[b & 3u];
}

/* ---- Arena ------------------------------------------------------------------ */

typedef struct arena_block {
    struct arena_block *next;
    max_align_t align;
} arena_block;

static arena_block *arena;

void *fz_alloc(size_t bytes)
{
    arena_block *b = malloc(offsetof(arena_block, align) + (bytes ? bytes : 1));
    if (!b) {
        fprintf(stderr, "fuzz: out of memory for %zu bytes of input data\n", bytes);
        abort();
    }
    b->next = arena;
    arena = b;
    return &b->align;
}

float *fz_floats(fz_reader *r, size_t count)
{
    float *v = fz_alloc(count * sizeof *v);
    for (size_t i = 0; i < count; i++) v[i] = fz_float(r);
    return v;
}

uint32_t *fz_indices(fz_reader *r, size_t count, size_t limit)
{
    uint32_t *v = fz_alloc(count * sizeof *v);
    for (size_t i = 0; i < count; i++) v[i] = fz_index(r, limit);
    return v;
}

size_t fz_stride(fz_reader *r, size_t packed)
{
    uint8_t b = fz_u8(r);
    if (b < 200) return 0;
    if (b < 230) return packed;
    if (b < 250) return packed + 4 * (size_t)(b % 4 + 1);
    return (b & 1u) ? packed - 4 : packed + 2;   /* too small, or misaligned */
}

size_t fz_span(size_t count, size_t stride, size_t packed)
{
    return count * (stride ? stride : packed);
}

sinew_points fz_points(fz_reader *r, size_t count)
{
    size_t stride = fz_stride(r, 3 * sizeof(float));
    size_t step = stride ? stride : 3 * sizeof(float);
    size_t bytes = count * step;
    unsigned char *buf = fz_alloc(bytes);
    /* Padding is NaN: a library reading it would turn finite input non-finite. */
    const float nan = NAN;
    for (size_t b = 0; b + sizeof nan <= bytes; b += sizeof nan) memcpy(buf + b, &nan, sizeof nan);
    for (size_t i = 0; i < count; i++) {
        for (size_t c = 0; c < 3; c++) {
            float v = fz_float(r);
            if (i * step + (c + 1) * sizeof v <= bytes) memcpy(buf + i * step + c * sizeof v, &v, sizeof v);
        }
    }
    return (sinew_points){.data = (const float *)buf, .count = count, .stride = stride};
}

/* ---- Failing context ------------------------------------------------------ */

typedef struct fz_context_state {
    size_t allocations;
    size_t fail_from;    /* 0 = never fail */
    size_t reports;
    size_t cancel_at;    /* 0 = never cancel */
} fz_context_state;

static fz_context_state context_state;

static void *fuzz_alloc(void *user, size_t size, size_t align)
{
    fz_context_state *s = user;
    if (align == 0 || (align & (align - 1)) != 0 || align > 64) {
        fprintf(stderr, "sinew contract violated: allocator asked for alignment %zu (a power of two <= 64)\n",
                align);
        abort();
    }
    s->allocations++;
    if (s->fail_from && s->allocations >= s->fail_from) return NULL;
    size_t rounded = (size + align - 1) / align * align;
    return aligned_alloc(align, rounded ? rounded : align);
}

static void fuzz_free(void *user, void *ptr)
{
    (void)user;
    free(ptr);
}

static int fuzz_progress(void *user, const char *stage, float fraction)
{
    fz_context_state *s = user;
    if (!stage || !stage[0] || !(fraction >= 0.0f && fraction <= 1.0f + 1e-5f)) {
        fprintf(stderr, "sinew contract violated: progress report with stage '%s' and fraction %g\n",
                stage ? stage : "(null)", (double)fraction);
        abort();
    }
    s->reports++;
    return s->cancel_at && s->reports >= s->cancel_at;
}

sinew_context *fz_context(fz_reader *r)
{
    uint8_t mode = fz_u8(r);
    if (mode < 192) return NULL;
    sinew_context_desc desc;
    SINEW_INIT(&desc);
    desc.allocator = (sinew_allocator){.alloc = fuzz_alloc, .free = fuzz_free, .user = &context_state};
    if (mode & 1u) context_state.fail_from = 1 + fz_u8(r);
    if (mode & 2u) {
        desc.progress = fuzz_progress;
        desc.progress_user = &context_state;
        if (mode & 4u) context_state.cancel_at = 1 + fz_u8(r);
    }
    sinew_context *ctx;
    fz_call c;
    fz_call_begin(&c, "sinew_context_create");
    fz_call_handle(&c, &ctx);
    /* The context lives in memory from its own allocator, which may already fail. */
    if (fz_call_end(&c, sinew_context_create(&desc, &ctx), 0) != SINEW_OK) return NULL;
    return ctx;
}

void fz_begin(fz_reader *r, const uint8_t *data, size_t size)
{
    fz_end();
    memset(&context_state, 0, sizeof context_state);
    sinew_clear_error();
    fz_reader_init(r, data, size);
}

void fz_end(void)
{
    while (arena) {
        arena_block *next = arena->next;
        free(arena);
        arena = next;
    }
}

/* ---- Contract ------------------------------------------------------------- */

void fz_check_saved_info(const void *data, size_t size, sinew_result loaded)
{
    sinew_saved_info info;
    SINEW_INIT(&info);
    info.section_count = 0xdeadbeefu;
    sinew_result r = sinew_saved_get_info(data, size, &info);
    fz_require(r == SINEW_OK || r == SINEW_ERROR_INVALID_DATA || r == SINEW_ERROR_UNSUPPORTED, "sinew_saved_get_info",
               "returned %s, not a documented code", sinew_result_string(r));
    fz_require(loaded != SINEW_OK || (r == SINEW_OK && info.size <= size), "sinew_saved_get_info",
               "refused (%s) data that loads", sinew_result_string(r));
    fz_require(r != SINEW_ERROR_INVALID_DATA || info.section_count == 0xdeadbeefu, "sinew_saved_get_info",
               "wrote the info of data it refused");
}

void fz_require(bool cond, const char *call, const char *what, ...)
{
    if (cond) return;
    fprintf(stderr, "sinew contract violated: %s: ", call);
    va_list args;
    va_start(args, what);
    vfprintf(stderr, what, args);
    va_end(args);
    fprintf(stderr, " (last error: '%s')\n", sinew_last_error());
    abort();
}

static void violated(const fz_call *c, sinew_result res, const char *what, size_t output, size_t at)
{
    fprintf(stderr, "sinew contract violated: %s returned %d (%s): %s", c->name, (int)res,
            sinew_result_string(res), what);
    if (output != SIZE_MAX) fprintf(stderr, " (output %zu, byte %zu)", output, at);
    fprintf(stderr, "; last error: '%s'\n", sinew_last_error());
    abort();
}

void fz_call_begin(fz_call *c, const char *name)
{
    c->name = name;
    c->count = 0;
    sinew_clear_error();
}

void fz_call_inout(fz_call *c, void *data, size_t bytes, bool floats)
{
    if (!data || c->count == FZ_MAX_OUTPUTS) return;
    fz_output *o = &c->out[c->count++];
    o->data = data;
    o->bytes = bytes;
    o->floats = floats;
    o->before = malloc(bytes ? bytes : 1);
    if (!o->before) abort();
    memcpy(o->before, data, bytes);
}

void fz_call_out(fz_call *c, void *data, size_t bytes, bool floats)
{
    if (!data) return;
    /* 0xA5 bytes read as a finite float (-2.9e-16), so untouched slots pass the
     * finiteness check and written ones stand out. */
    memset(data, 0xA5, bytes);
    fz_call_inout(c, data, bytes, floats);
}

void fz_call_out_struct(fz_call *c, void *data, size_t bytes)
{
    memset(data, 0xA5, bytes);
    memcpy(data, &bytes, sizeof bytes);   /* struct_size, as SINEW_INIT sets it */
    fz_call_inout(c, data, bytes, false);
}

void fz_call_handle(fz_call *c, void *slot)
{
    void *sentinel = FZ_HANDLE_SENTINEL;
    memcpy(slot, &sentinel, sizeof sentinel);
    fz_call_inout(c, slot, sizeof sentinel, false);
}

sinew_result fz_call_end(fz_call *c, sinew_result res, unsigned flags)
{
    if ((int)res < SINEW_OK || (int)res > SINEW_ERROR_INVALID_DATA) violated(c, res, "an unknown result code", SIZE_MAX, 0);
    bool filled = res == SINEW_OK || (res == SINEW_ERROR_NOT_CONVERGED && (flags & FZ_FILLS_ON_NOT_CONVERGED));
    if (res != SINEW_OK && sinew_last_error()[0] == '\0') violated(c, res, "a failure without a message", SIZE_MAX, 0);
    if (res == SINEW_OK && sinew_last_error()[0] != '\0')
        violated(c, res, "success that left a failure message behind", SIZE_MAX, 0);
    for (size_t i = 0; i < c->count; i++) {
        fz_output *o = &c->out[i];
        if (!filled && memcmp(o->before, o->data, o->bytes) != 0) {
            size_t at = 0;
            while (((unsigned char *)o->data)[at] == o->before[at]) at++;
            violated(c, res, "an output changed on failure", i, at);
        }
        if (filled && (flags & FZ_FINITE_INPUTS) && o->floats) {
            for (size_t b = 0; b + sizeof(float) <= o->bytes; b += sizeof(float)) {
                float v;
                memcpy(&v, (unsigned char *)o->data + b, sizeof v);
                if (!isfinite(v)) violated(c, res, "a non-finite output from finite inputs", i, b);
            }
        }
    }
    for (size_t i = 0; i < c->count; i++) free(c->out[i].before);
    c->count = 0;
    return res;
}
