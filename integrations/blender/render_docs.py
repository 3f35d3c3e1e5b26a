"""Renders docs/blender.md's pictures with Blender itself (Cycles on the CPU,
few samples), headless:

    SINEW_PYTHONPATH=build/python SINEW_DATA_DIR=../shared/data \\
        blender -b --factory-startup --python integrations/blender/render_docs.py -- docs/images
"""
import os
import sys

import bpy
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "tests"))
import rigs  # noqa: E402
import sinew_tools  # noqa: E402

OUT = os.path.abspath(sys.argv[sys.argv.index("--") + 1] if "--" in sys.argv else ".")
# One colour per bone for the weight pictures (a vertex's colour is its weights' mix).
BONE_COLOURS = np.array([[0.9, 0.25, 0.2], [0.95, 0.75, 0.15], [0.2, 0.7, 0.35], [0.2, 0.45, 0.9],
                         [0.65, 0.3, 0.85], [0.1, 0.75, 0.8]])
GREY = np.array([0.55, 0.55, 0.55])


def fresh_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = 12
    scene.cycles.use_denoising = False
    scene.render.resolution_x, scene.render.resolution_y = 720, 300
    scene.render.image_settings.color_depth = "8"
    scene.render.image_settings.compression = 100
    world = bpy.data.worlds.new("world")
    world.color = (0.9, 0.9, 0.92)
    scene.world = world
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs[0].default_value = (0.85, 0.86, 0.9, 1.0)
    world.node_tree.nodes["Background"].inputs[1].default_value = 0.6
    sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", "SUN"))
    sun.data.energy = 3.0
    sun.rotation_euler = (np.radians(50), np.radians(10), np.radians(30))
    scene.collection.objects.link(sun)
    return scene


def colour_by_weights(obj, bone_names):
    """A colour attribute mixing the bones' colours by the vertex group weights (grey: no weight)."""
    weights = np.zeros((len(obj.data.vertices), len(bone_names)))
    lookup = {obj.vertex_groups[n].index: i for i, n in enumerate(bone_names) if n in obj.vertex_groups}
    for v in obj.data.vertices:
        for g in v.groups:
            if g.group in lookup:
                weights[v.index, lookup[g.group]] = g.weight
    colours = weights @ BONE_COLOURS[np.arange(len(bone_names)) % len(BONE_COLOURS)]
    colours[weights.sum(1) == 0] = GREY
    attribute = obj.data.color_attributes.new("weights", "FLOAT_COLOR", "POINT")
    rgba = np.hstack([colours, np.ones((len(colours), 1))]).astype(np.float32)
    attribute.data.foreach_set("color", rgba.ravel())
    obj.data.materials.clear()
    material = bpy.data.materials.new(obj.name + " weights")
    material.use_nodes = True
    nodes = material.node_tree.nodes
    colour = nodes.new("ShaderNodeAttribute")
    colour.attribute_name = "weights"
    material.node_tree.links.new(colour.outputs["Color"], nodes["Principled BSDF"].inputs["Base Color"])
    obj.data.materials.append(material)
    for polygon in obj.data.polygons:
        polygon.use_smooth = True


def flat_material(obj, rgb, alpha=1.0):
    material = bpy.data.materials.new(obj.name + " flat")
    material.use_nodes = True
    bsdf = material.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*rgb, 1.0)
    obj.data.materials.append(material)


