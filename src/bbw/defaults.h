/*
 * What a zero field of the bbw descs stands for, in one place (the public
 * headers state the same values).
 */
#ifndef SN_BBW_DEFAULTS_H
#define SN_BBW_DEFAULTS_H

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

#endif /* SN_BBW_DEFAULTS_H */
