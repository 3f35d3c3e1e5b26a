/* Loading lattices, bindings and refinements (docs/lattice.md, "Save and
 * load"). The format layer has checked the bytes (size, checksum, section
 * table, finite floats); here every value is checked for meaning with the
 * codes create uses, section sizes before anything is allocated for them,
 * and the bounds the float-range proofs rest on are recomputed from the data
 * rather than read. All or nothing: on failure everything is freed and *out
 * is untouched. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lattice/lattice_defaults.h"
#include "lattice/lattice_saved.h"

static const char *const axis_name = "uvw";

/* Checks a lattice structure read as u64 (orders 2..8, counts >= orders and
 * at most 2^20, a known outside policy) with create's codes and messages
 * prefixed by `what`, and narrows it. */
static sinew_result sn_lat_check_structure(const char *what, const uint64_t count[3], const uint64_t order[3],
                                           uint64_t outside, uint32_t count_out[3], uint32_t order_out[3])
{
    for (int a = 0; a < 3; ++a) {
        if (order[a] < 2 || order[a] > SN_LAT_MAX_ORDER)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: lattice order %llu on axis %c is outside 2..%d", what,
                           (unsigned long long)order[a], axis_name[a], SN_LAT_MAX_ORDER);
        if (count[a] < order[a])
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                           "%s: lattice axis %c has %llu control points, fewer than its order %llu", what,
                           axis_name[a], (unsigned long long)count[a], (unsigned long long)order[a]);
        if (count[a] > SN_LAT_MAX_AXIS_COUNT)
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%s: lattice axis %c has %llu control points, more than %u",
                           what, axis_name[a], (unsigned long long)count[a], SN_LAT_MAX_AXIS_COUNT);
        count_out[a] = (uint32_t)count[a];
        order_out[a] = (uint32_t)order[a];
    }
    if (outside > SINEW_LATTICE_OUTSIDE_EXTEND)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: unknown outside policy %llu", what,
                       (unsigned long long)outside);
    return SINEW_OK;
}

/* Checks a box frame as create would have made it: columns of nonzero
 * length, linearly independent axes, every box point within the float range
 * (messages prefixed by `what`). */
static sinew_result sn_lat_check_box(const char *what, const double origin[3], const double frame[9])
{
    /* First the float range, which also keeps the products below finite. */
    for (int c = 0; c < 3; ++c) {
        double reach = fabs(origin[c]) + fabs(frame[c]) + fabs(frame[3 + c]) + fabs(frame[6 + c]);
        if (!(reach * (1.0 + SN_LAT_FLOAT_MARGIN) <= (double)FLT_MAX))
            return sn_fail(SINEW_ERROR_NON_FINITE,
                           "%s: the lattice box reaches %g along world %c, beyond the float range", what, reach,
                           "xyz"[c]);
    }
    double unit[3][3];
    for (int a = 0; a < 3; ++a) {
        const double *col = frame + 3 * a;
        double len = sqrt(col[0] * col[0] + col[1] * col[1] + col[2] * col[2]);
        if (!(len > 0.0)) return sn_fail(SINEW_ERROR_DEGENERATE, "%s: lattice axis %c has zero length", what, axis_name[a]);
        for (int c = 0; c < 3; ++c) unit[a][c] = col[c] / len;
    }
    double cross[3] = {unit[0][1] * unit[1][2] - unit[0][2] * unit[1][1],
                       unit[0][2] * unit[1][0] - unit[0][0] * unit[1][2],
                       unit[0][0] * unit[1][1] - unit[0][1] * unit[1][0]};
    double volume = cross[0] * unit[2][0] + cross[1] * unit[2][1] + cross[2] * unit[2][2];
    if (!(fabs(volume) > SN_LAT_MIN_UNIT_VOLUME))
        return sn_fail(SINEW_ERROR_DEGENERATE, "%s: lattice axes are linearly dependent (unit volume %g)", what,
                       volume);
    return SINEW_OK;
}

