/*
 * sinew Python binding: skin weight tools (include/sinew/skin_tools.h):
 * capsule binding, rogue-vertex removal, smoothing, pruning.
 *
 * The tools rewrite influences in place in C; here they always work on new
 * packed uint32/float32 copies, so the caller's arrays are never changed and
 * the results come back as new arrays.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

/* New packed copies of (V, K) joints and weights the tools rewrite. */
static int influences_copy(PyObject *joints_obj, PyObject *weights_obj, Py_ssize_t rows, sn_py_array *joints,
                           sn_py_array *weights)
{
    sn_py_array j = SN_PY_ARRAY_INIT, w = SN_PY_ARRAY_INIT;
    if (sn_py_uint32_in(joints_obj, "joints", rows, SN_PY_ANY, 0, &j) < 0 ||
        sn_py_floats_in(weights_obj, "weights", (Py_ssize_t)j.rows, (Py_ssize_t)j.cols, SN_PY_FINITE, &w) < 0) {
        sn_py_array_release(&j);
        return -1;
    }
    PyObject *jc = PyArray_NewCopy(j.array, NPY_CORDER);
    PyObject *wc = jc ? PyArray_NewCopy(w.array, NPY_CORDER) : NULL;
    sn_py_array_release(&j);
    sn_py_array_release(&w);
    if (!wc) {
        Py_XDECREF(jc);
        return -1;
    }
    int status = sn_py_out(jc, "joints", NPY_UINT32, SN_PY_ANY, SN_PY_ANY, 0, 0, joints) < 0 ||
                 sn_py_out(wc, "weights", NPY_FLOAT32, SN_PY_ANY, SN_PY_ANY, 0, 0, weights) < 0 ? -1 : 0;
    Py_DECREF(jc);
    Py_DECREF(wc);
    return status;
}

/* A triangle mesh view of positions (V, 3) and triangles (T, 3). */
static int trimesh_in(PyObject *positions_obj, PyObject *triangles_obj, sn_py_array *positions,
                      sn_py_array *triangles, sinew_trimesh *mesh)
{
    if (sn_py_floats_in(positions_obj, "positions", SN_PY_ANY, 3, SN_PY_STRIDED, positions) < 0 ||
        sn_py_indices_in(triangles_obj, "triangles", SN_PY_ANY, 3, SN_PY_STRIDED, triangles) < 0)
        return -1;
    memset(mesh, 0, sizeof *mesh);
    mesh->positions = sn_py_points(positions);
    mesh->indices = triangles->data;
    mesh->triangle_count = triangles->rows;
    mesh->index_type = triangles->index_type;
    mesh->index_stride = triangles->stride;
    return 0;
}

static PyObject *pair(const sn_py_array *joints, const sn_py_array *weights)
{
    return PyTuple_Pack(2, (PyObject *)joints->array, (PyObject *)weights->array);
}

/* sn_py.h: the frame the capsule and point-to-line binders (skin_binders.c) share. */
int sn_py_binder_begin(sn_py_binder *b, PyObject *positions, PyObject *heads, PyObject *tails,
                       unsigned int influence_count)
{
    *b = (sn_py_binder){SN_PY_ARRAY_INIT, SN_PY_ARRAY_INIT, SN_PY_ARRAY_INIT,
                        SN_PY_ARRAY_INIT, SN_PY_ARRAY_INIT, SN_PY_ARRAY_INIT};
    if (sn_py_floats_in(positions, "positions", SN_PY_ANY, 3, SN_PY_STRIDED, &b->positions) < 0 ||
        sn_py_floats_in(heads, "heads", SN_PY_ANY, 3, 0, &b->heads) < 0 ||
        sn_py_floats_in(tails, "tails", (Py_ssize_t)b->heads.rows, 3, 0, &b->tails) < 0)
        return -1;
    Py_ssize_t rows = (Py_ssize_t)b->positions.rows, k = influence_count ? (Py_ssize_t)influence_count : 4;
    if (sn_py_out(Py_None, "joints", NPY_UINT32, rows, k, 0, 0, &b->joints) < 0 ||
        sn_py_out(Py_None, "weights", NPY_FLOAT32, rows, k, 0, 0, &b->weights) < 0 ||
        sn_py_out(Py_None, "unbound", NPY_UINT32, rows, 1, SN_PY_FLAT, 0, &b->unbound) < 0)
        return -1;
    return 0;
}

