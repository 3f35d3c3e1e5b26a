/*
 * sinew._sinew: bounded biharmonic weights (sinew/bbw.h): create over a
 * triangle, tet or automatic voxel domain with point, bone and cage handles,
 * solve with progress and cancellation, the domain, weights at vertices and
 * points, and top-k influences in the skinning layout. Save and load go
 * through the module's generic save/load. python/sinew/bbw.py is the
 * friendly layer.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

#define BBW_ENTER(obj, writer) ((sinew_bbw *)sn_py_handle_enter((obj), SINEW_KIND_BBW, "bbw", (writer)))

enum { DOMAIN_TRIANGLES = 0, DOMAIN_TETS = 1, DOMAIN_SURFACE = 2 };

/* The arrays of the cages, kept alive through sinew_bbw_create. */
typedef struct cage_arrays {
    sn_py_array vertices, edges, triangles;
} cage_arrays;

static void cages_release(cage_arrays *arrays, sinew_bbw_cage *cages, size_t count)
{
    for (size_t c = 0; arrays && c < count; ++c) {
        sn_py_array_release(&arrays[c].vertices);
        sn_py_array_release(&arrays[c].edges);
        sn_py_array_release(&arrays[c].triangles);
    }
    PyMem_Free(arrays);
    PyMem_Free(cages);
}

/* Converts a sequence of (vertices, edges or None, triangles or None) into
 * cage views; 0 or -1 with an exception naming the cage. */
static int cages_in(PyObject *list, cage_arrays **arrays_out, sinew_bbw_cage **cages_out, size_t *count_out)
{
    *arrays_out = NULL;
    *cages_out = NULL;
    *count_out = 0;
    if (list == Py_None) return 0;
    PyObject *seq = PySequence_Fast(list, "cages must be a sequence of (vertices, edges, triangles)");
    if (!seq) return -1;
    size_t count = (size_t)PySequence_Fast_GET_SIZE(seq);
    cage_arrays *arrays = count ? PyMem_Calloc(count, sizeof *arrays) : NULL;
    sinew_bbw_cage *cages = count ? PyMem_Calloc(count, sizeof *cages) : NULL;
    if (count && (!arrays || !cages)) {
        PyMem_Free(arrays);
        PyMem_Free(cages);
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (size_t c = 0; c < count; ++c) arrays[c] = (cage_arrays){SN_PY_ARRAY_INIT, SN_PY_ARRAY_INIT, SN_PY_ARRAY_INIT};
    for (size_t c = 0; c < count; ++c) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)c), *v, *e = Py_None, *t = Py_None;
        char name[3][48];
        snprintf(name[0], sizeof name[0], "cage %zu vertices", c);
        snprintf(name[1], sizeof name[1], "cage %zu edges", c);
        snprintf(name[2], sizeof name[2], "cage %zu triangles", c);
        if (!PyTuple_Check(item) || !PyArg_ParseTuple(item, "O|OO", &v, &e, &t)) {
            if (!PyErr_Occurred())
                sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "cage %zu must be a tuple (vertices, edges, triangles)",
                                c);
            goto fail;
        }
        if (sn_py_floats_in(v, name[0], SN_PY_ANY, 3, SN_PY_STRIDED, &arrays[c].vertices) < 0 ||
            sn_py_uint32_in(e, name[1], SN_PY_ANY, 2, SN_PY_OPTIONAL, &arrays[c].edges) < 0 ||
            sn_py_uint32_in(t, name[2], SN_PY_ANY, 3, SN_PY_OPTIONAL, &arrays[c].triangles) < 0)
            goto fail;
        cages[c].vertices = sn_py_points(&arrays[c].vertices);
        cages[c].edges = arrays[c].edges.data;
        cages[c].edge_count = arrays[c].edges.array ? arrays[c].edges.rows : 0;
        cages[c].triangles = arrays[c].triangles.data;
        cages[c].triangle_count = arrays[c].triangles.array ? arrays[c].triangles.rows : 0;
    }
    Py_DECREF(seq);
    *arrays_out = arrays;
    *cages_out = cages;
    *count_out = count;
    return 0;
fail:
    Py_DECREF(seq);
    cages_release(arrays, cages, count);
    return -1;
}

