/*
 * What a zero field of the skin descs stands for, in one place (the public
 * headers state the same values).
 */
#ifndef SN_SKIN_DEFAULTS_H
#define SN_SKIN_DEFAULTS_H

/* sinew_skin_desc.weight_tolerance for float weights: the largest distance of
 * a vertex's weight sum from 1 accepted (absolute). */
#define SN_SKIN_DEFAULT_WEIGHT_TOLERANCE 1e-3f   /* a float, as the field is */

/* influence_count of the binding tools' descs (capsule, line, example):
 * slots per vertex, a skin's usual 4. */
#define SN_SKIN_TOOL_DEFAULT_INFLUENCES 4u
/* sinew_skin_capsule_desc.falloff: the blend band's width over the radius. */
#define SN_SKIN_CAPSULE_DEFAULT_FALLOFF 0.5f
/* sinew_skin_capsule_desc.radius_quantile: a derived radius covers this share
 * of the capsule's own vertices. */
#define SN_SKIN_CAPSULE_DEFAULT_RADIUS_QUANTILE 0.9f
/* sinew_skin_smooth_desc.iterations: Jacobi sweeps. */
#define SN_SKIN_SMOOTH_DEFAULT_ITERATIONS 3u
/* sinew_skin_smooth_desc.strength: each sweep's step towards the neighbours' mean. */
#define SN_SKIN_SMOOTH_DEFAULT_STRENGTH 0.5f
/* sinew_skin_line_desc.blend: half-width of the band at a joint plane over the shorter bone. */
#define SN_SKIN_LINE_DEFAULT_BLEND 0.2f
/* sinew_skin_example_desc.max_subsets: 8 choose 4, every 4-subset of 8 joints. */
#define SN_SKIN_EXAMPLE_DEFAULT_MAX_SUBSETS 70u
/* sinew_skin_links_desc.max_link_angle: 60 degrees (pi / 3 rounded to the field's float). */
#define SN_SKIN_LINKS_DEFAULT_MAX_LINK_ANGLE 1.04719755f

/* The resolve functions the tools and their queries share (tools/tool_defaults.c). */
#include "sinew/skin_tools.h"
void sn_skin_capsule_resolve(sinew_skin_capsule_desc *d);
void sn_skin_smooth_resolve(sinew_skin_smooth_desc *d);
void sn_skin_line_resolve(sinew_skin_line_desc *d);
void sn_skin_example_resolve(sinew_skin_example_desc *d);
void sn_skin_links_resolve(sinew_skin_links_desc *d);

#endif /* SN_SKIN_DEFAULTS_H */
