/* Smooth skinning throughput: 1/2/4/8 influences x positions (P), +normals
 * (N), +tangents (T) x 10k and 1M vertices x float and compressed storage
 * ("-blended": BLENDED_MATRIX normals, the peer's work plus a renormalise),
 * 100 joints, one thread. Each line compares sinew (kernel chosen at run
 * time) with an ozz-style SSE2 loop over the same vertices, weights and
 * palette, measured in the same run with the two interleaved round by round;
 * extra lines show the forced kernel sets (AVX2 where the run-time choice is
 * AVX-512), dual quaternions and meshes whose
 * neighbouring vertices share their joints ("-shared32"). Real-character
 * lines take the joints and weights of Fox and RiggedFigure (glTF
 * JOINTS_0/WEIGHTS_0) and the top four of libigl's BBW weights of the arm
 * (arm-weights.dmat) and of the hand (solved here from hand.mesh and
 * hand.tgf), in file order, tiled to 10k and 1M vertices: there the
 * influence count changes from vertex to vertex, and the peer runs its four
 * slots, zero weights included, as ozz pads its slots; "-blended" lines use
 * BLENDED_MATRIX normals, the peer's work plus a renormalise. They are skipped
 * when the data is absent. "-streams-only" lines time a pass that reads and
 * writes the bytes of a P+N+T pass with no blend, against sinew's
 * blended-matrix pass: the rate the memory (1M) or the caches (10k) allow.
 * Two last lines time sinew_skin_load of a saved 1M-vertex skin, and
 * sinew_skin_load_into memory the caller reuses, against memcpy of its bytes.
 * "sse2" as the argument times only the forced SSE2 kernel set (see
 * bench_sse2). Figures are the best of several rounds (the machine is
 * shared).
 * Environment: SINEW_BENCH_CASE=<name without "skin/"> runs only that case's
 * line; with SINEW_BENCH_COUNT=1 as well it runs one pass of sinew and one of
 * the peer instead of timing them, for
 * `valgrind --tool=callgrind --collect-atstart=no --toggle-collect=counted_sinew_pass`
 * (or counted_peer_pass): instructions per pass, load-independent
 * (docs/skinning.md, instructions per vertex). */
#include <math.h>
#ifdef __GLIBC__
#  include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__) || defined(_M_X64)
#  include <emmintrin.h>
#  define BENCH_HAVE_SSE2 1
#endif

#include "support.h"
#include "../../skin/tools/gltf_reader.h"

enum { JOINTS = 100 };

typedef struct data {
    size_t n, k;
    uint32_t *joints;
    uint16_t *joints16;     /* the same joints, as the peer stores them */
    float *weights;
    float *peer_weights;    /* k - 1 weights per vertex, the last one implied */
    float *p, *nrm, *tan;   /* inputs */
    float *op, *on, *ot;    /* outputs */
    float world[16 * JOINTS];
} data;
static void random_rotation(support_rng *rng, float m[16])
{
    double q[4], n = 0.0;
    for (int i = 0; i < 4; ++i) q[i] = support_rng_uniform(rng, -1, 1), n += q[i] * q[i];
    n = sqrt(n);
    double x = q[0] / n, y = q[1] / n, z = q[2] / n, w = q[3] / n;
    float r[16] = {(float)(1 - 2 * (y * y + z * z)), (float)(2 * (x * y + z * w)), (float)(2 * (x * z - y * w)), 0,
                   (float)(2 * (x * y - z * w)), (float)(1 - 2 * (x * x + z * z)), (float)(2 * (y * z + x * w)), 0,
                   (float)(2 * (x * z + y * w)), (float)(2 * (y * z - x * w)), (float)(1 - 2 * (x * x + y * y)), 0,
                   (float)support_rng_uniform(rng, -1, 1), (float)support_rng_uniform(rng, -1, 1),
                   (float)support_rng_uniform(rng, -1, 1), 1};
    memcpy(m, r, sizeof r);
}

/* share 1: every vertex draws its own joints (the worst case for locality);
 * share > 1: runs of `share` vertices hang on one joint tuple with the
 * weights in one order (as along a limb), each with its own weights. */
