"""The B-spline lattice from Python: the properties tests/lattice checks in C
(identity, affine reproduction, binding = one shot, fold check, the
refinement's guaranteed bound), the array checks of the binding, and round
trips of saved data against the C library's golden files."""
import pickle
from pathlib import Path

import numpy as np
import pytest

import sinew

GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "golden"
# The unnormalised frame of tests/lattice/test_lattice_io.c (normalised by create).
AXES = np.array([[2.0, 0.3, 0.0], [-0.3, 2.0, 0.1], [0.0, -0.1, 3.0]])
ORIGIN = np.array([-1.25, 0.5, 2.0])
EXTENTS = np.array([2.5, 1.5, 3.0])


def box_map(params):
    """World position of box parameters (u, v, w) (float64)."""
    unit = AXES / np.linalg.norm(AXES, axis=1, keepdims=True)
    return ORIGIN + (np.asarray(params, np.float64) * EXTENTS) @ unit


def make_lattice(count=(6, 5, 4), order=(4, 3, 2), outside="leave"):
    return sinew.Lattice(count=count, order=order, origin=ORIGIN, axes=AXES, extents=EXTENTS, outside=outside)


def greville(n, order):
    """Greville abscissae of n control points, clamped uniform knots (as the C tests compute them)."""
    p = order - 1
    knots = [0.0] * order + [(j - p) / (n - p) for j in range(order, n)] + [1.0] * order
    return np.array([sum(knots[i + 1:i + order]) / p for i in range(n)])


def same_saved_contents(a, b):
    """Saved data equal but for the writing library's version (bytes 12..15)
    and the checksum (32..39), which covers it."""
    return len(a) == len(b) and a[:12] == b[:12] and a[16:32] == b[16:32] and a[40:] == b[40:]


def random_params(n, low=-0.2, high=1.2, seed=1):
    return np.random.default_rng(seed).uniform(low, high, (n, 3))


# ---- identity and affine reproduction ------------------------------------------------------

def test_new_lattice_is_the_identity_bit_for_bit():
    lattice = make_lattice()
    # 5000 points: past the size at which pose-time calls release the GIL.
    points = box_map(random_params(5000)).astype(np.float32)
    assert np.array_equal(lattice.deform(points), points)
    assert np.array_equal(lattice.bind(points).deform(lattice), points)
    normals = np.random.default_rng(2).normal(size=(5000, 3)).astype(np.float32)
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    moved, mapped = lattice.deform(points, normals)
    assert np.array_equal(moved, points)
    np.testing.assert_allclose(mapped, normals, atol=1e-6)


def test_rest_points_sit_at_the_greville_abscissae():
    lattice = make_lattice()
    info = lattice.info
    assert info.count == (6, 5, 4) and info.order == (4, 3, 2) and info.point_count == 120
    assert info.cells == (3, 3, 3) and info.outside == "leave"
    gu, gv, gw = greville(6, 4), greville(5, 3), greville(4, 2)
    # Index i + count[0] * (j + count[1] * k): u varies fastest.
    params = np.stack(np.meshgrid(gu, gv, gw, indexing="ij"), axis=-1).transpose(2, 1, 0, 3).reshape(-1, 3)
    np.testing.assert_allclose(lattice.rest_points(), box_map(params), atol=2e-5)
    np.testing.assert_allclose(lattice.parameters(lattice.rest_points()), params, atol=2e-5)
    assert np.array_equal(lattice.get_points(), lattice.rest_points())
    assert not lattice.get_displacements().any()


