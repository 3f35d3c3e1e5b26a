/* Bind time: validate the caller's weights, clean them (merge, renormalise,
 * quantise), and lay them out partitioned by influence count. */
#include <math.h>
#include <string.h>

#include "skin/skin_internal.h"

/* One vertex's influences after cleaning. The weight is a double so that
 * merging duplicates of weights near FLT_MAX cannot overflow: finite inputs
 * always renormalise to finite weights (or fail the tolerance test). */
typedef struct sn_skin_slot {
    uint32_t joint;
    double weight;
} sn_skin_slot;

/* What cleaning one vertex found. */
typedef struct sn_skin_clean {
    size_t count;       /* nonzero influences kept */
    size_t merged;      /* duplicate slots merged */
    bool renormalised;  /* the sum was not 1 */
    bool unweighted;    /* bound to the fallback joint */
} sn_skin_clean;

static sinew_result sn_skin_check_desc(const sinew_skin_desc *d)
{
    if (d->vertex_count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin vertex_count is 0");
    if (d->joint_count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin joint_count is 0");
    if (d->influence_count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin influence_count is 0");
    if (d->joint_count > 65536)
        return sn_fail(SINEW_ERROR_UNSUPPORTED, "skin joint_count %zu exceeds the supported 65536", d->joint_count);
    if (d->vertex_count > UINT32_MAX - 1)
        return sn_fail(SINEW_ERROR_UNSUPPORTED, "skin vertex_count %zu exceeds the supported 2^32 - 2",
                       d->vertex_count);
    /* The joint and weight arrays hold slots 4-byte entries each: a product
     * past SIZE_MAX describes arrays that cannot exist, so nothing is read. */
    size_t slots;
    if (!sn_mul_size(d->vertex_count, d->influence_count, &slots) || !sn_mul_size(slots, sizeof(float), &slots))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "skin: %zu vertices of %zu influences overflow", d->vertex_count,
                       d->influence_count);
    sinew_result r = sn_skin_check_streams(d);
    if (r != SINEW_OK) return r;
    if ((unsigned)d->storage > SINEW_SKIN_STORAGE_COMPRESSED)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin storage %d is not a sinew_skin_storage", (int)d->storage);
    if ((unsigned)d->blend > SINEW_SKIN_BLEND_MIXED)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin blend %d is not a sinew_skin_blend", (int)d->blend);
    if ((unsigned)d->normals > SINEW_SKIN_NORMALS_BLENDED_MATRIX)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin normals %d is not a sinew_skin_normals", (int)d->normals);
    if ((unsigned)d->unweighted > SINEW_SKIN_UNWEIGHTED_BIND)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin unweighted %d is not a sinew_skin_unweighted",
                       (int)d->unweighted);
    if ((unsigned)d->kernel > SINEW_SKIN_KERNEL_AVX512)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin kernel %d is not a sinew_skin_kernel", (int)d->kernel);
    if (d->kernel != SINEW_SKIN_KERNEL_AUTO && !sn_skin_kernel_available(d->kernel))
        return sn_fail(SINEW_ERROR_UNSUPPORTED, "skin kernel %s is not available in this build or on this CPU",
                       sn_skin_kernel_name(d->kernel));
    if (!(d->weight_tolerance >= 0.0f) || !isfinite(d->weight_tolerance))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin weight_tolerance %g must be finite and >= 0",
                       (double)d->weight_tolerance);
    if (d->unweighted == SINEW_SKIN_UNWEIGHTED_BIND && d->unweighted_joint >= d->joint_count)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "skin unweighted_joint %u, but there are only %zu joints",
                       d->unweighted_joint, d->joint_count);
    if (d->inverse_bind) {
        for (size_t j = 0; j < d->joint_count; ++j) {
            const float *m = d->inverse_bind + 16 * j;
            for (int e = 0; e < 16; ++e)
                if (!isfinite(m[e]))
                    return sn_fail(SINEW_ERROR_NON_FINITE,
                                   "inverse bind matrix of joint %zu has a non-finite element (row %d, column %d) (%g)",
                                   j, e % 4, e / 4, (double)m[e]);
            if (m[3] != 0.0f || m[7] != 0.0f || m[11] != 0.0f || m[15] != 1.0f)
                return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                               "inverse bind matrix of joint %zu is not affine: last row is (%g %g %g %g), not (0 0 0 1)",
                               j, (double)m[3], (double)m[7], (double)m[11], (double)m[15]);
        }
    }
    if (d->blend == SINEW_SKIN_BLEND_MIXED) {
        if (!d->dq_blend)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin blend is mixed but dq_blend is NULL");
        for (size_t v = 0; v < d->vertex_count; ++v) {
            float a = d->dq_blend[v];
            if (!isfinite(a))
                return sn_fail(SINEW_ERROR_NON_FINITE, "vertex %zu has a non-finite dq_blend factor (%g)", v,
                               (double)a);
            if (a < 0.0f || a > 1.0f)
                return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, "vertex %zu has dq_blend factor %g outside [0, 1]", v,
                               (double)a);
        }
    }
    return SINEW_OK;
}

