"""What every technique module shares: result and kind enums, option
parsing, the base class of objects that own a C handle, and load()."""

import enum
import types

from . import _sinew


class Result(enum.IntEnum):
    """sinew_result codes (the .code of every sinew.Error)."""

    OK = 0
    INVALID_ARGUMENT = 1
    OUT_OF_MEMORY = 2
    SIZE_OVERFLOW = 3
    NON_FINITE = 4
    INDEX_OUT_OF_RANGE = 5
    DEGENERATE = 6
    INVALID_WEIGHTS = 7
    MISMATCH = 8
    CANCELLED = 9
    NOT_CONVERGED = 10
    BUDGET_EXCEEDED = 11
    INVALID_TOPOLOGY = 12
    OUTSIDE_DOMAIN = 13
    INVALID_STATE = 14
    UNSUPPORTED = 15
    NO_RESULT = 16
    BUFFER_TOO_SMALL = 17
    INVALID_DATA = 18


class Kind(enum.IntEnum):
    """sinew_kind: what a handle, or saved data, holds."""

    SKIN = 1
    SOFFD = 2
    LATTICE = 3
    LATTICE_BINDING = 4
    LATTICE_REFINEMENT = 5
    BBW = 6
    PLACEMENT = 7
    CORRECTIVE = 8


def option(value, choices, name):
    """The C enum value of an option given as a name ("dual_quaternion") or
    an int; raises InvalidArgumentError naming the option otherwise."""
    if isinstance(value, str):
        try:
            return choices[value]
        except KeyError:
            names = ", ".join(repr(c) for c in choices)
            raise _sinew.InvalidArgumentError(f"{name}: unknown value {value!r} (one of {names})") from None
    if isinstance(value, int) and value in choices.values():
        return int(value)
    names = ", ".join(repr(c) for c in choices)
    raise _sinew.InvalidArgumentError(f"{name}: expected one of {names}, got {value!r}")


def option_name(value, choices):
    """The name of a C enum value (the value itself when unknown)."""
    for name, v in choices.items():
        if v == value:
            return name
    return value


def info(values, enums=None):
    """A read-only namespace of an info dict, enum fields turned into names."""
    values = dict(values)
    for field, choices in (enums or {}).items():
        values[field] = option_name(values[field], choices)
    return types.SimpleNamespace(**values)


# Classes that load() makes for each kind (filled by register_kind).
_classes = {}


def register_kind(cls):
    """Class decorator: load() returns instances of cls for data of cls.kind."""
    _classes[cls.kind] = cls
    return cls


class OwnedHandle:
    """Base of the classes that own one sinew C handle (Skin, Soffd, BbwPose, ...).

    The handle is destroyed by close(), by leaving a `with` block, or when
    the object is collected. Objects are safe to share between threads: calls
    that only read may run at once; a call that modifies the handle while
    another runs raises InvalidStateError instead of racing."""

    def close(self):
        """Destroys the C handle now; later calls raise InvalidStateError."""
        self._handle.close()

    @property
    def closed(self):
        return self._handle.closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class HandleObject(OwnedHandle):
    """An OwnedHandle whose C handle the library can save: save(), load(),
    sinew.load() of any kind, and pickling through the saved bytes."""

    kind = None

    @classmethod
    def _from_handle(cls, handle):
        obj = cls.__new__(cls)
        obj._handle = handle
        return obj

    def save(self):
        """The handle's saved data as bytes (same handle, same bytes)."""
        return _sinew.save(self._handle)

    @classmethod
    def load(cls, data, *, progress=None):
        """Loads data saved by save(); MismatchError for data of another kind."""
        return cls._from_handle(_sinew.load(data, int(cls.kind), progress=progress))

    def __getstate__(self):
        return {"data": self.save()}

    def __setstate__(self, state):
        self._handle = _sinew.load(state["data"], int(self.kind))


def load(data, *, progress=None):
    """Loads saved data of any kind into the matching class (Skin, Soffd, ...)."""
    handle = _sinew.load(data, 0, progress=progress)
    cls = _classes.get(Kind(handle.kind))
    if cls is None:
        return handle
    return cls._from_handle(handle)


def saved_info(data):
    """Header of saved data: kind (Kind), format_version, library_version,
    section_count, size. The whole buffer is checked (InvalidDataError)."""
    values = _sinew.saved_info(data)
    values["kind"] = Kind(values["kind"])
    return types.SimpleNamespace(**values)
