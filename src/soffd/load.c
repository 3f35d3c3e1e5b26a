/* Loading a surface-oriented FFD handle (soffd_saved.h): the bind and the
 * registration are copied and every value is checked; element normals, the
 * BVH, the one-ring frames and the corner lists are rebuilt from R as bind
 * and registration build them. Contents bind, register or an edit would
 * refuse fail with their codes; a layout they cannot produce (counts that do
 * not add up, faces out of order) is INVALID_DATA. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "soffd/soffd_internal.h"
#include "soffd/soffd_saved.h"

#define WHAT "soffd data"

/* Saved weights are rounded to float once: their sum is 1 within 2^-24 of
 * it, so this tolerance only has to absorb the sum's own rounding. */
#define SN_SOFFD_SUM_TOLERANCE 1e-6
/* The rounding a stored u-scaled value may carry: relative 2^-20 (generous
 * for one float rounding) plus the smallest subnormal on the weight. */
#define SN_SOFFD_ROUNDING 0x1p-20
#define SN_SOFFD_SUBNORMAL 0x1p-149

/* The scalars of SFOP, SFSC and SFPO, checked. */
typedef struct sn_soffd_saved {
    size_t vertices, faces, elements, skipped, points, entries;
    int registered;
    double local, length_scale;
    sinew_soffd_register_desc policy;
} sn_soffd_saved;

static sinew_result sn_soffd_read_options(sn_reader *r, sn_soffd_saved *s)
{
    uint64_t op[SN_SOFFD_OP_COUNT];
    double scales[2];
    float policy[2];
    sinew_result res = sn_reader_u64s(r, SN_SOFFD_TAG_OPTIONS, SN_SOFFD_OP_COUNT, op);
    if (res == SINEW_OK) res = sn_reader_copy(r, SN_SOFFD_TAG_SCALES, SN_IO_F64, 2, scales);
    if (res == SINEW_OK) res = sn_reader_copy(r, SN_SOFFD_TAG_POLICY, SN_IO_F32, 2, policy);
    if (res != SINEW_OK) return res;
    if (op[SN_SOFFD_OP_VERTICES] == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, WHAT ": the driver has no vertices");
    if (op[SN_SOFFD_OP_VERTICES] >= UINT32_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, WHAT ": the driver has %llu vertices; at most 2^32 - 2 are supported",
                       (unsigned long long)op[SN_SOFFD_OP_VERTICES]);
    if (op[SN_SOFFD_OP_FACES] == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, WHAT ": the driver has no faces");
    if (op[SN_SOFFD_OP_ELEMENTS] == 0)
        return sn_fail(SINEW_ERROR_DEGENERATE, WHAT ": every triangle of the driver has zero area");
    /* Element numbers are u32, and element_frames hands out 16 floats per element. */
    if (op[SN_SOFFD_OP_ELEMENTS] >= UINT32_MAX || op[SN_SOFFD_OP_ELEMENTS] > SIZE_MAX / (16 * sizeof(float)))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, WHAT ": %llu elements overflow the element frame array size",
                       (unsigned long long)op[SN_SOFFD_OP_ELEMENTS]);
    if (op[SN_SOFFD_OP_REGISTERED] > 1 || op[SN_SOFFD_OP_EXCLUSIVE] > 1 || op[SN_SOFFD_OP_MAX_CONTRIBUTORS] > UINT32_MAX)
        return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": registered %llu, exclusive %llu or max_contributors %llu is "
                       "out of range", (unsigned long long)op[SN_SOFFD_OP_REGISTERED],
                       (unsigned long long)op[SN_SOFFD_OP_EXCLUSIVE],
                       (unsigned long long)op[SN_SOFFD_OP_MAX_CONTRIBUTORS]);
    if (!op[SN_SOFFD_OP_REGISTERED] && (op[SN_SOFFD_OP_POINTS] || op[SN_SOFFD_OP_ENTRIES]))
        return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": %llu points and %llu entries, but nothing is registered",
                       (unsigned long long)op[SN_SOFFD_OP_POINTS], (unsigned long long)op[SN_SOFFD_OP_ENTRIES]);
    if (!(scales[0] > 0) || scales[0] > FLT_MAX)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, WHAT ": local must be a float value > 0, got %g", scales[0]);
    /* Bind makes L a float option or a mean edge of float coordinates: within
     * these bounds L^2, which the weights divide by, stays a normal double. */
    if (!(scales[1] >= 0x1p-200 && scales[1] <= 0x1p128))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, WHAT ": length_scale must be > 0 (within [2^-200, 2^128]), got %g",
                       scales[1]);
    if (!(policy[0] >= 0 && policy[0] < 1))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, WHAT ": weight_threshold must lie in [0, 1), got %g",
                       (double)policy[0]);
    if (!(policy[1] >= 0))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, WHAT ": max_distance must be >= 0, got %g", (double)policy[1]);
    /* The remaining counts are checked against their sections before use; a
     * section lies inside the data, so counts that match one fit size_t. */
    s->vertices = (size_t)op[SN_SOFFD_OP_VERTICES];
    s->elements = (size_t)op[SN_SOFFD_OP_ELEMENTS];
    s->faces = op[SN_SOFFD_OP_FACES] > SIZE_MAX ? SIZE_MAX : (size_t)op[SN_SOFFD_OP_FACES];
    s->skipped = op[SN_SOFFD_OP_SKIPPED] > SIZE_MAX ? SIZE_MAX : (size_t)op[SN_SOFFD_OP_SKIPPED];
    s->points = op[SN_SOFFD_OP_POINTS] > SIZE_MAX ? SIZE_MAX : (size_t)op[SN_SOFFD_OP_POINTS];
    s->entries = op[SN_SOFFD_OP_ENTRIES] > SIZE_MAX ? SIZE_MAX : (size_t)op[SN_SOFFD_OP_ENTRIES];
    s->registered = (int)op[SN_SOFFD_OP_REGISTERED];
    s->local = scales[0];
    s->length_scale = scales[1];
    s->policy.weight_threshold = policy[0];
    s->policy.max_distance = policy[1];
    s->policy.max_contributors = (uint32_t)op[SN_SOFFD_OP_MAX_CONTRIBUTORS];
    s->policy.exclusive = (int)op[SN_SOFFD_OP_EXCLUSIVE];
    return SINEW_OK;
}

