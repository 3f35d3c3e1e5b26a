/*
 * sinew_bbw_load: reads the sections of saved.h and checks every value the
 * way create and solve would have made it: the domain as create checks a
 * given mesh, the handles' constraints (indices, rows on the simplex, every
 * handle owning a vertex), the unreached regions and the info figures
 * against a recount, and the weights against the constraints and the
 * partition rule. Rebuilds the point-location grid and the vertex states;
 * the operators wait for a solve (sn_bbw_ensure_operators).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "bbw/bbw_internal.h"
#include "bbw/saved.h"

#define PREFIX SN_BBW_WHAT ": "

/* A constraint row's entries must sum to one within this (they are averages
 * of rows that do, in double precision). */
#define SN_BBW_ROW_SUM_TOLERANCE 1e-9
/* A row of solved weights sums to one within this: each float is the
 * rounding of a double of a row that does, so the float row is off by at
 * most 2^-24 of its sum. */
#define SN_BBW_WEIGHT_SUM_TOLERANCE 1e-6

/* Dimension and counts, checked as create checks its inputs. */
static sinew_result read_counts(sn_reader *rd, sinew_bbw *b)
{
    uint64_t d[SN_BBW_DOMAIN_N];
    sinew_result r = sn_reader_u64s(rd, SN_BBW_TAG_DOMAIN, SN_BBW_DOMAIN_N, d);
    if (r != SINEW_OK) return r;
    if (d[SN_BBW_DOMAIN_DIM] != 2 && d[SN_BBW_DOMAIN_DIM] != 3)
        return sn_fail(SINEW_ERROR_INVALID_DATA, PREFIX "dimension %llu is neither 2 nor 3",
                       (unsigned long long)d[SN_BBW_DOMAIN_DIM]);
    if (d[SN_BBW_DOMAIN_VERTICES] == 0 || d[SN_BBW_DOMAIN_ELEMENTS] == 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, PREFIX "the domain has %llu vertices and %llu elements",
                       (unsigned long long)d[SN_BBW_DOMAIN_VERTICES], (unsigned long long)d[SN_BBW_DOMAIN_ELEMENTS]);
    if (d[SN_BBW_DOMAIN_HANDLES] == 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, PREFIX "no handles");
    if (d[SN_BBW_DOMAIN_VERTICES] > UINT32_MAX || d[SN_BBW_DOMAIN_HANDLES] > UINT32_MAX ||
        d[SN_BBW_DOMAIN_ELEMENTS] > SIZE_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, PREFIX "%llu vertices, %llu elements or %llu handles exceed 2^32",
                       (unsigned long long)d[SN_BBW_DOMAIN_VERTICES], (unsigned long long)d[SN_BBW_DOMAIN_ELEMENTS],
                       (unsigned long long)d[SN_BBW_DOMAIN_HANDLES]);
    b->dim = (uint32_t)d[SN_BBW_DOMAIN_DIM];
    b->per = b->dim + 1;
    b->vertex_count = (size_t)d[SN_BBW_DOMAIN_VERTICES];
    b->element_count = (size_t)d[SN_BBW_DOMAIN_ELEMENTS];
    b->handle_count = (size_t)d[SN_BBW_DOMAIN_HANDLES];
    return SINEW_OK;
}

static sinew_result check_positions(const sinew_bbw *b)
{
    for (size_t v = 0; v < b->vertex_count; ++v) {
        const double *p = b->positions + 3 * v;
        for (int a = 0; a < 3; ++a)
            if (fabs(p[a]) > FLT_MAX)
                return sn_fail(SINEW_ERROR_NON_FINITE, PREFIX "domain vertex %zu has coordinate %c = %g, beyond float",
                               v, "xyz"[a], p[a]);
        if (b->dim == 2 && p[2] != 0.0)
            return sn_fail(SINEW_ERROR_INVALID_DATA, PREFIX "domain vertex %zu of the 2D domain has z = %g, not 0", v,
                           p[2]);
    }
    return SINEW_OK;
}

/* Positions, elements, the checks create makes, the point-location grid and
 * how far outside it queries snap. */
