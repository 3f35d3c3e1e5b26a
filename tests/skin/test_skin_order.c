/* Smooth skinning on real vertex orders: vertices whose influence count
 * changes from one to the next (Fox.gltf's JOINTS_0/WEIGHTS_0 in file order,
 * and a synthetic order of 1..8 influences drawn per vertex). Every kernel
 * this machine runs is compared with a straightforward double-precision
 * linear blend written here, and every chunking of the range (blocks cut
 * anywhere, windows crossed) must give the bits of one whole call; sorting
 * the vertices by influence count must give every vertex the same bits, and
 * the skin must report each vertex's own influences.
 *
 * Built a second time with SKIN_ORDER_LANES16 (white-box, AVX2 machines):
 * the same checks of the AVX-512 set's 16-lane logic over an emulated
 * vocabulary (kernel_lanes16_emulated.c), which every machine here runs. */
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
#include "tools/gltf_reader.h"

#if defined(SKIN_ORDER_LANES16)
#  include "kernel_lanes16_emulated.h"
/* One kernel set: the emulated 16-lane one, swapped into a scalar skin. */
static const sinew_skin_kernel kernels[] = {SINEW_SKIN_KERNEL_SCALAR};
static const char *kernel_label(sinew_skin_kernel k)
{
    (void)k;
    return "16-lane emulation";
}
#else
static const sinew_skin_kernel kernels[] = {SINEW_SKIN_KERNEL_SCALAR, SINEW_SKIN_KERNEL_SSE2, SINEW_SKIN_KERNEL_AVX2,
                                            SINEW_SKIN_KERNEL_AVX512};
static const char *kernel_label(sinew_skin_kernel k)
{
    return k == SINEW_SKIN_KERNEL_SCALAR ? "scalar" : k == SINEW_SKIN_KERNEL_SSE2 ? "sse2"
                                                  : k == SINEW_SKIN_KERNEL_AVX2   ? "avx2"
                                                                                  : "avx512";
}
#endif
enum { KERNEL_SETS = sizeof kernels / sizeof *kernels };

enum { JOINTS = 30, VERTICES = 5000 };

typedef struct order {
    size_t n, slots;
    uint32_t *joint;
    float *weight;
    float p[3 * VERTICES], nrm[3 * VERTICES], tan[4 * VERTICES];
} order;

static void order_streams(order *o, support_rng *rng)
{
    for (size_t v = 0; v < o->n; ++v) {
        double a = support_rng_uniform(rng, 0, 6.283185307179586), b = support_rng_uniform(rng, -1.2, 1.2);
        for (int c = 0; c < 3; ++c) o->p[3 * v + c] = (float)support_rng_uniform(rng, -1.5, 1.5);
        o->nrm[3 * v] = (float)(cos(a) * cos(b)), o->nrm[3 * v + 1] = (float)(sin(a) * cos(b));
        o->nrm[3 * v + 2] = (float)sin(b);
        o->tan[4 * v] = (float)-sin(a), o->tan[4 * v + 1] = (float)cos(a), o->tan[4 * v + 2] = 0.0f;
        o->tan[4 * v + 3] = v % 3 ? 1.0f : -1.0f;
    }
}

/* 1..8 influences per vertex, drawn independently: runs of one count are
 * short, as in a real mesh. */
static void order_synthetic(order *o, support_rng *rng)
{
    o->n = VERTICES, o->slots = 8;
    o->joint = calloc(o->n * 8, sizeof *o->joint);
    o->weight = calloc(o->n * 8, sizeof *o->weight);
    for (size_t v = 0; v < o->n; ++v) {
        const size_t k = 1 + support_rng_next(rng) % 8;
        const size_t base = support_rng_next(rng) % JOINTS;
        for (size_t s = 0; s < k; ++s) {
            o->joint[8 * v + s] = (uint32_t)((base + 3 * s) % JOINTS);
            o->weight[8 * v + s] = (float)support_rng_uniform(rng, 0.05, 1.0);
        }
    }
    order_streams(o, rng);
}

