/*
 * Fuzz target: drivers made from the skin. Decimates a fuzzed polygon skin
 * (n-gons, bad sizes and indices, repeated and degenerate vertices that weld)
 * with fuzzed targets, tolerances and a fuzzed skeleton (bad joints, bones
 * out of range or joining a joint to itself), asking for the sizes or for the
 * driver into buffers of fuzzed capacity. On OK the driver's indices are in
 * range, its positions finite and its counts those of the report.
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"

static sinew_polymesh fuzz_skin(fz_reader *r)
{
    sinew_polymesh mesh = {0};
    mesh.positions = fz_points(r, fz_range(r, 0, 48));
    mesh.face_count = fz_range(r, 0, 48);
    size_t index_count = 0;
    if (fz_bool(r)) {
        uint32_t *sizes = fz_alloc(mesh.face_count * sizeof *sizes);
        for (size_t f = 0; f < mesh.face_count; f++) {
            uint8_t b = fz_u8(r);
            sizes[f] = b < 240 ? 3 + b % 3 : b % 3;   /* 3..5, sometimes 0..2 */
            index_count += sizes[f];
        }
        mesh.face_sizes = sizes;
    } else {
        index_count = 3 * mesh.face_count;
    }
    mesh.indices = fz_indices(r, index_count, mesh.positions.count);
    if (fz_u8(r) >= 250) mesh.index_type = (sinew_index_type)fz_enum(r, 3);
    return mesh;
}

static void fuzz_skeleton(fz_reader *r, sinew_soffd_driver_desc *d)
{
    d->joint_positions = fz_points(r, fz_range(r, 0, 6));
    d->bone_count = fz_range(r, 0, 6);
    d->bones = fz_indices(r, 2 * d->bone_count, d->joint_positions.count);
    if (fz_u8(r) >= 250) d->bones = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader r;
    fz_begin(&r, data, size);
    sinew_context *ctx = fz_context(&r);
    sinew_polymesh skin = fuzz_skin(&r);
    sinew_soffd_driver_desc desc;
    SINEW_INIT(&desc);
    desc.target_triangle_count = fz_range(&r, 0, 40);
    if (fz_bool(&r)) desc.max_error = fz_u8(&r) < 100 ? 0.0f : fz_param(&r, -0.1f, 0.5f);
    if (fz_bool(&r)) desc.weld_tolerance = fz_param(&r, -0.01f, 0.2f);
    if (fz_bool(&r)) {
        fuzz_skeleton(&r, &desc);
        desc.joint_emphasis = fz_u8(&r) < 128 ? 0.0f : fz_param(&r, -1.0f, 20.0f);
        desc.joint_radius = fz_u8(&r) < 128 ? 0.0f : fz_param(&r, -1.0f, 2.0f);
    }
    bool sizes_only = fz_bool(&r);
    size_t position_capacity = sizes_only ? 0 : fz_range(&r, 0, 60);
    size_t triangle_capacity = sizes_only ? 0 : fz_range(&r, 0, 80);
    float *positions = sizes_only ? NULL : fz_alloc(position_capacity * 3 * sizeof(float) + 4);
    uint32_t *triangles = sizes_only ? NULL : fz_alloc(triangle_capacity * 3 * sizeof(uint32_t) + 4);
    sinew_soffd_driver_report report;
    fz_call c;
    fz_call_begin(&c, "sinew_soffd_driver_from_skin");
    if (!sizes_only) {
        fz_call_out(&c, positions, position_capacity * 3 * sizeof(float), true);
        fz_call_out(&c, triangles, triangle_capacity * 3 * sizeof(uint32_t), false);
    }
    /* The report is watched by hand: BUFFER_TOO_SMALL fills it (only it), any
     * other failure leaves it as it was. */
    SINEW_INIT(&report);
    memset((unsigned char *)&report + sizeof report.struct_size, 0xA5, sizeof report - sizeof report.struct_size);
    sinew_soffd_driver_report report_before = report;
    sinew_result res = sinew_soffd_driver_from_skin(ctx, &skin, &desc, positions, position_capacity, triangles,
                                                    triangle_capacity, &report);
    if (res == SINEW_ERROR_BUFFER_TOO_SMALL)
        fz_require(report.vertex_count > position_capacity || report.triangle_count > triangle_capacity,
                   "sinew_soffd_driver_from_skin", "BUFFER_TOO_SMALL with buffers that fit");
    else if (res != SINEW_OK)
        fz_require(memcmp(&report, &report_before, sizeof report) == 0, "sinew_soffd_driver_from_skin",
                   "the report changed on failure");
    if (fz_call_end(&c, res, fz_finite(&r)) == SINEW_OK) {
        fz_require(report.triangle_count > 0 && report.vertex_count >= 3, "sinew_soffd_driver_from_skin",
                   "an empty driver on OK");
        fz_require(isfinite(report.skin_to_driver_distance) && isfinite(report.driver_to_skin_distance) &&
                       report.skin_to_driver_distance >= 0 && report.driver_to_skin_distance >= 0,
                   "sinew_soffd_driver_from_skin", "a bad distance in the report");
        for (size_t k = 0; triangles && k < 3 * report.triangle_count; k++)
            fz_require(triangles[k] < report.vertex_count, "sinew_soffd_driver_from_skin",
                       "triangle index %u of %zu vertices", triangles[k], report.vertex_count);
    }
    sinew_context_destroy(ctx);
    fz_end();
    return 0;
}
