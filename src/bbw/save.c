/*
 * sinew_bbw_save: the domain, the handles' constraints, the info figures,
 * (once solved) the weights and (for an automatic volume) what it was made
 * from, as the sections of saved.h. The handle
 * keeps its constraints as dense rows (vertices x handles); the data holds
 * only the constrained vertices' nonzero entries, gathered into scratch
 * arrays for the writing pass.
 */
#include <string.h>

#include "bbw/bbw_internal.h"
#include "bbw/saved.h"

/* What the writer callback reads: the handle and the sparse rows. */
typedef struct saved_view {
    const sinew_bbw *b;
    size_t fixed_count;       /* constrained vertices */
    size_t entry_count;       /* their nonzero entries */
    uint32_t *fixed_vertex;   /* NULL while only measuring */
    uint64_t *fixed_start;
    uint32_t *fixed_handle;
    double *fixed_value;
} saved_view;

static uint64_t double_bits(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}

/* The volume's figures (format version 2, when any is set). */
static void volume_figures(const sinew_bbw *b, uint64_t *v)
{
    const sinew_bbw_info *in = &b->info;
    v[SN_BBW_VOLUME_GRID_RESOLUTION] = in->grid_resolution;
    v[SN_BBW_VOLUME_REFINED_CELLS] = in->refined_cell_count;
    v[SN_BBW_VOLUME_HANDLE_CELLS] = in->handle_cell_count;
    v[SN_BBW_VOLUME_CELL_SIZE] = double_bits(in->grid_cell_size);
    v[SN_BBW_VOLUME_FINEST_CELL] = double_bits(in->finest_cell_size);
    v[SN_BBW_VOLUME_MAX_SNAP] = double_bits(in->max_snap_distance);
    v[SN_BBW_VOLUME_COARSE_LEVELS] = in->coarse_levels_used;
}

/* The kept source of an automatic volume (format version 2). */
static void write_source(sn_writer *w, const sn_bbw_source *src)
{
    uint32_t tolerance_bits;
    memcpy(&tolerance_bits, &src->handle_tolerance, sizeof tolerance_bits);
    size_t cage_vertices = src->cage_vertex_start[src->cage_count];
    size_t cage_edges = src->cage_edge_start[src->cage_count];
    size_t cage_triangles = src->cage_triangle_start[src->cage_count];
    uint64_t head[SN_BBW_SOURCE_N] = {
        [SN_BBW_SOURCE_SURFACE_VERTICES] = src->surface_vertex_count,
        [SN_BBW_SOURCE_SURFACE_TRIANGLES] = src->surface_triangle_count,
        [SN_BBW_SOURCE_POINTS] = src->point_count,
        [SN_BBW_SOURCE_JOINTS] = src->joint_count,
        [SN_BBW_SOURCE_BONES] = src->bone_count,
        [SN_BBW_SOURCE_CAGES] = src->cage_count,
        [SN_BBW_SOURCE_HANDLE_TOLERANCE] = tolerance_bits,
        [SN_BBW_SOURCE_VOLUME_FLAGS] = src->volume_flags,
        [SN_BBW_SOURCE_POINT_PLACEMENT] = src->point_placement,
    };
    sn_write_section(w, SN_BBW_TAG_SOURCE, SN_IO_U64, head, SN_BBW_SOURCE_N);
    sn_write_section(w, SN_BBW_TAG_SOURCE_SURFACE, SN_IO_F32, src->surface_positions, 3 * src->surface_vertex_count);
    sn_write_section(w, SN_BBW_TAG_SOURCE_TRIANGLES, SN_IO_U32, src->surface_triangles,
                     3 * src->surface_triangle_count);
    sn_write_section(w, SN_BBW_TAG_SOURCE_POINTS, SN_IO_F32, src->points, 3 * src->point_count);
    sn_write_section(w, SN_BBW_TAG_SOURCE_JOINTS, SN_IO_F32, src->joints, 3 * src->joint_count);
    sn_write_section(w, SN_BBW_TAG_SOURCE_BONES, SN_IO_U32, src->bones, 2 * src->bone_count);
    sn_write_begin(w, SN_BBW_TAG_SOURCE_CAGES, SN_IO_U64);
    for (size_t c = 0; c < src->cage_count; ++c) {
        uint64_t counts[3] = {src->cage_vertex_start[c + 1] - src->cage_vertex_start[c],
                              src->cage_edge_start[c + 1] - src->cage_edge_start[c],
                              src->cage_triangle_start[c + 1] - src->cage_triangle_start[c]};
        sn_write_append(w, counts, 3);
    }
    sn_write_end(w);
    sn_write_section(w, SN_BBW_TAG_SOURCE_CAGE_VERTICES, SN_IO_F32, src->cage_vertices, 3 * cage_vertices);
    sn_write_section(w, SN_BBW_TAG_SOURCE_CAGE_EDGES, SN_IO_U32, src->cage_edges, 2 * cage_edges);
    sn_write_section(w, SN_BBW_TAG_SOURCE_CAGE_TRIANGLES, SN_IO_U32, src->cage_triangles, 3 * cage_triangles);
}

