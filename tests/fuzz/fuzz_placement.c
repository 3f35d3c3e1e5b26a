/*
 * Fuzz target: lattice placement. Builds a placement over a fuzzed scene (a
 * small height field, sometimes with loose triangles and bad indices) along a
 * fuzzed path with every path kind, volume, miss policy and profile option,
 * then relaxes it (small step caps), pushes and presses control points, maps a
 * model box and deforms model points.
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"

/* A grid of n x n vertices over [-4, 4]^2 at fuzzed heights, plus loose triangles. */
static sinew_trimesh fuzz_scene(fz_reader *r)
{
    uint32_t n = fz_range(r, 2, 6);
    size_t loose = fz_u8(r) < 200 ? 0 : fz_range(r, 1, 4);
    size_t vertex_count = (size_t)n * n + 3 * loose;
    float *p = fz_alloc(3 * vertex_count * sizeof *p);
    for (uint32_t j = 0; j < n; j++) {
        for (uint32_t i = 0; i < n; i++) {
            float *v = p + 3 * (j * n + i);
            v[0] = -4.0f + 8.0f * (float)i / (float)(n - 1);
            v[1] = -4.0f + 8.0f * (float)j / (float)(n - 1);
            v[2] = fz_u8(r) < 200 ? fz_param(r, -1.0f, 1.0f) : fz_float(r);
        }
    }
    for (size_t k = 0; k < 9 * loose; k++) p[3 * (size_t)n * n + k] = fz_float(r);
    size_t triangle_count = 2 * (size_t)(n - 1) * (n - 1) + loose;
    uint32_t *idx = fz_alloc(3 * triangle_count * sizeof *idx);
    size_t t = 0;
    for (uint32_t j = 0; j + 1 < n; j++) {
        for (uint32_t i = 0; i + 1 < n; i++) {
            uint32_t a = j * n + i, b = a + 1, c = a + n, d = c + 1;
            uint32_t quad[6] = {a, b, d, a, d, c};
            for (int k = 0; k < 6; k++) idx[3 * t + k] = quad[k];
            t += 2;
        }
    }
    for (size_t k = 0; k < loose; k++, t++)
        for (int m = 0; m < 3; m++) idx[3 * t + m] = fz_index(r, vertex_count);
    return (sinew_trimesh){.positions = {.data = p, .count = vertex_count}, .indices = idx,
                           .triangle_count = triangle_count};
}

static sinew_placement_scalar fuzz_scalar(fz_reader *r)
{
    sinew_placement_scalar s = {0};
    if (fz_u8(r) < 170) return s;
    s.count[0] = fz_u8(r) < 240 ? fz_range(r, 1, 6) : 300;
    s.count[1] = fz_range(r, 0, 4);
    size_t n = (size_t)s.count[0] * (s.count[1] ? s.count[1] : 1);
    float *v = fz_alloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = fz_u8(r) < 240 ? fz_param(r, 0.1f, 3.0f) : fz_float(r);
    s.values = v;
    return s;
}

static void edit(fz_reader *r, sinew_placement *placement, const sinew_placement_info *info)
{
    fz_call c;
    switch (fz_u8(r) % 3) {
    case 0: {
        sinew_placement_relax_desc desc;
        SINEW_INIT(&desc);
        desc.stiffness = fz_u8(r) < 128 ? 0.0f : fz_param(r, -1.0f, 10.0f);
        desc.mass = fz_u8(r) < 128 ? 0.0f : fz_param(r, -1.0f, 10.0f);
        desc.damping = fz_u8(r) < 128 ? 0.0f : fz_param(r, -1.0f, 10.0f);
        desc.angle_degrees = fz_u8(r) < 128 ? 0.0f : fz_param(r, -10.0f, 200.0f);
        desc.neighbourhood = fz_u8(r) < 200 ? fz_range(r, 0, 3) : fz_range(r, 60, 70);
        desc.max_steps = fz_range(r, 1, 200);   /* 0 would mean 20000: too slow per input */
        sinew_placement_relax_report report;
        SINEW_INIT(&report);
        fz_call_begin(&c, "sinew_placement_relax");
        fz_call_out_struct(&c, &report, sizeof report);
        sinew_result res = sinew_placement_relax(NULL, placement, &desc, fz_bool(r) ? &report : NULL);
        /* NOT_CONVERGED keeps the relaxed state and fills the report. */
        fz_call_end(&c, res, FZ_FILLS_ON_NOT_CONVERGED);
        break;
    }
    case 1: {
        uint32_t i = fz_index(r, info->count[0]), j = fz_index(r, info->count[1]);
        fz_call_begin(&c, "sinew_placement_push");
        fz_call_end(&c, sinew_placement_push(placement, i, j, fz_float(r)), 0);
        break;
    }
    default: {
        sinew_placement_press_desc desc;
        SINEW_INIT(&desc);
        for (int k = 0; k < 3; k++) desc.center[k] = fz_float(r);
        desc.radius = fz_float(r);
        desc.depth = fz_float(r);
        desc.falloff = (sinew_placement_falloff)fz_enum(r, 3);
        size_t pressed;
        fz_call_begin(&c, "sinew_placement_press");
        fz_call_out(&c, &pressed, sizeof pressed, false);
        fz_call_end(&c, sinew_placement_press(placement, &desc, fz_bool(r) ? &pressed : NULL), 0);
        break;
    }
    }
}