static void data_init(data *d, size_t n, size_t k, size_t share)
{
    support_rng rng;
    support_rng_seed(&rng, 1234 + n + k);
    d->n = n, d->k = k;
    d->joints = malloc(n * k * sizeof(uint32_t));
    d->weights = malloc(n * k * sizeof(float));
    d->joints16 = malloc(n * k * sizeof(uint16_t));
    d->peer_weights = malloc(n * (k > 1 ? k - 1 : 1) * sizeof(float));
    d->p = malloc(n * 3 * sizeof(float));
    d->nrm = malloc(n * 3 * sizeof(float));
    d->tan = malloc(n * 4 * sizeof(float));
    d->op = malloc(n * 3 * sizeof(float));
    d->on = malloc(n * 3 * sizeof(float));
    d->ot = malloc(n * 4 * sizeof(float));
    for (size_t v = 0; v < n; ++v) {
        double sum = 0.0;
        uint32_t base = (uint32_t)(support_rng_next(&rng) % JOINTS);
        if (v % share != 0) base = d->joints[(v - 1) * k];
        for (size_t s = 0; s < k; ++s) {
            d->joints[v * k + s] = (uint32_t)((base + 7 * s) % JOINTS);
            /* Decreasing by slot when sharing, so the bind's weight order keeps the tuple. */
            d->weights[v * k + s] = share > 1 ? (float)((double)(k - s) + support_rng_uniform(&rng, 0.0, 0.9))
                                              : (float)support_rng_uniform(&rng, 0.1, 1.0);
            sum += d->weights[v * k + s];
        }
        for (size_t s = 0; s < k; ++s) {
            d->weights[v * k + s] = (float)(d->weights[v * k + s] / sum);
            d->joints16[v * k + s] = (uint16_t)d->joints[v * k + s];
            if (s + 1 < k) d->peer_weights[v * (k - 1) + s] = d->weights[v * k + s];
        }
        for (int i = 0; i < 3; ++i) d->p[3 * v + i] = (float)support_rng_uniform(&rng, -1, 1);
        double a = support_rng_uniform(&rng, 0, 6.283185307179586), c = cos(a), s = sin(a);
        d->nrm[3 * v] = (float)c, d->nrm[3 * v + 1] = (float)s, d->nrm[3 * v + 2] = 0.0f;
        d->tan[4 * v] = (float)-s, d->tan[4 * v + 1] = (float)c, d->tan[4 * v + 2] = 0.0f, d->tan[4 * v + 3] = 1.0f;
    }
    for (int j = 0; j < JOINTS; ++j) random_rotation(&rng, d->world + 16 * j);
    memset(d->op, 0, n * 3 * sizeof(float));
    memset(d->on, 0, n * 3 * sizeof(float));
    memset(d->ot, 0, n * 4 * sizeof(float));
}

static void data_free(data *d)
{
    free(d->joints), free(d->joints16), free(d->peer_weights), free(d->weights), free(d->p), free(d->nrm), free(d->tan), free(d->op), free(d->on), free(d->ot);
}

/* The peer's method, written from ozz-animation's documented SkinningJob
 * design (not its code): one vertex per iteration in 4-wide registers, the
 * joints' 4x4 matrices blended column by column with float weights (k - 1
 * stored, the last one 1 minus their sum), positions, normals and tangents
 * transformed by the blended matrix, normals and tangents not renormalised,
 * the tangent's w copied. */
#if defined(BENCH_HAVE_SSE2)
#  define PEER_NAME "ozz-style sse2"
typedef __m128 v4;
static inline v4 v4_load(const float *p) { return _mm_loadu_ps(p); }
static inline v4 v4_splat(float f) { return _mm_set1_ps(f); }
static inline v4 v4_add(v4 a, v4 b) { return _mm_add_ps(a, b); }
static inline v4 v4_mul(v4 a, v4 b) { return _mm_mul_ps(a, b); }
static inline void v4_store3(float *p, v4 v)
{
    _mm_storel_pi((__m64 *)(void *)p, v);
    _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
}
#else
#  define PEER_NAME "ozz-style portable"
typedef struct v4 {
    float f[4];
} v4;
static inline v4 v4_load(const float *p) { v4 r = {{p[0], p[1], p[2], p[3]}}; return r; }
static inline v4 v4_splat(float f) { v4 r = {{f, f, f, f}}; return r; }
static inline v4 v4_add(v4 a, v4 b) { for (int i = 0; i < 4; ++i) a.f[i] += b.f[i]; return a; }
static inline v4 v4_mul(v4 a, v4 b) { for (int i = 0; i < 4; ++i) a.f[i] *= b.f[i]; return a; }
static inline void v4_store3(float *p, v4 v) { p[0] = v.f[0], p[1] = v.f[1], p[2] = v.f[2]; }
#endif

static inline v4 v4_transform(const v4 c[4], const float *x, bool point)
{
    v4 r = v4_add(v4_mul(c[0], v4_splat(x[0])), v4_mul(c[1], v4_splat(x[1])));
    r = v4_add(r, v4_mul(c[2], v4_splat(x[2])));
    return point ? v4_add(r, c[3]) : r;
}

/* K influences (a constant after inlining), the stream mask as in sinew. */
static inline void peer_loop(const data *d, const float *palette, unsigned mask, const size_t K)
{
    const uint16_t *joints = d->joints16;
    const float *weights = d->peer_weights;
    for (size_t v = 0; v < d->n; ++v, joints += K, weights += K - 1) {
        v4 c[4];
        const float *m0 = palette + 16 * joints[0];
        if (K == 1) {
            for (int i = 0; i < 4; ++i) c[i] = v4_load(m0 + 4 * i);
        } else {
            float last = 1.0f;
            v4 w = v4_splat(weights[0]);
            last -= weights[0];
            for (int i = 0; i < 4; ++i) c[i] = v4_mul(v4_load(m0 + 4 * i), w);
            for (size_t s = 1; s < K; ++s) {
                const float ws = s + 1 < K ? weights[s] : last;
                if (s + 1 < K) last -= ws;
                const float *ms = palette + 16 * joints[s];
                w = v4_splat(ws);
                for (int i = 0; i < 4; ++i) c[i] = v4_add(c[i], v4_mul(v4_load(ms + 4 * i), w));
            }
        }
        v4_store3(d->op + 3 * v, v4_transform(c, d->p + 3 * v, true));
        if (mask & 2) v4_store3(d->on + 3 * v, v4_transform(c, d->nrm + 3 * v, false));
        if (mask & 4) {
            v4_store3(d->ot + 4 * v, v4_transform(c, d->tan + 4 * v, false));
            d->ot[4 * v + 3] = d->tan[4 * v + 3];
        }
    }
}

