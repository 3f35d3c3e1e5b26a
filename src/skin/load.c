/* Loading a skin: the saved layout (skin_saved.h) is copied into a handle
 * allocated like create's and every value is checked there, in one pass that
 * also sums the checksum (sn_skin_fill_fast), so a skin loads at about the
 * speed of copying it; only a failure runs the detailed checks that name it.
 * Contents create would refuse fail with create's codes; a layout create
 * cannot produce (vertices out of order, counts that do not add up) is
 * INVALID_DATA. */
#include <math.h>
#include <string.h>

#include "io/bytes.h"
#include "skin/skin_internal.h"
#include "skin/skin_saved.h"

#define WHAT "skin data"

/* A saved weight sum may differ from 1 by the rounding of each weight to
 * float (at most 2^-24 of the sum) and nothing else. */
#define SN_SKIN_SUM_TOLERANCE 1e-6

/* The scalars of SKOP, checked. */
typedef struct sn_skin_saved {
    size_t vertex_count, joint_count, max_k;
    sinew_skin_storage storage;
    sinew_skin_blend blend;
    sinew_skin_normals normals;
    sinew_skin_kernel kernel;
    size_t merged, renormalised, unweighted;
    sn_skin_format format;
} sn_skin_saved;

static sinew_result sn_skin_read_options(sn_reader *r, sn_skin_saved *s)
{
    uint64_t op[SN_SKIN_OP_COUNT];
    sinew_result res = sn_reader_u64s(r, SN_SKIN_TAG_OPTIONS, SN_SKIN_OP_COUNT, op);
    if (res != SINEW_OK) return res;
    const uint64_t v = op[SN_SKIN_OP_VERTICES], j = op[SN_SKIN_OP_JOINTS], k = op[SN_SKIN_OP_MAX_INFLUENCES];
    if (v == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, WHAT ": vertex_count is 0");
    if (j == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, WHAT ": joint_count is 0");
    if (j > 65536)
        return sn_fail(SINEW_ERROR_UNSUPPORTED, WHAT ": joint_count %llu exceeds the supported 65536",
                       (unsigned long long)j);
    if (v > UINT32_MAX - 1)
        return sn_fail(SINEW_ERROR_UNSUPPORTED, WHAT ": vertex_count %llu exceeds the supported 2^32 - 2",
                       (unsigned long long)v);
    if (op[SN_SKIN_OP_STORAGE] > SINEW_SKIN_STORAGE_COMPRESSED)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, WHAT ": storage %llu is not a sinew_skin_storage",
                       (unsigned long long)op[SN_SKIN_OP_STORAGE]);
    if (op[SN_SKIN_OP_BLEND] > SINEW_SKIN_BLEND_MIXED)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, WHAT ": blend %llu is not a sinew_skin_blend",
                       (unsigned long long)op[SN_SKIN_OP_BLEND]);
    if (op[SN_SKIN_OP_NORMALS] > SINEW_SKIN_NORMALS_BLENDED_MATRIX)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, WHAT ": normals %llu is not a sinew_skin_normals",
                       (unsigned long long)op[SN_SKIN_OP_NORMALS]);
    if (op[SN_SKIN_OP_KERNEL] > SINEW_SKIN_KERNEL_AVX512)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, WHAT ": kernel %llu is not a sinew_skin_kernel",
                       (unsigned long long)op[SN_SKIN_OP_KERNEL]);
    s->kernel = (sinew_skin_kernel)op[SN_SKIN_OP_KERNEL];
    /* The kernel is a choice, not a fact about the saving machine: AUTO picks
     * this CPU's best, a forced set must exist here as it must for create. */
    if (!sn_skin_kernel_available(s->kernel))
        return sn_fail(SINEW_ERROR_UNSUPPORTED, WHAT ": kernel %s is not available in this build or on this CPU",
                       sn_skin_kernel_name(s->kernel));
    s->storage = (sinew_skin_storage)op[SN_SKIN_OP_STORAGE];
    /* Slots of a vertex name distinct joints, and quantised ones at most 255. */
    const uint64_t k_limit = s->storage == SINEW_SKIN_STORAGE_COMPRESSED && j > 255 ? 255 : j;
    if (k == 0 || k > k_limit)
        return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": max_influences %llu is outside [1, %llu]",
                       (unsigned long long)k, (unsigned long long)k_limit);
    if (op[SN_SKIN_OP_RENORMALIZED] > v || op[SN_SKIN_OP_UNWEIGHTED] > v || op[SN_SKIN_OP_MERGED] > SIZE_MAX)
        return sn_fail(SINEW_ERROR_INVALID_DATA,
                       WHAT ": %llu renormalised and %llu unweighted vertices (or %llu merged slots) out of %llu",
                       (unsigned long long)op[SN_SKIN_OP_RENORMALIZED], (unsigned long long)op[SN_SKIN_OP_UNWEIGHTED],
                       (unsigned long long)op[SN_SKIN_OP_MERGED], (unsigned long long)v);
    s->vertex_count = (size_t)v;
    s->joint_count = (size_t)j;
    s->max_k = (size_t)k;
    s->blend = (sinew_skin_blend)op[SN_SKIN_OP_BLEND];
    s->normals = (sinew_skin_normals)op[SN_SKIN_OP_NORMALS];
    s->merged = (size_t)op[SN_SKIN_OP_MERGED];
    s->renormalised = (size_t)op[SN_SKIN_OP_RENORMALIZED];
    s->unweighted = (size_t)op[SN_SKIN_OP_UNWEIGHTED];
    s->format = s->storage != SINEW_SKIN_STORAGE_COMPRESSED ? SN_SKIN_F32_J16
                : s->joint_count <= 256                     ? SN_SKIN_U8_J8
                                                            : SN_SKIN_U8_J16;
    return SINEW_OK;
}

