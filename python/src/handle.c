/*
 * sinew Python binding: sinew._sinew.Handle, the owner of one C handle.
 *
 * A handle counts the calls using it (all under the GIL, so plain ints do):
 * a call that runs with the GIL released marks it, and close() or a
 * conflicting call from another thread then fails with InvalidStateError
 * instead of freeing or changing the handle under it.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

/* The C destroy function of each kind. */
static void destroy_kind(sinew_kind kind, void *ptr)
{
    if (kind == SN_PY_KIND_BBW_POSE) {
        sinew_bbw_pose_destroy(ptr);
        return;
    }
    switch (kind) {
    case SINEW_KIND_SKIN: sinew_skin_destroy(ptr); break;
    case SINEW_KIND_SOFFD: sinew_soffd_destroy(ptr); break;
    case SINEW_KIND_LATTICE: sinew_lattice_destroy(ptr); break;
    case SINEW_KIND_LATTICE_BINDING: sinew_lattice_binding_destroy(ptr); break;
    case SINEW_KIND_LATTICE_REFINEMENT: sinew_lattice_refinement_destroy(ptr); break;
    case SINEW_KIND_BBW: sinew_bbw_destroy(ptr); break;
    case SINEW_KIND_PLACEMENT: sinew_placement_destroy(ptr); break;
    case SINEW_KIND_CORRECTIVE: sinew_corrective_destroy(ptr); break;
    }
}

const char *sn_py_kind_string(sinew_kind kind)
{
    return kind == SN_PY_KIND_BBW_POSE ? "bbw pose" : sinew_kind_string(kind);
}

static PyTypeObject handle_type;

/* Frees the C handle (or lets go of the owner of a view). */
static void release(sn_py_handle *h)
{
    if (h->ptr && !h->owner) destroy_kind(h->kind, h->ptr);
    h->ptr = NULL;
    Py_CLEAR(h->owner);
}