static void peer(const data *d, const float *palette, unsigned mask)
{
    switch (d->k) {
    case 1: peer_loop(d, palette, mask, 1); break;
    case 2: peer_loop(d, palette, mask, 2); break;
    case 4: peer_loop(d, palette, mask, 4); break;
    default: peer_loop(d, palette, mask, 8); break;
    }
}

typedef struct job {
    data *d;
    const sinew_skin *skin;
    const float *palette;      /* the skin's palette */
    const float *peer_palette; /* the linear-blend palette the peer reads */
    unsigned mask;
} job;

static int sinew_pass(void *user)
{
    job *j = user;
    sinew_skin_input in = {j->d->p, 0, j->d->nrm, 0, j->d->tan, 0};
    sinew_skin_output out = {j->d->op, 0, (j->mask & 2) ? j->d->on : NULL, 0, (j->mask & 4) ? j->d->ot : NULL, 0};
    return sinew_skin_deform(j->skin, j->palette, sinew_skin_palette_size(j->skin), &in, &out, 0, j->d->n) == SINEW_OK ? 0 : 1;
}

static int peer_pass(void *user)
{
    job *j = user;
    peer(j->d, j->peer_palette, j->mask);
    return 0;
}

/* One pass each, not inlined, so an instruction counter can name them (see
 * the comment at the top). */
static __attribute__((noinline)) int counted_sinew_pass(job *j) { return sinew_pass(j); }
static __attribute__((noinline)) void counted_peer_pass(job *j) { peer_pass(j); }

/* Best seconds per pass of sinew (*ts) and of the other side (*to: the
 * peer, or the streams-only pass), the two alternating round by round so
 * that a busy spell on the shared machine hits both. Returns false when
 * sinew fails. */
static bool time_pair(job *j, int (*other)(void *), double *ts, double *to)
{
    const int rounds = j->d->n >= 1000000 ? 11 : 300;
    *ts = *to = 1e30;
    if (sinew_pass(j) != 0) return false;
    other(j);
    for (int r = 0; r < rounds; ++r) {
        double t0 = support_now();
        if (sinew_pass(j) != 0) return false;
        double t1 = support_now();
        other(j);
        double t2 = support_now();
        if (t1 - t0 < *ts) *ts = t1 - t0;
        if (t2 - t1 < *to) *to = t2 - t1;
    }
    return true;
}

/* Whether the line `name` ("skin/...") is to run: every line, or the one
 * SINEW_BENCH_CASE names. */
static bool case_selected(const char *name)
{
    const char *only = getenv("SINEW_BENCH_CASE");
    return !only || strcmp(name + strlen("skin/"), only) == 0;
}

#if defined(BENCH_HAVE_SSE2)
/* A P+N+T pass with the arithmetic taken out: every byte that sinew's float
 * storage reads per vertex (joints, weights, positions, normals, tangents)
 * is read and every output written, in the same streams at once, four
 * vertices at a time with one multiply per output float and no blend. */
static int streams_only_pass(void *user)
{
    const data *d = ((const job *)user)->d;
    const size_t k = d->k, n = d->n & ~(size_t)3;
    for (size_t v = 0; v < n; v += 4) {
        __m128 s = _mm_set1_ps(1.0f);
        __m128i j = _mm_setzero_si128();
        for (size_t i = 0; i < k; ++i) {
            s = _mm_add_ps(s, _mm_loadu_ps(d->weights + v * k + 4 * i));
            j = _mm_or_si128(j, _mm_loadl_epi64((const __m128i *)(const void *)(d->joints16 + v * k + 4 * i)));
        }
        s = _mm_add_ps(s, _mm_cvtepi32_ps(j));
        for (size_t f = 0; f < 12; f += 4) {
            _mm_storeu_ps(d->op + 3 * v + f, _mm_mul_ps(_mm_loadu_ps(d->p + 3 * v + f), s));
            _mm_storeu_ps(d->on + 3 * v + f, _mm_mul_ps(_mm_loadu_ps(d->nrm + 3 * v + f), s));
        }
        for (size_t f = 0; f < 16; f += 4)
            _mm_storeu_ps(d->ot + 4 * v + f, _mm_mul_ps(_mm_loadu_ps(d->tan + 4 * v + f), s));
    }
    return 0;
}

/* "-streams-only" line: the streaming pass above against sinew's P+N+T pass
 * of the same skin (blended-matrix normals): at 1M vertices, how near sinew
 * runs to what the memory gives the pass; at 10k, what the caches give it. */
static bool bench_streams_only(data *d, const sinew_skin *skin, const float *palette)
{
    char name[96];
    snprintf(name, sizeof name, "skin/%zuinf-P+N+T-%s-streams-only", d->k, d->n >= 1000000 ? "1M" : "10k");
    if (!case_selected(name)) return true;
    job j = {d, skin, palette, palette, 7};
    double ts, tm;
    if (!time_pair(&j, streams_only_pass, &ts, &tm)) return false;
    support_bench_line(name, (double)d->n / tm * 1e-6, "M vertices/s", "sinew blended", (double)d->n / ts * 1e-6);
    return true;
}
#endif

/* Both methods give the same positions (to float rounding) on the case's
 * vertices: the comparison is like for like. */
