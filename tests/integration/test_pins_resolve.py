"""Every torch/torchvision pin that `fix` prints resolves to real wheels for that machine's platform and Python.

For each recorded machine and each package manager's plan, every install step's pins are resolved by pip against
the package index, metadata only (`pip install --dry-run --only-binary=:all: --platform ... --python-version ...
--report -`), and torchvision's Requires-Dist must admit the torch pip picked. Needs the package index: marked
`network` (deselect with -m "not network"); .ci/run runs it.
"""

import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from mps_doctor.checking.model import Options
from mps_doctor.remedies.plan import build_plan
from mps_doctor.report import run_checks
from tests.machines import load_machine, machine_names, replay_facts

pytestmark = pytest.mark.network

PYPI = "https://pypi.org/simple"
MANAGERS = (None, "uv", "conda")
# Tags a glibc 2.35 machine accepts (every recorded Linux machine has more: Debian 12 2.36, Ubuntu 24.04 2.39); pip
# does not expand manylinux_2_X tags given with --platform, so the ones torch and torchvision use are listed.
LINUX_PLATFORM = "manylinux_2_35_x86_64,manylinux_2_28_x86_64,manylinux_2_17_x86_64,manylinux2014_x86_64,manylinux1_x86_64"


def plan_for(name, manager):
    machine = load_machine(name)
    device = machine["expect"].get("requested", "auto")
    report = run_checks(replay_facts(machine), Options(device=device, requested_device=device))
    return machine, report, build_plan(report, manager=manager)


def new_env_python(plan):
    """The Python version of the environment a plan creates, from its create-env step."""
    for step in plan.steps:
        if step.key == "create-env":
            text = step.title + " " + " ".join(" ".join(cmd.argv) for cmd in step.commands)
            found = re.search(r"(?:Python |python=|python@|cpython-)(3\.\d+)", text)
            if found:
                return found.group(1)
    return None


def macos_platform(version, arch):
    major, minor = (int(p) for p in (version.split(".") + ["0"])[:2])
    return "macosx_%d_%d_%s" % (major, 0 if major >= 11 else minor, arch)


def install_requests(name, manager):
    """(label, platform, python, pins, index) for each torch install step of NAME's plan under MANAGER."""
    machine, report, plan = plan_for(name, manager)
    facts = report.facts
    interp = facts.target.interpreter
    old_python = "%d.%d" % tuple(interp.version[:2]) if interp else None
    requests = []
    for step in plan.steps:
        for cmd in step.commands:
            argv = list(cmd.argv)
            pins = tuple(a for a in argv if a.startswith(("torch==", "torchvision==", "torchaudio")))
            if cmd.kind != "run" or "install" not in argv or not pins:
                continue
            if argv[:2] == ["arch", "-arm64"]:
                argv = argv[2:]
            if argv[0] == "uv":
                python_path = argv[argv.index("--python") + 1]
            elif argv[0] == "conda":
                python_path = "conda:" + argv[argv.index("-n") + 1]
            else:
                python_path = argv[0]
            same_interpreter = python_path in (facts.target.python, ".venv/bin/python")
            python = old_python if same_interpreter else new_env_python(plan)
            if facts.host.system == "Darwin":
                native = facts.host.hw_arm64 and not (same_interpreter and interp and interp.machine == "x86_64")
                platform = macos_platform(facts.host.macos_version, "arm64" if native else "x86_64")
            else:
                platform = LINUX_PLATFORM
            index = argv[argv.index("--index-url") + 1] if "--index-url" in argv else None
            requests.append(("%s/%s/%s" % (name, manager or "detected", step.key), platform, python, pins, index))
    return requests


def all_requests():
    """Every install request of every plan, once per machine (the managers' plans usually share their pins)."""
    seen, requests = set(), []
    for name in machine_names():
        for manager in MANAGERS:
            for request in install_requests(name, manager):
                if (name,) + request[1:] not in seen:
                    seen.add((name,) + request[1:])
                    requests.append(request)
    return requests


def resolve(platform, python, pins, index):
    """pip's resolution of PINS for PLATFORM and PYTHON (metadata only): {name: (version, url, requires_dist)},
    or the error pip printed."""
    with tempfile.TemporaryDirectory() as target:
        command = [sys.executable, "-m", "pip", "install", "--isolated", "--dry-run", "--target", target,
                   "--only-binary=:all:", *platform_args(platform), "--python-version", python, "--implementation", "cp",
                   "--ignore-installed", "--no-deps", "--use-feature=fast-deps", "--report", "-", "--quiet",
                   "--disable-pip-version-check", "--index-url", index or PYPI] + list(pins)
        if os.environ.get("PIP_CERT"):
            command[4:4] = ["--cert", os.environ["PIP_CERT"]]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["pip exited %d" % done.returncode])[-1]}
    report = json.loads(done.stdout)
    return {item["metadata"]["name"].lower(): (item["metadata"]["version"], item["download_info"]["url"],
                                                item["metadata"].get("requires_dist") or [])
            for item in report["install"]}


