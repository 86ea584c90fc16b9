import inspect
import os
import subprocess
import sys

import pytest

from tests.helpers import TARGET_PYTHON

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def target_prefix():
    """sys.prefix of TARGET_PYTHON; a usage error, never a skip, when it is missing or has no torch."""
    if TARGET_PYTHON == sys.executable:
        return sys.prefix
    try:
        return subprocess.check_output([TARGET_PYTHON, "-c", "import sys, torch; print(sys.prefix)"],
                                       universal_newlines=True, stderr=subprocess.DEVNULL).strip()
    except (OSError, subprocess.CalledProcessError):
        raise pytest.UsageError("MPS_DOCTOR_TEST_TARGET_PYTHON=%s is not a Python that imports torch" % TARGET_PYTHON)


TARGET_PREFIX = target_prefix()


@pytest.fixture(autouse=True)
def isolation(monkeypatch):
    """No colour and a fixed width in every test; the environment of the machine stays untouched."""
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    # Without --python the doctor diagnoses the active environment: make that the target interpreter's own.
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    # A PYTHONPATH of the shell that runs pytest would reach every target interpreter and child the tests start;
    # a test that means one sets its own.
    monkeypatch.delenv("PYTHONPATH", raising=False)
    # In a GitHub Actions job, `check` would write the job's step summary and annotations (render/github.py).
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    if TARGET_PYTHON != sys.executable or sys.prefix != getattr(sys, "base_prefix", sys.prefix):
        monkeypatch.setenv("VIRTUAL_ENV", TARGET_PREFIX)
    else:
        monkeypatch.delenv("VIRTUAL_ENV", raising=False)


class TerminalOutput:
    """A click 8.1 result whose `output` is click 8.2's: what the terminal shows, stdout and then stderr."""

    def __init__(self, result):
        self.result = result

    def __getattr__(self, name):
        return getattr(self.result, name)

    @property
    def output(self):
        return self.result.stdout + self.result.stderr


@pytest.fixture(scope="session")
def cli():
    """Run the mps-doctor CLI in-process; exceptions are never swallowed."""
    from click.testing import CliRunner

    from mps_doctor.cli import main

    # click 8.2 captures stderr apart from stdout always; click 8.1 (the last for Python 3.8) only when asked.
    click_81 = "mix_stderr" in inspect.signature(CliRunner).parameters
    runner = CliRunner(mix_stderr=False) if click_81 else CliRunner()

    def invoke(*args, **kwargs):
        kwargs.setdefault("catch_exceptions", False)
        result = runner.invoke(main, list(args), **kwargs)
        return TerminalOutput(result) if click_81 else result

    return invoke


def pytest_terminal_summary(terminalreporter):
    """The hostile-input suite's counts: how many generated and corpus cases attacked each input."""
    attack = sys.modules.get("tests.hostile.attack")
    if attack is not None and attack.TALLY:
        terminalreporter.write_line("hostile-input cases: %d (%s); exit codes %s" % (
            sum(attack.TALLY.values()), ", ".join("%s %d" % item for item in sorted(attack.TALLY.items())),
            ", ".join("%d: %d" % item for item in sorted(attack.EXITS.items()))))
