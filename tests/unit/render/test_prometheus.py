"""`check --format prometheus`: parsed by prometheus_client's parser, one series per state and status with 1 where it
holds, versions as escaped labels, and an atomic --output for node_exporter's textfile collector."""

import datetime
import os
from dataclasses import replace

import pytest
from prometheus_client.parser import text_string_to_metric_families

from mps_doctor.checking.model import Outcome, Remedy, Status
from mps_doctor.fleet.summarize import STATES
from mps_doctor.render.junit import kind_of
from mps_doctor.render.prometheus import render_prometheus
from mps_doctor.render.safe import visible
from mps_doctor.report import guarded
from tests.fleet import machine_report
from tests.machines import load_machine, machine_names, replay_facts

NAMES = machine_names()


def families(text):
    """{metric name: [(labels, value)]} as prometheus_client reads TEXT."""
    assert text.endswith("\n")
    return {f.name: [(s.labels, s.value) for s in f.samples] for f in text_string_to_metric_families(text)}


@pytest.mark.parametrize("name", NAMES)
def test_every_machine_parses_and_each_check_has_exactly_its_status(name):
    report = machine_report(name)
    metrics = families(render_prometheus(report))
    expect = load_machine(name)["expect"]
    assert metrics["mps_doctor_ready"] == [({}, float(expect["exit_code"] == 0))]
    assert metrics["mps_doctor_exit_code"] == [({}, float(expect["exit_code"]))]
    assert {labels["state"]: value for labels, value in metrics["mps_doctor_verdict"]} == {
        state: float(state == expect["state"]) for state in STATES}
    assert metrics.get("mps_doctor_root_cause", []) == (
        [({"check": expect["root_cause"]}, 1.0)] if expect["root_cause"] else [])
    holding = [(labels["check"], labels["layer_kind"], labels["status"])
               for labels, value in metrics["mps_doctor_check_status"] if value == 1]
    assert holding == [(r.id, kind_of(r), r.status.value) for r in report.results]
    assert len(metrics["mps_doctor_check_status"]) == len(report.results) * len(Status)
    (info, one), = metrics["mps_doctor_info"]
    assert one == 1 and info["device"] == expect["device"]
    torch = report.facts.target.torch
    if torch is not None and torch.installed and torch.version:
        assert info["torch"] == torch.version
    created = datetime.datetime.fromisoformat(report.created).timestamp()
    assert metrics["mps_doctor_report_timestamp_seconds"] == [({}, created)]


def test_label_values_from_outside_are_escaped_and_read_back():
    hostile = 'a"b\\c\nd\x1b[31m}\u202e,x="y"'

    def evaluate(spec, ctx):
        if spec.id == "torch.import":
            return Outcome(Status.FAIL, hostile, remedy=Remedy(hostile, hostile, key="x"))
        return guarded(spec, ctx)

    report = machine_report("m2-native-torch213", evaluate=evaluate)
    target = report.facts.target
    target = replace(target, torch=replace(target.torch, version=hostile))
    report = replace(report, facts=replace(report.facts, target=target))
    text = render_prometheus(report)
    assert "\x1b" not in text and "\u202e" not in text
    (info, _), = families(text)["mps_doctor_info"]
    assert info["torch"] == visible(hostile)


def test_output_is_replaced_atomically_beside_the_target(cli, monkeypatch, tmp_path):
    """node_exporter may read the folder at any moment: the file appears whole, renamed from a file in the same
    folder (a rename across file systems would not be atomic), and the collector reads only *.prom files."""
    facts = replay_facts(load_machine("m2-native-torch213"))
    monkeypatch.setattr("mps_doctor.diagnosis.collect_facts", lambda *a, **k: facts)
    monkeypatch.chdir(tmp_path)
    textfiles = tmp_path / "textfile"
    textfiles.mkdir()
    target = textfiles / "mps_doctor.prom"
    target.write_text("# an older run\n")
    target.chmod(0o644)
    renames = []
    real_replace = os.replace

    def replace(source, destination):
        renames.append((os.path.dirname(source), os.path.basename(source), destination))
        assert open(source).read().startswith("# HELP mps_doctor_ready")
        real_replace(source, destination)

    monkeypatch.setattr("mps_doctor.output.os.replace", replace)
    result = cli("check", "--format", "prometheus", "--output", str(target))
    assert result.exit_code == 0 and result.stdout == ""
    (folder, temporary, destination), = renames
    assert folder == str(textfiles) and destination == str(target) and not temporary.endswith(".prom")
    assert os.listdir(str(textfiles)) == ["mps_doctor.prom"]
    assert oct(target.stat().st_mode & 0o777) == "0o644"
    assert families(target.read_text())["mps_doctor_ready"] == [({}, 1.0)]
