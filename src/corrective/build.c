/* Making a corrective handle from checked parts (corrective_internal.h):
 * shared by create, which gathers the offsets of a desc point by point, and
 * load, which reads them so. */
#include <math.h>
#include <string.h>

#include "corrective/corrective_internal.h"

void sinew_corrective_destroy(sinew_corrective *corrective)
{
    if (!corrective) return;
    sn_env env = corrective->env;
    sn_free(&env, corrective->poses);
    sn_free(&env, corrective->rest_pose);
    sn_free(&env, corrective->coeffs);
    sn_free(&env, corrective->row_start);
    sn_free(&env, corrective->entry_key);
    sn_free(&env, corrective->entry_offset);
    sn_free(&env, corrective->key_largest);
    sn_free(&env, corrective);
}

static void *copy_array(const sn_env *env, const void *src, size_t count, size_t elem, const char *what)
{
    void *dst = sn_alloc_array(env, count, elem, what);
    if (dst && count) memcpy(dst, src, count * elem);
    return dst;
}

/* Copies the parts into a new handle (poses, rest pose, offsets) and the
 * largest offset coordinate of each key. */
static sinew_result fill(sinew_corrective *c, const sn_corr_parts *p)
{
    const sn_env *env = &c->env;
    const bool interpolated = p->kernel != SINEW_CORRECTIVE_KERNEL_WEIGHTS;
    c->row_start = (size_t *)copy_array(env, p->row_start, p->point_count + 1, sizeof(size_t), "corrective rows");
    c->entry_key = (uint32_t *)copy_array(env, p->entry_key, p->entry_count, sizeof(uint32_t), "corrective keys");
    c->entry_offset = (float *)copy_array(env, p->entry_offset, p->entry_count, 3 * sizeof(float),
                                          "corrective offsets");
    c->key_largest = (float *)sn_calloc_array(env, p->key_count, sizeof(float), "corrective key bounds");
    if (!c->row_start || !c->entry_key || !c->entry_offset || !c->key_largest) return sn_alloc_failure();
    if (interpolated) {
        size_t pose_floats = p->key_count * p->pose_size;  /* bounded by the key and pose caps */
        c->poses = (float *)copy_array(env, p->poses, pose_floats, sizeof(float), "corrective poses");
        c->rest_pose = (float *)sn_calloc_array(env, p->pose_size, sizeof(float), "corrective rest pose");
        c->coeffs = (double *)sn_calloc_array(env, c->basis_count * p->key_count, sizeof(double),
                                              "corrective coefficients");
        if (!c->poses || !c->rest_pose || !c->coeffs) return sn_alloc_failure();
        if (p->rest_pose) memcpy(c->rest_pose, p->rest_pose, p->pose_size * sizeof(float));
    }
    for (size_t e = 0; e < p->entry_count; ++e) {
        float *largest = &c->key_largest[p->entry_key[e]];
        for (int a = 0; a < 3; ++a) *largest = fmaxf(*largest, fabsf(p->entry_offset[3 * e + a]));
    }
    return SINEW_OK;
}

sinew_result sn_corr_build(const sn_env *env, const sn_corr_parts *p, const char *what, sinew_corrective **out)
{
    sn_env kept = *env;
    sinew_corrective *c = (sinew_corrective *)sn_calloc(&kept, sizeof *c, "corrective");
    if (!c) return sn_alloc_failure();
    c->held_bytes = sizeof *c;
    kept.held = &c->held_bytes;
    c->env = sn_env_kept(&kept);
    c->point_count = p->point_count;
    c->key_count = p->key_count;
    c->pose_size = p->kernel == SINEW_CORRECTIVE_KERNEL_WEIGHTS ? p->key_count : p->pose_size;
    c->kernel = p->kernel;
    /* The options of interpolation mean nothing for morph targets: zero, so
     * the handle has one spelling. */
    const bool interpolated = p->kernel != SINEW_CORRECTIVE_KERNEL_WEIGHTS;
    c->radius = interpolated ? p->radius : 0.0;
    c->smoothing = interpolated ? p->smoothing : 0.0;
    c->entry_count = p->entry_count;
    if (interpolated)
        c->basis_count = p->key_count + 1 + sn_corr_poly_terms(p->kernel, p->pose_size);
    sinew_result res = fill(c, p);
    if (res == SINEW_OK && interpolated) res = sn_corr_solve(&c->env, c, what);
    if (res != SINEW_OK) {
        sinew_corrective_destroy(c);
        return res;
    }
    *out = c;
    return SINEW_OK;
}