def camera_on(objects, scene, direction=(0.0, -1.0, 0.0), margin=1.1):
    """An orthographic camera looking along direction at the objects' evaluated bounding box."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    points = []
    for obj in objects:
        evaluated = obj.evaluated_get(depsgraph)
        points += [evaluated.matrix_world @ v.co for v in evaluated.to_mesh().vertices]
        evaluated.to_mesh_clear()
    points = np.array(points)
    lo, hi = points.min(0), points.max(0)
    centre = (lo + hi) / 2
    camera = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    camera.data.type = "ORTHO"
    d = np.asarray(direction, dtype=float)
    camera.location = centre - d * np.linalg.norm(hi - lo) * 2
    from mathutils import Vector
    camera.rotation_euler = Vector(d).to_track_quat("-Z", "Z").to_euler()
    aspect = scene.render.resolution_x / scene.render.resolution_y
    extent = hi - lo
    across = [a for a in range(3) if abs(d[a]) < 0.5]
    width, height = extent[across[0]], extent[across[1]]
    camera.data.ortho_scale = max(width, height * aspect) * margin
    camera.data.clip_end = np.linalg.norm(hi - lo) * 10
    scene.collection.objects.link(camera)
    scene.camera = camera


def render(scene, name):
    scene.render.filepath = os.path.join(OUT, name)
    bpy.ops.render.render(write_still=True)
    print("wrote", scene.render.filepath, os.path.getsize(scene.render.filepath), "bytes")


def millimetre_arm_pair():
    """The libigl arm at millimetre size: bone heat (left) against sinew (right), same pose."""
    scene = fresh_scene()
    results = []
    for offset, method in ((-1.7, "heat"), (0.0, "sinew")):
        mesh, armature = rigs.arm_rig(0.001)
        rigs.select([mesh, armature], armature)
        if method == "heat":
            bpy.ops.object.parent_set(type="ARMATURE_AUTO")
        else:
            bpy.ops.object.sinew_parent_weights(quality="QUALITY")
        colour_by_weights(mesh, [b.name for b in armature.data.bones])
        # Shown at the size of the original arm (the rig scales as one piece).
        armature.scale = (1000.0, 1000.0, 1000.0)
        armature.location = (offset, 0.0, 0.0)
        rigs.pose(armature, [0, 40, -60, 30])
        results.append(mesh)
    camera_on(results, scene)
    render(scene, "blender_weights_millimetre_arm.png")


def figure():
    """glTF RiggedFigure, 19 separate parts, weighted by sinew and posed."""
    scene = fresh_scene()
    scene.render.resolution_x, scene.render.resolution_y = 360, 360
    armature, meshes = rigs.import_gltf("RiggedFigure.gltf")
    rigs.select(meshes + [armature], armature)
    bpy.ops.object.sinew_parent_weights(quality="BALANCED")
    colour_by_weights(meshes[0], [b.name for b in armature.data.bones])
    rigs.pose(armature, [35, -45, 30, -20, 50])
    camera_on(meshes, scene, direction=(0.0, 1.0, 0.0))
    render(scene, "blender_weights_figure.png")


def wrap_on_non_manifold_cage():
    """The arm wrapped by a box with a flap (an edge of three faces), the cage bent."""
    scene = fresh_scene()
    mesh, armature = rigs.arm_rig()
    bpy.data.objects.remove(armature)
    cage = rigs.cage_around(mesh)
    rigs.select([mesh, cage], cage)
    bpy.ops.object.sinew_wrap_bind()
    co = np.array([v.co for v in cage.data.vertices])
    middle = (co[:, 0].max() + co[:, 0].min()) / 2
    angle = np.radians(35)
    for v, p in zip(cage.data.vertices, co):
        d = p[0] - middle
        if d > 0:
            v.co = (middle + d * np.cos(angle), p[1], p[2] + d * np.sin(angle))
    cage.data.update()
    bpy.context.view_layer.update()
    # The cage is drawn by a copy sharing its mesh: a Wireframe modifier on the
    # driver itself would change the vertex count the wrap reads.
    shown = cage.copy()
    scene.collection.objects.link(shown)
    wire = shown.modifiers.new("wire", "WIREFRAME")
    wire.thickness = 0.012
    cage.hide_render = True
    flat_material(shown, (0.15, 0.2, 0.3))
    flat_material(mesh, (0.8, 0.55, 0.45))
    for polygon in mesh.data.polygons:
        polygon.use_smooth = True
    camera_on([mesh, shown], scene, direction=(0.35, -1.0, -0.25), margin=1.05)
    render(scene, "blender_wrap_non_manifold_cage.png")


sinew_tools.register()
millimetre_arm_pair()
figure()
wrap_on_non_manifold_cage()
