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


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def doctor_wheel(into):
    """Build mps-doctor's wheel from a copy of the checkout (a build backend may write beside the sources) into INTO."""
    import shutil

    source = os.path.join(str(into), "source")
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".*", "tests", "build", "dist", "*.egg-info",
                                                                 "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(into), source], check=True,
                   cwd=str(into))
    shutil.rmtree(source)
    return next(os.path.join(str(into), name) for name in os.listdir(str(into)) if name.startswith("mps_doctor-"))


def repack_wheel(name, into):
    """A wheel of the distribution NAME rebuilt from the files the test interpreter has installed (its RECORD), so
    installers can install it offline: the same files, the same tag, a new RECORD."""
    import base64
    import csv
    import hashlib
    import zipfile
    from importlib import metadata

    dist = metadata.distribution(name)
    record = [row for row in csv.reader((dist.read_text("RECORD") or "").splitlines()) if row]
    info = next(row[0].split("/")[0] for row in record if row[0].split("/")[0].endswith(".dist-info"))
    tag = next(line.split(":", 1)[1].strip() for line in dist.read_text("WHEEL").splitlines() if line.startswith("Tag:"))
    path = os.path.join(str(into), "%s-%s.whl" % (info[:-len(".dist-info")], tag))
    installer_files = {info + "/" + leaf for leaf in ("INSTALLER", "REQUESTED", "direct_url.json", "RECORD")}
    rows = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for relative in (row[0] for row in record):
            if relative.startswith("..") or "__pycache__" in relative or relative in installer_files:
                continue
            with open(str(dist.locate_file(relative)), "rb") as handle:
                data = handle.read()
            wheel.writestr(relative, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rows.append("%s,sha256=%s,%d" % (relative, digest, len(data)))
        wheel.writestr(info + "/RECORD", "\n".join(rows + [info + "/RECORD,,"]) + "\n")
    return path


# mps-doctor's requirements (pyproject.toml [project] dependencies) on the test interpreter.
DOCTOR_REQUIREMENTS = ("click", "psutil", "packaging", "distro") + (("tomli",) if sys.version_info < (3, 11) else ())


def doctor_wheelhouse(into):
    """A folder of wheels that installs mps-doctor offline: its wheel and its requirements' (pip --no-index
    --find-links, uv --offline): (folder, the mps-doctor wheel)."""
    os.makedirs(str(into), exist_ok=True)
    for name in DOCTOR_REQUIREMENTS:
        repack_wheel(name, into)
    return str(into), doctor_wheel(into)
