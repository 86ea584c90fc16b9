"""install/: the pre-flight script (shellcheck, dash, for real here, macOS branches with stand-in commands) and
the CI workflow files."""

import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest
import yaml

from tests.helpers import TARGET_PYTHON
from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
PREFLIGHT = os.path.join(ROOT, "install", "preflight.sh")
SHELL_SCRIPTS = [PREFLIGHT, os.path.join(ROOT, ".ci", "run")]


# The POSIX sh scripts of install/mdm (Jamf, Kandji, Intune, osquery) and install/cluster (Slurm, NPD), and NHC's
# bash function file.
POSIX_SCRIPTS = [PREFLIGHT] + sorted(glob.glob(os.path.join(ROOT, "install", "mdm", "*.sh")) +
                                     glob.glob(os.path.join(ROOT, "install", "cluster", "*.sh")))
BASH_SCRIPTS = sorted(glob.glob(os.path.join(ROOT, "install", "cluster", "nhc", "*.nhc")))


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is installed by .ci/run")
def test_shellcheck_every_shipped_script():
    assert len(POSIX_SCRIPTS) >= 7 and BASH_SCRIPTS
    done = subprocess.run(["shellcheck", "-s", "sh"] + POSIX_SCRIPTS, stdout=subprocess.PIPE, text=True)
    assert done.returncode == 0, done.stdout
    done = subprocess.run(["shellcheck", "-s", "bash"] + BASH_SCRIPTS, stdout=subprocess.PIPE, text=True)
    assert done.returncode == 0, done.stdout
    done = subprocess.run(["shellcheck", os.path.join(ROOT, ".ci", "run")], stdout=subprocess.PIPE, text=True)
    assert done.returncode == 0, done.stdout


@pytest.mark.skipif(shutil.which("dash") is None, reason="dash is Debian's /bin/sh")
def test_preflight_parses_with_dash():
    assert subprocess.run(["dash", "-n", PREFLIGHT]).returncode == 0


def preflight(*args, cwd, path_prefix=None, env=None):
    full = dict(os.environ, NO_COLOR="1")
    for name in ("VIRTUAL_ENV", "CONDA_PREFIX", "HOMEBREW_PREFIX"):
        full.pop(name, None)
    if path_prefix:
        full["PATH"] = path_prefix + os.pathsep + full["PATH"]
    full.update(env or {})
    done = subprocess.run(["sh", PREFLIGHT] + list(args), cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=full, timeout=900)
    return done.returncode, done.stdout, done.stderr


def listing(folder):
    return sorted(os.path.relpath(p, str(folder)) for p in glob.glob(str(folder) + "/**", recursive=True))


