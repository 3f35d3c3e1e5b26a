"""Trivariate B-spline lattices (free-form deformation), after Schein & Elber.

A thin layer over ``sinew._sinew``: option names become keywords and strings,
reports become small dataclasses, and every array goes through the C
binding's checks (float32 taken as is when its rows are 3 packed floats,
copied otherwise; a wrong shape, dtype or a NaN raises ``sinew.Error`` naming
the argument and carrying the result code). See docs/lattice.md for the
technique and docs/python.md for the conventions.

Ranges follow the C library: ``first`` and ``count`` pick elements by their
absolute number, so element i of an input is read at row i and written to row
i of the output.
"""
from dataclasses import dataclass

import numpy as np

from . import _sinew

__all__ = ["Lattice", "LatticeBinding", "LatticeRefinement", "FoldReport"]

_OUTSIDE = {"leave": 0, "clamp": 1, "extend": 2}
_SPACE = {"world": 0, "parameter": 1}
_TEST = {"bound": 0, "midpoint": 1}
_SPLIT = {"farthest": 0, "midpoint": 1}


def _choice(table, value, what):
    """Maps an option given as a name (or the C enum's integer) to its integer."""
    if isinstance(value, str):
        try:
            return table[value.lower()]
        except KeyError:
            raise ValueError(f"{what} must be one of {sorted(table)}, not {value!r}") from None
    return int(value)


def _name(table, value):
    for name, number in table.items():
        if number == value:
            return name
    return value


def _triple(value, what, default):
    if value is None:
        return default
    items = tuple(value)
    if len(items) != 3:
        raise ValueError(f"{what} needs 3 values, got {len(items)}")
    return items


@dataclass(frozen=True)
class FoldReport:
    """What ``Lattice.check_folds`` found: cells whose det J may be <= 0."""
    cell_count: int
    cells_may_fold: int
    min_coefficient: float
    min_sampled_det: float
    min_sampled_at: tuple
    cell_flags: object  # uint8 array (cells[0] * cells[1] * cells[2],) or None

    @property
    def may_fold(self):
        """True when some cell is not proven fold-free."""
        return self.cells_may_fold > 0


