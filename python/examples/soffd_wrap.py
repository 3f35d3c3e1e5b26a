"""SOFFD from Python: a coarse driver tube (what an artist animates) wraps a
fine skin tube. The driver bends; the skin follows through the basic
algorithm (element frames) and the extended one (per-vertex frames), with
normals. Registration reports progress; Ctrl-C cancels it.

    PYTHONPATH=build/python python3 python/examples/soffd_wrap.py [out_dir]

Writes driver_posed.obj, skin_basic.obj and skin_extended.obj to out_dir
(default out/python-soffd)."""

import pathlib
import sys

import numpy as np

import sinew


def tube(rings, sides, radius, length=2.0):
    x = np.linspace(0.0, length, rings)
    a = np.linspace(0.0, 2.0 * np.pi, sides, endpoint=False)
    p = np.stack(np.broadcast_arrays(x[:, None], radius * np.cos(a)[None], radius * np.sin(a)[None]), -1)
    quads = [(r * sides + s, r * sides + (s + 1) % sides, (r + 1) * sides + (s + 1) % sides, (r + 1) * sides + s)
             for r in range(rings - 1) for s in range(sides)]
    return p.reshape(-1, 3).astype(np.float32), quads


def bend(points, angle=np.pi / 2, start=1.0):
    """Bends the part of the tube beyond x = start into an arc about the z
    axis (lengths along the axis kept)."""
    out = points.copy()
    beyond = points[:, 0] > start
    r = (points[:, 0].max() - start) / angle  # arc radius
    a = (points[beyond, 0] - start) / r
    y = points[beyond, 1]
    out[beyond, 0] = start + (r - y) * np.sin(a)
    out[beyond, 1] = r - (r - y) * np.cos(a)
    return out


def write_obj(path, positions, faces):
    with open(path, "w") as f:
        f.writelines(f"v {p[0]:.6f} {p[1]:.6f} {p[2]:.6f}\n" for p in positions)
        f.writelines("f " + " ".join(str(i + 1) for i in face) + "\n" for face in faces)


def main(out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    driver, driver_quads = tube(9, 8, 0.35)
    skin, skin_quads = tube(81, 32, 0.25)
    normals = skin * [0.0, 1.0, 1.0]  # outward, unnormalised (fine: the deform normalises)

    soffd = sinew.Soffd(driver, driver_quads)  # quads are triangulated
    soffd.register(skin,  # the defaults: each point's significant elements
                   progress=lambda stage, fraction: print(f"\r{stage}: {fraction:4.0%}", end="", flush=True))
    info = soffd.info
    print(f"\n{info.element_count} elements, {info.point_count} points, "
          f"{info.contribution_count / info.point_count:.1f} contributors per point")

    posed_driver = bend(driver)
    basic, basic_normals = soffd.deform(soffd.element_frames(posed_driver), normals)
    extended, _ = soffd.deform_extended(soffd.vertex_frames(posed_driver), normals)
    write_obj(out_dir / "driver_posed.obj", posed_driver, driver_quads)
    write_obj(out_dir / "skin_basic.obj", basic, skin_quads)
    write_obj(out_dir / "skin_extended.obj", extended, skin_quads)
    print(f"basic vs extended: max difference {np.abs(basic - extended).max():.4f}; "
          f"normals unit length within {np.abs(np.linalg.norm(basic_normals, axis=1) - 1).max():.1e}")

    # The binding survives a save/load (e.g. cached between DCC sessions).
    again = sinew.Soffd.load(soffd.save())
    assert np.array_equal(again.pose(posed_driver), soffd.pose(posed_driver))
    print(f"wrote {out_dir}/driver_posed.obj, skin_basic.obj, skin_extended.obj")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "out/python-soffd"))
