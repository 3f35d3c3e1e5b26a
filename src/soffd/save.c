/* Saving a surface-oriented FFD handle: the bind and the registration as
 * sections (soffd_saved.h). */
#include "soffd/soffd_internal.h"
#include "soffd/soffd_saved.h"

static void sn_soffd_write_sections(sn_writer *w, const void *handle)
{
    const sinew_soffd *h = (const sinew_soffd *)handle;
    const sn_soffd_reg *reg = &h->reg;
    const size_t points = h->registered ? reg->point_count : 0;
    const uint64_t options[SN_SOFFD_OP_COUNT] = {
        [SN_SOFFD_OP_VERTICES] = h->vertex_count,
        [SN_SOFFD_OP_FACES] = h->face_count,
        [SN_SOFFD_OP_ELEMENTS] = h->element_count,
        [SN_SOFFD_OP_SKIPPED] = h->skipped,
        [SN_SOFFD_OP_REGISTERED] = h->registered ? 1 : 0,
        [SN_SOFFD_OP_POINTS] = points,
        [SN_SOFFD_OP_ENTRIES] = h->registered ? reg->entry_count : 0,
        [SN_SOFFD_OP_MAX_CONTRIBUTORS] = h->policy.max_contributors,
        [SN_SOFFD_OP_EXCLUSIVE] = h->policy.exclusive ? 1 : 0,
    };
    const double scales[2] = {h->local, h->length_scale};
    const float policy[2] = {h->policy.weight_threshold, h->policy.max_distance};
    sn_write_section(w, SN_SOFFD_TAG_OPTIONS, SN_IO_U64, options, SN_SOFFD_OP_COUNT);
    sn_write_section(w, SN_SOFFD_TAG_SCALES, SN_IO_F64, scales, 2);
    sn_write_section(w, SN_SOFFD_TAG_POLICY, SN_IO_F32, policy, 2);
    sn_write_section(w, SN_SOFFD_TAG_REFERENCE, SN_IO_F32, h->reference, 3 * h->vertex_count);
    sn_write_section(w, SN_SOFFD_TAG_ELEMENTS, SN_IO_U32, h->elements, 3 * h->element_count);
    sn_write_section(w, SN_SOFFD_TAG_ELEMENT_FACE, SN_IO_U32, h->element_face, h->element_count);
    sn_write_section(w, SN_SOFFD_TAG_SKIPPED, SN_IO_U32, h->skipped_face, h->skipped);
    const size_t entries = h->registered ? reg->entry_count : 0;
    sn_write_section(w, SN_SOFFD_TAG_POINTS, SN_IO_F32, reg->rest, 3 * points);
    /* The size_t offsets as u64: in one piece where the two are the same,
     * else one by one. */
    sn_write_begin(w, SN_SOFFD_TAG_OFFSETS, SN_IO_U64);
    if (h->registered && sizeof(size_t) == sizeof(uint64_t)) sn_write_append(w, reg->offsets, points + 1);
    for (size_t i = 0; h->registered && sizeof(size_t) != sizeof(uint64_t) && i <= points; ++i) {
        uint64_t at = reg->offsets[i];
        sn_write_append(w, &at, 1);
    }
    sn_write_end(w);
    sn_write_section(w, SN_SOFFD_TAG_ENTRY_ELEMENT, SN_IO_U32, reg->element, entries);
    sn_write_section(w, SN_SOFFD_TAG_COEFF, SN_IO_F32, reg->coeff, 4 * entries);
    /* The barycentrics the corner lists were made of, computed again (the
     * handle does not keep them; corners.c). */
    sn_write_begin(w, SN_SOFFD_TAG_BARY, SN_IO_F32);
    for (size_t i = 0; i < points; ++i)
        for (size_t j = reg->offsets[i]; j < reg->offsets[i + 1]; ++j) {
            float b[3];
            sn_soffd_entry_bary(h, &reg->rest[3 * i], reg->element[j], reg->coeff[4 * j + 3], b);
            sn_write_append(w, b, 3);
        }
    sn_write_end(w);
    sn_write_section(w, SN_SOFFD_TAG_DROPPED, SN_IO_F32, reg->dropped, points);
    /* Unfaded registrations (exact, exclusive) keep the data earlier versions read. */
    bool faded = false;
    for (size_t i = 0; i < points && !faded; ++i) faded = reg->fade[i] != 0;
    if (faded) {
        sn_write_format_version(w, SN_SOFFD_VERSION_FADE);
        sn_write_section(w, SN_SOFFD_TAG_FADE, SN_IO_F32, reg->fade, points);
    }
    if (h->element_parent) {
        const uint64_t bind_elements = h->bind_elements;
        sn_write_format_version(w, SN_SOFFD_VERSION_EDITS);
        sn_write_section(w, SN_SOFFD_TAG_SUBDIVIDED, SN_IO_U64, &bind_elements, 1);
        sn_write_section(w, SN_SOFFD_TAG_PARENT, SN_IO_U32, h->element_parent, h->element_count);
        sn_write_section(w, SN_SOFFD_TAG_ADDED_SOURCE, SN_IO_U32, h->added_source, 3 * h->added_count);
        sn_write_section(w, SN_SOFFD_TAG_ADDED_WEIGHT, SN_IO_F32, h->added_weight, 3 * h->added_count);
    }
    if (h->edit_count) {
        sn_write_format_version(w, SN_SOFFD_VERSION_EDITS);
        sn_write_begin(w, SN_SOFFD_TAG_EDITS, SN_IO_U64);
        for (size_t i = 0; i < h->edit_count; ++i) {
            const sn_soffd_edit *e = &h->edits[i];
            const uint64_t fields[4] = {e->kind, e->first, e->count, e->element_count};
            sn_write_append(w, fields, 4);
        }
        sn_write_end(w);
        sn_write_section(w, SN_SOFFD_TAG_EDIT_ELEMENTS, SN_IO_U32, h->edit_elements, h->edit_element_count);
    }
}

sinew_result sinew_soffd_save(const sinew_soffd *soffd, void *buffer, size_t capacity, size_t *size)
{
    return sn_save(SINEW_KIND_SOFFD, sn_soffd_write_sections, soffd, buffer, capacity, size, "soffd");
}
