/*
 * sinew._sinew: placement of deformable objects (sinew/placement.h): create
 * over a scene, the lattice view, directions and lifts, relaxation, push and
 * press edits, the model map and deform. Save and load go through the
 * module's generic save/load. python/sinew/placement.py is the friendly layer.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

#define PLACEMENT_ENTER(obj, writer) \
    ((sinew_placement *)sn_py_handle_enter((obj), SINEW_KIND_PLACEMENT, "placement", (writer)))

/* A scale function (width or height): None, or a 2-D float array whose C
 * layout is values[a + count[0] * b], i.e. numpy shape (count[1], count[0])
 * (placement.py passes a 1-D array as one row). */
static int scalar_in(PyObject *obj, const char *name, sn_py_array *array, sinew_placement_scalar *out)
{
    memset(out, 0, sizeof *out);
    if (sn_py_floats_in(obj, name, SN_PY_ANY, SN_PY_ANY, SN_PY_OPTIONAL, array) < 0) return -1;
    if (!array->array) return 0;
    if (array->rows > UINT32_MAX || array->cols > UINT32_MAX) {
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%s has too many values", name);
        return -1;
    }
    out->values = array->data;
    out->count[0] = (uint32_t)array->cols;
    out->count[1] = (uint32_t)array->rows;
    return 0;
}

/* (path (n, 3), scene_vertices, scene_triangles, width, height, view, path_kind,
 *  path_order, width_scale, height_scale, count, order, oversample, volume, miss,
 *  miss_depth, outside, progress) -> placement handle. */
static PyObject *py_placement_create(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"path", "scene_vertices", "scene_triangles", "width", "height", "view", "path_kind",
                             "path_order", "width_scale", "height_scale", "count", "order", "oversample", "volume",
                             "miss", "miss_depth", "outside", "progress", NULL};
    sinew_placement_desc d;
    SINEW_INIT(&d);
    PyObject *path_obj, *vertices_obj, *triangles_obj, *width_obj = Py_None, *height_obj = Py_None,
             *progress = Py_None;
    int path_kind = 0, volume = 0, miss = 0, outside = 0;
    if (!PyArg_ParseTupleAndKeywords(
            args, kwargs, "OOOff|(fff)O&O&OO(O&O&O&)(O&O&O&)O&O&O&fO&O", kwlist, &path_obj, &vertices_obj,
            &triangles_obj, &d.width, &d.height, &d.view[0], &d.view[1], &d.view[2],
            SN_PY_ENUM("path_kind", &path_kind), SN_PY_U32("path_order", &d.path_order), &width_obj, &height_obj,
            SN_PY_U32("count[0]", &d.count[0]), SN_PY_U32("count[1]", &d.count[1]), SN_PY_U32("count[2]", &d.count[2]),
            SN_PY_U32("order[0]", &d.order[0]), SN_PY_U32("order[1]", &d.order[1]), SN_PY_U32("order[2]", &d.order[2]),
            SN_PY_U32("oversample", &d.oversample), SN_PY_ENUM("volume", &volume), SN_PY_ENUM("miss", &miss),
            &d.miss_depth, SN_PY_ENUM("outside", &outside), &progress))
        return NULL;
    d.path_kind = (sinew_placement_path_kind)path_kind;
    d.volume = (sinew_placement_volume)volume;
    d.miss = (sinew_placement_miss)miss;
    d.outside = (sinew_lattice_outside)outside;
    PyObject *result = NULL;
    sn_py_array path = SN_PY_ARRAY_INIT, vertices = SN_PY_ARRAY_INIT, triangles = SN_PY_ARRAY_INIT,
                width_scale = SN_PY_ARRAY_INIT, height_scale = SN_PY_ARRAY_INIT;
    sn_py_call call;
    if (sn_py_floats_in(path_obj, "path", SN_PY_ANY, 3, SN_PY_STRIDED, &path) == 0 &&
        sn_py_floats_in(vertices_obj, "scene_vertices", SN_PY_ANY, 3, SN_PY_STRIDED, &vertices) == 0 &&
        sn_py_indices_in(triangles_obj, "scene_triangles", SN_PY_ANY, 3, SN_PY_STRIDED, &triangles) == 0 &&
        scalar_in(width_obj, "width_scale", &width_scale, &d.width_scale) == 0 &&
        scalar_in(height_obj, "height_scale", &height_scale, &d.height_scale) == 0 &&
        sn_py_call_begin(&call, progress) == 0) {
        d.path = sn_py_points(&path);
        d.scene = (sinew_trimesh){sn_py_points(&vertices), triangles.data, triangles.rows, triangles.index_type,
                                  triangles.stride};
        sinew_placement *placement = NULL;
        sn_py_release_gil(&call);
        sinew_result r = sinew_placement_create(call.ctx, &d, &placement);
        sn_py_acquire_gil(&call);
        if (sn_py_call_end(&call, r) == 0) result = sn_py_handle_new(SINEW_KIND_PLACEMENT, placement);
    }
    sn_py_array_release(&path);
    sn_py_array_release(&vertices);
    sn_py_array_release(&triangles);
    sn_py_array_release(&width_scale);
    sn_py_array_release(&height_scale);
    return result;
}

