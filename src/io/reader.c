/* Loading: every byte of the header, the table and the padding is checked
 * before a module sees a section (format.h). */
#include <math.h>
#include <string.h>

#include "io/bytes.h"
#include "io/format.h"

static const unsigned char magic[8] = {0x89, 'S', 'N', 'W', '\r', '\n', 0x1a, '\n'};

/* "SKIN" for a tag, for messages: four printable characters or hex. */
static void sn_tag_name(uint32_t tag, char out[12])
{
    char c[4];
    bool printable = true;
    for (int i = 0; i < 4; ++i) {
        c[i] = (char)(tag >> (8 * i));
        if (c[i] < 0x20 || c[i] > 0x7e) printable = false;
    }
    if (printable) {
        memcpy(out, c, 4);
        out[4] = 0;
    } else {
        static const char hex[] = "0123456789abcdef";
        out[0] = '0';
        out[1] = 'x';
        for (int i = 0; i < 8; ++i) out[2 + i] = hex[(tag >> (28 - 4 * i)) & 15];
        out[10] = 0;
    }
}

static const char *type_name(uint32_t type)
{
    static const char *const names[] = {"?", "u8", "u16", "u32", "u64", "f32", "f64"};
    return type <= SN_IO_F64 ? names[type] : "?";
}

static bool all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (p[i]) return false;
    return true;
}

/* Whether any of n little-endian floats of `bytes` bytes each has an
 * all-ones exponent (infinity or NaN). A branch-free pass over whole blocks,
 * which compilers vectorise: this runs over every float a loader reads. */