/* The extents and unit axes must be the ones the frame was made from. */
static sinew_result check_frame_parts(const char *what, const double frame[9], float axes[3][3],
                                      const float extents[3])
{
    for (int a = 0; a < 3; ++a) {
        if (!(extents[a] > 0.0f))
            return sn_fail(SINEW_ERROR_DEGENERATE, "%s: lattice extent %c is %g; it must be > 0", what, axis_name[a],
                           (double)extents[a]);
        const double *col = frame + 3 * a;
        double len = sqrt(col[0] * col[0] + col[1] * col[1] + col[2] * col[2]);
        if (!(fabs(len / (double)extents[a] - 1.0) <= 1e-6))
            return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: lattice axis %c is %g long in the frame, but its extent is %g",
                           what, axis_name[a], len, (double)extents[a]);
        for (int c = 0; c < 3; ++c)
            if (!(fabs((double)axes[a][c] - col[c] / (double)extents[a]) <= 1e-6))
                return sn_fail(SINEW_ERROR_INVALID_DATA,
                               "%s: lattice unit axis %c component %c (%g) differs from the frame's (%g)", what,
                               axis_name[a], "xyz"[c], (double)axes[a][c], col[c] / (double)extents[a]);
    }
    return SINEW_OK;
}

sinew_result sn_lat_read_sections(sn_reader *r, const sn_env *env, sinew_lattice **out)
{
    const char *what = r->what;
    uint64_t structure[7];
    uint32_t count[3], order[3];
    sinew_result res = sn_reader_u64s(r, SN_LAT_TAG_STRUCTURE, 7, structure);
    if (res == SINEW_OK) res = sn_lat_check_structure(what, structure, structure + 3, structure[6], count, order);
    if (res != SINEW_OK) return res;
    size_t points = 1;
    for (int a = 0; a < 3; ++a)
        if (!sn_mul_size(points, count[a], &points))
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%s: lattice of %u x %u x %u control points is too large", what,
                           count[0], count[1], count[2]);
    const uint32_t disp_tags[3] = {SN_LAT_TAG_DISP_X, SN_LAT_TAG_DISP_Y, SN_LAT_TAG_DISP_Z};
    for (int c = 0; c < 3; ++c)
        if ((res = sn_reader_expect(r, disp_tags[c], SN_IO_F32, 1, points)) != SINEW_OK) return res;

    double origin[3], frame[9];
    float axes[3][3], extents[3];
    if ((res = sn_reader_copy(r, SN_LAT_TAG_ORIGIN, SN_IO_F64, 3, origin)) != SINEW_OK ||
        (res = sn_reader_copy(r, SN_LAT_TAG_FRAME, SN_IO_F64, 9, frame)) != SINEW_OK ||
        (res = sn_reader_copy(r, SN_LAT_TAG_AXES, SN_IO_F32, 9, axes)) != SINEW_OK ||
        (res = sn_reader_copy(r, SN_LAT_TAG_EXTENTS, SN_IO_F32, 3, extents)) != SINEW_OK ||
        (res = sn_lat_check_box(what, origin, frame)) != SINEW_OK ||
        (res = check_frame_parts(what, frame, axes, extents)) != SINEW_OK)
        return res;

    sinew_lattice *lat;
    if ((res = sn_lat_make(env, count, order, (sinew_lattice_outside)structure[6], &lat)) != SINEW_OK) return res;
    memcpy(lat->origin, origin, sizeof origin);
    memcpy(lat->frame, frame, sizeof frame);
    memcpy(lat->unit_axes, axes, sizeof axes);
    memcpy(lat->extents, extents, sizeof extents);
    sn_lat_finish_frame(lat);
    bool invertible = lat->frame_det != 0.0;
    for (int e = 0; e < 9; ++e) invertible = invertible && isfinite(lat->inverse[e]);
    if (!invertible) {
        double det = lat->frame_det;
        sinew_lattice_destroy(lat);
        return sn_fail(SINEW_ERROR_DEGENERATE, "%s: the lattice box cannot be inverted (determinant %g)", what, det);
    }
    for (int c = 0; c < 3; ++c) sn_reader_copy(r, disp_tags[c], SN_IO_F32, points, lat->disp[c]);
    /* What a setter would refuse: a control point whose position (rest plus
     * displacement) leaves the float range. The bound is then exact, as after
     * a set of the whole lattice. */
    double bound = 0.0;
    for (size_t i = 0; i < points; ++i) {
        double rest[3];
        sn_lat_rest_index(lat, i, rest);
        for (int c = 0; c < 3; ++c) {
            double d = lat->disp[c][i];
            if (!isfinite((float)(rest[c] + d))) {
                sinew_lattice_destroy(lat);
                return sn_fail(SINEW_ERROR_NON_FINITE,
                               "%s: control point %zu has a displacement %c (%g) that puts it beyond the float range",
                               what, i, "xyz"[c], d);
            }
            bound = fmax(bound, fabs(d));
        }
    }
    lat->disp_bound = bound;
    sn_lat_repack(lat);
    *out = lat;
    return SINEW_OK;
}

