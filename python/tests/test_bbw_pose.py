"""Handle transforms inferred at pose time from Python (sinew.BbwPose): the
properties tests/bbw/test_bbw_pose.c checks in C (rigid motions reproduced
with zero energy, a dragged handle lowers the energy below translation-only
and turns the shape, fixed transforms pass through bit for bit, warm and cold
starts agree, bones), the same transforms whichever way the weights are
given, transforms that skin the mesh through sinew.Skin, errors naming the
bad argument, cancellation and threads."""
import pickle
import threading

import numpy as np
import pytest

import sinew
from conftest import grid2d, grid3d

BAR_HANDLES = np.float32([[0, 0.5, 0], [3, 0.5, 0], [6, 0.5, 0]])
CUBE_HANDLES = np.float32([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])


@pytest.fixture(scope="module")
def bar():
    """The C test's bar: 6 x 1 (24 x 4 cells), point handles at the middle of
    its left end, its centre and its right end."""
    bbw = sinew.Bbw(triangles=grid2d(24, 4, 6.0, 1.0), points=BAR_HANDLES)
    bbw.solve()
    return bbw


@pytest.fixture(scope="module")
def cube():
    """The unit cube (4^3 cubes, 6 tets each), point handles at four corners."""
    bbw = sinew.Bbw(tets=grid3d(4), points=CUBE_HANDLES)
    bbw.solve()
    return bbw


def rotation(axis, angle):
    """3x3 rotation about a unit axis (Rodrigues)."""
    k = np.asarray(axis, np.float64) / np.linalg.norm(axis)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * kx + (1 - np.cos(angle)) * kx @ kx


def translation_only(handle_count, targets):
    """Each constrained handle moved by target - rest, linear parts the identity."""
    t = np.tile(np.eye(4, dtype=np.float32), (handle_count, 1, 1))
    for j, (rest, target) in targets.items():
        t[j, :3, 3] = np.subtract(target, rest)
    return t


def apply(m, p):
    return m[:3, :3] @ np.asarray(p, np.float64) + m[:3, 3]


# ---- rigid motions -----------------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["bar", "cube"])
def test_a_rigid_motion_of_all_handles_is_reproduced_with_zero_energy(case, request):
    bbw = request.getfixturevalue(case)
    handles = BAR_HANDLES if case == "bar" else CUBE_HANDLES
    rot = rotation((0, 0, 1), 0.7) if case == "bar" else rotation((1, 2, 3), 0.8)
    shift = np.array([1.0, -2.0, 0.0]) if case == "bar" else np.array([0.5, -1.0, 2.0])
    pose = sinew.BbwPose(bbw)
    targets = {j: (p, rot @ p + shift) for j, p in enumerate(handles.astype(np.float64))}
    transforms, report = pose.solve(targets, iterations=200, cold_start=True, report=True)
    assert transforms.shape == (len(handles), 4, 4) and transforms.dtype == np.float32
    assert report.energy < 1e-9 and report.iterations == 200
    dim = 2 if case == "bar" else 3
    for m in transforms:
        np.testing.assert_allclose(m[:dim, :dim], rot[:dim, :dim], atol=1e-4)
        np.testing.assert_allclose(m[:dim, 3], shift[:dim], atol=1e-4)
        np.testing.assert_array_equal(m[3], [0, 0, 0, 1])
    # Warm-started from the rigid pose itself, one iteration stays on it.
    _, again = pose.solve(targets, iterations=1, report=True)
    assert again.energy < 1e-9
    assert pose.energy(transforms) < 1e-9


def test_the_transforms_skin_the_mesh_rigidly(bar):
    """The solve's transforms go straight into sinew.Skin (identity bind
    matrices): a rigid motion of the handles moves every vertex rigidly."""
    pose = sinew.BbwPose(bar)
    rot, shift = rotation((0, 0, 1), -0.4), np.array([0.5, 0.25, 0.0])
    transforms = pose.solve({j: (p, rot @ p + shift) for j, p in enumerate(BAR_HANDLES.astype(np.float64))},
                            iterations=200, cold_start=True)
    joints, weights = bar.top_k(3)
    vertices = bar.domain_vertices()
    posed = sinew.Skin(joints, weights, joint_count=3).pose(transforms, vertices)
    np.testing.assert_allclose(posed, vertices @ rot.T + shift, atol=2e-4)


