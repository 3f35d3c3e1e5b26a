/*
 * sinew._sinew: handle transforms inferred at pose time (sinew/bbw_pose.h):
 * create from a rest domain and weights (dense or top-k) or from a solved
 * BBW, with progress and cancellation; info; scratch size; solve with fixed
 * transforms, position constraints, warm or cold start; the energy of any
 * transforms. The C library has no save for these handles.
 * python/sinew/bbw_pose.py is the friendly layer: it owns the scratch
 * buffer and the warm-start transforms.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

#define POSE_ENTER(obj) ((const sinew_bbw_pose *)sn_py_handle_enter((obj), SN_PY_KIND_BBW_POSE, "pose", 0))

enum { DOMAIN_TRIANGLES = 0, DOMAIN_TETS = 1 };

/* A writeable contiguous bytes-like scratch buffer (bytearray, uint8 array). */
static int scratch_in(PyObject *obj, Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Clear();
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "scratch: expected a writeable contiguous buffer "
                        "(bytearray or uint8 array), got %s", Py_TYPE(obj)->tp_name);
        return -1;
    }
    return 0;
}

/* (domain_kind, vertices, elements, weights=None, influence_joints=None,
 *  influence_weights=None, handle_count=0, cluster_count=0, transform=0,
 *  progress=None) -> Handle. Dense weights (V, H), or the top-k layout
 * (V, k) joints and weights with handle_count. */
static PyObject *py_bbw_pose_create(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"domain_kind", "vertices", "elements", "weights", "influence_joints",
                             "influence_weights", "handle_count", "cluster_count", "transform", "progress", NULL};
    int kind, transform = 0;
    uint32_t cluster_count = 0;
    size_t handle_count = 0;
    PyObject *vertices_obj, *elements_obj, *weights_obj = Py_None, *ij_obj = Py_None, *iw_obj = Py_None,
             *progress = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&OO|OOOO&O&O&O:bbw_pose_create", kwlist,
                                     SN_PY_ENUM("domain_kind", &kind), &vertices_obj, &elements_obj, &weights_obj,
                                     &ij_obj, &iw_obj, SN_PY_COUNT("handle_count", &handle_count),
                                     SN_PY_U32("cluster_count", &cluster_count), SN_PY_ENUM("transform", &transform),
                                     &progress))
        return NULL;
    if (kind != DOMAIN_TRIANGLES && kind != DOMAIN_TETS)
        return sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "domain kind %d is not 0 (triangles) or 1 (tets)", kind);
    if ((weights_obj == Py_None) == (ij_obj == Py_None && iw_obj == Py_None))
        return sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT,
                               "weights: give exactly one of dense weights (V, H) or influences (joints, weights)");
    PyObject *result = NULL;
    sn_py_array vertices = SN_PY_ARRAY_INIT, elements = SN_PY_ARRAY_INIT, weights = SN_PY_ARRAY_INIT,
                ij = SN_PY_ARRAY_INIT, iw = SN_PY_ARRAY_INIT;
    const char *elements_name = kind == DOMAIN_TETS ? "tets" : "triangles";
    if (sn_py_floats_in(vertices_obj, "vertices", SN_PY_ANY, 3, SN_PY_STRIDED, &vertices) < 0 ||
        sn_py_indices_in(elements_obj, elements_name, SN_PY_ANY, kind == DOMAIN_TETS ? 4 : 3, SN_PY_STRIDED,
                         &elements) < 0)
        goto done;
    sinew_bbw_pose_desc d;
    SINEW_INIT(&d);
    if (weights_obj != Py_None) {
        /* Packed rows: the C API takes no stride for the weights. */
        if (sn_py_floats_in(weights_obj, "weights", (Py_ssize_t)vertices.rows, SN_PY_ANY, SN_PY_FINITE, &weights) < 0)
            goto done;
        d.handle_count = weights.cols;
        d.weights = weights.data;
    } else {
        if (sn_py_uint32_in(ij_obj, "influence joints", (Py_ssize_t)vertices.rows, SN_PY_ANY, 0, &ij) < 0 ||
            sn_py_floats_in(iw_obj, "influence weights", (Py_ssize_t)vertices.rows, (Py_ssize_t)ij.cols, SN_PY_FINITE,
                            &iw) < 0)
            goto done;
        if (handle_count == 0) {
            sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "handle_count: expected a count > 0 with influences, got %zu",
                            handle_count);
            goto done;
        }
        d.handle_count = handle_count;
        d.influence_count = (uint32_t)ij.cols;
        d.influence_handles = ij.data;
        d.influence_weights = iw.data;
    }
    d.cluster_count = cluster_count;
    d.transform = (sinew_bbw_pose_transform)transform;
    sinew_trimesh trimesh = {sn_py_points(&vertices), elements.data, elements.rows, elements.index_type,
                             elements.stride};
    sinew_tetmesh tetmesh = {sn_py_points(&vertices), elements.data, elements.rows, elements.index_type,
                             elements.stride};
    if (kind == DOMAIN_TRIANGLES) d.triangles = &trimesh;
    else d.tets = &tetmesh;
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) < 0) goto done;
    sinew_bbw_pose *pose = NULL;
    sn_py_release_gil(&call);
    sinew_result r = sinew_bbw_pose_create(call.ctx, &d, &pose);
    sn_py_acquire_gil(&call);
    if (sn_py_call_end(&call, r) == 0) result = sn_py_handle_new(SN_PY_KIND_BBW_POSE, pose);