/* (domain_kind, vertices, elements, grid_resolution=0, points=None,
 *  joint_positions=None, bones=None, cages=None, handle_tolerance=0,
 *  progress=None, handle_outside=0) -> bbw handle. domain_kind: 0 triangles (2D), 1 tets, 2 surface. */
static PyObject *py_bbw_create(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"domain_kind", "vertices", "elements", "grid_resolution", "points", "joint_positions",
                             "bones", "cages", "handle_tolerance", "progress", "handle_outside", NULL};
    int kind;
    PyObject *vertices_obj, *elements_obj, *points_obj = Py_None, *joints_obj = Py_None, *bones_obj = Py_None,
             *cages_obj = Py_None, *progress = Py_None;
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&OO|O&OOOOfOO&", kwlist, SN_PY_ENUM("domain_kind", &kind),
                                     &vertices_obj, &elements_obj, SN_PY_U32("grid_resolution", &d.grid_resolution),
                                     &points_obj, &joints_obj, &bones_obj, &cages_obj,
                                     &d.handle_tolerance, &progress, SN_PY_U32("handle_outside", &d.handle_outside)))
        return NULL;
    if (kind < DOMAIN_TRIANGLES || kind > DOMAIN_SURFACE)
        return sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT,
                               "domain kind %d is not 0 (triangles), 1 (tets) or 2 (surface)", kind);
    PyObject *result = NULL;
    sn_py_array vertices = SN_PY_ARRAY_INIT, elements = SN_PY_ARRAY_INIT, points = SN_PY_ARRAY_INIT,
                joints = SN_PY_ARRAY_INIT, bones = SN_PY_ARRAY_INIT;
    cage_arrays *cage_data = NULL;
    sinew_bbw_cage *cages = NULL;
    size_t cage_count = 0;
    sn_py_call call;
    const char *elements_name = kind == DOMAIN_TETS ? "tets" : "triangles";
    if (sn_py_floats_in(vertices_obj, "vertices", SN_PY_ANY, 3, SN_PY_STRIDED, &vertices) == 0 &&
        sn_py_indices_in(elements_obj, elements_name, SN_PY_ANY, kind == DOMAIN_TETS ? 4 : 3, SN_PY_STRIDED,
                         &elements) == 0 &&
        sn_py_floats_in(points_obj, "points", SN_PY_ANY, 3, SN_PY_STRIDED | SN_PY_OPTIONAL, &points) == 0 &&
        sn_py_floats_in(joints_obj, "joint_positions", SN_PY_ANY, 3, SN_PY_STRIDED | SN_PY_OPTIONAL, &joints) == 0 &&
        sn_py_uint32_in(bones_obj, "bones", SN_PY_ANY, 2, SN_PY_OPTIONAL, &bones) == 0 &&
        cages_in(cages_obj, &cage_data, &cages, &cage_count) == 0 && sn_py_call_begin(&call, progress) == 0) {
        sinew_trimesh trimesh = {sn_py_points(&vertices), elements.data, elements.rows, elements.index_type,
                                 elements.stride};
        sinew_tetmesh tetmesh = {sn_py_points(&vertices), elements.data, elements.rows, elements.index_type,
                                 elements.stride};
        if (kind == DOMAIN_TRIANGLES) d.triangles = &trimesh;
        else if (kind == DOMAIN_TETS) d.tets = &tetmesh;
        else d.surface = &trimesh;
        if (points.array) d.points = sn_py_points(&points);
        if (joints.array) d.joint_positions = sn_py_points(&joints);
        d.bones = bones.data;
        d.bone_count = bones.array ? bones.rows : 0;
        d.cages = cages;
        d.cage_count = cage_count;
        sinew_bbw *bbw = NULL;
        sn_py_release_gil(&call);
        sinew_result r = sinew_bbw_create(call.ctx, &d, &bbw);
        sn_py_acquire_gil(&call);
        if (sn_py_call_end(&call, r) == 0) result = sn_py_handle_new(SINEW_KIND_BBW, bbw);
    }
    sn_py_array_release(&vertices);
    sn_py_array_release(&elements);
    sn_py_array_release(&points);
    sn_py_array_release(&joints);
    sn_py_array_release(&bones);
    cages_release(cage_data, cages, cage_count);
    return result;
}

static int bbw_info(const sinew_bbw *bbw, sinew_bbw_info *info)
{
    SINEW_INIT(info);
    sinew_result r = sinew_bbw_get_info(bbw, info);
    if (r != SINEW_OK) sn_py_raise(r);
    return r == SINEW_OK ? 0 : -1;
}