/* Reads the group sizes into counts[1..max_k] and checks them against the
 * vertex count and the sizes of the sections they index. */
static sinew_result sn_skin_read_counts(sn_reader *r, const sn_skin_saved *s, uint64_t *raw, size_t *counts)
{
    sinew_result res = sn_reader_u64s(r, SN_SKIN_TAG_GROUP_COUNTS, s->max_k, raw);
    if (res != SINEW_OK) return res;
    size_t vertices = 0, slots = 0, weighted = 0;
    counts[0] = 0;
    for (size_t k = 1; k <= s->max_k; ++k) {
        uint64_t n = raw[k - 1];
        size_t k_slots;
        /* Each count is at most vertex_count (< 2^32) and k at most 65536, so the sums fit. */
        if (n > s->vertex_count - vertices)
            return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": the groups up to %zu influences hold more than the %zu "
                           "vertices", k, s->vertex_count);
        counts[k] = (size_t)n;
        vertices += counts[k];
        if (!sn_mul_size(counts[k], k, &k_slots) || !sn_add_size(slots, k_slots, &slots) ||
            (k > 1 && !sn_add_size(weighted, k_slots, &weighted)))
            return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": the influence slots overflow");
    }
    if (vertices != s->vertex_count)
        return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": the influence groups hold %zu vertices, not %zu", vertices,
                       s->vertex_count);
    if (counts[s->max_k] == 0)
        return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": no vertex has max_influences = %zu influences", s->max_k);
    const bool compressed = s->format != SN_SKIN_F32_J16;
    if ((res = sn_reader_expect(r, SN_SKIN_TAG_INVERSE_BIND, SN_IO_F32, 1, 16 * s->joint_count)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_SKIN_TAG_VERTICES, SN_IO_U32, 1, s->vertex_count)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_SKIN_TAG_JOINTS, s->format == SN_SKIN_U8_J8 ? SN_IO_U8 : SN_IO_U16, 1, slots)) !=
            SINEW_OK ||
        (res = sn_reader_expect(r, SN_SKIN_TAG_WEIGHTS, compressed ? SN_IO_U8 : SN_IO_F32, 1, weighted)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_SKIN_TAG_DQ_BLEND, SN_IO_F32, 1,
                              s->blend == SINEW_SKIN_BLEND_MIXED ? s->vertex_count : 0)) != SINEW_OK)
        return res;
    return SINEW_OK;
}

static sinew_result sn_skin_check_inverse_bind(const sinew_skin *skin)
{
    for (size_t j = 0; j < skin->joint_count; ++j) {
        const float *m = skin->inverse_bind + 16 * j;
        if (m[3] != 0.0f || m[7] != 0.0f || m[11] != 0.0f || m[15] != 1.0f)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                           WHAT ": inverse bind matrix of joint %zu is not affine: last row is (%g %g %g %g), not "
                           "(0 0 0 1)", j, (double)m[3], (double)m[7], (double)m[11], (double)m[15]);
    }
    return SINEW_OK;
}

