"""python.free-threaded: a free-threaded CPython gets torch only from releases with its cp3XYt wheels on its platform."""

import dataclasses

import pytest

from mps_doctor.checking.model import Options, Policy, Status
from mps_doctor.release_choice import ReleaseChoice
from mps_doctor.report import run_checks
from mps_doctor.triage.engine import triage
from mps_doctor.triage.paste import read_paste
from mps_doctor.versions import load_releases
from tests.machines import load_machine, replay_facts

MACHINE = "m4-python313t-no-torch"


def facts_with(version=(3, 13, 5), free_threaded=True, system=None, machine=None):
    """The recorded free-threaded Mac, with its Python changed."""
    facts = replay_facts(load_machine(MACHINE))
    interp = dataclasses.replace(facts.target.interpreter, version=version, free_threaded=free_threaded,
                                 machine=machine or facts.target.interpreter.machine)
    host = dataclasses.replace(facts.host, system=system or facts.host.system)
    return dataclasses.replace(facts, host=host, target=dataclasses.replace(facts.target, interpreter=interp))


def result(facts, device="mps", policy=None):
    report = run_checks(facts, Options(device=device, requested_device=device, policy=policy or Policy()))
    return report, report.result("python.free-threaded")


def newest_with_wheels(python, platform="macos_arm64"):
    return [r.torch for r in load_releases().releases if python in (r.free_threaded_pythons(platform) or ())][-1]


def test_the_newest_release_with_the_pythons_wheels_is_the_one_installed():
    report, outcome = result(facts_with())
    assert outcome.status == Status.WARN
    assert "gets torch up to %s" % newest_with_wheels("3.13") in outcome.summary and "cp313t" in outcome.summary
    choice = ReleaseChoice(report.facts, report.options, load_releases())
    assert choice.release_to_install().torch == newest_with_wheels("3.13")


def test_a_python_the_newest_release_serves_passes():
    _, outcome = result(facts_with(version=(3, 14, 2)))
    assert outcome.status == Status.PASS and "cp314t" in outcome.summary


@pytest.mark.parametrize("free_threaded", [False, None])
def test_a_regular_or_unrecorded_build_passes(free_threaded):
    _, outcome = result(facts_with(free_threaded=free_threaded))
    assert outcome.status == Status.PASS


def test_no_allowed_release_with_its_wheels_fails_with_a_regular_python():
    policy = Policy(torch=">=2.12")
    report, outcome = result(facts_with(), policy=policy)
    assert outcome.status == Status.FAIL and "team's policy" in outcome.summary
    assert report.verdict.root_cause == "python.free-threaded"
    assert outcome.remedy.key == "regular-python"


def test_linux_x86_64_reads_its_own_platform():
    _, outcome = result(facts_with(system="Linux", machine="x86_64"), device="cpu")
    assert outcome.status == Status.WARN and "Linux x86_64" in outcome.summary


@pytest.mark.parametrize("banner,expected", [
    ("Python 3.13.2 experimental free-threading build (main, Feb  4 2025, 14:51:09) [Clang 16.0.0 ] on darwin", True),
    ("Python 3.14.0 free-threading build (main, Oct 28 2025, 11:52:40) [Clang 20.1.4 ] on darwin", True),
    ("Python 3.13.2 (main, Feb  4 2025, 14:51:09) [Clang 16.0.0 ] on darwin", False),
])
def test_a_pasted_banner_says_whether_the_build_is_free_threaded(banner, expected):
    """sys.version of a free-threaded build (CPython's Python/getversion.c, 3.13 and 3.14)."""
    known = read_paste(banner + "\n>>> import torch\nModuleNotFoundError: No module named 'torch'\n").known
    assert known["interpreter.free_threaded"].value is expected


def test_triage_of_a_free_threaded_collect_env_judges_the_layer():
    text = ("PyTorch version: N/A\nPython version: 3.13.1 experimental free-threading build (main, Dec  3 2024) "
            "[Clang 16.0.0 ] (64-bit runtime)\nPython platform: macOS-15.3-arm64-arm-64bit\n")
    outcome = triage(text).result("python.free-threaded")
    assert outcome.status == Status.WARN and "cp313t" in outcome.summary
