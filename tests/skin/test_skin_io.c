/* Saving and loading skins: round trips for every storage, blend, normal mode
 * and kernel (same deformation bits, same saved bytes), the golden file of
 * format version 1, the save contract, named content errors in resealed data,
 * the corruption sweeps and an allocation-failure sweep on load.
 * SINEW_WRITE_GOLDEN=1 rewrites tests/golden/skin-v1.bin instead of reading it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "skin_test_util.h"
#include "support.h"

/* ---- A random rig -------------------------------------------------------------- */

typedef struct rig {
    size_t n, k, joints;
    uint32_t *joint;
    float *weight, *dq_blend, *inverse_bind;
    float *p, *nrm, *tan;  /* rest streams */
    float *world;          /* one pose */
} rig;

/* n vertices of k slots over `joints` joints: 1..k nonzero influences per
 * vertex, some listed twice, some all zero (bound to joint 0), sums near 1 so
 * renormalise matters. */
static void rig_init(rig *r, size_t n, size_t k, size_t joints, uint64_t seed)
{
    support_rng rng;
    support_rng_seed(&rng, seed);
    r->n = n, r->k = k, r->joints = joints;
    r->joint = malloc(n * k * sizeof *r->joint);
    r->weight = malloc(n * k * sizeof *r->weight);
    r->dq_blend = malloc(n * sizeof *r->dq_blend);
    r->inverse_bind = malloc(joints * 16 * sizeof(float));
    r->p = malloc(n * 3 * sizeof(float));
    r->nrm = malloc(n * 3 * sizeof(float));
    r->tan = malloc(n * 4 * sizeof(float));
    r->world = malloc(joints * 16 * sizeof(float));
    for (size_t v = 0; v < n; ++v) {
        size_t used = 1 + (size_t)(support_rng_next(&rng) % k);
        for (size_t s = 0; s < k; ++s) {
            r->joint[v * k + s] = (uint32_t)(support_rng_next(&rng) % joints);
            r->weight[v * k + s] = s < used ? (float)support_rng_uniform(&rng, 0.05, 1.0) : 0.0f;
        }
        if (v % 11 == 3 && k > 1) r->joint[v * k + 1] = r->joint[v * k];  /* a duplicate to merge */
        if (v % 17 == 5)
            for (size_t s = 0; s < k; ++s) r->weight[v * k + s] = 0.0f;  /* unweighted */
        r->dq_blend[v] = (float)support_rng_uniform(&rng, 0.0, 1.0);
        for (int i = 0; i < 3; ++i) r->p[3 * v + i] = (float)support_rng_uniform(&rng, -1, 1);
        double a = support_rng_uniform(&rng, 0, 6.283185307179586);
        r->nrm[3 * v] = (float)cos(a), r->nrm[3 * v + 1] = (float)sin(a), r->nrm[3 * v + 2] = 0.25f;
        r->tan[4 * v] = (float)-sin(a), r->tan[4 * v + 1] = (float)cos(a), r->tan[4 * v + 2] = 0.0f;
        r->tan[4 * v + 3] = v % 2 ? 1.0f : -1.0f;
    }
    for (size_t j = 0; j < joints; ++j) {
        double axis[3] = {support_rng_uniform(&rng, -1, 1), support_rng_uniform(&rng, -1, 1), 1.0};
        double t[3] = {support_rng_uniform(&rng, -1, 1), support_rng_uniform(&rng, -1, 1), 0.5};
        double scale[3] = {support_rng_uniform(&rng, 0.7, 1.4), support_rng_uniform(&rng, 0.7, 1.4), 1.0};
        double one[3] = {1, 1, 1};
        skin_test_trs(axis, support_rng_uniform(&rng, -0.5, 0.5), t, one, r->inverse_bind + 16 * j);
        skin_test_trs(axis, support_rng_uniform(&rng, -1.5, 1.5), t, scale, r->world + 16 * j);
    }
}

static void rig_free(rig *r)
{
    free(r->joint), free(r->weight), free(r->dq_blend), free(r->inverse_bind);
    free(r->p), free(r->nrm), free(r->tan), free(r->world);
}

static sinew_skin_desc rig_desc(const rig *r, sinew_skin_storage storage, sinew_skin_blend blend,
                                sinew_skin_normals normals, sinew_skin_kernel kernel)
{
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = r->n;
    d.joint_count = r->joints;
    d.influence_count = r->k;
    d.joints = r->joint;
    d.weights = r->weight;
    d.inverse_bind = r->inverse_bind;
    d.renormalise = 1;
    d.unweighted = SINEW_SKIN_UNWEIGHTED_BIND;
    d.storage = storage;
    d.blend = blend;
    d.dq_blend = r->dq_blend;
    d.normals = normals;
    d.kernel = kernel;
    return d;
}

