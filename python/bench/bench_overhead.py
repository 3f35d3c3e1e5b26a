"""Per-call overhead of a small deform from Python against the same C call.

Prints "python/<case>: X us/call (C call: Y us/call)": X through Skin.deform
with a preallocated output (what a DCC loop does each frame), Y the same
sinew_skin_deform timed in a C loop over the same arrays; X - Y is the
binding's cost per call. Best of several rounds, to keep scheduling noise out.

Then one BbwPose.solve per frame (a dragged handle, one fixed) against the
extension's bbw_pose_solve given ready arrays: the difference is what the
friendly layer costs (reading the targets dict, the warm start, the scratch)."""

import time

import numpy as np

import sinew
from sinew import _sinew


def small_skin(vertices):
    rng = np.random.default_rng(1)
    positions = rng.standard_normal((vertices, 3)).astype(np.float32)
    joints = rng.integers(0, 4, (vertices, 4)).astype(np.uint16)
    weights = rng.random((vertices, 4)).astype(np.float32)
    weights /= weights.sum(axis=1, keepdims=True)
    skin = sinew.Skin(joints, weights, joint_count=4, renormalise=True)
    world = np.stack([np.eye(4, dtype=np.float32)] * 4)
    world[:, :3, 3] = rng.standard_normal((4, 3))
    return skin, skin.palette(world), positions


def best_us(fn, calls, rounds=7):
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e6


def main():
    for name, vertices in (("skin-deform-small", 64), ("skin-deform-1k", 1024)):
        skin, palette, positions = small_skin(vertices)
        out = np.empty_like(positions)
        calls = 20000 if vertices <= 64 else 5000
        python_us = best_us(lambda: skin.deform(palette, positions, out=out), calls)
        raw_us = best_us(lambda: _sinew.skin_deform(skin._handle, palette, positions, out=out), calls)
        c_us = min(_sinew._skin_time_deform(skin._handle, palette, positions, out, calls) for _ in range(7)) * 1e6
        print(f"python/{name}: {python_us:.2f} us/call (C call: {c_us:.2f} us/call; "
              f"sinew._sinew.skin_deform: {raw_us:.2f} us/call; {vertices} vertices, 4 influences)")

    bar_solve()


def bar_solve():
    """A 6 x 1 bar (24 x 4 cells, 192 triangles), three point handles."""
    xs, ys = np.linspace(0, 6, 25), np.linspace(0, 1, 5)
    vertices = np.float32([[x, y, 0] for y in ys for x in xs])
    triangles = np.uint32([t for j in range(4) for i in range(24) for a in [j * 25 + i]
                           for t in ((a, a + 1, a + 26), (a, a + 26, a + 25))])
    handles = np.float32([[0, 0.5, 0], [3, 0.5, 0], [6, 0.5, 0]])
    bbw = sinew.Bbw(triangles=(vertices, triangles), points=handles)
    bbw.solve()
    pose = sinew.BbwPose(bbw)
    targets = {0: np.eye(4), 2: (handles[2], (5.0, 3.0, 0.0))}
    first = pose.solve(targets)
    start = np.copy(first, order="K")
    fixed = np.uint8([1, 0, 0])
    scratch = bytearray(pose.scratch_size(1))
    out = np.copy(first, order="K")
    python_us = best_us(lambda: pose.solve(targets), 2000)
    raw_us = best_us(lambda: _sinew.bbw_pose_solve(pose._handle, scratch, start, fixed, np.uint32([2]),
                                                   handles[2:], np.float32([[5, 3, 0]]), out=out), 2000)
    print(f"python/bbw-pose-solve: {python_us:.1f} us/call (sinew._sinew.bbw_pose_solve: {raw_us:.1f} us/call; "
          f"192 triangles, 3 handles, 5 iterations)")


if __name__ == "__main__":
    main()
