/* Saving a skin: its bound layout as sections (skin_saved.h). */
#include "skin/skin_internal.h"
#include "skin/skin_saved.h"

static void sn_skin_write_sections(sn_writer *w, const void *handle)
{
    const sinew_skin *skin = (const sinew_skin *)handle;
    const size_t max_k = skin->max_influences;
    const uint64_t options[SN_SKIN_OP_COUNT] = {
        [SN_SKIN_OP_VERTICES] = skin->vertex_count,
        [SN_SKIN_OP_JOINTS] = skin->joint_count,
        [SN_SKIN_OP_MAX_INFLUENCES] = max_k,
        [SN_SKIN_OP_STORAGE] = (uint64_t)skin->storage,
        [SN_SKIN_OP_BLEND] = (uint64_t)skin->blend,
        [SN_SKIN_OP_NORMALS] = (uint64_t)skin->normals,
        [SN_SKIN_OP_KERNEL] = (uint64_t)skin->kernel_requested,
        [SN_SKIN_OP_MERGED] = skin->merged_duplicates,
        [SN_SKIN_OP_RENORMALIZED] = skin->renormalised_vertices,
        [SN_SKIN_OP_UNWEIGHTED] = skin->unweighted_vertices,
    };
    sn_write_section(w, SN_SKIN_TAG_OPTIONS, SN_IO_U64, options, SN_SKIN_OP_COUNT);
    sn_write_section(w, SN_SKIN_TAG_INVERSE_BIND, SN_IO_F32, skin->inverse_bind, 16 * skin->joint_count);

    sn_write_begin(w, SN_SKIN_TAG_GROUP_COUNTS, SN_IO_U64);
    for (size_t k = 1; k <= max_k; ++k) {
        uint64_t count = skin->groups[k - 1].count;
        sn_write_append(w, &count, 1);
    }
    sn_write_end(w);

    sn_write_begin(w, SN_SKIN_TAG_VERTICES, SN_IO_U32);
    for (size_t k = 1; k <= max_k; ++k) sn_write_append(w, skin->groups[k - 1].vertex, skin->groups[k - 1].count);
    sn_write_end(w);

    sn_write_begin(w, SN_SKIN_TAG_JOINTS, skin->format == SN_SKIN_U8_J8 ? SN_IO_U8 : SN_IO_U16);
    for (size_t k = 1; k <= max_k; ++k) sn_write_append(w, skin->groups[k - 1].joints, skin->groups[k - 1].count * k);
    sn_write_end(w);

    sn_write_begin(w, SN_SKIN_TAG_WEIGHTS, skin->format == SN_SKIN_F32_J16 ? SN_IO_F32 : SN_IO_U8);
    for (size_t k = 2; k <= max_k; ++k) sn_write_append(w, skin->groups[k - 1].weights, skin->groups[k - 1].count * k);
    sn_write_end(w);

    sn_write_begin(w, SN_SKIN_TAG_DQ_BLEND, SN_IO_F32);
    if (skin->blend == SINEW_SKIN_BLEND_MIXED)
        for (size_t k = 1; k <= max_k; ++k) sn_write_append(w, skin->groups[k - 1].dq_blend, skin->groups[k - 1].count);
    sn_write_end(w);
}

sinew_result sinew_skin_save(const sinew_skin *skin, void *buffer, size_t capacity, size_t *size)
{
    return sn_save(SINEW_KIND_SKIN, sn_skin_write_sections, skin, buffer, capacity, size, "skin");
}
