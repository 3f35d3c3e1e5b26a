/*
 * The sections of a saved skin (docs/skinning.md, "Save and load"), shared by
 * save.c and load.c. A skin is saved as its bound layout, so loading copies it
 * back and checks it instead of binding again:
 *   SKOP u64[10]  vertex_count, joint_count, max_influences, storage, blend,
 *                 normals, requested kernel (AUTO or a forced set),
 *                 merged_duplicates, renormalised_vertices, unweighted_vertices
 *   SKIB f32      16 per joint: the inverse bind matrices
 *   SKGC u64      max_influences counts: vertices with k = 1, 2, ... influences
 *   SKVX u32      vertex numbers of group 1, then group 2, ... (increasing in each)
 *   SKJT u8/u16   joints, k per vertex, group after group (u8 for compressed
 *                 storage of at most 256 joints, else u16)
 *   SKWT f32/u8   weights of the groups with k >= 2, same order (u8 for
 *                 compressed storage, summing to 255 per vertex)
 *   SKDQ f32      the mixed blend's factor per vertex in SKVX order (empty otherwise)
 * Slots of a vertex are sorted by decreasing weight, ties by increasing joint.
 */
#ifndef SINEW_SKIN_SAVED_H
#define SINEW_SKIN_SAVED_H

#include "io/format.h"

#define SN_SKIN_TAG_OPTIONS SN_TAG('S', 'K', 'O', 'P')
#define SN_SKIN_TAG_INVERSE_BIND SN_TAG('S', 'K', 'I', 'B')
#define SN_SKIN_TAG_GROUP_COUNTS SN_TAG('S', 'K', 'G', 'C')
#define SN_SKIN_TAG_VERTICES SN_TAG('S', 'K', 'V', 'X')
#define SN_SKIN_TAG_JOINTS SN_TAG('S', 'K', 'J', 'T')
#define SN_SKIN_TAG_WEIGHTS SN_TAG('S', 'K', 'W', 'T')
#define SN_SKIN_TAG_DQ_BLEND SN_TAG('S', 'K', 'D', 'Q')

/* Indices into SKOP. */
enum {
    SN_SKIN_OP_VERTICES,
    SN_SKIN_OP_JOINTS,
    SN_SKIN_OP_MAX_INFLUENCES,
    SN_SKIN_OP_STORAGE,
    SN_SKIN_OP_BLEND,
    SN_SKIN_OP_NORMALS,
    SN_SKIN_OP_KERNEL,
    SN_SKIN_OP_MERGED,
    SN_SKIN_OP_RENORMALIZED,
    SN_SKIN_OP_UNWEIGHTED,
    SN_SKIN_OP_COUNT
};

#endif /* SINEW_SKIN_SAVED_H */
