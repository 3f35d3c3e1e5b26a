/* Little-endian stores and loads for the format's fixed fields and elements,
 * whatever the host's byte order. */
#ifndef SINEW_IO_BYTES_H
#define SINEW_IO_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#  define SN_IO_BIG_ENDIAN 1
#else
#  define SN_IO_BIG_ENDIAN 0
#endif

static inline void sn_put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static inline void sn_put_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static inline uint32_t sn_get_le32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= (uint32_t)p[i] << (8 * i);
    return v;
}
static inline uint64_t sn_get_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Copies count elements of elem bytes between host order and little-endian
 * (the same operation both ways). */
static inline void sn_copy_elements_le(void *dst, const void *src, size_t count, size_t elem)
{
#if SN_IO_BIG_ENDIAN
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    for (size_t i = 0; i < count; ++i)
        for (size_t k = 0; k < elem; ++k) d[i * elem + k] = s[i * elem + elem - 1 - k];
#else
    (void)elem;
    if (count) memcpy(dst, src, count * elem);
#endif
}

#endif /* SINEW_IO_BYTES_H */
