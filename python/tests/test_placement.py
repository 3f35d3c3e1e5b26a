"""Placement from Python: the invariants tests/lattice/placement checks in C
(flat ground is a rigid placement, contact layer on the ground, nothing to
relax there, push and press move what they should, F1 never folds over a
height field), the read-only lattice view, errors, and saved data against the
C library's golden file."""
import math
from pathlib import Path

import numpy as np
import pytest

import sinew

GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "golden"


def floor(x0=-20.0, x1=20.0, y0=-20.0, y1=20.0, z=0.0):
    vertices = np.float32([[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]])
    return vertices, np.uint32([[0, 1, 2], [0, 2, 3]])


def height_field(n=24, half=8.0, f=lambda x, y: 0.5 * math.sin(0.8 * x) * math.cos(0.6 * y)):
    """An (n + 1)^2 grid over [-half, half]^2 at heights f(x, y), with math's sin/cos as C's."""
    step = 2 * half / n
    vertices = np.float32([[-half + i * step, -half + j * step, f(-half + i * step, -half + j * step)]
                           for j in range(n + 1) for i in range(n + 1)])
    triangles = []
    for j in range(n):
        for i in range(n):
            a = i + (n + 1) * j
            triangles += [(a, a + 1, a + n + 2), (a, a + n + 2, a + n + 1)]
    return vertices, np.uint32(triangles)


def greville(n, order):
    p = order - 1
    knots = [0.0] * order + [(j - p) / (n - p) for j in range(order, n)] + [1.0] * order
    return np.array([sum(knots[i + 1:i + order]) / p for i in range(n)])


def same_saved_contents(a, b):
    """Equal but for the writing library's version (bytes 12..15) and the checksum (32..39)."""
    return len(a) == len(b) and a[:12] == b[:12] and a[16:32] == b[16:32] and a[40:] == b[40:]


DIAGONAL_PATH = np.float32([[1, 2, 5], [1 + 4 * 0.6, 2 + 4 * 0.8, 5], [1 + 8 * 0.6, 2 + 8 * 0.8, 5]])


@pytest.mark.parametrize("volume", ["extrude", "offset"])
def test_flat_ground_is_a_rigid_placement(volume):
    placement = sinew.Placement(DIAGONAL_PATH, *floor(), width=1.0, height=0.5, volume=volume)
    info = placement.info
    assert info.contact_length == pytest.approx(8.0, abs=1e-4)
    assert info.path_length == pytest.approx(8.0, abs=1e-4)
    assert info.max_width == pytest.approx(1.0) and info.max_height == pytest.approx(0.5)
    assert info.misses == 0 and info.up == (0.0, 0.0, 1.0) and info.volume == volume
    # The rest box x in [0, 8], y in [-1, 1], z in [0, 0.5] lands on the path rigidly.
    rng = np.random.default_rng(7)
    model = np.column_stack([rng.uniform(0, 8, 200), rng.uniform(-1, 1, 200), rng.uniform(0, 0.5, 200)])
    tangent, normal = np.array([0.6, 0.8, 0]), np.array([-0.8, 0.6, 0])
    up, origin = np.array([0, 0, 1]), np.array([1, 2, 0])
    want = origin + model[:, :1] * tangent + model[:, 1:2] * normal + model[:, 2:] * up
    lattice = placement.lattice
    np.testing.assert_allclose(lattice.deform(model.astype(np.float32)), want, atol=2e-4)
    # Contact control points lie on the ground; layer k at g_k * h.
    count, order = lattice.info.count, lattice.info.order
    heights = lattice.points[:, 2].reshape(count[2], -1)
    np.testing.assert_allclose(heights, np.repeat(0.5 * greville(count[2], order[2])[:, None], heights.shape[1], 1),
                               atol=1e-5)
    report = placement.relax()
    assert report.converged and report.steps == 0 and report.max_lift == 0.0


def test_model_map_and_deform_evaluate_the_lattice():
    placement = sinew.Placement(DIAGONAL_PATH, *floor(), width=1.0, height=0.5)
    mapping = placement.map_model(box_min=(0, -0.3, 0), box_max=(6, 0.3, 0.4), offset=0.2)
    assert mapping.offset[0] == pytest.approx(0.2)
    assert mapping.scale[0] == pytest.approx(1 / 8, rel=1e-4)  # natural length: q = 6 / 8
    model = np.random.default_rng(8).uniform((0, -0.3, 0), (6, 0.3, 0.4), (100, 3)).astype(np.float32)
    params = np.float32(mapping.offset) + np.float32(mapping.scale) * model
    np.testing.assert_allclose(placement.deform(model, mapping), placement.lattice.evaluate(params), atol=1e-5)
    with pytest.raises(sinew.InvalidArgumentError, match="offset"):
        placement.map_model((0, -0.3, 0), (6, 0.3, 0.4), offset=0.5)


