"""Finds the sinew Python binding for Blender's interpreter.

Debian's Blender runs the system python3, so a binding installed for
/usr/bin/python3 (or built by meson for it) imports as it is. A blender.org
build bundles its own Python: install a wheel built for that interpreter into
a folder on Blender's path (its scripts/modules) or anywhere, and point the
add-on's preference (or SINEW_PYTHONPATH) at it. Blender ignores PYTHONPATH
unless started with --python-use-system-env, hence the variable of our own.
"""
import importlib
import os
import sys

ENV_VAR = "SINEW_PYTHONPATH"


def _candidate_folders(extra):
    for value in (extra, os.environ.get(ENV_VAR, "")):
        for folder in (value or "").split(os.pathsep):
            if folder and os.path.isdir(folder):
                yield os.path.abspath(folder)


def find(extra=""):
    """The sinew module, importing it from the usual path, then from the
    folders given (os.pathsep-separated) and SINEW_PYTHONPATH. Raises
    ImportError saying where it looked and why it failed."""
    try:
        return importlib.import_module("sinew")
    except ImportError as first:
        reasons = [f"the default path: {first}"]
    for folder in _candidate_folders(extra):
        if folder not in sys.path:
            sys.path.insert(0, folder)
        try:
            return importlib.import_module("sinew")
        except ImportError as error:
            reasons.append(f"{folder}: {error}")
    raise ImportError(
        "sinew's Python binding was not found for this Python "
        f"({sys.version.split()[0]}, {sys.executable}); looked in " + "; ".join(reasons) +
        f". Set the add-on's 'Binding folder' preference or {ENV_VAR} (see docs/blender.md).")


def sinew():
    """The module, found with the add-on's preference if the add-on is enabled."""
    import bpy
    addon = bpy.context.preferences.addons.get(__package__)
    extra = addon.preferences.binding_folder if addon is not None else ""
    return find(bpy.path.abspath(extra) if extra else "")
