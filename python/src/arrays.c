/*
 * sinew Python binding: numpy arrays in and out of the C API.
 *
 * Inputs are used in place when the C call can read them as they are (the
 * element type it takes, rows contiguous, rows packed or evenly strided when
 * it takes a stride) and copied otherwise; outputs are never copied (the C
 * call writes the caller's array or a new one). Every message names the
 * argument, and the element for bad values.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

#include <math.h>

typedef enum element_kind { KIND_FLOAT, KIND_INDEX, KIND_UINT32 } element_kind;

/* "(100, 3)" or "(N, 3)" for an expected shape. */
static void format_expected(char *text, size_t size, Py_ssize_t rows, Py_ssize_t cols, unsigned flags)
{
    char r[32], c[32];
    if (rows == SN_PY_ANY) PyOS_snprintf(r, sizeof r, "N");
    else PyOS_snprintf(r, sizeof r, "%zd", rows);
    if (flags & SN_PY_FLAT) {
        PyOS_snprintf(text, size, "(%s,)", r);
        return;
    }
    if (cols == SN_PY_ANY) PyOS_snprintf(c, sizeof c, "K");
    else PyOS_snprintf(c, sizeof c, "%zd", cols);
    PyOS_snprintf(text, size, "(%s, %s)", r, c);
}

/* "(100, 3)" for an array's actual shape. */
static PyObject *shape_text(PyArrayObject *a)
{
    PyObject *shape = PyTuple_New(PyArray_NDIM(a));
    if (!shape) return NULL;
    for (int d = 0; d < PyArray_NDIM(a); ++d) {
        PyObject *n = PyLong_FromSsize_t(PyArray_DIM(a, d));
        if (!n) {
            Py_DECREF(shape);
            return NULL;
        }
        PyTuple_SET_ITEM(shape, d, n);
    }
    PyObject *text = PyObject_Repr(shape);
    Py_DECREF(shape);
    return text;
}

static int shape_error(PyArrayObject *a, const char *name, Py_ssize_t rows, Py_ssize_t cols, unsigned flags)
{
    char expected[80];
    format_expected(expected, sizeof expected, rows, cols, flags);
    PyObject *actual = shape_text(a);
    if (!actual) return -1;
    sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%s: expected an array of shape %s, got shape %U", name, expected,
                    actual);
    Py_DECREF(actual);
    return -1;
}

static int dtype_error(PyArrayObject *a, const char *name, const char *expected)
{
    PyObject *dtype = PyObject_Str((PyObject *)PyArray_DESCR(a));
    if (!dtype) return -1;
    sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%s: expected %s, got dtype %U", name, expected, dtype);
    Py_DECREF(dtype);
    return -1;
}

/* A new reference to obj as an ndarray (sequences converted), or NULL. */
static PyArrayObject *as_array(PyObject *obj, const char *name)
{
    if (PyArray_Check(obj)) {
        Py_INCREF(obj);
        return (PyArrayObject *)obj;
    }
    PyObject *a = PyArray_FROM_O(obj);
    if (!a) {
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        Py_XDECREF(type);
        Py_XDECREF(traceback);
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%s: expected an array, got %s (%S)", name,
                        Py_TYPE(obj)->tp_name, value ? value : Py_None);
        Py_XDECREF(value);
        return NULL;
    }
    return (PyArrayObject *)a;
}

/* Shape check: 1-D (rows,) with SN_PY_FLAT, else 2-D (rows, cols). */
static int check_shape(PyArrayObject *a, const char *name, Py_ssize_t rows, Py_ssize_t cols, unsigned flags)
{
    int ndim = (flags & SN_PY_FLAT) ? 1 : 2;
    if (PyArray_NDIM(a) != ndim || (rows != SN_PY_ANY && PyArray_DIM(a, 0) != rows) ||
        (ndim == 2 && cols != SN_PY_ANY && PyArray_DIM(a, 1) != cols))
        return shape_error(a, name, rows, cols, flags);
    return 0;
}

