/* Saving and loading surface-oriented FFD handles: round trips of a bind
 * alone, exact and pruned registrations, edited contributing sets, skipped
 * degenerate triangles and an empty registration (same queries, same
 * deformation bits, same saved bytes, same behaviour afterwards); named
 * content errors in resealed data; the golden file of format version 1; the
 * corruption sweeps and an allocation-failure sweep on load.
 * SINEW_WRITE_GOLDEN=1 rewrites tests/golden/soffd-v1.bin instead of reading it. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixtures.h"

static unsigned char *save(const sinew_soffd *h, size_t *size)
{
    assert_int_equal(sinew_soffd_save(h, NULL, 0, size), SINEW_OK);
    unsigned char *buf = malloc(*size);
    size_t written = 0;
    assert_int_equal(sinew_soffd_save(h, buf, *size, &written), SINEW_OK);
    assert_int_equal(written, *size);
    return buf;
}

/* A cube cage of g x g quads per side, plus (degenerate = 1) a zero-area
 * triangle on a new vertex that skip_degenerate leaves out. */
typedef struct driver {
    cage c;
    float *pos;
    uint32_t *idx, *sizes;
    size_t nv, nf;
} driver;

static void driver_init(driver *d, int g, int degenerate)
{
    d->c = make_cube_cage(g, 1);
    d->nv = d->c.nv + (degenerate ? 1 : 0);
    d->nf = d->c.nf + (degenerate ? 1 : 0);
    d->pos = malloc(3 * d->nv * sizeof(float));
    d->idx = malloc((4 * d->c.nf + 3) * sizeof(uint32_t));
    d->sizes = malloc(d->nf * sizeof(uint32_t));
    memcpy(d->pos, d->c.pos, 3 * d->c.nv * sizeof(float));
    memcpy(d->idx, d->c.idx, 4 * d->c.nf * sizeof(uint32_t));
    memcpy(d->sizes, d->c.sizes, d->c.nf * sizeof(uint32_t));
    if (degenerate) {
        /* The midpoint of the first face's first edge: a triangle of no area, in the middle of the faces. */
        uint32_t a = d->idx[0], b = d->idx[1], m = (uint32_t)d->c.nv;
        for (int k = 0; k < 3; ++k) d->pos[3 * m + k] = 0.5f * (d->pos[3 * a + k] + d->pos[3 * b + k]);
        /* Insert it as face 1, so skipped and kept faces interleave. */
        memmove(d->idx + 7, d->idx + 4, 4 * (d->c.nf - 1) * sizeof(uint32_t));
        d->idx[4] = a, d->idx[5] = m, d->idx[6] = b;
        memmove(d->sizes + 2, d->sizes + 1, (d->c.nf - 1) * sizeof(uint32_t));
        d->sizes[1] = 3;
    }
}

static void driver_free(driver *d)
{
    cage_free(&d->c);
    free(d->pos), free(d->idx), free(d->sizes);
}

static sinew_soffd *driver_bind(const driver *d, int skip)
{
    sinew_polymesh m = {{d->pos, d->nv, 0}, d->idx, d->sizes, d->nf, SINEW_INDEX_U32};
    sinew_soffd_desc desc;
    SINEW_INIT(&desc);
    desc.skip_degenerate = skip;
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &m, &desc, &h), SINEW_OK);
    return h;
}

