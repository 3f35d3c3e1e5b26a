/* Contributing sets under user control (paper section 5): read a point's set,
 * replace it, or remove flagged elements from a range of points. Weights of an
 * edited set are the paper's, normalised over the new set. */
#include <stdlib.h>
#include <string.h>

#include "geom/closest_point.h"
#include "soffd/soffd_internal.h"

static sinew_result check_point(const sinew_soffd *h, size_t point)
{
    if (!h) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "soffd is NULL");
    if (!h->registered) return sn_fail(SINEW_ERROR_INVALID_STATE, "no points are registered yet");
    if (point >= h->reg.point_count)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "point %zu, but %zu are registered", point,
                       h->reg.point_count);
    return SINEW_OK;
}

sinew_result sinew_soffd_dropped_mass(const sinew_soffd *h, size_t point, float *mass)
{
    sn_clear_error();
    sinew_result r = check_point(h, point);
    if (r != SINEW_OK) return r;
    if (!mass) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "mass is NULL");
    *mass = sn_soffd_tight_dropped_mass(h, point);
    return SINEW_OK;
}

sinew_result sinew_soffd_contributor_count(const sinew_soffd *h, size_t point, size_t *count)
{
    sn_clear_error();
    sinew_result r = check_point(h, point);
    if (r != SINEW_OK) return r;
    if (!count) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "count is NULL");
    *count = h->reg.offsets[point + 1] - h->reg.offsets[point];
    return SINEW_OK;
}

sinew_result sinew_soffd_contributors(const sinew_soffd *h, size_t point, uint32_t *elements, float *weights,
                                          size_t capacity, size_t *count)
{
    sn_clear_error();
    sinew_result r = check_point(h, point);
    if (r != SINEW_OK) return r;
    if (!count) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "count is NULL");
    if (!elements && weights) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "elements is NULL but weights is not");
    size_t s = h->reg.offsets[point], n = h->reg.offsets[point + 1] - s;
    /* elements NULL is a query; a capacity too small gets only the needed count. */
    *count = n;
    if (!elements) return SINEW_OK;
    if (capacity < n)
        return sn_fail(SINEW_ERROR_BUFFER_TOO_SMALL, "point %zu has %zu contributing elements, capacity is %zu",
                       point, n, capacity);
    for (size_t i = 0; i < n; ++i) {
        elements[i] = h->reg.element[s + i];
        if (weights) weights[i] = h->reg.coeff[4 * (s + i) + 3];
    }
    /* Entries are stored in BVH order, which keeps the deform kernel's frame
     * reads close together; callers get them by ascending element (Shell sort
     * on their arrays: no allocation, fine for unpruned sets too). */
    static const size_t gaps[] = {1750, 701, 301, 132, 57, 23, 10, 4, 1};
    for (size_t g = 0; g < sizeof gaps / sizeof *gaps; ++g)
        for (size_t i = gaps[g]; i < n; ++i) {
            uint32_t e = elements[i];
            float w = weights ? weights[i] : 0;
            size_t j = i;
            for (; j >= gaps[g] && elements[j - gaps[g]] > e; j -= gaps[g]) {
                elements[j] = elements[j - gaps[g]];
                if (weights) weights[j] = weights[j - gaps[g]];
            }
            elements[j] = e;
            if (weights) weights[j] = w;
        }
    return SINEW_OK;
}

static void recount_max_set(sn_soffd_reg *reg)
{
    reg->max_set = 0;
    for (size_t i = 0; i < reg->point_count; ++i) {
        size_t n = reg->offsets[i + 1] - reg->offsets[i];
        if (n > reg->max_set) reg->max_set = n;
    }
}

/* Candidates for point p and the given elements: closest points on R. */
static void measure(const sinew_soffd *h, const float p[3], const uint32_t *elements, size_t n,
                    sn_soffd_candidate *out)
{
    for (size_t i = 0; i < n; ++i) {
        const uint32_t *t = &h->elements[3 * (size_t)elements[i]];
        out[i].element = elements[i];
        out[i].dist2 = sn_closest_point_triangle(p, &h->reference[3 * (size_t)t[0]], &h->reference[3 * (size_t)t[1]],
                                                 &h->reference[3 * (size_t)t[2]], NULL, out[i].bary);
    }
    sn_soffd_weigh(h, out, n);
}

/* Copies n entries of reg from entry `from` into the arrays e, c at entry
 * `to`. Nothing is touched for n = 0: the arrays may then still be NULL. */
static void copy_entries(const sn_soffd_reg *reg, size_t from, uint32_t *e, float *c, size_t to, size_t n)
{
    if (n == 0) return;
    memcpy(e + to, reg->element + from, n * sizeof *e);
    memcpy(c + 4 * to, reg->coeff + 4 * from, 4 * n * sizeof *c);
}

