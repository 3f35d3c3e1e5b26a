/* Changing a bound handle in place: the new state is built aside in a copy
 * of the handle, the points registered again under it and the user's edits
 * replayed, and only then swapped in, so a failure leaves the handle as it
 * was. The copy shares every block that did not change. */
#include <stdio.h>
#include <string.h>

#include "soffd/soffd_internal.h"

/* Applies every recorded edit to h's current registration, naming the edit
 * that no longer applies. */
static sinew_result replay_edits(sinew_soffd *h)
{
    if (h->edit_count == 0) return SINEW_OK;
    uint8_t *flags = (uint8_t *)sn_alloc_array(&h->env, h->element_count, 1, "soffd edit replay flags");
    if (!flags) return sn_alloc_failure();
    memset(flags, 0, h->element_count);
    sinew_result r = SINEW_OK;
    size_t i = 0;
    for (; i < h->edit_count && r == SINEW_OK; ++i) {
        const sn_soffd_edit *e = &h->edits[i];
        /* An empty set may be recorded before any element list exists. */
        const uint32_t *list = e->element_count ? &h->edit_elements[e->element_at] : NULL;
        if (e->kind == SN_SOFFD_EDIT_SET) {
            r = sn_soffd_apply_set(h, (size_t)e->first, list, (size_t)e->element_count);
            continue;
        }
        for (size_t j = 0; j < e->element_count; ++j) flags[list[j]] = 1;
        r = sn_soffd_apply_exclude(h, flags, (size_t)e->first, (size_t)e->count);
        for (size_t j = 0; j < e->element_count; ++j) flags[list[j]] = 0;
    }
    sn_free(&h->env, flags);
    if (r == SINEW_OK || r == SINEW_ERROR_OUT_OF_MEMORY) return r;
    /* Say which edit no longer applies to the new sets, then why. */
    char why[400];
    snprintf(why, sizeof why, "%s", sinew_last_error());
    const sn_soffd_edit *e = &h->edits[i - 1];
    return sn_fail(r, "edit %zu (%s points [%llu, %llu + %llu)) no longer applies after re-registration: %s", i - 1,
                   e->kind == SN_SOFFD_EDIT_SET ? "a set replacing that of" : "elements excluded from",
                   (unsigned long long)e->first, (unsigned long long)e->first, (unsigned long long)e->count, why);
}

sinew_result sn_soffd_rebuild(sinew_soffd *h, sinew_soffd *next, const sn_env *call, bool rebuild_reference)
{
    sinew_result r = SINEW_OK;
    if (rebuild_reference) r = sn_soffd_build_reference_data(next);
    memset(&next->reg, 0, sizeof next->reg);
    if (r == SINEW_OK && h->registered)
        r = sn_soffd_register_points(next, call, h->reg.rest, 0, h->reg.point_count, &h->policy, &next->reg);
    if (r == SINEW_OK && h->registered) r = replay_edits(next);
    if (r != SINEW_OK) {
        sn_soffd_free_unshared(&h->env, next, h);
        return r;
    }
    sn_soffd_free_unshared(&h->env, h, next);
    *h = *next;
    return SINEW_OK;
}
