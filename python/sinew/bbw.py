"""Bounded biharmonic weights (Jacobson, Baran, Popovic, Sorkine 2011).

Skinning weights computed, not painted. Give one domain (a 2D triangle mesh,
a tet mesh, or a surface filled with voxels) and handles (points, bones,
cages), solve, then read weights per domain vertex, at any points, or as the
top-k influences ``sinew.Skin`` takes. See docs/bbw.md.
"""
from dataclasses import dataclass

from . import _sinew
from ._common import HandleObject, Kind, info, option, register_kind

__all__ = ["Bbw", "Cage", "auto_weights"]

PARTITION = {"exact": 0, "normalise": 1}
# solve(coarse_levels=): 0 and SINEW_BBW_COARSE_NONE of sinew_bbw_solve_desc.
COARSE_LEVELS = {"auto": 0, "none": 0xFFFFFFFF}
DOMAINS = ("triangles", "tets", "surface")
# auto_weights(handle_outside=): sinew_bbw_outside.
HANDLE_OUTSIDE = {"clip": 0, "refuse": 1}


@dataclass
class Cage:
    """A cage: its vertices (k, 3) are handles; edges (e, 2) and triangles (t, 3)
    make the weights inside them the linear interpolation of the vertices'."""
    vertices: object
    edges: object = None
    triangles: object = None


@register_kind
class Bbw(HandleObject):
    """Bounded biharmonic weights over one domain.

    ``Bbw(triangles=(V, F) | tets=(V, T) | surface=(V, F), grid_resolution=0,
    points=None, joint_positions=None, bones=None, cages=(), handle_tolerance=0,
    handle_outside="clip", progress=None)``: a 2D triangle mesh (z ignored), a tet mesh, or a
    surface filled with grid_resolution voxels along its longest side (0 =
    32); point handles (n, 3), bones (b, 2) indexing joint_positions, cages
    (Cage or (vertices, edges, triangles) tuples). Handles are numbered
    points first, then bones, then each cage's vertices. A handle outside the
    domain is clipped to it (a bone keeps its part inside; a handle wholly
    outside attaches to the nearest vertex; info.clipped_handle_count says how
    many) or, with handle_outside="refuse", raises OutsideDomainError. progress:
    callable(stage, fraction) returning False cancels (Ctrl-C too); the GIL
    is released while the library works.
    """

    kind = Kind.BBW

    def __init__(self, *, triangles=None, tets=None, surface=None, grid_resolution=0, points=None,
                 joint_positions=None, bones=None, cages=(), handle_tolerance=0.0, handle_outside="clip",
                 progress=None):
        domains = [(k, mesh) for k, mesh in zip(range(3), (triangles, tets, surface)) if mesh is not None]
        if len(domains) != 1:
            raise _sinew.InvalidArgumentError("domain: give exactly one of triangles=(V, F), tets=(V, T) or "
                                              "surface=(V, F)")
        kind, (vertices, elements) = domains[0]
        cage_list = [(c.vertices, c.edges, c.triangles) if isinstance(c, Cage) else tuple(c) for c in cages]
        self._handle = _sinew.bbw_create(kind, vertices, elements, int(grid_resolution), points, joint_positions,
                                         bones, cage_list, float(handle_tolerance), progress,
                                         option(handle_outside, HANDLE_OUTSIDE, "handle_outside"))

    @property
    def info(self):
        """sinew_bbw_info as a namespace (counts, solved, iterations, residuals,
        error_bound, timings, memory_bytes)."""
        values = _sinew.bbw_info(self._handle)
        values["solved"] = bool(values["solved"])
        return info(values)

    @property
    def handle_count(self):
        return _sinew.bbw_info(self._handle)["handle_count"]

    @property
    def vertex_count(self):
        return _sinew.bbw_info(self._handle)["vertex_count"]

    def solve(self, partition="exact", tolerance=0.0, max_iterations=0, shape_mask=None, shape_strength=0.0,
              penalty=0.0, progress=None, initial_weights=None, coarse_levels="auto"):
        """Solves for the weights (modifies the handle); returns the info with
        converged and message added. partition "exact" | "normalise";
        tolerance: certified RMS error (0 = 1e-4). Reaching max_iterations is
        no exception (SINEW_ERROR_NOT_CONVERGED keeps the best feasible
        weights): converged is False and message says why. progress:
        callable(stage, fraction); returning False cancels
        (sinew.CancelledError; the previous weights are kept), and so does Ctrl-C.
        initial_weights: a warm start, float (vertex_count, handle_count), e.g.
        a coarser volume's point_weights at this domain's vertices; it saves
        iterations, the answer does not depend on it. coarse_levels: for a
        Bbw made from a surface (or loaded from one's data), start from the
        same surface and handles solved at half the grid: "auto" (a volume the
        split does not finish within 40 iterations restarts from them),
        "none", or up to that many levels from the start
        (info.coarse_levels_used says how many ran)."""
        levels = COARSE_LEVELS.get(coarse_levels) if isinstance(coarse_levels, str) else int(coarse_levels)
        if levels is None or (not isinstance(coarse_levels, str) and not 0 < levels < COARSE_LEVELS["none"]):
            raise _sinew.InvalidArgumentError(f"coarse_levels: expected 'auto', 'none' or an int in "
                                              f"[1, {COARSE_LEVELS['none'] - 1}], got {coarse_levels!r}")
        converged, message = _sinew.bbw_solve(self._handle, option(partition, PARTITION, "partition"),
                                              float(tolerance), int(max_iterations), shape_mask,
                                              float(shape_strength), float(penalty), progress, initial_weights,
                                              levels)
        values = _sinew.bbw_info(self._handle)
        values.update(solved=bool(values["solved"]), converged=converged, message=message)
        return info(values)

    def domain_vertices(self, first=None, count=None):
        """Domain vertex positions, float32 (vertex_count, 3) (z = 0 in 2D)."""
        return _sinew.bbw_domain_vertices(self._handle, first, count)

    def domain_elements(self, first=None, count=None):
        """Domain elements, uint32 (element_count, 3) in 2D or (element_count, 4) in 3D."""
        return _sinew.bbw_domain_elements(self._handle, first, count)

    def vertex_weights(self, out=None, first=None, count=None):
        """Weights at domain vertices, float32 (vertex_count, handle_count)."""
        return _sinew.bbw_vertex_weights(self._handle, out, first, count)

    def point_weights(self, points, out=None, first=None, count=None):
        """Weights at arbitrary points (n, 3) in or next to the domain, float32 (n, handle_count)."""
        return _sinew.bbw_point_weights(self._handle, points, out, first, count)

    def top_k(self, influence_count=4, points=None, out_joints=None, out_weights=None, first=None, count=None):
        """Top-k influences in the skinning layout: (joints uint32 (n, k),
        weights float32 (n, k)), by decreasing weight, rows summing to 1, unused
        slots joint 0 weight 0. points None = the domain vertices. Ready for
        sinew.Skin(joints, weights)."""
        return _sinew.bbw_top_k(self._handle, points, int(influence_count), out_joints, out_weights, first, count)

    def __repr__(self):
        if self.closed:
            return "<sinew.Bbw (closed)>"
        i = _sinew.bbw_info(self._handle)
        return f"<sinew.Bbw {i['vertex_count']} vertices, {i['handle_count']} handles, solved={bool(i['solved'])}>"