/* Checks one vertex's slots (stored at slot index `at`): joints in range and
 * distinct, weights as the storage keeps them (float: in [0, 1] summing to 1;
 * u8: at least 1 summing to 255), sorted by decreasing weight with ties by
 * increasing joint; padding slots (weight 0, slot 0's joint, see
 * SN_SKIN_PAD_VERTICES) last. last_vertex[j] is the last vertex that named
 * joint j. */
static sinew_result sn_skin_check_slots(const sinew_skin *skin, const sn_skin_group *g, size_t at, uint32_t v,
                                        uint32_t *last_vertex)
{
    const size_t k = g->influences;
    const sn_skin_format f = skin->format;
    double sum = 0.0;
    for (size_t s = 0; s < k; ++s) {
        uint32_t j = sn_skin_joint(g->joints, f, at * k + s);
        if (j >= skin->joint_count)
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE,
                           WHAT ": vertex %u slot %zu refers to joint %u, but there are only %zu joints", v, s, j,
                           skin->joint_count);
        const bool padding = k > 1 && s > 0 && sn_skin_weight(g->weights, f, at * k + s) == 0.0f &&
                             j == sn_skin_joint(g->joints, f, at * k);
        if (last_vertex[j] == v && !padding)
            return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": vertex %u lists joint %u twice", v, j);
        last_vertex[j] = v;
        if (k == 1) continue;
        if (f == SN_SKIN_F32_J16) {
            float w = ((const float *)g->weights)[at * k + s];
            if (!(w >= 0.0f && w <= 1.0f))
                return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, WHAT ": vertex %u slot %zu has weight %g outside [0, 1]",
                               v, s, (double)w);
            sum += (double)w;
        } else {
            uint8_t q = ((const uint8_t *)g->weights)[at * k + s];
            if (q == 0 && !padding)
                return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, WHAT ": vertex %u slot %zu has a zero quantised weight",
                               v, s);
            sum += q;
        }
        if (s > 0) {
            float prev = sn_skin_weight(g->weights, f, at * k + s - 1), w = sn_skin_weight(g->weights, f, at * k + s);
            if (prev < w || (prev == w && !padding && sn_skin_joint(g->joints, f, at * k + s - 1) > j))
                return sn_fail(SINEW_ERROR_INVALID_DATA,
                               WHAT ": vertex %u slot %zu is not sorted by decreasing weight, then increasing joint",
                               v, s);
        }
    }
    if (k > 1 && (f == SN_SKIN_F32_J16 ? fabs(sum - 1.0) > SN_SKIN_SUM_TOLERANCE : sum != 255.0))
        return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, WHAT ": vertex %u weights sum to %.9g, not %s", v,
                       f == SN_SKIN_F32_J16 ? sum : sum / 255.0, f == SN_SKIN_F32_J16 ? "1" : "exactly 255/255");
    return SINEW_OK;
}

/* Unrolls the slot loops of the fast pass, whose trip count k is a constant
 * there (-O2 keeps small loops rolled). */
#define SN_SKIN_UNROLL _Pragma("GCC unroll 8")

/* The fast pass over a group's slots (k a constant where it is inlined):
 * true when every vertex passes sn_skin_check_slots, which then runs only to
 * name the first failure. Branch-free per vertex, so a skin checks at close to
 * the speed of reading it. Up to 8 slots compare joints pairwise. */
