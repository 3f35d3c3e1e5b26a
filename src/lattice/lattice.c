/* The lattice handle: creation from a desc (knots, box frame), the rest
 * lattice at the Greville abscissae, and control point access. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lattice/lattice_defaults.h"
#include "lattice/lattice_internal.h"
#include "core/small_math.h"

static const char *const axis_name = "uvw";

static sinew_result check_desc(const sinew_lattice_desc *d, uint32_t count[3], uint32_t order[3],
                               double axes[3][3], double extents[3])
{
    for (int a = 0; a < 3; ++a) {
        order[a] = d->order[a] ? d->order[a] : SN_LAT_DEFAULT_ORDER;
        if (order[a] < 2 || order[a] > SN_LAT_MAX_ORDER)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "lattice order %u on axis %c is outside 2..%d",
                           order[a], axis_name[a], SN_LAT_MAX_ORDER);
        count[a] = d->count[a] ? d->count[a] : order[a];
        if (count[a] < order[a])
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                           "lattice axis %c has %u control points, fewer than its order %u", axis_name[a],
                           count[a], order[a]);
        if (count[a] > SN_LAT_MAX_AXIS_COUNT)
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "lattice axis %c has %u control points, more than %u",
                           axis_name[a], count[a], SN_LAT_MAX_AXIS_COUNT);
    }
    if ((unsigned)d->outside > SINEW_LATTICE_OUTSIDE_EXTEND)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "unknown outside policy %d", (int)d->outside);
    for (int a = 0; a < 3; ++a)
        if (!isfinite(d->origin[a]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "lattice origin %c is not finite (%g)", "xyz"[a],
                           (double)d->origin[a]);
    bool default_axes = true, default_extents = true;
    for (int a = 0; a < 3; ++a) {
        if (d->extents[a] != 0.0f) default_extents = false;
        for (int c = 0; c < 3; ++c) {
            if (!isfinite(d->axes[a][c]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "lattice axis %c component %c is not finite (%g)",
                               axis_name[a], "xyz"[c], (double)d->axes[a][c]);
            if (d->axes[a][c] != 0.0f) default_axes = false;
        }
    }
    for (int a = 0; a < 3; ++a) {
        extents[a] = default_extents ? 1.0 : (double)d->extents[a];
        if (!isfinite(extents[a]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "lattice extent %c is not finite (%g)", axis_name[a],
                           extents[a]);
        if (!(extents[a] > 0.0))
            return sn_fail(SINEW_ERROR_DEGENERATE, "lattice extent %c is %g; it must be > 0", axis_name[a],
                           extents[a]);
        double len = 0.0;
        for (int c = 0; c < 3; ++c) {
            axes[a][c] = default_axes ? (a == c ? 1.0 : 0.0) : (double)d->axes[a][c];
            len += axes[a][c] * axes[a][c];
        }
        len = sqrt(len);
        if (!(len > 0.0))
            return sn_fail(SINEW_ERROR_DEGENERATE, "lattice axis %c has zero length", axis_name[a]);
        for (int c = 0; c < 3; ++c) axes[a][c] /= len;
    }
    double cross[3] = {axes[0][1] * axes[1][2] - axes[0][2] * axes[1][1],
                       axes[0][2] * axes[1][0] - axes[0][0] * axes[1][2],
                       axes[0][0] * axes[1][1] - axes[0][1] * axes[1][0]};
    double volume = cross[0] * axes[2][0] + cross[1] * axes[2][1] + cross[2] * axes[2][2];
    if (!(fabs(volume) > SN_LAT_MIN_UNIT_VOLUME))
        return sn_fail(SINEW_ERROR_DEGENERATE, "lattice axes are linearly dependent (unit volume %g)", volume);
    /* Every point of the box (its rest control points among them) must be a
     * float, or an untouched lattice would report infinite positions. */
    for (int c = 0; c < 3; ++c) {
        double reach = fabs((double)d->origin[c]);
        for (int a = 0; a < 3; ++a) reach += extents[a] * fabs(axes[a][c]);
        if (!(reach * (1.0 + SN_LAT_FLOAT_MARGIN) <= (double)FLT_MAX))
            return sn_fail(SINEW_ERROR_NON_FINITE,
                           "the lattice box reaches %g along world %c, beyond the float range", reach, "xyz"[c]);
    }
    return SINEW_OK;
}

