/*
 * sinew Python binding: the internal header every technique file codes against.
 *
 * The extension module sinew._sinew is plain CPython + numpy C API. Each
 * technique lives in its own file (skin.c, soffd.c, ...) defining
 * `int sn_py_register_<name>(PyObject *module)`, listed once in techniques.h.
 * This header gives them what they share:
 *   errors   sn_py_raise: a sinew_result becomes sinew.Error (or the subclass
 *            for its code) carrying .code and sinew_last_error()'s message.
 *   arrays   sn_py_*_in / *_out: numpy arrays checked for dtype and shape and
 *            named in every message; float32 taken zero-copy when the layout
 *            allows (rows strided when the C call takes a stride), else copied.
 *   calls    sn_py_call: a context whose progress hook calls a Python callable
 *            with the GIL, turns False or an exception or Ctrl-C into a cancel,
 *            and re-raises what the callable raised; the GIL is released
 *            around the C call.
 *   handles  sinew._sinew.Handle owns a C handle of any sinew_kind, destroys
 *            it when collected, counts the calls using it so that close()
 *            never frees it under a call; save/load/destroy work for every kind.
 * Every function here needs the GIL unless it says otherwise.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SN_PY_H
#define SN_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* One numpy C-API table for the whole module: module.c imports it, the other
 * files see it through this symbol. */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL sn_py_numpy_api
#ifndef SN_PY_IMPORT_NUMPY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <sinew.h>

/* ---- Registration ----------------------------------------------------------- */

/* Each technique adds its functions and constants to the module; 0 or -1 with
 * an exception set. The list is techniques.h. */
#define SN_PY_TECHNIQUE(name) int sn_py_register_##name(PyObject *module);
#include "techniques.h"
#undef SN_PY_TECHNIQUE

/* Core parts (errors, handle type, arrays) register through these; module.c
 * calls them before the techniques. */
int sn_py_errors_init(PyObject *module);
int sn_py_handle_init(PyObject *module);

/* ---- Errors ------------------------------------------------------------------ */

/* Raises the sinew.Error subclass for `result` with sinew_last_error()'s
 * message (the result's name when the message is empty); .code is the
 * result. Always returns NULL, so `return sn_py_raise(r);` reads well. */
PyObject *sn_py_raise(sinew_result result);

/* As sn_py_raise with a message of the binding's own (printf-style). */
PyObject *sn_py_raise_msg(sinew_result result, const char *format, ...);

/* As sn_py_raise, with an extra attribute set on the exception (value is
 * borrowed), e.g. the vertex list of an OUTSIDE_DOMAIN capsule binding. */
PyObject *sn_py_raise_with(sinew_result result, const char *attribute, PyObject *value);

/* The exception class of a result code (borrowed). */
PyObject *sn_py_error_class(sinew_result result);

/* ---- Arrays --------------------------------------------------------------------
 * A converted array: the numpy object whose memory the C call reads or writes
 * (the caller's own array when taken zero-copy, else a copy) plus its layout.
 * Release with sn_py_array_release whatever the outcome (a zeroed one too). */
typedef struct sn_py_array {
    PyArrayObject *array;    /* owned reference; NULL for an absent optional array */
    void *data;              /* first element; NULL when absent */
    size_t rows;             /* first dimension (1 for 0-d never: shapes are checked) */
    size_t cols;             /* elements per row (product of the other dimensions; 1 for 1-D) */
    size_t stride;           /* bytes from one row to the next (the C API's stride) */
    int type_num;            /* NPY_FLOAT32, NPY_UINT16, ... */
    sinew_index_type index_type; /* for index arrays: the C type matching type_num */
    int pending;             /* SN_PY_RANGED: `array` is the source, not yet copied (data NULL) */
} sn_py_array;

#define SN_PY_ARRAY_INIT {NULL, NULL, 0, 0, 0, 0, SINEW_INDEX_U32, 0}

enum {
    SN_PY_OPTIONAL = 1u << 0,  /* None (or a NULL object) gives an absent array */
    SN_PY_STRIDED = 1u << 1,   /* rows may lie any multiple of the element size apart
                                * (the C call takes a row stride); else rows are packed */
    SN_PY_FINITE = 1u << 2,    /* reject NaN and infinity, naming the element */
    SN_PY_FLAT = 1u << 3,      /* a 1-D array (shape (rows,)); else 2-D (rows, cols) */
    SN_PY_RANGED = 1u << 4     /* float input of a range call: a copy is left pending until
                                * sn_py_array_range, which copies only the rows the call reads */
};

