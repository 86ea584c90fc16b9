"""A conda base folder the report does not know is spelled by the shell (`conda info --base`), and expands there."""

import dataclasses
import os
import shutil
import subprocess

import pytest

from mps_doctor.checking.model import Options
from mps_doctor.remedies.plan import build_plan
from mps_doctor.render.script import render_script
from mps_doctor.report import run_checks
from tests.machines import load_machine, replay_facts


def rosetta_python_outside_any_env():
    """m1-rosetta-x86-python's facts, with the interpreter used directly (no venv): conda's base is unknown."""
    machine = load_machine("m1-rosetta-x86-python")
    facts = replay_facts(machine)
    interp = dataclasses.replace(facts.target.interpreter, prefix=facts.target.interpreter.base_prefix,
                                 pyvenv_cfg=None)
    facts = dataclasses.replace(facts, target=dataclasses.replace(facts.target, interpreter=interp))
    return run_checks(facts, Options(device="mps", requested_device="mps"))


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_an_unknown_conda_base_expands_in_the_shell(tmp_path, shell):
    if shutil.which(shell) is None:
        pytest.skip("%s is installed by .ci/run" % shell)
    script = render_script(build_plan(rosetta_python_outside_any_env(), manager="conda", shell=shell))
    assert "$CONDA_PREFIX" not in script
    config = [line for line in script.splitlines() if line.startswith("conda config --file")]
    assert len(config) == 1, script
    stubs = tmp_path / "bin"
    stubs.mkdir()
    (stubs / "conda").write_text('#!/bin/sh\nif [ "$1 $2" = "info --base" ]; then echo "/opt/my conda"; '
                                 'else printf "%s\\n" "$@" > "$ARGS_FILE"; fi\n')
    (stubs / "conda").chmod(0o755)
    args_file = tmp_path / "args"
    env = dict(os.environ, PATH="%s:%s" % (stubs, os.environ["PATH"]), ARGS_FILE=str(args_file))
    done = subprocess.run([shell, "-c", config[0]], env=env, stderr=subprocess.PIPE, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert args_file.read_text().splitlines() == ["config", "--file", "/opt/my conda/envs/torch-arm64/.condarc",
                                                  "--set", "subdir", "osx-arm64"]


def test_a_known_conda_base_is_written_out():
    machine = load_machine("m1-conda-osx64")
    report = run_checks(replay_facts(machine), Options(device="mps", requested_device="mps"))
    script = render_script(build_plan(report, shell="zsh"))
    assert "conda config --file /Users/alex/miniconda3/envs/torch-arm64/.condarc" in script
    assert "conda info --base" not in script
