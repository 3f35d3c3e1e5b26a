"""Surface-oriented free-form deformation (include/sinew/soffd.h, docs/soffd.md).

A driver polygon mesh deforms registered points:
    soffd = sinew.Soffd(driver_positions, driver_faces)
    soffd.register(skin_points, weight_threshold=1e-3)
    posed = soffd.deform(soffd.element_frames(driver_now))
"""

import numpy as np

from . import _sinew
from ._common import HandleObject, Kind, info, register_kind


def _faces(faces):
    """(indices, face_sizes) of faces given as an (F, 3) array of triangles
    (face_sizes None) or a sequence of polygons of any sizes."""
    if isinstance(faces, np.ndarray) and faces.ndim == 2:
        return faces, None
    faces = list(faces)
    sizes = np.asarray([len(f) for f in faces], np.uint32)
    if sizes.size and np.all(sizes == 3):
        return np.asarray(faces).reshape(-1, 3), None
    flat = np.asarray([i for f in faces for i in f], np.int64)
    return flat, sizes


@register_kind
class Soffd(HandleObject):
    """A SOFFD binding of a driver mesh.

    positions: (V, 3) driver vertices at the bind pose (rows may be strided).
    faces: (F, 3) triangle array (uint8/16/32 used in place) or a sequence of
    polygons (lists of vertex indices; n-gons are triangulated).
    local, length_scale, skip_degenerate: sinew_soffd_desc's options (0 = default).
    progress: callable(stage, fraction) -> None/True to go on, False to cancel."""

    kind = Kind.SOFFD

    def __init__(self, positions, faces, *, local=0.0, length_scale=0.0, skip_degenerate=False, progress=None):
        indices, sizes = _faces(faces)
        self._handle = _sinew.soffd_create(positions, indices, sizes, local=float(local),
                                           length_scale=float(length_scale), skip_degenerate=bool(skip_degenerate),
                                           progress=progress)

    @property
    def info(self):
        """sinew_soffd_info as a namespace."""
        return info(_sinew.soffd_info(self._handle))

    @property
    def point_count(self):
        return _sinew.soffd_info(self._handle)["point_count"]

    @property
    def element_count(self):
        return _sinew.soffd_info(self._handle)["element_count"]

    def element_faces(self):
        """Driver face of every element (triangle), uint32 (E,)."""
        return _sinew.soffd_element_faces(self._handle)

    def skipped_faces(self):
        """Faces of the zero-area triangles skip_degenerate left out (one entry per triangle)."""
        return _sinew.soffd_skipped(self._handle)

    def register(self, points, *, weight_threshold=0.0, max_contributors=0, max_distance=0.0, exclusive=False,
                 exact=False, progress=None):
        """Registers points (P, 3), replacing any earlier registration and
        edits. Pruning: weight_threshold (relative; 0 = 1e-3),
        max_contributors (0 = 4; 2**32 - 1 = no cap), max_distance (in
        length scales, 0 = none), exclusive (one element per point). Kept
        weights are faded (the threshold's cut subtracted, a capped point's
        farthest elements ramped out), so the deformed surface has no steps.
        The defaults keep each point's 4 nearest significant elements (under
        200 bytes per point; docs/soffd.md, Defaults); max_contributors=2**32 - 1
        keeps every significant element (a wider blend, 1-2 kB per point);
        exact=True (with the threshold, the cap and exclusive left 0) is the
        paper's exact formula, every element for every point."""
        _sinew.soffd_register(self._handle, points, weight_threshold=float(weight_threshold),
                              max_contributors=int(max_contributors), max_distance=float(max_distance),
                              exclusive=bool(exclusive), exact=bool(exact), progress=progress)

    def set_reference(self, reference, *, progress=None):
        """Moves the reference surface (same vertex count) and registers again."""
        _sinew.soffd_set_reference(self._handle, reference, progress=progress)

    def set_falloff(self, local=0.0, length_scale=0.0, *, progress=None):
        """Changes local and/or the length scale (0 = keep) and registers again, keeping the edits."""
        _sinew.soffd_set_falloff(self._handle, float(local), float(length_scale), progress=progress)

    def subdivide(self, chosen, split="edges", *, progress=None):
        """Splits the flagged elements (E truth values), 1 -> 4 at edge midpoints
        (split="edges") or 1 -> 3 at the centroid (split="centroid"); the
        driver gains vertices (added_vertices); edits are kept."""
        modes = {"edges": 0, "centroid": 1}
        if split not in modes:
            raise ValueError(f"split must be 'edges' or 'centroid', got {split!r}")
        _sinew.soffd_subdivide(self._handle, chosen, modes[split], progress=progress)

    def element_parents(self):
        """Element each element was split from (its own number if never split), uint32 (E,)."""
        return _sinew.soffd_element_parents(self._handle)

    def added_vertices(self):
        """(sources uint32 (A, 3), weights float32 (A, 3)): each vertex subdivision
        added is the weighted sum of three earlier vertices."""
        return _sinew.soffd_added_vertices(self._handle)

    def extend_driver(self, driver):
        """The driver positions (V0, 3) extended by the vertices subdivision added,
        each made as added_vertices says."""
        sources, weights = self.added_vertices()
        out = np.empty((len(driver) + len(sources), 3), np.float32)
        out[:len(driver)] = driver
        for j in range(len(sources)):
            out[len(driver) + j] = (weights[j][:, None] * out[sources[j]]).sum(axis=0)
        return out

    def dropped_mass(self, point):
        """Weight mass point lost to pruning (an upper bound; 0 when exact)."""
        return _sinew.soffd_dropped_mass(self._handle, int(point))

    def contributors(self, point):
        """(elements uint32, weights float32): the point's contributing set."""
        return _sinew.soffd_contributors(self._handle, int(point))

    def set_contributors(self, point, elements):
        """Replaces the point's contributing set (weights recomputed); [] pins it at rest."""
        _sinew.soffd_set_contributors(self._handle, int(point), elements)

    def exclude_elements(self, excluded, first=None, count=None):
        """Removes the flagged elements (E truth values) from the sets of points
        [first, first + count) (default: all)."""
        _sinew.soffd_exclude_elements(self._handle, excluded, first, count)

    def element_frames(self, driver, out=None):
        """(E, 4, 4) frames of the current driver positions (V, 3), basic algorithm."""
        return _sinew.soffd_element_frames(self._handle, driver, out)

    def vertex_frames(self, driver, out=None):
        """(V, 4, 4) per-vertex affine maps of the current driver, extended algorithm."""
        return _sinew.soffd_vertex_frames(self._handle, driver, out)

    def deform(self, frames, normals=None, *, out=None, out_normals=None, first=None, count=None):
        """Deformed registered points from element_frames() (basic algorithm).
        normals (P, 3): rest normals to map too. Returns positions, or
        (positions, normals) when normals are given."""
        p, n = _sinew.soffd_deform(self._handle, frames, normals, out=out, out_normals=out_normals, first=first,
                                   count=count)
        return p if normals is None else (p, n)

    def deform_extended(self, vertex_frames, normals=None, *, out=None, out_normals=None, first=None, count=None):
        """Deformed registered points from per-vertex maps (vertex_frames(), or
        a skinned driver's Skin.vertex_matrices()): every affine map of the
        driver is reproduced exactly. Returns as deform()."""
        p, n = _sinew.soffd_deform_extended(self._handle, vertex_frames, normals, out=out, out_normals=out_normals,
                                            first=first, count=count)
        return p if normals is None else (p, n)

    def pose(self, driver, normals=None):
        """element_frames(driver) then deform(): the one-shot call."""
        return self.deform(self.element_frames(driver), normals)

    def __repr__(self):
        if self.closed:
            return "<sinew.Soffd (closed)>"
        i = _sinew.soffd_info(self._handle)
        return f"<sinew.Soffd {i['element_count']} elements, {i['point_count']} points>"