/* Fills the layout fields from an array already of the right shape. */
static void describe(PyArrayObject *a, unsigned flags, sn_py_array *out)
{
    npy_intp item = PyArray_ITEMSIZE(a);
    out->array = a;
    out->data = PyArray_DATA(a);
    out->rows = (size_t)PyArray_DIM(a, 0);
    out->cols = (flags & SN_PY_FLAT) ? 1 : (size_t)PyArray_DIM(a, 1);
    out->type_num = PyArray_TYPE(a);
    /* A row stride is only meaningful across two rows; otherwise say packed. */
    out->stride = out->rows > 1 ? (size_t)PyArray_STRIDE(a, 0) : out->cols * (size_t)item;
    out->index_type = out->type_num == NPY_UINT8 ? SINEW_INDEX_U8
                    : out->type_num == NPY_UINT16 ? SINEW_INDEX_U16 : SINEW_INDEX_U32;
}

/* Whether the C API can read a (already shape-checked) array as it is. */
static int usable_in_place(PyArrayObject *a, unsigned flags)
{
    if (!PyArray_ISALIGNED(a) || !PyArray_ISNOTSWAPPED(a)) return 0;
    npy_intp item = PyArray_ITEMSIZE(a);
    npy_intp rows = PyArray_DIM(a, 0);
    npy_intp cols = (flags & SN_PY_FLAT) ? 1 : PyArray_DIM(a, 1);
    if (!(flags & SN_PY_FLAT) && cols > 1 && PyArray_STRIDE(a, 1) != item) return 0;
    if (rows <= 1) return 1;
    npy_intp stride = PyArray_STRIDE(a, 0);
    if (stride == cols * item) return 1;
    return (flags & SN_PY_STRIDED) && stride > 0 && stride % item == 0 && stride >= cols * item;
}

/* Checks every value of a float32 array (after conversion) is finite. */
static int check_finite(const sn_py_array *a, const char *name, unsigned flags)
{
    for (size_t r = 0; r < a->rows; ++r) {
        const float *row = (const float *)((const char *)a->data + r * a->stride);
        for (size_t c = 0; c < a->cols; ++c) {
            if (isfinite(row[c])) continue;
            const char *what = isnan(row[c]) ? "nan" : row[c] > 0 ? "inf" : "-inf";
            if (flags & SN_PY_FLAT)
                sn_py_raise_msg(SINEW_ERROR_NON_FINITE, "%s[%zu] is %s", name, r, what);
            else
                sn_py_raise_msg(SINEW_ERROR_NON_FINITE, "%s[%zu, %zu] is %s", name, r, c, what);
            return -1;
        }
    }
    return 0;
}

/* Copies an integer array to a new packed uint32 one, naming the first value
 * that is negative or above 2^32 - 1. */
static PyArrayObject *indices_to_uint32(PyArrayObject *a, const char *name, unsigned flags)
{
    int is_signed = PyArray_ISSIGNED(a);
    PyArrayObject *wide = (PyArrayObject *)PyArray_FromAny((PyObject *)a,
        PyArray_DescrFromType(is_signed ? NPY_INT64 : NPY_UINT64), 0, 0,
        NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, NULL);
    if (!wide) return NULL;
    PyArrayObject *narrow = (PyArrayObject *)PyArray_EMPTY(PyArray_NDIM(a), PyArray_DIMS(a), NPY_UINT32, 0);
    if (!narrow) {
        Py_DECREF(wide);
        return NULL;
    }
    npy_intp n = PyArray_SIZE(a);
    npy_intp cols = (flags & SN_PY_FLAT) || PyArray_NDIM(a) < 2 ? 1 : PyArray_DIM(a, 1);
    uint32_t *dst = PyArray_DATA(narrow);
    for (npy_intp i = 0; i < n; ++i) {
        int bad;
        long long value;
        if (is_signed) {
            int64_t v = ((const int64_t *)PyArray_DATA(wide))[i];
            bad = v < 0 || v > (int64_t)UINT32_MAX;
            value = (long long)v;
        } else {
            uint64_t v = ((const uint64_t *)PyArray_DATA(wide))[i];
            bad = v > UINT32_MAX;
            value = v > (uint64_t)INT64_MAX ? -1 : (long long)v;
        }
        if (bad) {
            const char *why = value < 0 ? "is negative" : "is above 2^32 - 1";
            if (cols == 1 && (flags & SN_PY_FLAT))
                sn_py_raise_msg(SINEW_ERROR_INDEX_OUT_OF_RANGE, "%s[%zd] = %lld %s", name, (Py_ssize_t)i, value, why);
            else
                sn_py_raise_msg(SINEW_ERROR_INDEX_OUT_OF_RANGE, "%s[%zd, %zd] = %lld %s", name, (Py_ssize_t)(i / cols),
                                (Py_ssize_t)(i % cols), value, why);
            Py_DECREF(wide);
            Py_DECREF(narrow);
            return NULL;
        }
        dst[i] = (uint32_t)value;
    }
    Py_DECREF(wide);
    return narrow;
}

