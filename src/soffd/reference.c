/* Re-registration: R moves relative to the skin (paper section 3.1: "needs to
 * be repeated only if the position of the reference surface R changes"). The
 * triangulation stays; everything derived from R's positions is rebuilt aside
 * (rebuild.c), the points registered again and the user's edits replayed. */
#include <math.h>
#include <math.h>
#include <string.h>

#include "soffd/soffd_internal.h"

sinew_result sinew_soffd_set_reference(sinew_context *ctx, sinew_soffd *h, const sinew_points *reference)
{
    sn_clear_error();
    if (!h) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "soffd is NULL");
    sn_env call;
    sn_env_for_call(&call, &h->env, ctx);
    sinew_result r = sn_check_points(reference, "reference vertex");
    if (r == SINEW_OK) r = sn_soffd_check_domain(reference, "reference vertex");
    if (r != SINEW_OK) return r;
    if (reference->count != h->vertex_count)
        return sn_fail(SINEW_ERROR_MISMATCH, "the reference has %zu vertices, but the driver was bound with %zu",
                       reference->count, h->vertex_count);
    for (size_t k = 0; k < h->element_count; ++k) {
        const uint32_t *t = &h->elements[3 * k];
        if (sn_soffd_degenerate(sn_point(reference, t[0]), sn_point(reference, t[1]), sn_point(reference, t[2]),
                                NULL))
            return sn_fail(SINEW_ERROR_DEGENERATE, "element %zu (driver face %u, vertices %u, %u, %u) has zero area "
                           "in the new reference", k, h->element_face[k], t[0], t[1], t[2]);
    }
    sinew_soffd next = *h;
    next.reference_normal = NULL;
    next.reference_inverse = NULL;
    next.reference_frame = NULL;
    memset(&next.bvh, 0, sizeof next.bvh);
    memset(&next.ring, 0, sizeof next.ring);
    next.reference = (float *)sn_alloc_array(&h->env, h->vertex_count, 3 * sizeof(float), "the soffd reference surface");
    if (!next.reference) return sn_alloc_failure();
    for (size_t v = 0; v < h->vertex_count; ++v) memcpy(&next.reference[3 * v], sn_point(reference, v), 12);
    return sn_soffd_rebuild(h, &next, &call, true);
}

sinew_result sinew_soffd_set_falloff(sinew_context *ctx, sinew_soffd *h, float local, float length_scale)
{
    sn_clear_error();
    if (!h) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "soffd is NULL");
    if (!isfinite(local) || local < 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "local must be a finite value >= 0 (0 = keep %g), got %g",
                       h->local, (double)local);
    if (!isfinite(length_scale) || length_scale < 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "length_scale must be finite and >= 0 (0 = keep %g), got %g",
                       h->length_scale, (double)length_scale);
    sn_env call;
    sn_env_for_call(&call, &h->env, ctx);
    sinew_soffd next = *h;
    if (local > 0) next.local = local;
    if (length_scale > 0) next.length_scale = length_scale;
    return sn_soffd_rebuild(h, &next, &call, false);
}