@pytest.mark.parametrize("outside", ["leave", "clamp", "extend"])
def test_affine_control_point_motion_is_reproduced(outside):
    lattice = make_lattice(outside=outside)
    rng = np.random.default_rng(3)
    matrix = np.eye(3) + rng.uniform(-0.3, 0.3, (3, 3))
    shift = rng.uniform(-1, 1, 3)
    lattice.points = lattice.rest_points() @ matrix.T + shift
    params = random_params(300, 0.0, 1.0)
    world = box_map(params).astype(np.float32)
    np.testing.assert_allclose(lattice.deform(world), world @ matrix.T + shift, atol=2e-4)
    positions, jacobians = lattice.evaluate(params.astype(np.float32), jacobians=True)
    np.testing.assert_allclose(positions, box_map(params) @ matrix.T + shift, atol=2e-4)
    # F = A (origin + sum u_a extents_a axis_a) + t, so dF/du_a = A extents_a axis_a.
    unit = AXES / np.linalg.norm(AXES, axis=1, keepdims=True)
    want = matrix @ (unit * EXTENTS[:, None]).T
    np.testing.assert_allclose(jacobians, np.broadcast_to(want, jacobians.shape), atol=2e-4)
    np.testing.assert_allclose(lattice.jacobians(params.astype(np.float32)), jacobians, atol=0)
    if outside == "extend":
        far = box_map(random_params(100, -0.5, 1.5, seed=4)).astype(np.float32)
        np.testing.assert_allclose(lattice.deform(far), far @ matrix.T + shift, atol=5e-4)
    lattice.reset()
    assert np.array_equal(lattice.deform(world), world)


def test_ranges_use_absolute_element_numbers():
    lattice = make_lattice()
    displacements = np.random.default_rng(5).uniform(-0.1, 0.1, (lattice.point_count, 3)).astype(np.float32)
    lattice.set_displacements(displacements, first=10, count=20)
    got = lattice.get_displacements()
    assert np.array_equal(got[10:30], displacements[10:30])
    assert not got[:10].any() and not got[30:].any()
    points = box_map(random_params(50)).astype(np.float32)
    out = np.full_like(points, 7.0)
    lattice.deform(points, out=out, first=5, count=10)
    assert np.array_equal(out[5:15], lattice.deform(points)[5:15])
    assert (out[:5] == 7).all() and (out[15:] == 7).all()


def test_strided_and_in_place_arrays():
    lattice = make_lattice()
    lattice.set_displacements(np.random.default_rng(6).uniform(-0.2, 0.2, (120, 3)))
    padded = np.zeros((40, 4), np.float32)
    padded[:, :3] = box_map(random_params(40))
    packed = np.ascontiguousarray(padded[:, :3])
    want = lattice.deform(packed)
    assert np.array_equal(lattice.deform(padded[:, :3]), want)
    out = np.zeros((40, 4), np.float32)
    result = lattice.deform(padded[:, :3], out=out[:, :3])
    assert np.shares_memory(result, out) and np.array_equal(out[:, :3], want)
    assert np.array_equal(lattice.deform(packed.astype(np.float64)), want)
    lattice.deform(packed, out=packed)
    assert np.array_equal(packed, want)


# ---- bound deformation -------------------------------------------------------------------------

def test_binding_deforms_as_the_one_shot_call():
    lattice = make_lattice()
    points = box_map(random_params(200)).astype(np.float32)
    normals = np.tile(np.float32([0, 0, 1]), (200, 1))
    binding = lattice.bind(points, normals)
    assert len(binding) == 200 and binding.info.has_normals and binding.info.space == "world"
    lattice.set_displacements(np.random.default_rng(8).uniform(-0.2, 0.2, (120, 3)))
    got_points, got_normals = binding.deform(lattice, normals=True)
    want_points, want_normals = lattice.deform(points, normals)
    np.testing.assert_allclose(got_points, want_points, atol=2e-5)
    np.testing.assert_allclose(got_normals, want_normals, atol=2e-5)
    params = lattice.parameters(points)
    by_params = lattice.bind(params, space="parameter").deform(lattice)
    np.testing.assert_allclose(by_params, lattice.evaluate(params), atol=2e-5)
    other = make_lattice(count=(5, 5, 4))
    with pytest.raises(sinew.Error) as caught:
        binding.deform(other)
    assert caught.value.code == sinew.Result.MISMATCH
    with pytest.raises(sinew.Error) as caught:
        lattice.bind(points).deform(lattice, normals=True)
    assert caught.value.code == sinew.Result.INVALID_STATE