class Lattice:
    """A B-spline lattice placed as an oriented box in world space.

    ``Lattice(count=(4, 4, 4), order=(4, 4, 4), origin=(0, 0, 0), axes=None,
    extents=(1, 1, 1), outside="leave")``: control points per axis (u, v, w),
    order per axis (2..8, 4 = cubic), world position of parameter (0, 0, 0),
    the box's edge directions (3x3, rows u, v, w; None = world x, y, z), its
    edge lengths, and what happens to points outside the box ("leave",
    "clamp" or "extend"). A new lattice is the identity.

    Control point (i, j, k) has index i + count[0] * (j + count[1] * k).
    Const calls (getters, evaluate, deform, bind, check_folds, refine) may run
    on many threads; setters need external locking, as in C.
    """

    def __init__(self, count=None, order=None, origin=None, axes=None, extents=None, outside="leave", *,
                 _handle=None):
        if _handle is not None:
            self._h = _handle
            return
        self._h = _sinew.lattice_create(
            _triple(count, "count", (0, 0, 0)), _triple(order, "order", (0, 0, 0)),
            _triple(origin, "origin", (0.0, 0.0, 0.0)), axes,
            _triple(extents, "extents", (0.0, 0.0, 0.0)), _choice(_OUTSIDE, outside, "outside"))

    # ---- description -----------------------------------------------------
    @property
    def info(self):
        """Dict of sinew_lattice_info: count, order, cells, point_count,
        cell_count, origin, axes (unit rows), extents, outside, memory_bytes."""
        info = _sinew.lattice_info(self._h)
        info["outside"] = _name(_OUTSIDE, info["outside"])
        return info

    @property
    def count(self):
        return _sinew.lattice_info(self._h)["count"]

    @property
    def point_count(self):
        return _sinew.lattice_info(self._h)["point_count"]

    @property
    def readonly(self):
        """True for a placement's lattice: only const calls are allowed."""
        return _sinew.lattice_info(self._h)["readonly"]

    # ---- control points --------------------------------------------------
    def rest_points(self, out=None, first=0, count=None):
        """Rest (Greville) positions of the control points, float32 (point_count, 3)."""
        return _sinew.lattice_rest_points(self._h, out, first, count)

    def get_points(self, out=None, first=0, count=None):
        """Current world positions of the control points, float32 (point_count, 3)."""
        return _sinew.lattice_get_points(self._h, out, first, count)

    def get_displacements(self, out=None, first=0, count=None):
        """Current displacements from the rest positions, float32 (point_count, 3)."""
        return _sinew.lattice_get_displacements(self._h, out, first, count)

    @property
    def points(self):
        return self.get_points()

    @points.setter
    def points(self, positions):
        self.set_points(positions)

    @property
    def displacements(self):
        return self.get_displacements()

    @displacements.setter
    def displacements(self, values):
        self.set_displacements(values)

    def set_points(self, positions, first=0, count=None):
        """Moves control points [first, first + count) to positions[first:first + count]
        (world). Nothing changes on failure."""
        _sinew.lattice_set_points(self._h, positions, first, count)

    def set_displacements(self, displacements, first=0, count=None):
        """Sets displacements of control points [first, first + count) from rows
        [first, first + count) of displacements (world units)."""
        _sinew.lattice_set_displacements(self._h, displacements, first, count)

    def reset(self):
        """Puts every control point back at rest (the identity)."""
        _sinew.lattice_reset(self._h)

    # ---- evaluation ------------------------------------------------------
    def parameters(self, world, out=None, first=0, count=None):
        """World points to box parameters (u, v, w), float32 (n, 3)."""
        return _sinew.lattice_parameters(self._h, world, out, first, count)

    def evaluate(self, params, jacobians=False, first=0, count=None):
        """F at parameter points: positions (n, 3); with jacobians=True also
        (positions, J) where J[i] is the 3x3 matrix dF/d(u, v, w) (J[i] @ du = dF)."""
        positions, jac = _sinew.lattice_evaluate(self._h, params, True, bool(jacobians), first, count)
        if not jacobians:
            return positions
        # C writes column-major 3x3 (dF/du, dF/dv, dF/dw); rows of the numpy matrix are F's coordinates.
        return positions, np.ascontiguousarray(jac.reshape(-1, 3, 3).transpose(0, 2, 1))

    def jacobians(self, params, first=0, count=None):
        """dF/d(u, v, w) at parameter points, float32 (n, 3, 3), J[i] @ du = dF."""
        _, jac = _sinew.lattice_evaluate(self._h, params, False, True, first, count)
        return np.ascontiguousarray(jac.reshape(-1, 3, 3).transpose(0, 2, 1))

    def deform(self, points, normals=None, out=None, out_normals=None, first=0, count=None):
        """Deforms world points (n, 3) in one shot. With normals, returns
        (points, normals), the normals mapped by the inverse-transpose Jacobian.
        out / out_normals: optional preallocated float32 (n, 3) arrays (may be the inputs)."""
        result, result_normals = _sinew.lattice_deform(self._h, points, normals, out, out_normals, first, count)
        return result if normals is None else (result, result_normals)

    def __call__(self, points):
        return self.deform(points)

    def segment_bound(self, a, b):
        """(bound, t): guaranteed deviation of the deformed segment a-b from its
        deformed chord and the parameter of the farthest Bezier control point."""
        return _sinew.lattice_segment_bound(self._h, tuple(float(x) for x in a), tuple(float(x) for x in b))

    # ---- bound deformation, folds, refinement -----------------------------
    def bind(self, points, normals=None, space="world"):
        """Precomputes spans and basis values of points (world or "parameter"
        space) for deforming them every frame: returns a LatticeBinding."""
        handle = _sinew.lattice_binding_create(self._h, points, normals, _choice(_SPACE, space, "space"))
        return LatticeBinding(_handle=handle)

    def check_folds(self, samples_per_axis=0, cell_flags=True, progress=None):
        """Fold-over check of every cell (det J's Bezier coefficients, plus
        sampling). progress: callable(stage, fraction); returning False cancels
        (sinew.CancelledError), and so does Ctrl-C."""
        report, flags = _sinew.lattice_check_folds(self._h, int(samples_per_axis), bool(cell_flags), progress)
        return FoldReport(report["cell_count"], report["cells_may_fold"], report["min_coefficient"],
                          report["min_sampled_det"], tuple(report["min_sampled_at"]), flags)

    def refine(self, vertices, triangles, tolerance, test="bound", split="farthest", max_triangles=0,
               progress=None):
        """Adaptive refinement of a triangle mesh (vertices (n, 3), triangles (m, 3)
        of uint32/uint16/uint8) until every deformed edge is within tolerance
        (world units) of its chord. Returns a LatticeRefinement."""
        handle = _sinew.lattice_refine(self._h, vertices, triangles, float(tolerance), _choice(_TEST, test, "test"),
                                _choice(_SPLIT, split, "split"), int(max_triangles), progress)
        return LatticeRefinement(_handle=handle)

    # ---- save and load ---------------------------------------------------
    def save(self):
        """The lattice as bytes (sinew's saved-data format, same bytes as C)."""
        return _sinew.save(self._h)

    @classmethod
    def load(cls, data):
        """A lattice from bytes written by save() or sinew_lattice_save."""
        return cls(_handle=_sinew.load(data))

    def __repr__(self):
        i = _sinew.lattice_info(self._h)
        return f"<sinew.Lattice count={i['count']} order={i['order']}>"


