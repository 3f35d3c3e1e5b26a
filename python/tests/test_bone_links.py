"""Bone links from Python (sinew.bone_links, sinew.link_rotations): the
properties tests/skin/tools/test_bone_links.c checks in C: a hinge angle is
split evenly, swing and twist separately, the joint becomes a chain with the
documented parents and weights, the link count follows the range of motion,
and, through sinew.Skin, the links keep the elbow's cross-section
(cos(theta / 2n) of its area); errors name the bad argument."""
import numpy as np
import pytest

import sinew

NOP = sinew.NO_PARENT


def axis_angle(axis, angle):
    a = np.asarray(axis, np.float64) / np.linalg.norm(axis)
    return np.append(a * np.sin(angle / 2), np.cos(angle / 2))


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def same_rotation(a, b, tol=1e-6):
    return min(np.abs(a - b).max(), np.abs(a + b).max()) < tol


def swing_twist_angles(q, axis):
    q = q if q[3] >= 0 else -q
    along = float(np.dot(q[:3], axis))
    return 2 * np.arccos(min(1.0, np.hypot(along, q[3]))), 2 * np.arctan2(along, q[3])


def matrix(q):
    """4x4 rotation of a unit quaternion (x, y, z, w), numpy convention."""
    x, y, z, w = q
    m = np.eye(4)
    m[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                 [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                 [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    return m


def limb():
    """Shoulder (0) at x = 0, elbow (1) at x = 1, wrist (2) at x = 2; inverse bind = translation by -x."""
    ib = np.tile(np.eye(4, dtype=np.float32), (3, 1, 1))
    ib[:, 0, 3] = [0, -1, -2]
    return [None, 0, 1], ib


# ---- link rotations ----------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_a_hinge_angle_is_split_evenly(n):
    bend = axis_angle((0, 0, 1), np.radians(150))
    links = sinew.link_rotations(bend, (1, 0, 0), n)
    assert links.shape == (n, 4) and links.dtype == np.float32
    total = np.array([0, 0, 0, 1.0])
    for q in links.astype(np.float64):
        assert abs(np.linalg.norm(q) - 1) < 1e-6
        assert same_rotation(q, axis_angle((0, 0, 1), np.radians(150) / n))
        total = qmul(total, q)
    assert same_rotation(total, bend)


def test_swing_and_twist_are_split_separately():
    q = qmul(axis_angle((0, 0, 1), np.radians(120)), axis_angle((1, 0, 0), np.radians(90)))
    links = sinew.link_rotations(q, (2, 0, 0), 3).astype(np.float64)  # any axis length
    total = np.array([0, 0, 0, 1.0])
    for link in links:
        swing, twist = swing_twist_angles(link, (1, 0, 0))
        assert swing == pytest.approx(np.radians(40), abs=1e-5)
        assert twist == pytest.approx(np.radians(30), abs=1e-5)
        total = qmul(total, link)
    assert same_rotation(total, q)
    assert same_rotation(links[0], qmul(axis_angle((0, 0, 1), np.radians(40)), axis_angle((1, 0, 0), np.radians(30))))
    # q and -q are one rotation: the same links.
    np.testing.assert_allclose(sinew.link_rotations(-q, (1, 0, 0), 3), links, atol=1e-7)
    # Into the caller's array.
    out = np.empty((3, 4), np.float32)
    assert sinew.link_rotations(q, (1, 0, 0), 3, out=out) is out


# ---- the chain -----------------------------------------------------------------------------------------

def test_the_joint_becomes_a_chain():
    parents, ib = limb()
    result = sinew.bone_links(parents, ib, 1, [[0, 1]], [[0.5, 0.5]], link_count=3)
    # shoulder -> link 1 (joint 3) -> link 2 (joint 4) -> elbow -> wrist
    np.testing.assert_array_equal(result.parents, [NOP, 4, 1, 0, 3])
    assert result.parents.dtype == np.uint32
    assert result.inverse_bind.shape == (5, 4, 4)
    np.testing.assert_array_equal(result.inverse_bind[:3], ib)
    np.testing.assert_array_equal(result.inverse_bind[3], ib[1])
    np.testing.assert_array_equal(result.inverse_bind[4], ib[1])
    assert result.link_count == 3 and result.vertices_redistributed == 1
    np.testing.assert_array_equal(result.bone_axis, [1, 0, 0])
    # s = 3 * 0.5 = 1.5: half on link 1, half on link 2.
    assert sorted(result.joints[0]) == [3, 4]
    np.testing.assert_array_equal(result.weights[0], [0.5, 0.5])
    # One link changes nothing; -1 and NO_PARENT name roots as None does.
    one = sinew.bone_links(np.array([-1, 0, 1]), ib, 1, [[0, 1]], [[0.5, 0.5]], link_count=1)
    np.testing.assert_array_equal(one.parents, [NOP, 0, 1])
    assert one.vertices_redistributed == 0


def test_weights_move_along_the_chain_and_rows_keep_their_sums():
    """Vertex 0: s = 3 * 0.75 = 2.25: link 2 (joint 4) 0.75, the elbow 0.25;
    vertex 1 (elbow and wrist only) keeps its weights; the inputs are untouched."""
    parents, ib = limb()
    joints = np.array([[0, 1], [1, 2]], np.uint32)
    weights = np.array([[0.25, 0.75], [0.5, 0.5]], np.float32)
    before = weights.copy()
    result = sinew.bone_links(parents, ib, 1, joints, weights, link_count=3)
    np.testing.assert_array_equal(weights, before)
    assert list(result.joints[0]) == [4, 1] and list(result.weights[0]) == [0.75, 0.25]
    assert list(result.joints[1]) == [1, 2] and list(result.weights[1]) == [0.5, 0.5]


@pytest.mark.parametrize("range_degrees, step_degrees, joint_count", [
    (150, 0, 5), (180, 0, 5), (181, 0, 6), (90, 45, 4), (10, 0, 3)])
def test_the_link_count_follows_the_range_of_motion(range_degrees, step_degrees, joint_count):
    parents, ib = limb()
    result = sinew.bone_links(parents, ib, 1, [[1]], [[1.0]], range_of_motion=np.radians(range_degrees),
                              max_link_angle=np.radians(step_degrees))
    assert len(result.parents) == joint_count == len(result.inverse_bind)


def elbow_ring_area(n, theta):
    """The C test's closed form through sinew.Skin: a ring at the elbow
    weighted half and half, the elbow bent by theta, its links driven by
    link_rotations: world(link k) = T(1, 0, 0) R(q_1 ... q_k)."""
    sides = 64
    a = 2 * np.pi * np.arange(sides) / sides
    ring = np.stack([np.ones(sides), 0.25 * np.cos(a), 0.25 * np.sin(a)], axis=1).astype(np.float32)
    parents, ib = limb()
    links = sinew.bone_links(parents, ib, 1, np.tile([0, 1], (sides, 1)), np.full((sides, 2), 0.5), link_count=n)
    rotations = sinew.link_rotations(axis_angle((0, 0, 1), theta), links.bone_axis, n).astype(np.float64)
    world = np.tile(np.eye(4), (len(links.parents), 1, 1))
    acc = np.array([0, 0, 0, 1.0])
    for k in range(1, n + 1):
        acc = qmul(acc, rotations[k - 1])
        m = matrix(acc)
        m[0, 3] = 1
        world[1 if k == n else 3 + k - 1] = m
    skin = sinew.Skin(links.joints, links.weights, inverse_bind=links.inverse_bind)
    posed = skin.pose(world, ring).astype(np.float64)
    area = 0.5 * np.linalg.norm(np.cross(posed, np.roll(posed, -1, axis=0)).sum(axis=0))
    return area / (0.5 * sides * 0.25 ** 2 * np.sin(2 * np.pi / sides))


def test_links_keep_the_elbow_cross_section():
    theta = np.radians(150)
    one, three = elbow_ring_area(1, theta), elbow_ring_area(3, theta)
    assert one == pytest.approx(np.cos(theta / 2), abs=1e-5)
    assert three == pytest.approx(np.cos(theta / 6), abs=1e-5)
    assert three > 3 * one


# ---- errors --------------------------------------------------------------------------------------------

def test_bad_input_names_the_argument():
    parents, ib = limb()
    j, w = [[0, 1]], [[0.5, 0.5]]
    with pytest.raises(sinew.InvalidArgumentError, match="root"):
        sinew.bone_links(parents, ib, 0, j, w, link_count=2)  # the shoulder has no parent
    with pytest.raises(sinew.IndexOutOfRangeError):
        sinew.bone_links(parents, ib, 5, j, w, link_count=2)
    with pytest.raises(sinew.IndexOutOfRangeError):
        sinew.bone_links([None, 0, 7], ib, 1, j, w, link_count=2)
    with pytest.raises(sinew.InvalidArgumentError, match="cycle"):
        sinew.bone_links([2, 0, 1], ib, 1, j, w, link_count=2)
    with pytest.raises(sinew.InvalidArgumentError, match=r"inverse_bind: expected an array of 4x4 matrices, shape \(3, 4, 4\)"):
        sinew.bone_links(parents, ib[:2], 1, j, w, link_count=2)
    with pytest.raises(sinew.InvalidArgumentError, match=r"weights: expected an array of shape \(1, 2\)"):
        sinew.bone_links(parents, ib, 1, j, [[0.5, 0.25, 0.25]], link_count=2)
    with pytest.raises(sinew.NonFiniteError, match=r"weights\[0, 1\] is nan"):
        sinew.bone_links(parents, ib, 1, j, [[0.5, np.nan]], link_count=2)
    with pytest.raises(sinew.IndexOutOfRangeError, match=r"joints\[0, 1\] = -1 is negative"):
        sinew.bone_links(parents, ib, 1, [[0, -1]], w, link_count=2)
    with pytest.raises(sinew.InvalidArgumentError):
        sinew.bone_links(parents, ib, 1, j, w)  # neither link_count nor range_of_motion
    with pytest.raises(sinew.InvalidArgumentError):
        sinew.bone_links(parents, ib, 1, j, w, link_count=sinew.MAX_LINKS + 1)
    singular = ib.copy()
    singular[1, :3, :3] = 0
    with pytest.raises(sinew.DegenerateError):
        sinew.bone_links(parents, singular, 1, j, w, link_count=2)
    with pytest.raises(sinew.InvalidArgumentError, match="link_count: expected 1 to 64 links"):
        sinew.link_rotations((0, 0, 0, 1), (1, 0, 0), 0)
    with pytest.raises(sinew.InvalidArgumentError, match=r"rotation: expected an array of shape \(4,\)"):
        sinew.link_rotations((0, 0, 1), (1, 0, 0), 2)
    with pytest.raises(sinew.InvalidArgumentError):
        sinew.link_rotations((0, 0, 0, 0), (1, 0, 0), 2)  # a zero quaternion
    with pytest.raises(sinew.NonFiniteError):
        sinew.link_rotations((0, 0, np.nan, 1), (1, 0, 0), 2)
