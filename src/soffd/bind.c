/* Bind: validate the driver, triangulate its faces, keep the reference copy R,
 * and build what registration and the extended algorithm read from R (BVH,
 * element normals, one-ring frames). */
#include <math.h>
#include <string.h>

#include "geom/polygon.h"
#include "soffd/soffd_defaults.h"
#include "soffd/soffd_internal.h"

void sinew_soffd_destroy(sinew_soffd *h)
{
    if (!h) return;
    sn_env env = h->env;
    const sinew_soffd none = {0};
    sn_soffd_free_unshared(&env, h, &none);
    sn_free(&env, h);
}

/* Checks the faces and returns the number of indices, the largest face and
 * the indices as packed uint32_t (widened from the caller's type when needed).
 * Every array size (face_sizes, indices, the triangles they make) is checked
 * in bytes before anything is read, so a huge face_count fails with
 * SIZE_OVERFLOW instead of reading past the caller's arrays. */
static sinew_result check_faces(const sn_env *env, const sinew_polymesh *d, size_t *index_count, size_t *max_face,
                                size_t *triangle_bound, sn_indices *indices)
{
    size_t n_idx = 0, largest = 3, tris = 0, bytes;
    /* The largest index count whose byte size (and triangle index size, at
     * most three per index) still fits in size_t. */
    const size_t max_indices = SIZE_MAX / (3 * sizeof(uint32_t));
    if (!d->face_sizes) {
        if (!sn_mul_size(d->face_count, 3, &n_idx) || n_idx > max_indices)
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%zu driver faces (triangles) overflow the index array size",
                           d->face_count);
        tris = d->face_count;
    } else {
        if (!sn_mul_size(d->face_count, sizeof(uint32_t), &bytes))
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%zu driver face sizes overflow the face_sizes array size",
                           d->face_count);
        for (size_t f = 0; f < d->face_count; ++f) {
            uint32_t n = d->face_sizes[f];
            if (n < 3) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "driver face %zu has %u vertices (needs 3)", f, n);
            if (!sn_add_size(n_idx, n, &n_idx) || n_idx > max_indices)
                return sn_fail(SINEW_ERROR_SIZE_OVERFLOW,
                               "driver face sizes overflow the index array size at face %zu", f);
            tris += n - 2;
            if (n > largest) largest = n;
        }
    }
    if (!d->indices) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "driver indices are NULL");
    /* Ranges are checked below, per face, on the packed copy. */
    sn_indices ix;
    sinew_result r = sn_indices_read(env, d->indices, d->index_type, 0, n_idx, 1, SIZE_MAX, "driver face", &ix);
    if (r != SINEW_OK) return r;
    size_t f = 0, start = 0;
    for (size_t i = 0; i < n_idx; ++i) {
        size_t size = d->face_sizes ? d->face_sizes[f] : 3;
        if (i - start >= size) start = i, ++f;
        if (ix.data[i] >= d->positions.count) {
            r = sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "driver face %zu refers to vertex %u, but there are only %zu",
                        f, ix.data[i], d->positions.count);
            sn_indices_free(env, &ix);
            return r;
        }
    }
    *indices = ix;
    *index_count = n_idx;
    *max_face = largest;
    *triangle_bound = tris;
    return SINEW_OK;
}

sinew_result sn_soffd_build_reference_data(sinew_soffd *h)
{
    h->reference_normal =
        (float *)sn_alloc_array(&h->env, h->element_count, 3 * sizeof(float), "soffd element normals");
    if (!h->reference_normal) return sn_alloc_failure();
    for (size_t k = 0; k < h->element_count; ++k) {
        double n[3];
        const uint32_t *t = &h->elements[3 * k];
        sn_soffd_degenerate(&h->reference[3 * (size_t)t[0]], &h->reference[3 * (size_t)t[1]],
                            &h->reference[3 * (size_t)t[2]], n);
        for (int i = 0; i < 3; ++i) h->reference_normal[3 * k + i] = (float)n[i];
    }
    /* The rest frames, made exactly as sinew_soffd_element_frames makes the current ones. */
    h->reference_frame =
        (float *)sn_alloc_array(&h->env, h->element_count, 16 * sizeof(float), "soffd reference frames");
    if (!h->reference_frame) return sn_alloc_failure();
    for (size_t k = 0; k < h->element_count; ++k) {
        const uint32_t *t = &h->elements[3 * k];
        sn_soffd_element_frame(&h->reference[3 * (size_t)t[0]], &h->reference[3 * (size_t)t[1]],
                               &h->reference[3 * (size_t)t[2]], &h->reference_normal[3 * k],
                               &h->reference_frame[16 * k]);
    }
    sinew_result inv = sn_soffd_build_reference_inverse(h);
    if (inv != SINEW_OK) return inv;
    sinew_result r = sn_bvh_build(&h->bvh, &h->env, h->reference, 0, h->elements, h->element_count);
    if (r != SINEW_OK) return r;
    return sn_soffd_ring_build(h, &h->ring);
}

