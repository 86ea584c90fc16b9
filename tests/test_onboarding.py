"""What a newcomer meets first: the default target, strict verdicts, shadowing, fix pins, replays, wording."""

import json
import os
import subprocess
import sys

import pytest

from mps_doctor.checks.model import Options
from mps_doctor.report import report_to_dict, run_checks
from tests.helpers import doctor, make_venv, site_packages
from tests.machines import load_machine, replay_facts


def saved_report(tmp_path, name, device="auto"):
    """A recorded machine's report saved as JSON, as `check --format json --output` writes it."""
    report = run_checks(replay_facts(load_machine(name)), Options(device=device, requested_device=device))
    path = tmp_path / (name + ".json")
    path.write_text(json.dumps(report_to_dict(report)))
    return str(path)


# --- 2. strict means not ready, everywhere ---------------------------------------------------------------------


def test_strict_with_a_warning_is_not_ready_in_the_summary_and_the_json(tmp_path, cli):
    report = saved_report(tmp_path, "m2-python-reports-1016")
    result = cli("check", "--from", report, "--strict", "--format", "json")
    doc = json.loads(result.output)
    assert result.exit_code == 1
    assert doc["verdict"]["ready"] is False and doc["verdict"]["state"] == "not-ready"
    assert doc["verdict"]["root_cause"] == "macos.python-view"
    text = cli("check", "--from", report, "--strict")
    assert text.exit_code == 1
    assert "ready to train" not in text.output and "not ready (--strict" in text.output
    plain = cli("check", "--from", report, "--format", "json")
    assert plain.exit_code == 0 and json.loads(plain.output)["verdict"]["ready"] is True


def test_strict_policy_makes_the_verdict_not_ready_too(tmp_path, cli):
    report = saved_report(tmp_path, "m2-python-reports-1016")
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.mps-doctor]\nstrict = true\n")
    result = cli("check", "--from", report, "--config", str(config), "--format", "json")
    doc = json.loads(result.output)
    assert result.exit_code == 1 and doc["verdict"]["ready"] is False
    assert "strict = true" in doc["verdict"]["summary"]