sinew_result sn_lat_make(const sn_env *env, const uint32_t count[3], const uint32_t order[3],
                         sinew_lattice_outside outside, sinew_lattice **out)
{
    size_t points = 1, cells = 1, knot_total = 0;
    for (int a = 0; a < 3; ++a) {
        if (!sn_mul_size(points, count[a], &points) || !sn_mul_size(cells, count[a] - order[a] + 1, &cells))
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "lattice of %u x %u x %u control points is too large",
                           count[0], count[1], count[2]);
        knot_total += (size_t)count[a] + order[a];
    }
    /* One block: knots (doubles), then the three displacement arrays, each
     * rounded up to whole cache lines. */
    size_t knot_bytes = (knot_total * sizeof(double) + SN_ALIGN - 1) / SN_ALIGN * SN_ALIGN;
    size_t disp_bytes, block_bytes;
    if (!sn_mul_size(points, sizeof(float), &disp_bytes) || !sn_add_size(disp_bytes, SN_ALIGN, &disp_bytes))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "lattice displacement array is too large");
    disp_bytes = disp_bytes / SN_ALIGN * SN_ALIGN;
    if (!sn_mul_size(disp_bytes, 3, &block_bytes) || !sn_add_size(block_bytes, knot_bytes, &block_bytes))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "lattice displacement array is too large");

    /* The handle counts every block it owns from here on (memory_bytes). */
    sn_env kept = *env;
    sinew_lattice *lat = (sinew_lattice *)sn_calloc(&kept, sizeof *lat, "lattice");
    if (lat) {
        lat->held_bytes = sizeof *lat;
        kept.held = &lat->held_bytes;
    }
    if (!lat) return sn_alloc_failure();
    lat->block = sn_calloc(&kept, block_bytes, "lattice knots and control points");
    if (!lat->block) {
        sn_free(&kept, lat);
        return sn_alloc_failure();
    }
    lat->env = sn_env_kept(&kept);
    lat->outside = outside;
    lat->point_count = points;
    lat->cell_count = cells;
    double *knots = (double *)lat->block;
    for (int a = 0; a < 3; ++a) {
        sn_lat_axis *ax = &lat->axis[a];
        ax->count = count[a];
        ax->order = order[a];
        ax->degree = order[a] - 1;
        ax->cells = count[a] - ax->degree;
        for (uint32_t j = 0; j < count[a] + order[a]; ++j) {
            double t;
            if (j <= ax->degree) t = 0.0;
            else if (j >= count[a]) t = 1.0;
            else t = (double)(j - ax->degree) / (double)ax->cells;
            knots[j] = t;
        }
        ax->knots = knots;
        knots += count[a] + order[a];
        sn_lat_axis_ends(ax);
    }
    char *disp = (char *)lat->block + knot_bytes;
    for (int c = 0; c < 3; ++c) lat->disp[c] = (float *)(disp + (size_t)c * disp_bytes);
    if (order[0] == 4 && order[1] == 4 && order[2] == 4 && cells <= SN_LAT_PACKED_MAX_CELLS &&
        sn_lat_cubic_avx2_kernel() != NULL) {
        lat->packed = (float *)sn_calloc_array(&kept, cells, SN_LAT_PACKED_CELL * sizeof(float),
                                               "packed lattice cells");
        if (!lat->packed) {
            sinew_result r = sn_alloc_failure();
            sinew_lattice_destroy(lat);
            return r;
        }
    }
    sn_lat_use_kernels(lat, SN_LAT_KERNELS_BEST);
    *out = lat;
    return SINEW_OK;
}

void sn_lat_use_kernels(sinew_lattice *lat, sn_lat_kernels which)
{
    const bool best = which == SN_LAT_KERNELS_BEST;
    /* The vector filler computes control point indices in 32-bit lanes. */
    lat->fill = best && lat->point_count <= (size_t)INT32_MAX ? sn_lat_fill_avx2() : NULL;
    lat->all_fit = best ? sn_lat_all_fit_avx2() : NULL;
    lat->rows = best ? sn_lat_rows_avx2_kernel() : NULL;
    lat->kernel = best && lat->packed ? sn_lat_cubic_avx2_kernel() : NULL;
    lat->oneshot = lat->kernel && lat->fill ? sn_lat_oneshot_cubic_avx2() : NULL;
    lat->sse = which != SN_LAT_KERNELS_PLAIN;
}

double sn_lat_finish_frame(sinew_lattice *lat)
{
    lat->frame_det = sn_inverse3(lat->frame, lat->inverse);
    return lat->frame_det;
}

