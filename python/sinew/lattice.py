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
from ._common import HandleObject, Kind, info, option, register_kind

__all__ = ["Lattice", "LatticeBinding", "LatticeRefinement", "FoldReport"]

OUTSIDE = {"leave": 0, "clamp": 1, "extend": 2}
SPACE = {"world": 0, "parameter": 1}
TEST = {"bound": 0, "midpoint": 1}
SPLIT = {"farthest": 0, "midpoint": 1}


def triple(value, name, default):
    """Three numbers (a tuple) from any sequence; default when None."""
    if value is None:
        return default
    items = tuple(value)
    if len(items) != 3:
        raise _sinew.InvalidArgumentError(f"{name}: expected 3 values, got {len(items)}")
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


@register_kind
class Lattice(HandleObject):
    """A B-spline lattice placed as an oriented box in world space.

    ``Lattice(count=(4, 4, 4), order=(4, 4, 4), origin=(0, 0, 0), axes=None,
    extents=(1, 1, 1), outside="leave")``: control points per axis (u, v, w;
    0 = the order), order per axis (2..8; 0 = 4, cubic), world position of
    parameter (0, 0, 0), the box's edge directions (3x3, rows u, v, w; None =
    world x, y, z), its edge lengths (None = the unit cube), and what happens
    to points outside the box ("leave", "clamp" or "extend"). A new lattice
    is the identity.

    Control point (i, j, k) is row i + count[0] * (j + count[1] * k). Calls
    that only read (getters, evaluate, deform, bind, check_folds, refine) may
    run on many threads at once; setters modify the lattice.
    """

    kind = Kind.LATTICE

    def __init__(self, count=None, order=None, origin=None, axes=None, extents=None, outside="leave"):
        self._handle = _sinew.lattice_create(
            triple(count, "count", (0, 0, 0)), triple(order, "order", (0, 0, 0)),
            triple(origin, "origin", (0.0, 0.0, 0.0)), axes, triple(extents, "extents", (0.0, 0.0, 0.0)),
            option(outside, OUTSIDE, "outside"))

    # ---- description -----------------------------------------------------
    @property
    def info(self):
        """sinew_lattice_info as a namespace: count, order, cells, point_count,
        cell_count, origin, axes (unit rows), extents, outside, memory_bytes,
        and readonly (a placement's lattice)."""
        return info(_sinew.lattice_info(self._handle), {"outside": OUTSIDE})

    @property
    def count(self):
        return _sinew.lattice_info(self._handle)["count"]

    @property
    def point_count(self):
        return _sinew.lattice_info(self._handle)["point_count"]

    @property
    def readonly(self):
        """True for a placement's lattice: only calls that read are allowed."""
        return _sinew.lattice_info(self._handle)["readonly"]

    # ---- control points --------------------------------------------------
    def rest_points(self, out=None, first=None, count=None):
        """Rest (Greville) positions of the control points, float32 (point_count, 3)."""
        return _sinew.lattice_rest_points(self._handle, out, first, count)

    def get_points(self, out=None, first=None, count=None):
        """Current world positions of the control points, float32 (point_count, 3)."""
        return _sinew.lattice_get_points(self._handle, out, first, count)

    def get_displacements(self, out=None, first=None, count=None):
        """Current displacements from the rest positions, float32 (point_count, 3)."""
        return _sinew.lattice_get_displacements(self._handle, out, first, count)

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

    def set_points(self, positions, first=None, count=None):
        """Moves control points [first, first + count) to rows [first, first + count)
        of positions (world). Nothing changes on failure."""
        _sinew.lattice_set_points(self._handle, positions, first, count)

    def set_displacements(self, displacements, first=None, count=None):
        """Sets the displacements of control points [first, first + count) from
        rows [first, first + count) of displacements (world units)."""
        _sinew.lattice_set_displacements(self._handle, displacements, first, count)

    def reset(self):
        """Puts every control point back at rest (the identity)."""
        _sinew.lattice_reset(self._handle)

    # ---- evaluation ------------------------------------------------------
    def parameters(self, world, out=None, first=None, count=None):
        """World points (n, 3) to box parameters (u, v, w), float32 (n, 3)."""
        return _sinew.lattice_parameters(self._handle, world, out, first, count)

    def evaluate(self, params, jacobians=False, out=None, first=None, count=None):
        """F at parameter points (n, 3): positions (n, 3); with jacobians=True,
        (positions, J) where J[i] is the 3x3 matrix dF/d(u, v, w) (J[i] @ du = dF)."""
        positions, jac = _sinew.lattice_evaluate(self._handle, params, True, bool(jacobians), first, count, out)
        return (positions, _matrices(jac)) if jacobians else positions

    def jacobians(self, params, first=None, count=None):
        """dF/d(u, v, w) at parameter points, float32 (n, 3, 3), J[i] @ du = dF."""
        return _matrices(_sinew.lattice_evaluate(self._handle, params, False, True, first, count)[1])

    def deform(self, points, normals=None, out=None, out_normals=None, first=None, count=None):
        """Deforms world points (n, 3) in one shot. With normals, returns
        (points, normals), the normals mapped by the inverse-transpose Jacobian.
        out / out_normals: optional float32 (n, 3) arrays to fill (may be the inputs)."""
        result, result_normals = _sinew.lattice_deform(self._handle, points, normals, out, out_normals, first, count)
        return result if normals is None else (result, result_normals)

    def segment_bound(self, a, b):
        """(bound, t): guaranteed deviation of the deformed segment a-b from its
        deformed chord, and the parameter of the farthest Bezier control point."""
        return _sinew.lattice_segment_bound(self._handle, tuple(float(x) for x in a), tuple(float(x) for x in b))

    # ---- bound deformation, folds, refinement -----------------------------
    def bind(self, points, normals=None, space="world"):
        """Precomputes spans and basis values of points (world, or "parameter"
        (u, v, w)) for deforming them every frame: a LatticeBinding."""
        handle = _sinew.lattice_binding_create(self._handle, points, normals, option(space, SPACE, "space"))
        return LatticeBinding._from_handle(handle)

    def check_folds(self, samples_per_axis=0, cell_flags=True, progress=None):
        """Fold-over check of every cell (Bezier coefficients of det J, plus
        samples_per_axis^3 samples per cell; 0 = 4). progress: callable(stage,
        fraction); returning False cancels (sinew.CancelledError), and so does Ctrl-C."""
        report, flags = _sinew.lattice_check_folds(self._handle, int(samples_per_axis), bool(cell_flags), progress)
        return FoldReport(report["cell_count"], report["cells_may_fold"], report["min_coefficient"],
                          report["min_sampled_det"], tuple(report["min_sampled_at"]), flags)

    def refine(self, vertices, triangles, tolerance, test="bound", split="farthest", max_triangles=0,
               progress=None):
        """Adaptive refinement of a triangle mesh (vertices (n, 3), triangles (m, 3)
        of uint32/uint16/uint8) until every deformed edge is within tolerance
        (world units) of its chord: a LatticeRefinement. test "bound" (guaranteed)
        or "midpoint"; split "farthest" or "midpoint"."""
        handle = _sinew.lattice_refine(self._handle, vertices, triangles, float(tolerance),
                                       option(test, TEST, "test"), option(split, SPLIT, "split"),
                                       int(max_triangles), progress)
        return LatticeRefinement._from_handle(handle)

    def __repr__(self):
        if self.closed:
            return "<sinew.Lattice (closed)>"
        i = _sinew.lattice_info(self._handle)
        return f"<sinew.Lattice count={i['count']} order={i['order']}>"