sinew_result sinew_lattice_load(sinew_context *ctx, const void *data, size_t size, sinew_lattice **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out is NULL");
    sn_reader r;
    sinew_result res = sn_reader_open(&r, data, size, SINEW_KIND_LATTICE, "lattice data");
    if (res != SINEW_OK) return res;
    sn_env env;
    sn_env_from_context(&env, ctx);
    sinew_lattice *lat = NULL;
    if ((res = sn_lat_read_sections(&r, &env, &lat)) != SINEW_OK) return res;
    if ((res = sn_reader_finish(&r)) != SINEW_OK) {
        sinew_lattice_destroy(lat);
        return res;
    }
    *out = lat;
    return SINEW_OK;
}

/* ---- Bindings ------------------------------------------------------------- */

static bool finite_bits(uint32_t bits)
{
    return (bits & 0x7f800000u) != 0x7f800000u;
}

/* Checks record i of a loaded binding (see struct sinew_lattice_binding) and
 * adds it to the bounds: base finite, first control point leaving room for
 * a whole cell, basis values finite and a partition of unity per axis,
 * derivatives finite, padding zero. */
static sinew_result check_record(sinew_lattice_binding *b, const char *what, size_t i, bool normals)
{
    const float *rec = b->records + i * b->record;
    uint32_t bits[4];
    memcpy(bits, rec, sizeof bits);
    double base = 0.0;
    for (int c = 0; c < 3; ++c) {
        if (!finite_bits(bits[c]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "%s: bound point %zu has a non-finite base coordinate %c", what, i,
                           "xyz"[c]);
        base = fmax(base, fabs((double)rec[c]));
    }
    const uint32_t first = bits[3];
    const size_t nu = b->axis_count[0], nv = b->axis_count[1];
    size_t g[3] = {first % nu, (first / nu) % nv, first / (nu * nv)};
    const bool leave = first == SN_LAT_LEAVE;
    for (int a = 0; a < 3 && !leave; ++a)
        if (g[a] > b->axis_count[a] - b->order[a])
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE,
                           "%s: bound point %zu starts at control point %u, whose %c index %zu leaves no room for "
                           "order %u within %u control points",
                           what, i, first, axis_name[a], g[a], b->order[a], b->axis_count[a]);
    const size_t terms = (size_t)b->order[0] + b->order[1] + b->order[2];
    const size_t used = 4 + (normals ? 2 : 1) * terms;
    const float *v = rec + 4;
    double basis = 1.0, slope = 1.0;
    for (int part = 0; part < (normals ? 2 : 1); ++part)
        for (int a = 0; a < 3; ++a) {
            double sum = 0.0, abs_sum = 0.0;
            for (uint32_t k = 0; k < b->order[a]; ++k, ++v) {
                uint32_t vb;
                memcpy(&vb, v, sizeof vb);
                if (!finite_bits(vb))
                    return sn_fail(SINEW_ERROR_NON_FINITE, "%s: bound point %zu has a non-finite basis %s along %c",
                                   what, i, part ? "derivative" : "value", axis_name[a]);
                sum += *v;
                abs_sum += fabs((double)*v);
            }
            if (part == 1) {
                slope = fmax(slope, abs_sum);
                continue;
            }
            /* Float values of a partition of unity: their sum is 1 up to the
             * rounding of each (large terms far outside an EXTEND lattice). */
            if (!(fabs(sum - 1.0) <= 1e-5 * fmax(1.0, abs_sum)))
                return sn_fail(SINEW_ERROR_INVALID_WEIGHTS,
                               "%s: bound point %zu has basis values along %c summing to %g, not 1", what, i,
                               axis_name[a], sum);
            basis *= fmax(1.0, abs_sum);
        }
    for (size_t k = used; k < b->record; ++k) {
        uint32_t pad;
        memcpy(&pad, rec + k, sizeof pad);
        if (pad != 0)
            return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: bound point %zu has nonzero padding word %zu", what, i, k);
    }
    /* As bind: a base or basis bound beyond the float range is refused. A
     * LEAVE point takes no displacement, so only its base counts. */
    basis = leave ? 0.0 : basis * slope;
    if (!(base * (1.0 + SN_LAT_FLOAT_MARGIN) <= (double)FLT_MAX) ||
        !(basis * (1.0 + SN_LAT_FLOAT_MARGIN) <= (double)FLT_MAX))
        return sn_fail(SINEW_ERROR_NON_FINITE,
                       "%s: bound point %zu would give a base position (bound %g) or basis product (bound %g) "
                       "beyond the float range", what, i, base, basis);
    b->base_bound = fmax(b->base_bound, base);
    b->basis_bound = fmax(b->basis_bound, basis);
    if (b->cells)
        b->cells[i] = leave ? 0u
                            : (uint32_t)(g[0] + (size_t)(b->axis_count[0] - 3) *
                                                    (g[1] + (size_t)(b->axis_count[1] - 3) * g[2]));
    return SINEW_OK;
}