static sinew_skin *rig_skin(const rig *r, sinew_skin_storage storage, sinew_skin_blend blend,
                            sinew_skin_normals normals, sinew_skin_kernel kernel)
{
    sinew_skin_desc d = rig_desc(r, storage, blend, normals, kernel);
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    return skin;
}

/* Deforms every stream of every vertex (split in two ranges) into out (10 floats per vertex). */
static void deform_all(const sinew_skin *skin, const rig *r, float *out)
{
    size_t floats = sinew_skin_palette_size(skin);
    float *palette = aligned_alloc(64, (floats * sizeof(float) + 63) / 64 * 64);
    assert_int_equal(sinew_skin_palette(skin, r->world, r->joints, palette, floats), SINEW_OK);
    sinew_skin_input in = {r->p, 0, r->nrm, 0, r->tan, 0};
    sinew_skin_output o = {out, 10 * sizeof(float), out + 3, 10 * sizeof(float), out + 6, 10 * sizeof(float)};
    assert_int_equal(sinew_skin_deform(skin, palette, floats, &in, &o, 0, r->n / 3), SINEW_OK);
    assert_int_equal(sinew_skin_deform(skin, palette, floats, &in, &o, r->n / 3, r->n - r->n / 3), SINEW_OK);
    free(palette);
}

static unsigned char *save(const sinew_skin *skin, size_t *size)
{
    assert_int_equal(sinew_skin_save(skin, NULL, 0, size), SINEW_OK);
    unsigned char *buf = malloc(*size);
    size_t written = 0;
    assert_int_equal(sinew_skin_save(skin, buf, *size, &written), SINEW_OK);
    assert_int_equal(written, *size);
    return buf;
}

/* Loads saved (into memory, at memory_bytes, when memory is not NULL), then
 * checks the loaded skin against the original: info, influences of every
 * vertex, deformation bits, and the bytes it saves. */
static void check_round_trip_into(const sinew_skin *skin, const rig *r, void *memory, size_t memory_bytes)
{
    size_t size;
    unsigned char *buf = save(skin, &size);
    sinew_skin *loaded = NULL;
    assert_int_equal(memory ? sinew_skin_load_into(NULL, buf, size, memory, memory_bytes, &loaded)
                            : sinew_skin_load(NULL, buf, size, &loaded),
                     SINEW_OK);
    assert_string_equal(sinew_last_error(), "");

    sinew_skin_info a, b;
    SINEW_INIT(&a);
    SINEW_INIT(&b);
    assert_int_equal(sinew_skin_get_info(skin, &a), SINEW_OK);
    assert_int_equal(sinew_skin_get_info(loaded, &b), SINEW_OK);
    assert_memory_equal(&a, &b, sizeof a);

    uint32_t ja[64], jb[64];
    float wa[64], wb[64];
    for (size_t v = 0; v < r->n; ++v) {
        size_t ca, cb;
        assert_int_equal(sinew_skin_vertex_influences(skin, v, ja, wa, 64, &ca), SINEW_OK);
        assert_int_equal(sinew_skin_vertex_influences(loaded, v, jb, wb, 64, &cb), SINEW_OK);
        assert_int_equal(ca, cb);
        assert_memory_equal(ja, jb, ca * sizeof *ja);
        assert_memory_equal(wa, wb, ca * sizeof *wa);
    }

    float *da = malloc(r->n * 10 * sizeof(float)), *db = malloc(r->n * 10 * sizeof(float));
    deform_all(skin, r, da);
    deform_all(loaded, r, db);
    assert_memory_equal(da, db, r->n * 10 * sizeof(float));

    size_t size2;
    unsigned char *buf2 = save(loaded, &size2);
    assert_int_equal(size, size2);
    assert_memory_equal(buf, buf2, size);

    free(da), free(db), free(buf), free(buf2);
    sinew_skin_destroy(loaded);
}

static void check_round_trip(const sinew_skin *skin, const rig *r)
{
    check_round_trip_into(skin, r, NULL, 0);
}