done:
    sn_py_array_release(&vertices);
    sn_py_array_release(&elements);
    sn_py_array_release(&weights);
    sn_py_array_release(&ij);
    sn_py_array_release(&iw);
    return result;
}

/* (bbw, cluster_count=0, transform=0, progress=None) -> Handle. */
static PyObject *py_bbw_pose_create_from_bbw(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"bbw", "cluster_count", "transform", "progress", NULL};
    PyObject *handle, *progress = Py_None;
    uint32_t cluster_count = 0;
    int transform = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O&O&O:bbw_pose_create_from_bbw", kwlist, &handle,
                                     SN_PY_U32("cluster_count", &cluster_count), SN_PY_ENUM("transform", &transform),
                                     &progress))
        return NULL;
    const sinew_bbw *bbw = sn_py_handle_enter(handle, SINEW_KIND_BBW, "bbw", 0);
    if (!bbw) return NULL;
    PyObject *result = NULL;
    sinew_bbw_pose_desc options;
    SINEW_INIT(&options);
    options.cluster_count = cluster_count;
    options.transform = (sinew_bbw_pose_transform)transform;
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) == 0) {
        sinew_bbw_pose *pose = NULL;
        sn_py_release_gil(&call);
        sinew_result r = sinew_bbw_pose_create_from_bbw(call.ctx, bbw, &options, &pose);
        sn_py_acquire_gil(&call);
        if (sn_py_call_end(&call, r) == 0) result = sn_py_handle_new(SN_PY_KIND_BBW_POSE, pose);
    }
    sn_py_handle_leave(handle, 0);
    return result;
}

static PyObject *py_bbw_pose_info(PyObject *self, PyObject *handle)
{
    (void)self;
    const sinew_bbw_pose *pose = POSE_ENTER(handle);
    if (!pose) return NULL;
    sinew_bbw_pose_info i;
    SINEW_INIT(&i);
    sinew_result r = sinew_bbw_pose_get_info(pose, &i);
    sn_py_handle_leave(handle, 0);
    if (r != SINEW_OK) return sn_py_raise(r);
    return Py_BuildValue("{s:I,s:n,s:n,s:n,s:n,s:n,s:n}", "dimension", (unsigned int)i.dimension, "vertex_count",
                         (Py_ssize_t)i.vertex_count, "element_count", (Py_ssize_t)i.element_count, "handle_count",
                         (Py_ssize_t)i.handle_count, "cluster_count", (Py_ssize_t)i.cluster_count,
                         "skipped_element_count", (Py_ssize_t)i.skipped_element_count, "memory_bytes",
                         (Py_ssize_t)i.memory_bytes);
}

/* (pose, position_count) -> bytes of scratch a solve with that many positions needs. */
static PyObject *py_bbw_pose_scratch_size(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle, *count_obj;
    if (!PyArg_ParseTuple(args, "OO:bbw_pose_scratch_size", &handle, &count_obj)) return NULL;
    size_t count;
    if (sn_py_size(count_obj, "position_count", &count) < 0) return NULL;
    const sinew_bbw_pose *pose = POSE_ENTER(handle);
    if (!pose) return NULL;
    size_t bytes = sinew_bbw_pose_scratch_size(pose, count);
    sn_py_handle_leave(handle, 0);
    if (bytes == SIZE_MAX)
        return sn_py_raise_msg(SINEW_ERROR_SIZE_OVERFLOW, "position_count: the scratch for %zu positions overflows",
                               count);
    return PyLong_FromSize_t(bytes);
}

/* The handle count of an entered pose. */
static size_t pose_handles(const sinew_bbw_pose *pose)
{
    sinew_bbw_pose_info i;
    SINEW_INIT(&i);
    return sinew_bbw_pose_get_info(pose, &i) == SINEW_OK ? i.handle_count : 0;
}

