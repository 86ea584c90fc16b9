"""test_fix_scripts: the tests of tests/unit/remedies/test_plan.py that start processes (the integration tier)."""

import os
import shutil
import subprocess
import sys

import pytest

from tests.goldens import CHECKOUT
from tests.helpers import TARGET_PYTHON, doctor, make_venv
from tests.machines import machine_names
from tests.unit.remedies.test_plan import commands_of, plan_text


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is installed by .ci/run")
@pytest.mark.parametrize("dialect", ["bash", "sh"])
def test_every_posix_plan_passes_shellcheck(tmp_path, dialect):
    paths = []
    for name in machine_names():
        for shell in ("zsh", "bash"):
            path = tmp_path / ("%s-%s.sh" % (name, shell))
            path.write_text(plan_text(name, shell))
            paths.append(str(path))
    done = subprocess.run(["shellcheck", "--shell", dialect] + paths, stdout=subprocess.PIPE, text=True)
    assert done.returncode == 0, done.stdout


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is installed by .ci/run")
def test_every_fish_plan_parses(tmp_path):
    for name in machine_names():
        path = tmp_path / (name + ".fish")
        path.write_text(plan_text(name, "fish"))
        done = subprocess.run(["fish", "--no-execute", str(path)], stderr=subprocess.PIPE, text=True)
        assert done.returncode == 0, (name, done.stderr)


def test_fix_explains_in_words_by_default():
    example = os.path.join(CHECKOUT, "docs", "examples", "mac-rosetta.json")
    code, out, _ = doctor("fix", "--from", example, "--shell", "zsh")
    assert code == 0
    assert out.startswith("mps-doctor fix: not ready: Python runs under Rosetta")
    assert "\n1. Stop the terminal from running under Rosetta\n" in out
    assert "      arch -arm64 /Library/Frameworks/Python.framework/Versions/3.11/bin/python3.11 -m venv" in out
    assert out.rstrip().endswith("Print these as a zsh script, run: %s -m mps_doctor fix --from %s --shell zsh "
                                 "--print-commands" % (sys.executable, example))


def test_fix_from_a_file_that_is_not_a_report_is_exit_2(tmp_path):
    # Text is read as a paste (as `triage` reads it); an empty one holds nothing recognizable.
    code, out, err = doctor("fix", "--from", os.devnull)
    assert code == 2 and out == "" and "neither an mps-doctor JSON report nor pasted text it recognizes" in err
    damaged = tmp_path / "report.json"
    damaged.write_text('{"format": "mps-doctor-report", "schema_')
    code, out, err = doctor("fix", "--from", str(damaged))
    assert code == 2 and out == "" and "not JSON" in err


def test_fix_usage_errors():
    code, _, err = doctor("fix", "--torch", "banana")
    assert code == 2 and "--torch banana" in err
    code, _, err = doctor("fix", "--pypi", "--index-url", "https://example.invalid/simple")
    assert code == 2 and "cannot be combined" in err


@pytest.mark.slow
def test_printed_plan_run_for_real_makes_a_bare_venv_ready(tmp_path):
    """A venv without torch: run the printed plan step by step, then check --device cpu exits 0."""
    python = make_venv(tmp_path / "bare", TARGET_PYTHON, with_pip=True)
    code, before, _ = doctor("check", "--python", python, "--device", "cpu", "--quick")
    assert code == 1 and "torch is not installed" in before
    # The local torch is 2.13.0 (CPU) from the default index: pin it, and do not send pip elsewhere.
    code, script, err = doctor("fix", "--print-commands", "--python", python, "--device", "cpu", "--quick",
                               "--manager", "pip", "--shell", "bash", "--torch", "2.13.0", "--pypi")
    assert code == 0, err
    assert script.startswith("#!/usr/bin/env bash")
    steps = commands_of(script)
    assert steps[0] == "%s -m pip install torch==2.13.0 'torchvision==0.28.*'" % python
    assert steps[-1].startswith("%s -m mps_doctor check --python %s --device cpu" % (sys.executable, python))
    for line in steps[:-1]:
        done = subprocess.run(["bash", "-c", line], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert done.returncode == 0, done.stdout[-2000:]
    code, after, err = doctor("check", "--python", python, "--device", "cpu")
    assert code == 0, after + err
    assert "ready to train on cpu" in after


@pytest.mark.skipif(not (shutil.which("zsh") and shutil.which("fish")), reason="zsh and fish are installed by .ci/run")
def test_redacted_quoted_paths_still_run_in_every_shell(tmp_path):
    """A home path inside quotes is redacted to ~/'rest', which bash, zsh and fish expand (a quoted ~ is not)."""
    import subprocess

    from mps_doctor.render.redact import redact

    home = "/Users/alex"
    text = redact("'%s/Thesis | ML/x' and $'%s/a\\tb'" % (home, home), home, "alex")
    assert text == "~/'Thesis | ML/x' and ~/$'a\\tb'"
    for shell in ("bash", "zsh", "fish"):
        out = subprocess.run([shell, "-c", "echo ~/'Thesis | ML/x'"], capture_output=True, text=True,
                             env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}, check=True).stdout
        assert out == "%s/Thesis | ML/x\n" % tmp_path
