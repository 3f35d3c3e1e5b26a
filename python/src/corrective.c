/*
 * sinew._sinew: pose-space correctives and morph targets
 * (sinew/corrective.h): create, info, weights, apply, deform and the
 * swing/twist pose numbers. Save and load go through the module's generic
 * save/load. python/sinew/corrective.py is the friendly layer.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

static int corrective_info(const sinew_corrective *c, sinew_corrective_info *info)
{
    SINEW_INIT(info);
    if (sinew_corrective_get_info(c, info) != SINEW_OK) {
        sn_py_raise(SINEW_ERROR_INVALID_ARGUMENT);
        return -1;
    }
    return 0;
}

/* corrective_create(offsets (K, N, 3) | (E, 3), poses (K, P) or None,
 * rest_pose (P,) or None, kernel, radius, smoothing, point_count,
 * key_offset_counts (K,) or None, offset_points (E,) or None) -> Handle.
 * Dense offsets come as (K, N * 3) rows; sparse as (E, 3) with counts and
 * points. */
static PyObject *py_corrective_create(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"offsets", "poses", "rest_pose", "kernel", "radius", "smoothing", "point_count",
                             "key_count", "key_offset_counts", "offset_points", NULL};
    PyObject *offsets_obj, *poses_obj = Py_None, *rest_obj = Py_None, *counts_obj = Py_None, *points_obj = Py_None;
    int kernel = 0;
    double radius = 0.0, smoothing = 0.0;
    size_t point_count = 0, key_count = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOO&ddO&O&OO", kwlist, &offsets_obj, &poses_obj, &rest_obj,
                                     SN_PY_ENUM("kernel", &kernel), &radius, &smoothing,
                                     SN_PY_COUNT("point_count", &point_count), SN_PY_COUNT("key_count", &key_count),
                                     &counts_obj, &points_obj))
        return NULL;
    sinew_corrective_desc d;
    SINEW_INIT(&d);
    d.point_count = point_count;
    d.key_count = key_count;
    d.kernel = (sinew_corrective_kernel)kernel;
    d.radius = radius;
    d.smoothing = smoothing;
    PyObject *result = NULL;
    sn_py_array offsets = SN_PY_ARRAY_INIT, poses = SN_PY_ARRAY_INIT, rest = SN_PY_ARRAY_INIT;
    sn_py_array counts = SN_PY_ARRAY_INIT, points = SN_PY_ARRAY_INIT;
    size_t *count_values = NULL;
    const int sparse = counts_obj != Py_None;
    if (sn_py_floats_in(offsets_obj, "offsets", SN_PY_ANY, sparse ? 3 : SN_PY_ANY, 0, &offsets) < 0 ||
        sn_py_floats_in(poses_obj, "poses", SN_PY_ANY, SN_PY_ANY, SN_PY_OPTIONAL, &poses) < 0 ||
        sn_py_floats_in(rest_obj, "rest_pose", SN_PY_ANY, 1, SN_PY_OPTIONAL | SN_PY_FLAT, &rest) < 0)
        goto done;
    if (sparse) {
        if (sn_py_uint32_in(counts_obj, "key_offset_counts", (Py_ssize_t)key_count, 1, SN_PY_FLAT, &counts) < 0 ||
            sn_py_uint32_in(points_obj, "offset_points", (Py_ssize_t)offsets.rows, 1, SN_PY_FLAT, &points) < 0)
            goto done;
        count_values = PyMem_Malloc((key_count ? key_count : 1) * sizeof(size_t));
        if (!count_values) {
            PyErr_NoMemory();
            goto done;
        }
        for (size_t k = 0; k < key_count; ++k) count_values[k] = ((const uint32_t *)counts.data)[k];
        d.key_offset_counts = count_values;
        d.offset_points = points.data;
    } else if (offsets.rows != key_count || offsets.cols != 3 * point_count) {
        sn_py_raise_msg(SINEW_ERROR_MISMATCH, "offsets: expected (%zu, %zu, 3) for %zu keys of %zu points", key_count,
                        point_count, key_count, point_count);
        goto done;
    }
    d.offsets = offsets.data;
    if (poses.data) {
        if (poses.rows != key_count) {
            sn_py_raise_msg(SINEW_ERROR_MISMATCH, "poses: %zu rows for %zu keys", poses.rows, key_count);
            goto done;
        }
        d.poses = poses.data;
        d.pose_size = poses.cols;
        if (rest.data && rest.rows != poses.cols) {
            sn_py_raise_msg(SINEW_ERROR_MISMATCH, "rest_pose: %zu numbers, the poses have %zu", rest.rows, poses.cols);
            goto done;
        }
        d.rest_pose = rest.data;
    }
    sn_py_call call;
    if (sn_py_call_begin(&call, NULL) == 0) {
        sinew_corrective *c = NULL;
        sn_py_release_gil(&call);
        sinew_result r = sinew_corrective_create(call.ctx, &d, &c);
        sn_py_acquire_gil(&call);
        if (sn_py_call_end(&call, r) == 0) result = sn_py_handle_new(SINEW_KIND_CORRECTIVE, c);
    }
