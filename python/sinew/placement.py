"""Placement of deformable objects over a scene (Schein & Elber §3, §4.1, §4.3).

A sketched path over a triangle scene becomes a B-spline lattice lying on the
terrain; a model in the lattice's rest box (x along the path, y across, z up)
or mapped into its parameters is laid onto it. See docs/placement.md.
"""
from dataclasses import dataclass

import numpy as np

from . import _sinew
from ._common import HandleObject, Kind, info, option, register_kind
from .lattice import OUTSIDE, Lattice, triple

__all__ = ["Placement", "PlacementMap", "RelaxReport"]

PATH = {"polyline": 0, "bspline": 1}
VOLUME = {"extrude": 0, "offset": 1}
MISS = {"interpolate": 0, "fail": 1, "depth": 2}
FALLOFF = {"gaussian": 0, "hat": 1, "box": 2}


@dataclass(frozen=True)
class PlacementMap:
    """Affine map from model coordinates to lattice parameters:
    (u, v, w) = offset + scale * (x, y, z), per axis."""
    scale: tuple
    offset: tuple


@dataclass(frozen=True)
class RelaxReport:
    """What Placement.relax did. converged is False when max_steps ran out
    (SINEW_ERROR_NOT_CONVERGED: the relaxed state is kept)."""
    converged: bool
    steps: int
    candidates: int
    time_step: float
    max_lift: float
    message: str


def _scalar(values, name):
    """A width/height scale function as the 2-D float32 array the C layout
    wants (values[a + count[0] * b] is row b, column a); None stays None."""
    if values is None:
        return None
    array = np.asarray(values, dtype=np.float32)
    if array.ndim == 1:
        return array.reshape(1, -1)
    if array.ndim == 2:
        return array
    raise _sinew.InvalidArgumentError(f"{name}: expected a 1-D or 2-D array, got {array.ndim} dimensions")


@register_kind
class Placement(HandleObject):
    """A lattice laid along a sketched path over a triangle scene.

    ``Placement(path, scene_vertices, scene_triangles, width, height, view=(0, 0, -1),
    path_kind="polyline", path_order=0, width_scale=None, height_scale=None,
    count=None, order=None, oversample=0, volume="extrude", miss="interpolate",
    miss_depth=0, outside="leave", progress=None)``: path (n, 3) world points,
    width d and height h world units; width_scale holds the control values of
    d(s) along the path, height_scale those of h(u) (1-D) or h(u, v) (2-D,
    rows along v); path_kind "polyline" | "bspline", volume "extrude" (F1) |
    "offset" (F2), miss "interpolate" | "fail" | "depth". progress:
    callable(stage, fraction); returning False cancels (sinew.CancelledError),
    and so does Ctrl-C. Edits (relax, push, press) modify the placement.
    """

    kind = Kind.PLACEMENT

    def __init__(self, path, scene_vertices, scene_triangles, width, height, *, view=None, path_kind="polyline",
                 path_order=0, width_scale=None, height_scale=None, count=None, order=None, oversample=0,
                 volume="extrude", miss="interpolate", miss_depth=0.0, outside="leave", progress=None):
        self._handle = _sinew.placement_create(
            path, scene_vertices, scene_triangles, float(width), float(height),
            triple(view, "view", (0.0, 0.0, 0.0)), option(path_kind, PATH, "path_kind"), int(path_order),
            _scalar(width_scale, "width_scale"), _scalar(height_scale, "height_scale"),
            triple(count, "count", (0, 0, 0)), triple(order, "order", (0, 0, 0)), int(oversample),
            option(volume, VOLUME, "volume"), option(miss, MISS, "miss"), float(miss_depth),
            option(outside, OUTSIDE, "outside"), progress)

    @property
    def info(self):
        """sinew_placement_info as a namespace: count, rays_cast, misses,
        path_length, contact_length, max_width, max_height, up, volume, memory_bytes."""
        return info(_sinew.placement_info(self._handle), {"volume": VOLUME})

    @property
    def lattice(self):
        """The placement's lattice, read-only (calls that read only). It keeps
        the placement alive and follows its edits."""
        return Lattice._from_handle(_sinew.placement_lattice(self._handle))

    @property
    def column_count(self):
        count = _sinew.placement_info(self._handle)["count"]
        return count[0] * count[1]

    def directions(self, out=None, first=None, count=None):
        """Unit direction each contact column moves along, float32 (columns, 3);
        column (i, j) is row i + count[0] * j."""
        return _sinew.placement_directions(self._handle, out, first, count)

    def lifts(self, out=None, first=None, count=None):
        """Signed distance of each contact point above its ray hit, float32 (columns,)."""
        return _sinew.placement_lifts(self._handle, out, first, count)

    def relax(self, stiffness=0.0, mass=0.0, damping=0.0, angle_degrees=0.0, neighbourhood=0, max_steps=0,
              progress=None):
        """Mass-spring relaxation of the contact layer (§3.2); zero options are
        the library's defaults. Returns a RelaxReport; reaching max_steps keeps
        the state reached and is no exception (converged False)."""
        report = _sinew.placement_relax(self._handle, float(stiffness), float(mass), float(damping),
                                        float(angle_degrees), int(neighbourhood), int(max_steps), progress)
        return RelaxReport(**report)

    def push(self, i, j, amount):
        """Moves contact point (i, j) and its column by amount along its direction."""
        _sinew.placement_push(self._handle, int(i), int(j), float(amount))

    def press(self, center, radius, depth, falloff="gaussian"):
        """Presses the control points above the contact layer inside a sphere
        down their columns by depth * falloff(r / radius) ("gaussian", "hat",
        "box"); returns how many moved."""
        return _sinew.placement_press(self._handle, triple(center, "center", None), float(radius), float(depth),
                                      option(falloff, FALLOFF, "falloff"))

    def map_model(self, box_min, box_max, fraction=0.0, offset=0.0):
        """PlacementMap sending the model box onto u in [offset, offset + fraction]
        (fraction 0 = the model's natural length), v and w in [0, 1]."""
        scale, shift = _sinew.placement_map_model(self._handle, triple(box_min, "box_min", None),
                                                  triple(box_max, "box_max", None), float(fraction), float(offset))
        return PlacementMap(tuple(scale), tuple(shift))

    def deform(self, model, mapping, out=None, first=None, count=None):
        """Lays model points (n, 3) onto the scene through mapping (a PlacementMap)."""
        return _sinew.placement_deform(self._handle, tuple(mapping.scale), tuple(mapping.offset), model, out, first,
                                       count)

    def __repr__(self):
        if self.closed:
            return "<sinew.Placement (closed)>"
        return f"<sinew.Placement count={_sinew.placement_info(self._handle)['count']}>"
