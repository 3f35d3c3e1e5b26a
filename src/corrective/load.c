/* Loading correctives: the format layer has checked the bytes; here every
 * value is checked with create's codes (counts, the kernel, the options, the
 * rows, the keys of each row, the offsets), section sizes before anything is
 * allocated, and the interpolation system is solved again through the path
 * create takes. */
#include <math.h>
#include <string.h>

#include "corrective/corrective_saved.h"

static const char *const what = "corrective data";

static sinew_result check_structure(const uint64_t s[5], const double prm[2])
{
    if (s[0] == 0 || s[1] == 0 || s[0] > UINT32_MAX)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: %llu points and %llu keys (each 1..%u)", what,
                       (unsigned long long)s[0], (unsigned long long)s[1], UINT32_MAX);
    if (s[3] > SINEW_CORRECTIVE_KERNEL_WEIGHTS)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: unknown kernel %llu", what, (unsigned long long)s[3]);
    if (s[3] == SINEW_CORRECTIVE_KERNEL_WEIGHTS) {
        /* The options are saved as +0 (build drops them); -0 would not survive a re-save. */
        const bool options_zero = prm[0] == 0.0 && prm[1] == 0.0 && !signbit(prm[0]) && !signbit(prm[1]);
        if (s[1] > SN_CORR_MAX_MORPH_KEYS || s[2] != s[1] || !options_zero)
            return sn_fail(SINEW_ERROR_INVALID_DATA,
                           "%s: morph targets with %llu keys, pose size %llu, radius %g, smoothing %g (pose size must "
                           "be the key count, at most %u, the options +0)",
                           what, (unsigned long long)s[1], (unsigned long long)s[2], prm[0], prm[1],
                           SN_CORR_MAX_MORPH_KEYS);
        return SINEW_OK;
    }
    if (s[1] > SN_CORR_MAX_POSE_KEYS || s[2] == 0 || s[2] > SN_CORR_MAX_POSE_SIZE)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: %llu keys of %llu pose numbers (1..%u keys of 1..%u)", what,
                       (unsigned long long)s[1], (unsigned long long)s[2], SN_CORR_MAX_POSE_KEYS,
                       SN_CORR_MAX_POSE_SIZE);
    if (!(prm[0] > 0.0) || !(prm[1] >= 0.0))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s: radius %g must be > 0 and smoothing %g >= 0", what, prm[0],
                       prm[1]);
    return SINEW_OK;
}

/* Rows that start at 0, never go back, end at the offset count; keys below
 * the key count and increasing within each row; no zero offset (create
 * drops them). */
static sinew_result check_rows(const uint64_t *rows, size_t points, const uint32_t *keys, const float *offsets,
                               size_t keys_total, size_t entries)
{
    if (rows[0] != 0 || rows[points] != entries)
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: the rows run from %llu to %llu, not from 0 to the %zu offsets",
                       what, (unsigned long long)rows[0], (unsigned long long)rows[points], entries);
    for (size_t i = 0; i < points; ++i) {
        if (rows[i + 1] < rows[i])
            return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: point %zu's row ends (%llu) before it starts (%llu)", what, i,
                           (unsigned long long)rows[i + 1], (unsigned long long)rows[i]);
        for (uint64_t e = rows[i]; e < rows[i + 1]; ++e) {
            if (keys[e] >= keys_total)
                return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "%s: point %zu refers to key %u, but there are %zu", what,
                               i, keys[e], keys_total);
            if (e > rows[i] && keys[e] <= keys[e - 1])
                return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: point %zu lists key %u after key %u", what, i, keys[e],
                               keys[e - 1]);
            const float *o = offsets + 3 * e;
            if (o[0] == 0.0f && o[1] == 0.0f && o[2] == 0.0f)
                return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: point %zu's offset of key %u is zero (never stored)", what,
                               i, keys[e]);
        }
    }
    return SINEW_OK;
}

