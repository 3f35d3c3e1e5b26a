/*
 * Element shape quality of a bbw domain (quality.c).
 */
#ifndef SN_BBW_QUALITY_H
#define SN_BBW_QUALITY_H

#include <stddef.h>

typedef struct sinew_bbw sinew_bbw;

/* Quality below which an element is named as ill-shaped: a tet a thousandth
 * as thick as a regular one conditions the operator a million times worse. */
#define SN_BBW_POOR_QUALITY 1e-3

typedef struct sn_bbw_quality_summary {
    size_t worst;          /* the element of lowest quality (SIZE_MAX: none) */
    double worst_quality;
    size_t poor_count;     /* elements below SN_BBW_POOR_QUALITY */
} sn_bbw_quality_summary;

/* The worst element and the count of poor ones, by the measure of each
 * element over that of the regular triangle or tet with the same root mean
 * square edge length (1 regular, towards 0 for slivers, needles, caps). */
sn_bbw_quality_summary sn_bbw_quality_summary_of(const sinew_bbw *b);

#endif
