/*
 * Fuzz target: B-spline lattices. Creates a small lattice with fuzzed counts,
 * orders, box and outside policy; sets control points or displacements;
 * reads them back; maps points to parameters, evaluates, deforms (with
 * normals); binds points and deforms them bound; checks folds; refines a mesh
 * under both tests and splits; and bounds segments.
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"

static sinew_result create(fz_reader *r, sinew_context *ctx, sinew_lattice **out)
{
    sinew_lattice_desc desc;
    SINEW_INIT(&desc);
    for (int a = 0; a < 3; a++) {
        desc.order[a] = fz_u8(r) < 100 ? 0 : fz_range(r, 1, 9);
        desc.count[a] = fz_u8(r) < 100 ? 0 : fz_range(r, 1, 8);
        desc.origin[a] = fz_float(r);
        desc.extents[a] = fz_u8(r) < 64 ? 0.0f : fz_float(r);
    }
    if (fz_bool(r)) {
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < 3; k++) desc.axes[a][k] = fz_float(r);
    }
    desc.outside = (sinew_lattice_outside)fz_enum(r, 3);
    fz_call c;
    fz_call_begin(&c, "sinew_lattice_create");
    fz_call_handle(&c, out);
    return fz_call_end(&c, sinew_lattice_create(ctx, fz_u8(r) < 250 ? &desc : NULL, out), 0);
}

static void control_points(fz_reader *r, sinew_lattice *lattice, size_t point_count)
{
    size_t first = fz_u8(r) < 240 ? fz_range(r, 0, (uint32_t)point_count) : point_count + 1;
    size_t left = first < point_count ? point_count - first : 0;
    sinew_points values = fz_points(r, fz_u8(r) < 240 ? fz_range(r, 0, (uint32_t)(left < 64 ? left : 64)) : left + 1);
    fz_call c;
    fz_call_begin(&c, "sinew_lattice_set_points");
    bool points = fz_bool(r);
    /* Inputs are read at the control point's index: the values sit at [first, first + n) of a view whose
     * head is NaN, so a read outside the range shows as a NON_FINITE failure. */
    sinew_points view = values;
    if (first <= point_count && values.count > 0) {
        size_t stride = values.stride ? values.stride : 3 * sizeof(float);
        float *whole = fz_alloc((first + values.count) * stride);
        for (size_t i = 0; i < first * stride / sizeof(float); i++) whole[i] = NAN;
        memcpy((char *)whole + first * stride, values.data, values.count * stride);
        view.data = whole;
        view.count = first + values.count;
    }
    size_t count = values.count;
    sinew_result res = points ? sinew_lattice_set_points(lattice, &view, first, count)
                              : sinew_lattice_set_displacements(lattice, &view, first, count);
    fz_call_end(&c, res, 0);

    for (int which = 0; which < 3; which++) {
        size_t stride = fz_stride(r, 12);
        size_t f, n;
        fz_subrange(r, point_count, &f, &n);
        /* Outputs are indexed by control point: [0, f + n) (none past the lattice). */
        size_t span = f <= point_count ? f + (n < point_count ? n : point_count) : 0;
        size_t bytes = fz_span(span, stride, 12);
        float *out = fz_alloc(bytes);
        fz_call_begin(&c, which == 0 ? "sinew_lattice_rest_points"
                          : which == 1 ? "sinew_lattice_points" : "sinew_lattice_displacements");
        fz_call_out(&c, out, bytes, true);
        res = which == 0 ? sinew_lattice_rest_points(lattice, out, stride, f, n)
            : which == 1 ? sinew_lattice_points(lattice, out, stride, f, n)
                         : sinew_lattice_displacements(lattice, out, stride, f, n);
        fz_call_end(&c, res, fz_moderate(r));
    }
}

