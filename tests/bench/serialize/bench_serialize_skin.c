/* Save and load throughput, one line per case, in GB/s of saved data against
 * a plain memcpy of the same number of bytes (warm buffers):
 *   serialize/skin-save, serialize/skin-load: a 1M-vertex skin, 4 influences
 *     per vertex over 100 joints, float storage (and -compressed: 8-bit);
 *   serialize/soffd-save, serialize/soffd-load: spot.obj (5,856 triangles)
 *     with 60,000 registered points on its surface (eps = 1e-3); skipped
 *     without the shared data.
 * Load includes the handle's allocation and every check. With the default
 * allocator every load gets fresh pages from the system (page faults are a
 * large part of its time); the -pooled line loads through a context whose
 * allocator reuses freed blocks, as engines' pools do.
 * Times are CPU seconds of the benchmark thread, best of several runs. */
#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

enum { JOINTS = 100, RUNS = 7 };

/* An allocator that keeps freed blocks (up to 64) for reuse by a later
 * allocation of the same size, as engines' pools do. The size sits in a
 * 64-byte header before each block. */
enum { POOL_BLOCKS = 64, POOL_HEADER = 64 };
typedef struct pool {
    unsigned char *block[POOL_BLOCKS];
    size_t count;
} pool;

static void *pool_alloc(void *user, size_t size, size_t align)
{
    pool *p = user;
    if (align > POOL_HEADER) return NULL;
    for (size_t i = 0; i < p->count; ++i) {
        size_t held;
        memcpy(&held, p->block[i] - POOL_HEADER, sizeof held);
        if (held == size) {
            unsigned char *b = p->block[i];
            p->block[i] = p->block[--p->count];
            return b;
        }
    }
    void *base = NULL;
    if (posix_memalign(&base, POOL_HEADER, size + POOL_HEADER)) return NULL;
    memcpy(base, &size, sizeof size);
    return (unsigned char *)base + POOL_HEADER;
}

static void pool_free(void *user, void *ptr)
{
    pool *p = user;
    if (!ptr) return;
    if (p->count < POOL_BLOCKS) p->block[p->count++] = ptr;
    else free((unsigned char *)ptr - POOL_HEADER);
}

static sinew_context *pooled_context;
static sinew_result skin_load_pooled(const void *d, size_t s, void **o)
{
    return sinew_skin_load(pooled_context, d, s, (sinew_skin **)o);
}
static sinew_result soffd_load_pooled(const void *d, size_t s, void **o)
{
    return sinew_soffd_load(pooled_context, d, s, (sinew_soffd **)o);
}

typedef sinew_result (*save_fn)(const void *handle, void *buffer, size_t capacity, size_t *size);
typedef sinew_result (*load_fn)(const void *data, size_t size, void **out);
typedef void (*destroy_fn)(void *handle);

static sinew_result skin_save(const void *h, void *b, size_t c, size_t *s) { return sinew_skin_save(h, b, c, s); }
static sinew_result skin_load(const void *d, size_t s, void **o) { return sinew_skin_load(NULL, d, s, (sinew_skin **)o); }
static void skin_destroy(void *h) { sinew_skin_destroy(h); }
static sinew_result soffd_save(const void *h, void *b, size_t c, size_t *s) { return sinew_soffd_save(h, b, c, s); }
static sinew_result soffd_load(const void *d, size_t s, void **o) { return sinew_soffd_load(NULL, d, s, (sinew_soffd **)o); }
static void soffd_destroy(void *h) { sinew_soffd_destroy(h); }

/* Best CPU time of memcpy of size bytes into dst (warm) or into fresh memory. */
static double time_memcpy(void *dst, const void *src, size_t size, int fresh)
{
    double best = INFINITY;
    for (int run = 0; run < RUNS; ++run) {
        double t0 = support_cpu_now();
        void *to = fresh ? malloc(size) : dst;
        memcpy(to, src, size);
        __asm__ volatile("" : : "r"(to) : "memory");
        if (fresh) free(to);
        best = fmin(best, support_cpu_now() - t0);
    }
    return best;
}

