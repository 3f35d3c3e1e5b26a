/*
 * sinew Python binding: version, result and kind names, saved data (save and
 * load of every kind of handle), and the small helpers the technique files share.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

int sn_py_dict_steal(PyObject *dict, const char *key, PyObject *value)
{
    if (!value) return -1;
    int status = PyDict_SetItemString(dict, key, value);
    Py_DECREF(value);
    return status;
}

/* The value of an integer argument in [0, max]; InvalidArgumentError naming
 * `name` for anything but an int, `range_error` for an int out of range. */
static int int_in(PyObject *obj, const char *name, unsigned long long max, sinew_result range_error,
                  unsigned long long *out)
{
    PyObject *index = PyNumber_Index(obj);
    if (!index) {
        PyErr_Clear();
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%s: expected an int, got %R", name, obj);
        return -1;
    }
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (value == -1 && PyErr_Occurred()) return -1;
    if (overflow != 0 || value < 0 || (unsigned long long)value > max) {
        sn_py_raise_msg(range_error, "%s: expected an int in [0, %llu], got %R", name, max, obj);
        return -1;
    }
    *out = (unsigned long long)value;
    return 0;
}

int sn_py_size(PyObject *obj, const char *name, size_t *out)
{
    unsigned long long value;
    if (int_in(obj, name, (unsigned long long)PY_SSIZE_T_MAX, SINEW_ERROR_INVALID_ARGUMENT, &value) < 0) return -1;
    *out = (size_t)value;
    return 0;
}

/* The O& converters return 1 on success and 0 with the exception set. */
int sn_py_u32_converter(PyObject *obj, void *arg)
{
    const sn_py_int_arg *a = arg;
    unsigned long long value;
    if (int_in(obj, a->name, UINT32_MAX, SINEW_ERROR_INVALID_ARGUMENT, &value) < 0) return 0;
    *(uint32_t *)a->value = (uint32_t)value;
    return 1;
}

int sn_py_enum_converter(PyObject *obj, void *arg)
{
    const sn_py_int_arg *a = arg;
    unsigned long long value;
    if (int_in(obj, a->name, INT_MAX, SINEW_ERROR_INVALID_ARGUMENT, &value) < 0) return 0;
    *(int *)a->value = (int)value;
    return 1;
}

int sn_py_count_converter(PyObject *obj, void *arg)
{
    const sn_py_int_arg *a = arg;
    return sn_py_size(obj, a->name, (size_t *)a->value) < 0 ? 0 : 1;
}

int sn_py_index_converter(PyObject *obj, void *arg)
{
    const sn_py_int_arg *a = arg;
    unsigned long long value;
    if (int_in(obj, a->name, (unsigned long long)PY_SSIZE_T_MAX, SINEW_ERROR_INDEX_OUT_OF_RANGE, &value) < 0) return 0;
    *(size_t *)a->value = (size_t)value;
    return 1;
}

int sn_py_range(PyObject *first_obj, PyObject *count_obj, size_t total, size_t *first, size_t *count)
{
    size_t f = 0, c;
    if (first_obj && first_obj != Py_None && sn_py_size(first_obj, "first", &f) < 0) return -1;
    if (f > total) {
        sn_py_raise_msg(SINEW_ERROR_INDEX_OUT_OF_RANGE, "first = %zu is past the %zu elements", f, total);
        return -1;
    }
    c = total - f;
    if (count_obj && count_obj != Py_None) {
        if (sn_py_size(count_obj, "count", &c) < 0) return -1;
        if (c > total - f) {
            sn_py_raise_msg(SINEW_ERROR_INDEX_OUT_OF_RANGE, "range [%zu, %zu + %zu) is past the %zu elements", f, f, c,
                            total);
            return -1;
        }
    }
    *first = f;
    *count = c;
    return 0;
}

static PyObject *py_version(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(sinew_version());
}

static PyObject *py_version_number(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromUnsignedLong(sinew_version_number());
}

static PyObject *py_result_string(PyObject *self, PyObject *arg)
{
    (void)self;
    int code;
    if (!sn_py_enum_converter(arg, &(sn_py_int_arg){"code", &code})) return NULL;
    return PyUnicode_FromString(sinew_result_string((sinew_result)code));
}

