"""SOFFD from Python: identity at bind, rigid motion, affine reproduction,
contributor edits, save/load, progress, cancellation, threads."""

import os
import signal
import threading

import numpy as np
import pytest

import sinew
from conftest import grid_mesh, rigid


def driver_and_points(nx=8, ny=6, points=200, seed=0):
    positions, triangles = grid_mesh(nx, ny)
    positions[:, 2] = 0.1 * np.sin(positions[:, 0] * 2.0)  # not flat: frames differ per element
    rng = np.random.default_rng(seed)
    skin = np.column_stack([rng.uniform(0.1, 1.9, points), rng.uniform(0.1, 0.9, points),
                            rng.uniform(-0.2, 0.3, points)]).astype(np.float32)
    return positions.astype(np.float32), triangles, skin


def apply(m, p):
    return p @ m[:3, :3].T + m[:3, 3]


def test_identity_at_bind_and_rigid_motion():
    driver, triangles, points = driver_and_points()
    soffd = sinew.Soffd(driver, triangles)
    soffd.register(points)
    assert soffd.point_count == len(points)
    np.testing.assert_allclose(soffd.pose(driver), points, atol=1e-5)
    m = rigid()
    np.testing.assert_allclose(soffd.pose(apply(m, driver)), apply(m, points), atol=1e-4)
    normals = np.tile(np.array([[0.0, 0.0, 1.0]], np.float32), (len(points), 1))
    p, n = soffd.deform(soffd.element_frames(apply(m, driver)), normals)
    np.testing.assert_allclose(n, normals @ m[:3, :3].T, atol=1e-5)


def test_defaults_prune_and_exact_keeps_every_element():
    driver, triangles, points = driver_and_points()
    soffd = sinew.Soffd(driver, triangles)
    soffd.register(points)  # the defaults: the 4 nearest significant elements, faded
    kept = 0
    for i in range(len(points)):
        elements, weights = soffd.contributors(i)
        assert 1 <= len(elements) <= 4 and weights.min() > 0
        assert weights.sum() == pytest.approx(1.0, abs=1e-5)
        kept += len(elements)
    assert kept < len(points) * soffd.element_count
    soffd.register(points, max_contributors=2**32 - 1)  # every significant element
    assert max(len(soffd.contributors(i)[0]) for i in range(len(points))) > 4
    soffd.register(points, max_contributors=4)
    assert max(len(soffd.contributors(i)[0]) for i in range(len(points))) <= 4
    soffd.register(points, exact=True)
    for i in range(0, len(points), 17):
        assert len(soffd.contributors(i)[0]) == soffd.element_count
    with pytest.raises(sinew.InvalidArgumentError, match="exact"):
        soffd.register(points, exact=True, max_contributors=4)


def test_extended_reproduces_an_affine_map():
    driver, triangles, points = driver_and_points()
    soffd = sinew.Soffd(driver, triangles)
    soffd.register(points, weight_threshold=1e-3)
    a = np.array([[1.2, 0.3, 0.0, 0.5], [0.0, 0.8, 0.1, -0.2], [0.1, 0.0, 1.5, 0.3], [0, 0, 0, 1]], np.float32)
    frames = np.tile(a, (len(driver), 1, 1))
    np.testing.assert_allclose(soffd.deform_extended(frames), apply(a, points), atol=1e-4)
    # The frames the handle estimates are (V, 4, 4) in numpy's convention; at rest, identity.
    rest = soffd.vertex_frames(driver)
    assert rest.shape == (len(driver), 4, 4)
    np.testing.assert_allclose(soffd.deform_extended(rest), points, atol=1e-4)


def test_partition_of_unity_and_contributor_edits():
    driver, triangles, points = driver_and_points()
    soffd = sinew.Soffd(driver, triangles)
    soffd.register(points, weight_threshold=1e-3)
    for i in range(0, len(points), 37):
        elements, weights = soffd.contributors(i)
        assert np.all(np.diff(elements.astype(np.int64)) > 0)
        assert weights.sum() == pytest.approx(1.0, abs=1e-5)
        assert 0.0 <= soffd.dropped_mass(i) <= 1.0
    soffd.set_contributors(0, [3, 1])
    elements, weights = soffd.contributors(0)
    assert list(elements) == [1, 3] and weights.sum() == pytest.approx(1.0, abs=1e-6)
    assert soffd.dropped_mass(0) == 0.0
    soffd.set_contributors(1, [])
    m = rigid()
    posed = soffd.pose(apply(m, driver))
    np.testing.assert_allclose(posed[1], points[1], atol=1e-6)  # pinned at rest
    excluded = np.zeros(soffd.element_count, bool)
    excluded[soffd.contributors(2)[0][0]] = True
    soffd.exclude_elements(excluded, first=2, count=1)
    assert not excluded[soffd.contributors(2)[0]].any()
    with pytest.raises(sinew.IndexOutOfRangeError, match="element"):
        soffd.set_contributors(0, [soffd.element_count])
    with pytest.raises(sinew.InvalidArgumentError, match=r"excluded: expected an array of shape"):
        soffd.exclude_elements(excluded[:-1])


def test_polygons_faces_and_degenerate_skips():
    quad_positions = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [2, 0, 0], [2, 1, 0]], np.float32)
    soffd = sinew.Soffd(quad_positions, [[0, 1, 2, 3], [1, 4, 5, 2]])
    assert soffd.info.face_count == 2 and soffd.element_count == 4
    assert sorted(soffd.element_faces().tolist()) == [0, 0, 1, 1]
    degenerate = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [2, 0, 0]], np.float32)
    with pytest.raises(sinew.DegenerateError, match="triangle"):
        sinew.Soffd(degenerate, np.array([[0, 1, 2], [0, 1, 3]], np.uint16))
    skipped = sinew.Soffd(degenerate, np.array([[0, 1, 2], [0, 1, 3]], np.uint16), skip_degenerate=True)
    assert list(skipped.skipped_faces()) == [1]