# ---- fold-over check -----------------------------------------------------------------------------

def test_fold_check_at_rest_and_folded():
    lattice = make_lattice(count=(6, 6, 6), order=(4, 4, 4))
    report = lattice.check_folds()
    assert report.cell_count == 27 and report.cells_may_fold == 0 and not report.may_fold
    assert report.cell_flags.shape == (27,) and report.cell_flags.dtype == np.uint8 and not report.cell_flags.any()
    assert report.min_sampled_det == pytest.approx(1.0, abs=1e-4)
    # Push one interior layer of u far past its neighbours: the map folds there.
    displacements = np.zeros((216, 3), np.float32)
    index = np.arange(216)
    displacements[index % 6 == 2] = -3.0 * EXTENTS[0] * AXES[0] / np.linalg.norm(AXES[0])
    lattice.displacements = displacements
    folded = lattice.check_folds(samples_per_axis=6)
    assert folded.cells_may_fold > 0 and folded.min_sampled_det < 0
    assert folded.cell_flags.sum() == folded.cells_may_fold
    assert lattice.check_folds(cell_flags=False).cell_flags is None


def test_fold_check_can_be_cancelled_from_python():
    lattice = make_lattice(count=(8, 8, 8), order=(4, 4, 4))
    stages = []

    def progress(stage, fraction):
        stages.append((stage, fraction))
        return False

    with pytest.raises(sinew.CancelledError) as caught:
        lattice.check_folds(progress=progress)
    assert caught.value.code == sinew.Result.CANCELLED
    assert stages and stages[0][0] == "lattice: fold-over check"


# ---- adaptive refinement -------------------------------------------------------------------------

def bent_lattice():
    lattice = sinew.Lattice(count=(7, 4, 4), extents=(4.0, 1.0, 1.0))
    rest = lattice.rest_points()
    displacements = np.zeros_like(rest)
    displacements[:, 2] = 0.6 * np.sin(rest[:, 0] * np.pi / 2)
    lattice.displacements = displacements
    return lattice


def strip_mesh(n=8):
    xs = np.linspace(0.0, 4.0, n + 1)
    vertices = np.array([[x, y, 0.5] for y in (0.2, 0.8) for x in xs], np.float32)
    triangles = []
    for i in range(n):
        a, b, c, d = i, i + 1, n + 2 + i, n + 1 + i
        triangles += [(a, b, c), (a, c, d)]
    return vertices, np.array(triangles, np.uint32)


def test_refinement_meets_its_guaranteed_bound():
    lattice = bent_lattice()
    vertices, triangles = strip_mesh()
    tolerance = 0.01
    refined = lattice.refine(vertices, triangles, tolerance)
    assert refined.input_vertex_count == len(vertices) and refined.vertex_count > len(vertices)
    assert refined.max_error <= tolerance and refined.rounds >= 1
    assert np.array_equal(refined.rest_positions[:len(vertices)], vertices)
    np.testing.assert_allclose(refined.positions, lattice.deform(refined.rest_positions), atol=1e-5)
    # Added vertices lie on their parent edge at their parameter.
    a, b = refined.rest_positions[refined.parents[:, 0]], refined.rest_positions[refined.parents[:, 1]]
    t = refined.parameters[:, None]
    np.testing.assert_allclose(refined.rest_positions[len(vertices):], (1 - t) * a + t * b, atol=1e-5)
    np.testing.assert_allclose(refined.interpolate(vertices), refined.rest_positions, atol=1e-5)
    # Every edge's guaranteed bound is within the tolerance, and samples of the
    # deformed edges stay that close to their chords.
    edges = {tuple(sorted((int(tri[i]), int(tri[(i + 1) % 3])))) for tri in refined.triangles for i in range(3)}
    s = np.linspace(0, 1, 9)[1:-1, None]
    for u, v in edges:
        p, q = refined.rest_positions[u], refined.rest_positions[v]
        bound, _ = lattice.segment_bound(p, q)
        assert bound <= tolerance
        samples = lattice.deform(((1 - s) * p + s * q).astype(np.float32)).astype(np.float64)
        chord_a, chord_b = refined.positions[u].astype(np.float64), refined.positions[v].astype(np.float64)
        direction = chord_b - chord_a
        along = np.clip((samples - chord_a) @ direction / (direction @ direction), 0, 1)[:, None]
        assert np.linalg.norm(samples - (chord_a + along * direction), axis=1).max() <= tolerance + 1e-5
    # The midpoint test is weaker: it never needs more vertices than the bound.
    assert lattice.refine(vertices, triangles, tolerance, test="midpoint").vertex_count <= refined.vertex_count