static void evaluate(fz_reader *r, const sinew_lattice *lattice)
{
    sinew_points pts = fz_points(r, fz_range(r, 0, 32));
    sinew_points normals = fz_points(r, fz_u8(r) < 240 ? pts.count : fz_range(r, 0, 32));
    size_t first, count;
    fz_subrange(r, pts.count, &first, &count);
    size_t s1 = fz_stride(r, 12), s2 = fz_stride(r, 36);
    size_t b1 = fz_span(pts.count, s1, 12), b2 = fz_span(pts.count, s2, 36);
    float *out1 = fz_alloc(b1), *out2 = fz_alloc(b2);
    uint8_t which = fz_u8(r) % 3;
    fz_call c;
    sinew_result res;
    if (which == 0) {
        fz_call_begin(&c, "sinew_lattice_parameters");
        fz_call_out(&c, out1, b1, true);
        res = sinew_lattice_parameters(lattice, &pts, out1, s1, first, count);
    } else if (which == 1) {
        bool want_pos = fz_bool(r), want_jac = fz_bool(r);
        fz_call_begin(&c, "sinew_lattice_evaluate");
        fz_call_out(&c, want_pos ? out1 : NULL, b1, true);
        fz_call_out(&c, want_jac ? out2 : NULL, b2, true);
        res = sinew_lattice_evaluate(lattice, &pts, want_pos ? out1 : NULL, s1, want_jac ? out2 : NULL, s2, first,
                                     count);
    } else {
        bool with_normals = fz_bool(r);
        size_t sn = fz_stride(r, 12);
        size_t bn = fz_span(pts.count, sn, 12);
        float *outn = fz_alloc(bn);
        bool want_normals = with_normals ? fz_u8(r) < 240 : fz_u8(r) >= 240;
        fz_call_begin(&c, "sinew_lattice_deform");
        fz_call_out(&c, out1, b1, true);
        fz_call_out(&c, want_normals ? outn : NULL, bn, true);
        res = sinew_lattice_deform(lattice, &pts, with_normals ? &normals : NULL, out1, s1,
                                   want_normals ? outn : NULL, sn, first, count);
    }
    fz_call_end(&c, res, fz_moderate(r));
}

static void bound(fz_reader *r, sinew_context *ctx, const sinew_lattice *lattice, const sinew_lattice *other)
{
    sinew_lattice_binding_desc desc;
    SINEW_INIT(&desc);
    desc.points = fz_points(r, fz_range(r, 0, 32));
    if (fz_bool(r)) desc.normals = fz_points(r, fz_u8(r) < 240 ? desc.points.count : fz_range(r, 0, 32));
    desc.space = (sinew_lattice_space)fz_enum(r, 2);
    sinew_lattice_binding *binding;
    fz_call c;
    fz_call_begin(&c, "sinew_lattice_binding_create");
    fz_call_handle(&c, &binding);
    if (fz_call_end(&c, sinew_lattice_binding_create(ctx, lattice, fz_u8(r) < 250 ? &desc : NULL, &binding), 0) != SINEW_OK)
        return;
    size_t n = sinew_lattice_binding_count(binding);
    fz_require(n == desc.points.count, "sinew_lattice_binding_count", "differs from the bound count");
    size_t s1 = fz_stride(r, 12), s2 = fz_stride(r, 12);
    size_t b1 = fz_span(n, s1, 12), b2 = fz_span(n, s2, 12);
    float *out1 = fz_alloc(b1), *out2 = fz_alloc(b2);
    bool normals = fz_bool(r);
    size_t first, count;
    fz_subrange(r, n, &first, &count);
    fz_call_begin(&c, "sinew_lattice_binding_deform");
    fz_call_out(&c, out1, b1, true);
    fz_call_out(&c, normals ? out2 : NULL, b2, true);
    fz_call_end(&c,
                sinew_lattice_binding_deform(binding, fz_bool(r) && other ? other : lattice, out1, s1,
                                           normals ? out2 : NULL, s2, first, count),
                fz_moderate(r));
    sinew_lattice_binding_destroy(binding);
}

static void folds(fz_reader *r, const sinew_lattice *lattice, size_t cell_count, uint32_t order_product)
{
    /* The check costs cells * samples^3 evaluations of order_product control
     * points (lattice.h): the fuzzer keeps it to about a million operations
     * per call, so an input stays fast under coverage and sanitizers. The
     * limit of 64 samples (and beyond, which must fail) is reached only on a
     * single low-order cell. */
    bool many = fz_u8(r) >= 200 && cell_count == 1 && order_product <= 8;
    uint32_t samples = many ? fz_range(r, 60, 70) : fz_range(r, 0, 6);
    while (!many && samples > 1 && (size_t)samples * samples * samples * cell_count * order_product > 1000000)
        --samples;
    size_t flag_count = fz_u8(r) < 230 ? cell_count : fz_range(r, 0, 8);
    uint8_t *flags = fz_bool(r) ? fz_alloc(flag_count + 1) : NULL;
    sinew_lattice_fold_report report;
    SINEW_INIT(&report);
    fz_call c;
    fz_call_begin(&c, "sinew_lattice_check_folds");
    fz_call_out(&c, flags, flag_count, false);
    fz_call_out_struct(&c, &report, sizeof report);
    fz_call_end(&c, sinew_lattice_check_folds(NULL, lattice, samples, flags, flag_count, &report), 0);
}

