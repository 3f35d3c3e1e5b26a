/* Saving lattices, bindings and refinements (docs/lattice.md, "Save and
 * load"): each handle's state as sections of the common format (io/format.h).
 * Only what cannot be recomputed is written; bounds, inverses, knots and
 * packed copies are rebuilt on load. */
#include <string.h>

#include "lattice/lattice_saved.h"

void sn_lat_write_sections(sn_writer *w, const sinew_lattice *lat)
{
    uint64_t structure[7];
    for (int a = 0; a < 3; ++a) {
        structure[a] = lat->axis[a].count;
        structure[3 + a] = lat->axis[a].order;
    }
    structure[6] = (uint64_t)lat->outside;
    sn_write_section(w, SN_LAT_TAG_STRUCTURE, SN_IO_U64, structure, 7);
    sn_write_section(w, SN_LAT_TAG_ORIGIN, SN_IO_F64, lat->origin, 3);
    sn_write_section(w, SN_LAT_TAG_FRAME, SN_IO_F64, lat->frame, 9);
    sn_write_section(w, SN_LAT_TAG_AXES, SN_IO_F32, lat->unit_axes, 9);
    sn_write_section(w, SN_LAT_TAG_EXTENTS, SN_IO_F32, lat->extents, 3);
    sn_write_section(w, SN_LAT_TAG_DISP_X, SN_IO_F32, lat->disp[0], lat->point_count);
    sn_write_section(w, SN_LAT_TAG_DISP_Y, SN_IO_F32, lat->disp[1], lat->point_count);
    sn_write_section(w, SN_LAT_TAG_DISP_Z, SN_IO_F32, lat->disp[2], lat->point_count);
}

static void write_lattice(sn_writer *w, const void *handle)
{
    sn_lat_write_sections(w, (const sinew_lattice *)handle);
}

sinew_result sinew_lattice_save(const sinew_lattice *lattice, void *buffer, size_t capacity, size_t *size)
{
    return sn_save(SINEW_KIND_LATTICE, write_lattice, lattice, buffer, capacity, size, "lattice");
}

static void write_binding(sn_writer *w, const void *handle)
{
    const sinew_lattice_binding *b = (const sinew_lattice_binding *)handle;
    uint64_t structure[9];
    structure[0] = b->count;
    for (int a = 0; a < 3; ++a) {
        structure[1 + a] = b->axis_count[a];
        structure[4 + a] = b->order[a];
    }
    structure[7] = (uint64_t)b->outside;
    structure[8] = (uint64_t)b->space;
    sn_write_section(w, SN_LAT_TAG_BIND_STRUCTURE, SN_IO_U64, structure, 9);
    sn_write_section(w, SN_LAT_TAG_BIND_ORIGIN, SN_IO_F64, b->origin, 3);
    sn_write_section(w, SN_LAT_TAG_BIND_FRAME, SN_IO_F64, b->frame, 9);
    sn_write_section(w, SN_LAT_TAG_BIND_RECORDS, SN_IO_U32, b->records, b->count * b->record);
    sn_write_section(w, SN_LAT_TAG_BIND_NORMALS, SN_IO_F32, b->normals, b->normals ? 3 * b->count : 0);
}

sinew_result sinew_lattice_binding_save(const sinew_lattice_binding *binding, void *buffer, size_t capacity,
                                        size_t *size)
{
    return sn_save(SINEW_KIND_LATTICE_BINDING, write_binding, binding, buffer, capacity, size, "lattice binding");
}

static void write_refinement(sn_writer *w, const void *handle)
{
    const sinew_lattice_refined_mesh *m = &((const sinew_lattice_refinement *)handle)->mesh;
    const size_t added = m->vertex_count - m->input_vertex_count;
    const uint64_t sizes[4] = {m->vertex_count, m->input_vertex_count, m->triangle_count, m->rounds};
    sn_write_section(w, SN_LAT_TAG_REF_SIZES, SN_IO_U64, sizes, 4);
    sn_write_section(w, SN_LAT_TAG_REF_ERROR, SN_IO_F64, &m->max_error, 1);
    sn_write_section(w, SN_LAT_TAG_REF_REST, SN_IO_F32, m->rest_positions, 3 * m->vertex_count);
    sn_write_section(w, SN_LAT_TAG_REF_DEFORMED, SN_IO_F32, m->positions, 3 * m->vertex_count);
    sn_write_section(w, SN_LAT_TAG_REF_TRIANGLES, SN_IO_U32, m->indices, 3 * m->triangle_count);
    sn_write_section(w, SN_LAT_TAG_REF_PARENTS, SN_IO_U32, m->parents, 2 * added);
    sn_write_section(w, SN_LAT_TAG_REF_PARAMETERS, SN_IO_F32, m->parameters, added);
}

sinew_result sinew_lattice_refinement_save(const sinew_lattice_refinement *refinement, void *buffer,
                                           size_t capacity, size_t *size)
{
    return sn_save(SINEW_KIND_LATTICE_REFINEMENT, write_refinement, refinement, buffer, capacity, size,
                   "lattice refinement");
}
