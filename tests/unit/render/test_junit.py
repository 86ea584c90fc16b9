"""`check --format junit`: valid against the Jenkins xUnit plugin's junit-10.xsd, read by junitparser, one testcase
per check and a verdict case that fails exactly when check's exit code is not 0."""

import copy
import dataclasses
import os

import pytest
import xmlschema
from junitparser import Error, Failure, JUnitXml, Skipped

from mps_doctor.checking.model import CheckAgain, Outcome, Remedy, Status
from mps_doctor.render.commands import remedy_commands
from mps_doctor.render.junit import kind_of, readable, render_junit
from mps_doctor.render.safe import visible
from mps_doctor.report import guarded
from tests.fleet import machine_report
from tests.machines import MACHINES_DIR, load_machine, machine_names, replay_facts

SCHEMA = xmlschema.XMLSchema(os.path.join(os.path.dirname(MACHINES_DIR), "data", "junit-10.xsd"))
NAMES = machine_names()
ELEMENTS = {Status.FAIL: Failure, Status.TIMEOUT: Error, Status.ERROR: Error, Status.SKIP: Skipped}


def parsed(xml):
    """The one testsuite of XML, after validating XML against the schema."""
    SCHEMA.validate(xml.encode("utf-8"))
    suites = JUnitXml.fromstring(xml.encode("utf-8"))
    suite, = list(suites)
    return suites, suite


def outcome(case):
    """The class of CASE's outcome element (Failure, Error, Skipped), or None for a pass."""
    return type(case.result[0]) if case.result else None


@pytest.mark.parametrize("name", NAMES)
def test_every_machine_validates_and_its_counts_agree_with_its_cases(name):
    report = machine_report(name)
    suites, suite = parsed(render_junit(report))
    cases = list(suite)
    assert [c.name for c in cases] == [r.id for r in report.results] + ["verdict"]
    device = report.options.device
    assert [c.classname for c in cases] == ["mps-doctor.%s.%s" % (device, kind_of(r)) for r in report.results] + [
        "mps-doctor.%s.verdict" % device]
    for case, result in zip(cases, report.results):
        assert outcome(case) == ELEMENTS.get(result.status), result.id
    recounted = copy.deepcopy(suite)
    recounted.update_statistics()
    for field in ("tests", "failures", "errors", "skipped"):
        assert getattr(suite, field) == getattr(recounted, field), field
    assert suite.time == pytest.approx(sum(c.time for c in cases), abs=1e-6)
    assert (suites.tests, suites.failures, suites.errors) == (suite.tests, suite.failures, suite.errors)
    assert (suite.failures + suite.errors > 0) == (report.exit_code() != 0) == (load_machine(name)["expect"]["exit_code"] != 0)
    assert suite.timestamp == report.created
    torch = report.facts.target.torch
    imported = report.result("torch.import")
    seconds = torch.import_seconds if imported and imported.status != Status.SKIP and torch and torch.import_seconds else 0
    assert {c.name: c.time for c in cases if c.time} == ({"torch.import": round(seconds, 3)} if seconds else {})


@pytest.mark.parametrize("name", [n for n in NAMES if load_machine(n)["expect"]["root_cause"]])
def test_the_root_cause_fails_with_its_remedy_and_later_layers_are_skipped_with_the_reason(name):
    report = machine_report(name)
    _, suite = parsed(render_junit(report))
    cases = {c.name: c for c in suite}
    root = report.result(report.verdict.root_cause)
    failure = cases[root.id].result[0]
    assert failure.message == visible(root.summary) and failure.type == "fail"
    for command in readable(remedy_commands(report, "bash")[root.id]):
        assert command in failure.text
    assert root.remedy.why in failure.text
    for result in report.results:
        if result.layer is not None and result.status == Status.SKIP:
            assert cases[result.id].result[0].message == result.summary
    verdict = cases["verdict"].result[0]
    assert isinstance(verdict, Failure) and verdict.type == "not-ready" and verdict.message == report.verdict.summary


def test_warnings_pass_with_their_remedy_unless_warnings_count():
    name = "m2-torchaudio-left-behind"
    _, suite = parsed(render_junit(machine_report(name)))
    case = {c.name: c for c in suite}["torch.companions"]
    assert case.is_passed and case.system_out.startswith("warning: ")
    _, strict = parsed(render_junit(machine_report(name, strict=True)))
    cases = {c.name: c for c in strict}
    assert cases["torch.companions"].result[0].type == "warning"
    assert isinstance(cases["verdict"].result[0], Failure)


def test_a_crashed_check_and_a_timeout_are_errors():
    def boom(ctx):
        raise RuntimeError("boom")

    def evaluate(spec, ctx):
        if spec.id == "device.smoke":
            return Outcome(Status.TIMEOUT, "stopped after the --timeout of 60 s during the smoke step",
                           remedy=Remedy("The smoke step ran out of time.", "A slow first step.", (CheckAgain(timeout=300),)))
        return guarded(dataclasses.replace(spec, fn=boom) if spec.id == "python.numpy" else spec, ctx)

    _, suite = parsed(render_junit(machine_report("m2-native-torch213", evaluate=evaluate)))
    cases = {c.name: c for c in suite}
    assert cases["python.numpy"].result[0].type == "error" and "boom" in cases["python.numpy"].result[0].message
    assert "Traceback" in cases["python.numpy"].result[0].text
    assert cases["device.smoke"].result[0].type == "timeout"
    assert cases["verdict"].result[0].type == "timed-out" and isinstance(cases["verdict"].result[0], Error)
    assert suite.errors == 3 and suite.failures == 0


def test_hostile_text_stays_text_that_xml_can_hold():
    hostile = "\x00\x1b]0;owned\x07 </failure><![CDATA[x]]> & \"q\" \ufffe\uffff\ud800 \u202e\r\nline"

    def evaluate(spec, ctx):
        if spec.id == "torch.import":
            return Outcome(Status.FAIL, hostile, (hostile,), Remedy(hostile, hostile, (CheckAgain(),), key="x"))
        return guarded(spec, ctx)

    report = machine_report("m2-native-torch213", evaluate=evaluate)
    xml = render_junit(report)
    _, suite = parsed(xml)
    failure = {c.name: c for c in suite}["torch.import"].result[0]
    assert "\\x00" in failure.message and "\\x1b" in failure.message and "\\ufffe" in failure.message
    assert "</failure><![CDATA[" in failure.message and "\x1b" not in xml


def test_the_cli_writes_junit_with_check_s_exit_code(cli, monkeypatch, tmp_path):
    name = "m1-rosetta-x86-python"
    facts = replay_facts(load_machine(name))
    monkeypatch.setattr("mps_doctor.diagnosis.collect_facts", lambda *a, **k: facts)
    monkeypatch.chdir(tmp_path)
    result = cli("check", "--format", "junit", "--output", "report.xml")
    assert result.exit_code == load_machine(name)["expect"]["exit_code"] == 1 and result.stdout == ""
    _, suite = parsed((tmp_path / "report.xml").read_text(encoding="utf-8"))
    assert suite.failures == 2 and {c.name for c in suite if c.is_failure} == {"python.rosetta", "verdict"}


def test_pasted_text_has_no_junit_form(cli, tmp_path):
    paste = tmp_path / "issue.txt"
    paste.write_text("RuntimeError: The MPS backend is supported on MacOS 13.0+. Current OS version can be queried "
                     "using `sw_vers`\n")
    result = cli("check", "--from", str(paste), "--format", "junit")
    assert result.exit_code == 2 and "not pasted text" in result.stderr and result.stdout == ""
