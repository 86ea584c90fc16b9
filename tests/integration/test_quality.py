"""Repository-wide rules: Python versions the code runs on, lint, and the documented contracts."""

import os
import re
import subprocess
import sys

import pytest

from tests.paths import ROOT_DIR

ROOT = ROOT_DIR


def tool(name, *args):
    """Run a development tool installed by the test extras, from this interpreter's environment."""
    script = os.path.join(os.path.dirname(sys.executable), name)
    argv = [script] if os.path.exists(script) else [sys.executable, "-m", name]
    return subprocess.run(argv + list(args), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_doctor_runs_on_python_38():
    done = tool("vermin", "-q", "--no-tips", "--violations", "-t=3.8-", "mps_doctor", "tools")
    assert done.returncode == 0, done.stdout


def test_probe_child_runs_on_python_37():
    done = tool("vermin", "-q", "--no-tips", "--violations", "-t=3.7-", "mps_doctor/child")
    assert done.returncode == 0, done.stdout


def test_ruff_is_clean():
    done = tool("ruff", "check", "mps_doctor", "tests", "tools")
    assert done.returncode == 0, done.stdout


def test_readme_documents_every_exit_code_and_command():
    with open(os.path.join(ROOT, "README.md")) as handle:
        readme = handle.read()
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 3 |"):
        assert code in readme
    for command in ("mps-doctor check", "mps-doctor fix --print-commands", "mps-doctor bench", "mps-doctor list-checks"):
        assert command in readme


def test_no_machine_paths_of_this_workplace_in_the_repository():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, stdout=subprocess.PIPE, text=True).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    # The tool library's folder, not a name that ends in it (torch.library, fbgemm.library-...).
    pattern = re.compile(r"/work/(main|shared)|/opt/wheels|/opt/torch|(?<![\w])\.library")
    offenders = []
    for path in tracked:
        if path.endswith((".gz", ".png")):
            continue
        if path == "tests/integration/test_quality.py":
            continue
        with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as handle:
            if pattern.search(handle.read()):
                offenders.append(path)
    assert not offenders


def test_no_file_holds_a_merge_conflict_marker():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    marked = []
    for name in tracked:
        path = os.path.join(ROOT, name)
        if not name.endswith((".py", ".md", ".json", ".toml", ".yml", ".sh", ".txt")) or not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                if line.startswith(("<<<<<<< ", ">>>>>>> ")) or line.rstrip("\n") == "=======":
                    marked.append("%s:%d" % (name, number))
    assert not marked, marked


# Issue 21: a module longer than this is split by subject; the child probe runs in the user's interpreter as one file.
MAX_MODULE_LINES = 450
LONG_MODULES_ALLOWED = {os.path.join("mps_doctor", "child", "mpsd_probe.py")}


def test_no_module_of_the_package_is_over_the_line_limit():
    long = []
    for folder, _, files in os.walk(os.path.join(ROOT, "mps_doctor")):
        for name in files:
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, ROOT)
            if name.endswith(".py") and relative not in LONG_MODULES_ALLOWED:
                with open(path, encoding="utf-8") as handle:
                    count = sum(1 for _ in handle)
                if count > MAX_MODULE_LINES:
                    long.append("%s: %d lines" % (relative, count))
    assert not long, long
