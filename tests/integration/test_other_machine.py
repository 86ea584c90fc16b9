"""Every command the doctor prints for another machine, or for later, works as printed where it will be run: a plan
for a saved report or a paste starts mps-doctor by name and names none of this machine's paths; the hints that name
`mps-doctor fix` keep the target and start this doctor as a shell here reaches it, after the doctor has exited."""

import glob
import json
import os
import shlex
import subprocess
import sys

import pytest

from mps_doctor import output
from mps_doctor.ci import CI_MARKERS
from mps_doctor.commands import shared
from tests.helpers import TARGET_PYTHON, doctor, make_venv
from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "docs", "examples", "*.json")))
PASTE = os.path.join(ROOT, "tests", "pasted", "pytorch-164943-macos13-torch210-stale-message.txt")
# Where this machine keeps the doctor: a plan for another machine names none of it.
THIS_MACHINE = (sys.executable, os.path.dirname(sys.executable), ROOT)
# A shell in which `mps-doctor` is not a command (the README's venv install, preflight's .venv/bin).
BARE_PATH = "/usr/bin:/bin"


def this_machines_paths(text):
    """The lines of TEXT that name where this machine keeps the doctor."""
    return [line for line in text.splitlines() if any(path in line for path in THIS_MACHINE)]


def run_printed(command, stdin=None):
    """Run COMMAND as printed, in a shell whose PATH has no mps-doctor, from this checkout (so that `python -m
    mps_doctor` is this code): (exit code, stdout, stderr)."""
    done = subprocess.run(["sh", "-c", command], cwd=ROOT, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env={"PATH": BARE_PATH, "HOME": os.environ.get("HOME", "/"), "NO_COLOR": "1"},
                          timeout=300)
    return done.returncode, done.stdout, done.stderr


def hint(text, start):
    """The command of the line of TEXT that starts with START ('..., run: COMMAND')."""
    line = next(line for line in text.splitlines() if line.startswith(start))
    return line.split(", run: ", 1)[1]


# --- a plan for another machine ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("example", EXAMPLES, ids=os.path.basename)
def test_a_plan_for_a_saved_report_starts_mps_doctor_by_name_and_names_no_path_of_this_machine(example):
    code, out, err = doctor("fix", "--from", example, "--print-commands")
    assert code == 0, err
    assert this_machines_paths(out) == []
    assert out.rstrip().splitlines()[-1].startswith("mps-doctor check --python ")
    code, out, err = doctor("check", "--from", example, "--format", "json")
    commands = [command for result in json.loads(out)["results"] if result.get("remedy")
                for command in result["remedy"]["commands"]]
    assert commands and this_machines_paths("\n".join(commands)) == []


def test_a_plan_for_a_paste_starts_mps_doctor_by_name():
    code, out, err = doctor("fix", "--from", PASTE, "--print-commands")
    assert code == 0, err
    assert this_machines_paths(out) == []
    assert out.rstrip().splitlines()[-1] == "mps-doctor check --python python3 --device mps"


def test_check_from_a_saved_report_shows_the_commands_for_that_machine():
    example = os.path.join(ROOT, "docs", "examples", "linux-cpu-torch-on-gpu.json")
    code, out, _ = doctor("check", "--from", example, "--select", "device.parity")
    assert code == 1
    assert "    $ mps-doctor check --python /home/dev/proj/.venv/bin/python --device cuda\n" in out
    assert [line for line in this_machines_paths(out) if not line.startswith("To print")] == []


