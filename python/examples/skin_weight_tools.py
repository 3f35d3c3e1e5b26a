"""The skin weight tools from Python, on a procedural mesh: capsule binding,
pruning to 2 influences, rogue removal and smoothing, with the figures each
step reports, then a save/load round trip of the bound skin.

    PYTHONPATH=build/python python3 python/examples/skin_weight_tools.py"""

import numpy as np

import sinew


def grid(nx=40, ny=10):
    xs, ys = np.meshgrid(np.linspace(0.0, 4.0, nx + 1), np.linspace(0.0, 1.0, ny + 1))
    positions = np.stack([xs.ravel(), ys.ravel(), np.zeros(xs.size)], axis=1).astype(np.float32)
    quads = [(j * (nx + 1) + i, j * (nx + 1) + i + 1, (j + 1) * (nx + 1) + i + 1, (j + 1) * (nx + 1) + i)
             for j in range(ny) for i in range(nx)]
    triangles = np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))], np.uint32)
    return positions, triangles


def main():
    positions, triangles = grid()
    capsules = [sinew.Capsule((x, 0.5, 0.0), (x + 1.0, 0.5, 0.0), 0.6, i) for i, x in enumerate(range(4))]
    bound = sinew.capsule_weights(positions, capsules, influence_count=4)
    print(f"capsule binding: {len(positions)} vertices, up to "
          f"{int((bound.weights > 0).sum(axis=1).max())} joints per vertex")

    joints, weights = sinew.prune_weights(bound.joints, bound.weights, 2, min_weight=0.05)
    print(f"pruned to 2 slots: {int((weights > 0).sum())} influences kept")

    # A painting mistake: joint 3 on a vertex at the far left end.
    weights[0] = [0.6, 0.4]
    joints[0] = [0, 3]
    rogues = sinew.remove_rogues(positions, triangles, joints, weights)
    print(f"rogue removal: {rogues.influences_removed} influence(s) cut, "
          f"{rogues.vertices_reattached} vertex(es) reattached")

    joints, weights = sinew.smooth_weights(positions, triangles, rogues.joints, rogues.weights, iterations=5)
    print(f"smoothed: rows sum to 1 within {np.abs(weights.sum(axis=1) - 1.0).max():.1e}")

    skin = sinew.Skin(joints, weights, joint_count=4, storage="compressed")
    data = skin.save()
    again = sinew.load(data)
    world = np.tile(np.eye(4, dtype=np.float32), (4, 1, 1))
    world[3, 1, 3] = 0.5  # lift the last joint
    same = np.array_equal(skin.pose(world, positions), again.pose(world, positions))
    print(f"saved {len(data)} bytes; the loaded skin deforms to the same bits: {same}")


if __name__ == "__main__":
    main()