static int placement_info(const sinew_placement *placement, sinew_placement_info *info)
{
    SINEW_INIT(info);
    sinew_result r = sinew_placement_get_info(placement, info);
    if (r != SINEW_OK) sn_py_raise(r);
    return r == SINEW_OK ? 0 : -1;
}

static PyObject *py_placement_info(PyObject *self, PyObject *handle)
{
    (void)self;
    sinew_placement *placement = PLACEMENT_ENTER(handle, 0);
    if (!placement) return NULL;
    sinew_placement_info i;
    int ok = placement_info(placement, &i) == 0;
    sn_py_handle_leave(handle, 0);
    if (!ok) return NULL;
    return Py_BuildValue("{s:(III),s:n,s:n,s:d,s:d,s:d,s:d,s:(ddd),s:i,s:n}", "count", i.count[0], i.count[1],
                         i.count[2], "rays_cast", (Py_ssize_t)i.rays_cast, "misses", (Py_ssize_t)i.misses,
                         "path_length", (double)i.path_length, "contact_length", (double)i.contact_length,
                         "max_width", (double)i.max_width, "max_height", (double)i.max_height, "up", (double)i.up[0],
                         (double)i.up[1], (double)i.up[2], "volume", (int)i.volume, "memory_bytes",
                         (Py_ssize_t)i.memory_bytes);
}

/* (placement) -> a read-only lattice handle viewing the placement's lattice
 * (it keeps the placement alive; lattice.c refuses edits through it). */
static PyObject *py_placement_lattice(PyObject *self, PyObject *handle)
{
    (void)self;
    sinew_placement *placement = PLACEMENT_ENTER(handle, 0);
    if (!placement) return NULL;
    const sinew_lattice *lattice = sinew_placement_lattice(placement);
    sn_py_handle_leave(handle, 0);
    /* The view is const in C: the cast is only to store it in the generic handle. */
    return sn_py_handle_view(SINEW_KIND_LATTICE, (void *)(uintptr_t)lattice, handle);
}

/* Shared by directions (cols 3) and lifts (cols 1): (placement, out=None,
 * first=None, count=None) over the contact columns. */
static PyObject *columns_with(PyObject *args, PyObject *kwargs, int lifts)
{
    static char *kwlist[] = {"placement", "out", "first", "count", NULL};
    PyObject *handle, *out_obj = Py_None, *first_obj = Py_None, *count_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOO", kwlist, &handle, &out_obj, &first_obj, &count_obj))
        return NULL;
    sinew_placement *placement = PLACEMENT_ENTER(handle, 0);
    if (!placement) return NULL;
    PyObject *result = NULL;
    sn_py_array out = SN_PY_ARRAY_INIT;
    sinew_placement_info info;
    size_t first, count;
    if (placement_info(placement, &info) == 0) {
        size_t columns = (size_t)info.count[0] * info.count[1];
        if (sn_py_range(first_obj, count_obj, columns, &first, &count) == 0 &&
            sn_py_out(out_obj, "out", NPY_FLOAT32, (Py_ssize_t)columns, lifts ? 1 : 3,
                      SN_PY_STRIDED | (lifts ? SN_PY_FLAT : 0), 1, &out) == 0) {
            sinew_result r = lifts ? sinew_placement_lifts(placement, out.data, out.stride, first, count)
                                   : sinew_placement_directions(placement, out.data, out.stride, first, count);
            result = r == SINEW_OK ? sn_py_array_result(&out) : sn_py_raise(r);
        }
    }
    sn_py_array_release(&out);
    sn_py_handle_leave(handle, 0);
    return result;
}

