"""Lays a procedural snake over a staircase and over a bumpy terrain along a
sketched path, without and with the mass-spring relaxation of the contact
layer (Schein & Elber §3): the Python twin of examples/placement/placement_snake.c.

Writes placement_<scene>_scene.obj, placement_<scene>_snake.obj (raw ray hits)
and placement_<scene>_snake_springs.obj (relaxed) into the folder given
(default: the current one) and prints each placement's figures.

Usage: python3 placement_snake.py [output-folder]
"""
import sys
import time
from pathlib import Path

import numpy as np

import sinew

SNAKE_LENGTH, SNAKE_RADIUS, RINGS, SIDES = 6.0, 0.22, 96, 12


def staircase():
    """Treads 1.2 wide rising 0.35 per step for x in [0, 8.4], with risers."""
    height = lambda x: 0.35 * min(max(np.floor(x / 1.2), 0), 7)
    vertices, triangles = [], []
    for k in range(-2, 10):
        x0, x1 = 1.2 * k, 1.2 * (k + 1)
        z, z_next = height(x0 + 0.6), height(x1 + 0.6)
        quads = [[(x0, -3, z), (x1, -3, z), (x1, 3, z), (x0, 3, z)]]
        if z_next != z:
            quads.append([(x1, -3, z), (x1, 3, z), (x1, 3, z_next), (x1, -3, z_next)])
        for quad in quads:
            first = len(vertices)
            vertices += quad
            triangles += [(first, first + 1, first + 2), (first, first + 2, first + 3)]
    return np.float32(vertices), np.uint32(triangles)


def bumpy(n=96, lo=-9.0, hi=9.0):
    xs = np.linspace(lo, hi, n + 1)
    x, y = np.meshgrid(xs, xs)
    z = (0.45 * np.sin(0.9 * x) * np.cos(0.7 * y) + 0.3 * np.sin(0.35 * x + 1.1 * y)
         + 0.6 * np.exp(-((x - 1) ** 2 + y ** 2)))
    vertices = np.column_stack([x.ravel(), y.ravel(), z.ravel()]).astype(np.float32)
    a = (np.arange(n)[None, :] + (n + 1) * np.arange(n)[:, None]).ravel()
    triangles = np.concatenate([np.column_stack([a, a + 1, a + n + 2]), np.column_stack([a, a + n + 2, a + n + 1])])
    return vertices, triangles.astype(np.uint32)


def snake():
    """A tube along x in [0, SNAKE_LENGTH] resting on z = 0, tapered and wiggling sideways."""
    t = np.linspace(0, 1, RINGS)[:, None]
    radius = SNAKE_RADIUS * (0.35 + 0.65 * np.sin(np.pi * np.minimum(1.0, 1.15 * t + 0.08)))
    wiggle = 0.25 * np.sin(3 * np.pi * t)
    angle = 2 * np.pi * np.arange(SIDES)[None, :] / SIDES
    vertices = np.stack([np.broadcast_to(t * SNAKE_LENGTH, (RINGS, SIDES)), wiggle + radius * np.cos(angle),
                         SNAKE_RADIUS + radius * np.sin(angle)], axis=-1).reshape(-1, 3).astype(np.float32)
    triangles = []
    for r in range(RINGS - 1):
        for s in range(SIDES):
            a, b = r * SIDES + s, r * SIDES + (s + 1) % SIDES
            triangles += [(a, b, b + SIDES), (a, b + SIDES, a + SIDES)]
    return vertices, np.uint32(triangles)


def write_obj(path, vertices, triangles):
    with open(path, "w") as f:
        f.writelines(f"v {x:.6g} {y:.6g} {z:.6g}\n" for x, y, z in vertices)
        f.writelines(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in triangles)


def run(folder, name, scene, path, offset, springs, **options):
    model, model_triangles = snake()
    start = time.perf_counter()
    placement = sinew.Placement(path, *scene, width=SNAKE_RADIUS + 0.25, height=2 * SNAKE_RADIUS, **options)
    built = time.perf_counter() - start
    info = placement.info
    print(f"{name}: {info.rays_cast} rays ({info.misses} contact misses) in {1e3 * built:.1f} ms, "
          f"path {info.path_length:.2f}, contact length {info.contact_length:.2f}, "
          f"lattice {'x'.join(map(str, info.count))}")
    write_obj(folder / f"placement_{name}_scene.obj", *scene)
    box_min, box_max = model.min(axis=0), model.max(axis=0)
    for suffix in ("", "_springs"):
        if suffix:
            report = placement.relax(**springs)
            state = "converged" if report.converged else "stopped"
            print(f"{name}: springs: {state} after {report.steps} steps (dt {report.time_step:.3f}), "
                  f"largest lift {report.max_lift:.3f}")
        mapping = placement.map_model(box_min, box_max, offset=offset)
        start = time.perf_counter()
        laid = placement.deform(model, mapping)
        seconds = time.perf_counter() - start
        folds = placement.lattice.check_folds()
        print(f"{name}{suffix}: snake of {len(model)} vertices laid in {1e3 * seconds:.2f} ms; "
              f"{folds.cells_may_fold} of {folds.cell_count} lattice cells may fold")
        write_obj(folder / f"placement_{name}_snake{suffix}.obj", laid, model_triangles)


def main(folder):
    folder.mkdir(parents=True, exist_ok=True)
    run(folder, "staircase", staircase(), np.float32([[-1.5, 0, 6], [9.5, 0, 6]]), 0.35, {"neighbourhood": 3},
        count=(48, 6, 0))
    # Smooth terrain: a finer angle criterion and a wider neighbourhood let the springs span the valleys.
    curve = np.float32([[-7, -2, 5], [-3, 2, 5], [1, -1.5, 5], [4, 2, 5], [7, 0, 5]])
    run(folder, "bumpy", bumpy(), curve, 0.3, {"angle_degrees": 3, "neighbourhood": 6}, path_kind="bspline",
        count=(64, 6, 0))
    print(f"wrote 6 OBJ files to {folder}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