/* Runs of 1..40 vertices on one joint tuple (a limb, a rigid part), each
 * run with its own count of 1..8 influences and every vertex its own
 * weights: blocks whose vertices all share their joints, blocks where only
 * a part does, and none. */
static void order_runs(order *o, support_rng *rng)
{
    o->n = VERTICES, o->slots = 8;
    o->joint = calloc(o->n * 8, sizeof *o->joint);
    o->weight = calloc(o->n * 8, sizeof *o->weight);
    for (size_t v = 0; v < o->n;) {
        const size_t run = 1 + support_rng_next(rng) % 40, k = 1 + support_rng_next(rng) % 8;
        const size_t base = support_rng_next(rng) % JOINTS;
        for (size_t r = 0; r < run && v < o->n; ++r, ++v)
            for (size_t s = 0; s < k; ++s) {
                o->joint[8 * v + s] = (uint32_t)((base + 3 * s) % JOINTS);
                o->weight[8 * v + s] = (float)support_rng_uniform(rng, 0.05, 1.0);
            }
    }
    order_streams(o, rng);
}

/* Window w of the deform (vertices 2048 w ..) has kinds[w] influences at
 * every vertex, or 1..8 drawn per vertex where kinds[w] is 0: windows of
 * one influence group beside windows of several, which a call joins and
 * splits (deform.c). */
static void order_windows(order *o, support_rng *rng, const size_t kinds[3])
{
    o->n = VERTICES, o->slots = 8;
    o->joint = calloc(o->n * 8, sizeof *o->joint);
    o->weight = calloc(o->n * 8, sizeof *o->weight);
    for (size_t v = 0; v < o->n; ++v) {
        const size_t kind = kinds[v / 2048], k = kind ? kind : 1 + support_rng_next(rng) % 8;
        const size_t base = support_rng_next(rng) % JOINTS;
        for (size_t s = 0; s < k; ++s) {
            o->joint[8 * v + s] = (uint32_t)((base + 3 * s) % JOINTS);
            o->weight[8 * v + s] = (float)support_rng_uniform(rng, 0.05, 1.0);
        }
    }
    order_streams(o, rng);
}

/* Fox's influences in file order, tiled to VERTICES vertices. */
static bool order_fox(order *o, support_rng *rng)
{
    char path[1024], err[256];
    gltf_model m;
    if (!support_data_path("gltf/Fox.gltf", path, sizeof path) || !gltf_load(path, &m, err, sizeof err)) return false;
    o->n = VERTICES, o->slots = 4;
    o->joint = calloc(o->n * 4, sizeof *o->joint);
    o->weight = calloc(o->n * 4, sizeof *o->weight);
    for (size_t v = 0; v < o->n; ++v)
        for (size_t s = 0; s < 4; ++s) {
            const size_t src = 4 * (v % m.vertex_count) + s;
            o->joint[4 * v + s] = m.joints[src] % JOINTS;
            o->weight[4 * v + s] = (float)m.weights[src];
        }
    gltf_free(&m);
    order_streams(o, rng);
    return true;
}

static void order_free(order *o)
{
    free(o->joint), free(o->weight);
}

/* Joint matrices: rotations below 50 degrees (blended normals cannot
 * cancel) times a non-uniform scale on every other joint, plus a
 * translation. Identity inverse binds, so they are the palette. */
static void random_world(support_rng *rng, float *world)
{
    for (size_t j = 0; j < JOINTS; ++j) {
        const double axis[3] = {support_rng_uniform(rng, -1, 1), support_rng_uniform(rng, -1, 1), 1.0};
        const double t[3] = {support_rng_uniform(rng, -2, 2), support_rng_uniform(rng, -2, 2),
                             support_rng_uniform(rng, -2, 2)};
        double scale[3] = {1, 1, 1};
        if (j % 2)
            for (int c = 0; c < 3; ++c) scale[c] = support_rng_uniform(rng, 0.7, 1.4);
        skin_test_trs(axis, support_rng_uniform(rng, -0.85, 0.85), t, scale, world + 16 * j);
    }
}