static PyObject *py_kind_string(PyObject *self, PyObject *arg)
{
    (void)self;
    int kind;
    if (!sn_py_enum_converter(arg, &(sn_py_int_arg){"kind", &kind})) return NULL;
    return PyUnicode_FromString(sinew_kind_string((sinew_kind)kind));
}

/* A read-only view of a bytes-like argument; 0 or -1. */
static int bytes_in(PyObject *obj, const char *name, Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%s: expected bytes (or any bytes-like object), got %s", name,
                        Py_TYPE(obj)->tp_name);
        return -1;
    }
    return 0;
}

static PyObject *py_saved_info(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_buffer view;
    if (bytes_in(arg, "data", &view) < 0) return NULL;
    sinew_saved_info info;
    SINEW_INIT(&info);
    sinew_result r = sinew_saved_get_info(view.buf, (size_t)view.len, &info);
    PyBuffer_Release(&view);
    if (r != SINEW_OK) return sn_py_raise(r);
    PyObject *dict = PyDict_New();
    if (!dict) return NULL;
    if (sn_py_dict_steal(dict, "kind", PyLong_FromLong((long)info.kind)) < 0 ||
        sn_py_dict_steal(dict, "format_version", PyLong_FromUnsignedLong(info.format_version)) < 0 ||
        sn_py_dict_steal(dict, "library_version", PyLong_FromUnsignedLong(info.library_version)) < 0 ||
        sn_py_dict_steal(dict, "section_count", PyLong_FromUnsignedLong(info.section_count)) < 0 ||
        sn_py_dict_steal(dict, "size", PyLong_FromUnsignedLongLong(info.size)) < 0) {
        Py_DECREF(dict);
        return NULL;
    }
    return dict;
}

static sinew_result save_kind(sinew_kind kind, const void *ptr, void *buffer, size_t capacity, size_t *size)
{
    switch (kind) {
    case SINEW_KIND_SKIN: return sinew_skin_save(ptr, buffer, capacity, size);
    case SINEW_KIND_SOFFD: return sinew_soffd_save(ptr, buffer, capacity, size);
    case SINEW_KIND_LATTICE: return sinew_lattice_save(ptr, buffer, capacity, size);
    case SINEW_KIND_LATTICE_BINDING: return sinew_lattice_binding_save(ptr, buffer, capacity, size);
    case SINEW_KIND_LATTICE_REFINEMENT: return sinew_lattice_refinement_save(ptr, buffer, capacity, size);
    case SINEW_KIND_BBW: return sinew_bbw_save(ptr, buffer, capacity, size);
    case SINEW_KIND_PLACEMENT: return sinew_placement_save(ptr, buffer, capacity, size);
    case SINEW_KIND_CORRECTIVE: return sinew_corrective_save(ptr, buffer, capacity, size);
    }
    return SINEW_ERROR_UNSUPPORTED;
}

static sinew_result load_kind(sinew_kind kind, sinew_context *ctx, const void *data, size_t size, void **out)
{
    switch (kind) {
    case SINEW_KIND_SKIN: return sinew_skin_load(ctx, data, size, (sinew_skin **)out);
    case SINEW_KIND_SOFFD: return sinew_soffd_load(ctx, data, size, (sinew_soffd **)out);
    case SINEW_KIND_LATTICE: return sinew_lattice_load(ctx, data, size, (sinew_lattice **)out);
    case SINEW_KIND_LATTICE_BINDING: return sinew_lattice_binding_load(ctx, data, size, (sinew_lattice_binding **)out);
    case SINEW_KIND_LATTICE_REFINEMENT:
        return sinew_lattice_refinement_load(ctx, data, size, (sinew_lattice_refinement **)out);
    case SINEW_KIND_BBW: return sinew_bbw_load(ctx, data, size, (sinew_bbw **)out);
    case SINEW_KIND_PLACEMENT: return sinew_placement_load(ctx, data, size, (sinew_placement **)out);
    case SINEW_KIND_CORRECTIVE: return sinew_corrective_load(ctx, data, size, (sinew_corrective **)out);
    }
    return SINEW_ERROR_UNSUPPORTED;
}

static int known_kind(long kind)
{
    return kind >= SINEW_KIND_SKIN && kind <= SINEW_KIND_CORRECTIVE;
}

