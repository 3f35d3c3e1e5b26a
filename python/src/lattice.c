/*
 * sinew._sinew: the B-spline lattice (sinew/lattice.h): create, control points,
 * evaluation, one-shot and bound deformation, the fold-over check, adaptive
 * refinement and the segment bound. Save and load go through the module's
 * generic save/load (every kind). python/sinew/lattice.py is the friendly layer.
 *
 * A lattice handle may be a view of a placement's lattice (placement.c makes
 * it): such a view takes only const calls; the handle layer marks the
 * placement in use during each, so that no placement edit runs under it.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

/* ---- Handles ------------------------------------------------------------------ */

/* Enters a lattice handle (sn_py_handle_enter marks a view's placement in
 * use too). A writer call on a view is refused: the placement owns its
 * lattice. NULL with an exception set on failure; pair with lattice_leave. */
static sinew_lattice *lattice_enter(PyObject *obj, int writer)
{
    sinew_lattice *lattice = sn_py_handle_enter(obj, SINEW_KIND_LATTICE, "lattice", writer);
    if (lattice && writer && ((sn_py_handle *)obj)->owner) {
        sn_py_handle_leave(obj, writer);
        sn_py_raise_msg(SINEW_ERROR_INVALID_STATE,
                        "this lattice belongs to a placement and is read-only: edit the placement instead");
        return NULL;
    }
    return lattice;
}

static void lattice_leave(PyObject *obj, int writer)
{
    sn_py_handle_leave(obj, writer);
}

static int lattice_info(const sinew_lattice *lattice, sinew_lattice_info *info)
{
    SINEW_INIT(info);
    if (sinew_lattice_get_info(lattice, info) != SINEW_OK) {
        sn_py_raise(SINEW_ERROR_INVALID_ARGUMENT);
        return -1;
    }
    return 0;
}

static PyObject *triple_u32(const uint32_t v[3]) { return Py_BuildValue("(III)", v[0], v[1], v[2]); }
static PyObject *triple_f(const float v[3]) { return Py_BuildValue("(ddd)", (double)v[0], (double)v[1], (double)v[2]); }

/* ---- Create and describe ---------------------------------------------------------- */

static PyObject *py_lattice_create(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"count", "order", "origin", "axes", "extents", "outside", NULL};
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    PyObject *axes_obj = Py_None;
    int outside = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "(O&O&O&)(O&O&O&)(fff)O(fff)O&", kwlist,
                                     SN_PY_U32("count[0]", &d.count[0]), SN_PY_U32("count[1]", &d.count[1]),
                                     SN_PY_U32("count[2]", &d.count[2]), SN_PY_U32("order[0]", &d.order[0]),
                                     SN_PY_U32("order[1]", &d.order[1]), SN_PY_U32("order[2]", &d.order[2]),
                                     &d.origin[0], &d.origin[1], &d.origin[2], &axes_obj, &d.extents[0],
                                     &d.extents[1], &d.extents[2], SN_PY_ENUM("outside", &outside)))
        return NULL;
    d.outside = (sinew_lattice_outside)outside;
    if (axes_obj != Py_None) {
        sn_py_array axes = SN_PY_ARRAY_INIT;
        if (sn_py_floats_in(axes_obj, "axes", 3, 3, 0, &axes) < 0) return NULL;
        memcpy(d.axes, axes.data, sizeof d.axes);
        sn_py_array_release(&axes);
    }
    sinew_lattice *lattice = NULL;
    sinew_result r = sinew_lattice_create(NULL, &d, &lattice);
    if (r != SINEW_OK) return sn_py_raise(r);
    return sn_py_handle_new(SINEW_KIND_LATTICE, lattice);
}