static PyObject *py_bbw_info(PyObject *self, PyObject *handle)
{
    (void)self;
    sinew_bbw *bbw = BBW_ENTER(handle, 0);
    if (!bbw) return NULL;
    sinew_bbw_info i;
    int ok = bbw_info(bbw, &i) == 0;
    sn_py_handle_leave(handle, 0);
    if (!ok) return NULL;
    PyObject *first_unreached = i.first_unreached_vertex == SIZE_MAX ? Py_NewRef(Py_None)
                                                                     : PyLong_FromSize_t(i.first_unreached_vertex);
    PyObject *first_clipped = i.first_clipped_handle == SIZE_MAX ? Py_NewRef(Py_None)
                                                                  : PyLong_FromSize_t(i.first_clipped_handle);
    return Py_BuildValue("{s:n,s:n,s:n,s:n,s:n,s:n,s:N,s:i,s:I,s:I,s:d,s:d,s:d,s:n,s:d,s:d,s:d,s:n,s:I,s:d,s:d,s:n,s:n,"
                         "s:d,s:I,s:n,s:N,s:d}",
                         "vertex_count",
                         (Py_ssize_t)i.vertex_count, "element_count", (Py_ssize_t)i.element_count, "handle_count",
                         (Py_ssize_t)i.handle_count, "constrained_vertex_count", (Py_ssize_t)i.constrained_vertex_count,
                         "unreached_vertex_count", (Py_ssize_t)i.unreached_vertex_count, "unreached_region_count",
                         (Py_ssize_t)i.unreached_region_count, "first_unreached_vertex", first_unreached, "solved",
                         i.solved, "iterations", i.iterations, "polish_rounds", i.polish_rounds, "primal_residual",
                         i.primal_residual, "change_residual", i.change_residual, "error_bound", i.error_bound,
                         "factor_nonzeros", (Py_ssize_t)i.factor_nonzeros, "seconds_domain", i.seconds_domain,
                         "seconds_operators", i.seconds_operators, "seconds_solve", i.seconds_solve, "memory_bytes",
                         (Py_ssize_t)i.memory_bytes, "grid_resolution", i.grid_resolution, "grid_cell_size",
                         i.grid_cell_size, "finest_cell_size", i.finest_cell_size, "refined_cell_count",
                         (Py_ssize_t)i.refined_cell_count, "handle_cell_count", (Py_ssize_t)i.handle_cell_count,
                         "max_snap_distance", i.max_snap_distance, "coarse_levels_used", i.coarse_levels_used,
                         "clipped_handle_count", (Py_ssize_t)i.clipped_handle_count, "first_clipped_handle",
                         first_clipped, "max_clip_distance", i.max_clip_distance);
}

/* (bbw, partition=0, tolerance=0, max_iterations=0, shape_mask=None,
 *  shape_strength=0, penalty=0, progress=None, initial_weights=None,
 *  coarse_levels=0)
 * -> (converged, message). SINEW_ERROR_NOT_CONVERGED is not raised: the
 * best weights are kept. initial_weights: (vertex_count, handle_count),
 * the library checks the row count and finiteness. */
