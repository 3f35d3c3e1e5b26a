/*
 * Fuzz target: skinning. Creates a skin with every storage, blend, normals,
 * kernel and unweighted option (valid and not), from joints and weights in
 * every input format (u8/u16/u32, float/unorm, packed or strided), then
 * computes a palette, deforms vertex ranges with fuzzed streams, strides and
 * alignments, reads the per-vertex matrices and the influences back.
 */
#include <string.h>

#include "fuzz.h"

/* An affine column-major 4x4 matrix, its last row sometimes broken. */
static float *fuzz_matrices(fz_reader *r, size_t count)
{
    float *m = fz_alloc(count * 16 * sizeof *m);
    bool break_rows = fz_u8(r) >= 240;
    for (size_t j = 0; j < count; j++) {
        for (int c = 0; c < 4; c++) {
            for (int row = 0; row < 3; row++) m[16 * j + 4 * c + row] = fz_float(r);
            m[16 * j + 4 * c + 3] = c == 3 ? 1.0f : 0.0f;
        }
        if (break_rows) m[16 * j + 4 * fz_range(r, 0, 3) + 3] = fz_float(r);
    }
    return m;
}

/* A buffer of count elements of `packed` bytes at a fuzzed stride, sometimes
 * misaligned by 4 bytes; *stride receives the stride. */
static float *fuzz_stream(fz_reader *r, size_t count, size_t packed, size_t *stride, bool fill)
{
    *stride = fz_stride(r, packed);
    bool misalign = fz_u8(r) >= 250;
    size_t bytes = fz_span(count, *stride, packed) + (misalign ? 4 : 0);
    unsigned char *buf = fz_alloc(bytes);
    memset(buf, 0, bytes);
    float *data = (float *)(buf + (misalign ? 2 : 0));
    if (fill) {
        size_t step = *stride ? *stride : packed;
        for (size_t i = 0; i < count; i++) {
            for (size_t c = 0; c < packed / sizeof(float); c++) {
                float v = fz_float(r);
                if (i * step + (c + 1) * sizeof v <= bytes - (misalign ? 2 : 0))
                    memcpy((unsigned char *)data + i * step + c * sizeof v, &v, sizeof v);
            }
        }
    }
    return data;
}

/* Re-encodes the drawn u32 joints and float weights in a fuzzed format:
 * u8/u16/u32 joints (values truncated to the type), float or normalised
 * weights (rounded, so sums stray as an exporter's do), packed or in padded
 * records, sometimes at a bad stride, misaligned, or of an unknown type. */
static void fuzz_formats(fz_reader *r, sinew_skin_desc *d, const uint32_t *joints, const float *weights, size_t slots)
{
    const size_t k = d->influence_count, n = d->vertex_count;
    d->joint_type = (sinew_index_type)fz_enum(r, 3);
    d->weight_type = (sinew_skin_weight_type)fz_enum(r, 3);
    const size_t js = d->joint_type == SINEW_INDEX_U16 ? 2 : d->joint_type == SINEW_INDEX_U8 ? 1 : 4;
    const size_t ws = d->weight_type == SINEW_SKIN_WEIGHT_UNORM16 ? 2 : d->weight_type == SINEW_SKIN_WEIGHT_UNORM8 ? 1 : 4;
    uint8_t layout = fz_u8(r);
    /* Packed, or records padded by 1..3 elements; sometimes an invalid stride. */
    size_t jstride = layout & 1u ? (k + 1 + layout % 3) * js : 0, wstride = layout & 2u ? (k + 1 + layout % 3) * ws : 0;
    if (layout >= 250) jstride = k * js > 0 ? k * js - 1 : 1;
    if (layout >= 245 && layout < 250) wstride = ws + 1;
    size_t jstep = jstride && jstride >= k * js ? jstride : k * js, wstep = wstride && wstride >= k * ws ? wstride : k * ws;
    bool misalign = fz_u8(r) >= 250;
    unsigned char *jb = fz_alloc(n * jstep + 8), *wb = fz_alloc(n * wstep + 8);
    memset(jb, 0xEE, n * jstep + 8);
    memset(wb, 0xEE, n * wstep + 8);
    for (size_t i = 0; i < slots; i++) {
        size_t v = i / k, s = i % k;
        unsigned char *jp = jb + v * jstep + s * js, *wp = wb + v * wstep + s * ws;
        uint32_t j = joints[i];
        if (js == 2) {
            uint16_t x = (uint16_t)j;
            memcpy(jp, &x, 2);
        } else if (js == 1) {
            *jp = (uint8_t)j;
        } else {
            memcpy(jp, &j, 4);
        }
        float w = weights[i];
        if (ws == 4) {
            memcpy(wp, &w, 4);
        } else {
            double full = ws == 2 ? 65535.0 : 255.0, q = w > 0 ? (w < 1 ? w * full + 0.5 : full) : 0;
            uint16_t x = (uint16_t)q;
            if (ws == 2) memcpy(wp, &x, 2);
            else *wp = (uint8_t)x;
        }
    }
    d->joints = jb + (misalign && js > 1 ? 1 : 0);
    d->weights = wb;
    d->joint_stride = jstride;
    d->weight_stride = wstride;
}