PyObject *sn_py_binder_end(sn_py_binder *b, sn_py_call *call, sinew_result r, size_t unbound_count)
{
    size_t listed = unbound_count < b->unbound.rows ? unbound_count : b->unbound.rows;
    PyObject *result = NULL;
    PyObject *unbound_vertices = PySequence_GetSlice((PyObject *)b->unbound.array, 0, (Py_ssize_t)listed);
    if (!unbound_vertices) {
        sn_py_call_end(call, SINEW_OK);
        return NULL;
    }
    if (r == SINEW_ERROR_OUTSIDE_DOMAIN && !call->exc_type) {
        sn_py_call_end(call, SINEW_OK);
        sn_py_raise_with(r, "unbound", unbound_vertices);
    } else if (sn_py_call_end(call, r) == 0) {
        result = PyTuple_Pack(3, (PyObject *)b->joints.array, (PyObject *)b->weights.array, unbound_vertices);
    }
    Py_DECREF(unbound_vertices);
    return result;
}

void sn_py_binder_release(sn_py_binder *b)
{
    sn_py_array *arrays[] = {&b->positions, &b->heads, &b->tails, &b->joints, &b->weights, &b->unbound};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) sn_py_array_release(arrays[i]);
}

static PyObject *py_capsule_weights(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"positions", "heads", "tails", "radii", "joints", "influence_count", "falloff",
                               "radius_quantile", "unbound", "progress", "scoring", NULL};
    PyObject *positions_obj, *heads_obj, *tails_obj, *radii_obj, *joints_obj, *progress = Py_None;
    uint32_t influence_count = 0;
    float falloff = 0.0f, radius_quantile = 0.0f;
    int unbound = 0, scoring = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOO|$O&ffO&OO&:skin_capsule_weights", keywords, &positions_obj,
                                     &heads_obj, &tails_obj, &radii_obj, &joints_obj,
                                     SN_PY_U32("influence_count", &influence_count), &falloff, &radius_quantile,
                                     SN_PY_ENUM("unbound", &unbound), &progress, SN_PY_ENUM("scoring", &scoring)))
        return NULL;
    sn_py_binder b;
    sn_py_array radii = SN_PY_ARRAY_INIT, capsule_joints = SN_PY_ARRAY_INIT;
    sinew_skin_capsule *capsules = NULL;
    PyObject *result = NULL;
    if (sn_py_binder_begin(&b, positions_obj, heads_obj, tails_obj, influence_count) < 0 ||
        sn_py_floats_in(radii_obj, "radii", (Py_ssize_t)b.heads.rows, 1, SN_PY_FLAT, &radii) < 0 ||
        sn_py_uint32_in(joints_obj, "joints", (Py_ssize_t)b.heads.rows, 1, SN_PY_FLAT, &capsule_joints) < 0)
        goto done;
    capsules = PyMem_Calloc(b.heads.rows ? b.heads.rows : 1, sizeof *capsules);
    if (!capsules) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t c = 0; c < b.heads.rows; ++c) {
        memcpy(capsules[c].head, (const float *)b.heads.data + 3 * c, sizeof capsules[c].head);
        memcpy(capsules[c].tail, (const float *)b.tails.data + 3 * c, sizeof capsules[c].tail);
        capsules[c].radius = ((const float *)radii.data)[c];
        capsules[c].joint = ((const uint32_t *)capsule_joints.data)[c];
    }
    sinew_skin_capsule_desc desc;
    SINEW_INIT(&desc);
    desc.influence_count = influence_count;
    desc.falloff = falloff;
    desc.radius_quantile = radius_quantile;
    desc.unbound = (sinew_skin_unbound)unbound;
    desc.scoring = (sinew_skin_capsule_scoring)scoring;
    sinew_skin_capsule_report report;
    SINEW_INIT(&report);
    report.unbound = b.unbound.data;
    report.unbound_capacity = b.unbound.rows;
    sinew_points points = sn_py_points(&b.positions);
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) < 0) goto done;
    sn_py_release_gil(&call);
    sinew_result r = sinew_skin_capsule_weights(call.ctx, &points, capsules, b.heads.rows, &desc, b.joints.data,
                                                b.weights.data, &report);
    sn_py_acquire_gil(&call);
    result = sn_py_binder_end(&b, &call, r, report.unbound_count);