/* Reads and checks the binding's structure and section sizes; fills the
 * scalar fields of b. */
static sinew_result read_binding_header(sn_reader *r, sinew_lattice_binding *b, bool *normals)
{
    const char *what = r->what;
    uint64_t s[9];
    sinew_result res = sn_reader_u64s(r, SN_LAT_TAG_BIND_STRUCTURE, 9, s);
    if (res != SINEW_OK) return res;
    if (s[0] == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: no points to bind", what);
    if ((res = sn_lat_check_structure(what, s + 1, s + 4, s[7], b->axis_count, b->order)) != SINEW_OK) return res;
    if (s[8] > SINEW_LATTICE_SPACE_PARAMETER)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: unknown bind space %llu", what, (unsigned long long)s[8]);
    const uint64_t points = (uint64_t)b->axis_count[0] * b->axis_count[1] * b->axis_count[2];
    if (points >= SN_LAT_LEAVE)
        return sn_fail(SINEW_ERROR_UNSUPPORTED, "%s: binding needs a lattice of fewer than %u control points", what,
                       SN_LAT_LEAVE);
    b->outside = (sinew_lattice_outside)s[7];
    b->space = (sinew_lattice_space)s[8];
    if ((res = sn_reader_copy(r, SN_LAT_TAG_BIND_ORIGIN, SN_IO_F64, 3, b->origin)) != SINEW_OK ||
        (res = sn_reader_copy(r, SN_LAT_TAG_BIND_FRAME, SN_IO_F64, 9, b->frame)) != SINEW_OK ||
        (res = sn_lat_check_box(what, b->origin, b->frame)) != SINEW_OK)
        return res;
    size_t normal_floats, records;
    if ((res = sn_reader_count(r, SN_LAT_TAG_BIND_NORMALS, SN_IO_F32, &normal_floats)) != SINEW_OK) return res;
    *normals = normal_floats != 0;
    b->record = sn_lat_record_floats(b->order, *normals);
    /* Every record takes at least 8 words of the data, so a count that
     * passes the records section's size check cannot overflow below. */
    if (s[0] > SIZE_MAX / b->record / 3)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%s: binding of %llu points is too large", what,
                       (unsigned long long)s[0]);
    b->count = (size_t)s[0];
    records = b->count * b->record;
    if (*normals && normal_floats != 3 * b->count)
        return sn_fail(SINEW_ERROR_MISMATCH, "%s: %zu normal coordinates for %zu points", what, normal_floats,
                       b->count);
    return sn_reader_expect(r, SN_LAT_TAG_BIND_RECORDS, SN_IO_U32, 1, records);
}