static PyObject *py_lattice_info(PyObject *self, PyObject *handle)
{
    (void)self;
    sinew_lattice *lattice = lattice_enter(handle, 0);
    if (!lattice) return NULL;
    sinew_lattice_info i;
    int ok = lattice_info(lattice, &i) == 0;
    lattice_leave(handle, 0);
    if (!ok) return NULL;
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    if (sn_py_dict_steal(d, "count", triple_u32(i.count)) < 0 ||
        sn_py_dict_steal(d, "order", triple_u32(i.order)) < 0 ||
        sn_py_dict_steal(d, "cells", triple_u32(i.cells)) < 0 ||
        sn_py_dict_steal(d, "point_count", PyLong_FromSize_t(i.point_count)) < 0 ||
        sn_py_dict_steal(d, "cell_count", PyLong_FromSize_t(i.cell_count)) < 0 ||
        sn_py_dict_steal(d, "origin", triple_f(i.origin)) < 0 ||
        sn_py_dict_steal(d, "axes", Py_BuildValue("(NNN)", triple_f(i.axes[0]), triple_f(i.axes[1]),
                                                  triple_f(i.axes[2]))) < 0 ||
        sn_py_dict_steal(d, "extents", triple_f(i.extents)) < 0 ||
        sn_py_dict_steal(d, "outside", PyLong_FromLong((long)i.outside)) < 0 ||
        sn_py_dict_steal(d, "memory_bytes", PyLong_FromSize_t(i.memory_bytes)) < 0 ||
        sn_py_dict_steal(d, "readonly", PyBool_FromLong(((sn_py_handle *)handle)->owner != NULL)) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* ---- Control points ------------------------------------------------------------------ */

typedef sinew_result (*point_getter)(const sinew_lattice *, float *, size_t, size_t, size_t);

/* (handle, out=None, first=None, count=None) -> float32 (point_count, 3). */
static PyObject *get_points_with(PyObject *args, PyObject *kwargs, point_getter get)
{
    static char *kwlist[] = {"lattice", "out", "first", "count", NULL};
    PyObject *handle, *out_obj = Py_None, *first_obj = Py_None, *count_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOO", kwlist, &handle, &out_obj, &first_obj, &count_obj))
        return NULL;
    sinew_lattice *lattice = lattice_enter(handle, 0);
    if (!lattice) return NULL;
    PyObject *result = NULL;
    sn_py_array out = SN_PY_ARRAY_INIT;
    sinew_lattice_info info;
    size_t first, count;
    if (lattice_info(lattice, &info) == 0 && sn_py_range(first_obj, count_obj, info.point_count, &first, &count) == 0 &&
        sn_py_out(out_obj, "out", NPY_FLOAT32, (Py_ssize_t)info.point_count, 3, SN_PY_STRIDED, 1, &out) == 0) {
        sinew_result r = get(lattice, out.data, out.stride, first, count);
        result = r == SINEW_OK ? sn_py_array_result(&out) : sn_py_raise(r);
    }
    sn_py_array_release(&out);
    lattice_leave(handle, 0);
    return result;
}

static PyObject *py_lattice_rest_points(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    return get_points_with(args, kwargs, sinew_lattice_rest_points);
}

static PyObject *py_lattice_get_points(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    return get_points_with(args, kwargs, sinew_lattice_points);
}

static PyObject *py_lattice_get_displacements(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    return get_points_with(args, kwargs, sinew_lattice_displacements);
}

typedef sinew_result (*point_setter)(sinew_lattice *, const sinew_points *, size_t, size_t);

/* (handle, values (n, 3), first=None, count=None): rows [first, first + count). */
static PyObject *set_points_with(PyObject *args, PyObject *kwargs, point_setter set, const char *name)
{
    static char *kwlist[] = {"lattice", "values", "first", "count", NULL};
    PyObject *handle, *values_obj, *first_obj = Py_None, *count_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OO", kwlist, &handle, &values_obj, &first_obj, &count_obj))
        return NULL;
    sinew_lattice *lattice = lattice_enter(handle, 1);
    if (!lattice) return NULL;
    PyObject *result = NULL;
    sn_py_array values = SN_PY_ARRAY_INIT;
    size_t first, count;
    if (sn_py_floats_in(values_obj, name, SN_PY_ANY, 3, SN_PY_STRIDED | SN_PY_RANGED, &values) == 0 &&
        sn_py_range(first_obj, count_obj, values.rows, &first, &count) == 0 &&
        sn_py_array_range(&values, first, count) == 0) {
        sinew_points view = sn_py_points(&values);
        sinew_result r = set(lattice, &view, first, count);
        if (r == SINEW_OK) result = Py_NewRef(Py_None);
        else sn_py_raise(r);
    }
    sn_py_array_release(&values);
    lattice_leave(handle, 1);
    return result;
}

static PyObject *py_lattice_set_points(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    return set_points_with(args, kwargs, sinew_lattice_set_points, "positions");
}

static PyObject *py_lattice_set_displacements(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    return set_points_with(args, kwargs, sinew_lattice_set_displacements, "displacements");
}

static PyObject *py_lattice_reset(PyObject *self, PyObject *handle)
{
    (void)self;
    sinew_lattice *lattice = lattice_enter(handle, 1);
    if (!lattice) return NULL;
    sinew_lattice_reset(lattice);
    lattice_leave(handle, 1);
    Py_RETURN_NONE;
}

/* ---- Evaluation and deformation --------------------------------------------------- */

/* Runs a pose-time call (result into r) without the GIL when the range is
 * large enough for another thread to gain from it. */
#define POSE_CALL(count, call)                     \
    do {                                           \
        if ((count) >= SN_PY_NOGIL_MIN_ELEMENTS) { \
            Py_BEGIN_ALLOW_THREADS                 \
            r = (call);                            \
            Py_END_ALLOW_THREADS                   \
        } else {                                   \
            r = (call);                            \
        }                                          \
    } while (0)

/* (handle, world (n, 3), out=None, first=None, count=None) -> (u, v, w) float32 (n, 3). */
static PyObject *py_lattice_parameters(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"lattice", "world", "out", "first", "count", NULL};
    PyObject *handle, *world_obj, *out_obj = Py_None, *first_obj = Py_None, *count_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OOO", kwlist, &handle, &world_obj, &out_obj, &first_obj,
                                     &count_obj))
        return NULL;
    sinew_lattice *lattice = lattice_enter(handle, 0);
    if (!lattice) return NULL;
    PyObject *result = NULL;
    sn_py_array world = SN_PY_ARRAY_INIT, out = SN_PY_ARRAY_INIT;
    size_t first, count;
    if (sn_py_floats_in(world_obj, "world", SN_PY_ANY, 3, SN_PY_STRIDED | SN_PY_RANGED, &world) == 0 &&
        sn_py_range(first_obj, count_obj, world.rows, &first, &count) == 0 &&
        sn_py_array_range(&world, first, count) == 0 &&
        sn_py_out(out_obj, "out", NPY_FLOAT32, (Py_ssize_t)world.rows, 3, SN_PY_STRIDED, 0, &out) == 0 &&
        sn_py_check_overlap(&world, "world", &out, "out") == 0) {
        sinew_points view = sn_py_points(&world);
        sinew_result r;
        POSE_CALL(count, sinew_lattice_parameters(lattice, &view, out.data, out.stride, first, count));
        result = r == SINEW_OK ? sn_py_array_result(&out) : sn_py_raise(r);
    }
    sn_py_array_release(&world);
    sn_py_array_release(&out);
    lattice_leave(handle, 0);
    return result;
}