/* The reference: per vertex, the weights as given divided by their sum,
 * A = sum w M in double, p' = A p, n' = normalise(cof(A) n sign det) (or A n
 * for blended-matrix normals), t' = normalise(A t), w flipped where det < 0. */
static void reference(const order *o, const float *world, bool blended, double *p, double *n, double *t)
{
    for (size_t v = 0; v < o->n; ++v) {
        double a[12] = {0}, sum = 0.0;
        for (size_t s = 0; s < o->slots; ++s) sum += o->weight[v * o->slots + s];
        for (size_t s = 0; s < o->slots; ++s) {
            const double w = o->weight[v * o->slots + s] / sum;
            if (w == 0.0) continue;
            const float *M = world + 16 * o->joint[v * o->slots + s];
            for (int c = 0; c < 4; ++c)
                for (int r = 0; r < 3; ++r) a[3 * c + r] += w * M[4 * c + r];
        }
        const float *P = o->p + 3 * v, *N = o->nrm + 3 * v, *T = o->tan + 4 * v;
        const double *c0 = a, *c1 = a + 3, *c2 = a + 6;
        double x12[3] = {c1[1] * c2[2] - c1[2] * c2[1], c1[2] * c2[0] - c1[0] * c2[2], c1[0] * c2[1] - c1[1] * c2[0]};
        double x20[3] = {c2[1] * c0[2] - c2[2] * c0[1], c2[2] * c0[0] - c2[0] * c0[2], c2[0] * c0[1] - c2[1] * c0[0]};
        double x01[3] = {c0[1] * c1[2] - c0[2] * c1[1], c0[2] * c1[0] - c0[0] * c1[2], c0[0] * c1[1] - c0[1] * c1[0]};
        const double det = c0[0] * x12[0] + c0[1] * x12[1] + c0[2] * x12[2];
        double nn[3], tt[3], ln = 0.0, lt = 0.0;
        for (int r = 0; r < 3; ++r) {
            p[3 * v + r] = a[r] * P[0] + a[3 + r] * P[1] + a[6 + r] * P[2] + a[9 + r];
            nn[r] = blended ? a[r] * N[0] + a[3 + r] * N[1] + a[6 + r] * N[2]
                            : (det < 0 ? -1 : 1) * (x12[r] * N[0] + x20[r] * N[1] + x01[r] * N[2]);
            tt[r] = a[r] * T[0] + a[3 + r] * T[1] + a[6 + r] * T[2];
            ln += nn[r] * nn[r], lt += tt[r] * tt[r];
        }
        for (int r = 0; r < 3; ++r) n[3 * v + r] = nn[r] / sqrt(ln), t[4 * v + r] = tt[r] / sqrt(lt);
        t[4 * v + 3] = det < 0.0 ? -T[3] : T[3];
    }
}

static sinew_skin *order_skin(const order *o, sinew_skin_kernel kernel, sinew_skin_storage storage, bool blended)
{
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = o->n;
    d.joint_count = JOINTS;
    d.influence_count = o->slots;
    d.joints = o->joint;
    d.weights = o->weight;
    d.renormalise = 1;
    d.kernel = kernel;
    d.storage = storage;
    d.normals = blended ? SINEW_SKIN_NORMALS_BLENDED_MATRIX : SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE;
    sinew_skin *s = NULL;
    if (sinew_skin_create(NULL, &d, &s) != SINEW_OK) return NULL;
#if defined(SKIN_ORDER_LANES16)
    skin_test_use_lanes16(s);
#endif
    return s;
}

typedef struct outs {
    float p[3 * VERTICES], n[3 * VERTICES], t[4 * VERTICES];
} outs;