/* Position records of n constraints from handles (n,), rest (n, 3), targets (n, 3). */
static sinew_bbw_pose_position *positions_make(const sn_py_array *handles, const sn_py_array *rest,
                                               const sn_py_array *targets)
{
    size_t n = handles->array ? handles->rows : 0;
    sinew_bbw_pose_position *p = PyMem_Calloc(n ? n : 1, sizeof *p);
    if (!p) {
        PyErr_NoMemory();
        return NULL;
    }
    for (size_t i = 0; i < n; ++i) {
        p[i].handle = ((const uint32_t *)handles->data)[i];
        memcpy(p[i].rest, (const char *)rest->data + i * rest->stride, sizeof p[i].rest);
        memcpy(p[i].target, (const char *)targets->data + i * targets->stride, sizeof p[i].target);
    }
    return p;
}

/* (pose, scratch, start=None, fixed=None, handles=None, rest=None,
 *  targets=None, iterations=0, cold_start=False, report=False, out=None)
 * -> transforms (H, 4, 4), or (transforms, energy, iterations) with report.
 * The call's transforms are `start` (the previous result and the fixed
 * handles' transforms; None = zeros) copied into `out` (or a new array),
 * then solved in place. fixed: H flags. */
static PyObject *py_bbw_pose_solve(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"pose", "scratch", "start", "fixed", "handles", "rest", "targets", "iterations",
                             "cold_start", "report", "out", NULL};
    PyObject *handle, *scratch_obj, *start_obj = Py_None, *fixed_obj = Py_None, *handles_obj = Py_None,
             *rest_obj = Py_None, *targets_obj = Py_None, *out_obj = Py_None;
    uint32_t iterations = 0;
    int cold_start = 0, want_report = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OOOOOO&ppO:bbw_pose_solve", kwlist, &handle, &scratch_obj,
                                     &start_obj, &fixed_obj, &handles_obj, &rest_obj, &targets_obj,
                                     SN_PY_U32("iterations", &iterations), &cold_start, &want_report, &out_obj))
        return NULL;
    const sinew_bbw_pose *pose = POSE_ENTER(handle);
    if (!pose) return NULL;
    size_t h = pose_handles(pose);
    PyObject *result = NULL;
    Py_buffer scratch = {0};
    int have_scratch = 0;
    sinew_bbw_pose_position *positions = NULL;
    sn_py_array start = SN_PY_ARRAY_INIT, fixed = SN_PY_ARRAY_INIT, handles = SN_PY_ARRAY_INIT,
                rest = SN_PY_ARRAY_INIT, targets = SN_PY_ARRAY_INIT, out = SN_PY_ARRAY_INIT, fixed8 = SN_PY_ARRAY_INIT;
    if (scratch_in(scratch_obj, &scratch) < 0) goto done;
    have_scratch = 1;
    if (sn_py_matrices_in(start_obj, "start", (Py_ssize_t)h, SN_PY_OPTIONAL, &start) < 0 ||
        sn_py_indices_in(fixed_obj, "fixed", (Py_ssize_t)h, 1, SN_PY_FLAT | SN_PY_OPTIONAL, &fixed) < 0 ||
        sn_py_uint32_in(handles_obj, "handles", SN_PY_ANY, 1, SN_PY_FLAT | SN_PY_OPTIONAL, &handles) < 0 ||
        sn_py_floats_in(rest_obj, "rest", handles.array ? (Py_ssize_t)handles.rows : 0, 3,
                        SN_PY_STRIDED | SN_PY_OPTIONAL, &rest) < 0 ||
        sn_py_floats_in(targets_obj, "targets", handles.array ? (Py_ssize_t)handles.rows : 0, 3,
                        SN_PY_STRIDED | SN_PY_OPTIONAL, &targets) < 0 ||
        sn_py_matrices_out(out_obj, "out", (Py_ssize_t)h, &out) < 0)
        goto done;
    if (!!handles.array != !!rest.array || !!handles.array != !!targets.array) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "handles, rest, targets: give all three or none");
        goto done;
    }
    /* The flags as the C API's uint8: any other index type is narrowed to 0/1. */
    const uint8_t *flags = NULL;
    if (fixed.array) {
        if (fixed.type_num == NPY_UINT8 && fixed.stride == 1) {
            flags = fixed.data;
        } else {
            if (sn_py_out(Py_None, "fixed", NPY_UINT8, (Py_ssize_t)h, 1, SN_PY_FLAT, 0, &fixed8) < 0) goto done;
            uint8_t *f = fixed8.data;
            for (size_t j = 0; j < h; ++j) {
                const char *e = (const char *)fixed.data + j * fixed.stride;
                f[j] = fixed.type_num == NPY_UINT8 ? *(const uint8_t *)e != 0
                     : fixed.type_num == NPY_UINT16 ? *(const uint16_t *)e != 0 : *(const uint32_t *)e != 0;
            }
            flags = f;
        }
    }
    if (!(positions = positions_make(&handles, &rest, &targets))) goto done;
    /* In place (out is start itself) needs no copy. */
    if (start.array && start.data != out.data) memcpy(out.data, start.data, h * 16 * sizeof(float));
    else if (!start.array) memset(out.data, 0, h * 16 * sizeof(float));
    sinew_bbw_pose_solve_desc d;
    SINEW_INIT(&d);
    d.fixed = flags;
    d.positions = positions;
    d.position_count = handles.array ? handles.rows : 0;
    d.iterations = iterations;
    d.cold_start = cold_start;
    sinew_bbw_pose_report report;
    SINEW_INIT(&report);
    sinew_result r;
    Py_BEGIN_ALLOW_THREADS
    r = sinew_bbw_pose_solve(pose, &d, out.data, h * 16, scratch.buf, (size_t)scratch.len,
                             want_report ? &report : NULL);
    Py_END_ALLOW_THREADS
    if (r != SINEW_OK) {
        sn_py_raise(r);
        goto done;
    }
    result = want_report ? Py_BuildValue("(NdI)", sn_py_matrices_result(&out), report.energy, report.iterations)
                         : sn_py_matrices_result(&out);
