"""Shared fixtures of the binding's tests: small meshes and rigs built in
numpy, and the shared data folder (tests needing it skip when it is absent)."""

import os
import pathlib

import numpy as np
import pytest


@pytest.fixture
def data_dir():
    """SINEW_DATA_DIR (meson sets it), skipping the test when absent."""
    path = pathlib.Path(os.environ.get("SINEW_DATA_DIR", ""))
    if not os.environ.get("SINEW_DATA_DIR") or not path.is_dir():
        pytest.skip("shared test data not found (SINEW_DATA_DIR)")
    return path


def grid_mesh(nx=6, ny=4, size=(2.0, 1.0)):
    """A flat (ny+1) x (nx+1) grid of positions and its triangles (uint32)."""
    xs = np.linspace(0.0, size[0], nx + 1, dtype=np.float32)
    ys = np.linspace(0.0, size[1], ny + 1, dtype=np.float32)
    gx, gy = np.meshgrid(xs, ys)
    positions = np.stack([gx.ravel(), gy.ravel(), np.zeros(gx.size, np.float32)], axis=1).astype(np.float32)
    tris = []
    for j in range(ny):
        for i in range(nx):
            a = j * (nx + 1) + i
            b, c, d = a + 1, a + nx + 1, a + nx + 2
            tris += [(a, b, d), (a, d, c)]
    return positions, np.asarray(tris, np.uint32)


def rotation_z(angle):
    c, s = np.cos(angle), np.sin(angle)
    m = np.eye(4, dtype=np.float32)
    m[0, 0], m[0, 1], m[1, 0], m[1, 1] = c, -s, s, c
    return m


def translation(t):
    m = np.eye(4, dtype=np.float32)
    m[:3, 3] = t
    return m


def rigid(angle=0.7, t=(0.3, -0.2, 0.5)):
    """A rigid motion: rotation about z then translation."""
    return (translation(t) @ rotation_z(angle)).astype(np.float32)


def grid2d(nx, ny, sx=1.0, sy=1.0):
    """tests/bbw/bbw_fixture.c's grid2d_make: diagonals mirrored across the centre lines."""
    vertices = np.float32([[sx * i / nx, sy * j / ny, 0] for j in range(ny + 1) for i in range(nx + 1)])
    triangles = []
    for j in range(ny):
        for i in range(nx):
            a, b = j * (nx + 1) + i, j * (nx + 1) + i + 1
            c, d = b + nx + 1, a + nx + 1
            if (i < nx // 2) != (j < ny // 2):
                triangles += [(a, b, d), (b, c, d)]
            else:
                triangles += [(a, b, c), (a, c, d)]
    return vertices, np.uint32(triangles)


def grid3d(n, size=1.0):
    """n^3 cubes over [0, size]^3, six positively oriented tets per cube (Kuhn)."""
    vertex = lambda i, j, k: i + (n + 1) * (j + (n + 1) * k)
    vertices = np.float32([[size * i / n, size * j / n, size * k / n]
                           for k in range(n + 1) for j in range(n + 1) for i in range(n + 1)])
    paths = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    tets = []
    for k in range(n):
        for j in range(n):
            for i in range(n):
                for path in paths:
                    corner = [i, j, k]
                    tet = [vertex(*corner)]
                    for axis in path:
                        corner[axis] += 1
                        tet.append(vertex(*corner))
                    a, b, c, d = (vertices[t].astype(np.float64) for t in tet)
                    if np.linalg.det(np.stack([b - a, c - a, d - a])) < 0:
                        tet[2], tet[3] = tet[3], tet[2]
                    tets.append(tet)
    return vertices, np.uint32(tets)