SN_SKIN_INLINE bool sn_skin_slots_ok(const sn_skin_group *g, size_t k, sn_skin_format format, uint32_t joints,
                                     size_t begin, size_t end)
{
    bool ok = true;
    for (size_t at = begin; at < end; ++at) {
        uint32_t j[8];
        bool pad[8];
        SN_SKIN_UNROLL
        for (size_t s = 0; s < k; ++s) {
            j[s] = sn_skin_joint(g->joints, format, at * k + s);
            ok &= j[s] < joints;
            /* A padding slot: weight 0 and slot 0's joint. */
            pad[s] = k > 1 && s > 0 && sn_skin_weight(g->weights, format, at * k + s) == 0.0f && j[s] == j[0];
        }
        SN_SKIN_UNROLL
        for (size_t a = 0; a < k; ++a)
            SN_SKIN_UNROLL
            for (size_t b = a + 1; b < k; ++b) ok &= j[a] != j[b] || pad[b];
        if (k == 1) continue;
        if (format == SN_SKIN_F32_J16) {
            const float *w = (const float *)g->weights + at * k;
            double sum = 0.0;
            SN_SKIN_UNROLL
            for (size_t s = 0; s < k; ++s) {
                ok &= w[s] >= 0.0f && w[s] <= 1.0f;
                sum += (double)w[s];
            }
            SN_SKIN_UNROLL
            for (size_t s = 1; s < k; ++s) ok &= w[s] < w[s - 1] || (w[s] == w[s - 1] && (j[s] > j[s - 1] || pad[s]));
            ok &= fabs(sum - 1.0) <= SN_SKIN_SUM_TOLERANCE;
        } else {
            const uint8_t *q = (const uint8_t *)g->weights + at * k;
            unsigned sum = 0;
            SN_SKIN_UNROLL
            for (size_t s = 0; s < k; ++s) {
                ok &= q[s] != 0 || pad[s];
                sum += q[s];
            }
            SN_SKIN_UNROLL
            for (size_t s = 1; s < k; ++s) ok &= q[s] < q[s - 1] || (q[s] == q[s - 1] && (j[s] > j[s - 1] || pad[s]));
            ok &= sum == 255;
        }
    }
    return ok;
}

/* The fast pass for the group's k, in the format's specialisation. */
static bool sn_skin_group_slots_ok(const sinew_skin *skin, const sn_skin_group *g, size_t begin, size_t end)
{
    const uint32_t joints = (uint32_t)skin->joint_count;
#define SN_SKIN_SLOTS_OK(K)                                                                                 \
    switch (skin->format) {                                                                                 \
    case SN_SKIN_F32_J16: return sn_skin_slots_ok(g, K, SN_SKIN_F32_J16, joints, begin, end);               \
    case SN_SKIN_U8_J8: return sn_skin_slots_ok(g, K, SN_SKIN_U8_J8, joints, begin, end);                   \
    default: return sn_skin_slots_ok(g, K, SN_SKIN_U8_J16, joints, begin, end);                             \
    }
    switch (g->influences) {
    case 1: SN_SKIN_SLOTS_OK(1)
    case 2: SN_SKIN_SLOTS_OK(2)
    case 3: SN_SKIN_SLOTS_OK(3)
    case 4: SN_SKIN_SLOTS_OK(4)
    case 5: SN_SKIN_SLOTS_OK(5)
    case 6: SN_SKIN_SLOTS_OK(6)
    case 7: SN_SKIN_SLOTS_OK(7)
    case 8: SN_SKIN_SLOTS_OK(8)
    default: return false; /* more slots: the detailed pass checks them */
    }
#undef SN_SKIN_SLOTS_OK
}

/* Checks positions [begin, end) of a loaded group (the earlier ones checked
 * already) and extends its runs: vertex numbers increasing, in range and in
 * no other group (seen: one bit per vertex), then its slots (fast pass first;
 * the detailed one names a failure) and blend factors. */
static sinew_result sn_skin_check_group(const sinew_skin *skin, sn_skin_group *g, size_t begin, size_t end,
                                        uint8_t *seen, uint32_t *last_vertex)
{
    for (size_t at = begin; at < end; ++at) {
        uint32_t v = g->vertex[at];
        if (v >= skin->vertex_count)
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, WHAT ": group %u position %zu is vertex %u, but there are "
                           "only %zu vertices", g->influences, at, v, skin->vertex_count);
        if (at > 0 && v <= g->vertex[at - 1])
            return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": vertices of group %u are not increasing at position %zu "
                           "(%u after %u)", g->influences, at, v, g->vertex[at - 1]);
        if (seen[v >> 3] & (1u << (v & 7)))
            return sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": vertex %u is in two influence groups", v);
        seen[v >> 3] |= (uint8_t)(1u << (v & 7));
    }
    if (!sn_skin_group_slots_ok(skin, g, begin, end))
        for (size_t at = begin; at < end; ++at) {
            sinew_result res = sn_skin_check_slots(skin, g, at, g->vertex[at], last_vertex);
            if (res != SINEW_OK) return res;
        }
    for (size_t at = begin; g->dq_blend && at < end; ++at)
        if (!(g->dq_blend[at] >= 0.0f && g->dq_blend[at] <= 1.0f))
            return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, WHAT ": vertex %u has dq_blend factor %g outside [0, 1]",
                           g->vertex[at], (double)g->dq_blend[at]);
    return SINEW_OK;
}

/* Vertices copied and checked at a time: their arrays stay in cache from
 * the copy to the check, so the data is read from memory once. */