static bool positions_agree(job *j)
{
    const size_t floats = 3 * j->d->n;
    float *mine = malloc(floats * sizeof(float));
    if (!mine) return false;
    bool ok = sinew_pass(j) == 0;
    memcpy(mine, j->d->op, floats * sizeof(float));
    peer_pass(j);
    for (size_t i = 0; ok && i < floats; ++i)
        if (!(fabsf(mine[i] - j->d->op[i]) <= 1e-4f * (1.0f + fabsf(mine[i])))) {
            fprintf(stderr, "position %zu: sinew %.9g, peer %.9g\n", i / 3, (double)mine[i], (double)j->d->op[i]);
            ok = false;
        }
    free(mine);
    return ok;
}

static sinew_skin_normals bench_normals = SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE;

static sinew_skin *make_skin_blend(const data *d, sinew_skin_storage storage, sinew_skin_kernel kernel,
                                   sinew_skin_blend blend)
{
    sinew_skin_desc desc;
    SINEW_INIT(&desc);
    desc.blend = blend;
    desc.normals = bench_normals;
    desc.vertex_count = d->n, desc.joint_count = JOINTS, desc.influence_count = d->k;
    desc.joints = d->joints, desc.weights = d->weights, desc.storage = storage, desc.kernel = kernel;
    desc.renormalise = 1;
    sinew_skin *s = NULL;
    if (sinew_skin_create(NULL, &desc, &s) != SINEW_OK) return NULL;
    return s;
}

static const char *stream_name(unsigned mask)
{
    return mask == 1 ? "P" : mask == 3 ? "P+N" : "P+N+T";
}

/* Name of the real character being timed, NULL for random tuples. */
static const char *bench_character;

/* Times one skin against the peer and prints the case's line. */
static bool bench_case(data *d, const sinew_skin *skin, const float *palette, const float *peer_palette,
                       unsigned mask, const char *suffix)
{
    job j = {d, skin, palette, peer_palette, mask};
    char name[160];
    if (bench_character)
        snprintf(name, sizeof name, "skin/%s-%s-%s%s", bench_character, stream_name(mask),
                 d->n >= 1000000 ? "1M" : "10k", suffix);
    else
        snprintf(name, sizeof name, "skin/%zuinf-%s-%s%s", d->k, stream_name(mask), d->n >= 1000000 ? "1M" : "10k",
                 suffix);
    if (!case_selected(name)) return true;
    if (getenv("SINEW_BENCH_CASE") && getenv("SINEW_BENCH_COUNT")) {
        if (counted_sinew_pass(&j) != 0) return false;
        counted_peer_pass(&j);
        printf("%s: one pass of each, for an instruction count\n", name);
        return true;
    }
    double ts, tp;
    if (!time_pair(&j, peer_pass, &ts, &tp)) {
        fprintf(stderr, "deform failed: %s\n", sinew_last_error());
        return false;
    }
    support_bench_line(name, (double)d->n / ts * 1e-6, "M vertices/s", PEER_NAME, (double)d->n / tp * 1e-6);
    return true;
}

/* A real character's influences: `slots` joints and weights per vertex for
 * src_n vertices, in file order. */
typedef struct character {
    const char *name;
    size_t src_n, slots;
    uint32_t *joints;
    float *weights;
} character;

static void character_free(character *c)
{
    free(c->joints), free(c->weights);
    memset(c, 0, sizeof *c);
}

static bool character_gltf(const char *name, const char *file, character *c)
{
    char path[1024], err[256];
    if (!support_data_path(file, path, sizeof path)) return false;
    gltf_model m;
    if (!gltf_load(path, &m, err, sizeof err)) {
        fprintf(stderr, "%s: %s (skipped)\n", file, err);
        return false;
    }
    c->name = name, c->src_n = m.vertex_count, c->slots = 4;
    c->joints = malloc(4 * c->src_n * sizeof *c->joints);
    c->weights = malloc(4 * c->src_n * sizeof *c->weights);
    for (size_t i = 0; i < 4 * c->src_n; ++i) {
        c->joints[i] = m.joints[i] < JOINTS ? m.joints[i] : 0;
        c->weights[i] = (float)m.weights[i];
    }
    gltf_free(&m);
    return true;
}

/* The four largest of each vertex's BBW weights (libigl's arm-weights.dmat,
 * one column per handle), in slot order of the handles. */
static bool character_dmat(const char *name, const char *file, character *c)
{
    char path[1024];
    double *w = NULL;
    size_t rows = 0, cols = 0;
    if (!support_data_path(file, path, sizeof path) || !support_read_dmat(path, &w, &rows, &cols)) return false;
    c->name = name, c->src_n = rows, c->slots = 4;
    c->joints = calloc(4 * rows, sizeof *c->joints);
    c->weights = calloc(4 * rows, sizeof *c->weights);
    for (size_t v = 0; v < rows; ++v) {
        bool taken[64] = {false};
        for (size_t s = 0; s < 4 && s < cols; ++s) {
            size_t best = 0;
            double bw = -1.0;
            for (size_t j = 0; j < cols && j < 64; ++j)
                if (!taken[j] && w[j * rows + v] > bw) best = j, bw = w[j * rows + v];
            taken[best] = true;
            c->joints[4 * v + s] = (uint32_t)best;
            c->weights[4 * v + s] = bw > 1e-4 ? (float)bw : 0.0f;
        }
    }
    free(w);
    return true;
}

/* The four largest of each vertex's BBW weights of libigl's hand (hand.mesh,
 * hand.tgf: 7234 vertices, 20 bones), solved once here with sinew_bbw, in
 * the file's vertex order. */