def test_refinement_budget_and_cancel():
    lattice = bent_lattice()
    vertices, triangles = strip_mesh()
    with pytest.raises(sinew.Error) as caught:
        lattice.refine(vertices, triangles, 1e-4, max_triangles=20)
    assert caught.value.code == sinew.Result.BUDGET_EXCEEDED
    with pytest.raises(sinew.CancelledError):
        lattice.refine(vertices, triangles, 1e-3, progress=lambda stage, fraction: False)
    with pytest.raises(ZeroDivisionError):
        lattice.refine(vertices, triangles, 1e-3, progress=lambda stage, fraction: 1 / 0)


# ---- bad input ------------------------------------------------------------------------------------

def test_bad_arrays_name_the_argument():
    lattice = make_lattice()
    points = box_map(random_params(10)).astype(np.float32)
    with pytest.raises(sinew.InvalidArgumentError, match="points") as caught:
        lattice.deform(points[:, :2])
    assert caught.value.code == sinew.Result.INVALID_ARGUMENT
    with pytest.raises(sinew.InvalidArgumentError, match="points"):
        lattice.deform(np.array([["a", "b", "c"]]))
    with pytest.raises(sinew.InvalidArgumentError, match="out"):
        lattice.deform(points, out=np.zeros((10, 3), np.float64))
    with pytest.raises(sinew.InvalidArgumentError, match="out"):
        lattice.deform(points, out=np.zeros((9, 3), np.float32))
    with pytest.raises(sinew.InvalidArgumentError, match="normals"):
        lattice.deform(points, np.zeros((9, 3), np.float32))
    bad = points.copy()
    bad[2, 1] = np.nan
    out = np.full_like(points, 7.0)
    with pytest.raises(sinew.NonFiniteError, match="point 2") as caught:
        lattice.deform(bad, out=out)
    assert caught.value.code == sinew.Result.NON_FINITE
    assert (out == 7).all()
    normals = np.ones_like(points)
    normals[4, 0] = np.inf
    with pytest.raises(sinew.NonFiniteError, match="normal 4"):
        lattice.deform(points, normals)
    with pytest.raises(sinew.Error) as caught:
        lattice.set_points(bad)
    assert caught.value.code == sinew.Result.NON_FINITE and np.array_equal(lattice.points, lattice.rest_points())
    with pytest.raises(sinew.Error) as caught:
        lattice.deform(points, first=5, count=6)
    assert caught.value.code == sinew.Result.INDEX_OUT_OF_RANGE


def test_bad_descriptions():
    with pytest.raises(sinew.InvalidArgumentError, match="order"):
        sinew.Lattice(order=(9, 4, 4))
    with pytest.raises(sinew.Error) as caught:
        sinew.Lattice(extents=(1, 0, 1))
    assert caught.value.code == sinew.Result.DEGENERATE
    with pytest.raises(sinew.Error) as caught:
        sinew.Lattice(axes=[[1, 0, 0], [2, 0, 0], [0, 0, 1]])
    assert caught.value.code == sinew.Result.DEGENERATE
    with pytest.raises(ValueError, match="outside"):
        sinew.Lattice(outside="wrap")


# ---- saved data ------------------------------------------------------------------------------------