sinew_result sinew_lattice_create(sinew_context *ctx, const sinew_lattice_desc *caller_desc, sinew_lattice **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out is NULL");
    sinew_lattice_desc local;
    sinew_result r = sn_read_struct(&local, sizeof local, caller_desc, "lattice desc");
    if (r != SINEW_OK) return r;
    const sinew_lattice_desc *desc = &local;
    uint32_t count[3], order[3];
    double axes[3][3], extents[3];
    r = check_desc(desc, count, order, axes, extents);
    if (r != SINEW_OK) return r;

    sn_env env;
    sn_env_from_context(&env, ctx);
    sinew_lattice *lat;
    if ((r = sn_lat_make(&env, count, order, desc->outside, &lat)) != SINEW_OK) return r;
    for (int a = 0; a < 3; ++a) {
        lat->origin[a] = desc->origin[a];
        lat->extents[a] = (float)extents[a];
        for (int c = 0; c < 3; ++c) {
            lat->unit_axes[a][c] = (float)axes[a][c];
            lat->frame[3 * a + c] = extents[a] * axes[a][c];
        }
    }
    sn_lat_finish_frame(lat);
    *out = lat;
    return SINEW_OK;
}

void sinew_lattice_destroy(sinew_lattice *lattice)
{
    if (!lattice) return;
    sn_env env = lattice->env;
    sn_free(&env, lattice->packed);
    sn_free(&env, lattice->block);
    sn_free(&env, lattice);
}

sinew_result sinew_lattice_get_info(const sinew_lattice *lattice, sinew_lattice_info *info)
{
    /* Leaves the thread's message alone: it is read after a failure (api.md). */
    if (!lattice) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "lattice is NULL");
    if (sn_check_struct_out(info, "info") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_lattice_info i;
    memset(&i, 0, sizeof i);
    for (int a = 0; a < 3; ++a) {
        i.count[a] = lattice->axis[a].count;
        i.order[a] = lattice->axis[a].order;
        i.cells[a] = lattice->axis[a].cells;
        i.origin[a] = (float)lattice->origin[a];
        i.extents[a] = lattice->extents[a];
        for (int c = 0; c < 3; ++c) i.axes[a][c] = lattice->unit_axes[a][c];
    }
    i.point_count = lattice->point_count;
    i.cell_count = lattice->cell_count;
    i.outside = lattice->outside;
    i.memory_bytes = lattice->held_bytes;
    sn_write_struct(info, &i, sizeof i);
    return SINEW_OK;
}

/* Validates an output block of control points. */
static sinew_result check_block(const sinew_lattice *lat, const float *out, size_t stride, size_t first,
                                size_t count, const char *what)
{
    if (!lat) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "lattice is NULL");
    if (count == 0) return SINEW_OK;
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", what);
    if (first > lat->point_count || count > lat->point_count - first)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE,
                       "control points %zu..%zu requested, but the lattice has %zu", first, first + count - 1,
                       lat->point_count);
    /* Element i goes to out + i * stride: the span reaches element first + count - 1. */
    return sn_check_float_array(out, stride, 3, first + count, what);
}

/* Copies control point `index`'s displacement into every packed cell that
 * holds it: cells ci = i - 3 .. i along u (within range), likewise v and w. */
static void pack_point(sinew_lattice *lat, size_t index)
{
    const size_t nu = lat->axis[0].count, nv = lat->axis[1].count;
    const size_t cu = lat->axis[0].cells, cv = lat->axis[1].cells, cw = lat->axis[2].cells;
    const size_t g[3] = {index % nu, (index / nu) % nv, index / (nu * nv)};
    const size_t n[3] = {cu, cv, cw};
    size_t lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        lo[a] = g[a] >= 3 ? g[a] - 3 : 0;
        hi[a] = g[a] < n[a] - 1 ? g[a] : n[a] - 1;
    }
    for (size_t c2 = lo[2]; c2 <= hi[2]; ++c2)
        for (size_t c1 = lo[1]; c1 <= hi[1]; ++c1)
            for (size_t c0 = lo[0]; c0 <= hi[0]; ++c0) {
                float *cell = lat->packed + (c0 + cu * (c1 + cv * c2)) * SN_LAT_PACKED_CELL;
                size_t li = g[0] - c0, lj = g[1] - c1, lk = g[2] - c2;
                for (int c = 0; c < 3; ++c) cell[lk * 48 + (size_t)c * 16 + lj * 4 + li] = lat->disp[c][index];
            }
}