def test_push_moves_its_column_and_bad_pushes_change_nothing():
    placement = sinew.Placement(np.float32([[-6, 0, 6], [6, 0, 6]]), *height_field(), width=0.5, height=0.4,
                                volume="offset")
    lattice = placement.lattice
    before = lattice.points
    count = lattice.info.count
    i, j = 5, 2
    column = i + count[0] * j
    placement.push(i, j, 0.3)
    after = lattice.points
    direction = placement.directions()[column]
    assert placement.lifts()[column] == pytest.approx(0.3, abs=1e-6)
    assert np.linalg.norm(direction) == pytest.approx(1.0, abs=1e-5) and direction[2] > 0.5
    want = before.copy()
    columns = count[0] * count[1]
    want[np.arange(len(want)) % columns == column] += 0.3 * direction
    np.testing.assert_allclose(after, want, atol=1e-5)
    with pytest.raises(sinew.IndexOutOfRangeError, match="i ="):
        placement.push(count[0], 0, 1.0)
    with pytest.raises(sinew.NonFiniteError, match="push amount"):
        placement.push(0, 0, float("nan"))
    assert np.array_equal(lattice.points, after)
    # Relaxing brings a point pushed into the scene back up.
    placement.push(i, j, -1.0)
    assert placement.relax().converged
    assert placement.lifts()[column] >= 0.0


def test_press_moves_the_points_inside_the_tool():
    placement = sinew.Placement(np.float32([[0, 0, 3], [10, 0, 3]]), *floor(), width=1.0, height=1.0)
    before = placement.lattice.points
    pressed = placement.press(center=(5, 0.2, 1), radius=2.0, depth=0.6, falloff="hat")
    after = placement.lattice.points
    columns = np.prod(placement.info.count[:2])
    r = np.linalg.norm(before - np.float32([5, 0.2, 1]), axis=1) / 2
    inside = (np.arange(len(before)) >= columns) & (r < 1)
    dz = np.where(inside, -0.6 * (1 - r), 0.0)
    dz = np.maximum(dz, -before[:, 2])
    assert pressed == inside.sum() > 0
    np.testing.assert_allclose(after[:, :2], before[:, :2], atol=1e-6)
    np.testing.assert_allclose(after[:, 2], before[:, 2] + dz, atol=1e-5)
    with pytest.raises(sinew.InvalidArgumentError, match="radius"):
        placement.press((5, 0, 1), 0.0, 0.6)


def test_extrusion_never_folds_over_a_height_field():
    path = np.float32([[-6, -3, 6], [-2, 2, 6], [2, -2, 6], [6, 3, 6]])
    placement = sinew.Placement(path, *height_field(), width=0.8, height=0.6, path_kind="bspline", count=(32, 6, 4))
    report = placement.lattice.check_folds()
    assert report.cells_may_fold == 0 and report.min_sampled_det > 0


def test_relax_reports_not_converged_and_cancels():
    path = np.float32([[-6, 0, 6], [6, 0, 6]])
    placement = sinew.Placement(path, *height_field(), width=0.5, height=0.4)
    report = placement.relax(max_steps=1, neighbourhood=3)
    assert not report.converged and report.steps == 1 and report.message
    saved = placement.save()
    with pytest.raises(sinew.CancelledError):
        placement.relax(progress=lambda stage, fraction: False)
    assert placement.save() == saved  # unchanged on cancel
    stages = set()
    placement.relax(progress=lambda stage, fraction: stages.add(stage))
    assert "placement: relax" in stages


def test_the_lattice_view_is_read_only_and_keeps_the_placement_alive():
    placement = sinew.Placement(DIAGONAL_PATH, *floor(), width=1.0, height=0.5)
    lattice = placement.lattice
    assert lattice.readonly
    with pytest.raises(sinew.InvalidStateError, match="placement"):
        lattice.set_points(lattice.points)
    with pytest.raises(sinew.InvalidStateError):
        lattice.reset()
    before = lattice.points
    placement.push(0, 0, 0.25)
    assert not np.array_equal(lattice.points, before)  # the view follows the edits
    del placement
    assert lattice.points.shape == before.shape
    # Closing the placement ends its lattice too.
    other = sinew.Placement(DIAGONAL_PATH, *floor(), width=1.0, height=0.5)
    view = other.lattice
    other.close()
    with pytest.raises(sinew.InvalidStateError, match="closed"):
        view.get_points()


