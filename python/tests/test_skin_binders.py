"""Point-to-line binding and weights from example poses from Python: the
properties tests/skin/tools/test_point_to_line.c and test_example_weights.c
check in C (the midplane split on a straight limb, unbound vertices
reported, generating weights recovered with true residuals, candidates
respected), a numpy reference of the residuals, the recovered weights
reproducing the examples through sinew.Skin, errors naming the argument,
and cancellation."""
import numpy as np
import pytest

import sinew


def row_weight(joints, weights, v, joint):
    return float(weights[v][joints[v] == joint].sum())


def across(h, w):
    """The header's band: the share across a plane at distance h, half-width w."""
    if h >= w:
        return 0.0
    t = h / w
    return 0.5 - 0.25 * (3 * t - t ** 3)


# ---- point-to-line --------------------------------------------------------------------------------------

def limb_bones():
    return [sinew.LineBone((0, 0, 0), (1, 0, 0), 7), sinew.LineBone((1, 0, 0), (2, 0, 0), 3, 0)]


def test_a_straight_limb_is_the_midplane_split():
    rng = np.random.default_rng(3)
    p = np.stack([rng.uniform(-0.3, 2.3, 400), rng.uniform(-0.5, 0.5, 400), rng.uniform(-0.5, 0.5, 400)], axis=1)
    p = p.astype(np.float32)
    p[0, 0] = 1.0  # on the joint plane
    result = sinew.point_to_line_weights(p, limb_bones(), influence_count=2, blend=0.25)
    assert result.joints.shape == (400, 2) and result.joints.dtype == np.uint32 and len(result.unbound) == 0
    np.testing.assert_allclose(result.weights.sum(axis=1), 1.0, atol=1e-6)
    blended = 0
    for i, x in enumerate(p[:, 0].astype(np.float64) - 1.0):
        to_upper = 1.0 - across(x, 0.25) if x >= 0 else across(-x, 0.25)
        assert row_weight(result.joints, result.weights, i, 3) == pytest.approx(to_upper, abs=1e-6)
        assert row_weight(result.joints, result.weights, i, 7) == pytest.approx(1 - to_upper, abs=1e-6)
        blended += 0 < to_upper < 1
    assert blended > 20
    assert row_weight(result.joints, result.weights, 0, 3) == 0.5
    # A thin band is the hard split; a strided view of an interleaved buffer is read in place.
    buffer = np.zeros((400, 6), np.float32)
    buffer[:, :3] = p
    hard = sinew.point_to_line_weights(buffer[:, :3], limb_bones(), influence_count=2, blend=1e-6)
    for i in np.flatnonzero(np.abs(p[:, 0] - 1) > 1e-5):
        assert row_weight(hard.joints, hard.weights, i, 3 if p[i, 0] > 1 else 7) == 1.0
    # Ready for sinew.Skin: at the identity pose every vertex stays.
    skin = sinew.Skin(result.joints, result.weights, joint_count=8)
    np.testing.assert_allclose(skin.pose(np.tile(np.eye(4), (8, 1, 1)), p), p, atol=1e-6)


def test_vertices_beyond_max_distance_are_reported_or_bound_to_the_nearest():
    p = np.float32([[0.5, 0.1, 0], [1.5, 0.0, 0.2], [0.5, 3.0, 0], [1.8, 0.0, -2.0]])
    with pytest.raises(sinew.OutsideDomainError) as caught:
        sinew.point_to_line_weights(p, limb_bones(), max_distance=1.0)
    assert list(caught.value.unbound) == [2, 3]
    assert caught.value.code == sinew.Result.OUTSIDE_DOMAIN
    result = sinew.point_to_line_weights(p, limb_bones(), max_distance=1.0, unbound="nearest")
    assert list(result.unbound) == [2, 3]
    assert result.joints[2, 0] == 7 and result.weights[2, 0] == 1.0
    assert result.joints[3, 0] == 3 and result.weights[3, 0] == 1.0


def test_point_to_line_bad_input_names_the_argument():
    p = np.float32([[0.5, 0, 0], [1.5, 0, 0]])
    with pytest.raises(sinew.InvalidArgumentError, match=r"positions: expected an array of shape \(N, 3\)"):
        sinew.point_to_line_weights(p[:, :2], limb_bones())
    with pytest.raises(sinew.NonFiniteError):
        sinew.point_to_line_weights(np.float32([[np.nan, 0, 0]]), limb_bones())
    with pytest.raises(sinew.IndexOutOfRangeError):
        sinew.point_to_line_weights(p, [sinew.LineBone((0, 0, 0), (1, 0, 0), 0, 5)])
    with pytest.raises(sinew.InvalidArgumentError):
        sinew.point_to_line_weights(p, [sinew.LineBone((0, 0, 0), (1, 0, 0), 0, 0)])  # its own parent
    with pytest.raises(sinew.DegenerateError):
        sinew.point_to_line_weights(p, [sinew.LineBone((1, 0, 0), (1, 0, 0), 0)])
    with pytest.raises(sinew.InvalidArgumentError, match="unbound: unknown value"):
        sinew.point_to_line_weights(p, limb_bones(), unbound="drop")
    with pytest.raises(sinew.CancelledError):
        sinew.point_to_line_weights(np.zeros((20000, 3), np.float32), limb_bones(),
                                    progress=lambda stage, fraction: False)


# ---- weights from example poses ---------------------------------------------------------------------

