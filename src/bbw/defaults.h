/*
 * What a zero field of the bbw descs stands for, in one place (the public
 * headers state the same values).
 */
#ifndef SN_BBW_DEFAULTS_H
#define SN_BBW_DEFAULTS_H

#include "sinew/bbw.h"   /* SINEW_BBW_AUTO_TOLERANCE */

/* sinew_bbw_desc.grid_resolution: cells along the longest side of the
 * surface's box. */
#define SN_BBW_DEFAULT_GRID_RESOLUTION 32u
/* sinew_bbw_desc.handle_tolerance, relative to the domain's diagonal. */
#define SN_BBW_DEFAULT_HANDLE_TOLERANCE 1e-4f   /* a float, as the field is */
/* sinew_bbw_solve_desc.tolerance: the certified bound asked of the weights. */
#define SN_BBW_DEFAULT_TOLERANCE 1e-4
/* sinew_bbw_solve_desc.max_iterations. */
#define SN_BBW_DEFAULT_MAX_ITERATIONS 5000u
/* sinew_bbw_solve_desc.penalty, relative to sqrt(lambda_min mean(diag(Q)/M))
 * with the split's metric: tuned to minimise the iterations of a graded tet
 * mesh at the default tolerance. */
#define SN_BBW_DEFAULT_PENALTY 0.03
/* sinew_bbw_solve_desc.shape_strength with a shape mask. */
#define SN_BBW_DEFAULT_SHAPE_STRENGTH 1.0
/* sinew_bbw_pose_solve_desc.iterations: local/global rounds. */
#define SN_BBW_POSE_DEFAULT_ITERATIONS 5u
/* sinew_bbw_pose_desc.cluster_count: rotation clusters per handle... */
#define SN_BBW_POSE_CLUSTERS_PER_HANDLE 5u
/* ...but never fewer than this (capped by the element count). */
#define SN_BBW_POSE_MIN_CLUSTERS 16u
/* sinew_bbw_auto_desc.influence_count: weight slots per vertex, a skin's usual 4. */
#define SN_BBW_AUTO_DEFAULT_INFLUENCES 4u
/* sinew_bbw_auto_desc.grid_resolution: the automatic volume's, as sinew_bbw_desc. */
#define SN_BBW_AUTO_DEFAULT_GRID_RESOLUTION SN_BBW_DEFAULT_GRID_RESOLUTION
/* sinew_bbw_auto_desc.tolerance: the public figure (bbw.h says what it is tuned for). */
#define SN_BBW_AUTO_DEFAULT_TOLERANCE SINEW_BBW_AUTO_TOLERANCE
/* The split's penalty scale sinew_bbw_auto_weights solves with (as
 * sinew_bbw_solve_desc.penalty): tuned on the rig set of docs/bbw.md, whose
 * graded automatic volumes certify in the fewest iterations about two orders
 * above the general default. */
#define SN_BBW_AUTO_PENALTY 10.0
/* sinew_bbw_auto_desc.max_iterations: the solve's. */
#define SN_BBW_AUTO_DEFAULT_MAX_ITERATIONS SN_BBW_DEFAULT_MAX_ITERATIONS

#endif /* SN_BBW_DEFAULTS_H */