def test_a_plan_for_this_machine_checks_again_with_this_doctor_by_absolute_path(tmp_path):
    # A venv of a Python that torch supports: for one it does not (the doctor's own Python 3.8), the plan makes a new
    # venv and checks that one instead.
    python = make_venv(tmp_path / "bare", TARGET_PYTHON)
    code, out, err = doctor("fix", "--print-commands", "--python", python, "--device", "cpu", "--quick")
    assert code == 0, err
    assert out.rstrip().splitlines()[-1] == "%s -m mps_doctor check --python %s --device cpu" % (sys.executable, python)
    script = os.path.join(os.path.dirname(sys.executable), "mps-doctor")
    done = subprocess.run([script, "fix", "--print-commands", "--python", python, "--device", "cpu", "--quick"],
                          stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=ROOT))
    assert done.stdout.rstrip().splitlines()[-1] == "%s check --python %s --device cpu" % (script, python)


# --- the commands the hints name ---------------------------------------------------------------------------------------


def test_checks_fix_command_runs_as_printed_where_mps_doctor_is_not_on_path(tmp_path):
    example = os.path.join(ROOT, "docs", "examples", "mac-rosetta.json")
    code, out, _ = doctor("check", "--from", example, "--skip", "brew.prefix")
    assert code == 1
    command = hint(out, "To print the commands that fix this")
    assert shlex.split(command)[-5:] == ["fix", "--from", example, "--skip", "brew.prefix"]
    code, printed, err = run_printed(command)
    assert code == 0, err
    _, direct, _ = doctor("fix", "--from", example, "--skip", "brew.prefix")
    assert printed == direct


@pytest.mark.parametrize("args", [
    ("--from", os.path.join(ROOT, "docs", "examples", "mac-rosetta.json"), "--shell", "bash", "--torch", "2.9.0"),
    ("--from", PASTE, "--device", "mps", "--manager", "uv"),
])
def test_fixs_closing_hint_keeps_the_target_and_every_option(args):
    code, out, err = doctor("fix", *args)
    assert code == 0, err
    command = hint(out, "Print these as a ")
    code, printed, err = run_printed(command)
    assert code == 0, err
    _, direct, _ = doctor("fix", *args, "--print-commands")
    assert printed == direct and printed.startswith("#!/usr/bin/env ")


def test_fixs_closing_hint_names_the_python_it_probed(tmp_path):
    python = make_venv(tmp_path / "bare", TARGET_PYTHON)
    code, out, err = doctor("fix", "--python", python, "--device", "cpu", "--quick", "--timeout", "60")
    assert code == 0, err
    command = hint(out, "Print these as a ")
    assert command.endswith("fix --python %s --device cpu --quick --timeout 60 --print-commands" % python)
    code, printed, err = run_printed(command)
    assert code == 0, err
    assert printed.rstrip().splitlines()[-1].endswith("check --python %s --device cpu" % python)


def test_triage_names_the_fix_command_for_the_same_text():
    code, out, _ = doctor("triage", PASTE)
    assert code == 1
    command = hint(out, "To print the commands that fix this")
    assert shlex.split(command)[-3:] == ["fix", "--from", PASTE]
    code, printed, err = run_printed(command)
    assert code == 0, err
    assert printed == doctor("fix", "--from", PASTE)[1]
    with open(PASTE) as handle:
        text = handle.read()
    done = subprocess.run([sys.executable, "-m", "mps_doctor", "triage"], input=text, stdout=subprocess.PIPE,
                          text=True, env=dict(os.environ, NO_COLOR="1"))
    line = next(line for line in done.stdout.splitlines() if line.startswith("To print the commands"))
    assert line.endswith(" fix --from - (with the same input on stdin)")
    code, printed, err = run_printed(hint(done.stdout, "To print the commands").split(" (with")[0], stdin=text)
    assert code == 0 and printed.startswith("mps-doctor fix: problem found (mps)"), err


def test_check_from_a_paste_names_fix_from_the_same_file():
    code, out, _ = doctor("check", "--from", PASTE)
    assert code == 1
    assert shlex.split(hint(out, "To print the commands that fix this"))[-3:] == ["fix", "--from", PASTE]


class Found:
    """shutil.which as a stand-in: every name is found at PATH."""

    def __init__(self, path):
        self.path = path

    def __call__(self, name):
        return self.path


