/*
 * sinew Python binding: long calls with the GIL released, progress reported
 * to a Python callable, cancellation by the callable, its exceptions or Ctrl-C.
 *
 * SPDX-License-Identifier: MIT
 */
#include "sn_py.h"

/* Keeps the first exception the hook caught; the call is cancelled by it. */
static void catch_exception(sn_py_call *call)
{
    if (call->exc_type) {
        PyErr_Clear();
        return;
    }
    PyErr_Fetch(&call->exc_type, &call->exc_value, &call->exc_traceback);
}

/* The context's progress hook: runs on the calling thread with the GIL
 * released by sn_py_release_gil, so it takes the GIL back for its Python work. */
static int progress_hook(void *user, const char *stage, float fraction)
{
    sn_py_call *call = user;
    PyGILState_STATE gil = PyGILState_Ensure();
    int cancel = call->exc_type != NULL || call->cancelled_by_callable;
    if (!cancel && PyErr_CheckSignals() < 0) {
        catch_exception(call);
        cancel = 1;
    }
    if (!cancel && call->progress) {
        PyObject *result = PyObject_CallFunction(call->progress, "sd", stage, (double)fraction);
        if (!result) {
            catch_exception(call);
            cancel = 1;
        } else {
            if (result != Py_None) {
                int truth = PyObject_IsTrue(result);
                if (truth < 0) {
                    catch_exception(call);
                    cancel = 1;
                } else if (!truth) {
                    call->cancelled_by_callable = 1;
                    cancel = 1;
                }
            }
            Py_DECREF(result);
        }
    }
    PyGILState_Release(gil);
    return cancel;
}

int sn_py_call_begin(sn_py_call *call, PyObject *progress)
{
    memset(call, 0, sizeof *call);
    if (progress && progress != Py_None) {
        if (!PyCallable_Check(progress)) {
            sn_py_raise_msg(SINEW_ERROR_INVALID_ARGUMENT,
                            "progress: expected a callable progress(stage, fraction) or None, got %s",
                            Py_TYPE(progress)->tp_name);
            return -1;
        }
        call->progress = progress;
    }
    sinew_context_desc desc;
    SINEW_INIT(&desc);
    desc.progress = progress_hook;
    desc.progress_user = call;
    sinew_result r = sinew_context_create(&desc, &call->ctx);
    if (r != SINEW_OK) {
        sn_py_raise(r);
        return -1;
    }
    return 0;
}

void sn_py_release_gil(sn_py_call *call)
{
    call->saved = PyEval_SaveThread();
}

void sn_py_acquire_gil(sn_py_call *call)
{
    PyEval_RestoreThread(call->saved);
    call->saved = NULL;
}

int sn_py_call_end(sn_py_call *call, sinew_result r)
{
    int status = 0;
    if (call->exc_type && r == SINEW_OK) {
        /* The call finished regardless (its outputs are made and must be
         * returned): a Ctrl-C is handed back to the interpreter, which raises
         * it at its next check; another exception has nothing left to cancel. */
        if (PyErr_GivenExceptionMatches(call->exc_type, PyExc_KeyboardInterrupt)) PyErr_SetInterrupt();
        Py_XDECREF(call->exc_type);
        Py_XDECREF(call->exc_value);
        Py_XDECREF(call->exc_traceback);
    } else if (call->exc_type) {
        /* What the callable raised (or KeyboardInterrupt) explains the cancel. */
        PyErr_Restore(call->exc_type, call->exc_value, call->exc_traceback);
        status = -1;
    } else if (r != SINEW_OK) {
        if (r == SINEW_ERROR_CANCELLED && call->cancelled_by_callable)
            sn_py_raise_msg(r, "%s (the progress callable returned a false value)", sinew_last_error());
        else
            sn_py_raise(r);
        status = -1;
    }
    call->exc_type = call->exc_value = call->exc_traceback = NULL;
    sinew_context_destroy(call->ctx);
    call->ctx = NULL;
    return status;
}
