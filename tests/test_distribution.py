"""The release artifacts and the shipped workflows as a team uses them: the sdist and the wheel build without
warnings and pass `twine check`; the workflows' shell steps run from a scratch team repository that is not this
checkout, installing mps-doctor from the wheel the team keeps."""

import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest
import yaml

from tests.helpers import TARGET_PYTHON

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKFLOWS = {os.path.basename(p): p for p in glob.glob(os.path.join(ROOT, "install", "github-actions", "*.yml"))}
FULL_SHA = re.compile(r"^[^@]+@[0-9a-f]{40}$")


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """(build output, the sdist, the wheel) built from this checkout as a release would be."""
    out = tmp_path_factory.mktemp("dist")
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), ROOT], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout
    sdist, = glob.glob(str(out / "*.tar.gz"))
    wheel, = glob.glob(str(out / "*.whl"))
    return done.stdout, sdist, wheel


@pytest.mark.slow
def test_the_build_prints_no_warning_and_twine_accepts_both(dist):
    output, sdist, wheel = dist
    assert not re.search(r"warn|deprecat", output, re.I), output
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", sdist, wheel], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=120)
    assert done.returncode == 0, done.stdout


@pytest.mark.slow
def test_the_artifacts_carry_the_license_and_the_package_data(dist):
    _, sdist, wheel = dist
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    for data in ("mps_doctor/data/torch_releases.json", "mps_doctor/data/report.schema.json",
                 "mps_doctor/data/mnist/t10k-images-idx3-ubyte.gz", "mps_doctor/child/mpsd_probe.py"):
        assert data in names
    with tarfile.open(sdist) as archive:
        members = {m.name.split("/", 1)[1] for m in archive.getmembers() if "/" in m.name}
    assert {"LICENSE", "pyproject.toml", "install/preflight.sh", "mps_doctor/cli.py"} <= members
    # The maintainer tool travels with the tests in the sdist, and stays out of the wheel.
    assert {"tools/refresh/__main__.py", "tools/refresh/index.py"} <= members
    assert not [n for n in names if n.startswith("tools/") or "refresh" in n]


def load(name):
    with open(WORKFLOWS[name]) as handle:
        return yaml.safe_load(handle)


def triggers(workflow):
    return workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` key as true


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_workflows_follow_the_hardening_guidance(name):
    workflow = load(name)
    text = open(WORKFLOWS[name]).read()
    # Only the triage workflow writes, and only the issue comment it keeps up to date.
    writes = {"issues": "write"} if name == "triage-issues.yml" else {}
    assert workflow["permissions"] == dict(writes, contents="read")
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    for step in steps:
        if "uses" in step:
            assert FULL_SHA.match(step["uses"]), step["uses"]
            if step["uses"].startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False
    # The issue number (an integer) names the concurrency group; nothing else of the event reaches the file.
    assert "secrets." not in text and "${{ github.event" not in text.replace("${{ github.event.issue.number }}", "")
    for step in steps:
        assert not re.search(r"install\b[^\n]*\bmps-doctor\b(?![/\w.-])", step.get("run", "")), step["run"]
    self_hosted = any("self-hosted" in job["runs-on"] for job in workflow["jobs"].values())
    if self_hosted:
        on = triggers(workflow)
        assert "pull_request" not in on and "pull_request_target" not in on
        assert set(on) <= {"push", "workflow_dispatch", "schedule"}


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is installed by .ci/run")
@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_the_workflow_run_steps_pass_shellcheck(name, tmp_path):
    for index, step in enumerate(s for job in load(name)["jobs"].values() for s in job["steps"] if "run" in s):
        path = tmp_path / ("step%d.sh" % index)
        path.write_text(step["run"])
        done = subprocess.run(["shellcheck", "-s", "bash", str(path)], stdout=subprocess.PIPE, text=True)
        assert done.returncode == 0, done.stdout


def run_steps(name, team, overrides):
    """Run the workflow's shell steps as GitHub does (bash -eo pipefail) in TEAM: (returncode, output) of the last."""
    workflow = load(name)
    env = dict(os.environ, NO_COLOR="1", CI="true")
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX", "HOMEBREW_PREFIX", "PYTHONPATH"):
        env.pop(variable, None)
    env["PATH"] = os.path.dirname(TARGET_PYTHON) + os.pathsep + env["PATH"]  # what setup-python provides
    env.update({key: str(value) for key, value in workflow.get("env", {}).items()})
    env.update(overrides)
    result = None
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            if "run" in step:
                done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                                      cwd=str(team), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True, timeout=1200)
                result = (done.returncode, done.stdout)
    return result


@pytest.mark.slow
@pytest.mark.independent_of_test_python
def test_the_shipped_workflows_run_from_a_team_repository_with_the_kept_wheel(dist, tmp_path):
    _, _, wheel = dist
    team = tmp_path / "team-project"
    shutil.copytree(os.path.join(ROOT, "install"), str(team / "install"))
    (team / "tools").mkdir()
    kept = team / "tools" / os.path.basename(wheel)
    shutil.copy(wheel, str(kept))
    (team / "pyproject.toml").write_text("[project]\nname = 'team-project'\nversion = '1'\n")
    overrides = {"MPS_DOCTOR_FROM": "tools/" + kept.name}

    code, output = run_steps("macos-hosted.yml", team, overrides)
    assert code == 0, output
    assert "ready to train on cpu" in output and (team / "mps-doctor-report.json").exists()
    installed = subprocess.check_output([str(team / ".venv" / "bin" / "python"), "-c",
                                         "import mps_doctor; print(mps_doctor.__file__)"], text=True, cwd=str(team))
    assert installed.startswith(str(team / ".venv")), installed

    # The self-hosted one wants MPS; here (Linux) it runs to its verdict: not ready, with the reason and the report.
    code, output = run_steps("mps-self-hosted.yml", team, overrides)
    assert code == 1, output
    assert "the MPS backend exists only on macOS" in output
    assert "report kept in %s" % (team / "mps-doctor-report.json") in output
