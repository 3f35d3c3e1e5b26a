/* Save and load of placements: after relax, push and press edits a loaded
 * placement reports, deforms and re-saves exactly as the saved one, and
 * further edits (which need the ceilings, the scene's part that is kept)
 * continue identically on both; the save contract, wrong kind, newer format,
 * values the loader refuses, corruption and allocation sweeps, and the golden
 * file placement-v1.bin (SINEW_WRITE_GOLDEN=1 rewrites it). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support.h"

/* ---- A scene: bumpy ground and a slab above part of it ---------------------- */

enum { GRID = 12 };
#define GROUND_B 3.0

typedef struct scene {
    float pos[3 * ((GRID + 1) * (GRID + 1) + 4)];
    uint32_t tri[3 * (2 * GRID * GRID + 2)];
} scene;

static void make_scene(scene *s)
{
    size_t v = 0, t = 0;
    double h = 2 * GROUND_B / GRID;
    for (int j = 0; j <= GRID; ++j)
        for (int i = 0; i <= GRID; ++i, ++v) {
            double x = -GROUND_B + i * h, y = -GROUND_B + j * h;
            s->pos[3 * v] = (float)x, s->pos[3 * v + 1] = (float)y;
            s->pos[3 * v + 2] = (float)(0.2 * sin(1.3 * x) * cos(0.9 * y));
        }
    for (int j = 0; j < GRID; ++j)
        for (int i = 0; i < GRID; ++i) {
            uint32_t a = (uint32_t)(i + (GRID + 1) * j), b = a + 1, c = a + GRID + 2, d = a + GRID + 1;
            uint32_t quad[6] = {a, b, c, a, c, d};
            memcpy(s->tri + 6 * t++, quad, sizeof quad);
        }
    /* The slab: a quad at z = 1 over x in [0.5, 1.5], so some contact points
     * have a finite ceiling and the others none. */
    const float slab[4][3] = {{0.5f, -2, 1}, {1.5f, -2, 1}, {1.5f, 2, 1}, {0.5f, 2, 1}};
    uint32_t first = (uint32_t)v;
    for (int k = 0; k < 4; ++k, ++v) memcpy(s->pos + 3 * v, slab[k], sizeof slab[k]);
    uint32_t quad[6] = {first, first + 1, first + 2, first, first + 2, first + 3};
    memcpy(s->tri + 6 * t, quad, sizeof quad);
}

static const float path[6] = {-2.0f, 0.0f, 3.0f, 2.0f, 0.2f, 3.0f};

static sinew_placement *make_placement(const scene *s, sinew_placement_volume volume, const uint32_t count[3],
                                       const uint32_t order[3])
{
    sinew_placement_desc d;
    SINEW_INIT(&d);
    d.path = (sinew_points){path, 2, 0};
    d.width = 0.8f;
    d.height = 0.5f;
    d.volume = volume;
    if (count) memcpy(d.count, count, sizeof d.count);
    if (order) memcpy(d.order, order, sizeof d.order);
    d.scene = (sinew_trimesh){{s->pos, sizeof s->pos / (3 * sizeof(float)), 0}, s->tri,
                              sizeof s->tri / (3 * sizeof(uint32_t)), SINEW_INDEX_U32, 0};
    sinew_placement *p = NULL;
    sinew_result r = sinew_placement_create(NULL, &d, &p);
    if (r != SINEW_OK) fail_msg("create: %s: %s", sinew_result_string(r), sinew_last_error());
    return p;
}

/* Relax, push a column down into the scene and up, press the top layers. */
static void edit(sinew_placement *p, float amount)
{
    sinew_placement_relax_desc rd;
    SINEW_INIT(&rd);
    rd.max_steps = 300;
    sinew_result r = sinew_placement_relax(NULL, p, &rd, NULL);
    assert_true(r == SINEW_OK || r == SINEW_ERROR_NOT_CONVERGED);
    assert_int_equal(sinew_placement_push(p, 1, 1, amount), SINEW_OK);
    assert_int_equal(sinew_placement_push(p, 2, 0, -0.5f * amount), SINEW_OK);
    sinew_placement_press_desc pd;
    SINEW_INIT(&pd);
    pd.center[0] = 0.2f, pd.center[1] = 0.1f, pd.center[2] = 0.6f;
    pd.radius = 1.2f;
    pd.depth = 0.15f;
    size_t pressed = 0;
    assert_int_equal(sinew_placement_press(p, &pd, &pressed), SINEW_OK);
    assert_true(pressed > 0);
}

