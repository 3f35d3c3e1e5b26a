/* One-shot deformation of positions: per block of points, the deform records
 * a binding would hold (base, first control point, basis values) are built on
 * the stack, by the AVX2 filler (fill_avx2.c) where the CPU has it or by the
 * scalar filler below, and handed to the bound-deform kernels; packed cubic
 * lattices skip the records (fill_avx2.c's one-shot contraction). The fillers
 * find the knot span by arithmetic on the uniform knots and evaluate the
 * basis once per point and axis. */
#include <math.h>
#include <string.h>

#include "lattice/lattice_internal.h"

/* Points per block of records on the stack. */
#define SN_LAT_ONESHOT_BLOCK 64

/* The scalar filler (see sn_lat_fill_fn): the basis in double by
 * sn_lat_basis_uniform, then rounded to the kernels' floats. */
static void fill_scalar(const sinew_lattice *lat, const char *in, size_t in_stride, size_t count, bool world,
                        float *records, size_t record, uint32_t *cells)
{
    const size_t nu = lat->axis[0].count, nv = lat->axis[1].count;
    const size_t cu = lat->axis[0].cells, cv = lat->axis[1].cells;
    for (size_t k = 0; k < count; ++k) {
        double u[3], base[3];
        sn_lat_point(lat, (const float *)(const void *)(in + k * in_stride), world, u, base);
        float *rec = records + k * record, *v = rec + 4;
        for (int c = 0; c < 3; ++c) rec[c] = (float)base[c];
        bool leave = false;
        uint32_t cell[3];
        for (int a = 0; a < 3; ++a) {
            const sn_lat_axis *axis = &lat->axis[a];
            double value[SN_LAT_MAX_ORDER];
            const double x = u[a];
            if (x >= 0.0 && x <= 1.0) {
                cell[a] = sn_lat_basis_uniform(axis, x, value);
            } else {
                /* As sn_lat_axis_basis: the end's basis, continued along its
                 * tangent by EXTEND. */
                const int end = x > 1.0;
                cell[a] = end ? axis->cells - 1 : 0;
                leave |= lat->outside == SINEW_LATTICE_OUTSIDE_LEAVE;
                for (uint32_t r = 0; r < axis->order; ++r)
                    value[r] = lat->outside == SINEW_LATTICE_OUTSIDE_EXTEND
                                   ? axis->end_value[end][r] + (x - (double)end) * axis->end_deriv[end][r]
                                   : axis->end_value[end][r];
            }
            for (uint32_t r = 0; r < axis->order; ++r) *v++ = (float)value[r];
        }
        uint32_t first = leave ? SN_LAT_LEAVE : (uint32_t)(cell[0] + nu * (cell[1] + nv * cell[2]));
        memcpy(rec + 3, &first, sizeof first);
        if (cells) cells[k] = leave ? 0u : (uint32_t)(cell[0] + cu * (cell[1] + cv * cell[2]));
    }
}

void sn_lat_fill_records(const sinew_lattice *lat, const char *in, size_t in_stride, size_t count, bool world,
                         float *records, size_t record, uint32_t *cells)
{
    (lat->fill ? lat->fill : fill_scalar)(lat, in, in_stride, count, world, records, record, cells);
}

/* Lattices whose control point indices do not fit the records' 32 bits:
 * the double-precision contraction, point by point. */
static void deform_points_wide(const sinew_lattice *lat, const sinew_points *in, bool world, float *out,
                               size_t stride, size_t first, size_t count)
{
    for (size_t i = first; i < first + count; ++i) {
        double u[3], base[3], d[3];
        sn_lat_point(lat, sn_point(in, i), world, u, base);
        sn_lat_displacement(lat, u, d);
        float *o = (float *)(void *)((char *)out + i * stride);
        for (int c = 0; c < 3; ++c) o[c] = (float)(base[c] + d[c]);
    }
}

void sn_lat_deform_points(const sinew_lattice *lat, const sinew_points *in, bool world, float *out, size_t stride,
                          size_t first, size_t count)
{
    if (lat->point_count >= SN_LAT_LEAVE) {
        deform_points_wide(lat, in, world, out, stride, first, count);
        return;
    }
    const size_t in_stride = sn_stride(in->stride, 3 * sizeof(float));
    if (lat->oneshot) {
        lat->oneshot(lat, (const char *)sn_point(in, first), in_stride, count, world,
                     (float *)(void *)((char *)out + first * stride), stride);
        return;
    }
    enum { MAX_RECORD = 4 + 3 * SN_LAT_MAX_ORDER };
    _Alignas(64) float records[SN_LAT_ONESHOT_BLOCK * MAX_RECORD];
    uint32_t cells[SN_LAT_ONESHOT_BLOCK];
    const uint32_t order[3] = {lat->axis[0].order, lat->axis[1].order, lat->axis[2].order};
    const size_t record = sn_lat_record_floats(order, false);
    uint32_t *cell_out = lat->kernel ? cells : NULL;
    for (size_t start = first; start < first + count; start += SN_LAT_ONESHOT_BLOCK) {
        size_t n = first + count - start < SN_LAT_ONESHOT_BLOCK ? first + count - start : SN_LAT_ONESHOT_BLOCK;
        sn_lat_fill_records(lat, (const char *)sn_point(in, start), in_stride, n, world, records, record, cell_out);
        sn_lat_deform_records(lat, records, record, cell_out, (float *)(void *)((char *)out + start * stride), stride,
                              0, n);
    }
}
