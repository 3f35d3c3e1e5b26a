"""Bounded biharmonic weights (Jacobson, Baran, Popovic, Sorkine 2011).

Skinning weights computed, not painted. Give one domain (a 2D triangle mesh,
a tet mesh, or a surface filled with voxels) and handles (points, bones,
cages), solve, then read weights per domain vertex, at any points, or as the
top-k influences ``sinew.Skin`` takes. See docs/bbw.md.
"""
from dataclasses import dataclass

import numpy as np

from . import _sinew
from .lattice import _choice

__all__ = ["Bbw", "Cage"]

_PARTITION = {"exact": 0, "normalise": 1, "normalize": 1}


@dataclass
class Cage:
    """A cage: its vertices are handles; edges (k, 2) and triangles (k, 3) make
    the weights inside them the linear interpolation of the vertices'."""
    vertices: object
    edges: object = None
    triangles: object = None


class Bbw:
    """Bounded biharmonic weights over one domain.

    ``Bbw(triangles=(V, F) | tets=(V, T) | surface=(V, F), grid_resolution=0,
    points=None, joint_positions=None, bones=None, cages=(), handle_tolerance=0,
    progress=None)``. Handles are numbered points first, then bones, then each
    cage's vertices. progress: callable(stage, fraction) returning False to
    cancel (Ctrl-C cancels too); the GIL is released while the library works.
    """

    def __init__(self, *, triangles=None, tets=None, surface=None, grid_resolution=0, points=None,
                 joint_positions=None, bones=None, cages=(), handle_tolerance=0.0, progress=None, _handle=None):
        if _handle is not None:
            self._h = _handle
            return
        domains = [(kind, mesh) for kind, mesh in (("triangles", triangles), ("tets", tets), ("surface", surface))
                   if mesh is not None]
        if len(domains) != 1:
            raise ValueError("give exactly one domain: triangles=(V, F), tets=(V, T) or surface=(V, F)")
        kind, mesh = domains[0]
        vertices, elements = mesh
        cage_list = [(c.vertices, c.edges, c.triangles) if isinstance(c, Cage) else tuple(c) for c in cages]
        self._h = _sinew.bbw_create(
            ("triangles", "tets", "surface").index(kind), vertices, elements, int(grid_resolution), points,
            joint_positions, bones, cage_list, float(handle_tolerance), progress)

    @property
    def info(self):
        """Dict of sinew_bbw_info (counts, solved, iterations, error_bound, timings, memory_bytes)."""
        info = _sinew.bbw_info(self._h)
        info["solved"] = bool(info["solved"])
        return info

    @property
    def handle_count(self):
        return _sinew.bbw_info(self._h)["handle_count"]

    @property
    def vertex_count(self):
        return _sinew.bbw_info(self._h)["vertex_count"]

    def solve(self, partition="exact", tolerance=0.0, max_iterations=0, shape_mask=None, shape_strength=0.0,
              penalty=0.0, progress=None):
        """Solves for the weights; returns the info dict with "converged" added.
        Reaching max_iterations is not an exception (SINEW_ERROR_NOT_CONVERGED
        keeps the best feasible weights): converged is False and "message" says
        why. progress: callable(stage, fraction); returning False cancels
        (sinew.CancelledError; the previous weights are kept), and so does Ctrl-C."""
        converged, message = _sinew.bbw_solve(self._h, _choice(_PARTITION, partition, "partition"), float(tolerance),
                                           int(max_iterations), shape_mask, float(shape_strength),
                                           float(penalty), progress)
        info = self.info
        info["converged"] = converged
        info["message"] = message
        return info

    def domain_vertices(self, first=0, count=None):
        """Domain vertex positions, float32 (vertex_count, 3) (z = 0 in 2D)."""
        return _sinew.bbw_domain_vertices(self._h, first, count)

    def domain_elements(self, first=0, count=None):
        """Domain elements, uint32 (element_count, 3) in 2D or (element_count, 4) in 3D."""
        return _sinew.bbw_domain_elements(self._h, first, count)

    def vertex_weights(self, out=None, first=0, count=None):
        """Weights at domain vertices, float32 (vertex_count, handle_count)."""
        return _sinew.bbw_vertex_weights(self._h, out, first, count)

    def point_weights(self, points, out=None, first=0, count=None):
        """Weights at arbitrary points (n, 3), float32 (n, handle_count)."""
        return _sinew.bbw_point_weights(self._h, points, out, first, count)

    def top_k(self, influence_count=4, points=None, out_joints=None, out_weights=None, first=0, count=None):
        """Top-k influences in the skinning layout: (joints uint32 (n, k),
        weights float32 (n, k)), sorted by decreasing weight, rows summing to 1.
        points None = the domain vertices. Ready for sinew.Skin."""
        return _sinew.bbw_top_k(self._h, points, int(influence_count), out_joints, out_weights,
                               first, count)

    def save(self):
        """The handle as bytes (same bytes as sinew_bbw_save)."""
        return _sinew.save(self._h)

    @classmethod
    def load(cls, data):
        return cls(_handle=_sinew.load(data))

    def __repr__(self):
        i = _sinew.bbw_info(self._h)
        return f"<sinew.Bbw vertices={i['vertex_count']} handles={i['handle_count']} solved={bool(i['solved'])}>"