static bool character_bbw_hand(const char *name, character *c)
{
    char mp[1024], tp[1024];
    if (!support_data_path("libigl-tutorial-data/hand.mesh", mp, sizeof mp) ||
        !support_data_path("libigl-tutorial-data/hand.tgf", tp, sizeof tp))
        return false;
    support_mesh mesh = {0};
    float *jp = NULL;
    uint32_t *bones = NULL;
    size_t jc = 0, bc = 0;
    bool ok = support_read_medit(mp, &mesh) && support_read_tgf(tp, &jp, &jc, &bones, &bc) && bc <= 64;
    sinew_tetmesh tm = {support_mesh_points(&mesh), mesh.tets, mesh.tet_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tm, d.joint_positions.data = jp, d.joint_positions.count = jc, d.bones = bones, d.bone_count = bc;
    sinew_bbw *b = NULL;
    ok = ok && sinew_bbw_create(NULL, &d, &b) == SINEW_OK && sinew_bbw_solve(NULL, b, NULL) == SINEW_OK;
    const size_t n = mesh.vertex_count;
    float *w = ok ? malloc(n * bc * sizeof *w) : NULL;
    ok = ok && w && sinew_bbw_vertex_weights(b, w, 0, n) == SINEW_OK;
    if (ok) {
        c->name = name, c->src_n = n, c->slots = 4;
        c->joints = calloc(4 * n, sizeof *c->joints);
        c->weights = calloc(4 * n, sizeof *c->weights);
        for (size_t v = 0; v < n; ++v) {
            bool taken[64] = {false};
            for (size_t s = 0; s < 4 && s < bc; ++s) {
                size_t best = 0;
                float bw = -1.0f;
                for (size_t j = 0; j < bc; ++j)
                    if (!taken[j] && w[v * bc + j] > bw) best = j, bw = w[v * bc + j];
                taken[best] = true;
                c->joints[4 * v + s] = (uint32_t)best;
                c->weights[4 * v + s] = bw > 1e-4f ? bw : 0.0f;
            }
        }
    } else {
        fprintf(stderr, "hand BBW weights: %s (skipped)\n", sinew_last_error());
    }
    free(w), free(jp), free(bones);
    sinew_bbw_destroy(b);
    support_mesh_free(&mesh);
    return ok;
}

/* Random streams as data_init makes them, influences from c tiled to n
 * vertices (vertex v takes source vertex v mod src_n). */
static void data_init_character(data *d, const character *c, size_t n)
{
    data_init(d, n, c->slots, 1);
    const size_t k = c->slots;
    for (size_t v = 0; v < n; ++v) {
        const size_t src = v % c->src_n;
        double sum = 0.0;
        for (size_t s = 0; s < k; ++s) sum += c->weights[src * k + s];
        for (size_t s = 0; s < k; ++s) {
            d->joints[v * k + s] = c->joints[src * k + s];
            d->joints16[v * k + s] = (uint16_t)c->joints[src * k + s];
            d->weights[v * k + s] = (float)(c->weights[src * k + s] / sum);
            if (s + 1 < k) d->peer_weights[v * (k - 1) + s] = d->weights[v * k + s];
        }
    }
}

/* Reorders d's vertices (influences and input streams) so each count of
 * nonzero weights is contiguous, stable within a count: what an engine that
 * sorts at bake time would feed. */
static void data_sort_by_count(data *d)
{
    const size_t n = d->n, k = d->k;
    size_t *order = malloc(n * sizeof *order), at = 0;
    for (size_t c = 0; c <= k; ++c)
        for (size_t v = 0; v < n; ++v) {
            size_t nz = 0;
            for (size_t s = 0; s < k; ++s) nz += d->weights[v * k + s] > 0.0f;
            if (nz == c) order[at++] = v;
        }
    uint32_t *j = malloc(n * k * sizeof *j);
    uint16_t *j16 = malloc(n * k * sizeof *j16);
    float *w = malloc(n * k * sizeof *w), *pw = malloc(n * (k > 1 ? k - 1 : 1) * sizeof *pw);
    float *p = malloc(n * 3 * sizeof *p), *nr = malloc(n * 3 * sizeof *nr), *t = malloc(n * 4 * sizeof *t);
    for (size_t i = 0; i < n; ++i) {
        const size_t v = order[i];
        memcpy(j + i * k, d->joints + v * k, k * sizeof *j);
        memcpy(j16 + i * k, d->joints16 + v * k, k * sizeof *j16);
        memcpy(w + i * k, d->weights + v * k, k * sizeof *w);
        if (k > 1) memcpy(pw + i * (k - 1), d->peer_weights + v * (k - 1), (k - 1) * sizeof *pw);
        memcpy(p + 3 * i, d->p + 3 * v, 3 * sizeof *p);
        memcpy(nr + 3 * i, d->nrm + 3 * v, 3 * sizeof *nr);
        memcpy(t + 4 * i, d->tan + 4 * v, 4 * sizeof *t);
    }
    free(d->joints), free(d->joints16), free(d->weights), free(d->peer_weights), free(d->p), free(d->nrm), free(d->tan);
    d->joints = j, d->joints16 = j16, d->weights = w, d->peer_weights = pw, d->p = p, d->nrm = nr, d->tan = t;
    free(order);
}

/* The same character sorted by influence count, float, default normals:
 * beside the file-order lines it shows what the vertex order costs. */
static bool bench_character_sorted(const character *c, size_t n)
{
    data d;
    data_init_character(&d, c, n);
    data_sort_by_count(&d);
    bench_character = c->name;
    sinew_skin *skin = make_skin_blend(&d, SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_KERNEL_AUTO, SINEW_SKIN_BLEND_LINEAR);
    bool ok = skin != NULL;
    float *pal = ok ? aligned_alloc(64, sinew_skin_palette_size(skin) * sizeof(float)) : NULL;
    if (ok) sinew_skin_palette(skin, d.world, JOINTS, pal, sinew_skin_palette_size(skin));
    for (int mi = 0; mi < 3 && ok; ++mi) ok = bench_case(&d, skin, pal, pal, mi ? (mi == 1 ? 3u : 7u) : 1u, "-sorted");
    free(pal);
    sinew_skin_destroy(skin);
    bench_character = NULL;
    data_free(&d);
    return ok;
}

/* Every stream set, float and compressed storage, default normals and
 * blended-matrix normals, for one real character at one size. */
static bool bench_character_size(const character *c, size_t n)
{
    data d;
    data_init_character(&d, c, n);
    bench_character = c->name;
    bool ok = true;
    for (int nm = 0; nm < 2 && ok; ++nm) {
        bench_normals = nm ? SINEW_SKIN_NORMALS_BLENDED_MATRIX : SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE;
        for (int st = 0; st < 2 && ok; ++st) {
            sinew_skin *skin = make_skin_blend(&d, st ? SINEW_SKIN_STORAGE_COMPRESSED : SINEW_SKIN_STORAGE_FLOAT,
                                               SINEW_SKIN_KERNEL_AUTO, SINEW_SKIN_BLEND_LINEAR);
            if (!skin) {
                fprintf(stderr, "bind failed: %s\n", sinew_last_error());
                ok = false;
                break;
            }
            float *pal = aligned_alloc(64, sinew_skin_palette_size(skin) * sizeof(float));
            sinew_skin_palette(skin, d.world, JOINTS, pal, sinew_skin_palette_size(skin));
            job check = {&d, skin, pal, pal, 1};
            /* Compressed weights differ from the peer's floats by up to 1/255. */
            ok = st || positions_agree(&check);
            char suffix[64];
            snprintf(suffix, sizeof suffix, "%s%s", st ? "-compressed" : "", nm ? "-blended" : "");
            for (int mi = nm ? 1 : 0; mi < 3 && ok; ++mi) ok = bench_case(&d, skin, pal, pal, mi ? (mi == 1 ? 3u : 7u) : 1u, suffix);
            free(pal);
            sinew_skin_destroy(skin);
        }
    }
    bench_normals = SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE;
    bench_character = NULL;
    data_free(&d);
    return ok;
}

/* False when SINEW_BENCH_CASE names a case whose name cannot contain part:
 * the characters and sizes it does not need are not even prepared. */
static bool case_may_match(const char *part)
{
    const char *only = getenv("SINEW_BENCH_CASE");
    return !only || strstr(only, part) != NULL;
}

static bool bench_characters(bool quick)
{
    enum { CHARACTERS = 4 };
    character cs[CHARACTERS];
    memset(cs, 0, sizeof cs);
    const char *const names[CHARACTERS] = {"fox", "rigged-figure", "bbw-arm-top4", "bbw-hand-top4"};
    bool wanted[CHARACTERS], have[CHARACTERS];
    for (int c = 0; c < CHARACTERS; ++c) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "%s-", names[c]);
        wanted[c] = case_may_match(prefix);
    }
    have[0] = wanted[0] && character_gltf(names[0], "gltf/Fox.gltf", &cs[0]);
    have[1] = wanted[1] && character_gltf(names[1], "gltf/RiggedFigure.gltf", &cs[1]);
    have[2] = wanted[2] && character_dmat(names[2], "libigl-tutorial-data/arm-weights.dmat", &cs[2]);
    have[3] = wanted[3] && character_bbw_hand(names[3], &cs[3]);
    const bool small = case_may_match("-10k"), large = !quick && case_may_match("-1M");
    bool ok = true;
    for (int c = 0; c < CHARACTERS && ok; ++c) {
        if (!wanted[c]) continue;
        if (!have[c]) {
            printf("skin/real-character-%d: skipped (data absent)\n", c);
            continue;
        }
        ok = (!small || (bench_character_size(&cs[c], 10000) && bench_character_sorted(&cs[c], 10000))) &&
             (!large || (bench_character_size(&cs[c], 1000000) && bench_character_sorted(&cs[c], 1000000)));
    }
    for (int c = 0; c < CHARACTERS; ++c) character_free(&cs[c]);
    return ok;
}

