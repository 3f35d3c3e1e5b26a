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


def identity_world(n=2):
    return np.tile(np.eye(4, dtype=np.float32), (n, 1, 1))


def test_normals_and_tangents_follow_a_rigid_motion():
    positions, _, joints, weights = two_bone_rig()
    normals = np.tile(np.array([[0.0, 0.0, 1.0]], np.float32), (len(positions), 1))
    tangents = np.tile(np.array([[1.0, 0.0, 0.0, -1.0]], np.float32), (len(positions), 1))
    m = rigid()
    skin = sinew.Skin(joints, weights)
    p, n, t = skin.pose(np.stack([m, m]), positions, normals, tangents)
    np.testing.assert_allclose(n, normals @ m[:3, :3].T, atol=1e-5)
    np.testing.assert_allclose(t[:, :3], tangents[:, :3] @ m[:3, :3].T, atol=1e-5)
    np.testing.assert_array_equal(t[:, 3], -1.0)


def test_vertex_matrices_map_rest_to_deformed_positions():
    positions, _, joints, weights = two_bone_rig()
    mats = np.stack([rigid(0.3, (0, 0, 0)), rigid(-0.9, (0.5, 0.1, 0.2))])
    for blend in ("linear", "dual_quaternion"):
        skin = sinew.Skin(joints, weights, blend=blend)
        palette = skin.palette(mats)
        deformed = skin.deform(palette, positions)
        m = skin.vertex_matrices(palette)
        assert m.shape == (len(positions), 4, 4)
        np.testing.assert_allclose(m[:, 3], np.tile([0, 0, 0, 1], (len(positions), 1)), atol=0)
        mapped = np.einsum("vij,vj->vi", m[:, :3, :3], positions) + m[:, :3, 3]
        np.testing.assert_allclose(mapped, deformed, atol=1e-5)


def test_dual_quaternion_keeps_volume_where_linear_blend_collapses():
    positions, _, joints, weights = two_bone_rig()
    mats = np.stack([np.eye(4, dtype=np.float32), rotation_z(np.pi * 0.9)])
    mid = np.argmin(np.abs(weights[:, 0] - 0.5) + np.abs(positions[:, 1] - 1.0))
    lbs = sinew.Skin(joints, weights).pose(mats, positions)
    dqs = sinew.Skin(joints, weights, blend="dual_quaternion").pose(mats, positions)
    # At weight 1/2 the linear blend pulls the point toward the joint axis; DQS keeps its distance.
    r = np.linalg.norm(positions[mid, :2])
    assert np.linalg.norm(lbs[mid, :2]) < 0.5 * r
    assert np.linalg.norm(dqs[mid, :2]) == pytest.approx(r, rel=1e-4)


def test_small_integer_types_and_normalised_weights_give_the_float_result():
    positions, _, joints, weights = two_bone_rig()
    mats = np.stack([rigid(0.3, (0, 0, 0)), rigid(-0.9, (0.5, 0.1, 0.2))])
    reference = sinew.Skin(joints, weights).pose(mats, positions)
    unorm16 = np.round(weights * 65535).astype(np.uint16)
    unorm16[:, 1] = 65535 - unorm16[:, 0]
    for j, w, tol in ((joints.astype(np.uint8), weights, 1e-6), (joints.astype(np.uint32), unorm16, 1e-4),
                      (joints.astype(np.int64), weights.astype(np.float64), 1e-6), (joints.tolist(), weights, 1e-6)):
        out = sinew.Skin(j, w, joint_count=2).pose(mats, positions)
        np.testing.assert_allclose(out, reference, atol=tol)


def test_strided_and_in_place_arrays():
    positions, _, joints, weights = two_bone_rig()
    mats = np.stack([rigid(0.3, (0, 0, 0)), rigid(-0.9, (0.5, 0.1, 0.2))])
    skin = sinew.Skin(joints, weights)
    palette = skin.palette(mats)
    reference = skin.deform(palette, positions)
    # An interleaved vertex buffer (position + normal + uv) is read in place, and written in place.
    interleaved = np.zeros((len(positions), 8), np.float32)
    interleaved[:, :3] = positions
    out_buffer = np.zeros_like(interleaved)
    result = skin.deform(palette, interleaved[:, :3], out=out_buffer[:, :3])
    assert np.shares_memory(result, out_buffer)
    np.testing.assert_array_equal(out_buffer[:, :3], reference)
    np.testing.assert_array_equal(out_buffer[:, 3:], 0)
    in_place = positions.copy()
    skin.deform(palette, in_place, out=in_place)
    np.testing.assert_array_equal(in_place, reference)
    # A Fortran-ordered input is copied; the result is the same.
    np.testing.assert_array_equal(skin.deform(palette, np.asfortranarray(positions)), reference)
    # Overlapping but different rows are refused.
    buffer = np.zeros((len(positions) + 1, 3), np.float32)
    buffer[:-1] = positions
    with pytest.raises(sinew.InvalidArgumentError, match="positions and out share memory"):
        skin.deform(palette, buffer[:-1], out=buffer[1:])


