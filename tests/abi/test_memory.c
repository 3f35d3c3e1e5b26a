/*
 * Per-handle memory queries are honest: memory_bytes equals the bytes the
 * handle's allocations asked for, measured by a counting allocator as the
 * change in live bytes across the handle's creation (each block also carries
 * one 64-byte header line of the library's own, counted apart).
 *
 * SPDX-License-Identifier: MIT
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sinew.h"

#define HEADER 64   /* the library's per-block header (src/core/context.c) */

typedef struct counter {
    size_t live_bytes, live_blocks;
} counter;

/* Stores the size in front of the block; 64-byte aligned blocks. */
static void *counting_alloc(void *user, size_t size, size_t align)
{
    counter *c = user;
    (void)align;
    unsigned char *raw = aligned_alloc(64, ((size + 64) + 63) / 64 * 64);
    if (!raw) return NULL;
    memcpy(raw, &size, sizeof size);
    c->live_bytes += size;
    c->live_blocks += 1;
    return raw + 64;
}
static void counting_free(void *user, void *ptr)
{
    counter *c = user;
    if (!ptr) return;
    unsigned char *raw = (unsigned char *)ptr - 64;
    size_t size;
    memcpy(&size, raw, sizeof size);
    c->live_bytes -= size;
    c->live_blocks -= 1;
    free(raw);
}

static counter count;
static sinew_context *ctx;

static int setup(void **state)
{
    (void)state;
    sinew_context_desc cd;
    SINEW_INIT(&cd);
    cd.allocator.alloc = counting_alloc;
    cd.allocator.free = counting_free;
    cd.allocator.user = &count;
    return sinew_context_create(&cd, &ctx) == SINEW_OK ? 0 : -1;
}
static int teardown(void **state)
{
    (void)state;
    sinew_context_destroy(ctx);
    return 0;
}

/* What the blocks allocated since `before` asked for, without the library's headers. */
static size_t held_since(counter before)
{
    return (count.live_bytes - before.live_bytes) - HEADER * (count.live_blocks - before.live_blocks);
}

/* Saves a handle, loads it back through the counting context, and checks the
 * loaded handle's memory_bytes the same way: loads size their arrays on
 * their own, so this is a separate measurement, not a copy of the figure. */
#define CHECK_LOADED(kind, info_type, handle)                                                   \
    do {                                                                                        \
        size_t size_ = 0;                                                                       \
        assert_int_equal(sinew_##kind##_save(handle, NULL, 0, &size_), SINEW_OK);                \
        void *buf_ = malloc(size_);                                                             \
        assert_int_equal(sinew_##kind##_save(handle, buf_, size_, &size_), SINEW_OK);            \
        counter before_ = count;                                                                \
        sinew_##kind *loaded_ = NULL;                                                           \
        assert_int_equal(sinew_##kind##_load(ctx, buf_, size_, &loaded_), SINEW_OK);            \
        info_type info_;                                                                        \
        SINEW_INIT(&info_);                                                                     \
        assert_int_equal(sinew_##kind##_get_info(loaded_, &info_), SINEW_OK);                   \
        assert_int_equal(info_.memory_bytes, held_since(before_));                              \
        sinew_##kind##_destroy(loaded_);                                                        \
        assert_int_equal(count.live_blocks, before_.live_blocks);                               \
        free(buf_);                                                                             \
    } while (0)

static const float cube[8 * 3] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
static const uint32_t quads[6 * 4] = {0, 3, 2, 1, 4, 5, 6, 7, 0, 1, 5, 4, 1, 2, 6, 5, 2, 3, 7, 6, 3, 0, 4, 7};
static const uint32_t sizes[6] = {4, 4, 4, 4, 4, 4};

static void skin_memory(void **state)
{
    (void)state;
    const uint32_t j[4] = {0, 1, 1, 0};
    const float w[4] = {0.5f, 0.5f, 1.0f, 0.0f};
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = 2, d.joint_count = 2, d.influence_count = 2, d.joints = j, d.weights = w;
    counter before = count;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(ctx, &d, &skin), SINEW_OK);
    sinew_skin_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_skin_get_info(skin, &info), SINEW_OK);
    assert_int_equal(info.memory_bytes, held_since(before));
    CHECK_LOADED(skin, sinew_skin_info, skin);
    sinew_skin_destroy(skin);
    assert_int_equal(count.live_blocks, before.live_blocks);
}

static void soffd_memory(void **state)
{
    (void)state;
    sinew_polymesh driver = {{cube, 8, 0}, quads, sizes, 6, SINEW_INDEX_U32};
    counter before = count;
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(ctx, &driver, NULL, &h), SINEW_OK);
    const float skin[2 * 3] = {0.5f, 0.5f, 0.5f, 0.2f, 0.3f, 0.9f};
    sinew_points s = {skin, 2, 0};
    assert_int_equal(sinew_soffd_register(NULL, h, &s, NULL), SINEW_OK);
    sinew_soffd_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_soffd_get_info(h, &info), SINEW_OK);
    assert_true(info.memory_bytes > 0);
    assert_int_equal(info.memory_bytes, held_since(before));
    CHECK_LOADED(soffd, sinew_soffd_info, h);
    sinew_soffd_destroy(h);
}

