/*
 * sinew Python binding: surface-oriented FFD (include/sinew/soffd.h).
 *
 * Module functions over a Handle of kind SINEW_KIND_SOFFD; sinew/soffd.py
 * builds the Soffd class on them. Frames (element and vertex) are (N, 4, 4)
 * arrays in numpy's convention over column-major memory, so the arrays the
 * frame functions return go back into the deforms without a copy.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

#define SOFFD SINEW_KIND_SOFFD

static sinew_soffd_info get_info(const sinew_soffd *soffd)
{
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_soffd_get_info(soffd, &info);
    return info;
}

static PyObject *py_soffd_create(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"positions", "indices", "face_sizes", "local", "length_scale", "skip_degenerate",
                               "progress", NULL};
    PyObject *positions_obj, *indices_obj, *sizes_obj = Py_None, *progress = Py_None;
    float local = 0.0f, length_scale = 0.0f;
    int skip_degenerate = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O$ffpO:soffd_create", keywords, &positions_obj, &indices_obj,
                                     &sizes_obj, &local, &length_scale, &skip_degenerate, &progress))
        return NULL;
    sn_py_array positions = SN_PY_ARRAY_INIT, indices = SN_PY_ARRAY_INIT, sizes = SN_PY_ARRAY_INIT;
    PyObject *result = NULL;
    sinew_polymesh driver;
    if (sn_py_polymesh_in(positions_obj, indices_obj, sizes_obj, &positions, &indices, &sizes, &driver) < 0) goto done;
    sinew_soffd_desc desc;
    SINEW_INIT(&desc);
    desc.local = local;
    desc.length_scale = length_scale;
    desc.skip_degenerate = skip_degenerate;
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) < 0) goto done;
    sinew_soffd *soffd = NULL;
    sn_py_release_gil(&call);
    sinew_result r = sinew_soffd_create(call.ctx, &driver, &desc, &soffd);
    sn_py_acquire_gil(&call);
    if (sn_py_call_end(&call, r) < 0) goto done;
    result = sn_py_handle_new(SOFFD, soffd);
done:
    sn_py_array_release(&positions);
    sn_py_array_release(&indices);
    sn_py_array_release(&sizes);
    return result;
}

static PyObject *py_soffd_info(PyObject *self, PyObject *arg)
{
    (void)self;
    const sinew_soffd *soffd = sn_py_handle_enter(arg, SOFFD, "soffd", 0);
    if (!soffd) return NULL;
    sinew_soffd_info info = get_info(soffd);
    sn_py_handle_leave(arg, 0);
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    if (sn_py_dict_steal(d, "vertex_count", PyLong_FromSize_t(info.vertex_count)) < 0 ||
        sn_py_dict_steal(d, "face_count", PyLong_FromSize_t(info.face_count)) < 0 ||
        sn_py_dict_steal(d, "element_count", PyLong_FromSize_t(info.element_count)) < 0 ||
        sn_py_dict_steal(d, "skipped_triangles", PyLong_FromSize_t(info.skipped_triangles)) < 0 ||
        sn_py_dict_steal(d, "local", PyFloat_FromDouble(info.local)) < 0 ||
        sn_py_dict_steal(d, "length_scale", PyFloat_FromDouble(info.length_scale)) < 0 ||
        sn_py_dict_steal(d, "point_count", PyLong_FromSize_t(info.point_count)) < 0 ||
        sn_py_dict_steal(d, "contribution_count", PyLong_FromSize_t(info.contribution_count)) < 0 ||
        sn_py_dict_steal(d, "max_set_size", PyLong_FromSize_t(info.max_set_size)) < 0 ||
        sn_py_dict_steal(d, "empty_points", PyLong_FromSize_t(info.empty_points)) < 0 ||
        sn_py_dict_steal(d, "max_dropped_mass", PyFloat_FromDouble(info.max_dropped_mass)) < 0 ||
        sn_py_dict_steal(d, "memory_bytes", PyLong_FromSize_t(info.memory_bytes)) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* One uint32 per element, read by `get` (sinew_soffd_element_face or
 * sinew_soffd_element_parent). */