@pytest.mark.parametrize("script, on_path, expected", [
    ("/home/u/.local/bin/mps-doctor", "/home/u/.local/bin/mps-doctor", ("mps-doctor",)),
    ("/home/u/proj/.venv/bin/mps-doctor", "/home/u/.local/bin/mps-doctor", ("/home/u/proj/.venv/bin/mps-doctor",)),
    ("/home/u/proj/.venv/bin/mps-doctor", None, ("/home/u/proj/.venv/bin/mps-doctor",)),
    # uvx puts its cache's bin first on PATH while it runs the tool; once it exits, the name is gone.
    ("/home/u/.cache/uv/archive-v0/abc/bin/mps-doctor", "/home/u/.cache/uv/archive-v0/abc/bin/mps-doctor",
     ("/home/u/.cache/uv/archive-v0/abc/bin/mps-doctor",)),
])
def test_local_doctor_is_the_name_only_where_the_name_reaches_this_doctor_afterwards(monkeypatch, script, on_path,
                                                                                     expected):
    monkeypatch.setattr(sys, "argv", [script])
    # uv's cache holds CACHEDIR.TAG at its root (probe/default_target.runner_environment).
    monkeypatch.setattr(os.path, "isfile", lambda path: path in (script, "/home/u/.cache/uv/CACHEDIR.TAG"))
    assert shared.local_doctor(Found(on_path)) == expected


def test_local_doctor_run_as_a_module_is_this_python(monkeypatch):
    monkeypatch.setattr(sys, "argv", [os.path.join(ROOT, "mps_doctor", "__main__.py")])
    assert shared.local_doctor(Found("/usr/local/bin/mps-doctor")) == (sys.executable, "-m", "mps_doctor")


# --- the team policy and --strict, from any folder ---------------------------------------------------------------


def team_repository(tmp_path, table):
    """A team's repository (its .git ends the policy search) whose pyproject.toml holds the policy TABLE, and a folder
    outside it: (repository, policy file, elsewhere)."""
    team = tmp_path / "team"
    (team / ".git").mkdir(parents=True)
    policy = team / "pyproject.toml"
    policy.write_text('[project]\nname = "team"\n\n[tool.mps-doctor]\n' + table)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return team, str(policy), elsewhere


def run_in(folder, command):
    """Run COMMAND as printed from FOLDER, in a shell whose PATH has no mps-doctor, with this checkout importable
    (PYTHONPATH: `python -m mps_doctor` is this code from any folder): (exit code, stdout, stderr)."""
    done = subprocess.run(["sh", "-c", command], cwd=str(folder), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=300, env={"PATH": BARE_PATH, "HOME": os.environ.get("HOME", "/"),
                                                       "NO_COLOR": "1", "PYTHONPATH": ROOT})
    return done.returncode, done.stdout, done.stderr


def test_the_commands_printed_in_a_team_repository_keep_its_policy_from_any_folder(tmp_path):
    """The fix hint and the plan's closing check name the policy file the run found (--config, absolute), so that run
    from another folder they judge as they did in the repository: the team's torch 2.13, not the newest 2.15."""
    team, policy, elsewhere = team_repository(tmp_path, 'torch = ">=2.9,<2.14"\n')
    python = make_venv(team / ".venv", TARGET_PYTHON)  # a Python torch supports, also on the 3.8 pass
    args = ("--python", python, "--device", "cpu", "--quick")
    code, out, err = run_in(team, " ".join(map(shlex.quote, (sys.executable, "-m", "mps_doctor", "check") + args)))
    assert code == 1, err
    assert "torch==2.13.*" in out and "torch==2.15.*" not in out
    fix = hint(out, "To print the commands that fix this")
    assert shlex.split(fix)[-2:] == ["--config", policy]
    code, printed, err = run_in(elsewhere, fix)
    assert code == 0, err
    _, direct, _ = run_in(team, " ".join(map(shlex.quote, (sys.executable, "-m", "mps_doctor", "fix") + args)))
    assert printed == direct and "torch==2.13.*" in printed
    code, plan, err = run_in(elsewhere, fix + " --print-commands")
    assert code == 0, err
    again = plan.rstrip().splitlines()[-1]
    assert again == "%s -m mps_doctor check --python %s --device cpu --config %s" % (sys.executable, python, policy)
    code, out, err = run_in(elsewhere, again)
    assert code == 1, err
    assert "Policy (%s):" % policy in out and "torch==2.13.*" in out and "torch==2.15.*" not in out


