"""Real child interpreters for the live tests: venvs without torch, with a broken torch, and fake Pythons."""

import os
import subprocess
import sys
import textwrap
import venv


def make_venv(folder):
    """A real venv of the test interpreter, without pip (fast), and its python path."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(str(folder))
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
