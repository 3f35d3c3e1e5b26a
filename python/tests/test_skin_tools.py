"""Skin weight tools from Python: capsule binding, rogues, smoothing, pruning."""

import numpy as np
import pytest

import sinew
from conftest import grid_mesh


def row(joints, weights, v):
    """Vertex v's influences as {joint: weight} (padding slots add nothing)."""
    out = {}
    for j, w in zip(joints[v], weights[v]):
        out[int(j)] = out.get(int(j), 0.0) + float(w)
    return out


def two_capsules():
    return [sinew.Capsule((0.0, 0.5, 0.0), (1.0, 0.5, 0.0), 0.6, 0),
            sinew.Capsule((1.0, 0.5, 0.0), (2.0, 0.5, 0.0), 0.6, 1)]


def test_capsule_weights_partition_of_unity_and_ownership():
    positions, _ = grid_mesh(8, 4)
    result = sinew.capsule_weights(positions, two_capsules(), influence_count=2)
    assert result.joints.shape == (len(positions), 2) and result.joints.dtype == np.uint32
    np.testing.assert_allclose(result.weights.sum(axis=1), 1.0, atol=1e-6)
    assert len(result.unbound) == 0
    # Far ends belong wholly to their own bone.
    left = np.argmin(positions[:, 0] + np.abs(positions[:, 1] - 0.5))
    right = np.argmax(positions[:, 0] - np.abs(positions[:, 1] - 0.5))
    assert result.joints[left, 0] == 0 and result.weights[left, 0] == pytest.approx(1.0)
    assert result.joints[right, 0] == 1 and result.weights[right, 0] == pytest.approx(1.0)
    # Mirror symmetry about x = 1 swaps the joints.
    mirror = {tuple(np.round(p, 4)): i for i, p in enumerate(positions)}
    for i, p in enumerate(positions):
        m = mirror[tuple(np.round([2.0 - p[0], p[1], p[2]], 4))]
        w = row(result.joints, result.weights, i)
        wm = row(result.joints, result.weights, m)
        assert w.get(0, 0.0) == pytest.approx(wm.get(1, 0.0), abs=1e-5)


def test_capsule_weights_report_unbound_vertices():
    positions, _ = grid_mesh(4, 2)
    positions = np.concatenate([positions, [[10.0, 10.0, 10.0]]]).astype(np.float32)
    with pytest.raises(sinew.OutsideDomainError) as caught:
        sinew.capsule_weights(positions, two_capsules())
    assert list(caught.value.unbound) == [len(positions) - 1]
    assert caught.value.code == sinew.Result.OUTSIDE_DOMAIN
    result = sinew.capsule_weights(positions, two_capsules(), unbound="nearest")
    assert list(result.unbound) == [len(positions) - 1]
    assert result.joints[-1, 0] == 1 and result.weights[-1, 0] == pytest.approx(1.0)


def test_prune_matches_a_numpy_reference():
    rng = np.random.default_rng(3)
    joints = np.stack([rng.permutation(8)[:6] for _ in range(50)]).astype(np.uint32)
    weights = rng.random((50, 6)).astype(np.float32)
    j, w = sinew.prune_weights(joints, weights, 3)
    order = np.argsort(-weights, axis=1, kind="stable")[:, :3]
    expected_w = np.take_along_axis(weights, order, axis=1)
    expected_w /= expected_w.sum(axis=1, keepdims=True)
    np.testing.assert_array_equal(j, np.take_along_axis(joints, order, axis=1))
    np.testing.assert_allclose(w, expected_w, rtol=1e-5)
    with pytest.raises(sinew.InvalidArgumentError, match=r"weights: expected an array of shape \(50, 6\)"):
        sinew.prune_weights(joints, weights[:, :5], 3)
    bad = weights.copy()
    bad[7, 2] = -1.0
    with pytest.raises(sinew.InvalidWeightsError, match="7"):
        sinew.prune_weights(joints, bad, 3)


def test_smooth_keeps_rows_summing_to_one_and_inputs_untouched():
    positions, triangles = grid_mesh(8, 4)
    t = positions[:, 0] > 1.0
    joints = np.stack([np.zeros(len(positions)), np.ones(len(positions))], axis=1).astype(np.uint32)
    weights = np.stack([~t, t], axis=1).astype(np.float32)
    before = weights.copy()
    j, w = sinew.smooth_weights(positions, triangles, joints, weights, iterations=4)
    np.testing.assert_array_equal(weights, before)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-6)
    # The hard step becomes a ramp: some vertex now blends both joints.
    assert np.any((w[:, 0] > 0.05) & (w[:, 0] < 0.95))
    with pytest.raises(sinew.IndexOutOfRangeError, match="triangles"):
        sinew.smooth_weights(positions, np.array([[0, 1, -2]]), joints, weights)


def test_remove_rogues_cuts_a_detached_influence():
    positions, triangles = grid_mesh(8, 4)
    n = len(positions)
    joints = np.zeros((n, 2), np.uint32)
    joints[:, 1] = 1
    weights = np.zeros((n, 2), np.float32)
    weights[:, 0] = 1.0
    left = positions[:, 0] < 0.6
    weights[left] = [0.2, 0.8]  # joint 1's main region
    rogue = np.argmax(positions[:, 0] + positions[:, 1])  # far corner
    weights[rogue] = [0.7, 0.3]
    result = sinew.remove_rogues(positions, triangles, joints, weights)
    assert result.influences_removed == 1
    influences = row(result.joints, result.weights, rogue)
    assert influences.get(1, 0.0) == 0.0 and influences[0] == pytest.approx(1.0)
    np.testing.assert_allclose(result.weights.sum(axis=1), 1.0, atol=1e-6)


def test_capsule_nearest_segment_is_rigid():
    # A two-bone chain: each point wholly to the nearest segment, radii unused.
    capsules = [sinew.Capsule((0, 0, 0), (1, 0, 0), 0.05, 7), sinew.Capsule((1, 0, 0), (2, 1, 0), 3.0, 4)]
    points = np.array([[0.5, 0.3, 0], [1.8, 1.2, 0], [1.2, -0.5, 0], [0.9, 0, 2]], np.float32)
    joints, weights, unbound = sinew.capsule_weights(points, capsules, influence_count=2, scoring="nearest_segment")
    np.testing.assert_array_equal(joints[:, 0], [7, 4, 7, 7])
    np.testing.assert_array_equal(weights, [[1, 0]] * 4)
    assert len(unbound) == 0