typedef struct saved {
    unsigned char *data;
    size_t size;
} saved;

static saved save(const sinew_placement *p)
{
    saved s = {NULL, 0};
    assert_int_equal(sinew_placement_save(p, NULL, 0, &s.size), SINEW_OK);
    s.data = malloc(s.size);
    size_t written = 0;
    assert_int_equal(sinew_placement_save(p, s.data, s.size, &written), SINEW_OK);
    assert_int_equal(written, s.size);
    return s;
}

static void assert_same_bytes(saved a, saved b)
{
    assert_int_equal(a.size, b.size);
    assert_memory_equal(a.data, b.data, a.size);
}

static sinew_placement *load_ok(saved s)
{
    sinew_placement *p = NULL;
    sinew_result r = sinew_placement_load(NULL, s.data, s.size, &p);
    if (r != SINEW_OK) fail_msg("load: %s: %s", sinew_result_string(r), sinew_last_error());
    return p;
}

/* Everything a caller can read of two placements is the same bits. */
static void assert_same_placement(const sinew_placement *a, const sinew_placement *b)
{
    sinew_placement_info ia, ib;
    SINEW_INIT(&ia);
    SINEW_INIT(&ib);
    assert_int_equal(sinew_placement_get_info(a, &ia), SINEW_OK);
    assert_int_equal(sinew_placement_get_info(b, &ib), SINEW_OK);
    assert_memory_equal(&ia, &ib, sizeof ia);
    const sinew_lattice *la = sinew_placement_lattice(a), *lb = sinew_placement_lattice(b);
    size_t points = (size_t)ia.count[0] * ia.count[1] * ia.count[2], columns = (size_t)ia.count[0] * ia.count[1];
    float *da = malloc(3 * points * sizeof(float)), *db = malloc(3 * points * sizeof(float));
    assert_int_equal(sinew_lattice_displacements(la, da, 0, 0, points), SINEW_OK);
    assert_int_equal(sinew_lattice_displacements(lb, db, 0, 0, points), SINEW_OK);
    assert_memory_equal(da, db, 3 * points * sizeof(float));
    assert_int_equal(sinew_placement_directions(a, da, 0, 0, columns), SINEW_OK);
    assert_int_equal(sinew_placement_directions(b, db, 0, 0, columns), SINEW_OK);
    assert_memory_equal(da, db, 3 * columns * sizeof(float));
    assert_int_equal(sinew_placement_lifts(a, da, 0, 0, columns), SINEW_OK);
    assert_int_equal(sinew_placement_lifts(b, db, 0, 0, columns), SINEW_OK);
    assert_memory_equal(da, db, columns * sizeof(float));
    free(da);
    free(db);
    /* A model laid onto the scene. */
    sinew_placement_map_desc md;
    SINEW_INIT(&md);
    md.box_min[0] = -1, md.box_min[1] = -1, md.box_min[2] = 0;
    md.box_max[0] = 1, md.box_max[1] = 1, md.box_max[2] = 1;
    md.fraction = 0.6f;
    md.offset = 0.2f;
    sinew_placement_map ma, mb;
    assert_int_equal(sinew_placement_map_model(a, &md, &ma), SINEW_OK);
    assert_int_equal(sinew_placement_map_model(b, &md, &mb), SINEW_OK);
    assert_memory_equal(&ma, &mb, sizeof ma);
    enum { M = 64 };
    float model[3 * M], oa[3 * M], ob[3 * M];
    for (int i = 0; i < 3 * M; ++i) model[i] = (float)fmod(0.37 * i, 2.0) - 1.0f + (i % 3 == 2 ? 1.0f : 0.0f);
    sinew_points mv = {model, M, 0};
    assert_int_equal(sinew_placement_deform(a, &ma, &mv, oa, 0, 0, M), SINEW_OK);
    assert_int_equal(sinew_placement_deform(b, &ma, &mv, ob, 0, 0, M), SINEW_OK);
    assert_memory_equal(oa, ob, sizeof oa);
}