sinew_result sinew_soffd_create(sinew_context *ctx, const sinew_polymesh *driver, const sinew_soffd_desc *desc,
                                sinew_soffd **out)
{
    sn_clear_error();
    if (!driver || !out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", driver ? "out" : "driver");
    sinew_soffd_desc options = {0};
    if (desc) {
        sinew_result rd = sn_read_struct(&options, sizeof options, desc, "desc");
        if (rd != SINEW_OK) return rd;
    }
    if (!isfinite(options.local) || options.local < 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "local must be a finite value >= 0 (0 = 8), got %g",
                       (double)options.local);
    if (!isfinite(options.length_scale) || options.length_scale < 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "length_scale must be finite and >= 0 (0 = mean edge), got %g",
                       (double)options.length_scale);
    sinew_result r = sn_check_points(&driver->positions, "driver vertex");
    if (r == SINEW_OK) r = sn_soffd_check_domain(&driver->positions, "driver vertex");
    if (r != SINEW_OK) return r;
    if (driver->positions.count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "the driver has no vertices");
    if (driver->positions.count >= UINT32_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "the driver has %zu vertices; at most 2^32 - 2 are supported",
                       driver->positions.count);
    if (driver->face_count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "the driver has no faces");
    size_t index_count = 0, max_face = 3, tri_bound = 0, frame_bytes;
    sn_env env;
    sn_env_from_context(&env, ctx);
    sn_indices indices;
    if ((r = check_faces(&env, driver, &index_count, &max_face, &tri_bound, &indices)) != SINEW_OK) return r;
    sinew_soffd *h = NULL;
    uint32_t *scratch = NULL;
    /* sinew_soffd_element_frames hands out 16 floats per element: that array must be addressable. */
    if (!sn_mul_size(tri_bound, 16 * sizeof(float), &frame_bytes)) {
        r = sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%zu driver triangles overflow the element frame array size",
                    tri_bound);
        goto fail;
    }
    if ((r = sn_progress(&env, "soffd: bind", 0.0f)) != SINEW_OK) goto fail;
    h = (sinew_soffd *)sn_calloc(&env, sizeof *h, "the soffd handle");
    if (!h) {
        r = sn_alloc_failure();
        goto fail;
    }
    h->held_bytes = sizeof *h;
    env.held = &h->held_bytes;
    h->env = sn_env_kept(&env);
    h->vertex_count = driver->positions.count;
    h->face_count = driver->face_count;
    h->local = options.local > 0 ? options.local : SN_SOFFD_DEFAULT_LOCAL;
    h->reference = (float *)sn_alloc_array(&env, h->vertex_count, 3 * sizeof(float), "the soffd reference surface");
    h->elements = (uint32_t *)sn_alloc_array(&env, tri_bound, 3 * sizeof(uint32_t), "soffd elements");
    h->element_face = (uint32_t *)sn_alloc_array(&env, tri_bound, sizeof(uint32_t), "soffd element faces");
    h->skipped_face = (uint32_t *)sn_alloc_array(&env, tri_bound, sizeof(uint32_t), "soffd skipped faces");
    scratch = (uint32_t *)sn_alloc_array(&env, max_face, sizeof(uint32_t), "triangulation scratch");
    if (!h->reference || !h->elements || !h->element_face || !h->skipped_face || !scratch) {
        r = sn_alloc_failure();
        goto fail;
    }
    for (size_t v = 0; v < h->vertex_count; ++v) memcpy(&h->reference[3 * v], sn_point(&driver->positions, v), 12);

    /* Triangulate, check areas, and measure the mean face edge for L. */
    double edge_sum = 0;
    size_t edge_count = 0, start = 0;
    for (size_t f = 0; f < driver->face_count; ++f) {
        size_t n = driver->face_sizes ? driver->face_sizes[f] : 3;
        const uint32_t *face = &indices.data[start];
        start += n;
        for (size_t i = 0; i < n; ++i) {
            const float *p = &h->reference[3 * (size_t)face[i]], *q = &h->reference[3 * (size_t)face[(i + 1) % n]];
            double d2 = 0;
            for (int k = 0; k < 3; ++k) d2 += ((double)p[k] - q[k]) * ((double)p[k] - q[k]);
            edge_sum += sqrt(d2);
            ++edge_count;
        }
        uint32_t *tris = &h->elements[3 * h->element_count];
        size_t made = 1;
        if (n == 3) memcpy(tris, face, 3 * sizeof(uint32_t));
        else if (!sn_triangulate_polygon(h->reference, 0, face, n, tris, &made, scratch)) {
            r = sn_fail(SINEW_ERROR_INVALID_TOPOLOGY,
                        "driver face %zu (%zu vertices) cannot be triangulated: it has no area or its outline "
                        "crosses itself", f, n);
            goto fail;
        }
        for (size_t t = 0; t < made; ++t) {
            const uint32_t *c = &tris[3 * t];
            if (sn_soffd_degenerate(&h->reference[3 * (size_t)c[0]], &h->reference[3 * (size_t)c[1]],
                                    &h->reference[3 * (size_t)c[2]], NULL)) {
                if (!options.skip_degenerate) {
                    r = sn_fail(SINEW_ERROR_DEGENERATE,
                                "driver face %zu has a zero-area triangle (vertices %u, %u, %u); set "
                                "skip_degenerate to leave such triangles out", f, c[0], c[1], c[2]);
                    goto fail;
                }
                h->skipped_face[h->skipped++] = (uint32_t)f;
                continue;
            }
            uint32_t *dst = &h->elements[3 * h->element_count];
            if (dst != c) memmove(dst, c, 3 * sizeof(uint32_t));
            h->element_face[h->element_count++] = (uint32_t)f;
        }
    }
    if (h->element_count == 0) {
        r = sn_fail(SINEW_ERROR_DEGENERATE, "every triangle of the driver has zero area");
        goto fail;
    }
    h->length_scale = options.length_scale > 0 ? options.length_scale : edge_sum / (double)edge_count;
    if (!(h->length_scale > 0) || !isfinite(h->length_scale)) {
        r = sn_fail(SINEW_ERROR_DEGENERATE, "the driver's mean edge length is %g; set length_scale",
                    h->length_scale);
        goto fail;
    }
    sn_free(&env, scratch);
    scratch = NULL;
    if ((r = sn_soffd_build_reference_data(h)) != SINEW_OK) goto fail;
    if ((r = sn_progress(&env, "soffd: bind", 1.0f)) != SINEW_OK) goto fail;
    sn_indices_free(&env, &indices);
    *out = h;
    return SINEW_OK;
fail:
    sn_indices_free(&env, &indices);
    sn_free(&env, scratch);
    sinew_soffd_destroy(h);
    return r;
}

