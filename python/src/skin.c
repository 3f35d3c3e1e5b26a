/*
 * sinew Python binding: skinning (include/sinew/skin.h).
 *
 * Module functions over a Handle of kind SINEW_KIND_SKIN; sinew/skin.py
 * builds the Skin class on them.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

#include <time.h>

#define SKIN SINEW_KIND_SKIN

/* Weights: float32 (any real array, copied), or uint16 / uint8 normalised
 * integers (glTF's UNORM16 / UNORM8) used as they are. */
static int weights_in(PyObject *obj, size_t vertex_count, size_t influence_count, sn_py_array *out,
                      sinew_skin_weight_type *type)
{
    if (PyArray_Check(obj) && (PyArray_TYPE((PyArrayObject *)obj) == NPY_UINT16 ||
                               PyArray_TYPE((PyArrayObject *)obj) == NPY_UINT8)) {
        if (sn_py_indices_in(obj, "weights", (Py_ssize_t)vertex_count, (Py_ssize_t)influence_count, SN_PY_STRIDED,
                             out) < 0)
            return -1;
        *type = out->type_num == NPY_UINT16 ? SINEW_SKIN_WEIGHT_UNORM16 : SINEW_SKIN_WEIGHT_UNORM8;
        return 0;
    }
    *type = SINEW_SKIN_WEIGHT_F32;
    return sn_py_floats_in(obj, "weights", (Py_ssize_t)vertex_count, (Py_ssize_t)influence_count,
                           SN_PY_STRIDED | SN_PY_FINITE, out);
}

static PyObject *py_skin_create(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"joints", "weights", "joint_count", "inverse_bind", "renormalise", "weight_tolerance",
                               "unweighted", "unweighted_joint", "storage", "blend", "dq_blend", "normals", "kernel",
                               "progress", NULL};
    PyObject *joints_obj, *weights_obj, *inverse_bind_obj = Py_None, *dq_blend_obj = Py_None, *progress = Py_None;
    size_t joint_count;
    int renormalise = 0, unweighted = 0, storage = 0, blend = 0, normals = 0, kernel = 0;
    float weight_tolerance = 0.0f;
    uint32_t unweighted_joint = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO&|$OpfO&O&O&O&OO&O&O:skin_create", keywords, &joints_obj,
                                     &weights_obj, SN_PY_COUNT("joint_count", &joint_count), &inverse_bind_obj,
                                     &renormalise, &weight_tolerance, SN_PY_ENUM("unweighted", &unweighted),
                                     SN_PY_U32("unweighted_joint", &unweighted_joint), SN_PY_ENUM("storage", &storage),
                                     SN_PY_ENUM("blend", &blend), &dq_blend_obj, SN_PY_ENUM("normals", &normals),
                                     SN_PY_ENUM("kernel", &kernel), &progress))
        return NULL;
    if (joint_count == 0)
        return sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "joint_count: expected a count > 0, got 0");
    sn_py_array joints = SN_PY_ARRAY_INIT, weights = SN_PY_ARRAY_INIT, inverse_bind = SN_PY_ARRAY_INIT,
                dq_blend = SN_PY_ARRAY_INIT;
    PyObject *result = NULL;
    sinew_skin_weight_type weight_type;
    if (sn_py_indices_in(joints_obj, "joints", SN_PY_ANY, SN_PY_ANY, SN_PY_STRIDED, &joints) < 0 ||
        weights_in(weights_obj, joints.rows, joints.cols, &weights, &weight_type) < 0 ||
        sn_py_matrices_in(inverse_bind_obj, "inverse_bind", (Py_ssize_t)joint_count, SN_PY_OPTIONAL | SN_PY_FINITE,
                          &inverse_bind) < 0 ||
        sn_py_floats_in(dq_blend_obj, "dq_blend", (Py_ssize_t)joints.rows, 1, SN_PY_OPTIONAL | SN_PY_FLAT | SN_PY_FINITE,
                        &dq_blend) < 0)
        goto done;
    sinew_skin_desc desc;
    SINEW_INIT(&desc);
    desc.vertex_count = joints.rows;
    desc.joint_count = joint_count;
    desc.influence_count = joints.cols;
    desc.joints = joints.data;
    desc.joint_type = joints.index_type;
    desc.joint_stride = joints.stride;
    desc.weights = weights.data;
    desc.weight_type = weight_type;
    desc.weight_stride = weights.stride;
    desc.inverse_bind = inverse_bind.data;
    desc.renormalise = renormalise;
    desc.weight_tolerance = weight_tolerance;
    desc.unweighted = (sinew_skin_unweighted)unweighted;
    desc.unweighted_joint = unweighted_joint;
    desc.storage = (sinew_skin_storage)storage;
    desc.blend = (sinew_skin_blend)blend;
    desc.dq_blend = dq_blend.data;
    desc.normals = (sinew_skin_normals)normals;
    desc.kernel = (sinew_skin_kernel)kernel;
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) < 0) goto done;
    sinew_skin *skin = NULL;
    sn_py_release_gil(&call);
    sinew_result r = sinew_skin_create(call.ctx, &desc, &skin);
    sn_py_acquire_gil(&call);
    if (sn_py_call_end(&call, r) < 0) goto done;
    result = sn_py_handle_new(SKIN, skin);