/* ---- Round trips ----------------------------------------------------------------- */

static void round_trip_after_edits(void **state)
{
    (void)state;
    scene sc;
    make_scene(&sc);
    const uint32_t orders[2][3] = {{4, 4, 4}, {3, 2, 2}};
    for (int volume = 0; volume <= 1; ++volume)
        for (int o = 0; o < 2; ++o) {
            sinew_placement *p = make_placement(&sc, (sinew_placement_volume)volume, NULL, orders[o]);
            edit(p, 0.3f);
            saved s = save(p);
            sinew_placement *q = load_ok(s);
            assert_string_equal(sinew_last_error(), "");
            assert_same_placement(p, q);
            saved again = save(q);
            assert_same_bytes(s, again);
            /* Editing goes on as it would have. */
            edit(p, -0.2f);
            edit(q, -0.2f);
            assert_same_placement(p, q);
            saved ep = save(p), eq = save(q);
            assert_same_bytes(ep, eq);
            free(s.data);
            free(again.data);
            free(ep.data);
            free(eq.data);
            sinew_placement_destroy(p);
            sinew_placement_destroy(q);
        }
}

/* ---- Contract, kind, version ------------------------------------------------------- */

static void expect_error(sinew_result got, sinew_result want, const char *fragment)
{
    if (got != want)
        fail_msg("expected %s, got %s (%s)", sinew_result_string(want), sinew_result_string(got), sinew_last_error());
    if (!strstr(sinew_last_error(), fragment))
        fail_msg("message \"%s\" does not mention \"%s\"", sinew_last_error(), fragment);
}

static const uint32_t small_count[3] = {3, 3, 2}, small_order[3] = {2, 2, 2};

static void save_contract_and_kinds(void **state)
{
    (void)state;
    scene sc;
    make_scene(&sc);
    sinew_placement *p = make_placement(&sc, SINEW_PLACEMENT_EXTRUDE, small_count, small_order);
    size_t need = 0, size = 0;
    assert_int_equal(sinew_placement_save(p, NULL, 0, &need), SINEW_OK);
    unsigned char *buf = malloc(need);
    memset(buf, 0x5a, need);
    expect_error(sinew_placement_save(p, buf, need - 64, &size), SINEW_ERROR_BUFFER_TOO_SMALL, "bytes");
    assert_int_equal(size, need);
    for (size_t i = 0; i < need; ++i) assert_int_equal(buf[i], 0x5a);
    expect_error(sinew_placement_save(NULL, buf, need, &size), SINEW_ERROR_INVALID_ARGUMENT, "placement");
    assert_int_equal(sinew_placement_save(p, buf, need, &size), SINEW_OK);
    sinew_lattice *l = NULL;
    expect_error(sinew_lattice_load(NULL, buf, need, &l), SINEW_ERROR_MISMATCH, "placement");
    assert_null(l);
    /* Relabelled as a lattice (kind 3), it holds every lattice section plus
     * the placement's own: the lattice loader must refuse what it would not
     * write rather than drop it (a fuzzer's finding: the load re-saved to
     * other bytes). */
    unsigned char *relabelled = malloc(need);
    memcpy(relabelled, buf, need);
    relabelled[16] = (unsigned char)SINEW_KIND_LATTICE;
    assert_true(support_reseal(relabelled, need));
    expect_error(sinew_lattice_load(NULL, relabelled, need, &l), SINEW_ERROR_INVALID_DATA, "section PSTR is not part");
    assert_null(l);
    free(relabelled);
    sinew_placement *q = NULL;
    expect_error(sinew_placement_load(NULL, buf, need, NULL), SINEW_ERROR_INVALID_ARGUMENT, "out");
    buf[8] = 7;
    assert_true(support_reseal(buf, need));
    expect_error(sinew_placement_load(NULL, buf, need, &q), SINEW_ERROR_UNSUPPORTED, "format version 7");
    assert_null(q);
    free(buf);
    sinew_placement_destroy(p);
}

