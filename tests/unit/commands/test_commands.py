"""Small CLI pieces: colour decisions, atomic output (progress: tests/integration/test_progress.py)."""

import os

import pytest

from mps_doctor import output
from mps_doctor.errors import UsageError


class TTY:
    def isatty(self):
        return True


@pytest.mark.parametrize(("env", "flag", "expected"), [
    ({}, False, True),
    ({}, True, False),
    ({"NO_COLOR": ""}, False, True),  # no-color.org: present and not empty
    ({"NO_COLOR": "1"}, False, False),
    ({"TERM": "dumb"}, False, False),
    ({"CI": "true"}, False, False),
    ({"GITHUB_ACTIONS": "true"}, False, False),
    ({"CI": "false"}, False, True),
])
def test_colour_only_on_a_terminal_outside_ci(monkeypatch, env, flag, expected):
    for name in ("NO_COLOR", "CI", "GITHUB_ACTIONS", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(output.sys, "stdout", TTY())
    assert output.use_color(flag) is expected


def test_output_is_written_atomically_and_a_failure_keeps_the_old_file(tmp_path):
    target = tmp_path / "report.json"
    target.write_text("old")
    output.write_output("new", str(target))
    assert target.read_text() == "new"
    with pytest.raises(UsageError):
        output.write_output("x", str(tmp_path / "missing" / "r.json"))
    (tmp_path / "adir").mkdir()
    with pytest.raises(UsageError):
        output.write_output("x", str(tmp_path / "adir"))
    assert sorted(os.listdir(str(tmp_path))) == ["adir", "report.json"]


def test_an_output_name_the_filesystem_cannot_encode_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="not a file name this system can encode"):
        output.write_output("report", str(tmp_path / "\ud800"))
    assert list(tmp_path.iterdir()) == []


# The library behind the commands: --help and --version must not import any of it (commands/ imports it lazily).
HEAVY = ("mps_doctor.diagnosis", "mps_doctor.report", "mps_doctor.checks", "mps_doctor.probe", "mps_doctor.triage",
         "mps_doctor.remedies", "mps_doctor.bench", "mps_doctor.facts", "mps_doctor.policy", "packaging", "psutil")