sinew_result sinew_soffd_set_contributors(sinew_soffd *h, size_t point, const uint32_t *elements, size_t count)
{
    sn_clear_error();
    sinew_result r = check_point(h, point);
    if (r != SINEW_OK) return r;
    if (count && !elements) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "elements is NULL for %zu elements", count);
    /* Room in the edit record first, so the edit cannot apply and then go unrecorded. */
    sn_soffd_edit_room room = {0};
    if (count <= h->element_count && !sn_soffd_edits_reserve(h, count, &room)) return sn_alloc_failure();
    if ((r = sn_soffd_apply_set(h, point, elements, count)) != SINEW_OK) {
        sn_soffd_edits_cancel(h, &room);
        return r;
    }
    sn_soffd_edits_record(h, &room, SN_SOFFD_EDIT_SET, point, 1, elements, NULL, count);
    return SINEW_OK;
}

sinew_result sn_soffd_apply_set(sinew_soffd *h, size_t point, const uint32_t *elements, size_t count)
{
    sinew_result r;
    if (count && !elements) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "elements is NULL for %zu elements", count);
    size_t bytes;
    if (!sn_mul_size(count, sizeof(uint32_t), &bytes))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "a new set of %zu elements for point %zu overflows its array size",
                       count, point);
    /* More entries than elements means one repeats: say so before reading past the ones there are. */
    if (count > h->element_count)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                       "the new set of point %zu lists %zu elements, but there are only %zu, so one repeats",
                       point, count, h->element_count);
    for (size_t i = 0; i < count; ++i)
        if (elements[i] >= h->element_count)
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "entry %zu of the new set is element %u, but there are only %zu",
                           i, elements[i], h->element_count);
    const sn_env *env = &h->env;
    sn_soffd_reg *reg = &h->reg;
    sn_soffd_candidate *items =
        (sn_soffd_candidate *)sn_alloc_array(env, count, sizeof(sn_soffd_candidate), "the new contributing set");
    if (!items) return sn_alloc_failure();
    const float *p = &reg->rest[3 * point];
    measure(h, p, elements, count, items);
    qsort(items, count, sizeof *items, sn_soffd_by_element);
    for (size_t i = 1; i < count; ++i)
        if (items[i].element == items[i - 1].element) {
            uint32_t twice = items[i].element;
            sn_free(env, items);
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "element %u is listed twice in the new set of point %zu",
                           twice, point);
        }
    if ((r = sn_soffd_check_reach(h, point, p, items, count)) != SINEW_OK) {
        sn_free(env, items);
        return r;
    }
    size_t s = reg->offsets[point], old = reg->offsets[point + 1] - s;
    size_t total = reg->entry_count - old + count;
    /* Room for the corner lists: the other points keep theirs, this one needs
     * at most three per element. */
    size_t old_corners = reg->corner_offsets[point + 1] - reg->corner_offsets[point];
    sn_soffd_corners corners;
    if (!sn_soffd_corners_reserve(h, reg->point_count, reg->corner_offsets[reg->point_count] - old_corners + 3 * count,
                                  &corners)) {
        sn_free(env, items);
        return sn_alloc_failure();
    }
    uint32_t *e = reg->element;
    float *c = reg->coeff;
    if (count != old) {
        /* Sizes differ: copy into new arrays so a failure leaves the handle as it was. */
        e = (uint32_t *)sn_alloc_array(env, total, sizeof(uint32_t), "soffd contributing elements");
        c = e ? (float *)sn_alloc_array(env, total, 4 * sizeof(float), "soffd local coordinates") : NULL;
        if (!c) {
            r = sn_alloc_failure();
            sn_free(env, e);
            sn_free(env, items);
            sn_soffd_corners_release(h, &corners);
            return r;
        }
        size_t tail = reg->entry_count - s - old;
        copy_entries(reg, 0, e, c, 0, s);
        copy_entries(reg, s + old, e, c, s + count, tail);
        sn_free(env, reg->element);
        sn_free(env, reg->coeff);
        reg->element = e, reg->coeff = c;
        for (size_t i = point + 1; i <= reg->point_count; ++i) reg->offsets[i] = reg->offsets[i] - old + count;
        reg->entry_count = total;
    }
    /* Cannot fail: the reach was checked above. An empty set writes nothing
     * (and the arrays may be NULL while every set is empty). */
    if (count > 0) sn_soffd_write_entries(h, point, p, items, count, e + s, c + 4 * s, NULL);
    reg->dropped[point] = 0;
    reg->fade[point] = 0; /* a set the user chose is not faded */
    recount_max_set(reg);
    sn_soffd_corners_install(h, reg, NULL, &corners);
    sn_soffd_rest_offset_update(h, reg, point);
    sn_free(env, items);
    return SINEW_OK;
}

