"""The add-on inside Blender, headless: run by run_blender.py as
    blender -b --factory-startup --python-exit-code 1 --python test_addon.py -- OUT_DIR
with the add-on on BLENDER_USER_SCRIPTS and the binding on SINEW_PYTHONPATH.
Each test_* function builds its scene from the data set; a failed assertion
fails the run (exit code 1)."""
import os
import sys
import tempfile
import time
import traceback

import addon_utils
import bpy
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rigs  # noqa: E402

# Largest distance between Blender's Armature modifier and sinew's skinning, relative to the mesh's diagonal.
SKIN_TOLERANCE = 1e-5
OUT_DIR = sys.argv[sys.argv.index("--") + 1] if "--" in sys.argv else tempfile.mkdtemp()


def fresh_scene():
    """An empty scene with the add-on enabled from its folder (factory settings drop add-ons)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    module = addon_utils.enable("sinew_tools", default_set=True, handle_error=None)
    assert module is not None, "the add-on did not enable"
    return module


def sinew_module():
    from sinew_tools import binding
    return binding.sinew()


def world_vertices(obj, evaluated=True):
    """(V, 3) world positions of obj's vertices: after modifiers and shape keys, or its mesh as stored."""
    from sinew_tools import mesh_data
    if evaluated:
        return mesh_data.evaluated_world_vertices(obj, bpy.context.evaluated_depsgraph_get())
    return mesh_data.world(obj.matrix_world, mesh_data.vertices(obj.data))


def group_weights(obj, bone_names):
    """(V, B) weights of the bones' vertex groups; other groups must be empty of weight."""
    index = {g.index: bone_names.index(g.name) for g in obj.vertex_groups if g.name in bone_names}
    weights = np.zeros((len(obj.data.vertices), len(bone_names)))
    for v in obj.data.vertices:
        for g in v.groups:
            assert g.group in index or g.weight == 0.0, f"vertex {v.index} in group {g.group} of no bone"
            if g.group in index:
                weights[v.index, index[g.group]] = g.weight
    return weights


def check_groups(obj, bone_names, k, unweighted=()):
    """Every vertex but the unweighted ones has weights summing to 1 in at most k groups."""
    weights = group_weights(obj, bone_names)
    counts = (weights > 0).sum(axis=1)
    sums = weights.sum(axis=1)
    weighted = np.ones(len(weights), dtype=bool)
    weighted[list(unweighted)] = False
    assert np.all(counts[weighted] >= 1), f"{np.count_nonzero(counts[weighted] == 0)} vertices without weight"
    assert np.all(counts <= k), f"a vertex has {counts.max()} influences, more than {k}"
    assert np.abs(sums[weighted] - 1).max() <= 1e-5, f"row sums off by {np.abs(sums[weighted] - 1).max():.2e}"
    assert np.all(sums[~weighted] == 0)
    return weights


def check_pose_against_sinew(mesh, armature, bone_names, weights, k):
    """The Armature modifier's posed mesh against sinew.Skin of the same weights and bone matrices."""
    sinew = sinew_module()
    rest = world_vertices(mesh, evaluated=False)
    posed = world_vertices(mesh)
    order = np.argsort(-weights, axis=1, kind="stable")[:, :k]
    joints = order.astype(np.uint32)
    top = np.take_along_axis(weights, order, axis=1).astype(np.float32)
    arm_world = np.array(armature.matrix_world)
    bones = [armature.data.bones[n] for n in bone_names]
    inverse_bind = np.array([np.linalg.inv(arm_world @ np.array(b.matrix_local)) for b in bones])
    joint_world = np.array([arm_world @ np.array(armature.pose.bones[n].matrix) for n in bone_names])
    skin = sinew.Skin(joints, top, joint_count=len(bones), inverse_bind=inverse_bind, renormalise=True)
    expected = skin.pose(joint_world, rest.astype(np.float32))
    diagonal = np.linalg.norm(rest.max(0) - rest.min(0))
    moved = np.abs(posed - rest).max() / diagonal
    error = np.linalg.norm(posed - expected, axis=1).max() / diagonal
    assert moved > 0.01, f"the pose moved the mesh by only {moved:.2e} of its diagonal"
    assert error <= SKIN_TOLERANCE, f"Armature modifier and sinew.Skin differ by {error:.2e} of the diagonal"
    return error


