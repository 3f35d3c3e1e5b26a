/*
 * Fuzz target: surface-oriented FFD. Binds a fuzzed polygon driver (n-gons,
 * bad sizes and indices, degenerate faces) with fuzzed options, registers skin
 * points under every pruning policy, edits contributing sets (get, set,
 * exclude), computes element and vertex frames of a moved driver, deforms with
 * both algorithms (with and without normals), and moves the reference. The
 * driver's indices come as u32, u16 or u8.
 */
#include <math.h>

#include "fuzz.h"

static sinew_polymesh fuzz_driver(fz_reader *r)
{
    sinew_polymesh mesh = {0};
    mesh.positions = fz_points(r, fz_range(r, 0, 48));
    mesh.face_count = fz_range(r, 0, 40);
    size_t index_count = 0;
    if (fz_bool(r)) {
        uint32_t *sizes = fz_alloc(mesh.face_count * sizeof *sizes);
        for (size_t f = 0; f < mesh.face_count; f++) {
            uint8_t b = fz_u8(r);
            sizes[f] = b < 240 ? 3 + b % 4 : b % 3;   /* 3..6, sometimes 0..2 */
            index_count += sizes[f];
        }
        mesh.face_sizes = sizes;
    } else {
        index_count = 3 * mesh.face_count;
    }
    uint32_t *indices = fz_indices(r, index_count, mesh.positions.count);
    mesh.indices = indices;
    /* Narrow index types (values truncated), sometimes an unknown type. */
    mesh.index_type = (sinew_index_type)fz_enum(r, 3);
    if (mesh.index_type == SINEW_INDEX_U16) {
        uint16_t *narrow = fz_alloc(index_count * sizeof *narrow + 1);
        for (size_t i = 0; i < index_count; i++) narrow[i] = (uint16_t)indices[i];
        mesh.indices = narrow;
    } else if (mesh.index_type == SINEW_INDEX_U8) {
        uint8_t *narrow = fz_alloc(index_count + 1);
        for (size_t i = 0; i < index_count; i++) narrow[i] = (uint8_t)indices[i];
        mesh.indices = narrow;
    }
    return mesh;
}

static void contributors(fz_reader *r, sinew_soffd *soffd, size_t points, size_t elements)
{
    size_t point = fz_index(r, points);
    size_t count;
    fz_call c;
    fz_call_begin(&c, "sinew_soffd_contributor_count");
    fz_call_out(&c, &count, sizeof count, false);
    if (fz_call_end(&c, sinew_soffd_contributor_count(soffd, point, &count), 0) != SINEW_OK) count = 4;

    size_t capacity = fz_u8(r) < 200 ? count : fz_range(r, 0, 8);
    uint32_t *ids = fz_alloc(capacity * sizeof *ids + 1);
    float *weights = fz_bool(r) ? fz_alloc(capacity * sizeof *weights + 1) : NULL;
    fz_call_begin(&c, "sinew_soffd_contributors");
    fz_call_out(&c, ids, capacity * sizeof *ids, false);
    fz_call_out(&c, weights, capacity * sizeof *weights, true);
    size_t listed = 0;
    if (fz_call_end(&c, sinew_soffd_contributors(soffd, point, ids, weights, capacity, &listed), FZ_FINITE_INPUTS) ==
        SINEW_OK)
        fz_require(listed == count, "sinew_soffd_contributors", "a count other than sinew_soffd_contributor_count's");

    float mass;
    fz_call_begin(&c, "sinew_soffd_dropped_mass");
    fz_call_out(&c, &mass, sizeof mass, true);
    if (fz_call_end(&c, sinew_soffd_dropped_mass(soffd, fz_index(r, points), &mass), FZ_FINITE_INPUTS) ==
        SINEW_OK)
        fz_require(mass >= 0.0f && mass <= 1.0f, "sinew_soffd_dropped_mass", "mass outside [0, 1]");

    if (fz_bool(r)) {
        size_t set_count = fz_range(r, 0, 6);
        uint32_t *set = fz_indices(r, set_count, elements);
        fz_call_begin(&c, "sinew_soffd_set_contributors");
        fz_call_end(&c, sinew_soffd_set_contributors(soffd, fz_index(r, points), set, set_count), 0);
    }
    if (fz_bool(r)) {
        uint8_t *excluded = fz_alloc(elements);
        for (size_t e = 0; e < elements; e++) excluded[e] = fz_u8(r) & 1u;
        size_t first, n;
        fz_subrange(r, points, &first, &n);
        fz_call_begin(&c, "sinew_soffd_exclude_elements");
        fz_call_end(&c, sinew_soffd_exclude_elements(soffd, excluded, elements, first, n), 0);
    }
}