/* sinew_skin_load of a saved 1M-vertex, 4-influence skin (default allocator)
 * and sinew_skin_load_into memory the caller reuses, each against memcpy of
 * the same bytes into a buffer already touched, the three interleaved round
 * by round; CPU time of this thread (page faults included), best of the
 * rounds. Every sinew_skin_load round loads into fresh pages, as the first
 * load of a process does: glibc would otherwise keep the freed block and hand
 * it back touched (its threshold for returning large blocks to the system
 * grows after the first free). */
static bool bench_load(void)
{
    if (!case_selected("skin/load-1M-4inf") && !case_selected("skin/load-into-1M-4inf")) return true;
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    data d;
    data_init(&d, 1000000, 4, 1);
    sinew_skin *skin = make_skin_blend(&d, SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_KERNEL_AUTO, SINEW_SKIN_BLEND_LINEAR);
    size_t size = 0, bytes = 0;
    bool ok = skin && sinew_skin_save(skin, NULL, 0, &size) == SINEW_OK;
    char *saved = ok ? malloc(size) : NULL, *copy = ok ? malloc(size) : NULL, *memory = NULL;
    ok = ok && saved && copy && sinew_skin_save(skin, saved, size, &size) == SINEW_OK &&
         sinew_skin_load_memory_size(NULL, saved, size, &bytes) == SINEW_OK && (memory = malloc(bytes)) != NULL;
    double tl = 1e30, ti = 1e30, tc = 1e30;
    if (ok) memset(copy, 1, size), memset(memory, 1, bytes);
    for (int r = 0; ok && r < 15; ++r) {
        sinew_skin *loaded = NULL, *placed = NULL;
        double t0 = support_cpu_now();
        ok = sinew_skin_load(NULL, saved, size, &loaded) == SINEW_OK;
        double t1 = support_cpu_now();
        ok = ok && sinew_skin_load_into(NULL, saved, size, memory, bytes, &placed) == SINEW_OK;
        double t2 = support_cpu_now();
        memcpy(copy, saved, size);
        double t3 = support_cpu_now();
        sinew_skin_destroy(loaded);
        sinew_skin_destroy(placed);
        if (t1 - t0 < tl) tl = t1 - t0;
        if (t2 - t1 < ti) ti = t2 - t1;
        if (t3 - t2 < tc) tc = t3 - t2;
    }
    if (ok) {
        support_bench_line("skin/load-1M-4inf", (double)size / tl * 1e-9, "GB/s", "memcpy", (double)size / tc * 1e-9);
        support_bench_line("skin/load-into-1M-4inf", (double)size / ti * 1e-9, "GB/s", "memcpy",
                           (double)size / tc * 1e-9);
    } else {
        fprintf(stderr, "skin load bench failed: %s\n", sinew_last_error());
    }
    free(saved), free(copy), free(memory);
    sinew_skin_destroy(skin);
    data_free(&d);
    return ok;
}