/* Deforms [0, n) in chunks of `chunk` vertices (0: one call). */
static void deform_chunked(const sinew_skin *skin, const float *pal, const order *o, unsigned mask, size_t chunk,
                           outs *out)
{
    const size_t floats = sinew_skin_palette_size(skin);
    const sinew_skin_input in = {o->p, 0, o->nrm, 0, o->tan, 0};
    const sinew_skin_output so = {(mask & 1) ? out->p : NULL, 0, (mask & 2) ? out->n : NULL, 0,
                                  (mask & 4) ? out->t : NULL, 0};
    if (!chunk) chunk = o->n;
    for (size_t f = 0; f < o->n; f += chunk)
        assert_int_equal(sinew_skin_deform(skin, pal, floats, &in, &so, f, chunk < o->n - f ? chunk : o->n - f),
                         SINEW_OK);
}

static bool kernel_runs(sinew_skin_kernel k)
{
    sinew_result r = skin_test_kernel_status(k);
    if (r != SINEW_OK) assert_int_equal(r, SINEW_ERROR_UNSUPPORTED);
    return r == SINEW_OK;
}

static void check_order(const order *o, const char *what)
{
    support_rng rng;
    support_rng_seed(&rng, 31);
    float world[16 * JOINTS];
    random_world(&rng, world);
    double *rp = malloc(3 * o->n * sizeof *rp), *rn = malloc(3 * o->n * sizeof *rn), *rt = malloc(4 * o->n * sizeof *rt);
    static outs whole, part;
    /* Chunks that cut blocks of 4, 8 and 16 anywhere and cross the windows. */
    const size_t chunks[] = {1, 3, 7, 13, 17, 100, 2047, 2049};
    for (int blended = 0; blended < 2; ++blended) {
        reference(o, world, blended, rp, rn, rt);
        for (int kk = 0; kk < KERNEL_SETS; ++kk) {
            if (!kernel_runs(kernels[kk])) {
                if (!blended) print_message("  %s: kernel %s not available here, not covered\n", what,
                                            kernel_label(kernels[kk]));
                continue;
            }
            for (int storage = 0; storage < 2; ++storage) {
                sinew_skin *skin = order_skin(o, kernels[kk], (sinew_skin_storage)storage, blended);
                assert_non_null(skin);
                const size_t floats = sinew_skin_palette_size(skin);
                float *pal = malloc(floats * sizeof *pal);
                assert_int_equal(sinew_skin_palette(skin, world, JOINTS, pal, floats), SINEW_OK);
                for (unsigned mask = 1; mask < 8; mask += 2 + (mask == 1 ? 0 : 2)) { /* P, P+N, P+N+T */
                    deform_chunked(skin, pal, o, mask, 0, &whole);
                    if (storage == 0) {
                        double ep = 0, en = 0, et = 0;
                        for (size_t i = 0; i < 3 * o->n; ++i) {
                            ep = fmax(ep, fabs(whole.p[i] - rp[i]) / fmax(1.0, fabs(rp[i])));
                            if (mask & 2) en = fmax(en, fabs(whole.n[i] - rn[i]));
                        }
                        for (size_t i = 0; (mask & 4) && i < 4 * o->n; ++i) et = fmax(et, fabs(whole.t[i] - rt[i]));
                        if (ep > 1e-5 || en > 2e-5 || et > 2e-5)
                            fail_msg("%s, kernel %s, %s normals, mask %u: error vs reference p %.2e n %.2e t %.2e",
                                     what, kernel_label(kernels[kk]), blended ? "blended" : "exact", mask, ep, en, et);
                    }
                    for (size_t c = 0; c < sizeof chunks / sizeof *chunks; ++c) {
                        memset(&part, 0, sizeof part);
                        deform_chunked(skin, pal, o, mask, chunks[c], &part);
                        assert_memory_equal(part.p, whole.p, 3 * o->n * sizeof(float));
                        if (mask & 2) assert_memory_equal(part.n, whole.n, 3 * o->n * sizeof(float));
                        if (mask & 4) assert_memory_equal(part.t, whole.t, 4 * o->n * sizeof(float));
                    }
                }
                free(pal);
                sinew_skin_destroy(skin);
            }
        }
    }
    print_message("  %s: every kernel run within tolerance of the double reference, every chunking bit-identical\n",
                  what);
    free(rp), free(rn), free(rt);
}