done:
    sn_py_array_release(&joints);
    sn_py_array_release(&weights);
    sn_py_array_release(&inverse_bind);
    sn_py_array_release(&dq_blend);
    return result;
}

static PyObject *py_skin_info(PyObject *self, PyObject *arg)
{
    (void)self;
    const sinew_skin *skin = sn_py_handle_enter(arg, SKIN, "skin", 0);
    if (!skin) return NULL;
    sinew_skin_info info;
    SINEW_INIT(&info);
    sinew_result r = sinew_skin_get_info(skin, &info);
    sn_py_handle_leave(arg, 0);
    if (r != SINEW_OK) return sn_py_raise(r);
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    if (sn_py_dict_steal(d, "vertex_count", PyLong_FromSize_t(info.vertex_count)) < 0 ||
        sn_py_dict_steal(d, "joint_count", PyLong_FromSize_t(info.joint_count)) < 0 ||
        sn_py_dict_steal(d, "max_nonzero_influences", PyLong_FromSize_t(info.max_nonzero_influences)) < 0 ||
        sn_py_dict_steal(d, "single_joint_vertices", PyLong_FromSize_t(info.single_joint_vertices)) < 0 ||
        sn_py_dict_steal(d, "merged_duplicates", PyLong_FromSize_t(info.merged_duplicates)) < 0 ||
        sn_py_dict_steal(d, "renormalised_vertices", PyLong_FromSize_t(info.renormalised_vertices)) < 0 ||
        sn_py_dict_steal(d, "unweighted_vertices", PyLong_FromSize_t(info.unweighted_vertices)) < 0 ||
        sn_py_dict_steal(d, "palette_floats", PyLong_FromSize_t(info.palette_floats)) < 0 ||
        sn_py_dict_steal(d, "palette_joint_floats", PyLong_FromSize_t(info.palette_joint_floats)) < 0 ||
        sn_py_dict_steal(d, "memory_bytes", PyLong_FromSize_t(info.memory_bytes)) < 0 ||
        sn_py_dict_steal(d, "storage", PyLong_FromLong((long)info.storage)) < 0 ||
        sn_py_dict_steal(d, "blend", PyLong_FromLong((long)info.blend)) < 0 ||
        sn_py_dict_steal(d, "normals", PyLong_FromLong((long)info.normals)) < 0 ||
        sn_py_dict_steal(d, "kernel", PyLong_FromLong((long)info.kernel)) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* A new float32 palette of n floats starting on a 64-byte boundary (the
 * fastest kernels' alignment): a view into a slightly larger array. */
static PyObject *aligned_palette(size_t n)
{
    npy_intp padded = (npy_intp)n + 16;
    PyArrayObject *base = (PyArrayObject *)PyArray_ZEROS(1, &padded, NPY_FLOAT32, 0);
    if (!base) return NULL;
    size_t skip = (size_t)((64 - ((uintptr_t)PyArray_DATA(base) & 63)) & 63) / sizeof(float);
    npy_intp dims[1] = {(npy_intp)n};
    Py_INCREF(PyArray_DESCR(base));
    PyObject *view = PyArray_NewFromDescr(&PyArray_Type, PyArray_DESCR(base), 1, dims, NULL,
                                          (float *)PyArray_DATA(base) + skip, NPY_ARRAY_CARRAY, NULL);
    if (!view) {
        Py_DECREF(base);
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)view, (PyObject *)base) < 0) {
        Py_DECREF(view);
        return NULL;
    }
    return view;
}

static PyObject *py_skin_palette(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"skin", "joint_world", "out", NULL};
    PyObject *handle, *world_obj, *out_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O:skin_palette", keywords, &handle, &world_obj, &out_obj))
        return NULL;
    const sinew_skin *skin = sn_py_handle_enter(handle, SKIN, "skin", 0);
    if (!skin) return NULL;
    sinew_skin_info info;
    SINEW_INIT(&info);
    sinew_skin_get_info(skin, &info);
    size_t floats = sinew_skin_palette_size(skin);
    sn_py_array world = SN_PY_ARRAY_INIT, palette = SN_PY_ARRAY_INIT;
    PyObject *result = NULL, *fresh = NULL;
    if (sn_py_matrices_in(world_obj, "joint_world", (Py_ssize_t)info.joint_count, 0, &world) < 0) goto done;
    if (out_obj == Py_None && !(out_obj = fresh = aligned_palette(floats))) goto done;
    if (sn_py_out(out_obj, "out", NPY_FLOAT32, (Py_ssize_t)floats, 1, SN_PY_FLAT, 0, &palette) < 0) goto done;
    sinew_result r = sinew_skin_palette(skin, world.data, world.rows, palette.data, floats);
    if (r != SINEW_OK) {
        sn_py_raise(r);
        goto done;
    }
    result = sn_py_array_result(&palette);
done:
    Py_XDECREF(fresh);
    sn_py_array_release(&world);
    sn_py_array_release(&palette);
    sn_py_handle_leave(handle, 0);
    return result;
}