# ---- a dragged handle --------------------------------------------------------------------------------

def test_a_dragged_handle_turns_the_bar_and_lowers_the_energy(bar):
    pose = sinew.BbwPose(bar)
    targets = {0: (BAR_HANDLES[0], (0, 0.5, 0)), 2: (BAR_HANDLES[2], (5.0, 3.0, 0))}
    e0 = pose.energy(translation_only(3, targets))
    previous = np.inf
    for k in range(1, 11):
        transforms, report = pose.solve(targets, iterations=k, cold_start=True, report=True)
        assert report.energy <= previous * (1 + 1e-9) + 1e-15, f"energy rose at iteration {k}"
        previous = report.energy
        if k == 5:
            assert report.energy < 0.5 * e0
    # The constraints hold, and the right end and the free middle turned
    # counter-clockwise, the way the bar bends.
    np.testing.assert_allclose(apply(transforms[2], BAR_HANDLES[2])[:2], [5.0, 3.0], atol=1e-4)
    np.testing.assert_allclose(apply(transforms[0], BAR_HANDLES[0])[:2], [0.0, 0.5], atol=1e-4)
    assert np.arctan2(transforms[2, 1, 0], transforms[2, 0, 0]) > 0.3
    assert np.arctan2(transforms[1, 1, 0], transforms[1, 0, 0]) > 0.1
    # 2D points may be given with two coordinates.
    flat = {0: ((0, 0.5), (0, 0.5)), 2: ((6, 0.5), (5, 3))}
    np.testing.assert_array_equal(pose.solve(flat, iterations=10, cold_start=True), transforms)


def test_a_dragged_corner_turns_the_cube(cube):
    pose = sinew.BbwPose(cube)
    targets = {0: (CUBE_HANDLES[0], (0, 0, 0)), 1: (CUBE_HANDLES[1], (0.8, 0.7, 0)),
               2: (CUBE_HANDLES[2], (0, 1, 0)), 3: (CUBE_HANDLES[3], (0, 0, 1))}
    transforms, report = pose.solve(targets, iterations=8, cold_start=True, report=True)
    assert report.energy < pose.energy(translation_only(4, targets))
    assert np.arctan2(transforms[1, 1, 0], transforms[1, 0, 0]) > 0.1


# ---- fixed transforms, warm start -------------------------------------------------------------------

def test_fixed_transforms_pass_through_bit_for_bit(bar):
    pose = sinew.BbwPose(bar)
    rng = np.random.default_rng(15)
    given = np.tile(np.eye(4, dtype=np.float32), (3, 1, 1))
    given[:, :3, :] = rng.uniform(-2, 2, (3, 3, 4)).astype(np.float32)
    out = pose.solve({j: given[j] for j in range(3)})
    np.testing.assert_array_equal(out, given)
    # One fixed (the left end), one dragged, one free.
    out = pose.solve({0: given[0], 2: (BAR_HANDLES[2], (6, 2, 0))}, cold_start=True)
    np.testing.assert_array_equal(out[0], given[0])
    assert not np.array_equal(out[1], given[1])


def test_warm_start_matches_cold_start(bar):
    pose = sinew.BbwPose(bar)
    left = np.eye(4, dtype=np.float32)
    cold, ec = pose.solve({0: left, 2: (BAR_HANDLES[2], (4.5, 3.5, 0))}, iterations=600, cold_start=True,
                          report=True)
    # With no last result the first solve is a cold start, not one from
    # zeros (a poor guess where the fixed handle's weight blends in).
    fresh = sinew.BbwPose(bar)
    first = fresh.solve({0: left, 2: (BAR_HANDLES[2], (4.5, 3.5, 0))}, iterations=5)
    np.testing.assert_array_equal(first, pose.solve({0: left, 2: (BAR_HANDLES[2], (4.5, 3.5, 0))}, iterations=5,
                                                    cold_start=True))
    # The previous frame: a smaller drag; this frame starts from it.
    pose.reset()
    assert pose.last is None
    pose.solve({0: left, 2: (BAR_HANDLES[2], (5.8, 1.5, 0))}, iterations=50)
    warm, ew = pose.solve({0: left, 2: (BAR_HANDLES[2], (4.5, 3.5, 0))}, iterations=600, report=True)
    assert abs(ec.energy - ew.energy) < 1e-9 + 1e-6 * ec.energy
    np.testing.assert_allclose(warm, cold, atol=1e-4)
    np.testing.assert_array_equal(pose.last, warm)
    # Into the caller's array (here the last result, in place).
    again = pose.solve({0: left, 2: (BAR_HANDLES[2], (4.5, 3.5, 0))}, iterations=2, out=warm)
    assert again.base is warm.base or np.shares_memory(again, warm)
    np.testing.assert_allclose(again, cold, atol=1e-4)