/* Nonzero weights of vertex v. */
static size_t nonzero_slots(const order *o, size_t v)
{
    size_t n = 0;
    for (size_t s = 0; s < o->slots; ++s) n += o->weight[v * o->slots + s] != 0.0f;
    return n;
}

/* o's vertices reordered (*q, same joints, weights and streams) so each
 * count of nonzero weights is contiguous; perm[i] is the source of vertex i. */
static void order_sorted(const order *o, order *q, size_t *perm)
{
    size_t at = 0;
    for (size_t c = 0; c <= o->slots; ++c)
        for (size_t v = 0; v < o->n; ++v)
            if (nonzero_slots(o, v) == c) perm[at++] = v;
    q->n = o->n, q->slots = o->slots;
    q->joint = malloc(o->n * o->slots * sizeof *q->joint);
    q->weight = malloc(o->n * o->slots * sizeof *q->weight);
    for (size_t i = 0; i < o->n; ++i) {
        const size_t v = perm[i], k = o->slots;
        memcpy(q->joint + i * k, o->joint + v * k, k * sizeof *q->joint);
        memcpy(q->weight + i * k, o->weight + v * k, k * sizeof *q->weight);
        memcpy(q->p + 3 * i, o->p + 3 * v, 3 * sizeof(float));
        memcpy(q->nrm + 3 * i, o->nrm + 3 * v, 3 * sizeof(float));
        memcpy(q->tan + 4 * i, o->tan + 4 * v, 4 * sizeof(float));
    }
}

/* A vertex deforms to the same bits wherever the order puts it: in a block
 * of vertices with more influences than its own (padded with zero weights)
 * or among vertices of its own count. Every kernel, both storages, both
 * normal modes, positions alone and with normals and tangents. */
static void check_permuted(const order *o, const char *what)
{
    static order q;
    static outs a, b;
    size_t *perm = malloc(o->n * sizeof *perm);
    order_sorted(o, &q, perm);
    support_rng rng;
    support_rng_seed(&rng, 32);
    float world[16 * JOINTS];
    random_world(&rng, world);
    for (int kk = 0; kk < KERNEL_SETS; ++kk) {
        if (!kernel_runs(kernels[kk])) continue;
        for (int variant = 0; variant < 4; ++variant) {
            const sinew_skin_storage storage = (sinew_skin_storage)(variant & 1);
            const bool blended = variant & 2;
            sinew_skin *so = order_skin(o, kernels[kk], storage, blended), *sq = order_skin(&q, kernels[kk], storage, blended);
            assert_non_null(so);
            assert_non_null(sq);
            const size_t floats = sinew_skin_palette_size(so);
            float *pal = malloc(floats * sizeof *pal);
            assert_int_equal(sinew_skin_palette(so, world, JOINTS, pal, floats), SINEW_OK);
            for (unsigned mask = 1; mask < 8; mask += 6) {
                deform_chunked(so, pal, o, mask, 0, &a);
                deform_chunked(sq, pal, &q, mask, 0, &b);
                for (size_t i = 0; i < o->n; ++i) {
                    const size_t v = perm[i];
                    if (memcmp(b.p + 3 * i, a.p + 3 * v, 12) != 0 ||
                        ((mask & 2) && memcmp(b.n + 3 * i, a.n + 3 * v, 12) != 0) ||
                        ((mask & 4) && memcmp(b.t + 4 * i, a.t + 4 * v, 16) != 0))
                        fail_msg("%s, kernel %s, variant %d, mask %u: vertex %zu (%zu influences) differs when sorted",
                                 what, kernel_label(kernels[kk]), variant, mask, v, nonzero_slots(o, v));
                }
            }
            free(pal);
            sinew_skin_destroy(so);
            sinew_skin_destroy(sq);
        }
    }
    order_free(&q);
    free(perm);
}