static sinew_result read_domain(sn_reader *rd, sinew_bbw *b)
{
    size_t coords, indices;
    if (!sn_mul_size(b->vertex_count, 3, &coords) || !sn_mul_size(b->element_count, b->per, &indices))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, PREFIX "%zu vertices and %zu elements overflow", b->vertex_count,
                       b->element_count);
    sinew_result r = sn_reader_expect(rd, SN_BBW_TAG_POSITIONS, SN_IO_F64, 1, coords);
    if (r == SINEW_OK) r = sn_reader_expect(rd, SN_BBW_TAG_ELEMENTS, SN_IO_U32, 1, indices);
    if (r != SINEW_OK) return r;
    b->positions = sn_alloc_array(&b->env, coords, sizeof(double), "domain positions");
    b->elements = sn_alloc_array(&b->env, indices, sizeof(uint32_t), "domain elements");
    if (!b->positions || !b->elements) return sn_alloc_failure();
    sn_reader_copy(rd, SN_BBW_TAG_POSITIONS, SN_IO_F64, coords, b->positions);
    sn_reader_copy(rd, SN_BBW_TAG_ELEMENTS, SN_IO_U32, indices, b->elements);
    if ((r = check_positions(b)) != SINEW_OK) return r;
    const char *noun = b->dim == 2 ? "triangle" : "tet";
    for (size_t i = 0; i < indices; ++i)
        if (b->elements[i] >= b->vertex_count)
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, PREFIX "%s %zu refers to vertex %u, but there are only %zu",
                           noun, i / b->per, b->elements[i], b->vertex_count);
    if ((r = sn_bbw_check_domain(b, PREFIX)) != SINEW_OK) return r;
    if ((r = sn_bbw_locator_build(b)) != SINEW_OK) return r;
    /* Create sets reach = max(3 grid cells, 2 voxels), and a voxel is
     * smaller than the domain's diagonal. */
    if ((r = sn_reader_copy(rd, SN_BBW_TAG_REACH, SN_IO_F64, 1, &b->reach)) != SINEW_OK) return r;
    double lo = 3.0 * b->locator.cell, hi = fmax(lo, 2.0 * b->scale);
    if (!(b->reach >= lo && b->reach <= hi))
        return sn_fail(SINEW_ERROR_INVALID_DATA, PREFIX "query reach %g is outside [%g, %g] for this domain", b->reach,
                       lo, hi);
    return SINEW_OK;
}

/* The sparse rows of the constrained vertices, checked entry by entry. */
typedef struct fixed_rows {
    size_t count, entries;
    uint32_t *vertex;
    uint64_t *start;
    uint32_t *handle;
    double *value;
} fixed_rows;

static sinew_result check_row(const sinew_bbw *b, const fixed_rows *f, size_t i)
{
    uint32_t v = f->vertex[i];
    if (v >= b->vertex_count)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, PREFIX "constrained vertex %zu is vertex %u, but there are only %zu",
                       i, v, b->vertex_count);
    if (i && v <= f->vertex[i - 1])
        return sn_fail(SINEW_ERROR_INVALID_DATA, PREFIX "constrained vertex %zu (vertex %u) does not follow vertex %u", i,
                       v, f->vertex[i - 1]);
    uint64_t begin = f->start[i], end = f->start[i + 1];
    if (!(begin < end && end <= f->entries))
        return sn_fail(SINEW_ERROR_INVALID_DATA, PREFIX "the row of vertex %u spans entries [%llu, %llu) of %zu", v,
                       (unsigned long long)begin, (unsigned long long)end, f->entries);
    double sum = 0.0;
    for (uint64_t k = begin; k < end; ++k) {
        uint32_t h = f->handle[k];
        if (h >= b->handle_count)
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, PREFIX "vertex %u is fixed by handle %u, but there are %zu",
                           v, h, b->handle_count);
        if (k > begin && h <= f->handle[k - 1])
            return sn_fail(SINEW_ERROR_INVALID_DATA, PREFIX "the row of vertex %u lists handle %u after handle %u", v, h,
                           f->handle[k - 1]);
        if (!(f->value[k] > 0.0 && f->value[k] <= 1.0))
            return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, PREFIX "vertex %u is fixed to %g for handle %u (not in (0, 1])",
                           v, f->value[k], h);
        sum += f->value[k];
    }
    if (!(fabs(sum - 1.0) <= SN_BBW_ROW_SUM_TOLERANCE))
        return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, PREFIX "the handle weights vertex %u is fixed to sum to %.17g, not 1",
                       v, sum);
    return SINEW_OK;
}

static void free_rows(const sinew_bbw *b, fixed_rows *f)
{
    sn_free(&b->env, f->vertex);
    sn_free(&b->env, f->start);
    sn_free(&b->env, f->handle);
    sn_free(&b->env, f->value);
}