/* Sorts by decreasing weight, ties by increasing joint, so layouts are
 * deterministic and slot 0 is the largest-weight joint. */
static void sn_skin_sort_slots(sn_skin_slot *s, size_t n)
{
    for (size_t i = 1; i < n; ++i) {
        sn_skin_slot x = s[i];
        size_t j = i;
        while (j > 0 && (s[j - 1].weight < x.weight || (s[j - 1].weight == x.weight && s[j - 1].joint > x.joint))) {
            s[j] = s[j - 1];
            --j;
        }
        s[j] = x;
    }
}

/* Largest-remainder rounding of weights summing to 1 into integers summing to
 * exactly 255; slots that round to 0 are dropped. Keeps the decreasing order:
 * equal floors leave the larger remainder with the larger weight, and ties go
 * to the earlier (larger) slot. */
static size_t sn_skin_quantise(sn_skin_slot *s, size_t n)
{
    unsigned q[256];
    double rem[256];
    unsigned total = 0;
    for (size_t i = 0; i < n; ++i) {
        double x = s[i].weight * 255.0;
        double f = floor(x);
        q[i] = (unsigned)f;
        rem[i] = x - f;
        total += q[i];
    }
    for (unsigned left = total < 255 ? 255 - total : 0; left > 0; --left) {
        size_t best = 0;
        for (size_t i = 1; i < n; ++i)
            if (rem[i] > rem[best]) best = i;
        q[best] += 1;
        rem[best] = -1.0;
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; ++i) {
        if (q[i] == 0) continue;
        s[kept].joint = s[i].joint;
        s[kept].weight = (double)((float)q[i] * (1.0f / 255.0f));
        ++kept;
    }
    sn_skin_sort_slots(s, kept);
    return kept;
}

/* Validates and cleans vertex v into s (influence_count slots of room). */
static sinew_result sn_skin_clean_vertex(const sinew_skin_desc *d, size_t v, sn_skin_slot *s, sn_skin_clean *c)
{
    const size_t k = d->influence_count;
    memset(c, 0, sizeof *c);
    size_t n = 0, nonzero = 0;
    double sum = 0.0;
    uint64_t raw_sum = 0;
    for (size_t i = 0; i < k; ++i) {
        float w = sn_skin_input_weight(d, v, i);
        if (!isfinite(w))
            return sn_fail(SINEW_ERROR_NON_FINITE, "vertex %zu slot %zu has a non-finite weight (%g)", v, i, (double)w);
        if (w < 0.0f)
            return sn_fail(SINEW_ERROR_INVALID_WEIGHTS, "vertex %zu slot %zu has a negative weight (%g)", v, i,
                           (double)w);
        if (w == 0.0f) continue;  /* padding */
        const uint32_t joint = sn_skin_input_joint(d, v, i);
        if (joint >= d->joint_count)
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE,
                           "vertex %zu slot %zu refers to joint %u, but there are only %zu joints", v, i, joint,
                           d->joint_count);
        sum += (double)w;
        raw_sum += sn_skin_input_raw_weight(d, v, i);
        ++nonzero;
        size_t m = 0;
        while (m < n && s[m].joint != joint) ++m;
        if (m < n) {
            s[m].weight += (double)w;
            c->merged += 1;
            continue;
        }
        s[n].joint = joint;
        s[n].weight = (double)w;
        ++n;
    }
    if (n == 0) {
        if (d->unweighted != SINEW_SKIN_UNWEIGHTED_BIND)
            return sn_fail(SINEW_ERROR_INVALID_WEIGHTS,
                           "vertex %zu has no nonzero weight (set unweighted = SINEW_SKIN_UNWEIGHTED_BIND to bind it)",
                           v);
        s[0].joint = d->unweighted_joint;
        s[0].weight = 1.0f;
        c->count = 1;
        c->unweighted = true;
        return SINEW_OK;
    }
    if (!d->renormalise) {
        sinew_result r = sn_skin_check_sum(d, v, sum, raw_sum, nonzero);
        if (r != SINEW_OK) return r;
    }
    c->renormalised = fabs(sum - 1.0) > 1e-6;
    /* Rounded to float here, as stored: the sort and the quantiser then see
     * exactly the weights the kernels will. */
    for (size_t i = 0; i < n; ++i) s[i].weight = sn_round_to_float(s[i].weight / sum);
    sn_skin_sort_slots(s, n);
    /* Quantisation needs at most 255 nonzero slots to round into 255 units;
     * more influences than that keep their float weights' order but the
     * smallest ones are dropped by rounding anyway. */
    if (d->storage == SINEW_SKIN_STORAGE_COMPRESSED) {
        if (n > 255) n = 255;
        double kept = 0.0;
        for (size_t i = 0; i < n; ++i) kept += s[i].weight;
        for (size_t i = 0; i < n; ++i) s[i].weight = sn_round_to_float(s[i].weight / kept);
        n = sn_skin_quantise(s, n);
    }
    c->count = n;
    return SINEW_OK;
}

