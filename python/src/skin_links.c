/*
 * sinew Python binding: bone links (Weber; include/sinew/skin_tools.h):
 * split a joint into a chain of links at bind time (sinew_skin_bone_links)
 * and spread its rotation over them at pose time (sinew_skin_link_rotations).
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

/* (parents (J,), inverse_bind (J, 4, 4), joint, joints (V, K), weights (V, K),
 *  *, link_count=0, max_link_angle=0, range_of_motion=0)
 * -> (parents, inverse_bind, joints, weights, report dict), all new arrays. */
static PyObject *py_bone_links(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"parents", "inverse_bind", "joint", "joints", "weights", "link_count",
                               "max_link_angle", "range_of_motion", NULL};
    PyObject *parents_obj, *ib_obj, *joints_obj, *weights_obj;
    uint32_t joint, link_count = 0;
    float max_link_angle = 0.0f, range_of_motion = 0.0f;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO&OO|$O&ff:skin_bone_links", keywords, &parents_obj, &ib_obj,
                                     SN_PY_U32("joint", &joint), &joints_obj, &weights_obj,
                                     SN_PY_U32("link_count", &link_count), &max_link_angle, &range_of_motion))
        return NULL;
    sn_py_array parents = SN_PY_ARRAY_INIT, ib = SN_PY_ARRAY_INIT, in_joints = SN_PY_ARRAY_INIT,
                in_weights = SN_PY_ARRAY_INIT, out_parents = SN_PY_ARRAY_INIT, out_ib = SN_PY_ARRAY_INIT,
                out_joints = SN_PY_ARRAY_INIT, out_weights = SN_PY_ARRAY_INIT;
    PyObject *result = NULL, *ib_view = NULL, *parents_slice = NULL, *ib_slice = NULL;
    if (sn_py_uint32_in(parents_obj, "parents", SN_PY_ANY, 1, SN_PY_FLAT, &parents) < 0 ||
        sn_py_matrices_in(ib_obj, "inverse_bind", (Py_ssize_t)parents.rows, 0, &ib) < 0 ||
        sn_py_uint32_in(joints_obj, "joints", SN_PY_ANY, SN_PY_ANY, 0, &in_joints) < 0 ||
        sn_py_floats_in(weights_obj, "weights", (Py_ssize_t)in_joints.rows, (Py_ssize_t)in_joints.cols, SN_PY_FINITE,
                        &in_weights) < 0)
        goto done;
    /* Room for the most links the options allow: the library says how many it made. */
    size_t added = (link_count && link_count <= SINEW_SKIN_MAX_LINKS ? link_count : SINEW_SKIN_MAX_LINKS) - 1;
    size_t capacity = parents.rows + added;
    if (sn_py_out(Py_None, "parents", NPY_UINT32, (Py_ssize_t)capacity, 1, SN_PY_FLAT, 0, &out_parents) < 0 ||
        sn_py_matrices_out(Py_None, "inverse_bind", (Py_ssize_t)capacity, &out_ib) < 0 ||
        sn_py_out(Py_None, "joints", NPY_UINT32, (Py_ssize_t)in_joints.rows, (Py_ssize_t)in_joints.cols, 0, 0,
                  &out_joints) < 0 ||
        sn_py_out(Py_None, "weights", NPY_FLOAT32, (Py_ssize_t)in_joints.rows, (Py_ssize_t)in_joints.cols, 0, 0,
                  &out_weights) < 0)
        goto done;
    sinew_skin_links_desc desc;
    SINEW_INIT(&desc);
    desc.link_count = link_count;
    desc.max_link_angle = max_link_angle;
    desc.range_of_motion = range_of_motion;
    sinew_skin_links_report report;
    SINEW_INIT(&report);
    size_t joint_count = 0;
    sinew_result r;
    Py_BEGIN_ALLOW_THREADS
    r = sinew_skin_bone_links(NULL, parents.rows, parents.data, ib.data, joint, &desc, in_joints.rows, in_joints.cols,
                              in_joints.data, in_weights.data, out_parents.data, out_ib.data, capacity, &joint_count,
                              out_joints.data, out_weights.data, &report);
    Py_END_ALLOW_THREADS
    if (r != SINEW_OK) {
        sn_py_raise(r);
        goto done;
    }
    if (!(ib_view = sn_py_matrices_result(&out_ib)) ||
        !(parents_slice = PySequence_GetSlice((PyObject *)out_parents.array, 0, (Py_ssize_t)joint_count)) ||
        !(ib_slice = PySequence_GetSlice(ib_view, 0, (Py_ssize_t)joint_count)))
        goto done;
    result = Py_BuildValue("(OOOO{s:I,s:(fff),s:n})", parents_slice, ib_slice, (PyObject *)out_joints.array,
                           (PyObject *)out_weights.array, "link_count", (unsigned int)report.link_count, "bone_axis",
                           report.bone_axis[0], report.bone_axis[1], report.bone_axis[2], "vertices_redistributed",
                           (Py_ssize_t)report.vertices_redistributed);
