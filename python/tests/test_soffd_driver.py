"""Drivers made from the skin from Python: a plane of quads down to two
triangles with no error, a closed tube keeping more vertices at its joint,
the report, and errors naming the offending element."""

import numpy as np
import pytest

import sinew
from conftest import grid_mesh


def test_plane_goes_to_two_triangles():
    positions, triangles = grid_mesh(8, 8, size=(1.0, 1.0))
    pos, tris, report = sinew.driver_from_skin(positions, triangles, target_triangle_count=2)
    assert pos.shape == (4, 3) and pos.dtype == np.float32
    assert tris.shape == (2, 3) and tris.dtype == np.uint32
    assert sorted(map(tuple, pos[:, :2].tolist())) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert report.triangle_count == 2 and report.vertex_count == 4
    assert report.skin_to_driver_distance == 0.0 and report.driver_to_skin_distance == 0.0


def test_polygons_are_welded():
    # Two quads that repeat their shared edge's vertices: welded into one strip.
    positions = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0],
                          [1, 0, 0], [2, 0, 0], [2, 1, 0], [1, 1, 0]], np.float32)
    faces = [[0, 1, 2, 3], [4, 5, 6, 7]]
    pos, tris, report = sinew.driver_from_skin(positions, faces, target_triangle_count=2)
    assert report.welded_vertices == 2
    assert report.triangle_count == 2


def tube(rings=60, segs=12, length=2.0, radius=0.2):
    x = np.repeat(np.linspace(0.0, length, rings + 1), segs)
    angle = np.tile(np.arange(segs) * 2 * np.pi / segs, rings + 1)
    positions = np.column_stack([x, radius * np.cos(angle), radius * np.sin(angle)]).astype(np.float32)
    tris = []
    for i in range(rings):
        for s in range(segs):
            a, b = i * segs + s, i * segs + (s + 1) % segs
            tris += [(a, b, b + segs), (a, b + segs, a + segs)]
    return positions, np.asarray(tris, np.uint32)


def test_joint_keeps_more_vertices():
    positions, triangles = tube()
    joints = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0]], np.float32)
    bones = np.array([[0, 1], [1, 2]], np.uint32)
    plain, _, _ = sinew.driver_from_skin(positions, triangles, target_triangle_count=160)
    jointed, _, report = sinew.driver_from_skin(positions, triangles, target_triangle_count=160,
                                                joint_positions=joints, bones=bones)
    assert report.triangle_count <= 160

    def near(p):
        return np.count_nonzero(np.abs(p[:, 0] - 1.0) <= 0.35)

    assert near(jointed) > near(plain)


def test_errors_name_the_element():
    positions, triangles = grid_mesh(4, 4)
    bad = triangles.copy()
    bad[3, 1] = 999
    with pytest.raises(sinew.IndexOutOfRangeError, match="skin face 3 refers to vertex 999"):
        sinew.driver_from_skin(positions, bad, target_triangle_count=2)
    with pytest.raises(sinew.InvalidArgumentError, match="neither"):
        sinew.driver_from_skin(positions, triangles)
    with pytest.raises(ValueError, match="together"):
        sinew.driver_from_skin(positions, triangles, target_triangle_count=2, bones=np.zeros((1, 2), np.uint32))
