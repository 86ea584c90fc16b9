"""The oldest supported interpreters for real: the doctor installed on Python 3.8, the probe child on Python 3.7."""

import glob
import json
import os
import re
import subprocess

import pytest

from tests.helpers import TARGET_PYTHON
from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
REQUIRED = os.environ.get("MPS_DOCTOR_REQUIRE_OLD_PYTHONS") == "1"

pytestmark = pytest.mark.independent_of_test_python


def interpreter(version):
    """A real interpreter of VERSION (e.g. "3.8"): from MPS_DOCTOR_PYTHON_3_8 or a pyenv install, else None."""
    named = os.environ.get("MPS_DOCTOR_PYTHON_" + version.replace(".", "_"))
    if named:
        return named
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found = glob.glob(os.path.join(root, "versions", version + ".*", "bin", "python" + version))
    release = re.compile(r"/versions/%s\.(\d+)/" % re.escape(version))
    found = [path for path in found if release.search(path)]  # 3.8.18, not 3.8-dev or 3.8.18t
    return max(found, key=lambda path: int(release.search(path).group(1))) if found else None


def require(version):
    """The interpreter of VERSION; a loud failure when CI requires it, a skip that names what is missing otherwise."""
    python = interpreter(version)
    if python and os.access(python, os.X_OK):
        return python
    message = "Python %s is not installed here (set MPS_DOCTOR_PYTHON_%s or install it with pyenv)" % (
        version, version.replace(".", "_"))
    if REQUIRED:
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def doctor_on_38(tmp_path_factory):
    """The doctor installed from this checkout into a Python 3.8 venv: the path of its python."""
    python38 = require("3.8")
    folder = tmp_path_factory.mktemp("doctor38")
    subprocess.run([python38, "-m", "venv", str(folder)], check=True)
    python = str(folder / "bin" / "python")
    done = subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", ROOT],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert done.returncode == 0, done.stdout
    return python


def run_doctor(python, *args):
    """Run the installed doctor of PYTHON with ARGS: (returncode, stdout, stderr)."""
    env = dict(os.environ, NO_COLOR="1")
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run([python, "-m", "mps_doctor"] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=300, env=env)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.slow
def test_doctor_on_python_38_reports_version(doctor_on_38):
    code, out, err = run_doctor(doctor_on_38, "--version")
    assert code == 0, err
    assert "mps-doctor" in out


@pytest.mark.slow
def test_doctor_on_38_diagnoses_a_python_37_child_without_torch(doctor_on_38):
    python37 = require("3.7")
    code, out, err = run_doctor(doctor_on_38, "check", "--python", python37, "--device", "cpu", "--format", "json")
    assert "Traceback" not in err
    assert code == 1, err
    report = json.loads(out)
    assert report["facts"]["target"]["interpreter"]["version"][:2] == [3, 7]
    assert report["verdict"]["root_cause"] == "torch.import"


@pytest.mark.slow
def test_doctor_on_38_checks_a_torch_interpreter(doctor_on_38):
    code, out, err = run_doctor(doctor_on_38, "check", "--python", TARGET_PYTHON, "--device", "cpu", "--quick",
                                "--format", "json")
    assert "Traceback" not in err
    report = json.loads(out)
    assert report["facts"]["target"]["torch"]["version"].startswith("2.")
    assert code == 0, out


@pytest.mark.slow
def test_a_pyenv_python_27_is_too_old_for_this_platforms_torch_and_pyenv_provides_the_new_one():
    """Issue 24 item 9: a real Python 2.7 from pyenv describes where it lives, the failure names this platform's torch
    (MPS only on macOS), and the new environment's Python comes from pyenv, not from the distribution's packages."""
    import sys

    from tests.helpers import doctor

    python27 = require("2.7")
    code, out, err = doctor("check", "--python", python27, "--device", "cpu", "--format", "json")
    assert code == 1, err
    report = json.loads(out)
    interp = report["facts"]["target"]["interpreter"]
    assert interp["too_old"] and interp["version"][:2] == [2, 7]
    assert interp["executable_realpath"] == os.path.realpath(python27)
    root = next(r for r in report["results"] if r["id"] == report["verdict"]["root_cause"])
    platform = "Linux" if sys.platform.startswith("linux") else "macOS"
    assert root["summary"].startswith("Python 2.7.") and "CPU builds for %s" % platform in root["summary"]
    assert "MPS" not in root["summary"] + root["remedy"]["why"]
    code, plan, err = doctor("fix", "--print-commands", "--python", python27, "--device", "cpu")
    assert code == 0, err
    if "/.pyenv/versions/" in os.path.realpath(python27):
        assert "pyenv install --skip-existing 3.12\nPYENV_VERSION=3.12 pyenv exec python -m venv .venv-py312\n" in plan
        assert "distribution's package" not in plan and "setup: no virtual environment, Python from pyenv" in plan