def _matrices(columns):
    """(n, 9) column-major 3x3 records (dF/du, dF/dv, dF/dw) as (n, 3, 3) numpy matrices."""
    return np.ascontiguousarray(columns.reshape(-1, 3, 3).transpose(0, 2, 1))


@register_kind
class LatticeBinding(HandleObject):
    """Points bound to a lattice's structure (counts, orders, box, outside
    policy): deform them through any lattice of that structure. Made by
    Lattice.bind or LatticeBinding.load."""

    kind = Kind.LATTICE_BINDING

    def __len__(self):
        return _sinew.lattice_binding_info(self._handle)["point_count"]

    @property
    def info(self):
        """Namespace: point_count, has_normals, space, memory_bytes."""
        return info(_sinew.lattice_binding_info(self._handle), {"space": SPACE})

    def deform(self, lattice, out=None, out_normals=None, normals=False, first=None, count=None):
        """The bound points through lattice's current control points, float32 (n, 3);
        with normals=True (or out_normals given) (points, normals)."""
        want_normals = bool(normals) or out_normals is not None
        points, result_normals = _sinew.lattice_binding_deform(self._handle, lattice._handle, out, out_normals,
                                                               want_normals, first, count)
        return (points, result_normals) if want_normals else points


@register_kind
class LatticeRefinement(HandleObject):
    """A refined mesh (Lattice.refine): the input's vertices first, then the
    added ones, added vertex k on the edge (parents[k, 0], parents[k, 1]) at
    parameter parameters[k]. The arrays are copies, read once."""

    kind = Kind.LATTICE_REFINEMENT

    def _mesh(self):
        mesh = self.__dict__.get("_mesh_cache")
        if mesh is None:
            mesh = self.__dict__["_mesh_cache"] = _sinew.lattice_refinement_mesh(self._handle)
        return mesh

    rest_positions = property(lambda self: self._mesh()["rest_positions"], doc="float32 (n, 3), undeformed")
    positions = property(lambda self: self._mesh()["positions"], doc="float32 (n, 3), deformed")
    triangles = property(lambda self: self._mesh()["triangles"], doc="uint32 (m, 3), input orientation")
    parents = property(lambda self: self._mesh()["parents"], doc="uint32 (n - input_vertex_count, 2)")
    parameters = property(lambda self: self._mesh()["parameters"], doc="float32 (n - input_vertex_count,)")
    input_vertex_count = property(lambda self: self._mesh()["input_vertex_count"])
    rounds = property(lambda self: self._mesh()["rounds"], doc="split rounds made")
    max_error = property(lambda self: self._mesh()["max_error"], doc="largest final edge error")
    memory_bytes = property(lambda self: self._mesh()["memory_bytes"])

    @property
    def vertex_count(self):
        return len(self.positions)

    def interpolate(self, attributes):
        """Carries per-vertex attributes (input_vertex_count, ...) onto the refined
        vertices: (1 - t) * a + t * b, in vertex order."""
        attributes = np.asarray(attributes)
        first = self.input_vertex_count
        if len(attributes) != first:
            raise _sinew.InvalidArgumentError(f"attributes: {len(attributes)} rows; the input had {first}")
        out = np.empty((self.vertex_count,) + attributes.shape[1:], dtype=np.result_type(attributes, np.float32))
        out[:first] = attributes
        for k, (a, b) in enumerate(self.parents):
            t = self.parameters[k]
            out[first + k] = (1 - t) * out[a] + t * out[b]
        return out