static int convert_in(PyObject *obj, const char *name, Py_ssize_t rows, Py_ssize_t cols, unsigned flags,
                      element_kind kind, sn_py_array *out)
{
    *out = (sn_py_array)SN_PY_ARRAY_INIT;
    if (!obj || obj == Py_None) {
        if (flags & SN_PY_OPTIONAL) return 0;
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%s: an array is required, got None", name);
        return -1;
    }
    PyArrayObject *a = as_array(obj, name);
    if (!a) return -1;
    if (check_shape(a, name, rows, cols, flags) < 0) goto fail;
    int type = PyArray_TYPE(a);
    int empty = PyArray_SIZE(a) == 0;
    if (kind == KIND_FLOAT) {
        if (!PyArray_ISFLOAT(a) && !PyArray_ISINTEGER(a) && !(empty && !PyArray_ISOBJECT(a))) {
            dtype_error(a, name, "a float32 array (or any real array, copied)");
            goto fail;
        }
        if ((type != NPY_FLOAT32 || !usable_in_place(a, flags)) && (flags & SN_PY_RANGED) &&
            !(flags & SN_PY_FINITE)) {
            describe(a, flags, out);
            out->data = NULL;
            out->stride = out->cols * sizeof(float);
            out->type_num = NPY_FLOAT32;
            out->pending = 1;
            return 0;
        }
        if (type != NPY_FLOAT32 || !usable_in_place(a, flags)) {
            PyArrayObject *copy = (PyArrayObject *)PyArray_FromAny((PyObject *)a, PyArray_DescrFromType(NPY_FLOAT32),
                0, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, NULL);
            if (!copy) goto fail;
            Py_DECREF(a);
            a = copy;
        }
        describe(a, flags, out);
        if ((flags & SN_PY_FINITE) && check_finite(out, name, flags) < 0) {
            *out = (sn_py_array)SN_PY_ARRAY_INIT;
            goto fail;
        }
        return 0;
    }
    if (!PyArray_ISINTEGER(a) && !empty) {
        dtype_error(a, name, kind == KIND_UINT32 ? "a uint32 array (or any integer array, checked and copied)"
                                                 : "a uint8, uint16 or uint32 array (or any integer array, copied)");
        goto fail;
    }
    int in_place = kind == KIND_UINT32 ? type == NPY_UINT32
                                       : (type == NPY_UINT8 || type == NPY_UINT16 || type == NPY_UINT32);
    if (!in_place || !usable_in_place(a, flags)) {
        PyArrayObject *copy;
        if (in_place || (empty && !PyArray_ISINTEGER(a)))
            copy = (PyArrayObject *)PyArray_FromAny((PyObject *)a, PyArray_DescrFromType(in_place ? type : NPY_UINT32),
                0, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, NULL);
        else
            copy = indices_to_uint32(a, name, flags);
        if (!copy) goto fail;
        Py_DECREF(a);
        a = copy;
    }
    describe(a, flags, out);
    return 0;
fail:
    Py_DECREF(a);
    return -1;
}