static void refine(fz_reader *r, sinew_context *ctx, const sinew_lattice *lattice)
{
    sinew_trimesh mesh = {0};
    mesh.positions = fz_points(r, fz_range(r, 0, 24));
    mesh.triangle_count = fz_range(r, 0, 24);
    mesh.indices = fz_indices(r, 3 * mesh.triangle_count, mesh.positions.count);
    sinew_lattice_refinement_desc desc;
    SINEW_INIT(&desc);
    uint8_t t = fz_u8(r);
    desc.tolerance = t < 240 ? pow(10.0, -(double)(t % 6)) : (t & 1u) ? -1.0 : (double)fz_float(r);
    desc.test = (sinew_lattice_error_test)fz_enum(r, 2);
    desc.split = (sinew_lattice_split)fz_enum(r, 2);
    /* A small budget keeps each input fast; large refinements fail with BUDGET_EXCEEDED. */
    desc.max_triangles = fz_range(r, 1, 300);
    sinew_lattice_refinement *refinement;
    fz_call c;
    fz_call_begin(&c, "sinew_lattice_refinement_create");
    fz_call_handle(&c, &refinement);
    if (fz_call_end(&c, sinew_lattice_refinement_create(ctx, lattice, &mesh, &desc, &refinement), 0) != SINEW_OK) return;
    sinew_lattice_refined_mesh out;
    SINEW_INIT(&out);
    fz_call_begin(&c, "sinew_lattice_refinement_mesh");
    fz_call_end(&c, sinew_lattice_refinement_mesh(refinement, &out), 0);
    fz_require(out.input_vertex_count == mesh.positions.count && out.vertex_count >= out.input_vertex_count &&
                   out.triangle_count <= desc.max_triangles,
               "sinew_lattice_refinement_create", "refined mesh counts inconsistent");
    for (size_t i = 0; i < 3 * out.triangle_count; i++)
        fz_require(out.indices[i] < out.vertex_count, "sinew_lattice_refinement_create", "a refined index out of range");
    if (!r->nonfinite && !r->extreme) {
        for (size_t i = 0; i < 3 * out.vertex_count; i++)
            fz_require(isfinite(out.positions[i]), "sinew_lattice_refinement_create", "a non-finite refined position");
    }
    sinew_lattice_refinement_destroy(refinement);
}

static void segment(fz_reader *r, const sinew_lattice *lattice)
{
    float a[3], b[3];
    for (int k = 0; k < 3; k++) a[k] = fz_float(r), b[k] = fz_float(r);
    double out[2];
    fz_call c;
    fz_call_begin(&c, "sinew_lattice_segment_bound");
    fz_call_out(&c, out, sizeof out, false);
    sinew_result res = sinew_lattice_segment_bound(lattice, a, b, &out[0], &out[1]);
    fz_call_end(&c, res, 0);
    if (res == SINEW_OK && !r->nonfinite && !r->extreme)
        fz_require(isfinite(out[0]) && out[0] >= 0.0 && isfinite(out[1]), "sinew_lattice_segment_bound",
                   "a non-finite or negative bound from finite inputs");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader r;
    fz_begin(&r, data, size);
    sinew_context *ctx = fz_context(&r);
    sinew_lattice *lattice;
    if (create(&r, ctx, &lattice) == SINEW_OK) {
        sinew_lattice_info info;
        SINEW_INIT(&info);
        fz_call c;
        fz_call_begin(&c, "sinew_lattice_get_info");
        fz_call_end(&c, sinew_lattice_get_info(lattice, &info), 0);
        fz_require(info.point_count == (size_t)info.count[0] * info.count[1] * info.count[2] &&
                       info.cell_count == (size_t)info.cells[0] * info.cells[1] * info.cells[2],
                   "sinew_lattice_get_info", "inconsistent counts");
        /* A second lattice of another structure, for MISMATCH on bound deforms. */
        sinew_lattice *other = NULL;
        if (fz_u8(&r) >= 200 && create(&r, ctx, &other) != SINEW_OK) other = NULL;
        for (int steps = fz_range(&r, 1, 6); steps > 0; steps--) {
            switch (fz_u8(&r) % 7) {
            case 0: control_points(&r, lattice, info.point_count); break;
            case 1: evaluate(&r, lattice); break;
            case 2: bound(&r, ctx, lattice, other); break;
            case 3: folds(&r, lattice, info.cell_count, info.order[0] * info.order[1] * info.order[2]); break;
            case 4: refine(&r, ctx, lattice); break;
            case 5: segment(&r, lattice); break;
            default: sinew_lattice_reset(lattice); break;
            }
        }
        sinew_lattice_destroy(other);
        sinew_lattice_destroy(lattice);
    }
    sinew_context_destroy(ctx);
    fz_end();
    return 0;
}