#define SN_SKIN_LOAD_CHUNK 4096

/* Copies group after group out of the sections, a chunk at a time, and
 * checks each chunk. */
static sinew_result sn_skin_fill_groups(sn_reader *r, sinew_skin *skin, const size_t *counts, uint8_t *seen,
                                        uint32_t *last_vertex)
{
    const sn_io_type jtype = skin->format == SN_SKIN_U8_J8 ? SN_IO_U8 : SN_IO_U16;
    const sn_io_type wtype = skin->format == SN_SKIN_F32_J16 ? SN_IO_F32 : SN_IO_U8;
    const size_t jsize = jtype == SN_IO_U8 ? 1 : 2, wsize = wtype == SN_IO_U8 ? 1 : 4;
    size_t vertex_at = 0, slot_at = 0, weight_at = 0;
    sinew_result res = SINEW_OK;
    for (size_t k = 1; k <= skin->max_influences && res == SINEW_OK; ++k) {
        sn_skin_group *g = &skin->groups[k - 1];
        g->count = counts[k];
        /* The section sizes were checked against counts: the parts lie inside. */
        for (size_t at = 0; at < g->count && res == SINEW_OK; at += SN_SKIN_LOAD_CHUNK) {
            const size_t n = g->count - at < SN_SKIN_LOAD_CHUNK ? g->count - at : SN_SKIN_LOAD_CHUNK;
            res = sn_reader_copy_part(r, SN_SKIN_TAG_VERTICES, SN_IO_U32, vertex_at + at, n, g->vertex + at);
            if (res == SINEW_OK)
                res = sn_reader_copy_part(r, SN_SKIN_TAG_JOINTS, jtype, slot_at + at * k, n * k,
                                          (char *)g->joints + at * k * jsize);
            if (res == SINEW_OK && k > 1)
                res = sn_reader_copy_part(r, SN_SKIN_TAG_WEIGHTS, wtype, weight_at + at * k, n * k,
                                          (char *)g->weights + at * k * wsize);
            if (res == SINEW_OK && g->dq_blend)
                res = sn_reader_copy_part(r, SN_SKIN_TAG_DQ_BLEND, SN_IO_F32, vertex_at + at, n, g->dq_blend + at);
            if (res == SINEW_OK) res = sn_skin_check_group(skin, g, at, at + n, seen, last_vertex);
        }
        vertex_at += g->count;
        slot_at += g->count * k;
        if (k > 1) weight_at += g->count * k;
    }
    return res;
}

/* Sets bits [first, first + count) of a bitmap (bit v & 7 of byte v >> 3). */
static void sn_skin_set_bits(uint8_t *bits, size_t first, size_t count)
{
    size_t v = first;
    const size_t end = first + count;
    for (; v < end && (v & 7); ++v) bits[v >> 3] |= (uint8_t)(1u << (v & 7));
    if (end - v >= 8) {
        memset(bits + (v >> 3), 0xff, (end - v) >> 3);
        v += (end - v) & ~(size_t)7;
    }
    for (; v < end; ++v) bits[v >> 3] |= (uint8_t)(1u << (v & 7));
}

/* The fast fill's check of a chunk's vertex numbers: increasing and in range,
 * each marked in `seen` (one bit per vertex, a run of consecutive numbers at
 * once): as the groups hold vertex_count vertices in all, no vertex is in two
 * groups exactly when every bit is set at the end. A bit rather than a byte
 * per vertex: the marks are allocated afresh by every load, and on some
 * machines a fresh page's first touch costs more than the copy of the data
 * it marks. */
static bool sn_skin_vertices_ok(const sn_skin_group *g, size_t begin, size_t end, size_t vertex_count,
                                uint8_t *seen)
{
    const uint32_t *v = g->vertex;
    unsigned bad = v[end - 1] >= vertex_count;
    for (size_t at = begin > 0 ? begin : 1; at < end; ++at) bad |= v[at] <= v[at - 1];
    if (bad) return false;
    if (v[end - 1] - v[begin] == end - 1 - begin) sn_skin_set_bits(seen, v[begin], end - begin);
    else
        for (size_t at = begin; at < end; ++at) seen[v[at] >> 3] |= (uint8_t)(1u << (v[at] & 7));
    return true;
}