static PyObject *py_save(PyObject *self, PyObject *arg)
{
    (void)self;
    sinew_kind kind;
    if (sn_py_handle_kind(arg, "handle", &kind) < 0) return NULL;
    if (!known_kind((long)kind))
        return sn_py_raise_msg(SINEW_ERROR_UNSUPPORTED, "handle: a %s cannot be saved (the C library has no save for it)",
                               sn_py_kind_string(kind));
    const void *ptr = sn_py_handle_enter(arg, kind, "handle", 0);
    if (!ptr) return NULL;
    size_t size = 0;
    sinew_result r = save_kind(kind, ptr, NULL, 0, &size);
    PyObject *bytes = NULL;
    if (r != SINEW_OK) {
        sn_py_raise(r);
    } else if (size > (size_t)PY_SSIZE_T_MAX) {
        sn_py_raise_msg(SINEW_ERROR_SIZE_OVERFLOW, "handle: %zu bytes of saved data do not fit a bytes object", size);
    } else if ((bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size)) != NULL) {
        size_t written = 0;
        Py_BEGIN_ALLOW_THREADS
        r = save_kind(kind, ptr, PyBytes_AS_STRING(bytes), size, &written);
        Py_END_ALLOW_THREADS
        if (r != SINEW_OK || written != size) {
            Py_CLEAR(bytes);
            if (r != SINEW_OK) sn_py_raise(r);
            else sn_py_raise_msg(SINEW_ERROR_INVALID_STATE, "handle: saved %zu bytes, %zu announced", written, size);
        }
    }
    sn_py_handle_leave(arg, 0);
    return bytes;
}

static PyObject *py_load(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"data", "kind", "progress", NULL};
    PyObject *data, *progress = NULL;
    int kind = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O&$O:load", keywords, &data, SN_PY_ENUM("kind", &kind), &progress))
        return NULL;
    if (kind != 0 && !known_kind(kind))
        return sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "kind: unknown kind %d", kind);
    Py_buffer view;
    if (bytes_in(data, "data", &view) < 0) return NULL;
    if (kind == 0) {
        /* The header says what to load; its checks give the message for garbage. */
        sinew_saved_info info;
        SINEW_INIT(&info);
        sinew_result r = sinew_saved_get_info(view.buf, (size_t)view.len, &info);
        if (r == SINEW_OK && !known_kind((long)info.kind))
            r = SINEW_ERROR_UNSUPPORTED;
        if (r != SINEW_OK) {
            PyBuffer_Release(&view);
            return sn_py_raise(r);
        }
        kind = (int)info.kind;
    }
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    void *handle = NULL;
    sn_py_release_gil(&call);
    sinew_result r = load_kind((sinew_kind)kind, call.ctx, view.buf, (size_t)view.len, &handle);
    sn_py_acquire_gil(&call);
    PyBuffer_Release(&view);
    if (sn_py_call_end(&call, r) < 0) return NULL;
    return sn_py_handle_new((sinew_kind)kind, handle);
}

static PyMethodDef core_methods[] = {
    {"version", py_version, METH_NOARGS, "version() -> str: the linked library's version, \"MAJOR.MINOR.PATCH\"."},
    {"version_number", py_version_number, METH_NOARGS,
     "version_number() -> int: major * 10000 + minor * 100 + patch of the linked library."},
    {"result_string", py_result_string, METH_O, "result_string(code) -> str: short English name of a result code."},
    {"kind_string", py_kind_string, METH_O, "kind_string(kind) -> str: English name of a saved-data kind."},
    {"saved_info", py_saved_info, METH_O,
     "saved_info(data) -> dict: header of saved data (kind, format_version, library_version, section_count, size), "
     "the whole buffer checked; raises InvalidDataError for anything else."},
    {"save", py_save, METH_O, "save(handle) -> bytes: the handle's saved data (same handle, same bytes)."},
    {"load", (PyCFunction)(void (*)(void))py_load, METH_VARARGS | METH_KEYWORDS,
     "load(data, kind=0, *, progress=None) -> Handle: loads saved data; kind 0 takes the kind the data names, "
     "another kind fails with MismatchError on data of a different kind."},
    {NULL, NULL, 0, NULL},
};

int sn_py_register_core(PyObject *module)
{
    if (PyModule_AddFunctions(module, core_methods) < 0) return -1;
    if (PyModule_AddIntConstant(module, "FORMAT_VERSION", SINEW_FORMAT_VERSION) < 0) return -1;
    return PyModule_AddStringConstant(module, "HEADER_VERSION", SINEW_VERSION_STRING);
}
