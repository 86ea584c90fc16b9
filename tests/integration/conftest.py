"""The integration tier: child interpreters, virtual environments, shipped scripts and the CLI as a process."""

import pytest


def pytest_collection_modifyitems(items):
    """Every test of this folder is marked `integration`."""
    for item in items:
        if "/tests/integration/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.integration)
