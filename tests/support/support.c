/* Data paths, counting allocator, allocation-failure sweep, clock, RNG. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#ifndef SINEW_TEST_DATA_DIR
#define SINEW_TEST_DATA_DIR "../shared/data"
#endif

bool support_data_path(const char *relative, char *buf, size_t size)
{
    const char *dir = getenv("SINEW_DATA_DIR");
    if (!dir || !*dir) dir = SINEW_TEST_DATA_DIR;
    int n = snprintf(buf, size, "%s/%s", dir, relative);
    if (n < 0 || (size_t)n >= size) return false;
    struct stat st;
    return stat(buf, &st) == 0 && S_ISREG(st.st_mode);
}

/* Each block carries its size in a 64-byte header so frees can be counted. */
#define HEADER 64

static void *counting_alloc(void *user, size_t size, size_t align)
{
    support_allocator *a = (support_allocator *)user;
    a->calls++;
    if (a->fail_at && a->calls == a->fail_at) {
        a->failures++;
        return NULL;
    }
    if (align > HEADER || size > SIZE_MAX - 2 * HEADER) return NULL;
    unsigned char *raw = (unsigned char *)aligned_alloc(HEADER, ((size + HEADER - 1) / HEADER + 1) * HEADER);
    if (!raw) return NULL;
    memcpy(raw, &size, sizeof size);
    a->live++;
    a->live_bytes += size;
    if (a->live_bytes > a->peak_bytes) a->peak_bytes = a->live_bytes;
    return raw + HEADER;
}

static void counting_free(void *user, void *ptr)
{
    if (!ptr) return;
    support_allocator *a = (support_allocator *)user;
    unsigned char *raw = (unsigned char *)ptr - HEADER;
    size_t size;
    memcpy(&size, raw, sizeof size);
    a->live--;
    a->live_bytes -= size;
    free(raw);
}

sinew_allocator support_allocator_hooks(support_allocator *a)
{
    sinew_allocator hooks = {counting_alloc, counting_free, a};
    return hooks;
}

bool support_sweep_allocation_failures(support_attempt_fn attempt, void *user, size_t *runs, char *report,
                                       size_t report_size)
{
    if (report && report_size) report[0] = '\0';
    for (size_t n = 1;; ++n) {
        support_allocator a = {0};
        a.fail_at = n;
        sinew_context_desc desc;
        SINEW_INIT(&desc);
        desc.allocator = support_allocator_hooks(&a);
        sinew_context *ctx = NULL;
        sinew_result r = sinew_context_create(&desc, &ctx);
        if (r == SINEW_OK) {
            r = attempt(ctx, user);
            sinew_context_destroy(ctx);
        }
        if (runs) *runs = n;
        if (a.live != 0) {
            if (report) snprintf(report, report_size, "failing allocation %zu leaked %zu blocks", n, a.live);
            return false;
        }
        if (a.failures == 0) {
            if (r != SINEW_OK) {
                if (report) snprintf(report, report_size, "run without failures returned %s: %s",
                                     sinew_result_string(r), sinew_last_error());
                return false;
            }
            return true;
        }
        if (r != SINEW_ERROR_OUT_OF_MEMORY) {
            if (report) snprintf(report, report_size, "failing allocation %zu returned %s, not out of memory", n,
                                 sinew_result_string(r));
            return false;
        }
        if (n > 1000000) {
            if (report) snprintf(report, report_size, "more than a million allocations");
            return false;
        }
    }
}

double support_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double support_cpu_now(void)
{
#if defined(CLOCK_THREAD_CPUTIME_ID)
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
    return support_now();
}

/* Three significant digits at least, without exponents for large figures. */
static void format_figure(char *buf, size_t size, double x)
{
    double m = x < 0 ? -x : x;
    if (m >= 100.0) snprintf(buf, size, "%.0f", x);
    else if (m >= 1.0) snprintf(buf, size, "%.2f", x);
    else snprintf(buf, size, "%.3g", x);
}

void support_bench_line(const char *name, double figure, const char *unit, const char *baseline,
                        double base_figure)
{
    char a[32], b[32];
    format_figure(a, sizeof a, figure);
    format_figure(b, sizeof b, base_figure);
    printf("%s: %s %s (%s: %s %s)\n", name, a, unit, baseline, b, unit);
    fflush(stdout);
}

void support_rng_seed(support_rng *r, uint64_t seed)
{
    r->state = seed ? seed : 0x9E3779B97F4A7C15ull;
}

uint64_t support_rng_next(support_rng *r)
{
    uint64_t x = r->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

double support_rng_uniform(support_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(support_rng_next(r) >> 11) * (1.0 / 9007199254740992.0));
}