/* Everything a caller can observe of two handles must agree, bit for bit. */
static void check_same(const sinew_soffd *a, const sinew_soffd *b, const driver *d)
{
    sinew_soffd_info ia, ib;
    SINEW_INIT(&ia);
    SINEW_INIT(&ib);
    assert_int_equal(sinew_soffd_get_info(a, &ia), SINEW_OK);
    assert_int_equal(sinew_soffd_get_info(b, &ib), SINEW_OK);
    /* Memory may differ (load sizes its arrays exactly); everything else is the same. */
    ia.memory_bytes = ib.memory_bytes = 0;
    assert_memory_equal(&ia, &ib, sizeof ia);
    for (size_t e = 0; e < ia.element_count; ++e) {
        uint32_t fa, fb;
        assert_int_equal(sinew_soffd_element_face(a, e, &fa), SINEW_OK);
        assert_int_equal(sinew_soffd_element_face(b, e, &fb), SINEW_OK);
        assert_int_equal(fa, fb);
    }
    uint32_t sa[8], sb[8];
    assert_true(ia.skipped_triangles <= 8);
    assert_int_equal(sinew_soffd_skipped_faces(a, sa, 8, &(size_t){0}), SINEW_OK);
    assert_int_equal(sinew_soffd_skipped_faces(b, sb, 8, &(size_t){0}), SINEW_OK);
    assert_memory_equal(sa, sb, ia.skipped_triangles * sizeof *sa);
    uint32_t *ea = malloc(ia.element_count * sizeof *ea), *eb = malloc(ia.element_count * sizeof *eb);
    float *wa = malloc(ia.element_count * sizeof *wa), *wb = malloc(ia.element_count * sizeof *wb);
    for (size_t p = 0; p < ia.point_count; ++p) {
        size_t na, nb;
        float ma, mb;
        assert_int_equal(sinew_soffd_contributor_count(a, p, &na), SINEW_OK);
        assert_int_equal(sinew_soffd_contributor_count(b, p, &nb), SINEW_OK);
        assert_int_equal(na, nb);
        assert_int_equal(sinew_soffd_contributors(a, p, ea, wa, ia.element_count, &(size_t){0}), SINEW_OK);
        assert_int_equal(sinew_soffd_contributors(b, p, eb, wb, ia.element_count, &(size_t){0}), SINEW_OK);
        assert_memory_equal(ea, eb, na * sizeof *ea);
        assert_memory_equal(wa, wb, na * sizeof *wa);
        assert_int_equal(sinew_soffd_dropped_mass(a, p, &ma), SINEW_OK);
        assert_int_equal(sinew_soffd_dropped_mass(b, p, &mb), SINEW_OK);
        assert_memory_equal(&ma, &mb, sizeof ma);
    }
    free(ea), free(eb), free(wa), free(wb);
    if (ia.point_count > 0) {
        float *now = malloc(3 * d->nv * sizeof(float));
        bend_twist(d->pos, now, d->nv, 0.6f);
        float *oa = malloc(3 * ia.point_count * sizeof(float)), *ob = malloc(3 * ia.point_count * sizeof(float));
        assert_int_equal(lib_deform(a, now, d->nv, oa), SINEW_OK);
        assert_int_equal(lib_deform(b, now, d->nv, ob), SINEW_OK);
        assert_memory_equal(oa, ob, 3 * ia.point_count * sizeof(float));
        assert_int_equal(lib_deform_extended(a, now, d->nv, oa), SINEW_OK);
        assert_int_equal(lib_deform_extended(b, now, d->nv, ob), SINEW_OK);
        assert_memory_equal(oa, ob, 3 * ia.point_count * sizeof(float));
        /* Normals too: they read the reference frames' inverses, which load rebuilds. */
        float *normals = malloc(3 * ia.point_count * sizeof(float));
        float *na = malloc(3 * ia.point_count * sizeof(float)), *nb = malloc(3 * ia.point_count * sizeof(float));
        for (size_t i = 0; i < 3 * ia.point_count; ++i) normals[i] = (float)((i * 7) % 5) - 2.0f;
        sinew_points nv = {normals, ia.point_count, 0};
        float *frames = malloc(16 * ia.element_count * sizeof(float));
        sinew_points dn = {now, d->nv, 0};
        assert_int_equal(sinew_soffd_element_frames(a, &dn, frames, sinew_soffd_element_frames_size(a)), SINEW_OK);
        assert_int_equal(sinew_soffd_deform(a, frames, sinew_soffd_element_frames_size(a), &nv, oa, 0, na, 0, 0, ia.point_count), SINEW_OK);
        assert_int_equal(sinew_soffd_deform(b, frames, sinew_soffd_element_frames_size(b), &nv, ob, 0, nb, 0, 0, ia.point_count), SINEW_OK);
        assert_memory_equal(na, nb, 3 * ia.point_count * sizeof(float));
        free(frames), free(normals), free(na), free(nb);
        free(oa), free(ob), free(now);
    }
}

