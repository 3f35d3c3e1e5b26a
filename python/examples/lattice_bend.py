"""Bends a coarse cylinder a quarter turn with a cubic B-spline lattice, the
Python twin of examples/lattice/bend.c: once moving its vertices only, once
after adaptive refinement to a tolerance, with the fold-over check on the way.

Writes lattice_input.obj, lattice_bent_plain.obj, lattice_bent_refined.obj and
lattice_cage_bent.obj into the folder given (default: the current one), and
prints the figures.

Usage: python3 lattice_bend.py [output-folder]
"""
import math
import sys
from pathlib import Path

import numpy as np

import sinew

LENGTH, RADIUS, SEGMENTS, RINGS = 4.0, 0.5, 10, 5


def cylinder():
    """A closed cylinder along x: RINGS rings of SEGMENTS vertices, capped by fans."""
    angles = 2 * np.pi * np.arange(SEGMENTS) / SEGMENTS
    rings = [np.column_stack([np.full(SEGMENTS, LENGTH * r / (RINGS - 1)), RADIUS * np.cos(angles),
                              RADIUS * np.sin(angles)]) for r in range(RINGS)]
    vertices = np.vstack(rings + [[[0, 0, 0], [LENGTH, 0, 0]]]).astype(np.float32)
    triangles, c0, c1 = [], RINGS * SEGMENTS, RINGS * SEGMENTS + 1
    for r in range(RINGS - 1):
        for s in range(SEGMENTS):
            a, b = r * SEGMENTS + s, r * SEGMENTS + (s + 1) % SEGMENTS
            triangles += [(a, b, b + SEGMENTS), (a, b + SEGMENTS, a + SEGMENTS)]
    last = (RINGS - 1) * SEGMENTS
    for s in range(SEGMENTS):
        triangles += [(c0, (s + 1) % SEGMENTS, s), (c1, last + s, last + (s + 1) % SEGMENTS)]
    return vertices, np.uint32(triangles)


def write_obj(path, vertices, triangles=None, lines=()):
    with open(path, "w") as f:
        f.writelines(f"v {x:.6g} {y:.6g} {z:.6g}\n" for x, y, z in vertices)
        if triangles is not None:
            f.writelines(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in triangles)
        f.writelines(f"l {a + 1} {b + 1}\n" for a, b in lines)


def cage_lines(count):
    """Neighbouring control points along u, v and w (index i + nu * (j + nv * k))."""
    nu, nv, nw = count
    index = lambda i, j, k: i + nu * (j + nv * k)
    lines = []
    for k in range(nw):
        for j in range(nv):
            for i in range(nu):
                if i + 1 < nu: lines.append((index(i, j, k), index(i + 1, j, k)))
                if j + 1 < nv: lines.append((index(i, j, k), index(i, j + 1, k)))
                if k + 1 < nw: lines.append((index(i, j, k), index(i, j, k + 1)))
    return lines


def main(folder):
    folder.mkdir(parents=True, exist_ok=True)
    vertices, triangles = cylinder()
    lattice = sinew.Lattice(count=(7, 4, 4), origin=(0, -1.2 * RADIUS, -1.2 * RADIUS),
                            extents=(LENGTH, 2.4 * RADIUS, 2.4 * RADIUS))
    # Wrap the box a quarter turn around a circle of radius R in the xy plane.
    rest = lattice.rest_points().astype(np.float64)
    bend_radius = 2 * LENGTH / math.pi
    angle = rest[:, 0] / bend_radius
    bent = rest.copy()
    bent[:, 0] = (bend_radius - rest[:, 1]) * np.sin(angle)
    bent[:, 1] = bend_radius - (bend_radius - rest[:, 1]) * np.cos(angle)
    lattice.points = bent

    folds = lattice.check_folds()
    print(f"fold check: {folds.cells_may_fold} of {folds.cell_count} cells may fold, "
          f"smallest sampled det J {folds.min_sampled_det:.3f}")
    plain = lattice.deform(vertices)
    worst = max(lattice.segment_bound(vertices[a], vertices[b])[0] for tri in triangles
                for a, b in ((tri[0], tri[1]), (tri[1], tri[2]), (tri[2], tri[0])))
    print(f"plain: {len(vertices)} vertices, {len(triangles)} triangles, worst edge bound {worst:.4f}")
    refined = lattice.refine(vertices, triangles, tolerance=0.01)
    print(f"refined to 0.01: {refined.vertex_count} vertices, {len(refined.triangles)} triangles in "
          f"{refined.rounds} rounds, largest edge error {refined.max_error:.5f}")

    write_obj(folder / "lattice_input.obj", vertices, triangles)
    write_obj(folder / "lattice_bent_plain.obj", plain, triangles)
    write_obj(folder / "lattice_bent_refined.obj", refined.positions, refined.triangles)
    write_obj(folder / "lattice_cage_bent.obj", lattice.points, lines=cage_lines(lattice.count))
    print(f"wrote 4 OBJ files to {folder}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
