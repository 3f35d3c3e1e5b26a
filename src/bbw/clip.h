/*
 * Handles outside the domain under SINEW_BBW_OUTSIDE_CLIP (clip.c).
 */
#ifndef SN_BBW_CLIP_H
#define SN_BBW_CLIP_H

#include "bbw/bbw_internal.h"

/* What was clipped or moved: handles counted once each (they are visited in
 * order), the first, the last seen and the largest distance. */
typedef struct sn_bbw_clip_record {
    size_t count, first, last;
    double farthest;
} sn_bbw_clip_record;

/* The domain vertex nearest to segment ac (a point when a == c) among those
 * with taken[v] == 0 (any vertex when taken is NULL or all are taken; another
 * handle's vertex would merge the two), and its distance. */
uint32_t sn_bbw_nearest_vertex(const sinew_bbw *b, const double a[3], const double c[3], const uint32_t *taken,
                               double *distance);
/* Records that handle was clipped or moved by distance. */
void sn_bbw_clip_note(sn_bbw_clip_record *c, size_t handle, double distance);

#endif /* SN_BBW_CLIP_H */
