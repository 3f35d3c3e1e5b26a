/* Saving correctives: the keys and the offsets as kept, point by point. */
#include "corrective/corrective_saved.h"

static void write_corrective(sn_writer *w, const void *handle)
{
    const sinew_corrective *c = (const sinew_corrective *)handle;
    const bool interpolated = c->kernel != SINEW_CORRECTIVE_KERNEL_WEIGHTS;
    const uint64_t structure[5] = {c->point_count, c->key_count, c->pose_size, (uint64_t)c->kernel, c->entry_count};
    const double parameters[2] = {c->radius, c->smoothing};
    sn_write_section(w, SN_CORR_TAG_STRUCTURE, SN_IO_U64, structure, 5);
    sn_write_section(w, SN_CORR_TAG_PARAMETERS, SN_IO_F64, parameters, 2);
    sn_write_section(w, SN_CORR_TAG_POSES, SN_IO_F32, c->poses, interpolated ? c->key_count * c->pose_size : 0);
    sn_write_section(w, SN_CORR_TAG_REST, SN_IO_F32, c->rest_pose, interpolated ? c->pose_size : 0);
    sn_write_begin(w, SN_CORR_TAG_ROWS, SN_IO_U64);
    for (size_t i = 0; i <= c->point_count; ++i) {
        uint64_t v = c->row_start[i];
        sn_write_append(w, &v, 1);
    }
    sn_write_end(w);
    sn_write_section(w, SN_CORR_TAG_KEYS, SN_IO_U32, c->entry_key, c->entry_count);
    sn_write_section(w, SN_CORR_TAG_OFFSETS, SN_IO_F32, c->entry_offset, 3 * c->entry_count);
}

sinew_result sinew_corrective_save(const sinew_corrective *corrective, void *buffer, size_t capacity, size_t *size)
{
    return sn_save(SINEW_KIND_CORRECTIVE, write_corrective, corrective, buffer, capacity, size, "corrective");
}
