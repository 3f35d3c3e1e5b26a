/*
 * The saved-data format shared by every handle's save and load (see
 * docs/serialization.md): a 64-byte header, a section table, and typed
 * sections of little-endian elements at 64-byte aligned offsets, covered by a
 * checksum. Modules describe their state as sections; this layer does the
 * bytes, the byte order, the bounds and the checksum, so each loader only
 * validates meaning (counts, indices, ranges).
 */
#ifndef SINEW_IO_FORMAT_H
#define SINEW_IO_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

/* A section tag from four characters, read as a little-endian u32. */
#define SN_TAG(a, b, c, d) \
    ((uint32_t)(uint8_t)(a) | (uint32_t)(uint8_t)(b) << 8 | (uint32_t)(uint8_t)(c) << 16 | (uint32_t)(uint8_t)(d) << 24)

/* Element type of a section. Values are part of the format. */
typedef enum sn_io_type {
    SN_IO_U8 = 1,
    SN_IO_U16 = 2,
    SN_IO_U32 = 3,
    SN_IO_U64 = 4,
    SN_IO_F32 = 5,
    SN_IO_F64 = 6
} sn_io_type;

#define SN_IO_HEADER_BYTES 64u
#define SN_IO_ENTRY_BYTES 32u
#define SN_IO_ALIGN 64u
#define SN_IO_MAX_SECTIONS 64u

/* n rounded up to the next multiple of SN_IO_ALIGN: where the writer puts
 * what follows n bytes, and the only place the reader accepts it. */
static inline size_t sn_io_align_up(size_t n)
{
    return (n + (SN_IO_ALIGN - 1)) / SN_IO_ALIGN * SN_IO_ALIGN;
}

/* Bytes of one element of a type; 0 for an unknown type. */
size_t sn_io_type_size(uint32_t type);

/* The format's checksum of size bytes (a multiple of 64) with bytes
 * [checksum_at, checksum_at + 8) read as zero. Defined in docs/serialization.md. */
uint64_t sn_io_checksum(const unsigned char *data, size_t size, size_t checksum_at);

/* Offset of the checksum field in the header. */
#define SN_IO_CHECKSUM_AT 32u

/* The same checksum summed piece by piece, in any order, for a loader that
 * sums bytes while it copies them: begin with the data's size (a multiple of
 * 64), add every byte once (pieces of len bytes starting at offset `at`, p
 * pointing at them; the checksum field as zero), end. */
typedef struct sn_io_checksum_state {
    uint64_t a[8], b[8];
    size_t blocks;
} sn_io_checksum_state;
void sn_io_checksum_begin(sn_io_checksum_state *st, size_t size);
void sn_io_checksum_add(sn_io_checksum_state *st, const unsigned char *p, size_t at, size_t len);
uint64_t sn_io_checksum_end(const sn_io_checksum_state *st);

/* ---- Saving ------------------------------------------------------------ */

typedef struct sn_io_entry {
    uint32_t tag;
    uint32_t type;
    uint64_t count;
    uint64_t offset;   /* from the start of the data */
} sn_io_entry;

/* Collects sections. A module's writer callback adds them; sn_save runs it
 * twice, first to measure (buffer NULL), then to write. */
typedef struct sn_writer {
    unsigned char *buffer;        /* NULL while measuring */
    size_t data_start;            /* offset of the first section (known in the writing pass) */
    size_t data_bytes;            /* bytes of section data so far, padded */
    uint32_t section_count;
    bool overflow;                /* more than SN_IO_MAX_SECTIONS, or sizes past SIZE_MAX */
    uint32_t format_version;      /* set by sn_write_format_version; 0 = 1 */
    sn_io_entry table[SN_IO_MAX_SECTIONS];
} sn_writer;

/* Adds a section of count elements of `type` held in host byte order at data
 * (which may be NULL when count is 0). Sections are written in call order. */
void sn_write_section(sn_writer *w, uint32_t tag, sn_io_type type, const void *data, size_t count);

/* A section gathered from several arrays: sn_write_begin, then
 * sn_write_append for each piece (count elements of the section's type, in
 * host byte order; data may be NULL when count is 0), then sn_write_end. No
 * other section may start in between. sn_write_section is the one-piece case. */
void sn_write_begin(sn_writer *w, uint32_t tag, sn_io_type type);
void sn_write_append(sn_writer *w, const void *data, size_t count);
void sn_write_end(sn_writer *w);

/* Data that needs a newer format version than 1 says so (at most
 * SINEW_FORMAT_VERSION); the largest asked for is written. */
void sn_write_format_version(sn_writer *w, uint32_t version);

/* Adds every section of a handle; run twice, it must add the same ones. */
typedef void (*sn_save_sections_fn)(sn_writer *w, const void *handle);

/* The public save contract of core.h for one kind: INVALID_ARGUMENT for a
 * NULL handle or size, (naming `what`, "skin"), buffer NULL = size query,
 * BUFFER_TOO_SMALL with *size = bytes needed, else the bytes and *size. */
