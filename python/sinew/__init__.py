"""sinew: mesh deformation for Python and numpy.

Classes per technique (Skin, Soffd, ...) over the sinew C library's
extension sinew._sinew. Errors are sinew.Error subclasses carrying .code (a
sinew.Result) and .message (the library's message naming the offending
element). See docs/python.md.
"""

from ._sinew import (  # noqa: F401  (re-exported)
    BudgetExceededError,
    BufferTooSmallError,
    CancelledError,
    DegenerateError,
    Error,
    Handle,
    IndexOutOfRangeError,
    InvalidArgumentError,
    InvalidDataError,
    InvalidStateError,
    InvalidTopologyError,
    InvalidWeightsError,
    MismatchError,
    NoResultError,
    NonFiniteError,
    NotConvergedError,
    OutOfMemoryError,
    OutsideDomainError,
    SizeOverflowError,
    UnsupportedError,
)
from ._sinew import result_string, version, version_number  # noqa: F401
from ._common import Kind, Result, load, saved_info  # noqa: F401

# Skinning, the skin weight tools and SOFFD.
from .skin import Skin  # noqa: F401
from . import skin_tools  # noqa: F401
from .skin_tools import Capsule, capsule_weights, prune_weights, remove_rogues, smooth_weights  # noqa: F401
from .skin_tools import (  # noqa: F401
    MAX_LINKS,
    NO_PARENT,
    LineBone,
    bone_links,
    example_weights,
    link_rotations,
    point_to_line_weights,
)
from .soffd import Soffd, driver_from_skin  # noqa: F401

# Lattice, placement and BBW.
from .lattice import FoldReport, Lattice, LatticeBinding, LatticeRefinement  # noqa: F401
from .placement import Placement, PlacementMap, RelaxReport  # noqa: F401
from .bbw import Bbw, Cage, auto_weights  # noqa: F401
from .bbw_pose import BbwPose, PoseReport  # noqa: F401

# Pose-space correctives and morph targets.
from .corrective import Corrective, swing_twist  # noqa: F401