static sinew_result read_rows(sn_reader *rd, const sinew_bbw *b, fixed_rows *f)
{
    sinew_result r = sn_reader_count(rd, SN_BBW_TAG_FIXED_VERTEX, SN_IO_U32, &f->count);
    if (r == SINEW_OK) r = sn_reader_count(rd, SN_BBW_TAG_FIXED_HANDLE, SN_IO_U32, &f->entries);
    if (r == SINEW_OK) r = sn_reader_expect(rd, SN_BBW_TAG_FIXED_START, SN_IO_U64, 1, f->count + 1);
    if (r == SINEW_OK) r = sn_reader_expect(rd, SN_BBW_TAG_FIXED_VALUE, SN_IO_F64, 1, f->entries);
    if (r != SINEW_OK) return r;
    /* Every handle dominates at a vertex of its own (create's rule), so
     * there are at least as many constrained vertices as handles. */
    if (f->count < b->handle_count)
        return sn_fail(SINEW_ERROR_DEGENERATE, PREFIX "%zu handles but only %zu constrained vertices: some handle owns "
                       "no vertex", b->handle_count, f->count);
    if (f->count > b->vertex_count)
        return sn_fail(SINEW_ERROR_INVALID_DATA, PREFIX "%zu constrained vertices in a domain of %zu", f->count,
                       b->vertex_count);
    f->vertex = sn_alloc_array(&b->env, f->count, sizeof(uint32_t), "loaded constrained vertices");
    f->start = sn_alloc_array(&b->env, f->count + 1, sizeof(uint64_t), "loaded constraint rows");
    f->handle = sn_alloc_array(&b->env, f->entries, sizeof(uint32_t), "loaded constraint handles");
    f->value = sn_alloc_array(&b->env, f->entries, sizeof(double), "loaded constraint values");
    if (!f->vertex || !f->start || !f->handle || !f->value) return sn_alloc_failure();
    sn_reader_copy(rd, SN_BBW_TAG_FIXED_VERTEX, SN_IO_U32, f->count, f->vertex);
    sn_reader_copy(rd, SN_BBW_TAG_FIXED_START, SN_IO_U64, f->count + 1, f->start);
    sn_reader_copy(rd, SN_BBW_TAG_FIXED_HANDLE, SN_IO_U32, f->entries, f->handle);
    sn_reader_copy(rd, SN_BBW_TAG_FIXED_VALUE, SN_IO_F64, f->entries, f->value);
    if (f->start[0] != 0 || f->start[f->count] != f->entries)
        return sn_fail(SINEW_ERROR_INVALID_DATA, PREFIX "constraint rows span [%llu, %llu), not the %zu entries",
                       (unsigned long long)f->start[0], (unsigned long long)f->start[f->count], f->entries);
    for (size_t i = 0; i < f->count; ++i)
        if ((r = check_row(b, f, i)) != SINEW_OK) return r;
    return SINEW_OK;
}

/* The handles' constraints as create leaves them: dense rows and vertex
 * states, then the unreached regions recounted against the saved counts. */
static sinew_result read_constraints(sn_reader *rd, sinew_bbw *b, const uint64_t *counts)
{
    fixed_rows f;
    memset(&f, 0, sizeof f);
    sinew_result r = read_rows(rd, b, &f);
    size_t m = b->handle_count, cells = 0;
    if (r == SINEW_OK && !sn_mul_size(b->vertex_count, m, &cells))
        r = sn_fail(SINEW_ERROR_SIZE_OVERFLOW, PREFIX "too many vertices times handles");
    if (r != SINEW_OK) goto done;
    b->fixed = sn_calloc_array(&b->env, cells, sizeof(double), "handle constraints");
    b->state = sn_calloc_array(&b->env, b->vertex_count, 1, "vertex states");
    if (!b->fixed || !b->state) {
        r = sn_alloc_failure();
        goto done;
    }
    for (size_t i = 0; i < f.count; ++i) {
        size_t v = f.vertex[i];
        b->state[v] = SN_BBW_FIXED;
        for (uint64_t k = f.start[i]; k < f.start[i + 1]; ++k) b->fixed[v * m + f.handle[k]] = f.value[k];
    }
    if ((r = sn_bbw_check_handle_vertices(b, PREFIX)) != SINEW_OK) goto done;
    if ((r = sn_bbw_find_unreached(b)) != SINEW_OK) goto done;
    for (size_t i = 0; i < f.count; ++i)
        if (b->state[f.vertex[i]] != SN_BBW_FIXED) {
            r = sn_fail(SINEW_ERROR_INVALID_DATA, PREFIX "constrained vertex %u lies in no element", f.vertex[i]);
            goto done;
        }
    b->info.constrained_vertex_count = f.count;
    uint64_t first = b->info.first_unreached_vertex == SIZE_MAX ? UINT64_MAX : b->info.first_unreached_vertex;
    if (counts[SN_BBW_COUNT_CONSTRAINED] != f.count ||
        counts[SN_BBW_COUNT_UNREACHED_VERTICES] != b->info.unreached_vertex_count ||
        counts[SN_BBW_COUNT_UNREACHED_REGIONS] != b->info.unreached_region_count ||
        counts[SN_BBW_COUNT_FIRST_UNREACHED] != first)
        r = sn_fail(SINEW_ERROR_INVALID_DATA,
                    PREFIX "the info counts %llu constrained and %llu unreached vertices in %llu regions (first %llu); "
                    "the data has %zu and %zu in %zu (first %llu)",
                    (unsigned long long)counts[SN_BBW_COUNT_CONSTRAINED],
                    (unsigned long long)counts[SN_BBW_COUNT_UNREACHED_VERTICES],
                    (unsigned long long)counts[SN_BBW_COUNT_UNREACHED_REGIONS],
                    (unsigned long long)counts[SN_BBW_COUNT_FIRST_UNREACHED], f.count,
                    b->info.unreached_vertex_count, b->info.unreached_region_count, (unsigned long long)first);
done:
    free_rows(b, &f);
    return r;
}