/* Whether bits [0, count) of a bitmap are all set. */
static bool sn_skin_all_bits(const uint8_t *bits, size_t count)
{
    unsigned missing = 0;
    for (size_t i = 0; i < count >> 3; ++i) missing |= (uint8_t)~bits[i];
    if (count & 7) missing |= ~bits[count >> 3] & ((1u << (count & 7)) - 1u);
    return missing == 0;
}

/* The fast fill's check of a chunk's slots (AVX2 passes for the common
 * four-influence group, float or compressed with 8-bit joints). */
static bool sn_skin_chunk_slots_ok(const sinew_skin *skin, const sn_skin_group *g, size_t begin, size_t end, bool avx2)
{
#if defined(SINEW_HAVE_X86_KERNELS)
    if (avx2 && g->influences == 4 && skin->format != SN_SKIN_U8_J16) {
        const size_t whole = (end - begin) / 8 * 8;
        const uint32_t joints = (uint32_t)skin->joint_count;
        if (skin->format == SN_SKIN_F32_J16
                ? !sn_skin_slots4_f32_ok_avx2((const uint16_t *)g->joints + 4 * begin,
                                              (const float *)g->weights + 4 * begin, whole, joints,
                                              SN_SKIN_SUM_TOLERANCE)
                : !sn_skin_slots4_u8_ok_avx2((const uint8_t *)g->joints + 4 * begin,
                                             (const uint8_t *)g->weights + 4 * begin, whole, joints))
            return false;
        begin += whole;
        if (begin == end) return true;
    }
#else
    (void)avx2;
#endif
    return sn_skin_group_slots_ok(skin, g, begin, end);
}

/* The sections the fast fill copies, sums into the checksum and range-checks. */
static const uint32_t sn_skin_streamed[] = {SN_SKIN_TAG_VERTICES, SN_SKIN_TAG_JOINTS, SN_SKIN_TAG_WEIGHTS,
                                            SN_SKIN_TAG_DQ_BLEND};

/* Copies elem-byte elements [first, first + count) of the section at `offset`
 * into dst and adds their bytes to the checksum. */
static void sn_skin_copy_summed(const sn_reader *r, sn_io_checksum_state *st, size_t offset, size_t first,
                                size_t count, size_t elem, void *dst)
{
    const size_t at = offset + first * elem;
    sn_copy_elements_le(dst, r->data + at, count, elem);
    sn_io_checksum_add(st, r->data + at, at, count * elem);
}

/* sn_skin_fill_groups in one pass over the data: each chunk is copied, summed
 * into the checksum and checked while it is in cache, by passes that only say
 * whether everything is valid. False when something is not (or may not be):
 * the caller then runs sn_skin_fill_groups, which names the first failure. The
 * sections' sizes were checked against counts (sn_skin_read_counts). */
static bool sn_skin_fill_fast(const sn_reader *r, sinew_skin *skin, const size_t *counts, uint8_t *seen,
                              sn_io_checksum_state *st)
{
    const size_t jsize = skin->format == SN_SKIN_U8_J8 ? 1 : 2, wsize = skin->format == SN_SKIN_F32_J16 ? 4 : 1;
    const size_t vx = sn_reader_offset(r, SN_SKIN_TAG_VERTICES), jt = sn_reader_offset(r, SN_SKIN_TAG_JOINTS),
                 wt = sn_reader_offset(r, SN_SKIN_TAG_WEIGHTS), dq = sn_reader_offset(r, SN_SKIN_TAG_DQ_BLEND);
    const bool avx2 = sn_skin_kernel_available(SINEW_SKIN_KERNEL_AVX2);
    size_t vertex_at = 0, slot_at = 0, weight_at = 0;
    for (size_t k = 1; k <= skin->max_influences; ++k) {
        sn_skin_group *g = &skin->groups[k - 1];
        g->count = counts[k];
        for (size_t at = 0; at < g->count; at += SN_SKIN_LOAD_CHUNK) {
            const size_t n = g->count - at < SN_SKIN_LOAD_CHUNK ? g->count - at : SN_SKIN_LOAD_CHUNK;
            sn_skin_copy_summed(r, st, vx, vertex_at + at, n, 4, g->vertex + at);
            sn_skin_copy_summed(r, st, jt, slot_at + at * k, n * k, jsize, (char *)g->joints + at * k * jsize);
            if (k > 1)
                sn_skin_copy_summed(r, st, wt, weight_at + at * k, n * k, wsize, (char *)g->weights + at * k * wsize);
            if (g->dq_blend) sn_skin_copy_summed(r, st, dq, vertex_at + at, n, 4, g->dq_blend + at);
            if (!sn_skin_vertices_ok(g, at, at + n, skin->vertex_count, seen) ||
                !sn_skin_chunk_slots_ok(skin, g, at, at + n, avx2))
                return false;
            unsigned bad = 0;
            for (size_t i = at; g->dq_blend && i < at + n; ++i) bad |= !(g->dq_blend[i] >= 0.0f && g->dq_blend[i] <= 1.0f);
            if (bad) return false;
        }
        vertex_at += g->count;
        slot_at += g->count * k;
        if (k > 1) weight_at += g->count * k;
    }
    return sn_skin_all_bits(seen, skin->vertex_count);
}