static void write_sections(sn_writer *w, const void *handle)
{
    const saved_view *s = (const saved_view *)handle;
    const sinew_bbw *b = s->b;
    const sinew_bbw_info *in = &b->info;
    uint64_t domain[SN_BBW_DOMAIN_N] = {b->dim, b->vertex_count, b->element_count, b->handle_count};
    uint64_t counts[SN_BBW_COUNT_N] = {
        [SN_BBW_COUNT_CONSTRAINED] = in->constrained_vertex_count,
        [SN_BBW_COUNT_UNREACHED_VERTICES] = in->unreached_vertex_count,
        [SN_BBW_COUNT_UNREACHED_REGIONS] = in->unreached_region_count,
        [SN_BBW_COUNT_FIRST_UNREACHED] =
            in->first_unreached_vertex == SIZE_MAX ? UINT64_MAX : (uint64_t)in->first_unreached_vertex,
        [SN_BBW_COUNT_SOLVED] = b->weights != NULL,
        [SN_BBW_COUNT_PARTITION] = b->weights ? (uint64_t)b->partition : 0,
        [SN_BBW_COUNT_ITERATIONS] = in->iterations,
        [SN_BBW_COUNT_POLISH_ROUNDS] = in->polish_rounds,
        [SN_BBW_COUNT_FACTOR_NONZEROS] = in->factor_nonzeros,
    };
    uint64_t figures[SN_BBW_FIGURE_N] = {
        [SN_BBW_FIGURE_PRIMAL] = double_bits(in->primal_residual),
        [SN_BBW_FIGURE_CHANGE] = double_bits(in->change_residual),
        [SN_BBW_FIGURE_ERROR_BOUND] = double_bits(in->error_bound),
        [SN_BBW_FIGURE_SECONDS_DOMAIN] = double_bits(in->seconds_domain),
        [SN_BBW_FIGURE_SECONDS_OPERATORS] = double_bits(in->seconds_operators),
        [SN_BBW_FIGURE_SECONDS_SOLVE] = double_bits(in->seconds_solve),
    };
    sn_write_section(w, SN_BBW_TAG_DOMAIN, SN_IO_U64, domain, SN_BBW_DOMAIN_N);
    sn_write_section(w, SN_BBW_TAG_POSITIONS, SN_IO_F64, b->positions, 3 * b->vertex_count);
    sn_write_section(w, SN_BBW_TAG_ELEMENTS, SN_IO_U32, b->elements, b->per * b->element_count);
    sn_write_section(w, SN_BBW_TAG_REACH, SN_IO_F64, &b->reach, 1);
    sn_write_section(w, SN_BBW_TAG_FIXED_VERTEX, SN_IO_U32, s->fixed_vertex, s->fixed_count);
    sn_write_section(w, SN_BBW_TAG_FIXED_START, SN_IO_U64, s->fixed_start, s->fixed_count + 1);
    sn_write_section(w, SN_BBW_TAG_FIXED_HANDLE, SN_IO_U32, s->fixed_handle, s->entry_count);
    sn_write_section(w, SN_BBW_TAG_FIXED_VALUE, SN_IO_F64, s->fixed_value, s->entry_count);
    sn_write_section(w, SN_BBW_TAG_COUNTS, SN_IO_U64, counts, SN_BBW_COUNT_N);
    sn_write_section(w, SN_BBW_TAG_FIGURES, SN_IO_U64, figures, SN_BBW_FIGURE_N);
    if (b->weights) sn_write_section(w, SN_BBW_TAG_WEIGHTS, SN_IO_F32, b->weights, b->vertex_count * b->handle_count);
    uint64_t volume[SN_BBW_VOLUME_N];
    volume_figures(b, volume);
    int any = 0;
    for (int i = 0; i < SN_BBW_VOLUME_N; ++i) any |= volume[i] != 0;
    if (any || b->source) {
        sn_write_format_version(w, SN_BBW_VERSION_VOLUME);
        sn_write_section(w, SN_BBW_TAG_VOLUME, SN_IO_U64, volume, SN_BBW_VOLUME_N);
    }
    if (b->source) write_source(w, b->source);
}

