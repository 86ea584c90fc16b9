"""A probe that runs out of --timeout is diagnosed as too little time, never as a broken torch to reinstall."""

import os
import subprocess
import sys

import pytest


@pytest.fixture()
def slow_torch(tmp_path):
    """A PYTHONPATH whose installed `torch` (its metadata beside it, so no local shadow) takes 4 s to import."""
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("import time\ntime.sleep(4)\n__version__ = '2.13.0'\n")
    (tmp_path / "torch-2.13.0.dist-info").mkdir()
    (tmp_path / "torch-2.13.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.13.0\n")
    return str(tmp_path)


def doctor(*args, pythonpath):
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=pythonpath)
    done = subprocess.run([sys.executable, "-m", "mps_doctor"] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    return done.returncode, done.stdout, done.stderr


def test_a_slow_import_says_it_took_longer_than_the_timeout_and_how_to_raise_it(slow_torch):
    code, out, err = doctor("check", "--device", "cpu", "--timeout", "1", pythonpath=slow_torch)
    assert code == 1, err
    assert "Root cause: `import torch` took longer than the --timeout of 1 s" in out
    assert "--timeout 61" in out
    assert "crash" not in out and "reinstall" not in out.lower()


def test_the_fix_plan_for_a_slow_import_checks_again_with_more_time_and_installs_nothing(slow_torch):
    code, out, err = doctor("fix", "--print-commands", "--device", "cpu", "--timeout", "1", "--shell", "bash",
                            pythonpath=slow_torch)
    assert code == 0, err
    commands = [line for line in out.splitlines() if line and not line.startswith("#")]
    assert commands == ["%s -m mps_doctor check --python %s --device cpu --timeout 61" % (sys.executable, sys.executable)]
