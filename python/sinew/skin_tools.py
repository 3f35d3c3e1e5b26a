"""Skin weight tools (include/sinew/skin_tools.h, docs/skin-binding.md):
capsule binding, rogue-vertex removal, smoothing, pruning.

Influences are (V, K) arrays: joints (any integer type) and weights (any real
type), in the layout Skin takes. Every tool returns new arrays (uint32
joints, float32 weights, rows sorted by decreasing weight and summing to 1)
and leaves its inputs untouched."""

import collections

import numpy as np

from . import _sinew
from ._common import option

UNBOUND = {"report": 0, "nearest": 1}

Capsule = collections.namedtuple("Capsule", "head tail radius joint")
Capsule.__doc__ = """A bone's volume: points within radius of segment head-tail
(radius 0 = derived from the mesh), scoring for joint."""

CapsuleWeights = collections.namedtuple("CapsuleWeights", "joints weights unbound")
CapsuleWeights.__doc__ = """capsule_weights' result: (V, K) joints and weights,
and the vertices no capsule reached (bound to the nearest with unbound="nearest")."""

RogueReport = collections.namedtuple("RogueReport", "joints weights influences_removed vertices_reattached")


def capsule_weights(positions, capsules, *, influence_count=4, falloff=0.0, radius_quantile=0.0, unbound="report",
                    progress=None):
    """Containment binding: each vertex scores every capsule by its distance to
    the bone segment relative to the radius; the best influence_count joints
    are kept and normalised. capsules: Capsule(head, tail, radius, joint)
    records (or 4-tuples). unbound "report" raises OutsideDomainError (its
    .unbound lists the vertices) when some vertex is outside every capsule's
    band; "nearest" binds it to the nearest capsule."""
    capsules = [Capsule(*c) for c in capsules]
    heads = np.asarray([c.head for c in capsules], np.float32).reshape(-1, 3)
    tails = np.asarray([c.tail for c in capsules], np.float32).reshape(-1, 3)
    radii = np.asarray([c.radius for c in capsules], np.float32)
    joints = np.asarray([c.joint for c in capsules], np.int64)
    result = _sinew.skin_capsule_weights(positions, heads, tails, radii, joints,
                                         influence_count=int(influence_count), falloff=float(falloff),
                                         radius_quantile=float(radius_quantile),
                                         unbound=option(unbound, UNBOUND, "unbound"), progress=progress)
    return CapsuleWeights(*result)


def remove_rogues(positions, triangles, joints, weights, *, progress=None):
    """Cuts each joint's influence down to its main connected region of the
    mesh; vertices left with nothing take a neighbour's influences. Returns
    RogueReport(joints, weights, influences_removed, vertices_reattached)."""
    j, w, report = _sinew.skin_remove_rogues(positions, triangles, joints, weights, progress=progress)
    return RogueReport(j, w, report["influences_removed"], report["vertices_reattached"])


def smooth_weights(positions, triangles, joints, weights, *, iterations=3, strength=0.5, progress=None):
    """Laplacian smoothing of the weights over the mesh's edges, keeping K
    slots per vertex. Returns (joints, weights)."""
    return _sinew.skin_smooth_weights(positions, triangles, joints, weights, iterations=int(iterations),
                                      strength=float(strength), progress=progress)


def prune_weights(joints, weights, influence_count, *, min_weight=0.0):
    """Keeps each vertex's influence_count largest weights, drops those below
    min_weight times the row's largest, renormalises. Returns (joints, weights)
    of influence_count columns."""
    return _sinew.skin_prune_weights(joints, weights, int(influence_count), min_weight=float(min_weight))