/* Save, load, compare; the loaded handle saves the same bytes, and after the
 * same registration (the BVH and policy at work) both still agree. */
static void check_round_trip(sinew_soffd *h, const driver *d)
{
    size_t size, size2;
    unsigned char *buf = save(h, &size);
    sinew_soffd *loaded = NULL;
    assert_int_equal(sinew_soffd_load(NULL, buf, size, &loaded), SINEW_OK);
    assert_string_equal(sinew_last_error(), "");
    check_same(h, loaded, d);
    unsigned char *buf2 = save(loaded, &size2);
    assert_int_equal(size, size2);
    assert_memory_equal(buf, buf2, size);
    free(buf2);

    float *skin = random_points(99, 40, -1.4f, 1.4f);
    sinew_points pts = {skin, 40, 0};
    sinew_soffd_register_desc policy;
    SINEW_INIT(&policy);
    policy.weight_threshold = 1e-2f;
    policy.max_contributors = SOFFD_NO_CAP;
    assert_int_equal(sinew_soffd_register(NULL, h, &pts, &policy), SINEW_OK);
    assert_int_equal(sinew_soffd_register(NULL, loaded, &pts, &policy), SINEW_OK);
    check_same(h, loaded, d);
    unsigned char *a = save(h, &size), *b = save(loaded, &size2);
    assert_int_equal(size, size2);
    assert_memory_equal(a, b, size);
    free(a), free(b), free(skin), free(buf);
    sinew_soffd_destroy(loaded);
}

static void round_trip_bind_only(void **state)
{
    (void)state;
    driver d;
    driver_init(&d, 2, 0);
    sinew_soffd *h = driver_bind(&d, 0);
    check_round_trip(h, &d);
    sinew_soffd_destroy(h);
    driver_free(&d);
}

static void round_trip_registrations(void **state)
{
    (void)state;
    driver d;
    driver_init(&d, 2, 0);
    float *skin = random_points(7, 200, -1.3f, 1.3f);
    sinew_points pts = {skin, 200, 0};
    sinew_soffd_register_desc policies[7];
    for (int p = 0; p < 7; ++p) SINEW_INIT(&policies[p]);  /* [6]: the defaults */
    policies[0].exact = 1;
    policies[1].weight_threshold = 1e-3f, policies[1].max_contributors = SOFFD_NO_CAP;
    policies[2].weight_threshold = FLT_MIN, policies[2].max_contributors = 3;
    policies[3].exact = 1, policies[3].max_distance = 0.6f;      /* some points keep no element */
    policies[4].exclusive = 1;
    policies[5].weight_threshold = 1e-2f, policies[5].max_contributors = 5, policies[5].max_distance = 2.0f;
    for (int p = 0; p < 7; ++p) {
        sinew_soffd *h = driver_bind(&d, 0);
        assert_int_equal(sinew_soffd_register(NULL, h, &pts, &policies[p]), SINEW_OK);
        check_round_trip(h, &d);
        sinew_soffd_destroy(h);
    }
    free(skin);
    driver_free(&d);
}