/* (handle, params (n, 3), positions=True, jacobians=False, first=None, count=None,
 *  out=None, out_jacobians=None) -> (positions (n, 3) or None, jacobians (n, 9) or None);
 * each Jacobian row is the C layout: column-major 3x3 (dF/du, dF/dv, dF/dw). */
static PyObject *py_lattice_evaluate(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"lattice", "params", "positions", "jacobians", "first", "count", "out",
                             "out_jacobians", NULL};
    PyObject *handle, *params_obj, *first_obj = Py_None, *count_obj = Py_None, *out_obj = Py_None,
             *jac_obj = Py_None;
    int want_positions = 1, want_jacobians = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|ppOOOO", kwlist, &handle, &params_obj, &want_positions,
                                     &want_jacobians, &first_obj, &count_obj, &out_obj, &jac_obj))
        return NULL;
    want_positions |= out_obj != Py_None;
    want_jacobians |= jac_obj != Py_None;
    if (!want_positions && !want_jacobians)
        return sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "evaluate needs positions or jacobians (or both)");
    sinew_lattice *lattice = lattice_enter(handle, 0);
    if (!lattice) return NULL;
    PyObject *result = NULL;
    sn_py_array params = SN_PY_ARRAY_INIT, out = SN_PY_ARRAY_INIT, jac = SN_PY_ARRAY_INIT;
    size_t first, count;
    if (sn_py_floats_in(params_obj, "params", SN_PY_ANY, 3, SN_PY_STRIDED | SN_PY_RANGED, &params) == 0 &&
        sn_py_range(first_obj, count_obj, params.rows, &first, &count) == 0 &&
        sn_py_array_range(&params, first, count) == 0 &&
        (!want_positions ||
         sn_py_out(out_obj, "out", NPY_FLOAT32, (Py_ssize_t)params.rows, 3, SN_PY_STRIDED, 0, &out) == 0) &&
        (!want_jacobians ||
         sn_py_out(jac_obj, "out_jacobians", NPY_FLOAT32, (Py_ssize_t)params.rows, 9, SN_PY_STRIDED, 0, &jac) == 0) &&
        sn_py_check_overlap(&params, "params", &out, "out") == 0 &&
        sn_py_check_overlap(&params, "params", &jac, "out_jacobians") == 0 &&
        sn_py_check_overlap(&out, "out", &jac, "out_jacobians") == 0) {
        sinew_points view = sn_py_points(&params);
        sinew_result r;
        POSE_CALL(count, sinew_lattice_evaluate(lattice, &view, out.data, out.stride, jac.data, jac.stride,
                                                      first, count));
        if (r != SINEW_OK) sn_py_raise(r);
        else
            result = Py_BuildValue("(NN)", want_positions ? sn_py_array_result(&out) : Py_NewRef(Py_None),
                                   want_jacobians ? sn_py_array_result(&jac) : Py_NewRef(Py_None));
    }
    sn_py_array_release(&params);
    sn_py_array_release(&out);
    sn_py_array_release(&jac);
    lattice_leave(handle, 0);
    return result;
}