def test_bad_arrays_name_the_argument():
    driver, triangles, points = driver_and_points()
    soffd = sinew.Soffd(driver, triangles)
    soffd.register(points)
    with pytest.raises(sinew.InvalidArgumentError, match=r"frames: expected an array of 4x4 matrices, shape \(96, 4, 4\)"):
        soffd.deform(np.zeros((3, 4, 4), np.float32))
    bad = driver.copy()
    bad[5, 1] = np.nan
    with pytest.raises(sinew.NonFiniteError, match="5"):
        soffd.element_frames(bad)
    with pytest.raises(sinew.MismatchError):
        soffd.element_frames(driver[:-1])
    with pytest.raises(sinew.InvalidArgumentError, match=r"points: expected an array of shape \(N, 3\)"):
        soffd.register(points[:, :2])
    with pytest.raises(sinew.IndexOutOfRangeError):
        sinew.Soffd(driver, triangles + len(driver))


def test_save_load_round_trip_gives_the_same_bits():
    driver, triangles, points = driver_and_points()
    soffd = sinew.Soffd(driver, triangles)
    soffd.register(points, weight_threshold=1e-3)
    soffd.set_contributors(4, [0, 2])
    data = soffd.save()
    loaded = sinew.Soffd.load(data)
    assert loaded.point_count == len(points)
    np.testing.assert_array_equal(loaded.contributors(4)[0], [0, 2])
    m = rigid()
    np.testing.assert_array_equal(loaded.pose(apply(m, driver)), soffd.pose(apply(m, driver)))
    assert sinew.saved_info(data).kind == sinew.Kind.SOFFD


def big_registration():
    driver, triangles, _ = driver_and_points(24, 24)
    rng = np.random.default_rng(5)
    points = rng.uniform(0.0, 1.0, (60000, 3)).astype(np.float32) * [2.0, 1.0, 0.2]
    return sinew.Soffd(driver, triangles), points.astype(np.float32)


def test_a_long_registration_is_cancelled_from_the_progress_callable():
    soffd, points = big_registration()
    fractions = []

    def progress(stage, fraction):
        fractions.append(fraction)
        return len(fractions) < 3  # cancel at the third report

    with pytest.raises(sinew.CancelledError) as caught:
        soffd.register(points, weight_threshold=1e-3, progress=progress)
    assert "soffd: register" in caught.value.message
    assert len(fractions) == 3 and fractions[-1] < 1.0
    assert soffd.point_count == 0  # the handle is unchanged


def test_ctrl_c_cancels_a_long_call():
    soffd, points = big_registration()

    def interrupt(stage, fraction):
        if fraction > 0.0:
            signal.raise_signal(signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        soffd.register(points, weight_threshold=1e-3, progress=interrupt)
    assert soffd.point_count == 0


def test_ctrl_c_without_a_callable():
    soffd, points = big_registration()
    timer = threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            for _ in range(200):  # the signal lands inside one of these calls (or between them)
                soffd.register(points, weight_threshold=1e-3)
    finally:
        timer.cancel()


def test_gil_is_released_and_handles_guard_conflicting_calls():
    soffd, points = big_registration()
    started, release = threading.Event(), threading.Event()
    errors = []

    def progress(stage, fraction):
        started.set()
        release.wait(10)

    def work():
        try:
            soffd.register(points, weight_threshold=1e-3, progress=progress)
        except Exception as e:  # reported below
            errors.append(e)

    worker = threading.Thread(target=work)
    worker.start()
    assert started.wait(10)
    # The worker is inside the C call: this thread runs, and may not touch the handle.
    with pytest.raises(sinew.InvalidStateError, match="in use by a call on another thread"):
        soffd.info
    with pytest.raises(sinew.InvalidStateError, match="cannot close"):
        soffd.close()
    release.set()
    worker.join()
    assert not errors
    assert soffd.point_count == len(points)


def test_edits_survive_subdivision_and_falloff():
    positions = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 0.5, 1]], np.float32)
    faces = np.array([0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4, 0, 2, 1, 0, 3, 2], np.uint32).reshape(-1, 3)
    soffd = sinew.Soffd(positions, faces)
    points = np.random.default_rng(3).uniform(-0.2, 1.2, (20, 3)).astype(np.float32)
    soffd.register(points)
    excluded = np.zeros(soffd.element_count, bool)
    excluded[0] = True
    soffd.exclude_elements(excluded, first=0, count=10)
    chosen = np.zeros(soffd.element_count, bool)
    chosen[[0, 1]] = True
    soffd.subdivide(chosen, "edges")
    parents = soffd.element_parents()
    assert len(parents) == 6 + 6 and list(parents[6:]) == [0, 0, 0, 1, 1, 1]
    sources, weights = soffd.added_vertices()
    assert sources.shape == (5, 3) and np.allclose(weights.sum(axis=1), 1)
    soffd.set_falloff(local=4.0)
    for p in range(10):
        assert not np.isin(soffd.contributors(p)[0], [0, 6, 7, 8]).any()  # element 0 and its children
    posed = soffd.pose(soffd.extend_driver(positions))
    np.testing.assert_allclose(posed, points, atol=1e-5)
    with pytest.raises(ValueError):
        soffd.subdivide(chosen, "thirds")