sinew_result sn_save(sinew_kind kind, sn_save_sections_fn fn, const void *handle, void *buffer, size_t capacity,
                     size_t *size, const char *what);

/* ---- Loading ----------------------------------------------------------- */

typedef struct sn_reader {
    const unsigned char *data;
    size_t size;                  /* the saved data's own size (<= the buffer given) */
    uint32_t format_version;
    uint32_t library_version;
    uint32_t kind;
    uint32_t section_count;
    const char *what;             /* "skin data" */
    sn_io_entry table[SN_IO_MAX_SECTIONS];  /* offsets from the start of data */
    uint64_t read;                /* bit i: table[i] was counted or copied */
} sn_reader;

/* Checks a whole saved buffer: non-NULL, magic, format version (newer:
 * UNSUPPORTED), the size it states against the size given (truncated:
 * INVALID_DATA), the checksum, the kind (another: MISMATCH naming both), the
 * section table (bounds, alignment, overlaps, types, unique tags, zero
 * padding) and that every F32/F64 element is finite. Messages start with
 * `what` ("skin data"). On success r describes the data (which must outlive r). */
sinew_result sn_reader_open(sn_reader *r, const void *data, size_t size, sinew_kind kind, const char *what);

/* sn_reader_open in two steps, for a loader that checksums and checks the
 * floats of its large sections while it copies them: open_deferred checks
 * everything but the checksum and the finiteness of floats (a failure there
 * is reported as the checksum mismatch when the checksum is wrong, the order
 * sn_reader_open reports in). The loader then either sums every byte
 * (sn_reader_checksum_outside adds the bytes outside the sections it summed)
 * and compares (sn_reader_checksum_check), checking the floats it does not
 * range-check itself (sn_reader_finite), or, on any failure of its own, calls
 * sn_reader_verify first (the checksum, then every float finite) and reports
 * that failure instead when there is one: its codes and messages are then
 * sn_reader_open's. */
sinew_result sn_reader_open_deferred(sn_reader *r, const void *data, size_t size, sinew_kind kind, const char *what);
sinew_result sn_reader_verify(sn_reader *r);
void sn_reader_checksum_outside(const sn_reader *r, sn_io_checksum_state *st, const uint32_t *tags, size_t tag_count);
sinew_result sn_reader_checksum_check(const sn_reader *r, const sn_io_checksum_state *st);
/* Every float of a section finite (NON_FINITE naming the element); OK when
 * the section is absent or not of a float type. */
sinew_result sn_reader_finite(sn_reader *r, uint32_t tag);

/* sn_reader_open without the kind check (any known kind), for
 * sinew_saved_get_info. */
sinew_result sn_reader_open_any(sn_reader *r, const void *data, size_t size, const char *what);

/* Checks that the loader counted or copied every section, after it has read
 * what it keeps: INVALID_DATA naming the first section it never read. Data
 * of one kind with another kind's sections added (a placement relabelled as
 * a lattice) would otherwise load and re-save to other bytes, and the format
 * promises each handle one spelling. */
sinew_result sn_reader_finish(const sn_reader *r);

/* Whether a section with this tag exists (does not count as reading it). */
bool sn_reader_has(const sn_reader *r, uint32_t tag);
/* Where section `tag`'s elements start in the data (0 when it is absent). */
size_t sn_reader_offset(const sn_reader *r, uint32_t tag);

/* Element count of a required section of the given type; INVALID_DATA naming
 * the tag when it is missing or holds another type. */
sinew_result sn_reader_count(sn_reader *r, uint32_t tag, sn_io_type type, size_t *count);

/* Fails with INVALID_DATA unless the section holds `per` elements of `type`
 * for each of n things ("skin data: section SKGC holds 2 elements, expected
 * 3"); a loader checks it before allocating the arrays the section fills, so
 * no count in the data makes it allocate more than the data holds. */
sinew_result sn_reader_expect(sn_reader *r, uint32_t tag, sn_io_type type, size_t per, size_t n);

/* Copies a required section holding exactly count elements of `type` into
 * dst (host byte order; dst aligned for the type). INVALID_DATA naming the tag
 * and both counts otherwise; dst untouched on failure. */
sinew_result sn_reader_copy(sn_reader *r, uint32_t tag, sn_io_type type, size_t count, void *dst);

/* Copies elements [first, first + count) of a required section of `type`
 * into dst (host byte order), for handles that keep one section in several
 * arrays. INVALID_DATA naming the tag when the section is missing, of another
 * type, or shorter than first + count. */
sinew_result sn_reader_copy_part(sn_reader *r, uint32_t tag, sn_io_type type, size_t first, size_t count,
                                 void *dst);

/* sn_reader_copy of a U64 section (scalars: counts, enums, options). */
sinew_result sn_reader_u64s(sn_reader *r, uint32_t tag, size_t count, uint64_t *dst);


#endif /* SINEW_IO_FORMAT_H */
