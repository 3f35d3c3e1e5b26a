"""Binding infrastructure: version, errors, enums, saved-data helpers."""

import numpy as np
import pytest

import sinew
from sinew import _sinew


def test_version_matches_the_header():
    assert sinew.version() == _sinew.HEADER_VERSION
    major, minor, patch = (int(p) for p in sinew.version().split("."))
    assert sinew.version_number() == major * 10000 + minor * 100 + patch


def test_result_enum_matches_the_library_names():
    assert sinew.result_string(sinew.Result.OUT_OF_MEMORY) == "out of memory"
    for code in sinew.Result:
        assert sinew.result_string(code) != "unknown result"
    assert sinew.result_string(999) == "unknown result"


def test_error_classes_carry_their_code_and_builtin_base():
    assert issubclass(sinew.InvalidArgumentError, sinew.Error)
    assert issubclass(sinew.InvalidArgumentError, ValueError)
    assert issubclass(sinew.IndexOutOfRangeError, IndexError)
    assert issubclass(sinew.OutOfMemoryError, MemoryError)
    assert sinew.CancelledError.code == sinew.Result.CANCELLED
    for code in sinew.Result:
        if code == sinew.Result.OK:
            continue
        name = "".join(w.capitalize() for w in code.name.split("_")) + "Error"
        assert getattr(sinew, name).code == code


def test_saved_info_rejects_garbage_with_the_library_message():
    with pytest.raises(sinew.InvalidDataError) as caught:
        sinew.saved_info(b"not sinew data at all, clearly")
    assert caught.value.code == sinew.Result.INVALID_DATA
    assert caught.value.message
    assert str(caught.value) == caught.value.message
    with pytest.raises(sinew.InvalidArgumentError, match="data: expected bytes"):
        sinew.saved_info(3)


def test_load_rejects_garbage_and_unknown_kinds():
    with pytest.raises(sinew.InvalidDataError):
        sinew.load(b"\0" * 64)
    with pytest.raises(sinew.InvalidArgumentError, match="kind"):
        _sinew.load(b"\0" * 64, 99)


def test_handles_are_typed():
    with pytest.raises(TypeError, match="skin: expected a sinew skin handle"):
        _sinew.skin_info(object())
    with pytest.raises(TypeError, match="handle: expected a sinew handle"):
        _sinew.save(np.zeros(3))