/* ---- Values the loader refuses ------------------------------------------------------- */

static unsigned char *section(saved s, const char tag[4])
{
    uint32_t want = (uint32_t)(uint8_t)tag[0] | (uint32_t)(uint8_t)tag[1] << 8 | (uint32_t)(uint8_t)tag[2] << 16 |
                    (uint32_t)(uint8_t)tag[3] << 24;
    uint32_t sections = (uint32_t)s.data[20] | (uint32_t)s.data[21] << 8;
    for (uint32_t i = 0; i < sections; ++i) {
        const unsigned char *e = s.data + 64 + 32 * (size_t)i;
        uint32_t t = (uint32_t)e[0] | (uint32_t)e[1] << 8 | (uint32_t)e[2] << 16 | (uint32_t)e[3] << 24;
        if (t != want) continue;
        uint64_t off = 0;
        for (int k = 7; k >= 0; --k) off = off << 8 | e[16 + k];
        return s.data + off;
    }
    fail_msg("section %.4s not found", tag);
    return NULL;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static void put_f32(unsigned char *p, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    put_u32(p, bits);
}
static float get_f32(const unsigned char *p)
{
    uint32_t bits = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float v;
    memcpy(&v, &bits, 4);
    return v;
}

static void count_5000(saved s) { put_u32(section(s, "PSTR"), 5000); }
static void volume_2(saved s) { put_u32(section(s, "PSTR") + 8 * 3, 2); }
static void all_missed(saved s) { put_u32(section(s, "PSTR") + 8 * 5, 9); }
static void negative_ceiling(saved s) { put_f32(section(s, "PCEI") + 4 * 4, -1.0f); }
static void nan_ceiling(saved s) { put_u32(section(s, "PCEI") + 4 * 4, 0x7fc00000u); }
static void long_direction(saved s) { put_f32(section(s, "PDOF") + 4 * 3, 2.0f); }
static void negative_height(saved s) { put_f32(section(s, "PHGT") + 4 * 10, -0.25f); }
static void moved_lift(saved s)
{
    unsigned char *lift = section(s, "PLFT") + 4 * 4;
    put_f32(lift, get_f32(lift) + 0.125f);
}
static void lattice_count(saved s) { put_u32(section(s, "PSTR") + 8 * 2, 3); }

static void expect_refused(saved s, void (*change)(saved), sinew_result want, const char *fragment)
{
    saved c = {malloc(s.size), s.size};
    memcpy(c.data, s.data, s.size);
    change(c);
    assert_true(support_reseal(c.data, c.size));
    sinew_placement *p = NULL;
    expect_error(sinew_placement_load(NULL, c.data, c.size, &p), want, fragment);
    assert_null(p);
    free(c.data);
}

static void refusals(void **state)
{
    (void)state;
    scene sc;
    make_scene(&sc);
    sinew_placement *p = make_placement(&sc, SINEW_PLACEMENT_OFFSET, small_count, small_order);
    saved s = save(p);
    expect_refused(s, count_5000, SINEW_ERROR_INVALID_ARGUMENT, "placement data: axis u has 5000 control points");
    expect_refused(s, volume_2, SINEW_ERROR_INVALID_ARGUMENT, "placement data: unknown volume kind 2");
    expect_refused(s, all_missed, SINEW_ERROR_INVALID_DATA, "9 misses");
    expect_refused(s, negative_ceiling, SINEW_ERROR_INVALID_DATA, "contact column 4 has ceiling -1");
    expect_refused(s, nan_ceiling, SINEW_ERROR_INVALID_DATA, "contact column 4 has ceiling");
    expect_refused(s, long_direction, SINEW_ERROR_INVALID_DATA, "the direction of contact column 1 has length");
    expect_refused(s, negative_height, SINEW_ERROR_INVALID_DATA, "lattice point 10 is -0.25 above");
    expect_refused(s, moved_lift, SINEW_ERROR_INVALID_DATA, "is not where its contact column and height put it");
    expect_refused(s, lattice_count, SINEW_ERROR_INVALID_DATA, "section PHGT holds");
    free(s.data);
    sinew_placement_destroy(p);
}

/* ---- Sweeps ------------------------------------------------------------------------- */

static sinew_result load_and_destroy(const void *data, size_t size, void *user)
{
    (void)user;
    sinew_placement *p = NULL;
    sinew_result r = sinew_placement_load(NULL, data, size, &p);
    if (r == SINEW_OK) sinew_placement_destroy(p);
    else if (p) fail_msg("a failed load set its handle");
    return r;
}

static void corruption_sweep(void **state)
{
    (void)state;
    scene sc;
    make_scene(&sc);
    sinew_placement *p = make_placement(&sc, SINEW_PLACEMENT_OFFSET, small_count, small_order);
    edit(p, 0.1f);
    saved s = save(p);
    assert_true(s.size <= 4096);
    char report[256];
    size_t accepted = 0;
    if (!support_sweep_saved_corruption(s.data, s.size, load_and_destroy, NULL, &accepted, report, sizeof report))
        fail_msg("%s", report);
    free(s.data);
    sinew_placement_destroy(p);
}

static sinew_result attempt_load(sinew_context *ctx, void *user)
{
    saved *s = user;
    sinew_placement *p = NULL;
    sinew_result r = sinew_placement_load(ctx, s->data, s->size, &p);
    if (r == SINEW_OK) sinew_placement_destroy(p);
    return r;
}

static void allocation_failures(void **state)
{
    (void)state;
    scene sc;
    make_scene(&sc);
    sinew_placement *p = make_placement(&sc, SINEW_PLACEMENT_EXTRUDE, NULL, NULL);
    saved s = save(p);
    char report[256];
    size_t runs = 0;
    if (!support_sweep_allocation_failures(attempt_load, &s, &runs, report, sizeof report)) fail_msg("%s", report);
    assert_true(runs >= 10);
    free(s.data);
    sinew_placement_destroy(p);
}

/* ---- Golden file ------------------------------------------------------------------- */

static void golden_file(void **state)
{
    (void)state;
    scene sc;
    make_scene(&sc);
    const uint32_t count[3] = {4, 3, 3}, order[3] = {3, 2, 2};
    sinew_placement *p = make_placement(&sc, SINEW_PLACEMENT_OFFSET, count, order);
    edit(p, 0.25f);
    saved now = save(p);
    char path[1024];
    snprintf(path, sizeof path, "%s/placement-v1.bin", SINEW_GOLDEN_DIR);
    const char *write = getenv("SINEW_WRITE_GOLDEN");
    if (write && write[0] == '1') {
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(now.data, 1, now.size, f) != now.size) fail_msg("cannot write %s", path);
        fclose(f);
        printf("wrote %s (%zu bytes)\n", path, now.size);
    }
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    saved gold = {malloc(1 << 16), 0};
    gold.size = fread(gold.data, 1, 1 << 16, f);
    fclose(f);
    sinew_placement *q = load_ok(gold);
    /* What the file holds is what this version computes, and re-saved by this
     * version it is this version's bytes. */
    assert_same_placement(p, q);
    saved again = save(q);
    assert_same_bytes(now, again);
    free(now.data);
    free(gold.data);
    free(again.data);
    sinew_placement_destroy(p);
    sinew_placement_destroy(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_after_edits),
        cmocka_unit_test(save_contract_and_kinds),
        cmocka_unit_test(refusals),
        cmocka_unit_test(corruption_sweep),
        cmocka_unit_test(allocation_failures),
        cmocka_unit_test(golden_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