void sn_lat_repack(sinew_lattice *lat)
{
    if (!lat->packed) return;
    for (size_t index = 0; index < lat->point_count; ++index) pack_point(lat, index);
}

enum block_kind { BLOCK_REST, BLOCK_POINTS, BLOCK_DISPLACEMENTS };

static sinew_result read_block(const sinew_lattice *lat, float *out, size_t stride, size_t first, size_t count,
                               enum block_kind kind)
{
    sn_clear_error();
    sinew_result r = check_block(lat, out, stride, first, count, "control point output");
    if (r != SINEW_OK) return r;
    stride = sn_stride(stride, 3 * sizeof(float));
    for (size_t index = first; index < first + count; ++index) {
        float *o = (float *)((char *)out + index * stride);
        double rest[3] = {0.0, 0.0, 0.0};
        if (kind != BLOCK_DISPLACEMENTS) sn_lat_rest_index(lat, index, rest);
        for (int c = 0; c < 3; ++c) {
            double d = kind == BLOCK_REST ? 0.0 : (double)lat->disp[c][index];
            o[c] = (float)(rest[c] + d);
        }
    }
    return SINEW_OK;
}

sinew_result sinew_lattice_rest_points(const sinew_lattice *lattice, float *out, size_t stride, size_t first,
                                       size_t count)
{
    return read_block(lattice, out, stride, first, count, BLOCK_REST);
}

sinew_result sinew_lattice_points(const sinew_lattice *lattice, float *out, size_t stride, size_t first,
                                      size_t count)
{
    return read_block(lattice, out, stride, first, count, BLOCK_POINTS);
}

sinew_result sinew_lattice_displacements(const sinew_lattice *lattice, float *out, size_t stride,
                                             size_t first, size_t count)
{
    return read_block(lattice, out, stride, first, count, BLOCK_DISPLACEMENTS);
}

static sinew_result write_block(sinew_lattice *lat, const sinew_points *in, size_t first, size_t count,
                                bool positions)
{
    sn_clear_error();
    if (!lat) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "lattice is NULL");
    const char *what = positions ? "control point" : "displacement";
    sinew_result r = sn_lat_check_range(in, what, first, count);
    if (r != SINEW_OK) return r;
    if (count && first + count > lat->point_count)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "%ss %zu..%zu given, but the lattice has %zu", what, first,
                       first + count - 1, lat->point_count);
    /* Convert everything before writing, so a value that overflows float
     * leaves the lattice as it was. A set of the whole lattice makes the
     * displacement bound exact again. */
    const bool whole = first == 0 && count == lat->point_count;
    double bound = whole ? 0.0 : lat->disp_bound;
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t index = first; index < first + count; ++index) {
            const float *q = sn_point(in, index);
            double rest[3];
            sn_lat_rest_index(lat, index, rest);
            for (int c = 0; c < 3; ++c) {
                float d = (float)((double)q[c] - (positions ? rest[c] : 0.0));
                if (pass == 0 && !isfinite(d))
                    return sn_fail(SINEW_ERROR_NON_FINITE,
                                   "%s %zu gives a displacement %c that overflows a float", what, index, "xyz"[c]);
                /* get_points reports rest + displacement as a float. */
                if (pass == 0 && !isfinite((float)(rest[c] + (double)d)))
                    return sn_fail(SINEW_ERROR_NON_FINITE,
                                   "%s %zu puts control point %zu at a position %c beyond the float range", what,
                                   index, index, "xyz"[c]);
                if (pass == 1) {
                    lat->disp[c][index] = d;
                    bound = fmax(bound, fabs((double)d));
                }
            }
            if (pass == 1 && lat->packed) pack_point(lat, index);
        }
    }
    lat->disp_bound = bound;
    return SINEW_OK;
}

sinew_result sinew_lattice_set_points(sinew_lattice *lattice, const sinew_points *positions, size_t first,
                                      size_t count)
{
    return write_block(lattice, positions, first, count, true);
}

sinew_result sinew_lattice_set_displacements(sinew_lattice *lattice, const sinew_points *displacements,
                                             size_t first, size_t count)
{
    return write_block(lattice, displacements, first, count, false);
}

void sinew_lattice_reset(sinew_lattice *lattice)
{
    if (!lattice) return;
    for (int c = 0; c < 3; ++c) memset(lattice->disp[c], 0, lattice->point_count * sizeof(float));
    lattice->disp_bound = 0.0;
    if (lattice->packed) memset(lattice->packed, 0, lattice->cell_count * SN_LAT_PACKED_CELL * sizeof(float));
}