sinew_result sinew_soffd_get_info(const sinew_soffd *h, sinew_soffd_info *info)
{
    /* Leaves the thread's message alone: it is read after a failure (api.md). */
    if (!h) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "soffd is NULL");
    if (sn_check_struct_out(info, "info") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_soffd_info i = {0};
    i.vertex_count = h->vertex_count;
    i.face_count = h->face_count;
    i.element_count = h->element_count;
    i.skipped_triangles = h->skipped;
    i.local = (float)h->local;
    i.length_scale = (float)h->length_scale;
    if (h->registered) {
        const sn_soffd_reg *g = &h->reg;
        i.point_count = g->point_count;
        i.contribution_count = g->entry_count;
        i.max_set_size = g->max_set;
        for (size_t p = 0; p < g->point_count; ++p) {
            if (g->offsets[p] == g->offsets[p + 1]) ++i.empty_points;
            if (g->dropped[p] > i.max_dropped_mass) i.max_dropped_mass = g->dropped[p];
        }
    }
    i.memory_bytes = h->held_bytes;
    i.added_vertices = h->added_count;
    i.edit_count = h->edit_count;
    sn_write_struct(info, &i, sizeof i);
    return SINEW_OK;
}

sinew_result sinew_soffd_element_face(const sinew_soffd *h, size_t element, uint32_t *face)
{
    sn_clear_error();
    if (!h || !face) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", h ? "face" : "soffd");
    if (element >= h->element_count)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "element %zu, but there are only %zu", element,
                       h->element_count);
    *face = h->element_face[element];
    return SINEW_OK;
}

sinew_result sinew_soffd_skipped_faces(const sinew_soffd *h, uint32_t *faces, size_t capacity, size_t *count)
{
    sn_clear_error();
    if (!h) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "soffd is NULL");
    if (!count) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "count is NULL");
    /* faces NULL is a query; a capacity too small gets only the needed count. */
    *count = h->skipped;
    if (!faces) return SINEW_OK;
    if (capacity < h->skipped)
        return sn_fail(SINEW_ERROR_BUFFER_TOO_SMALL, "%zu triangles were skipped, capacity is %zu", h->skipped,
                       capacity);
    if (h->skipped) memcpy(faces, h->skipped_face, h->skipped * sizeof(uint32_t));
    return SINEW_OK;
}