static PyObject *py_skin_palette_size(PyObject *self, PyObject *arg)
{
    (void)self;
    const sinew_skin *skin = sn_py_handle_enter(arg, SKIN, "skin", 0);
    if (!skin) return NULL;
    size_t n = sinew_skin_palette_size(skin);
    sn_py_handle_leave(arg, 0);
    return PyLong_FromSize_t(n);
}

/* One deform stream: the input and, when the input is given, its output
 * (the caller's array or a new one). */
typedef struct stream {
    const char *in_name, *out_name;
    Py_ssize_t width;
    sn_py_array in, out;
} stream;

/* The input stream (only the rows [first, first + count) copied when it
 * cannot be read in place) and its output. */
static int stream_open(stream *s, PyObject *in_obj, PyObject *out_obj, size_t vertex_count, size_t first,
                       size_t count)
{
    if (sn_py_floats_in(in_obj, s->in_name, (Py_ssize_t)vertex_count, s->width,
                        SN_PY_OPTIONAL | SN_PY_STRIDED | SN_PY_RANGED, &s->in) < 0 ||
        sn_py_array_range(&s->in, first, count) < 0)
        return -1;
    int whole = first == 0 && count == vertex_count;
    if (!s->in.data) {
        if (out_obj != Py_None) {
            sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%s is given without %s", s->out_name, s->in_name);
            return -1;
        }
        return 0;
    }
    if (sn_py_out(out_obj, s->out_name, NPY_FLOAT32, (Py_ssize_t)vertex_count, s->width, SN_PY_STRIDED, !whole,
                  &s->out) < 0)
        return -1;
    return sn_py_check_overlap(&s->in, s->in_name, &s->out, s->out_name);
}

