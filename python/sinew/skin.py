"""Linear blend and dual-quaternion skinning (include/sinew/skin.h, docs/skinning.md)."""

import numpy as np

from . import _sinew
from ._common import HandleObject, Kind, info, option, register_kind

BLEND = {"linear": 0, "dual_quaternion": 1, "mixed": 2}
STORAGE = {"float": 0, "compressed": 1}
NORMALS = {"inverse_transpose": 0, "largest_weight": 1, "blended_matrix": 2}
KERNEL = {"auto": 0, "scalar": 1, "sse2": 2, "avx2": 3, "avx512": 4}
UNWEIGHTED = {"reject": 0, "bind": 1}


@register_kind
class Skin(HandleObject):
    """A bound skin: per-vertex joint influences ready to deform.

    joints, weights: (V, K) arrays, K influence slots per vertex. joints may be
    uint8, uint16 or uint32 (used in place, row strides too) or any integer
    array (checked and copied); weights float32 (in place) or any real array
    (copied), or uint16 / uint8 normalised integers (glTF UNORM16 / UNORM8).
    joint_count: number of joints (default: len(inverse_bind), else the
    largest joint index + 1). inverse_bind: (J, 4, 4) inverse bind matrices
    (numpy convention, m @ (x, y, z, 1)); None = identity.
    Options as sinew_skin_desc: blend "linear" | "dual_quaternion" | "mixed"
    (with dq_blend, V factors), storage "float" | "compressed", normals
    "inverse_transpose" | "largest_weight" | "blended_matrix", kernel "auto" |
    "scalar" | "sse2" | "avx2" | "avx512", unweighted_joint (bind all-zero vertices to it
    instead of failing), renormalise, weight_tolerance.
    progress: callable(stage, fraction) -> None/True to go on, False to cancel."""

    kind = Kind.SKIN

    def __init__(self, joints, weights, joint_count=None, *, inverse_bind=None, blend="linear", dq_blend=None,
                 storage="float", normals="inverse_transpose", kernel="auto", renormalise=False,
                 weight_tolerance=0.0, unweighted_joint=None, progress=None):
        if joint_count is None:
            if inverse_bind is not None:
                joint_count = len(inverse_bind)
            else:
                j = np.asarray(joints)
                joint_count = int(j.max()) + 1 if j.size else 0
        self._handle = _sinew.skin_create(
            joints, weights, int(joint_count), inverse_bind=inverse_bind, renormalise=bool(renormalise),
            weight_tolerance=float(weight_tolerance),
            unweighted=UNWEIGHTED["reject" if unweighted_joint is None else "bind"],
            unweighted_joint=0 if unweighted_joint is None else int(unweighted_joint),
            storage=option(storage, STORAGE, "storage"), blend=option(blend, BLEND, "blend"), dq_blend=dq_blend,
            normals=option(normals, NORMALS, "normals"), kernel=option(kernel, KERNEL, "kernel"),
            progress=progress)

    @property
    def info(self):
        """sinew_skin_info as a namespace (enum fields as names)."""
        return info(_sinew.skin_info(self._handle),
                    {"storage": STORAGE, "blend": BLEND, "normals": NORMALS, "kernel": KERNEL})

    @property
    def vertex_count(self):
        return _sinew.skin_info(self._handle)["vertex_count"]

    @property
    def joint_count(self):
        return _sinew.skin_info(self._handle)["joint_count"]

    @property
    def palette_size(self):
        """Floats in a palette of this skin."""
        return _sinew.skin_palette_size(self._handle)

    def palette(self, joint_world, out=None):
        """The palette for one pose: joint_world (J, 4, 4) world matrices of the
        joints. Returns a new float32 array (64-byte aligned), or fills out."""
        return _sinew.skin_palette(self._handle, joint_world, out)

    def deform(self, palette, positions=None, normals=None, tangents=None, *, out=None, out_normals=None,
               out_tangents=None, first=None, count=None):
        """Deforms the given rest streams: positions (V, 3), normals (V, 3),
        tangents (V, 4; w = handedness). Outputs go into out / out_normals /
        out_tangents (float32, rows contiguous, any row stride; the input
        array itself for in place) or new arrays. With first/count only that
        vertex range is written (arrays still hold all V vertices).
        Returns the one output array when one stream is given, else a tuple
        of the outputs of the given streams in the order positions, normals,
        tangents."""
        if normals is None and tangents is None:
            return _sinew.skin_deform(self._handle, palette, positions, out=out, first=first, count=count)[0]
        results = _sinew.skin_deform(self._handle, palette, positions, normals, tangents, out=out,
                                     out_normals=out_normals, out_tangents=out_tangents, first=first, count=count)
        given = tuple(r for r in results if r is not None)
        return given[0] if len(given) == 1 else given

    def pose(self, joint_world, positions, normals=None, tangents=None):
        """palette(joint_world) then deform(): the one-shot call."""
        return self.deform(self.palette(joint_world), positions, normals, tangents)

    def vertex_matrices(self, palette, *, out=None, first=None, count=None):
        """(V, 4, 4) blended matrix of each vertex (numpy convention: M[v] @
        (x, y, z, 1) is the deformed position)."""
        return _sinew.skin_vertex_matrices(self._handle, palette, out=out, first=first, count=count)

    def vertex_influences(self, vertex):
        """(joints uint32, weights float32) stored for one vertex, by decreasing weight."""
        return _sinew.skin_vertex_influences(self._handle, int(vertex))

    def influences(self):
        """(joints, weights), (V, K) arrays of every vertex's stored influences,
        K the most any vertex has, rows padded with joint 0, weight 0."""
        return _sinew.skin_influences(self._handle)

    def __repr__(self):
        if self.closed:
            return "<sinew.Skin (closed)>"
        i = _sinew.skin_info(self._handle)
        return f"<sinew.Skin {i['vertex_count']} vertices, {i['joint_count']} joints>"