/* Counts the constrained vertices and their nonzero entries. */
static void count_fixed(const sinew_bbw *b, saved_view *s)
{
    size_t m = b->handle_count;
    for (size_t v = 0; v < b->vertex_count; ++v) {
        if (b->state[v] != SN_BBW_FIXED) continue;
        s->fixed_count++;
        for (size_t j = 0; j < m; ++j) s->entry_count += b->fixed[v * m + j] != 0.0;
    }
}

static void free_fixed(const sinew_bbw *b, saved_view *s)
{
    sn_free(&b->env, s->fixed_vertex);
    sn_free(&b->env, s->fixed_start);
    sn_free(&b->env, s->fixed_handle);
    sn_free(&b->env, s->fixed_value);
}

/* Gathers the sparse rows (scratch from the handle's allocator). */
static sinew_result gather_fixed(const sinew_bbw *b, saved_view *s)
{
    s->fixed_vertex = sn_alloc_array(&b->env, s->fixed_count, sizeof(uint32_t), "saved constrained vertices");
    s->fixed_start = sn_alloc_array(&b->env, s->fixed_count + 1, sizeof(uint64_t), "saved constraint rows");
    s->fixed_handle = sn_alloc_array(&b->env, s->entry_count, sizeof(uint32_t), "saved constraint handles");
    s->fixed_value = sn_alloc_array(&b->env, s->entry_count, sizeof(double), "saved constraint values");
    if (!s->fixed_vertex || !s->fixed_start || !s->fixed_handle || !s->fixed_value) {
        sinew_result r = sn_alloc_failure();
        free_fixed(b, s);
        return r;
    }
    size_t m = b->handle_count, row = 0, entry = 0;
    for (size_t v = 0; v < b->vertex_count; ++v) {
        if (b->state[v] != SN_BBW_FIXED) continue;
        s->fixed_vertex[row] = (uint32_t)v;
        s->fixed_start[row++] = entry;
        for (size_t j = 0; j < m; ++j) {
            double value = b->fixed[v * m + j];
            if (value == 0.0) continue;
            s->fixed_handle[entry] = (uint32_t)j;
            s->fixed_value[entry++] = value;
        }
    }
    s->fixed_start[row] = entry;
    return SINEW_OK;
}

sinew_result sinew_bbw_save(const sinew_bbw *bbw, void *buffer, size_t capacity, size_t *size)
{
    sn_clear_error();
    if (!bbw || !size) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", bbw ? "size" : "bbw");
    saved_view s;
    memset(&s, 0, sizeof s);
    s.b = bbw;
    count_fixed(bbw, &s);
    /* Measure first: a size query or a small buffer needs no scratch. */
    size_t needed = 0;
    sinew_result r = sn_save(SINEW_KIND_BBW, write_sections, &s, NULL, 0, &needed, SN_BBW_WHAT);
    if (r != SINEW_OK) return r;
    if (!buffer || capacity < needed)
        return sn_save(SINEW_KIND_BBW, write_sections, &s, buffer, capacity, size, SN_BBW_WHAT);
    if ((r = gather_fixed(bbw, &s)) != SINEW_OK) return r;
    r = sn_save(SINEW_KIND_BBW, write_sections, &s, buffer, capacity, size, SN_BBW_WHAT);
    free_fixed(bbw, &s);
    return r;
}