/* (handle, points (n, 3), normals=None, out=None, out_normals=None, first=None,
 *  count=None) -> (points (n, 3), normals (n, 3) or None). out may be points. */
static PyObject *py_lattice_deform(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"lattice", "points", "normals", "out", "out_normals", "first", "count", NULL};
    PyObject *handle, *points_obj, *normals_obj = Py_None, *out_obj = Py_None, *out_normals_obj = Py_None,
             *first_obj = Py_None, *count_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OOOOO", kwlist, &handle, &points_obj, &normals_obj,
                                     &out_obj, &out_normals_obj, &first_obj, &count_obj))
        return NULL;
    sinew_lattice *lattice = lattice_enter(handle, 0);
    if (!lattice) return NULL;
    PyObject *result = NULL;
    sn_py_array points = SN_PY_ARRAY_INIT, normals = SN_PY_ARRAY_INIT, out = SN_PY_ARRAY_INIT,
                out_normals = SN_PY_ARRAY_INIT;
    size_t first, count;
    int ok = sn_py_floats_in(points_obj, "points", SN_PY_ANY, 3, SN_PY_STRIDED | SN_PY_RANGED, &points) == 0 &&
             sn_py_floats_in(normals_obj, "normals", (Py_ssize_t)points.rows, 3,
                             SN_PY_STRIDED | SN_PY_OPTIONAL | SN_PY_RANGED, &normals) == 0 &&
             sn_py_range(first_obj, count_obj, points.rows, &first, &count) == 0 &&
             sn_py_array_range(&points, first, count) == 0 && sn_py_array_range(&normals, first, count) == 0 &&
             sn_py_out(out_obj, "out", NPY_FLOAT32, (Py_ssize_t)points.rows, 3, SN_PY_STRIDED, 0, &out) == 0;
    if (ok && normals.array)
        ok = sn_py_out(out_normals_obj, "out_normals", NPY_FLOAT32, (Py_ssize_t)points.rows, 3, SN_PY_STRIDED, 0,
                       &out_normals) == 0;
    else if (ok && out_normals_obj != Py_None) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "out_normals is given but normals is not");
        ok = 0;
    }
    ok = ok && sn_py_check_overlap(&points, "points", &out, "out") == 0 &&
         sn_py_check_overlap(&normals, "normals", &out_normals, "out_normals") == 0 &&
         sn_py_check_overlap(&points, "points", &out_normals, "out_normals") == 0 &&
         sn_py_check_overlap(&normals, "normals", &out, "out") == 0 &&
         sn_py_check_overlap(&out, "out", &out_normals, "out_normals") == 0;
    if (ok) {
        sinew_points pv = sn_py_points(&points), nv = sn_py_points(&normals);
        sinew_result r;
        POSE_CALL(count, sinew_lattice_deform(lattice, &pv, normals.array ? &nv : NULL, out.data, out.stride,
                                                    out_normals.data, out_normals.stride, first, count));
        if (r != SINEW_OK) sn_py_raise(r);
        else
            result = Py_BuildValue("(NN)", sn_py_array_result(&out),
                                   normals.array ? sn_py_array_result(&out_normals) : Py_NewRef(Py_None));
    }
    sn_py_array_release(&points);
    sn_py_array_release(&normals);
    sn_py_array_release(&out);
    sn_py_array_release(&out_normals);
    lattice_leave(handle, 0);
    return result;
}