def parent(objects, armature, **options):
    rigs.select(objects, armature)
    result = bpy.ops.object.sinew_parent_weights("EXEC_DEFAULT", True, **options)
    assert result == {"FINISHED"}, result


def test_parent_arm():
    """The libigl arm and its skeleton: every vertex weighted, the pose matches sinew's skinning."""
    fresh_scene()
    mesh, armature = rigs.arm_rig()
    parent([mesh, armature], armature, influence_count=4, quality="QUALITY")
    names = [b.name for b in armature.data.bones]
    assert mesh.parent == armature and any(m.type == "ARMATURE" and m.object == armature for m in mesh.modifiers)
    weights = check_groups(mesh, names, 4)
    rigs.pose(armature, [0, 35, -50, 25])
    return f"pose error {check_pose_against_sinew(mesh, armature, names, weights, 4):.1e} of the diagonal"


def test_parent_millimetre_arm():
    """The arm at millimetre size (where Blender's bone heat leaves every vertex
    unweighted): weighted everywhere, with the metre-sized arm's weights."""
    fresh_scene()
    metre, metre_armature = rigs.arm_rig()
    parent([metre, metre_armature], metre_armature, influence_count=4, quality="QUALITY")
    small, armature = rigs.arm_rig(0.001)
    parent([small, armature], armature, influence_count=4, quality="QUALITY")
    names = [b.name for b in armature.data.bones]
    weights = check_groups(small, names, 4)
    difference = np.abs(weights - group_weights(metre, names)).max()
    assert difference <= 1e-3, f"the millimetre arm's weights differ from the metre arm's by {difference:.2e}"
    rigs.pose(armature, [10, 30, -40, 20])
    error = check_pose_against_sinew(small, armature, names, weights, 4)
    return f"weights within {difference:.1e} of the metre arm's, pose error {error:.1e}"


def test_parent_bone_subset_and_influences():
    """Two influences and a named subset: only those bones' groups hold weight."""
    fresh_scene()
    mesh, armature = rigs.arm_rig()
    parent([mesh, armature], armature, influence_count=2, quality="QUALITY", bone_names="bone1, bone2")
    weights = check_groups(mesh, ["bone1", "bone2"], 2)
    assert all(g.name in ("bone1", "bone2") for g in mesh.vertex_groups)
    rigs.pose(armature, [0, 40, -30, 0])
    return f"pose error {check_pose_against_sinew(mesh, armature, ['bone1', 'bone2'], weights, 2):.1e}"


def test_parent_gltf_figure():
    """glTF RiggedFigure (19 separate parts) through Blender's importer, its own weights replaced."""
    fresh_scene()
    armature, meshes = rigs.import_gltf("RiggedFigure.gltf")
    parent(meshes + [armature], armature, influence_count=4, quality="FAST")
    names = [b.name for b in armature.data.bones if b.use_deform]
    weights = check_groups(meshes[0], names, 4)
    rigs.pose(armature, [20, -30, 15])
    return f"pose error {check_pose_against_sinew(meshes[0], armature, names, weights, 4):.1e}"


def test_undo_restores_the_mesh():
    """Undo (memfile undo works in background mode once steps are pushed) removes the groups and modifier."""
    fresh_scene()
    mesh, armature = rigs.arm_rig()
    bpy.ops.ed.undo_push(message="before sinew weights")
    parent([mesh, armature], armature, influence_count=4, quality="FAST")
    assert len(bpy.data.objects["arm"].vertex_groups) == 4
    assert bpy.ops.ed.undo() == {"FINISHED"}
    mesh = bpy.data.objects["arm"]  # undo reloads the data: references from before are stale
    assert len(mesh.vertex_groups) == 0 and len(mesh.modifiers) == 0 and mesh.parent is None
    assert bpy.ops.ed.redo() == {"FINISHED"}
    assert len(bpy.data.objects["arm"].vertex_groups) == 4
    return "undo and redo"


def bent(co, degrees):
    """co (n, 3) with the half beyond the middle of its longest axis turned
    about the middle by the angle (a driver pose)."""
    axis = int(np.argmax(co.max(0) - co.min(0)))
    other = (axis + 1) % 3
    middle = (co.max(0)[axis] + co.min(0)[axis]) / 2
    angle = np.radians(degrees)
    out = co.copy()
    d = co[:, axis] - middle
    far = d > 0
    out[far, axis] = middle + d[far] * np.cos(angle)
    out[far, other] = co[far, other] + d[far] * np.sin(angle)
    return out


