/*
 * The sections of a saved surface-oriented FFD handle (docs/soffd.md, "Save
 * and load"), shared by save.c and load.c. What bind and registration
 * computed is stored; what R determines cheaply (element normals, the BVH,
 * the one-ring frames, the extended kernel's corner lists) is rebuilt on load.
 *   SFOP u64[9]  vertex_count, face_count, element_count, skipped triangles,
 *                registered (0/1), point_count, entry_count, policy
 *                max_contributors, policy exclusive (0/1)
 *   SFSC f64[2]  local, length_scale (resolved)
 *   SFPO f32[2]  policy weight_threshold, max_distance
 *   SFRF f32     3 per driver vertex: the reference surface R
 *   SFEL u32     3 per element: its driver vertices
 *   SFEF u32     per element: the driver face it was cut from
 *   SFSK u32     per skipped triangle: its face
 *   SFRP f32     3 per registered point: P
 *   SFOF u64     point_count + 1 offsets into the entries (none before registration)
 *   SFEN u32     per entry: the contributing element (nearest first, then BVH order)
 *   SFCO f32     4 per entry: u x, u y, u z, u (local coordinates scaled by the weight)
 *   SFBA f32     3 per entry: u times the barycentric coordinates of P's closest point
 *   SFDR f32     per point: the cheap dropped-mass bound
 * Format version 3 adds, each only when there is something to hold:
 *   SFSD u64[1]  elements the bind made (subdivision appends the rest)
 *   SFPA u32     per element: the element it was split from (its own number if never split)
 *   SFAV u32     3 per vertex subdivision added: the earlier vertices it is made from
 *   SFAW f32     3 per vertex subdivision added: their weights
 *   SFED u64     4 per contributing-set edit since registration: kind (1 set, 2
 *                exclude), first point, point count, element count
 *   SFEE u32     the edits' elements, ascending within each edit
 * Format version 4 adds, when some point's weights were faded:
 *   SFFA f32     per point: the share of its kept elements' weight the fade
 *                took (data without it was registered unfaded: 0 for every point)
 */
#ifndef SINEW_SOFFD_SAVED_H
#define SINEW_SOFFD_SAVED_H

#include "io/format.h"

#define SN_SOFFD_TAG_OPTIONS SN_TAG('S', 'F', 'O', 'P')
#define SN_SOFFD_TAG_SCALES SN_TAG('S', 'F', 'S', 'C')
#define SN_SOFFD_TAG_POLICY SN_TAG('S', 'F', 'P', 'O')
#define SN_SOFFD_TAG_REFERENCE SN_TAG('S', 'F', 'R', 'F')
#define SN_SOFFD_TAG_ELEMENTS SN_TAG('S', 'F', 'E', 'L')
#define SN_SOFFD_TAG_ELEMENT_FACE SN_TAG('S', 'F', 'E', 'F')
#define SN_SOFFD_TAG_SKIPPED SN_TAG('S', 'F', 'S', 'K')
#define SN_SOFFD_TAG_POINTS SN_TAG('S', 'F', 'R', 'P')
#define SN_SOFFD_TAG_OFFSETS SN_TAG('S', 'F', 'O', 'F')
#define SN_SOFFD_TAG_ENTRY_ELEMENT SN_TAG('S', 'F', 'E', 'N')
#define SN_SOFFD_TAG_COEFF SN_TAG('S', 'F', 'C', 'O')
#define SN_SOFFD_TAG_BARY SN_TAG('S', 'F', 'B', 'A')
#define SN_SOFFD_TAG_DROPPED SN_TAG('S', 'F', 'D', 'R')
#define SN_SOFFD_TAG_SUBDIVIDED SN_TAG('S', 'F', 'S', 'D')
#define SN_SOFFD_TAG_PARENT SN_TAG('S', 'F', 'P', 'A')
#define SN_SOFFD_TAG_ADDED_SOURCE SN_TAG('S', 'F', 'A', 'V')
#define SN_SOFFD_TAG_ADDED_WEIGHT SN_TAG('S', 'F', 'A', 'W')
#define SN_SOFFD_TAG_EDITS SN_TAG('S', 'F', 'E', 'D')
#define SN_SOFFD_TAG_EDIT_ELEMENTS SN_TAG('S', 'F', 'E', 'E')
#define SN_SOFFD_TAG_FADE SN_TAG('S', 'F', 'F', 'A')
/* The format versions that hold the sections above. */
#define SN_SOFFD_VERSION_EDITS 3
#define SN_SOFFD_VERSION_FADE 4

/* Indices into SFOP. */
enum {
    SN_SOFFD_OP_VERTICES,
    SN_SOFFD_OP_FACES,
    SN_SOFFD_OP_ELEMENTS,
    SN_SOFFD_OP_SKIPPED,
    SN_SOFFD_OP_REGISTERED,
    SN_SOFFD_OP_POINTS,
    SN_SOFFD_OP_ENTRIES,
    SN_SOFFD_OP_MAX_CONTRIBUTORS,
    SN_SOFFD_OP_EXCLUSIVE,
    SN_SOFFD_OP_COUNT
};

/* Format version 3's sections (load_edits.c), each checked: the subdivision
 * record, read after the triangulation (it checks parents against faces);
 * the edit record, read after the registration. */
struct sinew_soffd;
sinew_result sn_soffd_load_subdivision(sn_reader *r, struct sinew_soffd *h);
sinew_result sn_soffd_load_edits(sn_reader *r, struct sinew_soffd *h);

#endif /* SINEW_SOFFD_SAVED_H */
