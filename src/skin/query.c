/* Queries on a bound skin and its destruction. */
#include "skin/skin_internal.h"

void sinew_skin_destroy(sinew_skin *skin)
{
    if (!skin) return;
    sn_env env = skin->env;
    if (!skin->block_is_callers) sn_free(&env, skin->block);
    sn_free(&env, skin->groups);
    sn_free(&env, skin);
}

size_t sinew_skin_palette_size(const sinew_skin *skin)
{
    return skin ? skin->joint_count * skin->record_floats : 0;
}

sinew_result sinew_skin_get_info(const sinew_skin *skin, sinew_skin_info *info)
{
    /* Leaves the thread's message alone: it is read after a failure (api.md). */
    if (!skin) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin is NULL");
    if (sn_check_struct_out(info, "skin info") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_skin_info i = {0};
    i.vertex_count = skin->vertex_count;
    i.joint_count = skin->joint_count;
    i.max_nonzero_influences = skin->max_influences;
    i.single_joint_vertices = sn_skin_single_joint_vertices(skin);
    i.merged_duplicates = skin->merged_duplicates;
    i.renormalised_vertices = skin->renormalised_vertices;
    i.unweighted_vertices = skin->unweighted_vertices;
    i.palette_floats = sinew_skin_palette_size(skin);
    i.palette_joint_floats = skin->record_floats;
    i.memory_bytes = sizeof *skin + skin->max_influences * sizeof *skin->groups + skin->block_bytes;
    i.storage = skin->storage;
    i.blend = skin->blend;
    i.normals = skin->normals;
    i.kernel = skin->kernel;
    sn_write_struct(info, &i, sizeof i);
    return SINEW_OK;
}

/* First position in a group whose vertex number is >= v. */
size_t sn_skin_group_lower_bound(const sn_skin_group *g, size_t v)
{
    size_t lo = 0, hi = g->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->vertex[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Nonzero-weight slots of group position i: padding slots (weight 0) come
 * last. */
static size_t sn_skin_nonzero_slots(const sn_skin_group *g, sn_skin_format format, size_t i)
{
    const size_t k = g->influences;
    size_t n = 1;
    while (n < k && sn_skin_weight(g->weights, format, i * k + n) != 0.0f) ++n;
    return n;
}

size_t sn_skin_single_joint_vertices(const sinew_skin *skin)
{
    /* One-joint vertices padded into a larger block's group count too. */
    size_t n = skin->groups[0].count;
    for (size_t k = 2; k <= skin->max_influences; ++k) {
        const sn_skin_group *g = &skin->groups[k - 1];
        for (size_t at = 0; at < g->count; ++at) n += sn_skin_nonzero_slots(g, skin->format, at) == 1;
    }
    return n;
}

sinew_result sinew_skin_vertex_influences(const sinew_skin *skin, size_t vertex, uint32_t *joints, float *weights,
                                          size_t capacity, size_t *count)
{
    sn_clear_error();
    if (!skin) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin is NULL");
    if (!count) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin influence count pointer is NULL");
    if (vertex >= skin->vertex_count)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "vertex %zu, but the skin has only %zu vertices", vertex,
                       skin->vertex_count);
    for (size_t k = 1; k <= skin->max_influences; ++k) {
        const sn_skin_group *g = &skin->groups[k - 1];
        size_t at = sn_skin_group_lower_bound(g, vertex);
        if (at == g->count || g->vertex[at] != vertex) continue;
        /* All or nothing: no arrays is a query; arrays too small get only the needed count. */
        const size_t n = sn_skin_nonzero_slots(g, skin->format, at);
        *count = n;
        if (!joints && !weights) return SINEW_OK;
        if (capacity < n)
            return sn_fail(SINEW_ERROR_BUFFER_TOO_SMALL, "vertex %zu has %zu influences, capacity is %zu", vertex, n,
                           capacity);
        for (size_t s = 0; s < n; ++s) {
            if (joints) joints[s] = sn_skin_joint(g->joints, skin->format, at * k + s);
            if (weights) weights[s] = k == 1 ? 1.0f : sn_skin_weight(g->weights, skin->format, at * k + s);
        }
        return SINEW_OK;
    }
    /* Every vertex lands in exactly one group at bind time. */
    return sn_fail(SINEW_ERROR_INVALID_STATE, "vertex %zu is in no influence group", vertex);
}
