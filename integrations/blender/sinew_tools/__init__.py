"""sinew tools for Blender: automatic weights and wrap (SOFFD) from the sinew
library. Needs sinew's Python binding for Blender's Python (docs/blender.md)."""

bl_info = {
    "name": "sinew tools",
    "author": "sinew contributors",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "View3D > Object > Parent (Ctrl P) and Apply (Ctrl A), Properties > Mesh > sinew Wrap",
    "description": ("Automatic skinning weights (bounded biharmonic), wrap deformation (SOFFD) and refined "
                    "lattice bakes from sinew"),
    "doc_url": "https://github.com/sinew/sinew/blob/main/docs/blender.md",
    "category": "Rigging",
}

import bpy

from . import lattice_bake, parent_op, wrap, wrap_ops


class SinewPreferences(bpy.types.AddonPreferences):
    bl_idname = __package__

    binding_folder: bpy.props.StringProperty(
        name="Binding folder", subtype="DIR_PATH", default="",
        description="Folder holding the sinew package when Blender's Python does not find it "
                    "(pip install --no-deps --target FOLDER sinew-*.whl)")

    def draw(self, context):
        self.layout.prop(self, "binding_folder")


modules = (wrap, parent_op, wrap_ops, lattice_bake)


def register():
    bpy.utils.register_class(SinewPreferences)
    for module in modules:
        module.register()


def unregister():
    for module in reversed(modules):
        module.unregister()
    bpy.utils.unregister_class(SinewPreferences)