static PyObject *py_bbw_solve(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"bbw", "partition", "tolerance", "max_iterations", "shape_mask", "shape_strength",
                             "penalty", "progress", "initial_weights", "coarse_levels", NULL};
    PyObject *handle, *mask_obj = Py_None, *progress = Py_None, *initial_obj = Py_None;
    sinew_bbw_solve_desc d;
    SINEW_INIT(&d);
    int partition = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O&dO&OddOOO&", kwlist, &handle,
                                     SN_PY_ENUM("partition", &partition), &d.tolerance,
                                     SN_PY_U32("max_iterations", &d.max_iterations), &mask_obj, &d.shape_strength,
                                     &d.penalty, &progress, &initial_obj, SN_PY_U32("coarse_levels", &d.coarse_levels)))
        return NULL;
    d.partition = (sinew_bbw_partition)partition;
    sinew_bbw *bbw = BBW_ENTER(handle, 1);
    if (!bbw) return NULL;
    PyObject *result = NULL;
    sn_py_array mask = SN_PY_ARRAY_INIT, initial = SN_PY_ARRAY_INIT;
    sn_py_call call;
    sinew_bbw_info info;
    if (sn_py_floats_in(mask_obj, "shape_mask", SN_PY_ANY, 1, SN_PY_FLAT | SN_PY_OPTIONAL, &mask) == 0 &&
        bbw_info(bbw, &info) == 0 &&
        sn_py_floats_in(initial_obj, "initial_weights", SN_PY_ANY, (Py_ssize_t)info.handle_count, SN_PY_OPTIONAL,
                        &initial) == 0 &&
        sn_py_call_begin(&call, progress) == 0) {
        d.shape_mask = mask.data;
        d.shape_mask_count = mask.array ? mask.rows : 0;
        d.initial_weights = initial.data;
        d.initial_weights_count = initial.array ? initial.rows * info.handle_count : 0;
        sn_py_release_gil(&call);
        sinew_result r = sinew_bbw_solve(call.ctx, bbw, &d);
        sn_py_acquire_gil(&call);
        PyObject *message = PyUnicode_FromString(sinew_last_error());
        if (sn_py_call_end(&call, r == SINEW_ERROR_NOT_CONVERGED ? SINEW_OK : r) == 0 && message)
            result = Py_BuildValue("(OO)", r == SINEW_OK ? Py_True : Py_False, message);
        Py_XDECREF(message);
    }
    sn_py_array_release(&mask);
    sn_py_array_release(&initial);
    sn_py_handle_leave(handle, 1);
    return result;
}

/* The shared frame of the queries: enter the handle, read its info, take the
 * range over `total(info)` elements. */
typedef struct query {
    PyObject *handle;
    sinew_bbw *bbw;
    sinew_bbw_info info;
    size_t first, count;
} query;

static int query_begin(query *q, PyObject *handle, PyObject *first_obj, PyObject *count_obj,
                       size_t (*total)(const sinew_bbw_info *))
{
    q->handle = handle;
    q->bbw = BBW_ENTER(handle, 0);
    if (!q->bbw) return -1;
    if (bbw_info(q->bbw, &q->info) < 0 ||
        sn_py_range(first_obj, count_obj, total(&q->info), &q->first, &q->count) < 0) {
        sn_py_handle_leave(handle, 0);
        return -1;
    }
    return 0;
}

static size_t vertex_total(const sinew_bbw_info *info) { return info->vertex_count; }
static size_t element_total(const sinew_bbw_info *info) { return info->element_count; }

/* (bbw, first=None, count=None) -> float32 (vertex_count, 3). */
static PyObject *py_bbw_domain_vertices(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"bbw", "first", "count", NULL};
    PyObject *handle, *first_obj = Py_None, *count_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO", kwlist, &handle, &first_obj, &count_obj)) return NULL;
    query q;
    if (query_begin(&q, handle, first_obj, count_obj, vertex_total) < 0) return NULL;
    PyObject *result = NULL;
    sn_py_array out = SN_PY_ARRAY_INIT;
    if (sn_py_out(Py_None, "out", NPY_FLOAT32, (Py_ssize_t)q.info.vertex_count, 3, 0, 1, &out) == 0) {
        sinew_result r = sinew_bbw_domain_vertices(q.bbw, out.data, 0, q.first, q.count);
        result = r == SINEW_OK ? sn_py_array_result(&out) : sn_py_raise(r);
    }
    sn_py_array_release(&out);
    sn_py_handle_leave(handle, 0);
    return result;
}

/* Corners per element: 3 in 2D, 4 in 3D. The handle does not say which, so
 * element 0 is written into four slots preset to UINT32_MAX: a 2D domain
 * leaves the fourth (indices are below the vertex count, never UINT32_MAX). */
static int element_size(const sinew_bbw *bbw, const sinew_bbw_info *info, Py_ssize_t *per)
{
    uint32_t probe[4] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
    if (info->element_count == 0) {
        *per = 3;
        return 0;
    }
    sinew_result r = sinew_bbw_domain_elements(bbw, probe, 0, 1);
    if (r != SINEW_OK) {
        sn_py_raise(r);
        return -1;
    }
    *per = probe[3] == UINT32_MAX ? 3 : 4;
    return 0;
}