/* Any dimension given as SN_PY_ANY takes what the array has. */
#define SN_PY_ANY ((Py_ssize_t)-1)

/* Float input of shape (rows, cols) (or (rows,) with SN_PY_FLAT; for cols 16
 * also (rows, 4, 4), see sn_py_matrices_in for matrices). float32 whose rows
 * are contiguous (and packed or, with SN_PY_STRIDED, evenly spaced by a
 * multiple of 4 bytes) is used in place; any other real or integer array, or
 * a sequence, is copied to packed float32. Errors name `name`:
 * InvalidArgumentError for a wrong dtype or shape, NonFiniteError with
 * SN_PY_FINITE. Returns 0 or -1 with an exception set. */
int sn_py_floats_in(PyObject *obj, const char *name, Py_ssize_t rows, Py_ssize_t cols, unsigned flags,
                    sn_py_array *out);

/* Index input (joint indices, triangle corners): uint8, uint16 and uint32
 * arrays are used in place (index_type says which, stride as above); other
 * integer arrays or sequences are checked (no negative value, none above
 * 2^32 - 1, naming the element) and copied to packed uint32. */
int sn_py_indices_in(PyObject *obj, const char *name, Py_ssize_t rows, Py_ssize_t cols, unsigned flags,
                     sn_py_array *out);

/* As sn_py_indices_in, but the C call takes uint32_t * only: everything that
 * is not packed uint32 is checked and copied. */
int sn_py_uint32_in(PyObject *obj, const char *name, Py_ssize_t rows, Py_ssize_t cols, unsigned flags,
                    sn_py_array *out);

/* Output array of shape (rows, cols) (or (rows,) with SN_PY_FLAT): obj None
 * allocates a new one (zeroed when `zero`), else obj must be a writeable,
 * aligned array of exactly that shape and `type_num` whose rows are
 * contiguous (and packed unless SN_PY_STRIDED); nothing is ever copied, so
 * the C call writes into the caller's array. */
int sn_py_out(PyObject *obj, const char *name, int type_num, Py_ssize_t rows, Py_ssize_t cols, unsigned flags,
              int zero, sn_py_array *out);

/* Affine 4x4 matrices, numpy's convention: m[i, r, c] is row r, column c (so
 * m[i] @ (x, y, z, 1) maps a point). The C API wants column-major records of
 * 16 floats: sn_py_matrices_in takes the (count, 4, 4) array's transpose,
 * zero-copy when that is packed float32 (an array this module returned is),
 * else copied. */
int sn_py_matrices_in(PyObject *obj, const char *name, Py_ssize_t count, unsigned flags, sn_py_array *out);

/* Output matrices: `out->array` is a packed (count, 16) float32 buffer the C
 * call fills column-major; sn_py_matrices_result gives the (count, 4, 4)
 * view in numpy's convention to return. obj None allocates; else obj must be
 * a (count, 4, 4) float32 array whose transpose is packed and writeable
 * (one this module returned, or np.empty((n, 4, 4), np.float32).transpose(0, 2, 1)). */
int sn_py_matrices_out(PyObject *obj, const char *name, Py_ssize_t count, sn_py_array *out);
/* New reference to the (count, 4, 4) view of a matrices_out buffer. */
PyObject *sn_py_matrices_result(const sn_py_array *matrices);

/* Completes a SN_PY_RANGED input once the call's range is known: a pending
 * copy becomes a float32 array of the full shape (allocated, not touched)
 * whose rows [first, first + count) are copied from the source, so a call
 * that reads 4 rows of a huge broadcast array copies 4 rows. No-op for an
 * array used in place or absent. 0 or -1 with an exception set. */
int sn_py_array_range(sn_py_array *a, size_t first, size_t count);

/* Drops the reference; the struct becomes absent. */
void sn_py_array_release(sn_py_array *a);

/* New reference to the array to return (the caller's own out array or the one allocated). */
PyObject *sn_py_array_result(const sn_py_array *a);

/* 1 when the memory of a and b overlaps without being the same rows (same
 * data pointer and stride), which no C call allows; -1 with an
 * InvalidArgumentError naming both then, else 0. */
