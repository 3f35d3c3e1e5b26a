/*
 * sinew Python binding: the skin binders of include/sinew/skin_tools.h that
 * compute weights from a skeleton or from examples: point-to-line binding
 * (sinew_skin_point_to_line_weights) and weights from example poses
 * (sinew_skin_example_weights). Results come back as new packed uint32
 * joints and float32 weights in the layout sinew.Skin takes.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

/* (positions, heads, tails, joints, parents, *, influence_count=0, blend=0,
 *  max_distance=0, unbound=0, progress=None) -> (joints, weights, unbound_vertices). */
static PyObject *py_point_to_line_weights(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"positions", "heads", "tails", "joints", "parents", "influence_count", "blend",
                               "max_distance", "unbound", "progress", NULL};
    PyObject *positions_obj, *heads_obj, *tails_obj, *joints_obj, *parents_obj, *progress = Py_None;
    uint32_t influence_count = 0;
    float blend = 0.0f, max_distance = 0.0f;
    int unbound = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOO|$O&ffO&O:skin_point_to_line_weights", keywords,
                                     &positions_obj, &heads_obj, &tails_obj, &joints_obj, &parents_obj,
                                     SN_PY_U32("influence_count", &influence_count), &blend, &max_distance,
                                     SN_PY_ENUM("unbound", &unbound), &progress))
        return NULL;
    sn_py_binder b;
    sn_py_array bone_joints = SN_PY_ARRAY_INIT, parents = SN_PY_ARRAY_INIT;
    sinew_skin_line_bone *bones = NULL;
    PyObject *result = NULL;
    if (sn_py_binder_begin(&b, positions_obj, heads_obj, tails_obj, influence_count) < 0 ||
        sn_py_uint32_in(joints_obj, "joints", (Py_ssize_t)b.heads.rows, 1, SN_PY_FLAT, &bone_joints) < 0 ||
        sn_py_uint32_in(parents_obj, "parents", (Py_ssize_t)b.heads.rows, 1, SN_PY_FLAT, &parents) < 0)
        goto done;
    bones = PyMem_Calloc(b.heads.rows ? b.heads.rows : 1, sizeof *bones);
    if (!bones) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < b.heads.rows; ++i) {
        memcpy(bones[i].head, (const float *)b.heads.data + 3 * i, sizeof bones[i].head);
        memcpy(bones[i].tail, (const float *)b.tails.data + 3 * i, sizeof bones[i].tail);
        bones[i].joint = ((const uint32_t *)bone_joints.data)[i];
        bones[i].parent = ((const uint32_t *)parents.data)[i];
    }
    sinew_skin_line_desc desc;
    SINEW_INIT(&desc);
    desc.influence_count = influence_count;
    desc.blend = blend;
    desc.max_distance = max_distance;
    desc.unbound = (sinew_skin_unbound)unbound;
    sinew_skin_line_report report;
    SINEW_INIT(&report);
    report.unbound = b.unbound.data;
    report.unbound_capacity = b.unbound.rows;
    sinew_points points = sn_py_points(&b.positions);
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) < 0) goto done;
    sn_py_release_gil(&call);
    sinew_result r = sinew_skin_point_to_line_weights(call.ctx, &points, bones, b.heads.rows, &desc, b.joints.data,
                                                      b.weights.data, &report);
    sn_py_acquire_gil(&call);
    result = sn_py_binder_end(&b, &call, r, report.unbound_count);
done:
    PyMem_Free(bones);
    sn_py_binder_release(&b);
    sn_py_array_release(&bone_joints);
    sn_py_array_release(&parents);
    return result;
}

/* The example poses: a sequence of E (V, 3) arrays (each may be strided), as views. */
static int examples_in(PyObject *list, size_t vertex_count, sn_py_array **arrays_out, sinew_points **views_out,
                       size_t *count_out)
{
    *arrays_out = NULL;
    *views_out = NULL;
    *count_out = 0;
    PyObject *seq = PySequence_Fast(list, "examples: expected a sequence of (V, 3) arrays or an (E, V, 3) array");
    if (!seq) {
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        Py_XDECREF(type);
        Py_XDECREF(traceback);
        sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "%S", value ? value : Py_None);
        Py_XDECREF(value);
        return -1;
    }
    size_t count = (size_t)PySequence_Fast_GET_SIZE(seq);
    sn_py_array *arrays = PyMem_Calloc(count ? count : 1, sizeof *arrays);
    sinew_points *views = PyMem_Calloc(count ? count : 1, sizeof *views);
    if (!arrays || !views) {
        PyMem_Free(arrays);
        PyMem_Free(views);
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (size_t e = 0; e < count; ++e) arrays[e] = (sn_py_array)SN_PY_ARRAY_INIT;
    for (size_t e = 0; e < count; ++e) {
        char name[48];
        PyOS_snprintf(name, sizeof name, "examples[%zu]", e);
        if (sn_py_floats_in(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)e), name, (Py_ssize_t)vertex_count, 3,
                            SN_PY_STRIDED, &arrays[e]) < 0) {
            for (size_t i = 0; i < e; ++i) sn_py_array_release(&arrays[i]);
            PyMem_Free(arrays);
            PyMem_Free(views);
            Py_DECREF(seq);
            return -1;
        }
        views[e] = sn_py_points(&arrays[e]);
    }
    Py_DECREF(seq);
    *arrays_out = arrays;
    *views_out = views;
    *count_out = count;
    return 0;
}

/* (positions, examples, matrices (E * J, 4, 4), joint_count, *, influence_count=0,
 *  candidates=None, max_subsets=0, progress=None)
 * -> (joints, weights, residuals, report dict). NOT_CONVERGED is no
 * exception: the best weights come back with report["converged"] False. */