static double from_bits(uint64_t bits)
{
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* The solve's figures into b->info: residuals and the bound are >= 0
 * (infinite when never measured), timings finite; before a solve, all zero. */
static sinew_result read_figures(sn_reader *rd, sinew_bbw *b, const uint64_t *counts)
{
    uint64_t bits[SN_BBW_FIGURE_N];
    sinew_result r = sn_reader_u64s(rd, SN_BBW_TAG_FIGURES, SN_BBW_FIGURE_N, bits);
    if (r != SINEW_OK) return r;
    static const char *const names[SN_BBW_FIGURE_N] = {"primal residual",  "change residual",   "error bound",
                                                       "domain seconds",   "operator seconds", "solve seconds"};
    int solved = counts[SN_BBW_COUNT_SOLVED] != 0;
    for (int i = 0; i < SN_BBW_FIGURE_N; ++i) {
        double v = from_bits(bits[i]);
        int timing = i >= SN_BBW_FIGURE_SECONDS_DOMAIN;
        int ok = timing ? isfinite(v) : (v >= 0.0 && (i != SN_BBW_FIGURE_PRIMAL || isfinite(v)));
        if (!solved && i != SN_BBW_FIGURE_SECONDS_DOMAIN && i != SN_BBW_FIGURE_SECONDS_OPERATORS) ok = bits[i] == 0;
        if (!ok)
            return sn_fail(SINEW_ERROR_INVALID_DATA, PREFIX "the info's %s %g is not a possible value%s", names[i], v,
                           solved ? "" : " before a solve");
    }
    b->info.primal_residual = from_bits(bits[SN_BBW_FIGURE_PRIMAL]);
    b->info.change_residual = from_bits(bits[SN_BBW_FIGURE_CHANGE]);
    b->info.error_bound = from_bits(bits[SN_BBW_FIGURE_ERROR_BOUND]);
    b->info.seconds_domain = from_bits(bits[SN_BBW_FIGURE_SECONDS_DOMAIN]);
    b->info.seconds_operators = from_bits(bits[SN_BBW_FIGURE_SECONDS_OPERATORS]);
    b->info.seconds_solve = from_bits(bits[SN_BBW_FIGURE_SECONDS_SOLVE]);
    return SINEW_OK;
}

/* The integer figures of the solve: in range, and zero before one. */
static sinew_result check_counts(const uint64_t *c)
{
    uint64_t solved = c[SN_BBW_COUNT_SOLVED];
    if (solved > 1 || c[SN_BBW_COUNT_PARTITION] > SINEW_BBW_PARTITION_NORMALISE)
        return sn_fail(SINEW_ERROR_INVALID_DATA, PREFIX "solved flag %llu or partition %llu is not a known value",
                       (unsigned long long)solved, (unsigned long long)c[SN_BBW_COUNT_PARTITION]);
    if (c[SN_BBW_COUNT_ITERATIONS] > UINT32_MAX || c[SN_BBW_COUNT_POLISH_ROUNDS] > UINT32_MAX ||
        c[SN_BBW_COUNT_FACTOR_NONZEROS] > SIZE_MAX ||
        (!solved && (c[SN_BBW_COUNT_PARTITION] || c[SN_BBW_COUNT_ITERATIONS] || c[SN_BBW_COUNT_POLISH_ROUNDS] ||
                     c[SN_BBW_COUNT_FACTOR_NONZEROS])))
        return sn_fail(SINEW_ERROR_INVALID_DATA,
                       PREFIX "%llu iterations, %llu polish rounds and %llu factor entries are not possible%s",
                       (unsigned long long)c[SN_BBW_COUNT_ITERATIONS], (unsigned long long)c[SN_BBW_COUNT_POLISH_ROUNDS],
                       (unsigned long long)c[SN_BBW_COUNT_FACTOR_NONZEROS], solved ? "" : " before a solve");
    return SINEW_OK;
}

/* One vertex's solved weights: its constraint row for a constrained vertex,
 * zeros in a region no handle reaches, else a row in [0, 1] summing to one
 * (or, under the per-handle rule, all zero where every handle's weight
 * vanished). */
static sinew_result check_weight_row(const sinew_bbw *b, size_t v)
{
    size_t m = b->handle_count;
    const float *w = b->weights + v * m;
    double sum = 0.0;
    for (size_t j = 0; j < m; ++j) {
        float expected = b->state[v] == SN_BBW_FIXED ? (float)b->fixed[v * m + j] : 0.0f;
        if (b->state[v] != SN_BBW_FREE && w[j] != expected)
            return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, PREFIX "vertex %zu has weight %g for handle %zu, but %s %g", v,
                           (double)w[j], j, b->state[v] == SN_BBW_FIXED ? "its handles fix it to" : "no handle reaches it:",
                           (double)expected);
        if (!(w[j] >= 0.0f && w[j] <= 1.0f))
            return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, PREFIX "vertex %zu has weight %g for handle %zu, outside [0, 1]",
                           v, (double)w[j], j);
        sum += w[j];
    }
    if (b->state[v] != SN_BBW_FREE || fabs(sum - 1.0) <= SN_BBW_WEIGHT_SUM_TOLERANCE) return SINEW_OK;
    if (sum == 0.0 && b->partition == SINEW_BBW_PARTITION_NORMALISE) return SINEW_OK;
    return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, PREFIX "the weights of vertex %zu sum to %.9g, not 1", v, sum);
}

