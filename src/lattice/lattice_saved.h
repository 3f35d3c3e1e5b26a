/*
 * Saved data of the lattice family (docs/lattice.md, "Save and load"): the
 * lattice's sections, written and read by the lattice's own save and load and
 * by every handle that keeps a lattice inside it (the placement), so the
 * lattice is validated the same way wherever it is stored.
 */
#ifndef SINEW_LATTICE_SAVED_H
#define SINEW_LATTICE_SAVED_H

#include "io/format.h"
#include "lattice/lattice_internal.h"

/* Section tags of a lattice. LSTR: u64 counts (u, v, w), orders (u, v, w),
 * outside policy. LORG: f64 origin. LFRM: f64 frame (columns extent_a * unit
 * axis a). LAXS: f32 unit axes. LEXT: f32 extents. LDSX, LDSY, LDSZ: f32
 * displacements per coordinate, one per control point. */
#define SN_LAT_TAG_STRUCTURE SN_TAG('L', 'S', 'T', 'R')
#define SN_LAT_TAG_ORIGIN SN_TAG('L', 'O', 'R', 'G')
#define SN_LAT_TAG_FRAME SN_TAG('L', 'F', 'R', 'M')
#define SN_LAT_TAG_AXES SN_TAG('L', 'A', 'X', 'S')
#define SN_LAT_TAG_EXTENTS SN_TAG('L', 'E', 'X', 'T')
#define SN_LAT_TAG_DISP_X SN_TAG('L', 'D', 'S', 'X')
#define SN_LAT_TAG_DISP_Y SN_TAG('L', 'D', 'S', 'Y')
#define SN_LAT_TAG_DISP_Z SN_TAG('L', 'D', 'S', 'Z')

/* Binding sections. BSTR: u64 point count, lattice counts (u, v, w), orders
 * (u, v, w), outside policy, space. BORG, BFRM: f64 origin and frame of the
 * structure bound to. BREC: u32 records (the in-memory layout, floats as
 * their bits, since the first-index word is not a float). BNRM: f32 normals,
 * empty without them. */
#define SN_LAT_TAG_BIND_STRUCTURE SN_TAG('B', 'S', 'T', 'R')
#define SN_LAT_TAG_BIND_ORIGIN SN_TAG('B', 'O', 'R', 'G')
#define SN_LAT_TAG_BIND_FRAME SN_TAG('B', 'F', 'R', 'M')
#define SN_LAT_TAG_BIND_RECORDS SN_TAG('B', 'R', 'E', 'C')
#define SN_LAT_TAG_BIND_NORMALS SN_TAG('B', 'N', 'R', 'M')

/* Refinement sections. RSIZ: u64 vertex count, input vertex count, triangle
 * count, rounds. RERR: f64 max error. RRST, RDEF: f32 rest and deformed
 * positions. RTRI: u32 triangles. RPAR: u32 parents, two per added vertex.
 * RPRM: f32 parameters, one per added vertex. */
#define SN_LAT_TAG_REF_SIZES SN_TAG('R', 'S', 'I', 'Z')
#define SN_LAT_TAG_REF_ERROR SN_TAG('R', 'E', 'R', 'R')
#define SN_LAT_TAG_REF_REST SN_TAG('R', 'R', 'S', 'T')
#define SN_LAT_TAG_REF_DEFORMED SN_TAG('R', 'D', 'E', 'F')
#define SN_LAT_TAG_REF_TRIANGLES SN_TAG('R', 'T', 'R', 'I')
#define SN_LAT_TAG_REF_PARENTS SN_TAG('R', 'P', 'A', 'R')
#define SN_LAT_TAG_REF_PARAMETERS SN_TAG('R', 'P', 'R', 'M')

/* Adds the lattice's sections. */
void sn_lat_write_sections(sn_writer *w, const sinew_lattice *lat);

/* Builds a lattice from the sections of an opened reader, validating every
 * value with create's codes (messages start with r->what); memory from env.
 * The displacement bound is recomputed from the displacements. *out is set
 * only on success. */
sinew_result sn_lat_read_sections(sn_reader *r, const sn_env *env, sinew_lattice **out);




#endif /* SINEW_LATTICE_SAVED_H */