class LatticeBinding:
    """Points bound to a lattice structure (counts, orders, box, outside
    policy); deform them through any lattice of that structure."""

    def __init__(self, *, _handle):
        self._h = _handle

    def __len__(self):
        return _sinew.lattice_binding_info(self._h)["point_count"]

    @property
    def info(self):
        """Dict: point_count, has_normals, space, memory_bytes."""
        info = _sinew.lattice_binding_info(self._h)
        info["space"] = _name(_SPACE, info["space"])
        return info

    def deform(self, lattice, out=None, out_normals=None, normals=False, first=0, count=None):
        """Bound points through lattice's current control points, float32 (n, 3);
        with normals=True (or out_normals given) returns (points, normals)."""
        want_normals = bool(normals) or out_normals is not None
        points, result_normals = _sinew.lattice_binding_deform(self._h, lattice._h, out, out_normals,
                                                               want_normals, first, count)
        return (points, result_normals) if want_normals else points

    def save(self):
        return _sinew.save(self._h)

    @classmethod
    def load(cls, data):
        return cls(_handle=_sinew.load(data))


class LatticeRefinement:
    """A refined mesh: the input's vertices first, then the added ones, each on
    the edge (parents[k, 0], parents[k, 1]) at parameter parameters[k]."""

    def __init__(self, *, _handle):
        self._h = _handle
        mesh = _sinew.lattice_refinement_mesh(_handle)
        self.rest_positions = mesh["rest_positions"]   # float32 (n, 3), undeformed
        self.positions = mesh["positions"]             # float32 (n, 3), deformed
        self.triangles = mesh["triangles"]             # uint32 (m, 3)
        self.parents = mesh["parents"]                 # uint32 (n - input_vertex_count, 2)
        self.parameters = mesh["parameters"]           # float32 (n - input_vertex_count,)
        self.input_vertex_count = mesh["input_vertex_count"]
        self.rounds = mesh["rounds"]
        self.max_error = mesh["max_error"]
        self.memory_bytes = mesh["memory_bytes"]

    @property
    def vertex_count(self):
        return len(self.positions)

    def interpolate(self, attributes):
        """Carries per-vertex attributes (input_vertex_count, ...) onto the refined
        vertices: (1 - t) * a + t * b in vertex order."""
        attributes = np.asarray(attributes)
        if len(attributes) != self.input_vertex_count:
            raise ValueError(f"attributes has {len(attributes)} rows; the input had {self.input_vertex_count}")
        out = np.empty((self.vertex_count,) + attributes.shape[1:], dtype=np.result_type(attributes, np.float32))
        out[:self.input_vertex_count] = attributes
        for k, (a, b) in enumerate(self.parents):
            t = self.parameters[k]
            out[self.input_vertex_count + k] = (1 - t) * out[a] + t * out[b]
        return out

    def save(self):
        return _sinew.save(self._h)

    @classmethod
    def load(cls, data):
        return cls(_handle=_sinew.load(data))