/* (handle, a (3 floats), b (3 floats)) -> (bound, split_t). */
static PyObject *py_lattice_segment_bound(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    float a[3], b[3];
    if (!PyArg_ParseTuple(args, "O(fff)(fff)", &handle, &a[0], &a[1], &a[2], &b[0], &b[1], &b[2])) return NULL;
    sinew_lattice *lattice = lattice_enter(handle, 0);
    if (!lattice) return NULL;
    double bound = 0.0, t = 0.0;
    sinew_result r = sinew_lattice_segment_bound(lattice, a, b, &bound, &t);
    lattice_leave(handle, 0);
    if (r != SINEW_OK) return sn_py_raise(r);
    return Py_BuildValue("(dd)", bound, t);
}

/* ---- Bound deformation ---------------------------------------------------------------- */

/* (lattice, points (n, 3), normals=None, space=0) -> binding handle. */
static PyObject *py_lattice_binding_create(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"lattice", "points", "normals", "space", NULL};
    PyObject *handle, *points_obj, *normals_obj = Py_None;
    int space = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OO&", kwlist, &handle, &points_obj, &normals_obj,
                                     SN_PY_ENUM("space", &space)))
        return NULL;
    sinew_lattice *lattice = lattice_enter(handle, 0);
    if (!lattice) return NULL;
    PyObject *result = NULL;
    sn_py_array points = SN_PY_ARRAY_INIT, normals = SN_PY_ARRAY_INIT;
    if (sn_py_floats_in(points_obj, "points", SN_PY_ANY, 3, SN_PY_STRIDED, &points) == 0 &&
        sn_py_floats_in(normals_obj, "normals", SN_PY_ANY, 3, SN_PY_STRIDED | SN_PY_OPTIONAL, &normals) == 0) {
        sinew_lattice_binding_desc d;
        SINEW_INIT(&d);
        d.points = sn_py_points(&points);
        if (normals.array) d.normals = sn_py_points(&normals);
        d.space = (sinew_lattice_space)space;
        sinew_lattice_binding *binding = NULL;
        sinew_result r;
        POSE_CALL(points.rows, sinew_lattice_binding_create(NULL, lattice, &d, &binding));
        result = r == SINEW_OK ? sn_py_handle_new(SINEW_KIND_LATTICE_BINDING, binding) : sn_py_raise(r);
    }
    sn_py_array_release(&points);
    sn_py_array_release(&normals);
    lattice_leave(handle, 0);
    return result;
}

static PyObject *py_lattice_binding_info(PyObject *self, PyObject *handle)
{
    (void)self;
    sinew_lattice_binding *binding = sn_py_handle_enter(handle, SINEW_KIND_LATTICE_BINDING, "binding", 0);
    if (!binding) return NULL;
    sinew_lattice_binding_info i;
    SINEW_INIT(&i);
    sinew_result r = sinew_lattice_binding_get_info(binding, &i);
    sn_py_handle_leave(handle, 0);
    if (r != SINEW_OK) return sn_py_raise(r);
    return Py_BuildValue("{s:n,s:O,s:i,s:n}", "point_count", (Py_ssize_t)i.point_count, "has_normals",
                         i.has_normals ? Py_True : Py_False, "space", (int)i.space, "memory_bytes",
                         (Py_ssize_t)i.memory_bytes);
}

/* (binding, lattice, out=None, out_normals=None, normals=False, first=None, count=None)
 * -> (points (n, 3), normals (n, 3) or None). */