static int bench(const char *name, const void *handle, save_fn save, load_fn load, load_fn pooled, destroy_fn destroy)
{
    size_t size = 0;
    if (save(handle, NULL, 0, &size) != SINEW_OK) return 1;
    unsigned char *buf = malloc(size), *copy = malloc(size);
    memset(buf, 0, size);
    memset(copy, 0, size);
    double save_best = INFINITY, load_best = INFINITY;
    for (int run = 0; run < RUNS; ++run) {
        double t0 = support_cpu_now();
        if (save(handle, buf, size, &size) != SINEW_OK) return 1;
        save_best = fmin(save_best, support_cpu_now() - t0);
    }
    for (int run = 0; run < RUNS; ++run) {
        void *loaded = NULL;
        double t0 = support_cpu_now();
        if (load(buf, size, &loaded) != SINEW_OK) {
            fprintf(stderr, "%s load failed: %s\n", name, sinew_last_error());
            return 1;
        }
        load_best = fmin(load_best, support_cpu_now() - t0);
        destroy(loaded);
    }
    double copy_warm = time_memcpy(copy, buf, size, 0), copy_fresh = time_memcpy(copy, buf, size, 1);
    char line[128];
    printf("# %s: %.1f MB saved; memcpy into fresh memory %.2f GB/s\n", name, (double)size * 1e-6,
           (double)size / copy_fresh * 1e-9);
    snprintf(line, sizeof line, "serialize/%s-save", name);
    support_bench_line(line, (double)size / save_best * 1e-9, "GB/s", "memcpy", (double)size / copy_warm * 1e-9);
    snprintf(line, sizeof line, "serialize/%s-load", name);
    support_bench_line(line, (double)size / load_best * 1e-9, "GB/s", "memcpy", (double)size / copy_warm * 1e-9);
    if (pooled) {
        double pooled_best = INFINITY;
        for (int run = 0; run < RUNS; ++run) {
            void *loaded = NULL;
            double t0 = support_cpu_now();
            if (pooled(buf, size, &loaded) != SINEW_OK) return 1;
            pooled_best = fmin(pooled_best, support_cpu_now() - t0);
            destroy(loaded);
        }
        snprintf(line, sizeof line, "serialize/%s-load-pooled", name);
        support_bench_line(line, (double)size / pooled_best * 1e-9, "GB/s", "memcpy", (double)size / copy_warm * 1e-9);
    }
    free(buf), free(copy);
    return 0;
}

static int bench_skin(sinew_skin_storage storage, const char *name)
{
    const size_t n = 1000000, k = 4;
    support_rng rng;
    support_rng_seed(&rng, 31);
    uint32_t *joints = malloc(n * k * sizeof *joints);
    float *weights = malloc(n * k * sizeof *weights);
    for (size_t v = 0; v < n; ++v) {
        uint32_t base = (uint32_t)(support_rng_next(&rng) % JOINTS);
        double sum = 0;
        for (size_t s = 0; s < k; ++s) {
            joints[v * k + s] = (base + 7 * (uint32_t)s) % JOINTS;
            weights[v * k + s] = (float)support_rng_uniform(&rng, 0.1, 1.0);
            sum += weights[v * k + s];
        }
        for (size_t s = 0; s < k; ++s) weights[v * k + s] = (float)(weights[v * k + s] / sum);
    }
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = n;
    d.joint_count = JOINTS;
    d.influence_count = k;
    d.joints = joints;
    d.weights = weights;
    d.renormalise = 1;
    d.storage = storage;
    sinew_skin *skin = NULL;
    double t0 = support_cpu_now();
    if (sinew_skin_create(NULL, &d, &skin) != SINEW_OK) {
        fprintf(stderr, "skin create failed: %s\n", sinew_last_error());
        return 1;
    }
    printf("# %s: creating took %.1f ms\n", name, 1e3 * (support_cpu_now() - t0));
    int failed = bench(name, skin, skin_save, skin_load, skin_load_pooled, skin_destroy);
    sinew_skin_destroy(skin);
    free(joints), free(weights);
    return failed;
}

