"""sinew.Corrective: keys reproduced at their poses, nothing at rest, linear
interpolation with the linear kernel, morph targets against numpy, sparse =
dense, save/load and pickling, swing/twist, named errors."""
import pickle

import numpy as np
import pytest

import sinew


def _keys(seed=1, keys=3, points=20):
    rng = np.random.default_rng(seed)
    return rng.uniform(-0.3, 0.3, (keys, points, 3)).astype(np.float32), rng.uniform(-1, 1, (points, 3)).astype(np.float32)


POSES = np.array([[1.5, 0.0], [0.0, 1.0], [0.8, 0.9]], np.float32)


@pytest.mark.parametrize("kernel", ["gaussian", "linear", "cubic"])
def test_keys_exact_rest_zero(kernel):
    offsets, base = _keys()
    c = sinew.Corrective(offsets, POSES, kernel=kernel)
    for k in range(3):
        np.testing.assert_array_equal(c.weights(POSES[k]), np.eye(3, dtype=np.float32)[k])
        np.testing.assert_array_equal(c.deform(POSES[k], base), base + offsets[k])
    np.testing.assert_array_equal(c.deform([0, 0], base), base)
    assert c.info.kernel == kernel and c.info.key_count == 3 and c.info.memory_bytes > 0


def test_linear_is_linear_interpolation():
    offsets = np.eye(3, dtype=np.float32)[:, None, :]
    c = sinew.Corrective(offsets, [[1.0], [2.0], [4.0]], kernel="linear")
    for x in np.linspace(0, 4, 17):
        want = np.interp(x, [0, 1, 2, 4], [0, 1, 0, 0]), np.interp(x, [0, 1, 2, 4], [0, 0, 1, 0]), \
            np.interp(x, [0, 1, 2, 4], [0, 0, 0, 1])
        np.testing.assert_allclose(c.weights([x]), want, atol=1e-5)


def test_morph_targets_and_sparse():
    offsets, base = _keys(2)
    offsets[1, ::2] = 0
    dense = sinew.Corrective(offsets, kernel="weights")
    w = np.array([0.5, -1.0, 0.25], np.float32)
    want = (base.astype(np.float64) + np.einsum("k,kni->ni", w.astype(np.float64), offsets.astype(np.float64)))
    np.testing.assert_array_equal(dense.apply(w, base), want.astype(np.float32))
    np.testing.assert_array_equal(dense.apply(np.zeros(3, np.float32), base), base)
    sparse = {k: (np.nonzero(np.any(offsets[k] != 0, axis=1))[0], offsets[k][np.any(offsets[k] != 0, axis=1)])
              for k in range(3)}
    s = sinew.Corrective(sparse, kernel="weights", point_count=base.shape[0])
    np.testing.assert_array_equal(s.apply(w, base), dense.apply(w, base))
    assert s.info.offset_count == dense.info.offset_count


def test_ranges_save_load_pickle():
    offsets, base = _keys(3)
    c = sinew.Corrective(offsets, POSES, kernel="cubic", smoothing=1e-3)
    pose = np.array([0.4, 0.3], np.float32)
    whole = c.deform(pose, base)
    out = np.zeros_like(base)
    c.deform(pose, base, out=out, first=0, count=7)
    c.deform(pose, base, out=out, first=7)
    np.testing.assert_array_equal(out, whole)
    loaded = sinew.Corrective.load(c.save())
    np.testing.assert_array_equal(loaded.deform(pose, base), whole)
    assert loaded.save() == c.save()
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(c)).deform(pose, base), whole)
    assert sinew.saved_info(c.save()).kind == sinew.Kind.CORRECTIVE


def test_swing_twist():
    angle = 0.8
    q = np.array([[0, np.sin(angle / 2), 0, np.cos(angle / 2)], [np.sin(angle / 2), 0, 0, np.cos(angle / 2)]],
                 np.float32)
    p = sinew.swing_twist(q)
    np.testing.assert_allclose(p[0], [0, 0, angle], atol=1e-6)
    assert abs(np.hypot(p[1, 0], p[1, 1]) - angle) < 1e-6 and abs(p[1, 2]) < 1e-6


def test_errors():
    offsets, base = _keys(4)
    with pytest.raises(sinew.DegenerateError, match="key 0 and key 2"):
        sinew.Corrective(offsets, [[1, 0], [0, 1], [1, 0]])
    with pytest.raises(sinew.DegenerateError, match="the rest pose"):
        sinew.Corrective(offsets, [[0, 0], [0, 1], [1, 1]])
    with pytest.raises(sinew.NonFiniteError, match="key 1"):
        sinew.Corrective(offsets, [[1, 0], [np.nan, 1], [1, 1]])
    c = sinew.Corrective(offsets, POSES)
    with pytest.raises(sinew.MismatchError, match="pose_size is 3"):
        c.deform([0, 0, 0], base)
    with pytest.raises(sinew.InvalidArgumentError, match="kernel"):
        sinew.Corrective(offsets, POSES, kernel="quadratic")