done:
    PyMem_Free(capsules);
    sn_py_binder_release(&b);
    sn_py_array_release(&radii);
    sn_py_array_release(&capsule_joints);
    return result;
}

static PyObject *py_remove_rogues(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"positions", "triangles", "joints", "weights", "progress", NULL};
    PyObject *positions_obj, *triangles_obj, *joints_obj, *weights_obj, *progress = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOO|$O:skin_remove_rogues", keywords, &positions_obj,
                                     &triangles_obj, &joints_obj, &weights_obj, &progress))
        return NULL;
    sn_py_array positions = SN_PY_ARRAY_INIT, triangles = SN_PY_ARRAY_INIT, joints = SN_PY_ARRAY_INIT,
                weights = SN_PY_ARRAY_INIT;
    PyObject *result = NULL;
    sinew_trimesh mesh;
    if (trimesh_in(positions_obj, triangles_obj, &positions, &triangles, &mesh) < 0 ||
        influences_copy(joints_obj, weights_obj, (Py_ssize_t)positions.rows, &joints, &weights) < 0)
        goto done;
    sinew_skin_rogue_report report;
    SINEW_INIT(&report);
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) < 0) goto done;
    sn_py_release_gil(&call);
    sinew_result r = sinew_skin_remove_rogues(call.ctx, &mesh, joints.cols, joints.data, weights.data, &report);
    sn_py_acquire_gil(&call);
    if (sn_py_call_end(&call, r) < 0) goto done;
    PyObject *stats = PyDict_New();
    if (!stats) goto done;
    if (sn_py_dict_steal(stats, "influences_removed", PyLong_FromSize_t(report.influences_removed)) < 0 ||
        sn_py_dict_steal(stats, "vertices_reattached", PyLong_FromSize_t(report.vertices_reattached)) < 0) {
        Py_DECREF(stats);
        goto done;
    }
    result = PyTuple_Pack(3, (PyObject *)joints.array, (PyObject *)weights.array, stats);
    Py_DECREF(stats);
done:
    sn_py_array_release(&positions);
    sn_py_array_release(&triangles);
    sn_py_array_release(&joints);
    sn_py_array_release(&weights);
    return result;
}

static PyObject *py_smooth_weights(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"positions", "triangles", "joints", "weights", "iterations", "strength", "progress",
                               NULL};
    PyObject *positions_obj, *triangles_obj, *joints_obj, *weights_obj, *progress = Py_None;
    uint32_t iterations = 0;
    float strength = 0.0f;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOO|$O&fO:skin_smooth_weights", keywords, &positions_obj,
                                     &triangles_obj, &joints_obj, &weights_obj, SN_PY_U32("iterations", &iterations),
                                     &strength, &progress))
        return NULL;
    sn_py_array positions = SN_PY_ARRAY_INIT, triangles = SN_PY_ARRAY_INIT, joints = SN_PY_ARRAY_INIT,
                weights = SN_PY_ARRAY_INIT;
    PyObject *result = NULL;
    sinew_trimesh mesh;
    if (trimesh_in(positions_obj, triangles_obj, &positions, &triangles, &mesh) < 0 ||
        influences_copy(joints_obj, weights_obj, (Py_ssize_t)positions.rows, &joints, &weights) < 0)
        goto done;
    sinew_skin_smooth_desc desc;
    SINEW_INIT(&desc);
    desc.iterations = iterations;
    desc.strength = strength;
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) < 0) goto done;
    sn_py_release_gil(&call);
    sinew_result r = sinew_skin_smooth_weights(call.ctx, &mesh, joints.cols, joints.data, weights.data, &desc);
    sn_py_acquire_gil(&call);
    if (sn_py_call_end(&call, r) < 0) goto done;
    result = pair(&joints, &weights);