def test_bones_take_their_two_joints_as_positions():
    joints = np.float32([[0, 0.5, 0], [3, 0.5, 0], [6, 0.5, 0]])
    bbw = sinew.Bbw(triangles=grid2d(24, 4, 6.0, 1.0), joint_positions=joints, bones=[[0, 1], [1, 2]])
    bbw.solve()
    pose = sinew.BbwPose(bbw)
    tip = (3 + 3 * 0.5, 0.5 + 3 * np.sin(np.pi / 3), 0)
    targets = {0: [(joints[0], joints[0]), (joints[1], joints[1])], 1: [(joints[1], joints[1]), (joints[2], tip)]}
    transforms, report = pose.solve(targets, iterations=20, cold_start=True, report=True)
    np.testing.assert_allclose(apply(transforms[1], joints[2])[:2], tip[:2], atol=1e-4)
    np.testing.assert_allclose(apply(transforms[1], joints[1])[:2], (3, 0.5), atol=1e-4)
    assert abs(np.arctan2(transforms[1, 1, 0], transforms[1, 0, 0]) - np.pi / 3) < 0.1
    base = translation_only(2, {})
    base[1, :2, 3] = 0.5 * (tip[0] - 6), 0.5 * (tip[1] - 0.5)
    assert report.energy < pose.energy(base)


# ---- the weights, however given ----------------------------------------------------------------------

def test_the_same_transforms_from_a_bbw_dense_weights_or_influences(bar):
    targets = {0: (BAR_HANDLES[0], (0, 0.5, 0)), 2: (BAR_HANDLES[2], (5.0, 3.0, 0))}
    from_bbw = sinew.BbwPose(bar).solve(targets, iterations=10, cold_start=True)
    vertices, triangles = bar.domain_vertices(), bar.domain_elements()
    dense = sinew.BbwPose(triangles=(vertices, triangles), weights=bar.vertex_weights())
    assert dense.info.handle_count == 3 and dense.info.dimension == 2
    assert dense.info.element_count == len(triangles) and dense.info.vertex_count == len(vertices)
    np.testing.assert_array_equal(dense.solve(targets, iterations=10, cold_start=True), from_bbw)
    # The skinning layout (top-k rows, renormalised in float) gives the same to rounding;
    # dtypes other than uint32 / float32 are converted.
    joints, weights = bar.top_k(3)
    sparse = sinew.BbwPose(triangles=(vertices.astype(np.float64), triangles.astype(np.int64)),
                           influences=(joints.astype(np.int32), weights.astype(np.float64)))
    np.testing.assert_allclose(sparse.solve(targets, iterations=10, cold_start=True), from_bbw, atol=1e-4)
    # One rotation per element, and the similarity option.
    per_element = sinew.BbwPose(bar, cluster_count=len(triangles), transform="similarity")
    assert per_element.info.cluster_count == len(triangles)
    t = per_element.solve(targets, iterations=10, cold_start=True)
    for m in t[[1]]:
        a = m[:2, :2].astype(np.float64)
        np.testing.assert_allclose(a.T @ a, np.eye(2) * np.linalg.det(a), atol=1e-4)


# ---- errors --------------------------------------------------------------------------------------------