static PyObject *py_lattice_binding_deform(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"binding", "lattice", "out", "out_normals", "normals", "first", "count", NULL};
    PyObject *binding_obj, *handle, *out_obj = Py_None, *out_normals_obj = Py_None, *first_obj = Py_None,
             *count_obj = Py_None;
    int want_normals = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OOpOO", kwlist, &binding_obj, &handle, &out_obj,
                                     &out_normals_obj, &want_normals, &first_obj, &count_obj))
        return NULL;
    want_normals |= out_normals_obj != Py_None;
    sinew_lattice_binding *binding = sn_py_handle_enter(binding_obj, SINEW_KIND_LATTICE_BINDING, "binding", 0);
    if (!binding) return NULL;
    sinew_lattice *lattice = lattice_enter(handle, 0);
    if (!lattice) {
        sn_py_handle_leave(binding_obj, 0);
        return NULL;
    }
    PyObject *result = NULL;
    sn_py_array out = SN_PY_ARRAY_INIT, out_normals = SN_PY_ARRAY_INIT;
    size_t n = sinew_lattice_binding_count(binding), first, count;
    if (sn_py_range(first_obj, count_obj, n, &first, &count) == 0 &&
        sn_py_out(out_obj, "out", NPY_FLOAT32, (Py_ssize_t)n, 3, SN_PY_STRIDED, 0, &out) == 0 &&
        (!want_normals ||
         sn_py_out(out_normals_obj, "out_normals", NPY_FLOAT32, (Py_ssize_t)n, 3, SN_PY_STRIDED, 0,
                   &out_normals) == 0) &&
        sn_py_check_overlap(&out, "out", &out_normals, "out_normals") == 0) {
        sinew_result r;
        POSE_CALL(count, sinew_lattice_binding_deform(binding, lattice, out.data, out.stride, out_normals.data,
                                                            out_normals.stride, first, count));
        if (r != SINEW_OK) sn_py_raise(r);
        else
            result = Py_BuildValue("(NN)", sn_py_array_result(&out),
                                   want_normals ? sn_py_array_result(&out_normals) : Py_NewRef(Py_None));
    }
    sn_py_array_release(&out);
    sn_py_array_release(&out_normals);
    lattice_leave(handle, 0);
    sn_py_handle_leave(binding_obj, 0);
    return result;
}

/* ---- Long calls: fold check and refinement ------------------------------------------ */

/* (lattice, samples_per_axis=0, cell_flags=True, progress=None) -> (report dict, uint8 flags or None). */
static PyObject *py_lattice_check_folds(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"lattice", "samples_per_axis", "cell_flags", "progress", NULL};
    PyObject *handle, *progress = Py_None;
    uint32_t samples = 0;
    int want_flags = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O&pO", kwlist, &handle,
                                     SN_PY_U32("samples_per_axis", &samples), &want_flags, &progress))
        return NULL;
    sinew_lattice *lattice = lattice_enter(handle, 0);
    if (!lattice) return NULL;
    PyObject *result = NULL;
    sn_py_array flags = SN_PY_ARRAY_INIT;
    sinew_lattice_info info;
    sn_py_call call;
    if (lattice_info(lattice, &info) == 0 &&
        (!want_flags || sn_py_out(Py_None, "cell_flags", NPY_UINT8, (Py_ssize_t)info.cell_count, 1, SN_PY_FLAT, 1,
                                  &flags) == 0) &&
        sn_py_call_begin(&call, progress) == 0) {
        sinew_lattice_fold_report report;
        SINEW_INIT(&report);
        sn_py_release_gil(&call);
        sinew_result r = sinew_lattice_check_folds(call.ctx, lattice, samples, flags.data,
                                                   want_flags ? info.cell_count : 0, &report);
        sn_py_acquire_gil(&call);
        if (sn_py_call_end(&call, r) == 0)
            result = Py_BuildValue(
                "({s:n,s:n,s:d,s:d,s:(ddd)}N)", "cell_count", (Py_ssize_t)report.cell_count, "cells_may_fold",
                (Py_ssize_t)report.cells_may_fold, "min_coefficient", (double)report.min_coefficient,
                "min_sampled_det", (double)report.min_sampled_det, "min_sampled_at",
                (double)report.min_sampled_at[0], (double)report.min_sampled_at[1],
                (double)report.min_sampled_at[2], want_flags ? sn_py_array_result(&flags) : Py_NewRef(Py_None));
    }
    sn_py_array_release(&flags);
    lattice_leave(handle, 0);
    return result;
}