static sinew_result sn_soffd_expect_sections(sn_reader *r, const sn_soffd_saved *s)
{
    sinew_result res;
    if ((res = sn_reader_expect(r, SN_SOFFD_TAG_REFERENCE, SN_IO_F32, 3, s->vertices)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_SOFFD_TAG_ELEMENTS, SN_IO_U32, 3, s->elements)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_SOFFD_TAG_ELEMENT_FACE, SN_IO_U32, 1, s->elements)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_SOFFD_TAG_SKIPPED, SN_IO_U32, 1, s->skipped)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_SOFFD_TAG_POINTS, SN_IO_F32, 3, s->points)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_SOFFD_TAG_ENTRY_ELEMENT, SN_IO_U32, 1, s->entries)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_SOFFD_TAG_COEFF, SN_IO_F32, 4, s->entries)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_SOFFD_TAG_BARY, SN_IO_F32, 3, s->entries)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_SOFFD_TAG_DROPPED, SN_IO_F32, 1, s->points)) != SINEW_OK)
        return res;
    /* points matched a section, so points + 1 does not overflow. */
    return sn_reader_expect(r, SN_SOFFD_TAG_OFFSETS, SN_IO_U64, 1, s->registered ? s->points + 1 : 0);
}

/* Elements name driver vertices and have area in R; element and skipped
 * faces run in face order, and every face made at least one triangle. */
static sinew_result sn_soffd_check_triangulation(const sinew_soffd *h)
{
    for (size_t k = 0; k < h->element_count; ++k) {
        const uint32_t *t = &h->elements[3 * k];
        for (int c = 0; c < 3; ++c)
            if (t[c] >= h->vertex_count)
                return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE,
                               WHAT ": element %zu refers to vertex %u, but there are only %zu", k, t[c],
                               h->vertex_count);
        if (sn_soffd_degenerate(&h->reference[3 * (size_t)t[0]], &h->reference[3 * (size_t)t[1]],
                                &h->reference[3 * (size_t)t[2]], NULL))
            return sn_fail(SINEW_ERROR_DEGENERATE, WHAT ": element %zu (driver face %u, vertices %u, %u, %u) has zero "
                           "area", k, h->element_face[k], t[0], t[1], t[2]);
    }
    /* Subdivision appends children after the bind's elements (checked with their parents). */
    const size_t bind_elements = h->element_parent ? h->bind_elements : h->element_count;
    const uint32_t *lists[2] = {h->element_face, h->skipped_face};
    const size_t lengths[2] = {bind_elements, h->skipped};
    for (int l = 0; l < 2; ++l)
        for (size_t i = 0; i < lengths[l]; ++i)
            if (lists[l][i] >= h->face_count || (i > 0 && lists[l][i] < lists[l][i - 1]))
                return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": %s %zu is face %u: out of face order or past the %zu "
                               "faces", l ? "skipped triangle" : "element", i, lists[l][i], h->face_count);
    /* Both lists ascend: walk them together, faces must appear without a gap. */
    size_t next = 0, i = 0, j = 0;
    while (i < bind_elements || j < h->skipped) {
        uint32_t f = j == h->skipped || (i < bind_elements && h->element_face[i] <= h->skipped_face[j])
                         ? h->element_face[i++]
                         : h->skipped_face[j++];
        if (f > next) break;
        if (f == next) ++next;
    }
    if (next != h->face_count)
        return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": driver face %zu made no triangle", next);
    return SINEW_OK;
}