/* The load after the data's layout is known (sn_reader_open_deferred): its
 * checksum and floats are checked on the way, by the fast fill, or after it
 * (sn_reader_verify) when the fill had to name a failure. */
static sinew_result sn_skin_load_opened(sinew_context *ctx, sn_reader *r, void *memory, size_t memory_bytes,
                                        sinew_skin **out)
{
    sn_skin_saved s = {0};
    sinew_result res = sn_skin_read_options(r, &s);
    if (res != SINEW_OK) return res;

    sn_env env;
    sn_env_from_context(&env, ctx);
    if ((res = sn_progress(&env, "skin: load", 0.0f)) != SINEW_OK) return res;
    sinew_skin *skin = NULL;
    uint64_t *raw = sn_alloc_array(&env, s.max_k, sizeof *raw, "skin group counts");
    size_t *counts = sn_alloc_array(&env, s.max_k + 1, sizeof *counts, "skin group counts");
    uint8_t *seen = NULL;
    uint32_t *last_vertex = sn_alloc_array(&env, s.joint_count, sizeof *last_vertex, "skin joint marks");
    if (!raw || !counts || !last_vertex) {
        res = sn_alloc_failure();
        goto done;
    }
    /* Vertex numbers are below 2^32 - 1, so UINT32_MAX marks no vertex. */
    memset(last_vertex, 0xff, s.joint_count * sizeof *last_vertex);
    if ((res = sn_skin_read_counts(r, &s, raw, counts)) != SINEW_OK) goto done;
    /* One bit per vertex: the fast fill's marks, or the detailed check's. */
    if (!(seen = sn_calloc(&env, s.vertex_count / 8 + 1, "skin vertex bitmap"))) {
        res = sn_alloc_failure();
        goto done;
    }
    res = sn_skin_allocate(&env, s.joint_count, s.max_k, counts, s.format, s.blend == SINEW_SKIN_BLEND_MIXED, memory,
                           memory_bytes, &skin);
    if (res != SINEW_OK) goto done;
    skin->vertex_count = s.vertex_count;
    skin->storage = s.storage;
    skin->blend = s.blend;
    skin->normals = s.normals;
    skin->kernel_requested = s.kernel;
    skin->record_floats = s.blend == SINEW_SKIN_BLEND_LINEAR ? SN_SKIN_RECORD_LINEAR : SN_SKIN_RECORD_DQ;
    skin->merged_duplicates = s.merged;
    skin->renormalised_vertices = s.renormalised;
    skin->unweighted_vertices = s.unweighted;
    res = sn_reader_copy(r, SN_SKIN_TAG_INVERSE_BIND, SN_IO_F32, 16 * s.joint_count, skin->inverse_bind);
    if (res == SINEW_OK) res = sn_skin_check_inverse_bind(skin);
    sn_io_checksum_state sum;
    sn_io_checksum_begin(&sum, r->size);
    const bool summed = res == SINEW_OK && sn_skin_fill_fast(r, skin, counts, seen, &sum);
    if (res == SINEW_OK && !summed) {
        memset(seen, 0, s.vertex_count / 8 + 1);
        res = sn_skin_fill_groups(r, skin, counts, seen, last_vertex);
    }
    /* Unweighted vertices are bound to one joint: the one-joint group, or
     * padded into a larger one (scanned only when the group falls short). */
    if (res == SINEW_OK && s.unweighted > counts[1]) {
        const size_t single = sn_skin_single_joint_vertices(skin);
        if (s.unweighted > single)
            res = sn_fail(SINEW_ERROR_INVALID_DATA, WHAT ": %zu unweighted vertices, but only %zu have one influence",
                          s.unweighted, single);
    }
    if (res == SINEW_OK) res = sn_reader_finish(r);
    /* The fast fill range-checked every float it summed (weights and blend
     * factors in [0, 1]); the matrices' finiteness is checked here. */
    if (res == SINEW_OK && summed) {
        sn_reader_checksum_outside(r, &sum, sn_skin_streamed, sizeof sn_skin_streamed / sizeof sn_skin_streamed[0]);
        res = sn_reader_checksum_check(r, &sum);
        if (res == SINEW_OK) res = sn_reader_finite(r, SN_SKIN_TAG_INVERSE_BIND);
    } else if (res == SINEW_OK) {
        res = sn_reader_verify(r);
    }
    if (res == SINEW_OK) res = sn_progress(&env, "skin: load", 1.0f);
    if (res != SINEW_OK) goto done;
    sn_skin_use_kernels(skin);
    *out = skin;
    skin = NULL;
done:
    sinew_skin_destroy(skin);
    sn_free(&env, raw);
    sn_free(&env, counts);
    sn_free(&env, seen);
    sn_free(&env, last_vertex);
    return res;
}

