/* Positions of deform records (bound points, and one-shot points on records
 * built on the stack) through the kernel the lattice uses, fastest first: AVX2
 * over the packed cells of a cubic lattice, or AVX2 rows of any order along u
 * (deform_avx2.c); the x86-64 baseline's SSE2 for order 4 along u, reading
 * four neighbouring control points with one load per coordinate; plain C for
 * everything else and for the derivatives bound normals need. */
#include <string.h>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#  include <emmintrin.h>
#  define SN_LAT_SSE 1
#endif

#include "lattice/deform_kernels.h"
#include "lattice/lattice_internal.h"

void sn_lat_contract_record(const sinew_lattice *lat, const float *rec, uint32_t first, float disp[3], float *grad)
{
    const uint32_t ou = lat->axis[0].order, ov = lat->axis[1].order, ow = lat->axis[2].order;
    const size_t nu = lat->axis[0].count, slab = nu * lat->axis[1].count;
    const float *bu = rec + 4, *bv = bu + ou, *bw = bv + ov;
    const float *du = bw + ow, *dv = du + ou, *dw = dv + ov;
    const float *dx = lat->disp[0], *dy = lat->disp[1], *dz = lat->disp[2];
    float d[3] = {0, 0, 0}, g[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (uint32_t k = 0; k < ow; ++k)
        for (uint32_t j = 0; j < ov; ++j) {
            size_t row = first + k * slab + j * nu;
            float rv[3] = {0, 0, 0}, ru[3] = {0, 0, 0};
            for (uint32_t i = 0; i < ou; ++i) {
                rv[0] += bu[i] * dx[row + i];
                rv[1] += bu[i] * dy[row + i];
                rv[2] += bu[i] * dz[row + i];
                if (grad) {
                    ru[0] += du[i] * dx[row + i];
                    ru[1] += du[i] * dy[row + i];
                    ru[2] += du[i] * dz[row + i];
                }
            }
            float w = bv[j] * bw[k];
            for (int c = 0; c < 3; ++c) d[c] += w * rv[c];
            if (grad) {
                float wv = dv[j] * bw[k], ww = bv[j] * dw[k];
                for (int c = 0; c < 3; ++c) {
                    g[c] += w * ru[c];
                    g[3 + c] += wv * rv[c];
                    g[6 + c] += ww * rv[c];
                }
            }
        }
    memcpy(disp, d, sizeof d);
    if (grad) memcpy(grad, g, sizeof g);
}

/* Positions only, order 4 along u: per (j, k) row, one load of four
 * neighbours per coordinate scaled by bv[j] * bw[k]; the u-basis is applied
 * once at the end. */
static void deform_cubic_u(const sinew_lattice *lat, const float *records, size_t rec, float *out, size_t stride,
                           size_t first, size_t count)
{
    const uint32_t ov = lat->axis[1].order, ow = lat->axis[2].order;
    const size_t nu = lat->axis[0].count, slab = nu * lat->axis[1].count;
    const float *dx = lat->disp[0], *dy = lat->disp[1], *dz = lat->disp[2];
    for (size_t i = first; i < first + count; ++i) {
        const float *r = records + i * rec;
        float *o = (float *)((char *)out + i * stride);
        uint32_t idx;
        if (sn_lat_record_left(r, o, &idx)) continue;
        const float *bv = r + 8, *bw = bv + ov;
        __m128 ax = _mm_setzero_ps(), ay = _mm_setzero_ps(), az = _mm_setzero_ps();
        for (uint32_t k = 0; k < ow; ++k) {
            size_t base = idx + k * slab;
            for (uint32_t j = 0; j < ov; ++j) {
                __m128 w = _mm_set1_ps(bv[j] * bw[k]);
                size_t at = base + j * nu;
                ax = _mm_add_ps(ax, _mm_mul_ps(w, _mm_loadu_ps(dx + at)));
                ay = _mm_add_ps(ay, _mm_mul_ps(w, _mm_loadu_ps(dy + at)));
                az = _mm_add_ps(az, _mm_mul_ps(w, _mm_loadu_ps(dz + at)));
            }
        }
        __m128 bu = _mm_loadu_ps(r + 4);
        ax = _mm_mul_ps(ax, bu);
        ay = _mm_mul_ps(ay, bu);
        az = _mm_mul_ps(az, bu);
        __m128 zero = _mm_setzero_ps();
        _MM_TRANSPOSE4_PS(ax, ay, az, zero);
        __m128 sum = _mm_add_ps(_mm_add_ps(ax, ay), _mm_add_ps(az, zero));
        float s[4];
        _mm_storeu_ps(s, sum);
        o[0] = r[0] + s[0];
        o[1] = r[1] + s[1];
        o[2] = r[2] + s[2];
    }
}

void sn_lat_deform_records(const sinew_lattice *lat, const float *records, size_t record, const uint32_t *cells,
                           float *out, size_t stride, size_t first, size_t count)
{
    if (lat->kernel && cells) {
        lat->kernel(records, record, cells, lat->packed, out, stride, first, count);
        return;
    }
    if (lat->rows) {
        lat->rows(lat, records, record, out, stride, first, count);
        return;
    }
#ifdef SN_LAT_SSE
    if (lat->sse && lat->axis[0].order == 4) {
        deform_cubic_u(lat, records, record, out, stride, first, count);
        return;
    }
#endif
    for (size_t i = first; i < first + count; ++i) {
        const float *r = records + i * record;
        uint32_t idx;
        memcpy(&idx, r + 3, sizeof idx);
        float d[3] = {0, 0, 0};
        if (idx != SN_LAT_LEAVE) sn_lat_contract_record(lat, r, idx, d, NULL);
        float *o = (float *)((char *)out + i * stride);
        for (int c = 0; c < 3; ++c) o[c] = r[c] + d[c];
    }
}