def set_coordinates(collection, co):
    collection.foreach_set("co", np.asarray(co, dtype=np.float32).ravel())


def direct_wrap(cage_rest, faces, rest, cage_now):
    """sinew.Soffd bound and posed directly: the reference for the add-on's result."""
    sinew = sinew_module()
    soffd = sinew.Soffd(cage_rest, faces)
    soffd.register(rest)
    return soffd.pose(cage_now)


def test_wrap_non_manifold_cage():
    """SOFFD wrap on a cage with an edge of three faces: follows the driver, bakes, survives save/reopen."""
    from sinew_tools import wrap
    fresh_scene()
    mesh, _ = rigs.arm_rig()
    cage = rigs.cage_around(mesh)
    edge_faces = {}
    for p in cage.data.polygons:
        for e in p.edge_keys:
            edge_faces[e] = edge_faces.get(e, 0) + 1
    assert max(edge_faces.values()) == 3, "the cage should have an edge of three faces"
    rest = world_vertices(mesh, evaluated=False)
    cage_rest = world_vertices(cage, evaluated=False)
    faces = [list(p.vertices) for p in cage.data.polygons]
    diagonal = np.linalg.norm(rest.max(0) - rest.min(0))
    rigs.select([mesh, cage], cage)
    assert bpy.ops.object.sinew_wrap_bind("EXEC_DEFAULT", True) == {"FINISHED"}
    assert wrap.stats["bound"] == 1
    # The driver moves: the depsgraph handler updates the wrap key.
    set_coordinates(cage.data.vertices, bent(cage_rest, 30))
    cage.data.update()
    bpy.context.view_layer.update()
    expected = direct_wrap(cage_rest, faces, rest, world_vertices(cage, evaluated=False))
    got = world_vertices(mesh)
    error = np.linalg.norm(got - expected, axis=1).max() / diagonal
    assert np.abs(got - rest).max() > 0.01 * diagonal, "the wrapped mesh did not move"
    assert error <= 1e-5, f"the wrap differs from sinew.Soffd by {error:.2e} of the diagonal"
    # Animate the driver through a shape key and bake three frames.
    cage.shape_key_add(name="Basis", from_mix=False)
    key = cage.shape_key_add(name="bent", from_mix=False)
    set_coordinates(key.data, bent(cage_rest, -40))
    for frame, value in ((1, 0.0), (3, 1.0)):
        key.value = value
        key.keyframe_insert("value", frame=frame)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    rigs.select([mesh], mesh)
    assert bpy.ops.object.sinew_wrap_bake("EXEC_DEFAULT", True) == {"FINISHED"}
    keys = mesh.data.shape_keys.key_blocks
    assert all(f"{wrap.WRAP_KEY} {f:04d}" in keys for f in (1, 2, 3))
    scene.frame_set(2)
    driver_at_2 = world_vertices(cage)
    assert np.abs(driver_at_2 - cage_rest).max() > 0.01 * diagonal, "the driver is at rest on frame 2"
    expected_2 = direct_wrap(cage_rest, faces, rest, driver_at_2)
    error_2 = np.linalg.norm(world_vertices(mesh) - expected_2, axis=1).max() / diagonal
    assert error_2 <= 1e-5, f"the baked frame 2 differs by {error_2:.2e}"
    # Save, reopen: the binding is loaded from the file, never made again.
    mesh.sinew_wrap.live = True
    saved = mesh[wrap.WRAP_DATA]
    path = os.path.join(OUT_DIR, "wrap.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    mesh, cage = bpy.data.objects["arm"], bpy.data.objects["arm cage"]
    assert mesh[wrap.WRAP_DATA] == saved and mesh.sinew_wrap.driver == cage
    loaded = wrap.stats["loaded"]
    bpy.context.scene.frame_set(3)
    assert wrap.stats["bound"] == 1, "reopening the file bound again"
    assert wrap.stats["loaded"] == loaded + 1, "the binding was not loaded from the file"
    expected_3 = direct_wrap(cage_rest, faces, rest, world_vertices(cage))
    assert np.abs(expected_3 - rest).max() > 0.01 * diagonal, "the driver is at rest on frame 3"
    live = bpy.context.evaluated_depsgraph_get()
    error_3 = np.linalg.norm(wrap.deformed(mesh, live) - expected_3, axis=1).max() / diagonal
    assert error_3 <= 1e-5, f"the reloaded wrap differs by {error_3:.2e}"
    return f"wrap error {error:.1e}, baked {error_2:.1e}, reloaded {error_3:.1e}"


def add_lattice(around, rotation_degrees=(0.0, 0.0, 0.0)):
    """A 4x4x4 lattice object over the mesh's box (enlarged by a tenth), turned by the given angles."""
    data = bpy.data.lattices.new("lattice")
    data.points_u = data.points_v = data.points_w = 4
    obj = bpy.data.objects.new("lattice", data)
    bpy.context.scene.collection.objects.link(obj)
    co = world_vertices(around, evaluated=False)
    obj.location = (co.max(0) + co.min(0)) / 2
    obj.scale = (co.max(0) - co.min(0)) * 1.1 + 1e-3
    obj.rotation_euler = np.radians(rotation_degrees)
    bpy.context.view_layer.update()
    return obj


def bake_lattice(mesh, lattice, tolerance=1e-3):
    rigs.select([mesh, lattice], lattice)
    assert bpy.ops.object.sinew_lattice_bake("EXEC_DEFAULT", True, tolerance=tolerance) == {"FINISHED"}
    baked = bpy.data.objects[mesh.name + " (sinew lattice)"]
    positions = world_vertices(baked, evaluated=False)
    triangles = len(baked.data.polygons)
    data = baked.data
    bpy.data.objects.remove(baked)
    bpy.data.meshes.remove(data)
    return positions, triangles


def test_lattice_bake():
    """The lattice bake: untouched, the mesh as it was; every point moved by one vector (in the lattice's
    turned and scaled frame), the mesh moved by it; bent, refined within the tolerance."""
    fresh_scene()
    mesh, _ = rigs.arm_rig()
    rest = world_vertices(mesh, evaluated=False)
    input_triangles = len(mesh.data.polygons)
    lattice = add_lattice(mesh, (20.0, -10.0, 35.0))
    positions, triangles = bake_lattice(mesh, lattice)
    assert triangles == input_triangles and np.abs(positions - rest).max() <= 1e-6, "an untouched lattice moved"
    local = np.array([0.1, -0.05, 0.2])
    for point in lattice.data.points:
        point.co_deform = np.array(point.co) + local
    shift = np.array(lattice.matrix_world)[:3, :3] @ local
    positions, triangles = bake_lattice(mesh, lattice)
    error = np.abs(positions - (rest + shift)).max()
    assert triangles == input_triangles and error <= 1e-5, f"a translated lattice is off by {error:.2e}"
    lattice.rotation_euler = (0.0, 0.0, 0.0)
    for point in lattice.data.points:
        x = point.co[0]
        point.co_deform = (x, point.co[1] + 0.6 * x * x, point.co[2] - 0.8 * x * abs(x))
    bpy.context.view_layer.update()
    positions, triangles = bake_lattice(mesh, lattice, tolerance=1e-4)
    assert triangles > input_triangles, "the bent lattice refined nothing"
    diagonal = np.linalg.norm(rest.max(0) - rest.min(0))
    moved = np.abs(positions[:len(rest)] - rest).max() / diagonal
    assert moved > 0.05, f"the bent lattice moved the mesh by {moved:.2e} of its diagonal only"
    from sinew_tools import lattice_bake
    tolerance = 1e-4 * np.linalg.norm(np.array(mesh.dimensions))
    baked, refinement = lattice_bake.bake(mesh, lattice, tolerance)
    assert refinement.max_error <= tolerance, f"edge error {refinement.max_error:.3g} above {tolerance:.3g}"
    assert np.abs(world_vertices(baked, evaluated=False) - positions).max() == 0.0
    return f"{input_triangles} triangles refined to {triangles}"


def main():
    failures = 0
    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_") and callable(f)]
    only = os.environ.get("SINEW_BLENDER_TESTS")
    for name, test in tests:
        if only and name not in only.split(","):
            continue
        start = time.perf_counter()
        try:
            note = test()
            print(f"ok   {name} ({time.perf_counter() - start:.1f} s): {note}", flush=True)
        except Exception:
            failures += 1
            print(f"FAIL {name} ({time.perf_counter() - start:.1f} s)", flush=True)
            traceback.print_exc()
    print(f"{len(tests) - failures if not only else '?'} passed, {failures} failed", flush=True)
    sys.exit(1 if failures else 0)


main()