static PyObject *per_element_array(PyObject *arg, sinew_result (*get)(const sinew_soffd *, size_t, uint32_t *))
{
    const sinew_soffd *soffd = sn_py_handle_enter(arg, SOFFD, "soffd", 0);
    if (!soffd) return NULL;
    sinew_soffd_info info = get_info(soffd);
    npy_intp n = (npy_intp)info.element_count;
    PyArrayObject *out = (PyArrayObject *)PyArray_EMPTY(1, &n, NPY_UINT32, 0);
    for (size_t e = 0; out && e < info.element_count; ++e) {
        sinew_result r = get(soffd, e, (uint32_t *)PyArray_DATA(out) + e);
        if (r != SINEW_OK) {
            Py_CLEAR(out);
            sn_py_raise(r);
        }
    }
    sn_py_handle_leave(arg, 0);
    return (PyObject *)out;
}

/* Face of every element (sinew_soffd_element_face). */
static PyObject *py_soffd_element_faces(PyObject *self, PyObject *arg)
{
    (void)self;
    return per_element_array(arg, sinew_soffd_element_face);
}

static PyObject *py_soffd_skipped(PyObject *self, PyObject *arg)
{
    (void)self;
    const sinew_soffd *soffd = sn_py_handle_enter(arg, SOFFD, "soffd", 0);
    if (!soffd) return NULL;
    size_t count = 0;
    PyArrayObject *faces = NULL;
    sinew_result r = sinew_soffd_skipped_faces(soffd, NULL, 0, &count);
    if (r == SINEW_OK) {
        npy_intp n = (npy_intp)count;
        faces = (PyArrayObject *)PyArray_EMPTY(1, &n, NPY_UINT32, 0);
        if (faces) r = sinew_soffd_skipped_faces(soffd, PyArray_DATA(faces), count, &count);
    }
    if (r != SINEW_OK) {
        Py_CLEAR(faces);
        sn_py_raise(r);
    }
    sn_py_handle_leave(arg, 0);
    return (PyObject *)faces;
}

static PyObject *py_soffd_register(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"soffd", "points", "weight_threshold", "max_contributors", "max_distance", "exclusive",
                               "exact", "progress", NULL};
    PyObject *handle, *points_obj, *progress = Py_None;
    float weight_threshold = 0.0f, max_distance = 0.0f;
    uint32_t max_contributors = 0;
    int exclusive = 0, exact = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$fO&fppO:soffd_register", keywords, &handle, &points_obj,
                                     &weight_threshold, SN_PY_U32("max_contributors", &max_contributors),
                                     &max_distance, &exclusive, &exact, &progress))
        return NULL;
    sinew_soffd *soffd = sn_py_handle_enter(handle, SOFFD, "soffd", 1);
    if (!soffd) return NULL;
    sn_py_array points = SN_PY_ARRAY_INIT;
    PyObject *result = NULL;
    if (sn_py_floats_in(points_obj, "points", SN_PY_ANY, 3, SN_PY_STRIDED, &points) < 0) goto done;
    sinew_soffd_register_desc policy;
    SINEW_INIT(&policy);
    policy.weight_threshold = weight_threshold;
    policy.max_contributors = max_contributors;
    policy.max_distance = max_distance;
    policy.exclusive = exclusive;
    policy.exact = exact;
    sinew_points view = sn_py_points(&points);
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) < 0) goto done;
    sn_py_release_gil(&call);
    sinew_result r = sinew_soffd_register(call.ctx, soffd, &view, &policy);
    sn_py_acquire_gil(&call);
    if (sn_py_call_end(&call, r) < 0) goto done;
    result = Py_None;
    Py_INCREF(result);
done:
    sn_py_array_release(&points);
    sn_py_handle_leave(handle, 1);
    return result;
}