/* (lattice, vertices (n, 3), triangles (m, 3), tolerance, test=0, split=0,
 *  max_triangles=0, progress=None) -> refinement handle. */
static PyObject *py_lattice_refine(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"lattice", "vertices", "triangles", "tolerance", "test", "split", "max_triangles",
                             "progress", NULL};
    PyObject *handle, *vertices_obj, *triangles_obj, *progress = Py_None;
    sinew_lattice_refinement_desc d;
    SINEW_INIT(&d);
    int test = 0, split = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOd|O&O&O&O", kwlist, &handle, &vertices_obj, &triangles_obj,
                                     &d.tolerance, SN_PY_ENUM("test", &test), SN_PY_ENUM("split", &split),
                                     SN_PY_COUNT("max_triangles", &d.max_triangles), &progress))
        return NULL;
    d.test = (sinew_lattice_error_test)test;
    d.split = (sinew_lattice_split)split;
    sinew_lattice *lattice = lattice_enter(handle, 0);
    if (!lattice) return NULL;
    PyObject *result = NULL;
    sn_py_array vertices = SN_PY_ARRAY_INIT, triangles = SN_PY_ARRAY_INIT;
    sn_py_call call;
    if (sn_py_floats_in(vertices_obj, "vertices", SN_PY_ANY, 3, SN_PY_STRIDED, &vertices) == 0 &&
        sn_py_indices_in(triangles_obj, "triangles", SN_PY_ANY, 3, SN_PY_STRIDED, &triangles) == 0 &&
        sn_py_call_begin(&call, progress) == 0) {
        sinew_trimesh mesh = {sn_py_points(&vertices), triangles.data, triangles.rows, triangles.index_type,
                              triangles.stride};
        sinew_lattice_refinement *refinement = NULL;
        sn_py_release_gil(&call);
        sinew_result r = sinew_lattice_refinement_create(call.ctx, lattice, &mesh, &d, &refinement);
        sn_py_acquire_gil(&call);
        if (sn_py_call_end(&call, r) == 0) result = sn_py_handle_new(SINEW_KIND_LATTICE_REFINEMENT, refinement);
    }
    sn_py_array_release(&vertices);
    sn_py_array_release(&triangles);
    lattice_leave(handle, 0);
    return result;
}

/* New packed numpy array (rows, cols) of type_num (element size `bytes`;
 * (rows,) when flat) copied from C memory the refinement owns. */
static PyObject *copy_rows(const void *data, size_t rows, size_t cols, int type_num, size_t bytes, int flat)
{
    sn_py_array out = SN_PY_ARRAY_INIT;
    if (sn_py_out(Py_None, "copy", type_num, (Py_ssize_t)rows, (Py_ssize_t)cols, flat ? SN_PY_FLAT : 0, 0, &out) < 0)
        return NULL;
    if (rows) memcpy(out.data, data, rows * cols * bytes);
    PyObject *array = sn_py_array_result(&out);
    sn_py_array_release(&out);
    return array;
}