static PyObject *py_placement_directions(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    return columns_with(args, kwargs, 0);
}

static PyObject *py_placement_lifts(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    return columns_with(args, kwargs, 1);
}

/* (placement, stiffness=0, mass=0, damping=0, angle_degrees=0, neighbourhood=0,
 *  max_steps=0, progress=None) -> report dict. SINEW_ERROR_NOT_CONVERGED is
 * not raised: the relaxed state is kept and the report says converged False. */
static PyObject *py_placement_relax(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"placement", "stiffness", "mass", "damping", "angle_degrees", "neighbourhood",
                             "max_steps", "progress", NULL};
    sinew_placement_relax_desc d;
    SINEW_INIT(&d);
    PyObject *handle, *progress = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|ffffO&O&O", kwlist, &handle, &d.stiffness, &d.mass, &d.damping,
                                     &d.angle_degrees, SN_PY_U32("neighbourhood", &d.neighbourhood),
                                     SN_PY_U32("max_steps", &d.max_steps), &progress))
        return NULL;
    sinew_placement *placement = PLACEMENT_ENTER(handle, 1);
    if (!placement) return NULL;
    PyObject *result = NULL;
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) == 0) {
        sinew_placement_relax_report report;
        SINEW_INIT(&report);
        sn_py_release_gil(&call);
        sinew_result r = sinew_placement_relax(call.ctx, placement, &d, &report);
        sn_py_acquire_gil(&call);
        int converged = r == SINEW_OK;
        PyObject *message = PyUnicode_FromString(sinew_last_error());
        if (sn_py_call_end(&call, r == SINEW_ERROR_NOT_CONVERGED ? SINEW_OK : r) == 0 && message)
            result = Py_BuildValue("{s:O,s:I,s:n,s:d,s:d,s:O}", "converged", converged ? Py_True : Py_False,
                                   "steps", report.steps, "candidates", (Py_ssize_t)report.candidates, "time_step",
                                   (double)report.time_step, "max_lift", (double)report.max_lift, "message", message);
        Py_XDECREF(message);
    }
    sn_py_handle_leave(handle, 1);
    return result;
}

/* (placement, i, j, amount). */
static PyObject *py_placement_push(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    uint32_t i, j;
    float amount;
    if (!PyArg_ParseTuple(args, "OO&O&f", &handle, SN_PY_U32("i", &i), SN_PY_U32("j", &j), &amount)) return NULL;
    sinew_placement *placement = PLACEMENT_ENTER(handle, 1);
    if (!placement) return NULL;
    sinew_result r = sinew_placement_push(placement, i, j, amount);
    sn_py_handle_leave(handle, 1);
    if (r != SINEW_OK) return sn_py_raise(r);
    Py_RETURN_NONE;
}

/* (placement, center, radius, depth, falloff) -> control points moved. */
static PyObject *py_placement_press(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    sinew_placement_press_desc d;
    SINEW_INIT(&d);
    int falloff = 0;
    if (!PyArg_ParseTuple(args, "O(fff)ffO&", &handle, &d.center[0], &d.center[1], &d.center[2], &d.radius, &d.depth,
                          SN_PY_ENUM("falloff", &falloff)))
        return NULL;
    d.falloff = (sinew_placement_falloff)falloff;
    sinew_placement *placement = PLACEMENT_ENTER(handle, 1);
    if (!placement) return NULL;
    size_t pressed = 0;
    sinew_result r = sinew_placement_press(placement, &d, &pressed);
    sn_py_handle_leave(handle, 1);
    if (r != SINEW_OK) return sn_py_raise(r);
    return PyLong_FromSize_t(pressed);
}

/* (placement, box_min, box_max, fraction, offset) -> (scale, offset). */
static PyObject *py_placement_map_model(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    sinew_placement_map_desc d;
    SINEW_INIT(&d);
    if (!PyArg_ParseTuple(args, "O(fff)(fff)ff", &handle, &d.box_min[0], &d.box_min[1], &d.box_min[2], &d.box_max[0],
                          &d.box_max[1], &d.box_max[2], &d.fraction, &d.offset))
        return NULL;
    sinew_placement *placement = PLACEMENT_ENTER(handle, 0);
    if (!placement) return NULL;
    sinew_placement_map map;
    sinew_result r = sinew_placement_map_model(placement, &d, &map);
    sn_py_handle_leave(handle, 0);
    if (r != SINEW_OK) return sn_py_raise(r);
    return Py_BuildValue("((ddd)(ddd))", (double)map.scale[0], (double)map.scale[1], (double)map.scale[2],
                         (double)map.offset[0], (double)map.offset[1], (double)map.offset[2]);
}