static PyObject *py_soffd_set_reference(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"soffd", "reference", "progress", NULL};
    PyObject *handle, *reference_obj, *progress = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$O:soffd_set_reference", keywords, &handle, &reference_obj,
                                     &progress))
        return NULL;
    sinew_soffd *soffd = sn_py_handle_enter(handle, SOFFD, "soffd", 1);
    if (!soffd) return NULL;
    sn_py_array reference = SN_PY_ARRAY_INIT;
    PyObject *result = NULL;
    if (sn_py_floats_in(reference_obj, "reference", SN_PY_ANY, 3, SN_PY_STRIDED, &reference) < 0) goto done;
    sinew_points view = sn_py_points(&reference);
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) < 0) goto done;
    sn_py_release_gil(&call);
    sinew_result r = sinew_soffd_set_reference(call.ctx, soffd, &view);
    sn_py_acquire_gil(&call);
    if (sn_py_call_end(&call, r) < 0) goto done;
    result = Py_None;
    Py_INCREF(result);
done:
    sn_py_array_release(&reference);
    sn_py_handle_leave(handle, 1);
    return result;
}

static PyObject *py_soffd_set_falloff(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"soffd", "local", "length_scale", "progress", NULL};
    PyObject *handle, *progress = Py_None;
    float local = 0, length_scale = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|ff$O:soffd_set_falloff", keywords, &handle, &local,
                                     &length_scale, &progress))
        return NULL;
    sinew_soffd *soffd = sn_py_handle_enter(handle, SOFFD, "soffd", 1);
    if (!soffd) return NULL;
    PyObject *result = NULL;
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) < 0) goto done;
    sn_py_release_gil(&call);
    sinew_result r = sinew_soffd_set_falloff(call.ctx, soffd, local, length_scale);
    sn_py_acquire_gil(&call);
    if (sn_py_call_end(&call, r) < 0) goto done;
    result = Py_None;
    Py_INCREF(result);
done:
    sn_py_handle_leave(handle, 1);
    return result;
}

static PyObject *py_soffd_subdivide(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"soffd", "chosen", "split", "progress", NULL};
    PyObject *handle, *chosen_obj, *progress = Py_None;
    int split = SINEW_SOFFD_SPLIT_EDGES;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|i$O:soffd_subdivide", keywords, &handle, &chosen_obj, &split,
                                     &progress))
        return NULL;
    sinew_soffd *soffd = sn_py_handle_enter(handle, SOFFD, "soffd", 1);
    if (!soffd) return NULL;
    PyObject *result = NULL;
    PyArrayObject *flags = (PyArrayObject *)PyArray_FromAny(chosen_obj, PyArray_DescrFromType(NPY_BOOL), 1, 1,
                                                            NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED |
                                                                NPY_ARRAY_FORCECAST, NULL);
    if (!flags) goto done;
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) < 0) goto done;
    sn_py_release_gil(&call);
    sinew_result r = sinew_soffd_subdivide(call.ctx, soffd, PyArray_DATA(flags), (size_t)PyArray_DIM(flags, 0),
                                           (sinew_soffd_split)split);
    sn_py_acquire_gil(&call);
    if (sn_py_call_end(&call, r) < 0) goto done;
    result = Py_None;
    Py_INCREF(result);
done:
    Py_XDECREF(flags);
    sn_py_handle_leave(handle, 1);
    return result;
}

/* Parent of every element (sinew_soffd_element_parent). */
static PyObject *py_soffd_element_parents(PyObject *self, PyObject *arg)
{
    (void)self;
    return per_element_array(arg, sinew_soffd_element_parent);
}