static sn_skin_format sn_skin_pick_format(const sinew_skin_desc *d)
{
    if (d->storage != SINEW_SKIN_STORAGE_COMPRESSED) return SN_SKIN_F32_J16;
    return d->joint_count <= 256 ? SN_SKIN_U8_J8 : SN_SKIN_U8_J16;
}

/* Appends vertex v to group k: its count cleaned slots, then padding slots
 * (slot 0's joint, weight 0) up to k, and its blend factor in a mixed skin. */
static void sn_skin_append_vertex(sinew_skin *skin, sn_skin_format format, size_t k, uint32_t v,
                                  const sn_skin_slot *slots, size_t count, float dq_blend)
{
    const size_t jsize = format == SN_SKIN_U8_J8 ? 1 : 2;
    const size_t wsize = format == SN_SKIN_F32_J16 ? 4 : 1;
    sn_skin_group *g = &skin->groups[k - 1];
    const size_t at = g->count++;
    g->vertex[at] = v;
    for (size_t s = 0; s < k; ++s) {
        const size_t slot = at * k + s;
        const sn_skin_slot x = s < count ? slots[s] : (sn_skin_slot){slots[0].joint, 0.0};
        if (jsize == 1) ((uint8_t *)g->joints)[slot] = (uint8_t)x.joint;
        else ((uint16_t *)g->joints)[slot] = (uint16_t)x.joint;
        if (k > 1) {
            if (wsize == 4) ((float *)g->weights)[slot] = (float)x.weight;
            else ((uint8_t *)g->weights)[slot] = (uint8_t)lrintf((float)x.weight * 255.0f);
        }
    }
    if (g->dq_blend) g->dq_blend[at] = dq_blend;
}

/* Per-vertex cost of a kernel of k influences, in blend slots: a fixed part
 * (streams, transform, renormalisation) worth about this many slots, plus
 * k (1, 2 and 4 random influences with normals and tangents run at about
 * 7 : 8 : 10). */
#define SN_SKIN_FIXED_SLOTS 6u
/* A window whose blocks have several counts is deformed group by group
 * (deform.c), each group's blocks scattered among the others'; at 1M
 * vertices that runs 25-30% slower than one group over the same streams.
 * So a window's blocks all take its largest count when that costs at most
 * this much more arithmetic (a block of k influences counted as
 * SN_SKIN_FIXED_SLOTS + k slots per vertex): such a window runs as a mesh
 * of that count in any order, and one that would cost more saves about
 * what the scattering loses. */
#define SN_SKIN_WINDOW_PAD_COST 1.25

_Static_assert(SN_SKIN_WINDOW_VERTICES % SN_SKIN_PAD_VERTICES == 0, "windows are whole padding blocks");

/* Raises the count of every padding block (of `pad` vertices) of a deform
 * window (SN_SKIN_WINDOW_VERTICES) to the window's largest where
 * SN_SKIN_WINDOW_PAD_COST allows. */
static void sn_skin_pad_windows(uint32_t *block_k, size_t blocks, size_t pad)
{
    const size_t per_window = SN_SKIN_WINDOW_VERTICES / pad;
    for (size_t w = 0; w < blocks; w += per_window) {
        const size_t end = w + per_window < blocks ? w + per_window : blocks;
        uint32_t largest = 0;
        double own = 0.0;
        for (size_t b = w; b < end; ++b) {
            if (block_k[b] > largest) largest = block_k[b];
            own += SN_SKIN_FIXED_SLOTS + block_k[b];
        }
        if ((double)(end - w) * (SN_SKIN_FIXED_SLOTS + largest) > SN_SKIN_WINDOW_PAD_COST * own) continue;
        for (size_t b = w; b < end; ++b) block_k[b] = largest;
    }
}

