"""Object > Apply > Bake sinew Lattice: a mesh deformed by a lattice object
through the library's B-spline lattice, refined until every deformed edge is
within a tolerance of the curved surface (a guaranteed bound), as a new mesh."""
import bpy
import numpy as np

from . import binding, mesh_data

# Blender's interpolation types and the B-spline order each maps to (capped by the point count).
ORDERS = {"KEY_LINEAR": 2, "KEY_CARDINAL": 4, "KEY_CATMULL_ROM": 4, "KEY_BSPLINE": 4}


def lattice_of(obj):
    """A sinew.Lattice over the lattice object's box (its [-0.5, 0.5]^3 in world
    space), each control point displaced as Blender's is from its rest place.

    sinew's lattice is a clamped uniform B-spline that interpolates its box's
    faces, while Blender's B-spline lattice does not, so the two deform alike
    but not identically."""
    sinew = binding.sinew()
    data = obj.data
    counts = (data.points_u, data.points_v, data.points_w)
    if min(counts) < 2:
        raise ValueError(f"{obj.name}: a lattice needs at least 2 points along every axis, has {counts}")
    types = (data.interpolation_type_u, data.interpolation_type_v, data.interpolation_type_w)
    order = tuple(min(ORDERS[t], c) for t, c in zip(types, counts))
    m = np.array(obj.matrix_world, dtype=np.float64)
    columns = m[:3, :3]
    extents = np.linalg.norm(columns, axis=0)
    axes = (columns / extents).T
    origin = mesh_data.world(obj.matrix_world, np.array([[-0.5, -0.5, -0.5]]))[0]
    lattice = sinew.Lattice(count=counts, order=order, origin=origin, axes=axes, extents=extents, outside="extend")
    rest = np.array([p.co for p in data.points])
    moved = np.array([p.co_deform for p in data.points])
    lattice.set_displacements(((moved - rest) @ columns.T).astype(np.float32))
    return lattice


def bake(mesh_obj, lattice_obj, tolerance):
    """(new object holding the refined deformed mesh in world space, sinew.LatticeRefinement)."""
    vertices = mesh_data.world(mesh_obj.matrix_world, mesh_data.vertices(mesh_obj.data))
    triangles = mesh_data.triangles(mesh_obj.data)
    with lattice_of(lattice_obj) as lattice:
        refinement = lattice.refine(vertices, triangles, tolerance)
    mesh = bpy.data.meshes.new(mesh_obj.name + " (sinew lattice)")
    mesh.from_pydata(refinement.positions.tolist(), [], refinement.triangles.tolist())
    mesh.update()
    obj = bpy.data.objects.new(mesh_obj.name + " (sinew lattice)", mesh)
    for collection in mesh_obj.users_collection:
        collection.objects.link(obj)
    return obj, refinement


class SINEW_OT_lattice_bake(bpy.types.Operator):
    """Deform the selected meshes by the active lattice with sinew's lattice, refined to a guaranteed
    tolerance, into new mesh objects"""
    bl_idname = "object.sinew_lattice_bake"
    bl_label = "Bake sinew Lattice"
    bl_options = {"REGISTER", "UNDO"}

    tolerance: bpy.props.FloatProperty(
        name="Tolerance", default=1e-3, min=1e-6, max=0.1, precision=5,
        description="Largest distance of a deformed edge from the curved surface, relative to the mesh's size")

    @classmethod
    def poll(cls, context):
        active = context.active_object
        return (active is not None and active.type == "LATTICE" and context.mode == "OBJECT"
                and any(o.type == "MESH" for o in context.selected_objects))

    def execute(self, context):
        lattice_obj = context.active_object
        try:
            sinew = binding.sinew()
        except ImportError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        for obj in [o for o in context.selected_objects if o.type == "MESH"]:
            size = float(np.linalg.norm(np.array(obj.dimensions)))
            try:
                baked, refinement = bake(obj, lattice_obj, self.tolerance * size)
            except (sinew.Error, ValueError) as error:
                self.report({"ERROR"}, f"{obj.name}: {error}")
                return {"CANCELLED"}
            self.report({"INFO"}, (
                f"{obj.name}: {len(obj.data.loop_triangles)} triangles refined to {len(refinement.triangles)} "
                f"in {refinement.rounds} rounds, largest edge error {refinement.max_error:.3g} "
                f"(tolerance {self.tolerance * size:.3g}) -> {baked.name}"))
        return {"FINISHED"}


def menu(self, context):
    self.layout.operator(SINEW_OT_lattice_bake.bl_idname)


def register():
    bpy.utils.register_class(SINEW_OT_lattice_bake)
    bpy.types.VIEW3D_MT_object_apply.append(menu)


def unregister():
    bpy.types.VIEW3D_MT_object_apply.remove(menu)
    bpy.utils.unregister_class(SINEW_OT_lattice_bake)