static PyObject *py_soffd_added_vertices(PyObject *self, PyObject *arg)
{
    (void)self;
    const sinew_soffd *soffd = sn_py_handle_enter(arg, SOFFD, "soffd", 0);
    if (!soffd) return NULL;
    size_t count = 0;
    PyObject *result = NULL;
    sinew_result r = sinew_soffd_added_vertices(soffd, NULL, NULL, 0, &count);
    npy_intp dims[2] = {(npy_intp)count, 3};
    PyArrayObject *sources = r == SINEW_OK ? (PyArrayObject *)PyArray_EMPTY(2, dims, NPY_UINT32, 0) : NULL;
    PyArrayObject *weights = sources ? (PyArrayObject *)PyArray_EMPTY(2, dims, NPY_FLOAT32, 0) : NULL;
    if (weights) r = sinew_soffd_added_vertices(soffd, PyArray_DATA(sources), PyArray_DATA(weights), count, &count);
    if (r != SINEW_OK) sn_py_raise(r);
    else if (weights) result = Py_BuildValue("(OO)", sources, weights);
    Py_XDECREF(sources);
    Py_XDECREF(weights);
    sn_py_handle_leave(arg, 0);
    return result;
}

static PyObject *py_soffd_dropped_mass(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    size_t point;
    if (!PyArg_ParseTuple(args, "OO&:soffd_dropped_mass", &handle, SN_PY_INDEX("point", &point))) return NULL;
    const sinew_soffd *soffd = sn_py_handle_enter(handle, SOFFD, "soffd", 0);
    if (!soffd) return NULL;
    float mass = 0.0f;
    sinew_result r = sinew_soffd_dropped_mass(soffd, point, &mass);
    sn_py_handle_leave(handle, 0);
    if (r != SINEW_OK) return sn_py_raise(r);
    return PyFloat_FromDouble(mass);
}

static PyObject *py_soffd_contributors(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    size_t point;
    if (!PyArg_ParseTuple(args, "OO&:soffd_contributors", &handle, SN_PY_INDEX("point", &point))) return NULL;
    const sinew_soffd *soffd = sn_py_handle_enter(handle, SOFFD, "soffd", 0);
    if (!soffd) return NULL;
    PyObject *result = NULL;
    PyArrayObject *elements = NULL, *weights = NULL;
    size_t count = 0;
    sinew_result r = sinew_soffd_contributor_count(soffd, point, &count);
    if (r == SINEW_OK) {
        npy_intp n = (npy_intp)count;
        elements = (PyArrayObject *)PyArray_EMPTY(1, &n, NPY_UINT32, 0);
        weights = (PyArrayObject *)PyArray_EMPTY(1, &n, NPY_FLOAT32, 0);
        if (!elements || !weights) goto done;
        r = sinew_soffd_contributors(soffd, point, PyArray_DATA(elements), PyArray_DATA(weights), count,
                                         &count);
    }
    if (r != SINEW_OK) {
        sn_py_raise(r);
        goto done;
    }
    result = PyTuple_Pack(2, (PyObject *)elements, (PyObject *)weights);
done:
    Py_XDECREF(elements);
    Py_XDECREF(weights);
    sn_py_handle_leave(handle, 0);
    return result;
}