static void round_trip_every_option(void **state)
{
    (void)state;
    /* 40 joints: 8-bit compressed joints; 300: 16-bit. */
    const size_t joint_counts[2] = {40, 300};
    for (int jc = 0; jc < 2; ++jc) {
        rig r;
        rig_init(&r, 257, 6, joint_counts[jc], 77 + (uint64_t)jc);
        for (int st = 0; st <= SINEW_SKIN_STORAGE_COMPRESSED; ++st)
            for (int bl = 0; bl <= SINEW_SKIN_BLEND_MIXED; ++bl)
                for (int nm = 0; nm <= SINEW_SKIN_NORMALS_BLENDED_MATRIX; ++nm) {
                    sinew_skin *skin = rig_skin(&r, (sinew_skin_storage)st, (sinew_skin_blend)bl,
                                                (sinew_skin_normals)nm, SINEW_SKIN_KERNEL_AUTO);
                    check_round_trip(skin, &r);
                    sinew_skin_destroy(skin);
                }
        rig_free(&r);
    }
}

static bool kernel_runs_here(sinew_skin_kernel kernel, const rig *r)
{
    sinew_skin_desc d = rig_desc(r, SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_BLEND_LINEAR,
                                 SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE, kernel);
    sinew_skin *skin = NULL;
    sinew_result res = sinew_skin_create(NULL, &d, &skin);
    sinew_skin_destroy(skin);
    return res == SINEW_OK;
}

/* Forced kernels stay forced; AUTO resolves on load to what create resolves. */
static void round_trip_every_kernel(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, 301, 4, 20, 5);
    for (int kn = SINEW_SKIN_KERNEL_AUTO; kn <= SINEW_SKIN_KERNEL_AVX512; ++kn) {
        if (!kernel_runs_here((sinew_skin_kernel)kn, &r)) continue;
        for (int bl = 0; bl <= SINEW_SKIN_BLEND_MIXED; ++bl)
            for (int st = 0; st <= SINEW_SKIN_STORAGE_COMPRESSED; ++st) {
                sinew_skin *skin = rig_skin(&r, (sinew_skin_storage)st, (sinew_skin_blend)bl,
                                            SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE, (sinew_skin_kernel)kn);
                check_round_trip(skin, &r);
                sinew_skin_destroy(skin);
            }
    }
    rig_free(&r);
}

/* ---- Saved bytes, edited and resealed --------------------------------------- */


/* Start of a section's data in saved bytes; the test fails when it is missing. */
static unsigned char *section(unsigned char *buf, const char tag[4])
{
    unsigned char *at = support_saved_section(buf, tag);
    if (!at) fail_msg("section %.4s not found", tag);
    return at;
}

/* A small skin with 2-influence vertices: vertices 0..5 with 2 influences
 * over 4 joints, float storage. */
static unsigned char *small_saved(size_t *size, sinew_skin_storage storage, sinew_skin_blend blend)
{
    static const uint32_t joints[12] = {0, 1, 1, 2, 2, 3, 3, 0, 0, 2, 1, 3};
    static const float weights[12] = {0.75f, 0.25f, 0.5f, 0.5f, 0.125f, 0.875f,
                                      0.625f, 0.375f, 1.0f, 0.0f, 0.25f, 0.75f};
    static const float blend_factors[6] = {0, 0.25f, 0.5f, 0.75f, 1, 0.5f};
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = 6;
    d.joint_count = 4;
    d.influence_count = 2;
    d.joints = joints;
    d.weights = weights;
    d.storage = storage;
    d.blend = blend;
    d.dq_blend = blend_factors;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    unsigned char *buf = save(skin, size);
    sinew_skin_destroy(skin);
    return buf;
}

/* Loads after a reseal; expects `code` and a message holding `words`. */
static void expect_load(unsigned char *buf, size_t size, sinew_result code, const char *words)
{
    assert_true(support_reseal(buf, size));
    sinew_skin *out = (sinew_skin *)(uintptr_t)0x1234;
    sinew_result res = sinew_skin_load(NULL, buf, size, &out);
    if (res != code || !strstr(sinew_last_error(), words))
        fail_msg("expected %s with \"%s\", got %s: %s", sinew_result_string(code), words, sinew_result_string(res),
                 sinew_last_error());
    if (code == SINEW_OK) sinew_skin_destroy(out);
    else assert_ptr_equal(out, (sinew_skin *)(uintptr_t)0x1234);
    assert_non_null(strstr(sinew_last_error(), code == SINEW_OK ? "" : "skin data"));
}

