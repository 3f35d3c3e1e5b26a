/* Saving: the header, the section table and the sections (format.h). */
#include <string.h>

#include "io/bytes.h"
#include "io/format.h"

static const unsigned char magic[8] = {0x89, 'S', 'N', 'W', '\r', '\n', 0x1a, '\n'};

size_t sn_io_type_size(uint32_t type)
{
    switch (type) {
    case SN_IO_U8: return 1;
    case SN_IO_U16: return 2;
    case SN_IO_U32: case SN_IO_F32: return 4;
    case SN_IO_U64: case SN_IO_F64: return 8;
    default: return 0;
    }
}

static size_t table_end(uint32_t section_count)
{
    return SN_IO_HEADER_BYTES + (size_t)section_count * SN_IO_ENTRY_BYTES;
}

void sn_write_begin(sn_writer *w, uint32_t tag, sn_io_type type)
{
    if (w->overflow) return;
    if (w->section_count == SN_IO_MAX_SECTIONS) {
        w->overflow = true;
        return;
    }
    sn_io_entry *e = &w->table[w->section_count++];
    e->tag = tag;
    e->type = (uint32_t)type;
    e->count = 0;
    e->offset = w->data_start + w->data_bytes;
}

void sn_write_append(sn_writer *w, const void *data, size_t count)
{
    if (w->overflow) return;
    sn_io_entry *e = &w->table[w->section_count - 1];
    size_t elem = sn_io_type_size(e->type), total, bytes;
    if (!sn_add_size((size_t)e->count, count, &total) || !sn_mul_size(total, elem, &bytes) ||
        bytes > SIZE_MAX - SN_IO_ALIGN || !sn_add_size(w->data_bytes, sn_io_align_up(bytes), &bytes)) {
        w->overflow = true;
        return;
    }
    if (w->buffer) {
        /* The buffer was zeroed up front, so the padding after the section is already 0. */
        sn_copy_elements_le(w->buffer + e->offset + (size_t)e->count * elem, data, count, elem);
    }
    e->count = total;
}

void sn_write_end(sn_writer *w)
{
    if (w->overflow) return;
    const sn_io_entry *e = &w->table[w->section_count - 1];
    /* sn_write_append proved the padded size fits. */
    w->data_bytes += sn_io_align_up((size_t)e->count * sn_io_type_size(e->type));
}

void sn_write_section(sn_writer *w, uint32_t tag, sn_io_type type, const void *data, size_t count)
{
    sn_write_begin(w, tag, type);
    sn_write_append(w, data, count);
    sn_write_end(w);
}

void sn_write_format_version(sn_writer *w, uint32_t version)
{
    if (version > w->format_version) w->format_version = version;
}

sinew_result sn_save(sinew_kind kind, sn_save_sections_fn fn, const void *handle, void *buffer, size_t capacity,
                     size_t *size, const char *what)
{
    sn_clear_error();
    if (!handle) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", what);
    if (!size) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "size is NULL");
    sn_writer w;
    memset(&w, 0, sizeof w);
    fn(&w, handle);
    size_t data_start = sn_io_align_up(table_end(w.section_count)), total;
    if (w.overflow || !sn_add_size(data_start, w.data_bytes, &total) || total > (size_t)PTRDIFF_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%s: the saved data would need more than %u sections or pass the address space", what, SN_IO_MAX_SECTIONS);
    if (!buffer) {
        *size = total;
        return SINEW_OK;
    }
    if (capacity < total) {
        *size = total;
        return sn_fail(SINEW_ERROR_BUFFER_TOO_SMALL, "%s: the saved data needs %zu bytes, the buffer has %zu", what,
                       total, capacity);
    }
    unsigned char *out = (unsigned char *)buffer;
    memset(out, 0, total);
    uint32_t measured_sections = w.section_count;
    memset(&w, 0, sizeof w);
    w.buffer = out;
    w.data_start = data_start;
    fn(&w, handle);
    if (w.overflow || w.section_count != measured_sections || data_start + w.data_bytes != total) {
        /* The module's writer added different sections the second time: a bug, never the caller's. */
        memset(out, 0, total);
        return sn_fail(SINEW_ERROR_INVALID_STATE, "%s: internal error, the sections changed between passes", what);
    }
    memcpy(out, magic, sizeof magic);
    sn_put_le32(out + 8, w.format_version ? w.format_version : 1);
    sn_put_le32(out + 12, SINEW_VERSION_NUMBER);
    sn_put_le32(out + 16, (uint32_t)kind);
    sn_put_le32(out + 20, w.section_count);
    sn_put_le64(out + 24, (uint64_t)total);
    for (uint32_t i = 0; i < w.section_count; ++i) {
        unsigned char *e = out + SN_IO_HEADER_BYTES + (size_t)i * SN_IO_ENTRY_BYTES;
        sn_put_le32(e, w.table[i].tag);
        sn_put_le32(e + 4, w.table[i].type);
        sn_put_le64(e + 8, w.table[i].count);
        sn_put_le64(e + 16, w.table[i].offset);
    }
    sn_put_le64(out + SN_IO_CHECKSUM_AT, sn_io_checksum(out, total, SN_IO_CHECKSUM_AT));
    *size = total;
    return SINEW_OK;
}