def test_creation_errors_name_the_element():
    vertices, triangles = floor()
    with pytest.raises(sinew.InvalidArgumentError, match="width"):
        sinew.Placement(DIAGONAL_PATH, vertices, triangles, width=0.0, height=0.5)
    bad_path = DIAGONAL_PATH.copy()
    bad_path[1, 1] = np.nan
    with pytest.raises(sinew.NonFiniteError, match="path point 1"):
        sinew.Placement(bad_path, vertices, triangles, width=1.0, height=0.5)
    with pytest.raises(sinew.IndexOutOfRangeError, match="scene triangle 1"):
        sinew.Placement(DIAGONAL_PATH, vertices, np.uint32([[0, 1, 2], [0, 2, 9]]), width=1.0, height=0.5)
    with pytest.raises(sinew.NoResultError, match="no ray hit"):
        sinew.Placement(DIAGONAL_PATH, vertices + np.float32([100, 0, 0]), triangles, width=1.0, height=0.5)
    with pytest.raises(sinew.InvalidArgumentError, match="scene_triangles"):
        sinew.Placement(DIAGONAL_PATH, vertices, triangles[:, :2], width=1.0, height=0.5)
    with pytest.raises(ValueError, match="volume"):
        sinew.Placement(DIAGONAL_PATH, vertices, triangles, width=1.0, height=0.5, volume="wrap")


def test_width_and_height_scale_functions():
    path = np.float32([[0, 0, 3], [10, 0, 3]])
    placement = sinew.Placement(path, *floor(), width=1.0, height=1.0, width_scale=[1.0, 2.0],
                                height_scale=[[1.0, 3.0], [1.0, 3.0]])
    info = placement.info
    assert info.max_width == pytest.approx(2.0, rel=1e-5) and info.max_height == pytest.approx(3.0, rel=1e-5)
    with pytest.raises(sinew.Error):
        sinew.Placement(path, *floor(), width=1.0, height=1.0, width_scale=[1.0, -1.0])


def golden_scene():
    """tests/lattice/placement/test_placement_io.c's make_scene, value for value."""
    grid, half = 12, 3.0
    step = 2 * half / grid
    vertices = []
    for j in range(grid + 1):
        for i in range(grid + 1):
            x, y = -half + i * step, -half + j * step
            vertices.append((x, y, 0.2 * math.sin(1.3 * x) * math.cos(0.9 * y)))
    triangles = []
    for j in range(grid):
        for i in range(grid):
            a = i + (grid + 1) * j
            triangles += [(a, a + 1, a + grid + 2), (a, a + grid + 2, a + grid + 1)]
    first = len(vertices)
    vertices += [(0.5, -2, 1), (1.5, -2, 1), (1.5, 2, 1), (0.5, 2, 1)]
    triangles += [(first, first + 1, first + 2), (first, first + 2, first + 3)]
    return np.float32(vertices), np.uint32(triangles)


def test_save_load_round_trip():
    placement = sinew.Placement(np.float32([[-6, 0, 6], [6, 0, 6]]), *height_field(), width=0.5, height=0.4)
    placement.relax(max_steps=200)
    data = placement.save()
    loaded = sinew.Placement.load(data)
    assert loaded.save() == data
    model = np.random.default_rng(3).uniform((0, -0.2, 0), (4, 0.2, 0.3), (50, 3)).astype(np.float32)
    mapping = placement.map_model((0, -0.2, 0), (4, 0.2, 0.3), offset=0.1)
    assert np.array_equal(loaded.deform(model, mapping), placement.deform(model, mapping))
    # Edits continue identically after a load.
    placement.push(3, 2, 0.2)
    loaded.push(3, 2, 0.2)
    assert loaded.save() == placement.save()


@pytest.mark.skipif(not (GOLDEN / "placement-v1.bin").exists(), reason="tests/golden not present")
def test_golden_file_written_by_c_is_what_python_builds():
    gold = (GOLDEN / "placement-v1.bin").read_bytes()
    assert same_saved_contents(sinew.Placement.load(gold).save(), gold)
    # make_placement(OFFSET, count (4, 3, 3), order (3, 2, 2)) and edit(p, 0.25) of the C test.
    placement = sinew.Placement(np.float32([[-2, 0, 3], [2, 0.2, 3]]), *golden_scene(), width=0.8, height=0.5,
                                volume="offset", count=(4, 3, 3), order=(3, 2, 2))
    placement.relax(max_steps=300)
    placement.push(1, 1, 0.25)
    placement.push(2, 0, -0.125)
    assert placement.press(center=(0.2, 0.1, 0.6), radius=1.2, depth=0.15) > 0
    assert same_saved_contents(placement.save(), gold)


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
    run_example("placement_snake", tmp_path)
    for name in [f"placement_{scene}_{part}.obj" for scene in ("staircase", "bumpy")
                 for part in ("scene", "snake", "snake_springs")]:
        text = (tmp_path / name).read_text()
        assert text.count("\nv ") > 3 and ("\nf " in text or "\nl " in text), name
    assert "wrote" in capsys.readouterr().out
