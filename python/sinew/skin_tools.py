"""Skin weight tools (include/sinew/skin_tools.h, docs/skin-binding.md):
capsule and point-to-line binding, weights from example poses, rogue-vertex
removal, smoothing, pruning, bone links.

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


SCORING = {"blend": 0, "nearest_segment": 1}


def capsule_weights(positions, capsules, *, influence_count=4, falloff=0.0, radius_quantile=0.0, unbound="report",
                    progress=None, scoring="blend"):
    """Containment binding: each vertex scores every capsule by its distance to
    the bone segment relative to the radius; the best influence_count joints
    are kept and normalised. capsules: Capsule(head, tail, radius, joint)
    records (or 4-tuples). unbound "report" raises OutsideDomainError (its
    .unbound lists the vertices) when some vertex is outside every capsule's
    band; "nearest" binds it to the nearest capsule. scoring "nearest_segment"
    binds every vertex rigidly (weight 1) to the capsule whose segment is
    nearest, radii unused: the SOFFD driver's default binding."""
    capsules = [Capsule(*c) for c in capsules]
    heads = np.asarray([c.head for c in capsules], np.float32).reshape(-1, 3)
    tails = np.asarray([c.tail for c in capsules], np.float32).reshape(-1, 3)
    radii = np.asarray([c.radius for c in capsules], np.float32)
    joints = np.asarray([c.joint for c in capsules], np.int64)
    result = _sinew.skin_capsule_weights(positions, heads, tails, radii, joints,
                                         influence_count=int(influence_count), falloff=float(falloff),
                                         radius_quantile=float(radius_quantile),
                                         unbound=option(unbound, UNBOUND, "unbound"), progress=progress,
                                         scoring=option(scoring, SCORING, "scoring"))
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


# ---- Point-to-line binding ------------------------------------------------------

NO_PARENT = 0xFFFFFFFF
"""Parent index of a root (a bone or joint that continues no other): SINEW_SKIN_NO_PARENT."""

LineBone = collections.namedtuple("LineBone", "head tail joint parent", defaults=(None,))
LineBone.__doc__ = """A bone of the line skeleton: segment head-tail (mesh space), the
joint it writes, and the index (in the bone list) of the bone it continues
(None, -1 or NO_PARENT for a root). The joint plane to the parent passes
through head."""

LineWeights = collections.namedtuple("LineWeights", "joints weights unbound")
LineWeights.__doc__ = """point_to_line_weights' result: (V, K) joints and weights, and
the vertices beyond max_distance of their bone (bound to the nearest with
unbound="nearest")."""


def _roots_as_no_parent(parents):
    """Parent indices as int64 with None and negative values turned into NO_PARENT."""
    if not isinstance(parents, np.ndarray):
        parents = [NO_PARENT if p is None else p for p in parents]
    p = np.asarray(parents)
    if p.dtype.kind == "i":
        p = np.where(p < 0, NO_PARENT, p).astype(np.int64)
    return p


def point_to_line_weights(positions, bones, *, influence_count=4, blend=0.0, max_distance=0.0, unbound="report",
                          progress=None):
    """Point-to-line binding (after Sun et al.): each joint between a bone and
    its parent gets the plane through the bone's head bisecting the two bone
    directions; a vertex belongs to the nearest bone whose side of the planes
    holds it, blended across a plane within blend (a fraction of the shorter
    bone, 0 = 0.2). On a straight limb this is the midplane split. bones:
    LineBone(head, tail, joint, parent) records (or 3- or 4-tuples).
    max_distance > 0 leaves vertices farther than that from their bone
    unbound: unbound "report" raises OutsideDomainError (its .unbound lists
    them), "nearest" binds them wholly to the nearest bone. Returns
    LineWeights(joints, weights, unbound)."""
    bones = [LineBone(*b) for b in bones]
    heads = np.asarray([b.head for b in bones], np.float32).reshape(-1, 3)
    tails = np.asarray([b.tail for b in bones], np.float32).reshape(-1, 3)
    joints = np.asarray([b.joint for b in bones], np.int64)
    parents = _roots_as_no_parent([b.parent for b in bones])
    result = _sinew.skin_point_to_line_weights(positions, heads, tails, joints, parents,
                                               influence_count=int(influence_count), blend=float(blend),
                                               max_distance=float(max_distance),
                                               unbound=option(unbound, UNBOUND, "unbound"), progress=progress)
    return LineWeights(*result)


# ---- Weights from example poses ------------------------------------------------

ExampleWeights = collections.namedtuple(
    "ExampleWeights",
    "joints weights residuals converged message kkt_violation max_residual vertices_limited vertices_enumerated")
