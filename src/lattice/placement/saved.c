/* Saving and loading a placement (docs/placement.md, "Save and load"):
 * everything later edits read. The scene is not kept: the only thing edits
 * need from it, how far each contact point may rise before it meets the
 * scene above (the ceilings), is stored per column. The lattice is written
 * and read through the lattice's own sections (lattice_saved.h); on load it
 * must be exactly where the contact columns and heights put it, as every
 * edit leaves it. */
#include <math.h>
#include <string.h>

#include "lattice/lattice_saved.h"
#include "lattice/placement/placement_internal.h"

/* PSTR: u64 counts (u, v, w), volume, rays cast, misses. PUPV: f64 up.
 * PMET: f32 path length, contact length, max width, max height. Per contact
 * column: PHIT f32 hits, PDOF f32 directions, PCEI u32 ceilings (float bits:
 * infinity means no scene above), PLFT f32 lifts, PLAY f32 layer directions.
 * PHGT: f32 height of every lattice point above its contact point. */
#define TAG_STRUCTURE SN_TAG('P', 'S', 'T', 'R')
#define TAG_UP SN_TAG('P', 'U', 'P', 'V')
#define TAG_METRICS SN_TAG('P', 'M', 'E', 'T')
#define TAG_HITS SN_TAG('P', 'H', 'I', 'T')
#define TAG_DIRECTIONS SN_TAG('P', 'D', 'O', 'F')
#define TAG_CEILINGS SN_TAG('P', 'C', 'E', 'I')
#define TAG_LIFTS SN_TAG('P', 'L', 'F', 'T')
#define TAG_LAYERS SN_TAG('P', 'L', 'A', 'Y')
#define TAG_HEIGHTS SN_TAG('P', 'H', 'G', 'T')

#define MAX_COUNT 4096

static void write_placement(sn_writer *w, const void *handle)
{
    const sinew_placement *p = (const sinew_placement *)handle;
    const size_t columns = (size_t)p->count[0] * p->count[1], points = columns * p->count[2];
    sn_lat_write_sections(w, p->lattice);
    const uint64_t structure[6] = {p->count[0], p->count[1], p->count[2], (uint64_t)p->volume, p->rays_cast,
                                   p->misses};
    const float metrics[4] = {p->path_length, p->contact_length, p->max_width, p->max_height};
    sn_write_section(w, TAG_STRUCTURE, SN_IO_U64, structure, 6);
    sn_write_section(w, TAG_UP, SN_IO_F64, p->up, 3);
    sn_write_section(w, TAG_METRICS, SN_IO_F32, metrics, 4);
    sn_write_section(w, TAG_HITS, SN_IO_F32, p->hit, 3 * columns);
    sn_write_section(w, TAG_DIRECTIONS, SN_IO_F32, p->dof, 3 * columns);
    sn_write_section(w, TAG_CEILINGS, SN_IO_U32, p->ceiling, columns);
    sn_write_section(w, TAG_LIFTS, SN_IO_F32, p->lift, columns);
    sn_write_section(w, TAG_LAYERS, SN_IO_F32, p->layer_dir, 3 * columns);
    sn_write_section(w, TAG_HEIGHTS, SN_IO_F32, p->height, points);
}

sinew_result sinew_placement_save(const sinew_placement *placement, void *buffer, size_t capacity, size_t *size)
{
    return sn_save(SINEW_KIND_PLACEMENT, write_placement, placement, buffer, capacity, size, "placement");
}

/* Reads and checks the scalars, and the sizes of the per-column sections
 * before anything is allocated for them. */
static sinew_result read_scalars(sn_reader *r, sinew_placement *p)
{
    const char *what = r->what;
    uint64_t s[6];
    float metrics[4];
    sinew_result res = sn_reader_u64s(r, TAG_STRUCTURE, 6, s);
    if (res != SINEW_OK) return res;
    for (int a = 0; a < 3; ++a) {
        if (s[a] < 2 || s[a] > MAX_COUNT)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: axis %c has %llu control points; 2..%d are allowed",
                           what, "uvw"[a], (unsigned long long)s[a], MAX_COUNT);
        p->count[a] = (uint32_t)s[a];
    }
    const size_t columns = (size_t)p->count[0] * p->count[1], points = columns * p->count[2];
    if (s[3] > SINEW_PLACEMENT_OFFSET)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: unknown volume kind %llu", what, (unsigned long long)s[3]);
    if (s[5] >= columns || s[5] > s[4])
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: %llu misses among %llu rays for %zu contact columns", what,
                       (unsigned long long)s[5], (unsigned long long)s[4], columns);
    p->volume = (sinew_placement_volume)s[3];
    p->rays_cast = (size_t)s[4];
    p->misses = (size_t)s[5];
    if ((res = sn_reader_copy(r, TAG_UP, SN_IO_F64, 3, p->up)) != SINEW_OK ||
        (res = sn_reader_copy(r, TAG_METRICS, SN_IO_F32, 4, metrics)) != SINEW_OK)
        return res;
    double len = sqrt(p->up[0] * p->up[0] + p->up[1] * p->up[1] + p->up[2] * p->up[2]);
    if (!(fabs(len - 1.0) <= 1e-6))
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: the up direction has length %g; it must be 1", what, len);
    static const char *const metric_name[4] = {"path length", "contact length", "max width", "max height"};
    for (int k = 0; k < 4; ++k)
        if (!(metrics[k] > 0.0f))
            return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: the %s is %g; it must be > 0", what, metric_name[k],
                           (double)metrics[k]);
    p->path_length = metrics[0];
    p->contact_length = metrics[1];
    p->max_width = metrics[2];
    p->max_height = metrics[3];
    if ((res = sn_reader_expect(r, TAG_HITS, SN_IO_F32, 1, 3 * columns)) != SINEW_OK ||
        (res = sn_reader_expect(r, TAG_DIRECTIONS, SN_IO_F32, 1, 3 * columns)) != SINEW_OK ||
        (res = sn_reader_expect(r, TAG_CEILINGS, SN_IO_U32, 1, columns)) != SINEW_OK ||
        (res = sn_reader_expect(r, TAG_LIFTS, SN_IO_F32, 1, columns)) != SINEW_OK ||
        (res = sn_reader_expect(r, TAG_LAYERS, SN_IO_F32, 1, 3 * columns)) != SINEW_OK)
        return res;
    return sn_reader_expect(r, TAG_HEIGHTS, SN_IO_F32, 1, points);
}