done:
    PyMem_Free(count_values);
    sn_py_array_release(&offsets);
    sn_py_array_release(&poses);
    sn_py_array_release(&rest);
    sn_py_array_release(&counts);
    sn_py_array_release(&points);
    return result;
}

static PyObject *py_corrective_info(PyObject *self, PyObject *handle)
{
    (void)self;
    sinew_corrective *c = sn_py_handle_enter(handle, SINEW_KIND_CORRECTIVE, "corrective", 0);
    if (!c) return NULL;
    sinew_corrective_info i;
    int ok = corrective_info(c, &i) == 0;
    sn_py_handle_leave(handle, 0);
    if (!ok) return NULL;
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    if (sn_py_dict_steal(d, "point_count", PyLong_FromSize_t(i.point_count)) < 0 ||
        sn_py_dict_steal(d, "key_count", PyLong_FromSize_t(i.key_count)) < 0 ||
        sn_py_dict_steal(d, "pose_size", PyLong_FromSize_t(i.pose_size)) < 0 ||
        sn_py_dict_steal(d, "offset_count", PyLong_FromSize_t(i.offset_count)) < 0 ||
        sn_py_dict_steal(d, "kernel", PyLong_FromLong((long)i.kernel)) < 0 ||
        sn_py_dict_steal(d, "radius", PyFloat_FromDouble(i.radius)) < 0 ||
        sn_py_dict_steal(d, "smoothing", PyFloat_FromDouble(i.smoothing)) < 0 ||
        sn_py_dict_steal(d, "memory_bytes", PyLong_FromSize_t(i.memory_bytes)) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* corrective_weights(corrective, pose, out=None) -> (K,) float32. */
static PyObject *py_corrective_weights(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"corrective", "pose", "out", NULL};
    PyObject *handle, *pose_obj, *out_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O", kwlist, &handle, &pose_obj, &out_obj)) return NULL;
    sinew_corrective *c = sn_py_handle_enter(handle, SINEW_KIND_CORRECTIVE, "corrective", 0);
    if (!c) return NULL;
    PyObject *result = NULL;
    sn_py_array pose = SN_PY_ARRAY_INIT, out = SN_PY_ARRAY_INIT;
    sinew_corrective_info info;
    if (corrective_info(c, &info) == 0 && sn_py_floats_in(pose_obj, "pose", SN_PY_ANY, 1, SN_PY_FLAT, &pose) == 0 &&
        sn_py_out(out_obj, "out", NPY_FLOAT32, (Py_ssize_t)info.key_count, 1, SN_PY_FLAT, 0, &out) == 0) {
        sinew_result r = sinew_corrective_weights(c, pose.data, pose.rows, out.data, info.key_count);
        result = r == SINEW_OK ? sn_py_array_result(&out) : sn_py_raise(r);
    }
    sn_py_array_release(&pose);
    sn_py_array_release(&out);
    sn_py_handle_leave(handle, 0);
    return result;
}

/* Shared by apply and deform: (corrective, vector, base (N, 3), out=None,
 * first=None, count=None) -> (N, 3); `weights` picks the call. */
static PyObject *blend(PyObject *args, PyObject *kwargs, int weights)
{
    static char *kwlist_w[] = {"corrective", "weights", "base", "out", "first", "count", NULL};
    static char *kwlist_p[] = {"corrective", "pose", "base", "out", "first", "count", NULL};
    PyObject *handle, *vector_obj, *base_obj, *out_obj = Py_None, *first_obj = Py_None, *count_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|OOO", weights ? kwlist_w : kwlist_p, &handle, &vector_obj,
                                     &base_obj, &out_obj, &first_obj, &count_obj))
        return NULL;
    sinew_corrective *c = sn_py_handle_enter(handle, SINEW_KIND_CORRECTIVE, "corrective", 0);
    if (!c) return NULL;
    const char *vector_name = weights ? "weights" : "pose";
    PyObject *result = NULL;
    sn_py_array vector = SN_PY_ARRAY_INIT, base = SN_PY_ARRAY_INIT, out = SN_PY_ARRAY_INIT;
    size_t first, count;
    if (sn_py_floats_in(vector_obj, vector_name, SN_PY_ANY, 1, SN_PY_FLAT, &vector) == 0 &&
        sn_py_floats_in(base_obj, "base", SN_PY_ANY, 3, SN_PY_STRIDED | SN_PY_RANGED, &base) == 0 &&
        sn_py_range(first_obj, count_obj, base.rows, &first, &count) == 0 &&
        sn_py_array_range(&base, first, count) == 0 &&
        sn_py_out(out_obj, "out", NPY_FLOAT32, (Py_ssize_t)base.rows, 3, SN_PY_STRIDED, 1, &out) == 0 &&
        sn_py_check_overlap(&base, "base", &out, "out") == 0) {
        sinew_points view = sn_py_points(&base);
        sinew_result r;
        if (count >= SN_PY_NOGIL_MIN_ELEMENTS) {
            Py_BEGIN_ALLOW_THREADS
            r = weights ? sinew_corrective_apply(c, vector.data, vector.rows, &view, out.data, out.stride, first, count)
                        : sinew_corrective_deform(c, vector.data, vector.rows, &view, out.data, out.stride, first, count);
            Py_END_ALLOW_THREADS
        } else {
            r = weights ? sinew_corrective_apply(c, vector.data, vector.rows, &view, out.data, out.stride, first, count)
                        : sinew_corrective_deform(c, vector.data, vector.rows, &view, out.data, out.stride, first, count);
        }
        result = r == SINEW_OK ? sn_py_array_result(&out) : sn_py_raise(r);
    }
    sn_py_array_release(&vector);
    sn_py_array_release(&base);
    sn_py_array_release(&out);
    sn_py_handle_leave(handle, 0);
    return result;
}