/* (placement, scale, offset, model (n, 3), out=None, first=None, count=None) -> (n, 3). */
static PyObject *py_placement_deform(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"placement", "scale", "offset", "model", "out", "first", "count", NULL};
    PyObject *handle, *model_obj, *out_obj = Py_None, *first_obj = Py_None, *count_obj = Py_None;
    sinew_placement_map map;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O(fff)(fff)O|OOO", kwlist, &handle, &map.scale[0], &map.scale[1],
                                     &map.scale[2], &map.offset[0], &map.offset[1], &map.offset[2], &model_obj,
                                     &out_obj, &first_obj, &count_obj))
        return NULL;
    sinew_placement *placement = PLACEMENT_ENTER(handle, 0);
    if (!placement) return NULL;
    PyObject *result = NULL;
    sn_py_array model = SN_PY_ARRAY_INIT, out = SN_PY_ARRAY_INIT;
    size_t first, count;
    if (sn_py_floats_in(model_obj, "model", SN_PY_ANY, 3, SN_PY_STRIDED | SN_PY_RANGED, &model) == 0 &&
        sn_py_range(first_obj, count_obj, model.rows, &first, &count) == 0 &&
        sn_py_array_range(&model, first, count) == 0 &&
        sn_py_out(out_obj, "out", NPY_FLOAT32, (Py_ssize_t)model.rows, 3, SN_PY_STRIDED, 0, &out) == 0 &&
        sn_py_check_overlap(&model, "model", &out, "out") == 0) {
        sinew_points view = sn_py_points(&model);
        sinew_result r;
        if (count >= SN_PY_NOGIL_MIN_ELEMENTS) {
            Py_BEGIN_ALLOW_THREADS
            r = sinew_placement_deform(placement, &map, &view, out.data, out.stride, first, count);
            Py_END_ALLOW_THREADS
        } else {
            r = sinew_placement_deform(placement, &map, &view, out.data, out.stride, first, count);
        }
        result = r == SINEW_OK ? sn_py_array_result(&out) : sn_py_raise(r);
    }
    sn_py_array_release(&model);
    sn_py_array_release(&out);
    sn_py_handle_leave(handle, 0);
    return result;
}

#define KW(name, doc) {#name, (PyCFunction)(void (*)(void))py_##name, METH_VARARGS | METH_KEYWORDS, doc}

static PyMethodDef placement_methods[] = {
    KW(placement_create, "placement_create(path, scene_vertices, scene_triangles, width, height, view, path_kind, "
                         "path_order, width_scale, height_scale, count, order, oversample, volume, miss, "
                         "miss_depth, outside, progress) -> Handle"),
    {"placement_info", py_placement_info, METH_O, "placement_info(placement) -> dict of sinew_placement_info"},
    {"placement_lattice", py_placement_lattice, METH_O,
     "placement_lattice(placement) -> read-only lattice Handle viewing the placement's lattice"},
    KW(placement_directions, "placement_directions(placement, out=None, first=None, count=None) -> (columns, 3)"),
    KW(placement_lifts, "placement_lifts(placement, out=None, first=None, count=None) -> (columns,)"),
    KW(placement_relax, "placement_relax(placement, stiffness=0, mass=0, damping=0, angle_degrees=0, "
                        "neighbourhood=0, max_steps=0, progress=None) -> report dict (converged, steps, ...)"),
    {"placement_push", py_placement_push, METH_VARARGS, "placement_push(placement, i, j, amount)"},
    {"placement_press", py_placement_press, METH_VARARGS,
     "placement_press(placement, center, radius, depth, falloff) -> points moved"},
    {"placement_map_model", py_placement_map_model, METH_VARARGS,
     "placement_map_model(placement, box_min, box_max, fraction, offset) -> (scale, offset)"},
    KW(placement_deform, "placement_deform(placement, scale, offset, model, out=None, first=None, count=None) "
                         "-> (n, 3)"),
    {NULL, NULL, 0, NULL},
};

int sn_py_register_placement(PyObject *module)
{
    return PyModule_AddFunctions(module, placement_methods);
}