def platform_args(platforms):
    return [arg for platform in platforms.split(",") for arg in ("--platform", platform)]


def resolve_all(keys):
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        futures = {key: pool.submit(resolve, *key) for key in keys}
        return {key: future.result() for key, future in futures.items()}


def problems(resolved, pins):
    """What is wrong with a resolution of PINS: pip's error, a pin without a wheel, a companion refusing the torch."""
    if "error" in resolved:
        return [resolved["error"]]
    found = []
    for pin in pins:
        name = Requirement(pin).name
        if name not in resolved:
            found.append("%s resolved to nothing" % pin)
        elif not resolved[name][1].endswith(".whl") or not Requirement(pin).specifier.contains(resolved[name][0], True):
            found.append("%s resolved to %s" % (pin, resolved[name][1]))
    for companion in ("torchvision", "torchaudio"):
        if "torch" in resolved and companion in resolved:
            wants = [Requirement(r) for r in resolved[companion][2] if Requirement(r).name == "torch"]
            torch_version = Version(resolved["torch"][0])
            if any(not w.specifier.contains(torch_version, True) for w in wants if w.marker is None):
                found.append("%s %s requires %s, not torch %s" % (companion, resolved[companion][0], wants, torch_version))
    return found


def index_reachable(url):
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/torch/", timeout=15):
            return True
    except OSError:
        return False


REQUESTS = all_requests()
WRONG = [
    ("a torchvision that does not exist", "macosx_15_0_arm64", "3.12", ("torch==2.15.*", "torchvision==0.30.*"),
     "torchvision==0.30.*"),
    ("torch 2.15 on Python 3.10", "macosx_15_0_arm64", "3.10", ("torch==2.15.*", "torchvision==0.29.*"), "torch==2.15"),
    ("torch 2.12 on macOS 13", "macosx_13_0_arm64", "3.12", ("torch==2.12.*", "torchvision==0.27.*"), "torch==2.12"),
    ("torch 2.14 with torchvision 0.28", "macosx_15_0_arm64", "3.12", ("torch==2.14.*", "torchvision==0.28.*"),
     "torchvision 0.28.0 requires"),
]


# What an unpinned `pip install torch` gets, against what the table says it gets: (macOS, Python).
UNPINNED = [("13.6", "3.12"), ("15.1", "3.12"), ("15.1", "3.10")]


@pytest.fixture(scope="module")
def resolutions():
    keys = {(platform, python, pins, None) for _, platform, python, pins, _ in REQUESTS}
    keys |= {(platform, python, pins, None) for _, platform, python, pins, _ in WRONG}
    keys |= {(macos_platform(macos, "arm64"), python, ("torch",), None) for macos, python in UNPINNED}
    return resolve_all(sorted(keys, key=repr))


def test_every_plan_has_install_steps_to_check():
    names = {label.split("/")[0] for label, *_ in REQUESTS}
    assert {"m1-macos13-wants-mps", "m2-python310-torch215", "linux-pypi-torch213-driver-570"} <= names
    assert all(python for _, _, python, _, _ in REQUESTS)


@pytest.mark.parametrize(("label", "platform", "python", "pins", "index"), REQUESTS, ids=[r[0] for r in REQUESTS])
def test_pins_resolve_on_pypi(resolutions, label, platform, python, pins, index):
    """The pinned versions have wheels for this platform and Python on PyPI (the cpu/cuXYZ indexes carry the same
    release numbers with a local label), and torchvision accepts the torch pip picks."""
    assert problems(resolutions[(platform, python, pins, None)], pins) == [], (label, platform, python)


@pytest.mark.parametrize(("label", "platform", "python", "pins", "expected"), WRONG, ids=[w[0] for w in WRONG])
def test_a_wrong_pin_is_caught(resolutions, label, platform, python, pins, expected):
    found = problems(resolutions[(platform, python, pins, None)], pins)
    assert found and any(expected in line or "No matching distribution" in line for line in found), found


@pytest.mark.parametrize(("macos", "python"), UNPINNED)
def test_an_unpinned_install_gets_the_release_the_table_predicts(resolutions, macos, python):
    """On macOS 13 that is 2.11 (2.12+ wheels are macosx_14_0), which is why the MPS fix pins 2.8 there."""
    from mps_doctor.versions import load_releases, minor_of

    resolved = resolutions[(macos_platform(macos, "arm64"), python, ("torch",), None)]
    expected = load_releases().newest_installable_on_macos(macos, tuple(int(p) for p in python.split(".")))
    assert minor_of(resolved["torch"][0]) == minor_of(expected.torch), resolved


INDEXED = [r for r in REQUESTS if r[4]]


@pytest.mark.parametrize(("label", "platform", "python", "pins", "index"), INDEXED, ids=[r[0] for r in INDEXED])
def test_pins_resolve_on_the_index_the_plan_names(label, platform, python, pins, index):
    if not index_reachable(index):
        pytest.skip("%s is not reachable from here (PyPI resolution above still ran)" % index)
    assert problems(resolve(platform, python, pins, index), pins) == [], label