static sinew_result read_weights(sn_reader *rd, sinew_bbw *b)
{
    size_t cells = b->vertex_count * b->handle_count; /* fits: the constraints' rows were allocated */
    sinew_result r = sn_reader_expect(rd, SN_BBW_TAG_WEIGHTS, SN_IO_F32, 1, cells);
    if (r != SINEW_OK) return r;
    b->weights = sn_alloc_array(&b->env, cells, sizeof(float), "weights");
    if (!b->weights) return sn_alloc_failure();
    sn_reader_copy(rd, SN_BBW_TAG_WEIGHTS, SN_IO_F32, cells, b->weights);
    for (size_t v = 0; v < b->vertex_count; ++v)
        if ((r = check_weight_row(b, v)) != SINEW_OK) return r;
    return SINEW_OK;
}

/* ---- the source of an automatic volume (format version 2) ---- */

/* Every index of a source array below its limit. */
static sinew_result check_source_indices(const uint32_t *idx, size_t count, size_t per, size_t limit,
                                         const char *what, size_t first_item)
{
    for (size_t k = 0; k < count * per; ++k)
        if (idx[k] >= limit)
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, PREFIX "%s %zu refers to vertex %u, but there are %zu", what,
                           first_item + k / per, idx[k], limit);
    return SINEW_OK;
}

/* The counts of the source section, each array's section checked against
 * them before anything is allocated. */
static sinew_result read_source_counts(sn_reader *rd, const uint64_t *h, size_t *cage_totals)
{
    for (int i = SN_BBW_SOURCE_SURFACE_VERTICES; i <= SN_BBW_SOURCE_CAGES; ++i)
        if (h[i] > UINT32_MAX)
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, PREFIX "the kept surface or handles count %llu exceeds 2^32",
                           (unsigned long long)h[i]);
    static const struct {
        uint32_t tag;
        sn_io_type type;
        int count;
        size_t per;
    } arrays[] = {
        {SN_BBW_TAG_SOURCE_SURFACE, SN_IO_F32, SN_BBW_SOURCE_SURFACE_VERTICES, 3},
        {SN_BBW_TAG_SOURCE_TRIANGLES, SN_IO_U32, SN_BBW_SOURCE_SURFACE_TRIANGLES, 3},
        {SN_BBW_TAG_SOURCE_POINTS, SN_IO_F32, SN_BBW_SOURCE_POINTS, 3},
        {SN_BBW_TAG_SOURCE_JOINTS, SN_IO_F32, SN_BBW_SOURCE_JOINTS, 3},
        {SN_BBW_TAG_SOURCE_BONES, SN_IO_U32, SN_BBW_SOURCE_BONES, 2},
        {SN_BBW_TAG_SOURCE_CAGES, SN_IO_U64, SN_BBW_SOURCE_CAGES, 3},
    };
    sinew_result r = SINEW_OK;
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0] && r == SINEW_OK; ++i) {
        size_t elements;
        if (!sn_mul_size(arrays[i].per, (size_t)h[arrays[i].count], &elements))
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, PREFIX "the kept counts overflow");
        r = sn_reader_expect(rd, arrays[i].tag, arrays[i].type, 1, elements);
    }
    if (r != SINEW_OK) return r;
    /* The cages' totals, from their counts (each below 2^32, so no sum of
     * at most 2^32 of them overflows 64 bits). */
    size_t cages = (size_t)h[SN_BBW_SOURCE_CAGES];
    uint64_t totals[3] = {0, 0, 0};
    for (size_t c = 0; c < cages; ++c) {
        uint64_t counts[3];
        if ((r = sn_reader_copy_part(rd, SN_BBW_TAG_SOURCE_CAGES, SN_IO_U64, 3 * c, 3, counts)) != SINEW_OK) return r;
        for (int k = 0; k < 3; ++k) {
            if (counts[k] > UINT32_MAX)
                return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, PREFIX "kept cage %zu has %llu elements", c,
                               (unsigned long long)counts[k]);
            totals[k] += counts[k];
        }
    }
    if (totals[0] > SIZE_MAX / 3 || totals[1] > SIZE_MAX / 3 || totals[2] > SIZE_MAX / 3)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, PREFIX "the kept cages are too large");
    static const uint32_t cage_tags[3] = {SN_BBW_TAG_SOURCE_CAGE_VERTICES, SN_BBW_TAG_SOURCE_CAGE_EDGES,
                                          SN_BBW_TAG_SOURCE_CAGE_TRIANGLES};
    static const sn_io_type cage_types[3] = {SN_IO_F32, SN_IO_U32, SN_IO_U32};
    static const size_t cage_per[3] = {3, 2, 3};
    for (int k = 0; k < 3 && r == SINEW_OK; ++k) {
        cage_totals[k] = (size_t)totals[k];
        r = sn_reader_expect(rd, cage_tags[k], cage_types[k], 1, cage_per[k] * cage_totals[k]);
    }
    return r;
}