ExampleWeights.__doc__ = """example_weights' result: (V, K) joints and weights; residuals
(V,), each vertex's fitting error over the examples (world units) with the
weights written; converged False (with message naming the vertex) when a
vertex's QP missed its certificate (the best weights are kept); the
certificate kkt_violation, max_residual, and the vertices whose optimum
needed more than K joints (vertices_limited), of them solved by enumerating
subsets (vertices_enumerated)."""


def example_weights(positions, examples, matrices, *, influence_count=4, candidates=None, max_subsets=0,
                    progress=None):
    """Weights from example poses (Mohr, Tokheim and Gleicher): per vertex the
    weights (>= 0, summing to 1, at most influence_count nonzero) that best
    reproduce its example positions by linear blend skinning.
    positions: (V, 3) rest positions. examples: (E, V, 3), or a sequence of
    E (V, 3) arrays (rows may be strided). matrices: (E, J, 4, 4) skinning
    matrices (numpy convention; world @ inverse bind, as a palette forms
    them), example e's joint j at [e, j]. candidates: optional (V, C) joints
    each vertex may use (None = every joint). max_subsets: the exact k-sparse
    search's limit (0 = 70). Returns ExampleWeights."""
    m = np.asarray(matrices) if not isinstance(matrices, np.ndarray) else matrices
    if m.ndim != 4 or m.shape[2:] != (4, 4):
        raise _sinew.InvalidArgumentError(f"matrices: expected an array of shape (E, J, 4, 4), got shape {m.shape}")
    if isinstance(examples, np.ndarray) and examples.ndim == 3:
        examples = list(examples)
    if m.shape[0] != len(examples):
        raise _sinew.MismatchError(f"matrices: {m.shape[0]} examples of matrices for {len(examples)} examples of "
                                   "positions")
    joints, weights, residuals, report = _sinew.skin_example_weights(
        positions, examples, m.reshape(-1, 4, 4), m.shape[1], influence_count=int(influence_count),
        candidates=candidates, max_subsets=int(max_subsets), progress=progress)
    return ExampleWeights(joints, weights, residuals, **report)


# ---- Bone links -----------------------------------------------------------------

MAX_LINKS = 64
"""Most links one joint may become (SINEW_SKIN_MAX_LINKS)."""

BoneLinks = collections.namedtuple(
    "BoneLinks", "parents inverse_bind joints weights link_count bone_axis vertices_redistributed")
BoneLinks.__doc__ = """bone_links' result: the new skeleton (parents uint32 with
NO_PARENT for roots, inverse_bind (J', 4, 4)), the redistributed (V, K)
joints and weights, the links made, the bone axis in the joint's rest frame
(the twist axis link_rotations takes) and the vertices whose weights moved."""


def bone_links(parents, inverse_bind, joint, joints, weights, *, link_count=0, max_link_angle=0.0,
               range_of_motion=0.0):
    """Splits joint into a chain of bone links (Weber) so that a joint with a
    large range of motion does not collapse under linear blending: links 1 ..
    n-1 are new joints appended after the old ones, the joint keeps its index
    as link n, every link's inverse bind matrix is the joint's, and weights
    shared by the joint and its parent are spread along the chain.
    parents: (J,) parent per joint (None, -1 or NO_PARENT for roots).
    inverse_bind: (J, 4, 4). joints, weights: (V, K) influences.
    link_count: links to make (1 .. MAX_LINKS); 0 = derived from
    range_of_motion (radians, required then) and max_link_angle (radians,
    0 = 60 degrees). Returns BoneLinks; the inputs are untouched. At pose
    time drive the links with link_rotations."""
    new_parents, new_inverse_bind, new_joints, new_weights, report = _sinew.skin_bone_links(
        _roots_as_no_parent(parents), inverse_bind, int(joint), joints, weights, link_count=int(link_count),
        max_link_angle=float(max_link_angle), range_of_motion=float(range_of_motion))
    return BoneLinks(new_parents, new_inverse_bind, new_joints, new_weights, report["link_count"],
                     np.asarray(report["bone_axis"], np.float32), report["vertices_redistributed"])


def link_rotations(rotation, bone_axis, link_count, out=None):
    """Spreads a split joint's rotation over its link_count links, swing and
    twist separately: rotation is the joint's rotation relative to its rest
    orientation, in its rest frame, as a quaternion (x, y, z, w); bone_axis
    the twist axis (BoneLinks.bone_axis). Returns (link_count, 4) unit
    quaternions whose product in order is the rotation: link 1 gets rest
    rotation times q_1 (with the joint's translation), links 2 .. n q_k."""
    return _sinew.skin_link_rotations(rotation, bone_axis, int(link_count), out)