/* Opens the data and loads it (its bind data into memory when that is not
 * NULL); any failure of corrupted or non-finite data is reported as that, in
 * sn_reader_open's order, as though the data had been verified first. */
static sinew_result sn_skin_load_checked(sinew_context *ctx, const void *data, size_t size, void *memory,
                                         size_t memory_bytes, sinew_skin **out)
{
    sn_reader r;
    sinew_result res = sn_reader_open_deferred(&r, data, size, SINEW_KIND_SKIN, WHAT);
    if (res != SINEW_OK) return res;
    res = sn_skin_load_opened(ctx, &r, memory, memory_bytes, out);
    if (res != SINEW_OK) {
        sinew_result verified = sn_reader_verify(&r);
        if (verified != SINEW_OK) return verified;
    }
    return res;
}

sinew_result sinew_skin_load(sinew_context *ctx, const void *data, size_t size, sinew_skin **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin out pointer is NULL");
    return sn_skin_load_checked(ctx, data, size, NULL, 0, out);
}

sinew_result sinew_skin_load_into(sinew_context *ctx, const void *data, size_t size, void *memory,
                                  size_t memory_bytes, sinew_skin **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin out pointer is NULL");
    if (!memory) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin memory is NULL (sinew_skin_load allocates)");
    return sn_skin_load_checked(ctx, data, size, memory, memory_bytes, out);
}

/* The block's size from the data's options and group counts; the caller
 * verifies the data when this fails. */
static sinew_result sn_skin_memory_size_opened(sinew_context *ctx, sn_reader *r, size_t *bytes)
{
    sn_skin_saved s = {0};
    sinew_result res = sn_skin_read_options(r, &s);
    if (res != SINEW_OK) return res;
    sn_env env;
    sn_env_from_context(&env, ctx);
    uint64_t *raw = sn_alloc_array(&env, s.max_k, sizeof *raw, "skin group counts");
    size_t *counts = sn_alloc_array(&env, s.max_k + 1, sizeof *counts, "skin group counts");
    size_t block = 0;
    if (!raw || !counts) res = sn_alloc_failure();
    if (res == SINEW_OK) res = sn_skin_read_counts(r, &s, raw, counts);
    if (res == SINEW_OK)
        res = sn_skin_block_bytes(s.joint_count, s.max_k, counts, s.format, s.blend == SINEW_SKIN_BLEND_MIXED, &block);
    /* Room to align the block's start, wherever the caller's memory begins. */
    if (res == SINEW_OK && !sn_add_size(block, SN_ALIGN - 1, bytes))
        res = sn_fail(SINEW_ERROR_SIZE_OVERFLOW, WHAT ": bind data size overflows");
    sn_free(&env, raw);
    sn_free(&env, counts);
    return res;
}

sinew_result sinew_skin_load_memory_size(sinew_context *ctx, const void *data, size_t size, size_t *bytes)
{
    sn_clear_error();
    if (!bytes) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin bytes pointer is NULL");
    sn_reader r;
    sinew_result res = sn_reader_open_deferred(&r, data, size, SINEW_KIND_SKIN, WHAT);
    if (res != SINEW_OK) return res;
    res = sn_skin_memory_size_opened(ctx, &r, bytes);
    if (res != SINEW_OK) {
        sinew_result verified = sn_reader_verify(&r);
        if (verified != SINEW_OK) return verified;
    }
    return res;
}
