/*
 * Fuzz target: bounded biharmonic weights. Builds a triangle (2D), tet (3D) or
 * automatic voxel domain (closed or open surface) from a small jittered grid
 * or raw fuzzed elements, with point, bone and cage handles, solves with a
 * small iteration cap and fuzzed options (partition, tolerance, shape mask,
 * penalty), then queries domain data, vertex weights, point weights and top-k.
 */
#include <math.h>

#include "fuzz.h"

/* Largest domain (vertices) whose weights the target solves. */
#define FUZZ_BBW_SOLVE_VERTICES 400u

/* Grid vertices over [0, 1]^dim (z = 0 in 2D), n per axis, jittered a little
 * (sometimes a lot). */
static float *grid_vertices(fz_reader *r, uint32_t n[3], size_t *count)
{
    *count = (size_t)n[0] * n[1] * n[2];
    float *p = fz_alloc(3 * *count * sizeof *p);
    size_t v = 0;
    for (uint32_t k = 0; k < n[2]; k++)
        for (uint32_t j = 0; j < n[1]; j++)
            for (uint32_t i = 0; i < n[0]; i++, v++) {
                uint32_t at[3] = {i, j, k};
                for (int a = 0; a < 3; a++) {
                    float base = n[a] > 1 ? (float)at[a] / (float)(n[a] - 1) : 0.0f;
                    uint8_t b = fz_u8(r);
                    p[3 * v + a] = b < 200 ? base + (float)((int)(b % 9) - 4) * 0.01f : b < 250 ? base : fz_float(r);
                }
            }
    return p;
}

static sinew_trimesh *triangle_domain(fz_reader *r)
{
    sinew_trimesh *m = fz_alloc(sizeof *m);
    uint32_t n[3] = {fz_range(r, 2, 5), fz_range(r, 2, 5), 1};
    size_t count;
    float *p = grid_vertices(r, n, &count);
    size_t tris = 2 * (size_t)(n[0] - 1) * (n[1] - 1);
    uint32_t *idx = fz_alloc(3 * tris * sizeof *idx);
    size_t t = 0;
    for (uint32_t j = 0; j + 1 < n[1]; j++)
        for (uint32_t i = 0; i + 1 < n[0]; i++) {
            uint32_t a = j * n[0] + i, b = a + 1, c = a + n[0], d = c + 1;
            uint32_t q[6] = {a, b, d, a, d, c};
            for (int k = 0; k < 6; k++) idx[3 * t + k] = q[k];
            t += 2;
        }
    if (fz_u8(r) >= 240) idx[fz_range(r, 0, (uint32_t)(3 * tris - 1))] = fz_index(r, count);
    *m = (sinew_trimesh){.positions = {.data = p, .count = count}, .indices = idx, .triangle_count = tris};
    return m;
}

static float det3(const float *p, const uint32_t *t)
{
    const float *a = p + 3 * t[0], *b = p + 3 * t[1], *c = p + 3 * t[2], *d = p + 3 * t[3];
    float u[3], v[3], w[3];
    for (int k = 0; k < 3; k++) u[k] = b[k] - a[k], v[k] = c[k] - a[k], w[k] = d[k] - a[k];
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0]);
}

static sinew_tetmesh *tet_domain(fz_reader *r)
{
    sinew_tetmesh *m = fz_alloc(sizeof *m);
    uint32_t n[3] = {fz_range(r, 2, 3), fz_range(r, 2, 3), fz_range(r, 2, 3)};
    size_t count;
    float *p = grid_vertices(r, n, &count);
    size_t cubes = (size_t)(n[0] - 1) * (n[1] - 1) * (n[2] - 1);
    uint32_t *idx = fz_alloc(4 * 6 * cubes * sizeof *idx);
    /* Kuhn split of each cube into six tets along its main diagonal 0-7. */
    static const int kuhn[6][4] = {{0, 1, 3, 7}, {0, 3, 2, 7}, {0, 2, 6, 7}, {0, 6, 4, 7}, {0, 4, 5, 7}, {0, 5, 1, 7}};
    size_t t = 0;
    for (uint32_t k = 0; k + 1 < n[2]; k++)
        for (uint32_t j = 0; j + 1 < n[1]; j++)
            for (uint32_t i = 0; i + 1 < n[0]; i++) {
                uint32_t corner[8];
                for (int c = 0; c < 8; c++)
                    corner[c] = (i + (c & 1)) + n[0] * ((j + ((c >> 1) & 1)) + n[1] * (k + ((c >> 2) & 1)));
                for (int s = 0; s < 6; s++, t++) {
                    for (int c = 0; c < 4; c++) idx[4 * t + c] = corner[kuhn[s][c]];
                    /* Positive orientation unless the input asks for a flipped tet. */
                    if ((det3(p, idx + 4 * t) < 0.0f) != (fz_u8(r) >= 250)) {
                        uint32_t tmp = idx[4 * t + 1];
                        idx[4 * t + 1] = idx[4 * t + 2];
                        idx[4 * t + 2] = tmp;
                    }
                }
            }
    if (fz_u8(r) >= 240) idx[fz_range(r, 0, (uint32_t)(4 * t - 1))] = fz_index(r, count);
    *m = (sinew_tetmesh){.positions = {.data = p, .count = count}, .indices = idx, .tet_count = t};
    return m;
}