/* Reads the sections into scratch arrays and builds the handle. */
static sinew_result read_corrective(sn_reader *r, const sn_env *env, sinew_corrective **out)
{
    uint64_t s[5];
    double prm[2];
    sinew_result res = sn_reader_u64s(r, SN_CORR_TAG_STRUCTURE, 5, s);
    if (res == SINEW_OK) res = sn_reader_copy(r, SN_CORR_TAG_PARAMETERS, SN_IO_F64, 2, prm);
    if (res == SINEW_OK) res = check_structure(s, prm);
    if (res != SINEW_OK) return res;
    const size_t points = (size_t)s[0], keys = (size_t)s[1], pose = (size_t)s[2];
    const bool interpolated = s[3] != SINEW_CORRECTIVE_KERNEL_WEIGHTS;
    size_t entries = 0;
    if ((res = sn_reader_count(r, SN_CORR_TAG_KEYS, SN_IO_U32, &entries)) != SINEW_OK) return res;
    if (entries != s[4])
        return sn_fail(SINEW_ERROR_INVALID_DATA, "%s: %zu offset keys, but the structure says %llu", what, entries,
                       (unsigned long long)s[4]);
    if ((res = sn_reader_expect(r, SN_CORR_TAG_POSES, SN_IO_F32, interpolated ? pose : 0, keys)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_CORR_TAG_REST, SN_IO_F32, interpolated ? pose : 0, 1)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_CORR_TAG_ROWS, SN_IO_U64, 1, points + 1)) != SINEW_OK ||
        (res = sn_reader_expect(r, SN_CORR_TAG_OFFSETS, SN_IO_F32, 3, entries)) != SINEW_OK)
        return res;
    const size_t pose_floats = interpolated ? keys * pose : 0, rest_floats = interpolated ? pose : 0;
    float *poses = (float *)sn_alloc_array(env, pose_floats + rest_floats, sizeof(float), "corrective poses");
    uint64_t *rows64 = (uint64_t *)sn_alloc_array(env, points + 1, sizeof(uint64_t), "corrective rows");
    size_t *rows = (size_t *)sn_alloc_array(env, points + 1, sizeof(size_t), "corrective rows");
    uint32_t *entry_key = (uint32_t *)sn_alloc_array(env, entries, sizeof(uint32_t), "corrective keys");
    float *offsets = (float *)sn_alloc_array(env, entries, 3 * sizeof(float), "corrective offsets");
    if (!poses || !rows64 || !rows || !entry_key || !offsets) {
        res = sn_alloc_failure();
        goto done;
    }
    sn_reader_copy(r, SN_CORR_TAG_POSES, SN_IO_F32, pose_floats, poses);
    sn_reader_copy(r, SN_CORR_TAG_REST, SN_IO_F32, rest_floats, poses + pose_floats);
    sn_reader_copy(r, SN_CORR_TAG_ROWS, SN_IO_U64, points + 1, rows64);
    sn_reader_copy(r, SN_CORR_TAG_KEYS, SN_IO_U32, entries, entry_key);
    sn_reader_copy(r, SN_CORR_TAG_OFFSETS, SN_IO_F32, 3 * entries, offsets);
    if ((res = check_rows(rows64, points, entry_key, offsets, keys, entries)) != SINEW_OK) goto done;
    for (size_t i = 0; i <= points; ++i) rows[i] = (size_t)rows64[i];
    sn_corr_parts p = {points, keys, pose, (sinew_corrective_kernel)s[3], prm[0], prm[1],
                       interpolated ? poses : NULL, interpolated ? poses + pose_floats : NULL,
                       entries, rows, entry_key, offsets};
    res = sn_corr_build(env, &p, what, out);
done:
    sn_free(env, poses);
    sn_free(env, rows64);
    sn_free(env, rows);
    sn_free(env, entry_key);
    sn_free(env, offsets);
    return res;
}

sinew_result sinew_corrective_load(sinew_context *ctx, const void *data, size_t size, sinew_corrective **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out is NULL");
    sn_reader r;
    sinew_result res = sn_reader_open(&r, data, size, SINEW_KIND_CORRECTIVE, what);
    if (res != SINEW_OK) return res;
    sn_env env;
    sn_env_from_context(&env, ctx);
    sinew_corrective *c = NULL;
    if ((res = read_corrective(&r, &env, &c)) != SINEW_OK) return res;
    if ((res = sn_reader_finish(&r)) != SINEW_OK) {
        sinew_corrective_destroy(c);
        return res;
    }
    *out = c;
    return SINEW_OK;
}