/* The blended per-vertex matrices of a range at a fuzzed stride. */
static void vertex_matrices(fz_reader *r, const sinew_skin *skin, const float *palette, size_t palette_floats,
                            size_t vertex_count)
{
    size_t stride = fz_stride(r, 64), first, count;
    fz_subrange(r, vertex_count, &first, &count);
    size_t bytes = fz_span(vertex_count, stride, 64);
    float *out = fz_alloc(bytes);
    fz_call c;
    fz_call_begin(&c, "sinew_skin_vertex_matrices");
    fz_call_out(&c, out, bytes, true);
    fz_call_end(&c, sinew_skin_vertex_matrices(skin, palette, palette_floats, out, stride, first, count),
                fz_moderate(r));
}

static void pose(fz_reader *r, const sinew_skin *skin, size_t vertex_count, size_t joint_count)
{
    size_t palette_floats = sinew_skin_palette_size(skin);
    fz_require(palette_floats > 0, "sinew_skin_palette_size", "zero for a valid skin");
    size_t world_count = fz_u8(r) < 240 ? joint_count : fz_range(r, 0, 20);
    size_t palette_given = fz_u8(r) < 240 ? palette_floats : fz_range(r, 0, 3) * 16;
    float *world = fuzz_matrices(r, world_count ? world_count : 1);
    unsigned char *palette_buf = fz_alloc(palette_floats * sizeof(float) + 128);
    /* 64-byte aligned most of the time, 4 off sometimes. */
    uintptr_t at = ((uintptr_t)palette_buf + 63) & ~(uintptr_t)63;
    float *palette = (float *)(at + (fz_u8(r) >= 250 ? 4 : 0));
    size_t palette_bytes = (palette_given < palette_floats ? palette_given : palette_floats) * sizeof(float);

    fz_call c;
    fz_call_begin(&c, "sinew_skin_palette");
    fz_call_out(&c, palette, palette_bytes, true);
    if (fz_call_end(&c, sinew_skin_palette(skin, world, world_count, palette, palette_given), fz_finite(r)) !=
        SINEW_OK)
        return;

    for (int round = fz_range(r, 1, 3); round > 0; round--) {
        sinew_skin_input in = {0};
        sinew_skin_output out = {0};
        uint8_t streams = fz_u8(r);
        in.positions = fuzz_stream(r, vertex_count, 12, &in.position_stride, true);
        if (streams & 1u) in.normals = fuzz_stream(r, vertex_count, 12, &in.normal_stride, true);
        if (streams & 2u) in.tangents = fuzz_stream(r, vertex_count, 16, &in.tangent_stride, true);
        if (streams & 4u) {   /* in place */
            out.positions = (float *)in.positions;
            out.position_stride = in.position_stride;
        } else if (!(streams & 8u)) {
            out.positions = fuzz_stream(r, vertex_count, 12, &out.position_stride, false);
        }
        if (streams & 16u) out.normals = fuzz_stream(r, vertex_count, 12, &out.normal_stride, false);
        if (streams & 32u) out.tangents = fuzz_stream(r, vertex_count, 16, &out.tangent_stride, false);
        size_t first, count;
        fz_subrange(r, vertex_count, &first, &count);
        size_t given = fz_u8(r) < 245 ? palette_floats : palette_floats + 16;

        fz_call_begin(&c, "sinew_skin_deform");
        if (out.positions == in.positions) {
            fz_call_inout(&c, out.positions, fz_span(vertex_count, out.position_stride, 12), true);
        } else {
            fz_call_out(&c, out.positions, fz_span(vertex_count, out.position_stride, 12), true);
        }
        fz_call_out(&c, out.normals, fz_span(vertex_count, out.normal_stride, 12), true);
        fz_call_out(&c, out.tangents, fz_span(vertex_count, out.tangent_stride, 16), true);
        /* Non-finite inputs may give non-finite outputs, and so may values near
         * FLT_MAX: deform does plain float arithmetic and does not validate. */
        fz_call_end(&c, sinew_skin_deform(skin, palette, given, &in, &out, first, count), fz_moderate(r));
    }
    vertex_matrices(r, skin, palette, fz_u8(r) < 245 ? palette_floats : palette_floats + 16, vertex_count);
}