/* One point's entries: elements in range and listed once (mark[e] == point
 * when seen), weights u in [0, 1] summing to 1, and the u-scaled local and
 * barycentric coordinates inside the domain that keeps the kernels finite. */
static sinew_result sn_soffd_check_set(const sinew_soffd *h, const float *bary, size_t point, size_t *mark)
{
    const sn_soffd_reg *reg = &h->reg;
    double sum = 0;
    for (size_t j = reg->offsets[point]; j < reg->offsets[point + 1]; ++j) {
        uint32_t e = reg->element[j];
        if (e >= h->element_count)
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE,
                           WHAT ": point %zu entry %zu is element %u, but there are only %zu", point,
                           j - reg->offsets[point], e, h->element_count);
        if (mark[e] == point)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, WHAT ": element %u is listed twice in the set of point %zu",
                           e, point);
        mark[e] = point;
        const float *c = &reg->coeff[4 * j], *b = &bary[3 * j];
        const double u = c[3];
        if (!(u >= 0 && u <= 1))
            return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, WHAT ": point %zu has weight %g on element %u, outside "
                           "[0, 1]", point, u, e);
        sum += u;
        const double reach = (u + SN_SOFFD_SUBNORMAL) * (1 + SN_SOFFD_ROUNDING);
        for (int k = 0; k < 3; ++k) {
            if (!(fabs((double)c[k]) <= reach * SN_SOFFD_MAX_LOCAL))
                return sn_fail(SINEW_ERROR_OUTSIDE_DOMAIN, WHAT ": point %zu has local coordinate %g (weighted "
                               "%g) in element %u, beyond the 2^62 that soffd keeps finite", point, (double)c[k], u, e);
            if (!(b[k] >= -reach * SN_SOFFD_ROUNDING && b[k] <= reach))
                return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, WHAT ": point %zu has barycentric weight %g (weighted "
                               "%g) on element %u, outside [0, 1]", point, (double)b[k], u, e);
        }
    }
    if (reg->offsets[point] != reg->offsets[point + 1] && !(fabs(sum - 1) <= SN_SOFFD_SUM_TOLERANCE))
        return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, WHAT ": the weights of point %zu sum to %.9g, not 1", point,
                       sum);
    if (!(reg->dropped[point] >= 0 && reg->dropped[point] <= 1))
        return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": point %zu has dropped mass %g outside [0, 1]", point,
                       (double)reg->dropped[point]);
    /* The fade is part of the dropped mass, so it cannot exceed it. */
    if (!(reg->fade[point] >= 0 && reg->fade[point] < 1 && (reg->fade[point] == 0 || reg->dropped[point] > 0)))
        return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": point %zu has faded share %g outside [0, 1) or without "
                       "dropped mass", point, (double)reg->fade[point]);
    return SINEW_OK;
}

/* Copies the offsets (u64 in the data) into reg->offsets. */
static sinew_result sn_soffd_read_offsets(sn_reader *r, sn_soffd_reg *reg, const sn_env *env)
{
    const size_t n = reg->point_count + 1;
    if (sizeof(size_t) == sizeof(uint64_t))
        return sn_reader_copy(r, SN_SOFFD_TAG_OFFSETS, SN_IO_U64, n, reg->offsets);
    uint64_t *wide = sn_alloc_array(env, n, sizeof *wide, "soffd set offsets");
    if (!wide) return sn_alloc_failure();
    sinew_result res = sn_reader_copy(r, SN_SOFFD_TAG_OFFSETS, SN_IO_U64, n, wide);
    for (size_t i = 0; res == SINEW_OK && i < n; ++i) {
        /* Offsets above the entry count fail below; clamping keeps them above it. */
        reg->offsets[i] = wide[i] > SIZE_MAX ? SIZE_MAX : (size_t)wide[i];
    }
    sn_free(env, wide);
    return res;
}