int sn_py_check_overlap(const sn_py_array *a, const char *a_name, const sn_py_array *b, const char *b_name);

/* sinew_points view of a (rows, 3) float array. */
sinew_points sn_py_points(const sn_py_array *a);

/* A polygon mesh: positions (V, 3); triangles as indices (F, 3), or polygons
 * as flat indices with face_sizes (F,) when sizes_obj is not None. The arrays
 * are the views *out points into (release them after the call). Returns 0 or
 * -1 with an exception naming the keyword. */
int sn_py_polymesh_in(PyObject *positions_obj, PyObject *indices_obj, PyObject *sizes_obj, sn_py_array *positions,
                      sn_py_array *indices, sn_py_array *sizes, sinew_polymesh *out);

/* ---- Calls: progress, cancel, GIL --------------------------------------------------
 *     sn_py_call call;
 *     if (sn_py_call_begin(&call, progress) < 0) goto fail;   // progress: callable, None or NULL
 *     sn_py_release_gil(&call);
 *     r = sinew_xxx(call.ctx, ...);                            // no Python API in here
 *     sn_py_acquire_gil(&call);
 *     if (sn_py_call_end(&call, r) < 0) goto fail;             // raises what went wrong
 * The context's progress hook takes the GIL, checks for signals (Ctrl-C
 * cancels the call and raises KeyboardInterrupt), then calls
 * progress(stage: str, fraction: float): a result that is False (or any
 * false value but None) cancels with sinew.CancelledError; an exception it
 * raises cancels and is re-raised. */
typedef struct sn_py_call {
    sinew_context *ctx;       /* pass to the C call; always made, so Ctrl-C works without a callable */
    PyObject *progress;       /* borrowed; NULL when none */
    PyThreadState *saved;     /* set while the GIL is released */
    PyObject *exc_type, *exc_value, *exc_traceback; /* what the hook caught */
    int cancelled_by_callable;
} sn_py_call;

int sn_py_call_begin(sn_py_call *call, PyObject *progress);
void sn_py_release_gil(sn_py_call *call);
void sn_py_acquire_gil(sn_py_call *call);
/* Destroys the context; returns 0 when r is SINEW_OK, else -1 with the
 * exception the hook caught, or sinew's error for r, set. */
int sn_py_call_end(sn_py_call *call, sinew_result r);

/* Releases the GIL around short pose-time calls only when they are large
 * enough for another thread to gain from it (a release costs ~0.1 us). */
#define SN_PY_NOGIL_MIN_ELEMENTS 4096

/* ---- Skeleton binders ------------------------------------------------------------
 * The capsule and point-to-line binders (skin_tools.c, skin_binders.c) share
 * their frame: vertices and bone segments in, influences and the list of
 * vertices they could not place out. */
typedef struct sn_py_binder {
    sn_py_array positions, heads, tails;  /* (V, 3) rows may be strided; (B, 3); (B, 3) */
    sn_py_array joints, weights, unbound; /* new (V, K) uint32, (V, K) float32, (V,) uint32 */
} sn_py_binder;

/* Converts the inputs and makes the outputs (K = influence_count, 0 = 4);
 * 0 or -1 with an exception set. Release with sn_py_binder_release either way. */
int sn_py_binder_begin(sn_py_binder *b, PyObject *positions, PyObject *heads, PyObject *tails,
                       unsigned int influence_count);

/* Ends the binder's call (as sn_py_call_end) given the report's unbound
 * count (maybe more than the list holds): OUTSIDE_DOMAIN raises
 * OutsideDomainError with .unbound; success returns the new tuple (joints,
 * weights, unbound vertices); NULL otherwise. */
PyObject *sn_py_binder_end(sn_py_binder *b, sn_py_call *call, sinew_result r, size_t unbound_count);

void sn_py_binder_release(sn_py_binder *b);

/* ---- Handles ---------------------------------------------------------------------
 * sinew._sinew.Handle: owns one C handle of a sinew_kind (or views one owned
 * by another handle, which it keeps alive). */
/* Objects the C library cannot save have no sinew_kind; the binding numbers
 * their handles from 100 on (never a saved-data kind, so save and load refuse
 * them). */
#define SN_PY_KIND_BBW_POSE ((sinew_kind)100)