static void pose(fz_reader *r, const sinew_soffd *soffd, const sinew_soffd_info *info)
{
    sinew_points now = fz_points(r, fz_u8(r) < 240 ? info->vertex_count : fz_range(r, 0, 50));
    bool extended = fz_bool(r);
    size_t frame_count = extended ? info->vertex_count : info->element_count;
    float *frames = fz_alloc(16 * frame_count * sizeof *frames);
    fz_call c;
    fz_call_begin(&c, extended ? "sinew_soffd_vertex_frames" : "sinew_soffd_element_frames");
    fz_call_out(&c, frames, 16 * frame_count * sizeof *frames, true);
    sinew_result res = extended ? sinew_soffd_vertex_frames(soffd, &now, frames, sinew_soffd_vertex_frames_size(soffd))
                                : sinew_soffd_element_frames(soffd, &now, frames, sinew_soffd_element_frames_size(soffd));
    if (fz_call_end(&c, res, fz_finite(r)) != SINEW_OK) return;

    size_t stride = fz_stride(r, 12);
    size_t first, count;
    fz_subrange(r, info->point_count, &first, &count);
    size_t bytes = fz_span(info->point_count, stride, 12);
    float *out = fz_alloc(bytes);
    /* Normals of the registered points (sometimes of the wrong count), and their output. */
    sinew_points normal_view = {0};
    const sinew_points *normals = NULL;
    float *out_normals = NULL;
    size_t nstride = 0, nbytes = 0;
    if (fz_bool(r)) {
        normal_view = fz_points(r, fz_u8(r) < 240 ? info->point_count : fz_range(r, 0, 50));
        normals = &normal_view;
        nstride = fz_stride(r, 12);
        nbytes = fz_span(info->point_count, nstride, 12);
        if (fz_u8(r) < 245) out_normals = fz_alloc(nbytes);
    }
    fz_call_begin(&c, extended ? "sinew_soffd_deform_extended" : "sinew_soffd_deform");
    fz_call_out(&c, out, bytes, true);
    fz_call_out(&c, out_normals, nbytes, true);
    res = extended
              ? sinew_soffd_deform_extended(soffd, frames, sinew_soffd_vertex_frames_size(soffd), normals, out, stride, out_normals, nstride, first, count)
              : sinew_soffd_deform(soffd, frames, sinew_soffd_element_frames_size(soffd), normals, out, stride, out_normals, nstride, first, count);
    fz_call_end(&c, res, fz_moderate(r));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader r;
    fz_begin(&r, data, size);
    sinew_context *ctx = fz_context(&r);
    sinew_polymesh driver = fuzz_driver(&r);
    sinew_soffd_desc desc;
    SINEW_INIT(&desc);
    if (fz_bool(&r)) {
        desc.local = fz_u8(&r) < 100 ? 0.0f : fz_param(&r, -1.0f, 16.0f);
        desc.length_scale = fz_u8(&r) < 100 ? 0.0f : fz_float(&r);
        desc.skip_degenerate = fz_bool(&r);
    }
    sinew_soffd *soffd;
    fz_call c;
    fz_call_begin(&c, "sinew_soffd_create");
    fz_call_handle(&c, &soffd);
    sinew_result res = fz_call_end(&c, sinew_soffd_create(ctx, &driver, fz_u8(&r) < 230 ? &desc : NULL, &soffd), 0);
    if (fz_bool(&r)) {
        sinew_context_destroy(ctx);
        ctx = NULL;
    }
    if (res == SINEW_OK) {
        sinew_soffd_info info;
        SINEW_INIT(&info);
        fz_call_begin(&c, "sinew_soffd_get_info");
        fz_call_out_struct(&c, &info, sizeof info);
        fz_call_end(&c, sinew_soffd_get_info(soffd, &info), 0);
        fz_require(info.element_count > 0 && info.vertex_count == driver.positions.count, "sinew_soffd_get_info",
                   "counts differ from the driver");
        fz_require(isfinite(info.length_scale) && info.length_scale > 0.0f, "sinew_soffd_create",
                   "a non-finite or non-positive length scale on OK");

        uint32_t face;
        fz_call_begin(&c, "sinew_soffd_element_face");
        fz_call_out(&c, &face, sizeof face, false);
        if (fz_call_end(&c, sinew_soffd_element_face(soffd, fz_index(&r, info.element_count), &face), 0) ==
            SINEW_OK)
            fz_require(face < driver.face_count, "sinew_soffd_element_face", "face out of range");

        size_t cap = fz_range(&r, 0, 8);
        uint32_t *skipped = fz_alloc(cap * sizeof *skipped + 1);
        fz_call_begin(&c, "sinew_soffd_skipped_faces");
        fz_call_out(&c, skipped, cap * sizeof *skipped, false);
        size_t skipped_count = 0;
        fz_call_end(&c, sinew_soffd_skipped_faces(soffd, skipped, cap, &skipped_count), 0);

        for (int round = fz_range(&r, 1, 2); round > 0; round--) {
            sinew_points skin = fz_points(&r, fz_range(&r, 0, 48));
            sinew_soffd_register_desc policy;
            SINEW_INIT(&policy);
            policy.weight_threshold = fz_u8(&r) < 128 ? 0.0f : fz_param(&r, -0.1f, 1.1f);
            policy.max_contributors = fz_u8(&r) < 128 ? 0 : fz_range(&r, 0, 8);
            policy.max_distance = fz_u8(&r) < 128 ? 0.0f : fz_param(&r, -1.0f, 8.0f);
            uint8_t mode = fz_u8(&r);
            policy.exclusive = mode >= 220;
            policy.exact = mode >= 100 && mode < 160; /* with stray pruning fields: refused */
            fz_call_begin(&c, "sinew_soffd_register");
            res = fz_call_end(&c, sinew_soffd_register(NULL, soffd, &skin, fz_bool(&r) ? &policy : NULL), 0);
            fz_call_begin(&c, "sinew_soffd_get_info");
            fz_call_end(&c, sinew_soffd_get_info(soffd, &info), 0);
            fz_require(isfinite(info.max_dropped_mass) && info.max_dropped_mass >= 0.0f &&
                           info.max_dropped_mass <= 1.0f,
                       "sinew_soffd_get_info", "max_dropped_mass outside [0, 1]");
            contributors(&r, soffd, info.point_count, info.element_count);
            pose(&r, soffd, &info);
            if (fz_bool(&r)) {
                sinew_points reference = fz_points(&r, fz_u8(&r) < 240 ? info.vertex_count : fz_range(&r, 0, 50));
                fz_call_begin(&c, "sinew_soffd_set_reference");
                fz_call_end(&c, sinew_soffd_set_reference(NULL, soffd, &reference), 0);
            }
        }
        sinew_soffd_destroy(soffd);
    }
    sinew_context_destroy(ctx);
    fz_end();
    return 0;
}