/* 60k points on spot's surface, pushed off along the face normal by up to L / 2. */
static int bench_soffd(void)
{
    char path[4096];
    support_mesh mesh = {0};
    if (!support_data_path("common-3d-test-models/spot.obj", path, sizeof path) || !support_read_obj(path, &mesh)) {
        printf("# serialize/soffd: shared data (common-3d-test-models/spot.obj) missing, skipped\n");
        return 0;
    }
    sinew_polymesh m = {{mesh.positions, mesh.vertex_count, 0}, mesh.triangles, NULL, mesh.triangle_count, SINEW_INDEX_U32};
    sinew_soffd_desc desc;
    SINEW_INIT(&desc);
    desc.skip_degenerate = 1;
    sinew_soffd *h = NULL;
    if (sinew_soffd_create(NULL, &m, &desc, &h) != SINEW_OK) return 1;
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(h, &info);
    const size_t count = 60000;
    float *skin = malloc(3 * count * sizeof(float));
    support_rng rng;
    support_rng_seed(&rng, 7);
    for (size_t i = 0; i < count; ++i) {
        const uint32_t *t = &mesh.triangles[3 * (support_rng_next(&rng) % mesh.triangle_count)];
        const float *a = &mesh.positions[3 * t[0]], *b = &mesh.positions[3 * t[1]], *c = &mesh.positions[3 * t[2]];
        double u = support_rng_uniform(&rng, 0, 1), v = support_rng_uniform(&rng, 0, 1);
        if (u + v > 1) u = 1 - u, v = 1 - v;
        double e1[3], e2[3];
        for (int k = 0; k < 3; ++k) e1[k] = (double)b[k] - a[k], e2[k] = (double)c[k] - a[k];
        double nrm[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double len = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        double off = len > 0 ? support_rng_uniform(&rng, 0, 0.5) * info.length_scale / len : 0;
        for (int k = 0; k < 3; ++k) skin[3 * i + k] = (float)(a[k] + u * e1[k] + v * e2[k] + off * nrm[k]);
    }
    sinew_points pts = {skin, count, 0};
    sinew_soffd_register_desc policy;
    SINEW_INIT(&policy);
    policy.weight_threshold = 1e-3f;
    policy.max_contributors = UINT32_MAX; /* no cap: the threshold alone, as docs/soffd.md reports it */
    double t0 = support_cpu_now();
    if (sinew_soffd_register(NULL, h, &pts, &policy) != SINEW_OK) {
        fprintf(stderr, "soffd register failed: %s\n", sinew_last_error());
        return 1;
    }
    printf("# soffd: registering took %.0f ms (what a load saves)\n", 1e3 * (support_cpu_now() - t0));
    sinew_soffd_get_info(h, &info);
    printf("# soffd: spot.obj, %zu elements, %zu points, %.1f contributors per point\n", info.element_count,
           info.point_count, (double)info.contribution_count / (double)info.point_count);
    int failed = bench("soffd", h, soffd_save, soffd_load, soffd_load_pooled, soffd_destroy);
    sinew_soffd_destroy(h);
    free(skin);
    support_mesh_free(&mesh);
    return failed;
}

int main(void)
{
    static pool blocks;
    sinew_context_desc desc;
    SINEW_INIT(&desc);
    desc.allocator.alloc = pool_alloc;
    desc.allocator.free = pool_free;
    desc.allocator.user = &blocks;
    if (sinew_context_create(&desc, &pooled_context) != SINEW_OK) return 1;
    if (bench_skin(SINEW_SKIN_STORAGE_FLOAT, "skin")) return 1;
    if (bench_skin(SINEW_SKIN_STORAGE_COMPRESSED, "skin-compressed")) return 1;
    return bench_soffd();
}