def auto_weights(vertices, triangles, joint_positions=None, bones=None, points=None, influence_count=4, *,
                 grid_resolution=0, tolerance=0.0, max_iterations=0, handle_outside="clip", progress=None):
    """Skinning weights for a mesh and a skeleton in one call.

    vertices (n, 3) and triangles (t, 3): any triangle surface (closed, open,
    in parts, inside out, a triangle soup, or flat 2D art); joint_positions
    (j, 3) and bones (b, 2) indexing them; points (p, 3) optional point
    handles. Handles are numbered points first, then bones. Returns (joints
    uint32 (n, k), weights float32 (n, k), report dict): the top
    influence_count influences of every vertex by decreasing weight, rows
    summing to one, ready for sinew.Skin(joints, weights, ...). The report
    says what was done: clipped_handle_count / first_clipped_handle /
    max_clip_distance (handles outside the volume, clipped or attached),
    attached_surface_vertex_count (vertices weighted from the nearest part a
    bone reaches), unweighted_surface_vertex_count (0), flipped_component_count,
    dimension (2 for a flat mesh), grid_resolution, iterations, error_bound,
    converged and message, seconds per phase. tolerance: the certified error
    bound asked (0 = 1e-3); handle_outside: "clip" or "refuse" (raise
    OutsideDomainError naming the handle). See docs/bbw.md."""
    outside = option(handle_outside, HANDLE_OUTSIDE, "handle_outside")
    if isinstance(influence_count, bool) or not isinstance(influence_count, int) or not 1 <= influence_count <= 64:
        raise _sinew.InvalidArgumentError(f"influence_count: expected an int in [1, 64], got {influence_count!r}")
    return _sinew.bbw_auto_weights(vertices, triangles, joint_positions, bones, points, int(influence_count),
                                   int(grid_resolution), float(tolerance), int(max_iterations), outside, progress)