def test_a_vertex_range_writes_only_that_range():
    positions, _, joints, weights = two_bone_rig()
    skin = sinew.Skin(joints, weights)
    palette = skin.palette(np.stack([rigid(), rigid()]))
    full = skin.deform(palette, positions)
    out = np.full_like(positions, 7.0)
    skin.deform(palette, positions, out=out, first=3, count=5)
    np.testing.assert_array_equal(out[3:8], full[3:8])
    np.testing.assert_array_equal(out[:3], 7.0)
    np.testing.assert_array_equal(out[8:], 7.0)
    with pytest.raises(sinew.IndexOutOfRangeError, match="past the 18 elements"):
        skin.deform(palette, positions, first=10, count=9)


def test_output_arrays_are_checked_not_copied():
    positions, _, joints, weights = two_bone_rig()
    skin = sinew.Skin(joints, weights)
    palette = skin.palette(identity_world())
    with pytest.raises(sinew.InvalidArgumentError, match="out: expected a float32 array in native byte order, got dtype float64"):
        skin.deform(palette, positions, out=np.zeros(positions.shape))
    read_only = np.zeros_like(positions)
    read_only.flags.writeable = False
    with pytest.raises(sinew.InvalidArgumentError, match="out: the array is read-only"):
        skin.deform(palette, positions, out=read_only)
    with pytest.raises(sinew.MismatchError) as caught:
        skin.deform(palette[:-1], positions)
    assert caught.value.code == sinew.Result.MISMATCH and "palette" in caught.value.message


def test_library_errors_carry_code_and_message():
    positions, _, joints, weights = two_bone_rig()
    bad = weights.copy()
    bad[5] = [0.5, 0.2]
    with pytest.raises(sinew.InvalidWeightsError) as caught:
        sinew.Skin(joints, bad)
    assert caught.value.code == sinew.Result.INVALID_WEIGHTS
    assert "vertex 5" in caught.value.message
    with pytest.raises(sinew.IndexOutOfRangeError, match="joint"):
        sinew.Skin(joints, weights, joint_count=1)
    with pytest.raises(sinew.InvalidArgumentError, match="blend: unknown value 'cubic'"):
        sinew.Skin(joints, weights, blend="cubic")


def test_influences_read_back_sorted():
    positions, _, joints, weights = two_bone_rig()
    skin = sinew.Skin(joints, weights)
    j, w = skin.influences()
    assert j.shape[0] == len(positions) and w.dtype == np.float32
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-6)
    vj, vw = skin.vertex_influences(len(positions) - 1)
    assert list(vj) == [1] and vw[0] == pytest.approx(1.0)
    with pytest.raises(sinew.IndexOutOfRangeError):
        skin.vertex_influences(len(positions))


def test_save_load_round_trip_gives_the_same_bits():
    positions, _, joints, weights = two_bone_rig()
    skin = sinew.Skin(joints, weights, blend="dual_quaternion", storage="compressed")
    data = skin.save()
    assert isinstance(data, bytes) and data == skin.save()
    info = sinew.saved_info(data)
    assert info.kind == sinew.Kind.SKIN and info.size == len(data)
    loaded = sinew.load(data)
    assert isinstance(loaded, sinew.Skin)
    assert loaded.info.blend == "dual_quaternion" and loaded.info.storage == "compressed"
    mats = np.stack([rigid(0.3, (0, 0, 0)), rigid(-0.9, (0.5, 0.1, 0.2))])
    np.testing.assert_array_equal(loaded.pose(mats, positions), skin.pose(mats, positions))
    with pytest.raises(sinew.MismatchError):
        sinew.Soffd.load(data)
    with pytest.raises(sinew.InvalidDataError):
        sinew.Skin.load(data[:-3])


def test_closed_skin_refuses_calls():
    positions, _, joints, weights = two_bone_rig()
    with sinew.Skin(joints, weights) as skin:
        palette = skin.palette(identity_world())
    assert skin.closed
    with pytest.raises(sinew.InvalidStateError, match="closed"):
        skin.deform(palette, positions)


def test_progress_callable_sees_stages_and_can_cancel():
    positions, _, joints, weights = two_bone_rig()
    stages = []
    sinew.Skin(joints, weights, progress=lambda stage, fraction: stages.append((stage, fraction)))
    assert stages and all(s.startswith("skin:") and 0.0 <= f <= 1.0 for s, f in stages)
    with pytest.raises(sinew.CancelledError, match="returned a false value"):
        sinew.Skin(joints, weights, progress=lambda stage, fraction: False)

    class Stop(Exception):
        pass

    def raising(stage, fraction):
        raise Stop(stage)

    with pytest.raises(Stop):
        sinew.Skin(joints, weights, progress=raising)
    with pytest.raises(sinew.InvalidArgumentError, match="progress: expected a callable"):
        sinew.Skin(joints, weights, progress=3)


def test_pickle_round_trip():
    import pickle

    positions, _, joints, weights = two_bone_rig()
    skin = sinew.Skin(joints, weights)
    copy = pickle.loads(pickle.dumps(skin))
    mats = np.stack([rigid(), rigid(0.1)])
    np.testing.assert_array_equal(copy.pose(mats, positions), skin.pose(mats, positions))


def test_golden_skin_data_loads_when_present(data_dir):
    files = sorted(data_dir.rglob("*.skin")) if data_dir else []
    if not files:
        pytest.skip("no saved skin in the shared data")
    skin = sinew.Skin.load(files[0].read_bytes())
    assert skin.vertex_count > 0
