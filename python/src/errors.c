/*
 * sinew Python binding: exception classes, one per result code, under sinew.Error.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

#include <stdarg.h>
#include <string.h>

/* Python name and extra built-in base of each code's class; a built-in base
 * lets `except ValueError` catch bad input as Python code expects. */
typedef struct error_spec {
    sinew_result code;
    const char *name;
    PyObject **builtin_base;
} error_spec;

static const error_spec error_specs[] = {
    {SINEW_ERROR_INVALID_ARGUMENT, "InvalidArgumentError", &PyExc_ValueError},
    {SINEW_ERROR_OUT_OF_MEMORY, "OutOfMemoryError", &PyExc_MemoryError},
    {SINEW_ERROR_SIZE_OVERFLOW, "SizeOverflowError", &PyExc_OverflowError},
    {SINEW_ERROR_NON_FINITE, "NonFiniteError", &PyExc_ValueError},
    {SINEW_ERROR_INDEX_OUT_OF_RANGE, "IndexOutOfRangeError", &PyExc_IndexError},
    {SINEW_ERROR_DEGENERATE, "DegenerateError", &PyExc_ValueError},
    {SINEW_ERROR_INVALID_WEIGHTS, "InvalidWeightsError", &PyExc_ValueError},
    {SINEW_ERROR_MISMATCH, "MismatchError", &PyExc_ValueError},
    {SINEW_ERROR_CANCELLED, "CancelledError", NULL},
    {SINEW_ERROR_NOT_CONVERGED, "NotConvergedError", NULL},
    {SINEW_ERROR_BUDGET_EXCEEDED, "BudgetExceededError", NULL},
    {SINEW_ERROR_INVALID_TOPOLOGY, "InvalidTopologyError", &PyExc_ValueError},
    {SINEW_ERROR_OUTSIDE_DOMAIN, "OutsideDomainError", &PyExc_ValueError},
    {SINEW_ERROR_INVALID_STATE, "InvalidStateError", &PyExc_RuntimeError},
    {SINEW_ERROR_UNSUPPORTED, "UnsupportedError", NULL},
    {SINEW_ERROR_NO_RESULT, "NoResultError", NULL},
    {SINEW_ERROR_BUFFER_TOO_SMALL, "BufferTooSmallError", NULL},
    {SINEW_ERROR_INVALID_DATA, "InvalidDataError", &PyExc_ValueError},
};

#define ERROR_CODE_LIMIT 64
/* Class of each code (index = code); codes without a class of their own (new
 * ones from a newer library) fall back to sinew.Error. Set once at import. */
static PyObject *error_base;
static PyObject *error_classes[ERROR_CODE_LIMIT];

int sn_py_errors_init(PyObject *module)
{
    error_base = PyErr_NewExceptionWithDoc("sinew._sinew.Error",
        "A sinew call failed. .code is the sinew_result (an int; sinew.Result names it), "
        ".message sinew_last_error()'s text naming the offending element.",
        PyExc_Exception, NULL);
    if (!error_base) return -1;
    Py_INCREF(error_base);
    if (PyModule_AddObject(module, "Error", error_base) < 0) {
        Py_DECREF(error_base);
        return -1;
    }
    for (size_t i = 0; i < sizeof error_specs / sizeof error_specs[0]; ++i) {
        const error_spec *spec = &error_specs[i];
        char qualified[96];
        PyOS_snprintf(qualified, sizeof qualified, "sinew._sinew.%s", spec->name);
        PyObject *bases = spec->builtin_base ? PyTuple_Pack(2, error_base, *spec->builtin_base)
                                             : PyTuple_Pack(1, error_base);
        if (!bases) return -1;
        PyObject *cls = PyErr_NewException(qualified, bases, NULL);
        Py_DECREF(bases);
        if (!cls) return -1;
        PyObject *code = PyLong_FromLong((long)spec->code);
        int failed = !code || PyObject_SetAttrString(cls, "code", code) < 0;
        Py_XDECREF(code);
        if (failed) {
            Py_DECREF(cls);
            return -1;
        }
        error_classes[spec->code] = cls;
        Py_INCREF(cls);
        if (PyModule_AddObject(module, spec->name, cls) < 0) {
            Py_DECREF(cls);
            return -1;
        }
    }
    return 0;
}

PyObject *sn_py_error_class(sinew_result result)
{
    if ((int)result > 0 && (int)result < ERROR_CODE_LIMIT && error_classes[result]) return error_classes[result];
    return error_base;
}

/* Raises cls(message) with .code and .message set, plus one optional attribute. */
static PyObject *raise_error(sinew_result result, const char *message, const char *attribute, PyObject *value)
{
    PyObject *cls = sn_py_error_class(result);
    PyObject *error = PyObject_CallFunction(cls, "s", message);
    if (!error) return NULL;
    PyObject *code = PyLong_FromLong((long)result);
    PyObject *text = PyUnicode_FromString(message);
    if (!code || !text || PyObject_SetAttrString(error, "code", code) < 0 ||
        PyObject_SetAttrString(error, "message", text) < 0 ||
        (attribute && PyObject_SetAttrString(error, attribute, value) < 0)) {
        Py_XDECREF(code);
        Py_XDECREF(text);
        Py_DECREF(error);
        return NULL;
    }
    Py_DECREF(code);
    Py_DECREF(text);
    PyErr_SetObject(cls, error);
    Py_DECREF(error);
    return NULL;
}

/* Advice in the library's messages that names a C constant or field, and
 * what a Python caller writes instead. */
static const struct {
    const char *c, *python;
} advice[] = {
    {"set unweighted = SINEW_SKIN_UNWEIGHTED_BIND to bind it", "pass unweighted_joint= to bind it to that joint"},
    {"set renormalise to scale them", "pass renormalise=True to scale them"},
};

/* The library's message for a Python caller, in buf. */
static const char *last_message(sinew_result result, char *buf, size_t size)
{
    const char *message = sinew_last_error();
    if (!message || !message[0]) return sinew_result_string(result);
    for (size_t i = 0; i < sizeof advice / sizeof advice[0]; ++i) {
        const char *at = strstr(message, advice[i].c);
        if (!at) continue;
        PyOS_snprintf(buf, size, "%.*s%s%s", (int)(at - message), message, advice[i].python,
                      at + strlen(advice[i].c));
        return buf;
    }
    return message;
}

PyObject *sn_py_raise(sinew_result result)
{
    char buf[1024];
    return raise_error(result, last_message(result, buf, sizeof buf), NULL, NULL);
}

PyObject *sn_py_raise_with(sinew_result result, const char *attribute, PyObject *value)
{
    char buf[1024];
    return raise_error(result, last_message(result, buf, sizeof buf), attribute, value);
}

PyObject *sn_py_raise_msg(sinew_result result, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    PyObject *text = PyUnicode_FromFormatV(format, args);
    va_end(args);
    if (!text) return NULL;
    const char *message = PyUnicode_AsUTF8(text);
    PyObject *raised = message ? raise_error(result, message, NULL, NULL) : NULL;
    Py_DECREF(text);
    return raised;
}
