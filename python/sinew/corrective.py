"""Pose-space correctives and morph targets (include/sinew/corrective.h,
docs/correctives.md).

Keys are offsets of points sculpted at poses (joint angles from
swing_twist(), muscle attributes, any numbers of the rig); at pose time the
pose gives one weight per key by radial basis interpolation, and every point
moves by the weighted sum of its offsets:

    c = sinew.Corrective(offsets, poses=[[1.9, 0.0], [1.9, 1.0]])  # (K, N, 3), (K, P)
    moved = c.deform(pose, rest_points)                            # (N, 3)

With kernel="weights" there is no interpolation: the pose is the weights,
as glTF morph targets: ``sinew.Corrective(targets, kernel="weights").apply(w, base)``.
"""
import numpy as np

from . import _sinew
from ._common import HandleObject, Kind, info, option, register_kind

__all__ = ["Corrective", "swing_twist"]

KERNEL = {"gaussian": 0, "linear": 1, "cubic": 2, "weights": 3}


def swing_twist(rotations, twist_axes=None):
    """Pose numbers of joint rotations: (J, 4) quaternions (x, y, z, w) to
    (J, 3) float32: the swing's rotation vector on the plane perpendicular to
    each twist axis ((J, 3), None = +y), then the twist angle in (-pi, pi]."""
    return _sinew.corrective_swing_twist(rotations, twist_axes)


@register_kind
class Corrective(HandleObject):
    """Keys of point offsets blended by pose.

    ``Corrective(offsets, poses=None, rest_pose=None, kernel="gaussian",
    radius=0, smoothing=0)``: offsets (K, N, 3), dense; or sparse, a dict
    {key: (points, offsets)} with point_count given, each key's points
    increasing. poses (K, P) for the interpolating kernels ("gaussian",
    "linear", "cubic"); none for "weights" (morph targets). rest_pose (P,):
    the pose where nothing moves (default zeros). radius: the pose-space
    distance scale (0 = mean nearest-pose distance); smoothing: Tikhonov
    regularisation (0 = keys reproduced exactly)."""

    kind = Kind.CORRECTIVE

    def __init__(self, offsets, poses=None, rest_pose=None, kernel="gaussian", radius=0.0, smoothing=0.0, *,
                 point_count=None):
        kernel = option(kernel, KERNEL, "kernel")
        if isinstance(offsets, dict):
            if point_count is None:
                raise _sinew.InvalidArgumentError("point_count: required with sparse offsets")
            keys = sorted(offsets)
            if keys != list(range(len(keys))):
                raise _sinew.InvalidArgumentError("offsets: sparse keys must be numbered 0 .. K - 1")
            points = [np.asarray(offsets[k][0], dtype=np.uint32).reshape(-1) for k in keys]
            values = [np.asarray(offsets[k][1], dtype=np.float32).reshape(-1, 3) for k in keys]
            counts = np.array([len(p) for p in points], dtype=np.uint32)
            flat_points = np.concatenate(points) if points else np.zeros(0, np.uint32)
            flat_values = np.concatenate(values) if values else np.zeros((0, 3), np.float32)
            self._handle = _sinew.corrective_create(flat_values, poses, rest_pose, kernel, float(radius),
                                                    float(smoothing), int(point_count), len(keys), counts,
                                                    flat_points)
        else:
            array = np.asarray(offsets, dtype=np.float32)
            if array.ndim != 3 or array.shape[2] != 3:
                raise _sinew.InvalidArgumentError(f"offsets: expected (keys, points, 3), got shape {array.shape}")
            keys, points = array.shape[0], array.shape[1]
            self._handle = _sinew.corrective_create(array.reshape(keys, points * 3), poses, rest_pose, kernel,
                                                    float(radius), float(smoothing), points, keys)

    @property
    def info(self):
        """sinew_corrective_info: point_count, key_count, pose_size,
        offset_count, kernel (name), radius, smoothing, memory_bytes."""
        return info(_sinew.corrective_info(self._handle), {"kernel": KERNEL})

    def weights(self, pose, out=None):
        """The key weights at a pose, float32 (K,)."""
        return _sinew.corrective_weights(self._handle, pose, out)

    def apply(self, weights, base, out=None, first=None, count=None):
        """base (N, 3) moved by the keys' offsets at the given weights."""
        return _sinew.corrective_apply(self._handle, weights, base, out, first, count)

    def deform(self, pose, base, out=None, first=None, count=None):
        """base (N, 3) moved by the keys' offsets at the weights of the pose."""
        return _sinew.corrective_deform(self._handle, pose, base, out, first, count)
