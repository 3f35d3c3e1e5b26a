"""Scenes the Blender tests and the documentation's pictures are made of:
the libigl arm with its arm.tgf skeleton, a glTF character, a non-manifold
cage. Runs inside Blender."""
import os

import bpy
import numpy as np


def data_dir():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.environ.get("SINEW_DATA_DIR") or os.path.join(here, "..", "..", "..", "..", "shared", "data")


def read_obj(path):
    """(vertices (V, 3), faces (lists of 0-based indices)) of an OBJ file, in file order."""
    vertices, faces = [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "v":
                vertices.append([float(x) for x in parts[1:4]])
            elif parts[0] == "f":
                faces.append([int(p.split("/")[0]) - 1 for p in parts[1:]])
    return np.array(vertices), faces


def read_tgf(path):
    """(joints (J, 3), bones (B, 2) 0-based) of a TGF skeleton (libigl's format)."""
    joints, bones, section = [], [], 0
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] == "#":
                section += 1
            elif parts and section == 0:
                joints.append([float(x) for x in parts[1:4]])
            elif parts and section == 1:
                bones.append([int(parts[0]) - 1, int(parts[1]) - 1])
    return np.array(joints), np.array(bones)


def add_mesh(name, vertices, faces, scale=1.0):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata((np.asarray(vertices) * scale).tolist(), [], [list(f) for f in faces])
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def add_armature(name, joints, bones, scale=1.0):
    """An armature with one bone per TGF bone, chained where a bone starts at another's end."""
    data = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    edit = {}
    for i, (a, b) in enumerate(bones):
        bone = data.edit_bones.new(f"bone{i}")
        bone.head = joints[a] * scale
        bone.tail = joints[b] * scale
        edit[i] = bone
    for i, (a, _) in enumerate(bones):
        parent = next((j for j, (_, b) in enumerate(bones) if b == a), None)
        if parent is not None:
            edit[i].parent = edit[parent]
            edit[i].use_connect = True
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def arm_rig(scale=1.0):
    """The libigl arm (8,311 vertices) and its 4-bone skeleton, scaled."""
    folder = os.path.join(data_dir(), "libigl-tutorial-data")
    vertices, faces = read_obj(os.path.join(folder, "arm.obj"))
    joints, bones = read_tgf(os.path.join(folder, "arm.tgf"))
    return add_mesh("arm", vertices, faces, scale), add_armature("arm skeleton", joints, bones, scale)


def import_gltf(name):
    """Imports a glTF file of the data set with Blender's importer; returns (armature, meshes)."""
    import numpy
    # Debian's Blender 3.4 importer calls np.bool, which numpy 1.24 removed (docs/blender.md).
    if "bool" not in numpy.__dict__:
        numpy.bool = bool
    before = set(bpy.data.objects)
    bpy.ops.import_scene.gltf(filepath=os.path.join(data_dir(), "gltf", name))
    new = [o for o in bpy.data.objects if o not in before]
    armature = next(o for o in new if o.type == "ARMATURE")
    return armature, [o for o in new if o.type == "MESH"]


def select(objects, active):
    bpy.ops.object.select_all(action="DESELECT")
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = active


def pose(armature, angles_degrees):
    """Bends every bone about its local x axis by the given angles (cycled)."""
    for i, bone in enumerate(armature.pose.bones):
        bone.rotation_mode = "XYZ"
        bone.rotation_euler = (np.radians(angles_degrees[i % len(angles_degrees)]), 0.0, 0.0)
    bpy.context.view_layer.update()


def cage_around(obj, margin=0.15, fin=True):
    """A box around obj (subdivided along its longest axis, so it bends), plus,
    when fin, a flap sharing one of its edges: three faces on an edge, which
    Surface Deform refuses."""
    co = np.array([v.co for v in obj.data.vertices])
    lo, hi = co.min(0), co.max(0)
    pad = (hi - lo).max() * margin
    lo, hi = lo - pad, hi + pad
    axis = int(np.argmax(hi - lo))
    others = [a for a in range(3) if a != axis]
    steps = 6
    vertices, faces = [], []
    ring = [(0, 0), (1, 0), (1, 1), (0, 1)]
    for s in range(steps + 1):
        for u, v in ring:
            p = np.empty(3)
            p[axis] = lo[axis] + (hi[axis] - lo[axis]) * s / steps
            p[others[0]] = (lo, hi)[u][others[0]]
            p[others[1]] = (lo, hi)[v][others[1]]
            vertices.append(p)
    for s in range(steps):
        for r in range(4):
            a, b = s * 4 + r, s * 4 + (r + 1) % 4
            faces.append([a, b, b + 4, a + 4])
    faces.append([3, 2, 1, 0])
    top = steps * 4
    faces.append([top, top + 1, top + 2, top + 3])
    if fin:
        # A flap on the edge between rings 2 and 3 at corner 0, pointing outwards (down).
        a, b = 2 * 4, 3 * 4
        out = np.zeros(3)
        out[others[1]] = -pad * 2
        vertices += [vertices[a] + out, vertices[b] + out]
        n = len(vertices)
        faces.append([a, b, n - 1, n - 2])
    return add_mesh(obj.name + " cage", vertices, faces)