@pytest.mark.slow
@pytest.mark.independent_of_test_python
def test_new_member_on_this_machine_gets_a_venv_a_report_and_a_verdict(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    python_dir = os.path.dirname(TARGET_PYTHON)
    code, out, err = preflight("--from", ROOT, "--torch", "2.13.0", "--device", "cpu", "--json", "report.json",
                               "--python", TARGET_PYTHON, cwd=project, path_prefix=python_dir)
    assert code == 0, out + err
    assert (project / ".venv" / "bin" / "python").exists()
    report = json.loads((project / "report.json").read_text())
    assert report["verdict"]["state"] == "ready" and report["options"]["device"] == "cpu"
    assert "ready to train on cpu" in out

    (project / ".venv" / "kept-by-the-user").write_text("mine")
    code, out, err = preflight("--device", "mps", cwd=project)
    assert code == 1, out + err
    assert "using the existing environment .venv" in err
    assert "Root cause: this is Linux: the MPS backend exists only on macOS" in out
    assert "# 1/" in out and "mps-doctor check --python" in out  # the fix plan
    assert (project / ".venv" / "kept-by-the-user").read_text() == "mine"


@pytest.mark.slow
@pytest.mark.independent_of_test_python
def test_what_a_not_ready_preflight_prints_runs_as_printed_after_it_exited(tmp_path):
    """The fix command the text names and the plan's closing check, run in a plain shell once the script is gone:
    mps-doctor is in .venv/bin, not on PATH, and no environment is active."""
    project = tmp_path / "project"
    project.mkdir()
    code, out, err = preflight("--from", ROOT, "--device", "cpu", "--python", TARGET_PYTHON, cwd=project,
                               env={"TMPDIR": str(tmp_path)})
    assert code == 1, out + err
    assert "Root cause: torch is not installed" in out
    plain = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "NO_COLOR": "1"}
    fix = next(line for line in out.splitlines() if line.startswith("To print the commands")).split(", run: ")[1]
    done = subprocess.run(fix, shell=True, cwd=str(tmp_path), env=plain, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("mps-doctor fix: not ready: torch is not installed")
    again = out.rstrip().splitlines()[-1]
    assert again.startswith(str(project / ".venv" / "bin" / "mps-doctor") + " check --python ")
    done = subprocess.run(again, shell=True, cwd=str(tmp_path), env=plain, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=300)
    assert done.returncode == 1 and "Root cause: torch is not installed" in done.stdout, done.stderr
    assert "report kept in %s" % (project / ".venv" / "mps-doctor-report.json") in err


@pytest.mark.slow
@pytest.mark.independent_of_test_python
def test_what_preflight_prints_in_a_team_repository_keeps_its_policy_and_strict_from_another_folder(tmp_path):
    """The new user's trial: in a repository whose pyproject.toml holds the team's policy, the plan's closing check
    ran from another folder ignored the policy. It names the policy file (absolute) and --strict, as the run was."""
    project = tmp_path / "team"
    (project / ".git").mkdir(parents=True)
    policy = project / "pyproject.toml"
    policy.write_text('[project]\nname = "team"\n\n[tool.mps-doctor]\ntorch = ">=2.9,<2.14"\n')
    code, out, err = preflight("--from", ROOT, "--device", "cpu", "--strict", "--python", TARGET_PYTHON, cwd=project,
                               env={"TMPDIR": str(tmp_path)})
    assert code == 1, out + err
    assert "Root cause: torch is not installed" in out and "torch==2.13.*" in out
    plain = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "NO_COLOR": "1"}
    again = out.rstrip().splitlines()[-1]
    doctor = str(project / ".venv" / "bin" / "mps-doctor")
    assert again == "%s check --python %s --device cpu --config %s --strict" % (
        doctor, project / ".venv" / "bin" / "python", policy)
    fix = next(line for line in out.splitlines() if line.startswith("To print the commands")).split(", run: ")[1]
    assert fix.endswith(" --strict")
    for command, expected in ((fix, 0), (again, 1)):
        done = subprocess.run(command, shell=True, cwd=str(tmp_path), env=plain, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=300)
        assert done.returncode == expected, done.stderr
        assert "torch==2.13.*" in done.stdout and "torch==2.15.*" not in done.stdout, done.stdout
    assert "Policy (%s):" % policy in done.stdout


def test_dry_run_changes_nothing(tmp_path):
    before = listing(tmp_path)
    code, out, err = preflight("--dry-run", "--torch", "2.13.0", "--python", sys.executable, cwd=tmp_path)
    assert code == 0, err
    assert listing(tmp_path) == before
    commands = [line[2:] for line in err.splitlines() if line.startswith("+ ")]
    assert commands[0].endswith("-m venv .venv") or commands[0].startswith("uv venv")
    assert any("pip install" in c and "torch==2.13.0" in c for c in commands)
    assert any(".venv/bin/mps-doctor check --python .venv/bin/python" in c for c in commands)


def test_the_one_line_installs_the_checkout_the_script_lives_in(tmp_path):
    code, _, err = preflight("--dry-run", "--json", "mps-doctor-report.json", "--python", sys.executable, cwd=tmp_path)
    assert code == 0, err
    assert "pip install --quiet %s" % ROOT in err or "uv pip install --python .venv/bin/python %s" % ROOT in err
    assert "--format json --output " in err and "+ cp " in err and " mps-doctor-report.json\n" in err
    assert listing(tmp_path) == ["."]


def test_usage_errors_are_exit_2(tmp_path):
    for args, message in ((("--device", "tpu"), "--device must be"), (("--bogus",), "unknown option --bogus"),
                          (("--torchvision", "0.28.0"), "--torchvision needs --torch"), (("--venv",), "--venv needs a value")):
        code, _, err = preflight(*args, cwd=tmp_path)
        assert code == 2 and message in err