/* Loads and checks the registration into h->reg, then rebuilds its corner
 * lists from the saved barycentrics (read into bary, 3 per entry). */
static sinew_result sn_soffd_load_entries(sn_reader *r, sinew_soffd *h, const sn_soffd_saved *s, float *bary)
{
    const sn_env *env = &h->env;
    sn_soffd_reg *reg = &h->reg;
    reg->point_count = s->points;
    reg->entry_count = s->entries;
    reg->rest = sn_alloc_array(env, s->points, 3 * sizeof(float), "soffd registered points");
    reg->offsets = sn_alloc_array(env, s->points + 1, sizeof(size_t), "soffd set offsets");
    reg->dropped = sn_alloc_array(env, s->points, sizeof(float), "soffd dropped mass");
    reg->fade = sn_alloc_array(env, s->points, sizeof(float), "soffd faded mass");
    if (!reg->rest || !reg->offsets || !reg->dropped || !reg->fade) return sn_alloc_failure();
    /* Registration leaves the entry arrays NULL while every set is empty. */
    if (s->entries) {
        reg->element = sn_alloc_array(env, s->entries, sizeof(uint32_t), "soffd contributing elements");
        reg->coeff = sn_alloc_array(env, s->entries, 4 * sizeof(float), "soffd local coordinates");
        if (!reg->element || !reg->coeff) return sn_alloc_failure();
    }
    sinew_result res = sn_reader_copy(r, SN_SOFFD_TAG_POINTS, SN_IO_F32, 3 * s->points, reg->rest);
    if (res == SINEW_OK) res = sn_reader_copy(r, SN_SOFFD_TAG_DROPPED, SN_IO_F32, s->points, reg->dropped);
    /* Version 4 is written for faded registrations only, and always holds
     * SFFA; older data was registered unfaded. An SFFA in older data is left
     * unread, so the reader's finish names it as not part of that version. */
    if (s->points) memset(reg->fade, 0, s->points * sizeof(float));
    if (res == SINEW_OK && r->format_version >= SN_SOFFD_VERSION_FADE)
        res = sn_reader_copy(r, SN_SOFFD_TAG_FADE, SN_IO_F32, s->points, reg->fade);
    if (res == SINEW_OK) res = sn_soffd_read_offsets(r, reg, env);
    if (res == SINEW_OK && s->entries) {
        res = sn_reader_copy(r, SN_SOFFD_TAG_ENTRY_ELEMENT, SN_IO_U32, s->entries, reg->element);
        if (res == SINEW_OK) res = sn_reader_copy(r, SN_SOFFD_TAG_COEFF, SN_IO_F32, 4 * s->entries, reg->coeff);
        if (res == SINEW_OK) res = sn_reader_copy(r, SN_SOFFD_TAG_BARY, SN_IO_F32, 3 * s->entries, bary);
    }
    if (res != SINEW_OK) return res;
    const sinew_points rest = {reg->rest, s->points, 0};
    if ((res = sn_soffd_check_domain(&rest, WHAT ": point")) != SINEW_OK) return res;
    if (reg->offsets[0] != 0 || reg->offsets[s->points] != s->entries)
        return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": set offsets run from %zu to %zu, not from 0 to the %zu entries",
                       reg->offsets[0], reg->offsets[s->points], s->entries);
    for (size_t i = 0; i < s->points; ++i) {
        size_t n = reg->offsets[i + 1] - reg->offsets[i];
        if (reg->offsets[i + 1] < reg->offsets[i] || n > h->element_count)
            return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": point %zu has set offsets %zu to %zu", i,
                           reg->offsets[i], reg->offsets[i + 1]);
        if (n > reg->max_set) reg->max_set = n;
    }
    size_t *mark = sn_alloc_array(env, h->element_count, sizeof *mark, "soffd element marks");
    if (!mark) return sn_alloc_failure();
    memset(mark, 0xff, h->element_count * sizeof *mark);  /* SIZE_MAX: no point (points < SIZE_MAX / 12) */
    for (size_t i = 0; i < s->points && res == SINEW_OK; ++i) res = sn_soffd_check_set(h, bary, i, mark);
    sn_free(env, mark);
    if (res != SINEW_OK) return res;
    sn_soffd_corners corners;
    if (!sn_soffd_corners_reserve(h, s->points, SN_SOFFD_CORNERS_COUNTED, &corners)) return sn_alloc_failure();
    sn_soffd_corners_install(h, reg, bary, &corners);
    if (!sn_soffd_rest_offsets_build(h, reg)) return sn_alloc_failure();
    return SINEW_OK;
}

