/*
 * Saved data of correctives (docs/correctives.md, "Save and load").
 * CSTR: u64 point count, key count, pose size, kernel, offset count.
 * CPRM: f64 radius (resolved), smoothing. CPOS: f32 key poses (empty for
 * morph targets). CRST: f32 rest pose (likewise). CROW: u64 row starts, one
 * per point and one more. CKEY: u32 key of each offset. COFF: f32 offsets,
 * 3 per offset. The interpolation system is solved again on load.
 */
#ifndef SN_CORRECTIVE_SAVED_H
#define SN_CORRECTIVE_SAVED_H

#include "corrective/corrective_internal.h"
#include "io/format.h"

#define SN_CORR_TAG_STRUCTURE SN_TAG('C', 'S', 'T', 'R')
#define SN_CORR_TAG_PARAMETERS SN_TAG('C', 'P', 'R', 'M')
#define SN_CORR_TAG_POSES SN_TAG('C', 'P', 'O', 'S')
#define SN_CORR_TAG_REST SN_TAG('C', 'R', 'S', 'T')
#define SN_CORR_TAG_ROWS SN_TAG('C', 'R', 'O', 'W')
#define SN_CORR_TAG_KEYS SN_TAG('C', 'K', 'E', 'Y')
#define SN_CORR_TAG_OFFSETS SN_TAG('C', 'O', 'F', 'F')

#endif /* SN_CORRECTIVE_SAVED_H */
