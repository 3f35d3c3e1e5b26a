/* Pose time, per vertex range: argument checks, then each influence group's
 * slice of the range goes to that group's kernel. */
#include "skin/skin_internal.h"

/* Resolves one stream pair; fails naming the stream. */
static sinew_result sn_skin_stream(const char *name, const float *in, size_t in_stride, float *out, size_t out_stride,
                                   size_t floats, size_t vertex_count, const char **pin, size_t *pin_stride,
                                   char **pout, size_t *pout_stride)
{
    if (!out) return SINEW_OK;
    if (!in) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin output %s are wanted but input %s are NULL", name, name);
    const size_t packed = floats * sizeof(float);
    const size_t strides[2] = {in_stride, out_stride};
    const void *ptrs[2] = {in, out};
    for (int s = 0; s < 2; ++s) {
        const char *side = s ? "output" : "input";
        if (strides[s] != 0 && (strides[s] < packed || strides[s] % sizeof(float) != 0))
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                           "skin %s %s stride %zu bytes: must be 0 or a multiple of 4 that is at least %zu", side,
                           name, strides[s], packed);
        if ((uintptr_t)ptrs[s] % sizeof(float) != 0)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin %s %s pointer is not aligned to 4 bytes", side, name);
        size_t span;
        if (!sn_mul_size(vertex_count - 1, sn_stride(strides[s], packed), &span) ||
            !sn_add_size(span, packed, &span) || span > (size_t)PTRDIFF_MAX)
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "skin %s %s: %zu vertices of stride %zu overflow", side, name,
                           vertex_count, strides[s]);
    }
    *pin = (const char *)in;
    *pin_stride = sn_stride(in_stride, packed);
    *pout = (char *)out;
    *pout_stride = sn_stride(out_stride, packed);
    return SINEW_OK;
}

sinew_result sn_skin_check_palette(const sinew_skin *skin, const float *palette, size_t palette_floats)
{
    if (!skin) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin is NULL");
    if (!palette) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin palette is NULL");
    if ((uintptr_t)palette % sizeof(float))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin palette pointer %p is not aligned to 4 bytes",
                       (const void *)palette);
    if (palette_floats != skin->joint_count * skin->record_floats)
        return sn_fail(SINEW_ERROR_MISMATCH,
                       "skin palette has %zu floats, but this skin needs %zu (%zu joints x %zu floats per joint)",
                       palette_floats, skin->joint_count * skin->record_floats, skin->joint_count,
                       skin->record_floats);
    return SINEW_OK;
}

/* The end of group g's slice of a window that ends at vertex w_end, from
 * position begin (the slice's start) and before stop: at most `span` (the
 * window's vertex count) positions on, as vertex numbers increase within a
 * group. A binary search, not a scan: a one-group window of a long call
 * costs a few reads. */