int sn_py_floats_in(PyObject *obj, const char *name, Py_ssize_t rows, Py_ssize_t cols, unsigned flags,
                    sn_py_array *out)
{
    return convert_in(obj, name, rows, cols, flags, KIND_FLOAT, out);
}

int sn_py_indices_in(PyObject *obj, const char *name, Py_ssize_t rows, Py_ssize_t cols, unsigned flags,
                     sn_py_array *out)
{
    return convert_in(obj, name, rows, cols, flags, KIND_INDEX, out);
}

int sn_py_uint32_in(PyObject *obj, const char *name, Py_ssize_t rows, Py_ssize_t cols, unsigned flags,
                    sn_py_array *out)
{
    return convert_in(obj, name, rows, cols, flags, KIND_UINT32, out);
}

static const char *type_name(int type_num)
{
    switch (type_num) {
    case NPY_FLOAT32: return "float32";
    case NPY_UINT32: return "uint32";
    case NPY_UINT16: return "uint16";
    case NPY_UINT8: return "uint8";
    default: return "numeric";
    }
}

int sn_py_out(PyObject *obj, const char *name, int type_num, Py_ssize_t rows, Py_ssize_t cols, unsigned flags,
              int zero, sn_py_array *out)
{
    *out = (sn_py_array)SN_PY_ARRAY_INIT;
    npy_intp dims[2] = {rows, cols};
    int ndim = (flags & SN_PY_FLAT) ? 1 : 2;
    if (!obj || obj == Py_None) {
        PyArrayObject *a = (PyArrayObject *)(zero ? PyArray_ZEROS(ndim, dims, type_num, 0)
                                                  : PyArray_EMPTY(ndim, dims, type_num, 0));
        if (!a) return -1;
        describe(a, flags, out);
        return 0;
    }
    char expected[80];
    format_expected(expected, sizeof expected, rows, cols, flags);
    if (!PyArray_Check(obj)) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%s: expected a writeable %s numpy array of shape %s, got %s",
                        name, type_name(type_num), expected, Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyArrayObject *a = (PyArrayObject *)obj;
    if (check_shape(a, name, rows, cols, flags) < 0) return -1;
    if (PyArray_TYPE(a) != type_num || !PyArray_ISNOTSWAPPED(a)) {
        char what[64];
        PyOS_snprintf(what, sizeof what, "a %s array in native byte order", type_name(type_num));
        return dtype_error(a, name, what);
    }
    if (!PyArray_ISWRITEABLE(a)) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%s: the array is read-only", name);
        return -1;
    }
    if (!usable_in_place(a, flags)) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT,
                        (flags & SN_PY_STRIDED) ? "%s: each row's elements must be contiguous and aligned"
                                                : "%s: the array must be C-contiguous and aligned",
                        name);
        return -1;
    }
    Py_INCREF(a);
    describe(a, flags, out);
    return 0;
}

static PyObject *transposed(PyArrayObject *a)
{
    npy_intp order[3] = {0, 2, 1};
    PyArray_Dims perm = {order, 3};
    return PyArray_Transpose(a, &perm);
}

static int check_matrices_shape(PyArrayObject *a, const char *name, Py_ssize_t count)
{
    if (PyArray_NDIM(a) == 3 && PyArray_DIM(a, 1) == 4 && PyArray_DIM(a, 2) == 4 &&
        (count == SN_PY_ANY || PyArray_DIM(a, 0) == count))
        return 0;
    PyObject *actual = shape_text(a);
    if (!actual) return -1;
    if (count == SN_PY_ANY)
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%s: expected an array of 4x4 matrices, shape (N, 4, 4), got shape %U",
                        name, actual);
    else
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%s: expected an array of 4x4 matrices, shape (%zd, 4, 4), got shape %U",
                        name, count, actual);
    Py_DECREF(actual);
    return -1;
}