static PyObject *py_skin_deform(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"skin", "palette", "positions", "normals", "tangents", "out", "out_normals",
                               "out_tangents", "first", "count", NULL};
    PyObject *handle, *palette_obj, *in_obj[3] = {Py_None, Py_None, Py_None}, *out_obj[3] = {Py_None, Py_None, Py_None};
    PyObject *first_obj = Py_None, *count_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OOO$OOOOO:skin_deform", keywords, &handle, &palette_obj,
                                     &in_obj[0], &in_obj[1], &in_obj[2], &out_obj[0], &out_obj[1], &out_obj[2],
                                     &first_obj, &count_obj))
        return NULL;
    const sinew_skin *skin = sn_py_handle_enter(handle, SKIN, "skin", 0);
    if (!skin) return NULL;
    stream s[3] = {{"positions", "out", 3, SN_PY_ARRAY_INIT, SN_PY_ARRAY_INIT},
                   {"normals", "out_normals", 3, SN_PY_ARRAY_INIT, SN_PY_ARRAY_INIT},
                   {"tangents", "out_tangents", 4, SN_PY_ARRAY_INIT, SN_PY_ARRAY_INIT}};
    sn_py_array palette = SN_PY_ARRAY_INIT;
    PyObject *result = NULL;
    sinew_skin_info info;
    SINEW_INIT(&info);
    sinew_skin_get_info(skin, &info);
    size_t first, count;
    if (sn_py_range(first_obj, count_obj, info.vertex_count, &first, &count) < 0) goto done;
    if (sn_py_floats_in(palette_obj, "palette", SN_PY_ANY, 1, SN_PY_FLAT, &palette) < 0) goto done;
    for (int i = 0; i < 3; ++i)
        if (stream_open(&s[i], in_obj[i], out_obj[i], info.vertex_count, first, count) < 0) goto done;
    if (!s[0].in.data && !s[1].in.data && !s[2].in.data) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "positions, normals, tangents: give at least one stream");
        goto done;
    }
    sinew_skin_input in = {s[0].in.data, s[0].in.stride, s[1].in.data, s[1].in.stride, s[2].in.data, s[2].in.stride};
    sinew_skin_output out = {s[0].out.data, s[0].out.stride, s[1].out.data, s[1].out.stride,
                             s[2].out.data, s[2].out.stride};
    sinew_result r;
    if (count >= SN_PY_NOGIL_MIN_ELEMENTS) {
        Py_BEGIN_ALLOW_THREADS
        r = sinew_skin_deform(skin, palette.data, palette.rows, &in, &out, first, count);
        Py_END_ALLOW_THREADS
    } else {
        r = sinew_skin_deform(skin, palette.data, palette.rows, &in, &out, first, count);
    }
    if (r != SINEW_OK) {
        sn_py_raise(r);
        goto done;
    }
    result = PyTuple_New(3);
    if (!result) goto done;
    for (int i = 0; i < 3; ++i) PyTuple_SET_ITEM(result, i, sn_py_array_result(&s[i].out));
done:
    for (int i = 0; i < 3; ++i) {
        sn_py_array_release(&s[i].in);
        sn_py_array_release(&s[i].out);
    }
    sn_py_array_release(&palette);
    sn_py_handle_leave(handle, 0);
    return result;
}

static PyObject *py_skin_vertex_matrices(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"skin", "palette", "out", "first", "count", NULL};
    PyObject *handle, *palette_obj, *out_obj = Py_None, *first_obj = Py_None, *count_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$OOO:skin_vertex_matrices", keywords, &handle, &palette_obj,
                                     &out_obj, &first_obj, &count_obj))
        return NULL;
    const sinew_skin *skin = sn_py_handle_enter(handle, SKIN, "skin", 0);
    if (!skin) return NULL;
    sn_py_array palette = SN_PY_ARRAY_INIT, matrices = SN_PY_ARRAY_INIT;
    PyObject *result = NULL;
    sinew_skin_info info;
    SINEW_INIT(&info);
    sinew_skin_get_info(skin, &info);
    size_t first, count;
    if (sn_py_range(first_obj, count_obj, info.vertex_count, &first, &count) < 0 ||
        sn_py_floats_in(palette_obj, "palette", SN_PY_ANY, 1, SN_PY_FLAT, &palette) < 0 ||
        sn_py_matrices_out(out_obj, "out", (Py_ssize_t)info.vertex_count, &matrices) < 0)
        goto done;
    if (out_obj == Py_None && count != info.vertex_count)
        memset(matrices.data, 0, info.vertex_count * 16 * sizeof(float));
    sinew_result r;
    Py_BEGIN_ALLOW_THREADS
    r = sinew_skin_vertex_matrices(skin, palette.data, palette.rows, matrices.data, 0, first, count);
    Py_END_ALLOW_THREADS
    if (r != SINEW_OK) {
        sn_py_raise(r);
        goto done;
    }
    result = sn_py_matrices_result(&matrices);