static bool any_nonfinite(const unsigned char *p, uint64_t n, size_t bytes)
{
    unsigned bad = 0;
    if (bytes == 4) {
        for (uint64_t i = 0; i < n; ++i) {
            uint32_t bits;
            memcpy(&bits, p + 4 * i, 4);
#if SN_IO_BIG_ENDIAN
            bits = sn_get_le32(p + 4 * i);
#endif
            bad |= (bits & 0x7f800000u) == 0x7f800000u;
        }
    } else {
        for (uint64_t i = 0; i < n; ++i) {
            uint64_t bits;
            memcpy(&bits, p + 8 * i, 8);
#if SN_IO_BIG_ENDIAN
            bits = sn_get_le64(p + 8 * i);
#endif
            bad |= (bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull;
        }
    }
    return bad != 0;
}

/* Every float of a section finite: the format never stores NaN or infinity.
 * The fast pass answers; only a failure looks for the element to name. */
static sinew_result check_finite(sn_reader *r, const sn_io_entry *e)
{
    const unsigned char *p = r->data + e->offset;
    const size_t bytes = e->type == SN_IO_F32 ? 4 : 8;
    if (!any_nonfinite(p, e->count, bytes)) return SINEW_OK;
    uint64_t i = 0;
    while (!any_nonfinite(p + i * bytes, 1, bytes)) ++i;
    double v;
    if (bytes == 4) {
        uint32_t bits = sn_get_le32(p + 4 * i);
        float f;
        memcpy(&f, &bits, 4);
        v = (double)f;
    } else {
        uint64_t bits = sn_get_le64(p + 8 * i);
        memcpy(&v, &bits, 8);
    }
    char name[12];
    sn_tag_name(e->tag, name);
    return sn_fail(SINEW_ERROR_NON_FINITE, "%s: section %s element %llu is not finite (%g)", r->what, name,
                   (unsigned long long)i, v);
}

/* The newest layout of each kind (by sinew_kind; every kind's data is
 * written in the oldest version that holds it): bbw data gained version 2
 * (src/bbw/saved.h), soffd data versions 3 and 4 (src/soffd/soffd_saved.h),
 * the others are still version 1. */
#define SN_IO_LAST_KIND SINEW_KIND_CORRECTIVE
static const uint32_t kind_newest_version[] = {
    [SINEW_KIND_SKIN] = 1, [SINEW_KIND_SOFFD] = 4, [SINEW_KIND_LATTICE] = 1, [SINEW_KIND_LATTICE_BINDING] = 1,
    [SINEW_KIND_LATTICE_REFINEMENT] = 1, [SINEW_KIND_BBW] = 2, [SINEW_KIND_PLACEMENT] = 1,
    [SINEW_KIND_CORRECTIVE] = 1,
};
/* A kind added to the range check must get its row here too. */
_Static_assert(sizeof kind_newest_version / sizeof kind_newest_version[0] == SN_IO_LAST_KIND + 1,
               "kind_newest_version: one entry per kind");

static const char *kind_name(uint32_t kind)
{
    return sinew_kind_string((sinew_kind)kind);
}


static int find_index(const sn_reader *r, uint32_t tag);

static bool checksum_matches(const unsigned char *p, uint64_t total)
{
    return sn_io_checksum(p, (size_t)total, SN_IO_CHECKSUM_AT) == sn_get_le64(p + SN_IO_CHECKSUM_AT);
}

static sinew_result checksum_mismatch(const char *what)
{
    return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: checksum mismatch: the data is corrupted", what);
}

/* Every F32/F64 element of r's sections finite, in table order. */
static sinew_result check_all_finite(sn_reader *r)
{
    for (uint32_t i = 0; i < r->section_count; ++i) {
        const sn_io_entry *t = &r->table[i];
        if (t->type == SN_IO_F32 || t->type == SN_IO_F64) {
            sinew_result res = check_finite(r, t);
            if (res != SINEW_OK) return res;
        }
    }
    return SINEW_OK;
}

/* The header fields and the section table after the checksum field: what
 * open_data checks once the checksum matches (or, deferred, before it is
 * known). On success r describes the data. */
static sinew_result check_layout(sn_reader *r, const unsigned char *p, uint64_t total, uint32_t version,
                                 const char *what, bool any_kind, sinew_kind kind)
{
    if (!all_zero(p + 40, SN_IO_HEADER_BYTES - 40))
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: reserved header bytes are not zero", what);
    uint32_t k = sn_get_le32(p + 16);
    if (k < SINEW_KIND_SKIN || k > SN_IO_LAST_KIND)
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: unknown kind %u", what, k);
    if (!any_kind && k != (uint32_t)kind)
        return sn_fail(SINEW_ERROR_MISMATCH, "%s: the data holds a %s, not a %s", what, kind_name(k),
                       kind_name((uint32_t)kind));
    /* A version the kind's layout never had is data from a newer library. */
    uint32_t newest = kind_newest_version[k];
    if (version > newest)
        return sn_fail(SINEW_ERROR_UNSUPPORTED,
                       "%s: format version %u of %s data, written by sinew %u, is newer than this library (%s) reads "
                       "(%u)", what, version, kind_name(k), sn_get_le32(p + 12), SINEW_VERSION_STRING, newest);
    uint32_t n = sn_get_le32(p + 20);
    if (n > SN_IO_MAX_SECTIONS)
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: %u sections, more than the format allows (%u)", what, n,
                       SN_IO_MAX_SECTIONS);
    size_t table_end = SN_IO_HEADER_BYTES + (size_t)n * SN_IO_ENTRY_BYTES;
    if (table_end > total)
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: the section table passes the end of the data", what);

    sn_reader tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.data = p;
    tmp.size = (size_t)total;
    tmp.format_version = version;
    tmp.library_version = sn_get_le32(p + 12);
    tmp.kind = k;
    tmp.section_count = n;
    tmp.what = what;
    char name[12];
    for (uint32_t i = 0; i < n; ++i) {
        const unsigned char *e = p + SN_IO_HEADER_BYTES + (size_t)i * SN_IO_ENTRY_BYTES;
        sn_io_entry *t = &tmp.table[i];
        t->tag = sn_get_le32(e);
        t->type = sn_get_le32(e + 4);
        t->count = sn_get_le64(e + 8);
        t->offset = sn_get_le64(e + 16);
        sn_tag_name(t->tag, name);
        size_t elem = sn_io_type_size(t->type);
        if (elem == 0) return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: section %s has unknown type %u", what, name, t->type);
        if (!all_zero(e + 24, 8))
            return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: section %s has nonzero reserved bytes", what, name);
        if (t->offset % SN_IO_ALIGN != 0 || t->offset < table_end || t->offset > total ||
            t->count > (total - t->offset) / elem)
            return sn_fail(SINEW_ERROR_INVALID_DATA,
                           "%s: section %s (%llu %s at offset %llu) lies outside the data (%llu bytes) or is misaligned",
                           what, name, (unsigned long long)t->count, type_name(t->type),
                           (unsigned long long)t->offset, (unsigned long long)total);
        for (uint32_t j = 0; j < i; ++j)
            if (tmp.table[j].tag == t->tag)
                return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: section %s appears twice", what, name);
    }
    /* Sections in table order, each at the first 64-byte boundary after the
     * previous one's end (the table's, for the first), the data ending at
     * the boundary after the last; the padding in between is zero. So the
     * data has one spelling, the one the writer gives. */
    size_t covered = table_end;
    for (uint32_t i = 0; i < n; ++i) {
        const sn_io_entry *t = &tmp.table[i];
        sn_tag_name(t->tag, name);
        if (t->offset < covered)
            return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: section %s overlaps the one before it", what, name);
        if (t->offset != sn_io_align_up(covered))
            return sn_fail(SINEW_ERROR_INVALID_DATA,
                           "%s: section %s starts at offset %llu, not at %zu (the first 64-byte boundary after what "
                           "precedes it)", what, name, (unsigned long long)t->offset, sn_io_align_up(covered));
        if (!all_zero(p + covered, (size_t)t->offset - covered))
            return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: nonzero padding before section %s", what, name);
        covered = (size_t)t->offset + (size_t)t->count * sn_io_type_size(t->type);
    }
    if (total != sn_io_align_up(covered))
        return sn_fail(SINEW_ERROR_INVALID_DATA,
                       "%s: stated size %llu, but the sections end at %zu (so the data is %zu bytes)", what,
                       (unsigned long long)total, covered, sn_io_align_up(covered));
    if (!all_zero(p + covered, (size_t)total - covered))
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: nonzero padding at the end", what);
    *r = tmp;
    return SINEW_OK;
}