static PyObject *py_soffd_set_contributors(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle, *elements_obj;
    size_t point;
    if (!PyArg_ParseTuple(args, "OO&O:soffd_set_contributors", &handle, SN_PY_INDEX("point", &point), &elements_obj))
        return NULL;
    sinew_soffd *soffd = sn_py_handle_enter(handle, SOFFD, "soffd", 1);
    if (!soffd) return NULL;
    sn_py_array elements = SN_PY_ARRAY_INIT;
    PyObject *result = NULL;
    if (sn_py_uint32_in(elements_obj, "elements", SN_PY_ANY, 1, SN_PY_FLAT, &elements) < 0) goto done;
    sinew_result r = sinew_soffd_set_contributors(soffd, point, elements.data, elements.rows);
    if (r != SINEW_OK) {
        sn_py_raise(r);
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    sn_py_array_release(&elements);
    sn_py_handle_leave(handle, 1);
    return result;
}

static PyObject *py_soffd_exclude_elements(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"soffd", "excluded", "first", "count", NULL};
    PyObject *handle, *excluded_obj, *first_obj = Py_None, *count_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OO:soffd_exclude_elements", keywords, &handle, &excluded_obj,
                                     &first_obj, &count_obj))
        return NULL;
    sinew_soffd *soffd = sn_py_handle_enter(handle, SOFFD, "soffd", 1);
    if (!soffd) return NULL;
    sinew_soffd_info info = get_info(soffd);
    PyArrayObject *flags = NULL;
    PyObject *result = NULL;
    size_t first, count;
    if (sn_py_range(first_obj, count_obj, info.point_count, &first, &count) < 0) goto done;
    /* Any array of truth values, one per element, as bytes (bool is one byte already). */
    flags = (PyArrayObject *)PyArray_FromAny(excluded_obj, PyArray_DescrFromType(NPY_BOOL), 1, 1,
                                             NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, NULL);
    if (!flags) goto done;
    if ((size_t)PyArray_DIM(flags, 0) != info.element_count) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "excluded: expected an array of shape (%zu,), one flag per element, got %zd",
                        info.element_count, (Py_ssize_t)PyArray_DIM(flags, 0));
        goto done;
    }
    sinew_result r = sinew_soffd_exclude_elements(soffd, PyArray_DATA(flags), (size_t)PyArray_DIM(flags, 0), first, count);
    if (r != SINEW_OK) {
        sn_py_raise(r);
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    Py_XDECREF(flags);
    sn_py_handle_leave(handle, 1);
    return result;
}

/* element_frames and vertex_frames: driver_now (V, 3) -> (N, 4, 4) frames. */
static PyObject *frames(PyObject *args, PyObject *kwargs, int per_vertex)
{
    static char *keywords[] = {"soffd", "driver", "out", NULL};
    PyObject *handle, *driver_obj, *out_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, per_vertex ? "OO|O:soffd_vertex_frames" : "OO|O:soffd_element_frames",
                                     keywords, &handle, &driver_obj, &out_obj))
        return NULL;
    const sinew_soffd *soffd = sn_py_handle_enter(handle, SOFFD, "soffd", 0);
    if (!soffd) return NULL;
    sinew_soffd_info info = get_info(soffd);
    sn_py_array driver = SN_PY_ARRAY_INIT, out = SN_PY_ARRAY_INIT;
    PyObject *result = NULL;
    size_t n = per_vertex ? info.vertex_count : info.element_count;
    if (sn_py_floats_in(driver_obj, "driver", SN_PY_ANY, 3, SN_PY_STRIDED, &driver) < 0 ||
        sn_py_matrices_out(out_obj, "out", (Py_ssize_t)n, &out) < 0)
        goto done;
    sinew_points view = sn_py_points(&driver);
    sinew_result r;
    Py_BEGIN_ALLOW_THREADS
    /* The buffer's own float count: the library checks it against the handle. */
    size_t out_floats = out.rows * out.cols;
    r = per_vertex ? sinew_soffd_vertex_frames(soffd, &view, out.data, out_floats)
                   : sinew_soffd_element_frames(soffd, &view, out.data, out_floats);
    Py_END_ALLOW_THREADS
    if (r != SINEW_OK) {
        sn_py_raise(r);
        goto done;
    }
    result = sn_py_matrices_result(&out);
done:
    sn_py_array_release(&driver);
    sn_py_array_release(&out);
    sn_py_handle_leave(handle, 0);
    return result;
}

static PyObject *py_soffd_element_frames(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    return frames(args, kwargs, 0);
}

static PyObject *py_soffd_vertex_frames(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    return frames(args, kwargs, 1);
}