sinew_result sinew_lattice_binding_load(sinew_context *ctx, const void *data, size_t size,
                                        sinew_lattice_binding **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out is NULL");
    sn_reader r;
    sinew_result res = sn_reader_open(&r, data, size, SINEW_KIND_LATTICE_BINDING, "lattice binding data");
    if (res != SINEW_OK) return res;
    sn_env env;
    sn_env_from_context(&env, ctx);
    sinew_lattice_binding *b = (sinew_lattice_binding *)sn_calloc(&env, sizeof *b, "lattice binding");
    if (!b) return sn_alloc_failure();
    b->held_bytes = sizeof *b;
    env.held = &b->held_bytes;
    b->env = sn_env_kept(&env);
    bool normals = false;
    if ((res = read_binding_header(&r, b, &normals)) != SINEW_OK) goto fail;
    const size_t n = b->count;
    const bool cubic = b->order[0] == 4 && b->order[1] == 4 && b->order[2] == 4;
    if (!(b->records = (float *)sn_alloc_array(&env, n, b->record * sizeof(float), "lattice binding records")) ||
        (normals && !(b->normals = (float *)sn_alloc_array(&env, n, 3 * sizeof(float), "bound normals"))) ||
        (cubic && !(b->cells = (uint32_t *)sn_alloc_array(&env, n, sizeof(uint32_t), "bound cells")))) {
        res = sn_alloc_failure();
        goto fail;
    }
    sn_reader_copy(&r, SN_LAT_TAG_BIND_RECORDS, SN_IO_U32, n * b->record, b->records);
    if (normals) sn_reader_copy(&r, SN_LAT_TAG_BIND_NORMALS, SN_IO_F32, 3 * n, b->normals);
    for (size_t i = 0; i < n; ++i)
        if ((res = check_record(b, r.what, i, normals)) != SINEW_OK) goto fail;
    if ((res = sn_reader_finish(&r)) != SINEW_OK) goto fail;
    *out = b;
    return SINEW_OK;
fail:
    sinew_lattice_binding_destroy(b);
    return res;
}

/* ---- Refinements ------------------------------------------------------------ */

/* Reads and checks the sizes and the section counts they imply. */
static sinew_result read_refinement_sizes(sn_reader *r, sinew_lattice_refined_mesh *m)
{
    const char *what = r->what;
    uint64_t s[4];
    sinew_result res = sn_reader_u64s(r, SN_LAT_TAG_REF_SIZES, 4, s);
    if (res != SINEW_OK) return res;
    if (s[1] == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: mesh has no vertices", what);
    if (s[2] == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: mesh has no triangles", what);
    if (s[0] >= UINT32_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%s: the refined mesh has %llu vertices; at most %u", what,
                       (unsigned long long)s[0], UINT32_MAX - 1);
    if (s[1] > s[0])
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: %llu input vertices, more than the %llu vertices", what,
                       (unsigned long long)s[1], (unsigned long long)s[0]);
    if (s[2] > SIZE_MAX / (3 * sizeof(uint32_t)))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%s: the refined mesh has %llu triangles", what,
                       (unsigned long long)s[2]);
    m->vertex_count = (size_t)s[0];
    m->input_vertex_count = (size_t)s[1];
    m->triangle_count = (size_t)s[2];
    m->rounds = (size_t)(s[3] < (uint64_t)SIZE_MAX ? s[3] : SIZE_MAX);
    const size_t v = m->vertex_count, added = v - m->input_vertex_count;
    if ((res = sn_reader_copy(r, SN_LAT_TAG_REF_ERROR, SN_IO_F64, 1, &m->max_error)) != SINEW_OK) return res;
    if (!(m->max_error >= 0.0))
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: the largest edge error is %g; it must be >= 0", what,
                       m->max_error);
    if ((res = sn_reader_expect(r, SN_LAT_TAG_REF_REST, SN_IO_F32, 1, 3 * v)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_LAT_TAG_REF_DEFORMED, SN_IO_F32, 1, 3 * v)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_LAT_TAG_REF_TRIANGLES, SN_IO_U32, 1, 3 * m->triangle_count)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_LAT_TAG_REF_PARENTS, SN_IO_U32, 1, 2 * added)) != SINEW_OK)
        return res;
    return sn_reader_expect(r, SN_LAT_TAG_REF_PARAMETERS, SN_IO_F32, 1, added);
}