static void content_errors_are_named(void **state)
{
    (void)state;
    size_t size;
    unsigned char *orig = small_saved(&size, SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_BLEND_MIXED);
    unsigned char *buf = malloc(size);
    /* Group 1 holds vertex 4 (weights 1, 0); group 2 vertices 0, 1, 2, 3, 5. */
#define FRESH() memcpy(buf, orig, size)
    FRESH();
    expect_load(buf, size, SINEW_OK, "");
    FRESH();
    support_le_put(section(buf, "SKJT") + 2 * 2, 9, 2);  /* vertex 0 slot 1 (after group 1's one slot) */
    expect_load(buf, size, SINEW_ERROR_INDEX_OUT_OF_RANGE, "vertex 0 slot 1 refers to joint 9, but there are only 4");
    FRESH();
    support_le_put(section(buf, "SKJT") + 2 * 2, support_le_get(section(buf, "SKJT") + 2 * 1, 2), 2);
    expect_load(buf, size, SINEW_ERROR_INVALID_DATA, "vertex 0 lists joint 0 twice");
    FRESH();
    { float w = 0.7f; memcpy(section(buf, "SKWT") + 4, &w, 4); }  /* vertex 0: 0.75 + 0.7 */
    expect_load(buf, size, SINEW_ERROR_INVALID_WEIGHTS, "vertex 0 weights sum to");
    FRESH();
    { float w = -0.25f; memcpy(section(buf, "SKWT") + 4, &w, 4); }
    expect_load(buf, size, SINEW_ERROR_INVALID_WEIGHTS, "vertex 0 slot 1 has weight -0.25 outside [0, 1]");
    FRESH();
    { float w[2] = {0.25f, 0.75f}; memcpy(section(buf, "SKWT"), w, 8); }
    expect_load(buf, size, SINEW_ERROR_INVALID_DATA, "vertex 0 slot 1 is not sorted by decreasing weight");
    FRESH();
    { float nan_bits = 2.0f; memcpy(section(buf, "SKDQ") + 4, &nan_bits, 4); }
    expect_load(buf, size, SINEW_ERROR_INVALID_WEIGHTS, "has dq_blend factor 2 outside [0, 1]");
    FRESH();
    support_le_put(section(buf, "SKVX") + 4, 4, 4);  /* group 2 starts with group 1's vertex 4 */
    expect_load(buf, size, SINEW_ERROR_INVALID_DATA, "vertex 4 is in two influence groups");
    FRESH();
    support_le_put(section(buf, "SKVX") + 8, 6, 4);
    expect_load(buf, size, SINEW_ERROR_INDEX_OUT_OF_RANGE, "is vertex 6, but there are only 6 vertices");
    FRESH();
    support_le_put(section(buf, "SKVX") + 8, 0, 4);
    expect_load(buf, size, SINEW_ERROR_INVALID_DATA, "not increasing at position 1");
    FRESH();
    { float one = 1.0f; memcpy(section(buf, "SKIB") + 4 * (16 + 3), &one, 4); }
    expect_load(buf, size, SINEW_ERROR_INVALID_ARGUMENT, "inverse bind matrix of joint 1 is not affine");
    FRESH();
    support_le_put(section(buf, "SKOP") + 8 * 2, 3, 8);  /* max_influences 3, but 2 group counts */
    expect_load(buf, size, SINEW_ERROR_INVALID_DATA, "SKGC holds 2 elements, expected 3");
    FRESH();
    support_le_put(section(buf, "SKGC"), 2, 8);  /* 2 + 5 vertices in groups */
    expect_load(buf, size, SINEW_ERROR_INVALID_DATA, "more than the 6 vertices");
    FRESH();
    support_le_put(section(buf, "SKOP") + 8 * 3, 7, 8);
    expect_load(buf, size, SINEW_ERROR_INVALID_ARGUMENT, "storage 7 is not a sinew_skin_storage");
    FRESH();
    support_le_put(section(buf, "SKOP") + 8 * 6, 9, 8);
    expect_load(buf, size, SINEW_ERROR_INVALID_ARGUMENT, "kernel 9 is not a sinew_skin_kernel");
    FRESH();
    support_le_put(section(buf, "SKOP") + 8 * 1, 70000, 8);
    expect_load(buf, size, SINEW_ERROR_UNSUPPORTED, "joint_count 70000 exceeds");
    FRESH();
    support_le_put(section(buf, "SKOP") + 8 * 9, 2, 8);  /* 2 unweighted, 1 single-joint vertex */
    expect_load(buf, size, SINEW_ERROR_INVALID_DATA, "2 unweighted vertices, but only 1 have one influence");
    free(orig);

    /* Compressed: u8 weights sum to exactly 255 and none is 0. */
    orig = small_saved(&size, SINEW_SKIN_STORAGE_COMPRESSED, SINEW_SKIN_BLEND_LINEAR);
    buf = realloc(buf, size);
    FRESH();
    expect_load(buf, size, SINEW_OK, "");
    FRESH();
    section(buf, "SKWT")[1] += 1;
    expect_load(buf, size, SINEW_ERROR_INVALID_WEIGHTS, "vertex 0 weights sum to");
    FRESH();
    section(buf, "SKWT")[0] += section(buf, "SKWT")[1];
    section(buf, "SKWT")[1] = 0;
    expect_load(buf, size, SINEW_ERROR_INVALID_WEIGHTS, "vertex 0 slot 1 has a zero quantised weight");
#undef FRESH
    free(orig);
    free(buf);
}

