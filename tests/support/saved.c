/* Test helpers for saved data: an independent implementation of the format's
 * checksum (docs/serialization.md) and the corruption sweeps every loader's
 * tests run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* Written from the format's description, not from src/io, so a test that
 * reseals data also checks that the library follows its documentation. */
static uint64_t documented_checksum(const unsigned char *p, size_t size)
{
    uint64_t a[8] = {0}, b[8] = {0};
    for (size_t word = 0; word < size / 4; ++word) {
        uint32_t w = 0;
        /* Bytes 32..39 hold the checksum itself and count as zero. */
        if (word * 4 < 32 || word * 4 >= 40)
            w = (uint32_t)p[4 * word] | (uint32_t)p[4 * word + 1] << 8 | (uint32_t)p[4 * word + 2] << 16 |
                (uint32_t)p[4 * word + 3] << 24;
        size_t lane = word % 8;
        a[lane] += w;
        b[lane] += a[lane];
    }
    uint64_t h = 0;
    for (uint64_t l = 0; l < 8; ++l) h += (2 * l + 1) * a[l] + (2 * l + 2) * b[l];
    h += 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

bool support_reseal(void *data, size_t size)
{
    unsigned char *p = (unsigned char *)data;
    if (size < 64) return false;
    uint64_t total = 0;
    for (int i = 0; i < 8; ++i) total |= (uint64_t)p[24 + i] << (8 * i);
    if (total > size || total % 64 != 0) return false;
    uint64_t h = documented_checksum(p, (size_t)total);
    for (int i = 0; i < 8; ++i) p[32 + i] = (unsigned char)(h >> (8 * i));
    return true;
}

static bool fail_report(char *report, size_t report_size, const char *fmt, size_t at, unsigned extra,
                        sinew_result r)
{
    if (report && report_size) {
        char head[160];
        snprintf(head, sizeof head, fmt, at, extra);
        snprintf(report, report_size, "%s: %s (%s)", head, sinew_result_string(r), sinew_last_error());
    }
    return false;
}

/* Loads a private copy of exactly `size` bytes, so AddressSanitizer sees any read past it. */
static sinew_result load_copy(const unsigned char *bytes, size_t size, support_load_fn load, void *user)
{
    unsigned char *copy = (unsigned char *)calloc(1, size ? size : 1);
    if (!copy) abort();
    if (size) memcpy(copy, bytes, size);
    sinew_result r = load(copy, size, user);
    free(copy);
    return r;
}

bool support_sweep_saved_corruption(const void *data, size_t size, support_load_fn load, void *user,
                                    size_t *accepted, char *report, size_t report_size)
{
    const unsigned char *original = (const unsigned char *)data;
    if (accepted) *accepted = 0;
    if (report && report_size) report[0] = '\0';
    sinew_result r = load_copy(original, size, load, user);
    if (r != SINEW_OK) return fail_report(report, report_size, "the intact data (%zu bytes%u) fails", size, 0, r);
    /* Every truncation is refused as invalid data. */
    for (size_t n = 0; n < size; ++n) {
        r = load_copy(original, n, load, user);
        if (r != SINEW_ERROR_INVALID_DATA || sinew_last_error()[0] == '\0')
            return fail_report(report, report_size, "truncation to %zu bytes%u", n, 0, r);
    }
    unsigned char *work = (unsigned char *)malloc(size);
    if (!work) abort();
    bool ok = true;
    /* Every single-bit flip is caught (the checksum, or a newer version number). */
    for (size_t at = 0; at < size && ok; ++at)
        for (unsigned bit = 0; bit < 8 && ok; ++bit) {
            memcpy(work, original, size);
            work[at] ^= (unsigned char)(1u << bit);
            r = load_copy(work, size, load, user);
            if (!(r == SINEW_ERROR_INVALID_DATA || (r == SINEW_ERROR_UNSUPPORTED && at >= 8 && at < 12)) ||
                sinew_last_error()[0] == '\0')
                ok = fail_report(report, report_size, "bit flip at byte %zu bit %u", at, bit, r);
        }
    /* Every byte changed with the checksum fixed up: the loader's own checks
     * answer; any known result is fine as long as nothing crashes. */
    static const unsigned char deltas[] = {1, 0xff, 0x80};
    for (size_t at = 0; at < size && ok; ++at)
        for (unsigned d = 0; d < sizeof deltas && ok; ++d) {
            memcpy(work, original, size);
            work[at] = (unsigned char)(work[at] + deltas[d]);
            support_reseal(work, size);
            r = load_copy(work, size, load, user);
            if (r == SINEW_OK) {
                if (accepted) ++*accepted;
            } else if ((int)r < 0 || (int)r > (int)SINEW_ERROR_INVALID_DATA || sinew_last_error()[0] == '\0') {
                ok = fail_report(report, report_size, "byte %zu changed by %u (resealed)", at, deltas[d], r);
            }
        }
    free(work);
    return ok;
}

uint64_t support_le_get(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void support_le_put(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

unsigned char *support_saved_section(unsigned char *data, const char tag[4])
{
    uint32_t want = (uint32_t)(uint8_t)tag[0] | (uint32_t)(uint8_t)tag[1] << 8 | (uint32_t)(uint8_t)tag[2] << 16 |
                    (uint32_t)(uint8_t)tag[3] << 24;
    uint32_t n = (uint32_t)support_le_get(data + 20, 4);
    for (uint32_t i = 0; i < n; ++i) {
        const unsigned char *e = data + 64 + 32 * (size_t)i;
        if (support_le_get(e, 4) == want) return data + support_le_get(e + 16, 8);
    }
    return NULL;
}
