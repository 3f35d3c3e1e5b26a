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
# (fingers, ears) that a coarse grid merges.
QUALITY = {
    "FAST": (24, 1e-3),
    "BALANCED": (32, 1e-4),
    "QUALITY": (48, 1e-5),
}


@dataclass
class WeightReport:
    """What the library reported: lines for the user ((level, text), level
    'INFO' or 'WARNING'), and the vertices left without weights (no bone
    reaches their part of the volume)."""
    lines: list = field(default_factory=list)
    unweighted: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    seconds: float = 0.0


def compute_weights(vertices, triangles, joint_positions, bones, influence_count=4, quality="BALANCED",
                    progress=None):
    """Weights of the bones at the mesh's vertices.

    vertices (V, 3), triangles (T, 3), joint_positions (J, 3) and bones (B, 2)
    indexing them, all in one space. Returns (joints uint32 (V, k) indexing
    bones, weights float32 (V, k) rows summing to 1 or all zero for the
    unweighted vertices, WeightReport). Raises sinew.Error as the library does.
    """
    sinew = binding.sinew()
    grid, tolerance = QUALITY[quality]
    start = time.perf_counter()
    with sinew.Bbw(surface=(vertices, triangles), joint_positions=joint_positions, bones=bones,
                   grid_resolution=grid, progress=progress) as bbw:
        solved = bbw.solve(tolerance=tolerance, progress=progress)
        joints, weights = bbw.top_k(influence_count, vertices)
    report = WeightReport(seconds=time.perf_counter() - start)
    report.unweighted = np.flatnonzero(weights.sum(axis=1) == 0)
    report.lines.append(("INFO", (
        f"sinew: {len(vertices)} vertices, {len(bones)} bones, {influence_count} influences; volume of "
        f"{solved.vertex_count} vertices at {solved.grid_resolution} cells ({solved.handle_cell_count} cells added "
        f"for bones outside the surface, {solved.refined_cell_count} refined between close bones); "
        f"{solved.iterations} iterations, error bound {solved.error_bound:.2g}; {report.seconds:.2f} s")))
    if not solved.converged:
        report.lines.append(("WARNING", f"sinew: the solve stopped before its tolerance: {solved.message}"))
    if solved.unreached_region_count:
        report.lines.append(("WARNING", (
            f"sinew: {solved.unreached_region_count} part(s) of the volume reached by no bone; "
            f"{len(report.unweighted)} mesh vertices left unweighted (a part thinner than a voxel, such as a "
            f"wrist, cuts it off: a finer Quality joins it)")))
    return joints, weights, report
