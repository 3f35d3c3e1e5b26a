"""Bounded biharmonic weights on a 2D shape with all three handle kinds (two
point handles, one bone, one closed cage), the Python twin of
examples/bbw/bbw_2d.c. The shape is a 4 x 2 rectangle with a notch cut into
its top edge, so the weights have to flow around a concavity.

Writes bbw_2d_weights.obj: the domain with per-vertex colours (each handle's
colour mixed by its weight; OBJ's "v x y z r g b" extension), prints the
solve's figures and, per handle, its largest and mean weight and the share of
the shape it dominates.

Usage: python3 bbw_2d.py [output-folder]
"""
import sys
from pathlib import Path

import numpy as np

import sinew

NX, NY = 48, 24
COLOURS = np.float32([[0.90, 0.30, 0.20], [0.20, 0.50, 0.90], [0.20, 0.75, 0.30], [0.95, 0.75, 0.10],
                      [0.60, 0.30, 0.80], [0.10, 0.70, 0.70], [0.90, 0.50, 0.70]])


def notched_rectangle():
    xs, ys = np.linspace(0, 4, NX + 1), np.linspace(0, 2, NY + 1)
    vertices = np.float32([[x, y, 0] for y in ys for x in xs])
    triangles = []
    for j in range(NY):
        for i in range(NX):
            cx, cy = (i + 0.5) * 4 / NX, (j + 0.5) * 2 / NY
            if 1.5 < cx < 2.5 and cy > 1.0:
                continue  # the notch
            a = j * (NX + 1) + i
            triangles += [(a, a + 1, a + NX + 2), (a, a + NX + 2, a + NX + 1)]
    return vertices, np.uint32(triangles)


def main(folder):
    folder.mkdir(parents=True, exist_ok=True)
    vertices, triangles = notched_rectangle()
    cage = sinew.Cage(vertices=[[2.75, 0.25, 0], [3.75, 0.25, 0], [3.75, 0.75, 0], [2.75, 0.75, 0]],
                      edges=[[0, 1], [1, 2], [2, 3], [3, 0]])
    bbw = sinew.Bbw(triangles=(vertices, triangles), points=[[0.5, 0.5, 0], [3.5, 1.5, 0]],
                    joint_positions=[[1.0, 1.5, 0], [1.0, 0.5, 0]], bones=[[0, 1]], cages=[cage])
    stages = {}

    def progress(stage, fraction):
        """Counts the reports of each stage (a host would update its progress bar here)."""
        stages[stage] = stages.get(stage, 0) + 1

    info = bbw.solve(progress=progress)
    print("progress reports: " + ", ".join(f"{stage} x{count}" for stage, count in stages.items()))
    print(f"{info.vertex_count} vertices, {info.element_count} triangles, {info.handle_count} handles "
          f"({info.unreached_vertex_count} vertices in the notch unreached); "
          f"{'converged' if info.converged else 'stopped'} after {info.iterations} iterations, "
          f"certified RMS error {info.error_bound:.1e}")
    weights = bbw.vertex_weights()
    reached = weights.sum(axis=1) > 0
    names = ["point 0", "point 1", "bone", "cage vertex 0", "cage vertex 1", "cage vertex 2", "cage vertex 3"]
    dominant = np.argmax(weights[reached], axis=1)
    for j, name in enumerate(names):
        print(f"handle {j} ({name}): max {weights[reached, j].max():.3f}, mean {weights[reached, j].mean():.3f}, "
              f"dominates {np.mean(dominant == j):.0%} of the vertices")
    print(f"partition of unity: largest |sum - 1| {np.abs(weights[reached].sum(axis=1) - 1).max():.1e}")
    colours = weights @ COLOURS
    with open(folder / "bbw_2d_weights.obj", "w") as f:
        f.writelines(f"v {x:.6g} {y:.6g} {z:.6g} {r:.3f} {g:.3f} {b:.3f}\n"
                     for (x, y, z), (r, g, b) in zip(vertices, colours))
        f.writelines(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in triangles)
    print(f"wrote {folder / 'bbw_2d_weights.obj'}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
