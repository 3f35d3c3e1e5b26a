/* Bound-deformation kernels built with their own ISA flags, chosen at run
 * time, and the packed per-cell copy of a cubic lattice they read. */
#ifndef SINEW_LATTICE_DEFORM_KERNELS_H
#define SINEW_LATTICE_DEFORM_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct sinew_lattice;

/* The record of a bound point is left as its base when its index is this. */
#define SN_LAT_LEAVE UINT32_MAX

/* Reads record r's first control point index into *idx; when the record's
 * point is left alone (SN_LAT_LEAVE), writes its base to o and returns true. */
static inline bool sn_lat_record_left(const float *r, float *o, uint32_t *idx)
{
    memcpy(idx, r + 3, sizeof *idx);
    if (*idx != SN_LAT_LEAVE) return false;
    o[0] = r[0], o[1] = r[1], o[2] = r[2];
    return true;
}

/* A cubic (4, 4, 4) lattice may keep, per cell, its 64 displacements packed
 * so that a kernel reads them with 24 aligned 256-bit loads: for local
 * control point (i, j, k) of the cell and coordinate c, the float at
 * cell * SN_LAT_PACKED_CELL + k * 48 + c * 16 + j * 4 + i. */
#define SN_LAT_PACKED_CELL 192
/* Largest cell count that gets a packed copy (24 MB). */
#define SN_LAT_PACKED_MAX_CELLS 32768

/* Deforms points [first, first + count) of a binding: records (record floats
 * each: base xyz, first-index bits, bu[4], bv[4], bw[4]), cells (the packed
 * cell of each point), packed (the lattice's packed displacements). Writes
 * point i at byte offset i * stride of out. */
typedef void (*sn_lat_kernel_fn)(const float *records, size_t record, const uint32_t *cells, const float *packed,
                                 float *out, size_t stride, size_t first, size_t count);

/* The AVX2 + FMA kernel for packed cubic lattices, or NULL when this build
 * has none or the CPU lacks the instructions. */
sn_lat_kernel_fn sn_lat_cubic_avx2_kernel(void);

/* Deforms records [first, first + count) (as sn_lat_kernel_fn, any orders)
 * through the lattice's displacement arrays. */
typedef void (*sn_lat_rows_fn)(const struct sinew_lattice *lat, const float *records, size_t record, float *out,
                               size_t stride, size_t first, size_t count);

/* The AVX2 + FMA row kernel, or NULL. */
sn_lat_rows_fn sn_lat_rows_avx2_kernel(void);

/* Fills the deform records (record floats each, laid out as a binding
 * without normals lays them out: base xyz, first-index bits, basis values of
 * u, v and w) of count one-shot points read as 3 floats at in + k * in_stride
 * bytes: world points when world (base = the point), else (u, v, w)
 * parameters (base = the box position). cells, when not NULL, receives each
 * point's packed cell. The outside policy applies as in sn_lat_axis_basis.
 * Each point's record depends on that point alone. */
typedef void (*sn_lat_fill_fn)(const struct sinew_lattice *lat, const char *in, size_t in_stride, size_t count,
                               bool world, float *records, size_t record, uint32_t *cells);

/* The AVX2 + FMA record filler (eight points at a time), or NULL when this
 * build has none or the CPU lacks the instructions. */
sn_lat_fill_fn sn_lat_fill_avx2(void);

/* Deforms count one-shot points (read as for sn_lat_fill_fn) through a
 * lattice with a packed cubic copy, writing point k at out + k * out_stride
 * bytes; each output depends on its point alone. */
typedef void (*sn_lat_oneshot_fn)(const struct sinew_lattice *lat, const char *in, size_t in_stride, size_t count,
                                  bool world, float *out, size_t out_stride);

/* The AVX2 + FMA one-shot deformation of packed cubic lattices, or NULL. */
sn_lat_oneshot_fn sn_lat_oneshot_cubic_avx2(void);

/* Whether every one of count points (read as for sn_lat_fill_fn) is finite
 * and passes the float-range proof of sn_lat_check_point_fits for positions
 * (a conservative test: false sends the caller to the exact per-point
 * checks). The common case in which a one-shot call's validation needs no
 * per-point work. */
typedef bool (*sn_lat_all_fit_fn)(const struct sinew_lattice *lat, const char *in, size_t in_stride, size_t count,
                                  bool world);

/* The AVX2 check, or NULL. */
sn_lat_all_fit_fn sn_lat_all_fit_avx2(void);

#endif /* SINEW_LATTICE_DEFORM_KERNELS_H */