/* "sse2" mode: the forced SSE2 kernel set against the ozz-style loop for
 * every stream combination and influence count, with exact
 * (inverse-transpose) normals and with BLENDED_MATRIX normals ("-blended",
 * the peer's work plus a renormalise). Random joint tuples, float storage. */
static bool bench_sse2(bool quick)
{
    const size_t sizes[2] = {10000, 1000000};
    const size_t influences[4] = {1, 2, 4, 8};
    const unsigned masks[3] = {1, 3, 7};
    bool ok = true;
    for (int si = 0; ok && si < (quick ? 1 : 2); ++si)
        for (int ki = 0; ok && ki < 4; ++ki) {
            data d;
            data_init(&d, sizes[si], influences[ki], 1);
            float *pal = NULL;
            for (int nm = 0; ok && nm < 2; ++nm) {
                bench_normals = nm ? SINEW_SKIN_NORMALS_BLENDED_MATRIX : SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE;
                sinew_skin *fs = make_skin_blend(&d, SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_KERNEL_SSE2,
                                                 SINEW_SKIN_BLEND_LINEAR);
                if (!fs) break; /* no SSE2 set in this build or on this CPU */
                if (!pal) {
                    pal = aligned_alloc(64, sinew_skin_palette_size(fs) * sizeof(float));
                    sinew_skin_palette(fs, d.world, JOINTS, pal, sinew_skin_palette_size(fs));
                }
                for (int mi = nm; ok && mi < 3; ++mi) /* positions alone once */
                    ok = bench_case(&d, fs, pal, pal, masks[mi], nm ? "-sse2-kernel-blended" : "-sse2-kernel");
                sinew_skin_destroy(fs);
            }
            bench_normals = SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE;
            free(pal);
            data_free(&d);
        }
    return ok;
}

