/*
 * Fill-reducing ordering for sparse symmetric factorisation: nested
 * dissection with level-structure separators (George's automatic nested
 * dissection). On mesh graphs a breadth-first level taken near the middle of a
 * pseudo-peripheral search is a small separator; numbering separators last
 * confines fill to the separators' dense blocks.
 */
#ifndef SN_LINALG_ORDERING_H
#define SN_LINALG_ORDERING_H

#include "linalg/sparse.h"

/* Writes perm (n entries, perm[new] = old) for the graph of A's off-diagonal
 * pattern (A stored in full, symmetric pattern). */
sinew_result sn_order_nested_dissection(const sn_env *env, const sn_sparse *a, uint32_t *perm);

/* Same, splitting each part by a plane (coords: 3 doubles per row, the
 * mesh vertex the row belongs to): across one of seven directions, at the
 * position whose smaller side's border, scored for balance, is least; that
 * border is the separator. On meshes this finds separators close to a thin
 * cross-section, smaller than breadth-first levels. */
sinew_result sn_order_geometric_dissection(const sn_env *env, const sn_sparse *a, const double *coords,
                                           uint32_t *perm);

/* Same, each part split by the smaller of the two separators, the plane
 * cut's or the breadth-first level's: at each part it weighs the level the
 * graph dissection would take, so sn_ldlt_analyse takes it without
 * comparing (on the BBW rig set's volumes it was never costlier than the
 * graph one). */
sinew_result sn_order_mixed_dissection(const sn_env *env, const sn_sparse *a, const double *coords, uint32_t *perm);

#endif /* SN_LINALG_ORDERING_H */
