/* Loading what format version 3 adds to saved soffd data (soffd_saved.h):
 * the subdivision record (bind element count, parents, added vertices) and
 * the record of contributing-set edits, each checked as the calls that make
 * them would check it. Absent sections mean nothing was subdivided or edited. */
#include <math.h>

#include "soffd/soffd_internal.h"
#include "soffd/soffd_saved.h"

#define WHAT "soffd data"

sinew_result sn_soffd_load_subdivision(sn_reader *r, sinew_soffd *h)
{
    if (!sn_reader_has(r, SN_SOFFD_TAG_SUBDIVIDED)) return SINEW_OK;
    const sn_env *env = &h->env;
    uint64_t bind_elements;
    size_t sources;
    sinew_result res = sn_reader_u64s(r, SN_SOFFD_TAG_SUBDIVIDED, 1, &bind_elements);
    if (res == SINEW_OK) res = sn_reader_expect(r, SN_SOFFD_TAG_PARENT, SN_IO_U32, 1, h->element_count);
    if (res == SINEW_OK) res = sn_reader_count(r, SN_SOFFD_TAG_ADDED_SOURCE, SN_IO_U32, &sources);
    if (res != SINEW_OK) return res;
    const size_t added = sources / 3;
    if (sources % 3 || added >= h->vertex_count || bind_elements == 0 || bind_elements > h->element_count)
        return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": %zu added vertex sources or %llu bind elements do not fit "
                       "%zu vertices and %zu elements", sources, (unsigned long long)bind_elements, h->vertex_count,
                       h->element_count);
    if ((res = sn_reader_expect(r, SN_SOFFD_TAG_ADDED_WEIGHT, SN_IO_F32, 3, added)) != SINEW_OK) return res;
    h->bind_elements = (size_t)bind_elements;
    h->added_count = added;
    h->element_parent = sn_alloc_array(env, h->element_count, sizeof(uint32_t), "soffd element parents");
    h->added_source = sn_alloc_array(env, added, 3 * sizeof(uint32_t), "soffd added vertices");
    h->added_weight = sn_alloc_array(env, added, 3 * sizeof(float), "soffd added vertex weights");
    if (!h->element_parent || !h->added_source || !h->added_weight) return sn_alloc_failure();
    res = sn_reader_copy(r, SN_SOFFD_TAG_PARENT, SN_IO_U32, h->element_count, h->element_parent);
    if (res == SINEW_OK) res = sn_reader_copy(r, SN_SOFFD_TAG_ADDED_SOURCE, SN_IO_U32, 3 * added, h->added_source);
    if (res == SINEW_OK) res = sn_reader_copy(r, SN_SOFFD_TAG_ADDED_WEIGHT, SN_IO_F32, 3 * added, h->added_weight);
    if (res != SINEW_OK) return res;
    for (size_t k = 0; k < h->element_count; ++k) {
        const uint32_t p = h->element_parent[k];
        if (k < h->bind_elements ? p != k : p > k || h->element_face[p] != h->element_face[k])
            return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": element %zu has parent %u (face %u), which cannot have "
                           "made it", k, p, p < h->element_count ? h->element_face[p] : 0u);
    }
    for (size_t j = 0; j < added; ++j) {
        const size_t v = h->vertex_count - added + j;
        double sum = 0;
        for (int c = 0; c < 3; ++c) {
            const float w = h->added_weight[3 * j + c];
            if (h->added_source[3 * j + c] >= v || !(w >= 0 && w <= 1))
                return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": added vertex %zu is made from vertex %u at weight %g; "
                               "it must be an earlier vertex at a weight in [0, 1]", v, h->added_source[3 * j + c],
                               (double)w);
            sum += w;
        }
        if (!(fabs(sum - 1) <= 1e-6))
            return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, WHAT ": the weights of added vertex %zu sum to %g, not 1", v,
                           sum);
    }
    return SINEW_OK;
}

/* One edit's fields and elements, as the edit calls would accept them. */
static sinew_result check_edit(const sinew_soffd *h, size_t i, const uint64_t f[4], const uint32_t *elements)
{
    const uint64_t kind = f[0], first = f[1], count = f[2], n = f[3], points = h->reg.point_count;
    if ((kind != SN_SOFFD_EDIT_SET && kind != SN_SOFFD_EDIT_EXCLUDE) || first > points || count > points - first ||
        count == 0 || (kind == SN_SOFFD_EDIT_SET && count != 1) || (kind == SN_SOFFD_EDIT_EXCLUDE && n == 0))
        return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": edit %zu (kind %llu) covers points [%llu, %llu + %llu) of "
                       "the %zu registered", i, (unsigned long long)kind, (unsigned long long)first,
                       (unsigned long long)first, (unsigned long long)count, h->reg.point_count);
    for (uint64_t j = 0; j < n; ++j)
        if (elements[j] >= h->element_count || (j > 0 && elements[j] <= elements[j - 1]))
            return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": edit %zu lists element %u: past the %zu elements or "
                           "not ascending", i, elements[j], h->element_count);
    return SINEW_OK;
}

sinew_result sn_soffd_load_edits(sn_reader *r, sinew_soffd *h)
{
    if (!sn_reader_has(r, SN_SOFFD_TAG_EDITS)) return SINEW_OK;
    size_t fields, elements;
    sinew_result res = sn_reader_count(r, SN_SOFFD_TAG_EDITS, SN_IO_U64, &fields);
    if (res == SINEW_OK) res = sn_reader_count(r, SN_SOFFD_TAG_EDIT_ELEMENTS, SN_IO_U32, &elements);
    if (res != SINEW_OK) return res;
    if (fields % 4 || fields == 0 || !h->registered)
        return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": %zu edit fields (4 per edit) for a handle %s", fields,
                       h->registered ? "that is registered" : "that has no points registered");
    const size_t count = fields / 4;
    uint64_t *f = sn_alloc_array(&h->env, fields, sizeof(uint64_t), "soffd saved edits");
    h->edits = sn_alloc_array(&h->env, count, sizeof(sn_soffd_edit), "soffd edit record");
    h->edit_elements = sn_alloc_array(&h->env, elements, sizeof(uint32_t), "soffd edit record elements");
    if (!f || !h->edits || !h->edit_elements) {
        sn_free(&h->env, f);
        return sn_alloc_failure();
    }
    h->edit_cap = count;
    h->edit_element_cap = elements;
    res = sn_reader_u64s(r, SN_SOFFD_TAG_EDITS, fields, f);
    if (res == SINEW_OK) res = sn_reader_copy(r, SN_SOFFD_TAG_EDIT_ELEMENTS, SN_IO_U32, elements, h->edit_elements);
    size_t at = 0;
    for (size_t i = 0; i < count && res == SINEW_OK; ++i) {
        if (f[4 * i + 3] > elements - at) {
            res = sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": edit %zu lists %llu elements, past the %zu saved", i,
                          (unsigned long long)f[4 * i + 3], elements);
            break;
        }
        res = check_edit(h, i, &f[4 * i], f[4 * i + 3] ? &h->edit_elements[at] : NULL);
        h->edits[i] = (sn_soffd_edit){f[4 * i], f[4 * i + 1], f[4 * i + 2], at, f[4 * i + 3]};
        at += (size_t)f[4 * i + 3];
    }
    sn_free(&h->env, f);
    if (res == SINEW_OK && at != elements)
        res = sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": the edits list %zu elements, but %zu are saved", at, elements);
    if (res != SINEW_OK) return res;
    h->edit_count = count;
    h->edit_element_count = elements;
    return SINEW_OK;
}