/* Triangles index vertices; an added vertex lies on an edge of two earlier
 * vertices at a parameter in [0, 1]. */
static sinew_result check_refined_mesh(const char *what, const sinew_lattice_refined_mesh *m)
{
    for (size_t t = 0; t < m->triangle_count; ++t)
        for (int k = 0; k < 3; ++k)
            if (m->indices[3 * t + k] >= m->vertex_count)
                return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE,
                               "%s: triangle %zu corner %d refers to vertex %u, but there are %zu", what, t, k,
                               m->indices[3 * t + k], m->vertex_count);
    for (size_t v = m->input_vertex_count; v < m->vertex_count; ++v) {
        const size_t k = v - m->input_vertex_count;
        for (int e = 0; e < 2; ++e)
            if (m->parents[2 * k + e] >= v)
                return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE,
                               "%s: refined vertex %zu has parent %u; parents must come before it", what, v,
                               m->parents[2 * k + e]);
        if (!(m->parameters[k] >= 0.0f && m->parameters[k] <= 1.0f))
            return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: refined vertex %zu has parameter %g, outside [0, 1]", what,
                           v, (double)m->parameters[k]);
    }
    return SINEW_OK;
}

sinew_result sinew_lattice_refinement_load(sinew_context *ctx, const void *data, size_t size,
                                           sinew_lattice_refinement **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out is NULL");
    sn_reader r;
    sinew_result res = sn_reader_open(&r, data, size, SINEW_KIND_LATTICE_REFINEMENT, "lattice refinement data");
    if (res != SINEW_OK) return res;
    sinew_lattice_refined_mesh m;
    memset(&m, 0, sizeof m);
    if ((res = read_refinement_sizes(&r, &m)) != SINEW_OK) return res;
    sn_env env;
    sn_env_from_context(&env, ctx);
    sinew_lattice_refinement *ref = (sinew_lattice_refinement *)sn_calloc(&env, sizeof *ref, "refinement");
    if (!ref) return sn_alloc_failure();
    ref->env = sn_env_kept(&env);
    const size_t v = m.vertex_count, added = v - m.input_vertex_count;
    if (!(ref->rest = (float *)sn_alloc_array(&env, v, 3 * sizeof(float), "refined rest positions")) ||
        !(ref->def = (float *)sn_alloc_array(&env, v, 3 * sizeof(float), "refined positions")) ||
        !(ref->tri = (uint32_t *)sn_alloc_array(&env, m.triangle_count, 3 * sizeof(uint32_t), "refined triangles")) ||
        !(ref->parents = (uint32_t *)sn_alloc_array(&env, added, 2 * sizeof(uint32_t), "refined parents")) ||
        !(ref->params = (float *)sn_alloc_array(&env, added, sizeof(float), "refined parameters"))) {
        res = sn_alloc_failure();
        sinew_lattice_refinement_destroy(ref);
        return res;
    }
    sn_reader_copy(&r, SN_LAT_TAG_REF_REST, SN_IO_F32, 3 * v, ref->rest);
    sn_reader_copy(&r, SN_LAT_TAG_REF_DEFORMED, SN_IO_F32, 3 * v, ref->def);
    sn_reader_copy(&r, SN_LAT_TAG_REF_TRIANGLES, SN_IO_U32, 3 * m.triangle_count, ref->tri);
    sn_reader_copy(&r, SN_LAT_TAG_REF_PARENTS, SN_IO_U32, 2 * added, ref->parents);
    sn_reader_copy(&r, SN_LAT_TAG_REF_PARAMETERS, SN_IO_F32, added, ref->params);
    m.rest_positions = ref->rest;
    m.positions = ref->def;
    m.indices = ref->tri;
    m.parents = ref->parents;
    m.parameters = ref->params;
    if ((res = check_refined_mesh(r.what, &m)) != SINEW_OK || (res = sn_reader_finish(&r)) != SINEW_OK) {
        sinew_lattice_refinement_destroy(ref);
        return res;
    }
    ref->mesh = m;
    *out = ref;
    return SINEW_OK;
}
