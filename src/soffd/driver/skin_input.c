/* The skin read as triangles: face sizes and indices checked, n-gons
 * ear-clipped (so concave polygons of a quad-dominant skin work). */
#include <string.h>

#include "geom/polygon.h"
#include "soffd/driver/driver_internal.h"

/* Index count, triangle count and largest face; every size checked in bytes
 * before anything is read. */
static sinew_result count_faces(const sinew_polymesh *m, size_t *index_count, size_t *tri_count, size_t *largest)
{
    const size_t max_indices = SIZE_MAX / (3 * sizeof(uint32_t));
    size_t n_idx = 0, tris = 0, big = 3;
    if (!m->face_sizes) {
        if (!sn_mul_size(m->face_count, 3, &n_idx) || n_idx > max_indices)
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%zu skin faces (triangles) overflow the index array size",
                           m->face_count);
        tris = m->face_count;
    } else {
        size_t bytes;
        if (!sn_mul_size(m->face_count, sizeof(uint32_t), &bytes) || !sn_span_fits(m->face_count, 4, 4))
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%zu skin face sizes overflow the face_sizes array size",
                           m->face_count);
        if ((uintptr_t)m->face_sizes % sizeof(uint32_t))
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin face_sizes is not aligned to 4 bytes");
        for (size_t f = 0; f < m->face_count; ++f) {
            uint32_t n = m->face_sizes[f];
            if (n < 3) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin face %zu has %u vertices (needs 3)", f, n);
            if (!sn_add_size(n_idx, n, &n_idx) || n_idx > max_indices)
                return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "skin face sizes overflow the index array size at face %zu",
                               f);
            tris += n - 2;
            if (n > big) big = n;
        }
    }
    *index_count = n_idx;
    *tri_count = tris;
    *largest = big;
    return SINEW_OK;
}

/* Ear-clips every face of the checked indices into s->triangles. */
static sinew_result triangulate(const sn_env *env, const sinew_polymesh *m, const uint32_t *idx, size_t largest,
                                sn_driver_skin *s)
{
    uint32_t *scratch = (uint32_t *)sn_alloc_array(env, largest, sizeof(uint32_t), "triangulation scratch");
    if (!scratch) return sn_alloc_failure();
    size_t start = 0, made_total = 0;
    for (size_t f = 0; f < m->face_count; ++f) {
        size_t n = m->face_sizes ? m->face_sizes[f] : 3, made = 1;
        uint32_t *out = &s->triangles[3 * made_total];
        if (n == 3) memcpy(out, &idx[start], 3 * sizeof(uint32_t));
        else if (!sn_triangulate_polygon(s->positions, s->stride, &idx[start], n, out, &made, scratch)) {
            sn_free(env, scratch);
            return sn_fail(SINEW_ERROR_INVALID_TOPOLOGY,
                           "skin face %zu (%zu vertices) cannot be triangulated: it has no area or its outline "
                           "crosses itself", f, n);
        }
        start += n;
        made_total += made;
    }
    sn_free(env, scratch);
    s->triangle_count = made_total;
    return SINEW_OK;
}

sinew_result sn_driver_read_skin(const sn_env *env, const sinew_polymesh *m, sn_driver_skin *out)
{
    if (m->face_count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "the skin has no faces");
    size_t n_idx = 0, tris = 0, largest = 3;
    sinew_result r = count_faces(m, &n_idx, &tris, &largest);
    if (r != SINEW_OK) return r;
    if (!m->indices) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin indices are NULL");
    sn_indices ix;
    r = sn_indices_read(env, m->indices, m->index_type, 0, n_idx, 1, SIZE_MAX, "skin face index", &ix);
    if (r != SINEW_OK) return r;
    size_t f = 0, start = 0;
    for (size_t i = 0; i < n_idx; ++i) {
        size_t size = m->face_sizes ? m->face_sizes[f] : 3;
        if (i - start >= size) start = i, ++f;
        uint32_t v = ix.data[i];
        if (v >= m->positions.count) {
            sn_indices_free(env, &ix);
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "skin face %zu refers to vertex %u, but there are only %zu",
                           f, v, m->positions.count);
        }
    }
    sn_driver_skin s = {m->positions.data, sn_stride(m->positions.stride, 3 * sizeof(float)), m->positions.count,
                        NULL, 0};
    s.triangles = (uint32_t *)sn_alloc_array(env, tris, 3 * sizeof(uint32_t), "skin triangles");
    if (!s.triangles) {
        sn_indices_free(env, &ix);
        return sn_alloc_failure();
    }
    r = triangulate(env, m, ix.data, largest, &s);
    sn_indices_free(env, &ix);
    if (r != SINEW_OK) {
        sn_free(env, s.triangles);
        return r;
    }
    *out = s;
    return SINEW_OK;
}

void sn_driver_skin_free(const sn_env *env, sn_driver_skin *s)
{
    sn_free(env, s->triangles);
    s->triangles = NULL;
}