/* Layout of a packed (count, 4, 4) buffer seen as count records of 16 floats. */
static void describe_matrices(PyArrayObject *buffer, sn_py_array *out)
{
    out->array = buffer;
    out->data = PyArray_DATA(buffer);
    out->rows = (size_t)PyArray_DIM(buffer, 0);
    out->cols = 16;
    out->stride = 16 * sizeof(float);
    out->type_num = NPY_FLOAT32;
}

int sn_py_matrices_in(PyObject *obj, const char *name, Py_ssize_t count, unsigned flags, sn_py_array *out)
{
    *out = (sn_py_array)SN_PY_ARRAY_INIT;
    if (!obj || obj == Py_None) {
        if (flags & SN_PY_OPTIONAL) return 0;
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%s: an array is required, got None", name);
        return -1;
    }
    PyArrayObject *a = as_array(obj, name);
    if (!a) return -1;
    if (check_matrices_shape(a, name, count) < 0 ||
        (!PyArray_ISFLOAT(a) && !PyArray_ISINTEGER(a) && dtype_error(a, name, "a float32 array (or any real array, copied)"))) {
        Py_DECREF(a);
        return -1;
    }
    /* Column-major records: the transpose, packed. */
    PyArrayObject *columns = (PyArrayObject *)transposed(a);
    Py_DECREF(a);
    if (!columns) return -1;
    if (PyArray_TYPE(columns) != NPY_FLOAT32 || !PyArray_IS_C_CONTIGUOUS(columns) || !PyArray_ISALIGNED(columns) ||
        !PyArray_ISNOTSWAPPED(columns)) {
        PyArrayObject *copy = (PyArrayObject *)PyArray_FromAny((PyObject *)columns, PyArray_DescrFromType(NPY_FLOAT32),
            0, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, NULL);
        Py_DECREF(columns);
        if (!copy) return -1;
        columns = copy;
    }
    describe_matrices(columns, out);
    if (flags & SN_PY_FINITE) {
        for (size_t i = 0; i < out->rows * 16; ++i) {
            float v = ((const float *)out->data)[i];
            if (isfinite(v)) continue;
            /* Record i / 16 holds column (i % 16) / 4, row i % 4. */
            sn_py_raise_msg(SINEW_ERROR_NON_FINITE, "%s[%zu, %zu, %zu] is %s", name, i / 16, i % 4, (i % 16) / 4,
                            isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
            sn_py_array_release(out);
            return -1;
        }
    }
    return 0;
}

int sn_py_matrices_out(PyObject *obj, const char *name, Py_ssize_t count, sn_py_array *out)
{
    *out = (sn_py_array)SN_PY_ARRAY_INIT;
    if (!obj || obj == Py_None) {
        npy_intp dims[3] = {count, 4, 4};
        PyArrayObject *buffer = (PyArrayObject *)PyArray_EMPTY(3, dims, NPY_FLOAT32, 0);
        if (!buffer) return -1;
        describe_matrices(buffer, out);
        return 0;
    }
    if (!PyArray_Check(obj)) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%s: expected a float32 numpy array of shape (%zd, 4, 4), got %s",
                        name, count, Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyArrayObject *a = (PyArrayObject *)obj;
    if (check_matrices_shape(a, name, count) < 0) return -1;
    if (PyArray_TYPE(a) != NPY_FLOAT32 || !PyArray_ISNOTSWAPPED(a))
        return dtype_error(a, name, "a float32 array in native byte order");
    if (!PyArray_ISWRITEABLE(a)) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%s: the array is read-only", name);
        return -1;
    }
    PyArrayObject *columns = (PyArrayObject *)transposed(a);
    if (!columns) return -1;
    if (!PyArray_IS_C_CONTIGUOUS(columns) || !PyArray_ISALIGNED(columns)) {
        Py_DECREF(columns);
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT,
                        "%s: matrices are written column-major, so the array's transpose(0, 2, 1) must be "
                        "C-contiguous (pass an array this module returned, or "
                        "np.empty((n, 4, 4), np.float32).transpose(0, 2, 1))",
                        name);
        return -1;
    }
    describe_matrices(columns, out);
    return 0;
}

