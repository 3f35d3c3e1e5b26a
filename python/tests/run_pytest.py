"""Runs pytest on the files given, for meson test: exit 77 (skipped) when
pytest is not installed or collected nothing, else pytest's status."""

import sys

try:
    import pytest
except ImportError:
    print("pytest is not installed (Debian: python3-pytest): skipping")
    sys.exit(77)

status = pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[1:]])
sys.exit(77 if status == pytest.ExitCode.NO_TESTS_COLLECTED else int(status))