static void header_errors(void **state)
{
    (void)state;
    size_t size;
    unsigned char *buf = small_saved(&size, SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_BLEND_LINEAR);
    support_le_put(buf + 16, SINEW_KIND_SOFFD, 4);
    expect_load(buf, size, SINEW_ERROR_MISMATCH, "surface");
    support_le_put(buf + 16, SINEW_KIND_SKIN, 4);
    support_le_put(buf + 8, SINEW_FORMAT_VERSION + 1, 4);
    expect_load(buf, size, SINEW_ERROR_UNSUPPORTED, "newer");
    /* Skin data has no version 2 layout (only bbw data does). */
    support_le_put(buf + 8, 2, 4);
    expect_load(buf, size, SINEW_ERROR_UNSUPPORTED, "newer");
    support_le_put(buf + 8, 1, 4);
    expect_load(buf, size, SINEW_OK, "");
    /* Truncated by one 64-byte block. */
    sinew_skin *out = NULL;
    assert_int_equal(sinew_skin_load(NULL, buf, size - 64, &out), SINEW_ERROR_INVALID_DATA);
    assert_null(out);
    assert_int_equal(sinew_skin_load(NULL, NULL, size, &out), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_load(NULL, buf, size, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    free(buf);
}

static void save_contract(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, 50, 3, 8, 3);
    sinew_skin *skin = rig_skin(&r, SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_BLEND_LINEAR,
                                SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE, SINEW_SKIN_KERNEL_AUTO);
    size_t size = 0;
    assert_int_equal(sinew_skin_save(NULL, NULL, 0, &size), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_save(skin, NULL, 0, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_save(skin, NULL, 0, &size), SINEW_OK);
    assert_true(size > 0 && size % 64 == 0);
    unsigned char *buf = malloc(size + 64);
    memset(buf, 0xab, size + 64);
    size_t got = 0;
    assert_int_equal(sinew_skin_save(skin, buf, size - 1, &got), SINEW_ERROR_BUFFER_TOO_SMALL);
    assert_int_equal(got, size);
    for (size_t i = 0; i < size + 64; ++i) assert_int_equal(buf[i], 0xab);
    assert_int_equal(sinew_skin_save(skin, buf, size + 64, &got), SINEW_OK);
    assert_int_equal(got, size);
    assert_int_equal(buf[size], 0xab);  /* nothing past the data */
    sinew_saved_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_saved_get_info(buf, size, &info), SINEW_OK);
    assert_int_equal(info.kind, SINEW_KIND_SKIN);
    assert_int_equal(info.size, size);
    free(buf);
    sinew_skin_destroy(skin);
    rig_free(&r);
}

/* ---- Loading into the caller's memory ------------------------------------------ */

/* Every option round-trips through memory the caller owns, at every
 * misalignment of its start, with exactly the bytes the size query gives;
 * the memory is reused skin after skin, and the handle's own allocations
 * exclude the bind data. */
static void load_into_caller_memory(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, 3000, 5, 300, 91);
    unsigned char *memory = NULL;
    size_t held = 0;
    for (int st = 0; st <= SINEW_SKIN_STORAGE_COMPRESSED; ++st)
        for (int bl = 0; bl <= SINEW_SKIN_BLEND_MIXED; bl += SINEW_SKIN_BLEND_MIXED) {
            sinew_skin *skin = rig_skin(&r, (sinew_skin_storage)st, (sinew_skin_blend)bl,
                                        SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE, SINEW_SKIN_KERNEL_AUTO);
            size_t size, bytes = 0;
            unsigned char *buf = save(skin, &size);
            assert_int_equal(sinew_skin_load_memory_size(NULL, buf, size, &bytes), SINEW_OK);
            sinew_skin_info info;
            SINEW_INIT(&info);
            assert_int_equal(sinew_skin_get_info(skin, &info), SINEW_OK);
            /* The bind data and at most one alignment's slack: it is most of the handle. */
            assert_true(bytes > info.memory_bytes / 2 && bytes < info.memory_bytes + 64);
            if (bytes + 64 > held) {
                free(memory);
                memory = aligned_alloc(64, (bytes + 64 + 63) / 64 * 64);
                held = bytes + 64;
            }
            const size_t shifts[4] = {0, 1, 17, 63};
            for (int i = 0; i < 4; ++i) check_round_trip_into(skin, &r, memory + shifts[i], bytes);

            /* The handle's own allocations, counted: everything but the bind data. */
            support_allocator count = {0};
            sinew_context_desc cd;
            SINEW_INIT(&cd);
            cd.allocator = support_allocator_hooks(&count);
            sinew_context *ctx = NULL;
            assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
            const size_t before = count.live_bytes;
            sinew_skin *loaded = NULL;
            assert_int_equal(sinew_skin_load_into(ctx, buf, size, memory, bytes, &loaded), SINEW_OK);
            assert_true(count.live_bytes - before < 4096);
            sinew_skin_info li;
            SINEW_INIT(&li);
            assert_int_equal(sinew_skin_get_info(loaded, &li), SINEW_OK);
            assert_int_equal(li.memory_bytes, info.memory_bytes);
            sinew_skin_destroy(loaded);
            assert_int_equal(count.live_bytes, before);
            sinew_context_destroy(ctx);
            free(buf);
            sinew_skin_destroy(skin);
        }
    free(memory);
    rig_free(&r);
}