sinew_result sinew_skin_create(sinew_context *ctx, const sinew_skin_desc *caller_desc, sinew_skin **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin out pointer is NULL");
    sinew_skin_desc local;
    sinew_result r = sn_read_struct(&local, sizeof local, caller_desc, "skin desc");
    if (r != SINEW_OK) return r;
    sn_skin_resolve_desc(&local);
    const sinew_skin_desc *desc = &local;
    r = sn_skin_check_desc(desc);
    if (r != SINEW_OK) return r;

    sn_env env;
    sn_env_from_context(&env, ctx);
    const sn_skin_format format = sn_skin_pick_format(desc);
    const bool mixed = desc->blend == SINEW_SKIN_BLEND_MIXED;

    sinew_skin *skin = NULL;
    sn_skin_slot *scratch = sn_alloc_array(&env, desc->influence_count, sizeof *scratch, "skin scratch");
    size_t *histogram = NULL;
    uint32_t *block_k = NULL;
    if (!scratch) return sn_alloc_failure();
    histogram = sn_calloc_array(&env, desc->influence_count + 1, sizeof *histogram, "skin histogram");
    if (!histogram) {
        r = sn_alloc_failure();
        goto fail;
    }

    /* Pass 1: validate every vertex and find each padding block's largest
     * influence count (see SN_SKIN_PAD_VERTICES); the linear blend pads, the
     * dual-quaternion blends keep every vertex at its own count. */
    const size_t pad = desc->blend == SINEW_SKIN_BLEND_LINEAR ? SN_SKIN_PAD_VERTICES : 1;
    const size_t blocks = (desc->vertex_count + pad - 1) / pad;
    size_t merged = 0, renormalised = 0, unweighted = 0, max_k = 0;
    block_k = sn_calloc_array(&env, blocks, sizeof *block_k, "skin block counts");
    if (!block_k) {
        r = sn_alloc_failure();
        goto fail;
    }
    r = sn_progress(&env, "skin: validate", 0.0f);
    if (r != SINEW_OK) goto fail;
    for (size_t v = 0; v < desc->vertex_count; ++v) {
        sn_skin_clean c;
        r = sn_skin_clean_vertex(desc, v, scratch, &c);
        if (r != SINEW_OK) goto fail;
        if (c.count > block_k[v / pad]) block_k[v / pad] = (uint32_t)c.count;
        merged += c.merged;
        renormalised += c.renormalised;
        unweighted += c.unweighted;
        if (c.count > max_k) max_k = c.count;
        if ((v & 0xFFFF) == 0xFFFF) {
            r = sn_progress(&env, "skin: validate", (float)v / (float)desc->vertex_count);
            if (r != SINEW_OK) goto fail;
        }
    }
    if (pad > 1) sn_skin_pad_windows(block_k, blocks, pad);
    for (size_t b = 0; b < blocks; ++b) {
        const size_t start = b * pad;
        histogram[block_k[b]] += desc->vertex_count - start < pad ? desc->vertex_count - start : pad;
    }

    r = sn_skin_allocate(&env, desc->joint_count, max_k, histogram, format, mixed, NULL, 0, &skin);
    if (r != SINEW_OK) goto fail;
    for (size_t j = 0; j < desc->joint_count; ++j) {
        static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        memcpy(skin->inverse_bind + 16 * j, desc->inverse_bind ? desc->inverse_bind + 16 * j : identity,
               sizeof identity);
    }
    /* Pass 2: clean again (cheap, deterministic) and scatter into groups,
     * each vertex padded to its block's count: the padding slots repeat the
     * first joint with weight 0, which adds exact zeros to the blend, so a
     * vertex deforms to the same bits in any group (a lone joint's weight is
     * 1, as the one-joint path assumes). */
    r = sn_progress(&env, "skin: layout", 0.0f);
    if (r != SINEW_OK) goto fail;
    for (size_t v = 0; v < desc->vertex_count; ++v) {
        sn_skin_clean c;
        sn_skin_clean_vertex(desc, v, scratch, &c);
        sn_skin_append_vertex(skin, format, block_k[v / pad], (uint32_t)v, scratch, c.count,
                              mixed ? desc->dq_blend[v] : 0.0f);
    }
    r = sn_progress(&env, "skin: layout", 1.0f);
    if (r != SINEW_OK) goto fail;

    skin->vertex_count = desc->vertex_count;
    skin->storage = desc->storage;
    skin->blend = desc->blend;
    skin->normals = desc->normals;
    skin->kernel_requested = desc->kernel;
    skin->record_floats = desc->blend == SINEW_SKIN_BLEND_LINEAR ? SN_SKIN_RECORD_LINEAR : SN_SKIN_RECORD_DQ;
    skin->merged_duplicates = merged;
    skin->renormalised_vertices = renormalised;
    skin->unweighted_vertices = unweighted;

    sn_skin_use_kernels(skin);

    sn_free(&env, block_k);
    sn_free(&env, histogram);
    sn_free(&env, scratch);
    *out = skin;
    return SINEW_OK;

fail:
    sinew_skin_destroy(skin);
    sn_free(&env, block_k);
    sn_free(&env, histogram);
    sn_free(&env, scratch);
    return r;
}