done:
    sn_py_array_release(&positions);
    sn_py_array_release(&triangles);
    sn_py_array_release(&joints);
    sn_py_array_release(&weights);
    return result;
}

static PyObject *py_prune_weights(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"joints", "weights", "influence_count", "min_weight", "progress", NULL};
    PyObject *joints_obj, *weights_obj, *progress = Py_None;
    size_t influence_count;
    float min_weight = 0.0f;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO&|$fO:skin_prune_weights", keywords, &joints_obj, &weights_obj,
                                     SN_PY_COUNT("influence_count", &influence_count), &min_weight, &progress))
        return NULL;
    if (influence_count == 0)
        return sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "influence_count: expected a count > 0, got 0");
    sn_py_array in_joints = SN_PY_ARRAY_INIT, in_weights = SN_PY_ARRAY_INIT, joints = SN_PY_ARRAY_INIT,
                weights = SN_PY_ARRAY_INIT;
    PyObject *result = NULL;
    if (sn_py_uint32_in(joints_obj, "joints", SN_PY_ANY, SN_PY_ANY, 0, &in_joints) < 0 ||
        sn_py_floats_in(weights_obj, "weights", (Py_ssize_t)in_joints.rows, (Py_ssize_t)in_joints.cols, SN_PY_FINITE,
                        &in_weights) < 0 ||
        sn_py_out(Py_None, "joints", NPY_UINT32, (Py_ssize_t)in_joints.rows, (Py_ssize_t)influence_count, 0, 0, &joints) < 0 ||
        sn_py_out(Py_None, "weights", NPY_FLOAT32, (Py_ssize_t)in_joints.rows, (Py_ssize_t)influence_count, 0, 0, &weights) < 0)
        goto done;
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) < 0) goto done;
    sn_py_release_gil(&call);
    sinew_result r = sinew_skin_prune_weights(call.ctx, in_joints.rows, in_joints.cols, in_joints.data,
                                              in_weights.data, influence_count, min_weight, joints.data,
                                              weights.data);
    sn_py_acquire_gil(&call);
    if (sn_py_call_end(&call, r) < 0) goto done;
    result = pair(&joints, &weights);
done:
    sn_py_array_release(&in_joints);
    sn_py_array_release(&in_weights);
    sn_py_array_release(&joints);
    sn_py_array_release(&weights);
    return result;
}

#define KW (METH_VARARGS | METH_KEYWORDS)
#define FN(f) ((PyCFunction)(void (*)(void))(f))

static PyMethodDef skin_tools_methods[] = {
    {"skin_capsule_weights", FN(py_capsule_weights), KW,
     "skin_capsule_weights(positions, heads, tails, radii, joints, *, influence_count=0, falloff=0, "
     "radius_quantile=0, unbound=0, progress=None) -> (joints, weights, unbound_vertices) "
     "(sinew_skin_capsule_weights); OutsideDomainError carries .unbound."},
    {"skin_remove_rogues", FN(py_remove_rogues), KW,
     "skin_remove_rogues(positions, triangles, joints, weights, *, progress=None) -> (joints, weights, report) "
     "(sinew_skin_remove_rogues), on new arrays."},
    {"skin_smooth_weights", FN(py_smooth_weights), KW,
     "skin_smooth_weights(positions, triangles, joints, weights, *, iterations=0, strength=0, progress=None) "
     "-> (joints, weights) (sinew_skin_smooth_weights), on new arrays."},
    {"skin_prune_weights", FN(py_prune_weights), KW,
     "skin_prune_weights(joints, weights, influence_count, *, min_weight=0, progress=None) -> (joints, weights) "
     "(sinew_skin_prune_weights)."},
    {NULL, NULL, 0, NULL},
};

int sn_py_register_skin_tools(PyObject *module)
{
    return PyModule_AddFunctions(module, skin_tools_methods);
}
