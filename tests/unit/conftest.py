"""The unit tier runs in-process: a test here that starts a process fails and belongs in tests/integration/."""

import subprocess

import pytest


class ProcessInUnitTier(AssertionError):
    """A unit test started a process."""


@pytest.fixture(autouse=True)
def no_processes(monkeypatch):
    """Refuse subprocess.Popen (and everything built on it) for the test's duration."""

    def refuse(self, args, *_, **__):
        program = args[0] if isinstance(args, (list, tuple)) and args else args
        raise ProcessInUnitTier("the unit tier runs in-process; a test that starts %s belongs in tests/integration/"
                                % str(program)[:80])

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)


def pytest_collection_modifyitems(items):
    """Every test of this folder is marked `unit`."""
    for item in items:
        if "/tests/unit/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.unit)