static void lattice_memory(void **state)
{
    (void)state;
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    counter before = count;
    sinew_lattice *lat = NULL;
    assert_int_equal(sinew_lattice_create(ctx, &d, &lat), SINEW_OK);
    sinew_lattice_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_lattice_get_info(lat, &info), SINEW_OK);
    assert_int_equal(info.memory_bytes, held_since(before));

    const float pts[2 * 3] = {0.1f, 0.2f, 0.3f, 0.9f, 0.8f, 0.7f};
    sinew_lattice_binding_desc bd;
    SINEW_INIT(&bd);
    bd.points = (sinew_points){pts, 2, 0};
    bd.normals = (sinew_points){pts, 2, 0};
    before = count;
    sinew_lattice_binding *b = NULL;
    assert_int_equal(sinew_lattice_binding_create(ctx, lat, &bd, &b), SINEW_OK);
    sinew_lattice_binding_info bi;
    SINEW_INIT(&bi);
    assert_int_equal(sinew_lattice_binding_get_info(b, &bi), SINEW_OK);
    assert_int_equal(bi.point_count, 2);
    assert_true(bi.has_normals);
    assert_int_equal(bi.space, SINEW_LATTICE_SPACE_WORLD);
    assert_int_equal(bi.memory_bytes, held_since(before));
    CHECK_LOADED(lattice_binding, sinew_lattice_binding_info, b);
    sinew_lattice_binding_destroy(b);

    const uint32_t tri[3] = {0, 1, 2};
    const float tri_pts[9] = {0.1f, 0.1f, 0.5f, 0.9f, 0.1f, 0.5f, 0.5f, 0.9f, 0.5f};
    sinew_trimesh mesh = {{tri_pts, 3, 0}, tri, 1, SINEW_INDEX_U32, 0};
    sinew_lattice_refinement_desc rd;
    SINEW_INIT(&rd);
    rd.tolerance = 1e-3;
    before = count;
    sinew_lattice_refinement *ref = NULL;
    assert_int_equal(sinew_lattice_refinement_create(ctx, lat, &mesh, &rd, &ref), SINEW_OK);
    sinew_lattice_refined_mesh m;
    SINEW_INIT(&m);
    assert_int_equal(sinew_lattice_refinement_mesh(ref, &m), SINEW_OK);
    assert_int_equal(m.memory_bytes, held_since(before));
    sinew_lattice_refinement_destroy(ref);
    CHECK_LOADED(lattice, sinew_lattice_info, lat);
    sinew_lattice_destroy(lat);
}

static void bbw_memory(void **state)
{
    (void)state;
    const float square[4 * 3] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    const uint32_t tris[2 * 3] = {0, 1, 2, 0, 2, 3};
    sinew_trimesh domain = {{square, 4, 0}, tris, 2, SINEW_INDEX_U32, 0};
    const float handles[2 * 3] = {0, 0, 0, 1, 1, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &domain;
    d.points = (sinew_points){handles, 2, 0};
    counter before = count;
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(ctx, &d, &b), SINEW_OK);
    sinew_result r = sinew_bbw_solve(NULL, b, NULL);
    assert_true(r == SINEW_OK || r == SINEW_ERROR_NOT_CONVERGED);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_bbw_get_info(b, &info), SINEW_OK);
    assert_int_equal(info.memory_bytes, held_since(before));
    CHECK_LOADED(bbw, sinew_bbw_info, b);
    sinew_bbw_destroy(b);
}

static void corrective_memory(void **state)
{
    (void)state;
    const float poses[2] = {1.0f, 2.0f}, offsets[2 * 2 * 3] = {1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 3};
    sinew_corrective_desc d;
    SINEW_INIT(&d);
    d.point_count = 2, d.key_count = 2, d.pose_size = 1, d.poses = poses, d.offsets = offsets;
    d.kernel = SINEW_CORRECTIVE_KERNEL_CUBIC;
    counter before = count;
    sinew_corrective *c = NULL;
    assert_int_equal(sinew_corrective_create(ctx, &d, &c), SINEW_OK);
    sinew_corrective_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_corrective_get_info(c, &info), SINEW_OK);
    assert_int_equal(info.memory_bytes, held_since(before));
    CHECK_LOADED(corrective, sinew_corrective_info, c);
    sinew_corrective_destroy(c);
    assert_int_equal(count.live_blocks, before.live_blocks);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(skin_memory),
        cmocka_unit_test(soffd_memory),
        cmocka_unit_test(lattice_memory),
        cmocka_unit_test(bbw_memory),
        cmocka_unit_test(corrective_memory),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