def random_affine(rng):
    """A rotation-ish linear part with scale near 1 and a translation (numpy convention)."""
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    m = np.eye(4)
    m[:3, :3] = q * rng.uniform(0.8, 1.2) + rng.uniform(-0.1, 0.1, (3, 3))
    m[:3, 3] = rng.uniform(-1, 1, 3)
    return m.astype(np.float32)


def make_problem(seed, n, joint_count, example_count, support):
    """n vertices whose example positions are blends of `support` random joints."""
    rng = np.random.default_rng(seed)
    rest = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    matrices = np.stack([[random_affine(rng) for _ in range(joint_count)] for _ in range(example_count)])
    truth = np.zeros((n, joint_count))
    for v in range(n):
        for _ in range(support):
            truth[v, rng.integers(joint_count)] += rng.uniform(0.1, 1.0)
    truth /= truth.sum(axis=1, keepdims=True)
    homogeneous = np.append(rest, np.ones((n, 1)), axis=1).astype(np.float64)
    examples = np.einsum("vj,ejab,vb->eva", truth, matrices.astype(np.float64), homogeneous)[..., :3]
    return rest, examples.astype(np.float32), matrices, truth


def dense(joints, weights, joint_count):
    out = np.zeros((len(joints), joint_count))
    np.add.at(out, (np.arange(len(joints))[:, None].repeat(joints.shape[1], 1), joints), weights)
    return out


def test_generating_weights_are_recovered_with_true_residuals():
    rest, examples, matrices, truth = make_problem(21, 200, 5, 2, 3)
    result = sinew.example_weights(rest, examples, matrices)
    assert result.converged and result.message == ""
    assert result.joints.shape == (200, 4) and result.residuals.shape == (200,)
    assert result.kkt_violation <= 1e-9
    got = dense(result.joints, result.weights, 5)
    assert np.abs(got - truth).max() < 2e-5
    assert result.residuals.max() < 1e-5
    np.testing.assert_allclose(result.weights.sum(axis=1), 1.0, atol=1e-6)
    # The residuals are those of the float weights written (a numpy reference).
    homogeneous = np.append(rest, np.ones((200, 1)), axis=1).astype(np.float64)
    fitted = np.einsum("vj,ejab,vb->eva", got, matrices.astype(np.float64), homogeneous)[..., :3]
    reference = np.sqrt(((fitted - examples) ** 2).sum(axis=2).sum(axis=0))
    np.testing.assert_allclose(result.residuals, reference, rtol=1e-3, atol=1e-7)
    assert result.max_residual == pytest.approx(reference.max(), rel=1e-3, abs=1e-9)
    # Skinning with the weights reproduces each example (identity bind: the
    # skinning matrices are the world matrices).
    skin = sinew.Skin(result.joints, result.weights, joint_count=5)
    for e in range(2):
        np.testing.assert_allclose(skin.pose(matrices[e], rest), examples[e], atol=1e-4)


def test_random_examples_stay_on_the_simplex_and_candidates_restrict_the_joints():
    rng = np.random.default_rng(5)
    rest, _, matrices, _ = make_problem(8, 50, 6, 3, 2)
    examples = [rng.uniform(-3, 3, (50, 3)) for _ in range(3)]  # float64 examples, copied
    result = sinew.example_weights(rest, examples, matrices, influence_count=2)
    assert np.all(result.weights >= 0) and np.all((result.weights > 0).sum(axis=1) <= 2)
    np.testing.assert_allclose(result.weights.sum(axis=1), 1.0, atol=1e-6)
    candidates = np.tile([4, 1, 4], (50, 1))  # duplicates count once
    limited = sinew.example_weights(rest, examples, matrices, candidates=candidates)
    used = set(limited.joints[limited.weights > 0].tolist())
    assert used <= {1, 4}
    # Fewer candidates can only fit worse than every joint.
    full = sinew.example_weights(rest, examples, matrices, influence_count=6)
    assert np.all(limited.residuals >= full.residuals - 1e-4)


def test_example_weights_bad_input_names_the_argument():
    rest, examples, matrices, _ = make_problem(2, 10, 3, 2, 2)
    with pytest.raises(sinew.InvalidArgumentError, match=r"matrices: expected an array of shape \(E, J, 4, 4\)"):
        sinew.example_weights(rest, examples, matrices[0])
    with pytest.raises(sinew.MismatchError, match="2 examples of matrices for 1 examples"):
        sinew.example_weights(rest, examples[:1], matrices)
    with pytest.raises(sinew.InvalidArgumentError, match=r"examples\[1\]: expected an array of shape \(10, 3\)"):
        sinew.example_weights(rest, [examples[0], examples[1][:9]], matrices)
    bad = examples.copy()
    bad[1, 4, 2] = np.inf
    with pytest.raises(sinew.NonFiniteError):
        sinew.example_weights(rest, bad, matrices)
    with pytest.raises(sinew.IndexOutOfRangeError):
        sinew.example_weights(rest, examples, matrices, candidates=np.full((10, 2), 3))
    with pytest.raises(sinew.InvalidArgumentError, match=r"candidates: expected an array of shape \(10, K\)"):
        sinew.example_weights(rest, examples, matrices, candidates=np.zeros((9, 2)))
    projective = matrices.copy()
    projective[0, 1, 3, 0] = 0.5
    with pytest.raises(sinew.InvalidArgumentError):
        sinew.example_weights(rest, examples, projective)
    big_rest, big_examples, big_matrices, _ = make_problem(4, 3000, 4, 2, 2)
    with pytest.raises(sinew.CancelledError):
        sinew.example_weights(big_rest, big_examples, big_matrices, progress=lambda stage, fraction: False)