static size_t sn_skin_window_end(const sn_skin_group *g, size_t begin, size_t stop, size_t span, size_t w_end)
{
    size_t lo = begin, hi = stop - begin > span ? begin + span : stop;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (g->vertex[mid] < w_end) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

sinew_result sinew_skin_deform(const sinew_skin *skin, const float *palette, size_t palette_floats,
                               const sinew_skin_input *in, const sinew_skin_output *out, size_t first, size_t count)
{
    sn_clear_error();
    sinew_result pr = sn_skin_check_palette(skin, palette, palette_floats);
    if (pr != SINEW_OK) return pr;
    if (!in) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin input streams are NULL");
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin output streams are NULL");
    if (!out->positions && !out->normals && !out->tangents)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin output asks for no stream (positions, normals, tangents all NULL)");
    if (first > skin->vertex_count || count > skin->vertex_count - first)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "skin range [%zu, %zu + %zu) exceeds the %zu vertices", first,
                       first, count, skin->vertex_count);
    sn_skin_io io = {0};
    sinew_result r;
    r = sn_skin_stream("positions", in->positions, in->position_stride, out->positions, out->position_stride, 3,
                       skin->vertex_count, &io.pin, &io.pin_stride, &io.pout, &io.pout_stride);
    if (r != SINEW_OK) return r;
    r = sn_skin_stream("normals", in->normals, in->normal_stride, out->normals, out->normal_stride, 3,
                       skin->vertex_count, &io.nin, &io.nin_stride, &io.nout, &io.nout_stride);
    if (r != SINEW_OK) return r;
    r = sn_skin_stream("tangents", in->tangents, in->tangent_stride, out->tangents, out->tangent_stride, 4,
                       skin->vertex_count, &io.tin, &io.tin_stride, &io.tout, &io.tout_stride);
    if (r != SINEW_OK) return r;
    io.mask = (out->positions ? SN_SKIN_P : 0u) | (out->normals ? SN_SKIN_N : 0u) | (out->tangents ? SN_SKIN_T : 0u);
    io.normals = skin->normals;
    io.format = skin->format;
    io.prefetch = count >= SN_SKIN_PREFETCH_MIN_VERTICES;
    if (count == 0) return SINEW_OK;

    /* Each group's slice of the range; windows advance these cursors. */
    size_t cursor[SN_SKIN_WINDOW_MAX_GROUPS], stop[SN_SKIN_WINDOW_MAX_GROUPS];
    size_t groups = 0;
    const size_t last = first + count;
    for (size_t k = 1; k <= skin->max_influences; ++k) groups += skin->groups[k - 1].count != 0;
    if (groups < 2 || skin->max_influences > SN_SKIN_WINDOW_MAX_GROUPS) {
        for (size_t k = 1; k <= skin->max_influences; ++k) {
            const sn_skin_group *g = &skin->groups[k - 1];
            if (g->count == 0) continue;
            const size_t begin = sn_skin_group_lower_bound(g, first), end = sn_skin_group_lower_bound(g, last);
            if (begin < end) sn_skin_kernel_of(skin, k, io.mask)(g, begin, end, palette, &io);
        }
        return SINEW_OK;
    }
    for (size_t k = 1; k <= skin->max_influences; ++k) {
        const sn_skin_group *g = &skin->groups[k - 1];
        cursor[k - 1] = g->count ? sn_skin_group_lower_bound(g, first) : 0;
        stop[k - 1] = g->count ? sn_skin_group_lower_bound(g, last) : 0;
    }
    /* Every vertex's result depends on its own data only, so windows change
     * no bits (see SN_SKIN_WINDOW_VERTICES), nor does joining them. Window
     * ends fall on multiples of its size, hence of SN_SKIN_PAD_VERTICES: a
     * window's slice of a group starts a padding block, whose vertices are
     * consecutive. Consecutive windows that hold one group only (a padded
     * mesh has a few windows of another count among many of one) join into
     * one kernel call, as if the mesh had that group alone. */
    size_t end[SN_SKIN_WINDOW_MAX_GROUPS];
    size_t pending = 0, pending_begin = 0; /* group k (0: none) whose joined windows wait */
    for (size_t w = first, w_end; w < last; w = w_end) {
        w_end = (w / SN_SKIN_WINDOW_VERTICES + 1) * SN_SKIN_WINDOW_VERTICES;
        if (w_end > last) w_end = last;
        size_t present = 0, only = 0;
        for (size_t k = 1; k <= skin->max_influences; ++k) {
            end[k - 1] = sn_skin_window_end(&skin->groups[k - 1], cursor[k - 1], stop[k - 1], w_end - w, w_end);
            if (end[k - 1] > cursor[k - 1]) ++present, only = k;
        }
        if (pending && (present != 1 || only != pending)) {
            sn_skin_kernel_of(skin, pending, io.mask)(&skin->groups[pending - 1], pending_begin, cursor[pending - 1],
                                                      palette, &io);
            pending = 0;
        }
        if (present == 1) {
            if (!pending) pending = only, pending_begin = cursor[only - 1];
            cursor[only - 1] = end[only - 1];
            continue;
        }
        for (size_t k = 1; k <= skin->max_influences; ++k) {
            const size_t begin = cursor[k - 1];
            cursor[k - 1] = end[k - 1];
            if (begin < end[k - 1])
                sn_skin_kernel_of(skin, k, io.mask)(&skin->groups[k - 1], begin, end[k - 1], palette, &io);
        }
    }
    if (pending)
        sn_skin_kernel_of(skin, pending, io.mask)(&skin->groups[pending - 1], pending_begin, cursor[pending - 1],
                                                  palette, &io);
    return SINEW_OK;
}