/* The unit cube's surface (12 triangles), sometimes with faces left out (open). */
static sinew_trimesh *surface_domain(fz_reader *r)
{
    sinew_trimesh *m = fz_alloc(sizeof *m);
    uint32_t n[3] = {2, 2, 2};
    size_t count;
    float *p = grid_vertices(r, n, &count);
    static const uint32_t faces[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                          {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
    size_t drop = fz_u8(r) < 220 ? 0 : fz_range(r, 1, 11);
    uint32_t *idx = fz_alloc(3 * 12 * sizeof *idx);
    for (size_t t = 0; t < 12; t++)
        for (int c = 0; c < 3; c++) idx[3 * t + c] = faces[t][c];
    if (fz_u8(r) >= 240) idx[fz_range(r, 0, 35)] = fz_index(r, count);
    *m = (sinew_trimesh){.positions = {.data = p, .count = count}, .indices = idx, .triangle_count = 12 - drop};
    return m;
}

/* A handle position: inside [0, 1]^3 mostly, anywhere sometimes. */
static float handle_coord(fz_reader *r)
{
    return fz_u8(r) < 230 ? fz_param(r, 0.0f, 1.0f) : fz_float(r);
}

static void handles(fz_reader *r, sinew_bbw_desc *desc, bool planar)
{
    desc->points.count = fz_range(r, 0, 4);
    float *points = fz_alloc(3 * desc->points.count * sizeof *points);
    for (size_t i = 0; i < 3 * desc->points.count; i++) points[i] = planar && i % 3 == 2 ? 0.0f : handle_coord(r);
    desc->points.data = points;
    if (fz_bool(r)) {
        desc->joint_positions.count = fz_range(r, 0, 4);
        float *joints = fz_alloc(3 * desc->joint_positions.count * sizeof *joints);
        for (size_t i = 0; i < 3 * desc->joint_positions.count; i++) joints[i] = planar && i % 3 == 2 ? 0.0f : handle_coord(r);
        desc->joint_positions.data = joints;
        desc->bone_count = fz_range(r, 0, 3);
        desc->bones = fz_indices(r, 2 * desc->bone_count, desc->joint_positions.count);
    }
    if (fz_u8(r) >= 200) {
        desc->cage_count = 1;
        sinew_bbw_cage *cage = fz_alloc(sizeof *cage);
        size_t n = fz_range(r, 0, 4);
        float *v = fz_alloc(3 * n * sizeof *v);
        for (size_t i = 0; i < 3 * n; i++) v[i] = planar && i % 3 == 2 ? 0.0f : handle_coord(r);
        cage->vertices = (sinew_points){.data = v, .count = n};
        cage->edge_count = fz_range(r, 0, 4);
        cage->edges = fz_indices(r, 2 * cage->edge_count, n);
        cage->triangle_count = fz_u8(r) < 200 ? 0 : fz_range(r, 1, 2);
        cage->triangles = fz_indices(r, 3 * cage->triangle_count, n);
        desc->cages = cage;
    }
    desc->handle_tolerance = fz_u8(r) < 200 ? 0.0f : fz_param(r, -0.1f, 0.5f);
    desc->point_placement = fz_u8(r) < 160 ? SINEW_BBW_PLACE_SNAP : fz_range(r, 0, 2);  /* 2: INVALID_ARGUMENT */
    desc->volume_flags = fz_u8(r) < 200 ? 0u : fz_range(r, 0, 3);                     /* 2, 3: INVALID_ARGUMENT */
}

static void queries(fz_reader *r, const sinew_bbw *bbw, const sinew_bbw_info *info)
{
    size_t h = info->handle_count, nv = info->vertex_count;
    size_t first, count;
    fz_call c;
    for (int steps = fz_range(r, 1, 4); steps > 0; steps--) {
        switch (fz_u8(r) % 5) {
        case 0: {
            size_t stride = fz_stride(r, 12);
            fz_subrange(r, nv, &first, &count);
            /* Outputs are indexed by element number: [0, first + count) (none past the domain). */
            size_t bytes = first <= nv ? fz_span(first + (count < nv ? count : nv), stride, 12) : 0;
            float *out = fz_alloc(bytes);
            fz_call_begin(&c, "sinew_bbw_domain_vertices");
            fz_call_out(&c, out, bytes, true);
            fz_call_end(&c, sinew_bbw_domain_vertices(bbw, out, stride, first, count), fz_finite(r));
            break;
        }
        case 1: {
            fz_subrange(r, info->element_count, &first, &count);
            size_t per = 4;   /* room for tets; triangles leave the last quarter untouched */
            size_t n = count < info->element_count ? count : info->element_count;
            size_t rows = first <= info->element_count ? first + n : 0;
            uint32_t *out = fz_alloc(per * rows * sizeof *out);
            fz_call_begin(&c, "sinew_bbw_domain_elements");
            fz_call_out(&c, out, per * rows * sizeof *out, false);
            if (fz_call_end(&c, sinew_bbw_domain_elements(bbw, out, first, count), 0) == SINEW_OK) {
                for (size_t i = 0; i < per * rows; i++)
                    fz_require(out[i] < nv || out[i] == 0xa5a5a5a5u, "sinew_bbw_domain_elements",
                               "an element index out of range");
            }
            break;
        }
        case 2: {
            fz_subrange(r, nv, &first, &count);
            size_t n = count < nv ? count : nv;
            size_t rows = first <= nv ? first + n : 0;
            float *out = fz_alloc(rows * h * sizeof *out);
            fz_call_begin(&c, "sinew_bbw_vertex_weights");
            fz_call_out(&c, out, rows * h * sizeof *out, true);
            if (fz_call_end(&c, sinew_bbw_vertex_weights(bbw, out, first, count), fz_finite(r)) == SINEW_OK) {
                for (size_t i = first * h; i < rows * h; i++)
                    fz_require(out[i] >= -1e-4f && out[i] <= 1.0001f, "sinew_bbw_vertex_weights",
                               "a weight outside [0, 1]");
            }
            break;
        }
        default: {
            sinew_points pts = fz_points(r, fz_range(r, 0, 8));
            for (size_t i = 0; i < pts.count && (pts.stride == 0 || pts.stride == 12); i++)
                for (int k = 0; k < 3; k++)
                    if (fz_u8(r) < 230) ((float *)pts.data)[3 * i + k] = fz_param(r, -0.05f, 1.05f);
            fz_subrange(r, pts.count, &first, &count);
            size_t n = count < pts.count ? count : pts.count;
            /* Outputs are indexed by point number: rows [0, first + n) (none past the view). */
            size_t rows = first <= pts.count ? first + n : 0;
            if (fz_bool(r)) {
                float *out = fz_alloc(rows * h * sizeof *out);
                fz_call_begin(&c, "sinew_bbw_point_weights");
                fz_call_out(&c, out, rows * h * sizeof *out, true);
                fz_call_end(&c, sinew_bbw_point_weights(bbw, &pts, out, first, count), fz_finite(r));
            } else {
                uint32_t k = fz_u8(r) < 240 ? fz_range(r, 1, 8) : fz_range(r, 0, 70);
                bool domain = fz_u8(r) >= 200;
                if (domain) {
                    n = count < nv ? count : nv;
                    rows = first <= nv ? first + n : 0;
                }
                uint32_t *joints = fz_alloc(rows * k * sizeof *joints);
                float *weights = fz_alloc(rows * k * sizeof *weights);
                fz_call_begin(&c, "sinew_bbw_top_k");
                fz_call_out(&c, joints, rows * k * sizeof *joints, false);
                fz_call_out(&c, weights, rows * k * sizeof *weights, true);
                if (fz_call_end(&c, sinew_bbw_top_k(bbw, domain ? NULL : &pts, k, joints, weights, first, count),
                                fz_finite(r)) == SINEW_OK) {
                    for (size_t i = first * k; i < rows * k; i++)
                        fz_require(joints[i] < h || weights[i] == 0.0f, "sinew_bbw_top_k",
                                   "a joint out of range with a weight");
                }
            }
            break;
        }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader r;
    fz_begin(&r, data, size);
    sinew_context *ctx = fz_context(&r);
    sinew_bbw_desc desc;
    SINEW_INIT(&desc);
    uint8_t domain = fz_u8(&r) % 3;
    if (domain == 0) desc.triangles = triangle_domain(&r);
    else if (domain == 1) desc.tets = tet_domain(&r);
    /* At most 5 cells: the volume is graded near the handles, and a few cells
     * already reach thousands of tets. */
    else desc.surface = surface_domain(&r), desc.grid_resolution = fz_range(&r, 1, 5);
    if (fz_u8(&r) >= 250) desc.tets = tet_domain(&r);   /* two domains: INVALID_ARGUMENT */
    handles(&r, &desc, domain == 0);

    sinew_bbw *bbw;
    fz_call c;
    fz_call_begin(&c, "sinew_bbw_create");
    fz_call_handle(&c, &bbw);
    sinew_result res = fz_call_end(&c, sinew_bbw_create(ctx, &desc, &bbw), 0);
    if (fz_bool(&r)) {
        sinew_context_destroy(ctx);
        ctx = NULL;
    }
    if (res == SINEW_OK) {
        sinew_bbw_info info;
        SINEW_INIT(&info);
        fz_call_begin(&c, "sinew_bbw_get_info");
        fz_call_end(&c, sinew_bbw_get_info(bbw, &info), 0);
        fz_require(info.max_snap_distance >= 0.0 && isfinite(info.max_snap_distance), "sinew_bbw_create",
                   "a snap distance that is negative or not finite");
        fz_require(desc.surface ? info.grid_resolution > 0 && info.finest_cell_size > 0.0 &&
                                      info.finest_cell_size <= info.grid_cell_size
                                : info.grid_resolution == 0 && info.refined_cell_count == 0,
                   "sinew_bbw_create", "volume figures that do not fit the domain");
        /* Graded volumes near close handles reach a few thousand vertices,
         * whose solve takes seconds under the sanitizers and coverage: the
         * solve is fuzzed on smaller domains (the tests solve large ones),
         * and the queries then meet an unsolved handle. */
        bool solve_it = info.vertex_count <= FUZZ_BBW_SOLVE_VERTICES;
        sinew_bbw_solve_desc solve;
        SINEW_INIT(&solve);
        solve.partition = (sinew_bbw_partition)fz_enum(&r, 2);
        uint8_t t = fz_u8(&r);
        solve.tolerance = t < 240 ? pow(10.0, -(double)(t % 8)) : (t & 1u) ? -1.0 : NAN;
        solve.max_iterations = fz_range(&r, 1, 40);   /* 0 would mean 5000 */
        if (fz_u8(&r) >= 220) {
            solve.shape_mask_count = fz_u8(&r) < 240 ? info.element_count : fz_range(&r, 0, 4);
            float *mask = fz_alloc(solve.shape_mask_count * sizeof *mask);
            for (size_t i = 0; i < solve.shape_mask_count; i++) mask[i] = fz_weight(&r);
            solve.shape_mask = mask;
            solve.shape_strength = fz_u8(&r) < 128 ? 0.0 : (double)fz_param(&r, -1.0f, 10.0f);
        }
        solve.penalty = fz_u8(&r) < 200 ? 0.0 : (double)fz_param(&r, -0.1f, 2.0f);
        /* Given meshes: INVALID_STATE; these volumes are below the cascade's floor. */
        solve.coarse_levels = fz_u8(&r) < 230 ? 0u : fz_range(&r, 1, 3);
        if (solve_it) {
            fz_call_begin(&c, "sinew_bbw_solve");
            res = fz_call_end(&c, sinew_bbw_solve(NULL, bbw, &solve), 0);
        } else {
            res = SINEW_ERROR_INVALID_STATE;
        }
        fz_call_begin(&c, "sinew_bbw_get_info");
        fz_call_end(&c, sinew_bbw_get_info(bbw, &info), 0);
        fz_require((res == SINEW_OK || res == SINEW_ERROR_NOT_CONVERGED) == (info.solved != 0), "sinew_bbw_solve",
                   "info.solved disagrees with the result");
        queries(&r, bbw, &info);
        sinew_bbw_destroy(bbw);
    }
    sinew_context_destroy(ctx);
    fz_end();
    return 0;
}
