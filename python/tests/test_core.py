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


def test_every_public_c_function_is_in_the_coverage_table():
    """docs/python.md's coverage table names each SINEW_API function of the
    headers (and sinew_struct_init), with its Python counterpart or why none."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    headers = sorted((root / "include" / "sinew").glob("*.h"))
    assert headers
    declared = {"sinew_struct_init"}
    for header in headers:
        declared |= set(re.findall(r"SINEW_API\s[^;(]*?\b(sinew_\w+)\s*\(", header.read_text()))
    assert {"sinew_bbw_pose_solve", "sinew_skin_link_rotations", "sinew_clear_error"} <= declared
    doc = (root / "docs" / "python.md").read_text()
    table = doc[doc.index("## Coverage: every public C function"):]
    table = table[:table.find("\n## ", 1)] if "\n## " in table[1:] else table
    rows = [line for line in table.splitlines() if line.startswith("| `sinew_")]
    named = {name for line in rows for name in re.findall(r"`(sinew_\w+)`", line.split(" | ")[0])}
    missing = sorted(declared - named)
    assert not missing, f"docs/python.md's coverage table lacks {missing}"
    for line in rows:
        assert line.split(" | ", 1)[1].strip(" |"), f"no Python counterpart or reason in: {line}"
