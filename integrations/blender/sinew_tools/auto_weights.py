"""Automatic skinning weights through the library: the add-on's one call.

compute_weights() is the only place that knows which sinew API computes the
weights, so switching to another (a one-call API) changes this file alone.
"""
import time
from dataclasses import dataclass, field

import numpy as np

from . import binding

# Quality presets: voxels along the model's longest side and the certified
# RMS error the solve stops at. FAST is for previews, QUALITY for thin parts
# (fingers, ears) that a coarse grid merges. BALANCED is the library's own
# default for sinew.auto_weights.
QUALITY = {
    "FAST": (24, 3e-3),
    "BALANCED": (32, 1e-3),
    "QUALITY": (48, 1e-4),
}


@dataclass
class WeightReport:
    """What the library reported: lines for the user ((level, text), level
    'INFO' or 'WARNING'), and the vertices left without weights (none unless
    no bone reaches any part of the volume)."""
    lines: list = field(default_factory=list)
    unweighted: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    seconds: float = 0.0


def _summary(report, vertex_count, bone_count, influence_count, seconds):
    r = report
    domain = ("the flat mesh itself" if r["dimension"] == 2 else
              f"a volume of {r['domain_vertex_count']} vertices at {r['grid_resolution']} cells")
    return (f"sinew: {vertex_count} vertices, {bone_count} bones, {influence_count} influences; {domain}; "
            f"{r['iterations']} iterations, error bound {r['error_bound']:.2g}; {seconds:.2f} s "
            f"(domain {r['seconds_domain']:.2f} s, solve {r['seconds_solve']:.2f} s)")


def compute_weights(vertices, triangles, joint_positions, bones, influence_count=4, quality="BALANCED",
                    progress=None):
    """Weights of the bones at the mesh's vertices, through sinew.auto_weights.

    vertices (V, 3), triangles (T, 3), joint_positions (J, 3) and bones (B, 2)
    indexing them, all in one space. Returns (joints uint32 (V, k) indexing
    bones, weights float32 (V, k) rows summing to 1, WeightReport). Raises
    sinew.Error as the library does.
    """
    sinew = binding.sinew()
    grid, tolerance = QUALITY[quality]
    start = time.perf_counter()
    joints, weights, r = sinew.auto_weights(vertices, triangles, joint_positions, bones,
                                            influence_count=influence_count, grid_resolution=grid,
                                            tolerance=tolerance, progress=progress)
    report = WeightReport(seconds=time.perf_counter() - start)
    report.unweighted = np.flatnonzero(weights.sum(axis=1) == 0)
    report.lines.append(("INFO", _summary(r, len(vertices), len(bones), influence_count, report.seconds)))
    if r["flipped_component_count"]:
        report.lines.append(("INFO", f"sinew: {r['flipped_component_count']} closed part(s) wound inwards, "
                                     "turned outwards"))
    if r["clipped_handle_count"]:
        report.lines.append(("INFO", (
            f"sinew: {r['clipped_handle_count']} bone(s) reach outside the mesh and were clipped to it (first: "
            f"bone {r['first_clipped_handle']}, up to {r['max_clip_distance']:.3g} away)")))
    if r["attached_surface_vertex_count"]:
        report.lines.append(("INFO", (
            f"sinew: {r['attached_surface_vertex_count']} vertices of parts no bone reaches (thinner than a voxel, "
            "or floating) take the weights of the nearest part a bone reaches")))
    if not r["converged"]:
        report.lines.append(("WARNING", f"sinew: the solve stopped before its tolerance: {r['message']}"))
    if len(report.unweighted):
        report.lines.append(("WARNING", f"sinew: {len(report.unweighted)} mesh vertices left unweighted"))
    return joints, weights, report