/* deferred: everything but the checksum and the finiteness of floats, which
 * the caller then checks (sn_reader_open_deferred). */
static sinew_result open_data(sn_reader *r, const void *data, size_t size, const char *what, bool any_kind,
                              sinew_kind kind, bool deferred)
{
    if (!data) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s pointer is NULL", what);
    const unsigned char *p = (const unsigned char *)data;
    if (size < SN_IO_HEADER_BYTES || memcmp(p, magic, sizeof magic) != 0)
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: not sinew saved data (%s)", what,
                       size < SN_IO_HEADER_BYTES ? "shorter than the 64-byte header" : "wrong magic bytes");
    uint32_t version = sn_get_le32(p + 8);
    if (version == 0) return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: format version 0 does not exist", what);
    if (version > SINEW_FORMAT_VERSION)
        return sn_fail(SINEW_ERROR_UNSUPPORTED,
                       "%s: format version %u, written by sinew %u, is newer than this library (%s) reads (%u)", what,
                       version, sn_get_le32(p + 12), SINEW_VERSION_STRING, SINEW_FORMAT_VERSION);
    uint64_t total = sn_get_le64(p + 24);
    if (total > size)
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: truncated: the data states %llu bytes, %zu given", what,
                       (unsigned long long)total, size);
    if (total < SN_IO_HEADER_BYTES || total % SN_IO_ALIGN != 0)
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: stated size %llu is not a whole number of 64-byte blocks",
                       what, (unsigned long long)total);
    if (deferred) {
        /* A layout failure of corrupted data is reported as the corruption,
         * as the checksum-first order does. */
        sinew_result res = check_layout(r, p, total, version, what, any_kind, kind);
        if (res != SINEW_OK && !checksum_matches(p, total)) return checksum_mismatch(what);
        return res;
    }
    if (!checksum_matches(p, total)) return checksum_mismatch(what);
    sn_reader tmp;
    sinew_result res = check_layout(&tmp, p, total, version, what, any_kind, kind);
    if (res == SINEW_OK) res = check_all_finite(&tmp);
    if (res == SINEW_OK) *r = tmp;
    return res;
}

sinew_result sn_reader_open(sn_reader *r, const void *data, size_t size, sinew_kind kind, const char *what)
{
    return open_data(r, data, size, what, false, kind, false);
}

sinew_result sn_reader_open_deferred(sn_reader *r, const void *data, size_t size, sinew_kind kind, const char *what)
{
    return open_data(r, data, size, what, false, kind, true);
}

sinew_result sn_reader_verify(sn_reader *r)
{
    if (!checksum_matches(r->data, r->size)) return checksum_mismatch(r->what);
    return check_all_finite(r);
}

/* The byte extent of a section: offset to the end of its elements. */
static void section_extent(const sn_io_entry *e, size_t *begin, size_t *end)
{
    *begin = (size_t)e->offset;
    *end = *begin + (size_t)e->count * sn_io_type_size(e->type);
}

void sn_reader_checksum_outside(const sn_reader *r, sn_io_checksum_state *st, const uint32_t *tags, size_t tag_count)
{
    /* The header block goes through a copy with the checksum field zeroed. */
    unsigned char header[SN_IO_HEADER_BYTES];
    memcpy(header, r->data, sizeof header);
    memset(header + SN_IO_CHECKSUM_AT, 0, 8);
    sn_io_checksum_add(st, header, 0, sizeof header);
    /* The listed sections' extents, in offset order (the table's order). */
    size_t at = SN_IO_HEADER_BYTES;
    for (uint32_t i = 0; i < r->section_count; ++i) {
        bool listed = false;
        for (size_t t = 0; t < tag_count; ++t) listed |= r->table[i].tag == tags[t];
        if (!listed) continue;
        size_t begin, end;
        section_extent(&r->table[i], &begin, &end);
        sn_io_checksum_add(st, r->data + at, at, begin - at);
        at = end;
    }
    sn_io_checksum_add(st, r->data + at, at, r->size - at);
}