static void influences(fz_reader *r, const sinew_skin *skin, size_t vertex_count)
{
    size_t vertex = fz_index(r, vertex_count);
    size_t capacity = fz_range(r, 0, 12);
    uint32_t *joints = fz_u8(r) < 200 ? fz_alloc(capacity * sizeof *joints + 1) : NULL;
    float *weights = fz_u8(r) < 200 ? fz_alloc(capacity * sizeof *weights + 1) : NULL;
    size_t count = 0;   /* written on OK and BUFFER_TOO_SMALL alike, so not checked as an output */
    fz_call c;
    fz_call_begin(&c, "sinew_skin_vertex_influences");
    fz_call_out(&c, joints, capacity * sizeof *joints, false);
    fz_call_out(&c, weights, capacity * sizeof *weights, true);
    if (fz_call_end(&c, sinew_skin_vertex_influences(skin, vertex, joints, weights, capacity, &count),
                    FZ_FINITE_INPUTS) != SINEW_OK)
        return;
    if (weights) {
        for (size_t i = 1; i < count && i < capacity; i++)
            fz_require(weights[i] <= weights[i - 1], "sinew_skin_vertex_influences", "weights not sorted");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader r;
    fz_begin(&r, data, size);
    sinew_context *ctx = fz_context(&r);

    sinew_skin_desc desc;
    SINEW_INIT(&desc);
    desc.vertex_count = fz_range(&r, 0, 64);
    desc.joint_count = fz_u8(&r) < 250 ? fz_range(&r, 0, 24) : 65537;
    desc.influence_count = fz_range(&r, 0, 9);
    size_t slots = desc.vertex_count * desc.influence_count;
    size_t joints_limit = desc.joint_count < 300 ? desc.joint_count : 300;
    uint32_t *joints = fz_indices(&r, slots, joints_limit);
    desc.joints = joints;
    float *weights = fz_alloc(slots * sizeof *weights);
    for (size_t i = 0; i < slots; i++) weights[i] = fz_weight(&r);
    desc.weights = weights;
    if (fz_bool(&r) && desc.joint_count <= 64) desc.inverse_bind = fuzz_matrices(&r, desc.joint_count);
    desc.renormalise = fz_bool(&r);
    desc.weight_tolerance = fz_u8(&r) < 128 ? 0.0f : fz_param(&r, -0.01f, 0.5f);
    desc.unweighted = (sinew_skin_unweighted)fz_enum(&r, 2);
    desc.unweighted_joint = fz_index(&r, desc.joint_count);
    desc.storage = (sinew_skin_storage)fz_enum(&r, 2);
    desc.blend = (sinew_skin_blend)fz_enum(&r, 3);
    if (fz_u8(&r) < 220) {
        float *dq = fz_alloc(desc.vertex_count * sizeof *dq);
        for (size_t v = 0; v < desc.vertex_count; v++) dq[v] = fz_param(&r, -0.05f, 1.05f);
        desc.dq_blend = dq;
    }
    desc.normals = (sinew_skin_normals)fz_enum(&r, 2);
    desc.kernel = (sinew_skin_kernel)fz_enum(&r, 5);
    if (fz_bool(&r)) fuzz_formats(&r, &desc, joints, weights, slots);
    if (fz_u8(&r) >= 250) desc.joints = NULL;

    sinew_skin *skin;
    fz_call c;
    fz_call_begin(&c, "sinew_skin_create");
    fz_call_handle(&c, &skin);
    sinew_result res = fz_call_end(&c, sinew_skin_create(ctx, fz_u8(&r) < 252 ? &desc : NULL, &skin), 0);
    /* The skin keeps a copy of the allocator: the context may go first. */
    if (fz_bool(&r)) {
        sinew_context_destroy(ctx);
        ctx = NULL;
    }
    if (res == SINEW_OK) {
        sinew_skin_info info;
        SINEW_INIT(&info);
        fz_call_begin(&c, "sinew_skin_get_info");
        fz_call_end(&c, sinew_skin_get_info(skin, &info), 0);
        fz_require(info.vertex_count == desc.vertex_count && info.joint_count == desc.joint_count &&
                       info.kernel != SINEW_SKIN_KERNEL_AUTO,
                   "sinew_skin_get_info", "counts or kernel differ from the desc");
        pose(&r, skin, desc.vertex_count, desc.joint_count);
        influences(&r, skin, desc.vertex_count);
        sinew_skin_destroy(skin);
    }
    sinew_context_destroy(ctx);
    fz_end();
    return 0;
}
