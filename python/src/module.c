/*
 * sinew Python binding: the sinew._sinew extension module. Imports numpy's
 * C API, then registers the core parts and every technique of techniques.h.
 *
 * SPDX-License-Identifier: MIT
 */
#define SN_PY_IMPORT_NUMPY
#include "sn_py.h"

typedef int (*register_fn)(PyObject *module);

static const register_fn registrations[] = {
    sn_py_errors_init,
    sn_py_handle_init,
#define SN_PY_TECHNIQUE(name) sn_py_register_##name,
#include "techniques.h"
#undef SN_PY_TECHNIQUE
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "sinew._sinew",
    .m_doc = "C extension of the sinew package: thin wrappers over the sinew C API. Use the sinew package's "
             "classes (sinew.Skin, sinew.Soffd, ...) rather than this module directly.",
    .m_size = -1,
};

/* import_array() is a macro that returns NULL from the function it is in on failure. */
static void *import_numpy(void)
{
    import_array();
    return (void *)1;
}

PyMODINIT_FUNC PyInit__sinew(void)
{
    if (!import_numpy()) return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (!module) return NULL;
    for (size_t i = 0; i < sizeof registrations / sizeof registrations[0]; ++i) {
        if (registrations[i](module) < 0) {
            Py_DECREF(module);
            return NULL;
        }
    }
    return module;
}