/* The kept create options, as create checks them. */
static sinew_result read_source_options(sn_bbw_source *s, const uint64_t *h)
{
    uint32_t tolerance_bits = (uint32_t)h[SN_BBW_SOURCE_HANDLE_TOLERANCE];
    memcpy(&s->handle_tolerance, &tolerance_bits, sizeof s->handle_tolerance);
    if (h[SN_BBW_SOURCE_HANDLE_TOLERANCE] > UINT32_MAX || !isfinite(s->handle_tolerance) || s->handle_tolerance < 0.0f)
        return sn_fail(SINEW_ERROR_INVALID_DATA, PREFIX "the kept handle tolerance is not a finite value >= 0");
    if (h[SN_BBW_SOURCE_VOLUME_FLAGS] & ~(uint64_t)SINEW_BBW_VOLUME_UNIFORM ||
        h[SN_BBW_SOURCE_POINT_PLACEMENT] > SINEW_BBW_PLACE_MOVE_VERTEX)
        return sn_fail(SINEW_ERROR_INVALID_DATA, PREFIX "kept volume flags %llu or point placement %llu unknown",
                       (unsigned long long)h[SN_BBW_SOURCE_VOLUME_FLAGS],
                       (unsigned long long)h[SN_BBW_SOURCE_POINT_PLACEMENT]);
    s->volume_flags = (uint32_t)h[SN_BBW_SOURCE_VOLUME_FLAGS];
    s->point_placement = (uint32_t)h[SN_BBW_SOURCE_POINT_PLACEMENT];
    return SINEW_OK;
}

/* The volume's figures (format version 2): sizes >= 0 and finite, a
 * resolution and cell sizes exactly when the volume is automatic (source),
 * levels only after a solve; all zero without a source is version 1 data. */
static sinew_result read_volume(sn_reader *rd, sinew_bbw *b, int source)
{
    uint64_t v[SN_BBW_VOLUME_N];
    sinew_result r = sn_reader_u64s(rd, SN_BBW_TAG_VOLUME, SN_BBW_VOLUME_N, v);
    if (r != SINEW_OK) return r;
    double cell = from_bits(v[SN_BBW_VOLUME_CELL_SIZE]), finest = from_bits(v[SN_BBW_VOLUME_FINEST_CELL]);
    double snap = from_bits(v[SN_BBW_VOLUME_MAX_SNAP]);
    int any = 0;
    for (int i = 0; i < SN_BBW_VOLUME_N; ++i) any |= v[i] != 0;
    int automatic_ok = source ? v[SN_BBW_VOLUME_GRID_RESOLUTION] >= 1 && cell > 0.0 && finest > 0.0 && finest <= cell
                              : v[SN_BBW_VOLUME_GRID_RESOLUTION] == 0 && cell == 0.0 && finest == 0.0 &&
                                    v[SN_BBW_VOLUME_REFINED_CELLS] == 0 && v[SN_BBW_VOLUME_HANDLE_CELLS] == 0;
    /* Each coarse level halves the grid, so there are fewer than 32. */
    if (!any && !source)
        return sn_fail(SINEW_ERROR_INVALID_DATA, PREFIX "format version 2 with no volume figures and no kept surface "
                       "(such data is version 1)");
    if (!automatic_ok || v[SN_BBW_VOLUME_GRID_RESOLUTION] > UINT32_MAX || v[SN_BBW_VOLUME_REFINED_CELLS] > SIZE_MAX ||
        v[SN_BBW_VOLUME_HANDLE_CELLS] > SIZE_MAX || !isfinite(cell) || !(snap >= 0.0) || !isfinite(snap) ||
        v[SN_BBW_VOLUME_COARSE_LEVELS] >= 32 || (!source && v[SN_BBW_VOLUME_COARSE_LEVELS]) ||
        (!b->info.solved && v[SN_BBW_VOLUME_COARSE_LEVELS]))
        return sn_fail(SINEW_ERROR_INVALID_DATA,
                       PREFIX "the volume's figures (grid %llu, cell %g, finest %g, snap %g, %llu coarse levels) are "
                       "not possible%s", (unsigned long long)v[SN_BBW_VOLUME_GRID_RESOLUTION], cell, finest, snap,
                       (unsigned long long)v[SN_BBW_VOLUME_COARSE_LEVELS],
                       source ? " for an automatic volume" : " for a given mesh");
    b->info.grid_resolution = (uint32_t)v[SN_BBW_VOLUME_GRID_RESOLUTION];
    b->info.refined_cell_count = (size_t)v[SN_BBW_VOLUME_REFINED_CELLS];
    b->info.handle_cell_count = (size_t)v[SN_BBW_VOLUME_HANDLE_CELLS];
    b->info.grid_cell_size = cell;
    b->info.finest_cell_size = finest;
    b->info.max_snap_distance = snap;
    b->info.coarse_levels_used = (uint32_t)v[SN_BBW_VOLUME_COARSE_LEVELS];
    return SINEW_OK;
}