done:
    Py_XDECREF(ib_view);
    Py_XDECREF(parents_slice);
    Py_XDECREF(ib_slice);
    sn_py_array_release(&parents);
    sn_py_array_release(&ib);
    sn_py_array_release(&in_joints);
    sn_py_array_release(&in_weights);
    sn_py_array_release(&out_parents);
    sn_py_array_release(&out_ib);
    sn_py_array_release(&out_joints);
    sn_py_array_release(&out_weights);
    return result;
}

/* (rotation (4,) x y z w, bone_axis (3,), link_count, out=None) -> (link_count, 4) float32. */
static PyObject *py_link_rotations(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"rotation", "bone_axis", "link_count", "out", NULL};
    PyObject *rotation_obj, *axis_obj, *out_obj = Py_None;
    size_t link_count;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO&|O:skin_link_rotations", keywords, &rotation_obj, &axis_obj,
                                     SN_PY_COUNT("link_count", &link_count), &out_obj))
        return NULL;
    if (link_count == 0 || link_count > SINEW_SKIN_MAX_LINKS)
        return sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT, "link_count: expected 1 to %u links, got %zu",
                               SINEW_SKIN_MAX_LINKS, link_count);
    sn_py_array rotation = SN_PY_ARRAY_INIT, axis = SN_PY_ARRAY_INIT, out = SN_PY_ARRAY_INIT;
    PyObject *result = NULL;
    if (sn_py_floats_in(rotation_obj, "rotation", 4, 1, SN_PY_FLAT, &rotation) == 0 &&
        sn_py_floats_in(axis_obj, "bone_axis", 3, 1, SN_PY_FLAT, &axis) == 0 &&
        sn_py_out(out_obj, "out", NPY_FLOAT32, (Py_ssize_t)link_count, 4, 0, 0, &out) == 0) {
        sinew_result r = sinew_skin_link_rotations(rotation.data, axis.data, link_count, out.data);
        result = r == SINEW_OK ? sn_py_array_result(&out) : sn_py_raise(r);
    }
    sn_py_array_release(&rotation);
    sn_py_array_release(&axis);
    sn_py_array_release(&out);
    return result;
}

#define KW (METH_VARARGS | METH_KEYWORDS)
#define FN(f) ((PyCFunction)(void (*)(void))(f))

static PyMethodDef skin_links_methods[] = {
    {"skin_bone_links", FN(py_bone_links), KW,
     "skin_bone_links(parents, inverse_bind, joint, joints, weights, *, link_count=0, max_link_angle=0, "
     "range_of_motion=0) -> (parents, inverse_bind, joints, weights, report) (sinew_skin_bone_links)."},
    {"skin_link_rotations", FN(py_link_rotations), KW,
     "skin_link_rotations(rotation, bone_axis, link_count, out=None) -> (link_count, 4) quaternions x, y, z, w "
     "(sinew_skin_link_rotations)."},
    {NULL, NULL, 0, NULL},
};

int sn_py_register_skin_links(PyObject *module)
{
    return PyModule_AddFunctions(module, skin_links_methods);
}
