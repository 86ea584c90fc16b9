"""One remedy model: what `check` shows for each result is what `fix` prints, for every recorded machine and shell;
checks state their fixes as data and remedies/ alone knows package managers; nothing in remedies/ names a check."""

import ast
import dataclasses
import glob
import os
import re

import pytest

from mps_doctor.checking.registry import all_checks
from mps_doctor.remedies.plan import build_plan
from mps_doctor.render.script import render_script
from mps_doctor.render.text import render_text
from mps_doctor.report import run_checks
from tests.machines import machine_names
from tests.paths import ROOT_DIR
from tests.unit.checks.test_recorded_machines import report_for

ROOT = ROOT_DIR
SHELLS = {"zsh": "/bin/zsh", "bash": "/bin/bash", "fish": "/opt/homebrew/bin/fish"}
# Programs whose use depends on the user's setup: only remedies/ may start them.
MANAGERS = ("pip", "pip3", "uv", "conda", "mamba", "brew")
COMMAND = re.compile(r"^(%s) (install|create|config|venv|python|pip|run|activate)\b" % "|".join(MANAGERS))


def in_shell(report, shell):
    """REPORT as if its user's login shell were SHELL."""
    host = report.facts.host
    env = dict(host.env, SHELL=SHELLS[shell])
    facts = dataclasses.replace(report.facts, host=dataclasses.replace(host, env=env))
    return dataclasses.replace(report, facts=facts)


def shown_by_check(text):
    """The command lines of `check`'s text report (its `$ ` lines), without the prompt."""
    return [line.strip()[2:] for line in text.splitlines() if line.strip().startswith("$ ")]


def strict_report(name):
    """The recorded machine NAME's report under --strict, where an unaccepted warning can be the root cause."""
    machine, report = report_for(name)
    options = dataclasses.replace(report.options, strict=True, device=report.options.requested_device)
    return run_checks(report.facts, options)


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
@pytest.mark.parametrize("shell", sorted(SHELLS))
@pytest.mark.parametrize("name", machine_names())
def test_every_command_check_shows_is_in_the_fix_script(name, shell, strict):
    report = strict_report(name) if strict else report_for(name)[1]
    report = in_shell(report, shell)
    shown = shown_by_check(render_text(report, verbose=True))
    script = render_script(build_plan(report)).splitlines()
    missing = [command for command in shown if command not in script]
    assert not missing, "check shows commands that fix does not print: %s" % missing
    problems = [r for r in report.results if r.status.value in ("fail", "warn")]
    assert not problems or shown, "a failure or warning without a command in check's report"


def strings_in(path):
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    return tree, [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def test_checks_start_no_package_manager():
    paths = [os.path.join(ROOT, "mps_doctor", folder, "*.py") for folder in ("checks", "checking")]
    for path in [name for pattern in paths for name in glob.glob(pattern)] + [os.path.join(ROOT, "mps_doctor", "release_choice.py")]:
        tree, strings = strings_in(path)
        runs = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "run"]
        started = [node.args[0].value for node in runs if node.args and isinstance(node.args[0], ast.Constant)]
        assert not set(started) & set(MANAGERS), (path, started)
        commands = [s for s in strings if COMMAND.match(s) or "-m pip " in s]
        assert not commands, (path, commands)


def test_remedies_name_no_check_id():
    ids = {spec.id for spec in all_checks()}
    for path in glob.glob(os.path.join(ROOT, "mps_doctor", "remedies", "*.py")):
        _, strings = strings_in(path)
        assert not ids & set(strings), (path, ids & set(strings))


def test_a_remedy_holds_no_shell_string():
    from mps_doctor.checking import model

    fields = {f.name: f.type for f in dataclasses.fields(model.Remedy)}
    assert "commands" not in fields and "actions" in fields
