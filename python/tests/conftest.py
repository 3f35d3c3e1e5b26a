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
