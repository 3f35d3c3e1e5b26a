/*
 * sinew._sinew: the one-call auto-binder (sinew_bbw_auto_weights): a surface
 * and a skeleton in, the top-k skinning layout and the report out.
 * python/sinew/bbw.py's auto_weights is the friendly layer.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

static PyObject *report_dict(const sinew_bbw_auto_report *r)
{
    PyObject *first = r->first_clipped_handle == SIZE_MAX ? Py_NewRef(Py_None)
                                                          : PyLong_FromSize_t(r->first_clipped_handle);
    return Py_BuildValue("{s:I,s:n,s:n,s:n,s:n,s:N,s:d,s:n,s:n,s:n,s:I,s:n,s:I,s:d,s:O,s:d,s:d,s:d,s:d,s:d,s:d}",
                         "dimension", r->dimension, "welded_vertex_count", (Py_ssize_t)r->welded_vertex_count,
                         "component_count", (Py_ssize_t)r->component_count, "flipped_component_count",
                         (Py_ssize_t)r->flipped_component_count, "clipped_handle_count",
                         (Py_ssize_t)r->clipped_handle_count, "first_clipped_handle", first, "max_clip_distance",
                         r->max_clip_distance, "attached_surface_vertex_count",
                         (Py_ssize_t)r->attached_surface_vertex_count, "unreached_region_count",
                         (Py_ssize_t)r->unreached_region_count, "unweighted_surface_vertex_count",
                         (Py_ssize_t)r->unweighted_surface_vertex_count, "grid_resolution", r->grid_resolution,
                         "domain_vertex_count", (Py_ssize_t)r->domain_vertex_count, "iterations", r->iterations,
                         "error_bound", r->error_bound, "converged", r->converged ? Py_True : Py_False,
                         "seconds_prepare", r->seconds_prepare, "seconds_domain", r->seconds_domain,
                         "seconds_operators", r->seconds_operators, "seconds_solve", r->seconds_solve,
                         "seconds_weights", r->seconds_weights, "seconds_total", r->seconds_total);
}

/* (vertices, triangles, joint_positions=None, bones=None, points=None,
 *  influence_count=4, grid_resolution=0, tolerance=0, max_iterations=0,
 *  handle_outside=0, progress=None) -> (joints uint32 (n, k), weights
 *  float32 (n, k), report dict). NOT_CONVERGED is not raised: the report's
 *  converged is False and its message says why. */
static PyObject *py_bbw_auto_weights(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"vertices", "triangles", "joint_positions", "bones", "points", "influence_count",
                             "grid_resolution", "tolerance", "max_iterations", "handle_outside", "progress", NULL};
    PyObject *vertices_obj, *triangles_obj, *joints_obj = Py_None, *bones_obj = Py_None, *points_obj = Py_None,
             *progress = Py_None;
    sinew_bbw_auto_desc d;
    SINEW_INIT(&d);
    d.influence_count = 4;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OOOO&O&dO&O&O", kwlist, &vertices_obj, &triangles_obj,
                                     &joints_obj, &bones_obj, &points_obj,
                                     SN_PY_COUNT("influence_count", &d.influence_count),
                                     SN_PY_U32("grid_resolution", &d.grid_resolution), &d.tolerance,
                                     SN_PY_U32("max_iterations", &d.max_iterations),
                                     SN_PY_U32("handle_outside", &d.handle_outside), &progress))
        return NULL;
    if (d.influence_count == 0 || d.influence_count > 64)
        return sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "influence_count=%zu is not in 1..64", d.influence_count);
    PyObject *result = NULL;
    sn_py_array vertices = SN_PY_ARRAY_INIT, triangles = SN_PY_ARRAY_INIT, joints = SN_PY_ARRAY_INIT,
                bones = SN_PY_ARRAY_INIT, points = SN_PY_ARRAY_INIT, out_j = SN_PY_ARRAY_INIT,
                out_w = SN_PY_ARRAY_INIT;
    sn_py_call call;
    if (sn_py_floats_in(vertices_obj, "vertices", SN_PY_ANY, 3, SN_PY_STRIDED, &vertices) == 0 &&
        sn_py_indices_in(triangles_obj, "triangles", SN_PY_ANY, 3, SN_PY_STRIDED, &triangles) == 0 &&
        sn_py_floats_in(joints_obj, "joint_positions", SN_PY_ANY, 3, SN_PY_STRIDED | SN_PY_OPTIONAL, &joints) == 0 &&
        sn_py_uint32_in(bones_obj, "bones", SN_PY_ANY, 2, SN_PY_OPTIONAL, &bones) == 0 &&
        sn_py_floats_in(points_obj, "points", SN_PY_ANY, 3, SN_PY_STRIDED | SN_PY_OPTIONAL, &points) == 0 &&
        sn_py_out(Py_None, "joints", NPY_UINT32, (Py_ssize_t)vertices.rows, (Py_ssize_t)d.influence_count, 0, 1,
                  &out_j) == 0 &&
        sn_py_out(Py_None, "weights", NPY_FLOAT32, (Py_ssize_t)vertices.rows, (Py_ssize_t)d.influence_count, 0, 1,
                  &out_w) == 0 &&
        sn_py_call_begin(&call, progress) == 0) {
        sinew_trimesh mesh = {sn_py_points(&vertices), triangles.data, triangles.rows, triangles.index_type,
                              triangles.stride};
        d.surface = &mesh;
        if (joints.array) d.joint_positions = sn_py_points(&joints);
        if (points.array) d.points = sn_py_points(&points);
        d.bones = bones.data;
        d.bone_count = bones.array ? bones.rows : 0;
        sinew_bbw_auto_report report;
        SINEW_INIT(&report);
        sn_py_release_gil(&call);
        sinew_result r = sinew_bbw_auto_weights(call.ctx, &d, out_j.data, out_w.data,
                                                vertices.rows * d.influence_count, &report);
        sn_py_acquire_gil(&call);
        PyObject *message = PyUnicode_FromString(sinew_last_error());
        if (sn_py_call_end(&call, r == SINEW_ERROR_NOT_CONVERGED ? SINEW_OK : r) == 0 && message) {
            PyObject *rep = report_dict(&report);
            if (rep && PyDict_SetItemString(rep, "message", message) == 0)
                result = Py_BuildValue("(NNN)", sn_py_array_result(&out_j), sn_py_array_result(&out_w), rep);
            else
                Py_XDECREF(rep);
        }
        Py_XDECREF(message);
    }
    sn_py_array_release(&vertices);
    sn_py_array_release(&triangles);
    sn_py_array_release(&joints);
    sn_py_array_release(&bones);
    sn_py_array_release(&points);
    sn_py_array_release(&out_j);
    sn_py_array_release(&out_w);
    return result;
}

static PyMethodDef bbw_auto_methods[] = {
    {"bbw_auto_weights", (PyCFunction)(void (*)(void))py_bbw_auto_weights, METH_VARARGS | METH_KEYWORDS,
     "bbw_auto_weights(vertices, triangles, joint_positions=None, bones=None, points=None, influence_count=4, "
     "grid_resolution=0, tolerance=0, max_iterations=0, handle_outside=0, progress=None) -> (joints, weights, "
     "report)"},
    {NULL, NULL, 0, NULL},
};

int sn_py_register_bbw_auto(PyObject *module)
{
    return PyModule_AddFunctions(module, bbw_auto_methods);
}