static sinew_result check_unit(const char *what, const float *v, const char *name, size_t c)
{
    double len = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
    if (fabs(len - 1.0) <= 1e-5) return SINEW_OK;
    return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: the %s of contact column %zu has length %g; it must be 1", what,
                   name, c, len);
}

/* The per-column and per-point values, then the lattice against them. */
static sinew_result check_columns(const char *what, sinew_placement *p)
{
    const size_t columns = (size_t)p->count[0] * p->count[1], points = columns * p->count[2];
    sinew_result res;
    for (size_t c = 0; c < columns; ++c) {
        if ((res = check_unit(what, &p->dof[3 * c], "direction", c)) != SINEW_OK ||
            (res = check_unit(what, &p->layer_dir[3 * c], "layer direction", c)) != SINEW_OK)
            return res;
        /* Infinity (nothing above) is allowed; NaN and negative are not. */
        if (!(p->ceiling[c] >= 0.0f))
            return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: contact column %zu has ceiling %g; it must be >= 0", what,
                           c, (double)p->ceiling[c]);
    }
    for (size_t i = 0; i < points; ++i)
        if (!(p->height[i] >= 0.0f))
            return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: lattice point %zu is %g above its contact point; it must be "
                           ">= 0", what, i, (double)p->height[i]);
    sn_place_layer_points(p);
    const sinew_lattice *lat = p->lattice;
    for (size_t i = 0; i < points; ++i) {
        double rest[3];
        sn_lat_rest_index(lat, i, rest);
        for (int a = 0; a < 3; ++a) {
            const float q = p->points[3 * i + a];
            if (!isfinite(q))
                return sn_fail(SINEW_ERROR_NON_FINITE, "%s: lattice point %zu lies beyond the float range (%c)", what,
                               i, "xyz"[a]);
            /* What sinew_lattice_set_points stores for q. */
            if ((float)((double)q - rest[a]) != lat->disp[a][i])
                return sn_fail(SINEW_ERROR_INVALID_DATA,
                               "%s: lattice control point %zu (%c) is not where its contact column and height put it",
                               what, i, "xyz"[a]);
        }
    }
    return SINEW_OK;
}

sinew_result sinew_placement_load(sinew_context *ctx, const void *data, size_t size, sinew_placement **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "placement out pointer is NULL");
    sn_reader r;
    sinew_result res = sn_reader_open(&r, data, size, SINEW_KIND_PLACEMENT, "placement data");
    if (res != SINEW_OK) return res;
    sn_env env;
    sn_env_from_context(&env, ctx);
    sinew_placement *p = sn_calloc(&env, sizeof *p, "placement");
    if (!p) return sn_alloc_failure();
    p->held_bytes = sizeof *p;
    env.held = &p->held_bytes;
    p->env = sn_env_kept(&env);
    if ((res = read_scalars(&r, p)) != SINEW_OK || (res = sn_lat_read_sections(&r, &env, &p->lattice)) != SINEW_OK)
        goto fail;
    for (int a = 0; a < 3; ++a)
        if (p->lattice->axis[a].count != p->count[a]) {
            res = sn_fail(SINEW_ERROR_INVALID_DATA, "%s: the lattice has %u control points along %c, the placement %u",
                          r.what, p->lattice->axis[a].count, "uvw"[a], p->count[a]);
            goto fail;
        }
    for (int a = 0; a < 3; ++a)
        for (uint32_t i = 0; i < p->count[a]; ++i)
            p->greville[a][i] = sn_place_greville(p->count[a], p->lattice->axis[a].order, i);
    if ((res = sn_place_alloc(p)) != SINEW_OK) goto fail;
    const size_t columns = (size_t)p->count[0] * p->count[1], points = columns * p->count[2];
    sn_reader_copy(&r, TAG_HITS, SN_IO_F32, 3 * columns, p->hit);
    sn_reader_copy(&r, TAG_DIRECTIONS, SN_IO_F32, 3 * columns, p->dof);
    sn_reader_copy(&r, TAG_CEILINGS, SN_IO_U32, columns, p->ceiling);
    sn_reader_copy(&r, TAG_LIFTS, SN_IO_F32, columns, p->lift);
    sn_reader_copy(&r, TAG_LAYERS, SN_IO_F32, 3 * columns, p->layer_dir);
    sn_reader_copy(&r, TAG_HEIGHTS, SN_IO_F32, points, p->height);
    if ((res = check_columns(r.what, p)) != SINEW_OK || (res = sn_reader_finish(&r)) != SINEW_OK) goto fail;
    *out = p;
    return SINEW_OK;
fail:
    sn_place_free(p);
    return res;
}