int main(int argc, char **argv)
{
    const bool quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    const bool characters_only = argc > 1 && strcmp(argv[1], "characters") == 0;
    if (argc > 1 && strcmp(argv[1], "load") == 0) return bench_load() ? 0 : 1;
    if (argc > 1 && strcmp(argv[1], "sse2") == 0) return bench_sse2(argc > 2 && strcmp(argv[2], "quick") == 0) ? 0 : 1;
    const size_t sizes[2] = {10000, 1000000};
    const size_t influences[4] = {1, 2, 4, 8};
    const unsigned masks[3] = {1, 3, 7};
    const sinew_skin_storage storages[2] = {SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_STORAGE_COMPRESSED};
    for (int si = 0; si < (quick ? 1 : characters_only ? 0 : 2); ++si)
        for (int ki = 0; ki < 4; ++ki) {
            data d;
            data_init(&d, sizes[si], influences[ki], 1);
            sinew_skin *skins[2];
            for (int st = 0; st < 2; ++st) {
                skins[st] = make_skin_blend(&d, storages[st], SINEW_SKIN_KERNEL_AUTO, SINEW_SKIN_BLEND_LINEAR);
                if (!skins[st]) {
                    fprintf(stderr, "bind failed: %s\n", sinew_last_error());
                    return 1;
                }
            }
            /* 64-byte aligned, as skin.h advises: a record is then one cache line. */
            float *pal = aligned_alloc(64, sinew_skin_palette_size(skins[0]) * sizeof(float));
            sinew_skin_palette(skins[0], d.world, JOINTS, pal, sinew_skin_palette_size(skins[0]));
            job check = {&d, skins[0], pal, pal, 1};
            if (!positions_agree(&check)) return 1;
            for (int mi = 0; mi < 3; ++mi)
                for (int st = 0; st < 2; ++st)
                    if (!bench_case(&d, skins[st], pal, pal, masks[mi], st ? "-compressed" : "")) return 1;
            /* Equal work: blended-matrix normals are the peer's plus a renormalise. */
            bench_normals = SINEW_SKIN_NORMALS_BLENDED_MATRIX;
            sinew_skin *blended = make_skin_blend(&d, SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_KERNEL_AUTO,
                                                  SINEW_SKIN_BLEND_LINEAR);
            bench_normals = SINEW_SKIN_NORMALS_INVERSE_TRANSPOSE;
            for (int mi = 1; blended && mi < 3; ++mi)
                if (!bench_case(&d, blended, pal, pal, masks[mi], "-blended")) return 1;
#if defined(BENCH_HAVE_SSE2)
            if (blended && !bench_streams_only(&d, blended, pal)) return 1;
#endif
            sinew_skin_destroy(blended);
            if (d.k == 4) {
                const sinew_skin_kernel forced[3] = {SINEW_SKIN_KERNEL_SCALAR, SINEW_SKIN_KERNEL_SSE2,
                                                     SINEW_SKIN_KERNEL_AVX2};
                const char *names[3] = {"-scalar-kernel", "-sse2-kernel", "-avx2-kernel"};
                sinew_skin_info info;
                SINEW_INIT(&info);
                sinew_skin_get_info(skins[0], &info);
                for (int f = 0; f < 3; ++f) {
                    /* The AVX2 line only where the run-time choice is another set (AVX-512). */
                    if (forced[f] == info.kernel) continue;
                    sinew_skin *fs = make_skin_blend(&d, SINEW_SKIN_STORAGE_FLOAT, forced[f], SINEW_SKIN_BLEND_LINEAR);
                    if (!fs) continue; /* a kernel set this build or CPU lacks */
                    bool ok = bench_case(&d, fs, pal, pal, 7, names[f]);
                    sinew_skin_destroy(fs);
                    if (!ok) return 1;
                    /* The AVX2 set is what machines without AVX-512 run: its compressed line too. */
                    if (forced[f] != SINEW_SKIN_KERNEL_AVX2) continue;
                    fs = make_skin_blend(&d, SINEW_SKIN_STORAGE_COMPRESSED, forced[f], SINEW_SKIN_BLEND_LINEAR);
                    if (!fs) continue;
                    char name[32];
                    snprintf(name, sizeof name, "%s-compressed", names[f]);
                    ok = bench_case(&d, fs, pal, pal, 7, name);
                    sinew_skin_destroy(fs);
                    if (!ok) return 1;
                }
                /* Dual quaternions (run-time kernel, then the portable one), against the same
                 * linear-blend peer. */
                for (int f = 0; f < 2; ++f) {
                    sinew_skin *dq = make_skin_blend(&d, SINEW_SKIN_STORAGE_FLOAT,
                                                     f ? SINEW_SKIN_KERNEL_SCALAR : SINEW_SKIN_KERNEL_AUTO,
                                                     SINEW_SKIN_BLEND_DUAL_QUATERNION);
                    if (!dq) continue;
                    float *dq_pal = aligned_alloc(64, sinew_skin_palette_size(dq) * sizeof(float));
                    sinew_skin_palette(dq, d.world, JOINTS, dq_pal, sinew_skin_palette_size(dq));
                    bool ok = bench_case(&d, dq, dq_pal, pal, 7,
                                         f ? "-dual-quaternion-scalar-kernel" : "-dual-quaternion");
                    free(dq_pal);
                    sinew_skin_destroy(dq);
                    if (!ok) return 1;
                }
            }
            free(pal);
            sinew_skin_destroy(skins[0]);
            sinew_skin_destroy(skins[1]);
            data_free(&d);
        }
    /* Runs of 32 vertices on one joint tuple: blocks that share their joints
     * blend without a transpose. Float storage, normals and tangents. */
    for (int si = 0; si < (quick ? 1 : characters_only ? 0 : 2); ++si)
        for (int ki = 0; ki < 4; ++ki) {
            data d;
            data_init(&d, sizes[si], influences[ki], 32);
            sinew_skin *skin = make_skin_blend(&d, SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_KERNEL_AUTO,
                                               SINEW_SKIN_BLEND_LINEAR);
            if (!skin) {
                fprintf(stderr, "bind failed: %s\n", sinew_last_error());
                return 1;
            }
            float *pal = aligned_alloc(64, sinew_skin_palette_size(skin) * sizeof(float));
            sinew_skin_palette(skin, d.world, JOINTS, pal, sinew_skin_palette_size(skin));
            job check = {&d, skin, pal, pal, 1};
            if (!positions_agree(&check)) return 1;
            for (int mi = 1; mi < 3; ++mi)
                if (!bench_case(&d, skin, pal, pal, masks[mi], "-shared32")) return 1;
            if (d.k == 4) {
                sinew_skin *fs = make_skin_blend(&d, SINEW_SKIN_STORAGE_FLOAT, SINEW_SKIN_KERNEL_SSE2,
                                                 SINEW_SKIN_BLEND_LINEAR);
                if (fs) {
                    bool ok = bench_case(&d, fs, pal, pal, 7, "-shared32-sse2-kernel");
                    sinew_skin_destroy(fs);
                    if (!ok) return 1;
                }
            }
            free(pal);
            sinew_skin_destroy(skin);
            data_free(&d);
        }
    if (!bench_characters(quick)) return 1;
    if (!quick && !bench_load()) return 1;
    return 0;
}