sinew_result sn_reader_checksum_check(const sn_reader *r, const sn_io_checksum_state *st)
{
    return sn_io_checksum_end(st) == sn_get_le64(r->data + SN_IO_CHECKSUM_AT) ? SINEW_OK : checksum_mismatch(r->what);
}

sinew_result sn_reader_finite(sn_reader *r, uint32_t tag)
{
    int at = find_index(r, tag);
    return at >= 0 && (r->table[at].type == SN_IO_F32 || r->table[at].type == SN_IO_F64)
               ? check_finite(r, &r->table[at])
               : SINEW_OK;
}

sinew_result sn_reader_open_any(sn_reader *r, const void *data, size_t size, const char *what)
{
    return open_data(r, data, size, what, true, SINEW_KIND_SKIN, false);
}

static int find_index(const sn_reader *r, uint32_t tag)
{
    for (uint32_t i = 0; i < r->section_count; ++i)
        if (r->table[i].tag == tag) return (int)i;
    return -1;
}

bool sn_reader_has(const sn_reader *r, uint32_t tag)
{
    return find_index(r, tag) >= 0;
}

size_t sn_reader_offset(const sn_reader *r, uint32_t tag)
{
    int i = find_index(r, tag);
    return i < 0 ? 0 : (size_t)r->table[i].offset;
}

sinew_result sn_reader_finish(const sn_reader *r)
{
    for (uint32_t i = 0; i < r->section_count; ++i)
        if (!(r->read >> i & 1u)) {
            char name[12];
            sn_tag_name(r->table[i].tag, name);
            return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: section %s is not part of %s (version %u)", r->what, name,
                           r->what, r->format_version);
        }
    return SINEW_OK;
}

static sinew_result find_typed(sn_reader *r, uint32_t tag, sn_io_type type, const sn_io_entry **out)
{
    char name[12];
    int at = find_index(r, tag);
    sn_tag_name(tag, name);
    if (at < 0) return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: section %s is missing", r->what, name);
    const sn_io_entry *e = &r->table[at];
    if (e->type != (uint32_t)type)
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: section %s holds %s elements, expected %s", r->what, name,
                       type_name(e->type), type_name((uint32_t)type));
    r->read |= (uint64_t)1 << at;
    *out = e;
    return SINEW_OK;
}

sinew_result sn_reader_count(sn_reader *r, uint32_t tag, sn_io_type type, size_t *count)
{
    const sn_io_entry *e = NULL;
    sinew_result res = find_typed(r, tag, type, &e);
    if (res != SINEW_OK) return res;
    /* open_data proved count * elem fits inside the data, so it fits size_t. */
    *count = (size_t)e->count;
    return SINEW_OK;
}

sinew_result sn_reader_expect(sn_reader *r, uint32_t tag, sn_io_type type, size_t per, size_t n)
{
    size_t have;
    sinew_result res = sn_reader_count(r, tag, type, &have);
    if (res != SINEW_OK) return res;
    size_t want;
    if (sn_mul_size(per, n, &want) && have == want) return SINEW_OK;
    char name[12];
    sn_tag_name(tag, name);
    if (per == 1)
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: section %s holds %zu elements, expected %zu", r->what, name, have,
                       n);
    return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: section %s holds %zu elements, expected %zu for each of %zu", r->what,
                   name, have, per, n);
}

sinew_result sn_reader_copy(sn_reader *r, uint32_t tag, sn_io_type type, size_t count, void *dst)
{
    const sn_io_entry *e = NULL;
    sinew_result res = find_typed(r, tag, type, &e);
    if (res != SINEW_OK) return res;
    if (e->count != (uint64_t)count) {
        char name[12];
        sn_tag_name(tag, name);
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: section %s holds %llu elements, expected %zu", r->what, name,
                       (unsigned long long)e->count, count);
    }
    sn_copy_elements_le(dst, r->data + e->offset, count, sn_io_type_size(type));
    return SINEW_OK;
}

sinew_result sn_reader_copy_part(sn_reader *r, uint32_t tag, sn_io_type type, size_t first, size_t count,
                                 void *dst)
{
    const sn_io_entry *e = NULL;
    sinew_result res = find_typed(r, tag, type, &e);
    if (res != SINEW_OK) return res;
    if (first > e->count || count > e->count - first) {
        char name[12];
        sn_tag_name(tag, name);
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: section %s holds %llu elements, elements [%zu, %zu + %zu) were expected",
                       r->what, name, (unsigned long long)e->count, first, first, count);
    }
    size_t elem = sn_io_type_size(type);
    sn_copy_elements_le(dst, r->data + e->offset + first * elem, count, elem);
    return SINEW_OK;
}

sinew_result sn_reader_u64s(sn_reader *r, uint32_t tag, size_t count, uint64_t *dst)
{
    return sn_reader_copy(r, tag, SN_IO_U64, count, dst);
}