static void query(fz_reader *r, const sinew_placement *placement, const sinew_placement_info *info)
{
    size_t columns = (size_t)info->count[0] * info->count[1];
    size_t first, count;
    fz_subrange(r, columns, &first, &count);
    bool lifts = fz_bool(r);
    size_t packed = lifts ? 4 : 12;
    size_t stride = fz_stride(r, packed);
    size_t n = count < columns ? count : columns;
    /* Outputs are indexed by column number: [0, first + n) (none past the columns). */
    size_t bytes = first <= columns ? fz_span(first + n, stride, packed) : 0;
    float *out = fz_alloc(bytes);
    fz_call c;
    fz_call_begin(&c, lifts ? "sinew_placement_lifts" : "sinew_placement_directions");
    fz_call_out(&c, out, bytes, true);
    fz_call_end(&c,
                lifts ? sinew_placement_lifts(placement, out, stride, first, count)
                      : sinew_placement_directions(placement, out, stride, first, count),
                fz_finite(r));
}

static void animate(fz_reader *r, const sinew_placement *placement)
{
    sinew_placement_map_desc desc;
    SINEW_INIT(&desc);
    for (int k = 0; k < 3; k++) {
        desc.box_min[k] = fz_float(r);
        desc.box_max[k] = fz_bool(r) ? desc.box_min[k] + fz_param(r, 0.0f, 4.0f) : fz_float(r);
    }
    desc.fraction = fz_u8(r) < 100 ? 0.0f : fz_param(r, -0.1f, 1.1f);
    desc.offset = fz_param(r, -0.1f, 1.1f);
    sinew_placement_map map;
    fz_call c;
    fz_call_begin(&c, "sinew_placement_map_model");
    fz_call_out(&c, &map, sizeof map, true);
    if (fz_call_end(&c, sinew_placement_map_model(placement, &desc, &map), fz_finite(r)) != SINEW_OK) {
        for (int k = 0; k < 3; k++) map.scale[k] = fz_float(r), map.offset[k] = fz_float(r);
    }
    sinew_points model = fz_points(r, fz_range(r, 0, 32));
    size_t first, count;
    fz_subrange(r, model.count, &first, &count);
    size_t stride = fz_stride(r, 12);
    size_t bytes = fz_span(model.count, stride, 12);
    float *out = fz_alloc(bytes);
    fz_call_begin(&c, "sinew_placement_deform");
    fz_call_out(&c, out, bytes, true);
    fz_call_end(&c, sinew_placement_deform(placement, &map, &model, out, stride, first, count), fz_moderate(r));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader r;
    fz_begin(&r, data, size);
    sinew_context *ctx = fz_context(&r);
    sinew_placement_desc desc;
    SINEW_INIT(&desc);
    desc.scene = fuzz_scene(&r);
    desc.path = fz_points(&r, fz_range(&r, 0, 8));
    /* Paths above the scene: the view looks down -z by default. */
    for (size_t i = 0; i < desc.path.count && fz_u8(&r) < 230; i++) {
        const float up = 5.0f;
        unsigned char *p = (unsigned char *)desc.path.data + i * (desc.path.stride ? desc.path.stride : 12);
        if (desc.path.stride == 0 || desc.path.stride >= 12) memcpy(p + 8, &up, sizeof up);
    }
    desc.path_kind = (sinew_placement_path_kind)fz_enum(&r, 2);
    desc.path_order = fz_u8(&r) < 128 ? 0 : fz_range(&r, 1, 9);
    if (fz_u8(&r) >= 200)
        for (int k = 0; k < 3; k++) desc.view[k] = fz_float(&r);
    desc.width = fz_u8(&r) < 230 ? fz_param(&r, 0.05f, 2.0f) : fz_float(&r);
    desc.width_scale = fuzz_scalar(&r);
    desc.height = fz_u8(&r) < 230 ? fz_param(&r, 0.05f, 2.0f) : fz_float(&r);
    desc.height_scale = fuzz_scalar(&r);
    for (int a = 0; a < 3; a++) {
        desc.order[a] = fz_u8(&r) < 128 ? 2 : fz_range(&r, 0, 9);
        /* Small lattices: 0 would mean 24 x 6 with cubic order. */
        desc.count[a] = fz_u8(&r) < 250 ? fz_range(&r, 1, 8) : 5000;
    }
    desc.oversample = fz_range(&r, 0, 3);
    desc.volume = (sinew_placement_volume)fz_enum(&r, 2);
    desc.miss = (sinew_placement_miss)fz_enum(&r, 3);
    desc.miss_depth = fz_param(&r, -1.0f, 10.0f);
    desc.outside = (sinew_lattice_outside)fz_enum(&r, 3);

    sinew_placement *placement;
    fz_call c;
    fz_call_begin(&c, "sinew_placement_create");
    fz_call_handle(&c, &placement);
    sinew_result res = fz_call_end(&c, sinew_placement_create(ctx, &desc, &placement), 0);
    if (fz_bool(&r)) {
        sinew_context_destroy(ctx);
        ctx = NULL;
    }
    if (res == SINEW_OK) {
        sinew_placement_info info;
        SINEW_INIT(&info);
        fz_call_begin(&c, "sinew_placement_get_info");
        fz_call_end(&c, sinew_placement_get_info(placement, &info), 0);
        fz_require(sinew_placement_lattice(placement) != NULL, "sinew_placement_lattice", "NULL for a placement");
        if (!r.nonfinite)
            fz_require(isfinite(info.contact_length) && isfinite(info.path_length) && isfinite(info.max_width) &&
                           isfinite(info.max_height),
                       "sinew_placement_create", "non-finite lengths in the info from finite inputs");
        for (int steps = fz_range(&r, 1, 4); steps > 0; steps--) {
            switch (fz_u8(&r) % 3) {
            case 0: edit(&r, placement, &info); break;
            case 1: query(&r, placement, &info); break;
            default: animate(&r, placement); break;
            }
        }
        sinew_placement_destroy(placement);
    }
    sinew_context_destroy(ctx);
    fz_end();
    return 0;
}