@pytest.mark.slow
def test_the_closing_check_of_a_team_plan_is_not_ready_from_any_folder_while_the_policy_fails(tmp_path):
    """The new user's trial: a torch that the team's policy refuses, on a machine that trains; the plan's closing check,
    run from another folder, said ready (the policy was not found there). It names the policy file now."""
    team, policy, elsewhere = team_repository(tmp_path, 'torch = ">=2.14"\n')
    command = (sys.executable, "-m", "mps_doctor", "fix", "--print-commands", "--python", TARGET_PYTHON, "--device",
               "cpu", "--quick")
    code, plan, err = run_in(team, " ".join(map(shlex.quote, command)))
    assert code == 0, err
    again = plan.rstrip().splitlines()[-1]
    assert again == "%s -m mps_doctor check --python %s --device cpu --config %s" % (sys.executable, TARGET_PYTHON,
                                                                                     policy)
    code, out, err = run_in(elsewhere, again)
    assert code == 1, out + err
    assert "policy.torch" in out and "does not meet the team's >=2.14" in out
    # The same check without the policy file is ready there: what the closing check said before it named the file.
    code, out, err = run_in(elsewhere, again.rsplit(" --config ", 1)[0])
    assert code == 0 and "ready to train on cpu" in out, out + err


def test_a_relative_config_is_named_by_absolute_path(tmp_path):
    team, policy, elsewhere = team_repository(tmp_path, 'torch = ">=2.9,<2.14"\n')
    (team / "pyproject.toml").rename(team / "team-policy.toml")
    policy = str(team / "team-policy.toml")
    python = make_venv(team / ".venv")
    code, out, err = run_in(team, " ".join(map(shlex.quote, (sys.executable, "-m", "mps_doctor", "fix", "--python",
                                                             python, "--config", "team-policy.toml", "--quick"))))
    assert code == 0, err
    again = hint(out, "Print these as a ")
    assert shlex.split(again)[-3:] == ["--config", policy, "--print-commands"]
    code, plan, err = run_in(elsewhere, again)
    assert code == 0 and "torch==2.13.*" in plan, err
    assert plan.rstrip().splitlines()[-1].endswith(" --config %s" % policy)


def test_a_strict_run_prints_strict_commands_and_a_plan_for_a_report_names_no_policy_file_of_this_machine(tmp_path):
    """--strict is kept by the fix hint and the plan's closing check; --config FILE by the fix hint (run here), never by
    a plan for the report's machine, where this machine's file means nothing (the report carries its own policy)."""
    team, policy, elsewhere = team_repository(tmp_path, 'accept = [{ id = "brew.prefix", reason = "known" }]\n')
    example = os.path.join(ROOT, "docs", "examples", "mac-rosetta.json")
    code, out, _ = doctor("check", "--from", example, "--config", policy, "--strict")
    assert code == 1
    fix = hint(out, "To print the commands that fix this")
    assert shlex.split(fix)[-6:] == ["fix", "--from", example, "--config", policy, "--strict"]
    code, printed, err = run_in(elsewhere, fix + " --print-commands")
    assert code == 0, err
    again = printed.rstrip().splitlines()[-1]
    assert again.startswith("mps-doctor check --python ") and again.endswith(" --strict")
    assert "--config" not in printed and this_machines_paths(printed) == []