def test_bad_input_names_the_argument(bar):
    pose = sinew.BbwPose(bar)
    vertices, triangles = bar.domain_vertices(), bar.domain_elements()
    weights = bar.vertex_weights()
    with pytest.raises(sinew.IndexOutOfRangeError, match="handle 3 is out of range"):
        pose.solve({3: (BAR_HANDLES[0], BAR_HANDLES[0])})
    with pytest.raises(sinew.NonFiniteError, match=r"targets\[2\]\[1, 0\] is nan"):
        pose.solve({2: (BAR_HANDLES[2], (np.nan, 0, 0))})
    with pytest.raises(sinew.InvalidArgumentError, match=r"targets\[1\]: expected a \(4, 4\) transform"):
        pose.solve({1: np.eye(3)})
    with pytest.raises(sinew.InvalidArgumentError, match="not affine|affine"):
        pose.solve({1: np.ones((4, 4))})
    with pytest.raises(sinew.InvalidArgumentError):
        pose.solve({})  # no constraint at all
    with pytest.raises(sinew.InvalidArgumentError, match=r"transforms: expected an array of 4x4 matrices, shape \(3, 4, 4\)"):
        pose.energy(np.zeros((2, 4, 4)))
    with pytest.raises(sinew.InvalidArgumentError, match=r"weights: expected an array of shape \(125, K\)"):
        sinew.BbwPose(triangles=(vertices, triangles), weights=weights[:-1])
    with pytest.raises(sinew.InvalidArgumentError, match="weights: expected a float32 array"):
        sinew.BbwPose(triangles=(vertices, triangles), weights=weights.astype(np.complex64))
    bad = weights.copy()
    bad[4, 1] = np.nan
    with pytest.raises(sinew.NonFiniteError, match=r"weights\[4, 1\] is nan"):
        sinew.BbwPose(triangles=(vertices, triangles), weights=bad)
    bad = weights.copy()
    bad[7] *= 2
    with pytest.raises(sinew.InvalidWeightsError, match="vertex 7"):
        sinew.BbwPose(triangles=(vertices, triangles), weights=bad)
    with pytest.raises(sinew.IndexOutOfRangeError, match="triangles"):
        sinew.BbwPose(triangles=(vertices, np.array([[0, 1, -2]])), weights=weights)
    joints, top = bar.top_k(2)
    with pytest.raises(sinew.IndexOutOfRangeError):
        sinew.BbwPose(triangles=(vertices, triangles), influences=(joints, top), handle_count=2)
    with pytest.raises(sinew.InvalidArgumentError, match="exactly one"):
        sinew.BbwPose(triangles=(vertices, triangles))
    with pytest.raises(sinew.InvalidArgumentError, match="transform: unknown value 'rigid'"):
        sinew.BbwPose(bar, transform="rigid")
    unsolved = sinew.Bbw(triangles=grid2d(4, 4), points=[[0, 0, 0], [1, 1, 0]])
    with pytest.raises(sinew.InvalidStateError, match="not solved"):
        sinew.BbwPose(unsolved)
    with pytest.raises(TypeError, match="bbw"):
        sinew.BbwPose(sinew.Skin([[0]], [[1.0]]))
    # No save in C: neither save nor pickling.
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(pose)
    with pytest.raises(sinew.UnsupportedError, match="bbw pose cannot be saved"):
        sinew._sinew.save(pose._handle)
    with sinew.BbwPose(bar) as closing:
        pass
    assert closing.closed
    with pytest.raises(sinew.InvalidStateError, match="closed"):
        closing.solve({0: np.eye(4)})


# ---- progress, cancellation, threads -----------------------------------------------------------------

def test_create_reports_progress_and_is_cancelled_by_its_callable(bar):
    stages = []
    sinew.BbwPose(bar, progress=lambda stage, fraction: stages.append(stage))
    assert "bbw pose: clusters" in stages
    with pytest.raises(sinew.CancelledError):
        sinew.BbwPose(bar, progress=lambda stage, fraction: False)
    with pytest.raises(ZeroDivisionError):
        sinew.BbwPose(bar, progress=lambda stage, fraction: 1 / 0)


def test_threads_sharing_one_pose_get_the_serial_results(bar):
    pose = sinew.BbwPose(bar)
    drags = [{0: np.eye(4), 2: (BAR_HANDLES[2], (6 - 0.2 * i, 0.5 + 0.3 * i, 0))} for i in range(8)]
    serial = [pose.solve(d, iterations=20, cold_start=True) for d in drags]
    results = [None] * len(drags)

    def work(i):
        for _ in range(5):
            results[i] = pose.solve(drags[i], iterations=20, cold_start=True)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(drags))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, want in zip(results, serial):
        np.testing.assert_array_equal(got, want)
