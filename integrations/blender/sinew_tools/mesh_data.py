"""Blender meshes and armatures as numpy arrays in world space."""
import numpy as np


def world(matrix, points):
    """points (n, 3) mapped by a 4x4 mathutils matrix (float64)."""
    m = np.array(matrix, dtype=np.float64)
    return points @ m[:3, :3].T + m[:3, 3]


def local_from_world(matrix, points):
    """world() inverted: points (n, 3) in world space to the object's space."""
    m = np.linalg.inv(np.array(matrix, dtype=np.float64))
    return points @ m[:3, :3].T + m[:3, 3]


def vertices(mesh):
    """(V, 3) float64 vertex positions of a bpy.types.Mesh, in its object's space."""
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    return co.reshape(-1, 3).astype(np.float64)


def triangles(mesh):
    """(T, 3) uint32 triangles of the mesh's polygons (Blender's own triangulation)."""
    mesh.calc_loop_triangles()
    tris = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int32)
    mesh.loop_triangles.foreach_get("vertices", tris)
    return tris.reshape(-1, 3).astype(np.uint32)


def polygons(mesh):
    """The mesh's polygons as lists of vertex indices (n-gons kept)."""
    return [list(p.vertices) for p in mesh.polygons]


def evaluated_world_vertices(obj, depsgraph):
    """(V, 3) world positions of obj after its modifiers and shape keys."""
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        return world(evaluated.matrix_world, vertices(mesh))
    finally:
        evaluated.to_mesh_clear()


def bone_segments(armature, bones):
    """Joint positions (J, 3) in world space and bones (B, 2) indexing them for
    the given bpy.types.Bone list: a bone's head is its parent's tail when it
    is connected or lies there, so a chain shares its joints."""
    joints = []
    pairs = []
    tail_of = {}
    mw = armature.matrix_world
    scale = max(armature.dimensions) or 1.0
    for bone in bones:
        head = world(mw, np.array([bone.head_local]))[0]
        tail = world(mw, np.array([bone.tail_local]))[0]
        head_index = None
        parent = bone.parent
        if parent is not None and parent.name in tail_of:
            candidate = tail_of[parent.name]
            if bone.use_connect or np.linalg.norm(joints[candidate] - head) <= 1e-6 * scale:
                head_index = candidate
        if head_index is None:
            head_index = len(joints)
            joints.append(head)
        tail_index = len(joints)
        joints.append(tail)
        tail_of[bone.name] = tail_index
        pairs.append((head_index, tail_index))
    return np.array(joints, dtype=np.float64).reshape(-1, 3), np.array(pairs, dtype=np.uint32).reshape(-1, 2)