# --- --select -----------------------------------------------------------------------------------------------------


def test_select_shows_one_line_for_what_it_left_out(cli):
    example = os.path.join(ROOT, "docs", "examples", "mac-rosetta.json")
    doc = json.loads(cli("check", "--from", example, "--select", "python.rosetta", "--format", "json").output)
    left_out = [r for r in doc["results"] if r["summary"] == "skipped: not selected (--select)"]
    layers = sum(1 for r in left_out if r["layer"] is not None)
    assert layers and len(left_out) > layers
    out = cli("check", "--from", example, "--select", "python.rosetta").output
    lines = [line for line in out.splitlines() if "not selected" in line]
    assert lines == ["  [-]    not selected (--select): %d layers, %d advisories; -v lists them"
                     % (layers, len(left_out) - layers)]
    verbose = cli("check", "--from", example, "--select", "python.rosetta", "-v").output
    assert sum(1 for line in verbose.splitlines() if "skipped: not selected (--select)" in line) == len(left_out)


# --- colour ---------------------------------------------------------------------------------------------------------


class Stdout:
    def __init__(self, tty):
        self.tty = tty

    def isatty(self):
        return self.tty


@pytest.mark.parametrize("env, tty, flag, expected", [
    ({}, True, False, True),
    ({}, False, False, False),
    ({"FORCE_COLOR": "1"}, False, False, True),
    ({"FORCE_COLOR": "0"}, False, False, True),  # "regardless of its value" (force-color.org)
    ({"FORCE_COLOR": ""}, False, False, False),  # "not an empty string"
    ({"FORCE_COLOR": "1", "CI": "true"}, False, False, True),
    ({"FORCE_COLOR": "1", "TERM": "dumb"}, True, False, True),
    ({"NO_COLOR": "1"}, True, False, False),
    ({"NO_COLOR": ""}, True, False, True),
    ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False, False),  # NO_COLOR wins (docs/README)
    ({"FORCE_COLOR": "1"}, True, True, False),  # --no-color wins
    ({"CI": "true"}, True, False, False),
    ({"TERM": "dumb"}, True, False, False),
])
def test_use_color_honours_no_color_and_force_color(monkeypatch, env, tty, flag, expected):
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM") + CI_MARKERS:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdout", Stdout(tty))
    assert output.use_color(flag) is expected


def test_force_color_colours_a_pipe_and_no_color_wins(tmp_path):
    example = os.path.join(ROOT, "docs", "examples", "mac-rosetta.json")
    for command in (("check", "--from", example), ("triage", PASTE)):
        _, forced, _ = doctor(*command, env={"NO_COLOR": "", "FORCE_COLOR": "1"})
        assert "\x1b[" in forced
        _, both, _ = doctor(*command, env={"NO_COLOR": "1", "FORCE_COLOR": "1"})
        assert "\x1b[" not in both
        _, flag, _ = doctor(*command, "--no-color", env={"NO_COLOR": "", "FORCE_COLOR": "1"})
        assert "\x1b[" not in flag
        doctor(*command, "--output", str(tmp_path / "out.txt"), env={"NO_COLOR": "", "FORCE_COLOR": "1"})
        assert "\x1b[" not in (tmp_path / "out.txt").read_text()


# --- bench ----------------------------------------------------------------------------------------------------------


def test_bench_names_the_check_for_the_python_it_measured():
    """Linux has no MPS: bench --device mps stops with the check to run, for the same interpreter."""
    code, out, err = doctor("bench", "--device", "mps", "--windows", "1", "--steps", "1", "--warmup", "0", "--no-cpu",
                            "--python", TARGET_PYTHON)
    assert code == 1 and out == ""
    assert "fix --python %s --device mps" % TARGET_PYTHON in err and "mps was not measured" in err