/* What the skin reports of a vertex is its own influences, not its block's
 * padding: the query, the info's one-joint count, and a save and load. */
static void check_reported(const order *o)
{
    for (int storage = 0; storage < 2; ++storage) {
        sinew_skin *skin = order_skin(o, SINEW_SKIN_KERNEL_AUTO, (sinew_skin_storage)storage, false);
        assert_non_null(skin);
        size_t size = 0;
        assert_int_equal(sinew_skin_save(skin, NULL, 0, &size), SINEW_OK);
        void *buf = malloc(size);
        assert_int_equal(sinew_skin_save(skin, buf, size, &size), SINEW_OK);
        sinew_skin *loaded = NULL;
        assert_int_equal(sinew_skin_load(NULL, buf, size, &loaded), SINEW_OK);
        const sinew_skin *both[2] = {skin, loaded};
        for (int h = 0; h < 2; ++h) {
            size_t single = 0;
            for (size_t v = 0; v < o->n; ++v) {
                uint32_t joints[8];
                float weights[8];
                size_t count = 0;
                assert_int_equal(sinew_skin_vertex_influences(both[h], v, joints, weights, 8, &count), SINEW_OK);
                /* Compressed storage may drop a weight below 1/510. */
                if (storage == 0) assert_int_equal(count, nonzero_slots(o, v));
                else assert_true(count >= 1 && count <= nonzero_slots(o, v));
                for (size_t s = 0; s < count; ++s) assert_true(weights[s] > 0.0f);
                single += count == 1;
            }
            sinew_skin_info info;
            SINEW_INIT(&info);
            assert_int_equal(sinew_skin_get_info(both[h], &info), SINEW_OK);
            assert_int_equal(info.single_joint_vertices, single);
        }
        free(buf);
        sinew_skin_destroy(loaded);
        sinew_skin_destroy(skin);
    }
}

static void fox_file_order(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 5);
    static order o;
    if (!order_fox(&o, &rng)) skip();
    check_order(&o, "Fox file order");
    check_permuted(&o, "Fox file order");
    check_reported(&o);
    order_free(&o);
}

static void mixed_counts_synthetic_order(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 6);
    static order o;
    order_synthetic(&o, &rng);
    check_order(&o, "synthetic 1..8 influences");
    check_permuted(&o, "synthetic 1..8 influences");
    check_reported(&o);
    order_free(&o);
}

static void shared_tuple_runs(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 7);
    static order o;
    order_runs(&o, &rng);
    check_order(&o, "runs sharing a joint tuple");
    check_permuted(&o, "runs sharing a joint tuple");
    order_free(&o);
}

static void windows_of_one_group(void **state)
{
    (void)state;
    _Static_assert(VERTICES > 2 * 2048 && VERTICES <= 3 * 2048, "three deform windows");
    /* Two windows of one group joined, then a mixed one; a mixed window,
     * then one group, then another, the last one pending at the end. */
    const size_t patterns[][3] = {{2, 2, 0}, {0, 6, 2}};
    for (size_t i = 0; i < sizeof patterns / sizeof *patterns; ++i) {
        support_rng rng;
        support_rng_seed(&rng, 8 + i);
        static order o;
        order_windows(&o, &rng, patterns[i]);
        char what[64];
        snprintf(what, sizeof what, "windows of %zu, %zu, %zu influences (0: mixed)", patterns[i][0], patterns[i][1],
                 patterns[i][2]);
        check_order(&o, what);
        check_permuted(&o, what);
        order_free(&o);
    }
}

int main(void)
{
#if defined(SKIN_ORDER_LANES16)
    /* The emulation is built with -mavx2 -mfma. */
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        printf("skipped: the 16-lane emulation needs AVX2 and FMA\n");
        return 77; /* meson's skip code */
    }
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fox_file_order),
        cmocka_unit_test(mixed_counts_synthetic_order),
        cmocka_unit_test(shared_tuple_runs),
        cmocka_unit_test(windows_of_one_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