done:
    sn_py_array_release(&palette);
    sn_py_array_release(&matrices);
    sn_py_handle_leave(handle, 0);
    return result;
}

static PyObject *py_skin_vertex_influences(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    size_t vertex;
    if (!PyArg_ParseTuple(args, "OO&:skin_vertex_influences", &handle, SN_PY_INDEX("vertex", &vertex))) return NULL;
    const sinew_skin *skin = sn_py_handle_enter(handle, SKIN, "skin", 0);
    if (!skin) return NULL;
    PyObject *result = NULL;
    PyArrayObject *joints = NULL, *weights = NULL;
    size_t count = 0;
    sinew_result r = sinew_skin_vertex_influences(skin, vertex, NULL, NULL, 0, &count);
    if (r != SINEW_OK) {
        sn_py_raise(r);
        goto done;
    }
    npy_intp n = (npy_intp)count;
    joints = (PyArrayObject *)PyArray_EMPTY(1, &n, NPY_UINT32, 0);
    weights = (PyArrayObject *)PyArray_EMPTY(1, &n, NPY_FLOAT32, 0);
    if (!joints || !weights) goto done;
    r = sinew_skin_vertex_influences(skin, vertex, PyArray_DATA(joints), PyArray_DATA(weights), count, &count);
    if (r != SINEW_OK) {
        sn_py_raise(r);
        goto done;
    }
    result = PyTuple_Pack(2, (PyObject *)joints, (PyObject *)weights);
done:
    Py_XDECREF(joints);
    Py_XDECREF(weights);
    sn_py_handle_leave(handle, 0);
    return result;
}

/* Every vertex's stored influences as (vertex_count, K) arrays, K the most
 * nonzero influences of any vertex, rows sorted by decreasing weight and
 * padded with joint 0, weight 0. */
static PyObject *py_skin_influences(PyObject *self, PyObject *arg)
{
    (void)self;
    const sinew_skin *skin = sn_py_handle_enter(arg, SKIN, "skin", 0);
    if (!skin) return NULL;
    sinew_skin_info info;
    SINEW_INIT(&info);
    sinew_skin_get_info(skin, &info);
    npy_intp dims[2] = {(npy_intp)info.vertex_count, (npy_intp)info.max_nonzero_influences};
    PyArrayObject *joints = (PyArrayObject *)PyArray_ZEROS(2, dims, NPY_UINT32, 0);
    PyArrayObject *weights = (PyArrayObject *)PyArray_ZEROS(2, dims, NPY_FLOAT32, 0);
    PyObject *result = NULL;
    if (!joints || !weights) goto done;
    size_t k = info.max_nonzero_influences;
    for (size_t v = 0; v < info.vertex_count; ++v) {
        size_t count;
        sinew_result r = sinew_skin_vertex_influences(skin, v, (uint32_t *)PyArray_DATA(joints) + v * k,
                                                      (float *)PyArray_DATA(weights) + v * k, k, &count);
        if (r != SINEW_OK) {
            sn_py_raise(r);
            goto done;
        }
    }
    result = PyTuple_Pack(2, (PyObject *)joints, (PyObject *)weights);
done:
    Py_XDECREF(joints);
    Py_XDECREF(weights);
    sn_py_handle_leave(arg, 0);
    return result;
}

/* Benchmark support: seconds per sinew_skin_deform call of positions only,
 * timed in C over `repeats` calls (the baseline the Python per-call overhead
 * is measured against). */