done:
    PyMem_Free(positions);
    if (have_scratch) PyBuffer_Release(&scratch);
    sn_py_array_release(&start);
    sn_py_array_release(&fixed);
    sn_py_array_release(&fixed8);
    sn_py_array_release(&handles);
    sn_py_array_release(&rest);
    sn_py_array_release(&targets);
    sn_py_array_release(&out);
    sn_py_handle_leave(handle, 0);
    return result;
}

/* (pose, transforms (H, 4, 4), scratch) -> energy. */
static PyObject *py_bbw_pose_energy(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"pose", "transforms", "scratch", NULL};
    PyObject *handle, *transforms_obj, *scratch_obj;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO:bbw_pose_energy", kwlist, &handle, &transforms_obj,
                                     &scratch_obj))
        return NULL;
    const sinew_bbw_pose *pose = POSE_ENTER(handle);
    if (!pose) return NULL;
    size_t h = pose_handles(pose);
    PyObject *result = NULL;
    Py_buffer scratch;
    sn_py_array transforms = SN_PY_ARRAY_INIT;
    if (scratch_in(scratch_obj, &scratch) == 0) {
        if (sn_py_matrices_in(transforms_obj, "transforms", (Py_ssize_t)h, 0, &transforms) == 0) {
            double energy = 0.0;
            sinew_result r;
            Py_BEGIN_ALLOW_THREADS
            r = sinew_bbw_pose_energy(pose, transforms.data, h * 16, scratch.buf, (size_t)scratch.len, &energy);
            Py_END_ALLOW_THREADS
            result = r == SINEW_OK ? PyFloat_FromDouble(energy) : sn_py_raise(r);
        }
        PyBuffer_Release(&scratch);
    }
    sn_py_array_release(&transforms);
    sn_py_handle_leave(handle, 0);
    return result;
}

#define KW(name, doc) {#name, (PyCFunction)(void (*)(void))py_##name, METH_VARARGS | METH_KEYWORDS, doc}

static PyMethodDef bbw_pose_methods[] = {
    KW(bbw_pose_create, "bbw_pose_create(domain_kind, vertices, elements, weights=None, influence_joints=None, "
                        "influence_weights=None, handle_count=0, cluster_count=0, transform=0, progress=None) "
                        "-> Handle (sinew_bbw_pose_create); domain_kind 0 triangles, 1 tets"),
    KW(bbw_pose_create_from_bbw, "bbw_pose_create_from_bbw(bbw, cluster_count=0, transform=0, progress=None) -> Handle "
                                 "(sinew_bbw_pose_create_from_bbw)"),
    {"bbw_pose_info", py_bbw_pose_info, METH_O, "bbw_pose_info(pose) -> dict of sinew_bbw_pose_info"},
    {"bbw_pose_scratch_size", py_bbw_pose_scratch_size, METH_VARARGS,
     "bbw_pose_scratch_size(pose, position_count) -> bytes (sinew_bbw_pose_scratch_size)"},
    KW(bbw_pose_solve, "bbw_pose_solve(pose, scratch, start=None, fixed=None, handles=None, rest=None, targets=None, "
                       "iterations=0, cold_start=False, report=False, out=None) -> (H, 4, 4) or "
                       "(transforms, energy, iterations) (sinew_bbw_pose_solve)"),
    KW(bbw_pose_energy, "bbw_pose_energy(pose, transforms, scratch) -> float (sinew_bbw_pose_energy)"),
    {NULL, NULL, 0, NULL},
};

int sn_py_register_bbw_pose(PyObject *module)
{
    return PyModule_AddFunctions(module, bbw_pose_methods);
}
