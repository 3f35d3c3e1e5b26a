/* Freeing a handle's blocks, all of them (destroy) or those a changed copy
 * no longer shares (rebuild.c). */
#include <string.h>

#include "soffd/soffd_internal.h"

#define FREE_IF_UNSHARED(field) \
    do { \
        if (a->field != b->field) sn_free(env, a->field); \
    } while (0)

void sn_soffd_free_unshared(const sn_env *env, sinew_soffd *a, const sinew_soffd *b)
{
    FREE_IF_UNSHARED(reference);
    FREE_IF_UNSHARED(elements);
    FREE_IF_UNSHARED(element_face);
    FREE_IF_UNSHARED(skipped_face);
    FREE_IF_UNSHARED(reference_normal);
    FREE_IF_UNSHARED(reference_inverse);
    FREE_IF_UNSHARED(reference_frame);
    FREE_IF_UNSHARED(edits);
    FREE_IF_UNSHARED(edit_elements);
    FREE_IF_UNSHARED(element_parent);
    FREE_IF_UNSHARED(added_source);
    FREE_IF_UNSHARED(added_weight);
    if (memcmp(&a->bvh, &b->bvh, sizeof a->bvh) != 0) sn_bvh_free(&a->bvh, env);
    if (memcmp(&a->ring, &b->ring, sizeof a->ring) != 0) sn_soffd_ring_free(env, &a->ring);
    if (memcmp(&a->reg, &b->reg, sizeof a->reg) != 0) sn_soffd_reg_free(env, &a->reg);
}