static void round_trip_edits(void **state)
{
    (void)state;
    driver d;
    driver_init(&d, 2, 0);
    float *skin = random_points(8, 120, -1.2f, 1.2f);
    sinew_points pts = {skin, 120, 0};
    sinew_soffd_register_desc policy;
    SINEW_INIT(&policy);
    policy.weight_threshold = 1e-3f;
    policy.max_contributors = SOFFD_NO_CAP;
    sinew_soffd *h = driver_bind(&d, 0);
    assert_int_equal(sinew_soffd_register(NULL, h, &pts, &policy), SINEW_OK);
    const uint32_t set[3] = {5, 0, 17};
    assert_int_equal(sinew_soffd_set_contributors(h, 3, set, 3), SINEW_OK);
    assert_int_equal(sinew_soffd_set_contributors(h, 4, NULL, 0), SINEW_OK);  /* pinned at rest */
    sinew_soffd_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_soffd_get_info(h, &info), SINEW_OK);
    uint8_t *excluded = calloc(info.element_count, 1);
    for (size_t e = 0; e < info.element_count; e += 3) excluded[e] = 1;
    sinew_result r = sinew_soffd_exclude_elements(h, excluded, info.element_count, 20, 30);
    assert_true(r == SINEW_OK || r == SINEW_ERROR_INVALID_WEIGHTS);
    if (r != SINEW_OK) assert_int_equal(sinew_soffd_exclude_elements(h, excluded, info.element_count, 40, 5), SINEW_OK);
    check_round_trip(h, &d);
    free(excluded), free(skin);
    sinew_soffd_destroy(h);
    driver_free(&d);
}

static void round_trip_skipped_and_empty(void **state)
{
    (void)state;
    driver d;
    driver_init(&d, 1, 1);
    sinew_soffd *h = driver_bind(&d, 1);
    sinew_soffd_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_soffd_get_info(h, &info), SINEW_OK);
    assert_int_equal(info.skipped_triangles, 1);
    sinew_points none = {NULL, 0, 0};
    assert_int_equal(sinew_soffd_register(NULL, h, &none, NULL), SINEW_OK);  /* registered, no points */
    check_round_trip(h, &d);
    sinew_soffd_destroy(h);
    driver_free(&d);
}

/* ---- Saved bytes, edited and resealed --------------------------------------- */


/* Start of a section's data in saved bytes; the test fails when it is missing. */
static unsigned char *section(unsigned char *buf, const char tag[4])
{
    unsigned char *at = support_saved_section(buf, tag);
    if (!at) fail_msg("section %.4s not found", tag);
    return at;
}

static void put_f32(unsigned char *p, float v)
{
    memcpy(p, &v, 4);
}

/* A small registered handle: the unit cube cage (6 quads, 12 elements) and 6
 * points, pruned, one set edited; a few KB saved. */
static unsigned char *small_saved(size_t *size)
{
    driver d;
    driver_init(&d, 1, 1);
    sinew_soffd *h = driver_bind(&d, 1);
    float *skin = random_points(3, 6, -1.2f, 1.2f);
    sinew_points pts = {skin, 6, 0};
    sinew_soffd_register_desc policy;
    SINEW_INIT(&policy);
    policy.weight_threshold = 1e-2f;
    policy.max_contributors = SOFFD_NO_CAP;
    assert_int_equal(sinew_soffd_register(NULL, h, &pts, &policy), SINEW_OK);
    const uint32_t set[2] = {1, 8};
    assert_int_equal(sinew_soffd_set_contributors(h, 2, set, 2), SINEW_OK);
    unsigned char *buf = save(h, size);
    free(skin);
    sinew_soffd_destroy(h);
    driver_free(&d);
    return buf;
}

static void expect_load(unsigned char *buf, size_t size, sinew_result code, const char *words)
{
    assert_true(support_reseal(buf, size));
    sinew_soffd *out = (sinew_soffd *)(uintptr_t)0x1234;
    sinew_result res = sinew_soffd_load(NULL, buf, size, &out);
    if (res != code || !strstr(sinew_last_error(), words))
        fail_msg("expected %s with \"%s\", got %s: %s", sinew_result_string(code), words, sinew_result_string(res),
                 sinew_last_error());
    if (code == SINEW_OK) sinew_soffd_destroy(out);
    else assert_ptr_equal(out, (sinew_soffd *)(uintptr_t)0x1234);
}

