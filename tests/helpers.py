"""Real child interpreters for the live tests: venvs without torch, with a broken torch, and fake Pythons."""

import os
import subprocess
import sys
import textwrap
import venv

# The interpreter the tests diagnose as the target: one with torch 2.13.0. The test interpreter itself unless
# MPS_DOCTOR_TEST_TARGET_PYTHON names another (the doctor on Python 3.8 diagnoses a newer Python that has torch).
TARGET_PYTHON = os.environ.get("MPS_DOCTOR_TEST_TARGET_PYTHON") or sys.executable


def make_venv(folder, python=None, with_pip=False):
    """A real venv of PYTHON (by default the test interpreter), without pip unless asked (fast): its python path."""
    if python is None or python == sys.executable:
        venv.EnvBuilder(with_pip=with_pip, symlinks=True).create(str(folder))
    else:
        subprocess.run([python, "-m", "venv", "--symlinks", str(folder)] + ([] if with_pip else ["--without-pip"]),
                       check=True)
    return str(folder / "bin" / "python")


def site_packages(python):
    """The site-packages folder of PYTHON."""
    return subprocess.check_output([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   universal_newlines=True).strip()


def fake_torch(python, body):
    """Install a package named torch whose __init__ runs BODY into PYTHON's site-packages."""
    folder = os.path.join(site_packages(python), "torch")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "__init__.py"), "w") as handle:
        handle.write(textwrap.dedent(body))


def script(path, text):
    """An executable shell script at PATH."""
    path.write_text("#!/bin/sh\n" + text + "\n")
    path.chmod(0o755)
    return str(path)


def doctor(*args, env=None, timeout=300):
    """Run `python -m mps_doctor ARGS` for real: (returncode, stdout, stderr)."""
    full_env = dict(os.environ, NO_COLOR="1")
    full_env.update(env or {})
    done = subprocess.run([sys.executable, "-m", "mps_doctor"] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=timeout, env=full_env)
    return done.returncode, done.stdout, done.stderr


def shown_commands(report, result_id, shell="bash"):
    """The commands `check` shows (and `fix` prints) for the result RESULT_ID of REPORT, spelled for SHELL, with
    mps-doctor started by name."""
    from mps_doctor.render.commands import remedy_commands

    return remedy_commands(report, shell, doctor=("mps-doctor",))[result_id]
