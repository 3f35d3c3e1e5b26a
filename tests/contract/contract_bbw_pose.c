/* Contract of include/sinew/bbw_pose.h: create, create from a bbw, info,
 * scratch size, solve and energy. */
#include <math.h>
#include <string.h>

#include "contract.h"

/* The unit square as a 4 x 4 grid of 32 triangles; point handles at two
 * opposite corners, weights from a solved bbw. */
#define N 4
#define VERTICES ((N + 1) * (N + 1))
#define TRIANGLES (2 * N * N)
#define HANDLES 2

static float grid[VERTICES * 3];
static uint32_t triangles[TRIANGLES * 3];
static float weights[VERTICES * HANDLES];
static const float handle_points[HANDLES * 3] = {0, 0, 0, 1, 1, 0};
static float ones[VERTICES];

/* The solver's work area: not an output, so it lives outside the checked scratch. */
static _Alignas(64) unsigned char work[1 << 16];

static struct {
    sinew_context *ctx; /* cancels while `cancelling` is set */
    sinew_trimesh domain;
    sinew_bbw *bbw;
    sinew_bbw *unsolved;
    sinew_bbw_pose *pose;
} fx;
static int cancelling;

static int progress(void *user, const char *stage, float fraction)
{
    (void)user, (void)stage, (void)fraction;
    return cancelling;
}

static void make_grid(void)
{
    for (size_t j = 0; j <= N; ++j)
        for (size_t i = 0; i <= N; ++i) {
            float *p = &grid[3 * (j * (N + 1) + i)];
            p[0] = (float)i / N;
            p[1] = (float)j / N;
            p[2] = 0;
        }
    size_t t = 0;
    for (size_t j = 0; j < N; ++j)
        for (size_t i = 0; i < N; ++i) {
            uint32_t a = (uint32_t)(j * (N + 1) + i), b = a + 1, c = a + N + 2, d = a + N + 1;
            const uint32_t tri[6] = {a, b, c, a, c, d};
            memcpy(&triangles[3 * t], tri, sizeof tri);
            t += 2;
        }
}

static sinew_bbw_pose_desc base_desc(sinew_trimesh *domain)
{
    sinew_bbw_pose_desc d;
    SINEW_INIT(&d);
    d.triangles = domain;
    d.handle_count = HANDLES;
    d.weights = weights;
    return d;
}

