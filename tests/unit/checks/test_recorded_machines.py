"""Every recorded machine, replayed through the real parsers and checks: verdict, root cause, remedy."""

import json

import pytest

from mps_doctor.checking.model import Options, Status
from mps_doctor.report import facts_from_report, report_to_dict, run_checks
from tests.helpers import shown_commands
from tests.machines import load_machine, machine_names, replay_facts

NAMES = machine_names()


def report_for(name, device=None, quick=False, strict=False):
    machine = load_machine(name)
    requested = device or machine["expect"].get("requested", "auto")
    return machine, run_checks(replay_facts(machine), Options(device=requested, requested_device=requested, quick=quick,
                                                              strict=strict))


def test_there_are_recorded_machines():
    assert len(NAMES) >= 12


@pytest.mark.parametrize("name", NAMES)
def test_verdict_root_cause_and_exit_code(name):
    machine, report = report_for(name)
    expect = machine["expect"]
    assert report.options.device == expect["device"]
    assert report.verdict.state == expect["state"], report.verdict.summary
    assert report.verdict.root_cause == expect["root_cause"]
    assert report.exit_code() == expect["exit_code"]
    assert report_for(name, strict=True)[1].exit_code() == expect.get("strict_exit_code", expect["exit_code"])
    if "summary_contains" in expect:
        assert expect["summary_contains"] in report.verdict.summary


@pytest.mark.parametrize("name", NAMES)
def test_root_cause_carries_the_key_command(name):
    machine, report = report_for(name)
    expect = machine["expect"]
    if expect["root_cause"] is None:
        return
    root = report.result(expect["root_cause"])
    assert root.status == Status.FAIL
    commands = shown_commands(report, root.id)
    assert expect["remedy_command"] in "\n".join(commands) if "remedy_command" in expect else commands
    assert expect.get("why_contains", "") in root.remedy.why


@pytest.mark.parametrize("name", NAMES)
def test_exactly_the_expected_warnings_and_skipped_layers(name):
    """Every machine states its warnings and the layers it skips before its root cause (a hosted runner's MPS layers):
    a new, lost or changed one fails here. What follows from the verdict is not listed (the layers after the root
    cause are skipped with its name, tested below; advisories that do not apply), so a new check changes no machine
    it does not fire on."""
    machine, report = report_for(name)
    warned = {r.id for r in report.results if r.status == Status.WARN}
    assert warned == set(machine["expect"]["warnings"])
    layers = [r for r in report.results if r.layer is not None]
    ended = next((i for i, r in enumerate(layers) if r.status in (Status.FAIL, Status.TIMEOUT)), len(layers))
    assert [r.id for r in layers[:ended] if r.status == Status.SKIP] == machine["expect"]["skipped_layers"]


@pytest.mark.parametrize("name", NAMES)
def test_every_failure_and_warning_has_a_command(name):
    _, report = report_for(name)
    for result in report.results:
        assert result.status != Status.ERROR, result
        if result.status in (Status.FAIL, Status.WARN):
            assert result.remedy is not None and shown_commands(report, result.id), result.id
            assert result.remedy.problem and result.remedy.why


@pytest.mark.parametrize("name", NAMES)
def test_layers_after_the_root_cause_are_skipped_with_its_name(name):
    _, report = report_for(name)
    layers = [r for r in report.results if r.layer is not None]
    if any("hosted macOS runner" in r.summary for r in layers):
        return
    seen_fail = None
    for result in layers:
        if seen_fail:
            assert result.status == Status.SKIP and seen_fail in result.summary
        elif result.status == Status.FAIL:
            seen_fail = result.id


@pytest.mark.parametrize("name", NAMES)
def test_json_round_trip_gives_identical_results(name):
    _, report = report_for(name)
    doc = json.loads(json.dumps(report_to_dict(report)))
    facts, options = facts_from_report(doc)
    again = run_checks(facts, Options(device=options["requested_device"], requested_device=options["requested_device"],
                                      quick=options["quick"]))
    assert again.results == report.results
    assert again.verdict == report.verdict


@pytest.mark.parametrize("name", NAMES)
def test_quick_skips_only_the_smoke_layer(name):
    _, full = report_for(name)
    _, quick = report_for(name, quick=True)
    smoke = quick.result("device.smoke")
    if smoke is not None and full.result("device.smoke").status != Status.SKIP:
        assert smoke.status == Status.SKIP and "--quick" in smoke.summary


def test_linux_machine_asked_for_mps_fails_at_the_os_layer_with_a_device_hint():
    _, report = report_for("linux-x86-cpu-torch", device="mps")
    assert report.verdict.root_cause == "os.macos"
    assert shown_commands(report, "os.macos") == ("# MPS needs macOS on Apple Silicon; CUDA needs Linux with an NVIDIA GPU",
                                                  "mps-doctor check --python %s --device cpu" % report.facts.target.python)
    assert report.exit_code() == 1


def test_mac_asked_for_cpu_runs_the_cpu_layers_and_warns_about_rosetta():
    _, report = report_for("m1-rosetta-x86-python", device="cpu")
    assert report.result("python.rosetta").status == Status.WARN
    assert report.result("os.macos") is None


def test_the_rule_used_is_named():
    _, report = report_for("m1-macos13-torch29")
    assert report.result("macos.version").rule.startswith("torch 2.9 row of torch_releases.json")