/* Too little memory, NULL arguments and refused data: the load's codes, a
 * message that names the size, *out untouched. */
static void load_into_refusals(void **state)
{
    (void)state;
    size_t size, bytes = 0;
    unsigned char *buf = small_saved(&size, SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_BLEND_MIXED);
    assert_int_equal(sinew_skin_load_memory_size(NULL, buf, size, &bytes), SINEW_OK);
    unsigned char *memory = aligned_alloc(64, (bytes + 64 + 63) / 64 * 64);
    sinew_skin *const untouched = (sinew_skin *)(uintptr_t)0x1234;
    sinew_skin *out = untouched;

    /* At an aligned start the slack is not needed; one byte less is. */
    assert_int_equal(sinew_skin_load_into(NULL, buf, size, memory, bytes - 63, &out), SINEW_OK);
    sinew_skin_destroy(out);
    out = untouched;
    assert_int_equal(sinew_skin_load_into(NULL, buf, size, memory, bytes - 64, &out), SINEW_ERROR_BUFFER_TOO_SMALL);
    assert_non_null(strstr(sinew_last_error(), "memory_bytes"));
    char needed[64];
    snprintf(needed, sizeof needed, "%zu bytes", bytes - 63);
    assert_non_null(strstr(sinew_last_error(), needed));
    assert_ptr_equal(out, untouched);
    /* One byte past alignment needs all of it. */
    assert_int_equal(sinew_skin_load_into(NULL, buf, size, memory + 1, bytes - 1, &out), SINEW_ERROR_BUFFER_TOO_SMALL);
    assert_ptr_equal(out, untouched);
    assert_int_equal(sinew_skin_load_into(NULL, buf, size, memory + 1, bytes, &out), SINEW_OK);
    sinew_skin_destroy(out);
    out = untouched;

    assert_int_equal(sinew_skin_load_into(NULL, buf, size, NULL, bytes, &out), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "memory"));
    assert_int_equal(sinew_skin_load_into(NULL, buf, size, memory, bytes, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_load_memory_size(NULL, buf, size, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_load_memory_size(NULL, NULL, size, &bytes), SINEW_ERROR_INVALID_ARGUMENT);

    /* A corrupted body: the size query reads only the header and counts, the
     * load refuses it as sinew_skin_load does. */
    unsigned char *bad = malloc(size);
    memcpy(bad, buf, size);
    section(bad, "SKWT")[0] ^= 0x40;
    size_t bad_bytes = 0;
    assert_int_equal(sinew_skin_load_memory_size(NULL, bad, size, &bad_bytes), SINEW_OK);
    assert_int_equal(bad_bytes, bytes);
    const sinew_result plain = sinew_skin_load(NULL, bad, size, &out);
    assert_int_not_equal(plain, SINEW_OK);
    assert_int_equal(sinew_skin_load_into(NULL, bad, size, memory, bytes, &out), plain);
    assert_ptr_equal(out, untouched);
    /* Counts that do not add up fail the query too, with the load's code. */
    memcpy(bad, buf, size);
    section(bad, "SKGC")[0] ^= 1;
    assert_true(support_reseal(bad, size));
    assert_int_equal(sinew_skin_load_memory_size(NULL, bad, size, &bad_bytes), sinew_skin_load(NULL, bad, size, &out));
    assert_ptr_equal(out, untouched);
    free(bad), free(memory), free(buf);
}

/* ---- Sweeps ------------------------------------------------------------------ */

/* Loads, and on success deforms one pose: a loaded skin must give finite results. */
static sinew_result load_and_deform(const void *data, size_t size, void *user)
{
    (void)user;
    sinew_skin *skin = NULL;
    sinew_result res = sinew_skin_load(NULL, data, size, &skin);
    if (res != SINEW_OK) return res;
    sinew_skin_info info;
    SINEW_INIT(&info);
    sinew_skin_get_info(skin, &info);
    float *world = malloc(info.joint_count * 16 * sizeof(float));
    for (size_t j = 0; j < info.joint_count; ++j) skin_test_identity(world + 16 * j);
    float *palette = aligned_alloc(64, (info.palette_floats * sizeof(float) + 63) / 64 * 64);
    float *p = calloc(info.vertex_count * 3, sizeof(float)), *o = calloc(info.vertex_count * 3, sizeof(float));
    for (size_t i = 0; i < info.vertex_count * 3; ++i) p[i] = (float)(i % 7) - 3.0f;
    sinew_skin_input in = {p, 0, p, 0, NULL, 0};
    sinew_skin_output out = {o, 0, NULL, 0, NULL, 0};
    res = sinew_skin_palette(skin, world, info.joint_count, palette, info.palette_floats);
    if (res == SINEW_OK) res = sinew_skin_deform(skin, palette, info.palette_floats, &in, &out, 0, info.vertex_count);
    for (size_t i = 0; res == SINEW_OK && i < info.vertex_count * 3; ++i)
        if (!isfinite(o[i])) res = SINEW_ERROR_NON_FINITE;
    float big = 0;
    for (size_t i = 0; i < info.palette_floats; ++i) big = fmaxf(big, fabsf(palette[i]));
    free(world), free(palette), free(p), free(o);
    sinew_skin_destroy(skin);
    /* Moderate matrices (the corruption may have made an inverse bind entry
     * huge, which create accepts too) must deform to finite values. */
    if (res == SINEW_ERROR_NON_FINITE && big <= 1e6f) {
        fprintf(stderr, "a loaded skin deformed to a non-finite value (largest palette entry %g)\n", (double)big);
        abort();
    }
    return SINEW_OK;
}

static void corruption_sweeps(void **state)
{
    (void)state;
    for (int st = 0; st <= SINEW_SKIN_STORAGE_COMPRESSED; ++st) {
        size_t size, accepted = 0;
        unsigned char *buf = small_saved(&size, (sinew_skin_storage)st, SINEW_SKIN_BLEND_MIXED);
        char report[512];
        bool ok = support_sweep_saved_corruption(buf, size, load_and_deform, NULL, &accepted, report, sizeof report);
        if (!ok) fail_msg("%s", report);
        free(buf);
    }
}

typedef struct load_job {
    const unsigned char *data;
    size_t size;
} load_job;

static sinew_result attempt_load(sinew_context *ctx, void *user)
{
    const load_job *job = (const load_job *)user;
    sinew_skin *skin = NULL;
    sinew_result res = sinew_skin_load(ctx, job->data, job->size, &skin);
    sinew_skin_destroy(skin);
    return res;
}

static sinew_result attempt_load_into(sinew_context *ctx, void *user)
{
    const load_job *job = (const load_job *)user;
    size_t bytes = 0;
    sinew_result res = sinew_skin_load_memory_size(ctx, job->data, job->size, &bytes);
    if (res != SINEW_OK) return res;
    void *memory = malloc(bytes);
    sinew_skin *skin = NULL;
    res = memory ? sinew_skin_load_into(ctx, job->data, job->size, memory, bytes, &skin) : SINEW_ERROR_OUT_OF_MEMORY;
    sinew_skin_destroy(skin);
    free(memory);
    return res;
}

static void allocation_sweep(void **state)
{
    (void)state;
    for (int bl = 0; bl <= SINEW_SKIN_BLEND_MIXED; bl += SINEW_SKIN_BLEND_MIXED) {
        size_t size, runs = 0;
        unsigned char *buf = small_saved(&size, SINEW_SKIN_STORAGE_COMPRESSED, (sinew_skin_blend)bl);
        load_job job = {buf, size};
        char report[512];
        bool ok = support_sweep_allocation_failures(attempt_load, &job, &runs, report, sizeof report);
        if (!ok) fail_msg("%s", report);
        assert_true(runs >= 4);
        ok = support_sweep_allocation_failures(attempt_load_into, &job, &runs, report, sizeof report);
        if (!ok) fail_msg("into the caller's memory: %s", report);
        free(buf);
    }
}

/* ---- Golden file ---------------------------------------------------------------- */

static const char *golden_path(char *buf, size_t size)
{
    const char *dir = getenv("SINEW_GOLDEN_DIR");
    snprintf(buf, size, "%s/skin-v1.bin", dir ? dir : "tests/golden");
    return buf;
}

/* The golden rig: 48 vertices, up to 4 influences over 7 joints, mixed blend. */
static sinew_skin *golden_skin(rig *r)
{
    rig_init(r, 48, 4, 7, 2024);
    return rig_skin(r, SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_BLEND_MIXED, SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE,
                    SINEW_SKIN_KERNEL_AUTO);
}

static void golden_file_still_loads(void **state)
{
    (void)state;
    char path[1024];
    golden_path(path, sizeof path);
    rig r;
    sinew_skin *made = golden_skin(&r);
    if (getenv("SINEW_WRITE_GOLDEN")) {
        size_t size;
        unsigned char *buf = save(made, &size);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(buf, 1, size, f), size);
        fclose(f);
        free(buf);
    }
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("golden file %s is missing (SINEW_WRITE_GOLDEN=1 writes it)", path);
    unsigned char bytes[65536];
    size_t size = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    assert_true(size > 0 && size < sizeof bytes);
    sinew_skin *loaded = NULL;
    assert_int_equal(sinew_skin_load(NULL, bytes, size, &loaded), SINEW_OK);
    /* The deformation of the golden skin against one bound now from the same
     * inputs: equal within the kernels' documented 1e-5, whatever machine or
     * later version binds it. */
    float *a = malloc(r.n * 10 * sizeof(float)), *b = malloc(r.n * 10 * sizeof(float));
    deform_all(made, &r, a);
    deform_all(loaded, &r, b);
    for (size_t i = 0; i < r.n * 10; ++i)
        if (!(fabsf(a[i] - b[i]) <= 1e-5f * (1.0f + fabsf(a[i]))))
            fail_msg("golden deformation differs at float %zu: %.9g vs %.9g", i, (double)b[i], (double)a[i]);
    sinew_skin_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_skin_get_info(loaded, &info), SINEW_OK);
    assert_int_equal(info.vertex_count, 48);
    assert_int_equal(info.blend, SINEW_SKIN_BLEND_MIXED);
    assert_true(info.merged_duplicates > 0);
    assert_true(info.unweighted_vertices > 0);
    free(a), free(b);
    sinew_skin_destroy(loaded);
    sinew_skin_destroy(made);
    rig_free(&r);
}

