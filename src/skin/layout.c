/* The memory layout of a skin, shared by create and load: the handle, its
 * group table and one block holding the inverse bind matrices and every
 * group's arrays; and the kernel table a skin's options select. */
#include <string.h>

#include "skin/skin_internal.h"

static size_t sn_skin_align(size_t x)
{
    return (x + (SN_ALIGN - 1)) & ~(size_t)(SN_ALIGN - 1);
}

/* Bytes of one group's arrays inside the block, each array 64-byte aligned.
 * Returns false on overflow. */
static bool sn_skin_group_bytes(size_t count, size_t k, sn_skin_format f, bool mixed, size_t *bytes)
{
    size_t slots, jb, wb, vb, total;
    size_t jsize = f == SN_SKIN_U8_J8 ? 1 : 2;
    size_t wsize = f == SN_SKIN_F32_J16 ? 4 : 1;
    if (!sn_mul_size(count, k, &slots) || !sn_mul_size(slots, jsize, &jb) || !sn_mul_size(slots, wsize, &wb) ||
        !sn_mul_size(count, 4, &vb))
        return false;
    if (jb > SIZE_MAX / 4 || wb > SIZE_MAX / 4 || vb > SIZE_MAX / 8) return false;
    /* vertex numbers, joints, weights, blend factors */
    total = sn_skin_align(vb) + sn_skin_align(jb) + (k > 1 ? sn_skin_align(wb) : 0) +
            (mixed ? sn_skin_align(vb) : 0);
    *bytes = total;
    return true;
}

sinew_result sn_skin_block_bytes(size_t joint_count, size_t max_k, const size_t *counts, sn_skin_format format,
                                 bool mixed, size_t *bytes)
{
    /* The block holds the inverse bind matrices, then every group's arrays. */
    size_t block = sn_skin_align(joint_count * 16 * sizeof(float));
    for (size_t k = 1; k <= max_k; ++k) {
        size_t group;
        if (!sn_skin_group_bytes(counts[k], k, format, mixed, &group) || !sn_add_size(block, group, &block))
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "skin bind data size overflows");
    }
    *bytes = block;
    return SINEW_OK;
}

sinew_result sn_skin_allocate(const sn_env *env, size_t joint_count, size_t max_k, const size_t *counts,
                              sn_skin_format format, bool mixed, void *memory, size_t memory_bytes, sinew_skin **out)
{
    size_t block;
    sinew_result r = sn_skin_block_bytes(joint_count, max_k, counts, format, mixed, &block);
    if (r != SINEW_OK) return r;
    /* The caller's memory is checked before anything is allocated: a refusal
     * leaves nothing to undo. */
    char *placed = NULL;
    if (memory) {
        const size_t skip = (SN_ALIGN - (uintptr_t)memory % SN_ALIGN) % SN_ALIGN;
        if (memory_bytes < skip || memory_bytes - skip < block)
            return sn_fail(SINEW_ERROR_BUFFER_TOO_SMALL,
                           "skin memory: memory_bytes %zu is below the %zu bytes this skin needs at this address "
                           "(sinew_skin_load_memory_size)", memory_bytes, block + skip);
        placed = (char *)memory + skip;
    }
    sinew_skin *skin = sn_calloc(env, sizeof *skin, "skin handle");
    if (!skin) return sn_alloc_failure();
    skin->env = sn_env_kept(env);
    skin->groups = sn_calloc_array(env, max_k, sizeof *skin->groups, "skin groups");
    if (!skin->groups) {
        r = sn_alloc_failure();
        goto fail;
    }
    skin->block = placed ? placed : sn_alloc(env, block, "skin bind data");
    if (!skin->block) {
        r = sn_alloc_failure();
        goto fail;
    }
    skin->block_is_callers = placed != NULL;
    skin->block_bytes = block;
    skin->joint_count = joint_count;
    skin->max_influences = max_k;
    skin->format = format;
    const size_t jsize = format == SN_SKIN_U8_J8 ? 1 : 2;
    const size_t wsize = format == SN_SKIN_F32_J16 ? 4 : 1;
    char *cursor = skin->block;
    skin->inverse_bind = (float *)cursor;
    cursor += sn_skin_align(joint_count * 16 * sizeof(float));
    for (size_t k = 1; k <= max_k; ++k) {
        sn_skin_group *g = &skin->groups[k - 1];
        g->influences = (uint32_t)k;
        g->vertex = (uint32_t *)cursor;
        cursor += sn_skin_align(counts[k] * 4);
        g->joints = cursor;
        cursor += sn_skin_align(counts[k] * k * jsize);
        if (k > 1) {
            g->weights = cursor;
            cursor += sn_skin_align(counts[k] * k * wsize);
        }
        if (mixed) {
            g->dq_blend = (float *)cursor;
            cursor += sn_skin_align(counts[k] * 4);
        }
    }
    *out = skin;
    return SINEW_OK;
fail:
    sinew_skin_destroy(skin);
    return r;
}

void sn_skin_use_kernels(sinew_skin *skin)
{
    sinew_skin_kernel kernel = skin->kernel_requested;
    if (kernel == SINEW_SKIN_KERNEL_AUTO) {
        if (sn_skin_kernel_available(SINEW_SKIN_KERNEL_AVX512)) kernel = SINEW_SKIN_KERNEL_AVX512;
        else if (sn_skin_kernel_available(SINEW_SKIN_KERNEL_AVX2)) kernel = SINEW_SKIN_KERNEL_AVX2;
        else if (sn_skin_kernel_available(SINEW_SKIN_KERNEL_SSE2)) kernel = SINEW_SKIN_KERNEL_SSE2;
        else kernel = SINEW_SKIN_KERNEL_SCALAR;
    }
    skin->kernel = kernel;
    sn_skin_kernel_fn table[SN_SKIN_FORMAT_COUNT][SN_SKIN_CLASS_COUNT];
    switch (skin->kernel) {
#if defined(SINEW_HAVE_X86_KERNELS)
    case SINEW_SKIN_KERNEL_AVX512: sn_skin_kernels_avx512(table); break;
    case SINEW_SKIN_KERNEL_AVX2: sn_skin_kernels_avx2(table); break;
    case SINEW_SKIN_KERNEL_SSE2: sn_skin_kernels_sse2(table); break;
#endif
    default: sn_skin_kernels_scalar(table); break;
    }
    sn_skin_kernel_fn dq = sn_skin_kernel_dq;
#if defined(SINEW_HAVE_X86_KERNELS)
    /* The AVX-512 set has no dual-quaternion kernel of its own: AVX2's. */
    if (skin->blend == SINEW_SKIN_BLEND_DUAL_QUATERNION &&
        (skin->kernel == SINEW_SKIN_KERNEL_AVX2 || skin->kernel == SINEW_SKIN_KERNEL_AVX512))
        dq = sn_skin_kernel_dq_avx2;
#endif
    sn_skin_kernel_fn positions[SN_SKIN_FORMAT_COUNT][SN_SKIN_CLASS_COUNT];
    memcpy(positions, table, sizeof positions);
#if defined(SINEW_HAVE_X86_KERNELS)
    if (skin->kernel == SINEW_SKIN_KERNEL_AVX512) sn_skin_positions_avx512(positions);
#endif
    for (int c = 0; c < SN_SKIN_CLASS_COUNT; ++c) {
        skin->kernels[c] = skin->blend == SINEW_SKIN_BLEND_LINEAR ? table[skin->format][c] : dq;
        skin->positions[c] = skin->blend == SINEW_SKIN_BLEND_LINEAR ? positions[skin->format][c] : dq;
    }
}
