"""Operators and panel of the wrap: bind, unbind, update, bake."""
import bpy

from . import binding, wrap


class SINEW_OT_wrap_bind(bpy.types.Operator):
    """Bind the selected meshes to the active mesh (the driver) with sinew's SOFFD; they follow it from now on"""
    bl_idname = "object.sinew_wrap_bind"
    bl_label = "Wrap to Active (sinew)"
    bl_options = {"REGISTER", "UNDO"}

    weight_threshold: bpy.props.FloatProperty(
        name="Weight Threshold", default=0.0, min=0.0, max=1.0, precision=4,
        description="Drop driver faces weighing less than this fraction of a point's largest (0: 1e-3)")
    max_contributors: bpy.props.IntProperty(
        name="Max Faces", default=0, min=0, description="Driver faces per point at most (0: no cap; a cap steps the surface)")

    @classmethod
    def poll(cls, context):
        active = context.active_object
        return (active is not None and active.type == "MESH" and context.mode == "OBJECT"
                and any(o.type == "MESH" and o != active for o in context.selected_objects))

    def execute(self, context):
        driver = context.active_object
        try:
            sinew = binding.sinew()
        except ImportError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        depsgraph = context.evaluated_depsgraph_get()
        for obj in [o for o in context.selected_objects if o.type == "MESH" and o != driver]:
            try:
                soffd = wrap.bind(obj, driver, depsgraph, self.weight_threshold, self.max_contributors)
            except sinew.Error as error:
                self.report({"ERROR"}, f"{obj.name}: {error}")
                return {"CANCELLED"}
            info = soffd.info
            skipped = len(soffd.skipped_faces())
            self.report({"INFO"}, (f"{obj.name}: {info.point_count} points bound to {info.element_count} "
                                   f"triangles of {driver.name}" + (f", {skipped} degenerate skipped" if skipped
                                                                    else "")))
            wrap.update(obj, depsgraph)
        return {"FINISHED"}


class SINEW_OT_wrap_unbind(bpy.types.Operator):
    """Remove the sinew wrap of the selected meshes (and its shape key)"""
    bl_idname = "object.sinew_wrap_unbind"
    bl_label = "Unbind sinew Wrap"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        for obj in context.selected_objects:
            if obj.type == "MESH" and wrap.WRAP_DATA in obj:
                wrap.unbind(obj)
        return {"FINISHED"}


class SINEW_OT_wrap_bake(bpy.types.Operator):
    """Bake the wrap of the selected meshes to one shape key per frame of the scene's range"""
    bl_idname = "object.sinew_wrap_bake"
    bl_label = "Bake sinew Wrap to Shape Keys"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return any(wrap.is_wrapped(o) for o in context.selected_objects)

    def execute(self, context):
        scene = context.scene
        current = scene.frame_current
        frames = range(scene.frame_start, scene.frame_end + 1, scene.frame_step)
        objects = [o for o in context.selected_objects if wrap.is_wrapped(o)]
        for obj in objects:
            wrap.bake(obj, scene, frames)
        scene.frame_set(current)
        self.report({"INFO"}, f"baked {len(frames)} frames of {len(objects)} wrapped mesh(es)")
        return {"FINISHED"}


class SINEW_PT_wrap(bpy.types.Panel):
    bl_label = "sinew Wrap"
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "data"

    @classmethod
    def poll(cls, context):
        return context.object is not None and context.object.type == "MESH"

    def draw(self, context):
        obj = context.object
        layout = self.layout
        if wrap.WRAP_DATA in obj:
            layout.prop(obj.sinew_wrap, "driver")
            layout.prop(obj.sinew_wrap, "live")
            if obj.sinew_wrap.error:
                layout.label(text=obj.sinew_wrap.error, icon="ERROR")
            layout.operator(SINEW_OT_wrap_bake.bl_idname)
            layout.operator(SINEW_OT_wrap_unbind.bl_idname)
        else:
            layout.label(text="Select this mesh, then the driver (active):")
            layout.operator(SINEW_OT_wrap_bind.bl_idname)


def menu(self, context):
    self.layout.operator(SINEW_OT_wrap_bind.bl_idname)


classes = (SINEW_OT_wrap_bind, SINEW_OT_wrap_unbind, SINEW_OT_wrap_bake, SINEW_PT_wrap)


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.VIEW3D_MT_object_parent.append(menu)


def unregister():
    bpy.types.VIEW3D_MT_object_parent.remove(menu)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