/* deform and deform_extended: frames -> positions (and normals). */
static PyObject *deform(PyObject *args, PyObject *kwargs, int extended)
{
    static char *keywords[] = {"soffd", "frames", "normals", "out", "out_normals", "first", "count", NULL};
    PyObject *handle, *frames_obj, *normals_obj = Py_None, *out_obj = Py_None, *out_normals_obj = Py_None;
    PyObject *first_obj = Py_None, *count_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, extended ? "OO|O$OOOO:soffd_deform_extended" : "OO|O$OOOO:soffd_deform",
                                     keywords, &handle, &frames_obj, &normals_obj, &out_obj, &out_normals_obj,
                                     &first_obj, &count_obj))
        return NULL;
    const sinew_soffd *soffd = sn_py_handle_enter(handle, SOFFD, "soffd", 0);
    if (!soffd) return NULL;
    sinew_soffd_info info = get_info(soffd);
    sn_py_array frames = SN_PY_ARRAY_INIT, normals = SN_PY_ARRAY_INIT, out = SN_PY_ARRAY_INIT,
                out_normals = SN_PY_ARRAY_INIT;
    PyObject *result = NULL;
    size_t first, count;
    size_t points = info.point_count;
    if (sn_py_range(first_obj, count_obj, points, &first, &count) < 0) goto done;
    int whole = first == 0 && count == points;
    if (sn_py_matrices_in(frames_obj, extended ? "vertex_frames" : "frames",
                          (Py_ssize_t)(extended ? info.vertex_count : info.element_count), 0, &frames) < 0 ||
        sn_py_floats_in(normals_obj, "normals", (Py_ssize_t)points, 3, SN_PY_OPTIONAL | SN_PY_STRIDED | SN_PY_RANGED,
                        &normals) < 0 ||
        sn_py_array_range(&normals, first, count) < 0 ||
        sn_py_out(out_obj, "out", NPY_FLOAT32, (Py_ssize_t)points, 3, SN_PY_STRIDED, !whole, &out) < 0)
        goto done;
    if (normals.data) {
        if (sn_py_out(out_normals_obj, "out_normals", NPY_FLOAT32, (Py_ssize_t)points, 3, SN_PY_STRIDED, !whole,
                      &out_normals) < 0 ||
            sn_py_check_overlap(&normals, "normals", &out_normals, "out_normals") < 0)
            goto done;
    } else if (out_normals_obj != Py_None) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "out_normals is given without normals");
        goto done;
    }
    if (sn_py_check_overlap(&out, "out", &normals, "normals") < 0 ||
        sn_py_check_overlap(&out, "out", &out_normals, "out_normals") < 0)
        goto done;
    /* Outputs never alias inputs here (the C call takes none in place). */
    if (normals.data && out.data == normals.data) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "out and normals are the same array");
        goto done;
    }
    if (normals.data && out_normals.data == normals.data) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "out_normals and normals are the same array (no in-place normals)");
        goto done;
    }
    sinew_points normal_view = sn_py_points(&normals);
    sinew_result r;
    Py_BEGIN_ALLOW_THREADS
    if (extended)
        r = sinew_soffd_deform_extended(soffd, frames.data, frames.rows * frames.cols, normals.data ? &normal_view : NULL,
                                        out.data, out.stride,
                                        out_normals.data, out_normals.stride, first, count);
    else
        r = sinew_soffd_deform(soffd, frames.data, frames.rows * frames.cols, normals.data ? &normal_view : NULL,
                               out.data, out.stride,
                               out_normals.data, out_normals.stride, first, count);
    Py_END_ALLOW_THREADS
    if (r != SINEW_OK) {
        sn_py_raise(r);
        goto done;
    }
    result = PyTuple_New(2);
    if (!result) goto done;
    PyTuple_SET_ITEM(result, 0, sn_py_array_result(&out));
    PyTuple_SET_ITEM(result, 1, sn_py_array_result(&out_normals));
done:
    sn_py_array_release(&frames);
    sn_py_array_release(&normals);
    sn_py_array_release(&out);
    sn_py_array_release(&out_normals);
    sn_py_handle_leave(handle, 0);
    return result;
}

static PyObject *py_soffd_deform(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    return deform(args, kwargs, 0);
}

static PyObject *py_soffd_deform_extended(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    return deform(args, kwargs, 1);
}

#define KW (METH_VARARGS | METH_KEYWORDS)
#define FN(f) ((PyCFunction)(void (*)(void))(f))

