/* sinew_soffd_driver_from_skin for Python: the driver as new numpy arrays
 * and the report as a dict. */
#include "sn_py.h"

#include <string.h>

/* Joints and bones of the optional skeleton: both or neither. */
static int read_skeleton(PyObject *joints_obj, PyObject *bones_obj, sn_py_array *joints, sn_py_array *bones)
{
    if ((joints_obj == Py_None) != (bones_obj == Py_None)) {
        PyErr_SetString(PyExc_ValueError, "give joint_positions and bones together, or neither");
        return -1;
    }
    if (joints_obj == Py_None) return 0;
    if (sn_py_floats_in(joints_obj, "joint_positions", SN_PY_ANY, 3, SN_PY_STRIDED, joints) < 0) return -1;
    return sn_py_uint32_in(bones_obj, "bones", SN_PY_ANY, 2, 0, bones);
}

static PyObject *report_dict(const sinew_soffd_driver_report *rep)
{
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    if (sn_py_dict_steal(d, "vertex_count", PyLong_FromSize_t(rep->vertex_count)) < 0 ||
        sn_py_dict_steal(d, "triangle_count", PyLong_FromSize_t(rep->triangle_count)) < 0 ||
        sn_py_dict_steal(d, "welded_vertices", PyLong_FromSize_t(rep->welded_vertices)) < 0 ||
        sn_py_dict_steal(d, "skin_to_driver_distance", PyFloat_FromDouble(rep->skin_to_driver_distance)) < 0 ||
        sn_py_dict_steal(d, "driver_to_skin_distance", PyFloat_FromDouble(rep->driver_to_skin_distance)) < 0 ||
        sn_py_dict_steal(d, "diagonal", PyFloat_FromDouble(rep->diagonal)) < 0 ||
        sn_py_dict_steal(d, "seconds", PyFloat_FromDouble(rep->seconds)) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* Runs the call twice: the sizes, then into new arrays of those sizes. */
static PyObject *make_driver(const sinew_polymesh *skin, const sinew_soffd_driver_desc *desc, PyObject *progress)
{
    sn_py_call call;
    if (sn_py_call_begin(&call, progress) < 0) return NULL;
    sinew_soffd_driver_report rep;
    SINEW_INIT(&rep);
    sn_py_release_gil(&call);
    sinew_result r = sinew_soffd_driver_from_skin(call.ctx, skin, desc, NULL, 0, NULL, 0, &rep);
    sn_py_acquire_gil(&call);
    if (sn_py_call_end(&call, r) < 0) return NULL;
    npy_intp pdims[2] = {(npy_intp)rep.vertex_count, 3}, tdims[2] = {(npy_intp)rep.triangle_count, 3};
    PyObject *pos = PyArray_SimpleNew(2, pdims, NPY_FLOAT32), *tris = PyArray_SimpleNew(2, tdims, NPY_UINT32);
    PyObject *result = NULL;
    if (!pos || !tris || sn_py_call_begin(&call, progress) < 0) goto done;
    size_t nv = rep.vertex_count, nt = rep.triangle_count;
    SINEW_INIT(&rep);
    sn_py_release_gil(&call);
    r = sinew_soffd_driver_from_skin(call.ctx, skin, desc, PyArray_DATA((PyArrayObject *)pos), nv,
                                     PyArray_DATA((PyArrayObject *)tris), nt, &rep);
    sn_py_acquire_gil(&call);
    if (sn_py_call_end(&call, r) < 0) goto done;
    PyObject *d = report_dict(&rep);
    if (d) result = PyTuple_Pack(3, pos, tris, d);
    Py_XDECREF(d);
done:
    Py_XDECREF(pos);
    Py_XDECREF(tris);
    return result;
}

static PyObject *py_driver_from_skin(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = {"positions", "indices", "face_sizes", "target_triangle_count", "max_error",
                               "weld_tolerance", "joint_positions", "bones", "joint_emphasis", "joint_radius",
                               "progress", NULL};
    PyObject *positions_obj, *indices_obj, *sizes_obj = Py_None, *joints_obj = Py_None, *bones_obj = Py_None,
                                                     *progress = Py_None;
    size_t target = 0;
    float max_error = 0.0f, weld_tolerance = 0.0f, joint_emphasis = 0.0f, joint_radius = 0.0f;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O$O&ffOOffO:soffd_driver_from_skin", keywords,
                                     &positions_obj, &indices_obj, &sizes_obj,
                                     SN_PY_COUNT("target_triangle_count", &target), &max_error, &weld_tolerance,
                                     &joints_obj, &bones_obj, &joint_emphasis, &joint_radius, &progress))
        return NULL;
    sn_py_array positions = SN_PY_ARRAY_INIT, indices = SN_PY_ARRAY_INIT, sizes = SN_PY_ARRAY_INIT,
                joints = SN_PY_ARRAY_INIT, bones = SN_PY_ARRAY_INIT;
    PyObject *result = NULL;
    sinew_polymesh skin;
    if (sn_py_polymesh_in(positions_obj, indices_obj, sizes_obj, &positions, &indices, &sizes, &skin) < 0 ||
        read_skeleton(joints_obj, bones_obj, &joints, &bones) < 0)
        goto done;
    sinew_soffd_driver_desc desc;
    SINEW_INIT(&desc);
    desc.target_triangle_count = target;
    desc.max_error = max_error;
    desc.weld_tolerance = weld_tolerance;
    desc.joint_emphasis = joint_emphasis;
    desc.joint_radius = joint_radius;
    if (joints.data) {
        desc.joint_positions = sn_py_points(&joints);
        desc.bones = bones.data;
        desc.bone_count = bones.rows;
    }
    result = make_driver(&skin, &desc, progress);
done:
    sn_py_array_release(&positions);
    sn_py_array_release(&indices);
    sn_py_array_release(&sizes);
    sn_py_array_release(&joints);
    sn_py_array_release(&bones);
    return result;
}

#define KW (METH_VARARGS | METH_KEYWORDS)
#define FN(f) ((PyCFunction)(void (*)(void))(f))

static PyMethodDef driver_methods[] = {
    {"soffd_driver_from_skin", FN(py_driver_from_skin), KW,
     "soffd_driver_from_skin(positions, indices, face_sizes=None, *, target_triangle_count=0, max_error=0, "
     "weld_tolerance=0, joint_positions=None, bones=None, joint_emphasis=0, joint_radius=0, progress=None) "
     "-> (positions, triangles, report) (sinew_soffd_driver_from_skin)."},
    {NULL, NULL, 0, NULL},
};

int sn_py_register_soffd_driver(PyObject *module)
{
    return PyModule_AddFunctions(module, driver_methods);
}
