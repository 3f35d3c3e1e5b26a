"""Skinning from Python: the C tests' properties, array handling, save/load."""

import numpy as np
import pytest

import sinew
from conftest import grid_mesh, rigid, rotation_z, translation


def two_bone_rig(n=5):
    """Grid along x with two joints blending linearly over x (weights sum to 1)."""
    positions, triangles = grid_mesh(n, 2)
    t = positions[:, 0] / positions[:, 0].max()
    joints = np.tile(np.array([[0, 1]], np.uint16), (len(positions), 1))
    weights = np.stack([1.0 - t, t], axis=1).astype(np.float32)
    return positions, triangles, joints, weights


def reference_lbs(positions, joints, weights, mats):
    """Linear blend in float64 numpy: sum_i w_i M_i p."""
    p = np.concatenate([positions, np.ones((len(positions), 1))], axis=1).astype(np.float64)
    out = np.zeros((len(positions), 3))
    for s in range(joints.shape[1]):
        m = mats[joints[:, s].astype(np.int64)].astype(np.float64)
        out += weights[:, s, None] * np.einsum("vij,vj->vi", m, p)[:, :3]
    return out


def test_identity_at_bind():
    positions, _, joints, weights = two_bone_rig()
    skin = sinew.Skin(joints, weights)
    eye = np.tile(np.eye(4, dtype=np.float32), (2, 1, 1))
    out = skin.pose(eye, positions)
    assert out.dtype == np.float32 and out.shape == positions.shape
    np.testing.assert_allclose(out, positions, atol=1e-6)


def test_rigid_motion_moves_every_vertex_rigidly():
    positions, _, joints, weights = two_bone_rig()
    m = rigid()
    for blend in ("linear", "dual_quaternion"):
        skin = sinew.Skin(joints, weights, blend=blend)
        out = skin.pose(np.stack([m, m]), positions)
        expected = positions @ m[:3, :3].T + m[:3, 3]
        np.testing.assert_allclose(out, expected, atol=1e-5)


def test_linear_blend_matches_numpy_reference():
    positions, _, joints, weights = two_bone_rig()
    mats = np.stack([rigid(0.3, (0, 0, 0)), rigid(-0.9, (0.5, 0.1, 0.2))])
    skin = sinew.Skin(joints, weights)
    out = skin.pose(mats, positions)
    np.testing.assert_allclose(out, reference_lbs(positions, joints, weights, mats), atol=1e-5)


def test_bad_arrays_name_the_argument():
    positions, _, joints, weights = two_bone_rig()
    with pytest.raises(sinew.InvalidArgumentError, match=r"weights: expected an array of shape \(18, 2\)"):
        sinew.Skin(joints, weights[:-1])
    with pytest.raises(sinew.InvalidArgumentError, match="joints: expected a uint8, uint16 or uint32 array"):
        sinew.Skin(joints.astype(np.float32), weights)
    bad = weights.copy()
    bad[4, 1] = np.nan
    with pytest.raises(sinew.NonFiniteError, match=r"weights\[4, 1\] is nan"):
        sinew.Skin(joints, bad)
    skin = sinew.Skin(joints, weights)
    palette = skin.palette(np.tile(np.eye(4, dtype=np.float32), (2, 1, 1)))
    with pytest.raises(sinew.InvalidArgumentError, match=r"positions: expected an array of shape \(18, 3\)"):
        skin.deform(palette, positions[:, :2])
    with pytest.raises(sinew.InvalidArgumentError, match="positions: expected a float32 array"):
        skin.deform(palette, positions.astype(np.complex64))
    with pytest.raises(sinew.InvalidArgumentError, match=r"joint_world: expected an array of 4x4 matrices, shape \(2, 4, 4\)"):
        skin.palette(np.eye(4, dtype=np.float32)[None])
