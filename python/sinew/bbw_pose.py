"""Handle transforms inferred at pose time (include/sinew/bbw_pose.h,
docs/bbw-pose.md): fast automatic skinning transformations (Jacobson et al.
2012) over BBW weights.

Give some handles a full transform, some a few points to reach (a dragged
point handle, a bone's two joints, a cage vertex), leave the rest free; the
solver returns every handle's transform so that skinning with the weights
deforms the domain as rigidly as possible:

    pose = sinew.BbwPose(bbw)                              # a solved sinew.Bbw
    transforms = pose.solve({0: np.eye(4), 2: [rest, target]})
    posed = skin.pose(transforms, vertices)                # sinew.Skin of bbw.top_k()
"""
import collections
import operator
import threading

import numpy as np

from . import _sinew
from ._common import OwnedHandle, info, option

__all__ = ["BbwPose", "PoseReport"]

TRANSFORM = {"affine": 0, "similarity": 1}

PoseReport = collections.namedtuple("PoseReport", "energy iterations")
PoseReport.__doc__ = """What one solve reached: the energy of the returned transforms
(per unit of domain area or volume; 0 for a rigid motion) and the iterations made."""


class BbwPose(OwnedHandle):
    """The pose-time solver of one rest domain and its weights.

    ``BbwPose(bbw)``: from a solved sinew.Bbw (its domain and weights, its
    handle numbering). Or ``BbwPose(triangles=(V, F) | tets=(V, T),
    weights=(V, H) | influences=(joints (V, k), weights (V, k)),
    handle_count=None)``: a 2D triangle domain (z ignored) or a tet domain
    with dense per-vertex weights (as Bbw.vertex_weights gives) or the top-k
    layout (as Bbw.top_k and sinew.Skin take; handle_count defaults to the
    largest joint + 1). Options: cluster_count (rotation clusters; 0 =
    automatic, at least the element count = one rotation per element),
    transform "affine" | "similarity". progress: callable(stage, fraction);
    returning False cancels (sinew.CancelledError), and so does Ctrl-C; the
    GIL is released while the library works.

    The object owns the scratch memory of its solves and the last transforms
    it returned, from which the next solve starts (a warm start, as a
    host's frame loop wants). It may be shared between threads: a solve
    that finds the scratch in use by another thread takes memory of its own.
    The C library has no save for this handle: keep the Bbw (or the weights)
    and build it again."""

    def __init__(self, bbw=None, *, triangles=None, tets=None, weights=None, influences=None, handle_count=None,
                 cluster_count=0, transform="affine", progress=None):
        transform = option(transform, TRANSFORM, "transform")
        if bbw is not None:
            if any(x is not None for x in (triangles, tets, weights, influences, handle_count)):
                raise _sinew.InvalidArgumentError("BbwPose(bbw): the domain and weights come from the bbw; give "
                                                  "triangles/tets and weights/influences only without one")
            self._handle = _sinew.bbw_pose_create_from_bbw(getattr(bbw, "_handle", bbw), int(cluster_count),
                                                           transform, progress)
        else:
            domains = [(k, mesh) for k, mesh in enumerate((triangles, tets)) if mesh is not None]
            if len(domains) != 1:
                raise _sinew.InvalidArgumentError("domain: give a solved Bbw, or exactly one of triangles=(V, F) "
                                                  "or tets=(V, T)")
            kind, (vertices, elements) = domains[0]
            if (weights is None) == (influences is None):
                raise _sinew.InvalidArgumentError("weights: give exactly one of weights=(V, H) or "
                                                  "influences=(joints, weights)")
            joints = influence_weights = None
            if influences is not None:
                joints, influence_weights = influences
                if handle_count is None:
                    j = np.asarray(joints)
                    handle_count = int(j.max()) + 1 if j.size else 0
            self._handle = _sinew.bbw_pose_create(kind, vertices, elements, weights, joints, influence_weights,
                                                  int(handle_count or 0), int(cluster_count), transform, progress)
        self._init_state()

    def _init_state(self):
        self._handle_count = _sinew.bbw_pose_info(self._handle)["handle_count"]
        self._scratch_sizes = {}
        self._scratch = bytearray()
        self._scratch_lock = threading.Lock()
        self._last = None

    @property
    def info(self):
        """sinew_bbw_pose_info as a namespace: dimension (2 or 3), vertex_count,
        element_count, handle_count, cluster_count, skipped_element_count,
        memory_bytes (of the C handle; the scratch is extra)."""
        return info(_sinew.bbw_pose_info(self._handle))

    @property
    def handle_count(self):
        return self._handle_count

    @property
    def last(self):
        """A copy of the transforms the last solve returned (the next solve's
        warm start), or None before the first solve or after reset()."""
        return None if self._last is None else self._last.copy()

    def reset(self):
        """Forgets the last transforms: the next solve starts from the identity rotations."""
        self._last = None

    def scratch_size(self, position_count=0):
        """Bytes of scratch memory a solve with position_count position constraints needs."""
        size = self._scratch_sizes.get(position_count)
        if size is None:
            size = _sinew.bbw_pose_scratch_size(self._handle, int(position_count))
            self._scratch_sizes[int(position_count)] = size
        return size

    def solve(self, targets, *, iterations=0, cold_start=False, out=None, report=False):
        """Infers every handle's transform for one pose.

        targets: {handle: target}, per handle one of
          - a (4, 4) transform (numpy convention, m @ (x, y, z, 1)): the
            handle's full transform, passed through bit for bit;
          - a (rest, target) pair of points, or a list of such pairs (a
            bone's two joints): the handle's transform must carry each rest
            point to its target (2 or 3 coordinates; z ignored in 2D);
          - None, or absent: free, inferred.
        iterations: local/global iterations (0 = 5). The solve starts from
        the transforms the last solve returned (warm start) unless
        cold_start or there are none yet.
        Returns the (H, 4, 4) float32 transforms, ready for
        sinew.Skin.palette / .pose (a skin made of these weights, identity
        bind matrices), written into out when given (a (H, 4, 4) float32
        array whose transpose(0, 2, 1) is C-contiguous, such as one this
        method returned). With report=True returns (transforms,
        PoseReport(energy, iterations)); the energy costs one more local step.
        Errors name the handle: IndexOutOfRangeError for a handle past the
        count, NonFiniteError, InvalidArgumentError (no constraint at all, a
        non-affine fixed transform, a position on a fixed handle),
        DegenerateError (constraints that leave a handle's transform
        undetermined). On failure the warm start is kept (out may have
        been overwritten)."""
        h = self._handle_count
        fixed, fixed_transforms, handles, rest, goals = _constraints(targets, h)
        # With no last result, a cold start: zeros for the free handles would be
        # a warm start from a poor guess where a fixed handle's weight blends in.
        cold_start = bool(cold_start) or self._last is None
        start = None if cold_start else self._last
        if fixed_transforms:
            start = np.zeros((h, 4, 4), np.float32) if start is None else start.copy()
            for j, m in fixed_transforms.items():
                start[j] = m
        position_count = 0 if handles is None else len(handles)
        result = self._with_scratch(
            self.scratch_size(position_count),
            lambda scratch: _sinew.bbw_pose_solve(self._handle, scratch, start, fixed, handles, rest, goals,
                                                  int(iterations), bool(cold_start), bool(report), out))
        transforms = result[0] if report else result
        # The warm start of the next solve: a copy in the same column-major
        # layout, so that it goes back into the C call without a copy.
        self._last = np.copy(transforms, order="K")
        return (transforms, PoseReport(result[1], result[2])) if report else transforms

    def energy(self, transforms):
        """The energy (as solve's report gives it) of any (H, 4, 4) affine
        transforms, each cluster's rotation chosen best: e.g. of the
        translation-only pose, to compare."""
        return self._with_scratch(self.scratch_size(0),
                                  lambda scratch: _sinew.bbw_pose_energy(self._handle, transforms, scratch))

    def _with_scratch(self, size, call):
        """Runs call(scratch) with the object's own scratch (grown to size), or
        with fresh memory when another thread is using it."""
        if not self._scratch_lock.acquire(blocking=False):
            return call(bytearray(size))
        try:
            if len(self._scratch) < size:
                self._scratch = bytearray(size)
            return call(self._scratch)
        finally:
            self._scratch_lock.release()

    def __getstate__(self):
        raise TypeError("sinew.BbwPose cannot be pickled: the C library has no save for it "
                        "(pickle the Bbw or the weights and build it again)")

    def __repr__(self):
        if self.closed:
            return "<sinew.BbwPose (closed)>"
        i = _sinew.bbw_pose_info(self._handle)
        return (f"<sinew.BbwPose {i['dimension']}D, {i['element_count']} elements, {i['handle_count']} handles, "
                f"{i['cluster_count']} clusters>")