/* (bbw, first=None, count=None) -> uint32 (element_count, 3 in 2D or 4 in 3D). */
static PyObject *py_bbw_domain_elements(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"bbw", "first", "count", NULL};
    PyObject *handle, *first_obj = Py_None, *count_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO", kwlist, &handle, &first_obj, &count_obj)) return NULL;
    query q;
    if (query_begin(&q, handle, first_obj, count_obj, element_total) < 0) return NULL;
    PyObject *result = NULL;
    sn_py_array out = SN_PY_ARRAY_INIT;
    Py_ssize_t per;
    if (element_size(q.bbw, &q.info, &per) == 0 &&
        sn_py_out(Py_None, "out", NPY_UINT32, (Py_ssize_t)q.info.element_count, per, 0, 1, &out) == 0) {
        sinew_result r = sinew_bbw_domain_elements(q.bbw, out.data, q.first, q.count);
        result = r == SINEW_OK ? sn_py_array_result(&out) : sn_py_raise(r);
    }
    sn_py_array_release(&out);
    sn_py_handle_leave(handle, 0);
    return result;
}

/* (bbw, out=None, first=None, count=None) -> float32 (vertex_count, handle_count). */
static PyObject *py_bbw_vertex_weights(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"bbw", "out", "first", "count", NULL};
    PyObject *handle, *out_obj = Py_None, *first_obj = Py_None, *count_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOO", kwlist, &handle, &out_obj, &first_obj, &count_obj))
        return NULL;
    query q;
    if (query_begin(&q, handle, first_obj, count_obj, vertex_total) < 0) return NULL;
    PyObject *result = NULL;
    sn_py_array out = SN_PY_ARRAY_INIT;
    if (sn_py_out(out_obj, "out", NPY_FLOAT32, (Py_ssize_t)q.info.vertex_count, (Py_ssize_t)q.info.handle_count, 0,
                  out_obj == Py_None, &out) == 0) {
        sinew_result r = sinew_bbw_vertex_weights(q.bbw, out.data, q.first, q.count);
        result = r == SINEW_OK ? sn_py_array_result(&out) : sn_py_raise(r);
    }
    sn_py_array_release(&out);
    sn_py_handle_leave(handle, 0);
    return result;
}

/* (bbw, points (n, 3), out=None, first=None, count=None) -> float32 (n, handle_count). */
static PyObject *py_bbw_point_weights(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"bbw", "points", "out", "first", "count", NULL};
    PyObject *handle, *points_obj, *out_obj = Py_None, *first_obj = Py_None, *count_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OOO", kwlist, &handle, &points_obj, &out_obj, &first_obj,
                                     &count_obj))
        return NULL;
    sinew_bbw *bbw = BBW_ENTER(handle, 0);
    if (!bbw) return NULL;
    PyObject *result = NULL;
    sn_py_array points = SN_PY_ARRAY_INIT, out = SN_PY_ARRAY_INIT;
    sinew_bbw_info info;
    size_t first, count;
    if (bbw_info(bbw, &info) == 0 &&
        sn_py_floats_in(points_obj, "points", SN_PY_ANY, 3, SN_PY_STRIDED | SN_PY_RANGED, &points) == 0 &&
        sn_py_range(first_obj, count_obj, points.rows, &first, &count) == 0 &&
        sn_py_array_range(&points, first, count) == 0 &&
        sn_py_out(out_obj, "out", NPY_FLOAT32, (Py_ssize_t)points.rows, (Py_ssize_t)info.handle_count, 0,
                  out_obj == Py_None, &out) == 0 &&
        sn_py_check_overlap(&points, "points", &out, "out") == 0) {
        sinew_points view = sn_py_points(&points);
        sinew_result r;
        Py_BEGIN_ALLOW_THREADS
        r = sinew_bbw_point_weights(bbw, &view, out.data, first, count);
        Py_END_ALLOW_THREADS
        result = r == SINEW_OK ? sn_py_array_result(&out) : sn_py_raise(r);
    }
    sn_py_array_release(&points);
    sn_py_array_release(&out);
    sn_py_handle_leave(handle, 0);
    return result;
}

/* (bbw, points=None, influence_count=4, out_joints=None, out_weights=None,
 *  first=None, count=None) -> (joints uint32 (n, k), weights float32 (n, k));
 * points None = the domain vertices. */