static int setup(void **state)
{
    (void)state;
    make_grid();
    for (int v = 0; v < VERTICES; ++v) ones[v] = 1.0f;
    fx.domain = (sinew_trimesh){{grid, VERTICES, 0}, triangles, TRIANGLES, SINEW_INDEX_U32, 0};
    sinew_context_desc cd = {sizeof(sinew_context_desc), {NULL, NULL, NULL}, progress, NULL, NULL, NULL, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &fx.domain;
    d.points = (sinew_points){handle_points, HANDLES, 0};
    if (sinew_context_create(&cd, &fx.ctx) || sinew_bbw_create(NULL, &d, &fx.bbw) ||
        sinew_bbw_solve(NULL, fx.bbw, NULL) || sinew_bbw_create(NULL, &d, &fx.unsolved) ||
        sinew_bbw_vertex_weights(fx.bbw, weights, 0, VERTICES))
        return -1;
    sinew_bbw_pose_desc pd = base_desc(&fx.domain);
    if (sinew_bbw_pose_create(NULL, &pd, &fx.pose)) return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sinew_bbw_pose_destroy(fx.pose);
    sinew_bbw_destroy(fx.bbw);
    sinew_bbw_destroy(fx.unsolved);
    sinew_context_destroy(fx.ctx);
    return 0;
}

/* Identity transforms in the output area, before the snapshot: they are the
 * warm start and the fixed transforms the cases read. */
static void prepare(void)
{
    float *t = OUT_F;
    memset(t, 0, HANDLES * 16 * sizeof(float));
    for (int j = 0; j < HANDLES; ++j) t[16 * j] = t[16 * j + 5] = t[16 * j + 10] = t[16 * j + 15] = 1.0f;
}

static uint64_t fingerprint(void)
{
    sinew_bbw_pose_info info;
    SINEW_INIT(&info);
    if (sinew_bbw_pose_get_info(fx.pose, &info)) return 0;
    return contract_hash(CONTRACT_HASH_SEED, &info, sizeof info);
}

/* ---- create ---- */

typedef void (*desc_edit)(sinew_bbw_pose_desc *d, sinew_trimesh *domain);

static sinew_result create_edited(sinew_context *ctx, desc_edit edit)
{
    sinew_trimesh domain = fx.domain;
    sinew_bbw_pose_desc d = base_desc(&domain);
    if (edit) edit(&d, &domain);
    sinew_result r = sinew_bbw_pose_create(ctx, &d, OUT_HANDLE(sinew_bbw_pose));
    if (r == SINEW_OK) sinew_bbw_pose_destroy(*OUT_HANDLE(sinew_bbw_pose));
    return r;
}

static const sinew_tetmesh no_tets = {{NULL, 0, 0}, NULL, 0, SINEW_INDEX_U32, 0};
static float weights_bad[VERTICES * HANDLES];
static float grid_bad[VERTICES * 3];
static uint32_t triangles_bad[TRIANGLES * 3];
static const uint32_t slots[VERTICES] = {0};
static uint32_t slots_bad[VERTICES];

#define EDIT(name, statement) \
    static void name(sinew_bbw_pose_desc *d, sinew_trimesh *domain) \
    { \
        (void)d, (void)domain; \
        statement; \
    }
EDIT(no_domain, d->triangles = NULL)
EDIT(two_domains, d->tets = &no_tets)
EDIT(no_handles, d->handle_count = 0)
EDIT(no_weights, d->weights = NULL)
EDIT(two_layouts, d->influence_count = 1; d->influence_handles = slots; d->influence_weights = weights)
EDIT(sparse_incomplete, d->weights = NULL; d->influence_count = 1; d->influence_handles = slots)
EDIT(weights_misaligned, d->weights = MISALIGNED(float, weights_bad))
EDIT(weight_nan, memcpy(weights_bad, weights, sizeof weights); weights_bad[2 * 3 + 1] = NAN; d->weights = weights_bad)
EDIT(weight_sum, memcpy(weights_bad, weights, sizeof weights); weights_bad[2 * 3] += 0.25f; d->weights = weights_bad)
EDIT(sparse_one_handle, d->weights = NULL; d->influence_count = 1; d->influence_handles = slots;
     d->influence_weights = ones)
EDIT(sparse_handle_out_of_range, d->weights = NULL; d->influence_count = 1; d->influence_handles = slots_bad;
     d->influence_weights = ones; slots_bad[4] = HANDLES)
EDIT(vertex_nan, memcpy(grid_bad, grid, sizeof grid); grid_bad[3 * 7 + 1] = NAN; domain->positions.data = grid_bad)
EDIT(index_out_of_range, memcpy(triangles_bad, triangles, sizeof triangles); triangles_bad[3 * 5 + 2] = VERTICES;
     domain->indices = triangles_bad)
EDIT(triangle_degenerate, memcpy(triangles_bad, triangles, sizeof triangles);
     triangles_bad[3 * 5 + 2] = triangles_bad[3 * 5 + 1]; domain->indices = triangles_bad)
EDIT(triangles_size_max_3, domain->triangle_count = SIZE_MAX / 3)
EDIT(bad_transform, d->transform = (sinew_bbw_pose_transform)2)
EDIT(per_element_clusters, d->cluster_count = 1000)
EDIT(similarity, d->transform = SINEW_BBW_POSE_SIMILARITY)

static sinew_result create_cancelled(void)
{
    cancelling = 1;
    sinew_result r = create_edited(fx.ctx, NULL);
    cancelling = 0;
    return r;
}

static sinew_result create_null_out(void)
{
    sinew_trimesh domain = fx.domain;
    sinew_bbw_pose_desc d = base_desc(&domain);
    return sinew_bbw_pose_create(NULL, &d, NULL);
}

static sinew_result create_struct_size(size_t size)
{
    sinew_trimesh domain = fx.domain;
    sinew_bbw_pose_desc d = base_desc(&domain);
    d.struct_size = size;
    return sinew_bbw_pose_create(NULL, &d, OUT_HANDLE(sinew_bbw_pose));
}

static sinew_result from_bbw(const sinew_bbw *b, int with_domain)
{
    sinew_bbw_pose_desc o;
    SINEW_INIT(&o);
    if (with_domain) o.triangles = &fx.domain;
    sinew_result r = sinew_bbw_pose_create_from_bbw(NULL, b, &o, OUT_HANDLE(sinew_bbw_pose));
    if (r == SINEW_OK) sinew_bbw_pose_destroy(*OUT_HANDLE(sinew_bbw_pose));
    return r;
}

static sinew_result scratch_sizes(void)
{
    assert_int_equal(sinew_bbw_pose_scratch_size(NULL, 1), 0);
    assert_true(sinew_bbw_pose_scratch_size(fx.pose, 2) > sinew_bbw_pose_scratch_size(fx.pose, 0));
    assert_int_equal(sinew_bbw_pose_scratch_size(fx.pose, SIZE_MAX), SIZE_MAX);
    return SINEW_OK;
}

/* ---- solve ---- */

static const uint8_t fix_first[HANDLES] = {1, 0};

static sinew_result solve_full(const sinew_bbw_pose *pose, const sinew_bbw_pose_position *pos, size_t n,
                               const uint8_t *fixed, float *t, size_t floats, void *scratch, size_t bytes,
                               sinew_bbw_pose_report *report)
{
    sinew_bbw_pose_solve_desc sd;
    SINEW_INIT(&sd);
    sd.positions = pos;
    sd.position_count = n;
    sd.fixed = fixed;
    return sinew_bbw_pose_solve(pose, &sd, t, floats, scratch, bytes, report);
}

/* Handle 1 (at (1, 1)) dragged to `target_y`, handle 0 held at its place. */
static sinew_result solve_drag(uint32_t handle, float target_y, const uint8_t *fixed, float *t)
{
    sinew_bbw_pose_position pos[2] = {{0, {0, 0, 0}, {0, 0, 0}}, {handle, {1, 1, 0}, {1.2f, target_y, 0}}};
    if (fixed) return solve_full(fx.pose, pos + 1, 1, fixed, t, 32, work, sizeof work, NULL);
    return solve_full(fx.pose, pos, 2, NULL, t, 32, work, sizeof work, NULL);
}

/* Handle 0 held at the origin, with the given call arguments. */
static sinew_result solve_pinned(const sinew_bbw_pose *pose, size_t floats, void *scratch, size_t bytes)
{
    sinew_bbw_pose_position p = {0, {0, 0, 0}, {0, 0, 0}};
    return solve_full(pose, &p, 1, NULL, OUT_F, floats, scratch, bytes, NULL);
}

static sinew_result solve_twice_same_point(void)
{
    sinew_bbw_pose_position pos[2] = {{0, {0, 0, 0}, {0, 0, 0}}, {0, {0, 0, 0}, {0, 0, 0}}};
    return solve_full(fx.pose, pos, 2, NULL, OUT_F, 32, work, sizeof work, NULL);
}

static sinew_result solve_with_desc_size(size_t size)
{
    sinew_bbw_pose_solve_desc sd;
    SINEW_INIT(&sd);
    sd.struct_size = size;
    return sinew_bbw_pose_solve(fx.pose, &sd, OUT_F, 32, work, sizeof work, NULL);
}

static sinew_result solve_report_size(size_t size)
{
    sinew_bbw_pose_report *rep = OUT_STRUCT(sinew_bbw_pose_report, 1024);
    rep->struct_size = size;
    contract_resnapshot();
    sinew_bbw_pose_position pos = {1, {1, 1, 0}, {1, 2, 0}};
    return solve_full(fx.pose, &pos, 1, fix_first, OUT_F, 32, work, sizeof work, rep);
}

static sinew_result solve_not_affine(void)
{
    OUT_F[15] = 0.5f;
    contract_resnapshot();
    return solve_drag(1, 2, fix_first, OUT_F);
}

static sinew_result solve_warm_nan(void)
{
    OUT_F[16 + 5] = NAN;
    contract_resnapshot();
    return solve_drag(1, 2, NULL, OUT_F);
}

/* ---- energy ---- */

static sinew_result energy_of(const float *t, size_t floats, size_t bytes, double *out)
{
    return sinew_bbw_pose_energy(fx.pose, t, floats, work, bytes, out);
}

static sinew_result energy_not_affine(void)
{
    OUT_F[16 + 7] = 1.0f;
    contract_resnapshot();
    return energy_of(OUT_F, 32, sizeof work, SCRATCH(double, 2048));
}

#define CASES(X) \
    /* create */ \
    X(create_null_desc, INVALID_ARGUMENT, "desc", { return sinew_bbw_pose_create(NULL, NULL, OUT_HANDLE(sinew_bbw_pose)); }) \
    X(create_null_out, INVALID_ARGUMENT, "out", { return create_null_out(); }) \
    X(create_struct_size_0, INVALID_ARGUMENT, "SINEW_INIT", { return create_struct_size(0); }) \
    X(create_no_domain, INVALID_ARGUMENT, "domain", { return create_edited(NULL, no_domain); }) \
    X(create_two_domains, INVALID_ARGUMENT, "domain", { return create_edited(NULL, two_domains); }) \
    X(create_no_handles, INVALID_ARGUMENT, "handle_count", { return create_edited(NULL, no_handles); }) \
    X(create_no_weights, INVALID_ARGUMENT, "weight layout", { return create_edited(NULL, no_weights); }) \
    X(create_two_layouts, INVALID_ARGUMENT, "weight layout", { return create_edited(NULL, two_layouts); }) \
    X(create_sparse_incomplete, INVALID_ARGUMENT, "influence_weights", { return create_edited(NULL, sparse_incomplete); }) \
    X(create_weights_misaligned, INVALID_ARGUMENT, "aligned", { return create_edited(NULL, weights_misaligned); }) \
    X(create_weight_nan, NON_FINITE, "weight 1 of vertex 3", { return create_edited(NULL, weight_nan); }) \
    X(create_weight_sum, INVALID_WEIGHTS, "vertex 3", { return create_edited(NULL, weight_sum); }) \
    X(create_sparse_handle_out_of_range, INDEX_OUT_OF_RANGE, "influence slot 0 of vertex 4 names handle 2", \
      { return create_edited(NULL, sparse_handle_out_of_range); }) \
    X(create_sparse_ok, OK, NULL, { return create_edited(NULL, sparse_one_handle); }) \
    X(create_vertex_nan, NON_FINITE, "7", { return create_edited(NULL, vertex_nan); }) \
    X(create_index_out_of_range, INDEX_OUT_OF_RANGE, "triangle 5", { return create_edited(NULL, index_out_of_range); }) \
    X(create_triangle_degenerate, DEGENERATE, "triangle 5", { return create_edited(NULL, triangle_degenerate); }) \
    X(create_triangles_size_max_3, SIZE_OVERFLOW, "triangle", { return create_edited(NULL, triangles_size_max_3); }) \
    X(create_bad_transform, INVALID_ARGUMENT, "transform 2", { return create_edited(NULL, bad_transform); }) \
    X(create_cancelled, CANCELLED, "bbw pose: clusters", { return create_cancelled(); }) \
    X(create_ok, OK, NULL, { return create_edited(NULL, NULL); }) \
    X(create_per_element_ok, OK, NULL, { return create_edited(NULL, per_element_clusters); }) \
    X(create_similarity_ok, OK, NULL, { return create_edited(NULL, similarity); }) \
    /* create from a bbw */ \
    X(from_bbw_null, INVALID_ARGUMENT, "bbw is NULL", { return from_bbw(NULL, 0); }) \
    X(from_bbw_unsolved, INVALID_STATE, "not solved", { return from_bbw(fx.unsolved, 0); }) \
    X(from_bbw_options_with_domain, INVALID_ARGUMENT, "desc must leave", { return from_bbw(fx.bbw, 1); }) \
    X(from_bbw_null_out, INVALID_ARGUMENT, "out", { return sinew_bbw_pose_create_from_bbw(NULL, fx.bbw, NULL, NULL); }) \
    X(from_bbw_ok, OK, NULL, { return from_bbw(fx.bbw, 0); }) \
    /* info and scratch size */ \
    X(info_null_pose, INVALID_ARGUMENT, "pose", \
      { return sinew_bbw_pose_get_info(NULL, OUT_STRUCT(sinew_bbw_pose_info, 1024)); }) \
    X(info_null, INVALID_ARGUMENT, "info", { return sinew_bbw_pose_get_info(fx.pose, NULL); }) \
    X(info_ok, OK, NULL, { sinew_clear_error(); return sinew_bbw_pose_get_info(fx.pose, OUT_STRUCT(sinew_bbw_pose_info, 1024)); }) \
    X(scratch_size, PLAIN, NULL, { return scratch_sizes(); }) \
    /* solve */ \
    X(solve_null_pose, INVALID_ARGUMENT, "pose", \
      { return solve_pinned(NULL, 32, work, sizeof work); }) \
    X(solve_null_desc, INVALID_ARGUMENT, "desc", \
      { return sinew_bbw_pose_solve(fx.pose, NULL, OUT_F, 32, work, sizeof work, NULL); }) \
    X(solve_desc_struct_size_0, INVALID_ARGUMENT, "SINEW_INIT", { return solve_with_desc_size(0); }) \
    X(solve_null_transforms, INVALID_ARGUMENT, "transforms", { return solve_drag(1, 2, NULL, NULL); }) \
    X(solve_misaligned_transforms, INVALID_ARGUMENT, "aligned", { return solve_drag(1, 2, NULL, MISALIGNED(float, OUT_F)); }) \
    X(solve_transform_floats, MISMATCH, "transform_floats is 31", \
      { return solve_pinned(fx.pose, 31, work, sizeof work); }) \
    X(solve_null_scratch, INVALID_ARGUMENT, "scratch", \
      { return solve_pinned(fx.pose, 32, NULL, sizeof work); }) \
    X(solve_scratch_small, BUFFER_TOO_SMALL, "needs", \
      { return solve_pinned(fx.pose, 32, work, 64); }) \
    X(solve_null_positions, INVALID_ARGUMENT, "positions is NULL", \
      { return solve_full(fx.pose, NULL, 2, NULL, OUT_F, 32, work, sizeof work, NULL); }) \
    X(solve_target_nan, NON_FINITE, "position 1 has a non-finite target y", { return solve_drag(1, NAN, NULL, OUT_F); }) \
    X(solve_handle_out_of_range, INDEX_OUT_OF_RANGE, "position 1 names handle 2", { return solve_drag(2, 2, NULL, OUT_F); }) \
    X(solve_no_constraint, INVALID_ARGUMENT, "no constraint", \
      { return solve_full(fx.pose, NULL, 0, NULL, OUT_F, 32, work, sizeof work, NULL); }) \
    X(solve_position_on_fixed, INVALID_ARGUMENT, "whose transform is fixed", { return solve_drag(0, 2, fix_first, OUT_F); }) \
    X(solve_fixed_not_affine, INVALID_ARGUMENT, "not affine", { return solve_not_affine(); }) \
    X(solve_warm_start_nan, NON_FINITE, "warm-start transform of handle 1", { return solve_warm_nan(); }) \
    X(solve_repeated_position, DEGENERATE, "position 1 (handle 0) repeats", { return solve_twice_same_point(); }) \
    X(solve_report_struct_size_0, INVALID_ARGUMENT, "report", { return solve_report_size(0); }) \
    X(solve_ok, OK, NULL, { return solve_drag(1, 2, NULL, OUT_F); }) \
    X(solve_fixed_ok, OK, NULL, { return solve_drag(1, 2, fix_first, OUT_F); }) \
    X(solve_report_ok, OK, NULL, { return solve_report_size(sizeof(sinew_bbw_pose_report)); }) \
    /* energy */ \
    X(energy_null_pose, INVALID_ARGUMENT, "pose", \
      { return sinew_bbw_pose_energy(NULL, OUT_F, 32, work, sizeof work, SCRATCH(double, 2048)); }) \
    X(energy_null_out, INVALID_ARGUMENT, "energy", { return energy_of(OUT_F, 32, sizeof work, NULL); }) \
    X(energy_null_transforms, INVALID_ARGUMENT, "transforms", { return energy_of(NULL, 32, sizeof work, SCRATCH(double, 2048)); }) \
    X(energy_mismatch, MISMATCH, "transform_floats is 48", { return energy_of(OUT_F, 48, sizeof work, SCRATCH(double, 2048)); }) \
    X(energy_scratch_small, BUFFER_TOO_SMALL, "needs", { return energy_of(OUT_F, 32, 8, SCRATCH(double, 2048)); }) \
    X(energy_not_affine, INVALID_ARGUMENT, "not affine", { return energy_not_affine(); }) \
    X(energy_ok, OK, NULL, { return energy_of(OUT_F, 32, sizeof work, SCRATCH(double, 2048)); })

CASES(CONTRACT_DEFINE)
static const contract_case cases[] = {CASES(CONTRACT_ENTRY)};

int main(void)
{
    static const contract_hooks hooks = {setup, teardown, prepare, fingerprint};
    return contract_run("contract-bbw-pose", cases, sizeof cases / sizeof cases[0], &hooks);
}
