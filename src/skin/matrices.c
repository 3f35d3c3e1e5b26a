/* Pose time: the blended skinning matrix of each vertex, the map the deform
 * kernels apply to its position, for callers that need the matrix itself
 * (per-vertex frames of a skinned SOFFD driver, skinning in a shader). */
#include <string.h>

#include "skin/skin_internal.h"

/* sum_i w_i M_i over the vertex's influences (records' first 12 meaningful floats). */
static void linear_matrix(const sinew_skin *skin, const sn_skin_group *g, size_t i, const float *palette, float m[16])
{
    const size_t k = g->influences, base = i * k;
    memset(m, 0, 16 * sizeof *m);
    for (size_t s = 0; s < k; ++s) {
        const float *rec = palette + skin->record_floats * sn_skin_joint(g->joints, skin->format, base + s);
        const float w = k == 1 ? 1.0f : sn_skin_weight(g->weights, skin->format, base + s);
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 3; ++r) m[4 * c + r] += w * rec[4 * c + r];
    }
}

/* [R(q) S | t] of the vertex's dual-quaternion blend, as the DQ kernel
 * applies it: p -> R(q) (S p) + 2 (w_q d_v - w_d q_v + q_v x d_v). */
static void dq_matrix(const sinew_skin *skin, const sn_skin_group *g, size_t i, const float *palette, float m[16])
{
    sn_dq_blend b;
    sn_dq_accumulate(g, i, palette, skin->format, &b);
    const float x = b.q[0], y = b.q[1], z = b.q[2], w = b.q[3];
    const float rot[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z),     2 * (x * z - w * y),
                          2 * (x * y - w * z),     1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
                          2 * (x * z + w * y),     2 * (y * z - w * x),     1 - 2 * (x * x + y * y)};
    memset(m, 0, 16 * sizeof *m);
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
            m[4 * c + r] = rot[r] * b.s[3 * c] + rot[3 + r] * b.s[3 * c + 1] + rot[6 + r] * b.s[3 * c + 2];
    const float cross[3] = {y * b.d[2] - z * b.d[1], z * b.d[0] - x * b.d[2], x * b.d[1] - y * b.d[0]};
    for (int r = 0; r < 3; ++r) m[12 + r] = 2.0f * (w * b.d[r] - b.d[3] * b.q[r] + cross[r]);
}

sinew_result sinew_skin_vertex_matrices(const sinew_skin *skin, const float *palette, size_t palette_floats,
                                        float *out, size_t out_stride, size_t first, size_t count)
{
    sn_clear_error();
    sinew_result pr = sn_skin_check_palette(skin, palette, palette_floats);
    if (pr != SINEW_OK) return pr;
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin matrix output is NULL");
    if (first > skin->vertex_count || count > skin->vertex_count - first)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "skin range [%zu, %zu + %zu) exceeds the %zu vertices", first,
                       first, count, skin->vertex_count);
    sinew_result r = sn_check_float_array(out, out_stride, 16, first + count, "skin matrix output");
    if (r != SINEW_OK || count == 0) return r;
    const size_t stride = sn_stride(out_stride, 16 * sizeof(float));
    for (size_t k = 1; k <= skin->max_influences; ++k) {
        const sn_skin_group *g = &skin->groups[k - 1];
        const size_t end = sn_skin_group_lower_bound(g, first + count);
        for (size_t i = sn_skin_group_lower_bound(g, first); i < end; ++i) {
            float m[16], d[16];
            if (skin->blend == SINEW_SKIN_BLEND_LINEAR) {
                linear_matrix(skin, g, i, palette, m);
            } else {
                dq_matrix(skin, g, i, palette, m);
                const float alpha = g->dq_blend ? g->dq_blend[i] : 1.0f;
                if (alpha < 1.0f) {
                    linear_matrix(skin, g, i, palette, d);
                    for (int e = 0; e < 16; ++e) m[e] = (1.0f - alpha) * d[e] + alpha * m[e];
                }
            }
            m[3] = m[7] = m[11] = 0.0f;
            m[15] = 1.0f;
            memcpy((char *)out + g->vertex[i] * stride, m, sizeof m);
        }
    }
    return SINEW_OK;
}