static PyObject *py_skin_time_deform(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle, *palette_obj, *positions_obj, *out_obj;
    size_t repeats;
    if (!PyArg_ParseTuple(args, "OOOOO&:_skin_time_deform", &handle, &palette_obj, &positions_obj, &out_obj,
                          SN_PY_COUNT("repeats", &repeats)))
        return NULL;
    const sinew_skin *skin = sn_py_handle_enter(handle, SKIN, "skin", 0);
    if (!skin) return NULL;
    sinew_skin_info info;
    SINEW_INIT(&info);
    sinew_skin_get_info(skin, &info);
    sn_py_array palette = SN_PY_ARRAY_INIT, positions = SN_PY_ARRAY_INIT, out = SN_PY_ARRAY_INIT;
    PyObject *result = NULL;
    if (sn_py_floats_in(palette_obj, "palette", SN_PY_ANY, 1, SN_PY_FLAT, &palette) < 0 ||
        sn_py_floats_in(positions_obj, "positions", (Py_ssize_t)info.vertex_count, 3, SN_PY_STRIDED, &positions) < 0 ||
        sn_py_out(out_obj, "out", NPY_FLOAT32, (Py_ssize_t)info.vertex_count, 3, SN_PY_STRIDED, 0, &out) < 0)
        goto done;
    sinew_skin_input in = {positions.data, positions.stride, NULL, 0, NULL, 0};
    sinew_skin_output o = {out.data, out.stride, NULL, 0, NULL, 0};
    sinew_result r = SINEW_OK;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t i = 0; i < repeats && r == SINEW_OK; ++i)
        r = sinew_skin_deform(skin, palette.data, palette.rows, &in, &o, 0, info.vertex_count);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (r != SINEW_OK) {
        sn_py_raise(r);
        goto done;
    }
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    result = PyFloat_FromDouble(repeats > 0 ? seconds / (double)repeats : 0.0);
done:
    sn_py_array_release(&palette);
    sn_py_array_release(&positions);
    sn_py_array_release(&out);
    sn_py_handle_leave(handle, 0);
    return result;
}

#define KW (METH_VARARGS | METH_KEYWORDS)
#define FN(f) ((PyCFunction)(void (*)(void))(f))

static PyMethodDef skin_methods[] = {
    {"skin_create", FN(py_skin_create), KW,
     "skin_create(joints, weights, joint_count, *, inverse_bind=None, renormalise=False, weight_tolerance=0, "
     "unweighted=0, unweighted_joint=0, storage=0, blend=0, dq_blend=None, normals=0, kernel=0, progress=None) "
     "-> Handle (sinew_skin_create)."},
    {"skin_info", py_skin_info, METH_O, "skin_info(skin) -> dict (sinew_skin_get_info)."},
    {"skin_palette_size", py_skin_palette_size, METH_O, "skin_palette_size(skin) -> int (sinew_skin_palette_size)."},
    {"skin_palette", FN(py_skin_palette), KW,
     "skin_palette(skin, joint_world, out=None) -> float32 array (sinew_skin_palette); joint_world (J, 4, 4)."},
    {"skin_deform", FN(py_skin_deform), KW,
     "skin_deform(skin, palette, positions=None, normals=None, tangents=None, *, out=None, out_normals=None, "
     "out_tangents=None, first=None, count=None) -> (positions, normals, tangents) (sinew_skin_deform)."},
    {"skin_vertex_matrices", FN(py_skin_vertex_matrices), KW,
     "skin_vertex_matrices(skin, palette, *, out=None, first=None, count=None) -> (V, 4, 4) "
     "(sinew_skin_vertex_matrices)."},
    {"skin_vertex_influences", py_skin_vertex_influences, METH_VARARGS,
     "skin_vertex_influences(skin, vertex) -> (joints, weights) (sinew_skin_vertex_influences)."},
    {"skin_influences", py_skin_influences, METH_O,
     "skin_influences(skin) -> (joints, weights), (V, K) arrays of every vertex's stored influences."},
    {"_skin_time_deform", py_skin_time_deform, METH_VARARGS,
     "_skin_time_deform(skin, palette, positions, out, repeats) -> seconds per C deform call (benchmarks)."},
    {NULL, NULL, 0, NULL},
};

int sn_py_register_skin(PyObject *module)
{
    return PyModule_AddFunctions(module, skin_methods);
}
