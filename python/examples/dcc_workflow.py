"""A DCC-style rigging session in a few lines of Python: read a mesh, click a
few points on it, compute bounded biharmonic weights for them, pose the
handles, skin, and write the result.

1. Reads an OBJ: the one given, else spot.obj from the shared data
   (../shared/data beside the checkout, or $SINEW_DATA_DIR), else a generated
   capsule.
2. "Clicks" handle points on the surface the way an artist would pick them:
   the two ends of the model's longest axis and points spread between them
   (farthest-point picks among the vertices).
3. Fills the surface with voxels (20 along its longest side) and solves BBW weights for those points
   (sinew.Bbw, progress shown), then takes the 4 strongest influences per
   vertex (Bbw.top_k) in the layout sinew.Skin takes.
4. Poses the handles: the first stays, the last turns 35 degrees about the
   model's centre, the ones between follow part of the way, and skins the
   mesh with linear blend skinning.
5. Writes <name>_rest.obj (vertex colours: the dominant handle) and
   <name>_posed.obj into the output folder and prints the figures.

Usage: python3 dcc_workflow.py [output-folder] [mesh.obj]
"""
import os
import sys
import time
from pathlib import Path

import numpy as np

import sinew

HANDLES = 4
PALETTE = np.float32([[0.90, 0.30, 0.20], [0.20, 0.50, 0.90], [0.20, 0.75, 0.30], [0.95, 0.75, 0.10],
                      [0.60, 0.30, 0.80], [0.10, 0.70, 0.70]])


def shared_mesh():
    """spot.obj from the shared data folder, or None."""
    roots = [os.environ.get("SINEW_DATA_DIR"), Path(__file__).resolve().parents[2] / ".." / "shared" / "data"]
    for root in roots:
        if root and (Path(root) / "common-3d-test-models" / "spot.obj").is_file():
            return Path(root) / "common-3d-test-models" / "spot.obj"
    return None


def read_obj(path):
    """Positions and triangles of an OBJ (polygons fanned; texture/normal indices ignored)."""
    vertices, triangles = [], []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if not fields:
                continue
            if fields[0] == "v":
                vertices.append([float(x) for x in fields[1:4]])
            elif fields[0] == "f":
                corners = [int(c.split("/")[0]) for c in fields[1:]]
                corners = [c - 1 if c > 0 else len(vertices) + c for c in corners]
                triangles += [(corners[0], corners[k], corners[k + 1]) for k in range(1, len(corners) - 1)]
    return np.float32(vertices), np.uint32(triangles)


def capsule(length=3.0, radius=0.5, rings=24, sides=16):
    """A closed capsule along x, for when no mesh is at hand."""
    profile = []
    for r in range(rings + 1):
        a = np.pi * r / rings
        x = -np.cos(a) * radius + (length / 2 if r > rings / 2 else -length / 2)
        profile.append((x, np.sin(a) * radius))
    angle = 2 * np.pi * np.arange(sides) / sides
    vertices = [(x, rho * np.cos(t), rho * np.sin(t)) for x, rho in profile[1:-1] for t in angle]
    vertices += [profile[0][:1] + (0, 0), profile[-1][:1] + (0, 0)]
    triangles, n = [], rings - 1
    for r in range(n - 1):
        for s in range(sides):
            a, b = r * sides + s, r * sides + (s + 1) % sides
            triangles += [(a, b + sides, a + sides), (a, b, b + sides)]
    first, last = n * sides, n * sides + 1
    for s in range(sides):
        triangles += [(first, (s + 1) % sides, s),
                      (last, (n - 1) * sides + s, (n - 1) * sides + (s + 1) % sides)]
    return np.float32(vertices), np.uint32(triangles)


def click_points(vertices, count):
    """Points an artist would click: both ends of the longest axis, then the
    vertices farthest from every point picked so far, ordered along the axis."""
    centred = vertices - vertices.mean(axis=0)
    axis = np.linalg.svd(centred, full_matrices=False)[2][0]
    along = centred @ axis
    picked = [int(np.argmin(along)), int(np.argmax(along))]
    distance = np.minimum(np.linalg.norm(vertices - vertices[picked[0]], axis=1),
                          np.linalg.norm(vertices - vertices[picked[1]], axis=1))
    while len(picked) < count:
        picked.append(int(np.argmax(distance)))
        distance = np.minimum(distance, np.linalg.norm(vertices - vertices[picked[-1]], axis=1))
    picked.sort(key=lambda v: along[v])
    return vertices[picked], axis


