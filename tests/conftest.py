import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def isolation(monkeypatch):
    """No colour and a fixed width in every test; the environment of the machine stays untouched."""
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    # Without --python the doctor diagnoses the active environment: make that the test interpreter's own.
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    if sys.prefix != getattr(sys, "base_prefix", sys.prefix):
        monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    else:
        monkeypatch.delenv("VIRTUAL_ENV", raising=False)


@pytest.fixture(scope="session")
def cli():
    """Run the mps-doctor CLI in-process; exceptions are never swallowed."""
    from click.testing import CliRunner

    from mps_doctor.cli import main

    runner = CliRunner()

    def invoke(*args, **kwargs):
        kwargs.setdefault("catch_exceptions", False)
        return runner.invoke(main, list(args), **kwargs)

    return invoke


@pytest.fixture(scope="session")
def python_with_torch():
    """An interpreter that has torch 2.13.0 (the test environment's own)."""
    return sys.executable


def pytest_terminal_summary(terminalreporter):
    """The hostile-input suite's counts: how many generated and corpus cases attacked each input."""
    attack = sys.modules.get("tests.hostile.attack")
    if attack is not None and attack.TALLY:
        terminalreporter.write_line("hostile-input cases: %d (%s); exit codes %s" % (
            sum(attack.TALLY.values()), ", ".join("%s %d" % item for item in sorted(attack.TALLY.items())),
            ", ".join("%d: %d" % item for item in sorted(attack.EXITS.items()))))