def driver_from_skin(positions, faces, *, target_triangle_count=0, max_error=0.0, weld_tolerance=0.0,
                     joint_positions=None, bones=None, joint_emphasis=0.0, joint_radius=0.0, progress=None):
    """A low-resolution SOFFD driver decimated from a skin
    (sinew_soffd_driver_from_skin, docs/soffd.md "Drivers made from the skin").

    positions: (V, 3) skin vertices; faces: (F, 3) triangles or a sequence of
    polygons (patches are welded). target_triangle_count and/or max_error
    (relative to the box diagonal) say when to stop; joint_positions (J, 3)
    and bones (B, 2) keep more vertices near joints. Other options as
    sinew_soffd_driver_desc (0 = default).
    Returns (positions (N, 3) float32, triangles (T, 3) uint32, report), the
    report a namespace of sinew_soffd_driver_report's fields."""
    indices, sizes = _faces(faces)
    pos, tris, report = _sinew.soffd_driver_from_skin(
        positions, indices, sizes, target_triangle_count=int(target_triangle_count), max_error=float(max_error),
        weld_tolerance=float(weld_tolerance), joint_positions=joint_positions, bones=bones,
        joint_emphasis=float(joint_emphasis), joint_radius=float(joint_radius), progress=progress)
    return pos, tris, info(report)