def test_save_load_round_trip():
    lattice = make_lattice(outside="extend")
    lattice.set_displacements(np.random.default_rng(9).uniform(-0.3, 0.3, (120, 3)))
    data = lattice.save()
    loaded = sinew.Lattice.load(data)
    assert loaded.save() == data
    points = box_map(random_params(100, seed=10)).astype(np.float32)
    assert np.array_equal(loaded.deform(points), lattice.deform(points))
    binding = lattice.bind(points)
    again = sinew.LatticeBinding.load(binding.save())
    assert np.array_equal(again.deform(loaded), binding.deform(lattice))
    with pytest.raises(sinew.Error) as caught:
        sinew.Lattice.load(data[:-64])
    assert caught.value.code == sinew.Result.INVALID_DATA


def test_handles_follow_the_package_conventions():
    lattice = make_lattice()
    points = box_map(random_params(20)).astype(np.float32)
    data, binding = lattice.save(), lattice.bind(points)
    assert isinstance(sinew.load(data), sinew.Lattice) and isinstance(sinew.load(binding.save()), sinew.LatticeBinding)
    refined = lattice.refine(points[:3], np.uint32([[0, 1, 2]]), 0.1)
    assert isinstance(sinew.load(refined.save()), sinew.LatticeRefinement)
    assert pickle.loads(pickle.dumps(lattice)).save() == data
    with pytest.raises(sinew.MismatchError):
        sinew.Lattice.load(binding.save())
    with pytest.raises(sinew.InvalidArgumentError, match="space"):
        lattice.bind(points, space="uvw")
    lattice.close()
    assert lattice.closed
    with pytest.raises(sinew.InvalidStateError):
        lattice.deform(points)


@pytest.mark.skipif(not (GOLDEN / "lattice-v1.bin").exists(), reason="tests/golden not present")
def test_golden_files_written_by_c_round_trip_through_python():
    gold = {name: (GOLDEN / f"{name}-v1.bin").read_bytes()
            for name in ("lattice", "lattice-binding", "lattice-refinement")}
    lattice = sinew.Lattice.load(gold["lattice"])
    assert same_saved_contents(lattice.save(), gold["lattice"])
    # Rebuilt from its description and displacements in Python, it saves as C saved it.
    info = lattice.info
    rebuilt = sinew.Lattice(count=info.count, order=info.order, origin=ORIGIN, axes=AXES, extents=EXTENTS,
                            outside=info.outside)
    rebuilt.displacements = lattice.displacements
    assert same_saved_contents(rebuilt.save(), gold["lattice"])
    # The binding and refinement of tests/lattice/test_lattice_io.c's golden_build, made in Python.
    points = np.float32([[0.1, 0.9, 2.5], [0.2, 1.1, 3.0], [-3.0, 4.0, 7.5], [0.5, 0.5, 0.5]])
    normals = np.float32([[0, 0, 1], [0, 1, 0], [1, 0, 0], [0.6, 0.8, 0]])
    assert same_saved_contents(rebuilt.bind(points, normals).save(), gold["lattice-binding"])
    triangle = np.float32([[-1.0, 0.8, 2.5], [1.0, 0.8, 2.5], [-1.0, 2.2, 4.5]])
    refined = rebuilt.refine(triangle, np.uint32([[0, 1, 2]]), 0.05)
    assert same_saved_contents(refined.save(), gold["lattice-refinement"])
    loaded = sinew.LatticeRefinement.load(gold["lattice-refinement"])
    assert np.array_equal(loaded.positions, refined.positions)
    assert np.array_equal(loaded.triangles, refined.triangles)


# ---- the example script --------------------------------------------------------------------------

def run_example(name, folder):
    """Runs python/examples/<name>.py's main(folder) in this process."""
    import importlib.util
    path = Path(__file__).resolve().parents[1] / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(folder)


def test_example_writes_its_files(tmp_path, capsys):
    run_example("lattice_bend", tmp_path)
    for name in ["lattice_input.obj", "lattice_bent_plain.obj", "lattice_bent_refined.obj", "lattice_cage_bent.obj"]:
        text = (tmp_path / name).read_text()
        assert text.count("\nv ") > 3 and ("\nf " in text or "\nl " in text), name
    assert "wrote" in capsys.readouterr().out