static void content_errors_are_named(void **state)
{
    (void)state;
    size_t size;
    unsigned char *orig = small_saved(&size), *buf = malloc(size);
#define FRESH() memcpy(buf, orig, size)
    FRESH();
    expect_load(buf, size, SINEW_OK, "");
    FRESH();
    support_le_put(section(buf, "SFEL") + 4 * 4, 99, 4);
    expect_load(buf, size, SINEW_ERROR_INDEX_OUT_OF_RANGE, "soffd data: element 1 refers to vertex 99, but there are only 9");
    FRESH();
    support_le_put(section(buf, "SFEL") + 4 * 5, support_le_get(section(buf, "SFEL") + 4 * 4, 4), 4);
    expect_load(buf, size, SINEW_ERROR_DEGENERATE, "soffd data: element 1 (driver face 0");
    FRESH();
    put_f32(section(buf, "SFRF") + 4 * 4, 4e18f);
    expect_load(buf, size, SINEW_ERROR_OUTSIDE_DOMAIN, "soffd data: reference vertex 1 has coordinate y");
    FRESH();
    support_le_put(section(buf, "SFEF") + 4 * 3, 0, 4);  /* element 3 back to face 0 after element 2's face 2 */
    expect_load(buf, size, SINEW_ERROR_INVALID_DATA, "element 3 is face 0: out of face order");
    FRESH();
    support_le_put(section(buf, "SFSK"), 0, 4);  /* face 1 (the skipped triangle) now makes nothing */
    expect_load(buf, size, SINEW_ERROR_INVALID_DATA, "driver face 1 made no triangle");
    FRESH();
    support_le_put(section(buf, "SFEN"), 12, 4);
    expect_load(buf, size, SINEW_ERROR_INDEX_OUT_OF_RANGE, "point 0 entry 0 is element 12, but there are only 12");
    FRESH();
    support_le_put(section(buf, "SFEN") + 4 * (support_le_get(section(buf, "SFOF") + 8 * 2, 8) + 1),
           support_le_get(section(buf, "SFEN") + 4 * support_le_get(section(buf, "SFOF") + 8 * 2, 8), 4), 4);
    expect_load(buf, size, SINEW_ERROR_INVALID_ARGUMENT, "is listed twice in the set of point 2");
    FRESH();
    {
        /* The first weight below 1/2 grows by 1/4: still in [0, 1], the sum is not. */
        size_t entry = 0, point = 0;
        float u = 1;
        while (memcpy(&u, section(buf, "SFCO") + 16 * entry + 12, 4), u >= 0.5f) ++entry;
        while (support_le_get(section(buf, "SFOF") + 8 * (point + 1), 8) <= entry) ++point;
        put_f32(section(buf, "SFCO") + 16 * entry + 12, u + 0.25f);
        char words[64];
        snprintf(words, sizeof words, "the weights of point %zu sum to", point);
        expect_load(buf, size, SINEW_ERROR_INVALID_WEIGHTS, words);
    }
    FRESH();
    put_f32(section(buf, "SFCO"), 1e30f);
    expect_load(buf, size, SINEW_ERROR_OUTSIDE_DOMAIN, "point 0 has local coordinate 1e+30");
    FRESH();
    put_f32(section(buf, "SFBA"), -0.5f);
    expect_load(buf, size, SINEW_ERROR_INVALID_WEIGHTS, "point 0 has barycentric weight -0.5");
    FRESH();
    put_f32(section(buf, "SFRP") + 4 * 3, -3e18f);
    expect_load(buf, size, SINEW_ERROR_OUTSIDE_DOMAIN, "soffd data: point 1 has coordinate x");
    FRESH();
    support_le_put(section(buf, "SFOF") + 8, 1000, 8);
    expect_load(buf, size, SINEW_ERROR_INVALID_DATA, "point 0 has set offsets 0 to 1000");
    FRESH();
    put_f32(section(buf, "SFDR"), 1.5f);
    expect_load(buf, size, SINEW_ERROR_INVALID_DATA, "dropped mass 1.5");
    FRESH();
    support_le_put(section(buf, "SFOP") + 8 * 4, 0, 8);  /* not registered, but points */
    expect_load(buf, size, SINEW_ERROR_INVALID_DATA, "but nothing is registered");
    FRESH();
    support_le_put(section(buf, "SFOP") + 8 * 5, 7, 8);
    expect_load(buf, size, SINEW_ERROR_INVALID_DATA, "section SFRP holds 18 elements, expected 3 for each of 7");
    FRESH();
    { double neg = -1; memcpy(section(buf, "SFSC") + 8, &neg, 8); }
    expect_load(buf, size, SINEW_ERROR_INVALID_ARGUMENT, "length_scale must be > 0");
    FRESH();
    { double tiny = 1e-300; memcpy(section(buf, "SFSC") + 8, &tiny, 8); }  /* L^2 would underflow */
    expect_load(buf, size, SINEW_ERROR_INVALID_ARGUMENT, "length_scale must be > 0 (within [2^-200, 2^128]), got 1e-300");
    FRESH();
    put_f32(section(buf, "SFPO"), 1.0f);
    expect_load(buf, size, SINEW_ERROR_INVALID_ARGUMENT, "weight_threshold must lie in [0, 1)");
    FRESH();
    support_le_put(buf + 16, SINEW_KIND_SKIN, 4);
    expect_load(buf, size, SINEW_ERROR_MISMATCH, "holds a skin");
    FRESH();
    support_le_put(buf + 8, SINEW_FORMAT_VERSION + 1, 4);
    expect_load(buf, size, SINEW_ERROR_UNSUPPORTED, "newer");
#undef FRESH
    sinew_soffd *out = NULL;
    assert_int_equal(sinew_soffd_load(NULL, orig, size - 64, &out), SINEW_ERROR_INVALID_DATA);
    assert_int_equal(sinew_soffd_load(NULL, orig, size, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_null(out);
    free(orig), free(buf);
}

/* Faded registrations save as version 4 with their faded shares (SFFA); an
 * SFFA in data that says it is older is named, not read. */
static void fade_data_belongs_to_version_4(void **state)
{
    (void)state;
    driver d;
    driver_init(&d, 1, 1);
    sinew_soffd *h = driver_bind(&d, 1);
    float *skin = random_points(5, 40, -1.2f, 1.2f);
    sinew_points pts = {skin, 40, 0};
    assert_int_equal(sinew_soffd_register(NULL, h, &pts, NULL), SINEW_OK); /* defaults: a faded cap */
    size_t size;
    unsigned char *buf = save(h, &size);
    sinew_saved_info si;
    SINEW_INIT(&si);
    assert_int_equal(sinew_saved_get_info(buf, size, &si), SINEW_OK);
    assert_int_equal(si.format_version, 4);
    float share;
    memcpy(&share, section(buf, "SFFA"), 4);
    assert_true(share >= 0.0f && share < 1.0f);
    expect_load(buf, size, SINEW_OK, "");
    support_le_put(buf + 8, 3, 4);
    expect_load(buf, size, SINEW_ERROR_INVALID_DATA, "section SFFA is not part of soffd data (version 3)");
    free(buf), free(skin);
    sinew_soffd_destroy(h);
    driver_free(&d);
}

static void save_contract(void **state)
{
    (void)state;
    size_t size, got = 0;
    unsigned char *buf = small_saved(&size);
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_load(NULL, buf, size, &h), SINEW_OK);
    assert_int_equal(sinew_soffd_save(NULL, NULL, 0, &got), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_soffd_save(h, NULL, 0, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    unsigned char *out = malloc(size);
    memset(out, 0xab, size);
    assert_int_equal(sinew_soffd_save(h, out, size - 1, &got), SINEW_ERROR_BUFFER_TOO_SMALL);
    assert_int_equal(got, size);
    for (size_t i = 0; i < size; ++i) assert_int_equal(out[i], 0xab);
    assert_int_equal(sinew_soffd_save(h, out, size, &got), SINEW_OK);
    assert_memory_equal(out, buf, size);
    free(out), free(buf);
    sinew_soffd_destroy(h);
}

/* ---- Sweeps ------------------------------------------------------------------ */

/* Loads and, on success, deforms both ways under a moderate pose: finite. */
static sinew_result load_and_deform(const void *data, size_t size, void *user)
{
    (void)user;
    sinew_soffd *h = NULL;
    sinew_result res = sinew_soffd_load(NULL, data, size, &h);
    if (res != SINEW_OK) return res;
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(h, &info);
    float *now = malloc(3 * info.vertex_count * sizeof(float));
    for (size_t i = 0; i < 3 * info.vertex_count; ++i) now[i] = (float)((i * 7) % 5) - 2.0f;
    float *out = malloc((3 * info.point_count + 1) * sizeof(float));
    for (int kind = 0; kind < 2 && info.point_count; ++kind) {
        sinew_result r = kind ? lib_deform_extended(h, now, info.vertex_count, out)
                              : lib_deform(h, now, info.vertex_count, out);
        for (size_t i = 0; r == SINEW_OK && i < 3 * info.point_count; ++i)
            if (!isfinite(out[i])) {
                fprintf(stderr, "a loaded soffd deformed to a non-finite value\n");
                abort();
            }
    }
    free(now), free(out);
    sinew_soffd_destroy(h);
    return SINEW_OK;
}

static void corruption_sweeps(void **state)
{
    (void)state;
    size_t size, accepted = 0;
    unsigned char *buf = small_saved(&size);
    char report[512];
    bool ok = support_sweep_saved_corruption(buf, size, load_and_deform, NULL, &accepted, report, sizeof report);
    if (!ok) fail_msg("%s", report);
    free(buf);
}

typedef struct load_job {
    const unsigned char *data;
    size_t size;
} load_job;

static sinew_result attempt_load(sinew_context *ctx, void *user)
{
    const load_job *job = (const load_job *)user;
    sinew_soffd *h = NULL;
    sinew_result res = sinew_soffd_load(ctx, job->data, job->size, &h);
    sinew_soffd_destroy(h);
    return res;
}

static void allocation_sweep(void **state)
{
    (void)state;
    size_t size, runs = 0;
    unsigned char *buf = small_saved(&size);
    load_job job = {buf, size};
    char report[512];
    bool ok = support_sweep_allocation_failures(attempt_load, &job, &runs, report, sizeof report);
    if (!ok) fail_msg("%s", report);
    assert_true(runs >= 10);
    free(buf);
}

/* ---- Golden file ---------------------------------------------------------------- */

static void golden_file_still_loads(void **state)
{
    (void)state;
    char path[1024];
    const char *dir = getenv("SINEW_GOLDEN_DIR");
    snprintf(path, sizeof path, "%s/soffd-v1.bin", dir ? dir : "tests/golden");
    /* The golden handle is small_saved's: the same inputs bind it again now. */
    size_t size;
    unsigned char *made = small_saved(&size);
    if (getenv("SINEW_WRITE_GOLDEN")) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(made, 1, size, f), size);
        fclose(f);
    }
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("golden file %s is missing (SINEW_WRITE_GOLDEN=1 writes it)", path);
    unsigned char bytes[65536];
    size_t golden_size = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    sinew_soffd *golden = NULL, *now = NULL;
    assert_int_equal(sinew_soffd_load(NULL, bytes, golden_size, &golden), SINEW_OK);
    assert_int_equal(sinew_soffd_load(NULL, made, size, &now), SINEW_OK);
    /* The golden registration predates fading, so its weights are the
     * paper's normalised over each set: what setting the same sets gives. */
    sinew_soffd_info gi;
    SINEW_INIT(&gi);
    assert_int_equal(sinew_soffd_get_info(golden, &gi), SINEW_OK);
    for (size_t p = 0; p < gi.point_count; ++p) {
        uint32_t set[64];
        size_t n;
        assert_int_equal(sinew_soffd_contributors(golden, p, set, NULL, 64, &n), SINEW_OK);
        assert_int_equal(sinew_soffd_set_contributors(now, p, set, n), SINEW_OK);
    }
    driver d;
    driver_init(&d, 1, 1);
    float *moved = malloc(3 * d.nv * sizeof(float));
    bend_twist(d.pos, moved, d.nv, 0.5f);
    float a[18], b[18];
    assert_int_equal(lib_deform(golden, moved, d.nv, a), SINEW_OK);
    assert_int_equal(lib_deform(now, moved, d.nv, b), SINEW_OK);
    for (int i = 0; i < 18; ++i) assert_true(fabsf(a[i] - b[i]) <= 1e-5f * (1 + fabsf(b[i])));
    assert_int_equal(lib_deform_extended(golden, moved, d.nv, a), SINEW_OK);
    assert_int_equal(lib_deform_extended(now, moved, d.nv, b), SINEW_OK);
    for (int i = 0; i < 18; ++i) assert_true(fabsf(a[i] - b[i]) <= 1e-5f * (1 + fabsf(b[i])));
    size_t count;
    assert_int_equal(sinew_soffd_contributor_count(golden, 2, &count), SINEW_OK);
    assert_int_equal(count, 2);  /* the edit survives */
    free(moved), free(made);
    driver_free(&d);
    sinew_soffd_destroy(golden);
    sinew_soffd_destroy(now);
}

/* SINEW_WRITE_CORPUS=<folder>: writes real saved handles as the seed corpus
 * of the loader's fuzz target (tests/fuzz/corpus/load_soffd): the small
 * registered one, a bind alone, and an exact registration. */
static void write_corpus(void **state)
{
    (void)state;
    const char *dir = getenv("SINEW_WRITE_CORPUS");
    if (!dir) skip();
    for (int seed = 0; seed < 4; ++seed) {
        size_t size;
        unsigned char *buf;
        if (seed == 0) {
            buf = small_saved(&size);
        } else if (seed == 3) {
            /* A faded registration: version 4 with its SFFA section. */
            driver d;
            driver_init(&d, 1, 1);
            sinew_soffd *h = driver_bind(&d, 1);
            float *skin = random_points(5, 8, -1.2f, 1.2f);
            sinew_points pts = {skin, 8, 0};
            assert_int_equal(sinew_soffd_register(NULL, h, &pts, NULL), SINEW_OK);
            buf = save(h, &size);
            free(skin);
            sinew_soffd_destroy(h);
            driver_free(&d);
        } else {
            driver d;
            driver_init(&d, 1, 0);
            sinew_soffd *h = driver_bind(&d, 0);
            float *skin = random_points(5, 4, -1.2f, 1.2f);
            sinew_points pts = {skin, 4, 0};
            if (seed == 2) assert_int_equal(sinew_soffd_register(NULL, h, &pts, SOFFD_EXACT), SINEW_OK);
            buf = save(h, &size);
            free(skin);
            sinew_soffd_destroy(h);
            driver_free(&d);
        }
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
        cmocka_unit_test(round_trip_bind_only),
        cmocka_unit_test(round_trip_registrations),
        cmocka_unit_test(round_trip_edits),
        cmocka_unit_test(round_trip_skipped_and_empty),
        cmocka_unit_test(content_errors_are_named),
        cmocka_unit_test(fade_data_belongs_to_version_4),
        cmocka_unit_test(save_contract),
        cmocka_unit_test(corruption_sweeps),
        cmocka_unit_test(allocation_sweep),
        cmocka_unit_test(golden_file_still_loads),
        cmocka_unit_test(write_corpus),
    };
    return cmocka_run_group_tests_name("soffd io", tests, NULL, NULL);
}