static void handle_dealloc(PyObject *self)
{
    /* A call in progress holds a reference, so no call is running here. */
    release((sn_py_handle *)self);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *handle_close(PyObject *self, PyObject *unused)
{
    (void)unused;
    sn_py_handle *h = (sn_py_handle *)self;
    if (h->readers || h->writer)
        return sn_py_raise_msg(SINEW_ERROR_INVALID_STATE, "%s handle: cannot close while a call on another thread uses it",
                               sn_py_kind_string(h->kind));
    release(h);
    Py_RETURN_NONE;
}

static PyObject *handle_get_kind(PyObject *self, void *unused)
{
    (void)unused;
    return PyLong_FromLong((long)((sn_py_handle *)self)->kind);
}

static PyObject *handle_get_closed(PyObject *self, void *unused)
{
    (void)unused;
    return PyBool_FromLong(((sn_py_handle *)self)->ptr == NULL);
}

static PyObject *handle_get_owner(PyObject *self, void *unused)
{
    (void)unused;
    PyObject *owner = ((sn_py_handle *)self)->owner;
    if (!owner) Py_RETURN_NONE;
    Py_INCREF(owner);
    return owner;
}

static PyObject *handle_repr(PyObject *self)
{
    sn_py_handle *h = (sn_py_handle *)self;
    return PyUnicode_FromFormat("<sinew %s handle%s>", sn_py_kind_string(h->kind),
                                !h->ptr ? " (closed)" : h->owner ? " (view)" : "");
}

static PyMethodDef handle_methods[] = {
    {"close", handle_close, METH_NOARGS,
     "Destroys the C handle now (the garbage collector does it otherwise); later calls on it raise InvalidStateError."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef handle_getset[] = {
    {"kind", handle_get_kind, NULL, "The sinew_kind of the handle (an int; sinew.Kind names it).", NULL},
    {"closed", handle_get_closed, NULL, "True once close() ran.", NULL},
    {"owner", handle_get_owner, NULL, "For a view of a handle owned by another, that owner; else None.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject handle_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sinew._sinew.Handle",
    .tp_basicsize = sizeof(sn_py_handle),
    .tp_dealloc = handle_dealloc,
    .tp_repr = handle_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Owner of one sinew C handle (skin, SOFFD, lattice, ...). Made by the module's create and load "
              "functions, never directly.",
    .tp_methods = handle_methods,
    .tp_getset = handle_getset,
};

int sn_py_handle_init(PyObject *module)
{
    if (PyType_Ready(&handle_type) < 0) return -1;
    Py_INCREF(&handle_type);
    if (PyModule_AddObject(module, "Handle", (PyObject *)&handle_type) < 0) {
        Py_DECREF(&handle_type);
        return -1;
    }
    return 0;
}

PyObject *sn_py_handle_new(sinew_kind kind, void *ptr)
{
    sn_py_handle *h = PyObject_New(sn_py_handle, &handle_type);
    if (!h) {
        destroy_kind(kind, ptr);
        return NULL;
    }
    h->kind = kind;
    h->ptr = ptr;
    h->owner = NULL;
    h->readers = 0;
    h->writer = 0;
    return (PyObject *)h;
}

PyObject *sn_py_handle_view(sinew_kind kind, void *ptr, PyObject *owner)
{
    sn_py_handle *h = PyObject_New(sn_py_handle, &handle_type);
    if (!h) return NULL;
    h->kind = kind;
    h->ptr = ptr;
    Py_INCREF(owner);
    h->owner = owner;
    h->readers = 0;
    h->writer = 0;
    return (PyObject *)h;
}

void *sn_py_handle_enter(PyObject *obj, sinew_kind kind, const char *name, int writer)
{
    if (!obj || Py_TYPE(obj) != &handle_type || ((sn_py_handle *)obj)->kind != kind) {
        PyErr_Format(PyExc_TypeError, "%s: expected a sinew %s handle, got %s", name, sn_py_kind_string(kind),
                     obj && Py_TYPE(obj) == &handle_type
                         ? sn_py_kind_string(((sn_py_handle *)obj)->kind)
                         : obj ? Py_TYPE(obj)->tp_name : "nothing");
        return NULL;
    }
    sn_py_handle *h = (sn_py_handle *)obj;
    if (!h->ptr) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_STATE, "%s: the %s handle is closed", name, sn_py_kind_string(kind));
        return NULL;
    }
    /* A view's owning handle is used by the same call: it must be open, and
     * it is marked too, so that it cannot be closed under the call. */
    sn_py_handle *owner = h->owner && Py_TYPE(h->owner) == &handle_type ? (sn_py_handle *)h->owner : NULL;
    if (owner && !owner->ptr) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_STATE, "%s: the handle owning this %s is closed", name,
                        sn_py_kind_string(kind));
        return NULL;
    }
    if (h->writer || (writer && h->readers) || (owner && (owner->writer || (writer && owner->readers)))) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_STATE,
                        "%s: the %s handle is in use by a call on another thread%s", name, sn_py_kind_string(kind),
                        writer ? " (this call modifies it, so it must run alone)" : " that modifies it");
        return NULL;
    }
    for (sn_py_handle *mark = h; mark; mark = mark == h ? owner : NULL) {
        if (writer) mark->writer = 1;
        else mark->readers += 1;
    }
    Py_INCREF(obj);
    return h->ptr;
}

void sn_py_handle_leave(PyObject *obj, int writer)
{
    sn_py_handle *h = (sn_py_handle *)obj;
    sn_py_handle *owner = h->owner && Py_TYPE(h->owner) == &handle_type ? (sn_py_handle *)h->owner : NULL;
    for (sn_py_handle *mark = h; mark; mark = mark == h ? owner : NULL) {
        if (writer) mark->writer = 0;
        else mark->readers -= 1;
    }
    Py_DECREF(obj);
}

int sn_py_handle_kind(PyObject *obj, const char *name, sinew_kind *kind)
{
    if (!obj || Py_TYPE(obj) != &handle_type) {
        PyErr_Format(PyExc_TypeError, "%s: expected a sinew handle, got %s", name, obj ? Py_TYPE(obj)->tp_name : "nothing");
        return -1;
    }
    *kind = ((sn_py_handle *)obj)->kind;
    return 0;
}
