/* The public, kind-independent view of saved data (core.h). */
#include <string.h>

#include "io/bytes.h"
#include "io/format.h"

sinew_result sinew_saved_get_info(const void *data, size_t size, sinew_saved_info *info)
{
    sn_clear_error();
    sinew_result r = sn_check_struct_out(info, "info");
    if (r != SINEW_OK) return r;
    sn_reader reader;
    r = sn_reader_open_any(&reader, data, size, "saved data");
    sinew_saved_info out;
    memset(&out, 0, sizeof out);
    if (r == SINEW_OK) {
        out.kind = (sinew_kind)reader.kind;
        out.format_version = reader.format_version;
        out.library_version = reader.library_version;
        out.section_count = reader.section_count;
        out.size = (uint64_t)reader.size;
    } else if (r == SINEW_ERROR_NON_FINITE) {
        /* A float that is not finite makes the buffer no valid spelling of any
         * handle: corrupted data to a caller checking it (the loaders, which
         * judge contents as create does, say NON_FINITE). The message that
         * names the section and element stays. */
        return SINEW_ERROR_INVALID_DATA;
    } else if (r == SINEW_ERROR_UNSUPPORTED) {
        /* A newer format: its header's first fields keep their meaning (docs/serialization.md). */
        const unsigned char *p = (const unsigned char *)data;
        out.format_version = sn_get_le32(p + 8);
        out.library_version = sn_get_le32(p + 12);
        out.kind = (sinew_kind)sn_get_le32(p + 16);
    } else {
        return r;
    }
    sn_write_struct(info, &out, sizeof out);
    return r;
}