static PyObject *py_example_weights(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"positions", "examples", "matrices", "joint_count", "influence_count", "candidates",
                               "max_subsets", "progress", NULL};
    PyObject *positions_obj, *examples_obj, *matrices_obj, *candidates_obj = Py_None, *progress = Py_None;
    size_t joint_count;
    uint32_t influence_count = 0, max_subsets = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOO&|$O&OO&O:skin_example_weights", keywords, &positions_obj,
                                     &examples_obj, &matrices_obj, SN_PY_COUNT("joint_count", &joint_count),
                                     SN_PY_U32("influence_count", &influence_count), &candidates_obj,
                                     SN_PY_U32("max_subsets", &max_subsets), &progress))
        return NULL;
    if (joint_count == 0) return sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "joint_count: expected a count > 0, got 0");
    sn_py_array positions = SN_PY_ARRAY_INIT, matrices = SN_PY_ARRAY_INIT, candidates = SN_PY_ARRAY_INIT,
                joints = SN_PY_ARRAY_INIT, weights = SN_PY_ARRAY_INIT, residuals = SN_PY_ARRAY_INIT;
    sn_py_array *example_arrays = NULL;
    sinew_points *examples = NULL;
    size_t example_count = 0;
    PyObject *result = NULL;
    if (sn_py_floats_in(positions_obj, "positions", SN_PY_ANY, 3, SN_PY_STRIDED, &positions) < 0 ||
        examples_in(examples_obj, positions.rows, &example_arrays, &examples, &example_count) < 0 ||
        sn_py_matrices_in(matrices_obj, "matrices", (Py_ssize_t)(example_count * joint_count), 0,
                          &matrices) < 0 ||
        sn_py_uint32_in(candidates_obj, "candidates", (Py_ssize_t)positions.rows, SN_PY_ANY, SN_PY_OPTIONAL,
                        &candidates) < 0)
        goto done;
    size_t k = influence_count ? influence_count : 4;
    if (sn_py_out(Py_None, "joints", NPY_UINT32, (Py_ssize_t)positions.rows, (Py_ssize_t)k, 0, 0, &joints) < 0 ||
        sn_py_out(Py_None, "weights", NPY_FLOAT32, (Py_ssize_t)positions.rows, (Py_ssize_t)k, 0, 0, &weights) < 0 ||
        sn_py_out(Py_None, "residuals", NPY_FLOAT32, (Py_ssize_t)positions.rows, 1, SN_PY_FLAT, 0, &residuals) < 0)
        goto done;
    sinew_skin_example_desc desc;
    SINEW_INIT(&desc);
    desc.influence_count = influence_count;
    desc.candidate_count = candidates.array ? candidates.cols : 0;
    desc.candidate_joints = candidates.data;
    desc.max_subsets = max_subsets;
    sinew_skin_example_report report;
    SINEW_INIT(&report);
    sinew_points points = sn_py_points(&positions);
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) < 0) goto done;
    sn_py_release_gil(&call);
    sinew_result r = sinew_skin_example_weights(call.ctx, &points, examples, example_count, matrices.data,
                                                joint_count, &desc, joints.data, weights.data,
                                                residuals.data, &report);
    sn_py_acquire_gil(&call);
    PyObject *message = PyUnicode_FromString(r == SINEW_OK ? "" : sinew_last_error());
    if (sn_py_call_end(&call, r == SINEW_ERROR_NOT_CONVERGED ? SINEW_OK : r) == 0 && message)
        result = Py_BuildValue("(OOO{s:O,s:O,s:d,s:d,s:n,s:n})", (PyObject *)joints.array, (PyObject *)weights.array,
                               (PyObject *)residuals.array, "converged", r == SINEW_OK ? Py_True : Py_False,
                               "message", message, "kkt_violation", report.kkt_violation, "max_residual",
                               report.max_residual, "vertices_limited", (Py_ssize_t)report.vertices_limited,
                               "vertices_enumerated", (Py_ssize_t)report.vertices_enumerated);
    Py_XDECREF(message);
done:
    for (size_t e = 0; e < example_count; ++e) sn_py_array_release(&example_arrays[e]);
    PyMem_Free(example_arrays);
    PyMem_Free(examples);
    sn_py_array_release(&positions);
    sn_py_array_release(&matrices);
    sn_py_array_release(&candidates);
    sn_py_array_release(&joints);
    sn_py_array_release(&weights);
    sn_py_array_release(&residuals);
    return result;
}

#define KW (METH_VARARGS | METH_KEYWORDS)
#define FN(f) ((PyCFunction)(void (*)(void))(f))

static PyMethodDef skin_binders_methods[] = {
    {"skin_point_to_line_weights", FN(py_point_to_line_weights), KW,
     "skin_point_to_line_weights(positions, heads, tails, joints, parents, *, influence_count=0, blend=0, "
     "max_distance=0, unbound=0, progress=None) -> (joints, weights, unbound_vertices) "
     "(sinew_skin_point_to_line_weights); OutsideDomainError carries .unbound."},
    {"skin_example_weights", FN(py_example_weights), KW,
     "skin_example_weights(positions, examples, matrices, joint_count, *, influence_count=0, candidates=None, "
     "max_subsets=0, progress=None) -> (joints, weights, residuals, report) (sinew_skin_example_weights); "
     "matrices (E * J, 4, 4), example e's joint j at e * J + j."},
    {NULL, NULL, 0, NULL},
};

int sn_py_register_skin_binders(PyObject *module)
{
    return PyModule_AddFunctions(module, skin_binders_methods);
}