def rotation(axis, degrees, pivot):
    """4x4 rotation about a line through pivot (numpy convention: M @ (x, y, z, 1))."""
    axis = axis / np.linalg.norm(axis)
    a = np.radians(degrees)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    r = np.eye(3) + np.sin(a) * k + (1 - np.cos(a)) * k @ k
    m = np.eye(4)
    m[:3, :3] = r
    m[:3, 3] = pivot - r @ pivot
    return m.astype(np.float32)


def write_obj(path, vertices, triangles, colours=None):
    with open(path, "w") as f:
        if colours is None:
            f.writelines(f"v {x:.6g} {y:.6g} {z:.6g}\n" for x, y, z in vertices)
        else:
            f.writelines(f"v {x:.6g} {y:.6g} {z:.6g} {r:.3f} {g:.3f} {b:.3f}\n"
                         for (x, y, z), (r, g, b) in zip(vertices, colours))
        f.writelines(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in triangles)


def skin(vertices, joints, weights, matrices):
    """Linear blend skinning of the rest vertices by the handles' matrices
    (bind pose = identity, so each handle's palette entry is its matrix)."""
    rig = sinew.Skin(joints, weights, joint_count=len(matrices))
    return rig.pose(matrices, vertices)


def main(mesh_path, folder):
    folder.mkdir(parents=True, exist_ok=True)
    if mesh_path is not None:
        vertices, triangles = read_obj(mesh_path)
        name = Path(mesh_path).stem
    else:
        vertices, triangles = capsule()
        name = "capsule"
    print(f"{name}: {len(vertices)} vertices, {len(triangles)} triangles")

    clicked, axis = click_points(vertices, HANDLES)
    start = time.perf_counter()
    reports = {}
    # 20 voxels along the longest side and weights to 1e-3 are plenty for skinning (and quick).
    bbw = sinew.Bbw(surface=(vertices, triangles), grid_resolution=20, points=clicked,
                    progress=lambda stage, fraction: reports.__setitem__(stage, fraction))
    info = bbw.solve(tolerance=1e-3, progress=lambda stage, fraction: reports.__setitem__(stage, fraction))
    seconds = time.perf_counter() - start
    print(f"BBW over {info.vertex_count} voxel-domain vertices and {info.element_count} tets, "
          f"{info.handle_count} handles: {'converged' if info.converged else 'stopped'} after "
          f"{info.iterations} iterations in {seconds:.2f} s (stages: {', '.join(reports)})")
    joints, weights = bbw.top_k(4, vertices)
    print(f"top-4 influences per vertex; largest |sum - 1| {np.abs(weights.sum(axis=1) - 1).max():.1e}")

    centre = vertices.mean(axis=0)
    up = np.cross(axis, [0.0, 0.0, 1.0] if abs(axis[2]) < 0.9 else [1.0, 0.0, 0.0])
    matrices = np.stack([rotation(up, 35.0 * k / (HANDLES - 1), centre) for k in range(HANDLES)])
    posed = skin(vertices, joints, weights, matrices)
    moved = np.linalg.norm(posed - vertices, axis=1)
    near_fixed = joints[:, 0] == 0
    print(f"posed: vertices moved up to {moved.max():.3f} (median {np.median(moved):.3f}); those led by the fixed "
          f"handle 0 moved {np.median(moved[near_fixed]) if near_fixed.any() else 0:.3f} (median)")

    write_obj(folder / f"{name}_rest.obj", vertices, triangles, PALETTE[joints[:, 0] % len(PALETTE)])
    write_obj(folder / f"{name}_posed.obj", posed, triangles)
    print(f"wrote {folder / (name + '_rest.obj')} and {folder / (name + '_posed.obj')}")


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    main(Path(sys.argv[2]) if len(sys.argv) > 2 else shared_mesh(), folder)