def _constraints(targets, handle_count):
    """The C call's arrays of a {handle: target} dict: fixed flags (uint8, or
    None), {handle: matrix} of the fixed ones, and the position constraints
    as handles (n,), rest (n, 3), targets (n, 3) (None when there are none;
    rest and targets are views of one (n, 2, 3) float32 array, read in place)."""
    if not hasattr(targets, "items"):
        raise _sinew.InvalidArgumentError("targets: expected a dict {handle: transform (4, 4) | (rest, target) | "
                                          f"[(rest, target), ...] | None}}, got {type(targets).__name__}")
    fixed = None
    fixed_transforms = {}
    handles, blocks = [], []
    for key, value in targets.items():
        try:
            j = operator.index(key)
        except TypeError:
            raise _sinew.InvalidArgumentError(f"targets: handle keys are ints, got {key!r}") from None
        if not 0 <= j < handle_count:
            raise _sinew.IndexOutOfRangeError(f"targets: handle {j} is out of range (the pose has {handle_count} "
                                              "handles)")
        if value is None:
            continue
        try:
            a = np.asarray(value, np.float32)
        except (TypeError, ValueError):
            a = None
        if a is not None and a.shape == (4, 4):
            is_transform = True
        elif a is not None and a.ndim in (2, 3) and a.shape[-2:] in ((2, 2), (2, 3)):
            is_transform = False
        else:
            shape = "no array" if a is None else f"shape {a.shape}"
            raise _sinew.InvalidArgumentError(f"targets[{j}]: expected a (4, 4) transform, a (rest, target) pair of "
                                              f"points or a list of such pairs, got {shape}")
        if not np.isfinite(a).all():
            bad = np.argwhere(~np.isfinite(a))[0]
            where = ", ".join(str(int(i)) for i in bad)
            raise _sinew.NonFiniteError(f"targets[{j}][{where}] is {a[tuple(bad)]}")
        if is_transform:
            if fixed is None:
                fixed = np.zeros(handle_count, np.uint8)
            fixed[j] = 1
            fixed_transforms[j] = a
            continue
        pairs = a.reshape(-1, 2, a.shape[-1])
        if pairs.shape[-1] == 2:
            pairs = np.concatenate([pairs, np.zeros(pairs.shape[:2] + (1,), np.float32)], axis=2)
        handles += [j] * len(pairs)
        blocks.append(pairs)
    if not handles:
        return fixed, fixed_transforms, None, None, None
    pairs = blocks[0] if len(blocks) == 1 else np.concatenate(blocks)
    return fixed, fixed_transforms, np.asarray(handles, np.uint32), pairs[:, 0], pairs[:, 1]