def stand_ins(folder, machine="arm64", translated="0", extra=None):
    """Small stand-ins for uname, sysctl and sw_vers, first on PATH, as on an Apple Silicon Mac."""
    folder.mkdir(exist_ok=True)
    scripts = {
        "uname": 'case "$1" in -s) echo Darwin ;; -m) echo %s ;; *) echo Darwin ;; esac' % machine,
        "sysctl": 'case "$2" in sysctl.proc_translated) echo %s ;; hw.optional.arm64) echo 1 ;; *) exit 1 ;; esac'
                  % translated,
        "sw_vers": 'echo "ProductName: macOS"; echo "ProductVersion: 15.1"; echo "BuildVersion: 24B83"',
    }
    scripts.update(extra or {})
    for name, body in scripts.items():
        path = folder / name
        path.write_text("#!/bin/sh\n" + body + "\n")
        path.chmod(0o755)
    return str(folder)


def test_rosetta_shell_stops_before_changing_anything(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    code, _, err = preflight("--device", "mps", cwd=project, path_prefix=stand_ins(tmp_path / "bin", "x86_64", "1"))
    assert code == 1
    assert "runs under Rosetta" in err
    rerun = next(line for line in err.splitlines() if "re-run it natively:" in line).split(":  ", 1)[1]
    assert shlex.split(rerun) == ["arch", "-arm64", "/bin/sh", PREFLIGHT, "--device", "mps"]
    assert listing(project) == ["."]


def test_rosetta_shell_continues_for_the_cpu(tmp_path):
    code, _, err = preflight("--device", "cpu", "--dry-run", "--python", sys.executable, cwd=tmp_path,
                             path_prefix=stand_ins(tmp_path / "bin", "x86_64", "1"))
    assert code == 0 and "continuing because --device cpu" in err


def test_homebrew_python_is_preferred_on_a_mac(tmp_path):
    brew = tmp_path / "homebrew" / "bin"
    brew.mkdir(parents=True)
    (brew / "python3").write_text("#!/bin/sh\nexit 0\n")
    (brew / "python3").chmod(0o755)
    code, _, err = preflight("--dry-run", cwd=tmp_path, path_prefix=stand_ins(tmp_path / "bin"),
                             env={"HOMEBREW_PREFIX": str(tmp_path / "homebrew")})
    assert code == 0
    assert "+ %s -m venv .venv" % (brew / "python3") in err


def test_uv_is_used_when_present(tmp_path):
    bin_dir = stand_ins(tmp_path / "bin", extra={"uv": "exit 0"})
    code, _, err = preflight("--dry-run", "--python", "/usr/bin/python3", cwd=tmp_path, path_prefix=bin_dir)
    assert code == 0
    assert "+ uv venv --python /usr/bin/python3 .venv" in err


def test_active_venv_is_used_and_not_recreated(tmp_path):
    env = tmp_path / "active"
    (env / "bin").mkdir(parents=True)
    (env / "bin" / "python").write_text("#!/bin/sh\nexit 1\n")
    (env / "bin" / "python").chmod(0o755)
    code, _, err = preflight("--dry-run", cwd=tmp_path, env={"VIRTUAL_ENV": str(env)})
    assert code == 0 and "using the existing environment %s" % env in err
    assert "-m venv" not in err


# The pre-flight workflows (triage-issues.yml runs triage, not the pre-flight: tests/integration/test_triage_workflow.py).
WORKFLOWS = sorted(p for p in glob.glob(os.path.join(ROOT, "install", "github-actions", "*.yml"))
                   if not p.endswith("triage-issues.yml"))


def preflight_options():
    with open(PREFLIGHT) as handle:
        return set(re.findall(r"^\s+(--[a-z-]+)\)", handle.read(), flags=re.M))


@pytest.mark.parametrize("path", WORKFLOWS)
def test_workflows_parse_and_name_only_what_exists(path):
    with open(path) as handle:
        workflow = yaml.safe_load(handle)
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    runs = [s["run"] for s in steps if "run" in s]
    assert runs
    known = preflight_options()
    for command in runs:
        words = command.split()
        assert words[:2] == ["sh", "install/preflight.sh"], command
        for word in words[2:]:
            if word.startswith("--"):
                assert word in known, word
    uses = {s["uses"].split("@")[0] for s in steps if "uses" in s}
    assert uses <= {"actions/checkout", "actions/setup-python", "actions/upload-artifact"}


def test_self_hosted_workflow_demands_mps_and_hosted_one_uses_the_cpu():
    texts = {os.path.basename(p): open(p).read() for p in WORKFLOWS}
    assert "--device mps --strict" in texts["mps-self-hosted.yml"]
    assert "self-hosted" in texts["mps-self-hosted.yml"]
    assert "--device cpu" in texts["macos-hosted.yml"]