/* The handle keeps no barycentrics (corners.c): they live for the load only. */
static sinew_result sn_soffd_load_registration(sn_reader *r, sinew_soffd *h, const sn_soffd_saved *s)
{
    float *bary = NULL;
    if (s->entries && !(bary = sn_alloc_array(&h->env, s->entries, 3 * sizeof(float), "soffd barycentric weights")))
        return sn_alloc_failure();
    sinew_result res = sn_soffd_load_entries(r, h, s, bary);
    sn_free(&h->env, bary);
    return res;
}

/* Copies and checks the bind (R and its triangulation), then rebuilds what
 * bind derives from R. */
static sinew_result sn_soffd_load_bind(sn_reader *r, sinew_soffd *h, const sn_soffd_saved *s)
{
    const sn_env *env = &h->env;
    h->reference = sn_alloc_array(env, s->vertices, 3 * sizeof(float), "the soffd reference surface");
    h->elements = sn_alloc_array(env, s->elements, 3 * sizeof(uint32_t), "soffd elements");
    h->element_face = sn_alloc_array(env, s->elements, sizeof(uint32_t), "soffd element faces");
    h->skipped_face = sn_alloc_array(env, s->skipped, sizeof(uint32_t), "soffd skipped faces");
    if (!h->reference || !h->elements || !h->element_face || !h->skipped_face) return sn_alloc_failure();
    sinew_result res = sn_reader_copy(r, SN_SOFFD_TAG_REFERENCE, SN_IO_F32, 3 * s->vertices, h->reference);
    if (res == SINEW_OK) res = sn_reader_copy(r, SN_SOFFD_TAG_ELEMENTS, SN_IO_U32, 3 * s->elements, h->elements);
    if (res == SINEW_OK) res = sn_reader_copy(r, SN_SOFFD_TAG_ELEMENT_FACE, SN_IO_U32, s->elements, h->element_face);
    if (res == SINEW_OK) res = sn_reader_copy(r, SN_SOFFD_TAG_SKIPPED, SN_IO_U32, s->skipped, h->skipped_face);
    if (res != SINEW_OK) return res;
    const sinew_points reference = {h->reference, s->vertices, 0};
    if ((res = sn_soffd_check_domain(&reference, WHAT ": reference vertex")) != SINEW_OK) return res;
    for (size_t k = 0; k < h->element_count; ++k)
        if (h->element_face[k] >= h->face_count)
            return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": element %zu is face %u, past the %zu faces", k,
                           h->element_face[k], h->face_count);
    if ((res = sn_soffd_load_subdivision(r, h)) != SINEW_OK) return res;
    if ((res = sn_soffd_check_triangulation(h)) != SINEW_OK) return res;
    return sn_soffd_build_reference_data(h);
}

sinew_result sinew_soffd_load(sinew_context *ctx, const void *data, size_t size, sinew_soffd **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "soffd out pointer is NULL");
    sn_reader r;
    sinew_result res = sn_reader_open(&r, data, size, SINEW_KIND_SOFFD, WHAT);
    if (res != SINEW_OK) return res;
    sn_soffd_saved s = {0};
    if ((res = sn_soffd_read_options(&r, &s)) != SINEW_OK) return res;
    if ((res = sn_soffd_expect_sections(&r, &s)) != SINEW_OK) return res;

    sn_env env;
    sn_env_from_context(&env, ctx);
    if ((res = sn_progress(&env, "soffd: load", 0.0f)) != SINEW_OK) return res;
    sinew_soffd *h = (sinew_soffd *)sn_calloc(&env, sizeof *h, "the soffd handle");
    if (!h) return sn_alloc_failure();
    h->held_bytes = sizeof *h;
    env.held = &h->held_bytes;
    h->env = sn_env_kept(&env);
    h->vertex_count = s.vertices;
    h->face_count = s.faces;
    h->element_count = s.elements;
    h->skipped = s.skipped;
    h->local = s.local;
    h->length_scale = s.length_scale;
    h->policy = s.policy;
    res = sn_soffd_load_bind(&r, h, &s);
    if (res == SINEW_OK && s.registered) res = sn_soffd_load_registration(&r, h, &s);
    h->registered = s.registered;
    if (res == SINEW_OK) res = sn_soffd_load_edits(&r, h);
    if (res == SINEW_OK) res = sn_reader_finish(&r);
    if (res == SINEW_OK) res = sn_progress(&env, "soffd: load", 1.0f);
    if (res != SINEW_OK) {
        sinew_soffd_destroy(h);
        return res;
    }
    h->registered = s.registered;
    *out = h;
    return SINEW_OK;
}
