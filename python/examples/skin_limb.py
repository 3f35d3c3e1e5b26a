"""Skinning from Python: a procedural limb (a cylinder along x with an elbow
at its middle) bound to two joints by capsule weights, smoothed, then bent
90 degrees with linear blend and with dual-quaternion skinning.

    PYTHONPATH=build/python python3 python/examples/skin_limb.py [out_dir]

Writes rest.obj, lbs.obj and dqs.obj to out_dir (default out/python-skin)
and prints how much each blend thins the elbow."""

import pathlib
import sys

import numpy as np

import sinew


def cylinder(length=2.0, radius=0.25, rings=41, sides=16):
    """Positions (rings * sides, 3) and triangles of an open tube along x."""
    x = np.linspace(0.0, length, rings)
    a = np.linspace(0.0, 2.0 * np.pi, sides, endpoint=False)
    positions = np.stack(np.broadcast_arrays(x[:, None], radius * np.cos(a)[None], radius * np.sin(a)[None]), -1)
    triangles = []
    for r in range(rings - 1):
        for s in range(sides):
            a0, a1 = r * sides + s, r * sides + (s + 1) % sides
            b0, b1 = a0 + sides, a1 + sides
            triangles += [(a0, b0, b1), (a0, b1, a1)]
    return positions.reshape(-1, 3).astype(np.float32), np.asarray(triangles, np.uint32)


def write_obj(path, positions, triangles):
    with open(path, "w") as f:
        f.writelines(f"v {p[0]:.6f} {p[1]:.6f} {p[2]:.6f}\n" for p in positions)
        f.writelines(f"f {t[0] + 1} {t[1] + 1} {t[2] + 1}\n" for t in triangles)


def main(out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    positions, triangles = cylinder()
    # Two bones meeting at the elbow (x = 1); capsule radii derived from the mesh.
    capsules = [sinew.Capsule((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 0.0, 0),
                sinew.Capsule((1.0, 0.0, 0.0), (2.0, 0.0, 0.0), 0.0, 1)]
    bound = sinew.capsule_weights(positions, capsules, influence_count=2, unbound="nearest")
    joints, weights = sinew.smooth_weights(positions, triangles, bound.joints, bound.weights, iterations=20)

    # Joint 1 rotates 90 degrees about z around the elbow.
    bend = np.eye(4, dtype=np.float32)
    bend[:2, :2] = [[0.0, -1.0], [1.0, 0.0]]
    to_elbow, from_elbow = np.eye(4, dtype=np.float32), np.eye(4, dtype=np.float32)
    to_elbow[0, 3], from_elbow[0, 3] = 1.0, -1.0
    world = np.stack([np.eye(4, dtype=np.float32), to_elbow @ bend @ from_elbow])

    write_obj(out_dir / "rest.obj", positions, triangles)
    elbow_ring = np.abs(positions[:, 0] - 1.0) < 1e-6
    for blend in ("linear", "dual_quaternion"):
        skin = sinew.Skin(joints, weights, blend=blend)
        posed = skin.pose(world, positions)
        name = "lbs" if blend == "linear" else "dqs"
        write_obj(out_dir / f"{name}.obj", posed, triangles)
        # Distance of the elbow ring from the elbow axis, relative to the rest radius.
        centre = posed[elbow_ring].mean(axis=0)
        thickness = np.linalg.norm(posed[elbow_ring] - centre, axis=1).mean() / 0.25
        print(f"{blend:16s} elbow ring radius: {thickness:.3f} of rest ({skin.info.kernel} kernel)")
    print(f"wrote {out_dir}/rest.obj, lbs.obj, dqs.obj")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "out/python-skin"))