/* English name of a handle kind, the binding's own kinds included. */
const char *sn_py_kind_string(sinew_kind kind);

typedef struct sn_py_handle {
    PyObject_HEAD
    sinew_kind kind;
    void *ptr;            /* NULL once closed */
    PyObject *owner;      /* a view's owner (kept alive), or NULL when this handle owns ptr */
    int readers;          /* calls running that only read the handle */
    int writer;           /* a call modifying the handle is running */
} sn_py_handle;

/* New Handle owning ptr (destroyed by the kind's *_destroy when the handle
 * is closed or collected). On failure (NULL) ptr is destroyed too. */
PyObject *sn_py_handle_new(sinew_kind kind, void *ptr);
/* New Handle viewing ptr, owned by `owner` (another object it keeps alive). */
PyObject *sn_py_handle_view(sinew_kind kind, void *ptr, PyObject *owner);

/* Checks obj is an open Handle of `kind` and marks it in use (writer: the call
 * modifies the handle, so no other call may run on it; else any number of
 * readers). Returns the C pointer, or NULL with TypeError (not a handle of that
 * kind) or sinew.InvalidStateError (closed, or in use by a call on another
 * thread that conflicts) naming `name`. Pair with sn_py_handle_leave. */
void *sn_py_handle_enter(PyObject *obj, sinew_kind kind, const char *name, int writer);
void sn_py_handle_leave(PyObject *obj, int writer);

/* The kind of a Handle; TypeError naming `name` for anything else. 0 or -1. */
int sn_py_handle_kind(PyObject *obj, const char *name, sinew_kind *kind);

/* ---- Small helpers ---------------------------------------------------------------- */

/* Sets dict[key] = value, stealing value (NULL value: returns -1, the error
 * already set). 0 or -1. */
int sn_py_dict_steal(PyObject *dict, const char *key, PyObject *value);

/* size_t from a Python int argument named `name` (>= 0); 0 or -1. */
int sn_py_size(PyObject *obj, const char *name, size_t *out);

/* ---- Integer arguments -------------------------------------------------------------
 * PyArg_Parse's "I" wraps modulo 2^32 and "i", "l" and "n" take negative
 * values, so no integer argument uses them: each goes through "O&" with one of
 * these converters, which take any integer (numpy's too, not a float) and
 * refuse a negative value or one past the C type with InvalidArgumentError
 * naming the keyword ("max_iterations: expected an int in [0, 4294967295],
 * got -1"). Each macro gives both of O&'s arguments:
 *     PyArg_ParseTupleAndKeywords(args, kwargs, "O|O&", kwlist, &handle,
 *                                 SN_PY_U32("max_iterations", &d.max_iterations))
 * The pointer's type is checked at compile time. */
typedef struct sn_py_int_arg {
    const char *name; /* the keyword, for the message */
    void *value;      /* written only when the value is in range */
} sn_py_int_arg;

int sn_py_u32_converter(PyObject *obj, void *arg);   /* uint32_t */
int sn_py_enum_converter(PyObject *obj, void *arg);  /* int in [0, INT_MAX]: an option's number */
int sn_py_count_converter(PyObject *obj, void *arg); /* size_t, at most PY_SSIZE_T_MAX */
/* An element's number (size_t): out of range is IndexOutOfRangeError; the
 * call checks it against its element count. */
int sn_py_index_converter(PyObject *obj, void *arg);

#define SN_PY_U32(name, ptr) sn_py_u32_converter, (&(sn_py_int_arg){(name), (1 ? (ptr) : (uint32_t *)0)})
#define SN_PY_ENUM(name, ptr) sn_py_enum_converter, (&(sn_py_int_arg){(name), (1 ? (ptr) : (int *)0)})
#define SN_PY_COUNT(name, ptr) sn_py_count_converter, (&(sn_py_int_arg){(name), (1 ? (ptr) : (size_t *)0)})
#define SN_PY_INDEX(name, ptr) sn_py_index_converter, (&(sn_py_int_arg){(name), (1 ? (ptr) : (size_t *)0)})

/* [first, first + count) from optional Python ints (None: 0 and total - first);
 * IndexOutOfRangeError naming the range when past total. 0 or -1. */
int sn_py_range(PyObject *first_obj, PyObject *count_obj, size_t total, size_t *first, size_t *count);

#endif /* SN_PY_H */