static PyMethodDef soffd_methods[] = {
    {"soffd_create", FN(py_soffd_create), KW,
     "soffd_create(positions, indices, face_sizes=None, *, local=0, length_scale=0, skip_degenerate=False, "
     "progress=None) -> Handle (sinew_soffd_create); indices (F, 3) triangles, or flat with face_sizes."},
    {"soffd_info", py_soffd_info, METH_O, "soffd_info(soffd) -> dict (sinew_soffd_get_info)."},
    {"soffd_element_faces", py_soffd_element_faces, METH_O,
     "soffd_element_faces(soffd) -> uint32 array: face of each element (sinew_soffd_element_face)."},
    {"soffd_skipped", py_soffd_skipped, METH_O, "soffd_skipped(soffd) -> uint32 array (sinew_soffd_skipped_faces)."},
    {"soffd_register", FN(py_soffd_register), KW,
     "soffd_register(soffd, points, *, weight_threshold=0, max_contributors=0, max_distance=0, exclusive=False, "
     "exact=False, progress=None) (sinew_soffd_register; 0 = the default)."},
    {"soffd_set_falloff", FN(py_soffd_set_falloff), KW,
     "soffd_set_falloff(soffd, local=0, length_scale=0, *, progress=None) (sinew_soffd_set_falloff; 0 = keep)."},
    {"soffd_subdivide", FN(py_soffd_subdivide), KW,
     "soffd_subdivide(soffd, chosen, split=0, *, progress=None) (sinew_soffd_subdivide; 0 edges, 1 centroid)."},
    {"soffd_element_parents", py_soffd_element_parents, METH_O,
     "soffd_element_parents(soffd) -> uint32 array (sinew_soffd_element_parent of every element)."},
    {"soffd_added_vertices", py_soffd_added_vertices, METH_O,
     "soffd_added_vertices(soffd) -> (sources uint32 (A, 3), weights float32 (A, 3)) (sinew_soffd_added_vertices)."},
    {"soffd_set_reference", FN(py_soffd_set_reference), KW,
     "soffd_set_reference(soffd, reference, *, progress=None) (sinew_soffd_set_reference)."},
    {"soffd_dropped_mass", py_soffd_dropped_mass, METH_VARARGS,
     "soffd_dropped_mass(soffd, point) -> float (sinew_soffd_dropped_mass)."},
    {"soffd_contributors", py_soffd_contributors, METH_VARARGS,
     "soffd_contributors(soffd, point) -> (elements, weights) (sinew_soffd_contributors)."},
    {"soffd_set_contributors", py_soffd_set_contributors, METH_VARARGS,
     "soffd_set_contributors(soffd, point, elements) (sinew_soffd_set_contributors)."},
    {"soffd_exclude_elements", FN(py_soffd_exclude_elements), KW,
     "soffd_exclude_elements(soffd, excluded, first=None, count=None) (sinew_soffd_exclude_elements)."},
    {"soffd_element_frames", FN(py_soffd_element_frames), KW,
     "soffd_element_frames(soffd, driver, out=None) -> (E, 4, 4) (sinew_soffd_element_frames)."},
    {"soffd_vertex_frames", FN(py_soffd_vertex_frames), KW,
     "soffd_vertex_frames(soffd, driver, out=None) -> (V, 4, 4) (sinew_soffd_vertex_frames)."},
    {"soffd_deform", FN(py_soffd_deform), KW,
     "soffd_deform(soffd, frames, normals=None, *, out=None, out_normals=None, first=None, count=None) "
     "-> (positions, normals) (sinew_soffd_deform)."},
    {"soffd_deform_extended", FN(py_soffd_deform_extended), KW,
     "soffd_deform_extended(soffd, vertex_frames, normals=None, *, out=None, out_normals=None, first=None, "
     "count=None) -> (positions, normals) (sinew_soffd_deform_extended)."},
    {NULL, NULL, 0, NULL},
};

int sn_py_register_soffd(PyObject *module)
{
    return PyModule_AddFunctions(module, soffd_methods);
}
