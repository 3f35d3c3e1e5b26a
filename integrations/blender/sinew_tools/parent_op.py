"""Object > Parent > With sinew Weights: automatic weights from the library
written as vertex groups, with an Armature modifier."""
import bpy
import numpy as np

from . import auto_weights, binding, mesh_data


def deform_bones(armature, subset, names):
    """The armature's deforming bones to weigh: names (comma-separated) when
    given, else the selected bones when subset is 'SELECTED', else all."""
    bones = [b for b in armature.data.bones if b.use_deform]
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    if wanted:
        missing = [n for n in wanted if n not in armature.data.bones]
        if missing:
            raise ValueError(f"no bone named {', '.join(missing)} in {armature.name}")
        return [b for b in bones if b.name in wanted]
    if subset == "SELECTED":
        return [b for b in bones if b.select]
    return bones


def write_groups(obj, bone_names, all_deform_names, joints, weights):
    """Vertex groups named after the bones holding the weights; the weights
    the vertices had in other deforming bones' groups are removed, so each
    vertex's Armature weights are exactly the library's row."""
    everyone = list(range(len(obj.data.vertices)))
    for name in all_deform_names:
        group = obj.vertex_groups.get(name)
        if group is not None:
            group.remove(everyone)
    groups = [obj.vertex_groups.get(n) or obj.vertex_groups.new(name=n) for n in bone_names]
    for v, (row_joints, row_weights) in enumerate(zip(joints.tolist(), weights.tolist())):
        for j, w in zip(row_joints, row_weights):
            if w > 0.0:
                groups[j].add([v], w, "REPLACE")


def attach(obj, armature):
    """Parents obj to the armature in place and gives it an Armature modifier (reused if there is one)."""
    world = obj.matrix_world.copy()
    obj.parent = armature
    obj.parent_type = "OBJECT"
    obj.matrix_world = world
    modifier = next((m for m in obj.modifiers if m.type == "ARMATURE" and m.object == armature), None)
    if modifier is None:
        modifier = obj.modifiers.new(name="Armature", type="ARMATURE")
        modifier.object = armature
    modifier.use_vertex_groups = True
    modifier.use_bone_envelopes = False
    modifier.use_deform_preserve_volume = False


class SINEW_OT_parent_weights(bpy.types.Operator):
    """Parent the selected meshes to the active armature with automatic weights computed by sinew
    (bounded biharmonic weights over the mesh's volume)"""
    bl_idname = "object.sinew_parent_weights"
    bl_label = "With sinew Weights"
    bl_options = {"REGISTER", "UNDO"}

    influence_count: bpy.props.IntProperty(
        name="Influences", description="Bones weighting each vertex at most", default=4, min=1, max=8)
    quality: bpy.props.EnumProperty(
        name="Quality", default="BALANCED",
        items=[("FAST", "Fast", "24 voxels along the longest side, error 1e-3"),
               ("BALANCED", "Balanced", "32 voxels, error 1e-4"),
               ("QUALITY", "Quality", "48 voxels, error 1e-5 (thin parts, slower)")])
    bone_subset: bpy.props.EnumProperty(
        name="Bones", default="ALL",
        items=[("ALL", "All Deforming", "Every bone with Deform on"),
               ("SELECTED", "Selected", "The selected deforming bones only")])
    bone_names: bpy.props.StringProperty(
        name="Bone Names", description="Comma-separated bones to weigh (overrides Bones when set)", default="")

    @classmethod
    def poll(cls, context):
        active = context.active_object
        return (active is not None and active.type == "ARMATURE" and context.mode == "OBJECT"
                and any(o.type == "MESH" for o in context.selected_objects))

    def execute(self, context):
        armature = context.active_object
        try:
            sinew = binding.sinew()
            bones = deform_bones(armature, self.bone_subset, self.bone_names)
        except (ImportError, ValueError) as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        if not bones:
            self.report({"ERROR"}, f"{armature.name} has no deforming bone to weigh")
            return {"CANCELLED"}
        joint_positions, segments = mesh_data.bone_segments(armature, bones)
        all_names = [b.name for b in armature.data.bones if b.use_deform]
        meshes = [o for o in context.selected_objects if o.type == "MESH"]
        wm = context.window_manager
        for obj in meshes:
            positions = mesh_data.world(obj.matrix_world, mesh_data.vertices(obj.data))
            triangles = mesh_data.triangles(obj.data)

            def progress(stage, fraction):
                wm.progress_update(fraction)

            wm.progress_begin(0.0, 1.0)
            try:
                joints, weights, report = auto_weights.compute_weights(
                    positions, triangles, joint_positions, segments, self.influence_count, self.quality, progress)
            except sinew.Error as error:
                self.report({"ERROR"}, f"{obj.name}: {error}")
                return {"CANCELLED"}
            finally:
                wm.progress_end()
            write_groups(obj, [b.name for b in bones], all_names, joints, weights)
            attach(obj, armature)
            for level, text in report.lines:
                self.report({level}, f"{obj.name}: {text}")
        return {"FINISHED"}


def menu(self, context):
    self.layout.operator(SINEW_OT_parent_weights.bl_idname)


classes = (SINEW_OT_parent_weights,)


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.VIEW3D_MT_object_parent.append(menu)


def unregister():
    bpy.types.VIEW3D_MT_object_parent.remove(menu)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