static PyObject *py_corrective_apply(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    return blend(args, kwargs, 1);
}

static PyObject *py_corrective_deform(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    return blend(args, kwargs, 0);
}

/* corrective_swing_twist(rotations (J, 4), twist_axes (J, 3) or None) -> (J, 3). */
static PyObject *py_corrective_swing_twist(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"rotations", "twist_axes", NULL};
    PyObject *rot_obj, *axes_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", kwlist, &rot_obj, &axes_obj)) return NULL;
    PyObject *result = NULL;
    sn_py_array rot = SN_PY_ARRAY_INIT, axes = SN_PY_ARRAY_INIT, out = SN_PY_ARRAY_INIT;
    if (sn_py_floats_in(rot_obj, "rotations", SN_PY_ANY, 4, 0, &rot) == 0 &&
        sn_py_floats_in(axes_obj, "twist_axes", (Py_ssize_t)rot.rows, 3, SN_PY_OPTIONAL, &axes) == 0 &&
        sn_py_out(Py_None, "out", NPY_FLOAT32, (Py_ssize_t)rot.rows, 3, 0, 0, &out) == 0) {
        sinew_result r = sinew_corrective_swing_twist(rot.data, axes.data, rot.rows, out.data, 3 * rot.rows);
        result = r == SINEW_OK ? sn_py_array_result(&out) : sn_py_raise(r);
    }
    sn_py_array_release(&rot);
    sn_py_array_release(&axes);
    sn_py_array_release(&out);
    return result;
}

#define KW(name, doc) {#name, (PyCFunction)(void (*)(void))py_##name, METH_VARARGS | METH_KEYWORDS, doc}

static PyMethodDef corrective_methods[] = {
    KW(corrective_create, "corrective_create(offsets, poses=None, rest_pose=None, kernel=0, radius=0, smoothing=0, "
                          "point_count=0, key_count=0, key_offset_counts=None, offset_points=None) -> Handle"),
    {"corrective_info", py_corrective_info, METH_O, "corrective_info(corrective) -> dict of sinew_corrective_info"},
    KW(corrective_weights, "corrective_weights(corrective, pose, out=None) -> (key_count,)"),
    KW(corrective_apply, "corrective_apply(corrective, weights, base, out=None, first=None, count=None) -> (n, 3)"),
    KW(corrective_deform, "corrective_deform(corrective, pose, base, out=None, first=None, count=None) -> (n, 3)"),
    KW(corrective_swing_twist, "corrective_swing_twist(rotations, twist_axes=None) -> (joints, 3)"),
    {NULL, NULL, 0, NULL},
};

int sn_py_register_corrective(PyObject *module)
{
    return PyModule_AddFunctions(module, corrective_methods);
}