/* Copies the arrays into s (allocated at the counts read_source_counts
 * checked) and checks their indices. */
static sinew_result read_source_arrays(sn_reader *rd, sn_bbw_source *s, const size_t *cage_totals)
{
    sn_reader_copy(rd, SN_BBW_TAG_SOURCE_SURFACE, SN_IO_F32, 3 * s->surface_vertex_count, s->surface_positions);
    sn_reader_copy(rd, SN_BBW_TAG_SOURCE_TRIANGLES, SN_IO_U32, 3 * s->surface_triangle_count, s->surface_triangles);
    sn_reader_copy(rd, SN_BBW_TAG_SOURCE_POINTS, SN_IO_F32, 3 * s->point_count, s->points);
    sn_reader_copy(rd, SN_BBW_TAG_SOURCE_JOINTS, SN_IO_F32, 3 * s->joint_count, s->joints);
    sn_reader_copy(rd, SN_BBW_TAG_SOURCE_BONES, SN_IO_U32, 2 * s->bone_count, s->bones);
    sn_reader_copy(rd, SN_BBW_TAG_SOURCE_CAGE_VERTICES, SN_IO_F32, 3 * cage_totals[0], s->cage_vertices);
    sn_reader_copy(rd, SN_BBW_TAG_SOURCE_CAGE_EDGES, SN_IO_U32, 2 * cage_totals[1], s->cage_edges);
    sn_reader_copy(rd, SN_BBW_TAG_SOURCE_CAGE_TRIANGLES, SN_IO_U32, 3 * cage_totals[2], s->cage_triangles);
    sinew_result r = check_source_indices(s->surface_triangles, s->surface_triangle_count, 3, s->surface_vertex_count,
                                          "kept surface triangle", 0);
    if (r == SINEW_OK) r = check_source_indices(s->bones, s->bone_count, 2, s->joint_count, "kept bone", 0);
    for (size_t c = 0; c < s->cage_count && r == SINEW_OK; ++c) {
        uint64_t counts[3];
        sn_reader_copy_part(rd, SN_BBW_TAG_SOURCE_CAGES, SN_IO_U64, 3 * c, 3, counts);
        s->cage_vertex_start[c + 1] = s->cage_vertex_start[c] + (size_t)counts[0];
        s->cage_edge_start[c + 1] = s->cage_edge_start[c] + (size_t)counts[1];
        s->cage_triangle_start[c + 1] = s->cage_triangle_start[c] + (size_t)counts[2];
        r = check_source_indices(s->cage_edges + 2 * s->cage_edge_start[c], (size_t)counts[1], 2, (size_t)counts[0],
                                 "kept cage edge", s->cage_edge_start[c]);
        if (r == SINEW_OK)
            r = check_source_indices(s->cage_triangles + 3 * s->cage_triangle_start[c], (size_t)counts[2], 3,
                                     (size_t)counts[0], "kept cage triangle", s->cage_triangle_start[c]);
    }
    return r;
}