PyObject *sn_py_matrices_result(const sn_py_array *matrices)
{
    return transposed(matrices->array);
}

int sn_py_array_range(sn_py_array *a, size_t first, size_t count)
{
    if (!a->pending) return 0;
    PyArrayObject *source = a->array;
    PyArrayObject *copy = (PyArrayObject *)PyArray_EMPTY(PyArray_NDIM(source), PyArray_DIMS(source), NPY_FLOAT32, 0);
    if (!copy) return -1;
    int status = 0;
    if (count > 0) {
        PyObject *from = PySequence_GetSlice((PyObject *)source, (Py_ssize_t)first, (Py_ssize_t)(first + count));
        PyObject *to = from ? PySequence_GetSlice((PyObject *)copy, (Py_ssize_t)first, (Py_ssize_t)(first + count))
                            : NULL;
        status = to ? PyArray_CopyInto((PyArrayObject *)to, (PyArrayObject *)from) : -1;
        Py_XDECREF(from);
        Py_XDECREF(to);
    }
    if (status < 0) {
        Py_DECREF(copy);
        return -1;
    }
    Py_DECREF(source);
    a->array = copy;
    a->data = PyArray_DATA(copy);
    a->pending = 0;
    return 0;
}

void sn_py_array_release(sn_py_array *a)
{
    Py_XDECREF(a->array);
    *a = (sn_py_array)SN_PY_ARRAY_INIT;
}

PyObject *sn_py_array_result(const sn_py_array *a)
{
    if (!a->array) Py_RETURN_NONE;
    Py_INCREF(a->array);
    return (PyObject *)a->array;
}

int sn_py_check_overlap(const sn_py_array *a, const char *a_name, const sn_py_array *b, const char *b_name)
{
    if (!a->data || !b->data || a->rows == 0 || b->rows == 0) return 0;
    if (a->data == b->data && a->stride == b->stride) return 0;
    const char *a_begin = a->data, *b_begin = b->data;
    const char *a_end = a_begin + (a->rows - 1) * a->stride + a->cols * (size_t)PyArray_ITEMSIZE(a->array);
    const char *b_end = b_begin + (b->rows - 1) * b->stride + b->cols * (size_t)PyArray_ITEMSIZE(b->array);
    if (a_begin < b_end && b_begin < a_end) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT,
                        "%s and %s share memory without being the same array (in place needs the very same rows)",
                        a_name, b_name);
        return -1;
    }
    return 0;
}

sinew_points sn_py_points(const sn_py_array *a)
{
    sinew_points points = {a->data, a->rows, a->stride};
    return points;
}

int sn_py_polymesh_in(PyObject *positions_obj, PyObject *indices_obj, PyObject *sizes_obj, sn_py_array *positions,
                      sn_py_array *indices, sn_py_array *sizes, sinew_polymesh *out)
{
    if (sn_py_floats_in(positions_obj, "positions", SN_PY_ANY, 3, SN_PY_STRIDED, positions) < 0 ||
        sn_py_uint32_in(sizes_obj, "face_sizes", SN_PY_ANY, 1, SN_PY_OPTIONAL | SN_PY_FLAT, sizes) < 0)
        return -1;
    if (sizes->data ? sn_py_indices_in(indices_obj, "indices", SN_PY_ANY, 1, SN_PY_FLAT, indices) < 0
                    : sn_py_indices_in(indices_obj, "indices", SN_PY_ANY, 3, 0, indices) < 0)
        return -1;
    memset(out, 0, sizeof *out);
    out->positions = sn_py_points(positions);
    out->indices = indices->data;
    out->face_sizes = sizes->data;
    out->face_count = sizes->data ? sizes->rows : indices->rows;
    out->index_type = indices->index_type;
    return 0;
}