static PyObject *py_bbw_top_k(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"bbw", "points", "influence_count", "out_joints", "out_weights", "first", "count", NULL};
    PyObject *handle, *points_obj = Py_None, *joints_obj = Py_None, *weights_obj = Py_None, *first_obj = Py_None,
             *count_obj = Py_None;
    uint32_t k = 4;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO&OOOO", kwlist, &handle, &points_obj,
                                     SN_PY_U32("influence_count", &k), &joints_obj,
                                     &weights_obj, &first_obj, &count_obj))
        return NULL;
    sinew_bbw *bbw = BBW_ENTER(handle, 0);
    if (!bbw) return NULL;
    PyObject *result = NULL;
    sn_py_array points = SN_PY_ARRAY_INIT, joints = SN_PY_ARRAY_INIT, weights = SN_PY_ARRAY_INIT;
    sinew_bbw_info info;
    size_t first, count, rows = 0;
    int ok = bbw_info(bbw, &info) == 0 &&
             sn_py_floats_in(points_obj, "points", SN_PY_ANY, 3, SN_PY_STRIDED | SN_PY_OPTIONAL | SN_PY_RANGED,
                             &points) == 0;
    if (ok) {
        rows = points.array ? points.rows : info.vertex_count;
        /* k is checked by the library (1..64); a shape needs at least one slot. */
        Py_ssize_t slots = k ? (Py_ssize_t)k : 1;
        ok = sn_py_range(first_obj, count_obj, rows, &first, &count) == 0 &&
             sn_py_array_range(&points, first, count) == 0 &&
             sn_py_out(joints_obj, "out_joints", NPY_UINT32, (Py_ssize_t)rows, slots, 0, joints_obj == Py_None,
                       &joints) == 0 &&
             sn_py_out(weights_obj, "out_weights", NPY_FLOAT32, (Py_ssize_t)rows, slots, 0, weights_obj == Py_None,
                       &weights) == 0 &&
             sn_py_check_overlap(&joints, "out_joints", &weights, "out_weights") == 0 &&
             sn_py_check_overlap(&points, "points", &weights, "out_weights") == 0 &&
             sn_py_check_overlap(&points, "points", &joints, "out_joints") == 0;
    }
    if (ok) {
        sinew_points view = sn_py_points(&points);
        sinew_result r;
        Py_BEGIN_ALLOW_THREADS
        r = sinew_bbw_top_k(bbw, points.array ? &view : NULL, k, joints.data, weights.data, first, count);
        Py_END_ALLOW_THREADS
        if (r != SINEW_OK) sn_py_raise(r);
        else result = Py_BuildValue("(NN)", sn_py_array_result(&joints), sn_py_array_result(&weights));
    }
    sn_py_array_release(&points);
    sn_py_array_release(&joints);
    sn_py_array_release(&weights);
    sn_py_handle_leave(handle, 0);
    return result;
}

#define KW(name, doc) {#name, (PyCFunction)(void (*)(void))py_##name, METH_VARARGS | METH_KEYWORDS, doc}

static PyMethodDef bbw_methods[] = {
    KW(bbw_create, "bbw_create(domain_kind, vertices, elements, grid_resolution=0, points=None, "
                   "joint_positions=None, bones=None, cages=None, handle_tolerance=0, progress=None, handle_outside=0) -> Handle"),
    {"bbw_info", py_bbw_info, METH_O, "bbw_info(bbw) -> dict of sinew_bbw_info"},
    KW(bbw_solve, "bbw_solve(bbw, partition=0, tolerance=0, max_iterations=0, shape_mask=None, shape_strength=0, "
                  "penalty=0, progress=None) -> (converged, message)"),
    KW(bbw_domain_vertices, "bbw_domain_vertices(bbw, first=None, count=None) -> (vertex_count, 3)"),
    KW(bbw_domain_elements, "bbw_domain_elements(bbw, first=None, count=None) -> (element_count, 3 or 4)"),
    KW(bbw_vertex_weights, "bbw_vertex_weights(bbw, out=None, first=None, count=None) -> (vertex_count, handles)"),
    KW(bbw_point_weights, "bbw_point_weights(bbw, points, out=None, first=None, count=None) -> (n, handles)"),
    KW(bbw_top_k, "bbw_top_k(bbw, points=None, influence_count=4, out_joints=None, out_weights=None, first=None, "
                  "count=None) -> (joints uint32 (n, k), weights float32 (n, k))"),
    {NULL, NULL, 0, NULL},
};

int sn_py_register_bbw(PyObject *module)
{
    return PyModule_AddFunctions(module, bbw_methods);
}
