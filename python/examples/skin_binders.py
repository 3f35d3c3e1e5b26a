"""The skin binders from Python on a tube arm (shoulder, elbow, wrist along
x): point-to-line binding from the bones, bone links on the elbow so that a
150-degree bend keeps its volume, and weights recovered from example poses.

1. sinew.point_to_line_weights binds the tube to its two bones (the midplane
   split at the elbow, blended over a band).
2. sinew.bone_links splits the elbow into 3 links; sinew.link_rotations
   spreads the bend over them. The example prints the area of the elbow's
   cross-section against its rest area with and without links (closed form:
   cos(75 degrees) and cos(25 degrees)).
3. Two example poses are made by skinning with the bound weights;
   sinew.example_weights recovers the weights from them alone.
Writes the bent arm with and without links as OBJ.

Usage: python3 skin_binders.py [output-folder]
"""
import sys
from pathlib import Path

import numpy as np

import sinew

BEND = np.radians(150)


def tube(rings=41, sides=24, length=2.0, radius=0.25):
    """A capped-free tube along x: (rings * sides) vertices, triangles between rings."""
    x = np.linspace(0, length, rings)
    a = 2 * np.pi * np.arange(sides) / sides
    vertices = np.float32([[xi, radius * np.cos(ai), radius * np.sin(ai)] for xi in x for ai in a])
    triangles = []
    for r in range(rings - 1):
        for s in range(sides):
            p, q = r * sides + s, r * sides + (s + 1) % sides
            triangles += [(p, q, q + sides), (p, q + sides, p + sides)]
    return vertices, np.uint32(triangles)


def quaternion_matrix(q, translation=(0, 0, 0)):
    x, y, z, w = np.asarray(q, np.float64)
    m = np.eye(4)
    m[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                 [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                 [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    m[:3, 3] = translation
    return m


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def ring_area(points):
    """Area of a closed planar polygon in 3D."""
    return 0.5 * np.linalg.norm(np.cross(points, np.roll(points, -1, axis=0)).sum(axis=0))


def write_obj(path, vertices, triangles):
    with open(path, "w") as f:
        f.writelines(f"v {x:.6g} {y:.6g} {z:.6g}\n" for x, y, z in vertices)
        f.writelines(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in triangles)


def main(folder):
    folder.mkdir(parents=True, exist_ok=True)
    vertices, triangles = tube()
    elbow_ring = np.flatnonzero(np.isclose(vertices[:, 0], 1.0))

    # 1. Point-to-line binding: upper arm (joint 0), forearm (joint 1, continuing bone 0).
    bones = [sinew.LineBone((0, 0, 0), (1, 0, 0), 0), sinew.LineBone((1, 0, 0), (2, 0, 0), 1, parent=0)]
    bound = sinew.point_to_line_weights(vertices, bones, influence_count=2, blend=0.3)
    shares = bound.weights[elbow_ring][bound.joints[elbow_ring] == 1]
    print(f"point-to-line: {len(vertices)} vertices, {int(((bound.weights > 0).sum(axis=1) > 1).sum())} blended; "
          f"the elbow ring is split {shares.min():.3f} / {1 - shares.min():.3f}")

    # 2. Bone links on the elbow (joint 1); a third joint (the wrist) ends the chain.
    parents = [None, 0, 1]
    inverse_bind = np.tile(np.eye(4, dtype=np.float32), (3, 1, 1))
    inverse_bind[:, 0, 3] = [0, -1, -2]
    rotation = np.append(np.array([0, 0, 1]) * np.sin(BEND / 2), np.cos(BEND / 2))
    plain = sinew.Skin(bound.joints, bound.weights, inverse_bind=inverse_bind)
    world = np.stack([np.eye(4), quaternion_matrix(rotation, (1, 0, 0)),
                      quaternion_matrix(rotation, (1, 0, 0)) @ quaternion_matrix((0, 0, 0, 1), (1, 0, 0))])
    bent_plain = plain.pose(world, vertices)

    links = sinew.bone_links(parents, inverse_bind, 1, bound.joints, bound.weights, range_of_motion=BEND)
    per_link = sinew.link_rotations(rotation, links.bone_axis, links.link_count)
    linked_world = np.tile(np.eye(4), (len(links.parents), 1, 1))
    chain = np.array([0, 0, 0, 1.0])
    for k in range(1, links.link_count + 1):
        chain = qmul(chain, per_link[k - 1])
        joint = 1 if k == links.link_count else len(parents) + k - 1
        linked_world[joint] = quaternion_matrix(chain, (1, 0, 0))
    linked_world[2] = world[2]  # the wrist: the elbow's unsplit transform carries it, as before
    linked = sinew.Skin(links.joints, links.weights, inverse_bind=links.inverse_bind)
    bent_linked = linked.pose(linked_world, vertices)
    rest_area = ring_area(vertices[elbow_ring].astype(np.float64))
    print(f"bone links: elbow split into {links.link_count} links (joints {len(parents)}..{len(links.parents) - 1} "
          f"added), {links.vertices_redistributed} vertices redistributed")
    print(f"elbow cross-section at {np.degrees(BEND):.0f} degrees: "
          f"{ring_area(bent_plain[elbow_ring].astype(np.float64)) / rest_area:.3f} of its area without links "
          f"(cos 75 = {np.cos(BEND / 2):.3f}), "
          f"{ring_area(bent_linked[elbow_ring].astype(np.float64)) / rest_area:.3f} with them "
          f"(cos 25 = {np.cos(BEND / 6):.3f})")
    write_obj(folder / "skin_binders_bent_plain.obj", bent_plain, triangles)
    write_obj(folder / "skin_binders_bent_links.obj", bent_linked, triangles)

    # 3. Weights from examples: two poses skinned with the bound weights (the
    # skinning matrices are world @ inverse bind), recovered from the positions alone.
    poses = [world]
    half = np.append(np.array([0, 1, 0]) * np.sin(0.4), np.cos(0.4))
    poses.append(np.stack([quaternion_matrix(half), quaternion_matrix(qmul(half, half), (np.cos(0.8), 0,
                           -np.sin(0.8))), np.eye(4)]))
    matrices = np.stack([w @ inverse_bind for w in poses])
    examples = [plain.pose(w, vertices) for w in poses]
    recovered = sinew.example_weights(vertices, examples, matrices, influence_count=2)
    dense = np.zeros((len(vertices), 3))
    truth = np.zeros((len(vertices), 3))
    for v in range(len(vertices)):
        np.add.at(dense[v], recovered.joints[v], recovered.weights[v])
        np.add.at(truth[v], bound.joints[v], bound.weights[v])
    print(f"example weights: {'converged' if recovered.converged else recovered.message}; from 2 poses the "
          f"weights come back within {np.abs(dense - truth).max():.1e} (largest residual "
          f"{recovered.max_residual:.1e}, certificate {recovered.kkt_violation:.1e})")
    print(f"wrote {folder / 'skin_binders_bent_plain.obj'} and {folder / 'skin_binders_bent_links.obj'}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