/* (refinement) -> dict of copies of its mesh arrays and figures. */
static PyObject *py_lattice_refinement_mesh(PyObject *self, PyObject *handle)
{
    (void)self;
    sinew_lattice_refinement *refinement =
        sn_py_handle_enter(handle, SINEW_KIND_LATTICE_REFINEMENT, "refinement", 0);
    if (!refinement) return NULL;
    sinew_lattice_refined_mesh m;
    SINEW_INIT(&m);
    sinew_result r = sinew_lattice_refinement_mesh(refinement, &m);
    PyObject *d = NULL;
    if (r != SINEW_OK) sn_py_raise(r);
    else if ((d = PyDict_New())) {
        size_t added = m.vertex_count - m.input_vertex_count;
        if (sn_py_dict_steal(d, "rest_positions",
                             copy_rows(m.rest_positions, m.vertex_count, 3, NPY_FLOAT32, 4, 0)) < 0 ||
            sn_py_dict_steal(d, "positions", copy_rows(m.positions, m.vertex_count, 3, NPY_FLOAT32, 4, 0)) < 0 ||
            sn_py_dict_steal(d, "triangles", copy_rows(m.indices, m.triangle_count, 3, NPY_UINT32, 4, 0)) < 0 ||
            sn_py_dict_steal(d, "parents", copy_rows(m.parents, added, 2, NPY_UINT32, 4, 0)) < 0 ||
            sn_py_dict_steal(d, "parameters", copy_rows(m.parameters, added, 1, NPY_FLOAT32, 4, 1)) < 0 ||
            sn_py_dict_steal(d, "input_vertex_count", PyLong_FromSize_t(m.input_vertex_count)) < 0 ||
            sn_py_dict_steal(d, "rounds", PyLong_FromSize_t(m.rounds)) < 0 ||
            sn_py_dict_steal(d, "max_error", PyFloat_FromDouble(m.max_error)) < 0 ||
            sn_py_dict_steal(d, "memory_bytes", PyLong_FromSize_t(m.memory_bytes)) < 0)
            Py_CLEAR(d);
    }
    sn_py_handle_leave(handle, 0);
    return d;
}

/* ---- Registration ------------------------------------------------------------------------ */

#define KW(name, doc) {#name, (PyCFunction)(void (*)(void))py_##name, METH_VARARGS | METH_KEYWORDS, doc}

static PyMethodDef lattice_methods[] = {
    KW(lattice_create, "lattice_create(count, order, origin, axes, extents, outside) -> Handle"),
    {"lattice_info", py_lattice_info, METH_O, "lattice_info(lattice) -> dict of sinew_lattice_info"},
    KW(lattice_rest_points, "lattice_rest_points(lattice, out=None, first=None, count=None) -> (point_count, 3)"),
    KW(lattice_get_points, "lattice_get_points(lattice, out=None, first=None, count=None) -> (point_count, 3)"),
    KW(lattice_get_displacements,
       "lattice_get_displacements(lattice, out=None, first=None, count=None) -> (point_count, 3)"),
    KW(lattice_set_points, "lattice_set_points(lattice, values, first=None, count=None)"),
    KW(lattice_set_displacements, "lattice_set_displacements(lattice, values, first=None, count=None)"),
    {"lattice_reset", py_lattice_reset, METH_O, "lattice_reset(lattice): every control point back at rest"},
    KW(lattice_parameters, "lattice_parameters(lattice, world, out=None, first=None, count=None) -> (n, 3)"),
    KW(lattice_evaluate, "lattice_evaluate(lattice, params, positions=True, jacobians=False, first=None, "
                         "count=None, out=None, out_jacobians=None) -> (positions, jacobians (n, 9) column-major)"),
    KW(lattice_deform, "lattice_deform(lattice, points, normals=None, out=None, out_normals=None, first=None, "
                       "count=None) -> (points, normals or None)"),
    {"lattice_segment_bound", py_lattice_segment_bound, METH_VARARGS,
     "lattice_segment_bound(lattice, a, b) -> (bound, split_t)"},
    KW(lattice_binding_create, "lattice_binding_create(lattice, points, normals=None, space=0) -> Handle"),
    {"lattice_binding_info", py_lattice_binding_info, METH_O, "lattice_binding_info(binding) -> dict"},
    KW(lattice_binding_deform, "lattice_binding_deform(binding, lattice, out=None, out_normals=None, "
                               "normals=False, first=None, count=None) -> (points, normals or None)"),
    KW(lattice_check_folds,
       "lattice_check_folds(lattice, samples_per_axis=0, cell_flags=True, progress=None) -> (report, flags)"),
    KW(lattice_refine, "lattice_refine(lattice, vertices, triangles, tolerance, test=0, split=0, "
                       "max_triangles=0, progress=None) -> Handle"),
    {"lattice_refinement_mesh", py_lattice_refinement_mesh, METH_O,
     "lattice_refinement_mesh(refinement) -> dict of the refined mesh's arrays (copies)"},
    {NULL, NULL, 0, NULL},
};

int sn_py_register_lattice(PyObject *module)
{
    return PyModule_AddFunctions(module, lattice_methods);
}
