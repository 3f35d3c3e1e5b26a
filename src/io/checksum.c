/* The format's checksum (docs/serialization.md): the data as little-endian
 * 32-bit words w_i, dealt round-robin to 8 lanes; per lane the two Fletcher
 * sums a += w, b += a (mod 2^64); then h = sum over lanes of (2l + 1) a_l +
 * (2l + 2) b_l (mod 2^64), finished by the bijective splitmix64 mixer. One
 * flipped bit in word i of lane l changes h by d (odd + even * m) with d = +-2^k,
 * k < 32, which is never 0 mod 2^64: every single-bit error is caught. Eight
 * independent lanes let the compiler vectorise it. */
#include <string.h>

#include "io/format.h"

static inline uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void add_block(uint64_t a[8], uint64_t b[8], const unsigned char *p)
{
    for (int l = 0; l < 8; ++l) {
        a[l] += load_le32(p + 4 * l);
        b[l] += a[l];
    }
}

uint64_t sn_io_checksum(const unsigned char *data, size_t size, size_t checksum_at)
{
    uint64_t a[8] = {0}, b[8] = {0};
    /* The header block (with the checksum field zeroed) goes through a copy. */
    size_t block = checksum_at / 32 * 32;
    for (size_t off = 0; off < size; off += 32) {
        if (off == block) {
            unsigned char copy[32];
            memcpy(copy, data + off, 32);
            memset(copy + (checksum_at - block), 0, 8);
            add_block(a, b, copy);
        } else {
            add_block(a, b, data + off);
        }
    }
    uint64_t h = 0;
    for (int l = 0; l < 8; ++l) h += (uint64_t)(2 * l + 1) * a[l] + (uint64_t)(2 * l + 2) * b[l];
    h += 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

/* Pieces: word i of lane l ends in b_l with the factor (n - i / 8), n the
 * data's block count, so each byte adds its value to a_l and (n - block) times
 * it to b_l, in whatever order the pieces come. */
void sn_io_checksum_begin(sn_io_checksum_state *st, size_t size)
{
    memset(st, 0, sizeof *st);
    st->blocks = size / 32;
}

static void add_byte(sn_io_checksum_state *st, unsigned char byte, size_t at)
{
    const uint64_t v = (uint64_t)byte << (8 * (at & 3));
    const size_t l = (at >> 2) & 7;
    st->a[l] += v;
    st->b[l] += (uint64_t)(st->blocks - at / 32) * v;
}

void sn_io_checksum_add(sn_io_checksum_state *st, const unsigned char *p, size_t at, size_t len)
{
    size_t i = 0;
    for (; i < len && (at + i) % 32 != 0; ++i) add_byte(st, p[i], at + i);
    const size_t whole = (len - i) / 32;
    if (whole) {
        /* b_l of the whole blocks alone weighs block j of m by m - j. */
        uint64_t a[8] = {0}, b[8] = {0};
        for (size_t j = 0; j < whole; ++j) add_block(a, b, p + i + 32 * j);
        const uint64_t after = (uint64_t)(st->blocks - (at + i) / 32 - whole);
        for (int l = 0; l < 8; ++l) {
            st->a[l] += a[l];
            st->b[l] += after * a[l] + b[l];
        }
        i += 32 * whole;
    }
    for (; i < len; ++i) add_byte(st, p[i], at + i);
}

uint64_t sn_io_checksum_end(const sn_io_checksum_state *st)
{
    uint64_t h = 0;
    for (int l = 0; l < 8; ++l) h += (uint64_t)(2 * l + 1) * st->a[l] + (uint64_t)(2 * l + 2) * st->b[l];
    h += 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}