/* SINEW_WRITE_CORPUS=<folder>: writes real saved skins as the seed corpus of
 * the loader's fuzz target (tests/fuzz/corpus/load_skin). */
static void write_corpus(void **state)
{
    (void)state;
    const char *dir = getenv("SINEW_WRITE_CORPUS");
    if (!dir) skip();
    for (int seed = 0; seed < 4; ++seed) {
        size_t size;
        unsigned char *buf = small_saved(&size, seed & 1 ? SINEW_SKIN_STORAGE_COMPRESSED : SINEW_SKIN_STORAGE_FLOAT,
                                         seed & 2 ? SINEW_SKIN_BLEND_MIXED : SINEW_SKIN_BLEND_DUAL_QUATERNION);
        char path[1024];
        snprintf(path, sizeof path, "%s/seed-%02d", dir, seed);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(buf, 1, size, f), size);
        fclose(f);
        free(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_every_option),
        cmocka_unit_test(round_trip_every_kernel),
        cmocka_unit_test(content_errors_are_named),
        cmocka_unit_test(header_errors),
        cmocka_unit_test(load_into_caller_memory),
        cmocka_unit_test(load_into_refusals),
        cmocka_unit_test(save_contract),
        cmocka_unit_test(corruption_sweeps),
        cmocka_unit_test(allocation_sweep),
        cmocka_unit_test(golden_file_still_loads),
        cmocka_unit_test(write_corpus),
    };
    return cmocka_run_group_tests_name("skin io", tests, NULL, NULL);
}