/* The source sections, when the data has them (all or none). */
static sinew_result read_source(sn_reader *rd, sinew_bbw *b)
{
    uint64_t h[SN_BBW_SOURCE_N];
    sinew_result r = sn_reader_u64s(rd, SN_BBW_TAG_SOURCE, SN_BBW_SOURCE_N, h);
    size_t cage_totals[3];
    if (r == SINEW_OK) r = read_source_counts(rd, h, cage_totals);
    if (r != SINEW_OK) return r;
    /* The handles they make must be the domain's. */
    uint64_t handles = h[SN_BBW_SOURCE_POINTS] + h[SN_BBW_SOURCE_BONES] + (uint64_t)cage_totals[0];
    if (handles != b->handle_count)
        return sn_fail(SINEW_ERROR_MISMATCH, PREFIX "the kept handles make %llu handles, the domain has %zu",
                       (unsigned long long)handles, b->handle_count);
    sn_bbw_source_sizes n = {(size_t)h[SN_BBW_SOURCE_SURFACE_VERTICES], (size_t)h[SN_BBW_SOURCE_SURFACE_TRIANGLES],
                             (size_t)h[SN_BBW_SOURCE_POINTS],           (size_t)h[SN_BBW_SOURCE_JOINTS],
                             (size_t)h[SN_BBW_SOURCE_BONES],            (size_t)h[SN_BBW_SOURCE_CAGES],
                             cage_totals[0],                            cage_totals[1],
                             cage_totals[2]};
    sn_bbw_source *s = sn_bbw_source_alloc(&b->env, &n);
    if (!s) return sn_alloc_failure();
    r = read_source_options(s, h);
    if (r == SINEW_OK) r = read_source_arrays(rd, s, cage_totals);
    if (r != SINEW_OK) {
        sn_bbw_source_free(&b->env, s);
        return r;
    }
    b->source = s;
    return SINEW_OK;
}

static sinew_result read_handle(sn_reader *rd, sinew_bbw *b)
{
    uint64_t counts[SN_BBW_COUNT_N];
    sinew_result r = read_counts(rd, b);
    if (r == SINEW_OK) r = sn_reader_u64s(rd, SN_BBW_TAG_COUNTS, SN_BBW_COUNT_N, counts);
    if (r == SINEW_OK) r = check_counts(counts);
    if (r != SINEW_OK) return r;
    int solved = counts[SN_BBW_COUNT_SOLVED] != 0;
    /* Exactly the sections of saved.h, counted first so the message names
     * the layout expected (sn_reader_finish, at the end, refuses any section
     * left unread in every kind). Version 2 adds the volume's figures and,
     * for an automatic volume, its source. */
    int v2 = rd->format_version >= SN_BBW_VERSION_VOLUME;
    int source = v2 && sn_reader_has(rd, SN_BBW_TAG_SOURCE);
    uint32_t expected = 10u + (uint32_t)solved + (uint32_t)v2 + (source ? SN_BBW_SOURCE_SECTIONS : 0u);
    if (rd->section_count != expected)
        return sn_fail(SINEW_ERROR_INVALID_DATA, PREFIX "%u sections, but %s data of format version %u%s has %u",
                       rd->section_count, solved ? "solved" : "unsolved", rd->format_version,
                       source ? " with its kept surface" : "", expected);
    if ((r = read_domain(rd, b)) != SINEW_OK) return r;
    if ((r = read_constraints(rd, b, counts)) != SINEW_OK) return r;
    if ((r = read_figures(rd, b, counts)) != SINEW_OK) return r;
    b->info.vertex_count = b->vertex_count;
    b->info.element_count = b->element_count;
    b->info.handle_count = b->handle_count;
    b->info.solved = solved;
    b->info.first_clipped_handle = SIZE_MAX; /* what create clipped is not saved */
    b->info.iterations = (uint32_t)counts[SN_BBW_COUNT_ITERATIONS];
    b->info.polish_rounds = (uint32_t)counts[SN_BBW_COUNT_POLISH_ROUNDS];
    b->info.factor_nonzeros = (size_t)counts[SN_BBW_COUNT_FACTOR_NONZEROS];
    b->partition = (sinew_bbw_partition)counts[SN_BBW_COUNT_PARTITION];
    if (solved && (r = read_weights(rd, b)) != SINEW_OK) return r;
    if (v2 && (r = read_volume(rd, b, source)) != SINEW_OK) return r;
    if (source && (r = read_source(rd, b)) != SINEW_OK) return r;
    return sn_reader_finish(rd);
}

sinew_result sinew_bbw_load(sinew_context *ctx, const void *data, size_t size, sinew_bbw **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out is NULL");
    sn_reader rd;
    sinew_result r = sn_reader_open(&rd, data, size, SINEW_KIND_BBW, SN_BBW_WHAT);
    if (r != SINEW_OK) return r;
    sn_env env;
    sn_env_from_context(&env, ctx);
    sinew_bbw *b = sn_calloc(&env, sizeof *b, "bbw handle");
    if (!b) return sn_alloc_failure();
    b->held_bytes = sizeof *b;
    env.held = &b->held_bytes;
    b->env = sn_env_kept(&env);
    if ((r = read_handle(&rd, b)) != SINEW_OK) {
        sinew_bbw_destroy(b);
        return r;
    }
    *out = b;
    return SINEW_OK;
}