sinew_result sinew_soffd_exclude_elements(sinew_soffd *h, const uint8_t *excluded, size_t excluded_flag_count,
                                          size_t first, size_t count)
{
    sn_clear_error();
    if (!h) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "soffd is NULL");
    if (!h->registered) return sn_fail(SINEW_ERROR_INVALID_STATE, "no points are registered yet");
    if (!excluded) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "excluded is NULL");
    if (excluded_flag_count != h->element_count)
        return sn_fail(SINEW_ERROR_MISMATCH, "excluded has %zu flags, but the driver has %zu elements (one flag each)",
                       excluded_flag_count, h->element_count);
    size_t flagged = 0;
    for (size_t e = 0; e < h->element_count; ++e) flagged += excluded[e] != 0;
    /* Nothing flagged changes nothing now or after any re-registration: not recorded. */
    sn_soffd_edit_room room = {0};
    if (flagged && !sn_soffd_edits_reserve(h, flagged, &room)) return sn_alloc_failure();
    sinew_result r = sn_soffd_apply_exclude(h, excluded, first, count);
    if (r != SINEW_OK || !flagged || !count) {
        sn_soffd_edits_cancel(h, &room);
        return r;
    }
    sn_soffd_edits_record(h, &room, SN_SOFFD_EDIT_EXCLUDE, first, count, NULL, excluded, flagged);
    return SINEW_OK;
}

sinew_result sn_soffd_apply_exclude(sinew_soffd *h, const uint8_t *excluded, size_t first, size_t count)
{
    sn_soffd_reg *reg = &h->reg;
    if (first > reg->point_count || count > reg->point_count - first)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "points [%zu, %zu + %zu) lie past the %zu registered", first,
                       first, count, reg->point_count);
    size_t largest = 0;
    for (size_t i = first; i < first + count; ++i) {
        size_t kept = 0, n = reg->offsets[i + 1] - reg->offsets[i];
        for (size_t j = reg->offsets[i]; j < reg->offsets[i + 1]; ++j) kept += !excluded[reg->element[j]];
        if (n > 0 && kept == 0)
            return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, "point %zu would lose all %zu of its contributing elements",
                           i, n);
        if (n > largest) largest = n;
    }
    sn_soffd_candidate *items =
        (sn_soffd_candidate *)sn_alloc_array(&h->env, largest, sizeof(sn_soffd_candidate), "soffd edit scratch");
    uint32_t *kept_elements = (uint32_t *)sn_alloc_array(&h->env, largest, sizeof(uint32_t), "soffd edit scratch");
    /* Sets only shrink, and so do their corner lists. */
    sn_soffd_corners corners = {0};
    if (!items || !kept_elements ||
        !sn_soffd_corners_reserve(h, reg->point_count, reg->corner_offsets[reg->point_count], &corners)) {
        sinew_result r = sn_alloc_failure();
        sn_free(&h->env, items);
        sn_free(&h->env, kept_elements);
        return r;
    }
    /* Sets only shrink, so compact in place from the first point on. */
    size_t write = reg->offsets[first];
    for (size_t i = first; i < reg->point_count; ++i) {
        size_t s = reg->offsets[i], n = reg->offsets[i + 1] - s;
        reg->offsets[i] = write;
        if (i < first + count) {
            size_t kept = 0;
            for (size_t j = s; j < s + n; ++j)
                if (!excluded[reg->element[j]]) kept_elements[kept++] = reg->element[j];
            if (kept != n) {
                measure(h, &reg->rest[3 * i], kept_elements, kept, items);
                /* A subset of a registered set: its local coordinates were in reach already. */
                sn_soffd_write_entries(h, i, &reg->rest[3 * i], items, kept, reg->element + write,
                                       reg->coeff + 4 * write, NULL);
                reg->dropped[i] = 0;
                reg->fade[i] = 0;
                write += kept;
                continue;
            }
        }
        /* Empty sets move nothing, and the entry arrays may still be NULL then. */
        if (n > 0 && write != s) {
            memmove(reg->element + write, reg->element + s, n * sizeof(uint32_t));
            memmove(reg->coeff + 4 * write, reg->coeff + 4 * s, 4 * n * sizeof(float));
        }
        write += n;
    }
    reg->offsets[reg->point_count] = write;
    reg->entry_count = write;
    recount_max_set(reg);
    sn_soffd_corners_install(h, reg, NULL, &corners);
    for (size_t i = first; i < first + count; ++i) sn_soffd_rest_offset_update(h, reg, i);
    sn_free(&h->env, items);
    sn_free(&h->env, kept_elements);
    return SINEW_OK;
}
